//! Property tests: random SSA functions (random CFGs with loops and block parameters,
//! all value types, register groups, early clobbers) are allocated for the toy target with
//! large and tiny register files; the checker must accept every result and the rewritten
//! function must still verify.

use ilc_passes::ir::{ControlFlowGraph, Function, RegFile};
use ilc_passes::regalloc::liveness::Liveness;
use ilc_passes::regalloc::testgen::{generate, GenConfig};
use ilc_passes::regalloc::{self, RegAllocError, RegAllocOptions};
use ilc_passes::target::{TargetIsa, ToyTarget};
use ilc_passes::verifier::verify_function;

/// Maximal number of GPRs live at once (values needed simultaneously, counting an
/// instruction's results with the operands still live after it): a lower bound for any
/// allocation of this code.
fn max_gpr_pressure(f: &Function, t: &dyn TargetIsa) -> u32 {
    let cfg = ControlFlowGraph::with_function(f);
    let lv = Liveness::compute(f, &cfg);
    let w = |v| {
        let fp = t.footprint(f.dfg.value_type(v));
        if fp.file == RegFile::Gpr {
            u32::from(fp.width)
        } else {
            0
        }
    };
    let mut peak = 0;
    for b in f.layout.blocks() {
        let mut live: std::collections::BTreeSet<_> = lv.live_out[b].iter().copied().collect();
        let insts: Vec<_> = f.layout.block_insts(b).collect();
        for &inst in insts.iter().rev() {
            let defs: u32 = f.dfg.inst_results(inst).iter().map(|&r| w(r)).sum();
            for &r in f.dfg.inst_results(inst) {
                live.remove(&r);
            }
            let after: u32 = live.iter().map(|&v| w(v)).sum();
            peak = peak.max(after + defs);
            for v in f.dfg.insts[inst].all_values() {
                live.insert(v);
            }
            peak = peak.max(live.iter().map(|&v| w(v)).sum());
        }
    }
    peak
}

/// Seeds whose function the allocator does not place in 8 GPRs (with 4-word load groups): it
/// reports fragmentation (no aligned free run of four registers) even after shrinking its
/// spill budget. A known limitation in files this small (the hardware has 255); the test fails
/// when one of them starts allocating, so the entry is removed (169 allocates since single
/// registers are placed beside values that outlive them).
const FRAGMENTED_IN_8_GPRS: &[u64] = &[];

fn run_seeds(seeds: std::ops::Range<u64>, gen: GenConfig, gprs: u32, preds: u32) -> (u32, u32) {
    run_seeds_except(seeds, gen, gprs, preds, &[])
}

/// As [`run_seeds`]; the seeds in `fragmented` must fail with a fragmentation error.
fn run_seeds_except(
    seeds: std::ops::Range<u64>,
    gen: GenConfig,
    gprs: u32,
    preds: u32,
    fragmented: &[u64],
) -> (u32, u32) {
    let target = ToyTarget::new(gprs, preds);
    let opts = RegAllocOptions {
        check: true,
        ..Default::default()
    };
    let (mut spilled, mut max_used) = (0, 0);
    let (mut moves, mut gprs_total, mut pressure_total) = (0u64, 0u64, 0u64);
    let (mut spill_bytes, mut spills) = (0u64, 0u64);
    for seed in seeds {
        let mut f = generate(seed, &gen);
        let input = f.to_string();
        let alloc = match (
            regalloc::run(&mut f, &target, &opts),
            fragmented.contains(&seed),
        ) {
            (Ok(a), false) => a,
            (Err(RegAllocError::NoRegister { .. }), true) => continue,
            (Ok(_), true) => panic!("seed {seed} allocates now: remove it from the list"),
            (Err(e), _) => panic!("seed {seed} ({gprs} GPRs): {e}\n{input}"),
        };
        if let Err(e) = verify_function(&f) {
            panic!("seed {seed}: {}\n{input}\n{f}", e.display_with(&f));
        }
        assert!(alloc.num_gprs_used() <= gprs, "seed {seed}");
        spilled += u32::from(alloc.num_spills > 0 || alloc.num_reloads > 0);
        max_used = max_used.max(alloc.num_gprs_used());
        moves += u64::from(alloc.num_moves);
        gprs_total += u64::from(alloc.num_gprs_used());
        pressure_total += u64::from(max_gpr_pressure(&f, &target));
        spill_bytes += u64::from(alloc.spill_bytes);
        spills += u64::from(alloc.num_spills);
    }
    println!(
        "{gprs} GPRs: {spilled} functions spilled, {moves} moves, {gprs_total} GPRs used in \
         total, {pressure_total} = sum of maximal pressures of the allocated code, {spills} \
         spill stores, {spill_bytes} spill bytes"
    );
    (spilled, max_used)
}

#[test]
fn random_functions_full_register_file() {
    let (spilled, _) = run_seeds(0..300, GenConfig::default(), 255, 64);
    assert_eq!(spilled, 0, "no spilling expected with 255 GPRs");
}

#[test]
fn random_functions_tiny_register_file_spill() {
    // 128-bit stores whose data stays live need 4 + 4 + 1 registers at once: more than 8.
    let gen = GenConfig {
        max_store_words: 2,
        max_load_words: 4,
        ..Default::default()
    };
    let (spilled, max_used) = run_seeds_except(0..300, gen, 8, 3, FRAGMENTED_IN_8_GPRS);
    assert!(
        spilled > 50,
        "tiny register files must force spilling ({spilled})"
    );
    assert!(max_used <= 8);
}

#[test]
fn random_functions_sixteen_registers_wide_stores() {
    let gen = GenConfig {
        max_blocks: 10,
        max_insts: 20,
        ..Default::default()
    };
    let (spilled, _) = run_seeds(0..300, gen, 16, 3);
    assert!(spilled > 0);
}

#[test]
fn random_functions_with_target_instructions() {
    let gen = GenConfig {
        target_ops: true,
        max_store_words: 2,
        ..Default::default()
    };
    run_seeds(0..300, gen, 255, 7);
    let (spilled, _) = run_seeds(300..600, gen, 10, 4);
    assert!(spilled > 0);
}

#[test]
fn allocation_and_scheduling_are_deterministic() {
    use ilc_passes::regalloc::listing;
    use ilc_passes::schedule::{self, ScheduleOptions};
    let target = ToyTarget::new(12, 4);
    let gen = GenConfig {
        target_ops: true,
        max_store_words: 2,
        ..Default::default()
    };
    for seed in 0..60 {
        let once = || {
            let mut f = generate(seed, &gen);
            schedule::run(&mut f, &target, &ScheduleOptions::default());
            let a = regalloc::run(&mut f, &target, &RegAllocOptions::default())
                .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
            listing(&f, &a)
        };
        assert_eq!(once(), once(), "seed {seed}");
    }
}
