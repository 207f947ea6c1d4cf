//! Test cases of the IL kernel corpus (`tests/kernels/NAME.il` + case folder `NAME/`,
//! DESIGN.md section 4): loading the inputs and expected outputs, and comparing buffers
//! with the tolerances of `tolerance.txt`. Shared by the interpreter, emulator and
//! differential tests.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use ilc_passes::interp::bytes_to_words;
use isa_amdil::interp::Dispatch;

/// The directory of the IL kernel corpus.
pub fn kernels_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("kernels")
}

/// How one output buffer is compared.
#[derive(Clone, Copy, Debug, PartialEq)]
#[allow(missing_docs)]
pub enum Tol {
    Exact,
    F32Ulp(u32),
    F32Abs(f32),
    F64Ulp(u64),
    F64Abs(f64),
}

pub fn parse_tolerance(text: &str) -> Result<BTreeMap<String, Tol>, String> {
    let mut m = BTreeMap::new();
    for line in text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
    {
        let w: Vec<&str> = line.split_whitespace().collect();
        let bad = || format!("bad tolerance line `{line}`");
        let tol = match w.as_slice() {
            [_, _, "exact"] => Tol::Exact,
            [_, "u32", ..] => Tol::Exact,
            [_, "f32", "ulp", n] => Tol::F32Ulp(n.parse().map_err(|_| bad())?),
            [_, "f32", "abs", e] => Tol::F32Abs(e.parse().map_err(|_| bad())?),
            [_, "f64", "ulp", n] => Tol::F64Ulp(n.parse().map_err(|_| bad())?),
            [_, "f64", "abs", e] => Tol::F64Abs(e.parse().map_err(|_| bad())?),
            _ => return Err(bad()),
        };
        m.insert(w[0].to_string(), tol);
    }
    Ok(m)
}

/// Distance in units in the last place between two floats given as ordered integers.
pub fn ulp32(a: u32, b: u32) -> u64 {
    let key = |x: u32| -> i64 {
        if x & 0x8000_0000 != 0 {
            -((x & 0x7FFF_FFFF) as i64)
        } else {
            x as i64
        }
    };
    key(a).abs_diff(key(b))
}

pub fn ulp64(a: u64, b: u64) -> u128 {
    let key = |x: u64| -> i128 {
        if x >> 63 != 0 {
            -((x & !(1 << 63)) as i128)
        } else {
            x as i128
        }
    };
    key(a).abs_diff(key(b))
}

/// Compares one buffer; returns a description of the first mismatches.
pub fn compare(name: &str, got: &[u8], want: &[u8], tol: Tol) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!(
            "{name}: {} bytes, expected {}",
            got.len(),
            want.len()
        ));
    }
    let (g, w) = (bytes_to_words(got), bytes_to_words(want));
    let mut bad = Vec::new();
    let step = if matches!(tol, Tol::F64Ulp(_) | Tol::F64Abs(_)) {
        2
    } else {
        1
    };
    let mut i = 0;
    while i < w.len() {
        let ok = match tol {
            Tol::Exact => g[i] == w[i],
            Tol::F32Ulp(n) => {
                let (x, y) = (f32::from_bits(g[i]), f32::from_bits(w[i]));
                g[i] == w[i] || (x.is_nan() && y.is_nan()) || ulp32(g[i], w[i]) <= n as u64
            }
            Tol::F32Abs(e) => {
                let (x, y) = (f32::from_bits(g[i]), f32::from_bits(w[i]));
                g[i] == w[i] || (x.is_nan() && y.is_nan()) || (x - y).abs() <= e
            }
            Tol::F64Ulp(_) | Tol::F64Abs(_) if i + 1 >= w.len() => g[i] == w[i],
            Tol::F64Ulp(n) => {
                let (x, y) = (
                    (g[i + 1] as u64) << 32 | g[i] as u64,
                    (w[i + 1] as u64) << 32 | w[i] as u64,
                );
                x == y
                    || (f64::from_bits(x).is_nan() && f64::from_bits(y).is_nan())
                    || ulp64(x, y) <= n as u128
            }
            Tol::F64Abs(e) => {
                let x = f64::from_bits((g[i + 1] as u64) << 32 | g[i] as u64);
                let y = f64::from_bits((w[i + 1] as u64) << 32 | w[i] as u64);
                x == y || (x.is_nan() && y.is_nan()) || (x - y).abs() <= e
            }
        };
        if !ok && bad.len() < 8 {
            bad.push(format!(
                "word {i}: got {:#010x}, expected {:#010x}",
                g[i], w[i]
            ));
        }
        i += step;
    }
    if bad.is_empty() {
        Ok(())
    } else {
        Err(format!("{name} ({tol:?}): {}", bad.join("; ")))
    }
}

/// A loaded case: the dispatch inputs and the expected outputs.
pub struct Case {
    pub name: String,
    pub source: String,
    pub dispatch: Dispatch,
    pub expect_uavs: BTreeMap<u32, Vec<u8>>,
    pub expect_g: Option<Vec<u8>>,
    pub tol: BTreeMap<String, Tol>,
}

pub fn load_case(il: &Path) -> Result<Case, String> {
    let name = il
        .file_stem()
        .unwrap_or_default()
        .to_string_lossy()
        .to_string();
    let dir = il.with_extension("");
    let source = fs::read_to_string(il).map_err(|e| format!("{}: {e}", il.display()))?;
    let grid_txt =
        fs::read_to_string(dir.join("grid.txt")).map_err(|e| format!("{name}: grid.txt: {e}"))?;
    let mut grid = [1u32; 3];
    for (slot, p) in grid.iter_mut().zip(grid_txt.trim().split(',')) {
        *slot = p
            .trim()
            .parse()
            .map_err(|_| format!("{name}: bad grid.txt"))?;
    }
    let mut d = Dispatch::new(grid);
    let mut expect_uavs = BTreeMap::new();
    let mut expect_g = None;
    let mut tol = BTreeMap::new();
    let entries = fs::read_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for e in entries {
        let e = e.map_err(|e| e.to_string())?;
        let f = e.file_name().to_string_lossy().to_string();
        let bytes = || fs::read(e.path()).map_err(|err| format!("{f}: {err}"));
        let id = |prefix: &str| -> Option<u32> {
            f.strip_prefix(prefix)?.strip_suffix(".bin")?.parse().ok()
        };
        if let Some(i) = id("expect_uav") {
            expect_uavs.insert(i, bytes()?);
        } else if let Some(i) = id("uav") {
            d.uavs.insert(i, bytes()?);
        } else if let Some(i) = id("cb") {
            d.cbs.insert(i, bytes()?);
        } else if f == "g.bin" {
            d.global = Some(bytes()?);
        } else if f == "expect_g.bin" {
            expect_g = Some(bytes()?);
        } else if f == "tolerance.txt" {
            let t = fs::read_to_string(e.path()).map_err(|err| err.to_string())?;
            tol = parse_tolerance(&t)?;
        }
    }
    if expect_uavs.is_empty() && expect_g.is_none() {
        return Err(format!("{name}: no expected outputs"));
    }
    Ok(Case {
        name,
        source,
        dispatch: d,
        expect_uavs,
        expect_g,
        tol,
    })
}

pub fn check_outputs(case: &Case, d: &Dispatch, how: &str) -> Vec<String> {
    let mut errs = Vec::new();
    for (id, want) in &case.expect_uavs {
        let key = format!("uav{id}");
        let t = case.tol.get(&key).copied().unwrap_or(Tol::Exact);
        match d.uavs.get(id) {
            Some(got) => {
                if let Err(e) = compare(&key, got, want, t) {
                    errs.push(format!("{} [{how}]: {e}", case.name));
                }
            }
            None => errs.push(format!("{} [{how}]: uav{id} missing", case.name)),
        }
    }
    if let Some(want) = &case.expect_g {
        let t = case.tol.get("g").copied().unwrap_or(Tol::Exact);
        match &d.global {
            Some(got) => {
                if let Err(e) = compare("g", got, want, t) {
                    errs.push(format!("{} [{how}]: {e}", case.name));
                }
            }
            None => errs.push(format!("{} [{how}]: g missing", case.name)),
        }
    }
    errs
}

pub fn corpus() -> Vec<PathBuf> {
    ilc_test_support::corpus(kernels_dir(), "il", 40)
}

/// The case of every kernel of [`corpus`]; a case that does not load is a failure in
/// `failures`.
pub fn load_cases(failures: &mut Vec<String>) -> Vec<Case> {
    corpus()
        .iter()
        .filter_map(|il| load_case(il).map_err(|e| failures.push(e)).ok())
        .collect()
}
