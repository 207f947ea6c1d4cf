//! The texture unit: `TEX`, `TLD`, `TLD4`, `TXQ` and the short forms `TEXS`, `TLDS`.
//!
//! Texture instructions name a 64-bit texture handle in constant bank 0 (the bound forms of
//! `TEXMODE_UNIFIED` code: a texture object kernel parameter). What a handle stands for — the
//! texel storage, size, format, sampler state and whether coordinates are normalized — is the
//! driver's business (its header and sampler tables are not part of the ISA), so the emulator
//! hands every fetch to a [`TextureUnit`] the embedder supplies with
//! [`super::Device::set_texture_unit`], the way a driver would own the descriptors.
//!
//! Registers follow the hardware layout: the coordinate group at Ra (array index first, then
//! x, y, z), the group at Rb (explicit LOD or bias, packed `.AOFFI` offsets, `.DC` reference,
//! `.MS` sample, in that order), and the results packed into Rd.. one register per write-mask
//! bit (x first).

use super::exec::unsupported;
use super::warp::Warp;
use super::EmuError;
use crate::inst::{Inst, ModKind as M, Operand};

/// What a texture instruction asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TexOp {
    /// `TEX`: a filtered sample at float coordinates.
    Sample,
    /// `TLD`: an unfiltered texel at integer coordinates.
    Fetch,
    /// `TXQ`: a property of the texture (the query is in [`TexRequest::query`]).
    Query,
    /// `TLD4`: component `c` (0 = R .. 3 = A) of the four texels of the bilinear footprint,
    /// in the order (i0, j1), (i1, j1), (i1, j0), (i0, j0).
    Gather(u8),
}

/// One lane's texture request.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TexRequest {
    /// The operation.
    pub op: TexOp,
    /// The instruction's dimension (`1D`, `2D`, `ARRAY_2D`, `3D`, `CUBE`...); empty for TXQ.
    pub dim: &'static str,
    /// The LOD mode (`""` implicit, `LZ`, `LB`, `LL`...; TLD: `LZ` or `LL`).
    pub lod_mode: &'static str,
    /// The coordinate registers (array index first); TXQ: its Ra (the LOD).
    pub coords: [u32; 4],
    /// How many of `coords` the instruction reads.
    pub n_coords: u8,
    /// The explicit LOD or bias, if the LOD mode has one.
    pub lod: Option<u32>,
    /// Packed texel offsets (4 bits per axis, x lowest), if `.AOFFI`.
    pub offsets: Option<u32>,
    /// Depth-compare reference, if `.DC`.
    pub dc: Option<u32>,
    /// Sample index, if `.MS`.
    pub sample: Option<u32>,
    /// TXQ's query (`TEX_HEADER_DIMENSION`...).
    pub query: &'static str,
}

/// Resolves texture handles and performs the fetches (owned by the embedder, as the
/// driver owns texture descriptors). Must be deterministic for launches to be.
pub trait TextureUnit: Send + Sync {
    /// The four result channels of `req` through `handle`, or why it cannot be served (an
    /// unknown handle, an operation the texture does not support).
    fn fetch(&self, handle: u64, req: &TexRequest) -> Result<[u32; 4], String>;
}

/// The 64-bit texture handle in constant bank 0 at word `slot`.
fn handle_at(banks: &[Vec<u8>], slot: u64) -> u64 {
    let b0 = banks.first().map_or(&[][..], |v| &v[..]);
    let at = slot as usize * 4;
    let mut h = [0u8; 8];
    if let Some(src) = b0.get(at..at + 8) {
        h.copy_from_slice(src);
    }
    u64::from_le_bytes(h)
}

/// TEXS/TLDS: results split over Rd (first two channels) and Rd2 (the rest); Ra = x and
/// Rb = y (2-D) or the LOD (`TLDS.LL` 1-D). Other types are reported unsupported.
fn execute_short(
    inst: &Inst,
    pc: u32,
    w: &mut Warp,
    g: u32,
    banks: &[Vec<u8>],
    unit: &dyn TextureUnit,
) -> Result<(), EmuError> {
    let ops = inst.ops();
    let reg = |k: usize| match ops.get(k) {
        Some(Operand::Reg(r)) => r.0,
        _ => 255,
    };
    let slot = match ops.get(4) {
        Some(Operand::Imm(v)) => *v as u64,
        _ => 0,
    };
    let handle = handle_at(banks, slot);
    let ty = inst.get_name(M::TexsType).unwrap_or("?");
    let (lod_mode, dim) = ty.split_once('|').unwrap_or(("", ty));
    let fetch = inst.form().mnemonic == "TLDS";
    let (n_coords, has_lod) = match (fetch, lod_mode, dim) {
        (_, "LZ", "1D") => (1, false),
        (true, "LL", "1D") => (1, true),
        (false, "" | "LZ", "2D") | (true, "LZ", "2D") => (2, false),
        _ => {
            return Err(unsupported(
                inst,
                pc,
                "this TEXS/TLDS type (only 1D/2D with x, y or LOD registers)",
            ))
        }
    };
    let channels: Vec<usize> = inst
        .get_name(M::TexChannels)
        .unwrap_or("")
        .bytes()
        .map(|c| match c {
            b'R' => 0,
            b'G' => 1,
            b'B' => 2,
            _ => 3,
        })
        .collect();
    let (d2, d, a, b) = (reg(0), reg(1), reg(2), reg(3));
    for l in (0..32).filter(|l| g >> l & 1 != 0) {
        let read = |r: u8| if r == 255 { 0 } else { w.reg(r, l) };
        let mut coords = [0u32; 4];
        coords[0] = read(a);
        if n_coords == 2 {
            coords[1] = read(b);
        }
        let req = TexRequest {
            op: if fetch { TexOp::Fetch } else { TexOp::Sample },
            dim,
            lod_mode,
            coords,
            n_coords,
            lod: has_lod.then(|| read(b)),
            offsets: None,
            dc: None,
            sample: None,
            query: "",
        };
        let v = unit
            .fetch(handle, &req)
            .map_err(|why| unsupported(inst, pc, &format!("texture handle {handle:#x}: {why}")))?;
        for (k, &c) in channels.iter().enumerate() {
            let r = if k < 2 {
                d.saturating_add(k as u8)
            } else {
                d2.saturating_add(k as u8 - 2)
            };
            if r != 255 && !(k >= 2 && d2 == 255) {
                w.set_reg(r, l, v[c]);
            }
        }
    }
    Ok(())
}

/// Executes a texture instruction for the lanes in `g`.
pub(crate) fn execute(
    inst: &Inst,
    pc: u32,
    w: &mut Warp,
    g: u32,
    banks: &[Vec<u8>],
    unit: Option<&dyn TextureUnit>,
) -> Result<(), EmuError> {
    let Some(unit) = unit else {
        return Err(unsupported(
            inst,
            pc,
            "texture instruction, but no texture unit is bound to the device",
        ));
    };
    if matches!(inst.form().mnemonic, "TEXS" | "TLDS") {
        return execute_short(inst, pc, w, g, banks, unit);
    }
    let ops = inst.ops();
    let reg = |k: usize| match ops.get(k) {
        Some(Operand::Reg(r)) => r.0,
        _ => 255,
    };
    let imm = |k: usize| match ops.get(k) {
        Some(Operand::Imm(v)) => *v as u64,
        _ => 0,
    };
    let form = inst.form();
    let is_txq = form.mnemonic == "TXQ";
    let (slot, mask) = if is_txq {
        (imm(2), imm(3) as u32 & 0xf)
    } else {
        (imm(3), imm(4) as u32 & 0xf)
    };
    let handle = handle_at(banks, slot);
    let (d, a, b) = (reg(0), reg(1), if is_txq { 255 } else { reg(2) });
    let n_coords = if is_txq {
        1
    } else {
        inst.width(crate::table::Width::TexCoords)
    };
    let lod_mode = inst.get_name(M::TexLod).unwrap_or("");
    let has_lod = if form.mnemonic == "TLD" {
        lod_mode == "LL"
    } else {
        matches!(lod_mode, "LB" | "LL" | "LBA" | "LLA")
    };
    let op = match form.mnemonic {
        "TEX" => TexOp::Sample,
        "TLD" => TexOp::Fetch,
        "TLD4" => {
            if inst.get(M::Aoffi).unwrap_or(0) != 0 || inst.has(M::Dc) {
                return Err(unsupported(inst, pc, "TLD4 with offsets or depth compare"));
            }
            TexOp::Gather(inst.get(M::TexComp).unwrap_or(0))
        }
        _ => TexOp::Query,
    };
    for l in (0..32).filter(|l| g >> l & 1 != 0) {
        let read = |r: u8| if r == 255 { 0 } else { w.reg(r, l) };
        let mut coords = [0u32; 4];
        for (k, c) in coords.iter_mut().enumerate().take(n_coords as usize) {
            *c = read(a.saturating_add(k as u8));
        }
        // The Rb group, in hardware order.
        let mut next = b;
        let mut take = |present: bool| {
            present.then(|| {
                let v = read(next);
                next = next.saturating_add(1);
                v
            })
        };
        let sample = take(inst.has(M::Ms));
        let lod = take(has_lod);
        let offsets = take(inst.has(M::Aoffi));
        let dc = take(inst.has(M::Dc));
        let req = TexRequest {
            op,
            dim: inst.get_name(M::TexDim).unwrap_or(""),
            lod_mode,
            coords,
            n_coords,
            lod,
            offsets,
            dc,
            sample,
            query: inst.get_name(M::TexQuery).unwrap_or(""),
        };
        let v = unit
            .fetch(handle, &req)
            .map_err(|why| unsupported(inst, pc, &format!("texture handle {handle:#x}: {why}")))?;
        let mut r = d;
        for (c, &x) in v.iter().enumerate() {
            if mask >> c & 1 != 0 {
                if r != 255 {
                    w.set_reg(r, l, x);
                }
                r = r.saturating_add(1);
            }
        }
    }
    Ok(())
}
