//! `spa5-run`: runs a kernel of a cubin on the SPA 5.0 emulator, with the hazard checker.
//!
//! For cubins ilc wrote (they carry an `.ilc.abi` section), the dispatch interface is
//! `il-run`'s: `spa5-run KERNEL.cubin --grid X[,Y[,Z]] [--uav ID=FILE]... [--cb ID=FILE]...
//! [--srv ID=FILE]... [--g FILE] [--zero ID=BYTES]... [--out DIR]`; the IL resources are bound
//! to the kernel parameters the ABI section names (UAV, SRV and `g[]` buffers by address and
//! size, constant buffers copied in), the block size is the kernel's required one, and the
//! UAVs and `g[]` are written back as `DIR/uavID.bin` / `DIR/g.bin`, so the same files give the
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
use ilc_tools::dispatch::{parse_grid, write_outputs, DispatchArgs};
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
struct AbiParam {
    offset: u32,
    size: u32,
    role: String,
    id: i64,
}

/// Reads the `.ilc.abi` section (both spellings the project has used: `uav_ptr`/`uav_address`,
/// `g_ptr`/`global_address`, ...).
fn parse_abi(bytes: &[u8]) -> Result<Vec<AbiParam>, String> {
    let text = std::str::from_utf8(bytes).map_err(|_| "the .ilc.abi section is not text")?;
    let mut out = Vec::new();
    for line in text.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.first() != Some(&"param") {
            continue;
        }
        let num = |s: &str| -> Result<i64, String> {
            match s.strip_prefix("0x") {
                Some(h) => i64::from_str_radix(h, 16),
                None => s.parse(),
            }
            .map_err(|_| format!(".ilc.abi: bad number `{s}` in `{line}`"))
        };
        if f.len() < 4 {
            return Err(format!(".ilc.abi: short line `{line}`"));
        }
        out.push(AbiParam {
            offset: num(f[1])? as u32,
            size: num(f[2])? as u32,
            role: f[3].to_string(),
            id: f.get(4).map(|s| num(s)).transpose()?.unwrap_or(-1),
        });
    }
    Ok(out)
}

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
    let bufs = cli.dispatch.load().map_err(|e| e.to_string())?;
    // IL resources through the ABI section.
    let mut uav_addr = Vec::new();
    let mut global_addr = None;
    if let Some(abi) = &kernel.ilc_abi {
        let abi = parse_abi(abi).map_err(|e| format!("{file}: {e}"))?;
        params.resize(kernel.param_size() as usize, 0);
        for p in &abi {
            let id = p.id as u32;
            match p.role.as_str() {
                "uav_ptr" | "uav_address" => {
                    let data = bufs
                        .uavs
                        .get(&id)
                        .ok_or_else(|| format!("the kernel uses UAV {id}: give --uav {id}=FILE"))?;
                    let a = dev.alloc(data.len() as u64);
                    dev.write(a, data).map_err(|e| e.to_string())?;
                    uav_addr.push((id, a, data.len()));
                    put(&mut params, p.offset, p.size, &a.to_le_bytes());
                }
                "uav_size" => {
                    let n = bufs.uavs.get(&id).map_or(0, Vec::len) as u64;
                    put(&mut params, p.offset, p.size, &n.to_le_bytes());
                }
                "srv_ptr" | "srv_address" => {
                    let data = bufs.srvs.get(&id).ok_or_else(|| {
                        format!("the kernel reads SRV {id}: give --srv {id}=FILE")
                    })?;
                    let a = dev.alloc(data.len() as u64);
                    dev.write(a, data).map_err(|e| e.to_string())?;
                    put(&mut params, p.offset, p.size, &a.to_le_bytes());
                }
                "srv_size" => {
                    let n = bufs.srvs.get(&id).map_or(0, Vec::len) as u64;
                    put(&mut params, p.offset, p.size, &n.to_le_bytes());
                }
                "g_ptr" | "global_address" => {
                    let data = bufs
                        .global
                        .as_ref()
                        .ok_or("the kernel uses g[]: give --g FILE")?;
                    let a = dev.alloc(data.len() as u64);
                    dev.write(a, data).map_err(|e| e.to_string())?;
                    global_addr = Some((a, data.len()));
                    put(&mut params, p.offset, p.size, &a.to_le_bytes());
                }
                "g_size" | "global_size" => {
                    let n = bufs.global.as_ref().map_or(0, Vec::len) as u64;
                    put(&mut params, p.offset, p.size, &n.to_le_bytes());
                }
                "cb" => {
                    let data = bufs
                        .cbs
                        .get(&id)
                        .ok_or_else(|| format!("the kernel reads cb{id}: give --cb {id}=FILE"))?;
                    put(&mut params, p.offset, p.size, data);
                }
                other => return Err(format!("{file}: unknown parameter role `{other}`")),
            }
        }
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
    // Write back.
    let mut uavs = bufs.uavs.clone();
    for (id, a, n) in &uav_addr {
        uavs.insert(*id, dev.read(*a, *n as u64).map_err(|e| e.to_string())?);
    }
    let global = match global_addr {
        Some((a, n)) => Some(dev.read(a, n as u64).map_err(|e| e.to_string())?),
        None => None,
    };
    let mut written = if kernel.ilc_abi.is_some() {
        write_outputs(&cli.dispatch.out, &uavs, global.as_deref()).map_err(|e| e.to_string())?
    } else {
        std::fs::create_dir_all(&cli.dispatch.out)
            .map_err(|e| format!("{}: {e}", cli.dispatch.out.display()))?;
        Vec::new()
    };
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
