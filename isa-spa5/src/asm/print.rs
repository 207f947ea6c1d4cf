//! Printing instructions in nvdisasm syntax and in the SPA syntax with scheduling hints.
//!
//! The printer is generic over the table: mnemonic, then each `Place::Mnem` modifier's name
//! (skipping empty ones) in row order, then the operands in row order with their attached
//! modifiers (`-`, `|..|`, `~`, `.H1`, `.CC`) and `.reuse` flags from the control bits.
//! Optional operands print only when not `PT`/`RZ`/zero. Branch targets print as absolute
//! addresses (`0x60`, from the instruction's address) or, for labels, `` `(.L_3) ``.

use std::fmt::Write;

use super::float::{format_f32, format_f64};
use crate::control::Control;
use crate::inst::{Inst, Operand};
use crate::table::{OpClass, OpKind, Place};

/// Context for printing one instruction.
#[derive(Clone, Copy, Debug, Default)]
pub struct PrintCtx {
    /// Byte address of the instruction (0 if unknown), for absolute branch targets.
    pub addr: u64,
    /// Reuse flags (control bits 20:17) to print as `.reuse`.
    pub reuse: u8,
}

fn hex(v: i64) -> String {
    if v < 0 {
        format!("-0x{:x}", v.unsigned_abs())
    } else {
        format!("0x{v:x}")
    }
}

pub use crate::banks::reuse_slot;

/// Whether a field holds an immediate value.
pub(crate) fn is_imm(kind: OpKind) -> bool {
    matches!(kind.class(), OpClass::IntImm | OpClass::FloatImm)
}

/// Whether an optional operand has its default (unprinted) value.
pub(crate) fn is_default(o: &Operand) -> bool {
    match o {
        Operand::Pred(p) => p.is_true(),
        Operand::Reg(r) => r.is_zero(),
        Operand::Imm(0) | Operand::SbMask(0) => true,
        _ => false,
    }
}

/// Text of one operand value (without attached modifiers).
pub(crate) fn operand_text(kind: OpKind, o: &Operand, addr: u64) -> String {
    match (kind, o) {
        (_, Operand::Reg(r)) => r.to_string(),
        (_, Operand::Pred(p)) => p.to_string(),
        (OpKind::UImm(..) | OpKind::U20 | OpKind::U32(_), Operand::Imm(v)) => {
            format!("0x{:x}", *v as u64)
        }
        (_, Operand::Imm(v)) => hex(*v),
        (_, Operand::F32(b)) => format_f32(*b),
        (_, Operand::F64(b)) => format_f64(f64::from_bits(*b)),
        (OpKind::CBufSp, Operand::CBuf { bank, offset }) => {
            format!("c[0x{bank:x}] [{}]", hex(*offset as i64))
        }
        (_, Operand::CBuf { bank, offset }) => format!("c[0x{bank:x}][{}]", hex(*offset as i64)),
        (_, Operand::CIdx { bank, base, offset }) => {
            if base.is_zero() {
                format!("c[0x{bank:x}][{}]", hex(*offset as i64))
            } else if *offset == 0 {
                format!("c[0x{bank:x}][{base}]")
            } else {
                format!("c[0x{bank:x}][{base}+{}]", hex(*offset as i64))
            }
        }
        (OpKind::Mem { len, scale, .. }, Operand::Mem { base, offset }) => {
            if base.is_zero() && *offset != 0 {
                // Absolute addresses are unsigned.
                let field = (*offset as i64 / scale as i64) as u64 & ((1u64 << len) - 1);
                format!("[0x{:x}]", field * scale as u64)
            } else if *offset == 0 {
                format!("[{base}]")
            } else {
                format!("[{base}+{}]", hex(*offset as i64))
            }
        }
        (_, Operand::Mem { base, offset }) => format!("[{base}+{}]", hex(*offset as i64)),
        (_, Operand::SReg(s)) => s.to_string(),
        (OpKind::Abs, Operand::Target(t)) => format!("0x{:x}", *t as u32),
        (_, Operand::Target(t)) => hex(addr as i64 + 8 + *t as i64),
        (_, Operand::Label(i)) => format!("`(.L_{i})"),
        (_, Operand::SbMask(m)) => {
            let list: Vec<String> = (0..6)
                .rev()
                .filter(|i| m & (1 << i) != 0)
                .map(|i| i.to_string())
                .collect();
            format!("{{{}}}", list.join(","))
        }
        (_, Operand::Sb(s)) => format!("SB{s}"),
        (_, Operand::Pr) => "PR".into(),
        (_, Operand::Cc) => "CC".into(),
        (_, Operand::None) => String::new(),
        (_, Operand::Hole) => "_".into(),
    }
}

/// nvdisasm's text for one instruction, without the trailing ` ;`.
pub fn print_inst(inst: &Inst, ctx: &PrintCtx) -> String {
    print_inst_named(inst, ctx, &|_| None)
}

/// [`print_inst`] with some operands spelt by the caller: `name(k)` replaces the text of
/// operand `k` (its modifiers still print around it). Compilers use it to show instructions
/// whose registers are not allocated yet, operands named after the values that fill them.
pub fn print_inst_named(
    inst: &Inst,
    ctx: &PrintCtx,
    name: &dyn Fn(usize) -> Option<String>,
) -> String {
    let form = inst.form();
    let mut s = String::with_capacity(48);
    if !inst.guard.is_true() {
        let _ = write!(s, "@{} ", inst.guard);
    }
    s.push_str(form.mnemonic);
    for (m, &v) in form.mods.iter().zip(&inst.mods) {
        if m.place == Place::Video(1) {
            if let Some(types) = video_types(inst) {
                s.push_str(&types);
            }
            continue;
        }
        if let Place::MnemArg(_) = m.place {
            let name = m.name(v).unwrap_or("?");
            let mn = name.split_once('|').map_or(name, |(a, _)| a);
            if !mn.is_empty() {
                s.push('.');
                s.push_str(mn);
            }
            continue;
        }
        if m.place == Place::Mnem || matches!(m.place, Place::NegPo(..)) {
            let name = m.name(v).unwrap_or("?");
            if !name.is_empty() {
                s.push('.');
                s.push_str(name);
            }
        }
    }
    if form.has(crate::table::flags::TEX) {
        s.push_str(tex_phase(ctx.reuse));
    }
    let mut first = true;
    for (m, &v) in form.mods.iter().zip(&inst.mods) {
        if m.place == Place::Lead {
            let name = m.name(v).unwrap_or("?");
            if !name.is_empty() {
                let _ = write!(s, " CC.{name}");
                first = false;
            }
        }
    }
    for (k, (f, o)) in form.operands.iter().zip(&inst.operands).enumerate() {
        if f.optional && is_default(o) && name(k).is_none() {
            continue;
        }
        // nvdisasm separates BRX's offset from its register by a space: `BRX R2 -0xa0`.
        s.push_str(if first || form.mnemonic == "BRX" && k == 1 {
            " "
        } else {
            ", "
        });
        first = false;
        let k = k as u8;
        let imm = is_imm(f.kind);
        let (mut neg, mut absolute, mut inv) = (false, false, false);
        for (m, &v) in form.mods.iter().zip(&inst.mods) {
            if v != 0 {
                match m.place {
                    Place::Neg(j) if j == k => neg = true,
                    Place::NegPo(a, _) if a == k && v == 2 => neg = true,
                    Place::NegPo(_, b) if b == k && v == 1 => neg = true,
                    Place::Inv(j) if j == k => inv = true,
                    Place::Abs(j) if j == k => absolute = true,
                    _ => {}
                }
            }
        }
        // Immediates carry their modifiers as suffixes: `0x5.NEG`, `1.5.ABS`, `0x7.INV`.
        if !imm {
            if neg {
                s.push('-');
            }
            if inv {
                s.push('~');
            }
            if absolute {
                s.push('|');
            }
        }
        let signed_ximm = inst
            .get(crate::inst::ModKind::XSign)
            .is_some_and(|x| x & 2 != 0)
            // A video op's signed 16-bit immediate source.
            || form
                .mods
                .iter()
                .zip(&inst.mods)
                .any(|(m, &v)| m.place == Place::Video(k) && m.a.1 == 1 && v == 1);
        match (f.kind, o) {
            _ if name(k as usize).is_some() => s.push_str(&name(k as usize).unwrap_or_default()),
            (OpKind::XImm, Operand::Imm(v)) if signed_ximm => {
                s.push_str(&hex(*v as u16 as i16 as i64))
            }
            // F2F spells its constant like XMAD when the source is F16.
            (OpKind::CBuf, _)
                if form.name.starts_with("F2F")
                    && inst.get_name(crate::inst::ModKind::SType) == Some("F16") =>
            {
                s.push_str(&operand_text(OpKind::CBufSp, o, ctx.addr))
            }
            _ => s.push_str(&operand_text(f.kind, o, ctx.addr)),
        }
        if imm {
            for (flag, name) in [(neg, ".NEG"), (absolute, ".ABS"), (inv, ".INV")] {
                if flag {
                    s.push_str(name);
                }
            }
        }
        for (m, &v) in form.mods.iter().zip(&inst.mods) {
            if m.place == Place::Video(k) && m.a.1 == 3 {
                match v & 7 {
                    sel @ 1..=3 => {
                        let _ = write!(s, ".B{sel}");
                    }
                    5 => s.push_str(".H1"),
                    _ => {}
                }
            }
            if let Place::Suffix(j) = m.place {
                if j == k {
                    let mut name = m.name(v).unwrap_or("?");
                    // A 16-bit source's upper half is `.H1` (byte select B2).
                    if m.kind == crate::inst::ModKind::ByteSel
                        && v == 2
                        && matches!(
                            inst.get_name(crate::inst::ModKind::SType),
                            Some("U16" | "S16")
                        )
                    {
                        name = "H1";
                    }
                    if !name.is_empty() {
                        s.push('.');
                        s.push_str(name);
                    }
                }
            }
        }
        if absolute && !imm {
            s.push('|');
        }
        if let Some(slot) = reuse_slot(form, k as usize) {
            if ctx.reuse & (1 << slot) != 0 {
                s.push_str(".reuse");
            }
        }
        for (m, &v) in form.mods.iter().zip(&inst.mods) {
            if m.place == Place::Arg(k) {
                s.push_str(", ");
                s.push_str(m.name(v).unwrap_or("?"));
            }
            if m.place == Place::MnemArg(k) {
                let name = m.name(v).unwrap_or("?");
                s.push_str(", ");
                s.push_str(name.split_once('|').map_or(name, |(_, b)| b));
            }
        }
    }
    s
}

/// The texture phase suffix a texture instruction's reuse bits print as (`.T`, `.P`).
pub fn tex_phase(reuse: u8) -> &'static str {
    match reuse & 3 {
        1 => ".T",
        2 => ".P",
        3 => ".INVALIDPHASE3",
        _ => "",
    }
}

/// The type of a video source from its [`Place::Video`] field (`S8`, `U16`, `S32`...).
pub(crate) fn video_type(m: &crate::table::ModField, v: u8) -> &'static str {
    const NAMES: [[&str; 3]; 2] = [["U8", "U16", "U32"], ["S8", "S16", "S32"]];
    if m.a.1 == 3 {
        let size = match v & 7 {
            0..=3 => 0,
            4 | 5 => 1,
            6 => 2,
            _ => return "INVALIDSEL7",
        };
        NAMES[(v >> 3 & 1) as usize][size]
    } else {
        NAMES[(v & 1) as usize][1]
    }
}

/// `.TA.TB` for a video instruction whose source types differ from the defaults (`S32`, and
/// `S32` for a register or `S16` for an immediate second source); `None` when they do not.
fn video_types(inst: &Inst) -> Option<String> {
    let form = inst.form();
    let mut ty = [""; 2];
    let mut default = [""; 2];
    for (m, &v) in form.mods.iter().zip(&inst.mods) {
        if let Place::Video(k @ 1..=2) = m.place {
            ty[k as usize - 1] = video_type(m, v);
            default[k as usize - 1] = if m.a.1 == 3 { "S32" } else { "S16" };
        }
    }
    (ty != default).then(|| format!(".{}.{}", ty[0], ty[1]))
}

/// The SPA syntax: nvdisasm text, then the scheduling hints, then ` ;`.
/// Example: `LDG.E R4, [R2] &wr0 ?WAIT1 ;`.
pub fn print_spa(inst: &Inst, control: &Control, addr: u64) -> String {
    let text = print_inst(
        inst,
        &PrintCtx {
            addr,
            reuse: control.reuse,
        },
    );
    format!("{text}{control} ;")
}
