//! `il-run`: runs an AMD IL compute kernel on the reference interpreter.
//!
//! `il-run KERNEL.il --grid X[,Y[,Z]] [--uav ID=FILE]... [--cb ID=FILE]... [--srv ID=FILE]...
//! [--g FILE] [--zero ID=BYTES]... [--lds-check] [--shuffle SEED] [--fuel N] [--report-oob]
//! [--strict] [--out DIR] [--tex ID=FILE:WxH[xD]:FMT[xN]]... [--sampler ID=MODE]...
//! [--domain W,H]`
//!
//! Pixel-shader compute kernels (`il_ps`) run over `--domain W,H` pixels instead of
//! `--grid`; each output `o#` is written to `DIR/oN.bin` (16 bytes per pixel, row-major).
//!
//! Buffers are raw little-endian files; after the dispatch every UAV is written to
//! `DIR/uavID.bin` and `g[]` to `DIR/g.bin`. Statistics and reports go to stderr. Every
//! error is a message and exit status 1 (2 for bad command-line usage, as clap does); the
//! program never panics on user input.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use ilc_tools::dispatch::{
    check_work_items, load_dispatch, write_outputs, write_ps_outputs, DispatchArgs, TextureArgs,
    DEFAULT_FUEL,
};
use ilc_tools::report::Reporter;
use isa_amdil::interp::{self, Schedule};

/// Run an AMD IL compute kernel on the reference interpreter.
#[derive(Debug, Parser)]
#[command(name = "il-run", version)]
struct Cli {
    #[command(flatten)]
    log: ilc_tools::logging::LogArgs,
    /// The kernel: IL text, or a binary IL token stream.
    kernel: PathBuf,
    #[command(flatten)]
    dispatch: DispatchArgs,
    #[command(flatten)]
    tex: TextureArgs,
    /// Report pairs of work-items touching one LDS word between barriers (one writing).
    #[arg(long)]
    lds_check: bool,
    /// Interleave work-items in random bursts (seeded) instead of lock step.
    #[arg(long, value_name = "SEED")]
    shuffle: Option<u64>,
    /// Instruction budget over all work-items (the default stops an endless loop in seconds).
    #[arg(long, default_value_t = DEFAULT_FUEL)]
    fuel: u64,
    /// List out-of-range memory accesses.
    #[arg(long)]
    report_oob: bool,
    /// Exit with status 1 when --lds-check finds a race.
    #[arg(long)]
    strict: bool,
}

/// Binary IL is detected exactly as the compiler detects it (by the IL_Lang token).
use ilc::frontend::is_binary;

/// Reads the kernel as IL text or as a binary token stream.
fn load_program(path: &std::path::Path, report: &Reporter) -> Result<isa_amdil::Program, String> {
    let file = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| format!("{file}: {e}"))?;
    if is_binary(&bytes) {
        let words: Vec<u32> = bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        return isa_amdil::decode_binary(&words).map_err(|e| format!("{file}: {e}"));
    }
    let source = String::from_utf8(bytes).map_err(|_| format!("{file}: not UTF-8 IL text"))?;
    let (prog, diags) = isa_amdil::parse(&source);
    report.diagnostics_and_summary(&diags, &file, &source);
    // The diagnostics said why (an empty message adds no `il-run: error:` line).
    prog.ok_or_else(String::new)
}

fn run(cli: &Cli) -> Result<bool, String> {
    let file = cli.kernel.display().to_string();
    let report = Reporter {
        quiet: cli.log.quiet,
        ..Reporter::new("il-run")
    };
    let prog = load_program(&cli.kernel, &report)?;
    let exec = interp::prepare(&prog).map_err(|e| format!("{file}: {e}"))?;
    check_work_items(cli.dispatch.grid, exec.group, cli.tex.domain).map_err(|e| e.to_string())?;
    let mut d = load_dispatch(&cli.dispatch, &cli.tex).map_err(|e| e.to_string())?;
    d.fuel = cli.fuel;
    d.lds_check = cli.lds_check;
    d.report_oob = cli.report_oob;
    if let Some(seed) = cli.shuffle {
        d.schedule = Schedule::Shuffled { seed };
    }
    let stats = interp::run_decoded(&exec, &mut d).map_err(|e| format!("{file}: {e}"))?;
    for w in &stats.warnings {
        report.warning(w);
    }
    for o in &stats.oob {
        eprintln!(
            "out of range: {:?} {} byte {:#x} at line {} by work-item {}",
            o.space,
            if o.write { "store to" } else { "load from" },
            o.addr,
            o.line,
            o.item
        );
    }
    for r in &stats.lds_races {
        eprintln!(
            "lds race: lds {} dword {:#x} in group {}: work-items {} and {} (line {})",
            r.lds, r.addr, r.group, r.items.0, r.items.1, r.line
        );
    }
    let mut written = write_outputs(&cli.dispatch.out, &d.uavs, d.global.as_deref())
        .map_err(|e| e.to_string())?;
    written.extend(write_ps_outputs(&cli.dispatch.out, &d.ps_outputs).map_err(|e| e.to_string())?);
    eprintln!(
        "il-run: {} groups, {} work-items, {} instructions, {} barriers, {} out-of-range, {} lds races; wrote {} files to {}",
        stats.groups,
        stats.work_items,
        stats.instructions,
        stats.barriers,
        stats.oob_count,
        stats.lds_races.len(),
        written.len(),
        cli.dispatch.out.display()
    );
    Ok(stats.lds_races.is_empty())
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    cli.log.init("il-run");
    match run(&cli) {
        Ok(clean) if clean || !cli.strict => ExitCode::SUCCESS,
        Ok(_) => ExitCode::FAILURE,
        Err(msg) => {
            if !msg.is_empty() {
                ilc_tools::report::error("il-run", msg);
            }
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_and_binary_kernels_load_the_same_program() {
        let src = include_str!("../../../tests/examples/saxpy.il");
        assert!(!is_binary(src.as_bytes()));
        let (prog, _) = isa_amdil::parse(src);
        let prog = prog.expect("saxpy parses");
        let words = isa_amdil::encode_binary(&prog).expect("saxpy encodes");
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        assert!(is_binary(&bytes));
        let dir = std::env::temp_dir().join(format!("il-run-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let (t, b) = (dir.join("k.il"), dir.join("k.ilb"));
        std::fs::write(&t, src).expect("write");
        std::fs::write(&b, &bytes).expect("write");
        let from_text =
            interp::prepare(&load_program(&t, &Reporter::new("il-run")).expect("text loads"))
                .expect("decodes");
        let from_bin =
            interp::prepare(&load_program(&b, &Reporter::new("il-run")).expect("binary loads"))
                .expect("decodes");
        assert_eq!(from_text.insts.len(), from_bin.insts.len());
        assert!(load_program(&dir.join("missing.il"), &Reporter::new("il-run")).is_err());
        std::fs::remove_dir_all(&dir).expect("cleanup");
    }
}
