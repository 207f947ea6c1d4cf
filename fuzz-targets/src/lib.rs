//! The fuzz targets of ilc: each takes arbitrary bytes and panics only on a bug.
//!
//! | target | input | property |
//! | --- | --- | --- |
//! | [`il_text`] | IL source text | parse, validate and render diagnostics without a panic; what parses prints and re-parses to the same program; a valid program's binary tokens decode to it |
//! | [`il_binary`] | IL binary tokens (little-endian words) | decode and validate without a panic; what decodes and validates encodes, and decodes back to the same program |
//! | [`spa5_codec`] | SPA 5.0 instruction words | what decodes encodes, and the encoding decodes to the same instruction |
//! | [`cubin_read`] | a cubin | read without a panic; what reads is written back and reads again |
//! | [`regalloc`] | the choices of a random SSA function and register file size | the allocation succeeds, verifies and passes the allocation checker |
//! | [`compile_verify`] | the choices of a random IL kernel, optimization level, bounds mode | it compiles, and the emulated code matches the IL interpreter |
//!
//! Two drivers run them: the coverage-guided fuzzer in `../fuzz` (cargo-fuzz, libFuzzer) for
//! soaks, and the deterministic replay of `tests/replay.rs` (the committed corpus, the
//! project's own kernels and cubins as seeds, and seeded mutations of them), which the normal
//! test suite runs on a stable toolchain. [`seeds`] gives both the same starting inputs.

use arbitrary::Unstructured;
use ilc::options::{OptLevel, Options};
use ilc::Compiler;
use ilc_passes::ir::{PerRegFile, RegFile};
use ilc_passes::regalloc::testgen::{self, GenConfig};
use ilc_passes::regalloc::{self, checker, RegAllocOptions};
use ilc_passes::target::{TargetIsa, ToyTarget};
use ilc_tools::ilgen::{self, Outcome};
use isa_amdil::{decode_binary, encode_binary, parse_lossy, validate};
use isa_spa5::cubin::{read_cubin, CubinWriter};

/// A fuzz target: panics on a bug, returns on anything else.
pub type Target = fn(&[u8]);

/// Every target by name (the names of the cargo-fuzz binaries in `../fuzz/fuzz_targets`).
pub const TARGETS: &[(&str, Target)] = &[
    ("il_text", il_text),
    ("il_binary", il_binary),
    ("spa5_codec", spa5_codec),
    ("cubin_read", cubin_read),
    ("regalloc", regalloc),
    ("compile_verify", compile_verify),
];

/// IL text: see the table in the crate doc.
pub fn il_text(data: &[u8]) {
    let src = String::from_utf8_lossy(data);
    let (prog, diags) = parse_lossy(&src);
    for d in &diags {
        let _ = d.render("fuzz.il", &src);
    }
    let semantic = validate(&prog);
    for d in &semantic {
        let _ = d.render("fuzz.il", &src);
    }
    let printed = prog.to_string();
    let (again, diags) = parse_lossy(&printed);
    assert!(
        !diags.iter().any(|d| d.is_error()),
        "the printed program does not parse:\n{printed}\n{diags:?}"
    );
    assert_eq!(
        again, prog,
        "print and parse changed the program:\n{printed}"
    );
    if semantic.iter().any(|d| d.is_error()) {
        return;
    }
    if let Ok(words) = encode_binary(&prog) {
        assert_decodes_to(&words, &prog, "text -> binary -> text");
    }
}

/// `words`, our encoding of the valid `prog`, decode to `prog` (normalized: the decoder
/// supplies the controls the text may leave implicit).
fn assert_decodes_to(words: &[u32], prog: &isa_amdil::Program, what: &str) {
    let back = decode_binary(words)
        .unwrap_or_else(|e| panic!("{what}: our own encoding does not decode: {e}\n{prog}"));
    assert_eq!(
        back,
        isa_amdil::binary::normalize(prog),
        "{what} changed the program:\n{prog}"
    );
}

/// IL binary tokens: see the table in the crate doc.
pub fn il_binary(data: &[u8]) {
    let words: Vec<u32> = data
        .chunks(4)
        .map(|c| {
            let mut w = [0u8; 4];
            w[..c.len()].copy_from_slice(c);
            u32::from_le_bytes(w)
        })
        .collect();
    let Ok(prog) = decode_binary(&words) else {
        return;
    };
    if validate(&prog).iter().any(|d| d.is_error()) {
        return;
    }
    let again = encode_binary(&prog)
        .unwrap_or_else(|e| panic!("a decoded, valid program does not encode: {e:?}\n{prog}"));
    assert_decodes_to(&again, &prog, "binary -> binary");
}

/// SPA 5.0 instruction words: see the table in the crate doc.
pub fn spa5_codec(data: &[u8]) {
    for chunk in data.chunks(8) {
        let mut w = [0u8; 8];
        w[..chunk.len()].copy_from_slice(chunk);
        let word = u64::from_le_bytes(w);
        let Ok(inst) = isa_spa5::decode::decode(word) else {
            continue;
        };
        let again = isa_spa5::encode::encode(&inst).unwrap_or_else(|e| {
            panic!("{word:#018x} decodes to {inst:?} but does not encode: {e}")
        });
        let back = isa_spa5::decode::decode(again)
            .unwrap_or_else(|e| panic!("{word:#018x}: the re-encoding {again:#018x} fails: {e}"));
        assert_eq!(
            back, inst,
            "{word:#018x} -> {again:#018x} changed the instruction"
        );
    }
}

/// A cubin: see the table in the crate doc.
pub fn cubin_read(data: &[u8]) {
    let Ok(cubin) = read_cubin(data) else {
        return;
    };
    if let Ok(bytes) = CubinWriter::from_cubin(&cubin).write() {
        read_cubin(&bytes).unwrap_or_else(|e| panic!("a cubin we wrote does not read: {e}"));
    }
}

/// Register allocation: see the table in the crate doc.
pub fn regalloc(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok((gprs, preds, blocks, insts, target_ops)) = (|| {
        Ok::<_, arbitrary::Error>((
            u.int_in_range(12u32..=64)?,
            u.int_in_range(2u32..=7)?,
            u.int_in_range(1usize..=10)?,
            u.int_in_range(0usize..=16)?,
            u.arbitrary::<bool>()?,
        ))
    })() else {
        return;
    };
    let cfg = GenConfig {
        max_blocks: blocks,
        max_insts: insts,
        target_ops,
        ..GenConfig::default()
    };
    let orig = testgen::generate_from_bytes(u.take_rest(), &cfg);
    let target = ToyTarget::new(gprs, preds);
    let mut f = orig.clone();
    let opts = RegAllocOptions {
        check: false,
        ..RegAllocOptions::default()
    };
    let alloc = regalloc::run(&mut f, &target, &opts)
        .unwrap_or_else(|e| panic!("allocation with {gprs} GPRs failed: {e}\n{orig}"));
    if let Err(e) = ilc_passes::verifier::verify_function(&f) {
        panic!(
            "the allocated function does not verify: {}\n{orig}",
            e.display_with(&f)
        );
    }
    let limits = PerRegFile(RegFile::ALL.map(|file| target.num_regs(file)));
    if let Err(e) = checker::check(&orig, &f, &alloc, &target, limits) {
        panic!("the checker rejects the allocation: {e}\n{orig}");
    }
}

/// Compile and verify: see the table in the crate doc.
pub fn compile_verify(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok((level, in_bounds, size)) = (|| {
        Ok::<_, arbitrary::Error>((
            u.int_in_range(0u8..=3)?,
            u.arbitrary::<bool>()?,
            u.int_in_range(1u32..=40)?,
        ))
    })() else {
        return;
    };
    let opt_level = [OptLevel::O0, OptLevel::O1, OptLevel::O2, OptLevel::O3][usize::from(level)];
    let src = ilgen::generate_from_bytes(u.take_rest(), size, !in_bounds);
    let compiler = Compiler::new(Options {
        opt_level,
        kernel_name: Some("fuzz".into()),
        assume_in_bounds: in_bounds,
        ..Options::default()
    });
    if let Outcome::Fail(why) = ilgen::check(&compiler, &src, 2, 1) {
        panic!("{opt_level:?}, in bounds {in_bounds}: {why}\n--- kernel ---\n{src}");
    }
}

/// The starting inputs of `target` taken from the project's own files: the IL kernels (as
/// text, and as binary tokens), the code words and the cubins of the CUDA corpus. Targets
/// whose input is a choice stream ([`regalloc`], [`compile_verify`]) start from a few fixed
/// byte strings. Panics when a corpus folder is missing or too small.
pub fn seeds(target: &str) -> Vec<Vec<u8>> {
    use ilc_test_support::{corpus, corpus_bytes};
    let il = || {
        corpus("tests/kernels", "il", 40)
            .into_iter()
            .chain(corpus("tests/kernels_cal", "il", 15))
    };
    let cubins = || {
        corpus_bytes("tests/cuda/cubins", "cubin", 40)
            .into_iter()
            .map(|(_, b)| b)
    };
    match target {
        "il_text" => il().map(|p| read(&p)).collect(),
        "il_binary" => il()
            .filter_map(|p| {
                let (prog, _) = parse_lossy(&String::from_utf8_lossy(&read(&p)));
                let words = encode_binary(&prog).ok()?;
                Some(words.iter().flat_map(|w| w.to_le_bytes()).collect())
            })
            .collect(),
        "spa5_codec" => cubins()
            .filter_map(|b| {
                let c = read_cubin(&b).ok()?;
                let code = &c.kernels.first()?.code;
                Some(code.iter().flat_map(|w| w.to_le_bytes()).collect())
            })
            .collect(),
        "cubin_read" => cubins().collect(),
        "regalloc" | "compile_verify" => (0u8..16)
            .map(|k| {
                (0..64u8)
                    .map(|i| i.wrapping_mul(37).wrapping_add(k * 11))
                    .collect()
            })
            .collect(),
        other => panic!("no fuzz target {other}"),
    }
}

fn read(p: &std::path::Path) -> Vec<u8> {
    std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}
