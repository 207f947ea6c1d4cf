//! CPU references for the CUDA corpus (`tests/cuda/`), one per kernel, grouped by area.
//! A reference receives a finished [`Run`] (inputs, outputs, scalars, launch shape) and
//! returns `Err` naming the buffer, the element index, the expected and the obtained value
//! of at most 5 mismatches.

use crate::cuda_launch::Run;

mod control;
mod float;
mod integer;
mod memory;
mod sync;

/// A kernel's reference check.
pub type Reference = fn(&Run) -> Result<(), String>;

/// Every kernel with a reference, by area.
pub fn references() -> Vec<(&'static str, Reference)> {
    [
        integer::REFS,
        control::REFS,
        memory::REFS,
        sync::REFS,
        float::REFS,
    ]
    .concat()
}

/// Corpus kernels without a CPU reference, each with the reason; they still run hazard-free
/// in the corpus-wide hazard test of tests/tests/emu_cuda.rs.
pub const NO_REFERENCE: &[(&str, &str)] = &[];
