//! Reassociation of integer additions so constants move outward.
//!
//! Unrolled loops compute `base + (i + 1)`, `(i + 2) << 2`, ...; with the constants outermost
//! the copies share one non-constant part (GVN merges it) and their addresses differ by a
//! constant that selection folds into the memory offset. Rewrites, on `b32` values, in
//! dominance order so inner results are already rewritten:
//!
//! - `iadd (iadd x, c1), c2`  ->  `iadd x, c1 + c2`
//! - `iadd a, (iadd b, c)`    ->  `iadd (iadd a, b), c`   (`a` not a constant)
//! - `ishl (iadd x, c), k`    ->  `iadd (ishl x, k), c << k`   (`k` a constant)
//! - `imad (iadd x, c), y, z` ->  `iadd (imad x, y, z), (imul c, y)` (either factor; `c * y`
//!   is loop-invariant when `y` is, and LICM hoists it: a column walk `(i + j) * n + t` in an
//!   unrolled loop costs one add per copy instead of a multiply)
//!
//! Requires: verified SSA. Guarantees: each rewritten instruction keeps its result value and
//! computes the same value (the identities hold modulo 2^32); new instructions are inserted
//! right before the one rewritten; unused inner instructions are left to DCE.

use crate::ir::{Analyses, FuncCursor, Function, InstructionData, Opcode, Type, Value};

/// Runs the pass.
pub fn run(func: &mut Function) {
    reassociate(func);
}

/// Runs the pass with the pipeline's cached analyses (the pass changes no control flow).
pub fn run_with(func: &mut Function, analyses: &mut Analyses) {
    reassociate_with(func, analyses);
}

/// `(x, c)` when `v` is `iadd x, c` (either order) with a constant `c`.
fn plus_const(func: &Function, v: Value) -> Option<(Value, u32)> {
    let inst = func.dfg.value_inst(v)?;
    if func.dfg.opcode(inst) != Opcode::Iadd || func.dfg.value_type(v) != Type::B32 {
        return None;
    }
    let a = func.dfg.inst_args(inst);
    match (func.dfg.value_const(a[0]), func.dfg.value_const(a[1])) {
        (None, Some(c)) => Some((a[0], c as u32)),
        (Some(c), None) => Some((a[1], c as u32)),
        _ => None,
    }
}

/// Rewrites the function; returns how many instructions changed.
pub fn reassociate(func: &mut Function) -> usize {
    reassociate_with(func, &mut Analyses::new())
}

/// As [`reassociate`], with `func`'s cached analyses (used before any change).
pub fn reassociate_with(func: &mut Function, analyses: &mut Analyses) -> usize {
    let (_, dt) = analyses.domtree(func);
    let mut changed = 0;
    for &b in dt.rpo() {
        let insts: Vec<_> = func.layout.block_insts(b).collect();
        for inst in insts {
            crate::budget::tick();
            let Some(r) = func.dfg.first_result(inst) else {
                continue;
            };
            if func.dfg.value_type(r) != Type::B32 {
                continue;
            }
            if let InstructionData::Ternary {
                opcode: Opcode::Imad,
                args: [m0, m1, z],
            } = func.dfg.insts[inst]
            {
                let (x, c, y) = match (plus_const(func, m0), plus_const(func, m1)) {
                    (Some((x, c)), _) => (x, c, m1),
                    (None, Some((x, c))) => (x, c, m0),
                    _ => continue,
                };
                let mut cur = FuncCursor::new(func).at_inst(inst);
                let inner = cur.ins().imad(x, y, z);
                let k = cur.ins().iconst(Type::B32, u64::from(c));
                let cy = cur.ins().imul(k, y);
                func.dfg.insts[inst] = InstructionData::Binary {
                    opcode: Opcode::Iadd,
                    args: [inner, cy],
                };
                changed += 1;
                continue;
            }
            let (op, args) = match func.dfg.insts[inst] {
                InstructionData::Binary { opcode, args } => (opcode, args),
                _ => continue,
            };
            let konst = |v: Value| func.dfg.value_const(v).map(|c| c as u32);
            let new = match op {
                Opcode::Iadd => {
                    let (a, b) = (args[0], args[1]);
                    let (x, c2) = match (konst(a), konst(b)) {
                        (None, Some(c)) => (a, Some(c)),
                        (Some(c), None) => (b, Some(c)),
                        _ => (a, None),
                    };
                    if let (Some(c2), Some((y, c1))) = (c2, plus_const(func, x)) {
                        // (y + c1) + c2
                        Some((y, c1.wrapping_add(c2)))
                    } else if c2.is_none() {
                        // a + (b + c) or (a + c) + b
                        match (plus_const(func, b), plus_const(func, a)) {
                            (Some((y, c)), _) if konst(a).is_none() => {
                                let mut cur = FuncCursor::new(func).at_inst(inst);
                                Some((cur.ins().iadd(a, y), c))
                            }
                            (_, Some((y, c))) if konst(b).is_none() => {
                                let mut cur = FuncCursor::new(func).at_inst(inst);
                                Some((cur.ins().iadd(y, b), c))
                            }
                            _ => None,
                        }
                    } else {
                        None
                    }
                }
                Opcode::Ishl => match (plus_const(func, args[0]), konst(args[1])) {
                    (Some((x, c)), Some(k)) => {
                        let mut cur = FuncCursor::new(func).at_inst(inst);
                        let shifted = cur.ins().ishl(x, args[1]);
                        Some((shifted, c.wrapping_shl(k & 31)))
                    }
                    _ => None,
                },
                _ => None,
            };
            let Some((x, c)) = new else {
                continue;
            };
            let mut cur = FuncCursor::new(func).at_inst(inst);
            let k = cur.ins().iconst(Type::B32, u64::from(c));
            func.dfg.insts[inst] = InstructionData::Binary {
                opcode: Opcode::Iadd,
                args: [x, k],
            };
            changed += 1;
        }
    }
    changed
}

#[cfg(test)]
mod tests {
    use crate::ir::parse_function_text;

    #[test]
    fn constants_move_outward() {
        let text = "kernel %k {
    group_size 1, 1, 1
    uav0 = raw

block0:
    v0 = special tid.x
    v1 = special ctaid.x
    v2 = iconst.b32 0x1
    v3 = iconst.b32 0x2
    v4 = iadd v0, v2
    v5 = iadd v1, v4
    v6 = ishl v5, v3
    v7 = iadd v4, v2
    v8 = imad v4, v1, v0
    v9 = iadd v7, v8
    store.b32 uav0[v6], v9
    return
}
";
        let mut f = parse_function_text(text).unwrap();
        assert_eq!(super::reassociate(&mut f), 5);
        crate::verifier::verify_function(&f).unwrap();
        let out = f.to_string();
        // v5 = (v1 + v0) + 1, v6 = ((v1 + v0) << 2) + 4, v7 = v0 + 2.
        assert!(out.contains("= iadd v1, v0"), "{out}");
        assert!(out.contains("iconst.b32 0x4"), "{out}");
        assert!(out.contains("v7 = iadd v0, v"), "{out}");
        let mut mem = crate::interp::Memory::default();
        mem.uavs.insert(0, vec![0; 64]);
        let d = crate::interp::Dispatch {
            grid: [2, 1, 1],
            group_size: None,
        };
        let orig = parse_function_text(text).unwrap();
        let mut want = mem.clone();
        let o = crate::interp::InterpOptions::default();
        crate::interp::run_dispatch(&orig, &d, &mut want, &o).unwrap();
        crate::interp::run_dispatch(&f, &d, &mut mem, &o).unwrap();
        assert_eq!(want, mem);
    }
}
