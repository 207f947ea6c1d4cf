//! Cubin reader: ELF bytes -> [`Cubin`] (kernels, their tables, module data).
//!
//! Accepts any sm_50/52/53 cubin (ptxas's or ours). Kernels are the `FUNC` symbols marked as CUDA
//! entry points (`st_other` 0x10) that own a `.text.K` section; everything else about a kernel
//! is found by section name (`.nv.info.K`, `.nv.constantN.K`, `.nv.shared.K`, `.ilc.abi.K`) and by
//! its symbol index in `.nv.info`. `.nv.info.K` records the reader does not model go to
//! [`Kernel::extra_info`] so that writing the result back loses nothing NVIDIA's tools show.
//!
//! The ELF container is parsed with `object` (bounds-checked); every CUDA table is decoded with
//! explicit length checks. Malformed input of any kind is a [`CubinError`], never a panic.

use object::elf::{self, FileHeader64};
use object::read::elf::{FileHeader, SectionHeader, Sym};
use object::LittleEndian as LE;

use super::nvinfo::{self, *};
use super::{
    ConstBank, Cubin, CubinError, DataSymbol, GlobalData, InfoValue, Kernel, Relocation, Sm,
    Subroutine,
};

/// ELF OS/ABI byte of CUDA cubins.
const ELFOSABI_CUDA: u8 = 0x33;
/// Symbol `st_other` flag of kernel entry points.
const STO_CUDA_ENTRY: u8 = 0x10;

/// One section, already sliced.
struct Sect<'a> {
    name: String,
    sh_type: u32,
    flags: u64,
    info: u32,
    align: u64,
    size: u64,
    /// File bytes (empty for NOBITS).
    data: &'a [u8],
}

struct Symbol {
    name: String,
    info: u8,
    other: u8,
    shndx: u16,
    value: u64,
    size: u64,
}

/// Parses a cubin.
pub fn read_cubin(data: &[u8]) -> Result<Cubin, CubinError> {
    let elf_err = |e: object::read::Error| CubinError::Elf(e.to_string());
    if data.get(..4) != Some(&elf::ELFMAG[..]) {
        return Err(CubinError::NotCubin("no ELF magic".into()));
    }
    if data.get(4) != Some(&elf::ELFCLASS64.0) || data.get(5) != Some(&elf::ELFDATA2LSB.0) {
        return Err(CubinError::NotCubin(
            "not a little-endian ELF64 file (sm_50 cubins are)".into(),
        ));
    }
    let header = FileHeader64::<LE>::parse(data).map_err(elf_err)?;
    let endian = header.endian().map_err(elf_err)?;
    if header.e_machine(endian) != elf::EM_CUDA {
        return Err(CubinError::NotCubin(format!(
            "e_machine {} is not EM_CUDA (190)",
            header.e_machine(endian).0
        )));
    }
    if header.e_ident().os_abi.0 != ELFOSABI_CUDA {
        return Err(CubinError::NotCubin(format!(
            "OS/ABI {:#x} is not CUDA's 0x33",
            header.e_ident().os_abi.0
        )));
    }
    let flags = header.e_flags(endian).0;
    let arch_number = flags & 0xff;
    let arch = Sm::from_number(arch_number).ok_or(CubinError::UnsupportedArch(arch_number))?;

    // The program-header table must lie inside the file too (the loader maps its segments).
    header.program_headers(endian, data).map_err(elf_err)?;
    let table = header.sections(endian, data).map_err(elf_err)?;
    let mut sections = Vec::with_capacity(table.len());
    for (index, sh) in table.enumerate() {
        let name = table.section_name(endian, sh).map_err(elf_err)?;
        let name = String::from_utf8_lossy(name).into_owned();
        let sh_type = sh.sh_type(endian).0;
        let bytes = if sh_type == elf::SHT_NOBITS.0 || sh_type == elf::SHT_NULL.0 {
            &[][..]
        } else {
            sh.data(endian, data)
                .map_err(|e| CubinError::Elf(format!("section {} `{name}`: {e}", index.0)))?
        };
        sections.push(Sect {
            name,
            sh_type,
            flags: sh.sh_flags(endian).0,
            info: sh.sh_info(endian),
            align: sh.sh_addralign(endian),
            size: sh.sh_size(endian),
            data: bytes,
        });
    }

    let mut symbols = Vec::new();
    let symtab = table
        .symbols(endian, data, elf::SHT_SYMTAB)
        .map_err(elf_err)?;
    for sym in symtab.iter() {
        let name = symtab.symbol_name(endian, sym).map_err(elf_err)?;
        symbols.push(Symbol {
            name: String::from_utf8_lossy(name).into_owned(),
            info: sym.st_info().0,
            other: sym.st_other().0,
            shndx: sym.st_shndx(endian).0,
            value: sym.st_value(endian),
            size: sym.st_size(endian),
        });
    }

    // `.nv.info`: per-function records keyed by symbol index.
    let mut module_info = Vec::new();
    if let Some(s) = sections.iter().find(|s| s.name == ".nv.info") {
        module_info = nvinfo::decode(".nv.info", s.data)?;
    }
    let per_function = |attr: u8, sym: u32| -> Result<Option<u32>, CubinError> {
        for a in module_info.iter().filter(|a| a.attr == attr) {
            match nvinfo::as_words(&a.value).as_deref() {
                Some([s, v, ..]) if *s == sym => return Ok(Some(*v)),
                Some([_, _, ..]) => {}
                _ => {
                    return Err(CubinError::malformed(
                        ".nv.info",
                        format!("attribute {attr:#x} without [symbol, value] payload"),
                    ))
                }
            }
        }
        Ok(None)
    };

    let mut kernels = Vec::new();
    for (sym_index, sym) in symbols.iter().enumerate() {
        let is_func = sym.info & 0xf == elf::STT_FUNC.0;
        if !is_func || sym.other & STO_CUDA_ENTRY == 0 {
            continue;
        }
        let text_name = format!(".text.{}", sym.name);
        let text = sections
            .get(usize::from(sym.shndx))
            .filter(|s| s.name == text_name)
            .ok_or_else(|| {
                CubinError::malformed(
                    ".symtab",
                    format!("kernel `{}` does not point at `{text_name}`", sym.name),
                )
            })?;
        let sym_index = sym_index as u32;
        kernels.push(read_kernel(
            &sym.name,
            sym_index,
            text,
            &sections,
            &per_function,
        )?);
    }
    // Kernels in .text section order (ptxas lists symbols in that order too).
    kernels.sort_by_key(|k| {
        sections
            .iter()
            .position(|s| s.name == format!(".text.{}", k.name))
    });

    // Non-entry functions inside a kernel's code: ptxas's internal subroutines.
    for (sym_index, sym) in symbols.iter().enumerate() {
        if sym.info & 0xf != elf::STT_FUNC.0 || sym.other & STO_CUDA_ENTRY != 0 {
            continue;
        }
        let Some(owner) = sections
            .get(usize::from(sym.shndx))
            .and_then(|s| s.name.strip_prefix(".text."))
        else {
            continue;
        };
        if let Some(k) = kernels.iter_mut().find(|k| k.name == owner) {
            k.subroutines.push(Subroutine {
                name: sym.name.clone(),
                offset: sym.value,
                size: sym.size,
                frame_size: per_function(EIATTR_FRAME_SIZE, sym_index as u32)?,
                local: sym.info >> 4 == elf::STB_LOCAL.0,
            });
        }
    }

    let globals = read_globals(&sections, &symbols)?;
    Ok(Cubin {
        arch,
        virtual_arch: (flags >> 16) & 0xff,
        toolkit_version: header.e_version(endian),
        kernels,
        globals,
    })
}

fn read_kernel(
    name: &str,
    sym_index: u32,
    text: &Sect<'_>,
    sections: &[Sect<'_>],
    per_function: &dyn Fn(u8, u32) -> Result<Option<u32>, CubinError>,
) -> Result<Kernel, CubinError> {
    if text.sh_type != elf::SHT_PROGBITS.0 {
        return Err(CubinError::malformed(
            &text.name,
            "code section is not PROGBITS",
        ));
    }
    if !text.data.len().is_multiple_of(8) {
        return Err(CubinError::malformed(
            &text.name,
            format!(
                "{} bytes is not a whole number of 64-bit words",
                text.data.len()
            ),
        ));
    }
    let code = text
        .data
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]))
        .collect();
    let by_name = |n: &str| sections.iter().find(|s| s.name == n);

    let mut k = Kernel {
        name: name.to_string(),
        code,
        num_regs: per_function(EIATTR_REGCOUNT, sym_index)?.unwrap_or(text.info >> 24),
        num_barriers: ((text.flags >> 20) & 0x7f) as u32,
        local_size: per_function(EIATTR_FRAME_SIZE, sym_index)?.unwrap_or(0),
        min_stack_size: per_function(EIATTR_MIN_STACK_SIZE, sym_index)?,
        max_stack_size: per_function(EIATTR_MAX_STACK_SIZE, sym_index)?,
        ..Kernel::default()
    };
    if let Some(s) = by_name(&format!(".nv.shared.{name}")) {
        k.shared_size = u32::try_from(s.size).map_err(|_| {
            CubinError::malformed(&s.name, format!("{} bytes of shared memory", s.size))
        })?;
        k.shared_align = u32::try_from(s.align).unwrap_or(0);
    }
    if let Some(s) = by_name(&format!(".ilc.abi.{name}")) {
        k.ilc_abi = Some(s.data.to_vec());
    }
    let suffix = format!(".{name}");
    for s in sections {
        let Some(bank) = s
            .name
            .strip_prefix(".nv.constant")
            .and_then(|rest| rest.strip_suffix(&suffix))
            .and_then(|digits| digits.parse::<u8>().ok())
        else {
            continue;
        };
        if bank == 0 {
            k.const0 = s.data.to_vec();
        } else {
            k.const_banks.push(ConstBank {
                bank,
                data: s.data.to_vec(),
            });
        }
    }

    let info_name = format!(".nv.info.{name}");
    let Some(info) = by_name(&info_name) else {
        return Ok(k);
    };
    let mut params = Vec::new();
    for a in nvinfo::decode(&info_name, info.data)? {
        let words = || {
            nvinfo::as_words(&a.value).ok_or_else(|| {
                CubinError::malformed(
                    &info_name,
                    format!("attribute {:#x}: expected a list of words", a.attr),
                )
            })
        };
        let triple = |w: Vec<u32>| -> Result<[u32; 3], CubinError> {
            <[u32; 3]>::try_from(w.as_slice()).map_err(|_| {
                CubinError::malformed(
                    &info_name,
                    format!("attribute {:#x}: expected 3 words", a.attr),
                )
            })
        };
        match a.attr {
            EIATTR_KPARAM_INFO => params.push(nvinfo::parse_kparam_info(&info_name, &a.value)?),
            EIATTR_EXIT_INSTR_OFFSETS => k.exit_offsets = words()?,
            EIATTR_S2RCTAID_INSTR_OFFSETS => k.s2rctaid_offsets = words()?,
            EIATTR_REQNTID => k.block_size = Some(triple(words()?)?),
            EIATTR_MAX_THREADS => k.max_threads = Some(triple(words()?)?),
            EIATTR_CRS_STACK_SIZE => {
                k.crs_stack_size = Some(
                    *words()?
                        .first()
                        .ok_or_else(|| CubinError::malformed(&info_name, "empty CRS_STACK_SIZE"))?,
                )
            }
            EIATTR_MAXREG_COUNT => match a.value {
                InfoValue::Half(v) | InfoValue::Byte(v) => k.max_reg_count = Some(u32::from(v)),
                _ => k.extra_info.push(a),
            },
            // Derived by the writer from other fields (or constant).
            EIATTR_CUDA_API_VERSION
            | EIATTR_SW2393858_WAR
            | EIATTR_SW1850030_WAR
            | EIATTR_PARAM_CBANK
            | EIATTR_CBANK_PARAM_SIZE => {}
            _ => k.extra_info.push(a),
        }
    }
    params.sort_by_key(|(ordinal, _)| *ordinal);
    for (i, (ordinal, _)) in params.iter().enumerate() {
        if usize::from(*ordinal) != i {
            return Err(CubinError::malformed(
                &info_name,
                format!("parameter ordinals are not 0..{}", params.len()),
            ));
        }
    }
    k.params = params.into_iter().map(|(_, p)| p).collect();
    if k.max_reg_count == Some(0xff) {
        k.max_reg_count = None;
    }
    Ok(k)
}

fn read_globals(sections: &[Sect<'_>], symbols: &[Symbol]) -> Result<GlobalData, CubinError> {
    let mut g = GlobalData::default();
    for s in sections {
        let module_bank = s
            .name
            .strip_prefix(".nv.constant")
            .and_then(|d| d.parse::<u8>().ok());
        if module_bank.is_some() || s.name == ".nv.global.init" || s.name == ".nv.global" {
            g.section_align.push((s.name.clone(), s.align));
        }
        if let Some(bank) = module_bank {
            g.const_banks.push(ConstBank {
                bank,
                data: s.data.to_vec(),
            });
        } else if s.name == ".nv.global.init" {
            g.global_init = s.data.to_vec();
        } else if s.name == ".nv.global" {
            g.global_size = s.size;
        }
    }
    for sym in symbols {
        if sym.info & 0xf != elf::STT_OBJECT.0 {
            continue;
        }
        let section = sections
            .get(usize::from(sym.shndx))
            .map(|s| s.name.clone())
            .unwrap_or_default();
        g.symbols.push(DataSymbol {
            name: sym.name.clone(),
            section,
            offset: sym.value,
            size: sym.size,
        });
    }
    for s in sections {
        let rela = s.sh_type == elf::SHT_RELA.0;
        if s.sh_type != elf::SHT_REL.0 && !rela {
            continue;
        }
        let entry = if rela { 24 } else { 16 };
        if s.data.len() % entry != 0 {
            return Err(CubinError::malformed(
                &s.name,
                format!("{} bytes is not a whole number of entries", s.data.len()),
            ));
        }
        let target = sections
            .get(s.info as usize)
            .map(|t| t.name.clone())
            .ok_or_else(|| CubinError::malformed(&s.name, "relocated section out of range"))?;
        for e in s.data.chunks_exact(entry) {
            let word = |i: usize| {
                let mut b = [0u8; 8];
                b.copy_from_slice(&e[i * 8..i * 8 + 8]);
                u64::from_le_bytes(b)
            };
            let info = word(1);
            let symbol = symbols
                .get((info >> 32) as usize)
                .map(|s| s.name.clone())
                .ok_or_else(|| CubinError::malformed(&s.name, "symbol index out of range"))?;
            g.relocations.push(Relocation {
                section: target.clone(),
                offset: word(0),
                symbol,
                r_type: info as u32,
                addend: if rela { word(2) as i64 } else { 0 },
            });
        }
    }
    Ok(g)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_non_cubins() {
        assert!(matches!(read_cubin(b""), Err(CubinError::NotCubin(_))));
        assert!(matches!(
            read_cubin(b"\x7fELF\x01\x01\x01"),
            Err(CubinError::NotCubin(_))
        ));
        let mut h = vec![0u8; 64];
        h[..4].copy_from_slice(b"\x7fELF");
        h[4] = 2;
        h[5] = 1;
        h[6] = 1;
        assert!(read_cubin(&h).is_err());
    }
}
