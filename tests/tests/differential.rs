//! Whole-pipeline differential tests: every kernel of `tests/kernels/` compiled at
//! `-O0` to `-O3` runs on the SPA 5.0 emulator (with the control-word hazard checker) and must
//! give the outputs of its case folder, and the outputs of the IL reference interpreter on
//! random inputs (`ilc::verify`: bit-exact, or within the documented f32 tolerance for kernels
//! with approximate operations).
//!
//! Kernels the backend cannot compile yet are listed in [`UNSUPPORTED`] with the diagnostic
//! they must produce; a listed kernel that starts compiling fails the test so the list stays
//! honest. Known wrong-code bugs are listed in [`KNOWN_WRONG`] with the reason; each is
//! still compiled and run (a crash or hazard fails), only its value comparison is reported
//! instead of failing.

use ilc::options::{OptLevel, Options};
use ilc::verify::{run_emulated, verify, VerifyOptions};
use ilc::Compiler;
use ilc_test_support::assert_no_failures;
use ilc_tests::cases::{check_outputs, corpus, load_cases};

/// (kernel, text the compile error must contain).
const UNSUPPORTED: &[(&str, &str)] = &[];

/// (kernel, why its random-input comparison is not yet exact).
const KNOWN_WRONG: &[(&str, &str)] = &[];

const LEVELS: [OptLevel; 4] = [OptLevel::O0, OptLevel::O1, OptLevel::O2, OptLevel::O3];

fn compiler(level: OptLevel, name: &str) -> Compiler {
    Compiler::new(Options {
        opt_level: level,
        kernel_name: Some(name.to_string()),
        ..Options::default()
    })
}

#[test]
fn case_outputs_match_on_the_emulator_at_every_level() {
    let mut failures = Vec::new();
    let mut ran = 0;
    for case in load_cases(&mut failures) {
        let unsupported = UNSUPPORTED.iter().find(|(n, _)| *n == case.name);
        for level in LEVELS {
            let how = format!("{level:?} emulator");
            match compiler(level, &case.name).compile(case.source.as_bytes()) {
                Err(d) => {
                    let text = d.to_string();
                    match unsupported {
                        Some((_, why)) if text.contains(why) => {}
                        _ => failures
                            .push(format!("{} [{how}]: does not compile: {text}", case.name)),
                    }
                }
                Ok(_) if unsupported.is_some() => failures.push(format!(
                    "{} [{how}] compiles now: remove it from UNSUPPORTED",
                    case.name
                )),
                Ok(kernel) => match run_emulated(&kernel, &case.dispatch) {
                    Ok((out, report)) => {
                        ran += 1;
                        failures.extend(check_outputs(&case, &out, &how));
                        if let Some(h) = report.hazards.first() {
                            failures.push(format!("{} [{how}]: hazard {h}", case.name));
                        }
                    }
                    Err(e) => failures.push(format!("{} [{how}]: {e}", case.name)),
                },
            }
        }
    }
    assert!(ran >= 150, "only {ran} compiled cases ran");
    assert_no_failures(&failures, "failures");
}

#[test]
fn random_dispatches_match_the_interpreter_at_every_level() {
    let mut failures = Vec::new();
    let mut compared = 0;
    for il in corpus() {
        let name = il
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy()
            .to_string();
        if UNSUPPORTED.iter().any(|(n, _)| *n == name) {
            continue;
        }
        let source = std::fs::read(&il).expect("corpus file");
        let known = KNOWN_WRONG.iter().find(|(n, _)| *n == name);
        for (i, level) in LEVELS.into_iter().enumerate() {
            let opts = VerifyOptions {
                dispatches: 2,
                seed: name
                    .bytes()
                    .fold(i as u64, |h, b| h.wrapping_mul(31) ^ b as u64),
                ..VerifyOptions::default()
            };
            match verify(&compiler(level, &name), &source, &opts) {
                Ok(r) => {
                    compared += r.compared;
                    if !r.hazards.is_empty() {
                        failures.push(format!("{name} [{level:?}]: hazards\n{r}"));
                    } else if r.mismatch_count != 0 {
                        match known {
                            Some((_, why)) => eprintln!(
                                "KNOWN WRONG {name} [{level:?}]: {} mismatches ({why})",
                                r.mismatch_count
                            ),
                            None => failures.push(format!("{name} [{level:?}]:\n{r}")),
                        }
                    }
                }
                Err(e) => failures.push(format!("{name} [{level:?}]: {e}")),
            }
        }
    }
    assert!(compared >= 300, "only {compared} dispatches compared");
    assert_no_failures(&failures, "failures");
}
