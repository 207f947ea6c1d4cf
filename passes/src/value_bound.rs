//! Value bounds: an inclusive range `[lo, hi]` of the unsigned value of a `b32` value,
//! proven from its definition without wrap-around.
//!
//! Requires: a verified function. Guarantees: for every execution that respects the
//! hardware's launch limits (and the declared group size, if any), a value lies in the range
//! [`Ranges::range`] gives for it, read as an unsigned 32-bit number. The analysis looks
//! through a bounded depth of pure integer operations, and through the induction variables
//! of counted loops (`for (i = init; i < n; i += step)`: a header holding only constants and
//! the exit test, one latch adding a constant step) and loop parameters that only shrink
//! (`for (s = 512; s > 0; s >>= 1)`: every latch passes the parameter shifted right, masked,
//! `umin`-ed or divided, so it stays within its entry values' bound); other block parameters, loads and
//! anything it does not model are `[0, u32::MAX]`. A sum, difference, product or shift is
//! bounded only when its bounds do not wrap, so every range is sound for the IR's wrapping
//! arithmetic. Where a query names its block, a value that is a linear form over values two
//! of which a branch fact orders there (`x >= y`) is bounded through their difference
//! (`Ranges::relational`), so no sum in it needs to be free of wrap-around.
//!
//! Users: instruction selection, which forms a 64-bit address as `zext(x) + c` instead of
//! `zext(x + c)` only when `x + c` cannot wrap, and leaves out the bounds check of an LDS,
//! private-array or constant-buffer access whose address range lies inside the window.

use crate::affine::Lin;
use crate::ir::{
    Block, ControlFlowGraph, DominatorTree, Function, Inst, InstructionData, IntCC, LoopInfo,
    Opcode, SpecialReg, Type, Value, ValueDef,
};
use crate::{FastHashMap as HashMap, FastHashSet as HashSet};
use cranelift_entity::SecondaryMap;

/// How deep the analysis looks through definitions.
const DEPTH: u32 = 12;
/// Most instructions the relational rule reads to write a value as a linear form.
const LINEAR_BUDGET: usize = 32;

const MAX: u64 = u32::MAX as u64;
const FULL: (u64, u64) = (0, MAX);
const I32_MAX: u64 = i32::MAX as u64;

/// The sm_5x launch limits per dimension: threads per group, and group ids.
const GROUP_DIM_MAX: [u64; 3] = [1024, 1024, 64];
const GRID_DIM_MAX: [u64; 3] = [(1 << 31) - 1, 65535, 65535];

/// The induction variable of a counted loop: a header parameter starting at `init`, advanced
/// by `step` on the single latch while `param < bound` (signed or unsigned).
#[derive(Clone, Debug)]
struct Iv {
    init: Value,
    step: u64,
    bound: Value,
    signed: bool,
    /// Loop blocks other than the header: entered only through the header's test.
    body: HashSet<Block>,
}

/// The counter of a counted loop counting down: a header parameter starting at `init`,
/// lowered by `step` on the single latch while `param > bound` (`strict`) or `param >=
/// bound`, signed or unsigned.
#[derive(Clone, Debug)]
struct Down {
    init: Value,
    step: u64,
    bound: Value,
    signed: bool,
    strict: bool,
    /// Loop blocks other than the header: entered only through the header's test.
    body: HashSet<Block>,
}

/// A header parameter of a counted loop that its latch advances by a constant `step` each
/// iteration, as the loop's induction variable `iv` advances (`addr += 64` beside `k += 1`,
/// what strength reduction leaves): after `j` iterations it is `init + j * step`.
#[derive(Clone, Copy, Debug)]
struct Derived {
    init: Value,
    step: u64,
    iv: Value,
}

/// What a range query may assume of a counted loop's counter ([`Ranges::counter`]).
#[derive(Clone, Copy, Debug)]
struct Counter {
    /// The range of its start.
    init: (u64, u64),
    /// The largest bound under which the body runs.
    n: u64,
    /// Whether the query is inside the loop's body.
    inside: bool,
}

/// A range query: value, query block, user block, depth.
type MemoKey = (Value, Option<Block>, Option<Block>, u32);

/// A compare that holds (or fails, `holds == false`) wherever `block` dominates: `block` is
/// entered only through one edge of a `brif` on it. The fact is on the compare's first
/// operand (`lhs`) or its second, or, `below_max`, on an operand of a `umax` chain there:
/// an upper bound of `umax(a, b)` bounds `a` and `b` (and only an upper bound does).
#[derive(Clone, Copy, Debug)]
struct EdgeFact {
    block: Block,
    cmp: Inst,
    holds: bool,
    lhs: bool,
    below_max: bool,
}

/// Loop and branch facts for range queries, computed once per function (see the module doc).
#[derive(Clone, Debug, Default)]
pub struct Ranges {
    ivs: HashMap<Value, Iv>,
    /// The counters of counted loops counting down.
    down: HashMap<Value, Down>,
    /// Header parameters advancing with a counted loop's induction variable.
    derived: HashMap<Value, Derived>,
    /// Loop header parameters that only shrink (module doc): their values from outside the
    /// loop, and whether an arithmetic shift needs them below 2^31.
    shrinking: HashMap<Value, (Vec<Value>, bool)>,
    /// Per compared value, the branch facts on it.
    facts: HashMap<Value, Vec<EdgeFact>>,
    /// The dominator tree when the facts were computed: a block created later dominates
    /// nothing in it, so queries there see no branch facts.
    dt: Option<DominatorTree>,
    /// Ranges already computed, by (value, query block, user block, depth): the branch facts
    /// make the recursion revisit the same values many times (compile time, not results).
    memo: std::cell::RefCell<HashMap<MemoKey, (u64, u64)>>,
    /// The block of each instruction when the facts were computed (queries may come while a
    /// later pass rewrites the layout).
    block_of: SecondaryMap<Inst, Option<Block>>,
}

impl Ranges {
    /// Finds the counted loops of `func`.
    pub fn new(func: &Function) -> Ranges {
        let cfg = ControlFlowGraph::with_function(func);
        let dt = DominatorTree::with_function(func, &cfg);
        let loops = LoopInfo::with_function(func, &cfg, &dt);
        Ranges::with_analyses(func, &cfg, &dt, &loops)
    }

    /// As [`Ranges::new`], with `func`'s CFG, dominator tree and loop nesting (for a caller
    /// that has them).
    pub fn with_analyses(
        func: &Function,
        cfg: &ControlFlowGraph,
        dt: &DominatorTree,
        loops: &LoopInfo,
    ) -> Ranges {
        let mut r = Ranges {
            block_of: crate::ir::entities::sized_map(func.dfg.num_insts()),
            ..Ranges::default()
        };
        for b in func.layout.blocks() {
            for i in func.layout.block_insts(b) {
                r.block_of[i] = Some(b);
            }
        }
        for &h in dt.rpo() {
            if loops.is_header(h) {
                r.counted_loop(func, cfg, dt, loops, h);
                r.shrinking_params(func, cfg, dt, h);
            }
        }
        for &b in dt.rpo() {
            r.edge_facts(func, cfg, b);
        }
        r.dt = Some(dt.clone());
        r
    }

    /// Records the compares that hold on entry to `b` when its only predecessor ends in a
    /// `brif` whose one destination is `b`: the condition itself (or its negation on the
    /// other edge), through `pand` where it holds, `por` where it fails, and `pnot`.
    fn edge_facts(&mut self, func: &Function, cfg: &ControlFlowGraph, b: Block) {
        let &[p] = cfg.preds(b) else { return };
        let Some(last) = func.layout.last_inst(p) else {
            return;
        };
        let InstructionData::Brif { arg, dests, .. } = &func.dfg.insts[last] else {
            return;
        };
        if dests[0].block == dests[1].block {
            return;
        }
        let holds = dests[0].block == b;
        let mut work = vec![(arg[0], holds, 0u32)];
        while let Some((c, holds, d)) = work.pop() {
            let Some(inst) = func.dfg.value_inst(c) else {
                continue;
            };
            match &func.dfg.insts[inst] {
                InstructionData::IntCompare { args, .. } => {
                    for (k, &x) in args.iter().enumerate() {
                        let mut operands = vec![(x, false, 0u32)];
                        while let Some((y, below_max, d)) = operands.pop() {
                            if func.dfg.value_const(y).is_some() {
                                continue;
                            }
                            let f = EdgeFact {
                                block: b,
                                cmp: inst,
                                holds,
                                lhs: k == 0,
                                below_max,
                            };
                            self.facts.entry(y).or_default().push(f);
                            if let Some(InstructionData::Binary {
                                opcode: Opcode::Umax,
                                args: m,
                            }) = func.dfg.value_inst(y).map(|i| &func.dfg.insts[i])
                            {
                                if d < 4 {
                                    operands.extend(m.iter().map(|&a| (a, true, d + 1)));
                                }
                            }
                        }
                    }
                }
                InstructionData::Binary { opcode, args }
                    if d < 4
                        && ((*opcode == Opcode::Pand && holds)
                            || (*opcode == Opcode::Por && !holds)) =>
                {
                    work.extend(args.iter().map(|&a| (a, holds, d + 1)));
                }
                InstructionData::Unary {
                    opcode: Opcode::Pnot,
                    args,
                } if d < 4 => work.push((args[0], !holds, d + 1)),
                _ => {}
            }
        }
    }

    /// Narrows `r`, the range of `v` from its definition, by the branch facts on `v` that
    /// hold in block `at`.
    fn refine(
        &self,
        func: &Function,
        v: Value,
        at: Block,
        depth: u32,
        r: (u64, u64),
    ) -> (u64, u64) {
        let (Some(facts), Some(dt)) = (self.facts.get(&v), &self.dt) else {
            return r;
        };
        let mut out = r;
        for f in facts {
            if depth == 0 || !dt.dominates(f.block, at) {
                continue;
            }
            let InstructionData::IntCompare { cond, args, .. } = func.dfg.insts[f.cmp] else {
                continue;
            };
            // As `v cc other`, holding.
            let (cc, other) = if f.lhs {
                (cond, args[1])
            } else {
                (cond.swap_args(), args[0])
            };
            let cc = if f.holds { cc } else { cc.inverse() };
            if f.below_max && !matches!(cc, IntCC::Ult | IntCC::Ule) {
                continue;
            }
            let o = self.rec(func, other, Some(at), Some(at), depth - 1);
            // Signed compares of values both below 2^31 order them as unsigned ones do.
            let signed_ok = out.1 <= I32_MAX && o.1 <= I32_MAX;
            let (lo, hi) = match cc {
                IntCC::Ult => match o.1.checked_sub(1) {
                    Some(h) => (0, h),
                    None => continue,
                },
                IntCC::Slt if signed_ok => match o.1.checked_sub(1) {
                    Some(h) => (0, h),
                    None => continue,
                },
                IntCC::Ule => (0, o.1),
                IntCC::Sle if signed_ok => (0, o.1),
                IntCC::Ugt => (o.0 + 1, MAX),
                IntCC::Sgt if signed_ok => (o.0 + 1, MAX),
                IntCC::Uge => (o.0, MAX),
                IntCC::Sge if signed_ok => (o.0, MAX),
                IntCC::Eq => o,
                _ => continue,
            };
            out = (out.0.max(lo), out.1.min(hi));
        }
        // An empty range is a block no execution reaches: keep the definition's range.
        if out.0 > out.1 {
            r
        } else {
            out
        }
    }

    /// Records the parameters of loop header `h` that every latch passes as a value no larger
    /// than the parameter itself: `p >> k`, `p & m`, `umin(p, x)`, `p / c` and chains of those
    /// (`for (s = 512; s > 0; s >>= 1)`). Such a parameter never exceeds its largest entry
    /// value.
    fn shrinking_params(
        &mut self,
        func: &Function,
        cfg: &ControlFlowGraph,
        dt: &DominatorTree,
        h: Block,
    ) {
        let params = func.dfg.block_params(h);
        for (k, &p) in params.iter().enumerate() {
            if func.dfg.value_type(p) != Type::B32 || self.ivs.contains_key(&p) {
                continue;
            }
            let mut inits = Vec::new();
            let mut signed = false;
            let ok = cfg.preds(h).iter().all(|&pred| {
                let Some(t) = func.layout.last_inst(pred) else {
                    return false;
                };
                func.dfg.insts[t]
                    .branch_destinations()
                    .iter()
                    .filter(|d| d.block == h)
                    .all(|d| {
                        let Some(&a) = d.args.get(k) else {
                            return false;
                        };
                        if dt.dominates(h, pred) {
                            shrinks(func, a, p, 4, &mut signed)
                        } else {
                            inits.push(a);
                            true
                        }
                    })
            });
            if ok && !inits.is_empty() {
                self.shrinking.insert(p, (inits, signed));
            }
        }
    }

    fn counted_loop(
        &mut self,
        func: &Function,
        cfg: &ControlFlowGraph,
        dt: &DominatorTree,
        loops: &LoopInfo,
        h: Block,
    ) -> Option<()> {
        let Some(c) = crate::counted_loop::recognize(func, cfg, dt, loops, h) else {
            use crate::counted_loop::{counted, guarded, Tests};
            let c = counted(func, guarded(func, cfg, dt, loops, h, Tests::Any)?)?;
            let strict = matches!(c.test, IntCC::Sgt | IntCC::Ugt);
            if c.descending && (strict || matches!(c.test, IntCC::Sge | IntCC::Uge)) {
                let down = Down {
                    init: c.init,
                    step: u64::from(c.step),
                    bound: c.bound,
                    signed: c.signed,
                    strict,
                    body: c.body.iter().copied().collect(),
                };
                self.down.insert(c.iv_value, down);
                self.derived_params(func, &c);
            }
            return Some(());
        };
        self.derived_params(func, &c);
        self.ivs.insert(
            c.iv_value,
            Iv {
                init: c.init,
                step: u64::from(c.step),
                bound: c.bound,
                signed: c.signed,
                body: c.body.iter().copied().collect(),
            },
        );
        Some(())
    }

    /// Records the header parameters of counted loop `c` other than its counter that the
    /// latch advances by a positive constant ([`Derived`]).
    fn derived_params(&mut self, func: &Function, c: &crate::counted_loop::CountedLoop) {
        let h = c.header;
        let arg = |b: Block, k: usize| -> Option<Value> {
            let t = func.layout.last_inst(b)?;
            let d = func.dfg.insts[t]
                .branch_destinations()
                .iter()
                .find(|d| d.block == h)?;
            d.args.get(k).copied()
        };
        for (k, &q) in func.dfg.block_params(h).iter().enumerate() {
            if k == c.iv || func.dfg.value_type(q) != Type::B32 {
                continue;
            }
            let (Some(init), Some(next)) = (arg(c.pre, k), arg(c.latch, k)) else {
                continue;
            };
            let Some(add) = func.dfg.value_inst(next) else {
                continue;
            };
            let a = func.dfg.inst_args(add);
            let step = match (
                func.dfg.opcode(add),
                a.first() == Some(&q),
                a.get(1) == Some(&q),
            ) {
                (Opcode::Iadd, true, false) => func.dfg.value_const(a[1]),
                (Opcode::Iadd, false, true) => func.dfg.value_const(a[0]),
                _ => None,
            };
            if let Some(s) = step.map(|s| s & MAX).filter(|&s| s > 0 && s <= I32_MAX) {
                let iv = c.iv_value;
                self.derived.insert(q, Derived { init, step: s, iv });
            }
        }
    }

    /// The range of `v` where it is used in block `at` (None: anywhere).
    pub fn range(&self, func: &Function, v: Value, at: Option<Block>) -> (u64, u64) {
        self.rec(func, v, at, at, DEPTH)
    }

    /// The range of `v` in block `at` (the query's block: branch facts that hold there hold
    /// for every value computed before it, and so for `v` and its operands), with `user` the
    /// block of the instruction reading `v` (for induction variables).
    fn rec(
        &self,
        func: &Function,
        v: Value,
        at: Option<Block>,
        user: Option<Block>,
        depth: u32,
    ) -> (u64, u64) {
        // Answers that are no work to give: a `b32` constant is itself wherever it is read
        // (a one-value range takes no branch facts), and at the depth limit every value but
        // a `b32` constant is unknown.
        if func.dfg.value_type(v) == Type::B32 {
            if let Some(c) = func.dfg.value_const(v) {
                let c = c & MAX;
                return (c, c);
            }
        }
        if depth == 0 {
            return FULL;
        }
        let key = (v, at, user, depth);
        if let Some(&r) = self.memo.borrow().get(&key) {
            return r;
        }
        let r = self.rec_uncached(func, v, at, user, depth);
        let mut memo = self.memo.borrow_mut();
        if memo.capacity() == 0 {
            // A query visits tens of keys: growing from empty rehashed the table ~6 times.
            memo.reserve(128);
        }
        memo.insert(key, r);
        r
    }

    fn rec_uncached(
        &self,
        func: &Function,
        v: Value,
        at: Option<Block>,
        user: Option<Block>,
        depth: u32,
    ) -> (u64, u64) {
        let r = self.def_range(func, v, at, user, depth);
        // Without a query block, the facts of the definition's block hold at every use.
        let ctx = at.or_else(|| match func.dfg.value_def(v) {
            ValueDef::Result(i, _) => self.block_of[i],
            ValueDef::Param(b, _) => Some(b),
            ValueDef::Detached => None,
        });
        let r = match ctx {
            Some(b) if depth > 0 && r != (r.0, r.0) => self.refine(func, v, b, depth, r),
            _ => r,
        };
        // The relational rule, for the query's own value and the operands next to it.
        match at {
            Some(b) if depth + 1 >= DEPTH && r != (r.0, r.0) => {
                match self.relational(func, v, b, depth) {
                    Some(x) if x.0.max(r.0) <= x.1.min(r.1) => (x.0.max(r.0), x.1.min(r.1)),
                    _ => r,
                }
            }
            _ => r,
        }
    }

    /// The relational rule: `v` as a linear form `sum(k * atom) + c (mod 2^32)` ([`Self::linear`])
    /// in which a branch fact `x >= y` holding at `at` pairs two atoms: `kx * x + ky * y` is
    /// `kx * (x - y) + (kx + ky) * y` with `0 <= x - y <= hi(x) - lo(y)`. When the sum of
    /// the terms' ranges (coefficients read as signed numbers) lies inside `[0, 2^32)`, `v`
    /// equals that sum (it is congruent to it modulo 2^32), so that is its range. This bounds
    /// an address that strength reduction made an induction variable (`p = p0 + 68 * i`
    /// with `p0 = 72 - 64 * tid`, that is `68 * (i - tid) + 4 * tid + 72`) where the test
    /// `i >= tid` guards its use.
    fn relational(&self, func: &Function, v: Value, at: Block, depth: u32) -> Option<(u64, u64)> {
        let lin = self.linear(func, v, &mut LINEAR_BUDGET.clone())?;
        if lin.terms.len() < 2 || depth == 0 {
            return None;
        }
        let range = |x: Value| self.rec(func, x, Some(at), Some(at), depth - 1);
        let signed = |k: u32| i128::from(k as i32);
        // Adds `k * [lo, hi]` to the interval `acc`.
        let acc = |acc: (i128, i128), k: i128, r: (u64, u64)| {
            let (a, b) = (k * i128::from(r.0), k * i128::from(r.1));
            (acc.0 + a.min(b), acc.1 + a.max(b))
        };
        for &(x, kx) in &lin.terms {
            for &(y, ky) in &lin.terms {
                if x == y {
                    continue;
                }
                let (rx, ry) = (range(x), range(y));
                let Some(strict) = self.holds_ge(func, x, y, at, depth, rx, ry) else {
                    continue;
                };
                let Some(dmax) = rx.1.checked_sub(ry.0) else {
                    continue;
                };
                let dmin = u64::from(strict);
                if dmin > dmax {
                    continue;
                }
                let mut sum = (signed(lin.c), signed(lin.c));
                sum = acc(sum, signed(kx), (dmin, dmax));
                sum = acc(sum, signed(kx.wrapping_add(ky)), ry);
                for &(z, kz) in &lin.terms {
                    if z != x && z != y {
                        sum = acc(sum, signed(kz), range(z));
                    }
                }
                if sum.0 >= 0 && sum.1 <= i128::from(MAX) {
                    return Some((sum.0 as u64, sum.1 as u64));
                }
            }
        }
        None
    }

    /// Whether a branch fact `x >= y` (`Some(false)`) or `x > y` (`Some(true)`) holds at
    /// `at`, unsigned, or signed with both ranges (`rx`, `ry`) below 2^31.
    #[allow(clippy::too_many_arguments)]
    fn holds_ge(
        &self,
        func: &Function,
        x: Value,
        y: Value,
        at: Block,
        depth: u32,
        rx: (u64, u64),
        ry: (u64, u64),
    ) -> Option<bool> {
        let (facts, dt) = (self.facts.get(&x)?, self.dt.as_ref()?);
        let non_negative = rx.1 <= I32_MAX && ry.1 <= I32_MAX;
        facts.iter().find_map(|f| {
            if depth == 0 || f.below_max || !dt.dominates(f.block, at) {
                return None;
            }
            let InstructionData::IntCompare { cond, args, .. } = func.dfg.insts[f.cmp] else {
                return None;
            };
            let (cc, other) = if f.lhs {
                (cond, args[1])
            } else {
                (cond.swap_args(), args[0])
            };
            let cc = if f.holds { cc } else { cc.inverse() };
            match cc {
                _ if other != y => None,
                IntCC::Uge => Some(false),
                IntCC::Ugt => Some(true),
                IntCC::Sge if non_negative => Some(false),
                IntCC::Sgt if non_negative => Some(true),
                _ => None,
            }
        })
    }

    /// `v` as a linear form over atoms modulo 2^32, through adds, subtractions, negations,
    /// multiplies (`imul`, `imad`) and shifts by constants, and parameters advancing with a
    /// counted loop's counter (`p = init + m * (iv - iv_init)` when `p`'s step is `m` times
    /// the counter's); anything else is an atom. `None` past `budget` instructions or
    /// [`MAX_TERMS`](crate::affine::MAX_TERMS) atoms.
    fn linear(&self, func: &Function, v: Value, budget: &mut usize) -> Option<Lin> {
        if func.dfg.value_type(v) != Type::B32 {
            return None;
        }
        if let Some(c) = func.dfg.value_const(v) {
            return Some(Lin::konst(c as u32));
        }
        *budget = budget.checked_sub(1)?;
        if let Some(d) = self.derived.get(&v) {
            if let Some(iv) = self.ivs.get(&d.iv).filter(|iv| iv.step != 0) {
                if d.step % iv.step == 0 {
                    let m = (d.step / iv.step) as u32;
                    let init = self.linear(func, d.init, budget)?;
                    let start = self.linear(func, iv.init, budget)?;
                    return init
                        .add_scaled(&Lin::atom(d.iv), m)?
                        .add_scaled(&start, m.wrapping_neg());
                }
            }
            return Some(Lin::atom(v));
        }
        let Some(inst) = func.dfg.value_inst(v) else {
            return Some(Lin::atom(v));
        };
        let konst = |x: Value| func.dfg.value_const(x).map(|c| c as u32);
        match func.dfg.insts[inst] {
            InstructionData::Binary {
                opcode,
                args: [a, b],
            } => match opcode {
                Opcode::Iadd => self
                    .linear(func, a, budget)?
                    .add_scaled(&self.linear(func, b, budget)?, 1),
                Opcode::Isub => self
                    .linear(func, a, budget)?
                    .add_scaled(&self.linear(func, b, budget)?, u32::MAX),
                Opcode::Imul => match (konst(a), konst(b)) {
                    (_, Some(k)) => self.linear(func, a, budget)?.scale(k),
                    (Some(k), _) => self.linear(func, b, budget)?.scale(k),
                    _ => Some(Lin::atom(v)),
                },
                Opcode::Ishl => match konst(b) {
                    Some(s) if s < 32 => self.linear(func, a, budget)?.scale(1 << s),
                    _ => Some(Lin::atom(v)),
                },
                _ => Some(Lin::atom(v)),
            },
            InstructionData::Unary {
                opcode: Opcode::Ineg,
                args: [a],
            } => self.linear(func, a, budget)?.scale(u32::MAX),
            InstructionData::Ternary {
                opcode: Opcode::Imad,
                args: [a, b, c],
            } => {
                let prod = match (konst(a), konst(b)) {
                    (_, Some(k)) => self.linear(func, a, budget)?.scale(k)?,
                    (Some(k), _) => self.linear(func, b, budget)?.scale(k)?,
                    // A product of two non-constants is no linear form: `v` is an atom.
                    _ => return Some(Lin::atom(v)),
                };
                prod.add_scaled(&self.linear(func, c, budget)?, 1)
            }
            _ => Some(Lin::atom(v)),
        }
    }

    fn def_range(
        &self,
        func: &Function,
        v: Value,
        at: Option<Block>,
        user: Option<Block>,
        depth: u32,
    ) -> (u64, u64) {
        if func.dfg.value_type(v) != Type::B32 {
            return FULL;
        }
        if let Some(c) = func.dfg.value_const(v) {
            let c = c & MAX;
            return (c, c);
        }
        if depth == 0 {
            return FULL;
        }
        let Some(inst) = func.dfg.value_inst(v) else {
            return self.param(func, v, at, user, depth);
        };
        // Operands are read where their user is, and hold the values they had there.
        let here = self.block_of[inst].or(user);
        let at = at.or(self.block_of[inst]);
        let rec = |x: Value| self.rec(func, x, at, here, depth - 1);
        let konst = |x: Value| func.dfg.value_const(x).map(|c| c & MAX);
        match &func.dfg.insts[inst] {
            InstructionData::Special { reg, .. } => special_range(func, *reg),
            InstructionData::Unary {
                opcode: Opcode::Copy,
                args,
            } => rec(args[0]),
            InstructionData::Unary {
                opcode: Opcode::Popcnt | Opcode::Clz,
                ..
            } => (0, 32),
            InstructionData::Binary { opcode, args } => {
                let [a, b] = *args;
                match opcode {
                    Opcode::Iadd => {
                        // `x + c` with a negative constant is `x - |c|`.
                        let neg = |x: Value| {
                            konst(x)
                                .filter(|&c| (c as u32 as i32) < 0)
                                .map(|c| (1 << 32) - c)
                        };
                        if let Some(m) = neg(b) {
                            return sub(rec(a), (m, m));
                        }
                        if let Some(m) = neg(a) {
                            return sub(rec(b), (m, m));
                        }
                        add(rec(a), rec(b))
                    }
                    Opcode::Isub => sub(rec(a), rec(b)),
                    Opcode::Imul => mul(rec(a), rec(b)),
                    Opcode::Ishl => match konst(b) {
                        Some(k) => mul(rec(a), (1 << (k & 31), 1 << (k & 31))),
                        None => FULL,
                    },
                    Opcode::Ushr => match konst(b) {
                        Some(k) => {
                            let (lo, hi) = rec(a);
                            (lo >> (k & 31), hi >> (k & 31))
                        }
                        None => (0, rec(a).1),
                    },
                    Opcode::Band => (0, rec(a).1.min(rec(b).1)),
                    Opcode::Umin => {
                        let (x, y) = (rec(a), rec(b));
                        (x.0.min(y.0), x.1.min(y.1))
                    }
                    Opcode::Umax => {
                        let (x, y) = (rec(a), rec(b));
                        (x.0.max(y.0), x.1.max(y.1))
                    }
                    Opcode::Bor | Opcode::Bxor => {
                        let m = rec(a).1.max(rec(b).1);
                        // Every bit above the highest bit of either bound is clear.
                        (
                            0,
                            if m == 0 {
                                0
                            } else {
                                MAX >> m.leading_zeros().saturating_sub(32)
                            },
                        )
                    }
                    // `x / 0` and `x % 0` are all ones.
                    Opcode::Udiv => match konst(b) {
                        Some(c) if c != 0 => {
                            let (lo, hi) = rec(a);
                            (lo / c, hi / c)
                        }
                        _ => FULL,
                    },
                    Opcode::Urem => match konst(b) {
                        Some(c) if c != 0 => {
                            let (lo, hi) = rec(a);
                            if hi < c {
                                (lo, hi)
                            } else {
                                (0, c - 1)
                            }
                        }
                        _ => FULL,
                    },
                    _ => FULL,
                }
            }
            InstructionData::Ternary { opcode, args } => {
                let [a, b, c] = *args;
                match opcode {
                    Opcode::Imad => add(mul(rec(a), rec(b)), rec(c)),
                    Opcode::Select => {
                        // `select (x >u C), t, f(x)`: `f` sees `x <= C` (the lowering's exact
                        // structured and g[] addresses, `index > max ? 2^31 : index << 4`).
                        let f = match guarded_max(func, a) {
                            Some((x, m)) => scaled(func, c, x, (0, m)).unwrap_or_else(|| rec(c)),
                            None => rec(c),
                        };
                        let t = rec(b);
                        (t.0.min(f.0), t.1.max(f.1))
                    }
                    Opcode::Ubfe => match konst(a) {
                        Some(w) if (1..32).contains(&(w & 31)) => (0, (1 << (w & 31)) - 1),
                        _ => FULL,
                    },
                    _ => FULL,
                }
            }
            _ => FULL,
        }
    }

    /// A block parameter: an induction variable's range, in its loop's body (`at`) or
    /// anywhere.
    fn param(
        &self,
        func: &Function,
        p: Value,
        at: Option<Block>,
        user: Option<Block>,
        depth: u32,
    ) -> (u64, u64) {
        if let Some((inits, signed)) = self.shrinking.get(&p) {
            let hi = inits
                .iter()
                .map(|&x| self.rec(func, x, None, None, depth - 1).1)
                .max()
                .unwrap_or(MAX);
            // An arithmetic shift shrinks only a value below 2^31.
            return if *signed && hi > I32_MAX {
                FULL
            } else {
                (0, hi)
            };
        }
        if let Some(d) = self.derived.get(&p) {
            return self.derived_range(func, d, at, user, depth);
        }
        if let Some(d) = self.down.get(&p) {
            return self.down_range(func, d, at, user, depth);
        }
        let Some(iv) = self.ivs.get(&p) else {
            return FULL;
        };
        let Some(c) = self.counter(func, iv, at, user, depth) else {
            return FULL;
        };
        if c.inside {
            // Inside the body the test held: `init <= p < n`.
            return if c.n == 0 { FULL } else { (c.init.0, c.n - 1) };
        }
        // Elsewhere (the header, after the loop): at most one step past the last value the
        // body saw, or the start if the body never ran.
        let top = c.n.saturating_sub(1) + iv.step;
        (c.init.0, top.max(c.init.1))
    }
}

impl Ranges {
    /// The range of a counter counting down ([`Down`]) in its loop's body: `n < p <= init`
    /// (`n <= p` for `p >= n`). The counter only decreases while no step wraps, which holds
    /// when every value the body sees is at least the step (unsigned), or non-negative
    /// (signed; a signed start must then be non-negative too). Unknown elsewhere.
    fn down_range(
        &self,
        func: &Function,
        d: &Down,
        at: Option<Block>,
        user: Option<Block>,
        depth: u32,
    ) -> (u64, u64) {
        let inside = [at, user]
            .iter()
            .any(|b| b.is_some_and(|b| d.body.contains(&b)));
        if !inside {
            return FULL;
        }
        let q = at.or(user);
        let init = self.rec(func, d.init, None, None, depth - 1);
        // The least value the bound can have, as the compare reads it.
        let n_min = if d.signed {
            match func.dfg.value_const(d.bound) {
                Some(c) => i64::from(c as u32 as i32),
                None => match self.rec(func, d.bound, q, q, depth - 1) {
                    (lo, hi) if hi <= I32_MAX => lo as i64,
                    _ => return FULL,
                },
            }
        } else {
            self.rec(func, d.bound, q, q, depth - 1).0 as i64
        };
        let lo = n_min + i64::from(d.strict);
        let no_wrap = if d.signed {
            lo >= 0 && init.1 <= I32_MAX
        } else {
            lo >= d.step as i64
        };
        if !no_wrap || lo < 0 || lo as u64 > init.1 {
            return FULL;
        }
        (lo as u64, init.1)
    }

    /// What a query at `at` (read in `user`) may assume of a counted loop's counter: the
    /// range of its start, the largest bound its body runs under ([`Ranges::bound_top`]) and
    /// whether the query is inside the body; `None` when the counter could wrap (one step
    /// past the last value the body can see leaves the compare's range), so its range is
    /// unknown.
    fn counter(
        &self,
        func: &Function,
        iv: &Iv,
        at: Option<Block>,
        user: Option<Block>,
        depth: u32,
    ) -> Option<Counter> {
        let init = self.rec(func, iv.init, None, None, depth - 1);
        let n = self.bound_top(func, iv, at.or(user), depth)?;
        // The largest value the comparison lets through, as an unsigned number.
        let limit = if iv.signed {
            if init.1 > I32_MAX {
                return None;
            }
            I32_MAX
        } else {
            MAX
        };
        if n.saturating_sub(1) + iv.step > limit {
            return None;
        }
        let inside = [at, user]
            .iter()
            .any(|b| b.is_some_and(|b| iv.body.contains(&b)));
        Some(Counter { init, n, inside })
    }

    /// The largest bound `n` of `iv < n` under which the body can run, as an unsigned number;
    /// `None` when unknown. The bound is defined outside the loop, so where the query is
    /// (`q`) it has the value it had in the loop (an enclosing loop's counter is bounded
    /// there by its own test). A signed loop starts at a non-negative value (else its range
    /// is unknown anyway), so a negative bound runs no iteration: only the non-negative
    /// values count ([`Ranges::smax`]), 0 when there are none; unrolling's remainder limit
    /// `n - 7 if that does not wrap, else i32::MIN` then bounds the copies by `n - 7`.
    fn bound_top(&self, func: &Function, iv: &Iv, q: Option<Block>, depth: u32) -> Option<u64> {
        if !iv.signed {
            return Some(self.rec(func, iv.bound, q, q, depth - 1).1);
        }
        let s = self.smax(func, iv.bound, q, depth - 1)?;
        Some(s.max(0) as u64)
    }

    /// An upper bound of `v` read as a signed number, through selects and the subtraction
    /// (or addition) of a constant from a non-negative value; `None` when unknown.
    fn smax(&self, func: &Function, v: Value, q: Option<Block>, depth: u32) -> Option<i64> {
        if let Some(c) = func.dfg.value_const(v) {
            return Some(i64::from(c as u32 as i32));
        }
        if depth == 0 {
            return None;
        }
        let nonneg_hi = |x: Value| {
            let (_, hi) = self.rec(func, x, q, q, depth - 1);
            (hi <= I32_MAX).then_some(hi as i64)
        };
        let konst = |x: Value| func.dfg.value_const(x).map(|c| i64::from(c as u32 as i32));
        match func.dfg.value_inst(v).map(|i| &func.dfg.insts[i]) {
            Some(InstructionData::Ternary {
                opcode: Opcode::Select,
                args: [_, x, y],
            }) => {
                Some(
                    self.smax(func, *x, q, depth - 1)?
                        .max(self.smax(func, *y, q, depth - 1)?),
                )
            }
            Some(InstructionData::Binary {
                opcode: Opcode::Isub,
                args: [x, k],
            }) if konst(*k).is_some_and(|k| k > 0) => Some(nonneg_hi(*x)? - konst(*k)?),
            Some(InstructionData::Binary {
                opcode: Opcode::Iadd,
                args: [x, k],
            }) if konst(*k).is_some_and(|k| k < 0) => Some(nonneg_hi(*x)? + konst(*k)?),
            _ => nonneg_hi(v),
        }
    }

    /// The range of a parameter advancing with a counted loop's counter (see [`Derived`]):
    /// `init + j * step`, with one more step where the loop is left.
    fn derived_range(
        &self,
        func: &Function,
        d: &Derived,
        at: Option<Block>,
        user: Option<Block>,
        depth: u32,
    ) -> (u64, u64) {
        let steps = if let Some(down) = self.down.get(&d.iv) {
            // A counter counting down: in the body `lo <= iv <= init` (its range there), so
            // `init - iv = j * step` bounds the completed iterations `j`; unknown elsewhere.
            let (lo, top) = self.down_range(func, down, at, user, depth);
            if (lo, top) == FULL {
                return FULL;
            }
            let init_hi = self.rec(func, down.init, None, None, depth - 1).1;
            init_hi.saturating_sub(lo) / down.step
        } else {
            let Some(iv) = self.ivs.get(&d.iv) else {
                return FULL;
            };
            let Some(c) = self.counter(func, iv, at, user, depth) else {
                return FULL;
            };
            // In the body `init <= iv <= n - 1`, so `iv - init = j * step` bounds the
            // completed iterations `j`.
            let j = c.n.saturating_sub(1).saturating_sub(c.init.0) / iv.step;
            if c.inside {
                j
            } else {
                j + 1
            }
        };
        let (lo, hi) = self.rec(func, d.init, None, None, depth - 1);
        match steps.checked_mul(d.step).and_then(|x| x.checked_add(hi)) {
            Some(top) if top <= MAX => (lo, top),
            _ => FULL,
        }
    }
}

/// Whether `v` is at most `p` (as unsigned numbers) whatever `p` is, through `depth` of
/// shifts right, masks, `umin` and divisions by a nonzero constant; `signed` is set when an
/// arithmetic shift is involved (at most `p` only for `p < 2^31`).
fn shrinks(func: &Function, v: Value, p: Value, depth: u32, signed: &mut bool) -> bool {
    if v == p {
        return true;
    }
    let Some(InstructionData::Binary {
        opcode,
        args: [a, b],
    }) = func.dfg.value_inst(v).map(|i| &func.dfg.insts[i])
    else {
        return false;
    };
    if depth == 0 {
        return false;
    }
    let sub = |x: Value, signed: &mut bool| shrinks(func, x, p, depth - 1, signed);
    match opcode {
        Opcode::Ushr => sub(*a, signed),
        Opcode::Ishr => {
            *signed = true;
            sub(*a, signed)
        }
        Opcode::Band | Opcode::Umin => sub(*a, signed) || sub(*b, signed),
        Opcode::Udiv => func.dfg.value_const(*b).is_some_and(|c| c != 0) && sub(*a, signed),
        _ => false,
    }
}

/// `(x, m)` when `p` is `icmp ugt x, m` or `icmp uge x, m + 1` with a constant bound: where
/// `p` is false, `x <= m`.
pub(crate) fn guarded_max(func: &Function, p: Value) -> Option<(Value, u64)> {
    let inst = func.dfg.value_inst(p)?;
    let InstructionData::IntCompare { cond, args, .. } = func.dfg.insts[inst] else {
        return None;
    };
    let c = func.dfg.value_const(args[1])? & MAX;
    match cond {
        IntCC::Ugt => Some((args[0], c)),
        IntCC::Uge if c > 0 => Some((args[0], c - 1)),
        _ => None,
    }
}

/// The range of `e` when `x` lies in `xr`, for `e` = `x`, `x << k`, `x * k` or one of those
/// plus a constant (None for any other `e`).
fn scaled(func: &Function, e: Value, x: Value, xr: (u64, u64)) -> Option<(u64, u64)> {
    if e == x {
        return Some(xr);
    }
    let inst = func.dfg.value_inst(e)?;
    let InstructionData::Binary { opcode, args } = func.dfg.insts[inst] else {
        return None;
    };
    let konst = |v: Value| func.dfg.value_const(v).map(|c| c & MAX);
    match (opcode, args[0] == x, konst(args[1])) {
        (Opcode::Ishl, true, Some(k)) => Some(mul(xr, (1 << (k & 31), 1 << (k & 31)))),
        (Opcode::Imul, true, Some(k)) => Some(mul(xr, (k, k))),
        (Opcode::Iadd, _, Some(k)) => Some(add(scaled(func, args[0], x, xr)?, (k, k))),
        _ => None,
    }
}

fn special_range(func: &Function, reg: SpecialReg) -> (u64, u64) {
    let dim = |c: u8| usize::from(c).min(2);
    match reg {
        SpecialReg::Tid(c) => match func.group_size {
            Some(g) => (0, u64::from(g[dim(c)].max(1)) - 1),
            None => (0, GROUP_DIM_MAX[dim(c)] - 1),
        },
        SpecialReg::GroupSize(c) => match func.group_size {
            Some(g) => (u64::from(g[dim(c)]), u64::from(g[dim(c)])),
            None => (1, GROUP_DIM_MAX[dim(c)]),
        },
        SpecialReg::GroupId(c) => (0, GRID_DIM_MAX[dim(c)] - 1),
        SpecialReg::GridSize(c) => (1, GRID_DIM_MAX[dim(c)]),
        SpecialReg::LaneId => (0, 31),
        SpecialReg::Clock
        | SpecialReg::Domain(_)
        | SpecialReg::DomainOrigin(_)
        | SpecialReg::ResDim(..)
        | SpecialReg::UavView(..) => FULL,
        // Buffers are below 2^31 bytes (the IR's rule for `buflen`).
        SpecialReg::BufLen(_) => (0, (1 << 31) - 1),
    }
}

fn add(a: (u64, u64), b: (u64, u64)) -> (u64, u64) {
    if a.1 + b.1 <= MAX {
        (a.0 + b.0, a.1 + b.1)
    } else {
        FULL
    }
}

fn sub(a: (u64, u64), b: (u64, u64)) -> (u64, u64) {
    if a.0 >= b.1 {
        (a.0 - b.1, a.1 - b.0)
    } else {
        FULL
    }
}

fn mul(a: (u64, u64), b: (u64, u64)) -> (u64, u64) {
    match a.1.checked_mul(b.1) {
        Some(hi) if hi <= MAX => (a.0 * b.0, hi),
        _ => FULL,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::reader::parse_function_text;

    /// The bound of the value defined by the last instruction of the entry block.
    fn last_bound(text: &str) -> u64 {
        let f = parse_function_text(text).expect("parses");
        let entry = f.layout.entry_block().expect("entry");
        let last = f
            .layout
            .block_insts(entry)
            .filter(|&i| !f.dfg.inst_results(i).is_empty())
            .last()
            .expect("a value");
        Ranges::default()
            .range(&f, f.dfg.inst_results(last)[0], None)
            .1
    }

    /// `for (i = start; i CC n; i += step) out[i] = i`, with `start` and `n` as given (IR
    /// text of a constant or `load.b32 cb0[..]`): the ranges of `i` in the body (block2) and
    /// after the loop (block3).
    fn loop_ranges(start: &str, n: &str, cc: &str, step: u32) -> ((u64, u64), (u64, u64)) {
        let text = format!(
            "kernel %k {{\n    group_size 1, 1, 1\n    uav0 = raw\n    cb0 = 16\n\nblock0:\n    \
             v0 = {n}\n    v1 = {start}\n    v3 = iconst.b32 {step:#x}\n    jump block1(v1)\n\n\
             block1(v10: b32):\n    v12 = icmp {cc} v10, v0\n    brif v12, block2, block3\n\n\
             block2:\n    store.b32 uav0[v10], v10\n    v14 = iadd v10, v3\n    jump block1(v14)\n\n\
             block3:\n    store.b32 uav0[v10], v10\n    return\n}}\n"
        );
        let [inside, after] = param_ranges(&text, 1, 0, [2, 3]);
        (inside, after)
    }

    /// The ranges of parameter `param` of block `header` (layout indices) in the blocks
    /// `at` of the function `text`.
    fn param_ranges(text: &str, header: usize, param: usize, at: [usize; 2]) -> [(u64, u64); 2] {
        let f = parse_function_text(text).expect("parses");
        crate::verifier::verify_function(&f).expect("verifies");
        let r = Ranges::new(&f);
        let blocks: Vec<Block> = f.layout.blocks().collect();
        let p = f.dfg.block_params(blocks[header])[param];
        at.map(|b| r.range(&f, p, Some(blocks[b])))
    }

    /// `for (s = start; s > 0; s = next(s)) out[s] = s`: the range of `s` in the body.
    fn shrinking_range(start: &str, next: &str) -> (u64, u64) {
        let text = format!(
            "kernel %k {{\n    group_size 1, 1, 1\n    uav0 = raw\n    cb0 = 16\n\nblock0:\n    \
             v0 = iconst.b32 0x0\n    v1 = {start}\n    v3 = iconst.b32 0x1\n    \
             jump block1(v1)\n\nblock1(v10: b32):\n    v12 = icmp ne v10, v0\n    \
             brif v12, block2, block3\n\nblock2:\n    store.b32 uav0[v10], v10\n    \
             {next}\n    jump block1(v14)\n\nblock3:\n    return\n}}\n"
        );
        let f = parse_function_text(&text).expect("parses");
        crate::verifier::verify_function(&f).expect("verifies");
        let r = Ranges::new(&f);
        let blocks: Vec<Block> = f.layout.blocks().collect();
        r.range(&f, f.dfg.block_params(blocks[1])[0], Some(blocks[2]))
    }

    #[test]
    fn shrinking_loop_parameters_stay_below_their_start() {
        let c512 = "iconst.b32 0x200";
        // A tree reduction's stride: halved every iteration, never above its start.
        assert_eq!(shrinking_range(c512, "v14 = ushr v10, v3"), (0, 512));
        assert_eq!(shrinking_range(c512, "v14 = ishr v10, v3"), (0, 512));
        assert_eq!(
            shrinking_range(c512, "v13 = ushr v10, v3\n    v14 = and v13, v1"),
            (0, 512)
        );
        // An arithmetic shift of a value that may be negative, or a growing step: unknown.
        assert_eq!(
            shrinking_range("load.b32 cb0[0]", "v14 = ishr v10, v3"),
            FULL
        );
        assert_eq!(shrinking_range(c512, "v14 = iadd v10, v3"), FULL);
        assert_eq!(shrinking_range(c512, "v14 = ishl v10, v3"), FULL);
    }

    #[test]
    fn counted_loop_counters_are_bounded_in_and_after_the_body() {
        let c = |x: u32| format!("iconst.b32 {x:#x}");
        // After the loop the exit edge adds `!(i < n)`.
        assert_eq!(loop_ranges(&c(0), &c(16), "slt", 1), ((0, 15), (16, 16)));
        assert_eq!(loop_ranges(&c(3), &c(16), "ult", 4), ((3, 15), (16, 19)));
        // A start beyond the bound: the body never runs, the counter stays at the start.
        assert_eq!(loop_ranges(&c(40), &c(16), "ult", 4).1, (40, 40));
        // A bound from memory: any unsigned value, so the counter may wrap past it; in the
        // body it is below the bound, so below the largest one.
        let n = "load.b32 cb0[0]";
        assert_eq!(loop_ranges(&c(100), n, "ult", 16), ((0, MAX - 1), FULL));
        // Signed: a bound at the top of the signed range lets `i + step` overflow, and a
        // signed compare bounds nothing of a value that may be negative.
        assert_eq!(loop_ranges(&c(0), &c(0x7fff_fffe), "slt", 4), (FULL, FULL));
        // Signed with a negative start: not a non-negative range.
        assert_eq!(loop_ranges(&c(0xffff_fff0), &c(16), "slt", 1), (FULL, FULL));
        // Other comparisons are not counted loops; the exit edge of `i != 16` still says
        // `i == 16`.
        assert_eq!(loop_ranges(&c(0), &c(16), "ne", 1), (FULL, (16, 16)));
    }

    /// `for (i = 0, a = base; i < n; i++, a += 64) out[a] = a` with `base` = `tid * 4`
    /// (group of 16) and `n` the counter of an enclosing loop `for (j = 0; j < 15; j++)`: the
    /// ranges of `a` in the inner body and after the inner loop.
    fn derived_ranges(step: u32) -> ((u64, u64), (u64, u64)) {
        let text = format!(
            "kernel %k {{\n    group_size 16, 1, 1\n    uav0 = raw\n\nblock0:\n    \
             v0 = iconst.b32 0x0\n    v1 = special tid.x\n    v2 = iconst.b32 0x2\n    \
             v3 = ishl v1, v2\n    jump block1(v0)\n\n\
             block1(v10: b32):\n    v11 = iconst.b32 0xf\n    v12 = icmp slt v10, v11\n    \
             brif v12, block2, block6\n\n\
             block2:\n    jump block3(v0, v3)\n\n\
             block3(v20: b32, v21: b32):\n    v22 = icmp slt v20, v10\n    \
             brif v22, block4, block5\n\n\
             block4:\n    store.b32 uav0[v21], v21\n    v23 = iconst.b32 0x1\n    \
             v24 = iadd v20, v23\n    v25 = iconst.b32 {step:#x}\n    v26 = iadd v21, v25\n    \
             jump block3(v24, v26)\n\n\
             block5:\n    store.b32 uav0[v21], v21\n    v30 = iconst.b32 0x1\n    \
             v31 = iadd v10, v30\n    jump block1(v31)\n\n\
             block6:\n    return\n}}\n"
        );
        let [inside, after] = param_ranges(&text, 3, 1, [4, 5]);
        (inside, after)
    }

    /// `for (i = 0; i < lim; i++)` (signed) with unrolling's remainder limit `lim = tid - 7`
    /// if that does not wrap, else `i32::MIN` (group of 16): the range of `i` in the body.
    #[test]
    fn signed_bounds_count_only_their_non_negative_values() {
        let text = "kernel %k {\n    group_size 16, 1, 1\n    uav0 = raw\n\nblock0:\n    \
             v0 = special tid.x\n    v1 = iconst.b32 0x7\n    v2 = isub v0, v1\n    \
             v3 = icmp slt v2, v0\n    v4 = iconst.b32 0x80000000\n    \
             v5 = select v3, v2, v4\n    v6 = iconst.b32 0x0\n    jump block1(v6)\n\n\
             block1(v10: b32):\n    v12 = icmp slt v10, v5\n    brif v12, block2, block3\n\n\
             block2:\n    store.b32 uav0[v10], v10\n    v13 = iconst.b32 0x1\n    \
             v14 = iadd v10, v13\n    jump block1(v14)\n\n\
             block3:\n    return\n}\n";
        let [inside, after] = param_ranges(text, 1, 0, [2, 3]);
        // tid <= 15, so the limit is at most 8 when it is not i32::MIN (which runs nothing).
        assert_eq!(inside, (0, 7));
        assert_eq!(after, (0, 8));
    }

    #[test]
    fn parameters_advancing_with_a_counter_are_bounded() {
        // j <= 14, so i <= 13 in the body: a <= 60 + 13 * 64; one more step after it.
        assert_eq!(derived_ranges(64), ((0, 60 + 13 * 64), (0, 60 + 14 * 64)));
        // A step that could wrap within the trips bounds nothing.
        assert_eq!(derived_ranges(0x2000_0000), (FULL, FULL));
    }

    /// `for (i = 14, a = 4 * tid; i >= 0; i--, a += step)` in a group of 16 (nw's sweep back
    /// over a tile's anti-diagonals after strength reduction): `a` advances with a counter
    /// counting down, at most 14 completed iterations in the body.
    #[test]
    fn parameters_advancing_with_a_counter_counting_down_are_bounded() {
        let ranges = |step: u32| {
            let text = format!(
                "kernel %k {{\n    group_size 16, 1, 1\n    uav0 = raw\n\nblock0:\n    \
                 v0 = iconst.b32 0x0\n    v1 = special tid.x\n    v2 = iconst.b32 0x2\n    \
                 v3 = ishl v1, v2\n    v4 = iconst.b32 0xe\n    jump block1(v4, v3)\n\n\
                 block1(v10: b32, v11: b32):\n    v12 = icmp slt v10, v0\n    \
                 brif v12, block3, block2\n\n\
                 block2:\n    store.b32 uav0[v11], v11\n    v13 = iconst.b32 0xffffffff\n    \
                 v14 = iadd v10, v13\n    v15 = iconst.b32 {step:#x}\n    v16 = iadd v11, v15\n    \
                 jump block1(v14, v16)\n\n\
                 block3:\n    return\n}}\n"
            );
            param_ranges(&text, 1, 1, [2, 3])
        };
        // tid <= 15: a <= 60 + 14 * 4 in the body; unknown after the loop.
        assert_eq!(ranges(4), [(0, 60 + 14 * 4), FULL]);
        assert_eq!(ranges(0x2000_0000), [FULL, FULL]);
    }

    /// `for (i = start; i cc n; i -= 1) out[i] = i` in a group of 16: the range of `i` in
    /// the body and after the loop.
    fn down_ranges(start: &str, cc: &str, n: u32) -> [(u64, u64); 2] {
        let text = format!(
            "kernel %k {{\n    group_size 16, 1, 1\n    uav0 = raw\n\nblock0:\n    \
             v0 = special tid.x\n    v1 = iconst.b32 {n:#x}\n    v2 = {start}\n    \
             jump block1(v2)\n\n\
             block1(v10: b32):\n    v12 = icmp {cc} v10, v1\n    brif v12, block2, block3\n\n\
             block2:\n    store.b32 uav0[v10], v10\n    v13 = iconst.b32 0x1\n    \
             v14 = isub v10, v13\n    jump block1(v14)\n\n\
             block3:\n    return\n}}\n"
        );
        param_ranges(&text, 1, 0, [2, 3])
    }

    #[test]
    fn counters_counting_down_are_bounded_in_the_body() {
        // `i >= 0` from 14: 0..=14 in the body; after it, -1.
        assert_eq!(down_ranges("iconst.b32 0xe", "sge", 0), [(0, 14), FULL]);
        // `i != 0` (`i >u 0`) from 2 * tid: 1..=30.
        assert_eq!(down_ranges("iadd v0, v0", "ne", 0)[0], (1, 30));
        // `i > -1` signed: the counter stays non-negative.
        assert_eq!(down_ranges("iconst.b32 0x7", "sgt", u32::MAX)[0], (0, 7));
        // `i >= 0` unsigned holds always: the counter wraps, so it is unknown.
        assert_eq!(down_ranges("iconst.b32 0x7", "uge", 0)[0], FULL);
    }

    /// `for (i = 0; i < 16; i++) if (i >= tid) out[p]` with `p` advancing by 68 from
    /// `72 - 64 * tid` (group of 16): where the test holds, `p = 68 * (i - tid) + 4 * tid +
    /// 72` lies in `[72, 68 * 15 + 4 * 15 + 72]`; elsewhere it may have wrapped.
    #[test]
    fn a_guard_relating_two_terms_bounds_their_difference() {
        let text = "kernel %k {\n    group_size 16, 1, 1\n    uav0 = raw\n\nblock0:\n    \
             v0 = iconst.b32 0x0\n    v1 = special tid.x\n    v2 = iconst.b32 0x40\n    \
             v3 = ineg v1\n    v4 = imul v3, v2\n    v5 = iconst.b32 0x48\n    \
             v6 = iadd v4, v5\n    jump block1(v0, v6)\n\n\
             block1(v10: b32, v11: b32):\n    v12 = iconst.b32 0x10\n    \
             v13 = icmp slt v10, v12\n    brif v13, block2, block5\n\n\
             block2:\n    v14 = icmp sge v10, v1\n    brif v14, block3, block4\n\n\
             block3:\n    store.b32 uav0[v11], v11\n    jump block4\n\n\
             block4:\n    v15 = iconst.b32 0x1\n    v16 = iadd v10, v15\n    \
             v17 = iconst.b32 0x44\n    v18 = iadd v11, v17\n    jump block1(v16, v18)\n\n\
             block5:\n    return\n}\n";
        let [guarded, other] = param_ranges(text, 1, 1, [3, 4]);
        assert_eq!(guarded, (72, 68 * 15 + 4 * 15 + 72));
        assert_eq!(other, FULL);
    }

    /// The ranges of `v5 = (tid + 128) << 2` in the then and else blocks of a `brif` on
    /// `cond` (IR text defining `v3` from `v0 = tid.x` and the constant `v1 = 128`).
    fn guarded(cond: &str) -> ((u64, u64), (u64, u64)) {
        let text = format!(
            "kernel %k {{\n    group_size 256, 1, 1\n    lds0 = 1024\n\nblock0:\n    \
             v0 = special tid.x\n    v1 = iconst.b32 0x80\n    v2 = iconst.b32 0x2\n    \
             v4 = iadd v0, v1\n    v5 = ishl v4, v2\n    {cond}\n    \
             brif v3, block1, block2\n\nblock1:\n    store.b32 lds0[v5], v0\n    \
             return\n\nblock2:\n    store.b32 lds0[v5], v0\n    return\n}}\n"
        );
        let f = parse_function_text(&text).expect("parses");
        crate::verifier::verify_function(&f).expect("verifies");
        let r = Ranges::new(&f);
        let blocks: Vec<Block> = f.layout.blocks().collect();
        let v5 = f
            .dfg
            .values()
            .find(|&v| {
                f.dfg
                    .value_inst(v)
                    .is_some_and(|i| f.dfg.insts[i].opcode() == Opcode::Ishl)
            })
            .expect("the shift");
        (
            r.range(&f, v5, Some(blocks[1])),
            r.range(&f, v5, Some(blocks[2])),
        )
    }

    #[test]
    fn branch_conditions_bound_values_where_they_hold() {
        let all = (128 * 4, (255 + 128) * 4);
        let upper = (256 * 4, (255 + 128) * 4);
        // `if (tid < 128)`: the tree-reduction step `s[tid + 128]` stays inside 1 KiB; the
        // else edge holds the negation, `tid >= 128`.
        assert_eq!(guarded("v3 = icmp ult v0, v1"), ((512, 1020), upper));
        assert_eq!(guarded("v3 = icmp uge v0, v1"), (upper, (512, 1020)));
        // Both sides of a `pand` hold on its true edge, neither of a `por` on its false edge.
        assert_eq!(
            guarded("v6 = iconst.b32 0x40\n    v7 = icmp ult v0, v6\n    v8 = icmp ne v0, v1\n    v3 = pand v8, v7").0,
            (512, (63 + 128) * 4)
        );
        assert_eq!(
            guarded("v6 = iconst.b32 0x40\n    v7 = icmp uge v0, v6\n    v8 = icmp eq v0, v1\n    v3 = por v8, v7").1,
            (512, (63 + 128) * 4)
        );
        // An upper bound of a `umax` bounds its operands; a lower bound does not.
        let max = "v6 = special ctaid.x\n    v7 = umax v6, v0\n    v8 = iconst.b32 0x40";
        assert_eq!(
            guarded(&format!("{max}\n    v3 = icmp ult v7, v8")),
            ((512, (63 + 128) * 4), all)
        );
        assert_eq!(
            guarded(&format!("{max}\n    v3 = icmp ugt v7, v8")),
            (all, (512, (64 + 128) * 4))
        );
        // A signed compare with a non-negative value orders as an unsigned one.
        assert_eq!(guarded("v3 = icmp slt v0, v1").0, (512, 1020));
        // `!=` bounds nothing; its false edge is `==`.
        assert_eq!(guarded("v3 = icmp ne v0, v1"), (all, (1024, 1024)));
    }

    #[test]
    fn thread_index_math_is_bounded() {
        let t = "kernel %k {\n  group_size 64, 1, 1\n\nblock0:\n  v0 = special tid.x\n  v1 = special ctaid.x\n  v2 = iconst.b32 64\n  v3 = imad v1, v2, v0\n  v4 = iconst.b32 2\n  v5 = ishl v3, v4\n  return\n}\n";
        // ctaid.x <= 2^31 - 2, times 64 overflows 32 bits: unknown.
        assert_eq!(last_bound(t), MAX);
        let t = "kernel %k {\n  group_size 64, 1, 1\n\nblock0:\n  v0 = special tid.x\n  v4 = iconst.b32 2\n  v5 = ishl v0, v4\n  v6 = iconst.b32 16\n  v7 = iadd v5, v6\n  return\n}\n";
        assert_eq!(last_bound(t), 63 * 4 + 16);
    }

    #[test]
    fn ranges_do_not_depend_on_the_order_of_queries() {
        // `v(k) = v(k-1) + v(k-2)` from `tid.x` and 1: every value is reached along paths of
        // many lengths, and the top ones only through the depth limit.
        let mut t = String::from(
            "kernel %k {\n  group_size 64, 1, 1\n\nblock0:\n  v0 = special tid.x\n  \
             v1 = iconst.b32 1\n",
        );
        for k in 2..20 {
            t.push_str(&format!("  v{k} = iadd v{}, v{}\n", k - 1, k - 2));
        }
        t.push_str("  return\n}\n");
        let f = parse_function_text(&t).expect("parses");
        let entry = f.layout.entry_block().expect("entry");
        let values: Vec<Value> = f
            .layout
            .block_insts(entry)
            .flat_map(|i| f.dfg.inst_results(i).iter().copied())
            .collect();
        let alone: Vec<_> = values
            .iter()
            .map(|&v| Ranges::new(&f).range(&f, v, Some(entry)))
            .collect();
        let shared = Ranges::new(&f);
        let upwards: Vec<_> = values
            .iter()
            .map(|&v| shared.range(&f, v, Some(entry)))
            .collect();
        let shared = Ranges::new(&f);
        let mut downwards: Vec<_> = values
            .iter()
            .rev()
            .map(|&v| shared.range(&f, v, Some(entry)))
            .collect();
        downwards.reverse();
        assert_eq!(upwards, alone);
        assert_eq!(downwards, alone);
        assert_eq!(alone[2], (1, 64));
        assert_eq!(*alone.last().expect("values"), FULL);
    }

    #[test]
    fn masks_shifts_and_remainders() {
        let t = "kernel %k {\nblock0(v0: b32):\n  v1 = iconst.b32 255\n  v2 = and v0, v1\n  return\n}\n";
        assert_eq!(last_bound(t), 255);
        let t =
            "kernel %k {\nblock0(v0: b32):\n  v1 = iconst.b32 4\n  v2 = ushr v0, v1\n  return\n}\n";
        assert_eq!(last_bound(t), MAX >> 4);
        let t = "kernel %k {\nblock0(v0: b32):\n  v1 = iconst.b32 10\n  v2 = urem v0, v1\n  return\n}\n";
        assert_eq!(last_bound(t), 9);
        // `x % 0` is all ones.
        let t =
            "kernel %k {\nblock0(v0: b32):\n  v1 = iconst.b32 0\n  v2 = urem v0, v1\n  return\n}\n";
        assert_eq!(last_bound(t), MAX);
    }

    #[test]
    fn guarded_selects_bound_their_other_arm() {
        // The lowering's exact g[] address: `x > 0x0fffffff ? 2^31 : x << 4`.
        let g = |cc: &str, m: u32| {
            format!(
                "kernel %k {{\nblock0(v0: b32):\n  v1 = iconst.b32 {m:#x}\n  v2 = icmp {cc} v0, v1\n  v3 = iconst.b32 0x80000000\n  v4 = iconst.b32 4\n  v5 = ishl v0, v4\n  v6 = select v2, v3, v5\n  return\n}}\n"
            )
        };
        assert_eq!(last_bound(&g("ugt", 0x0fff_ffff)), 0xffff_fff0);
        assert_eq!(last_bound(&g("uge", 0x1000_0000)), 0xffff_fff0);
        // Guarded the other way round (or signed): nothing known about the arm.
        assert_eq!(last_bound(&g("ult", 0x0fff_ffff)), MAX);
        assert_eq!(last_bound(&g("sgt", 0x0fff_ffff)), MAX);
    }

    #[test]
    fn wrapping_sums_are_unknown() {
        let t =
            "kernel %k {\nblock0(v0: b32):\n  v1 = iconst.b32 1\n  v2 = iadd v0, v1\n  return\n}\n";
        assert_eq!(last_bound(t), MAX);
        let t = "kernel %k {\nblock0(v0: b32):\n  v1 = iconst.b32 15\n  v2 = and v0, v1\n  v3 = iconst.b32 0xfffffff0\n  v4 = iadd v2, v3\n  return\n}\n";
        assert_eq!(last_bound(t), MAX);
    }
}
