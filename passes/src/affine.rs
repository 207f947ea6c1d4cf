//! Affine address analysis for loop passes: which values grow by a fixed amount per
//! iteration of a loop (modulo 2^32), the loop's induction variables, and the evaluation of
//! such values at a given iteration in front of the loop.
//!
//! A value is affine when it is built from induction variables (header parameters the single
//! latch advances by a constant or invariant step) and loop-invariant values by `iadd`,
//! `isub`, `ineg`, `imul`/`imad` by an invariant, `ishl` by an invariant and the alignment
//! masks `and x, !(2^k - 1)` where `2^k` divides `x`'s growth. Then `v(j) = v(0) + K * j
//! (mod 2^32)` for iteration `j`, exactly, whatever wraps: every operation involved is a ring
//! operation modulo 2^32 (the mask commutes with adding multiples of `2^k`).
//!
//! Used by [`crate::bounds_version`] (range tests in front of a loop) and
//! [`crate::loop_reduce`] (addresses as induction variables); [`Lin`] also by
//! [`crate::value_bound`] (a value as a linear form, for its relational rule).

use crate::ir::{Block, Function, Inst, InstructionData, Opcode, Type, Value, ValueDef};
use crate::{FastHashMap as HashMap, FastHashSet as HashSet};

/// The blocks around a loop that the induction-variable scan needs.
pub(crate) struct LoopShape {
    pub(crate) header: Block,
    /// The single predecessor outside the loop.
    pub(crate) pre: Block,
    /// The single block jumping back to the header.
    pub(crate) latch: Block,
    /// An induction variable to list first (a counted loop's counter).
    pub(crate) first: Option<Value>,
}

/// The coefficient `K` of `iv` in an affine address `A + K * iv (mod 2^32)`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Coef {
    /// A known constant.
    Const(u32),
    /// A loop-invariant value, unknown at compile time.
    Var,
}

impl Coef {
    pub(crate) fn is_zero(self) -> bool {
        self == Coef::Const(0)
    }
    pub(crate) fn add(self, o: Coef) -> Coef {
        match (self, o) {
            (Coef::Const(a), Coef::Const(b)) => Coef::Const(a.wrapping_add(b)),
            _ => Coef::Var,
        }
    }
    pub(crate) fn neg(self) -> Coef {
        match self {
            Coef::Const(a) => Coef::Const(a.wrapping_neg()),
            Coef::Var => Coef::Var,
        }
    }
    /// `self * x` for an invariant `x` (constant `c` when known).
    pub(crate) fn scale(self, c: Option<u32>) -> Coef {
        match (self, c) {
            (Coef::Const(0), _) => Coef::Const(0),
            (Coef::Const(a), Some(c)) => Coef::Const(a.wrapping_mul(c)),
            _ => Coef::Var,
        }
    }
}

/// The loop's blocks and induction variable, for the address analysis.
pub(crate) struct Scope<'a> {
    pub(crate) func: &'a Function,
    pub(crate) members: HashSet<Block>,
    /// The induction variables (header parameters the latch advances by an invariant step,
    /// the counted loop's own included) and their steps per iteration.
    pub(crate) ivs: HashMap<Value, Coef>,
}

impl Scope<'_> {
    /// True if `v` is defined outside the loop.
    pub(crate) fn outside(&self, v: Value) -> bool {
        defined_outside(self.func, &self.members, v)
    }

    /// The instruction computing `v` inside the loop if it may be recomputed in front of the
    /// loop: pure, a single result, no memory, no cross-lane exchange.
    fn clonable(&self, v: Value) -> Option<Inst> {
        let inst = self.func.dfg.value_inst(v)?;
        let data = &self.func.dfg.insts[inst];
        let ok = matches!(
            data,
            InstructionData::UnaryImm { .. }
                | InstructionData::Unary { .. }
                | InstructionData::Binary { .. }
                | InstructionData::Ternary { .. }
                | InstructionData::Quaternary { .. }
                | InstructionData::IntCompare { .. }
                | InstructionData::FloatCompare { .. }
                | InstructionData::Special { .. }
        ) && !data.has_side_effects()
            && data.opcode() != Opcode::QuadShuffle
            && self.func.dfg.inst_results(inst).len() == 1;
        ok.then_some(inst)
    }

    /// How much `v` grows per iteration if `v` is affine in the induction variables over
    /// invariant values (module doc); `budget` bounds the instructions visited.
    pub(crate) fn coef(&self, v: Value, budget: &mut usize) -> Option<Coef> {
        if let Some(&k) = self.ivs.get(&v) {
            return Some(k);
        }
        if self.outside(v) {
            return Some(Coef::Const(0));
        }
        *budget = budget.checked_sub(1)?;
        let inst = self.clonable(v)?;
        let dfg = &self.func.dfg;
        let args = dfg.inst_args(inst);
        let mut ks = Vec::with_capacity(args.len());
        for &a in args {
            ks.push(self.coef(a, budget)?);
        }
        if ks.iter().all(|k| k.is_zero()) {
            return Some(Coef::Const(0));
        }
        let c = |a: Value| dfg.value_const(a).map(|c| c as u32);
        Some(match dfg.opcode(inst) {
            Opcode::Iadd => ks[0].add(ks[1]),
            Opcode::Isub => ks[0].add(ks[1].neg()),
            Opcode::Ineg => ks[0].neg(),
            Opcode::Imul | Opcode::Imad => {
                let prod = match (ks[0].is_zero(), ks[1].is_zero()) {
                    // Both factors invariant (`imad row, width, iv`): only the addend grows.
                    (true, true) => Coef::Const(0),
                    (false, true) => ks[0].scale(c(args[1])),
                    (true, false) => ks[1].scale(c(args[0])),
                    (false, false) => return None,
                };
                match dfg.opcode(inst) {
                    Opcode::Imad => prod.add(ks[2]),
                    _ => prod,
                }
            }
            Opcode::Ishl if ks[1].is_zero() => {
                ks[0].scale(c(args[1]).map(|s| 1u32.wrapping_shl(s & 31)))
            }
            // (A + K iv) & ~(2^k - 1) = (A & ~(2^k - 1)) + K iv when 2^k divides K: the
            // alignment mask AMD IL's raw addresses carry.
            Opcode::Band if ks[1].is_zero() => match (ks[0], c(args[1])) {
                (Coef::Const(k), Some(m)) if clears_low_bits(m) && k & !m == 0 => Coef::Const(k),
                _ => return None,
            },
            _ => return None,
        })
    }
}

/// True if `v` is defined outside the blocks `members` (a detached value is not).
pub(crate) fn defined_outside(func: &Function, members: &HashSet<Block>, v: Value) -> bool {
    let b = match func.dfg.value_def(v) {
        ValueDef::Result(i, _) => func.layout.inst_block(i),
        ValueDef::Param(b, _) => Some(b),
        ValueDef::Detached => None,
    };
    b.is_some_and(|b| !members.contains(&b))
}

/// True if `m` is `!(2^k - 1)` for some `k` (a mask clearing only the low `k` bits).
pub(crate) fn clears_low_bits(m: u32) -> bool {
    let low = !m;
    low & low.wrapping_add(1) == 0
}

/// An induction variable: a header parameter `p` entering as `init` that the latch passes
/// on as `p + step`, `step` a constant (`coef`) or defined outside the loop.
pub(crate) struct Induction {
    pub(crate) param: Value,
    pub(crate) init: Value,
    pub(crate) step: Value,
    pub(crate) coef: Coef,
}

/// The loop's induction variables, the counted loop's own first.
pub(crate) fn induction_variables(
    func: &Function,
    lp: &LoopShape,
    members: &HashSet<Block>,
) -> Vec<Induction> {
    let params = func.dfg.block_params(lp.header);
    let entry = func
        .layout
        .last_inst(lp.pre)
        .and_then(|t| {
            func.dfg.insts[t]
                .branch_destinations()
                .iter()
                .find(|d| d.block == lp.header)
                .map(|d| d.args.to_vec())
        })
        .unwrap_or_default();
    let back = func
        .layout
        .last_inst(lp.latch)
        .map(|t| func.dfg.insts[t].branch_destinations()[0].args.to_vec())
        .unwrap_or_default();
    let outside = |v: Value| defined_outside(func, members, v);
    let mut out = Vec::new();
    for (k, &p) in params.iter().enumerate() {
        let (Some(&init), Some(&next)) = (entry.get(k), back.get(k)) else {
            continue;
        };
        let Some(add) = func.dfg.value_inst(next) else {
            continue;
        };
        if func.dfg.opcode(add) != Opcode::Iadd || func.dfg.value_type(p) != Type::B32 {
            continue;
        }
        let a = func.dfg.inst_args(add);
        let step = match (a[0] == p, a[1] == p) {
            (true, false) => a[1],
            (false, true) => a[0],
            _ => continue,
        };
        let coef = match func.dfg.value_const(step) {
            Some(c) => Coef::Const(c as u32),
            None if outside(step) => Coef::Var,
            None => continue,
        };
        let item = Induction {
            param: p,
            init,
            step,
            coef,
        };
        if Some(p) == lp.first {
            out.insert(0, item);
        } else {
            out.push(item);
        }
    }
    out
}

/// The iteration at which an address is evaluated in front of the loop.
#[derive(Copy, Clone, PartialEq, Eq, Hash)]
pub(crate) enum At {
    /// The first (`j = 0`).
    First,
    /// The second (`j = 1`, for the growth per iteration when it is not a constant).
    Second,
    /// The last the bound allows (`j = J`).
    Last,
}

/// Emits, at the end of the block the cursor is at, address expressions with `iv` replaced.
pub(crate) struct Eval<'s> {
    pub(crate) members: &'s HashSet<Block>,
    /// Each induction variable's value at the first, second and last iteration.
    pub(crate) subst: HashMap<Value, [Value; 3]>,
    pub(crate) memo: HashMap<(Value, Option<At>), Value>,
}

impl Eval<'_> {
    fn slot(at: At) -> usize {
        match at {
            At::First => 0,
            At::Second => 1,
            At::Last => 2,
        }
    }

    pub(crate) fn outside(&self, func: &Function, v: Value) -> bool {
        defined_outside(func, self.members, v)
    }

    /// True if `v` depends on an induction variable (the analysis accepted `v`, so this only
    /// walks clonable instructions).
    fn varies(&self, func: &Function, v: Value) -> bool {
        if self.subst.contains_key(&v) {
            return true;
        }
        if self.outside(func, v) {
            return false;
        }
        func.dfg
            .value_inst(v)
            .is_some_and(|i| func.dfg.inst_args(i).iter().any(|&a| self.varies(func, a)))
    }

    /// `v` with the induction variables at iteration `at`, as a value available at the end
    /// of `block`.
    pub(crate) fn eval(&mut self, func: &mut Function, block: Block, v: Value, at: At) -> Value {
        if let Some(s) = self.subst.get(&v) {
            return s[Self::slot(at)];
        }
        if self.outside(func, v) {
            return v;
        }
        let key = (v, self.varies(func, v).then_some(at));
        if let Some(&r) = self.memo.get(&key) {
            return r;
        }
        let inst = func
            .dfg
            .value_inst(v)
            .expect("the address analysis accepted only instruction results and iv");
        let mut data = func.dfg.insts[inst].clone();
        let args: Vec<Value> = data.args().to_vec();
        let new_args: Vec<Value> = args
            .iter()
            .map(|&a| self.eval(func, block, a, at))
            .collect();
        let mut k = 0;
        data.map_values(|_| {
            k += 1;
            new_args[k - 1]
        });
        let ty = func.dfg.value_type(v);
        let ni = func.dfg.make_inst(data);
        let r = func.dfg.append_result(ni, ty);
        func.layout.append_inst(ni, block);
        self.memo.insert(key, r);
        r
    }
}

/// Most terms of a [`Lin`].
pub(crate) const MAX_TERMS: usize = 4;

/// A linear form `sum(k * atom) + c (mod 2^32)`; terms sorted by atom, no zero coefficient.
/// Loop strength reduction writes invariant differences with atoms defined outside the loop;
/// value ranges write a value over any atoms.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Lin {
    pub(crate) terms: Vec<(Value, u32)>,
    pub(crate) c: u32,
}

impl Lin {
    pub(crate) fn konst(c: u32) -> Lin {
        Lin {
            terms: Vec::new(),
            c,
        }
    }

    pub(crate) fn atom(v: Value) -> Lin {
        Lin {
            terms: vec![(v, 1)],
            c: 0,
        }
    }

    /// `self + k * o`, `None` past [`MAX_TERMS`].
    pub(crate) fn add_scaled(mut self, o: &Lin, k: u32) -> Option<Lin> {
        for &(v, x) in &o.terms {
            let x = x.wrapping_mul(k);
            match self.terms.binary_search_by_key(&v, |t| t.0) {
                Ok(i) => {
                    self.terms[i].1 = self.terms[i].1.wrapping_add(x);
                    if self.terms[i].1 == 0 {
                        self.terms.remove(i);
                    }
                }
                Err(i) if x != 0 => self.terms.insert(i, (v, x)),
                Err(_) => {}
            }
        }
        self.c = self.c.wrapping_add(o.c.wrapping_mul(k));
        (self.terms.len() <= MAX_TERMS).then_some(self)
    }

    pub(crate) fn scale(self, k: u32) -> Option<Lin> {
        Lin::default().add_scaled(&self, k)
    }
}
