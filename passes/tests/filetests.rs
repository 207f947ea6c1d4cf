//! Runs every filetest under the workspace's `tests/filetests/` directory (`*.ir` files)
//! with the subtests of `ilc-passes`. Files naming subtests of other crates are skipped
//! here (their crate's runner runs them). Set `ILC_FILETEST=substring` to run a subset.

use std::path::PathBuf;

use ilc_passes::filetest::{collect_files, run_file, Outcome};

#[test]
fn filetests() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/filetests");
    let filter = std::env::var("ILC_FILETEST").unwrap_or_default();
    let files = collect_files(&dir);
    assert!(
        !files.is_empty(),
        "no filetests found under {}",
        dir.display()
    );
    let mut failures = Vec::new();
    let (mut passed, mut skipped) = (0, 0);
    for f in files
        .iter()
        .filter(|f| f.to_string_lossy().contains(&filter))
    {
        match run_file(f, &[]) {
            Ok(Outcome::Passed(n)) => passed += n,
            Ok(Outcome::Skipped(why)) => {
                skipped += 1;
                eprintln!("skipped {}: {why}", f.display());
            }
            Err(e) => failures.push(e),
        }
    }
    eprintln!("filetests: {passed} function/subtest pairs passed, {skipped} files skipped");
    if !failures.is_empty() {
        panic!(
            "{} filetest(s) failed:\n\n{}",
            failures.len(),
            failures.join("\n\n")
        );
    }
}

/// The print filetest must exercise every opcode, so the fixed-point check covers them all.
#[test]
fn print_filetest_covers_every_opcode() {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/filetests/print/all_opcodes.ir");
    let text = std::fs::read_to_string(path).expect("all_opcodes.ir is part of the repository");
    let funcs = ilc_passes::ir::parse_functions(
        &text
            .lines()
            .filter(|l| !l.starts_with("test "))
            .collect::<Vec<_>>()
            .join("\n"),
    )
    .expect("all_opcodes.ir parses");
    let mut seen = std::collections::HashSet::new();
    for f in &funcs {
        for i in f.insts_in_layout() {
            seen.insert(f.dfg.opcode(i));
        }
    }
    for &op in ilc_passes::ir::Opcode::ALL {
        assert!(seen.contains(&op), "all_opcodes.ir lacks {op}");
    }
}
