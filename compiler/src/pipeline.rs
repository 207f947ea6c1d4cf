//! The pass pipeline: which machine-independent passes run at each [`OptLevel`], with the
//! verifier after every pass (debug and test builds), per-pass timing and IR dumps.
//!
//! Requires a function produced by lowering (verified SSA). Guarantees: the returned function
//! verifies; every pass named in [`Options::dump_after`] (or all, for `"all"`) has its output
//! IR text recorded in the [`PassLog`], in the order the passes ran.

use std::time::{Duration, Instant};

use ilc_passes::ir::Function;
use ilc_passes::{
    addr_fold, combine, const_fold, copy_prop, dce, gvn, if_convert, launch_facts, licm,
    mem_combine, pair_fuse, reassociate, simplify_cfg, strength_reduce, unroll,
};

use ilc_passes::budget;

use crate::error::{Diagnostic, Diagnostics};
use crate::options::{Limits, OptLevel, Options};

/// One pass of the pipeline: its name (as used by `--dump-after`) and entry point.
pub struct Pass {
    /// Name, as accepted by `--dump-after`.
    pub name: &'static str,
    /// Entry point.
    pub run: fn(&mut Function),
}

/// Every pass the pipeline knows, by name (for `--dump-after` validation and `ilc-pass`).
pub const PASSES: &[Pass] = &[
    Pass {
        name: "launch_facts",
        run: launch_facts::run,
    },
    Pass {
        name: "const_fold",
        run: const_fold::run,
    },
    Pass {
        name: "copy_prop",
        run: copy_prop::run,
    },
    Pass {
        name: "combine",
        run: combine::run,
    },
    Pass {
        name: "dce",
        run: dce::run,
    },
    Pass {
        name: "simplify_cfg",
        run: simplify_cfg::run,
    },
    Pass {
        name: "gvn",
        run: gvn::run,
    },
    Pass {
        name: "licm",
        run: licm::run,
    },
    Pass {
        name: "strength_reduce",
        run: strength_reduce::run,
    },
    Pass {
        name: "addr_fold",
        run: addr_fold::run,
    },
    Pass {
        name: "pair_fuse",
        run: pair_fuse::run,
    },
    Pass {
        name: "mem_combine",
        run: mem_combine::run,
    },
    Pass {
        name: "if_convert",
        run: if_convert::run,
    },
    Pass {
        name: "unroll",
        run: unroll::run,
    },
    Pass {
        name: "reassociate",
        run: reassociate::run,
    },
];

/// Names of the stages that are not optimization passes but can be dumped too: lowering and
/// the backend's (see [`crate::spa5::DUMP_STAGES`]).
pub const STAGES: &[&str] = &["lower", "isel", "schedule", "regalloc"];

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
            "copy_prop",
            "gvn",
            "dce",
            "if_convert",
            "simplify_cfg",
            "unroll",
            // Fully unrolled loops leave constant tests (`switch` on the counter): fold them
            // and drop the dead arms.
            "const_fold",
            "simplify_cfg",
            "reassociate",
            "const_fold",
            "combine",
            "copy_prop",
            "gvn",
            "addr_fold",
            "mem_combine",
            "copy_prop",
            "pair_fuse",
            "licm",
            "dce",
        ],
    }
}

/// Finds a pass by name.
pub fn pass_by_name(name: &str) -> Option<&'static Pass> {
    PASSES.iter().find(|p| p.name == name)
}

/// What happened in one run of the pipeline.
#[derive(Clone, Debug, Default)]
pub struct PassLog {
    /// `(pass or stage name, time spent)` in run order: the frontend, lowering, every pass
    /// and the backend's stages ([`crate::spa5::TIMED_STAGES`]).
    pub times: Vec<(&'static str, Duration)>,
    /// `(pass or stage name, IR text after it)` for the passes asked for.
    pub dumps: Vec<(String, String)>,
}

impl PassLog {
    /// Records `func` after `name` if the options ask for it.
    pub fn record(&mut self, options: &Options, name: &str, func: &Function) {
        if options.dump_after.iter().any(|d| d == "all" || d == name) {
            self.dumps.push((name.to_owned(), func.to_string()));
        }
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

/// Checks that every `--dump-after` name is a known pass or stage.
pub fn check_dump_names(options: &Options) -> Result<(), Diagnostics> {
    for name in &options.dump_after {
        if name != "all" && pass_by_name(name).is_none() && !STAGES.contains(&name.as_str()) {
            let known: Vec<&str> = PASSES
                .iter()
                .map(|p| p.name)
                .chain(STAGES.iter().copied())
                .collect();
            return Err(Diagnostics::single(
                "O0001",
                format!(
                    "unknown pass `{name}` in --dump-after (known: all, {})",
                    known.join(", ")
                ),
            ));
        }
    }
    Ok(())
}

/// Runs the passes of `options.opt_level` on `func`, verifying after each one in debug and
/// test builds.
pub fn optimize(
    func: &mut Function,
    options: &Options,
    log: &mut PassLog,
    started: Instant,
) -> Result<(), Diagnostics> {
    for name in passes_for(options.opt_level) {
        check_deadline(options, started, name)?;
        // Invariant: passes_for only names passes listed in PASSES (tested below).
        let pass = pass_by_name(name).expect("pipeline names a known pass");
        let start = Instant::now();
        ilc_passes::budget::set_stage(name);
        (pass.run)(func);
        log.times.push((name, start.elapsed()));
        verify(func, name)?;
        log.record(options, name, func);
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
    fn unknown_dump_name_is_an_error() {
        let options = Options {
            dump_after: vec!["nosuchpass".into()],
            ..Options::default()
        };
        let err = check_dump_names(&options).unwrap_err();
        assert!(err.0[0].message.contains("nosuchpass"));
        let ok = Options {
            dump_after: vec!["dce".into(), "all".into(), "lower".into()],
            ..Options::default()
        };
        assert!(check_dump_names(&ok).is_ok());
    }
}
