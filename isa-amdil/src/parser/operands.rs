//! Operand parsing: registers with indices, destination write masks and modifiers, source
//! swizzles and modifiers, and the register-name table (aliases and `0` suffixes).
//!
//! Guarantees: never panics; each method consumes the operand or reports an error with a span.

use super::*;

impl Parser<'_> {
    /// Register name, number and indices.
    pub(super) fn reg(&mut self) -> PResult<RegRef> {
        let mark = self.c.mark();
        let name = self.c.alnum();
        if name.is_empty() {
            return Err(self.unexpected_here("expected a register, found"));
        }
        let span = self.c.span_from(mark);
        let (kind, num) = match reg_name(name) {
            Some(x) => x,
            None => {
                return Err(self.err(
                    codes::UNKNOWN_REGISTER,
                    span,
                    format!("unknown register `{}`", truncate(name)),
                ))
            }
        };
        if self.c.peek() != Some(b'[') {
            // Most operands have no index: no list to build and convert.
            return Ok(RegRef::new(kind, num));
        }
        let mut indices = Vec::new();
        while self.c.peek() == Some(b'[') {
            if indices.len() == 2 {
                let span = self.c.span_here(1);
                return Err(self.err(codes::BAD_INDEX, span, "at most two indices are supported"));
            }
            self.c.bump();
            let idx = self.index()?;
            indices.push(idx);
        }
        Ok(RegRef {
            kind,
            num,
            indices: indices.into(),
        })
    }

    /// Inside `[` .. `]` (the `[` consumed).
    pub(super) fn index(&mut self) -> PResult<Index> {
        self.blank()?;
        let mut index = Index {
            reg: None,
            offset: 0,
        };
        let mut have_imm = false;
        if let Some(r) = self.c.number() {
            let span = self.c.span_here(0);
            match r {
                Ok(Number::Int(v)) if (i32::MIN as i64..=u32::MAX as i64).contains(&v) => {
                    index.offset = v as i32
                }
                _ => {
                    return Err(self.err(codes::BAD_INDEX, span, "index must be a 32-bit integer"))
                }
            }
            have_imm = true;
            self.blank()?;
            if self.c.peek() == Some(b'+') {
                self.c.bump();
                self.blank()?;
            } else {
                return self.close_index(index);
            }
        }
        // Register-relative part.
        let mark = self.c.mark();
        let name = self.c.alnum();
        let span = self.c.span_from(mark);
        let (kind, num) = match reg_name(name) {
            Some(x) if !name.is_empty() => x,
            _ => {
                return Err(self.err(
                    codes::BAD_INDEX,
                    span,
                    "expected an index: a number or `rN.c [+ n]`",
                ))
            }
        };
        let comp = if self.c.peek() == Some(b'.') {
            self.c.bump();
            let mark = self.c.mark();
            let s = self.c.alnum();
            let span = self.c.span_from(mark);
            let mut chars = s.bytes().map(comp_letter);
            let first = chars.next().flatten();
            match first {
                Some(c) if chars.all(|x| x == Some(c)) => Component::ALL[c],
                _ => {
                    return Err(self.err(
                        codes::BAD_INDEX,
                        span,
                        "index register needs one component (`.x`)",
                    ))
                }
            }
        } else {
            Component::X
        };
        index.reg = Some(IndexReg { kind, num, comp });
        self.blank()?;
        if !have_imm {
            match self.c.peek() {
                Some(b'+') | Some(b'-') => {
                    let neg = self.c.peek() == Some(b'-');
                    self.c.bump();
                    self.blank()?;
                    let span = self.c.span_here(1);
                    match self.c.number() {
                        Some(Ok(Number::Int(v))) if (0..=u32::MAX as i64).contains(&v) => {
                            let v = v as u32 as i32;
                            index.offset = if neg { v.wrapping_neg() } else { v };
                        }
                        _ => {
                            return Err(self.err(
                                codes::BAD_INDEX,
                                span,
                                "expected an integer offset",
                            ))
                        }
                    }
                }
                _ => {}
            }
        }
        self.close_index(index)
    }

    pub(super) fn close_index(&mut self, index: Index) -> PResult<Index> {
        self.blank()?;
        if self.c.peek() == Some(b']') {
            self.c.bump();
            Ok(index)
        } else {
            let span = self.c.span_here(1);
            Err(self.err(codes::BAD_INDEX, span, "expected `]`"))
        }
    }

    pub(super) fn dst(&mut self) -> PResult<DstOperand> {
        let mark = self.c.mark();
        let reg = self.reg()?;
        let mut d = DstOperand::new(reg);
        if self.c.peek() == Some(b'.') {
            self.c.bump();
            let m = self.c.mark();
            let run = self.c.word();
            // The mask is the longest valid prefix (<= 4 chars) after which a modifier (`_x`)
            // or nothing follows.
            let valid = run.bytes().take(4).take_while(|b| mask_char(*b)).count();
            let mut len = valid;
            while len > 0 {
                let rest = &run.as_bytes()[len..];
                if rest.is_empty()
                    || (rest[0] == b'_' && rest.len() > 1 && rest[1].is_ascii_alphabetic())
                {
                    break;
                }
                len -= 1;
            }
            if len == 0 {
                let span = self.c.span_from(m);
                return Err(self.err(
                    codes::BAD_MASK,
                    span,
                    format!("malformed write mask `.{}`", truncate(run)),
                ));
            }
            self.c.reset(m);
            for _ in 0..len {
                self.c.bump();
            }
            let span = self.c.span_from(m);
            d.mask = match parse_mask(&run[..len]) {
                Some(mk) => mk,
                None => {
                    return Err(self.err(
                        codes::BAD_MASK,
                        span,
                        format!("malformed write mask `.{}`", &run[..len]),
                    ))
                }
            };
        }
        while self.c.peek() == Some(b'_') {
            let m = self.c.mark();
            self.c.bump();
            let name = self.c.alnum().to_ascii_lowercase();
            let span = self.c.span_from(m);
            match name.as_str() {
                "sat" => d.sat = true,
                n => match ShiftScale::ALL
                    .iter()
                    .find(|s| s.name() == n && !n.is_empty())
                {
                    Some(s) => d.shift = *s,
                    None => {
                        return Err(self.err(
                            codes::BAD_MODIFIER,
                            span,
                            format!("unknown destination modifier `_{}`", truncate(n)),
                        ))
                    }
                },
            }
        }
        d.span = self.c.span_from(mark);
        Ok(d)
    }

    pub(super) fn src(&mut self) -> PResult<SrcOperand> {
        let mark = self.c.mark();
        let reg = self.reg()?;
        let mut s = SrcOperand::new(reg);
        if self.c.peek() == Some(b'.') {
            self.c.bump();
            let m = self.c.mark();
            let sw = self.c.alnum();
            let span = self.c.span_from(m);
            s.swizzle = match parse_swizzle(sw) {
                Some(x) => x,
                None => {
                    return Err(self.err(
                        codes::BAD_SWIZZLE,
                        span,
                        format!("malformed swizzle `.{}`", truncate(sw)),
                    ))
                }
            };
        }
        while self.c.peek() == Some(b'_') {
            let m = self.c.mark();
            self.c.bump();
            let name = self.c.alnum().to_ascii_lowercase();
            let value = if self.c.peek() == Some(b'(') {
                match self.c.parens() {
                    Ok(v) => Some(v.trim()),
                    Err(span) => return Err(self.err(codes::UNTERMINATED, span, "unclosed `(`")),
                }
            } else {
                None
            };
            let span = self.c.span_from(m);
            let bad = |p: &mut Parser| {
                p.err(
                    codes::BAD_MODIFIER,
                    span,
                    format!("malformed source modifier `_{}`", truncate(&name)),
                )
            };
            match (name.as_str(), value) {
                ("neg", None) => s.mods.neg = 0xF,
                ("neg", Some(v)) => s.mods.neg = comp_mask(v).ok_or_else(|| bad(self))?,
                ("abs", None) => s.mods.abs = true,
                ("invert", None) => s.mods.invert = true,
                ("bias", None) => s.mods.bias = true,
                ("x2", None) => s.mods.x2 = true,
                ("bx2", None) => {
                    s.mods.bias = true;
                    s.mods.x2 = true;
                }
                ("sign", None) => s.mods.sign = true,
                ("sat" | "clamp", None) => s.mods.clamp = true,
                ("divcomp", Some(v)) => {
                    s.mods.div_comp = match DivComp::ALL
                        .iter()
                        .find(|d| d.name().eq_ignore_ascii_case(v))
                    {
                        Some(d) => *d,
                        None => return Err(bad(self)),
                    }
                }
                _ => {
                    return Err(self.err(
                        codes::BAD_MODIFIER,
                        span,
                        format!("unknown source modifier `_{}`", truncate(&name)),
                    ))
                }
            }
        }
        s.span = self.c.span_from(mark);
        Ok(s)
    }
}

/// `x`/`r` -> 0 .. `w`/`a` -> 3.
fn comp_letter(b: u8) -> Option<usize> {
    match b.to_ascii_lowercase() {
        b'x' | b'r' => Some(0),
        b'y' | b'g' => Some(1),
        b'z' | b'b' => Some(2),
        b'w' | b'a' => Some(3),
        _ => None,
    }
}

fn mask_char(b: u8) -> bool {
    comp_letter(b).is_some() || matches!(b, b'_' | b'0' | b'1')
}

/// Component set `xw` -> 0b1001.
pub(super) fn comp_mask(s: &str) -> Option<u8> {
    let mut m = 0u8;
    for b in s.trim().bytes() {
        m |= 1 << comp_letter(b)?;
    }
    Some(m)
}

/// Write mask with the cursor rule: a letter selects its component (must not go backwards),
/// `_`/`0`/`1` apply to the cursor component; the cursor advances after each character.
pub(super) fn parse_mask(s: &str) -> Option<[DstComp; 4]> {
    let mut mask = [DstComp::NoWrite; 4];
    let mut cur = 0usize;
    for b in s.bytes() {
        let (i, v) = match b {
            b'_' => (cur, DstComp::NoWrite),
            b'0' => (cur, DstComp::Zero),
            b'1' => (cur, DstComp::One),
            _ => {
                let i = comp_letter(b)?;
                if i < cur {
                    return None;
                }
                (i, DstComp::Write)
            }
        };
        if i > 3 {
            return None;
        }
        mask[i] = v;
        cur = i + 1;
    }
    Some(mask)
}

/// Swizzle: 1 char replicates; 2-3 chars repeat the last one; 4 chars exact.
pub(super) fn parse_swizzle(s: &str) -> Option<[Swz; 4]> {
    if s.is_empty() || s.len() > 4 {
        return None;
    }
    let mut out = [Swz::X; 4];
    let mut last = Swz::X;
    for (i, slot) in out.iter_mut().enumerate() {
        if let Some(&b) = s.as_bytes().get(i) {
            last = match b {
                b'0' => Swz::Zero,
                b'1' => Swz::One,
                _ => Swz::from_code(comp_letter(b)? as u8)?,
            };
        }
        *slot = last;
    }
    Some(out)
}

/// Register name -> kind and number. Handles aliases and `0` suffixes of system registers.
pub(super) fn reg_name(name: &str) -> Option<(RegKind, u32)> {
    let lower_buf;
    let lower: &str = if name.bytes().any(|b| b.is_ascii_uppercase()) {
        lower_buf = name.to_ascii_lowercase();
        &lower_buf
    } else {
        name
    };
    // Fast path for the common numbered kinds: `r12`, `l3`, `cb0`, `x1`.
    let b = lower.as_bytes();
    if b.len() >= 2 && b.len() <= 10 {
        let (kind, rest) = match b[0] {
            b'r' => (Some(RegKind::Temp), &b[1..]),
            b'l' => (Some(RegKind::Literal), &b[1..]),
            b'x' => (Some(RegKind::IndexedTemp), &b[1..]),
            b'c' if b[1] == b'b' => (Some(RegKind::ConstBuffer), &b[2..]),
            _ => (None, b),
        };
        if let Some(kind) = kind {
            if !rest.is_empty() && rest.iter().all(u8::is_ascii_digit) {
                let n = rest.iter().fold(0u32, |a, d| a * 10 + (d - b'0') as u32);
                return Some((kind, n));
            }
        }
    }
    let base = lower.strip_suffix('0').unwrap_or(lower);
    let named = |s: &str| -> Option<RegKind> {
        Some(match s {
            "vtidingrp" => RegKind::ThreadIdInGroup,
            "vtidingrpflat" | "vtid" => RegKind::ThreadIdInGroupFlat,
            "vabstid" => RegKind::AbsThreadId,
            "vabstidflat" | "vatid" => RegKind::AbsThreadIdFlat,
            "vthreadgrpid" => RegKind::ThreadGroupId,
            "vthreadgrpidflat" | "vtgroupid" => RegKind::ThreadGroupIdFlat,
            "vwincoord" => RegKind::WinCoord,
            "tmr" => RegKind::Timer,
            "g" => RegKind::Global,
            "icb" => RegKind::ImmConstBuffer,
            "this" => RegKind::This,
            "vface" => RegKind::Face,
            "vprim" => RegKind::VPrim,
            "odepth" => RegKind::Depth,
            "p" => RegKind::Persist,
            _ => return None,
        })
    };
    if let Some(k) = named(lower) {
        return Some((k, 0));
    }
    if let Some(k) = named(base) {
        return Some((k, 0));
    }
    let split = lower
        .find(|c: char| c.is_ascii_digit())
        .unwrap_or(lower.len());
    let (prefix, digits) = lower.split_at(split);
    if prefix == "mem" {
        let n = if digits.is_empty() {
            0
        } else {
            digits.parse().ok()?
        };
        return Some((RegKind::GenericMem, n));
    }
    if digits.is_empty() || digits.len() > 9 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n: u32 = digits.parse().ok()?;
    let kind = match prefix {
        "r" => RegKind::Temp,
        "l" => RegKind::Literal,
        "cb" => RegKind::ConstBuffer,
        "x" => RegKind::IndexedTemp,
        "v" => RegKind::Input,
        "o" => RegKind::Output,
        "sr" => RegKind::SharedTemp,
        "in" => RegKind::InputArg,
        "out" => RegKind::OutputArg,
        "b" => RegKind::ConstBool,
        "c" => RegKind::ConstFloat,
        "i" => RegKind::ConstInt,
        "a" => RegKind::Addr,
        _ => return None,
    };
    Some((kind, n))
}
