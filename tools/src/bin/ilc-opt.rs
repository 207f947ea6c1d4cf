//! `ilc-opt`: runs named optimization passes on IR text (LLVM's `opt`, Cranelift's
//! `clif-util`), so a filetest or a bug report can start from an `ilc --dump-after` /
//! `--emit ir` dump.
//!
//! `ilc-opt [FILE|-] -p dce,gvn,...` reads every kernel of the IR text (dump headers and
//! machine-instruction annotations are `;` comments and are skipped), verifies it, runs the
//! passes in order verifying after each one, and prints the result. `-O LEVEL` runs the
//! pipeline of an `ilc` optimization level instead. Exit codes: 0 success, 1 unreadable or
//! invalid IR, or a pass left IR that does not verify (the message names the pass), 2 usage
//! error (an unknown pass name lists the valid ones).

use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use ilc::OptLevel;
use ilc_passes::ir::reader::parse_functions_with_source_maps;
use ilc_passes::ir::{AnyEntity, Function};

/// Run ilc optimization passes on SSA IR text.
#[derive(Parser, Debug)]
#[command(
    name = "ilc-opt",
    version,
    long_about = None,
    after_help = "Pass names: see `ilc --list-passes`.\nExit status: 0 success, 1 invalid IR or a pass broke the IR, 2 usage error."
)]
struct Cli {
    #[command(flatten)]
    log: ilc_tools::logging::LogArgs,
    /// IR text (the `ilc --emit ir` / `--dump-after` form); `-` or absent: stdin.
    input: Option<PathBuf>,
    /// Passes to run, in order (comma-separated and/or repeated).
    #[arg(
        short = 'p',
        long = "passes",
        value_delimiter = ',',
        value_name = "PASS"
    )]
    passes: Vec<String>,
    /// Run the pipeline of this optimization level (0..3) instead of --passes.
    #[arg(short = 'O', value_name = "LEVEL", conflicts_with = "passes", value_parser = parse_level)]
    opt: Option<OptLevel>,
    /// Print the IR after every pass on stderr (with `; ---- IR after NAME ----` headers).
    #[arg(long = "print-after-all")]
    print_after_all: bool,
    /// Output file (`-` or absent: stdout).
    #[arg(short = 'o', long)]
    output: Option<PathBuf>,
}

fn parse_level(s: &str) -> Result<OptLevel, String> {
    s.parse()
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    cli.log.init("ilc-opt");
    let names: Vec<String> = match cli.opt {
        Some(level) => ilc::pipeline::passes_for(level)
            .into_iter()
            .map(str::to_owned)
            .collect(),
        None => cli.passes.clone(),
    };
    let mut passes = Vec::with_capacity(names.len());
    for name in &names {
        match ilc::pipeline::pass_by_name(name) {
            Some(p) => passes.push(p),
            None => {
                ilc_tools::report::error(
                    "ilc-opt",
                    format_args!(
                        "unknown pass `{name}` (valid: {})",
                        ilc_passes::registry::names()
                    ),
                );
                return ExitCode::from(2);
            }
        }
    }
    let (file_name, text) = match read_input(cli.input.as_ref()) {
        Ok(x) => x,
        Err(e) => {
            ilc_tools::report::error("ilc-opt", e);
            return ExitCode::from(1);
        }
    };
    let funcs = match parse_functions_with_source_maps(&text) {
        Ok(f) if f.is_empty() => {
            ilc_tools::report::error(
                "ilc-opt",
                format_args!("{file_name}: no kernel in the input"),
            );
            return ExitCode::from(1);
        }
        Ok(f) => f,
        Err(e) => {
            ilc_tools::report::error("ilc-opt", format_args!("{file_name}:{e}"));
            return ExitCode::from(1);
        }
    };
    let mut out = String::new();
    for (mut func, map) in funcs {
        let _span = tracing::info_span!("kernel", name = %func.name).entered();
        if let Err(errors) = ilc_passes::verifier::verify_function(&func) {
            for e in &errors.0 {
                let line = map
                    .line_of(&func, e.location)
                    .or_else(|| map.line_of(&func, AnyEntity::Function))
                    .unwrap_or(0);
                ilc_tools::report::error(
                    "ilc-opt",
                    format_args!("{file_name}:{line}: invalid IR in %{}: {e}", func.name),
                );
            }
            return ExitCode::from(1);
        }
        // Shared by the passes and kept current between them, as in the compiler's pipeline.
        let mut analyses = ilc_passes::ir::Analyses::new();
        for (n, pass) in passes.iter().enumerate() {
            let _span = tracing::debug_span!("pass", name = pass.name, n = n + 1).entered();
            let start = std::time::Instant::now();
            if let Err(e) = pass.run_in(&mut func, &mut analyses) {
                eprintln!("ilc-opt: %{}: {e}", func.name);
                return ExitCode::from(1);
            }
            tracing::debug!(us = start.elapsed().as_micros() as u64, "done");
            if let Err(errors) = ilc_passes::verifier::verify_function(&func) {
                ilc_tools::report::error(
                    "ilc-opt",
                    format_args!(
                        "%{}: IR does not verify after `{}`:\n{}",
                        func.name,
                        pass.name,
                        errors.display_with(&func)
                    ),
                );
                return ExitCode::from(1);
            }
            if cli.print_after_all {
                eprint!("; ---- IR after {} ----\n{func}\n", pass.name);
            }
        }
        push_function(&mut out, &func);
    }
    write_output(cli.output.as_ref(), out.as_bytes())
}

fn push_function(out: &mut String, func: &Function) {
    if !out.is_empty() {
        out.push('\n');
    }
    out.push_str(&func.to_string());
}

/// The input's display name and text.
fn read_input(path: Option<&PathBuf>) -> Result<(String, String), String> {
    match path {
        Some(p) if p.as_os_str() != "-" => std::fs::read_to_string(p)
            .map(|t| (p.display().to_string(), t))
            .map_err(|e| format!("cannot read {}: {e}", p.display())),
        _ => {
            let mut t = String::new();
            std::io::stdin()
                .read_to_string(&mut t)
                .map(|_| ("<stdin>".to_owned(), t))
                .map_err(|e| format!("cannot read stdin: {e}"))
        }
    }
}

fn write_output(path: Option<&PathBuf>, bytes: &[u8]) -> ExitCode {
    match ilc_tools::write_output(path.map(PathBuf::as_path), bytes) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            ilc_tools::report::error("ilc-opt", format_args!("cannot write output: {e}"));
            ExitCode::from(1)
        }
    }
}
