//! An independent checker for register allocation results (in the spirit of regalloc2's
//! `checker.rs`).
//!
//! It compares the allocated function with the function before allocation. The abstract
//! state maps every register (and every 4-byte word of the spill area) to the
//! *original* SSA value it holds (with the part index for multi-register values), or to
//! "unknown". The state is propagated over the allocated CFG to a fixpoint (meet: equal
//! contents survive, different ones become unknown), interpreting:
//! - an instruction of the input: each operand register must hold exactly the operand the
//!   *input* program names; then each result register holds that result;
//! - an inserted move / spill / reload: copies contents register->register,
//!   register->spill words, spill words->register;
//! - a rematerialization: must be identical to the original definition of the value it
//!   claims to recompute, whose contents it then produces;
//! - a `jump`: each argument must already sit in its parameter's register and hold the
//!   original argument of that edge (through split-edge blocks back to the input branch), or
//!   for parameters added by SSA reconstruction, the value they stand for; on entry the
//!   parameter registers then hold the parameters.
//!
//! Also checked: every value has a register inside the file limits with the footprint's
//! alignment; result/operand groups are consecutive and aligned; early-clobber results
//! overlap no operand; every reachable input instruction is still present (but constants,
//! which may be rematerialized at every use) and no unknown
//! instruction was added. Clobbers, wrong moves, lost spills and misplaced reloads all show
//! up as an operand register not holding its value.

use std::collections::VecDeque;

use cranelift_entity::SecondaryMap;

use super::{Allocation, EditKind, RegAllocError};
use crate::ir::{
    AnyEntity, Block, ControlFlowGraph, DominatorTree, Function, Inst, PerRegFile, RegFile, Value,
};
use crate::target::{PReg, TargetIsa};

/// Contents of one register or spill word.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Content {
    /// Nothing reliable.
    Unknown,
    /// Part `.1` of original value `.0`.
    Val(Value, u8),
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct State {
    regs: PerRegFile<Vec<Content>>,
    slots: Vec<Content>,
}

impl State {
    fn new(limits: PerRegFile<u32>, slots: usize, c: Content) -> Self {
        State {
            regs: PerRegFile(RegFile::ALL.map(|f| vec![c; limits[f] as usize])),
            slots: vec![c; slots],
        }
    }

    fn meet(&mut self, other: &State) -> bool {
        let mut changed = false;
        let pairs = self.regs.0.iter_mut().zip(other.regs.0.iter());
        for (a, b) in pairs.chain(std::iter::once((&mut self.slots, &other.slots))) {
            for (x, y) in a.iter_mut().zip(b.iter()) {
                let m = match (*x, *y) {
                    (x, y) if x == y => x,
                    _ => Content::Unknown,
                };
                if m != *x {
                    *x = m;
                    changed = true;
                }
            }
        }
        changed
    }
}

fn err(at: impl Into<AnyEntity>, message: String) -> RegAllocError {
    RegAllocError::Checker {
        at: at.into(),
        message,
    }
}

struct Checker<'a> {
    orig: &'a Function,
    func: &'a Function,
    alloc: &'a Allocation,
    target: &'a dyn TargetIsa,
    limits: PerRegFile<u32>,
}

/// Checks `func` (allocated, with `alloc`) against `orig` (the input of allocation).
pub fn check(
    orig: &Function,
    func: &Function,
    alloc: &Allocation,
    target: &dyn TargetIsa,
    limits: PerRegFile<u32>,
) -> Result<(), RegAllocError> {
    let c = Checker {
        orig,
        func,
        alloc,
        target,
        limits,
    };
    c.static_checks()?;
    c.dataflow()
}

impl Checker<'_> {
    fn width(&self, v: Value) -> u32 {
        u32::from(self.target.footprint(self.func.dfg.value_type(v)).width)
    }

    fn reg(&self, v: Value) -> Result<PReg, RegAllocError> {
        self.alloc.regs[v].ok_or_else(|| err(v, "no register assigned".into()))
    }

    fn static_checks(&self) -> Result<(), RegAllocError> {
        let (f, o) = (self.func, self.orig);
        let mut defs: Vec<Value> = Vec::new();
        let mut present: SecondaryMap<Inst, bool> = SecondaryMap::new();
        for b in f.layout.blocks() {
            defs.extend_from_slice(f.dfg.block_params(b));
            for inst in f.layout.block_insts(b) {
                present[inst] = true;
                defs.extend_from_slice(f.dfg.inst_results(inst));
                let kind = self.alloc.edits[inst];
                if kind == EditKind::Original {
                    if !o.dfg.inst_is_valid(inst) || o.layout.inst_block(inst).is_none() {
                        return Err(err(inst, "instruction not in the input".into()));
                    }
                    if o.dfg.opcode(inst) != f.dfg.opcode(inst)
                        || o.dfg.inst_args(inst).len() != f.dfg.inst_args(inst).len()
                        || o.dfg.inst_results(inst) != f.dfg.inst_results(inst)
                    {
                        return Err(err(inst, "instruction changed by allocation".into()));
                    }
                    self.check_constraints(inst)?;
                }
            }
        }
        for v in defs {
            let r = self.reg(v)?;
            let fp = self.target.footprint(f.dfg.value_type(v));
            let idx = u32::from(r.index);
            if r.file != fp.file
                || idx % u32::from(fp.align).max(1) != 0
                || idx + u32::from(fp.width) > self.limits[fp.file]
            {
                return Err(err(v, format!("bad register {r} for its type")));
            }
        }
        // Every reachable input instruction survives, but a constant the allocator
        // rematerialized at all its uses (any read of a lost definition finds the wrong
        // contents in its register: checked there).
        let cfg = ControlFlowGraph::with_function(o);
        let dt = DominatorTree::with_function(o, &cfg);
        for &b in dt.rpo() {
            for inst in o.layout.block_insts(b) {
                if !present[inst] && !super::rematerializable(o, self.target, inst) {
                    return Err(err(inst, "input instruction lost".into()));
                }
            }
        }
        Ok(())
    }

    fn check_constraints(&self, inst: Inst) -> Result<(), RegAllocError> {
        let f = self.func;
        let c = self.target.constraints(f, inst);
        let consecutive = |vals: &[Value], align: u8| -> Result<(), RegAllocError> {
            let mut next: Option<u32> = None;
            for &v in vals {
                let r = self.reg(v)?;
                let i = u32::from(r.index);
                match next {
                    None if i % u32::from(align).max(1) != 0 => {
                        return Err(err(inst, format!("group not aligned to {align}")));
                    }
                    Some(n) if n != i || r.file != RegFile::Gpr => {
                        return Err(err(inst, "group not in consecutive registers".into()));
                    }
                    _ => {}
                }
                next = Some(i + self.width(v));
            }
            Ok(())
        };
        let results = f.dfg.inst_results(inst);
        for g in &c.result_groups {
            let (s, n) = (usize::from(g.start), usize::from(g.len));
            let vals = results
                .get(s..s + n)
                .ok_or_else(|| err(inst, "result group out of range".into()))?;
            consecutive(vals, g.align)?;
        }
        let args = f.dfg.inst_args(inst);
        for g in &c.arg_groups {
            let (s, n) = (usize::from(g.start), usize::from(g.len));
            let vals = args
                .get(s..s + n)
                .ok_or_else(|| err(inst, "operand group out of range".into()))?;
            consecutive(vals, g.align)?;
        }
        if c.results_early {
            for &r in results {
                let rr = self.reg(r)?;
                for &a in args {
                    let ra = self.reg(a)?;
                    let ov = rr.file == ra.file
                        && rr.index < ra.index + self.width(a) as u16
                        && ra.index < rr.index + self.width(r) as u16;
                    if ov {
                        return Err(err(inst, format!("early-clobber result {r} overlaps {a}")));
                    }
                }
            }
        }
        Ok(())
    }

    fn slots(&self) -> usize {
        (self.alloc.spill_bytes as usize).div_ceil(4) + 4
    }

    fn read(&self, st: &State, r: PReg, w: u32) -> Vec<Content> {
        (u32::from(r.index)..u32::from(r.index) + w)
            .map(|i| {
                st.regs[r.file]
                    .get(i as usize)
                    .copied()
                    .unwrap_or(Content::Unknown)
            })
            .collect()
    }

    fn write(&self, st: &mut State, r: PReg, contents: &[Content]) {
        for (k, &c) in contents.iter().enumerate() {
            if let Some(x) = st.regs[r.file].get_mut(usize::from(r.index) + k) {
                *x = c;
            }
        }
    }

    fn whole(&self, v: Value, w: u32) -> Vec<Content> {
        (0..w).map(|k| Content::Val(v, k as u8)).collect()
    }

    /// Checks that the registers of `used` hold original value `expect`.
    fn expect(
        &self,
        st: &State,
        at: Inst,
        used: Value,
        expect: Value,
    ) -> Result<(), RegAllocError> {
        let w = self.width(used);
        let r = self.reg(used)?;
        let got = self.read(st, r, w);
        if got != self.whole(expect, w) {
            return Err(err(
                at,
                format!("operand {used} in {r} should hold {expect}, holds {got:?}"),
            ));
        }
        Ok(())
    }

    /// Applies `inst` to `st`; with `verify`, checks its operands.
    fn transfer(&self, st: &mut State, inst: Inst, verify: bool) -> Result<(), RegAllocError> {
        let f = self.func;
        match self.alloc.edits[inst] {
            EditKind::Original => {
                if verify {
                    let oargs = self.orig.dfg.inst_args(inst);
                    for (&b, &a) in f.dfg.inst_args(inst).iter().zip(oargs) {
                        self.expect(st, inst, b, a)?;
                    }
                }
                for &r in f.dfg.inst_results(inst) {
                    let w = self.width(r);
                    let c = self.whole(r, w);
                    self.write(st, self.reg(r)?, &c);
                }
            }
            EditKind::Move => {
                let s = f.dfg.inst_args(inst)[0];
                let d = f.dfg.inst_results(inst)[0];
                let c = self.read(st, self.reg(s)?, self.width(s));
                self.write(st, self.reg(d)?, &c);
            }
            EditKind::Spill { offset } => {
                let s = f.dfg.inst_args(inst)[0];
                let c = self.read(st, self.reg(s)?, self.width(s));
                for (k, c) in c.into_iter().enumerate() {
                    let i = offset as usize / 4 + k;
                    if i >= st.slots.len() {
                        return Err(err(inst, "spill outside the spill area".into()));
                    }
                    st.slots[i] = c;
                }
            }
            EditKind::Reload { offset } => {
                let d = f.dfg.inst_results(inst)[0];
                let w = self.width(d) as usize;
                let i = offset as usize / 4;
                let c: Vec<Content> = (i..i + w)
                    .map(|i| st.slots.get(i).copied().unwrap_or(Content::Unknown))
                    .collect();
                self.write(st, self.reg(d)?, &c);
            }
            EditKind::Remat(v) => {
                let d = f.dfg.inst_results(inst)[0];
                let def = self.orig.dfg.value_inst(v);
                if verify && def.map(|i| &self.orig.dfg.insts[i]) != Some(&f.dfg.insts[inst]) {
                    return Err(err(inst, format!("not a rematerialization of {v}")));
                }
                let c = self.whole(v, self.width(d));
                self.write(st, self.reg(d)?, &c);
            }
            EditKind::EdgeJump => {}
        }
        Ok(())
    }

    /// The original argument passed to parameter `i` of `dest` by branch `d` of block `b`.
    fn expected_arg(
        &self,
        b: Block,
        term: Inst,
        d: usize,
        i: usize,
        param: Value,
    ) -> Option<Value> {
        if let Some(origin) = self.alloc.param_origin[param] {
            return Some(origin);
        }
        let (ob, oterm, od) = match self.alloc.split_edges[b] {
            Some((pb, pd)) => (pb, self.orig.terminator(pb)?, usize::from(pd)),
            None => (b, term, d),
        };
        let _ = ob;
        let call = self.orig.dfg.insts[oterm].branch_destinations().get(od)?;
        call.args.get(i).copied()
    }

    /// Processes block `b` from `st`; returns the out-states per successor edge.
    fn run_block(
        &self,
        b: Block,
        mut st: State,
        verify: bool,
    ) -> Result<Vec<(Block, State)>, RegAllocError> {
        let f = self.func;
        for inst in f.layout.block_insts(b) {
            self.transfer(&mut st, inst, verify)?;
        }
        let mut outs = Vec::new();
        let Some(term) = f.terminator(b) else {
            return Ok(outs);
        };
        for (d, call) in f.dfg.insts[term].branch_destinations().iter().enumerate() {
            let params = f.dfg.block_params(call.block);
            if params.len() != call.args.len() {
                return Err(err(
                    term,
                    format!("argument count mismatch for {}", call.block),
                ));
            }
            let mut out = st.clone();
            let mut writes = Vec::new();
            for (i, (&a, &p)) in call.args.iter().zip(params).enumerate() {
                if verify {
                    if self.reg(a)? != self.reg(p)? {
                        return Err(err(term, format!("argument {a} not in {p}'s register")));
                    }
                    let e = self
                        .expected_arg(b, term, d, i, p)
                        .ok_or_else(|| err(term, format!("no input argument for {p}")))?;
                    self.expect(&st, term, a, e)?;
                }
                let label = self.alloc.param_origin[p].unwrap_or(p);
                writes.push((self.reg(p)?, self.whole(label, self.width(p))));
            }
            for (r, c) in writes {
                self.write(&mut out, r, &c);
            }
            outs.push((call.block, out));
        }
        Ok(outs)
    }

    fn dataflow(&self) -> Result<(), RegAllocError> {
        let f = self.func;
        let entry = f.entry_block().ok_or(RegAllocError::NoEntry)?;
        let cfg = ControlFlowGraph::with_function(f);
        let dt = DominatorTree::with_function(f, &cfg);
        let slots = self.slots();
        let mut ins: SecondaryMap<Block, Option<State>> = SecondaryMap::new();
        ins[entry] = Some(State::new(self.limits, slots, Content::Unknown));
        let mut queued: SecondaryMap<Block, bool> = SecondaryMap::new();
        let mut work: VecDeque<Block> = VecDeque::from([entry]);
        queued[entry] = true;
        while let Some(b) = work.pop_front() {
            queued[b] = false;
            let st = ins[b].clone().expect("queued blocks have a state");
            for (s, out) in self.run_block(b, st, false)? {
                let changed = match &mut ins[s] {
                    Some(cur) => cur.meet(&out),
                    slot @ None => {
                        *slot = Some(out);
                        true
                    }
                };
                if changed && !queued[s] {
                    queued[s] = true;
                    work.push_back(s);
                }
            }
        }
        for &b in dt.rpo() {
            let st = ins[b]
                .clone()
                .ok_or_else(|| err(b, "reachable block never reached".into()))?;
            self.run_block(b, st, true)?;
        }
        Ok(())
    }
}
