//! ilc: the AMD IL to SPA 5.0 (NVIDIA Maxwell) compiler library.
//!
//! The pipeline, stage by stage (each stage is its own module or crate):
//!
//! 1. [`frontend`]: source bytes (IL text or binary tokens) -> validated AST
//!    ([`isa_amdil`]), with diagnostics.
//! 2. `lower`: AST -> SSA IR ([`ilc_passes::ir`]).
//! 3. machine-independent passes ([`ilc_passes`]), chosen by [`OptLevel`].
//! 4. the SPA 5.0 backend: instruction selection, scheduling, register allocation, control
//!    words, encoding and the cubin ([`isa_spa5`]).
//!
//! The public entry point is [`Compiler`]: built once from [`Options`], it holds no mutable
//! state, so one instance may compile from many threads at once.
#![warn(missing_docs)]

pub mod error;
pub mod frontend;
pub mod lower;
pub mod options;

pub use error::{Diagnostic, Diagnostics, Severity};
pub use options::{Arch, Limits, OptLevel, Options};

/// A compiler configured by [`Options`]. Cheap to clone; `Sync`.
#[derive(Clone, Debug, Default)]
pub struct Compiler {
    options: Options,
}

impl Compiler {
    /// A compiler with the given options.
    pub fn new(options: Options) -> Compiler {
        Compiler { options }
    }

    /// The options this compiler was built with.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// Parses and validates a kernel (IL text or binary token stream, detected), returning
    /// the AST and any warnings, or every diagnostic if the kernel is invalid.
    pub fn front(&self, source: &[u8]) -> Result<frontend::Frontend, Diagnostics> {
        frontend::run(source, &self.options.limits)
    }
}
