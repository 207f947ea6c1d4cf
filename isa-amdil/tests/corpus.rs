//! Round trips over every kernel in `tests/data/*.il`: each parses without errors, printing
//! is a fixed point (print -> parse gives the same AST, and printing that gives the same
//! text), and text -> binary -> text holds.

use std::path::{Path, PathBuf};

use isa_amdil::{parse, Program};

fn corpus() -> Vec<PathBuf> {
    ilc_test_support::corpus("isa-amdil/tests/data", "il", 8)
}

fn load(p: &Path) -> (String, Program) {
    let src = std::fs::read_to_string(p).expect("readable kernel");
    let (prog, diags) = parse(&src);
    let errs: Vec<String> = diags
        .iter()
        .filter(|d| d.is_error())
        .map(|d| d.render(&p.display().to_string(), &src))
        .collect();
    assert!(errs.is_empty(), "{}", errs.join(""));
    (src, prog.expect("no errors means a program"))
}

#[test]
fn every_kernel_parses_and_prints_to_a_fixed_point() {
    for p in corpus() {
        let (_, prog) = load(&p);
        assert!(!prog.statements.is_empty(), "{}", p.display());
        let text = prog.to_string();
        let (again, diags) = parse(&text);
        assert!(
            diags.iter().all(|d| !d.is_error()),
            "{}: {diags:?}\n{text}",
            p.display()
        );
        let again = again.expect("printed text parses");
        assert_eq!(
            again,
            prog,
            "{}: AST changed through print/parse\n{text}",
            p.display()
        );
        assert_eq!(
            again.to_string(),
            text,
            "{}: printing is not a fixed point",
            p.display()
        );
    }
}

#[test]
fn every_kernel_round_trips_through_binary_tokens() {
    for p in corpus() {
        let (_, prog) = load(&p);
        let words = isa_amdil::encode_binary(&prog)
            .unwrap_or_else(|e| panic!("{}: cannot encode: {e:?}", p.display()));
        let back = isa_amdil::decode_binary(&words)
            .unwrap_or_else(|e| panic!("{}: cannot decode own encoding: {e}", p.display()));
        let norm = isa_amdil::binary::normalize(&prog);
        assert_eq!(
            back.to_string(),
            norm.to_string(),
            "{}: text -> binary -> text differs",
            p.display()
        );
        assert_eq!(back, norm, "{}", p.display());
        // Decoding is a function of the words: re-encoding gives the same stream.
        assert_eq!(
            isa_amdil::encode_binary(&back).expect("re-encode"),
            words,
            "{}",
            p.display()
        );
    }
}

#[test]
fn every_kernel_validates_without_errors() {
    for p in corpus() {
        let (src, prog) = load(&p);
        let diags = isa_amdil::validate(&prog);
        let errs: Vec<String> = diags
            .iter()
            .filter(|d| d.is_error())
            .map(|d| d.render(&p.display().to_string(), &src))
            .collect();
        assert!(errs.is_empty(), "{}", errs.join(""));
    }
}
