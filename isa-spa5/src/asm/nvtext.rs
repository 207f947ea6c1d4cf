//! nvdisasm's text of a whole code section: what `nvdisasm` prints after a `.text.NAME:`
//! line, so a listing of our code can be compared with NVIDIA's byte for byte.
//!
//! Beyond the instruction text of [`super::print_inst`] this adds nvdisasm's layout:
//!
//! - `        /*0008*/` then the guard right-aligned in a 19-column field (`@!P0 `);
//! - branch targets (`BRA`, `SSY`, `PBK`, `PCNT`, `CAL`) as `` `(.L_x_N) `` labels, numbered
//!   in order of first reference, each printed as `.L_x_N:` before the instruction it names
//!   (a target at a group's control word names the group's first instruction), and a last
//!   label after the final instruction; in a module of several sections
//!   ([`nvdisasm_sections`]) the targets of all sections are numbered first, in section
//!   order, then the end labels;
//! - `SYNC` annotated with its reconvergence label, `(*"TARGET= .L_x_N "*)`, one column after
//!   the longest other line (at least column 84); the label is found as nvdisasm does, by
//!   carrying the `SSY` stack along the control flow;
//! - dual-issued pairs (stall 0 on the first) as `{ A ;` / `B }`;
//! - no closing `NOP`s when the code has an `SSY` (nvdisasm leaves them out then), and a
//!   space after special float immediates (`+INF , PT`).
//!
//! Checked against nvdisasm 11.8 on every ilc kernel of the corpus (tools/tests/round_trips.rs).
//! ptxas-only forms are not reproduced: `BRK`, `CONT` and `SYNC` annotated with
//! `(*"BRANCH_TARGETS ..."*)` and their labels, and `CAL` to named subroutines.
//!
//! Requires: `insts[k]` is the instruction at byte address [`inst_addr`]`(k)` (control words
//! skipped), as in a packed code section.

use std::collections::HashMap;
use std::fmt::Write;

use super::print::{print_inst_named, PrintCtx};
use crate::control::Control;
use crate::inst::{Inst, Op, Operand};
use crate::program::inst_addr;
use crate::table::OpKind;

/// The absolute byte target of a branch at `addr` and the index of its target operand.
fn branch_target(inst: &Inst, addr: u64) -> Option<(usize, u64)> {
    if !inst.is_branch() {
        return None;
    }
    let form = inst.form();
    form.operands
        .iter()
        .zip(inst.operands.iter())
        .enumerate()
        .find_map(|(k, (f, o))| match (f.kind, o) {
            (OpKind::Abs, Operand::Target(t)) => Some((k, u64::from(*t as u32))),
            (_, Operand::Target(t)) => Some((k, (addr as i64 + 8 + i64::from(*t)) as u64)),
            _ => None,
        })
}

/// A target at a control word names the group's first instruction.
fn label_addr(target: u64) -> u64 {
    if target.is_multiple_of(32) {
        target + 8
    } else {
        target
    }
}

/// nvdisasm's lines for `insts` (see the module documentation), each ending in `\n`: the
/// text of a module's only code section.
pub fn nvdisasm_section(insts: &[(Inst, Control)]) -> String {
    let labels = branch_targets(insts).0.len();
    section_text(insts, 0, labels)
}

/// nvdisasm's text of each code section of a module, in order. nvdisasm numbers labels
/// across the module: first the branch targets of every section in order, then each
/// section's end label (a second section's first target is `.L_x_N` after the first's
/// targets, not `.L_x_0`).
pub fn nvdisasm_sections(sections: &[&[(Inst, Control)]]) -> Vec<String> {
    let counts: Vec<usize> = sections.iter().map(|s| branch_targets(s).0.len()).collect();
    let targets: usize = counts.iter().sum();
    let mut first = 0;
    sections
        .iter()
        .zip(&counts)
        .enumerate()
        .map(|(k, (insts, &n))| {
            let text = section_text(insts, first, targets + k);
            first += n;
            text
        })
        .collect()
}

/// A section's labels (label address -> number from 0, in order of first reference) and
/// each instruction's target operand and label address.
type BranchTargets = (HashMap<u64, usize>, Vec<Option<(usize, u64)>>);

fn branch_targets(insts: &[(Inst, Control)]) -> BranchTargets {
    let mut labels: HashMap<u64, usize> = HashMap::new();
    let mut targets: Vec<Option<(usize, u64)>> = Vec::with_capacity(insts.len());
    for (k, (inst, _)) in insts.iter().enumerate() {
        let t = branch_target(inst, inst_addr(k)).map(|(op, t)| (op, label_addr(t)));
        if let Some((_, t)) = t {
            let n = labels.len();
            labels.entry(t).or_insert(n);
        }
        targets.push(t);
    }
    (labels, targets)
}

/// One section's text, its branch targets numbered from `first` and its end label
/// `end_label`.
fn section_text(insts: &[(Inst, Control)], first: usize, end_label: usize) -> String {
    let addrs: Vec<u64> = (0..insts.len()).map(inst_addr).collect();
    // Labels in order of first reference.
    let (mut labels, targets) = branch_targets(insts);
    for n in labels.values_mut() {
        *n += first;
    }
    let (sync_target, reachable) = sync_targets(insts, &targets);
    let name = |t: u64| format!(".L_x_{}", labels.get(&t).copied().unwrap_or(end_label));
    // With an SSY in the code nvdisasm works from the control flow and leaves out what the
    // entry cannot reach (the NOPs closing the section, code after an unconditional branch),
    // unless the code has flow this reading does not follow.
    let cfg_mode = insts.iter().any(|(i, _)| i.op == Op::SSY)
        && !insts.iter().any(|(i, _)| {
            (i.is_branch() || i.is_terminator())
                && !matches!(i.op, Op::BRA | Op::SSY | Op::SYNC | Op::EXIT)
        });
    let shown = insts.len();
    // ptxas closes code with `BRA` to itself; nvdisasm prints the NOPs after it as `NOP;`.
    let closing = insts[..shown]
        .iter()
        .enumerate()
        .rposition(|(k, (i, _))| {
            i.op == Op::BRA && i.guard.is_true() && targets[k].is_some_and(|(_, t)| t == addrs[k])
        })
        .filter(|&b| insts[b + 1..shown].iter().all(|(i, _)| i.op == Op::NOP));
    let mut out = String::new();
    // Lines (labels included) and the SYNC lines waiting for their annotation column.
    let mut lines: Vec<String> = Vec::with_capacity(shown + 8);
    let mut annotated: Vec<(usize, String)> = Vec::new();
    let mut in_pair = false;
    // The last instruction printed, for the section-end label and dual-issue pairs.
    let last = (0..shown)
        .rev()
        .find(|&k| !cfg_mode || reachable[k])
        .unwrap_or(0);
    for (k, (inst, c)) in insts[..shown].iter().enumerate() {
        let a = addrs[k];
        if let Some(n) = labels.get(&a) {
            lines.push(format!(".L_x_{n}:"));
        }
        if cfg_mode && !reachable[k] {
            continue;
        }
        let ctx = PrintCtx {
            addr: a,
            reuse: c.reuse,
        };
        let mut unguarded = *inst;
        unguarded.guard = crate::regs::Pred::TRUE;
        let target_op = targets[k];
        let text = print_inst_named(&unguarded, &ctx, &|op| {
            target_op
                .filter(|(o, _)| *o == op)
                .map(|(_, t)| format!("`({})", name(t)))
        });
        let text = special_float_spacing(text);
        let guard = if inst.guard.is_true() {
            String::new()
        } else {
            format!("@{} ", inst.guard)
        };
        // The first of a dual-issued pair: stall 0 and a next instruction (ptxas's padding
        // NOPs have stall 0 too and are not paired).
        let opens = !in_pair
            && c.stall == 0
            && k < last
            && inst.op != Op::NOP
            && insts[k + 1].0.op != Op::NOP;
        let lead = if opens {
            format!("         {{{guard:>9}")
        } else {
            format!("{guard:>19}")
        };
        let mut line = format!("        /*{a:04x}*/{lead}{text}");
        if in_pair {
            line.push_str("         }");
        } else if closing.is_some_and(|b| k > b) {
            line.push(';');
        } else if let Some(t) = sync_target.get(&k).filter(|_| inst.op == Op::SYNC) {
            annotated.push((lines.len(), name(*t)));
        } else {
            line.push_str(" ;");
        }
        lines.push(line);
        in_pair = opens;
    }
    // Annotations start one column after the longest other line (at least column 84).
    let width = lines
        .iter()
        .enumerate()
        .filter(|(i, _)| !annotated.iter().any(|(a, _)| a == i))
        .map(|(_, l)| l.len() - l.find("        /*").unwrap_or(0))
        .max()
        .unwrap_or(0)
        .max(83);
    for (i, label) in annotated {
        let l = &mut lines[i];
        let start = l.find("        /*").unwrap_or(0);
        while l.len() - start < width {
            l.push(' ');
        }
        let _ = write!(l, "(*\"TARGET= {label} \"*);");
    }
    for l in lines {
        out.push_str(&l);
        out.push('\n');
    }
    let _ = writeln!(out, ".L_x_{end_label}:");
    out
}

/// The index of the instruction at byte address `a` (a control word's address names the
/// group's first instruction).
fn index_of(a: u64) -> usize {
    let a = label_addr(a);
    (a / 32) as usize * 3 + ((a % 32) / 8) as usize - 1
}

/// The reconvergence target of every `SYNC`, as nvdisasm finds it: the sync stack (`SSY`
/// pushes its target, a taken `SYNC` pops) carried along the control flow from the entry,
/// each instruction visited with the first stack that reaches it; arriving at a pushed
/// target pops it. Also returns which instructions the entry reaches.
fn sync_targets(
    insts: &[(Inst, Control)],
    targets: &[Option<(usize, u64)>],
) -> (HashMap<usize, u64>, Vec<bool>) {
    let mut found = HashMap::new();
    let mut seen = vec![false; insts.len()];
    let mut work: Vec<(usize, Vec<u64>)> = vec![(0, Vec::new())];
    while let Some((k, mut stack)) = work.pop() {
        if k >= insts.len() || seen[k] {
            continue;
        }
        seen[k] = true;
        let a = inst_addr(k);
        while stack.last().is_some_and(|&t| label_addr(t) == a) {
            stack.pop();
        }
        let (inst, _) = &insts[k];
        let guarded = !inst.guard.is_true();
        match inst.op {
            Op::SSY => {
                let mut s = stack.clone();
                if let Some((_, t)) = targets[k] {
                    s.push(t);
                }
                work.push((k + 1, s));
            }
            Op::SYNC => {
                if let Some(&t) = stack.last() {
                    found.insert(k, t);
                    let mut s = stack.clone();
                    s.pop();
                    work.push((index_of(t), s));
                }
                if guarded {
                    work.push((k + 1, stack));
                }
            }
            Op::BRA => {
                if let Some((_, t)) = targets[k] {
                    work.push((index_of(t), stack.clone()));
                }
                if guarded {
                    work.push((k + 1, stack));
                }
            }
            Op::EXIT if !guarded => {}
            _ => work.push((k + 1, stack)),
        }
    }
    (found, seen)
}

/// nvdisasm prints a space after the special float immediates (`+INF , PT`, `-0.0  ;`).
fn special_float_spacing(mut text: String) -> String {
    for special in ["+INF", "-INF", "+QNAN", "-QNAN", "-0.0"] {
        if text.contains(special) {
            text = text.replace(&format!("{special},"), &format!("{special} ,"));
            if text.ends_with(special) {
                text.push(' ');
            }
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::asm::parse_spa;

    fn section(lines: &[&str]) -> Vec<(Inst, Control)> {
        lines
            .iter()
            .enumerate()
            .map(|(k, l)| parse_spa(l, inst_addr(k)).expect(l))
            .collect()
    }

    #[test]
    fn labels_sync_targets_and_unreachable_code() {
        // 0x08 SSY -> 0x48; 0x10 @P0 SYNC; 0x18 BRA 0x28; 0x28 SYNC; 0x30 BRA 0x30 (dead:
        // after the SYNC) ... 0x48 EXIT, then padding.
        let insts = section(&[
            "SSY 0x48 ?WAIT1 ;",
            "@P0 SYNC ?WAIT1 ;",
            "BRA 0x28 ?WAIT1 ;",
            "SYNC ?WAIT1 ;",
            "MOV R0, R0 ?WAIT1 ;",
            "NOP ?WAIT1 ;",
            "EXIT ?WAIT1 ;",
            "NOP ?WAIT1 ;",
            "NOP ?WAIT1 ;",
        ]);
        let text = nvdisasm_section(&insts);
        let want = "        /*0008*/                   SSY `(.L_x_0) ;\n\
                    \x20       /*0010*/               @P0 SYNC                                            (*\"TARGET= .L_x_0 \"*);\n\
                    \x20       /*0018*/                   BRA `(.L_x_1) ;\n\
                    .L_x_1:\n\
                    \x20       /*0028*/                   SYNC                                            (*\"TARGET= .L_x_0 \"*);\n\
                    .L_x_0:\n\
                    \x20       /*0048*/                   EXIT ;\n\
                    .L_x_2:\n";
        assert_eq!(text, want);
    }

    #[test]
    fn sections_of_a_module_number_targets_first_then_end_labels() {
        // nvdisasm on a three-kernel cubin: the targets .L_x_0 .. .L_x_2, then the end
        // labels .L_x_3 .. .L_x_5 (tests/cuda/cubins-multi/three_kernels.cubin).
        let a = section(&["EXIT ?WAIT1 ;", "BRA 0x10 ?WAIT1 ;", "NOP ?WAIT1 ;"]);
        let b = section(&["EXIT ?WAIT1 ;", "NOP ?WAIT1 ;", "BRA 0x18 ?WAIT1 ;"]);
        let texts = nvdisasm_sections(&[&a, &b]);
        assert_eq!(
            texts[0],
            "        /*0008*/                   EXIT ;\n\
             .L_x_0:\n\
             \x20       /*0010*/                   BRA `(.L_x_0) ;\n\
             \x20       /*0018*/                   NOP;\n\
             .L_x_2:\n"
        );
        assert!(
            texts[1].contains("BRA `(.L_x_1) ;\n.L_x_3:\n"),
            "{}",
            texts[1]
        );
        // One section alone is numbered as before.
        assert_eq!(nvdisasm_sections(&[&a])[0], nvdisasm_section(&a));
    }

    #[test]
    fn straight_line_code_keeps_everything_and_pairs_dual_issue() {
        let insts = section(&[
            "MOV R0, R1 ?WAIT0 ;",
            "MOV R2, R3 ?WAIT1 ;",
            "FADD R0, R0, -0.0 ?WAIT1 ;",
            "EXIT ?WAIT1 ;",
            "NOP ?WAIT1 ;",
            "NOP ?WAIT1 ;",
        ]);
        let text = nvdisasm_section(&insts);
        assert!(
            text.contains("/*0008*/         {         MOV R0, R1 ;\n"),
            "{text}"
        );
        assert!(
            text.contains("/*0010*/                   MOV R2, R3         }\n"),
            "{text}"
        );
        assert!(text.contains("FADD R0, R0, -0.0  ;"), "{text}");
        assert!(
            text.ends_with("/*0038*/                   NOP ;\n.L_x_0:\n"),
            "{text}"
        );
    }
}
