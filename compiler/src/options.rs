//! Compiler options: target architecture, optimization level, limits and debugging aids.
//!
//! Options are plain data: a [`crate::Compiler`] is built from them once and may be shared
//! between threads; nothing here is global state.

use std::fmt;
use std::str::FromStr;

/// Target architecture (SPA 5.0 family).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Arch {
    /// Maxwell GM107/GM108 (`sm_50`).
    #[default]
    Sm50,
    /// Maxwell GM20x (`sm_52`).
    Sm52,
    /// Maxwell Tegra X1 (`sm_53`).
    Sm53,
}

impl Arch {
    /// The SM version number (50, 52, 53).
    pub fn sm(self) -> u32 {
        match self {
            Arch::Sm50 => 50,
            Arch::Sm52 => 52,
            Arch::Sm53 => 53,
        }
    }
}

impl fmt::Display for Arch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "sm_{}", self.sm())
    }
}

impl FromStr for Arch {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.to_ascii_lowercase().as_str() {
            "sm_50" | "sm50" | "50" => Ok(Arch::Sm50),
            "sm_52" | "sm52" | "52" => Ok(Arch::Sm52),
            "sm_53" | "sm53" | "53" => Ok(Arch::Sm53),
            _ => Err(format!(
                "unknown architecture `{s}` (expected sm_50, sm_52 or sm_53)"
            )),
        }
    }
}

/// Optimization level, as `-O0` .. `-O3`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum OptLevel {
    /// No optimization beyond what code generation needs.
    O0,
    /// Cheap clean-ups (folding, DCE, CFG simplification).
    O1,
    /// The default: adds GVN, LICM, loop unrolling, reassociation and the address and
    /// strength optimizations.
    #[default]
    O2,
    /// Today the same pipeline as `-O2` (accepted for ptxas-style command lines).
    O3,
}

impl FromStr for OptLevel {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.trim_start_matches("-O").trim_start_matches('O') {
            "0" => Ok(OptLevel::O0),
            "1" => Ok(OptLevel::O1),
            "2" => Ok(OptLevel::O2),
            "3" => Ok(OptLevel::O3),
            _ => Err(format!("unknown optimization level `{s}` (expected 0..3)")),
        }
    }
}

/// Hard limits that protect an embedding process from hostile or runaway input.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Limits {
    /// Largest accepted source, in bytes.
    pub max_source_bytes: usize,
    /// Largest accepted number of IL instructions, counted after macro expansion and after
    /// inlining every `call` (estimated from the call graph before any code is generated).
    pub max_instructions: usize,
    /// Most IR instructions the kernel may grow to at any stage (lowering, the passes,
    /// instruction selection and legalization): the bound on the compile's memory.
    pub max_ir_instructions: usize,
    /// Deepest accepted control-flow nesting.
    pub max_nesting: usize,
    /// Longest compile in milliseconds (0: no limit), checked inside every pass (every 1024
    /// instructions visited or created), so a compile stops soon after the limit.
    pub max_compile_ms: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_source_bytes: 64 << 20,
            max_instructions: 1_000_000,
            max_ir_instructions: 4_000_000,
            max_nesting: 1024,
            max_compile_ms: 0,
        }
    }
}

/// Everything that decides what [`crate::Compiler::compile`] produces.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Options {
    /// Target architecture.
    pub arch: Arch,
    /// Optimization level.
    pub opt_level: OptLevel,
    /// Limits on the input.
    pub limits: Limits,
    /// Passes and stages after which to capture the IR text (`"all"` for every one; names
    /// from [`crate::pipeline::PASSES`] and [`crate::pipeline::STAGES`]).
    pub dump_after: Vec<String>,
    /// Passes and backend stages before which to capture the IR text (`"all"` for every one).
    pub dump_before: Vec<String>,
    /// Capture the IR after lowering and after every optimization pass that changed it (and
    /// note the passes that did not), like LLVM's `-print-changed`.
    pub print_changed: bool,
    /// Optimization passes not to run (names from [`crate::pipeline::PASSES`]), or backend
    /// stages not to run ([`crate::pipeline::SKIPPABLE_STAGES`]).
    pub disabled_passes: Vec<String>,
    /// Run only the first N optimization pass executions, the skippable backend stages
    /// counting last (LLVM's `-opt-bisect-limit`), to find the pass that breaks a kernel by
    /// bisection; see [`crate::pipeline::plan`].
    pub opt_bisect_limit: Option<u32>,
    /// Record the time spent in every pass.
    pub time_passes: bool,
    /// Name of the kernel in the cubin (`None`: `main`); a C identifier
    /// ([`is_valid_kernel_name`]).
    pub kernel_name: Option<String>,
    /// Skip the IL out-of-range checks on UAV accesses: the driver guarantees every access
    /// is in bounds (as CUDA code assumes). Buffers are at most
    /// [`MAX_BUFFER_BYTES`](crate::spa5::abi::MAX_BUFFER_BYTES) in either mode.
    pub assume_in_bounds: bool,
    /// The launch grid is 1-D (group ids `.y`/`.z` are 0): flattened ids fold to a
    /// multiply-add. Recorded in the launch layout (`.ilc.abi`: `launch 1d`); a launch that
    /// breaks it needs a compile without it (spa5-run refuses such a launch).
    pub launch_1d: bool,
    /// Debug mode: every instruction waits on every scoreboard with the longest stall.
    pub serial: bool,
    /// Keep every constant in the code (immediates and `MOV32I`) instead of a literal pool in
    /// constant bank 2 (`.nv.constant2.K` in the cubin, [`crate::CompiledKernel::const_bank2`]):
    /// for callers that load the raw code words without the cubin.
    pub no_literal_pool: bool,
    /// Most GPRs per thread the register allocator may use, 1..=[`MAX_REGS`] (`None`: the
    /// hardware's 254, or fewer when the declared group would not fit the register file);
    /// small values force spilling.
    pub max_regs: Option<u32>,
    /// Texture storage formats and sampler states the code assumes (CAL binds them at
    /// launch; the IL does not say). Reported in the launch layout.
    pub textures: crate::lower::TexConfig,
}

/// Largest [`Options::max_regs`]: the general registers an SM50 thread can address (R0..R253;
/// R255 is RZ, R254 is reserved).
pub const MAX_REGS: u32 = 254;

/// An option value the compiler refuses (instead of silently changing it).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct OptionsError {
    /// Stable diagnostic code: `O0001` unknown pass name, `O0003` invalid kernel name,
    /// `O0004` register limit out of range.
    pub code: &'static str,
    /// What is wrong and what is accepted.
    pub message: String,
}

/// Whether `name` can be the kernel's symbol: a C identifier (`[A-Za-z_][A-Za-z0-9_]*`), what
/// CUDA's `cuModuleGetFunction` and every ELF tool take without quoting.
pub fn is_valid_kernel_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

impl Options {
    /// Checks every option value: pass and stage names, the kernel name and the register
    /// limit. [`crate::Compiler::compile`] refuses options that fail (nothing is silently
    /// adjusted); a driver calls this first to report a usage error.
    pub fn validate(&self) -> Result<(), OptionsError> {
        crate::pipeline::check_pass_names(self).map_err(|message| OptionsError {
            code: "O0001",
            message,
        })?;
        if let Some(name) = &self.kernel_name {
            if !is_valid_kernel_name(name) {
                return Err(OptionsError {
                    code: "O0003",
                    message: format!(
                        "invalid kernel name `{name}`: a kernel name is a C identifier \
                         (letters, digits and `_`, not starting with a digit)"
                    ),
                });
            }
        }
        if let Some(n) = self.max_regs {
            if !(1..=MAX_REGS).contains(&n) {
                return Err(OptionsError {
                    code: "O0004",
                    message: format!(
                        "register limit {n} out of range: a thread has 1 to {MAX_REGS} registers"
                    ),
                });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validate_refuses_what_it_would_otherwise_change() {
        assert!(Options::default().validate().is_ok());
        for name in ["main", "_k1", "saxpy_2"] {
            assert!(is_valid_kernel_name(name), "{name}");
        }
        for name in ["", "1k", "bad name;x", "k-1", "ké"] {
            assert!(!is_valid_kernel_name(name), "{name}");
            let o = Options {
                kernel_name: Some(name.into()),
                ..Options::default()
            };
            assert_eq!(o.validate().unwrap_err().code, "O0003");
        }
        for (n, ok) in [
            (0, false),
            (1, true),
            (254, true),
            (255, false),
            (300, false),
        ] {
            let o = Options {
                max_regs: Some(n),
                ..Options::default()
            };
            assert_eq!(o.validate().is_ok(), ok, "{n}");
            if !ok {
                assert_eq!(o.validate().unwrap_err().code, "O0004");
            }
        }
        let o = Options {
            disabled_passes: vec!["frob".into()],
            ..Options::default()
        };
        assert_eq!(o.validate().unwrap_err().code, "O0001");
    }
}
