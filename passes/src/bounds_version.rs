//! Loop versioning on bounds checks: a counted loop whose memory accesses have addresses
//! affine in the induction variables gets a copy in which those accesses are marked
//! `inbounds`, entered when a test in front of the loop shows that every address the loop can
//! form is in range. The backend checks each UAV, SRV and `g[]` access against its buffer's
//! length (known only at launch) and each indexed constant-buffer read it cannot prove in
//! range against the declared size, every iteration; the copy checks once.
//!
//! A candidate is an innermost counted loop ([`crate::counted_loop`]) that leaves only from
//! its header, holds no barrier or cross-lane operation and has no short constant trip
//! count (at most [`crate::unroll::MAX_FULL_TRIPS`]: there the checks cost about what the
//! test would). Its induction variables are the
//! header parameters the latch advances by a constant or invariant step (the counter `iv`,
//! from `init` while `iv < n`, and pointer-like ones); iteration `j` sees each at
//! `init + step * j`. An access qualifies when its address `a` is built from induction
//! variables and invariant values by `iadd`, `isub`, `ineg`, `imul`, `imad`, `ishl` and
//! alignment masks `and x, !(2^k - 1)` where `2^k` divides `x`'s growth, so that
//! `a(j) = F + K * j mod 2^32` with `F = a(0)` and a growth `K` per iteration that is a
//! constant below 2^31 or an invariant value. The loop runs iterations `j <= J` only, with
//! `J = ((n - 1) - init) / s` when it runs at all (for a step `s > 1` the test adds
//! `n <= MAX - (s - 1)`, so `iv + s` cannot wrap). The test in front of the loop requires,
//! per access of `sz` bytes at `a + off`:
//!
//! - `K * J < 2^31` (nothing to test when both are constants, one compare when one is,
//!   `umulhi`/`imul` otherwise) and `F < 2^31`: then `F + K * j` never wraps for `j <= J`,
//!   so every address lies in `[F, L]` with `L = a(J)`;
//! - `F + off >= 0` and `L + off + sz <= len`, `len` the buffer's length (`special buflen`,
//!   below 2^31 by the IR's rule), computed without wrap-around.
//!
//! Then every word the access touches is in range, which is what `inbounds` promises.
//!
//! A guarded loop ([`crate::counted_loop::recognize_guarded`]: a counted loop's shape and an
//! unsigned test `iv <u n`, whatever the latch adds, as in a grid-stride loop) is versioned
//! the same way with `iv` itself in the role of `j`: inside the loop `iv` lies in `[0, n -
//! 1]`, so the accesses affine in `iv` alone (`F = a(iv = 0)`, `J = n - 1`) are tested as
//! above. Only accesses within element `iv` (`a = c + K * iv` with `0 <= c + off` and `c +
//! off + sz <= K`) are chosen there: `iv < n` is all the test sees, and an access past
//! element `iv` (`a[i + 256]`) would fail it wherever the buffer holds `n` elements. When
//! the test fails (or the loop does not run), the original loop runs with its checks; its
//! blocks are marked cold (unrolling leaves them alone). The branch is on `vote_all` of the
//! test: a warp takes the copy only when every thread passes, so the versions never run
//! side by side in one warp (no reconvergence point).
//!
//! ```text
//! pre:   jump P                 P:  test := ...; v := vote_all test
//!                                   brif v, H'(args), H(args)
//! H(..): brif c, body, X(..)    H': the copy, accesses marked inbounds, exits to X too
//! X(p):  jump exit              uses of header values after the loop read X's parameters
//! ```
//!
//! Requires: a verified SSA function; meant to run before unrolling (both versions unroll).
//! Guarantees: the same observable behaviour for every trip count, bound, buffer length and
//! address (including those near 2^32); a verifier-clean function; an access is marked
//! `inbounds` only in the copy, only where the test proves it; a function grows by at most
//! [`MAX_GROWTH`] instructions and at most [`MAX_LOOPS`] loops are versioned.

use crate::affine::{induction_variables, At, Coef, Eval, Induction, LoopShape, Scope};
use crate::counted_loop::{copy_blocks, CountedLoop, GuardedLoop};
use crate::ir::{
    Analyses, Block, BlockCall, ControlFlowGraph, DominatorTree, FuncCursor, Function, Inst,
    InstructionData, IntCC, LoopInfo, MemArg, MemSpace, Opcode, SpecialReg, Type, Value,
};
use crate::{FastHashMap as HashMap, FastHashSet as HashSet};

/// Largest loop (instructions, header included) that is copied.
pub const MAX_LOOP: usize = 400;
/// Most instructions versioning adds to one function.
pub const MAX_GROWTH: usize = 4096;
/// Most loops versioned in one function.
pub const MAX_LOOPS: usize = 32;
/// Most instructions in the address expression of one access.
const MAX_EXPR: usize = 24;

/// Runs the pass.
pub fn run(func: &mut Function) {
    version(func);
}

/// Runs the pass with `func`'s cached analyses (left for the caller to revalidate).
pub fn run_with(func: &mut Function, analyses: &mut Analyses) {
    version_with(func, analyses);
}

/// Versions every candidate loop; returns how many were versioned.
pub fn version(func: &mut Function) -> usize {
    version_with(func, &mut Analyses::new())
}

/// As [`version`], reading the CFG, dominators and loops from `func`'s cached analyses
/// (dropped after each loop versioned).
fn version_with(func: &mut Function, analyses: &mut Analyses) -> usize {
    let mut done: HashSet<Block> = HashSet::default();
    let mut grown = 0;
    let mut count = 0;
    while count < MAX_LOOPS {
        let (cfg, dt, loops) = analyses.loops(func);
        let ranges = crate::value_bound::Ranges::with_analyses(func, cfg, dt, loops);
        let mut next = None;
        for &h in dt.rpo().iter().filter(|&&h| loops.is_header(h)) {
            crate::budget::tick();
            if done.contains(&h) {
                continue;
            }
            done.insert(h);
            if let Some(c) = candidate(func, cfg, dt, loops, &ranges, h) {
                if grown + c.size <= MAX_GROWTH {
                    next = Some(c);
                    break;
                }
            }
        }
        let Some(c) = next else { break };
        grown += c.size;
        let copy = apply(func, &c);
        analyses.invalidate();
        done.insert(copy);
        count += 1;
    }
    count
}

/// A loop to version and the accesses its copy may mark.
struct Candidate {
    lp: GuardedLoop,
    /// The counted loop's constant step; None for a loop only guarded by `iv <u n`, whose
    /// accesses are affine in `iv` itself (module doc).
    step: Option<u32>,
    /// The header's exit (the destination outside the loop).
    exit: Block,
    /// Instructions in the loop, header included.
    size: usize,
    /// The accesses: instruction, address and its growth per iteration.
    accesses: Vec<(Inst, Value, Coef)>,
    /// The induction variables, the counted loop's own first (none for a guarded loop).
    ivs: Vec<Induction>,
    /// Whether the loop lies in another loop (its test then runs once per outer iteration,
    /// and the test's invariant compares go first, for LICM: [`Conj::finish`]).
    nested: bool,
}

/// Whether `space` has a length known only at launch (`special buflen`).
pub(crate) fn has_buflen(space: MemSpace) -> bool {
    matches!(
        space,
        MemSpace::Uav(_) | MemSpace::Srv(_) | MemSpace::Global
    )
}

/// The declared length of a constant buffer (far below 2^31). LDS and private arrays are
/// left alone: their loops are mostly short per work-item (reductions, tiles), where the test
/// costs more than the checks, and an LDS window smaller than the range a loop walks would
/// fail the test every time.
pub(crate) fn static_len(func: &Function, space: MemSpace) -> Option<u32> {
    match space {
        MemSpace::Cb(id) => func.cbs.get(&id).copied(),
        _ => None,
    }
}

fn candidate(
    func: &Function,
    cfg: &ControlFlowGraph,
    dt: &DominatorTree,
    loops: &LoopInfo,
    ranges: &crate::value_bound::Ranges,
    h: Block,
) -> Option<Candidate> {
    let (lp, step) = match crate::counted_loop::recognize(func, cfg, dt, loops, h) {
        // A short loop of a known trip count (at most MAX_FULL_TRIPS, which the unroller may
        // turn into straight-line code) keeps its checks: they cost about what the test and
        // the branch between the versions would.
        Some(_) if crate::unroll::constant_trips(func, cfg, dt, loops, h).is_some() => return None,
        Some(CountedLoop { guard, step }) => (guard, Some(step)),
        // `iv <u n` bounds `iv` to `[0, n - 1]` whatever the latch adds; a signed test bounds
        // it from above only.
        None => match crate::counted_loop::recognize_guarded(func, cfg, dt, loops, h) {
            Some(g) if !g.signed => (g, None),
            _ => return None,
        },
    };
    let members: HashSet<Block> = loops.loop_blocks(h).iter().copied().collect();
    // Innermost, leaving only from the header.
    if lp.body.iter().any(|&b| loops.is_header(b)) {
        return None;
    }
    if lp.body.iter().any(|&b| {
        cfg.succs(b)
            .iter()
            .any(|s| !members.contains(s) || (*s == h && b != lp.latch))
    }) {
        return None;
    }
    let exit = *cfg.succs(h).iter().find(|s| !members.contains(s))?;
    let shape = LoopShape {
        header: lp.header,
        pre: lp.pre,
        latch: lp.latch,
        first: Some(lp.iv_value),
    };
    let (ivs, scope_ivs) = match step {
        Some(_) => {
            let ivs = induction_variables(func, &shape, &members);
            let coefs = ivs.iter().map(|iv| (iv.param, iv.coef)).collect();
            (ivs, coefs)
        }
        // The addresses as functions of `iv`'s value: `a = F + K * iv`.
        None => (
            Vec::new(),
            [(lp.iv_value, Coef::Const(1))].into_iter().collect(),
        ),
    };
    let scope = Scope {
        func,
        members,
        ivs: scope_ivs,
    };
    let mut size = 0;
    let mut accesses = Vec::new();
    for &b in std::iter::once(&h).chain(&lp.body) {
        for inst in func.layout.block_insts(b) {
            size += 1;
            let data = &func.dfg.insts[inst];
            if matches!(data, InstructionData::Barrier { .. })
                || data.opcode() == Opcode::QuadShuffle
            {
                return None;
            }
            let (Some(m), Some(a)) = (data.mem_arg(), data.mem_addr()) else {
                continue;
            };
            if m.inbounds || static_len(func, m.space).is_none() && !has_buflen(m.space) {
                continue;
            }
            // A declared size the address's value range already fits needs no check (the
            // backend drops it): nothing to gain.
            if let Some(len) = static_len(func, m.space) {
                let (lo, hi) = ranges.range(func, a, Some(b));
                let (lo, hi) = (
                    lo as i64 + i64::from(m.offset),
                    hi as i64 + i64::from(m.offset),
                );
                if lo >= 0 && hi + i64::from(m.size.bytes()) <= i64::from(len) {
                    continue;
                }
            }
            let mut budget = MAX_EXPR;
            match scope.coef(a, &mut budget) {
                Some(Coef::Const(k)) if k >= 1 << 31 => {}
                Some(k) if step.is_none() && !within_element(func, &scope, a, k, m) => {}
                Some(k) => accesses.push((inst, a, k)),
                None => {}
            }
        }
    }
    // One test decides for every access, so an access whose check often fails (an LDS
    // window smaller than a buffer the loop walks, say) would send the whole loop down the
    // checked path. Launch-sized buffers are what the checks cost most on; the declared
    // sizes are versioned only in loops without such accesses.
    let launch_sized = |i: Inst| {
        func.dfg.insts[i]
            .mem_arg()
            .is_some_and(|m| has_buflen(m.space))
    };
    if accesses.iter().any(|&(i, _, _)| launch_sized(i)) {
        accesses.retain(|&(i, _, _)| launch_sized(i));
    }
    if accesses.is_empty() || size > MAX_LOOP {
        return None;
    }
    Some(Candidate {
        lp,
        step,
        exit,
        size,
        accesses,
        ivs,
        nested: loops.loop_depth(h) > 1,
    })
}

/// Whether an access at `a = c + K * iv + (invariants)` (`K` = `k`) touches only bytes of
/// element `iv` of an array of `K`-byte elements: `0 <= c + offset` and `c + offset + size
/// <= K` for its literal offset `c` (a `Var` stride: `c + offset = 0`). In a guarded loop,
/// `iv < n` is all that bounds the address, and `a[i]` for `i < n` is in range exactly when
/// the buffer holds `n` elements, the usual contract; `a[i + 256]` needs a fact the test
/// cannot see (SHOC's reduction reads it only where it holds) and would fail the test for
/// every access, so such an access keeps its check in the copy.
fn within_element(func: &Function, scope: &Scope, a: Value, k: Coef, m: &MemArg) -> bool {
    let Some(c) = literal_part(func, scope, a, MAX_EXPR) else {
        return false;
    };
    let lo = c + i64::from(m.offset);
    match k {
        Coef::Const(k) => lo >= 0 && lo + i64::from(m.size.bytes()) <= i64::from(k),
        Coef::Var => lo == 0,
    }
}

/// The literal constant `c` in an address `c + (terms in invariants and the induction
/// variable)` built by adds, subtracts, constant shifts and multiplies (None beyond `depth`
/// or past 2^40).
fn literal_part(func: &Function, scope: &Scope, v: Value, depth: usize) -> Option<i64> {
    if depth == 0 {
        return None;
    }
    let Some(i) = func.dfg.value_inst(v) else {
        return Some(0);
    };
    if scope.outside(v) {
        return Some(
            func.dfg
                .value_const(v)
                .map_or(0, |c| i64::from(c as u32 as i32)),
        );
    }
    let args = func.dfg.inst_args(i);
    let sub = |x: Value| literal_part(func, scope, x, depth - 1);
    let c = match func.dfg.opcode(i) {
        Opcode::Iconst => i64::from(func.dfg.value_const(v)? as u32 as i32),
        Opcode::Iadd => sub(args[0])? + sub(args[1])?,
        Opcode::Isub => sub(args[0])? - sub(args[1])?,
        Opcode::Ishl => sub(args[0])? << (func.dfg.value_const(args[1])? & 31),
        Opcode::Imul => match (func.dfg.value_const(args[0]), func.dfg.value_const(args[1])) {
            (_, Some(k)) => sub(args[0])? * i64::from(k as u32 as i32),
            (Some(k), _) => sub(args[1])? * i64::from(k as u32 as i32),
            _ => 0,
        },
        // An alignment mask keeps an aligned literal.
        Opcode::Band => sub(args[0])?,
        _ => 0,
    };
    (c.abs() < 1 << 40).then_some(c)
}

/// Versions loop `c`; returns the copy's header.
fn apply(func: &mut Function, c: &Candidate) -> Block {
    let lp = &c.lp;
    let h = lp.header;
    // The header's constants move to the preheader, where both versions (and the test) see
    // them.
    let pt = func
        .layout
        .last_inst(lp.pre)
        .expect("a counted loop's preheader ends in a branch");
    for &i in &lp.header_consts {
        func.layout.remove_inst(i);
        func.layout.insert_inst(i, pt);
    }
    let members: HashSet<Block> = std::iter::once(h).chain(lp.body.iter().copied()).collect();
    // The test block, between the preheader and the header.
    let test = func.dfg.make_block();
    func.layout.insert_block(test, h);
    let mut entry_args = Vec::new();
    for d in func.dfg.insts[pt].branch_destinations_mut() {
        if d.block == h {
            entry_args = d.args.to_vec();
            *d = BlockCall::new(test, &[]);
        }
    }
    let cond = emit_test(func, c, test, &members);
    // The copy, with the proven accesses marked.
    let blocks: Vec<Block> = std::iter::once(h).chain(lp.body.iter().copied()).collect();
    let mut map: HashMap<Value, Value> = HashMap::default();
    let (block_map, inst_map) = copy_blocks(func, &blocks, h, &mut map);
    for &(inst, _, _) in &c.accesses {
        let ni = inst_map[&inst];
        if let InstructionData::Load { mem, .. }
        | InstructionData::Store { mem, .. }
        | InstructionData::Atomic { mem, .. } = &mut func.dfg.insts[ni]
        {
            mem.inbounds = true;
        }
    }
    let copy = block_map[&h];
    // The checked original runs only when the test fails.
    for &b in &blocks {
        func.dfg.set_cold(b, true);
    }
    let mut cur = FuncCursor::new(func).at_end(test);
    // A warp enters the copy only when all its threads pass: the branch never diverges.
    let vote = cur.ins().vote_all(cond);
    cur.ins().brif(vote, copy, &entry_args, h, &entry_args);
    // Values of the header used after the loop come through a block both versions exit to.
    let escaping = escaping_values(func, h, &members, &block_map);
    if !escaping.is_empty() {
        // X's parameters: the exit's own arguments, then the escaping values.
        let x = func.dfg.make_block();
        func.layout.insert_block(x, c.exit);
        let exit_types: Vec<Type> = func
            .dfg
            .block_params(c.exit)
            .iter()
            .map(|&p| func.dfg.value_type(p))
            .collect();
        let exit_params: Vec<Value> = exit_types
            .into_iter()
            .map(|ty| func.dfg.append_block_param(x, ty))
            .collect();
        let params: Vec<Value> = escaping
            .iter()
            .map(|&v| {
                let ty = func.dfg.value_type(v);
                func.dfg.append_block_param(x, ty)
            })
            .collect();
        let copies: Vec<Value> = escaping.iter().map(|v| map[v]).collect();
        for (hb, vals) in [(h, &escaping), (copy, &copies)] {
            let t = func
                .layout
                .last_inst(hb)
                .expect("the header ends in its brif");
            for d in func.dfg.insts[t].branch_destinations_mut() {
                if d.block == c.exit {
                    let args: Vec<Value> = d.args.iter().chain(vals.iter()).copied().collect();
                    *d = BlockCall::new(x, &args);
                }
            }
        }
        let mut cur = FuncCursor::new(func).at_end(x);
        cur.ins().jump(c.exit, &exit_params);
        let rename: HashMap<Value, Value> = escaping
            .iter()
            .copied()
            .zip(params.iter().copied())
            .collect();
        let inside: HashSet<Block> = members
            .iter()
            .copied()
            .chain(block_map.values().copied())
            .chain([x])
            .collect();
        let outside: Vec<Block> = func
            .layout
            .blocks()
            .filter(|b| !inside.contains(b))
            .collect();
        for b in outside {
            let insts: Vec<Inst> = func.layout.block_insts(b).collect();
            for i in insts {
                func.dfg.insts[i].map_values(|v| rename.get(&v).copied().unwrap_or(v));
            }
        }
    }
    copy
}

/// Values defined in header `h` (its parameters and results) used outside the loop and its
/// copy: only the header's values can be, since the loop leaves only from the header.
fn escaping_values(
    func: &Function,
    h: Block,
    members: &HashSet<Block>,
    block_map: &HashMap<Block, Block>,
) -> Vec<Value> {
    let copies: HashSet<Block> = block_map.values().copied().collect();
    let mut defined: Vec<Value> = func.dfg.block_params(h).to_vec();
    for i in func.layout.block_insts(h) {
        defined.extend_from_slice(func.dfg.inst_results(i));
    }
    let mut used: HashSet<Value> = HashSet::default();
    for b in func.layout.blocks() {
        if members.contains(&b) || copies.contains(&b) {
            continue;
        }
        for i in func.layout.block_insts(b) {
            let data = &func.dfg.insts[i];
            used.extend(data.args().iter().copied());
            for d in data.branch_destinations() {
                used.extend(d.args.iter().copied());
            }
        }
    }
    defined.into_iter().filter(|v| used.contains(v)).collect()
}

/// Emits the versioning test into `test` (module doc) and returns its `pred`.
fn emit_test(func: &mut Function, c: &Candidate, test: Block, members: &HashSet<Block>) -> Value {
    let lp = &c.lp;
    let init = lp.init;
    let n = lp.bound;
    let mut cur = FuncCursor::new(func).at_end(test);
    let one = cur.ins().iconst(Type::B32, 1);
    let last = cur.ins().isub(n, one);
    let mut all = Conj::default();
    let mut subst: HashMap<Value, [Value; 3]> = HashMap::default();
    let (big_j, const_j) = match c.step {
        Some(step) => {
            let t = cur.ins().isub(last, init);
            // J: the last iteration's number (when the loop runs at all).
            let big_j = match step {
                1 => t,
                // `t / s` as shifts or a multiply-high (later passes do not reduce divisions).
                s => crate::strength_reduce::udiv(&mut cur, t, s),
            };
            // J when the start and the bound are constants (and the loop runs).
            let const_j = match (cur.func.dfg.value_const(init), cur.func.dfg.value_const(n)) {
                (Some(i0), Some(n0)) => {
                    let (i0, n0) = (i0 as u32, n0 as u32);
                    let runs = if lp.signed {
                        (i0 as i32) < (n0 as i32)
                    } else {
                        i0 < n0
                    };
                    runs.then(|| (n0.wrapping_sub(1).wrapping_sub(i0)) / step)
                }
                _ => None,
            };
            for iv in &c.ivs {
                // A constant step may be defined in the loop: materialize it here.
                let step = match iv.coef {
                    Coef::Const(k) => cur.ins().iconst(Type::B32, u64::from(k)),
                    Coef::Var => iv.step,
                };
                let second = cur.ins().iadd(iv.init, step);
                let grown = cur.ins().imul(step, big_j);
                let at_last = cur.ins().iadd(iv.init, grown);
                subst.insert(iv.param, [iv.init, second, at_last]);
            }
            if step > 1 {
                let max: u64 = if lp.signed { 0x7fff_ffff } else { 0xffff_ffff };
                let lim = cur.ins().iconst(Type::B32, max - u64::from(step - 1));
                let cc = if lp.signed { IntCC::Sle } else { IntCC::Ule };
                all.and(cc, n, lim);
            }
            (big_j, const_j)
        }
        // A guarded loop: `iv` takes values in `[0, n - 1]` only, so the addresses, affine in
        // `iv`, are those of `iv = 0, 1, .., n - 1` at most.
        None => {
            let zero = cur.ins().iconst(Type::B32, 0);
            subst.insert(lp.iv_value, [zero, one, last]);
            let const_j = cur
                .func
                .dfg
                .value_const(n)
                .and_then(|n0| (n0 as u32).checked_sub(1));
            (last, const_j)
        }
    };
    let mut ev = Eval {
        members,
        subst,
        memo: HashMap::default(),
    };
    let two31 = cur.ins().iconst(Type::B32, 1 << 31);
    let mut lens: HashMap<MemSpace, Value> = HashMap::default();
    let mut coef_done: HashSet<u32> = HashSet::default();
    let mut var_done: HashSet<Value> = HashSet::default();
    // Accesses at one address in one space (a vector's words, neighbours at `a + c` folded
    // into offsets) share one test: the lowest offset and the highest end.
    let mut groups: Vec<(Value, MemSpace, Coef, i64, i64)> = Vec::new();
    for &(inst, a, k) in &c.accesses {
        let m = *func.dfg.insts[inst]
            .mem_arg()
            .expect("accesses are memory instructions");
        let (off, end) = (
            i64::from(m.offset),
            i64::from(m.offset) + i64::from(m.size.bytes()),
        );
        match groups.iter_mut().find(|g| g.0 == a && g.1 == m.space) {
            Some(g) => {
                g.3 = g.3.min(off);
                g.4 = g.4.max(end);
            }
            None => groups.push((a, m.space, k, off, end)),
        }
    }
    for (a, space, k, off, end) in groups {
        let f = ev.eval(func, test, a, At::First);
        let l = ev.eval(func, test, a, At::Last);
        let mut cur = FuncCursor::new(func).at_end(test);
        // No wrap: F < 2^31 and K * t < 2^31.
        all.and(IntCC::Ult, f, two31);
        match k {
            Coef::Const(0) => {}
            // K * J < 2^31: a fact when both are known, one compare when one is.
            Coef::Const(k) => match const_j {
                Some(j) if u64::from(k) * u64::from(j) < 1 << 31 => {}
                _ => {
                    if coef_done.insert(k) {
                        let q = cur
                            .ins()
                            .iconst(Type::B32, u64::from(((1u32 << 31) - 1) / k));
                        all.and(IntCC::Ule, big_j, q);
                    }
                }
            },
            // Addresses that differ by an invariant grow alike: one test per growth.
            Coef::Var if !var_done.insert(growth_root(func, members, a)) => {}
            Coef::Var => {
                let f1 = ev.eval(func, test, a, At::Second);
                let mut cur = FuncCursor::new(func).at_end(test);
                let kv = cur.ins().isub(f1, f);
                match const_j {
                    Some(0) => {}
                    Some(j) => {
                        let q = cur
                            .ins()
                            .iconst(Type::B32, u64::from(((1u32 << 31) - 1) / j));
                        all.and(IntCC::Ule, kv, q);
                    }
                    None => {
                        let hi = cur.ins().umulhi(kv, big_j);
                        let lo = cur.ins().imul(kv, big_j);
                        let zero = cur.ins().iconst(Type::B32, 0);
                        all.and(IntCC::Eq, hi, zero);
                        all.and(IntCC::Ult, lo, two31);
                    }
                }
            }
        }
        let mut cur = FuncCursor::new(func).at_end(test);
        // F + off >= 0.
        if off < 0 {
            let neg = cur.ins().iconst(Type::B32, off.unsigned_abs());
            all.and(IntCC::Uge, f, neg);
        }
        // L + off + sz <= len, without wrap (len < 2^31).
        let known = static_len(cur.func, space);
        let len = *lens.entry(space).or_insert_with(|| match known {
            Some(n) => cur.ins().iconst(Type::B32, u64::from(n)),
            None => cur.ins().special(SpecialReg::BufLen(space)),
        });
        if end > 0 {
            let e = cur.ins().iconst(Type::B32, end as u64);
            all.and(IntCC::Uge, len, e);
            let lim = cur.ins().isub(len, e);
            all.and(IntCC::Ule, l, lim);
        } else {
            let e = cur.ins().iconst(Type::B32, end.unsigned_abs());
            let lim = cur.ins().iadd(len, e);
            all.and(IntCC::Ule, l, lim);
        }
    }
    let mut cur = FuncCursor::new(func).at_end(test);
    all.finish(&mut cur, c.nested)
        .expect("every access adds a condition")
}

/// `a` without the loop-invariant addends of its top `iadd`s: an address growing as this
/// value does, per iteration.
fn growth_root(func: &Function, members: &HashSet<Block>, mut a: Value) -> Value {
    while let Some(i) = func.dfg.value_inst(a) {
        let InstructionData::Binary {
            opcode: Opcode::Iadd,
            args: [x, y],
        } = func.dfg.insts[i]
        else {
            break;
        };
        if crate::affine::defined_outside(func, members, y) {
            a = x;
        } else if crate::affine::defined_outside(func, members, x) {
            a = y;
        } else {
            break;
        }
    }
    a
}

/// A conjunction of compares, emitted by [`Conj::finish`] as one chain (one live `pred` at a
/// time; the backend folds each `pand` of a compare into the compare's instruction). A
/// compare already in the conjunction is not added twice.
#[derive(Default)]
pub(crate) struct Conj(Vec<(IntCC, Value, Value)>, HashSet<(IntCC, Value, Value)>);

impl Conj {
    /// Adds `icmp cc a, b`.
    pub(crate) fn and(&mut self, cc: IntCC, a: Value, b: Value) {
        if self.1.insert((cc, a, b)) {
            self.0.push((cc, a, b));
        }
    }

    /// Emits the conjunction at `cur`, in the order added, or with `invariant_first` the
    /// compares of invariants first (constants, buffer lengths, values of the entry block: a
    /// buffer holding at least the accessed bytes), so that LICM hoists that prefix out of
    /// the enclosing loops and the chain left in them is shorter (each link waits for the
    /// previous predicate). Not by default: a compare in the middle of the chain whose
    /// value is also used elsewhere cannot fold into the next one, which then costs a
    /// `PSETP`. None while empty.
    pub(crate) fn finish(&self, cur: &mut FuncCursor, invariant_first: bool) -> Option<Value> {
        let invariant = |f: &Function, v: Value| -> bool {
            let Some(i) = f.dfg.value_inst(v) else {
                return false;
            };
            match f.dfg.insts[i] {
                InstructionData::UnaryImm { .. } => true,
                InstructionData::Special {
                    reg: SpecialReg::BufLen(_),
                    ..
                } => true,
                _ => f.layout.inst_block(i).is_some() && f.layout.inst_block(i) == f.entry_block(),
            }
        };
        let (mut first, rest): (Vec<_>, Vec<_>) = self.0.iter().partition(|&&(_, a, b)| {
            invariant_first && invariant(cur.func, a) && invariant(cur.func, b)
        });
        first.extend(rest);
        let mut all: Option<Value> = None;
        for (cc, a, b) in first {
            let p = cur.ins().icmp(cc, a, b);
            all = Some(match all {
                Some(all) => cur.ins().pand(p, all),
                None => p,
            });
        }
        all
    }
}
