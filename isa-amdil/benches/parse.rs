//! Parse + validate throughput on a large generated kernel in the style of LLVM AMDIL output
//! (address arithmetic, UAV loads/stores, literals, control flow). Reports bytes/second.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};

/// A valid kernel of about `blocks` x 1 KB.
fn big_kernel(blocks: usize) -> String {
    let mut s = String::from(
        "il_cs_2_0\ndcl_num_thread_per_group 64, 1, 1\ndcl_cb cb0[15] ; ABI data\ndcl_cb cb1[4]\n\
         dcl_raw_uav_id(11)\ndcl_literal l0, 0x00000004, 0x00000001, 0x00000002, 0x00000003\n\
         dcl_literal l1, 1.0, 0.5, 0x3f800000, 4294967295\nmov r0.x___, vAbsTidFlat0.x\n",
    );
    for i in 0..blocks {
        let r = 10 + (i % 900);
        s.push_str(&format!(
            "ishl r{r}.x___, r0.xxxx, l0.zzzz\n\
             iadd r{r}.x___, cb1[0].xxxx, r{r}.xxxx\n\
             uav_raw_load_id(11)_cached r1010.x___, r{r}.xxxx\n\
             mad_ieee r1011.x___, r1010.xxxx, cb1[2].xxxx, l1.yyyy\n\
             ult r1012.x___, r1011.xxxx, cb1[3].xxxx ; compare\n\
             if_logicalnz r1012.xxxx\n\
             \tiadd r1013.xy__, r{r}.xyyy, cb0[r0.x+2].xyyy\n\
             \tcmov_logical r1014, r1012.xxxx, r1011, r1010_neg(xyzw)\n\
             else\n\
             \tmul r1014.x___, r1011.xxxx, l1.x000\n\
             endif\n\
             whileloop\n\
             \tiadd r1015.x___, r1015.xxxx, l0.yyyy\n\
             \tige r1016.x___, r1015.xxxx, l0.wwww\n\
             \tbreak_logicalnz r1016.xxxx\n\
             endloop\n\
             uav_raw_store_id(11) mem0.x___, r{r}.xxxx, r1014.xxxx\n"
        ));
    }
    s.push_str("ret_dyn\nend\n");
    s
}

fn bench(c: &mut Criterion) {
    let src = big_kernel(2000);
    // The benchmark is meaningless if the kernel does not parse and validate cleanly.
    let (prog, diags) = isa_amdil::parse(&src);
    assert!(diags.is_empty(), "{diags:?}");
    let prog = prog.expect("generated kernel parses");
    assert!(isa_amdil::validate(&prog).iter().all(|d| !d.is_error()));
    let mut g = c.benchmark_group("amdil");
    g.throughput(Throughput::Bytes(src.len() as u64));
    g.bench_function("parse", |b| {
        b.iter(|| isa_amdil::parse(std::hint::black_box(&src)))
    });
    g.bench_function("parse+validate", |b| {
        b.iter(|| {
            let (p, _) = isa_amdil::parse(std::hint::black_box(&src));
            p.map(|p| isa_amdil::validate(&p).len())
        })
    });
    let words = isa_amdil::encode_binary(&prog).expect("encodes");
    g.throughput(Throughput::Bytes((words.len() * 4) as u64));
    g.bench_function("decode_binary", |b| {
        b.iter(|| isa_amdil::decode_binary(std::hint::black_box(&words)))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
