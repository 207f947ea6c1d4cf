//! CPU references: Branches, loops with break/continue, switch, and 2-D/3-D thread indexing.
//!
//! Each function checks one kernel's outputs against the semantics stated in its
//! `tests/cuda/NAME.toml` `reference` text and its `.cu` source, on the run's own inputs.

use super::Reference;
#[allow(unused_imports)]
use crate::cuda_launch::{expect, f32_bits, f64_bits, within_ulp};

/// The kernels of this area with their reference.
pub const REFS: &[(&str, Reference)] = &[
    ("call_indirect", |r| {
        fn rec(v: i32, d: i32) -> i32 {
            if d == 0 {
                v
            } else if v & 1 != 0 {
                rec(v / 2, d - 1).wrapping_add(d)
            } else {
                rec(v.wrapping_add(d), d - 1).wrapping_mul(3)
            }
        }
        let a = r.input("a").i32s();
        let n = r.int("n") as usize;
        let mut w = vec![0i32; r.output("out").data.len()];
        for i in 0..n {
            let (x, ii) = (a[i], i as i32);
            let y = x ^ ii;
            w[2 * i] = match (x & 0x7fff_ffff) % 3 {
                0 => y.wrapping_mul(3).wrapping_add(1),
                1 => y ^ 0x55,
                _ => y.wrapping_sub(7),
            };
            w[2 * i + 1] = rec(x, ii % 12);
        }
        expect("out", &r.output("out").i32s(), &w)
    }),
    ("branch_uniform", |r| {
        let a = r.input("a").i32s();
        let (mode, k) = (r.int("mode"), r.int("k") as i32);
        let w: Vec<i32> = a
            .iter()
            .take(r.int("n") as usize)
            .map(|&x| match mode {
                0 => x.wrapping_mul(2),
                1 => x.wrapping_add(k),
                _ => x ^ k,
            })
            .collect();
        expect("out", &r.output("out").i32s(), &w)
    }),
    ("call_divergent", |r| {
        fn walk(v: i32, k: i32) -> i32 {
            let mut s = v;
            for j in 0..k {
                if s & 1 == 0 && s > 1000 {
                    return s - j;
                }
                s = s.wrapping_mul(3).wrapping_add(1);
                if s % 7 == 0 {
                    return s.wrapping_neg();
                }
            }
            s ^ k
        }
        fn early(v: i32, j: i32) -> i32 {
            if v < 0 {
                return j;
            }
            let t = v >> 3;
            if t & 1 != 0 {
                t + j
            } else {
                v - j
            }
        }
        let a = r.input("a").i32s();
        let n = r.int("n") as usize;
        let mut w = vec![0i32; r.output("out").data.len()];
        for i in 0..n {
            let (x, ii) = (a[i], i as i32);
            w[2 * i] = if x < 0 { x } else { walk(x, ii % 5) };
            w[2 * i + 1] = if ii % 3 != 0 { walk(x ^ ii, 3) } else { 0 };
            w[2 * n + i] = if x % 4 != 0 { early(x, ii) } else { 7 };
            w[3 * n + i] = if i % 2 == 1 {
                -1
            } else if x < 0 {
                0
            } else if x & 8 != 0 {
                x * 3
            } else {
                x * 3 + 5
            };
        }
        expect("out", &r.output("out").i32s(), &w)
    }),
    ("branch_divergent", |r| {
        let a = r.input("a").i32s();
        let w: Vec<i32> = (0..r.int("n") as usize)
            .map(|i| {
                let x = a[i];
                if i & 1 == 1 {
                    x.wrapping_mul(x).wrapping_sub(1)
                } else if x >= 0 {
                    x.wrapping_add(100)
                } else {
                    x.wrapping_neg()
                }
            })
            .collect();
        expect("out", &r.output("out").i32s(), &w)
    }),
    ("loop_nested", |r| {
        let a = r.input("a").i32s();
        let w: Vec<i32> = (0..r.int("n") as usize)
            .map(|i| {
                let x = a[i];
                let (rows, cols) = (x & 7, (x >> 3) & 7);
                let (mut s, mut it) = (0i32, 0i32);
                for row in 0..rows {
                    for c in 0..cols {
                        s = s.wrapping_add((row * 8 + c) ^ i as i32);
                        it += 1;
                    }
                }
                s.wrapping_add(1000 * it)
            })
            .collect();
        expect("out", &r.output("out").i32s(), &w)
    }),
    ("loop_break", |r| {
        let a = r.input("a").i32s();
        let (n, limit) = (r.int("n") as usize, r.int("limit") as i32);
        let mut w = vec![0i32; r.output("out").data.len()];
        for i in 0..n {
            let (mut s, mut last) = (0i32, 0i32);
            for j in 0..(a[i] & 63) {
                if j % 3 == 0 {
                    continue;
                }
                s = s.wrapping_add(j.wrapping_mul(i as i32 + 1));
                last = j;
                if s > limit {
                    break;
                }
            }
            w[i] = s.wrapping_mul(1000).wrapping_add(last);
        }
        expect("out", &r.output("out").i32s(), &w)
    }),
    ("switch_case", |r| {
        let (a, b) = (r.input("a").i32s(), r.input("b").i32s());
        let w: Vec<i32> = (0..r.int("n") as usize)
            .map(|i| {
                let y = b[i];
                match a[i] & 7 {
                    0 => y.wrapping_add(1),
                    1 => y.wrapping_mul(2),
                    2 => y.wrapping_sub(3),
                    3 => y ^ 0x55,
                    4 | 5 => y.wrapping_shl(2),
                    6 => !y,
                    _ => 42,
                }
            })
            .collect();
        expect("out", &r.output("out").i32s(), &w)
    }),
    ("thread2d", |r| {
        let inp = r.input("in").i32s();
        let (w_, h) = (r.int("w") as usize, r.int("h") as usize);
        let mut w = vec![0i32; w_ * h];
        for y in 0..h {
            for x in 0..w_ {
                w[y * w_ + x] = inp[y * w_ + x]
                    .wrapping_mul(2)
                    .wrapping_add((x * 1000) as i32)
                    .wrapping_add(y as i32);
            }
        }
        expect("out", &r.output("out").i32s(), &w)
    }),
    ("thread3d", |r| {
        let (d0, d1, d2) = (r.int("d0") as u32, r.int("d1") as u32, r.int("d2") as u32);
        let mut w = vec![0u32; r.output("out").data.len()];
        let [bx, by, bz] = r.block;
        for gz in 0..r.grid[2] * bz {
            for gy in 0..r.grid[1] * by {
                for gx in 0..r.grid[0] * bx {
                    if gx < d0 && gy < d1 && gz < d2 {
                        let t = gx % bx + gy % by + gz % bz;
                        w[((gz * d1 + gy) * d0 + gx) as usize] = gx | gy << 10 | gz << 20 | t << 28;
                    }
                }
            }
        }
        expect("out", &r.output("out").u32s(), &w)
    }),
];
