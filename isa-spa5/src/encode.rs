//! Table-driven encoder: [`encode`] turns an [`Inst`] into its 64-bit word.
//!
//! Every field goes through [`set_field`], which rejects values that do not fit, so an
//! encoded word always decodes back to the same instruction ([`crate::decode()`]). Operands of
//! the wrong kind, out-of-range immediates, misaligned constant offsets, invalid modifier
//! values and unresolved labels are errors, never panics.

use crate::inst::{Inst, Operand};
use crate::regs::Reg;
use crate::table::{flags, Form, OpClass, OpKind, ENCODERS, FORM_TABLE};

/// Why an instruction cannot be encoded.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EncodeError {
    /// The op index is not a table row.
    #[error("unknown opcode form index {0}")]
    UnknownOp(u16),
    /// A value does not fit its field.
    #[error("{form}: {what} value {value:#x} does not fit in {bits} bits")]
    Range {
        /// Row name.
        form: &'static str,
        /// Which field.
        what: &'static str,
        /// The value.
        value: i64,
        /// Field width.
        bits: u32,
    },
    /// An operand of the wrong kind for its field.
    #[error("{form}: operand {index} is {found:?}, expected {expected}")]
    Operand {
        /// Row name.
        form: &'static str,
        /// Operand index.
        index: usize,
        /// What was given.
        found: Operand,
        /// What the field takes.
        expected: &'static str,
    },
    /// A modifier value with no name in the table.
    #[error("{form}: invalid value {value} for modifier {kind:?}")]
    Modifier {
        /// Row name.
        form: &'static str,
        /// Modifier kind.
        kind: crate::inst::ModKind,
        /// The value.
        value: u8,
    },
    /// Fields that are each valid but not together.
    #[error("{form}: {why}")]
    Combination {
        /// Row name.
        form: &'static str,
        /// The rule broken.
        why: &'static str,
    },
    /// A label operand reached the single-instruction encoder.
    #[error("{form}: branch target is an unresolved label (use encode_program)")]
    Unresolved {
        /// Row name.
        form: &'static str,
    },
    /// A derived operand disagrees with the operand it is derived from.
    #[error("{form}: operand {index} must be {expected}")]
    Derived {
        /// Row name.
        form: &'static str,
        /// Operand index.
        index: usize,
        /// The register it must be.
        expected: Reg,
    },
    /// Immediate float with low bits that the 20-bit form cannot hold.
    #[error("{form}: float immediate {bits:#x} has low bits set that the 20-bit form drops")]
    FloatImm {
        /// Row name.
        form: &'static str,
        /// Raw bits.
        bits: u64,
    },
}

/// Set bits `lo..lo+len` of `word` to `value`; errors if `value` needs more bits.
pub fn set_field(word: &mut u64, lo: u32, len: u32, value: u64) -> Result<(), (u64, u32)> {
    let mask = if len >= 64 {
        u64::MAX
    } else {
        (1u64 << len) - 1
    };
    if value & !mask != 0 {
        return Err((value, len));
    }
    *word |= value << lo;
    Ok(())
}

/// Encode a signed value into `len` bits (two's complement).
fn signed(v: i64, len: u32) -> Option<u64> {
    let min = -(1i64 << (len - 1));
    let max = (1i64 << (len - 1)) - 1;
    (min..=max)
        .contains(&v)
        .then_some((v as u64) & ((1u64 << len) - 1))
}

struct Enc {
    word: u64,
    form: &'static str,
}

impl Enc {
    fn put(&mut self, lo: u8, len: u8, v: u64, what: &'static str) -> Result<(), EncodeError> {
        set_field(&mut self.word, lo as u32, len as u32, v).map_err(|(value, bits)| {
            EncodeError::Range {
                form: self.form,
                what,
                value: value as i64,
                bits,
            }
        })
    }
    fn put_signed(
        &mut self,
        lo: u8,
        len: u8,
        v: i64,
        what: &'static str,
    ) -> Result<(), EncodeError> {
        let bits = signed(v, len as u32).ok_or(EncodeError::Range {
            form: self.form,
            what,
            value: v,
            bits: len as u32,
        })?;
        self.put(lo, len, bits, what)
    }
    fn gpr(&mut self, lo: u8, r: Reg) -> Result<(), EncodeError> {
        self.put(lo, 8, r.0 as u64, "register")
    }
    /// 20-bit signed immediate: 19 bits at 20, sign at 56.
    fn i20(&mut self, v: i64) -> Result<(), EncodeError> {
        let b = signed(v, 20).ok_or(EncodeError::Range {
            form: self.form,
            what: "20-bit immediate",
            value: v,
            bits: 20,
        })?;
        self.put(20, 19, b & 0x7ffff, "imm")?;
        self.put(56, 1, b >> 19, "imm")
    }
}

/// A row's encoder (see [`encode_form`]).
pub(crate) type EncodeFn = fn(&Inst) -> Result<u64, EncodeError>;

/// The encoder of row `I`: [`encode_with`] with the row a compile-time constant, so the
/// operand and modifier loops unroll into straight-line code for that row alone.
pub(crate) fn encode_form<const I: usize>(inst: &Inst) -> Result<u64, EncodeError> {
    let form: &'static Form = const { &FORM_TABLE[I] };
    let rules = const { FORM_TABLE[I].has_combination_rules() };
    encode_with(inst, form, rules)
}

/// Encode one instruction (without its control bits).
pub fn encode(inst: &Inst) -> Result<u64, EncodeError> {
    let enc = ENCODERS
        .get(inst.op.0 as usize)
        .ok_or(EncodeError::UnknownOp(inst.op.0))?;
    enc(inst)
}

#[inline(always)]
fn encode_with(inst: &Inst, form: &'static Form, rules: bool) -> Result<u64, EncodeError> {
    let mut e = Enc {
        word: form.opcode,
        form: form.name,
    };
    if !form.has(flags::NO_GUARD) {
        e.put(16, 3, inst.guard.reg.0 as u64, "guard")?;
        e.put(19, 1, inst.guard.not as u64, "guard")?;
    }
    for (idx, (f, o)) in form.operands.iter().zip(&inst.operands).enumerate() {
        let at = At {
            form,
            index: idx,
            found: *o,
        };
        match f.kind.class() {
            OpClass::Register => register_operand(&mut e, inst, at, f.kind)?,
            OpClass::IntImm => int_immediate(&mut e, at, f.kind)?,
            OpClass::FloatImm => float_immediate(&mut e, at, f.kind)?,
            OpClass::Memory => memory_operand(&mut e, at, f.kind)?,
            OpClass::Control => control_operand(&mut e, at, f.kind)?,
        }
    }
    if rules {
        crate::table::check_combination(inst).map_err(|why| EncodeError::Combination {
            form: form.name,
            why,
        })?;
    }
    for (m, &v) in form.mods.iter().zip(&inst.mods) {
        if !m.is_valid(v) {
            return Err(EncodeError::Modifier {
                form: form.name,
                kind: m.kind,
                value: v,
            });
        }
        let v = u64::from(v);
        let (alo, alen) = m.a;
        e.put(alo, alen, v & ((1 << alen) - 1), "modifier")?;
        if m.b.1 > 0 {
            e.put(m.b.0, m.b.1, v >> alen, "modifier")?;
        }
    }
    Ok(e.word)
}

/// Where an operand stands: its form, its index and the operand found there.
#[derive(Clone, Copy)]
struct At {
    form: &'static Form,
    index: usize,
    found: Operand,
}

impl At {
    fn error(self, expected: &'static str) -> EncodeError {
        EncodeError::Operand {
            form: self.form.name,
            index: self.index,
            found: self.found,
            expected,
        }
    }
}

/// A register or predicate operand (derived registers: checked against the ones they derive
/// from).
#[inline(always)]
fn register_operand(e: &mut Enc, inst: &Inst, at: At, kind: OpKind) -> Result<(), EncodeError> {
    let bad = |expected: &'static str| at.error(expected);
    match (kind, at.found) {
        (OpKind::Gpr(lo), Operand::Reg(r)) => e.gpr(lo, r)?,
        (OpKind::Gpr(_), _) => return Err(bad("a register")),
        (OpKind::Next(k) | OpKind::Same(k), Operand::Reg(r)) => {
            let mut want = *inst;
            want.fill_derived();
            if let Operand::Reg(expected) = want.operands[at.index] {
                if expected != r {
                    return Err(EncodeError::Derived {
                        form: at.form.name,
                        index: at.index,
                        expected,
                    });
                }
            }
            let _ = k;
        }
        (OpKind::Next(_) | OpKind::Same(_), _) => return Err(bad("a register")),
        (OpKind::PredDst(lo), Operand::Pred(p)) if !p.not => {
            e.put(lo, 3, p.reg.0 as u64, "predicate")?
        }
        (OpKind::PredDst(_), _) => return Err(bad("a predicate (not negated)")),
        (OpKind::PredSrc(lo, not), Operand::Pred(p)) => {
            e.put(lo, 3, p.reg.0 as u64, "predicate")?;
            e.put(not, 1, p.not as u64, "predicate")?;
        }
        _ => return Err(bad("a predicate")),
    }
    Ok(())
}

/// An integer immediate, range-checked for its field.
#[inline(always)]
fn int_immediate(e: &mut Enc, at: At, kind: OpKind) -> Result<(), EncodeError> {
    let bad = |expected: &'static str| at.error(expected);
    match (kind, at.found) {
        (OpKind::UImm(lo, len), Operand::Imm(v)) => {
            if v < 0 {
                return Err(EncodeError::Range {
                    form: at.form.name,
                    what: "immediate",
                    value: v,
                    bits: len as u32,
                });
            }
            e.put(lo, len, v as u64, "immediate")?
        }
        (OpKind::SImm(lo, len), Operand::Imm(v)) => e.put_signed(lo, len, v, "immediate")?,
        (OpKind::I20, Operand::Imm(v)) => e.i20(v)?,
        (OpKind::XImm, Operand::Imm(v)) => {
            if !(-0x8000..=0xffff).contains(&v) {
                return Err(EncodeError::Range {
                    form: at.form.name,
                    what: "16-bit immediate",
                    value: v,
                    bits: 16,
                });
            }
            e.put(20, 16, v as u64 & 0xffff, "immediate")?
        }
        (OpKind::U20, Operand::Imm(v)) => {
            if !(0..1 << 20).contains(&v) {
                return Err(EncodeError::Range {
                    form: at.form.name,
                    what: "immediate",
                    value: v,
                    bits: 20,
                });
            }
            e.put(20, 19, v as u64 & 0x7ffff, "imm")?;
            e.put(56, 1, v as u64 >> 19, "imm")?;
        }
        (OpKind::U32(lo), Operand::Imm(v)) => {
            if !(0..=u32::MAX as i64).contains(&v) {
                return Err(EncodeError::Range {
                    form: at.form.name,
                    what: "immediate",
                    value: v,
                    bits: 32,
                });
            }
            e.put(lo, 32, v as u64, "immediate")?
        }
        (OpKind::S32(lo), Operand::Imm(v)) => e.put_signed(lo, 32, v, "immediate")?,
        _ => return Err(bad("an integer immediate")),
    }
    Ok(())
}

/// An f32 or f64 immediate (the 20-bit forms keep the high bits and need the others zero).
#[inline(always)]
fn float_immediate(e: &mut Enc, at: At, kind: OpKind) -> Result<(), EncodeError> {
    let bad = |expected: &'static str| at.error(expected);
    match (kind, at.found) {
        (OpKind::F20, Operand::F32(b)) => {
            if b & 0xfff != 0 {
                return Err(EncodeError::FloatImm {
                    form: at.form.name,
                    bits: b as u64,
                });
            }
            e.put(20, 19, (b as u64 >> 12) & 0x7ffff, "imm")?;
            e.put(56, 1, b as u64 >> 31, "imm")?;
        }
        (OpKind::F20, _) => return Err(bad("an f32 immediate")),
        (OpKind::D20, Operand::F64(b)) => {
            if b & ((1 << 44) - 1) != 0 {
                return Err(EncodeError::FloatImm {
                    form: at.form.name,
                    bits: b,
                });
            }
            e.put(20, 19, (b >> 44) & 0x7ffff, "imm")?;
            e.put(56, 1, b >> 63, "imm")?;
        }
        (OpKind::D20, _) => return Err(bad("an f64 immediate")),
        (OpKind::F32(lo), Operand::F32(b)) => e.put(lo, 32, b as u64, "imm")?,
        _ => return Err(bad("an f32 immediate")),
    }
    Ok(())
}

/// A constant bank slot, a memory address or an indexed constant.
#[inline(always)]
fn memory_operand(e: &mut Enc, at: At, kind: OpKind) -> Result<(), EncodeError> {
    let bad = |expected: &'static str| at.error(expected);
    match (kind, at.found) {
        (OpKind::CBuf | OpKind::CBufSp, Operand::CBuf { bank, offset }) => {
            if offset % 4 != 0 {
                return Err(EncodeError::Range {
                    form: at.form.name,
                    what: "cbuf offset (must be 4-aligned)",
                    value: offset as i64,
                    bits: 16,
                });
            }
            e.put_signed(20, 14, (offset / 4) as i64, "cbuf offset")?;
            e.put(34, 5, bank as u64, "cbuf bank")?;
        }
        (OpKind::CBuf | OpKind::CBufSp, _) => return Err(bad("a constant c[bank][offset]")),
        (OpKind::Mem { lo, len, scale }, Operand::Mem { base, offset }) => {
            e.gpr(8, base)?;
            if offset % scale as i32 != 0 {
                return Err(EncodeError::Range {
                    form: at.form.name,
                    what: "memory offset (misaligned)",
                    value: offset as i64,
                    bits: len as u32,
                });
            }
            e.put_signed(lo, len, (offset / scale as i32) as i64, "memory offset")?;
        }
        (OpKind::Mem { .. }, _) => return Err(bad("a memory address [Ra+off]")),
        (OpKind::CIdx, Operand::CIdx { bank, base, offset }) => {
            e.gpr(8, base)?;
            e.put_signed(20, 16, offset as i64, "constant offset")?;
            e.put(36, 5, bank as u64, "constant bank")?;
        }
        _ => return Err(bad("an indexed constant c[bank][Ra+off]")),
    }
    Ok(())
}

/// A special register, a branch target, a scoreboard (mask), PR or CC.
#[inline(always)]
fn control_operand(e: &mut Enc, at: At, kind: OpKind) -> Result<(), EncodeError> {
    let bad = |expected: &'static str| at.error(expected);
    match (kind, at.found) {
        (OpKind::SReg, Operand::SReg(s)) => e.put(20, 8, s.0 as u64, "special register")?,
        (OpKind::SReg, _) => return Err(bad("a special register")),
        (OpKind::Rel, Operand::Target(t)) => e.put_signed(20, 24, t as i64, "branch offset")?,
        (OpKind::Abs, Operand::Target(t)) => {
            if t < 0 {
                return Err(EncodeError::Range {
                    form: at.form.name,
                    what: "call address",
                    value: t as i64,
                    bits: 32,
                });
            }
            e.put(20, 32, t as u64, "call address")?
        }
        (OpKind::Rel | OpKind::Abs, Operand::Label(_)) => {
            return Err(EncodeError::Unresolved { form: at.form.name })
        }
        (OpKind::Rel | OpKind::Abs, _) => return Err(bad("a branch target")),
        (OpKind::SbMask, Operand::SbMask(m)) => e.put(0, 6, m as u64, "scoreboard mask")?,
        (OpKind::SbMask, _) => return Err(bad("a scoreboard mask {..}")),
        (OpKind::Sb, Operand::Sb(s)) => e.put(26, 3, s as u64, "scoreboard")?,
        (OpKind::Sb, _) => return Err(bad("a scoreboard SBn")),
        (OpKind::Pr, Operand::Pr) | (OpKind::Cc, Operand::Cc) => {}
        (OpKind::Pr, _) => return Err(bad("PR")),
        _ => return Err(bad("CC")),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inst::{cbuf, Op};

    #[test]
    fn ptxas_words() {
        // MOV R1, c[0x0][0x20] ;  /* 0x4c98078000870001 */
        assert_eq!(
            encode(&Inst::mov(Reg(1), cbuf(0, 0x20))),
            Ok(0x4c98078000870001)
        );
        // S2R R4, SR_CTAID.X ; /* 0xf0c8000002570004 */
        assert_eq!(
            encode(&Inst::s2r(Reg(4), crate::SpecialReg::CTAID_X)),
            Ok(0xf0c8000002570004)
        );
        // EXIT ; /* 0xe30000000007000f */
        assert_eq!(encode(&Inst::exit()), Ok(0xe30000000007000f));
        let _ = Op::EXIT;
    }

    #[test]
    fn ranges_are_errors() {
        assert!(encode(&Inst::iadd(Reg(1), Reg(2), 1 << 20)).is_err());
        assert!(encode(&Inst::iadd(Reg(1), Reg(2), cbuf(0, 2))).is_err());
        assert!(matches!(
            encode(&Inst::bra(3)),
            Err(EncodeError::Unresolved { .. })
        ));
        assert!(encode(&Inst::mov32i(Reg(0), u32::MAX)).is_ok());
    }
}
