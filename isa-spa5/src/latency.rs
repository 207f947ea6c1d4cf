//! Latency and throughput facts of SPA 5.0, per instruction class, for the scheduler (which
//! sets stall counts and scoreboards) and the emulator's hazard checker (which verifies them).
//!
//! Maxwell has two kinds of results:
//! * **fixed latency**: integer, logic, shift, single precision float, XMAD, moves, selects,
//!   predicate logic. The producer's stall count (plus the stalls of the instructions in
//!   between) must cover the latency before a consumer issues; no scoreboard is involved.
//! * **variable latency**: memory loads, constant loads (LDC), MUFU, double precision,
//!   conversions (F2F/F2I/I2F/I2I, POPC, FLO), S2R, SHFL, B2R. The producer sets a write
//!   scoreboard (`&wrN`) and consumers wait on it (`&req={N}`). Instructions that read their
//!   sources late (stores, atomics, and every variable-latency op) set a read scoreboard
//!   (`&rdN`) that a later writer of those source registers must wait on.
//!
//! Numbers: fixed ALU results need 6 cycles (maxas; NAK's `instr_latency`), predicates
//! written by a fixed-latency op 13 cycles before any use (guard, operand, branch), the
//! condition code 6: each is the tightest distance ptxas leaves in the CUDA and timing
//! corpora (`tests/latency.rs::latency_table_is_ptxas_minimum` measures and checks them; run
//! it with `--nocapture` for the per-class minima and an example pair each).
//! This module is the one timing model of the project: the emulator's hazard checker, the
//! compiler's control-word pass (`compiler/src/spa5/deps.rs`) and its scheduler (through
//! `ilc::spa5::target::latency_of`, the `TargetIsa::sched_info` of the SPA 5.0 target) all
//! read it. `tests/latency.rs` checks the GPR figure against ptxas: in
//! the corpus, whenever an instruction's result is read by the next instruction, ptxas's
//! stall is at least [`FIXED_LATENCY`], and it uses exactly 6 in most such pairs. Variable
//! latencies are typical values for planning only (maxas, NVIDIA's Maxwell tuning guide:
//! shared memory ~24-30 cycles, global ~200-400, MUFU ~20, fp64 on GM10x 1/32 rate).
//! Throughput is in warp instructions per SM cycle (an SM has 4 schedulers; GM107 has 128
//! FP32 lanes, 32 SFU, 32 LD/ST and 4 FP64 lanes).

use crate::inst::Inst;
use crate::table::{flags, Class};

/// Cycles a fixed-latency GPR result needs before a dependent instruction may issue.
pub const FIXED_LATENCY: u8 = 6;
/// Cycles a predicate written by a fixed-latency op needs before use (NAK's rule).
pub const PRED_LATENCY: u8 = 13;
/// Cycles a condition-code result needs before an `.X` consumer.
pub const CC_LATENCY: u8 = 6;
/// Largest stall count a control slot can hold.
pub const MAX_STALL: u8 = 15;
/// Number of scoreboards (barriers) per warp.
pub const NUM_SCOREBOARDS: u8 = 6;

/// When a result becomes available.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Latency {
    /// Available after this many cycles; no scoreboard.
    Fixed(u8),
    /// Signalled through a write scoreboard; `typical` cycles for planning.
    Variable {
        /// Typical latency in cycles.
        typical: u16,
    },
}

/// Timing facts of one instruction class.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Timing {
    /// GPR result latency.
    pub gpr: Latency,
    /// Predicate result latency (cycles; for variable-latency producers, use the scoreboard).
    pub pred: u8,
    /// Warp instructions per SM cycle (4.0 = full rate on all four schedulers).
    pub throughput: f32,
    /// Sources are read after issue: a read scoreboard must protect them from overwrite.
    pub late_source_read: bool,
}

/// Timing of an instruction class.
pub fn class_timing(class: Class) -> Timing {
    let fixed = |throughput| Timing {
        gpr: Latency::Fixed(FIXED_LATENCY),
        pred: PRED_LATENCY,
        throughput,
        late_source_read: false,
    };
    let var = |typical, throughput| Timing {
        gpr: Latency::Variable { typical },
        pred: PRED_LATENCY,
        throughput,
        late_source_read: true,
    };
    match class {
        Class::Alu | Class::Fpu | Class::Mov | Class::Pred => fixed(4.0),
        // XMAD issues at full rate on Maxwell.
        Class::Mad => fixed(4.0),
        Class::Dbl => var(48, 0.125),
        Class::Sfu => var(20, 1.0),
        Class::Conv => var(14, 1.0),
        Class::Shared => var(28, 1.0),
        Class::Global => var(300, 1.0),
        Class::Tex => var(300, 0.5),
        Class::Const => var(24, 1.0),
        Class::Sreg => var(24, 1.0),
        Class::Sync => var(24, 1.0),
        Class::Ctrl => Timing {
            gpr: Latency::Fixed(0),
            pred: 0,
            throughput: 1.0,
            late_source_read: false,
        },
    }
}

/// Timing of an instruction (by its form's class and flags).
pub fn timing(inst: &Inst) -> Timing {
    let form = inst.form();
    let mut t = class_timing(form.class);
    // Barriers and membars in the Sync class produce no register result.
    if form.has(flags::SIDE) && !form.has(flags::VAR_LAT) {
        t.gpr = Latency::Fixed(0);
        t.late_source_read = form
            .operands
            .iter()
            .any(|o| o.role == crate::table::Role::Use);
    }
    // VOTE and CS2R are fixed latency despite their classes; stores produce no register.
    if !form.has(flags::VAR_LAT) && matches!(t.gpr, Latency::Variable { .. }) {
        t.gpr = Latency::Fixed(if form.has(flags::STORE) {
            0
        } else {
            FIXED_LATENCY
        });
        t.late_source_read = false;
    }
    // Stores and atomics read their data late even though they write nothing.
    if form.has(flags::STORE) {
        t.late_source_read = true;
    }
    t
}

/// Cycles after issue at which a consumer reads its register sources, relative to a
/// fixed-latency ALU consumer: a producer's result may be read when `FIXED_LATENCY -
/// source_read_delay(consumer)` cycles have passed. Derived from ptxas
/// (`tests/latency.rs::latency_table_is_ptxas_minimum` checks each figure equals the tightest
/// distance ptxas leaves in the CUDA and timing corpora, 311 cubins): global/local memory,
/// conversions (F2I/I2F/F2F/I2I/POPC/FLO) and MUFU read 4 cycles late (ptxas issues them 2
/// cycles after a fixed-latency producer of their address or source, e.g. `FMUL` -> `MUFU`),
/// constant loads (`LDC`), shared memory and atomics on it, SHFL/BAR and fp64 (`DSETP`,
/// `DADD`...) 2 cycles late (issued 4 cycles after), every fixed-latency ALU/FPU/XMAD/move
/// consumer at issue (6 cycles after). Texture fetches have no sample in the corpora and
/// follow global memory.
pub fn source_read_delay(consumer: &Inst) -> u8 {
    class_read_delay(consumer.form().class)
}

/// [`source_read_delay`] of a consumer class.
pub fn class_read_delay(class: Class) -> u8 {
    match class {
        Class::Global | Class::Tex | Class::Conv | Class::Sfu => 4,
        Class::Const | Class::Shared | Class::Sync | Class::Dbl => 2,
        _ => 0,
    }
}

/// Cycles a predicate written by a fixed-latency instruction needs before any use (guard,
/// predicate operand, branch condition).
pub fn pred_latency() -> u8 {
    PRED_LATENCY
}

/// Stall cycles needed between a fixed-latency producer and a consumer that reads its
/// GPR result (0 when the producer is variable latency: use scoreboards instead).
pub fn required_stall(producer: &Inst, consumer: &Inst) -> u8 {
    match timing(producer).gpr {
        Latency::Fixed(l) => l.saturating_sub(source_read_delay(consumer)),
        Latency::Variable { .. } => 0,
    }
}

/// Whether consumers of `inst`'s results must wait on a scoreboard.
pub fn needs_write_barrier(inst: &Inst) -> bool {
    matches!(timing(inst).gpr, Latency::Variable { .. })
}

/// Whether later writers of `inst`'s source registers must wait on a read scoreboard.
pub fn needs_read_barrier(inst: &Inst) -> bool {
    timing(inst).late_source_read && !inst.uses().is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inst::cbuf;
    use crate::regs::Reg;

    #[test]
    fn classes() {
        assert_eq!(
            timing(&Inst::iadd(Reg(0), Reg(1), Reg(2))).gpr,
            Latency::Fixed(6)
        );
        assert!(needs_write_barrier(&Inst::ldg(
            crate::mods::Size::B32,
            Reg(0),
            Reg(2),
            0
        )));
        assert!(needs_write_barrier(&Inst::mufu(
            crate::mods::Mufu::Rcp,
            Reg(0),
            Reg(1)
        )));
        assert!(!needs_write_barrier(&Inst::mov(Reg(0), cbuf(0, 0x140))));
        assert!(needs_read_barrier(&Inst::stg(
            crate::mods::Size::B32,
            Reg(2),
            0,
            Reg(4)
        )));
        assert!(!needs_read_barrier(&Inst::fadd(Reg(0), Reg(1), Reg(2))));
        assert!(!needs_write_barrier(&Inst::bar_sync(0)));
    }
}
