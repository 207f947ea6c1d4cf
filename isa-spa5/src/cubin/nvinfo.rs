//! `.nv.info` / `.nv.info.K` records: attribute codes, formats and their byte layout.
//!
//! A section is a sequence of records, each `[format: u8][attr: u8][slot: u16 LE]` followed, for
//! the sized format only, by `slot` payload bytes. The formats are `EIFMT_NVAL` (1, no value),
//! `EIFMT_BVAL` (2) and `EIFMT_HVAL` (3) (value in the slot) and `EIFMT_SVAL` (4, sized payload).
//! Records are 4-byte aligned in practice because every payload ptxas writes is a multiple of 4
//! bytes; the decoder does not require it.
//!
//! Payload layouts used here (all little-endian `u32` unless noted), as ptxas 12.9 writes them
//! and cuobjdump 11.8 prints them:
//! - `REGCOUNT`, `FRAME_SIZE`, `MIN_STACK_SIZE`, `MAX_STACK_SIZE` (in `.nv.info`):
//!   `[function symbol index, value]`;
//! - `KPARAM_INFO`: `[index = 0][ordinal: u16][offset: u16][flags]` with flags bits 0..8 pointee
//!   log alignment, 8..12 space, 12..17 cbank (0x1f), 17 "parameter space is not CBANK", 18..32 size;
//! - `PARAM_CBANK`: `[constant-bank-0 section symbol index][offset: u16 = 0x140][size: u16]`;
//! - `EXIT_INSTR_OFFSETS`, `S2RCTAID_INSTR_OFFSETS`: a list of byte offsets;
//! - `REQNTID`, `MAX_THREADS`: `[x, y, z]`; `CRS_STACK_SIZE`, `CUDA_API_VERSION`: one value.
//!
//! Decoding never panics: a truncated record is an error naming the section.

use super::{CubinError, InfoAttr, InfoValue, Param};

/// `EIFMT_NVAL`: record without a value.
pub const EIFMT_NVAL: u8 = 1;
/// `EIFMT_BVAL`: value in the 16-bit slot.
pub const EIFMT_BVAL: u8 = 2;
/// `EIFMT_HVAL`: 16-bit value in the slot.
pub const EIFMT_HVAL: u8 = 3;
/// `EIFMT_SVAL`: sized payload.
pub const EIFMT_SVAL: u8 = 4;

/// `EIATTR_MAX_THREADS`: maximum block size `[x, y, z]` (`__launch_bounds__`).
pub const EIATTR_MAX_THREADS: u8 = 0x05;
/// `EIATTR_PARAM_CBANK`: where the parameters live in constant bank 0.
pub const EIATTR_PARAM_CBANK: u8 = 0x0a;
/// `EIATTR_REQNTID`: required block size `[x, y, z]`.
pub const EIATTR_REQNTID: u8 = 0x10;
/// `EIATTR_FRAME_SIZE`: per-thread stack frame bytes.
pub const EIATTR_FRAME_SIZE: u8 = 0x11;
/// `EIATTR_MIN_STACK_SIZE`: per-thread minimum stack bytes.
pub const EIATTR_MIN_STACK_SIZE: u8 = 0x12;
/// `EIATTR_KPARAM_INFO`: one kernel parameter.
pub const EIATTR_KPARAM_INFO: u8 = 0x17;
/// `EIATTR_CBANK_PARAM_SIZE`: bytes of parameters.
pub const EIATTR_CBANK_PARAM_SIZE: u8 = 0x19;
/// `EIATTR_MAXREG_COUNT`: register limit the code was compiled for.
pub const EIATTR_MAXREG_COUNT: u8 = 0x1b;
/// `EIATTR_EXIT_INSTR_OFFSETS`: byte offsets of `EXIT` instructions.
pub const EIATTR_EXIT_INSTR_OFFSETS: u8 = 0x1c;
/// `EIATTR_S2RCTAID_INSTR_OFFSETS`: byte offsets of `S2R SR_CTAID.*`.
pub const EIATTR_S2RCTAID_INSTR_OFFSETS: u8 = 0x1d;
/// `EIATTR_CRS_STACK_SIZE`: call/return/sync stack bytes.
pub const EIATTR_CRS_STACK_SIZE: u8 = 0x1e;
/// `EIATTR_MAX_STACK_SIZE`: per-thread maximum stack bytes.
pub const EIATTR_MAX_STACK_SIZE: u8 = 0x23;
/// `EIATTR_SW1850030_WAR`: a workaround flag ptxas always sets for sm_50.
pub const EIATTR_SW1850030_WAR: u8 = 0x2a;
/// `EIATTR_REGCOUNT`: registers per thread.
pub const EIATTR_REGCOUNT: u8 = 0x2f;
/// `EIATTR_SW2393858_WAR`: a workaround flag ptxas always sets for sm_50.
pub const EIATTR_SW2393858_WAR: u8 = 0x30;
/// `EIATTR_INDIRECT_BRANCH_TARGETS`: targets of `BRX`/`JMX` and of `SYNC`/`BRK` reconvergence.
pub const EIATTR_INDIRECT_BRANCH_TARGETS: u8 = 0x34;
/// `EIATTR_CUDA_API_VERSION`: toolkit version the kernel was built by.
pub const EIATTR_CUDA_API_VERSION: u8 = 0x37;

/// `KPARAM_INFO` cbank field value ptxas uses for ordinary parameters.
const KPARAM_CBANK: u32 = 0x1f;

/// Decodes the records of section `section` (name used in errors).
pub fn decode(section: &str, mut data: &[u8]) -> Result<Vec<InfoAttr>, CubinError> {
    let mut out = Vec::new();
    while !data.is_empty() {
        let at = out.len();
        let Some((head, rest)) = data.split_first_chunk::<4>() else {
            return Err(CubinError::malformed(
                section,
                format!("record {at}: truncated header ({} bytes left)", data.len()),
            ));
        };
        let [format, attr, lo, hi] = *head;
        let slot = u16::from_le_bytes([lo, hi]);
        data = rest;
        let value = match format {
            EIFMT_NVAL => InfoValue::NoValue(slot),
            EIFMT_BVAL => InfoValue::Byte(slot),
            EIFMT_HVAL => InfoValue::Half(slot),
            EIFMT_SVAL => {
                let len = usize::from(slot);
                if data.len() < len {
                    return Err(CubinError::malformed(
                        section,
                        format!(
                            "record {at} (attribute {attr:#x}): payload of {len} bytes, {} left",
                            data.len()
                        ),
                    ));
                }
                let (payload, rest) = data.split_at(len);
                data = rest;
                InfoValue::Sized(payload.to_vec())
            }
            _ => {
                return Err(CubinError::malformed(
                    section,
                    format!("record {at}: unknown format {format:#x}"),
                ))
            }
        };
        out.push(InfoAttr { attr, value });
    }
    Ok(out)
}

/// Encodes records; fails if a sized payload exceeds 65535 bytes.
pub fn encode(section: &str, attrs: &[InfoAttr], out: &mut Vec<u8>) -> Result<(), CubinError> {
    for a in attrs {
        let (format, slot, payload): (u8, u16, &[u8]) = match &a.value {
            InfoValue::NoValue(v) => (EIFMT_NVAL, *v, &[]),
            InfoValue::Byte(v) => (EIFMT_BVAL, *v, &[]),
            InfoValue::Half(v) => (EIFMT_HVAL, *v, &[]),
            InfoValue::Sized(p) => {
                let len = u16::try_from(p.len()).map_err(|_| {
                    CubinError::malformed(
                        section,
                        format!("attribute {:#x}: payload of {} bytes", a.attr, p.len()),
                    )
                })?;
                (EIFMT_SVAL, len, p.as_slice())
            }
        };
        out.extend_from_slice(&[format, a.attr]);
        out.extend_from_slice(&slot.to_le_bytes());
        out.extend_from_slice(payload);
    }
    Ok(())
}

/// A sized record holding the given words.
pub fn words(attr: u8, values: &[u32]) -> InfoAttr {
    InfoAttr {
        attr,
        value: InfoValue::Sized(values.iter().flat_map(|v| v.to_le_bytes()).collect()),
    }
}

/// The payload of a sized record as little-endian words (`None` if not sized or not a multiple
/// of 4 bytes).
pub fn as_words(value: &InfoValue) -> Option<Vec<u32>> {
    match value {
        InfoValue::Sized(p) if p.len() % 4 == 0 => Some(
            p.chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect(),
        ),
        _ => None,
    }
}

/// The `KPARAM_INFO` record for parameter number `ordinal`.
pub fn kparam_info(ordinal: u16, p: &Param) -> InfoAttr {
    let mut b = Vec::with_capacity(12);
    b.extend_from_slice(&0u32.to_le_bytes());
    b.extend_from_slice(&ordinal.to_le_bytes());
    // Offsets above 0xffff are rejected by the writer's validation before this point.
    b.extend_from_slice(&(p.offset as u16).to_le_bytes());
    let flags = u32::from(p.log_align) | (KPARAM_CBANK << 12) | ((p.size & 0x3fff) << 18);
    b.extend_from_slice(&flags.to_le_bytes());
    InfoAttr {
        attr: EIATTR_KPARAM_INFO,
        value: InfoValue::Sized(b),
    }
}

/// Decodes a `KPARAM_INFO` payload into (ordinal, parameter).
pub fn parse_kparam_info(section: &str, value: &InfoValue) -> Result<(u16, Param), CubinError> {
    let InfoValue::Sized(p) = value else {
        return Err(CubinError::malformed(section, "KPARAM_INFO is not sized"));
    };
    if p.len() < 12 {
        return Err(CubinError::malformed(
            section,
            format!("KPARAM_INFO of {} bytes (want 12)", p.len()),
        ));
    }
    let ordinal = u16::from_le_bytes([p[4], p[5]]);
    let offset = u16::from_le_bytes([p[6], p[7]]);
    let flags = u32::from_le_bytes([p[8], p[9], p[10], p[11]]);
    Ok((
        ordinal,
        Param {
            offset: u32::from(offset),
            size: flags >> 18,
            log_align: (flags & 0xff) as u8,
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_all_formats() {
        let attrs = vec![
            InfoAttr {
                attr: EIATTR_SW2393858_WAR,
                value: InfoValue::NoValue(0),
            },
            InfoAttr {
                attr: 0x33,
                value: InfoValue::Byte(7),
            },
            InfoAttr {
                attr: EIATTR_MAXREG_COUNT,
                value: InfoValue::Half(0xff),
            },
            words(EIATTR_EXIT_INSTR_OFFSETS, &[0x58, 0x138]),
        ];
        let mut bytes = Vec::new();
        encode("t", &attrs, &mut bytes).unwrap();
        assert_eq!(
            bytes,
            [
                1, 0x30, 0, 0, 2, 0x33, 7, 0, 3, 0x1b, 0xff, 0, 4, 0x1c, 8, 0, 0x58, 0, 0, 0, 0x38,
                1, 0, 0
            ]
        );
        assert_eq!(decode("t", &bytes).unwrap(), attrs);
    }

    #[test]
    fn kparam_matches_ptxas_bytes() {
        // From iadd.cubin: ordinal 3 at 0x18, 4 bytes; ordinal 1 at 0x8, 8 bytes.
        let a = kparam_info(3, &Param::new(0x18, 4));
        let b = kparam_info(1, &Param::new(0x8, 8));
        let hex = |a: &InfoAttr| {
            let mut v = Vec::new();
            encode("t", std::slice::from_ref(a), &mut v).unwrap();
            v
        };
        assert_eq!(
            hex(&a),
            [4, 0x17, 12, 0, 0, 0, 0, 0, 3, 0, 0x18, 0, 0, 0xf0, 0x11, 0]
        );
        assert_eq!(
            hex(&b),
            [4, 0x17, 12, 0, 0, 0, 0, 0, 1, 0, 8, 0, 0, 0xf0, 0x21, 0]
        );
        assert_eq!(
            parse_kparam_info("t", &a.value).unwrap(),
            (3, Param::new(0x18, 4))
        );
    }

    #[test]
    fn truncated_records_are_errors() {
        assert!(decode("t", &[4, 0x1c, 8, 0, 1, 2]).is_err());
        assert!(decode("t", &[4, 0x1c]).is_err());
        assert!(decode("t", &[9, 0x1c, 0, 0]).is_err());
        assert!(parse_kparam_info("t", &InfoValue::Sized(vec![0; 8])).is_err());
    }
}
