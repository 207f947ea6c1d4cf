//! Launcher for the CUDA corpus of `tests/cuda/` on the SPA 5.0 emulator:
//! reads a kernel's launch description (`NAME.toml`: block, grid, `[[param]]` buffers and
//! scalars, format in tests/cuda/README.md), builds every input buffer deterministically from
//! a seed (xorshift64*), allocates the buffers on an `emu::Device`, patches their addresses and
//! the scalars into the parameter bytes, launches the committed ptxas cubin with hazard
//! checking on, and reads back every buffer. Also the comparison helpers the CPU references in
//! `cuda_ref` use (element-wise with the first 5 mismatches, bit patterns, ULP bounds).
//!
//! Errors are strings naming the kernel and the parameter or emulator error; nothing panics on
//! a malformed description except indexing a missing mandatory key (`elem`, `name`, ...),
//! which the corpus check in tests/cuda/gen_toml.py guarantees.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use isa_spa5::emu::{Device, LaunchConfig};

/// The CUDA corpus directory, `tests/cuda/`.
pub fn cuda_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("cuda")
}

pub use ilc_test_support::Rng;

/// A buffer's elements as raw 32- or 64-bit patterns.
#[derive(Clone, Debug)]
pub struct Buf {
    /// The `elem` of this buffer or run.
    pub elem: String,
    /// The `data` of this buffer or run.
    pub data: Vec<u64>,
}

impl Buf {
    pub fn size(&self) -> usize {
        if self.elem.ends_with("64") {
            8
        } else {
            4
        }
    }
    pub fn bytes(&self) -> Vec<u8> {
        let n = self.size();
        self.data
            .iter()
            .flat_map(|v| v.to_le_bytes()[..n].to_vec())
            .collect()
    }
    pub fn from_bytes(elem: &str, b: &[u8]) -> Buf {
        let n = if elem.ends_with("64") { 8 } else { 4 };
        let data = b
            .chunks_exact(n)
            .map(|c| {
                let mut w = [0u8; 8];
                w[..n].copy_from_slice(c);
                u64::from_le_bytes(w)
            })
            .collect();
        Buf {
            elem: elem.to_string(),
            data,
        }
    }
    pub fn i32s(&self) -> Vec<i32> {
        self.data.iter().map(|&v| v as u32 as i32).collect()
    }
    pub fn u32s(&self) -> Vec<u32> {
        self.data.iter().map(|&v| v as u32).collect()
    }
    pub fn f32s(&self) -> Vec<f32> {
        self.data
            .iter()
            .map(|&v| f32::from_bits(v as u32))
            .collect()
    }
    pub fn f64s(&self) -> Vec<f64> {
        self.data.iter().map(|&v| f64::from_bits(v)).collect()
    }
    pub fn i64s(&self) -> Vec<i64> {
        self.data.iter().map(|&v| v as i64).collect()
    }
}

/// One launch: inputs, the outputs after the run, scalars.
pub struct Run {
    /// The `inputs` of this buffer or run.
    pub inputs: BTreeMap<String, Buf>,
    /// The `outputs` of this buffer or run.
    pub outputs: BTreeMap<String, Buf>,
    /// The `scalars` of this buffer or run.
    pub scalars: BTreeMap<String, toml::Value>,
    /// The `grid` of this buffer or run.
    pub grid: [u32; 3],
    /// The `block` of this buffer or run.
    pub block: [u32; 3],
}

impl Run {
    pub fn input(&self, name: &str) -> &Buf {
        &self.inputs[name]
    }
    pub fn output(&self, name: &str) -> &Buf {
        &self.outputs[name]
    }
    pub fn int(&self, name: &str) -> i64 {
        self.scalars[name].as_integer().unwrap_or(0)
    }
}

/// Builds a buffer from its `[[param]]` entry: `init` zero, iota, values or random (with
/// `range` and `step`), deterministic for a given `rng` state.
pub fn gen_buffer(p: &toml::Table, rng: &mut Rng) -> Result<Buf, String> {
    let elem = p["elem"].as_str().ok_or("elem")?.to_string();
    let len = p["len"].as_integer().ok_or("len")? as usize;
    let init = p.get("init").and_then(|v| v.as_str()).unwrap_or("zero");
    let float = elem.starts_with('f');
    let wide = elem.ends_with("64");
    let bits = |f: f64| -> u64 {
        if wide {
            f.to_bits()
        } else {
            (f as f32).to_bits() as u64
        }
    };
    let data = match init {
        "zero" => vec![0; len],
        "iota" => (0..len)
            .map(|k| if float { bits(k as f64) } else { k as u64 })
            .collect(),
        "values" => p["values"]
            .as_array()
            .ok_or("values")?
            .iter()
            .map(|v| match v {
                toml::Value::Float(f) => bits(*f),
                toml::Value::Integer(i) if float => bits(*i as f64),
                toml::Value::Integer(i) => {
                    if wide {
                        *i as u64
                    } else {
                        *i as u32 as u64
                    }
                }
                _ => 0,
            })
            .collect(),
        "random" => {
            let range = p.get("range").and_then(|r| r.as_array()).map(|a| {
                let f = |v: &toml::Value| v.as_float().or(v.as_integer().map(|i| i as f64));
                (f(&a[0]).unwrap_or(0.0), f(&a[1]).unwrap_or(0.0))
            });
            let step = p
                .get("step")
                .and_then(|s| s.as_float().or(s.as_integer().map(|i| i as f64)));
            (0..len)
                .map(|_| match (float, range) {
                    (true, Some((lo, hi))) => {
                        let mut v = lo + (hi - lo) * rng.unit();
                        if let Some(s) = step {
                            v = (v / s).round() * s;
                        }
                        bits(v)
                    }
                    (true, None) => {
                        // All bit patterns but NaN/inf: finite random floats.
                        loop {
                            let b = rng.next_u64();
                            let f = if wide {
                                f64::from_bits(b)
                            } else {
                                f32::from_bits(b as u32) as f64
                            };
                            if f.is_finite() {
                                break if wide { b } else { b as u32 as u64 };
                            }
                        }
                    }
                    (false, Some((lo, hi))) => {
                        let span = (hi - lo) as i128 + 1;
                        let v = lo as i128 + (rng.next_u64() as i128).rem_euclid(span);
                        let v = if let Some(s) = step {
                            v / s as i128 * s as i128
                        } else {
                            v
                        };
                        if wide {
                            v as u64
                        } else {
                            v as u32 as u64
                        }
                    }
                    (false, None) => {
                        let b = rng.next_u64();
                        if wide {
                            b
                        } else {
                            b as u32 as u64
                        }
                    }
                })
                .collect()
        }
        other => return Err(format!("unknown init `{other}`")),
    };
    Ok(Buf { elem, data })
}

/// Replaces every 4th element of `buf` by an edge value of its element type: for integers
/// 0, 1, -1 and the extremes; for floats +-0, +-inf, NaN, halves (ties) and the f16 overflow
/// boundary; the choice is drawn from `rng`.
pub fn with_edges(mut buf: Buf, rng: &mut Rng) -> Buf {
    let ints: &[i64] = &[0, 1, -1, 2, i32::MIN as i64, i32::MAX as i64];
    let longs: &[i64] = &[0, 1, -1, 2, i64::MIN, i64::MAX, u32::MAX as i64, 1 << 32];
    let floats: &[f64] = &[
        0.0,
        -0.0,
        0.5,
        -0.5,
        2.5,
        -2.5,
        1.0,
        -1.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        65504.0,
        65520.0,
        1e-40,
    ];
    let wide = buf.elem.ends_with("64");
    let float = buf.elem.starts_with('f');
    for k in (0..buf.data.len()).step_by(4) {
        let r = rng.next_u64() as usize;
        buf.data[k] = match (float, wide) {
            (true, true) => floats[r % floats.len()].to_bits(),
            (true, false) => (floats[r % floats.len()] as f32).to_bits() as u64,
            (false, true) => longs[r % longs.len()] as u64,
            (false, false) => ints[r % ints.len()] as u32 as u64,
        };
    }
    buf
}

/// Runs kernel `name` with inputs from `seed`; returns the run and the hazards found.
pub fn launch(name: &str, seed: u64) -> Result<(Run, Vec<String>), String> {
    launch_with(name, seed, false)
}

/// Like [`launch`]; with `edges`, every 4th element of each random buffer is replaced by an
/// edge value of its type ([`with_edges`]), the hidden-input style the launch notes ask for.
pub fn launch_with(name: &str, seed: u64, edges: bool) -> Result<(Run, Vec<String>), String> {
    launch_in(&cuda_dir(), name, seed, edges)
}

/// Like [`launch_with`] for a kernel described by `dir/NAME.toml` (the timing corpus lives in
/// `tests/cuda/timing`).
pub fn launch_in(
    dir: &Path,
    name: &str,
    seed: u64,
    edges: bool,
) -> Result<(Run, Vec<String>), String> {
    let text = std::fs::read_to_string(dir.join(format!("{name}.toml")))
        .map_err(|e| format!("{name}.toml: {e}"))?;
    let t: toml::Table = text.parse().map_err(|e| format!("{name}.toml: {e}"))?;
    let cubin = std::fs::read(dir.join(t["cubin"].as_str().ok_or("cubin")?))
        .map_err(|e| format!("{name}: cubin: {e}"))?;
    let dims = |k: &str| -> [u32; 3] {
        let a = t[k].as_array().cloned().unwrap_or_default();
        [0, 1, 2].map(|i| a.get(i).and_then(|v| v.as_integer()).unwrap_or(1) as u32)
    };
    let (grid, block) = (dims("grid"), dims("block"));
    let mut rng = Rng::new(seed);
    let mut dev = Device::new();
    let mut params = Vec::new();
    let mut inputs = BTreeMap::new();
    let mut scalars = BTreeMap::new();
    let mut bound = Vec::new();
    for p in t
        .get("param")
        .and_then(|v| v.as_array())
        .cloned()
        .unwrap_or_default()
    {
        let p = p.as_table().ok_or("param")?;
        let pname = p["name"].as_str().ok_or("name")?.to_string();
        let off = p["offset"].as_integer().ok_or("offset")? as usize;
        let size = p["size"].as_integer().ok_or("size")? as usize;
        if params.len() < off + size {
            params.resize(off + size, 0);
        }
        if p["kind"].as_str() == Some("scalar") {
            let v = &p["value"];
            let bytes: Vec<u8> = match p["type"].as_str().unwrap_or("i32") {
                "f32" => (v.as_float().unwrap_or(0.0) as f32).to_le_bytes().to_vec(),
                "f64" => v.as_float().unwrap_or(0.0).to_le_bytes().to_vec(),
                "i64" | "u64" => v.as_integer().unwrap_or(0).to_le_bytes().to_vec(),
                _ => (v.as_integer().unwrap_or(0) as u32).to_le_bytes().to_vec(),
            };
            params[off..off + bytes.len().min(size)]
                .copy_from_slice(&bytes[..bytes.len().min(size)]);
            scalars.insert(pname, v.clone());
        } else {
            let mut buf = gen_buffer(p, &mut rng).map_err(|e| format!("{name}: {pname}: {e}"))?;
            if edges && p.get("init").and_then(|v| v.as_str()) == Some("random") {
                buf = with_edges(buf, &mut rng);
            }
            let bytes = buf.bytes();
            let a = dev.alloc(bytes.len() as u64);
            dev.write(a, &bytes).map_err(|e| e.to_string())?;
            params[off..off + 8].copy_from_slice(&a.to_le_bytes());
            bound.push((pname.clone(), a, bytes.len(), buf.elem.clone()));
            inputs.insert(pname, buf);
        }
    }
    let cfg = LaunchConfig {
        grid,
        block,
        params,
        dynamic_shared: t
            .get("dynamic_shared")
            .and_then(|v| v.as_integer())
            .unwrap_or(0) as u32,
        check_hazards: true,
        fuel: 1 << 28,
        ..LaunchConfig::default()
    };
    let report = dev
        .launch(&cubin, name, &cfg)
        .map_err(|e| format!("{name}: {e}"))?;
    let mut outputs = BTreeMap::new();
    for (pname, a, len, elem) in bound {
        let b = dev.read(a, len as u64).map_err(|e| e.to_string())?;
        outputs.insert(pname, Buf::from_bytes(&elem, &b));
    }
    let hazards = report.hazards.iter().map(|h| h.to_string()).collect();
    Ok((
        Run {
            inputs,
            outputs,
            scalars,
            grid,
            block,
        },
        hazards,
    ))
}

/// Compares `got` with `want` element-wise.
pub fn expect<T: PartialEq + std::fmt::Debug>(
    what: &str,
    got: &[T],
    want: &[T],
) -> Result<(), String> {
    if got.len() < want.len() {
        return Err(format!(
            "{what}: {} elements, expected {}",
            got.len(),
            want.len()
        ));
    }
    let bad: Vec<String> = want
        .iter()
        .zip(got)
        .enumerate()
        .filter(|(_, (w, g))| w != g)
        .take(5)
        .map(|(i, (w, g))| format!("[{i}] got {g:?}, expected {w:?}"))
        .collect();
    if bad.is_empty() {
        Ok(())
    } else {
        Err(format!("{what}: {}", bad.join("; ")))
    }
}

/// Bit patterns of f32 values for a NaN-safe comparison; every NaN becomes 0x7fffffff, the
/// canonical NaN NVIDIA hardware produces (payloads are not compared).
pub fn f32_bits(v: &[f32]) -> Vec<u32> {
    v.iter()
        .map(|f| if f.is_nan() { 0x7fff_ffff } else { f.to_bits() })
        .collect()
}

/// Bit patterns of f64 values for a NaN-safe comparison; every NaN becomes the canonical
/// 0x7fffffffffffffff (payloads are not compared).
pub fn f64_bits(v: &[f64]) -> Vec<u64> {
    v.iter()
        .map(|f| {
            if f.is_nan() {
                0x7fff_ffff_ffff_ffff
            } else {
                f.to_bits()
            }
        })
        .collect()
}

/// GPU `fminf`/`fmin` (FMNMX, DMNMX): a NaN operand yields the other one, and -0 < +0.
pub fn gpu_min<T: PartialOrd + Copy + Signed0>(x: T, y: T) -> T {
    if x.nan() {
        y
    } else if y.nan() || x < y || (x == y && x.neg0()) {
        x
    } else {
        y
    }
}

/// GPU `fmaxf`/`fmax`: a NaN operand yields the other one, and +0 > -0.
pub fn gpu_max<T: PartialOrd + Copy + Signed0>(x: T, y: T) -> T {
    if x.nan() {
        y
    } else if y.nan() || x > y || (x == y && !x.neg0()) {
        x
    } else {
        y
    }
}

/// What [`gpu_min`]/[`gpu_max`] need of a float type.
pub trait Signed0 {
    /// Is NaN.
    fn nan(self) -> bool;
    /// Has the sign bit set.
    fn neg0(self) -> bool;
}
impl Signed0 for f32 {
    fn nan(self) -> bool {
        self.is_nan()
    }
    fn neg0(self) -> bool {
        self.is_sign_negative()
    }
}
impl Signed0 for f64 {
    fn nan(self) -> bool {
        self.is_nan()
    }
    fn neg0(self) -> bool {
        self.is_sign_negative()
    }
}

/// Distance in units in the last place between two finite f32 of the same sign (else u32::MAX
/// unless both are equal).
pub fn ulp_diff(a: f32, b: f32) -> u32 {
    if a == b {
        0
    } else if a.is_sign_negative() != b.is_sign_negative() || !a.is_finite() || !b.is_finite() {
        u32::MAX
    } else {
        a.to_bits().abs_diff(b.to_bits())
    }
}

/// Checks `(got, exact)` pairs are within `ulps`; reports the first 5 violations.
pub fn within_ulp(what: &str, pairs: &[(f32, f32)], ulps: u32) -> Result<(), String> {
    let bad: Vec<String> = pairs
        .iter()
        .enumerate()
        .filter(|(_, (g, w))| ulp_diff(*g, *w) > ulps)
        .take(5)
        .map(|(i, (g, w))| format!("[{i}] got {g:?}, expected {w:?} within {ulps} ulp"))
        .collect();
    if bad.is_empty() {
        Ok(())
    } else {
        Err(format!("{what}: {}", bad.join("; ")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn param(text: &str) -> toml::Table {
        text.parse().expect("test TOML is valid")
    }

    #[test]
    fn random_buffers_are_deterministic_and_in_range() {
        let p = param("elem = \"i32\"\nlen = 100\ninit = \"random\"\nrange = [-5, 7]\nstep = 2");
        let a = gen_buffer(&p, &mut Rng::new(42)).unwrap();
        let b = gen_buffer(&p, &mut Rng::new(42)).unwrap();
        let c = gen_buffer(&p, &mut Rng::new(43)).unwrap();
        assert_eq!(a.data, b.data);
        assert_ne!(a.data, c.data);
        for v in a.i32s() {
            assert!((-5..=7).contains(&v) && v % 2 == 0, "{v}");
        }
        let f =
            param("elem = \"f32\"\nlen = 50\ninit = \"random\"\nrange = [-1.0, 1.0]\nstep = 0.25");
        for v in gen_buffer(&f, &mut Rng::new(1)).unwrap().f32s() {
            assert!((-1.0..=1.0).contains(&v) && (v * 4.0).fract() == 0.0, "{v}");
        }
    }

    #[test]
    fn values_iota_and_byte_round_trip() {
        let p = param("elem = \"u64\"\nlen = 3\ninit = \"values\"\nvalues = [0, -1, 5]");
        let b = gen_buffer(&p, &mut Rng::new(1)).unwrap();
        assert_eq!(b.data, vec![0, u64::MAX, 5]);
        assert_eq!(Buf::from_bytes("u64", &b.bytes()).data, b.data);
        let f = param("elem = \"f32\"\nlen = 3\ninit = \"values\"\nvalues = [0.0, 1.5, -inf]");
        let f = gen_buffer(&f, &mut Rng::new(1)).unwrap();
        assert_eq!(f.f32s(), vec![0.0, 1.5, f32::NEG_INFINITY]);
        assert_eq!(f.bytes().len(), 12);
        let i = param("elem = \"i32\"\nlen = 4\ninit = \"iota\"");
        assert_eq!(
            gen_buffer(&i, &mut Rng::new(1)).unwrap().i32s(),
            vec![0, 1, 2, 3]
        );
        let bad = param("elem = \"i32\"\nlen = 4\ninit = \"bogus\"");
        assert!(gen_buffer(&bad, &mut Rng::new(1)).is_err());
    }

    #[test]
    fn comparisons_report_mismatches() {
        assert!(expect("x", &[1, 2, 3], &[1, 2, 3]).is_ok());
        let e = expect("x", &[1, 9, 3], &[1, 2, 3]).unwrap_err();
        assert!(e.contains("[1] got 9, expected 2"), "{e}");
        assert!(expect("x", &[1], &[1, 2]).is_err());
        assert_eq!(ulp_diff(1.0, f32::from_bits(1.0f32.to_bits() + 2)), 2);
        assert!(within_ulp("y", &[(1.0, f32::from_bits(1.0f32.to_bits() + 3))], 2).is_err());
        assert!(within_ulp("y", &[(-0.0, 0.0)], 0).is_ok());
    }
}
