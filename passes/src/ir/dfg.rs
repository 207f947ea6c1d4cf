//! The data-flow graph: what each instruction is (its [`InstructionData`]), its result
//! values, block parameters and value types. Where things are lives in the
//! [`Layout`](super::Layout).
//!
//! Guarantees: every value has exactly one definition ([`ValueDef`]) that is kept in sync
//! with the result/parameter lists by the methods here; result types of generic opcodes are
//! derived from the opcode table ([`DataFlowGraph::compute_result_types`]).

use cranelift_entity::packed_option::ReservedValue;
use cranelift_entity::{EntityRef, PrimaryMap, SecondaryMap};
use smallvec::SmallVec;

use super::entities::{grow_mut, Block, Inst, Value};
use super::instructions::InstructionData;
use super::opcodes::{Opcode, TypeSpec};
use super::types::Type;

/// Where a value is defined.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ValueDef {
    /// Result number `n` of an instruction.
    Result(Inst, usize),
    /// Parameter number `n` of a block.
    Param(Block, usize),
    /// Not (or no longer) defined: a removed result or a reader placeholder. Using such a
    /// value is a verifier error.
    Detached,
}

/// Per-value data, packed: a value costs 12 bytes instead of the 24 of a type beside a
/// [`ValueDef`] with a `usize` index (values are the most numerous IR entity after
/// instructions; a million-instruction kernel has over a million of them).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ValueData {
    /// The value's type.
    pub ty: Type,
    /// 0: result, 1: parameter, 2: detached.
    kind: u8,
    /// The defining instruction or block (an entity index).
    entity: u32,
    /// The result or parameter number.
    num: u32,
}

impl ValueData {
    fn new(ty: Type, def: ValueDef) -> ValueData {
        let (kind, entity, num) = match def {
            ValueDef::Result(i, n) => (0, i.index(), n),
            ValueDef::Param(b, n) => (1, b.index(), n),
            ValueDef::Detached => (2, 0, 0),
        };
        ValueData {
            ty,
            kind,
            // Entities are u32 indices; result and parameter numbers are bounded by the
            // instruction and value counts, which are u32 entity indices too.
            entity: entity as u32,
            num: u32::try_from(num).expect("result or parameter number fits in u32"),
        }
    }

    /// The value's definition.
    pub fn def(&self) -> ValueDef {
        match self.kind {
            0 => ValueDef::Result(Inst::new(self.entity as usize), self.num as usize),
            1 => ValueDef::Param(Block::new(self.entity as usize), self.num as usize),
            _ => ValueDef::Detached,
        }
    }

    fn set_def(&mut self, def: ValueDef) {
        *self = ValueData::new(self.ty, def);
    }
}

/// Per-block data held by the DFG.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BlockData {
    /// Block parameters (the SSA phis).
    pub params: SmallVec<[Value; 4]>,
    /// A hint that the block rarely runs (text: `block3 cold:`): code-growing passes leave
    /// it alone. It changes no behaviour.
    pub cold: bool,
}

/// The result list of one instruction in 12 bytes: up to two values inline; a longer list
/// lives in [`ResultLists::long`] and `vals[0]` holds its index. (A `SmallVec` per
/// instruction cost 24 bytes; almost every instruction has at most one result.)
#[derive(Clone, Copy, Debug)]
struct ResultList {
    /// Number of results; [`LONG`] set when they are in `ResultLists::long`.
    len: u32,
    vals: [Value; 2],
}

/// Marks a [`ResultList`] whose values are out of line.
const LONG: u32 = 1 << 31;

impl Default for ResultList {
    fn default() -> Self {
        ResultList {
            len: 0,
            vals: [Value::reserved_value(); 2],
        }
    }
}

/// The result lists of all instructions.
#[derive(Clone, Debug, Default)]
struct ResultLists {
    lists: SecondaryMap<Inst, ResultList>,
    /// Lists of more than two results (loads of three or four words, texture fetches).
    long: Vec<SmallVec<[Value; 4]>>,
}

impl ResultLists {
    fn get(&self, inst: Inst) -> &[Value] {
        let l = &self.lists[inst];
        if l.len & LONG != 0 {
            &self.long[l.vals[0].index()]
        } else {
            &l.vals[..l.len as usize]
        }
    }

    fn len(&self, inst: Inst) -> usize {
        self.get(inst).len()
    }

    fn push(&mut self, inst: Inst, v: Value) {
        let l = grow_mut(&mut self.lists, inst);
        if l.len & LONG != 0 {
            self.long[l.vals[0].index()].push(v);
        } else if (l.len as usize) < l.vals.len() {
            l.vals[l.len as usize] = v;
            l.len += 1;
        } else {
            let mut long: SmallVec<[Value; 4]> = SmallVec::from_slice(&l.vals[..]);
            long.push(v);
            l.vals[0] = Value::new(self.long.len());
            l.len = LONG;
            self.long.push(long);
        }
    }

    /// Empties the list of `inst`, returning its values.
    fn take(&mut self, inst: Inst) -> SmallVec<[Value; 4]> {
        let out = SmallVec::from_slice(self.get(inst));
        self.clear(inst);
        out
    }

    /// Empties the list of `inst` (as [`Self::take`], without copying the values out: a
    /// new instruction's list is cleared once or twice on the way to its results).
    fn clear(&mut self, inst: Inst) {
        let l = grow_mut(&mut self.lists, inst);
        if l.len & LONG != 0 {
            self.long[l.vals[0].index()].clear();
        } else {
            l.len = 0;
        }
    }

    fn remove(&mut self, inst: Inst, idx: usize) -> Value {
        let mut vals = self.take(inst);
        let v = vals.remove(idx);
        for r in vals {
            self.push(inst, r);
        }
        v
    }
}

/// The data-flow graph of a function.
#[derive(Clone, Debug, Default)]
pub struct DataFlowGraph {
    /// Instruction payloads, indexed by [`Inst`].
    pub insts: PrimaryMap<Inst, InstructionData>,
    results: ResultLists,
    blocks: PrimaryMap<Block, BlockData>,
    values: PrimaryMap<Value, ValueData>,
}

impl DataFlowGraph {
    /// An empty DFG.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of instructions ever created.
    pub fn num_insts(&self) -> usize {
        self.insts.len()
    }
    /// Number of blocks ever created.
    pub fn num_blocks(&self) -> usize {
        self.blocks.len()
    }
    /// Number of values ever created.
    pub fn num_values(&self) -> usize {
        self.values.len()
    }
    /// True if `v` was created in this DFG.
    pub fn value_is_valid(&self, v: Value) -> bool {
        self.values.is_valid(v)
    }
    /// True if `b` was created in this DFG.
    pub fn block_is_valid(&self, b: Block) -> bool {
        self.blocks.is_valid(b)
    }
    /// True if `i` was created in this DFG.
    pub fn inst_is_valid(&self, i: Inst) -> bool {
        self.insts.is_valid(i)
    }

    /// Creates an instruction without results; see [`Self::make_inst_results`].
    /// Counts against the compile [`crate::budget`] (size and deadline).
    pub fn make_inst(&mut self, data: InstructionData) -> Inst {
        crate::budget::check_size(self.insts.len() + 1);
        crate::budget::tick();
        let inst = self.insts.push(data);
        self.results.clear(inst);
        inst
    }

    /// Creates the result values of `inst` from its opcode signature.
    pub fn make_inst_results(&mut self, inst: Inst) -> &[Value] {
        let tys = self.compute_result_types(&self.insts[inst]);
        self.results.clear(inst);
        for ty in tys {
            self.append_result(inst, ty);
        }
        self.results.get(inst)
    }

    /// Appends a result of type `ty` to `inst`.
    pub fn append_result(&mut self, inst: Inst, ty: Type) -> Value {
        let n = self.results.len(inst);
        let v = self
            .values
            .push(ValueData::new(ty, ValueDef::Result(inst, n)));
        self.results.push(inst, v);
        v
    }

    /// Removes all results of `inst` (their values become [`ValueDef::Detached`]).
    pub fn clear_results(&mut self, inst: Inst) {
        for v in self.results.take(inst) {
            self.values[v].set_def(ValueDef::Detached);
        }
    }

    /// Creates a detached value (used by the reader to honour value numbers from text).
    pub fn make_detached_value(&mut self, ty: Type) -> Value {
        self.values.push(ValueData::new(ty, ValueDef::Detached))
    }

    /// Makes the detached value `v` the next result of `inst`, with type `ty`.
    pub fn attach_result(&mut self, inst: Inst, v: Value, ty: Type) {
        let n = self.results.len(inst);
        self.values[v] = ValueData::new(ty, ValueDef::Result(inst, n));
        self.results.push(inst, v);
    }

    /// Makes the detached value `v` the next parameter of `block`, with type `ty`.
    pub fn attach_block_param(&mut self, block: Block, v: Value, ty: Type) {
        let n = self.blocks[block].params.len();
        self.values[v] = ValueData::new(ty, ValueDef::Param(block, n));
        self.blocks[block].params.push(v);
    }

    /// Changes the recorded type of `v` (used when result types are re-derived).
    pub fn set_value_type(&mut self, v: Value, ty: Type) {
        self.values[v].ty = ty;
    }

    /// Detaches result `idx` of `inst` (used by DCE to drop unused results of loads).
    /// Later results shift down.
    pub fn remove_result(&mut self, inst: Inst, idx: usize) {
        let v = self.results.remove(inst, idx);
        self.values[v].set_def(ValueDef::Detached);
        for (n, &v) in self.results.get(inst).to_vec().iter().enumerate() {
            self.values[v].set_def(ValueDef::Result(inst, n));
        }
    }

    /// Result types the opcode table gives to `data`. Polymorphic results take the type of
    /// the first polymorphic operand (`b32` if the operand is not yet defined).
    pub fn compute_result_types(&self, data: &InstructionData) -> SmallVec<[Type; 4]> {
        let opcode = data.opcode();
        match data {
            InstructionData::Load { mem, .. } => {
                return (0..mem.size.words()).map(|_| Type::B32).collect();
            }
            InstructionData::Target { results, .. } => return results.iter().collect(),
            _ => {}
        }
        let bound = opcode
            .arg_types()
            .iter()
            .zip(data.args())
            .find(|(s, _)| matches!(s, TypeSpec::Int | TypeSpec::Any))
            .map(|(_, &v)| {
                if self.value_is_valid(v) {
                    self.value_type(v)
                } else {
                    Type::B32
                }
            });
        // Pushed one by one: collecting a mapped iterator goes through SmallVec's generic
        // `extend`, which cost more than the rest of this function (it runs for every new
        // instruction).
        let mut out = SmallVec::new();
        for s in opcode.result_types() {
            out.push(match s {
                TypeSpec::B32 => Type::B32,
                TypeSpec::B64 => Type::B64,
                TypeSpec::Pred => Type::Pred,
                TypeSpec::Int | TypeSpec::Any => bound.unwrap_or(Type::B32),
                TypeSpec::Ctrl => match data {
                    InstructionData::UnaryImm { ty, .. } => *ty,
                    _ => Type::B32,
                },
            });
        }
        out
    }

    /// Replaces the payload of `inst` (e.g. instruction selection rewriting a generic op in
    /// place). If the new payload has as many results as the old one, the result values are
    /// kept (so uses stay valid) and their types re-derived; otherwise the old results are
    /// detached and new ones created. Returns the results.
    pub fn replace_inst(&mut self, inst: Inst, data: InstructionData) -> &[Value] {
        self.insts[inst] = data;
        let tys = self.compute_result_types(&self.insts[inst]);
        if tys.len() == self.results.len(inst) {
            for (k, ty) in tys.into_iter().enumerate() {
                let v = self.results.get(inst)[k];
                self.values[v].ty = ty;
            }
        } else {
            self.clear_results(inst);
            for ty in tys {
                self.append_result(inst, ty);
            }
        }
        self.results.get(inst)
    }

    /// Results of `inst`.
    pub fn inst_results(&self, inst: Inst) -> &[Value] {
        self.results.get(inst)
    }

    /// The first result of `inst`, if any.
    pub fn first_result(&self, inst: Inst) -> Option<Value> {
        self.results.get(inst).first().copied()
    }

    /// The opcode of `inst`.
    pub fn opcode(&self, inst: Inst) -> Opcode {
        self.insts[inst].opcode()
    }

    /// Value operands of `inst` (without block-call arguments).
    pub fn inst_args(&self, inst: Inst) -> &[Value] {
        self.insts[inst].args()
    }

    /// Creates a block with no parameters.
    pub fn make_block(&mut self) -> Block {
        self.blocks.push(BlockData::default())
    }

    /// Appends a parameter of type `ty` to `block`.
    pub fn append_block_param(&mut self, block: Block, ty: Type) -> Value {
        let n = self.blocks[block].params.len();
        let v = self
            .values
            .push(ValueData::new(ty, ValueDef::Param(block, n)));
        self.blocks[block].params.push(v);
        v
    }

    /// Removes parameter `idx` of `block`; callers must also drop the matching argument of
    /// every branch to `block`.
    pub fn remove_block_param(&mut self, block: Block, idx: usize) {
        let v = self.blocks[block].params.remove(idx);
        self.values[v].set_def(ValueDef::Detached);
        // The parameters before `idx` keep their positions.
        let params = &self.blocks[block].params;
        for (n, &p) in params.iter().enumerate().skip(idx) {
            self.values[p].set_def(ValueDef::Param(block, n));
        }
    }

    /// Parameters of `block`.
    pub fn block_params(&self, block: Block) -> &[Value] {
        &self.blocks[block].params
    }

    /// Whether `block` is marked cold (rarely run).
    pub fn is_cold(&self, block: Block) -> bool {
        self.blocks[block].cold
    }

    /// Marks `block` cold or not.
    pub fn set_cold(&mut self, block: Block, cold: bool) {
        self.blocks[block].cold = cold;
    }

    /// Type of `v`.
    pub fn value_type(&self, v: Value) -> Type {
        self.values[v].ty
    }

    /// Definition of `v`.
    pub fn value_def(&self, v: Value) -> ValueDef {
        self.values[v].def()
    }

    /// The instruction defining `v`, if it is a result.
    pub fn value_inst(&self, v: Value) -> Option<Inst> {
        match self.values[v].def() {
            ValueDef::Result(i, _) => Some(i),
            ValueDef::Param(..) | ValueDef::Detached => None,
        }
    }

    /// All values ever created.
    pub fn values(&self) -> impl Iterator<Item = Value> + '_ {
        self.values.keys()
    }

    /// If `v` is defined by `iconst`/`pconst`, its immediate.
    pub fn value_const(&self, v: Value) -> Option<u64> {
        let inst = self.value_inst(v)?;
        match self.insts[inst] {
            InstructionData::UnaryImm { imm, .. } => Some(imm),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::instructions::InstructionData as D;

    #[test]
    fn results_follow_signature() {
        let mut dfg = DataFlowGraph::new();
        let c = dfg.make_inst(D::UnaryImm {
            opcode: Opcode::Iconst,
            ty: Type::B64,
            imm: 1,
        });
        let a = dfg.make_inst_results(c)[0];
        assert_eq!(dfg.value_type(a), Type::B64);
        let add = dfg.make_inst(D::Binary {
            opcode: Opcode::Iadd,
            args: [a, a],
        });
        let r = dfg.make_inst_results(add)[0];
        assert_eq!(dfg.value_type(r), Type::B64);
        assert_eq!(dfg.value_def(r), ValueDef::Result(add, 0));
        let cmp = dfg.make_inst(D::IntCompare {
            opcode: Opcode::Icmp,
            cond: crate::ir::IntCC::Eq,
            args: [a, r],
        });
        let p = dfg.make_inst_results(cmp)[0];
        assert_eq!(dfg.value_type(p), Type::Pred);
        let b = dfg.make_block();
        let x = dfg.append_block_param(b, Type::B32);
        let y = dfg.append_block_param(b, Type::Pred);
        dfg.remove_block_param(b, 0);
        assert_eq!(dfg.block_params(b), &[y]);
        assert_eq!(dfg.value_def(y), ValueDef::Param(b, 0));
        assert_eq!(dfg.value_def(x), ValueDef::Detached);
        assert_eq!(dfg.value_const(a), Some(1));
        // In-place replacement keeps result values when the count matches.
        let kept = dfg.replace_inst(
            add,
            D::Binary {
                opcode: Opcode::Concat,
                args: [r, r],
            },
        )[0];
        assert_eq!(kept, r);
        assert_eq!(dfg.value_type(r), Type::B64);
        let fresh = dfg
            .replace_inst(
                add,
                D::Nullary {
                    opcode: Opcode::Return,
                },
            )
            .len();
        assert_eq!(fresh, 0);
        assert_eq!(dfg.value_def(r), ValueDef::Detached);
    }

    #[test]
    fn long_result_lists() {
        let mut dfg = DataFlowGraph::new();
        let i = dfg.make_inst(D::Nullary {
            opcode: Opcode::Return,
        });
        let j = dfg.make_inst(D::Nullary {
            opcode: Opcode::Return,
        });
        let rs: Vec<Value> = (0..5).map(|_| dfg.append_result(i, Type::B32)).collect();
        let other = dfg.append_result(j, Type::B64);
        assert_eq!(dfg.inst_results(i), &rs[..]);
        assert_eq!(dfg.inst_results(j), &[other]);
        dfg.remove_result(i, 1);
        assert_eq!(dfg.inst_results(i), &[rs[0], rs[2], rs[3], rs[4]]);
        assert_eq!(dfg.value_def(rs[3]), ValueDef::Result(i, 2));
        assert_eq!(dfg.value_def(rs[1]), ValueDef::Detached);
        dfg.remove_result(j, 0);
        assert!(dfg.inst_results(j).is_empty());
        dfg.clear_results(i);
        assert!(dfg.inst_results(i).is_empty());
        assert_eq!(dfg.value_def(rs[0]), ValueDef::Detached);
        let again = dfg.append_result(i, Type::Pred);
        assert_eq!(dfg.inst_results(i), &[again]);
        assert_eq!(dfg.first_result(i), Some(again));
        assert_eq!(core::mem::size_of::<ResultList>(), 12);
    }

    #[test]
    fn values_are_packed() {
        assert!(core::mem::size_of::<ValueData>() <= 12);
        let mut dfg = DataFlowGraph::new();
        let b = dfg.make_block();
        let p = dfg.append_block_param(b, Type::Pred);
        assert_eq!(dfg.value_def(p), ValueDef::Param(b, 0));
        assert_eq!(dfg.value_type(p), Type::Pred);
        let d = dfg.make_detached_value(Type::B64);
        assert_eq!(dfg.value_def(d), ValueDef::Detached);
    }
}
