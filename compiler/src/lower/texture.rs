//! Texture resources and pixel-shader compute: the resource model of CAL-era kernels.
//!
//! Textures (`dcl_resource_id(n)_type(..)_fmtx(..)`, `sample_resource(n)_sampler(m)`,
//! `sample_l`, `load_resource(n)` with `_aoffimmi`, `resinfo`) are lowered to ordinary
//! loads from the resource's texels (IR space `srvN`, one mip level, texels row-major) and
//! arithmetic, reproducing [`isa_amdil::interp::texture`] operation by operation: coordinate
//! scaling, point or linear filtering (weights quantized to 1/256), clamp/wrap/mirror/border
//! addressing, channel conversion with the (0, 0, 0, 1) defaults. The texture's size is a
//! launch constant (`special resdimN.x/y/z`); its storage format and the sampler state are
//! not in the IL (CAL sets them at bind time), so they are compile-time assumptions
//! ([`TexConfig`]: by default four 32-bit channels of the declared return type, point
//! filtering, clamp to edge), reported to the embedder with the launch layout.
//!
//! Pixel-shader compute (`il_ps_*`): work-items run in 8x8 groups tiling the domain (the
//! interpreter's model); pixel `(x, y) = group * 8 + tid`, work-items outside the domain
//! (`special domain.x/y`) return at once; `vWinCoord0` and interpolated `v#` inputs read
//! `(x + 0.5, y + 0.5, 0, 1)`; a write to `o#` stores the written components at byte
//! `(y * width + x) * 16 + 4 * c` of output buffer `out#`.
//!
//! Differences from the interpreter (documented, not diagnosed): texel byte addresses wrap
//! at 2^32 and f32 arithmetic flushes denormals. Texel indices are 32-bit on both sides.

use std::collections::BTreeMap;

use ilc_passes::ir::{
    FloatCC, IntCC, MemSize, MemSpace, SpecialReg, TexArg, TexKind, TexShape, UavKind, Value,
};
use isa_amdil::ast::{ElementFormat, Instruction};
use isa_amdil::interp::texture::{
    texel_offsets, AddressMode, Filter, ResourceDecl, SamplerState, TexDim, TexelFormat,
};
use isa_amdil::opcodes::Opcode;

use super::ops::{Srcs, Ty, ONE};
use super::ssa::{Var, VarFile};
use super::{LResult, Lowerer};

const HALF: u32 = 0x3F00_0000;

/// What compiled code assumes about the textures and samplers bound at launch.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct TexConfig {
    /// Storage of resource `n`: channel format and channel count (1..=4). Absent: four
    /// channels of `f32`, `u32` or `s32` after the declared return format of `.x`.
    pub textures: BTreeMap<u32, (TexelFormat, u8)>,
    /// Sampler state of sampler `m`. Absent: point filtering, clamp to edge.
    pub samplers: BTreeMap<u32, SamplerState>,
    /// Read textures with loads and filtering arithmetic (the texels a plain buffer, the
    /// format and sampler state above compiled in) instead of the texture unit (`TEX`,
    /// `TLD`, `TXQ` through texture-object parameters, where the format and sampler state
    /// are the texture object's and the code does not depend on them).
    pub use_loads: bool,
}

impl TexConfig {
    /// The storage assumed for resource `id` declared as `decl`.
    pub fn storage(&self, id: u32, decl: &ResourceDecl) -> (TexelFormat, u8) {
        if let Some(&(f, n)) = self.textures.get(&id) {
            return (f, n.clamp(1, 4));
        }
        let f = match decl.fmt[0] {
            ElementFormat::Uint => TexelFormat::U32,
            ElementFormat::Sint => TexelFormat::S32,
            _ => TexelFormat::F32,
        };
        (f, 4)
    }

    /// The sampler state assumed for sampler `id`.
    pub fn sampler(&self, id: u32) -> SamplerState {
        self.samplers.get(&id).copied().unwrap_or_default()
    }
}

fn float_fmt(f: ElementFormat) -> bool {
    matches!(
        f,
        ElementFormat::Float | ElementFormat::Unorm | ElementFormat::Snorm | ElementFormat::Srgb
    )
}

fn layer_comp(dim: TexDim) -> Option<usize> {
    match dim {
        TexDim::D1Array => Some(1),
        TexDim::D2Array => Some(2),
        _ => None,
    }
}

/// One texture access being lowered.
struct Tex {
    space: MemSpace,
    id: u8,
    decl: ResourceDecl,
    format: TexelFormat,
    channels: u8,
}

impl Lowerer<'_> {
    /// `sample`, `sample_l`, `load` and `resinfo`.
    pub(crate) fn lower_tex(&mut self, st: &Instruction) -> LResult<()> {
        let name = st.opcode.mnemonic();
        let res = st
            .resource()
            .ok_or_else(|| format!("{name} needs _resource(n)"))?;
        if st.generic("ext").is_some() || st.generic("indexed").is_some() {
            return Err(format!(
                "{name} with an indexed resource or sampler (_ext) is not supported"
            ));
        }
        let mut decl = *self
            .decls
            .resources
            .get(&res)
            .ok_or_else(|| format!("resource {res} is not declared"))?;
        if let Some(u) = isa_amdil::interp::texture::coord_mode(st)? {
            decl.unnorm = u;
        }
        let id = u8::try_from(res).map_err(|_| format!("resource id {res} is out of range"))?;
        if st.opcode == Opcode::Fetch4 {
            if !matches!(decl.dim, TexDim::D2 | TexDim::D2Array) {
                return Err(format!("{name} needs a 2-D resource"));
            }
            if texel_offsets(st)?.is_some() {
                return Err(format!("{name} with _addroffimmi is not supported"));
            }
        }
        if !self.tex_config.use_loads {
            return self.lower_tex_unit(st, id, &decl);
        }
        self.func.srvs.insert(id, UavKind::Typed);
        let (format, channels) = self.tex_config.storage(res, &decl);
        let t = Tex {
            space: MemSpace::Srv(id),
            id,
            decl,
            format,
            channels,
        };
        let w = self.dst_writes(st);
        if !w.iter().any(|&b| b) {
            return self.write_dst(st, Ty::Untyped, [None; 4]);
        }
        let mut srcs = Srcs::default();
        let r = match st.opcode {
            Opcode::Sample | Opcode::SampleL => {
                if decl.dim == TexDim::Buffer {
                    return Err(format!("{name} on buffer resource {res}"));
                }
                let sampler = st
                    .sampler()
                    .ok_or_else(|| format!("{name} needs _sampler(m)"))?;
                let mut coord = [self.iconst(0); 4];
                for (c, v) in coord.iter_mut().enumerate() {
                    *v = srcs.get(self, st, 0, c, Ty::Untyped)?;
                }
                let s = self.tex_config.sampler(sampler);
                self.tex_sample(&t, &s, coord)
            }
            Opcode::Fetch4 => {
                let sampler = st
                    .sampler()
                    .ok_or_else(|| format!("{name} needs _sampler(m)"))?;
                let comp = isa_amdil::interp::texture::comp_select(st)?;
                let mut coord = [self.iconst(0); 4];
                for (c, v) in coord.iter_mut().enumerate() {
                    *v = srcs.get(self, st, 0, c, Ty::Untyped)?;
                }
                let s = self.tex_config.sampler(sampler);
                self.tex_gather(&t, &s, coord, comp)
            }
            Opcode::Load => {
                let off = texel_offsets(st)?.unwrap_or_default();
                let mut coord = [self.iconst(0); 4];
                for (c, v) in coord.iter_mut().enumerate() {
                    *v = srcs.get(self, st, 0, c, Ty::Int)?;
                }
                self.tex_load(&t, coord, off)
            }
            _ => {
                let mip = srcs.get(self, st, 0, 0, Ty::Int)?;
                self.tex_resinfo(&t, mip, st.generic("uint").is_some())
            }
        };
        self.write_dst(st, Ty::Untyped, r.map(Some))
    }

    /// `sample`/`sample_l`/`load`/`resinfo` through the texture unit: one `tex` instruction.
    /// The coordinates go as the interpreter reads them (post-swizzle `src0`): float
    /// coordinates and a layer rounded half to even and clamped at 0 for samples, integer
    /// coordinates plus `_aoffimmi` offsets, the layer and the mip (`.w`) for loads.
    fn lower_tex_unit(&mut self, st: &Instruction, id: u8, decl: &ResourceDecl) -> LResult<()> {
        let name = st.opcode.mnemonic();
        let w = self.dst_writes(st);
        if !w.iter().any(|&b| b) {
            return self.write_dst(st, Ty::Untyped, [None; 4]);
        }
        let shape = match decl.dim {
            TexDim::D1 => TexShape::D1,
            TexDim::D1Array => TexShape::D1Array,
            TexDim::D2 => TexShape::D2,
            TexDim::D2Array => TexShape::D2Array,
            TexDim::D3 => TexShape::D3,
            TexDim::Buffer => TexShape::Buffer,
        };
        let axes = decl.dim.axes();
        let mut srcs = Srcs::default();
        let mut args: Vec<Value> = Vec::with_capacity(5);
        let (kind, sampler) = match st.opcode {
            Opcode::Sample | Opcode::SampleL | Opcode::Fetch4 => {
                if decl.dim == TexDim::Buffer {
                    return Err(format!("{name} on buffer resource {id}"));
                }
                let sampler = st
                    .sampler()
                    .ok_or_else(|| format!("{name} needs _sampler(m)"))?;
                let sampler = u8::try_from(sampler)
                    .map_err(|_| format!("sampler id {sampler} is out of range"))?;
                for c in 0..axes {
                    args.push(srcs.get(self, st, 0, c, Ty::Untyped)?);
                }
                if let Some(lc) = layer_comp(decl.dim) {
                    let l = srcs.get(self, st, 0, lc, Ty::Untyped)?;
                    let l = self.nan_to_zero(l);
                    let l = self.cursor().ins().fround_even(l);
                    let l = self.cursor().ins().f2i(l);
                    let z = self.iconst(0);
                    args.push(self.cursor().ins().imax(l, z));
                }
                if st.opcode == Opcode::Fetch4 {
                    let c = isa_amdil::interp::texture::comp_select(st)?;
                    (TexKind::Gather(c as u8), sampler)
                } else {
                    (TexKind::Sample, sampler)
                }
            }
            Opcode::Load => {
                let off = texel_offsets(st)?.unwrap_or_default();
                for (c, &o) in off.iter().enumerate().take(axes) {
                    let v = srcs.get(self, st, 0, c, Ty::Int)?;
                    args.push(if o != 0 && decl.dim != TexDim::Buffer {
                        let k = self.iconst(o as u32);
                        self.cursor().ins().iadd(v, k)
                    } else {
                        v
                    });
                }
                if let Some(lc) = layer_comp(decl.dim) {
                    args.push(srcs.get(self, st, 0, lc, Ty::Int)?);
                }
                if decl.dim != TexDim::Buffer {
                    args.push(srcs.get(self, st, 0, 3, Ty::Int)?);
                }
                (TexKind::Fetch, 0)
            }
            _ => {
                args.push(srcs.get(self, st, 0, 0, Ty::Int)?);
                (TexKind::Query, 0)
            }
        };
        let tex = TexArg {
            kind,
            resource: id,
            sampler,
            shape,
            unnorm: matches!(kind, TexKind::Sample | TexKind::Gather(_)) && decl.unnorm,
            float_mask: if kind == TexKind::Query {
                0
            } else {
                (0..4)
                    .filter(|&c| float_fmt(decl.fmt[c]))
                    .fold(0, |m, c| m | 1 << c)
            },
        };
        let r = self.cursor().ins().tex(tex, &args);
        let mut r = [r[0], r[1], r[2], r[3]];
        if kind == TexKind::Query && st.generic("uint").is_none() {
            r = r.map(|x| self.cursor().ins().u2f(x));
        }
        self.write_dst(st, Ty::Untyped, r.map(Some))
    }

    /// The size of texture `id` along `axis`, at least 1 (`dims[a].max(1)`).
    fn tex_dim(&mut self, id: u8, axis: usize, at_least_one: bool) -> Value {
        self.at_entry = true;
        let d = self
            .cursor()
            .ins()
            .special(SpecialReg::ResDim(id, axis as u8));
        let d = if at_least_one {
            let one = self.iconst(1);
            self.cursor().ins().umax(d, one)
        } else {
            d
        };
        self.at_entry = false;
        d
    }

    /// A float that is NaN becomes +0.
    fn nan_to_zero(&mut self, x: Value) -> Value {
        let nan = self.cursor().ins().fcmp(FloatCC::Uno, x, x);
        let z = self.iconst(0);
        self.cursor().ins().select(nan, z, x)
    }

    fn tex_sample(&mut self, t: &Tex, s: &SamplerState, coord: [Value; 4]) -> [Value; 4] {
        let axes = t.decl.dim.axes();
        let mut pos = Vec::with_capacity(axes);
        for (a, &c) in coord.iter().enumerate().take(axes) {
            let c = self.nan_to_zero(c);
            pos.push(if t.decl.unnorm {
                c
            } else {
                let d = self.tex_dim(t.id, a, true);
                let df = self.cursor().ins().u2f(d);
                self.cursor().ins().fmul(c, df)
            });
        }
        let mut base: [Option<Value>; 3] = [None; 3];
        if let Some(l) = self.tex_layer(t, coord) {
            base[axes] = Some(l);
        }
        let ints_only = t.decl.fmt.iter().any(|f| !float_fmt(*f));
        if s.filter == Filter::Point || ints_only {
            let mut idx = base;
            for (a, &p) in pos.iter().enumerate() {
                let f = self.cursor().ins().ffloor(p);
                idx[a] = Some(self.cursor().ins().f2i(f));
            }
            return self.texel(t, s, idx);
        }
        // Linear: weights in 1/256 steps around coord - 0.5.
        let mut i0 = Vec::with_capacity(axes);
        let mut w = Vec::with_capacity(axes);
        for &p in &pos {
            let half = self.iconst(HALF);
            let p = self.cursor().ins().fsub(p, half);
            let f = self.cursor().ins().ffloor(p);
            i0.push(self.cursor().ins().f2i(f));
            let frac = self.cursor().ins().fsub(p, f);
            let k256 = self.iconst(256f32.to_bits());
            let x = self.cursor().ins().fmul(frac, k256);
            // round half away from zero on x >= 0: trunc(x) + (x - trunc(x) >= 0.5).
            let tr = self.cursor().ins().ftrunc(x);
            let d = self.cursor().ins().fsub(x, tr);
            let half = self.iconst(HALF);
            let up = self.cursor().ins().fcmp(FloatCC::Oge, d, half);
            let one = self.iconst(ONE);
            let tr1 = self.cursor().ins().fadd(tr, one);
            let r = self.cursor().ins().select(up, tr1, tr);
            let inv = self.iconst((1.0f32 / 256.0).to_bits());
            w.push(self.cursor().ins().fmul(r, inv));
        }
        let mut acc = [self.iconst(0); 4];
        for corner in 0..(1usize << axes) {
            let mut idx = base;
            let mut weight = self.iconst(ONE);
            for a in 0..axes {
                let hi = corner >> a & 1 == 1;
                idx[a] = Some(if hi {
                    let one = self.iconst(1);
                    self.cursor().ins().iadd(i0[a], one)
                } else {
                    i0[a]
                });
                let f = if hi {
                    w[a]
                } else {
                    let one = self.iconst(ONE);
                    self.cursor().ins().fsub(one, w[a])
                };
                weight = self.cursor().ins().fmul(weight, f);
            }
            let tx = self.texel(t, s, idx);
            for c in 0..4 {
                let m = self.cursor().ins().fmul(weight, tx[c]);
                acc[c] = self.cursor().ins().fadd(acc[c], m);
            }
        }
        acc
    }

    /// `fetch4`: component `comp` of the texels at (i0, j1), (i1, j1), (i1, j0), (i0, j0)
    /// around `coord - 0.5` (as [`isa_amdil::interp::texture::gather`]).
    fn tex_gather(
        &mut self,
        t: &Tex,
        s: &SamplerState,
        coord: [Value; 4],
        comp: usize,
    ) -> [Value; 4] {
        let mut i0 = Vec::with_capacity(2);
        for (a, &c) in coord.iter().enumerate().take(2) {
            let c = self.nan_to_zero(c);
            let p = if t.decl.unnorm {
                c
            } else {
                let d = self.tex_dim(t.id, a, true);
                let df = self.cursor().ins().u2f(d);
                self.cursor().ins().fmul(c, df)
            };
            let half = self.iconst(HALF);
            let p = self.cursor().ins().fsub(p, half);
            let f = self.cursor().ins().ffloor(p);
            i0.push(self.cursor().ins().f2i(f));
        }
        let layer = self.tex_layer(t, coord);
        let one = self.iconst(1);
        let i1 = [
            self.cursor().ins().iadd(i0[0], one),
            self.cursor().ins().iadd(i0[1], one),
        ];
        let corners = [
            (i0[0], i1[1]),
            (i1[0], i1[1]),
            (i1[0], i0[1]),
            (i0[0], i0[1]),
        ];
        corners.map(|(x, y)| self.texel(t, s, [Some(x), Some(y), layer])[comp & 3])
    }

    /// An array texture's layer: `coord`'s layer component rounded half to even and clamped
    /// to the layers (NaN reads layer 0); `None` for other textures.
    fn tex_layer(&mut self, t: &Tex, coord: [Value; 4]) -> Option<Value> {
        let lc = layer_comp(t.decl.dim)?;
        let axes = t.decl.dim.axes();
        let l = self.nan_to_zero(coord[lc]);
        let l = self.cursor().ins().fround_even(l);
        let l = self.cursor().ins().f2i(l);
        let z = self.iconst(0);
        let n = self.tex_dim(t.id, axes, true);
        let one = self.iconst(1);
        let max = self.cursor().ins().isub(n, one);
        let l = self.cursor().ins().imax(l, z);
        Some(self.cursor().ins().imin(l, max))
    }

    /// Texel at signed indices `idx` after `s`'s addressing, converted; border texels are 0.
    fn texel(&mut self, t: &Tex, s: &SamplerState, idx: [Option<Value>; 3]) -> [Value; 4] {
        let mut at = [self.iconst(0); 3];
        let mut outside: Option<Value> = None;
        for a in 0..3 {
            let Some(i) = idx[a] else { continue };
            let n = self.tex_dim(t.id, a, true);
            at[a] = match s.address[a] {
                AddressMode::Clamp => {
                    let z = self.iconst(0);
                    let one = self.iconst(1);
                    let max = self.cursor().ins().isub(n, one);
                    let i = self.cursor().ins().imax(i, z);
                    self.cursor().ins().imin(i, max)
                }
                AddressMode::Border => {
                    let o = self.cursor().ins().icmp(IntCC::Uge, i, n);
                    outside = Some(match outside {
                        Some(p) => self.cursor().ins().por(p, o),
                        None => o,
                    });
                    i
                }
                AddressMode::Wrap => self.rem_euclid(i, n),
                AddressMode::Mirror => {
                    let n2 = self.cursor().ins().iadd(n, n);
                    let m = self.rem_euclid(i, n2);
                    let lo = self.cursor().ins().icmp(IntCC::Ult, m, n);
                    let one = self.iconst(1);
                    let top = self.cursor().ins().isub(n2, one);
                    let r = self.cursor().ins().isub(top, m);
                    self.cursor().ins().select(lo, m, r)
                }
            };
        }
        let v = self.fetch(t, at);
        match outside {
            None => v,
            Some(o) => {
                let z = self.iconst(0);
                v.map(|x| self.cursor().ins().select(o, z, x))
            }
        }
    }

    /// `i.rem_euclid(n)` for `n >= 1`.
    fn rem_euclid(&mut self, i: Value, n: Value) -> Value {
        let r = self.cursor().ins().irem(i, n);
        let z = self.iconst(0);
        let neg = self.cursor().ins().icmp(IntCC::Slt, r, z);
        let rn = self.cursor().ins().iadd(r, n);
        self.cursor().ins().select(neg, rn, r)
    }

    /// Converted channels of the texel at in-range indices `at`.
    fn fetch(&mut self, t: &Tex, at: [Value; 3]) -> [Value; 4] {
        let w = self.tex_dim(t.id, 0, true);
        let h = self.tex_dim(t.id, 1, true);
        let zy = self.cursor().ins().imad(at[2], h, at[1]);
        let idx = self.cursor().ins().imad(zy, w, at[0]);
        let b = t.format.bytes() as u32;
        let tb = self.iconst(b * u32::from(t.channels));
        let addr = self.cursor().ins().imul(idx, tb);
        let size = match t.format {
            TexelFormat::Unorm8 | TexelFormat::U8 => MemSize::U8,
            TexelFormat::Unorm16 | TexelFormat::U16 => MemSize::U16,
            _ => MemSize::Words(1),
        };
        let mut out = [self.iconst(0); 4];
        for (c, o) in out.iter_mut().enumerate() {
            let want_float = float_fmt(t.decl.fmt[c]);
            *o = if c >= t.channels as usize {
                match (c, want_float) {
                    (3, true) => self.iconst(ONE),
                    (3, false) => self.iconst(1),
                    _ => self.iconst(0),
                }
            } else {
                let m = ilc_passes::ir::MemArg {
                    space: t.space,
                    offset: (c as u32 * b) as i32,
                    size,
                    align: size.natural_align(),
                    inbounds: false,
                };
                let raw = self.cursor().ins().load(m, Some(addr))[0];
                if matches!(t.format, TexelFormat::Unorm8 | TexelFormat::Unorm16) && want_float {
                    let max = if t.format == TexelFormat::Unorm8 {
                        255.0f32
                    } else {
                        65535.0
                    };
                    // u / max correctly rounded, as the texture unit and the interpreter
                    // convert: q = u * (1/max) and one residual step (checked exhaustively for
                    // every u of both widths; `fdiv` is allowed 2 ulp).
                    let f = self.cursor().ins().u2f(raw);
                    let k = self.iconst(max.to_bits());
                    let inv = self.iconst((1.0 / max).to_bits());
                    let q = self.cursor().ins().fmul(f, inv);
                    let nq = self.cursor().ins().fneg(q);
                    let e = self.cursor().ins().ffma(nq, k, f);
                    self.cursor().ins().ffma(e, inv, q)
                } else {
                    raw
                }
            };
        }
        out
    }

    fn tex_load(&mut self, t: &Tex, coord: [Value; 4], offset: [i32; 3]) -> [Value; 4] {
        let axes = t.decl.dim.axes();
        let mut bad: Option<Value> = None;
        let mut or = |l: &mut Self, p: Value| {
            bad = Some(match bad {
                Some(b) => l.cursor().ins().por(b, p),
                None => p,
            });
        };
        if t.decl.dim != TexDim::Buffer {
            let z = self.iconst(0);
            let mip = self.cursor().ins().icmp(IntCC::Ne, coord[3], z);
            or(self, mip);
        }
        let mut at = [self.iconst(0); 3];
        for a in 0..axes {
            let off = if t.decl.dim == TexDim::Buffer {
                0
            } else {
                offset[a]
            };
            let v = if off != 0 {
                let k = self.iconst(off as u32);
                self.cursor().ins().iadd(coord[a], k)
            } else {
                coord[a]
            };
            let n = self.tex_dim(t.id, a, false);
            let o = self.cursor().ins().icmp(IntCC::Uge, v, n);
            or(self, o);
            at[a] = v;
        }
        if let Some(lc) = layer_comp(t.decl.dim) {
            let n = self.tex_dim(t.id, axes, false);
            let o = self.cursor().ins().icmp(IntCC::Uge, coord[lc], n);
            or(self, o);
            at[axes] = coord[lc];
        }
        // In-range indices only reach memory (an out-of-range one would alias another texel).
        let safe = match bad {
            Some(b) => {
                let z = self.iconst(0);
                at.map(|x| self.cursor().ins().select(b, z, x))
            }
            None => at,
        };
        let v = self.fetch(t, safe);
        match bad {
            None => v,
            Some(b) => {
                let z = self.iconst(0);
                v.map(|x| self.cursor().ins().select(b, z, x))
            }
        }
    }

    fn tex_resinfo(&mut self, t: &Tex, mip: Value, uint: bool) -> [Value; 4] {
        let z = self.iconst(0);
        let level0 = self.cursor().ins().icmp(IntCC::Eq, mip, z);
        let axes_present: [bool; 3] = match t.decl.dim {
            TexDim::Buffer | TexDim::D1 => [true, false, false],
            TexDim::D1Array => [true, false, true],
            TexDim::D2 => [true, true, false],
            TexDim::D2Array | TexDim::D3 => [true, true, true],
        };
        let mut v = [z; 4];
        for a in 0..3 {
            if axes_present[a] {
                // A 1-D array's layer count is the texture's second dimension.
                let src = if t.decl.dim == TexDim::D1Array && a == 2 {
                    1
                } else {
                    a
                };
                let d = self.tex_dim(t.id, src, false);
                v[a] = self.cursor().ins().select(level0, d, z);
            }
        }
        v[3] = self.iconst(1);
        if uint {
            v
        } else {
            v.map(|x| self.cursor().ins().u2f(x))
        }
    }

    // ---- pixel-shader compute ----

    /// Pixel coordinate `axis` (0 = x, 1 = y) of the work-item, computed in the entry block.
    fn pixel(&mut self, axis: usize) -> Value {
        if let Some(v) = self.ps_pixel[axis] {
            return v;
        }
        self.at_entry = true;
        let g = self.cursor().ins().special(SpecialReg::GroupId(axis as u8));
        let t = self.cursor().ins().special(SpecialReg::Tid(axis as u8));
        let k = self.iconst(8);
        let v = self.cursor().ins().imad(g, k, t);
        self.at_entry = false;
        self.ps_pixel[axis] = Some(v);
        v
    }

    /// Ends the entry block with the domain check of pixel-shader compute: work-items
    /// outside the domain return; lowering continues in the block of the others.
    pub(crate) fn pixel_guard(&mut self) {
        let x = self.pixel(0);
        let y = self.pixel(1);
        let w = self.cursor().ins().special(SpecialReg::Domain(0));
        let h = self.cursor().ins().special(SpecialReg::Domain(1));
        let ox = self.cursor().ins().icmp(IntCC::Uge, x, w);
        let oy = self.cursor().ins().icmp(IntCC::Uge, y, h);
        let out = self.cursor().ins().por(ox, oy);
        let exit = self.func.dfg.make_block();
        let body = self.func.dfg.make_block();
        self.branch_to(out, exit, body);
        self.ssa.seal(&mut self.func, exit);
        self.ssa.seal(&mut self.func, body);
        self.switch_to(exit);
        self.cursor().ins().return_();
        self.switch_to(body);
    }

    /// `vWinCoord0` / interpolated `v#` in pixel-shader compute: `(x + 0.5, y + 0.5, 0, 1)`
    /// for the pixel (x, y) = the domain's origin plus the work-item's place in the domain.
    pub(crate) fn win_coord(&mut self, c: usize) -> Value {
        match c {
            0 | 1 => {
                if let Some(v) = self.ps_coord[c] {
                    return v;
                }
                let p = self.pixel(c);
                self.at_entry = true;
                let origin = self
                    .cursor()
                    .ins()
                    .special(SpecialReg::DomainOrigin(c as u8));
                let p = self.cursor().ins().iadd(p, origin);
                let f = self.cursor().ins().u2f(p);
                let half = self.iconst(HALF);
                let v = self.cursor().ins().fadd(f, half);
                self.at_entry = false;
                self.ps_coord[c] = Some(v);
                v
            }
            2 => self.iconst(0),
            _ => self.iconst(ONE),
        }
    }

    /// A write to pixel-shader output `o<n>`.
    pub(crate) fn store_output(&mut self, n: u32, out: [Option<Value>; 4]) -> LResult<()> {
        let id = u8::try_from(n).map_err(|_| format!("output o{n} is out of range"))?;
        self.func.outputs.insert(id);
        let x = self.pixel(0);
        let y = self.pixel(1);
        self.at_entry = true;
        let w = self.cursor().ins().special(SpecialReg::Domain(0));
        let row = self.cursor().ins().imad(y, w, x);
        let k = self.iconst(4);
        let addr = self.cursor().ins().ishl(row, k);
        self.at_entry = false;
        for (c, v) in out.iter().enumerate() {
            if let Some(v) = *v {
                // `o#` also reads like a register: the value this pixel wrote last.
                let var = Var {
                    file: VarFile::Output,
                    index: n,
                    comp: c as u8,
                };
                self.ssa.write(var, self.cur, v);
                let m = ilc_passes::ir::MemArg {
                    space: MemSpace::Output(id),
                    offset: 4 * c as i32,
                    size: MemSize::Words(1),
                    align: 4,
                    inbounds: false,
                };
                self.cursor().ins().store(m, Some(addr), &[v]);
            }
        }
        Ok(())
    }
}
