//! Development aid: time decode/encode of one word in a tight loop.
fn main() {
    let w = 0x4c98078000870001u64;
    let _ = w;
    let t = std::time::Instant::now();
    let mut acc = 0u64;
    for k in 0..10_000_000u64 {
        let i = isa_spa5::decode(std::hint::black_box(w | (k & 0x7 << 13) & 0)).unwrap();
        acc = acc.wrapping_add(i.op.0 as u64);
    }
    println!("decode {:?}/inst {acc}", t.elapsed() / 10_000_000);
    let i = isa_spa5::decode(w).unwrap();
    let t = std::time::Instant::now();
    for _ in 0..10_000_000u64 {
        acc ^= isa_spa5::encode(std::hint::black_box(&i)).unwrap();
    }
    println!("encode {:?}/inst {acc}", t.elapsed() / 10_000_000);
}
