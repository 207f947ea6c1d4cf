//! Shared code of the workspace-level tests (`tests/tests/*.rs`): the IL kernel corpus and
//! its cases.

pub mod cases;
pub mod cuda_launch;
pub mod cuda_ref;
