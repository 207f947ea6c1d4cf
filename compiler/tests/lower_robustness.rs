//! The lowering never panics on user input: every corpus kernel with one statement
//! removed, duplicated or moved (unbalanced control flow, missing declarations, calls to
//! missing functions, code after `end`) either lowers to IR that passes the verifier or
//! fails with diagnostics that name an opcode and a line.

use std::path::PathBuf;

use ilc_test_support::Rng;
use isa_amdil::ast::Program;
use isa_amdil::opcodes::Precision;

fn corpus() -> Vec<(PathBuf, Program)> {
    ilc_test_support::corpus("tests/kernels", "il", 60)
        .into_iter()
        .filter_map(|f| {
            let text = std::fs::read_to_string(&f).ok()?;
            isa_amdil::parse(&text).0.map(|p| (f, p))
        })
        .collect()
}

fn check(name: &str, p: &Program) {
    match ilc::lower::lower(p) {
        Ok(func) => {
            if let Err(e) = ilc_passes::verifier::verify_function(&func) {
                panic!(
                    "{name}: lowered IR fails the verifier:\n{}",
                    e.display_with(&func)
                );
            }
        }
        Err(errs) => {
            assert!(!errs.0.is_empty(), "{name}: empty error list");
            for e in &errs.0 {
                assert!(!e.opcode.is_empty() && !e.message.is_empty(), "{name}: {e}");
            }
        }
    }
}

#[test]
fn mutated_corpus_never_panics() {
    let corpus = corpus();
    assert!(!corpus.is_empty(), "kernel corpus not found");
    let mut runs = 0;
    for (path, prog) in &corpus {
        let name = path.file_name().unwrap().to_string_lossy();
        check(&name, prog);
        let n = prog.statements.len();
        for i in 0..n {
            let mut p = prog.clone();
            p.statements.remove(i);
            check(&format!("{name} without statement {i}"), &p);
            let mut p = prog.clone();
            p.statements.insert(i, prog.statements[i].clone());
            check(&format!("{name} with statement {i} twice"), &p);
            let mut p = prog.clone();
            let st = p.statements.remove(i);
            p.statements.insert((i * 7 + 3) % n, st);
            check(&format!("{name} with statement {i} moved"), &p);
            runs += 3;
        }
    }
    assert!(runs > 100);
}

/// Mutants that both the lowering and the IL interpreter accept must also compute the
/// same results: dropped declarations, duplicated stores, moved control flow and code
/// after `end` exercise paths no hand-written kernel does.
#[test]
fn accepted_mutants_match_the_il_interpreter() {
    use std::collections::BTreeMap;

    use ilc::lower::validate::{self, Buffers, Tolerance};

    let mut failures = Vec::new();
    let mut compared = 0;
    for (path, prog) in corpus() {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let n = prog.statements.len();
        for i in 0..n {
            if i % 3 == 2 {
                continue;
            }
            let mut p = prog.clone();
            let st = p.statements.remove(i);
            if i % 3 == 1 {
                p.statements.insert((i * 5 + 1) % n, st);
            }
            // One work-item per group and one group: mutants often race (every work-item
            // hits one address), and a lone work-item cannot.
            for st in p.statements.iter_mut() {
                if st.opcode == isa_amdil::Opcode::DclNumThreadPerGroup {
                    st.payload = isa_amdil::ast::Payload::Numbers([1, 1, 1].into());
                }
            }
            let Ok(func) = ilc::lower::lower(&p) else {
                continue;
            };
            let mut bufs = Buffers::default();
            let mut rng = Rng::new(0x1234_5678 + i as u64);
            let mut bytes = |len: usize| -> Vec<u8> {
                (0..len / 4)
                    .flat_map(|_| (rng.below(97) as u32).to_le_bytes())
                    .collect()
            };
            for id in func.uavs.keys() {
                bufs.uavs.insert(*id as u32, bytes(2048));
            }
            for (id, size) in &func.cbs {
                bufs.cbs
                    .insert(*id as u32, bytes((*size).min(4096) as usize));
            }
            if func.uses_global {
                bufs.global = Some(bytes(2048));
            }
            let approx = p
                .statements
                .iter()
                .any(|s| s.opcode.precision() != Precision::Exact);
            let tol: BTreeMap<u32, Tolerance> = if approx {
                bufs.uavs
                    .keys()
                    .map(|&k| (k, Tolerance::F32Ulp(4)))
                    .collect()
            } else {
                BTreeMap::new()
            };
            // A small budget: mutants without a loop counter update never end.
            let il = validate::run_il_fuel(&p, [1, 1, 1], &bufs, 20_000);
            if il.is_err() {
                continue;
            }
            compared += 1;
            let ir = validate::run_ir(&func, [1, 1, 1], &bufs, Default::default());
            let r = match (il, ir) {
                (Ok(a), Ok(b)) => validate::compare_outputs(&a, &b, &tol),
                (Err(e), _) | (_, Err(e)) => Err(e),
            };
            if let Err(e) = r {
                failures.push(format!("{name} mutant {i}: {e}"));
            }
        }
    }
    assert!(compared > 100, "only {compared} mutants compared");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
