//! Register assignment after spilling: greedy coloring in dominator-tree pre-order.
//!
//! Requires: strict SSA whose register pressure fits the file (guaranteed by
//! `spill`), bundles from `prepare`.
//! Guarantees: every value in the layout gets the first register of a run that is free for
//! its whole live range, aligned as its footprint requires; results in a result group and
//! bundle members sit in consecutive registers; block parameters of a block get pairwise
//! distinct registers. Picks the lowest free aligned run (after a copy/parameter hint), so
//! the register count stays near the maximal pressure. On a target with register banks
//! ([`TargetIsa::gpr_banks`]), a value read together with already colored values by one
//! machine instruction ([`TargetIsa::bank_reads`]: an FFMA's three sources) takes, among the
//! free runs below the registers already in use, the one whose bank conflicts with them
//! (weighted by loop depth) are fewest; to avoid a conflict inside a loop it may also take a
//! register above those, up to the function's peak pressure. A single register goes where
//! it keeps no aligned pair from being free longer than the other half's occupant does (next
//! to a value that outlives it). A register a load (or another variable-latency instruction)
//! read shortly before is avoided, on a target with register banks up to the function's peak
//! pressure, which the coloring reaches anyway: writing it would wait for the load to finish
//! reading. Past that, a run below the registers in use is preferred to a new one even when
//! softly reserved or recently read by a load. In the two-sided mode (a second
//! try of the driver when pairs raised the count above the peak pressure) short-lived values
//! and runs are placed from the peak pressure downward, long-lived single registers from the
//! bottom up, so the churn of short-lived pairs does not interleave with values that stay.
//! Soft wishes that save moves: a bundle's sources, and the operands that die computing
//! them, go where the bundle will sit (the group is assembled in place); the values an arm
//! passes to a merge want the register the merge's other edges use or, before any is
//! colored, the loop header parameter the merge passes them back to, which a merge
//! parameter also takes when one incoming edge brings it there (`carried_register`).
//! Fails with
//! [`Failure::Fragmented`] when no aligned run is free; the driver retries with a smaller
//! spill budget.

use cranelift_entity::SecondaryMap;
use smallvec::SmallVec;

use super::liveness::Liveness;
use super::prepare::Bundles;
use super::{Allocation, EditKind, Failure, RegAllocError};
use crate::ir::entities::sized_map;
use crate::ir::{
    Analyses, Block, ControlFlowGraph, Function, Inst, Opcode, PerRegFile, RegFile, Value, ValueDef,
};
use crate::target::{Footprint, LatencyKind, PReg, TargetIsa};

/// One step of an operand-group copy: member `j`'s move, or a copy of member `j`'s source
/// to a scratch register first (cycle breaking).
#[derive(Clone, Debug)]
enum BundleStep {
    Move(usize),
    Scratch(usize, PReg),
}

/// The values an instruction kills or leaves dead (usually none to three).
type ValueList = smallvec::SmallVec<[Value; 3]>;

/// Per-value entries valid for one block: emptied in constant time by advancing a
/// generation stamp (a hash map emptied and refilled per block cost more than coloring).
#[derive(Clone, Debug)]
struct BlockMap {
    /// (stamp of the block that set the entry, value).
    entries: SecondaryMap<Value, (u32, u32)>,
    /// The current block's stamp (never 0, the stamp of an entry never set).
    stamp: u32,
}

impl Default for BlockMap {
    fn default() -> Self {
        BlockMap {
            entries: SecondaryMap::new(),
            stamp: 1,
        }
    }
}

impl BlockMap {
    /// Removes every entry.
    fn clear(&mut self) {
        match self.stamp.checked_add(1) {
            Some(s) => self.stamp = s,
            None => *self = BlockMap::default(),
        }
    }

    fn get(&self, v: Value) -> Option<u32> {
        let (s, x) = self.entries[v];
        (s == self.stamp).then_some(x)
    }

    fn insert(&mut self, v: Value, x: u32) {
        self.entries[v] = (self.stamp, x);
    }

    /// Removes `v`; true if it was present.
    fn remove(&mut self, v: Value) -> bool {
        let present = self.get(v).is_some();
        if present {
            self.entries[v] = (0, 0);
        }
        present
    }
}

/// Move order (and scratch copies) chosen for one bundle, applied after coloring.
#[derive(Clone, Debug)]
struct BundleFix {
    moves: Vec<Inst>,
    steps: Vec<BundleStep>,
}

/// Register file occupancy.
struct Regs {
    occ: PerRegFile<Vec<Option<Value>>>,
    /// GPRs softly reserved for operand-group runs still being assembled (count of
    /// bundles wanting each register); other values avoid them when they can.
    reserved: Vec<u32>,
    /// Instructions colored so far (a clock for `hot_until`).
    now: u64,
    /// GPRs whose last reader was a variable-latency instruction (a load, a texture fetch):
    /// that instruction may still be reading them, so a write soon after waits for it. They
    /// stay "hot" until this clock value; `find` avoids them when it can.
    hot_until: Vec<u64>,
    /// One past the highest GPR assigned so far.
    high: u32,
    /// Whether `find` prefers cool registers (the first attempt; retries after
    /// fragmentation take the lowest run, which packs tightest).
    avoid_hot: bool,
    /// GPRs a choice may use to avoid a bank conflict inside a loop or a register an
    /// in-flight load reads: the function's peak GPR pressure, which the coloring reaches
    /// anyway (at least `high`), on a target with register banks; 0 elsewhere.
    scored_limit: u32,
    /// Position (instruction index in the block being colored) of the last use of each value
    /// that dies in that block; values missing live past it.
    ends: BlockMap,
    /// Index of the instruction being colored in its block.
    pos: u32,
    /// End (as in `ends`) of the value being placed.
    placing_end: u32,
    /// Short-lived values and register runs are placed from the function's peak pressure
    /// downward, long-lived single registers from the bottom up.
    two_sided: bool,
    /// The function's peak GPR pressure.
    peak: u32,
    /// When every register below the peak that no in-flight load reads is taken, `find`
    /// may take such a register below this count ([`cool_ceiling`]).
    cool_ceiling: u32,
}

/// GPRs the first coloring may fill beyond the peak pressure `peak` with registers that no
/// load in flight still reads (a write to one waits for the load's read barrier): two more
/// when both stay within the hardware's allocation `unit` (no occupancy lost), else none.
pub(crate) fn cool_ceiling(peak: u32, unit: u32) -> u32 {
    if peak + 2 <= peak.next_multiple_of(unit.max(1)) {
        peak + 2
    } else {
        peak
    }
}

/// A single register living longer than this many instructions (or past its block) is
/// long-lived for [`Regs::two_sided`] placement.
const LONG_LIVED: u32 = 24;

/// Instructions after its variable-latency reader during which a register stays hot (the
/// backend's renaming after emission, `ilc::spa5::rename`, takes the same window).
pub const HOT_INSTS: u64 = 16;

impl Regs {
    fn new(limits: PerRegFile<u32>) -> Self {
        Regs {
            occ: PerRegFile(RegFile::ALL.map(|f| vec![None; limits[f] as usize])),
            reserved: vec![0; limits[RegFile::Gpr] as usize],
            now: 0,
            hot_until: vec![0; limits[RegFile::Gpr] as usize],
            high: 0,
            avoid_hot: true,
            scored_limit: 0,
            ends: Default::default(),
            pos: 0,
            placing_end: u32::MAX,
            two_sided: false,
            peak: 0,
            cool_ceiling: 0,
        }
    }

    fn clear(&mut self) {
        for f in RegFile::ALL {
            self.occ[f].iter_mut().for_each(|x| *x = None);
        }
    }

    fn is_free(&self, file: RegFile, start: u32, width: u32) -> bool {
        let o = &self.occ[file];
        (start + width) as usize <= o.len()
            && o[start as usize..(start + width) as usize]
                .iter()
                .all(Option::is_none)
    }

    /// Lowest free run of `width` registers aligned to `align`, avoiding softly reserved
    /// registers when possible; with `score`, the lowest-scoring such run below the
    /// registers already in use (ties: the lowest). A single GPR goes where it splits no
    /// free aligned pair when it can (pairs and quads placed later then still fit below the
    /// count in use), and a run below the registers in use is taken even if reserved for an
    /// operand group or recently read by a load rather than raising the count.
    fn find(
        &self,
        file: RegFile,
        width: u32,
        align: u32,
        score: Option<&dyn Fn(u32) -> u32>,
    ) -> Option<u32> {
        let n = self.occ[file].len() as u32;
        let unreserved = |i: u32| {
            file != RegFile::Gpr
                || self.reserved[i as usize..(i + width) as usize]
                    .iter()
                    .all(|&r| r == 0)
        };
        // A single register that splits a free aligned pair.
        let splits = |i: u32| file == RegFile::Gpr && width == 1 && self.is_free(file, i & !1, 2);
        // How long a single register at `i` keeps its aligned pair from being free beyond
        // what the other half's occupant does: nothing next to a value that outlives the
        // one placed, its whole life next to a free register.
        let pair_cost = |i: u32| -> u32 {
            if file != RegFile::Gpr || width != 1 {
                return 0;
            }
            let end = self.placing_end;
            match self.occ[file].get((i ^ 1) as usize) {
                None => 0,
                Some(None) => end.saturating_sub(self.pos).max(1),
                Some(Some(u)) => end.saturating_sub(self.ends.get(*u).unwrap_or(u32::MAX)),
            }
        };
        // One that no in-flight load may still read: below the registers in use, else up to
        // `scored_limit` (the peak pressure: the function needs that many registers anyway).
        if file == RegFile::Gpr && self.avoid_hot {
            let cool = |i: u32| {
                self.hot_until[i as usize..(i + width) as usize]
                    .iter()
                    .all(|&h| h <= self.now)
            };
            let mut best: Option<(u32, u32)> = None;
            let mut first_splits: Option<bool> = None;
            let mut splitting: Option<(u32, u32)> = None;
            let limit = self.high.max(self.scored_limit);
            let cool_limit = self.high.max(self.cool_ceiling).min(n);
            let long = width == 1 && self.placing_end.saturating_sub(self.pos) > LONG_LIVED;
            if score.is_none() && self.two_sided && !long {
                let ceiling = self.high.max(self.peak).min(n);
                let mut best: Option<((u32, u32), u32)> = None;
                let mut i = 0;
                while i + width <= ceiling {
                    if self.is_free(file, i, width) && unreserved(i) && cool(i) {
                        let key = (pair_cost(i), u32::MAX - i);
                        if best.is_none_or(|(k, _)| key < k) {
                            best = Some((key, i));
                        }
                    }
                    i += align.max(1);
                }
                if let Some((_, i)) = best {
                    return Some(i);
                }
            }
            let mut i = 0;
            while i + width <= limit.min(n) {
                // Above the registers in use only to avoid a conflict inside a loop.
                if i >= self.high && best.is_some_and(|(b, _)| b < depth_weight(1)) {
                    break;
                }
                if self.is_free(file, i, width) && unreserved(i) && cool(i) {
                    let Some(score) = score else {
                        let c = pair_cost(i);
                        if c == 0 {
                            return Some(i);
                        }
                        if splitting.is_none_or(|(b, _)| c < b) {
                            splitting = Some((c, i));
                        }
                        i += align.max(1);
                        continue;
                    };
                    // A single register that splits a free aligned pair where the lowest
                    // choice would not costs as much as a conflict inside a loop: pairs and
                    // quads placed later must still fit below the count in use.
                    let first_splits = *first_splits.get_or_insert_with(|| splits(i));
                    let penalty = if splits(i) && !first_splits {
                        depth_weight(1)
                    } else {
                        0
                    };
                    let s = score(i) + penalty;
                    if best.is_none_or(|(b, _)| s < b) {
                        best = Some((s, i));
                    }
                    if s == 0 {
                        break;
                    }
                }
                i += align.max(1);
            }
            if let Some(i) = best.map(|(_, i)| i).or(splitting.map(|(_, i)| i)) {
                return Some(i);
            }
            let mut i = limit.next_multiple_of(align.max(1));
            while i + width <= cool_limit {
                if self.is_free(file, i, width) && unreserved(i) && cool(i) {
                    return Some(i);
                }
                i += align.max(1);
            }
        }
        // Any free run: below the registers in use first, then unreserved, then keeping
        // pairs free longest, then the lowest.
        let mut best: Option<((bool, bool, u32), u32)> = None;
        let mut i = 0;
        while i + width <= n {
            if self.is_free(file, i, width) {
                let raises = file == RegFile::Gpr && i + width > self.high;
                // Among runs raising the count, the lowest; below it, the one keeping pairs
                // free longest.
                let key = (
                    raises,
                    !unreserved(i),
                    if raises { i } else { pair_cost(i) },
                );
                if best.is_none_or(|(k, _)| key < k) {
                    best = Some((key, i));
                }
                if raises && unreserved(i) {
                    // Every later run raises the count further.
                    break;
                }
            }
            i += align.max(1);
        }
        best.map(|(_, i)| i)
    }

    fn reserve(&mut self, start: u32, width: u32, delta: i32) {
        for r in start..start + width {
            if let Some(x) = self.reserved.get_mut(r as usize) {
                *x = x.saturating_add_signed(delta);
            }
        }
    }

    fn set(&mut self, file: RegFile, start: u32, width: u32, v: Option<Value>) {
        if v.is_some() && file == RegFile::Gpr {
            self.high = self.high.max(start + width);
        }
        for r in start..start + width {
            if let Some(x) = self.occ[file].get_mut(r as usize) {
                *x = v;
            }
        }
    }

    /// Frees `v`'s registers if it still holds them.
    fn free(&mut self, reg: PReg, width: u32, v: Value) {
        for r in u32::from(reg.index)..u32::from(reg.index) + width {
            if let Some(x) = self.occ[reg.file].get_mut(r as usize) {
                if *x == Some(v) {
                    *x = None;
                }
            }
        }
    }
}

struct Colorer<'a> {
    target: &'a dyn TargetIsa,
    bundles: &'a Bundles,
    regs: Regs,
    /// Preferred register of a value (the parameter register it is passed to).
    want: SecondaryMap<Value, Option<PReg>>,
    /// For a value whose last use is the move into member `k` of bundle `b`: `(b, k's
    /// register offset)`.
    src_of_bundle: SecondaryMap<Value, Option<(u32, u32)>>,
    /// Run chosen for each bundle by its first placed source.
    bundle_base: Vec<Option<u32>>,
    /// Last use of each value in layout order (computed with the bundle hints).
    last_use: SecondaryMap<Value, Option<Inst>>,
    /// Move orders of the bundles, applied after coloring.
    fixups: Vec<BundleFix>,
    /// One past the highest GPR assigned so far.
    high: u32,
    /// [`Mode::abandon_at`].
    abandon_at: Option<u32>,
    /// How many times each value is read (operands and branch arguments).
    uses: &'a SecondaryMap<Value, u32>,
    /// Banks of the GPR file (1: no bank conflicts to avoid).
    banks: u32,
    /// Instructions reading each value through the register banks with other values, and
    /// the weight of a conflict there (by loop depth).
    bank_uses: &'a SecondaryMap<Value, SmallVec<[(Inst, u32); 2]>>,
}

/// A bank constraint on a value's register ([`Colorer::bank_pairs`]): (register of the
/// value relative to its first, the bank of a register read with it, that register if
/// known, weight).
type BankPair = (u32, u32, Option<u32>, u32);

/// Weight of a bank conflict at loop depth `d` (inner loops run more often).
fn depth_weight(d: u32) -> u32 {
    1 << (2 * d.min(5))
}

/// Per-block lists of [`Colorer::block`], kept from block to block (allocated once).
#[derive(Default)]
struct BlockScratch {
    /// The block's instructions.
    insts: Vec<Inst>,
    /// Values whose last use is each instruction.
    kills: Vec<ValueList>,
    /// Results of each instruction that are never used.
    dead: Vec<ValueList>,
    /// Values live below the scan point (present, with no payload).
    live: BlockMap,
}

/// The register of the already colored block parameter that parameter `i` of merge `j` is
/// passed on to, directly or through an edge block `j` branches to (a loop's latch passing
/// the values an `if` merged to the header): the arm feeding the merge first, before any
/// other edge is colored, then computes the value where the loop keeps it, and neither the
/// merge nor the back edge needs moves.
fn carried_register(func: &Function, j: Block, i: usize, alloc: &Allocation) -> Option<PReg> {
    let p = *func.dfg.block_params(j).get(i)?;
    let passed = |d: &crate::ir::BlockCall| {
        let k = d.args.iter().position(|&x| x == p)?;
        alloc.regs[*func.dfg.block_params(d.block).get(k)?]
    };
    let t = func.terminator(j)?;
    func.dfg.insts[t]
        .branch_destinations()
        .iter()
        .find_map(|d| {
            passed(d).or_else(|| {
                // An edge block of a conditional branch: only a jump, passing the values on.
                let et = func.terminator(d.block)?;
                if !d.args.is_empty() || func.layout.first_inst(d.block) != Some(et) {
                    return None;
                }
                func.dfg.insts[et]
                    .branch_destinations()
                    .iter()
                    .find_map(passed)
            })
        })
}

/// How far a loop-carried value's register preference reaches back through the values it is
/// computed from.
const WANT_DEPTH: u32 = 3;

/// Soft placement choices of one coloring attempt.
#[derive(Clone, Copy, Debug)]
pub struct Mode {
    /// Operand-group hints and cool registers after loads (the first attempts; a retry after
    /// fragmentation drops both, see [`Regs::avoid_hot`]).
    pub group_hints: bool,
    /// Short-lived values and runs from the peak pressure down ([`Regs::two_sided`]).
    pub two_sided: bool,
    /// Give up ([`Failure::NoBetter`]) once this many GPRs are in use: every value colored
    /// stays in the function with its register (resolution only adds moves and deletes
    /// those whose source shares their register), so the allocation would use at least as
    /// many.
    pub abandon_at: Option<u32>,
}

/// What coloring reads of the spilled function besides the function itself: computed once
/// for every coloring mode [`run`] tries on copies of the same function.
pub struct Setup {
    /// Banks of the GPR file (1: no bank conflicts to avoid).
    banks: u32,
    /// Instructions reading each value through the register banks with other values, and
    /// the weight of a conflict there (by loop depth).
    bank_uses: SecondaryMap<Value, SmallVec<[(Inst, u32); 2]>>,
    lv: Liveness,
    /// The most GPRs live at once ([`peak_gpr_pressure`]).
    peak: u32,
    /// How many times each value is read (operands and branch arguments).
    uses: SecondaryMap<Value, u32>,
}

impl Setup {
    /// The setup of the spilled function `func`; `lv` is its liveness if the caller has it.
    pub fn new(
        func: &Function,
        target: &dyn TargetIsa,
        analyses: &mut Analyses,
        lv: Option<Liveness>,
    ) -> Setup {
        let banks = target.gpr_banks();
        let mut bank_uses: SecondaryMap<Value, SmallVec<[(Inst, u32); 2]>> =
            sized_map(func.dfg.num_values());
        if banks > 1 {
            let (_, _, loops) = analyses.loops(func);
            for b in func.layout.blocks() {
                let w = depth_weight(loops.loop_depth(b));
                for i in func.layout.block_insts(b) {
                    let args = func.dfg.inst_args(i);
                    for reads in target.bank_reads(func, i) {
                        for &(k, _) in &reads {
                            if let Some(&v) = args.get(usize::from(k)) {
                                if !bank_uses[v].iter().any(|&(x, _)| x == i) {
                                    bank_uses[v].push((i, w));
                                }
                            }
                        }
                    }
                }
            }
        }
        let lv = lv.unwrap_or_else(|| Liveness::compute(func, analyses.cfg(func)));
        let peak = peak_gpr_pressure(func, target, &lv);
        let mut uses: SecondaryMap<Value, u32> = sized_map(func.dfg.num_values());
        for b in func.layout.blocks() {
            for i in func.layout.block_insts(b) {
                for v in func.dfg.insts[i].all_values() {
                    uses[v] += 1;
                }
            }
        }
        Setup {
            banks,
            bank_uses,
            lv,
            peak,
            uses,
        }
    }
}

/// Assigns registers; fills `alloc.regs`. `setup` is [`Setup::new`] of `func` as it is.
#[allow(clippy::too_many_arguments)]
pub fn run(
    func: &mut Function,
    target: &dyn TargetIsa,
    bundles: &Bundles,
    limits: PerRegFile<u32>,
    mode: Mode,
    setup: &Setup,
    alloc: &mut Allocation,
    analyses: &mut Analyses,
) -> Result<(), Failure> {
    let Setup {
        banks,
        ref bank_uses,
        ref lv,
        peak,
        ref uses,
    } = *setup;
    let (cfg, dt) = analyses.domtree(func);
    let scored_limit = if banks > 1 { peak } else { 0 };
    let mut c = Colorer {
        target,
        bundles,
        regs: Regs::new(limits),
        want: sized_map(func.dfg.num_values()),
        src_of_bundle: sized_map(func.dfg.num_values()),
        bundle_base: vec![None; bundles.list.len()],
        last_use: sized_map(func.dfg.num_values()),
        fixups: Vec::new(),
        high: 0,
        abandon_at: mode.abandon_at,
        uses,
        banks,
        bank_uses,
    };
    // Both soft preferences belong to the first attempt (see `Regs::avoid_hot`).
    let Mode {
        group_hints,
        two_sided,
        ..
    } = mode;
    c.regs.avoid_hot = group_hints;
    c.regs.scored_limit = scored_limit;
    c.regs.two_sided = two_sided;
    c.regs.peak = peak;
    c.regs.cool_ceiling = cool_ceiling(peak, target.gpr_allocation_unit());
    alloc.peak_gpr_pressure = peak;
    if group_hints {
        c.find_bundle_sources(func);
    }
    // Dominator-tree pre-order, children in reverse post-order.
    let entry = func.entry_block().ok_or(RegAllocError::NoEntry)?;
    let mut stack = vec![entry];
    let mut scratch = BlockScratch::default();
    while let Some(b) = stack.pop() {
        c.block(func, cfg, lv, b, alloc, &mut scratch)?;
        let mut kids: SmallVec<[Block; 4]> = dt.children(b).into();
        kids.sort_by_key(|&k| std::cmp::Reverse(dt.rpo_number(k)));
        stack.extend(kids);
    }
    let fixups = std::mem::take(&mut c.fixups);
    for fix in fixups {
        apply_fix(func, target, &fix, alloc)?;
    }
    Ok(())
}

/// The most GPRs live at once anywhere in `func` (results counted with the values live
/// across their instruction).
fn peak_gpr_pressure(func: &Function, target: &dyn TargetIsa, lv: &Liveness) -> u32 {
    func.layout
        .blocks()
        .map(|b| block_gpr_peak(func, target, lv, b))
        .max()
        .unwrap_or(0)
}

/// The most GPRs live at once in block `b`, its instructions in their current order (results
/// counted with the values live across their instruction).
pub(crate) fn block_gpr_peak(
    func: &Function,
    target: &dyn TargetIsa,
    lv: &Liveness,
    b: Block,
) -> u32 {
    let width = |v: Value| {
        let fp = target.footprint(func.dfg.value_type(v));
        if fp.file == RegFile::Gpr {
            u32::from(fp.width)
        } else {
            0
        }
    };
    super::liveness::block_pressure(func, &lv.live_out[b], b, width, |_, _| {})
}

/// Reorders a bundle's moves as chosen, inserting the scratch copies.
fn apply_fix(
    func: &mut Function,
    target: &dyn TargetIsa,
    fix: &BundleFix,
    alloc: &mut Allocation,
) -> Result<(), Failure> {
    // The moves are consecutive; the consuming instruction follows the last one.
    let last = *fix
        .moves
        .iter()
        .max_by(|&&a, &&b| func.layout.cmp_in_block(a, b))
        .expect("bundles are non-empty");
    let anchor = func
        .layout
        .next_inst(last)
        .expect("operand-group moves precede their instruction");
    for &m in &fix.moves {
        func.layout.remove_inst(m);
    }
    for step in &fix.steps {
        match *step {
            BundleStep::Move(j) => func.layout.insert_inst(fix.moves[j], anchor),
            BundleStep::Scratch(j, reg) => {
                let mi = fix.moves[j];
                let src = func.dfg.inst_args(mi)[0];
                let ty = func.dfg.value_type(src);
                let data = target.make_move(ty, src);
                let t = super::insert_inst(
                    func,
                    data,
                    super::InsertAt::Before(anchor),
                    EditKind::Move,
                    alloc,
                );
                super::check_made(func, t, &[src], Some(ty), "move")?;
                let tv = func.dfg.inst_results(t)[0];
                alloc.regs[tv] = Some(reg);
                func.dfg.insts[mi].args_mut()[0] = tv;
            }
        }
    }
    Ok(())
}

impl Colorer<'_> {
    fn fp(&self, func: &Function, v: Value) -> Footprint {
        self.target.footprint(func.dfg.value_type(v))
    }

    /// True if `v` could be placed at `h` now.
    fn fits(&self, func: &Function, v: Value, h: PReg) -> bool {
        let fp = self.fp(func, v);
        h.file == fp.file
            && u32::from(h.index) % u32::from(fp.align).max(1) == 0
            && self
                .regs
                .is_free(fp.file, u32::from(h.index), u32::from(fp.width))
    }

    /// Values last used by a move of a bundle, so the bundle can be assembled in place.
    fn find_bundle_sources(&mut self, func: &Function) {
        // Last use in layout order (a soft criterion: only hint quality depends on it).
        let mut last_use: SecondaryMap<Value, Option<Inst>> = sized_map(func.dfg.num_values());
        for inst in func.insts_in_layout() {
            for v in func.dfg.insts[inst].all_values() {
                last_use[v] = Some(inst);
            }
        }
        let mut sources: Vec<(Value, u32, u32)> = Vec::new();
        for (bi, bd) in self.bundles.list.iter().enumerate() {
            let mut off = 0;
            for &m in &bd.members {
                let w = u32::from(self.target.footprint(func.dfg.value_type(m)).width);
                if let Some(mi) = func.dfg.value_inst(m) {
                    let src = func.dfg.inst_args(mi)[0];
                    if last_use[src] == Some(mi) && self.src_of_bundle[src].is_none() {
                        self.src_of_bundle[src] = Some((bi as u32, off));
                        sources.push((src, bi as u32, off));
                    }
                }
                off += w;
            }
        }
        // Feeders: an operand whose last use computes a source (`x_j = op(u, ..)` with `u`
        // dead after it) goes where that source will, so the source can take its register
        // and a run chosen this early still holds the whole group in place.
        for (src, bi, off) in sources {
            let Some(def) = func.dfg.value_inst(src) else {
                continue;
            };
            if func.dfg.inst_results(def).len() != 1 {
                continue;
            }
            let fp = self.target.footprint(func.dfg.value_type(src));
            let feeder = func.dfg.inst_args(def).iter().copied().find(|&u| {
                last_use[u] == Some(def)
                    && self.src_of_bundle[u].is_none()
                    && self.target.footprint(func.dfg.value_type(u)) == fp
            });
            if let Some(u) = feeder {
                self.src_of_bundle[u] = Some((bi, off));
            }
        }
        self.last_use = last_use;
    }

    /// For an element-wise operation on a register group (`d_j = op(x_j, ..)` feeding member
    /// `j` of a bundle, with `x_j` last used there): the run where the `x_j` sit, so each
    /// result can take its operand's register and the bundle is assembled in place. Every
    /// register of the run must be free or held by a value whose last use is the definition
    /// of the member that goes there. Only a hint: placement still checks it is free.
    fn in_place_base(
        &self,
        func: &Function,
        bi: usize,
        total: u32,
        alloc: &Allocation,
    ) -> Option<u32> {
        let bd = &self.bundles.list[bi];
        let align = u32::from(bd.align).max(1);
        let mut defs: Vec<(Inst, u32, u32)> = Vec::with_capacity(bd.members.len());
        let mut off = 0;
        for &m in &bd.members {
            let src = func.dfg.inst_args(func.dfg.value_inst(m)?)[0];
            let w = u32::from(self.fp(func, src).width);
            defs.push((func.dfg.value_inst(src)?, off, w));
            off += w;
        }
        let (d0, off0, _) = defs[0];
        let occ = &self.regs.occ[RegFile::Gpr];
        for &u in func.dfg.insts[d0].args() {
            let Some(r) = alloc.regs[u]
                .filter(|r| r.file == RegFile::Gpr)
                .map(|r| u32::from(r.index))
            else {
                continue;
            };
            let Some(base) = r.checked_sub(off0) else {
                continue;
            };
            if base % align != 0 || (base + total) as usize > occ.len() {
                continue;
            }
            let ok = defs.iter().all(|&(d, o, w)| {
                (base + o..base + o + w).all(|reg| match occ[reg as usize] {
                    None => true,
                    Some(x) => self.last_use[x] == Some(d),
                })
            });
            if ok {
                return Some(base);
            }
        }
        None
    }

    /// A hint placing `v` inside its bundle's run (choosing the run on first use).
    fn bundle_hint(&mut self, func: &Function, v: Value, alloc: &Allocation) -> Option<PReg> {
        let (bi, off) = self.src_of_bundle[v]?;
        let bd = &self.bundles.list[bi as usize];
        let base = match self.bundle_base[bi as usize] {
            Some(b) => b,
            None => {
                let total: u32 = bd
                    .members
                    .iter()
                    .map(|&m| u32::from(self.fp(func, m).width))
                    .sum();
                let b = match self.in_place_base(func, bi as usize, total, alloc) {
                    Some(b) => b,
                    None => self
                        .regs
                        .find(RegFile::Gpr, total, u32::from(bd.align), None)?,
                };
                self.bundle_base[bi as usize] = Some(b);
                self.regs.reserve(b, total, 1);
                b
            }
        };
        Some(PReg::gpr((base + off) as u16))
    }

    fn place(
        &mut self,
        func: &Function,
        v: Value,
        hint: Option<PReg>,
        alloc: &mut Allocation,
    ) -> Result<(), Failure> {
        let hint = match self.bundle_hint(func, v, alloc) {
            Some(h) if self.fits(func, v, h) => Some(h),
            _ => hint,
        };
        let fp = self.fp(func, v);
        let (w, a) = (u32::from(fp.width), u32::from(fp.align));
        self.regs.placing_end = self.regs.ends.get(v).unwrap_or(u32::MAX);
        let start = match hint {
            Some(h)
                if h.file == fp.file
                    && u32::from(h.index) % a == 0
                    && self.regs.is_free(fp.file, u32::from(h.index), w) =>
            {
                u32::from(h.index)
            }
            _ => {
                let pairs = self.bank_pairs(func, v, alloc);
                let cost = |start: u32| {
                    pairs
                        .iter()
                        .filter(|&&(p, bank, o, _)| {
                            let r = start + p;
                            o != Some(r) && r % self.banks == bank
                        })
                        .map(|&(_, _, _, w)| w)
                        .sum::<u32>()
                };
                let scored: Option<&dyn Fn(u32) -> u32> =
                    (fp.file == RegFile::Gpr && !pairs.is_empty()).then_some(&cost);
                self.regs
                    .find(fp.file, w, a, scored)
                    .ok_or(Failure::Fragmented(v, fp.file))?
            }
        };
        if fp.file == RegFile::Gpr {
            self.raise_high(start + w)?;
        }
        self.regs.set(fp.file, start, w, Some(v));
        alloc.regs[v] = Some(PReg {
            file: fp.file,
            index: start as u16,
        });
        Ok(())
    }

    /// Records GPRs up to `end` (exclusive) in use; [`Failure::NoBetter`] once that reaches
    /// [`Mode::abandon_at`].
    fn raise_high(&mut self, end: u32) -> Result<(), Failure> {
        self.high = self.high.max(end);
        match self.abandon_at {
            Some(n) if self.high >= n => Err(Failure::NoBetter),
            _ => Ok(()),
        }
    }

    /// The bank constraints on `v`'s register: (register of `v` relative to its first, the
    /// bank of a register read with it by one machine instruction, that register if known,
    /// weight). The other register is known once colored; a value not colored yet whose
    /// result group is aligned to the bank count will have a known bank (member offset).
    fn bank_pairs(&self, func: &Function, v: Value, alloc: &Allocation) -> SmallVec<[BankPair; 8]> {
        let banks = self.banks;
        let mut out = SmallVec::new();
        for &(u, w) in &self.bank_uses[v] {
            let args = func.dfg.inst_args(u);
            for reads in self.target.bank_reads(func, u) {
                let other = |k: u8, p: u8| -> Option<(u32, Option<u32>)> {
                    let a = *args.get(usize::from(k))?;
                    if a == v {
                        return None;
                    }
                    if let Some(r) = alloc.regs[a] {
                        let gpr = r.file == RegFile::Gpr;
                        let r = u32::from(r.index) + u32::from(p);
                        return gpr.then_some((r % banks, Some(r)));
                    }
                    let off = self.group_offset(func, a, banks)?;
                    Some(((off + u32::from(p)) % banks, None))
                };
                for &(k, p) in &reads {
                    if args.get(usize::from(k)) != Some(&v) {
                        continue;
                    }
                    for &(k2, p2) in &reads {
                        if let Some((bank, reg)) = other(k2, p2) {
                            out.push((u32::from(p), bank, reg, w));
                        }
                    }
                }
            }
        }
        out
    }

    /// The register offset of `a` in a result group aligned to a multiple of `banks`, if its
    /// definition places it in one (its bank is then that offset's).
    fn group_offset(&self, func: &Function, a: Value, banks: u32) -> Option<u32> {
        let ValueDef::Result(d, n) = func.dfg.value_def(a) else {
            return None;
        };
        let results = func.dfg.inst_results(d);
        self.target
            .constraints(func, d)
            .result_groups
            .iter()
            .find(|g| {
                usize::from(g.start) <= n
                    && n < usize::from(g.start) + usize::from(g.len)
                    && u32::from(g.align) % banks == 0
            })
            .map(|g| {
                results[usize::from(g.start)..n]
                    .iter()
                    .map(|&x| u32::from(self.fp(func, x).width))
                    .sum()
            })
    }

    /// Places `members` consecutively from an aligned run; `prefer` is tried first.
    fn place_group(
        &mut self,
        func: &Function,
        members: &[Value],
        align: u32,
        prefer: Option<u32>,
        alloc: &mut Allocation,
    ) -> Result<(), Failure> {
        let total: u32 = members
            .iter()
            .map(|&m| u32::from(self.fp(func, m).width))
            .sum();
        let file = RegFile::Gpr;
        let start = match prefer {
            Some(p) if p % align.max(1) == 0 && self.regs.is_free(file, p, total) => p,
            _ => self
                .regs
                .find(file, total, align, None)
                .ok_or(Failure::Fragmented(members[0], file))?,
        };
        self.raise_high(start + total)?;
        let mut r = start;
        for &m in members {
            let w = u32::from(self.fp(func, m).width);
            self.regs.set(file, r, w, Some(m));
            alloc.regs[m] = Some(PReg::gpr(r as u16));
            r += w;
        }
        Ok(())
    }

    /// `v` wants register `r`, and so do the operands only it reads that it is computed from (in
    /// the same block, up to `depth` levels): `x' = t + c` with `t = x * x - y * y` then
    /// computes `t` where `x'` goes, so two loop-carried values whose updates cross (a
    /// rotation) do not take each other's registers and need no moves on the back edge.
    fn want_back(&mut self, func: &Function, v: Value, r: PReg, depth: u32) {
        if self.want[v].is_some() {
            return;
        }
        self.want[v] = Some(r);
        let Some(inst) = func.dfg.value_inst(v) else {
            return;
        };
        if depth == 0 || func.dfg.inst_results(inst).len() != 1 {
            return;
        }
        let block = func.layout.inst_block(inst);
        let args = func.dfg.inst_args(inst);
        for &o in args {
            let same_block = func
                .dfg
                .value_inst(o)
                .is_some_and(|d| func.layout.inst_block(d) == block);
            // Read only here (`t + t` counts).
            let only_here = self.uses[o] as usize == args.iter().filter(|&&x| x == o).count();
            if only_here
                && same_block
                && self.fp(func, o).file == r.file
                && self.fp(func, o).width == self.fp(func, v).width
            {
                self.want_back(func, o, r, depth - 1);
            }
        }
    }

    fn free_value(&mut self, func: &Function, v: Value, alloc: &Allocation) {
        if let Some(r) = alloc.regs[v] {
            let w = u32::from(self.fp(func, v).width);
            self.regs.free(r, w, v);
        }
    }

    fn block(
        &mut self,
        func: &Function,
        cfg: &ControlFlowGraph,
        lv: &Liveness,
        b: Block,
        alloc: &mut Allocation,
        scratch: &mut BlockScratch,
    ) -> Result<(), Failure> {
        self.regs.clear();
        for &v in &lv.live_in[b] {
            if let Some(r) = alloc.regs[v] {
                let w = u32::from(self.fp(func, v).width);
                self.regs.set(r.file, u32::from(r.index), w, Some(v));
            }
        }
        self.last_uses(func, lv, b, scratch);
        let BlockScratch {
            insts, kills, dead, ..
        } = scratch;
        let (insts, kills, dead): (&[Inst], &[ValueList], &[ValueList]) = (insts, kills, dead);
        self.block_params(func, cfg, lv, b, insts, alloc)?;
        self.want_join_registers(func, cfg, b, alloc);
        for k in 0..insts.len() {
            self.inst(func, insts, kills, dead, k, alloc)?;
        }
        Ok(())
    }

    /// For `b`'s jump to a merge whose other incoming edges pass values already colored
    /// (the values flowing around an `if` arm, colored where the branch is): each argument
    /// `b` passes wants the register of the other edges' argument for the same parameter, so
    /// an arm updating an accumulator computes the new value where the old one sits (it dies
    /// there) and the merge needs no moves. Only a wish: placement still checks it is free.
    fn want_join_registers(
        &mut self,
        func: &Function,
        cfg: &ControlFlowGraph,
        b: Block,
        alloc: &Allocation,
    ) {
        let Some(t) = func.terminator(b) else {
            return;
        };
        let crate::ir::InstructionData::Jump { dests, .. } = &func.dfg.insts[t] else {
            return;
        };
        let j = dests[0].block;
        for (i, &a) in dests[0].args.iter().enumerate() {
            if self.want[a].is_some() || alloc.regs[a].is_some() {
                continue;
            }
            let other = cfg.preds(j).iter().filter(|&&p| p != b).find_map(|&p| {
                let pt = func.terminator(p)?;
                func.dfg.insts[pt]
                    .branch_destinations()
                    .iter()
                    .filter(|d| d.block == j)
                    .find_map(|d| alloc.regs[*d.args.get(i)?])
            });
            if let Some(r) = other.or_else(|| carried_register(func, j, i, alloc)) {
                self.want_back(func, a, r, WANT_DEPTH);
            }
        }
    }

    /// Fills `scratch` with `b`'s instructions, each one's last uses (`kills`) and unused
    /// results (`dead`), and records where each of those values' live ranges end.
    fn last_uses(&mut self, func: &Function, lv: &Liveness, b: Block, scratch: &mut BlockScratch) {
        let BlockScratch {
            insts,
            kills,
            dead,
            live,
        } = scratch;
        insts.clear();
        insts.extend(func.layout.block_insts(b));
        let insts: &[Inst] = insts;
        // Last uses and dead results, by a backward scan.
        // Inline lists: two heap Vecs per instruction were the allocator's largest count.
        kills.clear();
        kills.resize_with(insts.len(), ValueList::new);
        dead.clear();
        dead.resize_with(insts.len(), ValueList::new);
        {
            live.clear();
            for &v in &lv.live_out[b] {
                live.insert(v, 0);
            }
            for (k, &inst) in insts.iter().enumerate().rev() {
                for &r in func.dfg.inst_results(inst) {
                    if !live.remove(r) {
                        dead[k].push(r);
                    }
                }
                for v in func.dfg.insts[inst].all_values() {
                    if live.get(v).is_none() {
                        live.insert(v, 0);
                        kills[k].push(v);
                    }
                }
            }
        }
        self.regs.ends.clear();
        self.regs.pos = 0;
        for (k, list) in kills.iter().chain(dead.iter()).enumerate() {
            for &v in list {
                self.regs.ends.insert(v, (k % insts.len().max(1)) as u32);
            }
        }
    }

    /// Colors `b`'s parameters, preferring the registers of the arguments already colored in
    /// its predecessors, and frees those no instruction reads.
    fn block_params(
        &mut self,
        func: &Function,
        cfg: &ControlFlowGraph,
        lv: &Liveness,
        b: Block,
        insts: &[Inst],
        alloc: &mut Allocation,
    ) -> Result<(), Failure> {
        // Parameters, with hints from the arguments of already colored predecessors. Those
        // whose hinted register is free go first: a parameter without one (a loop counter
        // starting from a constant held elsewhere) must not take the register the next
        // parameter's argument sits in, which would shift every later parameter by one and
        // cost a move per parameter on the edge.
        let params: SmallVec<[Value; 4]> = func.dfg.block_params(b).into();
        let mut incoming: Vec<(Vec<PReg>, Vec<Value>)> = Vec::with_capacity(params.len());
        for i in 0..params.len() {
            let mut hints: Vec<PReg> = Vec::new();
            let mut uncolored: Vec<Value> = Vec::new();
            for &pred in cfg.preds(b) {
                let Some(t) = func.terminator(pred) else {
                    continue;
                };
                for call in func.dfg.insts[t].branch_destinations() {
                    if call.block == b {
                        if let Some(&a) = call.args.get(i) {
                            match alloc.regs[a] {
                                Some(r) => hints.push(r),
                                None => uncolored.push(a),
                            }
                        }
                    }
                }
            }
            incoming.push((hints, uncolored));
        }
        // A parameter passed on to an already colored loop header, when that register is one
        // of the incoming ones, takes it: the back edge, run on every iteration, then needs
        // no move, and only the edges bringing the value elsewhere (a subset) copy it.
        let carried: SmallVec<[Option<PReg>; 4]> = (0..params.len())
            .map(|i| carried_register(func, b, i, alloc).filter(|c| incoming[i].0.contains(c)))
            .collect();
        let hinted: Vec<bool> = params
            .iter()
            .zip(&incoming)
            .map(|(&p, (hints, _))| hints.iter().any(|h| self.fits(func, p, *h)))
            .collect();
        for first in [true, false] {
            for (i, &p) in params.iter().enumerate() {
                if hinted[i] != first {
                    continue;
                }
                let (hints, uncolored) = &incoming[i];
                let hint = carried[i]
                    .filter(|c| self.fits(func, p, *c))
                    .or_else(|| hints.iter().copied().find(|h| self.fits(func, p, *h)))
                    .or(self.want[p]);
                self.place(func, p, hint, alloc)?;
                // Arguments colored later (loop back edges) try to land in the parameter's
                // register, which makes their edge move disappear.
                for &a in uncolored {
                    if self.want[a].is_none() {
                        if let Some(r) = alloc.regs[p] {
                            self.want_back(func, a, r, WANT_DEPTH);
                        }
                    }
                }
            }
        }
        for &p in &params {
            let used = insts
                .iter()
                .any(|&i| func.dfg.insts[i].all_values().any(|x| x == p));
            if !used && !lv.is_live_out(b, p) {
                self.free_value(func, p, alloc);
            }
        }
        Ok(())
    }

    /// Colors the results of instruction `k` of the block (`insts`), freeing the registers of
    /// the values that die there.
    fn inst(
        &mut self,
        func: &Function,
        insts: &[Inst],
        kills: &[ValueList],
        dead: &[ValueList],
        k: usize,
        alloc: &mut Allocation,
    ) -> Result<(), Failure> {
        let inst = insts[k];
        self.regs.now += 1;
        self.regs.pos = k as u32;
        if self.target.sched_info(func, inst).kind == LatencyKind::Variable {
            for &v in &kills[k] {
                if let (Some(r), RegFile::Gpr) = (alloc.regs[v], self.fp(func, v).file) {
                    let w = u64::from(self.fp(func, v).width);
                    let until = self.regs.now + HOT_INSTS;
                    for x in u64::from(r.index)..u64::from(r.index) + w {
                        if let Some(h) = self.regs.hot_until.get_mut(x as usize) {
                            *h = until;
                        }
                    }
                }
            }
        }
        if let Some(bi) = self.bundles.of_move[inst] {
            let bd = &self.bundles.list[bi as usize];
            if bd.head == inst {
                self.bundle_head(func, insts, kills, k, bi as usize, alloc)?;
            } else {
                for &v in &kills[k] {
                    self.free_value(func, v, alloc);
                }
            }
            return Ok(());
        }
        let c = self.target.constraints(func, inst);
        if !c.results_early {
            for &v in &kills[k] {
                self.free_value(func, v, alloc);
            }
        }
        let results: SmallVec<[Value; 4]> = func.dfg.inst_results(inst).into();
        let mut grouped: SmallVec<[bool; 4]> = smallvec::smallvec![false; results.len()];
        for g in &c.result_groups {
            let (s, n) = (usize::from(g.start), usize::from(g.len));
            if n == 0 || s + n > results.len() || !g.align.is_power_of_two() {
                return Err(RegAllocError::BadConstraint {
                    inst,
                    reason: format!("result group {s}..{} of {}", s + n, results.len()),
                }
                .into());
            }
            if results[s..s + n]
                .iter()
                .any(|&r| self.fp(func, r).file != RegFile::Gpr)
            {
                return Err(RegAllocError::BadConstraint {
                    inst,
                    reason: "result group member outside the GPR file".into(),
                }
                .into());
            }
            self.place_group(func, &results[s..s + n], u32::from(g.align), None, alloc)?;
            grouped[s..s + n].iter_mut().for_each(|x| *x = true);
        }
        // Copies prefer the source's register (free if the source died here).
        let is_copy =
            matches!(alloc.edits[inst], EditKind::Move) || func.dfg.opcode(inst) == Opcode::Copy;
        let hint = if is_copy {
            func.dfg
                .inst_args(inst)
                .first()
                .and_then(|&a| alloc.regs[a])
        } else {
            None
        };
        for (r, &v) in results.iter().enumerate() {
            if !grouped[r] {
                let h = hint.filter(|&h| self.fits(func, v, h)).or(self.want[v]);
                self.place(func, v, h, alloc)?;
            }
        }
        if c.results_early {
            for &v in &kills[k] {
                self.free_value(func, v, alloc);
            }
        }
        for &v in &dead[k] {
            self.free_value(func, v, alloc);
        }
        Ok(())
    }

    fn bundle_head(
        &mut self,
        func: &Function,
        insts: &[Inst],
        kills: &[ValueList],
        k: usize,
        bi: usize,
        alloc: &mut Allocation,
    ) -> Result<(), Failure> {
        let bd = &self.bundles.list[bi];
        let members = bd.members.clone();
        let align = u32::from(bd.align);
        // The moves follow each other from position k.
        // Position of each member's move in the block (moves follow the head).
        let mut pos = Vec::with_capacity(members.len());
        for &m in &members {
            // Bundle members are results of their moves, in this block.
            let mi = func
                .dfg
                .value_inst(m)
                .expect("bundle member is a move result");
            let p = insts[k..].iter().position(|&x| x == mi).map(|p| p + k);
            pos.push(p.ok_or(RegAllocError::BadConstraint {
                inst: mi,
                reason: "operand group moves separated from their instruction".into(),
            })?);
        }
        let srcs: Vec<Value> = members
            .iter()
            .map(|&m| func.dfg.inst_args(func.dfg.value_inst(m).expect("move"))[0])
            .collect();
        let widths: Vec<u32> = srcs
            .iter()
            .map(|&s| u32::from(self.fp(func, s).width))
            .collect();
        let total: u32 = widths.iter().sum();
        // Sources whose last use is a move of this bundle: their registers may hold the
        // group (the moves are then ordered so each source is read before it is
        // overwritten).
        let mut dying: Vec<Value> = Vec::new();
        for &s in &srcs {
            if pos.iter().any(|&p| kills[p].contains(&s)) && !dying.contains(&s) {
                dying.push(s);
            }
        }
        if let Some(b) = self.bundle_base[bi] {
            self.regs.reserve(b, total, -1);
        }
        // Registers not holding any source, if that costs no new registers: the moves then
        // need no ordering or scratch.
        let fresh = self
            .regs
            .find(RegFile::Gpr, total, align, None)
            .filter(|&f| f + total <= self.high);
        for &s in &dying {
            self.free_value(func, s, alloc);
        }
        let mut cands: Vec<u32> = Vec::new();
        if let Some(b) = self.bundle_base[bi] {
            cands.push(b);
        }
        if let Some(r0) = alloc.regs[srcs[0]].filter(|r| r.file == RegFile::Gpr) {
            cands.push(u32::from(r0.index));
        }
        let base = cands
            .into_iter()
            .find(|&b| b.is_multiple_of(align.max(1)) && self.regs.is_free(RegFile::Gpr, b, total))
            .or(fresh)
            .or_else(|| self.regs.find(RegFile::Gpr, total, align, None))
            .ok_or(Failure::Fragmented(members[0], RegFile::Gpr))?;
        self.place_group(func, &members, align, Some(base), alloc)?;
        // Order the moves as a parallel copy: a move may run once no unread source lies in
        // its destination; cycles go through a free scratch register.
        let src_range = |r: PReg, w: u32| (u32::from(r.index), u32::from(r.index) + w);
        let overlap = |a: (u32, u32), b: (u32, u32)| a.0 < b.1 && b.0 < a.1;
        let mut pending: Vec<(usize, (u32, u32))> = Vec::new();
        let mut steps: Vec<BundleStep> = Vec::new();
        let mut off = base;
        for (j, &s) in srcs.iter().enumerate() {
            let w = widths[j];
            let r = alloc.regs[s].ok_or(Failure::Fragmented(s, RegFile::Gpr))?;
            if r.file == RegFile::Gpr && u32::from(r.index) == off {
                steps.push(BundleStep::Move(j));
            } else {
                pending.push((j, src_range(r, w)));
            }
            off += w;
        }
        let dst = |j: usize| {
            let o: u32 = widths[..j].iter().sum();
            (base + o, base + o + widths[j])
        };
        while !pending.is_empty() {
            let ready = (0..pending.len()).find(|&i| {
                let d = dst(pending[i].0);
                pending
                    .iter()
                    .enumerate()
                    .all(|(x, p)| x == i || !overlap(d, p.1))
            });
            if let Some(i) = ready {
                steps.push(BundleStep::Move(pending.remove(i).0));
                continue;
            }
            // A cycle: copy one source to a register free of values and unread sources.
            let (j, _) = pending[0];
            let w = widths[j];
            let a = u32::from(self.fp(func, srcs[j]).align).max(1);
            let n = self.regs.occ[RegFile::Gpr].len() as u32;
            let mut scratch = None;
            let mut i = 0;
            while i + w <= n {
                if self.regs.is_free(RegFile::Gpr, i, w)
                    && pending.iter().all(|p| !overlap((i, i + w), p.1))
                {
                    scratch = Some(i);
                    break;
                }
                i += a;
            }
            let sr = scratch.ok_or(Failure::Fragmented(members[j], RegFile::Gpr))?;
            steps.push(BundleStep::Scratch(j, PReg::gpr(sr as u16)));
            pending[0].1 = (sr, sr + w);
        }
        self.fixups.push(BundleFix {
            moves: members
                .iter()
                .map(|&m| {
                    func.dfg
                        .value_inst(m)
                        .expect("bundle member is a move result")
                })
                .collect(),
            steps,
        });
        for &v in &kills[k] {
            self.free_value(func, v, alloc);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cranelift_entity::EntityRef;

    /// Two spare registers only within one allocation unit: 6 -> 8 and 14 -> 16 on SPA5
    /// (unit 8) cost no occupancy; 7, 15 or 16 -> +2 would cross into the next unit; a
    /// target counting every register (unit 1) gets none.
    #[test]
    fn cool_registers_stay_within_the_allocation_unit() {
        assert_eq!(cool_ceiling(6, 8), 8);
        assert_eq!(cool_ceiling(14, 8), 16);
        assert_eq!(cool_ceiling(7, 8), 7);
        assert_eq!(cool_ceiling(15, 8), 15);
        assert_eq!(cool_ceiling(16, 8), 16);
        assert_eq!(cool_ceiling(6, 1), 6);
        assert_eq!(cool_ceiling(0, 0), 0);
    }

    #[test]
    fn block_maps_forget_everything_when_cleared() {
        let v = |i| Value::new(i);
        let mut m = BlockMap::default();
        assert_eq!(m.get(v(3)), None, "never set");
        m.insert(v(3), 7);
        m.insert(v(0), 0);
        assert_eq!(
            (m.get(v(3)), m.get(v(0)), m.get(v(1))),
            (Some(7), Some(0), None)
        );
        assert!(m.remove(v(3)));
        assert!(!m.remove(v(3)));
        m.clear();
        assert_eq!(m.get(v(0)), None, "set before the clear");
        m.insert(v(0), 5);
        assert_eq!(m.get(v(0)), Some(5));
        // The stamp wraps around by starting over, not by reviving old entries.
        m.stamp = u32::MAX;
        m.insert(v(2), 1);
        m.clear();
        assert_eq!((m.get(v(0)), m.get(v(2))), (None, None));
        m.insert(v(2), 9);
        assert_eq!(m.get(v(2)), Some(9));
    }
}

#[cfg(test)]
mod carried_tests {
    use super::*;
    use crate::ir::reader::parse_function_text;
    use cranelift_entity::EntityRef;

    /// A merge (block3) whose parameters go back to the header (block1) through the edge
    /// block (block4) the latch's conditional branch needs, and out to block5.
    const LOOP: &str = "kernel %k {
    uav0 = raw

block0:
    v0 = special tid.x
    jump block1(v0, v0)

block1(v1: b32, v2: b32):
    v3 = icmp ult v1, v2
    brif v3, block2, block3(v2, v1)

block2:
    v4 = iadd v1, v2
    jump block3(v4, v2)

block3(v5: b32, v6: b32):
    v7 = icmp ult v5, v6
    brif v7, block4, block5(v6)

block4:
    jump block1(v6, v5)

block5(v8: b32):
    store.b32 uav0[v8], v8
    return
}
";

    #[test]
    fn merge_parameters_find_the_header_register_they_go_back_to() {
        let func = parse_function_text(LOOP).expect("parses");
        let b = |i| Block::new(i);
        let mut alloc = Allocation::default();
        let (p1, p2) = (Value::new(1), Value::new(2));
        assert_eq!(func.dfg.block_params(b(1)), &[p1, p2]);
        assert_eq!(
            carried_register(&func, b(3), 0, &alloc),
            None,
            "nothing colored"
        );
        alloc.regs[p1] = Some(PReg::gpr(7));
        alloc.regs[p2] = Some(PReg::gpr(4));
        // v5 goes back as the header's second parameter, v6 as its first.
        assert_eq!(carried_register(&func, b(3), 0, &alloc), Some(PReg::gpr(4)));
        assert_eq!(carried_register(&func, b(3), 1, &alloc), Some(PReg::gpr(7)));
        // The exit's parameter, once colored, is found directly: v6 also goes to block5.
        alloc.regs[Value::new(8)] = Some(PReg::gpr(2));
        assert_eq!(carried_register(&func, b(3), 1, &alloc), Some(PReg::gpr(7)));
        assert_eq!(
            carried_register(&func, b(3), 2, &alloc),
            None,
            "no such parameter"
        );
    }
}
