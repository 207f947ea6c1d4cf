//! Canonical IL text for the AST (`Display` impls).
//!
//! The output parses back to an equal AST: print -> parse -> print is a fixed point (tested
//! over the whole corpus). Canonical choices: lower-case mnemonics with controls in AST order;
//! instruction-level `_sat`/`_x2..` of the first destination on the mnemonic; four-character
//! write masks (omitted when all four components are written); swizzles omitted when identity,
//! one letter when replicated, four otherwise; source modifiers in the guide's evaluation order;
//! literal words in hex; `;ARGSTART` metadata blocks at their original position; block bodies
//! indented by two spaces per nesting level (indentation is cosmetic, the parser ignores it).

#![cfg_attr(
    not(test),
    warn(
        clippy::panic,
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::print_stderr,
        clippy::todo
    )
)]

use std::fmt::{self, Write};

use crate::ast::*;
use crate::opcodes::{Form, Opcode};

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "il_{}", self.shader.name())?;
        if let Some(m) = self.major {
            write!(f, "_{m}")?;
            if let Some(n) = self.minor {
                write!(f, "_{n}")?;
            }
        }
        if self.multipass {
            f.write_str("_mp")?;
        }
        if self.realtime {
            f.write_str("_rt")?;
        }
        Ok(())
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Open {
    Block,
    Switch,
    Case,
}

impl fmt::Display for Program {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use Opcode::*;
        if let Some(v) = &self.version {
            writeln!(f, "{v}")?;
        }
        let mut meta = self.metadata.iter().peekable();
        let mut stack: Vec<Open> = Vec::new();
        for (i, inst) in self.statements.iter().enumerate() {
            while let Some(m) = meta.next_if(|m| m.before_statement <= i) {
                write_meta(f, m)?;
            }
            let depth = match inst.opcode {
                Else => stack.len().saturating_sub(1),
                Endif | Endloop | Macroend => {
                    stack.pop();
                    stack.len()
                }
                Case | Default => {
                    if stack.last() == Some(&Open::Case) {
                        stack.pop();
                    }
                    let d = stack.len();
                    stack.push(Open::Case);
                    d
                }
                Endswitch => {
                    if stack.last() == Some(&Open::Case) {
                        stack.pop();
                    }
                    stack.pop();
                    stack.len()
                }
                Func | Endfunc | Endmain | End => {
                    stack.clear();
                    0
                }
                _ => stack.len(),
            };
            for _ in 0..depth.min(32) {
                f.write_str("  ")?;
            }
            writeln!(f, "{inst}")?;
            match inst.opcode {
                IfLogicalz | IfLogicalnz | Ifc | Ifnz | Loop | While | Func | Macrodef => {
                    stack.push(Open::Block)
                }
                Switch => stack.push(Open::Switch),
                _ => {}
            }
        }
        for m in meta {
            write_meta(f, m)?;
        }
        Ok(())
    }
}

fn write_meta(f: &mut fmt::Formatter<'_>, m: &MetadataBlock) -> fmt::Result {
    for l in &m.lines {
        writeln!(f, ";{l}")?;
    }
    Ok(())
}

impl fmt::Display for Control {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Control::Ieee => f.write_str("_ieee"),
            Control::Relop(r) => write!(f, "_relop({})", r.name()),
            Control::ZeroOp(z) => write!(f, "_zeroop({})", z.name()),
            Control::CmpVal(c) => write!(f, "_cmpval({})", c.name()),
            Control::Id(n) => write!(f, "_id({n})"),
            Control::Resource(n) => write!(f, "_resource({n})"),
            Control::Sampler(n) => write!(f, "_sampler({n})"),
            Control::Stride(n) => write!(f, "_stride({n})"),
            Control::LOffset(n) => write!(f, "_lOffset({n})"),
            Control::Cached => f.write_str("_cached"),
            Control::Uncached => f.write_str("_uncached"),
            Control::Fmt(c, e) => write!(
                f,
                "_fmt{}({})",
                ['x', 'y', 'z', 'w'][(*c & 3) as usize],
                e.name()
            ),
            Control::Fence(fl) => write!(f, "_{}", fl.name()),
            Control::Sat => f.write_str("_sat"),
            Control::Shift(s) if *s == ShiftScale::None => Ok(()),
            Control::Shift(s) => write!(f, "_{}", s.name()),
            Control::Prec(m) if *m == 0xF => f.write_str("_prec"),
            Control::Prec(m) => {
                f.write_str("_prec(")?;
                write_comp_set(f, *m)?;
                f.write_str(")")
            }
            Control::Generic {
                name,
                value: Some(v),
                ..
            } if name.is_empty() => write!(f, "({v})"),
            Control::Generic {
                name, value: None, ..
            } => write!(f, "_{name}"),
            Control::Generic {
                name,
                value: Some(v),
                ..
            } => write!(f, "_{name}({v})"),
        }
    }
}

fn write_comp_set(f: &mut impl Write, m: u8) -> fmt::Result {
    for (i, c) in ['x', 'y', 'z', 'w'].iter().enumerate() {
        if m & (1 << i) != 0 {
            f.write_char(*c)?;
        }
    }
    Ok(())
}

impl fmt::Display for IndexReg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_reg_name(f, self.kind, self.num)?;
        write!(f, ".{}", self.comp.letter())
    }
}

fn write_reg_name(f: &mut impl Write, kind: RegKind, num: u32) -> fmt::Result {
    f.write_str(kind.name())?;
    if kind.is_numbered() || (kind == RegKind::GenericMem && num != 0) {
        write!(f, "{num}")?;
    }
    Ok(())
}

impl fmt::Display for RegRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_reg_name(f, self.kind, self.num)?;
        for ix in &self.indices {
            match (&ix.reg, ix.offset) {
                (None, o) => write!(f, "[{o}]")?,
                (Some(r), 0) => write!(f, "[{r}]")?,
                (Some(r), o) if o < 0 => write!(f, "[{r}-{}]", (o as i64).unsigned_abs())?,
                (Some(r), o) => write!(f, "[{r}+{o}]")?,
            }
        }
        Ok(())
    }
}

/// Writes the operand without its `_sat`/shift (the caller puts those on the mnemonic).
fn write_dst_core(f: &mut impl Write, d: &DstOperand) -> fmt::Result {
    write!(f, "{}", d.reg)?;
    if d.mask != [DstComp::Write; 4] {
        f.write_char('.')?;
        for (i, m) in d.mask.iter().enumerate() {
            f.write_char(match m {
                DstComp::NoWrite => '_',
                DstComp::Write => ['x', 'y', 'z', 'w'][i],
                DstComp::Zero => '0',
                DstComp::One => '1',
            })?;
        }
    }
    Ok(())
}

impl fmt::Display for DstOperand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_dst_core(f, self)?;
        if self.shift != ShiftScale::None {
            write!(f, "_{}", self.shift.name())?;
        }
        if self.sat {
            f.write_str("_sat")?;
        }
        Ok(())
    }
}

impl fmt::Display for SrcOperand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.reg)?;
        let s = self.swizzle;
        if s != Swz::IDENTITY {
            f.write_char('.')?;
            if s.iter().all(|x| *x == s[0]) {
                f.write_char(s[0].letter())?;
            } else {
                for x in s {
                    f.write_char(x.letter())?;
                }
            }
        }
        let m = &self.mods;
        if m.invert {
            f.write_str("_invert")?;
        }
        match (m.bias, m.x2) {
            (true, true) => f.write_str("_bx2")?,
            (true, false) => f.write_str("_bias")?,
            (false, true) => f.write_str("_x2")?,
            (false, false) => {}
        }
        if m.sign {
            f.write_str("_sign")?;
        }
        if m.div_comp != DivComp::None {
            write!(f, "_divcomp({})", m.div_comp.name())?;
        }
        if m.abs {
            f.write_str("_abs")?;
        }
        if m.neg != 0 {
            f.write_str("_neg(")?;
            write_comp_set(f, m.neg)?;
            f.write_char(')')?;
        }
        if m.clamp {
            f.write_str("_sat")?;
        }
        Ok(())
    }
}

impl fmt::Display for Instruction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.opcode.mnemonic())?;
        for c in &self.controls {
            write!(f, "{c}")?;
        }
        if let Some(d) = self.dsts.first() {
            if d.shift != ShiftScale::None {
                write!(f, "_{}", d.shift.name())?;
            }
            if d.sat {
                f.write_str("_sat")?;
            }
        }
        if self.opcode == Opcode::Macrocall && self.payload == Payload::None {
            // `mcall(k) (outs), (ins)`.
            let list = |f: &mut fmt::Formatter<'_>, items: Vec<String>| -> fmt::Result {
                write!(f, "({})", items.join(", "))
            };
            f.write_str(" ")?;
            list(f, self.dsts.iter().map(|d| d.to_string()).collect())?;
            f.write_str(", ")?;
            return list(f, self.srcs.iter().map(|s| s.to_string()).collect());
        }
        let mut first = true;
        let mut sep = |f: &mut fmt::Formatter<'_>| -> fmt::Result {
            let s = if first { " " } else { ", " };
            first = false;
            f.write_str(s)
        };
        for (i, d) in self.dsts.iter().enumerate() {
            sep(f)?;
            if i == 0 {
                write_dst_core(f, d)?;
            } else {
                write!(f, "{d}")?;
            }
        }
        match (&self.payload, self.opcode.form()) {
            (Payload::Literal { reg, values }, _) => {
                sep(f)?;
                write!(f, "l{reg}")?;
                for v in values {
                    write!(f, ", 0x{v:08x}")?;
                }
            }
            (Payload::ConstBuffer { cb, size }, _) => {
                sep(f)?;
                write!(f, "cb{cb}[{size}]")?;
            }
            (Payload::IndexedTemp { reg, size }, _) => {
                sep(f)?;
                write!(f, "x{reg}[{size}]")?;
            }
            _ => {}
        }
        for s in &self.srcs {
            sep(f)?;
            write!(f, "{s}")?;
        }
        match &self.payload {
            Payload::Label(l) => {
                sep(f)?;
                write!(f, "{l}")?;
            }
            Payload::Case(c) => {
                sep(f)?;
                write!(f, "{c}")?;
            }
            Payload::Numbers(ns) => {
                for n in ns {
                    sep(f)?;
                    write!(f, "{n}")?;
                }
            }
            Payload::Words(ws) => {
                for w in ws {
                    sep(f)?;
                    f.write_str(w)?;
                }
            }
            Payload::Raw(r) => {
                sep(f)?;
                f.write_str(r)?;
            }
            Payload::ImmConstBuffer(words) => {
                sep(f)?;
                write!(f, "icb[{}] = {{", words.len().div_ceil(4))?;
                for (i, w) in words.iter().enumerate() {
                    write!(f, "{}0x{w:08x}", if i == 0 { "" } else { ", " })?;
                }
                f.write_str("}")?;
            }
            Payload::None
            | Payload::Literal { .. }
            | Payload::ConstBuffer { .. }
            | Payload::IndexedTemp { .. } => {}
        }
        debug_assert!(
            self.opcode.form() != Form::Raw
                || matches!(self.payload, Payload::Raw(_) | Payload::None)
        );
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::parse;

    fn roundtrip(src: &str) -> String {
        let (p, d) = parse(src);
        assert!(d.iter().all(|d| !d.is_error()), "{d:?}");
        let p = p.unwrap();
        let text = p.to_string();
        let (p2, d2) = parse(&text);
        assert!(d2.iter().all(|d| !d.is_error()), "{text}\n{d2:?}");
        assert_eq!(p2.as_ref(), Some(&p), "{text}");
        assert_eq!(p2.unwrap().to_string(), text);
        text
    }

    #[test]
    fn canonical_forms() {
        let t = roundtrip(
            "il_cs_2_0\nmov r0.x___, l0.0000\nadd_x2_sat r1, r2.xy_neg(x)_abs, cb0[r3.y-2].x\n",
        );
        assert_eq!(
            t,
            "il_cs_2_0\nmov r0.x___, l0.0\nadd_x2_sat r1, r2.xyyy_abs_neg(x), cb0[r3.y-2].x\n"
        );
        let t = roundtrip("dcl_literal l3, 1.0, -1, 7, 0x10\ndcl_cb cb1[3]\nfence_lds_threads\n");
        assert!(
            t.contains("dcl_literal l3, 0x3f800000, 0xffffffff, 0x00000007, 0x00000010"),
            "{t}"
        );
    }

    #[test]
    fn macro_calls_print_their_argument_lists() {
        let t = roundtrip(
            "mdef(5)_out(1)_in(2)\niadd out0, in0, in1\nmend\nil_cs_2_0\nmcall(5), (r1.xy), (r2.x, l1_neg(x))\nmcall(6) (), ()\nend\n",
        );
        assert!(t.contains("mcall(5) (r1.xy__), (r2.x, l1_neg(x))\n"), "{t}");
        assert!(t.contains("mcall(6) (), ()\n"), "{t}");
    }

    #[test]
    fn nesting_is_indented() {
        let t = roundtrip("whileloop\nswitch r0.x\ncase 0\ncase 1\nbreak\ndefault\nbreak\nendswitch\nendloop\nend\n");
        assert_eq!(t, "whileloop\n  switch r0.x\n    case 0\n    case 1\n      break\n    default\n      break\n  endswitch\nendloop\nend\n");
    }
}
