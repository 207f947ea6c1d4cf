//! Embedding guarantees: byte-identical output across runs and threads (8 threads
//! compiling the whole IL corpus at once), and hostile input (random bytes, truncated
//! kernels, 100k-deep nesting, a million instructions) giving errors, never a crash or a
//! stack overflow, on a thread with a small stack.

use std::sync::Arc;

use ilc::{Compiler, Options};
use ilc_test_support::{corpus_bytes, hostile_il, Rng};

fn corpus() -> Vec<(String, Vec<u8>)> {
    corpus_bytes("tests/kernels", "il", 40)
}

/// The cubin, or the error text.
fn outcome(c: &Compiler, src: &[u8]) -> Result<Vec<u8>, String> {
    c.compile(src).map(|k| k.cubin).map_err(|d| d.to_string())
}

#[test]
fn eight_threads_produce_identical_cubins() {
    let kernels = Arc::new(corpus());
    assert!(kernels.len() >= 40);
    let c = Compiler::new(Options::default());
    let reference: Vec<_> = kernels.iter().map(|(_, s)| outcome(&c, s)).collect();
    let reference = Arc::new(reference);
    let handles: Vec<_> = (0..8)
        .map(|t| {
            let kernels = Arc::clone(&kernels);
            let reference = Arc::clone(&reference);
            std::thread::spawn(move || {
                let c = Compiler::new(Options::default());
                let n = kernels.len();
                let mut bad = Vec::new();
                for round in 0..1 {
                    for k in 0..n {
                        // Each thread walks the corpus from a different start.
                        let i = (k * (t + 1) + round * 7 + t) % n;
                        if outcome(&c, &kernels[i].1) != reference[i] {
                            bad.push(kernels[i].0.clone());
                        }
                    }
                }
                bad
            })
        })
        .collect();
    for h in handles {
        let bad = h.join().expect("no thread panics");
        assert!(bad.is_empty(), "different output from a thread: {bad:?}");
    }
}

/// Runs `f` on a thread with a 512 KiB stack (a driver's worker threads may be small).
fn small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(512 << 10)
        .spawn(f)
        .expect("spawn")
        .join()
        .expect("no panic, no stack overflow")
}

#[test]
fn hostile_inputs_are_errors() {
    small_stack(|| {
        let c = Compiler::new(Options::default());
        // Random bytes.
        let mut rng = Rng::new(0x1234_5678_9abc_def1);
        for len in 0..400usize {
            let bytes = rng.bytes(len * 7 % 2000);
            let e = c
                .compile(&bytes)
                .expect_err("random bytes are not a kernel");
            assert!(e.has_errors(), "{e}");
        }
        // Truncated kernels: every prefix of two corpus kernels. A prefix that ends between
        // statements may be a valid kernel (a missing `end` is a warning); any other is an
        // error with a source position (all of these are text).
        for (_, src) in corpus().iter().take(2) {
            for cut in (0..src.len()).step_by(7) {
                if let Err(e) = c.compile(&src[..cut]) {
                    let d = e.0.iter().find(|d| d.is_error()).expect("an error");
                    assert!(d.span.line > 0, "cut at {cut}: {e}");
                }
            }
            assert!(
                c.compile(&src[..0]).is_err(),
                "the empty prefix is an error"
            );
        }
        // 100k-deep nesting: rejected by the nesting limit.
        let deep = hostile_il::deep_nesting(100_000);
        let e = c.compile(deep.as_bytes()).expect_err("too deep");
        assert!(e.to_string().to_lowercase().contains("nest"), "{e}");
        // A million instructions: an error under an embedder's instruction limit (the
        // frontend counts before any pass runs).
        let big = hostile_il::many_instructions(1_000_000);
        let limited = Compiler::new(Options {
            limits: ilc::Limits {
                max_instructions: 100_000,
                ..ilc::Limits::default()
            },
            ..Options::default()
        });
        let e = limited.compile(big.as_bytes()).expect_err("too big");
        assert!(e.to_string().to_lowercase().contains("instructions"), "{e}");
    });
}
