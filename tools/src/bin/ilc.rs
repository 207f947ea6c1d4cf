//! `ilc`: the AMD IL to SPA 5.0 compiler driver.
//!
//! `ilc KERNEL.il [--target spa5] [-o OUT] [--emit ast|...] [-O0..-O3] [--arch sm_50|sm_52|sm_53]`.
//! Exit codes: 0 success, 1 invalid input or compile error (diagnostics on stderr), 2 usage
//! error. Never panics on any input: every failure is a diagnostic.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, ValueEnum};
use ilc::{Arch, Compiler, OptLevel, Options};

/// What to write.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Emit {
    /// The parsed and validated AST, one statement per line with its source position.
    Ast,
}

/// Compile AMD IL kernels to NVIDIA Maxwell (SPA 5.0) code.
#[derive(Parser, Debug)]
#[command(name = "ilc", version, about)]
struct Cli {
    /// The kernel: AMD IL text or a binary token stream.
    input: PathBuf,
    /// Target instruction set.
    #[arg(long, default_value = "spa5", value_parser = ["spa5"])]
    target: String,
    /// Output file (text outputs go to stdout when absent).
    #[arg(short = 'o', long)]
    output: Option<PathBuf>,
    /// What to produce.
    #[arg(long, value_enum, default_value = "ast")]
    emit: Emit,
    /// Optimization level 0..3.
    #[arg(short = 'O', default_value = "2")]
    opt: String,
    /// Target architecture.
    #[arg(long, default_value = "sm_50")]
    arch: String,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let arch: Arch = match cli.arch.parse() {
        Ok(a) => a,
        Err(e) => return usage(&e),
    };
    let opt_level: OptLevel = match cli.opt.parse() {
        Ok(o) => o,
        Err(e) => return usage(&e),
    };
    let file_name = cli.input.display().to_string();
    let source = match std::fs::read(&cli.input) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("ilc: cannot read {file_name}: {e}");
            return ExitCode::from(1);
        }
    };
    let compiler = Compiler::new(Options {
        arch,
        opt_level,
        ..Options::default()
    });
    let front = match compiler.front(&source) {
        Ok(f) => f,
        Err(diags) => {
            let text = String::from_utf8_lossy(&source);
            eprint!("{}", diags.render(&file_name, &text));
            return ExitCode::from(1);
        }
    };
    eprint!("{}", front.warnings.render(&file_name, &front.text));
    let out = match cli.emit {
        Emit::Ast => ilc_tools::ast_dump(&front.program),
    };
    write_output(cli.output.as_ref(), out.as_bytes())
}

fn usage(msg: &str) -> ExitCode {
    eprintln!("ilc: {msg}");
    ExitCode::from(2)
}

fn write_output(path: Option<&PathBuf>, bytes: &[u8]) -> ExitCode {
    use std::io::Write;
    let res = match path {
        Some(p) => std::fs::write(p, bytes),
        None => std::io::stdout().write_all(bytes),
    };
    match res {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("ilc: cannot write output: {e}");
            ExitCode::from(1)
        }
    }
}
