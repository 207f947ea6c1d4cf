//! Instruction combining on known low zero bits and shift idioms.
//!
//! Requires: verified SSA. Guarantees: behaviour unchanged; every rewrite replaces one
//! instruction in place by an equivalent one with the same result value:
//!
//! - `and x, c` becomes `copy x` when every bit `c` clears is a known-zero low bit of `x`
//!   (an address already aligned: `and (i << 2), ~3`; copy propagation removes the copy).
//! - `or (ishl x, a), (ushr x, b)` (either order) with `a + b = 0 mod 32` for constants, or
//!   `b = isub 32, a` / `b = ineg a` for run-time amounts, is a rotate: `fshr x, x, b`. Every
//!   amount is exact: the IR masks shift counts to 5 bits, and for `a = 0 mod 32` both
//!   shifts return `x` as `fshr x, x, 0` does.
//! - `or (ushr lo, k), (ishl hi, j)` with constants `k + j = 0 mod 32` and `k != 0 mod 32` is
//!   the funnel shift `fshr lo, hi, k`.
//! - `fadd a, (fneg b)` becomes `fsub a, b` (and `fadd (fneg a), b`, `fsub a, (fneg b)`
//!   likewise): the same IEEE operation, and the backend's FADD negates an operand for free.
//!   `iadd`/`isub` of an `ineg` likewise (exact modulo 2^32).
//! - Division by a run-time power of two `p = ishl 1, k` (never 0: shift counts are masked):
//!   `udiv x, p` becomes `ushr x, k` and `urem x, p` becomes `and x, (p + -1)` (one new
//!   instruction before it) instead of the division sequence.
//!
//! - `urem x, d` after `udiv x, d` in the same block (a flat index split into row and
//!   column) becomes `x - q * d` from that quotient (a select keeps `x % 0` all ones unless
//!   `d` is a nonzero constant): a multiply instead of a second division sequence.
//!
//! - `and`/`or`/`xor` of two `bmask`s (IL's 0/-1 truth values) becomes the `bmask` of the
//!   predicate operation (`pand`/`por`/`pxor`, one new instruction before it): `bmask` maps
//!   false to 0 and true to all ones, so the bitwise operation on the masks is the mask of
//!   the logical one. `icmp ne (bmask p), 0` then folds to `p` (`const_fold`), so a
//!   condition `a < n && b < n` stays in predicates instead of two `SEL`s and a `LOP`. A
//!   `select` of two `bmask`s (`cmov_logical` of truth values) likewise becomes the `bmask`
//!   of the predicate `select`.
//!
//! - `select (icmp cc a, b), a, b` (or `.., b, a`) with an order `cc` becomes `imax`,
//!   `imin`, `umax` or `umin` of `a` and `b` (IL's `ige` + `cmov_logical` idiom): one
//!   IMNMX instead of a compare and a SEL.
//!
//! - `icmp eq|ne x, (iadd y, c)` whose sum only it reads takes an existing `s = iadd x, -c`
//!   that dominates it: `icmp eq|ne s, y` (the same equation modulo 2^32). A loop's
//!   `i == n - 1` then compares the `i + 1` it computes anyway, and `n - 1` dies.
//!
//! Known low zero bits ("trailing zeros", 0..=32 for `b32` values) come from one optimistic
//! fixed point over the function, so loop-carried values (`p = phi(base, p + 16)`) count:
//! constants, `ishl` by a constant, `imul`, `iadd`/`isub`, `and`, `or`/`xor`, `select`,
//! `copy` and block parameters (the minimum over the incoming arguments); everything else
//! has none. Facts start at "all zero" and only decrease, so the fixed point is the
//! greatest consistent one, and each fact holds on every execution by induction over the
//! dynamic order of definitions. Each round visits every instruction once (a budget tick)
//! and lowers at least one fact, so the rounds are bounded; loops settle in two or three.

use cranelift_entity::SecondaryMap;

use crate::ir::{Analyses, Function, Inst, InstructionData, Opcode, Type, Value, ValueDef};
use crate::FastHashMap;

/// Runs instruction combining on `func`.
pub fn run(func: &mut Function) {
    combine(func);
}

/// As [`run`], with the pipeline's cached analyses (the dominator tree of the compare rule;
/// the pass keeps the CFG).
pub fn run_with(func: &mut Function, analyses: &mut Analyses) {
    combine_with(func, analyses);
}

/// As [`run`], returning how many instructions changed.
pub fn combine(func: &mut Function) -> usize {
    combine_with(func, &mut Analyses::new())
}

fn combine_with(func: &mut Function, analyses: &mut Analyses) -> usize {
    let tz = trailing_zeros(func);
    let mut changed = 0;
    // `udiv x, d` results by block and operands, for a later `urem x, d` in the block.
    let mut quotients: crate::FastHashMap<(Option<crate::ir::Block>, Value, Value), Value> =
        crate::FastHashMap::default();
    for inst in func.insts_in_layout() {
        let Some(r) = func.dfg.first_result(inst) else {
            continue;
        };
        if func.dfg.value_type(r) != Type::B32 {
            continue;
        }
        let new = match func.dfg.insts[inst] {
            InstructionData::Binary {
                opcode: op @ (Opcode::Band | Opcode::Bor | Opcode::Bxor),
                args: [a, b],
            } if bmask_of(func, a).is_some() && bmask_of(func, b).is_some() => {
                mask_of_predicates(func, inst, op, a, b)
            }
            InstructionData::Ternary {
                opcode: Opcode::Select,
                args: [c, a, b],
            } if bmask_of(func, a).is_some() && bmask_of(func, b).is_some() => {
                mask_of_selected(func, inst, c, a, b)
            }
            InstructionData::Ternary {
                opcode: Opcode::Select,
                args: [c, x, y],
            } => min_max(func, c, x, y)
                .map(|(opcode, args)| InstructionData::Binary { opcode, args }),
            InstructionData::Binary {
                opcode: Opcode::Band,
                args,
            } => redundant_mask(func, &tz, args).map(|x| InstructionData::Unary {
                opcode: Opcode::Copy,
                args: [x],
            }),
            InstructionData::Binary {
                opcode: Opcode::Bor,
                args,
            } => funnel(func, args).map(|args| InstructionData::Ternary {
                opcode: Opcode::Fshr,
                args,
            }),
            InstructionData::Binary {
                opcode: Opcode::Udiv,
                args: [x, p],
            } => {
                let k = power_of_two(func, p);
                if k.is_none() {
                    quotients.insert((func.layout.inst_block(inst), x, p), r);
                }
                k.map(|k| InstructionData::Binary {
                    opcode: Opcode::Ushr,
                    args: [x, k],
                })
            }
            InstructionData::Binary {
                opcode: Opcode::Urem,
                args: [x, d],
            } if power_of_two(func, d).is_none()
                && quotients.contains_key(&(func.layout.inst_block(inst), x, d)) =>
            {
                let q = quotients[&(func.layout.inst_block(inst), x, d)];
                Some(remainder_from_quotient(func, inst, x, d, q))
            }
            InstructionData::Binary {
                opcode: Opcode::Urem,
                args: [x, p],
            } => power_of_two(func, p).map(|_| {
                let mut cur = crate::ir::FuncCursor::new(func).at_inst(inst);
                let m1 = cur.ins().iconst(Type::B32, 0xffff_ffff);
                let mask = cur.ins().iadd(p, m1);
                InstructionData::Binary {
                    opcode: Opcode::Band,
                    args: [x, mask],
                }
            }),
            InstructionData::Binary {
                opcode: op @ (Opcode::Fadd | Opcode::Fsub | Opcode::Iadd | Opcode::Isub),
                args: [a, b],
            } => negation_folded(func, op, a, b)
                .map(|(opcode, args)| InstructionData::Binary { opcode, args }),
            _ => None,
        };
        if let Some(data) = new {
            func.dfg.insts[inst] = data;
            changed += 1;
        }
    }
    changed + offset_compares(func, analyses)
}

/// `icmp eq|ne x, (iadd y, c)` (either operand order) becomes `icmp eq|ne s, y` when an
/// `s = iadd x, -c` is already computed where it dominates the compare and the compare is
/// the sum `y + c`'s only reader: `x == y + c` and `x - c == y` are the same equation modulo
/// 2^32, so the result is exact for every value. A loop's exit test `i == n - 1` then reads
/// the `i + 1` the loop computes anyway: `n - 1` dies, it need not stay live across the
/// loop, and `i` dies at the increment. Rewrites only operands; returns how many compares
/// changed.
fn offset_compares(func: &mut Function, analyses: &mut Analyses) -> usize {
    // `iadd x, k` results (constant `k`), by `(x, k)`, in layout order.
    let mut sums: FastHashMap<(Value, u32), Vec<(Inst, Value)>> = FastHashMap::default();
    let mut compares = Vec::new();
    let mut uses: FastHashMap<Value, u32> = FastHashMap::default();
    for inst in func.insts_in_layout() {
        for v in func.dfg.insts[inst].all_values() {
            *uses.entry(v).or_default() += 1;
        }
        match func.dfg.insts[inst] {
            InstructionData::Binary {
                opcode: Opcode::Iadd,
                args,
            } => {
                if let Some((x, k)) = const_operand(func, args) {
                    let r = func.dfg.inst_results(inst)[0];
                    sums.entry((x, k)).or_default().push((inst, r));
                }
            }
            InstructionData::IntCompare {
                cond: crate::ir::IntCC::Eq | crate::ir::IntCC::Ne,
                args,
                ..
            } if func.dfg.value_type(args[0]) == Type::B32 => compares.push(inst),
            _ => {}
        }
    }
    if compares.is_empty() || sums.is_empty() {
        return 0;
    }
    let (_, dt) = analyses.domtree(func);
    let mut changed = 0;
    for inst in compares {
        let InstructionData::IntCompare { args: [a, b], .. } = func.dfg.insts[inst] else {
            continue;
        };
        let found = [(a, b), (b, a)].into_iter().find_map(|(x, other)| {
            // Only a sum the compare alone reads, which then dies: the reverse rewrite (of
            // `x - c == y` whose `x - c` is read elsewhere) would only move uses around.
            if uses.get(&other) != Some(&1) {
                return None;
            }
            let def = func.dfg.value_inst(other)?;
            let InstructionData::Binary {
                opcode: Opcode::Iadd,
                args,
            } = func.dfg.insts[def]
            else {
                return None;
            };
            let (y, c) = const_operand(func, args)?;
            let s = sums
                .get(&(x, c.wrapping_neg()))?
                .iter()
                .find(|&&(si, _)| dt.inst_dominates(func, si, inst))?
                .1;
            Some((s, y))
        });
        if let Some((s, y)) = found {
            if let InstructionData::IntCompare { args, .. } = &mut func.dfg.insts[inst] {
                *args = [s, y];
                changed += 1;
            }
        }
    }
    changed
}

/// `(x, k)` for the operands of `iadd x, k` with exactly one constant `k`.
fn const_operand(func: &Function, args: [Value; 2]) -> Option<(Value, u32)> {
    match (func.dfg.value_const(args[0]), func.dfg.value_const(args[1])) {
        (None, Some(k)) => Some((args[0], k as u32)),
        (Some(k), None) => Some((args[1], k as u32)),
        _ => None,
    }
}

/// `bmask (pop p, q)` for `op (bmask p), (bmask q)`, the predicate operation inserted
/// before `inst`.
fn mask_of_predicates(
    func: &mut Function,
    inst: Inst,
    op: Opcode,
    a: Value,
    b: Value,
) -> Option<InstructionData> {
    let (p, q) = (bmask_of(func, a)?, bmask_of(func, b)?);
    let pop = match op {
        Opcode::Band => Opcode::Pand,
        Opcode::Bor => Opcode::Por,
        _ => Opcode::Pxor,
    };
    Some(mask_of_inserted(func, inst, |ins| ins.binary(pop, p, q)))
}

/// `bmask (select c, p, q)` for `select c, (bmask p), (bmask q)` (IL's `cmov_logical` of
/// two truth values), the predicate select inserted before `inst`.
fn mask_of_selected(
    func: &mut Function,
    inst: Inst,
    c: Value,
    a: Value,
    b: Value,
) -> Option<InstructionData> {
    let (p, q) = (bmask_of(func, a)?, bmask_of(func, b)?);
    Some(mask_of_inserted(func, inst, |ins| ins.select(c, p, q)))
}

/// `bmask x` for the predicate `x` that `make` inserts before `inst`.
fn mask_of_inserted(
    func: &mut Function,
    inst: Inst,
    make: impl FnOnce(crate::ir::InstBuilder) -> Value,
) -> InstructionData {
    let x = make(crate::ir::FuncCursor::new(func).at_inst(inst).ins());
    InstructionData::Unary {
        opcode: Opcode::Bmask,
        args: [x],
    }
}

/// `p` when `v` is `bmask p`.
fn bmask_of(func: &Function, v: Value) -> Option<Value> {
    match func.dfg.insts[func.dfg.value_inst(v)?] {
        InstructionData::Unary {
            opcode: Opcode::Bmask,
            args: [p],
        } => Some(p),
        _ => None,
    }
}

/// `fadd a, (fneg b)` as `fsub a, b`, `fadd (fneg a), b` as `fsub b, a`, `fsub a, (fneg b)`
/// as `fadd a, b`: the same IEEE operation (`a - b` is `a + -b`; flushing a denormal keeps its
/// sign, and a NaN result is canonical either way), without the sign-flip instruction. The
/// same for `iadd`/`isub` of an `ineg` (exact modulo 2^32), which AMD IL's `_neg` modifier on
/// an integer source leaves (`iadd r, a, b_neg(x)`).
fn negation_folded(
    func: &Function,
    op: Opcode,
    a: Value,
    b: Value,
) -> Option<(Opcode, [Value; 2])> {
    let (add, sub, neg) = match op {
        Opcode::Fadd | Opcode::Fsub => (Opcode::Fadd, Opcode::Fsub, Opcode::Fneg),
        _ => (Opcode::Iadd, Opcode::Isub, Opcode::Ineg),
    };
    let negated = |v: Value| match func.dfg.value_inst(v).map(|i| &func.dfg.insts[i]) {
        Some(InstructionData::Unary { opcode, args }) if *opcode == neg => Some(args[0]),
        _ => None,
    };
    match (op == add, negated(a), negated(b)) {
        (true, _, Some(y)) => Some((sub, [a, y])),
        (true, Some(x), None) => Some((sub, [b, x])),
        (false, _, Some(y)) => Some((add, [a, y])),
        _ => None,
    }
}

/// `urem x, d` from the quotient `q = udiv x, d` computed before it: `x - q * d`, or all
/// ones when `d` is 0 (the IR's `x % 0`; `x / 0` is all ones too, so `x - q * d` would give
/// `x`). The compare and select are left out for a nonzero constant `d`. The new
/// instructions go before `inst`; returns its replacement.
fn remainder_from_quotient(
    func: &mut Function,
    inst: Inst,
    x: Value,
    d: Value,
    q: Value,
) -> InstructionData {
    let mut cur = crate::ir::FuncCursor::new(func).at_inst(inst);
    let t = cur.ins().imul(q, d);
    if cur.func.dfg.value_const(d).is_some_and(|c| c as u32 != 0) {
        return InstructionData::Binary {
            opcode: Opcode::Isub,
            args: [x, t],
        };
    }
    let r = cur.ins().isub(x, t);
    let zero = cur.ins().iconst(Type::B32, 0);
    let z = cur.ins().icmp(crate::ir::IntCC::Eq, d, zero);
    let ones = cur.ins().iconst(Type::B32, 0xffff_ffff);
    InstructionData::Ternary {
        opcode: Opcode::Select,
        args: [z, ones, r],
    }
}

/// `select (icmp cc a, b), x, y` picking one of the compared values, `{x, y} = {a, b}`:
/// the integer minimum or maximum of `a` and `b` (`a >= b ? a : b` is `imax a, b`; on equal
/// values both arms are the same number).
fn min_max(func: &Function, c: Value, x: Value, y: Value) -> Option<(Opcode, [Value; 2])> {
    use crate::ir::IntCC as C;
    let inst = func.dfg.value_inst(c)?;
    let InstructionData::IntCompare {
        cond, args: [a, b], ..
    } = func.dfg.insts[inst]
    else {
        return None;
    };
    // Which the select returns when `a cond b` holds: the larger (true) or the smaller.
    let larger_when_true = match cond {
        C::Sgt | C::Sge | C::Ugt | C::Uge => true,
        C::Slt | C::Sle | C::Ult | C::Ule => false,
        C::Eq | C::Ne => return None,
    };
    let takes_a = if (x, y) == (a, b) {
        true
    } else if (x, y) == (b, a) {
        false
    } else {
        return None;
    };
    let max = larger_when_true == takes_a;
    let signed = matches!(cond, C::Sgt | C::Sge | C::Slt | C::Sle);
    let op = match (signed, max) {
        (true, true) => Opcode::Imax,
        (true, false) => Opcode::Imin,
        (false, true) => Opcode::Umax,
        (false, false) => Opcode::Umin,
    };
    Some((op, [a, b]))
}

/// `k` when `p` is `ishl 1, k`.
fn power_of_two(func: &Function, p: Value) -> Option<Value> {
    let inst = func.dfg.value_inst(p)?;
    if func.dfg.opcode(inst) != Opcode::Ishl {
        return None;
    }
    let a = func.dfg.inst_args(inst);
    (func.dfg.value_const(a[0]) == Some(1)).then_some(a[1])
}

/// For `and a, b`: the operand that the mask leaves unchanged, if any.
fn redundant_mask(
    func: &Function,
    tz: &SecondaryMap<Value, u32>,
    [a, b]: [Value; 2],
) -> Option<Value> {
    let low = |v: Value| -> u32 {
        match tz[v] {
            32.. => u32::MAX,
            n => (1u32 << n) - 1,
        }
    };
    for (x, m) in [(a, b), (b, a)] {
        if let Some(c) = func.dfg.value_const(m) {
            if (c as u32) | low(x) == u32::MAX {
                return Some(x);
            }
        }
    }
    None
}

/// The operands of `fshr` equal to `or a, b`, if it is a rotate or funnel shift.
fn funnel(func: &Function, [a, b]: [Value; 2]) -> Option<[Value; 3]> {
    for (l, r) in [(a, b), (b, a)] {
        let (Some((Opcode::Ishl, hi, sl)), Some((Opcode::Ushr, lo, sr))) =
            (shift(func, l), shift(func, r))
        else {
            continue;
        };
        let k = |v: Value| func.dfg.value_const(v).map(|c| c as u32 & 31);
        match (k(sl), k(sr)) {
            (Some(x), Some(y)) if (x + y) & 31 == 0 && (lo == hi || y != 0) => {
                return Some([lo, hi, sr]);
            }
            (None, None) if lo == hi && negated(func, sr, sl) => return Some([lo, hi, sr]),
            _ => {}
        }
    }
    None
}

/// `(opcode, x, amount)` for a `b32` `ishl`/`ushr`.
fn shift(func: &Function, v: Value) -> Option<(Opcode, Value, Value)> {
    let inst = func.dfg.value_inst(v)?;
    match func.dfg.insts[inst] {
        InstructionData::Binary { opcode, args }
            if matches!(opcode, Opcode::Ishl | Opcode::Ushr)
                && func.dfg.value_type(args[0]) == Type::B32 =>
        {
            Some((opcode, args[0], args[1]))
        }
        _ => None,
    }
}

/// True if `b` is `32 - a` or `-a` (equal to `-a` mod 32).
fn negated(func: &Function, b: Value, a: Value) -> bool {
    let Some(inst) = func.dfg.value_inst(b) else {
        return false;
    };
    match func.dfg.insts[inst] {
        InstructionData::Unary {
            opcode: Opcode::Ineg,
            args: [x],
        } => x == a,
        InstructionData::Binary {
            opcode: Opcode::Isub,
            args: [k, x],
        } => x == a && func.dfg.value_const(k).is_some_and(|c| c as u32 & 31 == 0),
        _ => false,
    }
}

/// Known trailing zero bits of every `b32` value (0 for unknown values).
fn trailing_zeros(func: &Function) -> SecondaryMap<Value, u32> {
    // Every value starts optimistic (32) and only decreases; values of other types are
    // read only by rules that ignore them.
    let mut tz: SecondaryMap<Value, u32> = SecondaryMap::with_default(32);
    let insts: Vec<Inst> = func.insts_in_layout();
    let blocks: Vec<_> = func.layout.blocks().collect();
    // Incoming arguments of each block parameter: a map of the parameters only (a table
    // over every value, 24 bytes each, was most of this pass's memory on a large kernel).
    let mut incoming: FastHashMap<Value, Vec<Value>> = FastHashMap::default();
    for &pred in &blocks {
        if let Some(t) = func.terminator(pred) {
            for d in func.dfg.insts[t].branch_destinations() {
                for (&p, &a) in func.dfg.block_params(d.block).iter().zip(d.args.iter()) {
                    incoming.entry(p).or_default().push(a);
                }
            }
        }
    }
    let mut changed = true;
    while changed {
        changed = false;
        for &b in &blocks {
            for &p in func.dfg.block_params(b) {
                if func.dfg.value_type(p) != Type::B32 {
                    continue;
                }
                let n = incoming
                    .get(&p)
                    .map_or(&[][..], Vec::as_slice)
                    .iter()
                    .map(|&a| tz[a])
                    .min()
                    .unwrap_or(0)
                    .min(tz[p]);
                if n != tz[p] {
                    tz[p] = n;
                    changed = true;
                }
            }
        }
        for &inst in &insts {
            crate::budget::tick();
            let results = func.dfg.inst_results(inst);
            for &r in results {
                // Rules describe single-result instructions; other results are unknown.
                let n = if results.len() == 1 && func.dfg.value_type(r) == Type::B32 {
                    inst_tz(func, &tz, inst, r)
                } else {
                    0
                };
                if n != tz[r] {
                    tz[r] = n;
                    changed = true;
                }
            }
        }
    }
    tz
}

/// Known trailing zeros of `inst`'s result `r` from its operands' current facts.
fn inst_tz(func: &Function, tz: &SecondaryMap<Value, u32>, inst: Inst, r: Value) -> u32 {
    if let Some(c) = func.dfg.value_const(r) {
        return (c as u32).trailing_zeros();
    }
    debug_assert!(matches!(func.dfg.value_def(r), ValueDef::Result(..)));
    let args = func.dfg.inst_args(inst);
    let t = |i: usize| tz[args[i]];
    match func.dfg.opcode(inst) {
        Opcode::Copy => t(0),
        Opcode::Ishl => match func.dfg.value_const(args[1]) {
            Some(k) => (t(0) + (k as u32 & 31)).min(32),
            None => 0,
        },
        Opcode::Imul => (t(0) + t(1)).min(32),
        Opcode::Iadd | Opcode::Isub | Opcode::Bor | Opcode::Bxor => t(0).min(t(1)),
        Opcode::Band => t(0).max(t(1)),
        Opcode::Select => t(1).min(t(2)),
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::parse_function_text;

    fn combined(text: &str) -> (usize, String) {
        let mut f = parse_function_text(text).expect("parses");
        let n = combine(&mut f);
        (n, f.to_string())
    }

    #[test]
    fn loop_carried_alignment_removes_the_mask() {
        let (n, out) = combined(
            "kernel %k {
    uav0 = raw

block0:
    v0 = special tid.x
    v1 = iconst.b32 0x4
    v2 = ishl v0, v1
    jump block1(v2)

block1(v3: b32):
    v4 = iconst.b32 0xfffffffc
    v5 = and v3, v4
    v6 = load.b32 uav0[v5]
    store.b32 uav0[v5], v6
    v7 = iconst.b32 0x10
    v8 = iadd v3, v7
    v9 = icmp ult v8, v7
    brif v9, block1(v8), block2

block2:
    return
}",
        );
        assert_eq!(n, 1, "{out}");
        assert!(out.contains("v5 = copy v3"), "{out}");
    }

    #[test]
    fn division_by_a_power_of_two_shifts_and_masks() {
        let text = "kernel %k {
    group_size 64, 1, 1
    uav0 = raw

block0:
    v0 = special tid.x
    v1 = special ctaid.x
    v2 = iconst.b32 0x1
    v3 = ishl v2, v1
    v4 = udiv v0, v3
    v5 = urem v0, v3
    v6 = iadd v4, v5
    store.b32 uav0[v0], v6
    return
}
";
        let (n, out) = combined(text);
        assert_eq!(n, 2, "{out}");
        assert!(out.contains("v4 = ushr v0, v1"), "{out}");
        assert!(out.contains("v5 = and v0, v"), "{out}");
        let orig = crate::ir::parse_function_text(text).unwrap();
        let new = crate::ir::parse_function_text(&out).unwrap();
        for grid in [1u32, 3, 40] {
            let d = crate::interp::Dispatch {
                grid: [grid, 1, 1],
                group_size: None,
            };
            let o = crate::interp::InterpOptions::default();
            let mut a = crate::interp::Memory::default();
            a.uavs.insert(0, vec![0; 1024]);
            let mut b = a.clone();
            crate::interp::run_dispatch(&orig, &d, &mut a, &o).unwrap();
            crate::interp::run_dispatch(&new, &d, &mut b, &o).unwrap();
            assert_eq!(a, b, "grid {grid}");
        }
    }

    #[test]
    fn unaligned_values_keep_their_mask() {
        let (n, out) = combined(
            "kernel %k {
    uav0 = raw

block0:
    v0 = special tid.x
    v1 = iconst.b32 0x1
    v2 = ishl v0, v1
    v4 = iconst.b32 0xfffffffc
    v5 = and v2, v4
    store.b32 uav0[v5], v5
    return
}",
        );
        assert_eq!(n, 0, "{out}");
    }
}
