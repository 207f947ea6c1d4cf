//! Exact semantics of every pure opcode, as one function ([`eval_pure`]) shared by the
//! interpreter and constant folding, so the two can never disagree.
//!
//! Values are carried in `u64` cells: a `b32` in the low 32 bits (high bits zero), a `b64`
//! in all 64, a `pred` as 0 or 1. Conventions beyond the opcode docs:
//! - f32 arithmetic flushes denormal inputs and results to a zero of the same sign.
//! - A NaN produced by f32 arithmetic is the canonical `0x7FFFFFFF` (Maxwell's), by f64
//!   arithmetic `0x7FFFFFFF_FFFFFFFF`; `fneg/fabs/dneg/dabs`, `copy` and `select` keep bits.
//! - Transcendentals (`fexp2 flog2 fsin fcos`) use the host's f32 functions and `frsq` is
//!   `1 / sqrt(x)` in f32, exactly as isa-amdil's reference interpreter computes them, so
//!   the two interpreters agree bit for bit; hardware is allowed the error bounds
//!   documented on each opcode.

use smallvec::{smallvec, SmallVec};

use crate::ir::{InstructionData, IntCC, Opcode, Type};

/// Results of an evaluation (most opcodes have one).
pub type EvalResults = SmallVec<[u64; 2]>;

const F32_NAN: u32 = 0x7FFF_FFFF;
const F64_NAN: u64 = 0x7FFF_FFFF_FFFF_FFFF;

/// Flushes an f32 denormal to a zero of the same sign.
pub fn ftz(x: f32) -> f32 {
    if x.is_subnormal() {
        f32::from_bits(x.to_bits() & 0x8000_0000)
    } else {
        x
    }
}

fn f(bits: u64) -> f32 {
    ftz(f32::from_bits(bits as u32))
}

/// Canonicalizes and flushes an f32 result into a cell.
fn rf(x: f32) -> u64 {
    if x.is_nan() {
        F32_NAN as u64
    } else {
        ftz(x).to_bits() as u64
    }
}

fn d(bits: u64) -> f64 {
    f64::from_bits(bits)
}

fn rd(x: f64) -> u64 {
    if x.is_nan() {
        F64_NAN
    } else {
        x.to_bits()
    }
}

/// f32 `min`/`max`: the f64 rule ([`dminmax`]) on the widened operands (exact, and the result
/// is one of them, or its sign-adjusted zero, so narrowing it back is exact too).
fn fminmax(a: f32, b: f32, max: bool) -> f32 {
    dminmax(f64::from(a), f64::from(b), max) as f32
}

/// `min`/`max` of the IR: a NaN operand yields the other one; among equal zeros min prefers
/// -0 and max +0.
fn dminmax(a: f64, b: f64, max: bool) -> f64 {
    if a.is_nan() {
        return b;
    }
    if b.is_nan() {
        return a;
    }
    if a == b {
        // Signed zeros: min prefers -0, max prefers +0.
        let neg = a.is_sign_negative() || b.is_sign_negative();
        let pos = a.is_sign_positive() || b.is_sign_positive();
        return if max && pos {
            a.abs()
        } else if !max && neg {
            -a.abs()
        } else {
            a
        };
    }
    if (a < b) != max {
        a
    } else {
        b
    }
}

/// f16 bits -> f32 (exact).
pub fn f16_to_f32(h: u16) -> f32 {
    let sign = ((h >> 15) as u32) << 31;
    let exp = ((h >> 10) & 0x1F) as u32;
    let man = (h & 0x3FF) as u32;
    let bits = if exp == 0 {
        if man == 0 {
            sign
        } else {
            // Denormal: value = man * 2^-24.
            let v = man as f32 * (1.0 / 16_777_216.0);
            return f32::from_bits(sign | v.to_bits());
        }
    } else if exp == 0x1F {
        sign | 0x7F80_0000 | (man << 13)
    } else {
        sign | ((exp + 112) << 23) | (man << 13)
    };
    f32::from_bits(bits)
}

/// f32 -> f16 bits, round to nearest even, overflow to Inf, NaN to `0x7FFF`.
pub fn f32_to_f16(x: f32) -> u16 {
    let b = x.to_bits();
    let sign = ((b >> 16) & 0x8000) as u16;
    let a = x.abs();
    if a.is_nan() {
        return 0x7FFF; // Maxwell's canonical half NaN, as the AMD IL interpreter gives
    }
    if a >= 65520.0 {
        return sign | 0x7C00;
    }
    if a < 6.103_515_6e-5 {
        // Denormal f16 (or zero): units of 2^-24, rounded to nearest even.
        let q = (a as f64) * 16_777_216.0;
        let r = q.round_ties_even() as u16;
        return sign | r;
    }
    let exp = ((b >> 23) & 0xFF) as i32 - 127 + 15;
    let man = b & 0x7F_FFFF;
    let mut h = ((exp as u32) << 10) | (man >> 13);
    let rest = man & 0x1FFF;
    if rest > 0x1000 || (rest == 0x1000 && (h & 1) == 1) {
        h += 1; // may carry into the exponent, which is correct (up to Inf).
    }
    sign | h as u16
}

fn sext(x: u64, ty: Type) -> i64 {
    match ty {
        Type::B64 => x as i64,
        _ => x as u32 as i32 as i64,
    }
}

/// `a cc b` on cells of type `ty`.
pub fn icmp(cc: IntCC, a: u64, b: u64, ty: Type) -> bool {
    let (sa, sb) = (sext(a, ty), sext(b, ty));
    match cc {
        IntCC::Eq => a == b,
        IntCC::Ne => a != b,
        IntCC::Slt => sa < sb,
        IntCC::Sle => sa <= sb,
        IntCC::Sgt => sa > sb,
        IntCC::Sge => sa >= sb,
        IntCC::Ult => a < b,
        IntCC::Ule => a <= b,
        IntCC::Ugt => a > b,
        IntCC::Uge => a >= b,
    }
}

fn bfe(width: u64, offset: u64, x: u64, signed: bool) -> u64 {
    let w = (width & 31) as u32;
    let o = (offset & 31) as u32;
    let x = x as u32;
    let r = if w == 0 {
        0
    } else if w + o >= 32 {
        if signed {
            ((x as i32) >> o) as u32
        } else {
            x >> o
        }
    } else if signed {
        (((x << (32 - w - o)) as i32) >> (32 - w)) as u32
    } else {
        (x << (32 - w - o)) >> (32 - w)
    };
    r as u64
}

/// Evaluates a pure instruction. `ty` is the type bound to the opcode's polymorphic
/// variable (type of the first `T`/`A` operand; ignored otherwise). `args` are the operand
/// cells in order. Returns `None` for opcodes that are not pure computations (memory,
/// special registers, barriers, control flow, target instructions).
pub fn eval_pure(data: &InstructionData, ty: Type, args: &[u64]) -> Option<EvalResults> {
    use Opcode::*;
    let op = data.opcode();
    let m = ty.mask();
    let bits = if ty == Type::B64 { 64 } else { 32 };
    let a = args.first().copied().unwrap_or(0);
    let b = args.get(1).copied().unwrap_or(0);
    let c = args.get(2).copied().unwrap_or(0);
    let one = |x: u64| -> Option<EvalResults> { Some(smallvec![x]) };
    let pred = |x: bool| -> Option<EvalResults> { Some(smallvec![x as u64]) };
    match op {
        Iconst | Pconst => match data {
            InstructionData::UnaryImm { ty, imm, .. } => one(imm & ty.mask()),
            _ => None,
        },
        Copy => one(a),
        Iadd => one(a.wrapping_add(b) & m),
        Isub => one(a.wrapping_sub(b) & m),
        Ineg => one(a.wrapping_neg() & m),
        Imul => one(a.wrapping_mul(b) & m),
        Imulhi => one((((a as u32 as i32 as i64) * (b as u32 as i32 as i64)) >> 32) as u32 as u64),
        Umulhi => one(((a as u32 as u64 * b as u32 as u64) >> 32) & 0xFFFF_FFFF),
        Imad => one(a.wrapping_mul(b).wrapping_add(c) & m),
        Idiv => one(signed_div_rem(a, b, ty, true)),
        Irem => one(signed_div_rem(a, b, ty, false)),
        Udiv => one(a.checked_div(b).unwrap_or(m)),
        Urem => one(a.checked_rem(b).unwrap_or(m)),
        Ishl => one((a << (b & (bits - 1))) & m),
        Ishr => one(((sext(a, ty) >> (b & (bits - 1))) as u64) & m),
        Ushr => one(a >> (b & (bits - 1))),
        Band => one(a & b),
        Bor => one(a | b),
        Bxor => one(a ^ b),
        Bnot => one(!a & m),
        Bfi => one(bfi(a, b, c, args.get(3).copied().unwrap_or(0))),
        Ubfe => one(bfe(a, b, c, false)),
        Ibfe => one(bfe(a, b, c, true)),
        Fshr => one(((b << 32 | a) >> (c & 31)) & 0xFFFF_FFFF),
        Bitrev => one((a as u32).reverse_bits() as u64),
        Popcnt => one((a as u32).count_ones() as u64),
        Clz => one((a as u32).leading_zeros() as u64),
        FirstbitHi => one(if a as u32 == 0 {
            0xFFFF_FFFF
        } else {
            (a as u32).leading_zeros() as u64
        }),
        FirstbitLo => one(if a as u32 == 0 {
            0xFFFF_FFFF
        } else {
            (a as u32).trailing_zeros() as u64
        }),
        FirstbitShi => one(firstbit_shi(a)),
        Imin => one(if sext(a, ty) <= sext(b, ty) { a } else { b }),
        Imax => one(if sext(a, ty) >= sext(b, ty) { a } else { b }),
        Umin => one(a.min(b)),
        Umax => one(a.max(b)),
        Iabs => one((sext(a, ty).wrapping_abs() as u64) & m),
        Icmp => match data {
            InstructionData::IntCompare { cond, .. } => pred(icmp(*cond, a, b, ty)),
            _ => None,
        },
        Fcmp => match data {
            InstructionData::FloatCompare { cond, .. } => pred(cond.eval(f(a).partial_cmp(&f(b)))),
            _ => None,
        },
        Dcmp => match data {
            InstructionData::FloatCompare { cond, .. } => pred(cond.eval(d(a).partial_cmp(&d(b)))),
            _ => None,
        },
        Select => one(if a != 0 { b } else { c }),
        Bmask => one(if a != 0 { 0xFFFF_FFFF } else { 0 }),
        Pand => pred(a & b != 0),
        Por => pred((a | b) != 0),
        Pxor => pred((a ^ b) != 0),
        Pnot => pred(a == 0),
        VoteAll => pred(a != 0),
        Fadd => one(rf(f(a) + f(b))),
        Fsub => one(rf(f(a) - f(b))),
        Fmul => one(rf(f(a) * f(b))),
        FmulLegacy => one(legacy_mul(a, b)),
        Ffma => one(rf(f(a).mul_add(f(b), f(c)))),
        Fmad => one(rf(f(rf(f(a) * f(b))) + f(c))),
        FmadLegacy => one(legacy_mad(a, b, c)),
        Fmin => one(rf(fminmax(f(a), f(b), false))),
        Fmax => one(rf(fminmax(f(a), f(b), true))),
        Fneg => one((a ^ 0x8000_0000) & 0xFFFF_FFFF),
        Fabs => one(a & 0x7FFF_FFFF),
        Fdiv => one(rf(f(a) / f(b))),
        Frcp => one(rf(1.0 / f(a))),
        Frsq => one(rf(1.0 / f(a).sqrt())),
        Fsqrt => one(rf(f(a).sqrt())),
        Fexp2 => one(rf(f(a).exp2())),
        Flog2 => one(rf(f(a).log2())),
        Fsin => one(rf(f(a).sin())),
        Fcos => one(rf(f(a).cos())),
        Ffloor => one(rf(f(a).floor())),
        Fceil => one(rf(f(a).ceil())),
        Ftrunc => one(rf(f(a).trunc())),
        FroundEven => one(rf(f(a).round_ties_even())),
        Ffract => one(rf(f(a) - f(a).floor())),
        Fsat => one(fsat(a)),
        Fldexp => one(fldexp(a, b)),
        Dadd => one(rd(d(a) + d(b))),
        Dsub => one(rd(d(a) - d(b))),
        Dmul => one(rd(d(a) * d(b))),
        Dfma => one(rd(d(a).mul_add(d(b), d(c)))),
        Ddiv | DdivNormal => one(rd(d(a) / d(b))),
        Drcp => one(rd(1.0 / d(a))),
        Dsqrt => one(rd(d(a).sqrt())),
        Dmin => one(rd(dminmax(d(a), d(b), false))),
        Dmax => one(rd(dminmax(d(a), d(b), true))),
        Drsq => one(rd(1.0 / d(a).sqrt())),
        Dfloor => one(rd(d(a).floor())),
        Dceil => one(rd(d(a).ceil())),
        Dtrunc => one(rd(d(a).trunc())),
        DroundEven => one(rd(d(a).round_ties_even())),
        Dfract => one(rd(d(a) - d(a).floor())),
        Dldexp => one(rd(ldexp(d(a), b as u32 as i32))),
        DfrexpMant => one(rd(frexp(d(a)).0)),
        DfrexpExp => one(frexp(d(a)).1 as u32 as u64),
        Dneg => one(a ^ (1 << 63)),
        Dabs => one(a & !(1 << 63)),
        F2i => one(f(a) as i32 as u32 as u64),
        F2u => one(f(a) as u32 as u64),
        I2f => one(rf(a as u32 as i32 as f32)),
        U2f => one(rf(a as u32 as f32)),
        F2d => one(rd(f(a) as f64)),
        D2f => one(rf(d(a) as f32)),
        D2i => one(d(a) as i32 as u32 as u64),
        D2u => one(d(a) as u32 as u64),
        I2d => one((a as u32 as i32 as f64).to_bits()),
        U2d => one((a as u32 as f64).to_bits()),
        F16to32 => one(f16_cell_to_f32(a)),
        F32to16 => one(f32_to_f16(f(a)) as u64),
        Concat => one((a & 0xFFFF_FFFF) | (b << 32)),
        Lo => one(a & 0xFFFF_FFFF),
        Hi => one(a >> 32),
        Special | QuadShuffle | Load | Store | Atomic | AtomicNoret | Barrier | Jump | Brif
        | BrTable | Return | Unreachable | Target | Tex => None,
    }
}

/// `idiv` (`div`) or `irem` of the cells `a` and `b` as signed integers of type `ty`: a zero
/// divisor gives all ones, `MIN / -1` gives `MIN` (remainder 0).
fn signed_div_rem(a: u64, b: u64, ty: Type, div: bool) -> u64 {
    let m = ty.mask();
    let bits = if ty == Type::B64 { 64 } else { 32 };
    let (sa, sb) = (sext(a, ty) as i128, sext(b, ty) as i128);
    if sb == 0 {
        m
    } else {
        let min = -(1i128 << (bits - 1));
        if sa == min && sb == -1 {
            if div {
                (min as u64) & m
            } else {
                0
            }
        } else if div {
            ((sa / sb) as u64) & m
        } else {
            ((sa % sb) as u64) & m
        }
    }
}

/// `bfi`: the low `width` bits of `src` inserted at `offset` into `dst` (32-bit cells).
fn bfi(width: u64, offset: u64, src: u64, dst: u64) -> u64 {
    let w = width & 31;
    let o = offset & 31;
    if w == 0 {
        dst & 0xFFFF_FFFF
    } else {
        let mask = (((1u64 << w) - 1) << o) & 0xFFFF_FFFF;
        ((src << o) & mask) | (dst & !mask & 0xFFFF_FFFF)
    }
}

/// `firstbit_shi`: the leading-zero count of `a`, inverted first when negative (all ones
/// when no bit differs from the sign).
fn firstbit_shi(a: u64) -> u64 {
    let x = a as u32;
    let x = if (x as i32) < 0 { !x } else { x };
    if x == 0 {
        0xFFFF_FFFF
    } else {
        x.leading_zeros() as u64
    }
}

/// `fmad_legacy`: `a * b + c` fused, with `0 * anything = 0` (DX9 rules).
fn legacy_mad(a: u64, b: u64, c: u64) -> u64 {
    let (x, y, z) = (f(a), f(b), f(c));
    if x == 0.0 || y == 0.0 {
        rf(0.0 + z)
    } else {
        rf(x.mul_add(y, z))
    }
}

/// `fsat`: clamped to [0, 1]; NaN and -0 give +0.
fn fsat(a: u64) -> u64 {
    let x = f(a);
    if x.is_nan() || x <= 0.0 {
        0
    } else {
        rf(x.min(1.0))
    }
}

/// `fldexp`: `a * 2^b`, exact in f64 for any f32 and clamped exponent, then one rounding to
/// f32.
fn fldexp(a: u64, b: u64) -> u64 {
    let e = (b as u32 as i32).clamp(-400, 400);
    rf((f(a) as f64 * 2f64.powi(e)) as f32)
}

/// `f16to32` of the low half of a cell (NaNs become the canonical f32 NaN).
fn f16_cell_to_f32(a: u64) -> u64 {
    let x = f16_to_f32(a as u16);
    if x.is_nan() {
        F32_NAN as u64
    } else {
        x.to_bits() as u64
    }
}

/// `x = mant * 2^exp` with `|mant|` in [0.5, 1); 0 -> (0, 0); Inf/NaN -> (NaN, -1).
pub fn frexp(x: f64) -> (f64, i32) {
    if x == 0.0 {
        return (x, 0);
    }
    if !x.is_finite() {
        return (f64::NAN, -1);
    }
    let (x, bias) = if x.is_subnormal() {
        (x * 2f64.powi(64), 64)
    } else {
        (x, 0)
    };
    let bits = x.to_bits();
    let e = ((bits >> 52) & 0x7FF) as i32 - 1022;
    let mant = f64::from_bits((bits & !(0x7FF << 52)) | (1022 << 52));
    (mant, e - bias)
}

/// `x * 2^e` with a single IEEE rounding (also into the subnormal range).
pub fn ldexp(x: f64, e: i32) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    let (m, ex) = frexp(x);
    let t = ex.saturating_add(e);
    if t > 1024 {
        return f64::INFINITY.copysign(x);
    }
    if t >= -1021 {
        // m * 2^t is a normal number: exact.
        return (m * 2.0) * 2f64.powi(t - 1);
    }
    if t < -1075 {
        return 0.0f64.copysign(x);
    }
    // Subnormal result: scale m to units of 2^-1074 (exact), round once, scale back (exact).
    let units = (m * 2f64.powi(t + 1074)).round_ties_even();
    units * 2f64.powi(-1022) * 2f64.powi(-52)
}

fn legacy_mul(a: u64, b: u64) -> u64 {
    let (x, y) = (f(a), f(b));
    if x == 0.0 || y == 0.0 {
        0
    } else {
        rf(x * y)
    }
}

/// Returns the bound polymorphic type for `data` given the operand types, as [`eval_pure`]
/// expects: the type of the first `T`/`A` operand, else the controlling type, else `b32`.
pub fn controlling_type(data: &InstructionData, arg_types: &[Type]) -> Type {
    use crate::ir::TypeSpec;
    if let InstructionData::UnaryImm { ty, .. } = data {
        return *ty;
    }
    data.opcode()
        .arg_types()
        .iter()
        .zip(arg_types)
        .find(|(s, _)| matches!(s, TypeSpec::Int | TypeSpec::Any))
        .map_or(Type::B32, |(_, &t)| t)
}

#[cfg(test)]
mod tests {
    use cranelift_entity::EntityRef;

    use super::*;
    use crate::ir::{FloatCC, Value};

    fn un(op: Opcode, a: u64) -> u64 {
        eval_pure(
            &InstructionData::Unary {
                opcode: op,
                args: [Value::new(0)],
            },
            Type::B32,
            &[a],
        )
        .unwrap()[0]
    }
    fn bin(op: Opcode, ty: Type, a: u64, b: u64) -> u64 {
        let v = Value::new(0);
        eval_pure(
            &InstructionData::Binary {
                opcode: op,
                args: [v, v],
            },
            ty,
            &[a, b],
        )
        .unwrap()[0]
    }
    fn tern(op: Opcode, a: u64, b: u64, c: u64) -> u64 {
        let v = Value::new(0);
        eval_pure(
            &InstructionData::Ternary {
                opcode: op,
                args: [v, v, v],
            },
            Type::B32,
            &[a, b, c],
        )
        .unwrap()[0]
    }
    fn fb(x: f32) -> u64 {
        x.to_bits() as u64
    }

    #[test]
    fn integer_conventions() {
        use Opcode::*;
        let t = Type::B32;
        assert_eq!(bin(Udiv, t, 7, 0), 0xFFFF_FFFF);
        assert_eq!(bin(Urem, t, 7, 0), 0xFFFF_FFFF);
        assert_eq!(bin(Idiv, t, 0x8000_0000, 0xFFFF_FFFF), 0x8000_0000);
        assert_eq!(bin(Irem, t, 0x8000_0000, 0xFFFF_FFFF), 0);
        assert_eq!(
            bin(Idiv, t, (-7i32) as u32 as u64, 2),
            (-3i32) as u32 as u64
        );
        assert_eq!(
            bin(Irem, t, (-7i32) as u32 as u64, 2),
            (-1i32) as u32 as u64
        );
        assert_eq!(bin(Ishl, t, 1, 33), 2);
        assert_eq!(bin(Ishr, t, 0x8000_0000, 31 + 32), 0xFFFF_FFFF);
        assert_eq!(bin(Ushr, t, 0x8000_0000, 31), 1);
        assert_eq!(bin(Ishl, Type::B64, 1, 63), 1 << 63);
        assert_eq!(bin(Iadd, t, 0xFFFF_FFFF, 1), 0);
        assert_eq!(bin(Iadd, Type::B64, 0xFFFF_FFFF, 1), 1 << 32);
        assert_eq!(bin(Imulhi, t, (-2i32) as u32 as u64, 3), 0xFFFF_FFFF);
        assert_eq!(bin(Umulhi, t, 0xFFFF_FFFF, 2), 1);
        assert_eq!(bin(Imin, t, 0xFFFF_FFFF, 1), 0xFFFF_FFFF);
        assert_eq!(bin(Umin, t, 0xFFFF_FFFF, 1), 1);
        assert_eq!(un(Iabs, 0x8000_0000), 0x8000_0000);
        assert_eq!(un(FirstbitHi, 0x8000_0000), 0);
        assert_eq!(un(FirstbitHi, 1), 31);
        assert_eq!(un(FirstbitHi, 0), 0xFFFF_FFFF);
        assert_eq!(un(FirstbitLo, 8), 3);
        assert_eq!(un(FirstbitShi, 0xFFFF_FFFF), 0xFFFF_FFFF);
        assert_eq!(un(FirstbitShi, 0xFFFF_0000), 16);
        assert_eq!(un(Bitrev, 0x1234_5678), 0x1E6A_2C48);
        assert_eq!(un(Clz, 0), 32);
        assert_eq!(un(Popcnt, 0xF0F0), 8);
    }

    #[test]
    fn bitfields() {
        use Opcode::*;
        assert_eq!(tern(Ubfe, 8, 4, 0x1234_5678), 0x67);
        assert_eq!(tern(Fshr, 0x1234_5678, 0x9abc_def0, 8), 0xf012_3456);
        assert_eq!(tern(Fshr, 0x1234_5678, 0x9abc_def0, 0), 0x1234_5678);
        assert_eq!(tern(Fshr, 0x1234_5678, 0x9abc_def0, 36), 0x0123_4567); // s & 31
        assert_eq!(tern(Ibfe, 4, 4, 0x0000_00F0), 0xFFFF_FFFF);
        assert_eq!(tern(Ubfe, 0, 4, 0xFFFF), 0);
        assert_eq!(tern(Ubfe, 8, 28, 0xF000_0000), 0xF);
        assert_eq!(tern(Ibfe, 8, 28, 0xF000_0000), 0xFFFF_FFFF);
        assert_eq!(tern(Ubfe, 8 + 32, 4 + 32, 0x1234_5678), 0x67); // masked to 5 bits
        let v = Value::new(0);
        let bfi = |w, o, i, b| {
            eval_pure(
                &InstructionData::Quaternary {
                    opcode: Bfi,
                    args: [v; 4],
                },
                Type::B32,
                &[w, o, i, b],
            )
            .unwrap()[0]
        };
        assert_eq!(bfi(8, 8, 0xAB, 0x1111_1111), 0x1111_AB11);
        assert_eq!(bfi(0, 8, 0xAB, 0x1111_1111), 0x1111_1111);
        assert_eq!(bfi(16, 24, 0xABCD, 0x1111_1111), 0xCD11_1111);
    }

    #[test]
    fn float_conventions() {
        use Opcode::*;
        let t = Type::B32;
        let denorm = 0x0000_0001u64;
        assert_eq!(bin(Fadd, t, denorm, 0), 0);
        assert_eq!(bin(Fadd, t, 0x8000_0001, 0x8000_0000), 0x8000_0000);
        assert_eq!(bin(FmulLegacy, t, 0, fb(f32::INFINITY)), 0);
        assert_eq!(bin(FmulLegacy, t, fb(f32::NAN), 0), 0);
        assert_eq!(tern(FmadLegacy, 0, fb(f32::INFINITY), fb(-0.0)), 0);
        assert_eq!(tern(FmadLegacy, fb(2.0), fb(3.0), fb(1.0)), fb(7.0));
        assert_eq!(bin(Fmul, t, 0, fb(f32::INFINITY)), F32_NAN as u64);
        assert_eq!(bin(Fmin, t, fb(f32::NAN), fb(2.0)), fb(2.0));
        assert_eq!(bin(Fmin, t, fb(0.0), fb(-0.0)), fb(-0.0));
        assert_eq!(bin(Fmax, t, fb(-0.0), fb(0.0)), fb(0.0));
        assert_eq!(un(F2i, fb(f32::NAN)), 0);
        assert_eq!(un(F2i, fb(3e9)), 0x7FFF_FFFF);
        assert_eq!(un(F2i, fb(-3e9)), 0x8000_0000);
        assert_eq!(un(F2i, fb(-2.7)), (-2i32) as u32 as u64);
        assert_eq!(un(F2u, fb(-1.0)), 0);
        assert_eq!(un(F2u, fb(5e9)), 0xFFFF_FFFF);
        assert_eq!(un(I2f, 0xFFFF_FFFF), fb(-1.0));
        assert_eq!(un(U2f, 0xFFFF_FFFF), fb(4294967296.0));
        assert_eq!(un(Fsat, fb(f32::NAN)), 0);
        assert_eq!(un(Fsat, fb(2.0)), fb(1.0));
        assert_eq!(un(Fsat, fb(-0.0)), 0);
        assert_eq!(un(Fsat, fb(-3.0)), 0);
        assert_eq!(un(Fsat, fb(0.25)), fb(0.25));
        assert_eq!(un(Ffract, fb(-1e-10)), fb(1.0)); // rounds up, as FRND.FLOOR + FADD does
        assert_eq!(un(Ffract, fb(f32::INFINITY)), F32_NAN as u64);
        assert_eq!(un(Ffract, fb(2.25)), fb(0.25));
        assert_eq!(un(FroundEven, fb(2.5)), fb(2.0));
        assert_eq!(un(Fneg, 0), 0x8000_0000);
        assert_eq!(un(Frcp, 0), fb(f32::INFINITY));
        assert_eq!(un(Flog2, fb(8.0)), fb(3.0));
        assert_eq!(un(Fexp2, fb(-1.0)), fb(0.5));
        assert_eq!(un(F32to16, fb(1.0)), 0x3C00);
        assert_eq!(un(F32to16, fb(65520.0)), 0x7C00);
        assert_eq!(un(F32to16, fb(1.0 + 1.0 / 2048.0)), 0x3C00); // tie to even
        assert_eq!(un(F16to32, 0xC000), fb(-2.0));
        assert_eq!(un(F16to32, 0x0001), fb(5.960_464_5e-8));
        assert_eq!(un(F32to16, fb(5.960_464_5e-8)), 1);
        let v = Value::new(0);
        let cmp = |cc, a, b| {
            eval_pure(
                &InstructionData::FloatCompare {
                    opcode: Fcmp,
                    cond: cc,
                    args: [v, v],
                },
                t,
                &[a, b],
            )
            .unwrap()[0]
        };
        assert_eq!(cmp(FloatCC::Une, fb(f32::NAN), fb(1.0)), 1);
        assert_eq!(cmp(FloatCC::Oeq, fb(0.0), fb(-0.0)), 1);
        assert_eq!(cmp(FloatCC::Oeq, denorm, 0), 1);
    }

    #[test]
    fn f16_round_trip_all() {
        for h in 0..=u16::MAX {
            let x = f16_to_f32(h);
            if x.is_nan() {
                continue;
            }
            assert_eq!(f32_to_f16(x), h, "{h:#x}");
        }
    }

    #[test]
    fn ldexp_frexp() {
        for &x in &[1.0, -3.5, 1e-310, f64::MAX, 5e-324, 0.1, -0.0] {
            let (m, e) = frexp(x);
            if x != 0.0 {
                assert!((0.5..1.0).contains(&m.abs()), "{x}: {m}");
            }
            assert_eq!(ldexp(m, e), x, "{x}");
        }
        assert_eq!(frexp(f64::INFINITY).1, -1);
        assert!(frexp(f64::NAN).0.is_nan());
        assert_eq!(ldexp(1.0, 1024), f64::INFINITY);
        assert_eq!(ldexp(1.0, -1074), 5e-324);
        assert_eq!(ldexp(1.0, -1076), 0.0);
        assert_eq!(ldexp(3.0, -1075), 1e-323); // 1.5 units rounds to even: 2 units
        assert_eq!(ldexp(1.0, -1075), 0.0); // half a unit ties to even 0
        assert_eq!(ldexp(1.5, 3), 12.0);
        let v = Value::new(0);
        let fl = |x: f32, e: i32| {
            eval_pure(
                &InstructionData::Binary {
                    opcode: Opcode::Fldexp,
                    args: [v, v],
                },
                Type::B32,
                &[fb(x), e as u32 as u64],
            )
            .unwrap()[0]
        };
        assert_eq!(fl(1.5, 2), fb(6.0));
        assert_eq!(fl(1.0, -130), 0); // denormal result flushed
        assert_eq!(fl(1.0, 200), fb(f32::INFINITY));
    }

    #[test]
    fn doubles_and_packing() {
        use Opcode::*;
        let t = Type::B64;
        assert_eq!(
            bin(Dadd, t, 1.5f64.to_bits(), 2.0f64.to_bits()),
            3.5f64.to_bits()
        );
        assert_eq!(un(D2f, 1.5f64.to_bits()), fb(1.5));
        assert_eq!(un(D2i, f64::NAN.to_bits()), 0);
        assert_eq!(un(I2d, 0xFFFF_FFFF), (-1.0f64).to_bits());
        assert_eq!(
            bin(Concat, Type::B32, 0x1111_2222, 0x3333_4444),
            0x3333_4444_1111_2222
        );
        assert_eq!(un(Hi, 0x3333_4444_1111_2222), 0x3333_4444);
        assert_eq!(un(Lo, 0x3333_4444_1111_2222), 0x1111_2222);
    }
}
