//! Counted loops: recognizes `for (iv = init; iv < n; iv += step)` in the IR, the shape
//! loop unrolling transforms and the value-range analysis reasons about.
//!
//! A counted loop has a single latch and a single preheader edge into its header; the header
//! holds only constants and its exit test `brif (icmp cc iv, n)`, whose one destination in
//! the loop (the body entry, without parameters or arguments) dominates every other loop
//! block (the exit may take arguments); `iv` is a `b32` header parameter that the latch advances by a constant step `0 < s <= 2^20`
//! (`jump header(.., iv + s, ..)`), `n` is defined outside the loop (or is a header
//! constant), and the loop continues while `iv < n`, signed or unsigned, after normalizing
//! the operand order and the branch sense. A guarded loop ([`recognize_guarded`]) has the
//! same shape and test, whatever the latch passes for `iv` (a grid-stride loop's invariant
//! step, say): inside it `iv < n` still holds on every iteration. [`recognize_descending`]
//! also accepts a loop counting down: the latch passes `iv - s` and the loop continues while
//! `iv > n` (`iv != 0` is `iv >u 0`); [`recognize`] and [`recognize_guarded`] never describe
//! one (their users reason about `iv < n`).
//!
//! Requires: a verified function and its CFG, dominator tree and loop info. Guarantees:
//! [`recognize`] only describes loops of that shape; it changes nothing.

use crate::ir::{
    Block, ControlFlowGraph, DominatorTree, Function, Inst, InstructionData, IntCC, LoopInfo,
    Opcode, Type, Value,
};
use crate::FastHashMap;
use smallvec::SmallVec;

/// Largest step a counted loop may take.
pub const MAX_STEP: u32 = 1 << 20;

/// A loop guarded by its header's test `iv < n` (module doc), whatever the latch adds to
/// `iv`: inside the loop, `iv < n` holds.
#[derive(Clone, Debug)]
pub struct GuardedLoop {
    /// The loop header.
    pub header: Block,
    /// The block entering the header from outside the loop.
    pub pre: Block,
    /// The block jumping back to the header.
    pub latch: Block,
    /// Loop blocks other than the header, in reverse post-order.
    pub body: Vec<Block>,
    /// The header's successor inside the loop.
    pub body_entry: Block,
    /// Index of the induction variable among the header parameters.
    pub iv: usize,
    /// The induction variable (a header parameter).
    pub iv_value: Value,
    /// Its value on entry (the preheader's argument).
    pub init: Value,
    /// The bound `n` of `iv < n`.
    pub bound: Value,
    /// Whether the comparison is signed.
    pub signed: bool,
    /// The loop counts down: it continues while `iv > bound` (and a counted loop's latch
    /// passes `iv - step`); only from [`recognize_descending`].
    pub descending: bool,
    /// `iconst`s in the header.
    pub header_consts: Vec<Inst>,
}

/// A recognized counted loop: a guarded loop whose latch adds a constant step.
#[derive(Clone, Debug)]
pub struct CountedLoop {
    /// The loop's shape and test.
    pub guard: GuardedLoop,
    /// The constant step the latch adds.
    pub step: u32,
}

impl std::ops::Deref for CountedLoop {
    type Target = GuardedLoop;
    fn deref(&self) -> &GuardedLoop {
        &self.guard
    }
}

/// The loop headed by `h` if it is a counted loop counting up (module doc).
pub fn recognize(
    func: &Function,
    cfg: &ControlFlowGraph,
    dt: &DominatorTree,
    loops: &LoopInfo,
    h: Block,
) -> Option<CountedLoop> {
    counted(func, recognize_guarded(func, cfg, dt, loops, h)?)
}

/// The loop headed by `h` if it is a counted loop counting up or down (module doc).
pub fn recognize_descending(
    func: &Function,
    cfg: &ControlFlowGraph,
    dt: &DominatorTree,
    loops: &LoopInfo,
    h: Block,
) -> Option<CountedLoop> {
    counted(func, guarded(func, cfg, dt, loops, h, true)?)
}

/// `guard` with the constant step its latch adds (subtracts, counting down).
fn counted(func: &Function, guard: GuardedLoop) -> Option<CountedLoop> {
    // The latch passes `iv + s`.
    let lt = func.layout.last_inst(guard.latch)?;
    let InstructionData::Jump { ref dests, .. } = func.dfg.insts[lt] else {
        return None;
    };
    let next = *dests[0].args.get(guard.iv)?;
    let add = func.dfg.value_inst(next)?;
    if func.dfg.opcode(add) != Opcode::Iadd {
        return None;
    }
    let a = func.dfg.inst_args(add);
    let added = match (a[0] == guard.iv_value, a[1] == guard.iv_value) {
        (true, false) => func.dfg.value_const(a[1])?,
        (false, true) => func.dfg.value_const(a[0])?,
        _ => return None,
    } as u32;
    let step = if guard.descending {
        added.wrapping_neg()
    } else {
        added
    };
    if step == 0 || step > MAX_STEP {
        return None;
    }
    Some(CountedLoop { guard, step })
}

/// The loop headed by `h` if it has a counted loop's shape and test (module doc), whatever
/// its latch passes for `iv`.
pub fn recognize_guarded(
    func: &Function,
    cfg: &ControlFlowGraph,
    dt: &DominatorTree,
    loops: &LoopInfo,
    h: Block,
) -> Option<GuardedLoop> {
    guarded(func, cfg, dt, loops, h, false)
}

fn guarded(
    func: &Function,
    cfg: &ControlFlowGraph,
    dt: &DominatorTree,
    loops: &LoopInfo,
    h: Block,
    down_ok: bool,
) -> Option<GuardedLoop> {
    if !loops.is_header(h) {
        return None;
    }
    let preds = cfg.preds(h);
    let latches: Vec<Block> = preds
        .iter()
        .copied()
        .filter(|&p| dt.dominates(h, p))
        .collect();
    let outside: Vec<Block> = preds
        .iter()
        .copied()
        .filter(|&p| !dt.dominates(h, p))
        .collect();
    let ([latch], [pre]) = (&latches[..], &outside[..]) else {
        return None;
    };
    let (latch, pre) = (*latch, *pre);
    let members: crate::FastHashSet<Block> = loops.loop_blocks(h).iter().copied().collect();
    let in_loop = |b: Block| members.contains(&b);
    let body: Vec<Block> = dt
        .rpo()
        .iter()
        .copied()
        .filter(|&b| b != h && in_loop(b))
        .collect();
    // The header: constants, then `c = icmp ..; brif c, ..`.
    let (header_consts, insts): (Vec<Inst>, Vec<Inst>) = func
        .layout
        .block_insts(h)
        .partition(|&i| func.dfg.opcode(i) == Opcode::Iconst);
    let [cmp, br] = insts[..] else {
        return None;
    };
    let InstructionData::IntCompare { cond, args, .. } = func.dfg.insts[cmp] else {
        return None;
    };
    let InstructionData::Brif { arg, ref dests, .. } = func.dfg.insts[br] else {
        return None;
    };
    if arg[0] != func.dfg.first_result(cmp)? {
        return None;
    }
    // The exit may pass arguments; the edge into the body passes none.
    let (body_entry, continue_if_true) = match (in_loop(dests[0].block), in_loop(dests[1].block)) {
        (true, false) if dests[0].args.is_empty() => (dests[0].block, true),
        (false, true) if dests[1].args.is_empty() => (dests[1].block, false),
        _ => return None,
    };
    if body_entry == h
        || !func.dfg.block_params(body_entry).is_empty()
        || body.iter().any(|&b| !dt.dominates(body_entry, b))
    {
        return None;
    }
    // Normalize to `continue iff iv CC bound`.
    let params = func.dfg.block_params(h);
    let (iv_value, bound, mut cc) = if params.contains(&args[0]) {
        (args[0], args[1], cond)
    } else if params.contains(&args[1]) {
        (args[1], args[0], cond.swap_args())
    } else {
        return None;
    };
    if !continue_if_true {
        cc = cc.inverse();
    }
    // `iv != 0` is `iv >u 0`.
    if cc == IntCC::Ne && func.dfg.value_const(bound) == Some(0) {
        cc = IntCC::Ugt;
    }
    let (signed, descending) = match cc {
        IntCC::Slt => (true, false),
        IntCC::Ult => (false, false),
        IntCC::Sgt if down_ok => (true, true),
        IntCC::Ugt if down_ok => (false, true),
        _ => return None,
    };
    if func.dfg.value_type(iv_value) != Type::B32 || func.dfg.value_type(bound) != Type::B32 {
        return None;
    }
    let defined_outside = match func.dfg.value_inst(bound) {
        Some(i) => {
            header_consts.contains(&i) || func.layout.inst_block(i).is_some_and(|b| !in_loop(b))
        }
        None => {
            !params.contains(&bound)
                && !body
                    .iter()
                    .any(|&b| func.dfg.block_params(b).contains(&bound))
        }
    };
    if !defined_outside {
        return None;
    }
    let iv = params.iter().position(|&p| p == iv_value)?;
    // The preheader branches to the header on exactly one of its edges.
    let pt = func.layout.last_inst(pre)?;
    let mut to_header = func.dfg.insts[pt]
        .branch_destinations()
        .iter()
        .filter(|d| d.block == h);
    let (Some(edge), None) = (to_header.next(), to_header.next()) else {
        return None;
    };
    let init = *edge.args.get(iv)?;
    Some(GuardedLoop {
        header: h,
        pre,
        latch,
        body,
        body_entry,
        iv,
        iv_value,
        init,
        bound,
        signed,
        descending,
        header_consts,
    })
}

/// Copies `blocks` (with their parameters, instructions and cold marks, in order) into new
/// blocks placed before `before` in the layout. Operands are looked up in `map`, which the caller seeds with
/// replacements for values defined outside the copied blocks and which receives the copy of
/// every copied parameter and result; branches to a copied block go to its copy. Returns the
/// copy of each block and of each instruction. The copies are not yet reachable.
pub fn copy_blocks(
    func: &mut Function,
    blocks: &[Block],
    before: Block,
    map: &mut FastHashMap<Value, Value>,
) -> (FastHashMap<Block, Block>, FastHashMap<Inst, Inst>) {
    let mut block_map: FastHashMap<Block, Block> = FastHashMap::default();
    for &b in blocks {
        let nb = func.dfg.make_block();
        func.dfg.set_cold(nb, func.dfg.is_cold(b));
        func.layout.insert_block(nb, before);
        let params: SmallVec<[Value; 4]> = func.dfg.block_params(b).iter().copied().collect();
        for p in params {
            let ty = func.dfg.value_type(p);
            let np = func.dfg.append_block_param(nb, ty);
            map.insert(p, np);
        }
        block_map.insert(b, nb);
    }
    let mut inst_map: FastHashMap<Inst, Inst> = FastHashMap::default();
    let mut insts: Vec<Inst> = Vec::new();
    for &b in blocks {
        let nb = block_map[&b];
        insts.clear();
        insts.extend(func.layout.block_insts(b));
        for &inst in &insts {
            let mut data = func.dfg.insts[inst].clone();
            data.map_values(|v| map.get(&v).copied().unwrap_or(v));
            for d in data.branch_destinations_mut() {
                if let Some(&nd) = block_map.get(&d.block) {
                    d.block = nd;
                }
            }
            let ni = func.dfg.make_inst(data);
            let results: SmallVec<[Value; 4]> = SmallVec::from_slice(func.dfg.inst_results(inst));
            for r in results {
                let ty = func.dfg.value_type(r);
                let nr = func.dfg.append_result(ni, ty);
                map.insert(r, nr);
            }
            if let Some(pos) = func.srclocs.get(inst).copied() {
                func.srclocs[ni] = pos;
            }
            func.layout.append_inst(ni, nb);
            inst_map.insert(inst, ni);
        }
    }
    (block_map, inst_map)
}
