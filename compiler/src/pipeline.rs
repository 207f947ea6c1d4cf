//! The pass pipeline: which machine-independent passes run at each [`OptLevel`], with the
//! verifier after every pass (debug and test builds), per-pass timing, IR dumps and the pass
//! debugging controls (`--disable-pass`, `--opt-bisect-limit`, `--print-changed`).
//!
//! The passes come from one registry, [`ilc_passes::registry::PASSES`]; [`passes_for`] names
//! the pipeline of each level and [`plan`] turns it into the pass executions a run performs
//! (after [`Options::disabled_passes`] and [`Options::opt_bisect_limit`]).
//!
//! Requires a function produced by lowering (verified SSA). Guarantees: the returned function
//! verifies; the [`PassLog`] holds the IR text before every pass or stage named in
//! [`Options::dump_before`] and after every one named in [`Options::dump_after`] (`"all"`:
//! every one), or with [`Options::print_changed`] after lowering and after every pass that
//! changed the IR, in the order they ran. Every dump parses back with
//! [`ilc_passes::ir::parse_function_text`].

use std::time::{Duration, Instant};

use ilc_passes::budget;
use ilc_passes::ir::Function;

use crate::error::{Diagnostic, Diagnostics};
use crate::options::{Limits, OptLevel, Options};

pub use ilc_passes::registry::{PassInfo as Pass, PASSES};

/// Names of the stages that are not optimization passes but can be dumped too: lowering and
/// the backend's (see [`crate::spa5::DUMP_STAGES`]). `--dump-before` takes the backend's
/// (there is no IR before lowering).
pub const STAGES: &[&str] = &["lower", "isel", "loop_rotate", "schedule", "regalloc"];

/// The passes for an optimization level, in order.
pub fn passes_for(level: OptLevel) -> Vec<&'static str> {
    match level {
        OptLevel::O0 => vec![],
        OptLevel::O1 => vec![
            "launch_facts",
            "const_fold",
            "strength_reduce",
            "combine",
            "copy_prop",
            "dce",
            "simplify_cfg",
        ],
        OptLevel::O2 | OptLevel::O3 => vec![
            "launch_facts",
            "simplify_cfg",
            "const_fold",
            "strength_reduce",
            "gvn",
            "dce",
            "if_convert",
            "simplify_cfg",
            "preheaders",
            // Before versioning: AMD IL's dword masks on loop-carried addresses (known
            // aligned through the loop) would hide the addresses' growth.
            "combine",
            "copy_prop",
            "bounds_version",
            "unroll",
            // The counters of fully unrolled copies are constant expressions (`64 >> 1`).
            "const_fold",
            // Fully unrolled loops leave constant tests (`switch` on the counter): simplify_cfg
            // folds them (constant operands included) and drops the dead arms.
            "simplify_cfg",
            "reassociate",
            "combine",
            "gvn",
            // The start values it computes hold the loops' constant first iterations.
            "loop_reduce",
            "const_fold",
            "addr_fold",
            "mem_combine",
            // After combining, so that the vectors whose checks split them count.
            "bounds_region",
            // After unrolling: a copy's loads start above the previous copy's `if`.
            "hoist_loads",
            "copy_prop",
            "pair_fuse",
            "licm",
            // Invariants hoisted from the copies of an unrolled body are equal: one each.
            "gvn",
            "dce",
            // Last: what GVN, LICM and versioning left in front of a branch for one side.
            "sink",
            // Loop exit values (an unrolled break's counter) move onto their exit edges.
            "exit_sink",
            // Last: no pass should see (or if-convert) the cold general division.
            "ddiv_split",
        ],
    }
}

/// Finds a pass by name.
pub fn pass_by_name(name: &str) -> Option<&'static Pass> {
    ilc_passes::registry::lookup(name)
}

/// Why a pass of the level's pipeline does not run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Skip {
    /// Named by [`Options::disabled_passes`].
    Disabled,
    /// Past [`Options::opt_bisect_limit`].
    BisectLimit,
}

/// Backend stages that may be skipped like a pass (`--disable-pass`, counted after the
/// optimization passes by `--opt-bisect-limit`): loop rotation, the list scheduler and the
/// three rewrites of the emitted code (`ilc::spa5::advance_first`, `ilc::spa5::rename`,
/// `ilc::spa5::gap_fill`);
/// the code is correct without them, only slower. Each runs at the levels [`stages_for`]
/// gives.
pub const SKIPPABLE_STAGES: &[&str] = &[
    "loop_rotate",
    "schedule",
    "advance_first",
    "rename",
    "gap_fill",
];

/// The skippable backend stages of an optimization level, in order: loop rotation on the
/// selected code (`ilc_passes::loop_rotate`, after every loop pass and the value ranges that
/// drop bounds checks, which recognize the unrotated shape), with the load pipelining of the
/// single-block loops it makes (`ilc_passes::load_pipeline`), at -O2 and above, then the
/// scheduler, and after allocation and emission the three rewrites of the emitted code.
pub fn stages_for(level: OptLevel) -> Vec<&'static str> {
    match level {
        OptLevel::O0 => vec![],
        OptLevel::O1 => vec!["schedule", "advance_first", "rename", "gap_fill"],
        _ => vec![
            "loop_rotate",
            "schedule",
            "advance_first",
            "rename",
            "gap_fill",
        ],
    }
}

/// One pass execution of a run of the pipeline.
#[derive(Clone, Copy, Debug)]
pub struct PlannedPass {
    /// The pass or backend stage name.
    pub name: &'static str,
    /// The optimization pass; `None` for a backend stage of [`SKIPPABLE_STAGES`] (the
    /// backend runs it, see [`stage_runs`]).
    pub pass: Option<&'static Pass>,
    /// 1-based number among the executions not disabled (the `--opt-bisect-limit` count);
    /// 0 for a disabled pass.
    pub number: u32,
    /// `None` if it runs.
    pub skip: Option<Skip>,
}

impl PlannedPass {
    /// The line LLVM's `-opt-bisect-limit` prints for this execution (`BISECT: running pass
    /// (3) gvn on main`, or `NOT running`); `None` for a disabled pass.
    pub fn bisect_line(&self, kernel: &str) -> Option<String> {
        match self.skip {
            Some(Skip::Disabled) => None,
            None => Some(format!(
                "BISECT: running pass ({}) {} on {kernel}",
                self.number, self.name
            )),
            Some(Skip::BisectLimit) => Some(format!(
                "BISECT: NOT running pass ({}) {} on {kernel}",
                self.number, self.name
            )),
        }
    }
}

/// The pass executions of a run with `options`, in order: the level's pipeline, then its
/// skippable backend stages, each marked as skipped when disabled or past the bisect limit.
/// The plan is fixed by the options (it does not depend on the kernel), so a driver may print
/// it before the compile; [`optimize`] runs its passes and the backend its stages.
pub fn plan(options: &Options) -> Vec<PlannedPass> {
    let mut number = 0;
    let passes = passes_for(options.opt_level).into_iter().map(|name| {
        // Invariant: passes_for only names registered passes (tested below).
        (
            name,
            Some(pass_by_name(name).expect("pipeline names a registered pass")),
        )
    });
    let stages = stages_for(options.opt_level)
        .into_iter()
        .map(|name| (name, None));
    passes
        .chain(stages)
        .map(|(name, pass)| {
            if options.disabled_passes.iter().any(|d| d == name) {
                return PlannedPass {
                    name,
                    pass,
                    number: 0,
                    skip: Some(Skip::Disabled),
                };
            }
            number += 1;
            let skip = options
                .opt_bisect_limit
                .is_some_and(|limit| number > limit)
                .then_some(Skip::BisectLimit);
            PlannedPass {
                name,
                pass,
                number,
                skip,
            }
        })
        .collect()
}

/// Whether the backend runs `stage` (one of [`SKIPPABLE_STAGES`]) under `options`.
pub fn stage_runs(options: &Options, stage: &str) -> bool {
    plan(options)
        .iter()
        .any(|p| p.pass.is_none() && p.name == stage && p.skip.is_none())
}

/// Where a dump was taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DumpPoint {
    /// Before the pass or stage ran.
    Before,
    /// After it ran.
    After,
    /// After it ran, which did not change the IR (`--print-changed`; the dump's text is
    /// empty).
    Unchanged,
}

/// One IR dump.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dump {
    /// Before or after.
    pub point: DumpPoint,
    /// The pass or stage.
    pub stage: String,
    /// The IR text (parseable; machine instructions of the backend stages as `;` comments).
    pub text: String,
}

impl Dump {
    /// The header line a driver prints before the dump: an IR comment, so a stream of dumps
    /// still parses (`; ---- IR after gvn ----`).
    pub fn header(&self) -> String {
        match self.point {
            DumpPoint::Before => format!("; ---- IR before {} ----", self.stage),
            DumpPoint::After => format!("; ---- IR after {} ----", self.stage),
            DumpPoint::Unchanged => {
                format!("; ---- IR after {} omitted: no change ----", self.stage)
            }
        }
    }

    /// A file name stem (`before-gvn`, `gvn`).
    pub fn file_stem(&self) -> String {
        match self.point {
            DumpPoint::Before => format!("before-{}", self.stage),
            DumpPoint::After | DumpPoint::Unchanged => self.stage.clone(),
        }
    }
}

/// Whether `list` (a `--dump-after`/`--dump-before` list) names `stage`.
pub fn names_stage(list: &[String], stage: &str) -> bool {
    list.iter().any(|d| d == "all" || d == stage)
}

/// What happened in one run of the pipeline.
#[derive(Clone, Debug, Default)]
pub struct PassLog {
    /// `(pass or stage name, time spent)` in run order: the frontend, lowering, every pass
    /// and the backend's stages ([`crate::spa5::TIMED_STAGES`]).
    pub times: Vec<(&'static str, Duration)>,
    /// The dumps asked for, in run order.
    pub dumps: Vec<Dump>,
}

impl PassLog {
    /// Records `func` after `name` if the options ask for it.
    pub fn record(&mut self, options: &Options, name: &str, func: &Function) {
        if names_stage(&options.dump_after, name) {
            self.push(DumpPoint::After, name, func.to_string());
        }
    }

    /// Records `func` before `name` if the options ask for it.
    pub fn record_before(&mut self, options: &Options, name: &str, func: &Function) {
        if names_stage(&options.dump_before, name) {
            self.push(DumpPoint::Before, name, func.to_string());
        }
    }

    fn push(&mut self, point: DumpPoint, stage: &str, text: String) {
        self.dumps.push(Dump {
            point,
            stage: stage.to_owned(),
            text,
        });
    }

    /// The dumps, as a driver prints them on stderr: each after its header line.
    pub fn dumps_text(&self) -> String {
        let mut out = String::new();
        for d in &self.dumps {
            out.push_str(&d.header());
            out.push('\n');
            if d.point != DumpPoint::Unchanged {
                out.push_str(&d.text);
                out.push('\n');
            }
        }
        out
    }

    /// A `--time-passes` report.
    pub fn time_report(&self) -> String {
        let total: Duration = self.times.iter().map(|(_, t)| *t).sum();
        let mut out = String::from("pass                 time (us)\n");
        for (name, t) in &self.times {
            out.push_str(&format!("{name:<20} {:>9.1}\n", t.as_secs_f64() * 1e6));
        }
        out.push_str(&format!(
            "{:<20} {:>9.1}\n",
            "total",
            total.as_secs_f64() * 1e6
        ));
        out
    }
}

/// Checks the pass names of the options: `--dump-after` takes passes, stages and `all`,
/// `--dump-before` passes, the backend's stages and `all`, `--disable-pass` passes. The
/// message lists the valid names (a driver reports it as a usage error).
pub fn check_pass_names(options: &Options) -> Result<(), String> {
    // The valid names are joined only for a message (every compile comes through here).
    for name in &options.dump_after {
        if name != "all" && pass_by_name(name).is_none() && !STAGES.contains(&name.as_str()) {
            return Err(format!(
                "unknown pass or stage `{name}` in --dump-after (valid: all, {}, {})",
                ilc_passes::registry::names(),
                STAGES.join(", ")
            ));
        }
    }
    for name in &options.dump_before {
        if name != "all"
            && pass_by_name(name).is_none()
            && !crate::spa5::DUMP_STAGES.contains(&name.as_str())
        {
            return Err(format!(
                "unknown pass or stage `{name}` in --dump-before (valid: all, {}, {})",
                ilc_passes::registry::names(),
                crate::spa5::DUMP_STAGES.join(", ")
            ));
        }
    }
    for name in &options.disabled_passes {
        if pass_by_name(name).is_none() && !SKIPPABLE_STAGES.contains(&name.as_str()) {
            return Err(format!(
                "unknown pass `{name}` in --disable-pass (valid: {}, {})",
                ilc_passes::registry::names(),
                SKIPPABLE_STAGES.join(", ")
            ));
        }
    }
    Ok(())
}

/// Runs the passes of `options.opt_level` on `func` as [`plan`] says, verifying after each
/// one in debug and test builds.
pub fn optimize(
    func: &mut Function,
    options: &Options,
    log: &mut PassLog,
    started: Instant,
) -> Result<(), Diagnostics> {
    // --print-changed compares each pass's output with its input.
    let mut last_text = options.print_changed.then(|| func.to_string());
    if let Some(text) = &last_text {
        if !names_stage(&options.dump_after, "lower") {
            log.push(DumpPoint::After, "lower", text.clone());
        }
    }
    // The CFG analyses, shared by the passes and kept current between them.
    let mut analyses = ilc_passes::ir::Analyses::new();
    for planned in plan(options) {
        // Backend stages run in the backend.
        let Some(pass) = planned.pass else {
            continue;
        };
        if let Some(skip) = planned.skip {
            tracing::debug!(pass = planned.name, ?skip, "pass not run");
            continue;
        }
        let name = pass.name;
        check_deadline(options, started, name)?;
        let _span = tracing::debug_span!("pass", name, n = planned.number).entered();
        log.record_before(options, name, func);
        let start = Instant::now();
        ilc_passes::budget::set_stage(name);
        let claim = pass.run_in(func, &mut analyses);
        let elapsed = start.elapsed();
        if let Err(e) = claim {
            return Err(Diagnostics::single(
                "I0001",
                format!("internal compiler error: {e}"),
            ));
        }
        log.times.push((name, elapsed));
        tracing::debug!(us = elapsed.as_micros() as u64, "done");
        verify(func, name)?;
        log.record(options, name, func);
        if let Some(last) = &mut last_text {
            let text = func.to_string();
            if names_stage(&options.dump_after, name) {
                // Already dumped.
            } else if text == *last {
                log.push(DumpPoint::Unchanged, name, String::new());
            } else {
                log.push(DumpPoint::After, name, text.clone());
            }
            *last = text;
        }
    }
    Ok(())
}

/// Fails with `L0004` when the compile has run longer than `Limits::max_compile_ms`; `stage`
/// names what was about to run.
pub fn check_deadline(options: &Options, started: Instant, stage: &str) -> Result<(), Diagnostics> {
    let limit = options.limits.max_compile_ms;
    if limit != 0 && started.elapsed().as_millis() > u128::from(limit) {
        return Err(Diagnostics::single(
            "L0004",
            format!("compile time limit of {limit} ms exceeded (before `{stage}`)"),
        ));
    }
    Ok(())
}

/// The diagnostic for a compile the budget stopped: `L0004` for the deadline, `L0005` for
/// the IR size bound, at the source position the stage was working on when it knew one.
pub fn exceeded_diagnostic(e: budget::Exceeded, limits: &Limits) -> Diagnostics {
    let span = crate::error::span_of;
    let d = match e {
        budget::Exceeded::Time { stage, position } => Diagnostic::error(
            "L0004",
            span(position),
            format!(
                "compile time limit of {} ms exceeded (in `{stage}`)",
                limits.max_compile_ms
            ),
        ),
        budget::Exceeded::Size {
            stage,
            insts,
            limit,
            position,
        } => Diagnostic::error(
            "L0005",
            span(position),
            format!(
                "the kernel grew to {insts} IR instructions in `{stage}`, more than the limit of \
                 {limit} (Limits::max_ir_instructions)"
            ),
        ),
    };
    Diagnostics(vec![d])
}

/// Runs the IR verifier in debug and test builds; release builds trust the passes.
pub fn verify(func: &Function, after: &str) -> Result<(), Diagnostics> {
    if cfg!(debug_assertions) {
        if let Err(errors) = ilc_passes::verifier::verify_function(func) {
            return Err(Diagnostics::single(
                "I0001",
                format!("internal compiler error: IR verifier failed after `{after}`:\n{errors}"),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_level_names_known_passes() {
        for level in [OptLevel::O0, OptLevel::O1, OptLevel::O2, OptLevel::O3] {
            for name in passes_for(level) {
                assert!(pass_by_name(name).is_some(), "{name}");
            }
        }
    }

    #[test]
    fn unknown_names_are_errors_listing_the_valid_ones() {
        for (field, options) in [
            (
                "--dump-after",
                Options {
                    dump_after: vec!["nosuchpass".into()],
                    ..Options::default()
                },
            ),
            (
                "--dump-before",
                Options {
                    dump_before: vec!["lower".into()],
                    ..Options::default()
                },
            ),
            (
                "--disable-pass",
                Options {
                    disabled_passes: vec!["isel".into()],
                    ..Options::default()
                },
            ),
        ] {
            let err = check_pass_names(&options).unwrap_err();
            assert!(err.contains(field) && err.contains("gvn, licm"), "{err}");
            assert_eq!(options.validate().unwrap_err().code, "O0001");
        }
        let ok = Options {
            dump_after: vec!["dce".into(), "all".into(), "lower".into()],
            dump_before: vec!["gvn".into(), "regalloc".into()],
            disabled_passes: vec!["unroll".into()],
            ..Options::default()
        };
        assert!(check_pass_names(&ok).is_ok());
    }

    #[test]
    fn plan_numbers_runs_and_skips() {
        let options = Options {
            disabled_passes: vec!["gvn".into()],
            opt_bisect_limit: Some(3),
            ..Options::default()
        };
        let plan = plan(&options);
        assert_eq!(plan.len(), passes_for(OptLevel::O2).len() + 5);
        assert_eq!(plan[plan.len() - 5].name, "loop_rotate");
        assert_eq!(plan[plan.len() - 4].name, "schedule");
        assert_eq!(plan[plan.len() - 2].name, "rename");
        assert_eq!(plan.last().unwrap().name, "gap_fill");
        assert!(plan.last().unwrap().pass.is_none());
        assert!(!stage_runs(&options, "schedule"));
        assert!(stage_runs(&Options::default(), "schedule"));
        assert!(stage_runs(&Options::default(), "gap_fill"));
        assert!(
            !stage_runs(
                &Options {
                    disabled_passes: vec!["gap_fill".into()],
                    ..Options::default()
                },
                "gap_fill"
            ) && stage_runs(
                &Options {
                    disabled_passes: vec!["gap_fill".into()],
                    ..Options::default()
                },
                "advance_first"
            )
        );
        assert!(!stage_runs(
            &Options {
                opt_level: OptLevel::O0,
                ..Options::default()
            },
            "schedule"
        ));
        assert!(!stage_runs(
            &Options {
                disabled_passes: vec!["schedule".into()],
                ..Options::default()
            },
            "schedule"
        ));
        // Loop rotation runs from -O2 on; -O1 schedules without it.
        let o1 = Options {
            opt_level: OptLevel::O1,
            ..Options::default()
        };
        assert!(stage_runs(&Options::default(), "loop_rotate"));
        assert!(!stage_runs(&o1, "loop_rotate") && stage_runs(&o1, "schedule"));
        assert!(plan
            .iter()
            .filter(|p| p.name == "gvn")
            .all(|p| p.skip == Some(Skip::Disabled) && p.bisect_line("k").is_none()));
        let running: Vec<u32> = plan
            .iter()
            .filter(|p| p.skip.is_none())
            .map(|p| p.number)
            .collect();
        assert_eq!(running, [1, 2, 3]);
        assert_eq!(
            plan[0].bisect_line("k").unwrap(),
            "BISECT: running pass (1) launch_facts on k"
        );
        let first_skipped = plan
            .iter()
            .find(|p| p.skip == Some(Skip::BisectLimit))
            .unwrap();
        assert_eq!(first_skipped.number, 4);
        assert!(first_skipped
            .bisect_line("k")
            .unwrap()
            .starts_with("BISECT: NOT running pass (4) "));
        // Limit 0: nothing runs.
        let none = Options {
            opt_bisect_limit: Some(0),
            ..Options::default()
        };
        assert!(super::plan(&none).iter().all(|p| p.skip.is_some()));
    }
}
