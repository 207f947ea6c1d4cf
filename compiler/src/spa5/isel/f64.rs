//! Instruction selection of the f64 family: `DADD`/`DMUL`/`DFMA` (a constant-buffer pair or
//! a pooled constant as the `c[]` operand), `DMNMX`, `DSETP`, sign operations on the high
//! word, rounding through `F2F.F64`, and double-precision division, reciprocal and square
//! roots. SM50 has no instruction for the last three,
//! only `MUFU.RCP64H`/`MUFU.RSQ64H` (an approximation from the high word of a double), so
//! they are Newton-Raphson sequences on `DFMA`, as ptxas builds them.
//!
//! - `a / b`: `r ~ 1/b` from `RCP64H`, refined twice (`t = 1 - b*r`, `t = t + t*t`,
//!   `r = r + r*t`, then once more), `q = a*r`, and one correction on the exact residual
//!   `q + r*(a - b*q)`: correctly rounded wherever `1/b` and the quotient are normal.
//! - `sqrt(x)`: `y ~ 1/sqrt(x)` from `RSQ64H`, refined twice (`y = y + y*(1/2 - x/2*y*y)`),
//!   `s = x*y`, then `s + (x - s*s)*y/2`.
//!
//! Operands far from 1 are first scaled by a power of two (`|b| < 2^-900` or `> 2^900`
//! for a quotient, `|x| < 2^-900` for a root) so the approximations stay normal. The range
//! tests compare with `DSETP`'s 20-bit immediate, and a factor is a `SEL` of its high word
//! beside a zero low word (no 64-bit constants in registers).
//! Special operands (zeros, infinities, NaN, and a zero dividend whose sign the refinement
//! would lose) make the refined value NaN or are tested directly; the result then comes from
//! the IEEE rule the unrefined value already obeys (`a * rcp(b)`: `x/0 = inf`, `x/inf = 0`,
//! `0/0 = inf/inf = NaN`; `sqrt(+-0) = +-0`, `sqrt(inf) = inf`, `sqrt(x<0) = NaN`).
//! Requires nothing; guarantees IEEE results for normal inputs and results. Known limit
//! (documented, covered by the ulp tolerance of `ilc --verify`): when `1/b` or the quotient is
//! subnormal, or `b` is a subnormal whose high word is zero, the result may be off by a few
//! units in the last place (ptxas branches to a slow path there).

use ilc_passes::ir::{InstructionData, Opcode, Type, Value};
use isa_spa5::inst::Operand;
use isa_spa5::mods::{DType, FCmp, Lop, Mufu, Rnd, SType};
use isa_spa5::{Inst as MInst, ModKind, Op, Pred, Reg};

use super::float::fcc;
use super::legalize::{no_mods, Enc, SrcForms};
use super::{one, Isel, IselError, Node, Vals};
use crate::spa5::target::{SetMod, Slot, TInst, Template, R};

use Slot::{Arg, Res};

const ONE: u64 = 0x3ff0_0000_0000_0000;
const HALF: u64 = 0x3fe0_0000_0000_0000;
const NAN: u64 = 0x7fff_ffff_ffff_ffff;
/// 2^900, 2^-900, 2^1000, 2^-500.
const P_900: u64 = (1023 + 900) << 52;
const P_M900: u64 = (1023 - 900) << 52;
const P_1000: u64 = (1023 + 1000) << 52;
const P_M500: u64 = (1023 - 500) << 52;

impl Isel<'_> {
    /// Selects an f64-family instruction (see [`super::family`]).
    pub(super) fn select_f64(&mut self, n: &Node) -> Result<Vals, IselError> {
        let (inst, data, op, args) = (n.inst, &n.data, n.op, &n.args);
        match op {
            Opcode::Dcmp => {
                let InstructionData::FloatCompare { cond, .. } = data else {
                    return Err(self.unsupported(inst, "dcmp form"));
                };
                one(self.dsetp(fcc(*cond), args[0], args[1])?)
            }
            Opcode::Dadd | Opcode::Dsub | Opcode::Dmul => {
                let r = if op == Opcode::Dmul {
                    Op::DMUL_R
                } else {
                    Op::DADD_R
                };
                // A constant-buffer pair or a constant as the c[] operand (second; the
                // commutative ops take it from either side).
                let (a, b) = if op != Opcode::Dsub
                    && !self.const_like64(args[1])
                    && self.const_like64(args[0])
                {
                    (args[1], args[0])
                } else {
                    (args[0], args[1])
                };
                let sub = op == Opcode::Dsub;
                let neg = |i: MInst| if sub { i.f(ModKind::Neg(2), 1) } else { Ok(i) };
                one(self.emit_legal(
                    &[SrcForms::of(r, 2)],
                    &[Enc::CBank],
                    &[R; 3],
                    &neg,
                    &[Res(0, 0), Arg(0, 0), Arg(1, 0)],
                    &[a, b],
                    Type::B64,
                )?)
            }
            Opcode::Dfma => {
                let (a, b, c) = if !self.const_like64(args[1]) && self.const_like64(args[0]) {
                    (args[1], args[0], args[2])
                } else {
                    (args[0], args[1], args[2])
                };
                one(self.emit_legal(
                    &[SrcForms::of(Op::DFMA_R, 2), SrcForms::of(Op::DFMA_R, 3)],
                    &[Enc::CBank],
                    &[R; 4],
                    &no_mods,
                    &[Res(0, 0), Arg(0, 0), Arg(1, 0), Arg(2, 0)],
                    &[a, b, c],
                    Type::B64,
                )?)
            }
            Opcode::Ddiv => one(self.ddiv(args[0], args[1])?),
            Opcode::DdivNormal => one(self.ddiv_normal(args[0], args[1])?),
            Opcode::Drcp => {
                let one_v = self.const64(ONE)?;
                one(self.ddiv(one_v, args[0])?)
            }
            Opcode::Dsqrt => one(self.dsqrt(args[0])?),
            Opcode::Drsq => {
                // The reference evaluates `1 / sqrt(x)` with two roundings: so does this.
                let s = self.dsqrt(args[0])?;
                let one_v = self.const64(ONE)?;
                one(self.ddiv(one_v, s)?)
            }
            Opcode::Dmin | Opcode::Dmax => {
                let p = if op == Opcode::Dmin {
                    Pred::TRUE
                } else {
                    Pred::FALSE
                };
                let i = MInst::build(Op::DMNMX_R, &[R, R, R, Operand::Pred(p)]);
                one(self.one_ty(i, &[Res(0, 0), Arg(0, 0), Arg(1, 0)], args, Type::B64)?)
            }
            Opcode::Dneg | Opcode::Dabs => {
                let (name, k) = if op == Opcode::Dneg {
                    (Lop::Xor, 0x8000_0000)
                } else {
                    (Lop::And, 0x7fff_ffff)
                };
                let t = Template::many(&[
                    TInst::new(MInst::mov(R, R), &[Res(0, 0), Arg(0, 0)]),
                    TInst::new(MInst::lop32i(name, R, R, k), &[Res(0, 1), Arg(0, 1)]),
                ]);
                Ok(self.emit(t, args, &[Type::B64])?)
            }
            Opcode::Dfloor | Opcode::Dceil | Opcode::Dtrunc | Opcode::DroundEven => {
                let rnd = match op {
                    Opcode::Dfloor => Rnd::Floor,
                    Opcode::Dceil => Rnd::Ceil,
                    Opcode::Dtrunc => Rnd::Trunc,
                    _ => Rnd::Round,
                };
                one(self.f2f(DType::F64, SType::F64, rnd, args[0], Type::B64)?)
            }
            _ => Err(self.unsupported(inst, op.mnemonic())),
        }
    }

    /// A 64-bit constant.
    pub(crate) fn const64(&mut self, bits: u64) -> Result<Value, IselError> {
        let t = Template::many(&[
            TInst::new(MInst::mov32i(R, bits as u32), &[Res(0, 0)]),
            TInst::new(MInst::mov32i(R, (bits >> 32) as u32), &[Res(0, 1)]),
        ]);
        Ok(self.emit(t, &[], &[Type::B64])?[0])
    }

    /// `(negab ? -(a*b) : a*b) + c`, one rounding.
    fn dfma(&mut self, a: Value, b: Value, c: Value, negab: bool) -> Result<Value, IselError> {
        let mut i = MInst::build(Op::DFMA_R, &[R, R, R, R]);
        i.set(ModKind::Neg(2), negab as u8);
        self.one_ty(
            i,
            &[Res(0, 0), Arg(0, 0), Arg(1, 0), Arg(2, 0)],
            &[a, b, c],
            Type::B64,
        )
    }

    fn dmul(&mut self, a: Value, b: Value) -> Result<Value, IselError> {
        let i = MInst::build(Op::DMUL_R, &[R, R, R]);
        self.one_ty(i, &[Res(0, 0), Arg(0, 0), Arg(1, 0)], &[a, b], Type::B64)
    }

    /// The double whose high word is `MUFU.op` of `x`'s high word and whose low word is `lo`.
    fn mufu64(&mut self, op: Mufu, x: Value, lo: u32) -> Result<Value, IselError> {
        let t = Template::many(&[
            TInst::new(MInst::mov32i(R, lo), &[Res(0, 0)]),
            TInst::new(MInst::mufu(op, R, R), &[Res(0, 1), Arg(0, 1)]),
        ]);
        Ok(self.emit(t, &[x], &[Type::B64])?[0])
    }

    /// `DSETP.cmp p, PT, a, b, PT`.
    fn dsetp(&mut self, cmp: FCmp, a: Value, b: Value) -> Result<Value, IselError> {
        let i = dsetp_r(cmp)?;
        self.one_ty(
            i,
            &[Res(0, 0), Slot::Keep, Arg(0, 0), Arg(1, 0)],
            &[a, b],
            Type::Pred,
        )
    }

    /// `p ? a : b` on doubles.
    fn dsel(&mut self, p: Value, a: Value, b: Value) -> Result<Value, IselError> {
        let seq: Vec<TInst> = (0..2)
            .map(|k| {
                TInst::new(
                    MInst::sel(R, R, R, Pred::TRUE),
                    &[Res(0, k), Arg(1, k), Arg(2, k), Arg(0, 0)],
                )
            })
            .collect();
        Ok(self.emit(Template::many(&seq), &[p, a, b], &[Type::B64])?[0])
    }

    /// IEEE `a / b` (see the module doc).
    pub(crate) fn ddiv(&mut self, a: Value, b: Value) -> Result<Value, IselError> {
        // Scale both operands by a power of two when |b| is far from 1, so that 1/b and its
        // refinement stay normal (exact, and the quotient is unchanged). The factors' low
        // words are zero: only their high words are selected.
        let one = self.const64(ONE)?;
        let tiny_hi = self.const32((P_M900 >> 32) as u32)?;
        let huge_hi = self.const32((P_900 >> 32) as u32)?;
        let small = self.dsetp_imm(FCmp::Lt, b, P_M900, true, None)?;
        let big = self.dsetp_imm(FCmp::Gt, b, P_900, true, None)?;
        let down = self.one(
            MInst::sel(R, R, R, Pred::TRUE),
            &[Res(0, 0), Arg(0, 0), Arg(1, 1), Arg(2, 0)],
            &[tiny_hi, one, big],
        )?;
        let k = self.pow2_pair(small, huge_hi, down, 0)?;
        let a = self.dmul(a, k)?;
        let b = self.dmul(b, k)?;
        // A tiny dividend would make the residual a - b*q underflow: scale it up and the
        // quotient back down (exact unless the quotient is subnormal).
        let a_small = self.dsetp_imm(FCmp::Lt, a, P_M900, true, None)?;
        let ka = self.pow2_pair(a_small, huge_hi, one, 1)?;
        let kq = self.pow2_pair(a_small, tiny_hi, one, 1)?;
        let a_s = self.dmul(a, ka)?;
        let q = self.ddiv_newton(a_s, b, one)?;
        let q = self.dmul(q, kq)?;
        // Special operands (a zero dividend, a zero, infinite or NaN divisor) take `a` times
        // the plain reciprocal estimate: its low word must be zero, or 1/0 would be a NaN.
        let r0 = self.mufu64(Mufu::Rcp64h, b, 0)?;
        let plain = self.dmul(a, r0)?;
        let nz = self.dsetp_imm(FCmp::Neu, a, 0, false, None)?;
        let ok = self.dsetp_imm(FCmp::Num, q, 0, false, Some(nz))?;
        self.dsel(ok, q, plain)
    }

    /// `a / b` for magnitudes in [2^-500, 2^500) (`ddiv_normal`): there the reciprocal and
    /// the quotient are normal and finite, and [`Isel::ddiv`]'s scale factors are all 1 and its
    /// fix-ups keep the Newton quotient, so this is that sequence without them (the same bits).
    pub(crate) fn ddiv_normal(&mut self, a: Value, b: Value) -> Result<Value, IselError> {
        let one = self.const64(ONE)?;
        self.ddiv_newton(a, b, one)
    }

    /// The Newton-Raphson quotient `a / b` from `RCP64H` (two reciprocal refinements and one
    /// residual correction), as ptxas's `div.rn.f64` fast path. The estimate's low word is 1,
    /// as there: with a zero low word, a divisor whose significand is all ones (`2 - 2^-52`)
    /// has the estimate exactly 0.5, each refinement lands on the rounding midpoint
    /// `0.5 + 2^-54` and ties back to 0.5, and the quotient is then one ulp low.
    fn ddiv_newton(&mut self, a: Value, b: Value, one: Value) -> Result<Value, IselError> {
        let r0 = self.mufu64(Mufu::Rcp64h, b, 1)?;
        let t = self.dfma(b, r0, one, true)?;
        let t = self.dfma(t, t, t, false)?;
        let r = self.dfma(r0, t, r0, false)?;
        let t = self.dfma(b, r, one, true)?;
        let r = self.dfma(r, t, r, false)?;
        let q = self.dmul(a, r)?;
        let e = self.dfma(b, q, a, true)?;
        self.dfma(r, e, q, false)
    }

    /// The double with low word zero and high word `p ? x : y` (`y` a `b32` value, or the
    /// word `part` of a `b64` one).
    fn pow2_pair(&mut self, p: Value, x: Value, y: Value, part: u8) -> Result<Value, IselError> {
        let t = Template::many(&[
            TInst::new(MInst::mov(R, Reg::RZ), &[Res(0, 0)]),
            TInst::new(
                MInst::sel(R, R, R, Pred::TRUE),
                &[Res(0, 1), Arg(0, 0), Arg(1, part), Arg(2, 0)],
            ),
        ]);
        Ok(self.emit(t, &[x, y, p], &[Type::B64])?[0])
    }

    /// `DSETP.cmp p, PT, x, imm, c` (`|x|` if `abs`): `imm` a double whose low 44 bits are
    /// zero (the 20-bit immediate holds its top); `Num`/`Nan` test `x` against itself instead.
    /// The result is ANDed with predicate `and` when given.
    fn dsetp_imm(
        &mut self,
        cmp: FCmp,
        x: Value,
        imm: u64,
        abs: bool,
        and: Option<Value>,
    ) -> Result<Value, IselError> {
        let c_slot = if and.is_some() { Arg(1, 0) } else { Slot::Keep };
        let mut args = vec![x];
        args.extend(and);
        if matches!(cmp, FCmp::Num | FCmp::Nan) {
            let i = dsetp_r(cmp)?;
            return self.one_ty(
                i,
                &[Res(0, 0), Slot::Keep, Arg(0, 0), Arg(0, 0), c_slot],
                &args,
                Type::Pred,
            );
        }
        debug_assert_eq!(imm & ((1 << 44) - 1), 0, "a 20-bit double immediate");
        let i = MInst::build(
            Op::DSETP_I,
            &[
                Operand::Pred(Pred::p(0)),
                Operand::Pred(Pred::TRUE),
                R,
                Operand::F64(imm),
                Operand::Pred(Pred::TRUE),
            ],
        )
        .t(cmp)?
        .m(ModKind::Abs(2), abs as u8);
        self.one_ty(
            i,
            &[Res(0, 0), Slot::Keep, Arg(0, 0), Slot::Keep, c_slot],
            &args,
            Type::Pred,
        )
    }

    /// IEEE `sqrt(x)` (see the module doc).
    pub(crate) fn dsqrt(&mut self, x0: Value) -> Result<Value, IselError> {
        // A tiny x is scaled by 2^1000 (its root then by 2^-500, exactly) so that RSQ64H
        // sees a normal high word.
        let small = self.dsetp_imm(FCmp::Lt, x0, P_M900, true, None)?;
        let one = self.const64(ONE)?;
        let up = self.const32((P_1000 >> 32) as u32)?;
        let k = self.pow2_pair(small, up, one, 1)?;
        let x = self.dmul(x0, k)?;
        let back = self.const32((P_M500 >> 32) as u32)?;
        let kb = self.pow2_pair(small, back, one, 1)?;
        let half = self.const64(HALF)?;
        let y = self.mufu64(Mufu::Rsq64h, x, 0)?;
        let h = self.dmul(x, half)?;
        let mut y = y;
        for _ in 0..2 {
            let yy = self.dmul(y, y)?;
            let e = self.dfma(h, yy, half, true)?;
            y = self.dfma(y, e, y, false)?;
        }
        let s = self.dmul(x, y)?;
        let r = self.dfma(s, s, x, true)?;
        let hy = self.dmul(y, half)?;
        let s = self.dfma(r, hy, s, false)?;
        let neg = self.dsetp_imm(FCmp::Lt, x, 0, false, None)?;
        let nan = self.const64(NAN)?;
        let special = self.dsel(neg, nan, x)?;
        let s = self.dmul(s, kb)?;
        let num = self.dsetp(FCmp::Num, s, s)?;
        self.dsel(num, s, special)
    }
}

/// `DSETP.cmp P0, PT, R, R, PT`, the register form the f64 compares start from.
fn dsetp_r(cmp: FCmp) -> Result<MInst, IselError> {
    Ok(MInst::build(
        Op::DSETP_R,
        &[
            Operand::Pred(Pred::p(0)),
            Operand::Pred(Pred::TRUE),
            R,
            R,
            Operand::Pred(Pred::TRUE),
        ],
    )
    .t(cmp)?)
}
