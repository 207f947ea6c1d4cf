//! `spa5-dis`: disassembles SPA 5.0 code: a cubin (every kernel) or raw words (`--raw`).
//!
//! `spa5-dis FILE [--raw] [--syntax nvdisasm|spa]`. In the default syntax each code section
//! is `.text.NAME:` and then exactly nvdisasm's text of it (labels, `SYNC` targets, dual-issue
//! braces; checked on ilc's cubins); `--syntax spa` prints the SPA directives and the
//! scheduling hints instead, which `spa5-as` reassembles to the same cubin.
//! Exit 1 with a message on unreadable input; never panics.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, ValueEnum};
use ilc_tools::spa5_text::{
    disassemble, disassemble_sections, kernel_directives, module_directives, Syntax,
};

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum SyntaxArg {
    Nvdisasm,
    Spa,
}

/// Disassemble SPA 5.0 (Maxwell) code.
#[derive(Parser, Debug)]
#[command(name = "spa5-dis", version)]
struct Cli {
    #[command(flatten)]
    log: ilc_tools::logging::LogArgs,
    /// A cubin, or raw little-endian code words with --raw.
    file: PathBuf,
    /// The file is raw code words (a control word before every three instructions).
    #[arg(long)]
    raw: bool,
    /// Assembly syntax.
    #[arg(long, value_enum, default_value = "nvdisasm")]
    syntax: SyntaxArg,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    cli.log.init("spa5-dis");
    let syntax = match cli.syntax {
        SyntaxArg::Nvdisasm => Syntax::Nvdisasm,
        SyntaxArg::Spa => Syntax::Spa,
    };
    let bytes = match std::fs::read(&cli.file) {
        Ok(b) => b,
        Err(e) => {
            ilc_tools::report::error("spa5-dis", format_args!("{}: {e}", cli.file.display()));
            return ExitCode::from(1);
        }
    };
    let mut out = String::new();
    if cli.raw {
        if !bytes.len().is_multiple_of(8) {
            ilc_tools::report::error(
                "spa5-dis",
                format_args!(
                    "{}: {} bytes is not a whole number of 64-bit words",
                    cli.file.display(),
                    bytes.len()
                ),
            );
            return ExitCode::from(1);
        }
        let words: Vec<u64> = bytes
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
            .collect();
        out.push_str(&disassemble(&words, syntax));
    } else {
        let cubin = match isa_spa5::cubin::read_cubin(&bytes) {
            Ok(c) => c,
            Err(e) => {
                ilc_tools::report::error("spa5-dis", format_args!("{}: {e}", cli.file.display()));
                return ExitCode::from(1);
            }
        };
        // The SPA syntax carries the kernels' directives, so its text reassembles to the
        // same cubin (spa5-as); nvdisasm's syntax names each code section as nvdisasm does.
        match syntax {
            Syntax::Spa => {
                out.push_str(&module_directives(&cubin));
                for k in &cubin.kernels {
                    out.push_str(&kernel_directives(k));
                    out.push_str(&disassemble(&k.code, syntax));
                }
            }
            Syntax::Nvdisasm => {
                // Labels are numbered across the kernels, as nvdisasm numbers them.
                let code: Vec<&[u64]> = cubin.kernels.iter().map(|k| k.code.as_slice()).collect();
                for (k, text) in cubin.kernels.iter().zip(disassemble_sections(&code)) {
                    out.push_str(&format!(".text.{}:\n", k.name));
                    out.push_str(&text);
                }
            }
        }
    }
    print!("{out}");
    ExitCode::SUCCESS
}
