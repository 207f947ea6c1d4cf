//! Exponent manipulation opcodes expanded into plain IR arithmetic, operation for operation
//! as the reference interpreter defines them (`isa_amdil::interp::{fops, dops}`), so no
//! backend needs dedicated instructions for them:
//!
//! - `ldexp` (f32): `x * 2^n` with `n` clamped to [-300, 300], rounded once, denormal
//!   results flushed. Expanded as three exact power-of-two multiplies (each factor a normal
//!   f32 `2^k`, all of the sign of `n`): every intermediate is exact while normal, and one
//!   that underflows or overflows leaves a result the single rounding would flush or
//!   overflow too.
//! - `dldexp`: the interpreter's chunked `x * 2^1000` / `x * 2^-1000` steps (at most two
//!   after clamping `n` to [-3000, 3000], beyond which every finite non-zero `x` has already
//!   reached infinity or zero), then `x * 2^n` with `|n| <= 1000`.
//! - `dfrac`: `x - floor(x)` (NaN and infinities give NaN).
//! - `tan`, `asin`, `acos`, `atan` (f32, approximate like the other transcendentals: within
//!   a few ulp away from tan's poles): `sin/cos`, and the classic single-precision minimax
//!   polynomials after range reduction (atan: `|x| > tan(3pi/8)` -> `pi/2 - atan(1/x)`,
//!   `|x| > tan(pi/8)` -> `pi/4 + atan((x-1)/(x+1))`; asin: `|x| > 1/2` ->
//!   `pi/2 - 2 asin(sqrt((1-|x|)/2))`; acos from asin), signs restored, `|x| > 1` -> NaN.
//! - `mod` (f32 `fmod`, exact while `|a/c| < 2^24`) and `lit`.
//! - `dfrexp`: `(0, e, m)` with `m` in [0.5, 1) carrying the sign of `x`; zero gives
//!   `(0, 0, x)`, infinities and NaN give exponent -1 and a NaN mantissa; denormals are first
//!   scaled by 2^64.

// The polynomial coefficients are the published single-precision minimax values, kept digit
// for digit.
#![allow(clippy::excessive_precision)]

use ilc_passes::ir::{FloatCC, IntCC, Value};

const PIO2: f32 = std::f32::consts::FRAC_PI_2;
const PIO4: f32 = std::f32::consts::FRAC_PI_4;
const PI: f32 = std::f32::consts::PI;
use isa_amdil::ast::Instruction;
use isa_amdil::Opcode;

use super::ops::Ty;
use super::{LResult, Lowerer};

impl Lowerer<'_> {
    fn fconst(&mut self, v: f32) -> Value {
        self.iconst(v.to_bits())
    }

    /// `c[0] + z*(c[1] + z*(...))` with fused multiply-adds, highest coefficient last.
    fn horner(&mut self, z: Value, coeffs: &[f32]) -> Value {
        let mut acc = self.fconst(coeffs[coeffs.len() - 1]);
        for &c in coeffs[..coeffs.len() - 1].iter().rev() {
            let k = self.fconst(c);
            acc = self.cursor().ins().ffma(acc, z, k);
        }
        acc
    }

    /// `x` with the sign bit of `s`.
    fn with_sign_of(&mut self, x: Value, s: Value) -> Value {
        let m = self.iconst(0x8000_0000);
        let sb = self.cursor().ins().band(s, m);
        let ax = self.cursor().ins().fabs(x);
        self.cursor().ins().bor(ax, sb)
    }

    /// `tan x` = `sin x / cos x`; `x` itself for |x| < 2^-10 (relative error below x^2/3,
    /// where the hardware sine of a tiny argument would flush to zero).
    pub(crate) fn tan_f32(&mut self, x: Value) -> Value {
        let s = self.cursor().ins().fsin(x);
        let c = self.cursor().ins().fcos(x);
        let q = self.cursor().ins().fdiv(s, c);
        let a = self.cursor().ins().fabs(x);
        let small = self.fconst(1.0 / 1024.0);
        let tiny = self.cursor().ins().fcmp(FloatCC::Olt, a, small);
        self.cursor().ins().select(tiny, x, q)
    }

    /// `atan x`.
    pub(crate) fn atan_f32(&mut self, x: Value) -> Value {
        let a = self.cursor().ins().fabs(x);
        let t3 = self.fconst(2.414_213_6);
        let t1 = self.fconst(0.414_213_57);
        let big = self.cursor().ins().fcmp(FloatCC::Ogt, a, t3);
        let mid = self.cursor().ins().fcmp(FloatCC::Ogt, a, t1);
        let one = self.fconst(1.0);
        let inv = self.cursor().ins().fdiv(one, a);
        let inv = self.cursor().ins().fneg(inv);
        let am1 = self.cursor().ins().fsub(a, one);
        let ap1 = self.cursor().ins().fadd(a, one);
        let q = self.cursor().ins().fdiv(am1, ap1);
        let r = self.cursor().ins().select(mid, q, a);
        let r = self.cursor().ins().select(big, inv, r);
        let zero = self.fconst(0.0);
        let pio4 = self.fconst(PIO4);
        let pio2 = self.fconst(PIO2);
        let y = self.cursor().ins().select(mid, pio4, zero);
        let y = self.cursor().ins().select(big, pio2, y);
        let z = self.cursor().ins().fmul(r, r);
        let p = self.horner(
            z,
            &[
                -3.333_294_9e-1,
                1.997_771_1e-1,
                -1.387_768_6e-1,
                8.053_744_5e-2,
            ],
        );
        let pz = self.cursor().ins().fmul(p, z);
        let t = self.cursor().ins().ffma(pz, r, r);
        let v = self.cursor().ins().fadd(y, t);
        self.with_sign_of(v, x)
    }

    /// `asin` of `a` in [0, 1/2]: the polynomial core.
    fn asin_core(&mut self, a: Value) -> Value {
        let z = self.cursor().ins().fmul(a, a);
        let p = self.horner(
            z,
            &[
                1.666_675_2e-1,
                7.495_300_3e-2,
                4.547_002_6e-2,
                2.418_131_1e-2,
                4.216_32e-2,
            ],
        );
        let pz = self.cursor().ins().fmul(p, z);
        self.cursor().ins().ffma(pz, a, a)
    }

    /// `asin x` (NaN for |x| > 1).
    pub(crate) fn asin_f32(&mut self, x: Value) -> Value {
        let (a, hi, sq) = self.half_angle(x);
        let arg = self.cursor().ins().select(hi, sq, a);
        let c = self.asin_core(arg);
        let c2 = self.cursor().ins().fadd(c, c);
        let pio2 = self.fconst(PIO2);
        let far = self.cursor().ins().fsub(pio2, c2);
        let v = self.cursor().ins().select(hi, far, c);
        let v = self.with_sign_of(v, x);
        self.nan_above_one(a, v)
    }

    /// `acos x` (NaN for |x| > 1).
    pub(crate) fn acos_f32(&mut self, x: Value) -> Value {
        // |x| > 1/2: 2 asin(sqrt((1-|x|)/2)), mirrored to pi - that for x < 0.
        let (a, hi, sq) = self.half_angle(x);
        let arg = self.cursor().ins().select(hi, sq, x);
        let c = self.asin_core_signed(arg);
        let c2 = self.cursor().ins().fadd(c, c);
        let pi = self.fconst(PI);
        let zero = self.fconst(0.0);
        let neg = self.cursor().ins().fcmp(FloatCC::Olt, x, zero);
        let mirrored = self.cursor().ins().fsub(pi, c2);
        let far = self.cursor().ins().select(neg, mirrored, c2);
        let pio2 = self.fconst(PIO2);
        let near = self.cursor().ins().fsub(pio2, c);
        let v = self.cursor().ins().select(hi, far, near);
        self.nan_above_one(a, v)
    }

    /// The range reduction of `asin`/`acos`: `|x|`, whether `|x| > 1/2`, and
    /// `sqrt((1 - |x|) / 2)` (the argument of the core for those).
    fn half_angle(&mut self, x: Value) -> (Value, Value, Value) {
        let a = self.cursor().ins().fabs(x);
        let half = self.fconst(0.5);
        let one = self.fconst(1.0);
        let hi = self.cursor().ins().fcmp(FloatCC::Ogt, a, half);
        let om = self.cursor().ins().fsub(one, a);
        let z = self.cursor().ins().fmul(om, half);
        let sq = self.cursor().ins().fsqrt(z);
        (a, hi, sq)
    }

    /// `asin_core` of `|x|` with the sign of `x` (|x| <= 1/2).
    fn asin_core_signed(&mut self, x: Value) -> Value {
        let a = self.cursor().ins().fabs(x);
        let c = self.asin_core(a);
        self.with_sign_of(c, x)
    }

    /// `v`, or NaN where `a` (an absolute value) exceeds 1 or is NaN.
    fn nan_above_one(&mut self, a: Value, v: Value) -> Value {
        let one = self.fconst(1.0);
        let ok = self.cursor().ins().fcmp(FloatCC::Ole, a, one);
        let nan = self.iconst(0x7fff_ffff);
        self.cursor().ins().select(ok, v, nan)
    }

    /// `mod a, c` (f32 `fmod`: `a - c*trunc(a/c)` with the sign of `a`; `c == 0` gives `a`):
    /// the quotient from `fdiv`, the remainder by one fused multiply-add, corrected by one
    /// step of `c` when the quotient was rounded across an integer. Exact while
    /// `|a/c| < 2^24` (beyond, the truncated quotient itself is not representable).
    pub(crate) fn fmod_f32(&mut self, a: Value, c: Value) -> Value {
        let q = self.cursor().ins().fdiv(a, c);
        let q = self.cursor().ins().ftrunc(q);
        let nq = self.cursor().ins().fneg(q);
        let r = self.cursor().ins().ffma(nq, c, a);
        let cc = self.with_sign_of(c, a);
        // r on the wrong side of zero: one step towards a's sign.
        let zero = self.fconst(0.0);
        let ra = self.cursor().ins().fmul(r, a);
        let wrong = self.cursor().ins().fcmp(FloatCC::Olt, ra, zero);
        let up = self.cursor().ins().fadd(r, cc);
        let r = self.cursor().ins().select(wrong, up, r);
        // |r| >= |c|: one step back.
        let ar = self.cursor().ins().fabs(r);
        let ac = self.cursor().ins().fabs(c);
        let over = self.cursor().ins().fcmp(FloatCC::Oge, ar, ac);
        let down = self.cursor().ins().fsub(r, cc);
        let r = self.cursor().ins().select(over, down, r);
        let r = self.with_sign_of(r, a);
        // Special divisors: 0 gives a, an infinite one gives a (for finite a).
        let inf = self.fconst(f32::INFINITY);
        let c_inf = self.cursor().ins().fcmp(FloatCC::Oeq, ac, inf);
        let aa = self.cursor().ins().fabs(a);
        let a_fin = self.cursor().ins().fcmp(FloatCC::Olt, aa, inf);
        let keep_a = self.cursor().ins().pand(c_inf, a_fin);
        let c_zero = self.cursor().ins().fcmp(FloatCC::Oeq, c, zero);
        let keep_a = self.cursor().ins().por(keep_a, c_zero);
        let a_f = self.flush(a);
        let r = self.cursor().ins().select(keep_a, a_f, r);
        // NaN results are the canonical NaN like every other float op.
        let nan = self.cursor().ins().fcmp(FloatCC::Uno, r, r);
        let qn = self.iconst(0x7fff_ffff);
        self.cursor().ins().select(nan, qn, r)
    }

    /// `lit`: `(1, max(x, 0), x > 0 && y > 0 ? pow(y, clamp(w, -128, 128)) : 0, 1)`.
    pub(crate) fn lower_lit(&mut self, st: &Instruction) -> LResult<()> {
        if !self.dst_writes(st).iter().any(|&b| b) {
            return Ok(());
        }
        let s0 = st.srcs.first().ok_or("needs source operand 0")?;
        let x = self.read_src(s0, 0, Ty::Float)?;
        let y = self.read_src(s0, 1, Ty::Float)?;
        let w = self.read_src(s0, 3, Ty::Float)?;
        let zero = self.fconst(0.0);
        let one = self.fconst(1.0);
        let mx = self.cursor().ins().fmax(x, zero);
        let lo = self.fconst(-128.0);
        let hi = self.fconst(128.0);
        // clamp keeps a NaN exponent (which makes the power NaN).
        let wc = self.cursor().ins().fmax(w, lo);
        let wc = self.cursor().ins().fmin(wc, hi);
        let wnan = self.cursor().ins().fcmp(FloatCC::Uno, w, w);
        let w = self.cursor().ins().select(wnan, w, wc);
        let lg = self.cursor().ins().flog2(y);
        let p = self.cursor().ins().fmul(w, lg);
        let pw = self.cursor().ins().fexp2(p);
        let xp = self.cursor().ins().fcmp(FloatCC::Ogt, x, zero);
        let yp = self.cursor().ins().fcmp(FloatCC::Ogt, y, zero);
        let both = self.cursor().ins().pand(xp, yp);
        let z = self.cursor().ins().select(both, pw, zero);
        self.write_dst(st, Ty::Float, [Some(one), Some(mx), Some(z), Some(one)])
    }

    /// The f32 `2^k` for `k` in [-126, 127] (a runtime value).
    fn pow2_f32(&mut self, k: Value) -> Value {
        let bias = self.iconst(127);
        let e = self.cursor().ins().iadd(k, bias);
        let sh = self.iconst(23);
        self.cursor().ins().ishl(e, sh)
    }

    /// The f64 `2^k` for `k` in [-1022, 1023].
    fn pow2_f64(&mut self, k: Value) -> Value {
        let bias = self.iconst(1023);
        let e = self.cursor().ins().iadd(k, bias);
        let sh = self.iconst(20);
        let hi = self.cursor().ins().ishl(e, sh);
        let lo = self.iconst(0);
        self.cursor().ins().concat(lo, hi)
    }

    fn clamp_i(&mut self, x: Value, lo: i32, hi: i32) -> Value {
        let l = self.iconst(lo as u32);
        let h = self.iconst(hi as u32);
        let x = self.cursor().ins().imax(x, l);
        self.cursor().ins().imin(x, h)
    }

    /// `ldexp x, n` on f32.
    pub(crate) fn ldexp_f32(&mut self, x: Value, n: Value) -> Value {
        let n = self.clamp_i(n, -300, 300);
        let mut rest = n;
        let mut v = x;
        for _ in 0..3 {
            let k = self.clamp_i(rest, -126, 127);
            rest = self.cursor().ins().isub(rest, k);
            let f = self.pow2_f32(k);
            v = self.cursor().ins().fmul(v, f);
        }
        v
    }

    /// `dldexp x, n`.
    pub(crate) fn dldexp(&mut self, x: Value, n: Value) -> Value {
        let mut n = self.clamp_i(n, -3000, 3000);
        let mut x = x;
        let up = self.cursor().ins().f64const(2f64.powi(1000));
        let down = self.cursor().ins().f64const(2f64.powi(-1000));
        let k1000 = self.iconst(1000);
        let km1000 = self.iconst((-1000i32) as u32);
        for _ in 0..2 {
            let big = self.cursor().ins().icmp(IntCC::Sgt, n, k1000);
            let small = self.cursor().ins().icmp(IntCC::Slt, n, km1000);
            let xu = self.cursor().ins().dmul(x, up);
            let xd = self.cursor().ins().dmul(x, down);
            let x1 = self.cursor().ins().select(small, xd, x);
            x = self.cursor().ins().select(big, xu, x1);
            let nu = self.cursor().ins().isub(n, k1000);
            let nd = self.cursor().ins().iadd(n, k1000);
            let n1 = self.cursor().ins().select(small, nd, n);
            n = self.cursor().ins().select(big, nu, n1);
        }
        let f = self.pow2_f64(n);
        self.cursor().ins().dmul(x, f)
    }

    /// `dfrexp`: writes `(0, exponent, mantissa.lo, mantissa.hi)`.
    /// `dfrexp` (`.y` the exponent, `.zw` the mantissa), `dfrexp_exp` (the exponent,
    /// broadcast) or `dfrexp_mant` (the mantissa pair), as the opcode of `st` says.
    pub(crate) fn lower_dfrexp(&mut self, st: &Instruction) -> LResult<()> {
        let w = self.dst_writes(st);
        if !w.iter().any(|&b| b) {
            return Ok(());
        }
        let x = self.wide_src(st, 0, Ty::Double)?;
        let (lo, hm, e) = self.dfrexp_parts(x);
        match st.opcode {
            Opcode::DFrexpExp => self.write_dst(st, Ty::Int, [Some(e); 4]),
            Opcode::DFrexpMant => {
                self.write_dst(st, Ty::Double, [Some(lo), Some(hm), Some(lo), Some(hm)])
            }
            _ => {
                let z = self.iconst(0);
                self.write_dst(st, Ty::Double, [Some(z), Some(e), Some(lo), Some(hm)])
            }
        }
    }

    /// The mantissa (low word, high word) and exponent of the f64 `x`: mantissa in [0.5, 1)
    /// with the sign of x; zero gives (x, 0), Inf/NaN (NaN, -1) (L7642).
    fn dfrexp_parts(&mut self, x: Value) -> (Value, Value, Value) {
        let min_normal = self.cursor().ins().f64const(f64::MIN_POSITIVE);
        let ax = self.cursor().ins().dabs(x);
        let sub = self.cursor().ins().dcmp(FloatCC::Olt, ax, min_normal);
        let k64 = self.cursor().ins().f64const(2f64.powi(64));
        let xs = self.cursor().ins().dmul(x, k64);
        let m = self.cursor().ins().select(sub, xs, x);
        let hi = self.cursor().ins().hi(m);
        let lo = self.cursor().ins().lo(m);
        let sh = self.iconst(20);
        let eb = self.cursor().ins().ushr(hi, sh);
        let m11 = self.iconst(0x7ff);
        let ex = self.cursor().ins().band(eb, m11);
        let bias = self.iconst(1022);
        let e = self.cursor().ins().isub(ex, bias);
        let adj = self.iconst((-64i32) as u32);
        let z = self.iconst(0);
        let off = self.cursor().ins().select(sub, adj, z);
        let e = self.cursor().ins().iadd(e, off);
        let keep = self.iconst(0x800f_ffff);
        let hm = self.cursor().ins().band(hi, keep);
        let half = self.iconst(1022 << 20);
        let hm = self.cursor().ins().bor(hm, half);
        // Zero: (x, 0); Inf/NaN: (NaN, -1).
        let zero = self.cursor().ins().f64const(0.0);
        let is_zero = self.cursor().ins().dcmp(FloatCC::Oeq, x, zero);
        let inf = self.cursor().ins().f64const(f64::INFINITY);
        let finite = self.cursor().ins().dcmp(FloatCC::Olt, ax, inf);
        let xl = self.cursor().ins().lo(x);
        let xh = self.cursor().ins().hi(x);
        // The canonical NaN of double results, as the IL interpreter writes it.
        let nan = isa_amdil::interp::dops::CANONICAL_DNAN;
        let nan_lo = self.iconst(nan as u32);
        let nan_hi = self.iconst((nan >> 32) as u32);
        let m1 = self.iconst(u32::MAX);
        let lo = self.cursor().ins().select(is_zero, xl, lo);
        let hm = self.cursor().ins().select(is_zero, xh, hm);
        let e = self.cursor().ins().select(is_zero, z, e);
        let lo = self.cursor().ins().select(finite, lo, nan_lo);
        let hm = self.cursor().ins().select(finite, hm, nan_hi);
        let e = self.cursor().ins().select(finite, e, m1);
        (lo, hm, e)
    }

    /// `u64div`, `u64mod`, `i64div` or `i64mod` (see [`Self::udivrem64`]).
    pub(crate) fn lower_div64(&mut self, st: &Instruction) -> LResult<()> {
        let op = st.opcode;
        self.wide(st, Ty::Int, 2, move |l, a| {
            let (q, r) = if matches!(op, Opcode::U64Div | Opcode::U64Mod) {
                l.udivrem64(a[0], a[1])
            } else {
                l.idivrem64(a[0], a[1])
            };
            Ok(if matches!(op, Opcode::U64Div | Opcode::I64Div) {
                q
            } else {
                r
            })
        })
    }

    /// `u64div`/`u64mod` (Appendix B enumeration only; the 32-bit `udiv`/`umod` convention
    /// carried to 64 bits, as the interpreter defines them): the unsigned quotient and
    /// remainder of `n / d`, both all ones when `d` is 0. SPA 5.0 has no 64-bit divide, so
    /// this is a restoring division: a loop of 64 uniform iterations, each shifting one bit
    /// of `n` into the remainder and the quotient bit into `n`'s place.
    pub(crate) fn udivrem64(&mut self, n: Value, d: Value) -> (Value, Value) {
        let b64 = ilc_passes::ir::Type::B64;
        let zero = self.cursor().ins().iconst(b64, 0);
        let count = self.iconst(64);
        let lp = self.func.dfg.make_block();
        let acc = self.func.dfg.append_block_param(lp, b64);
        let rem = self.func.dfg.append_block_param(lp, b64);
        let left = self
            .func
            .dfg
            .append_block_param(lp, ilc_passes::ir::Type::B32);
        let from = self.cur;
        self.cursor().ins().jump(lp, &[n, zero, count]);
        self.ssa.add_pred(lp, from);
        self.switch_to(lp);
        let k63 = self.iconst(63);
        let k1 = self.iconst(1);
        let top = self.cursor().ins().ushr(acc, k63);
        let r = self.cursor().ins().ishl(rem, k1);
        let r = self.cursor().ins().bor(r, top);
        let a = self.cursor().ins().ishl(acc, k1);
        let ge = self.cursor().ins().icmp(IntCC::Uge, r, d);
        let rd = self.cursor().ins().isub(r, d);
        let r = self.cursor().ins().select(ge, rd, r);
        let one = self.cursor().ins().iconst(b64, 1);
        let a1 = self.cursor().ins().bor(a, one);
        let a = self.cursor().ins().select(ge, a1, a);
        let left = self.cursor().ins().isub(left, k1);
        let z = self.iconst(0);
        let done = self.cursor().ins().icmp(IntCC::Eq, left, z);
        self.close_loop(done, lp, &[a, r, left]);
        let by_zero = self.cursor().ins().icmp(IntCC::Eq, d, zero);
        let ones = self.cursor().ins().iconst(b64, u64::MAX);
        let q = self.cursor().ins().select(by_zero, ones, a);
        let r = self.cursor().ins().select(by_zero, ones, r);
        (q, r)
    }

    /// `i64div`/`i64mod` (as [`Self::udivrem64`], signed): the quotient truncated toward
    /// zero and the remainder with the sign of `n`; both all ones when `d` is 0; the
    /// quotient of `i64::MIN / -1` wraps to `i64::MIN`.
    pub(crate) fn idivrem64(&mut self, n: Value, d: Value) -> (Value, Value) {
        let b64 = ilc_passes::ir::Type::B64;
        let zero = self.cursor().ins().iconst(b64, 0);
        let n_neg = self.cursor().ins().icmp(IntCC::Slt, n, zero);
        let d_neg = self.cursor().ins().icmp(IntCC::Slt, d, zero);
        let nn = self.cursor().ins().ineg(n);
        let na = self.cursor().ins().select(n_neg, nn, n);
        let dn = self.cursor().ins().ineg(d);
        let da = self.cursor().ins().select(d_neg, dn, d);
        let (q, r) = self.udivrem64(na, da);
        let q_neg = self.cursor().ins().pxor(n_neg, d_neg);
        let qn = self.cursor().ins().ineg(q);
        let q = self.cursor().ins().select(q_neg, qn, q);
        let rn = self.cursor().ins().ineg(r);
        let r = self.cursor().ins().select(n_neg, rn, r);
        // A zero divisor's all-ones results are not negated.
        let by_zero = self.cursor().ins().icmp(IntCC::Eq, d, zero);
        let ones = self.cursor().ins().iconst(b64, u64::MAX);
        let q = self.cursor().ins().select(by_zero, ones, q);
        let r = self.cursor().ins().select(by_zero, ones, r);
        (q, r)
    }

    /// The f32 `frexp` as the interpreter defines it (the f32 form of `dfrexp`): (mantissa
    /// in [0.5, 1) with the sign of x, exponent); zero and denormals give (the signed zero,
    /// 0), Inf/NaN (NaN, -1).
    pub(crate) fn frexp_f32(&mut self, x: Value) -> (Value, Value) {
        let sh = self.iconst(23);
        let eb = self.cursor().ins().ushr(x, sh);
        let m8 = self.iconst(0xff);
        let ex = self.cursor().ins().band(eb, m8);
        let keep = self.iconst(0x807f_ffff);
        let m = self.cursor().ins().band(x, keep);
        let half = self.iconst(126 << 23);
        let m = self.cursor().ins().bor(m, half);
        let bias = self.iconst(126);
        let e = self.cursor().ins().isub(ex, bias);
        let zero = self.iconst(0);
        let is_zero = self.cursor().ins().icmp(IntCC::Eq, ex, zero);
        let sign = self.iconst(0x8000_0000);
        let signed_zero = self.cursor().ins().band(x, sign);
        let m = self.cursor().ins().select(is_zero, signed_zero, m);
        let e = self.cursor().ins().select(is_zero, zero, e);
        let special = self.cursor().ins().icmp(IntCC::Eq, ex, m8);
        let nan = self.iconst(isa_amdil::interp::fops::CANONICAL_NAN);
        let m1 = self.iconst(u32::MAX);
        let m = self.cursor().ins().select(special, nan, m);
        let e = self.cursor().ins().select(special, m1, e);
        (m, e)
    }
}
