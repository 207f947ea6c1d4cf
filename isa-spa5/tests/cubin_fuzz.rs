//! The cubin reader never panics: truncated, bit-flipped and field-corrupted versions of every
//! corpus cubin (and of one of our own) either parse or give a `CubinError`. Whatever parses is
//! handed to the writer, which must likewise answer with bytes or an error, never a panic, and
//! whose output (when it writes) must parse again.
//!
//! Deterministic: a fixed-seed xorshift generator drives the mutations, so a failure names the
//! file and mutation and reproduces.

use ilc_test_support::Rng;
use isa_spa5::cubin::{read_cubin, write_cubin, CubinWriter, Kernel, Param, Sm};

fn corpus() -> Vec<(String, Vec<u8>)> {
    ilc_test_support::corpus_bytes("tests/cuda/cubins", "cubin", 40)
}

/// One of our own cubins, with every optional part present.
fn ours() -> Vec<u8> {
    let code = vec![
        0x001f_8000_fc00_07e0u64,
        0xe300_0000_0007_000f,
        0x50b0_0000_0007_0f00,
        0x50b0_0000_0007_0f00,
    ];
    let k = Kernel {
        name: "k".into(),
        code,
        num_regs: 8,
        params: vec![Param::new(0, 8), Param::new(8, 4)],
        shared_size: 64,
        local_size: 16,
        block_size: Some([32, 1, 1]),
        exit_offsets: vec![8],
        ilc_abi: Some(vec![1, 2, 3, 4]),
        ..Kernel::default()
    };
    write_cubin(Sm::Sm53, &[k]).expect("valid kernel writes")
}

/// Reads `bytes`; if that works, writes the result and reads that again. Returns whether the
/// mutated input parsed.
fn exercise(what: &str, bytes: &[u8]) -> bool {
    let Ok(c) = read_cubin(bytes) else {
        return false;
    };
    if let Ok(out) = CubinWriter::from_cubin(&c).write() {
        read_cubin(&out).unwrap_or_else(|e| panic!("{what}: our own output does not parse: {e}"));
    }
    true
}

fn all_inputs() -> Vec<(String, Vec<u8>)> {
    let mut v = corpus();
    v.push(("ours".into(), ours()));
    v
}

#[test]
fn truncations_never_panic() {
    for (name, bytes) in all_inputs() {
        // Every length in the header and section-header region, then a spread over the rest.
        let step = (bytes.len() / 97).max(1);
        let lens = (0..bytes.len().min(0x100)).chain((0x100..bytes.len()).step_by(step));
        for len in lens {
            let parsed = exercise(&format!("{name} truncated to {len}"), &bytes[..len]);
            assert!(
                !parsed || len + 256 > bytes.len(),
                "{name}: parsed with {len} bytes"
            );
        }
    }
}

#[test]
fn random_byte_mutations_never_panic() {
    let mut rng = Rng::new(0x9e37_79b9_7f4a_7c15);
    let (mut tried, mut parsed) = (0, 0);
    for (name, bytes) in all_inputs() {
        for round in 0..150 {
            let mut m = bytes.clone();
            for _ in 0..1 + rng.index(8) {
                let at = rng.index(m.len());
                m[at] = rng.next_u64() as u8;
            }
            tried += 1;
            parsed += usize::from(exercise(&format!("{name} mutation round {round}"), &m));
        }
    }
    // Most bytes of a cubin are code and constants, so most mutants still parse and reach the
    // writer; if none did, this test would not be testing the CUDA-table decoding at all.
    assert!(
        parsed * 4 > tried,
        "only {parsed} of {tried} mutants parsed"
    );
}

/// Offsets of the header fields and section-header fields worth corrupting.
fn field_offsets(bytes: &[u8]) -> Vec<(usize, usize)> {
    let mut v = vec![
        (0x20, 8), // e_phoff
        (0x28, 8), // e_shoff
        (0x30, 4), // e_flags
        (0x3a, 2), // e_shentsize
        (0x3c, 2), // e_shnum
        (0x3e, 2), // e_shstrndx
    ];
    let shoff = u64::from_le_bytes(bytes[0x28..0x30].try_into().expect("8 bytes")) as usize;
    let shnum = u16::from_le_bytes([bytes[0x3c], bytes[0x3d]]) as usize;
    for i in 0..shnum {
        let h = shoff + i * 64;
        // sh_name, sh_type, sh_flags, sh_offset, sh_size, sh_link, sh_info, sh_addralign, sh_entsize
        for (off, len) in [
            (0, 4),
            (4, 4),
            (8, 8),
            (24, 8),
            (32, 8),
            (40, 4),
            (44, 4),
            (48, 8),
            (56, 8),
        ] {
            v.push((h + off, len));
        }
    }
    v
}

#[test]
fn corrupted_fields_never_panic() {
    let mut rng = Rng::new(0x2545_f491_4f6c_dd1d);
    let specials: [u64; 8] = [0, 1, 0x7f, 0xff, 0xffff, 0xffff_ffff, u64::MAX, 1 << 40];
    for (name, bytes) in all_inputs() {
        for (at, len) in field_offsets(&bytes) {
            if at + len > bytes.len() {
                continue;
            }
            for value in specials
                .iter()
                .copied()
                .chain([rng.next_u64(), rng.next_u64()])
            {
                let mut m = bytes.clone();
                m[at..at + len].copy_from_slice(&value.to_le_bytes()[..len]);
                let _ = exercise(&format!("{name}: {len} bytes at {at:#x} = {value:#x}"), &m);
            }
        }
    }
}

#[test]
fn corrupted_info_records_never_panic() {
    // Rewrite every byte of the .nv.info.K section of a few cubins with special values: this is
    // where the CUDA-specific decoding happens.
    let mut rng = Rng::new(0x1234_5678_9abc_def1);
    for (name, bytes) in all_inputs().into_iter().step_by(5) {
        let c = read_cubin(&bytes).expect("inputs parse");
        let info = format!(".nv.info.{}", c.kernels[0].name);
        let Some(pos) = bytes.windows(info.len()).position(|w| w == info.as_bytes()) else {
            continue;
        };
        // Find the section whose name is at `pos` in .shstrtab: scan section headers.
        let shoff = u64::from_le_bytes(bytes[0x28..0x30].try_into().expect("8 bytes")) as usize;
        let shnum = u16::from_le_bytes([bytes[0x3c], bytes[0x3d]]) as usize;
        let shstrndx = u16::from_le_bytes([bytes[0x3e], bytes[0x3f]]) as usize;
        let field = |i: usize, off: usize| {
            u64::from_le_bytes(
                bytes[shoff + i * 64 + off..shoff + i * 64 + off + 8]
                    .try_into()
                    .expect("8"),
            )
        };
        let strtab = field(shstrndx, 24) as usize;
        let Some(sect) = (0..shnum).find(|&i| {
            let n = u32::from_le_bytes(
                bytes[shoff + i * 64..shoff + i * 64 + 4]
                    .try_into()
                    .expect("4"),
            );
            strtab + n as usize == pos
        }) else {
            continue;
        };
        let (start, size) = (field(sect, 24) as usize, field(sect, 32) as usize);
        for at in start..start + size {
            for v in [0u8, 1, 2, 3, 4, 5, 0xff, rng.next_u64() as u8] {
                let mut m = bytes.clone();
                m[at] = v;
                let _ = exercise(&format!("{name}: .nv.info byte {at:#x} = {v:#x}"), &m);
            }
        }
    }
}

/// A random kernel; about one in eight violates some writer rule.
fn random_kernel(rng: &mut Rng, name: String) -> Kernel {
    let bundles = 1 + rng.index(12);
    let code: Vec<u64> = (0..bundles * 4).map(|_| rng.next_u64()).collect();
    let code_bytes = code.len() as u32 * 8;
    let mut offset = 0u32;
    let params = (0..rng.index(6))
        .map(|_| {
            let size: u32 = [4, 8, 16][rng.index(3)];
            offset = offset.next_multiple_of(size.min(8));
            let p = Param {
                offset,
                size,
                log_align: rng.index(4) as u8,
            };
            offset += size;
            p
        })
        .collect();
    let instr_offsets = |rng: &mut Rng| -> Vec<u32> {
        (0..rng.index(4))
            .map(|_| {
                let slot = rng.index(code_bytes as usize / 8) as u32;
                // Never a control-word slot.
                if slot.is_multiple_of(4) {
                    (slot + 1) * 8
                } else {
                    slot * 8
                }
            })
            .collect()
    };
    let mut banks: Vec<u8> = (1..=17).filter(|_| rng.index(8) == 0).collect();
    banks.truncate(3);
    let mut k = Kernel {
        name,
        num_regs: 1 + rng.index(255) as u32,
        num_barriers: rng.index(17) as u32,
        params,
        shared_size: if rng.index(2) == 0 {
            0
        } else {
            4 * (1 + rng.index(4096)) as u32
        },
        shared_align: [0, 4, 8, 16][rng.index(4)],
        local_size: 8 * rng.index(64) as u32,
        max_stack_size: (rng.index(3) == 0).then(|| 8 * rng.index(64) as u32),
        crs_stack_size: (rng.index(3) == 0).then(|| 16 * rng.index(64) as u32),
        block_size: (rng.index(2) == 0)
            .then(|| [1 + rng.index(1024) as u32, 1 + rng.index(4) as u32, 1]),
        max_threads: (rng.index(3) == 0).then_some([256, 1, 1]),
        max_reg_count: (rng.index(3) == 0).then(|| 16 + rng.index(200) as u32),
        exit_offsets: instr_offsets(rng),
        s2rctaid_offsets: instr_offsets(rng),
        const_banks: banks
            .into_iter()
            .map(|bank| isa_spa5::cubin::ConstBank {
                bank,
                data: (0..4 * rng.index(64))
                    .map(|_| rng.next_u64() as u8)
                    .collect(),
            })
            .collect(),
        extra_info: if rng.index(3) == 0 {
            vec![isa_spa5::cubin::InfoAttr {
                attr: 0x33,
                value: isa_spa5::cubin::InfoValue::Sized(vec![1, 2, 3, 4]),
            }]
        } else {
            Vec::new()
        },
        ilc_abi: (rng.index(2) == 0)
            .then(|| (0..rng.index(40)).map(|_| rng.next_u64() as u8).collect()),
        subroutines: (0..rng.index(3))
            .map(|i| isa_spa5::cubin::Subroutine {
                name: format!("$sub{i}"),
                offset: u64::from(code_bytes / 2),
                size: u64::from(code_bytes / 2),
                frame_size: (rng.index(2) == 0).then_some(0),
                local: rng.index(2) == 0,
            })
            .collect(),
        code,
        ..Kernel::default()
    };
    if rng.index(8) == 0 {
        match rng.index(5) {
            0 => k.num_regs = 256 + rng.index(1000) as u32,
            1 => k.code.truncate(k.code.len() - 1),
            2 => k.exit_offsets.push(code_bytes + 8),
            3 => k.params.push(Param::new(4096, 4)),
            _ => k.shared_align = 3,
        }
    }
    k
}

/// What the reader returns for a kernel the writer was given.
fn as_read_back(k: &Kernel) -> Kernel {
    let mut k = k.clone();
    let mut const0 = vec![0u8; (0x140 + k.param_size()) as usize];
    const0[..k.const0.len()].copy_from_slice(&k.const0);
    k.const0 = const0;
    k.min_stack_size = Some(k.min_stack_size.unwrap_or(k.local_size));
    if k.max_reg_count == Some(0xff) {
        k.max_reg_count = None;
    }
    k.shared_align = if k.shared_size == 0 && k.shared_align == 0 {
        0
    } else {
        k.shared_align.max(4)
    };
    k
}

#[test]
fn random_kernels_write_and_read_back() {
    let mut rng = Rng::new(0x0ddb_1a5e_5ca1_ab1e);
    let (mut written, mut refused) = (0, 0);
    for round in 0..400 {
        let kernels: Vec<Kernel> = (0..1 + rng.index(3))
            .map(|i| random_kernel(&mut rng, format!("k{round}_{i}")))
            .collect();
        let arch = [Sm::Sm50, Sm::Sm52, Sm::Sm53][rng.index(3)];
        match write_cubin(arch, &kernels) {
            Ok(bytes) => {
                let c = read_cubin(&bytes).unwrap_or_else(|e| panic!("round {round}: {e}"));
                assert_eq!(c.arch, arch);
                let want: Vec<Kernel> = kernels.iter().map(as_read_back).collect();
                assert_eq!(c.kernels, want, "round {round}");
                written += 1;
            }
            Err(_) => refused += 1,
        }
    }
    // Both outcomes must actually occur, or the generator is not exercising the writer.
    assert!(
        written > 200 && refused > 10,
        "{written} written, {refused} refused"
    );
}

#[test]
fn truncation_inside_the_program_header_table_is_an_error() {
    let mut checked = 0;
    for (name, bytes) in corpus() {
        let phoff = u64::from_le_bytes(bytes[0x20..0x28].try_into().unwrap()) as usize;
        let phnum = u16::from_le_bytes([bytes[0x38], bytes[0x39]]) as usize;
        if phnum == 0 || phoff >= bytes.len() {
            continue;
        }
        let end = (phoff + phnum * 56).min(bytes.len());
        for len in [phoff + 1, (phoff + end) / 2, end - 1] {
            assert!(
                read_cubin(&bytes[..len]).is_err(),
                "{name}: truncated to {len} (program headers at {phoff}..{end}) still reads"
            );
        }
        checked += 1;
    }
    assert!(checked > 0, "no corpus cubin has program headers");
}
