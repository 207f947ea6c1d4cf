//! The launch ABI (DESIGN.md section 2): where an IL kernel's resources live when the cubin is
//! launched like a CUDA kernel.
//!
//! Kernel parameters sit in constant bank 0 from `0x140`, in this order:
//! 1. for each UAV id the function declares (ascending): a 64-bit pointer and a 64-bit size in
//!    bytes (the size drives the out-of-range rule: loads give 0, stores are dropped); a
//!    buffer holds at most [`MAX_BUFFER_BYTES`] (2 GiB - 8 MiB), which lets the code address
//!    it with sign-extended 32-bit offsets plus an immediate (the driver refuses larger ones);
//! 2. the same pair for the global buffer `g[]` if the function uses it, then for each
//!    read-only resource (SRV) id;
//! 3. for a pixel-shader (`il_ps`) kernel: the domain (width, height: two 32-bit words), its
//!    origin (x, y: two words, when the code reads the pixel position `vWinCoord0`), then
//!    a pointer and size per output `o#` it writes (one 16-byte vec4 per pixel, row-major, so
//!    the row pitch is `width * 16` bytes); for each texture resource whose size the code
//!    reads (sampling, `resinfo`): its width, height and depth in texels (three words in a
//!    16-byte slot), after the SRV pair that points at its texels; for each typed UAV the
//!    code addresses (ascending id): its view (four words: 32-bit components per element,
//!    width, height, depth in elements; `isa_amdil::interp::typed_uav`);
//! 4. the contents of each declared constant buffer (ascending id, 16-byte aligned), copied in
//!    by the driver, so a direct read is a `c[0x0][imm]` operand and an indexed one an `LDC`.
//!
//! LDS ids get consecutive 16-byte aligned ranges of shared memory; private arrays (stack
//! slots) and the register allocator's spill area share the per-thread local memory.
//!
//! Guarantees: offsets are 8-byte aligned for pointers, 16-byte aligned for constant buffers;
//! the parameter area never exceeds [`MAX_PARAM_BYTES`], shared memory and the private arrays
//! stay within the SM 5.x limits of [`crate::limits`] (else [`LayoutError`]).

use std::collections::{BTreeMap, BTreeSet};

use ilc_passes::ir::{Function, StackSlot};
use isa_spa5::cubin::{Param, PARAM_BASE};

/// Largest buffer (UAV, SRV, `g[]`, pixel output) a launch may bind, in bytes: 2^31 - 2^23.
/// Below it, `ptr + sext(x) + c` (`c` a 24-bit immediate offset) equals `ptr + ((x + c) mod
/// 2^32)` for every in-range address, so neighbouring accesses share one 64-bit address.
pub const MAX_BUFFER_BYTES: u64 = (1 << 31) - (1 << 23);

/// The parameter space of sm_50..53 kernels: 4 KiB.
pub const MAX_PARAM_BYTES: u32 = 4096;

/// What a parameter means to the IL program.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ParamKind {
    /// Base address of UAV `id`.
    UavPtr(u8),
    /// Size in bytes of UAV `id`.
    UavSize(u8),
    /// Base address of the global buffer `g[]`.
    GlobalPtr,
    /// Size in bytes of `g[]`.
    GlobalSize,
    /// Base address of read-only resource (SRV) `id`.
    SrvPtr(u8),
    /// Size in bytes of SRV `id`.
    SrvSize(u8),
    /// Contents of constant buffer `id`.
    CbData(u8),
    /// Pixel-shader domain: width and height in pixels (two 32-bit words).
    Domain,
    /// Pixel-shader domain origin: the x and y of its first pixel (two 32-bit words; CAL's
    /// `CALdomain.x/y`), added to the pixel position.
    DomainOrigin,
    /// Base address of pixel-shader output `o<id>`.
    OutPtr(u8),
    /// Size in bytes of pixel-shader output `o<id>`.
    OutSize(u8),
    /// Width, height and depth in texels of texture resource `id` (three 32-bit words).
    ResDims(u8),
    /// The view of typed UAV `id` (four 32-bit words: components per element, width,
    /// height, depth in elements); the embedder describes the resource it binds. Without
    /// one, `[1, size / 4, 1, 1]` (a 1-D array of 32-bit elements) is the convention.
    UavView(u8),
    /// Address of UAV `id`'s append/consume counter: one 32-bit word the embedder sets
    /// before the launch (the count of items already in the buffer) and reads after it.
    CounterPtr(u8),
    /// A 64-bit texture object handle (`cudaTextureObject_t`) for texture resource
    /// `resource` sampled through sampler `sampler` (`None`: only fetched/queried). The
    /// texture object carries the storage format and the sampler state (filter,
    /// addressing); `unnorm` says its coordinates are unnormalized (texel space).
    Texture {
        /// The IL resource id.
        resource: u8,
        /// The IL sampler id, if the handle is used for sampling.
        sampler: Option<u8>,
        /// Unnormalized coordinates (`_type(..,unnorm)`).
        unnorm: bool,
        /// The resource's dimensionality.
        shape: ilc_passes::ir::TexShape,
        /// Bit c: channel c is read as a float (normalized storage converts; the texture
        /// object's read mode is `cudaReadModeNormalizedFloat` when any bit is set).
        float_mask: u8,
    },
}

impl ParamKind {
    /// The parameter's id as the `.ilc.abi` table and the C API report it: the resource,
    /// buffer or output index, the handle id (below) for a texture, -1 for a kind
    /// without one.
    pub fn id(self) -> i32 {
        match self {
            ParamKind::UavPtr(i)
            | ParamKind::UavSize(i)
            | ParamKind::SrvPtr(i)
            | ParamKind::SrvSize(i)
            | ParamKind::CbData(i)
            | ParamKind::OutPtr(i)
            | ParamKind::OutSize(i)
            | ParamKind::ResDims(i)
            | ParamKind::UavView(i)
            | ParamKind::CounterPtr(i) => i as i32,
            ParamKind::GlobalPtr
            | ParamKind::GlobalSize
            | ParamKind::Domain
            | ParamKind::DomainOrigin => -1,
            ParamKind::Texture { .. } => self.texture_id(),
        }
    }

    /// The `.ilc.abi` id of a texture handle: `resource | sampler << 8 | unnorm << 16 |
    /// float_mask << 17 | shape << 21` (sampler 0xff for none; shapes numbered 1d, 1darray,
    /// 2d, 2darray, 3d, buffer).
    fn texture_id(self) -> i32 {
        let ParamKind::Texture {
            resource,
            sampler,
            unnorm,
            shape,
            float_mask,
        } = self
        else {
            return -1;
        };
        resource as i32
            | (sampler.map_or(0xff, i32::from) << 8)
            | (unnorm as i32) << 16
            | ((float_mask & 0xf) as i32) << 17
            | (shape_code(shape) as i32) << 21
    }
}

const SHAPES: [ilc_passes::ir::TexShape; 6] = {
    use ilc_passes::ir::TexShape::*;
    [D1, D1Array, D2, D2Array, D3, Buffer]
};

/// Appends a parameter of `size` bytes at the next multiple of `align` from `off` and moves
/// `off` past its slot (`align` bytes at least: a 12-byte vector fills a 16-byte slot).
fn place(params: &mut Vec<LaunchParam>, off: &mut u32, align: u32, size: u32, kind: ParamKind) {
    *off = off.next_multiple_of(align);
    params.push(LaunchParam {
        offset: *off,
        size,
        kind,
    });
    *off += size.max(align);
}

fn shape_code(s: ilc_passes::ir::TexShape) -> u8 {
    SHAPES.iter().position(|&x| x == s).unwrap_or(0) as u8
}

/// One kernel parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LaunchParam {
    /// Byte offset from the start of the parameter area (`c[0x0][0x140]` is offset 0).
    pub offset: u32,
    /// Size in bytes.
    pub size: u32,
    /// IL meaning.
    pub kind: ParamKind,
}

/// How a kernel is launched: returned to the embedder and recorded in the cubin.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LaunchLayout {
    /// Parameters in offset order.
    pub params: Vec<LaunchParam>,
    /// Offset of each LDS id in shared memory, and its size.
    pub lds: BTreeMap<u8, (u32, u32)>,
    /// Total static shared memory in bytes.
    pub shared_size: u32,
    /// Required block size (`dcl_num_thread_per_group`).
    pub block_size: Option<[u32; 3]>,
    /// Registers per thread (set after allocation).
    pub num_regs: u32,
    /// Local memory per thread in bytes: private arrays then the spill area.
    pub local_size: u32,
    /// Offset of each private array in local memory.
    pub stack_slots: BTreeMap<u32, u32>,
    /// Offset of the spill area in local memory.
    pub spill_base: u32,
    /// The code assumes a 1-D grid (`Options::launch_1d`): a launch with more than one group
    /// along y or z must use a compile without the assumption.
    pub grid_1d: bool,
    /// The typed UAVs (`dcl_uav`): the code addresses each as an array of one 32-bit
    /// component per element, so the memory bound to it must hold elements of one 32-bit
    /// component (an embedder with typed resources, such as the CAL runtime, checks that).
    pub typed_uavs: BTreeSet<u8>,
}

/// The layout cannot be built.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LayoutError {
    /// Parameters (pointers plus constant buffers) exceed the parameter space.
    #[error("kernel parameters need {0} bytes, more than the {MAX_PARAM_BYTES}-byte parameter space (constant buffers too large; the pointer fallback is not implemented)")]
    ParamsTooLarge(u32),
    /// LDS allocations exceed the shared memory of one thread group.
    #[error("LDS allocations need {0} bytes, more than the {max} bytes of shared memory per thread group", max = crate::limits::MAX_SHARED_BYTES)]
    SharedTooLarge(u32),
    /// Private arrays exceed the local memory of one thread.
    #[error("private arrays need {0} bytes, more than the {max} bytes of local memory per thread", max = crate::limits::MAX_LOCAL_BYTES)]
    LocalTooLarge(u32),
}

impl LaunchLayout {
    /// Computes the layout of `func`'s resources (registers and spill area come later).
    pub fn compute(func: &Function) -> Result<LaunchLayout, LayoutError> {
        let mut l = LaunchLayout {
            block_size: func.group_size,
            grid_1d: func.launch_1d,
            typed_uavs: func
                .uavs
                .iter()
                .filter(|(_, k)| **k == ilc_passes::ir::UavKind::Typed)
                .map(|(&id, _)| id)
                .collect(),
            ..Default::default()
        };
        // Pointers and sizes, 8 bytes each, then 16-byte vector slots, then texture handles.
        let mut off = 0u32;
        let p = &mut l.params;
        for &id in func.uavs.keys() {
            place(p, &mut off, 8, 8, ParamKind::UavPtr(id));
            place(p, &mut off, 8, 8, ParamKind::UavSize(id));
        }
        for id in counters(func) {
            place(p, &mut off, 8, 8, ParamKind::CounterPtr(id));
        }
        if func.uses_global {
            place(p, &mut off, 8, 8, ParamKind::GlobalPtr);
            place(p, &mut off, 8, 8, ParamKind::GlobalSize);
        }
        for &id in func.srvs.keys() {
            place(p, &mut off, 8, 8, ParamKind::SrvPtr(id));
            place(p, &mut off, 8, 8, ParamKind::SrvSize(id));
        }
        let c = launch_constants(func);
        if c.domain || !func.outputs.is_empty() {
            place(p, &mut off, 8, 8, ParamKind::Domain);
        }
        if c.origin {
            place(p, &mut off, 8, 8, ParamKind::DomainOrigin);
        }
        for &id in &func.outputs {
            place(p, &mut off, 8, 8, ParamKind::OutPtr(id));
            place(p, &mut off, 8, 8, ParamKind::OutSize(id));
        }
        // Vectors of launch constants, one 16-byte slot each: resource dimensions (three
        // words) and typed UAV views (four).
        for &id in &c.res_dims {
            place(p, &mut off, 16, 12, ParamKind::ResDims(id));
        }
        for &id in &c.uav_views {
            place(p, &mut off, 16, 16, ParamKind::UavView(id));
        }
        for kind in texture_handles(func) {
            place(p, &mut off, 8, 8, kind);
        }
        for (&id, &bytes) in &func.cbs {
            off = off.next_multiple_of(16);
            let size = bytes.next_multiple_of(16);
            if u64::from(off) + u64::from(size) > u64::from(MAX_PARAM_BYTES) {
                return Err(LayoutError::ParamsTooLarge(off.saturating_add(size)));
            }
            l.params.push(LaunchParam {
                offset: off,
                size,
                kind: ParamKind::CbData(id),
            });
            off += size;
        }
        if off > MAX_PARAM_BYTES {
            return Err(LayoutError::ParamsTooLarge(off));
        }
        let mut shared = 0u32;
        for (&id, &size) in &func.lds {
            shared = shared.next_multiple_of(16);
            l.lds.insert(id, (shared, size));
            shared = shared.saturating_add(size);
        }
        // The frontend rejects such declarations with a position (`crate::limits`); this
        // guards IR from elsewhere, so the layout never states a clamped size.
        if u64::from(shared) > crate::limits::MAX_SHARED_BYTES {
            return Err(LayoutError::SharedTooLarge(shared));
        }
        l.shared_size = shared;
        let mut local = 0u32;
        for (ss, data) in func.stack_slots.iter() {
            local = local.next_multiple_of(16);
            l.stack_slots.insert(slot_index(ss), local);
            local = local.saturating_add(data.size);
        }
        if u64::from(local) > crate::limits::MAX_LOCAL_BYTES {
            return Err(LayoutError::LocalTooLarge(local));
        }
        l.spill_base = local.next_multiple_of(16);
        l.local_size = local;
        Ok(l)
    }

    /// The parameter of `kind`.
    pub fn param(&self, kind: ParamKind) -> Option<&LaunchParam> {
        self.params.iter().find(|p| p.kind == kind)
    }

    /// Absolute `c[0x0][..]` byte offset of the parameter of `kind`.
    pub fn cbank_offset(&self, kind: ParamKind) -> Option<u32> {
        self.param(kind).map(|p| PARAM_BASE + p.offset)
    }

    /// The `c[0x0]` word index of the texture handle a texture instruction reads: its own
    /// (resource, sampler) handle for samples; for fetches and queries the resource's first
    /// handle.
    pub fn texture_slot(&self, tex: &ilc_passes::ir::TexArg) -> Option<u32> {
        let sample = matches!(
            tex.kind,
            ilc_passes::ir::TexKind::Sample | ilc_passes::ir::TexKind::Gather(_)
        );
        self.params
            .iter()
            .find(|p| match p.kind {
                ParamKind::Texture {
                    resource,
                    sampler,
                    unnorm,
                    ..
                } => {
                    resource == tex.resource
                        && (!sample || (sampler == Some(tex.sampler) && unnorm == tex.unnorm))
                }
                _ => false,
            })
            .map(|p| (PARAM_BASE + p.offset) / 4)
    }

    /// The parameters as the cubin's `KPARAM_INFO` sees them.
    pub fn cubin_params(&self) -> Vec<Param> {
        self.params
            .iter()
            .map(|p| Param::new(p.offset, p.size))
            .collect()
    }

    /// Total parameter bytes.
    pub fn param_bytes(&self) -> u32 {
        self.params
            .iter()
            .map(|p| p.offset + p.size)
            .max()
            .unwrap_or(0)
    }

    /// Our `.ilc.abi` section: a small text table, one line per parameter
    /// (`offset size kind id`), plus `lds`, `block`, `launch 1d`, `typed_uav ID` (one per
    /// typed UAV), `shared` and `local` lines. Runners parse it to
    /// bind `--uav`/`--cb` files.
    pub fn abi_bytes(&self) -> Vec<u8> {
        use std::fmt::Write as _;
        let mut s = String::with_capacity(64 + 48 * self.params.len());
        s.push_str("ilc-abi 1\n");
        for p in &self.params {
            let k = match p.kind {
                ParamKind::UavPtr(_) => "uav_ptr",
                ParamKind::UavSize(_) => "uav_size",
                ParamKind::GlobalPtr => "g_ptr",
                ParamKind::GlobalSize => "g_size",
                ParamKind::SrvPtr(_) => "srv_ptr",
                ParamKind::SrvSize(_) => "srv_size",
                ParamKind::CbData(_) => "cb",
                ParamKind::Domain => "domain",
                ParamKind::DomainOrigin => "domain_origin",
                ParamKind::OutPtr(_) => "out_ptr",
                ParamKind::OutSize(_) => "out_size",
                ParamKind::ResDims(_) => "res_dims",
                ParamKind::UavView(_) => "uav_view",
                ParamKind::CounterPtr(_) => "counter_ptr",
                ParamKind::Texture { .. } => "tex_handle",
            };
            let _ = writeln!(s, "param {:#x} {} {} {}", p.offset, p.size, k, p.kind.id());
        }
        for (id, (off, size)) in &self.lds {
            let _ = writeln!(s, "lds {id} {off:#x} {size}");
        }
        if let Some([x, y, z]) = self.block_size {
            let _ = writeln!(s, "block {x} {y} {z}");
        }
        if self.grid_1d {
            s.push_str("launch 1d\n");
        }
        for id in &self.typed_uavs {
            let _ = writeln!(s, "typed_uav {id}");
        }
        let _ = write!(
            s,
            "shared {}\nlocal {}\n",
            self.shared_size, self.local_size
        );
        s.into_bytes()
    }
}

impl LaunchLayout {
    /// Reads back a layout from the text [`LaunchLayout::abi_bytes`] writes (the cubin's
    /// `.ilc.abi` section), so runners can bind resources to a cubin without recompiling.
    /// The older spellings `uav_address`/`global_address`/`srv_address`/`global_size` are
    /// accepted. Registers, stack slots and the spill area are not recorded and stay empty.
    pub fn from_abi(bytes: &[u8]) -> Result<LaunchLayout, String> {
        let text = std::str::from_utf8(bytes).map_err(|_| "the ABI section is not text")?;
        let mut l = LaunchLayout::default();
        let num = |s: &str, line: &str| -> Result<i64, String> {
            match s.strip_prefix("0x") {
                Some(h) => i64::from_str_radix(h, 16),
                None => s.parse(),
            }
            .map_err(|_| format!("bad number `{s}` in `{line}`"))
        };
        for line in text.lines() {
            let f: Vec<&str> = line.split_whitespace().collect();
            let field = |i: usize| -> Result<i64, String> {
                let s = f.get(i).ok_or_else(|| format!("short line `{line}`"))?;
                num(s, line)
            };
            match f.first().copied() {
                Some("param") => {
                    let id = field(4)?;
                    let id8 = u8::try_from(id).unwrap_or(0);
                    let kind = match *f.get(3).ok_or_else(|| format!("short line `{line}`"))? {
                        "uav_ptr" | "uav_address" => ParamKind::UavPtr(id8),
                        "uav_size" => ParamKind::UavSize(id8),
                        "g_ptr" | "global_address" => ParamKind::GlobalPtr,
                        "g_size" | "global_size" => ParamKind::GlobalSize,
                        "srv_ptr" | "srv_address" => ParamKind::SrvPtr(id8),
                        "srv_size" => ParamKind::SrvSize(id8),
                        "cb" => ParamKind::CbData(id8),
                        "domain" => ParamKind::Domain,
                        "domain_origin" => ParamKind::DomainOrigin,
                        "out_ptr" => ParamKind::OutPtr(id8),
                        "out_size" => ParamKind::OutSize(id8),
                        "res_dims" => ParamKind::ResDims(id8),
                        "uav_view" => ParamKind::UavView(id8),
                        "counter_ptr" => ParamKind::CounterPtr(id8),
                        "tex_handle" => ParamKind::Texture {
                            resource: id as u8,
                            sampler: match (id >> 8) as u8 {
                                0xff => None,
                                s => Some(s),
                            },
                            unnorm: id >> 16 & 1 != 0,
                            float_mask: (id >> 17 & 0xf) as u8,
                            shape: SHAPES
                                .get((id >> 21 & 7) as usize)
                                .copied()
                                .ok_or_else(|| format!("bad texture shape in `{line}`"))?,
                        },
                        other => return Err(format!("unknown parameter kind `{other}`")),
                    };
                    l.params.push(LaunchParam {
                        offset: field(1)? as u32,
                        size: field(2)? as u32,
                        kind,
                    });
                }
                Some("lds") => {
                    let id =
                        u8::try_from(field(1)?).map_err(|_| format!("bad lds id in `{line}`"))?;
                    l.lds.insert(id, (field(2)? as u32, field(3)? as u32));
                }
                Some("block") => {
                    l.block_size = Some([field(1)? as u32, field(2)? as u32, field(3)? as u32]);
                }
                Some("launch") => match f.get(1).copied() {
                    Some("1d") => l.grid_1d = true,
                    _ => return Err(format!("unknown launch assumption in `{line}`")),
                },
                Some("typed_uav") => {
                    let id = u8::try_from(field(1)?)
                        .map_err(|_| format!("bad typed_uav id in `{line}`"))?;
                    l.typed_uavs.insert(id);
                }
                Some("shared") => l.shared_size = field(1)? as u32,
                Some("local") => l.local_size = field(1)? as u32,
                _ => {}
            }
        }
        Ok(l)
    }
}

/// The launch constants a function reads (besides buffer sizes and the grid).
#[derive(Default)]
struct LaunchConstants {
    /// The pixel-shader domain's size.
    domain: bool,
    /// The domain's origin.
    origin: bool,
    /// Texture ids whose sizes it reads.
    res_dims: BTreeSet<u8>,
    /// Typed UAV ids whose views it reads.
    uav_views: BTreeSet<u8>,
}

fn launch_constants(func: &Function) -> LaunchConstants {
    use ilc_passes::ir::{InstructionData, SpecialReg};
    let mut c = LaunchConstants::default();
    for inst in func.insts_in_layout() {
        if let InstructionData::Special { reg, .. } = func.dfg.insts[inst] {
            match reg {
                SpecialReg::Domain(_) => c.domain = true,
                SpecialReg::DomainOrigin(_) => c.origin = true,
                SpecialReg::ResDim(id, _) => {
                    c.res_dims.insert(id);
                }
                SpecialReg::UavView(id, _) => {
                    c.uav_views.insert(id);
                }
                _ => {}
            }
        }
    }
    c
}

/// The UAV ids whose append counters `func` uses.
fn counters(func: &Function) -> std::collections::BTreeSet<u8> {
    use ilc_passes::ir::MemSpace;
    func.insts_in_layout()
        .into_iter()
        .filter_map(|i| match func.dfg.insts[i].mem_arg() {
            Some(m) => match m.space {
                MemSpace::Counter(id) => Some(id),
                _ => None,
            },
            None => None,
        })
        .collect()
}

/// The texture handles `func` needs, in (resource, sampler) order: one per sampled
/// (resource, sampler) pair, plus one per resource that is only fetched or queried.
fn texture_handles(func: &Function) -> Vec<ParamKind> {
    use ilc_passes::ir::{InstructionData, TexKind};
    use std::collections::BTreeMap;
    // (resource, sampler or 256) -> (unnorm, shape, float mask)
    let mut keys: BTreeMap<(u8, u16), (bool, ilc_passes::ir::TexShape, u8)> = BTreeMap::new();
    let mut other = BTreeMap::new();
    for inst in func.insts_in_layout() {
        if let InstructionData::Texture { tex, .. } = &func.dfg.insts[inst] {
            if matches!(tex.kind, TexKind::Sample | TexKind::Gather(_)) {
                // Normalization is the texture object's: one handle per mode used.
                let e = keys
                    .entry((
                        tex.resource,
                        u16::from(tex.sampler) | (tex.unnorm as u16) << 9,
                    ))
                    .or_insert((tex.unnorm, tex.shape, 0));
                e.2 |= tex.float_mask;
            } else {
                let e = other.entry(tex.resource).or_insert((false, tex.shape, 0u8));
                e.2 |= tex.float_mask;
            }
        }
    }
    for (r, v) in other {
        match keys.iter_mut().find(|((res, _), _)| *res == r) {
            Some((_, e)) => e.2 |= v.2,
            None => {
                keys.insert((r, 256), v);
            }
        }
    }
    keys.into_iter()
        .map(
            |((resource, s), (unnorm, shape, float_mask))| ParamKind::Texture {
                resource,
                sampler: u8::try_from(s & 0x1ff).ok(),
                unnorm,
                shape,
                float_mask,
            },
        )
        .collect()
}

/// The number of a stack slot.
pub fn slot_index(ss: StackSlot) -> u32 {
    use cranelift_entity::EntityRef;
    ss.index() as u32
}

#[cfg(test)]
mod tests {
    use super::*;
    use ilc_passes::ir::UavKind;

    #[test]
    fn uavs_then_global_then_cbs() {
        let mut f = Function::new("k");
        f.uavs.insert(3, UavKind::Raw);
        f.uavs.insert(1, UavKind::Raw);
        f.uses_global = true;
        f.cbs.insert(0, 40);
        f.lds.insert(0, 100);
        f.lds.insert(2, 64);
        let l = LaunchLayout::compute(&f).unwrap();
        let kinds: Vec<_> = l.params.iter().map(|p| (p.offset, p.kind)).collect();
        assert_eq!(
            kinds,
            vec![
                (0, ParamKind::UavPtr(1)),
                (8, ParamKind::UavSize(1)),
                (16, ParamKind::UavPtr(3)),
                (24, ParamKind::UavSize(3)),
                (32, ParamKind::GlobalPtr),
                (40, ParamKind::GlobalSize),
                (48, ParamKind::CbData(0)),
            ]
        );
        assert_eq!(l.param(ParamKind::CbData(0)).unwrap().size, 48);
        assert_eq!(l.lds[&2], (112, 64));
        assert_eq!(l.shared_size, 176);
        assert_eq!(l.cbank_offset(ParamKind::UavSize(3)), Some(0x140 + 24));
    }

    #[test]
    fn abi_text_reads_back() {
        let mut f = Function::new("k");
        f.uavs.insert(1, UavKind::Raw);
        f.uavs.insert(4, UavKind::Typed);
        f.uses_global = true;
        f.outputs.insert(0);
        f.cbs.insert(2, 40);
        f.lds.insert(0, 100);
        f.group_size = Some([8, 8, 1]);
        f.launch_1d = true;
        let l = LaunchLayout::compute(&f).unwrap();
        let back = LaunchLayout::from_abi(&l.abi_bytes()).unwrap();
        assert!(back.grid_1d);
        assert_eq!(back.typed_uavs, BTreeSet::from([4]));
        assert_eq!(back.params, l.params);
        assert_eq!(back.lds, l.lds);
        assert_eq!(back.block_size, l.block_size);
        assert!(back.param(ParamKind::Domain).is_some());
        assert!(LaunchLayout::from_abi(b"param 0x0 8 bogus 0\n").is_err());
    }

    #[test]
    fn too_large_cb_is_an_error() {
        let mut f = Function::new("k");
        f.cbs.insert(0, 4096 * 16);
        assert!(matches!(
            LaunchLayout::compute(&f),
            Err(LayoutError::ParamsTooLarge(_))
        ));
    }
}
