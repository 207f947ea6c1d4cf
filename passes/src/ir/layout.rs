//! The layout: the order of blocks in a function and of instructions in blocks, as doubly
//! linked lists stored in `SecondaryMap`s (Cranelift's design). Moving or removing an
//! instruction never touches its operands in the DFG.
//!
//! Instructions carry sequence numbers, increasing along each block, so comparing the
//! position of two instructions of one block is O(1) ([`Layout::cmp_in_block`]). Numbers
//! are spaced by [`SEQ_STRIDE`]; when an insertion finds no gap the block is renumbered.
//!
//! Guarantees: an instruction is in at most one block; a block is in the layout at most
//! once; iteration order is the insertion order requested.

use core::cmp::Ordering;

use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::SecondaryMap;

use super::entities::{grow_mut, Block, Inst};

/// Gap between consecutive sequence numbers after renumbering.
pub const SEQ_STRIDE: u32 = 16;

#[derive(Clone, Debug, Default)]
struct BlockNode {
    prev: PackedOption<Block>,
    next: PackedOption<Block>,
    first_inst: PackedOption<Inst>,
    last_inst: PackedOption<Inst>,
    inserted: bool,
}

#[derive(Clone, Debug, Default)]
struct InstNode {
    block: PackedOption<Block>,
    prev: PackedOption<Inst>,
    next: PackedOption<Inst>,
    seq: u32,
}

/// Block and instruction order.
#[derive(Clone, Debug, Default)]
pub struct Layout {
    blocks: SecondaryMap<Block, BlockNode>,
    insts: SecondaryMap<Inst, InstNode>,
    first_block: PackedOption<Block>,
    last_block: PackedOption<Block>,
}

impl Layout {
    /// An empty layout.
    pub fn new() -> Self {
        Self::default()
    }

    // ---- blocks ----

    /// True if `block` is in the layout.
    pub fn is_block_inserted(&self, block: Block) -> bool {
        self.blocks[block].inserted
    }

    /// Appends `block` at the end. Panics if it is already inserted (a caller bug).
    pub fn append_block(&mut self, block: Block) {
        assert!(!self.is_block_inserted(block), "{block} already in layout");
        let node = &mut self.blocks[block];
        node.inserted = true;
        node.prev = self.last_block;
        node.next = None.into();
        match self.last_block.expand() {
            Some(last) => self.blocks[last].next = block.into(),
            None => self.first_block = block.into(),
        }
        self.last_block = block.into();
    }

    /// Inserts `block` just before `before`.
    pub fn insert_block(&mut self, block: Block, before: Block) {
        assert!(!self.is_block_inserted(block), "{block} already in layout");
        assert!(self.is_block_inserted(before), "{before} not in layout");
        let prev = self.blocks[before].prev;
        {
            let node = &mut self.blocks[block];
            node.inserted = true;
            node.prev = prev;
            node.next = before.into();
        }
        self.blocks[before].prev = block.into();
        match prev.expand() {
            Some(p) => self.blocks[p].next = block.into(),
            None => self.first_block = block.into(),
        }
    }

    /// Inserts `block` just after `after`.
    pub fn insert_block_after(&mut self, block: Block, after: Block) {
        match self.blocks[after].next.expand() {
            Some(n) => self.insert_block(block, n),
            None => self.append_block(block),
        }
    }

    /// Removes `block` and all its instructions from the layout.
    pub fn remove_block(&mut self, block: Block) {
        assert!(self.is_block_inserted(block), "{block} not in layout");
        while let Some(i) = self.blocks[block].first_inst.expand() {
            self.remove_inst(i);
        }
        let (prev, next) = {
            let n = &mut self.blocks[block];
            n.inserted = false;
            (n.prev.take(), n.next.take())
        };
        match prev {
            Some(p) => self.blocks[p].next = next.into(),
            None => self.first_block = next.into(),
        }
        match next {
            Some(n) => self.blocks[n].prev = prev.into(),
            None => self.last_block = prev.into(),
        }
    }

    /// Blocks in layout order.
    #[inline]
    pub fn blocks(&self) -> Blocks<'_> {
        Blocks {
            layout: self,
            next: self.first_block.expand(),
        }
    }

    /// The entry block (first in layout).
    pub fn entry_block(&self) -> Option<Block> {
        self.first_block.expand()
    }

    /// The last block.
    pub fn last_block(&self) -> Option<Block> {
        self.last_block.expand()
    }

    /// The block after `block`.
    #[inline]
    pub fn next_block(&self, block: Block) -> Option<Block> {
        self.blocks[block].next.expand()
    }

    /// The block before `block`.
    pub fn prev_block(&self, block: Block) -> Option<Block> {
        self.blocks[block].prev.expand()
    }

    // ---- instructions ----

    /// The block containing `inst`, if it is inserted.
    pub fn inst_block(&self, inst: Inst) -> Option<Block> {
        self.insts[inst].block.expand()
    }

    /// Appends `inst` to the end of `block`.
    pub fn append_inst(&mut self, inst: Inst, block: Block) {
        assert!(self.inst_block(inst).is_none(), "{inst} already in layout");
        assert!(self.is_block_inserted(block), "{block} not in layout");
        let last = self.blocks[block].last_inst.expand();
        let seq = match last {
            Some(l) => self.insts[l].seq.saturating_add(SEQ_STRIDE),
            None => SEQ_STRIDE,
        };
        {
            let n = grow_mut(&mut self.insts, inst);
            n.block = block.into();
            n.prev = last.into();
            n.next = None.into();
            n.seq = seq;
        }
        match last {
            Some(l) => self.insts[l].next = inst.into(),
            None => self.blocks[block].first_inst = inst.into(),
        }
        self.blocks[block].last_inst = inst.into();
        if seq == u32::MAX {
            self.renumber(block);
        }
    }

    /// Inserts `inst` just before `before`.
    pub fn insert_inst(&mut self, inst: Inst, before: Inst) {
        assert!(self.inst_block(inst).is_none(), "{inst} already in layout");
        let block = self
            .inst_block(before)
            .expect("insert_inst: `before` is not in the layout");
        let prev = self.insts[before].prev.expand();
        {
            let n = grow_mut(&mut self.insts, inst);
            n.block = block.into();
            n.prev = prev.into();
            n.next = before.into();
        }
        self.insts[before].prev = inst.into();
        match prev {
            Some(p) => self.insts[p].next = inst.into(),
            None => self.blocks[block].first_inst = inst.into(),
        }
        let lo = prev.map_or(0, |p| self.insts[p].seq);
        let hi = self.insts[before].seq;
        if hi - lo >= 2 {
            self.insts[inst].seq = lo + (hi - lo) / 2;
        } else {
            self.renumber(block);
        }
    }

    /// Inserts `inst` just after `after`.
    pub fn insert_inst_after(&mut self, inst: Inst, after: Inst) {
        match self.insts[after].next.expand() {
            Some(n) => self.insert_inst(inst, n),
            None => {
                let block = self
                    .inst_block(after)
                    .expect("insert_inst_after: not in layout");
                self.append_inst(inst, block)
            }
        }
    }

    /// Removes `inst` from the layout (it stays in the DFG).
    pub fn remove_inst(&mut self, inst: Inst) {
        let block = self.inst_block(inst).expect("remove_inst: not in layout");
        let (prev, next) = {
            let n = &mut self.insts[inst];
            n.block = None.into();
            (n.prev.take(), n.next.take())
        };
        match prev {
            Some(p) => self.insts[p].next = next.into(),
            None => self.blocks[block].first_inst = next.into(),
        }
        match next {
            Some(n) => self.insts[n].prev = prev.into(),
            None => self.blocks[block].last_inst = prev.into(),
        }
    }

    /// Instructions of `block` in order.
    #[inline]
    pub fn block_insts(&self, block: Block) -> Insts<'_> {
        Insts {
            layout: self,
            next: self.blocks[block].first_inst.expand(),
        }
    }

    /// First instruction of `block`.
    pub fn first_inst(&self, block: Block) -> Option<Inst> {
        self.blocks[block].first_inst.expand()
    }

    /// Last instruction of `block` (its terminator in valid IR).
    pub fn last_inst(&self, block: Block) -> Option<Inst> {
        self.blocks[block].last_inst.expand()
    }

    /// Next instruction in the same block.
    #[inline]
    pub fn next_inst(&self, inst: Inst) -> Option<Inst> {
        self.insts[inst].next.expand()
    }

    /// Previous instruction in the same block.
    pub fn prev_inst(&self, inst: Inst) -> Option<Inst> {
        self.insts[inst].prev.expand()
    }

    /// Orders two instructions of the same block. Panics if they are in different blocks.
    pub fn cmp_in_block(&self, a: Inst, b: Inst) -> Ordering {
        assert_eq!(
            self.inst_block(a),
            self.inst_block(b),
            "cmp_in_block across blocks"
        );
        self.insts[a].seq.cmp(&self.insts[b].seq)
    }

    /// Moves every instruction of `from` to the end of `to` (used when merging blocks).
    pub fn splice_block_insts(&mut self, from: Block, to: Block) {
        while let Some(i) = self.first_inst(from) {
            self.remove_inst(i);
            self.append_inst(i, to);
        }
    }

    fn renumber(&mut self, block: Block) {
        let mut seq = SEQ_STRIDE;
        let mut cur = self.blocks[block].first_inst.expand();
        while let Some(i) = cur {
            self.insts[i].seq = seq;
            seq = seq.saturating_add(SEQ_STRIDE);
            cur = self.insts[i].next.expand();
        }
    }
}

/// Iterator over blocks in layout order.
pub struct Blocks<'a> {
    layout: &'a Layout,
    next: Option<Block>,
}

impl Iterator for Blocks<'_> {
    type Item = Block;
    #[inline]
    fn next(&mut self) -> Option<Block> {
        crate::budget::tick();
        let b = self.next?;
        self.next = self.layout.next_block(b);
        Some(b)
    }
}

/// Iterator over the instructions of a block.
pub struct Insts<'a> {
    layout: &'a Layout,
    next: Option<Inst>,
}

impl Iterator for Insts<'_> {
    type Item = Inst;
    #[inline]
    fn next(&mut self) -> Option<Inst> {
        // Every walk over the code counts against the compile deadline (see `budget`).
        crate::budget::tick();
        let i = self.next?;
        self.next = self.layout.next_inst(i);
        Some(i)
    }
}

#[cfg(test)]
mod tests {
    use cranelift_entity::EntityRef;

    use super::*;

    #[test]
    fn insert_and_order() {
        let mut l = Layout::new();
        let (b0, b1, b2) = (Block::new(0), Block::new(1), Block::new(2));
        l.append_block(b0);
        l.append_block(b2);
        l.insert_block(b1, b2);
        assert_eq!(l.blocks().collect::<Vec<_>>(), vec![b0, b1, b2]);
        let i = |n| Inst::new(n);
        l.append_inst(i(0), b1);
        l.append_inst(i(1), b1);
        // Many insertions at the same spot force renumbering.
        for n in 2..40 {
            l.insert_inst(i(n), i(1));
        }
        let order: Vec<_> = l.block_insts(b1).collect();
        assert_eq!(order.len(), 40);
        for w in order.windows(2) {
            assert_eq!(l.cmp_in_block(w[0], w[1]), Ordering::Less);
        }
        assert_eq!(order[0], i(0));
        assert_eq!(order[1], i(2));
        assert_eq!(*order.last().unwrap(), i(1));
        l.remove_inst(i(2));
        assert_eq!(l.inst_block(i(2)), None);
        l.insert_inst_after(i(2), i(1));
        assert_eq!(l.last_inst(b1), Some(i(2)));
        l.splice_block_insts(b1, b0);
        assert_eq!(l.first_inst(b1), None);
        assert_eq!(l.block_insts(b0).count(), 40);
        l.remove_block(b0);
        assert_eq!(l.blocks().collect::<Vec<_>>(), vec![b1, b2]);
        assert_eq!(l.inst_block(i(0)), None);
        l.remove_block(b2);
        assert_eq!(l.last_block(), Some(b1));
    }
}
