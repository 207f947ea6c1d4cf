//! Golden triples: (instruction built with the public builders, its word as ptxas 12.9
//! encoded it, nvdisasm's text). Each triple checks encode, decode, print and parse together.
//! Words and texts are copied from `nvdisasm -hex` listings of the corpus cubins.

use isa_spa5::asm::{parse_inst, print_inst, PrintCtx};
use isa_spa5::inst::{cbuf, f32imm, mem, Inst, ModKind as M, Op, Operand};
use isa_spa5::regs::{Pred, PredReg, Reg, SpecialReg};
use isa_spa5::{decode, encode};

fn r(n: u8) -> Reg {
    Reg(n)
}

fn triples() -> Vec<(Inst, u64, &'static str)> {
    vec![
        (
            Inst::mov(r(1), cbuf(0, 0x20)),
            0x4c98078000870001,
            "MOV R1, c[0x0][0x20]",
        ),
        (
            Inst::s2r(r(4), SpecialReg::CTAID_X),
            0xf0c8000002570004,
            "S2R R4, SR_CTAID.X",
        ),
        (
            Inst::xmad(r(3), r(4), cbuf(0, 0x8), Reg::RZ)
                .with(M::Mrg, 1)
                .with(M::H1(2), 1),
            0x4f107f8000270403,
            "XMAD.MRG R3, R4, c[0x0] [0x8].H1, RZ",
        ),
        (
            Inst::xmad(r(4), r(4), r(3), r(2))
                .with(M::Psl, 1)
                .with_name(M::XMode, "CBCC")
                .with(M::H1(1), 1)
                .with(M::H1(2), 1),
            0x5b30011800370404,
            "XMAD.PSL.CBCC R4, R4.H1, R3.H1, R2",
        ),
        (
            Inst::isetp(isa_spa5::mods::ICmp::Ge, PredReg(0), r(4), cbuf(0, 0x160)),
            0x4b6d038005870407,
            "ISETP.GE.AND P0, PT, R4, c[0x0][0x160], PT",
        ),
        (
            Inst::exit().guarded(Pred::p(0)),
            0xe30000000000000f,
            "@P0 EXIT",
        ),
        (
            Inst::shl(r(0), r(4), 2),
            0x3848000000270400,
            "SHL R0, R4, 0x2",
        ),
        (
            Inst::iadd(r(6), r(0), cbuf(0, 0x158)).with(M::Cc, 1),
            0x4c10800005670006,
            "IADD R6.CC, R0, c[0x0][0x158]",
        ),
        (
            Inst::iadd(r(7), r(2), cbuf(0, 0x15c)).with(M::X, 1),
            0x4c10080005770207,
            "IADD.X R7, R2, c[0x0][0x15c]",
        ),
        (
            Inst::ldg(isa_spa5::mods::Size::B32, r(5), r(6), 0),
            0xeed4200000070605,
            "LDG.E R5, [R6]",
        ),
        (
            Inst::stg(isa_spa5::mods::Size::B32, r(10), 0x10, r(3)),
            0xeedc200001070a03,
            "STG.E [R10+0x10], R3",
        ),
        (
            Inst::build(Op::RED, &[mem(r(2), 0), r(5).into()])
                .with(M::E, 1)
                .guarded(Pred::not_p(0)),
            0xebf9000000080205,
            "@!P0 RED.E.ADD [R2], R5",
        ),
        (
            Inst::build(
                Op::SHFL_II,
                &[
                    Pred::TRUE.into(),
                    r(6).into(),
                    r(5).into(),
                    Operand::Imm(1),
                    Operand::Imm(0x1f),
                ],
            )
            .with_name(M::ShflOp, "BFLY"),
            0xef17007cf0170506,
            "SHFL.BFLY PT, R6, R5, 0x1, 0x1f",
        ),
        (
            Inst::build(Op::DEPBAR, &[Operand::SbMask(0b10)]),
            0xf0f0000000070002,
            "DEPBAR {1}",
        ),
        (
            Inst::lea_hi(r(3), r(0), cbuf(0, 0x144), r(9), 2).with(M::X, 1),
            0x1a17048005170003,
            "LEA.HI.X R3, R0, c[0x0][0x144], R9, 0x2",
        ),
        (
            Inst::lop3(r(0), r(0), r(6), r(9), 0xf4),
            0x5be7048f40670000,
            "LOP3.LUT R0, R0, R6, R9, 0xf4",
        ),
        (
            Inst::mufu(isa_spa5::mods::Mufu::Rcp, r(0), r(0)),
            0x5080000000470000,
            "MUFU.RCP R0, R0",
        ),
        (Inst::bar_sync(0), 0xf0a81b8000070000, "BAR.SYNC 0x0"),
        (
            Inst::membar(isa_spa5::mods::Scope::Cta),
            0xef98000000070000,
            "MEMBAR.CTA",
        ),
        (
            Inst::sel(r(0), r(6), r(9), Pred::p(0)),
            0x5ca0000000970600,
            "SEL R0, R6, R9, P0",
        ),
        (
            Inst::lds(isa_spa5::mods::Size::U32, r(4), r(3), 0).guarded(Pred::not_p(0)),
            0xef4c100000080304,
            "@!P0 LDS.U.32 R4, [R3]",
        ),
        (
            Inst::build(
                Op::ATOMS_CAS,
                &[r(5).into(), mem(Reg::RZ, 0x18), r(4).into()],
            ),
            0xee4000018047ff05,
            "ATOMS.CAS R5, [0x18], R4, R5",
        ),
        (
            Inst::build(
                Op::DFMA_RC,
                &[r(12).into(), r(10).into(), r(4).into(), cbuf(2, 0)],
            )
            .with(M::Neg(2), 1),
            0x5371020800070a0c,
            "DFMA R12, R10, -R4, c[0x2][0x0]",
        ),
        (
            Inst::fsetp(
                isa_spa5::mods::FCmp::Neu,
                PredReg(0),
                r(12),
                f32imm(f32::INFINITY),
            )
            .with(M::Abs(2), 1),
            0x36bd03ff80070c87,
            "FSETP.NEU.AND P0, PT, |R12|, +INF, PT",
        ),
        (
            Inst::build(Op::F2I_R, &[r(0).into(), r(6).into()])
                .with_name(M::DType, "S32")
                .with_name(M::SType, "F32")
                .with_name(M::Rnd, "TRUNC"),
            0x5cb0018000671a00,
            "F2I.S32.F32.TRUNC R0, R6",
        ),
        (
            Inst::build(Op::I2F_R, &[r(12).into(), r(4).into()])
                .with_name(M::DType, "F32")
                .with_name(M::SType, "S32"),
            0x5cb8000000472a0c,
            "I2F.F32.S32 R12, R4",
        ),
    ]
}

#[test]
fn golden_triples() {
    for (inst, word, text) in triples() {
        assert_eq!(encode(&inst), Ok(word), "encode `{text}`");
        assert_eq!(decode(word), Ok(inst), "decode `{text}`");
        assert_eq!(print_inst(&inst, &PrintCtx::default()), text);
        assert_eq!(
            parse_inst(text, 0).map(|p| p.inst),
            Ok(inst),
            "parse `{text}`"
        );
    }
}

#[test]
fn branch_targets_print_as_addresses() {
    // `@!P0 BRA` at 0xd0 with offset 0x98 lands on 0x170 (0xd0 + 8 + 0x98).
    let i = decode(0xe24000000988000f).expect("BRA decodes");
    assert_eq!(
        print_inst(
            &i,
            &PrintCtx {
                addr: 0xd0,
                reuse: 0
            }
        ),
        "@!P0 BRA 0x170"
    );
    assert_eq!(parse_inst("@!P0 BRA 0x170", 0xd0).map(|p| p.inst), Ok(i));
}

#[test]
fn bad_input_is_an_error_not_a_panic() {
    for t in [
        "",
        "FOO R0",
        "IADD R0, R1",
        "IADD R0, R1, R2, R3",
        "MOV R256, R1",
        "@P9 EXIT",
        "LDG.E.XX R0, [R2]",
        "IADD R0, R1, c[0x0][0x2]",
    ] {
        let r = parse_inst(t, 0).map(|p| encode(&p.inst));
        assert!(!matches!(r, Ok(Ok(_))), "`{t}` should not assemble");
    }
}
