//! `spa5-as`: assembles SPA 5.0 code into a cubin or raw words.
//!
//! `spa5-as FILE -o OUT [--arch sm_50]`: FILE is a whole `nvdisasm -hex` listing (reassembles
//! to identical words) or SPA-syntax source (one instruction per line with its scheduling
//! hints; kernel directives such as `.kernel NAME`, `.regs N`, `.param OFF SIZE`, `.block X Y
//! Z`, `.const BANK OFF HEX` give the cubin what ilc's or spa5-dis's listing recorded, so
//! their SPA output reassembles to the same cubin). OUT ending in `.bin` gets the raw little-endian
//! words of the first kernel; otherwise a cubin with every kernel. Exit 1 with a message
//! naming the line on bad input; never panics.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use ilc_tools::spa5_text::assemble;
use isa_spa5::cubin::Sm;

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
    /// Architecture recorded in the cubin (default: the file's `.target`, else sm_50).
    #[arg(long)]
    arch: Option<String>,
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
    let asm = assemble(&text).map_err(|e| format!("{name}: {e}"))?;
    let bytes = if cli.output.extension().is_some_and(|e| e == "bin") {
        let first = asm.kernels.first().ok_or(format!("{name}: no code"))?;
        first.code.iter().flat_map(|w| w.to_le_bytes()).collect()
    } else {
        let arch = match cli.arch.as_deref() {
            Some(a) => Some(
                a.parse::<Sm>()
                    .map_err(|_| format!("unknown architecture `{a}`"))?,
            ),
            None => None,
        };
        asm.to_cubin(arch)?
    };
    ilc_tools::write_file(&cli.output, &bytes).map_err(|e| format!("{}: {e}", cli.output.display()))
}
