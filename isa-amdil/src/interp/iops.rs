//! Integer, unsigned and bit-manipulation semantics of AMD IL (guide sections 7.7, 7.8, 7.9,
//! 7.13), as pure functions on `u32` bit patterns.
//!
//! Every function here is total: no input panics, divisions by zero return the documented
//! convention of the module table in [`crate::interp`], shifts mask their count to 5 bits
//! (guide 7.2.7, L3240-3244) and 64-bit shifts to 6 bits. Constant folding in the compiler
//! may call these directly so the folded value is the interpreter's value by construction.

/// Boolean result of an IL comparison: all ones for true, zero for false (guide 7.2.1, L3042).
#[inline]
pub fn bool32(b: bool) -> u32 {
    if b {
        u32::MAX
    } else {
        0
    }
}

/// `iadd`: 32-bit wrap-around add (L5804).
#[inline]
pub fn iadd(a: u32, b: u32) -> u32 {
    a.wrapping_add(b)
}

/// `inegate`: two's complement negate (L5963).
#[inline]
pub fn inegate(a: u32) -> u32 {
    a.wrapping_neg()
}

/// `imul` / `umul`: low 32 bits of the product (L5911, L6156).
#[inline]
pub fn imul(a: u32, b: u32) -> u32 {
    a.wrapping_mul(b)
}

/// `imad` / `umad`: low 32 bits of `a*b + c` (L5870, L6093).
#[inline]
pub fn imad(a: u32, b: u32, c: u32) -> u32 {
    a.wrapping_mul(b).wrapping_add(c)
}

/// `imul_high`: high 32 bits of the signed 64-bit product (L5924).
#[inline]
pub fn imul_high(a: u32, b: u32) -> u32 {
    (((a as i32 as i64) * (b as i32 as i64)) >> 32) as u32
}

/// `umul_high`: high 32 bits of the unsigned 64-bit product (L6169).
#[inline]
pub fn umul_high(a: u32, b: u32) -> u32 {
    (((a as u64) * (b as u64)) >> 32) as u32
}

/// Sign-extends bits 23:0 (24-bit signed operand of `imul24`/`imad24`, L5883).
#[inline]
fn sext24(a: u32) -> i64 {
    (((a << 8) as i32) >> 8) as i64
}

/// `imul24`: signed 24 x 24 bit multiply, low 32 bits (L5937).
#[inline]
pub fn imul24(a: u32, b: u32) -> u32 {
    (sext24(a) * sext24(b)) as u32
}

/// `imad24`: `imul24(a, b) + c`, low 32 bits (L5883).
#[inline]
pub fn imad24(a: u32, b: u32, c: u32) -> u32 {
    imul24(a, b).wrapping_add(c)
}

/// `imul24_high`: bits 47:32 of the signed 48-bit product, sign-extended (L5950).
#[inline]
pub fn imul24_high(a: u32, b: u32) -> u32 {
    ((sext24(a) * sext24(b)) >> 32) as u32
}

/// `umul24`: unsigned 24 x 24 bit multiply (bits 31:24 ignored), low 32 bits (L6189).
#[inline]
pub fn umul24(a: u32, b: u32) -> u32 {
    (a & 0xFF_FFFF).wrapping_mul(b & 0xFF_FFFF)
}

/// `umad24`: `umul24(a, b) + c` (L6106).
#[inline]
pub fn umad24(a: u32, b: u32, c: u32) -> u32 {
    umul24(a, b).wrapping_add(c)
}

/// `umul24_high`: bits 47:32 of the unsigned 48-bit product (L6211).
#[inline]
pub fn umul24_high(a: u32, b: u32) -> u32 {
    (((a & 0xFF_FFFF) as u64 * (b & 0xFF_FFFF) as u64) >> 32) as u32
}

/// `udiv`: unsigned quotient; `x / 0 = 0xFFFFFFFF` (unspecified by the guide, L6039; our
/// convention, also what D3D11 and a Maxwell reciprocal-based sequence produce cheaply).
#[inline]
pub fn udiv(a: u32, b: u32) -> u32 {
    u64div(a.into(), b.into()) as u32
}

/// `umod`: unsigned remainder; `x % 0 = 0xFFFFFFFF` (unspecified by the guide, L6143).
#[inline]
pub fn umod(a: u32, b: u32) -> u32 {
    u64mod(a.into(), b.into()) as u32
}

/// `u64div` (enum only): the `udiv` convention in 64 bits, `x / 0` = all ones.
#[inline]
pub fn u64div(a: u64, b: u64) -> u64 {
    a.checked_div(b).unwrap_or(u64::MAX)
}

/// `u64mod` (enum only): `x % 0` = all ones, as `umod`.
#[inline]
pub fn u64mod(a: u64, b: u64) -> u64 {
    a.checked_rem(b).unwrap_or(u64::MAX)
}

/// `i64div` (enum only): signed, truncating; `x / 0` = -1 (all ones, as `udiv`),
/// `i64::MIN / -1` = `i64::MIN` (wraps).
#[inline]
pub fn i64div(a: u64, b: u64) -> u64 {
    match b {
        0 => u64::MAX,
        _ => (a as i64).wrapping_div(b as i64) as u64,
    }
}

/// `i64mod` (enum only): signed remainder with the sign of the dividend; `x % 0` = -1.
#[inline]
pub fn i64mod(a: u64, b: u64) -> u64 {
    match b {
        0 => u64::MAX,
        _ => (a as i64).wrapping_rem(b as i64) as u64,
    }
}

/// `ishl`: shift left by `b & 31` (L6004, L3242).
#[inline]
pub fn ishl(a: u32, b: u32) -> u32 {
    a << (b & 31)
}

/// `ishr`: arithmetic shift right by `b & 31` (L6004).
#[inline]
pub fn ishr(a: u32, b: u32) -> u32 {
    ((a as i32) >> (b & 31)) as u32
}

/// `ushr`: logical shift right by `b & 31` (L6224).
#[inline]
pub fn ushr(a: u32, b: u32) -> u32 {
    a >> (b & 31)
}

/// `imin`: signed minimum (L5896).
#[inline]
pub fn imin(a: u32, b: u32) -> u32 {
    (a as i32).min(b as i32) as u32
}

/// `imax`: signed maximum (L5896).
#[inline]
pub fn imax(a: u32, b: u32) -> u32 {
    (a as i32).max(b as i32) as u32
}

/// `icarry`: 1 if the unsigned add overflows, else 0 (L5839).
#[inline]
pub fn icarry(a: u32, b: u32) -> u32 {
    a.overflowing_add(b).1 as u32
}

/// `iborrow`: 1 if the unsigned subtract `a - b` borrows, else 0 (L5828).
#[inline]
pub fn iborrow(a: u32, b: u32) -> u32 {
    (a < b) as u32
}

/// `icbits`: population count (L6250).
#[inline]
pub fn icountbits(a: u32) -> u32 {
    a.count_ones()
}

/// `ffb_lo`: index of the lowest set bit, 0xFFFFFFFF if none (L6261).
#[inline]
pub fn ffb_lo(a: u32) -> u32 {
    if a == 0 {
        u32::MAX
    } else {
        a.trailing_zeros()
    }
}

/// `ffb_hi`: position of the highest set bit counted from the MSB (DX11 `firstbit_hi`:
/// 0x80000000 -> 0, 1 -> 31), 0xFFFFFFFF if none (L6261; direction is a GAP, our convention,
/// which is Maxwell `FLO.U32.SH`).
#[inline]
pub fn ffb_hi(a: u32) -> u32 {
    if a == 0 {
        u32::MAX
    } else {
        a.leading_zeros()
    }
}

/// `ffb_shi`: like [`ffb_hi`] on `a` if non-negative, on `!a` if negative (first bit that
/// differs from the sign), 0xFFFFFFFF if none (L6261; Maxwell `FLO.S32.SH`).
#[inline]
pub fn ffb_shi(a: u32) -> u32 {
    if (a as i32) < 0 {
        ffb_hi(!a)
    } else {
        ffb_hi(a)
    }
}

/// `ubit_extract`: zero-extended field of `src` with width `w & 31` at offset `o & 31`;
/// width 0 gives 0; width + offset >= 32 gives `src >> offset` (L6272).
#[inline]
pub fn ubit_extract(w: u32, o: u32, src: u32) -> u32 {
    let (w, o) = (w & 31, o & 31);
    if w == 0 {
        0
    } else if w + o < 32 {
        (src << (32 - w - o)) >> (32 - w)
    } else {
        src >> o
    }
}

/// `ibit_extract`: sign-extended field, same width/offset rules as [`ubit_extract`] with
/// arithmetic shifts (L6237).
#[inline]
pub fn ibit_extract(w: u32, o: u32, src: u32) -> u32 {
    let (w, o) = (w & 31, o & 31);
    if w == 0 {
        0
    } else if w + o < 32 {
        (((src << (32 - w - o)) as i32) >> (32 - w)) as u32
    } else {
        ((src as i32) >> o) as u32
    }
}

/// `ubit_insert`: `mask = ((1<<w)-1) << o; ((src2 << o) & mask) | (src3 & !mask)`,
/// width 0 gives `src3` (L6285).
#[inline]
pub fn ubit_insert(w: u32, o: u32, src2: u32, src3: u32) -> u32 {
    let (w, o) = (w & 31, o & 31);
    if w == 0 {
        return src3;
    }
    let mask = (((1u64 << w) - 1) << o) as u32;
    ((src2 << o) & mask) | (src3 & !mask)
}

/// `ubit_reverse`: reverse bit order (L6298).
#[inline]
pub fn ubit_reverse(a: u32) -> u32 {
    a.reverse_bits()
}

/// `bitalign`: low 32 bits of `{hi:lo} >> (s & 31)` (L7863).
#[inline]
pub fn bitalign(hi: u32, lo: u32, s: u32) -> u32 {
    ((((hi as u64) << 32) | lo as u64) >> (s & 31)) as u32
}

/// `bytealign`: low 32 bits of `{hi:lo} >> 8*(s & 3)` (L7876).
#[inline]
pub fn bytealign(hi: u32, lo: u32, s: u32) -> u32 {
    ((((hi as u64) << 32) | lo as u64) >> (8 * (s & 3))) as u32
}

/// `sad`: sum of absolute byte differences of `a` and `b`, plus `c` (L7898).
#[inline]
pub fn sad(a: u32, b: u32, c: u32) -> u32 {
    let mut s = c;
    for i in 0..4 {
        let x = (a >> (8 * i)) & 0xFF;
        let y = (b >> (8 * i)) & 0xFF;
        s = s.wrapping_add(x.abs_diff(y));
    }
    s
}

/// `sadhi`: `(sad(a, b, 0) << 16) + c` (L7909).
#[inline]
pub fn sad_hi(a: u32, b: u32, c: u32) -> u32 {
    (sad(a, b, 0) << 16).wrapping_add(c)
}

/// `u4lerp`: per byte `(a + b + (c & 1)) >> 1` using bit 0 of each byte of `c` as rounding
/// (L7931).
#[inline]
pub fn u4lerp(a: u32, b: u32, c: u32) -> u32 {
    let mut r = 0;
    for i in 0..4 {
        let x = (a >> (8 * i)) & 0xFF;
        let y = (b >> (8 * i)) & 0xFF;
        let z = (c >> (8 * i)) & 1;
        r |= (((x + y + z) >> 1) & 0xFF) << (8 * i);
    }
    r
}

/// Joins a 64-bit value from its low and high dwords (`.x`/`.z` low, `.y`/`.w` high, 7.2.8).
#[inline]
pub fn join64(lo: u32, hi: u32) -> u64 {
    ((hi as u64) << 32) | lo as u64
}

/// Splits a 64-bit value into (low, high) dwords.
#[inline]
pub fn split64(v: u64) -> (u32, u32) {
    (v as u32, (v >> 32) as u32)
}

/// `i64shl`: 64-bit shift left by `s & 63` (L5786, 7.2.7).
#[inline]
pub fn i64shl(a: u64, s: u32) -> u64 {
    a << (s & 63)
}

/// `i64shr`: 64-bit arithmetic shift right by `s & 63` (L5786).
#[inline]
pub fn i64shr(a: u64, s: u32) -> u64 {
    ((a as i64) >> (s & 63)) as u64
}

/// `u64shr`: 64-bit logical shift right by `s & 63` (L6067).
#[inline]
pub fn u64shr(a: u64, s: u32) -> u64 {
    a >> (s & 63)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shifts_mask_count_to_five_bits() {
        // 7.2.7 (L3242): only the low 5 bits of the count are used.
        assert_eq!(ishl(1, 33), 2);
        assert_eq!(ushr(0x8000_0000, 63), 1);
        assert_eq!(ishr(0x8000_0000, 36), 0xF800_0000);
        // 64-bit forms use 6 bits (L3244).
        assert_eq!(i64shl(1, 64 + 40), 1 << 40);
        assert_eq!(u64shr(1 << 63, 63), 1);
        assert_eq!(i64shr(1 << 63, 62), 0xFFFF_FFFF_FFFF_FFFE);
    }

    #[test]
    fn multiplies() {
        // L5924: high half of the signed product: -1 * 1 = 0xFFFFFFFF_FFFFFFFF.
        assert_eq!(imul_high(u32::MAX, 1), u32::MAX);
        // L6169: unsigned: 0xFFFFFFFF * 2 = 0x1_FFFFFFFE.
        assert_eq!(umul_high(u32::MAX, 2), 1);
        // L5937: bit 23 is the sign of a 24-bit operand: 0x800000 = -2^23; bits 31:24 ignored.
        assert_eq!(imul24(0xFF80_0000, 2), 0xFF00_0000);
        assert_eq!(umul24(0xFF80_0000, 2), 0x0100_0000);
        assert_eq!(umul24_high(0xFF_FFFF, 0xFF_FFFF), 0xFFFF);
        assert_eq!(imul24_high(0x80_0000, 0x7F_FFFF), 0xFFFF_C000);
        assert_eq!(imad(3, 4, u32::MAX), 11);
    }

    #[test]
    fn division_conventions() {
        // L6039/L6143: /0 is unspecified; our convention is all ones.
        assert_eq!(udiv(7, 0), u32::MAX);
        assert_eq!(umod(7, 0), u32::MAX);
        assert_eq!(udiv(u32::MAX, 16), 0x0FFF_FFFF);
        assert_eq!(umod(100, 7), 2);
        assert_eq!(i64div(-7i64 as u64, 2), -3i64 as u64);
        assert_eq!(i64mod(-7i64 as u64, 2), -1i64 as u64);
        assert_eq!(i64div(i64::MIN as u64, u64::MAX), i64::MIN as u64);
        assert_eq!(i64div(7, 0), u64::MAX);
    }

    #[test]
    fn carry_and_borrow_return_one() {
        // L5828-5846: 1/0, not all ones.
        assert_eq!(icarry(u32::MAX, 1), 1);
        assert_eq!(icarry(5, 6), 0);
        assert_eq!(iborrow(5, 6), 1);
        assert_eq!(iborrow(6, 6), 0);
    }

    #[test]
    fn bit_fields() {
        // L6272: width 8 at offset 4.
        assert_eq!(ubit_extract(8, 4, 0x1234_5678), 0x67);
        assert_eq!(ibit_extract(8, 4, 0x0000_0F80), 0xFFFF_FFF8);
        // width 0 -> 0; width + offset >= 32 -> src >> offset.
        assert_eq!(ubit_extract(0, 4, 0xFFFF_FFFF), 0);
        assert_eq!(ubit_extract(20, 20, 0xF000_0000), 0xF00);
        assert_eq!(ibit_extract(20, 20, 0xF000_0000), 0xFFFF_FF00);
        // L6285.
        assert_eq!(ubit_insert(8, 8, 0xAB, 0x1111_1111), 0x1111_AB11);
        assert_eq!(ubit_insert(0, 8, 0xAB, 0x1111_1111), 0x1111_1111);
        assert_eq!(ubit_insert(31, 1, 0xFFFF_FFFF, 0), 0xFFFF_FFFE);
        // L6298.
        assert_eq!(ubit_reverse(0x1234_5678), 0x1E6A_2C48);
        // L6250, L6261.
        assert_eq!(icountbits(0xF0F0_0001), 9);
        assert_eq!(ffb_lo(0x0000_0100), 8);
        assert_eq!(ffb_lo(0), u32::MAX);
        assert_eq!(ffb_hi(0x8000_0000), 0);
        assert_eq!(ffb_hi(1), 31);
        assert_eq!(ffb_shi(0xFFFF_FFFE), 31);
        assert_eq!(ffb_shi(u32::MAX), u32::MAX);
    }

    #[test]
    fn funnel_shifts_and_media() {
        // L7871 (with the digest's erratum correction).
        assert_eq!(bitalign(0x0123_4567, 0x89AB_CDEF, 4), 0x789A_BCDE);
        assert_eq!(bytealign(0x0123_4567, 0x89AB_CDEF, 1), 0x6789_ABCD);
        assert_eq!(sad(0x0102_0304, 0x0401_0203, 10), 10 + 3 + 1 + 1 + 1);
        assert_eq!(sad_hi(0x05, 0x01, 1), (4 << 16) + 1);
        assert_eq!(u4lerp(0x0000_0003, 0x0000_0004, 1), 4);
    }
}
