//! The compile budget: a deadline and a bound on the IR's size, checked from inside every
//! pass so that a limit stops a compile close to its value instead of after the pass that
//! overran it.
//!
//! A driver runs a compile inside [`run`], which installs a [`Budget`] for the current thread.
//! Code that may run long or grow the IR calls [`tick`] (cheap: a counter, the clock is read
//! once every [`TICK_PERIOD`] calls) and [`check_size`]; creating an IR instruction
//! ([`crate::ir::DataFlowGraph::make_inst`]) does both, so every expansion (lowering,
//! instruction selection, legalization) and every pass that creates instructions is covered
//! without code of its own. Loops that only read the IR (scheduling, register allocation)
//! call [`tick`] per instruction they visit.
//!
//! When a limit is exceeded the compile unwinds with an [`Exceeded`] payload (through
//! `std::panic::resume_unwind`, which runs no panic hook and prints nothing) and [`run`]
//! returns it as an error. The function being compiled is abandoned half-transformed; the
//! driver discards it. Panics that are not budget exhaustion pass through [`run`] unchanged.
//! Stopping needs unwinding (`panic = "unwind"`, Rust's default, which the C API's panic
//! boundary needs as well); under `panic = "abort"` an exceeded budget aborts the process.
//! Without an installed budget every check is a no-op (tools and tests that run a pass on
//! its own are unaffected).
//!
//! Guarantees: with a deadline `d`, a compile stops at most one tick period plus one
//! [`check_size`]-free stretch of work after `d`; with a size limit `n`, the IR never holds
//! more than `n` instructions (counting those created and later removed, which the arena
//! keeps: the count is a bound on memory, not on live code).

use std::cell::Cell;
use std::time::Instant;

/// How many [`tick`] calls pass between two readings of the clock.
pub const TICK_PERIOD: u32 = 1024;

/// The limits of one compile.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// Stop when this instant has passed (`None`: no deadline).
    pub deadline: Option<Instant>,
    /// Most IR instructions one function may hold (`usize::MAX`: no limit).
    pub max_insts: usize,
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            deadline: None,
            max_insts: usize::MAX,
        }
    }
}

/// Why a compile was stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exceeded {
    /// The deadline passed during `stage`.
    Time {
        /// The stage that was running (see [`set_stage`]).
        stage: &'static str,
        /// The source position being worked on, if known (see [`set_position`]).
        position: Option<Position>,
    },
    /// The IR grew past [`Budget::max_insts`] during `stage`.
    Size {
        /// The stage that was running.
        stage: &'static str,
        /// The instruction count reached.
        insts: usize,
        /// The limit.
        limit: usize,
        /// The source position being worked on, if known.
        position: Option<Position>,
    },
}

/// A source position a stage reports as the one it is working on, carried into
/// [`Exceeded`] so that a diagnostic can point at the input that caused the growth.
pub type Position = crate::ir::SourcePos;

thread_local! {
    static CURRENT: Cell<Option<Budget>> = const { Cell::new(None) };
    static TICKS: Cell<u32> = const { Cell::new(0) };
    static STAGE: Cell<&'static str> = const { Cell::new("") };
    static POSITION: Cell<Option<Position>> = const { Cell::new(None) };
}

/// Restores the previous budget when a [`run`] ends, however it ends.
struct Restore(Option<Budget>, &'static str, Option<Position>);

impl Drop for Restore {
    fn drop(&mut self) {
        CURRENT.with(|c| c.set(self.0));
        STAGE.with(|s| s.set(self.1));
        POSITION.with(|p| p.set(self.2));
    }
}

/// Runs `f` with `budget` installed on this thread. Returns `f`'s result, or why the budget
/// stopped it. Nested runs install their own budget and restore the outer one afterwards.
pub fn run<R>(budget: Budget, f: impl FnOnce() -> R) -> Result<R, Exceeded> {
    let _restore = Restore(
        CURRENT.with(|c| c.replace(Some(budget))),
        STAGE.with(|s| s.replace("")),
        POSITION.with(|p| p.replace(None)),
    );
    TICKS.with(|t| t.set(0));
    // The closure's state is abandoned on unwinding (the caller discards the compile).
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(r) => Ok(r),
        Err(payload) => match payload.downcast::<Exceeded>() {
            Ok(e) => Err(*e),
            Err(other) => std::panic::resume_unwind(other),
        },
    }
}

/// Names the stage now running (reported in [`Exceeded`]); forgets the position.
pub fn set_stage(stage: &'static str) {
    STAGE.with(|s| s.set(stage));
    POSITION.with(|p| p.set(None));
}

/// Records the source position now being worked on (reported in [`Exceeded`]).
pub fn set_position(position: Option<Position>) {
    POSITION.with(|p| p.set(position));
}

fn stop(e: Exceeded) -> ! {
    std::panic::resume_unwind(Box::new(e))
}

/// Checks the deadline once every [`TICK_PERIOD`] calls; unwinds when it has passed.
#[inline]
pub fn tick() {
    let due = TICKS.with(|t| {
        let n = t.get().wrapping_add(1);
        t.set(n);
        n.is_multiple_of(TICK_PERIOD)
    });
    if due {
        check_deadline();
    }
}

/// Checks the deadline now; unwinds when it has passed.
pub fn check_deadline() {
    if let Some(Budget {
        deadline: Some(d), ..
    }) = CURRENT.with(Cell::get)
    {
        if Instant::now() > d {
            stop(Exceeded::Time {
                stage: STAGE.with(Cell::get),
                position: POSITION.with(Cell::get),
            });
        }
    }
}

/// Unwinds when a function of `insts` instructions exceeds the size limit.
#[inline]
pub fn check_size(insts: usize) {
    if let Some(b) = CURRENT.with(Cell::get) {
        if insts > b.max_insts {
            stop(Exceeded::Size {
                stage: STAGE.with(Cell::get),
                insts,
                limit: b.max_insts,
                position: POSITION.with(Cell::get),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn no_budget_means_no_checks() {
        check_size(usize::MAX);
        for _ in 0..10 * TICK_PERIOD {
            tick();
        }
    }

    #[test]
    fn size_limit_stops_with_stage_and_position() {
        let pos = Position {
            start: 4,
            end: 9,
            line: 2,
            col: 1,
        };
        let r = run(
            Budget {
                max_insts: 10,
                ..Budget::default()
            },
            || {
                set_stage("lower");
                set_position(Some(pos));
                check_size(10);
                check_size(11);
                unreachable!("the size check unwinds");
            },
        );
        assert_eq!(
            r,
            Err(Exceeded::Size {
                stage: "lower",
                insts: 11,
                limit: 10,
                position: Some(pos)
            })
        );
        // The budget is gone afterwards.
        check_size(usize::MAX);
    }

    #[test]
    fn deadline_stops_a_ticking_loop() {
        let started = Instant::now();
        let r = run(
            Budget {
                deadline: Some(started + Duration::from_millis(20)),
                ..Budget::default()
            },
            || loop {
                tick();
            },
        );
        assert!(matches!(r, Err(Exceeded::Time { .. })));
        assert!(started.elapsed() < Duration::from_secs(2));
    }

    #[test]
    fn other_panics_pass_through() {
        let r = std::panic::catch_unwind(|| run(Budget::default(), || panic!("boom")));
        assert!(r.is_err());
    }

    #[test]
    fn nested_runs_restore_the_outer_budget() {
        let outer = Budget {
            max_insts: 5,
            ..Budget::default()
        };
        let r = run(outer, || {
            let inner = run(Budget::default(), || check_size(100));
            assert_eq!(inner, Ok(()));
            check_size(6);
        });
        assert!(matches!(r, Err(Exceeded::Size { limit: 5, .. })));
    }
}
