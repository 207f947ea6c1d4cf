//! Warps, blocks and control flow: the SIMT reconvergence stack and the block scheduler.
//!
//! Each warp has an active mask and a stack of entries pushed by `SSY` (reconverge at the
//! target on `SYNC`), `PBK` (`BRK` target), `PCNT` (`CONT` target) and divergent `BRA`s (the
//! not-taken lanes and where they resume) and `CAL` (the calling lanes and the return
//! address). Lanes that `SYNC`, `BRK`, `CONT`, `RET` or `EXIT` leave the active mask
//! (`BRK`/`CONT`/`RET` also leave every entry above their `PBK`/`PCNT`/`CAL`; `EXIT` leaves
//! every entry); when no lane is active the top entry is popped and its lanes resume at its
//! address, so a divergent `RET` waits for the function's other paths like a `SYNC`. A warp whose stack empties with no active lane is done.
//!
//! Blocks run warps round-robin, [`SLICE`] instructions at a time (or each until it waits
//! or is done, with [`LaunchConfig::warp_to_barrier`]); a warp reaching
//! `BAR.SYNC`/`BAR.RED` waits until every warp that has not finished has arrived, then all
//! are released (with the `BAR.RED` reduction over the arriving lanes).

use std::collections::HashMap;

use super::exec::{self, Ctx};
use super::hazard::Tracker;
use super::memory::Global;
use super::{inst_addr, EmuError, LaunchConfig, LaunchReport, MAX_HAZARDS, WARP};
use crate::control::Control;
use crate::inst::{Inst, Operand};

/// Warp instructions a warp runs before the next warp gets a turn.
pub(crate) const SLICE: u32 = 64;

/// The decoded code of a launch with per-instruction semantics resolved once.
pub(crate) struct Program<'c> {
    pub code: &'c [(Inst, Control)],
    pub kinds: Vec<exec::Kind>,
    /// Byte address -> instruction index (for absolute jumps).
    pub by_addr: HashMap<u32, usize>,
}

impl<'c> Program<'c> {
    pub(crate) fn new(code: &'c [(Inst, Control)]) -> Program<'c> {
        Program {
            code,
            kinds: code.iter().map(|(i, _)| exec::Kind::of(i)).collect(),
            by_addr: (0..code.len()).map(|i| (inst_addr(i), i)).collect(),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum EntryKind {
    Sync,
    Brk,
    Cont,
    Div,
    /// Pushed by `CAL`: the calling lanes resume at `pc` (the return address) once every one
    /// of them has returned (`RET`) or exited.
    Call,
}

/// Deepest call nesting a warp may reach.
const MAX_CALL_DEPTH: usize = 64;

#[derive(Clone, Copy, Debug)]
pub(crate) struct Entry {
    pub kind: EntryKind,
    pub pc: usize,
    pub mask: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum State {
    Running,
    Barrier,
    Done,
}

/// What a barrier reduction contributes and returns.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct BarRed {
    /// 0 POPC, 1 AND, 2 OR; `None` for a plain BAR.SYNC.
    pub mode: Option<u8>,
    /// Lanes that arrived.
    pub lanes: u32,
    /// Arrived lanes whose predicate was true.
    pub set: u32,
}

/// One warp.
pub(crate) struct Warp {
    /// Warp index in the block.
    pub id: u32,
    /// `regs[r * 32 + lane]`; RZ reads as 0.
    pub regs: Vec<u32>,
    /// Predicates P0..P6 as lane masks; P7 (PT) is all ones.
    pub preds: [u32; 8],
    /// Condition code flags per lane: carry, zero, sign, overflow.
    pub cf: u32,
    pub zf: u32,
    pub sf: u32,
    pub of: u32,
    pub pc: usize,
    pub active: u32,
    /// Lanes that exist (the last warp of a block may be partial).
    pub valid: u32,
    pub exited: u32,
    pub stack: Vec<Entry>,
    pub state: State,
    pub bar: BarRed,
    /// Result of the last barrier reduction: (count, predicate).
    pub bar_result: (u32, bool),
    pub tracker: Option<Tracker>,
    /// Thread index (x, y, z) of each lane.
    pub tid: [[u32; 3]; 32],
    pub clock: u64,
    /// Modeled issue cycles (`stats.rs`).
    pub issue: super::stats::IssueClock,
}

impl Warp {
    #[inline]
    pub(crate) fn reg(&self, r: u8, lane: usize) -> u32 {
        if r == 255 {
            0
        } else {
            self.regs[r as usize * 32 + lane]
        }
    }

    #[inline]
    pub(crate) fn set_reg(&mut self, r: u8, lane: usize, v: u32) {
        if r != 255 {
            self.regs[r as usize * 32 + lane] = v;
        }
    }

    #[inline]
    pub(crate) fn pred(&self, p: u8) -> u32 {
        self.preds[(p & 7) as usize]
    }

    #[inline]
    pub(crate) fn set_pred(&mut self, p: u8, lanes: u32, value: u32) {
        if p < 7 {
            let slot = &mut self.preds[p as usize];
            *slot = (*slot & !lanes) | (value & lanes);
        }
    }

    fn remove_lanes(&mut self, lanes: u32, above: Option<EntryKind>) {
        let stop = above.and_then(|k| self.stack.iter().rposition(|e| e.kind == k));
        let from = stop.map_or(0, |i| i + 1);
        for e in &mut self.stack[from..] {
            e.mask &= !lanes;
        }
    }

    /// No lane is active: pops entries until one has live lanes, or the warp is done.
    fn resume(&mut self) -> State {
        while let Some(e) = self.stack.pop() {
            let m = e.mask & self.valid & !self.exited;
            if m != 0 {
                self.active = m;
                self.pc = e.pc;
                return State::Running;
            }
        }
        State::Done
    }
}

/// One block in flight.
pub(crate) struct Block {
    warps: Vec<Warp>,
    shared: Vec<u8>,
    local: Vec<u8>,
    local_size: usize,
    ctaid: [u32; 3],
    block: [u32; 3],
    grid: [u32; 3],
    /// Warp instructions a warp runs before the next gets a turn ([`SLICE`], or unbounded
    /// with [`LaunchConfig::warp_to_barrier`]).
    slice: u64,
}

impl Block {
    pub(crate) fn new(
        _prog: &Program,
        ctaid: [u32; 3],
        cfg: &LaunchConfig,
        shared: usize,
        local_size: usize,
    ) -> Block {
        let [bx, by, bz] = cfg.block;
        let n = bx * by * bz;
        let nwarps = n.div_ceil(WARP);
        let warps = (0..nwarps)
            .map(|id| {
                let first = id * WARP;
                let count = (n - first).min(WARP);
                let valid = if count == 32 {
                    u32::MAX
                } else {
                    (1u32 << count) - 1
                };
                let mut tid = [[0u32; 3]; 32];
                for (lane, t) in tid.iter_mut().enumerate().take(count as usize) {
                    let linear = first + lane as u32;
                    *t = [linear % bx, (linear / bx) % by, linear / (bx * by)];
                }
                Warp {
                    id,
                    regs: vec![0; 255 * 32],
                    preds: [0, 0, 0, 0, 0, 0, 0, u32::MAX],
                    cf: 0,
                    zf: 0,
                    sf: 0,
                    of: 0,
                    pc: 0,
                    active: valid,
                    valid,
                    exited: 0,
                    stack: Vec::new(),
                    state: State::Running,
                    bar: BarRed::default(),
                    bar_result: (0, false),
                    tracker: cfg.check_hazards.then(Tracker::default),
                    tid,
                    clock: 0,
                    issue: Default::default(),
                }
            })
            .collect();
        Block {
            warps,
            shared: vec![0; shared],
            local: vec![0; n as usize * local_size],
            local_size,
            ctaid,
            block: cfg.block,
            grid: cfg.grid,
            slice: if cfg.warp_to_barrier {
                u64::MAX
            } else {
                u64::from(SLICE)
            },
        }
    }

    pub(crate) fn run(
        &mut self,
        prog: &Program,
        (banks, tex): (&[Vec<u8>], Option<&dyn super::TextureUnit>),
        mem: &mut Global,
        fuel: &mut u64,
        fuel0: u64,
        report: &mut LaunchReport,
    ) -> Result<(), EmuError> {
        loop {
            let mut ran = false;
            for w in self.warps.iter_mut() {
                if w.state != State::Running {
                    continue;
                }
                ran = true;
                let mut ctx = Ctx {
                    banks,
                    tex,
                    shared: &mut self.shared,
                    local: &mut self.local,
                    local_size: self.local_size,
                    mem,
                    ctaid: self.ctaid,
                    block: self.block,
                    grid: self.grid,
                };
                for _ in 0..self.slice {
                    if *fuel == 0 {
                        return Err(EmuError::OutOfFuel {
                            executed: fuel0,
                            pc: inst_addr(w.pc),
                        });
                    }
                    *fuel -= 1;
                    let state = step(prog, w, &mut ctx, report)?;
                    if state != State::Running {
                        w.state = state;
                        if state == State::Done {
                            let (cycles, drained) = w.issue.drain();
                            super::stats::charge(&mut report.profile, w.issue.last, &drained);
                            report.cycles_sum += cycles;
                            report.cycles_critical_warp = report.cycles_critical_warp.max(cycles);
                        }
                        break;
                    }
                }
            }
            if self.warps.iter().all(|w| w.state == State::Done) {
                return Ok(());
            }
            if !ran {
                self.release_barrier();
            }
        }
    }

    /// Every live warp waits at a barrier: reduce and release them.
    fn release_barrier(&mut self) {
        let mut count = 0u32;
        let mut all = true;
        let mut any = false;
        let mut mode = None;
        for w in self.warps.iter().filter(|w| w.state == State::Barrier) {
            count += (w.bar.set & w.bar.lanes).count_ones();
            all &= w.bar.set & w.bar.lanes == w.bar.lanes;
            any |= w.bar.set & w.bar.lanes != 0;
            mode = mode.or(w.bar.mode);
        }
        // Every warp leaves the barrier when the last one arrives.
        let release = self
            .warps
            .iter()
            .filter(|w| w.state == State::Barrier)
            .map(|w| w.issue.now)
            .max()
            .unwrap_or(0);
        let pred = match mode {
            Some(1) => all,
            Some(2) => any,
            _ => count != 0,
        };
        for w in self.warps.iter_mut().filter(|w| w.state == State::Barrier) {
            w.state = State::Running;
            w.issue.release_at(release);
            if mode.is_some() {
                w.bar_result = (count, pred);
            }
            w.bar = BarRed::default();
        }
    }
}

fn target(prog: &Program, inst: &Inst, pc: usize) -> Result<usize, EmuError> {
    let resolved = match inst.ops().first() {
        Some(Operand::Label(t)) => Some(*t as usize),
        Some(Operand::Target(t)) => {
            // Unresolved by `decode_program`: a relative offset from the next instruction, or
            // an absolute address (JCAL). A target on a control word runs its group's first
            // instruction (ptxas branches to bundle starts).
            let abs = match inst.form().operands.first().map(|f| f.kind) {
                Some(crate::table::OpKind::Abs) => *t as i64,
                _ => inst_addr(pc) as i64 + 8 + *t as i64,
            };
            return code_index(prog, abs, pc);
        }
        _ => None,
    };
    resolved
        .filter(|&t| t < prog.code.len())
        .ok_or_else(|| outside(pc))
}

fn outside(pc: usize) -> EmuError {
    EmuError::Control {
        pc: inst_addr(pc),
        message: "branch target outside the kernel's code".into(),
    }
}

/// The instruction at byte address `abs` of the kernel's code (a control word's address
/// means its group's first instruction: ptxas branches to bundle starts).
fn code_index(prog: &Program, abs: i64, pc: usize) -> Result<usize, EmuError> {
    let abs = if abs % 32 == 0 { abs + 8 } else { abs };
    u32::try_from(abs)
        .ok()
        .and_then(|a| prog.by_addr.get(&a).copied())
        .filter(|&t| t < prog.code.len())
        .ok_or_else(|| outside(pc))
}

/// A call (`CAL`, `PRET`) would nest deeper than [`MAX_CALL_DEPTH`].
fn check_call_depth(w: &Warp, pc: u32) -> Result<(), EmuError> {
    let depth = w.stack.iter().filter(|e| e.kind == EntryKind::Call).count();
    if depth >= MAX_CALL_DEPTH {
        return Err(EmuError::Control {
            pc,
            message: format!("call stack overflow (more than {MAX_CALL_DEPTH} nested calls)"),
        });
    }
    Ok(())
}

/// Issues `inst` (control `ctrl`) at `pc`: the hazard tracker, the clock, the operand
/// collector's counts and the statistics; returns the lanes that execute it (active and
/// guarded on).
fn issue(inst: &Inst, ctrl: &Control, idx: usize, w: &mut Warp, report: &mut LaunchReport) -> u32 {
    let pc = inst_addr(idx);
    if let Some(t) = w.tracker.as_mut() {
        if report.hazards.len() < MAX_HAZARDS {
            t.issue_lanes(pc, inst, ctrl, w.active, &mut report.hazards);
        }
    }
    w.clock += ctrl.stall.max(1) as u64;
    let (operands, cost) = w.issue.issue(inst, ctrl);
    w.issue.last = idx;
    super::stats::charge(&mut report.profile, idx, &cost);
    report.bank_conflicts += u64::from(operands.conflicts);
    report.reuse_hits += u64::from(operands.hits);
    if let (Some(reg), Some(_)) = (operands.stale, w.tracker.as_ref()) {
        super::hazard::stale_reuse(pc, reg, &mut report.hazards);
    }
    report.by_class[super::stats::class_index(inst.form().class)] += 1;
    let guard = if inst.form().has(crate::table::flags::NO_GUARD) {
        u32::MAX
    } else {
        let m = w.pred(inst.guard.reg.0);
        if inst.guard.not {
            !m
        } else {
            m
        }
    };
    let g = w.active & guard;
    report.thread_instructions += g.count_ones() as u64;
    g
}

/// Executes the instruction at the warp's pc.
fn step(
    prog: &Program,
    w: &mut Warp,
    ctx: &mut Ctx,
    report: &mut LaunchReport,
) -> Result<State, EmuError> {
    use exec::Kind as K;
    let idx = w.pc;
    let Some((inst, ctrl)) = prog.code.get(idx) else {
        return Err(EmuError::Control {
            pc: inst_addr(idx),
            message: "ran past the end of the code".into(),
        });
    };
    let pc = inst_addr(idx);
    let g = issue(inst, ctrl, idx, w, report);
    let kind = prog.kinds[idx];
    match kind {
        K::Bra => return branch(prog, inst, idx, pc, w, g),
        K::Ssy | K::Pbk | K::Pcnt => {
            let t = target(prog, inst, idx)?;
            let kind = match kind {
                K::Ssy => EntryKind::Sync,
                K::Pbk => EntryKind::Brk,
                _ => EntryKind::Cont,
            };
            w.stack.push(Entry {
                kind,
                pc: t,
                mask: w.active,
            });
            w.pc = idx + 1;
        }
        K::Sync | K::Brk | K::Cont | K::Exit => return leave(kind, inst, idx, pc, w, g),
        K::Cal => return call(prog, inst, idx, pc, w, g),
        K::Pret => {
            // The return entry of an indirect call (`PRET` then `BRX`): every active lane
            // comes back to the target once it has returned.
            let t = target(prog, inst, idx)?;
            check_call_depth(w, pc)?;
            w.stack.push(Entry {
                kind: EntryKind::Call,
                pc: t,
                mask: w.active,
            });
            w.pc = idx + 1;
        }
        K::Brx => return indirect_branch(prog, inst, idx, pc, w, g),
        K::Ret => return ret(idx, pc, w, g),
        K::BarSync | K::BarRed => {
            w.pc = idx + 1;
            if g != 0 {
                w.bar = BarRed {
                    mode: (kind == K::BarRed)
                        .then(|| inst.get(crate::ModKind::BarRed).unwrap_or(0)),
                    lanes: g,
                    set: if kind == K::BarRed {
                        exec::pred_operand(inst, w, inst.ops().len() - 1)
                    } else {
                        0
                    },
                };
                return Ok(State::Barrier);
            }
        }
        _ => {
            if g != 0 {
                exec::execute(kind, inst, pc, w, g, ctx)?;
            }
            w.pc = idx + 1;
        }
    }
    Ok(State::Running)
}

/// BRA: the lanes whose guard holds jump; when only some do, the others wait as a divergence entry.
fn branch(
    prog: &Program,
    inst: &Inst,
    idx: usize,
    pc: u32,
    w: &mut Warp,
    g: u32,
) -> Result<State, EmuError> {
    let g = g & exec::cc_test(inst, pc, w)?;
    let t = target(prog, inst, idx)?;
    if g == w.active {
        w.pc = t;
    } else if g == 0 {
        w.pc = idx + 1;
    } else {
        w.stack.push(Entry {
            kind: EntryKind::Div,
            pc: idx + 1,
            mask: w.active & !g,
        });
        w.active = g;
        w.pc = t;
    }
    Ok(State::Running)
}

/// SYNC, BRK, CONT and EXIT: the lanes whose guard holds leave; the warp resumes pending lanes once none are active.
fn leave(
    kind: exec::Kind,
    inst: &Inst,
    idx: usize,
    pc: u32,
    w: &mut Warp,
    g: u32,
) -> Result<State, EmuError> {
    use exec::Kind as K;
    let g = g & exec::cc_test(inst, pc, w)?;
    w.active &= !g;
    match kind {
        K::Brk => w.remove_lanes(g, Some(EntryKind::Brk)),
        K::Cont => w.remove_lanes(g, Some(EntryKind::Cont)),
        K::Exit => {
            w.exited |= g;
            w.remove_lanes(g, None);
        }
        _ => {}
    }
    if w.active != 0 {
        w.pc = idx + 1;
    } else {
        return Ok(w.resume());
    }
    Ok(State::Running)
}

/// CAL: the lanes whose guard holds call the target and come back after the CAL.
fn call(
    prog: &Program,
    inst: &Inst,
    idx: usize,
    pc: u32,
    w: &mut Warp,
    g: u32,
) -> Result<State, EmuError> {
    let t = target(prog, inst, idx)?;
    if g == 0 {
        w.pc = idx + 1;
        return Ok(State::Running);
    }
    check_call_depth(w, pc)?;
    if g != w.active {
        // A predicated call under divergence: the lanes that do not call go on after
        // it once the callers have returned.
        w.stack.push(Entry {
            kind: EntryKind::Div,
            pc: idx + 1,
            mask: w.active & !g,
        });
    }
    w.stack.push(Entry {
        kind: EntryKind::Call,
        pc: idx + 1,
        mask: g,
    });
    w.active = g;
    w.pc = t;
    Ok(State::Running)
}

/// BRX: each lane jumps to its own target; lanes are grouped by target and the group of the
/// lowest lane runs first, the others wait as divergence entries.
fn indirect_branch(
    prog: &Program,
    inst: &Inst,
    idx: usize,
    pc: u32,
    w: &mut Warp,
    g: u32,
) -> Result<State, EmuError> {
    let g = g & exec::cc_test(inst, pc, w)?;
    let off = match inst.ops().get(1) {
        Some(Operand::Imm(v)) => *v as i32 as i64,
        _ => return Err(exec::unsupported(inst, pc, "BRX without an offset")),
    };
    let ra = match inst.ops().first() {
        Some(Operand::Reg(r)) => r.0,
        _ => return Err(exec::unsupported(inst, pc, "BRX without a register")),
    };
    // Lanes grouped by target (lanes the guard turns off go on after the BRX); the
    // group of the lowest lane runs first, the others wait as divergence entries.
    let mut groups: Vec<(usize, u32)> = Vec::new();
    for lane in 0..32 {
        let bit = 1u32 << lane;
        if w.active & bit == 0 {
            continue;
        }
        let t = if g & bit != 0 {
            let base = inst_addr(idx) as i64 + 8 + off;
            code_index(prog, base + w.reg(ra, lane) as i64, idx)?
        } else {
            idx + 1
        };
        match groups.iter_mut().find(|(p, _)| *p == t) {
            Some((_, m)) => *m |= bit,
            None => groups.push((t, bit)),
        }
    }
    let Some(&(first, mask)) = groups.first() else {
        w.pc = idx + 1;
        return Ok(State::Running);
    };
    for &(t, m) in groups[1..].iter().rev() {
        w.stack.push(Entry {
            kind: EntryKind::Div,
            pc: t,
            mask: m,
        });
    }
    w.active = mask;
    w.pc = first;
    Ok(State::Running)
}

/// RET: the lanes whose guard holds return to the innermost CAL's entry.
fn ret(idx: usize, pc: u32, w: &mut Warp, g: u32) -> Result<State, EmuError> {
    if !w.stack.iter().any(|e| e.kind == EntryKind::Call) {
        if g == 0 {
            w.pc = idx + 1;
            return Ok(State::Running);
        }
        return Err(EmuError::Control {
            pc,
            message: "RET with an empty call stack".into(),
        });
    }
    // Returning lanes wait at the innermost CAL's entry for the lanes still inside
    // the function (pending on entries above it).
    w.active &= !g;
    w.remove_lanes(g, Some(EntryKind::Call));
    if w.active != 0 {
        w.pc = idx + 1;
    } else {
        return Ok(w.resume());
    }
    Ok(State::Running)
}
