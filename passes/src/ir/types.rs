//! Value types of the IR.
//!
//! The IR is untyped at the bit level, like AMD IL: a `b32` value is 32 raw bits that an
//! integer opcode reads as a two's-complement/unsigned integer and a float opcode reads as
//! an IEEE binary32. `b64` is 64 raw bits (a 64-bit integer or an IEEE binary64), `pred` is
//! a one-bit predicate (Maxwell's predicate register file). Vectors do not exist: a 128-bit
//! load has four `b32` results.
//!
//! Each type maps to a register file ([`RegFile`]); `b64` occupies an aligned pair of GPRs.

use core::fmt;

/// The type of an SSA value.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Type {
    /// 32 raw bits.
    B32,
    /// 64 raw bits.
    B64,
    /// A boolean predicate.
    Pred,
}

impl Type {
    /// All types, in a stable order (useful for tests).
    pub const ALL: [Type; 3] = [Type::B32, Type::B64, Type::Pred];

    /// Size in bits (a predicate counts as 1).
    pub fn bits(self) -> u32 {
        match self {
            Type::B32 => 32,
            Type::B64 => 64,
            Type::Pred => 1,
        }
    }

    /// The bit mask covering a value of this type inside a `u64` interpreter cell.
    pub fn mask(self) -> u64 {
        match self {
            Type::B32 => 0xFFFF_FFFF,
            Type::B64 => u64::MAX,
            Type::Pred => 1,
        }
    }

    /// Register file holding values of this type.
    pub fn reg_file(self) -> RegFile {
        match self {
            Type::B32 | Type::B64 => RegFile::Gpr,
            Type::Pred => RegFile::Pred,
        }
    }

    /// The text name (`b32`, `b64`, `pred`).
    pub fn name(self) -> &'static str {
        match self {
            Type::B32 => "b32",
            Type::B64 => "b64",
            Type::Pred => "pred",
        }
    }

    /// Parses a text name.
    pub fn from_name(s: &str) -> Option<Type> {
        Type::ALL.into_iter().find(|t| t.name() == s)
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A register file (register class), as in NAK's `RegFile`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RegFile {
    /// General purpose 32-bit registers (`b64` uses an aligned pair).
    Gpr,
    /// Predicate registers.
    Pred,
}

impl RegFile {
    /// All register files, indexable by `as usize`.
    pub const ALL: [RegFile; 2] = [RegFile::Gpr, RegFile::Pred];
}

/// A per-register-file array (NAK's `PerRegFile`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct PerRegFile<T>(pub [T; 2]);

impl<T> core::ops::Index<RegFile> for PerRegFile<T> {
    type Output = T;
    fn index(&self, rf: RegFile) -> &T {
        &self.0[rf as usize]
    }
}

impl<T> core::ops::IndexMut<RegFile> for PerRegFile<T> {
    fn index_mut(&mut self, rf: RegFile) -> &mut T {
        &mut self.0[rf as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for t in Type::ALL {
            assert_eq!(Type::from_name(t.name()), Some(t));
        }
        assert_eq!(Type::from_name("i32"), None);
        assert_eq!(Type::B64.reg_file(), RegFile::Gpr);
        let mut p = PerRegFile::<u32>::default();
        p[RegFile::Pred] += 2;
        assert_eq!(p.0, [0, 2]);
    }
}
