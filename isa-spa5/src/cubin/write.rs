//! Cubin writer API: [`CubinWriter`] / [`write_cubin`], input validation, and the `.nv.info`
//! records derived from each [`Kernel`].
//!
//! Every input is validated before anything is laid out: a kernel the format cannot express is a
//! [`CubinError::InvalidKernel`], module data that does not fit is [`CubinError::Unsupported`].
//! The file layout itself (sections, symbols, ELF emission through `object`) is in `layout.rs`.

use std::borrow::Borrow;

use super::layout::{Plan, SymKind, Symbol};
use super::nvinfo::{self, *};
use super::{
    ConstBank, Cubin, CubinError, GlobalData, InfoAttr, InfoValue, Kernel, Sm,
    DEFAULT_TOOLKIT_VERSION, PARAM_BASE,
};

/// Bank numbers the hardware has (c[0x0]..c[0x11]).
const MAX_BANK: u8 = 17;
/// Largest `.nv.shared.K` alignment accepted (ptxas uses at most 16).
const MAX_SHARED_ALIGN: u32 = 256;
/// Largest `.nv.global` accepted (4 GiB; Maxwell boards have at most 12 GiB, but one module
/// never declares anywhere near that statically).
const MAX_GLOBAL_BYTES: u64 = 1 << 32;
/// Largest parameter area sm_50 accepts.
const MAX_PARAM_BYTES: u32 = 4096;

/// Builds a cubin; see the module documentation for the layout.
#[derive(Clone, Debug)]
pub struct CubinWriter {
    pub(super) arch: Sm,
    pub(super) virtual_arch: Option<u32>,
    pub(super) toolkit_version: u32,
    pub(super) kernels: Vec<Kernel>,
    pub(super) globals: GlobalData,
}

/// Writes `kernels` (a slice, a `Vec`, an array, ...) as an sm_`arch` cubin with default
/// settings and no module data.
pub fn write_cubin<K: Borrow<Kernel>>(
    arch: Sm,
    kernels: impl IntoIterator<Item = K>,
) -> Result<Vec<u8>, CubinError> {
    let mut w = CubinWriter::new(arch);
    for k in kernels {
        w = w.kernel(k.borrow().clone());
    }
    w.write()
}

impl CubinWriter {
    /// A writer for `arch` with no kernels.
    pub fn new(arch: Sm) -> CubinWriter {
        CubinWriter {
            arch,
            virtual_arch: None,
            toolkit_version: DEFAULT_TOOLKIT_VERSION,
            kernels: Vec::new(),
            globals: GlobalData::default(),
        }
    }

    /// A writer reproducing everything `cubin` holds (as read by [`super::read_cubin`]).
    pub fn from_cubin(cubin: &Cubin) -> CubinWriter {
        CubinWriter {
            arch: cubin.arch,
            virtual_arch: Some(cubin.virtual_arch),
            toolkit_version: cubin.toolkit_version,
            kernels: cubin.kernels.clone(),
            globals: cubin.globals.clone(),
        }
    }

    /// Sets the virtual architecture recorded in `e_flags` (default: the real one).
    pub fn virtual_arch(mut self, sm: u32) -> CubinWriter {
        self.virtual_arch = Some(sm);
        self
    }

    /// Sets the toolkit version recorded in `e_version` and `CUDA_API_VERSION` (default 129).
    pub fn toolkit_version(mut self, version: u32) -> CubinWriter {
        self.toolkit_version = version;
        self
    }

    /// Adds a kernel.
    pub fn kernel(mut self, kernel: Kernel) -> CubinWriter {
        self.kernels.push(kernel);
        self
    }

    /// Sets the module-level data: constant banks, global memory, the data symbols in them and
    /// relocations against those symbols.
    pub fn globals(mut self, globals: GlobalData) -> CubinWriter {
        self.globals = globals;
        self
    }

    /// Produces the cubin bytes.
    pub fn write(&self) -> Result<Vec<u8>, CubinError> {
        self.validate()?;
        let plan = Plan::new(self)?;
        plan.emit(self)
    }

    fn validate(&self) -> Result<(), CubinError> {
        self.validate_globals()?;
        if self.kernels.is_empty() {
            return Err(CubinError::Unsupported("a cubin without kernels".into()));
        }
        for (i, k) in self.kernels.iter().enumerate() {
            let bad = |message: String| CubinError::InvalidKernel {
                kernel: k.name.clone(),
                message,
            };
            if k.name.is_empty() || k.name.contains('\0') {
                return Err(bad("empty name or NUL in the name".into()));
            }
            if self.kernels[..i].iter().any(|o| o.name == k.name) {
                return Err(bad("two kernels with this name".into()));
            }
            if k.code.is_empty() || k.code.len() % 4 != 0 {
                return Err(bad(format!(
                    "{} code words: need a non-empty multiple of 4 (control word + 3 instructions)",
                    k.code.len()
                )));
            }
            if k.num_regs > 255 {
                return Err(bad(format!("{} registers (at most 255)", k.num_regs)));
            }
            if k.num_barriers > 16 {
                return Err(bad(format!("{} barriers (at most 16)", k.num_barriers)));
            }
            for (n, p) in k.params.iter().enumerate() {
                if p.size == 0 || p.size > 0x3fff || p.offset > 0xffff {
                    return Err(bad(format!(
                        "parameter {n}: {} bytes at {:#x} cannot be described",
                        p.size, p.offset
                    )));
                }
            }
            if k.params.len() > usize::from(u16::MAX) {
                return Err(bad(format!("{} parameters", k.params.len())));
            }
            if k.param_size() > MAX_PARAM_BYTES {
                return Err(bad(format!(
                    "{} bytes of parameters (at most {MAX_PARAM_BYTES})",
                    k.param_size()
                )));
            }
            let code_bytes = k.code.len() as u64 * 8;
            for &off in k.exit_offsets.iter().chain(&k.s2rctaid_offsets) {
                if off % 8 != 0 || u64::from(off) >= code_bytes {
                    return Err(bad(format!(
                        "instruction offset {off:#x} not inside the {code_bytes:#x}-byte code"
                    )));
                }
            }
            if k.shared_align != 0
                && (!k.shared_align.is_power_of_two() || k.shared_align > MAX_SHARED_ALIGN)
            {
                return Err(bad(format!(
                    "shared alignment {} (a power of two up to {MAX_SHARED_ALIGN})",
                    k.shared_align
                )));
            }
            for sub in &k.subroutines {
                if sub.name.is_empty()
                    || sub.name.contains('\0')
                    || sub.offset.saturating_add(sub.size) > code_bytes
                {
                    return Err(bad(format!(
                        "subroutine `{}` ({} bytes at {:#x}) is not inside the code",
                        sub.name, sub.size, sub.offset
                    )));
                }
            }
            check_banks(&k.name, &k.const_banks)?;
            if let Some(abi) = &k.ilc_abi {
                if abi.len() > u32::MAX as usize {
                    return Err(bad("oversized .ilc.abi".into()));
                }
            }
        }
        Ok(())
    }
}

impl CubinWriter {
    /// Module data: banks valid, every data symbol inside a module section, every relocation
    /// naming a section this file will have and a symbol it will define.
    fn validate_globals(&self) -> Result<(), CubinError> {
        let g = &self.globals;
        check_banks("module", &g.const_banks)?;
        if g.global_size > MAX_GLOBAL_BYTES {
            return Err(CubinError::Unsupported(format!(
                "{} bytes of .nv.global (at most {MAX_GLOBAL_BYTES})",
                g.global_size
            )));
        }
        let section_size = |name: &str| -> Option<u64> {
            if name == ".nv.global.init" && !g.global_init.is_empty() {
                return Some(g.global_init.len() as u64);
            }
            if name == ".nv.global" && g.global_size > 0 {
                return Some(g.global_size);
            }
            g.const_banks
                .iter()
                .find(|b| bank_section_name(b.bank, None) == name)
                .map(|b| b.data.len() as u64)
        };
        for s in &g.symbols {
            let Some(size) = section_size(&s.section) else {
                return Err(CubinError::Unsupported(format!(
                    "data symbol `{}` in section `{}` (only module constant banks, \
                     .nv.global.init and .nv.global hold data symbols)",
                    s.name, s.section
                )));
            };
            if s.offset.saturating_add(s.size) > size || s.name.is_empty() || s.name.contains('\0')
            {
                return Err(CubinError::Unsupported(format!(
                    "data symbol `{}` ({} bytes at {:#x}) outside `{}`",
                    s.name, s.size, s.offset, s.section
                )));
            }
        }
        for (name, align) in &g.section_align {
            if !align.is_power_of_two() || *align > u64::from(MAX_SHARED_ALIGN) {
                return Err(CubinError::Unsupported(format!(
                    "alignment {align} for `{name}` (a power of two up to {MAX_SHARED_ALIGN})"
                )));
            }
        }
        for r in &g.relocations {
            let target_size = section_size(&r.section).or_else(|| {
                self.kernels.iter().find_map(|k| {
                    if r.section == format!(".text.{}", k.name) {
                        return Some(k.code.len() as u64 * 8);
                    }
                    k.const_banks
                        .iter()
                        .find(|b| r.section == bank_section_name(b.bank, Some(&k.name)))
                        .map(|b| b.data.len() as u64)
                })
            });
            let known_symbol = g.symbols.iter().any(|s| s.name == r.symbol)
                || self.kernels.iter().any(|k| k.name == r.symbol);
            match target_size {
                Some(size) if r.offset < size && known_symbol => {}
                _ => {
                    return Err(CubinError::Unsupported(format!(
                    "relocation at {:#x} of `{}` against `{}`: no such section, offset or symbol",
                    r.offset, r.section, r.symbol
                )))
                }
            }
        }
        Ok(())
    }
}

fn check_banks(owner: &str, banks: &[ConstBank]) -> Result<(), CubinError> {
    for (i, b) in banks.iter().enumerate() {
        if b.bank == 0 || b.bank > MAX_BANK {
            return Err(CubinError::Unsupported(format!(
                "{owner}: constant bank {} (banks 1..={MAX_BANK}; bank 0 is built from the parameters)",
                b.bank
            )));
        }
        if banks[..i].iter().any(|o| o.bank == b.bank) {
            return Err(CubinError::Unsupported(format!(
                "{owner}: constant bank {} given twice",
                b.bank
            )));
        }
        if b.data.len() > 0x10000 {
            return Err(CubinError::Unsupported(format!(
                "{owner}: constant bank {} of {} bytes (at most 64 KiB)",
                b.bank,
                b.data.len()
            )));
        }
    }
    Ok(())
}

/// `.nv.constantN` (module) or `.nv.constantN.K` (kernel K).
pub(super) fn bank_section_name(bank: u8, kernel: Option<&str>) -> String {
    match kernel {
        Some(k) => format!(".nv.constant{bank}.{k}"),
        None => format!(".nv.constant{bank}"),
    }
}

/// `.nv.info`, in ptxas's order: from the last kernel to the first, REGCOUNT, the subroutines'
/// FRAME_SIZE (last first) and the kernel's FRAME_SIZE; then, first kernel first, the stack sizes.
pub(super) fn info_data(
    w: &CubinWriter,
    func_sym: &[u32],
    symbols: &[Symbol],
) -> Result<Vec<u8>, CubinError> {
    let mut attrs = Vec::new();
    for (k, kernel) in w.kernels.iter().enumerate().rev() {
        attrs.push(nvinfo::words(
            EIATTR_REGCOUNT,
            &[func_sym[k], kernel.num_regs],
        ));
        for (i, sub) in kernel.subroutines.iter().enumerate().rev() {
            let Some(frame) = sub.frame_size else {
                continue;
            };
            let index = symbols
                .iter()
                .position(|s| matches!(s.kind, SymKind::Sub(sk, si) if sk == k && si == i))
                .map_or(0, |p| p as u32 + 1);
            attrs.push(nvinfo::words(EIATTR_FRAME_SIZE, &[index, frame]));
        }
        attrs.push(nvinfo::words(
            EIATTR_FRAME_SIZE,
            &[func_sym[k], kernel.local_size],
        ));
    }
    for (k, kernel) in w.kernels.iter().enumerate() {
        let min = kernel.min_stack_size.unwrap_or(kernel.local_size);
        attrs.push(nvinfo::words(EIATTR_MIN_STACK_SIZE, &[func_sym[k], min]));
        if let Some(max) = kernel.max_stack_size {
            attrs.push(nvinfo::words(EIATTR_MAX_STACK_SIZE, &[func_sym[k], max]));
        }
    }
    let mut out = Vec::new();
    nvinfo::encode(".nv.info", &attrs, &mut out)?;
    Ok(out)
}

/// `.nv.info.K`, in ptxas's record order.
pub(super) fn kernel_info_data(
    w: &CubinWriter,
    k: usize,
    const0_sym: u32,
    section: &str,
) -> Result<Vec<u8>, CubinError> {
    let kernel = &w.kernels[k];
    let psize = kernel.param_size();
    let mut attrs = vec![
        nvinfo::words(EIATTR_CUDA_API_VERSION, &[w.toolkit_version]),
        InfoAttr {
            attr: EIATTR_SW2393858_WAR,
            value: InfoValue::NoValue(0),
        },
        InfoAttr {
            attr: EIATTR_SW1850030_WAR,
            value: InfoValue::NoValue(0),
        },
        nvinfo::words(
            EIATTR_PARAM_CBANK,
            &[const0_sym, PARAM_BASE | (psize << 16)],
        ),
        InfoAttr {
            attr: EIATTR_CBANK_PARAM_SIZE,
            // `validate` bounds the parameter area by 4096 bytes.
            value: InfoValue::Half(psize as u16),
        },
    ];
    for (ordinal, p) in kernel.params.iter().enumerate().rev() {
        // `validate` bounds the parameter count by u16::MAX.
        attrs.push(nvinfo::kparam_info(ordinal as u16, p));
    }
    attrs.push(InfoAttr {
        attr: EIATTR_MAXREG_COUNT,
        value: InfoValue::Half(kernel.max_reg_count.unwrap_or(0xff).min(0xffff) as u16),
    });
    if !kernel.s2rctaid_offsets.is_empty() {
        attrs.push(nvinfo::words(
            EIATTR_S2RCTAID_INSTR_OFFSETS,
            &kernel.s2rctaid_offsets,
        ));
    }
    if !kernel.exit_offsets.is_empty() {
        attrs.push(nvinfo::words(
            EIATTR_EXIT_INSTR_OFFSETS,
            &kernel.exit_offsets,
        ));
    }
    if let Some(m) = kernel.max_threads {
        attrs.push(nvinfo::words(EIATTR_MAX_THREADS, &m));
    }
    if let Some(b) = kernel.block_size {
        attrs.push(nvinfo::words(EIATTR_REQNTID, &b));
    }
    if let Some(c) = kernel.crs_stack_size {
        attrs.push(nvinfo::words(EIATTR_CRS_STACK_SIZE, &[c]));
    }
    attrs.extend(kernel.extra_info.iter().cloned());
    // ptxas's record order (the order cuobjdump then lists them in).
    attrs.sort_by_key(|a| info_rank(a.attr));
    let mut out = Vec::new();
    nvinfo::encode(section, &attrs, &mut out)?;
    Ok(out)
}

/// Position of a `.nv.info.K` record in ptxas 12.9's order, as observed over the corpus; records
/// of unknown kinds go just before `CRS_STACK_SIZE`.
fn info_rank(attr: u8) -> u8 {
    const ORDER: [u8; 16] = [
        EIATTR_CUDA_API_VERSION,
        EIATTR_SW2393858_WAR,
        EIATTR_SW1850030_WAR,
        EIATTR_PARAM_CBANK,
        EIATTR_CBANK_PARAM_SIZE,
        EIATTR_KPARAM_INFO,
        EIATTR_MAXREG_COUNT,
        0x31, // INT_WARP_WIDE_INSTR_OFFSETS
        0x29, // COOP_GROUP_MASK_REGIDS
        0x28, // COOP_GROUP_INSTR_OFFSETS
        EIATTR_S2RCTAID_INSTR_OFFSETS,
        EIATTR_EXIT_INSTR_OFFSETS,
        EIATTR_MAX_THREADS,
        EIATTR_REQNTID,
        0x04, // CTAIDZ_USED
        EIATTR_INDIRECT_BRANCH_TARGETS,
    ];
    match ORDER.iter().position(|&a| a == attr) {
        Some(p) => p as u8,
        None if attr == EIATTR_CRS_STACK_SIZE => ORDER.len() as u8 + 1,
        None => ORDER.len() as u8,
    }
}

#[cfg(test)]
mod tests {
    use super::super::Param;
    use super::*;

    #[test]
    fn info_records_follow_ptxas_order() {
        let mut attrs = [
            EIATTR_CRS_STACK_SIZE,
            0x99,
            EIATTR_EXIT_INSTR_OFFSETS,
            EIATTR_KPARAM_INFO,
            EIATTR_CUDA_API_VERSION,
            EIATTR_S2RCTAID_INSTR_OFFSETS,
        ];
        attrs.sort_by_key(|&a| info_rank(a));
        assert_eq!(
            attrs,
            [
                EIATTR_CUDA_API_VERSION,
                EIATTR_KPARAM_INFO,
                EIATTR_S2RCTAID_INSTR_OFFSETS,
                EIATTR_EXIT_INSTR_OFFSETS,
                0x99,
                EIATTR_CRS_STACK_SIZE
            ]
        );
    }

    #[test]
    fn kernel_info_encodes_params_and_block_size() {
        let k = Kernel {
            name: "k".into(),
            code: vec![0; 4],
            params: vec![Param::new(0, 8), Param::new(8, 4)],
            block_size: Some([64, 2, 1]),
            exit_offsets: vec![8],
            ..Kernel::default()
        };
        let w = CubinWriter::new(Sm::Sm50).kernel(k);
        let bytes = kernel_info_data(&w, 0, 7, ".nv.info.k").expect("encodes");
        let attrs = nvinfo::decode("t", &bytes).expect("decodes");
        let find = |a: u8| attrs.iter().filter(move |x| x.attr == a);
        assert_eq!(find(EIATTR_KPARAM_INFO).count(), 2);
        let cbank = find(EIATTR_PARAM_CBANK).next().expect("PARAM_CBANK");
        assert_eq!(
            nvinfo::as_words(&cbank.value),
            Some(vec![7, 0x0140 | (12 << 16)])
        );
        let req = find(EIATTR_REQNTID).next().expect("REQNTID");
        assert_eq!(nvinfo::as_words(&req.value), Some(vec![64, 2, 1]));
        assert_eq!(
            find(EIATTR_CBANK_PARAM_SIZE)
                .next()
                .map(|a| a.value.clone()),
            Some(InfoValue::Half(12))
        );
    }
}
