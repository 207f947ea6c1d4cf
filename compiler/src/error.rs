//! Errors of a compilation: a list of diagnostics with source spans.
//!
//! Every failure of [`crate::Compiler::compile`] is reported as [`Diagnostics`]; the frontend's
//! [`Diagnostic`] type (code, message, span, notes) is used for all stages so a driver renders
//! them uniformly as `file:line:col: error[CODE]: message` with the source line and a caret.

use std::fmt;

pub use isa_amdil::diag::{Diagnostic, Severity};

/// The diagnostics of one compilation (errors and warnings, in the order found).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl Diagnostics {
    /// True if any diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.0.iter().any(Diagnostic::is_error)
    }

    /// Renders every diagnostic against the source text (plain text).
    pub fn render(&self, file_name: &str, source: &str) -> String {
        self.0.iter().map(|d| d.render(file_name, source)).collect()
    }

    /// [`Diagnostics::render`] with ANSI colours, for a terminal.
    pub fn render_styled(&self, file_name: &str, source: &str) -> String {
        self.0
            .iter()
            .map(|d| d.render_styled(file_name, source))
            .collect()
    }

    /// Appends diagnostics.
    pub fn extend(&mut self, more: impl IntoIterator<Item = Diagnostic>) {
        self.0.extend(more);
    }

    /// A single error without a source location (limits, internal stages).
    pub fn single(code: &'static str, message: impl Into<String>) -> Diagnostics {
        Diagnostics(vec![Diagnostic::error(
            code,
            isa_amdil::ast::Span::NONE,
            message,
        )])
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for d in &self.0 {
            writeln!(f, "{d}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostics {}

/// The diagnostic span of an IR source position (unknown: [`Span::NONE`]).
pub fn span_of(pos: Option<ilc_passes::ir::SourcePos>) -> isa_amdil::ast::Span {
    pos.map_or(isa_amdil::ast::Span::NONE, |p| isa_amdil::ast::Span {
        start: p.start,
        end: p.end,
        line: p.line,
        col: p.col,
    })
}

/// The IR source position of a statement's span.
pub fn pos_of(span: isa_amdil::ast::Span) -> ilc_passes::ir::SourcePos {
    ilc_passes::ir::SourcePos {
        start: span.start,
        end: span.end,
        line: span.line,
        col: span.col,
    }
}

/// The text of a panic payload (what `catch_unwind` returns), for the C interfaces that turn
/// a panic into an error code with a message.
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into())
}
