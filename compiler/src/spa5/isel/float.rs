//! Instruction selection of the f32 family: arithmetic, min/max, sign operations,
//! transcendentals, rounding and compares.
//!
//! - f32 ops use `.FTZ` (the IR flushes denormals); legacy multiplies use `.FMZ`
//!   (`0 * anything = 0`).
//! - `fdiv` is `a * MUFU.RCP(b)` with both operands scaled by 1/4 when `|b| > 2^126` (whose
//!   reciprocal would flush), unscaled for a constant `|a| <= 1` (the quotient flushes
//!   there too), `MUFU.RCP(b)` alone for `1 / b`; `fsqrt` is RSQ then RCP; sin/cos/exp2 reduce with RRO before
//!   MUFU.
//! - `ffract` is `min(x - floor(x), 0x3f7fffff)` keeping NaN.
//!
//! Requires and guarantees as [`super`].

use ilc_passes::ir::{FloatCC, InstructionData, Opcode, Type, Value};
use isa_spa5::inst::ModError;
use isa_spa5::inst::Operand;
use isa_spa5::mods::{DType, FCmp, Fmz, Lop, Mufu, Rnd, Rro, SType};
use isa_spa5::{Inst as MInst, ModKind, Op, Pred, Reg};

use super::legalize::{short_f32, Enc, SrcForms, ANY};
use super::{one, Isel, IselError, Node, Vals};
use crate::spa5::target::{SetMod, Slot, R};

use Slot::{Arg, Res};

type R32 = Result<Value, IselError>;

/// `.FTZ` on forms whose flush mode is the `Ftz` flag (FADD, FSETP, FMNMX...).
fn ftz(i: MInst) -> Result<MInst, ModError> {
    i.f(ModKind::Ftz, 1)
}

/// `.FTZ` on forms whose flush mode is the `Fmz` field (FMUL, FFMA).
fn fmz_ftz(i: MInst) -> Result<MInst, ModError> {
    i.t(Fmz::Ftz)
}

/// `.FMZ`: the legacy multiply (flushes like `.FTZ`, and `0 * anything = +0`).
fn fmz_legacy(i: MInst) -> Result<MInst, ModError> {
    i.t(Fmz::Fmz)
}

impl Isel<'_> {
    /// Selects an f32-family instruction (see [`super::family`]).
    pub(super) fn select_float(&mut self, n: &Node) -> Result<Vals, IselError> {
        let (inst, data, op, args) = (n.inst, &n.data, n.op, &n.args);
        match op {
            Opcode::Fcmp => {
                let InstructionData::FloatCompare { cond, .. } = data else {
                    return Err(self.unsupported(inst, "fcmp form"));
                };
                one(self.fcmp(*cond, args[0], args[1])?)
            }
            Opcode::Fadd => {
                let (a, b) = self.canon(args[0], args[1]);
                one(self.bin(Op::FADD_R, a, b, &ftz)?)
            }
            Opcode::Fsub => {
                let i = MInst::fadd(R, R, R)
                    .m(ModKind::Ftz, 1)
                    .m(ModKind::Neg(2), 1);
                one(self.one(i, &[Res(0, 0), Arg(0, 0), Arg(1, 0)], args)?)
            }
            Opcode::Fmul => {
                let (a, b) = self.canon(args[0], args[1]);
                one(self.bin(Op::FMUL_R, a, b, &fmz_ftz)?)
            }
            Opcode::FmulLegacy => {
                let (a, b) = self.canon(args[0], args[1]);
                one(self.bin(Op::FMUL_R, a, b, &fmz_legacy)?)
            }
            // A negated factor or addend is FFMA's operand negation (exact in IEEE arithmetic:
            // `a * -b` is `-(a * b)`), not a sign flip of its own.
            Opcode::Ffma => {
                let ([a, b, c], [na, nb, nc]) = self.fneg_operands([args[0], args[1], args[2]]);
                one(self.ffma(a, b, c, na ^ nb, nc, Fmz::Ftz)?)
            }
            // The legacy rule is exactly FFMA.FMZ: operands flushed, a zero factor makes the
            // product +0 whatever the other factor (Inf, NaN), one rounding otherwise. Only a
            // negated addend folds: a negated product would turn that +0 into -0.
            Opcode::FmadLegacy => {
                let ([_, _, c], [_, _, nc]) = self.fneg_operands([args[0], args[1], args[2]]);
                one(self.ffma(args[0], args[1], c, false, nc, Fmz::Fmz)?)
            }
            Opcode::Fmad => {
                let m = self.one(
                    MInst::fmul(R, R, R).t(Fmz::Ftz)?,
                    &[Res(0, 0), Arg(0, 0), Arg(1, 0)],
                    &args[..2],
                )?;
                one(self.bin(Op::FADD_R, m, args[2], &ftz)?)
            }
            Opcode::Fmin | Opcode::Fmax => {
                let p = if op == Opcode::Fmin {
                    Pred::TRUE
                } else {
                    Pred::FALSE
                };
                let i = MInst::build(Op::FMNMX_R, &[R, R, R, Operand::Pred(p)]).m(ModKind::Ftz, 1);
                one(self.one(i, &[Res(0, 0), Arg(0, 0), Arg(1, 0)], args)?)
            }
            Opcode::Fneg => one(self.lop32i(Lop::Xor, args[0], 0x8000_0000)?),
            Opcode::Fabs => one(self.lop32i(Lop::And, args[0], 0x7fff_ffff)?),
            Opcode::Fdiv => one(self.fdiv(args[0], args[1])?),
            Opcode::Frcp => one(self.mufu(Mufu::Rcp, args[0])?),
            Opcode::Frsq => one(self.mufu(Mufu::Rsq, args[0])?),
            Opcode::Fsqrt => {
                let r = self.mufu(Mufu::Rsq, args[0])?;
                one(self.mufu(Mufu::Rcp, r)?)
            }
            Opcode::Flog2 => one(self.mufu(Mufu::Lg2, args[0])?),
            Opcode::Fexp2 => {
                let r = self.one(
                    MInst::build(Op::RRO_R, &[R, R]).t(Rro::Ex2)?,
                    &[Res(0, 0), Arg(0, 0)],
                    args,
                )?;
                one(self.mufu(Mufu::Ex2, r)?)
            }
            Opcode::Fsin | Opcode::Fcos => {
                // RRO.SINCOS takes the angle in radians (as ptxas emits `__sinf`), then MUFU;
                // the sine and cosine of one angle in a block share the reduction.
                let block = self.cur_block();
                let r = match block.and_then(|b| self.rro_memo.get(&(b, args[0]))) {
                    Some(&r) => r,
                    None => {
                        let r = self.one(
                            MInst::build(Op::RRO_R, &[R, R]).t(Rro::SinCos)?,
                            &[Res(0, 0), Arg(0, 0)],
                            args,
                        )?;
                        if let Some(b) = block {
                            self.rro_memo.insert((b, args[0]), r);
                        }
                        r
                    }
                };
                let f = if op == Opcode::Fsin {
                    Mufu::Sin
                } else {
                    Mufu::Cos
                };
                one(self.mufu(f, r)?)
            }
            Opcode::Ffloor | Opcode::Fceil | Opcode::Ftrunc | Opcode::FroundEven => {
                let rnd = match op {
                    Opcode::Ffloor => Rnd::Floor,
                    Opcode::Fceil => Rnd::Ceil,
                    Opcode::Ftrunc => Rnd::Trunc,
                    _ => Rnd::Round,
                };
                one(self.f2f(DType::F32, SType::F32, rnd, args[0], Type::B32)?)
            }
            Opcode::Ffract => one(self.ffract(args[0])?),
            Opcode::Fsat => {
                let i = MInst::fadd(R, R, Reg::RZ)
                    .m(ModKind::Ftz, 1)
                    .m(ModKind::Sat, 1);
                one(self.one(i, &[Res(0, 0), Arg(0, 0), Slot::Keep], args)?)
            }
            _ => Err(self.unsupported(inst, op.mnemonic())),
        }
    }

    /// `FSETP.cond.FTZ`: a constant second operand is the immediate (short f32 encodings)
    /// or a c[] operand; a constant first operand is swapped there first.
    fn fcmp(&mut self, cond: FloatCC, a: Value, b: Value) -> R32 {
        let (cond, a, b) = if !self.const_like(b) && self.const_like(a) {
            (cond.swap_args(), b, a)
        } else {
            (cond, a, b)
        };
        let cmp = fcc(cond);
        let mods = |i: MInst| i.t(cmp)?.f(ModKind::Ftz, 1);
        let ops = [
            Operand::Pred(Pred::p(0)),
            Operand::Pred(Pred::TRUE),
            R,
            R,
            Operand::Pred(Pred::TRUE),
        ];
        self.emit_legal(
            &[SrcForms::of(Op::FSETP_R, 3)],
            &ANY[..2],
            &ops,
            &mods,
            &[Res(0, 0), Slot::Keep, Arg(0, 0), Arg(1, 0)],
            &[a, b],
            Type::Pred,
        )
    }

    /// `a / b` (see the module doc).
    fn fdiv(&mut self, a: Value, b: Value) -> R32 {
        // A constant dividend of magnitude at most 1 needs no scaling: where |b| > 2^126 the
        // quotient is below 2^-126 and flushes to a signed zero, as `a` times the flushed
        // reciprocal does. `1 / b` is the reciprocal itself.
        if let Some(c) = self.konst(a).map(|c| c as u32) {
            let mag = f32::from_bits(c & 0x7fff_ffff);
            if c == 0x3f80_0000 {
                return self.mufu(Mufu::Rcp, b);
            }
            if (f32::MIN_POSITIVE..=1.0).contains(&mag) {
                let r = self.mufu(Mufu::Rcp, b)?;
                return self.bin(Op::FMUL_R, r, a, &fmz_ftz);
            }
        }
        // For |b| > 2^126 the reciprocal is subnormal and flushes: divide a/4 by b/4
        // there (exact for such b; a/4 only loses what the quotient flushes anyway).
        let big = self.one_ty(
            MInst::build(
                Op::FSETP_I,
                &[
                    Operand::Pred(Pred::p(0)),
                    Operand::Pred(Pred::TRUE),
                    R,
                    Operand::F32(0x7e80_0000),
                    Operand::Pred(Pred::TRUE),
                ],
            )
            .t(FCmp::Gt)?
            .m(ModKind::Ftz, 1)
            .m(ModKind::Abs(2), 1),
            &[Res(0, 0), Slot::Keep, Arg(0, 0)],
            &[b],
            Type::Pred,
        )?;
        let quarter = self.const32(0x3e80_0000)?;
        // 1.0 from the literal pool as SEL's constant operand, else in a register.
        let pooled = if self.opts.literal_pool {
            self.pool_slot(0x3f80_0000, false)
        } else {
            None
        };
        let k = match pooled {
            Some(unit) => self.one(
                MInst::build(Op::SEL_C, &[R, R, unit, Operand::Pred(Pred::TRUE)]),
                &[Res(0, 0), Arg(0, 0), Slot::Keep, Arg(1, 0)],
                &[quarter, big],
            )?,
            None => {
                let unit = self.const32(0x3f80_0000)?;
                self.one(
                    MInst::sel(R, R, R, Pred::TRUE),
                    &[Res(0, 0), Arg(0, 0), Arg(1, 0), Arg(2, 0)],
                    &[quarter, unit, big],
                )?
            }
        };
        let a = self.bin(Op::FMUL_R, a, k, &fmz_ftz)?;
        let b = self.bin(Op::FMUL_R, b, k, &fmz_ftz)?;
        // q = a * rcp(b): MUFU.RCP is within 1 ulp, the product within 2 (the IR's
        // bound for `fdiv`, PTX's for div.approx; AMD IL states none and its hardware
        // divides the same way). A Newton step would cost four more instructions.
        let r = self.mufu(Mufu::Rcp, b)?;
        self.bin(Op::FMUL_R, a, r, &fmz_ftz)
    }

    /// `x - floor(x)`, at most the largest f32 below 1, NaN kept.
    fn ffract(&mut self, x: Value) -> R32 {
        let f = self.f2f(DType::F32, SType::F32, Rnd::Floor, x, Type::B32)?;
        let t = self.one(
            MInst::fadd(R, R, R)
                .m(ModKind::Ftz, 1)
                .m(ModKind::Neg(2), 1),
            &[Res(0, 0), Arg(0, 0), Arg(1, 0)],
            &[x, f],
        )?;
        let c = self.const32(0x3f7f_ffff)?;
        let m = self.one(
            MInst::build(Op::FMNMX_R, &[R, R, R, Operand::Pred(Pred::TRUE)]).m(ModKind::Ftz, 1),
            &[Res(0, 0), Arg(0, 0), Arg(1, 0)],
            &[t, c],
        )?;
        let nan = self.one_ty(
            MInst::build(
                Op::FSETP_R,
                &[
                    Operand::Pred(Pred::p(0)),
                    Operand::Pred(Pred::TRUE),
                    R,
                    R,
                    Operand::Pred(Pred::TRUE),
                ],
            )
            .t(FCmp::Nan)?,
            &[Res(0, 0), Slot::Keep, Arg(0, 0), Arg(1, 0)],
            &[t, t],
            Type::Pred,
        )?;
        self.one(
            MInst::sel(R, R, R, Pred::TRUE),
            &[Res(0, 0), Arg(0, 0), Arg(1, 0), Arg(2, 0)],
            &[t, m, nan],
        )
    }

    /// `(negb ? -b : b) * a + (negc ? -c : c)`, one rounding; `fmz` is `Ftz` (IEEE
    /// products) or `Fmz` (the legacy rule).
    /// Each operand without an `fneg` it is (and whether it was).
    fn fneg_operands(&self, args: [Value; 3]) -> ([Value; 3], [bool; 3]) {
        let strip = |v: Value| match self.func.dfg.value_inst(v).map(|i| &self.func.dfg.insts[i]) {
            Some(InstructionData::Unary {
                opcode: Opcode::Fneg,
                args: [x],
            }) => (*x, true),
            _ => (v, false),
        };
        let [(a, na), (b, nb), (c, nc)] = args.map(strip);
        ([a, b, c], [na, nb, nc])
    }

    fn ffma(&mut self, a: Value, b: Value, c: Value, negb: bool, negc: bool, fmz: Fmz) -> R32 {
        // A constant multiplier with a short f32 encoding is the immediate (FFMA_I, the sign
        // of a negated one folded in); a constant-buffer read or another constant becomes the
        // instruction's c[] operand: as the multiplier (FFMA_C; the product commutes) or as
        // the addend (FFMA_RC).
        let (a, b) = if !self.const_like(b) && self.const_like(a) {
            (b, a)
        } else {
            (a, b)
        };
        if let Some(k) = self.konst(b).map(|k| k as u32) {
            let k = if negb { k ^ 0x8000_0000 } else { k };
            if short_f32(k) {
                let inst = MInst::build(Op::FFMA_I, &[R, R, Operand::F32(k), R]);
                let inst = inst.t(fmz)?.f(ModKind::Neg(3), negc as u8)?;
                return self.one(
                    inst,
                    &[Res(0, 0), Arg(0, 0), Slot::Keep, Arg(1, 0)],
                    &[a, c],
                );
            }
        }
        let mods = |i: MInst| {
            i.t(fmz)?
                .f(ModKind::Neg(2), negb as u8)?
                .f(ModKind::Neg(3), negc as u8)
        };
        self.emit_legal(
            &[SrcForms::of(Op::FFMA_R, 2), SrcForms::of(Op::FFMA_R, 3)],
            &[Enc::CBank],
            &[R; 4],
            &mods,
            &[Res(0, 0), Arg(0, 0), Arg(1, 0), Arg(2, 0)],
            &[a, b, c],
            Type::B32,
        )
    }

    pub(crate) fn mufu(&mut self, op: Mufu, a: Value) -> R32 {
        self.one(MInst::mufu(op, R, R), &[Res(0, 0), Arg(0, 0)], &[a])
    }
}

/// FSETP/DSETP condition.
pub fn fcc(cc: FloatCC) -> FCmp {
    match cc {
        FloatCC::Oeq => FCmp::Eq,
        FloatCC::One => FCmp::Ne,
        FloatCC::Olt => FCmp::Lt,
        FloatCC::Ole => FCmp::Le,
        FloatCC::Ogt => FCmp::Gt,
        FloatCC::Oge => FCmp::Ge,
        FloatCC::Ueq => FCmp::Equ,
        FloatCC::Une => FCmp::Neu,
        FloatCC::Ult => FCmp::Ltu,
        FloatCC::Ule => FCmp::Leu,
        FloatCC::Ugt => FCmp::Gtu,
        FloatCC::Uge => FCmp::Geu,
        FloatCC::Ord => FCmp::Num,
        FloatCC::Uno => FCmp::Nan,
    }
}
