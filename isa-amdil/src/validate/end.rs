//! Statements after the first `end`. The guide allows exactly one `end`, as the last
//! statement, but AMD's compiler accepted kernels with more after it (CAL++ regression kernels
//! emit a second `end`), so the project accepts them too (DESIGN.md section 7): the validator
//! warns (W0001) at the first statement after `end`, and the validator, the interpreter and
//! the lowering all work on [`before_end`], the program cut after its first `end`.

use std::borrow::Cow;

use crate::ast::Program;
use crate::opcodes::Opcode;

/// Index of the first statement (not a comment) after the program's first `end`, if any.
pub fn after_end(p: &Program) -> Option<usize> {
    let end = p.statements.iter().position(|s| s.opcode == Opcode::End)?;
    let rest = &p.statements[end + 1..];
    rest.iter()
        .position(|s| s.opcode != Opcode::Comment)
        .map(|k| end + 1 + k)
}

/// The program without what follows its first `end` (borrowed when nothing does).
pub fn before_end(p: &Program) -> Cow<'_, Program> {
    match p.statements.iter().position(|s| s.opcode == Opcode::End) {
        Some(end) if end + 1 < p.statements.len() => {
            let mut cut = p.clone();
            cut.statements.truncate(end + 1);
            Cow::Owned(cut)
        }
        _ => Cow::Borrowed(p),
    }
}
