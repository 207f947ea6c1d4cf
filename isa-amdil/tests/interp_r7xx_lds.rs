//! R7xx owner-computes LDS (guide 7.2.10 L3256-3273, DCL_LDS_SIZE_PER_THREAD L4073,
//! DCL_LDS_SHARING_MODE L4059, LDS_READ_VEC L4917, LDS_WRITE_VEC L4933): each work-item
//! writes only its own `size_per_thread` dwords; reads name (owner lane, dword offset);
//! relative sharing gives each 64-wide wavefront its own area, absolute maps every
//! wavefront onto the first.

use isa_amdil::interp::{self, Dispatch};

fn run(body: &str, mode: &str, check: bool) -> Vec<u32> {
    let src = format!(
        "il_cs_2_0\ndcl_num_thread_per_group 128\ndcl_lds_size_per_thread 8\n\
         dcl_lds_sharing_mode {mode}\ndcl_raw_uav_id(0)\n\
         dcl_literal l0, 4, 1, 63, 0\ndcl_literal l1, 16, 0, 0, 0\n{body}\n\
         imul r4.x, vTidInGrpFlat.x, l1.x\nuav_raw_store_id(0) mem.xyzw, r4.x, r2\nend\n"
    );
    let mut d = Dispatch::new([1, 1, 1]);
    d.uavs.insert(0, vec![0; 128 * 16]);
    d.lds_check = check;
    let stats = interp::run_source(&src, &mut d).unwrap_or_else(|e| panic!("{e}"));
    assert!(stats.lds_races.is_empty(), "{:?}", stats.lds_races);
    d.uavs[&0]
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// Every work-item writes (tid, tid + 16) at dwords 4, 5 of its area, then reads the area of
/// lane `63 - lane` of its wavefront (r2.xy) and, with `_sharingMode(abs)`, of wavefront 0
/// (r2.z).
const BODY: &str = "mov r0, vTidInGrpFlat\niadd r0.y, r0.x, l1.x\n\
                    lds_write_vec_lOffset(4) mem.xy__, r0.xyxx\nfence_threads_lds\n\
                    iand r1.x, vTidInGrpFlat.x, l0.z\niadd r1.x, l0.z, r1.x_neg(xyzw)\n\
                    mov r1.y, l0.x\nlds_read_vec r2.xy, r1.xyxx\n\
                    lds_read_vec_sharingMode(abs) r3, r1.xyxx\nmov r2.z, r3.x\n\
                    mov r2.w, r3.z";

#[test]
fn relative_mode_gives_each_wavefront_its_area() {
    let out = run(BODY, "_wavefrontRel", true);
    for t in 0..128u32 {
        let (wave, lane) = (t / 64, t % 64);
        let owner = wave * 64 + 63 - lane;
        let e = [owner, owner + 16, 63 - lane, 0];
        assert_eq!(out[t as usize * 4..t as usize * 4 + 4], e, "work-item {t}");
    }
}

#[test]
fn absolute_mode_shares_one_area_and_offsets_past_the_size_read_zero() {
    // All writes go to wavefront 0's area (wavefront 1 overwrites it after wavefront 0,
    // in lock step id order), so every read sees wavefront 1's values.
    // (The two wavefronts' writes race: that is what absolute mode means, L3262.)
    let out = run(BODY, "_wavefrontAbs", false);
    for t in 0..128u32 {
        let lane = t % 64;
        let owner = 64 + 63 - lane;
        // r2.z reads with explicit abs: the same area. r3.z = dword 6, never written: 0.
        let e = [owner, owner + 16, owner, 0];
        assert_eq!(out[t as usize * 4..t as usize * 4 + 4], e, "work-item {t}");
    }
    // Dword 8 is past the declared 8 dwords per work-item: reads 0 and counts as out of range.
    let src = "il_cs_2_0\ndcl_num_thread_per_group 1\ndcl_lds_size_per_thread 8\n\
               dcl_literal l0, 0, 8, 0, 0\nlds_read_vec r0, l0.xyxx\nend\n";
    let mut d = Dispatch::new([1, 1, 1]);
    let stats = interp::run_source(src, &mut d).unwrap();
    assert_eq!(stats.oob_count, 4);
}

#[test]
fn declarations_are_checked() {
    let mut d = Dispatch::new([1, 1, 1]);
    let e = interp::run_source(
        "il_cs_2_0\ndcl_num_thread_per_group 1\ndcl_literal l0, 0, 0, 0, 0\n\
         lds_read_vec r0, l0.xyxx\nend\n",
        &mut d,
    )
    .unwrap_err();
    assert!(e.to_string().contains("dcl_lds_size_per_thread"), "{e}");
    let e = interp::run_source(
        "il_cs_2_0\ndcl_num_thread_per_group 1\ndcl_lds_size_per_thread 6\nend\n",
        &mut d,
    )
    .unwrap_err();
    assert!(e.to_string().contains("multiple of 4"), "{e}");
    let e = interp::run_source(
        "il_cs_2_0\ndcl_num_thread_per_group 1\ndcl_lds_size_per_thread 4\n\
         dcl_literal l0, 0, 0, 0, 0\nlds_read_vec_neighborExch r0, l0.xyxx\nend\n",
        &mut d,
    )
    .unwrap_err();
    assert!(e.to_string().contains("neighborExch"), "{e}");
}

/// `_neighborExch` (L4919): each work-item reads its own 4 dwords, then work-item `4q + j`
/// receives component `j` of each vector of work-items `4q..4q+3` (a 4x4 transpose, as FFT
/// kernels use it), under every interleaving; the dst mask applies after the exchange.
#[test]
fn neighbor_exchange_transposes_each_neighbourhood() {
    let body = "dcl_literal l2, 10, 1, 2, 3\nimul r0, vTidInGrpFlat.x, l2.x\n\
                iadd r0, r0, l2.xyzw_neg(x)\niadd r0.x, r0.x, l2.x\n\
                lds_write_vec mem, r0\nfence_threads_lds\n\
                iand r1.x, vTidInGrpFlat.x, l0.z\nmov r1.y, l0.w\n\
                mov r2, l0.wwww\nlds_read_vec_neighborExch r2.xyw, r1.xyxx";
    for sched in [
        interp::Schedule::LockStep,
        interp::Schedule::Shuffled { seed: 7 },
    ] {
        let src = format!(
            "il_cs_2_0\ndcl_num_thread_per_group 128\ndcl_lds_size_per_thread 8\n\
             dcl_lds_sharing_mode _wavefrontRel\ndcl_raw_uav_id(0)\n\
             dcl_literal l0, 4, 1, 63, 0\ndcl_literal l1, 16, 0, 0, 0\n{body}\n\
             imul r4.x, vTidInGrpFlat.x, l1.x\nuav_raw_store_id(0) mem.xyzw, r4.x, r2\nend\n"
        );
        let mut d = Dispatch::new([1, 1, 1]);
        d.uavs.insert(0, vec![0; 128 * 16]);
        d.schedule = sched;
        interp::run_source(&src, &mut d).unwrap_or_else(|e| panic!("{e}"));
        for t in 0..128u32 {
            let (q, j) = (t / 4 * 4, t % 4);
            let e = [q * 10 + j, (q + 1) * 10 + j, 0, (q + 3) * 10 + j];
            let got: Vec<u32> = d.uavs[&0][t as usize * 16..t as usize * 16 + 16]
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect();
            assert_eq!(got, e, "work-item {t} under {sched:?}");
        }
    }
    // Only the odd work-items reach it: the exchange has no partners.
    let src = "il_cs_2_0\ndcl_num_thread_per_group 8\ndcl_lds_size_per_thread 4\n\
               dcl_literal l0, 1, 0, 0, 0\niand r0.x, vTidInGrpFlat.x, l0.x\nif_logicalnz r0.x\n\
               lds_read_vec_neighborExch r1, l0.yyyy\nendif\nend\n";
    let mut d = Dispatch::new([1, 1, 1]);
    let e = interp::run_source(src, &mut d).unwrap_err();
    assert!(matches!(e, interp::InterpError::Divergence { .. }), "{e}");
    assert!(e.to_string().contains("2 of them"), "{e}");
}
