//! On-the-fly SSA construction after Braun et al., "Simple and Efficient Construction of
//! Static Single Assignment Form" (CC 2013), over the IR's block parameters.
//!
//! A variable ([`Var`]) is one 32-bit component of an IL register: `(file, index, comp)`
//! for `r#` temps, constant-indexed `x#[..]` arrays and pixel-shader outputs `o#`. The lowering writes variables
//! with [`SsaBuilder::write`] and reads them with [`SsaBuilder::read`]; a read in a block
//! without a local definition walks up to the predecessors, creating a block parameter
//! (phi) where paths join. Blocks are *sealed* once all their predecessors are known;
//! reads in unsealed blocks (loop headers, switch cases) create incomplete phis that are
//! completed at sealing time.
//!
//! Requirements on the caller: a predecessor edge is registered with
//! [`SsaBuilder::add_pred`] only after the predecessor's terminator (the branch to the
//! block) is in the layout, because completing a phi appends an argument to every branch
//! from that predecessor to the block. Every block is sealed before [`SsaBuilder::finish`].
//!
//! Guarantees: every read yields a `b32` value that dominates the reading block; a variable
//! never written on some path reads as zero there (IL registers start at 0). After
//! [`SsaBuilder::finish`], blocks unreachable from the entry are gone and no block
//! parameter is trivial (all incoming values equal, or equal to the parameter itself).

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

use ilc_passes::ir::{Block, Function, Type, Value};

/// Register file of an SSA variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VarFile {
    /// `r#`: index = register number.
    Temp,
    /// Constant-indexed `x#[..]`: array number and element.
    IndexedTemp(u32),
    /// A pixel-shader output `o#` read as a register: index = output number.
    Output,
}

/// One 32-bit component of an IL register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Var {
    /// Register file.
    pub file: VarFile,
    /// Register number (temps) or element index (arrays).
    pub index: u32,
    /// Component 0..3.
    pub comp: u8,
}

/// A small multiplicative hasher for the entity-keyed maps (keys are a few small
/// integers; SipHash dominated the lowering's profile).
#[derive(Default)]
pub(crate) struct FastHasher(u64);

impl Hasher for FastHasher {
    fn finish(&self) -> u64 {
        // Fold the high bits down: hashbrown indexes buckets by the low bits.
        let x = self.0 ^ (self.0 >> 32);
        x.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (x >> 29)
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }
    fn write_u8(&mut self, i: u8) {
        self.write_u64(i as u64);
    }
    fn write_u32(&mut self, i: u32) {
        self.write_u64(i as u64);
    }
    fn write_usize(&mut self, i: usize) {
        self.write_u64(i as u64);
    }
    fn write_u64(&mut self, i: u64) {
        self.0 = (self.0.rotate_left(5) ^ i).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

/// A `HashMap` with [`FastHasher`].
pub(crate) type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<FastHasher>>;

#[derive(Default)]
struct BlockState {
    preds: Vec<Block>,
    sealed: bool,
    incomplete: Vec<(Var, Value)>,
}

/// `r#` temps below this number keep their definitions in the block being written in a
/// dense table (four slots a register) instead of the hashed map.
const DENSE_TEMPS: u32 = 1 << 12;

/// The dense slot of `var` in [`Local`], if it has one.
fn slot(var: Var) -> Option<usize> {
    (var.file == VarFile::Temp && var.index < DENSE_TEMPS)
        .then(|| var.index as usize * 4 + usize::from(var.comp & 3))
}

/// The definitions of `r#` temps in one block, the one [`SsaBuilder::write`] wrote last: a
/// statement's reads and writes of temps are array accesses instead of hashing. They move
/// into the hashed map when another block is written.
#[derive(Default)]
struct Local {
    block: Option<Block>,
    /// By [`slot`]; `None` where this block defines nothing (yet).
    values: Vec<Option<Value>>,
    /// The slots set in `values`, to move them out without scanning the table.
    set: Vec<u32>,
}

/// Braun-style SSA construction state.
pub struct SsaBuilder {
    /// Definitions by variable and block; for `local.block` a dense entry in `local`
    /// overrides the one here.
    defs: FastMap<(Var, Block), Value>,
    local: Local,
    blocks: FastMap<Block, BlockState>,
    /// The value of never-written variables (an `iconst 0` in the entry block).
    zero: Option<Value>,
}

impl SsaBuilder {
    /// An empty builder.
    pub fn new() -> Self {
        SsaBuilder {
            defs: FastMap::default(),
            local: Local::default(),
            blocks: FastMap::default(),
            zero: None,
        }
    }

    /// The definition of `var` in `block`, if there is one.
    fn def(&self, var: Var, block: Block) -> Option<Value> {
        if self.local.block == Some(block) {
            if let Some(Some(v)) = slot(var).and_then(|s| self.local.values.get(s)) {
                return Some(*v);
            }
        }
        self.defs.get(&(var, block)).copied()
    }

    /// Records `value` as the definition of `var` in `block` without moving the dense table
    /// to another block.
    fn set_def(&mut self, var: Var, block: Block, value: Value) {
        if self.local.block == Some(block) {
            if let Some(s) = slot(var) {
                let l = &mut self.local;
                if s >= l.values.len() {
                    l.values.resize(s + 1, None);
                }
                if l.values[s].replace(value).is_none() {
                    l.set.push(s as u32);
                }
                return;
            }
        }
        self.defs.insert((var, block), value);
    }

    /// Moves the dense table's definitions into the map and gives the table to `block`.
    fn localize(&mut self, block: Block) {
        let l = &mut self.local;
        if let Some(old) = l.block {
            for s in l.set.drain(..) {
                if let Some(v) = l.values[s as usize].take() {
                    let var = Var {
                        file: VarFile::Temp,
                        index: s / 4,
                        comp: (s % 4) as u8,
                    };
                    self.defs.insert((var, old), v);
                }
            }
        }
        l.block = Some(block);
    }

    /// Sets the value read for variables with no definition on some path.
    pub fn set_zero(&mut self, zero: Value) {
        self.zero = Some(zero);
    }

    fn state(&mut self, b: Block) -> &mut BlockState {
        self.blocks.entry(b).or_default()
    }

    /// Registers `pred -> block` (the branch must already be in `pred`).
    pub fn add_pred(&mut self, block: Block, pred: Block) {
        let st = self.state(block);
        debug_assert!(!st.sealed, "edge into sealed {block}");
        if !st.preds.contains(&pred) {
            st.preds.push(pred);
        }
    }

    /// Declares that every predecessor of `block` is known; completes its pending phis.
    pub fn seal(&mut self, func: &mut Function, block: Block) {
        let pending = {
            let st = self.state(block);
            if st.sealed {
                return;
            }
            st.sealed = true;
            std::mem::take(&mut st.incomplete)
        };
        for (var, param) in pending {
            let mut work = vec![(block, param)];
            self.fill(func, var, &mut work);
        }
    }

    /// Records `value` as the current definition of `var` in `block`.
    pub fn write(&mut self, var: Var, block: Block, value: Value) {
        if self.local.block != Some(block) && slot(var).is_some() {
            self.localize(block);
        }
        self.set_def(var, block, value);
    }

    /// The value of `var` at the end of `block` (so far).
    ///
    /// Iterative (no recursion over the CFG), so arbitrarily long chains of blocks and
    /// deeply nested joins cannot overflow the stack: single-predecessor chains are walked
    /// in a loop, and phi operands are completed from an explicit work list.
    pub fn read(&mut self, func: &mut Function, var: Var, block: Block) -> Value {
        if let Some(v) = self.def(var, block) {
            return v;
        }
        let mut work = Vec::new();
        let v = self.lookup(func, var, block, &mut work);
        self.fill(func, var, &mut work);
        v
    }

    fn zero_value(&self) -> Value {
        // The lowering calls `set_zero` before any read (invariant of `lower`).
        self.zero.expect("SsaBuilder::set_zero not called")
    }

    /// Finds or creates the value of `var` at the end of `block`; phis created at joins
    /// are pushed on `work` for their operands to be filled by [`Self::fill`].
    fn lookup(
        &mut self,
        func: &mut Function,
        var: Var,
        block: Block,
        work: &mut Vec<(Block, Value)>,
    ) -> Value {
        let mut chain = Vec::new();
        let mut b = block;
        let limit = self.blocks.len() + 1;
        let v = loop {
            if let Some(v) = self.def(var, b) {
                break v;
            }
            let (sealed, npreds, first) = {
                let st = self.state(b);
                (st.sealed, st.preds.len(), st.preds.first().copied())
            };
            if !sealed {
                let p = func.dfg.append_block_param(b, Type::B32);
                self.state(b).incomplete.push((var, p));
                break p;
            }
            match (npreds, first) {
                (1, Some(pred)) if chain.len() <= limit => {
                    chain.push(b);
                    b = pred;
                }
                (0, _) | (1, _) => break self.zero_value(),
                _ => {
                    let p = func.dfg.append_block_param(b, Type::B32);
                    self.set_def(var, b, p);
                    work.push((b, p));
                    break p;
                }
            }
        };
        self.set_def(var, b, v);
        for c in chain {
            self.set_def(var, c, v);
        }
        v
    }

    /// Appends the operands of the phis on `work` (all for `var`) to the branches of
    /// their blocks' predecessors, completing any phis that creates.
    fn fill(&mut self, func: &mut Function, var: Var, work: &mut Vec<(Block, Value)>) {
        while let Some((block, param)) = work.pop() {
            let idx = func
                .dfg
                .block_params(block)
                .iter()
                .position(|&p| p == param);
            let preds = self.state(block).preds.clone();
            for pred in preds {
                let v = self.lookup(func, var, pred, work);
                let Some(term) = func.layout.last_inst(pred) else {
                    continue;
                };
                for call in func.dfg.insts[term].branch_destinations_mut() {
                    if call.block == block {
                        // Operands are appended in parameter order, so the new argument
                        // lines up with `param` (checked in debug builds).
                        debug_assert_eq!(Some(call.args.len()), idx);
                        call.args.push(v);
                    }
                }
            }
        }
    }

    /// Removes unreachable blocks and trivial block parameters. Every block must be sealed.
    pub fn finish(self, func: &mut Function) {
        remove_unreachable(func);
        remove_trivial_params(func);
    }
}

impl Default for SsaBuilder {
    fn default() -> Self {
        SsaBuilder::new()
    }
}

/// Drops blocks not reachable from the entry block from the layout.
fn remove_unreachable(func: &mut Function) {
    let Some(entry) = func.entry_block() else {
        return;
    };
    let mut seen = HashSet::new();
    let mut work = vec![entry];
    while let Some(b) = work.pop() {
        if seen.insert(b) {
            work.extend(func.successors(b));
        }
    }
    let dead: Vec<Block> = func.layout.blocks().filter(|b| !seen.contains(b)).collect();
    for b in dead {
        func.layout.remove_block(b);
    }
}

/// Replaces block parameters whose incoming values are all one value (or the parameter
/// itself) by that value, and removes them with their branch arguments.
///
/// A work list revisits only the parameters fed by a removed one, so chains of trivial
/// phis (nested joins) are removed in time linear in the number of branch arguments.
fn remove_trivial_params(func: &mut Function) {
    let entry = func.entry_block();
    let blocks: Vec<Block> = func.layout.blocks().collect();
    // Incoming arguments of every parameter, and which parameters each value feeds.
    let mut incoming: FastMap<Value, Vec<Value>> = FastMap::default();
    let mut param_of: FastMap<Value, (Block, usize)> = FastMap::default();
    for &b in &blocks {
        if Some(b) == entry {
            continue;
        }
        for (k, &p) in func.dfg.block_params(b).iter().enumerate() {
            incoming.insert(p, Vec::new());
            param_of.insert(p, (b, k));
        }
    }
    let mut users: FastMap<Value, Vec<Value>> = FastMap::default();
    for &b in &blocks {
        let Some(t) = func.terminator(b) else {
            continue;
        };
        for call in func.dfg.insts[t].branch_destinations() {
            let params = func.dfg.block_params(call.block);
            for (k, &a) in call.args.iter().enumerate() {
                let Some(&p) = params.get(k) else { continue };
                if let Some(list) = incoming.get_mut(&p) {
                    list.push(a);
                    if incoming_contains_param(&param_of, a) {
                        users.entry(a).or_default().push(p);
                    }
                }
            }
        }
    }
    let mut subst: FastMap<Value, Value> = FastMap::default();
    let mut work: Vec<Value> = incoming.keys().copied().collect();
    work.sort();
    while let Some(p) = work.pop() {
        if subst.contains_key(&p) {
            continue;
        }
        let mut same: Option<Value> = None;
        let mut trivial = true;
        for &a in &incoming[&p] {
            let a = resolve_compress(&mut subst, a);
            if a == p || Some(a) == same {
                continue;
            }
            if same.is_some() {
                trivial = false;
                break;
            }
            same = Some(a);
        }
        // With no incoming value besides itself the block is only reachable through
        // itself; unreachable blocks are gone, so such a parameter is kept.
        if let (true, Some(v)) = (trivial, same) {
            subst.insert(p, v);
            if let Some(us) = users.get(&p) {
                work.extend(us.iter().copied().filter(|u| !subst.contains_key(u)));
            }
        }
    }
    if subst.is_empty() {
        return;
    }
    let keys: Vec<Value> = subst.keys().copied().collect();
    for k in keys {
        resolve_compress(&mut subst, k);
    }
    func.rewrite_uses(|v| subst.get(&v).copied().unwrap_or(v));
    let mut remove: FastMap<Block, Vec<usize>> = FastMap::default();
    for p in subst.keys() {
        if let Some(&(b, k)) = param_of.get(p) {
            remove.entry(b).or_default().push(k);
        }
    }
    for (&b, ks) in remove.iter_mut() {
        ks.sort_unstable_by(|x, y| y.cmp(x));
        for &k in ks.iter() {
            func.dfg.remove_block_param(b, k);
        }
    }
    for &pb in &blocks {
        let Some(t) = func.terminator(pb) else {
            continue;
        };
        for call in func.dfg.insts[t].branch_destinations_mut() {
            if let Some(ks) = remove.get(&call.block) {
                // `ks` is in descending order: walk it from the end alongside the arguments.
                let mut drop = ks.iter().rev().copied().peekable();
                let mut k = 0;
                call.args.retain(|_| {
                    let gone = drop.next_if_eq(&k).is_some();
                    k += 1;
                    !gone
                });
            }
        }
    }
}

fn incoming_contains_param(param_of: &FastMap<Value, (Block, usize)>, v: Value) -> bool {
    param_of.contains_key(&v)
}

/// Follows substitution chains (acyclic by construction in `remove_trivial_params`) and
/// points every value on the path straight at the end (path compression).
fn resolve_compress(subst: &mut FastMap<Value, Value>, v: Value) -> Value {
    let mut root = v;
    while let Some(&w) = subst.get(&root) {
        root = w;
    }
    // A second walk re-points the path (no list of it to allocate).
    let mut at = v;
    while let Some(w) = subst.get_mut(&at) {
        if *w == root {
            break;
        }
        at = std::mem::replace(w, root);
    }
    root
}

/// Emits `iconst.b32 0` at the end of `block` (used once, for the entry block).
pub fn make_zero(func: &mut Function, block: Block) -> Value {
    let mut cur = ilc_passes::ir::FuncCursor::new(func).at_end(block);
    cur.ins().iconst(Type::B32, 0)
}

#[cfg(test)]
mod tests {
    use ilc_passes::ir::{FuncCursor, IntCC, ValueDef};

    use super::*;

    /// A function with a sealed entry block, a builder reading unwritten variables as the
    /// entry's zero, and that zero.
    fn start() -> (Function, Block, SsaBuilder, Value) {
        let mut f = Function::new("t");
        let entry = f.append_new_block();
        let mut ssa = SsaBuilder::new();
        let zero = make_zero(&mut f, entry);
        ssa.set_zero(zero);
        ssa.seal(&mut f, entry);
        (f, entry, ssa, zero)
    }

    fn var(i: u32) -> Var {
        Var {
            file: VarFile::Temp,
            index: i,
            comp: 0,
        }
    }

    /// entry -> (a | b) -> join: a variable written differently on both arms becomes one
    /// join parameter; one written before the branch only needs no parameter.
    #[test]
    fn diamond_gets_one_phi_and_trivial_ones_vanish() {
        let (mut f, entry, mut ssa, zero) = start();
        let (a, b, join) = (
            f.append_new_block(),
            f.append_new_block(),
            f.append_new_block(),
        );
        let mut c = FuncCursor::new(&mut f).at_end(entry);
        let x = c.ins().iconst(Type::B32, 7);
        let p = c.ins().icmp(IntCC::Eq, x, x);
        c.ins().brif(p, a, &[], b, &[]);
        ssa.write(var(0), entry, x);
        ssa.add_pred(a, entry);
        ssa.add_pred(b, entry);
        ssa.seal(&mut f, a);
        ssa.seal(&mut f, b);
        let mut c = FuncCursor::new(&mut f).at_end(a);
        let ya = c.ins().iconst(Type::B32, 1);
        c.ins().jump(join, &[]);
        let mut c = FuncCursor::new(&mut f).at_end(b);
        let yb = c.ins().iconst(Type::B32, 2);
        c.ins().jump(join, &[]);
        ssa.write(var(1), a, ya);
        ssa.write(var(1), b, yb);
        ssa.add_pred(join, a);
        ssa.add_pred(join, b);
        ssa.seal(&mut f, join);
        let y = ssa.read(&mut f, var(1), join);
        let x2 = ssa.read(&mut f, var(0), join);
        let u = ssa.read(&mut f, var(9), join);
        let mut c = FuncCursor::new(&mut f).at_end(join);
        let s = c.ins().iadd(y, x2);
        let sum = c.ins().iadd(s, u);
        c.ins().return_();
        ssa.finish(&mut f);
        assert_eq!(f.dfg.block_params(join), &[y]);
        let add = f.dfg.value_inst(sum).expect("an instruction result");
        assert_eq!(
            f.dfg.inst_args(add)[1],
            zero,
            "never-written variables read as zero"
        );
        assert!(ilc_passes::verifier::verify_function(&f).is_ok());
    }

    /// Definitions survive the move of the dense table between blocks: a block written
    /// again after another one keeps its earlier definitions and sees its new ones first,
    /// and temps past the dense range or in other files live in the map throughout.
    #[test]
    fn definitions_outlive_the_dense_table_of_their_block() {
        let (mut f, a, mut ssa, zero) = start();
        let b = f.append_new_block();
        let mut c = FuncCursor::new(&mut f).at_end(a);
        let (x1, x2, x3) = (
            c.ins().iconst(Type::B32, 1),
            c.ins().iconst(Type::B32, 2),
            c.ins().iconst(Type::B32, 3),
        );
        let far = Var {
            index: DENSE_TEMPS + 5,
            ..var(0)
        };
        let array = Var {
            file: VarFile::IndexedTemp(0),
            ..var(0)
        };
        ssa.write(var(0), a, x1);
        ssa.write(var(1), a, x1);
        ssa.write(far, a, x2);
        ssa.write(array, a, x3);
        ssa.write(var(2), b, x2);
        // Back to `a`: its dense table starts empty, its earlier definitions are in the map.
        ssa.write(var(1), a, x3);
        assert_eq!(ssa.read(&mut f, var(0), a), x1);
        assert_eq!(ssa.read(&mut f, var(1), a), x3);
        assert_eq!(ssa.read(&mut f, far, a), x2);
        assert_eq!(ssa.read(&mut f, array, a), x3);
        FuncCursor::new(&mut f).at_end(a).ins().jump(b, &[]);
        ssa.add_pred(b, a);
        ssa.seal(&mut f, b);
        assert_eq!(ssa.read(&mut f, var(2), b), x2);
        assert_eq!(
            ssa.read(&mut f, var(1), b),
            x3,
            "read through the predecessor"
        );
        assert_eq!(ssa.read(&mut f, var(3), b), zero);
    }

    /// Trivial parameters between kept ones: the kept parameters close up in order, with
    /// their positions and every branch's arguments lined up, and uses of the removed ones
    /// read the values from before the loop.
    #[test]
    fn kept_loop_parameters_close_up_around_removed_ones() {
        let (mut f, entry, mut ssa, _) = start();
        let consts: Vec<Value> = (0..4)
            .map(|k| {
                FuncCursor::new(&mut f)
                    .at_end(entry)
                    .ins()
                    .iconst(Type::B32, k)
            })
            .collect();
        for (k, &c) in consts.iter().enumerate() {
            ssa.write(var(k as u32), entry, c);
        }
        let (header, body, exit) = (
            f.append_new_block(),
            f.append_new_block(),
            f.append_new_block(),
        );
        FuncCursor::new(&mut f)
            .at_end(entry)
            .ins()
            .jump(header, &[]);
        ssa.add_pred(header, entry);
        let p: Vec<Value> = (0..4).map(|k| ssa.read(&mut f, var(k), header)).collect();
        let mut c = FuncCursor::new(&mut f).at_end(header);
        let cond = c.ins().icmp(IntCC::Ult, p[1], p[3]);
        c.ins().brif(cond, body, &[], exit, &[]);
        ssa.add_pred(body, header);
        ssa.seal(&mut f, body);
        ssa.add_pred(exit, header);
        ssa.seal(&mut f, exit);
        // The loop writes variables 1 and 3 only.
        let mut c = FuncCursor::new(&mut f).at_end(body);
        let y1 = c.ins().iadd(p[1], p[0]);
        let y3 = c.ins().iadd(p[3], p[2]);
        c.ins().jump(header, &[]);
        ssa.write(var(1), body, y1);
        ssa.write(var(3), body, y3);
        ssa.add_pred(header, body);
        ssa.seal(&mut f, header);
        let mut c = FuncCursor::new(&mut f).at_end(exit);
        let s = c.ins().iadd(p[0], p[2]);
        c.ins().return_();
        ssa.finish(&mut f);
        assert_eq!(f.dfg.block_params(header), &[p[1], p[3]]);
        assert_eq!(f.dfg.value_def(p[3]), ValueDef::Param(header, 1));
        let args = |from: Block| {
            let t = f.terminator(from).expect("a terminator");
            f.dfg.insts[t].branch_destinations()[0].args.to_vec()
        };
        assert_eq!(args(entry), vec![consts[1], consts[3]]);
        assert_eq!(args(body), vec![y1, y3]);
        let s = f.dfg.value_inst(s).expect("an instruction result");
        assert_eq!(f.dfg.inst_args(s), &[consts[0], consts[2]]);
        let y3 = f.dfg.value_inst(y3).expect("an instruction result");
        assert_eq!(f.dfg.inst_args(y3), &[p[3], consts[2]]);
        assert!(ilc_passes::verifier::verify_function(&f).is_ok());
    }

    /// A loop header read before the back edge exists gets an incomplete phi that turns
    /// out trivial when the loop never writes the variable, and is removed.
    #[test]
    fn loop_invariant_phi_is_removed_and_long_chains_do_not_recurse() {
        let (mut f, entry, mut ssa, _) = start();
        let x = FuncCursor::new(&mut f)
            .at_end(entry)
            .ins()
            .iconst(Type::B32, 3);
        ssa.write(var(0), entry, x);
        let header = f.append_new_block();
        FuncCursor::new(&mut f)
            .at_end(entry)
            .ins()
            .jump(header, &[]);
        ssa.add_pred(header, entry);
        let r = ssa.read(&mut f, var(0), header);
        assert_eq!(f.dfg.block_params(header).len(), 1);
        // A chain of 100k single-predecessor blocks inside the loop.
        let mut prev = header;
        for _ in 0..100_000 {
            let b = f.append_new_block();
            FuncCursor::new(&mut f).at_end(prev).ins().jump(b, &[]);
            ssa.add_pred(b, prev);
            ssa.seal(&mut f, b);
            prev = b;
        }
        let deep = ssa.read(&mut f, var(0), prev);
        assert_eq!(deep, r);
        let mut c = FuncCursor::new(&mut f).at_end(prev);
        c.ins().iadd(deep, deep);
        c.ins().jump(header, &[]);
        ssa.add_pred(header, prev);
        ssa.seal(&mut f, header);
        ssa.finish(&mut f);
        assert!(f.dfg.block_params(header).is_empty());
        assert!(ilc_passes::verifier::verify_function(&f).is_ok());
    }
}
