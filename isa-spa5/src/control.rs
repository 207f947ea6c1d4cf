//! Per-instruction scheduling control (the "control word" of SPA 5.0).
//!
//! Code is a sequence of 64-bit words in groups of four: one control word, then three
//! instructions. The control word holds 21 bits per instruction, slot `i` at bits
//! `21*i .. 21*i+21` (bits 63 is unused and zero in ptxas output):
//!
//! | bits  | field | meaning |
//! |-------|-------|---------|
//! | 3:0   | stall | cycles to wait before issuing the next instruction (0..15) |
//! | 4     | yield | set = *do not* yield: ptxas sets it on almost every instruction, and nvdisasm-compatible tools call the cleared state "yield"; we store the hint as [`Control::yield_`] = bit clear |
//! | 7:5   | write barrier | scoreboard set when the result is written (7 = none) |
//! | 10:8  | read barrier | scoreboard set when the sources have been read (7 = none) |
//! | 16:11 | wait mask | scoreboards to wait on before issue |
//! | 20:17 | reuse | operand reuse cache flags: bit 0 = slot A (Ra), 1 = B (Rb), 2 = C (Rc), 3 = unused |
//!
//! The layout follows maxas' documentation and NAK's `set_instr_deps`; it was checked by
//! decoding the ptxas 12.9 corpus (`tests/cuda/cubins`): every word there round-trips through
//! [`Control::pack`]/[`Control::unpack`], and the `.reuse` flags nvdisasm prints agree with bits
//! 20:17. The yield bit: ptxas output sets bit 4 on nearly every instruction and clears it on a few
//! (typically the first instruction after a long stall or a barrier), which matches maxas's
//! reading that a *clear* bit lets the warp scheduler switch warps; we expose `yield_` as
//! "bit 4 clear" and print it as `?YIELD` in the SPA syntax.

use std::fmt;

/// Scheduling control for one instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Control {
    /// Stall cycles after issue (0..=15).
    pub stall: u8,
    /// Yield hint: let the scheduler switch to another warp (control bit 4 clear).
    pub yield_: bool,
    /// Scoreboard (0..=5) released when the result has been written.
    pub wr_bar: Option<u8>,
    /// Scoreboard (0..=5) released when the sources have been read.
    pub rd_bar: Option<u8>,
    /// Scoreboards (bit i = barrier i, 6 bits) to wait on before issue.
    pub wait_mask: u8,
    /// Operand reuse cache flags (4 bits: A, B, C, unused).
    pub reuse: u8,
}

impl Default for Control {
    /// Stall 1, no yield, no barriers: a safe but slow setting for a lone fixed-latency op is
    /// not implied; schedulers must set stalls themselves.
    fn default() -> Self {
        Control {
            stall: 1,
            yield_: false,
            wr_bar: None,
            rd_bar: None,
            wait_mask: 0,
            reuse: 0,
        }
    }
}

/// A control field out of range.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ControlError {
    /// Stall above 15.
    #[error("stall count {0} exceeds 15")]
    Stall(u8),
    /// Barrier index above 5.
    #[error("scoreboard index {0} exceeds 5")]
    Barrier(u8),
    /// Wait mask with bits above bit 5.
    #[error("wait mask {0:#x} has bits beyond the 6 scoreboards")]
    WaitMask(u8),
    /// Reuse flags above 4 bits.
    #[error("reuse flags {0:#x} exceed 4 bits")]
    Reuse(u8),
}

impl Control {
    /// The control of NOP padding as ptxas writes it: stall 0, no yield hint, no barriers.
    pub const NOP_PAD: Control = Control {
        stall: 0,
        yield_: false,
        wr_bar: None,
        rd_bar: None,
        wait_mask: 0,
        reuse: 0,
    };

    /// Control with the given stall count and nothing else.
    pub const fn stall(n: u8) -> Control {
        Control {
            stall: n,
            yield_: false,
            wr_bar: None,
            rd_bar: None,
            wait_mask: 0,
            reuse: 0,
        }
    }

    /// Check every field's range.
    pub fn validate(&self) -> Result<(), ControlError> {
        if self.stall > 15 {
            return Err(ControlError::Stall(self.stall));
        }
        for b in [self.wr_bar, self.rd_bar].into_iter().flatten() {
            if b > 5 {
                return Err(ControlError::Barrier(b));
            }
        }
        if self.wait_mask > 0x3f {
            return Err(ControlError::WaitMask(self.wait_mask));
        }
        if self.reuse > 0xf {
            return Err(ControlError::Reuse(self.reuse));
        }
        Ok(())
    }

    /// Pack into the 21-bit slot value.
    pub fn pack(&self) -> Result<u32, ControlError> {
        self.validate()?;
        Ok(self.stall as u32
            | (!self.yield_ as u32) << 4
            | (self.wr_bar.unwrap_or(7) as u32) << 5
            | (self.rd_bar.unwrap_or(7) as u32) << 8
            | (self.wait_mask as u32) << 11
            | (self.reuse as u32) << 17)
    }

    /// Unpack a 21-bit slot value (higher bits are ignored). Barrier fields 6 are not
    /// expressible and are reported as errors; 7 means none.
    pub fn unpack(bits: u32) -> Result<Control, ControlError> {
        let bar = |v: u32| -> Result<Option<u8>, ControlError> {
            match v {
                7 => Ok(None),
                6 => Err(ControlError::Barrier(6)),
                b => Ok(Some(b as u8)),
            }
        };
        Ok(Control {
            stall: (bits & 0xf) as u8,
            yield_: bits & 0x10 == 0,
            wr_bar: bar((bits >> 5) & 7)?,
            rd_bar: bar((bits >> 8) & 7)?,
            wait_mask: ((bits >> 11) & 0x3f) as u8,
            reuse: ((bits >> 17) & 0xf) as u8,
        })
    }

    /// Whether the reuse flag of operand slot `slot` (0 = A, 1 = B, 2 = C) is set.
    pub fn reuses(&self, slot: u8) -> bool {
        slot < 4 && self.reuse & (1 << slot) != 0
    }
}

/// Pack three slots into a control word.
pub fn pack_control_word(slots: [Control; 3]) -> Result<u64, ControlError> {
    let mut w = 0u64;
    for (i, c) in slots.iter().enumerate() {
        w |= (c.pack()? as u64) << (21 * i);
    }
    Ok(w)
}

/// Unpack a control word into its three slots. Bit 63 must be zero.
pub fn unpack_control_word(word: u64) -> Result<[Control; 3], ControlError> {
    Ok([
        Control::unpack((word & 0x1f_ffff) as u32)?,
        Control::unpack(((word >> 21) & 0x1f_ffff) as u32)?,
        Control::unpack(((word >> 42) & 0x1f_ffff) as u32)?,
    ])
}

/// Prints the scheduling hints in the SPA assembly notation of the seeds: `&wrN`, `&rdN`,
/// `&req={a,b}`, `?WAITn`, `?YIELD`, each preceded by a space; `?WAIT0` is printed too so
/// the text fully determines the control bits (the reuse flags print as `.reuse` on operands).
impl fmt::Display for Control {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(b) = self.wr_bar {
            write!(f, " &wr{b}")?;
        }
        if let Some(b) = self.rd_bar {
            write!(f, " &rd{b}")?;
        }
        if self.wait_mask != 0 {
            f.write_str(" &req={")?;
            let mut first = true;
            for i in 0..6 {
                if self.wait_mask & (1 << i) != 0 {
                    if !first {
                        f.write_str(",")?;
                    }
                    first = false;
                    write!(f, "{i}")?;
                }
            }
            f.write_str("}")?;
        }
        write!(f, " ?WAIT{}", self.stall)?;
        if self.yield_ {
            f.write_str(" ?YIELD")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ptxas_control_words_round_trip() {
        // Taken from a ptxas 12.9 sm_50 listing.
        for w in [
            0x001cfc00e22007f6u64,
            0x001fd842fec20ff1,
            0x001f8400f62007f2,
            0x005fc800e7e017e4,
        ] {
            let s = unpack_control_word(w).unwrap();
            assert_eq!(pack_control_word(s).unwrap(), w);
        }
        // 0x001fd842fec20ff1 heads `XMAD.MRG R3, R4.reuse, ..`, `XMAD R2, R4.reuse, ..`,
        // `XMAD.PSL.CBCC R4, R4.H1, R3.H1, R2`: stall 1, reuse A on the first two.
        let s = unpack_control_word(0x001fd842fec20ff1).unwrap();
        assert_eq!(
            s[0],
            // It also waits on scoreboard 0, set by the S2R before it.
            Control {
                reuse: 1,
                wait_mask: 1,
                ..Control::stall(1)
            }
        );
        assert!(s[1].reuses(0));
        assert!(!s[2].reuses(0));
    }

    #[test]
    fn ranges_are_checked() {
        assert_eq!(Control::stall(16).pack(), Err(ControlError::Stall(16)));
        let c = Control {
            wr_bar: Some(6),
            ..Control::default()
        };
        assert_eq!(c.pack(), Err(ControlError::Barrier(6)));
        assert!(Control::unpack(6 << 5).is_err());
    }

    #[test]
    fn display_uses_seed_notation() {
        let c = Control {
            stall: 1,
            wr_bar: Some(0),
            ..Control::default()
        };
        assert_eq!(c.to_string(), " &wr0 ?WAIT1");
        let c = Control {
            stall: 6,
            wait_mask: 0b101,
            yield_: true,
            ..Control::default()
        };
        assert_eq!(c.to_string(), " &req={0,2} ?WAIT6 ?YIELD");
    }
}
