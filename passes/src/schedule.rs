//! Pre-register-allocation list scheduling within each block, driven by the target's
//! latency model ([`TargetIsa::sched_info`]) and memory effects
//! ([`TargetIsa::mem_effects`]).
//!
//! For every block a dependency DAG is built over its non-terminator instructions:
//! - data edges from the definition of a value to its uses in the block, weighted by the
//!   producer's latency (a variable-latency producer uses its typical latency);
//! - memory edges keeping every read after the preceding write/barrier, every write after
//!   the preceding reads, writes and barriers, and every barrier after all earlier memory
//!   operations (weight 1), per memory class (`MemClasses`: global, shared, local): a load
//!   of a buffer may move above a store to shared memory;
//! - the terminator stays last;
//! - in a single-block loop, a variable-latency instruction (a load) whose result only the
//!   back edge passes comes after every reader of the parameter that result becomes (it can
//!   take that parameter's register instead of needing a move that waits for it).
//!
//! The list scheduler issues, cycle by cycle, the ready instruction with the longest
//! latency-weighted path to the end of the block (so long-latency loads, MUFU, double and
//! S2R operations start early), preferring instructions whose operands are available,
//! keeping a functional unit's throughput (`issue_cycles`) and breaking ties by source
//! order. It tracks the registers live in each file; when issuing the preferred
//! instruction would take the pressure past the budget, it picks the tallest instruction
//! that does not increase pressure (summed over the register files) nor take the predicates
//! past their budget, else the first in source order, so under pressure the schedule drifts
//! back toward the source order.
//!
//! Work with time to spare waits: while other instructions are pending (operands not yet
//! available), a ready instruction that would hold more general registers, whose path to the
//! end is short ([`DEFER_MAX_HEIGHT`]: it feeds no global load) and which could start
//! [`DEFER_SLACK`] cycles later without outlasting the block's critical path (the latest
//! `start + height` of the instructions issued so far) is held back. Issuing such work (a
//! store's address) in a load's shadow only raises the pressure at the point where the
//! loaded values arrive, and the budget then keeps their consumers' chains from
//! interleaving.
//!
//! A block inside a loop, or of at least [`ScheduleOptions::large_block`] instructions (a
//! fully unrolled loop, whose copies are iterations), is scheduled within
//! [`ScheduleOptions::loop_reg_budget`].
//!
//! With [`ScheduleOptions::source_slack`], a block's GPR budget rises to the pressure its own
//! source order reaches (plus the slack, capped by the function's highest source pressure):
//! where the program already holds more than the budget, the budget alone would force the
//! source order and leave independent chains uninterleaved.
//!
//! Three rounds: every block is first scheduled within its budget; a block whose pressure
//! fallback chose an instruction is then scheduled again with its budget raised to the
//! highest pressure any block reached in the first round (at most
//! [`ScheduleOptions::raise_cap`]): registers the function needs somewhere anyway cost no
//! occupancy, and that block gets the latency hiding its budget denied it. Last, blocks from
//! the highest GPR pressure down are scheduled again with the lowest GPR budget that keeps
//! their estimated cycles and the issue cycles of their variable-latency instructions
//! (`trim_budgets`): tallest-first ordering starts every chain early, and registers that
//! buy no latency hiding should not set the function's register count.
//!
//! Requires: a verifier-clean function. Guarantees: only the order of instructions inside
//! each block changes; every dependency above is respected; the result is a pure function
//! of the input (no hash-order dependence).

use crate::FastHashMap as HashMap;
use cranelift_entity::SecondaryMap;
use smallvec::SmallVec;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::ir::{Block, Function, Inst, InstructionData, PerRegFile, RegFile, Value};
use crate::regalloc::liveness::Liveness;
use crate::target::{LatencyKind, MemEffects, Resource, TargetIsa};

/// Options of the scheduler.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ScheduleOptions {
    /// Registers per file the scheduler may keep live (default: the target's file sizes).
    pub reg_budget: PerRegFile<Option<u32>>,
    /// The same inside loops, where hiding latency pays on every iteration (default:
    /// `reg_budget`).
    pub loop_reg_budget: PerRegFile<Option<u32>>,
    /// A block of at least this many instructions gets `loop_reg_budget` outside loops too
    /// (a fully unrolled loop: each copy is an iteration); `None`: only loop blocks.
    pub large_block: Option<usize>,
    /// A block whose budget held it back is rescheduled with its budget raised to the
    /// function's peak pressure (after a first round within the budgets), at most to this
    /// many registers per file; `None`: no second round for that file.
    pub raise_cap: PerRegFile<Option<u32>>,
    /// Rounds one and two let a block keep as many general registers live as its source
    /// order does at its fullest point, plus up to this many more as long as no block's
    /// source order keeps more live, whatever the budget (the program's own pressure, and
    /// room to interleave independent chains); `None`: the budget alone. Round three
    /// (`trim_budgets`) still lowers what buys no latency hiding.
    pub source_slack: Option<u32>,
    /// Fill [`ScheduleStats::cycles_before`] and [`ScheduleStats::cycles_after`] (two
    /// [`estimate_cycles`] walks per block; they stay 0 otherwise).
    pub estimate: bool,
}

/// What scheduling did, for reports and tests.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ScheduleStats {
    /// Estimated cycles of all blocks (each executed once) before scheduling.
    pub cycles_before: u64,
    /// Estimated cycles after scheduling.
    pub cycles_after: u64,
    /// Blocks whose order changed.
    pub blocks_changed: u32,
    /// Times the pressure fallback chose an instruction.
    pub pressure_picks: u32,
}

struct Node {
    inst: Inst,
    /// This node's successors and edge weights: `Dag::succs[succs.0..succs.1]`.
    succs: (u32, u32),
    /// Its results, then the values it reads (each once): `Dag::regs[regs.0..regs.1]`,
    /// the reads from `regs.2`.
    regs: (u32, u32, u32),
    npreds: u32,
    /// Longest latency-weighted path to the end of the block.
    height: u32,
    latency: u32,
    resource: Resource,
    issue_cycles: u32,
    variable: bool,
}

/// A set of node indices, iterated in increasing order: a bit per node.
struct IndexSet {
    words: Vec<u64>,
    /// No word below this one has a bit set.
    low: usize,
}

impl IndexSet {
    fn new(n: usize) -> IndexSet {
        IndexSet {
            words: vec![0; n.div_ceil(64)],
            low: 0,
        }
    }

    fn insert(&mut self, i: usize) {
        self.words[i / 64] |= 1 << (i % 64);
        self.low = self.low.min(i / 64);
    }

    fn remove(&mut self, i: usize) {
        self.words[i / 64] &= !(1 << (i % 64));
    }

    fn iter(&mut self) -> impl Iterator<Item = usize> + '_ {
        while self.words.get(self.low) == Some(&0) {
            self.low += 1;
        }
        let low = self.low;
        self.words[low.min(self.words.len())..]
            .iter()
            .enumerate()
            .flat_map(move |(k, &word)| {
                let base = (low + k) * 64;
                let mut bits = word;
                std::iter::from_fn(move || {
                    (bits != 0).then(|| {
                        let b = bits.trailing_zeros() as usize;
                        bits &= bits - 1;
                        base + b
                    })
                })
            })
    }
}

/// A block's dependency DAG: built once, read by each schedule of the block.
struct Dag {
    nodes: Vec<Node>,
    /// Successor edges (node, weight), grouped by source node in increasing order.
    succs: Vec<(u32, u32)>,
    /// The registers each node defines and reads.
    regs: Vec<RegUse>,
}

/// A value an instruction defines or reads, for the register pressure.
#[derive(Clone, Copy)]
struct RegUse {
    value: Value,
    file: RegFile,
    width: u32,
    /// Live out of the block (never dies in it).
    live_out: bool,
}

impl Dag {
    fn succs(&self, i: usize) -> &[(u32, u32)] {
        let (a, b) = self.nodes[i].succs;
        &self.succs[a as usize..b as usize]
    }

    /// The results of node `i`.
    fn defs(&self, i: usize) -> &[RegUse] {
        let (a, _, r) = self.nodes[i].regs;
        &self.regs[a as usize..r as usize]
    }

    /// The values each node reads (each once per node), all nodes in order.
    fn regs_read(&self) -> impl Iterator<Item = &RegUse> + '_ {
        (0..self.nodes.len()).flat_map(|i| self.reads(i))
    }

    /// The values node `i` reads, each once.
    fn reads(&self, i: usize) -> &[RegUse] {
        let (_, b, r) = self.nodes[i].regs;
        &self.regs[r as usize..b as usize]
    }
}

/// Builds the dependency DAG of `insts` (terminator `term` excluded).
///
/// An instruction whose only result feeds nothing but `term`'s block arguments (a loop
/// counter's `i + 1` on the back edge), and perhaps the branch's exit test (a rotated loop's
/// `i + 1 < n`), is ordered after every other reader of its operands: issued early, its
/// result would need a register of its own while `i` is still read, and a move into `i`'s
/// register at the end of each iteration; issued last, it can take that register.
fn build_dag(
    func: &Function,
    target: &dyn TargetIsa,
    lv: &Liveness,
    b: Block,
    insts: &[Inst],
    term: Option<Inst>,
) -> Dag {
    let pos: HashMap<Inst, u32> = insts
        .iter()
        .enumerate()
        .map(|(i, &inst)| (inst, i as u32))
        .collect();
    let (nodes, regs) = dag_nodes(func, target, lv, b, insts);
    let mut edges = dependence_edges(func, target, insts, &pos, &nodes);
    late_update_edges(func, target, b, insts, term, &pos, &nodes, &mut edges);
    finish_dag(nodes, regs, edges)
}

/// One node per instruction of `insts`, with its timing from the target and the registers
/// it writes and reads (each value once per node).
fn dag_nodes(
    func: &Function,
    target: &dyn TargetIsa,
    lv: &Liveness,
    b: Block,
    insts: &[Inst],
) -> (Vec<Node>, Vec<RegUse>) {
    let mut regs: Vec<RegUse> = Vec::with_capacity(3 * insts.len());
    let reg_use = |v: Value| {
        let fp = target.footprint(func.dfg.value_type(v));
        RegUse {
            value: v,
            file: fp.file,
            width: u32::from(fp.width),
            live_out: lv.is_live_out(b, v),
        }
    };
    let nodes: Vec<Node> = insts
        .iter()
        .map(|&inst| {
            let si = target.sched_info(func, inst);
            let start = regs.len() as u32;
            regs.extend(func.dfg.inst_results(inst).iter().map(|&r| reg_use(r)));
            let reads = regs.len() as u32;
            for v in func.dfg.insts[inst].all_values() {
                if !regs[reads as usize..].iter().any(|r| r.value == v) {
                    regs.push(reg_use(v));
                }
            }
            Node {
                inst,
                succs: (0, 0),
                regs: (start, regs.len() as u32, reads),
                npreds: 0,
                height: 0,
                latency: u32::from(si.latency).max(1),
                resource: si.resource,
                issue_cycles: u32::from(si.issue_cycles).max(1),
                variable: si.kind == LatencyKind::Variable,
            }
        })
        .collect();
    (nodes, regs)
}

/// The data edges (weighted by the producer's latency) and the memory-order edges between
/// `insts`: per memory class, a write after the last write and the reads since, a read after
/// the last write.
fn dependence_edges(
    func: &Function,
    target: &dyn TargetIsa,
    insts: &[Inst],
    pos: &HashMap<Inst, u32>,
    nodes: &[Node],
) -> Vec<(usize, usize, u32)> {
    let mut edges: Vec<(usize, usize, u32)> = Vec::with_capacity(3 * insts.len());
    // Per memory class (`MemClasses` bit): the last write and the reads since.
    const CLASSES: usize = 3;
    let mut last_write: [Option<usize>; CLASSES] = [None; CLASSES];
    let mut reads_since: [Vec<usize>; CLASSES] = Default::default();
    for (i, &inst) in insts.iter().enumerate() {
        crate::budget::tick();
        for v in func.dfg.insts[inst].all_values() {
            if let Some(d) = func.dfg.value_inst(v) {
                let p = pos.get(&d).copied().unwrap_or(u32::MAX);
                if p != u32::MAX && (p as usize) < i {
                    edges.push((p as usize, i, nodes[p as usize].latency));
                }
            }
        }
        let fx = target.mem_effects(func, inst);
        let spaces = if fx.barrier {
            crate::target::MemClasses::ALL
        } else {
            fx.spaces
        };
        for c in (0..CLASSES).filter(|&c| spaces.0 & (1 << c) != 0) {
            if fx.writes || fx.barrier {
                if let Some(w) = last_write[c] {
                    edges.push((w, i, 1));
                }
                for &r in &reads_since[c] {
                    edges.push((r, i, 1));
                }
                reads_since[c].clear();
                last_write[c] = Some(i);
            } else if fx.reads {
                if let Some(w) = last_write[c] {
                    edges.push((w, i, 1));
                }
                reads_since[c].push(i);
            }
        }
    }
    edges
}

/// The edges that order late block-argument updates and back-edge loads (see
/// [`build_dag`]) after the other readers of what they replace.
#[allow(clippy::too_many_arguments)]
fn late_update_edges(
    func: &Function,
    target: &dyn TargetIsa,
    b: Block,
    insts: &[Inst],
    term: Option<Inst>,
    pos: &HashMap<Inst, u32>,
    nodes: &[Node],
    edges: &mut Vec<(usize, usize, u32)>,
) {
    // Readers of each value in the block, for the late block-argument updates above.
    let (term_args, cond): (SmallVec<[Value; 8]>, Option<Value>) = match term
        .map(|t| &func.dfg.insts[t])
    {
        Some(InstructionData::Jump { dests, .. }) => (SmallVec::from_slice(&dests[0].args), None),
        Some(InstructionData::Brif { dests, arg, .. }) => (
            dests.iter().flat_map(|d| d.args.iter().copied()).collect(),
            Some(arg[0]),
        ),
        _ => (SmallVec::new(), None),
    };
    if !term_args.is_empty() {
        let mut readers: HashMap<Value, SmallVec<[usize; 4]>> =
            HashMap::with_capacity_and_hasher(insts.len(), Default::default());
        for (i, &inst) in insts.iter().enumerate() {
            for v in func.dfg.insts[inst].all_values() {
                readers.entry(v).or_default().push(i);
            }
        }
        // The branch condition's instruction, when nothing else in the block reads it (a
        // rotated loop's exit test on the updated counter).
        let test: Option<usize> = cond
            .filter(|c| !readers.contains_key(c) && !term_args.contains(c))
            .and_then(|c| insts.iter().position(|&i| func.dfg.inst_results(i) == [c]));
        let late: Vec<usize> = insts
            .iter()
            .enumerate()
            .filter(|&(_, &inst)| {
                matches!(func.dfg.inst_results(inst), [r] if term_args.contains(r)
                    && readers.get(r).is_none_or(|rs| rs.iter().all(|&k| Some(k) == test)))
                    && target.mem_effects(func, inst) == MemEffects::default()
            })
            .map(|(i, _)| i)
            .collect();
        // Such an instruction has no successor in the DAG but the exit test (no other reader
        // of its result in the block, no memory effect), so ordering other instructions
        // before it cannot close a cycle; the test itself is not ordered before it (it reads
        // its result), and two late updates reading each other's operands are left
        // unordered.
        for &i in &late {
            for v in func.dfg.insts[insts[i]].all_values() {
                for &j in readers.get(&v).into_iter().flatten() {
                    if j != i && !late.contains(&j) && Some(j) != test {
                        edges.push((j, i, 1));
                    }
                }
            }
        }
        // A variable-latency instruction (a load) whose result only the back edge of a
        // single-block loop passes, with no successor in the DAG, is ordered after every
        // reader of the parameter it becomes, so that it can take that parameter's register:
        // a move on the back edge would wait for the load to complete.
        let back: SmallVec<[(Value, Value); 4]> = match term.map(|t| &func.dfg.insts[t]) {
            Some(d) => d
                .branch_destinations()
                .iter()
                .filter(|d| d.block == b)
                .flat_map(|d| {
                    func.dfg
                        .block_params(b)
                        .iter()
                        .copied()
                        .zip(d.args.iter().copied())
                })
                .collect(),
            None => SmallVec::new(),
        };
        for (p, a) in back {
            let Some(i) = func
                .dfg
                .value_inst(a)
                .and_then(|d| pos.get(&d))
                .map(|&i| i as usize)
            else {
                continue;
            };
            if !nodes[i].variable || readers.contains_key(&a) || edges.iter().any(|e| e.0 == i) {
                continue;
            }
            for &j in readers.get(&p).into_iter().flatten() {
                if j != i && !late.contains(&j) {
                    edges.push((j, i, 1));
                }
            }
        }
    }
}

/// Merges parallel edges (keeping the largest weight), lays the successors out by source
/// node, and computes each node's predecessor count and height (the longest weighted path
/// to the end of the block).
fn finish_dag(mut nodes: Vec<Node>, regs: Vec<RegUse>, mut edges: Vec<(usize, usize, u32)>) -> Dag {
    edges.sort_unstable();
    edges.dedup_by(|a, b| {
        a.0 == b.0 && a.1 == b.1 && {
            b.2 = b.2.max(a.2);
            true
        }
    });
    let mut succs: Vec<(u32, u32)> = Vec::with_capacity(edges.len());
    let mut next = 0;
    for (a, node) in nodes.iter_mut().enumerate() {
        let start = succs.len() as u32;
        while let Some(&(_, b, w)) = edges.get(next).filter(|e| e.0 == a) {
            succs.push((b as u32, w));
            next += 1;
        }
        node.succs = (start, succs.len() as u32);
    }
    for &(_, b, _) in &edges {
        nodes[b].npreds += 1;
    }
    for i in (0..nodes.len()).rev() {
        let (a, b) = nodes[i].succs;
        let h = succs[a as usize..b as usize]
            .iter()
            .map(|&(s, w)| w + nodes[s as usize].height)
            .max()
            .unwrap_or(nodes[i].latency);
        nodes[i].height = h;
    }
    Dag { nodes, succs, regs }
}

/// Estimated cycles to run `insts` in this order on an in-order machine with the target's
/// latencies (one issue per cycle, operands must be ready, units respect `issue_cycles`).
pub fn estimate_cycles(func: &Function, target: &dyn TargetIsa, insts: &[Inst]) -> u64 {
    timeline(func, target, insts, None)
}

/// [`estimate_cycles`], also pushing onto `starts` the issue cycle of each variable-latency
/// instruction in order.
fn timeline(
    func: &Function,
    target: &dyn TargetIsa,
    insts: &[Inst],
    mut starts: Option<&mut Vec<u64>>,
) -> u64 {
    let mut ready_at: HashMap<Value, u64> =
        HashMap::with_capacity_and_hasher(insts.len(), Default::default());
    let mut unit_free: Vec<(Resource, u64)> = Vec::new();
    let mut t: u64 = 0;
    let mut end: u64 = 0;
    for &inst in insts {
        let si = target.sched_info(func, inst);
        let mut start = t;
        for v in func.dfg.insts[inst].all_values() {
            start = start.max(ready_at.get(&v).copied().unwrap_or(0));
        }
        if let Some(&(_, f)) = unit_free.iter().find(|(r, _)| *r == si.resource) {
            start = start.max(f);
        }
        unit_free.retain(|(r, _)| *r != si.resource);
        unit_free.push((si.resource, start + u64::from(si.issue_cycles.max(1))));
        if si.kind == LatencyKind::Variable {
            if let Some(s) = starts.as_deref_mut() {
                s.push(start);
            }
        }
        for &r in func.dfg.inst_results(inst) {
            let t = start + u64::from(si.latency.max(1));
            ready_at.insert(r, t);
            end = end.max(t);
        }
        t = start + 1;
        end = end.max(t);
    }
    end
}

/// Schedules every block of `func` in place.
pub fn run(func: &mut Function, target: &dyn TargetIsa, opts: &ScheduleOptions) -> ScheduleStats {
    run_with(func, target, opts, &mut crate::ir::Analyses::new())
}

/// As [`run`], with `func`'s cached analyses (scheduling reorders instructions within their
/// blocks only: the analyses stay valid).
pub fn run_with(
    func: &mut Function,
    target: &dyn TargetIsa,
    opts: &ScheduleOptions,
    analyses: &mut crate::ir::Analyses,
) -> ScheduleStats {
    let (cfg, _, loops) = analyses.loops(func);
    let lv = Liveness::compute(func, cfg);
    let budget = PerRegFile(RegFile::ALL.map(|f| {
        let n = target.num_regs(f);
        opts.reg_budget[f].map_or(n, |b| b.min(n))
    }));
    let loop_budget = PerRegFile(RegFile::ALL.map(|f| {
        let n = target.num_regs(f);
        opts.loop_reg_budget[f]
            .or(opts.reg_budget[f])
            .map_or(n, |b| b.min(n))
    }));
    // Blocks scheduled within the loop budget.
    let loop_like = |b: Block, len: usize| {
        loops.loop_depth(b) > 0 || opts.large_block.is_some_and(|n| len >= n)
    };
    let mut stats = ScheduleStats::default();
    let slack = opts.source_slack;
    let blocks: Vec<Block> = func.layout.blocks().collect();
    // Round one: every block within its budget. Round two: a block the budget held back
    // (its pressure fallback chose an instruction) may use up to the peak some block
    // reached in round one: registers the function needs somewhere anyway cost nothing, and
    // the block gets the latency hiding its budget denied it.
    let mut plans: Vec<BlockPlan> = Vec::with_capacity(blocks.len());
    let mut budgets: Vec<PerRegFile<u32>> = Vec::with_capacity(blocks.len());
    let mut remaining: SecondaryMap<Value, u32> =
        crate::ir::entities::sized_map(func.dfg.num_values());
    let mut peak = PerRegFile::<u32>::default();
    // Each block's instructions, terminator, DAG and source-order GPR pressure.
    type Built = (Block, Vec<Inst>, Option<Inst>, Dag, u32);
    let mut built: Vec<Built> = Vec::with_capacity(blocks.len());
    for b in blocks {
        let mut insts: Vec<Inst> = func.layout.block_insts(b).collect();
        let term = match insts.last() {
            Some(&t) if func.dfg.insts[t].is_terminator() => insts.pop(),
            _ => None,
        };
        if insts.len() < 2 {
            let dag = Dag {
                nodes: Vec::new(),
                succs: Vec::new(),
                regs: Vec::new(),
            };
            built.push((b, insts, term, dag, 0));
            continue;
        }
        let dag = build_dag(func, target, &lv, b, &insts, term);
        let source = match slack {
            Some(_) => {
                uses_in_block(func, &dag, term, &mut remaining);
                let entry = entry_pressure(func, target, &lv, b, &remaining)[RegFile::Gpr];
                let peak = source_order_peak(&dag, entry, &mut remaining);
                clear_uses(func, &dag, term, &mut remaining);
                peak
            }
            None => 0,
        };
        built.push((b, insts, term, dag, source));
    }
    // The most general registers any block's source order keeps live: with a slack, a
    // block may hold up to its own source pressure plus the slack, never past this.
    let fn_source = built.iter().map(|x| x.4).max().unwrap_or(0);
    let mut free_of: Vec<u32> = Vec::with_capacity(built.len());
    for (b, insts, term, dag, source) in built {
        if insts.len() < 2 {
            let order = insts.clone();
            plans.push((b, insts, term, order, BlockSchedule::default(), dag));
            budgets.push(budget);
            free_of.push(0);
            continue;
        }
        let budget = if loop_like(b, insts.len()) {
            loop_budget
        } else {
            budget
        };
        let free = slack.map_or(0, |k| source.max(source.saturating_add(k).min(fn_source)));
        let (order, sched) = schedule_block(
            func,
            target,
            &lv,
            b,
            &dag,
            term,
            budget,
            free,
            &mut remaining,
        );
        for f in RegFile::ALL {
            peak[f] = peak[f].max(sched.peak[f]);
        }
        plans.push((b, insts, term, order, sched, dag));
        budgets.push(budget);
        free_of.push(free);
    }
    for (((b, _, term, order, sched, dag), used), &free) in
        plans.iter_mut().zip(&mut budgets).zip(&free_of)
    {
        if sched.pressure_picks == 0 {
            continue;
        }
        let base = if loop_like(*b, order.len()) {
            loop_budget
        } else {
            budget
        };
        let raised = PerRegFile(RegFile::ALL.map(|f| match opts.raise_cap[f] {
            Some(cap) => base[f].max(peak[f].min(cap)),
            None => base[f],
        }));
        if raised != base {
            (*order, *sched) = schedule_block(
                func,
                target,
                &lv,
                *b,
                dag,
                *term,
                raised,
                free,
                &mut remaining,
            );
            *used = raised;
        }
    }
    trim_budgets(func, target, &lv, &mut plans, &budgets, &mut remaining);
    for (b, insts, term, order, sched, _) in plans {
        let before = if opts.estimate {
            estimate_cycles(func, target, &insts)
        } else {
            0
        };
        stats.cycles_before += before;
        stats.pressure_picks += sched.pressure_picks;
        if order == insts {
            stats.cycles_after += before;
            continue;
        }
        if opts.estimate {
            stats.cycles_after += estimate_cycles(func, target, &order);
        }
        stats.blocks_changed += 1;
        // Re-append everything (appending keeps the layout's sequence numbers cheap;
        // inserting before the terminator one by one would renumber repeatedly).
        for &i in insts.iter().chain(term.iter()) {
            func.layout.remove_inst(i);
        }
        for &i in order.iter().chain(term.iter()) {
            func.layout.append_inst(i, b);
        }
    }
    stats
}

/// Round three: general registers a block's schedule holds without hiding latency with them.
/// Blocks are visited from the highest GPR peak down; each is rescheduled with the lowest GPR
/// budget (bisected) whose order takes no more [`estimate_cycles`] than its current one and
/// issues its k-th variable-latency instruction (load, MUFU, ...) no later, for every k; the
/// budget never goes below the peak the blocks visited before kept (the function needs those
/// registers anyway). The makespan alone is not enough: a block's 300-cycle load hides every
/// shorter chain, and orders that issue loads later (address arithmetic interleaved) cost
/// their latency on the machine, where loads take longer than the typical value.
fn trim_budgets(
    func: &Function,
    target: &dyn TargetIsa,
    lv: &Liveness,
    plans: &mut [BlockPlan],
    budgets: &[PerRegFile<u32>],
    remaining: &mut SecondaryMap<Value, u32>,
) {
    let gpr = RegFile::Gpr;
    let mut by_peak: Vec<usize> = (0..plans.len()).collect();
    by_peak.sort_by_key(|&i| (Reverse(plans[i].4.peak[gpr]), i));
    let mut floor = 0;
    for i in by_peak {
        let (b, insts, term, order, sched, dag) = &mut plans[i];
        if sched.peak[gpr] <= floor || insts.len() < 2 {
            continue;
        }
        let mut goal_starts = Vec::new();
        let goal = timeline(func, target, order, Some(&mut goal_starts));
        goal_starts.sort_unstable();
        let holds = |o: &[Inst]| {
            let mut st = Vec::new();
            let c = timeline(func, target, o, Some(&mut st));
            st.sort_unstable();
            c <= goal && st.iter().zip(&goal_starts).all(|(a, b)| a <= b)
        };
        // The lowest budget seen to hold `goal`, bisected over `lo..hi`. A budget under
        // which an order already rejected (or the current one) comes out again is rejected
        // without scheduling: `failed` holds those orders' budget ranges.
        let (mut lo, mut hi) = (floor, sched.peak[gpr]);
        let mut failed: SmallVec<[std::ops::Range<u32>; 4]> = SmallVec::new();
        failed.push(sched.same_gpr_budgets.clone());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if failed.iter().any(|r| r.contains(&mid)) {
                lo = mid + 1;
                continue;
            }
            let mut budget = budgets[i];
            budget[gpr] = mid;
            let (o, s) = schedule_block(func, target, lv, *b, dag, *term, budget, 0, remaining);
            if s.peak[gpr] < sched.peak[gpr] && holds(&o) {
                hi = s.peak[gpr].min(mid);
                failed.push(s.same_gpr_budgets.clone());
                (*order, *sched) = (o, s);
            } else {
                failed.push(s.same_gpr_budgets.clone());
                lo = mid + 1;
            }
        }
        floor = floor.max(sched.peak[gpr]);
    }
}

/// Adds to `remaining` (zero before) the uses of each value by the DAG's instructions and
/// `term` (an instruction reading a value twice counts once): a value's last use in the
/// block is when its count reaches zero (live-out values never die there). A dense table
/// shared by the blocks, zeroed again by [`clear_uses`] (a hash map per block cost more than
/// its lookups).
fn uses_in_block(
    func: &Function,
    dag: &Dag,
    term: Option<Inst>,
    remaining: &mut SecondaryMap<Value, u32>,
) {
    for r in dag.regs_read() {
        remaining[r.value] += 1;
    }
    if let Some(t) = term {
        let mut seen: SmallVec<[Value; 8]> = SmallVec::new();
        for v in func.dfg.insts[t].all_values() {
            if !seen.contains(&v) {
                seen.push(v);
                remaining[v] += 1;
            }
        }
    }
}

/// Zeroes the counts [`uses_in_block`] left for the same instructions.
fn clear_uses(
    func: &Function,
    dag: &Dag,
    term: Option<Inst>,
    remaining: &mut SecondaryMap<Value, u32>,
) {
    for r in dag.regs_read() {
        remaining[r.value] = 0;
    }
    for v in term.iter().flat_map(|&t| func.dfg.insts[t].all_values()) {
        remaining[v] = 0;
    }
}

/// A block's instructions (terminator apart), its schedule, what scheduling found and its
/// dependency DAG.
type BlockPlan = (
    Block,
    Vec<Inst>,
    Option<Inst>,
    Vec<Inst>,
    BlockSchedule,
    Dag,
);

/// What scheduling one block found.
#[derive(Clone)]
struct BlockSchedule {
    /// Registers of each file live at once at the block's fullest point.
    peak: PerRegFile<u32>,
    /// Times the pressure fallback chose an instruction.
    pressure_picks: u32,
    /// The GPR budgets (the other files' unchanged) under which the block gets this same
    /// schedule: every pressure test against the GPR budget comes out the same.
    same_gpr_budgets: std::ops::Range<u32>,
}

impl Default for BlockSchedule {
    fn default() -> Self {
        BlockSchedule {
            peak: PerRegFile::default(),
            pressure_picks: 0,
            same_gpr_budgets: 0..u32::MAX,
        }
    }
}

/// Slack (cycles) past which a ready instruction that grows general-register pressure waits
/// (module doc): the block cannot end before `end_bound`, and an instruction whose path to
/// the end is this much shorter than the time left still issues in time later.
const DEFER_SLACK: u64 = 30;
/// Only instructions whose path to the end of the block is shorter than this wait: no path
/// through a global load or texture fetch (their typical latency is 300), whose issue time
/// the latency model knows least. Measured on the 61 dynamic pairs (modeled cycles vs
/// ptxas; `--assume-in-bounds` in parentheses): no waiting 0.9513 (0.9137); waiting with
/// any height 0.9507 (0.9070; shoc_md +28%: loads waited behind others' slack); below 64
/// 0.9482 (0.9060); 100, 128, 150, 192: 0.9470, 0.9451, 0.9459, 0.9461 (0.9065, 0.9057,
/// 0.9062, 0.9060). Slack 15/30/45/60 at 64 or 128 moved the figures by under 0.1%.
const DEFER_MAX_HEIGHT: u32 = 128;

/// The order of ready instructions in `avail`: tallest first, variable latency before
/// fixed, then source order.
fn priority(i: usize, nodes: &[Node]) -> (u32, bool, Reverse<usize>) {
    (nodes[i].height, nodes[i].variable, Reverse(i))
}

/// The ready instructions of a block being scheduled, for [`pop_undeferred`].
struct Ready<'a> {
    avail: &'a mut BinaryHeap<(u32, bool, Reverse<usize>)>,
    done: &'a [bool],
    unit_free: &'a [(Resource, u64)],
    nodes: &'a [Node],
    cycle: u64,
}

/// The preferred ready instruction (see [`pop_preferred`]) that need not wait: when
/// `waiting_allowed` (other work is pending), the first of up to eight candidates in
/// priority order that `defer` does not hold back. `Err(h)` when every candidate was held:
/// `h` is the greatest height among them (the first to run out of slack); the candidates
/// stay in `avail`.
fn pop_undeferred(
    r: Ready<'_>,
    waiting_allowed: bool,
    defer: impl Fn(usize) -> bool,
) -> Result<usize, u64> {
    let best = pop_preferred(r.avail, r.done, r.unit_free, r.nodes, r.cycle);
    if !waiting_allowed || !defer(best) {
        return Ok(best);
    }
    let mut held: SmallVec<[usize; 8]> = SmallVec::new();
    held.push(best);
    let mut found = None;
    while held.len() < 8 {
        while r.avail.peek().is_some_and(|&(_, _, Reverse(i))| r.done[i]) {
            r.avail.pop();
        }
        if r.avail.is_empty() {
            break;
        }
        let next = pop_preferred(r.avail, r.done, r.unit_free, r.nodes, r.cycle);
        if defer(next) {
            held.push(next);
        } else {
            found = Some(next);
            break;
        }
    }
    let tallest = held.iter().map(|&h| u64::from(r.nodes[h].height)).max();
    for h in held {
        r.avail.push(priority(h, r.nodes));
    }
    found.ok_or(tallest.unwrap_or(0))
}

/// The preferred ready instruction, taken off `avail`: the tallest (variable latency first,
/// then source order); among the first few, one whose unit is free at `cycle`, else the
/// highest priority one. Entries of scheduled nodes are dropped on the way.
fn pop_preferred(
    avail: &mut BinaryHeap<(u32, bool, Reverse<usize>)>,
    done: &[bool],
    unit_free: &[(Resource, u64)],
    nodes: &[Node],
    cycle: u64,
) -> usize {
    let unit_ok = |i: usize| {
        unit_free
            .iter()
            .find(|(r, _)| *r == nodes[i].resource)
            .is_none_or(|&(_, f)| f <= cycle)
    };
    let mut skipped: SmallVec<[(u32, bool, Reverse<usize>); 9]> = SmallVec::new();
    while let Some(top) = avail.pop() {
        let i = (top.2).0;
        if done[i] {
            continue;
        }
        if unit_ok(i) || skipped.len() >= 8 {
            avail.extend(skipped);
            return i;
        }
        skipped.push(top);
    }
    // Every candidate waits for its unit (the caller saw one available).
    let top = skipped.remove(0);
    avail.extend(skipped);
    (top.2).0
}

/// Registers of each file live at the start of block `b` (live in, or its parameters) that
/// the block reads or passes on, given the uses in the block in `remaining` (see
/// [`uses_in_block`]).
fn entry_pressure(
    func: &Function,
    target: &dyn TargetIsa,
    lv: &Liveness,
    b: Block,
    remaining: &SecondaryMap<Value, u32>,
) -> PerRegFile<u32> {
    let mut pressure = PerRegFile::<u32>::default();
    for &v in lv.live_in[b].iter().chain(func.dfg.block_params(b)) {
        if remaining[v] > 0 || lv.is_live_out(b, v) {
            let fp = target.footprint(func.dfg.value_type(v));
            pressure[fp.file] += u32::from(fp.width);
        }
    }
    pressure
}

/// The most general registers live at once when a block's instructions issue in source
/// order, from `pressure` at its start; `remaining` holds the uses in the block (see
/// [`uses_in_block`]) and is counted down (clear it with [`clear_uses`]).
fn source_order_peak(
    dag: &Dag,
    mut pressure: u32,
    remaining: &mut SecondaryMap<Value, u32>,
) -> u32 {
    let mut peak = pressure;
    let gpr = |r: &&RegUse| r.file == RegFile::Gpr;
    for i in 0..dag.nodes.len() {
        let defs = dag.defs(i).iter().filter(gpr);
        pressure += defs.clone().map(|r| r.width).sum::<u32>();
        peak = peak.max(pressure);
        for r in defs {
            if remaining[r.value] == 0 && !r.live_out {
                pressure -= r.width;
            }
        }
        for r in dag.reads(i) {
            remaining[r.value] -= 1;
            if remaining[r.value] == 0 && !r.live_out && r.file == RegFile::Gpr {
                pressure = pressure.saturating_sub(r.width);
            }
        }
    }
    peak
}

#[allow(clippy::too_many_arguments)]
fn schedule_block(
    func: &Function,
    target: &dyn TargetIsa,
    lv: &Liveness,
    b: Block,
    dag: &Dag,
    term: Option<Inst>,
    budget: PerRegFile<u32>,
    free: u32,
    remaining: &mut SecondaryMap<Value, u32>,
) -> (Vec<Inst>, BlockSchedule) {
    let mut sched = BlockSchedule::default();
    let nodes = &dag.nodes[..];
    let mut npreds: Vec<u32> = nodes.iter().map(|n| n.npreds).collect();
    uses_in_block(func, dag, term, remaining);
    let rem = |m: &SecondaryMap<Value, u32>, v: Value| m[v];
    let mut pressure = entry_pressure(func, target, lv, b, remaining);
    sched.peak = pressure;
    // The budget test is against the higher of the budget and `free` general registers.
    let mut limit = budget;
    limit[RegFile::Gpr] = limit[RegFile::Gpr].max(free);
    // Net register change if `inst` issued now, per file.
    let delta = |i: usize, remaining: &SecondaryMap<Value, u32>| -> [i64; 2] {
        let mut d = [0i64; 2];
        for r in dag.defs(i) {
            if rem(remaining, r.value) > 0 || r.live_out {
                d[r.file as usize] += i64::from(r.width);
            }
        }
        for r in dag.reads(i) {
            if rem(remaining, r.value) == 1 && !r.live_out {
                d[r.file as usize] -= i64::from(r.width);
            }
        }
        d
    };
    let n = nodes.len();
    let mut earliest = vec![0u64; n];
    let mut done = vec![false; n];
    // Ready nodes: `pending` until their operands are available (min-heap on the cycle),
    // then `avail` (max-heap on priority); `ready` in source order for the pressure
    // fallback. Heap entries of scheduled nodes are skipped lazily.
    let mut avail: BinaryHeap<(u32, bool, Reverse<usize>)> = BinaryHeap::new();
    let mut pending: BinaryHeap<Reverse<(u64, usize)>> = BinaryHeap::new();
    let mut ready = IndexSet::new(n);
    for (i, node) in nodes.iter().enumerate() {
        if node.npreds == 0 {
            pending.push(Reverse((0, i)));
            ready.insert(i);
        }
    }
    let mut unit_free: Vec<(Resource, u64)> = Vec::new();
    let mut order = Vec::with_capacity(n);
    let mut cycle: u64 = 0;
    let mut end_bound: u64 = nodes.iter().map(|n| u64::from(n.height)).max().unwrap_or(0);
    while order.len() < n {
        crate::budget::tick();
        while let Some(&Reverse((e, i))) = pending.peek() {
            if e > cycle {
                break;
            }
            pending.pop();
            if !done[i] {
                avail.push(priority(i, nodes));
            }
        }
        while avail.peek().is_some_and(|&(_, _, Reverse(i))| done[i]) {
            avail.pop();
        }
        if avail.is_empty() {
            match pending.peek() {
                Some(&Reverse((e, _))) => {
                    cycle = cycle.max(e);
                    continue;
                }
                None => break,
            }
        }
        // A ready instruction that would hold more general registers and whose path to the
        // end is short and far from critical waits while later work is pending.
        let deferrable = |i: usize, remaining: &SecondaryMap<Value, u32>| {
            nodes[i].height < DEFER_MAX_HEIGHT
                && delta(i, remaining)[RegFile::Gpr as usize] > 0
                && cycle + u64::from(nodes[i].height) + DEFER_SLACK < end_bound
        };
        let ready_now = Ready {
            avail: &mut avail,
            done: &done,
            unit_free: &unit_free,
            nodes,
            cycle,
        };
        let best =
            match pop_undeferred(ready_now, !pending.is_empty(), |i| deferrable(i, remaining)) {
                Ok(best) => best,
                Err(due) => {
                    // Until more work is ready or the first held instruction runs out of slack.
                    let Some(&Reverse((e, _))) = pending.peek() else {
                        unreachable!("instructions are only held while others are pending")
                    };
                    cycle = cycle.max(e.min(end_bound - due - DEFER_SLACK));
                    continue;
                }
            };
        let over_in = |d: [i64; 2], files: &[RegFile]| {
            files.iter().any(|&f| {
                d[f as usize] > 0 && i64::from(pressure[f]) + d[f as usize] > i64::from(limit[f])
            })
        };
        let best_delta = delta(best, remaining);
        // The GPR budgets that decide this test the same way keep the schedule as it is.
        let gpr_need = best_delta[RegFile::Gpr as usize];
        if gpr_need > 0 {
            let need = (i64::from(pressure[RegFile::Gpr]) + gpr_need).min(i64::from(u32::MAX));
            let need = need as u32;
            if need <= limit[RegFile::Gpr] && need > budget[RegFile::Gpr] {
                // Within `free`: allowed under any budget.
            } else if need > budget[RegFile::Gpr] {
                sched.same_gpr_budgets.end = sched.same_gpr_budgets.end.min(need);
            } else {
                sched.same_gpr_budgets.start = sched.same_gpr_budgets.start.max(need);
            }
        }
        let pick = if over_in(best_delta, &RegFile::ALL) {
            sched.pressure_picks += 1;
            // Among the first 64 ready in source order, the tallest that does not grow
            // pressure summed over the files and adds no predicate past the predicate
            // budget (latency still counts among those), else plain source order (which
            // keeps the program's own pressure). A compare freeing a general register is
            // no trade for a predicate when the few predicates are all taken: the
            // allocator would spill predicates through memory.
            let first = ready.iter().next().expect("best is ready");
            let calm = ready
                .iter()
                .take(64)
                .filter(|&i| {
                    let d = delta(i, remaining);
                    d[0] + d[1] <= 0 && !over_in(d, &[RegFile::Pred])
                })
                .min_by_key(|&i| (Reverse(nodes[i].height), i));
            calm.unwrap_or(first)
        } else {
            best
        };
        if pick != best {
            avail.push(priority(best, nodes));
        }
        done[pick] = true;
        ready.remove(pick);
        let start = cycle.max(earliest[pick]);
        let d = if pick == best {
            best_delta
        } else {
            delta(pick, remaining)
        };
        let mut defs = [0u32; 2];
        for r in dag.defs(pick) {
            defs[r.file as usize] += r.width;
        }
        for f in RegFile::ALL {
            // A result occupies its register at its definition even if nothing reads it.
            let grown = pressure[f] + defs[f as usize];
            sched.peak[f] = sched.peak[f].max(grown);
            pressure[f] = (i64::from(pressure[f]) + d[f as usize]).max(0) as u32;
        }
        let inst = nodes[pick].inst;
        for r in dag.reads(pick) {
            remaining[r.value] = remaining[r.value].saturating_sub(1);
        }
        let res = nodes[pick].resource;
        let busy = start + u64::from(nodes[pick].issue_cycles);
        unit_free.retain(|(r, _)| *r != res);
        unit_free.push((res, busy));
        for &(s, w) in dag.succs(pick) {
            let s = s as usize;
            earliest[s] = earliest[s].max(start + u64::from(w));
            npreds[s] -= 1;
            if npreds[s] == 0 {
                pending.push(Reverse((earliest[s], s)));
                ready.insert(s);
            }
        }
        order.push(inst);
        end_bound = end_bound.max(start + u64::from(nodes[pick].height));
        cycle = start + 1;
    }
    debug_assert_eq!(
        order.len(),
        n,
        "the DAG is acyclic: every node gets scheduled"
    );
    clear_uses(func, dag, term, remaining);
    (order, sched)
}

/// `test schedule [budget=N] [loop_budget=N] [large=N] [raise=N] [slack=N]`: schedules for
/// the [`ToyTarget`](crate::target::ToyTarget) with an optional GPR budget, loop budget,
/// large-block size, raise cap and source slack; outputs a summary line
/// (`; schedule: cycles 412 -> 230`) and the scheduled function.
pub struct ScheduleTest;

impl crate::filetest::SubTest for ScheduleTest {
    fn name(&self) -> &'static str {
        "schedule"
    }
    fn is_mutating(&self) -> bool {
        true
    }
    fn run(
        &self,
        func: &mut Function,
        ctx: &crate::filetest::Context<'_>,
    ) -> Result<String, String> {
        let target = crate::target::ToyTarget::default();
        let mut opts = ScheduleOptions {
            estimate: true,
            ..ScheduleOptions::default()
        };
        for o in ctx.options {
            let (key, n) = o
                .split_once('=')
                .ok_or_else(|| format!("unknown option '{o}'"))?;
            let num = n.parse::<u32>().map_err(|_| format!("bad {key} '{n}'"));
            match key {
                "budget" => opts.reg_budget[RegFile::Gpr] = Some(num?),
                "slack" => opts.source_slack = Some(num?),
                "loop_budget" => opts.loop_reg_budget[RegFile::Gpr] = Some(num?),
                "large" => opts.large_block = Some(num? as usize),
                "raise" => opts.raise_cap[RegFile::Gpr] = Some(num?),
                _ => return Err(format!("unknown option '{o}'")),
            }
        }
        let stats = run(func, &target, &opts);
        Ok(format!(
            "; schedule: cycles {} -> {}\n{func}",
            stats.cycles_before, stats.cycles_after
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::parse_function_text;
    use crate::target::ToyTarget;

    /// The most predicates live at once in `f`'s only block.
    fn peak_preds(f: &Function) -> usize {
        let b = f.layout.blocks().next().expect("a block");
        let insts: Vec<Inst> = f.layout.block_insts(b).collect();
        let last_use = |v: Value| {
            insts
                .iter()
                .rposition(|&i| f.dfg.insts[i].all_values().any(|x| x == v))
        };
        (0..insts.len())
            .map(|at| {
                insts[..=at]
                    .iter()
                    .flat_map(|&i| f.dfg.inst_results(i).iter().copied())
                    .filter(|&v| f.dfg.value_type(v) == crate::ir::Type::Pred)
                    .filter(|&v| last_use(v).is_some_and(|u| u > at))
                    .count()
            })
            .max()
            .unwrap_or(0)
    }

    /// Under general register pressure, a compare that frees a general register but adds a
    /// predicate to a full predicate file is no calm choice: the predicates stay within
    /// their budget (summed over both files, the compare looked free and the scheduler
    /// stacked every compare up, for the allocator to spill predicates through memory).
    #[test]
    fn compares_do_not_pile_up_predicates_under_gpr_pressure() {
        let mut text = String::from(
            "kernel %k {
    uav0 = raw
block0:
    v0 = special tid.x
    v1 = special tid.y
",
        );
        for k in 0..4 {
            let (a, p, s, r) = (10 + 4 * k, 11 + 4 * k, 12 + 4 * k, 13 + 4 * k);
            text += &format!(
                "    v{a} = iadd v0, v1\n    v{p} = icmp slt v{a}, v1\n    \
                 v{s} = select v{p}, v1, v0\n    v{r} = frcp v{s}\n"
            );
        }
        text += "    v30 = fadd v13, v17
    v31 = fadd v21, v25
    v32 = fadd v30, v31
    store.b32 uav0[v1], v32
    return
}";
        let mut f = parse_function_text(&text).expect("valid");
        let mut opts = ScheduleOptions::default();
        opts.reg_budget[RegFile::Gpr] = Some(4);
        opts.reg_budget[RegFile::Pred] = Some(1);
        run(&mut f, &ToyTarget::default(), &opts);
        crate::verifier::verify_function(&f).expect("still valid");
        assert!(peak_preds(&f) <= 1, "{f}");
    }

    /// Store addresses (computed from values ready early, read only by the stores) wait
    /// while the loads are in flight, as late as the sums of the loaded values leave time
    /// for, instead of filling the loads' shadow with registers held through the sums.
    #[test]
    fn store_addresses_wait_while_loads_are_in_flight() {
        let mut text = String::from(
            "kernel %k {
    uav0 = raw
    lds0 = 4096
block0:
    v0 = special tid.x
    v1 = iconst.b32 0x2
    v2 = iconst.b32 0x100
    v3 = iconst.b32 0x200
    v4 = ishl v0, v1
    v5 = imul v0, v0
    v6 = iadd v5, v2
    v7 = iadd v5, v3
",
        );
        // Eight loads, summed in two chains (`v30..` and `v40..`).
        for k in 0..8 {
            text += &format!("    v{} = load.b32 uav0[v4+{}]\n", 10 + k, 4 * k);
        }
        text += "    v30 = fadd v10, v11\n    v40 = fsub v10, v11\n";
        for k in 2..8 {
            text += &format!(
                "    v{} = fadd v{}, v{}\n    v{} = fsub v{}, v{}\n",
                29 + k,
                28 + k,
                10 + k,
                39 + k,
                38 + k,
                10 + k
            );
        }
        text += "    store.b32 lds0[v6], v36
    store.b32 lds0[v7], v46
    store.b32 lds0[v0], v5
    return
}";
        let text = scheduled(&text);
        let p = |s: &str| at(&text, s);
        // Issued in the loads' shadow, `v5` and its sums would hold three registers through
        // the two chains; they wait until the chains are under way.
        assert!(p("v30 = fadd") < p("v5 = imul"), "{text}");
        assert!(p("v5 = imul") < p("v6 = iadd"), "{text}");
    }

    #[test]
    fn loads_move_up_and_memory_order_is_kept() {
        let mut f = parse_function_text(
            "kernel %k {
    uav0 = raw
block0:
    v0 = special tid.x
    v1 = iadd v0, v0
    v2 = imul v1, v1
    v3 = load.b32 uav0[v0]
    v4 = iadd v3, v2
    store.b32 uav0[v0], v4
    v5 = load.b32 uav0[v1]
    store.b32 uav0[v1], v5
    return
}",
        )
        .expect("valid");
        let opts = ScheduleOptions {
            estimate: true,
            ..ScheduleOptions::default()
        };
        let stats = run(&mut f, &ToyTarget::default(), &opts);
        let text = f.to_string();
        let p = |s: &str| at(&text, s);
        assert!(p("v3 = load") < p("v1 = iadd"), "{text}");
        assert!(p("store.b32 uav0[v0]") < p("v5 = load"), "{text}");
        assert!(stats.cycles_after < stats.cycles_before, "{stats:?}");
        crate::verifier::verify_function(&f).expect("still valid");
    }

    /// A single-block loop's load of the next iteration's value (passed only on the back edge)
    /// issues after the last reader of the parameter it becomes, not first: it can then take
    /// that parameter's register, where a move on the back edge would wait for the load.
    #[test]
    fn back_edge_load_follows_its_parameter_readers() {
        let text = scheduled(
            "kernel %k {
    uav0 = raw
    cb0 = 16
block0:
    v0 = iconst.b32 0x0
    v1 = iconst.b32 0x1
    v2 = iconst.b32 0x2
    v3 = load.b32 cb0[0]
    v4 = load.b32 uav0[v0]
    jump block1(v0, v4, v0)

block1(v10: b32, v11: b32, v12: b32):
    v13 = iadd v10, v1
    v14 = ishl v13, v2
    v15 = load.b32 uav0[v14]
    v19 = frcp v12
    v16 = fmul v11, v19
    v17 = fadd v12, v16
    v18 = icmp slt v13, v3
    brif v18, block1(v13, v15, v17), block2

block2:
    store.b32 uav0[v0], v12
    return
}",
        );
        let p = |s: &str| at(&text, s);
        assert!(p("v16 = fmul") < p("v15 = load"), "{text}");
    }

    /// `text` parsed, scheduled for the toy target with the default options and verified.
    fn scheduled(text: &str) -> String {
        let mut f = parse_function_text(text).expect("valid");
        run(&mut f, &ToyTarget::default(), &ScheduleOptions::default());
        crate::verifier::verify_function(&f).expect("still valid");
        f.to_string()
    }

    /// Where `s` stands in `text`.
    fn at(text: &str, s: &str) -> usize {
        text.find(s)
            .unwrap_or_else(|| panic!("{s} missing in {text}"))
    }

    /// Most GPRs live at once in the single block of `f` (live-in values included).
    fn block_peak(f: &Function, t: &dyn TargetIsa) -> u32 {
        let insts: Vec<Inst> = f
            .layout
            .blocks()
            .flat_map(|b| f.layout.block_insts(b))
            .collect();
        let mut live: std::collections::BTreeSet<Value> = Default::default();
        let mut peak = 0;
        for &inst in insts.iter().rev() {
            for &r in f.dfg.inst_results(inst) {
                live.remove(&r);
            }
            live.extend(f.dfg.insts[inst].all_values());
            let w = |v: &Value| u32::from(t.footprint(f.dfg.value_type(*v)).width);
            peak = peak.max(live.iter().map(w).sum());
        }
        peak
    }

    #[test]
    fn registers_that_hide_no_latency_are_trimmed() {
        // Once the load issues first, its latency covers all the arithmetic: tallest-first
        // would start every chain at once and hold their values; one chain at a time takes
        // as long.
        let src = "kernel %k {
    uav0 = raw
block0:
    v0 = special tid.x
    v2 = iadd v0, v0
    v3 = imul v2, v2
    v4 = ishl v3, v0
    v5 = imul v0, v0
    v6 = xor v5, v4
    v7 = ishr v0, v0
    v8 = imul v7, v0
    v9 = iadd v8, v7
    v10 = and v9, v6
    v11 = or v0, v0
    v12 = imul v11, v10
    v13 = isub v12, v11
    v1 = load.b32 uav0[v0]
    v14 = iadd v13, v1
    store.b32 uav0[v0], v14
    return
}";
        let target = ToyTarget::default();
        let mut f = parse_function_text(src).expect("valid");
        let source_peak = block_peak(&f, &target);
        let opts = ScheduleOptions {
            estimate: true,
            ..ScheduleOptions::default()
        };
        let stats = run(&mut f, &target, &opts);
        crate::verifier::verify_function(&f).expect("still valid");
        let text = f.to_string();
        // One register more than the source order: the load's result, live from the top.
        assert_eq!(block_peak(&f, &target), source_peak + 1, "{text}");
        let p = |s: &str| {
            text.find(s)
                .unwrap_or_else(|| panic!("{s} missing in {text}"))
        };
        assert!(
            p("v1 = load") < p("v2 = iadd"),
            "the load still issues first: {text}"
        );
        assert!(stats.cycles_after < stats.cycles_before, "{stats:?}");
    }

    /// Every GPR budget in a schedule's `same_gpr_budgets` gives that same order (trimming
    /// rejects budgets in the ranges of rejected orders without scheduling again).
    #[test]
    fn budgets_in_the_same_range_give_the_same_order() {
        use crate::regalloc::testgen::{generate, GenConfig};
        let target = ToyTarget::default();
        let mut ranges_checked = 0;
        for f in (0..60).map(|seed| generate(seed, &GenConfig::default())) {
            let cfg = crate::ir::ControlFlowGraph::with_function(&f);
            let lv = Liveness::compute(&f, &cfg);
            let mut remaining = crate::ir::entities::sized_map(f.dfg.num_values());
            for b in f.layout.blocks() {
                let mut insts: Vec<Inst> = f.layout.block_insts(b).collect();
                let term = insts.pop();
                let dag = build_dag(&f, &target, &lv, b, &insts, term);
                let mut schedule = |gpr: u32| {
                    let budget = PerRegFile([gpr, 7]);
                    schedule_block(&f, &target, &lv, b, &dag, term, budget, 0, &mut remaining)
                };
                for gpr in [2, 4, 6, 9, 14] {
                    let (order, sched) = schedule(gpr);
                    let range = sched.same_gpr_budgets.clone();
                    assert!(range.contains(&gpr), "{}: {range:?} lacks {gpr}", f.name);
                    for other in range.start..range.end.min(40) {
                        assert_eq!(schedule(other).0, order, "{}, budget {other}", f.name);
                    }
                    ranges_checked += usize::from(range.end < 40);
                }
            }
        }
        assert!(ranges_checked > 20, "few bounded ranges: {ranges_checked}");
    }

    /// The ready set iterates in increasing order, also after removals and after an insert
    /// below its lowest word.
    #[test]
    fn index_set_iterates_in_order() {
        let mut set = IndexSet::new(300);
        for i in [299, 5, 64, 130, 63] {
            set.insert(i);
        }
        assert_eq!(set.iter().collect::<Vec<_>>(), [5, 63, 64, 130, 299]);
        set.remove(5);
        set.remove(63);
        set.remove(64);
        assert_eq!(set.iter().next(), Some(130));
        set.insert(1);
        assert_eq!(set.iter().collect::<Vec<_>>(), [1, 130, 299]);
        set.remove(1);
        set.remove(130);
        set.remove(299);
        assert_eq!(set.iter().next(), None);
        assert_eq!(IndexSet::new(0).iter().next(), None);
    }
}
