//! The control-word hazard checker: follows one warp's issue cycles and scoreboards.
//!
//! Model (all numbers from `latency.rs`, the one timing model the compiler's scheduler and
//! control-word pass also use): instruction `i` issues `stall(i-1)` cycles after
//! instruction `i-1` (a waited scoreboard completes its operations first and moves time
//! past their issue by at least [`MIN_VARIABLE`] cycles). A fixed-latency GPR result is ready
//! `FIXED_LATENCY` cycles after issue, read `source_read_delay` cycles after its consumer
//! issues; predicates and the condition code have their own latencies. A variable-latency
//! result is ready only once an instruction waits on the write scoreboard its producer set;
//! a producer without one can never be read safely. An instruction that reads its sources
//! late and sets a read scoreboard protects those registers until the scoreboard is waited
//! on; without one, its write scoreboard does (the result is written after the reads).
//! Scoreboards count outstanding operations in issue order (`DEPBAR.LE SBn, k` waits until
//! at most `k` remain). Variable-latency operations of one class (memory, SFU, ...) complete
//! in issue order: ptxas leaves the write scoreboard off a load whose result it reads only
//! after waiting for a later load of the same kind, and this model accepts that (conversions
//! and `MUFU` count as one pipe: a conversion read after waiting for a later `MUFU`).
//! A variable-latency write may overwrite the sources of an older operation of the same class
//! still on its read scoreboard: that pipe reads sources in issue order, before any later
//! result comes back.
//! A write and a read (or two writes) under complementary guards (`@P0` / `@!P0` of the same
//! predicate, not rewritten in between) touch disjoint lanes: ptxas issues `@!P0 FFMA R11, ..,
//! R11` right after `@P0 MUFU.SIN R11`, so such pairs are no hazard (a later unguarded
//! reader still waits for both writes).
//!
//! Violations are [`Hazard`]s with the instruction's byte address and the register.

use std::collections::VecDeque;
use std::fmt;

use crate::control::Control;
use crate::inst::{Inst, Loc, Op, Operand};
use crate::latency::{self, Latency, CC_LATENCY, NUM_SCOREBOARDS};
use crate::table::Class;

/// Cycles a waited variable-latency operation is assumed to have taken at least.
pub const MIN_VARIABLE: u64 = 20;

/// What went wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HazardKind {
    /// A register read before a fixed-latency producer's result is ready.
    NotReady,
    /// A register read while a variable-latency result is still pending on its scoreboard.
    Pending,
    /// A register read that a variable-latency producer wrote without a write scoreboard.
    Unprotected,
    /// A register overwritten while a pending instruction may still read it.
    WriteAfterRead,
    /// A register written while an earlier variable-latency write to it is still pending.
    WriteAfterWrite,
    /// A register read through the operand reuse cache after it was overwritten (the
    /// hardware reads the old value; [`crate::banks`]).
    StaleReuse,
}

/// One reported hazard.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hazard {
    /// Byte address of the instruction that reads or writes too early.
    pub pc: u32,
    /// The kind.
    pub kind: HazardKind,
    /// What and why, naming the register and the producer's address.
    pub message: String,
}

impl fmt::Display for Hazard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:#06x}: {}", self.pc, self.message)
    }
}

/// Reports a read of `reg` at `pc` through a reuse cache entry that was overwritten.
pub(crate) fn stale_reuse(pc: u32, reg: u8, out: &mut Vec<Hazard>) {
    let kind = HazardKind::StaleReuse;
    if out.len() < super::MAX_HAZARDS && !out.iter().any(|h| h.pc == pc && h.kind == kind) {
        out.push(Hazard {
            pc,
            kind,
            message: format!("R{reg} read through the reuse cache after it was overwritten"),
        });
    }
}

/// A register file slot: GPRs 0..255, predicates 256..263, the condition code 264.
const PRED_BASE: usize = 256;
const CC_SLOT: usize = 264;
const SLOTS: usize = 265;

#[derive(Clone, Copy, Debug, Default)]
struct Slot {
    /// Cycle at which a fixed-latency result is ready.
    ready: u64,
    /// Pending variable-latency write: (scoreboard, operation, producer pc).
    pending: Option<(u8, u64, u32)>,
    /// Written by a variable-latency producer without a write scoreboard: (its pc, operation,
    /// class); complete once a later operation of the class has completed.
    unprotected: Option<(u32, u64, Class)>,
    /// Protected by a read scoreboard: (scoreboard, operation, reader pc, reader class).
    read_by: Option<(u8, u64, u32, Class)>,
    /// Producer pc of the fixed-latency value, for messages.
    writer: u32,
    /// The fixed-latency producer's guard (predicate, negated) and that predicate's write
    /// count then: a reader under the complementary guard reads only the lanes it left alone.
    guard: Option<(u8, bool, u64)>,
    /// The same for the pending (or unprotected) variable-latency write.
    pending_guard: Option<(u8, bool, u64)>,
    /// The warp's active lanes when the fixed-latency value was written.
    lanes: u32,
    /// The active lanes of the pending (or unprotected) variable-latency write.
    pending_lanes: u32,
}

/// The in-order pipe of a class: conversions and `MUFU` share one (ptxas leaves the write
/// scoreboard off `F2F.F32.F32.TRUNC R6, R0` and reads R6 only after waiting for a later
/// `MUFU.RCP`'s scoreboard).
fn pipe(class: Class) -> Class {
    match class {
        Class::Conv => Class::Sfu,
        c => c,
    }
}

/// Whether two guards select disjoint lanes.
fn disjoint(a: Option<(u8, bool, u64)>, b: Option<(u8, bool, u64)>) -> bool {
    matches!((a, b), (Some((p, n, k)), Some((q, m, j))) if p == q && n != m && k == j)
}

/// One warp's timing state.
#[derive(Clone, Debug)]
pub(crate) struct Tracker {
    now: u64,
    slots: Vec<Slot>,
    /// Outstanding operations per scoreboard: (operation id, issue cycle, class).
    queues: [VecDeque<(u64, u64, Class)>; NUM_SCOREBOARDS as usize],
    next_op: u64,
    /// Per class, the newest operation known complete (+1; 0 = none).
    done: Vec<(Class, u64)>,
    /// Writes so far to each predicate P0..P6.
    pred_writes: [u64; 7],
}

impl Default for Tracker {
    fn default() -> Self {
        Tracker {
            now: 0,
            slots: vec![Slot::default(); SLOTS],
            queues: Default::default(),
            next_op: 0,
            done: Vec::new(),
            pred_writes: [0; 7],
        }
    }
}

fn slots_of(loc: Loc) -> impl Iterator<Item = (usize, String)> {
    let v: Vec<(usize, String)> = match loc {
        Loc::Gpr { reg, count } => (0..count)
            .filter_map(|k| {
                let r = reg.0 as usize + k as usize;
                (r < 255).then(|| (r, format!("R{r}")))
            })
            .collect(),
        Loc::Pred(p) if p.0 < 7 => vec![(PRED_BASE + p.0 as usize, format!("P{}", p.0))],
        Loc::Pred(_) => vec![],
        Loc::Cc => vec![(CC_SLOT, "CC".to_string())],
        Loc::Pr => (0..7).map(|p| (PRED_BASE + p, format!("P{p}"))).collect(),
    };
    v.into_iter()
}

impl Tracker {
    fn completed(&self, class: Class, op: u64) -> bool {
        self.done.iter().any(|&(c, upto)| c == class && upto > op)
    }

    /// Whether operation `op` on `sb` may still be outstanding.
    fn in_queue(&self, sb: u8, op: u64) -> bool {
        self.queues[sb as usize]
            .iter()
            .any(|&(o, _, class)| o == op && !self.completed(class, op))
    }

    /// Completes the oldest operations of `sb` until at most `keep` remain.
    fn wait(&mut self, sb: usize, keep: usize) {
        while self.queues[sb].len() > keep {
            if let Some((op, issued, class)) = self.queues[sb].pop_front() {
                self.now = self.now.max(issued + MIN_VARIABLE);
                match self.done.iter_mut().find(|(c, _)| *c == class) {
                    Some((_, upto)) => *upto = (*upto).max(op + 1),
                    None => self.done.push((class, op + 1)),
                }
            }
        }
    }

    fn push(&mut self, sb: u8, class: Class) -> u64 {
        let op = self.new_op();
        self.queues[sb as usize].push_back((op, self.now, class));
        op
    }

    fn new_op(&mut self) -> u64 {
        let op = self.next_op;
        self.next_op += 1;
        op
    }

    /// Checks and records instruction `inst` (at byte address `pc`) issuing now.
    /// [`Tracker::issue_lanes`] with every lane active.
    #[cfg(test)]
    pub(crate) fn issue(&mut self, pc: u32, inst: &Inst, ctrl: &Control, out: &mut Vec<Hazard>) {
        self.issue_lanes(pc, inst, ctrl, u32::MAX, out);
    }

    /// Issues `inst` for the warp's active `lanes`: reports its hazards and records its
    /// writes. A read or write by lanes disjoint from a pending write's (the other side of
    /// a divergent branch, lanes that returned from a call while others run on) does not
    /// touch that write's registers: no hazard.
    pub(crate) fn issue_lanes(
        &mut self,
        pc: u32,
        inst: &Inst,
        ctrl: &Control,
        lanes: u32,
        out: &mut Vec<Hazard>,
    ) {
        // Waits before issue: the control word's mask, then DEPBAR's own.
        for sb in 0..NUM_SCOREBOARDS as usize {
            if ctrl.wait_mask & (1 << sb) != 0 {
                self.wait(sb, 0);
            }
        }
        if matches!(inst.op, Op::DEPBAR | Op::DEPBAR_LE) {
            for o in inst.ops() {
                if let Operand::SbMask(m) = o {
                    for sb in 0..NUM_SCOREBOARDS as usize {
                        if m & (1 << sb) != 0 {
                            self.wait(sb, 0);
                        }
                    }
                }
            }
            if inst.op == Op::DEPBAR_LE {
                if let (Some(Operand::Sb(sb)), Some(Operand::Imm(k))) =
                    (inst.ops().first(), inst.ops().get(1))
                {
                    if (*sb as usize) < NUM_SCOREBOARDS as usize {
                        self.wait(*sb as usize, (*k).max(0) as usize);
                    }
                }
            }
        }
        let delay = latency::source_read_delay(inst) as u64;
        let mut report = |kind: HazardKind, message: String| {
            if !out.iter().any(|h| h.pc == pc && h.kind == kind) {
                out.push(Hazard { pc, kind, message });
            }
        };
        // The guard as (predicate, negated, writes to it so far); PT guards nothing.
        let guard =
            (inst.guard.reg.0 < 7 && !inst.form().has(crate::table::flags::NO_GUARD)).then(|| {
                let p = inst.guard.reg.0;
                (p, inst.guard.not, self.pred_writes[p as usize])
            });
        // Reads (the guard predicate is one of the uses).
        let uses = inst.uses();
        for loc in uses.iter() {
            for (s, name) in slots_of(loc) {
                let slot = self.slots[s];
                let other_lanes =
                    disjoint(slot.pending_guard, guard) || slot.pending_lanes & lanes == 0;
                if let Some((sb, op, from)) = slot.pending {
                    if self.in_queue(sb, op) && !other_lanes {
                        report(
                            HazardKind::Pending,
                            format!(
                                "{name} read while the result of {from:#06x} is pending on scoreboard {sb} (no wait)"
                            ),
                        );
                        continue;
                    }
                }
                if let Some((from, op, class)) = slot.unprotected {
                    if self.completed(class, op) {
                        self.slots[s].unprotected = None;
                        continue;
                    }
                    if other_lanes {
                        continue;
                    }
                    report(
                        HazardKind::Unprotected,
                        format!(
                            "{name} read, but {from:#06x} wrote it with variable latency and no write scoreboard"
                        ),
                    );
                    continue;
                }
                let need = if s >= PRED_BASE { 0 } else { delay };
                if slot.ready > self.now + need
                    && !disjoint(slot.guard, guard)
                    && slot.lanes & lanes != 0
                {
                    report(
                        HazardKind::NotReady,
                        format!(
                            "{name} read {} cycle(s) too early: {:#06x} writes it with fixed latency",
                            slot.ready - self.now - need,
                            slot.writer
                        ),
                    );
                }
            }
        }
        // Writes.
        let timing = latency::timing(inst);
        let var = inst.is_variable_latency();
        let class = pipe(inst.form().class);
        // Sources are read before the result is written: the read scoreboard's operation is
        // the older one, so waiting for the result also covers the reads.
        let rd_op = ctrl
            .rd_bar
            .filter(|&sb| sb < NUM_SCOREBOARDS)
            .map(|sb| (sb, self.push(sb, class)));
        let wr_op = match (var, ctrl.wr_bar) {
            (true, Some(sb)) if sb < NUM_SCOREBOARDS => Some((sb, self.push(sb, class))),
            _ => None,
        };
        let bare_op = if var && wr_op.is_none() {
            Some(self.new_op())
        } else {
            None
        };
        for loc in inst.defs().iter() {
            for (s, name) in slots_of(loc) {
                let slot = self.slots[s];
                if let Some((sb, op, reader, rclass)) = slot.read_by {
                    // A variable-latency result of the reader's own pipe is written after
                    // that pipe has read the older operation's sources (ptxas overwrites an
                    // LDG's address registers with a later LDG's result without waiting).
                    let same_pipe = var && rclass == class;
                    if self.in_queue(sb, op) && !same_pipe {
                        report(
                            HazardKind::WriteAfterRead,
                            format!(
                                "{name} overwritten while {reader:#06x} may still read it (read scoreboard {sb} not waited)"
                            ),
                        );
                    }
                }
                let other_lanes =
                    disjoint(slot.pending_guard, guard) || slot.pending_lanes & lanes == 0;
                if let Some((sb, op, from)) = slot.pending {
                    if self.in_queue(sb, op) && wr_op.is_none_or(|(_, o)| o != op) && !other_lanes {
                        report(
                            HazardKind::WriteAfterWrite,
                            format!(
                                "{name} written while the result of {from:#06x} is still pending on scoreboard {sb}"
                            ),
                        );
                    }
                }
                if (PRED_BASE..PRED_BASE + 7).contains(&s) {
                    self.pred_writes[s - PRED_BASE] += 1;
                }
                let slot = &mut self.slots[s];
                slot.read_by = None;
                slot.writer = pc;
                if var {
                    slot.pending = wr_op.map(|(sb, op)| (sb, op, pc));
                    slot.unprotected = bare_op.map(|op| (pc, op, class));
                    slot.pending_guard = guard;
                    slot.pending_lanes = lanes;
                    slot.ready = 0;
                } else {
                    // A write to the other lanes leaves the pending write pending.
                    if !other_lanes {
                        slot.pending = None;
                        slot.unprotected = None;
                    }
                    slot.guard = guard;
                    slot.lanes = lanes;
                    let lat = match (s, timing.gpr) {
                        (CC_SLOT, _) => CC_LATENCY as u64,
                        (s, _) if s >= PRED_BASE => latency::pred_latency() as u64,
                        (_, Latency::Fixed(l)) => l as u64,
                        (_, Latency::Variable { .. }) => 0,
                    };
                    slot.ready = self.now + lat;
                }
            }
        }
        // Late source reads protected by a read scoreboard, or else by the write scoreboard:
        // the result comes back after the sources were read, so waiting for it covers them.
        let late = timing.late_source_read && var;
        if let Some((sb, op)) = rd_op.or(wr_op.filter(|_| late)) {
            for loc in uses.iter() {
                if let Loc::Gpr { .. } = loc {
                    for (s, _) in slots_of(loc) {
                        self.slots[s].read_by = Some((sb, op, pc, class));
                    }
                }
            }
        }
        self.now += ctrl.stall as u64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::regs::Reg;

    fn ctl(stall: u8) -> Control {
        Control {
            stall,
            ..Control::default()
        }
    }

    #[test]
    fn fixed_latency_needs_enough_stall() {
        let mut t = Tracker::default();
        let mut out = Vec::new();
        t.issue(8, &Inst::iadd(Reg(1), Reg(2), Reg(3)), &ctl(5), &mut out);
        t.issue(16, &Inst::iadd(Reg(4), Reg(1), Reg(3)), &ctl(6), &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].kind, HazardKind::NotReady);
        assert!(out[0]
            .to_string()
            .starts_with("0x0010: R1 read 1 cycle(s) too early"));
        let mut t = Tracker::default();
        out.clear();
        t.issue(8, &Inst::iadd(Reg(1), Reg(2), Reg(3)), &ctl(6), &mut out);
        t.issue(16, &Inst::iadd(Reg(4), Reg(1), Reg(3)), &ctl(6), &mut out);
        assert!(out.is_empty(), "{out:?}");
    }

    #[test]
    fn a_conversion_completes_before_a_later_waited_mufu() {
        let p = |t: &str| crate::asm::parse_inst(t, 0).expect("parses").inst;
        let (f2f, mufu) = (p("F2F.F32.F32.TRUNC R6, R0"), p("MUFU.RCP R4, R4"));
        let use6 = Inst::iadd(Reg(7), Reg(6), Reg(6));
        let wr = Control {
            wr_bar: Some(0),
            ..ctl(1)
        };
        let wait = Control {
            wait_mask: 1,
            ..ctl(1)
        };
        let mut out = Vec::new();
        let mut t = Tracker::default();
        t.issue(8, &f2f, &ctl(1), &mut out);
        t.issue(16, &mufu, &wr, &mut out);
        t.issue(24, &use6, &wait, &mut out);
        assert!(out.is_empty(), "{out:?}");
        // Without the wait the conversion's result is unprotected.
        let mut t = Tracker::default();
        t.issue(8, &f2f, &ctl(1), &mut out);
        t.issue(16, &mufu, &wr, &mut out);
        t.issue(24, &use6, &ctl(1), &mut out);
        assert_eq!(out[0].kind, HazardKind::Unprotected);
    }

    #[test]
    fn other_lanes_do_not_wait_for_a_pending_write() {
        // ptxas's recursive code: lanes that returned from a call leave an LDG pending on
        // R4 while the other lanes of the warp run on and read their own R4.
        let ld = Inst::ldg(crate::mods::Size::B32, Reg(4), Reg(2), 0);
        let use4 = Inst::iadd(Reg(5), Reg(4), Reg(4));
        let wr = Control {
            wr_bar: Some(2),
            ..ctl(1)
        };
        let mut out = Vec::new();
        let mut t = Tracker::default();
        t.issue_lanes(8, &ld, &wr, 0x0000_ffff, &mut out);
        t.issue_lanes(16, &use4, &ctl(1), 0xffff_0000, &mut out);
        assert!(out.is_empty(), "{out:?}");
        // Once the lanes reconverge, the read waits.
        t.issue_lanes(24, &use4, &ctl(1), u32::MAX, &mut out);
        assert_eq!(out[0].kind, HazardKind::Pending);
        // A fixed-latency result too.
        let mut t = Tracker::default();
        out.clear();
        t.issue_lanes(
            8,
            &Inst::iadd(Reg(1), Reg(2), Reg(3)),
            &ctl(1),
            0xff,
            &mut out,
        );
        t.issue_lanes(
            16,
            &Inst::iadd(Reg(4), Reg(1), Reg(3)),
            &ctl(1),
            0xff00,
            &mut out,
        );
        assert!(out.is_empty(), "{out:?}");
        t.issue_lanes(
            24,
            &Inst::iadd(Reg(4), Reg(1), Reg(3)),
            &ctl(1),
            0xff,
            &mut out,
        );
        assert_eq!(out[0].kind, HazardKind::NotReady);
    }

    #[test]
    fn variable_latency_needs_a_waited_scoreboard() {
        let ld = Inst::ldg(crate::mods::Size::B32, Reg(4), Reg(2), 0);
        let use4 = Inst::iadd(Reg(5), Reg(4), Reg(4));
        let mut out = Vec::new();
        // no write scoreboard at all
        let mut t = Tracker::default();
        t.issue(8, &ld, &ctl(1), &mut out);
        t.issue(16, &use4, &ctl(1), &mut out);
        assert_eq!(out[0].kind, HazardKind::Unprotected);
        // scoreboard set but not waited
        out.clear();
        let mut t = Tracker::default();
        let wr = Control {
            wr_bar: Some(2),
            ..ctl(1)
        };
        t.issue(8, &ld, &wr, &mut out);
        t.issue(16, &use4, &ctl(1), &mut out);
        assert_eq!(out[0].kind, HazardKind::Pending);
        // waited
        out.clear();
        let mut t = Tracker::default();
        t.issue(8, &ld, &wr, &mut out);
        let wait = Control {
            wait_mask: 1 << 2,
            ..ctl(1)
        };
        t.issue(16, &use4, &wait, &mut out);
        assert!(out.is_empty(), "{out:?}");
    }

    #[test]
    fn store_sources_are_protected_by_the_read_scoreboard() {
        let st = Inst::stg(crate::mods::Size::B32, Reg(2), 0, Reg(4));
        let clobber = Inst::mov32i(Reg(4), 7);
        let mut out = Vec::new();
        let mut t = Tracker::default();
        let rd = Control {
            rd_bar: Some(0),
            ..ctl(1)
        };
        t.issue(8, &st, &rd, &mut out);
        t.issue(16, &clobber, &ctl(1), &mut out);
        assert_eq!(out[0].kind, HazardKind::WriteAfterRead);
        out.clear();
        let mut t = Tracker::default();
        t.issue(8, &st, &rd, &mut out);
        let wait = Control {
            wait_mask: 1,
            ..ctl(1)
        };
        t.issue(16, &clobber, &wait, &mut out);
        assert!(out.is_empty());
    }

    #[test]
    fn depbar_le_counts_outstanding_operations() {
        let wr = Control {
            wr_bar: Some(5),
            ..ctl(1)
        };
        let mut out = Vec::new();
        let mut t = Tracker::default();
        t.issue(
            8,
            &Inst::ldg(crate::mods::Size::B32, Reg(4), Reg(2), 0),
            &wr,
            &mut out,
        );
        t.issue(
            16,
            &Inst::ldg(crate::mods::Size::B32, Reg(6), Reg(2), 4),
            &wr,
            &mut out,
        );
        t.issue(
            24,
            &Inst::build(Op::DEPBAR_LE, &[Operand::Sb(5), Operand::Imm(1)]),
            &ctl(1),
            &mut out,
        );
        // R4 (the older load) is complete, R6 is not.
        t.issue(32, &Inst::iadd(Reg(8), Reg(4), Reg(4)), &ctl(1), &mut out);
        assert!(out.is_empty(), "{out:?}");
        t.issue(40, &Inst::iadd(Reg(8), Reg(6), Reg(6)), &ctl(1), &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].kind, HazardKind::Pending);
    }

    #[test]
    fn complementary_guards_touch_disjoint_lanes() {
        use crate::regs::Pred;
        // @P0 writes R1 (fixed latency); @!P0 reads it at once: other lanes, no hazard.
        let mut out = Vec::new();
        let mut t = Tracker::default();
        let w = Inst::iadd(Reg(1), Reg(2), Reg(3)).guarded(Pred::p(0));
        t.issue(8, &w, &ctl(1), &mut out);
        let r = Inst::iadd(Reg(4), Reg(1), Reg(3)).guarded(Pred::not_p(0));
        t.issue(16, &r, &ctl(1), &mut out);
        assert!(out.is_empty(), "{out:?}");
        // An unguarded reader needs the @P0 lanes: a hazard.
        t.issue(24, &Inst::iadd(Reg(5), Reg(1), Reg(3)), &ctl(1), &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].kind, HazardKind::NotReady);
        // The same guard is no excuse.
        out.clear();
        let mut t = Tracker::default();
        t.issue(8, &w, &ctl(1), &mut out);
        let same = Inst::iadd(Reg(4), Reg(1), Reg(3)).guarded(Pred::p(0));
        t.issue(16, &same, &ctl(1), &mut out);
        assert_eq!(out.len(), 1);
    }

    #[test]
    fn a_later_load_may_overwrite_an_earlier_loads_address() {
        let mut out = Vec::new();
        let mut t = Tracker::default();
        let rd = Control {
            rd_bar: Some(0),
            wr_bar: Some(5),
            ..ctl(1)
        };
        // LDG R12, [R18] &rd0; LDG R19, [R10]: the same pipe reads R18/R19 first.
        t.issue(
            8,
            &Inst::ldg(crate::mods::Size::B32, Reg(12), Reg(18), 0),
            &rd,
            &mut out,
        );
        let wr = Control {
            wr_bar: Some(5),
            ..ctl(1)
        };
        t.issue(
            16,
            &Inst::ldg(crate::mods::Size::B32, Reg(19), Reg(10), 0),
            &wr,
            &mut out,
        );
        assert!(out.is_empty(), "{out:?}");
        // A fixed-latency overwrite must wait.
        t.issue(24, &Inst::mov32i(Reg(18), 7), &ctl(1), &mut out);
        assert_eq!(out[0].kind, HazardKind::WriteAfterRead);
    }
}
