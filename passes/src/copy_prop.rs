//! Copy propagation and trivial block-parameter elimination.
//!
//! Requires: verified SSA. Guarantees: afterwards no instruction uses the result of a
//! `copy` (every use is rewritten to the copy's ultimate source, and the copies are
//! removed), and no reachable non-entry block has a parameter whose incoming arguments
//! (from reachable predecessors) are all one value `x` or the parameter itself: such a
//! parameter is replaced by `x` everywhere and removed with its branch arguments.
//! Behaviour is unchanged: `copy` is the identity, and a parameter that always receives `x`
//! equals `x`, whose definition dominates every predecessor and so the block.

use cranelift_entity::SecondaryMap;

use crate::ir::{Analyses, Block, Function, Inst, Opcode, Value};

/// Runs copy propagation on `func`, with analyses of its own.
pub fn run(func: &mut Function) {
    run_with(func, &mut Analyses::new());
}

/// Runs the pass with the pipeline's cached analyses (the pass changes no control flow).
pub fn run_with(func: &mut Function, analyses: &mut Analyses) {
    let mut subst: SecondaryMap<Value, Option<Value>> = SecondaryMap::new();
    let resolve = |subst: &SecondaryMap<Value, Option<Value>>, mut v: Value| {
        while let Some(n) = subst[v] {
            v = n;
        }
        v
    };
    // 1. Copies.
    let mut copies: Vec<Inst> = Vec::new();
    for inst in func.insts_in_layout() {
        if func.dfg.opcode(inst) == Opcode::Copy {
            let src = func.dfg.inst_args(inst)[0];
            if let Some(r) = func.dfg.first_result(inst) {
                if r != src {
                    subst[r] = Some(src);
                    copies.push(inst);
                }
            }
        }
    }
    // 2. Trivial block parameters, to a fixed point.
    let (cfg, domtree) = analyses.domtree(func);
    let entry = func.entry_block();
    let mut removed: Vec<(Block, usize)> = Vec::new();
    let mut changed = true;
    while changed {
        changed = false;
        for &b in domtree.rpo() {
            if Some(b) == entry {
                continue;
            }
            for (idx, &p) in func.dfg.block_params(b).iter().enumerate() {
                if subst[p].is_some() {
                    continue;
                }
                let mut unique: Option<Value> = None;
                let mut trivial = true;
                for &pred in cfg.preds(b) {
                    if !domtree.is_reachable(pred) {
                        continue;
                    }
                    let Some(t) = func.terminator(pred) else {
                        continue;
                    };
                    for d in func.dfg.insts[t].branch_destinations() {
                        if d.block != b {
                            continue;
                        }
                        let Some(&a) = d.args.get(idx) else { continue };
                        let a = resolve(&subst, a);
                        if a == p {
                            continue;
                        }
                        match unique {
                            None => unique = Some(a),
                            Some(u) if u == a => {}
                            Some(_) => trivial = false,
                        }
                    }
                }
                if let (true, Some(u)) = (trivial, unique) {
                    subst[p] = Some(u);
                    removed.push((b, idx));
                    changed = true;
                }
            }
        }
    }
    // 3. Rewrite uses, drop copies and trivial parameters.
    func.rewrite_uses(|v| resolve(&subst, v));
    for inst in copies {
        func.layout.remove_inst(inst);
        func.dfg.clear_results(inst);
    }
    removed.sort_by_key(|r| core::cmp::Reverse(r.1));
    let mut into: SecondaryMap<Block, Vec<Inst>> = SecondaryMap::new();
    for pred in func.layout.blocks() {
        if let Some(t) = func.terminator(pred) {
            for d in func.dfg.insts[t].branch_destinations() {
                if !into[d.block].contains(&t) {
                    into[d.block].push(t);
                }
            }
        }
    }
    for (b, idx) in removed {
        func.dfg.remove_block_param(b, idx);
        for &t in &into[b] {
            for d in func.dfg.insts[t].branch_destinations_mut() {
                if d.block == b && idx < d.args.len() {
                    d.args.remove(idx);
                }
            }
        }
    }
}
