//! Property test of bounds-checked memory access.
//!
//! The rule (AMD IL guide 7.2.10/7.2.12, `isa_amdil::interp::memory`): an access of `N`
//! bytes at byte address `a` (`index * stride + offset` for structured resources, `4 *
//! index` for typed ones, `16 * index` for `g[]`, each computed without wrapping at 2^32)
//! is in range iff `a + N <= size`, checked per dword for multi-dword accesses (dword `i`
//! at `a + 4i`) and on the whole access for bytes and shorts. An out-of-range load reads
//! 0, an out-of-range store or atomic changes nothing.
//!
//! Each case runs one work-item doing one access to a buffer whose size need not be a
//! multiple of 4, at a byte offset or structured index drawn near 0, near the size, near
//! 2^31 and near 2^32 (index times stride near 2^32 for structured, typed and `g[]`
//! accesses), for raw loads and stores of 1..4 dwords, structured loads and stores of
//! several strides, byte and short loads and stores, raw and structured SRV loads, typed
//! UAV loads and stores, `g[]` loads and stores and UAV atomics, with the address in a
//! register (from `cb0`) or a literal. It asserts:
//! - the IL interpreter matches the model above (loads outside read 0, stores outside
//!   change no byte of the buffer);
//! - the IR interpreter on the lowered function matches the IL interpreter;
//! - the kernel compiled at `-O0`..`-O3` runs on the emulator without a memory fault (the
//!   emulator's global memory faults on any access outside an allocation, and allocations
//!   are separated by 256-byte gaps, so no byte outside a buffer is touched) and leaves
//!   every buffer as the interpreter does.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, OnceLock};

use ilc::lower::validate::{run_il, run_ir, Buffers, Outputs};
use ilc::options::{OptLevel, Options};
use ilc::verify::run_emulated;
use ilc::{CompiledKernel, Compiler};
use isa_amdil::interp::Dispatch;
use proptest::prelude::*;

/// Id of the buffer the access goes to (UAV or SRV), and of the raw UAV loads are copied to.
const TARGET: u32 = 0;
const OUT: u32 = 1;
const SRV_RAW: u32 = 2;
const SRV_STRUCT: u32 = 3;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Kind {
    RawLoad,
    RawStore,
    StructLoad(u32),
    StructStore(u32),
    SrvRaw,
    SrvStruct(u32),
    TypedLoad,
    TypedStore,
    GLoad,
    GStore,
    /// Sub-dword load: bytes (1 or 2), signed.
    SubLoad(u32, bool),
    /// Sub-dword store: bytes (1 or 2).
    SubStore(u32),
    /// `uav_add` (false) or `uav_read_add` (true).
    Atomic(bool),
    /// A loop of `b` (0..=8) two-dword loads at `a + 8i` (wrapping, as the program adds),
    /// summed per component.
    LoopLoad,
    /// A loop of `b` two-dword stores of `data.x + i, data.y` at `a + 8i`.
    LoopStore,
    /// A raw load (false) or store (true) of 1..4 dwords at `a + b`, the sum computed by the
    /// program (wrapping at 2^32): the backend may put `b` into the instruction's offset.
    Offset(bool),
    /// Three one-dword raw loads (false) or stores (true) at `a`, `a + 4`, `a + 8`, each its
    /// own instruction (the backend may check them against one shared masked size).
    Three(bool),
}

/// Two-dword accesses per iteration of the loop kinds.
const LOOP_STEP: u32 = 8;

impl Kind {
    fn is_load(self) -> bool {
        matches!(
            self,
            Kind::RawLoad
                | Kind::StructLoad(_)
                | Kind::SrvRaw
                | Kind::SrvStruct(_)
                | Kind::TypedLoad
                | Kind::GLoad
                | Kind::SubLoad(..)
                | Kind::Atomic(true)
                | Kind::LoopLoad
                | Kind::Offset(false)
                | Kind::Three(false)
        )
    }

    /// Bytes per element of the index (`None`: a byte address).
    fn stride(self) -> Option<u32> {
        match self {
            Kind::StructLoad(s) | Kind::StructStore(s) | Kind::SrvStruct(s) => Some(s),
            Kind::TypedLoad | Kind::TypedStore => Some(4),
            Kind::GLoad | Kind::GStore => Some(16),
            _ => None,
        }
    }

    /// Whether the access takes an (index, byte offset) pair.
    fn structured(self) -> bool {
        matches!(
            self,
            Kind::StructLoad(_) | Kind::StructStore(_) | Kind::SrvStruct(_)
        )
    }

    /// Whether the access has 1..4 dwords (its `words` matters).
    fn vector(self) -> bool {
        matches!(
            self,
            Kind::RawLoad
                | Kind::RawStore
                | Kind::StructLoad(_)
                | Kind::StructStore(_)
                | Kind::SrvRaw
                | Kind::SrvStruct(_)
                | Kind::GLoad
                | Kind::GStore
                | Kind::Offset(_)
        )
    }

    /// Bytes of one scalar access (`vector` accesses: 4 per dword).
    fn width(self) -> u32 {
        match self {
            Kind::SubLoad(w, _) | Kind::SubStore(w) => w,
            _ => 4,
        }
    }
}

/// One access: what, how many dwords, the address operands, literal or register address.
#[derive(Clone, Copy, Debug)]
struct Access {
    kind: Kind,
    words: usize,
    /// Byte offset (raw) or element index (structured, typed, `g[]`).
    a: u32,
    /// Byte offset inside the element (structured).
    b: u32,
    literal: bool,
}

const MASKS: [&str; 4] = ["x", "xy", "xyz", "xyzw"];

impl Access {
    /// The kernel source; the address comes from `cb0[0].xy` or literals, store data from
    /// `cb0[1]`.
    fn source(&self) -> String {
        let k = self.kind;
        let mut s = String::from("il_cs_2_0\ndcl_num_thread_per_group 1\ndcl_cb cb0[2]\n");
        s += &format!("dcl_raw_uav_id({OUT})\n");
        match k {
            Kind::StructLoad(st) | Kind::StructStore(st) => {
                s += &format!("dcl_struct_uav_id({TARGET}) {st}\n")
            }
            Kind::SrvRaw => s += &format!("dcl_raw_srv_id({SRV_RAW})\n"),
            Kind::SrvStruct(st) => s += &format!("dcl_struct_srv_id({SRV_STRUCT}) {st}\n"),
            Kind::TypedLoad | Kind::TypedStore => {
                s += &format!("dcl_uav_id({TARGET})_type(buffer)_fmtx(uint)\n")
            }
            Kind::GLoad | Kind::GStore => {}
            _ => s += &format!("dcl_raw_uav_id({TARGET})\n"),
        }
        s += "dcl_literal l9, 0, 0, 0, 0\n";
        if self.literal {
            s += &format!("dcl_literal l8, {:#x}, {:#x}, 0, 0\n", self.a, self.b);
        }
        s += "mov r1, l9\nmov r5, cb0[1]\n";
        let addr = if self.literal { "l8" } else { "r0" };
        if self.literal {
            s += "mov r0, l8\n";
        } else {
            s += "mov r0, cb0[0]\n";
        }
        let m = MASKS[self.words - 1];
        if let Kind::Three(store) = k {
            s += "dcl_literal l6, 4, 8, 0xfffffffc, 0\niand r0.x, ";
            s += &format!("{addr}.x, l6.z\niadd r2.x, r0.x, l6.x\niadd r2.y, r0.x, l6.y\n");
            for (j, (a, c)) in [("r0", "x"), ("r2", "x"), ("r2", "y")].iter().enumerate() {
                let c2 = ["x", "y", "z"][j];
                s += &if store {
                    format!("mov r6.x, r5.{c2}\nuav_raw_store_id({TARGET}) mem.x, {a}.{c}, r6\n")
                } else {
                    format!("uav_raw_load_id({TARGET}) r7.x, {a}.{c}\nmov r1.{c2}, r7.x\n")
                };
            }
            s += "uav_raw_store_id(1) mem, l9.x, r1\nend\n";
            return s;
        }
        if let Kind::Offset(store) = k {
            // `a` is 4-byte aligned; the mask says so to the compiler, as an index shift
            // would, so the sum needs no alignment mask of its own.
            s += &format!(
                "dcl_literal l6, {:#x}, 0xfffffffc, 0, 0\niand r0.x, {addr}.x, l6.y\n\
                 iadd r0.x, r0.x, l6.x\n",
                self.b
            );
            s += &if store {
                format!("uav_raw_store_id({TARGET}) mem.{m}, r0.x, r5")
            } else {
                format!("uav_raw_load_id({TARGET}) r1.{m}, r0.x")
            };
            s += "\nuav_raw_store_id(1) mem, l9.x, r1\nend\n";
            return s;
        }
        if matches!(k, Kind::LoopLoad | Kind::LoopStore) {
            let access = if k == Kind::LoopLoad {
                format!("    uav_raw_load_id({TARGET}) r6.xy, r3.x\n    iadd r1.xy, r1.xy, r6.xy\n")
            } else {
                format!("    iadd r6.x, r5.x, r2.x\n    mov r6.y, r5.y\n    uav_raw_store_id({TARGET}) mem.xy, r3.x, r6\n")
            };
            s += &format!(
                "dcl_literal l7, {LOOP_STEP}, 1, 0, 0\nmov r2.x, l9.x\nmov r3.x, r0.x\n\
                 whileloop\n    uge r4.x, r2.x, r0.y\n    break_logicalnz r4.x\n{access}\
                 \x20   iadd r3.x, r3.x, l7.x\n    iadd r2.x, r2.x, l7.y\nendloop\n"
            );
            s += "uav_raw_store_id(1) mem, l9.x, r1\nend\n";
            return s;
        }
        let body = match k {
            Kind::RawLoad => format!("uav_raw_load_id({TARGET}) r1.{m}, {addr}.x"),
            Kind::RawStore => format!("uav_raw_store_id({TARGET}) mem.{m}, {addr}.x, r5"),
            Kind::StructLoad(_) => format!("uav_struct_load_id({TARGET}) r1.{m}, {addr}.xy"),
            Kind::StructStore(_) => {
                format!("uav_struct_store_id({TARGET}) mem.{m}, {addr}.xy, r5")
            }
            Kind::SrvRaw => format!("srv_raw_load_id({SRV_RAW}) r1.{m}, {addr}.x"),
            Kind::SrvStruct(_) => format!("srv_struct_load_id({SRV_STRUCT}) r1.{m}, {addr}.xy"),
            Kind::TypedLoad => format!("uav_load_id({TARGET}) r1, {addr}.x"),
            Kind::TypedStore => format!("uav_store_id({TARGET}) {addr}.x, r5"),
            // g[] takes a register index.
            Kind::GLoad => format!("mov r1.{m}, g[r0.x]"),
            Kind::GStore => format!("mov g[r0.x].{m}, r5"),
            Kind::SubLoad(w, signed) => {
                let op = match (w, signed) {
                    (1, false) => "ubyte",
                    (1, true) => "byte",
                    (_, false) => "ushort",
                    (_, true) => "short",
                };
                format!("uav_{op}_load_id({TARGET}) r1.x, {addr}.x")
            }
            Kind::SubStore(w) => {
                let op = if w == 1 { "byte" } else { "short" };
                format!("uav_{op}_store_id({TARGET}) mem, {addr}.x, r5.x")
            }
            Kind::Atomic(false) => format!("uav_add_id({TARGET}) {addr}.x, r5.x"),
            Kind::Atomic(true) => format!("uav_read_add_id({TARGET}) r1.x, {addr}.x, r5.x"),
            Kind::LoopLoad | Kind::LoopStore | Kind::Offset(_) | Kind::Three(_) => {
                unreachable!("loops and offset accesses are written above")
            }
        };
        s += &body;
        s += "\nuav_raw_store_id(1) mem, l9.x, r1\nend\n";
        s
    }

    /// Byte address of the access, without wrapping.
    fn address(&self) -> u64 {
        match self.kind.stride() {
            Some(st) if self.kind.structured() => {
                u64::from(self.a) * u64::from(st) + u64::from(self.b)
            }
            Some(st) => u64::from(self.a) * u64::from(st),
            None if matches!(self.kind, Kind::Offset(_)) => u64::from(self.a.wrapping_add(self.b)),
            None => u64::from(self.a),
        }
    }
}

/// Buffers of one case: the target (UAV, SRV or `g[]`) of `size` bytes, the output UAV.
fn buffers(acc: &Access, target: &[u8], data: [u32; 4]) -> Buffers {
    let mut b = Buffers::default();
    let mut cb = Vec::new();
    for w in [acc.a, acc.b, 0, 0].iter().chain(&data) {
        cb.extend_from_slice(&w.to_le_bytes());
    }
    b.cbs.insert(0, cb);
    b.uavs.insert(OUT, vec![0xAB; 16]);
    match acc.kind {
        Kind::SrvRaw => {
            b.srvs.insert(SRV_RAW, target.to_vec());
        }
        Kind::SrvStruct(_) => {
            b.srvs.insert(SRV_STRUCT, target.to_vec());
        }
        Kind::GLoad | Kind::GStore => b.global = Some(target.to_vec()),
        _ => {
            b.uavs.insert(TARGET, target.to_vec());
        }
    }
    b
}

/// The outputs the rule gives (`None` for typed accesses, whose `.yzw` results and format
/// conversion the model leaves to the interpreters).
fn model(acc: &Access, target: &[u8], data: [u32; 4]) -> Option<Outputs> {
    let k = acc.kind;
    if matches!(k, Kind::TypedLoad | Kind::TypedStore) {
        return None;
    }
    let a = acc.address();
    let size = target.len() as u64;
    let fits = |at: u64, n: u64| at + n <= size;
    let mut buf = target.to_vec();
    let mut out = [0u32; 4];
    let word = |buf: &[u8], at: u64| {
        let at = at as usize;
        u32::from_le_bytes([buf[at], buf[at + 1], buf[at + 2], buf[at + 3]])
    };
    if matches!(k, Kind::LoopLoad | Kind::LoopStore) {
        for i in 0..acc.b {
            let at = u64::from(acc.a.wrapping_add(LOOP_STEP.wrapping_mul(i)));
            for j in 0..2 {
                let at = at + 4 * j as u64;
                if !fits(at, 4) {
                    continue;
                }
                if k == Kind::LoopLoad {
                    out[j] = out[j].wrapping_add(word(&buf, at));
                } else {
                    let v = [data[0].wrapping_add(i), data[1]][j];
                    buf[at as usize..at as usize + 4].copy_from_slice(&v.to_le_bytes());
                }
            }
        }
    } else if let Kind::Three(store) = k {
        for (j, slot) in out.iter_mut().enumerate().take(3) {
            let at = u64::from(acc.a.wrapping_add(4 * j as u32));
            if !fits(at, 4) {
                continue;
            }
            if store {
                buf[at as usize..at as usize + 4].copy_from_slice(&data[j].to_le_bytes());
            } else {
                *slot = word(&buf, at);
            }
        }
    } else if k.vector() {
        for i in 0..acc.words {
            let at = a + 4 * i as u64;
            if !fits(at, 4) {
                continue;
            }
            if k.is_load() {
                out[i] = word(&buf, at);
            } else {
                buf[at as usize..at as usize + 4].copy_from_slice(&data[i].to_le_bytes());
            }
        }
    } else {
        let w = u64::from(k.width());
        if fits(a, w) {
            let at = a as usize;
            match k {
                Kind::SubLoad(1, s) => {
                    out[0] = if s {
                        buf[at] as i8 as i32 as u32
                    } else {
                        u32::from(buf[at])
                    }
                }
                Kind::SubLoad(_, s) => {
                    let v = u16::from_le_bytes([buf[at], buf[at + 1]]);
                    out[0] = if s {
                        v as i16 as i32 as u32
                    } else {
                        u32::from(v)
                    }
                }
                Kind::SubStore(w) => {
                    buf[at..at + w as usize].copy_from_slice(&data[0].to_le_bytes()[..w as usize])
                }
                Kind::Atomic(ret) => {
                    let old = word(&buf, a);
                    buf[at..at + 4].copy_from_slice(&old.wrapping_add(data[0]).to_le_bytes());
                    if ret {
                        out[0] = old;
                    }
                }
                _ => unreachable!("vector kinds are handled above"),
            }
        }
    }
    let mut o = Outputs::default();
    o.uavs
        .insert(OUT, out.iter().flat_map(|w| w.to_le_bytes()).collect());
    match k {
        Kind::SrvRaw | Kind::SrvStruct(_) => {}
        Kind::GLoad | Kind::GStore => o.global = Some(buf),
        _ => {
            o.uavs.insert(TARGET, buf);
        }
    }
    Some(o)
}

const LEVELS: [OptLevel; 4] = [OptLevel::O0, OptLevel::O1, OptLevel::O2, OptLevel::O3];

type Cache = Mutex<HashMap<(String, usize), Arc<CompiledKernel>>>;

/// Kernels compiled once per (source, level) across cases.
fn compiled(src: &str, level: usize) -> Result<Arc<CompiledKernel>, String> {
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    let key = (src.to_string(), level);
    if let Some(k) = cache.lock().expect("cache lock").get(&key) {
        return Ok(k.clone());
    }
    let c = Compiler::new(Options {
        opt_level: LEVELS[level],
        kernel_name: Some("bounds".into()),
        ..Options::default()
    });
    let k = Arc::new(
        c.compile(src.as_bytes())
            .map_err(|d| format!("-O{level}: does not compile: {d}"))?,
    );
    cache.lock().expect("cache lock").insert(key, k.clone());
    Ok(k)
}

/// The bytes where `got` differs from `want`, buffer by buffer (empty: none).
fn differences(want: &Outputs, got: &Outputs) -> String {
    type Pair<'a> = (Option<&'a Vec<u8>>, Option<&'a Vec<u8>>);
    let mut named: Vec<(String, Pair)> = Vec::new();
    for id in want.uavs.keys().chain(got.uavs.keys()) {
        let n = format!("uav{id}");
        if !named.iter().any(|(m, _)| *m == n) {
            named.push((n, (want.uavs.get(id), got.uavs.get(id))));
        }
    }
    named.push(("g".into(), (want.global.as_ref(), got.global.as_ref())));
    let mut out = Vec::new();
    for (name, (w, g)) in named {
        match (w, g) {
            (Some(w), Some(g)) if w.len() == g.len() => {
                let bytes: Vec<String> = (0..w.len())
                    .filter(|&i| w[i] != g[i])
                    .map(|i| format!("[{i}] {:#04x} not {:#04x}", g[i], w[i]))
                    .collect();
                if !bytes.is_empty() {
                    out.push(format!("{name}: {}", bytes.join(", ")));
                }
            }
            (None, None) => {}
            (w, g) => out.push(format!(
                "{name}: {:?} bytes, expected {:?}",
                g.map(Vec::len),
                w.map(Vec::len)
            )),
        }
    }
    out.join("; ")
}

/// Runs one case everywhere; `Err` lists every disagreement (the IL interpreter with the
/// rule, the lowered IR with the IL interpreter, each level's emulator run with the IL
/// interpreter) and the kernel.
fn check(acc: &Access, target: &[u8], data: [u32; 4]) -> Result<(), String> {
    let src = acc.source();
    let (prog, diags) = isa_amdil::parse(&src);
    let prog = prog.ok_or_else(|| format!("does not parse: {diags:?}\n{src}"))?;
    let bufs = buffers(acc, target, data);
    let il = run_il(&prog, [1, 1, 1], &bufs).map_err(|e| format!("IL interpreter: {e}"))?;
    let mut errs = Vec::new();
    if let Some(want) = model(acc, target, data) {
        let d = differences(&want, &il);
        if !d.is_empty() {
            errs.push(format!("IL interpreter breaks the rule: {d}"));
        }
    }
    let func = ilc::lower::lower(&prog).map_err(|e| format!("lowering: {e}"))?;
    match run_ir(&func, [1, 1, 1], &bufs, Default::default()) {
        Ok(ir) => {
            let d = differences(&il, &ir);
            if !d.is_empty() {
                errs.push(format!("lowered IR differs from the IL interpreter: {d}"));
            }
        }
        Err(e) => errs.push(format!("IR interpreter: {e}")),
    }
    for level in 0..LEVELS.len() {
        let kernel = compiled(&src, level)?;
        let mut d = Dispatch::new([1, 1, 1]);
        d.uavs = bufs.uavs.clone();
        d.cbs = bufs.cbs.clone();
        d.srvs = bufs.srvs.clone();
        d.global = bufs.global.clone();
        match run_emulated(&kernel, &d) {
            Ok((emu, _)) => {
                let got = Outputs {
                    uavs: emu.uavs,
                    global: emu.global,
                    ps_outputs: BTreeMap::new(),
                };
                let d = differences(&il, &got);
                if !d.is_empty() {
                    errs.push(format!(
                        "-O{level} emulator differs from the IL interpreter: {d}"
                    ));
                }
            }
            Err(e) => errs.push(format!("-O{level} {e}")),
        }
    }
    if errs.is_empty() {
        Ok(())
    } else {
        Err(format!("{}\n{src}", errs.join("\n")))
    }
}

fn kind() -> impl Strategy<Value = Kind> {
    let stride = prop::sample::select(vec![4u32, 8, 12, 16, 20, 36]);
    prop_oneof![
        Just(Kind::RawLoad),
        Just(Kind::RawStore),
        stride.clone().prop_map(Kind::StructLoad),
        stride.clone().prop_map(Kind::StructStore),
        Just(Kind::SrvRaw),
        stride.prop_map(Kind::SrvStruct),
        Just(Kind::TypedLoad),
        Just(Kind::TypedStore),
        Just(Kind::GLoad),
        Just(Kind::GStore),
        (prop::sample::select(vec![1u32, 2]), any::<bool>()).prop_map(|(w, s)| Kind::SubLoad(w, s)),
        prop::sample::select(vec![1u32, 2]).prop_map(Kind::SubStore),
        any::<bool>().prop_map(Kind::Atomic),
        Just(Kind::LoopLoad),
        Just(Kind::LoopStore),
        any::<bool>().prop_map(Kind::Offset),
        any::<bool>().prop_map(Kind::Three),
    ]
}

/// A byte offset near 0 or the buffer sizes, near 2^31 or near 2^32.
fn near_edges() -> impl Strategy<Value = u32> {
    prop_oneof![
        0u32..96,
        (0u32..96).prop_map(|d| 0x8000_0000u32.wrapping_sub(48).wrapping_add(d)),
        (0u32..96).prop_map(|d| 0u32.wrapping_sub(96).wrapping_add(d)),
        any::<u32>(),
    ]
}

/// An element index whose product with `stride` is near 0, near the buffer sizes, near
/// 2^31 or near 2^32 (and beyond, up to a few wraps).
fn index_for(stride: u32) -> impl Strategy<Value = u32> {
    let around = move |t: u64| {
        (0u64..16).prop_map(move |d| (t / u64::from(stride) + d).saturating_sub(8) as u32)
    };
    prop_oneof![
        0u32..24,
        around(1 << 31),
        around(1 << 32),
        around(3 << 32),
        any::<u32>(),
    ]
}

fn access() -> impl Strategy<Value = Access> {
    (kind(), 1usize..=4, any::<bool>())
        .prop_flat_map(|(kind, words, literal)| {
            let words = if kind.vector() { words } else { 1 };
            let a = match kind.stride() {
                Some(s) => index_for(s).boxed(),
                None => near_edges().boxed(),
            };
            let b = if kind.structured() {
                near_edges().boxed()
            } else if matches!(kind, Kind::LoopLoad | Kind::LoopStore) {
                (0u32..=8).boxed()
            } else if matches!(kind, Kind::Offset(_)) {
                prop::sample::select(vec![4u32, 8, 12, 16, 64, 0x1000, 0x7_fffc, 0xf_fffc]).boxed()
            } else {
                Just(0u32).boxed()
            };
            (Just(kind), Just(words), a, b, Just(literal))
        })
        .prop_map(|(kind, words, a, b, literal)| {
            // Dword accesses are 4-byte aligned, shorts 2-byte aligned (the guide requires
            // it; the address's low bits are not what this test is about).
            let align = |x: u32| x & !(kind.width().min(4) - 1);
            let (a, b) = match kind.stride() {
                None if matches!(kind, Kind::LoopLoad | Kind::LoopStore) => {
                    (a.wrapping_sub(b.wrapping_mul(LOOP_STEP) / 2) & !3, b)
                }
                // `a` such that the sum lands near the edges: often `a` alone is near 2^32
                // (a "negative" base the program's addition wraps into the buffer).
                None if matches!(kind, Kind::Offset(_)) => (align(a).wrapping_sub(b), b),
                None => (align(a), b),
                Some(_) => (a, align(b)),
            };
            Access {
                kind,
                words,
                a,
                b,
                literal,
            }
        })
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 1024,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn bounds_checked_accesses_touch_only_their_buffer(
        acc in access(),
        target in prop::collection::vec(any::<u8>(), 0..72),
        data in any::<[u32; 4]>(),
    ) {
        if let Err(e) = check(&acc, &target, data) {
            return Err(TestCaseError::fail(format!(
                "{acc:?} on {} bytes, data {data:x?}: {e}",
                target.len()
            )));
        }
    }
}

/// The cases of the audit, each run everywhere.
#[test]
fn audit_cases() {
    let t5: Vec<u8> = (1..=5).collect();
    let t64: Vec<u8> = (0..64).collect();
    let data = [0x1111_1111, 0x2222_2222, 0x3333_3333, 0x4444_4444];
    let raw = |kind, words, a, literal| Access {
        kind,
        words,
        a,
        b: 0,
        literal,
    };
    let mut cases = Vec::new();
    for literal in [false, true] {
        // A multi-dword access at 0xfffffffc: dword 1 at 2^32 is out of range.
        cases.push((raw(Kind::RawStore, 2, 0xffff_fffc, literal), t64.clone()));
        cases.push((raw(Kind::RawLoad, 4, 0xffff_fffc, literal), t64.clone()));
        cases.push((raw(Kind::SrvRaw, 2, 0xffff_fffc, literal), t64.clone()));
        // A dword at 4 of a 5-byte buffer is out of range.
        cases.push((raw(Kind::RawStore, 1, 4, literal), t5.clone()));
        cases.push((raw(Kind::RawLoad, 2, 0, literal), t5.clone()));
        cases.push((raw(Kind::Atomic(true), 1, 4, literal), t5.clone()));
        cases.push((raw(Kind::SubLoad(2, true), 1, 4, literal), t5.clone()));
        cases.push((raw(Kind::SubStore(2), 1, 4, literal), t5.clone()));
        cases.push((raw(Kind::SubStore(1), 1, 4, literal), t5.clone()));
        cases.push((raw(Kind::SubStore(1), 1, 5, literal), t5.clone()));
        // Index 0x20000000 times stride 8 is 2^32, not 0.
        cases.push((
            Access {
                kind: Kind::StructStore(8),
                words: 1,
                a: 0x2000_0000,
                b: 0,
                literal,
            },
            t64.clone(),
        ));
        cases.push((
            Access {
                kind: Kind::StructLoad(12),
                words: 1,
                a: 0x1555_5556,
                b: 0,
                literal,
            },
            t64.clone(),
        ));
        cases.push((raw(Kind::TypedStore, 1, 0x4000_0000, literal), t64.clone()));
        cases.push((raw(Kind::GStore, 4, 0x1000_0000, literal), t64.clone()));
        // Loops whose program-computed addresses wrap through 2^32 back into the buffer
        // (those iterations are in range) or walk off the end of an odd-sized one.
        for kind in [Kind::LoopStore, Kind::LoopLoad] {
            let lp = |a, b, t: &Vec<u8>| {
                let acc = Access {
                    kind,
                    words: 1,
                    a,
                    b,
                    literal,
                };
                (acc, t.clone())
            };
            cases.push(lp(0xffff_fff0, 4, &t64));
            cases.push(lp(0xffff_fffc, 2, &t64));
            cases.push(lp(0, 8, &t5));
            cases.push(lp(48, 4, &t64));
        }
    }
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|(acc, t)| {
            check(acc, t, data)
                .err()
                .map(|e| format!("{acc:?} on {} bytes: {e}", t.len()))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}
