//! Compile-time measurement for embedders: the median in-process compile time of a
//! few corpus kernels and the time of a compile-cache hit. Ignored by default (timing is only
//! meaningful in a release build on a quiet machine); run with
//! `cargo test --release -p ilc --test timing -- --ignored --nocapture`.
//! It asserts only what holds on any machine: a cache hit returns the same kernel and is
//! faster than compiling it.

use std::path::Path;
use std::time::{Duration, Instant};

use ilc::cache::CompileCache;
use ilc::{Compiler, Options};

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

#[test]
#[ignore]
fn compile_time_per_kernel_and_cache_hit() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/kernels");
    let c = Compiler::new(Options::default());
    for name in [
        "saxpy",
        "cal_matmul",
        "collatz",
        "atomic_histogram",
        "double_arith",
        "bitops",
    ] {
        let Ok(src) = std::fs::read(dir.join(format!("{name}.il"))) else {
            continue;
        };
        let mut times = Vec::new();
        for _ in 0..15 {
            let t = Instant::now();
            let r = c.compile(&src);
            times.push(t.elapsed());
            if r.is_err() {
                break;
            }
        }
        let cache = CompileCache::new(1 << 20);
        let first = cache.compile(&c, &src);
        let mut hits = Vec::new();
        for _ in 0..101 {
            let t = Instant::now();
            let again = cache.compile(&c, &src);
            hits.push(t.elapsed());
            if let (Ok(a), Ok(b)) = (&first, &again) {
                assert_eq!(a.cubin, b.cubin);
            }
        }
        let (m, h) = (median(times), median(hits));
        println!(
            "{name:>18}: {} bytes IL, compile median {:?}, cache hit median {:?}",
            src.len(),
            m,
            h
        );
        if first.is_ok() {
            assert!(
                h < m,
                "{name}: a cache hit ({h:?}) is not faster than compiling ({m:?})"
            );
        }
    }
}
