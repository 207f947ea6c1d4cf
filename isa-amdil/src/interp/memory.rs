//! Byte-buffer memory model of the interpreter: bounds-checked dword and sub-dword access,
//! atomic read-modify-write, and the LDS race detector used by `--lds-check`.
//!
//! Rules (guide 7.2.12 L3334-3384, 7.2.10 L3254-3310): addresses are bytes; a dword access
//! ignores the two low address bits (the guide requires 4-byte alignment, hardware drops
//! them); each dword is bounds-checked on its own, an out-of-range load reads 0 and an
//! out-of-range store or atomic does nothing (an atomic then returns 0).

use std::collections::HashMap;

use super::program::{AtomicOp, Width};

/// Reads the dword at byte `addr & !3`, `None` when out of range.
#[inline]
pub fn load_u32(buf: &[u8], addr: u64) -> Option<u32> {
    let a = usize::try_from(addr & !3).ok()?;
    let bytes = buf.get(a..a.checked_add(4)?)?;
    Some(u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
}

/// Writes the dword at byte `addr & !3`; returns false (and writes nothing) when out of range.
#[inline]
pub fn store_u32(buf: &mut [u8], addr: u64, v: u32) -> bool {
    let Ok(a) = usize::try_from(addr & !3) else {
        return false;
    };
    let Some(end) = a.checked_add(4) else {
        return false;
    };
    match buf.get_mut(a..end) {
        Some(s) => {
            s.copy_from_slice(&v.to_le_bytes());
            true
        }
        None => false,
    }
}

/// Reads a value of `w` at byte `addr` (aligned down to the access size), extended to 32 bits.
pub fn load_width(buf: &[u8], addr: u64, w: Width) -> Option<u32> {
    match w {
        Width::U32 => load_u32(buf, addr),
        Width::U8 | Width::I8 => {
            let v = *buf.get(usize::try_from(addr).ok()?)?;
            Some(if w == Width::I8 {
                v as i8 as i32 as u32
            } else {
                v as u32
            })
        }
        Width::U16 | Width::I16 => {
            let a = usize::try_from(addr & !1).ok()?;
            let s = buf.get(a..a.checked_add(2)?)?;
            let v = u16::from_le_bytes([s[0], s[1]]);
            Some(if w == Width::I16 {
                v as i16 as i32 as u32
            } else {
                v as u32
            })
        }
    }
}

/// Writes the low bits of `v` with width `w`; false when out of range.
pub fn store_width(buf: &mut [u8], addr: u64, w: Width, v: u32) -> bool {
    match w {
        Width::U32 => store_u32(buf, addr, v),
        Width::U8 | Width::I8 => match usize::try_from(addr).ok().and_then(|a| buf.get_mut(a)) {
            Some(b) => {
                *b = v as u8;
                true
            }
            None => false,
        },
        Width::U16 | Width::I16 => {
            let Ok(a) = usize::try_from(addr & !1) else {
                return false;
            };
            let Some(end) = a.checked_add(2) else {
                return false;
            };
            match buf.get_mut(a..end) {
                Some(s) => {
                    s.copy_from_slice(&(v as u16).to_le_bytes());
                    true
                }
                None => false,
            }
        }
    }
}

/// The new memory value of an atomic: `old` combined with `s1` (and `s2` for cmpxchg, where
/// `s1` is the compare value and `s2` the new one, and for mskor).
pub fn atomic_new(op: AtomicOp, old: u32, s1: u32, s2: u32) -> u32 {
    match op {
        AtomicOp::Add => old.wrapping_add(s1),
        AtomicOp::Sub => old.wrapping_sub(s1),
        AtomicOp::Rsub => s1.wrapping_sub(old),
        AtomicOp::Min => (old as i32).min(s1 as i32) as u32,
        AtomicOp::Max => (old as i32).max(s1 as i32) as u32,
        AtomicOp::Umin => old.min(s1),
        AtomicOp::Umax => old.max(s1),
        AtomicOp::And => old & s1,
        AtomicOp::Or => old | s1,
        AtomicOp::Xor => old ^ s1,
        AtomicOp::Xchg => s1,
        AtomicOp::CmpXchg => {
            if old == s1 {
                s2
            } else {
                old
            }
        }
        AtomicOp::Inc => {
            if old >= s1 {
                0
            } else {
                old + 1
            }
        }
        AtomicOp::Dec => {
            if old == 0 || old > s1 {
                s1
            } else {
                old - 1
            }
        }
        AtomicOp::MskOr => (old & !s1) | s2,
    }
}

/// Applies an atomic to the dword at `addr`; returns the old value, or `None` if out of range.
pub fn atomic(buf: &mut [u8], addr: u64, op: AtomicOp, s1: u32, s2: u32) -> Option<u32> {
    let old = load_u32(buf, addr)?;
    store_u32(buf, addr, atomic_new(op, old, s1, s2));
    Some(old)
}

/// Per-dword access record of one barrier interval: up to two distinct plain readers, two
/// distinct atomic users (enough to name a conflicting partner for any access) and the last
/// plain writer; `u32::MAX` = none.
#[derive(Clone, Copy, Debug)]
struct WordUse {
    readers: [u32; 2],
    atomics: [u32; 2],
    writer: u32,
}

const NOBODY: u32 = u32::MAX;

/// How a work-item touched an LDS dword.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// Plain load.
    Read,
    /// Plain store.
    Write,
    /// Atomic read-modify-write: does not race with other atomics, but does with plain
    /// accesses of other work-items.
    Atomic,
}

fn remember(slots: &mut [u32; 2], item: u32) {
    if slots[0] == NOBODY {
        slots[0] = item;
    } else if slots[0] != item && slots[1] == NOBODY {
        slots[1] = item;
    }
}

/// Tracks LDS dword accesses between barriers and reports conflicting pairs.
#[derive(Debug, Default)]
pub struct RaceTracker {
    words: HashMap<(u32, u32), WordUse>,
}

impl RaceTracker {
    /// Forgets all accesses (called at each barrier).
    pub fn clear(&mut self) {
        self.words.clear();
    }

    /// Records an access by `item` to dword `addr` of LDS `lds`; returns the other
    /// work-item if this access conflicts with an earlier one: two different work-items,
    /// at least one plain write, or an atomic against a plain access.
    pub fn access(&mut self, lds: u32, addr: u32, item: u32, how: Access) -> Option<u32> {
        let w = self.words.entry((lds, addr & !3)).or_insert(WordUse {
            readers: [NOBODY; 2],
            atomics: [NOBODY; 2],
            writer: NOBODY,
        });
        let other = |x: u32| x != NOBODY && x != item;
        let first_other = |slots: &[u32; 2]| slots.iter().copied().find(|&r| other(r));
        let conflict = if other(w.writer) {
            Some(w.writer)
        } else {
            match how {
                Access::Read => first_other(&w.atomics),
                Access::Write => first_other(&w.readers).or_else(|| first_other(&w.atomics)),
                Access::Atomic => first_other(&w.readers),
            }
        };
        match how {
            Access::Read => remember(&mut w.readers, item),
            Access::Write => w.writer = item,
            Access::Atomic => remember(&mut w.atomics, item),
        }
        conflict
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dword_bounds() {
        // L8826/L8841: out-of-range loads give 0 (None here), stores write nothing.
        let mut b = vec![0u8; 8];
        assert!(store_u32(&mut b, 4, 0xAABB_CCDD));
        assert_eq!(load_u32(&b, 4), Some(0xAABB_CCDD));
        assert_eq!(load_u32(&b, 7), Some(0xAABB_CCDD)); // low bits ignored
        assert_eq!(load_u32(&b, 8), None);
        assert!(!store_u32(&mut b, 8, 1));
        assert!(!store_u32(&mut b, u64::MAX, 1));
        assert_eq!(b[4..], [0xDD, 0xCC, 0xBB, 0xAA]);
    }

    #[test]
    fn sub_dword() {
        // L8275-8311: byte/short loads sign- or zero-extend.
        let mut b = vec![0u8; 4];
        assert!(store_width(&mut b, 1, Width::U8, 0x1FF));
        assert!(store_width(&mut b, 2, Width::U16, 0x8001));
        assert_eq!(load_width(&b, 1, Width::I8), Some(u32::MAX));
        assert_eq!(load_width(&b, 1, Width::U8), Some(0xFF));
        assert_eq!(load_width(&b, 2, Width::I16), Some(0xFFFF_8001));
        assert_eq!(load_width(&b, 3, Width::U16), Some(0x8001));
        assert_eq!(load_width(&b, 4, Width::U8), None);
    }

    #[test]
    fn atomics() {
        // L8978 inc wraps to 0 at the limit; L8967 dec wraps to the limit.
        assert_eq!(atomic_new(AtomicOp::Inc, 5, 5, 0), 0);
        assert_eq!(atomic_new(AtomicOp::Inc, 4, 5, 0), 5);
        assert_eq!(atomic_new(AtomicOp::Dec, 0, 5, 0), 5);
        assert_eq!(atomic_new(AtomicOp::Dec, 9, 5, 0), 5);
        assert_eq!(atomic_new(AtomicOp::Dec, 3, 5, 0), 2);
        assert_eq!(atomic_new(AtomicOp::Rsub, 3, 10, 0), 7);
        assert_eq!(atomic_new(AtomicOp::Min, 3, u32::MAX, 0), u32::MAX);
        assert_eq!(atomic_new(AtomicOp::Umin, 3, u32::MAX, 0), 3);
        assert_eq!(atomic_new(AtomicOp::CmpXchg, 3, 3, 9), 9);
        assert_eq!(atomic_new(AtomicOp::CmpXchg, 3, 4, 9), 3);
        assert_eq!(atomic_new(AtomicOp::MskOr, 0xFF, 0x0F, 0x100), 0x1F0);
        let mut b = vec![0u8; 4];
        assert_eq!(atomic(&mut b, 0, AtomicOp::Add, 7, 0), Some(0));
        assert_eq!(atomic(&mut b, 0, AtomicOp::Add, 7, 0), Some(7));
        assert_eq!(atomic(&mut b, 4, AtomicOp::Add, 7, 0), None);
    }

    #[test]
    fn race_tracker() {
        use Access::*;
        let mut t = RaceTracker::default();
        assert_eq!(t.access(0, 0, 1, Write), None);
        assert_eq!(t.access(0, 0, 1, Read), None);
        assert_eq!(t.access(0, 0, 2, Read), Some(1));
        t.clear();
        assert_eq!(t.access(0, 4, 1, Read), None);
        assert_eq!(t.access(0, 4, 2, Read), None);
        assert_eq!(t.access(0, 4, 1, Write), Some(2));
        assert_eq!(t.access(0, 8, 3, Write), None);
        assert_eq!(t.access(0, 8, 3, Write), None);
        assert_eq!(t.access(0, 8, 4, Write), Some(3));
        // atomics do not race with each other, but do with plain accesses
        assert_eq!(t.access(0, 12, 1, Atomic), None);
        assert_eq!(t.access(0, 12, 2, Atomic), None);
        assert_eq!(t.access(0, 12, 1, Read), Some(2));
        assert_eq!(t.access(0, 16, 5, Read), None);
        assert_eq!(t.access(0, 16, 6, Atomic), Some(5));
    }
}
