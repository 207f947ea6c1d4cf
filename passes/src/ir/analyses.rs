//! A cache of the control-flow analyses (CFG, dominator tree, loop nesting) shared by the
//! passes of a pipeline, so each is computed once per shape of the CFG instead of once per
//! pass (a compile used to compute the dominators about fifteen times).
//!
//! Requires: between two uses, every change to `func`'s control flow (branch targets or
//! their order, the entry block, the layout's block order) is followed by
//! [`Analyses::revalidate`] or [`Analyses::invalidate`]; changes to instructions other than
//! branch destinations need nothing. The pass registry says which passes preserve the CFG
//! ([`crate::registry::PassInfo::preserves_cfg`]); the pipeline revalidates after the
//! others and, in debug builds, checks the claim with [`Analyses::is_current`].
//!
//! Guarantees: what the getters return equals a fresh computation on `func` (the dominator
//! tree and loop nesting depend only on the edges, their order and the entry block, so
//! [`Analyses::revalidate`] keeps them when a recomputed CFG is unchanged).

use super::cfg::ControlFlowGraph;
use super::dominators::{DominatorTree, LoopInfo};
use super::entities::Block;
use super::function::Function;

/// The cached analyses of one function.
#[derive(Clone, Debug, Default)]
pub struct Analyses {
    /// Valid when `cfg_valid`.
    cfg: ControlFlowGraph,
    cfg_valid: bool,
    /// The entry block the CFG was computed with.
    entry: Option<Block>,
    /// Valid when `Some`, for the current CFG.
    domtree: Option<DominatorTree>,
    loops: Option<LoopInfo>,
    /// Working CFG of [`Analyses::revalidate`] (kept for its storage).
    fresh: ControlFlowGraph,
    /// Scratch of [`ControlFlowGraph::is_of`].
    cursor: Vec<u32>,
}

impl Analyses {
    /// An empty cache.
    pub fn new() -> Self {
        Self::default()
    }

    /// Forgets everything.
    pub fn invalidate(&mut self) {
        self.cfg_valid = false;
        self.domtree = None;
        self.loops = None;
    }

    fn ensure_cfg(&mut self, func: &Function) {
        if !self.cfg_valid {
            self.cfg.compute(func);
            self.entry = func.entry_block();
            self.cfg_valid = true;
            self.domtree = None;
            self.loops = None;
        }
    }

    fn ensure_domtree(&mut self, func: &Function) {
        self.ensure_cfg(func);
        if self.domtree.is_none() {
            self.domtree = Some(DominatorTree::with_function(func, &self.cfg));
        }
    }

    /// The CFG of `func`.
    pub fn cfg(&mut self, func: &Function) -> &ControlFlowGraph {
        self.ensure_cfg(func);
        &self.cfg
    }

    /// The CFG and the dominator tree of `func`.
    pub fn domtree(&mut self, func: &Function) -> (&ControlFlowGraph, &DominatorTree) {
        self.ensure_domtree(func);
        // Invariant: ensure_domtree just set it.
        (
            &self.cfg,
            self.domtree.as_ref().expect("dominators computed"),
        )
    }

    /// The CFG, the dominator tree and the loop nesting of `func`.
    pub fn loops(&mut self, func: &Function) -> (&ControlFlowGraph, &DominatorTree, &LoopInfo) {
        self.ensure_domtree(func);
        let dt = self.domtree.as_ref().expect("dominators computed");
        let loops = self
            .loops
            .get_or_insert_with(|| LoopInfo::with_function(func, &self.cfg, dt));
        (&self.cfg, dt, loops)
    }

    /// After a change that may have touched the control flow: recomputes the CFG (if one
    /// was cached) and keeps the dominator tree and loop nesting only if it is unchanged.
    pub fn revalidate(&mut self, func: &Function) {
        if !self.cfg_valid {
            return;
        }
        // Most passes leave the edges as they were: checked without building a new CFG.
        if func.entry_block() == self.entry && self.cfg.is_of(func, &mut self.cursor) {
            return;
        }
        self.fresh.compute(func);
        if func.entry_block() != self.entry || !self.fresh.same_edges(&self.cfg) {
            std::mem::swap(&mut self.cfg, &mut self.fresh);
            self.entry = func.entry_block();
            self.domtree = None;
            self.loops = None;
        }
    }

    /// True if the cached CFG (if any) is `func`'s: the check of a pass's claim to preserve
    /// the CFG.
    pub fn is_current(&self, func: &Function) -> bool {
        !self.cfg_valid
            || (func.entry_block() == self.entry
                && ControlFlowGraph::with_function(func).same_edges(&self.cfg))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::parse_function_text;

    #[test]
    fn kept_while_the_edges_stay_and_recomputed_when_they_change() {
        let mut func = parse_function_text(
            "kernel %k {
    group_size 4, 1, 1
    uav0 = raw

block0:
    v0 = pconst true
    brif v0, block1, block2

block1:
    jump block2

block2:
    return
}
",
        )
        .expect("parses");
        let mut a = Analyses::new();
        let b: Vec<Block> = func.layout.blocks().collect();
        assert_eq!(a.domtree(&func).1.idom(b[2]), Some(b[0]));
        assert!(a.is_current(&func));
        // An instruction change keeps everything.
        a.revalidate(&func);
        assert!(a.domtree.is_some());
        // Swapping the branch's targets changes the edge order: recomputed.
        let t = func.terminator(b[0]).expect("terminator");
        if let crate::ir::InstructionData::Brif { dests, .. } = &mut func.dfg.insts[t] {
            dests.swap(0, 1);
        }
        assert!(!a.is_current(&func));
        a.revalidate(&func);
        assert!(a.domtree.is_none() && a.is_current(&func));
        assert_eq!(a.domtree(&func).0.succs(b[0]), &[b[2], b[1]]);
        let fresh = DominatorTree::with_function(&func, &ControlFlowGraph::with_function(&func));
        assert_eq!(a.domtree(&func).1.rpo(), fresh.rpo());
        a.invalidate();
        assert!(a.is_current(&func));
        assert_eq!(a.loops(&func).2.headers, Vec::<Block>::new());
    }
}
