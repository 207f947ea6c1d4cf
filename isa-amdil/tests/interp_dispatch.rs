//! Dispatch-level behaviour: grid and group shapes and their system values, barriers,
//! lock-step versus shuffled interleavings, the LDS race checker, fuel, and errors as values
//! (unsupported opcodes with their line, missing buffers, bad dispatches).

mod interp_common;
use interp_common::*;

use isa_amdil::interp::{self, Dispatch, InterpError, Schedule};

/// Neighbour exchange through LDS; `barrier` selects whether a fence separates the write
/// from the read. Each item writes tid*3 and reads item (tid+1) % 64.
fn exchange(barrier: bool) -> String {
    format!(
        "il_cs_2_0\ndcl_num_thread_per_group 64\ndcl_raw_uav_id(0)\ndcl_lds_id(0) 256\n\
         dcl_literal l0, 2, 3, 1, 63\n\
         mov r0.x, vTidInGrpFlat.x\nishl r1.x, r0.x, l0.x\nimul r2.x, r0.x, l0.y\n\
         lds_store_id(0) r1.x, r2.x\n{}\
         iadd r3.x, r0.x, l0.z\nand r3.x, r3.x, l0.w\nishl r3.x, r3.x, l0.x\n\
         lds_load_id(0) r4.x, r3.x\nmov r5.x, vAbsTidFlat.x\nishl r5.x, r5.x, l0.x\n\
         uav_raw_store_id(0) mem.x, r5.x, r4.x\nend\n",
        if barrier { "fence_threads_lds\n" } else { "" }
    )
}

fn expected_exchange(groups: u32) -> Vec<u32> {
    (0..64 * groups).map(|i| ((i % 64 + 1) % 64) * 3).collect()
}

#[test]
fn barrier_makes_every_interleaving_agree() {
    let src = exchange(true);
    for schedule in [
        Schedule::LockStep,
        Schedule::Shuffled { seed: 3 },
        Schedule::Shuffled { seed: 99 },
    ] {
        let mut d = Dispatch::new([2, 1, 1]);
        d.uavs.insert(0, vec![0; 512]);
        d.schedule = schedule;
        d.lds_check = true;
        let s = interp::run_source(&src, &mut d).expect("runs");
        assert_eq!(words(&d.uavs[&0]), expected_exchange(2), "{schedule:?}");
        assert!(s.lds_races.is_empty(), "{schedule:?}: {:?}", s.lds_races);
        assert_eq!(s.barriers, 2);
    }
}

#[test]
fn lock_step_reliance_is_exposed() {
    // Without a barrier, lock step still works (every item stores before any loads, as a
    // wavefront would) but a shuffled interleaving reads stale LDS, and --lds-check names
    // the racing pair.
    let src = exchange(false);
    let mut d = Dispatch::new([1, 1, 1]);
    d.uavs.insert(0, vec![0; 256]);
    d.lds_check = true;
    let s = interp::run_source(&src, &mut d).expect("runs");
    assert_eq!(words(&d.uavs[&0]), expected_exchange(1));
    assert!(
        !s.lds_races.is_empty(),
        "lock step run must still report the race"
    );
    let r = s.lds_races[0];
    assert_eq!(r.lds, 0);
    assert_ne!(r.items.0, r.items.1);
    // The decoder also warns statically.
    assert!(
        s.warnings.iter().any(|w| w.contains("lock step")),
        "{:?}",
        s.warnings
    );
    let prog = interp::prepare_source(&exchange(true)).expect("decodes");
    assert!(prog.warnings.is_empty(), "{:?}", prog.warnings);
    let mut differs = false;
    for seed in 1..5 {
        let mut d = Dispatch::new([1, 1, 1]);
        d.uavs.insert(0, vec![0; 256]);
        d.schedule = Schedule::Shuffled { seed };
        interp::run_source(&src, &mut d).expect("runs");
        differs |= words(&d.uavs[&0]) != expected_exchange(1);
    }
    assert!(
        differs,
        "shuffled interleavings should expose the missing barrier"
    );
}

#[test]
fn group_shape_and_system_values() {
    // dcl_num_thread_per_group L4209: missing dimensions are 1. vAbsTidFlat L1433 is
    // group-major: grp_flat * group_size + tid_flat.
    let src = "il_cs_2_0\ndcl_num_thread_per_group 2, 3\ndcl_raw_uav_id(0)\n\
               dcl_literal l0, 4, 0, 0, 0\n\
               mov r0.x, vAbsTidFlat.x\nishl r1.x, r0.x, l0.x\n\
               mov r2.xy, vAbsTid.xy\nmov r2.z, vAbsTid.z\nmov r2.w, vThreadGrpIdFlat.x\n\
               uav_raw_store_id(0) mem, r1.x, r2\nend\n";
    let mut d = Dispatch::new([2, 1, 2]);
    d.uavs.insert(0, vec![0; 24 * 16]);
    let s = interp::run_source(src, &mut d).expect("runs");
    assert_eq!(s.groups, 4);
    assert_eq!(s.work_items, 24);
    let w = words(&d.uavs[&0]);
    for gz in 0..2u32 {
        for gx in 0..2u32 {
            let g = gz * 2 + gx;
            for ty in 0..3u32 {
                for tx in 0..2u32 {
                    let flat = g * 6 + ty * 2 + tx;
                    let rec = &w[4 * flat as usize..4 * flat as usize + 4];
                    assert_eq!(rec, [gx * 2 + tx, ty, gz, g], "item {flat}");
                }
            }
        }
    }
}

#[test]
fn fuel_stops_runaway_loops() {
    let src = program(&[[1, 0, 0, 0]], "whileloop\niadd r0.x, r0.x, l0.x\nendloop");
    let mut d = Dispatch::new([1, 1, 1]);
    d.uavs.insert(0, vec![0; 64]);
    d.fuel = 1000;
    match interp::run_source(&src, &mut d) {
        Err(InterpError::OutOfFuel { executed, line }) => {
            assert_eq!(executed, 1000);
            assert!((6..=8).contains(&line), "line {line}");
        }
        other => panic!("expected OutOfFuel, got {other:?}"),
    }
}

#[test]
fn statements_after_the_first_end_are_ignored() {
    // A second `end` and a store after it (accepted with a warning by the validator) do not
    // run; the undeclared UAV 9 after `end` is not an error either.
    let src =
        "il_cs_2_0\ndcl_num_thread_per_group 1\ndcl_raw_uav_id(0)\ndcl_literal l0, 0, 7, 9, 4\n\
               uav_raw_store_id(0) mem.x, l0.x, l0.y\nend\nend\n\
               uav_raw_store_id(0) mem.x, l0.x, l0.z\nuav_raw_store_id(9) mem.x, l0.x, l0.z\nend\n";
    let mut d = Dispatch::new([1, 1, 1]);
    d.uavs.insert(0, vec![0; 4]);
    interp::run_source(src, &mut d).expect("runs");
    assert_eq!(d.uavs[&0], 7u32.to_le_bytes());
}

#[test]
fn errors_are_values() {
    // Unsupported opcode: named, with its line.
    let src = "il_cs_2_0\ndcl_num_thread_per_group 1\ndcl_literal l0, 0, 0, 0, 0\n\
               fetch4c_resource(0)_sampler(0) r0, l0, l0.x\nend\n";
    match interp::run_source(src, &mut Dispatch::new([1, 1, 1])) {
        Err(InterpError::Unsupported { what, line }) => {
            assert!(what.contains("Fetch4C"), "{what}");
            assert_eq!(line, 4);
        }
        other => panic!("expected Unsupported, got {other:?}"),
    }
    // A declared UAV without a buffer.
    let src = "il_cs_2_0\ndcl_num_thread_per_group 1\ndcl_raw_uav_id(3)\nend\n";
    let err = interp::run_source(src, &mut Dispatch::new([1, 1, 1])).unwrap_err();
    assert!(
        matches!(err, InterpError::MissingBuffer(ref m) if m.contains("uav 3")),
        "{err}"
    );
    // A declared cb without contents.
    let src = "il_cs_2_0\ndcl_num_thread_per_group 1\ndcl_cb cb2[4]\nend\n";
    let err = interp::run_source(src, &mut Dispatch::new([1, 1, 1])).unwrap_err();
    assert!(matches!(err, InterpError::MissingBuffer(_)), "{err}");
    // An empty grid.
    let src = "il_cs_2_0\ndcl_num_thread_per_group 1\nend\n";
    let err = interp::run_source(src, &mut Dispatch::new([0, 1, 1])).unwrap_err();
    assert!(matches!(err, InterpError::BadDispatch(_)), "{err}");
    // Parse errors surface as values too.
    let err = interp::run_source(
        "il_cs_2_0\nfrobnicate r0\nend\n",
        &mut Dispatch::new([1, 1, 1]),
    )
    .unwrap_err();
    assert!(matches!(err, InterpError::Parse(_)), "{err}");
}

#[test]
fn barrier_after_some_items_ended_is_a_warning() {
    // Items 0 and 1 leave main early (ret_logicalnz with an empty call stack ends the
    // work-item); the barrier is released for the other two, with a warning.
    let src = "il_cs_2_0\ndcl_num_thread_per_group 4\ndcl_literal l0, 2, 0, 0, 0\n\
               mov r0.x, vTidInGrpFlat.x\nult r1.x, r0.x, l0.x\nret_logicalnz r1.x\n\
               fence_threads\nend\n";
    let s = interp::run_source(src, &mut Dispatch::new([1, 1, 1])).expect("runs");
    assert_eq!(s.barriers, 1);
    assert!(
        s.warnings.iter().any(|w| w.contains("2 of 4")),
        "{:?}",
        s.warnings
    );
}

#[test]
fn throughput_is_reported() {
    // Not a timing assertion: prints the interpreter's speed for the record.
    let src = "il_cs_2_0\ndcl_num_thread_per_group 64\ndcl_raw_uav_id(0)\n\
               dcl_literal l0, 0, 1, 2000, 2\n\
               mov r0.x, l0.x\nmov r1.x, l0.x\nwhileloop\nuge r2.x, r0.x, l0.z\nbreak_logicalnz r2.x\n\
               imad r1.x, r0.x, r0.x, r1.x\niadd r0.x, r0.x, l0.y\nendloop\n\
               mov r3.x, vAbsTidFlat.x\nishl r3.x, r3.x, l0.w\nuav_raw_store_id(0) mem.x, r3.x, r1.x\nend\n";
    let prog = interp::prepare_source(src).expect("decodes");
    let mut d = Dispatch::new([8, 1, 1]);
    d.uavs.insert(0, vec![0; 512 * 4]);
    let t = std::time::Instant::now();
    let s = interp::run_decoded(&prog, &mut d).expect("runs");
    let dt = t.elapsed().as_secs_f64();
    let expect = (0..2000u64).map(|k| k * k).sum::<u64>() as u32;
    assert!(words(&d.uavs[&0]).iter().all(|&w| w == expect));
    println!(
        "interp: {} instructions in {:.3} s = {:.1} M instructions/s",
        s.instructions,
        dt,
        s.instructions as f64 / dt / 1e6
    );
}

#[test]
fn warp_order_runs_each_warp_to_its_barrier() {
    // Without a barrier, warp 0 (items 0..31) ends before warp 1 starts: item 31 reads
    // item 32's slot before it is written; items 32..62 read what their neighbours stored.
    let src = exchange(false);
    for reverse in [false, true] {
        let mut d = Dispatch::new([1, 1, 1]);
        d.uavs.insert(0, vec![0; 256]);
        d.schedule = Schedule::Warps { width: 32, reverse };
        interp::run_source(&src, &mut d).expect("runs");
        let mut want = expected_exchange(1);
        want[31] = 0;
        assert_eq!(words(&d.uavs[&0]), want, "reverse {reverse}");
    }
    // With the barrier every warp order gives the lock-step result.
    let mut d = Dispatch::new([2, 1, 1]);
    d.uavs.insert(0, vec![0; 512]);
    d.schedule = Schedule::Warps {
        width: 32,
        reverse: false,
    };
    let s = interp::run_source(&exchange(true), &mut d).expect("runs");
    assert_eq!(words(&d.uavs[&0]), expected_exchange(2));
    assert_eq!(s.barriers, 2);
}

#[test]
fn warp_order_reconverges_like_simt() {
    // Odd lanes store to LDS in the `if` side, even lanes load their odd neighbour's slot
    // in the `else` side. A SIMT warp runs one side for its lanes, then the other: the
    // lowest pc first (the `if` side) gives the stored values, the reversed order 0.
    let src = "il_cs_2_0\ndcl_num_thread_per_group 32\ndcl_raw_uav_id(0)\ndcl_lds_id(0) 128\n\
               dcl_literal l0, 2, 1, 7, 4\ndcl_literal l1, 0, 0, 0, 0\n\
               mov r0.x, vTidInGrpFlat.x\nishl r1.x, r0.x, l0.x\nand r2.x, r0.x, l0.y\n\
               mov r4.x, l1.x\n\
               if_logicalnz r2.x\n  iadd r3.x, r0.x, l0.z\n  lds_store_id(0) r1.x, r3.x\n\
               else\n  iadd r5.x, r1.x, l0.w\n  lds_load_id(0) r4.x, r5.x\nendif\n\
               uav_raw_store_id(0) mem.x, r1.x, r4.x\nend\n";
    let run = |reverse| {
        let mut d = Dispatch::new([1, 1, 1]);
        d.uavs.insert(0, vec![0; 128]);
        d.schedule = Schedule::Warps { width: 32, reverse };
        interp::run_source(src, &mut d).expect("runs");
        words(&d.uavs[&0])
    };
    let forward = run(false);
    let backward = run(true);
    for i in (0..32).step_by(2) {
        assert_eq!(forward[i], i as u32 + 1 + 7, "lane {i}");
        assert_eq!(backward[i], 0, "lane {i}");
    }
}
