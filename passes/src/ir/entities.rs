//! IR entity references: small `u32` indices into the arenas of a [`Function`](super::Function).
//!
//! Every entity is created with `cranelift_entity::entity_impl!`, so its `Display` form is
//! exactly the name used by the text syntax (`block3`, `inst7`, `v12`, `ss0`); the reader
//! parses those names back with [`AnyEntity`]-independent helpers in `reader.rs`.
//!
//! Guarantees: entity numbers are dense within a function and never reused while the
//! function lives (deleted instructions keep their number, they are only unlinked from the
//! layout).

use core::fmt;

use cranelift_entity::entity_impl;

/// A basic block (printed `blockN`).
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Block(u32);
entity_impl!(Block, "block");

/// An instruction (printed `instN`; the text form names instructions only in diagnostics).
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Inst(u32);
entity_impl!(Inst, "inst");

/// An SSA value: an instruction result or a block parameter (printed `vN`).
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Value(u32);
entity_impl!(Value, "v");

/// A private (per work-item) memory array, e.g. an AMD IL indexed temp `x#` (printed `ssN`).
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StackSlot(u32);
entity_impl!(StackSlot, "ss");

/// Any entity, used to locate diagnostics (verifier errors, interpreter traps).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum AnyEntity {
    /// The function as a whole.
    Function,
    /// A block.
    Block(Block),
    /// An instruction.
    Inst(Inst),
    /// A value.
    Value(Value),
    /// A stack slot declaration.
    StackSlot(StackSlot),
}

impl fmt::Display for AnyEntity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AnyEntity::Function => f.write_str("function"),
            AnyEntity::Block(b) => b.fmt(f),
            AnyEntity::Inst(i) => i.fmt(f),
            AnyEntity::Value(v) => v.fmt(f),
            AnyEntity::StackSlot(s) => s.fmt(f),
        }
    }
}

impl From<Block> for AnyEntity {
    fn from(b: Block) -> Self {
        AnyEntity::Block(b)
    }
}
impl From<Inst> for AnyEntity {
    fn from(i: Inst) -> Self {
        AnyEntity::Inst(i)
    }
}
impl From<Value> for AnyEntity {
    fn from(v: Value) -> Self {
        AnyEntity::Value(v)
    }
}
impl From<StackSlot> for AnyEntity {
    fn from(s: StackSlot) -> Self {
        AnyEntity::StackSlot(s)
    }
}

/// `map[k]` for writing, growing `map` to at least twice its length when `k` lies past its
/// end. A `SecondaryMap` written at increasing keys (the entries of each new instruction)
/// otherwise grows by one entry per write, through an out-of-line call that clones its
/// default: a few percent of a compile. The entries added read as the default, as entries
/// past the end do, so only iteration over the map can tell the difference.
#[inline]
pub fn grow_mut<K, V>(map: &mut cranelift_entity::SecondaryMap<K, V>, k: K) -> &mut V
where
    K: cranelift_entity::EntityRef,
    V: Clone,
{
    let len = map.as_values_slice().len();
    if k.index() >= len {
        map.resize((k.index() + 1).max(2 * len).max(16));
    }
    &mut map[k]
}

/// An empty `SecondaryMap` with `n` default entries: written at keys below `n`, it never
/// takes the one-entry growth path (see [`grow_mut`]). The entries are made by
/// `V::default()`, not cloned from the map's default (a clone of an empty `SmallVec`
/// extends it from an iterator).
pub fn sized_map<K, V>(n: usize) -> cranelift_entity::SecondaryMap<K, V>
where
    K: cranelift_entity::EntityRef,
    V: Clone + Default,
{
    let mut elems = Vec::with_capacity(n);
    elems.resize_with(n, V::default);
    cranelift_entity::SecondaryMap::from(elems)
}

#[cfg(test)]
mod tests {
    use cranelift_entity::EntityRef;

    use super::*;

    #[test]
    fn display_matches_text_syntax() {
        assert_eq!(Block::new(3).to_string(), "block3");
        assert_eq!(Value::new(12).to_string(), "v12");
        assert_eq!(Inst::new(0).to_string(), "inst0");
        assert_eq!(StackSlot::new(1).to_string(), "ss1");
        assert_eq!(AnyEntity::from(Value::new(2)).to_string(), "v2");
    }

    #[test]
    fn grow_mut_doubles_and_added_entries_read_as_default() {
        let mut m: cranelift_entity::SecondaryMap<Inst, u32> =
            cranelift_entity::SecondaryMap::with_default(7);
        *grow_mut(&mut m, Inst::new(3)) = 1;
        assert_eq!(m[Inst::new(3)], 1);
        assert_eq!(m[Inst::new(2)], 7);
        let n = m.as_values_slice().len();
        assert!(n >= 16, "grown to at least 16 entries, got {n}");
        *grow_mut(&mut m, Inst::new(n)) = 2;
        assert!(m.as_values_slice().len() >= 2 * n);
        assert_eq!(m[Inst::new(n + 1)], 7);
        // Equal to a map grown one entry at a time.
        let mut plain: cranelift_entity::SecondaryMap<Inst, u32> =
            cranelift_entity::SecondaryMap::with_default(7);
        plain[Inst::new(3)] = 1;
        plain[Inst::new(n)] = 2;
        assert!(m == plain);
    }

    #[test]
    fn sized_map_has_n_default_entries() {
        let m: cranelift_entity::SecondaryMap<Block, smallvec::SmallVec<[u32; 2]>> = sized_map(5);
        assert_eq!(m.as_values_slice().len(), 5);
        assert!(m[Block::new(4)].is_empty() && m[Block::new(9)].is_empty());
        assert!(m == cranelift_entity::SecondaryMap::new());
    }
}
