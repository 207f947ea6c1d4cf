//! Counted loops: recognizes `for (iv = init; iv < n; iv += step)` in the IR, the shape
//! loop unrolling transforms and the value-range analysis reasons about.
//!
//! A counted loop has a single latch and a single preheader edge into its header; the header
//! holds only constants and its exit test `brif (icmp cc iv, n)`, whose one destination in
//! the loop (the body entry, without parameters or arguments) dominates every other loop
//! block (the exit may take arguments); `iv` is a `b32` header parameter that the latch advances by a constant step `0 < s <= 2^20`
//! (`jump header(.., iv + s, ..)`, or `iv - (-s)`), `n` is defined outside the loop (or is a header
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
    /// passes `iv - step`); only from [`recognize_descending`] (and, for `test` `>=`, from
    /// [`recognize_constant_trips`]).
    pub descending: bool,
    /// `iconst`s in the header.
    pub header_consts: Vec<Inst>,
    /// The loop continues while `iv test bound` (normalized: `Slt`/`Ult`, `Sgt`/`Ugt`
    /// counting down, any condition from [`recognize_constant_trips`]).
    pub test: IntCC,
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
    counted(func, guarded(func, cfg, dt, loops, h, Tests::UpDown)?)
}

/// `guard` with the constant step its latch adds (subtracts, counting down).
pub(crate) fn counted(func: &Function, guard: GuardedLoop) -> Option<CountedLoop> {
    // The latch passes `iv + s` (counting down, `iv - s`), as an addition or a subtraction.
    let lt = func.layout.last_inst(guard.latch)?;
    let InstructionData::Jump { ref dests, .. } = func.dfg.insts[lt] else {
        return None;
    };
    let next = *dests[0].args.get(guard.iv)?;
    let add = func.dfg.value_inst(next)?;
    let a = func.dfg.inst_args(add);
    let iv = guard.iv_value;
    // `iv + c`, `c + iv` or `iv - c` (which adds `-c`).
    let added = match (func.dfg.opcode(add), a[0] == iv, a[1] == iv) {
        (Opcode::Iadd, true, false) => func.dfg.value_const(a[1])? as u32,
        (Opcode::Iadd, false, true) => func.dfg.value_const(a[0])? as u32,
        (Opcode::Isub, true, false) => (func.dfg.value_const(a[1])? as u32).wrapping_neg(),
        _ => return None,
    };
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
    guarded(func, cfg, dt, loops, h, Tests::Up)
}

/// The exit tests a recognizer accepts.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tests {
    /// `iv < n`.
    Up,
    /// `iv < n` or `iv > n`.
    UpDown,
    /// Any comparison.
    Any,
}

/// The loop headed by `h` whose counter starts at a constant, is compared with a constant by
/// its header's test (any condition) and is advanced by its latch with one pure operation on
/// the counter and constants (`iv >> 1`, `iv * 2`, `iv + 3`, ...), with a counted loop's
/// shape otherwise (module doc); and the number of times its body runs, when at most `max`.
/// The count comes from running the test and the operation with the interpreter's semantics
/// ([`crate::eval`]), so it is exact for every operation and condition.
pub fn recognize_constant_trips(
    func: &Function,
    cfg: &ControlFlowGraph,
    dt: &DominatorTree,
    loops: &LoopInfo,
    h: Block,
    max: u32,
) -> Option<(GuardedLoop, u32)> {
    use crate::eval::{controlling_type, eval_pure, icmp};
    let guard = guarded(func, cfg, dt, loops, h, Tests::Any)?;
    let bound = func.dfg.value_const(guard.bound)?;
    let mut iv = func.dfg.value_const(guard.init)?;
    let lt = func.layout.last_inst(guard.latch)?;
    let InstructionData::Jump { ref dests, .. } = func.dfg.insts[lt] else {
        return None;
    };
    let next = *dests[0].args.get(guard.iv)?;
    let step = func.dfg.value_inst(next)?;
    let data = &func.dfg.insts[step];
    if !crate::gvn::is_pure(data) || func.dfg.inst_results(step) != [next] {
        return None;
    }
    let args = func.dfg.inst_args(step);
    let consts: Option<SmallVec<[Option<u64>; 3]>> = args
        .iter()
        .map(|&a| {
            if a == guard.iv_value {
                Some(None)
            } else {
                func.dfg.value_const(a).map(Some)
            }
        })
        .collect();
    let consts = consts?;
    let tys: SmallVec<[Type; 3]> = args.iter().map(|&a| func.dfg.value_type(a)).collect();
    let ty = controlling_type(data, &tys);
    let mut trips = 0;
    while icmp(guard.test, iv, bound, Type::B32) {
        if trips == max {
            return None;
        }
        let vals: SmallVec<[u64; 3]> = consts.iter().map(|c| c.unwrap_or(iv)).collect();
        iv = *eval_pure(data, ty, &vals)?.first()?;
        trips += 1;
    }
    Some((guard, trips))
}

/// The loop headed by `h` if it has a counted loop's shape and a test `tests` accepts
/// (with [`Tests::Any`]: counting down for `iv > n` and `iv >= n`; `test` says which).
pub(crate) fn guarded(
    func: &Function,
    cfg: &ControlFlowGraph,
    dt: &DominatorTree,
    loops: &LoopInfo,
    h: Block,
    tests: Tests,
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
    // In reverse post-order, sorted from the loop's own blocks (not filtered from the whole
    // function's order: that is quadratic in the number of loops).
    let mut body: Vec<Block> = loops
        .loop_blocks(h)
        .iter()
        .copied()
        .filter(|&b| b != h && dt.is_reachable(b))
        .collect();
    body.sort_unstable_by_key(|&b| dt.rpo_number(b));
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
    let down_ok = tests != Tests::Up;
    let (signed, descending) = match cc {
        IntCC::Slt => (true, false),
        IntCC::Ult => (false, false),
        IntCC::Sgt if down_ok => (true, true),
        IntCC::Ugt if down_ok => (false, true),
        _ if tests == Tests::Any => (
            matches!(cc, IntCC::Sle | IntCC::Sge),
            matches!(cc, IntCC::Sge | IntCC::Uge),
        ),
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
        test: cc,
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
            let ni = make_copy(func, inst, data, map);
            func.layout.append_inst(ni, nb);
            inst_map.insert(inst, ni);
        }
    }
    (block_map, inst_map)
}

/// A new instruction `data` standing for a copy of `inst` (not yet in the layout): results of
/// `inst`'s types, each recorded in `map` as the copy of the original, and `inst`'s source
/// position.
pub(crate) fn make_copy(
    func: &mut Function,
    inst: Inst,
    data: crate::ir::InstructionData,
    map: &mut FastHashMap<Value, Value>,
) -> Inst {
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
    ni
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{parse_function_text, Analyses};

    /// The loop `for (v10 = init; v10 cc bound; v10 = next(v10, k))` and its header.
    fn with_loop<T>(
        init: u32,
        cc: &str,
        bound: u32,
        next: &str,
        k: u32,
        f: impl FnOnce(&Function, &ControlFlowGraph, &DominatorTree, &LoopInfo, Block) -> T,
    ) -> T {
        let text = format!(
            "kernel %k {{
    group_size 1, 1, 1
    uav0 = raw

block0:
    v0 = iconst.b32 {init:#x}
    v1 = iconst.b32 {bound:#x}
    v3 = iconst.b32 {k:#x}
    jump block1(v0)

block1(v10: b32):
    v11 = icmp {cc} v10, v1
    brif v11, block2, block3

block2:
    store.b32 uav0[v10], v10
    v12 = {next} v10, v3
    jump block1(v12)

block3:
    return
}}
"
        );
        let func = parse_function_text(&text).expect("parses");
        let mut analyses = Analyses::new();
        let (cfg, dt, loops) = analyses.loops(&func);
        let h = func.layout.blocks().nth(1).expect("the header");
        f(&func, cfg, dt, loops, h)
    }

    /// The trip count of [`with_loop`]'s loop, when at most `max`.
    fn trips(init: u32, cc: &str, bound: u32, next: &str, k: u32, max: u32) -> Option<u32> {
        with_loop(init, cc, bound, next, k, |f, cfg, dt, loops, h| {
            recognize_constant_trips(f, cfg, dt, loops, h, max).map(|(_, t)| t)
        })
    }

    #[test]
    fn loop_bodies_are_in_reverse_post_order() {
        // A diamond in the body laid out with its join first: the body is the loop's own
        // blocks in reverse post-order, not in layout order.
        let text = "kernel %k {
    group_size 1, 1, 1
    uav0 = raw

block0:
    v0 = iconst.b32 0x0
    v1 = iconst.b32 0x10
    v2 = iconst.b32 0x1
    jump block4(v0)

block4(v20: b32):
    v21 = icmp ult v20, v1
    brif v21, block5, block9

block8:
    v22 = iadd v20, v2
    jump block4(v22)

block6:
    store.b32 uav0[v20], v20
    jump block8

block5:
    v23 = icmp eq v20, v0
    brif v23, block6, block7

block7:
    store.b32 uav0[v20], v0
    jump block8

block9:
    return
}
";
        let func = parse_function_text(text).expect("parses");
        let mut analyses = Analyses::new();
        let (cfg, dt, loops) = analyses.loops(&func);
        let blocks: Vec<Block> = func.layout.blocks().collect();
        let (h, body) = (blocks[1], [2, 3, 4, 5].map(|k| blocks[k]));
        let c = recognize(&func, cfg, dt, loops, h).expect("a counted loop");
        let expected: Vec<Block> = dt
            .rpo()
            .iter()
            .copied()
            .filter(|b| body.contains(b))
            .collect();
        assert_eq!(c.guard.body, expected);
        assert_eq!(
            c.guard.body[0], blocks[4],
            "the body entry (block5) comes first"
        );
        assert_eq!(
            c.guard.body.last(),
            Some(&blocks[2]),
            "the latch (block8) comes last"
        );
    }

    #[test]
    fn constant_trip_counts_of_any_operation() {
        // Halving from 64 while non-zero: 64, 32, ..., 1.
        assert_eq!(trips(64, "ne", 0, "ushr", 1, 16), Some(7));
        // Doubling from 1 while below 100: 1, 2, ..., 64.
        assert_eq!(trips(1, "ult", 100, "imul", 2, 16), Some(7));
        assert_eq!(trips(1, "ult", 100, "ishl", 1, 16), Some(7));
        // Counting up by 3 while at most 10 (0, 3, 6, 9), and a loop that never runs.
        assert_eq!(trips(0, "ule", 10, "iadd", 3, 16), Some(4));
        assert_eq!(trips(5, "slt", 5, "iadd", 1, 16), Some(0));
        // Signed: counting down from 2 by subtracting while >= -2 (2, 1, 0, -1, -2).
        assert_eq!(trips(2, "sge", 0xffff_fffe, "isub", 1, 16), Some(5));
        // Over the limit, or never ending (0 >> 1 stays 0).
        assert_eq!(trips(1 << 20, "ne", 0, "ushr", 1, 16), None);
        assert_eq!(trips(0, "eq", 0, "ushr", 1, 16), None);
    }

    /// A counter decremented by `isub` is a counted loop counting down; one incremented by
    /// `isub` of a negative constant one counting up.
    #[test]
    fn subtracting_latches_count() {
        for (init, cc, bound, k, step, descending) in [
            (10u32, "ugt", 0u32, 1u32, 1u32, true),
            (0, "slt", 100, 0xffff_fffe, 2, false),
        ] {
            let c = with_loop(init, cc, bound, "isub", k, |f, cfg, dt, loops, h| {
                recognize_descending(f, cfg, dt, loops, h).expect("a counted loop")
            });
            assert_eq!((c.step, c.descending), (step, descending), "{init} {cc}");
        }
    }
}
