//! The C interface as C programs use it: `examples/c/compile.c` and `tests/c/api_test.c` are
//! compiled with the system C compiler against the static library and run; and the header
//! `include/ilc.h` agrees with the Rust definitions: the same functions with the same number
//! of parameters, the same constant values, the same struct members in the same order.
//!
//! The static library is a build artifact (`cargo build -p ilc-capi`, done by `tools/test.sh`
//! before the tests); where it or `cc` is missing the test prints a loud SKIPPED, except
//! under `CI=true`, where that is a failure.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    ilc_test_support::workspace_root()
}

/// Compiles a C file against the static library; `None` (after a SKIPPED) when the library
/// or `cc` is missing.
fn build_c(source: &Path) -> Option<PathBuf> {
    let include = root().join("compiler/capi/include");
    ilc_test_support::build_c(source, &include, "libilc_capi.a", "ilc-capi")
}

#[test]
fn c_example_compiles_a_kernel_and_prints_its_layout() {
    let Some(out) = build_c(&root().join("examples/c/compile.c")) else {
        return;
    };
    let run = Command::new(&out)
        .arg(root().join("tests/examples/saxpy.il"))
        .arg("saxpy")
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
    assert!(stdout.contains("kernel saxpy:"), "{stdout}");
    assert!(stdout.contains("registers"), "{stdout}");
    // A bad kernel is an error code with a message, not a crash.
    let bad = std::env::temp_dir().join(format!("ilc-c-bad-{}.il", std::process::id()));
    std::fs::write(&bad, "il_cs_2_0\nnot_an_opcode r0\nend\n").expect("write");
    let run = Command::new(&out).arg(&bad).output().expect("example runs");
    assert_eq!(run.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        stderr.contains("compile failed (2: compile error)"),
        "{stderr}"
    );
    // The log carries the rendered diagnostic: code, then the position under it.
    assert!(stderr.contains("error[E0010]: unknown opcode"), "{stderr}");
    assert!(
        stderr.contains(&format!("--> {}:2:1", bad.display())),
        "{stderr}"
    );
    let _ = std::fs::remove_file(&out);
    let _ = std::fs::remove_file(&bad);
}

#[test]
fn c_api_test_exercises_errors_warnings_and_versions() {
    let Some(out) = build_c(&root().join("compiler/capi/tests/c/api_test.c")) else {
        return;
    };
    let run = Command::new(&out).output().expect("api_test runs");
    assert!(
        run.status.success(),
        "{}{}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&run.stdout), "api_test: ok\n");
    let _ = std::fs::remove_file(&out);
}

/// `(name, parameter count)` of the functions declared in C text or Rust `extern "C"` text.
fn signatures(text: &str, rust: bool) -> Vec<(String, usize)> {
    let mut v = Vec::new();
    let marker = if rust { "extern \"C\" fn " } else { "" };
    let mut rest = text;
    while let Some(i) = rest.find("ilc_") {
        let before = &rest[..i];
        let after = &rest[i..];
        rest = &rest[i + 4..];
        if rust && !before.ends_with(marker) {
            continue;
        }
        if !rust {
            // A declaration: the identifier follows a type at the start of a line.
            let line_start = before.rfind('\n').map_or(0, |p| p + 1);
            let head = &before[line_start..];
            if head.trim_start().starts_with(['#', '/', '*']) || head.contains('(') {
                continue;
            }
        }
        let name_end = after
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(after.len());
        if !after[name_end..].starts_with('(') {
            continue;
        }
        let close = after.find(')').expect("closing parenthesis");
        let params = after[name_end + 1..close].trim();
        let n = if params.is_empty() || params == "void" {
            0
        } else {
            params.trim_end_matches(',').split(',').count()
        };
        v.push((after[..name_end].to_string(), n));
    }
    v.sort();
    v.dedup();
    v
}

/// The members of `struct NAME { ... }` as `(name, C type)`: Rust `pub x: u32,` lines or C
/// `uint32_t x;` lines.
fn members(text: &str, open: &str, rust: bool) -> Vec<(String, String)> {
    let start = text.find(open).expect("struct") + open.len();
    let mut body = text[start..start + text[start..].find('}').expect("struct end")].to_string();
    // Drop C block comments (they may span lines).
    while let Some(a) = body.find("/*") {
        let b = a + body[a..].find("*/").expect("comment end") + 2;
        body.replace_range(a..b, "");
    }
    body.lines()
        .map(|l| l.split("//").next().unwrap().trim())
        .filter(|l| !l.is_empty() && !l.starts_with('#') && !l.starts_with("///"))
        .map(|l| {
            if rust {
                let l = l.trim_start_matches("pub ").trim_end_matches(',');
                let (name, ty) = l.split_once(':').expect("member");
                let ty = match ty.trim() {
                    "u32" => "uint32_t".to_string(),
                    "u64" => "uint64_t".to_string(),
                    "i32" => "int32_t".to_string(),
                    // `*const IlcFooBar` is `const ilc_foo_bar *`.
                    other => match other.strip_prefix("*const Ilc") {
                        Some(t) => {
                            let mut c = String::from("const ilc");
                            for ch in t.chars() {
                                if ch.is_ascii_uppercase() {
                                    c.push('_');
                                }
                                c.push(ch.to_ascii_lowercase());
                            }
                            c + " *"
                        }
                        None => panic!("unmapped type {other}"),
                    },
                };
                (name.trim().to_string(), ty)
            } else {
                let l = l.trim_end_matches(';');
                let (ty, name) = l.rsplit_once(' ').expect("member");
                let stars = name.chars().take_while(|&c| c == '*').count();
                let ty = format!("{}{}", ty.trim(), if stars > 0 { " *" } else { "" });
                (name.trim_start_matches('*').trim().to_string(), ty)
            }
        })
        .collect()
}

#[test]
fn header_agrees_with_the_rust_definitions() {
    let src = std::fs::read_to_string(root().join("compiler/capi/src/lib.rs")).expect("lib.rs");
    let header =
        std::fs::read_to_string(root().join("compiler/capi/include/ilc.h")).expect("ilc.h");
    // Functions and their parameter counts.
    let exported = signatures(&src, true);
    let declared = signatures(&header, false);
    assert!(exported.len() >= 20, "{exported:?}");
    assert_eq!(exported, declared, "include/ilc.h is out of date");
    // Struct layouts.
    assert_eq!(
        members(&src, "pub struct IlcOptions {", true),
        members(&header, "typedef struct ilc_options {", false)
    );
    for (rust, c) in [
        ("IlcParam", "ilc_param"),
        ("IlcTextureFormat", "ilc_texture_format"),
        ("IlcSamplerState", "ilc_sampler_state"),
    ] {
        assert_eq!(
            members(&src, &format!("pub struct {rust} {{"), true),
            members(&header, &format!("typedef struct {c} {{"), false),
            "{c}"
        );
    }
    // Constants: every `#define ILC_*` number equals the Rust constant.
    let defines: Vec<(String, u64)> = header
        .lines()
        .filter_map(|l| {
            let mut w = l.strip_prefix("#define ")?.split_whitespace();
            let name = w.next()?;
            let value = w.next()?.trim_end_matches(['u', 'l']);
            let value = match value.strip_prefix("0x") {
                Some(hex) => u64::from_str_radix(hex, 16).ok()?,
                None => value.parse().ok()?,
            };
            Some((name.to_string(), value))
        })
        .collect();
    assert!(defines.len() > 20);
    let version: Vec<u64> = env!("CARGO_PKG_VERSION")
        .split('.')
        .map(|x| x.parse().unwrap())
        .collect();
    for (name, value) in &defines {
        let rust: u64 = match name.as_str() {
            "ILC_VERSION_MAJOR" => version[0],
            "ILC_VERSION_MINOR" => version[1],
            "ILC_VERSION_PATCH" => version[2],
            "ILC_VERSION_NUMBER" => u64::from(ilc_capi::ILC_VERSION_NUMBER),
            "ILC_ABI_VERSION" => u64::from(ilc_capi::ILC_ABI_VERSION),
            "ILC_OPTIONS_SIZE_V1" => ilc_capi::ILC_OPTIONS_SIZE_V1 as u64,
            "ILC_MAX_BUFFER_BYTES" => ilc_capi::ILC_MAX_BUFFER_BYTES,
            _ => {
                let decl = format!("pub const {name}: ");
                let at = src
                    .find(&decl)
                    .unwrap_or_else(|| panic!("{name} is not defined in lib.rs"));
                let rest = &src[at + decl.len()..];
                let value = rest[rest.find('=').unwrap() + 1..rest.find(';').unwrap()].trim();
                value
                    .parse()
                    .unwrap_or_else(|_| panic!("{name} = {value} is not a literal"))
            }
        };
        assert_eq!(*value, rust, "{name}");
    }
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
