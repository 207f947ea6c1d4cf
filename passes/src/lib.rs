//! ilc's SSA IR and the generic passes over it.
//!
//! - [`ir`]: entities, types, opcode table, DFG, layout, function, builder, CFG analyses,
//!   text printer and parser, DOT output.
//! - [`verifier`]: accumulating IR verifier.
//! - [`eval`]: exact semantics of every pure opcode, shared by the interpreter and
//!   constant folding.
//! - [`interp`]: fuel-limited interpreter for a whole compute dispatch.
//! - Passes, one file each with `pub fn run(func: &mut Function, ..)`: [`dce`],
//!   [`copy_prop`], [`const_fold`], [`simplify_cfg`], [`gvn`], [`licm`],
//!   [`strength_reduce`], [`addr_fold`], [`mem_combine`], [`if_convert`], [`pair_fuse`],
//!   [`launch_facts`], [`unroll`], [`reassociate`];
//!   the analyses [`uniformity`], [`value_bound`] and [`counted_loop`] (the loop shape
//!   unrolling and value ranges share).
//! - Back-end passes generic over a target description ([`target::TargetIsa`]):
//!   [`schedule`] and [`regalloc`].
//! - [`registry`]: every optimization pass by name (pipeline, tools, filetests).
//! - [`filetest`]: the filetest framework (`SubTest` registry) used by `tests/filetests.rs`.
//!
//! `doc/ir.md` summarizes the IR design and its semantic conventions.
#![warn(missing_docs)]

pub mod budget;
pub mod eval;
pub mod interp;
pub mod ir;
pub mod regalloc;
pub mod schedule;
pub mod target;
pub mod verifier;

pub mod addr_fold;
pub(crate) mod affine;
pub mod bounds_region;
pub mod bounds_version;
pub mod combine;
pub mod const_fold;
pub mod copy_prop;
pub mod counted_loop;
pub mod dce;
pub mod ddiv_split;
pub mod exit_sink;
pub mod filetest;
pub mod gvn;
pub mod hoist_loads;
pub mod if_convert;
pub mod launch_facts;
pub mod licm;
pub mod load_pipeline;
pub mod loop_reduce;
pub mod loop_rotate;
pub mod mem_combine;
pub mod pair_fuse;
pub mod preheaders;
pub mod reassociate;
pub mod registry;
pub mod simplify_cfg;
pub mod sink;
pub mod strength_reduce;
pub mod uniformity;
pub mod unroll;
pub mod value_bound;

/// A `HashMap` with a fast hasher of fixed seed: compiler-internal maps keyed by entities and
/// small values hash an order of magnitude faster than with SipHash, and a fixed seed keeps
/// everything that might depend on iteration order deterministic across runs.
pub type FastHashMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::FixedState>;
/// The set counterpart of [`FastHashMap`].
pub type FastHashSet<K> = std::collections::HashSet<K, foldhash::fast::FixedState>;
