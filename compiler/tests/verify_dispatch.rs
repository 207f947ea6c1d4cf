//! `--verify` on dispatches that are hard to compare: a kernel too long for the default
//! interpreter budget (one group instead of the whole grid, `--verify-fuel`), outputs that
//! depend on the interleaving of work-items (compared in the warp order the interpreter and
//! the emulator both follow; only bytes racy under every schedule left out, and named), and
//! the user's own inputs (`--verify-inputs`). Each case also checks that a miscompile
//! (a mutant candidate) is still caught.

use ilc::verify::{verify, verify_against, Inputs, VerifyOptions};
use ilc::Compiler;

const MINER: &str = include_str!("../../tests/kernels_long/miner_loop.il");

#[test]
fn long_kernel_runs_one_group_when_the_grid_does_not_fit() {
    let c = Compiler::default();
    let opts = VerifyOptions {
        dispatches: 1,
        ..VerifyOptions::default()
    };
    let r = verify(&c, MINER.as_bytes(), &opts).expect("runs");
    assert_eq!((r.compared, r.reduced), (1, 1), "{r}");
    assert!(r.passed(), "{r}");
    assert!(
        r.notes
            .iter()
            .any(|n| n.contains("one group (64 work-items) instead of 192")),
        "{r}"
    );
    // A budget that fits the whole grid compares it.
    let r = verify(
        &c,
        MINER.as_bytes(),
        &VerifyOptions {
            fuel: Some(100_000_000),
            ..opts.clone()
        },
    )
    .expect("runs");
    assert_eq!((r.compared, r.reduced), (1, 0), "{r}");
    assert!(r.passed(), "{r}");
    // One that fits nothing skips the dispatch and says why: never silently.
    let r = verify(
        &c,
        MINER.as_bytes(),
        &VerifyOptions {
            fuel: Some(1_000_000),
            ..opts.clone()
        },
    )
    .expect("runs");
    assert_eq!(r.compared, 0, "{r}");
    assert!(r.skipped[0].contains("even with one group"), "{r}");
    // The mixing constant of the second round changed: caught on the smaller dispatch.
    let mutant = MINER.replace("0x85ebca6b", "0x85ebca6d");
    let r = verify_against(&c, MINER.as_bytes(), mutant.as_bytes(), &opts).expect("runs");
    assert!(r.mismatch_count > 0, "{r}");
}

/// Each work-item stores `3 * tid` to LDS and reads its neighbour `(tid + k) % 64` with no
/// barrier between: the result depends on which work-items ran first.
fn exchange(k: u32) -> String {
    format!(
        "il_cs_2_0\ndcl_num_thread_per_group 64\ndcl_raw_uav_id(0)\ndcl_lds_id(0) 256\n\
         dcl_literal l0, 2, 3, {k}, 63\n\
         mov r0.x, vTidInGrpFlat.x\nishl r1.x, r0.x, l0.x\nimul r2.x, r0.x, l0.y\n\
         lds_store_id(0) r1.x, r2.x\n\
         iadd r3.x, r0.x, l0.z\nand r3.x, r3.x, l0.w\nishl r3.x, r3.x, l0.x\n\
         lds_load_id(0) r4.x, r3.x\nmov r5.x, vAbsTidFlat.x\nishl r5.x, r5.x, l0.x\n\
         uav_raw_store_id(0) mem.x, r5.x, r4.x\nend\n"
    )
}

#[test]
fn interleaving_dependent_outputs_are_compared_in_warp_order() {
    let c = Compiler::default();
    let opts = VerifyOptions {
        dispatches: 2,
        ..VerifyOptions::default()
    };
    let src = exchange(1);
    let r = verify(&c, src.as_bytes(), &opts).expect("runs");
    assert_eq!(r.compared, 2, "{r}");
    assert!(r.skipped.is_empty(), "{r}");
    assert!(r.order_dependent > 0, "{r}");
    assert_eq!(r.racy, 0, "{r}");
    assert!(r.passed(), "{r}");
    // Reading the wrong neighbour is a mismatch, not an interleaving effect.
    let r = verify_against(&c, src.as_bytes(), exchange(2).as_bytes(), &opts).expect("runs");
    assert!(r.mismatch_count > 0, "{r}");
}

#[test]
fn bytes_racy_under_every_schedule_are_named() {
    // Every work-item stores its id to dword 0 (and its id to its own dword): which lane
    // of a warp wins one store instruction is left open by any schedule.
    let src = "il_cs_2_0\ndcl_num_thread_per_group 64\ndcl_raw_uav_id(0)\n\
               dcl_literal l0, 2, 0, 0, 0\n\
               mov r0.x, vAbsTidFlat.x\nuav_raw_store_id(0) mem.x, l0.y, r0.x\n\
               ishl r1.x, r0.x, l0.x\nuav_raw_store_id(0) mem.x, r1.x, r0.x\nend\n";
    let c = Compiler::default();
    let opts = VerifyOptions {
        dispatches: 1,
        ..VerifyOptions::default()
    };
    let r = verify(&c, src.as_bytes(), &opts).expect("runs");
    assert_eq!(r.compared, 1, "{r}");
    assert!(r.passed(), "{r}");
    assert_eq!(r.racy, 1, "{r}");
    assert!(r.racy_bytes[0].contains("uav0 bytes 0x0..0x4"), "{r}");
}

#[test]
fn user_inputs_are_used() {
    let src = include_str!("../../tests/examples/saxpy.il");
    let dir = std::env::temp_dir().join(format!("ilc-verify-dispatch-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let x: Vec<u8> = (0..256).flat_map(|i| (i as f32).to_le_bytes()).collect();
    let mut cb = 3.0f32.to_le_bytes().to_vec();
    cb.extend(100u32.to_le_bytes());
    std::fs::write(dir.join("uav0.bin"), &x).expect("write");
    std::fs::write(dir.join("cb0.bin"), &cb).expect("write");
    std::fs::write(dir.join("grid.txt"), "2").expect("write");
    let inputs = Inputs::from_dir(&dir).expect("reads");
    std::fs::remove_dir_all(&dir).expect("cleanup");
    assert_eq!(inputs.grid, Some([2, 1, 1]));
    let c = Compiler::default();
    let opts = VerifyOptions {
        inputs: Some(inputs),
        ..VerifyOptions::default()
    };
    let r = verify(&c, src.as_bytes(), &opts).expect("runs");
    assert_eq!(r.compared, 1, "{r}");
    assert!(r.passed(), "{r}");
    assert!(
        r.notes.iter().any(|n| n == "inputs from files: uav0, cb0"),
        "{r}"
    );
    assert!(
        r.notes.iter().any(|n| n == "random inputs (no file): uav1"),
        "{r}"
    );
    // n = 100 of the file's cb0 bounds the work: a mutant that ignores the bound writes
    // elements 100..128 and is caught.
    let mutant = src.replace("if_logicalz r0.y", "if_logicalz l0.y");
    let r = verify_against(&c, src.as_bytes(), mutant.as_bytes(), &opts).expect("runs");
    assert!(r.mismatch_count > 0, "{r}");
}

#[test]
fn user_textures_and_domain() {
    let src = include_str!("../../tests/kernels_cal/ps_matmul.il");
    let dir = std::env::temp_dir().join(format!("ilc-verify-tex-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let texels: Vec<u8> = (0..8 * 8 * 4)
        .flat_map(|k| ((k % 13) as f32 * 0.25).to_le_bytes())
        .collect();
    std::fs::write(dir.join("tex0-8x8-f32x4.bin"), &texels).expect("write");
    std::fs::write(dir.join("tex1-8x8-u8.bin"), [7u8; 64]).expect("write");
    std::fs::write(dir.join("domain.txt"), "8,8\n").expect("write");
    let c = Compiler::default();
    let read = |dir: &std::path::Path| VerifyOptions {
        inputs: Some(Inputs::from_dir(dir).expect("reads")),
        ..VerifyOptions::default()
    };
    // The kernel was compiled for f32x4 texels: a u8 texture is refused, not "verified".
    let e = verify(&c, src.as_bytes(), &read(&dir)).expect_err("storage differs");
    assert!(e.to_string().contains("texture 1"), "{e}");
    std::fs::remove_file(dir.join("tex1-8x8-u8.bin")).expect("remove");
    std::fs::write(dir.join("tex1-8x8-f32x4.bin"), &texels).expect("write");
    let opts = read(&dir);
    std::fs::remove_dir_all(&dir).expect("cleanup");
    assert_eq!(opts.inputs.as_ref().and_then(|i| i.domain), Some([8, 8]));
    let r = verify(&c, src.as_bytes(), &opts).expect("runs");
    assert_eq!(r.compared, 1, "{r}");
    assert!(r.passed(), "{r}");
    assert!(
        r.notes.iter().any(|n| n.contains("texture 0, texture 1")),
        "{r}"
    );
}

/// Pixel-shader domains at an origin other than (0, 0) (CAL's `CALdomain.x/y`): every CAL
/// pixel-shader kernel of the corpus, interpreter against emulator, with the origin in the
/// pixel position; a mutant that ignores it (reads the position as if at (0, 0)) is caught.
#[test]
fn pixel_shader_domains_at_an_origin() {
    let c = Compiler::default();
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/kernels_cal");
    let mut ran = 0;
    for e in std::fs::read_dir(dir).expect("corpus") {
        let path = e.expect("entry").path();
        let name = path
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        if !name.starts_with("ps_") || !name.ends_with(".il") {
            continue;
        }
        let src = std::fs::read_to_string(&path).expect("reads");
        let opts = VerifyOptions {
            dispatches: 1,
            inputs: Some(Inputs {
                domain: Some([13, 9]),
                domain_origin: [5, 3],
                ..Inputs::default()
            }),
            ..VerifyOptions::default()
        };
        let r = verify(&c, src.as_bytes(), &opts).expect("runs");
        assert_eq!(r.compared, 1, "{name}: {r}");
        assert!(r.passed(), "{name}: {r}");
        ran += 1;
    }
    assert!(ran >= 5, "only {ran} pixel-shader kernels");
    // Output = the pixel position: at origin (5, 3) pixel (0, 0) of the domain is (5.5, 3.5).
    let src = "il_ps_2_0\ndcl_output_generic o0\n\
               dcl_input_position_interp(linear_noperspective) vWinCoord0.xy__\n\
               mov o0, vWinCoord0.xyxy\nend\n";
    let mut d = isa_amdil::interp::Dispatch::new([1, 1, 1]);
    d.domain = Some([2, 2]);
    d.domain_origin = [5, 3];
    isa_amdil::interp::run_source(src, &mut d).expect("interprets");
    let o = &d.ps_outputs[&0];
    assert_eq!(&o[0..4], &5.5f32.to_le_bytes());
    assert_eq!(&o[4..8], &3.5f32.to_le_bytes());
}
