//! Shared code of the workspace-level tests (`tests/tests/*.rs`): the IL kernel corpus and
//! its cases.

pub mod cases;
