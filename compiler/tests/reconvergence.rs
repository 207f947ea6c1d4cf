//! Reconvergence before barriers: divergent branches must reconverge before the
//! next barrier at every optimization level, or the paths run one after the other into the
//! barrier and read LDS that the other path has not written yet.

use ilc::verify::{verify, VerifyOptions};
use ilc::{Compiler, OptLevel, Options};

/// Minimized from `ilc-fuzz --size 200 -O1` seed 208: divergent inner ifs in both arms of a
/// uniform `if`, then an LDS exchange across a barrier. CFG simplification folds the inner
/// merges into the outer one, so both inner branches reconverge at the same block through
/// disjoint regions; at -O1 they were left without SSY/SYNC and the result mismatched.
const NESTED_IFS_BEFORE_BARRIER: &str = "\
il_cs_2_0\n\
dcl_num_thread_per_group 64, 1, 1\n\
dcl_raw_uav_id(0)\n\
dcl_raw_uav_id(1)\n\
dcl_lds_id(0) 256\n\
dcl_cb cb0[1]\n\
dcl_literal l0, 0x4, 0x2, 0x1, 0x0\n\
mov r0.x, vAbsTidFlat.x\n\
mov r1.x, vTidInGrpFlat.x\n\
ishl r0.y, r0.x, l0.x\n\
uav_raw_load_id(0) r2, r0.y\n\
mov r3.x, l0.w\n\
if_logicalnz cb0[0].x\n\
    if_logicalnz r2.x\n\
        mov r3.x, r2.y\n\
    endif\n\
else\n\
    if_logicalnz r2.z\n\
        mov r3.x, r2.w\n\
    endif\n\
endif\n\
ishl r4.x, r1.x, l0.y\n\
lds_store_id(0) r4.x, r3.x\n\
fence_threads_lds\n\
ixor r4.y, r1.x, l0.z\n\
ishl r4.y, r4.y, l0.y\n\
lds_load_id(0) r5.x, r4.y\n\
ishl r0.z, r0.x, l0.y\n\
uav_raw_store_id(1) mem.x, r0.z, r5.x\n\
end\n\
";

/// The same shape with a store in each inner arm (a side effect: no if-conversion), so the
/// inner branches stay divergent at every level.
fn with_stores_in_arms() -> String {
    NESTED_IFS_BEFORE_BARRIER
        .replace(
            "mov r3.x, r2.y\n",
            "mov r3.x, r2.y\nuav_raw_store_id(1) mem.x, r0.y, r2.y\n",
        )
        .replace(
            "mov r3.x, r2.w\n",
            "mov r3.x, r2.w\nuav_raw_store_id(1) mem.x, r0.y, r2.w\n",
        )
}

/// Compiles `src` at every level, checks the SSY count `ssy_at` gives for the level (one per
/// divergent `if` left) and that the result verifies against the interpreter.
fn check_reconvergence(src: &str, ssy_at: impl Fn(OptLevel) -> usize) {
    for opt_level in [OptLevel::O0, OptLevel::O1, OptLevel::O2, OptLevel::O3] {
        let compiler = Compiler::new(Options {
            opt_level,
            ..Options::default()
        });
        let kernel = compiler.compile(src.as_bytes()).expect("compiles");
        let asm = kernel.asm_spa();
        let ssy = asm
            .lines()
            .filter(|l| l.trim_start().starts_with("SSY"))
            .count();
        assert_eq!(
            ssy,
            ssy_at(opt_level),
            "{opt_level:?}: one SSY per divergent if\n{asm}"
        );
        let report =
            verify(&compiler, src.as_bytes(), &VerifyOptions::default()).expect("verifies");
        assert!(report.passed(), "{opt_level:?}: {report:?}");
    }
}

#[test]
fn nested_divergent_ifs_reconverge_before_the_barrier_at_every_level() {
    // -O2 and -O3 if-convert both inner ifs (each arm only passes a value on) into selects:
    // no divergent branch is left to reconverge.
    check_reconvergence(NESTED_IFS_BEFORE_BARRIER, |o| match o {
        OptLevel::O0 | OptLevel::O1 => 2,
        _ => 0,
    });
    check_reconvergence(&with_stores_in_arms(), |_| 2);
}
