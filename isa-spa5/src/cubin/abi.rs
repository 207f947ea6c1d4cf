//! The `.ilc.abi.K` section: what each kernel parameter means to an AMD IL driver.
//!
//! NVIDIA's tables (`KPARAM_INFO`) only say where parameters are and how big; a driver binding IL
//! resources (`spa5-run --uav/--cb`, an embedder) also needs to know that the 8 bytes at 0x10 are
//! the address of UAV 3 and the 4 bytes at 0x18 its size. [`IlcAbi`] records that, following
//! the launch ABI of `DESIGN.md` §2, and is stored in [`super::Kernel::ilc_abi`].
//!
//! Encoding: UTF-8 text, one item per line, so it stays readable in a hexdump:
//!
//! ```text
//! ilc-abi 1
//! param 0x0 8 uav_address 0
//! param 0x8 4 uav_size 0
//! param 0x10 48 cb 1
//! ```
//!
//! `param OFFSET SIZE ROLE [ID]` with OFFSET/SIZE decimal or `0x` hex, bytes from the start of
//! the parameter area (`c[0x0][0x140]`). [`IlcAbi::decode`] rejects anything else with an error
//! naming the line; it never panics.

use super::CubinError;

/// The meaning of one parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ParamRole {
    /// 64-bit global address of UAV `id`.
    UavAddress(u32),
    /// Size in bytes of UAV `id` (loads past it return 0, stores past it are dropped).
    UavSize(u32),
    /// 64-bit global address of the global buffer `g[]`.
    GlobalAddress,
    /// Size in bytes of `g[]`.
    GlobalSize,
    /// The contents of constant buffer `cbN`, copied into the parameter area.
    ConstBuffer(u32),
    /// 64-bit address of constant buffer `cbN` (too large to copy in; read with `LDG.E.CI`).
    ConstBufferAddress(u32),
    /// Size in bytes of constant buffer `cbN` passed by address.
    ConstBufferSize(u32),
}

impl ParamRole {
    fn keyword(self) -> (&'static str, Option<u32>) {
        match self {
            ParamRole::UavAddress(id) => ("uav_address", Some(id)),
            ParamRole::UavSize(id) => ("uav_size", Some(id)),
            ParamRole::GlobalAddress => ("global_address", None),
            ParamRole::GlobalSize => ("global_size", None),
            ParamRole::ConstBuffer(id) => ("cb", Some(id)),
            ParamRole::ConstBufferAddress(id) => ("cb_address", Some(id)),
            ParamRole::ConstBufferSize(id) => ("cb_size", Some(id)),
        }
    }

    fn from_keyword(word: &str, id: Option<u32>) -> Option<ParamRole> {
        Some(match (word, id) {
            ("uav_address", Some(id)) => ParamRole::UavAddress(id),
            ("uav_size", Some(id)) => ParamRole::UavSize(id),
            ("global_address", None) => ParamRole::GlobalAddress,
            ("global_size", None) => ParamRole::GlobalSize,
            ("cb", Some(id)) => ParamRole::ConstBuffer(id),
            ("cb_address", Some(id)) => ParamRole::ConstBufferAddress(id),
            ("cb_size", Some(id)) => ParamRole::ConstBufferSize(id),
            _ => return None,
        })
    }
}

/// One parameter of the launch ABI.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AbiParam {
    /// Byte offset from the start of the parameter area.
    pub offset: u32,
    /// Size in bytes.
    pub size: u32,
    /// What the driver puts there.
    pub role: ParamRole,
}

/// The IL meaning of a kernel's parameters.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct IlcAbi {
    /// Parameters, in offset order.
    pub params: Vec<AbiParam>,
}

/// The format version written in the first line.
const VERSION: u32 = 1;

fn number(s: &str) -> Option<u32> {
    match s.strip_prefix("0x") {
        Some(hex) => u32::from_str_radix(hex, 16).ok(),
        None => s.parse().ok(),
    }
}

impl IlcAbi {
    /// The section contents.
    pub fn encode(&self) -> Vec<u8> {
        let mut s = format!("ilc-abi {VERSION}\n");
        for p in &self.params {
            let (word, id) = p.role.keyword();
            s.push_str(&format!("param {:#x} {} {word}", p.offset, p.size));
            if let Some(id) = id {
                s.push_str(&format!(" {id}"));
            }
            s.push('\n');
        }
        s.into_bytes()
    }

    /// Parses section contents written by [`IlcAbi::encode`].
    pub fn decode(bytes: &[u8]) -> Result<IlcAbi, CubinError> {
        let bad = |line: usize, message: String| {
            CubinError::malformed(".ilc.abi", format!("line {line}: {message}"))
        };
        let text = std::str::from_utf8(bytes).map_err(|e| bad(1, format!("not UTF-8: {e}")))?;
        let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l.trim()));
        match lines.next() {
            Some((_, header)) if header == format!("ilc-abi {VERSION}") => {}
            Some((n, header)) => {
                return Err(bad(
                    n,
                    format!("expected `ilc-abi {VERSION}`, found `{header}`"),
                ))
            }
            None => return Err(bad(1, "empty section".into())),
        }
        let mut abi = IlcAbi::default();
        for (n, line) in lines {
            if line.is_empty() {
                continue;
            }
            let words: Vec<&str> = line.split_whitespace().collect();
            let (offset, size, role) = match words.as_slice() {
                ["param", offset, size, role, rest @ ..] if rest.len() <= 1 => {
                    let id = match rest.first() {
                        Some(id) => {
                            Some(number(id).ok_or_else(|| bad(n, format!("bad id `{id}`")))?)
                        }
                        None => None,
                    };
                    (*offset, *size, ParamRole::from_keyword(role, id))
                }
                _ => {
                    return Err(bad(
                        n,
                        format!("expected `param OFFSET SIZE ROLE [ID]`, found `{line}`"),
                    ))
                }
            };
            let offset = number(offset).ok_or_else(|| bad(n, format!("bad offset `{offset}`")))?;
            let size = number(size).ok_or_else(|| bad(n, format!("bad size `{size}`")))?;
            let role =
                role.ok_or_else(|| bad(n, format!("unknown role or missing id in `{line}`")))?;
            abi.params.push(AbiParam { offset, size, role });
        }
        Ok(abi)
    }

    /// The parameter playing `role`, if any.
    pub fn find(&self, role: ParamRole) -> Option<&AbiParam> {
        self.params.iter().find(|p| p.role == role)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_readably_and_round_trips() {
        let abi = IlcAbi {
            params: vec![
                AbiParam {
                    offset: 0,
                    size: 8,
                    role: ParamRole::UavAddress(0),
                },
                AbiParam {
                    offset: 8,
                    size: 4,
                    role: ParamRole::UavSize(0),
                },
                AbiParam {
                    offset: 0x10,
                    size: 8,
                    role: ParamRole::GlobalAddress,
                },
                AbiParam {
                    offset: 0x18,
                    size: 8,
                    role: ParamRole::GlobalSize,
                },
                AbiParam {
                    offset: 0x20,
                    size: 48,
                    role: ParamRole::ConstBuffer(1),
                },
                AbiParam {
                    offset: 0x50,
                    size: 8,
                    role: ParamRole::ConstBufferAddress(2),
                },
                AbiParam {
                    offset: 0x58,
                    size: 4,
                    role: ParamRole::ConstBufferSize(2),
                },
            ],
        };
        let bytes = abi.encode();
        let text = String::from_utf8(bytes.clone()).expect("text");
        assert!(text.starts_with("ilc-abi 1\nparam 0x0 8 uav_address 0\nparam 0x8 4 uav_size 0\n"));
        assert!(text.contains("param 0x10 8 global_address\n"));
        assert_eq!(IlcAbi::decode(&bytes), Ok(abi.clone()));
        assert_eq!(
            abi.find(ParamRole::ConstBuffer(1)).map(|p| p.offset),
            Some(0x20)
        );
    }

    #[test]
    fn rejects_malformed_sections() {
        for bad in [
            &b""[..],
            b"ilc-abi 2\n",
            b"\xff\xfe",
            b"ilc-abi 1\nparam 0x0 8\n",
            b"ilc-abi 1\nparam 0x0 8 uav_address\n",
            b"ilc-abi 1\nparam 0x0 8 global_address 3\n",
            b"ilc-abi 1\nparam zero 8 uav_size 1\n",
            b"ilc-abi 1\nparam 0 8 texture 1\n",
            b"ilc-abi 1\nparam 0 8 cb 1 2\n",
        ] {
            let e = IlcAbi::decode(bad);
            assert!(
                matches!(e, Err(CubinError::Malformed { .. })),
                "{bad:?}: {e:?}"
            );
        }
        let e = IlcAbi::decode(b"ilc-abi 1\nparam 0 8 cb 1\nbogus\n").unwrap_err();
        assert!(e.to_string().contains("line 3"), "{e}");
    }
}
