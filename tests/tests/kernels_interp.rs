//! Runs every kernel of the IL corpus (`tests/kernels/NAME.il` with its case folder
//! `NAME/`, DESIGN.md section 4) through the reference interpreter and compares the
//! buffers with the expected outputs that `tests/kernels/gen_cases.py` computed from the
//! math, honouring `tolerance.txt`.
//!
//! Each case runs in lock step and in two shuffled interleavings (the corpus kernels are
//! barrier-correct, so every interleaving must give the expected result) and with the LDS
//! race checker on; races, warnings and out-of-range accesses (outside the `oob_*` kernels)
//! are failures too.

use ilc_test_support::assert_no_failures;
use ilc_tests::cases::{check_outputs, compare, corpus, load_cases, parse_tolerance, ulp32, Tol};
use isa_amdil::interp::{self, Schedule};

#[test]
fn corpus_has_at_least_forty_cases() {
    let n = corpus().len();
    assert!(n >= 40, "only {n} kernels in tests/kernels");
    for il in corpus() {
        assert!(
            il.with_extension("").is_dir(),
            "{} has no case folder",
            il.display()
        );
    }
}

#[test]
fn every_kernel_matches_its_expected_output() {
    let mut failures = Vec::new();
    for case in load_cases(&mut failures) {
        let prog = match interp::prepare_source(&case.source) {
            Ok(p) => p,
            Err(e) => {
                failures.push(format!("{}: {e}", case.name));
                continue;
            }
        };
        let schedules = [
            ("lockstep", Schedule::LockStep),
            ("shuffled 1", Schedule::Shuffled { seed: 1 }),
            ("shuffled 77", Schedule::Shuffled { seed: 77 }),
        ];
        for (how, schedule) in schedules {
            let mut d = case.dispatch.clone();
            d.schedule = schedule;
            d.lds_check = true;
            d.fuel = 50_000_000;
            match interp::run_decoded(&prog, &mut d) {
                Ok(stats) => {
                    failures.extend(check_outputs(&case, &d, how));
                    if stats.oob_count != 0 && !case.name.starts_with("oob") {
                        failures.push(format!(
                            "{} [{how}]: {} out-of-range accesses",
                            case.name, stats.oob_count
                        ));
                    }
                    if !stats.warnings.is_empty() {
                        failures.push(format!(
                            "{} [{how}]: warnings {:?}",
                            case.name, stats.warnings
                        ));
                    }
                    if !stats.lds_races.is_empty() {
                        failures.push(format!(
                            "{} [{how}]: unexpected LDS race {:?}",
                            case.name, stats.lds_races[0]
                        ));
                    }
                }
                Err(e) => failures.push(format!("{} [{how}]: {e}", case.name)),
            }
        }
    }
    assert_no_failures(&failures, "failures");
}

#[test]
fn comparator_detects_differences() {
    let a = 1.0f32.to_bits().to_le_bytes();
    let b = f32::from_bits(1.0f32.to_bits() + 2).to_bits().to_le_bytes();
    assert!(compare("x", &a, &b, Tol::Exact).is_err());
    assert!(compare("x", &a, &b, Tol::F32Ulp(1)).is_err());
    assert!(compare("x", &a, &b, Tol::F32Ulp(2)).is_ok());
    assert!(compare("x", &a, &a[..2], Tol::Exact).is_err());
    assert_eq!(ulp32(0x8000_0000, 0), 0);
    assert_eq!(ulp32(0x8000_0001, 1), 2);
    assert_eq!(
        parse_tolerance("uav1 f32 ulp 3\nuav2 u32 exact\n").unwrap()["uav1"],
        Tol::F32Ulp(3)
    );
    assert!(parse_tolerance("uav1 f32 nearly").is_err());
}
