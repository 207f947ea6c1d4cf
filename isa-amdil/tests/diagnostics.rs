//! Golden tests pinning the exact rendered diagnostics (errors and warnings) of the kernels in
//! `tests/diagnostics/*.il` against the `.stderr` files beside them. Set `AMDIL_BLESS=1` to
//! rewrite the expectations after an intended change, then review the diff.

use std::path::Path;

fn render(path: &Path) -> String {
    let src = std::fs::read_to_string(path).expect("readable kernel");
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("?");
    let (prog, mut diags) = isa_amdil::parse_lossy(&src);
    diags.extend(isa_amdil::validate(&prog));
    isa_amdil::diag::render_all(&diags, name, &src)
}

#[test]
fn rendered_diagnostics_match_golden_files() {
    let paths = ilc_test_support::corpus("isa-amdil/tests/diagnostics", "il", 8);
    let bless = std::env::var_os("AMDIL_BLESS").is_some();
    let mut failures = Vec::new();
    for p in paths {
        let got = render(&p);
        let golden = p.with_extension("stderr");
        if bless {
            std::fs::write(&golden, &got).expect("write golden file");
            continue;
        }
        let want = std::fs::read_to_string(&golden).unwrap_or_default();
        if got != want {
            failures.push(format!(
                "{}:\n--- expected ---\n{want}--- got ---\n{got}",
                p.display()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
