//! Fills the latency gap between a fixed-latency producer and the next instruction when
//! that instruction reads its result.
//!
//! Selection emits some operations as several machine instructions (a 64-bit address: the
//! low half writing the carry, `LEA.CC`/`IADD.CC`, the high half reading it, `LEA.HI.X`/
//! `IADD.X`; a 32-bit multiply as three dependent `XMAD`s), and register allocation adds
//! moves, so such chains reach the emitted code adjacent and their producers stall for the
//! latency (`isa_spa5::latency`: a register after `FIXED_LATENCY` less the consumer's
//! `source_read_delay`, a predicate after `PRED_LATENCY`, the condition code after
//! `CC_LATENCY`) with nothing issuing in between: every global access's address pays
//! it. This pass moves up to that latency less one later, independent instructions of the
//! same block into the gap, as ptxas does, so the consumer issues no later and what moved
//! issues earlier.
//!
//! A moved instruction has no control, store, atomic or other side effect (a load moves,
//! passing no memory write) and neither reads nor writes the condition code; it waits on no
//! scoreboard where it lands (see `waits_on_pending`); it passes no instruction it depends on
//! or that depends on it (registers, predicates; read-after-write, write-after-read,
//! write-after-write), no control transfer, barrier or block start; and it reads nothing
//! written by the instructions just before its new place (within the fixed latency of a
//! register, a predicate's latency for a predicate), so it issues without a stall of its own.
//!
//! Requires: the emitted code of a function, branch targets still unresolved (as block
//! starts). Guarantees: only non-branch instructions move, within their block, so branch
//! targets and block starts keep their indices; every register, predicate and condition
//! code dependency keeps its order; the instructions and their count are unchanged.

use super::deps::{keys, Key};
use super::emit::{EmitResult, Emitted};
use isa_spa5::latency::{required_stall, Latency, CC_LATENCY, FIXED_LATENCY, PRED_LATENCY};
use isa_spa5::table::flags;
use isa_spa5::Inst as MInst;
use smallvec::SmallVec;

/// How far past the consumer a candidate is looked for.
const LOOKAHEAD: usize = 12;

type Keys = SmallVec<[Key; 8]>;

/// The register keys an instruction writes and reads, and its timing class.
struct Access {
    defs: Keys,
    uses: Keys,
    /// Its results arrive after a variable latency (a scoreboard orders their readers).
    variable: bool,
    /// It reads its sources after issue (a read barrier protects them).
    late_read: bool,
}

impl Access {
    fn of(i: &MInst) -> Access {
        let t = isa_spa5::latency::timing(i);
        Access {
            defs: keys(i.defs().iter()),
            uses: keys(i.uses().iter()),
            variable: matches!(t.gpr, Latency::Variable { .. }),
            late_read: t.late_source_read,
        }
    }

    fn writes_cc(&self) -> bool {
        self.defs.contains(&Key::Cc)
    }

    fn touches_cc(&self) -> bool {
        self.writes_cc() || self.uses.contains(&Key::Cc)
    }

    /// Whether `self` may move above `other` (no dependency either way).
    fn independent_of(&self, other: &Access) -> bool {
        let meets = |a: &Keys, b: &Keys| a.iter().any(|k| b.contains(k));
        !meets(&self.uses, &other.defs)
            && !meets(&self.defs, &other.uses)
            && !meets(&self.defs, &other.defs)
    }
}

/// Whether `e` may move at all: no control, side effects, stores or atomics (a load or
/// another variable-latency operation issues in one cycle and may move; it then passes no
/// memory write, see [`run`]).
fn movable(e: &Emitted) -> bool {
    let form = e.inst.form();
    e.target.is_none()
        && !form.has(
            flags::BRANCH | flags::FLOW | flags::STORE | flags::SIDE | flags::ATOMIC | flags::TEX,
        )
        && e.inst.op != isa_spa5::Op::NOP
}

/// Whether `e` writes memory (a load does not pass it).
fn writes_memory(e: &Emitted) -> bool {
    e.inst
        .form()
        .has(flags::STORE | flags::ATOMIC | flags::SIDE)
}

/// Whether `e` may be passed by a moving instruction (given no register dependency).
fn passable(e: &Emitted) -> bool {
    let form = e.inst.form();
    e.target.is_none()
        && !form.has(flags::BRANCH | flags::FLOW | flags::SIDE)
        && !super::deps::is_transfer(&e.inst)
}

/// Runs the pass; returns the number of instructions moved.
pub fn run(em: &mut EmitResult) -> usize {
    let n = em.insts.len();
    let starts = em.starts();
    // The first instruction of the block each instruction is in.
    let mut begin = vec![0; n];
    for x in 1..n {
        begin[x] = if starts[x] { x } else { begin[x - 1] };
    }
    let mut access: Vec<Access> = em.insts.iter().map(|e| Access::of(&e.inst)).collect();
    let mut moved = 0;
    let mut i = 0;
    while i + 1 < n {
        let j = i + 1;
        let gap = if starts[j] {
            0
        } else {
            gap(&em.insts[i].inst, &access[i], &em.insts[j].inst, &access[j])
        };
        if gap <= 1 {
            i += 1;
            continue;
        }
        // Fill the gap at `j` (between the producer and the consumer), one at a time.
        let mut at = j;
        let mut k = j + 1;
        while at - i < gap && k < n && k <= at + LOOKAHEAD {
            if starts[k] || !passable(&em.insts[k]) {
                break;
            }
            let ok = movable(&em.insts[k])
                && !access[k].touches_cc()
                && (at..k).all(|m| access[k].independent_of(&access[m]))
                && !(em.insts[k].inst.form().has(flags::LOAD)
                    && (at..k).any(|m| writes_memory(&em.insts[m])))
                && ready_at(&em.insts, &access, at, &access[k])
                && !waits_on_pending(em, &access, at, k, begin[i], &access[k]);
            if ok {
                // Move k to position `at`: [at..k] rotates right by one.
                em.insts[at..=k].rotate_right(1);
                access[at..=k].rotate_right(1);
                at += 1;
                moved += 1;
            }
            k += 1;
        }
        i = at + 1;
    }
    moved
}

/// Whether an instruction reading `a.uses` placed at index `at` finds them written long
/// enough before (no stall of its own): nothing in the fixed latency before it writes a
/// register it reads, nothing in a predicate's latency a predicate. A branch or other
/// control transfer in between has waited for every fixed-latency result.
fn ready_at(insts: &[Emitted], access: &[Access], at: usize, a: &Access) -> bool {
    let mut back = 0;
    for m in (0..at).rev() {
        back += 1;
        if back > usize::from(PRED_LATENCY.max(FIXED_LATENCY)) {
            break;
        }
        let e = &insts[m];
        if e.target.is_some() || super::deps::is_transfer(&e.inst) {
            break;
        }
        let late = |k: &Key| match k {
            Key::P(_) => back <= usize::from(PRED_LATENCY),
            _ => back <= usize::from(FIXED_LATENCY),
        };
        if a.uses.iter().any(|k| late(k) && access[m].defs.contains(k)) {
            return false;
        }
    }
    true
}

/// The cycles `consumer` must issue after `producer` for the fixed-latency results it reads
/// (0 for none, or a variable-latency producer: a scoreboard, not a stall, orders those).
fn gap(producer: &MInst, p: &Access, consumer: &MInst, c: &Access) -> usize {
    if p.variable {
        return 0;
    }
    c.uses
        .iter()
        .filter(|k| p.defs.contains(k))
        .map(|k| match k {
            Key::Cc => CC_LATENCY,
            Key::P(_) => PRED_LATENCY,
            Key::R(_) => required_stall(producer, consumer),
        })
        .max()
        .map_or(0, usize::from)
}

/// How far [`waits_on_pending`] looks back (and ahead, to a back edge) for a
/// variable-latency operation.
const LOOKBACK: usize = 256;
/// Instructions after which a pending source read is assumed done (read barriers are
/// released some twenty cycles after issue).
const READ_WINDOW: usize = 16;

/// Whether an instruction with access `a`, now at `from`, placed at `at` would wait on a
/// scoreboard: it reads or overwrites the result of a variable-latency operation (a load,
/// MUFU, S2R...) that no instruction since has read or overwritten, or overwrites a source of
/// one (or of a store) that no instruction since has overwritten; or, for a loop's back edge,
/// such an operation follows later in its block. Moving such an instruction into the gap
/// would hold up the consumer behind the wait. (Only the schedule depends on this: the
/// control-word pass sets the waits.)
fn waits_on_pending(
    em: &EmitResult,
    access: &[Access],
    at: usize,
    from: usize,
    block_begin: usize,
    a: &Access,
) -> bool {
    let insts = &em.insts;
    let pending = |m: usize, raw: &Keys, war: &Keys| {
        let p = &access[m];
        (p.variable && p.defs.iter().any(|k| raw.contains(k)))
            || (p.late_read && p.uses.iter().any(|k| war.contains(k)))
    };
    let mut raw: Keys = a.uses.iter().chain(a.defs.iter()).copied().collect();
    let mut war: Keys = a.defs.clone();
    for m in (at.saturating_sub(LOOKBACK)..at).rev() {
        // A source is read within some twenty cycles of its operation's issue.
        if at - m > READ_WINDOW {
            war.clear();
        }
        if raw.is_empty() && war.is_empty() {
            break;
        }
        if pending(m, &raw, &war) {
            return true;
        }
        // A reader or writer of a key has waited for an earlier operation's result; a
        // writer, for an earlier read of it.
        let p = &access[m];
        raw.retain(|k| !p.uses.contains(k) && !p.defs.contains(k));
        war.retain(|k| !p.defs.contains(k));
    }
    // Operations later in the block whose results or source reads are still pending at
    // its end (at a loop's back edge) for the instruction's keys.
    let mut raw_pending: Keys = Keys::new();
    let mut war_pending: Keys = Keys::new();
    let keys: Keys = a.uses.iter().chain(a.defs.iter()).copied().collect();
    let mut back_edge = false;
    for m in from + 1..insts.len().min(from + 1 + LOOKBACK) {
        if let Some(t) = insts[m].target {
            // A branch back to this block or an earlier one: a loop's back edge.
            back_edge = em.block_start.get(&t).is_some_and(|&s| s <= block_begin);
            break;
        }
        if super::deps::is_transfer(&insts[m].inst) {
            break;
        }
        let p = &access[m];
        raw_pending.retain(|k| !p.uses.contains(k) && !p.defs.contains(k));
        war_pending.retain(|k| !p.defs.contains(k));
        if p.variable {
            raw_pending.extend(p.defs.iter().copied().filter(|k| keys.contains(k)));
        }
        if p.late_read {
            war_pending.extend(p.uses.iter().copied().filter(|k| a.defs.contains(k)));
        }
    }
    back_edge && (!raw_pending.is_empty() || !war_pending.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn independent_work_fills_the_carry_gap() {
        let mut em = EmitResult::from_text(&[
            "LEA R2.CC, R0, c[0x0][0x140]",
            "LEA.HI.X R3, R0, c[0x0][0x144], RZ",
            "IADD R4, R0, R1",
            "IADD R5, R4, R1",
            "IADD R6, R0, 0x4",
            "LDG.E R7, [R2]",
        ]);
        assert_eq!(run(&mut em), 2);
        let t = em.text();
        // R5 reads R4, just written: it stays behind the consumer.
        assert!(t[1].starts_with("IADD R4"), "{t:?}");
        assert!(t[2].starts_with("IADD R6"), "{t:?}");
        assert!(t[3].starts_with("LEA.HI.X"), "{t:?}");
        assert!(t[4].starts_with("IADD R5"), "{t:?}");
    }

    #[test]
    fn dependences_memory_and_block_starts_stop_moves() {
        let mut em = EmitResult::from_text(&[
            "IADD R2.CC, R0, R8",
            "IADD.X R3, R1, R9",
            // Writes a source of the consumer (write-after-read): stays.
            "MOV R1, RZ",
            // Memory: stays, and is passed only by independent instructions.
            "LDG.E R10, [R2]",
            // Writes the carry: stays.
            "IADD R12.CC, R0, R8",
            "IADD.X R13, R1, R9",
            "IADD R14, R0, 0x1",
        ]);
        em.block_start
            .insert(cranelift_entity::EntityRef::new(1), 6);
        assert_eq!(run(&mut em), 0, "{:?}", em.text());
    }

    #[test]
    fn loads_move_but_not_past_stores_nor_readers_of_pending_results() {
        let mut em = EmitResult::from_text(&[
            "LDG.E R8, [R6]",
            "LEA R2.CC, R0, c[0x0][0x140]",
            "LEA.HI.X R3, R0, c[0x0][0x144], RZ",
            // Reads the pending load's result: it would wait in the gap.
            "FADD R9, R8, R8",
            "LDG.E R10, [R4]",
            "STG.E [R4], R1",
            "LDG.E R11, [R6+0x4]",
        ]);
        assert_eq!(run(&mut em), 1, "{:?}", em.text());
        let t = em.text();
        assert!(t[2].starts_with("LDG.E R10"), "{t:?}");
        assert!(t[3].starts_with("LEA.HI.X"), "{t:?}");
        assert!(t[6].starts_with("LDG.E R11"), "{t:?}");
    }

    #[test]
    fn register_and_predicate_gaps_fill_too() {
        // The multiply's last step waits for the merge's result.
        let mut em = EmitResult::from_text(&[
            "XMAD R1, R0, R2, RZ",
            "XMAD.MRG R3, R0, R2.H1, RZ",
            "XMAD.PSL.CBCC R1, R0.H1, R3.H1, R1",
            "IADD R6, R7, 0x2",
            "SHL R9, R7, 0x2",
        ]);
        assert_eq!(run(&mut em), 2, "{:?}", em.text());
        assert!(em.text()[4].starts_with("XMAD.PSL"), "{:?}", em.text());
        // A guard waits for its compare.
        let mut em = EmitResult::from_text(&[
            "ISETP.LT.AND P0, PT, R4, R6, PT",
            "@P0 IADD R5, R5, 0x1",
            "IADD R8, R7, 0x3",
            "SHL R9, R7, 0x2",
        ]);
        assert_eq!(run(&mut em), 2, "{:?}", em.text());
        assert!(em.text()[3].starts_with("@P0 IADD R5"), "{:?}", em.text());
    }
}
