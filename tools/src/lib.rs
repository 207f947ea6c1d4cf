//! Shared helpers for the ilc command-line tools.

pub mod dispatch;

use std::fmt::Write;

use isa_amdil::ast::Program;

/// A readable AST dump: the version line, then one statement per line prefixed with its
/// `line:col` source position and the guide section of its opcode.
pub fn ast_dump(program: &Program) -> String {
    let mut out = String::new();
    if let Some(v) = &program.version {
        let _ = writeln!(out, "version {v}");
    }
    for inst in &program.statements {
        let _ = writeln!(
            out,
            "{:>5}:{:<3} [{}] {}",
            inst.span.line,
            inst.span.col,
            inst.opcode.section(),
            inst
        );
    }
    out
}
pub mod ilgen;
pub mod spa5_text;
