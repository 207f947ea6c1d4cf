//! SSA-based register allocation (Hack-style: spill first, then color along the dominator
//! tree, then resolve block parameters with parallel moves), driven by a
//! [`TargetIsa`](crate::target::TargetIsa).
//!
//! The algorithm is written up in `passes/doc/regalloc.md`. In short:
//!
//! 1. `prepare`: drop unreachable blocks; give every conditional-branch edge that carries
//!    block arguments or enters a block with several incoming edges its own block (so every
//!    edge has a place for code and every merge is entered by `jump`s only); copy the
//!    members of every operand group (a 128-bit store's data, a 64-bit address made of two
//!    `b32`) into fresh values that are allocated as one consecutive, aligned unit.
//! 2. `spill`: Belady-style spilling (Braun & Hack 2009) per register file so that at
//!    every program point the live registers fit the file: evict the value whose next use
//!    is furthest, store it once right after its definition, reload it before uses;
//!    constants are rematerialized instead. SSA form is then rebuilt for the reloaded values
//!    (new block parameters at merges).
//! 3. `color`: with pressure bounded, greedy assignment in dominator-tree order (optimal
//!    for chordal SSA interference without constraints) picking the lowest free aligned
//!    register run, which keeps the register count (occupancy) low. Result groups get a
//!    free aligned run at their definition. If fragmentation leaves no run, the whole
//!    allocation is retried with a smaller register budget for spilling. When the register
//!    count ends above the peak pressure (pairs found no aligned run below the registers in
//!    use), coloring runs again placing short-lived values from the peak downward, then
//!    lowest-first without the soft preferences, and the allocation with the fewest
//!    registers is kept (a later coloring stops once it uses as many as the one kept: it
//!    cannot replace it).
//! 4. `resolve`: for every `jump`, a parallel move from the argument registers to the
//!    parameter registers, sequentialized with cycle breaking through a free register (or
//!    the spill area when none is free); identity copies are removed.
//!
//! Output: the function is rewritten in place (still valid SSA: inserted moves, spills and
//! reloads define new values) and an [`Allocation`] maps every value to its first physical
//! register. After allocation every `jump` argument sits in the same register as its
//! parameter, so the backend ignores block arguments. [`checker`] independently proves the
//! result correct. All iteration is over layout order or sorted lists: the output is a pure
//! function of the input.

pub mod checker;
pub(crate) mod color;
mod display;
pub mod liveness;
mod prepare;
mod resolve;
mod spill;
pub mod testgen;

pub use color::HOT_INSTS;
use cranelift_entity::SecondaryMap;
pub use display::{listing, RegAllocTest};

use crate::ir::{Analyses, AnyEntity, Block, Function, Inst, PerRegFile, RegFile, Value};
use crate::target::{PReg, TargetIsa};

/// Options of a register allocation run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RegAllocOptions {
    /// Further limits the number of registers per file below the target's count (tests use
    /// e.g. 8 GPRs to force spilling).
    pub max_regs: PerRegFile<Option<u32>>,
    /// Run the [`checker`] on the result and fail with its error (always on in debug
    /// builds).
    pub check: bool,
}

impl RegAllocOptions {
    /// Options limiting the GPR file to `gprs` registers.
    pub fn with_max_gprs(gprs: u32) -> Self {
        let mut o = RegAllocOptions::default();
        o.max_regs[RegFile::Gpr] = Some(gprs);
        o
    }
}

/// Why the allocator inserted an instruction.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum EditKind {
    /// Not inserted: an instruction of the input.
    #[default]
    Original,
    /// A register move (from [`TargetIsa::make_move`]).
    Move,
    /// A store to the spill area at this byte offset.
    Spill {
        /// Byte offset in the spill area.
        offset: u32,
    },
    /// A load from the spill area at this byte offset.
    Reload {
        /// Byte offset in the spill area.
        offset: u32,
    },
    /// A re-execution of the (rematerializable) definition of this value.
    Remat(Value),
    /// The `jump` ending a block inserted to split an edge (see
    /// [`Allocation::split_edges`]).
    EdgeJump,
}

/// The result of register allocation.
#[derive(Clone, Debug, Default)]
pub struct Allocation {
    /// First physical register of every value (a `b64` also occupies the next register;
    /// members of a result group sit in consecutive registers). `None` for values that no
    /// longer appear in the function.
    pub regs: SecondaryMap<Value, Option<PReg>>,
    /// Instructions inserted by the allocator and why.
    pub edits: SecondaryMap<Inst, EditKind>,
    /// Blocks inserted to split edges: the original branch block and the destination index
    /// in its terminator's branch list.
    pub split_edges: SecondaryMap<Block, Option<(Block, u16)>>,
    /// Block parameters added while rebuilding SSA form after spilling, with the original
    /// value each one carries.
    pub param_origin: SecondaryMap<Value, Option<Value>>,
    /// Registers used per file: one past the highest register index assigned.
    pub regs_used: PerRegFile<u32>,
    /// The most GPRs live at once after spilling (a lower bound of the GPRs used; alignment
    /// of register pairs and quads can cost more).
    pub peak_gpr_pressure: u32,
    /// Size of the per-thread spill area in bytes.
    pub spill_bytes: u32,
    /// Number of spill stores inserted.
    pub num_spills: u32,
    /// Number of reloads (and rematerializations) inserted.
    pub num_reloads: u32,
    /// Number of register moves left in the function.
    pub num_moves: u32,
}

impl Allocation {
    /// Number of GPRs used (the occupancy-relevant register count).
    pub fn num_gprs_used(&self) -> u32 {
        self.regs_used[RegFile::Gpr]
    }

    /// The register of `v`, if allocated.
    pub fn reg(&self, v: Value) -> Option<PReg> {
        self.regs[v]
    }
}

/// Register allocation failures. Each names the entity at fault.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RegAllocError {
    /// The function has no entry block.
    #[error("function has no entry block")]
    NoEntry,
    /// An instruction needs more registers at once (operands, results, groups) than the
    /// register file has.
    #[error("{inst} needs {needed} {file:?} registers at once, only {available} available")]
    TooManyOperands {
        /// The instruction.
        inst: Inst,
        /// The register file.
        file: RegFile,
        /// Registers it needs simultaneously.
        needed: u32,
        /// Registers in the file.
        available: u32,
    },
    /// A target constraint is malformed (index out of range, mixed register files).
    #[error("{inst}: bad constraint from the target: {reason}")]
    BadConstraint {
        /// The instruction.
        inst: Inst,
        /// What is wrong.
        reason: String,
    },
    /// A value is used where no definition reaches (the input is not strict SSA).
    #[error("{value} is used in {inst} but not defined on every path")]
    UndefinedValue {
        /// The value.
        value: Value,
        /// The using instruction.
        inst: Inst,
    },
    /// No aligned register run was free even with the smallest spill budget.
    #[error("could not place {value} in {file:?} registers (fragmentation)")]
    NoRegister {
        /// The value.
        value: Value,
        /// The register file.
        file: RegFile,
    },
    /// The checker found an error in the allocated code.
    #[error("checker: {at}: {message}")]
    Checker {
        /// Where.
        at: AnyEntity,
        /// What.
        message: String,
    },
}

/// Allocates registers for `func` in place. See the module doc.
pub fn run(
    func: &mut Function,
    target: &dyn TargetIsa,
    opts: &RegAllocOptions,
) -> Result<Allocation, RegAllocError> {
    run_with(func, target, opts, &mut Analyses::new())
}

/// As [`run`], with `func`'s cached analyses, which on success are the allocated function's
/// (allocation splits critical edges; the caller may use them afterwards).
pub fn run_with(
    func: &mut Function,
    target: &dyn TargetIsa,
    opts: &RegAllocOptions,
    analyses: &mut Analyses,
) -> Result<Allocation, RegAllocError> {
    // Each attempt works on a copy of the original; `func` itself is moved out meanwhile (one
    // copy fewer of the largest structure of a compile) and restored on failure.
    let original = std::mem::take(func);
    let result = attempts(&original, func, target, opts, analyses);
    if result.is_err() {
        *func = original;
        analyses.invalidate();
    }
    result
}

/// The retry loop of [`run`]: on success `func` is the allocated function.
fn attempts(
    original: &Function,
    func: &mut Function,
    target: &dyn TargetIsa,
    opts: &RegAllocOptions,
    analyses: &mut Analyses,
) -> Result<Allocation, RegAllocError> {
    let limits = PerRegFile(RegFile::ALL.map(|rf| {
        let n = target.num_regs(rf);
        opts.max_regs[rf].map_or(n, |m| m.min(n))
    }));
    let _span = tracing::debug_span!("regalloc", func = %original.name).entered();
    // Retry with a smaller spill budget when fragmentation defeats coloring.
    let mut budget = limits;
    let mut fragmented: Option<(Value, RegFile)> = None;
    let mut first = true;
    loop {
        let mut work = original.clone();
        // The analyses are the original's for the first attempt; a retry starts over.
        if !std::mem::take(&mut first) {
            analyses.invalidate();
        }
        // The first attempt places operand-group sources directly into their group's
        // run and keeps just-read registers of loads cool; retries drop both soft
        // preferences, which can fragment tiny files.
        let group_hints = fragmented.is_none();
        let result = spill_phase(&mut work, target, budget, analyses).and_then(|(spilled, lv)| {
            // The state after spilling, for the colorings below: spilling does not depend
            // on the coloring mode, so they start from a copy instead of spilling again.
            let snapshot = (work.clone(), spilled.clone(), analyses.clone());
            let setup = color::Setup::new(&work, target, analyses, lv);
            let mode = color::Mode {
                group_hints,
                two_sided: false,
                abandon_at: None,
            };
            color_phase(&mut work, target, limits, mode, &setup, spilled, analyses)
                .map(|alloc| (alloc, snapshot, setup))
        });
        match result {
            Ok((mut alloc, snapshot, setup)) => {
                // Pairs and quads that found no aligned run below the registers in use:
                // color again, first with short-lived values and runs placed from the peak
                // pressure down (see `color`), then lowest-first without the soft operand-
                // group reservations and load-read registers, and keep the allocation with
                // the fewest GPRs (the earliest among equals).
                // One register above the peak is left alone (an odd peak with 64-bit values
                // live often needs it, and each retry costs a coloring: it tripled the
                // allocator's time on small kernels such as saxpy, 6 registers, peak 5), and
                // two when they cost no occupancy (`color::cool_ceiling`: registers the first
                // coloring took so as not to wait for a load still reading its choice).
                let peak = alloc.peak_gpr_pressure;
                let kept = color::cool_ceiling(peak, target.gpr_allocation_unit()).max(peak + 1);
                let mut snapshot = Some(snapshot);
                for (last, two_sided, hints) in [(false, true, group_hints), (true, false, false)] {
                    if alloc.num_gprs_used() <= kept {
                        break;
                    }
                    // The last coloring takes the snapshot itself instead of a copy.
                    let taken = if last {
                        snapshot.take()
                    } else {
                        snapshot.clone()
                    };
                    let Some((mut other, spilled, mut other_analyses)) = taken else {
                        break;
                    };
                    // A coloring reaching as many GPRs as the one kept cannot replace it:
                    // it stops there.
                    let mode = color::Mode {
                        group_hints: hints,
                        two_sided,
                        abandon_at: Some(alloc.num_gprs_used()),
                    };
                    if let Ok(a) = color_phase(
                        &mut other,
                        target,
                        limits,
                        mode,
                        &setup,
                        spilled,
                        &mut other_analyses,
                    ) {
                        if a.num_gprs_used() < alloc.num_gprs_used() {
                            (work, alloc) = (other, a);
                            *analyses = other_analyses;
                        }
                    }
                }
                if opts.check || cfg!(debug_assertions) {
                    checker::check(original, &work, &alloc, target, limits)?;
                }
                *func = work;
                return Ok(alloc);
            }
            Err(Failure::Fragmented(value, file)) => {
                let first = fragmented.is_none();
                fragmented = Some((value, file));
                if first {
                    continue;
                }
                let b = &mut budget[file];
                // Shrink faster for big files so the retry loop stays short.
                let step = (*b / 16).max(1);
                if *b <= step + 1 {
                    return Err(RegAllocError::NoRegister { value, file });
                }
                tracing::debug!(
                    ?file,
                    budget = *b,
                    "fragmented, retrying with fewer registers"
                );
                *b -= step;
            }
            Err(Failure::NoBetter) => {
                // Only colorings with an `abandon_at` give up, and this one had none.
                return Err(RegAllocError::Checker {
                    at: crate::ir::AnyEntity::Function,
                    message: "a coloring gave up without a count to beat".into(),
                });
            }
            Err(Failure::Error(e)) => {
                // A budget lowered by retries can be too small for some instruction: report
                // the fragmentation that forced the retries.
                return Err(match (fragmented, e) {
                    (Some((value, file)), RegAllocError::TooManyOperands { .. }) => {
                        RegAllocError::NoRegister { value, file }
                    }
                    (_, e) => e,
                });
            }
        }
    }
}

/// Why one attempt failed.
pub(crate) enum Failure {
    /// No free aligned run for this value (retry with a smaller budget).
    Fragmented(Value, RegFile),
    /// The coloring reached its [`color::Mode::abandon_at`] GPR count.
    NoBetter,
    /// A definite error.
    Error(RegAllocError),
}

impl From<RegAllocError> for Failure {
    fn from(e: RegAllocError) -> Self {
        Failure::Error(e)
    }
}

/// What spilling leaves for coloring: the allocation so far, the operand-group bundles and
/// the spill area.
#[derive(Clone)]
struct Spilled {
    alloc: Allocation,
    bundles: prepare::Bundles,
    info: spill::SpillInfo,
}

/// Preparation and spilling (steps 1 and 2 of the module doc): independent of the coloring
/// mode. With the liveness of the spilled function when spilling computed it last.
fn spill_phase(
    func: &mut Function,
    target: &dyn TargetIsa,
    budget: PerRegFile<u32>,
    analyses: &mut Analyses,
) -> Result<(Spilled, Option<liveness::Liveness>), Failure> {
    let mut alloc = Allocation::default();
    let bundles = prepare::run(func, target, &mut alloc, analyses)?;
    // Preparation split the critical edges; after it the control flow stays as it is (the
    // later steps insert instructions and block parameters only), so they share one CFG
    // and dominator tree.
    let (info, lv) = spill::run(func, target, &bundles, budget, &mut alloc, analyses)?;
    Ok((
        Spilled {
            alloc,
            bundles,
            info,
        },
        lv,
    ))
}

/// Coloring and resolution (steps 3 and 4) of a spilled function; `setup` is its
/// [`color::Setup`].
fn color_phase(
    func: &mut Function,
    target: &dyn TargetIsa,
    limits: PerRegFile<u32>,
    mode: color::Mode,
    setup: &color::Setup,
    spilled: Spilled,
    analyses: &mut Analyses,
) -> Result<Allocation, Failure> {
    let Spilled {
        mut alloc,
        bundles,
        info,
    } = spilled;
    color::run(
        func, target, &bundles, limits, mode, setup, &mut alloc, analyses,
    )?;
    resolve::run(func, target, limits, info, &mut alloc, analyses)?;
    debug_assert!(
        analyses.is_current(func),
        "the CFG changed after preparation"
    );
    Ok(alloc)
}

/// One whole allocation in one coloring mode, without retries.
#[cfg(test)]
#[allow(clippy::too_many_arguments)]
fn attempt(
    func: &mut Function,
    target: &dyn TargetIsa,
    limits: PerRegFile<u32>,
    budget: PerRegFile<u32>,
    group_hints: bool,
    two_sided: bool,
    abandon_at: Option<u32>,
    analyses: &mut Analyses,
) -> Result<Allocation, Failure> {
    let (spilled, lv) = spill_phase(func, target, budget, analyses)?;
    let setup = color::Setup::new(func, target, analyses, lv);
    let mode = color::Mode {
        group_hints,
        two_sided,
        abandon_at,
    };
    color_phase(func, target, limits, mode, &setup, spilled, analyses)
}

/// Where [`insert_inst`] places a new instruction.
#[derive(Copy, Clone, Debug)]
pub(crate) enum InsertAt {
    /// Before this instruction.
    Before(Inst),
    /// After this instruction.
    After(Inst),
    /// At the start of this block.
    BlockStart(Block),
}

/// True if `inst` may be re-executed anywhere instead of keeping its result in a register:
/// no operands, one result, no side effects, and the target says so. One rule for the
/// spill pass, the constants `prepare` defines next to their jumps, and the checker.
pub(crate) fn rematerializable(func: &Function, target: &dyn TargetIsa, inst: Inst) -> bool {
    func.dfg.inst_args(inst).is_empty()
        && func.dfg.inst_results(inst).len() == 1
        && !func.dfg.insts[inst].has_side_effects()
        && target.is_rematerializable(func, inst)
}

/// Creates `data` with its results and places it; records `kind` in `alloc.edits`.
pub(crate) fn insert_inst(
    func: &mut Function,
    data: crate::ir::InstructionData,
    at: InsertAt,
    kind: EditKind,
    alloc: &mut Allocation,
) -> Inst {
    let inst = func.dfg.make_inst(data);
    func.dfg.make_inst_results(inst);
    match at {
        InsertAt::Before(i) => func.layout.insert_inst(inst, i),
        InsertAt::After(i) => func.layout.insert_inst_after(inst, i),
        InsertAt::BlockStart(b) => match func.layout.first_inst(b) {
            Some(first) => func.layout.insert_inst(inst, first),
            None => func.layout.append_inst(inst, b),
        },
    }
    alloc.edits[inst] = kind;
    inst
}

/// Checks that a target-made instruction has the promised shape: operands exactly `args`
/// and one result of type `ty` (or none when `ty` is `None`).
pub(crate) fn check_made(
    func: &Function,
    inst: Inst,
    args: &[Value],
    ty: Option<crate::ir::Type>,
    what: &str,
) -> Result<(), RegAllocError> {
    let results = func.dfg.inst_results(inst);
    let ok = func.dfg.inst_args(inst) == args
        && func.dfg.insts[inst].branch_destinations().is_empty()
        && match ty {
            Some(t) => results.len() == 1 && func.dfg.value_type(results[0]) == t,
            None => results.is_empty(),
        };
    if ok {
        Ok(())
    } else {
        Err(RegAllocError::BadConstraint {
            inst,
            reason: format!("target's {what} instruction has the wrong operands or results"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::regalloc::testgen::{generate, GenConfig};
    use crate::target::ToyTarget;

    /// One coloring attempt of `f` in a given mode (no retries).
    fn attempt_with(
        f: &Function,
        target: &ToyTarget,
        hints: bool,
        two_sided: bool,
        abandon_at: Option<u32>,
    ) -> Result<Allocation, Failure> {
        let limits = PerRegFile(RegFile::ALL.map(|rf| target.num_regs(rf)));
        let mut work = f.clone();
        let mut analyses = Analyses::new();
        attempt(
            &mut work,
            target,
            limits,
            limits,
            hints,
            two_sided,
            abandon_at,
            &mut analyses,
        )
    }

    /// GPRs of one coloring attempt of `f` in a given mode (no retries).
    fn gprs_with(f: &Function, target: &ToyTarget, hints: bool, two_sided: bool) -> Option<u32> {
        attempt_with(f, target, hints, two_sided, None)
            .ok()
            .map(|a| a.num_gprs_used())
    }

    /// A coloring told to give up at a GPR count the finished allocation would not reach
    /// does not give up, and one that gives up would have reached that count: giving up
    /// never drops an allocation the retries would have kept.
    #[test]
    fn colorings_give_up_only_at_counts_they_reach() {
        let target = ToyTarget::default();
        let mut gave_up = 0;
        for seed in 0..100 {
            let f = generate(seed, &GenConfig::default());
            for (hints, two_sided) in [(true, false), (true, true), (false, false)] {
                let Ok(full) = attempt_with(&f, &target, hints, two_sided, None) else {
                    continue;
                };
                let used = full.num_gprs_used();
                for bound in 1..=used + 1 {
                    match attempt_with(&f, &target, hints, two_sided, Some(bound)) {
                        Err(Failure::NoBetter) => {
                            assert!(bound <= used, "seed {seed}: gave up at {bound} > {used}");
                            gave_up += 1;
                        }
                        Ok(a) => assert_eq!(a.regs, full.regs, "seed {seed}, bound {bound}"),
                        Err(_) => panic!("seed {seed}: bound {bound} failed otherwise"),
                    }
                }
            }
        }
        assert!(gave_up > 100, "{gave_up} colorings gave up");
    }

    /// The liveness spilling hands to coloring is the spilled function's, and it hands one
    /// only when it inserted nothing; with a small budget it inserts spill code.
    #[test]
    fn spilling_hands_on_the_liveness_of_the_function_it_leaves() {
        let target = ToyTarget::default();
        let (mut handed, mut spilled) = (0, 0);
        for seed in 0..60 {
            let f = generate(seed, &GenConfig::default());
            for gprs in [255, 4] {
                let mut work = f.clone();
                let mut budget = PerRegFile(RegFile::ALL.map(|rf| target.num_regs(rf)));
                budget[RegFile::Gpr] = gprs;
                let mut analyses = Analyses::new();
                let Ok((_, lv)) = spill_phase(&mut work, &target, budget, &mut analyses) else {
                    continue;
                };
                let Some(lv) = lv else {
                    spilled += 1;
                    continue;
                };
                handed += 1;
                let fresh = liveness::Liveness::compute(&work, analyses.cfg(&work));
                for b in work.layout.blocks() {
                    assert_eq!(lv.live_in[b], fresh.live_in[b], "seed {seed}");
                    assert_eq!(lv.live_out[b], fresh.live_out[b], "seed {seed}");
                }
            }
        }
        assert!(
            handed > 30 && spilled > 0,
            "{handed} handed, {spilled} spilled"
        );
    }

    #[test]
    fn never_more_registers_than_any_coloring_mode() {
        let target = ToyTarget::default();
        let (mut better, mut total, mut first) = (0, 0u32, 0u32);
        for seed in 0..150 {
            let f = generate(seed, &GenConfig::default());
            let mut g = f.clone();
            let alloc = run(&mut g, &target, &RegAllocOptions::default()).expect("allocates");
            let modes = [(true, false), (true, true), (false, false)].map(|(h, t)| {
                gprs_with(&f, &target, h, t).expect("one attempt allocates in 255 GPRs")
            });
            let used = alloc.num_gprs_used();
            // The retries run only more than one register above the peak.
            assert!(
                used <= *modes.iter().min().expect("three modes")
                    || used <= alloc.peak_gpr_pressure + 1,
                "seed {seed}: {used} GPRs, modes {modes:?}"
            );
            assert!(used >= alloc.peak_gpr_pressure, "seed {seed}");
            better += u32::from(used < modes[0]);
            total += used;
            first += modes[0];
        }
        // The later colorings must matter on random code, or they cost time for nothing.
        assert!(
            better > 10,
            "{better} functions improved ({first} -> {total} GPRs)"
        );
    }
}
