//! Float opcodes (guide 7.11) and conversions (7.10): expected values from the guide's text
//! and the conventions table of `isa_amdil::interp` where the guide leaves a result open.

mod interp_common;
use interp_common::*;

const T: u32 = 0xFFFF_FFFF;
const NAN: u32 = 0x7FFF_FFFF; // canonical NaN of arithmetic results
const INF: u32 = 0x7F80_0000;
const NINF: u32 = 0xFF80_0000;
const FMAX: u32 = 0x7F7F_FFFF;

#[test]
fn basic_arithmetic() {
    let l = [
        [f(1.5), f(-2.0), f(0.0), f(8.0)],
        [f(2.0), f(4.0), f(-3.0), f(0.5)],
    ];
    run_all(&[
        c(
            "7.11 ADD L6447",
            &l,
            "add r0, l0, l1",
            [f(3.5), f(2.0), f(-3.0), f(8.5)],
        ),
        c(
            "7.11 SUB L7473",
            &l,
            "sub r0, l0, l1",
            [f(-0.5), f(-6.0), f(3.0), f(7.5)],
        ),
        c(
            "7.11 MUL L7128",
            &l,
            "mul r0, l0, l1",
            [f(3.0), f(-8.0), 0, f(4.0)],
        ),
        c(
            "7.11 MAD L7049",
            &l,
            "mad r0, l0, l1, l1",
            [f(5.0), f(-4.0), f(-3.0), f(4.5)],
        ),
        c(
            "7.11 FMA L6876",
            &l,
            "fma r0, l0, l1, l0",
            [f(4.5), f(-10.0), 0, f(12.0)],
        ),
        c(
            "7.11 ABS L6419",
            &l,
            "abs r0, l0",
            [f(1.5), f(2.0), 0, f(8.0)],
        ),
        c(
            "7.11 MOV L7115: typeless copy",
            &[[NAN - 1, 1, 2, 3]],
            "mov r0, l0",
            [NAN - 1, 1, 2, 3],
        ),
        c(
            "7.11 INV_MOV L6928",
            &[[7, 8, 9, 10]],
            "invariant_move r0, l0",
            [7, 8, 9, 10],
        ),
        c(
            "7.11 MOD L7102: sign of src0; x mod 0 = x",
            &[[f(-7.0), f(2.0), f(7.0), 0]],
            "mod r0.x, l0.x, l0.y\nmod r0.y, l0.z, l0.w",
            [f(-1.0), f(7.0), 0, 0],
        ),
        c(
            "7.11 LRP L7023: s1*s0 + s2*(1-s0)",
            &[[f(0.25), f(4.0), f(8.0), 0]],
            "lrp r0.x, l0.x, l0.y, l0.z",
            [f(7.0), 0, 0, 0],
        ),
        c(
            "7.11 SGN L7395: NaN gives 1.0",
            &[[f(-3.0), 0, f(2.0), NAN]],
            "sgn r0, l0",
            [f(-1.0), 0, f(1.0), f(1.0)],
        ),
    ]);
}

#[test]
fn legacy_multiply_and_denormals() {
    // 1.2 L394-398 and L7134: without _ieee, 0 * anything is 0; L3063: denormals flush.
    let l = [[0, INF, NAN, f(3.0)], [0x0000_0001, f(1.0), 0, 0]];
    run_all(&[
        c(
            "7.11 MUL L7134: 0*Inf = 0 (legacy)",
            &l,
            "mul r0.x, l0.x, l0.y\nmul r0.y, l0.z, l0.x",
            [0, 0, 0, 0],
        ),
        c(
            "7.11 MUL_IEEE L7134: 0*Inf = NaN",
            &l,
            "mul_ieee r0.x, l0.x, l0.y",
            [NAN, 0, 0, 0],
        ),
        c(
            "7.11 MAD L7055: legacy zero rule",
            &l,
            "mad r0.x, l0.x, l0.y, l0.w",
            [f(3.0), 0, 0, 0],
        ),
        c(
            "7.11 MAD_IEEE L7055",
            &l,
            "mad_ieee r0.x, l0.x, l0.y, l0.w",
            [NAN, 0, 0, 0],
        ),
        c(
            "7.11 DP4 L6691: legacy dot",
            &[[0, f(1.0), f(2.0), f(3.0)], [INF, f(1.0), f(1.0), f(1.0)]],
            "dp4 r0, l0, l1",
            [f(6.0); 4],
        ),
        c(
            "7.11 DP4_IEEE L6691",
            &[[0, f(1.0), f(2.0), f(3.0)], [INF, f(1.0), f(1.0), f(1.0)]],
            "dp4_ieee r0.x, l0, l1",
            [NAN, 0, 0, 0],
        ),
        c(
            "7.2.1 L3063: denormal input flushed in add",
            &l,
            "add r0.x, l1.x, l1.x",
            [0, 0, 0, 0],
        ),
        c(
            "7.2.1 L3063: denormal result flushed",
            &[[f(1e-20), f(1e-20), 0, 0]],
            "mul_ieee r0.x, l0.x, l0.y",
            [0, 0, 0, 0],
        ),
    ]);
}

#[test]
fn division_and_scalar_ops() {
    run_all(&[
        c(
            "7.11 DIV L6635",
            &[[f(1.0), f(4.0), 0, 0]],
            "div r0.x, l0.x, l0.y",
            [f(0.25), 0, 0, 0],
        ),
        c(
            "7.11 DIV L6635: /0 default zeroop(fltmax), sign of src0",
            &[[f(-3.0), 0, f(3.0), 0x8000_0000]],
            "div r0.x, l0.x, l0.y\ndiv r0.y, l0.z, l0.w\ndiv r0.z, l0.y, l0.y",
            [0xFF7F_FFFF, FMAX, FMAX, 0],
        ),
        c(
            "7.11 DIV L6635: zeroop(infinity)",
            &[[f(-3.0), 0, 0, 0]],
            "div_zeroop(infinity) r0.x, l0.x, l0.y",
            [NINF, 0, 0, 0],
        ),
        c(
            "7.11 DIV L6635: zeroop(zero)",
            &[[f(-3.0), 0, 0, 0]],
            "div_zeroop(zero) r0.x, l0.x, l0.y",
            [0x8000_0000, 0, 0, 0],
        ),
        c(
            "7.11 RCP L7263: reads .w, broadcasts",
            &[[f(2.0), f(4.0), f(8.0), f(16.0)]],
            "rcp r0, l0",
            [f(0.0625); 4],
        ),
        c(
            "7.11 RCP L7265: rcp(-0) = +FLT_MAX",
            &[[0x8000_0000; 4]],
            "rcp r0.x, l0",
            [FMAX, 0, 0, 0],
        ),
        c(
            "7.11 RSQ L7356: .w, zero gives FLT_MAX",
            &[[f(9.0), 0, 0, f(4.0)]],
            "rsq r0.x, l0\nrsq r0.y, l0.y",
            [f(0.5), FMAX, 0, 0],
        ),
        c(
            "7.11 RSQ_VEC L7369: per component",
            &[[f(4.0), f(16.0), f(0.25), f(1.0)]],
            "rsq_vec r0, l0",
            [f(0.5), f(0.25), f(2.0), f(1.0)],
        ),
        c(
            "7.11 SQRT L7447: .w broadcast",
            &[[f(4.0), 0, 0, f(9.0)]],
            "sqrt r0, l0",
            [f(3.0); 4],
        ),
        c(
            "7.11 SQRT_VEC L7460",
            &[[f(4.0), f(9.0), 0, f(2.25)]],
            "sqrt_vec r0, l0",
            [f(2.0), f(3.0), 0, f(1.5)],
        ),
        c(
            "7.11 EXP L6810: 2^w",
            &[[0, 0, 0, f(3.0)]],
            "exp r0, l0",
            [f(8.0); 4],
        ),
        c(
            "7.11 EXP_VEC L6823",
            &[[f(1.0), f(-1.0), 0, f(10.0)]],
            "exp_vec r0, l0",
            [f(2.0), f(0.5), f(1.0), f(1024.0)],
        ),
        c(
            "7.11 LOG L6986: log2(0) = -FLT_MAX",
            &[[0, 0, 0, 0]],
            "log r0.x, l0",
            [0xFF7F_FFFF, 0, 0, 0],
        ),
        c(
            "7.11 LOG L6986",
            &[[0, 0, 0, f(8.0)]],
            "log r0.x, l0",
            [f(3.0), 0, 0, 0],
        ),
        c(
            "7.11 LOG_VEC L6999: log2(0) = -Inf",
            &[[0, f(1.0), f(4.0), f(0.5)]],
            "log_vec r0, l0",
            [NINF, 0, f(2.0), f(-1.0)],
        ),
        c(
            "7.11 LN L6973: zero gives -FLT_MAX",
            &[[0, 0, 0, 0]],
            "ln r0.x, l0",
            [0xFF7F_FFFF, 0, 0, 0],
        ),
        c(
            "7.11 LN L6971",
            &[[0, 0, 0, f(1.0)]],
            "ln r0.x, l0",
            [0, 0, 0, 0],
        ),
        c(
            "7.11 EXN L6797: e^0",
            &[[0, 0, 0, 0]],
            "exn r0.x, l0",
            [f(1.0), 0, 0, 0],
        ),
        c(
            "7.11 POW L7250: s0.w ^ s1.w",
            &[[0, 0, 0, f(2.0)], [0, 0, 0, f(10.0)]],
            "pow r0.x, l0, l1",
            [f(1024.0), 0, 0, 0],
        ),
        c(
            "7.11 SIN/COS L7408/L6568 on .w",
            &[[0, 0, 0, 0]],
            "sin r0.x, l0\ncos r0.y, l0",
            [0, f(1.0), 0, 0],
        ),
        c(
            "7.11 SIN_VEC/COS_VEC L7434/L6581",
            &[[0, 0, 0, 0]],
            "sin_vec r0.x, l0\ncos_vec r0.y, l0",
            [0, f(1.0), 0, 0],
        ),
        c(
            "7.11 TAN L7506, ASIN L6473, ACOS L6433, ATAN L6486 at 0/1",
            &[[0, f(1.0), 0, 0]],
            "tan r0.x, l0.x\nasin r0.y, l0.x\nacos r0.z, l0.y\natan r0.w, l0.x",
            [0, 0, 0, 0],
        ),
        c(
            "7.11 SINCOS L7421: x = cos, y = sin, z/w untouched",
            &[[0, 0, 0, 0], [5, 6, 7, 8]],
            "mov r0, l1\nsincos r0, l0",
            [f(1.0), 0, 7, 8],
        ),
    ]);
}

#[test]
fn min_max_clamp_compare() {
    run_all(&[
        c("7.11 MIN L7076: NaN loses", &[[NAN, f(2.0), f(-1.0), NAN]], "min r0.x, l0.x, l0.y\nmin r0.y, l0.z, l0.w", [f(2.0), f(-1.0), 0, 0]),
        c("7.11 MAX L7062: NaN loses", &[[NAN, f(2.0), f(-1.0), NAN]], "max r0.x, l0.x, l0.y\nmax r0.y, l0.z, l0.w", [f(2.0), f(-1.0), 0, 0]),
        c("7.11 MIN/MAX L7065: -0 < +0", &[[0x8000_0000, 0, 0, 0]], "min r0.x, l0.x, l0.y\nmax r0.y, l0.x, l0.y\nmin r0.z, l0.y, l0.x\nmax r0.w, l0.y, l0.x", [0x8000_0000, 0, 0x8000_0000, 0]),
        c("7.11 CLAMP L6499: NaN passes through", &[[NAN, 0, f(1.0), f(5.0)]], "clamp r0.x, l0.x, l0.y, l0.z\nclamp r0.y, l0.w, l0.y, l0.z", [NAN, f(1.0), 0, 0]),
        c("7.11 EQ L6784: +0 == -0, NaN false", &[[0, 0x8000_0000, NAN, 0]], "eq r0.x, l0.x, l0.y\neq r0.y, l0.z, l0.z", [T, 0, 0, 0]),
        c("7.11 NE L7141: NaN is not equal (unordered)", &[[0, 0x8000_0000, NAN, 0]], "ne r0.x, l0.x, l0.y\nne r0.y, l0.z, l0.z", [0, T, 0, 0]),
        c("7.11 GE L6915 / LT L7036", &[[f(1.0), f(2.0), NAN, 0]], "ge r0.x, l0.y, l0.x\nlt r0.y, l0.x, l0.y\nge r0.z, l0.z, l0.x\nlt r0.w, l0.z, l0.x", [T, T, 0, 0]),
        c("7.11 SET L7382: 1.0 / 0.0", &[[f(1.0), f(2.0), 0, 0]], "set_relop(lt) r0.x, l0.x, l0.y\nset_relop(gt) r0.y, l0.x, l0.y\nset_relop(le) r0.z, l0.x, l0.x\nset_relop(ne) r0.w, l0.x, l0.x", [f(1.0), 0, f(1.0), 0]),
        c("7.11 CMP L6538: (s0 relop cmpval) ? s1 : s2", &[[f(0.7), f(0.2), 0, 0], [1, 1, 1, 1], [2, 2, 2, 2]], "cmp_relop(ge)_cmpval(0.5) r0.xy, l0, l1, l2", [1, 2, 0, 0]),
        c("7.11 CMOV L6512: -0.0 counts as zero, dst kept", &[[f(1.0), 0x8000_0000, 0, 0], [5, 6, 7, 8], [9, 9, 9, 9]], "mov r0, l2\ncmov r0, l0, l1", [5, 9, 9, 9]),
        c("7.11 CMOV_LOGICAL L6525: any bit, -0.0 is true", &[[0x8000_0000, 0, 1, 0], [5, 6, 7, 8], [9, 9, 9, 9]], "cmov_logical r0, l0, l1, l2", [5, 9, 7, 9]),
    ]);
}

#[test]
fn rounding_and_dots() {
    run_all(&[
        c(
            "7.11 FLR L6862",
            &[[f(-1.5), f(1.5), f(-0.0), f(2.0)]],
            "flr r0, l0",
            [f(-2.0), f(1.0), 0x8000_0000, f(2.0)],
        ),
        c(
            "7.11 FRC L6889",
            &[[f(-1.25), f(1.75), f(3.0), 0]],
            "frc r0, l0",
            [f(0.75), f(0.75), 0, 0],
        ),
        c(
            "7.11 ROUND_NEAREST L7304: ties to even",
            &[[f(2.5), f(3.5), f(-2.5), f(0.4)]],
            "round_nearest r0, l0",
            [f(2.0), f(4.0), f(-2.0), 0],
        ),
        c(
            "7.11 ROUND_NEG_INF L7317",
            &[[f(2.5), f(-2.5), 0, 0]],
            "round_neginf r0.xy, l0",
            [f(2.0), f(-3.0), 0, 0],
        ),
        c(
            "7.11 ROUND_PLUS_INF L7330",
            &[[f(2.5), f(-2.5), 0, 0]],
            "round_plusinf r0.xy, l0",
            [f(3.0), f(-2.0), 0, 0],
        ),
        c(
            "7.11 ROUND_ZERO L7343",
            &[[f(2.5), f(-2.5), 0, 0]],
            "round_z r0.xy, l0",
            [f(2.0), f(-2.0), 0, 0],
        ),
        c(
            "7.11 RND L7291: floor(x + 0.5)",
            &[[f(2.5), f(-2.5), 0, 0]],
            "rnd r0.xy, l0",
            [f(3.0), f(-2.0), 0, 0],
        ),
        c(
            "7.11 DP2 L6646",
            &[[f(1.0), f(2.0), f(3.0), f(4.0)]],
            "dp2 r0, l0, l0",
            [f(5.0); 4],
        ),
        c(
            "7.11 DP3 L6672",
            &[[f(1.0), f(2.0), f(3.0), f(4.0)]],
            "dp3 r0, l0, l0",
            [f(14.0); 4],
        ),
        c(
            "7.11 DP4 L6685",
            &[[f(1.0), f(2.0), f(3.0), f(4.0)]],
            "dp4 r0, l0, l0",
            [f(30.0); 4],
        ),
        c(
            "7.11 DP2ADD L6659: dp2 + s2.z",
            &[[f(1.0), f(2.0), f(3.0), f(4.0)]],
            "dp2add r0.x, l0, l0, l0",
            [f(8.0), 0, 0, 0],
        ),
        c(
            "7.11 CRS L6594: w not written",
            &[[f(1.0), 0, 0, 0], [0, f(1.0), 0, 0], [3, 3, 3, 3]],
            "mov r0, l2\ncrs r0, l0, l1",
            [0, 0, f(1.0), 3],
        ),
        c(
            "7.11 NRM L7169: xyz normalised, w kept",
            &[[f(3.0), 0, f(4.0), f(9.0)]],
            "nrm r0, l0",
            [f(0.6), 0, f(0.8), f(9.0)],
        ),
        c(
            "7.11 DST L6698: (1, s0.y*s1.y, s0.z, s1.w)",
            &[[0, f(2.0), f(3.0), 0], [0, f(4.0), 0, f(5.0)]],
            "dst r0, l0, l1",
            [f(1.0), f(8.0), f(3.0), f(5.0)],
        ),
        c(
            "7.11 LEN L6942: length of xyz, broadcast",
            &[[f(3.0), f(4.0), f(12.0), f(100.0)]],
            "len r0, l0",
            [f(13.0); 4],
        ),
        c(
            "7.11 FACEFORWARD L6849: s2 * sign(dot4(s0, s1))",
            &[
                [f(1.0), f(2.0), f(0.0), f(1.0)],
                [f(-3.0), f(1.0), f(5.0), f(0.5)],
                [f(2.0), f(-0.5), f(0.0), f(7.0)],
            ],
            "faceforward r0, l0, l1, l2",
            [f(-2.0), f(0.5), f(-0.0), f(-7.0)],
        ),
        c(
            "7.11 REFLECT L7277: s0 - 2 dot4(s0, s1) s1",
            &[
                [f(1.0), f(-1.0), f(0.0), f(0.0)],
                [f(0.0), f(1.0), f(0.0), f(0.0)],
            ],
            "reflect r0, l0, l1",
            [f(1.0), f(1.0), f(0.0), f(0.0)],
        ),
        c(
            "7.11 REFLECT L7277: _normalize scales s0 by dot4(s1, s1)",
            &[
                [f(1.0), f(-1.0), f(0.0), f(0.0)],
                [f(0.0), f(2.0), f(0.0), f(0.0)],
            ],
            "reflect_normalize r0, l0, l1",
            [f(4.0), f(4.0), f(0.0), f(0.0)],
        ),
        c(
            "7.11 PIREDUCE L7226: into [-pi, pi]",
            &[[
                f(0.0),
                f(std::f32::consts::TAU + 1.0),
                f(-1.0),
                f(3.0 * std::f32::consts::PI + 0.5),
            ]],
            "pireduce r0, l0",
            // 1 - 2^-22 and 0.5 - pi: each step rounds to f32.
            [f(0.0), 0x3f7f_fffc, f(-1.0), 0xc029_0fdc],
        ),
        c(
            "7.11 LIT L6958",
            &[[f(0.5), f(0.25), 0, f(2.0)]],
            "lit r0, l0",
            [f(1.0), f(0.5), f(0.0625), f(1.0)],
        ),
    ]);
}

#[test]
fn conversions_7_10() {
    run_all(&[
        c(
            "7.10 FTOI L6365: truncates",
            &[[f(-2.7), f(2.7), f(0.5), f(-0.5)]],
            "ftoi r0, l0",
            [(-2i32) as u32, 2, 0, 0],
        ),
        c(
            "7.10 FTOI L6365: undefined -> saturate, NaN -> 0",
            &[[NAN, INF, f(-3e9), f(3e9)]],
            "ftoi r0, l0",
            [0, 0x7FFF_FFFF, 0x8000_0000, 0x7FFF_FFFF],
        ),
        c(
            "7.10 FTOU L6378: saturate, NaN -> 0",
            &[[NAN, f(-1.0), f(5e9), f(3.9)]],
            "ftou r0, l0",
            [0, 0, T, 3],
        ),
        c(
            "7.10 ITOF L6391",
            &[[T, 0x8000_0000, 16_777_217, 3]],
            "itof r0, l0",
            [f(-1.0), f(-2147483648.0), f(16_777_216.0), f(3.0)],
        ),
        c(
            "7.10 UTOF L6404: nearest even",
            &[[T, 0x8000_0000, 16_777_219, 3]],
            "utof r0, l0",
            [f(4294967296.0), f(2147483648.0), f(16_777_220.0), f(3.0)],
        ),
        c(
            "7.10 F_2_F16 L6343",
            &[[f(1.0), f(-2.0), f(65504.0), f(1e6)]],
            "f2f16 r0, l0",
            [0x3C00, 0xC000, 0x7BFF, 0x7C00],
        ),
        c(
            "7.10 F16_2_F L6354",
            &[[0x3C00, 0xC000, 0x0001, 0xFC00]],
            "f162f r0, l0",
            [f(1.0), f(-2.0), f(5.960_464_5e-8), NINF],
        ),
    ]);
}

#[test]
fn dx9_vector_forms_and_frexp() {
    run_all(&[
        c(
            "7.11 EXPP L6836: (2^floor(w), w - floor(w), 2^w, 1) from .w",
            &[[f(9.0), f(9.0), f(9.0), f(-2.5)]],
            "expp r0.xyw, l0",
            [f(0.125), f(0.5), 0, f(1.0)],
        ),
        c(
            "7.11 EXPP L6836: the z component is 2^w",
            &[[0, 0, 0, f(-3.0)]],
            "expp r0, l0",
            [f(0.125), f(0.0), f(0.125), f(1.0)],
        ),
        c(
            "7.11 LOGP L7010: (floor(f), w / 2^floor(f), f, 1), f = log2(w)",
            &[[0, 0, 0, f(12.0)]],
            "logp r0.xyw, l0",
            [f(3.0), f(1.5), 0, f(1.0)],
        ),
        c(
            "7.11 LOGP L7010: zero with _zeroop(infinity) gives -Inf",
            &[[f(1.0), 0, 0, 0]],
            "logp_zeroop(infinity) r0.xz, l0",
            [NINF, 0, NINF, 0],
        ),
        c(
            "7.11 MMUL L7091: 4x4, rows src1, src1 + 1, ...",
            &[
                [f(1.0), f(2.0), f(3.0), f(4.0)],
                [f(1.0), 0, 0, 0],
                [0, f(1.0), 0, f(1.0)],
                [f(1.0); 4],
                [f(2.0), 0, 0, 0],
            ],
            "mov r1, l1\nmov r2, l2\nmov r3, l3\nmov r4, l4\nmmul r0, l0, r1",
            [f(1.0), f(6.0), f(10.0), f(2.0)],
        ),
        c(
            "7.11 MMUL L7091: 3x4 takes dot3 products",
            &[
                [f(1.0), f(2.0), f(3.0), f(4.0)],
                [f(1.0), 0, 0, 0],
                [0, f(1.0), 0, f(1.0)],
                [f(1.0); 4],
                [f(2.0), 0, 0, 0],
            ],
            "mov r1, l1\nmov r2, l2\nmov r3, l3\nmov r4, l4\nmmul_matrix(3x4) r0, l0, r1",
            [f(1.0), f(2.0), f(6.0), f(2.0)],
        ),
        c(
            "7.11 MMUL L7091: 4x3 returns no w, except a forced 1",
            &[
                [f(1.0), f(2.0), f(3.0), f(4.0)],
                [f(1.0), 0, 0, 0],
                [0, f(1.0), 0, f(1.0)],
                [f(1.0); 4],
            ],
            "mov r1, l1\nmov r2, l2\nmov r3, l3\nmmul_matrix(4x3) r0, l0, r1\nmmul_matrix(4x3) r5.xyz1, l0, r1\nmov r0.w, r5.w",
            [f(1.0), f(6.0), f(10.0), f(1.0)],
        ),
        c(
            "B FREXP_MANT: the f32 form of dfrexp (L7642): mantissa in [0.5, 1), sign kept",
            &[[f(12.0), f(-0.375), 0x8000_0001, INF]],
            "frexp_mant r0, l0",
            [f(0.75), f(-0.75), 0x8000_0000, NAN],
        ),
        c(
            "B FREXP_EXP: 12 = 0.75 * 2^4; a denormal is flushed (0); Inf gives -1",
            &[[f(12.0), f(-0.375), 0x0000_0001, INF]],
            "frexp_exp r0, l0",
            [4, (-1i32) as u32, 0, T],
        ),
        c(
            "B DFREXP_EXP / DFREXP_MANT: the parts of dfrexp (L7642)",
            &[[0, 0x4028_0000, 0, 0]],
            "dfrexp_exp r0.x, l0.xy\ndfrexp_mant r0.zw, l0.xy",
            [4, 0, 0, 0x3FE8_0000],
        ),
    ]);
}
