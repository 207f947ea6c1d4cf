//! Parsing instructions in nvdisasm syntax and in the SPA syntax with scheduling hints.
//!
//! The parser inverts [`super::print`] using the same table: it finds the rows whose
//! mnemonic starts the text, matches the mnemonic's dot-separated modifiers against the row's
//! modifier names in order (absent ones take their default), then parses each operand by its
//! field kind with attached `-`, `~`, `|..|`, `.H1`, `.CC` and `.reuse`. The first row that
//! accepts the whole text wins. Errors are values carrying the offending text.

use std::collections::HashMap;
use std::sync::OnceLock;

use super::float::parse_f64;
use super::print::{is_imm, reuse_slot};
use crate::control::Control;
use crate::inst::{Inst, Op, Operand};
use crate::regs::{Pred, Reg, SpecialReg};
use crate::table::{OpKind, Place, FORMS};

/// A parse failure.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("cannot parse `{text}`: {message}")]
pub struct ParseError {
    /// The text at fault (instruction or token).
    pub text: String,
    /// What went wrong.
    pub message: String,
}

fn err<T>(text: &str, message: impl Into<String>) -> Result<T, ParseError> {
    Err(ParseError {
        text: text.to_string(),
        message: message.into(),
    })
}

/// Resolves label names (`.L_x_3`) to byte addresses while parsing listings.
pub type LabelResolver<'a> = &'a dyn Fn(&str) -> Option<u64>;

/// Parsed instruction plus the reuse flags found on its operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Parsed {
    /// The instruction.
    pub inst: Inst,
    /// `.reuse` flags (control bits 20:17).
    pub reuse: u8,
}

fn by_mnemonic() -> &'static HashMap<&'static str, Vec<u16>> {
    static M: OnceLock<HashMap<&'static str, Vec<u16>>> = OnceLock::new();
    M.get_or_init(|| {
        let mut m: HashMap<&'static str, Vec<u16>> = HashMap::new();
        for (i, f) in FORMS.iter().enumerate() {
            let base = f.mnemonic.split('.').next().unwrap_or(f.mnemonic);
            m.entry(base).or_default().push(i as u16);
        }
        m
    })
}

/// Split operands at top-level commas.
fn split_operands(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, 0usize);
    for (i, c) in s.char_indices() {
        match c {
            '[' | '{' | '(' => depth += 1,
            ']' | '}' | ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(s[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    let last = s[start..].trim();
    if !last.is_empty() || !out.is_empty() {
        out.push(last);
    }
    out
}

fn parse_int(s: &str) -> Option<i64> {
    let (neg, body) = match s.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    let v = match body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        Some(h) if !h.is_empty() => u64::from_str_radix(h, 16).ok()?,
        Some(_) => return None,
        None if !body.is_empty() && body.bytes().all(|b| b.is_ascii_digit()) => {
            body.parse().ok()?
        }
        None => return None,
    };
    let v = i64::try_from(v).ok()?;
    Some(if neg { -v } else { v })
}

/// `[R2+0x10]`, `[R2+-0x8]`, `[0x10]`, `[RZ]`, `[R2]` (inner text without brackets).
fn parse_addr(inner: &str) -> Option<(Reg, i64)> {
    let inner = inner.trim();
    if let Ok(r) = inner.parse::<Reg>() {
        return Some((r, 0));
    }
    if let Some((a, b)) = inner.split_once('+') {
        let r: Reg = a.trim().parse().ok()?;
        return Some((r, parse_int(b.trim())?));
    }
    if let Some(i) = inner[1..].find('-').map(|i| i + 1) {
        if let Ok(r) = inner[..i].trim().parse::<Reg>() {
            return Some((r, -parse_int(inner[i + 1..].trim())?));
        }
    }
    Some((Reg::RZ, parse_int(inner)?))
}

/// `c[0x3]` + `[..]`, with or without a space between.
fn parse_cbuf_parts(s: &str) -> Option<(u8, &str)> {
    let rest = s.strip_prefix("c[")?;
    let (bank, rest) = rest.split_once(']')?;
    let bank = u8::try_from(parse_int(bank.trim())?).ok()?;
    let rest = rest.trim_start().strip_prefix('[')?.strip_suffix(']')?;
    Some((bank, rest))
}

fn parse_value(kind: OpKind, s: &str, addr: u64, labels: Option<LabelResolver>) -> Option<Operand> {
    Some(match kind {
        OpKind::Gpr(_) | OpKind::Next(_) | OpKind::Same(_) => Operand::Reg(s.parse().ok()?),
        OpKind::PredDst(_) => {
            let p: Pred = s.parse().ok()?;
            if p.not {
                return None;
            }
            Operand::Pred(p)
        }
        OpKind::PredSrc(..) => Operand::Pred(s.parse().ok()?),
        OpKind::UImm(..)
        | OpKind::SImm(..)
        | OpKind::I20
        | OpKind::U20
        | OpKind::U32(_)
        | OpKind::S32(_) => Operand::Imm(parse_int(s)?),
        OpKind::XImm => Operand::Imm(parse_int(s)? & 0xffff),
        OpKind::F20 | OpKind::F32(_) => {
            if let Some(h) = s.strip_prefix("0f") {
                Operand::F32(u32::from_str_radix(h, 16).ok()?)
            } else {
                let v = parse_f64(s)?;
                let f = v as f32;
                // Only exactly representable values: the text came from an f32.
                if !v.is_nan() && f as f64 != v {
                    return None;
                }
                Operand::F32(if v.is_nan() {
                    if v.is_sign_negative() {
                        0xffc0_0000
                    } else {
                        0x7fc0_0000
                    }
                } else {
                    f.to_bits()
                })
            }
        }
        OpKind::D20 => {
            let v = parse_f64(s)?;
            Operand::F64(if v.is_nan() {
                if v.is_sign_negative() {
                    0xfff8_0000_0000_0000
                } else {
                    0x7ff8_0000_0000_0000
                }
            } else {
                v.to_bits()
            })
        }
        OpKind::CBuf | OpKind::CBufSp => {
            let (bank, off) = parse_cbuf_parts(s)?;
            Operand::CBuf {
                bank,
                offset: i32::try_from(parse_int(off)?).ok()?,
            }
        }
        OpKind::CIdx => {
            let (bank, inner) = parse_cbuf_parts(s)?;
            let (base, off) = parse_addr(inner)?;
            Operand::CIdx {
                bank,
                base,
                offset: i32::try_from(off).ok()?,
            }
        }
        OpKind::Mem { len, scale, .. } => {
            let inner = s.strip_prefix('[')?.strip_suffix(']')?;
            let (base, mut off) = parse_addr(inner)?;
            // Absolute addresses print unsigned; map them back to the signed field.
            let span = (1i64 << len) * scale as i64;
            if base.is_zero() && off >= span / 2 && off < span {
                off -= span;
            }
            Operand::Mem {
                base,
                offset: i32::try_from(off).ok()?,
            }
        }
        OpKind::SReg => Operand::SReg(s.parse::<SpecialReg>().ok()?),
        OpKind::Rel | OpKind::Abs => {
            if let Some(name) = s.strip_prefix("`(").and_then(|r| r.strip_suffix(')')) {
                if let Some(target) = labels.and_then(|l| l(name)) {
                    return Some(match kind {
                        OpKind::Rel => {
                            Operand::Target(i32::try_from(target as i64 - addr as i64 - 8).ok()?)
                        }
                        _ => Operand::Target(i32::try_from(target).ok()?),
                    });
                }
                let idx = name.strip_prefix(".L_")?;
                return Some(Operand::Label(idx.parse().ok()?));
            }
            let v = parse_int(s)?;
            match kind {
                OpKind::Rel => Operand::Target(i32::try_from(v - addr as i64 - 8).ok()?),
                _ => Operand::Target(u32::try_from(v).ok()? as i32),
            }
        }
        OpKind::SbMask => {
            let inner = s.strip_prefix('{')?.strip_suffix('}')?;
            let mut m = 0u8;
            for part in inner.split(',').map(str::trim).filter(|p| !p.is_empty()) {
                let b: u8 = part.parse().ok()?;
                if b >= 6 {
                    return None;
                }
                m |= 1 << b;
            }
            Operand::SbMask(m)
        }
        OpKind::Sb => Operand::Sb(s.strip_prefix("SB")?.parse().ok()?),
        OpKind::Pr => (s == "PR").then_some(Operand::Pr)?,
        OpKind::Cc => (s == "CC").then_some(Operand::Cc)?,
    })
}

/// Match the mnemonic's modifier tokens against the row's `Mnem` modifiers.
fn match_mods(op: Op, toks: &[&str], inst: &mut Inst) -> bool {
    let form = op.form();
    let mut pos = 0;
    for (i, m) in form.mods.iter().enumerate() {
        if let Place::Video(k) = m.place {
            // Both sources' types are printed together at the first one (or not at all,
            // for the defaults); operand suffixes refine the select later.
            if k == 1 {
                let (t1, t2) = match (toks.get(pos), toks.get(pos + 1)) {
                    (Some(a), Some(b))
                        if video_base(a, 3).is_some() && video_base(b, 3).is_some() =>
                    {
                        pos += 2;
                        (*a, *b)
                    }
                    _ => ("S32", ""),
                };
                for (j, mj) in form.mods.iter().enumerate() {
                    match mj.place {
                        Place::Video(1) => inst.mods[j] = video_base(t1, mj.a.1).unwrap_or(14),
                        Place::Video(2) => {
                            let t = if t2.is_empty() {
                                if mj.a.1 == 3 {
                                    "S32"
                                } else {
                                    "S16"
                                }
                            } else {
                                t2
                            };
                            match video_base(t, mj.a.1) {
                                Some(v) => inst.mods[j] = v,
                                None => return false,
                            }
                        }
                        _ => {}
                    }
                }
            }
            continue;
        }
        if m.place != Place::Mnem && !matches!(m.place, Place::NegPo(..)) {
            continue;
        }
        let mut best: Option<(usize, usize)> = None; // (value, tokens)
        for (v, name) in m.names.iter().enumerate() {
            if name.is_empty() || *name == "?" {
                continue;
            }
            let parts: Vec<&str> = name.split('.').collect();
            if toks.len() >= pos + parts.len()
                && toks[pos..pos + parts.len()] == parts[..]
                && best.is_none_or(|(_, n)| parts.len() > n)
            {
                best = Some((v, parts.len()));
            }
        }
        match best {
            Some((v, n)) => {
                inst.mods[i] = v as u8;
                pos += n;
            }
            None => {
                if !m.names.contains(&"") {
                    return false;
                }
            }
        }
    }
    pos == toks.len()
}

/// The [`Place::Video`] field value of source type `t` (`S8`, `U32`...) with the default
/// select for its size (byte 0, half 0, word), for a field whose select is `sel_bits` wide
/// (3; 1 for an immediate source, which is 16-bit only).
fn video_base(t: &str, sel_bits: u8) -> Option<u8> {
    let signed = match t.as_bytes().first()? {
        b'S' => 1,
        b'U' => 0,
        _ => return None,
    };
    let sel = match &t[1..] {
        "8" => 0,
        "16" => 4,
        "32" => 6,
        _ => return None,
    };
    if sel_bits == 3 {
        Some(sel | signed << 3)
    } else {
        (sel == 4).then_some(signed)
    }
}

fn strip_suffix_mods(form: &crate::table::Form, k: u8, s: &mut &str, inst: &mut Inst) {
    for (i, m) in form.mods.iter().enumerate() {
        if m.place == Place::Video(k) && m.a.1 == 3 {
            let sel = inst.mods[i] & 7;
            for (suffix, want_base, v) in
                [(".B1", 0, 1), (".B2", 0, 2), (".B3", 0, 3), (".H1", 4, 5)]
            {
                if sel == want_base {
                    if let Some(r) = s.strip_suffix(suffix) {
                        inst.mods[i] = (inst.mods[i] & 8) | v;
                        *s = r;
                    }
                }
            }
        }
    }
    loop {
        let mut found = false;
        for (i, m) in form.mods.iter().enumerate() {
            if m.place != Place::Suffix(k) {
                continue;
            }
            for (v, name) in m.names.iter().enumerate() {
                if name.is_empty() || *name == "?" {
                    continue;
                }
                if let Some(r) = s.strip_suffix(name).and_then(|r| r.strip_suffix('.')) {
                    inst.mods[i] = v as u8;
                    *s = r;
                    found = true;
                }
            }
            if m.kind == crate::inst::ModKind::ByteSel {
                if let Some(r) = s.strip_suffix(".H1") {
                    inst.mods[i] = 2;
                    *s = r;
                    found = true;
                }
            }
        }
        if !found {
            return;
        }
    }
}

fn set_place(form: &crate::table::Form, inst: &mut Inst, place: Place) -> bool {
    if let Some(i) = form.mods.iter().position(|m| m.place == place) {
        inst.mods[i] = 1;
        return true;
    }
    // IADD-style paired negation: both set would be `.PO`, which prints differently.
    if let Place::Neg(k) = place {
        for (i, m) in form.mods.iter().enumerate() {
            if let Place::NegPo(a, b) = m.place {
                let bit = if a == k {
                    2
                } else if b == k {
                    1
                } else {
                    continue;
                };
                let v = inst.mods[i] | bit;
                if v == 3 {
                    return false;
                }
                inst.mods[i] = v;
                return true;
            }
        }
    }
    false
}

fn parse_operand(
    form: &crate::table::Form,
    k: usize,
    text: &str,
    inst: &mut Inst,
    reuse: &mut u8,
    addr: u64,
    labels: Option<LabelResolver>,
) -> Option<Operand> {
    let f = &form.operands[k];
    let k8 = k as u8;
    let mut s = text.trim();
    if let Some(r) = s.strip_suffix(".reuse") {
        *reuse |= 1 << reuse_slot(form, k)?;
        s = r;
    }
    if is_imm(f.kind) {
        strip_suffix_mods(form, k8, &mut s, inst);
        for (place, name) in [
            (Place::Inv(k8), ".INV"),
            (Place::Abs(k8), ".ABS"),
            (Place::Neg(k8), ".NEG"),
        ] {
            if let Some(r) = s.strip_suffix(name) {
                if !set_place(form, inst, place) {
                    return None;
                }
                s = r;
            }
        }
        return parse_value(f.kind, s, addr, labels);
    }
    let has_prefix_mods = form.mods.iter().any(|m| match m.place {
        Place::Neg(j) | Place::Inv(j) | Place::Abs(j) => j == k8,
        Place::NegPo(a, b) => a == k8 || b == k8,
        _ => false,
    });
    if !has_prefix_mods {
        strip_suffix_mods(form, k8, &mut s, inst);
        return parse_value(f.kind, s.trim(), addr, labels);
    }
    if let Some(r) = s.strip_prefix('-') {
        if !set_place(form, inst, Place::Neg(k8)) {
            return None;
        }
        s = r;
    }
    if let Some(r) = s.strip_prefix('~') {
        if !set_place(form, inst, Place::Inv(k8)) {
            return None;
        }
        s = r;
    }
    if let Some(r) = s.strip_prefix('|').and_then(|r| r.strip_suffix('|')) {
        if !set_place(form, inst, Place::Abs(k8)) {
            return None;
        }
        s = r;
    }
    strip_suffix_mods(form, k8, &mut s, inst);
    parse_value(f.kind, s.trim(), addr, labels)
}

fn try_form(
    op: Op,
    mtoks: &[&str],
    opers: &[&str],
    guard: Pred,
    addr: u64,
    labels: Option<LabelResolver>,
) -> Option<Parsed> {
    let form = op.form();
    let base: Vec<&str> = form.mnemonic.split('.').collect();
    if mtoks.len() < base.len() || mtoks[..base.len()] != base[..] {
        return None;
    }
    if form.has(crate::table::flags::NO_GUARD) && !guard.is_true() {
        return None;
    }
    let mut inst0 = Inst::new(op);
    inst0.guard = guard;
    let mut mod_toks = &mtoks[base.len()..];
    // A texture instruction's phase (`.T`, `.P`) ends its modifiers: it is the control
    // word's reuse field.
    let mut phase = 0u8;
    if form.has(crate::table::flags::TEX) {
        if let Some((&last, rest)) = mod_toks.split_last() {
            phase = match last {
                "T" => 1,
                "P" => 2,
                "INVALIDPHASE3" => 3,
                _ => 0,
            };
            if phase != 0 {
                mod_toks = rest;
            }
        }
    }
    // A type naming mnemonic modifiers and an operand together (`TEXS.LL ... 2D`): the
    // longest mnemonic part that starts the modifiers and whose operand part is given.
    let mut opers_owned: Vec<&str> = opers.to_vec();
    for (i, m) in form.mods.iter().enumerate() {
        if !matches!(m.place, Place::MnemArg(_)) {
            continue;
        }
        let mut best: Option<(usize, usize, usize)> = None; // (value, mnemonic tokens, operand)
        for (v, name) in m.names.iter().enumerate() {
            let Some((mn, arg)) = name.split_once('|') else {
                continue;
            };
            let parts: Vec<&str> = mn.split('.').filter(|p| !p.is_empty()).collect();
            if mod_toks.len() < parts.len() || mod_toks[..parts.len()] != parts[..] {
                continue;
            }
            let Some(pos) = opers_owned.iter().position(|t| t.trim() == arg) else {
                continue;
            };
            if best.is_none_or(|(_, n, _)| parts.len() > n) {
                best = Some((v, parts.len(), pos));
            }
        }
        let (v, n, pos) = best?;
        inst0.mods[i] = v as u8;
        mod_toks = &mod_toks[n..];
        opers_owned.remove(pos);
    }
    let opers = &opers_owned[..];
    if !match_mods(op, mod_toks, &mut inst0) {
        return None;
    }
    // Modifiers printed as operands of their own (`2D`, `TEX_HEADER_DIMENSION`).
    let mut kept: Vec<&str> = Vec::with_capacity(opers.len());
    let mut args_seen = 0;
    for &t in opers {
        let hit = form.mods.iter().enumerate().find_map(|(i, m)| {
            if !matches!(m.place, Place::Arg(_)) {
                return None;
            }
            let v = m
                .names
                .iter()
                .position(|n| *n == t.trim() && !n.is_empty() && *n != "?")?;
            Some((i, v))
        });
        match hit {
            Some((i, v)) => {
                inst0.mods[i] = v as u8;
                args_seen += 1;
            }
            None => kept.push(t),
        }
    }
    let arg_mods = form
        .mods
        .iter()
        .filter(|m| matches!(m.place, Place::Arg(_)))
        .count();
    if args_seen != arg_mods {
        return None;
    }
    let mut opers = &kept[..];
    if let Some(first) = opers.first() {
        if let Some(name) = first.strip_prefix("CC.") {
            let i = form.mods.iter().position(|m| m.place == Place::Lead)?;
            let v = form.mods[i]
                .names
                .iter()
                .position(|n| *n == name && !n.is_empty() && *n != "?")?;
            inst0.mods[i] = v as u8;
            opers = &opers[1..];
        }
    }
    let total = form.operands.len();
    let optional: Vec<usize> = (0..total).filter(|&k| form.operands[k].optional).collect();
    if opers.len() > total || opers.len() + optional.len() < total {
        return None;
    }
    let omit = total - opers.len();
    // Try every way of leaving out `omit` optional operands.
    'combo: for sel in 0u32..(1 << optional.len()) {
        if sel.count_ones() as usize != omit {
            continue;
        }
        let mut inst = inst0;
        let mut reuse = 0u8;
        let mut it = opers.iter();
        for k in 0..total {
            if let Some(pos) = optional.iter().position(|&o| o == k) {
                if sel & (1 << pos) != 0 {
                    continue;
                }
            }
            let text = it.next()?;
            match parse_operand(form, k, text, &mut inst, &mut reuse, addr, labels) {
                Some(v) => inst.operands[k] = v,
                None => continue 'combo,
            }
        }
        let given = inst;
        inst.fill_derived();
        if given != inst {
            continue;
        }
        return Some(Parsed {
            inst,
            reuse: reuse | phase,
        });
    }
    None
}

/// Parse one instruction in nvdisasm syntax (an optional trailing `;` is ignored). `addr` is
/// the instruction's byte address, needed for absolute branch targets.
pub fn parse_inst(text: &str, addr: u64) -> Result<Parsed, ParseError> {
    parse_inst_with(text, addr, None)
}

/// [`parse_inst`] with a resolver for `` `(label) `` targets.
pub fn parse_inst_with(
    text: &str,
    addr: u64,
    labels: Option<LabelResolver>,
) -> Result<Parsed, ParseError> {
    let mut s = text.trim();
    s = s.strip_suffix(';').unwrap_or(s).trim_end();
    let mut guard = Pred::TRUE;
    if let Some(rest) = s.strip_prefix('@') {
        let (g, rest) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
        guard = match g.parse() {
            Ok(p) => p,
            Err(()) => return err(text, format!("bad guard predicate `@{g}`")),
        };
        s = rest.trim_start();
    }
    let (mn, rest) = s.split_once(char::is_whitespace).unwrap_or((s, ""));
    let mtoks: Vec<&str> = mn.split('.').collect();
    let mut opers = split_operands(rest.trim());
    if mtoks[0] == "BRX" {
        // nvdisasm's `BRX [CC.T, ]R2 -0xa0`: register and offset separated by a space.
        if let Some(last) = opers.pop() {
            opers.extend(last.split_whitespace());
        }
    }
    let Some(cands) = by_mnemonic().get(mtoks[0]) else {
        return err(text, format!("unknown mnemonic `{}`", mtoks[0]));
    };
    for &i in cands {
        if let Some(p) = try_form(Op(i), &mtoks, &opers, guard, addr, labels) {
            return Ok(p);
        }
    }
    err(
        text,
        "no form of this mnemonic accepts these modifiers and operands",
    )
}

/// Parse one instruction in the SPA syntax: nvdisasm text followed by hints (`&wrN`,
/// `&rdN`, `&req={..}`, `?WAITn`, `?YIELD`) and `;`.
pub fn parse_spa(text: &str, addr: u64) -> Result<(Inst, Control), ParseError> {
    parse_spa_with(text, addr, None)
}

/// [`parse_spa`] with a resolver for `` `(label) `` targets.
pub fn parse_spa_with(
    text: &str,
    addr: u64,
    labels: Option<LabelResolver>,
) -> Result<(Inst, Control), ParseError> {
    let mut s = text.trim();
    s = s.strip_suffix(';').unwrap_or(s).trim_end();
    let mut ctrl = Control {
        stall: 0,
        ..Control::default()
    };
    // Peel hint tokens off the end.
    while let Some(pos) = s.rfind(char::is_whitespace) {
        let tok = &s[pos + 1..];
        let ok = if let Some(b) = tok.strip_prefix("&wr") {
            ctrl.wr_bar = b.parse().ok();
            ctrl.wr_bar.is_some()
        } else if let Some(b) = tok.strip_prefix("&rd") {
            ctrl.rd_bar = b.parse().ok();
            ctrl.rd_bar.is_some()
        } else if let Some(b) = tok.strip_prefix("&req=") {
            match parse_value(OpKind::SbMask, b, 0, None) {
                Some(Operand::SbMask(m)) => {
                    ctrl.wait_mask = m;
                    true
                }
                _ => false,
            }
        } else if let Some(b) = tok.strip_prefix("?WAIT") {
            match b.parse() {
                Ok(n) => {
                    ctrl.stall = n;
                    true
                }
                Err(_) => false,
            }
        } else if tok == "?YIELD" {
            ctrl.yield_ = true;
            true
        } else if tok.starts_with('&') || tok.starts_with('?') {
            return err(tok, "unknown scheduling hint");
        } else {
            break;
        };
        if !ok {
            return err(tok, "malformed scheduling hint");
        }
        s = s[..pos].trim_end();
    }
    if let Err(e) = ctrl.validate() {
        return err(text, e.to_string());
    }
    let p = parse_inst_with(s, addr, labels)?;
    ctrl.reuse = p.reuse;
    Ok((p.inst, ctrl))
}
