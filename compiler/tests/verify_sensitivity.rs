//! `--verify` on kernels whose outputs amplify the allowed errors of approximate operations
//! (cancellation after `div`, trigonometry of arguments outside [-pi, pi]): no false
//! mismatch, while miscompiles are still caught. A miscompile is simulated by compiling a
//! mutant of the kernel (one arithmetic opcode replaced) and comparing it with the
//! interpreter running the original ([`ilc::verify::verify_against`]).

use std::path::Path;

use ilc::verify::{verify, verify_against, VerifyOptions};
use ilc::Compiler;

fn kernel(name: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../bench/kernels/{name}.il"));
    std::fs::read_to_string(p).expect("bench kernel")
}

const KERNELS: [&str; 4] = ["transcend", "rodinia_srad", "parboil_mriq", "blackscholes"];

#[test]
fn ill_conditioned_outputs_are_not_mismatches() {
    let c = Compiler::default();
    for name in KERNELS {
        let r = verify(&c, kernel(name).as_bytes(), &VerifyOptions::default()).expect("runs");
        assert!(r.compared > 0, "{name}: {r}");
        assert_eq!(r.mismatch_count, 0, "{name}: {r}");
    }
}

/// One-opcode mutants: every arithmetic statement in turn with its opcode replaced.
fn mutants(text: &str) -> Vec<String> {
    const SWAPS: [(&str, &str); 17] = [
        ("sin ", "cos "),
        ("cos ", "sin "),
        ("exp ", "log "),
        ("log ", "exp "),
        ("mad_ieee ", "mul_ieee "),
        ("mul_ieee ", "add "),
        ("lt ", "ge "),
        ("ge ", "lt "),
        ("max ", "min "),
        ("min ", "max "),
        ("sqrt ", "rsq "),
        ("add ", "mul "),
        ("mul ", "add "),
        ("mad ", "mul "),
        ("sub ", "add "),
        ("iadd ", "isub "),
        ("div_zeroop(infinity) ", "mul "),
    ];
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        let t = l.trim_start();
        for (from, to) in SWAPS {
            if t.starts_with(from) {
                let mut m = lines.clone();
                let replaced = l.replacen(from, to, 1);
                m[i] = &replaced;
                out.push(m.join("\n"));
                break;
            }
        }
    }
    out
}

#[test]
fn mutants_are_caught() {
    let c = Compiler::default();
    let opts = VerifyOptions::default();
    let (mut total, mut caught) = (0, 0);
    for name in KERNELS {
        let text = kernel(name);
        for m in mutants(&text) {
            let Ok(r) = verify_against(&c, text.as_bytes(), m.as_bytes(), &opts) else {
                continue;
            };
            total += 1;
            if r.mismatch_count > 0 {
                caught += 1;
            } else {
                println!("{name}: mutant not caught ({r})");
            }
        }
    }
    println!("{caught}/{total} mutants caught");
    assert!(total >= 40, "only {total} mutants");
    assert_eq!(caught, total, "mutants not caught");
}
