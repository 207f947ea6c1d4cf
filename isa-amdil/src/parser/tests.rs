//! Unit tests of the text parser: masks, swizzles, registers, every instruction form,
//! program structure and error recovery.

use super::operands::{parse_mask, parse_swizzle, reg_name};
use super::*;

fn one(src: &str) -> Instruction {
    let (p, d) = parse(src);
    assert!(d.iter().all(|d| !d.is_error()), "{d:?}");
    p.unwrap().statements.into_iter().next().unwrap()
}

#[test]
fn masks() {
    use DstComp::*;
    assert_eq!(parse_mask("x___"), Some([Write, NoWrite, NoWrite, NoWrite]));
    assert_eq!(parse_mask("y00"), Some([NoWrite, Write, Zero, Zero]));
    assert_eq!(parse_mask("xyz0"), Some([Write, Write, Write, Zero]));
    assert_eq!(parse_mask("___w"), Some([NoWrite, NoWrite, NoWrite, Write]));
    assert_eq!(parse_mask("y_w"), Some([NoWrite, Write, NoWrite, Write]));
    assert_eq!(parse_mask("1"), Some([One, NoWrite, NoWrite, NoWrite]));
    assert_eq!(parse_mask("zx"), None);
    assert_eq!(parse_mask("xyzw_"), None);
}

#[test]
fn swizzles() {
    use Swz::*;
    assert_eq!(parse_swizzle("x"), Some([X, X, X, X]));
    assert_eq!(parse_swizzle("xy"), Some([X, Y, Y, Y]));
    assert_eq!(parse_swizzle("x000"), Some([X, Zero, Zero, Zero]));
    assert_eq!(parse_swizzle("1"), Some([One; 4]));
    assert_eq!(parse_swizzle("zyx1"), Some([Z, Y, X, One]));
    assert_eq!(parse_swizzle("q"), None);
}

#[test]
fn registers() {
    assert_eq!(reg_name("vaTid0"), Some((RegKind::AbsThreadIdFlat, 0)));
    assert_eq!(reg_name("vTid"), Some((RegKind::ThreadIdInGroupFlat, 0)));
    assert_eq!(
        reg_name("vThreadGrpIdFlat0"),
        Some((RegKind::ThreadGroupIdFlat, 0))
    );
    assert_eq!(reg_name("r1023"), Some((RegKind::Temp, 1023)));
    assert_eq!(reg_name("mem0"), Some((RegKind::GenericMem, 0)));
    assert_eq!(reg_name("q1"), None);
    assert_eq!(reg_name("r"), None);
}

#[test]
fn instruction_forms() {
    let i = one("uav_raw_load_id(11)_cached r1010.x___, r66.xxxx");
    assert_eq!(i.opcode, Opcode::UavRawLoad);
    assert_eq!(i.controls[..], [Control::Id(11), Control::Cached]);
    assert_eq!(i.srcs[0].swizzle, [Swz::X; 4]);

    let i = one("add_x2_sat r0, r1_neg(xw), cb0[r2.y+3].x000_abs");
    assert!(i.dsts[0].sat);
    assert_eq!(i.dsts[0].shift, ShiftScale::X2);
    assert_eq!(i.srcs[0].mods.neg, 0b1001);
    let ix = i.srcs[1].reg.indices[0];
    assert_eq!(ix.offset, 3);
    assert_eq!(ix.reg.unwrap().comp, Component::Y);
    assert!(i.srcs[1].mods.abs);

    let i = one("dcl_literal l1, 0x3f800000, 1.0, 4.0f, 4294967295 ; comment");
    assert_eq!(
        i.payload,
        Payload::Literal {
            reg: 1,
            values: [0x3f800000, 0x3f800000, 0x40800000, 0xFFFF_FFFF]
        }
    );

    let i = one("dcl_num_thread_per_group 64,1 ,1");
    assert_eq!(i.dims3(), Some([64, 1, 1]));
    let i = one("fence_threads_lds_mem_write_only");
    assert!(i.has_fence(FenceFlag::Threads) && i.has_fence(FenceFlag::MemWriteOnly));
    let i = one("ifc_relop(ge) r0.x, r1.x");
    assert_eq!(i.relop(), Some(RelOp::Ge));
    let i = one("call_logicalnz r0.x, 12");
    assert_eq!(i.payload, Payload::Label(12));
    let i = one("case -1");
    assert_eq!(i.payload, Payload::Case(-1));
    let i = one("dcl_cb cb1[4096]");
    assert_eq!(i.payload, Payload::ConstBuffer { cb: 1, size: 4096 });
    let i = one("mov r0 r1.y");
    assert_eq!(i.srcs.len(), 1);
    let i = one("mad r1.x, r2.y, cb0[3].x, x1[r4.x].y");
    let regs: Vec<_> = i.regs().map(|r| (r.kind, r.num)).collect();
    assert_eq!(
        regs,
        [
            (RegKind::Temp, 1),
            (RegKind::Temp, 2),
            (RegKind::ConstBuffer, 0),
            (RegKind::IndexedTemp, 1)
        ]
    );
    let i = one("ffb_hi r0, r1");
    assert_eq!(i.opcode, Opcode::IFirstbit);
    assert_eq!(i.generic("hi"), Some(None));
}

/// Mnemonics match in any case, with and without controls, and the longest mnemonic
/// prefix wins over a shorter one followed by controls; operand registers too.
#[test]
fn mnemonic_case_and_longest_prefix() {
    let i = one("IADD R0.x, R1.x, r2.y");
    assert_eq!(i.opcode, Opcode::IAdd);
    assert_eq!(i.srcs[0].reg, RegRef::new(RegKind::Temp, 1));
    let i = one("Uav_Raw_Load_Id(3)_Cached r1, r0.x");
    assert_eq!((i.opcode, i.id()), (Opcode::UavRawLoad, Some(3)));
    let i = one("ADD_IEEE r0, r1, r2");
    assert_eq!(i.opcode, Opcode::Add);
    assert!(i.controls.iter().any(|c| matches!(c, Control::Ieee)));
    let (_, d) = parse("il_cs_2_0\nIADDX r0, r1, r2\nend\n");
    assert!(d.iter().any(|d| d.code == codes::UNKNOWN_OPCODE), "{d:?}");
}

#[test]
fn immediate_constant_buffer_text() {
    let i = one("dcl_cb icb[1] = { 1.0, 2 }");
    assert_eq!(i.payload, Payload::ImmConstBuffer([0x3f80_0000, 2].into()));
    let (_, d) = parse("dcl_cb icb[3] = {1}\ndcl_cb icb[1]\ndcl_cb icb[1] = {1, 2\n");
    let codes: Vec<_> = d.iter().map(|d| (d.code, d.span.line)).collect();
    assert_eq!(
        codes,
        vec![
            (codes::BAD_DECL, 1),
            (codes::SUSPICIOUS, 2),
            (codes::UNTERMINATED, 3)
        ]
    );
}

#[test]
fn disassembler_forms() {
    let (p, d) = parse("dx11_cs\nil_cs_2_0\nffb(hi) r0, r1\ndcl_cb icb[1]\n");
    let p = p.unwrap();
    assert_eq!(d.len(), 2, "{d:?}");
    assert_eq!(p.statements[0].generic("hi"), Some(None));
    assert_eq!(
        p.statements[1].payload,
        Payload::ImmConstBuffer([0; 4].into())
    );
}

#[test]
fn global_flags_with_bars() {
    let i = one("dcl_global_flags refactoringAllowed|enableDoublePrecisionFloatOps");
    assert_eq!(
        i.payload,
        Payload::Words(
            [
                "refactoringAllowed".into(),
                "enableDoublePrecisionFloatOps".into()
            ]
            .into()
        )
    );
}

#[test]
fn guide_spelling_of_lds_read_ops() {
    let (p, d) = parse("lds_read_add_resource(2) r0.x, r1.x, r2.x\n");
    assert_eq!(p.unwrap().statements[0].id(), Some(2));
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].code, codes::PRACTICE);
}

#[test]
fn program_structure() {
    let src = "il_cs_2_0\r\n;DEBUGSTART\n.file \"x\"\n;DEBUGEND\ndcl_cb cb0[1]\n;ARGSTART:k\n;uniqueid:1024\n;ARGEND:k\nfunc 1024\nret\nend;\n";
    let (p, d) = parse(src);
    assert!(d.is_empty(), "{d:?}");
    let p = p.unwrap();
    let v = p.version.unwrap();
    assert_eq!(
        (v.shader, v.major, v.minor),
        (ShaderType::Compute, Some(2), Some(0))
    );
    assert_eq!(p.statements.len(), 4);
    assert_eq!(p.metadata.len(), 1);
    assert_eq!(p.metadata[0].before_statement, 1);
}

#[test]
fn errors_have_lines_and_recover() {
    let (p, d) = parse("il_cs\nbogus r0\nmov r0, q7\nmov r0.zx, r1\nend\n");
    assert!(p.is_none());
    let lines: Vec<u32> = d.iter().map(|d| d.span.line).collect();
    assert_eq!(lines, vec![2, 3, 4]);
    assert_eq!(d[0].code, codes::UNKNOWN_OPCODE);
}

#[test]
fn unexpected_characters_are_named_at_their_column() {
    let (p, d) = parse("il_cs\n@x\nmov r0, #1\nend\n");
    assert!(p.is_none());
    let got: Vec<(u32, u32, &str)> = d
        .iter()
        .map(|d| (d.span.line, d.span.col, d.message.as_str()))
        .collect();
    assert_eq!(
        got,
        vec![
            (2, 1, "unexpected character `@`"),
            (3, 9, "expected a register, found `#`"),
        ]
    );
    assert!(d.iter().all(|d| d.code == codes::UNEXPECTED));
}
