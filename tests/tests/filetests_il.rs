//! IL-input filetests for the lowering: every `tests/filetests/lower/*.il` is parsed,
//! lowered (`ilc::lower`), optionally run through passes, verified, printed, and the IR
//! text is matched against the file's `; check:` / `; nextln:` / `; sameln:` / `; not:`
//! comments (the directives of `ilc_passes::filetest::check`).
//!
//! Header comments:
//! - `; passes: dce copy_prop ...` runs those passes after lowering (in order).
//! - `; error: TEXT` expects lowering to fail with a diagnostic containing TEXT (then the
//!   check directives are matched against the rendered diagnostics).
//!
//! Set `ILC_FILETEST_PRINT=1` to print each file's IR.

use std::path::{Path, PathBuf};

use ilc_passes::filetest::check::{parse_directives, run_checks};
use ilc_passes::ir::Function;

fn files() -> Vec<PathBuf> {
    ilc_test_support::corpus("tests/filetests/lower", "il", 8)
}

fn run_pass(name: &str, f: &mut Function) -> Result<(), String> {
    match name {
        "dce" => ilc_passes::dce::run(f),
        "copy_prop" => ilc_passes::copy_prop::run(f),
        "const_fold" => ilc_passes::const_fold::run(f),
        "simplify_cfg" => ilc_passes::simplify_cfg::run(f),
        other => return Err(format!("unknown pass `{other}`")),
    }
    Ok(())
}

fn header<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    text.lines().find_map(|l| {
        l.trim_start()
            .strip_prefix(';')
            .map(str::trim_start)
            .and_then(|c| c.strip_prefix(key))
            .map(str::trim)
    })
}

fn run_file(path: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let (prog, diags) = isa_amdil::parse(&text);
    let prog = prog.ok_or_else(|| format!("parse failed: {diags:?}"))?;
    let directives = parse_directives(&text, 1);
    let expect_error = header(&text, "error:");
    let output = match (ilc::lower::lower(&prog), expect_error) {
        (Ok(_), Some(e)) => return Err(format!("expected lowering to fail with `{e}`")),
        (Err(errs), Some(e)) => {
            let s = errs.to_string();
            if !s.contains(e) {
                return Err(format!("diagnostics lack `{e}`:\n{s}"));
            }
            s
        }
        (Err(errs), None) => return Err(format!("lowering failed:\n{errs}")),
        (Ok(mut func), None) => {
            ilc_passes::verifier::verify_function(&func)
                .map_err(|e| format!("verifier:\n{}", e.display_with(&func)))?;
            if let Some(list) = header(&text, "passes:") {
                for p in list.split_whitespace() {
                    run_pass(p, &mut func)?;
                    ilc_passes::verifier::verify_function(&func)
                        .map_err(|e| format!("verifier after {p}:\n{}", e.display_with(&func)))?;
                }
            }
            let mut s = String::new();
            ilc_passes::ir::write_function(&mut s, &func).map_err(|e| e.to_string())?;
            s
        }
    };
    if std::env::var_os("ILC_FILETEST_PRINT").is_some() {
        println!("==== {}\n{output}", path.display());
    }
    if directives.is_empty() && expect_error.is_none() {
        return Err("no check directives".into());
    }
    run_checks(&directives, &output)
}

#[test]
fn lower_filetests() {
    let files = files();
    assert!(!files.is_empty(), "no filetests in tests/filetests/lower");
    let mut failures = Vec::new();
    for f in &files {
        if let Err(e) = run_file(f) {
            failures.push(format!("{}: {e}", f.display()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
