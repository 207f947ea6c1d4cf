//! SSA liveness by path exploration: for every use of a value outside its defining block,
//! walk the CFG backwards from the use until the definition, marking the value live-in and
//! live-out on the way (Brandner et al., "Computing Liveness Sets for SSA-Form Programs").
//!
//! Requires: strict SSA (every use dominated by its definition) and a computed CFG.
//! Guarantees: `live_in[b]` / `live_out[b]` are sorted, duplicate-free value lists; a block
//! parameter is never live-in to its own block; block-call arguments count as uses in the
//! block holding the branch. Cost is proportional to the total size of the live sets.

use cranelift_entity::{EntityRef, SecondaryMap};

use crate::ir::{Block, ControlFlowGraph, Function, Value, ValueDef};

/// Live-in and live-out sets of every block.
#[derive(Clone, Debug, Default)]
pub struct Liveness {
    /// Values live on entry (block parameters excluded).
    pub live_in: SecondaryMap<Block, Vec<Value>>,
    /// Values live on exit.
    pub live_out: SecondaryMap<Block, Vec<Value>>,
}

/// Registers live at each instruction of block `b`, walking back from `live_out` (the values
/// live at its end): `at(k, n)` gets, for the block's `k`-th instruction, the registers
/// (`width` of each value, 0 for another file) live across it or read by it, its results
/// counted too. Returns the block's most (the live-out registers for an empty block).
pub fn block_pressure(
    func: &Function,
    live_out: &[Value],
    b: Block,
    width: impl Fn(Value) -> u32,
    mut at: impl FnMut(usize, u32),
) -> u32 {
    let mut live: crate::FastHashSet<Value> = live_out.iter().copied().collect();
    let mut cur: u32 = live.iter().map(|&v| width(v)).sum();
    let mut peak = cur;
    let insts: Vec<crate::ir::Inst> = func.layout.block_insts(b).collect();
    for (k, &i) in insts.iter().enumerate().rev() {
        let mut after = cur;
        for &r in func.dfg.inst_results(i) {
            if live.remove(&r) {
                cur -= width(r);
            } else {
                after += width(r);
            }
        }
        for v in func.dfg.insts[i].all_values() {
            if live.insert(v) {
                cur += width(v);
            }
        }
        let n = after.max(cur);
        at(k, n);
        peak = peak.max(n);
    }
    peak
}

/// The block defining `v`, if any.
pub fn def_block(func: &Function, v: Value) -> Option<Block> {
    match func.dfg.value_def(v) {
        ValueDef::Result(i, _) => func.layout.inst_block(i),
        ValueDef::Param(b, _) => Some(b),
        ValueDef::Detached => None,
    }
}

impl Liveness {
    /// Computes liveness of the blocks in `func`'s layout.
    pub fn compute(func: &Function, cfg: &ControlFlowGraph) -> Liveness {
        let mut uses: Vec<(Value, Block)> = Vec::new();
        for b in func.layout.blocks() {
            for inst in func.layout.block_insts(b) {
                for v in func.dfg.insts[inst].all_values() {
                    if def_block(func, v) != Some(b) {
                        uses.push((v, b));
                    }
                }
            }
        }
        uses.sort_unstable();
        uses.dedup();
        let mut lv = Liveness {
            live_in: crate::ir::entities::sized_map(func.dfg.num_blocks()),
            live_out: crate::ir::entities::sized_map(func.dfg.num_blocks()),
        };
        // Stamps: `index + 1` of the value being explored; 0 = never.
        let mut in_stamp: SecondaryMap<Block, u32> = SecondaryMap::new();
        let mut out_stamp: SecondaryMap<Block, u32> = SecondaryMap::new();
        in_stamp.resize(func.dfg.num_blocks());
        out_stamp.resize(func.dfg.num_blocks());
        let mut work: Vec<Block> = Vec::new();
        for &(v, b) in &uses {
            let stamp = v.index() as u32 + 1;
            let dblock = def_block(func, v);
            work.push(b);
            while let Some(x) = work.pop() {
                if in_stamp[x] == stamp {
                    continue;
                }
                in_stamp[x] = stamp;
                lv.live_in[x].push(v);
                for &p in cfg.preds(x) {
                    if out_stamp[p] != stamp {
                        out_stamp[p] = stamp;
                        lv.live_out[p].push(v);
                    }
                    if dblock != Some(p) {
                        work.push(p);
                    }
                }
            }
        }
        // Values are explored in increasing order, so every list is already sorted.
        lv
    }

    /// True if `v` is live on exit from `b`.
    pub fn is_live_out(&self, b: Block, v: Value) -> bool {
        self.live_out[b].binary_search(&v).is_ok()
    }

    /// True if `v` is live on entry to `b`.
    pub fn is_live_in(&self, b: Block, v: Value) -> bool {
        self.live_in[b].binary_search(&v).is_ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::parse_function_text;

    #[test]
    fn loop_carried_and_through_values() {
        let f = parse_function_text(
            "kernel %f {
block0:
    v0 = iconst.b32 1
    v1 = iconst.b32 2
    jump block1(v0)
block1(v2: b32):
    v3 = iadd v2, v1
    v4 = icmp slt v3, v1
    brif v4, block1(v3), block2
block2:
    return
}",
        )
        .expect("valid text");
        let cfg = ControlFlowGraph::with_function(&f);
        let lv = Liveness::compute(&f, &cfg);
        let b = |i| Block::new(i);
        let v = |i| Value::new(i);
        assert_eq!(lv.live_in[b(1)], vec![v(1)]);
        assert_eq!(lv.live_out[b(1)], vec![v(1)]);
        assert_eq!(lv.live_out[b(0)], vec![v(1)]);
        assert!(lv.live_in[b(2)].is_empty());
        // Block 1: v1 live through, v2 read by the add, v3 passed back; the predicate counts 0.
        let width = |v: Value| u32::from(f.dfg.value_type(v) != crate::ir::Type::Pred);
        let mut at = vec![0; 3];
        let peak = block_pressure(&f, &lv.live_out[b(1)], b(1), width, |k, n| at[k] = n);
        assert_eq!((at, peak), (vec![2, 2, 2], 2));
        // Block 0: v0 and v1 defined, v0 passed on; the results count where they are made.
        let mut at = vec![0; 3];
        let peak = block_pressure(&f, &lv.live_out[b(0)], b(0), width, |k, n| at[k] = n);
        assert_eq!((at, peak), (vec![1, 2, 2], 2));
    }
}
