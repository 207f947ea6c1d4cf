//! The checker must reject broken allocations: mutations of correct results (a register
//! clobbered by a result, a deleted spill store, a reload from the wrong slot, a parameter
//! in the wrong register) are each caught, over many random functions.

use cranelift_entity::EntityRef;
use ilc_passes::ir::{Function, Inst, Opcode, PerRegFile, RegFile, Value};
use ilc_passes::regalloc::testgen::{generate, GenConfig};
use ilc_passes::regalloc::{self, checker, Allocation, EditKind, RegAllocOptions};
use ilc_passes::target::{PReg, TargetIsa, ToyTarget};

fn allocate(seed: u64, gprs: u32) -> (Function, Function, Allocation, ToyTarget) {
    let target = ToyTarget::new(gprs, 4);
    // Groups of at most two words: the 8-GPR runs below test the checker, not how the
    // allocator copes with aligned four-register groups in a file that small.
    let gen = GenConfig {
        max_store_words: 2,
        max_load_words: 2,
        ..Default::default()
    };
    let orig = generate(seed, &gen);
    let mut f = orig.clone();
    let alloc = regalloc::run(&mut f, &target, &RegAllocOptions::default())
        .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
    (orig, f, alloc, target)
}

fn limits(t: &ToyTarget) -> PerRegFile<u32> {
    PerRegFile(RegFile::ALL.map(|f| t.num_regs(f)))
}

/// An input instruction defining a one-register GPR result while another one-register GPR
/// value, used by a later input instruction of the block, is live across it.
fn clobber_candidate(f: &Function, alloc: &Allocation, t: &ToyTarget) -> Option<(Value, PReg)> {
    for b in f.layout.blocks() {
        let insts: Vec<Inst> = f.layout.block_insts(b).collect();
        for (k, &i) in insts.iter().enumerate() {
            if alloc.edits[i] != EditKind::Original || f.dfg.insts[i].is_terminator() {
                continue;
            }
            let Some(&r) = f.dfg.inst_results(i).first() else {
                continue;
            };
            if t.footprint(f.dfg.value_type(r)).file != RegFile::Gpr
                || t.footprint(f.dfg.value_type(r)).width != 1
            {
                continue;
            }
            // A value defined before `i` in this block and used after it by an input
            // instruction.
            for &j in &insts[k + 1..] {
                if alloc.edits[j] != EditKind::Original {
                    continue;
                }
                for &a in f.dfg.inst_args(j) {
                    let Some(d) = f.dfg.value_inst(a) else {
                        continue;
                    };
                    let before = insts[..k].contains(&d);
                    let fp = t.footprint(f.dfg.value_type(a));
                    if before && fp.file == RegFile::Gpr && fp.width == 1 && a != r {
                        return alloc.regs[a].map(|reg| (r, reg));
                    }
                }
            }
        }
    }
    None
}

#[test]
fn clobbered_register_is_caught() {
    let mut tried = 0;
    for seed in 0..200 {
        let (orig, f, mut alloc, t) = allocate(seed, 255);
        checker::check(&orig, &f, &alloc, &t, limits(&t)).expect("correct allocation passes");
        let Some((r, reg)) = clobber_candidate(&f, &alloc, &t) else {
            continue;
        };
        alloc.regs[r] = Some(reg);
        tried += 1;
        assert!(
            checker::check(&orig, &f, &alloc, &t, limits(&t)).is_err(),
            "seed {seed}: clobbering {reg} with {r} went unnoticed"
        );
    }
    assert!(tried > 50, "only {tried} mutations tried");
}

#[test]
fn deleted_spill_or_misdirected_reload_is_caught() {
    let (mut spills_tried, mut reloads_tried) = (0, 0);
    for seed in 0..300 {
        let (orig, f, alloc, t) = allocate(seed, 8);
        checker::check(&orig, &f, &alloc, &t, limits(&t)).expect("correct allocation passes");
        let insts = f.insts_in_layout();
        // Delete the first spill store whose slot is reloaded later.
        let spill = insts.iter().copied().find(|&i| {
            matches!(alloc.edits[i], EditKind::Spill { offset } if insts.iter().any(|&j| alloc.edits[j] == EditKind::Reload { offset }))
        });
        if let Some(s) = spill {
            let mut g = f.clone();
            g.layout.remove_inst(s);
            spills_tried += 1;
            assert!(
                checker::check(&orig, &g, &alloc, &t, limits(&t)).is_err(),
                "seed {seed}: deleting spill {s} went unnoticed"
            );
        }
        // Point a reload at a slot that never holds its value.
        let reload = insts
            .iter()
            .copied()
            .find(|&i| matches!(alloc.edits[i], EditKind::Reload { .. }));
        assert!(
            reload.is_none_or(|r| {
                let v = f.dfg.inst_results(r)[0];
                insts
                    .iter()
                    .any(|&j| f.dfg.insts[j].all_values().any(|x| x == v))
            }),
            "seed {seed}: dead reload left in the code"
        );
        if let Some(r) = reload {
            let mut bad = alloc.clone();
            bad.edits[r] = EditKind::Reload {
                offset: alloc.spill_bytes + 64,
            };
            bad.spill_bytes += 128;
            reloads_tried += 1;
            assert!(
                checker::check(&orig, &f, &bad, &t, limits(&t)).is_err(),
                "seed {seed}: misdirected reload {r} went unnoticed"
            );
        }
    }
    assert!(
        spills_tried > 20 && reloads_tried > 20,
        "{spills_tried} {reloads_tried}"
    );
}

#[test]
fn misplaced_block_parameter_is_caught() {
    let mut tried = 0;
    for seed in 0..200 {
        let (orig, f, mut alloc, t) = allocate(seed, 255);
        // A GPR parameter of width 1 that is used: move it to a register no one uses.
        let param = f.layout.blocks().find_map(|b| {
            f.dfg.block_params(b).iter().copied().find(|&p| {
                let fp = t.footprint(f.dfg.value_type(p));
                fp.file == RegFile::Gpr
                    && fp.width == 1
                    && f.insts_in_layout()
                        .iter()
                        .any(|&i| f.dfg.insts[i].all_values().any(|v| v == p))
            })
        });
        let Some(p) = param else { continue };
        alloc.regs[p] = Some(PReg::gpr(250));
        tried += 1;
        assert!(
            checker::check(&orig, &f, &alloc, &t, limits(&t)).is_err(),
            "seed {seed}: parameter {p} moved unnoticed"
        );
    }
    assert!(tried > 30, "{tried}");
    let _ = Value::new(0);
}

/// Deleting a definition is caught: an input constant (which the allocator may drop once it
/// rematerialized every use) while a use still reads it, and any other input instruction.
#[test]
fn deleted_definition_is_caught() {
    let (mut constants, mut others) = (0, 0);
    for seed in 0..200 {
        let (orig, f, alloc, t) = allocate(seed, 255);
        let insts = f.insts_in_layout();
        let read = |v: Value| {
            insts
                .iter()
                .any(|&j| f.dfg.insts[j].all_values().any(|x| x == v))
        };
        let victim = |constant: bool| {
            insts.iter().copied().find(|&i| {
                alloc.edits[i] == EditKind::Original
                    && (f.dfg.opcode(i) == Opcode::Iconst) == constant
                    && !f.dfg.insts[i].is_terminator()
                    && f.dfg.inst_results(i).first().is_some_and(|&r| read(r))
            })
        };
        for (constant, count) in [(true, &mut constants), (false, &mut others)] {
            let Some(i) = victim(constant) else { continue };
            let mut g = f.clone();
            g.layout.remove_inst(i);
            *count += 1;
            assert!(
                checker::check(&orig, &g, &alloc, &t, limits(&t)).is_err(),
                "seed {seed}: deleting {i} (constant: {constant}) went unnoticed"
            );
        }
    }
    assert!(constants > 30 && others > 30, "{constants} {others}");
}

#[test]
fn invalid_input_is_an_error_not_a_panic() {
    use ilc_passes::ir::parse_function_text;
    // v1 is defined only on one path into block3.
    let text = "kernel %k {
    uav0 = raw
block0:
    v0 = special tid.x
    v9 = icmp eq v0, v0
    brif v9, block1, block2
block1:
    v1 = iadd v0, v0
    jump block3
block2:
    jump block3
block3:
    store.b32 uav0[v0], v1
    return
}";
    let mut f = parse_function_text(text).expect("parses");
    let r = regalloc::run(&mut f, &ToyTarget::default(), &RegAllocOptions::default());
    assert!(
        matches!(r, Err(regalloc::RegAllocError::UndefinedValue { .. })),
        "{r:?}"
    );
    let mut empty = Function::new("empty");
    let r = regalloc::run(
        &mut empty,
        &ToyTarget::default(),
        &RegAllocOptions::default(),
    );
    assert!(matches!(r, Err(regalloc::RegAllocError::NoEntry)), "{r:?}");
}

/// A target whose move factory is broken: allocation must fail with an error naming the
/// instruction, not panic.
struct BrokenMoves(ToyTarget);

impl TargetIsa for BrokenMoves {
    fn name(&self) -> &str {
        "broken"
    }
    fn num_regs(&self, file: RegFile) -> u32 {
        self.0.num_regs(file)
    }
    fn constraints(&self, func: &Function, inst: Inst) -> ilc_passes::target::InstConstraints {
        self.0.constraints(func, inst)
    }
    fn sched_info(&self, func: &Function, inst: Inst) -> ilc_passes::target::SchedInfo {
        self.0.sched_info(func, inst)
    }
    fn make_move(&self, _ty: ilc_passes::ir::Type, _src: Value) -> ilc_passes::ir::InstructionData {
        ilc_passes::ir::InstructionData::Nullary {
            opcode: ilc_passes::ir::Opcode::Return,
        }
    }
    fn make_spill(
        &self,
        ty: ilc_passes::ir::Type,
        src: Value,
        offset: u32,
    ) -> ilc_passes::ir::InstructionData {
        self.0.make_spill(ty, src, offset)
    }
    fn make_reload(
        &self,
        ty: ilc_passes::ir::Type,
        offset: u32,
    ) -> ilc_passes::ir::InstructionData {
        self.0.make_reload(ty, offset)
    }
}

#[test]
fn broken_target_factories_give_errors() {
    use ilc_passes::ir::parse_function_text;
    let text = "kernel %k {
    uav0 = raw
block0:
    v0 = special tid.x
    v1 = iadd v0, v0
    store.b64 uav0[v0], v1, v0
    return
}";
    let mut f = parse_function_text(text).expect("parses");
    let before = f.to_string();
    let r = regalloc::run(
        &mut f,
        &BrokenMoves(ToyTarget::default()),
        &RegAllocOptions::default(),
    );
    assert!(
        matches!(r, Err(regalloc::RegAllocError::BadConstraint { .. })),
        "{r:?}"
    );
    assert_eq!(
        f.to_string(),
        before,
        "a failed allocation leaves the function alone"
    );
}
