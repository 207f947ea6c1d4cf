//! Command-line dispatch arguments and buffer files, shared by `il-run` and `spa5-run`.
//!
//! `--grid X[,Y[,Z]]` (groups), `--uav ID=FILE`, `--cb ID=FILE`, `--srv ID=FILE`, `--g FILE`,
//! `--zero ID=BYTES`
//! and `--out DIR` (default `./out`). Buffer files are raw little-endian bytes; after a run
//! every UAV is written back as `DIR/uavID.bin` and the global buffer as `DIR/g.bin`.
//! Every failure is a [`DispatchError`] with a message naming the argument or file; nothing
//! here panics on user input.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use isa_amdil::interp::texture::{SamplerState, TexelFormat, Texture};
use isa_amdil::interp::Dispatch;

/// Why loading or writing buffers failed.
#[derive(Debug, thiserror::Error)]
pub enum DispatchError {
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The dispatch is larger than the runners accept (see [`MAX_WORK_ITEMS`],
    /// [`MEMORY_BUDGET`]).
    #[error("{0}")]
    Limit(String),
    /// The same buffer id was given twice.
    #[error("{kind} {id} given more than once")]
    Duplicate {
        /// `uav`, `srv` or `cb`.
        kind: &'static str,
        /// Buffer id.
        id: u32,
    },
}

/// Most work-items (threads) one dispatch may have, in both runners: 2^24, far beyond what an
/// interpreter or emulator finishes in minutes, far below what exhausts memory.
pub const MAX_WORK_ITEMS: u64 = 1 << 24;
/// Most bytes of buffers (files, zero-filled UAVs, textures) one dispatch may bind: 1 GiB.
pub const MEMORY_BUDGET: u64 = 1 << 30;
// ilc's code addresses a buffer of at most `MAX_BUFFER_BYTES`; the budget keeps every
// buffer the runners bind below it.
const _: () = assert!(MEMORY_BUDGET <= ilc::spa5::abi::MAX_BUFFER_BYTES);
/// Default instruction budget of `il-run` (`--fuel` raises it), in work-item instructions:
/// 2^28, about 10 s of an endless loop at the interpreter's ~37 ns per instruction. The largest
/// benchmark dispatch executes ~2e7.
pub const DEFAULT_FUEL: u64 = 1 << 28;
/// Default instruction budget of `spa5-run` (`--fuel` raises it), in warp instructions: 2^26.
/// One warp instruction does 32 work-items' work, and the emulator also models issue timing
/// and hazards (~0.16 us per warp instruction optimized, ~0.25 us in a debug build on a slow
/// machine), so an endless loop stops within 10-20 s; the largest benchmark dispatch executes
/// 6.2e5, a hundred times below.
pub const DEFAULT_WARP_FUEL: u64 = 1 << 26;

/// Checks the work-item count of a dispatch (`domain` pixels for pixel-shader kernels,
/// otherwise `grid` groups of `group` work-items) against [`MAX_WORK_ITEMS`].
pub fn check_work_items(
    grid: [u32; 3],
    group: [u32; 3],
    domain: Option<[u32; 2]>,
) -> Result<u64, DispatchError> {
    let (n, what) = match domain {
        Some([w, h]) => (w as u64 * h as u64, format!("domain {w}x{h}")),
        None => {
            let groups = grid.iter().map(|&g| g as u128).product::<u128>();
            let size = group.iter().map(|&g| g as u128).product::<u128>();
            let n = groups.saturating_mul(size);
            (
                u64::try_from(n).unwrap_or(u64::MAX),
                format!(
                    "grid {}x{}x{} of {}x{}x{} work-items",
                    grid[0], grid[1], grid[2], group[0], group[1], group[2]
                ),
            )
        }
    };
    if n > MAX_WORK_ITEMS {
        return Err(DispatchError::Limit(format!(
            "{what} is {n} work-items, more than the limit of {MAX_WORK_ITEMS}"
        )));
    }
    Ok(n)
}

/// Bytes bound so far, checked against [`MEMORY_BUDGET`] before anything is allocated.
#[derive(Debug, Default, Clone, Copy)]
pub struct Budget {
    used: u64,
}

impl Budget {
    /// Takes `bytes` for `what`, or fails naming it when the budget would be exceeded.
    pub fn take(&mut self, bytes: u64, what: &str) -> Result<(), DispatchError> {
        match self.used.checked_add(bytes) {
            Some(n) if n <= MEMORY_BUDGET => {
                self.used = n;
                Ok(())
            }
            _ => Err(DispatchError::Limit(format!(
                "{what}: {bytes} bytes exceed the memory budget of {MEMORY_BUDGET} bytes \
                 ({} already bound)",
                self.used
            ))),
        }
    }

    /// Reads `path` after taking its size from the budget.
    pub fn read(&mut self, path: &Path) -> Result<Vec<u8>, DispatchError> {
        let io = |source| DispatchError::Io {
            path: path.to_path_buf(),
            source,
        };
        let len = fs::metadata(path).map_err(io)?.len();
        self.take(len, &path.display().to_string())?;
        fs::read(path).map_err(io)
    }
}

/// Parses `X[,Y[,Z]]` into three group counts (missing = 1); each must be at least 1.
pub fn parse_grid(s: &str) -> Result<[u32; 3], String> {
    let parts: Vec<&str> = s.split(',').map(str::trim).collect();
    if parts.is_empty() || parts.len() > 3 {
        return Err(format!("expected X[,Y[,Z]], got `{s}`"));
    }
    let mut g = [1u32; 3];
    for (slot, p) in g.iter_mut().zip(&parts) {
        *slot = p
            .parse::<u32>()
            .map_err(|_| format!("`{p}` is not a group count"))?;
        if *slot == 0 {
            return Err("group counts must be at least 1".into());
        }
    }
    Ok(g)
}

/// Parses `ID=VALUE` into the id and the value text.
fn split_id(s: &str) -> Result<(u32, &str), String> {
    let (id, rest) = s
        .split_once('=')
        .ok_or_else(|| format!("expected ID=VALUE, got `{s}`"))?;
    let id = id
        .trim()
        .parse::<u32>()
        .map_err(|_| format!("`{id}` is not a buffer id"))?;
    if rest.is_empty() {
        return Err(format!("`{s}` has an empty value"));
    }
    Ok((id, rest))
}

/// Parses `ID=FILE`.
pub fn parse_id_file(s: &str) -> Result<(u32, PathBuf), String> {
    split_id(s).map(|(id, f)| (id, PathBuf::from(f)))
}

/// Parses `ID=BYTES`.
pub fn parse_id_size(s: &str) -> Result<(u32, usize), String> {
    let (id, n) = split_id(s)?;
    let n = n
        .parse::<u64>()
        .map_err(|_| format!("`{n}` is not a byte count"))?;
    if n > MEMORY_BUDGET {
        return Err(format!(
            "{n} bytes exceed the memory budget of {MEMORY_BUDGET} bytes"
        ));
    }
    let n = usize::try_from(n).map_err(|_| format!("{n} bytes do not fit in memory"))?;
    Ok((id, n))
}

/// The dispatch arguments common to the runners (`#[command(flatten)]` them).
#[derive(Debug, Clone, clap::Args)]
pub struct DispatchArgs {
    /// Number of groups: X[,Y[,Z]].
    #[arg(long, value_parser = parse_grid, default_value = "1")]
    pub grid: [u32; 3],
    /// Bind a UAV to a file of raw little-endian bytes: ID=FILE (repeatable).
    #[arg(long = "uav", value_parser = parse_id_file)]
    pub uavs: Vec<(u32, PathBuf)>,
    /// Fill a constant buffer from a file (16 bytes per element): ID=FILE (repeatable).
    #[arg(long = "cb", value_parser = parse_id_file)]
    pub cbs: Vec<(u32, PathBuf)>,
    /// Bind a read-only SRV to a file: ID=FILE (repeatable; not written back).
    #[arg(long = "srv", value_parser = parse_id_file)]
    pub srvs: Vec<(u32, PathBuf)>,
    /// Bind the global buffer g[] to a file.
    #[arg(long = "g")]
    pub global: Option<PathBuf>,
    /// Create a zero-filled UAV of BYTES bytes: ID=BYTES (repeatable).
    #[arg(long = "zero", value_parser = parse_id_size)]
    pub zero: Vec<(u32, usize)>,
    /// Directory for the written-back buffers.
    #[arg(long, default_value = "out")]
    pub out: PathBuf,
}

/// Buffers loaded from the command line.
#[derive(Debug, Default, Clone)]
pub struct Buffers {
    /// UAV contents by id.
    pub uavs: BTreeMap<u32, Vec<u8>>,
    /// Constant buffer contents by id.
    pub cbs: BTreeMap<u32, Vec<u8>>,
    /// SRV contents by id.
    pub srvs: BTreeMap<u32, Vec<u8>>,
    /// Global buffer.
    pub global: Option<Vec<u8>>,
}

/// The dispatch both runners start from: the grid, buffers, textures, samplers and domain
/// the arguments name, read within one fresh memory budget.
pub fn load_dispatch(args: &DispatchArgs, tex: &TextureArgs) -> Result<Dispatch, DispatchError> {
    let mut budget = Budget::default();
    let bufs = args.load(&mut budget)?;
    let mut d = Dispatch::new(args.grid);
    d.uavs = bufs.uavs;
    d.cbs = bufs.cbs;
    d.srvs = bufs.srvs;
    d.global = bufs.global;
    d.textures = tex.load(&mut budget)?;
    d.samplers = tex.samplers.iter().copied().collect();
    d.domain = tex.domain;
    Ok(d)
}

impl DispatchArgs {
    /// Reads every buffer file named by the arguments, taking their sizes from `budget`
    /// before reading or allocating anything.
    pub fn load(&self, budget: &mut Budget) -> Result<Buffers, DispatchError> {
        let mut b = Buffers::default();
        for (id, n) in &self.zero {
            budget.take(*n as u64, &format!("--zero {id}"))?;
        }
        for (id, path) in &self.uavs {
            if b.uavs.insert(*id, budget.read(path)?).is_some() {
                return Err(DispatchError::Duplicate {
                    kind: "uav",
                    id: *id,
                });
            }
        }
        for (id, n) in &self.zero {
            if b.uavs.insert(*id, vec![0; *n]).is_some() {
                return Err(DispatchError::Duplicate {
                    kind: "uav",
                    id: *id,
                });
            }
        }
        for (id, path) in &self.cbs {
            if b.cbs.insert(*id, budget.read(path)?).is_some() {
                return Err(DispatchError::Duplicate {
                    kind: "cb",
                    id: *id,
                });
            }
        }
        for (id, path) in &self.srvs {
            if b.srvs.insert(*id, budget.read(path)?).is_some() {
                return Err(DispatchError::Duplicate {
                    kind: "srv",
                    id: *id,
                });
            }
        }
        if let Some(g) = &self.global {
            b.global = Some(budget.read(g)?);
        }
        Ok(b)
    }
}

/// Parses `ID=FILE:WxH[xD]:FORMAT[xN]` (a texture: size in texels, channel storage
/// `f32|u32|s32|unorm8|u8|unorm16|u16`, N channels, default 1).
pub fn parse_texture(s: &str) -> Result<(u32, TextureSpec), String> {
    let (id, rest) = split_id(s)?;
    let mut parts = rest.rsplitn(3, ':');
    let (Some(fmt), Some(size), Some(file)) = (parts.next(), parts.next(), parts.next()) else {
        return Err(format!("expected ID=FILE:WxH[xD]:FORMAT[xN], got `{s}`"));
    };
    let mut dims = [1u32; 3];
    let size_parts: Vec<&str> = size.split('x').collect();
    if size_parts.is_empty() || size_parts.len() > 3 {
        return Err(format!("`{size}` is not WxH[xD]"));
    }
    for (d, p) in dims.iter_mut().zip(&size_parts) {
        *d = p
            .parse::<u32>()
            .ok()
            .filter(|&v| v > 0)
            .ok_or_else(|| format!("`{p}` is not a texel count"))?;
    }
    let (fname, channels) = match fmt.split_once('x') {
        Some((f, n)) => (
            f,
            n.parse::<u8>()
                .ok()
                .filter(|n| (1..=4).contains(n))
                .ok_or_else(|| format!("`{n}` is not a channel count 1..4"))?,
        ),
        None => (fmt, 1),
    };
    let format = TexelFormat::from_name(fname).ok_or_else(|| {
        format!("`{fname}` is not a texel format (f32, u32, s32, unorm8, u8, unorm16, u16)")
    })?;
    Ok((
        id,
        TextureSpec {
            file: PathBuf::from(file),
            dims,
            channels,
            format,
        },
    ))
}

/// Parses `ID=point|linear[,clamp|wrap|mirror|border]`.
pub fn parse_sampler(s: &str) -> Result<(u32, SamplerState), String> {
    let (id, rest) = split_id(s)?;
    let st = SamplerState::parse(rest)
        .ok_or_else(|| format!("`{rest}` is not point|linear[,clamp|wrap|mirror|border]"))?;
    Ok((id, st))
}

/// Parses `ID=FORMAT[xN]` (the storage a compiled kernel assumes for texture ID: channel
/// format `f32|u32|s32|unorm8|u8|unorm16|u16`, N channels, default 4).
pub fn parse_texture_format(s: &str) -> Result<(u32, (TexelFormat, u8)), String> {
    let (id, rest) = split_id(s)?;
    let (f, n) = match rest.rsplit_once('x') {
        Some((f, n)) if n.chars().all(|c| c.is_ascii_digit()) && !n.is_empty() => (
            f,
            n.parse::<u8>()
                .map_err(|_| format!("bad channel count `{n}`"))?,
        ),
        _ => (rest, 4),
    };
    if !(1..=4).contains(&n) {
        return Err(format!("channel count {n} is not 1..=4"));
    }
    let format = TexelFormat::from_name(f)
        .ok_or_else(|| format!("`{f}` is not f32|u32|s32|unorm8|u8|unorm16|u16"))?;
    Ok((id, (format, n)))
}

/// Parses `W,H` (a pixel-shader domain).
pub fn parse_domain(s: &str) -> Result<[u32; 2], String> {
    let g = parse_grid(s)?;
    if g[2] != 1 || !s.contains(',') {
        return Err(format!("expected W,H, got `{s}`"));
    }
    Ok([g[0], g[1]])
}

/// A texture named on the command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextureSpec {
    /// Texel file (raw little-endian, row-major).
    pub file: PathBuf,
    /// Width, height, depth in texels.
    pub dims: [u32; 3],
    /// Channels per texel.
    pub channels: u8,
    /// Channel storage.
    pub format: TexelFormat,
}

/// Texture, sampler and pixel-shader arguments (`#[command(flatten)]` them).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct TextureArgs {
    /// Bind a texture: ID=FILE:WxH[xD]:FORMAT[xN] (repeatable).
    #[arg(long = "tex", value_parser = parse_texture)]
    pub textures: Vec<(u32, TextureSpec)>,
    /// Sampler state: ID=point|linear[,clamp|wrap|mirror|border] (default point,clamp).
    #[arg(long = "sampler", value_parser = parse_sampler)]
    pub samplers: Vec<(u32, SamplerState)>,
    /// Pixel-shader compute domain in pixels: W,H (il_ps kernels); outputs o# are written
    /// as DIR/oN.bin, 16 bytes per pixel, row-major.
    #[arg(long, value_parser = parse_domain)]
    pub domain: Option<[u32; 2]>,
}

impl TextureArgs {
    /// Reads every texture file (taking its size from `budget`); a file shorter than its
    /// size is an error.
    pub fn load(&self, budget: &mut Budget) -> Result<BTreeMap<u32, Texture>, DispatchError> {
        let mut out = BTreeMap::new();
        for (id, spec) in &self.textures {
            let data = budget.read(&spec.file)?;
            let t = Texture {
                width: spec.dims[0],
                height: spec.dims[1],
                depth: spec.dims[2],
                channels: spec.channels,
                format: spec.format,
                data,
            };
            if t.data.len() < t.size_bytes() {
                return Err(DispatchError::Io {
                    path: spec.file.clone(),
                    source: std::io::Error::new(
                        std::io::ErrorKind::UnexpectedEof,
                        format!(
                            "texture needs {} bytes, the file has {}",
                            t.size_bytes(),
                            t.data.len()
                        ),
                    ),
                });
            }
            if out.insert(*id, t).is_some() {
                return Err(DispatchError::Duplicate {
                    kind: "texture",
                    id: *id,
                });
            }
        }
        Ok(out)
    }
}

/// Writes pixel-shader outputs as `dir/oID.bin`; returns the files written.
pub fn write_ps_outputs(
    dir: &Path,
    outputs: &BTreeMap<u32, Vec<u8>>,
) -> Result<Vec<PathBuf>, DispatchError> {
    let mut written = Vec::new();
    for (id, bytes) in outputs {
        let p = dir.join(format!("o{id}.bin"));
        fs::write(&p, bytes).map_err(|source| DispatchError::Io {
            path: p.clone(),
            source,
        })?;
        written.push(p);
    }
    Ok(written)
}

/// Writes every UAV as `dir/uavID.bin` and the global buffer as `dir/g.bin`, creating `dir`;
/// returns the files written.
pub fn write_outputs(
    dir: &Path,
    uavs: &BTreeMap<u32, Vec<u8>>,
    global: Option<&[u8]>,
) -> Result<Vec<PathBuf>, DispatchError> {
    fs::create_dir_all(dir).map_err(|source| DispatchError::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    let mut written = Vec::new();
    let mut put = |name: String, bytes: &[u8]| -> Result<(), DispatchError> {
        let p = dir.join(name);
        fs::write(&p, bytes).map_err(|source| DispatchError::Io {
            path: p.clone(),
            source,
        })?;
        written.push(p);
        Ok(())
    };
    for (id, bytes) in uavs {
        put(format!("uav{id}.bin"), bytes)?;
    }
    if let Some(g) = global {
        put("g.bin".into(), g)?;
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texture_sampler_domain_parsing() {
        let (id, t) = parse_texture("2=dir/a:b.bin:64x32:unorm8x4").unwrap();
        assert_eq!(id, 2);
        assert_eq!(t.file, PathBuf::from("dir/a:b.bin"));
        assert_eq!(t.dims, [64, 32, 1]);
        assert_eq!((t.channels, t.format), (4, TexelFormat::Unorm8));
        assert_eq!(parse_texture("0=x.bin:8:f32").unwrap().1.dims, [8, 1, 1]);
        assert!(parse_texture("0=x.bin:8x0:f32").is_err());
        assert!(parse_texture("0=x.bin:8:f64").is_err());
        assert!(parse_texture("0=x.bin:8:f32x5").is_err());
        assert!(parse_texture("0=x.bin").is_err());
        let (_, s) = parse_sampler("1=linear,wrap").unwrap();
        assert_eq!(s, SamplerState::parse("linear,wrap").unwrap());
        assert!(parse_sampler("1=bilinear").is_err());
        assert_eq!(parse_domain("640,480"), Ok([640, 480]));
        assert!(parse_domain("640").is_err());
        assert!(parse_domain("1,2,3").is_err());
    }

    #[test]
    fn grid_parsing() {
        assert_eq!(parse_grid("4"), Ok([4, 1, 1]));
        assert_eq!(parse_grid("4,2"), Ok([4, 2, 1]));
        assert_eq!(parse_grid("4, 2, 3"), Ok([4, 2, 3]));
        assert!(parse_grid("0").is_err());
        assert!(parse_grid("1,2,3,4").is_err());
        assert!(parse_grid("x").is_err());
        assert!(parse_grid("").is_err());
    }

    #[test]
    fn id_parsing() {
        assert_eq!(parse_id_file("3=a.bin"), Ok((3, PathBuf::from("a.bin"))));
        assert_eq!(
            parse_id_file("3=dir/x=y"),
            Ok((3, PathBuf::from("dir/x=y")))
        );
        assert!(parse_id_file("a.bin").is_err());
        assert!(parse_id_file("x=a.bin").is_err());
        assert!(parse_id_file("1=").is_err());
        assert_eq!(parse_id_size("2=64"), Ok((2, 64)));
        assert!(parse_id_size("2=-1").is_err());
    }

    #[test]
    fn load_and_write_round_trip() {
        let dir = std::env::temp_dir().join(format!("ilc-dispatch-test-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let f = dir.join("in.bin");
        fs::write(&f, [1u8, 2, 3, 4]).unwrap();
        let args = DispatchArgs {
            grid: [1, 1, 1],
            uavs: vec![(0, f.clone())],
            cbs: vec![(1, f.clone())],
            srvs: vec![(2, f.clone())],
            global: None,
            zero: vec![(5, 8)],
            out: dir.join("out"),
        };
        let b = args.load(&mut Budget::default()).unwrap();
        assert_eq!(b.uavs[&0], [1, 2, 3, 4]);
        assert_eq!(b.uavs[&5], [0; 8]);
        assert_eq!(b.cbs[&1], [1, 2, 3, 4]);
        assert_eq!(b.srvs[&2], [1, 2, 3, 4]);
        let w = write_outputs(&args.out, &b.uavs, Some(&[9u8][..])).unwrap();
        assert_eq!(w.len(), 3);
        assert_eq!(fs::read(args.out.join("uav0.bin")).unwrap(), [1, 2, 3, 4]);
        assert_eq!(fs::read(args.out.join("g.bin")).unwrap(), [9]);
        let missing = DispatchArgs {
            uavs: vec![(0, dir.join("nope.bin"))],
            ..args.clone()
        };
        assert!(matches!(
            missing.load(&mut Budget::default()),
            Err(DispatchError::Io { .. })
        ));
        let dup = DispatchArgs {
            uavs: vec![(0, f.clone()), (0, f)],
            ..args
        };
        assert!(matches!(
            dup.load(&mut Budget::default()),
            Err(DispatchError::Duplicate { .. })
        ));
        fs::remove_dir_all(&dir).unwrap();
    }
}
