//! Round-trip properties over every table row with random fields (fixed seed and budget):
//! encode -> decode is the identity, nvdisasm-syntax print -> parse is the identity, the SPA
//! syntax round-trips instruction and control bits, and whole programs round-trip through
//! `encode_program`/`decode_program`. Plus the decoder sweep: random words and every 16-bit
//! opcode prefix decode or error without panicking, and whatever decodes re-encodes exactly.

mod common;

use common::{random_inst, Rng};
use isa_spa5::asm::{parse_inst, parse_spa, print_inst, print_spa, PrintCtx};
use isa_spa5::control::Control;
use isa_spa5::inst::{Inst, Operand};
use isa_spa5::program::{decode_program, encode_program, inst_addr};
use isa_spa5::table::{all_ops, OpKind};
use isa_spa5::{decode, encode};

const PER_FORM: usize = 200;

fn random_control(r: &mut Rng, inst: &Inst) -> Control {
    // Reuse flags only where the form has an operand in that slot.
    let mut reuse_ok = 0u8;
    for k in 0..inst.form().operands.len() {
        if let Some(s) = isa_spa5::asm::print::reuse_slot(inst.form(), k) {
            reuse_ok |= 1 << s;
        }
    }
    Control {
        stall: r.below(16) as u8,
        yield_: r.chance(2),
        wr_bar: (!r.chance(2)).then(|| r.below(6) as u8),
        rd_bar: (!r.chance(2)).then(|| r.below(6) as u8),
        wait_mask: r.bits(6) as u8,
        reuse: r.bits(4) as u8 & reuse_ok,
    }
}

#[test]
fn encode_decode_identity_for_every_form() {
    let mut r = Rng::new(0x1234_5678_9abc_def1);
    let mut n = 0;
    for op in all_ops() {
        for _ in 0..PER_FORM {
            let i = random_inst(op, &mut r);
            let w = encode(&i).unwrap_or_else(|e| panic!("{}: {e} for {i:?}", op.name()));
            let back = decode(w).unwrap_or_else(|e| panic!("{}: {e}", op.name()));
            assert_eq!(back, i, "{} {w:#018x}", op.name());
            n += 1;
        }
    }
    println!(
        "encode/decode: {n} random instructions over {} forms",
        all_ops().count()
    );
}

#[test]
fn print_parse_identity_for_every_form() {
    let mut r = Rng::new(0x0bad_cafe_f00d_0001);
    for op in all_ops() {
        for k in 0..PER_FORM {
            let i = random_inst(op, &mut r);
            let ctrl = random_control(&mut r, &i);
            let addr = inst_addr(k);
            let text = print_inst(
                &i,
                &PrintCtx {
                    addr,
                    reuse: ctrl.reuse,
                },
            );
            let p = parse_inst(&text, addr).unwrap_or_else(|e| panic!("{}: {e}", op.name()));
            assert_eq!(p.inst, i, "{}: `{text}`", op.name());
            assert_eq!(p.reuse, ctrl.reuse, "{}: `{text}`", op.name());
            // SPA syntax: the hints carry the rest of the control bits.
            let spa = print_spa(&i, &ctrl, addr);
            let (pi, pc) = parse_spa(&spa, addr).unwrap_or_else(|e| panic!("{}: {e}", op.name()));
            assert_eq!((pi, pc), (i, ctrl), "{}: `{spa}`", op.name());
        }
    }
}

#[test]
fn decoder_sweep_never_panics_and_is_exact() {
    let mut r = Rng::new(0x5eed_5eed_5eed_5eed);
    let mut decoded = 0usize;
    let mut check = |w: u64| {
        if let Ok(i) = decode(w) {
            decoded += 1;
            assert_eq!(encode(&i), Ok(w), "{i:?}");
            // Printing and parsing what decodes must also agree, except NaN immediates whose
            // payload nvdisasm's `+QNAN` spelling does not carry.
            let nan = i.ops().iter().any(|o| match o {
                Operand::F32(b) => f32::from_bits(*b).is_nan(),
                Operand::F64(b) => f64::from_bits(*b).is_nan(),
                _ => false,
            });
            if nan {
                return;
            }
            let text = print_inst(&i, &PrintCtx::default());
            let p = parse_inst(&text, 0).unwrap_or_else(|e| panic!("{w:#018x}: {e}"));
            assert_eq!(p.inst, i, "`{text}`");
        }
    };
    for prefix in 0..=0xffffu64 {
        for _ in 0..4 {
            check(prefix << 48 | r.bits(48));
        }
        // Sparse low bits: closer to real encodings, so more of them decode.
        check(prefix << 48 | (r.bits(48) & r.bits(48) & r.bits(48)));
    }
    for _ in 0..200_000 {
        check(r.next_u64());
    }
    println!("sweep: {decoded} words decoded");
    assert!(
        decoded > 10_000,
        "the sweep should hit many valid encodings"
    );
}

#[test]
fn programs_round_trip_with_branches() {
    let mut r = Rng::new(0xfeed_beef_0000_0001);
    let ops: Vec<_> = all_ops().collect();
    for _ in 0..50 {
        let n = 1 + r.below(40) as usize;
        let mut prog = Vec::new();
        for _ in 0..n {
            let mut i = random_inst(ops[r.below(ops.len() as u64) as usize], &mut r);
            for (f, o) in i.form().operands.iter().zip(i.operands.iter_mut()) {
                if f.kind == OpKind::Rel {
                    *o = Operand::Label(r.below(n as u64 + 1) as u32);
                }
            }
            let c = random_control(&mut r, &i);
            prog.push((i, c));
        }
        let words = encode_program(&prog).expect("program encodes");
        assert_eq!(words.len(), n.div_ceil(3) * 4);
        let back = decode_program(&words).expect("program decodes");
        for (k, (a, b)) in prog.iter().zip(&back).enumerate() {
            let mut a = *a;
            // Absolute (JCAL) targets come back as labels when they hit an instruction.
            if a.0.form().operands.iter().any(|f| f.kind == OpKind::Abs) {
                a.0.operands = b.0.operands;
            }
            assert_eq!(a, *b, "instruction {k}");
        }
        assert_eq!(encode_program(&back).expect("re-encodes"), words);
    }
}
