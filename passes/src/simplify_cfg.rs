//! CFG simplification.
//!
//! Requires: verified SSA. Repeats until nothing changes:
//! 1. constant branches fold: `brif` on a `pconst` (or on a pure instruction of constants,
//!    such as a compare) or with two identical destinations
//!    (same block and arguments) and `br_table` on an `iconst` or with all destinations
//!    identical become `jump`;
//! 2. blocks unreachable from the entry are removed from the layout;
//! 3. a block whose only predecessor ends in `jump` to it (and is its only edge) is merged
//!    into that predecessor: its parameters are replaced by the jump's arguments;
//! 4. an empty forwarding block (only `jump C(args)`, not the entry, parameters used nowhere
//!    else) is bypassed: every branch to it goes directly to `C`, with the arguments
//!    substituted, and the block disappears once unreachable. Blocks are visited successors
//!    first, and a branch left with one destination becomes a `jump` on the spot, so a nest
//!    of empty arms collapses in one scan: the fixpoint takes a few rounds whatever the
//!    nesting depth (it took one round per level, quadratic, capped at 1000 rounds).
//!
//! Guarantees: the result verifies, has no unreachable blocks, and behaves the same.

use cranelift_entity::SecondaryMap;
use smallvec::SmallVec;

use crate::eval::{controlling_type, eval_pure};
use crate::ir::{
    Analyses, Block, BlockCall, ControlFlowGraph, DominatorTree, Function, InstructionData, Opcode,
    Type, Value,
};

/// Runs CFG simplification on `func`.
pub fn run(func: &mut Function) {
    run_with(func, &mut Analyses::new());
}

/// Runs CFG simplification with the pipeline's cached analyses (dropped at each change, so
/// the next step that needs them computes them once for the steps after it).
pub fn run_with(func: &mut Function, analyses: &mut Analyses) {
    let rounds = fixpoint(func, analyses);
    tracing::trace!(rounds, "simplify_cfg");
}

/// The fixpoint of [`run_with`]; returns the number of rounds (the last one changes
/// nothing). Each rewrite reaches as far as one scan allows (bypassing folds a whole nest of
/// empty arms), so a few rounds suffice whatever the nesting depth.
fn fixpoint(func: &mut Function, analyses: &mut Analyses) -> u32 {
    let mut rounds = 0;
    for _ in 0..1000 {
        rounds += 1;
        let mut changed = fold_branches(func);
        if changed {
            analyses.invalidate();
        }
        changed |= remove_unreachable(func, Some(analyses));
        if changed {
            analyses.invalidate();
        }
        changed |= merge_blocks(func, Some(analyses));
        changed |= bypass_forwarders(func);
        if !changed {
            break;
        }
        analyses.invalidate();
    }
    rounds
}

fn fold_branches(func: &mut Function) -> bool {
    let mut changed = false;
    let mut memo = crate::FastHashMap::default();
    for b in func.layout.blocks().collect::<Vec<_>>() {
        let Some(t) = func.terminator(b) else {
            continue;
        };
        let target: Option<BlockCall> = match &func.dfg.insts[t] {
            InstructionData::Brif { arg, dests, .. } => {
                match known_const(func, arg[0], &mut memo) {
                    Some(c) => Some(dests[if c != 0 { 0 } else { 1 }].clone()),
                    None => single_destination(&func.dfg.insts[t]),
                }
            }
            InstructionData::BrTable { arg, dests, .. } => {
                match known_const(func, arg[0], &mut memo) {
                    Some(c) => {
                        let idx = usize::try_from(c).ok().and_then(|c| c.checked_add(1));
                        idx.and_then(|i| dests.get(i)).or(dests.first()).cloned()
                    }
                    None => single_destination(&func.dfg.insts[t]),
                }
            }
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

/// The value of `v` when it is a constant or pure instructions of constants (a compare of a
/// fully unrolled loop's counter, a `select` on a known predicate): branches on it fold
/// without a separate constant-folding pass, so merging blocks and folding branches reach
/// their fixpoint here. `memo` caches results within one scan of the function (merging may
/// make more values constant, so it does not outlive the scan).
fn known_const(
    func: &Function,
    v: Value,
    memo: &mut crate::FastHashMap<Value, Option<u64>>,
) -> Option<u64> {
    known_within(func, v, memo, KNOWN_DEPTH)
}

/// How deep [`known_const`] looks (bounds the recursion; a cut-off value is unknown).
const KNOWN_DEPTH: u32 = 64;

fn known_within(
    func: &Function,
    v: Value,
    memo: &mut crate::FastHashMap<Value, Option<u64>>,
    depth: u32,
) -> Option<u64> {
    if let Some(c) = func.dfg.value_const(v) {
        return Some(c);
    }
    if let Some(&k) = memo.get(&v) {
        return k;
    }
    if depth == 0 {
        return None;
    }
    // Provisionally unknown: a cycle through block parameters cannot recurse forever.
    memo.insert(v, None);
    let k = eval_known(func, v, memo, depth - 1);
    memo.insert(v, k);
    k
}

fn eval_known(
    func: &Function,
    v: Value,
    memo: &mut crate::FastHashMap<Value, Option<u64>>,
    depth: u32,
) -> Option<u64> {
    let inst = func.dfg.value_inst(v)?;
    let data = &func.dfg.insts[inst];
    if data.has_side_effects() || func.dfg.inst_results(inst).len() != 1 {
        return None;
    }
    let args = data.args();
    // `select p, a, b` with a known `p` needs only the operand it picks.
    if data.opcode() == Opcode::Select {
        let p = known_within(func, args[0], memo, depth)?;
        return known_within(func, args[if p != 0 { 1 } else { 2 }], memo, depth);
    }
    let mut consts: SmallVec<[u64; 4]> = SmallVec::with_capacity(args.len());
    for &a in args {
        consts.push(known_within(func, a, memo, depth)?);
    }
    let tys: SmallVec<[Type; 4]> = args.iter().map(|&a| func.dfg.value_type(a)).collect();
    let vals = eval_pure(data, controlling_type(data, &tys), &consts)?;
    Some(vals[0] & func.dfg.value_type(v).mask())
}

/// Removes the blocks unreachable from the entry; `analyses`, if given, are `func`'s.
fn remove_unreachable(func: &mut Function, analyses: Option<&mut Analyses>) -> bool {
    let fresh;
    let domtree = match analyses {
        Some(a) => a.domtree(func).1,
        None => {
            fresh = DominatorTree::with_function(func, &ControlFlowGraph::with_function(func));
            &fresh
        }
    };
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

/// Merges blocks into their single predecessor; `analyses`, if given, are `func`'s.
fn merge_blocks(func: &mut Function, analyses: Option<&mut Analyses>) -> bool {
    let entry = func.entry_block();
    // Predecessor lists, kept up to date by hand while merging (linear overall).
    let fresh;
    let cfg = match analyses {
        Some(a) => a.cfg(func),
        None => {
            fresh = ControlFlowGraph::with_function(func);
            &fresh
        }
    };
    // Inline lists: most blocks have one or two predecessors (a heap list per block was most
    // of this step's cost on small kernels).
    let mut preds: SecondaryMap<Block, SmallVec<[Block; 2]>> = SecondaryMap::new();
    preds.resize(func.dfg.num_blocks());
    for b in func.layout.blocks() {
        preds[b].extend_from_slice(cfg.preds(b));
    }
    let mut subst: SecondaryMap<Value, Option<Value>> = SecondaryMap::new();
    let resolve = |s: &SecondaryMap<Value, Option<Value>>, mut v: Value| {
        while let Some(n) = s[v] {
            v = n;
        }
        v
    };
    let mut changed = false;
    for b in func.layout.blocks().collect::<Vec<_>>() {
        if Some(b) == entry {
            continue;
        }
        let [pred] = preds[b].as_slice() else {
            continue;
        };
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
        let args: Vec<Value> = dests[0].args.iter().map(|&a| resolve(&subst, a)).collect();
        let params = func.dfg.block_params(b).to_vec();
        for (&p, &a) in params.iter().zip(&args) {
            if p != a {
                subst[p] = Some(a);
            }
        }
        // b's successors now come from pred.
        for s in func.successors(b) {
            for x in preds[s].iter_mut() {
                if *x == b {
                    *x = pred;
                }
            }
        }
        func.layout.remove_inst(t);
        func.layout.splice_block_insts(b, pred);
        func.layout.remove_block(b);
        for idx in (0..params.len()).rev() {
            func.dfg.remove_block_param(b, idx);
        }
        changed = true;
    }
    if changed {
        func.rewrite_uses(|v| resolve(&subst, v));
    }
    changed
}

fn bypass_forwarders(func: &mut Function) -> bool {
    let entry = func.entry_block();
    // Values used anywhere except in a forwarding block's own jump: a forwarder whose
    // parameters are used elsewhere (in blocks it dominates) must stay.
    let mut uses_elsewhere: SecondaryMap<Value, bool> = SecondaryMap::new();
    let mut forwarder: SecondaryMap<Block, bool> = SecondaryMap::new();
    for b in func.layout.blocks() {
        forwarder[b] = is_forwarder(func, b) && Some(b) != entry;
        let own = func.dfg.block_params(b);
        for i in func.layout.block_insts(b) {
            for v in func.dfg.insts[i].all_values() {
                // A forwarder's jump passing its own parameters on is what bypassing
                // substitutes; any other value it passes (another forwarder's parameter,
                // say) is a real use that keeps that block.
                if !(forwarder[b] && own.contains(&v)) {
                    uses_elsewhere[v] = true;
                }
            }
        }
    }
    for b in func.layout.blocks() {
        if forwarder[b] && func.dfg.block_params(b).iter().any(|&p| uses_elsewhere[p]) {
            forwarder[b] = false;
        }
    }
    // Where a call to forwarder `b` with `args` ends up, following chains (bounded, so a
    // cycle of forwarders is left alone).
    let resolve = |func: &Function,
                   forwarder: &SecondaryMap<Block, bool>,
                   mut call: BlockCall|
     -> BlockCall {
        let mut steps = 0;
        while forwarder[call.block] && steps < 64 {
            let b = call.block;
            let Some(j) = func.layout.last_inst(b) else {
                break;
            };
            let target = &func.dfg.insts[j].branch_destinations()[0];
            if target.block == b {
                break;
            }
            let params = func.dfg.block_params(b);
            let args = target
                .args
                .iter()
                .map(|&v| {
                    params
                        .iter()
                        .position(|&p| p == v)
                        .map_or(v, |k| call.args[k])
                })
                .collect();
            call = BlockCall {
                block: target.block,
                args,
            };
            steps += 1;
        }
        call
    };
    let mut changed = false;
    if !func.layout.blocks().any(|b| forwarder[b]) {
        return false;
    }
    // Successors first: a branch whose destinations all end up at the same call becomes a
    // `jump` here, and its block a forwarder, before its predecessors are rewritten, so a
    // nest of empty arms (`if` in `if` in ...) collapses in one scan instead of one level
    // per round of the fixpoint (which made deep nests quadratic).
    // Forwarders' own jumps are resolved too, so a chain of them (the joins of a nest) is
    // followed one step at a time instead of up to the bound of `resolve` per edge.
    let mut order = ControlFlowGraph::with_function(func).reverse_post_order(func);
    order.reverse();
    for pred in order {
        let Some(t) = func.terminator(pred) else {
            continue;
        };
        let dests = &func.dfg.insts[t].branch_destinations();
        if !dests.iter().any(|d| forwarder[d.block]) {
            continue;
        }
        let dests = dests.to_vec();
        for (k, d) in dests.into_iter().enumerate() {
            if !forwarder[d.block] {
                continue;
            }
            let new = resolve(func, &forwarder, d.clone());
            if new != d {
                func.dfg.insts[t].branch_destinations_mut()[k] = new;
                changed = true;
            }
        }
        if let Some(dest) = single_destination(&func.dfg.insts[t]) {
            func.dfg.insts[t] = InstructionData::Jump {
                opcode: Opcode::Jump,
                dests: [dest],
            };
            changed = true;
            // It was no forwarder when uses were counted, so the parameters its branch
            // passes count as used elsewhere: only a block passing none becomes one.
            forwarder[pred] = Some(pred) != entry
                && is_forwarder(func, pred)
                && !func
                    .dfg
                    .block_params(pred)
                    .iter()
                    .any(|&p| uses_elsewhere[p]);
        }
    }
    changed
}

/// The destination of a `brif` or `br_table` whose destinations are all the same call.
fn single_destination(data: &InstructionData) -> Option<BlockCall> {
    match data {
        InstructionData::Brif { dests, .. } if dests[0] == dests[1] => Some(dests[0].clone()),
        InstructionData::BrTable { dests, .. } if dests.windows(2).all(|w| w[0] == w[1]) => {
            dests.first().cloned()
        }
        _ => None,
    }
}

/// True if `b` holds a single `jump`.
fn is_forwarder(func: &Function, b: Block) -> bool {
    let first = func.layout.first_inst(b);
    first.is_some()
        && first == func.layout.last_inst(b)
        && first.is_some_and(|i| func.dfg.opcode(i) == Opcode::Jump)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{FuncCursor, MemArg, MemSize, MemSpace, SpecialReg, UavKind};

    /// `depth` nested `if`s around empty arms (each arm jumps to the join of the enclosing
    /// one), then a store in the outermost join.
    fn nest(depth: usize) -> Function {
        let mut func = Function::new("nest");
        func.uavs.insert(0, UavKind::Raw);
        let mut c = FuncCursor::new(&mut func);
        let entry = c.create_block();
        c.goto_end(entry);
        let tid = c.ins().special(SpecialReg::Tid(0));
        let zero = c.ins().iconst(Type::B32, 0);
        let cond = c.ins().icmp(crate::ir::IntCC::Ne, tid, zero);
        let joins: Vec<Block> = (0..depth).map(|_| c.create_block()).collect();
        for (k, &join) in joins.iter().enumerate() {
            let then = c.create_block();
            c.ins().brif(cond, then, &[], join, &[]);
            c.goto_end(then);
            if k + 1 == depth {
                c.ins().jump(join, &[]);
            }
        }
        for k in (0..depth).rev() {
            c.goto_end(joins[k]);
            if k > 0 {
                c.ins().jump(joins[k - 1], &[]);
            }
        }
        let mem = MemArg {
            space: MemSpace::Uav(0),
            offset: 0,
            size: MemSize::Words(1),
            align: 4,
            inbounds: false,
        };
        c.ins().store(mem, Some(tid), &[tid]);
        c.ins().return_();
        func
    }

    #[test]
    fn deep_nests_collapse_in_a_few_rounds() {
        for depth in [1, 10, 100, 3000] {
            let mut f = nest(depth);
            crate::verifier::verify_function(&f).expect("the nest verifies");
            let rounds = fixpoint(&mut f, &mut Analyses::new());
            crate::verifier::verify_function(&f).expect("the result verifies");
            // One round collapses the nest, one merges what is left, one finds nothing.
            assert!(rounds <= 3, "depth {depth}: {rounds} rounds");
            assert_eq!(f.layout.blocks().count(), 1, "depth {depth}:\n{f}");
        }
    }
}
