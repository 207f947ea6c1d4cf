//! Whole-program layout: control words, NOP padding and branch target resolution.
//!
//! SPA 5.0 code is a sequence of groups of four 64-bit words: a control word holding the
//! [`Control`] of the next three instructions, then those instructions. Instruction `i` of a
//! program therefore sits at byte address `(4 * (i / 3) + 1 + i % 3) * 8` ([`inst_addr`]).
//! A relative branch encodes `target - (addr + 8)`, the distance from the word after the
//! branch (which may be the next group's control word).
//!
//! [`encode_program`] takes branch targets as [`Operand::Label`] instruction indices (the
//! backend's view) or raw [`Operand::Target`] offsets, and pads the last group with `NOP`s.
//! [`decode_program`] turns targets that land on an instruction back into labels, so
//! `encode_program(decode_program(w)) == w` for any code ptxas writes.

use crate::control::{pack_control_word, unpack_control_word, Control, ControlError};
use crate::decode::{decode, DecodeError};
use crate::encode::{encode, EncodeError};
use crate::inst::{Inst, Op, Operand};
use crate::table::OpKind;

/// An error in a whole program, with the instruction index at fault.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ProgramError {
    /// An instruction does not encode.
    #[error("instruction {index}: {err}")]
    Encode {
        /// Instruction index.
        index: usize,
        /// The error.
        err: EncodeError,
    },
    /// A word does not decode.
    #[error("instruction {index} (word at {addr:#x}): {err}")]
    Decode {
        /// Instruction index.
        index: usize,
        /// Byte address.
        addr: u64,
        /// The error.
        err: DecodeError,
    },
    /// A control field is out of range.
    #[error("instruction {index}: {err}")]
    Control {
        /// Instruction index.
        index: usize,
        /// The error.
        err: ControlError,
    },
    /// A label past the end of the program.
    #[error("instruction {index}: branch to instruction {target} past the end ({len})")]
    Label {
        /// Instruction index.
        index: usize,
        /// Target index.
        target: u32,
        /// Program length.
        len: usize,
    },
    /// Code length is not a whole number of 4-word groups.
    #[error("code length {0} words is not a multiple of 4")]
    Length(usize),
}

/// Byte address of instruction `i`.
pub const fn inst_addr(i: usize) -> u64 {
    ((4 * (i / 3) + 1 + i % 3) * 8) as u64
}

/// The instruction index at byte address `addr`, if an instruction (not a control word) is there.
pub const fn addr_inst(addr: u64) -> Option<usize> {
    if !addr.is_multiple_of(8) {
        return None;
    }
    match control_slot((addr / 8) as usize) {
        Some((cw, slot)) => Some(cw / 4 * 3 + slot),
        None => None,
    }
}

/// Where the control of the instruction in code word `word` lies: the index of its group's
/// control word and its slot (0..3) there; `None` when `word` is itself a control word.
pub const fn control_slot(word: usize) -> Option<(usize, usize)> {
    if word.is_multiple_of(4) {
        None
    } else {
        Some((word / 4 * 4, word % 4 - 1))
    }
}

/// The control of the instruction in code word `word` of `words`: `None` for a control word,
/// a word past the end, or a control word that does not unpack.
pub fn control_of(words: &[u64], word: usize) -> Option<Control> {
    let (cw, slot) = control_slot(word)?;
    let slots = unpack_control_word(*words.get(cw)?).ok()?;
    Some(slots[slot])
}

/// Encode a program: control words, instructions, NOP padding to a whole group.
pub fn encode_program(prog: &[(Inst, Control)]) -> Result<Vec<u64>, ProgramError> {
    let groups = prog.len().div_ceil(3);
    let mut out = Vec::with_capacity(groups * 4);
    let nop = (Inst::new(Op::NOP), Control::NOP_PAD);
    for g in 0..groups {
        let mut ctrl = [Control::NOP_PAD; 3];
        let mut words = [0u64; 3];
        for s in 0..3 {
            let index = g * 3 + s;
            let (mut inst, c) = prog.get(index).copied().unwrap_or(nop);
            resolve(&mut inst, index, prog.len())?;
            ctrl[s] = c;
            words[s] = encode(&inst).map_err(|err| ProgramError::Encode { index, err })?;
        }
        let cw = pack_control_word(ctrl).map_err(|err| {
            // Report the first slot at fault.
            let s = ctrl.iter().position(|c| c.validate().is_err()).unwrap_or(0);
            ProgramError::Control {
                index: g * 3 + s,
                err,
            }
        })?;
        out.push(cw);
        out.extend_from_slice(&words);
    }
    Ok(out)
}

fn resolve(inst: &mut Inst, index: usize, len: usize) -> Result<(), ProgramError> {
    let form = inst.form();
    for (f, o) in form.operands.iter().zip(inst.operands.iter_mut()) {
        if let Operand::Label(t) = *o {
            if t as usize > len {
                return Err(ProgramError::Label {
                    index,
                    target: t,
                    len,
                });
            }
            let target = inst_addr(t as usize);
            *o = match f.kind {
                OpKind::Rel => {
                    Operand::Target((target as i64 - (inst_addr(index) as i64 + 8)) as i32)
                }
                _ => Operand::Target(target as i32),
            };
        }
    }
    Ok(())
}

/// Decode a program (a whole number of 4-word groups) into instructions and their control.
/// Branch targets that land on an instruction of the program become [`Operand::Label`]s.
pub fn decode_program(words: &[u64]) -> Result<Vec<(Inst, Control)>, ProgramError> {
    if !words.len().is_multiple_of(4) {
        return Err(ProgramError::Length(words.len()));
    }
    let n = words.len() / 4 * 3;
    let mut out = Vec::with_capacity(n);
    for (g, chunk) in words.chunks_exact(4).enumerate() {
        let ctrl = unpack_control_word(chunk[0])
            .map_err(|err| ProgramError::Control { index: g * 3, err })?;
        for s in 0..3 {
            let index = g * 3 + s;
            let addr = inst_addr(index);
            let mut inst =
                decode(chunk[s + 1]).map_err(|err| ProgramError::Decode { index, addr, err })?;
            let form = inst.form();
            for (f, o) in form.operands.iter().zip(inst.operands.iter_mut()) {
                if let Operand::Target(t) = *o {
                    let target = match f.kind {
                        OpKind::Rel => addr as i64 + 8 + t as i64,
                        _ => t as i64,
                    };
                    if target >= 0 {
                        if let Some(ti) = addr_inst(target as u64) {
                            if ti <= n {
                                *o = Operand::Label(ti as u32);
                            }
                        }
                    }
                }
            }
            out.push((inst, ctrl[s]));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::regs::Reg;

    #[test]
    fn addresses() {
        assert_eq!(inst_addr(0), 8);
        assert_eq!(inst_addr(2), 0x18);
        assert_eq!(inst_addr(3), 0x28);
        for i in 0..100 {
            assert_eq!(addr_inst(inst_addr(i)), Some(i));
        }
        assert_eq!(addr_inst(0x20), None);
        assert_eq!(control_slot(0), None);
        assert_eq!(control_slot(1), Some((0, 0)));
        assert_eq!(control_slot(7), Some((4, 2)));
    }

    #[test]
    fn control_of_reads_the_groups_control_word() {
        let slots = [Control::stall(1), Control::stall(2), Control::stall(3)];
        let cw = pack_control_word(slots).unwrap();
        let words = [0, 0, 0, 0, cw, 0, 0, 0];
        assert_eq!(control_of(&words, 6), Some(Control::stall(2)));
        assert_eq!(control_of(&words, 4), None);
        assert_eq!(control_of(&words, 9), None);
    }

    #[test]
    fn branch_round_trip_and_padding() {
        let prog = vec![
            (Inst::mov32i(Reg(0), 1), Control::stall(6)),
            (Inst::bra(4), Control::stall(5)),
            (Inst::mov32i(Reg(0), 2), Control::stall(6)),
            (Inst::mov32i(Reg(0), 3), Control::stall(6)),
            (Inst::exit(), Control::stall(15)),
        ];
        let w = encode_program(&prog).unwrap();
        assert_eq!(w.len(), 8);
        // BRA at 0x10 to instruction 4 at 0x30: offset 0x30 - 0x18 = 0x18.
        assert_eq!(w[2] >> 20 & 0xff_ffff, 0x18);
        let back = decode_program(&w).unwrap();
        assert_eq!(&back[..5], &prog[..]);
        assert_eq!(back[5].0.op, Op::NOP);
    }
}
