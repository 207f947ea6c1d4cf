//! The registry of the target-independent optimization passes: every `Function -> Function`
//! pass by name, with a one-line summary.
//!
//! One list serves everything that names a pass: the compiler's pipeline (`ilc::pipeline`
//! builds each optimization level from these names), `ilc --list-passes`, `--disable-pass`,
//! `--dump-after`/`--dump-before`, the `ilc-opt` tool and the filetest subtests (`test dce`
//! runs the entry called `dce`). Adding a pass is one entry here.
//!
//! Guarantees: names are unique (tested) and each is the pass's module name.

use crate::ir::{Analyses, Function};

/// One optimization pass.
#[derive(Debug)]
pub struct PassInfo {
    /// Name (the pass's module name), as used on command lines and in `test NAME`.
    pub name: &'static str,
    /// What the pass does, in one line (for `--list-passes`).
    pub summary: &'static str,
    /// Entry point: requires a verified function and leaves one. The analyses are `func`'s
    /// (see [`Analyses`] for what the caller keeps current); the pass uses them only before
    /// it changes the control flow.
    pub run: fn(&mut Function, &mut Analyses),
    /// True if the pass never changes the CFG: branch targets and their order, the entry
    /// block, the layout's block order. The pipeline keeps the cached analyses across such
    /// a pass (and checks the claim in debug builds); after any other it recomputes the CFG
    /// and keeps the dominators only if the CFG is unchanged.
    pub preserves_cfg: bool,
}

/// A pass entry point taking the options of a filetest's `test NAME key=N...` line.
pub type RunWithOptions = fn(&mut Function, &[String]) -> Result<(), String>;

/// The passes whose filetests vary a tuning constant, with their option-taking entry points.
pub const WITH_OPTIONS: &[(&str, RunWithOptions)] =
    &[("bounds_region", crate::bounds_region::run_with_options)];

/// The option-taking entry point of the pass called `name`, if it has one.
pub fn with_options(name: &str) -> Option<RunWithOptions> {
    WITH_OPTIONS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|&(_, run)| run)
}

impl PassInfo {
    /// Runs the pass on `func` with analyses of its own (outside a pipeline).
    pub fn run_alone(&self, func: &mut Function) {
        (self.run)(func, &mut Analyses::new());
    }

    /// Runs the pass in a sequence of passes sharing `analyses` (`func`'s), and keeps them
    /// current: after a pass that may change the CFG they are revalidated. In debug builds,
    /// an error if a pass that claims to preserve the CFG changed it (the analyses are then
    /// dropped).
    pub fn run_in(&self, func: &mut Function, analyses: &mut Analyses) -> Result<(), String> {
        (self.run)(func, analyses);
        if !self.preserves_cfg {
            analyses.revalidate(func);
        } else if cfg!(debug_assertions) && !analyses.is_current(func) {
            analyses.invalidate();
            return Err(format!(
                "pass `{}` claims to preserve the CFG but changed it",
                self.name
            ));
        }
        Ok(())
    }
}

/// Every optimization pass, in the order `--list-passes` shows them.
pub static PASSES: &[PassInfo] = &[
    PassInfo {
        name: "launch_facts",
        summary: "fold special registers fixed by the declared group size or a 1-D launch",
        run: |func, _| crate::launch_facts::run(func),
        preserves_cfg: true,
    },
    PassInfo {
        name: "const_fold",
        summary: "constant folding and exact integer identities",
        run: crate::const_fold::run_with,
        preserves_cfg: false,
    },
    PassInfo {
        name: "copy_prop",
        summary: "copy propagation and trivial block-parameter elimination",
        run: crate::copy_prop::run_with,
        preserves_cfg: true,
    },
    PassInfo {
        name: "combine",
        summary: "instruction combining on known low zero bits and shift idioms",
        run: crate::combine::run_with,
        preserves_cfg: true,
    },
    PassInfo {
        name: "dce",
        summary: "dead code elimination (mark and sweep over values)",
        run: |func, _| crate::dce::run(func),
        preserves_cfg: true,
    },
    PassInfo {
        name: "simplify_cfg",
        summary: "fold constant branches, merge and remove blocks",
        run: crate::simplify_cfg::run_with,
        preserves_cfg: false,
    },
    PassInfo {
        name: "gvn",
        summary: "global value numbering of pure instructions",
        run: crate::gvn::run_with,
        preserves_cfg: true,
    },
    PassInfo {
        name: "licm",
        summary: "loop-invariant code motion into preheaders",
        run: crate::licm::run_with,
        preserves_cfg: true,
    },
    PassInfo {
        name: "strength_reduce",
        summary: "multiply, divide and remainder by constants as shifts, masks, mul-high",
        run: |func, _| crate::strength_reduce::run(func),
        preserves_cfg: false,
    },
    PassInfo {
        name: "addr_fold",
        summary: "constant address offsets into the memory access's immediate",
        run: |func, _| crate::addr_fold::run(func),
        preserves_cfg: true,
    },
    PassInfo {
        name: "pair_fuse",
        summary: "keep 64-bit values whole instead of split lo/hi words",
        run: |func, _| crate::pair_fuse::run(func),
        preserves_cfg: true,
    },
    PassInfo {
        name: "mem_combine",
        summary: "neighbouring aligned 32-bit accesses as one 64- or 128-bit access",
        run: |func, _| crate::mem_combine::run(func),
        preserves_cfg: true,
    },
    PassInfo {
        name: "if_convert",
        summary: "short side-effect-free if arms as selects",
        run: |func, _| crate::if_convert::run(func),
        preserves_cfg: false,
    },
    PassInfo {
        name: "preheaders",
        summary: "one entry edge per loop: a block in front of headers entered from several",
        run: crate::preheaders::run_with,
        preserves_cfg: false,
    },
    PassInfo {
        name: "bounds_version",
        summary: "copy of a loop without buffer checks, entered when one test proves them",
        run: crate::bounds_version::run_with,
        preserves_cfg: false,
    },
    PassInfo {
        name: "bounds_region",
        summary:
            "copy of a straight-line run without buffer checks, entered when one test proves them",
        run: crate::bounds_region::run_with,
        preserves_cfg: false,
    },
    PassInfo {
        name: "exit_sink",
        summary: "values passed only on a loop exit edge are computed on that edge",
        run: crate::exit_sink::run_with,
        preserves_cfg: false,
    },
    PassInfo {
        name: "loop_rotate",
        summary: "a loop's exit test copied to its latch, the header left as the entry guard",
        run: crate::loop_rotate::run_with,
        preserves_cfg: false,
    },
    PassInfo {
        name: "ddiv_split",
        summary: "f64 division: a fast path for operands in [2^-500, 2^500), the general one cold",
        run: |func, _| {
            crate::ddiv_split::run(func);
        },
        preserves_cfg: false,
    },
    PassInfo {
        name: "sink",
        summary: "pure instructions used only past one branch edge move to that side",
        run: crate::sink::run_with,
        preserves_cfg: true,
    },
    PassInfo {
        name: "hoist_loads",
        summary: "loads of a block where an if joins move above the if, inside loops",
        run: crate::hoist_loads::run_with,
        preserves_cfg: true,
    },
    PassInfo {
        name: "unroll",
        summary: "unroll counted loops (fully for short constant trip counts)",
        run: crate::unroll::run_with,
        preserves_cfg: false,
    },
    PassInfo {
        name: "reassociate",
        summary: "reassociate integer additions so constants move outward",
        run: crate::reassociate::run_with,
        preserves_cfg: true,
    },
    PassInfo {
        name: "loop_reduce",
        summary: "loop strength reduction: costly affine addresses as induction variables",
        run: crate::loop_reduce::run_with,
        preserves_cfg: false,
    },
];

/// The pass called `name`.
pub fn lookup(name: &str) -> Option<&'static PassInfo> {
    PASSES.iter().find(|p| p.name == name)
}

/// The names of every pass, comma-separated (for error messages).
pub fn names() -> String {
    PASSES.iter().map(|p| p.name).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_found() {
        let mut names: Vec<&str> = PASSES.iter().map(|p| p.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), PASSES.len());
        for p in PASSES {
            assert!(std::ptr::eq(lookup(p.name).unwrap(), p));
            assert!(!p.summary.is_empty() && !p.summary.contains('\n'));
        }
    }

    /// A pass that claims to preserve the CFG leaves a kernel's CFG (a loop, a branch on
    /// `pnot`) as it found it (the pipeline also checks this after every such pass in debug
    /// builds).
    #[test]
    fn passes_preserving_the_cfg_keep_the_edges() {
        let src = "kernel %k {
    group_size 4, 1, 1
    uav0 = raw

block0:
    v0 = special tid.x
    v1 = iconst.b32 0x0
    v2 = icmp eq v0, v1
    v3 = pnot v2
    brif v3, block1(v0), block2(v1)

block1(v4: b32):
    v5 = iadd v4, v1
    v6 = iconst.b32 0x1
    v7 = iadd v5, v6
    v10 = copy v7
    v8 = icmp ult v10, v6
    brif v8, block1(v10), block2(v7)

block2(v9: b32):
    store.b32 uav0[v1], v9
    return
}
";
        for p in PASSES.iter().filter(|p| p.preserves_cfg) {
            let mut func = crate::ir::parse_function_text(src).expect("parses");
            let mut a = Analyses::new();
            a.domtree(&func);
            (p.run)(&mut func, &mut a);
            assert!(a.is_current(&func), "{}", p.name);
        }
        // The kernel exercises the check: const_fold swaps the branch on `pnot`.
        let mut func = crate::ir::parse_function_text(src).expect("parses");
        let mut a = Analyses::new();
        a.domtree(&func);
        crate::const_fold::run_with(&mut func, &mut a);
        assert!(!a.is_current(&func));
        assert!(lookup("nope").is_none());
    }
}
