//! Instruction selection of the longer integer sequences: 64-bit shifts, high multiplies and
//! 32-bit division/remainder.
//!
//! - 64-bit shifts by a variable count `n` (masked to 6 bits) combine 32-bit shifts whose
//!   counts may leave 0..31: Maxwell's `SHL`/`SHR` without `.W` clamp such counts (a logical
//!   shift then gives 0), so e.g. `hi' = hi << n | lo >> (32 - n) | lo << (n - 32)` is right
//!   for every `n` without a branch; the arithmetic right shift selects its low word.
//! - `umulhi` is built from the four 16x16 XMAD partial products with explicit carries;
//!   `imulhi` corrects it by the operands' signs.
//! - `udiv`/`urem`: an f32 reciprocal estimate scaled to 2^32, one integer Newton step,
//!   `q = umulhi(x, z)`, then two conditional corrections (exact for all 32-bit inputs, the
//!   well-known AMDGPU/NVIDIA expansion); division by zero is patched to all ones as the IR
//!   requires. Signed forms divide magnitudes and fix the signs (`MIN / -1 = MIN`).
//!
//! Requires and guarantees as [`super::isel`]: results match `ilc_passes::eval` exactly.

use ilc_passes::ir::{Type, Value};
use isa_spa5::inst::Operand;
use isa_spa5::{Inst as MInst, ModKind, Op, Pred};
use smallvec::SmallVec;

use super::isel::{Isel, IselError};
use super::target::{SetMod, Slot, TInst, Template, R};

use Slot::{Arg, Res};

type R32 = Result<Value, IselError>;

impl Isel<'_> {
    fn part(&mut self, v: Value, hi: bool) -> R32 {
        self.one(MInst::mov(R, R), &[Res(0, 0), Arg(0, u8::from(hi))], &[v])
    }

    fn pair(&mut self, lo: Value, hi: Value) -> Result<SmallVec<[Value; 4]>, IselError> {
        let t = Template::many(&[
            TInst::new(MInst::mov(R, R), &[Res(0, 0), Arg(0, 0)]),
            TInst::new(MInst::mov(R, R), &[Res(0, 1), Arg(1, 0)]),
        ]);
        self.emit(t, &[lo, hi], &[Type::B64])
    }

    /// Clamping shift (`count >= 32` gives 0, or the sign for arithmetic right shifts).
    fn sh(&mut self, left: bool, signed: bool, a: Value, n: Value) -> R32 {
        let op = if left { Op::SHL_R } else { Op::SHR_R };
        let i = MInst::build(op, &[Operand::Reg(R), Operand::Reg(R), Operand::Reg(R)])
            .m(ModKind::Signed, u8::from(signed));
        self.one(i, &[Res(0, 0), Arg(0, 0), Arg(1, 0)], &[a, n])
    }

    pub(crate) fn sh_imm(&mut self, left: bool, signed: bool, a: Value, n: u32) -> R32 {
        let op = if left { Op::SHL_I } else { Op::SHR_I };
        let i = MInst::build(
            op,
            &[Operand::Reg(R), Operand::Reg(R), Operand::Imm(i64::from(n))],
        )
        .m(ModKind::Signed, u8::from(signed));
        self.one(i, &[Res(0, 0), Arg(0, 0)], &[a])
    }

    fn add(&mut self, a: Value, b: Value, neg_a: bool, neg_b: bool) -> R32 {
        let i = MInst::iadd(R, R, R)
            .m(ModKind::Neg(1), u8::from(neg_a))
            .m(ModKind::Neg(2), u8::from(neg_b));
        self.one(i, &[Res(0, 0), Arg(0, 0), Arg(1, 0)], &[a, b])
    }

    fn add_imm(&mut self, a: Value, k: i32, neg_a: bool) -> R32 {
        let i = MInst::iadd32i(R, R, k);
        if neg_a {
            let z = self.const32(k as u32)?;
            return self.add(a, z, true, false);
        }
        self.one(i, &[Res(0, 0), Arg(0, 0)], &[a])
    }

    fn lop(&mut self, op: &str, a: Value, b: Value) -> R32 {
        self.one(
            MInst::lop(op, R, R, R),
            &[Slot::Keep, Res(0, 0), Arg(0, 0), Arg(1, 0)],
            &[a, b],
        )
    }

    fn and_imm(&mut self, a: Value, k: u32) -> R32 {
        self.one(MInst::lop32i("AND", R, R, k), &[Res(0, 0), Arg(0, 0)], &[a])
    }

    fn setp(&mut self, cmp: &str, signed: bool, a: Value, b: Value) -> R32 {
        let i = MInst::isetp(cmp, isa_spa5::PredReg(0), R, R).m(ModKind::Signed, u8::from(signed));
        let t = Template::one(TInst::new(
            i,
            &[Res(0, 0), Slot::Keep, Arg(0, 0), Arg(1, 0)],
        ));
        Ok(self.emit(t, &[a, b], &[Type::Pred])?[0])
    }

    /// `p ? a : b`.
    fn sel(&mut self, p: Value, a: Value, b: Value) -> R32 {
        self.one(
            MInst::sel(R, R, R, Pred::TRUE),
            &[Res(0, 0), Arg(0, 0), Arg(1, 0), Arg(2, 0)],
            &[a, b, p],
        )
    }

    /// `XMAD d, a(.H1), b(.H1), RZ`: a 16x16 unsigned product.
    fn mul16(&mut self, a: Value, ah: bool, b: Value, bh: bool) -> R32 {
        let i = MInst::xmad(R, R, R, R)
            .m(ModKind::H1(1), u8::from(ah))
            .m(ModKind::H1(2), u8::from(bh));
        self.one(i, &[Res(0, 0), Arg(0, 0), Arg(1, 0)], &[a, b])
    }

    /// 64-bit shift of `a` by `n` (masked to 6 bits).
    pub(crate) fn shift64(
        &mut self,
        left: bool,
        signed: bool,
        a: Value,
        n: Value,
    ) -> Result<SmallVec<[Value; 4]>, IselError> {
        let n = self.and_imm(n, 63)?;
        let lo = self.part(a, false)?;
        let hi = self.part(a, true)?;
        let c32 = self.const32(32)?;
        let inv = self.add(n, c32, true, false)?; // 32 - n
        let over = self.add_imm(n, -32, false)?; // n - 32
        if left {
            let nlo = self.sh(true, false, lo, n)?;
            let a1 = self.sh(true, false, hi, n)?;
            let a2 = self.sh(false, false, lo, inv)?;
            let a3 = self.sh(true, false, lo, over)?;
            let h = self.lop("OR", a1, a2)?;
            let nhi = self.lop("OR", h, a3)?;
            return self.pair(nlo, nhi);
        }
        let nhi = self.sh(false, signed, hi, n)?;
        let b1 = self.sh(false, false, lo, n)?;
        let b2 = self.sh(true, false, hi, inv)?;
        let small = self.lop("OR", b1, b2)?;
        let big = self.sh(false, signed, hi, over)?;
        let ge = self.setp("GE", false, n, c32)?;
        let nlo = self.sel(ge, big, small)?;
        self.pair(nlo, nhi)
    }

    /// High 32 bits of the unsigned 64-bit product.
    pub(crate) fn umulhi(&mut self, a: Value, b: Value) -> R32 {
        let p00 = self.mul16(a, false, b, false)?;
        let p01 = self.mul16(a, false, b, true)?;
        let p10 = self.mul16(a, true, b, false)?;
        let p11 = self.mul16(a, true, b, true)?;
        let t1 = self.sh_imm(false, false, p00, 16)?;
        let t2 = self.and_imm(p01, 0xffff)?;
        let t3 = self.and_imm(p10, 0xffff)?;
        let m = self.add(t1, t2, false, false)?;
        let m = self.add(m, t3, false, false)?;
        let c = self.sh_imm(false, false, m, 16)?;
        let s1 = self.sh_imm(false, false, p01, 16)?;
        let s2 = self.sh_imm(false, false, p10, 16)?;
        let h = self.add(p11, s1, false, false)?;
        let h = self.add(h, s2, false, false)?;
        self.add(h, c, false, false)
    }

    /// High 32 bits of the signed 64-bit product.
    pub(crate) fn imulhi(&mut self, a: Value, b: Value) -> R32 {
        let h = self.umulhi(a, b)?;
        let sa = self.sh_imm(false, true, a, 31)?;
        let sb = self.sh_imm(false, true, b, 31)?;
        let ca = self.lop("AND", sa, b)?;
        let cb = self.lop("AND", sb, a)?;
        let h = self.add(h, ca, false, true)?;
        self.add(h, cb, false, true)
    }

    /// Unsigned quotient and remainder (both all ones when `y == 0`).
    pub(crate) fn udivrem(&mut self, x: Value, y: Value) -> Result<(Value, Value), IselError> {
        let fy = self.one(
            MInst::build(Op::I2F_R, &[Operand::Reg(R), Operand::Reg(R)])
                .mn(ModKind::DType, "F32")
                .mn(ModKind::SType, "U32"),
            &[Res(0, 0), Arg(0, 0)],
            &[y],
        )?;
        let r = self.one(MInst::mufu("RCP", R, R), &[Res(0, 0), Arg(0, 0)], &[fy])?;
        let k = self.const32(0x4f7f_fffe)?; // 4294966784.0
        let s = self.one(
            MInst::fmul(R, R, R),
            &[Res(0, 0), Arg(0, 0), Arg(1, 0)],
            &[r, k],
        )?;
        let z = self.one(
            MInst::build(Op::F2I_R, &[Operand::Reg(R), Operand::Reg(R)])
                .mn(ModKind::DType, "U32")
                .mn(ModKind::SType, "F32")
                .mn(ModKind::Rnd, "TRUNC"),
            &[Res(0, 0), Arg(0, 0)],
            &[s],
        )?;
        let zero = self.const32(0)?;
        let ny = self.add(zero, y, false, true)?;
        let nyz = self.imul32(ny, z)?;
        let corr = self.umulhi(z, nyz)?;
        let z = self.add(z, corr, false, false)?;
        let q = self.umulhi(x, z)?;
        let qy = self.imul32(q, y)?;
        let mut q = q;
        let mut r = self.add(x, qy, false, true)?;
        for _ in 0..2 {
            let ge = self.setp("GE", false, r, y)?;
            let q1 = self.add_imm(q, 1, false)?;
            let r1 = self.add(r, y, false, true)?;
            q = self.sel(ge, q1, q)?;
            r = self.sel(ge, r1, r)?;
        }
        let ones = self.const32(u32::MAX)?;
        let is0 = self.setp("EQ", false, y, zero)?;
        let q = self.sel(is0, ones, q)?;
        let r = self.sel(is0, ones, r)?;
        Ok((q, r))
    }

    /// Signed quotient and remainder with the IR's conventions.
    pub(crate) fn idivrem(&mut self, x: Value, y: Value) -> Result<(Value, Value), IselError> {
        let zero = self.const32(0)?;
        let nx = self.add(zero, x, false, true)?;
        let ny = self.add(zero, y, false, true)?;
        let xneg = self.setp("LT", true, x, zero)?;
        let yneg = self.setp("LT", true, y, zero)?;
        let ax = self.sel(xneg, nx, x)?;
        let ay = self.sel(yneg, ny, y)?;
        let (q, r) = self.udivrem(ax, ay)?;
        let sx = self.sh_imm(false, true, x, 31)?;
        let sy = self.sh_imm(false, true, y, 31)?;
        let diff = self.lop("XOR", sx, sy)?;
        let dneg = self.setp("NE", false, diff, zero)?;
        let nq = self.add(zero, q, false, true)?;
        let nr = self.add(zero, r, false, true)?;
        let q = self.sel(dneg, nq, q)?;
        let r = self.sel(xneg, nr, r)?;
        let ones = self.const32(u32::MAX)?;
        let is0 = self.setp("EQ", false, y, zero)?;
        let q = self.sel(is0, ones, q)?;
        let r = self.sel(is0, ones, r)?;
        Ok((q, r))
    }
}

#[cfg(test)]
mod tests {
    //! Models of the emitted sequences in plain Rust, instruction by instruction (with
    //! Maxwell's clamping shifts and a reciprocal one ulp off), checked against exact
    //! arithmetic on edge cases and pseudo-random inputs.

    fn shl(a: u32, n: u32) -> u32 {
        if n >= 32 {
            0
        } else {
            a << n
        }
    }
    fn shr(a: u32, n: u32) -> u32 {
        if n >= 32 {
            0
        } else {
            a >> n
        }
    }
    fn sar(a: u32, n: u32) -> u32 {
        ((a as i32) >> n.min(31)) as u32
    }
    fn x16(a: u32, ah: bool, b: u32, bh: bool) -> u32 {
        let a = if ah { a >> 16 } else { a & 0xffff };
        let b = if bh { b >> 16 } else { b & 0xffff };
        a * b
    }
    fn umulhi(a: u32, b: u32) -> u32 {
        let (p00, p01, p10, p11) = (
            x16(a, false, b, false),
            x16(a, false, b, true),
            x16(a, true, b, false),
            x16(a, true, b, true),
        );
        let m = (p00 >> 16) + (p01 & 0xffff) + (p10 & 0xffff);
        p11.wrapping_add(p01 >> 16)
            .wrapping_add(p10 >> 16)
            .wrapping_add(m >> 16)
    }
    fn udivrem(x: u32, y: u32, rcp_ulp: i32) -> (u32, u32) {
        // A reciprocal within 1 ulp of the true value: the f32 just below or just above 1/y.
        let exact = 1.0f64 / f64::from(y as f32);
        let rn = exact as f32;
        let r = match rcp_ulp {
            -1 if f64::from(rn) > exact => f32::from_bits(rn.to_bits() - 1),
            1 if f64::from(rn) < exact => f32::from_bits(rn.to_bits() + 1),
            _ => rn,
        };
        let s = r * f32::from_bits(0x4f7f_fffe);
        let z = if s.is_nan() {
            0
        } else if s >= 4294967296.0 {
            u32::MAX
        } else {
            s as u32
        };
        let nyz = 0u32.wrapping_sub(y).wrapping_mul(z);
        let z = z.wrapping_add(umulhi(z, nyz));
        let mut q = umulhi(x, z);
        let mut r = x.wrapping_sub(q.wrapping_mul(y));
        for _ in 0..2 {
            if r >= y {
                q = q.wrapping_add(1);
                r = r.wrapping_sub(y);
            }
        }
        if y == 0 {
            (u32::MAX, u32::MAX)
        } else {
            (q, r)
        }
    }
    fn shift64(left: bool, signed: bool, a: u64, n: u32) -> u64 {
        let n = n & 63;
        let (lo, hi) = (a as u32, (a >> 32) as u32);
        let inv = 32u32.wrapping_sub(n);
        let over = n.wrapping_sub(32);
        if left {
            let nhi = shl(hi, n) | shr(lo, inv) | shl(lo, over);
            return u64::from(shl(lo, n)) | u64::from(nhi) << 32;
        }
        let nhi = if signed { sar(hi, n) } else { shr(hi, n) };
        let small = shr(lo, n) | shl(hi, inv);
        let big = if signed { sar(hi, over) } else { shr(hi, over) };
        let nlo = if n >= 32 { big } else { small };
        u64::from(nlo) | u64::from(nhi) << 32
    }

    fn inputs() -> Vec<u32> {
        let mut v = vec![
            0,
            1,
            2,
            3,
            7,
            0xffff,
            0x10000,
            0x7fff_ffff,
            0x8000_0000,
            0x8000_0001,
            u32::MAX,
            u32::MAX - 1,
        ];
        let mut s = 0x1234_5678_9abc_def0u64;
        for _ in 0..300 {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            v.push((s >> 16) as u32 >> (s % 32));
        }
        v
    }

    #[test]
    fn umulhi_model_is_exact() {
        for &a in &inputs() {
            for &b in &inputs() {
                assert_eq!(
                    umulhi(a, b),
                    ((u64::from(a) * u64::from(b)) >> 32) as u32,
                    "{a:#x} {b:#x}"
                );
            }
        }
    }

    #[test]
    fn udiv_model_is_exact_with_a_one_ulp_reciprocal() {
        for ulp in [-1, 0, 1] {
            for &x in &inputs() {
                for &y in &inputs() {
                    let want = x
                        .checked_div(y)
                        .zip(x.checked_rem(y))
                        .unwrap_or((u32::MAX, u32::MAX));
                    assert_eq!(
                        udivrem(x, y, ulp),
                        want,
                        "{x:#x} / {y:#x} (rcp {ulp:+} ulp)"
                    );
                }
            }
        }
    }

    #[test]
    fn shift64_model_matches_masked_shifts() {
        let vals = [
            0u64,
            1,
            0x8000_0000_0000_0000,
            0xdead_beef_0123_4567,
            u64::MAX,
            0x0000_0001_8000_0000,
        ];
        for &a in &vals {
            for n in 0..70u32 {
                let m = n & 63;
                assert_eq!(shift64(true, false, a, n), a << m, "shl {a:#x} {n}");
                assert_eq!(shift64(false, false, a, n), a >> m, "ushr {a:#x} {n}");
                assert_eq!(
                    shift64(false, true, a, n),
                    ((a as i64) >> m) as u64,
                    "ishr {a:#x} {n}"
                );
            }
        }
    }
}
