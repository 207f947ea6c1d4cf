//! The C interface as C programs use it: `examples/c/compile.c` is compiled with the system C
//! compiler against the static library and run on the bundled example kernel; and the header
//! `include/ilc.h` declares exactly the functions the library exports.
//!
//! The static library is a build artifact (`cargo build -p ilc-capi`, done by `tools/test.sh`
//! before the tests); where it or `cc` is missing the test prints a loud SKIPPED, except
//! under `CI=true`, where that is a failure.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn skip_or_fail(why: &str) {
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("{why} (required in CI)");
    }
    eprintln!("SKIPPED: {why}");
}

fn static_lib() -> Option<PathBuf> {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target"));
    ["debug", "release"]
        .iter()
        .map(|p| target.join(p).join("libilc_capi.a"))
        .find(|p| p.exists())
}

#[test]
fn c_example_compiles_a_kernel_and_prints_its_layout() {
    let Some(lib) = static_lib() else {
        return skip_or_fail("libilc_capi.a not built (run `cargo build -p ilc-capi`)");
    };
    if Command::new("cc").arg("--version").output().is_err() {
        return skip_or_fail("no C compiler `cc`");
    }
    let out = std::env::temp_dir().join(format!("ilc-c-example-{}", std::process::id()));
    let cc = Command::new("cc")
        .arg("-std=c99")
        .arg("-Wall")
        .arg("-Werror")
        .arg("-I")
        .arg(root().join("compiler/capi/include"))
        .arg(root().join("examples/c/compile.c"))
        .arg(&lib)
        .args(["-lpthread", "-ldl", "-lm", "-o"])
        .arg(&out)
        .output()
        .expect("cc runs");
    assert!(
        cc.status.success(),
        "cc failed:\n{}",
        String::from_utf8_lossy(&cc.stderr)
    );
    let run = Command::new(&out)
        .arg(root().join("tests/examples/saxpy.il"))
        .output()
        .expect("example runs");
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(
        stdout.contains("param 0: offset 0 size 8 uav pointer"),
        "{stdout}"
    );
    assert!(stdout.contains("registers"), "{stdout}");
    // A bad kernel is an error code with a message, not a crash.
    let bad = std::env::temp_dir().join(format!("ilc-c-bad-{}.il", std::process::id()));
    std::fs::write(&bad, "il_cs_2_0\nnot_an_opcode r0\nend\n").expect("write");
    let run = Command::new(&out).arg(&bad).output().expect("example runs");
    assert_eq!(run.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&run.stderr).contains("compile failed (2)"));
    let _ = std::fs::remove_file(&out);
    let _ = std::fs::remove_file(&bad);
}

#[test]
fn header_declares_exactly_the_exported_functions() {
    let src = std::fs::read_to_string(root().join("compiler/capi/src/lib.rs")).expect("lib.rs");
    let header =
        std::fs::read_to_string(root().join("compiler/capi/include/ilc.h")).expect("ilc.h");
    let names = |text: &str, marker: &str| -> Vec<String> {
        let mut v: Vec<String> = text
            .match_indices(marker)
            .filter_map(|(i, _)| {
                let rest = &text[i + marker.len()..];
                let end = rest.find('(')?;
                let name = rest[..end].trim();
                name.starts_with("ilc_").then(|| name.to_string())
            })
            .collect();
        v.sort();
        v.dedup();
        v
    };
    let exported = names(&src, "extern \"C\" fn ");
    let mut declared: Vec<String> = header
        .lines()
        .filter(|l| {
            let t = l.trim_start();
            !t.starts_with('#') && !t.starts_with("/*") && !t.starts_with('*')
        })
        .filter_map(|l| {
            // The identifier right before the first `(`.
            let open = l.find('(')?;
            let head = &l[..open];
            let start = head
                .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .map_or(0, |i| i + 1);
            let name = &head[start..];
            name.starts_with("ilc_").then(|| name.to_string())
        })
        .collect();
    declared.sort();
    declared.dedup();
    assert!(exported.len() >= 14, "{exported:?}");
    assert_eq!(exported, declared, "include/ilc.h is out of date");
}

#[test]
fn header_states_the_buffer_limit_of_the_launch_abi() {
    let header =
        std::fs::read_to_string(root().join("compiler/capi/include/ilc.h")).expect("ilc.h");
    let value = header
        .lines()
        .find_map(|l| l.strip_prefix("#define ILC_MAX_BUFFER_BYTES "))
        .expect("ILC_MAX_BUFFER_BYTES is defined");
    let hex = value
        .trim()
        .trim_end_matches("ull")
        .trim_start_matches("0x");
    assert_eq!(
        u64::from_str_radix(hex, 16).expect("a hex literal"),
        ilc_capi::ILC_MAX_BUFFER_BYTES
    );
}
