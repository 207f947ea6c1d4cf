//! `ilc-fuzz`: differential soak testing with random IL kernels.
//!
//! `ilc-fuzz [--count N] [--seed S] [--opt 0..3] [--size K] [--dispatches D] [--minimize]
//! [--assume-in-bounds] [--out DIR]` generates N kernels (`ilc_tools::ilgen`, seeds S..S+N), compiles each at the
//! given level and compares the emulator with the interpreter on D random dispatches
//! (`ilc::verify`). Kernels that mismatch, report hazards, fail in the emulator or fail to
//! compile with anything but an "unsupported" diagnostic are written to DIR (default
//! `fuzz-failures/`), minimized first with `--minimize`. Prints a summary; exit status 1 if
//! anything failed.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use ilc::options::{OptLevel, Options};
use ilc::verify::{verify, VerifyError, VerifyOptions};
use ilc::Compiler;
use ilc_tools::ilgen;

/// Differential soak testing with random IL kernels.
#[derive(Debug, Parser)]
#[command(name = "ilc-fuzz", version)]
struct Cli {
    #[command(flatten)]
    log: ilc_tools::logging::LogArgs,
    /// Number of kernels.
    #[arg(long, default_value_t = 100)]
    count: u64,
    /// First seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Optimization level.
    #[arg(long, value_enum, default_value = "2")]
    opt: ilc_tools::cli_args::OptArg,
    /// Statements per kernel.
    #[arg(long, default_value_t = 30)]
    size: u32,
    /// Random dispatches per kernel.
    #[arg(long, default_value_t = 2)]
    dispatches: u32,
    /// Minimize failing kernels before writing them.
    #[arg(long)]
    minimize: bool,
    /// Compile with `--assume-in-bounds` (the generated accesses are all in bounds).
    #[arg(long = "assume-in-bounds")]
    assume_in_bounds: bool,
    /// Where failing kernels go.
    #[arg(long, default_value = "fuzz-failures")]
    out: PathBuf,
}

/// The outcome of one kernel.
#[derive(Debug, PartialEq, Eq)]
enum Outcome {
    Pass,
    Unsupported,
    Fail(String),
}

fn check(compiler: &Compiler, src: &str, dispatches: u32, seed: u64) -> Outcome {
    let opts = VerifyOptions {
        dispatches,
        seed,
        grid: [2, 1, 1],
        ..VerifyOptions::default()
    };
    match verify(compiler, src.as_bytes(), &opts) {
        Ok(r) if r.passed() => Outcome::Pass,
        Ok(r) => Outcome::Fail(r.to_string()),
        Err(VerifyError::Compile(d)) => {
            let text = d.to_string();
            if text.contains("not supported") || text.contains("unsupported") {
                Outcome::Unsupported
            } else {
                Outcome::Fail(format!("compile error: {text}"))
            }
        }
        Err(e) => Outcome::Fail(e.to_string()),
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    cli.log.init("ilc-fuzz");
    let opt_level: OptLevel = cli.opt.into();
    let compiler = Compiler::new(Options {
        opt_level,
        kernel_name: Some("fuzz".into()),
        assume_in_bounds: cli.assume_in_bounds,
        ..Options::default()
    });
    let (mut pass, mut unsupported, mut failed) = (0u64, 0u64, 0u64);
    for seed in cli.seed..cli.seed + cli.count {
        let src = if cli.assume_in_bounds {
            ilgen::generate_in_bounds(seed, cli.size)
        } else {
            ilgen::generate(seed, cli.size)
        };
        match check(&compiler, &src, cli.dispatches, seed) {
            Outcome::Pass => pass += 1,
            Outcome::Unsupported => unsupported += 1,
            Outcome::Fail(why) => {
                failed += 1;
                let first = why.lines().next().unwrap_or("").to_string();
                eprintln!("seed {seed}: FAIL: {first}");
                let text = if cli.minimize {
                    ilgen::minimize(&src, &mut |t| {
                        matches!(check(&compiler, t, cli.dispatches, seed), Outcome::Fail(_))
                    })
                } else {
                    src.clone()
                };
                let report = match check(&compiler, &text, cli.dispatches, seed) {
                    Outcome::Fail(w) => w,
                    _ => why,
                };
                if std::fs::create_dir_all(&cli.out).is_ok() {
                    let path = cli.out.join(format!("fuzz_{seed}.il"));
                    let body = format!(
                        "; ilc-fuzz -O{} seed {seed}:\n{}\n{text}",
                        cli.opt,
                        report
                            .lines()
                            .map(|l| format!("; {l}"))
                            .collect::<Vec<_>>()
                            .join("\n")
                    );
                    if let Err(e) = std::fs::write(&path, body) {
                        ilc_tools::report::error(
                            "ilc-fuzz",
                            format_args!("{}: {e}", path.display()),
                        );
                    }
                }
            }
        }
    }
    println!(
        "ilc-fuzz -O{}: {} kernels: {pass} passed, {unsupported} unsupported, {failed} failed",
        cli.opt, cli.count
    );
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
