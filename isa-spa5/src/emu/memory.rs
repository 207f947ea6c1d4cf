//! Memory of the emulator: sparse global memory made of allocations, and little-endian
//! accessors shared by the global, shared, local and constant spaces.
//!
//! Global addresses start at `0x1_0000_0000`, so the high word of every pointer is non-zero
//! and 64-bit address arithmetic (`LEA.HI.X`, `IADD.X`) is exercised; allocations are
//! 256-byte aligned with a 256-byte gap between them, so an access running off the end of
//! a buffer is an error rather than a read of its neighbour.

use std::collections::BTreeMap;
use std::fmt;

/// A memory space, for error messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Space {
    /// Global memory.
    Global,
    /// The block's shared memory.
    Shared,
    /// The thread's local memory.
    Local,
    /// A constant bank.
    Const(u8),
}

impl fmt::Display for Space {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Space::Global => f.write_str("global"),
            Space::Shared => f.write_str("shared"),
            Space::Local => f.write_str("local"),
            Space::Const(b) => write!(f, "constant bank {b}"),
        }
    }
}

/// First global address handed out.
const BASE: u64 = 0x1_0000_0000;

/// Global memory: allocations by base address.
#[derive(Clone, Debug, Default)]
pub(crate) struct Global {
    allocs: BTreeMap<u64, Vec<u8>>,
    next: u64,
}

impl Global {
    pub(crate) fn alloc(&mut self, bytes: u64) -> u64 {
        if self.next == 0 {
            self.next = BASE;
        }
        let base = self.next;
        let size = bytes.max(1);
        self.allocs.insert(base, vec![0; size as usize]);
        self.next = (base + size).next_multiple_of(256) + 256;
        base
    }

    pub(crate) fn slice(&self, addr: u64, len: u64) -> Option<&[u8]> {
        let (&base, buf) = self.allocs.range(..=addr).next_back()?;
        let off = (addr - base) as usize;
        buf.get(off..off.checked_add(len as usize)?)
    }

    pub(crate) fn slice_mut(&mut self, addr: u64, len: u64) -> Option<&mut [u8]> {
        let (&base, buf) = self.allocs.range_mut(..=addr).next_back()?;
        let off = (addr - base) as usize;
        buf.get_mut(off..off.checked_add(len as usize)?)
    }
}

/// Reads `n` (1..=16) bytes little-endian from `buf` at `at` into 32-bit words.
pub(crate) fn read_words(buf: &[u8], at: usize, n: usize) -> Option<[u32; 4]> {
    let src = buf.get(at..at.checked_add(n)?)?;
    let mut out = [0u32; 4];
    for (i, b) in src.iter().enumerate() {
        out[i / 4] |= (*b as u32) << (8 * (i % 4));
    }
    Some(out)
}

/// Writes the low `n` bytes of `words` little-endian into `buf` at `at`.
pub(crate) fn write_words(buf: &mut [u8], at: usize, n: usize, words: &[u32; 4]) -> bool {
    let Some(dst) = at.checked_add(n).and_then(|end| buf.get_mut(at..end)) else {
        return false;
    };
    for (i, b) in dst.iter_mut().enumerate() {
        *b = (words[i / 4] >> (8 * (i % 4))) as u8;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allocations_are_separated_and_bounded() {
        let mut g = Global::default();
        let a = g.alloc(10);
        let b = g.alloc(4);
        assert_eq!(a, BASE);
        assert!(b >= a + 10 + 256);
        assert_eq!(b % 256, 0);
        assert!(g.slice(a, 10).is_some());
        assert!(g.slice(a + 8, 4).is_none(), "runs off the end");
        assert!(g.slice(a + 10, 1).is_none(), "in the gap");
        assert!(g.slice(0x10, 4).is_none());
        g.slice_mut(b, 4).unwrap().copy_from_slice(&[1, 2, 3, 4]);
        assert_eq!(
            read_words(g.slice(b, 4).unwrap(), 0, 4).unwrap()[0],
            0x0403_0201
        );
    }

    #[test]
    fn word_access() {
        let mut buf = vec![0u8; 16];
        assert!(write_words(&mut buf, 2, 6, &[0x1122_3344, 0x5566, 0, 0]));
        assert_eq!(&buf[2..8], &[0x44, 0x33, 0x22, 0x11, 0x66, 0x55]);
        assert_eq!(read_words(&buf, 2, 6).unwrap()[..2], [0x1122_3344, 0x5566]);
        assert!(!write_words(&mut buf, 14, 4, &[0; 4]));
        assert!(read_words(&buf, 15, 2).is_none());
    }
}
