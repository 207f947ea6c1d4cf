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
//! OFFSET, write it back as `DIR/` + FILE's own name), `--dynamic-shared BYTES`.
//!
//! Exit status: 0 on success, 1 on any error (message naming the pc for execution errors),
//! 2 for bad usage, 3 when the hazard checker reports something (listed on stderr).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Parser;
use ilc::spa5::abi::{LaunchLayout, ParamKind};
use ilc::verify::EmulatedRun;
use ilc_tools::dispatch::{parse_grid, write_outputs, write_ps_outputs, DispatchArgs, TextureArgs};
use isa_amdil::interp::Dispatch;
use isa_spa5::cubin::read_cubin;
use isa_spa5::emu::{Device, LaunchConfig};

/// Run a cubin kernel on the SPA 5.0 emulator.
#[derive(Debug, Parser)]
#[command(name = "spa5-run", version)]
struct Cli {
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
    /// Do not run the hazard checker.
    #[arg(long)]
    no_hazards: bool,
    /// Warp-instruction budget.
    #[arg(long, default_value_t = 1 << 32)]
    fuel: u64,
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

fn put(params: &mut Vec<u8>, at: u32, size: u32, value: &[u8]) {
    let end = (at + size) as usize;
    if params.len() < end {
        params.resize(end, 0);
    }
    let n = value.len().min(size as usize);
    params[at as usize..at as usize + n].copy_from_slice(&value[..n]);
    params[at as usize + n..end].fill(0);
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
    let block = cli
        .block
        .or(kernel.block_size)
        .ok_or("the kernel has no required block size: give --block X,Y,Z")?;
    let mut dev = Device::new();
    let mut params = match &cli.param {
        Some(p) => read(p)?,
        None => Vec::new(),
    };
    if let Some(abi) = &kernel.ilc_abi {
        return run_ilc(cli, &file, &bytes, &kernel.name, abi);
    }
    // Foreign buffers patched into raw parameters.
    let mut foreign = Vec::new();
    for (off, path) in &cli.bufs {
        let data = read(path)?;
        let a = dev.alloc(data.len() as u64);
        dev.write(a, &data).map_err(|e| e.to_string())?;
        put(&mut params, *off, 8, &a.to_le_bytes());
        foreign.push((path.clone(), a, data.len()));
    }
    let cfg = LaunchConfig {
        grid: cli.dispatch.grid,
        block,
        params,
        dynamic_shared: cli.dynamic_shared,
        check_hazards: !cli.no_hazards,
        fuel: cli.fuel,
    };
    let report = dev
        .launch(&bytes, &kernel.name, &cfg)
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
    Ok(report.hazards.is_empty())
}

/// A cubin ilc wrote: bind the IL resources through its `.ilc.abi` launch layout, exactly as
/// `il-run` binds them to the interpreter, and write the results back the same way.
fn run_ilc(cli: &Cli, file: &str, cubin: &[u8], name: &str, abi: &[u8]) -> Result<bool, String> {
    let mut layout = LaunchLayout::from_abi(abi).map_err(|e| format!("{file}: .ilc.abi: {e}"))?;
    if let Some(b) = cli.block {
        layout.block_size = Some(b);
    }
    let bufs = cli.dispatch.load().map_err(|e| e.to_string())?;
    let mut d = Dispatch::new(cli.dispatch.grid);
    d.uavs = bufs.uavs;
    d.cbs = bufs.cbs;
    d.srvs = bufs.srvs;
    d.global = bufs.global;
    d.textures = cli.tex.load().map_err(|e| e.to_string())?;
    d.samplers = cli.tex.samplers.iter().copied().collect();
    d.domain = cli.tex.domain;
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
    Ok(report.hazards.is_empty())
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(&cli) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(3),
        Err(e) => {
            eprintln!("spa5-run: error: {e}");
            ExitCode::FAILURE
        }
    }
}
