//! Advances an address register before the shared or local memory access that reads it
//! instead of right after it.
//!
//! A loop walking memory reads its address register in a load or store and then steps it
//! (`STS [R13+0x500], R17; IADD R13, R13, 0x40`). A load or store reads its registers late
//! and holds a read barrier until it has, so the step waits for that barrier (some twenty
//! cycles on the model) where, placed first, it costs the access only the step's fixed
//! latency: `IADD R13, R13, 0x40; STS [R13+0x4c0], R17`, the access's immediate offset
//! taking back the step. ptxas writes loops this way.
//!
//! Applies to `LDS`/`STS`/`LDL`/`STL` (a 32-bit address register and a signed 24-bit
//! offset; the sum is the same modulo 2^32) when the step is an unguarded, unmodified
//! `IADD`/`IADD32I` of the register and an immediate, it is the next instruction within
//! [`WINDOW`] to read or write that register, the access does not write the register, every
//! instruction in between is independent of the step, and the new offset fits.
//!
//! Requires: the emitted code of a function, branch targets still unresolved (as block
//! starts). Guarantees: the same instructions (one offset changed) in the same block; the
//! address each access uses and every other dependency are unchanged.

use super::deps::{keys, Key};
use super::emit::EmitResult;
use isa_spa5::inst::Operand;
use isa_spa5::{Inst as MInst, Op};

/// How many instructions after the access the step may follow (beyond, the access has
/// read its registers before the step issues).
const WINDOW: usize = 4;

/// The index of the memory operand of a shared or local access whose base is a register.
fn access_mem(i: &MInst) -> Option<(usize, isa_spa5::Reg, i32)> {
    if !matches!(i.op, Op::LDS | Op::STS | Op::LDL | Op::STL) {
        return None;
    }
    i.operands.iter().enumerate().find_map(|(k, o)| match *o {
        Operand::Mem { base, offset } if !base.is_zero() => Some((k, base, offset)),
        _ => None,
    })
}

/// `r` and the immediate when `i` is `IADD r, r, imm` (or `IADD32I`) without guard or
/// modifiers.
fn step_of(i: &MInst) -> Option<(isa_spa5::Reg, i64)> {
    if !matches!(i.op, Op::IADD_I | Op::IADD32I)
        || !i.guard.is_true()
        || i.mods.iter().any(|&m| m != 0)
    {
        return None;
    }
    match (i.operands[0], i.operands[1], i.operands[2]) {
        (Operand::Reg(d), Operand::Reg(s), Operand::Imm(k)) if d == s && !d.is_zero() => {
            Some((d, k))
        }
        _ => None,
    }
}

/// Runs the pass; returns the number of steps moved.
pub fn run(em: &mut EmitResult) -> usize {
    let n = em.insts.len();
    let starts = em.starts();
    let mut moved = 0;
    for s in 0..n {
        let Some((slot, base, offset)) = access_mem(&em.insts[s].inst) else {
            continue;
        };
        let r = Key::R(base.0);
        if keys(em.insts[s].inst.defs().iter()).contains(&r) {
            continue;
        }
        // The next instruction within the window to read or write the register.
        let next = (s + 1..n.min(s + 1 + WINDOW))
            .take_while(|&t| {
                !starts[t]
                    && em.insts[t].target.is_none()
                    && !super::deps::is_transfer(&em.insts[t].inst)
            })
            .find(|&t| {
                let i = &em.insts[t].inst;
                keys(i.uses().iter().chain(i.defs().iter())).contains(&r)
            });
        let Some(t) = next else {
            continue;
        };
        let Some((d, k)) = step_of(&em.insts[t].inst) else {
            continue;
        };
        let new = i64::from(offset) - k;
        if d == base && (-(1 << 23)..(1 << 23)).contains(&new) {
            let step = em.insts.remove(t);
            em.insts.insert(s, step);
            em.insts[s + 1].inst.operands[slot] = Operand::Mem {
                base,
                offset: new as i32,
            };
            moved += 1;
        }
    }
    moved
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_on(text: &[&str]) -> (usize, Vec<String>) {
        let mut em = EmitResult::from_text(text);
        let moved = run(&mut em);
        (moved, em.text())
    }

    #[test]
    fn the_step_goes_first_and_the_offset_takes_it_back() {
        let (moved, t) = run_on(&[
            "@P0 STS [R13+0x500], R17",
            "MOV R17, RZ",
            "IADD R13, R13, 0x40",
            "LDS R2, [R4]",
        ]);
        assert_eq!(moved, 1, "{t:?}");
        assert_eq!(t[0], "IADD R13, R13, 0x40");
        assert_eq!(t[1], "@P0 STS [R13+0x4c0], R17");
        assert_eq!(t[2], "MOV R17, RZ");
    }

    #[test]
    fn other_readers_guards_and_far_steps_stay() {
        // Another reader of the address in between.
        let (moved, _) = run_on(&["STS [R13], R17", "IADD R2, R13, 0x1", "IADD R13, R13, 0x4"]);
        assert_eq!(moved, 0);
        // A guarded step.
        let (moved, _) = run_on(&["STS [R13], R17", "@P1 IADD R13, R13, 0x4"]);
        assert_eq!(moved, 0);
        // A load into its own address register.
        let (moved, _) = run_on(&["LDS R13, [R13]", "IADD R13, R13, 0x4"]);
        assert_eq!(moved, 0);
        // Beyond the window the access has read its address.
        let (moved, _) = run_on(&[
            "STS [R13], R17",
            "MOV R1, RZ",
            "MOV R2, RZ",
            "MOV R3, RZ",
            "MOV R5, RZ",
            "IADD R13, R13, 0x4",
        ]);
        assert_eq!(moved, 0);
        // Global memory takes a 64-bit address: not this pass's.
        let (moved, _) = run_on(&["STG.E [R12], R17", "IADD R12, R12, 0x4"]);
        assert_eq!(moved, 0);
    }
}
