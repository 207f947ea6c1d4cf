//! How a CAL launch becomes a launch of ilc's cubin: the one place this mapping lives.
//!
//! ilc's launch layout (`ilc::spa5::abi`, DESIGN.md section 2) lists the kernel's parameters
//! in constant bank 0; each has an IL meaning ([`ParamKind`]). The CAL program binds memory
//! to *names* (`calModuleGetName` + `calCtxSetMem`); this module fills each parameter from the
//! memory bound to its name:
//!
//! | parameter (`ParamKind`)      | CAL name | what goes in                                     |
//! |------------------------------|----------|--------------------------------------------------|
//! | `UavPtr(n)` / `UavSize(n)`   | `uavN`   | the resource's bytes (copied in and back), size  |
//! | `GlobalPtr` / `GlobalSize`   | `g[]`    | the same, for the global buffer                   |
//! | `SrvPtr(n)` / `SrvSize(n)`   | `iN`     | the resource's bytes (read only), size           |
//! | `Texture{resource: n, ..}`   | `iN`     | a texture object over the resource: width x height texels of its format, point sampling, clamp |
//! | `ResDims(n)`                 | `iN`     | width, height, 1                                  |
//! | `UavView(n)`                 | `uavN`   | the typed UAV's view: components of the format, width, height, 1 |
//! | `CbData(n)`                  | `cbN`    | the resource's first bytes, copied into the parameters (16 per `cbN[k]`) |
//! | `Domain`                     | -        | the domain's width and height                     |
//! | `DomainOrigin`               | -        | the domain's x and y (`CALdomain.x/y`)            |
//! | `OutPtr(n)` / `OutSize(n)`   | `oN`     | a width x height x 16-byte buffer (one vec4 per pixel, row-major); after the run each pixel's vec4 is stored into the bound resource at (x + i, y + j) in the resource's format |
//! | `CounterPtr(n)`              | -        | a 4-byte append counter starting at 0             |
//!
//! Resources are stored row-major with the pitch equal to the width (what `calResMap`
//! reports), so a UAV or `g[]` bound to a 2-D resource sees its rows back to back. A typed
//! UAV (`LaunchLayout::typed_uavs`) addresses the resource's elements through its view
//! (`isa_amdil::interp::typed_uav`: `(x, y)` is element `x + width * y`, each of the format's
//! components), so it must be bound to a format of 32-bit components, 1, 2 or 4 of them
//! (`UINT_1`, `FLOAT_4`, ...; `NOT_SUPPORTED` otherwise: ilc stores typed components
//! unconverted).
//!
//! Grids: a pixel-shader kernel (`il_ps`: it has the `Domain` parameter) run with
//! `calCtxRunProgram` covers the domain with groups of the kernel's block (8x8 tiles); the
//! pixel position `vWinCoord0` is the origin plus the place in the domain, and each `oN`
//! pixel is stored at that position of its resource (which must hold the domain there). A
//! compute kernel run with `calCtxRunProgram` gets one thread per domain point (groups of its
//! block along x, domain rows along y); `calCtxRunProgramGrid` launches `gridSize` groups of
//! the kernel's block (`gridBlock`, if not zero, must equal the kernel's
//! `dcl_num_thread_per_group`).
//!
//! Every name the kernel reads must be bound: an unbound one is `CAL_RESULT_ERROR` naming it.

use ilc::spa5::abi::ParamKind;
use isa_amdil::interp::texture::{SamplerState, Texture};

use crate::compiler::Image;
use crate::device::{Launch, TextureArg};
use crate::error::CalError;
use crate::format::Format;

/// A name a kernel's memory is bound to (`calModuleGetName`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Name {
    /// `cbN`.
    Cb(u8),
    /// `iN`.
    Input(u8),
    /// `oN`.
    Output(u8),
    /// `uavN`.
    Uav(u8),
    /// `g[]`.
    Global,
}

impl Name {
    /// Parses `cbN`, `iN`, `oN`, `uavN` (N in 0..=255) or `g[]`.
    pub fn parse(s: &str) -> Option<Name> {
        if s == "g[]" {
            return Some(Name::Global);
        }
        let num = |rest: &str| -> Option<u8> {
            if rest.is_empty() || !rest.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            rest.parse().ok()
        };
        if let Some(r) = s.strip_prefix("uav") {
            return num(r).map(Name::Uav);
        }
        if let Some(r) = s.strip_prefix("cb") {
            return num(r).map(Name::Cb);
        }
        if let Some(r) = s.strip_prefix('i') {
            return num(r).map(Name::Input);
        }
        if let Some(r) = s.strip_prefix('o') {
            return num(r).map(Name::Output);
        }
        None
    }
}

impl std::fmt::Display for Name {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Name::Cb(n) => write!(f, "cb{n}"),
            Name::Input(n) => write!(f, "i{n}"),
            Name::Output(n) => write!(f, "o{n}"),
            Name::Uav(n) => write!(f, "uav{n}"),
            Name::Global => write!(f, "g[]"),
        }
    }
}

/// A resource as a launch sees it.
#[derive(Clone, Copy, Debug)]
pub struct ResView<'a> {
    /// The runtime's resource handle.
    pub handle: u32,
    /// Width in elements.
    pub width: u32,
    /// Height in elements (1 for 1-D).
    pub height: u32,
    /// Element format.
    pub format: Format,
    /// Contents (`width * height` elements, row-major).
    pub data: &'a [u8],
}

/// The shape of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// `calCtxRunProgram`: origin and size.
    Domain {
        /// Origin.
        origin: [u32; 2],
        /// Width and height.
        size: [u32; 2],
    },
    /// `calCtxRunProgramGrid`: threads per group (0s: the kernel's) and groups.
    Grid {
        /// Threads per group.
        block: [u32; 3],
        /// Groups.
        groups: [u32; 3],
    },
}

/// What to do with a launch buffer after the run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WriteBack {
    /// Copy the bytes back into resource `handle` (UAVs, `g[]`).
    Raw(u32),
    /// Store each pixel's vec4 into resource `handle` at the domain's rectangle.
    Pixels {
        /// The resource.
        handle: u32,
        /// Domain width and height.
        size: [u32; 2],
        /// Where the domain's first pixel goes in the resource.
        origin: [u32; 2],
    },
}

/// A launch and what to write back after it.
#[derive(Debug, Default)]
pub struct Plan {
    /// The device-independent launch.
    pub launch: Launch,
    /// `(buffer index, what to do)`.
    pub writeback: Vec<(usize, WriteBack)>,
}

/// Builds the launch of `image` over `shape` with the memory `bound` returns for each name.
pub fn plan<'a>(
    image: &Image,
    shape: Shape,
    bound: impl Fn(Name) -> Option<ResView<'a>>,
) -> Result<Plan, CalError> {
    let layout = &image.layout;
    let pixel = layout.param(ParamKind::Domain).is_some();
    let block = image.block;
    let (grid, domain, origin) = launch_shape(shape, block, pixel)?;
    let mut p = Plan {
        launch: Launch {
            grid,
            block,
            params: vec![0; layout.param_bytes() as usize],
            ..Launch::default()
        },
        writeback: Vec::new(),
    };
    let need = |n: Name| -> Result<ResView<'a>, CalError> {
        bound(n).ok_or_else(|| {
            CalError::error(format!(
                "the kernel uses `{n}` but no memory is bound to it (calModuleGetName + \
                 calCtxSetMem)"
            ))
        })
    };
    let put = |params: &mut Vec<u8>, at: u32, size: u32, v: &[u8]| {
        let (at, size) = (at as usize, size as usize);
        let n = v.len().min(size);
        params[at..at + n].copy_from_slice(&v[..n]);
    };
    // The buffer of each resource, shared by every parameter that names it.
    let mut buffer_of: Vec<(u32, usize)> = Vec::new();
    let mut buffer = |p: &mut Plan, r: &ResView<'_>, writable: bool| -> usize {
        if let Some(&(_, i)) = buffer_of.iter().find(|(h, _)| *h == r.handle) {
            if writable && !p.writeback.iter().any(|(b, _)| *b == i) {
                p.writeback.push((i, WriteBack::Raw(r.handle)));
            }
            return i;
        }
        let i = p.launch.buffers.len();
        p.launch.buffers.push(r.data.to_vec());
        buffer_of.push((r.handle, i));
        if writable {
            p.writeback.push((i, WriteBack::Raw(r.handle)));
        }
        i
    };
    for lp in &layout.params {
        let (off, size) = (lp.offset, lp.size);
        match lp.kind {
            ParamKind::UavPtr(id) => {
                let r = need(Name::Uav(id))?;
                let f = r.format;
                if layout.typed_uavs.contains(&id)
                    && !(f.bits == 32 && f.kind != crate::format::Kind::Packed)
                {
                    return Err(CalError::unsupported(format!(
                        "uav{id} is a typed UAV bound to a {} resource: ilc implements typed \
                         UAVs of 32-bit components (the `UINT`, `INT` and `FLOAT` formats of \
                         1, 2 or 4 components), stored unconverted",
                        f.name
                    )));
                }
                let i = buffer(&mut p, &r, true);
                p.launch.pointers.push((off, i));
            }
            ParamKind::GlobalPtr => {
                let r = need(Name::Global)?;
                let i = buffer(&mut p, &r, true);
                p.launch.pointers.push((off, i));
            }
            ParamKind::SrvPtr(id) => {
                let r = need(Name::Input(id))?;
                let i = buffer(&mut p, &r, false);
                p.launch.pointers.push((off, i));
            }
            ParamKind::UavView(id) => {
                let r = need(Name::Uav(id))?;
                let words = [u32::from(r.format.comps), r.width, r.height.max(1), 1];
                let v: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
                put(&mut p.launch.params, off, size, &v);
            }
            ParamKind::UavSize(id) => {
                let n = need(Name::Uav(id))?.data.len() as u64;
                put(&mut p.launch.params, off, size, &n.to_le_bytes());
            }
            ParamKind::GlobalSize => {
                let n = need(Name::Global)?.data.len() as u64;
                put(&mut p.launch.params, off, size, &n.to_le_bytes());
            }
            ParamKind::SrvSize(id) => {
                let n = need(Name::Input(id))?.data.len() as u64;
                put(&mut p.launch.params, off, size, &n.to_le_bytes());
            }
            ParamKind::CbData(id) => {
                let r = need(Name::Cb(id))?;
                put(&mut p.launch.params, off, size, r.data);
            }
            ParamKind::Domain => {
                let mut v = domain[0].to_le_bytes().to_vec();
                v.extend_from_slice(&domain[1].to_le_bytes());
                put(&mut p.launch.params, off, size, &v);
            }
            ParamKind::DomainOrigin => {
                let mut v = origin[0].to_le_bytes().to_vec();
                v.extend_from_slice(&origin[1].to_le_bytes());
                put(&mut p.launch.params, off, size, &v);
            }
            ParamKind::OutPtr(id) => {
                let r = need(Name::Output(id))?;
                check_output(id, &r, domain, origin)?;
                let i = p.launch.buffers.len();
                let len = domain[0] as usize * domain[1] as usize * 16;
                p.launch.buffers.push(vec![0; len]);
                p.launch.pointers.push((off, i));
                p.writeback.push((
                    i,
                    WriteBack::Pixels {
                        handle: r.handle,
                        size: domain,
                        origin,
                    },
                ));
            }
            ParamKind::OutSize(_) => {
                let n = u64::from(domain[0]) * u64::from(domain[1]) * 16;
                put(&mut p.launch.params, off, size, &n.to_le_bytes());
            }
            ParamKind::ResDims(id) => {
                let r = need(Name::Input(id))?;
                let v: Vec<u8> = [r.width, r.height, 1]
                    .iter()
                    .flat_map(|x| x.to_le_bytes())
                    .collect();
                put(&mut p.launch.params, off, size, &v);
            }
            ParamKind::Texture {
                resource,
                sampler: _,
                unnorm,
                shape,
                float_mask,
            } => {
                let r = need(Name::Input(resource))?;
                let (format, channels) = r.format.texel().ok_or_else(|| {
                    CalError::unsupported(format!(
                        "i{resource}: CAL_FORMAT_{} cannot be read as a texture",
                        r.format.name
                    ))
                })?;
                p.launch.textures.push(TextureArg {
                    offset: off,
                    texture: Texture {
                        width: r.width,
                        height: r.height,
                        depth: 1,
                        channels,
                        format,
                        data: r.data.to_vec(),
                    },
                    decl: ilc::verify::texture_decl(shape, unnorm, float_mask),
                    sampler: SamplerState::default(),
                });
            }
            ParamKind::CounterPtr(_) => {
                let i = p.launch.buffers.len();
                p.launch.buffers.push(vec![0; 4]);
                p.launch.pointers.push((off, i));
            }
        }
    }
    Ok(p)
}

/// A launch's grid (in blocks), domain size and domain origin (zero for a grid launch).
type GridDomainOrigin = ([u32; 3], [u32; 2], [u32; 2]);

/// The grid, the domain size and the domain origin of a launch over `shape` with blocks of
/// `block` threads (`pixel`: the kernel is a pixel shader, whose blocks tile the domain in
/// two dimensions).
fn launch_shape(shape: Shape, block: [u32; 3], pixel: bool) -> Result<GridDomainOrigin, CalError> {
    let shape = match shape {
        Shape::Domain { origin, size } => {
            if size[0] == 0 || size[1] == 0 {
                return Err(CalError::invalid(format!(
                    "empty domain {}x{}",
                    size[0], size[1]
                )));
            }
            if origin[0].checked_add(size[0]).is_none() || origin[1].checked_add(size[1]).is_none()
            {
                return Err(CalError::invalid(format!(
                    "domain at ({}, {}) of {}x{} passes 2^32",
                    origin[0], origin[1], size[0], size[1]
                )));
            }
            let grid = if pixel {
                [size[0].div_ceil(block[0]), size[1].div_ceil(block[1]), 1]
            } else {
                let threads = u64::from(size[0]) * u64::from(size[1]);
                let per = u64::from(block[0]) * u64::from(block[1]) * u64::from(block[2]);
                if block[1] == 1 && block[2] == 1 {
                    [size[0].div_ceil(block[0]), size[1], 1]
                } else {
                    [threads.div_ceil(per).min(u64::from(u32::MAX)) as u32, 1, 1]
                }
            };
            (grid, size, origin)
        }
        Shape::Grid {
            block: want,
            groups,
        } => {
            if want != [0, 0, 0] && want != block {
                return Err(CalError::invalid(format!(
                    "gridBlock {}x{}x{} differs from the kernel's dcl_num_thread_per_group \
                     {}x{}x{}",
                    want[0], want[1], want[2], block[0], block[1], block[2]
                )));
            }
            if groups.contains(&0) {
                return Err(CalError::invalid(format!(
                    "empty grid {}x{}x{}",
                    groups[0], groups[1], groups[2]
                )));
            }
            (groups, [0, 0], [0, 0])
        }
    };
    Ok(shape)
}

/// Checks that the resource bound to the pixel output `o{id}` holds the domain and that its
/// format can store pixels.
fn check_output(
    id: u8,
    r: &ResView<'_>,
    domain: [u32; 2],
    origin: [u32; 2],
) -> Result<(), CalError> {
    // (The sums were checked against 2^32 with the domain.)
    if r.width < origin[0] + domain[0] || r.height < origin[1] + domain[1] {
        return Err(CalError::error(format!(
            "o{id} is bound to a {}x{} resource that does not hold the {}x{} \
             domain at ({}, {})",
            r.width, r.height, domain[0], domain[1], origin[0], origin[1]
        )));
    }
    if r.format
        .store([0; 4], &mut vec![0; r.format.bytes()])
        .is_none()
    {
        return Err(CalError::unsupported(format!(
            "o{id}: pixel outputs cannot be stored in CAL_FORMAT_{}",
            r.format.name
        )));
    }
    Ok(())
}

/// Stores the pixel outputs `buf` (`size[0] * size[1]` vec4s) into a resource's `data`
/// (`width` elements per row, format `format`).
pub fn store_pixels(
    buf: &[u8],
    [size, origin]: [[u32; 2]; 2],
    data: &mut [u8],
    width: u32,
    format: Format,
) {
    let eb = format.bytes();
    let [ox, oy] = origin.map(|v| v as usize);
    for y in 0..size[1] as usize {
        for x in 0..size[0] as usize {
            let src = (y * size[0] as usize + x) * 16;
            let mut v = [0u32; 4];
            for (c, w) in v.iter_mut().enumerate() {
                let b = &buf[src + 4 * c..src + 4 * c + 4];
                *w = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
            }
            let dst = ((oy + y) * width as usize + ox + x) * eb;
            if let Some(out) = data.get_mut(dst..dst + eb) {
                // Formats without a store were refused when the launch was planned.
                let _ = format.store(v, out);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_and_print() {
        for s in ["cb0", "i3", "o7", "uav11", "g[]", "cb255"] {
            assert_eq!(Name::parse(s).unwrap().to_string(), s);
        }
        for s in ["cb", "i", "o-1", "uav256", "x0", "g", "cb0x", "i+1"] {
            assert_eq!(Name::parse(s), None, "{s}");
        }
    }
}
