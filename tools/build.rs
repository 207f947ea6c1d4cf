//! Link flags for the command-line tools, which are started once per kernel (so process
//! start-up is part of every compile).
//!
//! On Linux with glibc, when the static C library is installed (Debian/Ubuntu `libc6-dev`
//! ships it; Fedora needs `glibc-static`), the tools link fully statically at a fixed
//! address: no dynamic loader, no shared-library relocations or symbol binding at start-up.
//! That takes about 0.45 ms off every `ilc` run (1.6-2.1 ms -> 1.2-1.6 ms on the benchmark
//! machine; see bench/report.md).
//!
//! Cargo's own switch (`-C target-feature=+crt-static`) only works with an explicit
//! `--target`, and rustc names std's libraries (`-lc -lm -lgcc_s ...`) after a
//! `-Wl,-Bdynamic` that flags given here cannot precede. So the binaries (only they: tests
//! and the C library `ilc-capi` link as usual) get `-static -no-pie` and a private search
//! directory in which each of those names is a one-line linker script (`GROUP(...)`)
//! naming the static archive: `libc.so` -> `libc.a`, `libgcc_s.so` -> `libgcc_eh.a` +
//! `libgcc.a`. GNU ld and lld both apply `-L` to every `-l` wherever it appears, search
//! the `-L` directories first and read a linker script given as a library.
//!
//! When any archive is missing the tools fall back to a dynamic link with `-no-pie` (no
//! dynamic relocations to apply: 7788 -> 85 for `ilc`) and `-z lazy` (library symbols bound
//! on first call). `ILC_DYNAMIC_TOOLS=1` forces the fallback. A broken static link would
//! not pass unnoticed: the integration tests run these binaries.
use std::path::{Path, PathBuf};
use std::process::Command;

/// The libraries rustc names for std on linux-gnu, with the static archives that stand in.
const STUBS: &[(&str, &[&str])] = &[
    ("c", &["libc.a", "libgcc.a", "libgcc_eh.a"]),
    ("m", &["libm.a"]),
    ("pthread", &["libpthread.a"]),
    ("dl", &["libdl.a"]),
    ("rt", &["librt.a"]),
    ("util", &["libutil.a"]),
    ("gcc_s", &["libgcc_eh.a", "libgcc.a"]),
];

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=ILC_DYNAMIC_TOOLS");
    println!("cargo:rerun-if-env-changed=CC");
    let var = |k: &str| std::env::var(k).unwrap_or_default();
    if var("CARGO_CFG_TARGET_OS") != "linux" || var("CARGO_CFG_TARGET_ENV") != "gnu" {
        return;
    }
    if var("CARGO_CFG_TARGET_FEATURE")
        .split(',')
        .any(|f| f == "crt-static")
    {
        // rustc links statically itself (`--target ... -C target-feature=+crt-static`).
        return;
    }
    if std::env::var_os("ILC_DYNAMIC_TOOLS").is_none() {
        let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
        let dir = out.join("static-link-stubs");
        if write_stubs(&dir).is_some() {
            println!("cargo:rustc-link-arg-bins=-static");
            println!("cargo:rustc-link-arg-bins=-no-pie");
            println!("cargo:rustc-link-arg-bins=-L{}", dir.display());
            return;
        }
    }
    println!("cargo:rustc-link-arg-bins=-no-pie");
    println!("cargo:rustc-link-arg-bins=-Wl,-z,lazy");
}

/// Writes `lib<name>.so` linker scripts into `dir`; `None` when an archive is missing.
fn write_stubs(dir: &Path) -> Option<()> {
    std::fs::create_dir_all(dir).ok()?;
    for (name, archives) in STUBS {
        let mut paths = Vec::new();
        for a in *archives {
            paths.push(find_archive(a)?);
        }
        let script = format!("GROUP ( {} )\n", paths.join(" "));
        std::fs::write(dir.join(format!("lib{name}.so")), script).ok()?;
    }
    Some(())
}

/// Where the C compiler driver that links the binaries finds `file`.
fn find_archive(file: &str) -> Option<String> {
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    let out = Command::new(cc)
        .arg(format!("-print-file-name={file}"))
        .output()
        .ok()?;
    let path = String::from_utf8_lossy(&out.stdout).trim().to_string();
    // The driver echoes the bare name back when it does not find the file.
    let found = out.status.success() && path.starts_with('/') && Path::new(&path).is_file();
    // Paths with spaces or parentheses would need quoting in the script: fall back instead.
    (found && !path.contains([' ', '(', ')', '"'])).then_some(path)
}
