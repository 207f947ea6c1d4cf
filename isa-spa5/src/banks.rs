//! Register banks and the operand reuse cache of SPA 5.0: the one model of both, used by the
//! emulator's cycle count (`emu/stats.rs`), the compiler's control-word pass (which sets the
//! `.reuse` flags with [`plan_reuse`]) and its register allocator (which avoids conflicts).
//!
//! Sources: maxas (`lib/MaxAs/MaxAs.pm`): its reuse pass maps the source slots `r8`, `r20`,
//! `r39` to reuse bits 1, 2, 4, skips `RZ` and a register the instruction also writes, drops a
//! candidate when the register is written and everything at a jump, and flags only ALU-type
//! instructions (its grammar's `reuse` type: not memory, S2R, MUFU/conversions, VOTE); its
//! allocator takes a register's bank as `reg & 3` and counts, per instruction, the distinct
//! non-`RZ` source registers sharing a bank, except those in the reuse cache. Mesa NAK's
//! `set_instr_deps` (sm50.rs) puts the reuse mask at control bits 17..21. The ptxas 12.9
//! corpus (`tests/cuda/cubins`, nvdisasm) sets `.reuse` on XMAD, IADD, shifts, ISETP, FFMA,
//! FADD, LOP, MOV, DADD/DFMA and the like, never on memory instructions.
//!
//! * The register file has four banks; register `Rn` lives in bank `n % 4`. An instruction's
//!   operands are read from the banks before it dispatches; two *distinct* registers of one
//!   bank need two reads, and each extra read costs one issue cycle (a *bank conflict*).
//!   Three distinct registers of one bank cost two.
//! * Each source operand slot (A, B, C: the register fields at bits 8, 20 and 39, in the
//!   numbering nvdisasm prints `.reuse` with, [`reuse_slot`]) has an operand reuse cache. A
//!   set reuse flag (control bits 20:17, one per slot) keeps the register the instruction read
//!   in that slot; the next instruction that reads a register through the same slot gets it
//!   from the cache if it is the same register, without a bank read and so without a conflict.
//!
//! The model's choices where public sources say nothing precise (the cache rules err towards
//! fewer hits; leaving memory instructions out errs towards fewer conflicts):
//! * Only *operand-collector* instructions take part ([`collects`]): those whose reuse flags
//!   nvdisasm prints (so not conversions, MUFU, double compares, atomics, shuffles, barriers,
//!   texture fetches, whose reuse bits are a texture phase) and that execute in the ALU, FPU,
//!   XMAD, move, predicate or fp64 pipes. Memory instructions read their registers in the
//!   load/store path: ptxas never sets a reuse flag on them (the CUDA corpus) and maxas marks
//!   them as not reuse-capable; they neither use nor disturb the cache, and are not counted
//!   for conflicts.
//! * Register operands only: immediates, constant-bank operands, predicates and `RZ` read no
//!   bank. A 64-bit (or wider) operand reads every 32-bit register it covers. A register read
//!   twice by one instruction (`FMUL R0, R3, R3`) is read once.
//! * One entry per slot: a collector instruction that reads a register through a slot replaces
//!   that slot's entry (with its register if the flag is set, else with nothing); a collector
//!   instruction with no register in that slot (an immediate or constant operand, or no such
//!   operand) leaves it. maxas's allocator assumes deeper caches; one entry is the safe
//!   reading.
//! * A write to a cached register makes the entry stale; reading it through the cache would
//!   read the old value, so a stale hit is reported ([`Issue::stale`]) and costs a bank read.
//!   Every control transfer and barrier ([`clears`]) empties the cache, as in maxas: the next
//!   instruction may be reached from elsewhere, with another warp's or path's entries.
//! * The cache is per warp.

use crate::inst::{Inst, Operand};
use crate::table::{flags, Class, Form, OpKind, Role};

/// Number of register banks.
pub const NUM_BANKS: u8 = 4;
/// Number of operand slots with a reuse cache (A, B, C).
pub const NUM_SLOTS: usize = 3;

/// The bank of register `n`.
pub const fn bank(n: u8) -> u8 {
    n % NUM_BANKS
}

/// The operand reuse slot (control bits 20:17: 0 = A, 1 = B, 2 = C) of operand `k` of
/// `form`, if nvdisasm shows one. Slots follow source *position*: in the `_RC` forms the
/// register at bits 39..47 is the second source (slot B). FADD and DADD read their second
/// register through slot C. Conversions, MUFU, double compares/min-max, atomics, BAR and
/// SHFL show no reuse at all (learned by probing nvdisasm with each flag).
pub fn reuse_slot(form: &Form, k: usize) -> Option<u8> {
    const NONE: &[&str] = &[
        "F2F", "F2I", "I2F", "I2I", "FLO", "POPC", "MUFU", "DMNMX", "DSETP", "DSET", "ATOM", "RED",
        "BAR", "SHFL", "BRX",
    ];
    if NONE.iter().any(|p| form.mnemonic.starts_with(p)) || form.has(flags::TEX) {
        return None;
    }
    match form.operands.get(k)?.kind {
        OpKind::Gpr(8) => Some(0),
        OpKind::Gpr(20) if form.name == "FADD_R" || form.name == "DADD_R" => Some(2),
        OpKind::Gpr(20) => Some(1),
        OpKind::Gpr(39) if form.name.ends_with("_RC") => Some(1),
        OpKind::Gpr(39) => Some(2),
        _ => None,
    }
}

/// Whether instructions of `form` read their registers through the operand collector and
/// its reuse cache (module doc).
pub fn collects(form: &Form) -> bool {
    matches!(
        form.class,
        Class::Alu | Class::Fpu | Class::Mad | Class::Mov | Class::Pred | Class::Dbl
    ) && !form.has(flags::SIDE)
        && (0..form.operands.len()).any(|k| reuse_slot(form, k).is_some())
}

/// Whether `inst` empties the reuse cache: control transfers, reconvergence and barriers.
pub fn clears(inst: &Inst) -> bool {
    let form = inst.form();
    matches!(form.class, Class::Ctrl | Class::Sync)
        || form.has(flags::BRANCH | flags::FLOW | flags::SIDE)
}

/// One register source of a collector instruction: its reuse slot (if it has one), first
/// register and register count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SlotRead {
    /// Reuse slot (0 = A, 1 = B, 2 = C), `None` for a register read outside the slots
    /// (FFMA32I's addend, which is its destination).
    pub slot: Option<u8>,
    /// First register.
    pub reg: u8,
    /// Registers covered (1, 2 or 4).
    pub count: u8,
}

/// The register sources of `inst` that read banks, if it is a collector instruction
/// ([`collects`]); empty otherwise.
pub fn reads(inst: &Inst) -> smallvec::SmallVec<[SlotRead; 4]> {
    let mut out = smallvec::SmallVec::new();
    let form = inst.form();
    if !collects(form) {
        return out;
    }
    for (k, (f, o)) in form.operands.iter().zip(&inst.operands).enumerate() {
        if f.role != Role::Use {
            continue;
        }
        let Operand::Reg(r) = o else { continue };
        if r.is_zero() || !matches!(f.kind, OpKind::Gpr(_) | OpKind::Same(_) | OpKind::Next(_)) {
            continue;
        }
        out.push(SlotRead {
            slot: reuse_slot(form, k),
            reg: r.0,
            count: inst.width(f.width).max(1),
        });
    }
    out
}

/// The bank conflicts of reading the registers `regs` (each 32-bit register once): one per
/// read beyond the first in each bank.
pub fn conflicts(regs: impl IntoIterator<Item = u8>) -> u32 {
    let mut seen = [0u64; 4];
    let mut per_bank = [0u32; NUM_BANKS as usize];
    for r in regs {
        let (w, b) = (usize::from(r / 64), r % 64);
        if seen[w] & (1 << b) == 0 {
            seen[w] |= 1 << b;
            per_bank[usize::from(bank(r))] += 1;
        }
    }
    per_bank.iter().map(|n| n.saturating_sub(1)).sum()
}

/// The 32-bit registers of the reads `hit` does not mark as served by the cache.
fn bank_regs<'a>(
    reads: &'a [SlotRead],
    hit: impl Fn(usize) -> bool + 'a,
) -> impl Iterator<Item = u8> + 'a {
    reads
        .iter()
        .enumerate()
        .filter(move |(k, _)| !hit(*k))
        .flat_map(|(_, r)| (0..r.count).map(move |i| r.reg.wrapping_add(i)))
}

/// The bank conflicts of `inst` when no operand comes from the reuse cache.
pub fn inst_conflicts(inst: &Inst) -> u32 {
    conflicts(bank_regs(&reads(inst), |_| false))
}

/// What issuing one instruction cost in the operand banks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Issue {
    /// Bank conflicts (extra issue cycles).
    pub conflicts: u32,
    /// Register operands served by the reuse cache.
    pub hits: u32,
    /// A register read through a slot whose entry held it but was overwritten since the flag
    /// was set: the hardware would read the old value (a compiler error).
    pub stale: Option<u8>,
}

/// A cache entry: (first register, count, overwritten since cached).
type Entry = (u8, u8, bool);

/// One warp's operand reuse cache (module doc).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReuseCache {
    slots: [Option<Entry>; NUM_SLOTS],
}

impl ReuseCache {
    /// Issues `inst` with reuse flags `flags` (control bits 20:17): its bank conflicts and
    /// cache hits, and the cache state after it.
    pub fn issue(&mut self, inst: &Inst, flags: u8) -> Issue {
        let mut out = Issue::default();
        if clears(inst) {
            *self = ReuseCache::default();
            return out;
        }
        let reads = reads(inst);
        if !reads.is_empty() {
            let mut hit: smallvec::SmallVec<[bool; 4]> = smallvec::SmallVec::new();
            for r in &reads {
                let h = match (r.slot, r.slot.and_then(|s| self.slots[usize::from(s)])) {
                    (Some(_), Some((reg, count, stale))) if reg == r.reg && count == r.count => {
                        if stale {
                            out.stale = Some(r.reg);
                        }
                        !stale
                    }
                    _ => false,
                };
                hit.push(h);
            }
            out.hits = hit.iter().filter(|h| **h).count() as u32;
            out.conflicts = conflicts(bank_regs(&reads, |k| hit[k]));
            for r in &reads {
                if let Some(s) = r.slot {
                    self.slots[usize::from(s)] =
                        (flags & (1 << s) != 0).then_some((r.reg, r.count, false));
                }
            }
        }
        // Results written after the reads make entries holding them stale.
        for l in inst.defs().iter() {
            if let crate::inst::Loc::Gpr { reg, count } = l {
                self.overwrite(reg.0, count);
            }
        }
        out
    }

    /// Marks entries overlapping registers `reg..reg+count` stale.
    fn overwrite(&mut self, reg: u8, count: u8) {
        let (lo, hi) = (u16::from(reg), u16::from(reg) + u16::from(count));
        for (r, c, stale) in self.slots.iter_mut().flatten() {
            let (a, b) = (u16::from(*r), u16::from(*r) + u16::from(*c));
            if a < hi && lo < b {
                *stale = true;
            }
        }
    }
}

/// The reuse flags for a linear list of instructions: slot `s` of instruction `i` is flagged
/// when the next collector instruction reading a register through slot `s` reads the same
/// registers, nothing in between (nor `i` itself) writes them, nothing in between empties the
/// cache ([`clears`]) and no instruction after `i` up to that reader is a branch target
/// (`entry[j]`: `j` may be reached other than from `j - 1`). Following [`ReuseCache`], every
/// flag set here is a hit when the instructions run in order.
pub fn plan_reuse(insts: &[Inst], entry: &[bool]) -> Vec<u8> {
    let mut out = vec![0u8; insts.len()];
    // Per slot: the instruction whose read may be kept, its register and count, whether
    // still valid.
    let mut open: [Option<(usize, u8, u8)>; NUM_SLOTS] = [None; NUM_SLOTS];
    for (j, inst) in insts.iter().enumerate() {
        if entry.get(j).copied().unwrap_or(false) || clears(inst) {
            open = [None; NUM_SLOTS];
        }
        if clears(inst) {
            continue;
        }
        for r in reads(inst) {
            let Some(s) = r.slot else { continue };
            let s = usize::from(s);
            if let Some((i, reg, count)) = open[s] {
                if reg == r.reg && count == r.count {
                    out[i] |= 1 << s;
                }
            }
            open[s] = Some((j, r.reg, r.count));
        }
        for l in inst.defs().iter() {
            if let crate::inst::Loc::Gpr { reg, count } = l {
                let (lo, hi) = (u16::from(reg.0), u16::from(reg.0) + u16::from(count));
                for e in &mut open {
                    if let Some((_, r, c)) = *e {
                        let (a, b) = (u16::from(r), u16::from(r) + u16::from(c));
                        if a < hi && lo < b {
                            *e = None;
                        }
                    }
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inst::Op;

    fn parse(text: &str) -> Inst {
        crate::asm::parse::parse_inst(text, 0)
            .unwrap_or_else(|e| panic!("{text}: {e}"))
            .inst
    }

    #[test]
    fn banks_are_register_numbers_mod_four() {
        assert_eq!(bank(0), 0);
        assert_eq!(bank(5), 1);
        assert_eq!(bank(255), 3);
        assert_eq!(conflicts([0, 4, 8]), 2);
        assert_eq!(conflicts([0, 1, 2]), 0);
        assert_eq!(conflicts([3, 3, 7]), 1);
    }

    #[test]
    fn three_source_conflicts_count_distinct_registers_per_bank() {
        assert_eq!(inst_conflicts(&parse("FFMA R0, R1, R5, R9;")), 2);
        assert_eq!(inst_conflicts(&parse("FFMA R0, R1, R5, R2;")), 1);
        assert_eq!(inst_conflicts(&parse("FFMA R0, R1, R2, R3;")), 0);
        assert_eq!(inst_conflicts(&parse("FFMA R0, R1, R1, R1;")), 0);
        // RZ and immediates read no bank.
        assert_eq!(inst_conflicts(&parse("FFMA R0, R4, RZ, R8;")), 1);
        assert_eq!(inst_conflicts(&parse("IADD R0, R4, 0x4;")), 0);
        // Memory instructions are outside the model.
        assert_eq!(inst_conflicts(&parse("STG.E [R4], R8;")), 0);
    }

    #[test]
    fn wide_operands_read_every_register() {
        // R2:R3 and R6:R7 share banks 2 and 3.
        assert_eq!(inst_conflicts(&parse("DADD R0, R2, R6;")), 2);
        assert_eq!(inst_conflicts(&parse("DADD R0, R2, R4;")), 0);
    }

    #[test]
    fn the_cache_serves_the_flagged_slot_once() {
        let mut c = ReuseCache::default();
        let a = parse("FFMA R0, R4, R8, R12;");
        let b = parse("FFMA R1, R4, R9, R12;");
        // Slot A flagged: the next reader of R4 in slot A hits; R12 in slot C conflicts.
        let i = c.issue(&a, 0b001);
        assert_eq!((i.conflicts, i.hits), (2, 0));
        let i = c.issue(&b, 0);
        assert_eq!((i.conflicts, i.hits), (0, 1));
        // Not flagged again: no hit on the third.
        let i = c.issue(&b, 0);
        assert_eq!((i.conflicts, i.hits), (1, 0));
    }

    #[test]
    fn a_write_makes_the_entry_stale_and_a_transfer_empties_it() {
        let mut c = ReuseCache::default();
        c.issue(&parse("FADD R0, R4, R8;"), 0b001);
        c.issue(&parse("MOV R4, R9;"), 0);
        let i = c.issue(&parse("FADD R1, R4, R9;"), 0);
        assert_eq!(i.stale, Some(4));
        assert_eq!(i.hits, 0);
        c.issue(&parse("FADD R0, R4, R8;"), 0b001);
        c.issue(&Inst::build(Op::SYNC, &[]), 0);
        let i = c.issue(&parse("FADD R1, R4, R9;"), 0);
        assert_eq!((i.hits, i.stale), (0, None));
        // Memory instructions leave the cache alone.
        c.issue(&parse("FADD R0, R4, R8;"), 0b001);
        c.issue(&parse("LDG.E R20, [R4];"), 0);
        assert_eq!(c.issue(&parse("FADD R1, R4, R9;"), 0).hits, 1);
    }

    #[test]
    fn plans_agree_with_the_cache() {
        let prog: Vec<Inst> = [
            "FFMA R0, R4, R8, R12;",
            "FFMA R1, R4, R9, R12;",
            "LDG.E R20, [R4];",
            "FFMA R2, R4, R10, R12;",
            "MOV R12, R3;",
            "FFMA R3, R4, R11, R12;",
            "FFMA R3, R5, R11, R13;",
        ]
        .iter()
        .map(|t| parse(t))
        .collect();
        let flags = plan_reuse(&prog, &[false; 7]);
        assert_eq!(flags, vec![0b101, 0b101, 0, 0b001, 0, 0b010, 0]);
        let mut c = ReuseCache::default();
        let hits: Vec<u32> = prog
            .iter()
            .zip(&flags)
            .map(|(i, f)| {
                let r = c.issue(i, *f);
                assert_eq!(r.stale, None);
                r.hits
            })
            .collect();
        assert_eq!(hits, vec![0, 2, 0, 2, 0, 1, 1]);
        // A branch target between two readers forbids the flag.
        let mut entry = [false; 7];
        entry[1] = true;
        assert_eq!(plan_reuse(&prog, &entry)[0], 0);
    }
}
