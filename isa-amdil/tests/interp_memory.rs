//! Memory opcodes (guide 7.15, 7.16): raw, structured, typed and arena UAVs, SRVs, LDS in
//! all its widths and vector forms, every UAV and LDS atomic (returning and not), append
//! counters, the global buffer, and the out-of-range rules.

mod interp_common;
use interp_common::*;

use isa_amdil::interp::{self, Dispatch, MemSpace};

const T: u32 = 0xFFFF_FFFF;

/// Runs a one-work-item kernel with the given declarations and body over the given UAVs.
fn kernel(decls: &str, body: &str, uavs: &[(u32, Vec<u32>)]) -> Dispatch {
    let src = format!(
        "il_cs_2_0\ndcl_num_thread_per_group 1\n{decls}\n\
         dcl_literal l0, 0, 4, 8, 12\ndcl_literal l1, 16, 1, 2, 3\n{body}\nend\n"
    );
    let mut d = Dispatch::new([1, 1, 1]);
    for (id, w) in uavs {
        d.uavs.insert(*id, bytes(w));
    }
    d.report_oob = true;
    match interp::run_source(&src, &mut d) {
        Ok(_) => d,
        Err(e) => panic!("{body}: {e}"),
    }
}

#[test]
fn raw_uav_load_store_7_16() {
    // UAV_RAW_LOAD L8826: component i <- dword at address + 4i, by mask; OOB -> 0.
    // UAV_RAW_STORE L8841: mask may have gaps; OOB stores write nothing.
    let d = kernel(
        "dcl_raw_uav_id(0)\ndcl_raw_uav_id(1)",
        "uav_raw_load_id(0) r0, l0.y\n\
         uav_raw_store_id(1) mem.x_z_, l0.x, r0\n\
         uav_raw_load_id(0) r1.xy, l1.x\n\
         uav_raw_store_id(1) mem.xy, l1.x, r1\n\
         uav_raw_store_id(1) mem.x, l0.w, r0.w",
        &[(0, vec![10, 11, 12, 13, 14, 15]), (1, vec![0; 6])],
    );
    // r0 = (11, 12, 13, 14) from byte 4; r1 = (14, 15) from byte 16; the store at byte 12
    // writes word 3 again with r0.w = 14.
    assert_eq!(words(&d.uavs[&1]), [11, 0, 13, 14, 14, 15]);
    let d = kernel(
        "dcl_raw_uav_id(0)",
        "uav_raw_load_id(0) r0, l1.x\nuav_raw_store_id(0) mem, l0.x, r0\n\
         uav_raw_store_id(0) mem.x, l1.x, l1.w",
        &[(0, vec![1, 2, 3, 4, 5])],
    );
    // load at byte 16: (5, 0, 0, 0) as words 5..7 are past the end; store at 16 is in
    // range (word 4).
    assert_eq!(words(&d.uavs[&0]), [5, 0, 0, 0, 3]);
}

#[test]
fn out_of_range_accesses_are_reported() {
    let src = "il_cs_2_0\ndcl_num_thread_per_group 2\ndcl_raw_uav_id(0)\n\
               dcl_literal l0, 64, 7, 0, 0\n\
               uav_raw_load_id(0) r0.x, l0.x\nuav_raw_store_id(0) mem.x, l0.x, l0.y\nend\n";
    let mut d = Dispatch::new([1, 1, 1]);
    d.uavs.insert(0, vec![0; 8]);
    d.report_oob = true;
    let s = interp::run_source(src, &mut d).expect("runs");
    assert_eq!(s.oob_count, 4);
    assert_eq!(s.oob.len(), 4);
    assert!(s
        .oob
        .iter()
        .all(|o| o.space == MemSpace::Uav(0) && o.addr == 64));
    assert_eq!(s.oob.iter().filter(|o| o.write).count(), 2);
    assert_eq!(s.oob[0].line, 5);
    assert_eq!(d.uavs[&0], vec![0; 8]);
}

#[test]
fn structured_uav_7_16() {
    // UAV_STRUCT_LOAD L9100 / STORE L9114: address = index * stride + byte offset.
    let d = kernel(
        "dcl_struct_uav_id(0) 12\ndcl_struct_uav_id(1) 12",
        "mov r5.x, l1.z\nmov r5.y, l0.y\nuav_struct_load_id(0) r0.xy, r5.xy\n\
         mov r6.x, l1.y\nmov r6.y, l0.x\nuav_struct_store_id(1) mem.xy, r6.xy, r0.yxxx",
        &[(0, (0..9).collect()), (1, vec![0; 9])],
    );
    // record 2 offset 4 -> words 7, 8; stored reversed at record 1 offset 0 (words 3, 4)
    assert_eq!(words(&d.uavs[&1]), [0, 0, 0, 8, 7, 0, 0, 0, 0]);
}

#[test]
fn typed_uav_forms_not_modelled_exactly_are_unsupported() {
    // Types without a row-major element layout, components declared past `_fmtx` and
    // converting formats are refused at the declaration's line instead of being run with
    // the wrong addresses or values.
    for (decl, what) in [
        ("dcl_uav_id(0)_type(cube)_fmtx(uint)", "type `cube`"),
        (
            "dcl_uav_id(0)_type(buffer)_fmtx(uint)_fmty(uint)",
            "`_fmty(uint)`",
        ),
        ("dcl_uav_id(0)_type(1d)_fmtx(unorm)", "format `unorm`"),
    ] {
        let src = format!(
            "il_cs_2_0\ndcl_num_thread_per_group 1\n{decl}\nuav_store_id(0) vAbsTid.xy, vAbsTid.x\nend\n"
        );
        let mut d = Dispatch::new([1, 1, 1]);
        d.uavs.insert(0, bytes(&[0; 16]));
        match interp::run_source(&src, &mut d) {
            Err(interp::InterpError::Unsupported { what: w, line }) => {
                assert!(w.contains(what), "{decl}: {w}");
                assert_eq!(line, 3, "{decl}");
            }
            other => panic!("{decl}: expected Unsupported, got {other:?}"),
        }
    }
}

#[test]
fn typed_uavs_address_through_the_launch_view() {
    // UAV_STORE L9086 / UAV_LOAD L8770 on a 2-D typed UAV whose resource has 2 components
    // per element and 3x2 elements: (x, y) is element x + 3y, 8 bytes each; a store writes
    // the element's two components, a load reads them and gives (_, _, 0, 1) for the rest;
    // out of range (x = 3 or y = 2) stores nothing and loads (0, 0, 0, 1).
    let src = "il_cs_2_0\ndcl_num_thread_per_group 1\n\
               dcl_uav_id(1)_type(2d)_fmtx(uint)\ndcl_raw_uav_id(0)\n\
               dcl_literal l0, 2, 1, 7, 9\ndcl_literal l1, 3, 0, 0, 0\ndcl_literal l2, 0, 2, 0, 0\n\
               uav_store_id(1) l0.xy, l0.zwzw\n\
               uav_store_id(1) l1.xy, l0.zwzw\n\
               uav_store_id(1) l2.xy, l0.zwzw\n\
               uav_load_id(1) r0, l0.xy\n\
               uav_load_id(1) r1, l1.xy\n\
               uav_raw_store_id(0) mem, l1.y, r0\n\
               uav_raw_store_id(0) mem, l0.w, r1\nend\n";
    let mut d = Dispatch::new([1, 1, 1]);
    d.uavs.insert(1, bytes(&[0; 12]));
    d.uavs.insert(0, bytes(&[5; 7]));
    d.uav_views.insert(
        1,
        interp::typed_uav::UavView {
            components: 2,
            dims: [3, 2, 1],
        },
    );
    d.report_oob = true;
    interp::run_source(src, &mut d).expect("runs");
    let mut want = [0; 12];
    want[10] = 7;
    want[11] = 9;
    assert_eq!(words(&d.uavs[&1]), want);
    // r0 = (7, 9, 0, 1) at word 0, then r1 = (0, 0, 0, 1) at byte 9 & !3 = word 2.
    assert_eq!(words(&d.uavs[&0]), [7, 9, 0, 0, 0, 1, 5]);
}

#[test]
fn typed_arena_and_srv_7_16() {
    // UAV_LOAD L8770 / UAV_STORE L9086 on a 32-bit typed buffer: element addressing;
    // a load returns (v, 0, 0, 1).
    let d = kernel(
        "dcl_uav_id(2)_type(buffer)_fmtx(uint)\ndcl_raw_uav_id(0)",
        "uav_load_id(2) r0, l1.z\nuav_store_id(2) l1.y, l1.w\nuav_raw_store_id(0) mem, l0.x, r0",
        &[(2, vec![5, 6, 7, 8]), (0, vec![0; 4])],
    );
    assert_eq!(words(&d.uavs[&2]), [5, 3, 7, 8]);
    assert_eq!(words(&d.uavs[&0]), [7, 0, 0, 1]);
    // UAV_ARENA_LOAD L8724 / STORE L8740: byte and short accesses.
    let d = kernel(
        "dcl_arena_uav_id(8)\ndcl_raw_uav_id(0)",
        "uav_arena_load_id(8)_size(byte) r0.x, l1.y\n\
         uav_arena_load_id(8)_size(short) r0.y, l1.z\n\
         uav_arena_load_id(8)_size(dword) r0.z, l0.y\n\
         uav_arena_store_id(8)_size(byte) mem.x, l0.x, l1.x\n\
         uav_arena_store_id(8)_size(short) mem.x, l0.z, l0.x\n\
         uav_raw_store_id(0) mem, l0.x, r0",
        &[
            (8, vec![0x4433_2211, 0x8877_6655, 0xFFFF_FFFF]),
            (0, vec![0; 4]),
        ],
    );
    assert_eq!(words(&d.uavs[&0]), [0x22, 0x4433, 0x8877_6655, 0]);
    assert_eq!(words(&d.uavs[&8]), [0x4433_2210, 0x8877_6655, 0xFFFF_0000]);
    // SRV_RAW_LOAD L8666 / SRV_STRUCT_LOAD L8681: read-only buffers.
    let src = "il_cs_2_0\ndcl_num_thread_per_group 1\ndcl_raw_srv_id(0)\ndcl_struct_srv_id(1) 8\n\
               dcl_raw_uav_id(0)\ndcl_literal l0, 4, 1, 0, 16\n\
               srv_raw_load_id(0) r0.xy, l0.x\nsrv_struct_load_id(1) r1.xy, l0.yx\nmov r0.zw, r1.xxxy\n\
               uav_raw_store_id(0) mem, l0.z, r0\nend\n";
    let mut d = Dispatch::new([1, 1, 1]);
    d.srvs.insert(0, bytes(&[1, 2, 3]));
    d.srvs.insert(1, bytes(&[10, 11, 12, 13, 14]));
    d.uavs.insert(0, vec![0; 16]);
    interp::run_source(src, &mut d).expect("runs");
    // struct srv record 1 offset 4 = byte 12: words 3 and 4.
    assert_eq!(words(&d.uavs[&0]), [2, 3, 13, 14]);
}

#[test]
fn lds_accesses_7_16() {
    // LDS_STORE L8560 / LDS_LOAD L8263 (dword), byte/short forms L8275-8311, L8572-8584,
    // LDS_STORE_VEC L8596 / LDS_LOAD_VEC L8323 (raw and structured).
    let d = kernel(
        "dcl_lds_id(0) 64\ndcl_struct_lds_id(1) 16, 4\ndcl_raw_uav_id(0)",
        "lds_store_id(0) l0.x, l1.x\n\
         lds_store_byte_id(0) l1.y, l0.w\n\
         lds_store_short_id(0) l1.z, l1.w\n\
         lds_load_id(0) r0.x, l0.x\n\
         lds_store_id(0) l0.y, l0.0\n\
         lds_store_byte_id(0) l0.y, l0.0\n\
         mov r5.x, l0.x\n\
         inot r5.x, r5.x\n\
         lds_store_id(0) l0.z, r5.x\n\
         lds_load_byte_id(0) r0.y, l0.z\n\
         lds_load_ubyte_id(0) r0.z, l0.z\n\
         lds_load_short_id(0) r0.w, l0.z\n\
         lds_load_ushort_id(0) r1.x, l0.z\n\
         lds_store_vec_id(1) mem.xyzw, l1.y, l0.y, l1\n\
         lds_load_vec_id(1) r2, l1.y, l0.x\n\
         lds_store_vec_id(0) mem.xy, l1.x, l0.x, l1.wzyx\n\
         lds_load_vec_id(0) r3.xy, l1.x, l0.x\n\
         dcl_literal l2, 32, 48, 0, 0\n\
         uav_raw_store_id(0) mem, l0.x, r0\n\
         uav_raw_store_id(0) mem.x, l1.x, r1.x\n\
         uav_raw_store_id(0) mem, l2.x, r2\n\
         uav_raw_store_id(0) mem.xy, l2.y, r3",
        &[(0, vec![0; 16])],
    );
    let w = words(&d.uavs[&0]);
    // word 0 stored 16, byte 1 := 12 (0x0C), short at 2 := 3  ->  0x0003_0C10
    assert_eq!(w[0], 0x0003_0C10);
    // byte 8 holds 0xFF...: signed byte -1, ubyte 0xFF, short -1, ushort 0xFFFF
    assert_eq!(w[1..5], [T, 0xFF, T, 0xFFFF]);
    // struct record 1 offset 4 holds (16, 1, 2, 3) from byte 20; reading record 1 at
    // offset 0 gives (0, 16, 1, 2); the raw vec store of .xy at byte 16 reads back (3, 2).
    assert_eq!(w[8..12], [0, 16, 1, 2], "w = {w:x?}");
    assert_eq!(w[12..14], [3, 2]);
}

/// Runs one atomic on word 1 of uav1 (initially `old`) and returns (returned value, memory).
fn uav_atomic(op: &str, old: u32, s1: u32, s2: u32) -> (u32, u32) {
    let body = format!(
        "dcl_literal l5, {s1}, {s2}, 0, 0\n{op} r0.x, l0.y, l5.x, l5.y\n\
         uav_raw_store_id(0) mem.x, l0.x, r0.x"
    );
    let d = kernel(
        "dcl_raw_uav_id(0)\ndcl_raw_uav_id(1)",
        &body,
        &[(0, vec![0]), (1, vec![9, old])],
    );
    (words(&d.uavs[&0])[0], words(&d.uavs[&1])[1])
}

fn uav_atomic_noret(op: &str, old: u32, s1: u32, s2: u32) -> u32 {
    let body = format!("dcl_literal l5, {s1}, {s2}, 0, 0\n{op} l0.y, l5.x, l5.y");
    let d = kernel("dcl_raw_uav_id(1)", &body, &[(1, vec![9, old])]);
    words(&d.uavs[&1])[1]
}

#[test]
fn uav_atomics_7_16() {
    // (opcode, old, src1, src2, expected new value); returning forms give `old` back.
    let cases: &[(&str, u32, u32, u32, u32, &str)] = &[
        ("uav_read_add_id(1)", 5, 7, 0, 12, "L8855"),
        ("uav_read_sub_id(1)", 5, 7, 0, T - 1, "L8953"),
        ("uav_read_rsub_id(1)", 5, 7, 0, 2, "L8939"),
        ("uav_read_min_id(1)", 5, T, 0, T, "L8911 signed"),
        ("uav_read_max_id(1)", T, 5, 0, 5, "L8897 signed"),
        ("uav_read_umin_id(1)", 5, T, 0, 5, "L9030"),
        ("uav_read_umax_id(1)", 5, T, 0, T, "L9016"),
        ("uav_read_and_id(1)", 0xF0, 0x3C, 0, 0x30, "L8869"),
        ("uav_read_or_id(1)", 0xF0, 0x0F, 0, 0xFF, "L8925"),
        ("uav_read_xor_id(1)", 0xF0, 0xFF, 0, 0x0F, "L9058"),
        ("uav_read_xchg_id(1)", 5, 77, 0, 77, "L9044"),
        (
            "uav_read_cmp_xchg_id(1)",
            5,
            77,
            5,
            77,
            "L8883: src1 new, src2 compare",
        ),
        (
            "uav_read_cmp_xchg_id(1)",
            5,
            77,
            6,
            5,
            "L8883: no match keeps",
        ),
        ("uav_read_uinc_id(1)", 5, 5, 0, 0, "L8978: old >= src1 -> 0"),
        ("uav_read_uinc_id(1)", 4, 5, 0, 5, "L8978"),
        ("uav_read_udec_id(1)", 0, 5, 0, 5, "L8967: old == 0 -> src1"),
        (
            "uav_read_udec_id(1)",
            9,
            5,
            0,
            5,
            "L8967: old > src1 -> src1",
        ),
        ("uav_read_udec_id(1)", 3, 5, 0, 2, "L8967"),
    ];
    for &(op, old, s1, s2, new, cite) in cases {
        assert_eq!(uav_atomic(op, old, s1, s2), (old, new), "{op} {cite}");
    }
    let noret: &[(&str, u32, u32, u32, u32, &str)] = &[
        ("uav_add_id(1)", 5, 7, 0, 12, "L8696"),
        ("uav_sub_id(1)", 5, 7, 0, T - 1, "L9128"),
        ("uav_rsub_id(1)", 5, 7, 0, 2, "L9072"),
        ("uav_min_id(1)", 5, T, 0, T, "L8798"),
        ("uav_max_id(1)", T, 5, 0, 5, "L8784"),
        ("uav_umin_id(1)", 5, T, 0, 5, "L9182"),
        ("uav_umax_id(1)", 5, T, 0, T, "L9168"),
        ("uav_and_id(1)", 0xF0, 0x3C, 0, 0x30, "L8710"),
        ("uav_or_id(1)", 0xF0, 0x0F, 0, 0xFF, "L8812"),
        ("uav_xor_id(1)", 0xF0, 0xFF, 0, 0x0F, "L9196"),
        (
            "uav_cmp_id(1)",
            5,
            77,
            5,
            77,
            "L8756: src1 new, src2 compare",
        ),
        ("uav_uinc_id(1)", 5, 5, 0, 0, "L9155"),
        ("uav_udec_id(1)", 0, 5, 0, 5, "L9142"),
    ];
    for &(op, old, s1, s2, new, cite) in noret {
        assert_eq!(uav_atomic_noret(op, old, s1, s2), new, "{op} {cite}");
    }
}

fn lds_atomic(op: &str, ret: bool, old: u32, s1: u32, s2: u32) -> (u32, u32) {
    let body = if ret {
        format!(
            "dcl_literal l5, {s1}, {s2}, {old}, 0\nlds_store_id(0) l0.y, l5.z\n\
             {op} r0.x, l0.y, l5.x, l5.y\nlds_load_id(0) r0.y, l0.y\n\
             uav_raw_store_id(0) mem.xy, l0.x, r0"
        )
    } else {
        format!(
            "dcl_literal l5, {s1}, {s2}, {old}, 0\nlds_store_id(0) l0.y, l5.z\n\
             {op} l0.y, l5.x, l5.y\nlds_load_id(0) r0.y, l0.y\nmov r0.x, l5.z\n\
             uav_raw_store_id(0) mem.xy, l0.x, r0"
        )
    };
    let d = kernel(
        "dcl_lds_id(0) 16\ndcl_raw_uav_id(0)",
        &body,
        &[(0, vec![0, 0])],
    );
    let w = words(&d.uavs[&0]);
    (w[0], w[1])
}

#[test]
fn lds_atomics_7_16() {
    let cases: &[(&str, u32, u32, u32, u32, &str)] = &[
        ("add", 5, 7, 0, 12, "L8203/L8393"),
        ("sub", 5, 7, 0, T - 1, "L8618/L8477"),
        ("rsub", 5, 7, 0, 2, "L8548/L8465"),
        ("min", 5, T, 0, T, "L8356/L8441"),
        ("max", T, 5, 0, 5, "L8343/L8429"),
        ("umin", 5, T, 0, 5, "L8642/L8501"),
        ("umax", 5, T, 0, T, "L8630/L8489"),
        ("and", 0xF0, 0x3C, 0, 0x30, "L8215/L8405"),
        ("or", 0xF0, 0x0F, 0, 0xFF, "L8381/L8453"),
        ("xor", 0xF0, 0xFF, 0, 0x0F, "L8654/L8536"),
        ("inc", 5, 5, 0, 0, "L8251"),
        ("dec", 0, 5, 0, 5, "L8239"),
        ("mskor", 0xFF, 0x0F, 0x100, 0x1F0, "L8369: (old & ~s1) | s2"),
    ];
    for &(name, old, s1, s2, new, cite) in cases {
        let ret_op = format!("lds_read_{name}_id(0)");
        assert_eq!(
            lds_atomic(&ret_op, true, old, s1, s2),
            (old, new),
            "{ret_op} {cite}"
        );
        let op = format!("lds_{name}_id(0)");
        assert_eq!(
            lds_atomic(&op, false, old, s1, s2),
            (old, new),
            "{op} {cite}"
        );
    }
    // LDS_READ_XCHG L8513.
    assert_eq!(lds_atomic("lds_read_xchg_id(0)", true, 5, 9, 0), (5, 9));
    // LDS_CMP L8227 / LDS_READ_CMP_XCHG L8417: src1 = compare, src2 = new (opposite of UAV).
    assert_eq!(lds_atomic("lds_read_cmp_xchg_id(0)", true, 5, 5, 9), (5, 9));
    assert_eq!(lds_atomic("lds_read_cmp_xchg_id(0)", true, 5, 9, 5), (5, 5));
    assert_eq!(lds_atomic("lds_cmp_id(0)", false, 5, 5, 9), (5, 9));
}

#[test]
fn append_counters_and_global_buffer() {
    // APPEND_BUF_ALLOC L8019 returns the old counter; CONSUME L8033 the decremented one.
    let d = kernel(
        "dcl_raw_uav_id(0)",
        "append_buf_alloc_id(0) r0.x\nappend_buf_alloc_id(0) r0.y\n\
         append_buf_consume_id(0) r0.z\nuav_raw_store_id(0) mem.xyz, l0.x, r0",
        &[(0, vec![0; 3])],
    );
    assert_eq!(words(&d.uavs[&0]), [0, 1, 1]);
    // g[] L1611: 16-byte elements, register index, read and write.
    let src = "il_cs_2_0\ndcl_num_thread_per_group 1\ndcl_literal l0, 1, 2, 0, 0\n\
               mov r0, g[l0.x]\niadd g[2].xy, r0, g[0]\nmov g[r0.x], r0.wzyx\nend\n";
    let mut d = Dispatch::new([1, 1, 1]);
    d.global = Some(bytes(&[1, 2, 3, 4, 0, 6, 7, 8, 0, 0, 0, 0]));
    interp::run_source(src, &mut d).expect("runs");
    assert_eq!(
        words(d.global.as_deref().unwrap_or_default()),
        [8, 7, 6, 0, 0, 6, 7, 8, 1, 8, 0, 0]
    );
}

#[test]
fn gds_is_shared_by_all_groups_7_17() {
    // DCL_GDS L9212: one allocation for the whole dispatch (zeroed at dispatch start);
    // GDS_LOAD/STORE and atomics address it in bytes like LDS; cmp_store takes
    // (compare, new) like LDS (L9292). Groups run in id order here.
    let src = "il_cs_2_0\ndcl_num_thread_per_group 1\ndcl_gds_id(0) 16\ndcl_raw_uav_id(0)\n\
               dcl_literal l0, 0, 1, 4, 2\n\
               gds_read_add_id(0) r0.x, l0.x, l0.y\n\
               gds_cmp_store_id(0) l0.z, l0.x, l0.w\n\
               gds_load_id(0) r0.y, l0.z\n\
               gds_store_id(0) l0.z, l0.x\n\
               mov r1.x, vThreadGrpIdFlat.x\nishl r1.x, r1.x, l0.w\nishl r1.x, r1.x, l0.y\n\
               uav_raw_store_id(0) mem.xy, r1.x, r0\nend\n";
    let (d, _) = run_kernel(src, [3, 1, 1], &[(0, vec![0; 48])]).expect("runs");
    // every group: r0.x = old counter (0, 1, 2); cmp_store sets word 1 from 0 to 2, read
    // back as 2, then the store resets it to 0 for the next group.
    // (records are 8 bytes: group g writes words 2g and 2g + 1)
    assert_eq!(words(&d.uavs[&0]), [0, 2, 1, 2, 2, 2, 0, 0, 0, 0, 0, 0]);
}
