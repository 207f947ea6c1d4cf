//! Cubin layout and emission: numbers sections and symbols the way ptxas does, builds every
//! section's bytes, and drives `object`'s two-phase ELF writer.
//!
//! Requires a [`CubinWriter`] that passed validation (names unique, sizes in range, data symbols
//! and relocations pointing at sections that exist). Guarantees a file in ptxas 12.9's layout:
//! header; `.shstrtab`, `.strtab`, `.symtab`; `.nv.info`, `.nv.info.K`...; our `.ilc.abi.K`;
//! `.nv.callgraph`, `.nv.rel.action`; `.rel[a]X` relocation sections; module constant banks; per
//! kernel its other constant banks then `.nv.constant0.K`; the `.text.K`; `.nv.global.init`;
//! the `NOBITS` `.nv.global` and `.nv.shared.K`; section headers; program headers (PHDR, a
//! read/execute LOAD over constant banks and code, a read/write LOAD over global and shared
//! memory when there is any, and ptxas's trailing LOAD copy of the PHDR segment).
//!
//! Symbols: the null symbol; per kernel the `.text.K` and `.nv.shared.K` section symbols, (after
//! the first kernel's) the global-memory and module-bank section symbols each followed by its
//! data objects, the kernel's other bank section symbols, its subroutines (weak `FUNC`) and
//! `.nv.constant0.K`; then `.nv.callgraph` and `.nv.rel.action`; finally the kernels (global
//! `FUNC`, `st_other` = `STO_CUDA_ENTRY`).
//! The symtab's `sh_info` is the index of the first kernel symbol, as ptxas writes it.
//!
//! `object` always writes `e_version` = 1; CUDA keeps the toolkit version there, so the bytes are
//! patched afterwards (the only field not produced through `object`).

use object::elf;
use object::write::elf::{FileHeader, ProgramHeader, SectionHeader, SectionIndex, Sym, Writer};
use object::write::StringId;

use super::write::{bank_section_name, info_data, kernel_info_data, CubinWriter};
use super::{CubinError, PARAM_BASE};

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
/// Size of one ELF64 program header.
const PHDR_SIZE: u64 = 56;

/// `.nv.rel.action` contents, as ptxas 12.9 writes it (one relocation action descriptor).
const REL_ACTION: [u8; 16] = [
    0x73, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x11, 0x25, 0, 0x05, 0x36,
];

/// `.nv.callgraph` contents: ptxas's four sentinel edges `<0,-1> .. <0,-4>` (no calls).
fn callgraph_data() -> Vec<u8> {
    let mut v = Vec::with_capacity(32);
    for k in 1..=4i32 {
        v.extend_from_slice(&0u32.to_le_bytes());
        v.extend_from_slice(&(-k).to_le_bytes());
    }
    v
}

/// What one section holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum What {
    Info,
    KernelInfo(usize),
    IlcAbi(usize),
    Callgraph,
    RelAction,
    /// Relocations against section `Plan::rel_targets[.0]`; `.1`: with addends (`SHT_RELA`).
    Rel(usize, bool),
    ModuleBank(usize),
    KernelBank(usize, usize),
    Const0(usize),
    Text(usize),
    GlobalInit,
    Global,
    Shared(usize),
}

impl What {
    fn is_nobits(self) -> bool {
        matches!(self, What::Global | What::Shared(_))
    }
}

struct Section {
    name: String,
    what: What,
    data: Vec<u8>,
    /// Section size; differs from `data.len()` only for NOBITS sections.
    size: u64,
    align: u64,
    index: SectionIndex,
    offset: u64,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum SymKind {
    /// Section symbol for `Plan::sections[.0]`.
    Section(usize),
    /// `globals.symbols[.0]`.
    Data(usize),
    /// Kernel entry point.
    Func(usize),
    /// Subroutine `.1` of kernel `.0`.
    Sub(usize, usize),
}

pub(super) struct Symbol {
    name: String,
    pub(super) kind: SymKind,
    /// Index of the section it is defined in (into `Plan::sections`).
    section: usize,
}

/// Section and symbol numbering, computed before anything is written.
pub(super) struct Plan {
    sections: Vec<Section>,
    symbols: Vec<Symbol>,
    /// Symbol index (as in the file: the null symbol is 0) of each kernel's entry symbol.
    func_sym: Vec<u32>,
    /// Sections that have relocations, in order of first appearance.
    rel_targets: Vec<String>,
}

impl Plan {
    /// Lays out `w`. Requires `w` validated.
    pub(super) fn new(w: &CubinWriter) -> Result<Plan, CubinError> {
        let g = &w.globals;
        let mut rel_targets: Vec<String> = Vec::new();
        for r in &g.relocations {
            if !rel_targets.contains(&r.section) {
                rel_targets.push(r.section.clone());
            }
        }

        let mut sections: Vec<Section> = Vec::new();
        let mut add = |name: String, what: What| {
            sections.push(Section {
                name,
                what,
                data: Vec::new(),
                size: 0,
                align: 4,
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
        for (t, target) in rel_targets.iter().enumerate() {
            let rela = g
                .relocations
                .iter()
                .any(|r| &r.section == target && r.addend != 0);
            let prefix = if rela { ".rela" } else { ".rel" };
            add(format!("{prefix}{target}"), What::Rel(t, rela));
        }
        for (b, bank) in g.const_banks.iter().enumerate() {
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
        if !g.global_init.is_empty() {
            add(".nv.global.init".into(), What::GlobalInit);
        }
        if g.global_size > 0 {
            add(".nv.global".into(), What::Global);
        }
        for (k, kernel) in w.kernels.iter().enumerate() {
            // An empty section with an alignment is how ptxas marks kernels that use only
            // dynamic shared memory.
            if kernel.shared_size > 0 || kernel.shared_align != 0 {
                add(format!(".nv.shared.{}", kernel.name), What::Shared(k));
            }
        }

        let symbols = Self::symbols(w, &sections);
        let func_sym: Vec<u32> = (0..w.kernels.len())
            .map(|k| {
                symbols
                    .iter()
                    .position(|s| s.kind == SymKind::Func(k))
                    .map_or(0, |p| p as u32 + 1)
            })
            .collect();
        let mut plan = Plan {
            sections,
            symbols,
            func_sym,
            rel_targets,
        };
        for i in 0..plan.sections.len() {
            let (data, size, align) = plan.contents(w, i)?;
            let s = &mut plan.sections[i];
            s.data = data;
            s.size = size;
            s.align = align;
        }
        Ok(plan)
    }

    /// Symbols in ptxas's order (see the module doc).
    fn symbols(w: &CubinWriter, sections: &[Section]) -> Vec<Symbol> {
        let g = &w.globals;
        let mut symbols = Vec::new();
        let section_symbol = |symbols: &mut Vec<Symbol>, what: What| {
            if let Some(s) = sections.iter().position(|s| s.what == what) {
                symbols.push(Symbol {
                    name: sections[s].name.clone(),
                    kind: SymKind::Section(s),
                    section: s,
                });
                // Data objects follow their section's symbol.
                for (d, sym) in g.symbols.iter().enumerate() {
                    if sym.section == sections[s].name {
                        symbols.push(Symbol {
                            name: sym.name.clone(),
                            kind: SymKind::Data(d),
                            section: s,
                        });
                    }
                }
            }
        };
        for (k, kernel) in w.kernels.iter().enumerate() {
            section_symbol(&mut symbols, What::Text(k));
            if kernel.shared_size > 0 {
                section_symbol(&mut symbols, What::Shared(k));
            }
            if k == 0 {
                // Module data comes with the first kernel (ptxas lists it where the code first
                // refers to it; for one kernel that is here).
                section_symbol(&mut symbols, What::GlobalInit);
                section_symbol(&mut symbols, What::Global);
                for b in 0..g.const_banks.len() {
                    section_symbol(&mut symbols, What::ModuleBank(b));
                }
            }
            for b in 0..kernel.const_banks.len() {
                section_symbol(&mut symbols, What::KernelBank(k, b));
            }
            let text = sections.iter().position(|s| s.what == What::Text(k));
            for (i, sub) in kernel.subroutines.iter().enumerate() {
                symbols.push(Symbol {
                    name: sub.name.clone(),
                    kind: SymKind::Sub(k, i),
                    section: text.unwrap_or(0),
                });
            }
            section_symbol(&mut symbols, What::Const0(k));
        }
        section_symbol(&mut symbols, What::Callgraph);
        section_symbol(&mut symbols, What::RelAction);
        for (k, kernel) in w.kernels.iter().enumerate() {
            let text = sections.iter().position(|s| s.what == What::Text(k));
            symbols.push(Symbol {
                name: kernel.name.clone(),
                kind: SymKind::Func(k),
                section: text.unwrap_or(0),
            });
        }
        symbols
    }

    /// File index of the first symbol satisfying `f` (0 if none).
    fn symbol_index(&self, f: impl Fn(&Symbol) -> bool) -> u32 {
        self.symbols.iter().position(f).map_or(0, |p| p as u32 + 1)
    }

    /// (bytes, size, alignment) of section `i`.
    fn contents(&self, w: &CubinWriter, i: usize) -> Result<(Vec<u8>, u64, u64), CubinError> {
        let g = &w.globals;
        let s = &self.sections[i];
        let align_of = |default: u64| {
            g.section_align
                .iter()
                .find(|(n, _)| n == &s.name)
                .map_or(default, |&(_, a)| a)
        };
        let plain = |data: Vec<u8>, align: u64| {
            let size = data.len() as u64;
            (data, size, align)
        };
        Ok(match s.what {
            What::Info => plain(info_data(w, &self.func_sym, &self.symbols)?, 4),
            What::KernelInfo(k) => {
                let const0 = self.symbol_index(|sym| {
                    matches!(sym.kind, SymKind::Section(x) if self.sections[x].what == What::Const0(k))
                });
                plain(kernel_info_data(w, k, const0, &s.name)?, 4)
            }
            What::IlcAbi(k) => plain(w.kernels[k].ilc_abi.clone().unwrap_or_default(), 4),
            What::Callgraph => plain(callgraph_data(), 4),
            What::RelAction => plain(REL_ACTION.to_vec(), 8),
            What::Rel(t, rela) => {
                let mut d = Vec::new();
                for r in g
                    .relocations
                    .iter()
                    .filter(|r| r.section == self.rel_targets[t])
                {
                    let sym = self.symbol_index(|s| s.name == r.symbol);
                    if sym == 0 {
                        return Err(CubinError::Unsupported(format!(
                            "relocation against unknown symbol `{}`",
                            r.symbol
                        )));
                    }
                    d.extend_from_slice(&r.offset.to_le_bytes());
                    d.extend_from_slice(
                        &((u64::from(sym) << 32) | u64::from(r.r_type)).to_le_bytes(),
                    );
                    if rela {
                        d.extend_from_slice(&r.addend.to_le_bytes());
                    }
                }
                plain(d, 8)
            }
            What::ModuleBank(b) => {
                // Banks holding relocated addresses are 8-aligned in ptxas's output.
                let default = if self.rel_targets.contains(&s.name) {
                    8
                } else {
                    4
                };
                plain(g.const_banks[b].data.clone(), align_of(default))
            }
            What::KernelBank(k, b) => plain(w.kernels[k].const_banks[b].data.clone(), 4),
            What::Const0(k) => {
                let kernel = &w.kernels[k];
                let len = ((PARAM_BASE + kernel.param_size()) as usize).max(kernel.const0.len());
                let mut d = vec![0u8; len];
                d[..kernel.const0.len()].copy_from_slice(&kernel.const0);
                plain(d, 4)
            }
            What::Text(k) => plain(
                w.kernels[k]
                    .code
                    .iter()
                    .flat_map(|word| word.to_le_bytes())
                    .collect(),
                32,
            ),
            What::GlobalInit => plain(g.global_init.clone(), align_of(4)),
            What::Global => (Vec::new(), g.global_size, align_of(4)),
            What::Shared(k) => {
                let kernel = &w.kernels[k];
                (
                    Vec::new(),
                    u64::from(kernel.shared_size),
                    u64::from(kernel.shared_align.max(4)),
                )
            }
        })
    }

    fn section_header(&self, w: &CubinWriter, s: &Section, symtab: SectionIndex) -> SectionHeader {
        let index_of = |what: What| {
            self.sections
                .iter()
                .find(|t| t.what == what)
                .map_or(0, |t| t.index.0)
        };
        let info_link = elf::SHF_INFO_LINK.0;
        let alloc = elf::SHF_ALLOC.0;
        let (sh_type, sh_flags, sh_link, sh_info, entsize): (u32, u64, u32, u32, u64) = match s.what
        {
            What::Info => (SHT_CUDA_INFO, 0, symtab.0, 0, 0),
            What::KernelInfo(k) => (
                SHT_CUDA_INFO,
                info_link,
                symtab.0,
                index_of(What::Text(k)),
                0,
            ),
            // sh_info names the kernel's code section, so SHF_INFO_LINK says so (without it
            // `readelf -a` warns about an unexpected info field).
            What::IlcAbi(k) => (
                elf::SHT_PROGBITS.0,
                info_link,
                0,
                index_of(What::Text(k)),
                0,
            ),
            What::Callgraph => (SHT_CUDA_CALLGRAPH, 0, symtab.0, 0, 8),
            What::RelAction => (SHT_CUDA_RELOCINFO, 0, 0, 0, 8),
            What::Rel(t, rela) => {
                let target = self
                    .sections
                    .iter()
                    .find(|x| x.name == self.rel_targets[t])
                    .map_or(0, |x| x.index.0);
                let (ty, ent) = if rela {
                    (elf::SHT_RELA.0, 24)
                } else {
                    (elf::SHT_REL.0, 16)
                };
                (ty, info_link, symtab.0, target, ent)
            }
            What::ModuleBank(_) => (elf::SHT_PROGBITS.0, alloc, 0, 0, 0),
            What::KernelBank(k, _) | What::Const0(k) => (
                elf::SHT_PROGBITS.0,
                alloc | info_link,
                0,
                index_of(What::Text(k)),
                0,
            ),
            What::Text(k) => {
                let kernel = &w.kernels[k];
                (
                    elf::SHT_PROGBITS.0,
                    (alloc | elf::SHF_EXECINSTR.0) | (u64::from(kernel.num_barriers) << 20),
                    symtab.0,
                    (kernel.num_regs << 24) | self.func_sym[k],
                    0,
                )
            }
            What::GlobalInit => (elf::SHT_PROGBITS.0, elf::SHF_WRITE.0 | alloc, 0, 0, 0),
            What::Global => (elf::SHT_NOBITS.0, elf::SHF_WRITE.0 | alloc, 0, 0, 0),
            What::Shared(k) => (
                elf::SHT_NOBITS.0,
                elf::SHF_WRITE.0 | alloc | info_link,
                0,
                index_of(What::Text(k)),
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
            sh_addralign: s.align,
            sh_entsize: entsize,
        }
    }

    /// Writes the file.
    pub(super) fn emit(mut self, w: &CubinWriter) -> Result<Vec<u8>, CubinError> {
        let elf_err = |e: object::write::Error| CubinError::Elf(e.to_string());
        let names: Vec<String> = self.sections.iter().map(|s| s.name.clone()).collect();
        let sym_names: Vec<String> = self.symbols.iter().map(|s| s.name.clone()).collect();
        let mut buf = Vec::new();
        let mut ow = Writer::new(object::Endianness::Little, true, &mut buf);

        // Phase 1: reserve indices, strings and file ranges.
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
            ow.reserve_symbol_index(Some(self.sections[sym.section].index));
        }
        ow.reserve_shstrtab().map_err(elf_err)?;
        ow.reserve_strtab().map_err(elf_err)?;
        ow.reserve_symtab();
        for s in &mut self.sections {
            let file_len = if s.what.is_nobits() {
                0
            } else {
                s.data.len() as u64
            };
            s.offset = ow.reserve(file_len, s.align);
        }
        ow.reserve_section_headers();
        let phoff = ow.reserved_len().next_multiple_of(8);
        let program_headers = self.program_headers(phoff);
        ow.reserve_program_headers(program_headers.len() as u32);

        // Phase 2: write, in the same order.
        let flags = w.arch.number()
            | EF_CUDA_TEXMODE_UNIFIED
            | EF_CUDA_64BIT_ADDRESS
            | ((w.virtual_arch.unwrap_or(w.arch.number()) & 0xff) << 16);
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
        for (sym, id) in self.symbols.iter().zip(&sym_ids) {
            let (info, other, value, size) = match sym.kind {
                SymKind::Section(_) => (elf::STB_LOCAL | elf::STT_SECTION, 0, 0, 0),
                SymKind::Data(d) => {
                    let ds = &w.globals.symbols[d];
                    (elf::STB_LOCAL | elf::STT_OBJECT, 0, ds.offset, ds.size)
                }
                SymKind::Sub(k, i) => {
                    let sub = &w.kernels[k].subroutines[i];
                    let bind = if sub.local {
                        elf::STB_LOCAL
                    } else {
                        elf::STB_WEAK
                    };
                    (bind | elf::STT_FUNC, 0, sub.offset, sub.size)
                }
                SymKind::Func(k) => (
                    elf::STB_GLOBAL | elf::STT_FUNC,
                    STO_CUDA_ENTRY,
                    0,
                    w.kernels[k].code.len() as u64 * 8,
                ),
            };
            ow.write_symbol(&Sym {
                section: Some(self.sections[sym.section].index.0),
                st_name: ow.string_offset(Some(*id)),
                st_info: info,
                st_other: elf::SymbolOther(other),
                st_shndx: elf::SymbolSection(0),
                st_value: value,
                st_size: size,
            });
        }
        for s in &self.sections {
            ow.write_align(s.align);
            if !s.what.is_nobits() {
                ow.write(&s.data);
            }
        }
        ow.write_null_section_header();
        ow.write_shstrtab_section_header();
        ow.write_strtab_section_header();
        // ptxas sets the symtab's sh_info to the index of the first kernel symbol, counting the
        // weak subroutine symbols before it as "local"; do the same.
        let first_kernel = 1 + self
            .symbols
            .iter()
            .filter(|s| !matches!(s.kind, SymKind::Func(_)))
            .count() as u32;
        ow.write_symtab_section_header(first_kernel);
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

    /// The program headers (see the module doc), for a table at file offset `phoff`.
    fn program_headers(&self, phoff: u64) -> Vec<ProgramHeader> {
        let load = |flags: u32, offset: u64, filesz: u64, memsz: u64| ProgramHeader {
            p_type: elf::PT_LOAD,
            p_flags: elf::ProgramFlags(flags),
            p_offset: offset,
            p_vaddr: 0,
            p_paddr: 0,
            p_filesz: filesz,
            p_memsz: memsz,
            p_align: 8,
        };
        let rx = elf::PF_R.0 | elf::PF_X.0;
        let mut out = Vec::new();
        let code: Vec<&Section> = self
            .sections
            .iter()
            .filter(|s| {
                matches!(
                    s.what,
                    What::ModuleBank(_) | What::KernelBank(..) | What::Const0(_) | What::Text(_)
                )
            })
            .collect();
        if let (Some(start), Some(end)) = (
            code.iter().map(|s| s.offset).min(),
            code.iter().map(|s| s.offset + s.size).max(),
        ) {
            out.push(load(rx, start, end - start, end - start));
        }
        let data: Vec<&Section> = self
            .sections
            .iter()
            .filter(|s| matches!(s.what, What::GlobalInit | What::Global | What::Shared(_)))
            .collect();
        if let Some(start) = data.iter().map(|s| s.offset).min() {
            let filesz = data
                .iter()
                .filter(|s| !s.what.is_nobits())
                .map(|s| s.size)
                .sum();
            let memsz = data.iter().map(|s| s.size).sum();
            out.push(load(elf::PF_R.0 | elf::PF_W.0, start, filesz, memsz));
        }
        let table = (out.len() as u64 + 2) * PHDR_SIZE;
        let mut phdr = load(rx, phoff, table, table);
        let trailing = phdr.clone();
        phdr.p_type = elf::PT_PHDR;
        out.insert(0, phdr);
        out.push(trailing);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::super::{read_cubin, GlobalData, Kernel, Param, Sm};
    use super::*;

    fn kernel(name: &str, shared: u32) -> Kernel {
        Kernel {
            name: name.into(),
            code: vec![0; 8],
            num_regs: 10,
            params: vec![Param::new(0, 8)],
            shared_size: shared,
            exit_offsets: vec![8],
            ..Kernel::default()
        }
    }

    fn u16_at(b: &[u8], at: usize) -> u16 {
        u16::from_le_bytes([b[at], b[at + 1]])
    }
    fn u32_at(b: &[u8], at: usize) -> u32 {
        u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
    }
    fn u64_at(b: &[u8], at: usize) -> u64 {
        u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
    }

    #[test]
    fn header_fields_match_ptxas() {
        let bytes = CubinWriter::new(Sm::Sm52)
            .virtual_arch(50)
            .kernel(kernel("a", 0))
            .write()
            .expect("writes");
        assert_eq!(&bytes[..8], b"\x7fELF\x02\x01\x01\x33");
        assert_eq!(bytes[8], 7, "ABI version");
        assert_eq!(u16_at(&bytes, 0x10), 2, "ET_EXEC");
        assert_eq!(u16_at(&bytes, 0x12), 190, "EM_CUDA");
        assert_eq!(u32_at(&bytes, 0x14), 129, "e_version = toolkit version");
        assert_eq!(u32_at(&bytes, 0x30), 0x0032_0534, "e_flags");
    }

    #[test]
    fn program_headers_cover_code_and_shared() {
        let bytes = crate::cubin::write_cubin(Sm::Sm50, [kernel("a", 256), kernel("b", 64)])
            .expect("writes");
        let phoff = u64_at(&bytes, 0x20) as usize;
        let phnum = usize::from(u16_at(&bytes, 0x38));
        assert_eq!(phnum, 4);
        let ph = |i: usize| {
            let at = phoff + i * 56;
            (
                u32_at(&bytes, at),
                u32_at(&bytes, at + 4),
                u64_at(&bytes, at + 8),
                u64_at(&bytes, at + 32),
                u64_at(&bytes, at + 40),
            )
        };
        assert_eq!(ph(0), (elf::PT_PHDR.0, 5, phoff as u64, 4 * 56, 4 * 56));
        assert_eq!(ph(3), (elf::PT_LOAD.0, 5, phoff as u64, 4 * 56, 4 * 56));
        let (ty, flags, _, filesz, memsz) = ph(2);
        assert_eq!((ty, flags, filesz, memsz), (elf::PT_LOAD.0, 6, 0, 256 + 64));
        let (ty, flags, _, filesz, _) = ph(1);
        // Two constant banks of 0x148 bytes, two texts of 64 bytes, with alignment padding.
        assert_eq!((ty, flags), (elf::PT_LOAD.0, 5));
        assert!(filesz >= 2 * 0x148 + 2 * 64, "{filesz:#x}");
    }

    #[test]
    fn relocation_against_unknown_symbol_is_refused() {
        let globals = GlobalData {
            const_banks: vec![crate::cubin::ConstBank {
                bank: 4,
                data: vec![0; 8],
            }],
            relocations: vec![crate::cubin::Relocation {
                section: ".nv.constant4".into(),
                offset: 0,
                symbol: "nowhere".into(),
                r_type: 2,
                addend: 0,
            }],
            ..GlobalData::default()
        };
        let e = CubinWriter::new(Sm::Sm50)
            .kernel(kernel("a", 0))
            .globals(globals)
            .write();
        assert!(matches!(e, Err(CubinError::Unsupported(_))), "{e:?}");
    }

    #[test]
    fn global_data_round_trips_with_relocations() {
        let globals = GlobalData {
            const_banks: vec![crate::cubin::ConstBank {
                bank: 4,
                data: vec![0; 16],
            }],
            symbols: vec![
                crate::cubin::DataSymbol {
                    name: "table".into(),
                    section: ".nv.global.init".into(),
                    offset: 0,
                    size: 8,
                },
                crate::cubin::DataSymbol {
                    name: "scratch".into(),
                    section: ".nv.global".into(),
                    offset: 0,
                    size: 64,
                },
            ],
            global_init: vec![1, 2, 3, 4, 5, 6, 7, 8],
            global_size: 64,
            relocations: vec![
                crate::cubin::Relocation {
                    section: ".nv.constant4".into(),
                    offset: 0,
                    symbol: "table".into(),
                    r_type: 2,
                    addend: 0,
                },
                crate::cubin::Relocation {
                    section: ".nv.constant4".into(),
                    offset: 8,
                    symbol: "scratch".into(),
                    r_type: 2,
                    addend: 16,
                },
            ],
            section_align: Vec::new(),
        };
        let bytes = CubinWriter::new(Sm::Sm50)
            .kernel(kernel("a", 0))
            .globals(globals.clone())
            .write()
            .expect("writes");
        let back = read_cubin(&bytes).expect("reads");
        let mut got = back.globals.clone();
        got.section_align.clear();
        assert_eq!(got, globals);
        // A relocation with an addend needs SHT_RELA; the bank holding addresses is 8-aligned.
        assert!(back
            .globals
            .section_align
            .contains(&(".nv.constant4".to_string(), 8)));
    }
}
