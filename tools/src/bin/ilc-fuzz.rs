//! `ilc-fuzz`: differential soak testing with random IL kernels.
//!
//! `ilc-fuzz [--count N] [--seed S] [--opt 0..3] [--size K] [--dispatches D] [--minimize]
//! [--assume-in-bounds] [--out DIR]` generates N kernels (`ilc_tools::ilgen`, seeds S..S+N), compiles each at the
//! given level and compares the emulator with the interpreter on D random dispatches
//! (`ilc::verify`). Kernels that mismatch, report hazards, fail in the emulator or fail to
//! compile with anything but an "unsupported" diagnostic are written to DIR (default
//! `fuzz-failures/`), minimized first with `--minimize`. Prints a progress line on stderr every
//! `--progress` seconds and a summary at the end, also when interrupted with Ctrl-C (SIGINT:
//! the kernel in hand finishes, a second Ctrl-C ends at once). Exit status 1 if anything
//! failed, else 130 when interrupted, else 0.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::Parser;
use ilc::options::{OptLevel, Options};
use ilc::Compiler;
use ilc_tools::ilgen::{self, check, Outcome};

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
    /// Seconds between progress lines on stderr (0: none).
    #[arg(long, default_value_t = 10, value_name = "SECS")]
    progress: u64,
}

/// Counts so far.
#[derive(Clone, Copy, Debug, Default)]
struct Tally {
    pass: u64,
    unsupported: u64,
    failed: u64,
}

impl Tally {
    fn done(&self) -> u64 {
        self.pass + self.unsupported + self.failed
    }
}

/// `ilc-fuzz: 120/1000 kernels (12.0%), 118 passed, 1 unsupported, 1 failed; 24.0/s, ETA 37s`.
fn progress_line(t: &Tally, total: u64, elapsed: Duration) -> String {
    let done = t.done();
    let rate = done as f64 / elapsed.as_secs_f64().max(1e-9);
    let eta = if rate > 0.0 {
        let left = (total - done.min(total)) as f64 / rate;
        format!("{}s", left.round() as u64)
    } else {
        "?".into()
    };
    format!(
        "ilc-fuzz: {done}/{total} kernels ({:.1}%), {} passed, {} unsupported, {} failed; {rate:.1}/s, ETA {eta}",
        100.0 * done as f64 / total.max(1) as f64,
        t.pass,
        t.unsupported,
        t.failed
    )
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
    // Ctrl-C sets the flag (the loop stops after the kernel in hand and prints the summary); a
    // second one, with the flag already set, ends the process at once.
    let stop = Arc::new(AtomicBool::new(false));
    for r in [
        signal_hook::flag::register_conditional_shutdown(
            signal_hook::consts::SIGINT,
            130,
            Arc::clone(&stop),
        ),
        signal_hook::flag::register(signal_hook::consts::SIGINT, Arc::clone(&stop)),
    ] {
        if let Err(e) = r {
            ilc_tools::report::warning("ilc-fuzz", format_args!("no Ctrl-C summary: {e}"));
        }
    }
    let start = Instant::now();
    let mut last_progress = start;
    let every = Duration::from_secs(cli.progress);
    let mut t = Tally::default();
    for seed in cli.seed..cli.seed + cli.count {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        if cli.progress > 0 && last_progress.elapsed() >= every {
            eprintln!("{}", progress_line(&t, cli.count, start.elapsed()));
            last_progress = Instant::now();
        }
        let src = if cli.assume_in_bounds {
            ilgen::generate_in_bounds(seed, cli.size)
        } else {
            ilgen::generate(seed, cli.size)
        };
        match check(&compiler, &src, cli.dispatches, seed) {
            Outcome::Pass => t.pass += 1,
            Outcome::Unsupported => t.unsupported += 1,
            Outcome::Fail(why) => {
                t.failed += 1;
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
    let interrupted = t.done() < cli.count;
    let seeds = if t.done() == 0 {
        "no seed run".to_owned()
    } else {
        format!("seeds {}..={}", cli.seed, cli.seed + t.done() - 1)
    };
    println!(
        "ilc-fuzz -O{}: {} kernels{}: {} passed, {} unsupported, {} failed ({seeds}, {:.1} s)",
        cli.opt,
        t.done(),
        if interrupted {
            format!(" of {} (interrupted)", cli.count)
        } else {
            String::new()
        },
        t.pass,
        t.unsupported,
        t.failed,
        start.elapsed().as_secs_f64()
    );
    if t.failed > 0 {
        ExitCode::FAILURE
    } else if interrupted {
        ExitCode::from(130)
    } else {
        ExitCode::SUCCESS
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_line_counts_rate_and_eta() {
        let t = Tally {
            pass: 8,
            unsupported: 1,
            failed: 1,
        };
        let line = progress_line(&t, 40, Duration::from_secs(5));
        assert_eq!(
            line,
            "ilc-fuzz: 10/40 kernels (25.0%), 8 passed, 1 unsupported, 1 failed; 2.0/s, ETA 15s"
        );
        assert!(progress_line(&Tally::default(), 0, Duration::ZERO).contains("ETA ?"));
    }
}
