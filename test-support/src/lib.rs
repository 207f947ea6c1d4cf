//! What the tests and the random-program generators of the workspace share, so that each is
//! written once:
//! - [`Rng`]: the one pseudo-random generator (xorshift64*), seeded, or drawing from the bytes
//!   a coverage-guided fuzzer mutates ([`Rng::from_bytes`]);
//! - [`nvidia_tool`]: the lookup of NVIDIA's oracle tools (nvdisasm, cuobjdump, ptxas);
//! - [`corpus`]: the files of a test corpus, refusing a corpus smaller than the test expects
//!   (a missing or emptied folder must fail the test, not make it pass vacuously);
//! - [`assert_no_failures`]: the report of a test that checks many cases;
//! - [`hostile_il`]: IL sources that are expensive for their size, for the hostile-input
//!   tests of the Rust and the C interfaces;
//! - [`build_c`]: a C program built with the system compiler against one of the workspace's
//!   static libraries, and [`skip_or_fail`], the rule for a missing tool or artifact.

use std::path::{Path, PathBuf};

/// A deterministic pseudo-random source: xorshift64* from a seed, or the bytes of a fuzzer
/// input (eight at a time, zero once they run out, so every byte string is a valid, finite
/// sequence of choices and a mutated byte changes the choice it feeds).
#[derive(Clone, Debug)]
pub struct Rng {
    state: u64,
    bytes: Option<(Vec<u8>, usize)>,
}

impl Rng {
    /// A generator from `seed` (any value, 0 included).
    pub fn new(seed: u64) -> Self {
        Rng {
            state: seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1,
            bytes: None,
        }
    }

    /// A generator whose choices are read from `data`.
    pub fn from_bytes(data: &[u8]) -> Self {
        Rng {
            state: 0,
            bytes: Some((data.to_vec(), 0)),
        }
    }

    /// The next 64 bits.
    pub fn next_u64(&mut self) -> u64 {
        if let Some((data, pos)) = &mut self.bytes {
            let mut w = [0u8; 8];
            let take = data.len().saturating_sub(*pos).min(8);
            w[..take].copy_from_slice(&data[*pos..*pos + take]);
            *pos += take;
            return u64::from_le_bytes(w);
        }
        let mut x = self.state;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.state = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }

    /// Uniform in `0..n` as a `usize` (0 when `n` is 0).
    pub fn index(&mut self, n: usize) -> usize {
        self.below(n as u64) as usize
    }

    /// True once in `one_in` draws.
    pub fn chance(&mut self, one_in: u64) -> bool {
        self.below(one_in) == 0
    }

    /// The low `len` bits of a draw (all 64 for `len >= 64`).
    pub fn bits(&mut self, len: u32) -> u64 {
        let x = self.next_u64();
        if len >= 64 {
            x
        } else {
            x & ((1u64 << len) - 1)
        }
    }

    /// An element of `items` (which must not be empty).
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.index(items.len())]
    }

    /// `len` random bytes (the low byte of a draw each).
    pub fn bytes(&mut self, len: usize) -> Vec<u8> {
        (0..len).map(|_| self.next_u64() as u8).collect()
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// An NVIDIA tool by name: `$ILC_NVIDIA_BIN`, then `~/.cache/nvidia-sm5-tools/usr/bin`, then
/// `PATH`. When it is missing: a panic under `CI=true` (CI installs the tools, so a missing
/// one is a broken setup), otherwise `None` after a loud `SKIPPED` line on stderr.
pub fn nvidia_tool(name: &str) -> Option<PathBuf> {
    let mut dirs = Vec::new();
    if let Some(d) = std::env::var_os("ILC_NVIDIA_BIN") {
        dirs.push(PathBuf::from(d));
    }
    if let Some(h) = std::env::var_os("HOME") {
        dirs.push(PathBuf::from(h).join(".cache/nvidia-sm5-tools/usr/bin"));
    }
    if let Some(p) = std::env::var_os("PATH") {
        dirs.extend(std::env::split_paths(&p));
    }
    if let Some(found) = dirs.into_iter().map(|d| d.join(name)).find(|p| p.is_file()) {
        return Some(found);
    }
    skip_or_fail(&format!(
        "{name} not found (set ILC_NVIDIA_BIN or run tools/install-nvidia-tools.sh)"
    ));
    None
}

/// What a test does when a tool or build artifact it needs is missing: a panic under
/// `CI=true` (CI provides everything, so a missing piece is a broken setup), otherwise a loud
/// `SKIPPED` line on stderr.
pub fn skip_or_fail(why: &str) {
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "{why} (required under CI=true)"
    );
    eprintln!("SKIPPED: {why}");
}

/// The static library `file` (`libNAME.a`) of this build, debug or release, under
/// `$CARGO_TARGET_DIR` or the workspace's `target/`, if it was built.
pub fn static_lib(file: &str) -> Option<PathBuf> {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("target"));
    ["debug", "release"]
        .iter()
        .map(|p| target.join(p).join(file))
        .find(|p| p.exists())
}

/// Compiles the C program `source` with the system `cc` (C99, `-O1`, warnings are errors)
/// against the static library `lib` (a file name for [`static_lib`]) with `include` on the
/// header path, to a fresh executable in the temporary folder (one per call: tests run in
/// parallel and may build the same program). `None`, after [`skip_or_fail`], when the library
/// (built by `cargo build -p {package}`) or `cc` is missing; a panic with the compiler's
/// messages when the program does not compile.
pub fn build_c(source: &Path, include: &Path, lib: &str, package: &str) -> Option<PathBuf> {
    let Some(lib_path) = static_lib(lib) else {
        skip_or_fail(&format!("{lib} not built (run `cargo build -p {package}`)"));
        return None;
    };
    if std::process::Command::new("cc")
        .arg("--version")
        .output()
        .is_err()
    {
        skip_or_fail("no C compiler `cc`");
        return None;
    }
    static BUILDS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = BUILDS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let out =
        std::env::temp_dir().join(format!("ilc-c-{}-{}-{n}", stem(source), std::process::id()));
    let cc = std::process::Command::new("cc")
        .args(["-std=c99", "-O1", "-Wall", "-Wextra", "-Werror", "-I"])
        .arg(include)
        .arg(source)
        .arg(&lib_path)
        .args(["-lpthread", "-ldl", "-lm", "-o"])
        .arg(&out)
        .output()
        .expect("cc runs");
    assert!(
        cc.status.success(),
        "cc {} failed:\n{}",
        source.display(),
        String::from_utf8_lossy(&cc.stderr)
    );
    Some(out)
}

/// Fails the test, showing the process's stderr, unless it exited with status 0.
#[track_caller]
pub fn assert_success(out: &std::process::Output) {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Panics with the number of failures, `what` they are (with how to reproduce one, where
/// that helps) and one failure a line, unless `failures` is empty: a test that checks many
/// cases reports all that fail, not only the first.
pub fn assert_no_failures(failures: &[String], what: &str) {
    assert!(
        failures.is_empty(),
        "{} {what}:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// IL sources that cost a compiler much for their size: the hostile inputs that the Rust
/// interface's and the C interface's tests both feed to the compiler.
pub mod hostile_il {
    /// `depth` nested `if_logicalnz` blocks.
    pub fn deep_nesting(depth: usize) -> String {
        format!(
            "il_cs_2_0\ndcl_num_thread_per_group 1\n{}{}end\n",
            "if_logicalnz r0.x\n".repeat(depth),
            "endif\n".repeat(depth)
        )
    }

    /// `n` straight-line `iadd`s.
    pub fn many_instructions(n: usize) -> String {
        format!(
            "il_cs_2_0\ndcl_num_thread_per_group 1\n{}end\n",
            "iadd r0.x, r0.x, r0.x\n".repeat(n)
        )
    }

    /// A 40 KiB source that inlines to about 200k instructions (130 calls of a function of
    /// 1,500): seconds of work for the passes.
    pub fn inlining_blowup() -> String {
        let body =
            "iadd r0.x, r0.x, r1.x\nixor r1.x, r1.x, r0.y\nimul r0.y, r0.y, r1.x\n".repeat(500);
        format!(
            "il_cs_2_0\ndcl_num_thread_per_group 64\ndcl_raw_uav_id(0)\n\
             uav_raw_load_id(0) r0, vAbsTidFlat.x\n{}\
             uav_raw_store_id(0) mem, vAbsTidFlat.x, r0\nendmain\nfunc 1\n{body}ret\nend\n",
            "call 1\n".repeat(130)
        )
    }
}

/// The workspace root (the folder of the top-level Cargo.toml).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The files ending in `.{ext}` directly in `dir` (relative to the workspace root unless
/// absolute), sorted by name. Panics when the folder cannot be read or holds fewer than
/// `min` such files: a test reading a corpus must not pass because the corpus is gone.
pub fn corpus(dir: impl AsRef<Path>, ext: &str, min: usize) -> Vec<PathBuf> {
    let dir = workspace_root().join(dir.as_ref());
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("corpus {}: {e}", dir.display()))
        .map(|e| {
            e.unwrap_or_else(|e| panic!("corpus {}: {e}", dir.display()))
                .path()
        })
        .filter(|p| p.extension().is_some_and(|x| x == ext))
        .collect();
    files.sort();
    assert!(
        files.len() >= min,
        "corpus {}: {} .{ext} files, the test expects at least {min}",
        dir.display(),
        files.len()
    );
    files
}

/// `(file stem, contents)` of each file of [`corpus`]`(dir, ext, min)`, sorted by name.
pub fn corpus_bytes(dir: impl AsRef<Path>, ext: &str, min: usize) -> Vec<(String, Vec<u8>)> {
    corpus(dir, ext, min)
        .into_iter()
        .map(|p| {
            let bytes = std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            (stem(&p), bytes)
        })
        .collect()
}

/// The file name of `path` without its extension.
pub fn stem(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeded_sequences_are_deterministic_and_differ_by_seed() {
        let a: Vec<u64> = (0..4).map(|_| Rng::new(1).next_u64()).collect();
        assert!(a.windows(2).all(|w| w[0] == w[1]));
        let mut r1 = Rng::new(1);
        let mut r2 = Rng::new(2);
        assert_ne!(r1.next_u64(), r2.next_u64());
        // Seed 0 does not get stuck at 0 (xorshift's fixed point).
        let mut r0 = Rng::new(0);
        assert!((0..4).any(|_| r0.next_u64() != 0));
    }

    #[test]
    fn byte_driven_choices_follow_the_bytes_then_zero() {
        let mut r = Rng::from_bytes(&[5, 0, 0, 0, 0, 0, 0, 0, 7]);
        assert_eq!(r.below(10), 5);
        assert_eq!(r.next_u64(), 7);
        assert_eq!(r.next_u64(), 0);
        assert!(r.chance(3));
    }

    #[test]
    fn helpers_stay_in_range() {
        let mut r = Rng::new(9);
        for _ in 0..1000 {
            assert!(r.below(7) < 7);
            assert!(r.bits(5) < 32);
            let u = r.unit();
            assert!((0.0..1.0).contains(&u));
        }
        assert_eq!(r.below(0), 0);
        assert_eq!(r.pick(&[3]), 3);
    }

    #[test]
    fn a_short_corpus_is_refused() {
        let got = std::panic::catch_unwind(|| corpus("tests/kernels", "il", usize::MAX));
        assert!(got.is_err());
        let missing = std::panic::catch_unwind(|| corpus("no/such/folder", "il", 0));
        assert!(missing.is_err());
        assert!(!corpus("tests/kernels", "il", 1).is_empty());
    }
}
