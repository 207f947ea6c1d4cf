//! Loop-invariant code motion: moves pure instructions whose operands are all defined
//! outside a loop into the loop's preheader, so they run once instead of every iteration.
//!
//! Requires: verified SSA. Guarantees: behaviour unchanged. Only pure instructions move (no
//! side effects, no memory access, not a terminator, not `special clock`, not a `Target`,
//! not convergent: a `vote_all` or `quad_shuffle` sees the lanes still in the loop):
//! every IR operation is total (integer division by zero is defined), so evaluating one
//! before the loop, even when the loop body would not have reached it, cannot trap or change
//! a result; its operands are defined outside the loop (or by instructions already hoisted),
//! so its value is the same in every iteration. A loop is only treated when it has a
//! preheader: a single predecessor outside the loop that ends in a `jump` to the header (the
//! shape the lowering of `whileloop` gives), or in a conditional branch when that predecessor
//! is in no loop the header's loop is not nested in; the moved instructions go before that
//! terminator, in
//! their original order, so SSA dominance holds. Inner loops are processed first, so an
//! invariant of both an inner and an outer loop ends up before the outer one.
//!
//! Memory reads stay in the loop (a store, atomic or barrier in the loop could change them;
//! constant-buffer reads are already placed in the entry block by the lowering).

use cranelift_entity::SecondaryMap;

use crate::gvn::is_pure;
use crate::ir::{Analyses, Block, Function, Inst, Opcode};

/// Runs LICM on `func`; returns the number of instructions moved.
pub fn run(func: &mut Function) {
    hoist(func);
}

/// Runs the pass with the pipeline's cached analyses (the pass changes no control flow).
pub fn run_with(func: &mut Function, analyses: &mut Analyses) {
    hoist_with(func, analyses);
}

/// As [`run`], returning how many instructions were moved.
pub fn hoist(func: &mut Function) -> usize {
    hoist_with(func, &mut Analyses::new())
}

/// As [`hoist`], with `func`'s cached analyses (used before any change).
pub fn hoist_with(func: &mut Function, analyses: &mut Analyses) -> usize {
    let (cfg, dt, loops) = analyses.loops(func);
    let mut moved = 0;
    // `headers` is outermost first: walk it backwards for inner loops first.
    for &h in loops.headers.iter().rev() {
        let in_loop = |b: Block| {
            let mut cur = loops.innermost_loop(b);
            while let Some(x) = cur {
                if x == h {
                    return true;
                }
                cur = loops.parent_loop(x);
            }
            false
        };
        let outside: Vec<Block> = cfg
            .preds(h)
            .iter()
            .copied()
            .filter(|&p| !in_loop(p))
            .collect();
        let [pre] = outside[..] else { continue };
        let Some(term) = func.terminator(pre) else {
            continue;
        };
        // A conditional branch into the header also serves (pure instructions may run on
        // the other path too: every IR operation is total), unless the predecessor sits in
        // a loop that does not contain this one: hoisting would put the instructions into
        // that loop (the unrolled copy in front of a remainder loop).
        if func.dfg.opcode(term) != Opcode::Jump && loops.loop_depth(pre) >= loops.loop_depth(h) {
            continue;
        }
        // Values defined inside the loop (block parameters and results).
        let mut inside: SecondaryMap<crate::ir::Value, bool> =
            crate::ir::entities::sized_map(func.dfg.num_values());
        let body: Vec<Block> = dt.rpo().iter().copied().filter(|&b| in_loop(b)).collect();
        for &b in &body {
            for &p in func.dfg.block_params(b) {
                inside[p] = true;
            }
            for i in func.layout.block_insts(b) {
                for &r in func.dfg.inst_results(i) {
                    inside[r] = true;
                }
            }
        }
        let mut to_move: Vec<Inst> = Vec::new();
        for &b in &body {
            for i in func.layout.block_insts(b) {
                let data = &func.dfg.insts[i];
                if !is_pure(data)
                    || data.opcode().is_convergent()
                    || func.dfg.inst_results(i).is_empty()
                {
                    continue;
                }
                if data.args().iter().all(|&a| !inside[a]) {
                    for &r in func.dfg.inst_results(i) {
                        inside[r] = false;
                    }
                    to_move.push(i);
                }
            }
        }
        for i in to_move {
            func.layout.remove_inst(i);
            func.layout.insert_inst(i, term);
            moved += 1;
        }
    }
    moved
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::parse_function_text;

    const LOOP: &str = "kernel %k {
    group_size 4, 1, 1
    uav0 = raw

block0:
    v0 = special tid.x
    v1 = iconst.b32 0x0
    jump block1(v1, v1)

block1(v2: b32, v3: b32):
    v4 = iconst.b32 0x7
    v5 = imul v0, v4
    v6 = iadd v3, v5
    v7 = iconst.b32 0x1
    v8 = iadd v2, v7
    v9 = icmp ult v8, v4
    brif v9, block2, block3

block2:
    jump block1(v8, v6)

block3:
    v10 = iconst.b32 0x2
    v11 = ishl v0, v10
    store.b32 uav0[v11], v6
    return
}
";

    #[test]
    fn hoists_invariants_and_keeps_variants() {
        let mut f = parse_function_text(LOOP).unwrap();
        let n = hoist(&mut f);
        crate::verifier::verify_function(&f).unwrap();
        let text = f.to_string();
        let pre = text.split("block1(").next().unwrap();
        assert!(pre.contains("v5 = imul v0, v4"), "{text}");
        assert!(pre.contains("v7 = iconst.b32 0x1"), "{text}");
        assert!(!pre.contains("v6 = iadd"), "{text}");
        assert!(!pre.contains("v8 = iadd"), "{text}");
        assert_eq!(n, 3);
    }

    #[test]
    fn convergent_operations_stay_in_the_loop() {
        // `quad_shuffle v0, v0` has invariant operands, but it reads the lanes still in the
        // loop: hoisted, it would read lanes that left early.
        let text = LOOP.replace("    v5 = imul v0, v4\n", "    v5 = quad_shuffle v0, v0\n");
        let mut f = parse_function_text(&text).unwrap();
        hoist(&mut f);
        crate::verifier::verify_function(&f).unwrap();
        let out = f.to_string();
        let pre = out.split("block1(").next().unwrap();
        assert!(!pre.contains("quad_shuffle"), "{out}");
        assert!(pre.contains("v7 = iconst.b32 0x1"), "{out}");
    }
}
