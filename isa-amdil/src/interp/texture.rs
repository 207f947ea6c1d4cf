//! Texture resources and samplers: what `sample_resource`, `sample_l`, `load_resource` and
//! `resinfo` read (guide 7.6: SAMPLE L5155, SAMPLE_L L5327, LOAD L4958, RESINFO L5139).
//!
//! IL declares a resource's dimension and per-component *return* formats
//! (`dcl_resource_id(n)_type(2d,unnorm)_fmtx(float)...`, L4284); the texel storage format,
//! the size and the sampler state (filter, addressing) are set by the runtime (CAL), not by
//! the kernel. A [`Texture`] carries what the runtime would bind; a [`SamplerState`] what it
//! would set, with defaults a CAL compute program gets: point filtering, clamp to edge.
//!
//! Semantics chosen where the guide is silent (the SPA 5.0 emulator implements the same):
//! - One mip level: `sample_l`'s LOD and `sample`'s implicit derivatives (none in compute)
//!   select level 0; `load`'s `.w` mip must be 0, otherwise the result is 0 (L4970).
//! - Normalized coordinates map `[0, 1)` onto `[0, size)`; unnormalized (`_type(..,unnorm)`)
//!   coordinates are texel space. Point sampling takes `floor`, linear filtering the four
//!   (eight in 3-D) texels around `coord - 0.5`, with weights quantized to 8 fraction bits
//!   (9-bit fixed point, as NVIDIA texture units do).
//! - Filtering is IL float arithmetic: coordinates, texel values and partial sums flush
//!   denormals to zero (guide 6.3).
//! - Texel indices are 32-bit signed integers: `floor(coord)` saturates to the i32 range
//!   (NaN coordinates read as 0) and the linear filter's `i + 1` wraps, as a 32-bit
//!   implementation computes them (the compiled code does).
//! - Addressing applies per axis: clamp to edge, wrap (repeat), mirror, or border (texels
//!   outside read as zero). Array layers are `round(coord)` clamped to the layer range.
//! - Missing components read as (0, 0, 0, 1): 1.0 for float/unorm/snorm return formats,
//!   integer 1 otherwise. Normalized storage returns a float only when the declared return
//!   format is float/unorm/snorm, else its raw integer.
//! - `load` outside the texture on any axis returns (0, 0, 0, 0) (L4994).
//! - `resinfo` gives (width, height, depth or layers, mip count) of mip `src0.x`, as floats
//!   unless `_uint`; a level past the last gives zeros except the mip count.

use crate::ast::ElementFormat;

/// The declared dimension of a resource (`ILPixTexUsage`, L4284).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TexDim {
    /// `buffer`: 1-D, `load` only.
    Buffer,
    /// `1d`.
    D1,
    /// `1darray`: layer in `.y`.
    D1Array,
    /// `2d`.
    D2,
    /// `2darray`: layer in `.z`.
    D2Array,
    /// `3d`.
    D3,
}

impl TexDim {
    /// From the `_type(..)` name; `None` for cube maps, MSAA and the other graphics types.
    pub fn from_name(name: &str) -> Option<TexDim> {
        Some(match name.to_ascii_lowercase().as_str() {
            "buffer" => TexDim::Buffer,
            "1d" => TexDim::D1,
            "1darray" => TexDim::D1Array,
            "2d" => TexDim::D2,
            "2darray" => TexDim::D2Array,
            "3d" => TexDim::D3,
            _ => return None,
        })
    }

    /// Number of filtered axes (array layers are not filtered).
    pub fn axes(self) -> usize {
        match self {
            TexDim::Buffer | TexDim::D1 | TexDim::D1Array => 1,
            TexDim::D2 | TexDim::D2Array => 2,
            TexDim::D3 => 3,
        }
    }

    /// Which source component holds the array layer.
    pub fn layer_comp(self) -> Option<usize> {
        match self {
            TexDim::D1Array => Some(1),
            TexDim::D2Array => Some(2),
            _ => None,
        }
    }
}

/// A resource declaration as the kernel states it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResourceDecl {
    /// Dimension.
    pub dim: TexDim,
    /// `unnorm`: coordinates are in texel space.
    pub unnorm: bool,
    /// Return format per component.
    pub fmt: [ElementFormat; 4],
}

/// A sample's `_coordtype(..)` (ILTexCoordMode, guide 6.27): `Some(true)` unnormalized,
/// `Some(false)` normalized, `None` absent or `unknown` (the resource's declaration decides).
pub fn coord_mode(st: &crate::ast::Instruction) -> Result<Option<bool>, String> {
    match st.generic("coordtype").or_else(|| st.generic("coordmode")) {
        None => Ok(None),
        Some(v) => match v.unwrap_or("").trim() {
            "normalized" => Ok(Some(false)),
            "unnormalized" => Ok(Some(true)),
            "unknown" => Ok(None),
            other => Err(format!(
                "_coordtype({other}) is not normalized, unnormalized or unknown"
            )),
        },
    }
}

/// The declaration `dcl_resource_id(n)_type(dim[,unnorm])_fmtx(..)..` as a [`ResourceDecl`];
/// the error names what is not supported (cube maps, MSAA, a missing `_type`).
pub fn resource_decl(st: &crate::ast::Instruction) -> Result<ResourceDecl, String> {
    let mut decl = ResourceDecl {
        dim: TexDim::D2,
        unnorm: false,
        fmt: [crate::ast::ElementFormat::Float; 4],
    };
    let mut have_type = false;
    for c in &st.controls {
        match c {
            crate::ast::Control::Generic { name, value, .. } if name == "type" => {
                let v = value.as_deref().unwrap_or("");
                let mut parts = v.split(',').map(str::trim);
                let t = parts.next().unwrap_or("");
                decl.dim = TexDim::from_name(t).ok_or_else(|| {
                    format!("resource type {t} (cube maps, MSAA and graphics types)")
                })?;
                decl.unnorm = parts.any(|p| p.eq_ignore_ascii_case("unnorm"));
                have_type = true;
            }
            crate::ast::Control::Fmt(i, f) if (*i as usize) < 4 => decl.fmt[*i as usize] = *f,
            _ => {}
        }
    }
    if !have_type {
        return Err("dcl_resource without _type(..)".into());
    }
    Ok(decl)
}

/// How one texel channel is stored in memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TexelFormat {
    /// 32-bit float.
    F32,
    /// 32-bit unsigned integer.
    U32,
    /// 32-bit signed integer.
    S32,
    /// 8-bit unsigned normalized (`v / 255`).
    Unorm8,
    /// 8-bit unsigned integer.
    U8,
    /// 16-bit unsigned normalized (`v / 65535`).
    Unorm16,
    /// 16-bit unsigned integer.
    U16,
}

impl TexelFormat {
    /// Bytes per channel.
    pub fn bytes(self) -> usize {
        match self {
            TexelFormat::F32 | TexelFormat::U32 | TexelFormat::S32 => 4,
            TexelFormat::Unorm8 | TexelFormat::U8 => 1,
            TexelFormat::Unorm16 | TexelFormat::U16 => 2,
        }
    }

    /// From a name as tools write it (`f32`, `u32`, `s32`, `unorm8`, `u8`, `unorm16`, `u16`).
    pub fn from_name(name: &str) -> Option<TexelFormat> {
        Some(match name.to_ascii_lowercase().as_str() {
            "f32" | "float" => TexelFormat::F32,
            "u32" | "uint" => TexelFormat::U32,
            "s32" | "i32" | "sint" => TexelFormat::S32,
            "unorm8" => TexelFormat::Unorm8,
            "u8" => TexelFormat::U8,
            "unorm16" => TexelFormat::Unorm16,
            "u16" => TexelFormat::U16,
            _ => return None,
        })
    }

    fn normalized(self) -> bool {
        matches!(self, TexelFormat::Unorm8 | TexelFormat::Unorm16)
    }
}

/// Texture filtering.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Hash)]
pub enum Filter {
    /// Nearest texel.
    #[default]
    Point,
    /// Bi/trilinear interpolation of the neighbouring texels (float formats only).
    Linear,
}

/// What a coordinate outside the texture reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Hash)]
pub enum AddressMode {
    /// Clamp to the edge texel.
    #[default]
    Clamp,
    /// Repeat.
    Wrap,
    /// Mirrored repeat.
    Mirror,
    /// Zero outside.
    Border,
}

impl AddressMode {
    /// From `clamp`, `wrap`, `mirror` or `border`.
    pub fn from_name(name: &str) -> Option<AddressMode> {
        Some(match name.to_ascii_lowercase().as_str() {
            "clamp" => AddressMode::Clamp,
            "wrap" | "repeat" => AddressMode::Wrap,
            "mirror" => AddressMode::Mirror,
            "border" => AddressMode::Border,
            _ => return None,
        })
    }

    /// Maps texel index `i` into `0..n`, or `None` for a border texel.
    fn apply(self, i: i64, n: u32) -> Option<u32> {
        let n = n.max(1) as i64;
        Some(match self {
            AddressMode::Clamp => i.clamp(0, n - 1),
            AddressMode::Border => {
                if i < 0 || i >= n {
                    return None;
                }
                i
            }
            AddressMode::Wrap => i.rem_euclid(n),
            AddressMode::Mirror => {
                let m = i.rem_euclid(2 * n);
                if m < n {
                    m
                } else {
                    2 * n - 1 - m
                }
            }
        } as u32)
    }
}

/// Sampler state bound to a sampler id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Hash)]
pub struct SamplerState {
    /// Filtering.
    pub filter: Filter,
    /// Addressing per axis (u, v, w).
    pub address: [AddressMode; 3],
}

impl SamplerState {
    /// Parses `point|linear[,clamp|wrap|mirror|border]` (one address mode for all axes).
    pub fn parse(text: &str) -> Option<SamplerState> {
        let mut s = SamplerState::default();
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            match part.to_ascii_lowercase().as_str() {
                "point" | "nearest" => s.filter = Filter::Point,
                "linear" => s.filter = Filter::Linear,
                other => s.address = [AddressMode::from_name(other)?; 3],
            }
        }
        Some(s)
    }
}

/// A bound texture: one mip level, texels row-major (x fastest, then y, then z or layer).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Texture {
    /// Texels in x.
    pub width: u32,
    /// Texels in y (1 for 1-D).
    pub height: u32,
    /// Texels in z, or array layers (1 otherwise).
    pub depth: u32,
    /// Channels per texel (1..=4).
    pub channels: u8,
    /// Storage of each channel.
    pub format: TexelFormat,
    /// Texel data; reads past its end give zero.
    pub data: Vec<u8>,
}

impl Texture {
    /// Bytes per texel.
    pub fn texel_bytes(&self) -> usize {
        self.channels.clamp(1, 4) as usize * self.format.bytes()
    }

    /// Bytes the texel array needs.
    pub fn size_bytes(&self) -> usize {
        self.width as usize * self.height as usize * self.depth as usize * self.texel_bytes()
    }

    /// Channel values of texel (x, y, z), in range by construction of the caller.
    fn channel_raw(&self, x: u32, y: u32, z: u32) -> [u32; 4] {
        let idx =
            (z as usize * self.height as usize + y as usize) * self.width as usize + x as usize;
        let base = idx * self.texel_bytes();
        let b = self.format.bytes();
        let mut out = [0u32; 4];
        for (c, o) in out
            .iter_mut()
            .enumerate()
            .take(self.channels.clamp(1, 4) as usize)
        {
            let at = base + c * b;
            let mut v = [0u8; 4];
            if let Some(src) = self.data.get(at..at + b) {
                v[..b].copy_from_slice(src);
            }
            *o = u32::from_le_bytes(v);
        }
        out
    }
}

fn float_fmt(f: ElementFormat) -> bool {
    matches!(
        f,
        ElementFormat::Float | ElementFormat::Unorm | ElementFormat::Snorm | ElementFormat::Srgb
    )
}

/// Converts stored channels to the declared return formats, with (0, 0, 0, 1) defaults.
fn convert(tex: &Texture, decl: &ResourceDecl, raw: [u32; 4]) -> [u32; 4] {
    let mut out = [0u32; 4];
    for c in 0..4 {
        let want_float = float_fmt(decl.fmt[c]);
        out[c] = if c >= tex.channels.clamp(1, 4) as usize {
            match (c, want_float) {
                (3, true) => 1.0f32.to_bits(),
                (3, false) => 1,
                _ => 0,
            }
        } else if tex.format.normalized() && want_float {
            let max = if tex.format == TexelFormat::Unorm8 {
                255.0
            } else {
                65535.0
            };
            (raw[c] as f32 / max).to_bits()
        } else {
            raw[c]
        };
    }
    out
}

/// Fetches texel `(x, y, z)` after addressing, converted; border texels are zero.
fn texel(tex: &Texture, decl: &ResourceDecl, sampler: &SamplerState, idx: [i64; 3]) -> [u32; 4] {
    let dims = [tex.width, tex.height, tex.depth];
    let mut at = [0u32; 3];
    for a in 0..3 {
        match sampler.address[a].apply(idx[a], dims[a]) {
            Some(v) => at[a] = v,
            None => return [0; 4],
        }
    }
    convert(tex, decl, tex.channel_raw(at[0], at[1], at[2]))
}

/// Texel-space positions of `coord`'s spatial components (NaN reads 0, normalized
/// coordinates scaled by the size, denormals flushed), and the index array whose layer slot
/// holds the clamped, rounded layer of an array texture (other slots 0).
fn texel_space(tex: &Texture, decl: &ResourceDecl, coord: [u32; 4]) -> ([f32; 3], [i64; 3]) {
    let dims = [tex.width, tex.height, tex.depth];
    let axes = decl.dim.axes();
    let mut pos = [0f32; 3];
    for a in 0..axes {
        let c = f32::from_bits(coord[a]);
        let c = ftz(if c.is_nan() { 0.0 } else { c });
        pos[a] = if decl.unnorm {
            c
        } else {
            ftz(c * dims[a].max(1) as f32)
        };
    }
    let mut base = [0i64; 3];
    if let Some(lc) = decl.dim.layer_comp() {
        let l = f32::from_bits(coord[lc]);
        let l = if l.is_nan() { 0.0 } else { l.round_ties_even() };
        base[axes] = (l as i64).clamp(0, dims[axes].max(1) as i64 - 1);
    }
    (pos, base)
}

/// `sample_resource(n)_sampler(m)` / `sample_l`: filtered read at float coordinates
/// `coord` (post-swizzle source bits).
pub fn sample(
    tex: &Texture,
    decl: &ResourceDecl,
    sampler: &SamplerState,
    coord: [u32; 4],
) -> [u32; 4] {
    let axes = decl.dim.axes();
    let (pos, base) = texel_space(tex, decl, coord);
    let ints_only = decl.fmt.iter().any(|f| !float_fmt(*f));
    if sampler.filter == Filter::Point || ints_only {
        let mut idx = base;
        for a in 0..axes {
            idx[a] = pos[a].floor() as i32 as i64;
        }
        return texel(tex, decl, sampler, idx);
    }
    // Linear: weights in 1/256 steps around coord - 0.5.
    let mut i0 = [0i64; 3];
    let mut w = [0f32; 3];
    for a in 0..axes {
        let p = pos[a] - 0.5;
        let f = p.floor();
        i0[a] = f as i32 as i64;
        w[a] = ((p - f) * 256.0).round() / 256.0;
    }
    let mut acc = [0f32; 4];
    for corner in 0..(1usize << axes) {
        let mut idx = base;
        let mut weight = 1.0f32;
        for a in 0..axes {
            let hi = corner >> a & 1 == 1;
            idx[a] = (i0[a] as i32).wrapping_add(hi as i32) as i64;
            weight *= if hi { w[a] } else { 1.0 - w[a] };
        }
        let t = texel(tex, decl, sampler, idx);
        for c in 0..4 {
            acc[c] = ftz(acc[c] + ftz(weight * ftz(f32::from_bits(t[c]))));
        }
    }
    // IL float results: NaN is canonical 0x7FFFFFFF, as every interpreter float op gives.
    acc.map(|v| if v.is_nan() { 0x7FFF_FFFF } else { v.to_bits() })
}

/// `fetch4_resource(n)_sampler(m)[_compselect(c)]`: component `comp` of the four texels a
/// linear filter at `coord` would blend, in the guide's order (L4829): xyzw = the texels at
/// (-,+), (+,+), (+,-), (-,-) half a texel from the coordinate, i.e. (i0, j1), (i1, j1),
/// (i1, j0), (i0, j0) around `coord - 0.5`, after the sampler's addressing. 2-D resources
/// (and 2-D arrays, the layer rounded like `sample`'s).
pub fn gather(
    tex: &Texture,
    decl: &ResourceDecl,
    sampler: &SamplerState,
    coord: [u32; 4],
    comp: usize,
) -> [u32; 4] {
    let (pos, mut i0) = texel_space(tex, decl, coord);
    for a in 0..2 {
        i0[a] = (pos[a] - 0.5).floor() as i32 as i64;
    }
    let at = |dx: i64, dy: i64| {
        let x = (i0[0] as i32).wrapping_add(dx as i32) as i64;
        let y = (i0[1] as i32).wrapping_add(dy as i32) as i64;
        texel(tex, decl, sampler, [x, y, i0[2]])[comp & 3]
    };
    [at(0, 1), at(1, 1), at(1, 0), at(0, 0)]
}

/// `_compselect(c)` of `fetch4`: x/r = 0 .. w/a = 3 (also `IL_COMPSEL_X_R`-style names).
pub fn comp_select(st: &crate::ast::Instruction) -> Result<usize, String> {
    let Some(v) = st.generic("compselect") else {
        return Ok(0);
    };
    let v = v.unwrap_or("").trim().to_ascii_lowercase();
    let v = v.strip_prefix("il_compsel_").unwrap_or(&v);
    match v.chars().next() {
        Some('x' | 'r') => Ok(0),
        Some('y' | 'g') => Ok(1),
        Some('z' | 'b') => Ok(2),
        Some('w' | 'a') => Ok(3),
        _ => Err(format!("_compselect({v}) is not x, y, z or w")),
    }
}

/// Flushes a denormal to a zero of the same sign (IL float arithmetic, guide 6.3).
fn ftz(x: f32) -> f32 {
    if x.is_subnormal() {
        f32::from_bits(x.to_bits() & 0x8000_0000)
    } else {
        x
    }
}

/// `load_resource(n)`: unfiltered read at signed integer coordinates (`.w` = mip), with
/// texel offsets `offset` (from `_aoffimmi`); anything out of range reads (0, 0, 0, 0).
pub fn load(tex: &Texture, decl: &ResourceDecl, coord: [u32; 4], offset: [i32; 3]) -> [u32; 4] {
    let dims = [tex.width, tex.height, tex.depth];
    let axes = decl.dim.axes();
    if decl.dim != TexDim::Buffer && coord[3] != 0 {
        return [0; 4];
    }
    let mut at = [0u32; 3];
    for a in 0..axes {
        let off = if decl.dim == TexDim::Buffer {
            0
        } else {
            offset[a]
        };
        let v = coord[a] as i32 as i64 + off as i64;
        if v < 0 || v >= dims[a] as i64 {
            return [0; 4];
        }
        at[a] = v as u32;
    }
    if let Some(lc) = decl.dim.layer_comp() {
        let v = coord[lc] as i32 as i64;
        if v < 0 || v >= dims[axes] as i64 {
            return [0; 4];
        }
        at[axes] = v as u32;
    }
    convert(tex, decl, tex.channel_raw(at[0], at[1], at[2]))
}

/// `resinfo_resource(n)[_uint]`: (width, height, depth/layers, mip count) of level `mip`.
pub fn resinfo(tex: Option<&Texture>, decl: &ResourceDecl, mip: u32, uint: bool) -> [u32; 4] {
    let Some(t) = tex else {
        return [0; 4];
    };
    let mut v = [0u32; 4];
    if mip == 0 {
        v[0] = t.width;
        match decl.dim {
            TexDim::Buffer | TexDim::D1 => {}
            TexDim::D1Array => v[2] = t.height,
            TexDim::D2 => v[1] = t.height,
            TexDim::D2Array | TexDim::D3 => {
                v[1] = t.height;
                v[2] = t.depth;
            }
        }
    }
    v[3] = 1;
    if uint {
        v
    } else {
        v.map(|x| (x as f32).to_bits())
    }
}

/// The texel offsets of a `_aoffimmi(u,v,w)` / `_addroffimmi(u,v,w)` control, if present.
pub fn texel_offsets(st: &crate::ast::Instruction) -> Result<Option<[i32; 3]>, String> {
    let Some(v) = st.generic("aoffimmi").or_else(|| st.generic("addroffimmi")) else {
        return Ok(None);
    };
    let mut off = [0f32; 3];
    for (o, p) in off.iter_mut().zip(v.unwrap_or("").split(',')) {
        *o = p
            .trim()
            .parse::<f32>()
            .map_err(|_| format!("_aoffimmi value {p:?} is not a number"))?;
    }
    Ok(Some(aoffimmi(off)))
}

/// Decodes `_aoffimmi(u,v,w)` values (7.1 signed fixed point) to whole texel offsets.
pub fn aoffimmi(values: [f32; 3]) -> [i32; 3] {
    values.map(|v| v.floor() as i32)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tex2d(w: u32, h: u32, vals: &[f32]) -> Texture {
        Texture {
            width: w,
            height: h,
            depth: 1,
            channels: 1,
            format: TexelFormat::F32,
            data: vals.iter().flat_map(|v| v.to_le_bytes()).collect(),
        }
    }

    fn decl(dim: TexDim, unnorm: bool) -> ResourceDecl {
        ResourceDecl {
            dim,
            unnorm,
            fmt: [ElementFormat::Float; 4],
        }
    }

    fn f(v: f32) -> u32 {
        v.to_bits()
    }

    #[test]
    fn point_sampling_normalized_and_texel_space() {
        let t = tex2d(2, 2, &[1.0, 2.0, 3.0, 4.0]);
        let s = SamplerState::default();
        // normalized (0.75, 0.25) -> texel (1, 0)
        let r = sample(&t, &decl(TexDim::D2, false), &s, [f(0.75), f(0.25), 0, 0]);
        assert_eq!(r, [f(2.0), 0, 0, f(1.0)]);
        // texel space (0.5, 1.5) -> texel (0, 1)
        let r = sample(&t, &decl(TexDim::D2, true), &s, [f(0.5), f(1.5), 0, 0]);
        assert_eq!(r[0], f(3.0));
        // clamp to edge
        let r = sample(&t, &decl(TexDim::D2, true), &s, [f(-3.0), f(9.0), 0, 0]);
        assert_eq!(r[0], f(3.0));
    }

    #[test]
    fn linear_filtering_interpolates_at_texel_centres() {
        let t = tex2d(2, 1, &[0.0, 1.0]);
        let s = SamplerState::parse("linear,clamp").unwrap();
        let d = decl(TexDim::D2, true);
        // at the centre of texel 0 -> 0; half way between centres -> 0.5
        assert_eq!(sample(&t, &d, &s, [f(0.5), f(0.5), 0, 0])[0], f(0.0));
        assert_eq!(sample(&t, &d, &s, [f(1.0), f(0.5), 0, 0])[0], f(0.5));
        // weight quantized to 1/256: 0.5 + 1/1000 -> 0.5 + 0/256
        assert_eq!(sample(&t, &d, &s, [f(1.001), f(0.5), 0, 0])[0], f(0.5));
    }

    #[test]
    fn addressing_modes() {
        assert_eq!(AddressMode::Wrap.apply(-1, 4), Some(3));
        assert_eq!(AddressMode::Mirror.apply(4, 4), Some(3));
        assert_eq!(AddressMode::Mirror.apply(-1, 4), Some(0));
        assert_eq!(AddressMode::Border.apply(4, 4), None);
        assert_eq!(AddressMode::Clamp.apply(-7, 4), Some(0));
    }

    #[test]
    fn load_out_of_range_is_zero_and_offsets_apply() {
        let t = tex2d(2, 2, &[1.0, 2.0, 3.0, 4.0]);
        let d = decl(TexDim::D2, false);
        assert_eq!(load(&t, &d, [1, 1, 0, 0], [0; 3])[0], f(4.0));
        assert_eq!(load(&t, &d, [2, 0, 0, 0], [0; 3]), [0; 4]);
        assert_eq!(
            load(&t, &d, [0, 0, 0, 1], [0; 3]),
            [0; 4],
            "mip 1 does not exist"
        );
        assert_eq!(load(&t, &d, [0, 0, 0, 0], [1, 1, 0])[0], f(4.0));
    }

    #[test]
    fn unorm_storage_returns_floats_or_raw_integers() {
        let t = Texture {
            width: 1,
            height: 1,
            depth: 1,
            channels: 2,
            format: TexelFormat::Unorm8,
            data: vec![255, 51],
        };
        let r = load(&t, &decl(TexDim::D2, false), [0; 4], [0; 3]);
        assert_eq!(r, [f(1.0), f(0.2), 0, f(1.0)]);
        let mut d = decl(TexDim::D2, false);
        d.fmt = [ElementFormat::Uint; 4];
        assert_eq!(load(&t, &d, [0; 4], [0; 3]), [255, 51, 0, 1]);
    }

    #[test]
    fn resinfo_reports_size_and_levels() {
        let t = tex2d(3, 2, &[0.0; 6]);
        let d = decl(TexDim::D2, false);
        assert_eq!(resinfo(Some(&t), &d, 0, true), [3, 2, 0, 1]);
        assert_eq!(resinfo(Some(&t), &d, 1, true), [0, 0, 0, 1]);
        assert_eq!(resinfo(Some(&t), &d, 0, false)[0], f(3.0));
    }
}
