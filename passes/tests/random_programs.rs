//! Property test over randomly generated kernels: every kernel must verify, print to a
//! fixed point, and keep its interpreter results through every pass (alone and chained),
//! with the output verifying after each pass. The generator covers every pure opcode,
//! diamonds with block parameters, bounded loops, `br_table`, private/LDS/UAV memory,
//! sub-word and vector accesses, and barriers. Deterministic (seeded `ilc_test_support::Rng`);
//! `ILC_RANDOM_PROGRAMS=N` changes the number of kernels.

use ilc_passes::filetest::check_fixed_point;
use ilc_passes::interp::{
    bytes_to_words, run_dispatch_with_hooks, words_to_bytes, Dispatch, Hooks, InterpOptions,
    Memory, Schedule,
};
use ilc_passes::ir::{
    BarrierFlags, Block, FloatCC, FuncCursor, Function, IntCC, MemArg, MemSize, MemSpace, Opcode,
    SpecialReg, Type, UavKind, Value,
};
use ilc_passes::verifier::verify_function;
use ilc_test_support::Rng;

/// A 32-bit pattern: small integers, all-ones neighbours, floats in [1, 2), small
/// integral floats or arbitrary bits.
fn random_word(rng: &mut Rng) -> u64 {
    match rng.index(6) {
        0 => rng.below(8),
        1 => 0xFFFF_FFFF - rng.below(3),
        2 => f32::from_bits(0x3F80_0000 + rng.below(1 << 23) as u32).to_bits() as u64,
        3 => (rng.below(200) as f32 - 100.0).to_bits() as u64,
        _ => rng.next_u64() & 0xFFFF_FFFF,
    }
}

const GROUP: u32 = 4;
const OUT_WORDS: u32 = 8;

struct Gen<'a> {
    rng: &'a mut Rng,
    b32: Vec<Value>,
    b64: Vec<Value>,
    preds: Vec<Value>,
    /// This work-item's output byte base (tid * OUT_WORDS * 4), in uav1.
    out_base: Value,
    tid4: Value,
}

impl Gen<'_> {
    fn v32(&mut self) -> Value {
        self.rng.pick(&self.b32)
    }

    fn emit_pure(&mut self, c: &mut FuncCursor) {
        let ops32u = [
            Opcode::Ineg,
            Opcode::Bnot,
            Opcode::Bitrev,
            Opcode::Popcnt,
            Opcode::Clz,
            Opcode::FirstbitHi,
            Opcode::FirstbitLo,
            Opcode::FirstbitShi,
            Opcode::Iabs,
            Opcode::Fneg,
            Opcode::Fabs,
            Opcode::Frcp,
            Opcode::Frsq,
            Opcode::Fsqrt,
            Opcode::Fexp2,
            Opcode::Flog2,
            Opcode::Fsin,
            Opcode::Fcos,
            Opcode::Ffloor,
            Opcode::Fceil,
            Opcode::Ftrunc,
            Opcode::FroundEven,
            Opcode::Ffract,
            Opcode::Fsat,
            Opcode::F2i,
            Opcode::F2u,
            Opcode::I2f,
            Opcode::U2f,
            Opcode::F16to32,
            Opcode::F32to16,
            Opcode::Copy,
        ];
        let ops32b = [
            Opcode::Iadd,
            Opcode::Isub,
            Opcode::Imul,
            Opcode::Imulhi,
            Opcode::Umulhi,
            Opcode::Idiv,
            Opcode::Udiv,
            Opcode::Irem,
            Opcode::Urem,
            Opcode::Ishl,
            Opcode::Ishr,
            Opcode::Ushr,
            Opcode::Band,
            Opcode::Bor,
            Opcode::Bxor,
            Opcode::Imin,
            Opcode::Imax,
            Opcode::Umin,
            Opcode::Umax,
            Opcode::Fadd,
            Opcode::Fsub,
            Opcode::Fmul,
            Opcode::FmulLegacy,
            Opcode::Fmin,
            Opcode::Fmax,
            Opcode::Fdiv,
            Opcode::Fldexp,
        ];
        let ops32t = [
            Opcode::Imad,
            Opcode::Ubfe,
            Opcode::Ibfe,
            Opcode::Fshr,
            Opcode::Ffma,
            Opcode::Fmad,
            Opcode::FmadLegacy,
        ];
        let ops64u = [
            Opcode::Dneg,
            Opcode::Dabs,
            Opcode::Drcp,
            Opcode::Dsqrt,
            Opcode::Ineg,
            Opcode::Bnot,
        ];
        let ops64b = [
            Opcode::Dadd,
            Opcode::Dsub,
            Opcode::Dmul,
            Opcode::Ddiv,
            Opcode::Dmin,
            Opcode::Dmax,
            Opcode::Iadd,
            Opcode::Imul,
            Opcode::Udiv,
            Opcode::Irem,
            Opcode::Bxor,
            Opcode::Umax,
        ];
        match self.rng.index(14) {
            0..=3 => {
                let (op, a) = (self.rng.pick(&ops32u), self.v32());
                let v = c.ins().unary(op, a);
                self.b32.push(v);
            }
            4..=6 => {
                let (op, a, b) = (self.rng.pick(&ops32b), self.v32(), self.v32());
                let v = c.ins().binary(op, a, b);
                self.b32.push(v);
            }
            7 => {
                let (op, a, b, d) = (self.rng.pick(&ops32t), self.v32(), self.v32(), self.v32());
                let v = c.ins().ternary(op, a, b, d);
                self.b32.push(v);
            }
            8 => {
                let (a, b, i, d) = (self.v32(), self.v32(), self.v32(), self.v32());
                let v = c.ins().bfi(a, b, i, d);
                self.b32.push(v);
            }
            9 => {
                let (a, b) = (self.v32(), self.v32());
                let p = match self.rng.index(3) {
                    0 => c.ins().icmp(self.rng.pick(&IntCC::ALL), a, b),
                    1 => c.ins().fcmp(self.rng.pick(&FloatCC::ALL), a, b),
                    _ => {
                        let (x, y) = (self.rng.pick(&self.b64), self.rng.pick(&self.b64));
                        c.ins().dcmp(self.rng.pick(&FloatCC::ALL), x, y)
                    }
                };
                self.preds.push(p);
                let q = self.rng.pick(&self.preds);
                let op = self.rng.pick(&[Opcode::Pand, Opcode::Por, Opcode::Pxor]);
                let r = c.ins().binary(op, p, q);
                let r = c.ins().pnot(r);
                self.preds.push(r);
                let m = c.ins().bmask(r);
                self.b32.push(m);
                // AMD IL boolean round trips (const_fold rewrites these).
                let zero = c.ins().iconst(Type::B32, 0);
                let ones = c.ins().iconst(Type::B32, 0xFFFF_FFFF);
                let cc = self.rng.pick(&[IntCC::Eq, IntCC::Ne]);
                let k = self.rng.pick(&[zero, ones]);
                let back = c.ins().icmp(cc, m, k);
                self.preds.push(back);
                let sel = c.ins().select(back, ones, zero);
                self.b32.push(sel);
            }
            10 => {
                let p = self.rng.pick(&self.preds);
                let (a, b) = (self.v32(), self.v32());
                let v = c.ins().select(p, a, b);
                self.b32.push(v);
                let (x, y) = (self.rng.pick(&self.b64), self.rng.pick(&self.b64));
                let w = c.ins().select(p, x, y);
                self.b64.push(w);
            }
            11 => {
                let (a, b) = (self.v32(), self.v32());
                let w = match self.rng.index(4) {
                    0 => c.ins().concat(a, b),
                    1 => c.ins().f2d(a),
                    2 => c.ins().i2d(a),
                    _ => c.ins().u2d(b),
                };
                self.b64.push(w);
            }
            12 => {
                let (op, x) = (self.rng.pick(&ops64u), self.rng.pick(&self.b64));
                let w = c.ins().unary(op, x);
                self.b64.push(w);
                let (op, y) = (self.rng.pick(&ops64b), self.rng.pick(&self.b64));
                let w2 = c.ins().binary(op, w, y);
                self.b64.push(w2);
                let s = self.v32();
                let w3 = c.ins().ishl(w2, s);
                self.b64.push(w3);
                let w4 = c.ins().dldexp(w3, s);
                self.b64.push(w4);
            }
            _ => {
                let x = self.rng.pick(&self.b64);
                let op = self.rng.pick(&[
                    Opcode::Lo,
                    Opcode::Hi,
                    Opcode::D2f,
                    Opcode::D2i,
                    Opcode::D2u,
                ]);
                let v = c.ins().unary(op, x);
                self.b32.push(v);
                let y = self.rng.pick(&self.b64);
                let z = self.rng.pick(&self.b64);
                let d = c.ins().dfma(x, y, z);
                self.b64.push(d);
            }
        }
    }

    fn emit_mem(&mut self, c: &mut FuncCursor, ss: ilc_passes::ir::StackSlot) {
        let mem = |space, offset, size| MemArg {
            space,
            offset,
            size,
            align: 4,
            inbounds: false,
        };
        match self.rng.index(5) {
            0 => {
                // Read-only input uav0: any address (out of range reads 0).
                let a = self.v32();
                let mask = c.ins().iconst(Type::B32, 0x7C);
                let a = c.ins().band(a, mask);
                let size = self.rng.pick(&[
                    MemSize::Words(1),
                    MemSize::Words(2),
                    MemSize::Words(4),
                    MemSize::U8,
                    MemSize::S16,
                ]);
                let vals = c.ins().load(
                    mem(MemSpace::Uav(0), self.rng.index(3) as i32 * 4, size),
                    Some(a),
                );
                self.b32.extend(vals);
            }
            1 => {
                // Private array: store then load back.
                let a = self.v32();
                let mask = c.ins().iconst(Type::B32, 0xC);
                let a = c.ins().band(a, mask);
                let d = self.v32();
                c.ins().store(
                    mem(MemSpace::Private(ss), 0, MemSize::Words(1)),
                    Some(a),
                    &[d],
                );
                let b = self.v32();
                let b = c.ins().band(b, mask);
                let vals = c
                    .ins()
                    .load(mem(MemSpace::Private(ss), 0, MemSize::S8), Some(b));
                self.b32.extend(vals);
            }
            2 => {
                // This work-item's LDS words (no sharing, so no races).
                let d = self.v32();
                let e = self.v32();
                let t = self.tid4;
                c.ins()
                    .store(mem(MemSpace::Lds(0), 0, MemSize::Words(1)), Some(t), &[d]);
                c.ins()
                    .store(mem(MemSpace::Lds(0), 16, MemSize::U16), Some(t), &[e]);
                let vals = c
                    .ins()
                    .load(mem(MemSpace::Lds(0), 0, MemSize::Words(1)), Some(t));
                self.b32.extend(vals);
            }
            3 => {
                // Commutative atomics on a shared counter: final value is order independent.
                let d = self.v32();
                // One counter per operation kind: different kinds do not commute.
                let ops = [
                    ilc_passes::ir::AtomicOp::Add,
                    ilc_passes::ir::AtomicOp::Xor,
                    ilc_passes::ir::AtomicOp::Umax,
                ];
                let k = self.rng.index(ops.len());
                let at = mem(
                    MemSpace::Uav(1),
                    ((GROUP * OUT_WORDS + k as u32) * 4) as i32,
                    MemSize::Words(1),
                );
                c.ins().atomic_noret(ops[k], at, None, &[d]);
            }
            _ => {
                c.ins().barrier(BarrierFlags {
                    threads: true,
                    lds: true,
                    memory: false,
                    gds: false,
                });
            }
        }
    }

    fn emit_straight(&mut self, c: &mut FuncCursor, ss: ilc_passes::ir::StackSlot, n: usize) {
        for _ in 0..n {
            if self.rng.index(5) == 0 {
                self.emit_mem(c, ss);
            } else {
                self.emit_pure(c);
            }
        }
    }
}

fn generate(rng: &mut Rng) -> Function {
    let mut func = Function::new("random");
    func.group_size = Some([GROUP, 1, 1]);
    func.uavs.insert(0, UavKind::Raw);
    func.uavs.insert(1, UavKind::Raw);
    func.lds.insert(0, 64);
    let ss = func.create_stack_slot(16);
    let mut c = FuncCursor::new(&mut func);
    let entry = c.create_block();
    c.goto_end(entry);
    let tid = c.ins().special(SpecialReg::Tid(0));
    let two = c.ins().iconst(Type::B32, 2);
    let tid4 = c.ins().ishl(tid, two);
    let stride = c.ins().iconst(Type::B32, (OUT_WORDS * 4) as u64);
    let out_base = c.ins().imul(tid, stride);
    let mut b32 = vec![tid, two, tid4];
    for _ in 0..3 {
        let w = random_word(rng);
        b32.push(c.ins().iconst(Type::B32, w));
    }
    let k = rng.next_u64();
    let d = c.ins().iconst(Type::B64, k);
    let dd = c.ins().f64const(rng.index(1000) as f64 / 7.0);
    let p = c.ins().pconst(rng.index(2) == 1);
    let mut g = Gen {
        rng,
        b32,
        b64: vec![d, dd],
        preds: vec![p],
        out_base,
        tid4,
    };
    g.emit_straight(&mut c, ss, 4);
    for _ in 0..g.rng.index(4) + 1 {
        match g.rng.index(3) {
            0 => {
                // Diamond joining through block parameters.
                let (t, e, j) = (c.create_block(), c.create_block(), c.create_block());
                let jp = c.append_block_param(j, Type::B32);
                let jq = c.append_block_param(j, Type::B64);
                let cond = g.rng.pick(&g.preds);
                c.ins().brif(cond, t, &[], e, &[]);
                let saved = (g.b32.len(), g.b64.len(), g.preds.len());
                for blk in [t, e] {
                    c.goto_end(blk);
                    g.emit_straight(&mut c, ss, 3);
                    let (a, b) = (g.v32(), g.rng.pick(&g.b64));
                    c.ins().jump(j, &[a, b]);
                    g.b32.truncate(saved.0);
                    g.b64.truncate(saved.1);
                    g.preds.truncate(saved.2);
                }
                c.goto_end(j);
                g.b32.push(jp);
                g.b64.push(jq);
            }
            1 => {
                // Bounded loop: i = 0..n with an accumulator.
                let (h, exit) = (c.create_block(), c.create_block());
                let i = c.append_block_param(h, Type::B32);
                let acc = c.append_block_param(h, Type::B32);
                let zero = c.ins().iconst(Type::B32, 0);
                let init = g.v32();
                c.ins().jump(h, &[zero, init]);
                c.goto_end(h);
                let saved = (g.b32.len(), g.b64.len(), g.preds.len());
                g.b32.push(i);
                g.b32.push(acc);
                g.emit_straight(&mut c, ss, 3);
                let next_acc = g.v32();
                g.b32.truncate(saved.0);
                g.b64.truncate(saved.1);
                g.preds.truncate(saved.2);
                let one = c.ins().iconst(Type::B32, 1);
                let i2 = c.ins().iadd(i, one);
                let n = c.ins().iconst(Type::B32, g.rng.index(5) as u64 + 1);
                let more = c.ins().icmp(IntCC::Ult, i2, n);
                c.ins().brif(more, h, &[i2, next_acc], exit, &[]);
                c.goto_end(exit);
                // `acc` dominates the exit (the header dominates it).
                g.b32.push(acc);
            }
            _ => {
                // Switch on a small index.
                let blocks: Vec<Block> = (0..3).map(|_| c.create_block()).collect();
                let j = c.create_block();
                let jp = c.append_block_param(j, Type::B32);
                let x = g.v32();
                let three = c.ins().iconst(Type::B32, 3);
                let idx = c.ins().urem(x, three);
                let calls = blocks
                    .iter()
                    .map(|&b| ilc_passes::ir::BlockCall::new(b, &[]))
                    .collect();
                let default_arg = g.v32();
                c.ins().br_table(
                    idx,
                    ilc_passes::ir::BlockCall::new(j, &[default_arg]),
                    calls,
                );
                for &b in &blocks {
                    c.goto_end(b);
                    let saved = (g.b32.len(), g.b64.len(), g.preds.len());
                    g.emit_straight(&mut c, ss, 2);
                    let a = g.v32();
                    c.ins().jump(j, &[a]);
                    g.b32.truncate(saved.0);
                    g.b64.truncate(saved.1);
                    g.preds.truncate(saved.2);
                }
                c.goto_end(j);
                g.b32.push(jp);
            }
        }
        g.emit_straight(&mut c, ss, 3);
    }
    // Outputs: this work-item's words of uav1.
    for k in 0..OUT_WORDS as i32 {
        let v = match k {
            0 => {
                let p = g.rng.pick(&g.preds);
                c.ins().bmask(p)
            }
            1 => {
                let x = g.rng.pick(&g.b64);
                c.ins().hi(x)
            }
            2 => {
                let x = g.rng.pick(&g.b64);
                c.ins().lo(x)
            }
            _ => g.v32(),
        };
        let base = g.out_base;
        c.ins().store(
            MemArg {
                space: MemSpace::Uav(1),
                offset: 4 * k,
                size: MemSize::Words(1),
                align: 4,
                inbounds: false,
            },
            Some(base),
            &[v],
        );
    }
    c.ins().return_();
    func
}

fn run(func: &Function, input: &[u32], schedule: Schedule) -> Result<Vec<u32>, String> {
    let mut mem = Memory::default();
    mem.uavs.insert(0, words_to_bytes(input));
    mem.uavs
        .insert(1, vec![0; ((GROUP * OUT_WORDS + 3) * 4) as usize]);
    let hooks = Hooks {
        check_lds_races: true,
        ..Hooks::default()
    };
    run_dispatch_with_hooks(
        func,
        &Dispatch {
            grid: [2, 1, 1],
            group_size: None,
        },
        &mut mem,
        &InterpOptions {
            fuel: 1_000_000,
            schedule,
        },
        &hooks,
    )
    .map_err(|e| e.to_string())?;
    Ok(bytes_to_words(&mem.uavs[&1]))
}

type Pass = (&'static str, fn(&mut Function));

const PASSES: [Pass; 11] = [
    ("if_convert", ilc_passes::if_convert::run),
    ("combine", ilc_passes::combine::run),
    ("mem_combine", ilc_passes::mem_combine::run),
    ("addr_fold", ilc_passes::addr_fold::run),
    ("const_fold", ilc_passes::const_fold::run),
    ("strength_reduce", ilc_passes::strength_reduce::run),
    ("copy_prop", ilc_passes::copy_prop::run),
    ("gvn", ilc_passes::gvn::run),
    ("licm", ilc_passes::licm::run),
    ("dce", ilc_passes::dce::run),
    ("simplify_cfg", ilc_passes::simplify_cfg::run),
];

#[test]
fn random_programs_survive_every_pass() {
    let n: usize = std::env::var("ILC_RANDOM_PROGRAMS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(150);
    let mut rng = Rng::new(0x9E37_79B9_7F4A_7C15);
    for case in 0..n {
        let func = generate(&mut rng);
        if let Err(e) = verify_function(&func) {
            panic!(
                "case {case}: generated kernel fails the verifier:\n{}",
                e.display_with(&func)
            );
        }
        check_fixed_point(&func).unwrap_or_else(|e| panic!("case {case}: {e}"));
        let input: Vec<u32> = (0..40).map(|_| random_word(&mut rng) as u32).collect();
        let want = run(&func, &input, Schedule::LockStep)
            .unwrap_or_else(|e| panic!("case {case}: {e}\n{func}"));
        for schedule in [Schedule::Reverse, Schedule::Shuffled { seed: case as u64 }] {
            assert_eq!(
                run(&func, &input, schedule).unwrap(),
                want,
                "case {case}: {schedule:?} gives other results\n{func}"
            );
        }
        // Each pass alone, then all chained twice.
        for (name, pass) in PASSES {
            let mut f = func.clone();
            pass(&mut f);
            check(case, name, &func, &f, &input, &want);
        }
        let mut f = func.clone();
        for round in 0..2 {
            for (name, pass) in PASSES {
                pass(&mut f);
                check(
                    case,
                    &format!("{name} (chain round {round})"),
                    &func,
                    &f,
                    &input,
                    &want,
                );
            }
        }
        let dense = ilc_passes::ir::renumber(&f);
        check(case, "renumber", &f, &dense, &input, &want);
        assert_eq!(
            dense.dfg.num_insts(),
            dense.inst_count(),
            "case {case}: renumber kept dead instructions"
        );
        assert!(
            f.inst_count() <= func.inst_count(),
            "case {case}: the pipeline grew the kernel"
        );
    }
}

fn check(
    case: usize,
    name: &str,
    before: &Function,
    after: &Function,
    input: &[u32],
    want: &[u32],
) {
    if let Err(e) = verify_function(after) {
        panic!(
            "case {case}: {name} output fails the verifier:\n{}\nbefore:\n{before}",
            e.display_with(after)
        );
    }
    check_fixed_point(after).unwrap_or_else(|e| panic!("case {case}: {name}: {e}"));
    let got = run(after, input, Schedule::LockStep)
        .unwrap_or_else(|e| panic!("case {case}: {name}: {e}"));
    assert_eq!(
        got, want,
        "case {case}: {name} changed the results\nbefore:\n{before}\nafter:\n{after}"
    );
}

/// The reader must reject malformed text with an error, never panic.
#[test]
fn reader_never_panics_on_mutated_text() {
    let mut rng = Rng::new(12345);
    let mut base = generate(&mut rng).to_string();
    let alphabet = b"v0123456789block,:=()[]{}+-|% \n;.xabc";
    let n: usize = std::env::var("ILC_MUTATIONS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2000);
    let mut verified = 0;
    for k in 0..n {
        if k % 200 == 199 {
            base = generate(&mut rng).to_string();
        }
        let mut t = base.as_bytes().to_vec();
        for _ in 0..rng.index(4) + 1 {
            let pos = rng.index(t.len());
            match rng.index(3) {
                0 => t[pos] = alphabet[rng.index(alphabet.len())],
                1 => {
                    t.remove(pos);
                }
                _ => t.insert(pos, alphabet[rng.index(alphabet.len())]),
            }
        }
        let text = String::from_utf8_lossy(&t);
        if let Ok(funcs) = ilc_passes::ir::parse_functions(&text) {
            // Whatever parses must verify or report errors, without panicking.
            // ... and whatever verifies must run (or trap) in the interpreter and survive
            // every pass.
            for f in &funcs {
                if verify_function(f).is_ok() {
                    verified += 1;
                    let _ = run(f, &[1, 2, 3], Schedule::LockStep);
                    let mut g = f.clone();
                    for (_, pass) in PASSES {
                        pass(&mut g);
                    }
                    verify_function(&g).unwrap_or_else(|e| panic!("{}\n{f}", e.display_with(&g)));
                }
            }
        }
    }
    eprintln!("mutations: {n} texts, {verified} parsed and verified");
}
