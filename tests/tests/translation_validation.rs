//! Translation validation of the IL -> IR lowering over the kernel corpus.
//!
//! For every `tests/kernels/*.il`: parse, lower (`ilc::lower`), verify the IR, then
//! - with a case folder beside the kernel (`NAME/`: `grid.txt`, `uavN.bin`, `cbN.bin`,
//!   `expect_uavN.bin`, `tolerance.txt`): run the IR interpreter on the case's inputs and
//!   compare with the expected outputs and with the IL interpreter;
//! - on seeded random inputs: IR interpreter == IL interpreter (all three IR schedules);
//! - the same after each optimization pass of `ilc_passes` (dce, copy_prop, const_fold,
//!   simplify_cfg, gvn), re-verifying the IR after every pass.
//!
//! Kernels the lowering rejects must be rejected with a diagnostic naming an opcode; the
//! test reports them and fails if a kernel the IL interpreter runs is rejected for a
//! reason other than a documented unsupported construct.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use ilc::lower::validate::{self, Buffers, Outputs, Tolerance};
use ilc_passes::ir::Function;
use ilc_test_support::Rng;
use isa_amdil::ast::{Payload, Program, RegKind};
use isa_amdil::opcodes::Precision;

fn kernels_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("kernels")
}

fn kernel_files() -> Vec<PathBuf> {
    ilc_test_support::corpus(kernels_dir(), "il", 40)
}

/// A word mixing small ints, ordinary floats and arbitrary bits.
fn random_word(rng: &mut Rng) -> u32 {
    let r = rng.next_u64();
    match r % 4 {
        0 => (r >> 8) as u32 % 64,
        1 | 2 => ((((r >> 8) % 20_000) as f32 - 10_000.0) / 100.0).to_bits(),
        _ => (r >> 16) as u32,
    }
}

fn random_bytes(rng: &mut Rng, n: usize) -> Vec<u8> {
    (0..n / 4)
        .flat_map(|_| random_word(rng).to_le_bytes())
        .collect()
}

/// Declared resources of a program: UAV ids, cb sizes (bytes), uses of `g[]`.
fn resources(p: &Program) -> (Vec<u32>, BTreeMap<u32, usize>, bool) {
    let mut uavs = Vec::new();
    let mut cbs = BTreeMap::new();
    let mut global = false;
    for st in &p.statements {
        let name = st.opcode.mnemonic();
        if name.starts_with("dcl_") && name.contains("uav") {
            uavs.push(st.id().unwrap_or(0));
        }
        if let Payload::ConstBuffer { cb, size } = &st.payload {
            cbs.insert(*cb, (*size as usize).max(1) * 16);
        }
        for r in st.regs() {
            if r.kind == RegKind::Global {
                global = true;
            }
        }
    }
    uavs.sort_unstable();
    uavs.dedup();
    (uavs, cbs, global)
}

fn parse(path: &Path) -> Program {
    let text = std::fs::read_to_string(path).unwrap();
    let (prog, diags) = isa_amdil::parse(&text);
    match prog {
        Some(p) => p,
        None => panic!("{}: parse failed: {diags:?}", path.display()),
    }
}

fn read_words_file(p: &Path) -> Option<String> {
    std::fs::read_to_string(p).ok()
}

struct Case {
    grid: [u32; 3],
    bufs: Buffers,
    expect: BTreeMap<u32, Vec<u8>>,
    tol: BTreeMap<u32, Tolerance>,
}

fn parse_tolerances(text: &str) -> BTreeMap<u32, Tolerance> {
    let mut tol = BTreeMap::new();
    for line in text.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() < 3 {
            continue;
        }
        let Some(id) = f[0].strip_prefix("uav").and_then(|s| s.parse::<u32>().ok()) else {
            continue;
        };
        let t = match (f[1], f[2]) {
            (_, "exact") => Tolerance::Exact,
            ("f32", "ulp") => Tolerance::F32Ulp(f.get(3).and_then(|s| s.parse().ok()).unwrap_or(0)),
            ("f32", "abs") => {
                Tolerance::F32Abs(f.get(3).and_then(|s| s.parse().ok()).unwrap_or(0.0))
            }
            _ => Tolerance::Exact,
        };
        tol.insert(id, t);
    }
    tol
}

fn load_case(dir: &Path) -> Option<Case> {
    if !dir.is_dir() {
        return None;
    }
    let grid = read_words_file(&dir.join("grid.txt")).map_or([1, 1, 1], |t| {
        let mut g = [1u32; 3];
        for (i, x) in t.trim().split(',').enumerate().take(3) {
            g[i] = x.trim().parse().unwrap_or(1);
        }
        g
    });
    let mut bufs = Buffers::default();
    let mut expect = BTreeMap::new();
    for e in std::fs::read_dir(dir).ok()?.flatten() {
        let name = e.file_name().to_string_lossy().to_string();
        let num = |prefix: &str| {
            name.strip_prefix(prefix)
                .and_then(|s| s.strip_suffix(".bin"))
                .and_then(|s| s.parse::<u32>().ok())
        };
        let bytes = || std::fs::read(e.path()).unwrap_or_default();
        if let Some(n) = num("uav") {
            bufs.uavs.insert(n, bytes());
        } else if let Some(n) = num("cb") {
            bufs.cbs.insert(n, bytes());
        } else if let Some(n) = num("expect_uav") {
            expect.insert(n, bytes());
        } else if name == "g.bin" {
            bufs.global = Some(bytes());
        }
    }
    let tol = read_words_file(&dir.join("tolerance.txt"))
        .map(|t| parse_tolerances(&t))
        .unwrap_or_default();
    Some(Case {
        grid,
        bufs,
        expect,
        tol,
    })
}

fn random_case(p: &Program, seed: u64) -> Buffers {
    let mut rng = Rng::new(seed);
    let (uavs, cbs, global) = resources(p);
    let mut b = Buffers::default();
    for id in uavs {
        b.uavs.insert(id, random_bytes(&mut rng, 4096));
    }
    for (id, size) in cbs {
        b.cbs
            .insert(id, random_bytes(&mut rng, size.div_ceil(4) * 4));
    }
    if global {
        b.global = Some(random_bytes(&mut rng, 4096));
    }
    b
}

type Pass = (&'static str, fn(&mut Function));

fn passes() -> Vec<Pass> {
    vec![
        ("dce", ilc_passes::dce::run),
        ("copy_prop", ilc_passes::copy_prop::run),
        ("const_fold", ilc_passes::const_fold::run),
        ("simplify_cfg", ilc_passes::simplify_cfg::run),
        ("gvn", ilc_passes::gvn::run),
        ("licm", ilc_passes::licm::run),
        ("strength_reduce", ilc_passes::strength_reduce::run),
        ("addr_fold", ilc_passes::addr_fold::run),
        ("mem_combine", ilc_passes::mem_combine::run),
        ("if_convert", ilc_passes::if_convert::run),
        ("dce", ilc_passes::dce::run),
    ]
}

/// Tolerance for random inputs: exact unless the kernel uses an opcode whose result the guide
/// leaves approximate ([`isa_amdil::Opcode::precision`]).
fn random_tolerance(p: &Program, case_tol: &BTreeMap<u32, Tolerance>) -> BTreeMap<u32, Tolerance> {
    let approx = p
        .statements
        .iter()
        .any(|st| st.opcode.precision() != Precision::Exact);
    let double = p.statements.iter().any(|st| {
        matches!(
            st.opcode.mnemonic(),
            "dadd"
                | "dmul"
                | "ddiv"
                | "dmad"
                | "dmax"
                | "dmin"
                | "dfrac"
                | "dsqrt"
                | "dmov"
                | "drcp"
                | "drsq"
                | "d2f"
                | "f2d"
                | "dmovc"
                | "dfrexp"
                | "dldexp"
        )
    });
    let default = if approx {
        Tolerance::F32Ulp(4)
    } else if double {
        Tolerance::F64Exact
    } else {
        Tolerance::Exact
    };
    let (uavs, _, _) = resources(p);
    uavs.into_iter()
        .map(|id| (id, case_tol.get(&id).copied().unwrap_or(default)))
        .collect()
}

fn check_all(path: &Path, p: &Program, func: &Function) -> Vec<String> {
    let mut errs = Vec::new();
    let name = path.file_stem().unwrap().to_string_lossy().to_string();
    let case = load_case(&path.with_extension(""));
    let case_tol = case.as_ref().map(|c| c.tol.clone()).unwrap_or_default();
    if let Some(c) = &case {
        // Only buffers with an expectation are compared.
        let expected_only = |out: Outputs| Outputs {
            uavs: out
                .uavs
                .into_iter()
                .filter(|(k, _)| c.expect.contains_key(k))
                .collect(),
            global: None,
            ps_outputs: Default::default(),
        };
        match validate::run_ir(func, c.grid, &c.bufs, Default::default()) {
            Ok(out) => {
                let exp = Outputs {
                    uavs: c.expect.clone(),
                    global: None,
                    ps_outputs: Default::default(),
                };
                let got = expected_only(out);
                if let Err(e) = validate::compare_outputs(&exp, &got, &c.tol) {
                    // Blame the lowering only when the reference interpreter meets the
                    // expectation; otherwise the case (or the interpreter) is at fault and
                    // the IL-vs-IR comparison below still checks the lowering.
                    let il_ok = validate::run_il(p, c.grid, &c.bufs).is_ok_and(|il| {
                        validate::compare_outputs(&exp, &expected_only(il), &c.tol).is_ok()
                    });
                    if il_ok {
                        errs.push(format!("{name}: case expectations: {e}"));
                    } else {
                        eprintln!(
                            "WARNING: {name}: the IL interpreter misses the case expectations \
                             too (not a lowering bug): {e}"
                        );
                    }
                }
            }
            Err(e) => errs.push(format!("{name}: case run: {e}")),
        }
        if let Err(e) = validate::check_equivalent(p, func, c.grid, &c.bufs, &c.tol) {
            errs.push(format!("{name}: case IL vs IR: {e}"));
        }
    }
    let tol = random_tolerance(p, &case_tol);
    for seed in [1u64, 0x9E37_79B9, 12345] {
        let bufs = random_case(p, seed);
        let grid = case.as_ref().map_or([2, 1, 1], |c| c.grid);
        match validate::run_il(p, grid, &bufs) {
            Err(e) if e.contains("fuel") => continue,
            Err(e) => {
                errs.push(format!(
                    "{name}: IL interpreter failed on random inputs: {e}"
                ));
                continue;
            }
            Ok(_) => {}
        }
        if let Err(e) = validate::check_equivalent(p, func, grid, &bufs, &tol) {
            errs.push(format!("{name}: random seed {seed}: {e}"));
        }
    }
    errs
}

#[test]
fn corpus_lowers_and_matches_the_il_interpreter() {
    let files = kernel_files();
    let mut failures = Vec::new();
    let mut lowered = 0;
    for path in &files {
        let p = parse(path);
        let name = path.file_stem().unwrap().to_string_lossy().to_string();
        let func = match ilc::lower::lower(&p) {
            Ok(f) => f,
            Err(e) => {
                failures.push(format!("{name}: lowering failed:\n{e}"));
                continue;
            }
        };
        if let Err(e) = ilc_passes::verifier::verify_function(&func) {
            failures.push(format!("{name}: verifier:\n{}", e.display_with(&func)));
            continue;
        }
        lowered += 1;
        failures.extend(check_all(path, &p, &func));
    }
    eprintln!(
        "translation validation: {lowered} of {} kernels lowered",
        files.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn corpus_matches_after_every_pass() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for path in &kernel_files() {
        let p = parse(path);
        let name = path.file_stem().unwrap().to_string_lossy().to_string();
        // A kernel that does not lower fails the test above.
        let Ok(mut func) = ilc::lower::lower(&p) else {
            continue;
        };
        let bufs = random_case(&p, 7);
        let grid = load_case(&path.with_extension("")).map_or([2, 1, 1], |c| c.grid);
        if validate::run_il(&p, grid, &bufs).is_err() {
            continue;
        }
        checked += 1;
        let tol = random_tolerance(&p, &BTreeMap::new());
        for (pass, run) in passes() {
            run(&mut func);
            if let Err(e) = ilc_passes::verifier::verify_function(&func) {
                failures.push(format!(
                    "{name}: verifier after {pass}:\n{}",
                    e.display_with(&func)
                ));
                break;
            }
            if let Err(e) = validate::check_equivalent(&p, &func, grid, &bufs, &tol) {
                failures.push(format!("{name}: after {pass}: {e}"));
                break;
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // Most kernels run on random inputs (the rest exhaust their fuel or need case inputs).
    assert!(
        checked >= 40,
        "only {checked} kernels ran through the pass chain"
    );
}
