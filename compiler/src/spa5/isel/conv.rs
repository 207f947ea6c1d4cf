//! Instruction selection of conversions: float to integer (`F2I`, truncating, `.FTZ` from
//! f32), integer to float (`I2F`), and between float widths (`F2F`: f16, f32, f64; also the
//! rounding operations of the float families, `F2F` to the same type with a rounding mode).
//!
//! Requires and guarantees as [`super`].

use ilc_passes::ir::{Opcode, Type, Value};
use isa_spa5::mods::{DType, Rnd, SType};
use isa_spa5::{Inst as MInst, ModKind, Op};

use super::{one, Isel, IselError, Node, Vals};
use crate::spa5::target::{SetMod, Slot, R};

use Slot::{Arg, Res};

impl Isel<'_> {
    /// Selects a conversion (see [`super::family`]).
    pub(super) fn select_conv(&mut self, n: &Node) -> Result<Vals, IselError> {
        let (inst, op, args) = (n.inst, n.op, &n.args);
        match op {
            Opcode::F2i | Opcode::F2u | Opcode::D2i | Opcode::D2u => {
                let dty = if matches!(op, Opcode::F2i | Opcode::D2i) {
                    DType::S32
                } else {
                    DType::U32
                };
                let sty = if matches!(op, Opcode::F2i | Opcode::F2u) {
                    SType::F32
                } else {
                    SType::F64
                };
                let i = MInst::build(Op::F2I_R, &[R, R])
                    .t(dty)?
                    .t(sty)?
                    .t(Rnd::Trunc)?
                    .f(ModKind::Ftz, u8::from(sty == SType::F32))?;
                one(self.one(i, &[Res(0, 0), Arg(0, 0)], args)?)
            }
            Opcode::I2f | Opcode::U2f | Opcode::I2d | Opcode::U2d => {
                let sty = if matches!(op, Opcode::I2f | Opcode::I2d) {
                    SType::S32
                } else {
                    SType::U32
                };
                let (dty, ty) = if matches!(op, Opcode::I2f | Opcode::U2f) {
                    (DType::F32, Type::B32)
                } else {
                    (DType::F64, Type::B64)
                };
                let i = MInst::build(Op::I2F_R, &[R, R]).t(dty)?.t(sty)?;
                one(self.one_ty(i, &[Res(0, 0), Arg(0, 0)], args, ty)?)
            }
            Opcode::F2d => one(self.f2f(DType::F64, SType::F32, Rnd::Rn, args[0], Type::B64)?),
            Opcode::D2f => one(self.f2f(DType::F32, SType::F64, Rnd::Rn, args[0], Type::B32)?),
            Opcode::F16to32 => {
                one(self.f2f(DType::F32, SType::F16, Rnd::Rn, args[0], Type::B32)?)
            }
            Opcode::F32to16 => {
                one(self.f2f(DType::F16, SType::F32, Rnd::Rn, args[0], Type::B32)?)
            }
            _ => Err(self.unsupported(inst, op.mnemonic())),
        }
    }

    /// `F2F.dty.sty.rnd` (`.FTZ` when either side is f32) of `a`, result of type `ty`.
    pub(crate) fn f2f(
        &mut self,
        dty: DType,
        sty: SType,
        rnd: Rnd,
        a: Value,
        ty: Type,
    ) -> Result<Value, IselError> {
        let f32 = sty == SType::F32 || dty == DType::F32;
        let i = MInst::build(Op::F2F_R, &[R, R])
            .t(dty)?
            .t(sty)?
            .t(rnd)?
            .f(ModKind::Ftz, u8::from(f32))?;
        self.one_ty(i, &[Res(0, 0), Arg(0, 0)], &[a], ty)
    }
}
