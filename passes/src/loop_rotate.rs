//! Loop rotation: a loop whose header holds only its exit test (a few pure instructions and a
//! `brif`) and whose single latch jumps back to it gets a copy of that test at the end of the
//! latch, which then branches to the body or out of the loop itself. The header runs once, as
//! the loop's entry guard; the body's first block becomes the loop's header.
//!
//! ```text
//! H(i):  c = icmp slt i, n           H(i):  c = icmp slt i, n
//!        brif c, B, X(i)                    brif c, B(i), X(i)
//! B:     ...                  ==>    B(i'): ...            (uses of i read i')
//! L:     j = iadd i, 1               L:     j = iadd i', 1
//!        jump H(j)                          c' = icmp slt j, n
//!                                           brif c', B(j), X(j)
//! ```
//!
//! Emission ran a copy of such a header at the bottom of every loop anyway (one branch per
//! iteration); rotating before scheduling lets the scheduler see the test with the latch's
//! code, so the compare issues early and its 13-cycle predicate latency overlaps the
//! iteration's work instead of stalling the branch right behind it.
//!
//! The header's values (parameters and test results) that the loop reads become parameters of
//! the body's first block `B` (the header passes its own, the latch the copies'); those read
//! after the loop become parameters of the exit block `X` (each loop edge into `X` passes the
//! version it sees), which requires every use after the loop to lie where `X` dominates and
//! every other edge into `X` to come from the loop. A loop is rotated when `B` is entered only
//! from the header, the header has at most [`MAX_HEADER`] instructions besides its branch,
//! all pure and not convergent, and its branch is uniform (see [`rotate`]).
//!
//! The backend runs it on selected code, between instruction selection and scheduling: the
//! loop passes and value ranges (which drop bounds checks) recognize loops by the unrotated
//! shape, so the rotation comes after all of them.
//!
//! Requires: a verified SSA function (IR or selected code). Guarantees: the same behaviour (the copied test computes what the
//! header would have computed on the next iteration, and an exit from the latch passes what
//! the header's exit would have passed); a verifier-clean function; at most [`MAX_LOOPS`]
//! loops rotated, each growing by at most [`MAX_HEADER`] + 1 instructions.

use crate::gvn::is_pure;
use crate::ir::{
    Analyses, Block, Function, Inst, InstructionData, Opcode, PostDominatorTree, Value,
};
use crate::uniformity::{Origin, Uniformity};
use crate::{FastHashMap as HashMap, FastHashSet as HashSet};

/// Most instructions (besides the branch) a rotated header may hold.
pub const MAX_HEADER: usize = 4;
/// Most loops rotated in one function.
pub const MAX_LOOPS: usize = 64;

/// Runs the pass.
pub fn run(func: &mut Function) {
    rotate(func, &mut Analyses::new(), crate::uniformity::origin);
}

/// Runs the pass with the pipeline's cached analyses (used before any change).
pub fn run_with(func: &mut Function, analyses: &mut Analyses) {
    rotate(func, analyses, crate::uniformity::origin);
}

/// A loop to rotate.
struct Rotation {
    header: Block,
    latch: Block,
    /// The body's first block (the header's successor in the loop).
    body: Block,
    /// The exit block (the header's successor outside the loop).
    exit: Block,
    /// Whether `body` is the `brif`'s first destination.
    body_first: bool,
    /// The loop's blocks (header included).
    blocks: HashSet<Block>,
    /// Header values read inside the loop (besides the header), or passed to `exit` by
    /// loop edges other than the header's and the latch's: `body` parameters.
    inner: Vec<Value>,
    /// Header values read after the loop: `exit` parameters.
    outer: Vec<Value>,
}

/// Rotates every candidate loop whose exit test is uniform ([`Uniformity`] with `origin`
/// saying which instructions' results differ between threads); returns how many.
///
/// A divergent exit stays in the header: its reconvergence point is pushed once in front of
/// the loop, which the emitter finds for a branch in the header (it copies the test to the
/// loop's bottom itself), not for one at the end of the body.
pub fn rotate(
    func: &mut Function,
    analyses: &mut Analyses,
    origin: impl Fn(&InstructionData) -> Origin,
) -> usize {
    let divergent: HashSet<Block> = {
        let (cfg, dt, loops) = analyses.loops(func);
        let headers: Vec<Block> = dt
            .rpo()
            .iter()
            .copied()
            .filter(|&h| loops.is_header(h))
            .collect();
        if headers.is_empty() {
            return 0;
        }
        let pdt = PostDominatorTree::with_function(func, cfg);
        let u = Uniformity::compute_in(func, cfg, dt, &pdt, loops, origin);
        headers
            .into_iter()
            .filter(|&h| u.is_divergent_branch(h))
            .collect()
    };
    // Headers found unsuitable are not examined again (each would cost a scan of the
    // function per round): rotating another loop adds no block, only parameters and edges
    // from its latch, so at worst a header it would have made suitable stays unrotated.
    let mut rejected: HashSet<Block> = divergent;
    let mut done = 0;
    while done < MAX_LOOPS {
        crate::budget::tick();
        let found = {
            let (cfg, dt, loops) = analyses.loops(func);
            let mut found = None;
            for &h in dt.rpo().iter().filter(|&&h| loops.is_header(h)) {
                if rejected.contains(&h) {
                    continue;
                }
                match candidate(func, cfg, dt, loops, h) {
                    Some(r) => {
                        found = Some(r);
                        break;
                    }
                    None => {
                        rejected.insert(h);
                    }
                }
            }
            found
        };
        let Some(r) = found else {
            break;
        };
        apply(func, &r);
        analyses.invalidate();
        done += 1;
    }
    done
}

/// Whether a header instruction may be copied to the latch: pure IR instructions, and
/// selected machine instructions without side effects (a copy runs for the same threads, once
/// per iteration, as the header did: a load or a vote may be copied too).
fn movable(data: &InstructionData) -> bool {
    !data.opcode().is_convergent()
        && (is_pure(data) || (data.opcode() == Opcode::Target && !data.has_side_effects()))
}

fn candidate(
    func: &Function,
    cfg: &crate::ir::ControlFlowGraph,
    dt: &crate::ir::DominatorTree,
    loops: &crate::ir::LoopInfo,
    h: Block,
) -> Option<Rotation> {
    let blocks: HashSet<Block> = loops.loop_blocks(h).iter().copied().collect();
    // One latch, ending in a jump to the header.
    let mut latches = cfg.preds(h).iter().copied().filter(|p| blocks.contains(p));
    let latch = latches.next()?;
    if latches.next().is_some() || latch == h {
        return None;
    }
    let lt = func.layout.last_inst(latch)?;
    match &func.dfg.insts[lt] {
        InstructionData::Jump { dests, .. } if dests[0].block == h => {}
        _ => return None,
    }
    // The header: a few pure instructions and a two-way branch, one way into the loop.
    let term = func.layout.last_inst(h)?;
    let InstructionData::Brif { dests, .. } = &func.dfg.insts[term] else {
        return None;
    };
    let (a, b) = (dests[0].block, dests[1].block);
    let (body, exit, body_first) = match (blocks.contains(&a), blocks.contains(&b)) {
        (true, false) => (a, b, true),
        (false, true) => (b, a, false),
        _ => return None,
    };
    if body == h || cfg.preds(body) != [h] {
        return None;
    }
    let insts: Vec<Inst> = func.layout.block_insts(h).collect();
    if insts.len() > MAX_HEADER + 1 {
        return None;
    }
    if !insts[..insts.len() - 1]
        .iter()
        .all(|&i| movable(&func.dfg.insts[i]))
    {
        return None;
    }
    // The header's values, in a fixed order.
    let mut values: Vec<Value> = func.dfg.block_params(h).to_vec();
    for &i in &insts[..insts.len() - 1] {
        values.extend_from_slice(func.dfg.inst_results(i));
    }
    let index: HashMap<Value, usize> = values.iter().enumerate().map(|(k, &v)| (v, k)).collect();
    let mut inner = vec![false; values.len()];
    let mut outer = vec![false; values.len()];
    // Loop blocks other than the header and latch that branch to the exit.
    let mut side_exits = false;
    for u in func.layout.blocks() {
        if u == h {
            continue;
        }
        let in_loop = blocks.contains(&u);
        if in_loop && u != latch {
            if let Some(t) = func.layout.last_inst(u) {
                side_exits |= func.dfg.insts[t]
                    .branch_destinations()
                    .iter()
                    .any(|d| d.block == exit);
            }
        }
        for i in func.layout.block_insts(u) {
            for v in func.dfg.insts[i].all_values() {
                let Some(&k) = index.get(&v) else {
                    continue;
                };
                if in_loop {
                    inner[k] = true;
                } else if dt.dominates(exit, u) {
                    outer[k] = true;
                } else {
                    return None;
                }
            }
        }
    }
    if outer.iter().any(|&o| o) {
        // Every edge into the exit comes from the loop (the header included).
        if cfg.preds(exit).iter().any(|p| !blocks.contains(p)) {
            return None;
        }
        // A side exit passes the body's version of each value read after the loop.
        if side_exits {
            for k in 0..values.len() {
                inner[k] |= outer[k];
            }
        }
    }
    let pick = |flags: &[bool]| -> Vec<Value> {
        values
            .iter()
            .zip(flags)
            .filter(|(_, &f)| f)
            .map(|(&v, _)| v)
            .collect()
    };
    Some(Rotation {
        header: h,
        latch,
        body,
        exit,
        body_first,
        blocks,
        inner: pick(&inner),
        outer: pick(&outer),
    })
}

fn apply(func: &mut Function, r: &Rotation) {
    // Parameters of the body's first block and of the exit for the header's values.
    let mut in_map: HashMap<Value, Value> = HashMap::default();
    for &v in &r.inner {
        let ty = func.dfg.value_type(v);
        in_map.insert(v, func.dfg.append_block_param(r.body, ty));
    }
    let mut out_map: HashMap<Value, Value> = HashMap::default();
    for &v in &r.outer {
        let ty = func.dfg.value_type(v);
        out_map.insert(v, func.dfg.append_block_param(r.exit, ty));
    }
    // Uses in the loop read the body's parameters, uses after it the exit's; loop edges
    // into the exit (other than the header's and the latch's) pass the body's versions.
    let blocks: Vec<Block> = func.layout.blocks().collect();
    for u in blocks {
        if u == r.header {
            continue;
        }
        let in_loop = r.blocks.contains(&u);
        let map = if in_loop { &in_map } else { &out_map };
        let insts: Vec<Inst> = func.layout.block_insts(u).collect();
        for i in insts {
            let data = &mut func.dfg.insts[i];
            data.map_values(|v| map.get(&v).copied().unwrap_or(v));
            if in_loop && u != r.latch {
                for d in data.branch_destinations_mut() {
                    if d.block == r.exit {
                        d.args.extend(r.outer.iter().map(|v| in_map[v]));
                    }
                }
            }
        }
    }
    // The header passes its own values.
    let term = func
        .layout
        .last_inst(r.header)
        .expect("a candidate header ends in its brif"); // checked by `candidate`
    let (bi, xi) = if r.body_first { (0, 1) } else { (1, 0) };
    {
        let dests = func.dfg.insts[term].branch_destinations_mut();
        dests[bi].args.extend(r.inner.iter().copied());
        dests[xi].args.extend(r.outer.iter().copied());
    }
    // The latch computes the test again on the values it passed back.
    let jump = func
        .layout
        .last_inst(r.latch)
        .expect("a candidate latch ends in its jump"); // checked by `candidate`
    let next: Vec<Value> = func.dfg.insts[jump].branch_destinations()[0].args.to_vec();
    let mut sigma: HashMap<Value, Value> = func
        .dfg
        .block_params(r.header)
        .iter()
        .copied()
        .zip(next)
        .collect();
    let header_insts: Vec<Inst> = func.layout.block_insts(r.header).collect();
    for &i in &header_insts[..header_insts.len() - 1] {
        let mut data = func.dfg.insts[i].clone();
        data.map_values(|v| sigma.get(&v).copied().unwrap_or(v));
        let ni = crate::counted_loop::make_copy(func, i, data, &mut sigma);
        func.layout.insert_inst(ni, jump);
    }
    let mut branch = func.dfg.insts[term].clone();
    branch.map_values(|v| sigma.get(&v).copied().unwrap_or(v));
    let nb = crate::counted_loop::make_copy(func, term, branch, &mut sigma);
    func.layout.insert_inst(nb, jump);
    func.layout.remove_inst(jump);
    debug_assert!(matches!(func.dfg.insts[nb].opcode(), Opcode::Brif));
}
