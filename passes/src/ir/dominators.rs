//! Dominator tree, post-dominator tree and natural-loop nesting.
//!
//! Algorithm: Cooper, Harvey and Kennedy, "A Simple, Fast Dominance Algorithm" (iterative
//! intersection over reverse post-order). Post-dominators run the same algorithm on the
//! reversed CFG with a virtual exit joining every block without successors.
//!
//! Requires a computed [`ControlFlowGraph`]. Guarantees: unreachable blocks have no
//! immediate dominator and dominate nothing; `dominates(a, a)` is true for reachable `a`.
//! Instruction-level dominance uses layout sequence numbers within a block.

use std::cell::Cell;

use cranelift_entity::SecondaryMap;
use smallvec::SmallVec;

use super::cfg::ControlFlowGraph;
use super::entities::{Block, Inst};
use super::function::Function;

/// Dominator tree of the reachable blocks.
#[derive(Clone, Debug, Default)]
pub struct DominatorTree {
    idom: SecondaryMap<Block, Option<Block>>,
    rpo_number: SecondaryMap<Block, u32>,
    rpo: Vec<Block>,
    children: SecondaryMap<Block, SmallVec<[Block; 2]>>,
}

/// Predecessor indices of one node: most blocks have one or two, kept inline (a heap
/// allocation per block was a fifth of a small kernel's allocations).
type Preds = SmallVec<[usize; 2]>;

thread_local! {
    /// Reused working storage of the dominator computations (predecessor lists by node
    /// number and the CHK result): a compile computes dominators tens of times. Taken while
    /// in use, so a nested computation simply allocates its own.
    static SCRATCH: Cell<(Vec<Preds>, Vec<usize>)> = const { Cell::new((Vec::new(), Vec::new())) };
}

/// Returns working storage to [`SCRATCH`], unless a large function made it large (a thread
/// does not keep a large kernel's memory after its compile).
fn keep_scratch(preds: Vec<Preds>, idx: Vec<usize>) {
    if preds.capacity() <= 1 << 12 {
        SCRATCH.set((preds, idx));
    }
}

/// Generic CHK iteration over nodes numbered in RPO (`0` is the root).
/// `preds[i]` lists predecessor indices; sets `idom` to the idom index of each node (root:
/// itself), `usize::MAX` for nodes never reached.
fn chk(preds: &[Preds], idom: &mut Vec<usize>) {
    let n = preds.len();
    idom.clear();
    idom.resize(n, usize::MAX);
    if n == 0 {
        return;
    }
    idom[0] = 0;
    let mut changed = true;
    while changed {
        changed = false;
        for b in 1..n {
            let mut new = usize::MAX;
            for &p in &preds[b] {
                if idom[p] == usize::MAX {
                    continue;
                }
                new = if new == usize::MAX {
                    p
                } else {
                    let (mut x, mut y) = (p, new);
                    while x != y {
                        // Deep nests make these walks quadratic in total: keep the compile
                        // deadline in reach.
                        crate::budget::tick();
                        while x > y {
                            x = idom[x];
                        }
                        while y > x {
                            y = idom[y];
                        }
                    }
                    x
                };
            }
            if new != usize::MAX && idom[b] != new {
                idom[b] = new;
                changed = true;
            }
        }
    }
}

impl DominatorTree {
    /// Computes the dominator tree.
    pub fn with_function(func: &Function, cfg: &ControlFlowGraph) -> Self {
        let rpo = cfg.reverse_post_order(func);
        // Every map sized once (growing them a block at a time cost more than the algorithm).
        let n = func.dfg.num_blocks();
        let mut num = SecondaryMap::with_default(u32::MAX);
        num.resize(n);
        for (i, &b) in rpo.iter().enumerate() {
            num[b] = i as u32;
        }
        let (mut preds, mut idx) = SCRATCH.take();
        preds.clear();
        preds.extend(rpo.iter().map(|&b| {
            cfg.preds(b)
                .iter()
                .filter(|&&p| num[p] != u32::MAX)
                .map(|&p| num[p] as usize)
                .collect::<Preds>()
        }));
        chk(&preds, &mut idx);
        let mut idom = SecondaryMap::new();
        idom.resize(n);
        let mut children: SecondaryMap<Block, SmallVec<[Block; 2]>> = SecondaryMap::new();
        children.resize(n);
        for (i, &b) in rpo.iter().enumerate().skip(1) {
            let d = rpo[idx[i]];
            idom[b] = Some(d);
            children[d].push(b);
        }
        keep_scratch(preds, idx);
        DominatorTree {
            idom,
            rpo_number: num,
            rpo,
            children,
        }
    }

    /// Immediate dominator (None for the entry and unreachable blocks).
    pub fn idom(&self, b: Block) -> Option<Block> {
        self.idom[b]
    }

    /// True if `b` is reachable from the entry.
    pub fn is_reachable(&self, b: Block) -> bool {
        self.rpo_number[b] != u32::MAX
    }

    /// Reachable blocks in reverse post-order.
    pub fn rpo(&self) -> &[Block] {
        &self.rpo
    }

    /// Position of `b` in the reverse post-order (`u32::MAX` if unreachable).
    pub fn rpo_number(&self, b: Block) -> u32 {
        self.rpo_number[b]
    }

    /// Children of `b` in the dominator tree.
    pub fn children(&self, b: Block) -> &[Block] {
        &self.children[b]
    }

    /// True if `a` dominates `b` (reflexive). False if either is unreachable.
    pub fn dominates(&self, a: Block, b: Block) -> bool {
        if !self.is_reachable(a) || !self.is_reachable(b) {
            return false;
        }
        let mut cur = b;
        loop {
            if cur == a {
                return true;
            }
            // idom has a smaller RPO number: stop once we pass `a`.
            if self.rpo_number[cur] < self.rpo_number[a] {
                return false;
            }
            match self.idom[cur] {
                Some(d) => cur = d,
                None => return false,
            }
        }
    }

    /// True if instruction `a` dominates instruction `b` (`a` strictly before `b` in the
    /// same block, or `a`'s block strictly dominates `b`'s).
    pub fn inst_dominates(&self, func: &Function, a: Inst, b: Inst) -> bool {
        let (Some(ba), Some(bb)) = (func.layout.inst_block(a), func.layout.inst_block(b)) else {
            return false;
        };
        if ba == bb {
            func.layout.cmp_in_block(a, b) == core::cmp::Ordering::Less
        } else {
            self.dominates(ba, bb)
        }
    }
}

/// Post-dominator tree. Blocks that cannot reach an exit have no post-dominator.
#[derive(Clone, Debug, Default)]
pub struct PostDominatorTree {
    ipdom: SecondaryMap<Block, Option<Block>>,
    reaches_exit: SecondaryMap<Block, bool>,
}

impl PostDominatorTree {
    /// Computes post-dominators.
    pub fn with_function(func: &Function, cfg: &ControlFlowGraph) -> Self {
        let blocks: Vec<Block> = func.layout.blocks().collect();
        // Reverse CFG RPO from a virtual exit (index 0).
        let exits: Vec<Block> = blocks
            .iter()
            .copied()
            .filter(|&b| cfg.succs(b).is_empty())
            .collect();
        let mut visited: SecondaryMap<Block, bool> = SecondaryMap::new();
        let mut post = Vec::new();
        for &e in &exits {
            if visited[e] {
                continue;
            }
            visited[e] = true;
            let mut stack = vec![(e, 0usize)];
            while let Some(&mut (b, ref mut i)) = stack.last_mut() {
                if let Some(&p) = cfg.preds(b).get(*i) {
                    *i += 1;
                    if !visited[p] {
                        visited[p] = true;
                        stack.push((p, 0));
                    }
                } else {
                    post.push(b);
                    stack.pop();
                }
            }
        }
        post.reverse();
        let mut num: SecondaryMap<Block, usize> = SecondaryMap::with_default(usize::MAX);
        for (i, &b) in post.iter().enumerate() {
            num[b] = i + 1;
        }
        let (mut preds, mut idx) = SCRATCH.take();
        preds.clear();
        preds.push(Preds::new());
        for &b in &post {
            // predecessors in the reverse graph = successors; exits also come from the root.
            let mut p: Preds = cfg
                .succs(b)
                .iter()
                .filter(|&&s| num[s] != usize::MAX)
                .map(|&s| num[s])
                .collect();
            if cfg.succs(b).is_empty() {
                p.push(0);
            }
            preds.push(p);
        }
        chk(&preds, &mut idx);
        let mut ipdom = SecondaryMap::new();
        let mut reaches_exit = SecondaryMap::new();
        for (i, &b) in post.iter().enumerate() {
            reaches_exit[b] = true;
            let d = idx[i + 1];
            if d != 0 && d != usize::MAX {
                ipdom[b] = Some(post[d - 1]);
            }
        }
        keep_scratch(preds, idx);
        PostDominatorTree {
            ipdom,
            reaches_exit,
        }
    }

    /// Immediate post-dominator (None for exits, blocks whose only common post-dominator
    /// is the virtual exit, and blocks that never reach an exit).
    pub fn ipdom(&self, b: Block) -> Option<Block> {
        self.ipdom[b]
    }

    /// True if `a` post-dominates `b` (reflexive).
    pub fn post_dominates(&self, a: Block, b: Block) -> bool {
        if !self.reaches_exit[a] || !self.reaches_exit[b] {
            return false;
        }
        let mut cur = Some(b);
        let mut steps = 0usize;
        while let Some(c) = cur {
            if c == a {
                return true;
            }
            cur = self.ipdom[c];
            steps += 1;
            if steps > 1 << 24 {
                break;
            }
        }
        false
    }
}

/// Natural loops found from back edges (`latch -> header` where the header dominates the
/// latch). Loops sharing a header are merged.
#[derive(Clone, Debug, Default)]
pub struct LoopInfo {
    /// Loop headers, outermost first.
    pub headers: Vec<Block>,
    /// Innermost loop header containing each block.
    innermost: SecondaryMap<Block, Option<Block>>,
    depth: SecondaryMap<Block, u32>,
    parent: SecondaryMap<Block, Option<Block>>,
    is_header: SecondaryMap<Block, bool>,
    /// Blocks of the loop headed by each header (the header first).
    blocks: SecondaryMap<Block, Vec<Block>>,
}

impl LoopInfo {
    /// Computes loop nesting.
    pub fn with_function(_func: &Function, cfg: &ControlFlowGraph, dt: &DominatorTree) -> Self {
        let mut bodies: Vec<(Block, Vec<Block>)> = Vec::new();
        for &h in dt.rpo() {
            let latches: Vec<Block> = cfg
                .preds(h)
                .iter()
                .copied()
                .filter(|&p| dt.dominates(h, p))
                .collect();
            if latches.is_empty() {
                continue;
            }
            let mut in_body: SecondaryMap<Block, bool> = SecondaryMap::new();
            in_body[h] = true;
            let mut body = vec![h];
            let mut work = latches;
            while let Some(b) = work.pop() {
                if in_body[b] || !dt.is_reachable(b) {
                    continue;
                }
                in_body[b] = true;
                body.push(b);
                work.extend(cfg.preds(b).iter().copied());
            }
            bodies.push((h, body));
        }
        // Outer loops have bigger bodies; assign innermost by processing large -> small.
        bodies.sort_by_key(|(h, body)| (core::cmp::Reverse(body.len()), dt.rpo_number(*h)));
        let mut info = LoopInfo::default();
        for (h, body) in &bodies {
            info.parent[*h] = info.innermost[*h];
            for &b in body {
                info.innermost[b] = Some(*h);
                info.depth[b] += 1;
            }
            info.headers.push(*h);
            info.is_header[*h] = true;
        }
        for (h, body) in bodies {
            info.blocks[h] = body;
        }
        info
    }

    /// Innermost loop header containing `b`.
    pub fn innermost_loop(&self, b: Block) -> Option<Block> {
        self.innermost[b]
    }

    /// Loop nesting depth of `b` (0 outside loops).
    pub fn loop_depth(&self, b: Block) -> u32 {
        self.depth[b]
    }

    /// The header of the loop enclosing the loop headed by `header`.
    pub fn parent_loop(&self, header: Block) -> Option<Block> {
        self.parent[header]
    }

    /// The blocks of the natural loop headed by `header` (the header first; empty if it is
    /// not a header), nested loops included.
    pub fn loop_blocks(&self, header: Block) -> &[Block] {
        &self.blocks[header]
    }

    /// True if `b` is a loop header.
    pub fn is_header(&self, b: Block) -> bool {
        self.is_header[b]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{BlockCall, FuncCursor, Type};

    /// Builds a function whose block `i` branches to `succs[i]` (0, 1, 2 or more targets).
    fn cfg_function(succs: &[Vec<usize>]) -> (Function, Vec<Block>) {
        let mut func = Function::new("cfg");
        let mut c = FuncCursor::new(&mut func);
        let blocks: Vec<Block> = succs.iter().map(|_| c.create_block()).collect();
        for (i, s) in succs.iter().enumerate() {
            c.goto_end(blocks[i]);
            match s.as_slice() {
                [] => {
                    c.ins().return_();
                }
                [a] => {
                    c.ins().jump(blocks[*a], &[]);
                }
                [a, b] => {
                    let p = c.ins().pconst(true);
                    c.ins().brif(p, blocks[*a], &[], blocks[*b], &[]);
                }
                [a, rest @ ..] => {
                    let x = c.ins().iconst(Type::B32, 0);
                    let table = rest
                        .iter()
                        .map(|&t| BlockCall::new(blocks[t], &[]))
                        .collect();
                    c.ins().br_table(x, BlockCall::new(blocks[*a], &[]), table);
                }
            }
        }
        (func, blocks)
    }

    /// Reachability from the entry avoiding `removed`.
    fn reach(succs: &[Vec<usize>], removed: Option<usize>) -> Vec<bool> {
        let mut seen = vec![false; succs.len()];
        if removed == Some(0) {
            return seen;
        }
        let mut work = vec![0];
        seen[0] = true;
        while let Some(b) = work.pop() {
            for &s in &succs[b] {
                if !seen[s] && Some(s) != removed {
                    seen[s] = true;
                    work.push(s);
                }
            }
        }
        seen
    }

    /// Reachability of an exit from every block, avoiding `removed`.
    fn reaches_exit(succs: &[Vec<usize>], removed: Option<usize>) -> Vec<bool> {
        let n = succs.len();
        let mut r: Vec<bool> = (0..n)
            .map(|b| succs[b].is_empty() && Some(b) != removed)
            .collect();
        loop {
            let mut changed = false;
            for b in 0..n {
                if !r[b] && Some(b) != removed && succs[b].iter().any(|&s| r[s]) {
                    r[b] = true;
                    changed = true;
                }
            }
            if !changed {
                return r;
            }
        }
    }

    #[test]
    fn dominance_matches_brute_force_on_random_cfgs() {
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let mut rnd = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        for _ in 0..300 {
            let n = rnd(10) + 1;
            let succs: Vec<Vec<usize>> = (0..n)
                .map(|_| (0..rnd(4)).map(|_| rnd(n)).filter(|&t| t != 0).collect())
                .collect();
            let (func, blocks) = cfg_function(&succs);
            let cfg = ControlFlowGraph::with_function(&func);
            let dt = DominatorTree::with_function(&func, &cfg);
            let pdt = PostDominatorTree::with_function(&func, &cfg);
            let reachable = reach(&succs, None);
            let exits = reaches_exit(&succs, None);
            for a in 0..n {
                let without_a = reach(&succs, Some(a));
                let exit_without_a = reaches_exit(&succs, Some(a));
                for b in 0..n {
                    let expect = reachable[a] && reachable[b] && (a == b || !without_a[b]);
                    assert_eq!(
                        dt.dominates(blocks[a], blocks[b]),
                        expect,
                        "{succs:?}: dom {a} {b}"
                    );
                    // a post-dominates b iff every path from b to an exit passes a.
                    let pexpect = exits[a] && exits[b] && (a == b || !exit_without_a[b]);
                    assert_eq!(
                        pdt.post_dominates(blocks[a], blocks[b]),
                        pexpect,
                        "{succs:?}: pdom {a} {b}"
                    );
                }
                assert_eq!(dt.is_reachable(blocks[a]), reachable[a]);
            }
            // Loop depth: a block is in the loop of header h iff h dominates it and it
            // reaches a latch of h without leaving h's dominance region.
            let loops = LoopInfo::with_function(&func, &cfg, &dt);
            for &h in &loops.headers {
                assert!(cfg.preds(h).iter().any(|&p| dt.dominates(h, p)));
            }
            // Brute-force natural loops: x is in loop(h) iff h dominates x and x reaches a
            // latch of h (a predecessor dominated by h) without passing through h.
            let idx = |blk: Block| blocks.iter().position(|&y| y == blk).unwrap_or(usize::MAX);
            let mut depth = vec![0u32; n];
            for h in 0..n {
                let latches: Vec<usize> = (0..n)
                    .filter(|&p| succs[p].contains(&h) && dt.dominates(blocks[h], blocks[p]))
                    .collect();
                if latches.is_empty() {
                    continue;
                }
                for (x, d) in depth.iter_mut().enumerate() {
                    if !dt.dominates(blocks[h], blocks[x]) {
                        continue;
                    }
                    // x reaches a latch avoiding h (x == h counts).
                    let mut seen = vec![false; n];
                    let mut work = vec![x];
                    seen[x] = true;
                    let mut found = false;
                    while let Some(y) = work.pop() {
                        if latches.contains(&y) {
                            found = true;
                            break;
                        }
                        for &s in &succs[y] {
                            if s != h && !seen[s] {
                                seen[s] = true;
                                work.push(s);
                            }
                        }
                    }
                    if found {
                        *d += 1;
                    }
                }
                assert!(loops.is_header(blocks[h]));
            }
            for b in 0..n {
                assert_eq!(
                    loops.loop_depth(blocks[b]),
                    depth[b],
                    "{succs:?}: depth of {b}"
                );
                if let Some(h) = loops.innermost_loop(blocks[b]) {
                    assert!(dt.dominates(h, blocks[b]));
                    assert!(idx(h) < n);
                }
            }
        }
    }

    #[test]
    fn nested_loops() {
        // 0 -> 1 (outer header) -> 2 (inner header) -> 3 -> 2 | 4 -> 1 | 5
        let succs = vec![vec![1], vec![2], vec![3], vec![2, 4], vec![1, 5], vec![]];
        let (func, b) = cfg_function(&succs);
        let cfg = ControlFlowGraph::with_function(&func);
        let dt = DominatorTree::with_function(&func, &cfg);
        let loops = LoopInfo::with_function(&func, &cfg, &dt);
        let depths: Vec<u32> = b.iter().map(|&x| loops.loop_depth(x)).collect();
        assert_eq!(depths, vec![0, 1, 2, 2, 1, 0]);
        assert_eq!(loops.innermost_loop(b[3]), Some(b[2]));
        assert_eq!(loops.innermost_loop(b[4]), Some(b[1]));
        assert_eq!(loops.parent_loop(b[2]), Some(b[1]));
        assert_eq!(loops.parent_loop(b[1]), None);
        assert!(loops.is_header(b[1]) && loops.is_header(b[2]) && !loops.is_header(b[3]));
        assert_eq!(dt.idom(b[5]), Some(b[4]));
        let pdt = PostDominatorTree::with_function(&func, &cfg);
        assert_eq!(pdt.ipdom(b[0]), Some(b[1]));
        assert_eq!(pdt.ipdom(b[3]), Some(b[4]));
        assert!(pdt.post_dominates(b[5], b[0]));
    }
}
