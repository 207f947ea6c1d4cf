//! Diagnostics: errors and warnings about user input, with a code, a primary span, labelled
//! secondary spans, notes and help, rendered like rustc by `annotate-snippets` (the renderer
//! rustc itself uses, so ilc's output reads like the compiler diagnostics users know; it
//! brings only `anstyle` and `unicode-width`, and renders into a `String`, which the C API and
//! the tests need):
//!
//! ```text
//! error[E0010]: unknown opcode `iaddd`
//!  --> kernel.il:3:1
//!   |
//! 3 | iaddd r0, r1, r2
//!   | ^^^^^
//!   |
//!   = help: did you mean `iadd`?
//! ```
//!
//! [`Diagnostic::render`] is plain text; [`Diagnostic::render_styled`] adds ANSI colours (a
//! driver decides whether its stream is a terminal, see `anstream`). [`Diagnostic::to_json`]
//! is the machine-readable form (one JSON object per diagnostic), [`summary`] the closing
//! "aborting due to N errors" line. [`suggest`] finds the "did you mean" candidate.
//!
//! Guarantees: rendering never panics, whatever the spans (a span outside the source renders
//! as a ` --> file:line:col` location without the excerpt). Error codes are stable strings
//! listed in [`codes`].

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

use std::borrow::Cow;
use std::fmt;

use annotate_snippets::{AnnotationKind, Group, Level, Origin, Renderer, Snippet};

use crate::ast::Span;

/// How bad a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// The guide and practice disagree, or something is suspicious; input is accepted.
    Warning,
    /// Input is rejected.
    Error,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Warning => "warning",
            Severity::Error => "error",
        })
    }
}

/// A secondary span with its label (`first declared here`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Label {
    /// Where.
    pub span: Span,
    /// What the span is, shown under it.
    pub message: String,
}

/// One diagnostic.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// Stable code, e.g. `"E0012"` (see [`codes`]).
    pub code: &'static str,
    /// One-line message.
    pub message: String,
    /// Where (line 0 = no source location, e.g. binary input: then `start` is a word offset).
    pub span: Span,
    /// Secondary spans, rendered under the source with their labels.
    pub labels: Vec<Label>,
    /// Extra lines rendered as `= note: ...`.
    pub notes: Vec<String>,
    /// Suggestions rendered as `= help: ...` (`did you mean ...?`).
    pub help: Vec<String>,
}

impl Diagnostic {
    fn new(severity: Severity, code: &'static str, span: Span, message: String) -> Diagnostic {
        Diagnostic {
            severity,
            code,
            message,
            span,
            labels: Vec::new(),
            notes: Vec::new(),
            help: Vec::new(),
        }
    }

    /// An error.
    pub fn error(code: &'static str, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(Severity::Error, code, span, message.into())
    }

    /// A warning.
    pub fn warning(code: &'static str, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(Severity::Warning, code, span, message.into())
    }

    /// Adds a note.
    pub fn with_note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(note.into());
        self
    }

    /// Adds a help line.
    pub fn with_help(mut self, help: impl Into<String>) -> Diagnostic {
        self.help.push(help.into());
        self
    }

    /// Adds `help: did you mean `x`?` when `suggestion` is some.
    pub fn with_suggestion(self, suggestion: Option<&str>) -> Diagnostic {
        match suggestion {
            Some(s) => self.with_help(format!("did you mean `{s}`?")),
            None => self,
        }
    }

    /// Adds a labelled secondary span (ignored when `span` has no source location).
    pub fn with_label(mut self, span: Span, message: impl Into<String>) -> Diagnostic {
        if span.line != 0 {
            self.labels.push(Label {
                span,
                message: message.into(),
            });
        }
        self
    }

    /// True for errors.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// Renders as `severity[code]: message`, ` --> file:line:col`, the source lines of the
    /// primary and secondary spans with carets and labels, then the notes and help. Plain
    /// text, ends with a newline.
    pub fn render(&self, file_name: &str, source: &str) -> String {
        self.render_with(file_name, source, Renderer::plain())
    }

    /// [`Diagnostic::render`] with ANSI colours (for a terminal).
    pub fn render_styled(&self, file_name: &str, source: &str) -> String {
        self.render_with(file_name, source, Renderer::styled())
    }

    fn render_with(&self, file_name: &str, source: &str, renderer: Renderer) -> String {
        let level = level(self.severity);
        let title = level.primary_title(self.message.as_str()).id(self.code);
        let mut group: Group<'_> = match self.excerpts(source) {
            Some(excerpts) => title.elements(excerpts.into_iter().map(|(text, line, annots)| {
                Snippet::source(text)
                    .line_start(line as usize)
                    .path(file_name)
                    .annotations(annots)
            })),
            None => {
                let mut origin = Origin::path(file_name);
                if self.span.line != 0 {
                    origin = origin
                        .line(self.span.line as usize)
                        .char_column(self.span.col as usize);
                }
                title.element(origin)
            }
        };
        for n in &self.notes {
            group = group.element(Level::NOTE.message(n.as_str()));
        }
        for h in &self.help {
            group = group.element(Level::HELP.message(h.as_str()));
        }
        let mut out = renderer.render(&[group]);
        out.push('\n');
        out
    }

    /// The source excerpts to show: (text, first line number, annotations with spans relative
    /// to the text). Spans close together share one excerpt; `None` when the primary span is
    /// not in `source`.
    #[allow(clippy::type_complexity)]
    fn excerpts<'s>(
        &'s self,
        source: &'s str,
    ) -> Option<Vec<(Cow<'s, str>, u32, Vec<annotate_snippets::Annotation<'s>>)>> {
        let primary = line_range(source, self.span)?;
        // (span, line range, label, primary?) in source order.
        let mut spans = vec![(self.span, primary, None, true)];
        for l in &self.labels {
            if let Some(r) = line_range(source, l.span) {
                spans.push((l.span, r, Some(l.message.as_str()), false));
            }
        }
        spans.sort_by_key(|s| s.0.start);
        // Excerpts of spans at most this many lines apart are merged (folding hides the
        // lines between them).
        const NEAR: u32 = 8;
        let mut out: Vec<(Cow<'s, str>, u32, Vec<annotate_snippets::Annotation<'s>>)> = Vec::new();
        let mut cur: Option<(usize, usize, u32, u32)> = None; // (byte start, byte end, first line, last line)
        let mut members: Vec<usize> = Vec::new();
        let flush = |cur: (usize, usize, u32, u32),
                     members: &[usize],
                     out: &mut Vec<(Cow<'s, str>, u32, Vec<annotate_snippets::Annotation<'s>>)>| {
            let (b0, b1, line, _) = cur;
            let text = &source[b0..b1];
            // A lone `\r` ends a line for the lexer; make the renderer count it too.
            let text: Cow<'s, str> = if text.contains('\r') {
                Cow::Owned(text.replace("\r\n", "\n").replace('\r', "\n"))
            } else {
                Cow::Borrowed(text)
            };
            let annots = members
                .iter()
                .map(|&i| {
                    let (span, _, label, primary): &(Span, LineRange, Option<&'s str>, bool) =
                        &spans[i];
                    let start = span.start as usize - b0;
                    // The renderer slices at the end: round it up to a char boundary.
                    let mut end = (span.end as usize).clamp(span.start as usize, b1);
                    while !source.is_char_boundary(end) {
                        end += 1;
                    }
                    let end = end.min(b1) - b0;
                    let start = crlf_adjusted(&source[b0..b1], start);
                    let end = crlf_adjusted(&source[b0..b1], end);
                    let kind = if *primary {
                        AnnotationKind::Primary
                    } else {
                        AnnotationKind::Context
                    };
                    let a = kind.span(start..end);
                    match label {
                        Some(l) => a.label(*l),
                        None => a,
                    }
                })
                .collect();
            out.push((text, line, annots));
        };
        for (i, (_, r, _, _)) in spans.iter().enumerate() {
            match cur {
                Some((b0, b1, l0, l1)) if r.line <= l1 + NEAR => {
                    cur = Some((b0, b1.max(r.end), l0, l1.max(r.last_line)));
                }
                _ => {
                    if let Some(c) = cur.take() {
                        flush(c, &members, &mut out);
                        members.clear();
                    }
                    cur = Some((r.start, r.end, r.line, r.last_line));
                }
            }
            members.push(i);
        }
        if let Some(c) = cur {
            flush(c, &members, &mut out);
        }
        Some(out)
    }

    /// One JSON object (one line, no newline): `code`, `severity`, `message`, `file`, `line`,
    /// `col` (0 when unknown), `spans` (the primary first; each with `line`, `col`, `end_line`,
    /// `end_col`, `byte_start`, `byte_end`, `primary`, `label`), `notes` and `help`.
    pub fn to_json(&self, file_name: &str, source: &str) -> String {
        let mut spans = Vec::new();
        let mut span_json = |span: Span, primary: bool, label: Option<&str>| {
            if span.line == 0 {
                return;
            }
            let (end_line, end_col) = end_position(source, span);
            spans.push(format!(
                "{{\"line\":{},\"col\":{},\"end_line\":{end_line},\"end_col\":{end_col},\"byte_start\":{},\"byte_end\":{},\"primary\":{primary},\"label\":{}}}",
                span.line,
                span.col,
                span.start,
                span.end.max(span.start),
                label.map_or("null".to_string(), json_str)
            ));
        };
        span_json(self.span, true, None);
        for l in &self.labels {
            span_json(l.span, false, Some(&l.message));
        }
        let list = |v: &[String]| {
            let items: Vec<String> = v.iter().map(|s| json_str(s)).collect();
            format!("[{}]", items.join(","))
        };
        format!(
            "{{\"code\":{},\"severity\":{},\"message\":{},\"file\":{},\"line\":{},\"col\":{},\"spans\":[{}],\"notes\":{},\"help\":{}}}",
            json_str(self.code),
            json_str(&self.severity.to_string()),
            json_str(&self.message),
            json_str(file_name),
            self.span.line,
            self.span.col,
            spans.join(","),
            list(&self.notes),
            list(&self.help)
        )
    }
}

fn level(s: Severity) -> Level<'static> {
    match s {
        Severity::Warning => Level::WARNING,
        Severity::Error => Level::ERROR,
    }
}

/// The whole lines a span covers in `source`.
#[derive(Clone, Copy, Debug)]
struct LineRange {
    /// Byte offset of the first line's start.
    start: usize,
    /// Byte offset of the last line's end (before its terminator).
    end: usize,
    /// Number of the first line (the span's).
    line: u32,
    /// Number of the last line.
    last_line: u32,
}

fn is_line_end(c: char) -> bool {
    c == '\n' || c == '\r'
}

/// The lines of `span` (`None` when it has no line or lies outside `source`).
fn line_range(source: &str, span: Span) -> Option<LineRange> {
    let start = span.start as usize;
    if span.line == 0 || start > source.len() || !source.is_char_boundary(start) {
        return None;
    }
    let mut end = (span.end as usize).clamp(start, source.len());
    while !source.is_char_boundary(end) {
        end -= 1;
    }
    // A lone `\r` ends a line too (see `lexer::normalize_line_ends`).
    let line_start = source[..start].rfind(is_line_end).map_or(0, |i| i + 1);
    // A span ending with its line terminator stays on its line.
    let body_end = if end > start && source[..end].ends_with(is_line_end) {
        end - 1
    } else {
        end
    };
    let line_end = source[body_end.max(start)..]
        .find(is_line_end)
        .map_or(source.len(), |i| body_end.max(start) + i);
    let inner = &source[start..body_end.max(start)];
    let extra =
        inner.matches('\n').count() + inner.matches('\r').count() - inner.matches("\r\n").count();
    Some(LineRange {
        start: line_start,
        end: line_end,
        line: span.line,
        last_line: span.line + extra as u32,
    })
}

/// A byte offset into `text` after its `\r\n` pairs became `\n` (see the excerpts).
fn crlf_adjusted(text: &str, at: usize) -> usize {
    at - text.get(..at).map_or(0, |t| t.matches("\r\n").count())
}

/// The 1-based line and column of the end of `span` (its last byte + 1).
fn end_position(source: &str, span: Span) -> (u32, u32) {
    let Some(r) = line_range(source, span) else {
        return (span.line, span.col + span.end.saturating_sub(span.start));
    };
    let end = (span.end as usize).clamp(span.start as usize, source.len());
    let last_start = source[..end.max(r.start)]
        .get(r.start..)
        .and_then(|t| t.rfind(is_line_end).map(|i| r.start + i + 1))
        .unwrap_or(r.start);
    let last_start = last_start.min(end);
    (r.last_line, (end - last_start) as u32 + 1)
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.span.line != 0 {
            write!(f, "{}:{}: ", self.span.line, self.span.col)?;
        }
        write!(f, "{}[{}]: {}", self.severity, self.code, self.message)
    }
}

/// Renders several diagnostics one after the other (plain text).
pub fn render_all(diags: &[Diagnostic], file_name: &str, source: &str) -> String {
    diags.iter().map(|d| d.render(file_name, source)).collect()
}

/// True when any diagnostic is an error.
pub fn has_errors(diags: &[Diagnostic]) -> bool {
    diags.iter().any(Diagnostic::is_error)
}

/// The closing line after the diagnostics of one input, rustc's wording:
/// `error: aborting due to 2 previous errors; 1 warning emitted` or `warning: 3 warnings
/// emitted` (`None` without diagnostics). Plain text without newline.
pub fn summary(diags: &[Diagnostic]) -> Option<String> {
    let errors = diags.iter().filter(|d| d.is_error()).count();
    let warnings = diags.len() - errors;
    let plural = |n: usize, what: &str| {
        if n == 1 {
            format!("1 {what}")
        } else {
            format!("{n} {what}s")
        }
    };
    match (errors, warnings) {
        (0, 0) => None,
        (0, w) => Some(format!("warning: {} emitted", plural(w, "warning"))),
        (e, 0) => Some(format!(
            "error: aborting due to {}",
            plural(e, "previous error")
        )),
        (e, w) => Some(format!(
            "error: aborting due to {}; {} emitted",
            plural(e, "previous error"),
            plural(w, "warning")
        )),
    }
}

/// [`summary`] with the `error:`/`warning:` word coloured (for a terminal).
pub fn summary_styled(diags: &[Diagnostic]) -> Option<String> {
    let plain = summary(diags)?;
    let (word, rest) = plain.split_once(": ")?;
    let level = if word == "error" {
        Level::ERROR
    } else {
        Level::WARNING
    };
    Some(Renderer::styled().render(&[Group::with_title(level.primary_title(rest))]))
}

/// The candidate closest to `name` by edit distance, when close enough to be a likely typo
/// (at most a third of the name's length, at least 1; ties go to the first candidate).
/// Case-insensitive; never suggests `name` itself.
pub fn suggest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let lower = name.to_ascii_lowercase();
    let len = lower.chars().count();
    let limit = (len / 3).max(1);
    let mut best: Option<(usize, &'a str)> = None;
    for c in candidates {
        if c.is_empty() || c.eq_ignore_ascii_case(name) {
            continue;
        }
        // The distance is at least the difference in length: a long name (a megabyte of
        // garbage) is compared with nothing, instead of in time quadratic in its length.
        if len.abs_diff(c.chars().count()) > limit {
            continue;
        }
        let d = strsim::damerau_levenshtein(&lower, &c.to_ascii_lowercase());
        if d <= limit && best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, c));
        }
    }
    best.map(|(_, c)| c)
}

/// `s` as a JSON string literal.
pub fn json_str(s: &str) -> String {
    let mut o = String::with_capacity(s.len() + 2);
    o.push('"');
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            '\n' => o.push_str("\\n"),
            '\t' => o.push_str("\\t"),
            '\r' => o.push_str("\\r"),
            c if (c as u32) < 0x20 => o.push_str(&format!("\\u{:04x}", c as u32)),
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

/// Stable diagnostic codes.
pub mod codes {
    /// Unexpected character or token.
    pub const UNEXPECTED: &str = "E0001";
    /// Malformed number.
    pub const BAD_NUMBER: &str = "E0002";
    /// Unterminated block comment or parenthesis.
    pub const UNTERMINATED: &str = "E0003";
    /// Unknown opcode.
    pub const UNKNOWN_OPCODE: &str = "E0010";
    /// Unknown register name.
    pub const UNKNOWN_REGISTER: &str = "E0011";
    /// Malformed write mask.
    pub const BAD_MASK: &str = "E0012";
    /// Malformed swizzle.
    pub const BAD_SWIZZLE: &str = "E0013";
    /// Unknown or malformed modifier / control specifier.
    pub const BAD_MODIFIER: &str = "E0014";
    /// Malformed index expression.
    pub const BAD_INDEX: &str = "E0015";
    /// Malformed declaration payload.
    pub const BAD_DECL: &str = "E0016";
    /// Malformed version line.
    pub const BAD_VERSION: &str = "E0017";
    /// Wrong number of operands.
    pub const OPERAND_COUNT: &str = "E0020";
    /// Operand of a kind the opcode does not accept.
    pub const OPERAND_KIND: &str = "E0021";
    /// Use of an undeclared literal, constant buffer, resource, array, LDS...
    pub const UNDECLARED: &str = "E0030";
    /// Duplicate declaration.
    pub const DUPLICATE: &str = "E0031";
    /// Index out of declared range.
    pub const OUT_OF_RANGE: &str = "E0032";
    /// Control-flow nesting error.
    pub const NESTING: &str = "E0040";
    /// Call to a function that does not exist.
    pub const NO_SUCH_FUNCTION: &str = "E0041";
    /// `end` misplaced or missing.
    pub const END: &str = "E0042";
    /// Binary stream decoding error.
    pub const BINARY: &str = "E0050";
    /// Valid IL that ilc does not implement exactly (rejected rather than approximated).
    pub const UNSUPPORTED: &str = "E0060";
    /// Guide-vs-practice warning.
    pub const PRACTICE: &str = "W0001";
    /// More statements than the caller's limit (the compiler's instruction-count limit code).
    pub const TOO_MANY_STATEMENTS: &str = "L0002";
    /// Suspicious but accepted.
    pub const SUSPICIOUS: &str = "W0002";
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span(start: u32, end: u32, line: u32, col: u32) -> Span {
        Span {
            start,
            end,
            line,
            col,
        }
    }

    #[test]
    fn renders_with_caret_notes_and_help() {
        let src = "il_cs_2_0\niaddd r0, r1\nend\n";
        let d = Diagnostic::error(
            codes::UNKNOWN_OPCODE,
            span(10, 15, 2, 1),
            "unknown opcode `iaddd`",
        )
        .with_note("a note")
        .with_suggestion(Some("iadd"));
        assert_eq!(
            d.render("k.il", src),
            "error[E0010]: unknown opcode `iaddd`\n --> k.il:2:1\n  |\n2 | iaddd r0, r1\n  | ^^^^^\n  |\n  = note: a note\n  = help: did you mean `iadd`?\n"
        );
        assert_eq!(d.to_string(), "2:1: error[E0010]: unknown opcode `iaddd`");
        // Colours only in the styled form.
        assert!(!d.render("k.il", src).contains('\x1b'));
        assert!(d.render_styled("k.il", src).contains('\x1b'));
    }

    #[test]
    fn secondary_label_near_and_far() {
        let src = "il_cs_2_0\ndcl_lds_id(1) 16\nmov r0, r0\ndcl_lds_id(1) 32\nend\n";
        let d = Diagnostic::error(codes::DUPLICATE, span(39, 55, 4, 1), "LDS 1 declared twice")
            .with_label(span(10, 26, 2, 1), "first declared here");
        let r = d.render("k.il", src);
        assert!(r.contains("2 | dcl_lds_id(1) 16"), "{r}");
        assert!(r.contains("first declared here"), "{r}");
        assert!(r.contains("4 | dcl_lds_id(1) 32"), "{r}");
        let mut far = String::from("il_cs_2_0\ndcl_lds_id(1) 16\n");
        for _ in 0..40 {
            far.push_str("mov r0, r0\n");
        }
        let at = far.len() as u32;
        far.push_str("dcl_lds_id(1) 32\nend\n");
        let d = Diagnostic::error(codes::DUPLICATE, span(at, at + 16, 43, 1), "twice")
            .with_label(span(10, 26, 2, 1), "first declared here");
        let r = d.render("k.il", &far);
        assert!(r.contains("43 | dcl_lds_id(1) 32"), "{r}");
        assert!(r.contains(" 2 | dcl_lds_id(1) 16"), "{r}");
        assert!(!r.contains("mov"), "{r}");
    }

    #[test]
    fn crlf_and_lone_cr_sources() {
        let src = "il_cs_2_0\r\nmov r0, r1\r\nbad r0\r\nend\r\n";
        let d = Diagnostic::error(
            codes::UNKNOWN_OPCODE,
            span(23, 26, 3, 1),
            "unknown opcode `bad`",
        );
        let r = d.render("k.il", src);
        assert!(r.contains("3 | bad r0\n  | ^^^\n"), "{r}");
        let src = "il_cs_2_0\rmov r0, r1\rbad r0\rend\r";
        let d = Diagnostic::error(
            codes::UNKNOWN_OPCODE,
            span(21, 24, 3, 1),
            "unknown opcode `bad`",
        );
        let r = d.render("k.il", src);
        assert!(r.contains("3 | bad r0\n  | ^^^\n"), "{r}");
    }

    #[test]
    fn out_of_range_span_does_not_panic() {
        let d = Diagnostic::warning(codes::PRACTICE, span(999, 2, 7, 3), "x");
        let r = d.render("f", "abc");
        assert_eq!(r, "warning[W0001]: x\n--> f:7:3\n");
        let d = Diagnostic::warning(codes::PRACTICE, span(1, 0, 1, 2), "y");
        assert!(d.render("f", "a\u{e9}b").contains("warning"));
        let d = Diagnostic::warning(codes::PRACTICE, span(2, 3, 1, 2), "y");
        assert!(d.render("f", "a\u{e9}b").contains("warning"));
        let d = Diagnostic::error(codes::BINARY, span(5, 6, 0, 0), "bad token at word 5");
        assert_eq!(
            d.render("k.bin", ""),
            "error[E0050]: bad token at word 5\n--> k.bin\n"
        );
        assert_eq!(d.to_string(), "error[E0050]: bad token at word 5");
    }

    #[test]
    fn json_form() {
        let src = "il_cs_2_0\nmad_ieeee r0, r1, r2, r3\n";
        let d = Diagnostic::error(
            codes::BAD_MODIFIER,
            span(13, 19, 2, 4),
            "unknown control `_ieeee`",
        )
        .with_label(span(0, 9, 1, 1), "a \"label\"")
        .with_suggestion(Some("_ieee"));
        assert_eq!(
            d.to_json("dir/k.il", src),
            "{\"code\":\"E0014\",\"severity\":\"error\",\"message\":\"unknown control `_ieeee`\",\
             \"file\":\"dir/k.il\",\"line\":2,\"col\":4,\"spans\":[\
             {\"line\":2,\"col\":4,\"end_line\":2,\"end_col\":10,\"byte_start\":13,\"byte_end\":19,\"primary\":true,\"label\":null},\
             {\"line\":1,\"col\":1,\"end_line\":1,\"end_col\":10,\"byte_start\":0,\"byte_end\":9,\"primary\":false,\"label\":\"a \\\"label\\\"\"}],\
             \"notes\":[],\"help\":[\"did you mean `_ieee`?\"]}"
        );
    }

    #[test]
    fn summary_lines() {
        let e = Diagnostic::error(codes::END, Span::NONE, "e");
        let w = Diagnostic::warning(codes::PRACTICE, Span::NONE, "w");
        assert_eq!(summary(&[]), None);
        assert_eq!(
            summary(std::slice::from_ref(&w)).as_deref(),
            Some("warning: 1 warning emitted")
        );
        assert_eq!(
            summary(std::slice::from_ref(&e)).as_deref(),
            Some("error: aborting due to 1 previous error")
        );
        assert_eq!(
            summary(&[e.clone(), e.clone(), w.clone(), w]).as_deref(),
            Some("error: aborting due to 2 previous errors; 2 warnings emitted")
        );
        assert!(summary_styled(&[e]).is_some_and(|s| s.contains("aborting")));
    }

    #[test]
    fn suggestions() {
        let c = ["mad", "mad_ieee", "mov", "iadd"];
        assert_eq!(suggest("mad_ieeee", c), Some("mad_ieee"));
        assert_eq!(suggest("IADDD", c), Some("iadd"));
        assert_eq!(suggest("xyzzy", c), None);
        assert_eq!(suggest("mov", ["mov"]), None);
        // Far longer than any candidate: no comparison at all (it took seconds).
        assert_eq!(suggest(&"a_".repeat(100_000), c), None);
    }
}
