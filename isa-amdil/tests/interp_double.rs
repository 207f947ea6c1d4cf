//! Double-precision opcodes (guide 7.12) and the double conversions of 7.10: a double sits
//! in a component pair with the high dword in .y/.w, sources are read from .xy after the
//! swizzle, results go to .xy or .zw by the mask, compares broadcast one 32-bit boolean
//! (7.2.5 L3188-3224, 7.2.1 L3065).

mod interp_common;
use interp_common::*;

const T: u32 = 0xFFFF_FFFF;

fn d2(x: f64) -> [u32; 4] {
    [dlo(x), dhi(x), 0, 0]
}

#[test]
fn double_arithmetic_7_12() {
    let ab = dd(1.5, -0.25);
    run_all(&[
        c(
            "7.12 DADD L7571",
            &[ab],
            "dadd r0.xy, l0.xy, l0.zw",
            d2(1.25),
        ),
        c(
            "7.12 DADD L7571: result in .zw",
            &[ab],
            "dadd r0.zw, l0.xy, l0.zw",
            [0, 0, dlo(1.25), dhi(1.25)],
        ),
        c(
            "7.12 DMUL L7773",
            &[ab],
            "dmul r0.xy, l0.xy, l0.zw",
            d2(-0.375),
        ),
        c(
            "7.12 D_DIV L7600",
            &[ab],
            "ddiv r0.xy, l0.xy, l0.zw",
            d2(-6.0),
        ),
        c(
            "7.12 D_MULADD L7802",
            &[ab, dd(10.0, 0.0)],
            "dmad r0.xy, l0.xy, l0.zw, l1.xy",
            d2(9.625),
        ),
        c(
            "7.12 D_MAX/D_MIN L7731/L7742",
            &[ab],
            "dmax r0.xy, l0.xy, l0.zw\ndmin r0.zw, l0.xy, l0.zw",
            [dlo(1.5), dhi(1.5), dlo(-0.25), dhi(-0.25)],
        ),
        c(
            "7.12 D_FRAC L7626",
            &[dd(-1.25, 0.0)],
            "dfrac r0.xy, l0.xy",
            d2(0.75),
        ),
        c(
            "7.12 D_SQRT L7850",
            &[dd(2.25, 0.0)],
            "dsqrt r0.xy, l0.xy",
            d2(1.5),
        ),
        c(
            "7.12 D_RCP L7828",
            &[dd(4.0, 0.0)],
            "drcp r0.xy, l0.xy",
            d2(0.25),
        ),
        c(
            "7.12 D_RCP L7830: zero gives DBL_MAX by default",
            &[dd(0.0, 0.0)],
            "drcp r0.xy, l0.xy",
            d2(f64::MAX),
        ),
        c(
            "7.12 D_RSQ L7839",
            &[dd(16.0, 0.0)],
            "drsq r0.xy, l0.xy",
            d2(0.25),
        ),
        c("7.12 D_MOV L7753", &[ab], "dmov r0.xy, l0.zw", d2(-0.25)),
        c(
            "7.12 D_FREXP L7642: y = exponent, zw = mantissa",
            &[dd(8.0, 0.0)],
            "dfrexp r0, l0.xy",
            [0, 4, dlo(0.5), dhi(0.5)],
        ),
        c(
            "7.12 D_LDEXP L7687",
            &[dd(0.75, 0.0), [3, 0, 0, 0]],
            "dldexp r0.xy, l0.xy, l1.x",
            d2(6.0),
        ),
    ]);
}

#[test]
fn double_compares_and_selects_7_12() {
    let nan = f64::NAN;
    run_all(&[
        c(
            "7.12 D_EQ L7613: one result broadcast",
            &[dd(2.0, 2.0)],
            "deq r0, l0.xy, l0.zw",
            [T; 4],
        ),
        c(
            "7.12 D_NE L7815: NaN is not equal",
            &[dd(nan, nan)],
            "dne r0.x, l0.xy, l0.zw\ndeq r0.y, l0.xy, l0.zw",
            [T, 0, 0, 0],
        ),
        c(
            "7.12 D_GE/D_LT L7657/L7698",
            &[dd(-1.0, 2.0)],
            "dge r0.x, l0.xy, l0.zw\ndlt r0.y, l0.xy, l0.zw",
            [0, T, 0, 0],
        ),
        c(
            "7.12 D_MOVC L7764 (DX polarity, conventions table)",
            &[dd(1.0, 2.0), [1, 0, 0, 0], [0, 0, 0, 0]],
            "dmovc r0.xy, l1.x, l0.xy, l0.zw\ndmovc r0.zw, l2.x, l0.xy, l0.zw",
            [dlo(1.0), dhi(1.0), dlo(2.0), dhi(2.0)],
        ),
        c(
            "7.2.5 L3190: _neg on a double flips the high dword",
            &[dd(1.5, 0.0)],
            "dadd r0.xy, l0.xy_neg(xy), l0.zw",
            d2(-1.5),
        ),
        c(
            "7.2.5 L3190: sources read from .xy after swizzle",
            &[dd(0.0, 3.0)],
            "dadd r0.xy, l0.zwzw, l0.xy",
            d2(3.0),
        ),
    ]);
}

#[test]
fn double_conversions_7_10() {
    run_all(&[
        c(
            "7.10 F2D L6326",
            &[[f(1.25), 0, 0, 0]],
            "f2d r0.xy, l0.x",
            d2(1.25),
        ),
        c(
            "7.10 F2D L6328: float denormal becomes 0",
            &[[1, 0, 0, 0]],
            "f2d r0.xy, l0.x",
            [0, 0, 0, 0],
        ),
        c(
            "7.10 D2F L6313: broadcast",
            &[dd(0.5, 0.0)],
            "d2f r0, l0.xy",
            [f(0.5); 4],
        ),
        c(
            "7.10 D2F L6315: overflow to Inf, denormal to 0",
            &[dd(1e300, 1e-40)],
            "d2f r0.x, l0.xy\nd2f r0.y, l0.zw",
            [0x7F80_0000, 0, 0, 0],
        ),
        c(
            "7.10 D2F L6313: round to nearest even",
            &[dd(1.0 + 2f64.powi(-24), 0.0)],
            "d2f r0.x, l0.xy",
            [f(1.0), 0, 0, 0],
        ),
    ]);
}

#[test]
fn enum_only_conversions() {
    // Appendix B conversions without chapter 7 text: truncate and saturate like ftoi/ftou
    // (conventions table), int -> double exact.
    run_all(&[
        c(
            "B DTOI",
            &[dd(-2.7, 0.0)],
            "dtoi r0, l0.xy",
            [(-2i32) as u32; 4],
        ),
        c(
            "B DTOI: saturates, NaN -> 0",
            &[dd(1e20, f64::NAN)],
            "dtoi r0.x, l0.xy\ndtoi r0.y, l0.zw",
            [0x7FFF_FFFF, 0, 0, 0],
        ),
        c(
            "B DTOU: negative -> 0",
            &[dd(-1.0, 3.9)],
            "dtou r0.x, l0.xy\ndtou r0.y, l0.zw",
            [0, 3, 0, 0],
        ),
        c("B ITOD", &[[T, 0, 0, 0]], "itod r0.xy, l0.x", d2(-1.0)),
        c(
            "B UTOD",
            &[[T, 0, 0, 0]],
            "utod r0.zw, l0.x",
            [0, 0, dlo(4294967295.0), dhi(4294967295.0)],
        ),
        c(
            "B FTOI_FLR / FTOI_RPI",
            &[[f(-1.5), 0, 0, 0]],
            "ftoi_flr r0.x, l0.x\nftoi_rpi r0.y, l0.x",
            [(-2i32) as u32, T, 0, 0],
        ),
        c(
            "B LDEXP",
            &[[f(0.75), 3, 0, 0]],
            "ldexp r0.x, l0.x, l0.y",
            [f(6.0), 0, 0, 0],
        ),
    ]);
}
