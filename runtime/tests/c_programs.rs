//! CAL programs in C, written in the style of the ATI Stream SDK samples, compiled with the
//! system C compiler against `include/cal.h` and the static library, and run on the emulator
//! device: each prints one `NAME: ok ...` line and exits 0, or explains what went wrong.
//!
//! The static library is a build artifact (`cargo build -p ilc-calrt`, done by
//! `tools/test.sh` before the tests); where it or `cc` is missing the tests print a loud
//! SKIPPED, except under `CI=true`, where that is a failure.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

/// Compiles `tests/c/NAME.c`; `None` (after a SKIPPED) when the library or `cc` is missing.
fn build(name: &str) -> Option<PathBuf> {
    let source = root().join("tests/c").join(format!("{name}.c"));
    ilc_test_support::build_c(
        &source,
        &root().join("include"),
        "libaticalrt.a",
        "ilc-calrt",
    )
}

fn run(name: &str, env: &[(&str, &str)]) -> Option<Output> {
    let exe = build(name)?;
    let mut cmd = Command::new(&exe);
    cmd.env_remove("ILC_CAL_DEVICE");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("the program runs");
    let _ = std::fs::remove_file(&exe);
    Some(out)
}

fn run_ok(name: &str) {
    let Some(out) = run(name, &[]) else { return };
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{name} failed:\n{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains(&format!("{name}: ok")), "{stdout}");
}

#[test]
fn hello_ps_samples_a_texture_into_an_output() {
    run_ok("hello_ps");
}

#[test]
fn compute_shaders_run_over_grids_and_domains() {
    run_ok("compute");
}

#[test]
fn matmul_of_two_textures_is_exact() {
    run_ok("matmul");
}

#[test]
fn errors_are_codes_with_messages() {
    run_ok("errors");
}

#[test]
fn the_emulator_is_device_zero() {
    let Some(out) = run("devices", &[]) else {
        return;
    };
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(stdout.contains("devices: 1\n"), "{stdout}");
    assert!(stdout.contains("device 0: target 8,"), "{stdout}");
}

/// With `ILC_CAL_DEVICE=cuda` the devices are the CUDA driver's Maxwell GPUs. Where there is
/// no driver or no such GPU, the runtime reports no devices and says why; the device tests
/// are then skipped with that reason (loudly: they did not run). The texture-object
/// descriptors are checked without a GPU by `device::cuda_texture`'s unit tests.
#[test]
fn cuda_device_runs_compute_kernels_or_reports_itself_absent() {
    let Some(out) = run("devices", &[("ILC_CAL_DEVICE", "cuda")]) else {
        return;
    };
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    if stdout.contains("devices: 0\n") {
        assert!(
            stdout.contains("open 0: 1: device ordinal 0 does not exist (0 devices: ")
                && (stdout.contains("CUDA") || stdout.contains("libcuda")),
            "{stdout}"
        );
        let why = stdout.lines().last().unwrap_or_default();
        eprintln!("SKIPPED: CUDA device tests: no CUDA device ({why})");
        return;
    }
    // Compute kernels over grids and domains; pixel shaders and a matrix multiply that
    // sample textures (texture objects over pitched texels).
    for name in ["compute", "hello_ps", "matmul"] {
        let Some(out) = run(name, &[("ILC_CAL_DEVICE", "cuda")]) else {
            return;
        };
        assert!(
            out.status.success(),
            "{name}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn an_unknown_device_class_is_reported() {
    let Some(out) = run("devices", &[("ILC_CAL_DEVICE", "quantum")]) else {
        return;
    };
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("devices: 0\n"), "{stdout}");
    assert!(stdout.contains("ILC_CAL_DEVICE=quantum"), "{stdout}");
}
