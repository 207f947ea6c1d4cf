//! Control-flow graph: predecessors and successors of each block, computed from the
//! terminators in the layout.
//!
//! Requires: nothing (blocks without a terminator simply have no successors). Guarantees:
//! edge lists are deduplicated and in terminator order; a branch with two edges to one
//! block appears once. Recompute after changing branches.

use std::cell::Cell;

use cranelift_entity::{EntityRef, SecondaryMap};
use smallvec::SmallVec;

use super::entities::{sized_map, Block};
use super::function::Function;

/// Edges of one block: most blocks have one or two, kept inline (a heap allocation per
/// block and direction was the largest share of a small kernel's allocations).
type Edges = SmallVec<[Block; 2]>;

/// DFS state of [`ControlFlowGraph::reverse_post_order`]: visited flags by block index and
/// the stack of (block, next successor index).
type DfsState = (Vec<bool>, Vec<(Block, usize)>);

thread_local! {
    /// Reused DFS state of [`ControlFlowGraph::reverse_post_order`]. Taken while in use, so a
    /// nested call simply allocates its own.
    static RPO_SCRATCH: Cell<DfsState> = const { Cell::new((Vec::new(), Vec::new())) };
}

/// Predecessor / successor lists.
#[derive(Clone, Debug, Default)]
pub struct ControlFlowGraph {
    preds: SecondaryMap<Block, Edges>,
    succs: SecondaryMap<Block, Edges>,
    /// The function's block count when computed (the maps' extent).
    num_blocks: usize,
    valid: bool,
}

impl ControlFlowGraph {
    /// Computes the CFG of `func`.
    pub fn with_function(func: &Function) -> Self {
        let mut cfg = ControlFlowGraph::default();
        cfg.compute(func);
        cfg
    }

    /// (Re)computes the CFG of `func`.
    pub fn compute(&mut self, func: &Function) {
        // Sized once: growing a map one block at a time cost more than the edges. The lists
        // of an earlier computation are emptied in place (cloning an empty list into every
        // entry anew cost more than the edges too).
        let n = func.dfg.num_blocks();
        if self.preds.as_values_slice().len() < n {
            // Made fresh rather than grown: growing clones the default list into each new
            // entry, through an `extend`.
            self.preds = sized_map(n);
            self.succs = sized_map(n);
        } else {
            for e in self.preds.values_mut().chain(self.succs.values_mut()) {
                e.clear();
            }
            self.preds.resize(n);
            self.succs.resize(n);
        }
        self.num_blocks = n;
        for b in func.layout.blocks() {
            for s in func.successors(b) {
                if !self.succs[b].contains(&s) {
                    self.succs[b].push(s);
                    self.preds[s].push(b);
                }
            }
        }
        self.valid = true;
    }

    /// True if [`ControlFlowGraph::compute`] on `func` would give this graph's edge lists
    /// exactly (the orders of predecessors and successors included), found by walking the
    /// terminators without building a graph. `cursor` is scratch storage.
    pub fn is_of(&self, func: &Function, cursor: &mut Vec<u32>) -> bool {
        let n = func.dfg.num_blocks();
        if !self.valid || n != self.num_blocks {
            return false;
        }
        // compute() pushes each block onto its successors' predecessor lists in layout
        // order: `cursor[s]` is how many of `s`'s predecessors the walk has met.
        cursor.clear();
        cursor.resize(n, 0);
        let mut edges = 0usize;
        for b in func.layout.blocks() {
            let succs = &self.succs[b];
            let mut k = 0;
            for s in func.successors(b) {
                // A repeated edge (both arms to one block) is listed once, where it first
                // appears.
                if succs[..k].contains(&s) {
                    continue;
                }
                if succs.get(k) != Some(&s) {
                    return false;
                }
                k += 1;
                let Some(c) = cursor.get_mut(s.index()) else {
                    return false;
                };
                if self.preds[s].get(*c as usize) != Some(&b) {
                    return false;
                }
                *c += 1;
            }
            if k != succs.len() {
                return false;
            }
            edges += k;
        }
        // Blocks outside the layout have no edges in a computed graph.
        let listed: usize = self.succs.values().map(|e| e.len()).sum();
        listed == edges
            && cursor
                .iter()
                .enumerate()
                .all(|(i, &c)| self.preds[Block::new(i)].len() == c as usize)
    }

    /// True once computed.
    pub fn is_valid(&self) -> bool {
        self.valid
    }

    /// True if both graphs have the same edges in the same order (the orders of a block's
    /// predecessors and successors included).
    pub fn same_edges(&self, other: &ControlFlowGraph) -> bool {
        let n = self.num_blocks.max(other.num_blocks);
        (0..n)
            .map(Block::new)
            .all(|b| self.preds[b] == other.preds[b] && self.succs[b] == other.succs[b])
    }

    /// Predecessors of `b`.
    pub fn preds(&self, b: Block) -> &[Block] {
        &self.preds[b]
    }

    /// Successors of `b`.
    pub fn succs(&self, b: Block) -> &[Block] {
        &self.succs[b]
    }

    /// Blocks reachable from the entry in reverse post-order.
    pub fn reverse_post_order(&self, func: &Function) -> Vec<Block> {
        let Some(entry) = func.entry_block() else {
            return Vec::new();
        };
        let n = func.dfg.num_blocks();
        // The DFS state comes from this thread's scratch (a compile computes orders tens
        // of times; these allocations were most of this function's cost on small kernels).
        let (mut visited, mut stack) = RPO_SCRATCH.take();
        visited.clear();
        visited.resize(n, false);
        stack.clear();
        let mut post = Vec::with_capacity(n);
        // Iterative DFS: (block, next successor index).
        stack.push((entry, 0usize));
        visited[entry.index()] = true;
        while let Some(&mut (b, ref mut i)) = stack.last_mut() {
            if let Some(&s) = self.succs[b].get(*i) {
                *i += 1;
                if !visited[s.index()] {
                    visited[s.index()] = true;
                    stack.push((s, 0));
                }
            } else {
                post.push(b);
                stack.pop();
            }
        }
        // A large function's storage is not kept (a thread does not hold a large kernel's
        // memory after its compile).
        if visited.capacity() <= 1 << 14 {
            RPO_SCRATCH.set((visited, stack));
        }
        post.reverse();
        post
    }

    /// The CFG as a petgraph graph (node weights are blocks), for generic algorithms and DOT.
    pub fn to_petgraph(&self, func: &Function) -> petgraph::graph::DiGraph<Block, ()> {
        let mut g = petgraph::graph::DiGraph::new();
        let mut idx = SecondaryMap::new();
        for b in func.layout.blocks() {
            idx[b] = Some(g.add_node(b));
        }
        for b in func.layout.blocks() {
            for &s in self.succs(b) {
                if let (Some(x), Some(y)) = (idx[b], idx[s]) {
                    g.add_edge(x, y, ());
                }
            }
        }
        g
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{parse_function_text, InstructionData};

    /// `is_of` says yes exactly when a fresh computation has the same edge lists.
    fn agrees(cfg: &ControlFlowGraph, func: &Function) -> bool {
        let fresh = ControlFlowGraph::with_function(func);
        let same = fresh.num_blocks == cfg.num_blocks && fresh.same_edges(cfg);
        assert_eq!(cfg.is_of(func, &mut Vec::new()), same);
        same
    }

    #[test]
    fn is_of_finds_every_change_of_the_edges() {
        let text = "kernel %k {
    uav0 = raw

block0:
    v0 = pconst true
    brif v0, block1, block2

block1:
    brif v0, block3, block3

block2:
    jump block3

block3:
    return
}
";
        let func = parse_function_text(text).expect("parses");
        let cfg = ControlFlowGraph::with_function(&func);
        assert!(agrees(&cfg, &func));
        let b: Vec<Block> = func.layout.blocks().collect();
        let dests = |f: &mut Function, blk: Block| -> Vec<Block> {
            let t = f.terminator(blk).expect("terminator");
            f.dfg.insts[t]
                .branch_destinations()
                .iter()
                .map(|d| d.block)
                .collect()
        };
        // Swapped targets: the successor order changes.
        let mut f = func.clone();
        let t = f.terminator(b[0]).expect("terminator");
        if let InstructionData::Brif { dests, .. } = &mut f.dfg.insts[t] {
            dests.swap(0, 1);
        }
        assert!(!agrees(&cfg, &f));
        // Blocks in another order: block3's predecessors change order.
        let mut f = func.clone();
        f.layout.remove_block(b[1]);
        f.layout.append_block(b[1]);
        assert!(!agrees(&cfg, &f));
        // A block out of the layout takes its edges with it.
        let mut f = func.clone();
        f.layout.remove_block(b[2]);
        assert!(!agrees(&cfg, &f));
        // A new block, even unreachable, changes the graph's extent.
        let mut f = func.clone();
        f.dfg.make_block();
        assert!(!agrees(&cfg, &f));
        // Retargeting one arm of the double edge to where it already goes changes nothing.
        let mut f = func.clone();
        assert_eq!(dests(&mut f, b[1]), vec![b[3], b[3]]);
        assert!(agrees(&cfg, &f));
    }
}
