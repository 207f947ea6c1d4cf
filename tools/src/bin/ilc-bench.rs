//! `ilc-bench`: in-process compile time of IL kernels, for `tools/bench_report.py`.
//!
//! `ilc-bench [--runs N] [-O LEVEL] FILE...` compiles each file once to warm up, then `N`
//! times (default 50) with one [`Compiler`] (no cache), and prints one JSON line per kernel:
//! `{"name", "median_us", "min_us", "first_us", "il_instructions", "ok"}`, where `first_us`
//! is the warm-up compile (for the first file, the first compile in the process). A kernel that does not compile
//! is reported with `"ok": false` and its first diagnostic, and the exit status is then 1
//! (after every kernel was reported). With `--stages`, each line also
//! has `"stages"`: the median time of every pass and backend stage (as `--time-passes` names
//! them), in microseconds.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::Parser;
use ilc::{Compiler, OptLevel, Options};

#[derive(Debug, Parser)]
#[command(
    name = "ilc-bench",
    version,
    about = "In-process compile time of IL kernels"
)]
struct Cli {
    #[command(flatten)]
    log: ilc_tools::logging::LogArgs,
    /// IL kernels.
    files: Vec<PathBuf>,
    /// Timed compilations per kernel (after one warm-up).
    #[arg(long, default_value_t = 50)]
    runs: u32,
    /// Optimization level.
    #[arg(short = 'O', value_enum, default_value = "2")]
    opt: ilc_tools::cli_args::OptArg,
    /// Also report the median time of every pass and backend stage.
    #[arg(long)]
    stages: bool,
}

use isa_amdil::diag::json_str;

/// A JSON list of `[stage, median us]` over the runs (every run of one kernel runs the same
/// stages in the same order).
fn stage_medians(runs: &[Vec<(&'static str, f64)>]) -> String {
    let Some(first) = runs.first() else {
        return "[]".to_string();
    };
    let items: Vec<String> = first
        .iter()
        .enumerate()
        .map(|(i, (name, _))| {
            let mut t: Vec<f64> = runs.iter().filter_map(|r| r.get(i).map(|s| s.1)).collect();
            t.sort_by(f64::total_cmp);
            format!("[{}, {:.1}]", json_str(name), t[t.len() / 2])
        })
        .collect();
    format!("[{}]", items.join(", "))
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    cli.log.init("ilc-bench");
    let opt_level: OptLevel = cli.opt.into();
    let mut failed = 0usize;
    for f in &cli.files {
        let name = f
            .file_stem()
            .map(|s| s.to_string_lossy().to_string())
            .unwrap_or_default();
        let src = match std::fs::read(f) {
            Ok(s) => s,
            Err(e) => {
                ilc_tools::report::error("ilc-bench", format_args!("{}: {e}", f.display()));
                return ExitCode::from(1);
            }
        };
        let compiler = Compiler::new(Options {
            opt_level,
            kernel_name: Some(name.clone()),
            ..Options::default()
        });
        let il_insts = std::str::from_utf8(&src)
            .map(|t| {
                t.lines()
                    .map(str::trim)
                    .filter(|l| !l.is_empty() && !l.starts_with(';') && !l.starts_with("dcl_"))
                    .count()
            })
            .unwrap_or(0);
        // The first compile in the process (of the first file only): what a JIT pays
        // for its first kernel, page faults and lazily built tables included.
        let t = Instant::now();
        let first = compiler.compile(&src);
        let first_us = t.elapsed().as_secs_f64() * 1e6;
        if let Err(d) = first {
            let first = d.to_string().lines().next().unwrap_or("").to_string();
            println!(
                "{{\"name\": {}, \"ok\": false, \"error\": {}}}",
                json_str(&name),
                json_str(&first)
            );
            failed += 1;
            continue;
        }
        // Per run: the `(stage, us)` list of the pass log, in run order.
        let mut stage_runs: Vec<Vec<(&'static str, f64)>> = Vec::new();
        let mut times: Vec<f64> = (0..cli.runs.max(1))
            .map(|_| {
                let t = Instant::now();
                let r = compiler.compile(&src);
                let us = t.elapsed().as_secs_f64() * 1e6;
                if let (true, Ok(k)) = (cli.stages, &r) {
                    stage_runs.push(
                        k.log
                            .times
                            .iter()
                            .map(|(n, d)| (*n, d.as_secs_f64() * 1e6))
                            .collect(),
                    );
                }
                drop(r);
                us
            })
            .collect();
        times.sort_by(f64::total_cmp);
        let stages = if cli.stages {
            format!(", \"stages\": {}", stage_medians(&stage_runs))
        } else {
            String::new()
        };
        println!(
            "{{\"name\": {}, \"ok\": true, \"median_us\": {:.1}, \"min_us\": {:.1}, \"first_us\": {:.1}, \"il_instructions\": {}{stages}}}",
            json_str(&name),
            times[times.len() / 2],
            times[0],
            first_us,
            il_insts
        );
    }
    if failed > 0 {
        ilc_tools::report::error(
            "ilc-bench",
            format_args!("{failed} of {} kernels failed to compile", cli.files.len()),
        );
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
