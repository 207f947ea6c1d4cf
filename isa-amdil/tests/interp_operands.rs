//! Operand semantics shared by every instruction: swizzles with 0/1 selects, source
//! modifiers in the guide's order, destination masks with forced 0/1, `_sat`, shift scale,
//! scalar ops reading `.w`, literals, constant buffers and indexed temps (chapters 2, 3, 5).

mod interp_common;
use interp_common::*;

const ONE: u32 = 0x3F80_0000;

#[test]
fn swizzles_and_source_modifiers() {
    let l = [[f(1.0), f(-2.0), f(0.25), f(4.0)]];
    run_all(&[
        c(
            "2.2.7 L653: swizzle with constant selects (1 is 1.0f even for ints)",
            &l,
            "mov r0, l0.wz01",
            [f(4.0), f(0.25), 0, ONE],
        ),
        c(
            "2.2.7 L653: 1 select in an integer op is 0x3F800000",
            &[[1, 0, 0, 0]],
            "iadd r0, l0.1111, l0.xxxx",
            [ONE + 1; 4],
        ),
        c(
            "3.6 L1005: one-letter swizzle replicates",
            &l,
            "mov r0, l0.y",
            [f(-2.0); 4],
        ),
        c(
            "2.2.7 L651: _neg per component",
            &l,
            "mov r0, l0_neg(xz)",
            [f(-1.0), f(-2.0), f(-0.25), f(4.0)],
        ),
        c(
            "2.2.7 L655: abs before neg",
            &l,
            "mov r0, l0_abs_neg(xyzw)",
            [f(-1.0), f(-2.0), f(-0.25), f(-4.0)],
        ),
        c(
            "2.2.7 L660: _invert is 1 - x",
            &l,
            "mov r0, l0_invert",
            [0, f(3.0), f(0.75), f(-3.0)],
        ),
        c(
            "2.2.7 L660: _bias is x - 0.5",
            &l,
            "mov r0, l0_bias",
            [f(0.5), f(-2.5), f(-0.25), f(3.5)],
        ),
        c(
            "2.2.7 L660: _x2 is 2x",
            &l,
            "mov r0, l0_x2",
            [f(2.0), f(-4.0), f(0.5), f(8.0)],
        ),
        c(
            "2.2.7 L660: _bx2 is 2(x - 0.5)",
            &l,
            "mov r0, l0_bx2",
            [f(1.0), f(-5.0), f(-0.5), f(7.0)],
        ),
        c(
            "2.2.7 L660: _sign",
            &[[f(3.0), f(-0.5), 0, 0x8000_0000]],
            "mov r0, l0_sign",
            [f(1.0), f(-1.0), 0, 0],
        ),
    ]);
}

#[test]
fn destination_masks_and_modifiers() {
    let l = [[f(0.5), f(1.5), f(-0.5), 0x7FFF_FFFF], [7, 7, 7, 7]];
    run_all(&[
        c(
            "3.5 L966: partial write keeps other components",
            &l,
            "mov r0, l1\nmov r0.y_w, l0",
            [7, f(1.5), 7, 0x7FFF_FFFF],
        ),
        c(
            "2.2.5 L552: forced 0 and 1 components",
            &l,
            "mov r0, l1\nmov r0.x01_, l0",
            [f(0.5), 0, ONE, 7],
        ),
        c(
            "2.2.5 L589: _sat clamps, clamp(NaN) = 0",
            &l,
            "mov_sat r0, l0",
            [f(0.5), ONE, 0, 0],
        ),
        c(
            "2.2.5 L571: shift scale _x2 then _sat",
            &l,
            "add_x2_sat r0, l0, l0.0000",
            [ONE, ONE, 0, 0],
        ),
        c(
            "2.2.5 L571: _d4",
            &[[f(8.0), f(-4.0), 0, 0]],
            "mul_d4 r0.xy, l0, l0.1111",
            [f(2.0), f(-1.0), 0, 0],
        ),
        c(
            "2.2.6 L711: source clamp",
            &l,
            "add r0.x, l0.y_sat, l0.0",
            [ONE, 0, 0, 0],
        ),
    ]);
}

#[test]
fn scalar_ops_read_w_and_broadcast() {
    // Digest 6.2 / L7265: with a full-vector source only .w is used.
    run_all(&[
        c(
            "7.11 RCP L7265",
            &[[f(2.0), f(4.0), f(8.0), f(16.0)]],
            "mov r0, l0.0000\nrcp r0.xz, l0",
            [f(0.0625), 0, f(0.0625), 0],
        ),
        c(
            "7.11 RCP L7265: swizzle picks the component",
            &[[f(2.0), f(4.0), f(8.0), f(16.0)]],
            "rcp r0.x, l0.y",
            [f(0.25), 0, 0, 0],
        ),
    ]);
}

#[test]
fn literals_constant_buffers_and_indexed_temps() {
    // dcl_literal L4087: four untyped dwords; floats as bits; redefinition-free.
    let src = "il_cs_2_0\ndcl_num_thread_per_group 4\ndcl_raw_uav_id(0)\ndcl_cb cb0[3]\n\
        dcl_indexed_temp_array x0[4]\n\
        dcl_literal l0, 1.0f, -2, 0x10, 4\n\
        dcl_literal l1, 4, 16, 0, 0\n\
        mov r0.x, vTidInGrpFlat.x\n\
        mov x0[r0.x].y, l0.z\n\
        iadd r1.x, r0.x, l0.w\n\
        mov x0[r0.x + 1], cb0[r0.x]\n\
        mov r2, x0[r0.x]\n\
        mov r3, x0[1]\n\
        mov r4.x, cb0[r1.x].x\n\
        mov r4.y, cb0[2].w\n\
        mov r4.z, l0.x\n\
        mov r4.w, l0.y\n\
        imul r5.x, r0.x, l1.y\n\
        uav_raw_store_id(0) mem, r5.x, r4\n\
        end\n";
    let mut d = isa_amdil::interp::Dispatch::new([1, 1, 1]);
    d.uavs.insert(0, vec![0; 64]);
    d.cbs
        .insert(0, bytes(&[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]));
    isa_amdil::interp::run_source(src, &mut d).expect("runs");
    let w = words(&d.uavs[&0]);
    for i in 0..4 {
        // cb0[i + 4] is past the buffer: 0 (conventions table); cb0[2].w = 12.
        assert_eq!(
            w[4 * i..4 * i + 4],
            [0, 12, ONE, (-2i32) as u32],
            "item {i}"
        );
    }
}

#[test]
fn indexed_temp_reads_and_writes() {
    // dcl_indexed_temp_array L4007: x#[n] with immediate and register-relative index.
    let r = try_regs(
        &[[2, 5, 6, 7]],
        "mov x0[0], l0.0000\nmov x0[l0.x].y, l0.y\nmov x0[3], l0\nmov r1.x, l0.x\n\
         iadd r1.y, r1.x, l0.x_neg(xyzw)\nmov r0, x0[r1.x]\nmov r2, x0[r1.x + 1]\n\
         mov r3, x0[r1.y]",
    );
    let body_ok = r.map(|r| (r[0], r[2], r[3]));
    // declaration has to precede use; prepend it through the literal helper: instead run
    // a whole program below.
    assert!(
        body_ok.is_err(),
        "undeclared x0 must be an error, not a silent 0"
    );
    let src = program(
        &[[2, 5, 6, 7]],
        "dcl_indexed_temp_array x0[4]\nmov x0[0], l0.0000\nmov x0[l0.x].y, l0.y\nmov x0[3], l0\n\
         mov r1.x, l0.x\niadd r1.y, r1.x, l0.x_neg(xyzw)\nmov r0, x0[r1.x]\nmov r2, x0[r1.x + 1]\n\
         mov r3, x0[r1.y]",
    );
    let (d, _) = run_kernel(&src, [1, 1, 1], &[(0, vec![0; 64])]).expect("runs");
    let w = words(&d.uavs[&0]);
    assert_eq!(w[0..4], [0, 5, 0, 0], "x0[2] has only .y written");
    assert_eq!(w[8..12], [2, 5, 6, 7], "x0[3]");
    assert_eq!(w[12..16], [0, 0, 0, 0], "x0[0]");
}
