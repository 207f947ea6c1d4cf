//! An independent replay of the control words the backend emits: every kernel of the test
//! corpus is compiled and its instruction stream is run through a small timing model that
//! knows nothing of the backend's deps pass:
//! - an instruction issues `stall` cycles after the previous one;
//! - a fixed-latency result (no `VAR_LAT` flag in the isa-spa5 table) is readable after the
//!   figures of `isa_spa5::latency` (the one timing model, measured on ptxas): a GPR
//!   `FIXED_LATENCY` cycles after issue, less the consumer's `source_read_delay` (memory,
//!   MUFU, conversions read their sources late), a predicate after `pred_latency`, the
//!   condition code after `CC_LATENCY`;
//! - a variable-latency result is readable only after the consumer waited on the barrier
//!   the producer set (`&wrN`); a register read by a pending store/variable-latency op
//!   without a write barrier may be overwritten only after waiting on its `&rdN`;
//! - a store without a read barrier is allowed only when nothing overwrites its sources
//!   before the warp's unguarded `EXIT`, with no other control transfer on the way;
//! - control transfers start a new state (the target may be entered from elsewhere), so
//!   everything must be complete before a `BRA`/`SYNC`/`EXIT`/`BAR`; except a `BAR` or a
//!   guarded `EXIT` (the warp goes on at the next instruction), before which only the results
//!   must be complete (source reads stay pending past it), and a guarded
//!   forward `BRA`, before which only the fixed-latency results must be complete: what is
//!   pending there stays pending on both paths (the target's state is the union of its
//!   fall-through state and every such branch's); the same for the `SYNC`s of an `SSY` region
//!   holding only straight-line code and ending with an unguarded `SYNC` right before its
//!   target (no other path of the region can run between such a `SYNC` and the target);
//! - a backward `BRA` (a loop's back edge) need not wait for anything but the fixed-latency
//!   results: the state at its target is the union of the fall-through state and what every
//!   back edge to it brings, found by replaying until no back edge brings anything new.
//!
//! A violation names the kernel, the instruction index and the register.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use ilc::spa5::{compile, Spa5Options};
use isa_spa5::latency;
use isa_spa5::{Control, Inst, Loc};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum K {
    R(u8),
    P(u8),
    Cc,
}

fn keys(l: Loc) -> Vec<K> {
    match l {
        Loc::Gpr { reg, count } => (0..count).map(|k| K::R(reg.0 + k)).collect(),
        Loc::Pred(p) => vec![K::P(p.0)],
        Loc::Cc => vec![K::Cc],
        Loc::Pr => (0..7).map(K::P).collect(),
    }
}

fn transfer(i: &Inst) -> bool {
    let m = i.form().mnemonic;
    m == "BRA" || m == "SYNC" || m == "EXIT" || m.starts_with("BAR")
}

/// Pending variable-latency writes (register, barrier) and source reads (register, barrier,
/// the reading operation's class).
type Pending = (HashSet<(K, u8)>, HashSet<(K, u8, isa_spa5::table::Class)>);

/// Replays `prog`; returns the first hazard found. The states at loop heads start empty and
/// grow by what the back edges bring until they cover it.
fn replay(prog: &[(Inst, Control)]) -> Result<(), String> {
    let mut heads: HashMap<usize, Pending> = HashMap::new();
    for _ in 0..16 {
        let mut grown = false;
        for (head, (w, r)) in replay_once(prog, &heads)? {
            let at = heads.entry(head).or_default();
            grown |= !w.is_subset(&at.0) || !r.is_subset(&at.1);
            at.0.extend(w);
            at.1.extend(r);
        }
        if !grown {
            return Ok(());
        }
    }
    Err("the loop heads' states do not converge".into())
}

/// One replay with the states `heads` assumed at loop heads; returns what each back edge
/// brings to its head.
fn replay_once(
    prog: &[(Inst, Control)],
    heads: &HashMap<usize, Pending>,
) -> Result<Vec<(usize, Pending)>, String> {
    let mut t: u64 = 0;
    let mut ready: HashMap<K, u64> = HashMap::new();
    let mut wr: HashSet<(K, u8)> = HashSet::new();
    let mut rd: HashSet<(K, u8, isa_spa5::table::Class)> = HashSet::new();
    // State carried by guarded forward branches to their targets.
    let mut carried: HashMap<usize, Vec<Pending>> = HashMap::new();
    let mut back = Vec::new();
    // Sources of stores without a read barrier: register -> the store's index.
    let mut unguarded: HashMap<K, usize> = HashMap::new();
    for (idx, (i, c)) in prog.iter().enumerate() {
        for (w, r) in carried.remove(&idx).unwrap_or_default() {
            wr.extend(w);
            rd.extend(r);
        }
        if let Some((w, r)) = heads.get(&idx) {
            wr.extend(w.iter().copied());
            rd.extend(r.iter().copied());
        }
        // Waits release barriers.
        wr.retain(|(_, b)| c.wait_mask & (1 << *b) == 0);
        rd.retain(|(_, b, _)| c.wait_mask & (1 << *b) == 0);
        let uses: Vec<K> = i.uses().iter().flat_map(keys).collect();
        let defs: Vec<K> = i.defs().iter().flat_map(keys).collect();
        for k in &uses {
            if let Some((_, b)) = wr.iter().find(|(w, _)| w == k) {
                return Err(format!(
                    "#{idx} {i:?} reads {k:?} before waiting on barrier {b}"
                ));
            }
            if let Some(&r) = ready.get(k) {
                let delay = match k {
                    K::R(_) => u64::from(latency::source_read_delay(i)),
                    _ => 0,
                };
                if r > t + delay {
                    return Err(format!(
                        "#{idx} {i:?} reads {k:?} at cycle {t}, ready at {r}"
                    ));
                }
            }
        }
        for k in &defs {
            // A variable-latency write of the reader's class comes after that pipe's reads.
            let read = rd
                .iter()
                .find(|(r, _, class)| {
                    r == k && !(i.is_variable_latency() && *class == i.form().class)
                })
                .map(|(_, b, _)| b);
            let write = wr.iter().find(|(w, _)| w == k).map(|(_, b)| b);
            if let Some(b) = write.or(read) {
                return Err(format!(
                    "#{idx} {i:?} overwrites {k:?} still used by barrier {b}"
                ));
            }
            if let Some(s) = unguarded.get(k) {
                return Err(format!(
                    "#{idx} {i:?} overwrites {k:?}, read by store #{s} without a read barrier"
                ));
            }
        }
        if transfer(i) && !unguarded.is_empty() {
            let exit = i.form().mnemonic == "EXIT" && i.guard == isa_spa5::Pred::TRUE;
            if !exit {
                return Err(format!(
                    "#{idx} control transfer before a store without a read barrier ends the warp"
                ));
            }
            // The warp ends here; what follows is entered by other paths.
            unguarded.clear();
        }
        let forward = forward_target(prog, idx).or_else(|| straight_sync_target(prog, idx));
        if let Some(target) = forward {
            carried
                .entry(target)
                .or_default()
                .push((wr.clone(), rd.clone()));
        }
        let backward = backward_target(prog, idx);
        if let Some(head) = backward {
            back.push((head, (wr.clone(), rd.clone())));
        }
        let guarded_exit = i.form().mnemonic == "EXIT" && i.guard != isa_spa5::Pred::TRUE;
        let goes_on = guarded_exit || i.form().mnemonic.starts_with("BAR");
        if transfer(i) && forward.is_none() && backward.is_none() {
            let reads = rd
                .iter()
                .next()
                .filter(|_| !goes_on)
                .map(|(k, b, _)| (k, b));
            if let Some((k, b)) = wr.iter().next().map(|(k, b)| (k, b)).or(reads) {
                return Err(format!(
                    "#{idx} control transfer with {k:?} pending on barrier {b}"
                ));
            }
        }
        if transfer(i) {
            if let Some((k, r)) = ready.iter().find(|(_, r)| **r > t + u64::from(c.stall)) {
                return Err(format!(
                    "#{idx} control transfer before {k:?} is ready ({r})"
                ));
            }
        }
        let var = i.is_variable_latency();
        if var {
            match (c.wr_bar, c.rd_bar) {
                (Some(b), r) => {
                    for k in &defs {
                        wr.insert((*k, b));
                    }
                    // Sources: only overwriting them must wait, on their own read barrier
                    // if there is one, else on the write barrier (the result comes back
                    // after the sources were read).
                    for k in uses.iter().filter(|k| !matches!(k, K::P(_))) {
                        rd.insert((*k, r.unwrap_or(b), i.form().class));
                    }
                }
                (None, Some(b)) => {
                    for k in uses.iter().filter(|k| !matches!(k, K::P(_))) {
                        rd.insert((*k, b, i.form().class));
                    }
                }
                (None, None) if !defs.is_empty() => {
                    return Err(format!(
                        "#{idx} {i:?}: variable-latency result without a write barrier"
                    ));
                }
                _ => {}
            }
        } else {
            if i.is_memory_store() {
                match c.rd_bar {
                    Some(b) => {
                        for k in uses.iter().filter(|k| !matches!(k, K::P(_))) {
                            rd.insert((*k, b, i.form().class));
                        }
                    }
                    None => {
                        for k in uses.iter().filter(|k| !matches!(k, K::P(_))) {
                            unguarded.insert(*k, idx);
                        }
                    }
                }
            }
            for k in &defs {
                let lat = match k {
                    K::R(_) => u64::from(latency::FIXED_LATENCY),
                    K::P(_) => u64::from(latency::pred_latency()),
                    K::Cc => u64::from(latency::CC_LATENCY),
                };
                ready.insert(*k, t + lat);
            }
        }
        if transfer(i) {
            ready.clear();
            t += u64::from(c.stall);
            continue;
        }
        t += u64::from(c.stall);
    }
    Ok(back)
}

/// The target of a guarded `BRA` at `idx` when it lies ahead.
fn forward_target(prog: &[(Inst, Control)], idx: usize) -> Option<usize> {
    let i = &prog[idx].0;
    if i.form().mnemonic != "BRA" || i.guard == isa_spa5::Pred::TRUE {
        return None;
    }
    target_ahead(prog, idx)
}

/// For a `SYNC` at `idx` inside an `SSY` region of straight-line code (nothing but `SYNC`s
/// transfers control in it) that ends with an unguarded `SYNC` right before the `SSY`
/// target: that target.
fn straight_sync_target(prog: &[(Inst, Control)], idx: usize) -> Option<usize> {
    if prog[idx].0.form().mnemonic != "SYNC" {
        return None;
    }
    let jumps = |i: &Inst| {
        let m = i.form().mnemonic;
        m != "SYNC" && (transfer(i) || i.is_branch() || i.is_terminator())
    };
    let ssy = (0..idx).rev().find(|&k| {
        let i = &prog[k].0;
        i.form().mnemonic == "SSY" || jumps(i)
    })?;
    if prog[ssy].0.form().mnemonic != "SSY" {
        return None;
    }
    let end = target_ahead(prog, ssy)?;
    let last = &prog[end - 1].0;
    let straight = prog[ssy + 1..end].iter().all(|(i, _)| !jumps(i));
    (end > idx && straight && last.form().mnemonic == "SYNC" && last.guard == isa_spa5::Pred::TRUE)
        .then_some(end)
}

/// The target of a `BRA` at `idx` when it lies behind (or at) it.
fn backward_target(prog: &[(Inst, Control)], idx: usize) -> Option<usize> {
    if prog[idx].0.form().mnemonic != "BRA" {
        return None;
    }
    target(prog, idx).filter(|&t| t <= idx)
}

/// The instruction a branch at `idx` names, when it lies ahead.
fn target_ahead(prog: &[(Inst, Control)], idx: usize) -> Option<usize> {
    target(prog, idx).filter(|&t| t > idx)
}

/// The instruction a branch at `idx` names.
fn target(prog: &[(Inst, Control)], idx: usize) -> Option<usize> {
    let i = &prog[idx].0;
    let Some(isa_spa5::Operand::Target(rel)) = i.operands.first() else {
        return None;
    };
    let addr = isa_spa5::program::inst_addr(idx) as i64 + 8 + i64::from(*rel);
    let t = isa_spa5::program::addr_inst(u64::try_from(addr).ok()?)?;
    (t < prog.len()).then_some(t)
}

fn corpus() -> Vec<PathBuf> {
    let mut v = ilc_test_support::corpus("tests/kernels", "il", 60);
    v.push(root().join("tests/examples/saxpy.il"));
    v.sort();
    v
}

fn check_all(opts: &Spa5Options) -> usize {
    let mut checked = 0;
    for k in corpus() {
        let src = std::fs::read(&k).unwrap();
        let Ok(fe) = ilc::Compiler::default().front(&src) else {
            continue;
        };
        let Ok(func) = ilc::lower::lower(&fe.program) else {
            continue;
        };
        let Ok(out) = compile(&func, opts) else {
            continue;
        };
        if let Err(e) = replay(&out.insts) {
            panic!(
                "{}: {e}\n{}",
                k.display(),
                ilc::spa5::listing::listing_spa(&out.insts)
            );
        }
        checked += 1;
    }
    checked
}

#[test]
fn control_words_respect_latencies_and_barriers() {
    let n = check_all(&Spa5Options::default());
    assert!(n >= 40, "only {n} kernels checked");
    let n = check_all(&Spa5Options {
        assume_in_bounds: true,
        ..Default::default()
    });
    assert!(n >= 40);
}

#[test]
fn serial_mode_waits_on_everything() {
    let n = check_all(&Spa5Options {
        serial: true,
        ..Default::default()
    });
    assert!(n >= 40);
}

#[test]
fn replay_catches_a_missing_wait() {
    // LDG R0 then a use of R0 without waiting: must be flagged.
    let ld = Inst::ldg(
        isa_spa5::mods::Size::B32,
        isa_spa5::Reg(0),
        isa_spa5::Reg(2),
        0,
    );
    let add = Inst::iadd(isa_spa5::Reg(1), isa_spa5::Reg(0), isa_spa5::Reg(0));
    let c = Control {
        stall: 1,
        yield_: false,
        wr_bar: Some(0),
        rd_bar: None,
        wait_mask: 0,
        reuse: 0,
    };
    let plain = Control { wr_bar: None, ..c };
    assert!(replay(&[(ld, c), (add, plain)]).is_err());
    assert!(replay(&[
        (ld, c),
        (
            add,
            Control {
                wait_mask: 1,
                ..plain
            }
        )
    ])
    .is_ok());
    // A fixed-latency result read one cycle later is flagged too.
    let a = Inst::iadd(isa_spa5::Reg(1), isa_spa5::Reg(3), isa_spa5::Reg(3));
    assert!(replay(&[(a, plain), (add, plain)]).is_ok());
    let b = Inst::iadd(isa_spa5::Reg(4), isa_spa5::Reg(1), isa_spa5::Reg(1));
    assert!(replay(&[(a, plain), (b, plain)]).is_err());
    assert!(replay(&[(a, Control { stall: 6, ..plain }), (b, plain)]).is_ok());
}

#[test]
fn replay_carries_a_load_across_a_back_edge() {
    // head: IADD R1, R0, R0; LDG R0, [R2]; @P0 BRA head; EXIT. The load is still in flight
    // when the loop goes round: the head's read of R0 must wait on its barrier.
    let rel = isa_spa5::program::inst_addr(0) as i64 - (isa_spa5::program::inst_addr(2) as i64 + 8);
    let mut bra = Inst::bra(0).guarded(isa_spa5::Pred::p(0));
    bra.operands[0] = isa_spa5::Operand::Target(rel as i32);
    let ld = Inst::ldg(
        isa_spa5::mods::Size::B32,
        isa_spa5::Reg(0),
        isa_spa5::Reg(2),
        0,
    );
    let add = Inst::iadd(isa_spa5::Reg(1), isa_spa5::Reg(0), isa_spa5::Reg(0));
    let plain = Control {
        stall: 13,
        yield_: false,
        wr_bar: None,
        rd_bar: None,
        wait_mask: 0,
        reuse: 0,
    };
    let prog = |head_wait: u8| {
        [
            (
                add,
                Control {
                    wait_mask: head_wait,
                    ..plain
                },
            ),
            (
                ld,
                Control {
                    wr_bar: Some(0),
                    ..plain
                },
            ),
            (bra, plain),
            (
                Inst::exit(),
                Control {
                    wait_mask: 1,
                    ..plain
                },
            ),
        ]
    };
    let err = replay(&prog(0)).expect_err("the head reads R0 in flight");
    assert!(err.starts_with("#0 "), "{err}");
    replay(&prog(1)).unwrap();
}
