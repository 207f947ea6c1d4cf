//! Every opcode of the table, in every operand form it takes, survives print -> parse and
//! encode -> decode, with operands exercising masks, swizzles, modifiers and indices.

use ilc_test_support::assert_no_failures;
use isa_amdil::ast::*;
use isa_amdil::opcodes::{Form, OPCODES};
use isa_amdil::{binary, decode_binary, encode_binary, parse};

fn src(i: usize) -> SrcOperand {
    let mut s = SrcOperand::new(RegRef::new(RegKind::Temp, 2 + i as u32));
    match i % 4 {
        0 => s.swizzle = [Swz::Y, Swz::Z, Swz::W, Swz::X],
        1 => {
            s.reg = RegRef {
                kind: RegKind::ConstBuffer,
                num: 1,
                indices: vec![Index {
                    reg: Some(IndexReg {
                        kind: RegKind::Temp,
                        num: 7,
                        comp: Component::Z,
                    }),
                    offset: 3,
                }]
                .into(),
            };
            s.swizzle = [Swz::X, Swz::Zero, Swz::One, Swz::W];
        }
        2 => {
            s.mods.neg = 0b0101;
            s.mods.abs = true;
        }
        _ => {
            s.reg = RegRef {
                kind: RegKind::Literal,
                num: 4,
                indices: Default::default(),
            }
        }
    }
    s
}

fn dst(op_is_store: bool) -> DstOperand {
    let mut d = DstOperand::new(RegRef::new(
        if op_is_store {
            RegKind::GenericMem
        } else {
            RegKind::Temp
        },
        1,
    ));
    d.mask = [
        DstComp::Write,
        DstComp::Write,
        DstComp::NoWrite,
        DstComp::Zero,
    ];
    d
}

fn instructions() -> Vec<Instruction> {
    let mut v = Vec::new();
    for info in OPCODES {
        let mut i = Instruction::new(info.opcode);
        match info.form {
            Form::Operands => {
                for _ in 0..info.dsts {
                    i.dsts.push(dst(info.opcode.mnemonic().contains("store")));
                }
                for k in 0..info.srcs_max as usize {
                    i.srcs.push(src(k));
                }
                if info.srcs_min != info.srcs_max {
                    let mut j = i.clone();
                    j.srcs.truncate(info.srcs_min as usize);
                    v.push(j);
                }
            }
            Form::Label => i.payload = Payload::Label(77),
            Form::SrcLabel => {
                i.srcs.push(src(0));
                i.payload = Payload::Label(5);
            }
            Form::Case => i.payload = Payload::Case(-3),
            Form::Literal => {
                i.payload = Payload::Literal {
                    reg: 9,
                    values: [1, 0xFFFF_FFFF, 0x3f80_0000, 0],
                }
            }
            Form::ConstBuffer => i.payload = Payload::ConstBuffer { cb: 3, size: 12 },
            Form::IndexedTemp => i.payload = Payload::IndexedTemp { reg: 2, size: 40 },
            Form::Numbers => {
                let n = match info.opcode {
                    isa_amdil::Opcode::DclStructLds | isa_amdil::Opcode::DclStructGds => {
                        vec![16, 4]
                    }
                    isa_amdil::Opcode::DclNumThreadPerGroup
                    | isa_amdil::Opcode::DclTotalNumThreadGroup => vec![8, 4, 2],
                    isa_amdil::Opcode::DclTypelessUav | isa_amdil::Opcode::DclTypedUav => vec![],
                    _ => vec![256],
                };
                i.payload = Payload::Numbers(n.into());
            }
            Form::DstNumbers => {
                i.dsts
                    .push(DstOperand::new(RegRef::new(RegKind::ConstFloat, 3)));
                i.payload = Payload::Numbers(
                    if info.opcode == isa_amdil::Opcode::Def {
                        vec![1, 2, 3, 4]
                    } else {
                        vec![1]
                    }
                    .into(),
                );
            }
            Form::Words => i.payload = Payload::Words(["refactoringAllowed".into()].into()),
            Form::Raw if info.opcode == isa_amdil::Opcode::Macrocall => {
                // `mcall (r1), (r2)`: the argument lists are operands.
                i.dsts.push(DstOperand::new(RegRef::new(RegKind::Temp, 1)));
                i.srcs.push(SrcOperand::new(RegRef::new(RegKind::Temp, 2)));
            }
            Form::Raw => i.payload = Payload::Raw("(r1), (r2)".into()),
        }
        v.push(i);
    }
    for i in &mut v {
        add_required_controls(i);
    }
    v
}

/// The controls an instruction of this opcode always has in valid IL (the binary decoder
/// always produces them).
fn add_required_controls(i: &mut Instruction) {
    use isa_amdil::Opcode::*;
    let m = i.opcode.mnemonic();
    if matches!(i.opcode, Ifc | Breakc | Continuec | Set | Cmp) {
        i.controls.push(Control::Relop(RelOp::Gt));
    }
    let id_family = ["uav_", "lds_", "gds_", "srv_", "append_buf"]
        .iter()
        .any(|p| m.starts_with(p))
        || (m.starts_with("dcl_")
            && [
                "uav",
                "srv",
                "lds",
                "gds",
                "resource",
                "function_table",
                "interface_ptr",
            ]
            .iter()
            .any(|p| m.contains(p)));
    if id_family
        && !matches!(
            i.opcode,
            LdsReadVec | LdsWriteVec | DclLdsSizePerThread | DclLdsSharingMode
        )
    {
        i.controls.push(Control::Id(3));
    }
    let res_family = ["sample", "load", "fetch4", "resinfo", "bufinfo"]
        .iter()
        .any(|p| m.starts_with(p));
    if res_family && !m.starts_with("load_fptr_x") {
        i.controls.push(Control::Resource(2));
    }
    let generic = match i.opcode {
        IFirstbit => Some(("hi", None)),
        Nrm => Some(("nrm4", None)),
        Reflect => Some(("normalize", None)),
        // Not the default 4x4, which binary tokens do not spell out.
        Mmul => Some(("matrix", Some("3x2"))),
        _ => None,
    };
    if let Some((name, value)) = generic {
        i.controls.push(Control::Generic {
            name: name.into(),
            value: value.map(Into::into),
            span: Span::NONE,
        });
    }
}

#[test]
fn every_opcode_prints_and_parses_back() {
    let mut failures = Vec::new();
    for inst in instructions() {
        if inst.opcode == isa_amdil::Opcode::Comment {
            continue; // no text form: a binary-only comment token
        }
        let prog = Program {
            version: None,
            statements: vec![inst.clone()],
            metadata: vec![],
        };
        let text = prog.to_string();
        match parse(&text) {
            (Some(p), _) if p == prog => {}
            (p, d) => failures.push(format!("{text}  -> {:?} {d:?}", p.map(|p| p.to_string()))),
        }
    }
    assert_no_failures(&failures, "failures");
}

#[test]
fn every_opcode_encodes_and_decodes() {
    let mut failures = Vec::new();
    for inst in instructions() {
        let prog = Program {
            version: None,
            statements: vec![inst.clone()],
            metadata: vec![],
        };
        if inst.opcode == isa_amdil::Opcode::Prefix {
            // Only exists as a modifier of the next instruction (`_prec`), tested in binary.rs.
            assert!(encode_binary(&prog).is_err());
            continue;
        }
        match encode_binary(&prog) {
            Ok(words) => match decode_binary(&words) {
                Ok(back) if back == binary::normalize(&prog) => {}
                Ok(back) => failures.push(format!("{prog} decoded as {back}")),
                Err(e) => failures.push(format!("{prog}: {e}")),
            },
            Err(e) => failures.push(format!("{prog}: {e:?}")),
        }
    }
    assert_no_failures(&failures, "failures");
}
