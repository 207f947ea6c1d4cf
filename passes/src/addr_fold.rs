//! Address folding: a memory access whose address is `x - c` (an `isub` of, or an `iadd` of a
//! negative, `b32` constant) addresses `x` instead, with `-c` moved into the access's immediate
//! byte offset.
//!
//! Requires: verified SSA. Guarantees: behaviour unchanged: the IR's effective address is
//! `addr + offset` computed exactly ([`MemArg`](crate::ir::MemArg)), and `(x - c) + o = x +
//! (o - c)` whenever `x >= c`; when `x - c` wraps (`x < c`), the access at `2^32 + x - c + o`
//! is out of range, and so is the folded one at `x - c + o < 0` provided `o <= 0`: an access
//! with a positive offset of its own (a vector's later word, `r.y` at `+4`) is left alone.
//! Chains (`(x - 4) - 8`) fold completely. The new offset stays within
//! +-[`MAX_OFFSET`], inside every SM50 immediate offset field (LDG/STG/LDS/LDL take 24 signed
//! bits). The `isub`/`iadd` itself is left for its other users (DCE removes it otherwise).
//!
//! Only negative constants move. The backend adds an instruction's offset to the 64-bit
//! buffer address without the 32-bit wrap; for a negative offset that can only matter when
//! `x + offset` wraps to above `2^32 - 2^20`, which no buffer reaches, so the bounds check
//! rejects the access either way. A positive constant moved out of `x + c` would turn an
//! in-bounds wrapped address (`x = -4`, `c = 4`) into an access past the buffer; instruction
//! selection folds those itself when accesses are promised in bounds (`assume_in_bounds`).
//!
//! What it buys: accesses to `a[i-1]` and `a[i]` share one address value, so the backend forms
//! one 64-bit address (`LEA`/`LEA.HI.X`) for both and puts the difference in the offset.

use crate::ir::{Function, InstructionData, Opcode, Type, Value};

/// Largest folded offset magnitude (bytes).
pub const MAX_OFFSET: i64 = 1 << 20;

/// Runs address folding on `func`.
pub fn run(func: &mut Function) {
    fold(func);
}

/// As [`run`], returning how many accesses changed.
pub fn fold(func: &mut Function) -> usize {
    let mut changed = 0;
    for inst in func.insts_in_layout() {
        let data = &func.dfg.insts[inst];
        let (Some(addr), Some(mem)) = (data.mem_addr(), data.mem_arg()) else {
            continue;
        };
        let mut base = addr;
        let mut offset = i64::from(mem.offset);
        while let Some((x, c)) = const_added(func, base) {
            let next = offset + c;
            // With an offset `o > 0` of its own, an access at a wrapped `x + c` (`x < -c`:
            // `2^32 + x + c + o`, out of range) would become `x + c + o`, possibly in range.
            if c >= 0 || offset > 0 || next.abs() > MAX_OFFSET {
                break;
            }
            base = x;
            offset = next;
        }
        if base == addr {
            continue;
        }
        match &mut func.dfg.insts[inst] {
            InstructionData::Load { mem, args, .. }
            | InstructionData::Store { mem, args, .. }
            | InstructionData::Atomic { mem, args, .. } => {
                // The address is the first argument whenever `mem_addr` returned it.
                args[0] = base;
                // In range: |offset| <= MAX_OFFSET < 2^31.
                mem.offset = offset as i32;
            }
            _ => unreachable!("mem_addr is only Some for loads, stores and atomics"),
        }
        changed += 1;
    }
    changed
}

/// `(x, c)` when `v` is `iadd x, k` / `iadd k, x` (`c = k`) or `isub x, k` (`c = -k`), with
/// `k` a `b32` constant read as signed.
pub(crate) fn const_added(func: &Function, v: Value) -> Option<(Value, i64)> {
    let inst = func.dfg.value_inst(v)?;
    if func.dfg.value_type(v) != Type::B32 {
        return None;
    }
    let InstructionData::Binary { opcode, args } = func.dfg.insts[inst] else {
        return None;
    };
    let k = |v: Value| func.dfg.value_const(v).map(|c| i64::from(c as u32 as i32));
    match opcode {
        Opcode::Iadd => match (k(args[0]), k(args[1])) {
            (None, Some(c)) => Some((args[0], c)),
            (Some(c), None) => Some((args[1], c)),
            _ => None,
        },
        Opcode::Isub => k(args[1]).map(|c| (args[0], -c)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::reader::parse_function_text;

    #[test]
    fn folds_negative_chains_only() {
        let mut f = parse_function_text(
            "kernel %k {
    uav0 = raw
block0:
    v0 = special tid.x
    v1 = iconst.b32 0x4
    v2 = isub v0, v1
    v3 = iconst.b32 0xfffffff8
    v4 = iadd v2, v3
    v5 = load.b32 uav0[v4]
    v7 = load.b32 uav0[v4+16]
    v6 = iadd v0, v1
    store.b32 uav0[v6], v2
    return
}",
        )
        .expect("parses");
        assert_eq!(fold(&mut f), 1);
        crate::verifier::verify_function(&f).expect("verifies");
        let text = f.to_string();
        assert!(text.contains("v5 = load.b32 uav0[v0-12]"), "{text}");
        // A positive offset of the access's own stays on the wrapped address: for v0 < 12,
        // `v4 + 16` is past 2^32 (reads 0) where `v0 + 4` would be in range.
        assert!(text.contains("v7 = load.b32 uav0[v4+16]"), "{text}");
        // `x + 4` stays: its 32-bit wrap is part of the address.
        assert!(text.contains("store.b32 uav0[v6], v2"), "{text}");
    }

    #[test]
    fn large_offsets_stay_put() {
        let mut f = parse_function_text(
            "kernel %k {
    uav0 = raw
block0:
    v0 = special tid.x
    v1 = iconst.b32 0x40000000
    v2 = iadd v0, v1
    v3 = load.b32 uav0[v2]
    return
}",
        )
        .expect("parses");
        assert_eq!(fold(&mut f), 0);
    }
}
