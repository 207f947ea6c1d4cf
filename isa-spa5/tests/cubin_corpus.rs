//! Cubin reader and writer against the CUDA corpus (`tests/cuda`, ptxas 12.9 cubins) and
//! NVIDIA's own tools (cuobjdump and nvdisasm 11.8).
//!
//! - every corpus cubin reads; its parameters equal the launch description (`NAME.toml`);
//! - register count, stack, shared and constant sizes equal what `cuobjdump -res-usage` reports;
//! - writing back what the reader extracted gives a cubin that re-reads identically and that
//!   `cuobjdump -elf/-res-usage/-sass` and `nvdisasm` describe exactly as the original (modulo
//!   file offsets of sections and string table sizes), relocations and global data included;
//! - hand-built kernels (required block size, `.ilc.abi`, shared/local memory, several kernels,
//!   sm_52/sm_53) are accepted by the tools and show the values we put in.
//!
//! Tools are found through `ILC_NVIDIA_BIN`, then `~/.cache/nvidia-sm5-tools/usr/bin`, then `PATH`.
//! A missing tool skips the tool-based checks loudly, except under `CI=true` where it fails.

use std::path::{Path, PathBuf};
use std::process::Command;

use ilc_test_support::nvidia_tool as tool;
use ilc_test_support::Rng;
use isa_spa5::cubin::{
    read_cubin, scan_instr_offsets, write_cubin, AbiParam, Cubin, CubinError, CubinWriter, IlcAbi,
    Kernel, Param, ParamRole, Sm,
};

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/cuda")
}

/// (name, bytes) of every corpus cubin, sorted by name.
fn corpus() -> Vec<(String, Vec<u8>)> {
    ilc_test_support::corpus_bytes("tests/cuda/cubins", "cubin", 40)
}

/// Runs `tool args.. file`; panics with the tool's stderr when it rejects the file.
fn run(tool: &Path, args: &[&str], file: &Path) -> String {
    let out = Command::new(tool)
        .args(args)
        .arg(file)
        .output()
        .unwrap_or_else(|e| panic!("{}: {e}", tool.display()));
    assert!(
        out.status.success(),
        "{} {args:?} {} failed:\n{}",
        tool.display(),
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A fresh scratch directory for this test process.
fn scratch(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ilc-cubin-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

/// `cuobjdump -elf` output without the section file offsets (column 2 of the section table) and
/// string table sizes, which legitimately differ: `object` packs string tables differently
/// (suffix sharing) from ptxas. With `sort_symbols`, the symbol table is compared as a sorted
/// list without indices: ptxas orders module data symbols by first use in the code, which the
/// writer does not reproduce (it groups them by section).
fn normalize_elf_dump(s: &str, sort_symbols: bool) -> String {
    let mut out = String::new();
    let mut in_table = false;
    let mut in_symtab = false;
    let mut symbols: Vec<String> = Vec::new();
    for line in s.lines() {
        if line.starts_with("Sections:") {
            in_table = true;
        } else if line.starts_with(".section .symtab") {
            in_symtab = sort_symbols;
        } else if line.trim().is_empty() {
            in_table = false;
            if in_symtab {
                symbols.sort();
                for sym in symbols.drain(..) {
                    out.push_str(&sym);
                    out.push('\n');
                }
                in_symtab = false;
            }
        }
        let cols: Vec<&str> = line.split_whitespace().collect();
        if in_table && cols.len() >= 8 && cols[0] != "Index" {
            let mut c = cols.clone();
            if c[5] == "STRTAB" {
                // String tables: same strings, different packing.
                c.remove(2);
            }
            c.remove(1);
            out.push_str(&c.join(" "));
        } else if in_symtab && cols.len() == 7 && cols[0] != "index" {
            symbols.push(cols[1..].join(" "));
            continue;
        } else {
            out.push_str(line);
        }
        out.push('\n');
    }
    out
}

/// Per-function `cuobjdump -res-usage` fields: name -> [(key, value)].
fn res_usage(s: &str) -> Vec<(String, Vec<(String, u64)>)> {
    let mut out: Vec<(String, Vec<(String, u64)>)> = Vec::new();
    for line in s.lines() {
        let line = line.trim();
        if let Some(f) = line.strip_prefix("Function ") {
            out.push((f.trim_end_matches(':').to_string(), Vec::new()));
        } else if let Some((_, fields)) = out.last_mut() {
            for kv in line.split_whitespace() {
                if let Some((k, v)) = kv.split_once(':') {
                    if let Ok(v) = v.parse() {
                        fields.push((k.to_string(), v));
                    }
                }
            }
        }
    }
    out
}

fn field(fields: &[(String, u64)], key: &str) -> u64 {
    fields.iter().find(|(k, _)| k == key).map_or(0, |(_, v)| *v)
}

#[test]
fn every_corpus_cubin_reads() {
    for (name, bytes) in corpus() {
        let c = read_cubin(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(c.arch, Sm::Sm50, "{name}");
        assert_eq!(c.virtual_arch, 50, "{name}");
        assert_eq!(c.toolkit_version, 129, "{name}");
        assert_eq!(c.kernels.len(), 1, "{name}");
        let k = &c.kernels[0];
        assert_eq!(k.name, name);
        assert!(
            !k.code.is_empty() && k.code.len().is_multiple_of(4),
            "{name}"
        );
        assert!(k.num_regs > 0 && k.num_regs <= 255, "{name}");
        assert!(!k.exit_offsets.is_empty(), "{name}: no EXIT offsets");
        for &off in &k.exit_offsets {
            let slot = off as usize / 8;
            assert!(
                !slot.is_multiple_of(4),
                "{name}: exit offset {off:#x} is a control word"
            );
            // EXIT is opcode 0xe30 in the top 12 bits.
            assert_eq!(k.code[slot] >> 52, 0xe30, "{name}: no EXIT at {off:#x}");
        }
        assert!(k.const0.len() as u32 >= 0x140 + k.param_size(), "{name}");
    }
}

#[test]
fn module_data_is_read() {
    let dir = corpus_dir().join("cubins");
    let c = read_cubin(&std::fs::read(dir.join("const_table.cubin")).expect("corpus file"))
        .expect("const_table reads");
    let bank3 = c
        .globals
        .const_banks
        .iter()
        .find(|b| b.bank == 3)
        .expect("bank 3");
    let table = c
        .globals
        .symbols
        .iter()
        .find(|s| s.name == "table")
        .expect("table");
    assert_eq!(
        (table.section.as_str(), table.offset, table.size),
        (".nv.constant3", 0, 256)
    );
    let word = |i: usize| u32::from_le_bytes(bank3.data[i * 4..i * 4 + 4].try_into().unwrap());
    for k in 0..64 {
        assert_eq!(word(k), (k * k * 3 + 1) as u32, "table[{k}]");
    }
    let c = read_cubin(&std::fs::read(dir.join("ftrans_precise.cubin")).expect("corpus file"))
        .expect("ftrans_precise reads");
    assert_eq!(c.globals.global_init.len(), 24);
    assert_eq!(c.globals.relocations.len(), 1);
    let r = &c.globals.relocations[0];
    assert_eq!(
        (r.section.as_str(), r.symbol.as_str()),
        (".nv.constant4", "__cudart_i2opi_f")
    );
    let k = &c.kernels[0];
    assert_eq!(k.local_size, 32);
    assert!(k
        .const_banks
        .iter()
        .any(|b| b.bank == 2 && b.data.len() == 92));
    let c = read_cubin(&std::fs::read(dir.join("device_globals.cubin")).expect("corpus file"))
        .expect("device_globals reads");
    assert_eq!(c.globals.global_size, 256 * 4);
    assert_eq!(c.globals.global_init.len(), 4 * 8 + 3 * 4);
    let mut relocated: Vec<&str> = c
        .globals
        .relocations
        .iter()
        .map(|r| r.symbol.as_str())
        .collect();
    relocated.sort_unstable();
    assert_eq!(relocated, ["dtab", "itab", "scratch"]);
    assert!(c
        .globals
        .relocations
        .iter()
        .all(|r| r.section == ".nv.constant4"));
    let itab = c
        .globals
        .symbols
        .iter()
        .find(|s| s.name == "itab")
        .expect("itab");
    let at = itab.offset as usize;
    assert_eq!(
        &c.globals.global_init[at..at + 12],
        &[7, 0, 0, 0, 8, 0, 0, 0, 9, 0, 0, 0]
    );
    let shared = read_cubin(&std::fs::read(dir.join("transpose.cubin")).expect("corpus file"))
        .expect("transpose reads");
    assert_eq!(shared.kernels[0].shared_size, 32 * 33 * 4);
    assert_eq!(shared.kernels[0].num_barriers, 1);
}

/// Minimal reader for the `[[param]]` tables of the launch descriptions.
fn toml_params(text: &str) -> (String, Vec<(u32, u32)>) {
    let mut kernel = String::new();
    let mut params: Vec<(u32, u32)> = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if line == "[[param]]" {
            params.push((u32::MAX, u32::MAX));
        } else if let Some((k, v)) = line.split_once(" = ") {
            match (k, params.last_mut()) {
                ("kernel", _) => kernel = v.trim_matches('"').to_string(),
                ("offset", Some(p)) => p.0 = v.parse().expect("offset"),
                ("size", Some(p)) => p.1 = v.parse().expect("size"),
                _ => {}
            }
        }
    }
    (kernel, params)
}

#[test]
fn params_match_launch_descriptions() {
    let mut checked = 0;
    for (name, bytes) in corpus() {
        let toml = corpus_dir().join(format!("{name}.toml"));
        let text =
            std::fs::read_to_string(&toml).unwrap_or_else(|e| panic!("{}: {e}", toml.display()));
        let (kernel, params) = toml_params(&text);
        assert_eq!(kernel, name);
        let c = read_cubin(&bytes).expect("corpus cubin reads");
        let got: Vec<(u32, u32)> = c.kernels[0]
            .params
            .iter()
            .map(|p| (p.offset, p.size))
            .collect();
        assert_eq!(got, params, "{name}: KPARAM_INFO vs {name}.toml");
        checked += 1;
    }
    assert!(checked >= 40);
}

#[test]
fn reader_matches_cuobjdump_res_usage() {
    let Some(cuobjdump) = tool("cuobjdump") else {
        return;
    };
    let dir = corpus_dir().join("cubins");
    for (name, bytes) in corpus() {
        let c = read_cubin(&bytes).expect("corpus cubin reads");
        let usage = res_usage(&run(
            &cuobjdump,
            &["-res-usage"],
            &dir.join(format!("{name}.cubin")),
        ));
        assert_eq!(usage.len(), 1, "{name}: {usage:?}");
        let (f, fields) = &usage[0];
        let k = &c.kernels[0];
        assert_eq!(f, &k.name);
        assert_eq!(
            field(fields, "REG"),
            u64::from(k.num_regs),
            "{name} registers"
        );
        assert_eq!(
            field(fields, "STACK"),
            u64::from(k.local_size),
            "{name} stack"
        );
        assert_eq!(
            field(fields, "SHARED"),
            u64::from(k.shared_size),
            "{name} shared"
        );
        assert_eq!(
            field(fields, "CONSTANT[0]"),
            k.const0.len() as u64,
            "{name} cbank 0"
        );
        for b in &k.const_banks {
            let key = format!("CONSTANT[{}]", b.bank);
            assert_eq!(field(fields, &key), b.data.len() as u64, "{name} {key}");
        }
    }
}

/// Reads `bytes` and writes the result back.
fn rewrite(name: &str, bytes: &[u8]) -> (Cubin, Vec<u8>) {
    let c = read_cubin(bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
    let out = CubinWriter::from_cubin(&c)
        .write()
        .unwrap_or_else(|e| panic!("{name}: rewriting failed: {e}"));
    (c, out)
}

#[test]
fn rewritten_cubins_read_back_identically() {
    let mut written = 0;
    for (name, bytes) in corpus() {
        let (c, out) = rewrite(&name, &bytes);
        let back = read_cubin(&out).unwrap_or_else(|e| panic!("{name} (rewritten): {e}"));
        assert_eq!(back, c, "{name}");
        // Writing is deterministic and a fixed point.
        assert_eq!(
            CubinWriter::from_cubin(&back).write().expect("rewrite"),
            out,
            "{name}"
        );
        written += 1;
    }
    assert!(
        written >= 40,
        "only {written} corpus cubins could be rewritten"
    );
}

#[test]
fn rewritten_cubins_look_identical_to_nvidia_tools() {
    let (Some(cuobjdump), Some(nvdisasm)) = (tool("cuobjdump"), tool("nvdisasm")) else {
        return;
    };
    let dir = scratch("rewrite");
    let orig_dir = corpus_dir().join("cubins");
    let check = |name: &str, bytes: &[u8]| {
        let (c, out) = rewrite(name, bytes);
        let ours = dir.join(format!("{name}.cubin"));
        std::fs::write(&ours, &out).expect("write temp cubin");
        let orig = orig_dir.join(format!("{name}.cubin"));
        let sort_symbols = !c.globals.symbols.is_empty();
        assert_eq!(
            normalize_elf_dump(&run(&cuobjdump, &["-elf"], &ours), sort_symbols),
            normalize_elf_dump(&run(&cuobjdump, &["-elf"], &orig), sort_symbols),
            "{name}: cuobjdump -elf"
        );
        for args in [&["-res-usage"][..], &["-sass"][..]] {
            assert_eq!(
                run(&cuobjdump, args, &ours),
                run(&cuobjdump, args, &orig),
                "{name}: cuobjdump {args:?}"
            );
        }
        assert_eq!(
            run(&nvdisasm, &[], &ours),
            run(&nvdisasm, &[], &orig),
            "{name}: nvdisasm"
        );
    };
    // The tools dominate the run time: spread the cubins over a few threads.
    let corpus = corpus();
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get().clamp(2, 4));
    let chunk = corpus.len().div_ceil(threads);
    std::thread::scope(|s| {
        for part in corpus.chunks(chunk) {
            let check = &check;
            s.spawn(move || {
                for (name, bytes) in part {
                    check(name, bytes);
                }
            });
        }
    });
    let _ = std::fs::remove_dir_all(&dir);
    assert!(corpus.len() >= 40, "only {} cubins compared", corpus.len());
}

/// The IL meaning of `synthetic`'s parameters.
fn synthetic_abi() -> IlcAbi {
    let p = |offset, size, role| AbiParam { offset, size, role };
    IlcAbi {
        params: vec![
            p(0, 8, ParamRole::UavAddress(0)),
            p(8, 8, ParamRole::UavSize(0)),
            p(16, 4, ParamRole::ConstBuffer(1)),
            p(24, 8, ParamRole::GlobalAddress),
        ],
    }
}

/// A kernel borrowing iadd's code, with metadata of our choosing.
fn synthetic(name: &str) -> Kernel {
    let bytes = std::fs::read(corpus_dir().join("cubins/iadd.cubin")).expect("corpus file");
    let iadd = read_cubin(&bytes).expect("iadd reads").kernels.remove(0);
    Kernel {
        name: name.to_string(),
        code: iadd.code,
        num_regs: 40,
        num_barriers: 1,
        params: vec![
            Param::new(0, 8),
            Param::new(8, 8),
            Param::new(16, 4),
            Param::new(24, 8),
        ],
        shared_size: 4096,
        shared_align: 16,
        local_size: 64,
        block_size: Some([64, 2, 1]),
        exit_offsets: iadd.exit_offsets,
        s2rctaid_offsets: iadd.s2rctaid_offsets,
        ilc_abi: Some(synthetic_abi().encode()),
        ..Kernel::default()
    }
}

#[test]
fn synthetic_kernels_round_trip() {
    for arch in [Sm::Sm50, Sm::Sm52, Sm::Sm53] {
        let mut second = synthetic("second_kernel");
        second.block_size = None;
        second.max_threads = Some([256, 1, 1]);
        second.shared_size = 0;
        second.shared_align = 0;
        second.ilc_abi = None;
        second.num_barriers = 0;
        let kernels = vec![synthetic("first"), second];
        let bytes = write_cubin(arch, &kernels).expect("writes");
        let c = read_cubin(&bytes).expect("reads back");
        assert_eq!(c.arch, arch);
        assert_eq!(c.virtual_arch, arch.number());
        assert_eq!(c.kernels.len(), 2);
        let abi = c.kernels[0].ilc_abi.as_deref().expect(".ilc.abi section");
        assert_eq!(IlcAbi::decode(abi), Ok(synthetic_abi()));
        for (got, want) in c.kernels.iter().zip(&kernels) {
            assert_eq!(got.const0.len() as u32, 0x140 + want.param_size());
            let mut got = got.clone();
            got.const0.clear();
            got.min_stack_size = None;
            assert_eq!(&got, want);
        }
    }
}

#[test]
fn synthetic_kernels_accepted_by_nvidia_tools() {
    let (Some(cuobjdump), Some(nvdisasm)) = (tool("cuobjdump"), tool("nvdisasm")) else {
        return;
    };
    let dir = scratch("synthetic");
    for arch in [Sm::Sm50, Sm::Sm52, Sm::Sm53] {
        let mut second = synthetic("second_kernel");
        second.block_size = None;
        second.max_threads = Some([256, 1, 1]);
        second.shared_size = 0;
        let path = dir.join(format!("{arch}.cubin"));
        let bytes = write_cubin(arch, &[synthetic("first"), second]).expect("writes");
        std::fs::write(&path, bytes).expect("write temp cubin");
        let elf = run(&cuobjdump, &["-elf"], &path);
        assert!(elf.contains(&format!("sm={}", arch.number())), "{elf}");
        assert!(elf.contains("EIATTR_REQNTID"), "{elf}");
        assert!(elf.contains("Value:\t0x40 0x2 0x1"), "{elf}");
        assert!(elf.contains("EIATTR_MAX_THREADS"), "{elf}");
        assert!(elf.contains(".ilc.abi.first"), "{elf}");
        assert!(
            elf.contains("bar = 1\treg = 40\tlmem=0\tsmem=4096"),
            "{elf}"
        );
        let usage = res_usage(&run(&cuobjdump, &["-res-usage"], &path));
        assert_eq!(usage.len(), 2, "{usage:?}");
        for (f, fields) in &usage {
            assert_eq!(field(fields, "REG"), 40, "{f}");
            assert_eq!(field(fields, "STACK"), 64, "{f}");
            assert_eq!(field(fields, "CONSTANT[0]"), 0x140 + 32, "{f}");
        }
        let shared = |f: &str| {
            usage
                .iter()
                .find(|(n, _)| n == f)
                .map(|(_, v)| field(v, "SHARED"))
        };
        assert_eq!(shared("first"), Some(4096));
        assert_eq!(shared("second_kernel"), Some(0));
        let cuobjdump_sass = run(&cuobjdump, &["-sass"], &path);
        assert!(
            cuobjdump_sass.contains("Function : first")
                && cuobjdump_sass.contains("Function : second_kernel"),
            "{cuobjdump_sass}"
        );
        let sass = run(&nvdisasm, &[], &path);
        assert!(
            sass.contains(".text.first:") && sass.contains(".text.second_kernel:"),
            "{sass}"
        );
        assert!(sass.contains("EXIT"), "{sass}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn writer_rejects_what_it_cannot_express() {
    let ok = synthetic("k");
    type Mutation = Box<dyn Fn(&mut Kernel)>;
    let cases: Vec<(&str, Mutation)> = vec![
        ("empty name", Box::new(|k| k.name.clear())),
        ("code not in bundles", Box::new(|k| k.code.truncate(3))),
        ("256 registers", Box::new(|k| k.num_regs = 256)),
        ("17 barriers", Box::new(|k| k.num_barriers = 17)),
        ("empty param", Box::new(|k| k.params[0].size = 0)),
        (
            "params past 4 KiB",
            Box::new(|k| k.params.push(Param::new(4096, 4))),
        ),
        (
            "exit outside code",
            Box::new(|k| k.exit_offsets.push(0x10_0000)),
        ),
        ("misaligned exit", Box::new(|k| k.exit_offsets.push(4))),
        ("bad shared alignment", Box::new(|k| k.shared_align = 24)),
        (
            "huge shared alignment",
            Box::new(|k| k.shared_align = 1 << 20),
        ),
    ];
    for (what, mutate) in cases {
        let mut k = ok.clone();
        mutate(&mut k);
        let e = write_cubin(Sm::Sm50, &[k]);
        assert!(
            matches!(e, Err(CubinError::InvalidKernel { .. })),
            "{what}: {e:?}"
        );
    }
    let dup = write_cubin(Sm::Sm50, &[ok.clone(), ok.clone()]);
    assert!(
        matches!(dup, Err(CubinError::InvalidKernel { .. })),
        "{dup:?}"
    );
    assert!(matches!(
        write_cubin(Sm::Sm50, &[]),
        Err(CubinError::Unsupported(_))
    ));
}

/// One TOML table as (key, raw value text) pairs.
type Table = Vec<(String, String)>;

/// Key/value pairs of a launch description: the top-level table, then one per `[[param]]`.
/// Handles exactly the subset `gen_toml.py` writes (`key = value` lines, a `"""` string).
fn toml_tables(text: &str) -> (Table, Vec<Table>) {
    let mut top = Vec::new();
    let mut params: Vec<Table> = Vec::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if line == "[[param]]" {
            params.push(Vec::new());
            continue;
        }
        let (k, v) = line
            .split_once(" = ")
            .unwrap_or_else(|| panic!("bad line `{line}`"));
        let mut v = v.to_string();
        if v == "\"\"\"" {
            v.clear();
            for l in lines.by_ref() {
                if l == "\"\"\"" {
                    break;
                }
                v.push_str(l);
                v.push('\n');
            }
        }
        match params.last_mut() {
            Some(p) => p.push((k.to_string(), v)),
            None => top.push((k.to_string(), v)),
        }
    }
    (top, params)
}

fn toml_ints(v: &str) -> Vec<i64> {
    v.trim_matches(|c| c == '[' || c == ']')
        .split(',')
        .map(|x| {
            x.trim()
                .parse()
                .unwrap_or_else(|_| panic!("not an integer list: {v}"))
        })
        .collect()
}

#[test]
fn launch_descriptions_are_complete() {
    const TYPES: [(&str, u32); 6] = [
        ("i32", 4),
        ("u32", 4),
        ("f32", 4),
        ("i64", 8),
        ("u64", 8),
        ("f64", 8),
    ];
    for (name, _) in corpus() {
        let text = std::fs::read_to_string(corpus_dir().join(format!("{name}.toml")))
            .expect("launch description");
        let (top, params) = toml_tables(&text);
        let get = |t: &[(String, String)], k: &str| {
            t.iter()
                .find(|(key, _)| key == k)
                .map(|(_, v)| v.clone())
                .unwrap_or_else(|| panic!("{name}: missing `{k}`"))
        };
        assert_eq!(get(&top, "kernel"), format!("\"{name}\""));
        let cubin = get(&top, "cubin");
        assert!(
            corpus_dir().join(cubin.trim_matches('"')).is_file(),
            "{name}: {cubin}"
        );
        let block = toml_ints(&get(&top, "block"));
        let grid = toml_ints(&get(&top, "grid"));
        assert!(
            block.len() == 3 && block.iter().all(|&b| b >= 1),
            "{name}: block"
        );
        assert!(
            (1..=1024).contains(&block.iter().product::<i64>()),
            "{name}: block"
        );
        assert!(
            grid.len() == 3 && grid.iter().all(|&g| g >= 1),
            "{name}: grid"
        );
        assert!(get(&top, "reference").len() > 20, "{name}: reference");
        assert!(!params.is_empty(), "{name}: no parameters");
        for p in &params {
            let pname = get(p, "name");
            let size: u32 = get(p, "size").parse().expect("size");
            match get(p, "kind").as_str() {
                "\"buffer\"" => {
                    assert_eq!(size, 8, "{name}.{pname}");
                    let elem = get(p, "elem");
                    assert!(
                        TYPES.iter().any(|(t, _)| elem == format!("\"{t}\"")),
                        "{name}.{pname}"
                    );
                    let len: usize = get(p, "len").parse().expect("len");
                    assert!(len >= 1, "{name}.{pname}");
                    let io = get(p, "io");
                    assert!(
                        ["\"in\"", "\"out\"", "\"inout\""].contains(&io.as_str()),
                        "{name}.{pname}"
                    );
                    match get(p, "init").as_str() {
                        "\"zero\"" | "\"random\"" | "\"iota\"" => {}
                        "\"values\"" => {
                            let values = get(p, "values");
                            assert_eq!(values.split(',').count(), len, "{name}.{pname}: values");
                        }
                        other => panic!("{name}.{pname}: init {other}"),
                    }
                }
                "\"scalar\"" => {
                    let ty = get(p, "type");
                    let (_, tsize) = TYPES
                        .iter()
                        .find(|(t, _)| ty == format!("\"{t}\""))
                        .unwrap_or_else(|| panic!("{name}.{pname}: type {ty}"));
                    assert_eq!(size, *tsize, "{name}.{pname}");
                    get(p, "value");
                }
                other => panic!("{name}.{pname}: kind {other}"),
            }
        }
    }
}

#[test]
fn scanned_instruction_offsets_match_ptxas() {
    for (name, bytes) in corpus() {
        let c = read_cubin(&bytes).expect("corpus cubin reads");
        let k = &c.kernels[0];
        let (exits, ctaid) = scan_instr_offsets(&k.code);
        assert_eq!(exits, k.exit_offsets, "{name}: EXIT offsets");
        assert_eq!(ctaid, k.s2rctaid_offsets, "{name}: S2R SR_CTAID offsets");
    }
}

#[test]
fn sm52_and_sm53_cubins_round_trip() {
    let files = ilc_test_support::corpus("tests/cuda/cubins-arch", "cubin", 8);
    let tools = (tool("cuobjdump"), tool("nvdisasm"));
    let scratch_dir = scratch("arch");
    for path in files {
        let file = path
            .file_name()
            .expect("file name")
            .to_string_lossy()
            .into_owned();
        let arch: Sm = file
            .split('.')
            .nth(1)
            .expect("NAME.sm_5x.cubin")
            .parse()
            .expect("arch");
        let bytes = std::fs::read(&path).expect("readable cubin");
        let (c, out) = rewrite(&file, &bytes);
        assert_eq!((c.arch, c.virtual_arch), (arch, 50), "{file}");
        assert_eq!(
            read_cubin(&out).expect("rewritten cubin reads"),
            c,
            "{file}"
        );
        if let (Some(cuobjdump), Some(nvdisasm)) = &tools {
            let ours = scratch_dir.join(&file);
            std::fs::write(&ours, &out).expect("write temp cubin");
            assert_eq!(
                normalize_elf_dump(&run(cuobjdump, &["-elf"], &ours), false),
                normalize_elf_dump(&run(cuobjdump, &["-elf"], &path), false),
                "{file}: cuobjdump -elf"
            );
            assert_eq!(
                run(nvdisasm, &[], &ours),
                run(nvdisasm, &[], &path),
                "{file}: nvdisasm"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&scratch_dir);
}

#[test]
fn multi_kernel_cubin_round_trips() {
    let path = corpus_dir().join("cubins-multi/three_kernels.cubin");
    let bytes = std::fs::read(&path).expect("corpus file");
    let (c, out) = rewrite("three_kernels", &bytes);
    let names: Vec<&str> = c.kernels.iter().map(|k| k.name.as_str()).collect();
    // ptxas emits the kernels in reverse source order; the reader keeps file order.
    assert_eq!(names, ["stage_c", "stage_b", "stage_a"]);
    let k = |n: &str| c.kernel(n).expect("kernel present");
    assert_eq!(k("stage_a").shared_size, 64 * 4);
    assert_eq!(k("stage_b").shared_size, 32 * 4);
    assert_eq!(k("stage_c").shared_size, 0);
    assert_eq!(k("stage_b").max_threads, Some([128, 1, 1]));
    assert_eq!(k("stage_c").max_threads, Some([256, 1, 1]));
    assert!(k("stage_c").max_reg_count.is_some_and(|r| r < 255));
    assert_eq!(k("stage_a").max_threads, None);
    assert_eq!(k("stage_a").params, [Param::new(0, 8), Param::new(8, 4)]);
    assert_eq!(read_cubin(&out).expect("rewritten cubin reads"), c);
    let (Some(cuobjdump), Some(nvdisasm)) = (tool("cuobjdump"), tool("nvdisasm")) else {
        return;
    };
    let dir = scratch("multi");
    let ours = dir.join("three_kernels.cubin");
    std::fs::write(&ours, &out).expect("write temp cubin");
    assert_eq!(
        normalize_elf_dump(&run(&cuobjdump, &["-elf"], &ours), false),
        normalize_elf_dump(&run(&cuobjdump, &["-elf"], &path), false),
        "cuobjdump -elf"
    );
    for args in [&["-res-usage"][..], &["-sass"][..]] {
        assert_eq!(
            run(&cuobjdump, args, &ours),
            run(&cuobjdump, args, &path),
            "{args:?}"
        );
    }
    assert_eq!(
        run(&nvdisasm, &[], &ours),
        run(&nvdisasm, &[], &path),
        "nvdisasm"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn changed_metadata_shows_in_nvidia_tools() {
    let Some(cuobjdump) = tool("cuobjdump") else {
        return;
    };
    let mut rng = Rng::new(0x5eed_1234_abcd_0001);
    let mut next = |n: u64| rng.below(n);
    let dir = scratch("meta");
    for (name, bytes) in corpus().into_iter().step_by(6) {
        let mut c = read_cubin(&bytes).expect("corpus cubin reads");
        let k = &mut c.kernels[0];
        k.num_regs = 1 + next(255) as u32;
        k.shared_size = 4 * next(4096) as u32;
        k.local_size = 8 * next(512) as u32;
        k.min_stack_size = None;
        k.num_barriers = next(17) as u32;
        let block = [1 + next(64) as u32, 1 + next(4) as u32, 1 + next(4) as u32];
        k.block_size = Some(block);
        let want = k.clone();
        let path = dir.join(format!("{name}.cubin"));
        std::fs::write(&path, CubinWriter::from_cubin(&c).write().expect("writes")).expect("write");
        let usage = res_usage(&run(&cuobjdump, &["-res-usage"], &path));
        let fields = &usage.first().expect("one function").1;
        assert_eq!(field(fields, "REG"), u64::from(want.num_regs), "{name}");
        assert_eq!(
            field(fields, "SHARED"),
            u64::from(want.shared_size),
            "{name}"
        );
        assert_eq!(field(fields, "STACK"), u64::from(want.local_size), "{name}");
        let elf = run(&cuobjdump, &["-elf"], &path);
        let header = format!(
            "bar = {}\treg = {}\tlmem=0\tsmem={}",
            want.num_barriers, want.num_regs, want.shared_size
        );
        assert!(elf.contains(&header), "{name}: no `{header}` in\n{elf}");
        let reqntid = format!(
            "EIATTR_REQNTID\n\tFormat:\tEIFMT_SVAL\n\tValue:\t{:#x} {:#x} {:#x} ",
            block[0], block[1], block[2]
        );
        assert!(elf.contains(&reqntid), "{name}: no `{reqntid}` in\n{elf}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
