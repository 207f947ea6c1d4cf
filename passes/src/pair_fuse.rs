//! 64-bit pair fusion: keeps `b64` values whole instead of splitting them into `lo`/`hi`
//! words and joining them again.
//!
//! The AMD IL lowering gives every register component its own `b32` value, so a double that
//! lives in `r3.xy` is `lo`/`hi` after each 64-bit operation and `concat` before the next,
//! and a loop-carried double is two `b32` block parameters. Each split and join costs the
//! backend two register moves. This pass
//! 1. folds `concat (lo v), (hi v)` to `v`, and `lo`/`hi` of `concat a, b` to `a`/`b`;
//! 2. fuses two `b32` parameters `p`, `q` of a block that some instruction joins as
//!    `concat p, q` into one `b64` parameter `w`, when every incoming edge passes the halves
//!    of one `b64` value (`lo v`, `hi v`), the pair itself (`p`, `q`: a loop back edge that
//!    does not change it), or two constants; the old parameters become `lo w` / `hi w` at
//!    the top of the block, which step 1 then folds away where they are joined again;
//!
//! repeating both to a fixed point (nested loops).
//!
//! Requires: verified SSA. Guarantees: the function computes the same values (`lo`, `hi` and
//! `concat` are exact inverses; a fused parameter receives exactly the `concat` of what its
//! halves received), the result verifies; dead `lo`/`hi`/`concat` are left for `dce`.

use crate::ir::{Block, Function, Inst, InstructionData, Opcode, Type, Value};

/// Runs pair fusion on `func`.
pub fn run(func: &mut Function) {
    // Each round fuses every pair it can; a pair that only becomes fusable after another
    // (nested loops: the inner header's pair feeds the outer one) needs another round.
    for _ in 0..16 {
        let folded = fold_joins(func);
        let fused = fuse_params(func);
        if !folded && !fused {
            break;
        }
    }
    fold_joins(func);
}

/// The operand of `lo`/`hi` that defines `v`, with which half it is.
fn half_of(func: &Function, v: Value) -> Option<(Opcode, Value)> {
    let inst = func.dfg.value_inst(v)?;
    match &func.dfg.insts[inst] {
        InstructionData::Unary {
            opcode: op @ (Opcode::Lo | Opcode::Hi),
            args,
        } => Some((*op, args[0])),
        _ => None,
    }
}

/// The operands of the `concat` that defines `v`.
fn join_of(func: &Function, v: Value) -> Option<(Value, Value)> {
    let inst = func.dfg.value_inst(v)?;
    match &func.dfg.insts[inst] {
        InstructionData::Binary {
            opcode: Opcode::Concat,
            args,
        } => Some((args[0], args[1])),
        _ => None,
    }
}

/// Step 1. Returns whether anything changed.
fn fold_joins(func: &mut Function) -> bool {
    let mut subst: Vec<(Value, Value)> = Vec::new();
    for inst in func.insts_in_layout() {
        let Some(r) = func.dfg.first_result(inst) else {
            continue;
        };
        let to = match &func.dfg.insts[inst] {
            InstructionData::Binary {
                opcode: Opcode::Concat,
                args,
            } => match (half_of(func, args[0]), half_of(func, args[1])) {
                (Some((Opcode::Lo, a)), Some((Opcode::Hi, b))) if a == b => Some(a),
                _ => None,
            },
            InstructionData::Unary {
                opcode: op @ (Opcode::Lo | Opcode::Hi),
                args,
            } => join_of(func, args[0]).map(|(a, b)| if *op == Opcode::Lo { a } else { b }),
            _ => None,
        };
        if let Some(t) = to {
            subst.push((r, t));
        }
    }
    if subst.is_empty() {
        return false;
    }
    let map: crate::FastHashMap<Value, Value> = subst.into_iter().collect();
    func.rewrite_uses(|mut v| {
        // Chains (a fold whose target is itself folded) resolve in at most map.len() steps.
        for _ in 0..=map.len() {
            match map.get(&v) {
                Some(&n) => v = n,
                None => break,
            }
        }
        v
    });
    true
}

/// What an edge passes for a candidate pair.
enum EdgeArg {
    /// The halves of this `b64` value.
    Whole(Value),
    /// The pair itself (a back edge).
    Same,
    /// Two constants (low, high).
    Consts(u64, u64),
    /// Another candidate pair (low, high parameters of one block), fused in the same round:
    /// the edge passes their `concat`, which folds to the fused parameter once that pair is
    /// fused too.
    Pair(Value, Value),
}

/// Step 2. Returns whether a pair was fused.
///
/// Candidates are pairs `p`, `q` of `b32` parameters of one non-entry block that some
/// instruction joins as `concat p, q`, and, transitively, pairs that an edge passes in the
/// places of a candidate pair (a loop-carried double that a join block between the latch
/// and the header passes on unchanged). A candidate is fused when every edge into it passes
/// something fusable, where another candidate counts as fusable; candidates that fail are
/// dropped until the rest agree, and the rest are fused together.
fn fuse_params(func: &mut Function) -> bool {
    let entry = func.entry_block();
    let mut candidates: Vec<(Value, Value)> = Vec::new();
    let mut taken = crate::FastHashSet::default();
    let mut add = |func: &Function, p: Value, q: Value, out: &mut Vec<(Value, Value)>| {
        let (Some((bp, _)), Some((bq, _))) = (param_of(func, p), param_of(func, q)) else {
            return;
        };
        if bp == bq
            && p != q
            && Some(bp) != entry
            && func.dfg.value_type(p) == Type::B32
            && func.dfg.value_type(q) == Type::B32
            && !taken.contains(&p)
            && !taken.contains(&q)
        {
            taken.insert(p);
            taken.insert(q);
            out.push((p, q));
        }
    };
    for inst in func.insts_in_layout() {
        if let InstructionData::Binary {
            opcode: Opcode::Concat,
            args: [p, q],
        } = func.dfg.insts[inst]
        {
            add(func, p, q, &mut candidates);
        }
    }
    if candidates.is_empty() {
        return false;
    }
    // Pairs passed in the places of a candidate, until no new one appears.
    let branches: Vec<Inst> = func
        .insts_in_layout()
        .into_iter()
        .filter(|&i| !func.dfg.insts[i].branch_destinations().is_empty())
        .collect();
    let mut next = 0;
    while next < candidates.len() {
        let (p, q) = candidates[next];
        next += 1;
        let (Some((b, ip)), Some((_, iq))) = (param_of(func, p), param_of(func, q)) else {
            continue;
        };
        let mut found = Vec::new();
        for &t in &branches {
            for d in func.dfg.insts[t].branch_destinations() {
                if d.block == b {
                    if let (Some(&x), Some(&y)) = (d.args.get(ip), d.args.get(iq)) {
                        found.push((x, y));
                    }
                }
            }
        }
        for (x, y) in found {
            add(func, x, y, &mut candidates);
        }
    }
    let cfg = crate::ir::ControlFlowGraph::with_function(func);
    // Drop candidates with an unfusable edge until the rest agree.
    let mut live: crate::FastHashSet<(Value, Value)> = candidates.iter().copied().collect();
    loop {
        let failed: Vec<(Value, Value)> = candidates
            .iter()
            .copied()
            .filter(|c| live.contains(c) && edge_args(func, &cfg, c.0, c.1, &live).is_none())
            .collect();
        if failed.is_empty() {
            break;
        }
        for c in failed {
            live.remove(&c);
        }
    }
    let mut fused = false;
    for c in candidates {
        if !live.contains(&c) {
            continue;
        }
        // Edges are read again: a pair fused before this one now passes `lo w`, `hi w`.
        live.remove(&c);
        if let Some(edges) = edge_args(func, &cfg, c.0, c.1, &live) {
            fuse(func, c.0, c.1, edges);
            fused = true;
        }
    }
    fused
}

/// The block and index of block parameter `v`.
fn param_of(func: &Function, v: Value) -> Option<(Block, usize)> {
    match func.dfg.value_def(v) {
        crate::ir::dfg::ValueDef::Param(b, i) => Some((b, i)),
        _ => None,
    }
}

/// The branch instructions into the block of parameters `p`, `q`, each with what it passes
/// for them, if every edge passes something fusable (a pair in `pending` counts).
fn edge_args(
    func: &Function,
    cfg: &crate::ir::ControlFlowGraph,
    p: Value,
    q: Value,
    pending: &crate::FastHashSet<(Value, Value)>,
) -> Option<Vec<(Inst, EdgeArg)>> {
    let (Some((b, ip)), Some((_, iq))) = (param_of(func, p), param_of(func, q)) else {
        return None;
    };
    let mut out = Vec::new();
    let mut preds: Vec<Block> = cfg.preds(b).to_vec();
    preds.sort();
    preds.dedup();
    for pred in preds {
        let Some(t) = func.terminator(pred) else {
            continue;
        };
        let into = func.dfg.insts[t]
            .branch_destinations()
            .iter()
            .filter(|d| d.block == b)
            .count();
        if into > 1 {
            // Two edges from one branch: not worth the bookkeeping.
            return None;
        }
        for d in func.dfg.insts[t].branch_destinations() {
            if d.block != b {
                continue;
            }
            let (x, y) = (*d.args.get(ip)?, *d.args.get(iq)?);
            let arg = if x == p && y == q {
                EdgeArg::Same
            } else if let (Some((Opcode::Lo, v)), Some((Opcode::Hi, w))) =
                (half_of(func, x), half_of(func, y))
            {
                if v != w {
                    return None;
                }
                EdgeArg::Whole(v)
            } else if let (Some(a), Some(c)) = (func.dfg.value_const(x), func.dfg.value_const(y)) {
                EdgeArg::Consts(a, c)
            } else if pending.contains(&(x, y)) {
                EdgeArg::Pair(x, y)
            } else {
                return None;
            };
            out.push((t, arg));
        }
    }
    // A block reached from nowhere keeps its parameters.
    (!out.is_empty()).then_some(out)
}

fn fuse(func: &mut Function, p: Value, q: Value, edges: Vec<(Inst, EdgeArg)>) {
    let (Some((b, ip)), Some((_, iq))) = (param_of(func, p), param_of(func, q)) else {
        return;
    };
    let w = func.dfg.append_block_param(b, Type::B64);
    // The old parameters, as halves of the new one, at the top of the block.
    let mut cur = crate::ir::FuncCursor::new(func);
    match cur.func.layout.first_inst(b) {
        Some(first) => cur.goto_inst(first),
        None => cur.goto_end(b),
    }
    let lo = cur.ins().lo(w);
    let hi = cur.ins().hi(w);
    // Uses of p, q read the halves (the branch arguments for them too: removed below).
    cur.func.rewrite_uses(|v| {
        if v == p {
            lo
        } else if v == q {
            hi
        } else {
            v
        }
    });
    // Each edge passes the whole value.
    let edges_into: Vec<Inst> = edges.iter().map(|(t, _)| *t).collect();
    for (t, arg) in edges {
        let val = match arg {
            EdgeArg::Whole(v) => v,
            EdgeArg::Same => w,
            EdgeArg::Consts(a, c) => {
                cur.goto_inst(t);
                cur.ins()
                    .iconst(Type::B64, (a & 0xFFFF_FFFF) | (c & 0xFFFF_FFFF) << 32)
            }
            EdgeArg::Pair(x, y) => {
                cur.goto_inst(t);
                cur.ins().concat(x, y)
            }
        };
        for d in cur.func.dfg.insts[t].branch_destinations_mut() {
            if d.block == b {
                d.args.push(val);
            }
        }
    }
    // Drop the two b32 parameters and their arguments (higher index first).
    let (hi_idx, lo_idx) = if ip > iq { (ip, iq) } else { (iq, ip) };
    let preds: Vec<Inst> = edges_into.clone();
    for idx in [hi_idx, lo_idx] {
        cur.func.dfg.remove_block_param(b, idx);
        for &t in &preds {
            for d in cur.func.dfg.insts[t].branch_destinations_mut() {
                if d.block == b && idx < d.args.len() {
                    d.args.remove(idx);
                }
            }
        }
    }
}
