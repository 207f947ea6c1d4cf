//! Shared helpers for the isa-spa5 integration tests: random instructions for any table row
//! (drawn from the workspace's one [`Rng`]) and nvdisasm text normalization. The NVIDIA tool
//! lookup is [`ilc_test_support::nvidia_tool`].
#![allow(dead_code)]

use isa_spa5::inst::{Inst, Op, Operand};
use isa_spa5::regs::{Pred, PredReg, Reg, SpecialReg};
use isa_spa5::table::{OpKind, Place};

pub use ilc_test_support::Rng;

fn sext(v: u64, len: u32) -> i64 {
    let s = 64 - len;
    ((v << s) as i64) >> s
}

fn rand_reg(r: &mut Rng) -> Reg {
    if r.chance(8) {
        Reg::RZ
    } else {
        Reg(r.below(255) as u8)
    }
}

/// A random f32 that is not a NaN (nvdisasm prints every NaN as ±QNAN).
fn rand_f32(r: &mut Rng, low_zero_bits: u32) -> u32 {
    loop {
        let b = (r.next_u64() as u32) & !((1u32 << low_zero_bits) - 1);
        if !f32::from_bits(b).is_nan() {
            return b;
        }
    }
}

/// A random instruction of form `op` with every field in range.
pub fn random_inst(op: Op, r: &mut Rng) -> Inst {
    // Retry until the cross-field rules of the table hold.
    loop {
        let i = random_inst_once(op, r);
        if isa_spa5::table::check_combination(&i).is_ok() {
            return i;
        }
    }
}

fn random_inst_once(op: Op, r: &mut Rng) -> Inst {
    let form = op.form();
    let mut i = Inst::new(op);
    if !form.has(isa_spa5::table::flags::NO_GUARD) {
        i.guard = Pred {
            reg: PredReg(r.below(8) as u8),
            not: r.chance(3),
        };
    }
    for (slot, m) in i.mods.iter_mut().zip(form.mods) {
        loop {
            let v = r.bits(m.bits()) as u8;
            if m.name(v).is_some() {
                *slot = v;
                break;
            }
        }
        // Keep negation/abs modifiers sparse so the text stays readable.
        if matches!(m.place, Place::Neg(_) | Place::Abs(_) | Place::Inv(_)) && r.chance(2) {
            *slot = 0;
        }
    }
    for (k, f) in form.operands.iter().enumerate() {
        i.operands[k] = match f.kind {
            OpKind::Gpr(_) | OpKind::Next(_) | OpKind::Same(_) => Operand::Reg(rand_reg(r)),
            OpKind::PredDst(_) => Operand::Pred(Pred {
                reg: PredReg(r.below(8) as u8),
                not: false,
            }),
            OpKind::PredSrc(..) => Operand::Pred(Pred {
                reg: PredReg(r.below(8) as u8),
                not: r.chance(3),
            }),
            OpKind::UImm(_, len) => Operand::Imm(r.bits(len as u32) as i64),
            OpKind::SImm(_, len) => Operand::Imm(sext(r.bits(len as u32), len as u32)),
            OpKind::I20 => Operand::Imm(sext(r.bits(20), 20)),
            OpKind::XImm => Operand::Imm(r.bits(16) as i64),
            OpKind::U20 => Operand::Imm(r.bits(20) as i64),
            OpKind::U32(_) => Operand::Imm(r.bits(32) as i64),
            OpKind::S32(_) => Operand::Imm(sext(r.bits(32), 32)),
            OpKind::F20 => Operand::F32(rand_f32(r, 12)),
            OpKind::F32(_) => Operand::F32(rand_f32(r, 0)),
            OpKind::D20 => loop {
                let b = r.bits(20) << 44;
                if !f64::from_bits(b).is_nan() {
                    break Operand::F64(b);
                }
            },
            OpKind::CBuf | OpKind::CBufSp => Operand::CBuf {
                bank: r.bits(5) as u8,
                offset: (sext(r.bits(14), 14) * 4) as i32,
            },
            OpKind::Mem { len, scale, .. } => Operand::Mem {
                base: rand_reg(r),
                offset: (sext(r.bits(len as u32), len as u32) * scale as i64) as i32,
            },
            OpKind::CIdx => Operand::CIdx {
                bank: r.bits(5) as u8,
                base: rand_reg(r),
                offset: sext(r.bits(16), 16) as i32,
            },
            OpKind::SReg => Operand::SReg(SpecialReg(r.bits(8) as u8)),
            OpKind::Rel => Operand::Target((sext(r.bits(20), 20) as i32) & !7),
            OpKind::Abs => Operand::Target((r.bits(20) as i32) & !7),
            OpKind::SbMask => Operand::SbMask(r.bits(6) as u8),
            OpKind::Sb => Operand::Sb(r.below(6) as u8),
            OpKind::Pr => Operand::Pr,
            OpKind::Cc => Operand::Cc,
        };
    }
    // CAS's implied second register must exist: keep its base away from RZ.
    for f in form.operands {
        if let OpKind::Next(k) = f.kind {
            i.operands[k as usize] = Operand::Reg(Reg(r.below(250) as u8));
        }
    }
    i.fill_derived();
    i
}

/// Normalize spacing for comparisons with nvdisasm text.
pub fn norm(s: &str) -> String {
    s.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace(" ,", ",")
}
