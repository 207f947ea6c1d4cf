//! Execution statistics of a launch: instructions by class and modeled issue cycles.
//!
//! Counting happens in the warp's issue step (`warp.rs`), at the cost of a few additions per
//! warp instruction. The cycle model is the control words' own: a warp issues its next
//! instruction `max(1, stall)` cycles after the previous one, and an instruction that waits on
//! scoreboards (its control word's wait mask, or `DEPBAR`) issues no earlier than the
//! operations on those scoreboards complete. A variable-latency operation completes its
//! write scoreboard the typical latency of its class after issue ([`crate::latency`]), and its
//! read scoreboard [`READ_RELEASE`] cycles after issue. `BAR.SYNC` releases every warp of the
//! block at the latest arrival. Operand reads cost what [`crate::banks`] says: each register
//! bank conflict delays the instruction's issue by one cycle, and registers served by the
//! operand reuse cache (the control words' reuse flags) read no bank; the counts of both are
//! reported. Each instruction's share of the cycles is recorded per program counter
//! ([`PcCycles`]): its stall count, bank conflicts, the cycles its issue waited on each
//! scoreboard, and the cycles it waited for other warps at a block barrier; the exit drain of
//! a warp's outstanding operations is charged to the warp's last instruction, so the shares
//! add up to the sum over warps. The model ignores contention between warps (dual issue, pipe throughput, memory
//! bandwidth): it measures the latency a kernel's schedule exposes per warp, which is what
//! two compilers' code for the same kernel can be compared on.

use std::collections::VecDeque;

use crate::banks::{self, ReuseCache};
use crate::control::Control;
use crate::inst::{Inst, Op, Operand};
use crate::latency::{self, Latency, NUM_SCOREBOARDS};
use crate::table::Class;

/// Every instruction class, in the order of [`crate::emu::LaunchReport::by_class`].
pub const CLASSES: [Class; 15] = [
    Class::Alu,
    Class::Fpu,
    Class::Mad,
    Class::Mov,
    Class::Pred,
    Class::Dbl,
    Class::Sfu,
    Class::Conv,
    Class::Shared,
    Class::Global,
    Class::Const,
    Class::Sreg,
    Class::Tex,
    Class::Ctrl,
    Class::Sync,
];

/// Lower-case name of a class, as `spa5-run --stats` prints it.
pub fn class_name(c: Class) -> &'static str {
    match c {
        Class::Alu => "alu",
        Class::Fpu => "fpu",
        Class::Mad => "mad",
        Class::Mov => "mov",
        Class::Pred => "pred",
        Class::Dbl => "dbl",
        Class::Sfu => "sfu",
        Class::Conv => "conv",
        Class::Shared => "shared",
        Class::Global => "global",
        Class::Const => "const",
        Class::Sreg => "sreg",
        Class::Tex => "tex",
        Class::Ctrl => "ctrl",
        Class::Sync => "sync",
    }
}

/// Index of `c` in [`CLASSES`].
pub fn class_index(c: Class) -> usize {
    c as usize
}

/// Cycles after issue at which a read scoreboard is released (sources read).
pub const READ_RELEASE: u64 = 20;
/// Operations one scoreboard queue remembers; older ones count as complete.
const QUEUE_CAP: usize = 64;

/// Where one instruction's modeled issue cycles went, summed over the warps that issued it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PcCycles {
    /// Warp instructions issued at this pc.
    pub executed: u64,
    /// Cycles of its stall counts (at least one per issue).
    pub stall: u64,
    /// Cycles of register bank conflicts.
    pub conflicts: u64,
    /// Cycles its issue waited on each scoreboard (wait mask or `DEPBAR`; for a warp's last
    /// instruction, also the operations drained when the warp exits).
    pub waited: [u64; NUM_SCOREBOARDS as usize],
    /// Cycles its issue waited for the block's other warps at a `BAR.SYNC` before it.
    pub barrier: u64,
}

impl PcCycles {
    /// Every cycle charged to this pc.
    pub fn total(&self) -> u64 {
        self.stall + self.conflicts + self.waited.iter().sum::<u64>() + self.barrier
    }

    /// Cycles waited on scoreboards.
    pub fn scoreboard_wait(&self) -> u64 {
        self.waited.iter().sum()
    }

    fn add(&mut self, c: &PcCycles) {
        self.executed += c.executed;
        self.stall += c.stall;
        self.conflicts += c.conflicts;
        for (a, b) in self.waited.iter_mut().zip(c.waited) {
            *a += b;
        }
        self.barrier += c.barrier;
    }
}

/// Adds `c` to the entry of instruction `idx` of a launch's profile.
pub(crate) fn charge(profile: &mut Vec<PcCycles>, idx: usize, c: &PcCycles) {
    if profile.len() <= idx {
        profile.resize(idx + 1, PcCycles::default());
    }
    profile[idx].add(c);
}

/// One warp's modeled issue clock.
#[derive(Clone, Debug, Default)]
pub(crate) struct IssueClock {
    /// Cycle at which the next instruction may issue.
    pub now: u64,
    /// Index of the last instruction issued (the exit drain is charged to it).
    pub last: usize,
    /// Cycles waited at a block barrier, not yet charged to an instruction.
    barrier: u64,
    /// Per scoreboard, completion cycles of outstanding operations in issue order.
    queues: [VecDeque<u64>; NUM_SCOREBOARDS as usize],
    /// The warp's operand reuse cache.
    reuse: ReuseCache,
}

impl IssueClock {
    /// Waits until at most `keep` operations on scoreboard `sb` are outstanding; returns the
    /// cycles waited.
    fn wait(&mut self, sb: usize, keep: usize) -> u64 {
        let before = self.now;
        let q = &mut self.queues[sb];
        while q.len() > keep {
            if let Some(t) = q.pop_front() {
                self.now = self.now.max(t);
            }
        }
        self.now - before
    }

    /// The block barrier releases the warp at cycle `t` (not earlier than its own clock).
    pub(crate) fn release_at(&mut self, t: u64) {
        if t > self.now {
            self.barrier += t - self.now;
            self.now = t;
        }
    }

    fn push(&mut self, sb: u8, done: u64) {
        if let Some(q) = self.queues.get_mut(sb as usize) {
            if q.len() == QUEUE_CAP {
                q.pop_front();
            }
            q.push_back(done);
        }
    }

    /// Issues `inst` with control `ctrl`: waits, reads its operands (one cycle per bank
    /// conflict), then advances by its stall count. Returns the operand reads' cost and where
    /// the cycles went.
    pub(crate) fn issue(&mut self, inst: &Inst, ctrl: &Control) -> (banks::Issue, PcCycles) {
        let mut cost = PcCycles {
            executed: 1,
            barrier: std::mem::take(&mut self.barrier),
            ..PcCycles::default()
        };
        for sb in 0..NUM_SCOREBOARDS as usize {
            if ctrl.wait_mask & (1 << sb) != 0 {
                cost.waited[sb] += self.wait(sb, 0);
            }
        }
        if matches!(inst.op, Op::DEPBAR | Op::DEPBAR_LE) {
            for o in inst.ops() {
                if let Operand::SbMask(m) = o {
                    for sb in 0..NUM_SCOREBOARDS as usize {
                        if m & (1 << sb) != 0 {
                            cost.waited[sb] += self.wait(sb, 0);
                        }
                    }
                }
            }
            if let (Op::DEPBAR_LE, Some(Operand::Sb(sb)), Some(Operand::Imm(k))) =
                (inst.op, inst.ops().first(), inst.ops().get(1))
            {
                if (*sb as usize) < NUM_SCOREBOARDS as usize {
                    cost.waited[*sb as usize] += self.wait(*sb as usize, (*k).max(0) as usize);
                }
            }
        }
        let operands = self.reuse.issue(inst, ctrl.reuse);
        let issue = self.now + u64::from(operands.conflicts);
        if let Some(sb) = ctrl.wr_bar {
            let lat = match latency::timing(inst).gpr {
                Latency::Variable { typical } => typical as u64,
                Latency::Fixed(l) => l as u64,
            };
            self.push(sb, issue + lat);
        }
        if let Some(sb) = ctrl.rd_bar {
            self.push(sb, issue + READ_RELEASE);
        }
        self.now = issue + ctrl.stall.max(1) as u64;
        cost.conflicts = u64::from(operands.conflicts);
        cost.stall = ctrl.stall.max(1) as u64;
        (operands, cost)
    }

    /// Completes every outstanding operation (the warp exits). Returns the warp's cycles and
    /// the cycles waited on each scoreboard for it.
    pub(crate) fn drain(&mut self) -> (u64, PcCycles) {
        let mut cost = PcCycles::default();
        for sb in 0..NUM_SCOREBOARDS as usize {
            cost.waited[sb] = self.wait(sb, 0);
        }
        (self.now, cost)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_are_listed_in_declaration_order() {
        for (i, c) in CLASSES.iter().enumerate() {
            assert_eq!(class_index(*c), i, "{c:?}");
        }
    }

    #[test]
    fn stalls_and_scoreboard_waits_add_up() {
        let mut c = IssueClock::default();
        let nop = Inst::build(Op::NOP, &[]);
        let mut set = Control::stall(1);
        set.wr_bar = Some(2);
        let ldg = Inst::build(Op::DEPBAR, &[]);
        // A stall-1 instruction setting SB2 with a fixed latency of 0 (DEPBAR has none).
        c.issue(&ldg, &set);
        assert_eq!(c.now, 1);
        c.issue(&nop, &Control::stall(4));
        assert_eq!(c.now, 5);
        let mut wait = Control::stall(2);
        wait.wait_mask = 1 << 2;
        c.issue(&nop, &wait);
        assert_eq!(c.now, 7);
        // Zero stall counts as one cycle.
        c.issue(&nop, &Control::stall(0));
        assert_eq!(c.now, 8);
        c.push(3, 100);
        assert_eq!(c.drain().0, 100);
    }

    #[test]
    fn each_issue_says_where_its_cycles_went() {
        let mut c = IssueClock::default();
        let nop = Inst::build(Op::NOP, &[]);
        c.push(1, 30);
        c.push(4, 50);
        let mut wait = Control::stall(3);
        wait.wait_mask = (1 << 1) | (1 << 4);
        let (_, cost) = c.issue(&nop, &wait);
        // SB1 holds the issue to cycle 30, SB4 twenty more; then three stall cycles.
        assert_eq!((cost.waited[1], cost.waited[4], cost.stall), (30, 20, 3));
        assert_eq!(cost.total(), c.now);
        c.release_at(60);
        c.release_at(10);
        let (_, cost) = c.issue(&nop, &Control::stall(1));
        assert_eq!((cost.barrier, cost.stall, cost.total()), (7, 1, 8));
        c.push(0, 90);
        let (now, drained) = c.drain();
        assert_eq!((now, drained.waited[0]), (90, 29));
    }

    #[test]
    fn bank_conflicts_delay_issue_and_reuse_avoids_them() {
        let ffma = |t: &str| crate::asm::parse::parse_inst(t, 0).unwrap().inst;
        let a = ffma("FFMA R0, R4, R8, R12;");
        let b = ffma("FFMA R1, R4, R8, R13;");
        let mut c = IssueClock::default();
        // R4, R8, R12 share bank 0: two extra cycles.
        assert_eq!(c.issue(&a, &Control::stall(1)).0.conflicts, 2);
        assert_eq!(c.now, 3);
        // Without reuse flags, R4 and R8 conflict again.
        assert_eq!(c.issue(&b, &Control::stall(1)).0.conflicts, 1);
        assert_eq!(c.now, 5);
        let mut flagged = Control::stall(1);
        flagged.reuse = 0b011;
        c.issue(&a, &flagged);
        assert_eq!(c.now, 8);
        let r = c.issue(&b, &Control::stall(1)).0;
        assert_eq!((r.conflicts, r.hits), (0, 2));
        assert_eq!(c.now, 9);
    }
}
