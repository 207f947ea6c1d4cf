//! Stage 1: source bytes -> validated AMD IL AST.
//!
//! Requires nothing of the input: any bytes give either an AST or diagnostics, never a panic.
//! Guarantees: on success the program parsed without errors and satisfies the limits.

use isa_amdil::ast::Program;

use crate::error::Diagnostics;
use crate::options::Limits;

/// The result of the frontend: the program, its source text (when it was text) and warnings.
#[derive(Clone, Debug)]
pub struct Frontend {
    /// The parsed program.
    pub program: Program,
    /// The source text, for rendering diagnostics (empty for binary input).
    pub text: String,
    /// Warnings (never errors).
    pub warnings: Diagnostics,
}

/// Runs the frontend on `source`.
pub fn run(source: &[u8], limits: &Limits) -> Result<Frontend, Diagnostics> {
    if source.len() > limits.max_source_bytes {
        return Err(Diagnostics::single(
            "L0001",
            format!(
                "source is {} bytes, more than the limit of {} bytes",
                source.len(),
                limits.max_source_bytes
            ),
        ));
    }
    let text = match std::str::from_utf8(source) {
        Ok(t) => t,
        Err(e) => {
            return Err(Diagnostics::single(
                "E0001",
                format!(
                    "input is neither UTF-8 IL text nor an IL binary token stream (invalid UTF-8 at byte {})",
                    e.valid_up_to()
                ),
            ))
        }
    };
    let (program, diags) = isa_amdil::parse(text);
    let diags = Diagnostics(diags);
    match program {
        Some(program) if !diags.has_errors() => {
            if program.statements.len() > limits.max_instructions {
                return Err(Diagnostics::single(
                    "L0002",
                    format!(
                        "kernel has {} instructions, more than the limit of {}",
                        program.statements.len(),
                        limits.max_instructions
                    ),
                ));
            }
            Ok(Frontend {
                program,
                text: text.to_owned(),
                warnings: diags,
            })
        }
        _ => Err(diags),
    }
}
