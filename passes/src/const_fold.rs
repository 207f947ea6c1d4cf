//! Constant folding and exact integer identities.
//!
//! Requires: verified SSA. Guarantees:
//! - every pure instruction whose operands are all `iconst`/`pconst` results is replaced in
//!   place by an `iconst`/`pconst` of the value [`crate::eval::eval_pure`] computes (the
//!   interpreter's own semantics, so folding never changes results; the result value keeps
//!   its number);
//! - exact identities are applied by rewriting uses of the result to an operand:
//!   `x + 0`, `0 + x`, `x - 0`, `x | 0`, `x ^ 0`, `x << 0`, `x >> 0`, `x * 1`, `x / 1`
//!   (signed and unsigned), `x & ~0`, `x * 0` and `x & 0` (the zero operand), `umin/umax/imin/imax x, x`, `and/or x, x`,
//!   `select p, x, x`, `select true, x, y`, `select false, x, y`, `copy x`,
//!   `pnot (pnot p)`, `x & ~(2^k - 1)` for `x` a provable multiple of `2^k` (k <= 4), and
//!   the AMD IL boolean round trips `icmp ne (bmask p), 0` and
//!   `icmp eq (bmask p), ~0` (both `p`); the dead instruction is left for DCE;
//! - cheaper equivalents replace an instruction in place (same result values):
//!   `icmp eq (bmask p), 0` -> `pnot p`, `select p, ~0, 0` -> `bmask p`,
//!   `select (pnot p), a, b` -> `select p, b, a`, `brif (pnot p), A, B` -> `brif p, B, A`. Float identities are not applied (flushing makes even
//!   `x + -0.0` inexact for denormals).
//!
//! Instructions are visited in reverse post-order so constants propagate forward in one
//! pass; unreachable blocks are folded too.

use cranelift_entity::SecondaryMap;
use smallvec::SmallVec;

use crate::eval::{controlling_type, eval_pure};
use crate::ir::{Analyses, Function, InstructionData, IntCC, Opcode, Type, Value};

/// Runs constant folding on `func`, with analyses of its own.
pub fn run(func: &mut Function) {
    run_with(func, &mut Analyses::new());
}

/// Runs the pass with the pipeline's cached analyses (used before any branch changes).
pub fn run_with(func: &mut Function, analyses: &mut Analyses) {
    let (_, domtree) = analyses.domtree(func);
    let mut order: Vec<_> = domtree.rpo().to_vec();
    order.extend(func.layout.blocks().filter(|&b| !domtree.is_reachable(b)));
    let mut subst: SecondaryMap<Value, Option<Value>> = SecondaryMap::new();
    let resolve = |s: &SecondaryMap<Value, Option<Value>>, mut v: Value| {
        while let Some(n) = s[v] {
            v = n;
        }
        v
    };
    for b in order {
        let insts: Vec<_> = func.layout.block_insts(b).collect();
        for inst in insts {
            // Apply pending substitutions to this instruction's operands first.
            func.dfg.insts[inst].map_values(|v| resolve(&subst, v));
            if let Some(new) = rewrite(func, &func.dfg.insts[inst]) {
                func.dfg.replace_inst(inst, new);
            }
            let data = &func.dfg.insts[inst];
            if data.has_side_effects() || data.is_terminator() {
                continue;
            }
            let results = func.dfg.inst_results(inst);
            if results.len() != 1 || matches!(data, InstructionData::UnaryImm { .. }) {
                continue;
            }
            let result = results[0];
            // Inline lists: three heap Vecs per instruction and run were this pass's cost.
            let args = data.args();
            // Pushed, not collected: SmallVec's generic `extend` cost more than the checks.
            let mut consts: SmallVec<[u64; 4]> = SmallVec::new();
            for &a in args {
                match func.dfg.value_const(a) {
                    Some(c) => consts.push(c),
                    None => break,
                }
            }
            if consts.len() == args.len() {
                let mut tys: SmallVec<[Type; 4]> = SmallVec::new();
                for &a in args {
                    tys.push(func.dfg.value_type(a));
                }
                let ty = controlling_type(data, &tys);
                if let Some(vals) = eval_pure(data, ty, &consts) {
                    let rty = func.dfg.value_type(result);
                    let opcode = if rty == Type::Pred {
                        Opcode::Pconst
                    } else {
                        Opcode::Iconst
                    };
                    func.dfg.insts[inst] = InstructionData::UnaryImm {
                        opcode,
                        ty: rty,
                        imm: vals[0] & rty.mask(),
                    };
                    continue;
                }
            }
            if let Some(v) = identity(func, data) {
                if v != result {
                    subst[result] = Some(v);
                }
            }
        }
    }
    func.rewrite_uses(|v| resolve(&subst, v));
}

/// Operand of `v`'s definition if it is `op x` (one operand).
fn unary_of(func: &Function, v: Value, op: Opcode) -> Option<Value> {
    let i = func.dfg.value_inst(v)?;
    match func.dfg.insts[i] {
        InstructionData::Unary { opcode, args } if opcode == op => Some(args[0]),
        _ => None,
    }
}

/// An equivalent, cheaper form of `data` with the same results (replaced in place).
fn rewrite(func: &Function, data: &InstructionData) -> Option<InstructionData> {
    let c = |v: Value| func.dfg.value_const(v);
    match data {
        // icmp eq (bmask p), 0  ->  pnot p
        InstructionData::IntCompare {
            cond: IntCC::Eq,
            args,
            ..
        } if func.dfg.value_type(args[0]) == Type::B32 => {
            let (m, k) = if c(args[1]) == Some(0) {
                (args[0], args[1])
            } else {
                (args[1], args[0])
            };
            let p = unary_of(func, m, Opcode::Bmask)?;
            (c(k) == Some(0)).then_some(InstructionData::Unary {
                opcode: Opcode::Pnot,
                args: [p],
            })
        }
        // select p, ~0, 0  ->  bmask p
        InstructionData::Ternary {
            opcode: Opcode::Select,
            args,
            ..
        } if func.dfg.value_type(args[1]) == Type::B32
            && c(args[1]) == Some(0xFFFF_FFFF)
            && c(args[2]) == Some(0) =>
        {
            Some(InstructionData::Unary {
                opcode: Opcode::Bmask,
                args: [args[0]],
            })
        }
        // select (pnot p), a, b  ->  select p, b, a
        InstructionData::Ternary {
            opcode: Opcode::Select,
            args,
            ..
        } => {
            let p = unary_of(func, args[0], Opcode::Pnot)?;
            Some(InstructionData::Ternary {
                opcode: Opcode::Select,
                args: [p, args[2], args[1]],
            })
        }
        // brif (pnot p), A, B  ->  brif p, B, A
        InstructionData::Brif { opcode, arg, dests } => {
            let p = unary_of(func, arg[0], Opcode::Pnot)?;
            Some(InstructionData::Brif {
                opcode: *opcode,
                arg: [p],
                dests: Box::new([dests[1].clone(), dests[0].clone()]),
            })
        }
        _ => None,
    }
}

/// If `data` always equals one of its operands (or a value it is computed from), that value.
fn identity(func: &Function, data: &InstructionData) -> Option<Value> {
    use Opcode::*;
    let args = data.args();
    let c = |i: usize| args.get(i).and_then(|&a| func.dfg.value_const(a));
    let ty = args.first().map(|&a| func.dfg.value_type(a))?;
    let ones = ty.mask();
    match data.opcode() {
        Copy => Some(args[0]),
        Iadd | Bor | Bxor if c(1) == Some(0) => Some(args[0]),
        Iadd | Bor | Bxor if c(0) == Some(0) => Some(args[1]),
        Isub | Ishl | Ishr | Ushr if c(1) == Some(0) => Some(args[0]),
        Imul | Idiv | Udiv if c(1) == Some(1) => Some(args[0]),
        Imul if c(0) == Some(1) => Some(args[1]),
        // x * 0, x & 0  ->  the zero (reassociate's `c * y` for an unrolled copy's c = 0)
        Imul | Band if c(1) == Some(0) => Some(args[1]),
        Imul | Band if c(0) == Some(0) => Some(args[0]),
        // a * 0 + c  ->  c (flattened ids of a grid whose y/z ids are known 0)
        Imad if c(0) == Some(0) || c(1) == Some(0) => Some(args[2]),
        Band if c(1) == Some(ones) => Some(args[0]),
        Band if c(0) == Some(ones) => Some(args[1]),
        Band | Bor | Imin | Imax | Umin | Umax | Pand | Por if args[0] == args[1] => Some(args[0]),
        // p & true, p | false -> p
        Pand if c(1) == Some(1) => Some(args[0]),
        Pand if c(0) == Some(1) => Some(args[1]),
        Por if c(1) == Some(0) => Some(args[0]),
        Por if c(0) == Some(0) => Some(args[1]),
        // x & ~(2^k - 1) -> x when x is provably a multiple of 2^k (AMD IL's dword masks on
        // addresses that are already `index << 2`).
        Band if ty == crate::ir::Type::B32 && (c(1).is_some() || c(0).is_some()) => {
            let (x, m) = match (c(0), c(1)) {
                (_, Some(m)) => (args[0], m as u32),
                (Some(m), None) => (args[1], m as u32),
                _ => return None,
            };
            let low = !m;
            let clears_only_low_bits = low != 0 && (low & low.wrapping_add(1)) == 0;
            (clears_only_low_bits && crate::mem_combine::known_align(func, x, 6) > low && low < 16)
                .then_some(x)
        }
        Select if args[1] == args[2] => Some(args[1]),
        Select if c(0) == Some(1) => Some(args[1]),
        Select if c(0) == Some(0) => Some(args[2]),
        // pnot (pnot p)  ->  p
        Pnot => unary_of(func, args[0], Pnot),
        // icmp ne (bmask p), 0  ->  p ;  icmp eq (bmask p), ~0  ->  p
        Icmp => {
            let InstructionData::IntCompare { cond, .. } = data else {
                return None;
            };
            let (m, k) = if c(1).is_some() {
                (args[0], c(1))
            } else {
                (args[1], c(0))
            };
            let p = unary_of(func, m, Bmask)?;
            match (cond, k) {
                (IntCC::Ne, Some(0)) | (IntCC::Eq, Some(0xFFFF_FFFF)) => Some(p),
                _ => None,
            }
        }
        _ => None,
    }
}
