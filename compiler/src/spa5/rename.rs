//! Renames a value whose register a load or store may still be reading.
//!
//! A variable-latency instruction (a load, a store, an atomic) reads its registers after it
//! issues; a write to one of them soon after waits on the instruction's read barrier (some
//! twenty cycles on the model). Register allocation reuses a register as soon as its value
//! dies, so a 64-bit address pair is often rewritten right after the `LDG` that read it (an
//! unrolled column walk: `LDG R14, [R28]; LEA R28.CC, ...`), and a loop's first temporary
//! takes the register its last store read (across the back edge). This pass gives such a
//! value another register where one is free over the value's whole life, no pending
//! access still holds it, and the new register is not rewritten soon after the value's own
//! late reads (which would move the wait, not remove it).
//!
//! A value here is a *web*: the writes and reads of some registers inside one straight-line
//! stretch of code (no branch target or transfer in between), closed under the operands
//! that read several registers at once (an address pair written by `LEA.CC` and `LEA.HI.X`
//! and read by one `LDG` is one web). A web is renamed only if every write in it is
//! unguarded, every read is reached by a write in the stretch, and its registers are dead
//! after it (rewritten in the stretch, or dead where the stretch ends by the liveness over
//! the machine code's control flow), and no instruction in it has operands tied to others
//! (a CAS's compare/swap pair, FFMA32I's accumulator). The new registers are the old ones
//! shifted by a multiple of the web's widest operand (pairs and quads stay aligned), by a
//! multiple of four (the register banks, register index mod 4, stay the same) where one
//! fits, else only if the web's instructions get no more bank conflicts. Only registers
//! below the function's count are used: the register count never grows.
//!
//! Requires: the emitted code of a function (registers allocated, branch targets still
//! unresolved, as block starts). Guarantees: the same instructions in the same order; every
//! read sees the value it saw before (the renamed registers are dead wherever they are
//! given to a web); the register count is unchanged. Functions with control flow other than
//! `BRA`, `SSY`, `SYNC` and `EXIT` are left alone.

use super::emit::EmitResult;
use isa_spa5::latency::needs_read_barrier;
use isa_spa5::{GprOperand, Inst as MInst, Op, Pred, Reg};
use smallvec::SmallVec;

/// Instructions after a late read (or a variable-latency write) of a register during which
/// a write to it is taken to wait: the register allocator's window for the same fact
/// (registers it keeps "hot" after a load reads them). Measured at 8 / 12 / 16 / 24
/// (modeled cycles, 61 pairs): 0.9163 / 0.9158 / 0.9152 / 0.9175.
const WINDOW: usize = ilc_passes::regalloc::HOT_INSTS as usize;

/// Instructions before a web (in code order, across stretches) whose late reads of a
/// register keep the web out of it: a load issued before a soft branch or a reconvergence
/// point stays in flight across it.
const RECENT: usize = 48;

/// Largest web renamed (register writes plus reads): bounds the work per candidate.
const MAX_WEB: usize = 48;

/// A set of GPRs (room past `RZ` for the last registers of a run starting near it).
#[derive(Clone, Copy, Default, PartialEq, Eq)]
struct RegSet([u64; 5]);

impl RegSet {
    fn insert(&mut self, r: u32) {
        self.0[(r / 64) as usize] |= 1 << (r % 64);
    }
    fn remove(&mut self, r: u32) {
        self.0[(r / 64) as usize] &= !(1 << (r % 64));
    }
    fn contains(&self, r: u32) -> bool {
        self.0[(r / 64) as usize] & (1 << (r % 64)) != 0
    }
    fn union(&mut self, o: &RegSet) -> bool {
        let mut changed = false;
        for (a, b) in self.0.iter_mut().zip(o.0) {
            changed |= *a | b != *a;
            *a |= b;
        }
        changed
    }
}

fn regs(o: &GprOperand) -> impl Iterator<Item = u32> {
    let r = u32::from(o.reg.0);
    r..r + u32::from(o.count)
}

fn unguarded(i: &MInst) -> bool {
    i.guard == Pred::TRUE
}

/// Applies the effect of instruction `i` to the set of registers live after it, giving the
/// set live before it.
fn step_back(live: &mut RegSet, i: &MInst, ops: &[GprOperand]) {
    if unguarded(i) {
        for o in ops.iter().filter(|o| o.def) {
            regs(o).for_each(|r| live.remove(r));
        }
    }
    for o in ops.iter().filter(|o| !o.def) {
        regs(o).for_each(|r| live.insert(r));
    }
}

/// Straight-line stretches of the code and the registers live at their ends.
struct Stretches {
    /// `[start, end)` of each stretch, in order.
    bounds: Vec<(usize, usize)>,
    /// Stretches that may run right before each one.
    preds: Vec<SmallVec<[usize; 2]>>,
    /// Registers live where each stretch ends.
    live_out: Vec<RegSet>,
}

impl Stretches {
    /// `None` when the code has control flow the successors are not known for.
    fn compute(em: &EmitResult, code: &Code) -> Option<Stretches> {
        let insts = &em.insts;
        let n = insts.len();
        let target = |i: usize| -> Option<usize> {
            let b = insts[i].target?;
            em.block_start.get(&b).copied()
        };
        let mut leader = em.starts();
        leader[0] = true;
        let mut ssy_targets = Vec::new();
        for (i, e) in insts.iter().enumerate() {
            let op = e.inst.op;
            match op {
                Op::BRA | Op::SSY => {
                    let t = target(i)?;
                    leader[t] = true;
                    if op == Op::SSY {
                        ssy_targets.push(t);
                    }
                }
                Op::SYNC | Op::EXIT => {}
                _ if e.inst.is_branch() || e.inst.is_terminator() => return None,
                _ => {}
            }
            if e.inst.is_terminator() {
                leader[i + 1] = true;
            }
        }
        let mut bounds = Vec::new();
        let mut of = vec![0usize; n + 1];
        let mut start = 0;
        for i in 1..=n {
            if leader[i] {
                bounds.push((start, i));
                start = i;
            }
            of[i] = bounds.len();
        }
        // Successors (a superset is safe: liveness only grows).
        let mut succs: Vec<SmallVec<[usize; 4]>> = vec![SmallVec::new(); bounds.len()];
        for (s, &(_, end)) in bounds.iter().enumerate() {
            let last = &insts[end - 1].inst;
            let falls = end < n
                && match last.op {
                    Op::BRA | Op::EXIT | Op::SYNC => !unguarded(last),
                    _ => true,
                };
            if falls {
                succs[s].push(of[end]);
            }
            match last.op {
                Op::BRA => succs[s].extend(target(end - 1).filter(|&t| t < n).map(|t| of[t])),
                Op::SYNC => succs[s].extend(ssy_targets.iter().filter(|&&t| t < n).map(|&t| of[t])),
                _ => {}
            }
        }
        let mut preds: Vec<SmallVec<[usize; 2]>> = vec![SmallVec::new(); bounds.len()];
        for (s, ss) in succs.iter().enumerate() {
            for &t in ss {
                if !preds[t].contains(&s) {
                    preds[t].push(s);
                }
            }
        }
        // Backward liveness to a fixed point.
        let mut live_in = vec![RegSet::default(); bounds.len()];
        let mut live_out = vec![RegSet::default(); bounds.len()];
        let mut changed = true;
        while changed {
            changed = false;
            for s in (0..bounds.len()).rev() {
                let mut out = RegSet::default();
                for &t in &succs[s] {
                    out.union(&live_in[t]);
                }
                live_out[s] = out;
                let (start, end) = bounds[s];
                for k in (start..end).rev() {
                    step_back(&mut out, &code.insts[k], &code.ops[k]);
                }
                changed |= live_in[s].union(&out);
            }
        }
        Some(Stretches {
            bounds,
            preds,
            live_out,
        })
    }
}

/// The instructions with their register operands and the registers each reads, writes,
/// reads late and writes with a variable latency (kept current as webs move).
struct Code {
    insts: Vec<MInst>,
    ops: Vec<SmallVec<[GprOperand; 6]>>,
    touched: Vec<RegSet>,
    defs: Vec<RegSet>,
    late: Vec<RegSet>,
    var_defs: Vec<RegSet>,
}

impl Code {
    fn new(insts: Vec<MInst>) -> Code {
        let n = insts.len();
        let mut c = Code {
            insts,
            ops: vec![SmallVec::new(); n],
            touched: vec![RegSet::default(); n],
            defs: vec![RegSet::default(); n],
            late: vec![RegSet::default(); n],
            var_defs: vec![RegSet::default(); n],
        };
        for i in 0..n {
            c.refresh(i);
        }
        c
    }

    fn refresh(&mut self, i: usize) {
        let inst = &self.insts[i];
        let ops = inst.gpr_operands();
        let (late, var) = (needs_read_barrier(inst), inst.is_variable_latency());
        let mut sets = [RegSet::default(); 4];
        for o in &ops {
            for r in regs(o) {
                sets[0].insert(r);
                if o.def {
                    sets[1].insert(r);
                    if var {
                        sets[3].insert(r);
                    }
                } else if late {
                    sets[2].insert(r);
                }
            }
        }
        self.ops[i] = ops;
        [
            self.touched[i],
            self.defs[i],
            self.late[i],
            self.var_defs[i],
        ] = sets;
    }

    fn union(sets: &[RegSet]) -> RegSet {
        let mut u = RegSet::default();
        for x in sets {
            u.union(x);
        }
        u
    }
}

/// An operand of a web: instruction index, operand.
type Member = (usize, GprOperand);

/// A web (module doc): the operands to rewrite and the registers they cover.
struct Web {
    members: SmallVec<[Member; 8]>,
    regs: RegSet,
    reg_list: SmallVec<[u32; 4]>,
    /// First and last instruction of the web.
    first: usize,
    last: usize,
    /// The last instruction of the web that reads its registers late.
    last_late_read: Option<usize>,
}

/// The web of the value instruction `at` writes to register `r`, inside the stretch
/// `[start, end)` whose live-out registers are `live_out`; `None` if it is not a web the
/// pass renames (module doc).
fn web(
    code: &Code,
    (start, end): (usize, usize),
    live_out: &RegSet,
    at: usize,
    r: u32,
) -> Option<Web> {
    let insts = &code.insts;
    let covers = |o: &GprOperand, r: u32| regs(o).any(|x| x == r);
    let mut w = Web {
        members: SmallVec::new(),
        regs: RegSet::default(),
        reg_list: SmallVec::new(),
        first: at,
        last: at,
        last_late_read: None,
    };
    let add = |w: &mut Web, m: Member| {
        if !w.members.contains(&m) {
            w.members.push(m);
            w.first = w.first.min(m.0);
            w.last = w.last.max(m.0);
        }
    };
    let mut work: SmallVec<[(usize, u32); 8]> = SmallVec::new();
    let mut seen: SmallVec<[(usize, u32); 8]> = SmallVec::new();
    work.push((at, r));
    while let Some((d, r)) = work.pop() {
        if seen.contains(&(d, r)) {
            continue;
        }
        seen.push((d, r));
        if w.members.len() + seen.len() > MAX_WEB || !unguarded(&insts[d]) {
            return None;
        }
        // Operands tied to others (a CAS's register pair, FFMA32I's accumulator) stay.
        if insts[d].has_derived_operands() {
            return None;
        }
        if !w.regs.contains(r) {
            w.regs.insert(r);
            w.reg_list.push(r);
        }
        let def = *code.ops[d].iter().find(|o| o.def && covers(o, r))?;
        for x in regs(&def) {
            work.push((d, x));
        }
        add(&mut w, (d, def));
        // The reads of this value: up to the next write of `r`.
        let mut redefined = false;
        for (q, inst) in insts.iter().enumerate().take(end).skip(d + 1) {
            if !code.touched[q].contains(r) {
                continue;
            }
            let ops = &code.ops[q];
            if inst.has_derived_operands() {
                return None;
            }
            for o in ops.iter().filter(|o| !o.def && covers(o, r)) {
                add(&mut w, (q, *o));
                if code.late[q].contains(r) {
                    w.last_late_read = w.last_late_read.max(Some(q));
                }
                // The other registers the operand reads: their writes join the web.
                for x in regs(o).filter(|&x| x != r) {
                    let d2 = (start..q).rev().find(|&p| code.defs[p].contains(x))?;
                    work.push((d2, x));
                }
            }
            if code.defs[q].contains(r) {
                if !unguarded(inst) {
                    return None;
                }
                redefined = true;
                break;
            }
        }
        if !redefined && live_out.contains(r) {
            return None;
        }
    }
    Some(w)
}

/// Whether register `r` is read late by one of the `WINDOW` instructions before `at` in
/// stretch `s` (and its predecessors).
fn hot(code: &Code, st: &Stretches, s: usize, at: usize, r: u32) -> bool {
    let (start, _) = st.bounds[s];
    let near = at.saturating_sub(WINDOW).max(start);
    if code.late[near..at].iter().any(|l| l.contains(r)) {
        return true;
    }
    let left = WINDOW - (at - near).min(WINDOW);
    left > 0
        && st.preds[s].iter().any(|&p| {
            let (ps, pe) = st.bounds[p];
            code.late[pe.saturating_sub(left).max(ps)..pe]
                .iter()
                .any(|l| l.contains(r))
        })
}

/// Renames the webs of register writes that would wait on a read barrier; returns how many.
pub fn run(em: &mut EmitResult) -> usize {
    if em.insts.is_empty() {
        return 0;
    }
    let mut code = Code::new(em.insts.iter().map(|e| e.inst).collect());
    let Some(st) = Stretches::compute(em, &code) else {
        return 0;
    };
    let reg_count = code.insts.iter().map(MInst::gpr_end).max().unwrap_or(0);
    // Registers read late anywhere in each stretch.
    let mut late_in: Vec<RegSet> = st
        .bounds
        .iter()
        .map(|&(a, b)| Code::union(&code.late[a..b]))
        .collect();
    let mut renamed = 0;
    for s in 0..st.bounds.len() {
        let (start, end) = st.bounds[s];
        // Registers live after each instruction of the stretch (`live_after[k - start]`).
        let mut live_after = live_after_each(&code, start, end, &st.live_out[s]);
        for at in start..end {
            let Some(r) = code.ops[at]
                .iter()
                .filter(|o| o.def)
                .flat_map(regs)
                .find(|&r| hot(&code, &st, s, at, r))
            else {
                continue;
            };
            let Some(w) = web(&code, (start, end), &st.live_out[s], at, r) else {
                continue;
            };
            let ctx = Context {
                st: &st,
                s,
                late_in: &late_in,
                live_after: &live_after,
                reg_count,
            };
            if let Some(delta) = pick(&code, &ctx, &w) {
                for &(i, o) in &w.members {
                    apply(&mut code.insts[i], o, delta);
                }
                for i in w.first..=w.last {
                    code.refresh(i);
                }
                late_in[s] = Code::union(&code.late[start..end]);
                // Liveness changes inside the web's span only (its registers, old and
                // new, are dead before and after it).
                let mut live = live_after[w.last - start];
                for k in (w.first..=w.last).rev() {
                    live_after[k - start] = live;
                    step_back(&mut live, &code.insts[k], &code.ops[k]);
                }
                renamed += 1;
            }
        }
    }
    for (e, i) in em.insts.iter_mut().zip(code.insts) {
        e.inst = i;
    }
    renamed
}

/// The registers live after each instruction of the stretch `[start, end)`.
fn live_after_each(code: &Code, start: usize, end: usize, live_out: &RegSet) -> Vec<RegSet> {
    let mut out = vec![RegSet::default(); end - start];
    let mut live = *live_out;
    for k in (start..end).rev() {
        out[k - start] = live;
        step_back(&mut live, &code.insts[k], &code.ops[k]);
    }
    out
}

/// What [`pick`] reads about the stretch being rewritten.
struct Context<'a> {
    st: &'a Stretches,
    s: usize,
    late_in: &'a [RegSet],
    live_after: &'a [RegSet],
    reg_count: u32,
}

/// The shift that moves web `w` to registers that are free over it, not in use by a
/// pending access where it writes them, and not rewritten soon after its late reads,
/// keeping the alignment of its pairs and quads and adding no register bank conflict; the
/// nearest such, a bank-preserving one (a multiple of four) first.
///
/// Blocked registers: those read or written inside the web's span or live after it; those
/// read late anywhere in the stretch, a predecessor, or the [`RECENT`] instructions before
/// the web (a load whose result is not read before the new write would need a read barrier
/// for it, which takes a barrier and may join a busy one; in a loop, that load may be later
/// in the stretch); those written by a variable-latency instruction in the `WINDOW` before a
/// write of the web; and those written within `WINDOW` after the web's last late read (in
/// code order, past the stretch end).
fn pick(code: &Code, ctx: &Context, w: &Web) -> Option<i64> {
    let (start, _) = ctx.st.bounds[ctx.s];
    let mut blocked = Code::union(&code.touched[w.first..=w.last]);
    blocked.union(&ctx.live_after[w.last - start]);
    blocked.union(&ctx.late_in[ctx.s]);
    for &p in &ctx.st.preds[ctx.s] {
        blocked.union(&ctx.late_in[p]);
    }
    blocked.union(&Code::union(
        &code.late[w.first.saturating_sub(RECENT).min(start)..start],
    ));
    for &(d, o) in &w.members {
        if o.def {
            blocked.union(&Code::union(
                &code.var_defs[d.saturating_sub(WINDOW).max(start)..d],
            ));
        }
    }
    if let Some(q) = w.last_late_read {
        // Past the stretch end too, in code order: a soft branch keeps the read pending.
        let to = code.insts.len().min(q + 1 + WINDOW).max(w.last + 1);
        blocked.union(&Code::union(&code.defs[w.last + 1..to]));
    }
    let lo = i64::from(w.reg_list.iter().min().copied()?);
    let hi = i64::from(w.reg_list.iter().max().copied()?);
    let align = i64::from(w.members.iter().map(|(_, o)| o.count).max().unwrap_or(1));
    let count = i64::from(ctx.reg_count);
    let mut deltas: Vec<i64> = (1..=count / align)
        .flat_map(|k| [-align * k, align * k])
        .filter(|&d| lo + d >= 0 && hi + d < count)
        .collect();
    deltas.sort_by_key(|d| (d % 4 != 0, d.abs()));
    let conflicts =
        |list: &[MInst]| -> u32 { list.iter().map(isa_spa5::banks::inst_conflicts).sum() };
    let mut at: SmallVec<[usize; 8]> = w.members.iter().map(|&(i, _)| i).collect();
    at.sort_unstable();
    at.dedup();
    let before: SmallVec<[MInst; 8]> = at.iter().map(|&i| code.insts[i]).collect();
    let base = conflicts(&before);
    deltas.into_iter().find(|&delta| {
        w.reg_list.iter().all(|&r| {
            let n = (i64::from(r) + delta) as u32;
            !w.regs.contains(n) && !blocked.contains(n)
        }) && (delta % 4 == 0 || {
            let mut after = before.clone();
            for &(i, o) in &w.members {
                let k = at
                    .iter()
                    .position(|&x| x == i)
                    .expect("a member's instruction");
                apply(&mut after[k], o, delta);
            }
            conflicts(&after) <= base
        })
    })
}

/// Moves operand `o` of `inst` by `delta` registers.
fn apply(inst: &mut MInst, o: GprOperand, delta: i64) {
    let new = i64::from(o.reg.0) + delta;
    inst.set_gpr_operand(o.slot, Reg(new as u8));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_pair_rewritten_after_its_load_moves() {
        let mut em = EmitResult::from_text(&[
            "MOV R8, R6",
            "MOV R9, R6",
            "FADD R7, R8, R9",
            "LEA R4.CC, R0, c[0x0][0x140]",
            "LEA.HI.X R5, R0, c[0x0][0x144], RZ",
            "LDG.E R2, [R4]",
            "IADD R0, R0, R1",
            "LEA R4.CC, R0, c[0x0][0x140]",
            "LEA.HI.X R5, R0, c[0x0][0x144], RZ",
            "LDG.E R3, [R4]",
            "FADD R2, R2, R3",
            "FADD R2, R2, R7",
            "STS [R6], R2",
            "EXIT",
        ]);
        assert_eq!(run(&mut em), 1, "{:?}", em.text());
        let t = em.text();
        // The second pair moves four registers up (R8/R9 are dead there).
        assert!(t[7].starts_with("LEA R8.CC"), "{t:?}");
        assert!(t[8].starts_with("LEA.HI.X R9"), "{t:?}");
        assert!(t[9].contains("[R8]"), "{t:?}");
        assert!(t[3].starts_with("LEA R4.CC"), "{t:?}");
    }

    #[test]
    fn live_or_guarded_values_stay() {
        // A guarded write of R4 is not renamed, nor is R5, read after the stretch (by the
        // store at the block start).
        let mut em = EmitResult::from_text(&[
            "LDG.E R2, [R4]",
            "@P0 MOV R4, R1",
            "MOV R5, R1",
            "STG.E [R4], R2",
            "EXIT",
        ]);
        em.block_start
            .insert(cranelift_entity::EntityRef::new(1), 3);
        let before = em.text();
        assert_eq!(run(&mut em), 0);
        assert_eq!(em.text(), before);
    }
}
