//! Control-flow graph: predecessors and successors of each block, computed from the
//! terminators in the layout.
//!
//! Requires: nothing (blocks without a terminator simply have no successors). Guarantees:
//! edge lists are deduplicated and in terminator order; a branch with two edges to one
//! block appears once. Recompute after changing branches.

use cranelift_entity::SecondaryMap;
use smallvec::SmallVec;

use super::entities::Block;
use super::function::Function;

/// Edges of one block: most blocks have one or two, kept inline (a heap allocation per
/// block and direction was the largest share of a small kernel's allocations).
type Edges = SmallVec<[Block; 2]>;

/// Predecessor / successor lists.
#[derive(Clone, Debug, Default)]
pub struct ControlFlowGraph {
    preds: SecondaryMap<Block, Edges>,
    succs: SecondaryMap<Block, Edges>,
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
        self.preds.clear();
        self.succs.clear();
        // Sized once: growing a map one block at a time cost more than the edges.
        let n = func.dfg.num_blocks();
        self.preds.resize(n);
        self.succs.resize(n);
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
        let mut visited = SecondaryMap::<Block, bool>::new();
        visited.resize(func.dfg.num_blocks());
        let mut post = Vec::new();
        // Iterative DFS: (block, next successor index).
        let mut stack = vec![(entry, 0usize)];
        visited[entry] = true;
        while let Some(&mut (b, ref mut i)) = stack.last_mut() {
            if let Some(&s) = self.succs[b].get(*i) {
                *i += 1;
                if !visited[s] {
                    visited[s] = true;
                    stack.push((s, 0));
                }
            } else {
                post.push(b);
                stack.pop();
            }
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
