//! CPU references: Memory spaces: shared memory with barriers, local arrays, read-only and vector loads, constant and `__device__` data.
//!
//! Each function checks one kernel's outputs against the semantics stated in its
//! `tests/cuda/NAME.toml` `reference` text and its `.cu` source, on the run's own inputs.

use super::Reference;
#[allow(unused_imports)]
use crate::cuda_launch::{expect, f32_bits, f64_bits, within_ulp};

/// The kernels of this area with their reference.
pub const REFS: &[(&str, Reference)] = &[
    ("stencil1d", |r| {
        let inp = r.input("in").i32s();
        let n = r.int("n") as usize;
        let at = |j: i64| {
            if j >= 0 && (j as usize) < n {
                inp[j as usize]
            } else {
                0
            }
        };
        let w: Vec<i32> = (0..n as i64)
            .map(|i| {
                at(i - 2)
                    .wrapping_add(at(i - 1).wrapping_mul(2))
                    .wrapping_add(at(i).wrapping_mul(4))
                    .wrapping_add(at(i + 1).wrapping_mul(2))
                    .wrapping_add(at(i + 2))
            })
            .collect();
        expect("out", &r.output("out").i32s(), &w)
    }),
    ("stencil2d", |r| {
        let inp = r.input("in").f32s();
        let (wd, h) = (r.int("w") as usize, r.int("h") as usize);
        let mut w = vec![0f32; r.output("out").data.len()];
        for y in 0..h {
            for x in 0..wd {
                let k = y * wd + x;
                w[k] = if x == 0 || y == 0 || x == wd - 1 || y == h - 1 {
                    inp[k]
                } else {
                    0.25 * (((inp[k - wd] + inp[k + wd]) + inp[k - 1]) + inp[k + 1])
                };
            }
        }
        expect("out", &f32_bits(&r.output("out").f32s()), &f32_bits(&w))
    }),
    ("reduce_shared", |r| {
        let a = r.input("a").i32s();
        let n = r.int("n") as usize;
        let w: Vec<i32> = (0..r.grid[0] as usize)
            .map(|b| {
                (b * 256..(b + 1) * 256)
                    .filter(|&i| i < n)
                    .fold(0i32, |s, i| s.wrapping_add(a[i]))
            })
            .collect();
        expect("out", &r.output("out").i32s(), &w)
    }),
    ("scan", |r| {
        let a = r.input("a").i32s();
        let n = r.int("n") as usize;
        let mut w = vec![0i32; n];
        for b in 0..n.div_ceil(256) {
            let mut s = 0i32;
            for (i, slot) in w
                .iter_mut()
                .enumerate()
                .take(((b + 1) * 256).min(n))
                .skip(b * 256)
            {
                s = s.wrapping_add(a[i]);
                *slot = s;
            }
        }
        expect("out", &r.output("out").i32s(), &w)
    }),
    ("transpose", |r| {
        let inp = r.input("in").u32s();
        let n = r.int("n") as usize;
        let mut w = vec![0u32; n * n];
        for row in 0..n {
            for c in 0..n {
                w[c * n + row] = inp[row * n + c];
            }
        }
        expect("out", &r.output("out").u32s(), &w)
    }),
    ("ldg", |r| {
        let (a, b, f) = (
            r.input("a").i32s(),
            r.input("b").i32s(),
            r.input("f").f32s(),
        );
        let n = r.int("n") as usize;
        let mut w = vec![0i32; r.output("out").data.len()];
        let mut wf = vec![0f32; w.len()];
        for i in 0..n {
            w[i] = a[i].wrapping_mul(3).wrapping_add(b[(i * 7) % n]);
            wf[i] = f[i] * 0.5;
        }
        expect("out", &r.output("out").i32s(), &w)?;
        expect("fout", &f32_bits(&r.output("fout").f32s()), &f32_bits(&wf))
    }),
    ("vector_ldst", |r| {
        let (a, b, f) = (
            r.input("a4").i32s(),
            r.input("b2").i32s(),
            r.input("f4").f32s(),
        );
        let n = r.int("n") as usize;
        let (mut o4, mut o2, mut of) = (vec![0i32; 4 * n], vec![0i32; 2 * n], vec![0f32; 4 * n]);
        for i in 0..n {
            let (x, y, z, ww) = (a[4 * i], a[4 * i + 1], a[4 * i + 2], a[4 * i + 3]);
            let (bx, by) = (b[2 * i], b[2 * i + 1]);
            o4[4 * i..4 * i + 4].copy_from_slice(&[
                ww,
                z.wrapping_add(1),
                y.wrapping_mul(2),
                x ^ bx,
            ]);
            o2[2 * i..2 * i + 2].copy_from_slice(&[bx.wrapping_add(by), bx.wrapping_sub(by)]);
            let g = &f[4 * i..4 * i + 4];
            of[4 * i..4 * i + 4].copy_from_slice(&[g[0] + g[1], g[1] * g[2], g[2] - g[3], g[3]]);
        }
        expect("o4", &r.output("o4").i32s(), &o4)?;
        expect("o2", &r.output("o2").i32s(), &o2)?;
        expect("of", &f32_bits(&r.output("of").f32s()), &f32_bits(&of))
    }),
    ("local_array", |r| {
        let a = r.input("a").i32s();
        let n = r.int("n") as usize;
        let mut w = vec![0i32; r.output("out").data.len()];
        for i in 0..n {
            let x = a[i];
            let mut t = [0i32; 32];
            for (j, e) in t.iter_mut().enumerate() {
                let j = j as i32;
                *e = x.wrapping_mul(j).wrapping_add(j * j);
            }
            for k in 0..8i32 {
                t[(x.wrapping_add(k * 5) & 31) as usize] ^= k;
            }
            w[i] = t[(x & 31) as usize].wrapping_add(t[((x >> 5) & 31) as usize]);
        }
        expect("out", &r.output("out").i32s(), &w)
    }),
    ("dyn_shared", |r| {
        let a = r.input("a").i32s();
        let n = r.int("n") as usize;
        let bs = r.block[0] as usize;
        let mut w = vec![0i32; r.output("out").data.len()];
        for (i, e) in w.iter_mut().enumerate().take(n) {
            let (b, t) = (i / bs, i % bs);
            let src = b * bs + (bs - 1 - t);
            *e = (if src < n { a[src] } else { 0 }).wrapping_add(b as i32);
        }
        expect("out", &r.output("out").i32s(), &w)
    }),
    ("const_table", |r| {
        let a = r.input("a").i32s();
        let n = r.int("n") as usize;
        let table = |k: i32| k * k * 3 + 1;
        let mut w = vec![0i32; r.output("out").data.len()];
        for i in 0..n {
            w[i] = table(a[i] & 63) + table(i as i32 & 63) * 2;
        }
        expect("out", &r.output("out").i32s(), &w)
    }),
    ("device_globals", |r| {
        let a = r.input("a").i32s();
        let n = (r.int("n") as usize).min(256);
        let mut w = vec![0i32; r.output("out").data.len()];
        for i in 0..n {
            let x = a[i];
            let dtab_trunc = (x & 3) + 1; // (int){1.5, 2.5, 3.5, 4.5}[x & 3]
            let itab = 7 + ((x as u32) % 3) as i32;
            w[i] = x
                .wrapping_mul(2)
                .wrapping_add(dtab_trunc * 10)
                .wrapping_add(itab);
        }
        expect("out", &r.output("out").i32s(), &w)
    }),
    ("barrier_reduce", |r| {
        let a = r.input("a").i32s();
        let n = r.int("n") as usize;
        let bs = r.block[0] as usize;
        let mut w = Vec::new();
        for b in 0..r.grid[0] as usize {
            let p: Vec<bool> = (b * bs..(b + 1) * bs).map(|i| i < n && a[i] > 0).collect();
            w.extend([
                p.iter().filter(|&&x| x).count() as i32,
                p.iter().all(|&x| x) as i32,
                p.iter().any(|&x| x) as i32,
            ]);
        }
        expect("out", &r.output("out").i32s(), &w)
    }),
    ("matmul_tiled", |r| {
        let (a, b) = (r.input("A").f32s(), r.input("B").f32s());
        let n = r.int("n") as usize;
        let mut w = vec![0f32; n * n];
        for row in 0..n {
            for col in 0..n {
                w[row * n + col] =
                    (0..n).fold(0f32, |acc, k| a[row * n + k].mul_add(b[k * n + col], acc));
            }
        }
        expect("C", &f32_bits(&r.output("C").f32s()), &f32_bits(&w))
    }),
];
