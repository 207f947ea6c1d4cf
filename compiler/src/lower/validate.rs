//! Translation validation: run an IL program on the reference interpreter and its lowered
//! IR on the IR interpreter over the same buffers, and compare the results.
//!
//! Used by the lowering's own tests, by `tests/tests/translation_validation.rs` (every
//! kernel of the corpus, before and after each optimization pass) and available to tools.
//! Comparison is bit-exact per 32-bit word, with one documented exception: two f32 NaNs
//! compare equal whatever their payloads (the IR canonicalizes NaN to `0x7FFFFFFF`, the IL
//! interpreter keeps the host's NaN). A [`Tolerance`] relaxes it per buffer for kernels
//! using approximate operations (transcendentals).

use std::collections::BTreeMap;

use ilc_passes::interp::{self as irinterp, Dispatch as IrDispatch, InterpOptions, Memory};
use ilc_passes::ir::Function;
use isa_amdil::ast::Program;
use isa_amdil::interp::{self as ilinterp, Dispatch as IlDispatch};

/// Input buffers of a dispatch.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Buffers {
    /// UAV contents by id.
    pub uavs: BTreeMap<u32, Vec<u8>>,
    /// Constant buffer contents by id.
    pub cbs: BTreeMap<u32, Vec<u8>>,
    /// The global buffer `g[]`, if bound.
    pub global: Option<Vec<u8>>,
    /// Read-only raw/structured SRV contents by id.
    pub srvs: BTreeMap<u32, Vec<u8>>,
    /// Textures by resource id.
    pub textures: BTreeMap<u32, isa_amdil::interp::texture::Texture>,
    /// Pixel-shader compute domain (`il_ps` programs; `grid` is then derived from it).
    pub domain: Option<[u32; 2]>,
}

/// `tex` semantics for the IR interpreter: the bound textures with default samplers (point,
/// clamp), as the IL interpreter reads them.
struct IrTextures<'a> {
    textures: &'a BTreeMap<u32, isa_amdil::interp::texture::Texture>,
}

impl irinterp::TextureEval for IrTextures<'_> {
    fn eval(&self, tex: &ilc_passes::ir::TexArg, args: &[u32]) -> Result<[u32; 4], String> {
        use ilc_passes::ir::TexKind;
        let decl = crate::verify::texture_decl(tex.shape, tex.unnorm, tex.float_mask);
        let t = self.textures.get(&u32::from(tex.resource));
        let axes = tex.shape.axes();
        let mut coords = [0u32; 4];
        if tex.kind != TexKind::Query {
            coords[..axes].copy_from_slice(args.get(..axes).ok_or("too few texture operands")?);
        }
        let layer = match tex.kind {
            TexKind::Query => None,
            _ if tex.shape.is_array() => Some(*args.get(axes).ok_or("no layer operand")?),
            _ => None,
        };
        let level = match tex.kind {
            TexKind::Query => args[0],
            TexKind::Fetch if tex.shape != ilc_passes::ir::TexShape::Buffer => {
                *args.last().ok_or("no level operand")?
            }
            _ => 0,
        };
        crate::verify::il_texture_op(
            tex.kind,
            t,
            &decl,
            &Default::default(),
            coords,
            layer,
            level,
        )
    }
}

/// How two buffers' words are compared.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Tolerance {
    /// Bit-exact (f32 NaNs equal each other).
    Exact,
    /// f32 values within this many units in the last place.
    F32Ulp(u32),
    /// f32 values within this absolute difference.
    F32Abs(f32),
    /// Bit-exact 64-bit words (pairs of 32-bit words), two f64 NaNs equal each other.
    F64Exact,
}

fn ordered(x: u32) -> i64 {
    // Maps f32 bits to a monotonic integer line (negative floats mirrored).
    if x & 0x8000_0000 != 0 {
        -((x & 0x7FFF_FFFF) as i64)
    } else {
        x as i64
    }
}

fn is_nan(x: u32) -> bool {
    f32::from_bits(x).is_nan()
}

/// True when words `a` and `b` agree under `tol`.
pub fn words_agree(a: u32, b: u32, tol: Tolerance) -> bool {
    if a == b || (is_nan(a) && is_nan(b)) {
        return true;
    }
    match tol {
        Tolerance::Exact | Tolerance::F64Exact => false,
        Tolerance::F32Ulp(n) => {
            !is_nan(a) && !is_nan(b) && (ordered(a) - ordered(b)).unsigned_abs() <= n as u64
        }
        Tolerance::F32Abs(e) => {
            let (x, y) = (f32::from_bits(a), f32::from_bits(b));
            (x - y).abs() <= e || (x.is_infinite() && x == y)
        }
    }
}

/// Compares two byte buffers word by word; `Err` names the first differing words.
pub fn compare_buffers(what: &str, a: &[u8], b: &[u8], tol: Tolerance) -> Result<(), String> {
    if a.len() != b.len() {
        return Err(format!("{what}: sizes differ ({} vs {})", a.len(), b.len()));
    }
    let mut bad = Vec::new();
    if tol == Tolerance::F64Exact {
        for (k, (x, y)) in a.chunks(8).zip(b.chunks(8)).enumerate() {
            let w = |c: &[u8]| {
                let mut q = [0u8; 8];
                q[..c.len()].copy_from_slice(c);
                f64::from_le_bytes(q)
            };
            let (x, y) = (w(x), w(y));
            if x.to_bits() != y.to_bits() && !(x.is_nan() && y.is_nan()) {
                bad.push(format!("dword pair {k} (byte {}): {x:e} vs {y:e}", 8 * k));
                if bad.len() >= 8 {
                    break;
                }
            }
        }
        return if bad.is_empty() {
            Ok(())
        } else {
            Err(format!("{what}: {}", bad.join("; ")))
        };
    }
    for (k, (x, y)) in a.chunks(4).zip(b.chunks(4)).enumerate() {
        let w = |c: &[u8]| {
            let mut q = [0u8; 4];
            q[..c.len()].copy_from_slice(c);
            u32::from_le_bytes(q)
        };
        let (x, y) = (w(x), w(y));
        if !words_agree(x, y, tol) {
            bad.push(format!("word {k} (byte {}): {x:#010x} vs {y:#010x}", 4 * k));
            if bad.len() >= 8 {
                break;
            }
        }
    }
    if bad.is_empty() {
        Ok(())
    } else {
        Err(format!("{what}: {}", bad.join("; ")))
    }
}

/// Results of a run: UAVs and the global buffer after the dispatch.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outputs {
    /// UAV contents by id.
    pub uavs: BTreeMap<u32, Vec<u8>>,
    /// The global buffer.
    pub global: Option<Vec<u8>>,
    /// Pixel-shader outputs by number.
    pub ps_outputs: BTreeMap<u32, Vec<u8>>,
}

/// Runs `program` on the IL reference interpreter (lock step).
pub fn run_il(program: &Program, grid: [u32; 3], bufs: &Buffers) -> Result<Outputs, String> {
    run_il_fuel(program, grid, bufs, 50_000_000)
}

/// As [`run_il`] with an instruction budget (running out is an error).
pub fn run_il_fuel(
    program: &Program,
    grid: [u32; 3],
    bufs: &Buffers,
    fuel: u64,
) -> Result<Outputs, String> {
    let mut d = IlDispatch::new(grid);
    d.uavs = bufs.uavs.clone();
    d.cbs = bufs.cbs.clone();
    d.global = bufs.global.clone();
    d.srvs = bufs.srvs.clone();
    d.textures = bufs.textures.clone();
    d.domain = bufs.domain;
    d.fuel = fuel;
    ilinterp::run(program, &mut d).map_err(|e| format!("IL interpreter: {e}"))?;
    Ok(Outputs {
        uavs: d.uavs,
        global: d.global,
        ps_outputs: d.ps_outputs,
    })
}

/// Runs `func` on the IR interpreter.
pub fn run_ir(
    func: &Function,
    grid: [u32; 3],
    bufs: &Buffers,
    schedule: irinterp::Schedule,
) -> Result<Outputs, String> {
    let mut mem = Memory::default();
    for (&id, b) in &bufs.uavs {
        let id = u8::try_from(id).map_err(|_| format!("uav id {id} too large"))?;
        mem.uavs.insert(id, b.clone());
    }
    for (&id, b) in &bufs.cbs {
        let id = u8::try_from(id).map_err(|_| format!("cb id {id} too large"))?;
        mem.cbs.insert(id, b.clone());
    }
    mem.global = bufs.global.clone().unwrap_or_default();
    for (&id, b) in &bufs.srvs {
        let id = u8::try_from(id).map_err(|_| format!("srv id {id} too large"))?;
        mem.srvs.insert(id, b.clone());
    }
    for (&id, t) in &bufs.textures {
        let id = u8::try_from(id).map_err(|_| format!("resource id {id} too large"))?;
        mem.srvs.insert(id, t.data.clone());
        mem.res_dims.insert(id, [t.width, t.height, t.depth]);
    }
    let mut grid = grid;
    if let Some([w, h]) = bufs.domain {
        mem.domain = [w, h];
        for &o in &func.outputs {
            mem.outputs.insert(o, vec![0; w as usize * h as usize * 16]);
        }
        grid = [w.div_ceil(8), h.div_ceil(8), 1];
    }
    let opts = InterpOptions {
        fuel: 200_000_000,
        schedule,
    };
    let d = IrDispatch {
        grid,
        group_size: None,
    };
    let textures = IrTextures {
        textures: &bufs.textures,
    };
    let hooks = irinterp::Hooks {
        textures: Some(&textures),
        ..irinterp::Hooks::default()
    };
    irinterp::run_dispatch_with_hooks(func, &d, &mut mem, &opts, &hooks)
        .map_err(|e| format!("IR interpreter: {e}"))?;
    let mut uavs = BTreeMap::new();
    for (id, b) in mem.uavs {
        uavs.insert(id as u32, b);
    }
    Ok(Outputs {
        uavs,
        global: bufs.global.as_ref().map(|_| mem.global),
        ps_outputs: mem
            .outputs
            .into_iter()
            .map(|(id, b)| (u32::from(id), b))
            .collect(),
    })
}

/// Compares two runs' outputs with per-UAV tolerances (missing = exact).
pub fn compare_outputs(
    a: &Outputs,
    b: &Outputs,
    tol: &BTreeMap<u32, Tolerance>,
) -> Result<(), String> {
    let mut errs = Vec::new();
    for (id, x) in &a.uavs {
        let t = tol.get(id).copied().unwrap_or(Tolerance::Exact);
        match b.uavs.get(id) {
            Some(y) => {
                if let Err(e) = compare_buffers(&format!("uav{id}"), x, y, t) {
                    errs.push(e);
                }
            }
            None => errs.push(format!("uav{id} missing")),
        }
    }
    if let (Some(x), Some(y)) = (&a.global, &b.global) {
        if let Err(e) = compare_buffers("g[]", x, y, Tolerance::Exact) {
            errs.push(e);
        }
    }
    for (id, x) in &a.ps_outputs {
        match b.ps_outputs.get(id) {
            Some(y) => {
                if let Err(e) = compare_buffers(&format!("o{id}"), x, y, Tolerance::Exact) {
                    errs.push(e);
                }
            }
            None => errs.push(format!("o{id} missing")),
        }
    }
    if errs.is_empty() {
        Ok(())
    } else {
        Err(errs.join("\n"))
    }
}

/// True if the program's results may legitimately depend on the interleaving of
/// work-items: atomics returning old values, and non-commutative atomics (`rsub`,
/// `inc`/`dec`, compare/exchange, `mskor`), append counters.
pub fn order_dependent(program: &Program) -> bool {
    program.statements.iter().any(|st| {
        let m = st.opcode.mnemonic();
        let atomic = m.starts_with("uav_") || m.starts_with("lds_");
        m.starts_with("uav_read_")
            || m.starts_with("lds_read_")
            || m.contains("append_buf")
            || (atomic
                && ["rsub", "inc", "dec", "cmp", "xchg", "mskor"]
                    .iter()
                    .any(|k| m.contains(k)))
    })
}

/// Runs `program` on the IL interpreter (lock step) and `func` (its lowering, possibly
/// optimized) on the IR interpreter, and compares. The IR runs in lock step (the
/// interpreter's order) and, unless the program is [`order_dependent`], also in sequential
/// and reverse work-item order, so a lowering that depended on the interleaving shows up.
pub fn check_equivalent(
    program: &Program,
    func: &Function,
    grid: [u32; 3],
    bufs: &Buffers,
    tol: &BTreeMap<u32, Tolerance>,
) -> Result<(), String> {
    let il = run_il(program, grid, bufs)?;
    let mut schedules = vec![irinterp::Schedule::LockStep];
    if !order_dependent(program) {
        schedules.extend([irinterp::Schedule::Sequential, irinterp::Schedule::Reverse]);
    }
    for sched in schedules {
        let ir = run_ir(func, grid, bufs, sched)?;
        compare_outputs(&il, &ir, tol).map_err(|e| format!("schedule {sched:?}: {e}"))?;
    }
    Ok(())
}
