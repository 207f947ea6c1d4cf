//! Dead code elimination (mark and sweep over values, not instructions).
//!
//! Requires: verified SSA. Guarantees: afterwards
//! - every instruction without side effects has at least one live result;
//! - every non-entry block parameter is live (dead ones are removed together with the
//!   matching argument of every branch to the block: dead "phi components");
//! - multi-word loads whose leading or trailing words are dead are narrowed (trailing
//!   words drop, leading words move the offset; a dead middle word stays);
//! - an `atomic` whose result is dead becomes `atomic_noret`.
//!
//! A value is live if a side-effecting instruction or terminator uses it as an operand,
//! if a live instruction uses it, or if it is passed to a live block parameter.
//! Side effects (stores, atomics, barriers, `return`, `unreachable`, flagged target
//! instructions) are always kept. The function's behaviour is unchanged.

use cranelift_entity::SecondaryMap;
use smallvec::SmallVec;

use crate::ir::dfg::ValueDef;
use crate::ir::{Block, Function, Inst, InstructionData, MemSize, Opcode, Value};

/// Runs DCE on `func`.
pub fn run(func: &mut Function) {
    // Sweeping keeps every terminator, so the branch edges found once serve both steps.
    let into = branches_to(func);
    let live = compute_liveness(func, &into);
    sweep_insts(func, &live);
    remove_dead_params(func, &live, &into);
}

/// Branches into each block: (branch instruction, destination index).
fn branches_to(func: &Function) -> SecondaryMap<Block, SmallVec<[(Inst, usize); 2]>> {
    let mut m: SecondaryMap<Block, SmallVec<[(Inst, usize); 2]>> = SecondaryMap::new();
    m.resize(func.dfg.num_blocks());
    for b in func.layout.blocks() {
        if let Some(t) = func.terminator(b) {
            for (k, d) in func.dfg.insts[t].branch_destinations().iter().enumerate() {
                m[d.block].push((t, k));
            }
        }
    }
    m
}

fn compute_liveness(
    func: &Function,
    into: &SecondaryMap<Block, SmallVec<[(Inst, usize); 2]>>,
) -> SecondaryMap<Value, bool> {
    let mut live: SecondaryMap<Value, bool> = SecondaryMap::new();
    live.resize(func.dfg.num_values());
    let mut work: Vec<Value> = Vec::new();
    let mark = |v: Value, live: &mut SecondaryMap<Value, bool>, work: &mut Vec<Value>| {
        if !live[v] {
            live[v] = true;
            work.push(v);
        }
    };
    for b in func.layout.blocks() {
        for i in func.layout.block_insts(b) {
            let data = &func.dfg.insts[i];
            if data.has_side_effects() || data.is_terminator() {
                for &a in data.args() {
                    mark(a, &mut live, &mut work);
                }
            }
        }
    }
    while let Some(v) = work.pop() {
        match func.dfg.value_def(v) {
            ValueDef::Result(i, _) => {
                // Only non-branch instructions define values, so `args` covers all uses.
                for &a in func.dfg.insts[i].args() {
                    mark(a, &mut live, &mut work);
                }
            }
            ValueDef::Param(b, n) => {
                for &(t, k) in &into[b] {
                    if let Some(&a) = func.dfg.insts[t].branch_destinations()[k].args.get(n) {
                        mark(a, &mut live, &mut work);
                    }
                }
            }
            ValueDef::Detached => {}
        }
    }
    live
}

fn sweep_insts(func: &mut Function, live: &SecondaryMap<Value, bool>) {
    for inst in func.insts_in_layout() {
        let data = &func.dfg.insts[inst];
        let results: SmallVec<[Value; 4]> = func.dfg.inst_results(inst).into();
        let any_live = results.iter().any(|&r| live[r]);
        if !data.has_side_effects() && !data.is_terminator() && !any_live {
            func.layout.remove_inst(inst);
            func.dfg.clear_results(inst);
            continue;
        }
        if data.opcode() == Opcode::Atomic && !any_live {
            if let InstructionData::Atomic { opcode, .. } = &mut func.dfg.insts[inst] {
                *opcode = Opcode::AtomicNoret;
            }
            func.dfg.clear_results(inst);
            continue;
        }
        if let InstructionData::Load { mem, .. } = &func.dfg.insts[inst] {
            let MemSize::Words(n) = mem.size else {
                continue;
            };
            let first = results.iter().position(|&r| live[r]);
            let last = results.iter().rposition(|&r| live[r]);
            let (Some(first), Some(last)) = (first, last) else {
                continue;
            };
            if first == 0 && last + 1 == n as usize {
                continue;
            }
            let mut mem = *mem;
            let new_words = (last - first + 1) as u8;
            mem.offset = mem.offset.wrapping_add(4 * first as i32);
            if first > 0 {
                mem.align = mem.align.min(4);
            }
            mem.size = MemSize::Words(new_words);
            if let InstructionData::Load { mem: m, .. } = &mut func.dfg.insts[inst] {
                *m = mem;
            }
            for idx in (last + 1..n as usize).rev() {
                func.dfg.remove_result(inst, idx);
            }
            for _ in 0..first {
                func.dfg.remove_result(inst, 0);
            }
        }
    }
}

fn remove_dead_params(
    func: &mut Function,
    live: &SecondaryMap<Value, bool>,
    into: &SecondaryMap<Block, SmallVec<[(Inst, usize); 2]>>,
) {
    let entry = func.entry_block();
    let blocks: Vec<Block> = func.layout.blocks().collect();
    for b in blocks {
        if Some(b) == entry {
            continue;
        }
        let params = func.dfg.block_params(b).to_vec();
        for idx in (0..params.len()).rev() {
            if live[params[idx]] {
                continue;
            }
            func.dfg.remove_block_param(b, idx);
            for &(t, k) in &into[b] {
                let d = &mut func.dfg.insts[t].branch_destinations_mut()[k];
                if idx < d.args.len() {
                    d.args.remove(idx);
                }
            }
        }
    }
}
