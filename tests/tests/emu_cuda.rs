//! Emulator validation against NVIDIA's compiler: CUDA kernels of
//! `tests/cuda/` compiled by ptxas for sm_50 run on `isa_spa5::emu` with the inputs their
//! launch descriptions (`NAME.toml`) ask for (`ilc_tests::cuda_launch`), and every output
//! buffer must equal the CPU reference of `ilc_tests::cuda_ref`; the hazard checker must
//! report nothing on NVIDIA's control words. Two input seeds per kernel.
//!
//! Every corpus kernel also runs once with hazard checking (`every_corpus_kernel_runs_hazard_free`),
//! references or not; the kernels without a reference are listed, with the reason, in
//! `cuda_ref::NO_REFERENCE`.

use ilc_test_support::{assert_no_failures, corpus, stem};
use ilc_tests::cuda_launch::{cuda_dir, launch, launch_with};
use ilc_tests::cuda_ref::{references, NO_REFERENCE};

/// Kernels whose outputs are wrong because of a known emulator bug, excluded from the
/// reference check with the reason (none at present: iminmax's VABSDIFF is modelled now).
const EMU_BUGS: &[(&str, &str)] = &[];

/// Runs `names`' references on two seeds; the failures, one line each.
fn check(names: &[&str]) -> Vec<String> {
    let references = references();
    let mut failures = Vec::new();
    for name in names {
        let Some((_, reference)) = references.iter().find(|(n, _)| n == name) else {
            failures.push(format!("{name}: no reference"));
            continue;
        };
        for seed in [1u64, 2] {
            match launch(name, seed) {
                Ok((run, hazards)) => {
                    if let Err(e) = reference(&run) {
                        failures.push(format!("{name} (seed {seed}): {e}"));
                    }
                    if let Some(h) = hazards.first() {
                        failures.push(format!("{name}: hazard in ptxas code: {h}"));
                    }
                }
                Err(e) => failures.push(e),
            }
        }
    }
    failures
}

#[test]
fn ptxas_kernels_match_cpu_references_hazard_free() {
    let names: Vec<&str> = references()
        .iter()
        .map(|(n, _)| *n)
        .filter(|n| !EMU_BUGS.iter().any(|(b, _)| b == n))
        .collect();
    assert!(names.len() >= 40, "only {} references", names.len());
    let failures = check(&names);
    assert_no_failures(&failures, "failures");
}

#[test]
fn every_corpus_kernel_runs_hazard_free() {
    let names: Vec<String> = corpus(cuda_dir(), "toml", 60)
        .iter()
        .map(|p| stem(p))
        .collect();
    let mut failures = Vec::new();
    let mut unchecked = Vec::new();
    for name in &names {
        if !references().iter().any(|(n, _)| n == name) {
            if !NO_REFERENCE.iter().any(|(n, _)| n == name) {
                failures.push(format!(
                    "{name}: neither a reference nor a reason in NO_REFERENCE"
                ));
            }
            unchecked.push(name.as_str());
        }
        match launch(name, 1) {
            Ok((_, hazards)) => {
                if let Some(h) = hazards.first() {
                    failures.push(format!("{name}: {h}"));
                }
            }
            Err(e) => failures.push(e),
        }
    }
    eprintln!("{} kernels without a CPU reference:", unchecked.len());
    for (name, why) in NO_REFERENCE {
        eprintln!("  {name}: {why}");
    }
    assert_no_failures(&failures, "failures");
}

/// Kernels whose launch notes ask for edge inputs (NaN, infinities, signed zeros, ties,
/// 0 and -1 divisors, INT_MIN, f16 overflow) and whose references are defined for all inputs.
const EDGE_KERNELS: &[&str] = &[
    "fcompare",
    "fminmax",
    "fround",
    "dround",
    "dcompare",
    "convert",
    "convert64",
    "convert_half",
    "int64_divrem",
    "brev64_clz64",
    "idiv_signed",
    "idiv_unsigned",
    "bitcount",
    "int64",
];

#[test]
fn edge_inputs_match_cpu_references() {
    let references = references();
    let mut failures = Vec::new();
    for name in EDGE_KERNELS {
        let (_, reference) = references
            .iter()
            .find(|(n, _)| n == name)
            .expect("EDGE_KERNELS names kernels with a reference");
        for seed in [3u64, 4] {
            match launch_with(name, seed, true) {
                Ok((run, _)) => {
                    if let Err(e) = reference(&run) {
                        failures.push(format!("{name} (edge seed {seed}): {e}"));
                    }
                }
                Err(e) => failures.push(e),
            }
        }
    }
    assert_no_failures(&failures, "failures");
}
