//! Code sinking: a pure instruction whose results are used only in the part of the function
//! one successor `S` of its block leads to moves to the top of `S`, so the paths that do
//! not need it do not compute it.
//!
//! Typical sources: the values both versions of a bounds-checked run need before versioning
//! splits them (the checked copy's addresses, after which the unchecked copy folds its
//! offsets), an `if`'s operands that GVN or the lowering placed in front of it, and a
//! loop's exit values computed in the loop's preheader.
//!
//! An instruction in block `B` moves to `S` when `S`'s only predecessor is `B` (so `S` runs
//! at most as often as `B`, and never in a deeper loop), `B` has another successor (a sole
//! successor runs whenever `B` does: nothing is saved) and no successor of `B` only returns
//! (a kernel's `if (id < n)` guard: the lanes leaving do no work, and the block below would
//! only grow), every use of its results lies in a
//! block `S` dominates (block arguments count as uses in the block whose branch passes
//! them), and it is pure in the sense of [`crate::gvn::is_pure`] (no side effects, no memory
//! access but constant-buffer reads, not `special clock`) and not convergent (a `vote_all`
//! or `quad_shuffle` in a branch would see fewer lanes). Instructions move in reverse order,
//! so a chain used only in `S` moves as a whole and keeps its order; a moved instruction may
//! move again from `S` to one of `S`'s successors. A cheap one-result instruction (an add, a
//! shift, a mask: [`cheap_copy`]) whose uses lie below several such successors is copied into
//! each instead: each path still computes it once, and a side whose users fold it (an address
//! offset on the unchecked side of a bounds version) does not compute it at all.
//!
//! Requires: a verified SSA function. Guarantees: the same behaviour (every IR operation is
//! total, and an instruction runs only on paths that used its value before, each copy once);
//! dominance holds (each use is in a block `S` dominates, after the moved instruction or its
//! copy); the CFG is unchanged.

use crate::gvn::is_pure;
use crate::ir::{Analyses, Block, Function, Inst, Opcode, Value};
use crate::FastHashMap as HashMap;
use smallvec::SmallVec;

/// Places `i` before the first instruction of `s`.
fn insert_at_top(func: &mut Function, i: Inst, s: Block) {
    match func.layout.first_inst(s) {
        Some(f) => func.layout.insert_inst(i, f),
        None => func.layout.append_inst(i, s),
    }
}

/// Whether `i` may be copied into several successors: one result, and an operation that is
/// one cheap instruction (an address offset, a shift, a mask) the copies' users often fold
/// (an `iadd x, c` address becomes a memory offset).
fn cheap_copy(func: &Function, i: Inst) -> bool {
    func.dfg.inst_results(i).len() == 1
        && matches!(
            func.dfg.insts[i].opcode(),
            Opcode::Iadd
                | Opcode::Isub
                | Opcode::Ishl
                | Opcode::Ushr
                | Opcode::Band
                | Opcode::Iconst
        )
}

/// Most rounds over the function (each lets instructions move one block further down).
const MAX_ROUNDS: usize = 4;

/// Runs the pass.
pub fn run(func: &mut Function) {
    sink_with(func, &mut Analyses::new());
}

/// Runs the pass with the pipeline's cached analyses (the CFG does not change).
pub fn run_with(func: &mut Function, analyses: &mut Analyses) {
    sink_with(func, analyses);
}

/// Sinks instructions; returns how many moves were made.
pub fn sink_with(func: &mut Function, analyses: &mut Analyses) -> usize {
    let (cfg, dt) = analyses.domtree(func);
    // Blocks with a single predecessor, by that predecessor.
    // A block whose other edge leads straight to a `return` (the guard `if (id < n)` of a
    // whole kernel) is left alone: the lanes leaving do no work anyway, and the instructions
    // would only join a larger block below.
    let mut only_succ: HashMap<Block, SmallVec<[Block; 2]>> = HashMap::default();
    for &b in dt.rpo() {
        if let &[p] = cfg.preds(b) {
            // A block's sole successor runs whenever it does: moving there saves nothing and
            // only stretches live ranges (a fully unrolled loop's sums would wait below all
            // of its loads).
            if p != b
                && cfg.succs(p).len() > 1
                && !cfg.succs(p).iter().any(|&s| func.only_returns(s))
            {
                only_succ.entry(p).or_default().push(b);
            }
        }
    }
    if only_succ.is_empty() {
        return 0;
    }
    let mut moved = 0;
    for _ in 0..MAX_ROUNDS {
        crate::budget::tick();
        // The blocks using each value (once per use).
        let mut uses: HashMap<Value, SmallVec<[Block; 4]>> =
            HashMap::with_capacity_and_hasher(func.dfg.num_values().min(4096), Default::default());
        for b in func.layout.blocks() {
            for i in func.layout.block_insts(b) {
                let data = &func.dfg.insts[i];
                for &a in data.args() {
                    uses.entry(a).or_default().push(b);
                }
                for d in data.branch_destinations() {
                    for &a in d.args.iter() {
                        uses.entry(a).or_default().push(b);
                    }
                }
            }
        }
        let mut round = 0;
        for &b in dt.rpo() {
            let Some(succs) = only_succ.get(&b) else {
                continue;
            };
            let insts: Vec<Inst> = func.layout.block_insts(b).collect();
            for &i in insts.iter().rev() {
                let data = &func.dfg.insts[i];
                if !is_pure(data)
                    || data.opcode().is_convergent()
                    || func.dfg.inst_results(i).is_empty()
                {
                    continue;
                }
                // Per use, the successor dominating it.
                let results: SmallVec<[Value; 2]> = SmallVec::from_slice(func.dfg.inst_results(i));
                let mut placed: SmallVec<[(Block, Block); 8]> = SmallVec::new();
                let ok = results.iter().all(|r| {
                    uses.get(r).is_some_and(|us| {
                        us.iter()
                            .all(|&u| match succs.iter().find(|&&s| dt.dominates(s, u)) {
                                Some(&s) => {
                                    placed.push((u, s));
                                    true
                                }
                                None => false,
                            })
                    })
                });
                let mut targets: SmallVec<[Block; 2]> = SmallVec::new();
                for &(_, s) in &placed {
                    if !targets.contains(&s) {
                        targets.push(s);
                    }
                }
                if !ok || targets.is_empty() || targets.len() > 1 && !cheap_copy(func, i) {
                    continue;
                }
                // Each further side gets a copy, its uses renamed (one result: `cheap_copy`).
                for &s in &targets[1..] {
                    let r = results[0];
                    let c = func.dfg.make_inst(func.dfg.insts[i].clone());
                    let nr = func.dfg.make_inst_results(c)[0];
                    insert_at_top(func, c, s);
                    let mut moved_uses: SmallVec<[Block; 4]> = SmallVec::new();
                    for &(u, t) in &placed {
                        if t == s && !moved_uses.contains(&u) {
                            moved_uses.push(u);
                            let us: Vec<Inst> = func.layout.block_insts(u).collect();
                            for ui in us {
                                if ui != c {
                                    func.dfg.insts[ui].map_values(|v| if v == r { nr } else { v });
                                }
                            }
                        }
                    }
                    let gone: SmallVec<[Block; 4]> =
                        placed.iter().filter(|p| p.1 == s).map(|p| p.0).collect();
                    uses.insert(nr, gone);
                    for &a in func.dfg.insts[c].args() {
                        uses.entry(a).or_default().push(s);
                    }
                    round += 1;
                }
                let s = targets[0];
                if targets.len() > 1 {
                    let staying: SmallVec<[Block; 4]> =
                        placed.iter().filter(|p| p.1 == s).map(|p| p.0).collect();
                    uses.insert(results[0], staying);
                }
                func.layout.remove_inst(i);
                insert_at_top(func, i, s);
                // Its operands are now used in `s`.
                for &a in func.dfg.insts[i].args() {
                    if let Some(us) = uses.get_mut(&a) {
                        if let Some(u) = us.iter_mut().find(|u| **u == b) {
                            *u = s;
                        }
                    }
                }
                round += 1;
            }
        }
        moved += round;
        if round == 0 {
            break;
        }
    }
    moved
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::reader::parse_function_text;

    fn sunk(text: &str) -> (usize, String) {
        let mut f = parse_function_text(text).expect("parses");
        let n = sink_with(&mut f, &mut Analyses::new());
        crate::verifier::verify_function(&f).expect("verifies");
        let mut out = String::new();
        crate::ir::write::write_function(&mut out, &f).expect("writes");
        (n, out)
    }

    #[test]
    fn values_used_on_one_side_move_there() {
        let (n, out) = sunk(
            "kernel %k {\n    uav0 = raw\n\nblock0:\n    v0 = special tid.x\n    \
             v1 = iconst.b32 0x4\n    v2 = iadd v0, v1\n    v3 = ishl v2, v1\n    \
             v4 = icmp ult v0, v1\n    brif v4, block1, block2\n\nblock1:\n    \
             store.b32 uav0[v3], v0\n    return\n\nblock2:\n    store.b32 uav0[v0], v0\n    \
             return\n}\n",
        );
        // The shift, its add, and the constant (used by the compare too: it stays).
        assert_eq!(n, 2, "{out}");
        let b1 = out.find("block1:").expect("block1");
        assert!(out.find("v2 = iadd").expect("iadd") > b1, "{out}");
        assert!(out.find("v3 = ishl").expect("ishl") > out.find("v2 = iadd").unwrap());
        assert!(out.find("v1 = iconst").expect("iconst") < b1, "{out}");
    }

    #[test]
    fn values_used_on_both_sides_or_at_a_join_stay() {
        // Used at the join (which has two predecessors), or by a load: they stay.
        let (n, out) = sunk(
            "kernel %k {\n    uav0 = raw\n\nblock0:\n    v0 = special tid.x\n    \
             v1 = iconst.b32 0x4\n    v3 = ishl v0, v1\n    \
             v5 = load.b32 uav0[v0]\n    v4 = icmp ult v0, v1\n    \
             brif v4, block1, block2\n\nblock1:\n    store.b32 uav0[v3], v0\n    \
             jump block3\n\nblock2:\n    store.b32 uav0[v0], v5\n    jump block3\n\n\
             block3:\n    store.b32 uav0[v3], v0\n    return\n}\n",
        );
        assert_eq!(n, 0, "{out}");
    }

    #[test]
    fn a_cheap_value_used_on_both_sides_is_copied_into_each() {
        let (n, out) = sunk(
            "kernel %k {\n    uav0 = raw\n\nblock0:\n    v0 = special tid.x\n    \
             v1 = iconst.b32 0x4\n    v2 = iadd v0, v1\n    v6 = imul v0, v0\n    \
             v4 = icmp ult v0, v1\n    brif v4, block1, block2\n\nblock1:\n    \
             store.b32 uav0[v2], v6\n    jump block3\n\nblock2:\n    \
             store.b32 uav0[v2], v6\n    jump block3\n\nblock3:\n    return\n}\n",
        );
        // The add goes to both sides (a copy and the original); the multiply stays.
        assert_eq!(n, 2, "{out}");
        let b1 = out.find("block1:").expect("block1");
        let b2 = out.find("block2:").expect("block2");
        assert_eq!(out[b1..b2].matches("= iadd v0, v1").count(), 1, "{out}");
        assert_eq!(out[b2..].matches("= iadd v0, v1").count(), 1, "{out}");
        assert!(out.find("v6 = imul").unwrap() < b1, "{out}");
    }

    #[test]
    fn a_value_passed_as_a_block_argument_counts_where_it_is_passed() {
        let (n, out) = sunk(
            "kernel %k {\n    uav0 = raw\n\nblock0:\n    v0 = special tid.x\n    \
             v1 = iconst.b32 0x4\n    v2 = iadd v0, v1\n    v4 = icmp ult v0, v1\n    \
             brif v4, block1, block2(v0)\n\nblock1:\n    jump block2(v2)\n\n\
             block2(v6: b32):\n    store.b32 uav0[v6], v0\n    return\n}\n",
        );
        assert_eq!(n, 1, "{out}");
        assert!(
            out.find("v2 = iadd").unwrap() > out.find("block1:").unwrap(),
            "{out}"
        );
    }

    #[test]
    fn a_guard_whose_other_side_returns_is_left_alone() {
        let (n, out) = sunk(
            "kernel %k {\n    uav0 = raw\n\nblock0:\n    v0 = special tid.x\n    \
             v1 = iconst.b32 0x4\n    v2 = iadd v0, v1\n    v4 = icmp ult v0, v1\n    \
             brif v4, block1, block2\n\nblock1:\n    store.b32 uav0[v2], v0\n    \
             return\n\nblock2:\n    return\n}\n",
        );
        assert_eq!(n, 0, "{out}");
    }
}
