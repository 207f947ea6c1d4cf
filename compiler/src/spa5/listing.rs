//! Assembly listings of emitted code: plain nvdisasm-like text and the SPA syntax with
//! scheduling hints (`&wr0`, `&rd1`, `&req={0,3}`, `?WAIT6`, `?YIELD`).
//!
//! A small self-contained printer over the isa-spa5 table (mnemonic, mnemonic modifiers,
//! operands with their negate/abs/invert/suffix modifiers). Branch targets print as absolute
//! byte addresses, as nvdisasm does.

use std::fmt::Write;

use isa_spa5::inst::Operand;
use isa_spa5::table::Place;
use isa_spa5::{Control, Inst as MInst, Pred};

use super::inst_addr;

fn pred(p: Pred) -> String {
    let n = if p.reg.is_true() {
        "PT".to_string()
    } else {
        format!("P{}", p.reg.0)
    };
    if p.not {
        format!("!{n}")
    } else {
        n
    }
}

fn operand(o: &Operand, addr: i64) -> String {
    let reg = |r: isa_spa5::Reg| {
        if r.is_zero() {
            "RZ".to_string()
        } else {
            format!("R{}", r.0)
        }
    };
    match *o {
        Operand::None => String::new(),
        Operand::Reg(r) => reg(r),
        Operand::Pred(p) => pred(p),
        Operand::Imm(v) if v < 0 => format!("-{:#x}", -v),
        Operand::Imm(v) => format!("{v:#x}"),
        Operand::F32(b) => format!("{}", f32::from_bits(b)),
        Operand::F64(b) => format!("{}", f64::from_bits(b)),
        Operand::CBuf { bank, offset } => format!("c[{bank:#x}][{offset:#x}]"),
        Operand::CIdx { bank, base, offset } => format!("c[{bank:#x}][{}+{offset:#x}]", reg(base)),
        Operand::Mem { base, offset } => {
            if base.is_zero() {
                format!("[{offset:#x}]")
            } else if offset == 0 {
                format!("[{}]", reg(base))
            } else if offset < 0 {
                format!("[{}+-{:#x}]", reg(base), -offset)
            } else {
                format!("[{}+{offset:#x}]", reg(base))
            }
        }
        Operand::SReg(s) => s.name().to_string(),
        Operand::Target(rel) => format!("{:#x}", addr + 8 + i64::from(rel)),
        Operand::Label(l) => format!("L{l}"),
        Operand::SbMask(m) => format!("{m:#x}"),
        Operand::Sb(s) => format!("SB{s}"),
        Operand::Pr => "PR".into(),
        Operand::Cc => "CC".into(),
    }
}

/// The plain text of one instruction at code index `idx`.
pub fn inst_text(i: &MInst, idx: usize) -> String {
    let f = i.form();
    let mut s = String::new();
    if i.guard != Pred::TRUE && !f.has(isa_spa5::table::flags::NO_GUARD) {
        let _ = write!(s, "@{} ", pred(i.guard));
    }
    s.push_str(f.mnemonic);
    for (m, v) in f.mods.iter().zip(i.mods.iter()) {
        if m.place == Place::Mnem {
            if let Some(n) = m.name(*v) {
                if !n.is_empty() {
                    let _ = write!(s, ".{n}");
                }
            }
        }
    }
    let addr = inst_addr(idx);
    let mut parts = Vec::new();
    for (k, (fd, o)) in f.operands.iter().zip(i.ops()).enumerate() {
        let mut t = operand(o, addr);
        if fd.optional && matches!(o, Operand::Pred(p) if *p == Pred::TRUE) {
            continue;
        }
        for (m, v) in f.mods.iter().zip(i.mods.iter()) {
            if *v == 0 {
                continue;
            }
            match m.place {
                Place::Neg(j) if j as usize == k => t = format!("-{t}"),
                Place::Inv(j) if j as usize == k => t = format!("~{t}"),
                Place::Abs(j) if j as usize == k => t = format!("|{t}|"),
                Place::Suffix(j) if j as usize == k => {
                    if let Some(n) = m.name(*v) {
                        t = format!("{t}.{n}");
                    }
                }
                _ => {}
            }
        }
        parts.push(t);
    }
    if !parts.is_empty() {
        s.push(' ');
        s.push_str(&parts.join(", "));
    }
    s
}

/// The scheduling hints of one control.
pub fn hints(c: &Control) -> String {
    let mut s = String::new();
    if let Some(b) = c.wr_bar {
        let _ = write!(s, " &wr{b}");
    }
    if let Some(b) = c.rd_bar {
        let _ = write!(s, " &rd{b}");
    }
    if c.wait_mask != 0 {
        let v: Vec<String> = (0..6)
            .filter(|b| c.wait_mask & (1 << b) != 0)
            .map(|b| b.to_string())
            .collect();
        let _ = write!(s, " &req={{{}}}", v.join(","));
    }
    let _ = write!(s, " ?WAIT{}", c.stall);
    if c.yield_ {
        s.push_str(" ?YIELD");
    }
    s
}

/// The nvdisasm-syntax listing of a placed instruction list (`/*addr*/ INST ;` lines).
pub fn listing_nvdisasm(placed: &[(MInst, Control)]) -> String {
    let mut plain = String::new();
    for (idx, (i, _)) in placed.iter().enumerate() {
        let _ = writeln!(plain, "/*{:04x}*/ {} ;", inst_addr(idx), inst_text(i, idx));
    }
    plain
}

/// The SPA-syntax listing: every instruction with its scheduling hints.
pub fn listing_spa(placed: &[(MInst, Control)]) -> String {
    let mut sched = String::new();
    for (idx, (i, c)) in placed.iter().enumerate() {
        let _ = writeln!(sched, "{}{} ;", inst_text(i, idx), hints(c));
    }
    sched
}
