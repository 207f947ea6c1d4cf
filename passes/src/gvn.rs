//! Global value numbering: removes pure instructions that recompute a value already
//! computed by an instruction that dominates them.
//!
//! Requires: verified SSA. Guarantees: afterwards no pure instruction (no side effects, no
//! memory read other than of a constant buffer or SRV, not a terminator, not a `clock` read, not a `Target` instruction) is
//! identical — same opcode, immediates, result types and operands, with the operands of
//! commutative opcodes in canonical order — to one in a dominating position; each removed
//! instruction's results are replaced by the dominating instruction's results. Behaviour is
//! unchanged: a pure instruction's results depend only on its operands, and the kept
//! definition dominates every use of the removed one.
//!
//! Algorithm: a pre-order walk of the dominator tree with a scoped hash table (entries made
//! in a block stop counting when the walk leaves its subtree), so each instruction is looked
//! at once: linear in the function size. Loads from constant buffers and SRVs count as pure
//! (nothing writes them during a dispatch), and so do loads from a UAV that no instruction of
//! the function writes ([`Function::uav_written`]: distinct UAVs do not alias, the rule that
//! sends those loads through the read-only cache); other memory reads are left alone (stores,
//! atomics and barriers in between could change them).

use std::collections::hash_map::Entry;

use crate::FastHashMap as HashMap;

use cranelift_entity::SecondaryMap;
use smallvec::SmallVec;

use crate::ir::entities::sized_map;
use crate::ir::immediates::{MemSpace, SpecialReg};
use crate::ir::{Analyses, Block, Function, Inst, InstructionData, Opcode, Type, Value};

/// The identity of a pure computation.
type Key = (InstructionData, SmallVec<[Type; 2]>);

/// Runs GVN on `func`, with analyses of its own.
pub fn run(func: &mut Function) {
    run_with(func, &mut Analyses::new());
}

/// Runs the pass with the pipeline's cached analyses (the pass changes no control flow).
pub fn run_with(func: &mut Function, analyses: &mut Analyses) {
    let (_, domtree) = analyses.domtree(func);
    let Some(entry) = func.entry_block() else {
        return;
    };
    let written = func.uav_written();
    let mut subst: SecondaryMap<Value, Option<Value>> = sized_map(func.dfg.num_values());
    // Each key maps to the first instruction computing it and that instruction's block. An
    // entry counts only while its block is `open` (entered and not yet left: exactly the
    // dominators of the block being walked); a stale entry is overwritten by the next
    // instruction with its key. That is the scoped table of the module doc without removing
    // a block's entries when the walk leaves it (one hash per instruction instead of three,
    // and no copy of each key for the removal).
    // Sized for the function (up to a bound: a large kernel's table still grows), so a
    // typical kernel's table is not rehashed a dozen times on the way.
    let mut table: HashMap<Key, (Inst, Block)> =
        HashMap::with_capacity_and_hasher(func.dfg.num_insts().min(4096), Default::default());
    let mut open: SecondaryMap<Block, bool> = sized_map(func.dfg.num_blocks());
    let mut removed: Vec<Inst> = Vec::new();
    // Explicit stack: (block, entering?).
    let mut stack: Vec<(Block, bool)> = vec![(entry, true)];
    let mut insts: Vec<Inst> = Vec::new();
    while let Some((block, entering)) = stack.pop() {
        open[block] = entering;
        if !entering {
            continue;
        }
        insts.clear();
        insts.extend(func.layout.block_insts(block));
        for &inst in &insts {
            crate::budget::tick();
            func.dfg.insts[inst].map_values(|v| resolve(&subst, v));
            let data = &func.dfg.insts[inst];
            if !is_pure(data) && !reads_read_only(data, &written) {
                continue;
            }
            let mut data = data.clone();
            canonicalize(&mut data);
            let mut types: SmallVec<[Type; 2]> = SmallVec::new();
            for &r in func.dfg.inst_results(inst) {
                types.push(func.dfg.value_type(r));
            }
            match table.entry((data, types)) {
                Entry::Occupied(e) if open[e.get().1] => {
                    let prev = e.get().0;
                    let prev_results: SmallVec<[Value; 4]> =
                        SmallVec::from_slice(func.dfg.inst_results(prev));
                    for (i, &r) in func.dfg.inst_results(inst).iter().enumerate() {
                        subst[r] = Some(prev_results[i]);
                    }
                    removed.push(inst);
                }
                Entry::Occupied(mut e) => {
                    e.insert((inst, block));
                }
                Entry::Vacant(e) => {
                    e.insert((inst, block));
                }
            }
        }
        stack.push((block, false));
        for &child in domtree.children(block).iter().rev() {
            stack.push((child, true));
        }
    }
    if removed.is_empty() {
        return;
    }
    for inst in removed {
        func.layout.remove_inst(inst);
    }
    // Uses in blocks the walk did not reach (unreachable code) and in branch arguments of
    // blocks visited before a substitution was made are rewritten here.
    func.rewrite_uses(|v| resolve(&subst, v));
}

fn resolve(subst: &SecondaryMap<Value, Option<Value>>, mut v: Value) -> Value {
    while let Some(n) = subst[v] {
        v = n;
    }
    v
}

/// True for instructions whose results depend only on their operands and immediates, and
/// that may run where the program would not (no fault, no effect): loads from constant
/// buffers count (nothing writes them during a dispatch, and a read outside the buffer gives
/// 0 in every mode).
pub(crate) fn is_pure(data: &InstructionData) -> bool {
    let op = data.opcode();
    if op == Opcode::Load && matches!(data.mem_arg(), Some(m) if matches!(m.space, MemSpace::Cb(_)))
    {
        return true;
    }
    if data.has_side_effects()
        || op.reads_memory()
        || op.writes_memory()
        || op.is_terminator()
        || op == Opcode::Target
    {
        return false;
    }
    !matches!(
        data,
        InstructionData::Special {
            reg: SpecialReg::Clock,
            ..
        }
    )
}

/// Loads from read-only resources (SRVs, and UAVs nothing in the function writes): no
/// instruction writes them during a dispatch, so a dominating identical load has the same
/// result. Not [`is_pure`]: with accesses promised in bounds, running one where the program
/// would not could fault.
fn reads_read_only(data: &InstructionData, uav_written: &[bool; 256]) -> bool {
    data.opcode() == Opcode::Load
        && matches!(data.mem_arg(), Some(m) if match m.space {
            MemSpace::Srv(_) => true,
            MemSpace::Uav(id) => !uav_written[usize::from(id)],
            _ => false,
        })
}

/// Puts the operands of commutative binary opcodes in a canonical order.
fn canonicalize(data: &mut InstructionData) {
    if let InstructionData::Binary { opcode, args } = data {
        if opcode.is_commutative() && args[1] < args[0] {
            args.swap(0, 1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::parse_function_text;

    #[test]
    fn merges_dominated_duplicates_and_commuted_operands() {
        let mut f = parse_function_text(
            "kernel %k {
    group_size 1, 1, 1
    uav0 = raw

block0:
    v0 = special tid.x
    v1 = iconst.b32 0x4
    v2 = iconst.b32 0x4
    v3 = iadd v0, v1
    v4 = iadd v2, v0
    v5 = icmp ult v0, v1
    brif v5, block1, block2

block1:
    v6 = iadd v0, v1
    store.b32 uav0[v6], v4
    jump block2

block2:
    v7 = iadd v0, v2
    store.b32 uav0[v7], v3
    return
}",
        )
        .expect("parses");
        run(&mut f);
        crate::verifier::verify_function(&f).expect("verifies");
        let text = f.to_string();
        assert_eq!(text.matches("iconst").count(), 1, "{text}");
        assert_eq!(text.matches("= iadd").count(), 1, "{text}");
    }

    #[test]
    fn sibling_blocks_do_not_share_values() {
        let mut f = parse_function_text(
            "kernel %k {
    group_size 1, 1, 1
    uav0 = raw

block0:
    v0 = special tid.x
    v1 = icmp eq v0, v0
    brif v1, block1, block2

block1:
    v2 = imul v0, v0
    store.b32 uav0[v0], v2
    return

block2:
    v3 = imul v0, v0
    store.b32 uav0[v0], v3
    return
}",
        )
        .expect("parses");
        run(&mut f);
        crate::verifier::verify_function(&f).expect("verifies");
        assert_eq!(f.to_string().matches("= imul").count(), 2);
    }

    #[test]
    fn clock_reads_are_not_merged() {
        let mut f = parse_function_text(
            "kernel %k {
    group_size 1, 1, 1
    uav0 = raw

block0:
    v0 = special clock
    v1 = special clock
    v2 = iconst.b32 0x0
    store.b32 uav0[v2], v0
    store.b32 uav0[v2+4], v1
    return
}",
        )
        .expect("parses");
        run(&mut f);
        assert_eq!(f.to_string().matches("special clock").count(), 2);
    }
}
