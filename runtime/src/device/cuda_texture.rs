//! Texture objects for the CUDA device: how a [`TextureArg`] (the texels of a CAL resource,
//! the IL declaration the kernel was compiled for, the sampler) becomes the two descriptors
//! `cuTexObjectCreate` takes, over texels the device copies into `cuMemAlloc` memory.
//!
//! Every texture is a pitched 2-D resource (`CU_RESOURCE_TYPE_PITCH2D`; a 1-D CAL resource is
//! one row): that is what CAL resources are (1-D or 2-D, row-major), and unlike linear
//! memory it supports normalized coordinates, the addressing modes and linear filtering.
//! Rows are padded to the device's texture pitch alignment. The texture descriptor carries
//! what ilc's code assumes of the handle (`ilc::spa5::abi::ParamKind::Texture`): normalized
//! coordinates unless the declaration is `unnorm`; normalized 8/16-bit storage read as floats
//! when the declaration reads a channel as float, every other storage read as stored
//! (`CU_TRSF_READ_AS_INTEGER`); the sampler's filter and addressing.
//!
//! The descriptors are the driver API's C structs (`cuda.h`): `CUDA_RESOURCE_DESC` is 144
//! bytes (`resType` at 0, the `pitch2D` member of the union at 8: `devPtr` 8, `format` 16,
//! `numChannels` 20, `width` 24, `height` 32, `pitchInBytes` 40; `flags` at 136) and
//! `CUDA_TEXTURE_DESC` 104 bytes (`addressMode[3]` at 0, `filterMode` 12, `flags` 16, the
//! mipmap fields and `borderColor` zero). They are built as bytes so that they can be checked
//! without a GPU.

use isa_amdil::ast::ElementFormat;
use isa_amdil::interp::texture::{AddressMode, Filter, TexDim, TexelFormat};

use super::TextureArg;

/// `CU_RESOURCE_TYPE_PITCH2D`.
const RESOURCE_TYPE_PITCH2D: u32 = 3;
/// `CU_TRSF_READ_AS_INTEGER`.
const TRSF_READ_AS_INTEGER: u32 = 1;
/// `CU_TRSF_NORMALIZED_COORDINATES`.
const TRSF_NORMALIZED_COORDINATES: u32 = 2;
/// Size of `CUDA_RESOURCE_DESC`.
pub const RESOURCE_DESC_BYTES: usize = 144;
/// Size of `CUDA_TEXTURE_DESC`.
pub const TEXTURE_DESC_BYTES: usize = 104;

/// A driver struct's bytes, aligned as the struct (its widest members are 8 bytes).
#[derive(Clone, Copy, Debug)]
#[repr(C, align(8))]
pub struct Desc<const N: usize>(pub [u8; N]);

/// A texture ready for the driver: padded texels and the two descriptors (the resource
/// descriptor's device pointer is set with [`TexturePlan::set_device_ptr`]).
#[derive(Debug)]
pub struct TexturePlan {
    /// Texels, `height` rows of `pitch` bytes.
    pub data: Vec<u8>,
    /// `CUDA_RESOURCE_DESC`.
    pub resource: Desc<RESOURCE_DESC_BYTES>,
    /// `CUDA_TEXTURE_DESC`.
    pub texture: Desc<TEXTURE_DESC_BYTES>,
}

impl TexturePlan {
    /// Sets `res.pitch2D.devPtr`.
    pub fn set_device_ptr(&mut self, p: u64) {
        put(&mut self.resource.0, 8, &p.to_le_bytes());
    }
}

fn put(b: &mut [u8], at: usize, v: &[u8]) {
    b[at..at + v.len()].copy_from_slice(v);
}

/// `CUarray_format` of a storage.
fn array_format(f: TexelFormat) -> u32 {
    match f {
        TexelFormat::U8 | TexelFormat::Unorm8 => 0x01,
        TexelFormat::U16 | TexelFormat::Unorm16 => 0x02,
        TexelFormat::U32 => 0x03,
        TexelFormat::S32 => 0x0a,
        TexelFormat::F32 => 0x20,
    }
}

/// `CUaddress_mode`.
fn address_mode(m: AddressMode) -> u32 {
    match m {
        AddressMode::Wrap => 0,
        AddressMode::Clamp => 1,
        AddressMode::Mirror => 2,
        AddressMode::Border => 3,
    }
}

/// The texture of `t` for a device whose pitched textures need rows aligned to
/// `pitch_align` bytes (`CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT`).
pub fn plan(t: &TextureArg, pitch_align: usize) -> Result<TexturePlan, String> {
    let tex = &t.texture;
    if !matches!(t.decl.dim, TexDim::D1 | TexDim::D2 | TexDim::Buffer) || tex.depth > 1 {
        return Err(format!(
            "a {:?} texture of depth {} (CAL resources are 1-D or 2-D)",
            t.decl.dim, tex.depth
        ));
    }
    if !matches!(tex.channels, 1 | 2 | 4) {
        return Err(format!(
            "textures of {} channels (CUDA's have 1, 2 or 4)",
            tex.channels
        ));
    }
    let row = tex.width as usize * tex.texel_bytes();
    let pitch = row
        .next_multiple_of(pitch_align.max(1))
        .max(pitch_align.max(1));
    let height = tex.height.max(1) as usize;
    let mut data = vec![0u8; pitch * height];
    for y in 0..height {
        let src = tex.data.get(y * row..(y + 1) * row).unwrap_or(&[]);
        data[y * pitch..y * pitch + src.len()].copy_from_slice(src);
    }
    let mut resource = [0u8; RESOURCE_DESC_BYTES];
    put(&mut resource, 0, &RESOURCE_TYPE_PITCH2D.to_le_bytes());
    put(&mut resource, 16, &array_format(tex.format).to_le_bytes());
    put(&mut resource, 20, &u32::from(tex.channels).to_le_bytes());
    put(&mut resource, 24, &(tex.width as u64).to_le_bytes());
    put(&mut resource, 32, &(height as u64).to_le_bytes());
    put(&mut resource, 40, &(pitch as u64).to_le_bytes());
    let mut texture = [0u8; TEXTURE_DESC_BYTES];
    for (i, m) in t.sampler.address.iter().enumerate() {
        put(&mut texture, 4 * i, &address_mode(*m).to_le_bytes());
    }
    let normalized_storage = matches!(tex.format, TexelFormat::Unorm8 | TexelFormat::Unorm16);
    let reads_float = t.decl.fmt.contains(&ElementFormat::Float);
    let as_float = normalized_storage && reads_float;
    let linear = t.sampler.filter == Filter::Linear;
    if linear && !(as_float || tex.format == TexelFormat::F32) {
        return Err("linear filtering of a texture read as integers".into());
    }
    put(&mut texture, 12, &u32::from(linear).to_le_bytes());
    let mut flags = 0;
    if !as_float {
        flags |= TRSF_READ_AS_INTEGER;
    }
    if !t.decl.unnorm {
        flags |= TRSF_NORMALIZED_COORDINATES;
    }
    put(&mut texture, 16, &flags.to_le_bytes());
    Ok(TexturePlan {
        data,
        resource: Desc(resource),
        texture: Desc(texture),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use isa_amdil::interp::texture::{ResourceDecl, SamplerState, Texture};

    fn word(b: &[u8], at: usize) -> u32 {
        u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
    }

    fn dword(b: &[u8], at: usize) -> u64 {
        u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
    }

    fn arg(format: TexelFormat, channels: u8, fmt: ElementFormat, unnorm: bool) -> TextureArg {
        let (w, h) = (3u32, 2u32);
        let bytes = (w * h) as usize * channels as usize * format.bytes();
        TextureArg {
            offset: 0,
            texture: Texture {
                width: w,
                height: h,
                depth: 1,
                channels,
                format,
                data: (0..bytes).map(|i| i as u8 + 1).collect(),
            },
            decl: ResourceDecl {
                dim: TexDim::D2,
                unnorm,
                fmt: [fmt; 4],
            },
            sampler: SamplerState::default(),
        }
    }

    #[test]
    fn float_textures_are_pitched_2d_with_normalized_coordinates() {
        let mut p =
            plan(&arg(TexelFormat::F32, 4, ElementFormat::Float, false), 32).expect("plans");
        // 3 texels of 16 bytes = 48, padded to 64.
        assert_eq!(p.data.len(), 2 * 64);
        assert_eq!(&p.data[64..64 + 48], &(49..=96).collect::<Vec<u8>>()[..]);
        assert!(p.data[48..64].iter().all(|&b| b == 0));
        p.set_device_ptr(0x1234_5678_9000);
        assert_eq!(std::mem::align_of_val(&p.resource), 8);
        let r = &p.resource.0;
        assert_eq!(word(r, 0), RESOURCE_TYPE_PITCH2D);
        assert_eq!(dword(r, 8), 0x1234_5678_9000);
        assert_eq!((word(r, 16), word(r, 20)), (0x20, 4));
        assert_eq!((dword(r, 24), dword(r, 32), dword(r, 40)), (3, 2, 64));
        assert_eq!(word(r, 136), 0, "flags");
        let t = &p.texture.0;
        assert_eq!([word(t, 0), word(t, 4), word(t, 8)], [1, 1, 1], "clamp");
        assert_eq!(word(t, 12), 0, "point");
        assert_eq!(
            word(t, 16),
            TRSF_READ_AS_INTEGER | TRSF_NORMALIZED_COORDINATES
        );
    }

    #[test]
    fn normalized_storage_read_as_float_converts_and_unnorm_coordinates_stay_texels() {
        let p = plan(&arg(TexelFormat::Unorm8, 4, ElementFormat::Float, true), 32).expect("plans");
        assert_eq!(word(&p.resource.0, 16), 0x01);
        assert_eq!(
            word(&p.texture.0, 16),
            0,
            "normalized float reads, texel coordinates"
        );
        let p = plan(&arg(TexelFormat::U16, 2, ElementFormat::Uint, false), 32).expect("plans");
        assert_eq!(
            (word(&p.resource.0, 16), word(&p.resource.0, 20)),
            (0x02, 2)
        );
        assert_eq!(
            word(&p.texture.0, 16),
            TRSF_READ_AS_INTEGER | TRSF_NORMALIZED_COORDINATES
        );
    }

    #[test]
    fn unsupported_shapes_and_filters_are_refused() {
        let mut a = arg(TexelFormat::F32, 1, ElementFormat::Float, false);
        a.decl.dim = TexDim::D3;
        assert!(plan(&a, 32).unwrap_err().contains("1-D or 2-D"));
        let mut a = arg(TexelFormat::U32, 1, ElementFormat::Uint, false);
        a.sampler.filter = Filter::Linear;
        assert!(plan(&a, 32).unwrap_err().contains("linear filtering"));
        let a = arg(TexelFormat::U32, 3, ElementFormat::Uint, false);
        assert!(plan(&a, 32).unwrap_err().contains("3 channels"));
    }
}
