//! Check the latency table against ptxas: in every corpus kernel, when an instruction's
//! fixed-latency GPR result is read by the very next instruction, ptxas's stall count on the
//! producer is at least our `required_stall` (so ptxas never relies on less than we assume);
//! and ptxas uses exactly [`FIXED_LATENCY`] for most such pairs (so it is not pessimistic). Also checks that variable-latency
//! producers are always followed by a consumer waiting on the scoreboard they set.

use ilc_test_support::corpus;

use isa_spa5::cubin::read_cubin;
use isa_spa5::inst::Loc;
use isa_spa5::latency::{needs_write_barrier, required_stall, timing, Latency, FIXED_LATENCY};
use isa_spa5::program::decode_program;

fn overlaps(a: &Loc, b: &Loc) -> bool {
    match (a, b) {
        (Loc::Gpr { reg: r1, count: c1 }, Loc::Gpr { reg: r2, count: c2 }) => {
            let (a0, a1) = (r1.0 as u16, r1.0 as u16 + *c1 as u16);
            let (b0, b1) = (r2.0 as u16, r2.0 as u16 + *c2 as u16);
            a0 < b1 && b0 < a1
        }
        _ => false,
    }
}

#[test]
fn ptxas_stalls_cover_fixed_latency() {
    let (mut pairs, mut exact, mut waits, mut var_pairs) = (0, 0, 0, 0);
    let mut hist = std::collections::BTreeMap::new();
    let mut tight = 0;
    for path in corpus("tests/cuda/cubins", "cubin", 60) {
        let cubin = read_cubin(&std::fs::read(&path).expect("read")).expect("cubin");
        for k in &cubin.kernels {
            let Ok(prog) = decode_program(&k.code) else {
                continue;
            };
            for w in prog.windows(2) {
                let (p, pc) = w[0];
                let (c, cc) = w[1];
                let dep = p
                    .defs()
                    .iter()
                    .any(|d| c.uses().iter().any(|u| overlaps(&d, &u)));
                // Complementary guards touch disjoint lanes (`@P0 LEA.HI R3` / `@!P0 IADD .., R3`).
                let disjoint =
                    p.guard.reg == c.guard.reg && p.guard.not != c.guard.not && p.guard.reg.0 < 7;
                if !dep || disjoint {
                    continue;
                }
                match timing(&p).gpr {
                    Latency::Fixed(l) if l > 0 => {
                        pairs += 1;
                        *hist.entry((c.form().class, pc.stall)).or_insert(0usize) += 1;
                        let need = required_stall(&p, &c);
                        assert!(
                            pc.stall >= need,
                            "{}: {} (stall {}) feeds {}: we require {need}",
                            k.name,
                            p.op.name(),
                            pc.stall,
                            c.op.name()
                        );
                        if pc.stall == need {
                            tight += 1;
                        }
                        if pc.stall == FIXED_LATENCY {
                            exact += 1;
                        }
                    }
                    _ if needs_write_barrier(&p) => {
                        var_pairs += 1;
                        if let Some(b) = pc.wr_bar {
                            if cc.wait_mask & (1 << b) != 0 {
                                waits += 1;
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
    }
    println!("fixed-latency producer->consumer pairs: {pairs}, ptxas stall exactly {FIXED_LATENCY}: {exact}; variable-latency pairs: {var_pairs}, consumer waits on producer's scoreboard: {waits}");
    println!(
        "(consumer class, ptxas stall) -> pairs: {hist:?}; stall equal to our requirement: {tight}"
    );
    assert!(pairs > 100);
    assert!(
        exact * 2 > pairs,
        "ptxas mostly uses {FIXED_LATENCY} cycles for dependent pairs"
    );
    assert_eq!(
        waits, var_pairs,
        "every immediate consumer of a variable-latency result waits"
    );
}

/// For every straight-line path in the ptxas corpora (`tests/cuda/cubins` and the generated
/// timing corpus `tests/cuda/timing/cubins`): the fewest cycles ptxas leaves between a
/// fixed-latency producer and a later reader of its result, per reader class (GPR results)
/// and for predicates and the condition code. These minima are the evidence for the table in
/// `isa_spa5::latency`: a consumer class reads its sources `source_read_delay` cycles after
/// issue exactly when ptxas's tightest distance is `FIXED_LATENCY - source_read_delay`, and
/// the predicate and CC latencies equal ptxas's tightest distances. Equality both ways: a
/// larger delay would let us schedule tighter than NVIDIA ever does, a smaller one would
/// make our stalls longer than ptxas's for the same dependency.
#[test]
fn latency_table_is_ptxas_minimum() {
    use isa_spa5::latency::{pred_latency, source_read_delay, CC_LATENCY};
    use isa_spa5::table::Class;
    use std::collections::BTreeMap;
    // (reader class) -> (min cycles, example)
    let mut gpr: BTreeMap<String, (u64, Class, String)> = BTreeMap::new();
    let mut pred_min = (u64::MAX, String::new());
    let mut cc_min = (u64::MAX, String::new());
    let mut files = 0;
    for (dir, min) in [("tests/cuda/cubins", 60), ("tests/cuda/timing/cubins", 200)] {
        for path in corpus(dir, "cubin", min) {
            files += 1;
            let cubin = read_cubin(&std::fs::read(&path).expect("read")).expect("cubin");
            for k in &cubin.kernels {
                let Ok(prog) = decode_program(&k.code) else {
                    continue;
                };
                for (pi, (p, _)) in prog.iter().enumerate() {
                    let Latency::Fixed(l) = timing(p).gpr else {
                        continue;
                    };
                    if l == 0 || p.is_branch() || p.is_terminator() {
                        continue;
                    }
                    let defs = p.defs();
                    let mut cycles = 0u64;
                    for (c, cc) in prog[pi..].iter().skip(1).zip(prog[pi..].iter()) {
                        cycles += cc.1.stall as u64;
                        if cycles > 15 {
                            break;
                        }
                        let (c, _) = c;
                        // Lanes written and read are disjoint under complementary guards.
                        if p.guard.reg == c.guard.reg
                            && p.guard.not != c.guard.not
                            && p.guard.reg.0 < 7
                        {
                            continue;
                        }
                        let what = format!(
                            "{}: {} -> {} after {cycles}",
                            k.name,
                            p.op.name(),
                            c.op.name()
                        );
                        // The guard predicate is one of the uses.
                        let guard_uses: Vec<Loc> = c.uses().iter().collect();
                        for d in defs.iter() {
                            let read = guard_uses.iter().any(|u| match (d, u) {
                                (Loc::Pred(a), Loc::Pred(b)) => a == *b,
                                (Loc::Pred(_), Loc::Pr) | (Loc::Pr, Loc::Pred(_)) => true,
                                (Loc::Cc, Loc::Cc) => true,
                                _ => overlaps(&d, u),
                            });
                            if !read {
                                continue;
                            }
                            match d {
                                Loc::Gpr { .. } => {
                                    let key = format!("{:?}", c.form().class);
                                    let e = gpr.entry(key).or_insert((
                                        u64::MAX,
                                        c.form().class,
                                        String::new(),
                                    ));
                                    if cycles < e.0 {
                                        *e = (cycles, c.form().class, what.clone());
                                    }
                                }
                                Loc::Pred(_) | Loc::Pr if cycles < pred_min.0 => {
                                    pred_min = (cycles, what.clone())
                                }
                                Loc::Cc if cycles < cc_min.0 => cc_min = (cycles, what.clone()),
                                _ => {}
                            }
                        }
                        // Stop at the next write of any of the producer's results or a transfer.
                        if c.is_branch()
                            || c.is_terminator()
                            || c.defs()
                                .iter()
                                .any(|x| defs.iter().any(|d| overlaps(&d, &x)))
                        {
                            break;
                        }
                    }
                }
            }
        }
    }
    println!("{files} cubins; fewest cycles from a fixed-latency producer to a reader:");
    for (class, (m, _, ex)) in &gpr {
        println!("  GPR -> {class}: {m} ({ex})");
    }
    println!("  predicate: {} ({})", pred_min.0, pred_min.1);
    println!("  CC: {} ({})", cc_min.0, cc_min.1);
    let mut wrong = Vec::new();
    for (class, (m, c, ex)) in &gpr {
        let delay = FIXED_LATENCY.saturating_sub(*m as u8);
        // A consumer needs a dummy instance to ask for its class's delay: compare by class.
        if isa_spa5::latency::class_read_delay(*c) != delay {
            wrong.push(format!(
                "{class}: ptxas's fewest cycles {m} means read delay {delay}, table says {} ({ex})",
                isa_spa5::latency::class_read_delay(*c)
            ));
        }
    }
    let _ = source_read_delay;
    if pred_min.0 != u64::MAX && pred_latency() as u64 != pred_min.0 {
        wrong.push(format!(
            "predicate latency {} but ptxas uses {} ({})",
            pred_latency(),
            pred_min.0,
            pred_min.1
        ));
    }
    if cc_min.0 != u64::MAX && CC_LATENCY as u64 > cc_min.0 {
        wrong.push(format!(
            "CC latency {CC_LATENCY} but ptxas uses {} ({})",
            cc_min.0, cc_min.1
        ));
    }
    assert!(files > 150, "{files} cubins");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
