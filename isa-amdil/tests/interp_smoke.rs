//! End-to-end smoke tests of the interpreter on small whole kernels (parse -> decode -> run).

use isa_amdil::interp::{run_source, Dispatch};

fn f32s(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn to_f32s(b: &[u8]) -> Vec<f32> {
    b.chunks(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

#[test]
fn saxpy_example_runs() {
    let src = include_str!("../../tests/examples/saxpy.il");
    let n = 100usize;
    let x: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let y: Vec<f32> = (0..n).map(|i| 1.0 + i as f32 * 0.5).collect();
    let mut d = Dispatch::new([2, 1, 1]);
    d.uavs.insert(0, f32s(&x));
    d.uavs.insert(1, f32s(&y));
    let mut cb = f32s(&[2.0]);
    cb.extend((n as u32).to_le_bytes());
    cb.resize(16, 0);
    d.cbs.insert(0, cb);
    let stats = run_source(src, &mut d).expect("runs");
    let out = to_f32s(&d.uavs[&1]);
    for i in 0..n {
        assert_eq!(out[i], 2.0 * x[i] + y[i], "element {i}");
    }
    assert_eq!(stats.work_items, 128);
}
