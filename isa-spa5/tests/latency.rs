//! Check the latency table against ptxas: in every corpus kernel, when an instruction's
//! fixed-latency GPR result is read by the very next instruction, ptxas's stall count on the
//! producer is at least our `required_stall` (so ptxas never relies on less than we assume);
//! and ptxas uses exactly [`FIXED_LATENCY`] for most such pairs (so it is not pessimistic). Also checks that variable-latency
//! producers are always followed by a consumer waiting on the scoreboard they set.

use std::path::PathBuf;

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
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/cuda/cubins");
    let (mut pairs, mut exact, mut waits, mut var_pairs) = (0, 0, 0, 0);
    let mut hist = std::collections::BTreeMap::new();
    let mut tight = 0;
    for e in std::fs::read_dir(&dir).expect("corpus") {
        let path = e.expect("entry").path();
        if path.extension().is_none_or(|x| x != "cubin") {
            continue;
        }
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
                if !dep {
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
