//! In-process compile time (compile speed for a JIT): IL text to a cubin at -O2.
//!
//! Kernels: `tests/examples/saxpy.il`, `bench/kernels/hash.il` and
//! generated kernels of about 1,000 and 10,000 IL instructions (the shape of
//! `tools/bench_report.py`'s scaling series: ALU chains over eight registers, a loop every
//! 1,000 instructions, raw UAV loads and stores). Two groups:
//!
//! - `warm`: one [`Compiler`] compiling the same kernel again and again (a JIT's steady state);
//! - `cold`: a new [`Compiler`] for every compile (what an embedder that builds a compiler per
//!   request pays). Costs only the first compile in a process pays (page faults on code and
//!   heap) cannot be repeated in a loop: `ilc-bench` reports that one as `first_us`.
//!
//! Targets: warm <= 50 us for saxpy, <= 100 us for ~35 instructions; 1M instructions <= 0.5 s.
//! Run with `cargo bench -p ilc --bench compile`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use ilc::{Compiler, OptLevel, Options};

/// An IL kernel of `n` statements, like `gen_kernel` in `tools/bench_report.py`.
fn gen_kernel(n: usize) -> String {
    let mut lines: Vec<String> = [
        "il_cs_2_0",
        "dcl_num_thread_per_group 64",
        "dcl_raw_uav_id(0)",
        "dcl_raw_uav_id(1)",
        "dcl_literal l0, 2, 1, 3, 0",
        "dcl_literal l1, 0x3f800000, 0x40000000, 7, 16",
        "ishl r0.x, vAbsTid.x, l0.x",
        "uav_raw_load_id(0) r1, r0.x",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let ops = [
        "iadd r{d}.x, r{a}.x, r{b}.y",
        "imul r{d}.y, r{a}.y, l0.z",
        "ixor r{d}.z, r{a}.z, r{b}.x",
        "add_ieee r{d}.w, r{a}.w, r{b}.w",
        "mad_ieee r{d}.w, r{a}.w, l1.y, r{b}.w",
        "ishl r{d}.x, r{a}.x, l0.y",
        "umin r{d}.y, r{a}.y, r{b}.z",
        "mul_ieee r{d}.z, r{a}.w, r{b}.w",
    ];
    // The statements around the body: seven after the version line, 17 at the end.
    let body = n.saturating_sub(24);
    let (mut count, mut k) = (0, 0);
    while count < body {
        if count % 1000 == 999 {
            for l in [
                "mov r20.x, l0.w",
                "whileloop",
                "ige r20.y, r20.x, l1.z",
                "break_logicalnz r20.y",
                "iadd r1.x, r1.x, r20.x",
                "iadd r20.x, r20.x, l0.y",
                "endloop",
            ] {
                lines.push(l.to_string());
            }
            count += 7;
            continue;
        }
        let (d, a, b) = (1 + k % 8, 1 + (k * 3 + 1) % 8, 1 + (k * 5 + 2) % 8);
        lines.push(
            ops[k % ops.len()]
                .replace("{d}", &d.to_string())
                .replace("{a}", &a.to_string())
                .replace("{b}", &b.to_string()),
        );
        k += 1;
        count += 1;
    }
    for r in 1..=8 {
        lines.push("iadd r0.y, r0.x, l1.w".to_string());
        lines.push(format!("uav_raw_store_id(1) mem, r0.x, r{r}"));
    }
    lines.push("end".to_string());
    lines.join("\n") + "\n"
}

/// IL instructions of `src`, counted like `ilc-bench` does: non-empty lines that are not
/// comments or declarations.
fn il_instructions(src: &str) -> u64 {
    src.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with(';') && !l.starts_with("dcl_"))
        .count() as u64
}

/// `(name, source, IL instructions)` of every benchmark kernel.
fn kernels() -> Vec<(String, String, u64)> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let read = |p: &str| std::fs::read_to_string(root.join(p)).expect("benchmark kernel");
    [
        ("saxpy", read("tests/examples/saxpy.il")),
        ("hash", read("bench/kernels/hash.il")),
        ("gen1k", gen_kernel(1_000)),
        ("gen10k", gen_kernel(10_000)),
    ]
    .into_iter()
    .map(|(n, src)| {
        let insts = il_instructions(&src);
        (n.to_string(), src, insts)
    })
    .collect()
}

fn options(name: &str) -> Options {
    Options {
        opt_level: OptLevel::O2,
        kernel_name: Some(name.to_string()),
        ..Options::default()
    }
}

fn compile(c: &mut Criterion) {
    let kernels = kernels();
    for (group, fresh) in [("warm", false), ("cold", true)] {
        let mut g = c.benchmark_group(group);
        for (name, src, insts) in &kernels {
            if *insts >= 5_000 {
                g.sample_size(10);
            }
            g.throughput(Throughput::Elements(*insts));
            let compiler = Compiler::new(options(name));
            // Every kernel compiles (a failure would make the benchmark time diagnostics).
            compiler
                .compile(src.as_bytes())
                .expect("benchmark kernel compiles");
            g.bench_with_input(
                BenchmarkId::from_parameter(name),
                src.as_bytes(),
                |b, src| {
                    if fresh {
                        b.iter(|| Compiler::new(options(name)).compile(src))
                    } else {
                        b.iter(|| compiler.compile(src))
                    }
                },
            );
        }
        g.finish();
    }
}

criterion_group!(benches, compile);
criterion_main!(benches);
