//! Cubin writer: [`Kernel`]s (+ module constant data) -> ELF bytes, laid out as ptxas does.
//!
//! Uses `object`'s two-phase ELF writer: every section index, symbol and file range is reserved
//! first, then written in the same order. The layout follows ptxas 12.9: header; `.shstrtab`,
//! `.strtab`, `.symtab`; `.nv.info`, `.nv.info.K`...; our `.ilc.abi.K`; `.nv.callgraph`,
//! `.nv.rel.action`; module constant banks; per kernel its constant banks and `.nv.constant0.K`;
//! the `.text.K` sections; the `NOBITS` `.nv.shared.K` sections; section headers; program headers
//! (PHDR, a read/execute LOAD over the constant banks and code, a read/write LOAD for shared
//! memory when there is any, and the trailing LOAD copy of the PHDR segment that ptxas emits).
//!
//! `object` always writes `e_version` = 1; CUDA keeps the toolkit version there, so the writer
//! patches those four bytes afterwards (the only byte not produced through `object`).
//!
//! Every input is validated first; a kernel the format cannot express is a
//! [`CubinError::InvalidKernel`], module data needing relocations is [`CubinError::Unsupported`].

use object::elf;
use object::write::elf::{FileHeader, ProgramHeader, SectionHeader, SectionIndex, Sym, Writer};
use object::write::StringId;

use super::nvinfo::{self, *};
use super::{
    ConstBank, Cubin, CubinError, GlobalData, InfoAttr, InfoValue, Kernel, Sm,
    DEFAULT_TOOLKIT_VERSION, PARAM_BASE,
};

/// ELF OS/ABI byte of CUDA cubins.
const ELFOSABI_CUDA: u8 = 0x33;
/// ELF ABI version ptxas 12.9 writes.
const CUDA_ABI_VERSION: u8 = 7;
/// `e_flags`: 64-bit addresses.
const EF_CUDA_64BIT_ADDRESS: u32 = 0x400;
/// `e_flags`: unified texture mode (always set by ptxas).
const EF_CUDA_TEXMODE_UNIFIED: u32 = 0x100;
/// `.nv.info*` section type.
const SHT_CUDA_INFO: u32 = 0x7000_0000;
/// `.nv.callgraph` section type.
const SHT_CUDA_CALLGRAPH: u32 = 0x7000_0001;
/// `.nv.rel.action` section type.
const SHT_CUDA_RELOCINFO: u32 = 0x7000_000b;
/// Symbol `st_other` flag of kernel entry points.
const STO_CUDA_ENTRY: u8 = 0x10;
/// Bank numbers the hardware has (c[0x0]..c[0x11]).
const MAX_BANK: u8 = 17;
/// Largest `.nv.shared.K` alignment accepted (ptxas uses at most 16).
const MAX_SHARED_ALIGN: u32 = 256;
/// Largest parameter area sm_50 accepts.
const MAX_PARAM_BYTES: u32 = 4096;

/// `.nv.callgraph` contents: ptxas's four sentinel edges `<0,-1> .. <0,-4>` (no calls).
fn callgraph_data() -> Vec<u8> {
    let mut v = Vec::with_capacity(32);
    for k in 1..=4i32 {
        v.extend_from_slice(&0u32.to_le_bytes());
        v.extend_from_slice(&(-k).to_le_bytes());
    }
    v
}

/// `.nv.rel.action` contents, as ptxas 12.9 writes it (one relocation action descriptor).
const REL_ACTION: [u8; 16] = [
    0x73, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x11, 0x25, 0, 0x05, 0x36,
];

/// Builds a cubin; see the module documentation for the layout.
#[derive(Clone, Debug)]
pub struct CubinWriter {
    arch: Sm,
    virtual_arch: Option<u32>,
    toolkit_version: u32,
    kernels: Vec<Kernel>,
    globals: GlobalData,
}

/// Writes `kernels` as an sm_`arch` cubin with default settings.
pub fn write_cubin(arch: Sm, kernels: &[Kernel]) -> Result<Vec<u8>, CubinError> {
    let mut w = CubinWriter::new(arch);
    for k in kernels {
        w = w.kernel(k.clone());
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

    /// Sets the module-level data (constant banks and the symbols in them).
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
        let g = &self.globals;
        if !g.relocations.is_empty() {
            return Err(CubinError::Unsupported(format!(
                "{} relocation(s) (e.g. against `{}`)",
                g.relocations.len(),
                g.relocations[0].symbol
            )));
        }
        if !g.global_init.is_empty() || g.global_size != 0 {
            return Err(CubinError::Unsupported(
                "global memory data (.nv.global / .nv.global.init)".into(),
            ));
        }
        check_banks("module", &g.const_banks)?;
        for s in &g.symbols {
            let bank = g
                .const_banks
                .iter()
                .find(|b| bank_section_name(b.bank, None) == s.section)
                .ok_or_else(|| {
                    CubinError::Unsupported(format!(
                        "data symbol `{}` in section `{}` (only module constant banks are written)",
                        s.name, s.section
                    ))
                })?;
            if s.offset.saturating_add(s.size) > bank.data.len() as u64 || s.name.is_empty() {
                return Err(CubinError::Unsupported(format!(
                    "data symbol `{}` ({} bytes at {:#x}) outside `{}`",
                    s.name, s.size, s.offset, s.section
                )));
            }
        }
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
fn bank_section_name(bank: u8, kernel: Option<&str>) -> String {
    match kernel {
        Some(k) => format!(".nv.constant{bank}.{k}"),
        None => format!(".nv.constant{bank}"),
    }
}

/// What one section will hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum What {
    Info,
    KernelInfo(usize),
    IlcAbi(usize),
    Callgraph,
    RelAction,
    ModuleBank(usize),
    KernelBank(usize, usize),
    Const0(usize),
    Text(usize),
    Shared(usize),
}

struct Section {
    name: String,
    what: What,
    data: Vec<u8>,
    /// File size differs from `data.len()` only for NOBITS sections.
    size: u64,
    index: SectionIndex,
    offset: u64,
}

enum SymKind {
    /// Section symbol for section number `.0` of `Plan::sections`.
    Section(usize),
    /// Data object in module bank `.0`.
    Data(usize),
    /// Kernel entry point.
    Func(usize),
    /// Subroutine `.1` of kernel `.0`.
    Sub(usize, usize),
}

struct Symbol {
    name: String,
    kind: SymKind,
}

/// Section and symbol numbering, computed before anything is written.
struct Plan {
    sections: Vec<Section>,
    symbols: Vec<Symbol>,
    /// Symbol index (1-based, as in the file) of each kernel's entry symbol.
    func_sym: Vec<u32>,
}

impl Plan {
    fn new(w: &CubinWriter) -> Result<Plan, CubinError> {
        let mut sections = Vec::new();
        let mut add = |name: String, what: What| {
            sections.push(Section {
                name,
                what,
                data: Vec::new(),
                size: 0,
                index: SectionIndex(0),
                offset: 0,
            });
        };
        add(".nv.info".into(), What::Info);
        for (k, kernel) in w.kernels.iter().enumerate() {
            add(format!(".nv.info.{}", kernel.name), What::KernelInfo(k));
        }
        for (k, kernel) in w.kernels.iter().enumerate() {
            if kernel.ilc_abi.is_some() {
                add(format!(".ilc.abi.{}", kernel.name), What::IlcAbi(k));
            }
        }
        add(".nv.callgraph".into(), What::Callgraph);
        add(".nv.rel.action".into(), What::RelAction);
        for (b, bank) in w.globals.const_banks.iter().enumerate() {
            add(bank_section_name(bank.bank, None), What::ModuleBank(b));
        }
        for (k, kernel) in w.kernels.iter().enumerate() {
            let mut order: Vec<usize> = (0..kernel.const_banks.len()).collect();
            order.sort_by_key(|&b| kernel.const_banks[b].bank);
            for b in order {
                let name = bank_section_name(kernel.const_banks[b].bank, Some(&kernel.name));
                add(name, What::KernelBank(k, b));
            }
            add(bank_section_name(0, Some(&kernel.name)), What::Const0(k));
        }
        for (k, kernel) in w.kernels.iter().enumerate() {
            add(format!(".text.{}", kernel.name), What::Text(k));
        }
        for (k, kernel) in w.kernels.iter().enumerate() {
            if kernel.shared_size > 0 {
                add(format!(".nv.shared.{}", kernel.name), What::Shared(k));
            }
        }

        // Symbols, in ptxas's order; the null symbol is index 0, so the first here is 1.
        let find = |sections: &[Section], what: What| sections.iter().position(|s| s.what == what);
        let mut symbols = Vec::new();
        let sect_sym = |symbols: &mut Vec<Symbol>, sections: &[Section], what: What| {
            if let Some(s) = find(sections, what) {
                symbols.push(Symbol {
                    name: sections[s].name.clone(),
                    kind: SymKind::Section(s),
                });
            }
        };
        for k in 0..w.kernels.len() {
            sect_sym(&mut symbols, &sections, What::Text(k));
            sect_sym(&mut symbols, &sections, What::Shared(k));
        }
        for b in 0..w.globals.const_banks.len() {
            sect_sym(&mut symbols, &sections, What::ModuleBank(b));
            let section = bank_section_name(w.globals.const_banks[b].bank, None);
            for (d, sym) in w.globals.symbols.iter().enumerate() {
                if sym.section == section {
                    symbols.push(Symbol {
                        name: sym.name.clone(),
                        kind: SymKind::Data(d),
                    });
                }
            }
        }
        for (k, kernel) in w.kernels.iter().enumerate() {
            for b in 0..kernel.const_banks.len() {
                sect_sym(&mut symbols, &sections, What::KernelBank(k, b));
            }
            for (i, sub) in kernel.subroutines.iter().enumerate() {
                symbols.push(Symbol {
                    name: sub.name.clone(),
                    kind: SymKind::Sub(k, i),
                });
            }
            sect_sym(&mut symbols, &sections, What::Const0(k));
        }
        sect_sym(&mut symbols, &sections, What::Callgraph);
        sect_sym(&mut symbols, &sections, What::RelAction);
        let mut func_sym = Vec::new();
        for (k, kernel) in w.kernels.iter().enumerate() {
            symbols.push(Symbol {
                name: kernel.name.clone(),
                kind: SymKind::Func(k),
            });
            func_sym.push(symbols.len() as u32);
        }
        let sym_index = |what: What| -> u32 {
            symbols
                .iter()
                .position(|s| matches!(s.kind, SymKind::Section(i) if sections[i].what == what))
                .map_or(0, |p| p as u32 + 1)
        };

        // Section contents.
        let mut datas = Vec::with_capacity(sections.len());
        for s in &sections {
            let data = match s.what {
                What::Info => info_data(w, &func_sym, &symbols)?,
                What::KernelInfo(k) => kernel_info_data(w, k, sym_index(What::Const0(k)), &s.name)?,
                // `validate` checked the presence of every optional part used here.
                What::IlcAbi(k) => w.kernels[k].ilc_abi.clone().unwrap_or_default(),
                What::Callgraph => callgraph_data(),
                What::RelAction => REL_ACTION.to_vec(),
                What::ModuleBank(b) => w.globals.const_banks[b].data.clone(),
                What::KernelBank(k, b) => w.kernels[k].const_banks[b].data.clone(),
                What::Const0(k) => {
                    let kernel = &w.kernels[k];
                    let len =
                        ((PARAM_BASE + kernel.param_size()) as usize).max(kernel.const0.len());
                    let mut d = vec![0u8; len];
                    d[..kernel.const0.len()].copy_from_slice(&kernel.const0);
                    d
                }
                What::Text(k) => w.kernels[k]
                    .code
                    .iter()
                    .flat_map(|word| word.to_le_bytes())
                    .collect(),
                What::Shared(_) => Vec::new(),
            };
            datas.push(data);
        }
        for (s, data) in sections.iter_mut().zip(datas) {
            s.size = match s.what {
                What::Shared(k) => u64::from(w.kernels[k].shared_size),
                _ => data.len() as u64,
            };
            s.data = data;
        }
        Ok(Plan {
            sections,
            symbols,
            func_sym,
        })
    }

    fn section_header(&self, w: &CubinWriter, s: &Section, symtab: SectionIndex) -> SectionHeader {
        let text_index = |k: usize| {
            self.sections
                .iter()
                .find(|t| t.what == What::Text(k))
                .map_or(0, |t| t.index.0)
        };
        let (sh_type, sh_flags, sh_link, sh_info, align, entsize): (u32, u64, u32, u32, u64, u64) =
            match s.what {
                What::Info => (SHT_CUDA_INFO, 0, symtab.0, 0, 4, 0),
                What::KernelInfo(k) => (
                    SHT_CUDA_INFO,
                    elf::SHF_INFO_LINK.0,
                    symtab.0,
                    text_index(k),
                    4,
                    0,
                ),
                What::IlcAbi(k) => (elf::SHT_PROGBITS.0, 0, 0, text_index(k), 4, 0),
                What::Callgraph => (SHT_CUDA_CALLGRAPH, 0, symtab.0, 0, 4, 8),
                What::RelAction => (SHT_CUDA_RELOCINFO, 0, 0, 0, 8, 8),
                What::ModuleBank(_) => (elf::SHT_PROGBITS.0, elf::SHF_ALLOC.0, 0, 0, 4, 0),
                What::KernelBank(k, _) | What::Const0(k) => (
                    elf::SHT_PROGBITS.0,
                    (elf::SHF_ALLOC.0 | elf::SHF_INFO_LINK.0),
                    0,
                    text_index(k),
                    4,
                    0,
                ),
                What::Text(k) => {
                    let kernel = &w.kernels[k];
                    (
                        elf::SHT_PROGBITS.0,
                        (elf::SHF_ALLOC.0 | elf::SHF_EXECINSTR.0)
                            | (u64::from(kernel.num_barriers) << 20),
                        symtab.0,
                        (kernel.num_regs << 24) | self.func_sym[k],
                        32,
                        0,
                    )
                }
                What::Shared(k) => (
                    elf::SHT_NOBITS.0,
                    (elf::SHF_WRITE.0 | elf::SHF_ALLOC.0 | elf::SHF_INFO_LINK.0),
                    0,
                    text_index(k),
                    u64::from(w.kernels[k].shared_align.max(4)),
                    0,
                ),
            };
        SectionHeader {
            sh_name: 0,
            sh_type: elf::SectionType(sh_type),
            sh_flags: elf::SectionFlags(sh_flags),
            sh_addr: 0,
            sh_offset: s.offset,
            sh_size: s.size,
            sh_link,
            sh_info,
            sh_addralign: align,
            sh_entsize: entsize,
        }
    }

    fn emit(mut self, w: &CubinWriter) -> Result<Vec<u8>, CubinError> {
        let elf_err = |e: object::write::Error| CubinError::Elf(e.to_string());
        let names: Vec<String> = self.sections.iter().map(|s| s.name.clone()).collect();
        let sym_names: Vec<String> = self.symbols.iter().map(|s| s.name.clone()).collect();
        let mut buf = Vec::new();
        let mut ow = Writer::new(object::Endianness::Little, true, &mut buf);

        // Phase 1: reserve.
        ow.reserve_file_header();
        ow.reserve_shstrtab_section_index();
        ow.reserve_strtab_section_index();
        let symtab = ow.reserve_symtab_section_index();
        let mut name_ids: Vec<StringId> = Vec::with_capacity(names.len());
        for (s, name) in self.sections.iter_mut().zip(&names) {
            name_ids.push(ow.add_section_name(name.as_bytes()));
            s.index = ow.reserve_section_index();
        }
        ow.reserve_null_symbol_index();
        let mut sym_ids = Vec::with_capacity(sym_names.len());
        for (sym, name) in self.symbols.iter().zip(&sym_names) {
            sym_ids.push(ow.add_string(name.as_bytes()));
            let section = match sym.kind {
                SymKind::Section(s) => self.sections[s].index,
                SymKind::Data(d) => {
                    let sect = &w.globals.symbols[d].section;
                    self.sections
                        .iter()
                        .find(|s| &s.name == sect)
                        .map_or(SectionIndex(0), |s| s.index)
                }
                SymKind::Func(k) | SymKind::Sub(k, _) => self
                    .sections
                    .iter()
                    .find(|s| s.what == What::Text(k))
                    .map_or(SectionIndex(0), |s| s.index),
            };
            ow.reserve_symbol_index(Some(section));
        }
        ow.reserve_shstrtab().map_err(elf_err)?;
        ow.reserve_strtab().map_err(elf_err)?;
        ow.reserve_symtab();
        for s in &mut self.sections {
            let align = match s.what {
                What::Text(_) => 32,
                What::RelAction => 8,
                What::Shared(k) => u64::from(w.kernels[k].shared_align.max(4)),
                _ => 4,
            };
            let file_len = if matches!(s.what, What::Shared(_)) {
                0
            } else {
                s.data.len() as u64
            };
            s.offset = ow.reserve(file_len, align);
        }
        ow.reserve_section_headers();
        let phoff = ow.reserved_len().next_multiple_of(8);
        let program_headers = self.program_headers(phoff);
        ow.reserve_program_headers(program_headers.len() as u32);

        // Phase 2: write, in the same order.
        let flags = w.arch.number()
            | EF_CUDA_TEXMODE_UNIFIED
            | EF_CUDA_64BIT_ADDRESS
            | (w.virtual_arch.unwrap_or(w.arch.number()) & 0xff) << 16;
        ow.write_file_header(&FileHeader {
            os_abi: elf::OsAbi(ELFOSABI_CUDA),
            abi_version: CUDA_ABI_VERSION,
            e_type: elf::ET_EXEC,
            e_machine: elf::EM_CUDA,
            e_entry: 0,
            e_flags: elf::FileFlags(flags),
        })
        .map_err(elf_err)?;
        ow.write_shstrtab();
        ow.write_strtab();
        ow.write_null_symbol();
        // ptxas sets the symtab's sh_info to the index of the first kernel symbol, counting its
        // weak subroutine symbols as "local"; do the same.
        let num_local = 1 + self
            .symbols
            .iter()
            .filter(|s| !matches!(s.kind, SymKind::Func(_)))
            .count() as u32;
        for (sym, id) in self.symbols.iter().zip(&sym_ids) {
            let (info, other, section, value, size) = match sym.kind {
                SymKind::Section(s) => (
                    elf::STB_LOCAL | elf::STT_SECTION,
                    0,
                    self.sections[s].index,
                    0,
                    0,
                ),
                SymKind::Data(d) => {
                    let ds = &w.globals.symbols[d];
                    let index = self
                        .sections
                        .iter()
                        .find(|s| s.name == ds.section)
                        .map_or(SectionIndex(0), |s| s.index);
                    (
                        elf::STB_LOCAL | elf::STT_OBJECT,
                        0,
                        index,
                        ds.offset,
                        ds.size,
                    )
                }
                SymKind::Sub(k, i) => {
                    let sub = &w.kernels[k].subroutines[i];
                    let text = self
                        .sections
                        .iter()
                        .find(|s| s.what == What::Text(k))
                        .map_or(SectionIndex(0), |s| s.index);
                    (elf::STB_WEAK | elf::STT_FUNC, 0, text, sub.offset, sub.size)
                }
                SymKind::Func(k) => {
                    let text = self
                        .sections
                        .iter()
                        .find(|s| s.what == What::Text(k))
                        .map_or(SectionIndex(0), |s| s.index);
                    (
                        elf::STB_GLOBAL | elf::STT_FUNC,
                        STO_CUDA_ENTRY,
                        text,
                        0,
                        w.kernels[k].code.len() as u64 * 8,
                    )
                }
            };
            ow.write_symbol(&Sym {
                section: Some(section.0),
                st_name: ow.string_offset(Some(*id)),
                st_info: info,
                st_other: elf::SymbolOther(other),
                st_shndx: elf::SymbolSection(0),
                st_value: value,
                st_size: size,
            });
        }
        for s in &self.sections {
            let align = match s.what {
                What::Text(_) => 32,
                What::RelAction => 8,
                What::Shared(k) => u64::from(w.kernels[k].shared_align.max(4)),
                _ => 4,
            };
            ow.write_align(align);
            if !matches!(s.what, What::Shared(_)) {
                ow.write(&s.data);
            }
        }
        ow.write_null_section_header();
        ow.write_shstrtab_section_header();
        ow.write_strtab_section_header();
        ow.write_symtab_section_header(num_local);
        for (s, id) in self.sections.iter().zip(&name_ids) {
            let mut header = self.section_header(w, s, symtab);
            header.sh_name = ow.section_name_offset(Some(*id));
            ow.write_section_header(&header);
        }
        ow.write_align_program_headers();
        for ph in &program_headers {
            ow.write_program_header(ph);
        }
        drop(ow);
        // e_version (offset 0x14) holds the CUDA toolkit version; `object` writes EV_CURRENT.
        buf[0x14..0x18].copy_from_slice(&w.toolkit_version.to_le_bytes());
        Ok(buf)
    }

    /// PHDR, LOAD r-x over the loadable constant banks and code, LOAD rw- over shared memory
    /// (if any), and ptxas's trailing LOAD copy of the PHDR segment.
    fn program_headers(&self, phoff: u64) -> Vec<ProgramHeader> {
        let loadable = |s: &&Section| {
            matches!(
                s.what,
                What::ModuleBank(_) | What::KernelBank(..) | What::Const0(_) | What::Text(_)
            )
        };
        let start = self
            .sections
            .iter()
            .filter(loadable)
            .map(|s| s.offset)
            .min();
        let end = self
            .sections
            .iter()
            .filter(loadable)
            .map(|s| s.offset + s.size)
            .max();
        let shared: Vec<&Section> = self
            .sections
            .iter()
            .filter(|s| matches!(s.what, What::Shared(_)))
            .collect();
        let count = 3 + u64::from(!shared.is_empty());
        let phdr = |p_type| ProgramHeader {
            p_type,
            p_flags: elf::ProgramFlags(elf::PF_R.0 | elf::PF_X.0),
            p_offset: phoff,
            p_vaddr: 0,
            p_paddr: 0,
            p_filesz: count * 56,
            p_memsz: count * 56,
            p_align: 8,
        };
        let mut out = vec![phdr(elf::PT_PHDR)];
        if let (Some(start), Some(end)) = (start, end) {
            out.push(ProgramHeader {
                p_type: elf::PT_LOAD,
                p_flags: elf::ProgramFlags(elf::PF_R.0 | elf::PF_X.0),
                p_offset: start,
                p_vaddr: 0,
                p_paddr: 0,
                p_filesz: end - start,
                p_memsz: end - start,
                p_align: 8,
            });
        }
        if let Some(first) = shared.first() {
            let memsz: u64 = shared.iter().map(|s| s.size).sum();
            out.push(ProgramHeader {
                p_type: elf::PT_LOAD,
                p_flags: elf::ProgramFlags(elf::PF_R.0 | elf::PF_W.0),
                p_offset: first.offset,
                p_vaddr: 0,
                p_paddr: 0,
                p_filesz: 0,
                p_memsz: memsz,
                p_align: 8,
            });
        }
        out.push(phdr(elf::PT_LOAD));
        out.truncate(count as usize);
        out
    }
}

/// `.nv.info`, in ptxas's order: from the last kernel to the first, REGCOUNT, the subroutines'
/// FRAME_SIZE (last first) and the kernel's FRAME_SIZE; then, first kernel first, the stack sizes.
fn info_data(w: &CubinWriter, func_sym: &[u32], symbols: &[Symbol]) -> Result<Vec<u8>, CubinError> {
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
fn kernel_info_data(
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
