//! Emission: the scheduled, register-allocated function becomes a linear list of
//! `isa_spa5::Inst`s with physical registers and block-relative branch targets.
//!
//! Control flow uses Maxwell's reconvergence stack:
//! - a branch whose condition is *uniform* ([`divergence`]: the sound divergence analysis of
//!   `ilc_passes::uniformity` on the allocated function, so loop counters started from
//!   constants and bounded by constant-buffer values count) is a plain `@p BRA`: all active
//!   threads agree, so no reconvergence point is needed. That holds inside a divergent region
//!   too: the enclosing region's SSY is still pushed before it and its edges into the
//!   enclosing reconvergence point still `SYNC`, whether the branch taking them is uniform
//!   or not (a uniform loop exit into a divergent `if`'s merge is an `@p SYNC`);
//! - a *divergent* branch with immediate post-dominator `P` gets an `SSY P` executed once
//!   before its region (the blocks reachable from it without passing `P`), and every edge from
//!   the region into `P` becomes `SYNC` (a conditional branch into `P` is `@!p BRA other;
//!   SYNC`, so the SYNC is not even issued while no lane leaves, as at a loop's bottom, or
//!   `@p SYNC` when the other target follows; a branch to an empty block whose code would
//!   be just that `SYNC`, such as a split critical edge, SYNCs itself and the block is not
//!   emitted, so an `if` is `SSY P; @!p SYNC` falling into its body, as ptxas writes it).
//!   Branches sharing `P` share one SSY (this covers loop
//!   exits and breaks: the SSY sits in the loop's preheader, and every thread leaving the loop
//!   executes `SYNC`, which runs the other pending paths and reconverges once all arrived);
//! - when a region has no single entry, its edges into `P` are not jumps or branches, or regions
//!   overlap without nesting, the branch is left without reconvergence: the paths then run one
//!   after the other until they exit, which is correct but slower (and the only choice for
//!   branches whose paths never meet, such as an early `return`);
//! - `return` is `EXIT` (legal in divergent code); a branch into a block that only returns
//!   (see [`super::exits`]), or only jumps to one, is an `EXIT` of its own, guarded for a
//!   conditional branch (at a loop's bottom `@p BRA body; EXIT`), and that block is not
//!   emitted. A divergent branch whose immediate post-dominator is such a block gets no SSY:
//!   its paths meet only to exit (`if (id < n) { .. }` guards are `@!p EXIT`, as ptxas writes
//!   them, and a thread that exits counts as arrived at later barriers);
//! - a `jump` to a block of at most [`DUP_MAX_INSTS`] instructions ending in a conditional
//!   branch that pushes no SSY (a loop header reached from its latch) runs a copy of that
//!   block unless the copy needs more branches than the jump and the original: a uniform
//!   loop then costs one branch per iteration (`@!P BRA body` at its bottom), not two. The copy
//!   does exactly what the jump would have done next, so the regions above are unaffected.
//!
//! Requires: every `Target` operand and result allocated; block arguments already resolved
//! by the allocator (moves placed before the `jump`s). Guarantees: the list ends with a
//! control transfer; branch targets are block indices resolved by [`super::encode_code`]; the
//! reconvergence stack is the same on every path to each instruction and no `SYNC` runs
//! without a pending `SSY` ([`check_sync_balance`] checks the emitted code, an internal error
//! otherwise).

use ilc_passes::{FastHashMap as HashMap, FastHashSet as HashSet};
use std::collections::BTreeSet;

use cranelift_entity::SecondaryMap;
use ilc_passes::ir::{
    Analyses, Block, ControlFlowGraph, DominatorTree, Function, InstructionData, LoopInfo, Opcode,
    PostDominatorTree, RegFile, Type, Value,
};
use ilc_passes::regalloc::Allocation;
use ilc_passes::uniformity::{Origin, Uniformity};
use isa_spa5::inst::Operand;
use isa_spa5::table::Class;
use isa_spa5::{Inst as MInst, ModKind, Op, Pred, PredReg, Reg, SpecialReg};
use smallvec::SmallVec;

use super::target::{Slot, Spa5Target, SCRATCH};

/// One emitted instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Emitted {
    /// The instruction (branch targets still unresolved).
    pub inst: MInst,
    /// For BRA/SSY: the target block.
    pub target: Option<Block>,
}

/// The emitted code of a function.
#[derive(Clone, Debug, Default)]
pub struct EmitResult {
    /// Instructions in order.
    pub insts: Vec<Emitted>,
    /// Index of the first instruction of each block (the next block's index when empty).
    pub block_start: HashMap<Block, usize>,
    /// Number of SSY regions emitted.
    pub ssy_regions: usize,
    /// Number of divergent branches left without reconvergence.
    pub unreconverged: usize,
    /// The scratch register was used.
    pub uses_scratch: bool,
}

impl EmitResult {
    /// For each instruction index (and one past the end), whether a block starts there.
    pub fn starts(&self) -> Vec<bool> {
        let n = self.insts.len();
        let mut starts = vec![false; n + 1];
        for &s in self.block_start.values() {
            if s <= n {
                starts[s] = true;
            }
        }
        starts
    }
}

#[cfg(test)]
impl EmitResult {
    /// One block of instructions in nvdisasm syntax, no branch targets (for the tests of the
    /// passes over emitted code).
    pub(crate) fn from_text(text: &[&str]) -> EmitResult {
        use cranelift_entity::EntityRef;
        let mut em = EmitResult::default();
        for t in text {
            em.insts.push(Emitted {
                inst: isa_spa5::asm::parse_inst(t, 0).expect(t).inst,
                target: None,
            });
        }
        em.block_start.insert(Block::new(0), 0);
        em
    }

    /// The instructions in nvdisasm syntax.
    pub(crate) fn text(&self) -> Vec<String> {
        let ctx = isa_spa5::asm::PrintCtx { addr: 0, reuse: 0 };
        self.insts
            .iter()
            .map(|e| isa_spa5::asm::print_inst(&e.inst, &ctx))
            .collect()
    }
}

/// Emission failures (allocation gaps are internal errors, reported rather than panicking).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EmitError {
    /// A value has no register.
    #[error("emit: {0} has no register after allocation")]
    Unallocated(Value),
    /// An instruction that should have been selected.
    #[error("emit: unselected instruction `{0}`")]
    Unselected(String),
    /// A divergent branch left without reconvergence is followed by a barrier.
    #[error("emit: divergent branch in {0} does not reconverge before the barrier in {1}")]
    UnreconvergedBarrier(Block, Block),
    /// A template code out of range.
    #[error("emit: unknown template code {0}")]
    BadCode(u16),
    /// The emitted SSY/SYNC pairs do not balance (see [`check_sync_balance`]).
    #[error("emit: reconvergence stack unbalanced at instruction {0}: {1}")]
    UnbalancedSync(usize, String),
}

/// The divergence analysis of `func` after selection: [`Uniformity`] with the `Target`
/// instructions' own sources of divergence. A `Target` instruction's results differ between
/// threads whatever its operands when a machine instruction of its template reads memory
/// threads write or own (shared, global, local: loads, atomics, spill reloads), exchanges
/// values between lanes (shuffles) or reads a per-thread special register (anything but
/// the group id); constant-bank and texture reads are uniform at a uniform address, like the
/// IR's constant-buffer and SRV loads. A template that is one `VOTE` gives the same result to
/// every thread (the vote of `vote_all`). Computed on the allocated function itself, so it
/// covers the blocks and copies selection, scheduling and allocation added.
pub fn divergence(func: &Function, tgt: &Spa5Target) -> Uniformity {
    Uniformity::compute_with(func, |data| spa5_origin(tgt, data))
}

/// As [`divergence`], with `func`'s analyses at hand.
fn divergence_in(
    func: &Function,
    tgt: &Spa5Target,
    (cfg, dt, loops): (&ControlFlowGraph, &DominatorTree, &LoopInfo),
    pdt: &PostDominatorTree,
) -> Uniformity {
    Uniformity::compute_in(func, cfg, dt, pdt, loops, |data| spa5_origin(tgt, data))
}

/// Where an instruction's results may differ between threads: `Target` instructions by
/// what their machine instructions read, the rest as the IR says.
pub(crate) fn spa5_origin(tgt: &Spa5Target, data: &InstructionData) -> Origin {
    match data {
        InstructionData::Target { code, .. } => match tgt.templates.get(*code as usize) {
            Some(t) if t.seq.len() == 1 && t.seq[0].inst.op == isa_spa5::Op::VOTE => {
                Origin::Uniform
            }
            Some(t) if !t.seq.iter().any(|ti| thread_dependent(&ti.inst)) => Origin::Operands,
            _ => Origin::Divergent,
        },
        other => ilc_passes::uniformity::origin(other),
    }
}

/// Whether `i`'s results may differ between threads whatever its register operands.
fn thread_dependent(i: &MInst) -> bool {
    let group_id = SpecialReg::CTAID_X.0..=SpecialReg::CTAID_Z.0;
    matches!(i.form().class, Class::Shared | Class::Global | Class::Sync)
        || i.operands
            .iter()
            .any(|o| matches!(o, Operand::SReg(s) if !group_id.contains(&s.0)))
}

struct Group {
    post: Block,
    region: BTreeSet<Block>,
    /// Blocks before whose terminator the SSY goes.
    ssy_at: Vec<Block>,
    /// The divergent branches this group reconverges.
    branches: Vec<Block>,
    /// Order of SSYs at one block: larger first (outer regions push first).
    ssy_key: usize,
}

/// True for a block other than the entry that only returns, or only jumps to such a block (a
/// split edge whose moves coalesced away): a branch into it is an `EXIT` of its own, and
/// branches whose paths meet only there need no reconvergence point.
fn returns_only(func: &Function, b: Block) -> bool {
    let mut b = b;
    // A bounded walk: a cycle of empty jumps (an empty infinite loop) never returns.
    for _ in 0..8 {
        if Some(b) == func.entry_block() {
            return false;
        }
        if func.only_returns(b) {
            return true;
        }
        match func.terminator(b).map(|t| &func.dfg.insts[t]) {
            Some(InstructionData::Jump { dests, .. })
                if func.layout.block_insts(b).count() == 1 =>
            {
                b = dests[0].block;
            }
            _ => return false,
        }
    }
    false
}

/// The reconvergence groups of `func`'s divergent branches: per immediate post-dominator,
/// the branches whose regions overlap, with the region's single entry as the SSY site.
/// Branches without such a group count in `out.unreconverged`.
fn branch_groups(
    func: &Function,
    cfg: &ControlFlowGraph,
    dt: &DominatorTree,
    pdt: &PostDominatorTree,
    uni: &Uniformity,
    out: &mut EmitResult,
) -> Vec<Group> {
    // Per reconvergence point, the regions of the divergent branches ending there.
    let mut branch_regions: HashMap<Block, Vec<(Block, BTreeSet<Block>)>> = HashMap::default();
    for b in func.layout.blocks() {
        let Some(t) = func.terminator(b) else {
            continue;
        };
        if let InstructionData::Brif { .. } = &func.dfg.insts[t] {
            if !uni.is_divergent_branch(b) || !dt.is_reachable(b) {
                continue;
            }
            let Some(p) = pdt.ipdom(b) else {
                out.unreconverged += 1;
                continue;
            };
            if returns_only(func, p) {
                // The paths meet only to exit: each side's edge into `P` is an EXIT of its
                // own (`exit_blocks`), so nothing waits for the other side.
                continue;
            }
            let mut region = BTreeSet::new();
            let mut stack: Vec<Block> = cfg.succs(b).to_vec();
            region.insert(b);
            while let Some(x) = stack.pop() {
                if x == p || !region.insert(x) {
                    continue;
                }
                stack.extend(cfg.succs(x).iter().copied());
            }
            branch_regions.entry(p).or_default().push((b, region));
        }
    }
    // Branches sharing `P` share one SSY only when their regions overlap (nested ifs, loop
    // exits and breaks). Disjoint regions ending at the same `P` (the inner ifs of both arms
    // of a uniform `if`, whose merges CFG simplification folded into the outer merge) are
    // separate groups, each with its own single entry and SSY.
    let mut components: Vec<(Block, BTreeSet<Block>, Vec<Block>)> = Vec::new();
    let mut posts: Vec<Block> = branch_regions.keys().copied().collect();
    posts.sort();
    for p in posts {
        let mut comps: Vec<(BTreeSet<Block>, Vec<Block>)> = Vec::new();
        for (b, region) in branch_regions.remove(&p).unwrap_or_default() {
            let mut merged = (region, vec![b]);
            let mut i = 0;
            while i < comps.len() {
                if comps[i].0.is_disjoint(&merged.0) {
                    i += 1;
                } else {
                    let (r, bs) = comps.swap_remove(i);
                    merged.0.extend(r);
                    merged.1.extend(bs);
                    i = 0;
                }
            }
            comps.push(merged);
        }
        components.extend(comps.into_iter().map(|(r, bs)| (p, r, bs)));
    }
    let mut groups: Vec<Group> = Vec::new();
    for (p, region, branch_blocks) in components {
        let mut entries = BTreeSet::new();
        let mut outside_preds = Vec::new();
        let mut ok = true;
        for &v in &region {
            for &u in cfg.preds(v) {
                if !region.contains(&u) {
                    entries.insert(v);
                    outside_preds.push(u);
                }
            }
            // Every edge into P from the region must be a jump (SYNC replaces it) or a
            // conditional branch (a guarded SYNC: the lanes taking that edge arrive).
            if cfg.succs(v).contains(&p) {
                let t = func.terminator(v);
                if t.is_none_or(|t| !matches!(func.dfg.opcode(t), Opcode::Jump | Opcode::Brif)) {
                    ok = false;
                }
            }
        }
        let ssy_at = if entries.is_empty() {
            // The region starts at the function entry: only a branch block without back
            // edges into it can host the SSY.
            let e = func.entry_block();
            match e {
                Some(e)
                    if region.contains(&e)
                        && branch_blocks.contains(&e)
                        && !cfg.preds(e).iter().any(|u| region.contains(u)) =>
                {
                    vec![e]
                }
                _ => {
                    ok = false;
                    vec![]
                }
            }
        } else if entries.len() == 1 {
            let e = *entries.iter().next().unwrap_or(&p);
            let from_inside = cfg.preds(e).iter().any(|u| region.contains(u));
            if !from_inside && branch_blocks.contains(&e) {
                vec![e]
            } else if outside_preds.iter().all(|u| cfg.succs(*u).len() == 1) {
                let mut v = outside_preds.clone();
                v.sort();
                v.dedup();
                v
            } else {
                ok = false;
                vec![]
            }
        } else {
            ok = false;
            vec![]
        };
        if ok {
            groups.push(Group {
                post: p,
                ssy_key: region.len(),
                region,
                ssy_at,
                branches: branch_blocks,
            });
        } else {
            out.unreconverged += 1;
        }
    }
    groups
}

/// Keeps the groups whose regions nest properly and moves an SSY that would sit at the end of
/// a block SYNCing into another group's point to that group's SSY site (or drops the group,
/// counting it in `out.unreconverged`).
fn nest_groups(cfg: &ControlFlowGraph, groups: &mut Vec<Group>, out: &mut EmitResult) {
    // Keep only properly nested regions.
    loop {
        let mut bad = None;
        'outer: for i in 0..groups.len() {
            for j in i + 1..groups.len() {
                let (a, b) = (&groups[i].region, &groups[j].region);
                let inter = a.intersection(b).count();
                if inter != 0 && inter != a.len() && inter != b.len() {
                    bad = Some(j);
                    break 'outer;
                }
                // Identical regions with different reconvergence points cannot both SYNC.
                if inter == a.len() && inter == b.len() {
                    bad = Some(j);
                    break 'outer;
                }
            }
        }
        match bad {
            Some(j) => {
                groups.remove(j);
                out.unreconverged += 1;
            }
            None => break,
        }
    }
    // An SSY cannot go at the end of a block that SYNCs into another region's reconvergence
    // point (the SYNC leaves first). Typically a loop whose preheader was an if's merge block,
    // folded away: the loop is entered only through that if's reconvergence point, so its SSY
    // moves to the if's SSY site, pushed first (the if's token is popped at the loop entry,
    // leaving the loop's with the same threads). Other such groups stay without reconvergence.
    loop {
        let syncing: HashMap<Block, Block> = groups
            .iter()
            .flat_map(|g| {
                g.region
                    .iter()
                    .filter(|v| cfg.succs(**v).contains(&g.post))
                    .map(|&v| (v, g.post))
                    .collect::<Vec<_>>()
            })
            .collect();
        let bad = groups.iter().position(|g| {
            g.ssy_at
                .iter()
                .any(|b| syncing.get(b).is_some_and(|&p| p != g.post))
        });
        let Some(i) = bad else {
            break;
        };
        let g = &groups[i];
        let targets: BTreeSet<Block> = g
            .ssy_at
            .iter()
            .filter_map(|b| syncing.get(b))
            .copied()
            .collect();
        let host = match (targets.len(), targets.first()) {
            (1, Some(&p2)) if g.ssy_at.iter().all(|b| syncing.contains_key(b)) => {
                groups.iter().position(|h| {
                    h.post == p2
                        && h.ssy_key == h.region.len()
                        && g.ssy_at.iter().all(|b| h.region.contains(b))
                        && h.region.is_disjoint(&g.region)
                        && h.ssy_at
                            .iter()
                            .all(|b| syncing.get(b).is_none_or(|&p| p == h.post))
                })
            }
            _ => None,
        };
        match host {
            Some(j) => {
                let (ssy_at, key) = (groups[j].ssy_at.clone(), groups[j].region.len());
                groups[i].ssy_at = ssy_at;
                groups[i].ssy_key = key + groups[i].region.len();
            }
            None => {
                groups.remove(i);
                out.unreconverged += 1;
            }
        }
    }
}

/// Emits `func` (after allocation) as machine instructions.
pub fn emit(
    func: &Function,
    alloc: &Allocation,
    tgt: &Spa5Target,
    spill_base: u32,
    analyses: &mut Analyses,
) -> Result<EmitResult, EmitError> {
    let (cfg, dt, loops) = analyses.loops(func);
    let pdt = PostDominatorTree::with_function(func, cfg);
    let uni = divergence_in(func, tgt, (cfg, dt, loops), &pdt);
    let mut out = EmitResult::default();

    let mut groups = branch_groups(func, cfg, dt, &pdt, &uni, &mut out);
    nest_groups(cfg, &mut groups, &mut out);
    check_barriers_reconverged(func, tgt, cfg, &pdt, &uni, dt, &groups)?;
    // Blocks whose edge into their region's reconvergence point becomes a SYNC, with that
    // point (a block belongs to at most one innermost region ending there).
    let mut sync_edge: HashMap<Block, Block> = HashMap::default();
    let mut ssy_before_term: SecondaryMap<Block, Vec<(usize, Block)>> = SecondaryMap::new();
    for g in &groups {
        for &v in &g.region {
            if cfg.succs(v).contains(&g.post) {
                sync_edge.insert(v, g.post);
            }
        }
        for &b in &g.ssy_at {
            ssy_before_term[b].push((g.ssy_key, g.post));
        }
    }
    out.ssy_regions = groups.len();

    // ---- linear emission ----
    // Blocks whose whole code would be one `SYNC` (an empty block on an edge into a
    // reconvergence point, typically a split critical edge): every branch to one SYNCs itself
    // (the same stack, so the same effect) and the block is not emitted, so a divergent `if`
    // is `SSY; @!P SYNC` falling into its body. Reconvergence points stay (SSYs name them).
    let posts: HashSet<Block> = groups.iter().map(|g| g.post).collect();
    let sync_blocks: HashSet<Block> = func
        .layout
        .blocks()
        .filter(|&b| {
            Some(b) != func.entry_block()
                && !posts.contains(&b)
                && sync_edge.contains_key(&b)
                && ssy_before_term[b].is_empty()
                && func.layout.block_insts(b).count() == 1
                && func
                    .terminator(b)
                    .is_some_and(|t| func.dfg.opcode(t) == Opcode::Jump)
        })
        .collect();
    // Empty forwarding blocks (only a `jump`, its arguments already in place: typically a
    // split edge whose moves coalesced away) that neither SYNC nor push an SSY nor are a
    // reconvergence point: branches to one go straight to where it jumps, and it is not
    // emitted, so a loop's exit edge falls through instead of costing a `BRA` per iteration.
    let mut forward: HashMap<Block, Block> = func
        .layout
        .blocks()
        .filter(|&b| {
            Some(b) != func.entry_block()
                && !posts.contains(&b)
                && !sync_edge.contains_key(&b)
                && !sync_blocks.contains(&b)
                && ssy_before_term[b].is_empty()
                && func.layout.block_insts(b).count() == 1
        })
        .filter_map(|b| match func.terminator(b).map(|t| &func.dfg.insts[t]) {
            Some(InstructionData::Jump { dests, .. }) if dests[0].block != b => {
                Some((b, dests[0].block))
            }
            _ => None,
        })
        .collect();
    // Follow chains to their end; a cycle of forwarders (an empty infinite loop) stays.
    let keys: Vec<Block> = forward.keys().copied().collect();
    for b in keys {
        let mut t = forward[&b];
        let mut steps = 0;
        while let Some(&n) = forward.get(&t) {
            t = n;
            steps += 1;
            if t == b || steps > forward.len() {
                break;
            }
        }
        if t == b || forward.contains_key(&t) {
            forward.remove(&b);
        } else {
            forward.insert(b, t);
        }
    }
    let exit_blocks: HashSet<Block> = func
        .layout
        .blocks()
        .filter(|&b| {
            returns_only(func, b)
                && !sync_blocks.contains(&b)
                && !posts.contains(&b)
                && ssy_before_term[b].is_empty()
        })
        .collect();
    let mut em = Linear {
        func,
        alloc,
        tgt,
        spill_base,
        sync_edge: &sync_edge,
        sync_blocks: &sync_blocks,
        ssy_before_term: &ssy_before_term,
        forward: &forward,
        exit_blocks: &exit_blocks,
        out: &mut out,
    };
    let blocks: Vec<Block> = func
        .layout
        .blocks()
        .filter(|b| {
            !sync_blocks.contains(b) && !forward.contains_key(b) && !exit_blocks.contains(b)
        })
        .collect();
    let layout_next: HashMap<Block, Block> = blocks.windows(2).map(|w| (w[0], w[1])).collect();
    for (bi, &b) in blocks.iter().enumerate() {
        em.out.block_start.insert(b, em.out.insts.len());
        let next = blocks.get(bi + 1).copied();
        em.body(b)?;
        // A jump to a small block ending in a conditional branch (a loop header reached from
        // its latch) runs a copy of that block instead unless the copy's branch needs more
        // jumps than the jump plus the original: usually one branch per iteration instead of
        // two; at a tie, the copy's compare issues before the branch, whose wait for
        // outstanding results then overlaps the predicate latency (mandelbrot: 6% fewer
        // modeled cycles).
        let dup = match func.terminator(b).map(|t| &func.dfg.insts[t]) {
            Some(InstructionData::Jump { dests, .. })
                if Some(em.fwd(dests[0].block)) != next
                    && em.duplicable(b, em.fwd(dests[0].block)) =>
            {
                let h = em.fwd(dests[0].block);
                let copy = em.terminator_len(h, next)?;
                let original = 1 + em.terminator_len(h, layout_next.get(&h).copied())?;
                (copy <= original).then_some(h)
            }
            _ => None,
        };
        match dup {
            Some(h) => {
                em.body(h)?;
                em.terminator(h, next)?;
            }
            None => em.terminator(b, next)?,
        }
    }
    let ends_in_transfer = out.insts.last().is_some_and(|e| {
        matches!(e.inst.op, Op::EXIT | Op::BRA | Op::SYNC) && e.inst.guard == Pred::TRUE
    });
    if !ends_in_transfer {
        out.insts.push(Emitted {
            inst: MInst::exit(),
            target: None,
        });
    }
    let _ = (RegFile::Gpr, ModKind::X);
    check_sync_balance(&out)?;
    Ok(out)
}

/// Most machine instructions a block may have for a jump to it to run a copy of it instead.
const DUP_MAX_INSTS: usize = 4;

/// Linear emission of the allocated blocks.
struct Linear<'a> {
    func: &'a Function,
    alloc: &'a Allocation,
    tgt: &'a Spa5Target,
    spill_base: u32,
    /// Blocks whose edge into their region's reconvergence point is a SYNC, with that point.
    sync_edge: &'a HashMap<Block, Block>,
    /// Blocks not emitted: a branch to one is a `SYNC`.
    sync_blocks: &'a HashSet<Block>,
    /// SSYs to push before a block's terminator: (nesting key, reconvergence point).
    ssy_before_term: &'a SecondaryMap<Block, Vec<(usize, Block)>>,
    /// Empty forwarding blocks not emitted, with the block a branch to one goes to instead.
    forward: &'a HashMap<Block, Block>,
    /// Blocks whose only instruction is `return`, with no reconvergence work at them, other
    /// than the entry: not emitted, a branch to one is an `EXIT` of its own.
    exit_blocks: &'a HashSet<Block>,
    out: &'a mut EmitResult,
}

impl Linear<'_> {
    /// Where a branch to `b` goes (past empty forwarding blocks).
    fn fwd(&self, b: Block) -> Block {
        self.forward.get(&b).copied().unwrap_or(b)
    }

    fn reg_of(&self, v: Value) -> Result<u16, EmitError> {
        self.alloc
            .reg(v)
            .map(|p| p.index)
            .ok_or(EmitError::Unallocated(v))
    }

    fn push(&mut self, inst: MInst, target: Option<Block>) {
        self.out.insts.push(Emitted { inst, target });
    }

    /// Whether a jump from `from` to `h` may run a copy of `h` (its instructions, then its
    /// conditional branch) instead: `h` is a few plain instructions and a conditional branch
    /// that pushes no SSY, and the jump itself neither pushes an SSY nor SYNCs. The copy does
    /// exactly what jumping to `h` would (same registers, same branch targets, the reconvergence
    /// stack untouched), so the CFG facts used above hold for it.
    fn duplicable(&self, from: Block, h: Block) -> bool {
        let f = self.func;
        if h == from
            || !self.ssy_before_term[from].is_empty()
            || self.sync_edge.contains_key(&from)
            || !self.ssy_before_term[h].is_empty()
        {
            return false;
        }
        if !f
            .terminator(h)
            .is_some_and(|t| matches!(f.dfg.insts[t], InstructionData::Brif { .. }))
        {
            return false;
        }
        let mut n = 0;
        for inst in f.layout.block_insts(h) {
            match &f.dfg.insts[inst] {
                InstructionData::Target { code, .. } => {
                    match self.tgt.templates.get(*code as usize) {
                        Some(t) => n += t.seq.len(),
                        None => return false,
                    }
                }
                InstructionData::Brif { .. } => {}
                _ => return false,
            }
        }
        n <= DUP_MAX_INSTS
    }

    /// The instructions of `b` before its terminator.
    fn body(&mut self, b: Block) -> Result<(), EmitError> {
        let func = self.func;
        for inst in func.layout.block_insts(b) {
            let data = &func.dfg.insts[inst];
            match data {
                InstructionData::Target {
                    code, imm, args, ..
                } => {
                    let t = self
                        .tgt
                        .templates
                        .get(*code as usize)
                        .ok_or(EmitError::BadCode(*code))?;
                    let results = func.dfg.inst_results(inst);
                    for ti in &t.seq {
                        let mut mi = ti.inst;
                        for (k, slot) in ti.slots.iter().enumerate() {
                            let val_op =
                                |v: Value, part: u8, not: bool| -> Result<Operand, EmitError> {
                                    let r = self.reg_of(v)?;
                                    Ok(match func.dfg.value_type(v) {
                                        Type::Pred => Operand::Pred(Pred {
                                            reg: PredReg(r as u8),
                                            not,
                                        }),
                                        _ => Operand::Reg(Reg((r + u16::from(part)) as u8)),
                                    })
                                };
                            let new = match *slot {
                                Slot::Keep => continue,
                                Slot::Arg(a, part) => val_op(args[a as usize], part, false)?,
                                Slot::ArgNot(a) => val_op(args[a as usize], 0, true)?,
                                Slot::Res(r, part) => val_op(results[r as usize], part, false)?,
                                Slot::MemArg(a) => {
                                    let base = Reg(self.reg_of(args[a as usize])? as u8);
                                    match mi.operands[k] {
                                        Operand::Mem { offset, .. } => {
                                            Operand::Mem { base, offset }
                                        }
                                        _ => Operand::Mem { base, offset: 0 },
                                    }
                                }
                                Slot::CIdxArg(a) => {
                                    let base = Reg(self.reg_of(args[a as usize])? as u8);
                                    match mi.operands[k] {
                                        Operand::CIdx { bank, offset, .. } => {
                                            Operand::CIdx { bank, base, offset }
                                        }
                                        _ => Operand::CIdx {
                                            bank: 0,
                                            base,
                                            offset: 0,
                                        },
                                    }
                                }
                                Slot::Spill => Operand::Mem {
                                    base: Reg::RZ,
                                    offset: (self.spill_base as i64 + *imm as i64) as i32,
                                },
                                Slot::Scratch => {
                                    // The first register the allocator left unused (never
                                    // above the reserved one).
                                    self.out.uses_scratch = true;
                                    let free = self.alloc.num_gprs_used().min(u32::from(SCRATCH.0));
                                    Operand::Reg(Reg(free as u8))
                                }
                            };
                            mi.operands[k] = new;
                        }
                        if let Some((a, not)) = ti.guard {
                            let r = self.reg_of(args[a as usize])?;
                            mi.guard = Pred {
                                reg: PredReg(r as u8),
                                not,
                            };
                        }
                        mi.fill_derived();
                        self.push(mi, None);
                    }
                }
                InstructionData::Jump { .. }
                | InstructionData::Brif { .. }
                | InstructionData::Nullary {
                    opcode: Opcode::Return | Opcode::Unreachable,
                    ..
                } => {}
                _ => {
                    return Err(EmitError::Unselected(
                        ilc_passes::ir::write::inst_to_string(func, inst),
                    ));
                }
            }
        }
        Ok(())
    }

    /// True if a branch to `b` is an `EXIT` of its own ([`Linear::exit_blocks`]).
    fn exits(&self, b: Block) -> bool {
        self.exit_blocks.contains(&b)
    }

    /// Instructions [`Self::terminator`] would emit for `b` followed by `next`.
    fn terminator_len(&mut self, b: Block, next: Option<Block>) -> Result<usize, EmitError> {
        let mark = self.out.insts.len();
        self.terminator(b, next)?;
        let n = self.out.insts.len() - mark;
        self.out.insts.truncate(mark);
        Ok(n)
    }

    /// The terminator of `b`, `next` being the block laid out after the code emitted so far.
    fn terminator(&mut self, b: Block, next: Option<Block>) -> Result<(), EmitError> {
        let func = self.func;
        let Some(term) = func.terminator(b) else {
            return Ok(());
        };
        let ssys = sorted_ssy(&self.ssy_before_term[b]);
        match &func.dfg.insts[term] {
            InstructionData::Jump { dests, .. } => {
                for &(_, p) in &ssys {
                    self.push(MInst::ssy(0), Some(p));
                }
                let t = self.fwd(dests[0].block);
                if self.sync_edge.contains_key(&b) || self.sync_blocks.contains(&t) {
                    self.push(MInst::sync(), None);
                } else if self.exits(t) {
                    self.push(MInst::exit(), None);
                } else if Some(t) != next {
                    self.push(MInst::bra(0), Some(t));
                }
            }
            InstructionData::Brif { arg, dests, .. } => {
                for &(_, p) in &ssys {
                    self.push(MInst::ssy(0), Some(p));
                }
                let r = self.reg_of(arg[0])? as u8;
                let (t, e) = (self.fwd(dests[0].block), self.fwd(dests[1].block));
                let post = self.sync_edge.get(&b).copied();
                let syncs = |x: Block| post == Some(x) || self.sync_blocks.contains(&x);
                let guard = |not: bool| Pred {
                    reg: PredReg(r),
                    not,
                };
                if syncs(t) || syncs(e) {
                    // Lanes taking an edge into the reconvergence point arrive there
                    // (a guarded SYNC); the others branch on.
                    let (other, not) = if syncs(t) { (e, false) } else { (t, true) };
                    if t == e || (syncs(t) && syncs(e)) {
                        self.push(MInst::sync(), None);
                    } else if Some(other) != next {
                        // The lanes going on branch first and the rest fall into the SYNC:
                        // where no lane leaves (a loop's latch, most iterations) the SYNC is
                        // not issued at all, one instruction instead of two.
                        self.push(MInst::bra(0).guarded(guard(!not)), Some(other));
                        self.push(MInst::sync(), None);
                    } else {
                        self.push(MInst::sync().guarded(guard(not)), None);
                    }
                } else if self.exits(t) || self.exits(e) {
                    // A side that only returns is a guarded EXIT (no SSY: the sides never
                    // meet); the other side follows or is branched to.
                    let (other, not) = if self.exits(t) { (e, false) } else { (t, true) };
                    if self.exits(other) {
                        self.push(MInst::exit(), None);
                    } else if Some(other) == next {
                        self.push(MInst::exit().guarded(guard(not)), None);
                    } else {
                        // The lanes going on branch first and the rest fall into the EXIT:
                        // at a loop's bottom that is one instruction per iteration.
                        self.push(MInst::bra(0).guarded(guard(!not)), Some(other));
                        self.push(MInst::exit(), None);
                    }
                } else if Some(t) == next {
                    self.push(MInst::bra(0).guarded(guard(true)), Some(e));
                } else {
                    self.push(MInst::bra(0).guarded(guard(false)), Some(t));
                    if Some(e) != next {
                        self.push(MInst::bra(0), Some(e));
                    }
                }
            }
            InstructionData::Nullary {
                opcode: Opcode::Return | Opcode::Unreachable,
                ..
            } => self.push(MInst::exit(), None),
            _ => {
                return Err(EmitError::Unselected(
                    ilc_passes::ir::write::inst_to_string(func, term),
                ));
            }
        }
        Ok(())
    }
}

/// Checks that the reconvergence stack the code builds is the same on every path: every
/// instruction is reached with one stack of pending `SSY` targets whichever way control got
/// there, `SYNC` only runs with an `SSY` pending (and continues at its target with it popped),
/// and control never runs past the end. So an `SSY` is popped exactly once on every path that
/// leaves its region, whichever branches are uniform (divergent lanes parked by a `BRA` resume
/// at the branch with the stack they left). `EXIT` ends a path with anything pending.
pub fn check_sync_balance(out: &EmitResult) -> Result<(), EmitError> {
    let n = out.insts.len();
    let at = |i: usize, e: &Emitted| -> Result<usize, EmitError> {
        e.target
            .and_then(|b| out.block_start.get(&b).copied())
            .filter(|&t| t < n)
            .ok_or_else(|| EmitError::UnbalancedSync(i, "branch without a target".into()))
    };
    // SSY target stacks, inline up to the usual nesting (a heap copy per instruction was
    // most of this check's cost).
    type Stack = SmallVec<[usize; 4]>;
    let mut state: Vec<Option<Stack>> = vec![None; n];
    let mut work: Vec<(usize, Stack)> = vec![(0, Stack::new())];
    while let Some((i, stack)) = work.pop() {
        if i >= n {
            return Err(EmitError::UnbalancedSync(
                i,
                "control runs past the end".into(),
            ));
        }
        match &state[i] {
            Some(s) if *s == stack => continue,
            Some(s) => {
                return Err(EmitError::UnbalancedSync(
                    i,
                    format!("reached with SSY targets {s:?} and {stack:?}"),
                ))
            }
            None => state[i] = Some(stack.clone()),
        }
        let e = &out.insts[i];
        let guarded = e.inst.guard != Pred::TRUE;
        match e.inst.op {
            Op::SSY => {
                let mut s = stack;
                s.push(at(i, e)?);
                work.push((i + 1, s));
            }
            Op::SYNC => {
                let mut s = stack.clone();
                let t = s
                    .pop()
                    .ok_or_else(|| EmitError::UnbalancedSync(i, "SYNC without SSY".into()))?;
                work.push((t, s));
                if guarded {
                    work.push((i + 1, stack));
                }
            }
            Op::BRA => {
                work.push((at(i, e)?, stack.clone()));
                if guarded {
                    work.push((i + 1, stack));
                }
            }
            Op::EXIT | Op::RET => {
                if guarded {
                    work.push((i + 1, stack));
                }
            }
            _ => work.push((i + 1, stack)),
        }
    }
    Ok(())
}

/// Outer regions (larger) push first.
/// The invariant that makes leaving a branch without reconvergence correct: its paths run one
/// after the other, so no barrier may follow its reconvergence point (the first path would
/// wait at the barrier, or pass it, without the others). A divergent branch whose immediate
/// post-dominator reaches a barrier must be in a reconvergence group; otherwise emission
/// fails with an internal error instead of producing code that deadlocks or races.
fn check_barriers_reconverged(
    func: &Function,
    tgt: &Spa5Target,
    cfg: &ControlFlowGraph,
    pdt: &PostDominatorTree,
    uni: &Uniformity,
    dt: &DominatorTree,
    groups: &[Group],
) -> Result<(), EmitError> {
    let has_barrier = |b: Block| {
        func.layout
            .block_insts(b)
            .any(|inst| match &func.dfg.insts[inst] {
                InstructionData::Target { code, .. } => {
                    tgt.templates.get(*code as usize).is_some_and(|t| {
                        t.seq.iter().any(|ti| {
                            matches!(
                                ti.inst.op,
                                Op::BAR_SYNC_II
                                    | Op::BAR_SYNC_RI
                                    | Op::BAR_SYNC_IR
                                    | Op::BAR_SYNC_RR
                            )
                        })
                    })
                }
                _ => false,
            })
    };
    let covered: HashSet<Block> = groups
        .iter()
        .flat_map(|g| g.branches.iter().copied())
        .collect();
    for b in func.layout.blocks() {
        let Some(t) = func.terminator(b) else {
            continue;
        };
        let InstructionData::Brif { .. } = &func.dfg.insts[t] else {
            continue;
        };
        if !uni.is_divergent_branch(b) || !dt.is_reachable(b) || covered.contains(&b) {
            continue;
        }
        let Some(p) = pdt.ipdom(b) else {
            continue;
        };
        let mut seen = HashSet::default();
        let mut stack = vec![p];
        while let Some(x) = stack.pop() {
            if !seen.insert(x) {
                continue;
            }
            if has_barrier(x) {
                return Err(EmitError::UnreconvergedBarrier(b, x));
            }
            stack.extend(cfg.succs(x).iter().copied());
        }
    }
    Ok(())
}

fn sorted_ssy(v: &[(usize, Block)]) -> Vec<(usize, Block)> {
    let mut v = v.to_vec();
    v.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use cranelift_entity::EntityRef;

    /// Code from `(instruction, target block)` pairs, block `k` starting at `starts[k]`.
    fn code(insts: &[(MInst, Option<usize>)], starts: &[usize]) -> EmitResult {
        EmitResult {
            insts: insts
                .iter()
                .map(|&(inst, t)| Emitted {
                    inst,
                    target: t.map(Block::new),
                })
                .collect(),
            block_start: starts
                .iter()
                .enumerate()
                .map(|(k, &s)| (Block::new(k), s))
                .collect(),
            ..EmitResult::default()
        }
    }

    #[test]
    fn balanced_ssy_sync_passes() {
        let p = Pred::p(0);
        // SSY b2; @p0 BRA b1; SYNC; b1: SYNC; b2: EXIT, plus a uniform loop after it.
        let c = code(
            &[
                (MInst::ssy(0), Some(2)),
                (MInst::bra(0).guarded(p), Some(1)),
                (MInst::sync(), None),
                (MInst::sync(), None),
                (MInst::bra(0).guarded(p), Some(3)),
                (MInst::bra(0), Some(2)),
                (MInst::exit(), None),
            ],
            &[0, 3, 4, 6],
        );
        assert_eq!(check_sync_balance(&c), Ok(()));
    }

    #[test]
    fn unbalanced_paths_are_rejected() {
        let p = Pred::p(0);
        // One arm SYNCs into b1 and the other branches there with the SSY still pending.
        let c = code(
            &[
                (MInst::ssy(0), Some(1)),
                (MInst::bra(0).guarded(p), Some(1)),
                (MInst::sync(), None),
                (MInst::exit(), None),
            ],
            &[0, 3],
        );
        assert!(matches!(
            check_sync_balance(&c),
            Err(EmitError::UnbalancedSync(3, _))
        ));
        // A SYNC with nothing pending.
        let c = code(&[(MInst::sync(), None)], &[0]);
        assert!(matches!(
            check_sync_balance(&c),
            Err(EmitError::UnbalancedSync(0, _))
        ));
        // Control running past the end.
        let c = code(&[(MInst::bra(0).guarded(p), Some(0))], &[0]);
        assert!(matches!(
            check_sync_balance(&c),
            Err(EmitError::UnbalancedSync(1, _))
        ));
    }
}
