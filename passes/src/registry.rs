//! The registry of the target-independent optimization passes: every `Function -> Function`
//! pass by name, with a one-line summary.
//!
//! One list serves everything that names a pass: the compiler's pipeline (`ilc::pipeline`
//! builds each optimization level from these names), `ilc --list-passes`, `--disable-pass`,
//! `--dump-after`/`--dump-before`, the `ilc-opt` tool and the filetest subtests (`test dce`
//! runs the entry called `dce`). Adding a pass is one entry here.
//!
//! Guarantees: names are unique (tested) and each is the pass's module name.

use crate::ir::Function;

/// One optimization pass.
#[derive(Debug)]
pub struct PassInfo {
    /// Name (the pass's module name), as used on command lines and in `test NAME`.
    pub name: &'static str,
    /// What the pass does, in one line (for `--list-passes`).
    pub summary: &'static str,
    /// Entry point: requires a verified function and leaves one.
    pub run: fn(&mut Function),
}

/// Every optimization pass, in the order `--list-passes` shows them.
pub static PASSES: &[PassInfo] = &[
    PassInfo {
        name: "launch_facts",
        summary: "fold special registers fixed by the declared group size or a 1-D launch",
        run: crate::launch_facts::run,
    },
    PassInfo {
        name: "const_fold",
        summary: "constant folding and exact integer identities",
        run: crate::const_fold::run,
    },
    PassInfo {
        name: "copy_prop",
        summary: "copy propagation and trivial block-parameter elimination",
        run: crate::copy_prop::run,
    },
    PassInfo {
        name: "combine",
        summary: "instruction combining on known low zero bits and shift idioms",
        run: crate::combine::run,
    },
    PassInfo {
        name: "dce",
        summary: "dead code elimination (mark and sweep over values)",
        run: crate::dce::run,
    },
    PassInfo {
        name: "simplify_cfg",
        summary: "fold constant branches, merge and remove blocks",
        run: crate::simplify_cfg::run,
    },
    PassInfo {
        name: "gvn",
        summary: "global value numbering of pure instructions",
        run: crate::gvn::run,
    },
    PassInfo {
        name: "licm",
        summary: "loop-invariant code motion into preheaders",
        run: crate::licm::run,
    },
    PassInfo {
        name: "strength_reduce",
        summary: "multiply, divide and remainder by constants as shifts, masks, mul-high",
        run: crate::strength_reduce::run,
    },
    PassInfo {
        name: "addr_fold",
        summary: "constant address offsets into the memory access's immediate",
        run: crate::addr_fold::run,
    },
    PassInfo {
        name: "pair_fuse",
        summary: "keep 64-bit values whole instead of split lo/hi words",
        run: crate::pair_fuse::run,
    },
    PassInfo {
        name: "mem_combine",
        summary: "neighbouring aligned 32-bit accesses as one 64- or 128-bit access",
        run: crate::mem_combine::run,
    },
    PassInfo {
        name: "if_convert",
        summary: "short side-effect-free if arms as selects",
        run: crate::if_convert::run,
    },
    PassInfo {
        name: "preheaders",
        summary: "one entry edge per loop: a block in front of headers entered from several",
        run: crate::preheaders::run,
    },
    PassInfo {
        name: "bounds_version",
        summary: "copy of a loop without buffer checks, entered when one test proves them",
        run: crate::bounds_version::run,
    },
    PassInfo {
        name: "unroll",
        summary: "unroll counted loops (fully for short constant trip counts)",
        run: crate::unroll::run,
    },
    PassInfo {
        name: "reassociate",
        summary: "reassociate integer additions so constants move outward",
        run: crate::reassociate::run,
    },
    PassInfo {
        name: "loop_reduce",
        summary: "loop strength reduction: costly affine addresses as induction variables",
        run: crate::loop_reduce::run,
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
        assert!(lookup("nope").is_none());
    }
}
