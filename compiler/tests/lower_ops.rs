//! Per-opcode-family lowering tests: each tiny kernel is lowered, verified, run on the IR
//! interpreter and compared with the IL interpreter on seeded inputs that include the
//! edge values (±0, denormals, ±Inf, NaN, INT_MIN, all ones).
//!
//! The wrapper gives every work-item four input vec4s `r1..r4` (from uav0) and stores
//! `r5..r8` (to uav1); registers the body does not write keep the value 0.

use std::collections::BTreeMap;

use ilc::lower::validate::{self, Buffers, Tolerance};
use ilc_test_support::Rng;

const SPECIALS: [u32; 14] = [
    0,
    0x8000_0000,
    0x0000_0001,
    0x8040_0000,
    0x7F80_0000,
    0xFF80_0000,
    0x7FC0_0000,
    0x3F80_0000,
    0xBF80_0000,
    0x8000_0000 | 0x0F,
    0xFFFF_FFFF,
    0x7FFF_FFFF,
    0x3F00_0000,
    0x4F80_0000,
];

fn inputs(seed: u64, words: usize) -> Vec<u8> {
    let mut rng = Rng::new(seed);
    let mut out = Vec::with_capacity(words * 4);
    for _ in 0..words {
        let s = rng.next_u64();
        let w = match s % 6 {
            0 => SPECIALS[(s >> 8) as usize % SPECIALS.len()],
            1 => (s >> 12) as u32 % 40,
            2 | 3 => ((((s >> 8) % 4001) as f32 - 2000.0) / 64.0).to_bits(),
            _ => (s >> 20) as u32,
        };
        out.extend_from_slice(&w.to_le_bytes());
    }
    out
}

fn wrap(decls: &str, body: &str) -> String {
    format!(
        "il_cs_2_0
dcl_num_thread_per_group 16, 1, 1
dcl_raw_uav_id(0)
dcl_raw_uav_id(1)
dcl_literal l100, 64, 16, 32, 48
{decls}
imul r0.x, vAbsTidFlat.x, l100.x
uav_raw_load_id(0) r1, r0.x
iadd r0.y, r0.x, l100.y
uav_raw_load_id(0) r2, r0.y
iadd r0.z, r0.x, l100.z
uav_raw_load_id(0) r3, r0.z
iadd r0.w, r0.x, l100.w
uav_raw_load_id(0) r4, r0.w
{body}
uav_raw_store_id(1) mem, r0.x, r5
uav_raw_store_id(1) mem, r0.y, r6
uav_raw_store_id(1) mem, r0.z, r7
uav_raw_store_id(1) mem, r0.w, r8
end
"
    )
}

/// Lowers `src`, verifies, and compares IR and IL results over several seeds.
fn check_src(src: &str, tol: Tolerance, extra: &[(u32, Vec<u8>)]) {
    let (prog, diags) = isa_amdil::parse(src);
    let prog = prog.unwrap_or_else(|| panic!("parse: {diags:?}\n{src}"));
    let func = ilc::lower::lower(&prog).unwrap_or_else(|e| panic!("lower: {e}\n{src}"));
    if let Err(e) = ilc_passes::verifier::verify_function(&func) {
        panic!("verifier:\n{}", e.display_with(&func));
    }
    for seed in [3u64, 77, 1234, 99_991] {
        let mut bufs = Buffers::default();
        bufs.uavs.insert(0, inputs(seed, 2 * 16 * 16));
        bufs.uavs.insert(1, vec![0u8; 2 * 16 * 64]);
        for (id, b) in extra {
            if *id >= 100 {
                bufs.cbs.insert(id - 100, b.clone());
            } else {
                bufs.uavs.insert(*id, b.clone());
            }
        }
        let tols: BTreeMap<u32, Tolerance> = [(1, tol)].into_iter().collect();
        if let Err(e) = validate::check_equivalent(&prog, &func, [2, 1, 1], &bufs, &tols) {
            let mut ir = String::new();
            ilc_passes::ir::write_function(&mut ir, &func).unwrap();
            panic!("seed {seed}: {e}\n{src}\n{ir}");
        }
    }
}

fn check(body: &str) {
    check_src(&wrap("", body), Tolerance::Exact, &[]);
}

fn check_tol(body: &str, tol: Tolerance) {
    check_src(&wrap("", body), tol, &[]);
}

#[test]
fn float_arithmetic_and_modifiers() {
    check(
        "add r5, r1, r2
sub r6, r1_neg(xz), r2_abs
mul r7, r1, r2
mul_ieee r8, r1.wzyx, r2.xxyy
",
    );
    check(
        "mad r5, r1, r2, r3
mad_ieee r6, r1, r2, r3
fma r7, r1, r2, r3
mov r8, r1_invert
",
    );
    check(
        "min r5, r1, r2
max r6, r1, r2
clamp r7, r1, r2, r3
mov r8.x, r1.x_bias
mov r8.y, r1.y_x2
mov r8.z, r1.z_sign
mov r8.w, r1.w_bx2_abs_sat
",
    );
    check(
        "abs r5, r1
sgn r6, r1
frc r7, r1
lrp r8, r1, r2, r3
",
    );
}

#[test]
fn float_rounding_and_division() {
    check(
        "flr r5, r1
round_nearest r6, r1
round_plusinf r7, r1
round_z r8, r1
",
    );
    check(
        "rnd r5, r1
div r6, r1, r2
div_zeroop(zero) r7, r1, r2
div_zeroop(infinity) r8, r1, r2
",
    );
}

#[test]
fn destination_masks_forced_values_sat_and_scale() {
    check(
        "mov r5.x_z_, r1
mov r5.y, r1.1
mov r6.x01_, r2
add_sat r7, r1, r2
mul_x2 r8.xy, r1, r2
mul_d4 r8.zw, r1, r2
",
    );
    check(
        "mov r5, r1.0001
mov r6, r2.yyyy
mov r6.w, r2.0
add r7.xy__, r1.xxxx, r2.yyyy
mov r8, r5
mov r5.xyzw, r5.wzyx
",
    );
}

#[test]
fn float_compares_set_cmp_cmov() {
    check(
        "eq r5, r1, r2
ne r6, r1, r2
ge r7, r1, r2
lt r8, r1, r2
",
    );
    check(
        "set_relop(ge) r5, r1, r2
cmp_relop(lt)_cmpval(0.5) r6, r1, r2, r3
mov r7, r3
cmov r7, r1, r2
cmov_logical r8, r1, r2, r3
",
    );
}

#[test]
fn scalar_and_vector_transcendentals() {
    check_tol(
        "rcp r5, r1
rsq r6, r2
sqrt r7, r3
log r8, r4
",
        Tolerance::F32Ulp(2),
    );
    check_tol(
        "exp_vec r5, r1
log_vec r6, r2
rsq_vec r7, r3
sqrt_vec r8, r4
",
        Tolerance::F32Ulp(2),
    );
    check_tol(
        "sin_vec r5, r1.x
cos_vec r6, r1.y
rcp_vec r7, r3
rcp_zeroop(zero) r8, r1
",
        Tolerance::F32Abs(1e-5),
    );
}

#[test]
fn dot_products_and_vector_ops() {
    check(
        "dp2 r5, r1, r2
dp3 r6, r1, r2
dp4 r7, r1, r2
dp4_ieee r8, r1, r2
",
    );
    check(
        "dp2add r5, r1, r2, r3
crs r6, r1, r2
dst r7, r1, r2
mov r8, r1
",
    );
    check(
        "faceforward r5, r1, r2, r3
reflect r6, r1, r2
reflect_normalize r7, r3, r2
len r8, r1
",
    );
    check(
        "pireduce r5, r1
pireduce r6, r2
mov r7, r3
mov r8, r4
",
    );
    // mmul reads its matrix from src1 on: r2 -> r2..r5 (r5, the result, is still 0).
    check(
        "mmul r5, r1, r2
mmul_matrix(3x2) r6, r4, r1
mmul_matrix(4x3) r7.xyz1, r3, r1
expp r8, r4
",
    );
    check(
        "logp r5, r1
logp_zeroop(infinity) r6, r2.x
expp r7, r3.y
mmul_matrix(3x3) r8.xy0w, r1, r2
",
    );
}

#[test]
fn conversions() {
    check(
        "ftoi r5, r1
ftou r6, r1
itof r7, r2
utof r8, r2
",
    );
    check(
        "f2f16 r5, r1
f162f r6, r2
mov r7, r5
mov r8, r6
",
    );
    // The conversions known only from the Appendix B enumeration, as the interpreter
    // defines them: floor / ceiling then ftoi; doubles truncated and saturated.
    check(
        "ftoi_flr r5, r1
ftoi_rpi r6, r1
dtoi r7, r2
dtou r8.xz, r3.zw
",
    );
    check(
        "frexp_mant r5, r1
frexp_exp r6, r1
dfrexp_mant r7, r2.zw
dfrexp_exp r8, r3
",
    );
    check(
        "dfrexp r5, r1.zw
dfrexp r6, r2
mov r7, r3
mov r8, r4
",
    );
    check(
        "itod r5.xy, r1.x
utod r5.zw, r1.y
itod r6, r2.w
utod r7, r3.z
dtoi r8, r5.zw
",
    );
}

#[test]
fn three_operand_min_med_max() {
    check(
        "min3 r5, r1, r2, r3
max3 r6, r1, r2, r3
med3 r7, r1, r2, r3
med3 r8, r3, r1, r2
",
    );
    check(
        "imin3 r5, r1, r2, r3
imax3 r6, r1, r2, r3
imed3 r7, r1, r2, r3
imed3 r8, r3, r1, r2
",
    );
    check(
        "umin3 r5, r1, r2, r3
umax3 r6, r1, r2, r3
umed3 r7, r1, r2, r3
umed3 r8, r3, r1, r2
",
    );
}

#[test]
fn integer_arithmetic() {
    check(
        "iadd r5, r1, r2_neg(xyzw)
imul r6, r1, r2
imad r7, r1, r2, r3
inegate r8, r1_abs
",
    );
    check(
        "imul_high r5, r1, r2
umul_high r6, r1, r2
udiv r7, r1, r2
umod r8, r1, r2
",
    );
    check(
        "imul24 r5, r1, r2
imad24 r6, r1, r2, r3
umul24 r7, r1, r2
umad24 r8, r1, r2, r3
",
    );
    check(
        "imul24_high r5, r1, r2
umul24_high r6, r1, r2
icarry r7, r1, r2
iborrow r8, r1, r2
",
    );
}

#[test]
fn integer_logic_shifts_compares() {
    check(
        "and r5, r1, r2
ior r6, r1, r2
ixor r7, r1, r2
inot r8, r1
",
    );
    check(
        "ishl r5, r1, r2
ishr r6, r1, r2
ushr r7, r1, r2
imin r8.xy, r1, r2
umax r8.zw, r1, r2
",
    );
    check(
        "ieq r5, r1, r2
ine r6, r1, r1
ige r7, r1, r2
ult r8, r1, r2
",
    );
}

#[test]
fn bit_operations() {
    check(
        "icbits r5, r1
ffb_hi r6, r1
ffb_lo r7, r1
ffb_shi r8, r1
",
    );
    check(
        "ibit_extract r5, r1, r2, r3
ubit_extract r6, r1, r2, r3
ubit_insert r7, r1, r2, r3, r4
ubit_reverse r8, r1
",
    );
    check(
        "bitalign r5, r1, r2, r3
bytealign r6, r1, r2, r3
sad r7, r1, r2, r3
sad4 r8, r1, r2, r3
",
    );
    check(
        "unpack0 r5, r1
unpack1 r6, r1
unpack2 r7, r1
unpack3 r8, r1
",
    );
}

#[test]
fn doubles_and_64_bit_integers() {
    check_tol(
        "dadd r5, r1, r2
dmul r6, r1, r2_neg(y)
dmad r7, r1, r2, r3
ddiv r8, r1, r2_abs
",
        Tolerance::F64Exact,
    );
    check_tol(
        "dmax r5, r1, r2
dmin r6, r1, r2
dsqrt r7, r1_abs
drcp r8, r1
",
        Tolerance::F64Exact,
    );
    check_tol(
        "deq r5, r1, r2
dne r6, r1, r2
dge r7, r1, r2
dlt r8, r1, r2
",
        Tolerance::F64Exact,
    );
    check_tol(
        "d2f r5, r1
f2d r6, r1
dmovc r7, r1, r2, r3
drsq_zeroop(zero) r8, r1
",
        Tolerance::F64Exact,
    );
    check_tol(
        "i64add r5, r1, r2
i64mul r6, r1, r2
i64shl r7, r1, r2
u64shr r8.xy, r1, r2
i64ge r8.zw, r1, r2
",
        Tolerance::F64Exact,
    );
}

#[test]
fn control_flow_if_loop_switch() {
    // 64-bit division: a loop in the IR; the divisor's high word is sometimes masked so
    // small divisors (and 0) occur with random dividends.
    check(
        "and r3.y, r3.y, r4.x
u64div r5.xy, r1.xy, r2.xy
u64mod r5.zw, r1.zw, r3.xy
i64div r6.xy, r1.zw, r3.xy
i64mod r6.zw, r2.xy, r3.xy
i64div r7.xy, r1.xy, r1.zw
i64mod r7.zw, r4.zw, r1.xy
u64div r8.xy, r2.zw, r3.xy
u64mod r8.zw, r1.xy, r1.xy
",
    );
    check(
        "if_logicalnz r1.x
  mov r5, r1
else
  mov r5, r2
endif
ifc_relop(lt) r1.y, r2.y
  add r6, r1, r2
endif
mov r7, r3
",
    );
    check(
        "ubit_extract r9.x, l100.z, l100.x, r1.x
mov r5, l100.0000
whileloop
  ieq r9.y, r9.x, l100.0000
  break_logicalnz r9.y
  iadd r5.x, r5.x, r2.x
  iadd r9.x, r9.x, l100.y_neg(x)
  ult r9.z, r9.x, l100.w
  continue_logicalnz r9.z
  iadd r5.y, r5.y, l100.y
endloop
mov r6, r5
",
    );
    check(
        "and r9.x, r1.x, l100.y
switch r9.x
case 0
  mov r5.x, r1.x
case 1
  mov r5.y, r1.y
  break
case 3
  mov r5.z, r1.z
  break
default
  mov r5.w, r1.w
  break
endswitch
mov r6, r5
",
    );
}

#[test]
fn nested_loops_with_breakc_and_conditional_returns() {
    check(
        "mov r9.x, l100.0000
whileloop
  breakc_relop(ge) r9.x, l100.y
  mov r9.y, l100.0000
  whileloop
    iadd r9.y, r9.y, l100.1111
    uge r9.z, r9.y, l100.y
    break_logicalnz r9.z
    add r5.x, r5.x, r1.x
  endloop
  iadd r9.x, r9.x, l100.1111
  mov r9.x, r9.x
  add r6, r6, r2
endloop
",
    );
}

#[test]
fn functions_inlined() {
    let src = wrap(
        "",
        "mov r20, r1
call 7
mov r5, r21
call_logicalnz r2.x, 7
mov r6, r21
endmain
func 7
  ret_logicalz r20.y
  add r21, r20, r20
  mov r20, r21
ret
",
    );
    // `wrap` appends the stores after the body, so put them before `endmain` instead.
    let src = src.replace(
        "endmain\nfunc 7",
        "uav_raw_store_id(1) mem, r0.x, r5\nuav_raw_store_id(1) mem, r0.y, r6\nendmain\nfunc 7",
    );
    let src = src.replace(
        "ret\n\nuav_raw_store_id(1) mem, r0.x, r5\nuav_raw_store_id(1) mem, r0.y, r6\nuav_raw_store_id(1) mem, r0.z, r7\nuav_raw_store_id(1) mem, r0.w, r8\nend\n",
        "ret\n",
    );
    check_src(&src, Tolerance::Exact, &[]);
}

#[test]
fn indexed_temps_constant_and_dynamic() {
    let src = wrap(
        "dcl_indexed_temp_array x0[4]
dcl_indexed_temp_array x1[4]",
        "mov x0[0], r1
mov x0[1], r2
add r5, x0[0], x0[1]
mov r6, x0[3]
and r9.x, r1.x, l100.w
ushr r9.x, r9.x, l100.z_neg(x)
mov x1[0], r1
mov x1[1], r2
mov x1[2], r3
mov x1[r9.x], r4
mov r7, x1[r9.x+1]
mov r8, x1[2]
",
    );
    check_src(&src, Tolerance::Exact, &[]);
}

#[test]
fn constant_buffers_direct_and_indexed() {
    let cb: Vec<u8> = inputs(5, 4 * 8);
    let src = wrap(
        "dcl_cb cb0[8]",
        "add r5, r1, cb0[2]
and r9.x, r1.x, l100.0000
ushr r9.y, r2.x, l100.z
and r9.y, r9.y, l100.w
ushr r9.y, r9.y, l100.w
mov r6, cb0[r9.y]
mov r7, cb0[r9.y+1].wzyx
mov r8, cb0[7]
",
    );
    check_src(&src, Tolerance::Exact, &[(100, cb)]);
}

#[test]
fn system_values_3d_group() {
    let src = "il_cs_2_0
dcl_num_thread_per_group 4, 2, 2
dcl_raw_uav_id(1)
dcl_literal l0, 64, 16, 32, 48
imul r0.x, vAbsTidFlat.x, l0.x
uav_raw_store_id(1) mem, r0.x, vTidInGrp
iadd r0.y, r0.x, l0.y
uav_raw_store_id(1) mem, r0.y, vAbsTid
iadd r0.z, r0.x, l0.z
uav_raw_store_id(1) mem, r0.z, vThreadGrpId
iadd r0.w, r0.x, l0.w
mov r1.x, vTidInGrpFlat.x
mov r1.y, vThreadGrpIdFlat.x
mov r1.zw, vAbsTidFlat.xx
uav_raw_store_id(1) mem, r0.w, r1
end
";
    check_src(src, Tolerance::Exact, &[(0, vec![0; 16])]);
}

#[test]
fn lds_and_atomics() {
    let src = wrap(
        "dcl_lds_id(0) 1024",
        "and r9.x, vTidInGrpFlat.x, l100.w
ishl r9.y, vTidInGrpFlat.x, l100.1111
ishl r9.y, r9.y, l100.1111
lds_store_id(0) r9.y, r1.x
fence_threads_lds
ixor r9.z, r9.y, l100.y
lds_load_id(0) r5.x, r9.z
lds_add_id(0) r9.x, r2.x
fence_threads_lds
lds_load_id(0) r5.y, r9.x
lds_read_add_id(0) r6.x, r9.y, r2.y
uav_add_id(1) l100.0000, r1.x
",
    );
    check_src(&src, Tolerance::Exact, &[]);
}

#[test]
fn structured_and_sub_dword_uav_access() {
    let src = "il_cs_2_0
dcl_num_thread_per_group 16, 1, 1
dcl_struct_uav_id(0) 12
dcl_raw_uav_id(1)
dcl_literal l0, 64, 4, 0, 2
dcl_literal l1, 10, 0, 0, 0
mov r0.x, vAbsTidFlat.x
mov r0.y, l0.y
uav_struct_load_id(0) r1.xyz, r0.xy
imul r2.x, r0.x, l0.x
uav_raw_store_id(1) mem.xy_w, r2.x, r1
iadd r2.y, r2.x, l0.w
uav_ubyte_load_id(1) r3.x, r2.y
uav_short_load_id(1) r3.y, r2.y
iadd r2.z, r2.x, l1.x
uav_byte_store_id(1) mem, r2.z, r1.x
uav_struct_store_id(0) mem.x, r0.xw, r3.y
end
";
    let mut s = 11u64;
    let buf: Vec<u8> = (0..4096)
        .map(|_| {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1);
            (s >> 33) as u8
        })
        .collect();
    check_src(src, Tolerance::Exact, &[(0, buf.clone()), (1, buf)]);
}

#[test]
fn unsupported_constructs_are_diagnosed_with_opcode_and_line() {
    let src = "il_cs_2_0
dcl_num_thread_per_group 1
mov r0, r1
sample_c_resource(0)_sampler(0) r1, r0, r0.x
call 3
endmain
func 3
call 3
ret
end
";
    let (prog, _) = isa_amdil::parse(src);
    let prog = prog.expect("parses");
    let err = ilc::lower::lower(&prog).expect_err("must fail");
    let text = err.to_string();
    assert!(text.contains("line 4:1: `sample_c`"), "{text}");
    assert!(text.contains("guide section 7."), "{text}");
    assert!(text.contains("line 8:1: `call`"), "{text}");
    assert!(text.contains("recursive"), "{text}");
}

#[test]
fn neighbor_exchange_lowers_to_quad_shuffles() {
    let src = |group: u32| {
        format!(
            "il_cs_2_0
dcl_num_thread_per_group {group}
dcl_lds_size_per_thread 4
dcl_lds_sharing_mode _wavefrontRel
dcl_raw_uav_id(0)
mov r0, vTidInGrpFlat.xxxx
lds_write_vec mem.xyzw, r0
fence_threads_lds
lds_read_vec_neighborExch r1, r0.xy
uav_raw_store_id(0) mem.x, r0.x, r1.x
end
"
        )
    };
    // Three butterfly rounds, each one cross-lane exchange.
    let (prog, _) = isa_amdil::parse(&src(64));
    let func = ilc::lower::lower(&prog.expect("parses")).expect("lowers");
    let text = func.to_string();
    assert_eq!(text.matches("quad_shuffle").count(), 3, "{text}");
    // A group that is not whole neighbourhoods of four is diagnosed at the instruction.
    let (prog, _) = isa_amdil::parse(&src(6));
    let err = ilc::lower::lower(&prog.expect("parses")).expect_err("must fail");
    let text = err.to_string();
    assert!(text.contains("line 9:1"), "{text}");
    assert!(text.contains("multiple of 4"), "{text}");
}

#[test]
fn only_read_components_materialize() {
    let src = "il_cs_2_0
dcl_num_thread_per_group 64
dcl_raw_uav_id(0)
mov r0, vAbsTidFlat.xxxx
uav_raw_load_id(0) r1, r0.x
add r2, r1, r1
mul r3, r2, r1
uav_raw_store_id(0) mem.x, r0.x, r3.x
end
";
    let (prog, _) = isa_amdil::parse(src);
    let mut func = ilc::lower::lower(&prog.unwrap()).unwrap();
    ilc_passes::dce::run(&mut func);
    let mut text = String::new();
    ilc_passes::ir::write_function(&mut text, &func).unwrap();
    assert_eq!(text.matches("fadd").count(), 1, "{text}");
    assert_eq!(text.matches("fmul").count(), 1, "{text}");
    assert_eq!(text.matches("load.").count(), 1, "{text}");
}

#[test]
fn long_and_deeply_nested_programs_lower_without_recursion() {
    let mut body = String::new();
    for _ in 0..3000 {
        body.push_str("if_logicalnz r1.x\niadd r5.x, r5.x, r1.y\n");
    }
    for _ in 0..3000 {
        body.push_str("else\nixor r5.y, r5.y, r1.x\nendif\n");
    }
    for _ in 0..2000 {
        body.push_str("whileloop\nbreak_logicalz r5.z\nendloop\niadd r6.x, r6.x, r5.x\n");
    }
    let src = wrap("", &body);
    let (prog, _) = isa_amdil::parse(&src);
    let func = ilc::lower::lower(&prog.expect("parses")).expect("lowers");
    assert!(ilc_passes::verifier::verify_function(&func).is_ok());
}

#[test]
fn media_packing() {
    check(
        "sadhi r5, r1, r2, r3
u4lerp r6, r1, r2, r3
f_2_u4 r7, r1
mov r8, r7
",
    );
}

#[test]
fn immediate_constant_buffer_direct_and_indexed() {
    let src = wrap(
        "dcl_literal l101, 3, 0, 0, 0",
        "and r9.x, r1.x, l101.x
mov r5, icb[r9.x]
mov r6, icb[1]
mov r7, icb[r9.x+2].wzyx
mov r8, icb[9]
",
    );
    let (prog, _) = isa_amdil::parse(&src);
    let mut prog = prog.expect("parses");
    // The text form has no icb declaration; the binary form carries the data.
    let mut dcl = isa_amdil::ast::Instruction::new(isa_amdil::Opcode::DclConstBuffer);
    dcl.payload =
        isa_amdil::ast::Payload::ImmConstBuffer((0..16).map(|i| i * 0x0101 + 7).collect());
    prog.statements.insert(1, dcl);
    let func = ilc::lower::lower(&prog).unwrap_or_else(|e| panic!("{e}"));
    assert!(ilc_passes::verifier::verify_function(&func).is_ok());
    let mut bufs = Buffers::default();
    bufs.uavs.insert(0, inputs(17, 2 * 16 * 16));
    bufs.uavs.insert(1, vec![0u8; 2 * 16 * 64]);
    validate::check_equivalent(&prog, &func, [2, 1, 1], &bufs, &BTreeMap::new())
        .unwrap_or_else(|e| panic!("{e}"));
}
