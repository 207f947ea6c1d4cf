//! Loop preheaders: every loop header entered from more than one edge outside its loop, or
//! from a block that also branches elsewhere, gets a block of its own in front of it that
//! all those edges go to, so the loop has a single entry edge from a block that only enters
//! it (the shape loop versioning, unrolling, value ranges and LICM look for: what they place
//! in front of the loop runs once per entry, not on another path or in another loop).
//!
//! ```text
//! a: brif c, H(x), b          a: brif c, P(x), b
//! b: jump H(y)        ==>     b: jump P(y)
//!                             P(p): jump H(p)
//! ```
//!
//! Requires: a verified SSA function. Guarantees: the same behaviour (the new block only
//! forwards its parameters); a verifier-clean function (a value that dominated the header
//! dominates every edge into it, so it dominates the new block too); loops keep their blocks.

use crate::ir::{Analyses, BlockCall, FuncCursor, Function};

/// Runs the pass.
pub fn run(func: &mut Function) {
    insert(func);
}

/// Runs the pass with the pipeline's cached analyses (used before any block is added).
pub fn run_with(func: &mut Function, analyses: &mut Analyses) {
    insert_with(func, analyses);
}

/// Gives every loop header entered from several outside edges a preheader; returns how many.
pub fn insert(func: &mut Function) -> usize {
    insert_with(func, &mut Analyses::new())
}

/// As [`insert`], with `func`'s cached analyses (used before any change).
pub fn insert_with(func: &mut Function, analyses: &mut Analyses) -> usize {
    let (cfg, dt, loops) = analyses.loops(func);
    let headers: Vec<_> = dt
        .rpo()
        .iter()
        .copied()
        .filter(|&h| loops.is_header(h))
        .collect();
    let mut done = 0;
    for h in headers {
        crate::budget::tick();
        // Edges from outside the loop: predecessors the header does not dominate (a
        // predecessor may branch to the header on both of its edges).
        let outside: Vec<_> = cfg
            .preds(h)
            .iter()
            .copied()
            .filter(|&p| !dt.dominates(h, p))
            .collect();
        let edges: usize = outside
            .iter()
            .map(|&p| {
                func.layout.last_inst(p).map_or(0, |t| {
                    func.dfg.insts[t]
                        .branch_destinations()
                        .iter()
                        .filter(|d| d.block == h)
                        .count()
                })
            })
            .sum();
        // One edge from a block that goes nowhere else is a preheader already; one from a
        // block that also branches elsewhere (another loop's header, whose exit enters this
        // loop directly) is not: code placed at its end in front of this loop (invariants,
        // an unrolled loop's limits) would run on its other path too, and in its own loop.
        let dedicated = edges == 1
            && outside.iter().all(|&p| {
                func.layout
                    .last_inst(p)
                    .is_some_and(|t| func.dfg.insts[t].branch_destinations().len() == 1)
            });
        if edges == 0 || dedicated {
            continue;
        }
        let pre = func.dfg.make_block();
        func.layout.insert_block(pre, h);
        let types: Vec<_> = func
            .dfg
            .block_params(h)
            .iter()
            .map(|&p| func.dfg.value_type(p))
            .collect();
        let params: Vec<_> = types
            .into_iter()
            .map(|ty| func.dfg.append_block_param(pre, ty))
            .collect();
        for p in outside {
            let Some(t) = func.layout.last_inst(p) else {
                continue;
            };
            for d in func.dfg.insts[t].branch_destinations_mut() {
                if d.block == h {
                    *d = BlockCall::new(pre, &d.args);
                }
            }
        }
        let mut cur = FuncCursor::new(func).at_end(pre);
        cur.ins().jump(h, &params);
        done += 1;
    }
    done
}
