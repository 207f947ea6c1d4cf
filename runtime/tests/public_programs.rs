//! Public CAL host programs, built unmodified against `include/` and the static library and
//! run on the emulator device, with what they print checked.
//!
//! The programs are the examples and regression programs of CAL++, a C++ wrapper for CAL by
//! Artur Kornacki (GPL-3.0-or-later), from <https://github.com/lsellens/calpp> at commit
//! [`CALPP_COMMIT`]. Their source is not part of this repository: the test builds them from a
//! checkout of that commit found at `$ILC_CALPP_DIR`, or at `tests/public/calpp` below this
//! crate if the project vendors it there (then, like every other build input, it is required
//! under `CI=true`). Without either the tests print SKIPPED with the reason.
//!
//! CAL++ programs build their AMD IL at run time with a C++ DSL, include `<cal/cal.h>` and
//! use header-only Boost (`boost/format.hpp`, `boost/cstdint.hpp`): a missing `g++` or Boost
//! is a failure when the sources are there under `CI=true`.
//!
//! Each check reads the program's printed results (see the README's program list): every
//! element of every printed buffer, not a sample.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The CAL++ commit the expected results are for.
pub const CALPP_COMMIT: &str = "e1c977710acccf62fc94457b586c5d97231a372b";

fn crate_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
}

/// The CAL++ source tree and whether it is required (vendored in the repository).
fn calpp_dir() -> Option<(PathBuf, bool)> {
    if let Some(d) = std::env::var_os("ILC_CALPP_DIR") {
        return Some((PathBuf::from(d), true));
    }
    let vendored = crate_root().join("tests/public/calpp");
    vendored
        .join("include/cal/cal.hpp")
        .exists()
        .then_some((vendored, in_ci()))
}

/// Fails under `required`, else prints SKIPPED with `why`.
fn skip_or_fail(required: bool, why: &str) {
    if required {
        panic!("{why}");
    }
    eprintln!("SKIPPED: {why}");
}

fn static_lib() -> Option<PathBuf> {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| crate_root().join("../target"));
    ["debug", "dev-opt", "release"]
        .iter()
        .map(|p| target.join(p).join("libaticalrt.a"))
        .find(|p| p.exists())
}

/// Builds CAL++'s `rel` (e.g. `examples/func.cpp`) and runs it with `args` on the emulator
/// device; `None` after a SKIPPED.
fn run(rel: &str, args: &[&str]) -> Option<String> {
    let Some((dir, required)) = calpp_dir() else {
        skip_or_fail(
            false,
            &format!(
                "public CAL++ programs: no source tree (set ILC_CALPP_DIR to a checkout of \
                 https://github.com/lsellens/calpp at {CALPP_COMMIT})"
            ),
        );
        return None;
    };
    let required = required || in_ci();
    let src = dir.join(rel);
    assert!(
        src.exists(),
        "{} is missing from the CAL++ tree",
        src.display()
    );
    let Some(lib) = static_lib() else {
        skip_or_fail(
            required,
            "libaticalrt.a not built (run `cargo build -p ilc-calrt`)",
        );
        return None;
    };
    if Command::new("g++").arg("--version").output().is_err() {
        skip_or_fail(required, "no C++ compiler `g++`");
        return None;
    }
    if !Path::new("/usr/include/boost/format.hpp").exists() && std::env::var_os("CPATH").is_none() {
        skip_or_fail(
            required,
            "no Boost headers (/usr/include/boost/format.hpp; Debian: libboost-dev)",
        );
        return None;
    }
    // CAL++ includes `<cal/cal.h>`: a directory whose `cal/` holds our headers, searched
    // before the copies CAL++ ships in its own `include/cal/`.
    let tag = format!("{}-{}", rel.replace(['/', '.'], "_"), std::process::id());
    let tmp = std::env::temp_dir().join(format!("ilc-calpp-{tag}"));
    let inc = tmp.join("cal");
    std::fs::create_dir_all(&inc).expect("temp dir");
    for h in ["cal.h", "calcl.h", "cal_ext.h"] {
        std::fs::copy(crate_root().join("include").join(h), inc.join(h)).expect("copy header");
    }
    let exe = tmp.join("prog");
    let gxx = Command::new("g++")
        .args(["-O1", "-w", "-I"])
        .arg(&tmp)
        .arg("-I")
        .arg(dir.join("include"))
        .arg(&src)
        .arg(&lib)
        .args(["-lpthread", "-ldl", "-lm", "-o"])
        .arg(&exe)
        .output()
        .expect("g++ runs");
    assert!(
        gxx.status.success(),
        "g++ {rel} failed:\n{}",
        String::from_utf8_lossy(&gxx.stderr)
    );
    let out = Command::new(&exe)
        .args(args)
        .env_remove("ILC_CAL_DEVICE")
        .env("ILC_CAL_LOG", "1")
        .output()
        .expect("the program runs");
    let _ = std::fs::remove_dir_all(&tmp);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{rel} exited with {}:\n{}\n{}",
        out.status,
        tail(&stdout),
        tail(&String::from_utf8_lossy(&out.stderr))
    );
    Some(stdout)
}

fn tail(s: &str) -> &str {
    let n = s.len().saturating_sub(3000);
    let n = (n..s.len())
        .find(|&i| s.is_char_boundary(i))
        .unwrap_or(s.len());
    &s[n..]
}

/// The tuples `(a,b,..)` printed after the line `RESULT name` (`RESULT` for `""`; up to the next `RESULT` line or
/// the end), each as its comma-separated fields.
fn section(out: &str, name: &str) -> Vec<Vec<String>> {
    let head = if name.is_empty() {
        "RESULT\n".to_string()
    } else {
        format!("RESULT {name}\n")
    };
    let start = out
        .find(&head)
        .unwrap_or_else(|| panic!("no `{head}` in:\n{}", tail(out)))
        + head.len();
    let body = &out[start..];
    let body = &body[..body.find("RESULT ").unwrap_or(body.len())];
    body.split(['(', ')'])
        .skip(1)
        .step_by(2)
        .map(|t| t.split(',').map(str::to_string).collect())
        .collect()
}

/// Checks that section `name` holds `count` tuples, tuple `i` being `expect(i)`.
fn check_tuples(out: &str, name: &str, count: u32, expect: impl Fn(u32) -> Vec<String>) {
    let got = section(out, name);
    assert_eq!(got.len(), count as usize, "RESULT {name}: element count");
    for (i, t) in got.iter().enumerate() {
        let want = expect(i as u32);
        assert_eq!(t, &want, "RESULT {name}: element {i}");
    }
}

fn strs<const N: usize>(v: [u32; N]) -> Vec<String> {
    v.iter().map(u32::to_string).collect()
}

/// `examples/func.cpp`: an `il_cs` kernel calling an IL function (`call`/`func`) writes
/// `float4(2 * gid)` to `g[]`, 8 groups of 128; checked: all 1024 float4.
#[test]
fn calpp_func() {
    let Some(out) = run("examples/func.cpp", &[]) else {
        return;
    };
    check_tuples(&out, "", 1024, |i| vec![(2 * i).to_string(); 4]);
}

/// `examples/uavatomics.cpp`: 16 groups of 128 threads add 1 to their group's counter, with a
/// raw `_atom_add` (A), a structured `atom_add` returning the old value (B) and a typed
/// `atom_inc` (C); checked: all 16 counters of each are 128.
#[test]
fn calpp_uavatomics() {
    let Some(out) = run("examples/uavatomics.cpp", &[]) else {
        return;
    };
    for name in ["A", "B", "C"] {
        let head = format!("RESULT {name}\n");
        let line = out[out.find(&head).expect("section") + head.len()..]
            .lines()
            .next()
            .unwrap_or_default();
        let v: Vec<&str> = line.split(',').filter(|s| !s.is_empty()).collect();
        assert_eq!(v, vec!["128"; 16], "RESULT {name}");
    }
}

/// `examples/uavwrite.cpp`: 1024 threads write their global id through a raw UAV (A), a
/// structured UAV of 16-byte records (B), typed 1-D UAVs of `UINT_1` (C) and `UINT_2` (C1)
/// resources, and typed 2-D UAVs of 128x8 `UINT_1` (D) and `FLOAT_4` (D1) resources;
/// checked: every element of the six buffers.
#[test]
fn calpp_uavwrite() {
    let Some(out) = run("examples/uavwrite.cpp", &[]) else {
        return;
    };
    check_tuples(&out, "A", 1024, |i| strs([i]));
    check_tuples(&out, "B", 1024, |i| strs([i, 0, 1, 2]));
    check_tuples(&out, "C", 1024, |i| strs([i]));
    check_tuples(&out, "C1", 1024, |i| strs([i, 0]));
    check_tuples(&out, "D", 1024, |i| strs([i]));
    check_tuples(&out, "D1", 1024, |i| strs([i, 0, 1, 2]));
}

/// `regression/uav.cpp`: a raw UAV (A) and a typed 2-D UAV of a 128x8 `UINT_4` resource (D),
/// addressed `(gid % 128, gid / 128)`; checked: every element of both.
#[test]
fn calpp_regression_uav() {
    let Some(out) = run("regression/uav.cpp", &[]) else {
        return;
    };
    check_tuples(&out, "A", 1024, |i| strs([i]));
    check_tuples(&out, "D", 1024, |i| strs([i, 0, 1, 2]));
}

/// `regression/rsqrt.cpp`: an `il_ps` kernel over a 256x64 domain samples a `UINT_4` texture
/// of double pairs, computes `rsqrt` in double precision (`native_rsqrt`, `ldexp`, two Newton
/// steps) and writes `o0`; the program prints each pair with `OK` when its halves agree.
/// Checked: all 16384 lines `OK`, and pair `k` is `1/sqrt(2k+1)` to the 3 printed decimals.
#[test]
fn calpp_regression_rsqrt() {
    let Some(out) = run("regression/rsqrt.cpp", &[]) else {
        return;
    };
    let lines: Vec<&str> = out.lines().filter(|l| l.starts_with('(')).collect();
    assert_eq!(lines.len(), 256 * 64, "{}", tail(&out));
    for (k, l) in lines.iter().enumerate() {
        let want = 1.0 / ((2 * k + 1) as f64).sqrt();
        let w = format!("{want:.3}");
        assert_eq!(*l, format!("({w},{w}) OK"), "pair {k}");
    }
}
