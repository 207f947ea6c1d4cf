//! Compile-time scaling of the IR core and the simple passes: a kernel with `n` diamonds
//! (4 blocks and ~12 instructions each) goes through verify, print, parse, and every pass.
//! The test checks that work grows near-linearly (doubling `n` must not quadruple the
//! time, with slack for a noisy shared machine) and prints the measured rates.

use std::time::{Duration, Instant};

use ilc_passes::ir::{
    FuncCursor, Function, IntCC, MemArg, MemSize, MemSpace, SpecialReg, Type, UavKind,
};
use ilc_passes::verifier::verify_function;

fn build(n: usize) -> Function {
    let mut func = Function::new("big");
    func.group_size = Some([64, 1, 1]);
    func.uavs.insert(0, UavKind::Raw);
    let mut c = FuncCursor::new(&mut func);
    let entry = c.create_block();
    c.goto_end(entry);
    let tid = c.ins().special(SpecialReg::Tid(0));
    let mut acc = tid;
    for k in 0..n {
        let (t, e, j) = (c.create_block(), c.create_block(), c.create_block());
        let p = c.append_block_param(j, Type::B32);
        let kk = c.ins().iconst(Type::B32, k as u64);
        let cond = c.ins().icmp(IntCC::Ult, acc, kk);
        c.ins().brif(cond, t, &[], e, &[]);
        c.goto_end(t);
        let one = c.ins().iconst(Type::B32, 1);
        let x = c.ins().iadd(acc, one);
        let y = c.ins().copy(x);
        c.ins().jump(j, &[y]);
        c.goto_end(e);
        let two = c.ins().iconst(Type::B32, 2);
        let z = c.ins().imul(acc, two);
        let dead = c.ins().ishl(z, two);
        let _ = c.ins().iadd(dead, dead);
        c.ins().jump(j, &[z]);
        c.goto_end(j);
        acc = p;
    }
    let mem = MemArg {
        space: MemSpace::Uav(0),
        offset: 0,
        size: MemSize::Words(1),
        align: 4,
        inbounds: false,
    };
    c.ins().store(mem, Some(tid), &[acc]);
    c.ins().return_();
    func
}

fn pipeline(func: &mut Function) -> Duration {
    let start = Instant::now();
    verify_function(func).expect("generated kernel verifies");
    let text = func.to_string();
    let parsed = ilc_passes::ir::parse_functions(&text).expect("printed kernel parses");
    assert_eq!(parsed.len(), 1);
    ilc_passes::const_fold::run(func);
    ilc_passes::copy_prop::run(func);
    ilc_passes::dce::run(func);
    ilc_passes::simplify_cfg::run(func);
    verify_function(func).expect("optimized kernel verifies");
    start.elapsed()
}

#[test]
fn passes_scale_near_linearly() {
    let small = 2_000;
    let mut f1 = build(small);
    let mut f2 = build(4 * small);
    let insts = f2.inst_count();
    // Best of two runs each, to dampen noise.
    let t1 = pipeline(&mut f1.clone()).min(pipeline(&mut f1));
    let t2 = pipeline(&mut f2.clone()).min(pipeline(&mut f2));
    eprintln!(
        "scaling: {small} diamonds {:?}, {} diamonds ({insts} insts) {:?}, {:.0} insts/s",
        t1,
        4 * small,
        t2,
        insts as f64 / t2.as_secs_f64()
    );
    // Linear would be 4x; quadratic 16x. Allow 10x for noise and cache effects.
    assert!(
        t2 < t1 * 10 + Duration::from_millis(50),
        "super-linear: {t1:?} -> {t2:?}"
    );
}
