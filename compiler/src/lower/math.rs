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
//! - `dfrexp`: `(0, e, m)` with `m` in [0.5, 1) carrying the sign of `x`; zero gives
//!   `(0, 0, x)`, infinities and NaN give exponent -1 and a NaN mantissa; denormals are first
//!   scaled by 2^64.

use ilc_passes::ir::{FloatCC, IntCC, Value};
use isa_amdil::ast::Instruction;

use super::ops::Ty;
use super::{LResult, Lowerer};

impl Lowerer<'_> {
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
    pub(crate) fn lower_dfrexp(&mut self, st: &Instruction) -> LResult<()> {
        let w = self.dst_writes(st);
        if !w.iter().any(|&b| b) {
            return Ok(());
        }
        let x = self.wide_src(st, 0, Ty::Double)?;
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
        let nan = f64::NAN.to_bits();
        let nan_lo = self.iconst(nan as u32);
        let nan_hi = self.iconst((nan >> 32) as u32);
        let m1 = self.iconst(u32::MAX);
        let lo = self.cursor().ins().select(is_zero, xl, lo);
        let hm = self.cursor().ins().select(is_zero, xh, hm);
        let e = self.cursor().ins().select(is_zero, z, e);
        let lo = self.cursor().ins().select(finite, lo, nan_lo);
        let hm = self.cursor().ins().select(finite, hm, nan_hi);
        let e = self.cursor().ins().select(finite, e, m1);
        self.write_dst(st, Ty::Double, [Some(z), Some(e), Some(lo), Some(hm)])
    }
}
