//! Stage 1: source bytes -> validated AMD IL AST.
//!
//! Requires nothing of the input: any bytes give either an AST or diagnostics, never a panic.
//! Guarantees: on success the program parsed without errors and satisfies the limits, with
//! its declarations summary.

use isa_amdil::ast::Program;
use isa_amdil::decls::Declarations;

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
    /// The declarations summary of `program`, built by the validator
    /// ([`isa_amdil::validate_declared`]): lowering takes it instead of collecting it again.
    pub decls: Declarations,
}

/// Runs the frontend on `source`.
pub fn run(source: &[u8], limits: &Limits) -> Result<Frontend, Diagnostics> {
    let mut front = run_without_text(source, limits)?;
    front.text = source_text(source);
    Ok(front)
}

/// The text [`Frontend::text`] holds for `source`: the source when it is IL text, empty
/// for a binary token stream.
pub fn source_text(source: &[u8]) -> String {
    if is_binary(source) {
        return String::new();
    }
    std::str::from_utf8(source).map_or_else(|_| String::new(), str::to_owned)
}

/// [`run`] with [`Frontend::text`] left empty: the compile fills it in with
/// [`source_text`] after lowering, when the AST is gone (a copy of a 24 MB source beside a
/// million-statement AST was part of the peak).
pub fn run_without_text(source: &[u8], limits: &Limits) -> Result<Frontend, Diagnostics> {
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
    if is_binary(source) {
        let words: Vec<u32> = source
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        let mut program =
            isa_amdil::decode_binary(&words).map_err(|e| Diagnostics(vec![e.to_diagnostic()]))?;
        let mut diags = isa_amdil::macros::expand(&mut program);
        let (more, decls) = isa_amdil::validate_declared(&program);
        diags.extend(more);
        let diags = Diagnostics(diags);
        if diags.has_errors() {
            return Err(diags);
        }
        check_size(&program, limits)?;
        return Ok(Frontend {
            program,
            text: String::new(),
            warnings: diags,
            decls,
        });
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
    // The parser stops at the instruction limit: rejecting a huge input costs no more than
    // the limit.
    let (program, diags) = isa_amdil::parse_and_validate_declared(text, limits.max_instructions);
    let diags = Diagnostics(diags);
    match program {
        Some((program, decls)) if !diags.has_errors() => {
            check_size(&program, limits)?;
            Ok(Frontend {
                program,
                text: String::new(),
                warnings: diags,
                decls,
            })
        }
        _ => Err(diags),
    }
}

/// A binary IL token stream starts with the IL_Lang token, whose bits 31:8 are zero (guide
/// 2.2.1); IL text never contains NUL bytes.
pub fn is_binary(bytes: &[u8]) -> bool {
    bytes.len() >= 8 && bytes.len().is_multiple_of(4) && bytes[1..4] == [0, 0, 0]
}

fn check_size(program: &Program, limits: &Limits) -> Result<(), Diagnostics> {
    crate::limits::check(program, limits)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binary_and_text_give_the_same_program() {
        let src = include_str!("../../tests/examples/saxpy.il");
        let text = run(src.as_bytes(), &Limits::default()).expect("text");
        let words = isa_amdil::encode_binary(&text.program).expect("encodes");
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        assert!(is_binary(&bytes) && !is_binary(src.as_bytes()));
        let bin = run(&bytes, &Limits::default()).expect("binary");
        assert_eq!(
            isa_amdil::binary::normalize(&bin.program).to_string(),
            isa_amdil::binary::normalize(&text.program).to_string()
        );
    }

    #[test]
    fn limits_are_errors() {
        let src = include_str!("../../tests/examples/saxpy.il");
        let tiny = Limits {
            max_source_bytes: 10,
            ..Limits::default()
        };
        let err = run(src.as_bytes(), &tiny).unwrap_err();
        assert_eq!(err.0[0].code, "L0001");
        let few = Limits {
            max_instructions: 3,
            ..Limits::default()
        };
        assert_eq!(run(src.as_bytes(), &few).unwrap_err().0[0].code, "L0002");
        let deep = format!(
            "il_cs_2_0\ndcl_num_thread_per_group 1\n{}{}end\n",
            "if_logicalnz r0.x\n".repeat(5),
            "endif\n".repeat(5)
        );
        let shallow = Limits {
            max_nesting: 4,
            ..Limits::default()
        };
        let err = run(deep.as_bytes(), &shallow).unwrap_err();
        assert_eq!(err.0[0].code, "L0003");
        assert_eq!(err.0[0].span.line, 7, "points at the statement too deep");
        assert!(run(deep.as_bytes(), &Limits::default()).is_ok());
    }

    #[test]
    fn compile_time_limit_is_an_error() {
        let big = format!(
            "il_cs_2_0\ndcl_num_thread_per_group 1\ndcl_raw_uav_id(0)\n{}\
             uav_raw_store_id(0) mem.x, r0.x, r0.y\nend\n",
            "iadd r0.y, r0.y, vAbsTidFlat.x\nimul r0.y, r0.y, r0.y\n".repeat(20_000)
        );
        let c = crate::Compiler::new(crate::Options {
            limits: Limits {
                max_compile_ms: 1,
                ..Limits::default()
            },
            ..crate::Options::default()
        });
        let err = c.compile(big.as_bytes()).unwrap_err();
        assert_eq!(err.0[0].code, "L0004", "{err}");
    }

    #[test]
    fn garbage_is_a_diagnostic() {
        for input in [
            &b"\xff\xfe\x00"[..],
            b"\x01\x00\x00\x00\x02\x00\x00\x00\xff\xff\xff\xff",
            b"il_cs_2_0\nmov r0, \n",
        ] {
            assert!(run(input, &Limits::default()).is_err(), "{input:?}");
        }
    }
}
