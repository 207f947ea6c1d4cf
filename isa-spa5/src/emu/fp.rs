//! Floating-point semantics of the SPA 5.0 units: IEEE-754 binary32/binary64 arithmetic with
//! the four rounding modes, `.FTZ`/`.FMZ`, canonical NaNs, comparisons, conversions and the
//! MUFU functions.
//!
//! Round-to-nearest uses Rust's correctly rounded operations (including `mul_add`). Directed
//! rounding computes the exact result as an unevaluated sum `hi + lo` of two f64s (exact for
//! f32 add, mul and fma; error-free transformations for f64) and steps the nearest result by
//! one ulp towards the mode's direction when the residual says so. The hardware produces the
//! canonical NaN `0x7fffffff` (`0x7fffffff_ffffffff` for doubles) from arithmetic; moves,
//! negation and absolute value keep NaN payloads.

/// Rounding modes in the encoding's order (`RND` field): nearest even, down, up, to zero.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Round {
    Nearest,
    Down,
    Up,
    Zero,
}

impl Round {
    pub(crate) fn from_field(v: u8) -> Round {
        match v & 3 {
            0 => Round::Nearest,
            1 => Round::Down,
            2 => Round::Up,
            _ => Round::Zero,
        }
    }
}

/// The canonical single precision NaN of the FP32 units.
pub(crate) const NAN32: u32 = 0x7fff_ffff;
/// The canonical double precision NaN.
pub(crate) const NAN64: u64 = 0x7fff_ffff_ffff_ffff;

/// Flushes a denormal to a zero of the same sign.
pub(crate) fn ftz(x: u32) -> u32 {
    if x & 0x7f80_0000 == 0 {
        x & 0x8000_0000
    } else {
        x
    }
}

fn f(x: u32) -> f32 {
    f32::from_bits(x)
}

/// Result bits of an f32 operation: canonical NaN, optional flush.
pub(crate) fn out32(r: f32, flush: bool) -> u32 {
    if r.is_nan() {
        NAN32
    } else if flush {
        ftz(r.to_bits())
    } else {
        r.to_bits()
    }
}

pub(crate) fn out64(r: f64) -> u64 {
    if r.is_nan() {
        NAN64
    } else {
        r.to_bits()
    }
}

fn next_up32(x: f32) -> f32 {
    if x.is_nan() || x == f32::INFINITY {
        return x;
    }
    if x == 0.0 {
        return f32::from_bits(1);
    }
    let b = x.to_bits();
    f32::from_bits(if x > 0.0 { b + 1 } else { b - 1 })
}

fn next_down32(x: f32) -> f32 {
    -next_up32(-x)
}

fn next_up64(x: f64) -> f64 {
    if x.is_nan() || x == f64::INFINITY {
        return x;
    }
    if x == 0.0 {
        return f64::from_bits(1);
    }
    let b = x.to_bits();
    f64::from_bits(if x > 0.0 { b + 1 } else { b - 1 })
}

fn next_down64(x: f64) -> f64 {
    -next_up64(-x)
}

/// Rounds the exact value `hi + lo` to f32 in mode `rnd` (`hi` finite or the exact infinity).
fn round32(hi: f64, lo: f64, rnd: Round) -> f32 {
    let r0 = hi as f32;
    if rnd == Round::Nearest || hi.is_nan() {
        return r0;
    }
    if r0.is_infinite() && hi.is_finite() {
        // Overflowed in the nearest mode: directed modes may stop at the largest finite value.
        let toward_inf = match rnd {
            Round::Up => hi > 0.0,
            Round::Down => hi < 0.0,
            _ => false,
        };
        return if toward_inf {
            r0
        } else {
            f32::MAX.copysign(r0)
        };
    }
    let d = (hi - r0 as f64) + lo;
    step32(r0, d, rnd)
}

fn step32(r0: f32, d: f64, rnd: Round) -> f32 {
    match rnd {
        Round::Nearest => r0,
        Round::Up if d > 0.0 => next_up32(r0),
        Round::Down if d < 0.0 => next_down32(r0),
        Round::Zero if d < 0.0 && r0 > 0.0 => next_down32(r0),
        Round::Zero if d > 0.0 && r0 < 0.0 => next_up32(r0),
        Round::Zero if d != 0.0 && r0 == 0.0 => r0,
        _ => r0,
    }
}

/// `hi + lo = a + b` exactly (Knuth's TwoSum).
fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    let e = (a - (s - bb)) + (b - bb);
    (s, e)
}

/// FADD.
pub(crate) fn add32(a: u32, b: u32, rnd: Round, flush: bool) -> u32 {
    let (a, b) = if flush { (ftz(a), ftz(b)) } else { (a, b) };
    let r = if rnd == Round::Nearest {
        f(a) + f(b)
    } else {
        let (hi, lo) = two_sum(f(a) as f64, f(b) as f64);
        if !(hi.is_finite()) {
            f(a) + f(b)
        } else {
            round32(hi, lo, rnd)
        }
    };
    out32(r, flush)
}

/// FMUL (`fmz`: 0 times anything, infinities and NaN included, is +0).
pub(crate) fn mul32(a: u32, b: u32, rnd: Round, flush: bool, fmz: bool) -> u32 {
    let (a, b) = if flush || fmz {
        (ftz(a), ftz(b))
    } else {
        (a, b)
    };
    if fmz && (a & 0x7fff_ffff == 0 || b & 0x7fff_ffff == 0) {
        return 0;
    }
    let p = f(a) as f64 * f(b) as f64; // exact: 24 + 24 bits
    let r = if rnd == Round::Nearest || !p.is_finite() {
        f(a) * f(b)
    } else {
        round32(p, 0.0, rnd)
    };
    out32(r, flush || fmz)
}

/// FFMA: `a * b + c` with one rounding.
pub(crate) fn fma32(a: u32, b: u32, c: u32, rnd: Round, flush: bool, fmz: bool) -> u32 {
    let (a, b, c) = if flush || fmz {
        (ftz(a), ftz(b), ftz(c))
    } else {
        (a, b, c)
    };
    if fmz && (a & 0x7fff_ffff == 0 || b & 0x7fff_ffff == 0) {
        // The product is +0 whatever the other factor; the sum is c (+0 + -0 = +0).
        return out32(0.0f32 + f(c), true);
    }
    let r = if rnd == Round::Nearest {
        f(a).mul_add(f(b), f(c))
    } else {
        let p = f(a) as f64 * f(b) as f64;
        let (hi, lo) = two_sum(p, f(c) as f64);
        if !hi.is_finite() {
            f(a).mul_add(f(b), f(c))
        } else {
            round32(hi, lo, rnd)
        }
    };
    out32(r, flush || fmz)
}

/// DADD.
pub(crate) fn add64(a: f64, b: f64, rnd: Round) -> u64 {
    let (s, e) = two_sum(a, b);
    out64(step64(s, e, rnd))
}

/// DMUL.
pub(crate) fn mul64(a: f64, b: f64, rnd: Round) -> u64 {
    let p = a * b;
    let e = if p.is_finite() { a.mul_add(b, -p) } else { 0.0 };
    out64(step64(p, e, rnd))
}

/// DFMA.
pub(crate) fn fma64(a: f64, b: f64, c: f64, rnd: Round) -> u64 {
    let r = a.mul_add(b, c);
    if rnd == Round::Nearest || !r.is_finite() {
        return out64(r);
    }
    // Residual of the nearest result against a*b + c = s + e2 + e1 (TwoProduct, TwoSum);
    // only its sign matters.
    let p = a * b;
    let e1 = a.mul_add(b, -p);
    let (s, e2) = two_sum(p, c);
    let d = (s - r) + (e2 + e1);
    out64(step64(r, d, rnd))
}

fn step64(r0: f64, d: f64, rnd: Round) -> f64 {
    if !r0.is_finite() {
        return r0;
    }
    match rnd {
        Round::Nearest => r0,
        Round::Up if d > 0.0 => next_up64(r0),
        Round::Down if d < 0.0 => next_down64(r0),
        Round::Zero if d < 0.0 && r0 > 0.0 => next_down64(r0),
        Round::Zero if d > 0.0 && r0 < 0.0 => next_up64(r0),
        _ => r0,
    }
}

/// The comparison of a `FCMP`/`FSETP`/`DSETP` code (bit 0 less, 1 equal, 2 greater,
/// 3 unordered).
pub(crate) fn fcmp(code: u8, a: f64, b: f64) -> bool {
    let (lt, eq, gt, un) = if a.is_nan() || b.is_nan() {
        (false, false, false, true)
    } else {
        (a < b, a == b, a > b, false)
    };
    (code & 1 != 0 && lt) || (code & 2 != 0 && eq) || (code & 4 != 0 && gt) || (code & 8 != 0 && un)
}

/// FMNMX/DMNMX: IEEE minNum/maxNum (a NaN operand loses), -0 below +0. `Some(true)` picks
/// `a`, `Some(false)` `b`, `None` the canonical NaN (both operands NaN). An f32 pair is
/// decided on its exact f64 values.
fn minmax_pick(a: f64, b: f64, min: bool) -> Option<bool> {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => None,
        (true, false) => Some(false),
        (false, true) => Some(true),
        // Equal values: only the signs of zeros differ.
        _ if a == b => Some((a.is_sign_negative() && !b.is_sign_negative()) == min),
        _ => Some((a < b) == min),
    }
}

/// FMNMX, see [`minmax_pick`].
pub(crate) fn minmax32(a: f32, b: f32, min: bool) -> u32 {
    match minmax_pick(a.into(), b.into(), min) {
        None => NAN32,
        Some(true) => a.to_bits(),
        Some(false) => b.to_bits(),
    }
}

/// DMNMX, see [`minmax_pick`].
pub(crate) fn minmax64(a: f64, b: f64, min: bool) -> u64 {
    match minmax_pick(a, b, min) {
        None => NAN64,
        Some(true) => a.to_bits(),
        Some(false) => b.to_bits(),
    }
}

/// `.SAT`: clamp to [0, 1], NaN to 0.
pub(crate) fn sat32(x: u32) -> u32 {
    let v = f(x);
    if v.is_nan() || v <= 0.0 {
        0
    } else if v >= 1.0 {
        1.0f32.to_bits()
    } else {
        x
    }
}

/// MUFU: correctly rounded values of the exact functions (the hardware is within 1-2 ulp);
/// inputs and outputs flushed; SIN/COS take revolutions (what the emulator's `RRO.SINCOS` makes
/// of an angle in radians), EX2 an exponent; RCP64H/RSQ64H work on the high word of a double.
pub(crate) fn mufu(op: u8, x: u32) -> Option<u32> {
    let v = f(ftz(x)) as f64;
    let r = match op {
        0 => (v * std::f64::consts::TAU).cos(),
        1 => (v * std::f64::consts::TAU).sin(),
        2 => v.exp2(),
        3 => {
            if v == 0.0 {
                f64::NEG_INFINITY
            } else {
                v.log2()
            }
        }
        4 => 1.0 / v,
        5 => {
            if v == 0.0 {
                f64::INFINITY.copysign(v)
            } else {
                1.0 / v.sqrt()
            }
        }
        6 | 7 => {
            let d = f64::from_bits((x as u64) << 32);
            let r = if op == 6 {
                1.0 / d
            } else if d == 0.0 {
                f64::INFINITY.copysign(d)
            } else {
                1.0 / d.sqrt()
            };
            return Some((out64(r) >> 32) as u32);
        }
        _ => return None,
    };
    Some(out32(r as f32, true))
}

/// F32 to F16 bits, round to nearest even, overflow to infinity.
pub(crate) fn f32_to_f16(x: f32) -> u16 {
    let b = x.to_bits();
    let sign = ((b >> 16) & 0x8000) as u16;
    if x.is_nan() {
        return 0x7fff;
    }
    let a = x.abs();
    if a >= 65520.0 {
        return sign | 0x7c00;
    }
    if a < 5.960_464_5e-8 / 2.0 {
        // Below half the smallest subnormal: zero (exactly half rounds to even = 0).
        return sign;
    }
    // Scale into the f16 grid: subnormal step 2^-24, normal mantissa 10 bits.
    let e = ((a.to_bits() >> 23) as i32) - 127;
    if e < -14 {
        let q = (a as f64 * (1u64 << 24) as f64).round_ties_even() as u16;
        return sign | q;
    }
    let m = a.to_bits() & 0x7f_ffff;
    let mut h = (((e + 15) as u32) << 10) | (m >> 13);
    let rest = m & 0x1fff;
    if rest > 0x1000 || (rest == 0x1000 && h & 1 == 1) {
        h += 1;
    }
    sign | h as u16
}

/// F16 bits to F32 (exact).
pub(crate) fn f16_to_f32(h: u16) -> f32 {
    let sign = if h & 0x8000 != 0 { -1.0f32 } else { 1.0 };
    let e = (h >> 10) & 0x1f;
    let m = (h & 0x3ff) as f32;
    if e == 0 {
        sign * m * (2.0f32).powi(-24)
    } else if e == 31 {
        if m == 0.0 {
            sign * f32::INFINITY
        } else {
            f32::NAN
        }
    } else {
        sign * (1.0 + m / 1024.0) * (2.0f32).powi(e as i32 - 15)
    }
}

/// Integer rounding of a float value (F2F/F2I `.ROUND/.FLOOR/.CEIL/.TRUNC`, or F2I's
/// RN/RM/RP/RZ).
pub(crate) fn round_int(v: f64, mode: Round) -> f64 {
    match mode {
        Round::Nearest => v.round_ties_even(),
        Round::Down => v.floor(),
        Round::Up => v.ceil(),
        Round::Zero => v.trunc(),
    }
}

/// Converts an integer to f32 with rounding mode `rnd`.
pub(crate) fn int_to_f32(v: i128, rnd: Round) -> f32 {
    let r0 = v as f32;
    if rnd == Round::Nearest {
        return r0;
    }
    let d = v - r0 as i128;
    step32(r0, d as f64, rnd)
}

/// Converts an integer to f64 with rounding mode `rnd`.
pub(crate) fn int_to_f64(v: i128, rnd: Round) -> f64 {
    let r0 = v as f64;
    if rnd == Round::Nearest {
        return r0;
    }
    let d = v - r0 as i128;
    step64(r0, d as f64, rnd)
}

/// Converts f64 `v` to f32 with rounding `rnd`.
pub(crate) fn f64_to_f32(v: f64, rnd: Round) -> f32 {
    round32(v, 0.0, rnd)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(x: f32) -> u32 {
        x.to_bits()
    }

    #[test]
    fn directed_rounding_of_add_mul_fma() {
        let one = b(1.0);
        let tiny = b(1e-30);
        assert_eq!(add32(one, tiny, Round::Nearest, false), one);
        assert_eq!(add32(one, tiny, Round::Up, false), one + 1);
        assert_eq!(add32(one, tiny, Round::Down, false), one);
        assert_eq!(add32(one, b(-1e-30), Round::Down, false), b(1.0) - 1);
        assert_eq!(add32(one, b(-1e-30), Round::Zero, false), b(1.0) - 1);
        // f32(1/3) = 11184811 * 2^-25, times 3 = 1 + 2^-25: rounds to 1 or up.
        let third = b(1.0 / 3.0);
        let p = mul32(third, b(3.0), Round::Nearest, false, false);
        assert_eq!(p, one);
        assert_eq!(mul32(third, b(3.0), Round::Down, false, false), one);
        assert_eq!(mul32(third, b(3.0), Round::Up, false, false), one + 1);
        assert_eq!(
            fma32(third, b(3.0), b(-1.0), Round::Nearest, false, false),
            b(2.0f32.powi(-25))
        );
        // overflow under round-to-zero stops at MAX
        assert_eq!(
            mul32(b(f32::MAX), b(2.0), Round::Zero, false, false),
            b(f32::MAX)
        );
    }

    #[test]
    fn nan_flush_and_fmz() {
        assert_eq!(
            add32(
                b(f32::INFINITY),
                b(f32::NEG_INFINITY),
                Round::Nearest,
                false
            ),
            NAN32
        );
        assert_eq!(add32(1, 0, Round::Nearest, true), 0, "denormal flushed");
        assert_eq!(add32(1, 0, Round::Nearest, false), 1, "denormal kept");
        assert_eq!(mul32(0, b(f32::INFINITY), Round::Nearest, false, true), 0);
        assert_eq!(
            mul32(0, b(f32::INFINITY), Round::Nearest, false, false),
            NAN32
        );
    }

    #[test]
    fn comparisons_and_minmax() {
        let nan = f64::NAN;
        assert!(fcmp(1, 1.0, 2.0)); // LT
        assert!(!fcmp(1, nan, 2.0));
        assert!(fcmp(9, nan, 2.0)); // LTU
        assert!(fcmp(13, 1.0, 2.0) && fcmp(13, nan, 1.0) && !fcmp(13, 1.0, 1.0)); // NEU
        assert_eq!(minmax32(f32::NAN, 2.0, true), b(2.0));
        assert_eq!(minmax32(-0.0, 0.0, true), b(-0.0));
        assert_eq!(minmax32(-0.0, 0.0, false), b(0.0));
    }

    #[test]
    fn conversions() {
        assert_eq!(f32_to_f16(1.0), 0x3c00);
        assert_eq!(f32_to_f16(65504.0), 0x7bff);
        assert_eq!(f32_to_f16(1e6), 0x7c00);
        assert_eq!(f32_to_f16(5.960_464_5e-8), 1);
        assert_eq!(f16_to_f32(0x3555), 0.333_251_95);
        assert_eq!(int_to_f32(16_777_217, Round::Nearest), 16_777_216.0);
        assert_eq!(int_to_f32(16_777_217, Round::Up), 16_777_218.0);
        assert_eq!(int_to_f32(-16_777_217, Round::Zero), -16_777_216.0);
        assert_eq!(f64_to_f32(1.0 + 1e-12, Round::Up), 1.000_000_1);
    }

    #[test]
    fn mufu_functions() {
        assert_eq!(mufu(4, b(4.0)), Some(b(0.25)));
        assert_eq!(mufu(5, b(4.0)), Some(b(0.5)));
        assert_eq!(mufu(2, b(3.0)), Some(b(8.0)));
        assert_eq!(mufu(3, b(0.0)), Some(b(f32::NEG_INFINITY)));
        assert_eq!(mufu(1, b(0.25)), Some(b(1.0)));
        assert_eq!(
            mufu(6, (2.0f64.to_bits() >> 32) as u32),
            Some((0.5f64.to_bits() >> 32) as u32)
        );
        assert_eq!(mufu(9, 0), None);
    }
}
