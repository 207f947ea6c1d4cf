//! The SPA 5.0 (Maxwell) backend: IR -> cubin.
//!
//! [`compile`] runs, in order: the launch layout ([`abi`]), instruction selection ([`isel`], one
//! file per opcode family) into `Target` instructions described by the per-function template table
//! ([`target`]), the generic list scheduler and SSA register allocator of `ilc_passes`
//! (driven by [`target::Spa5Target`]), emission with reconvergence ([`emit`]), three local
//! rewrites of the emitted code ([`advance_first`], [`rename`], [`gap_fill`]), control words
//! ([`deps`]), encoding and the cubin.
//!
//! Every failure is a [`Spa5Error`] naming what is unsupported; nothing here panics on a
//! verified function.

pub mod abi;
pub mod advance_first;
pub mod deps;
pub mod emit;
pub mod exits;
pub mod gap_fill;
pub mod isel;
pub mod listing;
pub mod rename;
pub mod target;

use crate::pipeline::{Dump, DumpPoint, DumpPoint::After, DumpPoint::Before};
use ilc_passes::ir::Function;
use ilc_passes::regalloc::{RegAllocError, RegAllocOptions};
use ilc_passes::schedule::ScheduleOptions;
use isa_spa5::cubin::{scan_instr_offsets, CubinError, Kernel, Sm};
use isa_spa5::inst::Operand;
use isa_spa5::{Control, Inst as MInst};
use std::time::{Duration, Instant};

pub use abi::{LaunchLayout, LaunchParam, LayoutError, ParamKind};
pub use emit::EmitError;
pub use isel::IselError;

/// Instructions with their controls.
pub type Placed = Vec<(MInst, Control)>;

/// Backend options.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spa5Options {
    /// Target architecture.
    pub sm: Sm,
    /// Skip the UAV/LDS/private bounds checks (the driver guarantees in-range accesses).
    pub assume_in_bounds: bool,
    /// Debug mode: every instruction waits on everything with the longest stall.
    pub serial: bool,
    /// GPRs the allocator may use (at most 254).
    pub max_regs: u32,
    /// Rotate loops on the selected code (`ilc_passes::loop_rotate`) and pipeline the loads of
    /// single-block loops (`ilc_passes::load_pipeline`) before scheduling.
    pub rotate_loops: bool,
    /// Run the list scheduler before allocation.
    pub schedule: bool,
    /// Step shared/local address registers before their access ([`advance_first`]).
    pub advance_first: bool,
    /// Give values written while a load or store still reads their register another
    /// register ([`rename`]).
    pub rename: bool,
    /// Fill fixed-latency gaps of the emitted code ([`gap_fill`]).
    pub gap_fill: bool,
    /// Read constants that no immediate holds from a literal pool in constant bank 2.
    pub literal_pool: bool,
    /// Backend stages (`isel`, `schedule`, `regalloc`, or `all`) after which to dump the IR,
    /// machine instructions shown in SPA syntax (see [`target::Spa5Target::describe`]).
    pub dump_after: Vec<String>,
    /// Backend stages before which to dump the IR.
    pub dump_before: Vec<String>,
}

/// The backend stages `dump_after` may name.
pub const DUMP_STAGES: &[&str] = &["isel", "loop_rotate", "schedule", "regalloc"];

impl Default for Spa5Options {
    fn default() -> Self {
        Spa5Options {
            sm: Sm::Sm50,
            assume_in_bounds: false,
            serial: false,
            max_regs: 254,
            rotate_loops: true,
            schedule: true,
            advance_first: true,
            rename: true,
            gap_fill: true,
            literal_pool: true,
            dump_after: Vec::new(),
            dump_before: Vec::new(),
        }
    }
}

/// Everything the backend produces for one kernel.
#[derive(Clone, Debug)]
pub struct Spa5Output {
    /// The cubin file.
    pub cubin: Vec<u8>,
    /// The code words (a control word before every three instructions).
    pub code: Vec<u64>,
    /// Constant bank 2 (the literal pool), little-endian words; empty if unused.
    pub const_bank2: Vec<u8>,
    /// The instructions with their controls, in order (padding included).
    pub insts: Vec<(MInst, Control)>,
    /// The launch layout.
    pub layout: LaunchLayout,
    /// Registers per thread.
    pub num_regs: u32,
    /// Local memory per thread (private arrays + spills).
    pub local_size: u32,
    /// SSY regions emitted / divergent branches left without reconvergence.
    pub ssy_regions: usize,
    /// Divergent branches left without reconvergence.
    pub unreconverged: usize,
    /// The dumps [`Spa5Options::dump_before`] and [`Spa5Options::dump_after`] ask for, in
    /// order.
    pub dumps: Vec<crate::pipeline::Dump>,
    /// `(stage, time spent)` for every backend stage in run order (see [`TIMED_STAGES`]).
    pub times: Vec<(&'static str, Duration)>,
}

/// The backend stages [`Spa5Output::times`] reports, in run order: the launch layout and
/// instruction selection, list scheduling, register allocation, emission (block layout,
/// reconvergence, branch resolution), control words, encoding and the cubin writer.
pub const TIMED_STAGES: &[&str] = &[
    "isel",
    "schedule",
    "regalloc",
    "emit",
    "control words",
    "encode",
    "cubin",
];

/// Times the stages of one backend run.
struct Timer {
    last: Instant,
    times: Vec<(&'static str, Duration)>,
}

impl Timer {
    fn new() -> Timer {
        Timer {
            last: Instant::now(),
            times: Vec::with_capacity(TIMED_STAGES.len()),
        }
    }

    /// Records the time since the previous stage ended as `stage`'s.
    fn stage(&mut self, stage: &'static str) {
        let now = Instant::now();
        self.times.push((stage, now - self.last));
        self.last = now;
    }
}

/// Backend failures.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Spa5Error {
    /// Resource layout.
    #[error(transparent)]
    Layout(#[from] LayoutError),
    /// Instruction selection.
    #[error(transparent)]
    Isel(#[from] IselError),
    /// Register allocation, with the source statement of the instruction or value it is
    /// about when known.
    #[error("register allocation: {0}")]
    RegAlloc(RegAllocError, Option<ilc_passes::ir::SourcePos>),
    /// Emission.
    #[error(transparent)]
    Emit(#[from] EmitError),
    /// The selected code does not verify after selection or loop rotation (a backend bug,
    /// reported as an error; checked in debug and test builds).
    #[error("selected IR does not verify: {0}")]
    Verify(String),
    /// Encoding of one instruction failed.
    #[error("encoding `{inst}`: {message}")]
    Encode {
        /// The instruction.
        inst: String,
        /// Why.
        message: String,
    },
    /// Branch offset out of range.
    #[error("branch offset out of range")]
    BranchRange,
    /// The cubin writer refused the kernel.
    #[error("cubin: {0}")]
    Cubin(#[from] CubinError),
}

/// General registers the list scheduler may keep live while reordering for latency. Up to
/// 32 registers per thread a Maxwell SM still runs its full 64 warps, so this costs no
/// occupancy. Measured on executed code (modeled cycles, geomean over ten loop-heavy pairs of
/// bench/kernels vs ptxas): 16 -> 3.71x cycles, 0.50x registers; 32 -> 3.50x, 0.55x (Rodinia
/// kmeans 3.3x -> 1.3x: its loads no longer wait one by one under the pressure fallback).
/// Straight-line code gets 12: at 16, poly_fdtd2d, rodinia_srad and poly_conv2d used 3 to 6
/// registers more than ptxas (the target is at most 2), for 1.5% of modeled cycles.
pub const SCHEDULE_GPR_BUDGET: u32 = 12;
/// [`SCHEDULE_GPR_BUDGET`] inside loops, where latency hidden pays on every iteration: 32,
/// Maxwell's full-occupancy limit. It was 36 while unrolled loops carried four once-run
/// copies and loop strength reduction kept more address variables live: at 32 the pressure
/// fallback then issued poly_covar's and parboil_sgemm's loads one wait at a time. With the
/// copies only on loops expected to run few iterations, 32 costs no geomean cycles (0.9628
/// -> 0.9630 of ptxas's; matmul aib 1.045x, sgemm 1.012x, kmeans aib 0.937x of before) and
/// takes cuda_convsep from 36 to 32 registers (ptxas 30), matmul aib and rodinia_kmeans aib
/// from 36 to 34 (ptxas 32), parboil_sgemm from 44 to 36.
pub const SCHEDULE_LOOP_GPR_BUDGET: u32 = 32;
/// Instructions from which a straight-line block is scheduled within
/// [`SCHEDULE_LOOP_GPR_BUDGET`] ([`ScheduleOptions::large_block`]): a loop unrolled fully
/// is one such block, its copies the iterations that the loop budget hid latency across.
/// Measured (modeled cycles, 61 pairs; --assume-in-bounds in parentheses): none 0.9107
/// (0.8727, with cuda_convsep's unrolled 17-tap filter 1.49x its loop's cycles); 96: 0.9102
/// (0.8716) but rodinia_nw at 40 registers (ptxas 32); 200: with the filter unrolled, 0.9072
/// (0.8688), no register count above ptxas + 2.
pub const SCHEDULE_LARGE_BLOCK: usize = 200;
/// The most general registers a block held back by its budget may use in the scheduler's
/// second round, where its budget rises to the function's peak pressure (registers the
/// function needs elsewhere anyway). Three quarters of Maxwell's full-occupancy limit (32
/// registers per thread) leaves room for the allocator's aligned pairs: without the cap
/// parboil_sgemm's straight-line blocks rose to its loop's 37 and took 46 registers.
/// cuda_convsep's eight staging loads stopped waiting one by one (3.40x -> 1.62x ptxas's
/// cycles), rodinia_hotspot 1.49x -> 0.98x.
pub const SCHEDULE_RAISE_CAP: u32 = 24;
/// General registers a block may hold over the pressure its source order reaches, whatever
/// its budget, up to the highest source pressure of any block of the function
/// ([`ScheduleOptions::source_slack`]). Measured (modeled cycles, geomean of 61 pairs vs
/// ptxas; --assume-in-bounds in parentheses): budgets alone 0.9645 (0.9243); slack 0 0.9607
/// (0.9216; rodinia_cfd 0.82x, parboil_lbm 0.96x of before, rodinia_nw 36 -> 34 registers,
/// rodinia_srad aib 1.06x); 4: 0.9574 (0.9217; parboil_sgemm 0.85x); 8: 0.9575. Without the
/// function cap, 4 reached 0.9556 (0.9160) but took rodinia_lud to 37 registers and
/// rodinia_srad to 22 (ptxas 32 and 19).
pub const SCHEDULE_SOURCE_SLACK: u32 = 4;
/// The least register limit (`Spa5Options::max_regs`) under which the scheduler takes
/// [`SCHEDULE_SOURCE_SLACK`]: the highest source-order pressure the allowance follows
/// reaches 68 registers on the benchmark (parboil_lbm), so a limit below that forgoes it.
pub const SOURCE_SLACK_MIN_REGS: u32 = 128;

impl Spa5Output {
    /// The nvdisasm-syntax listing.
    pub fn listing(&self) -> String {
        listing::listing_nvdisasm(&self.insts)
    }

    /// The SPA-syntax listing with scheduling hints.
    pub fn listing_sched(&self) -> String {
        listing::listing_spa(&self.insts)
    }
}

impl Spa5Error {
    /// The source statement the error is about, when the backend knows it.
    pub fn position(&self) -> Option<ilc_passes::ir::SourcePos> {
        match self {
            Spa5Error::Isel(IselError::Unsupported { pos, .. }) => *pos,
            Spa5Error::RegAlloc(_, pos) => *pos,
            _ => None,
        }
    }
}

/// Compiles `func` to a cubin.
pub fn compile(func: &Function, opts: &Spa5Options) -> Result<Spa5Output, Spa5Error> {
    compile_owned(func.clone(), opts)
}

/// Compiles `f` to a cubin, consuming it (no copy of the function: the IR is the largest
/// data structure of a compile).
pub fn compile_owned(mut f: Function, opts: &Spa5Options) -> Result<Spa5Output, Spa5Error> {
    let mut timer = Timer::new();
    let mut layout = LaunchLayout::compute(&f)?;
    let func_name = f.name.clone();
    let mut tgt = target::Spa5Target::new(opts.max_regs);
    let mut dumps = Vec::new();
    ilc_passes::budget::set_stage("isel");
    let span = tracing::debug_span!("stage", name = "isel").entered();
    dump(opts, Before, "isel", &f, &tgt, &mut dumps);
    exits::run(&mut f);
    let pool = isel::run(&mut f, &mut tgt, &layout, opts)?;
    dump(opts, After, "isel", &f, &tgt, &mut dumps);
    tracing::debug!(
        blocks = f.layout.blocks().count(),
        pool_words = pool.len(),
        params = layout.params.len(),
        "selected"
    );
    let const_bank2: Vec<u8> = pool.iter().flat_map(|w| w.to_le_bytes()).collect();
    // Debug and test builds verify the selected IR; release builds trust selection, as the
    // IR pipeline trusts its passes (`pipeline::verify`).
    if cfg!(debug_assertions) {
        ilc_passes::verifier::verify_function(&f)
            .map_err(|e| Spa5Error::Verify(e.display_with(&f)))?;
    }
    // Selection leaves the replaced IR instructions in the arena: compact it before the
    // scheduler and the register allocator (which copies the function) walk and clone it.
    f = ilc_passes::ir::renumber(&f);
    tracing::debug!(insts = f.dfg.num_insts(), "compacted");
    drop(span);
    timer.stage("isel");
    // The CFG analyses of the compacted function, shared by the scheduler, the register
    // allocator (which keeps them current) and emission.
    let mut analyses = ilc_passes::ir::Analyses::new();
    // The function as selected, kept when loop rotation or load pipelining changed it: both
    // lengthen some live ranges, and where the register limit (`--max-regs`) then defeats
    // allocation, the unrotated loops are compiled instead.
    let mut unrotated = None;
    if opts.rotate_loops {
        ilc_passes::budget::set_stage("loop_rotate");
        let _span = tracing::debug_span!("stage", name = "loop_rotate").entered();
        dump(opts, Before, "loop_rotate", &f, &tgt, &mut dumps);
        // Kept only for a function with loops (rotation changes nothing else).
        let before = {
            let (_, dt, loops) = analyses.loops(&f);
            dt.rpo()
                .iter()
                .any(|&b| loops.is_header(b))
                .then(|| f.clone())
        };
        let rotated =
            ilc_passes::loop_rotate::rotate(&mut f, &mut analyses, |d| emit::spa5_origin(&tgt, d));
        tracing::debug!(rotated, "rotated");
        let pipelined = ilc_passes::load_pipeline::pipeline(
            &mut f,
            &mut analyses,
            &tgt,
            SCHEDULE_LOOP_GPR_BUDGET,
        );
        tracing::debug!(pipelined, "loads pipelined");
        if rotated > 0 || pipelined > 0 {
            unrotated = before;
        }
        if cfg!(debug_assertions) {
            ilc_passes::verifier::verify_function(&f)
                .map_err(|e| Spa5Error::Verify(e.display_with(&f)))?;
        }
        dump(opts, After, "loop_rotate", &f, &tgt, &mut dumps);
        timer.stage("loop_rotate");
    }
    let alloc =
        match schedule_and_allocate(&mut f, &tgt, opts, &mut analyses, &mut dumps, &mut timer) {
            Ok(alloc) => alloc,
            Err(Spa5Error::RegAlloc(..)) if unrotated.is_some() => {
                tracing::debug!("allocation failed on rotated loops: compiling them unrotated");
                f = unrotated.take().expect("checked by the guard");
                analyses = ilc_passes::ir::Analyses::new();
                schedule_and_allocate(&mut f, &tgt, opts, &mut analyses, &mut dumps, &mut timer)?
            }
            Err(e) => return Err(e),
        };
    dump(opts, After, "regalloc", &f, &tgt, &mut dumps);
    timer.stage("regalloc");
    ilc_passes::budget::set_stage("emit");
    let span = tracing::debug_span!("stage", name = "emit").entered();
    debug_assert!(
        analyses.is_current(&f),
        "the analyses are the allocated function's"
    );
    let mut em = emit::emit(&f, &alloc, &tgt, layout.spill_base, &mut analyses)?;
    let advanced = if opts.advance_first {
        advance_first::run(&mut em)
    } else {
        0
    };
    let renamed = if opts.rename { rename::run(&mut em) } else { 0 };
    let gaps_filled = if opts.gap_fill {
        gap_fill::run(&mut em)
    } else {
        0
    };
    tracing::debug!(
        ssy_regions = em.ssy_regions,
        unreconverged = em.unreconverged,
        advanced,
        renamed,
        gaps_filled,
        "emitted"
    );
    drop(span);
    let (insts, code) = encode_code(&em)?;
    timer.stage("emit");
    let controls = deps::compute(&insts, opts.serial);
    timer.stage("control words");
    let (code, placed) = pack(&insts, &controls, &em, code)?;
    timer.stage("encode");
    let num_regs = count_regs(&placed);
    tracing::debug!(instructions = placed.len(), num_regs, "encoded");
    layout.num_regs = num_regs;
    layout.local_size = if alloc.spill_bytes > 0 {
        layout.spill_base + alloc.spill_bytes
    } else {
        layout.local_size
    };
    let (exits, ctaid) = scan_instr_offsets(&code);
    let uses_bar = placed
        .iter()
        .any(|(i, _)| i.form().mnemonic.starts_with("BAR"));
    let kernel = Kernel {
        name: kernel_symbol(&func_name),
        code: code.clone(),
        num_regs,
        num_barriers: u32::from(uses_bar),
        params: layout.cubin_params(),
        shared_size: layout.shared_size,
        shared_align: if layout.shared_size > 0 { 16 } else { 0 },
        local_size: layout.local_size,
        block_size: layout.block_size,
        exit_offsets: exits,
        s2rctaid_offsets: ctaid,
        ilc_abi: Some(layout.abi_bytes()),
        const_banks: if const_bank2.is_empty() {
            Vec::new()
        } else {
            vec![isa_spa5::cubin::ConstBank {
                bank: isel::POOL_BANK,
                data: const_bank2.clone(),
            }]
        },
        ..Default::default()
    };
    let cubin = isa_spa5::cubin::write_cubin(opts.sm, [kernel])?;
    tgt.recycle();
    timer.stage("cubin");
    Ok(Spa5Output {
        cubin,
        code,
        const_bank2,
        insts: placed,
        local_size: layout.local_size,
        layout,
        num_regs,
        ssy_regions: em.ssy_regions,
        unreconverged: em.unreconverged,
        dumps,
        times: timer.times,
    })
}

/// The list scheduler (when `opts.schedule`) and register allocation of the selected `f`.
fn schedule_and_allocate(
    f: &mut Function,
    tgt: &target::Spa5Target,
    opts: &Spa5Options,
    analyses: &mut ilc_passes::ir::Analyses,
    dumps: &mut Vec<Dump>,
    timer: &mut Timer,
) -> Result<ilc_passes::regalloc::Allocation, Spa5Error> {
    if opts.schedule {
        // Keep predicate pressure below the 7 predicates: hoisting every compare would make
        // the allocator spill predicates through memory.
        let mut so = ScheduleOptions::default();
        so.reg_budget[ilc_passes::ir::RegFile::Pred] = Some(5);
        // Hoisting every long-latency operation early cost up to 3x the registers of the
        // unscheduled code (blackscholes 12 -> 54 at -O1) for little stall gain: the
        // scheduler keeps at most SCHEDULE_GPR_BUDGET general registers live.
        so.reg_budget[ilc_passes::ir::RegFile::Gpr] = Some(SCHEDULE_GPR_BUDGET);
        so.loop_reg_budget[ilc_passes::ir::RegFile::Gpr] = Some(SCHEDULE_LOOP_GPR_BUDGET);
        so.raise_cap[ilc_passes::ir::RegFile::Gpr] = Some(SCHEDULE_RAISE_CAP);
        so.large_block = Some(SCHEDULE_LARGE_BLOCK);
        // The source-pressure allowance lets a block hold more registers than the budget;
        // under a register limit (`--max-regs`) that pressure would be spilled, or leave the
        // allocator too few free aligned groups for wide values: the plain budgets apply.
        so.source_slack = (opts.max_regs >= SOURCE_SLACK_MIN_REGS).then_some(SCHEDULE_SOURCE_SLACK);
        // The cycle estimates only feed the debug log below.
        so.estimate = tracing::enabled!(tracing::Level::DEBUG);
        ilc_passes::budget::set_stage("schedule");
        let _span = tracing::debug_span!("stage", name = "schedule").entered();
        dump(opts, Before, "schedule", f, tgt, dumps);
        let stats = ilc_passes::schedule::run_with(f, tgt, &so, analyses);
        tracing::debug!(
            cycles_before = stats.cycles_before,
            cycles_after = stats.cycles_after,
            blocks_changed = stats.blocks_changed,
            pressure_picks = stats.pressure_picks,
            "scheduled"
        );
        dump(opts, After, "schedule", f, tgt, dumps);
        timer.stage("schedule");
    }
    ilc_passes::budget::set_stage("regalloc");
    let _span = tracing::debug_span!("stage", name = "regalloc").entered();
    dump(opts, Before, "regalloc", f, tgt, dumps);
    let alloc = ilc_passes::regalloc::run_with(f, tgt, &RegAllocOptions::default(), analyses)
        .map_err(|e| {
            use ilc_passes::regalloc::RegAllocError as E;
            let inst = match &e {
                E::TooManyOperands { inst, .. }
                | E::BadConstraint { inst, .. }
                | E::UndefinedValue { inst, .. } => Some(*inst),
                E::NoRegister { value, .. } => f.dfg.value_inst(*value),
                _ => None,
            };
            let pos = inst.and_then(|i| f.srcloc(i));
            Spa5Error::RegAlloc(e, pos)
        })?;
    tracing::debug!(
        gprs = alloc.regs_used[ilc_passes::ir::RegFile::Gpr],
        peak_gprs = alloc.peak_gpr_pressure,
        preds = alloc.regs_used[ilc_passes::ir::RegFile::Pred],
        spill_bytes = alloc.spill_bytes,
        spills = alloc.num_spills,
        reloads = alloc.num_reloads,
        "allocated"
    );
    Ok(alloc)
}

/// Records `f` before or after `stage` when `opts` asks for it: the IR text with every
/// `Target` instruction followed by its machine instructions as `;` comments (so the dump
/// still parses as IR).
fn dump(
    opts: &Spa5Options,
    point: DumpPoint,
    stage: &str,
    f: &Function,
    tgt: &target::Spa5Target,
    dumps: &mut Vec<Dump>,
) {
    let list = match point {
        Before => &opts.dump_before,
        _ => &opts.dump_after,
    };
    if !crate::pipeline::names_stage(list, stage) {
        return;
    }
    let mut text = String::new();
    let annot = |e: ilc_passes::ir::AnyEntity| match e {
        ilc_passes::ir::AnyEntity::Inst(i) => tgt.describe(f, i),
        _ => Vec::new(),
    };
    // Writing to a String cannot fail.
    let _ = ilc_passes::ir::write::write_function_annotated(&mut text, f, &annot);
    dumps.push(Dump {
        point,
        stage: stage.to_string(),
        text,
    });
}

/// The kernel's symbol name from `name` (an option, a file stem): a C identifier, as CUDA
/// loaders and ptxas-style tools expect. Other characters become `_`, a leading digit gets a
/// `k` in front, and an empty name is `kernel`. The one rule for the library and the `ilc`
/// command.
pub fn kernel_symbol(name: &str) -> String {
    let mut s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() {
        return "kernel".to_string();
    }
    if s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, 'k');
    }
    s
}

/// Byte address of instruction `i` in the code (a control word precedes every three).
pub fn inst_addr(i: usize) -> i64 {
    isa_spa5::program::inst_addr(i) as i64
}

/// Resolves branch targets to relative offsets; returns the instructions (no padding yet).
fn encode_code(em: &emit::EmitResult) -> Result<(Vec<MInst>, ()), Spa5Error> {
    let mut out = Vec::with_capacity(em.insts.len());
    for (i, e) in em.insts.iter().enumerate() {
        let mut inst = e.inst;
        if let Some(b) = e.target {
            let t = *em.block_start.get(&b).ok_or(Spa5Error::BranchRange)?;
            let rel = inst_addr(t) - (inst_addr(i) + 8);
            if !(-(1 << 23)..(1 << 23)).contains(&rel) {
                return Err(Spa5Error::BranchRange);
            }
            inst.operands[0] = Operand::Target(rel as i32);
        }
        out.push(inst);
    }
    Ok((out, ()))
}

/// Pads to a multiple of three with NOPs, encodes, and interleaves control words.
fn pack(
    insts: &[MInst],
    controls: &[Control],
    _em: &emit::EmitResult,
    _: (),
) -> Result<(Vec<u64>, Placed), Spa5Error> {
    let mut placed: Vec<(MInst, Control)> = insts
        .iter()
        .copied()
        .zip(controls.iter().copied())
        .collect();
    while !placed.len().is_multiple_of(3) || placed.is_empty() {
        placed.push((MInst::nop(), Control::stall(1)));
    }
    let mut code = Vec::with_capacity(placed.len() / 3 * 4);
    for group in placed.chunks(3) {
        let slots = [group[0].1, group[1].1, group[2].1];
        let cw = isa_spa5::control::pack_control_word(slots).map_err(|e| Spa5Error::Encode {
            inst: "control word".into(),
            message: e.to_string(),
        })?;
        code.push(cw);
        for (i, _) in group {
            let w = isa_spa5::encode(i).map_err(|e| Spa5Error::Encode {
                inst: format!("{i:?}"),
                message: e.to_string(),
            })?;
            code.push(w);
        }
    }
    Ok((code, placed))
}

/// One past the highest GPR any instruction names (at least 1).
fn count_regs(placed: &[(MInst, Control)]) -> u32 {
    placed
        .iter()
        .map(|(i, _)| i.gpr_end())
        .max()
        .unwrap_or(0)
        .max(1)
}

#[cfg(test)]
mod count_regs_tests {
    use isa_spa5::Loc;

    /// `Inst::gpr_end` is the end of the GPRs `defs` and `uses` list.
    #[test]
    fn gpr_end_matches_the_def_and_use_lists() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../bench/kernels");
        let mut seen = 0;
        for entry in std::fs::read_dir(dir).expect("bench kernels") {
            let path = entry.expect("entry").path();
            if path.extension().is_none_or(|e| e != "il") {
                continue;
            }
            let src = std::fs::read(&path).expect("readable");
            let Ok(k) = crate::Compiler::default().compile(&src) else {
                continue;
            };
            for (i, _) in &k.insts {
                let mut n = 0u32;
                for l in i.defs().iter().chain(i.uses().iter()) {
                    if let Loc::Gpr { reg, count } = l {
                        n = n.max(u32::from(reg.0) + u32::from(count));
                    }
                }
                assert_eq!(i.gpr_end(), n, "{i:?}");
                seen += 1;
            }
        }
        assert!(seen > 100, "{seen} instructions");
    }
}

#[cfg(test)]
mod kernel_symbol_tests {
    use super::kernel_symbol;

    #[test]
    fn kernel_symbols_are_c_identifiers() {
        assert_eq!(kernel_symbol("my-kernel"), "my_kernel");
        assert_eq!(kernel_symbol("3dconv"), "k3dconv");
        assert_eq!(kernel_symbol(""), "kernel");
        assert_eq!(kernel_symbol("saxpy"), "saxpy");
        assert_eq!(kernel_symbol("a.b c"), "a_b_c");
    }
}
