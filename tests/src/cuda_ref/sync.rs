//! CPU references: Atomics (global and shared, 32/64-bit, float) and warp vote/shuffle.
//!
//! Each function checks one kernel's outputs against the semantics stated in its
//! `tests/cuda/NAME.toml` `reference` text and its `.cu` source, on the run's own inputs.

use super::Reference;
#[allow(unused_imports)]
use crate::cuda_launch::{expect, f32_bits, f64_bits, within_ulp};

/// The kernels of this area with their reference.
pub const REFS: &[(&str, Reference)] = &[
    ("histogram", |r| {
        let a = r.input("a").u32s();
        let mut w = vec![0u32; 64];
        for &v in a.iter().take(r.int("n") as usize) {
            w[(v & 63) as usize] += 1;
        }
        expect("hist", &r.output("hist").u32s(), &w)
    }),
    ("vote", |r| {
        let a = r.input("a").i32s();
        let n = r.int("n") as usize;
        let threads = (r.grid[0] * r.block[0]) as usize;
        let x = |i: usize| if i < n { a[i] } else { 1 };
        let mut w = Vec::new();
        for i in 0..n.min(threads) {
            let warp = i / 32 * 32;
            let ballot = (0..32).fold(0u32, |m, l| m | ((x(warp + l) > 0) as u32) << l);
            let all = (0..32).all(|l| x(warp + l) > 0);
            let any = (0..32).any(|l| x(warp + l) == 0);
            w.extend([ballot, all as u32, any as u32]);
        }
        expect("out", &r.output("out").u32s(), &w)
    }),
    ("shuffle", |r| {
        let a = r.input("a").i32s();
        let n = r.int("n") as usize;
        let x = |i: usize| if i < n { a[i] } else { 0 };
        let mut w = Vec::new();
        for i in 0..n {
            let (warp, lane) = (i / 32 * 32, i % 32);
            let sum = (0..32).fold(0i32, |s, l| s.wrapping_add(x(warp + l)));
            w.extend([
                x(warp + (lane + 3) % 32),
                x(warp + (lane ^ 5)),
                if lane < 2 { x(i) } else { x(i - 2) },
                sum,
            ]);
        }
        expect("out", &r.output("out").i32s(), &w)
    }),
    ("shuffle_width", |r| {
        let a = r.input("a").i32s();
        let n = r.int("n") as usize;
        let x = |i: usize| if i < n { a[i] } else { 0 };
        let bs = r.block[0] as usize;
        let mut w = vec![0i32; r.output("out").data.len()];
        for i in 0..n {
            let lane = (i % bs) & 31;
            let base = i - lane;
            let down = if (lane & 15) + 4 < 16 { lane + 4 } else { lane };
            w[3 * i..3 * i + 3].copy_from_slice(&[
                x(base + (lane & !7) + ((lane + 1) & 7)),
                x(base + down),
                x(base + (lane ^ 2)),
            ]);
        }
        expect("out", &r.output("out").i32s(), &w)
    }),
    ("atomic_global", |r| {
        let a = r.input("a").i32s();
        let n = r.int("n") as usize;
        let x = &a[..n];
        let acc = vec![
            x.iter().fold(0i32, |s, &v| s.wrapping_add(v)),
            x.iter().copied().fold(i32::MAX, i32::min),
            x.iter().copied().fold(i32::MIN, i32::max),
            x.iter().fold(-1, |s, &v| s & v),
            x.iter().fold(0, |s, &v| s | v),
            x.iter().fold(0, |s, &v| s ^ v),
            x.iter().fold(0i32, |s, &v| s.wrapping_add(v & 0xff)),
            n as i32,
        ];
        expect("acc", &r.output("acc").i32s(), &acc)?;
        expect("old", &r.output("old").i32s(), &r.input("slot").i32s()[..n])?;
        expect("slot", &r.output("slot").i32s(), x)
    }),
    ("atomic_shared", |r| {
        let a = r.input("a").i32s();
        let n = r.int("n") as usize;
        let bs = r.block[0] as usize;
        let mut w = Vec::new();
        for b in 0..r.grid[0] as usize {
            let x: Vec<i32> = (b * bs..(b + 1) * bs)
                .map(|i| if i < n { a[i] } else { 0 })
                .collect();
            w.extend([
                x.iter().fold(0i32, |s, &v| s.wrapping_add(v)),
                x.iter().copied().fold(i32::MAX, i32::min),
                x.iter().copied().fold(i32::MIN, i32::max),
                x.iter().fold(0, |s, &v| s ^ v),
                x.iter().fold(0, |s, &v| s | v),
                x.iter().fold(-1, |s, &v| s & v),
                x.iter().fold(0i32, |s, &v| s.wrapping_add(v & 15)),
                b as i32,
            ]);
        }
        expect("out", &r.output("out").i32s(), &w)
    }),
    ("atomic_global64", |r| {
        let a = r.input("a").data.clone();
        let n = r.int("n") as usize;
        let x = &a[..n];
        let acc = vec![
            x.iter().fold(0u64, |s, &v| s.wrapping_add(v)),
            x.iter().copied().fold(u64::MAX, u64::min),
            x.iter().copied().fold(0, u64::max),
            x.iter().fold(u64::MAX, |s, &v| s & v),
            x.iter().fold(0, |s, &v| s | v),
            x.iter().fold(0u64, |s, &v| s.wrapping_add(v & 0xffff)),
        ];
        expect("acc", &r.output("acc").data, &acc)?;
        expect("old", &r.output("old").data, &r.input("slot").data[..n])?;
        expect("slot", &r.output("slot").data, x)
    }),
    ("atomic_shared64", |r| {
        let a = r.input("a").data.clone();
        let n = r.int("n") as usize;
        let bs = r.block[0] as usize;
        let x = |i: usize| if i < n { a[i] } else { 0 };
        let mut w = Vec::new();
        let mut gx = 0u64;
        for b in 0..r.grid[0] as usize {
            let v: Vec<u64> = (b * bs..(b + 1) * bs).map(x).collect();
            gx ^= v.iter().fold(0, |s, &e| s ^ e);
            w.extend([
                v.iter().fold(0u64, |s, &e| s.wrapping_add(e)),
                v.iter().copied().fold(0, u64::max),
                v.iter().fold(0, |s, &e| s ^ e),
                v.iter().fold(0u64, |s, &e| s.wrapping_add(e >> 32)),
            ]);
        }
        expect("out", &r.output("out").data, &w)?;
        expect("gx", &r.output("gx").data, &[gx])
    }),
    ("atomic_float", |r| {
        let a = r.input("a").f32s();
        let n = r.int("n") as usize;
        // Inputs are multiples of 0.25 in [-64, 64]: every partial sum is exact, so any
        // order of the atomics gives this sum.
        let sum = a[..n].iter().fold(0f32, |s, &v| s + v);
        let max = a[..n].iter().copied().fold(f32::NEG_INFINITY, f32::max);
        expect(
            "acc",
            &f32_bits(&r.output("acc").f32s()),
            &f32_bits(&[sum, sum, max]),
        )
    }),
];
