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
//!   fixed latencies are at most 13);
//! - a variable-latency instruction with register results sets a *write* barrier covering its
//!   results and a *read* barrier covering its register sources (released when they are
//!   read, long before the result); one without results (stores, `RED`) that reads
//!   registers sets a read barrier covering those;
//!   a later reader of a result, writer of a result (WAW) or writer of a source (WAR) waits on
//!   the barrier (a later *reader* of a source does not: two loads from one address register
//!   stay in flight together); when all six barriers are busy the oldest is waited on;
//! - every control transfer (`BRA`, `SYNC`, `EXIT`, `BAR`) drains everything: it waits on
//!   all barriers and stalls until every fixed-latency result is written, so each block starts
//!   from a clean state whichever way it is entered;
//! - `serial` mode: every instruction stalls 15 cycles and waits on both barriers used.
//!
//! Guarantees: every control field is in range (stall <= 15, barriers < 6).

use ilc_passes::FastHashMap as HashMap;

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

/// The register keys of a location list.
pub fn keys(locs: impl Iterator<Item = Loc>) -> Vec<Key> {
    let mut v = Vec::new();
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

/// Whether `i` transfers control (the state is drained before it).
pub fn is_transfer(i: &MInst) -> bool {
    matches!(
        i.op,
        Op::BRA | Op::SYNC | Op::EXIT | Op::BRK | Op::CONT | Op::RET
    ) || i.form().mnemonic.starts_with("BAR")
}

#[derive(Default, Clone)]
struct Sb {
    busy: bool,
    age: u64,
    /// Registers the pending instruction writes (read or written later: wait).
    defs: Vec<Key>,
    /// Registers it reads late (written later: wait; read later: no hazard).
    srcs: Vec<Key>,
}

/// Computes the control of every instruction.
pub fn compute(insts: &[MInst], serial: bool) -> Vec<Control> {
    let mut ctl = vec![
        Control {
            stall: 1,
            yield_: false,
            wr_bar: None,
            rd_bar: None,
            wait_mask: 0,
            reuse: 0
        };
        insts.len()
    ];
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
    let mut ready: HashMap<Key, u64> = HashMap::default();
    let mut sbs: Vec<Sb> = vec![Sb::default(); 6];
    let mut t: u64 = 0;
    let mut counter = 0u64;
    for idx in 0..insts.len() {
        ilc_passes::budget::tick();
        let inst = &insts[idx];
        let uses = keys(inst.uses().iter());
        let defs = keys(inst.defs().iter());
        let transfer = is_transfer(inst);
        // Scoreboard waits.
        let mut wait = 0u8;
        for (b, sb) in sbs.iter().enumerate() {
            if !sb.busy {
                continue;
            }
            let hit = transfer
                || uses.iter().any(|k| sb.defs.contains(k))
                || defs
                    .iter()
                    .any(|k| sb.defs.contains(k) || sb.srcs.contains(k));
            if hit {
                wait |= 1 << b;
            }
        }
        // Fixed latencies: GPR sources are read `source_read_delay` cycles after issue.
        let delay = u64::from(latency::source_read_delay(inst));
        let need = if transfer {
            ready.values().copied().max().unwrap_or(0)
        } else {
            let reads = uses.iter().filter_map(|k| {
                let r = *ready.get(k)?;
                Some(if matches!(k, Key::R(_)) {
                    r.saturating_sub(delay)
                } else {
                    r
                })
            });
            reads
                .chain(defs.iter().filter_map(|k| ready.get(k).copied()))
                .max()
                .unwrap_or(0)
        };
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
        let srcs: Vec<Key> = uses
            .iter()
            .copied()
            .filter(|k| !matches!(k, Key::P(_)))
            .collect();
        let take = |wait: &mut u8, taken: u8| -> usize {
            let free = (0..6)
                .find(|&b| !sbs[b].busy && (*wait | taken) & (1 << b) == 0)
                .or_else(|| (0..6).find(|&b| !sbs[b].busy && taken & (1 << b) == 0));
            match free {
                Some(b) => b,
                None => {
                    let b = (0..6)
                        .filter(|&b| taken & (1 << b) == 0)
                        .min_by_key(|&b| sbs[b].age)
                        .unwrap_or(0);
                    *wait |= 1 << b;
                    b
                }
            }
        };
        if wants_wr {
            // Results on a write barrier; register sources on a read barrier of their own,
            // released once they are read, so overwriting a source does not wait for the
            // result (TEX/LDG address registers are often dead right after).
            let b = take(&mut wait, 0);
            counter += 1;
            let gpr_srcs = !srcs.is_empty() && srcs.iter().any(|k| !defs.contains(k));
            let r = gpr_srcs.then(|| take(&mut wait, 1 << b));
            counter += 1;
            sbs[b] = Sb {
                busy: true,
                age: counter,
                defs: defs.clone(),
                srcs: if r.is_some() {
                    Vec::new()
                } else {
                    srcs.clone()
                },
            };
            ctl[idx].wr_bar = Some(b as u8);
            if let Some(r) = r {
                sbs[r] = Sb {
                    busy: true,
                    age: counter,
                    defs: Vec::new(),
                    srcs,
                };
                ctl[idx].rd_bar = Some(r as u8);
            }
        } else if wants_rd {
            let b = take(&mut wait, 0);
            counter += 1;
            sbs[b] = Sb {
                busy: true,
                age: counter,
                defs: defs.clone(),
                srcs,
            };
            ctl[idx].rd_bar = Some(b as u8);
        }
        ctl[idx].wait_mask = wait;
        if !var {
            for k in &defs {
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
    ctl
}
