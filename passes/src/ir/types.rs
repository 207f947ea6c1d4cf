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

/// The result types of a `Target` instruction, packed into one word: at most
/// [`TypeList::CAPACITY`] types of two bits each and a count. A `SmallVec` here cost 24 bytes
/// in every IR instruction (it sized the whole [`InstructionData`](super::InstructionData)
/// enum); machine instructions have at most four results.
#[derive(Copy, Clone, Default, PartialEq, Eq, Hash)]
pub struct TypeList(u32);

impl TypeList {
    /// The most types a list holds.
    pub const CAPACITY: usize = 14;

    /// An empty list.
    pub const fn new() -> TypeList {
        TypeList(0)
    }

    /// A list of `tys`, or `None` when there are more than [`TypeList::CAPACITY`].
    pub fn from_slice(tys: &[Type]) -> Option<TypeList> {
        let mut l = TypeList::new();
        for &t in tys {
            l.try_push(t).ok()?;
        }
        Some(l)
    }

    /// Number of types.
    pub fn len(self) -> usize {
        (self.0 & 0xF) as usize
    }

    /// True when the list is empty.
    pub fn is_empty(self) -> bool {
        self.len() == 0
    }

    /// Type number `i`, if there is one.
    pub fn get(self, i: usize) -> Option<Type> {
        (i < self.len()).then(|| Type::ALL[((self.0 >> (4 + 2 * i)) & 3) as usize])
    }

    /// Appends `ty`; `Err(ty)` when the list is full.
    pub fn try_push(&mut self, ty: Type) -> Result<(), Type> {
        let n = self.len();
        if n == Self::CAPACITY {
            return Err(ty);
        }
        let code = Type::ALL.iter().position(|&t| t == ty).unwrap_or(0) as u32;
        self.0 = (self.0 & !0xF) | (code << (4 + 2 * n)) | (n as u32 + 1);
        Ok(())
    }

    /// The types in order.
    pub fn iter(self) -> impl ExactSizeIterator<Item = Type> + Clone {
        (0..self.len()).map(move |i| Type::ALL[((self.0 >> (4 + 2 * i)) & 3) as usize])
    }
}

impl FromIterator<Type> for TypeList {
    /// Collects at most [`TypeList::CAPACITY`] types; more is a caller bug (machine
    /// instructions have at most four results) and panics.
    fn from_iter<I: IntoIterator<Item = Type>>(iter: I) -> TypeList {
        let mut l = TypeList::new();
        for t in iter {
            l.try_push(t)
                .expect("at most TypeList::CAPACITY result types");
        }
        l
    }
}

impl From<&[Type]> for TypeList {
    fn from(tys: &[Type]) -> TypeList {
        tys.iter().copied().collect()
    }
}

impl fmt::Debug for TypeList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
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

    #[test]
    fn type_lists_round_trip() {
        let all: Vec<Type> = (0..TypeList::CAPACITY).map(|i| Type::ALL[i % 3]).collect();
        for n in 0..=all.len() {
            let l = TypeList::from_slice(&all[..n]).expect("fits");
            assert_eq!(l.len(), n);
            assert_eq!(l.iter().collect::<Vec<_>>(), &all[..n]);
            assert_eq!(l.get(n), None);
        }
        let mut full = TypeList::from_slice(&all).expect("fits");
        assert_eq!(full.try_push(Type::B32), Err(Type::B32));
        assert_eq!(
            TypeList::from_slice(&[Type::B32; TypeList::CAPACITY + 1]),
            None
        );
        assert_eq!(
            format!("{:?}", TypeList::from(&[Type::B64, Type::Pred][..])),
            "[B64, Pred]"
        );
    }
}
