//! `spa5-run`: runs a kernel of a cubin on the SPA 5.0 emulator, with the hazard checker.
//!
//! For cubins ilc wrote (they carry an `.ilc.abi` section), the dispatch interface is
//! `il-run`'s: `spa5-run KERNEL.cubin --grid X[,Y[,Z]] [--uav ID=FILE]... [--cb ID=FILE]...
//! [--srv ID=FILE]... [--g FILE] [--zero ID=BYTES]... [--tex ID=FILE:WxH[xD]:FORMAT[xN]]...
//! [--domain W,H] [--out DIR]`; the IL resources are bound
//! to the kernel parameters the ABI section names (UAV, SRV and `g[]` buffers by address and
//! size, constant buffers copied in), the block size is the kernel's required one, and the
//! UAVs, `g[]` and pixel-shader outputs are written back as `DIR/uavID.bin` / `DIR/g.bin` /
//! `DIR/oN.bin`, so the same files give the
//! same outputs as `il-run`.
//!
//! For other cubins (ptxas's): `--block X,Y,Z`, `--param FILE` (raw parameter bytes),
//! `--buf OFFSET=FILE` (bind FILE as a buffer, patch its address into the parameters at byte
//! OFFSET, write it back as `DIR/` + FILE's own name), `--dynamic-shared BYTES`,
//! `--symbol NAME=FILE` (write FILE into the `__constant__`/`__device__` variable NAME before
//! the launch, as `cudaMemcpyToSymbol` does). Flags of the other kind of cubin are rejected.
//! `--stack-size BYTES` (either kind) sets the per-thread stack of kernels that call
//! functions, as `cudaDeviceSetLimit(cudaLimitStackSize)` (default 1 KiB).
//!
//! `--stats` prints executed warp instructions, thread instructions, warp instructions by
//! class, modeled issue cycles (the slowest warp and the sum over warps; see
//! `isa_spa5::emu::stats`), and the register bank conflicts and operand reuse cache hits
//! counted in them (`isa_spa5::banks`) on stdout after the run, with the cycles split into
//! stall counts, bank conflicts, scoreboard waits and block-barrier waits; `--stats=json` prints
//! them as one JSON object. `--profile` prints, for every instruction executed, in program order,
//! where its cycles went (summed over warps): stall counts, bank conflicts, the cycles waited on
//! each scoreboard and at block barriers (`isa_spa5::emu::stats::PcCycles`). Both runners share their limits (`ilc_tools::dispatch`): at most
//! `MAX_WORK_ITEMS` threads and `MEMORY_BUDGET` bytes of buffers, checked before anything is
//! allocated, and default fuels that stop an endless loop within seconds (`DEFAULT_FUEL` work-item
//! instructions for `il-run`, `DEFAULT_WARP_FUEL` warp instructions here).
//!
//! Exit status: 0 on success, 1 on any error (message naming the pc for execution errors),
//! 2 for bad usage, 3 when the hazard checker reports something (listed on stderr).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Parser;
use ilc::spa5::abi::{LaunchLayout, ParamKind};
use ilc::verify::EmulatedRun;
use ilc_tools::dispatch::{
    check_work_items, load_dispatch, parse_grid, write_outputs, write_ps_outputs, Budget,
    DispatchArgs, TextureArgs, DEFAULT_WARP_FUEL,
};
use isa_spa5::cubin::read_cubin;
use isa_spa5::emu::{stats, Device, LaunchConfig, LaunchReport, BANK_SIZE, DRIVER_AREA};

/// Run a cubin kernel on the SPA 5.0 emulator.
#[derive(Debug, Parser)]
#[command(name = "spa5-run", version)]
struct Cli {
    #[command(flatten)]
    log: ilc_tools::logging::LogArgs,
    /// The cubin.
    cubin: PathBuf,
    /// Kernel name (default: the only or first kernel).
    #[arg(long)]
    kernel: Option<String>,
    #[command(flatten)]
    dispatch: DispatchArgs,
    #[command(flatten)]
    tex: TextureArgs,
    /// Threads per block X[,Y[,Z]] (default: the kernel's required block size).
    #[arg(long, value_parser = parse_grid)]
    block: Option<[u32; 3]>,
    /// Raw parameter bytes (for cubins without an ilc ABI section).
    #[arg(long)]
    param: Option<PathBuf>,
    /// Bind FILE as a buffer and patch its address at parameter byte OFFSET: OFFSET=FILE.
    #[arg(long = "buf", value_parser = parse_buf)]
    bufs: Vec<(u32, PathBuf)>,
    /// Dynamic shared memory in bytes.
    #[arg(long, default_value_t = 0)]
    dynamic_shared: u32,
    /// Per-thread stack bytes for kernels that call functions, as
    /// cudaDeviceSetLimit(cudaLimitStackSize) (deep recursion needs more).
    #[arg(long = "stack-size", value_name = "BYTES", default_value_t = isa_spa5::emu::DEFAULT_STACK_SIZE,
          value_parser = clap::value_parser!(u32).range(0..=1 << 16))]
    stack_size: u32,
    /// Do not run the hazard checker.
    #[arg(long)]
    no_hazards: bool,
    /// Warp-instruction budget (the default stops an endless loop in seconds).
    #[arg(long, default_value_t = DEFAULT_WARP_FUEL)]
    fuel: u64,
    /// Write FILE into the data symbol NAME before the launch: NAME=FILE (repeatable).
    #[arg(long = "symbol", value_parser = parse_symbol)]
    symbols: Vec<(String, PathBuf)>,
    /// Print execution statistics after the run (`--stats=json`: one JSON object).
    #[arg(long, num_args = 0..=1, default_missing_value = "text", require_equals = true,
          value_parser = ["text", "json"])]
    stats: Option<String>,
    /// Print each executed instruction's modeled cycles: stalls, bank conflicts, waits per
    /// scoreboard and at block barriers, summed over warps.
    #[arg(long)]
    profile: bool,
}

fn parse_symbol(s: &str) -> Result<(String, PathBuf), String> {
    match s.split_once('=') {
        Some((name, file)) if !name.is_empty() && !file.is_empty() => {
            Ok((name.to_string(), PathBuf::from(file)))
        }
        _ => Err(format!("expected NAME=FILE, got `{s}`")),
    }
}

/// Bytes of the parameter block a foreign launch may use (constant bank 0 after the driver
/// area).
const PARAM_SPACE: u64 = (BANK_SIZE - DRIVER_AREA) as u64;

/// The statistics of a run, as text or one JSON object.
fn render_stats(r: &LaunchReport, json: bool) -> String {
    let (mut stall, mut wait, mut barrier) = (0, 0, 0);
    for p in &r.profile {
        stall += p.stall;
        wait += p.scoreboard_wait();
        barrier += p.barrier;
    }
    // Each figure's JSON key and text label; the parts of the summed cycles are indented.
    let figures = [
        (
            "warp_instructions",
            "warp instructions",
            r.warp_instructions,
        ),
        (
            "thread_instructions",
            "thread instructions",
            r.thread_instructions,
        ),
        (
            "cycles_critical_warp",
            "cycles (critical warp)",
            r.cycles_critical_warp,
        ),
        ("cycles_sum", "cycles (sum of warps)", r.cycles_sum),
        ("cycles_stall", "  stall counts", stall),
        ("cycles_scoreboard_wait", "  scoreboard waits", wait),
        ("cycles_barrier_wait", "  barrier waits", barrier),
        ("bank_conflicts", "bank conflicts", r.bank_conflicts),
        ("reuse_hits", "reuse cache hits", r.reuse_hits),
        ("hazards", "hazards", r.hazards.len() as u64),
    ];
    let classes = stats::CLASSES
        .iter()
        .zip(r.by_class)
        .filter(|(_, n)| *n > 0)
        .map(|(c, n)| (stats::class_name(*c), n));
    if json {
        let fields: Vec<String> = figures
            .iter()
            .map(|(key, _, n)| format!("\"{key}\": {n}"))
            .collect();
        let by: Vec<String> = classes.map(|(c, n)| format!("\"{c}\": {n}")).collect();
        format!(
            "{{{}, \"by_class\": {{{}}}}}",
            fields.join(", "),
            by.join(", ")
        )
    } else {
        let mut s = String::new();
        for (_, label, n) in figures {
            s.push_str(&format!("{:<24}{n}\n", format!("{label}:")));
        }
        for (c, n) in classes {
            s.push_str(&format!("  {c:<8} {n}\n"));
        }
        s.trim_end().to_string()
    }
}

/// Each executed instruction of `code` with the cycles `r` charged to it, in program order.
fn render_profile(r: &LaunchReport, code: &[(isa_spa5::Inst, isa_spa5::Control)]) -> String {
    let mut s = format!(
        "{:>6} {:>9} {:>10} {:>9} {:>9} {:>10} {:>9}  {:<27} instruction\n",
        "addr", "count", "cycles", "stall", "conflict", "wait", "barrier", "wait by scoreboard"
    );
    for (i, ((inst, ctrl), p)) in code.iter().zip(&r.profile).enumerate() {
        if p.executed == 0 {
            continue;
        }
        let addr = isa_spa5::program::inst_addr(i);
        let by_sb: Vec<String> = (0..p.waited.len())
            .filter(|&b| p.waited[b] > 0)
            .map(|b| format!("sb{b}:{}", p.waited[b]))
            .collect();
        s.push_str(&format!(
            "{addr:>#6x} {:>9} {:>10} {:>9} {:>9} {:>10} {:>9}  {:<27} {}\n",
            p.executed,
            p.total(),
            p.stall,
            p.conflicts,
            p.scoreboard_wait(),
            p.barrier,
            by_sb.join(" "),
            isa_spa5::asm::print::print_spa(inst, ctrl, addr)
        ));
    }
    s.trim_end().to_string()
}

fn print_stats(cli: &Cli, r: &LaunchReport, code: &[(isa_spa5::Inst, isa_spa5::Control)]) {
    if let Some(mode) = &cli.stats {
        println!("{}", render_stats(r, mode == "json"));
    }
    if cli.profile {
        println!("{}", render_profile(r, code));
    }
}

/// Rejects the flags that do not apply to the kind of cubin (ilc's or a foreign one).
fn check_flags(cli: &Cli, ilc: bool) -> Result<(), String> {
    let d = &cli.dispatch;
    let given: &[(&str, bool)] = if ilc {
        &[
            ("--buf", !cli.bufs.is_empty()),
            ("--param", cli.param.is_some()),
            ("--dynamic-shared", cli.dynamic_shared != 0),
            ("--symbol", !cli.symbols.is_empty()),
        ]
    } else {
        &[
            ("--uav", !d.uavs.is_empty()),
            ("--cb", !d.cbs.is_empty()),
            ("--srv", !d.srvs.is_empty()),
            ("--g", d.global.is_some()),
            ("--zero", !d.zero.is_empty()),
            ("--tex", !cli.tex.textures.is_empty()),
            ("--sampler", !cli.tex.samplers.is_empty()),
            ("--domain", cli.tex.domain.is_some()),
        ]
    };
    match given.iter().find(|(_, g)| *g) {
        Some((flag, _)) if ilc => Err(format!(
            "{flag} applies to cubins without an ilc ABI section; this one is ilc's (bind IL \
             resources with --uav/--cb/--srv/--g)"
        )),
        Some((flag, _)) => Err(format!(
            "{flag} applies to cubins ilc wrote; this one has no ilc ABI section (use --param, \
             --buf, --symbol)"
        )),
        None => Ok(()),
    }
}

fn parse_buf(s: &str) -> Result<(u32, PathBuf), String> {
    let (off, file) = s
        .split_once('=')
        .ok_or_else(|| format!("expected OFFSET=FILE, got `{s}`"))?;
    let off = match off.strip_prefix("0x") {
        Some(h) => u32::from_str_radix(h, 16),
        None => off.parse(),
    }
    .map_err(|_| format!("`{off}` is not a byte offset"))?;
    Ok((off, PathBuf::from(file)))
}

/// One parameter of the `.ilc.abi` text: offset, size, role, id.
fn read(p: &Path) -> Result<Vec<u8>, String> {
    std::fs::read(p).map_err(|e| format!("{}: {e}", p.display()))
}

/// Writes `value` (zero-extended to `size` bytes) at byte `at` of the parameter block,
/// growing it; fails when the field lies beyond the parameter space.
fn put(params: &mut Vec<u8>, at: u32, size: u32, value: &[u8]) -> Result<(), String> {
    let end = at as u64 + size as u64;
    if end > PARAM_SPACE {
        return Err(format!(
            "parameter bytes {at}..{end} lie beyond the {PARAM_SPACE}-byte parameter space"
        ));
    }
    let (at, end) = (at as usize, end as usize);
    if params.len() < end {
        params.resize(end, 0);
    }
    let n = value.len().min(end - at);
    params[at..at + n].copy_from_slice(&value[..n]);
    params[at + n..end].fill(0);
    Ok(())
}

fn run(cli: &Cli) -> Result<bool, String> {
    let file = cli.cubin.display().to_string();
    let bytes = read(&cli.cubin)?;
    let module = read_cubin(&bytes).map_err(|e| format!("{file}: {e}"))?;
    let kernel = match &cli.kernel {
        Some(k) => module
            .kernel(k)
            .ok_or_else(|| format!("{file}: no kernel named `{k}`"))?,
        None => module
            .kernels
            .first()
            .ok_or_else(|| format!("{file}: no kernels"))?,
    };
    check_flags(cli, kernel.ilc_abi.is_some())?;
    let block = cli
        .block
        .or(kernel.block_size)
        .ok_or("the kernel has no required block size: give --block X,Y,Z")?;
    if let Some(abi) = &kernel.ilc_abi {
        return run_ilc(cli, &file, &bytes, &kernel.name, abi);
    }
    check_work_items(cli.dispatch.grid, block, None).map_err(|e| e.to_string())?;
    let mut budget = Budget::default();
    let mut dev = Device::new();
    let mut params = match &cli.param {
        Some(p) => budget.read(p).map_err(|e| e.to_string())?,
        None => Vec::new(),
    };
    if params.len() as u64 > PARAM_SPACE {
        return Err(format!(
            "--param: {} bytes exceed the {PARAM_SPACE}-byte parameter space",
            params.len()
        ));
    }
    // Foreign buffers patched into raw parameters.
    let mut foreign = Vec::new();
    for (off, path) in &cli.bufs {
        put(&mut params, *off, 8, &[])?;
        let data = budget.read(path).map_err(|e| e.to_string())?;
        let a = dev.alloc(data.len() as u64);
        dev.write(a, &data).map_err(|e| e.to_string())?;
        put(&mut params, *off, 8, &a.to_le_bytes())?;
        foreign.push((path.clone(), a, data.len()));
    }
    let mut module = module.clone();
    for (name, path) in &cli.symbols {
        let data = budget.read(path).map_err(|e| e.to_string())?;
        module
            .write_symbol(name, &data)
            .map_err(|e| format!("--symbol {name}: {e}"))?;
    }
    let kernel = kernel.clone();
    let code = isa_spa5::program::decode_program(&kernel.code)
        .map_err(|e| format!("{file}: code does not decode: {e}"))?;
    let cfg = LaunchConfig {
        grid: cli.dispatch.grid,
        block,
        params,
        dynamic_shared: cli.dynamic_shared,
        stack_size: cli.stack_size,
        check_hazards: !cli.no_hazards,
        fuel: cli.fuel,
        ..LaunchConfig::default()
    };
    let report = dev
        .launch_decoded(&module, &kernel, &code, &cfg)
        .map_err(|e| format!("{file}: {e}"))?;
    for h in &report.hazards {
        eprintln!("hazard: {h}");
    }
    std::fs::create_dir_all(&cli.dispatch.out)
        .map_err(|e| format!("{}: {e}", cli.dispatch.out.display()))?;
    let mut written = Vec::new();
    for (path, a, n) in &foreign {
        let name = path.file_name().ok_or("--buf FILE has no file name")?;
        let out = cli.dispatch.out.join(name);
        let data = dev.read(*a, *n as u64).map_err(|e| e.to_string())?;
        std::fs::write(&out, data).map_err(|e| format!("{}: {e}", out.display()))?;
        written.push(out);
    }
    eprintln!(
        "spa5-run: {report}; wrote {} files to {}",
        written.len(),
        cli.dispatch.out.display()
    );
    print_stats(cli, &report, &code);
    Ok(report.hazards.is_empty())
}

/// A cubin ilc wrote: bind the IL resources through its `.ilc.abi` launch layout, exactly as
/// `il-run` binds them to the interpreter, and write the results back the same way.
fn run_ilc(cli: &Cli, file: &str, cubin: &[u8], name: &str, abi: &[u8]) -> Result<bool, String> {
    let mut layout = LaunchLayout::from_abi(abi).map_err(|e| format!("{file}: .ilc.abi: {e}"))?;
    if let Some(b) = cli.block {
        layout.block_size = Some(b);
    }
    let group = layout.block_size.unwrap_or([1, 1, 1]);
    let [_, gy, gz] = cli.dispatch.grid;
    if layout.grid_1d && (gy > 1 || gz > 1) {
        return Err(format!(
            "{file}: the kernel was compiled for 1-D launches (ilc --launch-1d) but --grid is \
             {:?}; recompile without --launch-1d",
            cli.dispatch.grid
        ));
    }
    check_work_items(cli.dispatch.grid, group, cli.tex.domain).map_err(|e| e.to_string())?;
    let d = load_dispatch(&cli.dispatch, &cli.tex).map_err(|e| e.to_string())?;
    for p in &layout.params {
        let id = match p.kind {
            ParamKind::UavPtr(id) => id as u32,
            ParamKind::SrvPtr(id) => id as u32,
            ParamKind::CbData(id) => id as u32,
            _ => 0,
        };
        let missing = match p.kind {
            ParamKind::UavPtr(_) if !d.uavs.contains_key(&id) => Some(format!(
                "the kernel uses UAV {id}: give --uav {id}=FILE or --zero {id}=BYTES"
            )),
            ParamKind::SrvPtr(_) if !d.srvs.contains_key(&id) && !d.textures.contains_key(&id) => {
                Some(format!(
                    "the kernel reads resource {id}: give --srv {id}=FILE or --tex {id}=..."
                ))
            }
            ParamKind::CbData(_) if !d.cbs.contains_key(&id) => {
                Some(format!("the kernel reads cb{id}: give --cb {id}=FILE"))
            }
            ParamKind::GlobalPtr if d.global.is_none() => {
                Some("the kernel uses g[]: give --g FILE".to_string())
            }
            ParamKind::Domain if d.domain.is_none() => {
                Some("a pixel-shader kernel needs --domain W,H".to_string())
            }
            _ => None,
        };
        if let Some(m) = missing {
            return Err(m);
        }
    }
    let run = EmulatedRun {
        check_hazards: !cli.no_hazards,
        fuel: Some(cli.fuel),
        warp_to_barrier: false,
    };
    let (out, report) = run
        .run(cubin, name, &layout, &d)
        .map_err(|e| format!("{file}: {e}"))?;
    for h in &report.hazards {
        eprintln!("hazard: {h}");
    }
    let mut written = write_outputs(&cli.dispatch.out, &out.uavs, out.global.as_deref())
        .map_err(|e| e.to_string())?;
    written
        .extend(write_ps_outputs(&cli.dispatch.out, &out.ps_outputs).map_err(|e| e.to_string())?);
    eprintln!(
        "spa5-run: {report}; wrote {} files to {}",
        written.len(),
        cli.dispatch.out.display()
    );
    let code = if cli.profile {
        let module = read_cubin(cubin).map_err(|e| format!("{file}: {e}"))?;
        let kernel = module
            .kernel(name)
            .ok_or_else(|| format!("{file}: no kernel `{name}`"))?;
        isa_spa5::program::decode_program(&kernel.code)
            .map_err(|e| format!("{file}: code does not decode: {e}"))?
    } else {
        Vec::new()
    };
    print_stats(cli, &report, &code);
    Ok(report.hazards.is_empty())
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    cli.log.init("spa5-run");
    match run(&cli) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(3),
        Err(e) => {
            ilc_tools::report::error("spa5-run", e);
            ExitCode::FAILURE
        }
    }
}
