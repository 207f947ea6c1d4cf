//! Double-precision semantics of AMD IL (guide section 7.12, and `d2f`/`f2d` of 7.10), as
//! pure functions on `u64` bit patterns.
//!
//! A double occupies a component pair, low dword in `.x`/`.z`, high dword in `.y`/`.w`
//! (7.2.5, L3188-3224). Double arithmetic is IEEE (denormals kept, L7573); the only
//! flushing happens in the float conversions (`f2d` flushes float denormals, `d2f` flushes
//! double results that would be float denormals, L6315-6341). Nothing here panics.

use super::fops::{self, RelOp, ZeroOp};

#[inline]
fn d(bits: u64) -> f64 {
    f64::from_bits(bits)
}

/// The NaN every double result is canonicalised to (host independent).
pub const CANONICAL_DNAN: u64 = 0x7FFF_FFFF_FFFF_FFFF;

#[inline]
fn u(x: f64) -> u64 {
    if x.is_nan() {
        CANONICAL_DNAN
    } else {
        x.to_bits()
    }
}

/// `dadd` (L7571).
#[inline]
pub fn dadd(a: u64, c: u64) -> u64 {
    u(d(a) + d(c))
}

/// `dmul` (L7773).
#[inline]
pub fn dmul(a: u64, c: u64) -> u64 {
    u(d(a) * d(c))
}

/// `dmad`: fused multiply-add (Evergreen and later use FMA64, L7802; Maxwell `DFMA`).
#[inline]
pub fn dmad(a: u64, bb: u64, c: u64) -> u64 {
    u(d(a).mul_add(d(bb), d(c)))
}

/// `ddiv`: IEEE division (L7600).
#[inline]
pub fn ddiv(a: u64, c: u64) -> u64 {
    u(d(a) / d(c))
}

/// Double compare: ordered, except `Ne` which is true on NaN (L7613-7730, L7817).
#[inline]
pub fn dcmp(op: RelOp, a: u64, c: u64) -> bool {
    op.holds(d(a), d(c))
}

/// `dmax`: IEEE-754-2008 maxNum (NaN loses), `max(-0, +0) = +0` (L7731).
#[inline]
pub fn dmax(a: u64, c: u64) -> u64 {
    let (x, y) = (d(a), d(c));
    u(if x.is_nan() {
        y
    } else if y.is_nan() || x > y || (x == y && x.is_sign_positive()) {
        x
    } else {
        y
    })
}

/// `dmin`: minNum, `min(-0, +0) = -0` (L7742).
#[inline]
pub fn dmin(a: u64, c: u64) -> u64 {
    let (x, y) = (d(a), d(c));
    u(if x.is_nan() {
        y
    } else if y.is_nan() || x < y || (x == y && x.is_sign_negative()) {
        x
    } else {
        y
    })
}

/// `dfrac`: `x - floor(x)` (L7626).
#[inline]
pub fn dfrac(a: u64) -> u64 {
    let x = d(a);
    u(x - x.floor())
}

/// `dfrexp`: (mantissa in [0.5, 1) with the sign of x, exponent). Zero gives (0, 0);
/// Inf/NaN give (NaN, -1) (L7642).
pub fn dfrexp(a: u64) -> (u64, u32) {
    let x = d(a);
    if x.is_nan() || x.is_infinite() {
        return (u(f64::NAN), u32::MAX);
    }
    if x == 0.0 {
        return (a, 0);
    }
    let (mut m, mut e) = (x, 0i32);
    // Normalise denormals first so the exponent field is meaningful.
    if m.abs() < f64::MIN_POSITIVE {
        m *= 2f64.powi(64);
        e -= 64;
    }
    let bits = m.to_bits();
    let ex = ((bits >> 52) & 0x7FF) as i32;
    e += ex - 1022;
    let mant = (bits & !(0x7FFu64 << 52)) | (1022u64 << 52);
    (mant, e as u32)
}

/// `dldexp`: `x * 2^n` with `n` a signed int (L7687), computed without intermediate
/// overflow. `n` is clamped to +-2200 first: any finite nonzero double times 2^2200 overflows
/// and times 2^-2200 underflows (the exponents span 2^-1074 to 2^1024), so the result is the
/// same, in at most three steps instead of `n / 1000`.
pub fn dldexp(a: u64, n: u32) -> u64 {
    let mut x = d(a);
    let mut n = (n as i32).clamp(-2200, 2200);
    while n > 1000 {
        x *= 2f64.powi(1000);
        n -= 1000;
    }
    while n < -1000 {
        x *= 2f64.powi(-1000);
        n += 1000;
    }
    u(x * 2f64.powi(n))
}

/// `drcp_zeroop(z)`: `1/x`; zero gives DBL_MAX (fltmax), +Inf or 0 (L7828).
#[inline]
pub fn drcp(a: u64, z: ZeroOp) -> u64 {
    let x = d(a);
    if x == 0.0 {
        return u(dzero(z));
    }
    u(1.0 / x)
}

/// `drsq_zeroop(z)`: `1/sqrt(x)` (L7839).
#[inline]
pub fn drsq(a: u64, z: ZeroOp) -> u64 {
    let x = d(a);
    if x == 0.0 {
        return u(dzero(z));
    }
    u(1.0 / x.sqrt())
}

fn dzero(z: ZeroOp) -> f64 {
    match z {
        ZeroOp::Zero => 0.0,
        ZeroOp::FltMax => f64::MAX,
        ZeroOp::Infinity => f64::INFINITY,
    }
}

/// `dsqrt` (L7850).
#[inline]
pub fn dsqrt(a: u64) -> u64 {
    u(d(a).sqrt())
}

/// `d2f`: round to nearest even, overflow to Inf, float denormal results flushed (L6313).
#[inline]
pub fn d2f(a: u64) -> u32 {
    fops::b(d(a) as f32)
}

/// `f2d`: exact, float denormals flushed first (L6326).
#[inline]
pub fn f2d(a: u32) -> u64 {
    u(fops::f(a) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arithmetic() {
        // L7571, L7773, L7600, L7802.
        assert_eq!(dadd(u(0.1), u(0.2)), u(0.1 + 0.2));
        assert_eq!(dmul(u(1.5), u(-2.0)), u(-3.0));
        assert_eq!(ddiv(u(1.0), u(3.0)), u(1.0 / 3.0));
        assert_eq!(dmad(u(2.0), u(3.0), u(1.0)), u(7.0));
        // denormals are kept in double arithmetic.
        assert_eq!(dadd(1, 0), 1);
    }

    #[test]
    fn compares_and_minmax() {
        // L7613, L7817: dne is true on NaN.
        assert!(dcmp(RelOp::Ne, u(f64::NAN), u(1.0)));
        assert!(!dcmp(RelOp::Eq, u(f64::NAN), u(f64::NAN)));
        assert!(dcmp(RelOp::Ge, u(2.0), u(2.0)));
        assert!(dcmp(RelOp::Lt, u(-2.0), u(2.0)));
        // L7731 maxNum.
        assert_eq!(dmax(u(f64::NAN), u(3.0)), u(3.0));
        assert_eq!(dmin(u(1.0), u(3.0)), u(1.0));
    }

    #[test]
    fn frexp_ldexp_frac() {
        // L7642: 8.0 = 0.5 * 2^4.
        assert_eq!(dfrexp(u(8.0)), (u(0.5), 4));
        assert_eq!(dfrexp(u(-3.0)), (u(-0.75), 2));
        assert_eq!(dfrexp(u(f64::INFINITY)).1, u32::MAX);
        let (m, e) = dfrexp(5e-324f64.to_bits());
        assert_eq!((d(m), e as i32), (0.5, -1073));
        // L7687.
        assert_eq!(dldexp(u(0.75), 3), u(6.0));
        assert_eq!(dldexp(u(1.0), (-1074i32) as u32), 1);
        assert_eq!(dldexp(u(1.0), 2000), u(f64::INFINITY));
        // Extreme exponents end at once (clamped) with the unclamped result.
        assert_eq!(dldexp(u(-1.5), i32::MIN as u32), u(-0.0));
        assert_eq!(dldexp(1, i32::MAX as u32), u(f64::INFINITY));
        // Near the clamp the result is still exact: DBL_MAX * 2^-2098 rounds to 2^-1074.
        assert_eq!(dldexp(u(f64::MAX), (-2098i32) as u32), 1);
        assert_eq!(dldexp(1, 2097), u(2f64.powi(1023)));
        // L7626.
        assert_eq!(dfrac(u(-0.25)), u(0.75));
    }

    #[test]
    fn reciprocals_and_conversions() {
        // L7830: default zeroop fltmax -> DBL_MAX.
        assert_eq!(drcp(0, ZeroOp::FltMax), u(f64::MAX));
        assert_eq!(drcp(u(4.0), ZeroOp::FltMax), u(0.25));
        assert_eq!(drsq(u(4.0), ZeroOp::FltMax), u(0.5));
        assert_eq!(dsqrt(u(2.25)), u(1.5));
        // L6315: overflow to inf, denormal results flushed.
        assert_eq!(d2f(u(1e300)), f32::INFINITY.to_bits());
        assert_eq!(d2f(u(1e-40)), 0);
        assert_eq!(d2f(u(0.5)), 0.5f32.to_bits());
        // L6328: float denormal inputs become zero.
        assert_eq!(f2d(1), 0);
        assert_eq!(f2d(1.25f32.to_bits()), u(1.25));
    }
}
