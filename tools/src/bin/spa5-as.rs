//! `spa5-as`: assembles SPA 5.0 code into a cubin or raw words.
//!
//! `spa5-as FILE -o OUT [--arch sm_50]`: FILE is a whole `nvdisasm -hex` listing (reassembles
//! to identical words) or SPA-syntax source (one instruction per line with its scheduling
//! hints, `.kernel NAME` to start a kernel). OUT ending in `.bin` gets the raw little-endian
//! words of the first kernel; otherwise a cubin with every kernel. Exit 1 with a message
//! naming the line on bad input; never panics.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use ilc_tools::spa5_text::{assemble, register_count};
use isa_spa5::cubin::{scan_instr_offsets, write_cubin, Kernel, Sm};

/// Assemble SPA 5.0 (Maxwell) code.
#[derive(Parser, Debug)]
#[command(name = "spa5-as", version)]
struct Cli {
    #[command(flatten)]
    log: ilc_tools::logging::LogArgs,
    /// nvdisasm listing or SPA-syntax source.
    file: PathBuf,
    /// Output: `.bin` for raw words, anything else for a cubin.
    #[arg(short = 'o', long)]
    output: PathBuf,
    /// Architecture recorded in the cubin.
    #[arg(long, default_value = "sm_50")]
    arch: String,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    cli.log.init("spa5-as");
    match run(&cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            ilc_tools::report::error("spa5-as", e);
            ExitCode::from(1)
        }
    }
}

fn run(cli: &Cli) -> Result<(), String> {
    let name = cli.file.display().to_string();
    let text = std::fs::read_to_string(&cli.file).map_err(|e| format!("{name}: {e}"))?;
    let kernels = assemble(&text).map_err(|e| format!("{name}: {e}"))?;
    let bytes = if cli.output.extension().is_some_and(|e| e == "bin") {
        let first = kernels.first().ok_or(format!("{name}: no code"))?;
        first.words.iter().flat_map(|w| w.to_le_bytes()).collect()
    } else {
        let sm = cli
            .arch
            .trim_start_matches("sm_")
            .parse()
            .ok()
            .and_then(Sm::from_number)
            .ok_or(format!("unknown architecture `{}`", cli.arch))?;
        let ks: Vec<Kernel> = kernels
            .iter()
            .map(|k| {
                let (exit_offsets, s2rctaid_offsets) = scan_instr_offsets(&k.words);
                Kernel {
                    name: k.name.clone(),
                    code: k.words.clone(),
                    num_regs: register_count(&k.words),
                    exit_offsets,
                    s2rctaid_offsets,
                    ..Kernel::default()
                }
            })
            .collect();
        write_cubin(sm, &ks).map_err(|e| format!("cubin: {e}"))?
    };
    ilc_tools::write_file(&cli.output, &bytes).map_err(|e| format!("{}: {e}", cli.output.display()))
}
