//! CAL element formats (`CALformat`): bytes per element, how a resource of the format is read
//! as a texture, and how a pixel-shader output vec4 is stored into it.
//!
//! The numbering is the SDK 2.x one; the SDK 1.x names (`CAL_FORMAT_FLOAT_4`,
//! `CAL_FORMAT_UINT_1`, ...) are aliases with the same values. The 32-bit "normalized" integer
//! formats (`UNORM_INT32`, `SNORM_INT32`, which the old `UINT`/`INT` names alias) hold raw
//! 32-bit integers, as CAL programs use them.

use isa_amdil::interp::texture::TexelFormat;

/// How the components of a format are stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Unsigned normalized (`v / max`).
    Unorm,
    /// Signed normalized.
    Snorm,
    /// IEEE float (16, 32 or 64 bits).
    Float,
    /// Unsigned integer.
    Uint,
    /// Signed integer.
    Sint,
    /// Packed (5-6-5, x-5-5-5, x-10-10-10): storage only, not converted.
    Packed,
}

/// One `CALformat`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Format {
    /// The `CALformat` value.
    pub code: u32,
    /// Components per element.
    pub comps: u8,
    /// Bits per component (packed formats: bits of the whole element).
    pub bits: u8,
    /// Storage kind.
    pub kind: Kind,
    /// The SDK 2.x enumerator name without `CAL_FORMAT_`.
    pub name: &'static str,
}

const TABLE: [(u8, u8, Kind, &str); 47] = {
    use Kind::*;
    [
        (1, 8, Unorm, "UNORM_INT8_1"),
        (2, 8, Unorm, "UNORM_INT8_2"),
        (4, 8, Unorm, "UNORM_INT8_4"),
        (1, 16, Unorm, "UNORM_INT16_1"),
        (2, 16, Unorm, "UNORM_INT16_2"),
        (4, 16, Unorm, "UNORM_INT16_4"),
        (4, 32, Uint, "UNORM_INT32_4"),
        (4, 8, Snorm, "SNORM_INT8_4"),
        (1, 16, Snorm, "SNORM_INT16_1"),
        (2, 16, Snorm, "SNORM_INT16_2"),
        (4, 16, Snorm, "SNORM_INT16_4"),
        (1, 32, Float, "FLOAT32_1"),
        (2, 32, Float, "FLOAT32_2"),
        (4, 32, Float, "FLOAT32_4"),
        (1, 64, Float, "FLOAT64_1"),
        (2, 64, Float, "FLOAT64_2"),
        (1, 32, Uint, "UNORM_INT32_1"),
        (2, 32, Uint, "UNORM_INT32_2"),
        (1, 8, Snorm, "SNORM_INT8_1"),
        (2, 8, Snorm, "SNORM_INT8_2"),
        (1, 32, Sint, "SNORM_INT32_1"),
        (2, 32, Sint, "SNORM_INT32_2"),
        (4, 32, Sint, "SNORM_INT32_4"),
        (1, 8, Uint, "UNSIGNED_INT8_1"),
        (2, 8, Uint, "UNSIGNED_INT8_2"),
        (4, 8, Uint, "UNSIGNED_INT8_4"),
        (1, 8, Sint, "SIGNED_INT8_1"),
        (2, 8, Sint, "SIGNED_INT8_2"),
        (4, 8, Sint, "SIGNED_INT8_4"),
        (1, 16, Uint, "UNSIGNED_INT16_1"),
        (2, 16, Uint, "UNSIGNED_INT16_2"),
        (4, 16, Uint, "UNSIGNED_INT16_4"),
        (1, 16, Sint, "SIGNED_INT16_1"),
        (2, 16, Sint, "SIGNED_INT16_2"),
        (4, 16, Sint, "SIGNED_INT16_4"),
        (1, 32, Uint, "UNSIGNED_INT32_1"),
        (2, 32, Uint, "UNSIGNED_INT32_2"),
        (4, 32, Uint, "UNSIGNED_INT32_4"),
        (1, 32, Sint, "SIGNED_INT32_1"),
        (2, 32, Sint, "SIGNED_INT32_2"),
        (4, 32, Sint, "SIGNED_INT32_4"),
        (3, 16, Packed, "UNORM_SHORT_565"),
        (4, 16, Packed, "UNORM_SHORT_555"),
        (4, 32, Packed, "UNORM_INT10_3"),
        (1, 16, Float, "FLOAT16_1"),
        (2, 16, Float, "FLOAT16_2"),
        (4, 16, Float, "FLOAT16_4"),
    ]
};

impl Format {
    /// The format with `CALformat` value `code`.
    pub fn from_code(code: u32) -> Option<Format> {
        let &(comps, bits, kind, name) = TABLE.get(code as usize)?;
        Some(Format {
            code,
            comps,
            bits,
            kind,
            name,
        })
    }

    /// Bytes per element.
    pub fn bytes(&self) -> usize {
        if self.kind == Kind::Packed {
            self.bits as usize / 8
        } else {
            self.comps as usize * self.bits as usize / 8
        }
    }

    /// How a resource of this format is read through a texture: the texel format and the
    /// channel count (64-bit floats are read as pairs of 32-bit words, as IL reads doubles),
    /// or `None` where the texture unit has no such storage.
    pub fn texel(&self) -> Option<(TexelFormat, u8)> {
        let f = match (self.kind, self.bits) {
            (Kind::Float, 32) => TexelFormat::F32,
            (Kind::Float, 64) => return Some((TexelFormat::U32, 2 * self.comps)),
            (Kind::Uint, 32) => TexelFormat::U32,
            (Kind::Sint, 32) => TexelFormat::S32,
            (Kind::Unorm, 8) => TexelFormat::Unorm8,
            (Kind::Uint, 8) => TexelFormat::U8,
            (Kind::Unorm, 16) => TexelFormat::Unorm16,
            (Kind::Uint, 16) => TexelFormat::U16,
            _ => return None,
        };
        Some((f, self.comps))
    }

    /// Stores the pixel-shader output `v` (the four 32-bit words of an `o#` register) as one
    /// element of this format into `out` (`self.bytes()` long): 32- and 64-bit formats take
    /// the leading words as they are; narrower integer formats truncate; normalized formats
    /// clamp and round the float value; 16-bit floats round to nearest even. `None` for the
    /// packed formats.
    pub fn store(&self, v: [u32; 4], out: &mut [u8]) -> Option<()> {
        let words = self.comps as usize * self.bits as usize / 32;
        if self.bits >= 32 && self.kind != Kind::Packed {
            for (i, w) in v.iter().take(words).enumerate() {
                out[4 * i..4 * i + 4].copy_from_slice(&w.to_le_bytes());
            }
            return Some(());
        }
        let n = self.comps as usize;
        for (c, &w) in v.iter().take(n).enumerate() {
            let f = f32::from_bits(w);
            let x: u32 = match (self.kind, self.bits) {
                (Kind::Unorm, b) => unorm(f, b),
                (Kind::Snorm, b) => snorm(f, b),
                (Kind::Uint | Kind::Sint, _) => w,
                (Kind::Float, 16) => f32_to_f16(f) as u32,
                _ => return None,
            };
            match self.bits {
                8 => out[c] = x as u8,
                16 => out[2 * c..2 * c + 2].copy_from_slice(&(x as u16).to_le_bytes()),
                _ => return None,
            }
        }
        Some(())
    }
}

fn unorm(f: f32, bits: u8) -> u32 {
    let max = ((1u32 << bits) - 1) as f32;
    let f = if f.is_nan() { 0.0 } else { f.clamp(0.0, 1.0) };
    (f * max).round_ties_even() as u32
}

fn snorm(f: f32, bits: u8) -> u32 {
    let max = ((1u32 << (bits - 1)) - 1) as f32;
    let f = if f.is_nan() { 0.0 } else { f.clamp(-1.0, 1.0) };
    (f * max).round_ties_even() as i32 as u32
}

/// IEEE binary32 to binary16, round to nearest even (overflow to infinity, NaN kept quiet).
pub fn f32_to_f16(f: f32) -> u16 {
    let b = f.to_bits();
    let sign = ((b >> 16) & 0x8000) as u16;
    let exp = ((b >> 23) & 0xff) as i32;
    let man = b & 0x7f_ffff;
    if exp == 0xff {
        return sign | 0x7c00 | if man != 0 { 0x200 } else { 0 };
    }
    let e = exp - 127 + 15;
    if e >= 31 {
        return sign | 0x7c00;
    }
    if e <= 0 {
        // Subnormal half (or zero): shift the full significand into place.
        if e < -10 {
            return sign;
        }
        let m = man | 0x80_0000;
        let shift = (14 - e) as u32;
        let half = m >> shift;
        let rem = m & ((1 << shift) - 1);
        let mid = 1 << (shift - 1);
        let round = rem > mid || (rem == mid && half & 1 == 1);
        return sign | (half + round as u32) as u16;
    }
    let half = ((e as u32) << 10) | (man >> 13);
    let rem = man & 0x1fff;
    let round = rem > 0x1000 || (rem == 0x1000 && half & 1 == 1);
    // A carry out of the mantissa correctly bumps the exponent (up to infinity).
    sign | (half + round as u32) as u16
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_aliases() {
        let f = Format::from_code(13).unwrap();
        assert_eq!((f.name, f.bytes()), ("FLOAT32_4", 16));
        assert_eq!(Format::from_code(16).unwrap().bytes(), 4); // UINT_1
        assert_eq!(Format::from_code(14).unwrap().bytes(), 8); // DOUBLE_1
        assert_eq!(Format::from_code(2).unwrap().bytes(), 4); // UBYTE_4
        assert_eq!(Format::from_code(41).unwrap().bytes(), 2); // 565
        assert_eq!(Format::from_code(46).unwrap().bytes(), 8); // FLOAT16_4
        assert!(Format::from_code(47).is_none());
    }

    #[test]
    fn texel_formats() {
        assert_eq!(
            Format::from_code(11).unwrap().texel(),
            Some((TexelFormat::F32, 1))
        );
        assert_eq!(
            Format::from_code(15).unwrap().texel(),
            Some((TexelFormat::U32, 4))
        );
        assert_eq!(
            Format::from_code(2).unwrap().texel(),
            Some((TexelFormat::Unorm8, 4))
        );
        assert_eq!(Format::from_code(7).unwrap().texel(), None); // SNORM_INT8_4
    }

    #[test]
    fn stores_outputs() {
        let v = [1.5f32.to_bits(), 2.0f32.to_bits(), 0.5f32.to_bits(), 7];
        let mut out = [0u8; 16];
        Format::from_code(12).unwrap().store(v, &mut out).unwrap();
        assert_eq!(&out[..8], &[0, 0, 0xc0, 0x3f, 0, 0, 0, 0x40]);
        let mut out = [0u8; 4];
        Format::from_code(2).unwrap().store(v, &mut out).unwrap();
        assert_eq!(out, [255, 255, 128, 0]);
        let mut out = [0u8; 2];
        Format::from_code(44).unwrap().store(v, &mut out).unwrap();
        assert_eq!(u16::from_le_bytes(out), 0x3e00);
        assert!(Format::from_code(41)
            .unwrap()
            .store(v, &mut [0u8; 2])
            .is_none());
    }

    #[test]
    fn half_rounding() {
        assert_eq!(f32_to_f16(1.0), 0x3c00);
        assert_eq!(f32_to_f16(65504.0), 0x7bff);
        assert_eq!(f32_to_f16(65520.0), 0x7c00);
        assert_eq!(f32_to_f16(-0.0), 0x8000);
        assert_eq!(f32_to_f16(f32::from_bits(0x3380_0000)), 0x0001); // 2^-24
        assert_eq!(f32_to_f16(f32::NAN) & 0x7e00, 0x7e00);
    }
}
