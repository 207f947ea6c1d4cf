//! Instruction selection of moves: integer constants (`MOV32I`, one register per distinct
//! value and block), copies (the fixed move templates), register pairs (`concat`, `lo`,
//! `hi`; two consecutive constant-buffer words load straight into the pair), special
//! registers (`S2R`, or the launch parameters in constant bank 0) and quad shuffles
//! (`SHFL.IDX`).
//!
//! Requires and guarantees as [`super`].

use ilc_passes::ir::{InstructionData, Opcode, SpecialReg as IrSreg, Type, Value};
use isa_spa5::inst::Operand;
use isa_spa5::mods::Shfl;
use isa_spa5::{Inst as MInst, Op, Pred, SpecialReg};

use super::{one, Isel, IselError, Node, Vals};
use crate::spa5::abi::ParamKind;
use crate::spa5::target::{cb0, codes, SetMod, Slot, TInst, Template, R};

use Slot::{Arg, Res};

impl Isel<'_> {
    /// Selects a move (see [`super::family`]).
    pub(super) fn select_move(&mut self, n: &Node) -> Result<Vals, IselError> {
        let (inst, data, op, args) = (n.inst, &n.data, n.op, &n.args);
        match (data, op) {
            (InstructionData::UnaryImm { ty, imm, .. }, Opcode::Iconst) => match ty {
                Type::B64 => {
                    let t = Template::many(&[
                        TInst::new(MInst::mov32i(R, *imm as u32), &[Res(0, 0)]),
                        TInst::new(MInst::mov32i(R, (*imm >> 32) as u32), &[Res(0, 1)]),
                    ]);
                    Ok(self.emit(t, &[], &[Type::B64])?)
                }
                _ => one(self.const32(*imm as u32)?),
            },
            (_, Opcode::Copy) => {
                let ty = self.ty(args[0]);
                let code = match ty {
                    Type::B32 => codes::MOV32,
                    Type::B64 => codes::MOV64,
                    Type::Pred => codes::MOVP,
                };
                let t = self.tgt.templates[code as usize].clone();
                Ok(self.emit(t, &[args[0]], &[ty])?)
            }
            (_, Opcode::Concat) => {
                if let Some(&(hi, pair)) = self.fused_pairs.get(&args[0]) {
                    if hi == args[1] {
                        return one(pair);
                    }
                }
                // Two consecutive constant-buffer words: read them straight into the pair.
                if let (Some(a), Some(b)) = (self.cb_operand(args[0]), self.cb_operand(args[1])) {
                    if b == a + 4 {
                        let t = Template::many(&[
                            TInst::new(MInst::mov(R, cb0(a)), &[Res(0, 0)]),
                            TInst::new(MInst::mov(R, cb0(b)), &[Res(0, 1)]),
                        ]);
                        return self.emit(t, &[], &[Type::B64]);
                    }
                }
                let t = Template::many(&[
                    TInst::new(MInst::mov(R, R), &[Res(0, 0), Arg(0, 0)]),
                    TInst::new(MInst::mov(R, R), &[Res(0, 1), Arg(1, 0)]),
                ]);
                Ok(self.emit(t, args, &[Type::B64])?)
            }
            (_, Opcode::Lo | Opcode::Hi) => {
                let part = (op == Opcode::Hi) as u8;
                one(self.one(MInst::mov(R, R), &[Res(0, 0), Arg(0, part)], args)?)
            }
            (InstructionData::Special { reg, .. }, Opcode::Special) => one(self.special(*reg)?),
            (_, Opcode::QuadShuffle) => one(self.quad_shuffle(args[0], args[1])?),
            _ => Err(self.unsupported(inst, op.mnemonic())),
        }
    }

    /// SHFL.IDX with segment mask 0x1c and clamp 3 (c = 0x1c03): lane `(laneid & !3) | (b &
    /// 3)`, i.e. within the aligned quad of the warp. Work-item flat ids map to lanes in
    /// order, so warp quads are the IR's quads.
    fn quad_shuffle(&mut self, a: Value, b: Value) -> Result<Value, IselError> {
        const QUAD: i64 = 0x1c03;
        let (op, lane, slots, args) = match self.konst(b) {
            Some(k) => (
                Op::SHFL_II,
                Operand::Imm((k & 3) as i64),
                [Slot::Keep, Res(0, 0), Arg(0, 0), Slot::Keep, Slot::Keep],
                vec![a],
            ),
            None => (
                Op::SHFL_RI,
                R,
                [Slot::Keep, Res(0, 0), Arg(0, 0), Arg(1, 0), Slot::Keep],
                vec![a, b],
            ),
        };
        let inst = MInst::build(
            op,
            &[Operand::Pred(Pred::TRUE), R, R, lane, Operand::Imm(QUAD)],
        )
        .t(Shfl::Idx)?;
        self.one(inst, &slots, &args)
    }

    /// The `c[0x0]` byte offset of a special register that is a launch constant with a
    /// parameter slot: grid size, pixel domain, texture sizes and buffer lengths.
    pub(crate) fn launch_constant_offset(&self, reg: IrSreg) -> Option<u32> {
        use ilc_passes::ir::MemSpace;
        let (kind, word) = match reg {
            IrSreg::GridSize(i) if i < 3 => return Some(0x14 + 4 * u32::from(i)),
            IrSreg::Domain(i) if i < 2 => (ParamKind::Domain, i),
            IrSreg::DomainOrigin(i) if i < 2 => (ParamKind::DomainOrigin, i),
            IrSreg::ResDim(id, i) if i < 3 => (ParamKind::ResDims(id), i),
            IrSreg::UavView(id, i) if i < 4 => (ParamKind::UavView(id), i),
            IrSreg::BufLen(MemSpace::Uav(id)) => (ParamKind::UavSize(id), 0),
            IrSreg::BufLen(MemSpace::Srv(id)) => (ParamKind::SrvSize(id), 0),
            IrSreg::BufLen(MemSpace::Global) => (ParamKind::GlobalSize, 0),
            _ => return None,
        };
        Some(self.layout.cbank_offset(kind)? + 4 * u32::from(word))
    }

    fn special(&mut self, reg: IrSreg) -> Result<Value, IselError> {
        let sr = match reg {
            IrSreg::Tid(i) if i < 3 => SpecialReg(SpecialReg::TID_X.0 + i),
            IrSreg::GroupId(i) if i < 3 => SpecialReg(SpecialReg::CTAID_X.0 + i),
            IrSreg::LaneId => SpecialReg::LANEID,
            IrSreg::Clock => SpecialReg::CLOCKLO,
            IrSreg::GroupSize(i) if i < 3 => {
                if let Some(gs) = self.layout.block_size {
                    return self.const32(gs[i as usize]);
                }
                return self.one(MInst::mov(R, cb0(0x8 + 4 * i as u32)), &[Res(0, 0)], &[]);
            }
            IrSreg::GridSize(_)
            | IrSreg::Domain(_)
            | IrSreg::DomainOrigin(_)
            | IrSreg::ResDim(..)
            | IrSreg::BufLen(_)
            | IrSreg::UavView(..) => {
                // A launch constant in the parameter bank, or 0 when the layout has no slot
                // for it (an undeclared resource, a component past the last).
                return match self.launch_constant_offset(reg) {
                    Some(at) => self.one(MInst::mov(R, cb0(at)), &[Res(0, 0)], &[]),
                    None => self.const32(0),
                };
            }
            _ => return self.const32(0),
        };
        self.one(MInst::s2r(R, sr), &[Res(0, 0)], &[])
    }
}
