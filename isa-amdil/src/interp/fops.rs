//! Single-precision float and conversion semantics of AMD IL (guide sections 7.10, 7.11),
//! as pure functions on `u32` bit patterns.
//!
//! Guarantees: every single-precision operation flushes denormal inputs and outputs to a
//! zero of the same sign (guide 7.2.1 L3063, L7051, L7064); legacy (non-`_ieee`) multiplies
//! treat `0 * x` as `+0.0` for every x (L6648, L7134); zero-operand results follow
//! [`ZeroOp`] (L3010-3020, L6635, L7265). Undefined cases use the conventions tabled in
//! [`crate::interp`]. No function panics.

/// Largest finite `f32` (the guide's FLT_MAX).
pub const FLT_MAX: f32 = f32::MAX;

/// `_zeroop(..)` control: the result of div/rcp/rsq/log/ln when the operand is zero
/// (guide 6.34, L3010-3020). `Default` is `FltMax`, the guide's default.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ZeroOp {
    /// `_zeroop(zero)`: 0.0.
    Zero,
    /// `_zeroop(fltmax)`: FLT_MAX (default).
    #[default]
    FltMax,
    /// `_zeroop(infinity)` and `_zeroop(inf_else_max)` (we support infinity): +Inf.
    Infinity,
}

impl ZeroOp {
    /// The positive magnitude this mode yields.
    pub fn value(self) -> f32 {
        match self {
            ZeroOp::Zero => 0.0,
            ZeroOp::FltMax => FLT_MAX,
            ZeroOp::Infinity => f32::INFINITY,
        }
    }
}

/// Flushes a denormal to zero of the same sign; other values unchanged.
#[inline]
pub fn ftz(x: f32) -> f32 {
    if x.is_subnormal() {
        if x.is_sign_negative() {
            -0.0
        } else {
            0.0
        }
    } else {
        x
    }
}

/// Reads bits as a flushed float.
#[inline]
pub fn f(bits: u32) -> f32 {
    ftz(f32::from_bits(bits))
}

/// The NaN every arithmetic result is canonicalised to (what Maxwell's FP32 units write),
/// so results do not depend on the host's default NaN.
pub const CANONICAL_NAN: u32 = 0x7FFF_FFFF;

/// Writes a float as flushed bits; NaN becomes [`CANONICAL_NAN`].
#[inline]
pub fn b(x: f32) -> u32 {
    if x.is_nan() {
        CANONICAL_NAN
    } else {
        ftz(x).to_bits()
    }
}

/// `add` (L6447).
#[inline]
pub fn add(a: u32, c: u32) -> u32 {
    b(f(a) + f(c))
}

/// `sub`: `a - c` (L7473).
#[inline]
pub fn sub(a: u32, c: u32) -> u32 {
    b(f(a) - f(c))
}

/// Legacy DX9 product: `0 * anything = +0.0` (L394-398, L7134); otherwise IEEE.
#[inline]
fn mul_legacy_f(x: f32, y: f32) -> f32 {
    if x == 0.0 || y == 0.0 {
        0.0
    } else {
        x * y
    }
}

/// `mul` / `mul_ieee` (L7128).
#[inline]
pub fn mul(a: u32, c: u32, ieee: bool) -> u32 {
    let (x, y) = (f(a), f(c));
    b(if ieee { x * y } else { mul_legacy_f(x, y) })
}

/// `mad` / `mad_ieee`: `a*b + c` with one rounding (the Maxwell `FFMA`), legacy zero rule
/// without `_ieee` (L7049: the rounding of mad is implementation-defined).
#[inline]
pub fn mad(a: u32, bb: u32, c: u32, ieee: bool) -> u32 {
    let (x, y, z) = (f(a), f(bb), f(c));
    if !ieee && (x == 0.0 || y == 0.0) {
        return b(0.0 + z);
    }
    b(x.mul_add(y, z))
}

/// `fma`: fused multiply-add, single rounding, IEEE products (L6876).
#[inline]
pub fn fma(a: u32, bb: u32, c: u32) -> u32 {
    b(f(a).mul_add(f(bb), f(c)))
}

/// Dot product of the first `n` components (`dp2`/`dp3`/`dp4`, L6646-6697): products
/// accumulated in order with fused multiply-adds, legacy zero rule without `_ieee`.
pub fn dot(a: &[u32; 4], c: &[u32; 4], n: usize, ieee: bool) -> u32 {
    let mut acc = 0.0f32;
    for i in 0..n {
        let (x, y) = (f(a[i]), f(c[i]));
        acc = if !ieee && (x == 0.0 || y == 0.0) {
            ftz(acc + 0.0)
        } else if i == 0 {
            ftz(x * y)
        } else {
            ftz(x.mul_add(y, acc))
        };
    }
    b(acc)
}

/// `div_zeroop(z)`: `a / c`; if `c == 0` the zeroop magnitude with the sign of `a` only
/// (negative only when `a < 0`, L6635).
#[inline]
pub fn div(a: u32, c: u32, z: ZeroOp) -> u32 {
    let (x, y) = (f(a), f(c));
    if y == 0.0 {
        let v = z.value();
        return b(if x < 0.0 { -v } else { v });
    }
    b(x / y)
}

/// `rcp_zeroop(z)`: `1/x`; zero (either sign) gives the positive zeroop value (L7265).
#[inline]
pub fn rcp(a: u32, z: ZeroOp) -> u32 {
    let x = f(a);
    if x == 0.0 {
        return b(z.value());
    }
    b(1.0 / x)
}

/// `rsq_zeroop(z)`: `1/sqrt(x)`; zero gives the zeroop value; negative inputs (undefined,
/// L7358) give NaN as Maxwell `MUFU.RSQ` does.
#[inline]
pub fn rsq(a: u32, z: ZeroOp) -> u32 {
    let x = f(a);
    if x == 0.0 {
        return b(z.value());
    }
    b(1.0 / x.sqrt())
}

/// `rsq_vec`: per-component reciprocal square root, zero gives +Inf (IEEE).
#[inline]
pub fn rsq_vec(a: u32) -> u32 {
    b(1.0 / f(a).sqrt())
}

/// `sqrt` / `sqrt_vec` (L7447, L7460): negative inputs give NaN; `sqrt(-0) = -0`.
#[inline]
pub fn sqrt(a: u32) -> u32 {
    b(f(a).sqrt())
}

/// `exp` / `exp_vec`: `2^x` (L6810, L6823).
#[inline]
pub fn exp2(a: u32) -> u32 {
    b(f(a).exp2())
}

/// `exn`: `e^x` (L6797).
#[inline]
pub fn exn(a: u32) -> u32 {
    b(f(a).exp())
}

/// `log_zeroop(z)`: `log2(x)`; zero gives minus the zeroop value (default -FLT_MAX, L6986);
/// negative inputs (undefined) give NaN.
#[inline]
pub fn log2(a: u32, z: ZeroOp) -> u32 {
    let x = f(a);
    if x == 0.0 {
        return b(-z.value());
    }
    b(x.log2())
}

/// `log_vec`: per-component `log2`, zero gives -Inf (L6999).
#[inline]
pub fn log2_vec(a: u32) -> u32 {
    log2(a, ZeroOp::Infinity)
}

/// `ln_zeroop(z)`: natural log, zero gives minus the zeroop value (L6973).
#[inline]
pub fn ln(a: u32, z: ZeroOp) -> u32 {
    let x = f(a);
    if x == 0.0 {
        return b(-z.value());
    }
    b(x.ln())
}

/// `pow`: `exp2(y * log2(x))` (L7252); x < 0 undefined (NaN here), `pow(0, y>0) = 0`.
#[inline]
pub fn pow(x: u32, y: u32) -> u32 {
    b(f(x).powf(f(y)))
}

/// Applies a unary `f32` function with flushing (sin, cos, tan, asin, acos, atan).
#[inline]
pub fn unary(a: u32, op: fn(f32) -> f32) -> u32 {
    b(op(f(a)))
}

/// `min` (L7076): if exactly one operand is NaN the other is returned; `min(-0, +0) = -0`.
#[inline]
pub fn min(a: u32, c: u32) -> u32 {
    let (x, y) = (f(a), f(c));
    let r = if x.is_nan() {
        y
    } else if y.is_nan() || x < y || (x == y && x.is_sign_negative()) {
        x
    } else {
        y
    };
    b(r)
}

/// `max` (L7062): NaN loses; `max(-0, +0) = +0`.
#[inline]
pub fn max(a: u32, c: u32) -> u32 {
    let (x, y) = (f(a), f(c));
    let r = if x.is_nan() {
        y
    } else if y.is_nan() || x > y || (x == y && x.is_sign_positive()) {
        x
    } else {
        y
    };
    b(r)
}

/// `clamp`: `min(max(a, lo), hi)` with `<`/`>` compares so a NaN `a` passes through (L6499).
#[inline]
pub fn clamp(a: u32, lo: u32, hi: u32) -> u32 {
    let (x, l, h) = (f(a), f(lo), f(hi));
    let t = if x < l { l } else { x };
    b(if t > h { h } else { t })
}

/// IL relational operator (`_relop(..)`, guide 6.24 ILRelOp; values NE 0, EQ 1, GE 2, GT 3,
/// LE 4, LT 5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RelOp {
    /// `eq`.
    Eq,
    /// `ne` (unordered: true when either operand is NaN).
    Ne,
    /// `gt`.
    Gt,
    /// `ge`.
    Ge,
    /// `lt`.
    Lt,
    /// `le`.
    Le,
}

impl RelOp {
    /// Whether `x op y` holds: ordered comparisons, except `Ne`, which holds on NaN.
    #[inline]
    pub fn holds<T: PartialOrd>(self, x: T, y: T) -> bool {
        match self {
            RelOp::Eq => x == y,
            RelOp::Ne => x != y,
            RelOp::Gt => x > y,
            RelOp::Ge => x >= y,
            RelOp::Lt => x < y,
            RelOp::Le => x <= y,
        }
    }
}

/// Float compare with flushing; ordered except `Ne` (NaN -> true, as DX10 and `dne`, L7817).
#[inline]
pub fn fcmp(op: RelOp, a: u32, c: u32) -> bool {
    op.holds(f(a), f(c))
}

/// Integer relop on signed values (used by `ifc`-like forms on ints, not by the guide).
#[inline]
pub fn icmp(op: RelOp, a: u32, c: u32) -> bool {
    op.holds(a as i32, c as i32)
}

/// `ftoi`: truncate toward zero; out of range saturates and NaN gives 0 (undefined in the
/// guide, L6365; our convention = Maxwell `F2I.S32.TRUNC`). Rust's `as` is exactly that.
#[inline]
pub fn ftoi(a: u32) -> u32 {
    (f(a) as i32) as u32
}

/// `ftou`: truncate; negative saturates to 0, too large to 0xFFFFFFFF, NaN to 0 (L6378).
#[inline]
pub fn ftou(a: u32) -> u32 {
    f(a) as u32
}

/// `itof`: signed int to float, round to nearest even (L6391).
#[inline]
pub fn itof(a: u32) -> u32 {
    (a as i32 as f32).to_bits()
}

/// `utof`: unsigned int to float, round to nearest even (L6404 is self-contradictory).
#[inline]
pub fn utof(a: u32) -> u32 {
    (a as f32).to_bits()
}

/// `flr` / `round_neginf` (L6862, L7317).
#[inline]
pub fn floor(a: u32) -> u32 {
    b(f(a).floor())
}

/// `round_plusinf` (L7330).
#[inline]
pub fn ceil(a: u32) -> u32 {
    b(f(a).ceil())
}

/// `round_z` (L7343).
#[inline]
pub fn trunc(a: u32) -> u32 {
    b(f(a).trunc())
}

/// `round_nearest`: round half to even (L7304).
#[inline]
pub fn round_even(a: u32) -> u32 {
    b(f(a).round_ties_even())
}

/// `frexp_mant` / `frexp_exp` (Appendix B enumeration only), defined as the f32 form of
/// `dfrexp` (L7642): (mantissa in [0.5, 1) with the sign of x, exponent). Zero, and a
/// denormal (flushed like every float input), give (the signed zero, 0); Inf/NaN give
/// (NaN, -1).
pub fn frexp(a: u32) -> (u32, u32) {
    let ex = (a >> 23) & 0xFF;
    match ex {
        0 => (a & 0x8000_0000, 0),
        0xFF => (CANONICAL_NAN, u32::MAX),
        _ => ((a & 0x807F_FFFF) | (126 << 23), ex.wrapping_sub(126)),
    }
}

/// `rnd`: `floor(x + 0.5)` (L7291).
#[inline]
pub fn rnd(a: u32) -> u32 {
    b((f(a) + 0.5).floor())
}

/// `frc`: `x - floor(x)` (L6889).
#[inline]
pub fn frc(a: u32) -> u32 {
    let x = f(a);
    b(x - x.floor())
}

/// `mod`: `a - c * trunc(a / c)`, sign of `a`; `c == 0` gives `a` (L7102).
#[inline]
pub fn fmod(a: u32, c: u32) -> u32 {
    let (x, y) = (f(a), f(c));
    if y == 0.0 {
        return b(x);
    }
    b(x % y)
}

/// `pireduce`: `frac(x / 2pi + 0.5) * 2pi - pi`, into [-pi, pi] (L7226), each step an f32
/// operation; `x / 2pi` is the product with the f32 nearest `1 / 2pi` (the guide leaves the
/// precision open: the opcode counts as approximate).
pub fn pireduce(a: u32) -> u32 {
    use core::f32::consts::{PI, TAU};
    let t = mul(a, (1.0 / TAU).to_bits(), true);
    let t = frc(add(t, b(0.5)));
    sub(mul(t, TAU.to_bits(), true), PI.to_bits())
}

/// `sgn`: -1.0, 0.0 or 1.0; NaN gives 1.0 (pseudo code L7397).
#[inline]
pub fn sgn(a: u32) -> u32 {
    let x = f(a);
    b(if x < 0.0 {
        -1.0
    } else if x == 0.0 {
        0.0
    } else {
        1.0
    })
}

/// `_sat` / clamp to [0, 1] with `clamp(NaN) = 0` (L589, L711).
#[inline]
pub fn sat(a: u32) -> u32 {
    let x = f(a);
    b(if x.is_nan() || x <= 0.0 {
        0.0
    } else if x >= 1.0 {
        1.0
    } else {
        x
    })
}

/// Destination shift scale (`_x2 _x4 _x8 _d2 _d4 _d8`, L571-579): multiply by `scale`.
#[inline]
pub fn scale(a: u32, scale: f32) -> u32 {
    b(f(a) * scale)
}

/// `f2f16`: float to half in the low 16 bits, round to nearest even (GAP, L6343), overflow
/// to infinity, NaN stays NaN. The input is flushed first.
pub fn f32_to_f16(a: u32) -> u32 {
    let x = f(a);
    let bits = x.to_bits();
    let sign = (bits >> 16) & 0x8000;
    if x.is_nan() {
        return 0x7FFF;
    }
    let ax = x.abs();
    if ax.is_infinite() || ax >= 65520.0 {
        return sign | 0x7C00;
    }
    // Scale to units of the smallest half subnormal (2^-24) and round half to even: for
    // |x| < 2^-14 this is the subnormal mantissa; above it we round the 11-bit mantissa.
    let e = ((bits >> 23) & 0xFF) as i32 - 127;
    if e < -14 {
        let m = (ax as f64 * (1u64 << 24) as f64).round_ties_even() as u32;
        return sign | m; // m == 0x400 rounds into the smallest normal, as it should.
    }
    let mant = bits & 0x7F_FFFF;
    let mut h = (((e + 15) as u32) << 10) | (mant >> 13);
    let rem = mant & 0x1FFF;
    if rem > 0x1000 || (rem == 0x1000 && (h & 1) == 1) {
        h += 1;
    }
    sign | h
}

/// `f162f`: low 16 bits as half to float (exact, L6354); half denormals are representable
/// as normal floats and kept.
pub fn f16_to_f32(a: u32) -> u32 {
    let h = a & 0xFFFF;
    let sign = (h & 0x8000) << 16;
    let e = (h >> 10) & 0x1F;
    let m = h & 0x3FF;
    let v = if e == 0 {
        (m as f32) * f32::from_bits(0x3380_0000) // 2^-24
    } else if e == 31 {
        if m == 0 {
            f32::INFINITY
        } else {
            return CANONICAL_NAN;
        }
    } else {
        return sign | ((e + 112) << 23) | (m << 13);
    };
    sign | v.to_bits()
}

/// `unpackN`: float of byte N (L7942-7987).
#[inline]
pub fn unpack(a: u32, n: u32) -> u32 {
    (((a >> (8 * n)) & 0xFF) as f32).to_bits()
}

/// `f_2_u4`: pack four floats (each truncated and clamped to 0..255) into bytes w:z:y:x
/// (L7887).
pub fn f_2_u4(v: &[u32; 4]) -> u32 {
    let mut r = 0;
    for (i, &c) in v.iter().enumerate() {
        let x = f(c);
        let byte = if x.is_nan() {
            0
        } else {
            x.clamp(0.0, 255.0) as u32
        };
        r |= byte << (8 * i);
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u(x: f32) -> u32 {
        x.to_bits()
    }

    #[test]
    fn denormals_are_flushed() {
        // 7.2.1 L3063 and L7051: denormal inputs and outputs flush to zero.
        let den = 0x0000_0001;
        assert_eq!(add(den, 0), 0);
        assert_eq!(add(0x8000_0001, 0x8000_0000), 0x8000_0000);
        assert_eq!(mul(u(1e-20), u(1e-20), true), 0);
        assert!(fcmp(RelOp::Eq, den, 0));
    }

    #[test]
    fn legacy_multiply_zero_rule() {
        // L7134: without _ieee, 0 * anything (incl. NaN/Inf) is 0.
        assert_eq!(mul(0, u(f32::INFINITY), false), 0);
        assert_eq!(mul(u(f32::NAN), 0, false), 0);
        assert_eq!(mul(0, u(f32::INFINITY), true), CANONICAL_NAN);
        // L7055 for mad: 0*Inf + 3 = 3.
        assert_eq!(mad(0, u(f32::INFINITY), u(3.0), false), u(3.0));
        assert!(f32::from_bits(mad(0, u(f32::INFINITY), u(3.0), true)).is_nan());
        // L6691: dp4 legacy.
        let a = [u(1.0), 0, u(2.0), u(3.0)];
        let c = [u(4.0), u(f32::INFINITY), u(5.0), u(6.0)];
        assert_eq!(dot(&a, &c, 4, false), u(32.0));
        assert_eq!(dot(&a, &c, 2, false), u(4.0));
    }

    #[test]
    fn zero_operand_results() {
        // L6635: div by zero defaults to FLT_MAX with the sign of src0.
        assert_eq!(div(u(-3.0), 0, ZeroOp::default()), u(-FLT_MAX));
        assert_eq!(div(u(3.0), 0x8000_0000, ZeroOp::Infinity), u(f32::INFINITY));
        assert_eq!(div(0, 0, ZeroOp::Zero), 0);
        assert_eq!(div(u(1.0), u(4.0), ZeroOp::FltMax), u(0.25));
        // L7265: rcp(-0) = +FLT_MAX.
        assert_eq!(rcp(0x8000_0000, ZeroOp::FltMax), u(FLT_MAX));
        assert_eq!(rsq(0, ZeroOp::Infinity), u(f32::INFINITY));
        assert_eq!(rsq(u(4.0), ZeroOp::FltMax), u(0.5));
        // L6986 / L6999.
        assert_eq!(log2(0, ZeroOp::FltMax), u(-FLT_MAX));
        assert_eq!(log2_vec(0), u(f32::NEG_INFINITY));
        assert_eq!(log2(u(8.0), ZeroOp::FltMax), u(3.0));
    }

    #[test]
    fn min_max_nan_and_signed_zero() {
        // L7065/L7078: NaN loses; max(-0,+0)=+0, min(+0,-0)=-0.
        assert_eq!(min(u(f32::NAN), u(2.0)), u(2.0));
        assert_eq!(max(u(2.0), u(f32::NAN)), u(2.0));
        assert_eq!(max(0x8000_0000, 0), 0);
        assert_eq!(min(0, 0x8000_0000), 0x8000_0000);
        // L6501: clamp lets NaN through.
        assert!(f32::from_bits(clamp(u(f32::NAN), 0, u(1.0))).is_nan());
        assert_eq!(clamp(u(5.0), 0, u(1.0)), u(1.0));
    }

    #[test]
    fn compares() {
        // L6786/L7143 and trap 6 of the compute-core notes: ne is unordered.
        let nan = u(f32::NAN);
        assert!(!fcmp(RelOp::Eq, nan, nan));
        assert!(fcmp(RelOp::Ne, nan, u(1.0)));
        assert!(!fcmp(RelOp::Ge, nan, u(1.0)));
        assert!(fcmp(RelOp::Eq, 0x8000_0000, 0));
        assert!(fcmp(RelOp::Le, u(1.0), u(1.0)));
    }

    #[test]
    fn conversions() {
        // L6365/L6378 undefined cases: saturate, NaN -> 0.
        assert_eq!(ftoi(u(f32::NAN)), 0);
        assert_eq!(ftoi(u(3e9)), i32::MAX as u32);
        assert_eq!(ftoi(u(-3e9)), i32::MIN as u32);
        assert_eq!(ftoi(u(-2.7)), (-2i32) as u32);
        assert_eq!(ftou(u(-1.0)), 0);
        assert_eq!(ftou(u(5e9)), u32::MAX);
        assert_eq!(ftou(u(3.9)), 3);
        assert_eq!(itof((-5i32) as u32), u(-5.0));
        assert_eq!(utof(u32::MAX), u(4294967296.0));
        assert_eq!(utof(16_777_217), u(16_777_216.0));
    }

    #[test]
    fn rounding() {
        // L7291 rnd = floor(x+.5); L7304 round_nearest = half to even.
        assert_eq!(rnd(u(2.5)), u(3.0));
        assert_eq!(round_even(u(2.5)), u(2.0));
        assert_eq!(round_even(u(-3.5)), u(-4.0));
        assert_eq!(floor(u(-1.5)), u(-2.0));
        assert_eq!(ceil(u(-1.5)), u(-1.0));
        assert_eq!(trunc(u(-1.5)), u(-1.0));
        assert_eq!(frc(u(-1.25)), u(0.75));
        // L7104.
        assert_eq!(fmod(u(-7.0), u(2.0)), u(-1.0));
        assert_eq!(fmod(u(7.0), 0), u(7.0));
        assert_eq!(sgn(u(-3.0)), u(-1.0));
        assert_eq!(sgn(u(f32::NAN)), u(1.0));
    }

    #[test]
    fn saturate() {
        // L589: clamp(NaN) = 0.
        assert_eq!(sat(u(f32::NAN)), 0);
        assert_eq!(sat(u(1.5)), u(1.0));
        assert_eq!(sat(u(-0.5)), 0);
        assert_eq!(sat(u(0.25)), u(0.25));
    }

    #[test]
    fn half_conversions() {
        // L6343/L6354.
        assert_eq!(f32_to_f16(u(1.0)), 0x3C00);
        assert_eq!(f32_to_f16(u(-2.0)), 0xC000);
        assert_eq!(f32_to_f16(u(65504.0)), 0x7BFF);
        assert_eq!(f32_to_f16(u(1e6)), 0x7C00);
        assert_eq!(f32_to_f16(u(5.960_464_5e-8)), 0x0001);
        assert_eq!(f32_to_f16(u(1.0 + 1.0 / 2048.0)), 0x3C00); // tie to even
        assert_eq!(f32_to_f16(u(1.0 + 3.0 / 2048.0)), 0x3C02);
        assert_eq!(f16_to_f32(0x3C00), u(1.0));
        assert_eq!(f16_to_f32(0x0001), u(5.960_464_5e-8));
        assert_eq!(f16_to_f32(0xFC00), u(f32::NEG_INFINITY));
        assert_eq!(f16_to_f32(0x7BFF), u(65504.0));
        for h in 0..0x7C00u32 {
            assert_eq!(f32_to_f16(f16_to_f32(h)), h, "half {h:#x}");
        }
    }

    #[test]
    fn media_unpack() {
        // L7942-7987, L7887.
        assert_eq!(unpack(0x1234_5678, 1), u(0x56 as f32));
        assert_eq!(f_2_u4(&[u(1.5), u(300.0), u(-2.0), u(255.9)]), 0xFF00_FF01);
    }
}
