//! Parse + validate throughput measured in on-CPU time (`/proc/thread-self/schedstat`), which
//! stays meaningful on a loaded machine where wall-clock benchmarks are not:
//! `cargo run --release --example throughput [FILE.il]` (default: the bench's kernel shape).

use std::time::Instant;

fn cpu_ns() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    s.split_whitespace().next()?.parse().ok()
}

fn main() {
    let src = match std::env::args().nth(1) {
        Some(p) => std::fs::read_to_string(&p).unwrap_or_else(|e| {
            eprintln!("{p}: {e}");
            std::process::exit(2)
        }),
        None => {
            let mut s = String::from("il_cs_2_0\ndcl_num_thread_per_group 64\ndcl_cb cb0[15]\ndcl_cb cb1[4]\ndcl_raw_uav_id(11)\ndcl_literal l0, 4, 1, 2, 3\ndcl_literal l1, 1.0, 0.5, 0x3f800000, 4294967295\nmov r0.x___, vAbsTidFlat0.x\n");
            for i in 0..2000 {
                let r = 10 + i % 900;
                s.push_str(&format!("ishl r{r}.x___, r0.xxxx, l0.zzzz\niadd r{r}.x___, cb1[0].xxxx, r{r}.xxxx\nuav_raw_load_id(11)_cached r1010.x___, r{r}.xxxx\nmad_ieee r1011.x___, r1010.xxxx, cb1[2].xxxx, l1.yyyy\nult r1012.x___, r1011.xxxx, cb1[3].xxxx ; compare\nif_logicalnz r1012.xxxx\n\tiadd r1013.xy__, r{r}.xyyy, cb0[r0.x+2].xyyy\n\tcmov_logical r1014, r1012.xxxx, r1011, r1010_neg(xyzw)\nelse\n\tmul r1014.x___, r1011.xxxx, l1.x000\nendif\nwhileloop\n\tiadd r1015.x___, r1015.xxxx, l0.yyyy\n\tige r1016.x___, r1015.xxxx, l0.wwww\n\tbreak_logicalnz r1016.xxxx\nendloop\nuav_raw_store_id(11) mem0.x___, r{r}.xxxx, r1014.xxxx\n"));
            }
            s.push_str("end\n");
            s
        }
    };
    let iters = 30;
    let (c0, t0) = (cpu_ns(), Instant::now());
    let mut n = 0;
    for _ in 0..iters {
        let (p, _) = isa_amdil::parse(std::hint::black_box(&src));
        n += p
            .map(|p| isa_amdil::validate(&p).len() + p.statements.len())
            .unwrap_or(0);
    }
    let wall = t0.elapsed().as_secs_f64();
    let mb = (src.len() * iters) as f64 / 1e6;
    print!(
        "{} bytes x {iters}: parse+validate {:.1} MB/s wall",
        src.len(),
        mb / wall
    );
    if let (Some(a), Some(b)) = (c0, cpu_ns()) {
        print!(", {:.1} MB/s on-CPU", mb / ((b - a) as f64 / 1e9));
    }
    println!(" ({n})");
}
