//! Encode and decode throughput over a realistic instruction mix: every word of the ptxas
//! corpus (`tests/cuda/cubins`), decoded and re-encoded. Target: >= 100M instructions/s.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use isa_spa5::{decode, encode, Inst};

fn corpus_words() -> Vec<u64> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/cuda/cubins");
    let mut words = Vec::new();
    for e in std::fs::read_dir(dir).expect("corpus directory") {
        let path = e.expect("entry").path();
        if path.extension().is_none_or(|x| x != "cubin") {
            continue;
        }
        let cubin =
            isa_spa5::cubin::read_cubin(&std::fs::read(&path).expect("read")).expect("cubin");
        for k in &cubin.kernels {
            for (i, w) in k.code.iter().enumerate() {
                // Skip control words (every fourth word).
                if i % 4 != 0 && decode(*w).is_ok() {
                    words.push(*w);
                }
            }
        }
    }
    words
}

fn codec(c: &mut Criterion) {
    let words = corpus_words();
    let insts: Vec<Inst> = words
        .iter()
        .map(|w| decode(*w).expect("filtered above"))
        .collect();
    // The same words grouped by row: what decoding costs once the branch predictor knows the
    // row, i.e. the gap to `decode` is the price of an unpredictable instruction mix.
    let mut sorted = words.clone();
    sorted.sort_by_key(|w| decode(*w).map(|i| i.op.0).unwrap_or(0));
    let mut g = c.benchmark_group("codec");
    g.throughput(Throughput::Elements(words.len() as u64));
    g.bench_function("decode_sorted", |b| {
        b.iter(|| {
            let mut acc = 0u64;
            for w in &sorted {
                if let Ok(i) = decode(std::hint::black_box(*w)) {
                    acc = acc.wrapping_add(i.op.0 as u64);
                }
            }
            acc
        })
    });
    g.throughput(Throughput::Elements(words.len() as u64));
    g.bench_function("decode", |b| {
        b.iter(|| {
            let mut acc = 0u64;
            for w in &words {
                if let Ok(i) = decode(std::hint::black_box(*w)) {
                    acc = acc.wrapping_add(i.op.0 as u64);
                }
            }
            acc
        })
    });
    g.bench_function("encode", |b| {
        b.iter(|| {
            let mut acc = 0u64;
            for i in &insts {
                acc ^= encode(std::hint::black_box(i)).unwrap_or(0);
            }
            acc
        })
    });
    g.finish();
}

criterion_group!(benches, codec);
criterion_main!(benches);
