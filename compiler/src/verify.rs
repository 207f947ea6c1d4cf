//! Self-checking compilation: run the compiled kernel on the SPA 5.0 emulator and the IL
//! reference interpreter on the same random inputs and compare every output.
//!
//! [`verify`] compiles the kernel, then for each of `dispatches` seeded dispatches builds random
//! contents for every UAV, constant buffer and `g[]` the kernel declares (or takes the user's,
//! [`VerifyOptions::inputs`], see [`Inputs`]), runs `isa_amdil::interp` and `isa_spa5::emu`
//! (with the control-word hazard checker), and compares the written-back buffers dword by
//! dword.
//!
//! Inputs: each dword is, at random, a small integer (0..64, so data-dependent indices and
//! trip counts stay small), a float in [-100, 100], or a random bit pattern. UAVs are sized
//! from the dispatch (64 bytes per work-item, at least 1 KiB); accesses beyond them follow the
//! IL rule (loads read 0, stores are dropped), which both sides implement.
//!
//! Long kernels: the interpreter's budget per run is [`VerifyOptions::fuel`], by default
//! [`auto_fuel`] (it grows with the kernel's size and the dispatch's work-items). A dispatch
//! that runs out is retried with small integers (0..16: a loop count taken from random bits),
//! then with one group instead of the whole grid (a kernel that is simply long; reported in
//! [`VerifyReport::notes`] and counted in [`VerifyReport::reduced`], and later dispatches
//! start there); one that still does not finish is skipped with the reason.
//!
//! Interleaving: both sides run the same schedule, warps of 32 work-items in id order, each
//! to its next barrier or its end (`interp::Schedule::Warps`, `LaunchConfig::warp_to_barrier`),
//! so outputs one work-item writes and another reads without a barrier (or through atomics)
//! are compared too; [`VerifyReport::order_dependent`] counts those a shuffled interleaving
//! changes. What even that order leaves open (two lanes storing one dword in one
//! instruction, the order in which a warp runs the two sides of a divergent branch) shows as
//! a difference between the interpreter's warp-order run and its reversed run (highest pc and
//! lane first): such dwords are racy under every schedule, not compared, and listed in
//! [`VerifyReport::racy_bytes`].
//!
//! Tolerance: outputs must be bit-identical, except when the kernel uses an operation whose
//! result the IL guide leaves to the implementation's precision (`sqrt`, `rsq`, `rcp`, `div`,
//! `exp`, `log`, `sin`, `cos`, `pow`, ... and their vector forms): then a dword also matches if
//! both values are NaN, or they differ by at most [`ULP_BOUND`] units in the last place as f32,
//! or by a relative error of at most [`REL_BOUND`] (errors of approximate operations grow
//! through later arithmetic). Such kernels also get two sensitivity runs of the interpreter
//! (`Dispatch::perturb`): every approximate result nudged by a random error within what the
//! guide allows, and trigonometry outside [-pi, pi] (undefined there) given arbitrary values.
//! An output dword that moves between those runs depends on the allowed errors (cancellation
//! amplifies them) or is undefined: it is counted as ill-conditioned and the emulator's value
//! must lie within the runs' range widened by that range on each side.

use std::fmt;

use ilc_passes::ir::{TexKind, TexShape};
use ilc_test_support::Rng;
use isa_amdil::ast::ElementFormat;
use isa_amdil::interp::texture::{self, ResourceDecl, SamplerState, TexDim, Texture};
use isa_amdil::interp::{self, Dispatch, InterpError};
use isa_amdil::opcodes::Precision;
use isa_spa5::emu::{Device, LaunchConfig, LaunchReport, TexOp, TexRequest, TextureUnit};

use crate::spa5::abi::ParamKind;
use crate::{CompiledKernel, Compiler, Diagnostics};

mod inputs;
pub use inputs::Inputs;

/// Largest f32 distance in ulps accepted for kernels with approximate operations.
pub const ULP_BOUND: u32 = 8;
/// Largest relative error accepted for kernels with approximate operations.
pub const REL_BOUND: f32 = 1e-5;

/// Interpreter instructions per IL instruction and work-item in [`auto_fuel`]: a kernel
/// may run its whole body this many times (loops) before the dispatch counts as too long.
pub const FUEL_PER_STATEMENT: u64 = 256;
/// The least interpreter budget per dispatch [`auto_fuel`] gives.
pub const MIN_FUEL: u64 = 20_000_000;
/// The most interpreter budget per dispatch [`auto_fuel`] gives (a few seconds per run);
/// beyond it a dispatch shrinks to one group. `--verify-fuel` sets any budget.
pub const MAX_AUTO_FUEL: u64 = 200_000_000;

/// How to verify.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyOptions {
    /// Number of random dispatches (one with [`VerifyOptions::inputs`]).
    pub dispatches: u32,
    /// Seed of the first dispatch (dispatch `k` uses `seed + k`).
    pub seed: u64,
    /// Groups in x, y, z (default: 3 in x).
    pub grid: [u32; 3],
    /// Interpreter instruction budget per run of a dispatch (work-item instructions);
    /// `None`: [`auto_fuel`] of the kernel's size and the dispatch's work-items. A dispatch
    /// that does not finish within it runs again with one group (reported in
    /// [`VerifyReport::notes`]), and is skipped only if that does not finish either.
    pub fuel: Option<u64>,
    /// The user's buffers, constant buffers and textures ([`Inputs::from_dir`]) instead of
    /// random ones; resources it lacks get random contents.
    pub inputs: Option<Inputs>,
}

impl Default for VerifyOptions {
    fn default() -> Self {
        VerifyOptions {
            dispatches: 8,
            seed: 1,
            grid: [3, 1, 1],
            fuel: None,
            inputs: None,
        }
    }
}

/// One differing dword.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// Dispatch index.
    pub dispatch: u32,
    /// `uavN` or `g`.
    pub buffer: String,
    /// Byte offset in the buffer.
    pub offset: usize,
    /// The interpreter's value.
    pub expected: u32,
    /// The emulator's value.
    pub got: u32,
}

/// What a verification found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VerifyReport {
    /// Dispatches compared.
    pub compared: u32,
    /// Dispatches skipped, with why (interpreter failure).
    pub skipped: Vec<String>,
    /// Differences (at most 20 recorded per dispatch).
    pub mismatches: Vec<Mismatch>,
    /// Total differing dwords.
    pub mismatch_count: u64,
    /// Control-word hazards reported by the emulator (deduplicated).
    pub hazards: Vec<String>,
    /// Whether the tolerant comparison was used.
    pub approximate: bool,
    /// Output dwords that moved between the interpreter's sensitivity runs (ill-conditioned
    /// by the allowed errors of approximate operations, or undefined): compared only within
    /// the range those runs span.
    pub ill_conditioned: u64,
    /// Output dwords whose value depends on the interleaving of work-items (a shuffled
    /// interleaving gives another value): compared in the warp order both the interpreter
    /// and the emulator follow.
    pub order_dependent: u64,
    /// Output dwords left open even by the warp order (racy under every schedule: two lanes
    /// storing one dword in one instruction, the order of a divergent branch's sides): not
    /// compared.
    pub racy: u64,
    /// Which bytes were racy, per dispatch and buffer (capped).
    pub racy_bytes: Vec<String>,
    /// Dispatches run with one group because the whole grid did not finish in the fuel.
    pub reduced: u32,
    /// Remarks: smaller dispatches and why, which inputs came from the user's files.
    pub notes: Vec<String>,
}

impl VerifyReport {
    /// No mismatch and no hazard.
    pub fn passed(&self) -> bool {
        self.mismatch_count == 0 && self.hazards.is_empty()
    }
}

impl fmt::Display for VerifyReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "verify: {} dispatches compared ({} skipped{}), {} mismatches, {} hazards{}{}",
            self.compared,
            self.skipped.len(),
            if self.reduced > 0 {
                format!(", {} with one group", self.reduced)
            } else {
                String::new()
            },
            self.mismatch_count,
            self.hazards.len(),
            if self.order_dependent + self.racy > 0 {
                format!(
                    "; {} dwords depend on the interleaving (compared in warp order), {} racy \
                     under every schedule (not compared)",
                    self.order_dependent, self.racy
                )
            } else {
                String::new()
            },
            if self.approximate {
                format!(
                    " (approximate operations: f32 tolerance; {} ill-conditioned dwords \
                     compared within their sensitivity range)",
                    self.ill_conditioned
                )
            } else {
                String::new()
            }
        )?;
        for m in &self.mismatches {
            writeln!(
                f,
                "  dispatch {}: {} byte {:#x}: interpreter {:#010x}, emulator {:#010x}",
                m.dispatch, m.buffer, m.offset, m.expected, m.got
            )?;
        }
        for h in &self.hazards {
            writeln!(f, "  hazard: {h}")?;
        }
        for s in &self.skipped {
            writeln!(f, "  skipped: {s}")?;
        }
        for r in &self.racy_bytes {
            writeln!(f, "  racy: {r}")?;
        }
        for n in &self.notes {
            writeln!(f, "  note: {n}")?;
        }
        Ok(())
    }
}

/// Why verification could not run.
#[derive(Clone, Debug, thiserror::Error)]
pub enum VerifyError {
    /// The kernel does not compile.
    #[error("{}", .0.to_string().trim_end())]
    Compile(Diagnostics),
    /// The interpreter cannot run the kernel at all.
    #[error("interpreter: {0}")]
    Interpreter(String),
    /// The user's inputs do not fit the kernel (a texture in another storage than the
    /// kernel was compiled for).
    #[error("inputs: {0}")]
    Inputs(String),
    /// The emulator failed on the compiled code (a compiler or emulator bug).
    #[error("emulator, dispatch {dispatch}: {message}")]
    Emulator {
        /// Dispatch index.
        dispatch: u32,
        /// The error.
        message: String,
    },
}

/// A random input dword: small integers, ordinary floats or arbitrary bits; small integers
/// only when `tame` (for kernels whose loop counts come from data).
fn random_dword(rng: &mut Rng, tame: bool) -> u32 {
    let r = rng.next_u64();
    if tame {
        return ((r >> 8) % 16) as u32;
    }
    match r % 10 {
        0..=3 => ((r >> 8) % 64) as u32,
        4..=6 => {
            let f = ((r >> 8) % 20_001) as f32 / 100.0 - 100.0;
            f.to_bits()
        }
        _ => (r >> 16) as u32,
    }
}

/// `bytes` bytes of [`random_dword`]s.
fn random_buffer(rng: &mut Rng, bytes: usize, tame: bool) -> Vec<u8> {
    (0..bytes.div_ceil(4))
        .flat_map(|_| random_dword(rng, tame).to_le_bytes())
        .take(bytes)
        .collect()
}

/// A texture of random small size (1..=9 texels per axis) and contents in the given storage.
fn random_texture(
    rng: &mut Rng,
    (format, channels): (interp::texture::TexelFormat, u8),
    dim: interp::texture::TexDim,
    tame: bool,
) -> interp::texture::Texture {
    use interp::texture::TexDim;
    let mut size = |n: u64| 1 + rng.below(n) as u32;
    let (w, h, dp) = match dim {
        TexDim::Buffer | TexDim::D1 => (size(64), 1, 1),
        TexDim::D1Array => (size(9), size(4), 1),
        TexDim::D2 => (size(9), size(9), 1),
        TexDim::D2Array | TexDim::D3 => (size(9), size(9), size(4)),
    };
    let mut t = interp::texture::Texture {
        width: w,
        height: h,
        depth: dp,
        channels,
        format,
        data: Vec::new(),
    };
    let bytes = t.size_bytes();
    t.data = random_buffer(rng, bytes, tame);
    t
}

/// Whether `got` lies in the range the interpreter's runs (`base` and the sensitivity runs
/// `others`) span, widened by that range on each side; any value if the runs disagree on
/// being a number at all (NaN or infinity in some, a finite value in others).
fn within_span(base: u32, others: &[u32], got: u32) -> bool {
    let vals: Vec<f32> = std::iter::once(base)
        .chain(others.iter().copied())
        .map(f32::from_bits)
        .collect();
    if vals.iter().any(|v| !v.is_finite()) {
        return true;
    }
    let lo = vals.iter().copied().fold(f32::INFINITY, f32::min);
    let hi = vals.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let spread = hi - lo;
    let g = f32::from_bits(got);
    g >= lo - spread && g <= hi + spread
}

fn words_match(a: u32, b: u32, approx: bool) -> bool {
    if a == b {
        return true;
    }
    if !approx {
        return false;
    }
    let (fa, fb) = (f32::from_bits(a), f32::from_bits(b));
    if fa.is_nan() && fb.is_nan() {
        return true;
    }
    if fa.is_nan() || fb.is_nan() || (a ^ b) >> 31 != 0 && fa != fb {
        return fa == fb;
    }
    let ulps = (a as i64 - b as i64).unsigned_abs();
    ulps <= ULP_BOUND as u64 || ((fa - fb).abs() <= REL_BOUND * fa.abs().max(fb.abs()))
}

fn le_words(b: &[u8]) -> impl Iterator<Item = u32> + '_ {
    b.chunks(4).map(|c| {
        let mut w = [0u8; 4];
        w[..c.len()].copy_from_slice(c);
        u32::from_le_bytes(w)
    })
}

/// Compiles `source` with `compiler` and compares the emulator with the interpreter.
pub fn verify(
    compiler: &Compiler,
    source: &[u8],
    opts: &VerifyOptions,
) -> Result<VerifyReport, VerifyError> {
    verify_against(compiler, source, source, opts)
}

/// The interpreter budget [`VerifyOptions::fuel`] defaults to: [`FUEL_PER_STATEMENT`]
/// instructions per IL statement and work-item of the dispatch, within
/// [`MIN_FUEL`]..=[`MAX_AUTO_FUEL`].
pub fn auto_fuel(statements: u64, work_items: u64) -> u64 {
    statements
        .saturating_mul(work_items)
        .saturating_mul(FUEL_PER_STATEMENT)
        .clamp(MIN_FUEL, MAX_AUTO_FUEL)
}

/// Everything the dispatches of one verification share.
struct Setup<'a> {
    compiler: &'a Compiler,
    kernel: &'a CompiledKernel,
    exec: &'a interp::ExecProgram,
    opts: &'a VerifyOptions,
    uav_bytes: usize,
}

impl Setup<'_> {
    /// The inputs of dispatch `k`: the user's buffers where [`VerifyOptions::inputs`] has
    /// them, random ones elsewhere (`tame`: small integers only); `small`: one group (one
    /// tile of a pixel shader) instead of the whole grid.
    fn inputs(&self, k: u32, tame: bool, small: bool) -> Dispatch {
        let (exec, opts) = (self.exec, self.opts);
        let user = opts.inputs.as_ref();
        let mut rng = Rng::new(opts.seed.wrapping_add(k as u64));
        let grid = user.and_then(|u| u.grid).unwrap_or(opts.grid);
        let mut d = Dispatch::new(if small { [1, 1, 1] } else { grid });
        let bytes = self.uav_bytes;
        for &id in &exec.uavs {
            let b = random_buffer(&mut rng, bytes, tame);
            d.uavs
                .insert(id, user.and_then(|u| u.uavs.get(&id).cloned()).unwrap_or(b));
        }
        if let Some(u) = user {
            d.uav_views = u.uav_views.clone();
            d.domain_origin = u.domain_origin;
        }
        for (&id, &elems) in &exec.cbs {
            let b = random_buffer(&mut rng, elems.max(1) as usize * 16, tame);
            d.cbs
                .insert(id, user.and_then(|u| u.cbs.get(&id).cloned()).unwrap_or(b));
        }
        if exec.uses_global {
            let b = random_buffer(&mut rng, bytes, tame);
            d.global = Some(user.and_then(|u| u.global.clone()).unwrap_or(b));
        }
        for p in &self.kernel.layout.params {
            if let ParamKind::SrvPtr(id) = p.kind {
                let id = u32::from(id);
                if !exec.resources.contains_key(&id) {
                    let b = random_buffer(&mut rng, bytes, tame);
                    d.srvs
                        .insert(id, user.and_then(|u| u.srvs.get(&id).cloned()).unwrap_or(b));
                }
            }
        }
        let tex = &self.compiler.options().textures;
        for (&id, decl) in &exec.resources {
            let t = random_texture(&mut rng, tex.storage(id, decl), decl.dim, tame);
            let t = user.and_then(|u| u.textures.get(&id).cloned()).unwrap_or(t);
            d.textures.insert(id, t);
        }
        d.samplers = tex.samplers.clone();
        if exec.pixel_shader {
            // Not a multiple of the 8x8 tiles: the edge tiles have pixels outside.
            let full = user
                .and_then(|u| u.domain)
                .unwrap_or([8 * opts.grid[0] + 5, 11]);
            d.domain = Some(if small {
                [full[0].min(exec.group[0]), full[1].min(exec.group[1])]
            } else {
                full
            });
        }
        d.schedule = WARP_ORDER;
        d
    }

    /// Work-items of a dispatch built by [`Setup::inputs`].
    fn work_items(&self, d: &Dispatch) -> u64 {
        let group = self.exec.group.iter().map(|&v| v as u64).product::<u64>();
        match d.domain {
            Some([w, h]) => {
                let [bx, by, _] = self.exec.group;
                w.div_ceil(bx.max(1)) as u64 * h.div_ceil(by.max(1)) as u64 * group
            }
            None => d.grid.iter().map(|&v| v as u64).product::<u64>() * group,
        }
    }
}

/// The interpreter's schedule for the reference run: warps of 32 run to their next barrier
/// in order, as the emulator runs them in [`run_emulated`].
const WARP_ORDER: interp::Schedule = interp::Schedule::Warps {
    width: 32,
    reverse: false,
};

/// One dispatch the interpreter finished: its inputs, the reference run, and the runs under
/// other schedules and perturbations.
struct Reference {
    inputs: Dispatch,
    /// In [`WARP_ORDER`].
    warp: Dispatch,
    /// Warp order with lanes and divergent paths reversed: differences are racy.
    reversed: Option<Dispatch>,
    /// A shuffled interleaving: differences depend on the interleaving.
    shuffled: Option<Dispatch>,
    /// Sensitivity runs.
    spans: Vec<Dispatch>,
}

/// Runs dispatch `k` on the interpreter: mixed inputs first, then small integers (a loop
/// count taken from random bits can exhaust the fuel); the whole grid first, then one group
/// when the whole grid does not finish within the fuel (`small` remembers that for later
/// dispatches). Returns the reference, or `None` after recording why it was skipped.
fn interpret(
    setup: &Setup,
    k: u32,
    approx: bool,
    small: &mut bool,
    report: &mut VerifyReport,
) -> Option<Reference> {
    let exec = setup.exec;
    let full_groups = setup.inputs(k, false, false);
    let can_shrink = setup.work_items(&full_groups) > exec.group.iter().product::<u32>() as u64;
    let mut last_err = None;
    // (tame, one group): mixed inputs on the whole grid, then small integers (a loop count
    // taken from random bits), then both on one group (a kernel too long for the fuel).
    let attempts = [(false, false), (true, false), (false, true), (true, true)]
        .into_iter()
        .filter(|&(_, shrink)| {
            if *small {
                shrink
            } else {
                !shrink || can_shrink
            }
        });
    let mut full_out_of_fuel = false;
    for (tame, shrink) in attempts {
        if shrink && !*small && !full_out_of_fuel {
            // Only a dispatch too long for the fuel shrinks.
            continue;
        }
        {
            let mut d = setup.inputs(k, tame, shrink);
            let fuel = setup.opts.fuel.unwrap_or_else(|| {
                auto_fuel(exec.insts.len() as u64, setup.work_items(&full_groups))
            });
            d.fuel = fuel;
            let inputs = d.clone();
            match interp::run_decoded(exec, &mut d) {
                Ok(_) => {
                    if shrink && !*small {
                        *small = true;
                        report.notes.push(format!(
                            "dispatch {k} and later: one group ({} work-items) instead of \
                             {}: the whole dispatch does not finish within {fuel} interpreter \
                             instructions (raise it with --verify-fuel)",
                            setup.work_items(&inputs),
                            setup.work_items(&full_groups)
                        ));
                    }
                    if shrink {
                        report.reduced += 1;
                    }
                    let rerun = |schedule: Option<interp::Schedule>, perturb: Option<u64>| {
                        let mut p = inputs.clone();
                        if let Some(s) = schedule {
                            p.schedule = s;
                        }
                        p.perturb = perturb;
                        interp::run_decoded(exec, &mut p).ok().map(|_| p)
                    };
                    let reversed = rerun(
                        Some(interp::Schedule::Warps {
                            width: 32,
                            reverse: true,
                        }),
                        None,
                    );
                    let shuffled = rerun(Some(interp::Schedule::Shuffled { seed: 7 }), None);
                    // Sensitivity runs: every approximate result nudged within its allowed
                    // error, twice; where they disagree the output depends on those errors.
                    let spans = if approx {
                        [0x5eed_0001u64, 0x5eed_0002]
                            .iter()
                            .filter_map(|s| rerun(None, Some(s.wrapping_add(k as u64))))
                            .collect()
                    } else {
                        Vec::new()
                    };
                    return Some(Reference {
                        inputs,
                        warp: d,
                        reversed,
                        shuffled,
                        spans,
                    });
                }
                Err(e @ InterpError::OutOfFuel { .. }) => {
                    full_out_of_fuel |= !shrink;
                    last_err = Some(e);
                }
                Err(e) if tame => {
                    report.skipped.push(format!("dispatch {k}: {e}"));
                    return None;
                }
                Err(e) => last_err = Some(e),
            }
        }
    }
    let why = last_err.map_or_else(|| "no run".to_string(), |e| e.to_string());
    report.skipped.push(format!(
        "dispatch {k}: {why}{}",
        if can_shrink {
            " (even with one group; raise it with --verify-fuel)"
        } else {
            " (raise it with --verify-fuel)"
        }
    ));
    None
}

/// Byte ranges `[a, b)` of the dwords at `idx` (sorted) as text: `0x10..0x18, 0x40..0x44`.
fn ranges(idx: &[usize], cap: usize) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < idx.len() && out.len() < cap {
        let mut j = i;
        while j + 1 < idx.len() && idx[j + 1] == idx[j] + 1 {
            j += 1;
        }
        out.push(format!("{:#x}..{:#x}", 4 * idx[i], 4 * idx[j] + 4));
        i = j + 1;
    }
    if i < idx.len() {
        out.push("...".into());
    }
    out.join(", ")
}

/// Compiles `candidate` and compares it on the emulator with the interpreter running
/// `reference` (which must declare the same resources): [`verify`] with both the same, or a
/// deliberately different candidate to measure which miscompiles verification catches.
pub fn verify_against(
    compiler: &Compiler,
    reference: &[u8],
    candidate: &[u8],
    opts: &VerifyOptions,
) -> Result<VerifyReport, VerifyError> {
    let kernel = compiler.compile(candidate).map_err(VerifyError::Compile)?;
    let front = compiler.front(reference).map_err(VerifyError::Compile)?;
    let exec =
        interp::prepare(&front.program).map_err(|e| VerifyError::Interpreter(e.to_string()))?;
    let approx = front
        .program
        .statements
        .iter()
        .any(|s| s.opcode.precision() != Precision::Exact);
    let mut report = VerifyReport {
        approximate: approx,
        ..VerifyReport::default()
    };
    let group = exec.group;
    let items = opts
        .grid
        .iter()
        .chain(&group)
        .map(|&v| v as u64)
        .product::<u64>();
    let setup = Setup {
        compiler,
        kernel: &kernel,
        exec: &exec,
        opts,
        uav_bytes: (items * 64).max(1024) as usize,
    };
    if let Some(u) = &opts.inputs {
        // The compiled code reads a texture in the storage it was compiled for (--texture).
        for (&id, decl) in &exec.resources {
            if let Some(t) = u.textures.get(&id) {
                let (f, n) = compiler.options().textures.storage(id, decl);
                if (t.format, t.channels) != (f, n) {
                    return Err(VerifyError::Inputs(format!(
                        "texture {id} is {:?}x{} in the inputs, but the kernel was compiled \
                         for {f:?}x{n} (give --texture {id}=FORMATxN to match)",
                        t.format, t.channels
                    )));
                }
            }
        }
        report.notes.extend(u.describe(&exec, &kernel.layout));
    }
    // The user's inputs are one dispatch; random ones are `dispatches` seeds.
    let dispatches = if opts.inputs.is_some() {
        opts.dispatches.min(1)
    } else {
        opts.dispatches
    };
    let mut small = false;
    for k in 0..dispatches {
        let Some(r) = interpret(&setup, k, approx, &mut small, &mut report) else {
            continue;
        };
        let (emulated, launch) = run_emulated(&kernel, &r.inputs).map_err(|e| match e {
            VerifyError::Emulator { message, .. } => VerifyError::Emulator {
                dispatch: k,
                message,
            },
            other => other,
        })?;
        for h in launch.hazards {
            let s = h.to_string();
            if !report.hazards.contains(&s) {
                report.hazards.push(s);
            }
        }
        report.compared += 1;
        let mut recorded = 0;
        let d = &r.warp;
        // (name, interpreter, emulator, sensitivity runs, reversed, shuffled) per output.
        type Out<'a> = (
            String,
            &'a [u8],
            &'a [u8],
            Vec<&'a [u8]>,
            Option<&'a [u8]>,
            Option<&'a [u8]>,
        );
        let mut pairs: Vec<Out> = Vec::new();
        for (id, want) in &d.uavs {
            let got = emulated.uavs.get(id).map_or(&[][..], |v| &v[..]);
            let runs = r
                .spans
                .iter()
                .filter_map(|p| p.uavs.get(id))
                .map(|v| &v[..]);
            let rev = r
                .reversed
                .as_ref()
                .and_then(|p| p.uavs.get(id))
                .map(|v| &v[..]);
            let shu = r
                .shuffled
                .as_ref()
                .and_then(|p| p.uavs.get(id))
                .map(|v| &v[..]);
            pairs.push((format!("uav{id}"), want, got, runs.collect(), rev, shu));
        }
        if let (Some(want), Some(got)) = (&d.global, &emulated.global) {
            let runs = r.spans.iter().filter_map(|p| p.global.as_deref());
            let rev = r.reversed.as_ref().and_then(|p| p.global.as_deref());
            let shu = r.shuffled.as_ref().and_then(|p| p.global.as_deref());
            pairs.push(("g".into(), want, got, runs.collect(), rev, shu));
        }
        for (id, want) in &d.ps_outputs {
            let got = emulated.ps_outputs.get(id).map_or(&[][..], |v| &v[..]);
            let runs = r
                .spans
                .iter()
                .filter_map(|p| p.ps_outputs.get(id))
                .map(|v| &v[..]);
            let rev = r.reversed.as_ref().and_then(|p| p.ps_outputs.get(id));
            let shu = r.shuffled.as_ref().and_then(|p| p.ps_outputs.get(id));
            pairs.push((
                format!("o{id}"),
                want,
                got,
                runs.collect(),
                rev.map(|v| &v[..]),
                shu.map(|v| &v[..]),
            ));
        }
        for (name, want, got, runs, rev, shu) in pairs {
            let runs: Vec<Vec<u32>> = runs.iter().map(|r| le_words(r).collect()).collect();
            let rev: Option<Vec<u32>> = rev.map(|r| le_words(r).collect());
            let shu: Option<Vec<u32>> = shu.map(|r| le_words(r).collect());
            let mut racy = Vec::new();
            for (i, (w, g)) in le_words(want).zip(le_words(got)).enumerate() {
                // What even the warp order leaves open (two lanes storing one dword in one
                // instruction, the order of a divergent branch's sides) is not compared.
                if rev
                    .as_ref()
                    .is_some_and(|v| v.get(i).is_some_and(|&x| x != w))
                {
                    racy.push(i);
                    continue;
                }
                if shu
                    .as_ref()
                    .is_some_and(|v| v.get(i).is_some_and(|&x| x != w))
                {
                    report.order_dependent += 1;
                }
                let others: Vec<u32> = runs.iter().filter_map(|r| r.get(i).copied()).collect();
                let sensitive = others.iter().any(|&o| !words_match(w, o, approx));
                report.ill_conditioned += u64::from(sensitive);
                if words_match(w, g, approx) || sensitive && within_span(w, &others, g) {
                    continue;
                }
                report.mismatch_count += 1;
                if recorded < 20 {
                    recorded += 1;
                    report.mismatches.push(Mismatch {
                        dispatch: k,
                        buffer: name.clone(),
                        offset: 4 * i,
                        expected: w,
                        got: g,
                    });
                }
            }
            if !racy.is_empty() {
                report.racy += racy.len() as u64;
                if report.racy_bytes.len() < 20 {
                    report
                        .racy_bytes
                        .push(format!("dispatch {k}: {name} bytes {}", ranges(&racy, 8)));
                }
            }
        }
    }
    Ok(report)
}

/// Runs `kernel` on the emulator with the buffers of `d` bound through the launch ABI (UAVs
/// and `g[]` by address and size, constant buffers copied into the parameters); returns the
/// dispatch with the written-back UAVs and `g[]`, and the launch report (hazards).
pub fn run_emulated(
    kernel: &CompiledKernel,
    d: &Dispatch,
) -> Result<(Dispatch, LaunchReport), VerifyError> {
    let run = EmulatedRun {
        check_hazards: true,
        fuel: None,
        warp_to_barrier: true,
    };
    run.run(&kernel.cubin, &kernel.name, &kernel.layout, d)
}

/// How [`EmulatedRun::run`] launches a kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EmulatedRun {
    /// Run the control-word hazard checker.
    pub check_hazards: bool,
    /// Emulator instruction budget (`None`: the emulator's default).
    pub fuel: Option<u64>,
    /// Run each warp to its next barrier before the next warp (the interleaving the
    /// interpreter's `Schedule::Warps` follows), instead of round-robin slices.
    pub warp_to_barrier: bool,
}

impl EmulatedRun {
    /// Runs kernel `name` of `cubin`, whose launch layout is `layout` (from the compiler, or
    /// read back from the cubin's `.ilc.abi` with [`LaunchLayout::from_abi`]), on the
    /// emulator with the resources of `d` (see [`run_emulated`]).
    ///
    /// [`LaunchLayout::from_abi`]: crate::spa5::abi::LaunchLayout::from_abi
    pub fn run(
        &self,
        cubin: &[u8],
        name: &str,
        layout: &crate::spa5::abi::LaunchLayout,
        d: &Dispatch,
    ) -> Result<(Dispatch, LaunchReport), VerifyError> {
        let k = 0;
        let mut dev = Device::new();
        let mut params = vec![0u8; layout.param_bytes() as usize];
        let mut bound: Vec<(Option<u32>, u64, usize)> = Vec::new();
        let mut outputs: Vec<(u32, u64, usize)> = Vec::new();
        let mut textures = TextureObjects::default();
        let put = |params: &mut Vec<u8>, at: u32, size: u32, v: &[u8]| {
            let (at, size) = (at as usize, size as usize);
            let n = v.len().min(size);
            params[at..at + n].copy_from_slice(&v[..n]);
        };
        for p in &layout.params {
            match p.kind {
                ParamKind::UavPtr(id) => {
                    let data = d.uavs.get(&(id as u32)).map_or(&[][..], |v| &v[..]);
                    let a = dev.alloc(data.len() as u64);
                    dev.write(a, data).map_err(|e| emu_err(k, e))?;
                    bound.push((Some(id as u32), a, data.len()));
                    put(&mut params, p.offset, p.size, &a.to_le_bytes());
                }
                ParamKind::UavSize(id) => {
                    let n = d.uavs.get(&(id as u32)).map_or(0, Vec::len) as u64;
                    put(&mut params, p.offset, p.size, &n.to_le_bytes());
                }
                ParamKind::GlobalPtr => {
                    let data = d.global.as_deref().unwrap_or(&[]);
                    let a = dev.alloc(data.len() as u64);
                    dev.write(a, data).map_err(|e| emu_err(k, e))?;
                    bound.push((None, a, data.len()));
                    put(&mut params, p.offset, p.size, &a.to_le_bytes());
                }
                ParamKind::GlobalSize => {
                    let n = d.global.as_ref().map_or(0, Vec::len) as u64;
                    put(&mut params, p.offset, p.size, &n.to_le_bytes());
                }
                ParamKind::CbData(id) => {
                    if let Some(cb) = d.cbs.get(&(id as u32)) {
                        put(&mut params, p.offset, p.size, cb);
                    }
                }
                ParamKind::SrvPtr(id) => {
                    let data = srv_bytes(d, id);
                    let a = dev.alloc(data.len() as u64);
                    dev.write(a, data).map_err(|e| emu_err(k, e))?;
                    put(&mut params, p.offset, p.size, &a.to_le_bytes());
                }
                ParamKind::SrvSize(id) => {
                    let n = srv_bytes(d, id).len() as u64;
                    put(&mut params, p.offset, p.size, &n.to_le_bytes());
                }
                ParamKind::Domain => {
                    let [w, h] = d.domain.unwrap_or([0, 0]);
                    let mut v = w.to_le_bytes().to_vec();
                    v.extend_from_slice(&h.to_le_bytes());
                    put(&mut params, p.offset, p.size, &v);
                }
                ParamKind::DomainOrigin => {
                    let [x, y] = d.domain_origin;
                    let mut v = x.to_le_bytes().to_vec();
                    v.extend_from_slice(&y.to_le_bytes());
                    put(&mut params, p.offset, p.size, &v);
                }
                ParamKind::OutPtr(id) => {
                    let [w, h] = d.domain.unwrap_or([0, 0]);
                    let len = w as usize * h as usize * 16;
                    let mut data = d.ps_outputs.get(&(id as u32)).cloned().unwrap_or_default();
                    data.resize(len, 0);
                    let a = dev.alloc(len as u64);
                    dev.write(a, &data).map_err(|e| emu_err(k, e))?;
                    outputs.push((id as u32, a, len));
                    put(&mut params, p.offset, p.size, &a.to_le_bytes());
                }
                ParamKind::OutSize(_) => {
                    let [w, h] = d.domain.unwrap_or([0, 0]);
                    let n = w as u64 * h as u64 * 16;
                    put(&mut params, p.offset, p.size, &n.to_le_bytes());
                }
                ParamKind::Texture {
                    resource,
                    sampler,
                    unnorm,
                    shape,
                    float_mask,
                } => {
                    let handle = textures.bind(
                        d.textures.get(&u32::from(resource)).cloned(),
                        texture_decl(shape, unnorm, float_mask),
                        sampler
                            .and_then(|s| d.samplers.get(&u32::from(s)).copied())
                            .unwrap_or_default(),
                    );
                    put(&mut params, p.offset, p.size, &handle.to_le_bytes());
                }
                ParamKind::CounterPtr(_) => {
                    // The interpreter starts every append counter at 0.
                    let a = dev.alloc(4);
                    put(&mut params, p.offset, p.size, &a.to_le_bytes());
                }
                ParamKind::ResDims(id) => {
                    let dims = d
                        .textures
                        .get(&(id as u32))
                        .map_or([0; 3], |t| [t.width, t.height, t.depth]);
                    let v: Vec<u8> = dims.iter().flat_map(|x| x.to_le_bytes()).collect();
                    put(&mut params, p.offset, p.size, &v);
                }
                ParamKind::UavView(id) => {
                    let words = d.uav_view(u32::from(id)).words();
                    let v: Vec<u8> = words.iter().flat_map(|x| x.to_le_bytes()).collect();
                    put(&mut params, p.offset, p.size, &v);
                }
            }
        }
        if !textures.objects.is_empty() {
            dev.set_texture_unit(std::sync::Arc::new(textures));
        }
        let group = layout.block_size.unwrap_or([64, 1, 1]);
        let grid = match (layout.param(ParamKind::Domain), d.domain) {
            (Some(_), Some([w, h])) => [w.div_ceil(group[0]), h.div_ceil(group[1]), 1],
            _ => d.grid,
        };
        let mut cfg = LaunchConfig {
            grid,
            block: group,
            params,
            check_hazards: self.check_hazards,
            warp_to_barrier: self.warp_to_barrier,
            ..LaunchConfig::default()
        };
        if let Some(f) = self.fuel {
            cfg.fuel = f;
        }
        let launch = dev.launch(cubin, name, &cfg).map_err(|e| emu_err(k, e))?;
        let mut out = d.clone();
        for (id, a, len) in bound {
            let bytes = dev.read(a, len as u64).map_err(|e| emu_err(k, e))?;
            match id {
                Some(id) => {
                    out.uavs.insert(id, bytes);
                }
                None => out.global = Some(bytes),
            }
        }
        for (id, a, len) in outputs {
            let bytes = dev.read(a, len as u64).map_err(|e| emu_err(k, e))?;
            out.ps_outputs.insert(id, bytes);
        }
        Ok((out, launch))
    }
}

/// The IL declaration a texture handle parameter describes.
pub fn texture_decl(shape: TexShape, unnorm: bool, float_mask: u8) -> ResourceDecl {
    let dim = match shape {
        TexShape::D1 => TexDim::D1,
        TexShape::D1Array => TexDim::D1Array,
        TexShape::D2 => TexDim::D2,
        TexShape::D2Array => TexDim::D2Array,
        TexShape::D3 => TexDim::D3,
        TexShape::Buffer => TexDim::Buffer,
    };
    let mut fmt = [ElementFormat::Uint; 4];
    for (c, f) in fmt.iter_mut().enumerate() {
        if float_mask >> c & 1 != 0 {
            *f = ElementFormat::Float;
        }
    }
    ResourceDecl { dim, unnorm, fmt }
}

/// Texture objects for the emulator's texture unit, the way a driver keeps them: handle
/// `k + 1` is object `k` (texels, the declaration it was created for, the sampler state).
/// Fetches follow `isa_amdil::interp::texture`, the semantics the interpreter gives IL
/// `sample`/`load`/`resinfo` (hardware register order: array index first).
#[derive(Clone, Debug, Default)]
pub struct TextureObjects {
    objects: Vec<(Option<Texture>, ResourceDecl, SamplerState)>,
}

impl TextureObjects {
    /// Creates a texture object; returns its handle (never 0).
    pub fn bind(&mut self, tex: Option<Texture>, decl: ResourceDecl, s: SamplerState) -> u64 {
        self.objects.push((tex, decl, s));
        self.objects.len() as u64
    }
}

impl TextureUnit for TextureObjects {
    fn fetch(&self, handle: u64, req: &TexRequest) -> Result<[u32; 4], String> {
        let (tex, decl, s) = handle
            .checked_sub(1)
            .and_then(|k| self.objects.get(k as usize))
            .ok_or("no texture object has this handle")?;
        let kind = match req.op {
            TexOp::Sample => TexKind::Sample,
            TexOp::Gather(c) => TexKind::Gather(c),
            TexOp::Fetch => TexKind::Fetch,
            TexOp::Query => TexKind::Query,
        };
        // Hardware order: the array layer first.
        let axes = decl.dim.axes();
        let first = decl.dim.layer_comp().is_some() as usize;
        let mut coords = [0u32; 4];
        coords[..axes].copy_from_slice(&req.coords[first..first + axes]);
        let layer = (first == 1).then_some(req.coords[0]);
        let level = if kind == TexKind::Query {
            req.coords[0]
        } else {
            req.lod.unwrap_or(0)
        };
        il_texture_op(kind, tex.as_ref(), decl, s, coords, layer, level)
    }
}

/// What IL `sample` (`kind` Sample: float coordinates, the layer an integer already
/// rounded), `load` (Fetch: integer coordinates, layer and level) or `resinfo` (Query:
/// integer results for `level`) returns, by the interpreter's texture semantics.
pub(crate) fn il_texture_op(
    kind: TexKind,
    tex: Option<&Texture>,
    decl: &ResourceDecl,
    s: &SamplerState,
    mut coords: [u32; 4],
    layer: Option<u32>,
    level: u32,
) -> Result<[u32; 4], String> {
    if kind == TexKind::Query {
        return Ok(texture::resinfo(tex, decl, level, true));
    }
    let tex = tex.ok_or("no texels are bound to the texture")?;
    if let (Some(lc), Some(l)) = (decl.dim.layer_comp(), layer) {
        coords[lc] = if kind == TexKind::Fetch {
            l
        } else {
            (l as i32 as f32).to_bits()
        };
    }
    match kind {
        TexKind::Sample => Ok(texture::sample(tex, decl, s, coords)),
        TexKind::Gather(c) => Ok(texture::gather(tex, decl, s, coords, usize::from(c))),
        _ => {
            coords[3] = level;
            Ok(texture::load(tex, decl, coords, [0; 3]))
        }
    }
}

/// The bytes behind read-only resource `id`: a bound texture's texels, else the SRV buffer.
fn srv_bytes(d: &Dispatch, id: u8) -> &[u8] {
    let id = u32::from(id);
    match d.textures.get(&id) {
        Some(t) => &t.data,
        None => d.srvs.get(&id).map_or(&[][..], |v| &v[..]),
    }
}

fn emu_err(dispatch: u32, e: impl fmt::Display) -> VerifyError {
    VerifyError::Emulator {
        dispatch,
        message: e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tolerance_rules() {
        assert!(words_match(5, 5, false));
        assert!(!words_match(5, 6, false));
        let one = 1.0f32.to_bits();
        assert!(words_match(one, one + 3, true));
        assert!(!words_match(one, one + 3, false));
        assert!(!words_match(one, 2.0f32.to_bits(), true));
        assert!(words_match(f32::NAN.to_bits(), 0x7fff_ffff, true));
        assert!(words_match(0.0f32.to_bits(), (-0.0f32).to_bits(), true));
    }

    #[test]
    fn saxpy_verifies() {
        let src = include_bytes!("../../tests/examples/saxpy.il");
        let r = verify(
            &Compiler::default(),
            src,
            &VerifyOptions {
                dispatches: 2,
                ..VerifyOptions::default()
            },
        )
        .unwrap();
        assert_eq!(r.compared, 2);
        assert!(r.passed(), "{r}");
    }
}
