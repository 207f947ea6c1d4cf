//! On-the-fly SSA construction after Braun et al., "Simple and Efficient Construction of
//! Static Single Assignment Form" (CC 2013), over the IR's block parameters.
//!
//! A variable ([`Var`]) is one 32-bit component of an IL register: `(file, index, comp)`
//! for `r#` temps and for constant-indexed `x#[..]` arrays. The lowering writes variables
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

use ilc_passes::ir::{Block, Function, Type, Value};

/// Register file of an SSA variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VarFile {
    /// `r#`: index = register number.
    Temp,
    /// Constant-indexed `x#[..]`: array number and element.
    IndexedTemp(u32),
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

#[derive(Default)]
struct BlockState {
    preds: Vec<Block>,
    sealed: bool,
    incomplete: Vec<(Var, Value)>,
}

/// Braun-style SSA construction state.
pub struct SsaBuilder {
    defs: HashMap<(Var, Block), Value>,
    blocks: HashMap<Block, BlockState>,
    /// The value of never-written variables (an `iconst 0` in the entry block).
    zero: Option<Value>,
}

impl SsaBuilder {
    /// An empty builder.
    pub fn new() -> Self {
        SsaBuilder {
            defs: HashMap::new(),
            blocks: HashMap::new(),
            zero: None,
        }
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

    /// True once `block` is sealed.
    pub fn is_sealed(&self, block: Block) -> bool {
        self.blocks.get(&block).is_some_and(|s| s.sealed)
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
            self.add_phi_operands(func, var, block, param);
        }
    }

    /// Records `value` as the current definition of `var` in `block`.
    pub fn write(&mut self, var: Var, block: Block, value: Value) {
        self.defs.insert((var, block), value);
    }

    /// The value of `var` at the end of `block` (so far).
    pub fn read(&mut self, func: &mut Function, var: Var, block: Block) -> Value {
        if let Some(&v) = self.defs.get(&(var, block)) {
            return v;
        }
        self.read_recursive(func, var, block)
    }

    fn zero_value(&self) -> Value {
        // The lowering calls `set_zero` before any read (invariant of `lower`).
        self.zero.expect("SsaBuilder::set_zero not called")
    }

    fn read_recursive(&mut self, func: &mut Function, var: Var, block: Block) -> Value {
        let (sealed, preds) = {
            let st = self.state(block);
            (st.sealed, st.preds.clone())
        };
        let v = if !sealed {
            let p = func.dfg.append_block_param(block, Type::B32);
            self.state(block).incomplete.push((var, p));
            p
        } else if preds.is_empty() {
            self.zero_value()
        } else if preds.len() == 1 {
            self.read(func, var, preds[0])
        } else {
            let p = func.dfg.append_block_param(block, Type::B32);
            self.write(var, block, p);
            self.add_phi_operands(func, var, block, p);
            p
        };
        self.write(var, block, v);
        v
    }

    fn add_phi_operands(&mut self, func: &mut Function, var: Var, block: Block, param: Value) {
        let idx = func
            .dfg
            .block_params(block)
            .iter()
            .position(|&p| p == param);
        let preds = self.state(block).preds.clone();
        for pred in preds {
            let v = self.read(func, var, pred);
            let Some(term) = func.layout.last_inst(pred) else {
                continue;
            };
            for call in func.dfg.insts[term].branch_destinations_mut() {
                if call.block == block {
                    // Arguments are appended in parameter order, so the new argument lines
                    // up with `param` (checked in debug builds).
                    debug_assert_eq!(Some(call.args.len()), idx);
                    call.args.push(v);
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

/// Repeatedly replaces block parameters whose incoming values are all one value (or the
/// parameter itself) by that value, and removes them with their branch arguments.
fn remove_trivial_params(func: &mut Function) {
    loop {
        // Incoming arguments per (block, param index) over all live branches.
        let mut incoming: HashMap<Block, Vec<Vec<Value>>> = HashMap::new();
        for b in func.layout.blocks() {
            let n = func.dfg.block_params(b).len();
            if n > 0 {
                incoming.insert(b, vec![Vec::new(); n]);
            }
        }
        for b in func.layout.blocks() {
            let Some(t) = func.terminator(b) else {
                continue;
            };
            for call in func.dfg.insts[t].branch_destinations() {
                if let Some(slots) = incoming.get_mut(&call.block) {
                    for (k, &a) in call.args.iter().enumerate() {
                        if let Some(s) = slots.get_mut(k) {
                            s.push(a);
                        }
                    }
                }
            }
        }
        let mut subst: HashMap<Value, Value> = HashMap::new();
        let mut remove: HashMap<Block, Vec<usize>> = HashMap::new();
        let entry = func.entry_block();
        let mut order: Vec<Block> = incoming.keys().copied().collect();
        order.sort();
        for b in order {
            if Some(b) == entry {
                continue;
            }
            let params = func.dfg.block_params(b).to_vec();
            for (k, args) in incoming[&b].iter().enumerate() {
                let p = params[k];
                let mut same: Option<Value> = None;
                let mut trivial = true;
                for &a in args {
                    let a = resolve(&subst, a);
                    if a == p || Some(a) == same {
                        continue;
                    }
                    if same.is_some() {
                        trivial = false;
                        break;
                    }
                    same = Some(a);
                }
                // With no incoming value besides itself the block is only reachable
                // through itself; unreachable blocks are gone, so such a parameter is kept.
                if let (true, Some(v)) = (trivial, same) {
                    subst.insert(p, v);
                    remove.entry(b).or_default().push(k);
                }
            }
        }
        if subst.is_empty() {
            return;
        }
        func.rewrite_uses(|v| resolve(&subst, v));
        for (&b, ks) in remove.iter_mut() {
            ks.sort_unstable_by(|x, y| y.cmp(x));
            for &k in ks.iter() {
                func.dfg.remove_block_param(b, k);
            }
        }
        let blocks: Vec<Block> = func.layout.blocks().collect();
        for pb in blocks {
            let Some(t) = func.terminator(pb) else {
                continue;
            };
            for call in func.dfg.insts[t].branch_destinations_mut() {
                if let Some(ks) = remove.get(&call.block) {
                    for &k in ks {
                        if k < call.args.len() {
                            call.args.remove(k);
                        }
                    }
                }
            }
        }
    }
}

/// Follows substitution chains (acyclic by construction in `remove_trivial_params`).
fn resolve(subst: &HashMap<Value, Value>, mut v: Value) -> Value {
    while let Some(&w) = subst.get(&v) {
        v = w;
    }
    v
}

/// Emits `iconst.b32 0` at the end of `block` (used once, for the entry block).
pub fn make_zero(func: &mut Function, block: Block) -> Value {
    let mut cur = ilc_passes::ir::FuncCursor::new(func).at_end(block);
    cur.ins().iconst(Type::B32, 0)
}
