//! User input never panics the interpreter: every corpus kernel, mutated line by line
//! (lines dropped, duplicated, swapped), either fails to parse or decode with an error
//! value, or runs to completion / an error value under a small fuel budget.

use std::fs;

use isa_amdil::interp::{self, Dispatch, Schedule};

fn corpus() -> Vec<(String, String)> {
    ilc_test_support::corpus("tests/kernels", "il", 60)
        .iter()
        .map(|p| {
            (
                p.display().to_string(),
                fs::read_to_string(p).expect("readable"),
            )
        })
        .collect()
}

fn run_quietly(src: &str, schedule: Schedule) {
    let Ok(prog) = interp::prepare_source(src) else {
        return;
    };
    let mut d = Dispatch::new([2, 1, 1]);
    for id in [0, 1, 2, 3, 8, 11] {
        d.uavs.insert(id, vec![0x5A; 300]);
    }
    for id in 0..3 {
        d.cbs.insert(id, vec![3; 40]);
    }
    d.global = Some(vec![1; 100]);
    d.fuel = 20_000;
    d.schedule = schedule;
    d.lds_check = true;
    d.report_oob = true;
    d.require_buffers = false;
    let _ = interp::run_decoded(&prog, &mut d);
}

#[test]
fn mutated_kernels_never_panic() {
    let mut runs = 0;
    for (name, text) in corpus() {
        let lines: Vec<&str> = text.lines().collect();
        // Mutate a bounded number of positions per kernel to keep the test fast.
        let step = (lines.len() / 12).max(1);
        for k in (0..lines.len()).step_by(step) {
            let mut dropped = lines.clone();
            dropped.remove(k);
            let mut duplicated = lines.clone();
            duplicated.insert(k, lines[k]);
            let mut swapped = lines.clone();
            swapped.swap(k, (k + 3) % lines.len());
            for (i, variant) in [dropped, duplicated, swapped].into_iter().enumerate() {
                let src = variant.join("\n");
                let schedule = if i == 1 {
                    Schedule::Shuffled { seed: k as u64 }
                } else {
                    Schedule::LockStep
                };
                let r = std::panic::catch_unwind(|| run_quietly(&src, schedule));
                assert!(r.is_ok(), "{name}: mutation {i} at line {k} panicked");
                runs += 1;
            }
        }
    }
    assert!(runs > 500, "only {runs} mutations ran");
}

#[test]
fn hostile_declarations_are_errors_not_aborts() {
    for src in [
        "il_cs_2_0\ndcl_num_thread_per_group 1\ndcl_indexed_temp_array x0[4000000000]\nend\n",
        "il_cs_2_0\ndcl_num_thread_per_group 100000, 100000\nend\n",
        "il_cs_2_0\ndcl_num_thread_per_group 0\nend\n",
        "il_cs_2_0\ndcl_num_thread_per_group 1\ndcl_lds_id(0) 4000000000\nend\n",
    ] {
        let mut d = Dispatch::new([1, 1, 1]);
        let r = std::panic::catch_unwind(move || interp::run_source(src, &mut d).map(|_| ()));
        assert!(r.is_ok(), "panicked on {src:?}");
    }
}
