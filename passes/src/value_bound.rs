//! Value bounds: an inclusive upper bound on the unsigned value of a `b32` value, proven
//! from its definition without wrap-around.
//!
//! Requires: a verified function. Guarantees: for every execution that respects the
//! hardware's launch limits (and the declared group size, if any), `v <= max_u32(func, v)`
//! as an unsigned 32-bit number. The analysis looks through a bounded depth of pure integer
//! operations; block parameters, loads and anything it does not model are `u32::MAX`. A sum,
//! product or shift is bounded only when its bound itself does not wrap, so every bound is
//! sound for the IR's wrapping arithmetic.
//!
//! Users: instruction selection, which may form a 64-bit address as `zext(x) + c` instead of
//! `zext(x + c)` only when `x + c` cannot wrap.

use crate::ir::{Function, InstructionData, Opcode, SpecialReg, Type, Value};

/// How deep [`max_u32`] looks through definitions.
const DEPTH: u32 = 8;

const MAX: u64 = u32::MAX as u64;

/// The sm_5x launch limits per dimension: threads per group, and group ids.
const GROUP_DIM_MAX: [u64; 3] = [1024, 1024, 64];
const GRID_DIM_MAX: [u64; 3] = [(1 << 31) - 1, 65535, 65535];

/// An inclusive upper bound on `v` as an unsigned 32-bit value (`u32::MAX` when unknown).
pub fn max_u32(func: &Function, v: Value) -> u64 {
    bound(func, v, DEPTH)
}

fn special_max(func: &Function, reg: SpecialReg) -> u64 {
    let dim = |c: u8| usize::from(c).min(2);
    match reg {
        SpecialReg::Tid(c) => match func.group_size {
            Some(g) => u64::from(g[dim(c)].max(1)) - 1,
            None => GROUP_DIM_MAX[dim(c)] - 1,
        },
        SpecialReg::GroupSize(c) => match func.group_size {
            Some(g) => u64::from(g[dim(c)]),
            None => GROUP_DIM_MAX[dim(c)],
        },
        SpecialReg::GroupId(c) => GRID_DIM_MAX[dim(c)] - 1,
        SpecialReg::GridSize(c) => GRID_DIM_MAX[dim(c)],
        SpecialReg::LaneId => 31,
        SpecialReg::Clock | SpecialReg::Domain(_) | SpecialReg::ResDim(..) => MAX,
    }
}

/// `x` if it fits in 32 bits, else unknown.
fn fit(x: Option<u64>) -> u64 {
    x.filter(|&x| x <= MAX).unwrap_or(MAX)
}

fn bound(func: &Function, v: Value, depth: u32) -> u64 {
    if func.dfg.value_type(v) != Type::B32 {
        return MAX;
    }
    let Some(inst) = func.dfg.value_inst(v) else {
        return MAX;
    };
    if let Some(c) = func.dfg.value_const(v) {
        return u64::from(c as u32);
    }
    if depth == 0 {
        return MAX;
    }
    let rec = |x: Value| bound(func, x, depth - 1);
    let konst = |x: Value| func.dfg.value_const(x).map(|c| u64::from(c as u32));
    match &func.dfg.insts[inst] {
        InstructionData::Special { reg, .. } => special_max(func, *reg),
        InstructionData::Unary {
            opcode: Opcode::Copy,
            args,
        } => rec(args[0]),
        InstructionData::Unary {
            opcode: Opcode::Popcnt | Opcode::Clz,
            ..
        } => 32,
        InstructionData::Binary { opcode, args } => {
            let [a, b] = *args;
            match opcode {
                Opcode::Iadd => fit(rec(a).checked_add(rec(b))),
                Opcode::Imul => fit(rec(a).checked_mul(rec(b))),
                Opcode::Ishl => match konst(b) {
                    Some(k) => fit(rec(a).checked_shl((k & 31) as u32).filter(|x| x >> 32 == 0)),
                    None => MAX,
                },
                Opcode::Ushr => match konst(b) {
                    Some(k) => rec(a) >> (k & 31),
                    None => rec(a),
                },
                Opcode::Band | Opcode::Umin => rec(a).min(rec(b)),
                Opcode::Umax => rec(a).max(rec(b)),
                Opcode::Bor | Opcode::Bxor => {
                    let m = rec(a).max(rec(b));
                    // Every bit above the highest bit of either bound is clear.
                    if m == 0 {
                        0
                    } else {
                        MAX >> m.leading_zeros().saturating_sub(32)
                    }
                }
                // `x / 0` and `x % 0` are all ones.
                Opcode::Udiv => match konst(b) {
                    Some(c) if c != 0 => rec(a) / c,
                    _ => MAX,
                },
                Opcode::Urem => match konst(b) {
                    Some(c) if c != 0 => rec(a).min(c - 1),
                    _ => MAX,
                },
                _ => MAX,
            }
        }
        InstructionData::Ternary { opcode, args } => {
            let [a, b, c] = *args;
            match opcode {
                Opcode::Imad => fit(rec(a)
                    .checked_mul(rec(b))
                    .and_then(|p| p.checked_add(rec(c)))),
                Opcode::Select => rec(b).max(rec(c)),
                Opcode::Ubfe => match konst(a) {
                    Some(w) if (1..32).contains(&(w & 31)) => (1 << (w & 31)) - 1,
                    _ => MAX,
                },
                _ => MAX,
            }
        }
        _ => MAX,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::reader::parse_function_text;

    /// The bound of the value defined by the last instruction of the entry block.
    fn last_bound(text: &str) -> u64 {
        let f = parse_function_text(text).expect("parses");
        let entry = f.layout.entry_block().expect("entry");
        let last = f
            .layout
            .block_insts(entry)
            .filter(|&i| !f.dfg.inst_results(i).is_empty())
            .last()
            .expect("a value");
        max_u32(&f, f.dfg.inst_results(last)[0])
    }

    #[test]
    fn thread_index_math_is_bounded() {
        let t = "kernel %k {\n  group_size 64, 1, 1\n\nblock0:\n  v0 = special tid.x\n  v1 = special ctaid.x\n  v2 = iconst.b32 64\n  v3 = imad v1, v2, v0\n  v4 = iconst.b32 2\n  v5 = ishl v3, v4\n  return\n}\n";
        // ctaid.x <= 2^31 - 2, times 64 overflows 32 bits: unknown.
        assert_eq!(last_bound(t), MAX);
        let t = "kernel %k {\n  group_size 64, 1, 1\n\nblock0:\n  v0 = special tid.x\n  v4 = iconst.b32 2\n  v5 = ishl v0, v4\n  v6 = iconst.b32 16\n  v7 = iadd v5, v6\n  return\n}\n";
        assert_eq!(last_bound(t), 63 * 4 + 16);
    }

    #[test]
    fn masks_shifts_and_remainders() {
        let t = "kernel %k {\nblock0(v0: b32):\n  v1 = iconst.b32 255\n  v2 = and v0, v1\n  return\n}\n";
        assert_eq!(last_bound(t), 255);
        let t =
            "kernel %k {\nblock0(v0: b32):\n  v1 = iconst.b32 4\n  v2 = ushr v0, v1\n  return\n}\n";
        assert_eq!(last_bound(t), MAX >> 4);
        let t = "kernel %k {\nblock0(v0: b32):\n  v1 = iconst.b32 10\n  v2 = urem v0, v1\n  return\n}\n";
        assert_eq!(last_bound(t), 9);
        // `x % 0` is all ones.
        let t =
            "kernel %k {\nblock0(v0: b32):\n  v1 = iconst.b32 0\n  v2 = urem v0, v1\n  return\n}\n";
        assert_eq!(last_bound(t), MAX);
    }

    #[test]
    fn wrapping_sums_are_unknown() {
        let t =
            "kernel %k {\nblock0(v0: b32):\n  v1 = iconst.b32 1\n  v2 = iadd v0, v1\n  return\n}\n";
        assert_eq!(last_bound(t), MAX);
        let t = "kernel %k {\nblock0(v0: b32):\n  v1 = iconst.b32 15\n  v2 = and v0, v1\n  v3 = iconst.b32 0xfffffff0\n  v4 = iadd v2, v3\n  return\n}\n";
        assert_eq!(last_bound(t), MAX);
    }
}
