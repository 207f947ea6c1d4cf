//! The fuzz targets on a stable toolchain, deterministically: each target runs the committed
//! regression inputs (`fuzz/regressions/<target>/*`, inputs that once failed or that the
//! fuzzer found worth keeping),
//! its seeds from the project's files ([`ilc_fuzz_targets::seeds`]), and seeded mutations of
//! them (bit flips, byte changes, truncation, deletion, duplication and splicing, as libFuzzer
//! mutates). A failure names the target and the input; the failing bytes are written to
//! `$CARGO_TARGET_TMPDIR/fuzz-replay/<target>-<n>` for `cargo fuzz run <target> FILE`.
//!
//! `ILC_FUZZ_REPLAY=N` sets the number of mutations per target (default 200; the cheaper
//! targets run more, see [`budget`]).

use std::path::{Path, PathBuf};

use ilc_fuzz_targets::{seeds, Target, TARGETS};
use ilc_test_support::Rng;

/// Mutations per target for a base count `n`: the codec and reader targets are cheap.
fn budget(target: &str, n: usize) -> usize {
    match target {
        "spa5_codec" | "cubin_read" | "il_binary" => n * 5,
        "compile_verify" => n / 4,
        _ => n,
    }
}

fn committed(target: &str) -> Vec<Vec<u8>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fuzz/regressions")
        .join(target);
    let Ok(rd) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = rd.map(|e| e.expect("corpus entry").path()).collect();
    files.sort();
    files
        .iter()
        .map(|p| std::fs::read(p).expect("corpus file"))
        .collect()
}

/// One libFuzzer-like mutation of `input`, splicing from `other`.
fn mutate(rng: &mut Rng, input: &[u8], other: &[u8]) -> Vec<u8> {
    let mut m = input.to_vec();
    for _ in 0..1 + rng.index(4) {
        let n = m.len();
        match rng.index(7) {
            0 if n > 0 => {
                let i = rng.index(n);
                m[i] ^= 1 << rng.index(8);
            }
            1 if n > 0 => {
                let i = rng.index(n);
                let any = rng.next_u64() as u8;
                m[i] = rng.pick(&[0, 1, 0x7f, 0x80, 0xff, any]);
            }
            2 if n > 0 => m.truncate(rng.index(n)),
            3 if n > 0 => {
                let i = rng.index(n);
                let len = 1 + rng.index((n - i).min(16));
                m.drain(i..i + len);
            }
            4 if n > 0 => {
                let i = rng.index(n);
                let len = 1 + rng.index((n - i).min(16));
                let piece: Vec<u8> = m[i..i + len].to_vec();
                let at = rng.index(n + 1);
                m.splice(at..at, piece);
            }
            5 if !other.is_empty() => {
                let i = rng.index(other.len());
                let len = 1 + rng.index((other.len() - i).min(64));
                let at = rng.index(n + 1);
                m.splice(at..at, other[i..i + len].iter().copied());
            }
            _ => {
                let at = rng.index(n + 1);
                m.insert(at, rng.next_u64() as u8);
            }
        }
    }
    m
}

fn run_one(name: &str, target: Target, input: &[u8], k: usize) {
    if std::panic::catch_unwind(|| target(input)).is_err() {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("fuzz-replay");
        let _ = std::fs::create_dir_all(&dir);
        let file = dir.join(format!("{name}-{k}"));
        let _ = std::fs::write(&file, input);
        panic!(
            "fuzz target {name} failed on input {k} (saved to {}; replay with \
             `cargo fuzz run {name} {}`)",
            file.display(),
            file.display()
        );
    }
}

fn replay(name: &str) {
    let target = TARGETS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|&(_, t)| t)
        .expect("a target of that name");
    let n: usize = std::env::var("ILC_FUZZ_REPLAY")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    let mut inputs = committed(name);
    let base = seeds(name);
    assert!(base.len() >= 8, "{name}: only {} seeds", base.len());
    inputs.extend(base.iter().cloned());
    // Seeds are large (whole kernels): mutate a sample so the run stays short.
    let mut rng = Rng::new(
        name.bytes()
            .fold(0u64, |h, b| h.wrapping_mul(31) + u64::from(b)),
    );
    for _ in 0..budget(name, n) {
        let a = &base[rng.index(base.len())];
        let b = &base[rng.index(base.len())];
        inputs.push(mutate(&mut rng, a, b));
    }
    for (k, input) in inputs.iter().enumerate() {
        run_one(name, target, input, k);
    }
    eprintln!("{name}: {} inputs", inputs.len());
}

#[test]
fn il_text() {
    replay("il_text");
}

#[test]
fn il_binary() {
    replay("il_binary");
}

#[test]
fn spa5_codec() {
    replay("spa5_codec");
}

#[test]
fn cubin_read() {
    replay("cubin_read");
}

#[test]
fn regalloc() {
    replay("regalloc");
}

#[test]
fn compile_verify() {
    replay("compile_verify");
}

#[test]
fn every_target_is_replayed_here() {
    let src = include_str!("replay.rs");
    for (name, _) in TARGETS {
        assert!(
            src.contains(&format!("replay(\"{name}\")")),
            "{name} has no replay test"
        );
    }
}

/// The choice-stream seeds must give real programs, not the empty kernel that all-zero
/// choices give (else the replay of `compile_verify` and `regalloc` tests next to nothing).
#[test]
fn choice_stream_seeds_give_real_programs() {
    let lines = seeds("compile_verify")
        .iter()
        .map(|s| {
            ilc_tools::ilgen::generate_from_bytes(s, 40, true)
                .lines()
                .count()
        })
        .max()
        .unwrap_or(0);
    assert!(lines >= 60, "the largest seeded kernel has {lines} lines");
    let cfg = ilc_passes::regalloc::testgen::GenConfig::default();
    let insts = seeds("regalloc")
        .iter()
        .map(|s| {
            let f = ilc_passes::regalloc::testgen::generate_from_bytes(s, &cfg);
            f.layout
                .blocks()
                .flat_map(|b| f.layout.block_insts(b))
                .count()
        })
        .max()
        .unwrap_or(0);
    assert!(
        insts >= 20,
        "the largest seeded function has {insts} instructions"
    );
}
