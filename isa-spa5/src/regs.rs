//! Register files of SPA 5.0: general-purpose registers, predicates, the condition code and
//! special registers.
//!
//! Encoding facts: a GPR field is 8 bits, value 255 is `RZ` (reads as zero, writes are
//! discarded); a predicate field is 3 bits, value 7 is `PT` (always true, writes discarded).
//! Guards and predicate sources carry a separate negation bit. Special registers are an 8-bit
//! index read by `S2R`; their names are nvdisasm's (learned by disassembling every index).
//! Every type here is a plain `Copy` value whose `Display` is the nvdisasm spelling, and
//! whose `FromStr` accepts exactly that spelling.

use std::fmt;
use std::str::FromStr;

/// A general-purpose register `R0`..`R254`, or `RZ` (index 255).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Reg(pub u8);

impl Reg {
    /// The zero register: reads 0, writes are dropped.
    pub const RZ: Reg = Reg(255);

    /// `Rn`; `n` must be below 255 (use [`Reg::RZ`] for the zero register).
    pub const fn r(n: u8) -> Reg {
        Reg(n)
    }

    /// Whether this is `RZ`.
    pub const fn is_zero(self) -> bool {
        self.0 == 255
    }

    /// The register `k` places after this one (`R4`+1 = `R5`), for 64/128-bit operands; `RZ`
    /// stays `RZ`; `None` if the sum passes R254.
    pub fn offset(self, k: u8) -> Option<Reg> {
        if self.is_zero() {
            return Some(self);
        }
        let n = self.0.checked_add(k)?;
        (n < 255).then_some(Reg(n))
    }
}

impl fmt::Display for Reg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_zero() {
            f.write_str("RZ")
        } else {
            write!(f, "R{}", self.0)
        }
    }
}

impl FromStr for Reg {
    type Err = ();
    fn from_str(s: &str) -> Result<Reg, ()> {
        if s == "RZ" {
            return Ok(Reg::RZ);
        }
        let n = s.strip_prefix('R').ok_or(())?;
        if n.is_empty()
            || !n.bytes().all(|b| b.is_ascii_digit())
            || (n.len() > 1 && n.starts_with('0'))
        {
            return Err(());
        }
        match n.parse::<u32>() {
            Ok(v) if v < 255 => Ok(Reg(v as u8)),
            _ => Err(()),
        }
    }
}

/// A predicate register `P0`..`P6`, or `PT` (index 7, always true).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PredReg(pub u8);

impl PredReg {
    /// The always-true predicate.
    pub const PT: PredReg = PredReg(7);

    /// Whether this is `PT`.
    pub const fn is_true(self) -> bool {
        self.0 == 7
    }
}

impl Default for PredReg {
    fn default() -> Self {
        PredReg::PT
    }
}

impl fmt::Display for PredReg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_true() {
            f.write_str("PT")
        } else {
            write!(f, "P{}", self.0)
        }
    }
}

impl FromStr for PredReg {
    type Err = ();
    fn from_str(s: &str) -> Result<PredReg, ()> {
        match s {
            "PT" => Ok(PredReg::PT),
            _ => {
                let n = s.strip_prefix('P').ok_or(())?;
                match n {
                    "0" | "1" | "2" | "3" | "4" | "5" | "6" => Ok(PredReg(n.as_bytes()[0] - b'0')),
                    _ => Err(()),
                }
            }
        }
    }
}

/// A predicate as read by an instruction: a register, possibly negated (`!P0`). Also used for
/// instruction guards (`@P0`, `@!P0`); the default guard is `PT` (always execute).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Pred {
    /// The register read.
    pub reg: PredReg,
    /// Whether its value is inverted.
    pub not: bool,
}

impl Pred {
    /// `PT`: always true (the guard of an unconditional instruction).
    pub const TRUE: Pred = Pred {
        reg: PredReg::PT,
        not: false,
    };
    /// `!PT`: always false.
    pub const FALSE: Pred = Pred {
        reg: PredReg::PT,
        not: true,
    };

    /// `Pn`.
    pub const fn p(n: u8) -> Pred {
        Pred {
            reg: PredReg(n),
            not: false,
        }
    }

    /// `!Pn`.
    pub const fn not_p(n: u8) -> Pred {
        Pred {
            reg: PredReg(n),
            not: true,
        }
    }

    /// Whether this is the plain always-true `PT`.
    pub const fn is_true(self) -> bool {
        self.reg.is_true() && !self.not
    }
}

impl fmt::Display for Pred {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.not {
            f.write_str("!")?;
        }
        write!(f, "{}", self.reg)
    }
}

impl FromStr for Pred {
    type Err = ();
    fn from_str(s: &str) -> Result<Pred, ()> {
        match s.strip_prefix('!') {
            Some(r) => Ok(Pred {
                reg: r.parse()?,
                not: true,
            }),
            None => Ok(Pred {
                reg: s.parse()?,
                not: false,
            }),
        }
    }
}

/// A special register read by `S2R` (8-bit index).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SpecialReg(pub u8);

impl SpecialReg {
    /// `SR_LANEID`: the lane within the warp (0..31).
    pub const LANEID: SpecialReg = SpecialReg(0x00);
    /// `SR_CLOCK`.
    pub const CLOCK: SpecialReg = SpecialReg(0x01);
    /// `SR_VIRTID`.
    pub const VIRTID: SpecialReg = SpecialReg(0x03);
    /// `SR_TID`: packed thread id.
    pub const TID: SpecialReg = SpecialReg(0x20);
    /// `SR_TID.X`.
    pub const TID_X: SpecialReg = SpecialReg(0x21);
    /// `SR_TID.Y`.
    pub const TID_Y: SpecialReg = SpecialReg(0x22);
    /// `SR_TID.Z`.
    pub const TID_Z: SpecialReg = SpecialReg(0x23);
    /// `SR_CTAID.X`.
    pub const CTAID_X: SpecialReg = SpecialReg(0x25);
    /// `SR_CTAID.Y`.
    pub const CTAID_Y: SpecialReg = SpecialReg(0x26);
    /// `SR_CTAID.Z`.
    pub const CTAID_Z: SpecialReg = SpecialReg(0x27);
    /// `SR_NTID`.
    pub const NTID: SpecialReg = SpecialReg(0x28);
    /// `SR_EQMASK`.
    pub const EQMASK: SpecialReg = SpecialReg(0x38);
    /// `SR_LTMASK`.
    pub const LTMASK: SpecialReg = SpecialReg(0x39);
    /// `SR_LEMASK`.
    pub const LEMASK: SpecialReg = SpecialReg(0x3a);
    /// `SR_GTMASK`.
    pub const GTMASK: SpecialReg = SpecialReg(0x3b);
    /// `SR_GEMASK`.
    pub const GEMASK: SpecialReg = SpecialReg(0x3c);
    /// `SR_CLOCKLO`.
    pub const CLOCKLO: SpecialReg = SpecialReg(0x50);
    /// `SR_CLOCKHI`.
    pub const CLOCKHI: SpecialReg = SpecialReg(0x51);
    /// `SR_GLOBALTIMERLO`.
    pub const GLOBALTIMERLO: SpecialReg = SpecialReg(0x52);
    /// `SR_GLOBALTIMERHI`.
    pub const GLOBALTIMERHI: SpecialReg = SpecialReg(0x53);

    /// nvdisasm's name for this index (`SR42` style when it has none).
    pub fn name(self) -> std::borrow::Cow<'static, str> {
        match SR_NAMES[self.0 as usize] {
            "" => format!("SR{}", self.0).into(),
            s => s.into(),
        }
    }
}

impl fmt::Display for SpecialReg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

impl FromStr for SpecialReg {
    type Err = ();
    fn from_str(s: &str) -> Result<SpecialReg, ()> {
        if let Some(i) = SR_NAMES.iter().position(|n| *n == s) {
            return Ok(SpecialReg(i as u8));
        }
        let n = s.strip_prefix("SR").ok_or(())?;
        let v: u8 = n.parse().map_err(|_| ())?;
        (SR_NAMES[v as usize].is_empty() && n == v.to_string())
            .then_some(SpecialReg(v))
            .ok_or(())
    }
}

/// nvdisasm 11.8's special register names by index; empty where it prints `SR<n>`.
#[rustfmt::skip]
static SR_NAMES: [&str; 256] = [
    "SR_LANEID", "SR_CLOCK", "SR_VIRTCFG", "SR_VIRTID", "SR_PM0", "SR_PM1", "SR_PM2", "SR_PM3",
    "SR_PM4", "SR_PM5", "SR_PM6", "SR_PM7", "", "", "", "",
    "SR_PRIM_TYPE", "SR_INVOCATION_ID", "SR_Y_DIRECTION", "SR_THREAD_KILL", "SM_SHADER_TYPE", "SR_DIRECTCBEWRITEADDRESSLOW", "SR_DIRECTCBEWRITEADDRESSHIGH", "SR_DIRECTCBEWRITEENABLED",
    "SR_MACHINE_ID_0", "SR_MACHINE_ID_1", "SR_MACHINE_ID_2", "SR_MACHINE_ID_3", "SR_AFFINITY", "SR_INVOCATION_INFO", "SR_WSCALEFACTOR_XY", "SR_WSCALEFACTOR_Z",
    "SR_TID", "SR_TID.X", "SR_TID.Y", "SR_TID.Z", "SR_CTA_PARAM", "SR_CTAID.X", "SR_CTAID.Y", "SR_CTAID.Z",
    "SR_NTID", "SR_CirQueueIncrMinusOne", "SR_NLATC", "", "", "", "", "",
    "SR_SWINLO", "SR_SWINSZ", "SR_SMEMSZ", "SR_SMEMBANKS", "SR_LWINLO", "SR_LWINSZ", "SR_LMEMLOSZ", "SR_LMEMHIOFF",
    "SR_EQMASK", "SR_LTMASK", "SR_LEMASK", "SR_GTMASK", "SR_GEMASK", "SR_REGALLOC", "SR_CTXADDR", "",
    "SR_GLOBALERRORSTATUS", "", "SR_WARPERRORSTATUS", "SR_WARPERRORSTATUSCLEAR", "", "", "", "",
    "SR_PM_HI0", "SR_PM_HI1", "SR_PM_HI2", "SR_PM_HI3", "SR_PM_HI4", "SR_PM_HI5", "SR_PM_HI6", "SR_PM_HI7",
    "SR_CLOCKLO", "SR_CLOCKHI", "SR_GLOBALTIMERLO", "SR_GLOBALTIMERHI", "", "", "", "",
    "", "", "", "", "", "", "", "",
    "SR_HWTASKID", "SR_CIRCULARQUEUEENTRYINDEX", "SR_CIRCULARQUEUEENTRYADDRESSLOW", "SR_CIRCULARQUEUEENTRYADDRESSHIGH", "", "", "", "",
    "", "", "", "", "", "", "", "",
    "", "", "", "", "", "", "", "",
    "", "", "", "", "", "", "", "",
    "", "", "", "", "", "", "", "",
    "", "", "", "", "", "", "", "",
    "", "", "", "", "", "", "", "",
    "", "", "", "", "", "", "", "",
    "", "", "", "", "", "", "", "",
    "", "", "", "", "", "", "", "",
    "", "", "", "", "", "", "", "",
    "", "", "", "", "", "", "", "",
    "", "", "", "", "", "", "", "",
    "", "", "", "", "", "", "", "",
    "", "", "", "", "", "", "", "",
    "", "", "", "", "", "", "", "",
    "", "", "", "", "", "", "", "",
    "", "", "", "", "", "", "", "",
    "", "", "", "", "", "", "", "",
    "", "", "", "", "", "", "", "",];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reg_text_round_trips() {
        for n in 0..=255u8 {
            let r = Reg(n);
            assert_eq!(r.to_string().parse::<Reg>(), Ok(r));
        }
        assert!("R255".parse::<Reg>().is_err());
        assert!("R01".parse::<Reg>().is_err());
        assert!("P7".parse::<PredReg>().is_err());
    }

    #[test]
    fn pred_and_sr_text_round_trips() {
        for n in 0..8u8 {
            for not in [false, true] {
                let p = Pred {
                    reg: PredReg(n),
                    not,
                };
                assert_eq!(p.to_string().parse::<Pred>(), Ok(p));
            }
        }
        for i in 0..=255u8 {
            let s = SpecialReg(i);
            assert_eq!(s.to_string().parse::<SpecialReg>(), Ok(s), "{s}");
        }
        assert_eq!(SpecialReg::TID_X.to_string(), "SR_TID.X");
        assert_eq!(SpecialReg::CTAID_Z.to_string(), "SR_CTAID.Z");
        assert_eq!(SpecialReg::CLOCKLO.to_string(), "SR_CLOCKLO");
    }
}
