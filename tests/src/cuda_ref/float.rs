//! CPU references: f32 and f64 arithmetic (bit-exact, `mul_add` where ptxas fuses), ULP-bounded approximations, conversions.
//!
//! Each function checks one kernel's outputs against the semantics stated in its
//! `tests/cuda/NAME.toml` `reference` text and its `.cu` source, on the run's own inputs.

use super::Reference;
#[allow(unused_imports)]
use crate::cuda_launch::{expect, f32_bits, f64_bits, gpu_max, gpu_min, ulp_diff, within_ulp};

/// The kernels of this area with their reference.
pub const REFS: &[(&str, Reference)] = &[
    ("farith", |r| {
        let (a, b, c) = (
            r.input("a").f32s(),
            r.input("b").f32s(),
            r.input("c").f32s(),
        );
        let mut w = Vec::new();
        for i in 0..r.int("n") as usize {
            let (x, y, z) = (a[i], b[i], c[i]);
            w.extend([x + y, x * y, x.mul_add(y, z), x - y]);
        }
        expect("out", &r.output("out").u32s(), &f32_bits(&w))
    }),
    ("saxpy", |r| {
        let (x, y) = (r.input("x").f32s(), r.input("y").f32s());
        let alpha = r.scalars["alpha"].as_float().unwrap_or(0.0) as f32;
        let w: Vec<f32> = (0..r.int("n") as usize)
            .map(|i| alpha.mul_add(x[i], y[i]))
            .collect();
        expect("y", &r.output("y").u32s(), &f32_bits(&w))
    }),
    ("dot_product", |r| {
        let (x, y) = (r.input("x").f32s(), r.input("y").f32s());
        let n = r.int("n") as usize;
        let w: Vec<f32> = (0..r.grid[0] as usize)
            .map(|b| {
                let mut buf: Vec<f32> = (0..256)
                    .map(|t| {
                        let i = b * 256 + t;
                        if i < n {
                            x[i] * y[i]
                        } else {
                            0.0
                        }
                    })
                    .collect();
                let mut s = 128;
                while s > 0 {
                    for t in 0..s {
                        buf[t] += buf[t + s];
                    }
                    s >>= 1;
                }
                buf[0]
            })
            .collect();
        expect("out", &r.output("out").u32s(), &f32_bits(&w))
    }),
    ("fdiv", |r| {
        let (a, b) = (r.input("a").f32s(), r.input("b").f32s());
        let n = r.int("n") as usize;
        let got = r.output("out").f32s();
        let mut exact = Vec::new();
        let mut approx = Vec::new();
        for i in 0..n {
            exact.push(a[i] / b[i]);
            approx.push((got[2 * i + 1], (a[i] as f64 / b[i] as f64) as f32));
        }
        let got_exact: Vec<f32> = (0..n).map(|i| got[2 * i]).collect();
        expect("out[2i] (a/b)", &f32_bits(&got_exact), &f32_bits(&exact))?;
        within_ulp("out[2i+1] (__fdividef)", &approx, 2)
    }),
    ("fsqrt", |r| {
        let a = r.input("a").f32s();
        let n = r.int("n") as usize;
        let got = r.output("out").f32s();
        let (mut exact, mut got_exact, mut approx) = (Vec::new(), Vec::new(), Vec::new());
        for i in 0..n {
            exact.extend([a[i].sqrt(), a[i].sqrt() * 2.0]);
            got_exact.extend([got[3 * i], got[3 * i + 2]]);
            approx.push((got[3 * i + 1], (1.0 / (a[i] as f64).sqrt()) as f32));
        }
        expect(
            "sqrtf, __fsqrt_rn*2",
            &f32_bits(&got_exact),
            &f32_bits(&exact),
        )?;
        within_ulp("rsqrtf", &approx, 2)
    }),
    ("fcompare", |r| {
        let (a, b) = (r.input("a").f32s(), r.input("b").f32s());
        let n = r.int("n") as usize;
        let mut w = vec![0i32; r.output("out").data.len()];
        for i in 0..n {
            let (x, y) = (a[i], b[i]);
            w[6 * i..6 * i + 6].copy_from_slice(&[
                (x < y) as i32,
                (x <= y) as i32,
                (x == y) as i32,
                (x != y) as i32,
                x.is_nan() as i32,
                x.is_infinite() as i32,
            ]);
        }
        expect("out", &r.output("out").i32s(), &w)
    }),
    ("fminmax", |r| {
        let (a, b) = (r.input("a").f32s(), r.input("b").f32s());
        let n = r.int("n") as usize;
        let mut w = vec![0f32; r.output("out").data.len()];
        for i in 0..n {
            let (x, y) = (a[i], b[i]);
            w[5 * i..5 * i + 5].copy_from_slice(&[
                gpu_min(x, y),
                gpu_max(x, y),
                x.abs(),
                -x,
                x.copysign(y),
            ]);
        }
        expect("out", &f32_bits(&r.output("out").f32s()), &f32_bits(&w))
    }),
    ("fround", |r| {
        let a = r.input("a").f32s();
        let n = r.int("n") as usize;
        let mut w = vec![0f32; r.output("out").data.len()];
        for i in 0..n {
            let x = a[i];
            w[5 * i..5 * i + 5].copy_from_slice(&[
                x.floor(),
                x.ceil(),
                x.trunc(),
                x.round_ties_even(),
                x.round(),
            ]);
        }
        expect("out", &f32_bits(&r.output("out").f32s()), &f32_bits(&w))
    }),
    ("fpoly", |r| {
        let a = r.input("a").f32s();
        let n = r.int("n") as usize;
        let mut w = vec![0f32; r.output("out").data.len()];
        for i in 0..n {
            let x = a[i];
            w[i] = [-1.25f32, 2.0, -0.75, 3.0]
                .iter()
                .fold(0.5f32, |p, &c| p.mul_add(x, c));
            w[n + i] = (i as f32).mul_add(0.125, x);
        }
        expect("out", &f32_bits(&r.output("out").f32s()), &f32_bits(&w))
    }),
    ("darith", |r| {
        let (a, b, c) = (
            r.input("a").f64s(),
            r.input("b").f64s(),
            r.input("c").f64s(),
        );
        let n = r.int("n") as usize;
        let mut w = vec![0f64; r.output("out").data.len()];
        for i in 0..n {
            let (x, y, z) = (a[i], b[i], c[i]);
            w[5 * i..5 * i + 5].copy_from_slice(&[
                x + y,
                x * y,
                x.mul_add(y, z),
                x / y,
                x.abs().sqrt(),
            ]);
        }
        expect("out", &f64_bits(&r.output("out").f64s()), &f64_bits(&w))
    }),
    ("dcompare", |r| {
        let (a, b) = (r.input("a").f64s(), r.input("b").f64s());
        let n = r.int("n") as usize;
        let mut flags = vec![0i32; r.output("flags").data.len()];
        let mut mm = vec![0f64; r.output("mm").data.len()];
        for i in 0..n {
            let (x, y) = (a[i], b[i]);
            flags[i] = (x < y) as i32
                | ((x <= y) as i32) << 1
                | ((x == y) as i32) << 2
                | ((x > y) as i32) << 3
                | (x.is_nan() as i32) << 4;
            mm[2 * i] = gpu_min(x, y);
            mm[2 * i + 1] = gpu_max(x, y);
        }
        expect("flags", &r.output("flags").i32s(), &flags)?;
        expect("mm", &f64_bits(&r.output("mm").f64s()), &f64_bits(&mm))
    }),
    // Rust `as` from float to int truncates, saturates and maps NaN to 0, like F2I on
    // sm_50 and the CUDA semantics stated in the launch descriptions.
    ("convert", |r| {
        let (fa, ia) = (r.input("fa").f32s(), r.input("ia").i32s());
        let n = r.int("n") as usize;
        let mut w = vec![0i32; r.output("o").data.len()];
        for i in 0..n {
            let (f, x) = (fa[i], ia[i]);
            w[8 * i..8 * i + 8].copy_from_slice(&[
                f as i32,
                f.abs() as u32 as i32,
                f.round_ties_even() as i32,
                f.floor() as i32,
                (x as f32).to_bits() as i32,
                (x as u32 as f32).to_bits() as i32,
                x as i8 as i32,
                x as u16 as i32,
            ]);
        }
        expect("o", &r.output("o").i32s(), &w)
    }),
    ("convert_limits", |r| {
        let (a, d, l) = (
            r.input("a").f32s(),
            r.input("d").f64s(),
            r.input("l").i64s(),
        );
        let n = r.int("n") as usize;
        let (mut oi, mut ol, mut of, mut od) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for i in 0..n {
            let (f, x, v) = (a[i], d[i], l[i]);
            let t = f as i32;
            oi.extend([
                t,
                f as u32 as i32,
                f.round_ties_even() as i32,
                f.ceil() as i32,
                f.floor() as u32 as i32,
                x as i32,
                x as u32 as i32,
                x.round_ties_even() as i32,
                t as i16 as i32,
                f as u32 as u16 as i32,
                t as i8 as i32,
                v as i16 as i32,
            ]);
            ol.extend([
                f as i64,
                f as u64 as i64,
                x as i64,
                x as u64 as i64,
                x.round_ties_even() as i64,
                f.ceil() as i64,
            ]);
            of.extend([
                v as f32,
                int_to_f32(v as i128, Dir::Zero),
                int_to_f32(v as u64 as i128, Dir::Down),
                x as f32,
                round_dir(x, 0.0, Dir::Zero),
                round_dir(x, 0.0, Dir::Up),
                int_to_f32(v as i32 as i128, Dir::Zero),
                int_to_f32(v as u32 as i128, Dir::Up),
            ]);
            od.extend([
                v as f64,
                int_to_f64(v as i128, Dir::Zero),
                int_to_f64(v as u64 as i128, Dir::Up),
                f as f64,
            ]);
        }
        expect("oi", &r.output("oi").i32s(), &oi)?;
        expect("ol", &r.output("ol").i64s(), &ol)?;
        expect("of", &r.output("of").u32s(), &f32_bits(&of))?;
        let od: Vec<i64> = f64_bits(&od).into_iter().map(|b| b as i64).collect();
        expect("od", &r.output("od").i64s(), &od)
    }),
    ("convert64", |r| {
        let (a, fa) = (r.input("a").i64s(), r.input("fa").f32s());
        let n = r.int("n") as usize;
        let mut o = vec![0i32; r.output("o").data.len()];
        let mut l = vec![0i64; r.output("l").data.len()];
        for i in 0..n {
            let (x, f) = (a[i], fa[i]);
            o[2 * i] = (x as f32).to_bits() as i32;
            o[2 * i + 1] = (x as u64 as f32).to_bits() as i32;
            l[2 * i] = f as i64;
            l[2 * i + 1] = f.abs() as u64 as i64;
        }
        expect("o", &r.output("o").i32s(), &o)?;
        expect("l", &r.output("l").i64s(), &l)
    }),
    ("dconvert", |r| {
        let a = r.input("a").f64s();
        let n = r.int("n") as usize;
        let mut f = vec![0f32; r.output("f").data.len()];
        let mut l = vec![0i64; r.output("l").data.len()];
        let mut dd = vec![0f64; r.output("dd").data.len()];
        for i in 0..n {
            let d = a[i];
            f[i] = d as f32;
            let q = d as i64;
            l[3 * i..3 * i + 3].copy_from_slice(&[q, d as i32 as i64, (q as f64 * 0.5) as i64]);
            dd[2 * i] = d as f32 as f64;
            dd[2 * i + 1] = d as i32 as u32 as f64;
        }
        expect("f", &f32_bits(&r.output("f").f32s()), &f32_bits(&f))?;
        expect("l", &r.output("l").i64s(), &l)?;
        expect("dd", &f64_bits(&r.output("dd").f64s()), &f64_bits(&dd))
    }),
    ("ftrans_precise", |r| {
        // libdevice's sinf/cosf/exp2f/log2f/expf: within 2 ulp of the exact value, taken as
        // the f64 libm result rounded to f32.
        let a = r.input("a").f32s();
        let n = r.int("n") as usize;
        let got = r.output("out").f32s();
        let mut pairs = Vec::new();
        for i in 0..n {
            let x = a[i] as f64;
            let l = (a[i].abs() + 1.0) as f64;
            let want = [x.sin(), x.cos(), x.exp2(), l.log2(), x.exp()];
            pairs.extend((0..5).map(|k| (got[5 * i + k], want[k] as f32)));
        }
        within_ulp("out", &pairs, 2)
    }),
    ("ftrans_fast", |r| {
        // MUFU-based intrinsics, with the bounds of the launch description: sin/cos absolute
        // 2^-21.41 on [-pi, pi], __expf 2 + 1.16|a| ulp, __log2f/__logf 2^-22 absolute or 2 ulp.
        let a = r.input("a").f32s();
        let n = r.int("n") as usize;
        let got = r.output("out").f32s();
        let mut bad = Vec::new();
        for i in 0..n {
            let x = a[i] as f64;
            let l = (a[i].abs() + 1.0) as f64;
            let g = &got[5 * i..5 * i + 5];
            let abs_ok = |g: f32, w: f64, bound: f64| (g as f64 - w).abs() <= bound;
            let ulp_ok = |g: f32, w: f64, u: u32| ulp_diff(g, w as f32) <= u;
            let exp_ulps = (2.0 + 1.16 * x.abs()).ceil() as u32;
            let checks = [
                ("__sinf", abs_ok(g[0], x.sin(), 2f64.powf(-21.41))),
                ("__cosf", abs_ok(g[1], x.cos(), 2f64.powf(-21.41))),
                ("__expf", ulp_ok(g[2], x.exp(), exp_ulps)),
                (
                    "__log2f",
                    abs_ok(g[3], l.log2(), 2f64.powi(-22)) || ulp_ok(g[3], l.log2(), 2),
                ),
                (
                    "__logf",
                    abs_ok(g[4], l.ln(), 2f64.powi(-22)) || ulp_ok(g[4], l.ln(), 2),
                ),
            ];
            for (k, (what, ok)) in checks.iter().enumerate() {
                if !ok && bad.len() < 5 {
                    bad.push(format!("[{}] {what}({}) got {:?}", 5 * i + k, a[i], g[k]));
                }
            }
        }
        if bad.is_empty() {
            Ok(())
        } else {
            Err(format!("out: {}", bad.join("; ")))
        }
    }),
    ("fround_modes", |r| {
        let (a, b, c) = (
            r.input("a").f32s(),
            r.input("b").f32s(),
            r.input("c").f32s(),
        );
        let n = r.int("n") as usize;
        let mut w = vec![0f32; r.output("out").data.len()];
        for i in 0..n {
            let (x, y, z) = (a[i] as f64, b[i] as f64, c[i] as f64);
            // f32 sums and products are exact in f64 for these magnitudes (products always);
            // the fma's exact value is the f64 sum plus its two-sum error.
            let (s, p) = (x + y, x * y);
            let (fs, fe) = two_sum(p, z);
            let sat = if a[i].is_nan() {
                0.0
            } else {
                a[i].clamp(0.0, 1.0)
            };
            w[8 * i..8 * i + 8].copy_from_slice(&[
                round_dir(s, 0.0, Dir::Zero),
                round_dir(s, 0.0, Dir::Up),
                round_dir(s, 0.0, Dir::Down),
                round_dir(p, 0.0, Dir::Zero),
                round_dir(p, 0.0, Dir::Up),
                round_dir(fs, fe, Dir::Zero),
                round_dir(fs, fe, Dir::Down),
                sat,
            ]);
        }
        expect("out", &f32_bits(&r.output("out").f32s()), &f32_bits(&w))
    }),
    ("dround", |r| {
        let (a, b) = (r.input("a").f64s(), r.input("b").f64s());
        let n = r.int("n") as usize;
        let mut w = vec![0f64; r.output("out").data.len()];
        for i in 0..n {
            let (x, y) = (a[i], b[i]);
            // Exact errors of the rounded sum (two-sum) and product (fma residual).
            let (s, se) = two_sum(x, y);
            let p = x * y;
            let pe = x.mul_add(y, -p);
            let add_rz = if (s > 0.0 && se < 0.0) || (s < 0.0 && se > 0.0) {
                if s > 0.0 {
                    s.next_down()
                } else {
                    s.next_up()
                }
            } else {
                s
            };
            let mul_ru = if pe > 0.0 { p.next_up() } else { p };
            w[8 * i..8 * i + 8].copy_from_slice(&[
                x.floor(),
                x.ceil(),
                x.trunc(),
                x.round_ties_even(),
                gpu_min(x, y),
                -x.abs(),
                add_rz,
                mul_ru,
            ]);
        }
        expect("out", &f64_bits(&r.output("out").f64s()), &f64_bits(&w))
    }),
    ("convert_half", |r| {
        let a = r.input("a").f32s();
        let n = r.int("n") as usize;
        let mut w = vec![0u32; r.output("out").data.len()];
        for i in 0..n {
            let h = f32_to_f16_rn(a[i]);
            w[2 * i] = h as u32;
            w[2 * i + 1] = f16_to_f32(h).to_bits();
        }
        expect("out", &r.output("out").u32s(), &w)
    }),
];

/// A directed rounding mode.
#[derive(Clone, Copy)]
enum Dir {
    Zero,
    Up,
    Down,
}

/// `a + b` as an f64 sum and its exact rounding error (Knuth's two-sum).
fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb))
}

/// Rounds the exact value `v + e` to f32 in direction `dir`, where `e` is below half an f64
/// ulp of `v` (so it only matters when `v` is itself an f32 value).
fn round_dir(v: f64, e: f64, dir: Dir) -> f32 {
    let n = v as f32;
    let nv = n as f64;
    // Signed position of the exact value relative to the nearest f32 `n`.
    let above = if nv == v { e > 0.0 } else { v > nv };
    let below = if nv == v { e < 0.0 } else { v < nv };
    match dir {
        Dir::Up if above => n.next_up(),
        Dir::Down if below => n.next_down(),
        Dir::Zero if (n > 0.0 && below) || (n < 0.0 && above) => {
            if n > 0.0 {
                n.next_down()
            } else {
                n.next_up()
            }
        }
        _ => n,
    }
}

/// f32 -> IEEE binary16 bits, round to nearest even, overflow to infinity; NaN gives 0x7fff,
/// the canonical half NaN of NVIDIA's F2F.
fn f32_to_f16_rn(x: f32) -> u16 {
    let sign = ((x.to_bits() >> 16) & 0x8000) as u16;
    if x.is_nan() {
        return 0x7fff;
    }
    let v = x.abs() as f64;
    if v >= 65520.0 {
        return sign | 0x7c00;
    }
    if v < 2f64.powi(-14) {
        // Subnormal half (rounding up to 1024 gives the smallest normal's encoding).
        return sign | (v * 2f64.powi(24)).round_ties_even() as u16;
    }
    let e = v.log2().floor() as i32;
    // Guard against log2 rounding at exact powers of two.
    let e = if v < 2f64.powi(e) {
        e - 1
    } else if v >= 2f64.powi(e + 1) {
        e + 1
    } else {
        e
    };
    let mut m = (v / 2f64.powi(e - 10)).round_ties_even() as u32;
    let mut e = e;
    if m == 2048 {
        m = 1024;
        e += 1;
    }
    sign | (((e + 15) as u16) << 10) | (m - 1024) as u16
}

/// IEEE binary16 bits -> f32 (exact; NaN gives NVIDIA's canonical 0x7fffffff).
fn f16_to_f32(h: u16) -> f32 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let (e, m) = ((h >> 10) & 31, (h & 1023) as f64);
    let v = match e {
        0 => m * 2f64.powi(-24),
        31 if m == 0.0 => f64::INFINITY,
        31 => return f32::from_bits(0x7fff_ffff), // canonical NaN, as F2F produces
        _ => (1024.0 + m) * 2f64.powi(e as i32 - 25),
    };
    (sign * v) as f32
}

/// `r` (round-to-nearest of the exact value, which compares to it as `ord`) moved one step to
/// obey `dir`: toward zero, down or up when nearest rounded the wrong way.
fn directed<F: Copy>(
    r: F,
    ord: std::cmp::Ordering,
    dir: Dir,
    neg: bool,
    up: impl Fn(F) -> F,
    down: impl Fn(F) -> F,
) -> F {
    use std::cmp::Ordering::*;
    match (dir, ord) {
        (Dir::Down, Greater) => down(r),
        (Dir::Up, Less) => up(r),
        (Dir::Zero, Greater) if !neg => down(r),
        (Dir::Zero, Less) if neg => up(r),
        _ => r,
    }
}

/// An integer to f32 with directed rounding (every f32 of this range is an integer).
fn int_to_f32(v: i128, dir: Dir) -> f32 {
    let r = v as f32;
    directed(
        r,
        (r as i128).cmp(&v),
        dir,
        v < 0,
        f32::next_up,
        f32::next_down,
    )
}

/// An integer to f64 with directed rounding.
fn int_to_f64(v: i128, dir: Dir) -> f64 {
    let r = v as f64;
    directed(
        r,
        (r as i128).cmp(&v),
        dir,
        v < 0,
        f64::next_up,
        f64::next_down,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_conversions_match_known_encodings() {
        for (f, h) in [
            (1.0f32, 0x3c00u16),
            (-2.0, 0xc000),
            (0.1, 0x2e66),
            (65504.0, 0x7bff),
            (65519.0, 0x7bff),
            (65520.0, 0x7c00),
            (-1e6, 0xfc00),
            (2f32.powi(-24), 0x0001),
            (2f32.powi(-14), 0x0400),
            (1.0 + 2f32.powi(-11), 0x3c00), // tie to even
            (1.0 + 3.0 * 2f32.powi(-11), 0x3c02),
        ] {
            assert_eq!(f32_to_f16_rn(f), h, "{f}");
        }
        assert_eq!(f16_to_f32(0x7bff), 65504.0);
        assert_eq!(f16_to_f32(0x0001), 2f32.powi(-24));
        assert_eq!(f16_to_f32(0xfc00), f32::NEG_INFINITY);
    }

    #[test]
    fn directed_rounding_brackets_the_exact_value() {
        let (x, y) = (1.0f64, 2f64.powi(-30));
        let (s, e) = two_sum(x, y);
        assert_eq!((s, e), (1.0 + 2f64.powi(-30), 0.0));
        assert_eq!(round_dir(s, e, Dir::Zero), 1.0);
        assert_eq!(round_dir(s, e, Dir::Up), 1.0f32.next_up());
        assert_eq!(round_dir(-s, -e, Dir::Down), -(1.0f32.next_up()));
        assert_eq!(round_dir(-s, -e, Dir::Zero), -1.0);
        assert_eq!(round_dir(1.5, 1e-30, Dir::Up), 1.5f32.next_up());
        assert_eq!(round_dir(1.5, 1e-30, Dir::Zero), 1.5);
    }
}
