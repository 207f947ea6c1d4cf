//! Loads hoisted over `if`s, so that a later iteration's (or a later unrolled copy's) loads
//! start before an earlier one's conditional work instead of after it.
//!
//! For a block `J` (in a loop or not) whose immediate dominator `A` it post-dominates (`A` and
//! `J` run exactly as often: `J` is where `A`'s `if` joins; both in the same innermost loop, `J`
//! not its header), reached from `A` only through an acyclic region of at most [`MAX_REGION`]
//! blocks that write no memory and hold no barrier or call: the loads of `J` that come before
//! its first instruction with side effects other than a store, and after no store to their
//! memory class ([`MemClasses`]: a buffer load moves past a store to LDS), with
//! the pure instructions of `J` that compute their addresses, move to the end of `A`, in their
//! order, when their operands do not come from `J`'s parameters. A constant buffer's word at
//! a constant address stays (it becomes an operand, not a load). Blocks are visited bottom-up
//! (post-order), so a chain of such joins (the copies of an unrolled loop body, each ending in
//! its own `if`) carries the last copy's loads up to the first; at most
//! [`MAX_WORDS`] words of loads move into one block, so the registers they hold stay bounded.
//!
//! Moving a load within its control-equivalence class executes it exactly as often as before,
//! on the same address; no write to its memory lies between the old and the new position
//! (the region's blocks write none, the part of `J` before the load none of its class), and
//! shared memory changes only across barriers. A bounds-checked load stays checked. So every
//! load reads the value it read before.
//!
//! Requires: verified SSA. Guarantees: behaviour unchanged; only instruction positions change
//! (from `J` to `A`); the CFG is untouched.

use crate::gvn::is_pure;
use crate::ir::{
    Analyses, Block, Function, Inst, InstructionData, MemSpace, PostDominatorTree, Value,
};
use crate::target::MemClasses;
use crate::{FastHashMap as HashMap, FastHashSet as HashSet};

/// Most blocks between `A` and `J`.
pub const MAX_REGION: usize = 16;
/// Most 32-bit words of loads moved into one block. Measured on the bench pairs (modeled
/// cycles of shoc_md, whose unrolled copies each load a neighbour index, then the three words
/// of its position, under an `if`): 8 left the next copy's index load behind the `if` (1.58x
/// ptxas's cycles); 10 takes it along (1.25x, registers 32, ptxas 31); 12 and 16 moved more
/// position words up and cost registers (34) for less (1.36x). No other pair changes.
pub const MAX_WORDS: usize = 10;

/// Runs the pass.
pub fn run(func: &mut Function) {
    hoist_with(func, &mut Analyses::new());
}

/// As [`run`], with `func`'s cached analyses; returns how many loads moved.
pub fn run_with(func: &mut Function, analyses: &mut Analyses) {
    hoist_with(func, analyses);
}

/// Hoists loads; returns how many moved.
pub fn hoist_with(func: &mut Function, analyses: &mut Analyses) -> usize {
    let (cfg, dt, loops) = analyses.loops(func);
    let pdt = PostDominatorTree::with_function(func, cfg);
    // (A, J) pairs, bottom-up.
    let mut pairs = Vec::new();
    for &j in dt.rpo().iter().rev() {
        crate::budget::tick();
        let Some(a) = dt.idom(j) else { continue };
        if loops.innermost_loop(a) != loops.innermost_loop(j)
            || loops.is_header(j)
            || !pdt.post_dominates(j, a)
        {
            continue;
        }
        if quiet_region(func, cfg, a, j) {
            pairs.push((a, j));
        }
    }
    let mut moved = 0;
    let mut words: HashMap<Block, usize> = HashMap::default();
    for (a, j) in pairs {
        moved += hoist_pair(func, a, j, words.entry(a).or_insert(0));
    }
    if moved > 0 {
        // Positions changed, the CFG did not.
        analyses.revalidate(func);
    }
    moved
}

/// True if every path from `a` reaches `j` through at most [`MAX_REGION`] blocks, none of
/// them on a cycle (no path returns to `a`) and none writing memory or synchronizing.
fn quiet_region(func: &Function, cfg: &crate::ir::ControlFlowGraph, a: Block, j: Block) -> bool {
    let mut seen: HashSet<Block> = HashSet::default();
    let mut stack: Vec<Block> = cfg.succs(a).to_vec();
    while let Some(b) = stack.pop() {
        if b == j || !seen.insert(b) {
            continue;
        }
        if b == a || seen.len() > MAX_REGION {
            return false;
        }
        let writes = func.layout.block_insts(b).any(|i| {
            let d = &func.dfg.insts[i];
            d.has_side_effects() && !d.is_terminator()
        });
        if writes {
            return false;
        }
        stack.extend(cfg.succs(b).iter().copied());
    }
    true
}

/// Moves `j`'s leading loads (and the pure instructions computing their addresses) to the
/// end of `a`; `words` counts the load words `a` has received. Returns the loads moved.
fn hoist_pair(func: &mut Function, a: Block, j: Block, words: &mut usize) -> usize {
    let insts: Vec<Inst> = func.layout.block_insts(j).collect();
    // Instructions that could move: loads and pure instructions over values available at the
    // end of `a` (defined outside `j`, not `j`'s parameters) or computed by movable ones.
    let mut movable: HashSet<Inst> = HashSet::default();
    let mut made: HashSet<Value> = HashSet::default();
    // The memory classes `j` has written so far: a load of another class still moves.
    let mut written = MemClasses::NONE;
    for &i in &insts {
        let d = &func.dfg.insts[i];
        if d.is_terminator() {
            break;
        }
        if d.has_side_effects() {
            match d {
                InstructionData::Store { mem, .. } => written = written | MemClasses::of(mem.space),
                _ => break,
            }
            continue;
        }
        let load = match d {
            InstructionData::Load { mem, .. } if MemClasses::of(mem.space).meet(written) => {
                continue
            }
            // A constant buffer's word at a constant address is an operand, not a load.
            InstructionData::Load { mem, args, .. }
                if matches!(mem.space, MemSpace::Cb(_)) && args.is_empty() =>
            {
                continue
            }
            InstructionData::Load { .. } => true,
            _ => false,
        };
        if !(load || is_pure(d)) || func.dfg.inst_results(i).is_empty() {
            continue;
        }
        // `j`'s parameters and values computed in `j` by instructions that stay are not
        // available in `a`.
        let available = func.dfg.inst_args(i).iter().all(|&v| {
            made.contains(&v) || crate::regalloc::liveness::def_block(func, v) != Some(j)
        });
        if available {
            movable.insert(i);
            made.extend(func.dfg.inst_results(i).iter().copied());
        }
    }
    // The loads that fit, with what they need; in `j`'s order.
    let mut take: HashSet<Inst> = HashSet::default();
    let mut loads = 0;
    for &i in insts.iter().filter(|i| movable.contains(i)) {
        let InstructionData::Load { mem, .. } = &func.dfg.insts[i] else {
            continue;
        };
        let w = mem.size.words();
        if *words + w > MAX_WORDS {
            break;
        }
        *words += w;
        loads += 1;
        let mut work = vec![i];
        while let Some(x) = work.pop() {
            if !take.insert(x) {
                continue;
            }
            for &v in func.dfg.inst_args(x) {
                if let Some(d) = func.dfg.value_inst(v) {
                    if movable.contains(&d) {
                        work.push(d);
                    }
                }
            }
        }
    }
    let Some(at) = func.layout.last_inst(a) else {
        return 0;
    };
    for &i in insts.iter().filter(|i| take.contains(i)) {
        func.layout.remove_inst(i);
        func.layout.insert_inst(i, at);
    }
    loads
}

#[cfg(test)]
mod tests {
    use crate::ir::parse_function_text;

    #[test]
    fn a_store_in_the_if_keeps_the_load_below_it() {
        let text = "kernel %k {
    uav0 = raw

block0:
    v0 = iconst.b32 0x0
    v1 = iconst.b32 0x10
    jump block1(v0)

block1(v2: b32):
    v3 = icmp ult v2, v1
    brif v3, block2, block4

block2:
    v4 = load.b32 uav0[v2]
    v5 = icmp ugt v4, v1
    brif v5, block3, block5

block3:
    store.b32 uav0[v2], v4
    jump block5

block5:
    v6 = load.b32 uav0[v4]
    v7 = iconst.b32 0x4
    v8 = iadd v2, v7
    jump block1(v8)

block4:
    return
}
";
        let mut f = parse_function_text(text).expect("parses");
        assert_eq!(
            super::hoist_with(&mut f, &mut crate::ir::Analyses::new()),
            0
        );
        let quiet = text.replace("    store.b32 uav0[v2], v4\n", "");
        let mut f = parse_function_text(&quiet).expect("parses");
        assert_eq!(
            super::hoist_with(&mut f, &mut crate::ir::Analyses::new()),
            1
        );
        crate::verifier::verify_function(&f).expect("verifies");
        let text = f.to_string();
        let load = text.find("v6 = load.b32 uav0[v4]").expect("load kept");
        let branch = text.find("brif v5, block3, block5").expect("branch kept");
        assert!(load < branch, "{text}");
    }
}
