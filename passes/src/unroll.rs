//! Unrolling of counted loops with a run-time trip count.
//!
//! A candidate is an innermost loop whose header holds only constants (moved to the
//! preheader) and its exit test, `brif (icmp cc iv, n)`, where `iv` is a header parameter
//! that the single latch advances by a constant step `s > 0` (`jump header(.., iv + s, ..)`),
//! `n` is defined outside the loop, the loop
//! continues while `iv < n` (signed or unsigned, after normalizing the operand order and the
//! branch sense), and it is left from the header, or also from its body (a `break`) when all
//! of its exits go to one block that only the loop enters: the values used after the loop then
//! become that block's parameters, so each copy's exit passes its own. Such a loop gets an
//! unrolled copy in front of it:
//!
//! ```text
//! pre:   lim = n - (k-1)s  if that does not wrap, else the type's minimum
//!        jump U(init)
//! U(p):  brif (p.iv < lim), B_0, header(p)     ; fewer than k iterations left: the original
//! B_j:   body copy j (header parameters = the values copy j-1 passed to its latch)
//!        ...  last copy: jump U(next)
//! ```
//!
//! `p.iv < lim` implies `p.iv + (k-1)s < n` without overflow, so the k copies run exactly the
//! iterations the original would, and the original loop (now the remainder) finishes the last
//! `< k` of them. A loop counting down (`iv -= s` while `iv > n`, or `iv != 0` with `s = 1`:
//! [`crate::counted_loop::recognize_descending`]) is the mirror image: `lim = n + (k-1)s` (the
//! type's maximum when that wraps) and the test `p.iv > lim`. A body's size counts the instructions that depend on the loop (pure
//! computations on loop-invariant values are hoisted later, not copied code). The factor is 16
//! for bodies of at most [`MAX_BODY_16`] instructions that load from a buffer (global memory)
//! and whose loads keep at most [`MAX_LOAD_REGS_8`] registers in flight over sixteen copies,
//! else 8 for bodies of at most [`MAX_BODY_8`] instructions whose loads keep at most
//! [`MAX_LOAD_REGS_8`] registers in flight over eight copies; for a loop expected to run few
//! iterations (value ranges of the start and bound that allow at most [`FEW_TRIPS`], or a
//! bound read from a buffer: [`loaded_bound`]) `U` then exits into four more copies behind
//! the test `p.iv < n - 3s` that run at most once before the original loop (behind sixteen
//! copies, up to three times: the four copies loop). Such a body striding by at least
//! [`WIDE_STEP`] (a block- or grid-stride loop, `n / step` iterations per thread: few) gets
//! four copies instead: eight often never run, and their loads in flight set the kernel's
//! register count. It is 4 for bodies of at most [`MAX_BODY_4`] instructions whose loads write at most
//! [`MAX_LOAD_WORDS`] registers over the four copies, 2 up to [`MAX_BODY_2`]; a factor is
//! used only when the value ranges allow that many iterations ([`max_trips`]: a group-stride
//! loop over at most four strides gets 4 copies, not 8 that could never run); loops whose
//! header is marked cold are left alone, and so are loops with barriers, or with a store
//! under an `if` (a later copy's loads could not start above it: the copies would save only
//! the loop test), unless unrolled fully; a function grows by at most [`MAX_GROWTH`]
//! instructions.
//!
//! A loop with a constant trip count of at most [`MAX_FULL_TRIPS`] is unrolled fully when its
//! copies stay within [`MAX_FULL_SIZE`] instructions ([`MAX_FULL_SIZE_STRAIGHT`] for a body
//! of one block) and their buffer loads within [`MAX_LOAD_REGS_FULL`] registers in flight
//! (beyond it the copies' loads set the kernel's register count); a constant trip count left
//! rolled gets no partial factor as large as itself (its copies would run once: a full
//! unrolling in all but name). Its counter may advance by any pure operation on
//! itself and constants (`s >>= 1` of a tree reduction, `t *= 3`) and be tested with any
//! comparison against a constant ([`crate::counted_loop::recognize_constant_trips`]). The
//! preheader enters the first copy directly (its arguments replace the header parameters, so
//! the counters are constants after folding), barriers stay in every copy (every thread runs
//! every copy), and the last copy leaves the way the header's test would have, with the
//! header parameters used after the loop replaced by what that copy passes: the original
//! loop becomes unreachable. Later passes fold the copies' `iv + js` into address offsets.
//!
//! Requires: a verified SSA function. Guarantees: the same observable behaviour for every trip
//! count (including 0 and bounds near the type's limits), a verifier-clean function, blocks
//! of the original loop unchanged.

use crate::FastHashMap as HashMap;

use crate::ir::{
    Analyses, Block, BlockCall, ControlFlowGraph, DominatorTree, Function, Inst, InstructionData,
    IntCC, LoopInfo, MemSpace, Opcode, Type, Value,
};

/// Largest loop body (instructions outside the header) unrolled 4 times.
pub const MAX_BODY_4: usize = 32;
/// Most 32-bit registers the loads of four copies may write: the scheduler keeps the
/// loads of all copies in flight only within its loop register budget, and beyond it the
/// copies run load, wait, use one after the other (poly_gesummv's three vec4 loads per
/// iteration cost 1.7x the cycles at factor 4 over factor 2).
pub const MAX_LOAD_WORDS: usize = 24;
/// Largest loop body unrolled 8 times (then 4 more copies run once for the remainder): a
/// short body's loads are most of its time, and eight of them in flight hide the latency
/// ptxas hides with its 16-fold unrolling.
pub const MAX_BODY_8: usize = 16;
/// Largest loop body unrolled 16 times when it loads from a buffer (then, as at eight, four
/// more copies run once for the remainder of a loop expected to run few iterations): a
/// global load's ~300 cycles are hidden by sixteen loads in flight, as ptxas's 16-fold
/// unrolling does, where eight leave each iteration waiting half that. poly_atax, poly_syrk
/// (a row and a column walk, a shared address each) ran 11% fewer modeled cycles and
/// instructions; shared-memory loops (cuda_sobol's bit loop) stay at eight: their loads' ~30
/// cycles are hidden already, and the remainder of up to 15 iterations cost 4%.
pub const MAX_BODY_16: usize = 16;
/// Most registers the loads of eight (or sixteen) copies may hold in flight (results, and
/// addresses: one per copy for a strided access, one shared for an access growing by a
/// constant; an address register is free again once its load has read it, so this counts
/// more than is ever live). At 40, poly_covar's two column accesses (a 64-bit address per
/// copy each: 48) stayed at factor 4 because the scheduler then issued eight copies' loads a
/// few at a time (modeled cycles 1.50x -> 3.26x ptxas's); measured again after the
/// scheduler's later changes, 48 pays: poly_covar aib -17% cycles, poly_gramschmidt -11%,
/// poly_corr -3% (16 copies), shoc_spmv +1.4%; 56 and 64 changed no bench pair.
pub const MAX_LOAD_REGS_8: usize = 48;
/// Most registers the buffer loads of a fully unrolled loop may hold in flight. Lower than for
/// partial unrolling: every copy of a full unrolling is straight-line code the scheduler
/// may interleave at once (rodinia_nw's 16-trip tile loads at 48 took 60 registers against
/// ptxas's 32 for 19% fewer cycles; the limit is ptxas + 2).
pub const MAX_LOAD_REGS_FULL: usize = 40;
/// Largest loop body unrolled twice.
pub const MAX_BODY_2: usize = 64;
/// Most instructions unrolling adds to one function.
pub const MAX_GROWTH: usize = 4096;
/// Largest trip count a loop with constant start and bound is fully unrolled for.
pub const MAX_FULL_TRIPS: u32 = 16;
/// Largest fully unrolled body (trips x body instructions) of a loop whose body branches:
/// each copy repeats its control flow, and the values and predicates live across the copies'
/// branches grow with the size (at 640, rodinia_nw's 16-trip tile loops kept seven `if`
/// predicates live and spilled them to local memory: 1.67x the modeled cycles).
pub const MAX_FULL_SIZE: usize = 320;
/// [`MAX_FULL_SIZE`] for a loop whose body is one block: its copies become one straight-line
/// block that the scheduler interleaves whole. Measured at 400 / 640 / 960 (modeled cycles,
/// 61 pairs): parboil_sgemm's inner product (8 trips of one `LDG` and four `LDS.128` into 16
/// sums, 344 instructions) 0.72x of its loop's cycles, the same registers; cuda_convsep's
/// 17-tap filter (8 x 60) at 640 0.79x (0.76x with `--assume-in-bounds`); 960 changed no
/// pair.
pub const MAX_FULL_SIZE_STRAIGHT: usize = 640;

/// A loop the pass can unroll.
struct Counted {
    header: Block,
    pre: Block,
    latch: Block,
    /// Loop blocks other than the header, in reverse post-order.
    body: Vec<Block>,
    /// The header's successor inside the loop.
    body_entry: Block,
    /// Index of the induction variable among the header parameters.
    iv: usize,
    /// The constant the latch adds (subtracts, counting down); `None` when it applies some
    /// other operation (only full unrolling then: see [`constant_trips`]).
    step: Option<u32>,
    /// The induction variable's value on entry.
    init: Value,
    bound: Value,
    signed: bool,
    /// Counting down (`iv -= step` while `iv > bound`).
    descending: bool,
    size: usize,
    /// 32-bit registers the body's loads write per iteration.
    load_words: usize,
    /// Registers the loads of eight copies keep in flight ([`load_registers`]).
    load_regs_8: usize,
    /// The same for sixteen copies, when the body loads from a buffer (global memory: the
    /// only loads whose latency eight copies do not hide); `usize::MAX` otherwise.
    load_regs_16: usize,
    /// The same for all `trips` copies of a full unrolling, counting only loads from
    /// buffers: shared, constant and stack loads return in tens of cycles, and the
    /// scheduler keeps few of them in flight.
    load_regs_full: usize,
    /// The trip count when the start and the bound are constants and it is small.
    trips: Option<u32>,
    /// The most iterations the value ranges of the start and bound allow ([`max_trips`]).
    max_trips: Option<u64>,
    /// The loop is expected to run few iterations ([`few_iterations`], [`loaded_bound`]):
    /// unrolled eight (sixteen) times, it leaves through four copies run at most once (a
    /// loop of four copies).
    few: bool,
    /// The body waits at a barrier: only full unrolling keeps every copy's barrier where
    /// every thread of the group reaches it.
    barrier: bool,
    /// The header's test result is used only by its branch and the header is the only way
    /// into the exit block: fully unrolled, the last copy can leave directly.
    exit_direct: bool,
    /// The body writes memory under an `if` (a block that does not run every iteration):
    /// a later copy's loads cannot start above that write.
    cond_store: bool,
    /// `iconst`s in the header.
    header_consts: Vec<Inst>,
    /// For a loop left from its body: its one exit block and the loop's values used after
    /// the loop, to become that block's parameters ([`exit_values`]).
    exit_values: Option<(Block, Vec<Value>)>,
}

/// Runs the pass with the default factors.
pub fn run(func: &mut Function) {
    unroll(func);
}

/// Runs the pass with the pipeline's cached analyses (used before any unrolling).
pub fn run_with(func: &mut Function, analyses: &mut Analyses) {
    unroll_with(func, analyses);
}

/// Unrolls every candidate loop; returns how many were unrolled.
pub fn unroll(func: &mut Function) -> usize {
    unroll_with(func, &mut Analyses::new())
}

/// As [`unroll`], with `func`'s cached analyses (used before any change).
pub fn unroll_with(func: &mut Function, analyses: &mut Analyses) -> usize {
    let (cfg, dt, loops) = analyses.loops(func);
    let mut found = Vec::new();
    let mut ranges = None;
    for &h in dt.rpo().iter().filter(|&&h| loops.is_header(h)) {
        crate::budget::tick();
        if let Some(mut c) = candidate(func, cfg, dt, loops, h) {
            // Only a partially unrolled loop needs to know (the value ranges are built for the
            // first such loop, before any unrolling changes the function).
            if c.step.is_some() && c.trips.is_none() && !c.barrier && !c.cond_store {
                let r = ranges.get_or_insert_with(|| {
                    crate::value_bound::Ranges::with_analyses(func, cfg, dt, loops)
                });
                c.max_trips = max_trips(func, &c, r);
            }
            c.few = eightfold(&c) && (few_iterations(&c) || loaded_bound(func, &c));
            found.push(c);
        }
    }
    let mut uses = direct_exit_uses(func, &found);
    // Header parameters of fully unrolled loops replaced after them, for the values later
    // candidates recorded.
    let mut replaced: HashMap<Value, Value> = HashMap::default();
    let resolve = |r: &HashMap<Value, Value>, mut v: Value| {
        while let Some(&n) = r.get(&v) {
            v = n;
        }
        v
    };
    let mut grown = 0;
    let mut done = 0;
    for mut c in found {
        c.bound = resolve(&replaced, c.bound);
        if let Some((_, vals)) = &mut c.exit_values {
            for v in vals.iter_mut() {
                *v = resolve(&replaced, *v);
            }
        }
        // A constant trip count within budget: every iteration as straight-line code.
        let full = c.trips.filter(|&t| {
            let max_size = if c.body.len() == 1 {
                MAX_FULL_SIZE_STRAIGHT
            } else {
                MAX_FULL_SIZE
            };
            t >= 1 && t as usize * c.size <= max_size && c.load_regs_full <= MAX_LOAD_REGS_FULL
        });
        let (k, tail): (u32, Option<u32>) = match full {
            Some(t) => (t, None),
            None if c.step.is_none() || c.barrier || c.cond_store => continue,
            // k copies run only when k iterations are left.
            None if sixteenfold(&c) && !wide(&c) && can_run(&c, 16) => (16, c.few.then_some(4)),
            None if eightfold(&c) && !wide(&c) && can_run(&c, 8) => (8, c.few.then_some(4)),
            None if eightfold(&c) && wide(&c) && can_run(&c, 4) => (4, None),
            None if c.size <= MAX_BODY_4
                && 4 * c.load_words <= MAX_LOAD_WORDS
                && can_run(&c, 4) =>
            {
                (4, None)
            }
            None if c.size <= MAX_BODY_2 && can_run(&c, 2) => (2, None),
            None => continue,
        };
        let copies = (k + tail.unwrap_or(0)) as usize;
        if grown + copies * c.size > MAX_GROWTH {
            continue;
        }
        grown += copies * c.size;
        let direct = full.is_some().then(|| uses.remove(&c.header)).flatten();
        replaced.extend(apply(func, &c, k, full.is_some(), tail, direct));
        done += 1;
    }
    done
}

/// The loop headed by `h` if it is a counted loop of the supported shape.
fn candidate(
    func: &Function,
    cfg: &ControlFlowGraph,
    dt: &DominatorTree,
    loops: &LoopInfo,
    h: Block,
) -> Option<Counted> {
    // A loop adding a constant step; or one advanced by any other operation whose trip count
    // is known (only full unrolling applies to it).
    let constant =
        crate::counted_loop::recognize_constant_trips(func, cfg, dt, loops, h, MAX_FULL_TRIPS);
    let trips = constant.as_ref().map(|&(_, t)| t);
    let (c, step) = match crate::counted_loop::recognize_descending(func, cfg, dt, loops, h) {
        Some(c) => (c.guard, Some(c.step)),
        None => (constant?.0, None),
    };
    // A cold loop (e.g. the checked original of a versioned loop) is not worth the code.
    if func.dfg.is_cold(h) {
        return None;
    }
    let in_loop: crate::FastHashSet<Block> = loops.loop_blocks(h).iter().copied().collect();
    // Innermost (copies of a nested loop would run its iterations one at a time: unrolling
    // the inner loop is what pays), single exit (from the header), no barriers, small enough.
    if c.body.iter().any(|&b| loops.is_header(b)) {
        return None;
    }
    let mut size = 0;
    let mut load_words = 0;
    let mut loads = Vec::new();
    // Values the copies will share: defined outside the loop, or computed by pure
    // instructions from such values (LICM hoists those, so they are not copied code).
    let mut invariant: crate::FastHashSet<Value> = Default::default();
    let outside = |v: Value, inv: &crate::FastHashSet<Value>| {
        inv.contains(&v) || crate::affine::defined_outside(func, &in_loop, v)
    };
    let mut body_exits = false;
    let mut barrier = false;
    let mut cond_store = false;
    for &b in &c.body {
        let conditional = !dt.dominates(b, c.latch);
        if cfg.succs(b).contains(&h) && b != c.latch {
            return None;
        }
        body_exits |= cfg.succs(b).iter().any(|s| !in_loop.contains(s));
        for inst in func.layout.block_insts(b) {
            let data = &func.dfg.insts[inst];
            barrier |= matches!(data, InstructionData::Barrier { .. });
            cond_store |= conditional && data.opcode().writes_memory();
            if crate::gvn::is_pure(data)
                && !func.dfg.inst_results(inst).is_empty()
                && func
                    .dfg
                    .inst_args(inst)
                    .iter()
                    .all(|&a| outside(a, &invariant))
            {
                invariant.extend(func.dfg.inst_results(inst).iter().copied());
                continue;
            }
            if let InstructionData::Load { mem, .. } = data {
                load_words += mem.size.words();
                loads.push((inst, mem.space));
            }
            size += 1;
        }
    }
    if c.body.iter().any(|&b| cfg.preds(b).contains(&b))
        || size > MAX_BODY_2.max(MAX_FULL_SIZE_STRAIGHT)
    {
        return None;
    }
    // A loop left from its body too (a `break`): the copies' exits need the values used
    // after the loop as arguments of the exit block.
    let exit_values = if body_exits {
        Some(exit_values(func, cfg, &in_loop)?)
    } else {
        None
    };
    let load_regs_8 = load_registers(func, &c, &in_loop, &loads, 8);
    let from_buffer = |space: MemSpace| {
        !matches!(
            space,
            MemSpace::Lds(_) | MemSpace::Cb(_) | MemSpace::Private(_)
        )
    };
    let global_loads: Vec<(Inst, MemSpace)> = loads
        .iter()
        .copied()
        .filter(|&(_, space)| from_buffer(space))
        .collect();
    let load_regs_16 = if !global_loads.is_empty() {
        load_registers(func, &c, &in_loop, &loads, 16)
    } else {
        usize::MAX
    };
    let (signed, bound, init) = (c.signed, c.bound, c.init);
    let load_regs_full = trips.map_or(0, |t| {
        load_registers(func, &c, &in_loop, &global_loads, t as usize)
    });
    let (pre, latch, body_entry, iv) = (c.pre, c.latch, c.body_entry, c.iv);
    let exit_direct = trips.is_some() && {
        let t = func.layout.last_inst(h)?;
        let exit = func.dfg.insts[t]
            .branch_destinations()
            .iter()
            .find(|d| d.block != body_entry)?
            .block;
        cfg.preds(exit) == [h]
    };
    let descending = c.descending;
    Some(Counted {
        header: h,
        pre,
        latch,
        body: c.body,
        body_entry,
        iv,
        step,
        init,
        bound,
        signed,
        descending,
        size,
        load_words,
        load_regs_8,
        load_regs_16,
        load_regs_full,
        trips,
        max_trips: None,
        few: false,
        exit_values,
        header_consts: c.header_consts,
        barrier,
        exit_direct,
        cond_store,
    })
}

/// A step of at least this many is a block- or grid-stride loop's (`i += group size`): it
/// runs about `n / step` iterations per thread, few. Unrolled four times, not eight.
/// Measured on the bench pairs: at eight (with four once-run copies) cuda_fwt needed 25
/// registers (ptxas 19) for load-to-LDS loops that run four iterations per thread, so the
/// eight copies never ran; at four, 17, with 0.98x the executed instructions.
pub const WIDE_STEP: u32 = 32;
/// At most this many iterations (by the value ranges of the start and the bound) is few.
pub const FEW_TRIPS: u64 = 16;

/// Whether a loop without a small constant trip count is unrolled 8 times.
fn eightfold(c: &Counted) -> bool {
    c.step.is_some() && c.size <= MAX_BODY_8 && c.load_regs_8 <= MAX_LOAD_REGS_8
}

/// Whether a loop without a small constant trip count is unrolled 16 times (before the
/// eight-copy rule): a body of at most [`MAX_BODY_16`] instructions that loads from a buffer,
/// whose loads keep at most [`MAX_LOAD_REGS_8`] registers in flight over sixteen copies.
fn sixteenfold(c: &Counted) -> bool {
    c.step.is_some() && c.size <= MAX_BODY_16 && c.load_regs_16 <= MAX_LOAD_REGS_8
}

/// Whether `c` strides by at least [`WIDE_STEP`] (a block- or grid-stride loop).
fn wide(c: &Counted) -> bool {
    c.step.is_some_and(|s| s >= WIDE_STEP)
}

/// Whether `k` unrolled copies can ever run: the loop may run at least `k` iterations.
/// A constant trip count of at most `k` (a loop full unrolling left alone: its copies' loads
/// exceed [`MAX_LOAD_REGS_FULL`]) gets no `k` copies either: they would run once, a full
/// unrolling in all but name.
fn can_run(c: &Counted, k: u64) -> bool {
    match c.trips {
        Some(t) => u64::from(t) > k,
        None => c.max_trips.is_none_or(|t| t >= k),
    }
}

/// Whether `c` is expected to run few iterations: at most [`FEW_TRIPS`] by [`max_trips`].
/// Eight copies then often run not at all, and four once-run copies behind them take most
/// iterations out of the original loop; a loop running many iterations gains little from
/// those copies and pays their code and the registers their loads keep in flight.
fn few_iterations(c: &Counted) -> bool {
    c.max_trips.is_some_and(|t| t <= FEW_TRIPS)
}

/// Whether `c`'s bound is read from memory other than a constant buffer, directly or plus or
/// minus another value: a trip count that is per-work-item data (a CSR row's end, a
/// neighbour count, a node's edge range) varies from thread to thread and is usually short,
/// so the eight or sixteen copies often do not run and the original loop would take every
/// iteration. Such a loop is treated as one expected to run few iterations. A bound from a
/// constant buffer or literal is a problem size: long, and the same for every thread.
/// Measured on the bench pairs: shoc_spmv (rows of 4 to 28 nonzeros) 0.74x the modeled
/// cycles and 0.94x the executed instructions; no other pair changed.
fn loaded_bound(func: &Function, c: &Counted) -> bool {
    let loaded = |v: Value| {
        func.dfg.value_inst(v).is_some_and(|i| {
            matches!(&func.dfg.insts[i], InstructionData::Load { mem, .. }
                if !matches!(mem.space, MemSpace::Cb(_)))
        })
    };
    if loaded(c.bound) {
        return true;
    }
    let Some(i) = func.dfg.value_inst(c.bound) else {
        return false;
    };
    matches!(func.dfg.opcode(i), Opcode::Iadd | Opcode::Isub)
        && func.dfg.inst_args(i).iter().any(|&a| loaded(a))
}

/// The most iterations `c` can run by the value ranges of its start and bound, if they
/// bound it.
fn max_trips(func: &Function, c: &Counted, ranges: &crate::value_bound::Ranges) -> Option<u64> {
    let step = c.step?;
    let (init_lo, init_hi) = ranges.range(func, c.init, Some(c.pre));
    let (bound_lo, bound_hi) = ranges.range(func, c.bound, Some(c.pre));
    // Signed comparisons: only values known non-negative compare as their unsigned ranges.
    let sign = 1u64 << 31;
    if c.signed && [init_hi, bound_hi].iter().any(|&h| h >= sign) {
        return None;
    }
    let span = if c.descending {
        init_hi.saturating_sub(bound_lo)
    } else {
        bound_hi.saturating_sub(init_lo)
    };
    let trips = span.div_ceil(u64::from(step));
    (trips < 1 << 32).then_some(trips)
}

/// The block defining `v` (its instruction's or parameter's), if any.
fn def_block(func: &Function, v: Value) -> Option<Block> {
    match func.dfg.value_def(v) {
        crate::ir::ValueDef::Result(i, _) => func.layout.inst_block(i),
        crate::ir::ValueDef::Param(b, _) => Some(b),
        crate::ir::ValueDef::Detached => None,
    }
}

/// For a loop with exits from its body: the one block outside the loop that its blocks
/// branch to, if all of that block's predecessors are in the loop, and the values defined in
/// the loop that instructions outside it use (each dominates the exit block, so every exit
/// edge can pass it). `None` when the loop has other exits.
fn exit_values(
    func: &Function,
    cfg: &ControlFlowGraph,
    in_loop: &crate::FastHashSet<Block>,
) -> Option<(Block, Vec<Value>)> {
    let mut exit = None;
    for b in func.layout.blocks().filter(|b| in_loop.contains(b)) {
        for &s in cfg.succs(b).iter().filter(|s| !in_loop.contains(s)) {
            if exit.is_some_and(|e| e != s) {
                return None;
            }
            exit = Some(s);
        }
    }
    let e = exit?;
    if cfg.preds(e).iter().any(|p| !in_loop.contains(p)) {
        return None;
    }
    let mut vals = Vec::new();
    for b in func.layout.blocks().filter(|b| !in_loop.contains(b)) {
        for i in func.layout.block_insts(b) {
            for v in func.dfg.insts[i].all_values() {
                if !vals.contains(&v) && def_block(func, v).is_some_and(|d| in_loop.contains(&d)) {
                    vals.push(v);
                }
            }
        }
    }
    Some((e, vals))
}

/// Makes the values the loop's code after it uses parameters of its exit block, passed on
/// every exit edge (so each unrolled copy's exit passes its own).
fn pass_exit_values(func: &mut Function, c: &Counted, e: Block, vals: &[Value]) {
    if vals.is_empty() {
        return;
    }
    let params: Vec<Value> = vals
        .iter()
        .map(|&v| {
            let ty = func.dfg.value_type(v);
            func.dfg.append_block_param(e, ty)
        })
        .collect();
    let mut in_loop: Vec<Block> = c.body.clone();
    in_loop.push(c.header);
    let outside: Vec<Block> = func
        .layout
        .blocks()
        .filter(|b| !in_loop.contains(b))
        .collect();
    for b in outside {
        let insts: Vec<Inst> = func.layout.block_insts(b).collect();
        for i in insts {
            func.dfg.insts[i]
                .map_values(|x| vals.iter().position(|&v| v == x).map_or(x, |k| params[k]));
        }
    }
    for &b in &in_loop {
        let Some(last) = func.layout.last_inst(b) else {
            continue;
        };
        for d in func.dfg.insts[last].branch_destinations_mut() {
            if d.block == e {
                d.args.extend(vals.iter().copied());
            }
        }
    }
}

/// Registers `k` copies of the loop body keep for its `loads` while all are in flight: each
/// load's result, and its address: an address growing by a constant per iteration is one
/// register (or a 64-bit pair) that every copy reaches with an immediate offset; any other
/// needs one per copy.
fn load_registers(
    func: &Function,
    c: &crate::counted_loop::GuardedLoop,
    in_loop: &crate::FastHashSet<Block>,
    loads: &[(Inst, MemSpace)],
    k: usize,
) -> usize {
    let shape = crate::affine::LoopShape {
        header: c.header,
        pre: c.pre,
        latch: c.latch,
        first: Some(c.iv_value),
    };
    let ivs = crate::affine::induction_variables(func, &shape, in_loop)
        .iter()
        .map(|iv| (iv.param, iv.coef))
        .collect();
    let scope = crate::affine::Scope {
        func,
        members: in_loop.clone(),
        ivs,
    };
    let mut regs = 0;
    for &(inst, space) in loads {
        let data = &func.dfg.insts[inst];
        let words = match data {
            InstructionData::Load { mem, .. } => mem.size.words(),
            _ => 0,
        };
        // Buffers take 64-bit addresses; shared memory, constants and the stack 32-bit ones.
        let width = match space {
            MemSpace::Lds(_) | MemSpace::Cb(_) | MemSpace::Private(_) => 1,
            _ => 2,
        };
        let mut budget = 64;
        let shared = data.mem_addr().is_none_or(|a| {
            // Offsets of the last copy must fit an immediate (24 bits signed on SM50).
            matches!(scope.coef(a, &mut budget), Some(crate::affine::Coef::Const(g))
                if (g as i32).unsigned_abs() as usize * k < 1 << 22)
        });
        regs += k * words + if shared { width } else { k * width };
    }
    regs
}

/// The trip count of the loop headed by `h` when it is known and at most [`MAX_FULL_TRIPS`]
/// ([`crate::counted_loop::recognize_constant_trips`]).
pub fn constant_trips(
    func: &Function,
    cfg: &ControlFlowGraph,
    dt: &DominatorTree,
    loops: &LoopInfo,
    h: Block,
) -> Option<u32> {
    crate::counted_loop::recognize_constant_trips(func, cfg, dt, loops, h, MAX_FULL_TRIPS)
        .map(|(_, t)| t)
}

/// Puts a `k`-times unrolled copy of loop `c` in front of it; with `full` (`k` is the exact
/// trip count) the copies run once, straight through, and end in the original header, whose
/// test then exits. With `tail = Some(t)` the unrolled loop leaves through `t` copies that run
/// at most once, when `t` iterations remain, before the original loop finishes the rest.
/// With `direct` (a full unrolling whose last copy leaves directly: the uses of the header's
/// parameters, [`direct_exit_uses`]), returns the header parameters replaced after the loop
/// and their replacements.
fn apply(
    func: &mut Function,
    c: &Counted,
    k: u32,
    full: bool,
    tail: Option<u32>,
    direct: Option<Vec<Inst>>,
) -> Vec<(Value, Value)> {
    use crate::ir::FuncCursor;
    let pt = func
        .layout
        .last_inst(c.pre)
        .expect("candidate preheader ends in a jump");
    if let Some((e, vals)) = &c.exit_values {
        pass_exit_values(func, c, *e, vals);
    }
    // The header's constants move to the preheader (which dominates the header).
    for &i in &c.header_consts {
        func.layout.remove_inst(i);
        func.layout.insert_inst(i, pt);
    }
    let hparams: Vec<Value> = func.dfg.block_params(c.header).to_vec();
    if full {
        // The preheader enters the first copy, whose header parameters are its arguments
        // (constants fold through the copies at once). After the last copy the header's
        // test fails (`k` is the exact trip count): it leaves the way the header does, with
        // the header's parameters replaced by what the last copy passes, there and wherever
        // after the loop they are used (only the last copy leads there now), and the original
        // loop is unreachable. Where the header's test result is used beyond its branch, or
        // the exit is entered from elsewhere too (another loop's header, whose preheader
        // this header stays; a break's target), the last copy enters the header instead.
        let args: Vec<Value> = func.dfg.insts[pt]
            .branch_destinations()
            .iter()
            .find(|d| d.block == c.header)
            .map(|d| d.args.to_vec())
            .expect("the preheader enters the header");
        let (first_entry, last) = copies(func, c, &hparams, k, &args, c.header);
        let mut replaced = Vec::new();
        if let Some(users) = direct {
            let exit = header_exit(func, c);
            let passed = func.dfg.insts[last].branch_destinations()[0].args.to_vec();
            replaced.extend(hparams.iter().copied().zip(passed.iter().copied()));
            let subst = |v: Value| {
                hparams
                    .iter()
                    .position(|&p| p == v)
                    .map_or(v, |i| passed[i])
            };
            let exit_args: Vec<Value> = exit.args.iter().map(|&v| subst(v)).collect();
            func.dfg.insts[last] = InstructionData::Jump {
                opcode: Opcode::Jump,
                dests: [BlockCall::new(exit.block, &exit_args)],
            };
            for i in users {
                func.dfg.insts[i].map_values(subst);
            }
        }
        for d in func.dfg.insts[pt].branch_destinations_mut() {
            if d.block == c.header {
                *d = BlockCall::new(first_entry, &[]);
            }
        }
        return replaced;
    }
    // A block in front of the header with the header's parameter types.
    let new_header = |func: &mut Function| {
        let u = func.dfg.make_block();
        func.layout.insert_block(u, c.header);
        let params: Vec<Value> = hparams
            .iter()
            .map(|&p| {
                let ty = func.dfg.value_type(p);
                func.dfg.append_block_param(u, ty)
            })
            .collect();
        (u, params)
    };
    // The unrolled header.
    let (u, uparams) = new_header(func);
    // The preheader enters the unrolled loop with the same arguments.
    for d in func.dfg.insts[pt].branch_destinations_mut() {
        if d.block == c.header {
            d.block = u;
        }
    }
    let (first_entry, _) = copies(func, c, &hparams, k, &uparams, u);
    // The unrolled loop's exit: the tail copies, or the original loop. Behind `k` copies at
    // most `k - 1` iterations are left: more than twice the tail's `t` copies (sixteen
    // behind eight), the tail loops.
    let exit = tail.map(|t| {
        let (v, vparams) = new_header(func);
        let end = if k > 2 * t { v } else { c.header };
        let (first, _) = copies(func, c, &hparams, t, &vparams, end);
        let lim = limit(func, c, pt, t);
        let mut cur = FuncCursor::new(func).at_end(v);
        let go = cur.ins().icmp(more(c), vparams[c.iv], lim);
        cur.ins().brif(go, first, &[], c.header, &vparams);
        v
    });
    let lim = limit(func, c, pt, k);
    let mut cur = FuncCursor::new(func).at_end(u);
    // The unrolled header's test: another k iterations, or the way out.
    let go = cur.ins().icmp(more(c), uparams[c.iv], lim);
    cur.ins()
        .brif(go, first_entry, &[], exit.unwrap_or(c.header), &uparams);
    Vec::new()
}

/// `k` copies of `c`'s body chained one after the other, the first entered with the header
/// parameters `hparams` taking `params`, the last jumping to `end` with what its latch passes
/// on. Returns the first copy's entry block and the last copy's jump.
fn copies(
    func: &mut Function,
    c: &Counted,
    hparams: &[Value],
    k: u32,
    params: &[Value],
    end: Block,
) -> (Block, Inst) {
    let mut incoming = params.to_vec();
    let mut prev_latch: Option<Inst> = None;
    let mut first_entry = None;
    for j in 0..k {
        let mut map: HashMap<Value, Value> = HashMap::default();
        for (&p, &v) in hparams.iter().zip(&incoming) {
            map.insert(p, v);
        }
        let (blocks, insts) = crate::counted_loop::copy_blocks(func, &c.body, c.header, &mut map);
        let entry = blocks[&c.body_entry];
        if let Some(l) = prev_latch {
            func.dfg.insts[l] = InstructionData::Jump {
                opcode: Opcode::Jump,
                dests: [BlockCall::new(entry, &[])],
            };
        } else {
            first_entry = Some(entry);
        }
        let latch_inst = func.layout.last_inst(c.latch).map(|i| insts[&i]);
        let l = latch_inst.expect("the latch ends in the jump back to the header");
        // What this copy passes on: the latch's arguments, mapped.
        incoming = func.dfg.insts[l].branch_destinations()[0].args.to_vec();
        if j + 1 == k {
            func.dfg.insts[l] = InstructionData::Jump {
                opcode: Opcode::Jump,
                dests: [BlockCall::new(end, &incoming)],
            };
        }
        prev_latch = Some(l);
    }
    (
        first_entry.expect("k >= 1 copies"),
        prev_latch.expect("k >= 1 copies"),
    )
}

/// For each candidate whose last copy, fully unrolled, may leave directly
/// ([`Counted::exit_direct`]) and whose header's test result no instruction but the header's
/// branch reads: the instructions outside the loop that read its header parameters (one
/// scan of the function for all candidates). They are the uses the last copy's values
/// replace; a later loop's body among them is rewritten before it is copied.
fn direct_exit_uses(func: &Function, found: &[Counted]) -> HashMap<Block, Vec<Inst>> {
    let mut owner: HashMap<Value, usize> = HashMap::default();
    let mut tests: HashMap<Value, usize> = HashMap::default();
    let mut loop_of: HashMap<Block, usize> = HashMap::default();
    for (k, c) in found.iter().enumerate().filter(|(_, c)| c.exit_direct) {
        for &p in func.dfg.block_params(c.header) {
            owner.insert(p, k);
        }
        let test = func
            .layout
            .last_inst(c.header)
            .and_then(|t| match func.dfg.insts[t] {
                InstructionData::Brif { arg, .. } => Some(arg[0]),
                _ => None,
            });
        if let Some(v) = test {
            tests.insert(v, k);
        }
        loop_of.extend(c.body.iter().chain([&c.header]).map(|&b| (b, k)));
    }
    let mut users: Vec<Vec<Inst>> = vec![Vec::new(); found.len()];
    let mut blocked = vec![false; found.len()];
    if owner.is_empty() {
        return HashMap::default();
    }
    for b in func.layout.blocks() {
        for i in func.layout.block_insts(b) {
            let data = &func.dfg.insts[i];
            for v in data.all_values() {
                if let Some(&k) = tests.get(&v) {
                    blocked[k] |= !matches!(data, InstructionData::Brif { .. })
                        || func.layout.inst_block(i) != Some(found[k].header);
                }
                if let Some(&k) = owner.get(&v) {
                    if loop_of.get(&b) != Some(&k) && users[k].last() != Some(&i) {
                        users[k].push(i);
                    }
                }
            }
        }
    }
    found
        .iter()
        .zip(users)
        .zip(blocked)
        .filter(|((c, _), blocked)| c.exit_direct && !blocked)
        .map(|((c, u), _)| (c.header, u))
        .collect()
}

/// The header's edge out of the loop.
fn header_exit(func: &Function, c: &Counted) -> BlockCall {
    let t = func
        .layout
        .last_inst(c.header)
        .expect("the header ends in its test's branch");
    func.dfg.insts[t]
        .branch_destinations()
        .iter()
        .find(|d| d.block != c.body_entry)
        .cloned()
        .expect("the header's test leaves the loop")
}

/// The comparison `iv CC lim` under which the loop has iterations left: `<`, or `>` counting
/// down.
fn more(c: &Counted) -> IntCC {
    match (c.signed, c.descending) {
        (true, false) => IntCC::Slt,
        (false, false) => IntCC::Ult,
        (true, true) => IntCC::Sgt,
        (false, true) => IntCC::Ugt,
    }
}

/// `lim = n - (k-1)s`, or the type's minimum when that wraps (then no `k` iterations run),
/// computed before the preheader's jump `pt`: `iv < lim` means `k` more iterations run.
/// Counting down, `lim = n + (k-1)s` or the type's maximum, and `iv > lim`.
fn limit(func: &mut Function, c: &Counted, pt: Inst, k: u32) -> Value {
    use crate::ir::FuncCursor;
    let mut cur = FuncCursor::new(func).at_inst(pt);
    let step = c.step.expect("partial unrolling adds a constant step");
    let d = cur.ins().iconst(Type::B32, u64::from((k - 1) * step));
    let nd = if c.descending {
        cur.ins().iadd(c.bound, d)
    } else {
        cur.ins().isub(c.bound, d)
    };
    let ok = cur.ins().icmp(more(c), nd, c.bound);
    let end = match (c.signed, c.descending) {
        (true, false) => 0x8000_0000,
        (false, false) => 0,
        (true, true) => 0x7fff_ffff,
        (false, true) => 0xffff_ffff,
    };
    let end = cur.ins().iconst(Type::B32, end);
    cur.ins().select(ok, nd, end)
}

#[cfg(test)]
mod tests {
    use crate::interp::{run_dispatch, Dispatch, InterpOptions, Memory};
    use crate::ir::parse_function_text;

    /// `out[tid] = sum_{i = start; i < n; i += step} i`, with `n` and `start` from cb0.
    fn kernel(cmp: &str, step: u32) -> String {
        format!(
            "kernel %k {{
    group_size 1, 1, 1
    uav0 = raw
    cb0 = 16

block0:
    v0 = load.b32 cb0[0]
    v1 = load.b32 cb0[4]
    v2 = iconst.b32 0x0
    v3 = iconst.b32 {step:#x}
    jump block1(v1, v2)

block1(v10: b32, v11: b32):
    v12 = icmp {cmp} v10, v0
    brif v12, block3, block2

block2:
    v13 = iadd v11, v10
    v14 = iadd v10, v3
    jump block1(v14, v13)

block3:
    store.b32 uav0[v2], v11
    return
}}
"
        )
    }

    fn sum(text: &str, start: u32, n: u32) -> u32 {
        let f = parse_function_text(text).expect("parses");
        let mut mem = Memory::default();
        mem.uavs.insert(0, vec![0; 4]);
        // Words 3i + 1 for kernels that read a second buffer.
        let words: Vec<u8> = (0..64u32).flat_map(|i| (3 * i + 1).to_le_bytes()).collect();
        mem.uavs.insert(1, words);
        let mut cb = start.to_le_bytes().to_vec();
        cb.splice(0..0, n.to_le_bytes());
        cb.resize(16, 0);
        mem.cbs.insert(0, cb);
        let d = Dispatch {
            grid: [1, 1, 1],
            group_size: None,
        };
        let opts = InterpOptions {
            fuel: 1 << 20,
            ..InterpOptions::default()
        };
        run_dispatch(&f, &d, &mut mem, &opts).expect("runs");
        u32::from_le_bytes(mem.uavs[&0][..4].try_into().unwrap())
    }

    /// A fully unrolled loop's counter bounds the next loop, unrolled by 8: that loop's
    /// recorded bound follows the replacement (the first loop's header is gone), and its
    /// body's use of the counter is rewritten before it is copied.
    #[test]
    fn a_later_loop_bounded_by_a_fully_unrolled_counter() {
        let text = "kernel %k {
    group_size 1, 1, 1
    uav0 = raw
    cb0 = 16

block0:
    v0 = load.b32 cb0[4]
    v1 = iconst.b32 0x0
    v2 = iconst.b32 0x1
    v3 = iconst.b32 0x6
    jump block1(v1)

block1(v10: b32):
    v11 = icmp slt v10, v3
    brif v11, block2, block3

block2:
    store.b32 uav0[v1], v10
    v12 = iadd v10, v2
    jump block1(v12)

block3:
    jump block4(v0, v1)

block4(v20: b32, v21: b32):
    v22 = icmp ult v20, v10
    brif v22, block5, block6

block5:
    v23 = iadd v21, v20
    v24 = iadd v23, v10
    v25 = iadd v20, v2
    jump block4(v25, v24)

block6:
    store.b32 uav0[v1], v21
    return
}
";
        let mut f = parse_function_text(text).unwrap();
        crate::verifier::verify_function(&f).expect("test kernel verifies");
        assert_eq!(super::unroll(&mut f), 2);
        crate::verifier::verify_function(&f).expect("verifies");
        let unrolled = f.to_string();
        for start in [0u32, 1, 2, 5, 6, 7] {
            assert_eq!(
                sum(text, start, 0),
                sum(&unrolled, start, 0),
                "{start}\n{unrolled}"
            );
        }
    }

    /// Eight copies leave through four once-run copies only for a loop expected to run few
    /// iterations: one whose start and bound allow at most [`FEW_TRIPS`] iterations; a
    /// unit-stride loop to a loaded bound has none, and a loop striding by [`WIDE_STEP`] or
    /// more gets four copies instead of eight.
    #[test]
    fn once_run_copies_only_for_loops_expected_to_run_few_iterations() {
        let brifs = |text: &str| {
            let mut f = parse_function_text(text).unwrap();
            assert_eq!(super::unroll(&mut f), 1);
            crate::verifier::verify_function(&f).expect("verifies");
            f.to_string().matches("brif").count()
        };
        // The header's test, the eight copies' test, and the once-run copies' test.
        assert_eq!(brifs(&kernel("uge", 1)), 2, "unit stride, any bound");
        assert_eq!(
            brifs(&kernel("uge", super::WIDE_STEP - 1)),
            2,
            "below the wide stride"
        );
        // A wide stride: four copies (the limit n - 3 * 32), no once-run copies.
        assert_eq!(brifs(&kernel("uge", super::WIDE_STEP)), 2, "wide stride");
        let mut f = parse_function_text(&kernel("uge", super::WIDE_STEP)).unwrap();
        super::unroll(&mut f);
        let text = f.to_string();
        assert!(
            text.contains("iconst.b32 0x60") && !text.contains("iconst.b32 0xe0"),
            "{text}"
        );
        let masked = |cmp: &str| {
            kernel(cmp, 1).replace(
                "    v0 = load.b32 cb0[0]\n",
                "    v90 = load.b32 cb0[0]\n    v91 = iconst.b32 0xf\n    v0 = and v90, v91\n",
            )
        };
        assert_eq!(
            brifs(&masked("uge")),
            3,
            "unsigned, below 16: at most 15 trips"
        );
        assert_eq!(
            brifs(&masked("sge")),
            2,
            "signed from a loaded start: any trip count"
        );
        let from_zero = masked("sge").replace("    jump block1(v1, v2)", "    jump block1(v2, v2)");
        assert_eq!(
            brifs(&from_zero),
            3,
            "signed from 0, below 16: at most 15 trips"
        );
    }

    /// A bound read from a buffer (directly, or plus a constant-buffer value) makes a loop
    /// one expected to run few iterations: behind its sixteen copies, four more that loop
    /// (up to fifteen iterations are left); a bound from a constant buffer does not.
    #[test]
    fn a_bound_read_from_a_buffer_gets_four_more_copies() {
        let body = "    v30 = iconst.b32 0x2\n    v31 = ishl v10, v30\n    v32 = load.b32 uav1[v31]\n    v13 = iadd v11, v32\n";
        let base = kernel("sge", 1)
            .replace("    uav0 = raw\n", "    uav0 = raw\n    uav1 = raw\n")
            .replace("    v13 = iadd v11, v10\n", body);
        // Word 0 of uav1 is 1: the bound is n + 1.
        let plus = base.replace(
            "    v0 = load.b32 cb0[0]\n",
            "    v87 = load.b32 cb0[0]\n    v89 = iconst.b32 0x0\n    v88 = load.b32 uav1[v89]\n    v0 = iadd v87, v88\n",
        );
        let direct = base.replace(
            "    v0 = load.b32 cb0[0]\n",
            "    v89 = iconst.b32 0x8\n    v0 = load.b32 uav1[v89]\n",
        );
        let unrolled = |text: &str| {
            let mut f = parse_function_text(text).unwrap();
            crate::verifier::verify_function(&f).expect("test kernel verifies");
            assert_eq!(super::unroll(&mut f), 1);
            crate::verifier::verify_function(&f).expect("verifies");
            f.to_string()
        };
        // The header's test, the sixteen copies' test and the four copies' test.
        assert_eq!(unrolled(&base).matches("brif").count(), 2, "bound from cb0");
        assert_eq!(unrolled(&direct).matches("brif").count(), 3, "bound loaded");
        let out = unrolled(&plus);
        assert_eq!(
            out.matches("brif").count(),
            3,
            "bound loaded plus cb0\n{out}"
        );
        // The sixteen copies' test leaves to the four copies' header, which the last of the
        // four copies jumps back to.
        let first = out.lines().find(|l| l.contains("brif")).expect("a brif");
        let tail = first
            .split_whitespace()
            .nth(3)
            .and_then(|t| t.split('(').next());
        let tail = tail.expect("the brif's second destination");
        assert_eq!(out.matches(&format!("jump {tail}(")).count(), 1, "{out}");
        // Trip counts leaving 0..15 iterations behind the sixteen copies: the four copies
        // run up to three times.
        for (start, n) in [
            (0u32, 0u32),
            (0, 2),
            (0, 14),
            (0, 15),
            (0, 22),
            (0, 30),
            (3, 40),
            (5, 4),
            (0, 61),
        ] {
            assert_eq!(sum(&plus, start, n), sum(&out, start, n), "{start}..{n}");
        }
    }

    #[test]
    fn every_trip_count_and_bound_gives_the_same_sum() {
        for (cmp, step) in [
            ("sge", 1u32),
            ("sge", 3),
            ("uge", 1),
            ("uge", 5),
            // Wide strides: four copies.
            ("sge", super::WIDE_STEP),
            ("uge", 3 * super::WIDE_STEP / 2),
        ] {
            let text = kernel(cmp, step);
            let mut f = parse_function_text(&text).unwrap();
            assert_eq!(super::unroll(&mut f), 1, "{cmp} {step}");
            crate::verifier::verify_function(&f).expect("verifies");
            let unrolled = f.to_string();
            let near_max = [0x7fff_fff0u32, 0xffff_fff0, 0x8000_0000];
            for start in [0u32, 1, 2, 5, 0xffff_fffe, 0x7fff_fffd, 0x8000_0001] {
                // Bounds for 8, 9, 12 and 13 trips of a wide stride from 0 (the four copies
                // twice or three times, then none or some of the remainder).
                let wide = [8 * step, 9 * step, 12 * step, 12 * step + 1, 13 * step];
                for n in [0u32, 1, 2, 3, 4, 5, 7, 8, 9, 13, 0xffff_ffff, 0x8000_0002]
                    .into_iter()
                    .chain(near_max)
                    .chain(wide)
                {
                    // Trip counts above a few thousand (a wrapping induction variable
                    // included) would exhaust the fuel: skip them.
                    let (mut i, mut trips) = (start, 0);
                    while trips <= 4000
                        && if cmp == "sge" {
                            (i as i32) < (n as i32)
                        } else {
                            i < n
                        }
                    {
                        i = i.wrapping_add(step);
                        trips += 1;
                    }
                    if trips > 4000 {
                        continue;
                    }
                    assert_eq!(
                        sum(&text, start, n),
                        sum(&unrolled, start, n),
                        "{cmp} step {step} start {start:#x} n {n:#x}\n{unrolled}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_preheader_ending_in_a_conditional_branch() {
        let text = kernel("sge", 1).replace(
            "    jump block1(v1, v2)\n",
            "    v5 = icmp slt v1, v0\n    brif v5, block1(v1, v2), block9\n\nblock9:\n    return\n",
        );
        let mut f = parse_function_text(&text).unwrap();
        crate::verifier::verify_function(&f).expect("test kernel verifies");
        assert_eq!(super::unroll(&mut f), 1);
        crate::verifier::verify_function(&f).expect("verifies");
        let unrolled = f.to_string();
        for (start, n) in [
            (0, 0),
            (0, 1),
            (0, 7),
            (3, 12),
            (5, 4),
            (0x7fff_fffd, 0x7fff_ffff),
        ] {
            assert_eq!(
                sum(&text, start, n),
                sum(&unrolled, start, n),
                "{start} {n}"
            );
        }
    }

    /// Only innermost loops unroll: copies of an outer loop would each hold a copy of the
    /// inner loop, which would then run one iteration at a time.
    #[test]
    fn only_innermost_loops_unroll() {
        let text = "kernel %k {
    group_size 1, 1, 1
    uav0 = raw
    cb0 = 16

block0:
    v0 = load.b32 cb0[0]
    v1 = iconst.b32 0x0
    jump block1(v1, v1)

block1(v10: b32, v11: b32):
    v12 = icmp slt v10, v0
    brif v12, block2, block5

block2:
    jump block3(v1, v11)

block3(v20: b32, v21: b32):
    v22 = icmp slt v20, v0
    brif v22, block4, block6

block4:
    v23 = iadd v21, v20
    v24 = iconst.b32 0x1
    v25 = iadd v20, v24
    jump block3(v25, v23)

block6:
    v26 = iconst.b32 0x1
    v27 = iadd v10, v26
    jump block1(v27, v21)

block5:
    store.b32 uav0[v1], v11
    return
}
";
        let mut f = parse_function_text(text).unwrap();
        crate::verifier::verify_function(&f).expect("test kernel verifies");
        assert_eq!(super::unroll(&mut f), 1);
        crate::verifier::verify_function(&f).expect("verifies");
        let unrolled = f.to_string();
        for n in [0u32, 1, 3, 6, 9] {
            assert_eq!(sum(text, 0, n), sum(&unrolled, 0, n), "{n}\n{unrolled}");
        }
    }

    /// Constants in the header (where value numbering may leave a bound or a step) move to
    /// the preheader: the unrolled copy in front of the header uses them too.
    #[test]
    fn constants_in_the_header() {
        for n in [10u32, 1000] {
            let text = kernel("sge", 1)
                .replace("    v0 = load.b32 cb0[0]\n", "")
                .replace(
                    "    v12 = icmp sge v10, v0\n",
                    &format!("    v0 = iconst.b32 {n:#x}\n    v12 = icmp sge v10, v0\n"),
                );
            let mut f = parse_function_text(&text).unwrap();
            crate::verifier::verify_function(&f).expect("test kernel verifies");
            assert_eq!(super::unroll(&mut f), 1, "{n}");
            crate::verifier::verify_function(&f).expect("verifies");
            let unrolled = f.to_string();
            for start in [0u32, 1, 3, 9, 10, 11, 997, 0x7fff_fff0] {
                assert_eq!(
                    sum(&text, start, 0),
                    sum(&unrolled, start, 0),
                    "n {n} start {start}\n{unrolled}"
                );
            }
        }
    }

    #[test]
    fn constant_trip_counts_unroll_fully() {
        for (cmp, step, start, n) in [
            ("sge", 1u32, 0u32, 10u32),
            ("sge", 3, 1, 14),
            ("uge", 2, 0, 1),
            ("sge", 1, 5, 5),
        ] {
            let text = kernel(cmp, step)
                .replace("v0 = load.b32 cb0[0]", &format!("v0 = iconst.b32 {n:#x}"))
                .replace(
                    "v1 = load.b32 cb0[4]",
                    &format!("v1 = iconst.b32 {start:#x}"),
                );
            let mut f = parse_function_text(&text).unwrap();
            let before = f.layout.blocks().count();
            let done = super::unroll(&mut f);
            crate::verifier::verify_function(&f).expect("verifies");
            let unrolled = f.to_string();
            assert_eq!(
                sum(&text, 0, 0),
                sum(&unrolled, 0, 0),
                "{cmp} {step} {start} {n}\n{unrolled}"
            );
            if start < n {
                assert_eq!(done, 1);
                // One block per iteration, no unrolled test; the original loop is
                // unreachable and its exit follows the last copy.
                let trips = (n - start).div_ceil(step) as usize;
                assert_eq!(f.layout.blocks().count(), before + trips, "{unrolled}");
                crate::simplify_cfg::run(&mut f);
                assert_eq!(f.layout.blocks().count(), 1, "{f}");
            }
        }
    }

    #[test]
    fn loops_counting_down_unroll() {
        // `for (i = start; i != 0; i -= 1)`, `i >u n` and `i >s n` with steps 1 and 3: the
        // same sum for every start and bound, including wrapping starts and bounds near the
        // type's limits.
        for (cmp, step, bound) in [
            ("eq", 1u32, None),
            ("ule", 1, Some("cb0[0]")),
            ("sle", 3, Some("cb0[0]")),
        ] {
            let text = kernel(cmp, step)
                .replace(
                    "v12 = icmp eq v10, v0",
                    "v15 = iconst.b32 0x0\n    v12 = icmp eq v10, v15",
                )
                .replace(
                    "v14 = iadd v10, v3",
                    "v16 = ineg v3\n    v14 = iadd v10, v16",
                );
            let text = match bound {
                Some(_) => text,
                None => text.replace("icmp eq v10, v0", "icmp eq v10, v15"),
            };
            let mut f = parse_function_text(&text).unwrap();
            crate::verifier::verify_function(&f).expect("test kernel verifies");
            // The step is a constant only once `ineg` of a constant folds.
            crate::const_fold::run(&mut f);
            let folded = f.to_string();
            assert_eq!(super::unroll(&mut f), 1, "{cmp}\n{folded}");
            crate::verifier::verify_function(&f).expect("verifies");
            let unrolled = f.to_string();
            for start in [
                0u32,
                1,
                2,
                5,
                11,
                30,
                100,
                0x7fff_fffe,
                0x8000_0001,
                u32::MAX - 1,
            ] {
                for n in [0u32, 1, 4, 29, 0x7fff_fff0, 0x8000_0000, u32::MAX - 2] {
                    let trips = {
                        let (mut i, mut t) = (start, 0u64);
                        let go = |i: u32| match cmp {
                            "eq" => i != 0,
                            "ule" => i > n,
                            _ => (i as i32) > (n as i32),
                        };
                        while go(i) && t < 200 {
                            i = i.wrapping_sub(step);
                            t += 1;
                        }
                        t
                    };
                    if trips >= 200 {
                        continue;
                    }
                    assert_eq!(
                        sum(&folded, start, n),
                        sum(&unrolled, start, n),
                        "{cmp} {step} start {start} n {n}\n{unrolled}"
                    );
                }
            }
        }
    }

    /// A short body loading from a buffer gets sixteen copies (the limit `n - 15`): global
    /// loads' latency needs that many in flight; the same body reading shared memory gets
    /// eight (`n - 7`). Both compute the same sums.
    #[test]
    fn buffer_loads_unroll_sixteen_times_shared_memory_loads_eight() {
        for (space, decl, limit) in [
            ("uav1", "    uav1 = raw\n", 15u32),
            ("lds0", "    lds0 = 256\n", 7),
        ] {
            let body = format!(
                "    v30 = iconst.b32 0x2\n    v31 = ishl v10, v30\n    v32 = load.b32 {space}[v31]\n    v13 = iadd v11, v32\n"
            );
            let text = kernel("sge", 1)
                .replace("    uav0 = raw\n", &format!("    uav0 = raw\n{decl}"))
                .replace("    v13 = iadd v11, v10\n", &body);
            let mut f = parse_function_text(&text).unwrap();
            crate::verifier::verify_function(&f).expect("test kernel verifies");
            assert_eq!(super::unroll(&mut f), 1);
            crate::verifier::verify_function(&f).expect("verifies");
            let out = f.to_string();
            let want = format!("iconst.b32 {limit:#x}");
            assert!(
                out.contains(&want),
                "{space}: expected the limit n - {limit}\n{out}"
            );
            for (start, n) in [(0u32, 0u32), (0, 15), (0, 16), (3, 40), (5, 4)] {
                assert_eq!(
                    sum(&text, start, n),
                    sum(&out, start, n),
                    "{space} {start}..{n}"
                );
            }
        }
    }

    #[test]
    fn full_unrolling_keeps_to_the_load_register_budget() {
        // Eight trips of two 128-bit loads: 64 registers in flight over all copies (more
        // than MAX_LOAD_REGS_FULL), so the loop is unrolled partially; one such load fits.
        for (loads, full) in [(2, false), (1, true)] {
            let mut body = String::from("    v30 = iconst.b32 0x4\n    v31 = ishl v10, v30\n");
            body += "    v32, v33, v34, v35 = load.b128 align 16 uav1[v31]\n";
            body += "    v13 = iadd v11, v32\n";
            if loads == 2 {
                body += "    v36, v37, v38, v39 = load.b128 align 16 uav1[v31+256]\n";
                body += "    v40 = iadd v13, v39\n";
            } else {
                body += "    v40 = iadd v13, v10\n";
            }
            let text = kernel("sge", 1)
                .replace("v0 = load.b32 cb0[0]", "v0 = iconst.b32 0x8")
                .replace("v1 = load.b32 cb0[4]", "v1 = iconst.b32 0x0")
                .replace("    uav0 = raw\n", "    uav0 = raw\n    uav1 = raw\n")
                .replace("    v13 = iadd v11, v10\n", &body)
                .replace("jump block1(v14, v13)", "jump block1(v14, v40)");
            let mut f = parse_function_text(&text).unwrap();
            crate::verifier::verify_function(&f).expect("test kernel verifies");
            let before = f.layout.blocks().count();
            assert_eq!(super::unroll(&mut f), 1);
            crate::verifier::verify_function(&f).expect("verifies");
            let fully = f.layout.blocks().count() == before + 8;
            assert_eq!(fully, full, "{loads} loads\n{f}");
            // Left rolled, it gets fewer than eight copies: eight would run once.
            let copies = f.to_string().matches("load.b128").count() / loads - 1;
            assert!(fully || copies < 8, "{copies} copies\n{f}");
        }
    }

    /// Eight trips of a one-block body of a buffer load, two shared 128-bit loads and
    /// `filler` more instructions: unrolled fully while the copies stay within
    /// MAX_FULL_SIZE_STRAIGHT (over MAX_FULL_SIZE at 34: 8 x 45), whatever the shared loads
    /// hold in flight (64 registers over the copies: only buffer loads count).
    #[test]
    fn a_straight_body_unrolls_fully_up_to_its_size_limit() {
        for (filler, full) in [(34, true), (80, false)] {
            let mut body = String::from("    v30 = iconst.b32 0x2\n    v31 = ishl v10, v30\n");
            body += "    v32 = load.b32 uav1[v31]\n";
            body += "    v33, v34, v35, v36 = load.b128 align 16 lds0[v31]\n";
            body += "    v37, v38, v39, v40 = load.b128 align 16 lds0[v31+512]\n";
            body += "    v41 = iadd v11, v32\n    v42 = iadd v41, v36\n    v43 = iadd v42, v40\n";
            let mut last = 43;
            for k in 0..filler {
                let next = last + 1;
                body += &format!("    v{next} = xor v{last}, v{}\n", 33 + k % 8);
                last = next;
            }
            let text = kernel("sge", 1)
                .replace("v0 = load.b32 cb0[0]", "v0 = iconst.b32 0x8")
                .replace("v1 = load.b32 cb0[4]", "v1 = iconst.b32 0x0")
                .replace(
                    "    uav0 = raw\n",
                    "    uav0 = raw\n    uav1 = raw\n    lds0 = 1024\n",
                )
                .replace("    v13 = iadd v11, v10\n", &body)
                .replace(
                    "jump block1(v14, v13)",
                    &format!("jump block1(v14, v{last})"),
                );
            let mut f = parse_function_text(&text).unwrap();
            crate::verifier::verify_function(&f).expect("test kernel verifies");
            let before = f.layout.blocks().count();
            // Over the limit, the body is too large for partial copies too.
            let done = super::unroll(&mut f);
            crate::verifier::verify_function(&f).expect("verifies");
            let fully = done == 1 && f.layout.blocks().count() == before + 8;
            assert_eq!(fully, full, "{filler}\n{f}");
            assert_eq!(sum(&text, 0, 0), sum(&f.to_string(), 0, 0), "{filler}");
        }
    }

    /// Two column walks (`a[i * m]`, `b[i * m]`, a 64-bit address per copy each): eight
    /// copies hold 48 registers of loads, within [`MAX_LOAD_REGS_8`], so a loop to a loaded
    /// bound gets eight.
    #[test]
    fn two_column_walks_unroll_eight_times() {
        let body =
            "    v30 = imul v10, v5\n    v31 = iconst.b32 0x2\n    v32 = ishl v30, v31\n    \
                    v33 = load.b32 uav1[v32]\n    v34 = load.b32 uav2[v32]\n    \
                    v35 = iadd v33, v34\n    v13 = iadd v11, v35\n";
        let text = kernel("sge", 1)
            .replace(
                "    v1 = load.b32 cb0[4]\n",
                "    v1 = load.b32 cb0[4]\n    v5 = load.b32 cb0[8]\n",
            )
            .replace(
                "    uav0 = raw\n",
                "    uav0 = raw\n    uav1 = raw\n    uav2 = raw\n",
            )
            .replace("    v13 = iadd v11, v10\n", body);
        let mut f = parse_function_text(&text).unwrap();
        crate::verifier::verify_function(&f).expect("test kernel verifies");
        assert_eq!(super::unroll(&mut f), 1);
        crate::verifier::verify_function(&f).expect("verifies");
        let out = f.to_string();
        assert_eq!(out.matches("uav1[").count(), 8 + 1, "{out}");
        // Eight trips from constants: 48 registers is over MAX_LOAD_REGS_FULL, so it stays a
        // loop, and eight copies (one full unrolling in all but name) are refused: four.
        let eight = text
            .replace("v0 = load.b32 cb0[0]", "v0 = iconst.b32 0x8")
            .replace("v1 = load.b32 cb0[4]", "v1 = iconst.b32 0x0");
        let mut f = parse_function_text(&eight).unwrap();
        assert_eq!(super::unroll(&mut f), 1);
        crate::verifier::verify_function(&f).expect("verifies");
        let out = f.to_string();
        assert_eq!(out.matches("uav1[").count(), 4 + 1, "{out}");
    }

    #[test]
    fn loops_left_from_the_body_unroll() {
        // `for (i = start; i < n; i++) { if (sum > 64) break; sum += i; }`: the exit block
        // reads the sum (a header parameter), which each copy's exit now passes.
        let body = "block2:\n    v20 = iconst.b32 0x40\n    v21 = icmp ugt v11, v20\n    \
                    brif v21, block3, block4\n\nblock4:\n    v13 = iadd v11, v10";
        let text = kernel("sge", 1).replace("block2:\n    v13 = iadd v11, v10", body);
        let mut f = parse_function_text(&text).unwrap();
        crate::verifier::verify_function(&f).expect("test kernel verifies");
        assert_eq!(super::unroll(&mut f), 1);
        crate::verifier::verify_function(&f).expect("verifies");
        let unrolled = f.to_string();
        for start in [0u32, 1, 5, 60, 0x7fff_fffe, 0xffff_fff0] {
            for n in [0u32, 1, 3, 9, 17, 40, 100, 0x8000_0000] {
                assert_eq!(
                    sum(&text, start, n),
                    sum(&unrolled, start, n),
                    "start {start} n {n}\n{unrolled}"
                );
            }
        }
        // A break to another block than the header's exit stays.
        let other = kernel("sge", 1)
            .replace(
                "block2:\n    v13 = iadd v11, v10",
                &body.replace("block3, block4", "block5, block4"),
            )
            .replace(
                "    return\n}",
                "    return\n\nblock5:\n    store.b32 uav0[v2], v10\n    return\n}",
            );
        let mut f = parse_function_text(&other).unwrap();
        crate::verifier::verify_function(&f).expect("test kernel verifies");
        assert_eq!(super::unroll(&mut f), 0);
    }
}
