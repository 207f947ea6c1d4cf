//! Load pipelining of single-block loops: the loads of the next iteration issue at the end of
//! the current one, so their latency overlaps the current iteration's work (and the branch
//! back) instead of stalling the next iteration's first use.
//!
//! ```text
//! P:  ...                          P:  ...
//!     brif c, B(i0), X                 x0 = load addr(i0)
//! B(i):                                brif c, B(i0, x0), X
//!     x = load addr(i)       ==>   B(i, x):
//!     ... uses x ...                   ... uses x ...
//!     j = iadd i, 1                    j = iadd i, 1
//!     brif c', B(j), X                 x' = load addr(j)
//!                                      brif c', B(j, x'), X
//! ```
//!
//! A loop is a block `B` whose terminator branches back to `B` itself, entered from one other
//! block `P` (one edge); a rotated loop ([`crate::loop_rotate`]) has this shape. Its loads that
//! the target calls speculable ([`TargetIsa::speculable_load`]: each access guarded by its own
//! bounds test, so any address is safe) are pipelined when every operand is a parameter of
//! `B`, a value from outside the loop, or the result of a pure instruction of `B` computed
//! from those (its slice): the slice and the load are copied to the end of `P` on the values
//! `P` passes to `B`, and to the end of `B` on the values the back edge passes; the load's
//! results become parameters of `B`, which every use reads. The original load and the slice
//! instructions nothing else reads are deleted. At most [`MAX_WORDS`] result words per loop
//! (in block order), and only while the block's GPR pressure (in its current order, plus
//! those words) stays within the caller's budget: each is a register live across the back
//! edge, and a loop at its budget gets its loads placed late by the scheduler and their
//! registers copied on the back edge, which waits for them.
//!
//! A copied load runs once more than before per entry into the loop (for the iteration that
//! does not run, or in `P` when the loop is skipped); being speculable it cannot fault, and
//! its value is then unused. Every other run reads what the original would have read: the
//! loop writes no memory the load could read (no store, atomic or barrier of the load's
//! memory in `B`), so issuing it before the end of the previous iteration changes nothing.
//!
//! Requires: verified SSA selected code. Guarantees: the same behaviour; the CFG is
//! unchanged (only instructions and parameters of `B`, `P` and the back edge change); a
//! verifier-clean function.

use crate::ir::{Analyses, Block, Function, Inst, Value, ValueDef};
use crate::regalloc::liveness::Liveness;
use crate::target::TargetIsa;
use crate::{FastHashMap as HashMap, FastHashSet as HashSet};

/// Most 32-bit words of loaded values one loop carries across its back edge.
pub const MAX_WORDS: usize = 8;

/// Pipelines the loads of every single-block loop of `func` whose GPR pressure leaves room
/// within `gpr_budget`; returns how many loads moved.
pub fn pipeline(
    func: &mut Function,
    analyses: &mut Analyses,
    target: &dyn TargetIsa,
    gpr_budget: u32,
) -> usize {
    let loops: Vec<(Block, Block)> = {
        let cfg = analyses.cfg(func);
        func.layout
            .blocks()
            .filter_map(|b| {
                let preds = cfg.preds(b);
                let self_edges = preds.iter().filter(|&&p| p == b).count();
                let others: Vec<Block> = preds.iter().copied().filter(|&p| p != b).collect();
                (self_edges == 1 && others.len() == 1).then(|| (b, others[0]))
            })
            .collect()
    };
    if loops.is_empty() {
        return 0;
    }
    let lv = Liveness::compute(func, analyses.cfg(func));
    let room: Vec<usize> = loops
        .iter()
        .map(|&(b, _)| {
            gpr_budget.saturating_sub(crate::regalloc::color::block_gpr_peak(func, target, &lv, b))
                as usize
        })
        .collect();
    let mut moved = 0;
    for ((b, p), room) in loops.into_iter().zip(room) {
        crate::budget::tick();
        moved += pipeline_loop(func, target, b, p, room.min(MAX_WORDS));
    }
    moved
}

/// The edge index of `from`'s terminator into `to`, when exactly one edge leads there.
fn edge_to(func: &Function, from: Block, to: Block) -> Option<(Inst, usize)> {
    let term = func.layout.last_inst(from)?;
    let dests = func.dfg.insts[term].branch_destinations();
    let mut at = dests.iter().enumerate().filter(|(_, d)| d.block == to);
    let (k, _) = at.next()?;
    at.next().is_none().then_some((term, k))
}

/// Whether `inst` may be copied freely: no memory access, no side effect, not convergent.
fn pure(func: &Function, target: &dyn TargetIsa, inst: Inst) -> bool {
    let data = &func.dfg.insts[inst];
    let fx = target.mem_effects(func, inst);
    !fx.reads
        && !fx.writes
        && !fx.barrier
        && !data.has_side_effects()
        && !data.opcode().is_convergent()
        && !data.opcode().is_terminator()
}

fn pipeline_loop(
    func: &mut Function,
    target: &dyn TargetIsa,
    b: Block,
    p: Block,
    max_words: usize,
) -> usize {
    let (Some((back, back_k)), Some((entry, entry_k))) = (edge_to(func, b, b), edge_to(func, p, b))
    else {
        return 0;
    };
    let insts: Vec<Inst> = func.layout.block_insts(b).collect();
    let in_b: HashSet<Inst> = insts.iter().copied().collect();
    // The memories the loop writes or orders.
    let mut written = crate::target::MemClasses::NONE;
    for &i in &insts {
        let fx = target.mem_effects(func, i);
        if fx.writes || fx.barrier {
            written = written | fx.spaces;
        }
    }
    // The loads to move, with the slice instructions they need (in block order).
    let mut chosen: Vec<Inst> = Vec::new();
    let mut slice: HashSet<Inst> = HashSet::default();
    let mut words = 0;
    for &l in &insts {
        if !target.speculable_load(func, l) || target.mem_effects(func, l).spaces.meet(written) {
            continue;
        }
        let n = func.dfg.inst_results(l).len();
        if words + n > max_words {
            continue;
        }
        // The operands' slice inside `B`: pure instructions only.
        let mut need: HashSet<Inst> = HashSet::default();
        let mut stack: Vec<Value> = func.dfg.insts[l].all_values().collect();
        let mut ok = true;
        while let Some(v) = stack.pop() {
            let ValueDef::Result(d, _) = func.dfg.value_def(v) else {
                continue;
            };
            if !in_b.contains(&d) || slice.contains(&d) || !need.insert(d) {
                continue;
            }
            if !pure(func, target, d) {
                ok = false;
                break;
            }
            stack.extend(func.dfg.insts[d].all_values());
        }
        if !ok {
            continue;
        }
        words += n;
        slice.extend(need);
        chosen.push(l);
    }
    if chosen.is_empty() {
        return 0;
    }
    let copied: Vec<Inst> = insts
        .iter()
        .copied()
        .filter(|i| slice.contains(i) || chosen.contains(i))
        .collect();
    // New parameters of `B` for the loaded values; every use reads them.
    let mut param_of: HashMap<Value, Value> = HashMap::default();
    for &l in &chosen {
        let results: Vec<Value> = func.dfg.inst_results(l).to_vec();
        for r in results {
            let ty = func.dfg.value_type(r);
            param_of.insert(r, func.dfg.append_block_param(b, ty));
        }
    }
    let blocks: Vec<Block> = func.layout.blocks().collect();
    for u in blocks {
        let us: Vec<Inst> = func.layout.block_insts(u).collect();
        for i in us {
            func.dfg.insts[i].map_values(|v| param_of.get(&v).copied().unwrap_or(v));
        }
    }
    // The copies: on the values `P` passes, and on those the back edge passes.
    let params: Vec<Value> = func.dfg.block_params(b).to_vec();
    for (term, k) in [(entry, entry_k), (back, back_k)] {
        let args: Vec<Value> = func.dfg.insts[term].branch_destinations()[k].args.to_vec();
        let mut sigma: HashMap<Value, Value> = params.iter().copied().zip(args).collect();
        for &i in &copied {
            let mut data = func.dfg.insts[i].clone();
            data.map_values(|v| sigma.get(&v).copied().unwrap_or(v));
            let ni = crate::counted_loop::make_copy(func, i, data, &mut sigma);
            func.layout.insert_inst(ni, term);
        }
        let extra: Vec<Value> = chosen
            .iter()
            .flat_map(|&l| func.dfg.inst_results(l).to_vec())
            .map(|r| sigma[&r])
            .collect();
        func.dfg.insts[term].branch_destinations_mut()[k]
            .args
            .extend(extra);
    }
    // The originals nothing reads any more (the loads, then their slices bottom-up).
    let mut uses: HashMap<Value, u32> = HashMap::default();
    for u in func.layout.blocks() {
        for i in func.layout.block_insts(u) {
            for v in func.dfg.insts[i].all_values() {
                *uses.entry(v).or_default() += 1;
            }
        }
    }
    for &i in copied.iter().rev() {
        if func
            .dfg
            .inst_results(i)
            .iter()
            .any(|r| uses.get(r).is_some_and(|&n| n > 0))
        {
            continue;
        }
        for v in func.dfg.insts[i].all_values() {
            if let Some(n) = uses.get_mut(&v) {
                *n -= 1;
            }
        }
        func.layout.remove_inst(i);
    }
    chosen.len()
}
