//! Uniformity (divergence) analysis: which values are equal in every thread of a warp that
//! computes them together, and which branches may send those threads different ways.
//!
//! Requires: verified SSA. Guarantees (sound, conservative): a value reported uniform has
//! one value across all active threads at each dynamic instance of its definition; a branch
//! reported uniform is taken the same way by all of them. It changes nothing; the backend uses
//! the answer to branch without a reconvergence point, and `test uniformity` filetests print
//! it.
//!
//! Sources of divergence: `special tid.*`, `laneid`, `clock`; every atomic's result; loads
//! from memory threads can write or own (UAVs, LDS, private arrays, `g[]`, outputs) — only
//! constant-buffer and read-only SRV loads at a uniform address are uniform. Divergence then
//! spreads through
//! - data: an instruction with a divergent operand has divergent results (except `vote_all`,
//!   uniform by definition);
//! - control (sync dependence): below a divergent branch in block `D` with immediate
//!   post-dominator `P`, a block parameter of `P` or of a block with several predecessors
//!   that two different successors of `D` reach before `P` merges values from paths
//!   different threads took, so it is divergent (a loop header inside one arm is not such a
//!   block: the arm's threads enter the loop together); without a post-dominator the region
//!   is all that is reachable from `D`;
//! - loops (temporal divergence): when a loop has a divergent exit, threads leave it in
//!   different iterations, so a value defined in the loop and used outside it is divergent.
//!
//! The three rules are iterated to a fixed point (divergence only grows).

use cranelift_entity::SecondaryMap;

use crate::ir::entities::sized_map;
use crate::ir::{
    Block, ControlFlowGraph, DominatorTree, Function, InstructionData, LoopInfo, MemSpace, Opcode,
    PostDominatorTree, SpecialReg, Value,
};

/// The result of the analysis.
pub struct Uniformity {
    divergent: SecondaryMap<Value, bool>,
    divergent_branch: SecondaryMap<Block, bool>,
}

impl Uniformity {
    /// Analyses `func` with the IR's sources of divergence and uniformity ([`origin`]).
    pub fn compute(func: &Function) -> Uniformity {
        Self::compute_with(func, origin)
    }

    /// Analyses `func` with `origin` saying which instructions' results differ between
    /// threads, or are equal in all of them, whatever their operands (a backend passes one
    /// that knows its `Target` instructions, whose semantics the IR does not see).
    pub fn compute_with(
        func: &Function,
        origin: impl Fn(&InstructionData) -> Origin,
    ) -> Uniformity {
        let cfg = ControlFlowGraph::with_function(func);
        let dt = DominatorTree::with_function(func, &cfg);
        let pdt = PostDominatorTree::with_function(func, &cfg);
        let loops = LoopInfo::with_function(func, &cfg, &dt);
        Self::compute_in(func, &cfg, &dt, &pdt, &loops, origin)
    }

    /// As [`Uniformity::compute_with`], with `func`'s control-flow analyses already at hand
    /// (a caller holding them current, such as the backend's [`crate::ir::Analyses`], saves
    /// computing all four again).
    pub fn compute_in(
        func: &Function,
        cfg: &ControlFlowGraph,
        dt: &DominatorTree,
        pdt: &PostDominatorTree,
        loops: &LoopInfo,
        origin: impl Fn(&InstructionData) -> Origin,
    ) -> Uniformity {
        let mut u = Uniformity {
            divergent: sized_map(func.dfg.num_values()),
            divergent_branch: sized_map(func.dfg.num_blocks()),
        };
        let blocks: Vec<Block> = dt.rpo().to_vec();
        // The header of the loop whose blocks are being looked at (temporal divergence).
        let mut stamp: SecondaryMap<Block, Option<Block>> = sized_map(func.dfg.num_blocks());
        let mut changed = true;
        while changed {
            changed = false;
            // Data dependence, in reverse post-order (operands before users, except around
            // back edges, which the outer loop covers).
            for &b in &blocks {
                for inst in func.layout.block_insts(b) {
                    let data = &func.dfg.insts[inst];
                    // (`args` excludes branch arguments, handled below.)
                    let div = match origin(data) {
                        Origin::Divergent => true,
                        Origin::Uniform => false,
                        Origin::Operands => data.args().iter().any(|&a| u.divergent[a]),
                    };
                    if div {
                        for &r in func.dfg.inst_results(inst) {
                            changed |= mark(&mut u.divergent, r);
                        }
                    }
                    // Branch arguments flow into the target's parameters.
                    for call in data.branch_destinations() {
                        for (&p, &a) in func.dfg.block_params(call.block).iter().zip(&call.args) {
                            if u.divergent[a] {
                                changed |= mark(&mut u.divergent, p);
                            }
                        }
                    }
                }
                // Divergent branches.
                if let Some(term) = func.terminator(b) {
                    let cond_div = match &func.dfg.insts[term] {
                        InstructionData::Brif { arg, .. } => u.divergent[arg[0]],
                        InstructionData::BrTable { arg, .. } => u.divergent[arg[0]],
                        _ => false,
                    };
                    if cond_div && !u.divergent_branch[b] {
                        u.divergent_branch[b] = true;
                        changed = true;
                    }
                }
            }
            // Sync dependence: a block of `d`'s region with several predecessors merges the
            // paths of different threads only when it is reachable from two different
            // successors of `d` (a loop inside one arm of a divergent `if` is entered by the
            // threads of that arm together, so its header is no join of `d`).
            for &d in &blocks {
                if !u.divergent_branch[d] {
                    continue;
                }
                let post = pdt.ipdom(d);
                let mut succs = cfg.succs(d).to_vec();
                succs.sort();
                succs.dedup();
                // Per block: the first successor of `d` it was reached from, and whether a
                // second one reaches it too.
                let mut from: SecondaryMap<Block, Option<Block>> = sized_map(func.dfg.num_blocks());
                let mut joined: SecondaryMap<Block, bool> = sized_map(func.dfg.num_blocks());
                for &s in &succs {
                    let mut seen: SecondaryMap<Block, bool> = sized_map(func.dfg.num_blocks());
                    let mut stack = vec![s];
                    while let Some(b) = stack.pop() {
                        if seen[b] {
                            continue;
                        }
                        seen[b] = true;
                        match from[b] {
                            None => from[b] = Some(s),
                            Some(f) if f != s => joined[b] = true,
                            Some(_) => {}
                        }
                        if Some(b) != post {
                            stack.extend(cfg.succs(b).iter().copied());
                        }
                    }
                }
                for b in blocks.iter().copied().filter(|&b| from[b].is_some()) {
                    if Some(b) == post || (joined[b] && cfg.preds(b).len() > 1) {
                        for &p in func.dfg.block_params(b) {
                            changed |= mark(&mut u.divergent, p);
                        }
                    }
                }
            }
            // Temporal divergence.
            for &h in &loops.headers {
                // The loop's blocks, stamped with its header: membership in O(1) (walking
                // the loop nest from each block made deep nests cubic).
                for &b in loops.loop_blocks(h) {
                    stamp[b] = Some(h);
                }
                let in_loop = |b: Block| stamp[b] == Some(h);
                let body: Vec<Block> = blocks.iter().copied().filter(|&b| in_loop(b)).collect();
                let divergent_exit = body
                    .iter()
                    .any(|&b| u.divergent_branch[b] && cfg.succs(b).iter().any(|&s| !in_loop(s)));
                if !divergent_exit {
                    continue;
                }
                let mut defined_inside: SecondaryMap<Value, bool> =
                    sized_map(func.dfg.num_values());
                for &b in &body {
                    for &p in func.dfg.block_params(b) {
                        defined_inside[p] = true;
                    }
                    for inst in func.layout.block_insts(b) {
                        for &r in func.dfg.inst_results(inst) {
                            defined_inside[r] = true;
                        }
                    }
                }
                for &b in blocks.iter().filter(|&&b| !in_loop(b)) {
                    for inst in func.layout.block_insts(b) {
                        let data = &func.dfg.insts[inst];
                        let call_args = data.branch_destinations().iter().flat_map(|c| &c.args);
                        for &a in data.args().iter().chain(call_args) {
                            if defined_inside[a] {
                                changed |= mark(&mut u.divergent, a);
                            }
                        }
                    }
                }
                // Arguments passed out of the loop on an exit edge are uses outside it too.
                for &b in &body {
                    let Some(term) = func.terminator(b) else {
                        continue;
                    };
                    for call in func.dfg.insts[term].branch_destinations() {
                        if in_loop(call.block) {
                            continue;
                        }
                        for &p in func.dfg.block_params(call.block) {
                            changed |= mark(&mut u.divergent, p);
                        }
                    }
                }
            }
        }
        u
    }

    /// Whether `v` is uniform (equal across the active threads of a warp).
    pub fn is_uniform(&self, v: Value) -> bool {
        !self.divergent[v]
    }

    /// Whether the terminator of `b` may send the threads of a warp different ways.
    pub fn is_divergent_branch(&self, b: Block) -> bool {
        self.divergent_branch[b]
    }

    /// The analysis as text: the divergent values and branches, in layout order.
    pub fn display(&self, func: &Function) -> String {
        let mut vals = Vec::new();
        let mut branches = Vec::new();
        for b in func.layout.blocks() {
            vals.extend(
                func.dfg
                    .block_params(b)
                    .iter()
                    .filter(|&&p| self.divergent[p])
                    .map(|p| p.to_string()),
            );
            for inst in func.layout.block_insts(b) {
                vals.extend(
                    func.dfg
                        .inst_results(inst)
                        .iter()
                        .filter(|&&r| self.divergent[r])
                        .map(|r| r.to_string()),
                );
            }
            if self.divergent_branch[b] {
                branches.push(b.to_string());
            }
        }
        format!(
            "divergent values: {}\ndivergent branches: {}\n",
            vals.join(" "),
            branches.join(" ")
        )
    }
}

fn mark(map: &mut SecondaryMap<Value, bool>, v: Value) -> bool {
    let was = map[v];
    map[v] = true;
    !was
}

/// Where an instruction's results stand whatever the data rule would say.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// Divergent when an operand is.
    Operands,
    /// May differ between threads whatever the operands (a source of divergence).
    Divergent,
    /// Equal in every thread that computes them together whatever the operands (a vote).
    Uniform,
}

/// The IR's rule: the sources of divergence ([`is_source`]) and `vote_all`, uniform.
pub fn origin(data: &InstructionData) -> Origin {
    if is_source(data) {
        Origin::Divergent
    } else if data.opcode() == Opcode::VoteAll {
        Origin::Uniform
    } else {
        Origin::Operands
    }
}

/// Whether the instruction's results differ between threads whatever its operands.
pub fn is_source(data: &InstructionData) -> bool {
    match data {
        InstructionData::Special { reg, .. } => {
            matches!(
                reg,
                SpecialReg::Tid(_) | SpecialReg::LaneId | SpecialReg::Clock
            )
        }
        InstructionData::Atomic { .. } => true,
        InstructionData::Load { mem, .. } => {
            !matches!(mem.space, MemSpace::Cb(_) | MemSpace::Srv(_))
        }
        _ => false,
    }
}

/// `test uniformity`: prints the analysis after the function.
pub struct UniformityTest;

impl crate::filetest::SubTest for UniformityTest {
    fn name(&self) -> &'static str {
        "uniformity"
    }
    fn run(&self, func: &mut Function, _: &crate::filetest::Context<'_>) -> Result<String, String> {
        Ok(Uniformity::compute(func).display(func))
    }
}
