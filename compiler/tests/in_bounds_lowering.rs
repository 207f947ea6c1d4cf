//! `--assume-in-bounds` at the lowering: structured and `g[]` addresses (`index * stride +
//! offset`) lose their guard against exceeding 2^32 (an in-bounds address is below every
//! buffer's size), and the code still matches the interpreter on in-bounds data.

use ilc::verify::{verify, VerifyOptions};
use ilc::{Compiler, Options};

const KERNEL: &str = "il_cs_2_0
dcl_num_thread_per_group 64, 1, 1
dcl_struct_uav_id(0) 20
dcl_cb cb0[1]
dcl_literal l0, 4, 0, 0, 0
mov r0.x, vAbsTidFlat.x
mov r0.y, l0.x
uav_struct_load_id(0) r1, r0.xy
mad r2, r1, cb0[0].yyyy, r1.wzyx
mov g[r0.x], r2
end
";

fn compile(assume_in_bounds: bool) -> ilc::CompiledKernel {
    Compiler::new(Options {
        assume_in_bounds,
        ..Options::default()
    })
    .compile(KERNEL.as_bytes())
    .expect("compiles")
}

#[test]
fn in_bounds_addresses_need_no_overflow_guard() {
    let checked = compile(false).asm_spa();
    let promised = compile(true).asm_spa();
    // The guard is a compare against u32::MAX / stride and a select of a sentinel.
    let sels = |asm: &str| asm.lines().filter(|l| l.starts_with("SEL ")).count();
    assert!(sels(&checked) >= 2, "{checked}");
    assert_eq!(sels(&promised), 0, "{promised}");
    assert!(promised.lines().count() < checked.lines().count());
}

#[test]
fn in_bounds_code_matches_the_interpreter() {
    let compiler = Compiler::new(Options {
        assume_in_bounds: true,
        ..Options::default()
    });
    let opts = VerifyOptions {
        grid: [2, 1, 1],
        ..VerifyOptions::default()
    };
    let report = verify(&compiler, KERNEL.as_bytes(), &opts).expect("verifies");
    assert!(report.passed() && report.compared > 0, "{report}");
}
