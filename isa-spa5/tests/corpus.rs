//! CORPUS test: for every ptxas-compiled cubin in `tests/cuda/cubins`, run `nvdisasm -hex`,
//! then (1) print every instruction word with our decoder/printer and compare with
//! nvdisasm's text, line by line (modulo spacing; branch targets compared as addresses);
//! (2) reassemble nvdisasm's listing with our parser and encoder and compare with the words;
//! (3) check the listing's words equal the code the cubin reader extracts, and that the
//! kernels' code decodes as whole programs. Agreement figures are printed; every instruction
//! must agree except those listed in `KNOWN_GAPS` (forms the table does not model yet).

mod common;

use std::process::Command;

use common::norm;
use ilc_test_support::{assert_no_failures, corpus, nvidia_tool};
use isa_spa5::asm::{parse_listing, print_inst, PrintCtx};
use isa_spa5::decode;
use isa_spa5::program::control_of;

/// Mnemonics the table does not model (none at present; the list stays so that a future
/// corpus kernel exercising an unmodelled form is reported by name).
const KNOWN_GAPS: &[&str] = &[];

/// Replace `` `(.L_x_3) `` style targets by the label's address so both sides compare.
fn resolve_labels(text: &str, labels: &std::collections::HashMap<String, u64>) -> String {
    match text.find("`(") {
        Some(i) => {
            let end = text[i..].find(')').map(|e| i + e).unwrap_or(text.len());
            let name = &text[i + 2..end];
            match labels.get(name) {
                Some(a) => format!("{}0x{a:x}{}", &text[..i], &text[end + 1..]),
                None => text.to_string(),
            }
        }
        None => text.to_string(),
    }
}

#[test]
fn corpus_matches_nvdisasm() {
    let Some(tool) = nvidia_tool("nvdisasm") else {
        return;
    };
    let files = corpus("tests/cuda/cubins", "cubin", 60);
    let (mut total, mut text_ok, mut asm_ok, mut gaps) = (0usize, 0usize, 0usize, 0usize);
    let mut failures = Vec::new();
    for path in &files {
        let out = Command::new(&tool)
            .arg("-hex")
            .arg(path)
            .output()
            .expect("nvdisasm runs");
        assert!(
            out.status.success(),
            "nvdisasm failed on {}",
            path.display()
        );
        let listing = parse_listing(&String::from_utf8_lossy(&out.stdout));
        let bytes = std::fs::read(path).expect("cubin readable");
        let cubin = isa_spa5::cubin::read_cubin(&bytes).expect("cubin parses");
        for f in &listing.functions {
            if let Some(k) = cubin.kernel(&f.name) {
                assert_eq!(
                    k.code,
                    f.words,
                    "{}: {}: listing words differ from the cubin",
                    path.display(),
                    f.name
                );
            }
            let labels = &f.labels;
            let parsed = f.parse_all();
            for ((addr, text), (_, p)) in f.insts.iter().zip(parsed) {
                total += 1;
                if KNOWN_GAPS.iter().any(|g| {
                    text.split_whitespace()
                        .any(|t| t.split('.').next() == Some(g))
                }) {
                    gaps += 1;
                    continue;
                }
                let idx = (*addr / 8) as usize;
                let w = f.words[idx];
                let ctrl = control_of(&f.words, idx).expect("control word");
                match decode(w) {
                    Ok(i) => {
                        let ours = print_inst(
                            &i,
                            &PrintCtx {
                                addr: *addr,
                                reuse: ctrl.reuse,
                            },
                        );
                        if norm(&ours) == norm(&resolve_labels(text, labels)) {
                            text_ok += 1;
                        } else {
                            failures.push(format!(
                                "{}: {w:#018x}: ours `{ours}` nvdisasm `{text}`",
                                path.display()
                            ));
                        }
                    }
                    Err(e) => failures.push(format!("{}: {w:#018x} `{text}`: {e}", path.display())),
                }
                match p {
                    Ok(p) if isa_spa5::encode(&p.inst) == Ok(w) && p.reuse == ctrl.reuse => {
                        asm_ok += 1
                    }
                    Ok(p) => failures.push(format!(
                        "{}: `{text}` assembles to {:?}, not {w:#018x}",
                        path.display(),
                        isa_spa5::encode(&p.inst)
                    )),
                    Err(e) => failures.push(format!("{}: {e}", path.display())),
                }
            }
            // Whole-listing reassembly (control words included) where no gap is involved.
            if !f
                .insts
                .iter()
                .any(|(_, t)| KNOWN_GAPS.iter().any(|g| t.contains(g)))
            {
                assert_eq!(
                    f.assemble().as_ref(),
                    Ok(&f.words),
                    "{}: {}",
                    path.display(),
                    f.name
                );
                isa_spa5::decode_program(&f.words).unwrap_or_else(|e| panic!("{}: {e}", f.name));
            }
        }
    }
    let checked = total - gaps;
    println!(
        "corpus: {} cubins, {total} instructions ({gaps} in known gaps): text {text_ok}/{checked} ({:.2}%), reassembly {asm_ok}/{checked} ({:.2}%), {:.2}% of all",
        files.len(),
        100.0 * text_ok as f64 / checked.max(1) as f64,
        100.0 * asm_ok as f64 / checked.max(1) as f64,
        100.0 * text_ok.min(asm_ok) as f64 / total.max(1) as f64,
    );
    assert_no_failures(&failures, "disagreements");
}
