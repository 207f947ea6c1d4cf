//! Cubin (NVIDIA CUDA ELF) writing and reading for sm_50/52/53.
//!
//! A cubin is an ELF64 little-endian file (`e_machine` = `EM_CUDA` 190, OS/ABI 0x33, ABI version
//! 7, `ET_EXEC`) in which every kernel `K` owns a few sections:
//!
//! | section | contents |
//! |---------|----------|
//! | `.text.K` | code: 64-bit words, one control word before every three instructions; `sh_info` = register count << 24 \| symbol index, `sh_flags` carries the barrier count in bits 20..27 |
//! | `.nv.info.K` | attribute records (`EIATTR_*`, see [`nvinfo`]): parameters, exits, required block size |
//! | `.nv.constant0.K` | constant bank 0: driver area (0x140 bytes) followed by the kernel parameters |
//! | `.nv.constantN.K` | other per-kernel constant banks (ptxas puts literal pools in bank 2) |
//! | `.nv.shared.K` | `NOBITS`: the static shared memory size |
//! | `.ilc.abi.K` | ours: the IL meaning of the parameters, opaque to this module and ignored by NVIDIA's tools |
//!
//! plus `.nv.info` (per-kernel register count and stack sizes, keyed by symbol index), the
//! module-level constant banks (`.nv.constant3` for `__constant__` data), `.nv.callgraph` and
//! `.nv.rel.action`. The layout was learned by dumping ptxas 12.9 output with `readelf`,
//! `cuobjdump -elf` and hexdump; `tests/cuda/cubins/` holds such files.
//!
//! [`write_cubin`]/[`CubinWriter`] produce a cubin from [`Kernel`] descriptions (code already
//! encoded, control words included); [`read_cubin`] parses any sm_50..53 cubin, ptxas's or ours,
//! back into the same types and never panics on malformed input. Reading a ptxas cubin and
//! writing it again gives a file that NVIDIA's `cuobjdump` and `nvdisasm` describe identically
//! (tested in `isa-spa5/tests/cubin_*.rs`). Not modelled: device functions in their own
//! `.text.F` sections (calls between functions), textures and surfaces.
//!
//! A backend fills a [`Kernel`], lets [`scan_instr_offsets`] find the `EXIT` and
//! `S2R SR_CTAID` instructions NVIDIA's tables list, records the IL meaning of the parameters
//! with [`IlcAbi`], and writes:
//!
//! ```
//! use isa_spa5::cubin::{self, AbiParam, IlcAbi, Kernel, Param, ParamRole, Sm};
//!
//! // One bundle: control word, EXIT, two NOPs (already encoded).
//! let code = vec![0x001f_8000_fc00_07e0, 0xe300_0000_0007_000f, 0x50b0_0000_0007_0f00, 0x50b0_0000_0007_0f00];
//! let (exit_offsets, s2rctaid_offsets) = cubin::scan_instr_offsets(&code);
//! let abi = IlcAbi {
//!     params: vec![
//!         AbiParam { offset: 0, size: 8, role: ParamRole::UavAddress(0) },
//!         AbiParam { offset: 8, size: 4, role: ParamRole::UavSize(0) },
//!     ],
//! };
//! let kernel = Kernel {
//!     name: "main".into(),
//!     code,
//!     num_regs: 8,
//!     params: vec![Param::new(0, 8), Param::new(8, 4)],
//!     shared_size: 1024,
//!     block_size: Some([64, 1, 1]),
//!     exit_offsets,
//!     s2rctaid_offsets,
//!     ilc_abi: Some(abi.encode()),
//!     ..Kernel::default()
//! };
//! let bytes = cubin::write_cubin(Sm::Sm50, [&kernel])?;
//!
//! let back = cubin::read_cubin(&bytes)?;
//! let k = back.kernel("main").expect("written above");
//! assert_eq!((k.num_regs, k.shared_size, k.block_size), (8, 1024, Some([64, 1, 1])));
//! assert_eq!(k.exit_offsets, [8]);
//! assert_eq!(IlcAbi::decode(k.ilc_abi.as_deref().unwrap_or_default())?, abi);
//! # Ok::<(), cubin::CubinError>(())
//! ```

pub mod abi;
mod layout;
pub mod nvinfo;
mod read;
mod write;

pub use abi::{AbiParam, IlcAbi, ParamRole};
pub use read::read_cubin;
pub use write::{write_cubin, CubinWriter};

/// The offset of the kernel parameters inside constant bank 0 on sm_50..53.
pub const PARAM_BASE: u32 = 0x140;

/// The CUDA toolkit version ptxas 12.9 writes into `e_version` and `EIATTR_CUDA_API_VERSION`
/// (12.9 as 129); the writer's default.
pub const DEFAULT_TOOLKIT_VERSION: u32 = 129;

/// A Maxwell target.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Sm {
    /// sm_50 (GM107/GM108).
    Sm50,
    /// sm_52 (GM20x).
    Sm52,
    /// sm_53 (Tegra X1).
    Sm53,
}

impl Sm {
    /// The architecture number as in `sm_NN` (50, 52, 53).
    pub fn number(self) -> u32 {
        match self {
            Sm::Sm50 => 50,
            Sm::Sm52 => 52,
            Sm::Sm53 => 53,
        }
    }

    /// The target for an `sm_NN` number, if it is a Maxwell one.
    pub fn from_number(n: u32) -> Option<Sm> {
        match n {
            50 => Some(Sm::Sm50),
            52 => Some(Sm::Sm52),
            53 => Some(Sm::Sm53),
            _ => None,
        }
    }
}

impl TryFrom<u32> for Sm {
    type Error = CubinError;

    fn try_from(n: u32) -> Result<Sm, CubinError> {
        Sm::from_number(n).ok_or(CubinError::UnsupportedArch(n))
    }
}

impl std::str::FromStr for Sm {
    type Err = CubinError;

    /// Parses `sm_50`, `sm_52`, `sm_53` (or the bare numbers).
    fn from_str(s: &str) -> Result<Sm, CubinError> {
        let digits = s.strip_prefix("sm_").unwrap_or(s);
        let n: u32 = digits
            .parse()
            .map_err(|_| CubinError::NotCubin(format!("`{s}` is not an sm_NN target")))?;
        Sm::try_from(n)
    }
}

impl std::fmt::Display for Sm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "sm_{}", self.number())
    }
}

/// One kernel parameter, as `EIATTR_KPARAM_INFO` describes it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Param {
    /// Byte offset from the start of the parameter area (`c[0x0][0x140]`).
    pub offset: u32,
    /// Size in bytes (at most 0x3fff).
    pub size: u32,
    /// "Pointee's logAlignment" field of `KPARAM_INFO` (0 for ptxas's ordinary parameters).
    pub log_align: u8,
}

impl Param {
    /// A parameter at `offset` of `size` bytes.
    pub fn new(offset: u32, size: u32) -> Param {
        Param {
            offset,
            size,
            log_align: 0,
        }
    }
}

/// The initial contents of one constant bank section.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ConstBank {
    /// Bank number (`c[bank][...]`), 0..=17.
    pub bank: u8,
    /// Initial bytes, starting at offset 0 of the bank.
    pub data: Vec<u8>,
}

/// The value of one `.nv.info` record; the variant is its `EIFMT_*` format.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum InfoValue {
    /// `EIFMT_NVAL`: no value (the 16-bit slot is kept as found, normally 0).
    NoValue(u16),
    /// `EIFMT_BVAL`: a small value stored in the 16-bit slot.
    Byte(u16),
    /// `EIFMT_HVAL`: a 16-bit value.
    Half(u16),
    /// `EIFMT_SVAL`: a sized payload (the slot holds its length).
    Sized(Vec<u8>),
}

/// One `.nv.info` record: an `EIATTR_*` attribute code (see [`nvinfo`]) and its value.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct InfoAttr {
    /// The `EIATTR_*` code.
    pub attr: u8,
    /// Format and value.
    pub value: InfoValue,
}

/// Everything the cubin says about one kernel.
///
/// The writer derives from these fields every NVIDIA table (`.nv.info` records, section flags,
/// symbol attributes); the reader fills them from a cubin.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Kernel {
    /// Symbol name (the `extern "C"` name, or a mangled one).
    pub name: String,
    /// The code, already encoded: a control word before every three instructions, so the length
    /// is a multiple of 4 words (32 bytes).
    pub code: Vec<u64>,
    /// Registers per thread (`EIATTR_REGCOUNT` and `.text` `sh_info`), at most 255.
    pub num_regs: u32,
    /// Named barriers used (`BAR.SYNC` ids), kept in the `.text` section flags; at most 16.
    pub num_barriers: u32,
    /// Parameters in declaration (ordinal) order.
    pub params: Vec<Param>,
    /// Static shared memory in bytes (`.nv.shared.K` size).
    pub shared_size: u32,
    /// Alignment of the shared memory section (ptxas uses 4, or the largest element alignment;
    /// values below 4 are written as 4). With `shared_size` 0: 0 writes no section, anything
    /// else an empty one, which is how ptxas marks kernels using only dynamic
    /// (`extern __shared__`) shared memory, aligned so.
    pub shared_align: u32,
    /// Local memory (stack frame) per thread in bytes (`EIATTR_FRAME_SIZE`).
    pub local_size: u32,
    /// `EIATTR_MIN_STACK_SIZE`; `None` writes `local_size`.
    pub min_stack_size: Option<u32>,
    /// `EIATTR_MAX_STACK_SIZE`, written only when set.
    pub max_stack_size: Option<u32>,
    /// `EIATTR_CRS_STACK_SIZE` (call/return/sync stack bytes), written only when set.
    pub crs_stack_size: Option<u32>,
    /// Required block size (`EIATTR_REQNTID`), e.g. from `dcl_num_thread_per_group`.
    pub block_size: Option<[u32; 3]>,
    /// Maximum block size (`EIATTR_MAX_THREADS`, from `__launch_bounds__`).
    pub max_threads: Option<[u32; 3]>,
    /// `EIATTR_MAXREG_COUNT`; `None` writes 0xff (no limit), as ptxas does.
    pub max_reg_count: Option<u32>,
    /// Byte offsets in `.text.K` of the `EXIT` instructions (`EIATTR_EXIT_INSTR_OFFSETS`).
    pub exit_offsets: Vec<u32>,
    /// Byte offsets of the `S2R SR_CTAID.*` instructions (`EIATTR_S2RCTAID_INSTR_OFFSETS`).
    pub s2rctaid_offsets: Vec<u32>,
    /// Initial contents of constant bank 0. The writer makes the section
    /// `max(0x140 + parameter bytes, const0.len())` bytes long, zero-filled, and copies these bytes
    /// over its start; the reader returns the whole section.
    pub const0: Vec<u8>,
    /// Per-kernel constant banks other than 0 (`.nv.constantN.K`), such as ptxas's bank 2.
    pub const_banks: Vec<ConstBank>,
    /// Other `.nv.info.K` records, written verbatim after the ones derived from the fields above
    /// (the reader puts here every record it does not model, e.g. `INDIRECT_BRANCH_TARGETS`).
    pub extra_info: Vec<InfoAttr>,
    /// Contents of our `.ilc.abi.K` section (the IL meaning of each parameter), if any; normally
    /// [`IlcAbi::encode`] output, but any bytes are written and read back verbatim.
    pub ilc_abi: Option<Vec<u8>>,
    /// Named subroutines inside this kernel's code (ptxas's `$__internal_N_$...` helpers for
    /// division, square root, ...): weak `FUNC` symbols pointing into `.text.K`.
    pub subroutines: Vec<Subroutine>,
}

/// A subroutine symbol inside a kernel's code.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Subroutine {
    /// Symbol name.
    pub name: String,
    /// Byte offset of its first instruction in `.text.K`.
    pub offset: u64,
    /// Size in bytes.
    pub size: u64,
    /// Its `EIATTR_FRAME_SIZE` record, if it has one.
    pub frame_size: Option<u32>,
    /// Bound `STB_LOCAL` (ptxas's internal-linkage functions) rather than `STB_WEAK`.
    pub local: bool,
}

impl Kernel {
    /// Bytes of parameter space: the end of the last parameter (`EIATTR_CBANK_PARAM_SIZE`).
    pub fn param_size(&self) -> u32 {
        self.params
            .iter()
            .map(|p| p.offset.saturating_add(p.size))
            .max()
            .unwrap_or(0)
    }
}

/// A named object in a module-level data section (`__constant__` or `__device__` variables).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DataSymbol {
    /// Symbol name.
    pub name: String,
    /// Name of the section holding it (e.g. `.nv.constant3`, `.nv.global.init`).
    pub section: String,
    /// Offset inside that section.
    pub offset: u64,
    /// Size in bytes.
    pub size: u64,
}

/// A relocation: patch the address of `symbol` into `section` at `offset`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Relocation {
    /// The section patched (e.g. `.nv.constant4` or `.text.K`).
    pub section: String,
    /// Byte offset of the patched field in that section.
    pub offset: u64,
    /// Name of the symbol whose address is patched in.
    pub symbol: String,
    /// `R_CUDA_*` relocation type.
    pub r_type: u32,
    /// Addend (0 for `SHT_REL` sections).
    pub addend: i64,
}

/// Module-level data: not owned by one kernel.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GlobalData {
    /// Module-level constant banks (`.nv.constantN` without a kernel suffix).
    pub const_banks: Vec<ConstBank>,
    /// Data objects in module-level sections.
    pub symbols: Vec<DataSymbol>,
    /// Initialised global memory (`.nv.global.init`).
    pub global_init: Vec<u8>,
    /// Zero-initialised global memory (`.nv.global`, `NOBITS`) in bytes.
    pub global_size: u64,
    /// Relocations against data symbols (ptxas uses them to put the addresses of `__device__`
    /// variables into a constant bank).
    pub relocations: Vec<Relocation>,
    /// Alignment of module-level sections by name, as read (the writer uses 4, or 8 for constant
    /// banks that are relocation targets, for sections not listed).
    pub section_align: Vec<(String, u64)>,
}

/// A whole cubin.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cubin {
    /// The real architecture (`e_flags` bits 0..8).
    pub arch: Sm,
    /// The virtual architecture the code came from (`e_flags` bits 16..24; 50 for ptxas from
    /// `compute_50` PTX).
    pub virtual_arch: u32,
    /// Toolkit version from `e_version` (129 for CUDA 12.9).
    pub toolkit_version: u32,
    /// Kernels, in `.text` section order.
    pub kernels: Vec<Kernel>,
    /// Module-level data.
    pub globals: GlobalData,
}

impl Cubin {
    /// The kernel called `name`.
    pub fn kernel(&self, name: &str) -> Option<&Kernel> {
        self.kernels.iter().find(|k| k.name == name)
    }

    /// Writes `data` into the module-level data symbol `name` (a `__constant__` or
    /// `__device__` variable), as `cudaMemcpyToSymbol` does before a launch: constant-bank
    /// symbols (`.nv.constantN`) are written into their bank; `.nv.global.init` symbols into
    /// the initialised data; a `.nv.global` (zero-initialised) symbol moves to the end of the
    /// initialised data with its contents, and the relocations that take its address follow
    /// it. `data` may be shorter than the symbol (the rest keeps its value), never longer.
    pub fn write_symbol(&mut self, name: &str, data: &[u8]) -> Result<(), String> {
        let g = &mut self.globals;
        let Some(sym) = g.symbols.iter_mut().find(|s| s.name == name) else {
            let known: Vec<&str> = g.symbols.iter().map(|s| s.name.as_str()).collect();
            return Err(format!(
                "no data symbol `{name}` in the cubin (it has: {})",
                if known.is_empty() {
                    "none".to_string()
                } else {
                    known.join(", ")
                }
            ));
        };
        if data.len() as u64 > sym.size {
            return Err(format!(
                "{} bytes do not fit symbol `{name}` of {} bytes",
                data.len(),
                sym.size
            ));
        }
        let too_far = || format!("symbol `{name}` lies outside its section");
        let start = usize::try_from(sym.offset).map_err(|_| too_far())?;
        let end = start.checked_add(data.len()).ok_or_else(too_far)?;
        let write = |bytes: &mut Vec<u8>| {
            if bytes.len() < end {
                bytes.resize(end, 0);
            }
            bytes[start..end].copy_from_slice(data);
        };
        if let Some(bank) = sym
            .section
            .strip_prefix(".nv.constant")
            .and_then(|n| n.parse::<u8>().ok())
        {
            if end > crate::emu::BANK_SIZE {
                return Err(too_far());
            }
            match g.const_banks.iter_mut().find(|b| b.bank == bank) {
                Some(b) => write(&mut b.data),
                None => {
                    let mut b = ConstBank {
                        bank,
                        data: Vec::new(),
                    };
                    write(&mut b.data);
                    g.const_banks.push(b);
                }
            }
            return Ok(());
        }
        match sym.section.as_str() {
            ".nv.global.init" => {
                if end > g.global_init.len() {
                    return Err(too_far());
                }
                write(&mut g.global_init);
                Ok(())
            }
            ".nv.global" => {
                let size = usize::try_from(sym.size).map_err(|_| too_far())?;
                let at = g.global_init.len().next_multiple_of(16);
                g.global_init.resize(at + size, 0);
                g.global_init[at..at + data.len()].copy_from_slice(data);
                sym.section = ".nv.global.init".to_string();
                sym.offset = at as u64;
                Ok(())
            }
            other => Err(format!(
                "symbol `{name}` is in section {other}, which cannot be written before a launch"
            )),
        }
    }
}

/// Errors from reading or writing a cubin.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CubinError {
    /// The ELF container is malformed (truncated, offsets out of range, ...).
    #[error("malformed ELF: {0}")]
    Elf(String),
    /// A well-formed ELF that is not a CUDA cubin.
    #[error("not a cubin: {0}")]
    NotCubin(String),
    /// A cubin for an architecture other than sm_50/52/53.
    #[error("unsupported architecture sm_{0} (only sm_50, sm_52, sm_53)")]
    UnsupportedArch(u32),
    /// A CUDA-specific table is malformed.
    #[error("malformed {section}: {message}")]
    Malformed {
        /// Section name.
        section: String,
        /// What is wrong.
        message: String,
    },
    /// A kernel description the writer cannot express.
    #[error("kernel `{kernel}`: {message}")]
    InvalidKernel {
        /// Kernel name.
        kernel: String,
        /// What is wrong.
        message: String,
    },
    /// A feature the writer does not support.
    #[error("unsupported: {0}")]
    Unsupported(String),
}

impl CubinError {
    pub(crate) fn malformed(section: &str, message: impl Into<String>) -> CubinError {
        CubinError::Malformed {
            section: section.to_string(),
            message: message.into(),
        }
    }
}

/// Byte offsets, in `code`, of the `EXIT` instructions and of the `S2R Rd, SR_CTAID.{X,Y,Z}`
/// instructions: what `EIATTR_EXIT_INSTR_OFFSETS` and `EIATTR_S2RCTAID_INSTR_OFFSETS` list.
///
/// `code` is laid out as in [`Kernel::code`] (a control word before every three instructions);
/// control words are skipped. Matches on the fixed opcode bits only (`EXIT`: bits 52..64 =
/// 0xe30; `S2R`: bits 48..64 = 0xf0c8 with the special-register field, bits 20..28, 0x25..=0x27),
/// so predicated forms count too, as ptxas counts them.
pub fn scan_instr_offsets(code: &[u64]) -> (Vec<u32>, Vec<u32>) {
    let mut exits = Vec::new();
    let mut ctaid = Vec::new();
    for (i, &word) in code.iter().enumerate() {
        if i % 4 == 0 {
            continue;
        }
        let offset = (i * 8) as u32;
        if word >> 52 == 0xe30 {
            exits.push(offset);
        } else if word >> 48 == 0xf0c8 && (0x25..=0x27).contains(&((word >> 20) & 0xff)) {
            ctaid.push(offset);
        }
    }
    (exits, ctaid)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sm_numbers_and_names() {
        for sm in [Sm::Sm50, Sm::Sm52, Sm::Sm53] {
            assert_eq!(Sm::try_from(sm.number()), Ok(sm));
            assert_eq!(sm.to_string().parse::<Sm>(), Ok(sm));
        }
        assert_eq!("52".parse::<Sm>(), Ok(Sm::Sm52));
        assert_eq!(Sm::try_from(61), Err(CubinError::UnsupportedArch(61)));
        assert!("sm_5x".parse::<Sm>().is_err());
    }

    #[test]
    fn scan_finds_exit_and_ctaid_but_not_in_control_words() {
        let exit = 0xe300_0000_0007_000f_u64;
        let s2r_ctaid_y = 0xf0c8_0000_0267_0000_u64;
        let s2r_tid_x = 0xf0c8_0000_0217_0002_u64;
        // Slot 0 is a control word even if its bits look like EXIT.
        let code = [exit, s2r_ctaid_y, s2r_tid_x, exit, 0, 0, 0, 0];
        assert_eq!(scan_instr_offsets(&code), (vec![0x18], vec![0x08]));
    }

    #[test]
    fn param_size_is_end_of_last_parameter() {
        let mut k = Kernel::default();
        assert_eq!(k.param_size(), 0);
        k.params = vec![Param::new(8, 4), Param::new(0, 8)];
        assert_eq!(k.param_size(), 12);
    }
}
