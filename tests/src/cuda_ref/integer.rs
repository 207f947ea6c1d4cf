//! CPU references: 32- and 64-bit integer arithmetic, division, shifts and bit operations (wrapping semantics).
//!
//! Each function checks one kernel's outputs against the semantics stated in its
//! `tests/cuda/NAME.toml` `reference` text and its `.cu` source, on the run's own inputs.

use super::Reference;
#[allow(unused_imports)]
use crate::cuda_launch::{expect, f32_bits, f64_bits, within_ulp};

/// The kernels of this area with their reference.
pub const REFS: &[(&str, Reference)] = &[
    ("minmax64_cc", |r| {
        let (a, b) = (r.input("a").i64s(), r.input("b").i64s());
        let n = r.int("n") as usize;
        let mut w = vec![0i64; r.output("out").data.len()];
        for i in 0..n {
            let (x, y) = (a[i], b[i]);
            let (u, v) = (x as u64, y as u64);
            w[6 * i] = x.min(y);
            w[6 * i + 1] = x.max(y);
            w[6 * i + 2] = u.min(v) as i64;
            w[6 * i + 3] = u.max(v) as i64;
            w[6 * i + 4] = x.wrapping_abs();
            w[6 * i + 5] = if x < 0 { 1 } else { 2 };
        }
        expect("out", &r.output("out").i64s(), &w)
    }),
    ("iadd", |r| {
        let (a, b) = (r.input("a").i32s(), r.input("b").i32s());
        let n = r.int("n") as usize;
        let mut w = vec![0i32; 2 * n];
        for i in 0..n {
            w[i] = a[i].wrapping_add(b[i]);
            w[n + i] = a[i].wrapping_sub(b[i]);
        }
        expect("out", &r.output("out").i32s(), &w)
    }),
    ("imul", |r| {
        let (a, b) = (r.input("a").i32s(), r.input("b").i32s());
        let n = r.int("n") as usize;
        let mut w = Vec::new();
        for i in 0..n {
            let (x, y) = (a[i], b[i]);
            w.push(x.wrapping_mul(y));
            w.push(((x as i64 * y as i64) >> 32) as i32);
            w.push(((x as u32 as u64 * y as u32 as u64) >> 32) as i32);
            w.push(x.wrapping_mul(y).wrapping_add(x));
        }
        expect("out", &r.output("out").i32s(), &w)
    }),
    ("idiv_signed", |r| {
        let (a, b) = (r.input("a").i32s(), r.input("b").i32s());
        let mut w = Vec::new();
        for i in 0..r.int("n") as usize {
            let (x, y) = (a[i], b[i]);
            let (q, m) = match y {
                -1 => (x.wrapping_neg(), 0),
                0 => (0, 0),
                _ => (x / y, x % y),
            };
            w.push(q);
            w.push(m);
        }
        expect("out", &r.output("out").i32s(), &w)
    }),
    ("idiv_unsigned", |r| {
        let (a, b) = (r.input("a").u32s(), r.input("b").u32s());
        let mut w = Vec::new();
        for i in 0..r.int("n") as usize {
            let (x, y) = (a[i], b[i]);
            w.push(x.checked_div(y).unwrap_or(u32::MAX));
            w.push(if y == 0 { x } else { x % y });
        }
        expect("out", &r.output("out").u32s(), &w)
    }),
    ("idiv_const", |r| {
        let a = r.input("a").i32s();
        let mut w = Vec::new();
        for &x in a.iter().take(r.int("n") as usize) {
            w.extend([
                x / 7,
                x % 7,
                (x as u32 / 10) as i32,
                (x as u32 % 1000) as i32,
            ]);
        }
        expect("out", &r.output("out").i32s(), &w)
    }),
    ("shifts", |r| {
        let (a, b) = (r.input("a").u32s(), r.input("b").u32s());
        let mut w = Vec::new();
        for i in 0..r.int("n") as usize {
            let (x, y) = (a[i], b[i]);
            let s = y & 31;
            let fr = (((y as u64) << 32 | x as u64) >> s) as u32;
            w.extend([
                x << s,
                x >> s,
                ((x as i32) >> s) as u32,
                x.rotate_left(s),
                fr,
            ]);
        }
        expect("out", &r.output("out").u32s(), &w)
    }),
    ("bitcount", |r| {
        let (a, b) = (r.input("a").u32s(), r.input("b").u32s());
        let mut w = Vec::new();
        for i in 0..r.int("n") as usize {
            let x = a[i];
            let wide = (x as u64) << 32 | b[i] as u64;
            let ffs = if x == 0 { 0 } else { x.trailing_zeros() + 1 };
            w.extend([
                x.count_ones(),
                x.leading_zeros(),
                x.reverse_bits(),
                ffs,
                wide.count_ones(),
            ]);
        }
        expect("out", &r.output("out").u32s(), &w)
    }),
    ("bitfield", |r| {
        let (a, b) = (r.input("a").u32s(), r.input("b").u32s());
        let mut w = Vec::new();
        for i in 0..r.int("n") as usize {
            let (x, y) = (a[i], b[i]);
            let (off, len) = (y & 15, 1 + ((y >> 4) & 15));
            let mask = (1u32 << len) - 1;
            let field = (x >> off) & mask;
            let sext = (((field << (32 - len)) as i32) >> (32 - len)) as u32;
            let ins = (x & !(mask << off)) | ((y & mask) << off);
            let bytes = ((y as u64) << 32 | x as u64).to_le_bytes();
            let sel = 0x3715u32;
            let perm = (0..4).fold(0u32, |acc, k| {
                acc | (bytes[((sel >> (4 * k)) & 7) as usize] as u32) << (8 * k)
            });
            w.extend([field, sext, ins, perm]);
        }
        expect("out", &r.output("out").u32s(), &w)
    }),
    ("select", |r| {
        let (a, b) = (r.input("a").i32s(), r.input("b").i32s());
        let n = r.int("n") as usize;
        let mut w = vec![0i32; 2 * n];
        for i in 0..n {
            let (x, y) = (a[i], b[i]);
            w[i] = if x < y && y != 7 {
                x.wrapping_mul(3)
            } else if (x ^ y) & 1 != 0 {
                y
            } else {
                x.wrapping_add(y)
            };
            w[n + i] = if x > 0 || y < 0 { 1 } else { -1 };
        }
        expect("out", &r.output("out").i32s(), &w)
    }),
    ("hash", |r| {
        let a = r.input("a").u32s();
        let seed = r.int("seed") as u32;
        let mut w = Vec::new();
        for &v in a.iter().take(r.int("n") as usize) {
            let mut h = v ^ seed;
            h ^= h >> 16;
            h = h.wrapping_mul(0x85eb_ca6b);
            h ^= h >> 13;
            h = h.wrapping_mul(0xc2b2_ae35);
            h ^= h >> 16;
            let mut x = v | 1;
            for _ in 0..8 {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
            }
            w.extend([h, x]);
        }
        expect("out", &r.output("out").u32s(), &w)
    }),
    ("int64", |r| {
        let (a, b) = (r.input("a").i64s(), r.input("b").i64s());
        let mut w = Vec::new();
        for i in 0..r.int("n") as usize {
            let (x, y) = (a[i], b[i]);
            let s = (y & 63) as u32;
            w.extend([
                x.wrapping_add(y),
                x.wrapping_sub(y),
                x.wrapping_mul(y),
                x >> s,
                ((x as u64) << s) as i64,
                ((x as u64) / (y as u64 | 1)) as i64,
            ]);
        }
        expect("out", &r.output("out").i64s(), &w)
    }),
    ("int64_divrem", |r| {
        let (a, b) = (r.input("a").i64s(), r.input("b").i64s());
        let n = r.int("n") as usize;
        let mut w = vec![0i64; r.output("out").data.len()];
        for i in 0..n {
            let (x, y) = (a[i], b[i]);
            let (q, rem) = match y {
                0 => (0, 0),
                -1 => (x.wrapping_neg(), 0),
                _ => (x / y, x % y),
            };
            let (ux, uy) = (x as u64, y as u64);
            // CUDA source: uy == 0 gives all ones and x.
            let uq = ux.checked_div(uy).unwrap_or(u64::MAX);
            let ur = ux.checked_rem(uy).unwrap_or(ux);
            w[4 * i..4 * i + 4].copy_from_slice(&[q, rem, uq as i64, ur as i64]);
        }
        expect("out", &r.output("out").i64s(), &w)
    }),
    ("brev64_clz64", |r| {
        let a = r.input("a").data.clone();
        let n = r.int("n") as usize;
        let mut w = vec![0u64; r.output("out").data.len()];
        for i in 0..n {
            let x = a[i];
            let ffs = if x == 0 {
                0
            } else {
                x.trailing_zeros() as u64 + 1
            };
            w[4 * i..4 * i + 4].copy_from_slice(&[
                x.reverse_bits(),
                x.leading_zeros() as u64,
                x.count_ones() as u64,
                ffs,
            ]);
        }
        expect("out", &r.output("out").data, &w)
    }),
    ("iminmax", |r| {
        let (a, b) = (r.input("a").i32s(), r.input("b").i32s());
        let n = r.int("n") as usize;
        let mut w = vec![0i32; r.output("out").data.len()];
        for i in 0..n {
            let (x, y) = (a[i], b[i]);
            // __sad: |x - y| of the signed values, plus 7, mod 2^32.
            let sad = ((x as i64 - y as i64).unsigned_abs() as u32).wrapping_add(7);
            w[6 * i..6 * i + 6].copy_from_slice(&[
                x.min(y),
                x.max(y),
                (x as u32).min(y as u32) as i32,
                (x as u32).max(y as u32) as i32,
                x.wrapping_abs(),
                sad as i32,
            ]);
        }
        expect("out", &r.output("out").i32s(), &w)
    }),
];
