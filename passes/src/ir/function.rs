//! A [`Function`]: one compute kernel in SSA form, with its resource declarations.
//!
//! Requires nothing; guarantees that `dfg` and `layout` are consistent when only modified
//! through the builder/cursor and the pass helpers here. A function is a whole kernel: the
//! entry block is the first block in the layout and has no parameters; `return` ends a
//! work-item.

use std::collections::BTreeMap;

use cranelift_entity::{EntityRef, PrimaryMap, SecondaryMap};
use smallvec::SmallVec;

use super::dfg::DataFlowGraph;
use super::entities::{Block, Inst, StackSlot, Value};
use super::layout::Layout;

/// Declaration of a private array (AMD IL indexed temp).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct StackSlotData {
    /// Size in bytes.
    pub size: u32,
}

/// Declared kind of a UAV (informational: all UAV accesses in the IR are byte addressed).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum UavKind {
    /// Raw (typeless) buffer.
    Raw,
    /// Structured buffer with the given element stride in bytes.
    Structured(u32),
    /// Typed buffer (element format is the front end's business).
    Typed,
}

/// Where an instruction came from in the source (an IL statement): byte offsets and the
/// 1-based line and column; `line` 0 means unknown. Diagnostics of later stages (instruction
/// selection, register allocation, the compile budget) point at it.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct SourcePos {
    /// Byte offset of the start.
    pub start: u32,
    /// Byte offset of the end.
    pub end: u32,
    /// 1-based line (0: unknown).
    pub line: u32,
    /// 1-based column.
    pub col: u32,
}

/// A kernel function.
#[derive(Clone, Debug, Default)]
pub struct Function {
    /// Kernel name (printed `%name`).
    pub name: String,
    /// Required group size (AMD IL `dcl_num_thread_per_group`), if declared.
    pub group_size: Option<[u32; 3]>,
    /// UAVs used, by id.
    pub uavs: BTreeMap<u8, UavKind>,
    /// Read-only resources (SRVs) used, by id (`Typed` is not used for SRVs).
    pub srvs: BTreeMap<u8, UavKind>,
    /// LDS allocations: id -> size in bytes.
    pub lds: BTreeMap<u8, u32>,
    /// Constant buffers: id -> size in bytes (reads beyond it give 0).
    pub cbs: BTreeMap<u8, u32>,
    /// True if the kernel uses the global buffer `g[]`.
    pub uses_global: bool,
    /// The code assumes a 1-D launch: group ids `.y`/`.z` are 0 and the grid is one group
    /// high and deep (`launch_1d` in the text; a launch breaking it gives wrong results).
    pub launch_1d: bool,
    /// Pixel-shader outputs `o#` the kernel writes (`il_ps` compute), by number.
    pub outputs: std::collections::BTreeSet<u8>,
    /// Private arrays.
    pub stack_slots: PrimaryMap<StackSlot, StackSlotData>,
    /// Data-flow graph.
    pub dfg: DataFlowGraph,
    /// Block and instruction order.
    pub layout: Layout,
    /// Source position of each instruction, where known: lowering records the statement of
    /// every instruction it creates, instruction selection passes it on to the machine
    /// instructions of each selection; other passes leave new instructions unknown. Not part
    /// of the IR text.
    pub srclocs: SecondaryMap<Inst, SourcePos>,
}

impl Function {
    /// An empty function named `name`.
    pub fn new(name: impl Into<String>) -> Self {
        Function {
            name: name.into(),
            ..Default::default()
        }
    }

    /// The source position of `inst`, if known.
    pub fn srcloc(&self, inst: Inst) -> Option<SourcePos> {
        Some(self.srclocs[inst]).filter(|p| p.line != 0)
    }

    /// Gives every instruction created since the DFG held `first` instructions, whose
    /// position is still unknown, the position `pos` (a stage calls it after producing the
    /// instructions of one source statement or one selection).
    pub fn set_srclocs_since(&mut self, first: usize, pos: SourcePos) {
        if pos.line == 0 {
            return;
        }
        for i in first..self.dfg.num_insts() {
            let loc = super::entities::grow_mut(&mut self.srclocs, Inst::new(i));
            if loc.line == 0 {
                *loc = pos;
            }
        }
    }

    /// The entry block.
    pub fn entry_block(&self) -> Option<Block> {
        self.layout.entry_block()
    }

    /// Whether an instruction of the layout writes UAV `id` (a store or an atomic). A UAV
    /// nothing writes is read-only for the dispatch: distinct UAV ids are taken not to alias
    /// (its loads go through the read-only cache, and identical ones give the same value).
    pub fn uav_written(&self) -> [bool; 256] {
        let mut w = [false; 256];
        for b in self.layout.blocks() {
            for inst in self.layout.block_insts(b) {
                let data = &self.dfg.insts[inst];
                if let Some(m) = data.mem_arg() {
                    if let super::immediates::MemSpace::Uav(id) = m.space {
                        w[usize::from(id)] |= data.opcode().writes_memory();
                    }
                }
            }
        }
        w
    }

    /// Creates a block and appends it to the layout.
    pub fn append_new_block(&mut self) -> Block {
        let b = self.dfg.make_block();
        self.layout.append_block(b);
        b
    }

    /// Declares a private array of `size` bytes.
    pub fn create_stack_slot(&mut self, size: u32) -> StackSlot {
        self.stack_slots.push(StackSlotData { size })
    }

    /// The terminator of `block` if its last instruction is one.
    pub fn terminator(&self, block: Block) -> Option<Inst> {
        let last = self.layout.last_inst(block)?;
        self.dfg.insts[last].is_terminator().then_some(last)
    }

    /// True if `block`'s only instruction is `return` (a branch to it ends the thread).
    pub fn only_returns(&self, block: Block) -> bool {
        self.layout.block_insts(block).count() == 1
            && self
                .terminator(block)
                .is_some_and(|t| self.dfg.opcode(t) == super::Opcode::Return)
    }

    /// Successor blocks of `block` (targets of its terminator, duplicates included).
    pub fn successors(&self, block: Block) -> SmallVec<[Block; 2]> {
        match self.terminator(block) {
            Some(t) => {
                // Pushed, not collected (see `DataFlowGraph::compute_result_types`).
                let mut out = SmallVec::new();
                for d in self.dfg.insts[t].branch_destinations() {
                    out.push(d.block);
                }
                out
            }
            None => SmallVec::new(),
        }
    }

    /// Every instruction in layout order.
    pub fn insts_in_layout(&self) -> Vec<Inst> {
        // At most every instruction of the arena: one allocation instead of a doubling
        // series (the flattened iterator gives no size hint).
        let mut out = Vec::with_capacity(self.dfg.num_insts());
        for b in self.layout.blocks() {
            out.extend(self.layout.block_insts(b));
        }
        out
    }

    /// Replaces every use of each value `v` with `map(v)` in all instructions in the
    /// layout (operands and branch arguments). `map` returns its argument for values to keep.
    pub fn rewrite_uses(&mut self, mut map: impl FnMut(Value) -> Value) {
        for b in self.layout.blocks() {
            for inst in self.layout.block_insts(b) {
                self.dfg.insts[inst].map_values(&mut map);
            }
        }
    }

    /// Number of instructions in the layout.
    pub fn inst_count(&self) -> usize {
        self.layout
            .blocks()
            .map(|b| self.layout.block_insts(b).count())
            .sum()
    }
}
