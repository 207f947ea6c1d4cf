//! The control-word pass: stall counts, scoreboard barriers and wait masks for a linear list
//! of machine instructions.
//!
//! Model (correctness first):
//! - fixed-latency results are ready after `isa_spa5::latency`'s figures (the one timing
//!   model, which the emulator's hazard checker verifies and which is measured on ptxas):
//!   a GPR after `FIXED_LATENCY` cycles, read by a consumer `source_read_delay` cycles after
//!   it issues (memory, MUFU and conversions read late, so they may issue sooner), a
//!   predicate after `pred_latency`, the condition code after `CC_LATENCY`; a consumer (or
//!   an overwrite) issuing earlier makes the previous instruction's stall longer (at most 15;
//!   fixed latencies are at most 13); a memory load overwriting a fixed-latency result does
//!   not wait for it: the load's result lands later;
//! - a variable-latency instruction with register results sets a *write* barrier covering its
//!   results and a *read* barrier covering its register sources (released when they are
//!   read, long before the result); one without results (stores, `RED`) that reads
//!   registers sets a read barrier covering those;
//!   a later reader of a result, writer of a result (WAW) or writer of a source (WAR) waits on
//!   the barrier (a later *reader* of a source does not: two loads from one address register
//!   stay in flight together);
//! - a load gets a read barrier only if one of its sources is overwritten before its result
//!   is first read (or before the next control transfer, which waits for the result), on
//!   either way of a soft branch (below; its target's way for a few instructions only):
//!   waiting for the result covers the reads, so otherwise the write barrier protects the
//!   sources too;
//! - a write barrier does not take the last free barrier while it can join another write
//!   barrier: that one stays for a read barrier (joining a pending load's write barrier, a
//!   read barrier would make the source's next writer wait for that load instead of the
//!   source read; matmul's 16 loads in flight, rodinia_kmeans -aib 1.07x -> 0.87x ptxas's
//!   modeled cycles);
//! - an operation without results needs no read barrier when the warp reaches an unguarded
//!   `EXIT` by straight-line code that leaves its sources alone (ptxas's last stores): no
//!   instruction of the warp runs after it;
//! - when all six barriers are busy: a barrier whose operations are expected to be complete
//!   (issue cycle + the class's typical latency) is waited on at no cost; otherwise the new
//!   operation joins the barrier of its kind (write or read) expected to complete nearest
//!   its own expected completion (the youngest among equals): barriers count operations, so
//!   a wait covers both, and an operation completes after the older ones of its class
//!   anyway, while a load joining a pending MUFU would hold the MUFU's reader for the load's
//!   latency; without one of its kind, it joins the barrier expected to complete first;
//! - every control transfer (`BRA`, `SYNC`, `EXIT`, `BAR`) but a back edge (below) drains
//!   everything: it waits on all barriers and stalls until every fixed-latency result is
//!   written, so each block starts
//!   from a clean state whichever way it is entered (a block barrier `BAR` or a guarded
//!   `EXIT`, after which the warp goes on at the next instruction, leaves barriers holding
//!   only reads pending: a store's sources are waited for at their next writer); except the *soft* branches, which only
//!   stall for the fixed-latency results: a guarded forward `BRA` (an `if`, a versioning
//!   test), and the `SYNC`s of an `SSY` region that holds only straight-line code and ends
//!   with an unguarded `SYNC` right before its target (an `if` without `else`: the warp runs
//!   the region's code once, for the lanes that did not sync early, then continues at the
//!   target; no other path of the region runs in between). The barriers pending at a soft
//!   branch stay pending on the fall-through path and are merged into the state at its
//!   target (a barrier busy on either way in, covering the registers of both), so loads
//!   issued before an `if` stay in flight across it and are waited for at their first use;
//! - a loop's back edge (a backward `BRA` with no unguarded `EXIT` between its target and it)
//!   only stalls for the fixed-latency results and waits for the read barriers whose sources
//!   the loop never overwrites (nothing in the loop would wait for them): the rest stays
//!   pending into the loop head, whose state covers every way in. That state is found by
//!   running the pass again with the states the back edges brought, merged, until no back
//!   edge brings more (at most [`MAX_PASSES`] runs, else back edges drain like other
//!   transfers); a load issued before a back edge gets a read barrier (the loop may
//!   overwrite its sources at the head);
//! - `serial` mode: every instruction stalls 15 cycles and waits on both barriers used.
//! - operand reuse flags: `isa_spa5::banks::plan_reuse` (the model the emulator counts
//!   cycles with) flags a source slot when the next reader of that slot reads the same
//!   register and nothing in between overwrites it, transfers control or is a branch target;
//!   every flag set is then a cache hit at run time (none in `serial` mode).
//!
//! Guarantees: every control field is in range (stall <= 15, barriers < 6); no reuse flag
//! lets an instruction read an overwritten register through the reuse cache.

use isa_spa5::latency::{self, Latency, CC_LATENCY};
use isa_spa5::{Control, Inst as MInst, Loc, Op};

/// A register location key (GPRs split per register).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Key {
    /// GPR.
    R(u8),
    /// Predicate.
    P(u8),
    /// Condition code.
    Cc,
}

/// The register keys of a location list (inline: computed twice per instruction and
/// more in the lookahead, a heap Vec each time was the allocator's largest caller).
pub fn keys(locs: impl Iterator<Item = Loc>) -> smallvec::SmallVec<[Key; 8]> {
    let mut v = smallvec::SmallVec::new();
    for l in locs {
        match l {
            Loc::Gpr { reg, count } => {
                for k in 0..count {
                    v.push(Key::R(reg.0.wrapping_add(k)));
                }
            }
            Loc::Pred(p) => v.push(Key::P(p.0)),
            Loc::Cc => v.push(Key::Cc),
            Loc::Pr => {
                for p in 0..7 {
                    v.push(Key::P(p));
                }
            }
        }
    }
    v
}

/// The index of the instruction a branch (`BRA`, `SSY`, `PBK`, `PCNT`, `CAL`) at `idx` names.
pub fn branch_target(insts: &[MInst], idx: usize) -> Option<usize> {
    let i = &insts[idx];
    if !i.is_branch() {
        return None;
    }
    let form = i.form();
    let (k, rel) = i.ops().iter().enumerate().find_map(|(k, o)| match o {
        isa_spa5::Operand::Target(t) => Some((k, *t)),
        _ => None,
    })?;
    let addr = match form.operands.get(k)?.kind {
        isa_spa5::table::OpKind::Abs => i64::from(rel),
        _ => isa_spa5::program::inst_addr(idx) as i64 + 8 + i64::from(rel),
    };
    let t = isa_spa5::program::addr_inst(u64::try_from(addr).ok()?)?;
    (t < insts.len()).then_some(t)
}

/// The target of a guarded forward `BRA` at `idx` (module doc: it keeps the barriers pending).
pub fn soft_branch_target(insts: &[MInst], idx: usize) -> Option<usize> {
    let i = &insts[idx];
    if i.op != Op::BRA || i.guard.reg.is_true() && !i.guard.not {
        return None;
    }
    branch_target(insts, idx).filter(|&t| t > idx)
}

/// The loop head a `BRA` at `idx` jumps back to (module doc: it keeps the barriers pending
/// when the head's state covers them): a backward `BRA` with no unguarded `EXIT` from its
/// target to it. (A block placed after the warp's `EXIT` that jumps back into the code, an
/// out-of-line version's end, still drains: its loads, on other barriers than the main
/// path's, would make every barrier at the join cover both.)
fn back_edge_target(insts: &[MInst], idx: usize) -> Option<usize> {
    if insts[idx].op != Op::BRA {
        return None;
    }
    let head = branch_target(insts, idx).filter(|&t| t <= idx)?;
    let exits = insts[head..idx]
        .iter()
        .any(|i| i.op == Op::EXIT && i.guard.reg.is_true() && !i.guard.not);
    (!exits).then_some(head)
}

/// For every `SYNC` that keeps the barriers pending, its reconvergence point (module doc):
/// the `SYNC`s of an `SSY` region whose only other instructions are straight-line code (no
/// branch, transfer or nested region) and that ends with an unguarded `SYNC` right before
/// the `SSY` target. Such a region runs its code once for the lanes that did not sync early,
/// and the warp continues at the target: no other path of the region runs in between.
fn simple_sync_targets(insts: &[MInst]) -> Vec<Option<usize>> {
    let mut out = vec![None; insts.len()];
    for s in 0..insts.len() {
        if insts[s].op != Op::SSY {
            continue;
        }
        let Some(l) = branch_target(insts, s).filter(|&l| l > s + 1) else {
            continue;
        };
        let last = &insts[l - 1];
        let straight = insts[s + 1..l - 1]
            .iter()
            .all(|i| i.op == Op::SYNC || !i.is_branch() && !is_transfer(i) && !i.is_terminator());
        let unguarded = last.guard.reg.is_true() && !last.guard.not;
        if last.op == Op::SYNC && unguarded && straight {
            for (k, i) in insts.iter().enumerate().take(l).skip(s + 1) {
                if i.op == Op::SYNC {
                    out[k] = Some(l);
                }
            }
        }
    }
    out
}

/// Whether `i` transfers control (the state is drained before it).
pub fn is_transfer(i: &MInst) -> bool {
    matches!(
        i.op,
        Op::BRA | Op::SYNC | Op::EXIT | Op::BRK | Op::CONT | Op::RET
    ) || is_block_barrier(i)
}

/// Whether `i` is a block barrier (`BAR` in any form).
fn is_block_barrier(i: &MInst) -> bool {
    i.form().mnemonic.starts_with("BAR")
}

#[derive(Default, Clone)]
struct Sb {
    busy: bool,
    age: u64,
    /// Set by a result-producing (write) operation, else only by reads.
    write: bool,
    /// Cycle at which its operations are expected to be complete.
    done_at: u64,
    /// Registers the pending instruction writes (read or written later: wait).
    defs: Vec<Key>,
    /// Registers it reads late, with the reading operation's class (written later: wait,
    /// except by a variable-latency write of that class, whose pipe reads in issue order;
    /// read later: no hazard).
    srcs: Vec<(Key, isa_spa5::table::Class)>,
}

impl Sb {
    /// The barrier as it stands on either of two paths joining: busy if busy on one,
    /// covering the registers of both.
    fn merge(&mut self, other: Sb) {
        if !other.busy {
            return;
        }
        if !self.busy {
            *self = other;
            return;
        }
        self.age = self.age.max(other.age);
        self.write |= other.write;
        self.done_at = self.done_at.max(other.done_at);
        for k in other.defs {
            if !self.defs.contains(&k) {
                self.defs.push(k);
            }
        }
        for k in other.srcs {
            if !self.srcs.contains(&k) {
                self.srcs.push(k);
            }
        }
    }

    /// Whether the barrier as it stands covers `other`: busy if that is, of a write if that
    /// is, listing all its registers.
    fn covers(&self, other: &Sb) -> bool {
        !other.busy
            || self.busy
                && (self.write || !other.write)
                && other.defs.iter().all(|k| self.defs.contains(k))
                && other.srcs.iter().all(|k| self.srcs.contains(k))
    }

    /// Back to `Sb::default()`, keeping the key lists' allocations.
    fn reset(&mut self) {
        let Sb {
            busy,
            age,
            write,
            done_at,
            defs,
            srcs,
        } = self;
        (*busy, *age, *write, *done_at) = (false, 0, false, 0);
        defs.clear();
        srcs.clear();
    }
}

/// A barrier for a new operation (a write barrier if `write`) expected to complete at
/// `done_at`, not one of `taken`: a free one, else (all busy) one to wait on now (added to
/// `wait`) or one of its kind to join (module doc), the one expected to complete nearest
/// `done_at` (a load joining a pending MUFU would make the MUFU's reader wait for the load);
/// `waited`: barriers the operation's first waiter waits on anyway (preferred when none is of
/// its kind).
fn take(
    sbs: &mut [Sb],
    wait: &mut u8,
    taken: u8,
    write: bool,
    now: u64,
    done_at: u64,
    waited: u8,
) -> usize {
    let avail = |b: usize| taken & (1 << b) == 0;
    // The last free barrier stays for read barriers while a write barrier can be joined: a
    // read barrier joining a pending load's write barrier makes the register's next writer
    // wait for that load (~300 cycles) instead of the source read (~20).
    let free = (0..sbs.len()).filter(|&b| !sbs[b].busy && avail(b)).count();
    let joinable_write = (0..sbs.len()).any(|b| avail(b) && sbs[b].busy && sbs[b].write);
    let keep_for_reads = write && free == 1 && joinable_write;
    if let Some(b) = (0..sbs.len())
        .find(|&b| !sbs[b].busy && avail(b) && *wait & (1 << b) == 0)
        .or_else(|| (0..sbs.len()).find(|&b| !sbs[b].busy && avail(b)))
        .filter(|_| !keep_for_reads)
    {
        return b;
    }
    let done = (0..sbs.len())
        .filter(|&b| avail(b) && sbs[b].busy && sbs[b].done_at <= now)
        .min_by_key(|&b| sbs[b].age);
    let join = (0..sbs.len())
        .filter(|&b| avail(b) && sbs[b].busy && sbs[b].write == write)
        .min_by_key(|&b| {
            (
                sbs[b].done_at.abs_diff(done_at),
                std::cmp::Reverse(sbs[b].age),
            )
        });
    match done.or(join) {
        Some(b) if done.is_some() => {
            *wait |= 1 << b;
            sbs[b].reset();
            b
        }
        Some(b) => b,
        // None of its kind: join one that the operation's first waiter waits on anyway, else
        // the one expected to complete first. Waiting on it now would stall for its whole
        // latency (a load's source read behind six pending loads waited ~200 cycles);
        // joined, only the later waits on it also cover the new operation.
        None => (0..sbs.len())
            .filter(|&b| avail(b))
            .min_by_key(|&b| (waited & (1 << b) == 0, sbs[b].done_at, sbs[b].age))
            .unwrap_or(0),
    }
}

/// Adds an operation to barrier `sb` (free or joined).
fn join(
    sb: &mut Sb,
    age: u64,
    write: bool,
    done_at: u64,
    class: isa_spa5::table::Class,
    defs: &[Key],
    srcs: &[Key],
) {
    if !sb.busy {
        sb.reset();
    }
    sb.busy = true;
    sb.age = age;
    sb.write |= write;
    sb.done_at = sb.done_at.max(done_at);
    sb.defs.extend_from_slice(defs);
    sb.srcs.extend(srcs.iter().map(|&k| (k, class)));
}

/// How far ahead [`sources_overwritten_early`] looks before assuming the worst.
const LOOKAHEAD: usize = 256;

/// How far (instructions looked at, on all paths) [`sources_overwritten_early`] follows a
/// soft branch's target. A source overwritten further on is left to the write barrier: the
/// load has been in flight a while by then, and a read barrier held over that stretch takes
/// one of the six from the loads after it (an `if` skipping a peeled iteration, 11
/// instructions into its target: parboil_mriq -aib 1.01x modeled cycles; the versioning
/// test of poly_corr, 6 into the fast version: 0.91x).
const TARGET_LOOKAHEAD: usize = 20;

/// What the pass reads of every instruction, computed once: the look-ahead of
/// [`sources_overwritten_early`] reads up to [`LOOKAHEAD`] instructions per variable-latency
/// one, and deriving the keys from the operands each time was a third of the pass.
struct Facts {
    /// Register keys read ([`MInst::uses`]).
    uses: Vec<Keys>,
    /// Register keys written ([`MInst::defs`]).
    defs: Vec<Keys>,
    /// [`is_transfer`].
    transfer: Vec<bool>,
}

/// The register keys of one instruction's uses or defs.
type Keys = smallvec::SmallVec<[Key; 8]>;

impl Facts {
    fn new(insts: &[MInst]) -> Facts {
        Facts {
            uses: insts.iter().map(|i| keys(i.uses().iter())).collect(),
            defs: insts.iter().map(|i| keys(i.defs().iter())).collect(),
            transfer: insts.iter().map(is_transfer).collect(),
        }
    }
}

/// When each register key's fixed-latency result is ready (cycle; 0: nothing pending),
/// indexed by [`Ready::slot`], with the slots set since the last clear (which `latest` and
/// `clear` visit instead of all of them).
struct Ready {
    at: Vec<u64>,
    set: Vec<usize>,
}

impl Ready {
    /// GPRs, then predicates, then CC.
    const SLOTS: usize = 256 + 256 + 1;

    fn new() -> Ready {
        Ready {
            at: vec![0; Ready::SLOTS],
            set: Vec::new(),
        }
    }

    fn slot(k: Key) -> usize {
        match k {
            Key::R(r) => usize::from(r),
            Key::P(p) => 256 + usize::from(p),
            Key::Cc => 512,
        }
    }

    /// The ready cycle of `k`, if a write to it is recorded.
    fn get(&self, k: Key) -> Option<u64> {
        let at = self.at[Ready::slot(k)];
        (at != 0).then_some(at)
    }

    /// Records that `k` is ready at cycle `at`. (A cycle of 0 reads back as none, which
    /// delays nothing either: every use of a ready cycle is a maximum with 0.)
    fn insert(&mut self, k: Key, at: u64) {
        let s = Ready::slot(k);
        if self.at[s] == 0 {
            self.set.push(s);
        }
        self.at[s] = at;
    }

    /// The latest ready cycle of any key (0 if none).
    fn latest(&self) -> u64 {
        self.set.iter().map(|&s| self.at[s]).max().unwrap_or(0)
    }

    fn clear(&mut self) {
        for s in self.set.drain(..) {
            self.at[s] = 0;
        }
    }
}

/// The first instruction after `idx` (other than a variable-latency one of the same class)
/// that writes one of `srcs`, if that happens before any instruction reads or writes one of
/// `defs` (the wait for the result, which covers the source reads) and before the next
/// control transfer (which waits for every barrier); `Some(None)` when the look-ahead ends
/// first or reaches a back edge that waits for nothing (assume it does). A soft branch waits
/// for nothing, so both of its ways are followed: the fall-through, and the target for
/// [`TARGET_LOOKAHEAD`] instructions.
fn sources_overwritten_early(
    insts: &[MInst],
    facts: &Facts,
    soft: &[Option<usize>],
    keep: &[bool],
    idx: usize,
    srcs: &[Key],
    defs: &[Key],
) -> Option<Option<usize>> {
    let class = insts[idx].form().class;
    // Where paths still to follow start (soft targets are forward: a path that reaches one
    // follows it from there, so it is dropped).
    let mut starts: smallvec::SmallVec<[usize; 4]> = smallvec::smallvec![idx + 1];
    let mut steps = 0;
    while let Some(first) = (0..starts.len()).min_by_key(|&s| starts[s]) {
        let start = starts.swap_remove(first);
        for (at, later) in insts.iter().enumerate().skip(start) {
            if steps == LOOKAHEAD {
                return Some(None);
            }
            steps += 1;
            if start != idx + 1 && steps > TARGET_LOOKAHEAD {
                break;
            }
            starts.retain(|s| *s != at);
            let uses = &facts.uses[at];
            let ldefs = &facts.defs[at];
            // A variable-latency write of the same class reads and writes in issue order.
            let same_pipe = later.is_variable_latency() && later.form().class == class;
            if !same_pipe && ldefs.iter().any(|k| srcs.contains(k)) {
                return Some(Some(at));
            }
            if facts.transfer[at] && !keep[at] || uses.iter().chain(ldefs).any(|k| defs.contains(k))
            {
                break;
            }
            match soft[at] {
                // A soft branch keeps the barriers pending into its target, whose code may
                // overwrite the sources before the result is read.
                Some(target) if !starts.contains(&target) => starts.push(target),
                Some(_) => {}
                // A back edge that keeps the barriers pending: the loop may overwrite the
                // sources at its head, before the result is read.
                None if keep[at] => return Some(None),
                None => {}
            }
        }
    }
    None
}

/// Whether the warp ends at an unguarded `EXIT` after `idx` by straight-line code (no branch,
/// transfer or branch target on the way) that writes none of `srcs`: an operation at `idx`
/// reading `srcs` late then needs no read barrier.
fn exits_leaving_sources(
    insts: &[MInst],
    facts: &Facts,
    entry: &[bool],
    idx: usize,
    srcs: &[Key],
) -> bool {
    for (at, later) in insts.iter().enumerate().skip(idx + 1).take(LOOKAHEAD) {
        if entry[at] || facts.defs[at].iter().any(|k| srcs.contains(k)) {
            return false;
        }
        if later.op == Op::EXIT {
            return later.guard.reg.is_true() && !later.guard.not;
        }
        if later.is_branch() || facts.transfer[at] || later.is_terminator() {
            return false;
        }
    }
    false
}

/// Computes the control of every instruction.
pub fn compute(insts: &[MInst], serial: bool) -> Vec<Control> {
    let mut ctl = vec![Control::stall(1); insts.len()];
    if serial {
        for (i, c) in insts.iter().zip(ctl.iter_mut()) {
            c.stall = 15;
            c.wait_mask = 0b11;
            let var = i.is_variable_latency();
            if var && !i.defs().is_empty() {
                c.wr_bar = Some(0);
            } else if (var || i.is_memory_store()) && !i.uses().is_empty() {
                c.rd_bar = Some(1);
            }
        }
        return ctl;
    }
    let syncs = simple_sync_targets(insts);
    let soft: Vec<Option<usize>> = (0..insts.len())
        .map(|i| soft_branch_target(insts, i).or(syncs[i]))
        .collect();
    // Operand reuse: instructions reached other than by falling through start cold.
    let mut entry = vec![false; insts.len()];
    for t in (0..insts.len()).filter_map(|i| branch_target(insts, i)) {
        entry[t] = true;
    }
    for (c, r) in ctl
        .iter_mut()
        .zip(isa_spa5::banks::plan_reuse(insts, &entry))
    {
        c.reuse = r;
    }
    let facts = Facts::new(insts);
    // Back edges keep their barriers pending when the loop heads' assumed states cover what
    // every back edge brings (module doc); grown from nothing until they do.
    let mut heads: Vec<Option<Vec<Sb>>> = vec![None; insts.len()];
    for _ in 0..MAX_PASSES {
        let (ctl, at_back) = pass(insts, &facts, &soft, &entry, Some(&heads), ctl.clone());
        let mut grown = false;
        for (head, state) in at_back {
            let assumed = heads[head].get_or_insert_with(|| vec![Sb::default(); 6]);
            for (h, b) in assumed.iter_mut().zip(state) {
                grown |= !h.covers(&b);
                h.merge(b);
            }
        }
        if !grown {
            return ctl;
        }
    }
    // No fixpoint within the passes: back edges drain like any other hard transfer.
    pass(insts, &facts, &soft, &entry, None, ctl).0
}

/// How many passes [`compute`] runs to find the loop heads' states before back edges drain.
const MAX_PASSES: usize = 4;

/// One pass over `insts` filling `ctl`. With `heads` (the state assumed at each loop head),
/// a back edge waits for nothing and the state there is returned with its head; without,
/// back edges drain.
fn pass(
    insts: &[MInst],
    facts: &Facts,
    soft: &[Option<usize>],
    entry: &[bool],
    heads: Option<&[Option<Vec<Sb>>]>,
    mut ctl: Vec<Control>,
) -> (Vec<Control>, Vec<(usize, Vec<Sb>)>) {
    let keep_back = heads.is_some();
    let keep: Vec<bool> = (0..insts.len())
        .map(|i| soft[i].is_some() || keep_back && back_edge_target(insts, i).is_some())
        .collect();
    let mut at_back = Vec::new();
    // The barriers a soft branch left pending, merged into the state at its target.
    let mut incoming: Vec<Option<Vec<Sb>>> = vec![None; insts.len()];
    let mut ready = Ready::new();
    let mut sbs: Vec<Sb> = vec![Sb::default(); 6];
    let mut t: u64 = 0;
    let mut counter = 0u64;
    for idx in 0..insts.len() {
        ilc_passes::budget::tick();
        let inst = &insts[idx];
        let uses = &facts.uses[idx];
        let defs = &facts.defs[idx];
        let transfer = facts.transfer[idx];
        let class = inst.form().class;
        // A block barrier, and a guarded `EXIT` for the lanes that stay, continue at the next
        // instruction: operations that only read registers (stores) stay in flight across.
        let guarded_exit = inst.op == Op::EXIT && (inst.guard.not || !inst.guard.reg.is_true());
        let goes_on = guarded_exit || is_block_barrier(inst);
        // The state at a soft branch's target covers every way there: the barriers pending
        // on the fall-through path and at each soft branch to it; at a loop head, also what
        // its back edges bring.
        if let Some(came) = incoming[idx].take() {
            for (sb, other) in sbs.iter_mut().zip(came) {
                sb.merge(other);
            }
        }
        if let Some(Some(assumed)) = heads.map(|h| &h[idx]) {
            for (sb, other) in sbs.iter_mut().zip(assumed) {
                sb.merge(other.clone());
            }
        }
        // At a back edge that keeps the barriers pending: the registers the loop writes.
        let loop_defs: Option<Keys> = back_edge_target(insts, idx)
            .filter(|_| keep_back)
            .map(|head| facts.defs[head..=idx].iter().flatten().copied().collect());
        // Scoreboard waits.
        let mut wait = 0u8;
        if let Some(target) = soft[idx] {
            match &mut incoming[target] {
                Some(into) => {
                    for (to, sb) in into.iter_mut().zip(&sbs) {
                        to.merge(sb.clone());
                    }
                }
                slot => *slot = Some(sbs.clone()),
            }
        }
        for (b, sb) in sbs.iter().enumerate() {
            if !sb.busy {
                continue;
            }
            // A variable-latency write of a reader's class may overwrite that reader's
            // sources: the pipe reads them in issue order (as ptxas relies on).
            let var_write = inst.is_variable_latency();
            let overwrites = |k: &Key| {
                sb.srcs
                    .iter()
                    .any(|&(s, c)| s == *k && !(var_write && c == class))
            };
            // A back edge keeps the barriers pending but waits for the source reads of a
            // read barrier whose registers the loop never overwrites (long done by then):
            // nothing in the loop would wait for it, and every iteration would take another.
            let stays_busy = |ks: &Keys| !sb.write && !sb.srcs.iter().any(|(k, _)| ks.contains(k));
            let drains = transfer && (!keep[idx] || loop_defs.as_ref().is_some_and(stays_busy));
            let hit = drains && (sb.write || !goes_on)
                || uses.iter().any(|k| sb.defs.contains(k))
                || defs.iter().any(|k| sb.defs.contains(k) || overwrites(k));
            if hit {
                wait |= 1 << b;
            }
        }
        let need = fixed_latency_ready(inst, uses, defs, &ready, transfer);
        if need > t && idx > 0 {
            let prev = &mut ctl[idx - 1];
            let extra = (need - t).min(u64::from(15 - prev.stall)) as u8;
            prev.stall += extra;
            t += u64::from(extra);
        }
        if transfer {
            ready.clear();
        }
        for (b, sb) in sbs.iter_mut().enumerate() {
            if wait & (1 << b) != 0 {
                sb.busy = false;
                sb.defs.clear();
                sb.srcs.clear();
            }
        }
        if loop_defs.is_some() {
            if let Some(head) = back_edge_target(insts, idx) {
                at_back.push((head, sbs.clone()));
            }
        }
        // Barrier allocation.
        let var = inst.is_variable_latency();
        let gpr_lat = match latency::timing(inst).gpr {
            Latency::Fixed(l) => u64::from(l),
            Latency::Variable { .. } => 0,
        };
        let wants_wr = var && !defs.is_empty();
        let branchy = inst.is_branch() || transfer || inst.is_terminator();
        let wants_rd = !wants_wr && !branchy && (var || inst.is_memory_store()) && !uses.is_empty();
        // The guard predicate is read at issue: no barrier needed for it.
        let srcs: Keys = uses
            .iter()
            .copied()
            .filter(|k| !matches!(k, Key::P(_)))
            .collect();
        let typical = match latency::timing(inst).gpr {
            Latency::Variable { typical } => u64::from(typical),
            Latency::Fixed(l) => u64::from(l),
        };
        if wants_wr {
            // Results on a write barrier; register sources on a read barrier of their own,
            // released once they are read, so overwriting a source does not wait for the
            // result (TEX/LDG address registers are often dead right after) -- needed only
            // when a source is overwritten before the result is waited for.
            let b = take(&mut sbs, &mut wait, 0, true, t, t + typical, 0);
            counter += 1;
            let gpr_srcs = !srcs.is_empty() && srcs.iter().any(|k| !defs.contains(k));
            let overwriter = if gpr_srcs {
                sources_overwritten_early(insts, facts, soft, &keep, idx, &srcs, defs)
            } else {
                None
            };
            // The barriers whose results the overwriting instruction reads or overwrites.
            let waited = overwriter.flatten().map_or(0, |w| {
                let w = &insts[w];
                let touched = keys(w.uses().iter().chain(w.defs().iter()));
                (0..sbs.len())
                    .filter(|&x| sbs[x].busy && sbs[x].defs.iter().any(|k| touched.contains(k)))
                    .fold(0u8, |m, x| m | 1 << x)
            });
            let r = overwriter
                .map(|_| take(&mut sbs, &mut wait, 1 << b, false, t, t + typical, waited));
            counter += 1;
            join(
                &mut sbs[b],
                counter,
                true,
                t + typical,
                class,
                defs,
                if r.is_some() { &[] } else { &srcs },
            );
            ctl[idx].wr_bar = Some(b as u8);
            if let Some(r) = r {
                join(&mut sbs[r], counter, false, t + typical, class, &[], &srcs);
                ctl[idx].rd_bar = Some(r as u8);
            }
        } else if wants_rd && !exits_leaving_sources(insts, facts, entry, idx, &srcs) {
            let b = take(&mut sbs, &mut wait, 0, false, t, t + typical, 0);
            counter += 1;
            join(&mut sbs[b], counter, false, t + typical, class, defs, &srcs);
            ctl[idx].rd_bar = Some(b as u8);
        }
        ctl[idx].wait_mask = wait;
        if !var {
            for k in defs {
                let lat = match k {
                    Key::R(_) => gpr_lat,
                    Key::P(_) => u64::from(latency::pred_latency()),
                    Key::Cc => u64::from(CC_LATENCY),
                };
                ready.insert(*k, t + lat);
            }
        }
        t += u64::from(ctl[idx].stall);
    }
    // The last instruction drains nothing further; nothing follows it.
    (ctl, at_back)
}

/// The cycle from which `inst` may issue as far as fixed latencies go: its GPR sources are
/// read `source_read_delay` cycles after issue, predicates and CC at issue; at a control
/// transfer, once every fixed-latency result is ready.
fn fixed_latency_ready(
    inst: &MInst,
    uses: &[Key],
    defs: &[Key],
    ready: &Ready,
    transfer: bool,
) -> u64 {
    let delay = u64::from(latency::source_read_delay(inst));
    if transfer {
        ready.latest()
    } else {
        let reads = uses.iter().filter_map(|k| {
            let r = ready.get(*k)?;
            Some(if matches!(k, Key::R(_)) {
                r.saturating_sub(delay)
            } else {
                r
            })
        });
        // A memory load's result lands long after an older fixed-latency write to the
        // same register (the hazard model's variable latency is at least 20 cycles, a
        // fixed one 6): `MOV R0, RZ; @P0 LDG R0` issue back to back.
        let overwrites = defs
            .iter()
            .filter(|_| !inst.is_memory_load())
            .filter_map(|k| ready.get(*k));
        reads.chain(overwrites).max().unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use isa_spa5::mods::Size;
    use isa_spa5::regs::Reg;

    /// `insts` with their `Label` branch targets turned into the relative `Target`s the pass
    /// reads (as the backend's encoder does).
    fn resolved(mut insts: Vec<MInst>) -> Vec<MInst> {
        use isa_spa5::program::inst_addr;
        for (i, inst) in insts.iter_mut().enumerate() {
            if let Some(isa_spa5::Operand::Label(t)) = inst.operands.first().copied() {
                let rel = inst_addr(t as usize) as i64 - (inst_addr(i) as i64 + 8);
                inst.operands[0] = isa_spa5::Operand::Target(rel as i32);
            }
        }
        insts
    }

    /// A load issued before an `if` without `else` (an `SSY` region of straight-line code)
    /// stays in flight across both of its `SYNC`s and is waited for at its first use, after
    /// the region.
    #[test]
    fn a_load_stays_in_flight_across_an_if_without_else() {
        let p0 = isa_spa5::PredReg(0);
        let insts = resolved(vec![
            MInst::ldg(Size::B32, Reg(10), Reg(20), 0),
            MInst::isetp(isa_spa5::mods::ICmp::Lt, p0, Reg(2), Reg(3)),
            MInst::ssy(6),
            MInst::sync().guarded(isa_spa5::Pred::not_p(0)),
            MInst::iadd(Reg(1), Reg(2), Reg(3)),
            MInst::sync(),
            MInst::iadd(Reg(4), Reg(10), Reg(10)),
            MInst::exit(),
        ]);
        let ctl = compute(&insts, false);
        let b = ctl[0].wr_bar.expect("the load sets a write barrier");
        assert_eq!(ctl[3].wait_mask, 0, "{:?}", ctl[3]);
        assert_eq!(ctl[5].wait_mask, 0, "{:?}", ctl[5]);
        assert_eq!(ctl[6].wait_mask, 1 << b, "{:?}", ctl[6]);
    }

    /// The target of a guarded forward branch waits only on the barriers of the registers it
    /// touches: the state there is the union of both ways in, not a wait for all.
    #[test]
    fn a_branch_target_waits_only_for_what_it_reads() {
        let insts = resolved(vec![
            MInst::ldg(Size::B32, Reg(10), Reg(20), 0),
            MInst::ldg(Size::B32, Reg(11), Reg(22), 0),
            MInst::bra(4).guarded(isa_spa5::Pred::p(0)),
            MInst::iadd(Reg(12), Reg(10), Reg(10)),
            MInst::iadd(Reg(13), Reg(11), Reg(11)),
            MInst::exit(),
        ]);
        let ctl = compute(&insts, false);
        let (b10, b11) = (ctl[0].wr_bar.unwrap(), ctl[1].wr_bar.unwrap());
        assert_ne!(b10, b11);
        assert_eq!(ctl[3].wait_mask, 1 << b10, "{:?}", ctl[3]);
        assert_eq!(ctl[4].wait_mask, 1 << b11, "{:?}", ctl[4]);
    }

    /// A load before a guarded forward branch whose fall-through ends in a jump (which waits
    /// for the load) while the target overwrites the load's address: the load gets a read
    /// barrier, so the overwrite waits for the address read, not for the result.
    #[test]
    fn a_source_overwritten_at_a_soft_branch_target_gets_a_read_barrier() {
        let insts = resolved(vec![
            MInst::ldg(Size::B32, Reg(10), Reg(20), 0),
            MInst::bra(4).guarded(isa_spa5::Pred::p(0)),
            MInst::iadd(Reg(1), Reg(2), Reg(3)),
            MInst::bra(6),
            MInst::iadd(Reg(20), Reg(2), Reg(3)),
            MInst::iadd(Reg(4), Reg(10), Reg(10)),
            MInst::exit(),
        ]);
        let ctl = compute(&insts, false);
        let rd = ctl[0]
            .rd_bar
            .expect("the address overwritten at the target needs a read barrier");
        assert_ne!(Some(rd), ctl[0].wr_bar);
        assert_eq!(ctl[4].wait_mask, 1 << rd, "{:?}", ctl[4]);
    }

    /// A load may overwrite a register right after a fixed-latency write to it (its result
    /// lands much later), but an ALU instruction waits for that write to land first.
    #[test]
    fn a_load_overwrites_a_fixed_latency_result_at_once() {
        let insts = vec![
            MInst::iadd(Reg(10), Reg(2), Reg(3)),
            MInst::ldg(Size::B32, Reg(10), Reg(20), 0),
            MInst::iadd(Reg(11), Reg(2), Reg(3)),
            MInst::iadd(Reg(11), Reg(4), Reg(5)),
            MInst::exit(),
        ];
        let ctl = compute(&insts, false);
        assert_eq!(ctl[0].stall, 1, "{:?}", ctl[0]);
        assert!(ctl[2].stall >= 6, "{:?}", ctl[2]);
    }

    /// Six loads in flight, then a load whose address register is overwritten at once: its
    /// read barrier gets a barrier of its own (the sixth load joins the fifth's), so the
    /// overwrite waits for the address read, not for an earlier load's result.
    #[test]
    fn a_read_barrier_does_not_join_a_pending_load() {
        let mut insts: Vec<MInst> = (0..6)
            .map(|i| MInst::ldg(Size::B32, Reg(10 + i), Reg(20 + 2 * i), 0))
            .collect();
        insts.push(MInst::ldg(Size::B32, Reg(16), Reg(40), 0));
        insts.push(MInst::iadd(Reg(40), Reg(41), Reg(42)));
        insts.push(MInst::exit());
        let ctl = compute(&insts, false);
        let rd = ctl[6]
            .rd_bar
            .expect("the overwritten address needs a read barrier");
        let writes: Vec<u8> = ctl[..7].iter().filter_map(|c| c.wr_bar).collect();
        assert!(
            !writes.contains(&rd),
            "read barrier {rd} shared with {writes:?}"
        );
        assert_eq!(ctl[7].wait_mask, 1 << rd, "{:?}", ctl[7]);
    }

    /// With one barrier left free, a load joins the pending load expected to complete
    /// nearest its own time, not the youngest operation: here a MUFU, whose short result the
    /// next instruction reads, would then wait for the load's ~300 cycles.
    #[test]
    fn a_load_joins_a_load_not_a_pending_mufu() {
        use isa_spa5::mods::Mufu;
        let mut insts: Vec<MInst> = (0..4)
            .map(|i| MInst::ldg(Size::B32, Reg(10 + i), Reg(20 + 2 * i), 0))
            .collect();
        insts.push(MInst::mufu(Mufu::Rcp, Reg(30), Reg(31)));
        insts.push(MInst::ldg(Size::B32, Reg(14), Reg(40), 0));
        insts.push(MInst::iadd(Reg(32), Reg(30), Reg(30)));
        insts.push(MInst::exit());
        let ctl = compute(&insts, false);
        let mufu = ctl[4].wr_bar.expect("MUFU sets a write barrier");
        assert_ne!(ctl[5].wr_bar, Some(mufu), "{:?}", &ctl[..6]);
        assert_eq!(ctl[6].wait_mask, 1 << mufu, "{:?}", ctl[6]);
    }

    /// A store right before the warp's unguarded `EXIT` sets no read barrier (nothing runs
    /// after it to overwrite its sources); one whose source is overwritten first, or before a
    /// guarded `EXIT`, does.
    #[test]
    fn a_last_store_before_exit_needs_no_read_barrier() {
        let store = || MInst::stg(Size::B32, Reg(4), 0, Reg(6));
        let ctl = compute(
            &[store(), MInst::iadd(Reg(8), Reg(9), Reg(9)), MInst::exit()],
            false,
        );
        assert_eq!((ctl[0].rd_bar, ctl[2].wait_mask), (None, 0), "{ctl:?}");
        let ctl = compute(
            &[store(), MInst::iadd(Reg(6), Reg(9), Reg(9)), MInst::exit()],
            false,
        );
        let rd = ctl[0]
            .rd_bar
            .expect("the overwritten source needs a read barrier");
        assert_eq!(ctl[1].wait_mask, 1 << rd);
        let guarded = MInst::exit().guarded(isa_spa5::Pred::p(0));
        let ctl = compute(&[store(), guarded, MInst::exit()], false);
        assert!(ctl[0].rd_bar.is_some(), "{ctl:?}");
    }

    /// A block barrier waits for pending load results but not for a store's source reads:
    /// the store's read barrier stays pending, waited for by the next writer of its source.
    #[test]
    fn a_store_stays_in_flight_across_a_block_barrier() {
        let insts = vec![
            MInst::ldg(Size::B32, Reg(10), Reg(20), 0),
            MInst::sts(Size::B32, Reg(4), 0, Reg(6)),
            MInst::bar_sync(0),
            MInst::iadd(Reg(6), Reg(9), Reg(9)),
            MInst::exit(),
        ];
        let ctl = compute(&insts, false);
        let (wr, rd) = (ctl[0].wr_bar.unwrap(), ctl[1].rd_bar.unwrap());
        assert_eq!(ctl[2].wait_mask, 1 << wr, "{ctl:?}");
        assert_eq!(ctl[3].wait_mask, 1 << rd, "{ctl:?}");
    }

    /// A load whose address register the next load of its class overwrites needs no read
    /// barrier (the pipe reads in issue order), even when its write barrier is shared with
    /// loads of another class: the overwrite waits for none of them.
    #[test]
    fn a_same_pipe_overwrite_waits_for_no_joined_load() {
        let mut insts: Vec<MInst> = (0..6)
            .map(|i| MInst::ldg(Size::B32, Reg(10 + i), Reg(20 + 2 * i), 0))
            .collect();
        insts.push(MInst::lds(Size::B32, Reg(30), Reg(40), 0));
        insts.push(MInst::lds(Size::B32, Reg(40), Reg(41), 0));
        insts.push(MInst::exit());
        let ctl = compute(&insts, false);
        assert_eq!(ctl[6].rd_bar, None, "{ctl:?}");
        assert_eq!(ctl[7].wait_mask, 0, "{ctl:?}");
    }

    /// A load issued before a loop's back edge stays in flight across it: the back edge does
    /// not wait for its result (only for its address read) and the loop head's read of the
    /// result waits on its barrier. A block after
    /// the warp's `EXIT` jumping back into the code still drains.
    #[test]
    fn a_load_stays_in_flight_across_a_back_edge() {
        let insts = resolved(vec![
            MInst::iadd(Reg(1), Reg(2), Reg(3)),
            MInst::iadd(Reg(4), Reg(10), Reg(10)),
            MInst::ldg(Size::B32, Reg(10), Reg(20), 0),
            MInst::isetp(
                isa_spa5::mods::ICmp::Lt,
                isa_spa5::PredReg(0),
                Reg(2),
                Reg(3),
            ),
            MInst::bra(1).guarded(isa_spa5::Pred::p(0)),
            MInst::exit(),
        ]);
        let ctl = compute(&insts, false);
        let b = ctl[2].wr_bar.expect("the load sets a write barrier");
        assert_eq!(ctl[4].wait_mask & 1 << b, 0, "{ctl:?}");
        assert_eq!(ctl[1].wait_mask, 1 << b, "{ctl:?}");
        assert_eq!(ctl[5].wait_mask, 1 << b, "{ctl:?}");
        let cold = resolved(vec![
            MInst::iadd(Reg(1), Reg(2), Reg(3)),
            MInst::iadd(Reg(4), Reg(10), Reg(10)),
            MInst::exit(),
            MInst::ldg(Size::B32, Reg(10), Reg(20), 0),
            MInst::bra(1),
        ]);
        let ctl = compute(&cold, false);
        let b = ctl[3].wr_bar.expect("the load sets a write barrier");
        assert_eq!(ctl[4].wait_mask, 1 << b, "{ctl:?}");
    }

    /// A guarded `EXIT` does not wait for a store's source read: the lanes that stay wait for
    /// it at the next writer of the source.
    #[test]
    fn a_store_stays_in_flight_across_a_guarded_exit() {
        let insts = vec![
            MInst::stg(Size::B32, Reg(4), 0, Reg(6)),
            MInst::exit().guarded(isa_spa5::Pred::p(0)),
            MInst::iadd(Reg(6), Reg(9), Reg(9)),
            MInst::exit(),
        ];
        let ctl = compute(&insts, false);
        let rd = ctl[0]
            .rd_bar
            .expect("the lanes that stay overwrite the source");
        assert_eq!(ctl[1].wait_mask, 0, "{ctl:?}");
        assert_eq!(ctl[2].wait_mask, 1 << rd, "{ctl:?}");
    }
}
