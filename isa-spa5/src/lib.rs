//! SPA 5.0 (NVIDIA Maxwell, sm_50/52/53) instruction set.
//!
//! Self-contained: knows nothing of the IR. Provides the instruction model, a table-driven
//! encoder/decoder, assembly text (nvdisasm syntax and the SPA syntax with scheduling hints),
//! control words, and cubin (ELF) reading and writing.
#![warn(missing_docs)]

pub mod cubin;
