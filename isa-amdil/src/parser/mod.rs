//! The AMD IL text parser: source text -> [`Program`] plus diagnostics.
//!
//! Grammar (one statement per line, case-insensitive):
//! ```text
//! line     := version | instr
//! version  := "il_" ("cs"|"ps"|"vs"|"gs"|"hs"|"ds") ["_" major ["_" minor]] ["_mp"] ["_rt"]
//! instr    := mnemonic { "_" ctrl ["(" value ")"] } operands-by-form
//! operand  := reg { "[" index "]" } ["." mask-or-swizzle] { "_" mod ["(" value ")"] }
//! index    := number | reg "." comp [("+"|"-") number]
//! ```
//! Operands are separated by commas or spaces. What follows the mnemonic depends on the
//! opcode's [`Form`] (labels, case values, `dcl_literal` words, declaration numbers).
//!
//! Practice over the guide (DESIGN.md section 7): missing version, old spellings
//! (`dcl_num_thread_per_blk`, `vaTid`), `0`-suffixed system registers, every mask and swizzle
//! form, modifiers after operands, `end;`, `;DEBUGSTART` blocks and `;ARGSTART` metadata.
//!
//! Guarantees: never panics, always terminates (every loop iteration consumes input or ends
//! the line); errors are collected per line and parsing resumes at the next line; every error
//! carries a line number.

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

use crate::ast::*;
use crate::diag::{codes, Diagnostic};
use crate::lexer::{Cursor, Number};
use crate::opcodes::{Form, Opcode};

mod operands;
#[cfg(test)]
mod tests;

use operands::comp_mask;

/// Parses IL text. Returns the program when there were no errors (warnings may be present),
/// and all diagnostics.
pub fn parse(source: &str) -> (Option<Program>, Vec<Diagnostic>) {
    let (prog, diags) = parse_lossy(source);
    if diags.iter().any(Diagnostic::is_error) {
        (None, diags)
    } else {
        (Some(prog), diags)
    }
}

/// Parses IL text, dropping lines that have errors; always returns a program.
pub fn parse_lossy(source: &str) -> (Program, Vec<Diagnostic>) {
    parse_lossy_limited(source, usize::MAX)
}

/// As [`parse_lossy`], but stops with an error (`L0002`, at the statement) after
/// `max_statements` statements, so that rejecting an oversized input costs no more memory
/// than the limit allows.
pub fn parse_lossy_limited(source: &str, max_statements: usize) -> (Program, Vec<Diagnostic>) {
    let normalized = crate::lexer::normalize_line_ends(source);
    let source: &str = &normalized;
    let mut p = Parser {
        c: Cursor::new(source),
        diags: Vec::new(),
        prog: Program {
            // One statement per line at most: reserve once instead of growing (the growth
            // copies dominated large inputs).
            statements: Vec::with_capacity(
                // (A sum of 0/1 bytes, which vectorizes; a filtered count did not.)
                (source
                    .bytes()
                    .map(|b| usize::from(b == b'\n'))
                    .sum::<usize>()
                    + 1)
                .min(max_statements),
            ),
            ..Program::default()
        },
        max_statements,
    };
    p.run();
    (p.prog, p.diags)
}

type Mark = (usize, u32, u32);

struct Parser<'a> {
    c: Cursor<'a>,
    diags: Vec<Diagnostic>,
    prog: Program,
    /// Stop after this many statements (see [`parse_lossy_limited`]).
    max_statements: usize,
}

/// Why a line failed; the diagnostic is already recorded.
struct Failed;

type PResult<T> = Result<T, Failed>;

impl<'a> Parser<'a> {
    fn err(&mut self, code: &'static str, span: Span, msg: impl Into<String>) -> Failed {
        self.diags.push(Diagnostic::error(code, span, msg));
        Failed
    }

    /// An `UNEXPECTED` error at the character under the cursor: `what` followed by that
    /// character (a space at the end of the input).
    fn unexpected_here(&mut self, what: &str) -> Failed {
        let span = self.c.span_here(1);
        let ch = self.c.source()[self.c.pos()..]
            .chars()
            .next()
            .unwrap_or(' ');
        self.err(
            codes::UNEXPECTED,
            span,
            format!("{what} `{}`", ch.escape_debug()),
        )
    }

    fn warn(&mut self, code: &'static str, span: Span, msg: impl Into<String>) {
        self.diags.push(Diagnostic::warning(code, span, msg));
    }

    fn run(&mut self) {
        loop {
            if !self.skip_trivia() {
                break;
            }
            let line = self.c.line();
            if self.prog.statements.len() >= self.max_statements {
                let span = self.c.span_here(0);
                self.err(
                    codes::TOO_MANY_STATEMENTS,
                    span,
                    format!(
                        "kernel has more than {} instructions, the limit",
                        self.max_statements
                    ),
                );
                break;
            }
            if self.statement().is_err() {
                // Resume on the next line (the failing part may be mid-line).
                if self.c.line() == line {
                    self.c.skip_line();
                }
            }
        }
    }

    /// Skips blank lines and comment lines, handling DEBUGSTART/ARGSTART blocks. Returns false
    /// at end of input.
    fn skip_trivia(&mut self) -> bool {
        loop {
            match self.c.skip_blank() {
                Ok(_) => {}
                Err(span) => {
                    self.err(codes::UNTERMINATED, span, "unterminated block comment");
                    while !self.c.eof() {
                        self.c.bump();
                    }
                    return false;
                }
            }
            match self.c.peek() {
                None => return false,
                Some(b'\n') => self.c.bump(),
                Some(b';') => {
                    let rest = self.c.rest_of_line();
                    let body = rest[1..].trim();
                    if starts_with_ci(body, "DEBUGSTART") {
                        self.skip_debug_block();
                    } else if starts_with_ci(body, "ARGSTART") {
                        self.arg_block();
                    } else {
                        self.c.skip_line();
                    }
                }
                Some(b'/') if self.c.peek2() == Some(b'/') => self.c.skip_line(),
                Some(_) => return true,
            }
        }
    }

    fn skip_debug_block(&mut self) {
        let mark = self.c.mark();
        self.c.skip_line();
        while !self.c.eof() {
            let rest = self.c.rest_of_line().trim_start();
            let done = rest.starts_with(';') && starts_with_ci(rest[1..].trim_start(), "DEBUGEND");
            self.c.skip_line();
            if done {
                return;
            }
        }
        self.warn(
            codes::SUSPICIOUS,
            self.c.span_from(mark),
            "`;DEBUGSTART` block without `;DEBUGEND`",
        );
    }

    fn arg_block(&mut self) {
        let mark = self.c.mark();
        let mut lines = Vec::new();
        loop {
            let rest = self.c.rest_of_line().trim();
            if !rest.starts_with(';') {
                break;
            }
            let body = rest[1..].trim_end_matches('\r').to_string();
            let done = starts_with_ci(body.trim_start(), "ARGEND");
            lines.push(body);
            self.c.skip_line();
            if done || self.c.eof() {
                break;
            }
            let _ = self.c.skip_blank();
        }
        let span = self.c.span_from(mark);
        self.prog.metadata.push(MetadataBlock {
            before_statement: self.prog.statements.len(),
            lines,
            span,
        });
    }

    /// Expects the end of the statement: blanks, then a comment or line end.
    fn end_of_statement(&mut self) -> PResult<()> {
        match self.c.skip_blank() {
            Ok(true) => return Ok(()),
            Ok(false) => {}
            Err(span) => {
                return Err(self.err(codes::UNTERMINATED, span, "unterminated block comment"))
            }
        }
        if self.c.at_line_end() {
            self.c.skip_line();
            Ok(())
        } else {
            let span = self.c.span_here(1);
            let rest = self.c.rest_of_line();
            let tok: String = rest
                .chars()
                .take_while(|c| !c.is_whitespace() && *c != ',')
                .take(40)
                .collect();
            Err(self.err(
                codes::UNEXPECTED,
                span,
                format!("unexpected `{tok}` at end of instruction"),
            ))
        }
    }

    fn statement(&mut self) -> PResult<()> {
        let mark = self.c.mark();
        let text = match self.c.mnemonic() {
            Ok(t) => t,
            Err(span) => {
                return Err(self.err(codes::UNTERMINATED, span, "unclosed `(` in mnemonic"))
            }
        };
        if text.is_empty() {
            return Err(self.unexpected_here("unexpected character"));
        }
        let mspan = self.c.span_from(mark);
        if LANGUAGE_LINES.iter().any(|l| l.eq_ignore_ascii_case(text)) && {
            let _ = self.blank();
            self.c.at_line_end()
        } {
            // Disassemblers print the IL_Lang client type on its own line before the version.
            self.warn(
                codes::PRACTICE,
                mspan,
                format!("language line `{text}` ignored"),
            );
            return self.end_of_statement();
        }
        if starts_with_ci(text, "il_") {
            let v = self.version(text, mspan)?;
            if self.prog.version.is_some() {
                self.warn(codes::SUSPICIOUS, mspan, "second version line ignored");
            } else {
                if !only_macros(&self.prog.statements) {
                    self.warn(codes::PRACTICE, mspan, "version line after instructions");
                }
                self.prog.version = Some(v);
            }
            return self.end_of_statement();
        }
        let (opcode, rest_at) = match self.lookup(text) {
            Some(x) => x,
            None => {
                let d = Diagnostic::error(
                    codes::UNKNOWN_OPCODE,
                    mspan,
                    format!("unknown opcode `{}`", truncate(text)),
                )
                .with_suggestion(suggest_mnemonic(text));
                self.diags.push(d);
                return Err(Failed);
            }
        };
        let mut inst = Instruction::new(opcode);
        self.controls(&mut inst, &text[rest_at..], mark, rest_at)?;
        self.operands(&mut inst)?;
        // Instruction-level dst modifiers move to the first destination.
        if !inst.dsts.is_empty()
            && inst
                .controls
                .iter()
                .any(|c| matches!(c, Control::Sat | Control::Shift(_)))
        {
            let mut kept = Vec::with_capacity(inst.controls.len());
            for c in std::mem::take(&mut inst.controls) {
                match c {
                    Control::Sat => inst.dsts[0].sat = true,
                    Control::Shift(s) => inst.dsts[0].shift = s,
                    c => kept.push(c),
                }
            }
            inst.controls = kept.into();
        }
        inst.span = self.c.span_from(mark);
        self.end_of_statement()?;
        self.prog.statements.push(inst);
        Ok(())
    }

    /// Longest prefix of `text` at `_` boundaries (before any parenthesized control) that is a
    /// mnemonic. Returns the opcode and the byte offset where the controls start.
    fn lookup(&self, text: &str) -> Option<(Opcode, usize)> {
        // Controls start at the last `_` before the first `(`; a `(` right after the mnemonic
        // (`mcall(1)`, `mdef(2)_out(1)`) starts them too.
        let limit = match text.find('(') {
            Some(p) => match text[..p].rfind('_') {
                Some(u) if Opcode::from_mnemonic(&text[..p]).is_none() => u,
                _ => p,
            },
            None => text.len(),
        };
        let head = &text[..limit];
        if head.is_empty() {
            return None;
        }
        // No mnemonic is longer than MAX_MNEMONIC bytes: start at the last `_` boundary within
        // that length, so pathological words cannot make the search quadratic.
        const MAX_MNEMONIC: usize = 40;
        let mut end = head.len();
        if end > MAX_MNEMONIC {
            end = match head.as_bytes()[..=MAX_MNEMONIC]
                .iter()
                .rposition(|b| *b == b'_')
            {
                Some(p) if p > 0 => p,
                _ => return None,
            };
        }
        loop {
            // `from_mnemonic` ignores case, lowering a copy only when the text has capitals.
            if let Some(op) = Opcode::from_mnemonic(&head[..end]) {
                return Some((op, end));
            }
            match head[..end].rfind('_') {
                Some(p) if p > 0 => end = p,
                _ => return None,
            }
        }
    }

    fn version(&mut self, text: &str, span: Span) -> PResult<Version> {
        let lower = text.to_ascii_lowercase();
        let mut parts = lower.split('_').skip(1);
        let shader = match parts.next() {
            Some("cs") => ShaderType::Compute,
            Some("ps") => ShaderType::Pixel,
            Some("vs") => ShaderType::Vertex,
            Some("gs") => ShaderType::Geometry,
            Some("hs") => ShaderType::Hull,
            Some("ds") => ShaderType::Domain,
            _ => {
                return Err(self.err(
                    codes::BAD_VERSION,
                    span,
                    format!("unknown shader type in `{}`", truncate(text)),
                ))
            }
        };
        let mut v = Version {
            shader,
            major: None,
            minor: None,
            multipass: false,
            realtime: false,
            span,
        };
        for p in parts {
            match p {
                "mp" => v.multipass = true,
                "rt" => v.realtime = true,
                n if !n.is_empty()
                    && n.bytes().all(|b| b.is_ascii_digit())
                    && !v.multipass
                    && !v.realtime =>
                {
                    let n: u8 = match n.parse() {
                        Ok(n) => n,
                        Err(_) => {
                            return Err(self.err(
                                codes::BAD_VERSION,
                                span,
                                "version number too large",
                            ))
                        }
                    };
                    if v.major.is_none() {
                        v.major = Some(n);
                    } else if v.minor.is_none() {
                        v.minor = Some(n);
                    } else {
                        return Err(self.err(codes::BAD_VERSION, span, "too many version numbers"));
                    }
                }
                _ => {
                    return Err(self.err(
                        codes::BAD_VERSION,
                        span,
                        format!("malformed version line `{}`", truncate(text)),
                    ))
                }
            }
        }
        Ok(v)
    }

    /// Parses the control specifiers in `rest` (text after the mnemonic, starting with `_`).
    fn controls(
        &mut self,
        inst: &mut Instruction,
        rest: &str,
        mark: Mark,
        offset: usize,
    ) -> PResult<()> {
        // Collected here and stored once, in one allocation of the exact size (a push onto
        // `Controls` reallocates).
        let mut controls: smallvec::SmallVec<[Control; 2]> = smallvec::SmallVec::new();
        let mut i = 0;
        let b = rest.as_bytes();
        while i < b.len() {
            let seg_start = i;
            if b[i] == b'(' && i == 0 {
                // `mcall(1)`: a value right after the mnemonic, kept as a nameless control.
                let close = match rest.find(')') {
                    Some(c) => c,
                    None => {
                        return Err(self.err(
                            codes::UNTERMINATED,
                            sub_span(mark, offset, 1),
                            "unclosed `(`",
                        ))
                    }
                };
                let value = rest[1..close].trim().to_ascii_lowercase();
                // `ffb(hi)` (the guide's `ffb(option)`) is `ffb_hi`.
                let ffb = inst.opcode == Opcode::IFirstbit
                    && matches!(value.as_str(), "lo" | "hi" | "shi");
                let span = sub_span(mark, offset, close + 1);
                controls.push(if ffb {
                    Control::Generic {
                        name: value,
                        value: None,
                        span,
                    }
                } else {
                    Control::Generic {
                        name: String::new(),
                        value: Some(value),
                        span,
                    }
                });
                i = close + 1;
                continue;
            }
            if b[i] != b'_' {
                let span = sub_span(mark, offset + i, 1);
                return Err(self.err(codes::BAD_MODIFIER, span, "malformed control specifier"));
            }
            i += 1;
            let name_start = i;
            while i < b.len() && b[i] != b'_' && b[i] != b'(' {
                i += 1;
            }
            // Lower-cased only when it is not already (no allocation for the usual `_ieee`).
            let raw_name = &rest[name_start..i];
            let mut name = if raw_name.bytes().any(|c| c.is_ascii_uppercase()) {
                std::borrow::Cow::Owned(raw_name.to_ascii_lowercase())
            } else {
                std::borrow::Cow::Borrowed(raw_name)
            };
            // Multi-word fence flags.
            if inst.opcode == Opcode::Fence && name == "mem" {
                for tail in ["_write_only", "_read_only"] {
                    if rest.len() >= i + tail.len()
                        && rest[i..i + tail.len()].eq_ignore_ascii_case(tail)
                    {
                        name.to_mut().push_str(tail);
                        i += tail.len();
                        break;
                    }
                }
            }
            let mut value = None;
            if i < b.len() && b[i] == b'(' {
                let close = match rest[i..].find(')') {
                    Some(c) => i + c,
                    None => {
                        return Err(self.err(
                            codes::UNTERMINATED,
                            sub_span(mark, offset + i, 1),
                            "unclosed `(`",
                        ))
                    }
                };
                value = Some(rest[i + 1..close].trim());
                i = close + 1;
            }
            let span = sub_span(mark, offset + seg_start, i - seg_start);
            let ctrl = self.control(inst.opcode, &name, value, span)?;
            controls.push(ctrl);
        }
        // Most statements have no control: the conversion to a boxed slice (two calls into
        // the allocator's paths even when empty) is left out for them. The others move into
        // one allocation of the exact size (`SmallVec::into_vec` of inline items goes
        // through a generic collect that cost more than the allocation).
        if !controls.is_empty() {
            let mut v = Vec::with_capacity(controls.len());
            v.extend(controls);
            inst.controls = v.into();
        }
        Ok(())
    }

    fn control(
        &mut self,
        op: Opcode,
        name: &str,
        value: Option<&str>,
        span: Span,
    ) -> PResult<Control> {
        let num = |p: &mut Parser, v: Option<&str>| -> PResult<u32> {
            match v.and_then(parse_u32) {
                Some(n) => Ok(n),
                None => Err(p.err(
                    codes::BAD_MODIFIER,
                    span,
                    format!("`_{name}` needs a number in parentheses"),
                )),
            }
        };
        let c = match (name, value) {
            ("ieee", None) => Control::Ieee,
            ("relop", Some(v)) => {
                match RelOp::ALL.iter().find(|r| r.name().eq_ignore_ascii_case(v)) {
                    Some(r) => Control::Relop(*r),
                    None => {
                        return Err(self.err(
                            codes::BAD_MODIFIER,
                            span,
                            format!("unknown relop `{}`", truncate(v)),
                        ))
                    }
                }
            }
            ("zeroop", Some(v)) => {
                let v2 = if v.eq_ignore_ascii_case("inf") {
                    "infinity"
                } else {
                    v
                };
                match ZeroOp::ALL
                    .iter()
                    .find(|r| r.name().eq_ignore_ascii_case(v2))
                {
                    Some(r) => Control::ZeroOp(*r),
                    None => {
                        return Err(self.err(
                            codes::BAD_MODIFIER,
                            span,
                            format!("unknown zeroop `{}`", truncate(v)),
                        ))
                    }
                }
            }
            ("cmpval", Some(v)) => {
                let f: Option<f32> = v.trim_end_matches(['f', 'F']).parse().ok();
                match CmpVal::ALL.iter().find(|c| Some(c.value()) == f) {
                    Some(c) => Control::CmpVal(*c),
                    None => {
                        return Err(self.err(
                            codes::BAD_MODIFIER,
                            span,
                            format!("unknown cmpval `{}`", truncate(v)),
                        ))
                    }
                }
            }
            ("id", Some(_)) => Control::Id(num(self, value)?),
            ("resource", Some(_)) if is_id_family(op) => {
                // The guide spells the LDS read-ops `lds_read_add_resource(id)`; every other
                // memory op (and all real code) uses `_id(n)`, which is what it means.
                self.warn(
                    codes::PRACTICE,
                    span,
                    format!("`_resource(n)` on `{op}` taken as `_id(n)` (the guide's spelling)"),
                );
                Control::Id(num(self, value)?)
            }
            ("resource", Some(_)) => Control::Resource(num(self, value)?),
            ("sampler", Some(_)) => Control::Sampler(num(self, value)?),
            ("stride", Some(_)) => Control::Stride(num(self, value)?),
            ("loffset", Some(_)) => Control::LOffset(num(self, value)?),
            ("cached", None) => Control::Cached,
            ("uncached", None) => Control::Uncached,
            ("fmtx" | "fmty" | "fmtz" | "fmtw", Some(v)) => {
                let comp = (name.as_bytes()[3] as char, 0u8);
                let c = match comp.0 {
                    'x' => 0,
                    'y' => 1,
                    'z' => 2,
                    _ => 3,
                };
                match ElementFormat::ALL
                    .iter()
                    .find(|f| f.name().eq_ignore_ascii_case(v))
                {
                    Some(f) => Control::Fmt(c, *f),
                    None => {
                        return Err(self.err(
                            codes::BAD_MODIFIER,
                            span,
                            format!("unknown element format `{}`", truncate(v)),
                        ))
                    }
                }
            }
            ("sat", None) => Control::Sat,
            ("x2" | "x4" | "x8" | "d2" | "d4" | "d8", None) => Control::Shift(
                ShiftScale::ALL
                    .iter()
                    .copied()
                    .find(|s| s.name() == name)
                    .unwrap_or_default(),
            ),
            ("prec", v) => {
                let mask = match v {
                    None => 0xF,
                    Some(m) => match comp_mask(m) {
                        Some(m) => m,
                        None => {
                            return Err(self.err(
                                codes::BAD_MODIFIER,
                                span,
                                "bad `_prec` component mask",
                            ))
                        }
                    },
                };
                Control::Prec(mask)
            }
            // Unknown fence flags (newer IL versions added some) fall through to Generic below.
            ("threads", None) if op == Opcode::Fence => Control::Fence(FenceFlag::Threads),
            ("lds", None) if op == Opcode::Fence => Control::Fence(FenceFlag::Lds),
            ("memory" | "mem", None) if op == Opcode::Fence => Control::Fence(FenceFlag::Memory),
            ("sr", None) if op == Opcode::Fence => Control::Fence(FenceFlag::Sr),
            ("gds", None) if op == Opcode::Fence => Control::Fence(FenceFlag::Gds),
            ("mem_write_only", None) if op == Opcode::Fence => {
                Control::Fence(FenceFlag::MemWriteOnly)
            }
            ("mem_read_only", None) if op == Opcode::Fence => {
                Control::Fence(FenceFlag::MemReadOnly)
            }
            (n, v) => {
                if n.is_empty() || !n.bytes().all(|b| b.is_ascii_alphanumeric()) {
                    return Err(self.err(codes::BAD_MODIFIER, span, "malformed control specifier"));
                }
                Control::Generic {
                    name: n.to_string(),
                    // Canonical value: lower case, no spaces around commas (`2d, unnorm`).
                    value: v.map(|s| {
                        s.split(',')
                            .map(str::trim)
                            .collect::<Vec<_>>()
                            .join(",")
                            .to_ascii_lowercase()
                    }),
                    span,
                }
            }
        };
        Ok(c)
    }

    fn blank(&mut self) -> PResult<bool> {
        match self.c.skip_blank() {
            Ok(nl) => Ok(nl),
            Err(span) => Err(self.err(codes::UNTERMINATED, span, "unterminated block comment")),
        }
    }

    /// Skips blanks and an optional comma. Returns true when more text follows on the line.
    fn separator(&mut self) -> PResult<bool> {
        if self.blank()? {
            return Ok(false);
        }
        if self.c.peek() == Some(b',') {
            self.c.bump();
            if self.blank()? {
                return Ok(false);
            }
        }
        Ok(!self.c.at_line_end())
    }

    fn operands(&mut self, inst: &mut Instruction) -> PResult<()> {
        let info = inst.opcode.info();
        match info.form {
            Form::Operands => {
                // Exactly what the opcode takes: a push into an empty Vec reserves four
                // operands, which made the AST of a large kernel 700 bytes a statement.
                inst.dsts.reserve_exact(usize::from(info.dsts));
                inst.srcs.reserve_exact(usize::from(info.srcs_max).min(4));
                let mut idx = 0usize;
                while self.separator()? {
                    if idx < info.dsts as usize {
                        let d = self.dst()?;
                        inst.dsts.push(d);
                    } else {
                        let s = self.src()?;
                        inst.srcs.push(s);
                    }
                    idx += 1;
                    if idx > 64 {
                        let span = self.c.span_here(1);
                        return Err(self.err(codes::OPERAND_COUNT, span, "too many operands"));
                    }
                }
            }
            Form::Label => {
                self.separator()?;
                inst.payload = Payload::Label(self.u32_value("a function label")?);
            }
            Form::SrcLabel => {
                if self.separator()? {
                    let s = self.src()?;
                    inst.srcs.push(s);
                }
                self.separator()?;
                inst.payload = Payload::Label(self.u32_value("a function label")?);
            }
            Form::Case => {
                self.separator()?;
                let n = self.number_value("a case value")?;
                inst.payload = Payload::Case(n as i32);
            }
            Form::Literal => {
                self.separator()?;
                let reg = self.reg()?;
                if reg.kind != RegKind::Literal || !reg.indices.is_empty() {
                    let span = self.c.span_here(0);
                    return Err(self.err(
                        codes::BAD_DECL,
                        span,
                        "`dcl_literal` needs a literal register `lN`",
                    ));
                }
                let mut values = [0u32; 4];
                for v in values.iter_mut() {
                    self.separator()?;
                    *v = self.number_value("four literal values")?;
                }
                inst.payload = Payload::Literal {
                    reg: reg.num,
                    values,
                };
            }
            Form::ConstBuffer | Form::IndexedTemp => {
                self.separator()?;
                let mark = self.c.mark();
                let reg = self.reg()?;
                if info.form == Form::ConstBuffer && reg.kind == RegKind::ImmConstBuffer {
                    inst.payload = self.imm_const_buffer(&reg, mark)?;
                    return Ok(());
                }
                let want = if info.form == Form::ConstBuffer {
                    RegKind::ConstBuffer
                } else {
                    RegKind::IndexedTemp
                };
                let size = match &reg.indices[..] {
                    [Index { reg: None, offset }] if reg.kind == want && *offset >= 0 => {
                        *offset as u32
                    }
                    _ => {
                        let span = self.c.span_from(mark);
                        return Err(self.err(
                            codes::BAD_DECL,
                            span,
                            format!("expected `{}N[size]`", want.name()),
                        ));
                    }
                };
                inst.payload = if want == RegKind::ConstBuffer {
                    Payload::ConstBuffer { cb: reg.num, size }
                } else {
                    Payload::IndexedTemp { reg: reg.num, size }
                };
            }
            Form::Numbers | Form::DstNumbers => {
                if info.form == Form::DstNumbers && self.separator()? {
                    let d = self.dst()?;
                    inst.dsts.push(d);
                }
                let mut nums = Vec::new();
                while self.separator()? {
                    nums.push(self.number_value("a number")?);
                    if nums.len() > 64 {
                        let span = self.c.span_here(1);
                        return Err(self.err(codes::BAD_DECL, span, "too many numbers"));
                    }
                }
                inst.payload = Payload::Numbers(nums.into());
            }
            Form::Words => {
                let mut words = Vec::new();
                while self.separator()? {
                    // Flags may also be joined with `|` (`refactoringAllowed|enableDouble...`).
                    if self.c.peek() == Some(b'|') {
                        self.c.bump();
                        continue;
                    }
                    let w = self.c.word();
                    if w.is_empty() {
                        let span = self.c.span_here(1);
                        return Err(self.err(codes::UNEXPECTED, span, "expected a word"));
                    }
                    words.push(w.to_string());
                }
                inst.payload = Payload::Words(words.into());
            }
            Form::Raw if inst.opcode == Opcode::Macrocall => self.macro_call_operands(inst)?,
            Form::Raw => {
                self.blank()?;
                let rest = self.c.rest_of_line();
                let end = rest.find(';').unwrap_or(rest.len());
                let raw = rest[..end].trim();
                for _ in 0..rest[..end].trim_end().len() {
                    self.c.bump();
                }
                inst.payload = if raw.is_empty() {
                    Payload::None
                } else {
                    Payload::Raw(raw.into())
                };
            }
        }
        Ok(())
    }

    /// `mcall(k) (outs), (ins)`: the actual outputs become the destinations, the actual
    /// inputs the sources (7.19; the parentheses are required, the lists may be empty, and
    /// the guide's examples also write a comma after `mcall(k)`).
    fn macro_call_operands(&mut self, inst: &mut Instruction) -> PResult<()> {
        for list in 0..2 {
            self.separator()?;
            if self.c.peek() != Some(b'(') {
                let span = self.c.span_here(1);
                let which = if list == 0 { "outputs" } else { "inputs" };
                return Err(self.err(
                    codes::OPERAND_KIND,
                    span,
                    format!("expected `(` opening the list of macro {which}"),
                ));
            }
            self.c.bump();
            self.blank()?;
            if self.c.peek() == Some(b')') {
                self.c.bump();
                continue;
            }
            loop {
                if list == 0 {
                    let d = self.dst()?;
                    inst.dsts.push(d);
                } else {
                    let s = self.src()?;
                    inst.srcs.push(s);
                }
                if inst.dsts.len() + inst.srcs.len() > 64 {
                    let span = self.c.span_here(1);
                    return Err(self.err(codes::OPERAND_COUNT, span, "too many operands"));
                }
                self.blank()?;
                match self.c.peek() {
                    Some(b',') => {
                        self.c.bump();
                        self.blank()?;
                    }
                    Some(b')') => {
                        self.c.bump();
                        break;
                    }
                    _ => {
                        let span = self.c.span_here(1);
                        return Err(self.err(
                            codes::UNEXPECTED,
                            span,
                            "expected `,` or `)` in a macro argument list",
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    /// `dcl_cb icb[K] = {d0, d1, ...}`: the immediate constant buffer's dwords (the guide
    /// gives no text form; this is ours, K = number of vec4 elements = ceil(dwords / 4)).
    fn imm_const_buffer(&mut self, reg: &RegRef, mark: Mark) -> PResult<Payload> {
        let size = match &reg.indices[..] {
            [Index { reg: None, offset }] if *offset >= 0 => *offset as usize,
            _ => {
                let span = self.c.span_from(mark);
                return Err(self.err(codes::BAD_DECL, span, "expected `icb[size] = {...}`"));
            }
        };
        self.blank()?;
        if self.c.peek() == Some(b'=') {
            self.c.bump();
            self.blank()?;
        }
        if self.c.peek() != Some(b'{') {
            // Disassemblers print `dcl_cb icb[N]` without the data: keep the size, zeros.
            let span = self.c.span_from(mark);
            self.warn(
                codes::SUSPICIOUS,
                span,
                "immediate constant buffer without data; assuming zeros",
            );
            return Ok(Payload::ImmConstBuffer(
                vec![0; size.saturating_mul(4).min(1 << 16)].into(),
            ));
        }
        self.c.bump();
        let mut data = Vec::new();
        loop {
            self.blank()?;
            match self.c.peek() {
                Some(b'}') => {
                    self.c.bump();
                    break;
                }
                Some(b',') => self.c.bump(),
                None | Some(b'\n') | Some(b';') => {
                    let span = self.c.span_here(1);
                    return Err(self.err(
                        codes::UNTERMINATED,
                        span,
                        "expected `}` closing the data",
                    ));
                }
                _ => data.push(self.number_value("a constant buffer value")?),
            }
        }
        if data.len().div_ceil(4) != size {
            let span = self.c.span_from(mark);
            return Err(self.err(
                codes::BAD_DECL,
                span,
                format!(
                    "`icb[{size}]` holds {} elements but {} values are given",
                    size,
                    data.len()
                ),
            ));
        }
        Ok(Payload::ImmConstBuffer(data.into()))
    }

    fn number_value(&mut self, what: &str) -> PResult<u32> {
        let span = self.c.span_here(1);
        match self.c.number() {
            Some(Ok(n)) => match n.bits() {
                Some(b) => Ok(b),
                None => Err(self.err(codes::BAD_NUMBER, span, "number does not fit in 32 bits")),
            },
            Some(Err(span)) => Err(self.err(codes::BAD_NUMBER, span, "malformed number")),
            None => Err(self.err(codes::UNEXPECTED, span, format!("expected {what}"))),
        }
    }

    fn u32_value(&mut self, what: &str) -> PResult<u32> {
        let span = self.c.span_here(1);
        match self.c.number() {
            Some(Ok(Number::Int(v))) if (0..=u32::MAX as i64).contains(&v) => Ok(v as u32),
            Some(Ok(_)) => Err(self.err(
                codes::BAD_NUMBER,
                span,
                format!("expected {what} (unsigned integer)"),
            )),
            Some(Err(span)) => Err(self.err(codes::BAD_NUMBER, span, "malformed number")),
            None => Err(self.err(codes::UNEXPECTED, span, format!("expected {what}"))),
        }
    }
}

/// `IL_Lang` client type names, which disassemblers print on a line before the version.
const LANGUAGE_LINES: [&str; 15] = [
    "generic", "opengl", "dx8_ps", "dx8_vs", "dx9_ps", "dx9_vs", "dx10_ps", "dx10_vs", "dx10_gs",
    "dx11_ps", "dx11_vs", "dx11_gs", "dx11_cs", "dx11_hs", "dx11_ds",
];

/// Memory instructions addressed by `_id(n)` (UAV, LDS, GDS, SRV, append buffers).
pub(crate) fn is_id_family(op: Opcode) -> bool {
    let m = op.mnemonic();
    ["uav_", "lds_", "gds_", "srv_", "append_buf"]
        .iter()
        .any(|p| m.starts_with(p))
        && !matches!(op, Opcode::LdsReadVec | Opcode::LdsWriteVec)
}

/// True when every statement is part of an `mdef` .. `mend` macro definition (the only thing
/// the guide allows before the version line).
fn only_macros(stmts: &[Instruction]) -> bool {
    let mut inside = false;
    for s in stmts {
        match s.opcode {
            Opcode::Macrodef => inside = true,
            Opcode::Macroend if inside => inside = false,
            _ if inside => {}
            _ => return false,
        }
    }
    true
}

fn starts_with_ci(s: &str, prefix: &str) -> bool {
    s.len() >= prefix.len() && s.as_bytes()[..prefix.len()].eq_ignore_ascii_case(prefix.as_bytes())
}

/// The names of the controls [`Parser::control`] turns into typed [`Control`]s (every other
/// name is kept as [`Control::Generic`]), for "did you mean" help.
pub const TYPED_CONTROLS: &[&str] = &[
    "ieee",
    "relop",
    "zeroop",
    "cmpval",
    "id",
    "resource",
    "sampler",
    "stride",
    "loffset",
    "cached",
    "uncached",
    "fmtx",
    "fmty",
    "fmtz",
    "fmtw",
    "sat",
    "x2",
    "x4",
    "x8",
    "d2",
    "d4",
    "d8",
    "prec",
    "threads",
    "lds",
    "memory",
    "sr",
    "gds",
    "mem_write_only",
    "mem_read_only",
];

/// The mnemonic closest to an unknown opcode word (controls and a `(` value cut off first,
/// so `iaddd_sat` suggests `iadd`).
fn suggest_mnemonic(text: &str) -> Option<&'static str> {
    let head = text.split('(').next().unwrap_or(text);
    let all = || {
        crate::opcodes::OPCODES
            .iter()
            .flat_map(|i| i.mnemonics.iter().copied())
    };
    crate::diag::suggest(head, all()).or_else(|| {
        let word = head.split('_').next().unwrap_or(head);
        crate::diag::suggest(word, all())
    })
}

fn truncate(s: &str) -> String {
    if s.chars().count() > 40 {
        let t: String = s.chars().take(40).collect();
        format!("{t}...")
    } else {
        s.to_string()
    }
}

fn sub_span(mark: Mark, offset: usize, len: usize) -> Span {
    Span {
        start: (mark.0 + offset) as u32,
        end: (mark.0 + offset + len) as u32,
        line: mark.1,
        col: mark.2 + offset as u32,
    }
}

fn parse_u32(s: &str) -> Option<u32> {
    let s = s.trim();
    if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        u32::from_str_radix(h, 16).ok()
    } else {
        s.parse().ok()
    }
}
