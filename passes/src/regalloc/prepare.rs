//! Preparation for register allocation: remove unreachable blocks, split edges, define the
//! constants passed as `jump` arguments next to their jumps, and copy operand groups into
//! fresh consecutive units.
//!
//! Guarantees afterwards: every block is reachable; every destination of a `brif` or
//! `br_table` has exactly one incoming edge and no parameters (so code for an edge can go at
//! the start of the destination, and every block with parameters or several predecessors is
//! entered by `jump`s only, whose block has that single successor); every operand group
//! of the target's [`InstConstraints`](crate::target::InstConstraints) reads values defined
//! by moves placed right before the instruction, listed as one [`Bundle`]; a rematerializable
//! constant passed by a `jump` is defined in that jump's block.

use cranelift_entity::SecondaryMap;

use super::{insert_inst, Allocation, EditKind, InsertAt, RegAllocError};
use crate::ir::{
    Analyses, Block, BlockCall, Function, Inst, InstructionData, Opcode, RegFile, Value,
};
use crate::target::TargetIsa;

/// Values that must be allocated together as one consecutive, aligned register run:
/// copies of an operand group, defined by consecutive moves starting at `head`.
#[derive(Clone, Debug)]
pub struct Bundle {
    /// The first move; allocation of the whole bundle happens there.
    pub head: Inst,
    /// Members in register order.
    pub members: Vec<Value>,
    /// Alignment of the first register.
    pub align: u8,
}

/// All bundles and lookups into them.
#[derive(Clone, Debug, Default)]
pub struct Bundles {
    /// The bundles.
    pub list: Vec<Bundle>,
    /// For each move of a bundle, the bundle's index.
    pub of_move: SecondaryMap<Inst, Option<u32>>,
}

/// Runs the preparation steps; returns the operand-group bundles.
pub fn run(
    func: &mut Function,
    target: &dyn TargetIsa,
    alloc: &mut Allocation,
    analyses: &mut Analyses,
) -> Result<Bundles, RegAllocError> {
    let removed = remove_unreachable(func, analyses)?;
    // Before the edges are split: only the input's own `jump`s (see the function).
    remat_constant_args(func, target, alloc);
    let split = split_edges(func, alloc);
    if removed || split {
        analyses.invalidate();
    }
    make_bundles(func, target, alloc)
}

/// Gives each constant passed as a `jump` argument from another block its own definition
/// right before that `jump`: the definition itself when that is its only use, else a
/// rematerialization (and the original goes once no use is left). A constant defined once
/// (hoisted to the entry, say) and passed to several merges or loop headers otherwise holds a
/// register from its definition to its last `jump`, across whole loops, only to be copied
/// into the parameter's register there: the copy becomes the constant's definition
/// (`MOV32I Rp, c` instead of `MOV Rp, Rc`), and the register is free in between
/// (parboil_tpacf kept 0 and 20 in registers through its loops: 19 registers, now 17).
/// Only `jump`s of the input: the arguments of a conditional branch's edge (into a loop
/// header from its latch, say) stay copies, as rematerializing those measured worse (more
/// registers freed where loads were in flight: rodinia_kmeans +6.6% modeled cycles).
fn remat_constant_args(func: &mut Function, target: &dyn TargetIsa, alloc: &mut Allocation) {
    let mut uses: SecondaryMap<Value, u32> = SecondaryMap::new();
    let mut jumps = Vec::new();
    for b in func.layout.blocks() {
        for inst in func.layout.block_insts(b) {
            for v in func.dfg.insts[inst].all_values() {
                uses[v] += 1;
            }
        }
        if let Some(t) = func.terminator(b) {
            if func.dfg.opcode(t) == Opcode::Jump {
                jumps.push((b, t));
            }
        }
    }
    let mut emptied = Vec::new();
    for (b, term) in jumps {
        let args = func.dfg.insts[term].branch_destinations()[0].args.clone();
        let mut new_args = args.clone();
        for (k, &a) in args.iter().enumerate() {
            let Some(def) = func.dfg.value_inst(a) else {
                continue;
            };
            let remat = func.layout.inst_block(def).is_some_and(|d| d != b)
                && super::rematerializable(func, target, def);
            if !remat {
                continue;
            }
            if uses[a] == 1 {
                func.layout.remove_inst(def);
                func.layout.insert_inst(def, term);
                continue;
            }
            let data = func.dfg.insts[def].clone();
            let inst = insert_inst(
                func,
                data,
                InsertAt::Before(term),
                EditKind::Remat(a),
                alloc,
            );
            new_args[k] = func.dfg.inst_results(inst)[0];
            uses[a] -= 1;
            if uses[a] == 0 {
                emptied.push(def);
            }
        }
        if new_args != args {
            func.dfg.insts[term].branch_destinations_mut()[0].args = new_args;
        }
    }
    for def in emptied {
        func.layout.remove_inst(def);
    }
}

/// Removes the blocks unreachable from the entry; true if there were any.
fn remove_unreachable(func: &mut Function, analyses: &mut Analyses) -> Result<bool, RegAllocError> {
    if func.entry_block().is_none() {
        return Err(RegAllocError::NoEntry);
    }
    let (_, dt) = analyses.domtree(func);
    let dead: Vec<Block> = func
        .layout
        .blocks()
        .filter(|&b| !dt.is_reachable(b))
        .collect();
    let removed = !dead.is_empty();
    for b in dead {
        func.layout.remove_block(b);
    }
    Ok(removed)
}

/// Splits the critical edges and those passing arguments into a block with several
/// predecessors; true if it split any.
fn split_edges(func: &mut Function, alloc: &mut Allocation) -> bool {
    let mut split = false;
    // Incoming edge counts (a branch naming a block twice counts twice).
    let mut incoming: SecondaryMap<Block, u32> = SecondaryMap::new();
    let blocks: Vec<Block> = func.layout.blocks().collect();
    for &b in &blocks {
        if let Some(t) = func.terminator(b) {
            for d in func.dfg.insts[t].branch_destinations() {
                incoming[d.block] += 1;
            }
        }
    }
    for &b in &blocks {
        let Some(t) = func.terminator(b) else {
            continue;
        };
        if !matches!(func.dfg.opcode(t), Opcode::Brif | Opcode::BrTable) {
            continue;
        }
        let n = func.dfg.insts[t].branch_destinations().len();
        let mut after = b;
        for d in 0..n {
            let call = func.dfg.insts[t].branch_destinations()[d].clone();
            if call.args.is_empty() && incoming[call.block] <= 1 {
                continue;
            }
            let nb = func.dfg.make_block();
            func.layout.insert_block_after(nb, after);
            after = nb;
            let j = func.dfg.make_inst(InstructionData::Jump {
                opcode: Opcode::Jump,
                dests: [call],
            });
            func.layout.append_inst(j, nb);
            alloc.edits[j] = EditKind::EdgeJump;
            alloc.split_edges[nb] = Some((b, d as u16));
            func.dfg.insts[t].branch_destinations_mut()[d] = BlockCall::new(nb, &[]);
            split = true;
        }
    }
    split
}

fn make_bundles(
    func: &mut Function,
    target: &dyn TargetIsa,
    alloc: &mut Allocation,
) -> Result<Bundles, RegAllocError> {
    let mut bundles = Bundles::default();
    // Groups already formed in the current block, by their original members and alignment:
    // a later instruction using the same values as a group (two loads through one 64-bit
    // address) reads the same copies instead of making new ones.
    // Inline keys and values: a group has a few members.
    type Members = smallvec::SmallVec<[Value; 4]>;
    let mut formed: crate::FastHashMap<(Members, u8), Members> = Default::default();
    let mut cur_block = None;
    let insts = func.insts_in_layout();
    for inst in insts {
        let block = func.layout.inst_block(inst);
        if block != cur_block {
            formed.clear();
            cur_block = block;
        }
        let c = target.constraints(func, inst);
        let nargs = func.dfg.inst_args(inst).len();
        for g in &c.arg_groups {
            let (start, len) = (usize::from(g.start), usize::from(g.len));
            if len == 0 || start + len > nargs || !g.align.is_power_of_two() {
                return Err(RegAllocError::BadConstraint {
                    inst,
                    reason: format!("operand group {start}..{} of {nargs}", start + len),
                });
            }
            let original: Members = func.dfg.inst_args(inst)[start..start + len].into();
            if let Some(copies) = formed.get(&(original.clone(), g.align)) {
                for (k, &c) in (start..start + len).zip(copies) {
                    func.dfg.insts[inst].args_mut()[k] = c;
                }
                continue;
            }
            let mut members = Vec::with_capacity(len);
            let mut head = None;
            for k in start..start + len {
                let v = func.dfg.inst_args(inst)[k];
                let ty = func.dfg.value_type(v);
                if ty.reg_file() != RegFile::Gpr || target.footprint(ty).file != RegFile::Gpr {
                    return Err(RegAllocError::BadConstraint {
                        inst,
                        reason: format!("operand group member {v} is not in the GPR file"),
                    });
                }
                let data = target.make_move(ty, v);
                let mv = insert_inst(func, data, InsertAt::Before(inst), EditKind::Move, alloc);
                super::check_made(func, mv, &[v], Some(ty), "move")?;
                let c = func.dfg.inst_results(mv)[0];
                func.dfg.insts[inst].args_mut()[k] = c;
                members.push(c);
                head.get_or_insert(mv);
                bundles.of_move[mv] = Some(bundles.list.len() as u32);
            }
            formed.insert((original, g.align), members.iter().copied().collect());
            bundles.list.push(Bundle {
                // A group has at least one member, checked above.
                head: head.expect("non-empty group"),
                members,
                align: g.align,
            });
        }
    }
    Ok(bundles)
}
