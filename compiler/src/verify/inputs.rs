//! `--verify-inputs DIR`: the user's buffers, constant buffers and textures for
//! [`super::verify`], read from one directory.
//!
//! File names (every file in the directory must be one of these, so a misspelt name is an
//! error rather than a silently random input):
//!
//! | file | binds | contents |
//! | --- | --- | --- |
//! | `uavN.bin` | UAV `N` (raw or typed) | raw little-endian bytes, as `il-run --uav N=FILE` (and what `il-run`/`spa5-run` write back) |
//! | `srvN.bin` | read-only buffer `N` | raw bytes, as `--srv N=FILE` |
//! | `cbN.bin` | constant buffer `N` | 16 bytes per element, as `--cb N=FILE` (a partial last element is zero-padded) |
//! | `g.bin` | the global buffer `g[]` | 16 bytes per element, as `--g FILE` |
//! | `texN-WxH[xD]-FORMAT[xC].bin` | texture resource `N` | texels row-major; FORMAT `f32 u32 s32 unorm8 u8 unorm16 u16`, C channels (default 1), as `il-run --tex N=FILE:WxH[xD]:FORMAT[xC]` |
//! | `grid.txt` | groups of the dispatch | `X[,Y[,Z]]` (default: [`super::VerifyOptions::grid`]) |
//! | `domain.txt` | pixels of a pixel shader | `W,H` |
//!
//! A resource the kernel declares without a file gets random contents (reported in the
//! verification's notes); the written-back buffers are compared as with random inputs.

use std::collections::BTreeMap;
use std::path::Path;

use isa_amdil::interp::texture::{TexelFormat, Texture};
use isa_amdil::interp::ExecProgram;

use crate::spa5::abi::{LaunchLayout, ParamKind};

/// Inputs for one verification dispatch, by resource.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Inputs {
    /// UAV contents by id.
    pub uavs: BTreeMap<u32, Vec<u8>>,
    /// The resource shapes behind typed UAVs by id (absent: the linear default,
    /// `isa_amdil::interp::typed_uav::UavView::linear`).
    pub uav_views: BTreeMap<u32, isa_amdil::interp::typed_uav::UavView>,
    /// Read-only buffer contents by id.
    pub srvs: BTreeMap<u32, Vec<u8>>,
    /// Constant buffer contents by id (16 bytes per element).
    pub cbs: BTreeMap<u32, Vec<u8>>,
    /// The global buffer `g[]`.
    pub global: Option<Vec<u8>>,
    /// Textures by resource id.
    pub textures: BTreeMap<u32, Texture>,
    /// Groups of the dispatch.
    pub grid: Option<[u32; 3]>,
    /// Pixel-shader domain.
    pub domain: Option<[u32; 2]>,
    /// Pixel-shader domain origin (default (0, 0)).
    pub domain_origin: [u32; 2],
}

/// `N` of `PREFIXN.bin`.
fn numbered(name: &str, prefix: &str) -> Option<u32> {
    let n = name.strip_prefix(prefix)?.strip_suffix(".bin")?;
    (!n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        .then(|| n.parse().ok())
        .flatten()
}

/// Up to three positive counts separated by `sep` (missing ones are 1).
fn counts(s: &str, sep: char, max: usize) -> Option<Vec<u32>> {
    let v: Vec<u32> = s
        .trim()
        .split(sep)
        .map(|p| p.trim().parse::<u32>().ok().filter(|&n| n > 0))
        .collect::<Option<_>>()?;
    (!v.is_empty() && v.len() <= max).then_some(v)
}

/// A texture from `texN-WxH[xD]-FORMAT[xC].bin` and its bytes.
fn texture(name: &str, data: Vec<u8>) -> Result<Option<(u32, Texture)>, String> {
    let Some(rest) = name
        .strip_prefix("tex")
        .and_then(|r| r.strip_suffix(".bin"))
    else {
        return Ok(None);
    };
    let parts: Vec<&str> = rest.split('-').collect();
    let [id, size, fmt] = parts[..] else {
        return Err(format!(
            "{name}: a texture file is named texN-WxH[xD]-FORMAT[xC].bin"
        ));
    };
    let id = id
        .parse::<u32>()
        .map_err(|_| format!("{name}: `{id}` is not a resource id"))?;
    let dims = counts(size, 'x', 3)
        .ok_or_else(|| format!("{name}: `{size}` is not WxH[xD] (positive texel counts)"))?;
    let (fname, channels) = match fmt.rsplit_once('x') {
        Some((f, c)) if c.bytes().all(|b| b.is_ascii_digit()) && !c.is_empty() => (
            f,
            c.parse::<u8>()
                .ok()
                .filter(|c| (1..=4).contains(c))
                .ok_or_else(|| format!("{name}: `{c}` is not a channel count 1..4"))?,
        ),
        _ => (fmt, 1),
    };
    let format = TexelFormat::from_name(fname).ok_or_else(|| {
        format!("{name}: `{fname}` is not a texel format (f32, u32, s32, unorm8, u8, unorm16, u16)")
    })?;
    let t = Texture {
        width: dims[0],
        height: dims.get(1).copied().unwrap_or(1),
        depth: dims.get(2).copied().unwrap_or(1),
        channels,
        format,
        data,
    };
    if t.data.len() != t.size_bytes() {
        return Err(format!(
            "{name}: {} bytes, but {}x{}x{} texels of {} bytes need {}",
            t.data.len(),
            t.width,
            t.height,
            t.depth,
            t.texel_bytes(),
            t.size_bytes()
        ));
    }
    Ok(Some((id, t)))
}

impl Inputs {
    /// Reads every file of `dir` by the naming in the module documentation; an unknown file
    /// name, an unreadable file or a malformed size is an error naming the file.
    pub fn from_dir(dir: &Path) -> Result<Inputs, String> {
        let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let mut names: Vec<String> = Vec::new();
        for e in entries {
            let e = e.map_err(|e| format!("{}: {e}", dir.display()))?;
            if e.file_type()
                .map_err(|e| format!("{}: {e}", dir.display()))?
                .is_file()
            {
                names.push(e.file_name().to_string_lossy().into_owned());
            }
        }
        names.sort();
        let mut inp = Inputs::default();
        for name in names {
            let path = dir.join(&name);
            let read = || std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()));
            let text =
                || std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()));
            if let Some(id) = numbered(&name, "uav") {
                inp.uavs.insert(id, read()?);
            } else if let Some(id) = numbered(&name, "srv") {
                inp.srvs.insert(id, read()?);
            } else if let Some(id) = numbered(&name, "cb") {
                let mut b = read()?;
                b.resize(b.len().next_multiple_of(16), 0);
                inp.cbs.insert(id, b);
            } else if name == "g.bin" {
                inp.global = Some(read()?);
            } else if name == "grid.txt" {
                let t = text()?;
                let v = counts(&t, ',', 3).ok_or_else(|| {
                    format!(
                        "{}: `{}` is not X[,Y[,Z]] (positive group counts)",
                        path.display(),
                        t.trim()
                    )
                })?;
                inp.grid = Some([
                    v[0],
                    v.get(1).copied().unwrap_or(1),
                    v.get(2).copied().unwrap_or(1),
                ]);
            } else if name == "domain.txt" {
                let t = text()?;
                let v = counts(&t, ',', 2).filter(|v| v.len() == 2).ok_or_else(|| {
                    format!("{}: `{}` is not W,H (pixels)", path.display(), t.trim())
                })?;
                inp.domain = Some([v[0], v[1]]);
            } else if let Some((id, t)) = texture(&name, read()?)? {
                inp.textures.insert(id, t);
            } else {
                return Err(format!(
                    "{}: not an input file name (uavN.bin, srvN.bin, cbN.bin, g.bin, \
                     texN-WxH[xD]-FORMAT[xC].bin, grid.txt, domain.txt)",
                    path.display()
                ));
            }
        }
        Ok(inp)
    }

    /// Which of the kernel's resources come from these inputs and which are random, and
    /// which inputs the kernel does not use.
    pub(crate) fn describe(&self, exec: &ExecProgram, layout: &LaunchLayout) -> Vec<String> {
        let mut from = Vec::new();
        let mut random = Vec::new();
        let mut unused = Vec::new();
        let mut note = |have: bool, what: String| {
            if have {
                from.push(what);
            } else {
                random.push(what);
            }
        };
        for id in &exec.uavs {
            note(self.uavs.contains_key(id), format!("uav{id}"));
        }
        for id in exec.cbs.keys() {
            note(self.cbs.contains_key(id), format!("cb{id}"));
        }
        if exec.uses_global {
            note(self.global.is_some(), "g".into());
        }
        for id in exec.resources.keys() {
            note(self.textures.contains_key(id), format!("texture {id}"));
        }
        let srvs: Vec<u32> = layout
            .params
            .iter()
            .filter_map(|p| match p.kind {
                ParamKind::SrvPtr(id) if !exec.resources.contains_key(&u32::from(id)) => {
                    Some(u32::from(id))
                }
                _ => None,
            })
            .collect();
        for id in &srvs {
            note(self.srvs.contains_key(id), format!("srv{id}"));
        }
        for id in self.uavs.keys().filter(|id| !exec.uavs.contains(id)) {
            unused.push(format!("uav{id}"));
        }
        for id in self.cbs.keys().filter(|id| !exec.cbs.contains_key(id)) {
            unused.push(format!("cb{id}"));
        }
        for id in self.srvs.keys().filter(|id| !srvs.contains(id)) {
            unused.push(format!("srv{id}"));
        }
        for id in self
            .textures
            .keys()
            .filter(|id| !exec.resources.contains_key(id))
        {
            unused.push(format!("texture {id}"));
        }
        if self.global.is_some() && !exec.uses_global {
            unused.push("g".into());
        }
        let mut out = Vec::new();
        if !from.is_empty() {
            out.push(format!("inputs from files: {}", from.join(", ")));
        }
        if !random.is_empty() {
            out.push(format!("random inputs (no file): {}", random.join(", ")));
        }
        if !unused.is_empty() {
            out.push(format!(
                "files the kernel does not use: {}",
                unused.join(", ")
            ));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(numbered("uav12.bin", "uav"), Some(12));
        assert_eq!(numbered("uav.bin", "uav"), None);
        assert_eq!(numbered("uav_1.bin", "uav"), None);
        let (id, t) = texture("tex3-4x2-f32x4.bin", vec![0; 128])
            .unwrap()
            .unwrap();
        assert_eq!(
            (id, t.width, t.height, t.depth, t.channels),
            (3, 4, 2, 1, 4)
        );
        assert!(texture("tex3-4x2-f32x4.bin", vec![0; 12]).is_err());
        assert!(texture("tex3-4x2.bin", vec![]).is_err());
        assert!(texture("texture.txt", vec![]).unwrap().is_none());
    }

    #[test]
    fn directory() {
        let dir = std::env::temp_dir().join(format!("ilc-verify-inputs-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("uav0.bin"), [1, 2, 3, 4]).unwrap();
        std::fs::write(dir.join("cb1.bin"), [9; 20]).unwrap();
        std::fs::write(dir.join("grid.txt"), "4,2\n").unwrap();
        let inp = Inputs::from_dir(&dir).unwrap();
        assert_eq!(inp.uavs[&0], vec![1, 2, 3, 4]);
        assert_eq!(inp.cbs[&1].len(), 32);
        assert_eq!(inp.grid, Some([4, 2, 1]));
        std::fs::write(dir.join("uav_1.bin"), [0]).unwrap();
        let e = Inputs::from_dir(&dir).unwrap_err();
        assert!(
            e.contains("uav_1.bin") && e.contains("not an input file name"),
            "{e}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
