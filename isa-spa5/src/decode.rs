//! Table-driven decoder: [`decode`] maps any 64-bit word to an [`Inst`] or a [`DecodeError`];
//! it never panics.
//!
//! Dispatch: a table indexed by the top 16 bits of the word lists the rows whose fixed bits
//! agree there (most specific first); each candidate is checked under its full mask. A word
//! with bits set outside the matching row's fields is rejected ([`DecodeError::StrayBits`]),
//! so whatever decodes re-encodes to the identical word.

use std::sync::OnceLock;

use crate::inst::{Inst, Op, Operand};
use crate::regs::{Pred, PredReg, Reg, SpecialReg};
use crate::table::{flags, Form, OpKind, DECODERS, FORMS, FORM_TABLE, MAX_MODS, MAX_OPERANDS};

/// Why a word does not decode.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// No row's fixed bits match.
    #[error("unknown opcode in {0:#018x}")]
    Unknown(u64),
    /// A row matched but bits outside its fields are set.
    #[error("{form}: unexpected bits {bits:#x} set in {word:#018x}")]
    StrayBits {
        /// Row name.
        form: &'static str,
        /// The offending bits.
        bits: u64,
        /// The word.
        word: u64,
    },
    /// Fields that are each valid but not together (see [`crate::table::check_combination`]).
    #[error("{form}: {why} in {word:#018x}")]
    Combination {
        /// Row name.
        form: &'static str,
        /// The rule broken.
        why: &'static str,
        /// The word.
        word: u64,
    },
    /// A modifier field holds a value with no name.
    #[error("{form}: invalid modifier {kind:?} value {value} in {word:#018x}")]
    Modifier {
        /// Row name.
        form: &'static str,
        /// Modifier kind.
        kind: crate::inst::ModKind,
        /// The value.
        value: u8,
        /// The word.
        word: u64,
    },
}

/// How many top bits of a word index the dispatch table. Bits 48-50 are left out: rows that
/// differ only there (few) share a key and are told apart by their full masks.
const KEY_BITS: u32 = 13;

struct Dispatch {
    /// One slot per key (the top [`KEY_BITS`] bits of a word).
    slots: Box<[Slot]>,
    /// Candidate rows of keys with more than one, most specific first.
    cands: Vec<Cand>,
}

/// A key's entry: its candidate range and, inline, its first candidate, so the common case
/// (one candidate) costs a single dependent load before the row's decoder runs.
#[derive(Clone, Copy)]
struct Slot {
    first: Cand,
    len: u16,
    start: u32,
}

#[derive(Clone, Copy)]
struct Cand {
    mask: u64,
    opcode: u64,
    /// Bits no field of the row covers.
    stray: u64,
    /// The row's decoder (saves a dependent load from [`DECODERS`] on the hot path).
    dec: DecodeFn,
    row: u16,
}

fn field_bits(lo: u8, len: u8) -> u64 {
    if len == 0 {
        0
    } else {
        (if len >= 64 {
            u64::MAX
        } else {
            (1u64 << len) - 1
        }) << lo
    }
}

/// All bits a row defines: fixed, guard, operand and modifier fields.
pub(crate) fn used_bits(f: &Form) -> u64 {
    let mut u = f.mask;
    if !f.has(flags::NO_GUARD) {
        u |= 0xf << 16;
    }
    for o in f.operands {
        u |= match o.kind {
            OpKind::Gpr(lo) => field_bits(lo, 8),
            OpKind::PredDst(lo) => field_bits(lo, 3),
            OpKind::PredSrc(lo, not) => field_bits(lo, 3) | 1 << not,
            OpKind::UImm(lo, len) | OpKind::SImm(lo, len) => field_bits(lo, len),
            OpKind::I20 | OpKind::U20 | OpKind::F20 | OpKind::D20 => field_bits(20, 19) | 1 << 56,
            OpKind::U32(lo) | OpKind::S32(lo) | OpKind::F32(lo) => field_bits(lo, 32),
            OpKind::CBuf | OpKind::CBufSp => field_bits(20, 19),
            OpKind::Mem { lo, len, .. } => field_bits(8, 8) | field_bits(lo, len),
            OpKind::CIdx => field_bits(8, 8) | field_bits(20, 21),
            OpKind::SReg => field_bits(20, 8),
            OpKind::XImm => field_bits(20, 16),
            OpKind::Rel => field_bits(20, 24),
            OpKind::Abs => field_bits(20, 32),
            OpKind::SbMask => field_bits(0, 6),
            OpKind::Sb => field_bits(26, 3),
            OpKind::Next(_) | OpKind::Same(_) | OpKind::Pr | OpKind::Cc => 0,
        };
    }
    for m in f.mods {
        u |= field_bits(m.a.0, m.a.1) | field_bits(m.b.0, m.b.1);
    }
    u
}

fn dispatch() -> &'static Dispatch {
    static D: OnceLock<Dispatch> = OnceLock::new();
    D.get_or_init(|| {
        let mut per_key: Vec<Vec<u16>> = vec![Vec::new(); 1 << KEY_BITS];
        let key_mask = (1u32 << KEY_BITS) - 1;
        for (i, f) in FORMS.iter().enumerate() {
            let top_val = (f.opcode >> (64 - KEY_BITS)) as u32;
            let top_mask = (f.mask >> (64 - KEY_BITS)) as u32;
            let free = !top_mask & key_mask;
            // Enumerate every key agreeing with the row's fixed top bits (subsets of `free`).
            let mut sub = free;
            loop {
                per_key[((top_val & top_mask) | sub) as usize].push(i as u16);
                if sub == 0 {
                    break;
                }
                sub = (sub - 1) & free;
            }
        }
        let mut slots = Vec::with_capacity(1 << KEY_BITS);
        let mut cands = Vec::new();
        let cand = |i: u16| {
            let f = &FORMS[i as usize];
            Cand {
                mask: f.mask,
                opcode: f.opcode,
                stray: !used_bits(f),
                dec: DECODERS[i as usize],
                row: i,
            }
        };
        for list in per_key.iter_mut() {
            // Most fixed bits first, so specific rows win over general ones.
            list.sort_by_key(|&i| std::cmp::Reverse(FORMS[i as usize].mask.count_ones()));
            slots.push(Slot {
                // Row 0 stands in for an empty key; `len == 0` keeps it from being tried.
                first: cand(list.first().copied().unwrap_or(0)),
                len: list.len() as u16,
                start: cands.len() as u32,
            });
            cands.extend(list.iter().map(|&i| cand(i)));
        }
        Dispatch {
            slots: slots.into_boxed_slice(),
            cands,
        }
    })
}

#[inline]
fn bits(w: u64, lo: u8, len: u8) -> u64 {
    if len == 0 {
        0
    } else {
        (w >> lo) & ((1u64 << len) - 1)
    }
}

#[inline]
fn sext(v: u64, len: u8) -> i64 {
    let s = 64 - len as u32;
    ((v << s) as i64) >> s
}

/// A row's decoder (see [`decode_form`]).
pub(crate) type DecodeFn = fn(u64) -> Result<Inst, DecodeError>;

/// The decoder of row `I`: [`decode_with`] with the row a compile-time constant, so the
/// operand and modifier loops unroll into straight-line bit extraction for that row alone.
/// The caller has checked the row's fixed bits and that no stray bits are set.
pub(crate) fn decode_form<const I: usize>(w: u64) -> Result<Inst, DecodeError> {
    let form: &'static Form = const { &FORM_TABLE[I] };
    let derived = const { FORM_TABLE[I].has_derived() };
    let rules = const { FORM_TABLE[I].has_combination_rules() };
    decode_with(Op(I as u16), form, w, derived, rules)
}

#[inline(always)]
fn decode_with(
    op: Op,
    form: &'static Form,
    w: u64,
    derived: bool,
    rules: bool,
) -> Result<Inst, DecodeError> {
    let mut operands = [Operand::None; MAX_OPERANDS];
    for (slot, f) in operands.iter_mut().zip(form.operands) {
        *slot = match f.kind {
            OpKind::Gpr(lo) => Operand::Reg(Reg(bits(w, lo, 8) as u8)),
            OpKind::Next(_) | OpKind::Same(_) => Operand::Reg(Reg::RZ),
            OpKind::PredDst(lo) => Operand::Pred(Pred {
                reg: PredReg(bits(w, lo, 3) as u8),
                not: false,
            }),
            OpKind::PredSrc(lo, not) => Operand::Pred(Pred {
                reg: PredReg(bits(w, lo, 3) as u8),
                not: bits(w, not, 1) != 0,
            }),
            OpKind::UImm(lo, len) => Operand::Imm(bits(w, lo, len) as i64),
            OpKind::SImm(lo, len) => Operand::Imm(sext(bits(w, lo, len), len)),
            OpKind::XImm => Operand::Imm(bits(w, 20, 16) as i64),
            OpKind::I20 => Operand::Imm(sext(bits(w, 20, 19) | bits(w, 56, 1) << 19, 20)),
            OpKind::U20 => Operand::Imm((bits(w, 20, 19) | bits(w, 56, 1) << 19) as i64),
            OpKind::F20 => Operand::F32(((bits(w, 20, 19) << 12) | bits(w, 56, 1) << 31) as u32),
            OpKind::D20 => Operand::F64((bits(w, 20, 19) << 44) | bits(w, 56, 1) << 63),
            OpKind::U32(lo) => Operand::Imm(bits(w, lo, 32) as i64),
            OpKind::S32(lo) => Operand::Imm(sext(bits(w, lo, 32), 32)),
            OpKind::F32(lo) => Operand::F32(bits(w, lo, 32) as u32),
            OpKind::CBuf | OpKind::CBufSp => Operand::CBuf {
                bank: bits(w, 34, 5) as u8,
                offset: (sext(bits(w, 20, 14), 14) * 4) as i32,
            },
            OpKind::Mem { lo, len, scale } => Operand::Mem {
                base: Reg(bits(w, 8, 8) as u8),
                offset: (sext(bits(w, lo, len), len) * scale as i64) as i32,
            },
            OpKind::CIdx => Operand::CIdx {
                bank: bits(w, 36, 5) as u8,
                base: Reg(bits(w, 8, 8) as u8),
                offset: sext(bits(w, 20, 16), 16) as i32,
            },
            OpKind::SReg => Operand::SReg(SpecialReg(bits(w, 20, 8) as u8)),
            OpKind::Rel => Operand::Target(sext(bits(w, 20, 24), 24) as i32),
            OpKind::Abs => Operand::Target(bits(w, 20, 32) as i32),
            OpKind::SbMask => Operand::SbMask(bits(w, 0, 6) as u8),
            OpKind::Sb => Operand::Sb(bits(w, 26, 3) as u8),
            OpKind::Pr => Operand::Pr,
            OpKind::Cc => Operand::Cc,
        };
    }
    let mut mods = [0u8; MAX_MODS];
    for (slot, m) in mods.iter_mut().zip(form.mods) {
        let v = (bits(w, m.a.0, m.a.1) | bits(w, m.b.0, m.b.1) << m.a.1) as u8;
        if !m.is_valid(v) {
            return Err(DecodeError::Modifier {
                form: form.name,
                kind: m.kind,
                value: v,
                word: w,
            });
        }
        *slot = v;
    }
    let guard = if form.has(flags::NO_GUARD) {
        Pred::TRUE
    } else {
        Pred {
            reg: PredReg(bits(w, 16, 3) as u8),
            not: bits(w, 19, 1) != 0,
        }
    };
    let mut inst = Inst {
        op,
        guard,
        operands,
        mods,
    };
    if derived {
        inst.fill_derived();
    }
    if rules {
        crate::table::check_combination(&inst).map_err(|why| DecodeError::Combination {
            form: form.name,
            why,
            word: w,
        })?;
    }
    Ok(inst)
}

/// Decode one instruction word (not a control word).
pub fn decode(word: u64) -> Result<Inst, DecodeError> {
    let slot = &dispatch().slots[(word >> (64 - KEY_BITS)) as usize];
    // Fast path: most keys have a single candidate row; its decoder's answer is final, so
    // call it in tail position (no copy of the result, one hard-to-predict branch).
    let c = &slot.first;
    if slot.len == 1 && word & c.mask == c.opcode && word & c.stray == 0 {
        return (c.dec)(word);
    }
    decode_slow(word, slot)
}

/// Every candidate of the word's key in order; the first that decodes wins, else the most
/// informative error.
#[cold]
#[inline(never)]
fn decode_slow(word: u64, slot: &Slot) -> Result<Inst, DecodeError> {
    let (start, len) = (slot.start as usize, slot.len as usize);
    let mut err = DecodeError::Unknown(word);
    for c in &dispatch().cands[start..start + len] {
        if word & c.mask != c.opcode {
            continue;
        }
        let stray = word & c.stray;
        if stray != 0 {
            if matches!(err, DecodeError::Unknown(_)) {
                err = DecodeError::StrayBits {
                    form: FORMS[c.row as usize].name,
                    bits: stray,
                    word,
                };
            }
            continue;
        }
        match (c.dec)(word) {
            Ok(inst) => return Ok(inst),
            Err(e) => err = e,
        }
    }
    Err(err)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encode::encode;

    #[test]
    fn ptxas_words_round_trip() {
        for w in [
            0x4c98078000870001u64,
            0xf0c8000002570004,
            0xe30000000007000f,
            0x5b30011800370404,
        ] {
            let i = decode(w).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(encode(&i), Ok(w), "{i:?}");
        }
    }

    #[test]
    fn garbage_is_an_error() {
        assert!(decode(u64::MAX).is_err());
    }
}
