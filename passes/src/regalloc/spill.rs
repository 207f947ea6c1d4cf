//! Spilling before coloring (Braun & Hack, "Register Spilling and Live-Range Splitting for
//! SSA-Form Programs", 2009), followed by SSA reconstruction of the reloaded values.
//!
//! Per register file, a set `W` of values in registers is tracked through every block in
//! reverse post-order, its size (in registers, a `b64` counts 2) never exceeding the budget
//! `K`:
//! - on entry, `W` is the predecessor's exit set (single predecessor) or the live-in values
//!   with the nearest next use, preferring values in registers in all processed
//!   predecessors (merges and loop headers); block parameters are always in `W`;
//! - before an instruction, operands missing from `W` are reloaded, evicting the values in
//!   `W` whose next use is furthest (Belady's MIN); before its results are added, operands
//!   that die are removed (unless the target marks the results early-clobber) and further
//!   values are evicted as needed; the moves of an operand-group bundle count as defining
//!   the whole group at the first move;
//! - on every edge into a merge, values the merge expects in registers but missing from
//!   the predecessor's exit set are reloaded before the predecessor's `jump`.
//!
//! Next-use distances are global (instruction counts, with a large penalty for leaving a
//! loop), computed by a fixpoint over the CFG. A value reloaded anywhere is stored once,
//! right after its definition; a rematerializable definition (constants) is re-executed
//! instead of reloaded and never stored. Reloads define new values; uses are then renamed to
//! the nearest reaching definition, adding block parameters at merges (the reconstruction
//! of Braun et al. 2013, iterative, no recursion).
//!
//! Guarantees: the function is strict SSA again; at every point the values live in each
//! register file need at most `K` registers, counting an instruction's early-clobber results
//! together with its operands, and an operand-group bundle's members from its first move.

use crate::FastHashMap as HashMap;
use std::collections::VecDeque;

use cranelift_entity::{EntityRef, SecondaryMap};

use super::liveness::{def_block, Liveness};
use super::prepare::Bundles;
use super::{insert_inst, Allocation, EditKind, Failure, InsertAt, RegAllocError};
use crate::ir::{
    Analyses, Block, ControlFlowGraph, DominatorTree, Function, Inst, LoopInfo, PerRegFile,
    RegFile, Value, ValueDef,
};
use crate::target::TargetIsa;

/// Distance meaning "never used again".
const INF: u32 = u32::MAX / 4;
/// Distance added when an edge leaves a loop (values used after a loop are far away from
/// the point of view of the loop body).
const LOOP_EXIT_PENALTY: u32 = 100_000;

/// What later phases need from spilling.
#[derive(Copy, Clone, Debug, Default)]
pub struct SpillInfo {
    /// Bytes of the spill area used so far.
    pub area_bytes: u32,
}

/// Per-block data used while spilling.
/// Use positions of one value in one block.
type UsePos = smallvec::SmallVec<[u32; 2]>;

struct BlockInfo {
    insts: Vec<Inst>,
    /// Use positions of every value used in the block (sorted; inline for the usual one or
    /// two uses, a heap Vec per value was the spiller's largest allocation count).
    use_pos: HashMap<Value, UsePos>,
    /// Next-use distance at entry of each `live_in` value (parallel to it).
    nu_in: Vec<u32>,
}

struct Spiller<'a> {
    target: &'a dyn TargetIsa,
    bundles: &'a Bundles,
    budget: PerRegFile<u32>,
    lv: Liveness,
    info: SecondaryMap<Block, Option<usize>>,
    blocks: Vec<BlockInfo>,
    loops: &'a LoopInfo,
    cfg: &'a ControlFlowGraph,
    w_entry: SecondaryMap<Block, Vec<Value>>,
    w_exit: SecondaryMap<Block, Vec<Value>>,
    /// Blocks whose exit set is known.
    processed: SecondaryMap<Block, bool>,
    /// Reloads to insert: value, position.
    reloads: Vec<(Value, InsertAt)>,
}

fn footprint(func: &Function, target: &dyn TargetIsa, v: Value) -> (RegFile, u32) {
    let fp = target.footprint(func.dfg.value_type(v));
    (fp.file, u32::from(fp.width))
}

/// Runs spilling with register budget `budget`. When it inserts nothing, also returns the
/// liveness of `func` it computed (still `func`'s: coloring's setup need not compute it).
pub fn run(
    func: &mut Function,
    target: &dyn TargetIsa,
    bundles: &Bundles,
    budget: PerRegFile<u32>,
    alloc: &mut Allocation,
    analyses: &mut Analyses,
) -> Result<(SpillInfo, Option<Liveness>), Failure> {
    // Spill code adds instructions and block parameters, never edges: the CFG stays valid.
    let (cfg, dt, loops) = analyses.loops(func);
    let lv = Liveness::compute(func, cfg);
    // A value live into the entry block has no definition on some path (not strict SSA).
    if let Some(&v) = func.entry_block().and_then(|e| lv.live_in[e].first()) {
        let inst = func
            .insts_in_layout()
            .into_iter()
            .find(|&i| func.dfg.insts[i].all_values().any(|x| x == v))
            .unwrap_or_else(|| Inst::new(0));
        return Err(RegAllocError::UndefinedValue { value: v, inst }.into());
    }
    if fits_without_spilling(func, target, &lv, bundles, budget, dt.rpo()) {
        // The full walk below would insert nothing (checked in debug builds).
        if cfg!(debug_assertions) {
            let mut sp = Spiller::new(target, bundles, budget, lv.clone(), loops, cfg);
            sp.walk(func, dt)?;
            debug_assert!(sp.reloads.is_empty(), "spilling where every block fits");
        }
        return Ok((SpillInfo::default(), Some(lv)));
    }
    let mut sp = Spiller::new(target, bundles, budget, lv, loops, cfg);
    sp.walk(func, dt)?;
    let reloads = std::mem::take(&mut sp.reloads);
    Ok((insert_spill_code(func, cfg, target, reloads, alloc)?, None))
}

/// True if the walk below would insert no reload: no next-use distance can reach [`INF`],
/// and at every instruction of every reachable block the values live before it, its
/// results (a bundle head: every member of the bundle) and the block's parameters fit each
/// register file's budget together. The set `W` only ever holds values live at the point
/// (and the block parameters, and the results being defined), so then nothing is evicted and
/// every live-in value is in its predecessors' exit sets. Small kernels skip the walk (its
/// per-block maps and the next-use fixpoint were most of the allocator's time on them).
fn fits_without_spilling(
    func: &Function,
    target: &dyn TargetIsa,
    lv: &Liveness,
    bundles: &Bundles,
    budget: PerRegFile<u32>,
    rpo: &[Block],
) -> bool {
    // A shortest path visits a block once: its distance is at most every instruction plus
    // one loop-exit penalty per block, which must stay below `INF`.
    let bound = (func.dfg.num_insts() as u64)
        .saturating_add((rpo.len() as u64).saturating_mul(u64::from(LOOP_EXIT_PENALTY)));
    if bound >= u64::from(INF) {
        return false;
    }
    const FILES: usize = RegFile::ALL.len();
    let add = |sum: &mut [u32; FILES], v: Value| {
        let (file, n) = footprint(func, target, v);
        sum[file as usize] += n;
    };
    // `live[v] == stamp`: `v` is live at the current point of the block numbered `stamp`.
    let mut live: SecondaryMap<Value, u32> = SecondaryMap::with_capacity(func.dfg.num_values());
    let mut insts: Vec<Inst> = Vec::new();
    for (n, &b) in rpo.iter().enumerate() {
        let stamp = n as u32 + 1;
        let mut params = [0u32; FILES];
        for &v in func.dfg.block_params(b) {
            add(&mut params, v);
        }
        let mut used = [0u32; FILES];
        for &v in &lv.live_out[b] {
            live[v] = stamp;
            add(&mut used, v);
        }
        insts.clear();
        insts.extend(func.layout.block_insts(b));
        for &inst in insts.iter().rev() {
            let mut defs = [0u32; FILES];
            for &r in func.dfg.inst_results(inst) {
                add(&mut defs, r);
                if live[r] == stamp {
                    live[r] = 0;
                    let (file, n) = footprint(func, target, r);
                    used[file as usize] -= n;
                }
            }
            for v in func.dfg.insts[inst].all_values() {
                if live[v] != stamp {
                    live[v] = stamp;
                    add(&mut used, v);
                }
            }
            if let Some(bd) = bundles.of_move[inst].map(|i| &bundles.list[i as usize]) {
                if bd.head == inst {
                    defs = [0; FILES];
                    for &m in &bd.members {
                        add(&mut defs, m);
                    }
                }
            }
            if RegFile::ALL
                .iter()
                .any(|&f| used[f as usize] + defs[f as usize] + params[f as usize] > budget[f])
            {
                return false;
            }
        }
    }
    true
}

impl<'a> Spiller<'a> {
    fn new(
        target: &'a dyn TargetIsa,
        bundles: &'a Bundles,
        budget: PerRegFile<u32>,
        lv: Liveness,
        loops: &'a LoopInfo,
        cfg: &'a ControlFlowGraph,
    ) -> Spiller<'a> {
        Spiller {
            target,
            bundles,
            budget,
            lv,
            info: SecondaryMap::new(),
            blocks: Vec::new(),
            loops,
            cfg,
            w_entry: SecondaryMap::new(),
            w_exit: SecondaryMap::new(),
            reloads: Vec::new(),
            processed: SecondaryMap::new(),
        }
    }

    /// Decides which values are in registers through every block and collects the reloads.
    fn walk(&mut self, func: &Function, dt: &DominatorTree) -> Result<(), Failure> {
        self.compute_next_uses(func, dt);
        for &b in dt.rpo() {
            self.process_block(func, b)?;
        }
        self.couple_edges(func, dt.rpo());
        Ok(())
    }
}

impl Spiller<'_> {
    fn bi(&self, b: Block) -> &BlockInfo {
        // Every reachable block got an entry in `compute_next_uses`.
        &self.blocks[self.info[b].expect("block info")]
    }

    fn compute_next_uses(&mut self, func: &Function, dt: &DominatorTree) {
        for &b in dt.rpo() {
            let insts: Vec<Inst> = func.layout.block_insts(b).collect();
            let mut use_pos: HashMap<Value, UsePos> =
                HashMap::with_capacity_and_hasher(2 * insts.len(), Default::default());
            for (p, &inst) in insts.iter().enumerate() {
                for v in func.dfg.insts[inst].all_values() {
                    let e = use_pos.entry(v).or_default();
                    if e.last() != Some(&(p as u32)) {
                        e.push(p as u32);
                    }
                }
            }
            let nu_in = vec![INF; self.lv.live_in[b].len()];
            self.info[b] = Some(self.blocks.len());
            self.blocks.push(BlockInfo {
                insts,
                use_pos,
                nu_in,
            });
        }
        // Fixpoint: nu_in(b, v) = first use in b, else len(b) + min over successors.
        let post: Vec<Block> = dt.rpo().iter().rev().copied().collect();
        let mut changed = true;
        while changed {
            changed = false;
            for &b in &post {
                let idx = self.info[b].expect("block info");
                let len = self.blocks[idx].insts.len() as u32;
                for k in 0..self.lv.live_in[b].len() {
                    let v = self.lv.live_in[b][k];
                    let d = match self.blocks[idx].use_pos.get(&v) {
                        Some(ps) => ps[0],
                        None => len.saturating_add(self.nu_out(func, b, v)).min(INF),
                    };
                    if d < self.blocks[idx].nu_in[k] {
                        self.blocks[idx].nu_in[k] = d;
                        changed = true;
                    }
                }
            }
        }
    }

    /// Next-use distance of `v` at the exit of `b` (INF if dead there).
    fn nu_out(&self, func: &Function, b: Block, v: Value) -> u32 {
        let _ = func;
        let mut best = INF;
        for &s in self.cfg.succs(b) {
            let Some(idx) = self.info[s] else { continue };
            if let Ok(k) = self.lv.live_in[s].binary_search(&v) {
                let mut d = self.blocks[idx].nu_in[k];
                if self.loops.loop_depth(s) < self.loops.loop_depth(b) {
                    d = d.saturating_add(LOOP_EXIT_PENALTY);
                }
                best = best.min(d);
            }
        }
        best
    }

    /// Next use of `v` at or after position `p` of block `b`.
    fn next_use(&self, func: &Function, b: Block, v: Value, p: u32) -> u32 {
        let bi = self.bi(b);
        if let Some(ps) = bi.use_pos.get(&v) {
            let i = ps.partition_point(|&x| x < p);
            if i < ps.len() {
                return ps[i] - p;
            }
        }
        if self.lv.is_live_out(b, v) {
            (bi.insts.len() as u32 - p).saturating_add(self.nu_out(func, b, v))
        } else {
            INF
        }
    }

    fn size(&self, func: &Function, w: &[Value], file: RegFile) -> u32 {
        w.iter()
            .map(|&v| footprint(func, self.target, v))
            .filter(|&(f, _)| f == file)
            .map(|(_, n)| n)
            .sum()
    }

    fn entry_set(&self, func: &Function, b: Block) -> Result<Vec<Value>, Failure> {
        let preds = self.cfg.preds(b);
        let params: Vec<Value> = func.dfg.block_params(b).to_vec();
        let bi = self.bi(b);
        let live_in = &self.lv.live_in[b];
        // (value, pred-count where absent, next use)
        let mut cands: Vec<(Value, u32, u32)> = Vec::new();
        let processed: Vec<&Vec<Value>> = preds
            .iter()
            .filter(|&&p| self.info[p].is_some() && self.w_exit_done(p))
            .map(|&p| &self.w_exit[p])
            .collect();
        let single = preds.len() == 1;
        let header = self.loops.is_header(b);
        for (k, &v) in live_in.iter().enumerate() {
            let absent = processed
                .iter()
                .filter(|w| w.binary_search(&v).is_err())
                .count() as u32;
            if single && absent > 0 {
                continue;
            }
            let absent_key = if header { 0 } else { absent };
            cands.push((v, absent_key, bi.nu_in[k]));
        }
        cands.sort_by_key(|&(v, a, d)| (a, d, v));
        let mut w = params.clone();
        for file in RegFile::ALL {
            let k = self.budget[file];
            let used = self.size(func, &params, file);
            if used > k {
                let inst = func.layout.first_inst(b).or_else(|| func.terminator(b));
                return Err(RegAllocError::TooManyOperands {
                    inst: inst.unwrap_or_else(|| Inst::new(0)),
                    file,
                    needed: used,
                    available: k,
                }
                .into());
            }
            let mut used = used;
            for &(v, _, d) in &cands {
                let (f, n) = footprint(func, self.target, v);
                if f != file || d >= INF {
                    continue;
                }
                if used + n <= k {
                    used += n;
                    w.push(v);
                }
            }
        }
        w.sort_unstable();
        Ok(w)
    }

    fn w_exit_done(&self, b: Block) -> bool {
        self.processed[b]
    }
}

impl Spiller<'_> {
    /// Evicts values of `file` from `w` (never those in `keep`) until `extra` more registers
    /// fit; furthest next use first.
    #[allow(clippy::too_many_arguments)]
    fn make_room(
        &self,
        func: &Function,
        b: Block,
        p: u32,
        w: &mut Vec<Value>,
        keep: &[Value],
        file: RegFile,
        extra: u32,
        inst: Inst,
    ) -> Result<(), Failure> {
        let k = self.budget[file];
        let mut used = self.size(func, w, file);
        if used + extra <= k {
            return Ok(());
        }
        let mut cands: Vec<(u32, Value)> = w
            .iter()
            .copied()
            .filter(|v| !keep.contains(v) && footprint(func, self.target, *v).0 == file)
            .filter(|v| !self.is_bundle_member(func, *v))
            .map(|v| (self.next_use(func, b, v, p), v))
            .collect();
        // Furthest first; ties by value number.
        cands.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        for (_, v) in cands {
            if used + extra <= k {
                break;
            }
            used -= footprint(func, self.target, v).1;
            w.retain(|&x| x != v);
        }
        if used + extra > k {
            return Err(RegAllocError::TooManyOperands {
                inst,
                file,
                needed: used + extra,
                available: k,
            }
            .into());
        }
        Ok(())
    }

    fn is_bundle_member(&self, func: &Function, v: Value) -> bool {
        match func.dfg.value_def(v) {
            ValueDef::Result(i, _) => self.bundles.of_move[i].is_some(),
            _ => false,
        }
    }

    fn process_block(&mut self, func: &Function, b: Block) -> Result<(), Failure> {
        let mut w = self.entry_set(func, b)?;
        self.w_entry[b] = w.clone();
        let insts = self.bi(b).insts.clone();
        for (p, &inst) in insts.iter().enumerate() {
            let p = p as u32;
            let data = &func.dfg.insts[inst];
            let bundle = self.bundles.of_move[inst].map(|i| &self.bundles.list[i as usize]);
            if let Some(bd) = bundle {
                if bd.head != inst {
                    // Sources were made resident at the head; nothing is defined here.
                    self.drop_dead(func, b, p, &mut w, data.all_values().collect());
                    continue;
                }
            }
            // Operands (for a bundle head: the sources of all its moves).
            let mut uses: Vec<Value> = match bundle {
                Some(bd) => bd
                    .members
                    .iter()
                    .map(|&m| {
                        let mi = func.dfg.value_inst(m).expect("bundle member is a result");
                        func.dfg.inst_args(mi)[0]
                    })
                    .collect(),
                None => data.all_values().collect(),
            };
            uses.sort_unstable();
            uses.dedup();
            let defs: Vec<Value> = match bundle {
                Some(bd) => bd.members.clone(),
                None => func.dfg.inst_results(inst).to_vec(),
            };
            let early = bundle.is_none() && self.target.constraints(func, inst).results_early;
            for file in RegFile::ALL {
                let missing: Vec<Value> = uses
                    .iter()
                    .copied()
                    .filter(|v| footprint(func, self.target, *v).0 == file)
                    .filter(|v| w.binary_search(v).is_err())
                    .collect();
                let need: u32 = missing
                    .iter()
                    .map(|&v| footprint(func, self.target, v).1)
                    .sum();
                self.make_room(func, b, p, &mut w, &uses, file, need, inst)?;
                for v in missing {
                    self.reloads.push((v, InsertAt::Before(inst)));
                    let at = w.partition_point(|&x| x < v);
                    w.insert(at, v);
                }
            }
            // Operands dying here (for a bundle: sources not used after its last move; the
            // colorer reuses their registers for the group).
            let end = p + bundle.map_or(1, |bd| bd.members.len() as u32);
            let dying: Vec<Value> = uses
                .iter()
                .copied()
                .filter(|&v| self.next_use(func, b, v, end) >= INF)
                .collect();
            if !early {
                w.retain(|v| !dying.contains(v));
            }
            for file in RegFile::ALL {
                let need: u32 = defs
                    .iter()
                    .map(|&v| footprint(func, self.target, v))
                    .filter(|&(f, _)| f == file)
                    .map(|(_, n)| n)
                    .sum();
                // Bundle sources are read by the later moves: never evict them here.
                let keep: &[Value] = if early || bundle.is_some() {
                    &uses
                } else {
                    &[]
                };
                self.make_room(func, b, p, &mut w, keep, file, need, inst)?;
            }
            w.extend(defs.iter().copied());
            w.sort_unstable();
            w.dedup();
            if early {
                w.retain(|v| !dying.contains(v));
            }
            // Results never used again leave at once.
            let dead: Vec<Value> = defs
                .iter()
                .copied()
                .filter(|&v| self.next_use(func, b, v, p + 1) >= INF)
                .filter(|&v| bundle.is_none() || self.next_use(func, b, v, p + 1) >= INF)
                .collect();
            w.retain(|v| !dead.contains(v));
        }
        self.w_exit[b] = w;
        self.processed[b] = true;
        Ok(())
    }

    /// Removes values used at `p` that are never used again.
    fn drop_dead(&self, func: &Function, b: Block, p: u32, w: &mut Vec<Value>, used: Vec<Value>) {
        for v in used {
            if self.next_use(func, b, v, p + 1) >= INF {
                w.retain(|&x| x != v);
            }
        }
    }

    /// Reloads on edges into merges for values the merge expects in registers.
    fn couple_edges(&mut self, func: &Function, rpo: &[Block]) {
        for &s in rpo {
            let preds = self.cfg.preds(s);
            if preds.len() < 2 {
                continue;
            }
            for &p in preds {
                // Preparation guarantees `p` ends in a `jump` to `s`.
                let Some(term) = func.terminator(p) else {
                    continue;
                };
                for &v in &self.w_entry[s] {
                    if func.dfg.block_params(s).contains(&v) {
                        continue;
                    }
                    if self.w_exit[p].binary_search(&v).is_err() {
                        self.reloads.push((v, InsertAt::Before(term)));
                    }
                }
            }
        }
    }
}

/// Inserts reloads and spill stores, then rebuilds SSA form.
fn insert_spill_code(
    func: &mut Function,
    cfg: &ControlFlowGraph,
    target: &dyn TargetIsa,
    reloads: Vec<(Value, InsertAt)>,
    alloc: &mut Allocation,
) -> Result<SpillInfo, Failure> {
    let mut info = SpillInfo::default();
    if reloads.is_empty() {
        return Ok(info);
    }
    // Slots, in value order for determinism.
    let mut spilled: Vec<Value> = reloads.iter().map(|&(v, _)| v).collect();
    spilled.sort_unstable();
    spilled.dedup();
    let mut slot: SecondaryMap<Value, Option<u32>> = SecondaryMap::new();
    let mut remat: SecondaryMap<Value, bool> = SecondaryMap::new();
    for &v in &spilled {
        let def = func.dfg.value_inst(v);
        let can_remat = def.is_some_and(|i| super::rematerializable(func, target, i));
        if can_remat {
            remat[v] = true;
        }
    }
    // Slot sharing: a value's slot is in use from its store (right after the definition)
    // to its last reload, all inside the value's live range before spilling; so values
    // whose live ranges do not interfere (neither live at the other's definition) can
    // share a slot.
    let stored: Vec<Value> = spilled.iter().copied().filter(|&v| !remat[v]).collect();
    let conflicts = slot_conflicts(func, cfg, &stored);
    let mut slots: Vec<(u32, u32, Vec<Value>)> = Vec::new();
    for &v in &stored {
        let ty = func.dfg.value_type(v);
        let size = target.spill_size(ty).max(1);
        // Bounded search (recent slots, few users each) keeps this linear in practice.
        let n = slots.len();
        let shared = slots[n.saturating_sub(32)..]
            .iter_mut()
            .find(|(_, sz, users)| {
                *sz == size
                    && users.len() < 16
                    && users
                        .iter()
                        .all(|&u| !conflicts.contains(&(u.min(v), u.max(v))))
            });
        match shared {
            Some((off, _, users)) => {
                users.push(v);
                slot[v] = Some(*off);
            }
            None => {
                let align = size.next_power_of_two().min(16);
                let off = info.area_bytes.div_ceil(align) * align;
                slot[v] = Some(off);
                info.area_bytes = off + size;
                slots.push((off, size, vec![v]));
            }
        }
    }
    // Versions of each spilled value: (value, defining instruction or block start).
    let mut versions: SecondaryMap<Value, Vec<Value>> = SecondaryMap::new();
    for (v, at) in reloads {
        let ty = func.dfg.value_type(v);
        let (data, kind) = if remat[v] {
            // Rematerializable values have a defining instruction (checked above).
            let def = func.dfg.value_inst(v).expect("remat def");
            // A rematerialization of a rematerialization recomputes the same input value.
            let of = match alloc.edits[def] {
                EditKind::Remat(o) => o,
                _ => v,
            };
            (func.dfg.insts[def].clone(), EditKind::Remat(of))
        } else {
            let off = slot[v].expect("slot assigned to every spilled value");
            (
                target.make_reload(ty, off),
                EditKind::Reload { offset: off },
            )
        };
        let inst = insert_inst(func, data, at, kind, alloc);
        super::check_made(func, inst, &[], Some(ty), "reload")?;
        versions[v].push(func.dfg.inst_results(inst)[0]);
        alloc.num_reloads += 1;
    }
    // Spill stores right after the definitions.
    for &v in &spilled {
        let Some(off) = slot[v] else { continue };
        let ty = func.dfg.value_type(v);
        let at = match func.dfg.value_def(v) {
            ValueDef::Result(i, _) => InsertAt::After(i),
            ValueDef::Param(b, _) => InsertAt::BlockStart(b),
            ValueDef::Detached => continue,
        };
        let data = target.make_spill(ty, v, off);
        let inst = insert_inst(func, data, at, EditKind::Spill { offset: off }, alloc);
        super::check_made(func, inst, &[v], None, "spill")?;
        alloc.num_spills += 1;
    }
    reconstruct_ssa(func, cfg, &spilled, &versions, alloc)?;
    remove_dead_reloads(func, alloc);
    Ok(info)
}

/// Deletes reloads and rematerializations whose result ended up unused (an edge reload for
/// a value the destination evicts again before using it).
fn remove_dead_reloads(func: &mut Function, alloc: &mut Allocation) {
    let mut used: SecondaryMap<Value, bool> = SecondaryMap::new();
    let insts = func.insts_in_layout();
    for &inst in &insts {
        for v in func.dfg.insts[inst].all_values() {
            used[v] = true;
        }
    }
    for inst in insts {
        if matches!(
            alloc.edits[inst],
            EditKind::Reload { .. } | EditKind::Remat(_)
        ) && !used[func.dfg.inst_results(inst)[0]]
        {
            func.layout.remove_inst(inst);
            alloc.num_reloads -= 1;
        }
    }
}

/// Pairs `(a, b)` with `a < b` of values in `vals` that interfere: one is live where the
/// other is defined (block parameters of one block all interfere with each other and with
/// the block's live-in values).
fn slot_conflicts(
    func: &Function,
    cfg: &ControlFlowGraph,
    vals: &[Value],
) -> std::collections::HashSet<(Value, Value)> {
    let mut out = std::collections::HashSet::default();
    if vals.len() < 2 {
        return out;
    }
    let mut wanted: SecondaryMap<Value, bool> = SecondaryMap::new();
    for &v in vals {
        wanted[v] = true;
    }
    let lv = Liveness::compute(func, cfg);
    let mut add = |a: Value, b: Value| {
        if a != b {
            out.insert((a.min(b), a.max(b)));
        }
    };
    for b in func.layout.blocks() {
        let mut live: std::collections::BTreeSet<Value> = lv.live_out[b]
            .iter()
            .copied()
            .filter(|&v| wanted[v])
            .collect();
        let insts: Vec<Inst> = func.layout.block_insts(b).collect();
        for &inst in insts.iter().rev() {
            for &r in func.dfg.inst_results(inst) {
                if wanted[r] {
                    for &u in &live {
                        add(r, u);
                    }
                }
            }
            for &r in func.dfg.inst_results(inst) {
                live.remove(&r);
            }
            for v in func.dfg.insts[inst].all_values() {
                if wanted[v] {
                    live.insert(v);
                }
            }
        }
        let params: Vec<Value> = func
            .dfg
            .block_params(b)
            .iter()
            .copied()
            .filter(|&p| wanted[p])
            .collect();
        for &p in &params {
            for &u in live.iter().chain(&params) {
                add(p, u);
            }
        }
    }
    out
}

/// Renames every use of the spilled values to the nearest reaching version.
fn reconstruct_ssa(
    func: &mut Function,
    cfg: &ControlFlowGraph,
    spilled: &[Value],
    versions: &SecondaryMap<Value, Vec<Value>>,
    alloc: &mut Allocation,
) -> Result<(), Failure> {
    let mut is_spilled: SecondaryMap<Value, bool> = SecondaryMap::new();
    for &v in spilled {
        is_spilled[v] = true;
    }
    // Uses of spilled values, in layout order.
    let mut uses: HashMap<Value, Vec<Inst>> = HashMap::default();
    for b in func.layout.blocks() {
        for inst in func.layout.block_insts(b) {
            let mut seen: Vec<Value> = Vec::new();
            for v in func.dfg.insts[inst].all_values() {
                if is_spilled[v] && !seen.contains(&v) {
                    seen.push(v);
                    uses.entry(v).or_default().push(inst);
                }
            }
        }
    }
    let entry = func.entry_block().ok_or(RegAllocError::NoEntry)?;
    for &v in spilled {
        let Some(use_list) = uses.get(&v) else {
            continue;
        };
        let mut r = Rebuild {
            v,
            defs: HashMap::default(),
            memo: HashMap::default(),
            queue: VecDeque::new(),
            entry,
        };
        if let Some(b) = def_block(func, v) {
            r.defs.entry(b).or_default().push(v);
        }
        for &ver in &versions[v] {
            if let Some(b) = def_block(func, ver) {
                r.defs.entry(b).or_default().push(ver);
            }
        }
        for &u in use_list {
            let b = func.layout.inst_block(u).expect("use in layout");
            let d = r.lookup(func, cfg, b, Some(u), alloc)?;
            if d != v {
                func.dfg.insts[u].map_values(|x| if x == v { d } else { x });
            }
            r.drain(func, cfg, alloc)?;
        }
        r.drain(func, cfg, alloc)?;
    }
    Ok(())
}

struct Rebuild {
    v: Value,
    defs: HashMap<Block, Vec<Value>>,
    memo: HashMap<Block, Value>,
    queue: VecDeque<(Block, Value)>,
    entry: Block,
}

impl Rebuild {
    /// The latest version defined in `b` before `before` (end of block if `None`).
    fn local(&self, func: &Function, b: Block, before: Option<Inst>) -> Option<Value> {
        let defs = self.defs.get(&b)?;
        let mut best: Option<(Option<Inst>, Value)> = None;
        for &d in defs {
            let di = func.dfg.value_inst(d);
            if let (Some(di), Some(u)) = (di, before) {
                if func.layout.cmp_in_block(di, u) != core::cmp::Ordering::Less {
                    continue;
                }
            }
            let later = match (best, di) {
                (None, _) => true,
                (Some((None, _)), _) => true,
                (Some((Some(_), _)), None) => false,
                (Some((Some(bi), _)), Some(di)) => {
                    func.layout.cmp_in_block(bi, di) == core::cmp::Ordering::Less
                }
            };
            if later {
                best = Some((di, d));
            }
        }
        best.map(|(_, d)| d)
    }

    fn lookup(
        &mut self,
        func: &mut Function,
        cfg: &ControlFlowGraph,
        b: Block,
        before: Option<Inst>,
        alloc: &mut Allocation,
    ) -> Result<Value, Failure> {
        let mut b = b;
        let mut before = before;
        loop {
            if let Some(d) = self.local(func, b, before) {
                return Ok(d);
            }
            if let Some(&d) = self.memo.get(&b) {
                return Ok(d);
            }
            let preds = cfg.preds(b);
            if b == self.entry || preds.is_empty() {
                let inst = before
                    .or_else(|| func.terminator(b))
                    .unwrap_or(Inst::new(0));
                return Err(RegAllocError::UndefinedValue {
                    value: self.v,
                    inst,
                }
                .into());
            }
            if preds.len() == 1 {
                b = preds[0];
                before = None;
                continue;
            }
            let ty = func.dfg.value_type(self.v);
            let q = func.dfg.append_block_param(b, ty);
            alloc.param_origin[q] = Some(self.v);
            self.memo.insert(b, q);
            self.queue.push_back((b, q));
            return Ok(q);
        }
    }

    /// Supplies the arguments of the block parameters created so far.
    fn drain(
        &mut self,
        func: &mut Function,
        cfg: &ControlFlowGraph,
        alloc: &mut Allocation,
    ) -> Result<(), Failure> {
        while let Some((b, _q)) = self.queue.pop_front() {
            for &p in cfg.preds(b) {
                let d = self.lookup(func, cfg, p, None, alloc)?;
                // Preparation guarantees a block with several predecessors is entered by
                // `jump`s (exactly one call per predecessor).
                let term = func.terminator(p).expect("predecessor has a terminator");
                for call in func.dfg.insts[term].branch_destinations_mut() {
                    if call.block == b {
                        call.args.push(d);
                    }
                }
            }
        }
        Ok(())
    }
}
