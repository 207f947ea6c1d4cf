//! Loop strength reduction of addresses: a value in a loop that some memory access uses as
//! its base address, that is affine in the loop's induction variables ([`crate::affine`]) and
//! costs several instructions per iteration (`(i * n + x) << 2`) becomes a new induction
//! variable `p`, which starts at the base's value in the first iteration and grows by the
//! base's growth per iteration. Every use of the base in the loop reads `p` instead.
//!
//! For each innermost loop with a single latch and a single entry edge, each access's address
//! has the constants added at its top removed (`a = base + c`: the copies of an unrolled body
//! at `base + 16 * j` share one base). A base is reduced when its growth `K` is not zero and
//! the loop-dependent instructions computing it weigh at least [`MIN_WEIGHT`] (integer
//! multiplies count 3: on SM50 a 32-bit multiply is a three-`XMAD` sequence; a shift feeding
//! an add counts 0, `ISCADD` does both; everything else 1); a base that adds an invariant to
//! a reduced one (`a + r` next to `a`) is not, it becomes `p + r`, one add as before; at most
//! [`MAX_GROUPS`] new variables per loop (each holds a register across the loop).
//!
//! A base that differs from an earlier reduced or derived base `s` only by invariants added
//! on the way (`((i + 1) * n + x) << 2` next to `(i * n + x) << 2`, the copies of an unrolled
//! body: both grow alike) is derived instead: `s + d` in the loop, with the difference `d`
//! (a linear form over values defined outside the loop, here `n << 2`) computed in front of
//! it. That is one add per iteration, as the new variable's increment would be, without
//! another register held across the loop. The source is the latest base whose difference is
//! a constant or already computed for another derived base (chained copies share one `d`),
//! else the shallowest one. Chains are not cut short: the copies of an unrolled body become
//! one chain of adds from the group's variable (as ptxas chains its 64-bit address adds),
//! so the loop holds one difference `d` instead of one per copy (see [`derivation`]).
//!
//! ```text
//! pre: jump H(args)        pre: jump N(args)
//!                          N:      p0 := base with the induction variables at args
//!                                  K  := growth (a constant, or computed from the steps)
//!                                  jump H(args, p0)
//! H(..):                   H(.., p):
//!   b = base(i)              (uses of b read p)
//! latch: jump H(..)        latch: jump H(.., p + K)
//! ```
//!
//! Exactness: every operation of an affine base is a ring operation modulo 2^32 (or an
//! alignment mask that commutes with the growth), so `base(j) = base(0) + K * j (mod 2^32)`
//! in iteration `j`, with any wrap-around, and `p` holds exactly that in that iteration. The
//! alignment the old address showed (`known_align`) is recorded on each access, so
//! `mem_combine` still forms vector accesses through `p`.
//!
//! Requires: a verified SSA function; meant to run after unrolling and before `addr_fold`.
//! Guarantees: the same observable behaviour; a verifier-clean function. The old base
//! computations are left to DCE.

use crate::addr_fold::const_added;
use crate::affine::{induction_variables, At, Coef, Eval, Lin, LoopShape, Scope};
use crate::ir::{
    Analyses, Block, ControlFlowGraph, FuncCursor, Function, Inst, InstructionData, LoopInfo,
    Opcode, Type, Value,
};
use crate::mem_combine::{known_align, offset_align};
use crate::{FastHashMap as HashMap, FastHashSet as HashSet};

/// Least weight of the loop-dependent part of an address worth a new induction variable
/// (which costs an add per iteration and a register).
pub const MIN_WEIGHT: u32 = 3;
/// Most new induction variables per loop (each holds a register across the loop).
pub const MAX_GROUPS: usize = 8;
/// Most instructions visited in one address expression.
const MAX_EXPR: usize = 24;

/// Runs the pass.
pub fn run(func: &mut Function) {
    reduce(func);
}

/// As [`run`], with `func`'s cached analyses (the pipeline revalidates them afterwards).
pub fn run_with(func: &mut Function, analyses: &mut Analyses) {
    reduce_with(func, analyses);
}

/// A loop to rewrite: its shape and the bases to reduce.
struct Candidate {
    shape: LoopShape,
    members: HashSet<Block>,
    /// Each induction variable's step, a value defined outside the loop.
    steps: HashMap<Value, Value>,
    /// The bases to reduce and their growths, in program order.
    groups: Vec<(Value, Coef)>,
    /// Bases derived from an earlier group or derived base plus an invariant difference, in
    /// program order (sources first).
    derived: Vec<Derived>,
}

/// A base computed as `src + d` in the loop: `src` an earlier reduced or derived base,
/// `d` an invariant linear form emitted in front of the loop.
struct Derived {
    base: Value,
    src: Value,
    d: Lin,
    /// Adds between `base` and the group it derives from.
    depth: u32,
}

/// Reduces every candidate loop; returns how many bases became induction variables.
pub fn reduce(func: &mut Function) -> usize {
    reduce_with(func, &mut Analyses::new())
}

/// As [`reduce`], with `func`'s cached analyses (used before any change).
pub fn reduce_with(func: &mut Function, analyses: &mut Analyses) -> usize {
    let (cfg, _, loops) = analyses.loops(func);
    let mut found = Vec::new();
    for &h in &loops.headers {
        crate::budget::tick();
        if let Some(c) = candidate(func, cfg, loops, h) {
            found.push(c);
        }
    }
    // Innermost loops are disjoint, so rewriting one leaves the others' analysis valid.
    found.iter().map(|c| apply(func, c)).sum()
}

fn candidate(
    func: &Function,
    cfg: &ControlFlowGraph,
    loops: &LoopInfo,
    h: Block,
) -> Option<Candidate> {
    if func.dfg.is_cold(h) {
        return None;
    }
    let blocks = loops.loop_blocks(h);
    if blocks.iter().any(|&b| b != h && loops.is_header(b)) {
        return None;
    }
    let members: HashSet<Block> = blocks.iter().copied().collect();
    let (inside, outside): (Vec<Block>, Vec<Block>) =
        cfg.preds(h).iter().partition(|b| members.contains(b));
    let ([latch], [pre]) = (inside.as_slice(), outside.as_slice()) else {
        return None;
    };
    let (latch, pre) = (*latch, *pre);
    // One edge from the preheader (a `brif` to the header on both arms would need two).
    let pre_term = func.layout.last_inst(pre)?;
    let edges = func.dfg.insts[pre_term]
        .branch_destinations()
        .iter()
        .filter(|d| d.block == h)
        .count();
    let latch_term = func.layout.last_inst(latch)?;
    if edges != 1 || func.dfg.insts[latch_term].branch_destinations().len() != 1 {
        return None;
    }
    let shape = LoopShape {
        header: h,
        pre,
        latch,
        first: None,
    };
    let found = induction_variables(func, &shape, &members);
    let ivs: HashMap<Value, Coef> = found.iter().map(|iv| (iv.param, iv.coef)).collect();
    let steps: HashMap<Value, Value> = found.iter().map(|iv| (iv.param, iv.step)).collect();
    if ivs.is_empty() {
        return None;
    }
    let scope = Scope { func, members, ivs };
    let mut groups: Vec<(Value, Coef)> = Vec::new();
    let mut derived: Vec<Derived> = Vec::new();
    for &b in blocks {
        for inst in func.layout.block_insts(b) {
            let Some(addr) = func.dfg.insts[inst].mem_addr() else {
                continue;
            };
            let base = without_constants(func, addr);
            if groups.iter().any(|g| g.0 == base)
                || derived.iter().any(|d| d.base == base)
                || scope.outside(base)
                || scope.ivs.contains_key(&base)
                || func.dfg.value_type(base) != Type::B32
            {
                continue;
            }
            let mut budget = MAX_EXPR;
            let Some(k) = scope.coef(base, &mut budget) else {
                continue;
            };
            // A base that adds an invariant to an earlier one (`a + r` next to `a`) becomes
            // `p + r`, one add as before, when the earlier one is reduced.
            if let Some(x) = plus_invariant(&scope, base) {
                if groups.iter().any(|g| g.0 == x) || derived.iter().any(|d| d.base == x) {
                    continue;
                }
            }
            if k.is_zero() || weight(&scope, base, false, &mut HashSet::default()) < MIN_WEIGHT {
                continue;
            }
            // A base that differs from an earlier reduced or derived one by an invariant (the
            // copies of an unrolled body) is derived from it (module doc).
            if let Some(d) = derivation(&scope, &groups, &derived, base) {
                derived.push(d);
                continue;
            }
            if groups.len() == MAX_GROUPS {
                continue;
            }
            groups.push((base, k));
        }
    }
    if groups.is_empty() {
        return None;
    }
    let Scope { members, .. } = scope;
    Some(Candidate {
        shape,
        members,
        steps,
        groups,
        derived,
    })
}

/// `base` as an earlier reduced or derived base available where `base` is defined plus an
/// invariant difference (the source chosen as the module doc says).
///
/// Each add of a chain delays the accesses behind it by an add's latency, but every
/// difference the chain does not share is a register held across the loop. With chains cut
/// at two adds, PolyBench's correlation loop (16 copies of a column walk) held eight odd
/// multiples of the row stride, went over the scheduler's loop budget and issued three of its
/// 16 loads after the first sum waited: modeled cycles 0.73x of that on correlation and
/// covariance, 0.9317 -> 0.9231 of ptxas's over the 61 pairs (0.8895 -> 0.8831 with
/// `--assume-in-bounds`), registers 0.886 -> 0.879 of ptxas's; poly_bicg (+5.6%) and matmul
/// (+3.6%) lost cycles. A limit of 4 gave 0.9253, 8 the same as none except on correlation.
fn derivation(
    scope: &Scope,
    groups: &[(Value, Coef)],
    derived: &[Derived],
    base: Value,
) -> Option<Derived> {
    let func = scope.func;
    let at = func.dfg.value_inst(base)?;
    let block = func.layout.inst_block(at)?;
    // A derived base's new value sits in front of its old definition: usable when that
    // comes earlier in the block of `base`. A group's variable is a header parameter.
    let available = |src: Value| {
        func.dfg
            .value_inst(src)
            .is_some_and(|i| func.layout.inst_block(i) == Some(block) && precedes(func, i, at))
    };
    // Candidate sources with their depth in the chain of adds (a group's is 0).
    let sources: Vec<(Value, u32)> = derived
        .iter()
        .rev()
        .filter(|d| available(d.base))
        .map(|d| (d.base, d.depth))
        .chain(groups.iter().rev().map(|g| (g.0, 0)))
        .collect();
    let diffs: Vec<(Value, u32, Lin)> = sources
        .into_iter()
        .filter_map(|(src, depth)| {
            let mut budget = MAX_EXPR;
            Some((src, depth, difference(scope, base, src, &mut budget)?))
        })
        .collect();
    // The latest source whose difference is a constant or already held; else the
    // shallowest source (a new invariant).
    let shared = diffs
        .iter()
        .find(|(_, _, d)| d.terms.is_empty() || derived.iter().any(|o| o.d == *d));
    let (src, depth, d) = shared
        .or_else(|| diffs.iter().min_by_key(|x| x.1))
        .cloned()?;
    Some(Derived {
        base,
        src,
        d,
        depth: depth + 1,
    })
}

/// True if `a` comes before `b` in their (common) block.
fn precedes(func: &Function, a: Inst, b: Inst) -> bool {
    let mut cur = func.layout.prev_inst(b);
    while let Some(i) = cur {
        if i == a {
            return true;
        }
        cur = func.layout.prev_inst(i);
    }
    false
}

/// `a - b` as an invariant linear form, when the two differ only by invariants added on
/// the way (through common shifts by a constant).
fn difference(scope: &Scope, a: Value, b: Value, budget: &mut usize) -> Option<Lin> {
    if a == b {
        return Some(Lin::default());
    }
    *budget = budget.checked_sub(1)?;
    if let Some((x, r, k)) = split_invariant(scope, a) {
        let r = invariant(scope, r, budget)?;
        return difference(scope, x, b, budget)?.add_scaled(&r, k);
    }
    if let Some((y, r, k)) = split_invariant(scope, b) {
        let r = invariant(scope, r, budget)?;
        return difference(scope, a, y, budget)?.add_scaled(&r, k.wrapping_neg());
    }
    let func = scope.func;
    let (ia, ib) = (func.dfg.value_inst(a)?, func.dfg.value_inst(b)?);
    let (
        InstructionData::Binary {
            opcode: Opcode::Ishl,
            args: [x, s],
        },
        InstructionData::Binary {
            opcode: Opcode::Ishl,
            args: [y, t],
        },
    ) = (&func.dfg.insts[ia], &func.dfg.insts[ib])
    else {
        return None;
    };
    let s = func.dfg.value_const(*s)?;
    if func.dfg.value_const(*t)? != s || s >= 32 {
        return None;
    }
    difference(scope, *x, *y, budget)?.scale(1 << s)
}

/// `(x, r, k)` when `v` is `x + k * r` with `r` invariant and `x` not (`k` is 1 or -1).
fn split_invariant(scope: &Scope, v: Value) -> Option<(Value, Value, u32)> {
    let func = scope.func;
    let inst = func.dfg.value_inst(v)?;
    let InstructionData::Binary { opcode, args } = func.dfg.insts[inst] else {
        return None;
    };
    let inv = |v: Value| invariant(scope, v, &mut MAX_EXPR.clone()).is_some();
    match opcode {
        Opcode::Iadd if inv(args[1]) && !inv(args[0]) => Some((args[0], args[1], 1)),
        Opcode::Iadd if inv(args[0]) && !inv(args[1]) => Some((args[1], args[0], 1)),
        Opcode::Isub if inv(args[1]) && !inv(args[0]) => Some((args[0], args[1], u32::MAX)),
        _ => None,
    }
}

/// The invariant `v` as a linear form over values defined outside the loop and constants.
fn invariant(scope: &Scope, v: Value, budget: &mut usize) -> Option<Lin> {
    let func = scope.func;
    if let Some(c) = func.dfg.value_const(v) {
        return Some(Lin::konst(c as u32));
    }
    if scope.outside(v) {
        return Some(Lin::atom(v));
    }
    *budget = budget.checked_sub(1)?;
    let inst = func.dfg.value_inst(v)?;
    let InstructionData::Binary { opcode, args } = func.dfg.insts[inst] else {
        return None;
    };
    let konst = |v: Value| func.dfg.value_const(v).map(|c| c as u32);
    match opcode {
        Opcode::Iadd => {
            invariant(scope, args[0], budget)?.add_scaled(&invariant(scope, args[1], budget)?, 1)
        }
        Opcode::Isub => invariant(scope, args[0], budget)?
            .add_scaled(&invariant(scope, args[1], budget)?, u32::MAX),
        Opcode::Imul => match (konst(args[0]), konst(args[1])) {
            (Some(k), _) => invariant(scope, args[1], budget)?.scale(k),
            (_, Some(k)) => invariant(scope, args[0], budget)?.scale(k),
            _ => None,
        },
        Opcode::Ishl => {
            let s = konst(args[1])?;
            if s >= 32 {
                return None;
            }
            invariant(scope, args[0], budget)?.scale(1 << s)
        }
        _ => None,
    }
}

/// `x` when `v` is `x + r` (either order) with `r` invariant, constants added to `x` removed.
fn plus_invariant(scope: &Scope, v: Value) -> Option<Value> {
    let func = scope.func;
    let inst = func.dfg.value_inst(v)?;
    if func.dfg.opcode(inst) != Opcode::Iadd {
        return None;
    }
    let a = func.dfg.inst_args(inst);
    let x = match (scope.outside(a[0]), scope.outside(a[1])) {
        (false, true) => a[0],
        (true, false) => a[1],
        _ => return None,
    };
    Some(without_constants(func, x))
}

/// `v` with the constants added at its top removed (`(b + 4) + 8` is `b`).
fn without_constants(func: &Function, mut v: Value) -> Value {
    while let Some((x, _)) = const_added(func, v) {
        v = x;
    }
    v
}

/// The weight of the loop-dependent instructions computing `v` (module doc), each counted
/// once; `under_add`: `v` is an operand of an add (a shift there is free).
fn weight(scope: &Scope, v: Value, under_add: bool, seen: &mut HashSet<Value>) -> u32 {
    if scope.ivs.contains_key(&v) || scope.outside(v) || !seen.insert(v) {
        return 0;
    }
    let func = scope.func;
    let Some(inst) = func.dfg.value_inst(v) else {
        return 0;
    };
    let op = func.dfg.opcode(inst);
    let own = match op {
        Opcode::Imul | Opcode::Imad => 3,
        Opcode::Ishl if under_add => 0,
        _ => 1,
    };
    let add = op == Opcode::Iadd;
    own + func
        .dfg
        .inst_args(inst)
        .iter()
        .map(|&a| weight(scope, a, add, seen))
        .sum::<u32>()
}

/// Rewrites the loop of `c`; returns the number of accesses rewritten.
fn apply(func: &mut Function, c: &Candidate) -> usize {
    let h = c.shape.header;
    // The alignment each access's effective address shows, taken before its base becomes a
    // parameter (which shows nothing); kept on the access for mem_combine.
    let aligns: Vec<(Inst, u32)> = c
        .members
        .iter()
        .flat_map(|&b| func.layout.block_insts(b))
        .filter_map(|inst| {
            let data = &func.dfg.insts[inst];
            let (addr, mem) = (data.mem_addr()?, data.mem_arg()?);
            let align = known_align(func, addr, 4).min(offset_align(mem.offset));
            Some((inst, align))
        })
        .collect();
    // N: a block between the preheader and the header. The preheader's arguments for the
    // header are defined in blocks dominating it, so N uses them directly (constants stay
    // visible to folding).
    let n = func.dfg.make_block();
    func.layout.insert_block(n, h);
    let hparams: Vec<Value> = func.dfg.block_params(h).to_vec();
    let pre_term = func
        .layout
        .last_inst(c.shape.pre)
        .expect("the candidate's preheader has a terminator");
    let mut nparams: Vec<Value> = Vec::new();
    for d in func.dfg.insts[pre_term].branch_destinations_mut() {
        if d.block == h {
            nparams = d.args.to_vec();
            *d = crate::ir::BlockCall::new(n, &[]);
        }
    }
    // The steps as values available in N: a constant step may be an `iconst` inside the
    // loop, so it is rebuilt in N.
    let mut steps: HashMap<Value, Value> = HashMap::default();
    for (p, &step) in hparams.iter().filter_map(|p| Some(p).zip(c.steps.get(p))) {
        let v = match func.dfg.value_const(step) {
            Some(k) => FuncCursor::new(func).at_end(n).ins().iconst(Type::B32, k),
            None => step,
        };
        steps.insert(*p, v);
    }
    // The induction variables at iterations 0 and 1, in N.
    let mut subst = HashMap::default();
    for (k, &p) in hparams.iter().enumerate() {
        if let Some(&step) = steps.get(&p) {
            let first = nparams[k];
            let second = FuncCursor::new(func).at_end(n).ins().iadd(first, step);
            subst.insert(p, [first, second, first]);
        }
    }
    let mut ev = Eval {
        members: &c.members,
        subst,
        memo: HashMap::default(),
    };
    let mut inits = Vec::with_capacity(c.groups.len());
    let mut growths = Vec::with_capacity(c.groups.len());
    let mut gr = Growth {
        c,
        steps: &steps,
        memo: HashMap::default(),
        cse: HashMap::default(),
    };
    for &(base, k) in &c.groups {
        inits.push(ev.eval(func, n, base, At::First));
        let growth = match k {
            Coef::Const(k) => gr.emit(func, n, Opcode::Iconst, &[], u64::from(k)),
            Coef::Var => gr
                .growth(func, n, &mut ev, base)
                .expect("a base with a non-zero growth has a growth value"),
        };
        growths.push(growth);
    }
    // The derived bases' differences, in N too.
    let diffs: Vec<Option<Value>> = c
        .derived
        .iter()
        .map(|dv| gr.linear(func, n, &mut ev, &dv.d))
        .collect();
    let mut args = nparams.clone();
    args.extend(&inits);
    FuncCursor::new(func).at_end(n).ins().jump(h, &args);
    // The new header parameters, advanced in the latch.
    let latch_term = func
        .layout
        .last_inst(c.shape.latch)
        .expect("the candidate's latch has a terminator");
    let mut map: HashMap<Value, Value> = HashMap::default();
    for (g, &(base, _)) in c.groups.iter().enumerate() {
        let p = func.dfg.append_block_param(h, Type::B32);
        let next = FuncCursor::new(func)
            .at_inst(latch_term)
            .ins()
            .iadd(p, growths[g]);
        let dest = &mut func.dfg.insts[latch_term].branch_destinations_mut()[0];
        debug_assert_eq!(dest.block, h);
        dest.args.push(next);
        map.insert(base, p);
    }
    // Derived bases: `src + d` in front of the old definition, sources first.
    for (dv, &d) in c.derived.iter().zip(&diffs) {
        let src = map[&dv.src];
        let at = func
            .dfg
            .value_inst(dv.base)
            .expect("a derived base is an instruction's result");
        let new = match d {
            Some(d) => FuncCursor::new(func).at_inst(at).ins().iadd(src, d),
            None => src,
        };
        map.insert(dv.base, new);
    }
    // In every iteration `p` equals the base, so every use in the loop may read it.
    for &b in &c.members {
        let insts: Vec<Inst> = func.layout.block_insts(b).collect();
        for inst in insts {
            func.dfg.insts[inst].map_values(|v| map.get(&v).copied().unwrap_or(v));
        }
    }
    // The alignment facts the bases showed, kept on the accesses (mem_combine reads them).
    for &(inst, align) in &aligns {
        if let Some(mem) = func.dfg.insts[inst].mem_arg_mut() {
            mem.align = mem.align.max(align);
        }
    }
    c.groups.len()
}

/// The loop-invariant `v` available in `n` (in front of the loop): itself when it is defined
/// outside the loop `members`, else its computation rebuilt in `n` by `ev` (an unrolled copy's
/// `iconst` or `j * step` sits inside the loop).
fn available(
    func: &mut Function,
    n: Block,
    ev: &mut Eval,
    members: &crate::FastHashSet<Block>,
    v: Value,
) -> Value {
    if crate::affine::defined_outside(func, members, v) || func.dfg.value_inst(v).is_none() {
        return v;
    }
    ev.eval(func, n, v, At::First)
}

/// Emits, in front of the loop, how much affine values grow per iteration, sharing equal
/// computations (the copies of an unrolled body grow alike).
struct Growth<'c> {
    c: &'c Candidate,
    /// Each induction variable's step, available in front of the loop.
    steps: &'c HashMap<Value, Value>,
    /// `None`: the value does not grow.
    memo: HashMap<Value, Option<Value>>,
    cse: HashMap<(Opcode, [Option<Value>; 2], u64), Value>,
}

impl Growth<'_> {
    /// The growth of `v` (accepted by the affine analysis) per iteration, `None` for zero.
    /// Loop-invariant operands computed inside the loop (an unrolled copy's `iconst`, its
    /// `j * step`) are rebuilt in `n` by `ev`, since `n` comes before the loop.
    fn growth(&mut self, func: &mut Function, n: Block, ev: &mut Eval, v: Value) -> Option<Value> {
        if let Some(&step) = self.steps.get(&v) {
            return Some(step);
        }
        if crate::affine::defined_outside(func, &self.c.members, v) {
            return None;
        }
        if let Some(&g) = self.memo.get(&v) {
            return g;
        }
        let inst = func.dfg.value_inst(v)?;
        let args = func.dfg.inst_args(inst).to_vec();
        let gs: Vec<Option<Value>> = args.iter().map(|&a| self.growth(func, n, ev, a)).collect();
        // An operand that does not grow, available in `n`.
        let members = &self.c.members;
        let mut inv = |func: &mut Function, a: Value| available(func, n, ev, members, a);
        let g = if gs.iter().all(Option::is_none) {
            None
        } else {
            let op = func.dfg.opcode(inst);
            match (op, gs.as_slice()) {
                (Opcode::Iadd, [a, b]) => match (*a, *b) {
                    (Some(a), Some(b)) => Some(self.emit2(func, n, Opcode::Iadd, a, b)),
                    (a, b) => a.or(b),
                },
                (Opcode::Isub, [a, b]) => match (*a, *b) {
                    (Some(a), Some(b)) => Some(self.emit2(func, n, Opcode::Isub, a, b)),
                    (Some(a), None) => Some(a),
                    (None, Some(b)) => Some(self.emit(func, n, Opcode::Ineg, &[b], 0)),
                    (None, None) => None,
                },
                (Opcode::Ineg, [Some(a)]) => Some(self.emit(func, n, Opcode::Ineg, &[*a], 0)),
                (Opcode::Imul, [Some(a), None]) => {
                    let b = inv(func, args[1]);
                    Some(self.emit2(func, n, Opcode::Imul, *a, b))
                }
                (Opcode::Imul, [None, Some(b)]) => {
                    let a = inv(func, args[0]);
                    Some(self.emit2(func, n, Opcode::Imul, a, *b))
                }
                (Opcode::Imad, [Some(a), None, k]) | (Opcode::Imad, [None, Some(a), k]) => {
                    let factor = inv(func, if gs[0].is_some() { args[1] } else { args[0] });
                    let prod = self.emit2(func, n, Opcode::Imul, *a, factor);
                    match k {
                        Some(k) => Some(self.emit2(func, n, Opcode::Iadd, prod, *k)),
                        None => Some(prod),
                    }
                }
                (Opcode::Imad, [None, None, Some(k)]) => Some(*k),
                (Opcode::Ishl, [Some(a), None]) => {
                    let b = inv(func, args[1]);
                    Some(self.emit2(func, n, Opcode::Ishl, *a, b))
                }
                // The alignment mask commutes with the growth (the analysis checked it).
                (Opcode::Band, [Some(a), None]) => Some(*a),
                _ => unreachable!("the affine analysis accepts no other growing operation"),
            }
        };
        self.memo.insert(v, g);
        g
    }

    /// The linear form `l` computed at the end of `n`, `None` for zero (atoms computed inside
    /// the loop rebuilt there by `ev`).
    fn linear(&mut self, func: &mut Function, n: Block, ev: &mut Eval, l: &Lin) -> Option<Value> {
        let mut sum: Option<Value> = None;
        for &(atom, k) in &l.terms {
            let atom = available(func, n, ev, &self.c.members, atom);
            let term = if k == 1 {
                atom
            } else if k.is_power_of_two() {
                let s = self.emit(func, n, Opcode::Iconst, &[], u64::from(k.trailing_zeros()));
                self.emit2(func, n, Opcode::Ishl, atom, s)
            } else {
                let k = self.emit(func, n, Opcode::Iconst, &[], u64::from(k));
                self.emit2(func, n, Opcode::Imul, atom, k)
            };
            sum = Some(match sum {
                Some(s) => self.emit2(func, n, Opcode::Iadd, s, term),
                None => term,
            });
        }
        if l.c != 0 {
            let c = self.emit(func, n, Opcode::Iconst, &[], u64::from(l.c));
            sum = Some(match sum {
                Some(s) => self.emit2(func, n, Opcode::Iadd, s, c),
                None => c,
            });
        }
        sum
    }

    fn emit2(&mut self, func: &mut Function, n: Block, op: Opcode, a: Value, b: Value) -> Value {
        self.emit(func, n, op, &[a, b], 0)
    }

    /// `op args` (or `iconst imm`) at the end of `n`, once per distinct computation.
    fn emit(
        &mut self,
        func: &mut Function,
        n: Block,
        op: Opcode,
        args: &[Value],
        imm: u64,
    ) -> Value {
        let key = (op, [args.first().copied(), args.get(1).copied()], imm);
        if let Some(&v) = self.cse.get(&key) {
            return v;
        }
        let mut cur = FuncCursor::new(func).at_end(n);
        let v = match (op, args) {
            (Opcode::Iconst, []) => cur.ins().iconst(Type::B32, imm),
            (Opcode::Ineg, [a]) => cur.ins().ineg(*a),
            (Opcode::Iadd, [a, b]) => cur.ins().iadd(*a, *b),
            (Opcode::Isub, [a, b]) => cur.ins().isub(*a, *b),
            (Opcode::Imul, [a, b]) => cur.ins().imul(*a, *b),
            (Opcode::Ishl, [a, b]) => cur.ins().ishl(*a, *b),
            _ => unreachable!("growths use only these operations"),
        };
        self.cse.insert(key, v);
        v
    }
}
