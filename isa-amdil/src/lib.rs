//! AMD IL frontend: the language of the CAL / APP SDK era, in text and binary token form.
//!
//! Pipeline inside this crate: text -> lexer -> parser -> [`ast`] (with source spans) ->
//! validator (diagnostics, and the declarations summary [`decls`] that the interpreter and
//! the compiler read); binary token stream <-> the same AST; and the reference
//! interpreter ([`interp`]) that defines what every compute instruction means.
//! This crate knows nothing of the IR or of any target.
#![warn(missing_docs)]

pub mod ast;
pub mod binary;
pub mod decls;
pub mod diag;
pub mod interp;
pub mod lexer;
pub mod macros;
pub mod opcodes;
pub mod parser;
pub mod print;
pub mod validate;

pub use ast::Program;
pub use binary::{decode as decode_binary, encode as encode_binary};
pub use diag::{Diagnostic, Severity};
pub use opcodes::Opcode;
pub use parser::{parse, parse_lossy, parse_lossy_limited};
pub use validate::{
    parse_and_validate, parse_and_validate_declared, parse_and_validate_limited, validate,
    validate_declared,
};
