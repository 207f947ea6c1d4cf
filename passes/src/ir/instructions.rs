//! Instruction data: one enum variant per [`InstructionFormat`], holding the opcode, the
//! value operands and the immediates.
//!
//! Guarantees: `InstructionData::format()` equals `opcode.format()` for data built through
//! the constructors here or the builder; [`InstructionData::args`] lists every value operand
//! except block-call arguments, which [`InstructionData::branch_destinations`] exposes.
//! Result values are not stored here but in the DFG.

use smallvec::SmallVec;

use super::entities::{Block, Value};
use super::immediates::{AtomicOp, BarrierFlags, FloatCC, IntCC, MemArg, SpecialReg, TexArg};
use super::opcodes::{InstructionFormat, Opcode};
use super::types::{Type, TypeList};

/// Operand list of variable-arity instructions.
pub type ValueList = SmallVec<[Value; 4]>;

/// A branch target with its block arguments.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct BlockCall {
    /// Destination block.
    pub block: Block,
    /// Values passed to the block parameters.
    pub args: ValueList,
}

impl BlockCall {
    /// A call with the given arguments.
    pub fn new(block: Block, args: &[Value]) -> Self {
        BlockCall {
            block,
            args: args.into(),
        }
    }
}

/// The payload of an instruction.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)] // fields are documented on the format
pub enum InstructionData {
    /// No operands.
    Nullary { opcode: Opcode },
    /// Immediate with controlling type (`iconst.b32 5`, `pconst 1`).
    UnaryImm { opcode: Opcode, ty: Type, imm: u64 },
    /// One operand.
    Unary { opcode: Opcode, args: [Value; 1] },
    /// Two operands.
    Binary { opcode: Opcode, args: [Value; 2] },
    /// Three operands.
    Ternary { opcode: Opcode, args: [Value; 3] },
    /// Four operands.
    Quaternary { opcode: Opcode, args: [Value; 4] },
    /// Integer compare.
    IntCompare {
        opcode: Opcode,
        cond: IntCC,
        args: [Value; 2],
    },
    /// Float compare.
    FloatCompare {
        opcode: Opcode,
        cond: FloatCC,
        args: [Value; 2],
    },
    /// Special register read.
    Special { opcode: Opcode, reg: SpecialReg },
    /// Load: `args` is `[]` (constant address `mem.offset`) or `[addr]`.
    Load {
        opcode: Opcode,
        mem: MemArg,
        args: ValueList,
    },
    /// Store: `args` is `[addr?, data...]` with `mem.size.words()` data values.
    Store {
        opcode: Opcode,
        mem: MemArg,
        args: ValueList,
    },
    /// Atomic: `args` is `[addr?, data...]` with `op.data_operands()` data values.
    Atomic {
        opcode: Opcode,
        op: AtomicOp,
        mem: MemArg,
        args: ValueList,
    },
    /// Texture instruction: `args` as [`TexArg::arity`] says.
    Texture {
        opcode: Opcode,
        tex: TexArg,
        args: ValueList,
    },
    /// Barrier.
    Barrier { opcode: Opcode, flags: BarrierFlags },
    /// Jump: one destination.
    Jump {
        opcode: Opcode,
        dests: [BlockCall; 1],
    },
    /// Brif: `dests = [then, else]`.
    Brif {
        opcode: Opcode,
        arg: [Value; 1],
        dests: Box<[BlockCall; 2]>,
    },
    /// Branch table: `dests[0]` is the default, `dests[1..]` the table.
    BrTable {
        opcode: Opcode,
        arg: [Value; 1],
        dests: Vec<BlockCall>,
    },
    /// Target instruction: backend code, immediate, operands, result types.
    Target {
        opcode: Opcode,
        code: u16,
        imm: u64,
        side_effects: bool,
        args: ValueList,
        results: TypeList,
    },
}

impl InstructionData {
    /// The opcode.
    pub fn opcode(&self) -> Opcode {
        use InstructionData::*;
        match self {
            Nullary { opcode }
            | UnaryImm { opcode, .. }
            | Unary { opcode, .. }
            | Binary { opcode, .. }
            | Ternary { opcode, .. }
            | Quaternary { opcode, .. }
            | IntCompare { opcode, .. }
            | FloatCompare { opcode, .. }
            | Special { opcode, .. }
            | Load { opcode, .. }
            | Store { opcode, .. }
            | Atomic { opcode, .. }
            | Barrier { opcode, .. }
            | Jump { opcode, .. }
            | Brif { opcode, .. }
            | BrTable { opcode, .. }
            | Target { opcode, .. }
            | Texture { opcode, .. } => *opcode,
        }
    }

    /// The format of this data.
    pub fn format(&self) -> InstructionFormat {
        use InstructionData::*;
        match self {
            Nullary { .. } => InstructionFormat::Nullary,
            UnaryImm { .. } => InstructionFormat::UnaryImm,
            Unary { .. } => InstructionFormat::Unary,
            Binary { .. } => InstructionFormat::Binary,
            Ternary { .. } => InstructionFormat::Ternary,
            Quaternary { .. } => InstructionFormat::Quaternary,
            IntCompare { .. } => InstructionFormat::IntCompare,
            FloatCompare { .. } => InstructionFormat::FloatCompare,
            Special { .. } => InstructionFormat::Special,
            Load { .. } => InstructionFormat::Load,
            Store { .. } => InstructionFormat::Store,
            Atomic { .. } => InstructionFormat::Atomic,
            Barrier { .. } => InstructionFormat::Barrier,
            Jump { .. } => InstructionFormat::Jump,
            Brif { .. } => InstructionFormat::Brif,
            BrTable { .. } => InstructionFormat::BrTable,
            Target { .. } => InstructionFormat::Target,
            Texture { .. } => InstructionFormat::Texture,
        }
    }

    /// Value operands, excluding block-call arguments.
    pub fn args(&self) -> &[Value] {
        use InstructionData::*;
        match self {
            Nullary { .. } | UnaryImm { .. } | Special { .. } | Barrier { .. } | Jump { .. } => &[],
            Unary { args, .. } => args,
            Binary { args, .. } | IntCompare { args, .. } | FloatCompare { args, .. } => args,
            Ternary { args, .. } => args,
            Quaternary { args, .. } => args,
            Load { args, .. }
            | Store { args, .. }
            | Atomic { args, .. }
            | Target { args, .. }
            | Texture { args, .. } => args,
            Brif { arg, .. } | BrTable { arg, .. } => arg,
        }
    }

    /// Mutable value operands, excluding block-call arguments.
    pub fn args_mut(&mut self) -> &mut [Value] {
        use InstructionData::*;
        match self {
            Nullary { .. } | UnaryImm { .. } | Special { .. } | Barrier { .. } | Jump { .. } => {
                &mut []
            }
            Unary { args, .. } => args,
            Binary { args, .. } | IntCompare { args, .. } | FloatCompare { args, .. } => args,
            Ternary { args, .. } => args,
            Quaternary { args, .. } => args,
            Load { args, .. }
            | Store { args, .. }
            | Atomic { args, .. }
            | Target { args, .. }
            | Texture { args, .. } => args,
            Brif { arg, .. } | BrTable { arg, .. } => arg,
        }
    }

    /// Branch destinations (empty for non-branches).
    pub fn branch_destinations(&self) -> &[BlockCall] {
        match self {
            InstructionData::Jump { dests, .. } => dests,
            InstructionData::Brif { dests, .. } => &dests[..],
            InstructionData::BrTable { dests, .. } => dests,
            _ => &[],
        }
    }

    /// Mutable branch destinations.
    pub fn branch_destinations_mut(&mut self) -> &mut [BlockCall] {
        match self {
            InstructionData::Jump { dests, .. } => dests,
            InstructionData::Brif { dests, .. } => &mut dests[..],
            InstructionData::BrTable { dests, .. } => dests,
            _ => &mut [],
        }
    }

    /// Every value used: operands then block-call arguments.
    pub fn all_values(&self) -> impl Iterator<Item = Value> + '_ {
        self.args().iter().copied().chain(
            self.branch_destinations()
                .iter()
                .flat_map(|d| d.args.iter().copied()),
        )
    }

    /// Applies `f` to every used value (operands and block-call arguments).
    pub fn map_values(&mut self, mut f: impl FnMut(Value) -> Value) {
        for a in self.args_mut() {
            *a = f(*a);
        }
        for d in self.branch_destinations_mut() {
            for a in d.args.iter_mut() {
                *a = f(*a);
            }
        }
    }

    /// The memory operand of loads, stores and atomics.
    pub fn mem_arg(&self) -> Option<&MemArg> {
        match self {
            InstructionData::Load { mem, .. }
            | InstructionData::Store { mem, .. }
            | InstructionData::Atomic { mem, .. } => Some(mem),
            _ => None,
        }
    }

    /// The memory operand of loads, stores and atomics, mutable.
    pub fn mem_arg_mut(&mut self) -> Option<&mut MemArg> {
        match self {
            InstructionData::Load { mem, .. }
            | InstructionData::Store { mem, .. }
            | InstructionData::Atomic { mem, .. } => Some(mem),
            _ => None,
        }
    }

    /// The dynamic address operand of a memory instruction, if it has one.
    pub fn mem_addr(&self) -> Option<Value> {
        let (args, data) = match self {
            InstructionData::Load { args, .. } => (args, 0),
            InstructionData::Store { mem, args, .. } => (args, mem.size.words()),
            InstructionData::Atomic { op, args, .. } => (args, op.data_operands()),
            _ => return None,
        };
        if args.len() > data {
            args.first().copied()
        } else {
            None
        }
    }

    /// The data operands of a store or atomic (after the address).
    pub fn mem_data(&self) -> &[Value] {
        let args = self.args();
        match self {
            InstructionData::Store { .. } | InstructionData::Atomic { .. } => {
                let skip = usize::from(self.mem_addr().is_some());
                &args[skip..]
            }
            _ => &[],
        }
    }

    /// True if the instruction must be kept even when its results are unused, and must not
    /// be reordered with other memory/side-effecting instructions.
    pub fn has_side_effects(&self) -> bool {
        match self {
            InstructionData::Target { side_effects, .. } => *side_effects,
            _ => self.opcode().has_side_effects(),
        }
    }

    /// True if the instruction is a block terminator.
    pub fn is_terminator(&self) -> bool {
        self.opcode().is_terminator()
    }
}

#[cfg(test)]
mod tests {
    use cranelift_entity::EntityRef;

    use super::*;
    use crate::ir::immediates::{MemSize, MemSpace};

    #[test]
    fn store_operand_split() {
        let v = |i| Value::new(i);
        let mem = MemArg {
            space: MemSpace::Uav(0),
            offset: 0,
            size: MemSize::Words(2),
            align: 4,
            inbounds: false,
        };
        let with = InstructionData::Store {
            opcode: Opcode::Store,
            mem,
            args: [v(0), v(1), v(2)].into_iter().collect(),
        };
        assert_eq!(with.mem_addr(), Some(v(0)));
        assert_eq!(with.mem_data(), &[v(1), v(2)]);
        let without = InstructionData::Store {
            opcode: Opcode::Store,
            mem,
            args: [v(1), v(2)].into_iter().collect(),
        };
        assert_eq!(without.mem_addr(), None);
        assert_eq!(without.mem_data(), &[v(1), v(2)]);
    }

    #[test]
    fn map_values_reaches_block_args() {
        let v = |i| Value::new(i);
        let mut d = InstructionData::Brif {
            opcode: Opcode::Brif,
            arg: [v(0)],
            dests: Box::new([
                BlockCall::new(Block::new(1), &[v(1)]),
                BlockCall::new(Block::new(2), &[]),
            ]),
        };
        d.map_values(|x| Value::new(x.index() + 10));
        assert_eq!(d.all_values().collect::<Vec<_>>(), vec![v(10), v(11)]);
    }

    #[test]
    fn instructions_stay_small() {
        // Every IR instruction pays for the largest variant: keep rare wide payloads (a
        // conditional branch's two calls, target result types) out of line or packed.
        assert!(core::mem::size_of::<InstructionData>() <= 48);
    }
}
