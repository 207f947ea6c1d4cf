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
