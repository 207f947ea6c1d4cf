//! Diagnostics: errors and warnings about user input, with a code, a span and notes, rendered
//! like rustc:
//!
//! ```text
//! kernel.il:3:5: error[E0012]: unknown opcode `iaddd`
//!   |
//! 3 | iaddd r0, r1, r2
//!   | ^^^^^
//!   = note: ...
//! ```
//!
//! Guarantees: rendering never panics, whatever the span (out-of-range spans render without
//! the source excerpt). Error codes are stable strings listed in [`codes`].

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

use std::fmt;

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
    /// Extra lines rendered as `= note: ...`.
    pub notes: Vec<String>,
}

impl Diagnostic {
    /// An error.
    pub fn error(code: &'static str, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            code,
            message: message.into(),
            span,
            notes: Vec::new(),
        }
    }

    /// A warning.
    pub fn warning(code: &'static str, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            code,
            message: message.into(),
            span,
            notes: Vec::new(),
        }
    }

    /// Adds a note.
    pub fn with_note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(note.into());
        self
    }

    /// True for errors.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// Renders as `file:line:col: severity[code]: message`, the source line, a caret line
    /// under the span, and the notes. Ends with a newline.
    pub fn render(&self, file_name: &str, source: &str) -> String {
        let mut out = String::new();
        let head = if self.span.line == 0 {
            format!(
                "{file_name}: {}[{}]: {}\n",
                self.severity, self.code, self.message
            )
        } else {
            format!(
                "{file_name}:{}:{}: {}[{}]: {}\n",
                self.span.line, self.span.col, self.severity, self.code, self.message
            )
        };
        out.push_str(&head);
        if let Some((text, col0)) = source_line(source, self.span) {
            let num = self.span.line.to_string();
            let pad = " ".repeat(num.len());
            let shown: String = text
                .chars()
                .map(|c| if c == '\t' { ' ' } else { c })
                .collect();
            let line_len = text.len();
            let start = col0.min(line_len);
            let span_len = (self.span.end.saturating_sub(self.span.start)) as usize;
            let width = span_len.min(line_len.saturating_sub(start)).max(1);
            // Columns are byte based; count chars up to the start for the caret offset.
            let lead: usize = text
                .get(..start)
                .map(|s| s.chars().count())
                .unwrap_or(start);
            let carets: usize = text
                .get(start..start + width)
                .map(|s| s.chars().count().max(1))
                .unwrap_or(1);
            out.push_str(&format!(
                "{pad} |\n{num} | {shown}\n{pad} | {}{}\n",
                " ".repeat(lead),
                "^".repeat(carets)
            ));
            for n in &self.notes {
                out.push_str(&format!("{pad} = note: {n}\n"));
            }
        } else {
            for n in &self.notes {
                out.push_str(&format!("  = note: {n}\n"));
            }
        }
        out
    }
}

/// The text of the span's line (without line terminator) and the 0-based byte column.
fn source_line(source: &str, span: Span) -> Option<(&str, usize)> {
    if span.line == 0 {
        return None;
    }
    let start = span.start as usize;
    if start > source.len() || !source.is_char_boundary(start) {
        return None;
    }
    // A lone `\r` ends a line too (see `lexer::normalize_line_ends`).
    let line_start = source[..start]
        .rfind(['\n', '\r'])
        .map(|i| i + 1)
        .unwrap_or(0);
    let line_end = source[start..]
        .find(['\n', '\r'])
        .map(|i| start + i)
        .unwrap_or(source.len());
    let text = source[line_start..line_end].trim_end_matches('\r');
    Some((text, start - line_start))
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}: {}[{}]: {}",
            self.span.line, self.span.col, self.severity, self.code, self.message
        )
    }
}

/// Renders several diagnostics one after the other.
pub fn render_all(diags: &[Diagnostic], file_name: &str, source: &str) -> String {
    diags.iter().map(|d| d.render(file_name, source)).collect()
}

/// True when any diagnostic is an error.
pub fn has_errors(diags: &[Diagnostic]) -> bool {
    diags.iter().any(Diagnostic::is_error)
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

    #[test]
    fn renders_with_caret() {
        let src = "il_cs_2_0\niaddd r0, r1\nend\n";
        let span = Span {
            start: 10,
            end: 15,
            line: 2,
            col: 1,
        };
        let d = Diagnostic::error(codes::UNKNOWN_OPCODE, span, "unknown opcode `iaddd`")
            .with_note("did you mean `iadd`?");
        assert_eq!(
            d.render("k.il", src),
            "k.il:2:1: error[E0010]: unknown opcode `iaddd`\n  |\n2 | iaddd r0, r1\n  | ^^^^^\n  = note: did you mean `iadd`?\n"
        );
    }

    #[test]
    fn out_of_range_span_does_not_panic() {
        let d = Diagnostic::warning(
            codes::PRACTICE,
            Span {
                start: 999,
                end: 2,
                line: 7,
                col: 3,
            },
            "x",
        );
        let r = d.render("f", "abc");
        assert!(r.starts_with("f:7:3: warning[W0001]: x"));
        let d = Diagnostic::warning(
            codes::PRACTICE,
            Span {
                start: 1,
                end: 0,
                line: 1,
                col: 2,
            },
            "y",
        );
        assert!(d.render("f", "a\u{e9}b").contains("warning"));
    }
}
