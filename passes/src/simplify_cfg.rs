//! CFG simplification.
//!
//! Requires: verified SSA. Repeats until nothing changes:
//! 1. constant branches fold: `brif` on a `pconst` or with two identical destinations
//!    (same block and arguments) and `br_table` on an `iconst` or with all destinations
//!    identical become `jump`;
//! 2. blocks unreachable from the entry are removed from the layout;
//! 3. a block whose only predecessor ends in `jump` to it (and is its only edge) is merged
//!    into that predecessor: its parameters are replaced by the jump's arguments;
//! 4. an empty forwarding block (only `jump C(args)`, not the entry, parameters used nowhere
//!    else) is bypassed: every branch to it goes directly to `C`, with the arguments
//!    substituted, and the block disappears once unreachable.
//!
//! Guarantees: the result verifies, has no unreachable blocks, and behaves the same.

use cranelift_entity::SecondaryMap;

use crate::ir::{
    Block, BlockCall, ControlFlowGraph, DominatorTree, Function, InstructionData, Opcode, Value,
};

/// Runs CFG simplification on `func`.
pub fn run(func: &mut Function) {
    for _ in 0..1000 {
        let mut changed = fold_branches(func);
        changed |= remove_unreachable(func);
        changed |= merge_blocks(func);
        changed |= bypass_forwarders(func);
        if !changed {
            break;
        }
    }
}

fn fold_branches(func: &mut Function) -> bool {
    let mut changed = false;
    for b in func.layout.blocks().collect::<Vec<_>>() {
        let Some(t) = func.terminator(b) else {
            continue;
        };
        let target: Option<BlockCall> = match &func.dfg.insts[t] {
            InstructionData::Brif { arg, dests, .. } => match func.dfg.value_const(arg[0]) {
                Some(c) => Some(dests[if c != 0 { 0 } else { 1 }].clone()),
                None if dests[0] == dests[1] => Some(dests[0].clone()),
                None => None,
            },
            InstructionData::BrTable { arg, dests, .. } => match func.dfg.value_const(arg[0]) {
                Some(c) => {
                    let idx = usize::try_from(c).ok().and_then(|c| c.checked_add(1));
                    idx.and_then(|i| dests.get(i)).or(dests.first()).cloned()
                }
                None if dests.windows(2).all(|w| w[0] == w[1]) => dests.first().cloned(),
                None => None,
            },
            _ => None,
        };
        if let Some(dest) = target {
            func.dfg.insts[t] = InstructionData::Jump {
                opcode: Opcode::Jump,
                dests: [dest],
            };
            changed = true;
        }
    }
    changed
}

fn remove_unreachable(func: &mut Function) -> bool {
    let cfg = ControlFlowGraph::with_function(func);
    let domtree = DominatorTree::with_function(func, &cfg);
    let mut changed = false;
    for b in func.layout.blocks().collect::<Vec<_>>() {
        if !domtree.is_reachable(b) {
            for i in func.layout.block_insts(b).collect::<Vec<_>>() {
                func.dfg.clear_results(i);
            }
            func.layout.remove_block(b);
            changed = true;
        }
    }
    changed
}

fn merge_blocks(func: &mut Function) -> bool {
    let mut changed = false;
    let entry = func.entry_block();
    let mut cfg = ControlFlowGraph::with_function(func);
    for b in func.layout.blocks().collect::<Vec<_>>() {
        if !func.layout.is_block_inserted(b) || Some(b) == entry {
            continue;
        }
        let [pred] = cfg.preds(b) else { continue };
        let pred = *pred;
        if pred == b {
            continue;
        }
        let Some(t) = func.terminator(pred) else {
            continue;
        };
        let InstructionData::Jump { dests, .. } = &func.dfg.insts[t] else {
            continue;
        };
        let args = dests[0].args.clone();
        let params = func.dfg.block_params(b).to_vec();
        let map: Vec<(Value, Value)> = params.iter().copied().zip(args).collect();
        func.layout.remove_inst(t);
        func.layout.splice_block_insts(b, pred);
        func.layout.remove_block(b);
        for idx in (0..params.len()).rev() {
            func.dfg.remove_block_param(b, idx);
        }
        func.rewrite_uses(|v| map.iter().find(|(p, _)| *p == v).map_or(v, |(_, a)| *a));
        cfg.compute(func);
        changed = true;
    }
    changed
}

fn bypass_forwarders(func: &mut Function) -> bool {
    let entry = func.entry_block();
    // Count uses of every value outside the using block's own terminator, to know which
    // forwarding blocks' parameters are used elsewhere.
    let mut uses_elsewhere: SecondaryMap<Value, bool> = SecondaryMap::new();
    for b in func.layout.blocks() {
        let own_jump = is_forwarder(func, b);
        for i in func.layout.block_insts(b) {
            if own_jump && Some(i) == func.layout.last_inst(b) {
                continue;
            }
            for v in func.dfg.insts[i].all_values() {
                uses_elsewhere[v] = true;
            }
        }
    }
    let mut changed = false;
    for b in func.layout.blocks().collect::<Vec<_>>() {
        if Some(b) == entry || !is_forwarder(func, b) {
            continue;
        }
        let params = func.dfg.block_params(b).to_vec();
        if params.iter().any(|&p| uses_elsewhere[p]) {
            continue;
        }
        let Some(j) = func.layout.last_inst(b) else {
            continue;
        };
        let target = func.dfg.insts[j].branch_destinations()[0].clone();
        if target.block == b {
            continue;
        }
        for pred in func.layout.blocks().collect::<Vec<_>>() {
            if pred == b {
                continue;
            }
            let Some(t) = func.terminator(pred) else {
                continue;
            };
            for d in func.dfg.insts[t].branch_destinations_mut() {
                if d.block != b {
                    continue;
                }
                let incoming = d.args.clone();
                let subst = |v: Value| {
                    params
                        .iter()
                        .position(|&p| p == v)
                        .map_or(v, |k| incoming[k])
                };
                d.block = target.block;
                d.args = target.args.iter().map(|&v| subst(v)).collect();
                changed = true;
            }
        }
    }
    changed
}

/// True if `b` holds a single `jump`.
fn is_forwarder(func: &Function, b: Block) -> bool {
    let first = func.layout.first_inst(b);
    first.is_some()
        && first == func.layout.last_inst(b)
        && first.is_some_and(|i| func.dfg.opcode(i) == Opcode::Jump)
}
