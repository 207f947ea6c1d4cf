//! The SSA IR: entities, types, the opcode table, the data-flow graph, the layout, the
//! function container, a builder, CFG analyses, and the text printer/parser.

pub mod analyses;
pub mod builder;
pub mod cfg;
pub mod dfg;
pub mod dominators;
pub mod dot;

pub mod entities;
pub mod function;
pub mod immediates;
pub mod instructions;
pub mod layout;
pub mod opcodes;
pub mod reader;
pub mod renumber;
pub mod types;
pub mod write;

pub use analyses::Analyses;
pub use builder::{CursorPosition, FuncCursor, InstBuilder};
pub use cfg::ControlFlowGraph;
pub use dfg::{DataFlowGraph, ValueDef};
pub use dominators::{DominatorTree, LoopInfo, PostDominatorTree};
pub use entities::{AnyEntity, Block, Inst, StackSlot, Value};
pub use function::{Function, SourcePos, StackSlotData, UavKind};
pub use immediates::{
    AtomicOp, BarrierFlags, FloatCC, IntCC, MemArg, MemSize, MemSpace, SpecialReg, TexArg, TexKind,
    TexShape,
};
pub use instructions::{BlockCall, InstructionData, ValueList};
pub use layout::Layout;
pub use opcodes::{InstructionFormat, Opcode, TypeSpec};
pub use reader::{parse_function_text, parse_functions, ParseError, SourceMap};
pub use renumber::renumber;
pub use types::{PerRegFile, RegFile, Type, TypeList};
pub use write::write_function;
