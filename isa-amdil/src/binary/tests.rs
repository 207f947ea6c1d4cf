//! Unit tests of the binary token stream: exact words for the guide's examples, round trips,
//! and decoding of arbitrary words.

use super::*;
use crate::parse;

fn rt(src: &str) -> Vec<u32> {
    let (p, d) = parse(src);
    assert!(d.iter().all(|d| !d.is_error()), "{d:?}");
    let p = p.unwrap();
    let words = encode(&p).unwrap();
    let back = decode(&words).unwrap();
    assert_eq!(back, normalize(&p), "{}", normalize(&p));
    assert_eq!(back.to_string(), normalize(&p).to_string());
    words
}

#[test]
fn header_and_simple_ops() {
    let w = rt("il_cs_2_0\nmov r1, r2\nend\n");
    assert_eq!(w[0], 12); // IL_LANG_DX11_CS
    assert_eq!(w[1], 0x0003_0200);
    assert_eq!(w[2], 71);
    assert_eq!(w[3], 4 << 16 | 1);
    assert_eq!(w[4], 4 << 16 | 2);
    assert_eq!(w[5], 40);
}

#[test]
fn guide_example_itemp() {
    // `mov r0, x5[6].y` : ITEMP #5, immediate 6, swizzle yyyy.
    let w = rt("il_cs_2_0\nmov r0, x5[6].y\n");
    assert_eq!(&w[4..7], &[30 << 16 | 1 << 22 | 1 << 26 | 5, 0x1111, 6]);
}

#[test]
fn guide_example_register_relative_constant_buffer() {
    // `cb0[r1.x+5]`: CONST_BUFF #0, relative_address = 2, immediate present; then the index
    // register r1 with a modifier selecting .xxxx; then the immediate 5.
    let w = rt("il_cs_2_0\nmov r0, cb0[r1.x+5]\n");
    assert_eq!(
        &w[4..8],
        &[
            31 << 16 | 2 << 23 | 1 << 26,
            4 << 16 | 1 << 22 | 1,
            0x0000,
            5
        ]
    );
}

#[test]
fn relative_index_and_modifiers() {
    rt("il_cs_2_0\nadd_x2_sat r0.x_z0, cb0[r1.y+5].x000_neg(x)_abs, x1[r2.w]_bx2_divcomp(y)\n");
    rt("il_cs\nmov r70000, r1\nmov r0, cb0[r1.x+2][r3.z-4]\nmov r1, v1[2][3]\n");
}

#[test]
fn payloads_and_controls() {
    rt("il_cs_2_0\ndcl_num_thread_per_group 64, 2\ndcl_literal l3, 1.0, 2, 3, 4\ndcl_cb cb2[16]\n\
        dcl_lds_id(3) 1024\ndcl_struct_lds_id(1) 16, 8\ndcl_global_flags refactoringAllowed\n\
        uav_raw_load_id(11)_cached r0, r1.x\nfence_threads_lds_memory\nifc_relop(lt) r0.x, r1.x\nendif\n\
        func 3\ncall_logicalnz r0.x, 3\ncase -5\ncmp_relop(ne)_cmpval(0.0) r0, r1, r2, r3\n\
        div_zeroop(fltmax)_prec(xy) r0, r1, r2\ndcl_typeless_uav_id(12)_stride(4)_length(4)_access(read_write)\n\
        dcl_lds_sharing_mode _wavefrontRel\nbufinfo_resource(0)_uav r11\nmcall(1) (r0), (r1)\nffb_shi r0, r1\n");
}

#[test]
fn resource_and_typed_uav_declarations_use_the_guide_layout() {
    let w = rt("il_ps_2_0\ndcl_resource_id(3)_type(2d, unnorm)_fmtx(float)_fmty(uint)_fmtz(sint)_fmtw(unorm)\n");
    assert_eq!(w[0], 9); // IL_LANG_DX11_PS
    assert_eq!(
        w[2],
        Opcode::DclResource.code() as u32 | (3 | 2 << 8) << 16 | 1 << 31
    );
    assert_eq!(w[3], 5 << 20 | 4 << 23 | 3 << 26 | 2 << 29);
    let w = rt("il_cs_2_0\ndcl_uav_id(11)_type(buffer)_fmtx(uint)\n");
    assert_eq!(
        w[2],
        Opcode::DclUav.code() as u32 | (11 | 4 << 4 | 7 << 8) << 16
    );
    // Forms without a binary field survive through the extension comment.
    rt("il_cs_2_0\ndcl_uav_id(1)_type(weird)_fmtx(unknown)\ndcl_resource_id(0)\n");
}

#[test]
fn modifier_dwords_and_address_offsets() {
    // Primary modifier (bit 31) then the address offset (control bit 13) follow the opcode.
    let w =
        rt("il_cs_2_0\nfetch4_resource(1)_sampler(2)_compselect(y)_aoffimmi(1,-0.5,0) r0, r1\n");
    assert_eq!(
        w[2],
        Opcode::Fetch4.code() as u32 | (1 | 2 << 8 | 1 << 13) << 16 | 1 << 31
    );
    assert_eq!(&w[3..5], &[1, 2 | 0xFF << 8]);
    let w = rt("il_cs_2_0\nsrv_struct_load_id(2)_primod(0x4e) r0, r1.xy\n");
    assert_eq!(
        &w[2..4],
        &[
            Opcode::SrvStructLoad.code() as u32 | 2 << 16 | 1 << 31,
            0x4e
        ]
    );
    // A spelling that does not round-trip exactly stays in the extension comment.
    rt("il_cs_2_0\nload_resource(0)_aoffimmi(1.0,0,0) r0, r1\nmov_primod(0X4E) r0, r1\n");
}

#[test]
fn typed_and_typeless_uav_declarations_carry_extra_tokens() {
    let w = rt("il_cs_2_0\ndcl_typeless_uav_id(12)_stride(4)_length(4)_access(read_write)\n");
    // The extension comment keeps _length/_access; the declaration itself is id + 2 words.
    let n = w.len();
    assert_eq!(
        &w[n - 3..],
        &[Opcode::DclTypelessUav.code() as u32 | 12 << 16, 4, 0]
    );
    let w = rt("il_cs_2_0\ndcl_typed_uav_id(3)_type(2d)_fmtx(float)\n");
    assert_eq!(
        &w[2..],
        &[Opcode::DclTypedUav.code() as u32 | 3 << 16, 5 | 2 << 4]
    );
}

#[test]
fn immediate_constant_buffer() {
    let w = rt("il_cs_2_0\ndcl_cb icb[2] = {1, 2, 0x3, 4.0, 5}\nmov r0, icb[1].y\n");
    assert_eq!(
        &w[2..9],
        &[
            Opcode::DclConstBuffer.code() as u32 | 1 << 31,
            5,
            1,
            2,
            3,
            0x4080_0000,
            5
        ]
    );
}

#[test]
fn ext_resource_forms_take_two_more_sources() {
    let w = rt("il_cs_2_0\nsample_l_ext_resource(1)_sampler(2) r0, r1, r2.x, r3.x, r4.x\n");
    // resource 1, sampler 2, indexed-args bit 28.
    assert_eq!(
        w[2],
        Opcode::SampleL.code() as u32 | (1 | 2 << 8 | 1 << 12) << 16
    );
}

#[test]
fn decode_garbage_never_panics() {
    let mut rng = ilc_test_support::Rng::new(0x1234_5678);
    for len in 0..300 {
        let mut v = vec![0u32, 0x0003_0200];
        for _ in 0..len % 23 {
            // Half of the words small: opcode numbers and short tokens.
            let x = rng.next_u64() as u32;
            v.push(if x & 1 == 0 { x & 0x1FF } else { x });
        }
        let _ = decode(&v);
    }
    assert!(decode(&[]).is_err());
    assert_eq!(decode(&[0, 0x0003_0200, 71]).unwrap_err().offset, 3);
}

#[test]
fn r7xx_lds_controls_use_the_guide_bits() {
    // LDS_READ_VEC: sharing mode in control bits 17:16, neighborExch bit 18 (L4924).
    let w = rt("il_cs_2_0\nlds_read_vec_neighborExch_sharingMode(abs) r1, r0.xy\n");
    assert_eq!(w[2], Opcode::LdsReadVec.code() as u32 | (1 | 4) << 16);
    // LDS_WRITE_VEC: _lOffset in bits 23:18 (L4946).
    let w = rt("il_cs_2_0\nlds_write_vec_lOffset(8) mem.xy__, r0\n");
    assert_eq!(w[2], Opcode::LdsWriteVec.code() as u32 | 8 << 18);
    // DCL_LDS_SHARING_MODE: the mode is the control field (L4066).
    let w =
        rt("il_cs_2_0\ndcl_lds_sharing_mode _wavefrontAbs\ndcl_lds_sharing_mode _wavefrontRel\n");
    assert_eq!(
        w[2..],
        [
            Opcode::DclLdsSharingMode.code() as u32 | 1 << 16,
            Opcode::DclLdsSharingMode.code() as u32
        ]
    );
    // An explicit relative mode (0, the same bits as none) keeps its text.
    rt("il_cs_2_0\nlds_read_vec_sharingMode(rel) r1, r0.xy\n");
}

#[test]
fn input_and_output_declarations_carry_usage_and_interpolation() {
    let op = |o: Opcode, ctl: u32| o.code() as u32 | ctl << 16;
    // vWinCoord: usage pos (0), interp linear_noperspective (4) in control bits 7:5 (L4026).
    let w = rt("il_ps_2_0\ndcl_input_position_interp(linear_noperspective) vWinCoord0.xy__\n");
    assert_eq!(w[2], op(Opcode::DclInput, 4 << 5));
    // A v# without a usage is generic (6); the guide's short mode names are accepted.
    let w = rt("il_ps_2_0\ndcl_input_interp(noperspective)_center v0.xy__\n");
    assert_eq!(w[2], op(Opcode::DclInput, 6 | 4 << 5 | 1 << 8));
    let w = rt("il_ps_2_0\ndcl_output_generic o0\ndcl_output_usage(generic) o1\ndcl_output o2\n");
    let o = op(Opcode::DclOutput, 6);
    assert_eq!([w[2], w[4], w[6]], [o, o, o]);
    // Decoding names the usage and the long interpolation name.
    let text = decode(&w).unwrap().to_string();
    assert!(text.contains("dcl_output_generic o1"), "{text}");
    let w = rt("il_ps_2_0\ndcl_input_usage(vertexid)_interp(constant) v3.x\n");
    assert_eq!(w[2], op(Opcode::DclInput, 10 | 1 << 5));
}

/// The table built by the compiler gives each family its layout, the mnemonic tests
/// included (`sample*`, `uav_*`/`lds_*` ids, `dcl_*` declarations of ids).
#[test]
fn layouts_from_the_built_table() {
    use crate::opcodes::Opcode::*;
    for (op, want) in [
        (Mov, Layout::None),
        (UavRawLoad, Layout::RawLoad),
        (UavRawStore, Layout::Id),
        (LdsReadVec, Layout::OwnerLds),
        (DclLdsSizePerThread, Layout::CtrlNumber),
        (DclRawUav, Layout::Id),
        (DclStructLds, Layout::Id),
        (DclLds, Layout::Id),
        (DclLiteral, Layout::None),
        (Sample, Layout::Sample),
        (Fence, Layout::Fence),
    ] {
        assert_eq!(layout(op), want, "{op:?}");
    }
    use crate::opcodes::const_bytes::{contains, same, starts_with};
    assert!(contains(b"dcl_raw_uav", b"uav") && contains(b"uav", b"uav"));
    assert!(!contains(b"ua", b"uav") && contains(b"x", b""));
    assert!(starts_with(b"lds_read", b"lds_") && !starts_with(b"ld", b"lds_"));
    assert!(same(b"load", b"load") && !same(b"load", b"load_fptr"));
}
