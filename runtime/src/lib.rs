//! ilc-calrt: a CAL runtime with ilc as its JIT.
//!
//! CAL programs (written against `cal.h`, `calcl.h` and `cal_ext.h` of the ATI Stream SDK)
//! link against this library (`libaticalrt`, which also exports the compiler API of
//! `libaticalcl`) instead of AMD's driver and run unmodified: `calclCompile` compiles their
//! AMD IL with ilc to an sm_50 cubin, and the runtime binds their resources through ilc's
//! launch ABI and runs the kernel on a [`device::Device`]: the SPA 5.0 emulator (always
//! present) or, with `ILC_CAL_DEVICE=cuda`, the CUDA driver loaded at run time.
//!
//! Layers, each in its own module:
//! - [`ffi`]: the C ABI. Every exported function checks its pointers, runs the Rust
//!   implementation under `catch_unwind` (no panic crosses the ABI) and turns errors into
//!   `CAL_RESULT_*` codes plus the text `calGetErrorString` / `calclGetErrorString` return.
//! - [`compiler`]: `calcl*`: objects and images (a linked image *is* the cubin), the JIT cache.
//! - [`runtime`]: `cal*`: handle tables for devices, resources, contexts, memory handles,
//!   modules, names and events; all state behind one lock.
//! - [`launch`]: how CAL bindings become ilc's launch layout (the one place that documents
//!   the mapping; see also `README.md`).
//! - [`format`]: the CAL element formats: sizes, texel formats, pixel-output conversion.
//! - [`device`]: the device trait and its two implementations.
//!
//! Thread safety: every call takes the runtime's one lock, so any call may come from any
//! thread (CAL itself only promises that different contexts may be used from different
//! threads); runs are synchronous, so an event is complete when its call returns.

pub mod compiler;
pub mod device;
pub mod error;
pub mod ffi;
pub mod format;
pub mod launch;
pub mod runtime;
pub mod types;

pub use error::CalError;
