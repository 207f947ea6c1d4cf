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
    /// The same buffer id was given twice.
    #[error("{kind} {id} given more than once")]
    Duplicate {
        /// `uav`, `srv` or `cb`.
        kind: &'static str,
        /// Buffer id.
        id: u32,
    },
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
        .parse::<usize>()
        .map_err(|_| format!("`{n}` is not a byte count"))?;
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

fn read(path: &Path) -> Result<Vec<u8>, DispatchError> {
    fs::read(path).map_err(|source| DispatchError::Io {
        path: path.to_path_buf(),
        source,
    })
}

impl DispatchArgs {
    /// Reads every buffer file named by the arguments.
    pub fn load(&self) -> Result<Buffers, DispatchError> {
        let mut b = Buffers::default();
        for (id, path) in &self.uavs {
            if b.uavs.insert(*id, read(path)?).is_some() {
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
            if b.cbs.insert(*id, read(path)?).is_some() {
                return Err(DispatchError::Duplicate {
                    kind: "cb",
                    id: *id,
                });
            }
        }
        for (id, path) in &self.srvs {
            if b.srvs.insert(*id, read(path)?).is_some() {
                return Err(DispatchError::Duplicate {
                    kind: "srv",
                    id: *id,
                });
            }
        }
        if let Some(g) = &self.global {
            b.global = Some(read(g)?);
        }
        Ok(b)
    }
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
        let b = args.load().unwrap();
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
        assert!(matches!(missing.load(), Err(DispatchError::Io { .. })));
        let dup = DispatchArgs {
            uavs: vec![(0, f.clone()), (0, f)],
            ..args
        };
        assert!(matches!(dup.load(), Err(DispatchError::Duplicate { .. })));
        fs::remove_dir_all(&dir).unwrap();
    }
}
