//! Exit-value sinking: a pure instruction in a loop whose only use is an argument that a
//! loop exit edge passes moves onto that edge, into a block of its own, so the loop computes
//! it only when it leaves rather than on every iteration.
//!
//! ```text
//! b: v = iadd i, 1                    b: brif c, e, next
//!    brif c, exit(v), next    ==>     e: v = iadd i, 1
//!                                        jump exit(v)
//! ```
//!
//! Typical source: a loop with a `break` in its body, unrolled, where each copy computes the
//! counter's value at its own exit (`i + k`) although the next copy needs only `i + k + 1`.
//! Other values of the body keep their place: only a value with no use but that one edge
//! argument moves (its instruction's operands dominate the branch, so they dominate the new
//! block, whose only predecessor is the branch's block).
//!
//! Requires: a verified SSA function. Guarantees: the same behaviour (the moved instruction is
//! pure and not convergent, and it runs exactly when its value was passed); a verifier-clean
//! function; each new block lies in the loops its exit's destination lies in, outside the
//! branch's innermost loop.

use crate::gvn::is_pure;
use crate::ir::{Analyses, Block, BlockCall, FuncCursor, Function, Inst};

/// Runs the pass.
pub fn run(func: &mut Function) {
    sink_exit_values(func, &mut Analyses::new());
}

/// Runs the pass with the pipeline's cached analyses (used before any block is added).
pub fn run_with(func: &mut Function, analyses: &mut Analyses) {
    sink_exit_values(func, analyses);
}

/// Moves exit values onto their exit edges; returns how many instructions moved.
pub fn sink_exit_values(func: &mut Function, analyses: &mut Analyses) -> usize {
    // (branch, destination index, instructions to move) per exit edge, found before any change.
    let mut edges: Vec<(Inst, usize, Vec<Inst>)> = Vec::new();
    {
        let (_, _, loops) = analyses.loops(func);
        // Use counts, taken only for a function with loops (most kernels' hot path has none).
        let mut uses = cranelift_entity::SecondaryMap::<crate::ir::Value, u32>::new();
        if func.layout.blocks().any(|b| loops.loop_depth(b) > 0) {
            for inst in func.insts_in_layout() {
                for v in func.dfg.insts[inst].all_values() {
                    uses[v] += 1;
                }
            }
        }
        for b in func.layout.blocks() {
            crate::budget::tick();
            let depth = loops.loop_depth(b);
            if depth == 0 {
                continue;
            }
            let Some(t) = func.layout.last_inst(b) else {
                continue;
            };
            let dests = func.dfg.insts[t].branch_destinations();
            if dests.len() < 2 {
                continue;
            }
            for (k, d) in dests.iter().enumerate() {
                // An exit: the destination is less deeply nested, so it lies outside the
                // branch's innermost loop (loops nest).
                if loops.loop_depth(d.block) >= depth {
                    continue;
                }
                let moved: Vec<Inst> = d
                    .args
                    .iter()
                    .filter(|&&v| uses[v] == 1)
                    .filter_map(|&v| func.dfg.value_inst(v))
                    .filter(|&i| {
                        let data = &func.dfg.insts[i];
                        func.layout.inst_block(i) == Some(b)
                            && func.dfg.inst_results(i).len() == 1
                            && is_pure(data)
                            && !data.opcode().is_convergent()
                    })
                    .collect();
                if !moved.is_empty() {
                    edges.push((t, k, moved));
                }
            }
        }
    }
    let mut count = 0;
    for (t, k, moved) in edges {
        let Some(b) = func.layout.inst_block(t) else {
            continue;
        };
        let d = func.dfg.insts[t].branch_destinations()[k].clone();
        let e: Block = func.dfg.make_block();
        func.layout.insert_block_after(e, b);
        // In their block order, so a moved value's operands stay above it.
        let moved: Vec<Inst> = func
            .layout
            .block_insts(b)
            .filter(|i| moved.contains(i))
            .collect();
        for i in moved {
            func.layout.remove_inst(i);
            func.layout.append_inst(i, e);
            count += 1;
        }
        let mut cur = FuncCursor::new(func).at_end(e);
        cur.ins().jump(d.block, &d.args);
        func.dfg.insts[t].branch_destinations_mut()[k] = BlockCall::new(e, &[]);
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::reader::parse_function_text;

    fn sunk(text: &str) -> (usize, String) {
        let mut f = parse_function_text(text).expect("parses");
        let n = sink_exit_values(&mut f, &mut Analyses::new());
        crate::verifier::verify_function(&f).expect("verifies");
        let mut out = String::new();
        crate::ir::write::write_function(&mut out, &f).expect("writes");
        (n, out)
    }

    const LOOP: &str = "kernel %k {
    uav0 = raw

block0:
    v0 = iconst.b32 0x0
    v1 = iconst.b32 0x1
    v2 = iconst.b32 0x2
    v3 = iconst.b32 0x40
    jump block1(v0)

block1(v10: b32):
    v11 = icmp slt v10, v3
    brif v11, block2, block3(v10)

block2:
    v12 = iadd v10, v1
    v13 = load.b32 uav0[v10]
    v14 = icmp eq v13, v0
    brif v14, block3(v12), block4

block4:
    v15 = iadd v10, v2
    jump block1(v15)

block3(v20: b32):
    store.b32 uav0[v0], v20
    return
}
";

    #[test]
    fn a_value_passed_only_on_an_exit_edge_moves_onto_it() {
        let (n, out) = sunk(LOOP);
        assert_eq!(n, 1, "{out}");
        // The break's edge goes to a new block computing `v10 + 1` and jumping to the exit.
        let block2 = out.split("block2:").nth(1).expect("block2 stays");
        let block2 = block2.split("\n\n").next().unwrap_or_default();
        assert!(!block2.contains("iadd v10, v1"), "{out}");
        assert!(
            out.contains("v12 = iadd v10, v1\n    jump block3(v12)"),
            "{out}"
        );
    }

    #[test]
    fn values_with_other_uses_or_on_loop_edges_stay() {
        let text = LOOP.replace("    v14 = icmp eq v13, v0", "    v14 = icmp eq v13, v12");
        let (n, out) = sunk(&text);
        assert_eq!(n, 0, "{out}");
        // The latch's argument is a loop edge, not an exit: it stays.
        assert!(out.contains("block4:\n    v15 = iadd v10, v2"), "{out}");
    }
}
