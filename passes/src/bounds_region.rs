//! Versioning of straight-line code on bounds checks: a run of a block holding several
//! checked memory accesses gets a copy in which those accesses are marked `inbounds`,
//! entered when one test in front of the run shows every one of them in range, through a
//! branch on `vote_all` of the test, so a warp never splits between the versions (it runs the
//! copy only when all of its threads pass).
//!
//! This is the straight-line counterpart of [`crate::bounds_version`], which versions loops.
//! The backend checks each word of a UAV, SRV or `g[]` access against its buffer's length
//! (known only at launch) and each indexed constant-buffer read it cannot prove in range:
//! a compare per word, a zeroing move per loaded word, and a vector access split into words
//! (so that a partly out-of-range vector behaves as the IR says). One compare per group of
//! accesses at one address (their offsets folded) proves them all.
//!
//! A run starts at a block's first checked access whose address is available there (defined
//! before it, or computed from such values by pure instructions, which move up in front of
//! it) and ends at the last such access before a barrier or a `quad_shuffle` (convergent
//! operations that must not sit in one version only). The block becomes (the `vote_all` even
//! where only a `return` follows the run and the versions never meet again: a warp split
//! between them would run one version's stores before the other's instead of in lockstep,
//! and two lanes storing to one address, cuda_convsep's output rows when its pitch is less
//! than a group's span, would leave the other lane's value)
//!
//! ```text
//! B:   ...; test := ...; v := vote_all test; brif v, R', R
//! R':  the run, chosen accesses marked inbounds; jump P(escaping copies)
//! P(e..): the rest of B (uses of the run's values read P's parameters)
//! R:   the run, unchanged (cold, laid out last); jump P(escaping values)
//! ```
//!
//! and `P` is searched again (for a run after a barrier). Blocks in loops are left to
//! [`crate::bounds_version`] (a test there would run every iteration). The test requires, per group of
//! accesses in one space at one address `a` with offsets from `lo` to the highest end `hi`
//! (`hi = max(offset + size)`): `a + lo >= 0` (a compare only for `lo < 0`) and `a + hi <=
//! len` in exact arithmetic: `t = a + (hi - 1)` in 32 bits, `t < len`, plus `t >= hi - 1`
//! (no wrap) unless `a`'s value range or alignment rules a wrap out; the `t`s of one space
//! fold by `umax` into one compare (slots adding one constant to several bases take the
//! bases' `umax` first, then one add). A clamped address `z >u m ? C : z << k` (`C >= 2^31`,
//! the lowering's exact `g[]` form) is bounded as `z << k` with `z <= m` added to the test,
//! and the copy addresses `z << k` without the select. A run is versioned only
//! when the checks it removes (an estimate of the backend's instructions: a compare per word
//! and a move per loaded word, and a split per vector) reach [`SAVED_OVER_TEST`] times the
//! test's and [`MIN_SAVED`] at least.
//!
//! A run also ends before an access whose address, computed in front of the run for the test,
//! would stay live across a stretch of the block where that raises the register pressure past
//! the function's peak before versioning (or the block's, if higher) by more than
//! [`PRESSURE_SLACK`], and past [`FREE_PRESSURE`]: the next run tests it nearer its use.
//! (parboil_lbm: 19 loads, then 19 stores to wrapped neighbour cells; one run kept the 19
//! store addresses live across the whole relaxation, 74 registers for ptxas's 56; three runs
//! take 56, 7% fewer modeled cycles, 3% fewer executed instructions.)
//!
//! Requires: a verified SSA function; meant to run after access combining (vectors are
//! visible) and after [`crate::bounds_version`] (whose unchecked loop copies have nothing
//! left to check; cold blocks are left alone). Guarantees: the same observable behaviour
//! for every buffer length and address (near 2^32 too); a verifier-clean function; an
//! access is marked `inbounds` only in a copy and only where the test proves it; a function
//! grows by at most [`MAX_GROWTH`] instructions.

use crate::bounds_version::{has_buflen, static_len, Conj};
use crate::counted_loop::copy_blocks;
use crate::ir::{
    Analyses, Block, FuncCursor, Function, Inst, InstructionData, IntCC, MemSpace, Opcode,
    SpecialReg, Type, Value,
};
use crate::regalloc::liveness::Liveness;
use crate::{FastHashMap as HashMap, FastHashSet as HashSet};

/// Most instructions versioning adds to one function.
pub const MAX_GROWTH: usize = 2048;
/// Longest run (instructions) that is copied.
pub const MAX_RUN: usize = 400;
/// Whether removing checks worth `saved` instructions pays for a test of `cost`: the saved
/// instructions must reach [`SAVED_OVER_TEST`] times the test. The copy doubles the run's
/// code, the branch drains the scoreboard, and both estimates are rough (a run whose checks
/// barely exceed its test, as `c[i] = a[i] + b[i]`'s, executes as many instructions either
/// way): versioning such runs doubled the code of short kernels for no executed work saved.
/// `saved` must also reach `min_saved` ([`MIN_SAVED`] in the pipeline).
fn pays(saved: i64, cost: i64, min_saved: i64) -> bool {
    let (num, den) = SAVED_OVER_TEST;
    saved >= min_saved && saved * den >= cost * num
}

/// The ratio (numerator, denominator) of saved check instructions to test instructions at
/// which a run is versioned.
pub const SAVED_OVER_TEST: (i64, i64) = (3, 2);
/// Fewest check instructions a versioned run must remove. The test, its vote and its
/// branch form one serial chain (an address sum, compares, VOTE, a predicate latency,
/// BRA) that a warp waits through before the run's first access, while the checks it
/// removes issue in parallel with the loads; and the copy doubles the run's code. A small
/// run (a stencil's five loads, `nn`'s nine checks) lost more modeled cycles to that chain
/// than it saved in issue slots; the runs that gain remove 30 and more (triad 40, conv2d
/// 31, sgemm 54, lbm 67). Measured on bench/kernels (modeled cycles / executed warp
/// instructions, geomean ratios to ptxas's): no minimum 0.910 / 1.041; 16: 0.905 / 1.059;
/// 24: 0.901 / 1.066; 32: 0.898 / 1.081; 48: 0.897 / 1.098. The test is a latency cost,
/// the checks an issue-slot cost: 32 is where the cycles stop falling.
pub const MIN_SAVED: i64 = 32;
/// Most instructions moved in front of a run to compute one access's address.
const MAX_EXPR: usize = 24;

/// Runs the pass.
pub fn run(func: &mut Function) {
    version(func);
}

/// Runs the pass with `func`'s cached analyses (left for the caller to revalidate).
pub fn run_with(func: &mut Function, analyses: &mut Analyses) {
    version_with(func, analyses, MIN_SAVED);
}

/// Versions every run worth it; returns how many were versioned.
pub fn version(func: &mut Function) -> usize {
    version_with(func, &mut Analyses::new(), MIN_SAVED)
}

/// As [`version`], reading the CFG, dominators and loops from `func`'s cached analyses,
/// with `min_saved` in place of [`MIN_SAVED`] (the filetests vary it).
fn version_with(func: &mut Function, analyses: &mut Analyses, min_saved: i64) -> usize {
    // No run can pay when all the function's checks together stay below the minimum: skip
    // the analyses (most of a small kernel's time in this pass).
    if most_saved(func) < min_saved.max(1) {
        return 0;
    }
    let mut work: Vec<Block> = func.layout.blocks().collect();
    work.reverse();
    let mut grown = 0;
    let mut count = 0;
    // Loops are left to `bounds_version`, which tests once in front of a loop: a test in a
    // loop body runs every iteration, and its serial chain (compares, vote, branch) costs
    // more cycles there than the parallel checks it removes. The blocks split off a block
    // outside loops stay outside.
    let (ranges, in_loop, lv) = {
        let (cfg, dt, loops) = analyses.loops(func);
        let in_loop: HashSet<Block> = func
            .layout
            .blocks()
            .filter(|&b| loops.loop_depth(b) > 0)
            .collect();
        let ranges = crate::value_bound::Ranges::with_analyses(func, cfg, dt, loops);
        let lv = Liveness::compute(func, cfg);
        (ranges, in_loop, lv)
    };
    // The function's register pressure before versioning: a run's addresses, computed in
    // front of it for the test, may raise a block's pressure up to it (registers the
    // function needs anyway), not beyond (`Pressure`).
    let peak = func
        .layout
        .blocks()
        .map(|b| {
            let w = |v: Value| width(func.dfg.value_type(v));
            crate::regalloc::liveness::block_pressure(func, &lv.live_out[b], b, w, |_, _| {})
        })
        .max()
        .unwrap_or(0);
    // The block whose live-out set a block split off by versioning has (the rest of a
    // block keeps its terminator).
    let mut origin: HashMap<Block, Block> = HashMap::default();
    while let Some(b) = work.pop() {
        crate::budget::tick();
        if func.dfg.is_cold(b) || in_loop.contains(&b) {
            continue;
        }
        let from = origin.get(&b).copied().unwrap_or(b);
        let live_out: &[Value] = lv.live_out.get(from).map_or(&[], |v| v.as_slice());
        let Some(run) = find_run(func, &ranges, b, live_out, (peak, min_saved)) else {
            continue;
        };
        if grown + run.len > MAX_GROWTH {
            break;
        }
        grown += run.len;
        let rest = apply(func, &ranges, b, &run);
        origin.insert(rest, from);
        count += 1;
        work.push(rest);
    }
    count
}

/// Runs the pass with the options of a filetest's `test bounds_region [min_saved=N]` line:
/// `N` in place of [`MIN_SAVED`] (0: any run whose checks pay for their test by
/// [`SAVED_OVER_TEST`]).
pub fn run_with_options(func: &mut Function, options: &[String]) -> Result<(), String> {
    let mut min_saved = MIN_SAVED;
    for o in options {
        let n = o
            .strip_prefix("min_saved=")
            .ok_or_else(|| format!("unknown option '{o}'"))?;
        min_saved = n.parse().map_err(|_| format!("bad min_saved '{n}'"))?;
    }
    version_with(func, &mut Analyses::new(), min_saved);
    Ok(())
}

/// An upper bound of the checks [`savings`] can count over all of `func`'s accesses: at most
/// six per word of every access this pass may prove (a compare, an alignment or end-offset
/// add, a wrap compare, a negative-offset compare and a move per loaded word, a split per
/// extra word of a vector, an address sum per access).
fn most_saved(func: &Function) -> i64 {
    let mut total = 0i64;
    for b in func.layout.blocks() {
        for i in func.layout.block_insts(b) {
            if let Some(m) = provable(func, &func.dfg.insts[i]) {
                total += 6 * i64::from(m.size.bytes().div_ceil(4));
            }
        }
    }
    total
}

/// A run to version.
struct Run {
    /// Pure instructions after the run's first access that compute chosen addresses: they
    /// move in front of it, in this (block) order.
    hoist: Vec<Inst>,
    /// The first and last instruction of the run.
    first: Inst,
    last: Inst,
    /// The accesses the copy marks `inbounds`.
    chosen: Vec<Inst>,
    /// Instructions in the run.
    len: usize,
}

/// The memory operand of `data` when it is a checked access to a launch-sized buffer or to a
/// space of static length (not at a constant negative address: never in range, nothing to
/// prove): the accesses [`checked`] looks at.
fn provable<'a>(func: &Function, data: &'a InstructionData) -> Option<&'a crate::ir::MemArg> {
    let m = data.mem_arg()?;
    let fixed_negative = data.mem_addr().is_none() && m.offset < 0;
    let sized = has_buflen(m.space) || static_len(func, m.space).is_some();
    (!m.inbounds && !fixed_negative && sized).then_some(m)
}

/// Whether a checked access in `space` is one this pass proves: launch-sized buffers, and
/// constant buffers read at addresses whose range does not already fit (the backend drops
/// those checks itself).
fn checked(func: &Function, ranges: &crate::value_bound::Ranges, inst: Inst, b: Block) -> bool {
    let data = &func.dfg.insts[inst];
    let Some(m) = provable(func, data) else {
        return false;
    };
    if has_buflen(m.space) {
        return true;
    }
    let (Some(len), Some(a)) = (static_len(func, m.space), data.mem_addr()) else {
        return false;
    };
    let (lo, hi) = ranges.range(func, a, Some(b));
    let (lo, hi) = (
        lo as i64 + i64::from(m.offset),
        hi as i64 + i64::from(m.offset),
    );
    !(lo >= 0 && hi + i64::from(m.size.bytes()) <= i64::from(len))
}

/// Whether `v` can be computed in front of `first` (in block `b`): defined there already, or
/// by pure instructions of `b` after it whose operands can; those are added to `hoist` (and
/// listed in `added`).
fn available(
    func: &Function,
    b: Block,
    first: Inst,
    v: Value,
    hoist: &mut HashSet<Inst>,
    added: &mut Vec<Inst>,
    budget: &mut usize,
) -> bool {
    let Some(def) = func.dfg.value_inst(v) else {
        return true; // a block parameter: of `b` or of a dominating block
    };
    if func.layout.inst_block(def) != Some(b)
        || func.layout.cmp_in_block(def, first) == std::cmp::Ordering::Less
        || hoist.contains(&def)
    {
        return true;
    }
    let data = &func.dfg.insts[def];
    if !crate::gvn::is_pure(data) || data.opcode() == Opcode::Load || *budget == 0 {
        return false;
    }
    *budget -= 1;
    let args: Vec<Value> = data.args().to_vec();
    for a in args {
        if !available(func, b, first, a, hoist, added, budget) {
            return false;
        }
    }
    hoist.insert(def);
    added.push(def);
    true
}

/// The first run of block `b` worth versioning.
fn find_run(
    func: &Function,
    ranges: &crate::value_bound::Ranges,
    b: Block,
    live_out: &[Value],
    (peak, min_saved): (u32, i64),
) -> Option<Run> {
    let insts: Vec<Inst> = func.layout.block_insts(b).collect();
    let (before, block_peak) = Pressure::profile(func, live_out, b);
    let limit = (peak.max(block_peak) + PRESSURE_SLACK).max(FREE_PRESSURE);
    let mut start = 0;
    while start < insts.len() {
        // The span: from the first checked access to a convergent operation (or the end).
        let first_pos = (start..insts.len()).find(|&k| checked(func, ranges, insts[k], b))?;
        let end_pos = (first_pos..insts.len())
            .find(|&k| is_fence(&func.dfg.insts[insts[k]]))
            .unwrap_or(insts.len());
        let pressure = Pressure {
            before: &before[first_pos..end_pos],
            limit,
        };
        if let Some(run) = choose(
            func,
            ranges,
            b,
            &insts[first_pos..end_pos],
            &pressure,
            min_saved,
        ) {
            return Some(run);
        }
        start = end_pos + 1;
    }
    None
}

/// General registers a run's addresses may add over the function's (or its block's) peak
/// pressure. The pressure is the IR's, before scheduling, and above the allocated count (lbm:
/// 64 against 48 registers with `--assume-in-bounds`). Measured on bench/kernels: 2 also cut
/// cuda_convsep's ten staging loads into two runs (+28% modeled cycles); 3 changes
/// parboil_lbm alone (56 registers); 4 gives it 58.
const PRESSURE_SLACK: u32 = 3;

/// Pressure up to which a run's addresses are never held back: the register count a
/// thread keeps full occupancy with (32 on SPA 5.0), where a register more costs nothing.
const FREE_PRESSURE: u32 = 32;

/// General registers a value of type `ty` takes (in 32-bit words).
fn width(ty: Type) -> u32 {
    match ty {
        Type::Pred => 0,
        t => t.bits() / 32,
    }
}

/// Register pressure of the span a run is chosen from.
struct Pressure<'a> {
    /// General registers live in front of each instruction of the span (and across it).
    before: &'a [u32],
    /// The most a run may raise it to: the function's peak (or the block's, if higher)
    /// plus [`PRESSURE_SLACK`].
    limit: u32,
}

impl Pressure<'_> {
    /// General registers live at each instruction of block `b` (the values it reads and
    /// those live across it, its results counted too) and the block's peak; `live_out`:
    /// the values live at its end.
    fn profile(func: &Function, live_out: &[Value], b: Block) -> (Vec<u32>, u32) {
        let mut at = vec![0; func.layout.block_insts(b).count()];
        let w = |v: Value| width(func.dfg.value_type(v));
        let peak =
            crate::regalloc::liveness::block_pressure(func, live_out, b, w, |k, n| at[k] = n);
        (at, peak)
    }
}

/// Barriers and cross-lane operations end a run; so does the block's terminator.
fn is_fence(data: &InstructionData) -> bool {
    matches!(data, InstructionData::Barrier { .. })
        || data.opcode() == Opcode::QuadShuffle
        || data.opcode().is_terminator()
}

/// The accesses of `span` (starting at a checked access) whose addresses are available at
/// its start, when versioning on them pays.
fn choose(
    func: &Function,
    ranges: &crate::value_bound::Ranges,
    b: Block,
    span: &[Inst],
    pressure: &Pressure,
    min_saved: i64,
) -> Option<Run> {
    let first = span[0];
    let mut hoist: HashSet<Inst> = HashSet::default();
    let mut chosen = Vec::new();
    // Registers the chosen addresses computed in front of the run add at each position of
    // the span: an address defined at span position `q` is live from the run's start on.
    let mut extra = vec![0u32; span.len()];
    let mut extended: HashSet<Value> = HashSet::default();
    let pos_of: HashMap<Inst, usize> = span.iter().enumerate().map(|(k, &i)| (i, k)).collect();
    for (k, &i) in span.iter().enumerate() {
        if !checked(func, ranges, i, b) {
            continue;
        }
        let data = &func.dfg.insts[i];
        // What a failed address expression added to `hoist` is taken back.
        let mut added = Vec::new();
        let mut budget = MAX_EXPR;
        let ok = fits(func, i)
            && match data.mem_addr() {
                Some(a) => available(func, b, first, a, &mut hoist, &mut added, &mut budget),
                None => true,
            };
        // The address, computed in front of the run, stays live until this access: past the
        // function's pressure, the run ends before it (the next run tests it near its use).
        let lengthens = match data.mem_addr() {
            Some(a) if ok && !chosen.is_empty() && !extended.contains(&a) => func
                .dfg
                .value_inst(a)
                .filter(|d| hoist.contains(d))
                .and_then(|d| pos_of.get(&d).copied())
                .map(|q| (a, q)),
            _ => None,
        };
        if let Some((a, q)) = lengthens {
            let w = width(func.dfg.value_type(a));
            let over = (0..q.min(k)).any(|p| pressure.before[p] + extra[p] + w > pressure.limit);
            if over {
                for d in added {
                    hoist.remove(&d);
                }
                break;
            }
            for e in &mut extra[..q] {
                *e += w;
            }
            extended.insert(a);
        }
        if ok {
            chosen.push(i);
        } else {
            for d in added {
                hoist.remove(&d);
            }
        }
    }
    let (&first_chosen, &last) = (chosen.first()?, chosen.last()?);
    let saved = savings(func, ranges, b, &chosen);
    let cost = test_cost(&slots(func, ranges, b, &chosen));
    if !pays(saved, cost, min_saved) {
        return None;
    }
    // The run: from the first chosen access to the last; hoisted instructions before it
    // leave it.
    let pos = |i: Inst| span.iter().position(|&x| x == i).expect("in the span");
    let (p0, p1) = (pos(first_chosen), pos(last));
    // Pure instructions of the run that do not depend on its loads move in front of it too:
    // both versions compute them, and their values would otherwise leave the run through
    // block parameters (moves and longer live ranges).
    let mut inside: HashSet<Value> = HashSet::default();
    for &i in &span[p0..=p1] {
        if hoist.contains(&i) {
            continue;
        }
        let data = &func.dfg.insts[i];
        let movable = crate::gvn::is_pure(data)
            && data.opcode() != Opcode::Load
            && !data.args().iter().any(|a| inside.contains(a));
        if movable {
            hoist.insert(i);
        } else {
            inside.extend(func.dfg.inst_results(i).iter().copied());
        }
    }
    let len = span[p0..=p1].iter().filter(|i| !hoist.contains(i)).count();
    if len > MAX_RUN {
        return None;
    }
    let mut hoist: Vec<Inst> = hoist.into_iter().collect();
    hoist.sort_by(|&x, &y| func.layout.cmp_in_block(x, y));
    // The hoisted instructions go in front of the first chosen access, so it starts the run.
    Some(Run {
        hoist,
        first: first_chosen,
        last,
        chosen,
        len,
    })
}

/// The backend instructions the checks of `chosen` cost: the sum of an address `x + c`
/// (folded away unchecked); per distinct word (accesses at one
/// address and offset share one check): the compare, the add forming the word's last byte
/// (for aligned words at the address itself, when a space has several, the backend compares
/// with the length rounded down instead: two instructions in all), a wrap-around compare where the add may wrap, a compare for a
/// negative offset; a zeroing move per loaded word; one instruction per word beyond the first
/// of a vector (split into words when checked).
fn savings(func: &Function, ranges: &crate::value_bound::Ranges, b: Block, chosen: &[Inst]) -> i64 {
    let mut words_seen: HashSet<(Option<Value>, MemSpace, i64)> = HashSet::default();
    let mut sums_seen: HashSet<Value> = HashSet::default();
    let mut aligned: HashMap<MemSpace, i64> = HashMap::default();
    let mut saved = 0i64;
    for &i in chosen {
        let data = &func.dfg.insts[i];
        let m = data.mem_arg().expect("chosen accesses are memory accesses");
        let bytes = i64::from(m.size.bytes());
        let words = (bytes + 3) / 4;
        let a = data.mem_addr();
        // An address `x + c`: unchecked, the backend folds `c` into the access's offset; the
        // check needs the sum.
        if let Some(a) = a {
            if base_of(func, a).1 != 0 && sums_seen.insert(a) {
                saved += 1;
            }
        }
        for k in 0..words {
            let off = i64::from(m.offset) + 4 * k;
            if !words_seen.insert((a, m.space, off)) {
                continue;
            }
            saved += 1;
            let Some(a) = a else { continue };
            let end = off + bytes.min(4);
            if off == 0 && crate::mem_combine::known_align(func, a, 6) >= 4 {
                *aligned.entry(m.space).or_insert(0) += 1;
            } else {
                saved += 1;
            }
            if !no_wrap(func, ranges, b, a, end) {
                saved += 1;
            }
            if off < 0 {
                saved += 1;
            }
        }
        if data.opcode() == Opcode::Load {
            saved += words;
        }
        saved += words - 1;
    }
    // Aligned words at their address itself: with at least MASKED of them in one space the
    // backend compares against the length rounded down (a mask constant and an `and`, once),
    // else each adds its last byte's offset.
    const MASKED: i64 = 3;
    for n in aligned.into_values() {
        saved += if n >= MASKED { 2 } else { n };
    }
    saved
}

/// Largest offset magnitude (and group extent) the test reasons about: far below 2^31, so
/// the wrap-around arguments of [`slots`] hold.
const MAX_OFFSET: i64 = 1 << 24;

/// The base and constant of an address: `iadd x, c` with `0 <= c <= MAX_OFFSET` is `x` plus
/// `c` (an exact sum once the test bounds `x + c` below the length: see [`slots`]).
fn base_of(func: &Function, a: Value) -> (Value, i64) {
    if let Some(i) = func.dfg.value_inst(a) {
        if let InstructionData::Binary {
            opcode: Opcode::Iadd,
            args,
        } = &func.dfg.insts[i]
        {
            for (x, c) in [(args[0], args[1]), (args[1], args[0])] {
                if let Some(c) = func.dfg.value_const(c) {
                    let c = i64::from(c as u32);
                    if c <= MAX_OFFSET {
                        return (x, c);
                    }
                }
            }
        }
    }
    (a, 0)
}

/// An unclamped address ([`unclamp`]): `y = z << shift`, exact where `z <= m`.
#[derive(Clone, Copy)]
struct Unclamped {
    y: Value,
    z: Value,
    m: u32,
    shift: u32,
}

/// The unclamped form when `a` is `select (z >u m), C, y` with `y = z << k` exact for every `z <= m`
/// and `C >= 2^31` (never below a length): the lowering's exact `g[]` and structured
/// addresses, `index > max ? 2^31 : index << 4`. Where `z <= m` holds, `a` is `y`: the test
/// bounds `y` and requires `z <= m`, and the unchecked copy addresses `y` directly.
fn unclamp(func: &Function, a: Value) -> Option<Unclamped> {
    let i = func.dfg.value_inst(a)?;
    let InstructionData::Ternary {
        opcode: Opcode::Select,
        args: [c, t, y],
    } = func.dfg.insts[i]
    else {
        return None;
    };
    if func.dfg.value_const(t)? as u32 >= 1 << 31 {
        let (z, m) = crate::value_bound::guarded_max(func, c)?;
        let m = m as u32;
        let yi = func.dfg.value_inst(y)?;
        let InstructionData::Binary {
            opcode: Opcode::Ishl,
            args: [x, sh],
        } = func.dfg.insts[yi]
        else {
            return None;
        };
        let sh = func.dfg.value_const(sh)? as u32;
        if x == z && sh < 32 && (u64::from(m) << sh) <= u64::from(u32::MAX) {
            return Some(Unclamped { y, z, m, shift: sh });
        }
    }
    None
}

/// A value the test requires below a space's length: `base + add` in 32 bits (`add` alone
/// for a constant address).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct Slot {
    space: MemSpace,
    base: Option<Value>,
    add: i64,
}

/// What the test bounds: per group of accesses in one space at one base (`x`, or `x + c`
/// folded into the offsets) spanning bytes `[x + lo, x + hi)`, with every slot below the
/// length `len < 2^31`:
/// - `x + (hi - 1)`, the last byte;
/// - `lo < 0`: `x + lo`, which wraps to at least `2^32 - MAX_OFFSET` when `x + lo < 0`, so
///   it is below `len` only if the group starts in the buffer; then `x < 2^31 + MAX_OFFSET`
///   and `x + (hi - 1)` cannot have wrapped;
/// - `lo >= 0` and `x + (hi - 1)` possibly wrapping: `x` itself (below `len`, `x + (hi - 1)`
///   cannot wrap either). A folded `x + c` is then exact too, so every access's address is
///   what the slots bound.
fn slots(
    func: &Function,
    ranges: &crate::value_bound::Ranges,
    b: Block,
    chosen: &[Inst],
) -> Vec<Slot> {
    // (space, base) -> (lo, hi).
    let mut groups: Vec<(MemSpace, Option<Value>, i64, i64)> = Vec::new();
    for &i in chosen {
        let data = &func.dfg.insts[i];
        let m = data.mem_arg().expect("chosen accesses are memory accesses");
        let (base, c) = match data.mem_addr() {
            Some(a) => {
                let (x, c) = base_of(func, a);
                (Some(unclamp(func, x).map_or(x, |u| u.y)), c)
            }
            None => (None, 0),
        };
        let lo = i64::from(m.offset) + c;
        let hi = lo + i64::from(m.size.bytes());
        match groups.iter_mut().find(|g| g.0 == m.space && g.1 == base) {
            Some(g) => {
                g.2 = g.2.min(lo);
                g.3 = g.3.max(hi);
            }
            None => groups.push((m.space, base, lo, hi)),
        }
    }
    let mut out: Vec<Slot> = Vec::new();
    let mut push = |s: Slot| {
        if !out.contains(&s) {
            out.push(s);
        }
    };
    for (space, base, lo, hi) in groups {
        let Some(x) = base else {
            push(Slot {
                space,
                base: None,
                add: hi - 1,
            });
            continue;
        };
        if lo < 0 {
            push(Slot {
                space,
                base,
                add: lo,
            });
        } else if !no_wrap(func, ranges, b, x, hi) {
            push(Slot {
                space,
                base,
                add: 0,
            });
        }
        push(Slot {
            space,
            base,
            add: hi - 1,
        });
    }
    out
}

/// Whether access `i`'s offset fits the test's arithmetic ([`MAX_OFFSET`]).
fn fits(func: &Function, i: Inst) -> bool {
    let data = &func.dfg.insts[i];
    data.mem_arg()
        .is_some_and(|m| i64::from(m.offset).abs() <= MAX_OFFSET / 2)
}

/// Whether `t = a + (hi - 1)` cannot wrap: `a`'s range, or its alignment (an `A`-aligned `a`
/// is at most `2^32 - A`).
fn no_wrap(
    func: &Function,
    ranges: &crate::value_bound::Ranges,
    b: Block,
    a: Value,
    hi: i64,
) -> bool {
    let last = (hi - 1).max(0) as u64;
    ranges.range(func, a, Some(b)).1 + last <= u64::from(u32::MAX)
        || u64::from(crate::mem_combine::known_align(func, a, 6)) > last
}

/// The test's compares: spaces whose slots are the same (one index into several buffers)
/// share one, against the `umin` of their lengths (computed while the index is, so the chain
/// after it is one compare, the vote and the branch). Each entry: the slots (base, add) and
/// the spaces.
type Compare = (Vec<SlotSum>, Vec<MemSpace>);

/// A slot's value: its base (None for a constant address) plus a constant.
type SlotSum = (Option<Value>, i64);

fn compares(slots: &[Slot]) -> Vec<Compare> {
    let mut per_space: Vec<(MemSpace, Vec<SlotSum>)> = Vec::new();
    for s in slots {
        match per_space.iter_mut().find(|(sp, _)| *sp == s.space) {
            Some((_, v)) => v.push((s.base, s.add)),
            None => per_space.push((s.space, vec![(s.base, s.add)])),
        }
    }
    let mut out: Vec<Compare> = Vec::new();
    for (space, mut v) in per_space {
        v.sort_by_key(|&(b, a)| (b.map(|x| x.as_u32()), a));
        match out.iter_mut().find(|(w, _)| *w == v) {
            Some((_, spaces)) => spaces.push(space),
            None => out.push((v, vec![space])),
        }
    }
    out
}

/// The test's instructions as the backend emits them: an add per distinct nonzero constant
/// of a compare's slots, per compare a `umax` per further slot, the lengths' move and `umin`s, the compare; then the
/// vote and the branch.
fn test_cost(slots: &[Slot]) -> i64 {
    // One add per constant per compare (the bases' `umax` first).
    let adds: HashSet<(Vec<MemSpace>, i64)> = compares(slots)
        .into_iter()
        .flat_map(|(v, spaces)| {
            v.into_iter()
                .filter(|&(b, a)| a != 0 && b.is_some())
                .map(move |(_, a)| (spaces.clone(), a))
        })
        .collect();
    let mut cost = 2 + adds.len() as i64;
    for (v, spaces) in compares(slots) {
        cost += v.len() as i64; // the umaxes and the compare
        if spaces.len() > 1 {
            cost += spaces.len() as i64;
        }
    }
    cost
}

/// Versions `run` of block `b`; returns the block holding the rest of `b`.
fn apply(func: &mut Function, ranges: &crate::value_bound::Ranges, b: Block, run: &Run) -> Block {
    for &i in &run.hoist {
        func.layout.remove_inst(i);
        func.layout.insert_inst(i, run.first);
    }
    // Split: the run moves to R, what follows it to P.
    let r = func.dfg.make_block();
    let p = func.dfg.make_block();
    func.layout.insert_block_after(p, b);
    func.layout.append_block(r);
    let mut cur_inst = Some(run.first);
    let mut in_run = true;
    while let Some(i) = cur_inst {
        cur_inst = func.layout.next_inst(i);
        func.layout.remove_inst(i);
        func.layout.append_inst(i, if in_run { r } else { p });
        if i == run.last {
            in_run = false;
        }
    }
    // Values of the run used elsewhere come through P's parameters.
    let mut defined: Vec<Value> = Vec::new();
    for i in func.layout.block_insts(r) {
        defined.extend_from_slice(func.dfg.inst_results(i));
    }
    let defined_set: HashSet<Value> = defined.iter().copied().collect();
    let mut used_outside: HashSet<Value> = HashSet::default();
    for blk in func.layout.blocks() {
        if blk == r {
            continue;
        }
        for i in func.layout.block_insts(blk) {
            let data = &func.dfg.insts[i];
            used_outside.extend(data.args().iter().filter(|v| defined_set.contains(v)));
            for d in data.branch_destinations() {
                used_outside.extend(d.args.iter().filter(|v| defined_set.contains(v)));
            }
        }
    }
    let escaping: Vec<Value> = defined
        .into_iter()
        .filter(|v| used_outside.contains(v))
        .collect();
    let params: Vec<Value> = escaping
        .iter()
        .map(|&v| {
            let ty = func.dfg.value_type(v);
            func.dfg.append_block_param(p, ty)
        })
        .collect();
    let rename: HashMap<Value, Value> = escaping
        .iter()
        .copied()
        .zip(params.iter().copied())
        .collect();
    let others: Vec<Block> = func.layout.blocks().filter(|&x| x != r).collect();
    for blk in others {
        let insts: Vec<Inst> = func.layout.block_insts(blk).collect();
        for i in insts {
            func.dfg.insts[i].map_values(|v| rename.get(&v).copied().unwrap_or(v));
        }
    }
    let mut cur = FuncCursor::new(func).at_end(r);
    cur.ins().jump(p, &escaping);
    // The copy, between B and P, with the chosen accesses marked.
    let mut map: HashMap<Value, Value> = HashMap::default();
    let (block_map, inst_map) = copy_blocks(func, &[r], p, &mut map);
    let copy = block_map[&r];
    for &i in &run.chosen {
        let ni = inst_map[&i];
        // A clamped address is its unclamped form where the test passed ([`unclamp`]).
        let unclamped = func.dfg.insts[ni]
            .mem_addr()
            .and_then(|a| unclamp(func, a))
            .map(|u| u.y);
        if let InstructionData::Load { mem, args, .. }
        | InstructionData::Store { mem, args, .. }
        | InstructionData::Atomic { mem, args, .. } = &mut func.dfg.insts[ni]
        {
            mem.inbounds = true;
            if let Some(y) = unclamped {
                args[0] = y;
            }
        }
    }
    func.dfg.set_cold(r, true);
    // The test at the end of B: per compare (module doc), the slots' `umax` below the
    // lengths' `umin` (a `umax` tree ([`umax_tree`]) is shorter than a chain of compares,
    // each waiting for the previous predicate).
    let mut slots = slots(func, ranges, b, &run.chosen);
    // The unclamped bases' indices must be in their windows ([`unclamp`]). Bases with one
    // shift share a guard: `umax(z) <= min(m)`, and `umax(z) << k` is the `umax` of the
    // bases `z << k` (no wrap below `m << k`), one shift where each base had its own.
    let mut by_shift: Vec<(u32, Vec<Unclamped>)> = Vec::new();
    for &i in &run.chosen {
        if let Some(u) = func.dfg.insts[i]
            .mem_addr()
            .and_then(|a| unclamp(func, base_of(func, a).0))
        {
            match by_shift.iter_mut().find(|(k, _)| *k == u.shift) {
                Some((_, us)) if us.iter().any(|w| w.z == u.z) => {}
                Some((_, us)) => us.push(u),
                None => by_shift.push((u.shift, vec![u])),
            }
        }
    }
    let mut all = Conj::default();
    let mut cur = FuncCursor::new(func).at_end(b);
    for (k, us) in by_shift {
        let zs: Vec<Value> = us.iter().map(|u| u.z).collect();
        let z = umax_tree(&mut cur, &zs);
        let lim = us.iter().map(|u| u.m).min().expect("a group has a member");
        let lim = cur.ins().iconst(Type::B32, u64::from(lim));
        all.and(IntCC::Ule, z, lim);
        if us.len() > 1 {
            let k = cur.ins().iconst(Type::B32, u64::from(k));
            let y = cur.ins().ishl(z, k);
            // Each slot on one of these bases now tests the largest: a test no weaker.
            for s in &mut slots {
                if us.iter().any(|u| Some(u.y) == s.base) {
                    s.base = Some(y);
                }
            }
        }
    }
    let mut seen: Vec<Slot> = Vec::new();
    slots.retain(|s| {
        let new = !seen.contains(s);
        if new {
            seen.push(*s);
        }
        new
    });
    for (v, spaces) in compares(&slots) {
        let mut tops: Vec<Value> = Vec::new();
        // Slots adding one constant to several bases: the `umax` of the bases, then one add.
        // Where a base plus the constant could wrap, its own slot `base + 0` is in the same
        // compare (see [`slots`]) and fails it, so the shared sum cannot admit a wrap.
        let mut by_add: Vec<(i64, Vec<Value>)> = Vec::new();
        for (base, add) in v {
            let x = match base {
                Some(x) if add == 0 => x,
                Some(x) => {
                    match by_add.iter_mut().find(|(a, _)| *a == add) {
                        Some((_, xs)) => xs.push(x),
                        None => by_add.push((add, vec![x])),
                    }
                    continue;
                }
                None => cur.ins().iconst(Type::B32, u64::from(add as i32 as u32)),
            };
            tops.push(x);
        }
        for (add, xs) in by_add {
            let top = umax_tree(&mut cur, &xs);
            let k = cur.ins().iconst(Type::B32, u64::from(add as i32 as u32));
            tops.push(cur.ins().iadd(top, k));
        }
        let m = (!tops.is_empty()).then(|| umax_tree(&mut cur, &tops));
        let mut len: Option<Value> = None;
        for space in spaces {
            let l = match static_len(cur.func, space) {
                Some(n) => cur.ins().iconst(Type::B32, u64::from(n)),
                None => cur.ins().special(SpecialReg::BufLen(space)),
            };
            len = Some(match len {
                Some(len) => cur.ins().umin(len, l),
                None => l,
            });
        }
        let (Some(m), Some(len)) = (m, len) else {
            continue;
        };
        all.and(IntCC::Ult, m, len);
    }
    let test = all
        .finish(&mut cur, false)
        .expect("a run has at least one access");
    let branch = cur.ins().vote_all(test);
    cur.ins().brif(branch, copy, &[], r, &[]);
    p
}

/// The unsigned maximum of `xs` (not empty) as a balanced tree of `umax`: its depth, the
/// time the versioning test waits for it, grows with log2 of the number of values, not with
/// the number (a chain of 38 waits 38 ALU latencies one after the other).
fn umax_tree(cur: &mut FuncCursor, xs: &[Value]) -> Value {
    let mut level: Vec<Value> = xs.to_vec();
    while level.len() > 1 {
        level = level
            .chunks(2)
            .map(|c| match *c {
                [a, b] => cur.ins().umax(a, b),
                _ => c[0],
            })
            .collect();
    }
    level[0]
}
