//! The execution core: runs a decoded [`ExecProgram`] over a whole dispatch.
//!
//! Groups run one after another (X fastest, then Y, then Z). Inside a group every
//! work-item has its own pc, temps, indexed temps and call stack; they advance according to
//! [`Schedule`] until each reaches a `fence_threads` barrier or ends, then the barrier is
//! released. In lock step every running work-item executes exactly one instruction per
//! round in id order, which matches a SIMD wavefront executing each instruction for all
//! lanes before the next; [`Schedule::Warps`] runs 32-wide (or any width) warps one after
//! another to their next barrier, the order the SPA 5.0 emulator can follow. Requires the decoder's invariants (see [`super::program`]);
//! guarantees that no input makes it panic: bad indices read 0, stores out of range are
//! dropped, runaway loops stop with [`InterpError::OutOfFuel`].

#![expect(
    clippy::needless_range_loop,
    reason = "component loops index several parallel vec4 arrays by the same lane"
)]

use std::collections::BTreeMap;

use super::dispatch::{
    Dispatch, InterpError, LdsRace, MemSpace, OobAccess, RunStats, Schedule, PERTURB_TRIG_ABS,
    PERTURB_ULPS,
};
use super::fops;
use super::iops::{bool32, join64, split64};
use super::memory::{self, Access, RaceTracker};
use super::program::{
    Addr, CompFn, Cond, Dst, DstComp, DstKind, ExecProgram, Index, Inst, Op, Rel, Space, Src,
    SrcKind, SrcMods, TexOp, Ty, WideFn,
};
use super::texture::{self, SamplerState, Texture};
use super::typed_uav::UavView;
use crate::ast::MATRIX_SHAPES;
use crate::opcodes::Precision;

/// Return-address stack depth: a call made with a full stack is skipped (L3498).
const CALL_DEPTH: usize = 32;
/// Cap on recorded OOB / race reports.
const REPORT_CAP: usize = 1000;
const ONE: u32 = 0x3F80_0000;
const TWO: u32 = 0x4000_0000;
/// The R7xx wavefront width that owner-computes LDS addressing is defined over.
const WAVE: u64 = 64;
/// Id under which the owner-computes LDS area is kept among the group's LDS allocations.
const OWNER_LDS: u32 = u32::MAX;

/// Byte address of dword `dw` in the owner-computes area of work-item `lane` of the
/// wavefront of `local` (wavefront 0's area when `abs`).
fn owner_addr(prog: &ExecProgram, local: u32, lane: u32, dw: u32, abs: bool) -> u64 {
    let size = prog.owner_lds.map_or(0, |(n, _)| n) as u64;
    let wave = if abs { 0 } else { local as u64 / WAVE };
    ((wave * WAVE + lane as u64) * size + dw as u64) * 4
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Running,
    AtBarrier,
    /// Waiting at the `lds_read_vec_neighborExch` at `pc - 1` with the vector it read.
    AtExchange([u32; 4]),
    Done,
}

/// One work-item's private state.
struct Item {
    pc: u32,
    regs: Vec<[u32; 4]>,
    itemps: Vec<Vec<[u32; 4]>>,
    stack: Vec<u32>,
    state: State,
    sys: [[u32; 4]; 7],
    /// Flat id inside the group.
    local: u32,
    /// Flat absolute id.
    abs: u32,
}

/// What one instruction asks the scheduler to do next.
enum Flow {
    Next,
    Barrier,
    /// Wait for the neighbourhood to exchange this vector (`neighborExch`).
    Exchange([u32; 4]),
    Done,
}

/// State shared by the work-items of a dispatch.
struct Shared<'d> {
    uavs: &'d mut BTreeMap<u32, Vec<u8>>,
    /// Views of the UAVs (typed accesses), fixed at the start of the dispatch.
    uav_views: BTreeMap<u32, UavView>,
    srvs: &'d BTreeMap<u32, Vec<u8>>,
    cbs: Vec<Vec<[u32; 4]>>,
    global: Option<&'d mut Vec<u8>>,
    textures: &'d BTreeMap<u32, Texture>,
    samplers: &'d BTreeMap<u32, SamplerState>,
    outputs: &'d mut BTreeMap<u32, Vec<u8>>,
    /// Pixel-shader domain (width, height).
    domain: [u32; 2],
    /// Pixel-shader domain origin (added to `vWinCoord0`).
    origin: [u32; 2],
    lds: BTreeMap<u32, Vec<u8>>,
    gds: BTreeMap<u32, Vec<u8>>,
    tracker: Option<RaceTracker>,
    append: BTreeMap<u32, u32>,
    report_oob: bool,
    fuel: u64,
    fuel_start: u64,
    stats: RunStats,
    group_flat: u32,
    cur_item: u32,
    cur_local: u32,
    cur_line: u32,
    /// Sensitivity run: seed and count of nudged results ([`Dispatch::perturb`]).
    perturb: Option<(u64, u64)>,
    /// Precision of the instruction being executed.
    cur_precision: Precision,
    /// A trigonometric instruction's argument is outside [-pi, pi].
    cur_out_of_domain: bool,
}

impl Shared<'_> {
    fn oob(&mut self, space: MemSpace, addr: u64, write: bool) {
        self.stats.oob_count += 1;
        if self.report_oob && self.stats.oob.len() < REPORT_CAP {
            self.stats.oob.push(OobAccess {
                space,
                addr,
                write,
                line: self.cur_line,
                item: self.cur_item,
            });
        }
    }

    fn lds_touch(&mut self, id: u32, addr: u64, how: Access) {
        if let Some(t) = self.tracker.as_mut() {
            if let Some(other) = t.access(id, addr as u32, self.cur_local, how) {
                if self.stats.lds_races.len() < REPORT_CAP {
                    self.stats.lds_races.push(LdsRace {
                        lds: id,
                        addr: (addr as u32) & !3,
                        group: self.group_flat,
                        items: (other, self.cur_local),
                        line: self.cur_line,
                    });
                }
            }
        }
    }

    fn buffer(&mut self, space: Space) -> Result<&mut Vec<u8>, InterpError> {
        let line = self.cur_line;
        let missing = |what: String| InterpError::MissingBuffer(format!("{what} (line {line})"));
        match space {
            Space::Uav(id) => self
                .uavs
                .get_mut(&id)
                .ok_or_else(|| missing(format!("uav {id}"))),
            Space::Lds(id) => self
                .lds
                .get_mut(&id)
                .ok_or_else(|| missing(format!("lds {id} not declared"))),
            Space::Gds(id) => self
                .gds
                .get_mut(&id)
                .ok_or_else(|| missing(format!("gds {id} not declared"))),
            Space::Srv(id) => Err(missing(format!("srv {id} is read-only"))),
        }
    }

    fn uav_view(&self, space: Space) -> UavView {
        match space {
            Space::Uav(id) => self.uav_views.get(&id).copied(),
            _ => None,
        }
        .unwrap_or(UavView::linear(0))
    }

    fn read_only(&self, space: Space) -> Result<&Vec<u8>, InterpError> {
        let line = self.cur_line;
        let r = match space {
            Space::Uav(id) => self.uavs.get(&id),
            Space::Srv(id) => self.srvs.get(&id),
            Space::Lds(id) => self.lds.get(&id),
            Space::Gds(id) => self.gds.get(&id),
        };
        r.ok_or_else(|| InterpError::MissingBuffer(format!("{space:?} (line {line})")))
    }
}

fn mem_space(s: Space) -> MemSpace {
    match s {
        Space::Uav(i) => MemSpace::Uav(i),
        Space::Srv(i) => MemSpace::Srv(i),
        Space::Lds(i) => MemSpace::Lds(i),
        Space::Gds(i) => MemSpace::Gds(i),
    }
}

/// Pixel-shader compute: checks the domain, sizes the output buffers and returns the tile
/// grid that covers the domain.
fn ps_setup(prog: &ExecProgram, d: &mut Dispatch) -> Result<[u32; 3], InterpError> {
    let [w, h] = d.domain.ok_or_else(|| {
        InterpError::BadDispatch("a pixel-shader program needs a domain (width, height)".into())
    })?;
    if w == 0 || h == 0 {
        return Err(InterpError::BadDispatch(format!("domain {w}x{h} is empty")));
    }
    let bytes = w as u64 * h as u64 * 16;
    if bytes > 1 << 32 {
        return Err(InterpError::BadDispatch(format!(
            "domain {w}x{h} is too large"
        )));
    }
    for &o in &prog.ps_outputs {
        let buf = d.ps_outputs.entry(o).or_default();
        buf.resize(bytes as usize, 0);
    }
    let [bx, by, _] = prog.group;
    Ok([w.div_ceil(bx), h.div_ceil(by), 1])
}

/// Runs `prog` over the dispatch `d`.
pub fn execute(prog: &ExecProgram, d: &mut Dispatch) -> Result<RunStats, InterpError> {
    prog.check()?;
    if prog.pixel_shader {
        d.grid = ps_setup(prog, d)?;
    }
    let domain = d.domain.unwrap_or([u32::MAX, u32::MAX]);
    let [gx, gy, gz] = d.grid;
    let [bx, by, bz] = prog.group;
    let group_size = bx as u64 * by as u64 * bz as u64;
    if gx == 0 || gy == 0 || gz == 0 {
        return Err(InterpError::BadDispatch(format!(
            "grid {gx},{gy},{gz} has an empty dimension"
        )));
    }
    if group_size == 0 || group_size > 4096 {
        return Err(InterpError::BadDispatch(format!(
            "group size {bx}x{by}x{bz} must be 1..=4096 work-items"
        )));
    }
    let groups = gx as u64 * gy as u64 * gz as u64;
    if groups * group_size > u32::MAX as u64 {
        return Err(InterpError::BadDispatch("more than 2^32 work-items".into()));
    }
    if d.require_buffers {
        for id in &prog.uavs {
            if !d.uavs.contains_key(id) {
                return Err(InterpError::MissingBuffer(format!("uav {id} is declared")));
            }
        }
        for id in prog.cbs.keys() {
            if !d.cbs.contains_key(id) {
                return Err(InterpError::MissingBuffer(format!("cb{id} is declared")));
            }
        }
        if prog.uses_global && d.global.is_none() {
            return Err(InterpError::MissingBuffer("g[] is used".into()));
        }
    }
    let max_cb = d.cbs.keys().copied().max().map_or(0, |m| m as usize + 1);
    let mut cbs = vec![Vec::new(); max_cb.min(256)];
    for (&id, bytes) in &d.cbs {
        if let Some(slot) = cbs.get_mut(id as usize) {
            *slot = bytes
                .chunks(16)
                .map(|c| {
                    let mut e = [0u32; 4];
                    for (i, w) in c.chunks(4).enumerate() {
                        let mut b = [0u8; 4];
                        b[..w.len()].copy_from_slice(w);
                        e[i] = u32::from_le_bytes(b);
                    }
                    e
                })
                .collect();
        }
    }
    let schedule = d.schedule;
    let uav_views = d.uavs.keys().map(|&id| (id, d.uav_view(id))).collect();
    let mut sh = Shared {
        uavs: &mut d.uavs,
        uav_views,
        srvs: &d.srvs,
        cbs,
        global: d.global.as_mut(),
        textures: &d.textures,
        samplers: &d.samplers,
        outputs: &mut d.ps_outputs,
        domain,
        origin: d.domain_origin,
        lds: BTreeMap::new(),
        gds: prog
            .gds
            .iter()
            .map(|(&id, &size)| (id, vec![0u8; size as usize]))
            .collect(),
        tracker: d.lds_check.then(RaceTracker::default),
        append: BTreeMap::new(),
        report_oob: d.report_oob,
        fuel: d.fuel,
        fuel_start: d.fuel,
        stats: RunStats::default(),
        group_flat: 0,
        cur_item: 0,
        cur_local: 0,
        cur_line: 0,
        perturb: d.perturb.map(|s| (s, 0)),
        cur_precision: Precision::Exact,
        cur_out_of_domain: false,
    };
    sh.stats.warnings.extend(prog.warnings.iter().cloned());
    let mut rng = match schedule {
        Schedule::Shuffled { seed } => seed | 1,
        Schedule::LockStep | Schedule::Warps { .. } => 1,
    };
    let mut items: Vec<Item> = (0..group_size)
        .map(|_| Item {
            pc: 0,
            regs: vec![[0; 4]; prog.num_temps as usize],
            itemps: prog
                .itemp_sizes
                .iter()
                .map(|&n| vec![[0; 4]; n as usize])
                .collect(),
            stack: Vec::new(),
            state: State::Running,
            sys: [[0; 4]; 7],
            local: 0,
            abs: 0,
        })
        .collect();
    let fuel0 = d.fuel;
    for z in 0..gz {
        for y in 0..gy {
            for x in 0..gx {
                let gflat = (z * gy + y) * gx + x;
                sh.group_flat = gflat;
                sh.lds = prog
                    .lds
                    .iter()
                    .map(|(&id, &size)| (id, vec![0u8; size as usize]))
                    .collect();
                if let Some((dw, _)) = prog.owner_lds {
                    // Relative sharing needs one 64-lane area per wavefront; absolute uses
                    // the first. Both fit in this allocation.
                    let waves = group_size.div_ceil(WAVE) as usize;
                    sh.lds.insert(
                        OWNER_LDS,
                        vec![0u8; waves * WAVE as usize * dw as usize * 4],
                    );
                }
                if let Some(t) = sh.tracker.as_mut() {
                    t.clear();
                }
                init_group(&mut items, prog, [x, y, z], [sh.domain, sh.origin], gflat);
                run_group(prog, &mut items, &mut sh, schedule, &mut rng)?;
                sh.stats.groups += 1;
                sh.stats.work_items += group_size;
            }
        }
    }
    sh.stats.instructions = fuel0 - sh.fuel;
    Ok(sh.stats)
}

/// `area`: the pixel-shader domain's size and origin.
fn init_group(
    items: &mut [Item],
    prog: &ExecProgram,
    g: [u32; 3],
    area: [[u32; 2]; 2],
    gflat: u32,
) {
    let [domain, origin] = area;
    let [bx, by, bz] = prog.group;
    let size = bx * by * bz;
    for (i, it) in items.iter_mut().enumerate() {
        let i = i as u32;
        let (tx, ty, tz) = (i % bx, (i / bx) % by, i / (bx * by));
        it.pc = 0;
        it.state = State::Running;
        it.stack.clear();
        for r in it.regs.iter_mut() {
            *r = [0; 4];
        }
        for a in it.itemps.iter_mut() {
            for e in a.iter_mut() {
                *e = [0; 4];
            }
        }
        let abs_flat = gflat.wrapping_mul(size).wrapping_add(i);
        it.sys = [
            [tx, ty, tz, 0],
            [i; 4],
            [g[0] * bx + tx, g[1] * by + ty, g[2] * bz + tz, 0],
            [abs_flat; 4],
            [g[0], g[1], g[2], 0],
            [gflat; 4],
            [0; 4],
        ];
        it.local = i;
        it.abs = abs_flat;
        if prog.pixel_shader {
            let (px, py) = (g[0] * bx + tx, g[1] * by + ty);
            it.sys[6] = [
                (px.wrapping_add(origin[0]) as f32 + 0.5).to_bits(),
                (py.wrapping_add(origin[1]) as f32 + 0.5).to_bits(),
                0,
                ONE,
            ];
            if px >= domain[0] || py >= domain[1] {
                it.state = State::Done;
            }
        }
    }
}

fn next_rand(s: &mut u64) -> u64 {
    // xorshift64*: deterministic, good enough to pick interleavings.
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    s.wrapping_mul(0x2545_F491_4F6C_DD1D)
}

fn run_group(
    prog: &ExecProgram,
    items: &mut [Item],
    sh: &mut Shared,
    schedule: Schedule,
    rng: &mut u64,
) -> Result<(), InterpError> {
    let n = items.len();
    let mut order: Vec<usize> = (0..n).collect();
    loop {
        // Run until every work-item is at a barrier or done.
        loop {
            let any = match schedule {
                Schedule::Warps { width, reverse } => {
                    run_warps(prog, items, sh, width.max(1) as usize, reverse)?
                }
                _ => run_round(prog, items, sh, schedule, rng, &mut order)?,
            };
            if !any && !exchange_neighbours(prog, items, sh)? {
                break;
            }
        }
        let waiting = items.iter().filter(|i| i.state == State::AtBarrier).count();
        if waiting == 0 {
            return Ok(());
        }
        if waiting != n && sh.stats.warnings.len() < REPORT_CAP {
            sh.stats.warnings.push(format!(
                "group {}: barrier reached by {waiting} of {n} work-items (others ended)",
                sh.group_flat
            ));
        }
        sh.stats.barriers += 1;
        if let Some(t) = sh.tracker.as_mut() {
            t.clear();
        }
        for it in items.iter_mut() {
            if it.state == State::AtBarrier {
                it.state = State::Running;
            }
        }
    }
}

/// Applies what one instruction asked of the scheduler to the work-item; returns whether it
/// keeps running.
fn settle(it: &mut Item, flow: Flow) -> bool {
    it.state = match flow {
        Flow::Next => return true,
        Flow::Barrier => State::AtBarrier,
        Flow::Exchange(v) => State::AtExchange(v),
        Flow::Done => State::Done,
    };
    false
}

/// [`Schedule::LockStep`] and [`Schedule::Shuffled`]: one round over the running work-items
/// (one instruction each, or a random burst); returns whether any ran.
fn run_round(
    prog: &ExecProgram,
    items: &mut [Item],
    sh: &mut Shared,
    schedule: Schedule,
    rng: &mut u64,
    order: &mut [usize],
) -> Result<bool, InterpError> {
    let mut any = false;
    if let Schedule::Shuffled { .. } = schedule {
        for i in (1..order.len()).rev() {
            let j = (next_rand(rng) % (i as u64 + 1)) as usize;
            order.swap(i, j);
        }
    }
    for &k in order.iter() {
        let it = &mut items[k];
        if it.state != State::Running {
            continue;
        }
        any = true;
        let burst = match schedule {
            Schedule::Shuffled { .. } => 1 + next_rand(rng) % 48,
            _ => 1,
        };
        for _ in 0..burst {
            let flow = step(prog, it, sh)?;
            if !settle(it, flow) {
                break;
            }
        }
    }
    Ok(any)
}

/// [`Schedule::Warps`]: each warp of `width` consecutive work-items in turn, lowest first,
/// runs until all its work-items wait (barrier, exchange) or are done. Within a warp, every
/// round executes one instruction for the running work-items at the lowest pc (the highest
/// when `reverse`), in id order (descending when `reverse`): the lanes that stay on one side
/// of a divergent branch or in a loop run on until the others' pc is reached again, which
/// is how a SIMT warp reconverges on structured code. Returns whether any work-item ran.
fn run_warps(
    prog: &ExecProgram,
    items: &mut [Item],
    sh: &mut Shared,
    width: usize,
    reverse: bool,
) -> Result<bool, InterpError> {
    let mut any = false;
    for warp in items.chunks_mut(width) {
        loop {
            let running = warp.iter().filter(|it| it.state == State::Running);
            let pc = if reverse {
                running.map(|it| it.pc).max()
            } else {
                running.map(|it| it.pc).min()
            };
            let Some(pc) = pc else { break };
            any = true;
            let lanes = warp.len();
            for j in 0..lanes {
                let it = &mut warp[if reverse { lanes - 1 - j } else { j }];
                if it.state == State::Running && it.pc == pc {
                    let flow = step(prog, it, sh)?;
                    settle(it, flow);
                }
            }
        }
    }
    Ok(any)
}

/// Completes the `lds_read_vec_neighborExch` every neighbourhood (four consecutive
/// work-items of the group, the first a multiple of four) is waiting at: work-item `j`
/// receives `(v0[j], v1[j], v2[j], v3[j])`, `vi` being what neighbour `i` read. Called when no
/// work-item can run; returns whether any work-item was released. A neighbourhood that is
/// not all at the same exchange (some ended, wait at a barrier or at another instruction) or
/// is cut short by the group size is an error: the exchange needs all four in lock step.
fn exchange_neighbours(
    prog: &ExecProgram,
    items: &mut [Item],
    sh: &mut Shared,
) -> Result<bool, InterpError> {
    let mut released = false;
    for base in (0..items.len()).step_by(4) {
        let quad = &items[base..items.len().min(base + 4)];
        let Some(first) = quad
            .iter()
            .find(|it| matches!(it.state, State::AtExchange(_)))
        else {
            continue;
        };
        let pc = first.pc;
        let line = prog.insts[pc as usize - 1].line;
        let together = quad.len() == 4
            && quad
                .iter()
                .all(|it| matches!(it.state, State::AtExchange(_)) && it.pc == pc);
        if !together {
            return Err(InterpError::Divergence {
                message: format!(
                    "group {}: lds_read_vec_neighborExch needs work-items {base}..{} together; \
                     {} of them reached it",
                    sh.group_flat,
                    base + 3,
                    quad.iter()
                        .filter(|it| matches!(it.state, State::AtExchange(_)) && it.pc == pc)
                        .count()
                ),
                line,
            });
        }
        let vecs: Vec<[u32; 4]> = quad
            .iter()
            .map(|it| match it.state {
                State::AtExchange(v) => v,
                _ => [0; 4],
            })
            .collect();
        let dst = &prog.insts[pc as usize - 1].dst;
        for (j, it) in items[base..base + 4].iter_mut().enumerate() {
            let r = [vecs[0][j], vecs[1][j], vecs[2][j], vecs[3][j]];
            write_dst(it, sh, dst, Ty::Untyped, r);
            it.state = State::Running;
        }
        released = true;
    }
    Ok(released)
}

fn resolve_index(it: &Item, idx: &Index) -> u32 {
    match idx.rel {
        None => idx.base,
        Some(Rel::Temp(r, c)) => idx.base.wrapping_add(it.regs[r as usize][c as usize & 3]),
        Some(Rel::Sys(s, c)) => idx.base.wrapping_add(it.sys[s as usize][c as usize & 3]),
    }
}

fn read_global(sh: &mut Shared, idx: u32) -> [u32; 4] {
    let mut v = [0; 4];
    let base = idx as u64 * 16;
    let mut oob = false;
    if let Some(g) = sh.global.as_deref() {
        for (i, c) in v.iter_mut().enumerate() {
            match memory::load_u32(g, base + 4 * i as u64) {
                Some(x) => *c = x,
                None => oob = true,
            }
        }
    } else {
        oob = true;
    }
    if oob {
        sh.oob(MemSpace::Global, base, false);
    }
    v
}

fn raw_src(it: &Item, sh: &mut Shared, prog: &ExecProgram, kind: &SrcKind) -> [u32; 4] {
    match kind {
        SrcKind::Temp(r) => it.regs[*r as usize],
        SrcKind::Imm(v) => *v,
        SrcKind::Cb { id, idx } => {
            let i = resolve_index(it, idx) as usize;
            sh.cbs
                .get(*id as usize)
                .and_then(|cb| cb.get(i))
                .copied()
                .unwrap_or([0; 4])
        }
        SrcKind::Icb(idx) => {
            let i = resolve_index(it, idx) as usize;
            prog.icb.get(i).copied().unwrap_or([0; 4])
        }
        SrcKind::ITemp { arr, idx } => {
            let i = resolve_index(it, idx) as usize;
            it.itemps[*arr as usize].get(i).copied().unwrap_or([0; 4])
        }
        SrcKind::Sys(s) => it.sys[*s as usize],
        SrcKind::Global(idx) => {
            let i = resolve_index(it, idx);
            read_global(sh, i)
        }
        SrcKind::Timer => {
            let t = sh.fuel_start - sh.fuel;
            [t as u32, (t >> 32) as u32, 0, 0]
        }
    }
}

fn apply_mods(v: &mut [u32; 4], m: &SrcMods, ty: Ty) {
    match ty {
        Ty::Int => {
            for (i, c) in v.iter_mut().enumerate() {
                if m.abs {
                    *c = (*c as i32).wrapping_abs() as u32;
                }
                if m.neg & (1 << i) != 0 {
                    *c = c.wrapping_neg();
                }
            }
        }
        Ty::Double => {
            for hi in [1usize, 3] {
                if m.abs {
                    v[hi] &= 0x7FFF_FFFF;
                }
                if m.neg & (3 << (hi - 1)) != 0 {
                    v[hi] ^= 0x8000_0000;
                }
            }
        }
        Ty::Float | Ty::Untyped => {
            for (i, c) in v.iter_mut().enumerate() {
                let mut x = *c;
                if m.invert {
                    x = fops::sub(ONE, x);
                }
                if m.bias {
                    x = fops::sub(x, 0x3F00_0000);
                }
                if m.x2 {
                    x = fops::add(x, x);
                }
                if m.sign {
                    x = fops::sgn(x);
                    if f32::from_bits(x).is_nan() {
                        x = 0;
                    }
                }
                if m.abs {
                    x &= 0x7FFF_FFFF;
                }
                if m.neg & (1 << i) != 0 {
                    x ^= 0x8000_0000;
                }
                if m.clamp {
                    x = fops::sat(x);
                }
                *c = x;
            }
        }
    }
}

#[inline]
fn read(it: &Item, sh: &mut Shared, prog: &ExecProgram, s: &Src, ty: Ty) -> [u32; 4] {
    let raw = match &s.kind {
        SrcKind::Temp(r) => it.regs[*r as usize],
        kind => raw_src(it, sh, prog, kind),
    };
    // Selectors 0..=3 pick a component, SEL_ZERO / SEL_ONE the constants; `& 7` keeps the
    // lookup in bounds whatever the selector.
    let ext = [raw[0], raw[1], raw[2], raw[3], 0, ONE, 0, 0];
    let mut v = [
        ext[(s.swz[0] & 7) as usize],
        ext[(s.swz[1] & 7) as usize],
        ext[(s.swz[2] & 7) as usize],
        ext[(s.swz[3] & 7) as usize],
    ];
    if !s.mods.is_empty() {
        apply_mods(&mut v, &s.mods, ty);
    }
    v
}

fn eval_cond(it: &Item, sh: &mut Shared, prog: &ExecProgram, c: &Cond) -> bool {
    match c {
        Cond::Always => true,
        Cond::Nz(s) => read(it, sh, prog, s, Ty::Int)[0] != 0,
        Cond::Z(s) => read(it, sh, prog, s, Ty::Int)[0] == 0,
        Cond::Rel(op, a, b) => {
            let x = read(it, sh, prog, a, Ty::Float)[0];
            let y = read(it, sh, prog, b, Ty::Float)[0];
            fops::fcmp(*op, x, y)
        }
    }
}

/// Nudges an approximate f32 result within the guide's error (see [`Dispatch::perturb`]).
fn perturb(sh: &mut Shared, v: u32) -> u32 {
    let Some((seed, n)) = sh.perturb.as_mut() else {
        return v;
    };
    *n += 1;
    let seed = &*seed;
    // splitmix64 of (seed, count): deterministic for a seed and a schedule.
    let mut z = seed.wrapping_add(n.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    let unit = (z >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0; // [-1, 1)
    let trig = sh.cur_precision == Precision::Trig;
    if trig && sh.cur_out_of_domain {
        // Undefined: a NaN makes everything computed from it count as undefined.
        return f32::NAN.to_bits();
    }
    let f = f32::from_bits(v);
    if !f.is_finite() {
        return v;
    }
    // Never zero, and up in runs with an even seed, down with an odd one: two runs with
    // neighbouring seeds bracket the exact result.
    let magnitude = 1 + (z % u64::from(PERTURB_ULPS)) as i64;
    let ulps = if *seed & 1 == 0 {
        magnitude
    } else {
        -magnitude
    };
    let mut g = if f == 0.0 {
        f
    } else {
        let bits = (v & 0x7fff_ffff) as i64 + ulps;
        f32::from_bits((bits.clamp(1, 0x7f7f_ffff) as u32) | (v & 0x8000_0000))
    };
    if trig {
        g += unit * PERTURB_TRIG_ABS;
    }
    g.to_bits()
}

fn write_dst(it: &mut Item, sh: &mut Shared, dst: &Dst, ty: Ty, mut res: [u32; 4]) {
    if sh.perturb.is_some() && sh.cur_precision != Precision::Exact && ty == Ty::Float {
        for (c, r) in res.iter_mut().enumerate() {
            if dst.mask[c] == DstComp::Write {
                *r = perturb(sh, *r);
            }
        }
    }
    // Shift scale and `_sat` are float result modifiers (L571-599); a typeless `mov` takes
    // them as float too.
    if matches!(ty, Ty::Float | Ty::Untyped) && (dst.sat || dst.scale != 1.0) {
        for r in res.iter_mut() {
            if dst.scale != 1.0 {
                *r = fops::scale(*r, dst.scale);
            }
            if dst.sat {
                *r = fops::sat(*r);
            }
        }
    }
    // Fast path: a plain temp destination with only written / untouched components.
    if let DstKind::Temp(r) = &dst.kind {
        let reg = &mut it.regs[*r as usize];
        let mut simple = true;
        for i in 0..4 {
            match dst.mask[i] {
                DstComp::Write => reg[i] = res[i],
                DstComp::NoWrite => {}
                DstComp::Zero | DstComp::One => simple = false,
            }
        }
        if simple {
            return;
        }
    }
    let mut out = [None; 4];
    for i in 0..4 {
        out[i] = match dst.mask[i] {
            DstComp::NoWrite => None,
            DstComp::Write => Some(res[i]),
            DstComp::Zero => Some(0),
            DstComp::One => Some(ONE),
        };
    }
    match &dst.kind {
        DstKind::Temp(r) => {
            let reg = &mut it.regs[*r as usize];
            for i in 0..4 {
                if let Some(v) = out[i] {
                    reg[i] = v;
                }
            }
        }
        DstKind::ITemp { arr, idx } => {
            let i = resolve_index(it, idx) as usize;
            if let Some(reg) = it.itemps[*arr as usize].get_mut(i) {
                for c in 0..4 {
                    if let Some(v) = out[c] {
                        reg[c] = v;
                    }
                }
            }
        }
        DstKind::Global(idx) => {
            let base = resolve_index(it, idx) as u64 * 16;
            let mut oob = false;
            match sh.global.as_deref_mut() {
                Some(g) => {
                    for c in 0..4 {
                        if let Some(v) = out[c] {
                            oob |= !memory::store_u32(g, base + 4 * c as u64, v);
                        }
                    }
                }
                None => oob = true,
            }
            if oob {
                sh.oob(MemSpace::Global, base, true);
            }
        }
        DstKind::Output { id: o, reg } => {
            for c in 0..4 {
                if let Some(v) = out[c] {
                    it.regs[*reg as usize][c] = v;
                }
            }
            let [w, _] = sh.domain;
            let [bx, by, _] = [8u64, 8, 1];
            let g = sh.group_flat as u64;
            let tiles_x = (w as u64).div_ceil(bx).max(1);
            let (px, py) = (
                (g % tiles_x) * bx + it.local as u64 % bx,
                (g / tiles_x) * by + it.local as u64 / bx,
            );
            let base = (py * w as u64 + px) * 16;
            if let Some(buf) = sh.outputs.get_mut(o) {
                for c in 0..4 {
                    if let Some(v) = out[c] {
                        memory::store_u32(buf, base + 4 * c as u64, v);
                    }
                }
            }
        }
        DstKind::None => {}
    }
}

/// Reads all sources of an instruction (at most 4 are used by value-producing ops).
fn read_srcs(it: &Item, sh: &mut Shared, prog: &ExecProgram, inst: &Inst) -> [[u32; 4]; 4] {
    let mut s = [[0u32; 4]; 4];
    for (slot, src) in s.iter_mut().zip(inst.src.iter()) {
        *slot = read(it, sh, prog, src, inst.ty);
    }
    s
}

fn comp(f: CompFn, s: &[[u32; 4]; 4], i: usize) -> u32 {
    match f {
        CompFn::F1(g) => g(s[0][i]),
        CompFn::F2(g) => g(s[0][i], s[1][i]),
        CompFn::F3(g) => g(s[0][i], s[1][i], s[2][i]),
        CompFn::F4(g) => g(s[0][i], s[1][i], s[2][i], s[3][i]),
    }
}

/// Past every buffer: the address of a typed element out of its view's range.
const TYPED_OUT_OF_RANGE: u64 = 1 << 40;

fn address(sh: &Shared, space: Space, addr: Addr, s: &[[u32; 4]; 4]) -> u64 {
    match addr {
        Addr::Raw => s[0][0] as u64,
        Addr::Struct(stride) => s[0][0] as u64 * stride as u64 + s[0][1] as u64,
        Addr::StructVec(stride) => s[0][0] as u64 * stride as u64 + s[1][0] as u64,
        Addr::Typed(t) => sh
            .uav_view(space)
            .offset(t, s[0])
            .unwrap_or(TYPED_OUT_OF_RANGE),
    }
}

/// The 32-bit components per element of typed accesses to `space` (4 for other accesses).
fn typed_components(sh: &Shared, space: Space, addr: Addr) -> usize {
    match addr {
        Addr::Typed(_) => sh.uav_view(space).components.min(4) as usize,
        _ => 4,
    }
}

fn step(prog: &ExecProgram, it: &mut Item, sh: &mut Shared) -> Result<Flow, InterpError> {
    let Some(inst) = prog.insts.get(it.pc as usize) else {
        return Ok(Flow::Done);
    };
    if sh.fuel == 0 {
        return Err(InterpError::OutOfFuel {
            executed: sh.fuel_start,
            line: inst.line,
        });
    }
    sh.fuel -= 1;
    sh.cur_line = inst.line;
    sh.cur_precision = inst.precision;
    if sh.perturb.is_some() && inst.precision == Precision::Trig {
        // The argument components the operation reads: `.w` for the scalar forms, `.x` for
        // `sincos`, the written components otherwise.
        let s = read_srcs(it, sh, prog, inst);
        let used: &[usize] = match inst.op {
            Op::ScalarW(_) => &[3],
            Op::SinCos => &[0],
            _ => &[0, 1, 2, 3],
        };
        sh.cur_out_of_domain = used.iter().any(|&c| {
            (used.len() == 1 || inst.dst.mask[c] == DstComp::Write) && {
                // NaN arguments count as outside too.
                let x = f32::from_bits(s[0][c]).abs();
                x.is_nan() || x > std::f32::consts::PI * (1.0 + 1e-6)
            }
        });
    }
    sh.cur_item = it.abs;
    sh.cur_local = it.local;
    let mut next = it.pc + 1;
    match &inst.op {
        Op::Wide(_) | Op::D2F | Op::F2D | Op::Widen(_) | Op::DMovc | Op::DFrexp | Op::DLdexp => {
            exec_wide(prog, it, sh, inst)
        }
        Op::OwnerRead { .. }
        | Op::OwnerWrite { .. }
        | Op::Tex { .. }
        | Op::Load { .. }
        | Op::Store { .. }
        | Op::Atomic { .. }
        | Op::Append { .. } => {
            if let Some(flow) = exec_memory(prog, it, sh, inst, next)? {
                return Ok(flow);
            }
        }
        Op::Fence { threads } => {
            it.pc = next;
            return Ok(if *threads { Flow::Barrier } else { Flow::Next });
        }
        Op::If(c, target) => {
            if !eval_cond(it, sh, prog, c) {
                next = *target;
            }
        }
        Op::Jump(t) => next = *t,
        Op::JumpIf(c, t) => {
            if eval_cond(it, sh, prog, c) {
                next = *t;
            }
        }
        Op::Switch { cases, default } => {
            let v = read(it, sh, prog, &inst.src[0], Ty::Int)[0];
            next = cases
                .iter()
                .find(|(c, _)| *c == v)
                .map_or(*default, |&(_, t)| t);
        }
        Op::Call(c, f) => {
            if eval_cond(it, sh, prog, c) && it.stack.len() < CALL_DEPTH {
                it.stack.push(next);
                next = prog.funcs[*f as usize];
            }
        }
        Op::Ret(c) => {
            if eval_cond(it, sh, prog, c) {
                match it.stack.pop() {
                    Some(r) => next = r,
                    None => return Ok(Flow::Done),
                }
            }
        }
        Op::End => return Ok(Flow::Done),
        Op::Nop => {}
        _ => exec_vector(prog, it, sh, inst),
    }
    it.pc = next;
    Ok(Flow::Next)
}

/// Executes a 32-bit value operation (per component, scalar, dot products, compares and
/// the other vector forms) of work-item `it`; other operations are left to [`step`].
fn exec_vector(prog: &ExecProgram, it: &mut Item, sh: &mut Shared, inst: &Inst) {
    match &inst.op {
        Op::Comp(f) => {
            let s = read_srcs(it, sh, prog, inst);
            let mut r = [0u32; 4];
            for (i, slot) in r.iter_mut().enumerate() {
                if inst.dst.mask[i] == DstComp::Write {
                    *slot = comp(*f, &s, i);
                }
            }
            write_dst(it, sh, &inst.dst, inst.ty, r);
        }
        Op::ScalarW(f) => {
            let s = read_srcs(it, sh, prog, inst);
            let v = comp(*f, &s, 3);
            write_dst(it, sh, &inst.dst, inst.ty, [v; 4]);
        }
        Op::Dot(n, ieee) => {
            let s = read_srcs(it, sh, prog, inst);
            let v = fops::dot(&s[0], &s[1], *n, *ieee);
            write_dst(it, sh, &inst.dst, inst.ty, [v; 4]);
        }
        Op::Dp2Add => {
            let s = read_srcs(it, sh, prog, inst);
            let v = fops::add(fops::dot(&s[0], &s[1], 2, false), s[2][2]);
            write_dst(it, sh, &inst.dst, inst.ty, [v; 4]);
        }
        Op::Cmov => {
            let s = read_srcs(it, sh, prog, inst);
            let mut dst = inst.dst.clone();
            for i in 0..4 {
                if fops::f(s[0][i]) == 0.0 {
                    dst.mask[i] = DstComp::NoWrite;
                }
            }
            write_dst(it, sh, &dst, inst.ty, s[1]);
        }
        Op::CmpVal(op, val) => {
            let s = read_srcs(it, sh, prog, inst);
            let mut r = [0u32; 4];
            for (i, slot) in r.iter_mut().enumerate() {
                *slot = if fops::fcmp(*op, s[0][i], *val) {
                    s[1][i]
                } else {
                    s[2][i]
                };
            }
            write_dst(it, sh, &inst.dst, inst.ty, r);
        }
        Op::Set(op) | Op::FCmp(op) => {
            let s = read_srcs(it, sh, prog, inst);
            let set = matches!(inst.op, Op::Set(_));
            let mut r = [0u32; 4];
            for (i, slot) in r.iter_mut().enumerate() {
                let t = fops::fcmp(*op, s[0][i], s[1][i]);
                *slot = if set {
                    if t {
                        ONE
                    } else {
                        0
                    }
                } else {
                    bool32(t)
                };
            }
            let ty = if set { Ty::Float } else { Ty::Int };
            write_dst(it, sh, &inst.dst, ty, r);
        }
        Op::Crs => {
            let s = read_srcs(it, sh, prog, inst);
            let (a, b) = (s[0], s[1]);
            let m = |x: u32, y: u32| fops::mul(x, y, true);
            let r = [
                fops::sub(m(a[1], b[2]), m(a[2], b[1])),
                fops::sub(m(a[2], b[0]), m(a[0], b[2])),
                fops::sub(m(a[0], b[1]), m(a[1], b[0])),
                0,
            ];
            let mut dst = inst.dst.clone();
            if dst.mask[3] == DstComp::Write {
                dst.mask[3] = DstComp::NoWrite;
            }
            write_dst(it, sh, &dst, inst.ty, r);
        }
        Op::SinCos => {
            let s = read_srcs(it, sh, prog, inst);
            let r = [
                fops::unary(s[0][3], f32::cos),
                fops::unary(s[0][3], f32::sin),
                0,
                0,
            ];
            let mut dst = inst.dst.clone();
            for c in 2..4 {
                if dst.mask[c] == DstComp::Write {
                    dst.mask[c] = DstComp::NoWrite;
                }
            }
            write_dst(it, sh, &dst, inst.ty, r);
        }
        Op::Nrm(n, z) => {
            let s = read_srcs(it, sh, prog, inst);
            let len2 = fops::dot(&s[0], &s[0], *n, true);
            let factor = if fops::f(len2) == 0.0 {
                z.value().to_bits()
            } else {
                fops::rsq(len2, *z)
            };
            let mut r = [0u32; 4];
            for (i, slot) in r.iter_mut().enumerate() {
                *slot = if i < *n {
                    fops::mul(s[0][i], factor, true)
                } else {
                    s[0][i]
                };
            }
            write_dst(it, sh, &inst.dst, inst.ty, r);
        }
        Op::DistVec => {
            let s = read_srcs(it, sh, prog, inst);
            let r = [ONE, fops::mul(s[0][1], s[1][1], false), s[0][2], s[1][3]];
            write_dst(it, sh, &inst.dst, inst.ty, r);
        }
        Op::Lit => {
            let s = read_srcs(it, sh, prog, inst);
            let (x, y, w) = (fops::f(s[0][0]), fops::f(s[0][1]), fops::f(s[0][3]));
            let w = w.clamp(-128.0, 128.0);
            let zc = if x > 0.0 && y > 0.0 { y.powf(w) } else { 0.0 };
            let r = [ONE, fops::b(x.max(0.0)), fops::b(zc), ONE];
            write_dst(it, sh, &inst.dst, inst.ty, r);
        }
        Op::Expp | Op::Logp(_) | Op::Mmul(_) => exec_dx9_vector(prog, it, sh, inst),
        Op::Len => {
            let s = read_srcs(it, sh, prog, inst);
            let r = fops::sqrt(fops::dot(&s[0], &s[0], 3, true));
            write_dst(it, sh, &inst.dst, inst.ty, [r; 4]);
        }
        Op::FaceForward => {
            let s = read_srcs(it, sh, prog, inst);
            let sign = fops::sgn(fops::dot(&s[0], &s[1], 4, true));
            let r = s[2].map(|x| fops::mul(x, sign, true));
            write_dst(it, sh, &inst.dst, inst.ty, r);
        }
        Op::Reflect(normalize) => {
            let s = read_srcs(it, sh, prog, inst);
            let f2 = fops::mul(fops::dot(&s[0], &s[1], 4, true), TWO, true);
            let norm = fops::dot(&s[1], &s[1], 4, true);
            let mut r = [0u32; 4];
            for (i, slot) in r.iter_mut().enumerate() {
                let a = if *normalize {
                    fops::mul(norm, s[0][i], true)
                } else {
                    s[0][i]
                };
                *slot = fops::sub(a, fops::mul(f2, s[1][i], true));
            }
            write_dst(it, sh, &inst.dst, inst.ty, r);
        }
        Op::Sad4 => {
            let s = read_srcs(it, sh, prog, inst);
            let mut acc = s[2][0];
            for i in 0..4 {
                acc = super::iops::sad(s[0][i], s[1][i], acc);
            }
            write_dst(it, sh, &inst.dst, inst.ty, [acc; 4]);
        }
        Op::F2U4 => {
            let s = read_srcs(it, sh, prog, inst);
            let v = fops::f_2_u4(&s[0]);
            write_dst(it, sh, &inst.dst, inst.ty, [v; 4]);
        }
        _ => {}
    }
}

/// Executes `expp`, `logp` or `mmul` (the DX9-era vector forms that write a different
/// value per component) of work-item `it`.
fn exec_dx9_vector(prog: &ExecProgram, it: &mut Item, sh: &mut Shared, inst: &Inst) {
    match &inst.op {
        Op::Expp => {
            let s = read_srcs(it, sh, prog, inst);
            let w = s[0][3];
            let fl = fops::floor(w);
            let r = [fops::exp2(fl), fops::sub(w, fl), fops::exp2(w), ONE];
            write_dst(it, sh, &inst.dst, inst.ty, r);
        }
        Op::Logp(z) => {
            let s = read_srcs(it, sh, prog, inst);
            let w = s[0][3];
            let lg = fops::log2(w, *z);
            let fl = fops::floor(lg);
            let m = fops::b(fops::f(w) / fops::f(fops::exp2(fl)));
            write_dst(it, sh, &inst.dst, inst.ty, [fl, m, lg, ONE]);
        }
        Op::Mmul(m) => {
            let shape = MATRIX_SHAPES[*m];
            let a = read(it, sh, prog, &inst.src[0], inst.ty);
            let mut r = [0u32; 4];
            for (slot, row) in r.iter_mut().zip(&inst.src[1..]) {
                let row = read(it, sh, prog, row, inst.ty);
                *slot = fops::dot(&a, &row, shape.len, false);
            }
            // Components past the last row are not results: only a forced 0 or 1 writes them.
            let mut dst = inst.dst.clone();
            for c in shape.rows..4 {
                if dst.mask[c] == DstComp::Write {
                    dst.mask[c] = DstComp::NoWrite;
                }
            }
            write_dst(it, sh, &dst, inst.ty, r);
        }
        _ => {}
    }
}

/// Executes a double-precision or 64-bit operation on register pairs of work-item `it`;
/// other operations are left to [`step`].
fn exec_wide(prog: &ExecProgram, it: &mut Item, sh: &mut Shared, inst: &Inst) {
    match &inst.op {
        Op::Wide(f) => {
            let s = read_srcs(it, sh, prog, inst);
            let w = |k: usize| join64(s[k][0], s[k][1]);
            let r = match f {
                WideFn::W1(g) => g(w(0)),
                WideFn::W2(g) => g(w(0), w(1)),
                WideFn::W3(g) => g(w(0), w(1), w(2)),
                WideFn::Sh(g) => g(w(0), s[1][0]),
                WideFn::Cmp(g) => {
                    let v = bool32(g(w(0), w(1)));
                    write_dst(it, sh, &inst.dst, Ty::Int, [v; 4]);
                    return;
                }
                WideFn::Narrow(g) => {
                    let v = g(w(0));
                    write_dst(it, sh, &inst.dst, Ty::Int, [v; 4]);
                    return;
                }
            };
            let (lo, hi) = split64(r);
            write_dst(it, sh, &inst.dst, inst.ty, [lo, hi, lo, hi]);
        }
        Op::D2F => {
            let s = read_srcs(it, sh, prog, inst);
            let v = super::dops::d2f(join64(s[0][0], s[0][1]));
            write_dst(it, sh, &inst.dst, Ty::Untyped, [v; 4]);
        }
        Op::F2D => {
            let s = read_srcs(it, sh, prog, inst);
            let (lo, hi) = split64(super::dops::f2d(s[0][0]));
            write_dst(it, sh, &inst.dst, Ty::Double, [lo, hi, lo, hi]);
        }
        Op::Widen(g) => {
            let s = read_srcs(it, sh, prog, inst);
            let (lo, hi) = split64(g(s[0][0]));
            write_dst(it, sh, &inst.dst, Ty::Double, [lo, hi, lo, hi]);
        }
        Op::DMovc => {
            let s = read_srcs(it, sh, prog, inst);
            let pick = if s[0][0] != 0 { s[1] } else { s[2] };
            write_dst(
                it,
                sh,
                &inst.dst,
                Ty::Double,
                [pick[0], pick[1], pick[0], pick[1]],
            );
        }
        Op::DFrexp => {
            let s = read_srcs(it, sh, prog, inst);
            let (m, e) = super::dops::dfrexp(join64(s[0][0], s[0][1]));
            let (lo, hi) = split64(m);
            write_dst(it, sh, &inst.dst, Ty::Double, [0, e, lo, hi]);
        }
        Op::DLdexp => {
            let s = read_srcs(it, sh, prog, inst);
            let (lo, hi) = split64(super::dops::dldexp(join64(s[0][0], s[0][1]), s[1][0]));
            write_dst(it, sh, &inst.dst, Ty::Double, [lo, hi, lo, hi]);
        }
        _ => {}
    }
}

/// Executes a memory, texture or owner-computes LDS operation of work-item `it`, whose
/// next instruction is `next`: `Some(flow)` when the work-item stops here (its pc already
/// moved), `None` to go on. Other operations are left to [`step`].
fn exec_memory(
    prog: &ExecProgram,
    it: &mut Item,
    sh: &mut Shared,
    inst: &Inst,
    next: u32,
) -> Result<Option<Flow>, InterpError> {
    match &inst.op {
        Op::OwnerRead { abs, exchange } => {
            let s = read_srcs(it, sh, prog, inst);
            let (owner, off) = (s[0][0], s[0][1]);
            let mut r = [0u32; 4];
            for i in 0..4 {
                if inst.dst.mask[i] != DstComp::Write && !exchange {
                    continue;
                }
                let dw = off.wrapping_add(i as u32);
                let a = owner_addr(prog, it.local, owner, dw, *abs);
                // Another work-item's area, or past the declared size: out of range.
                let ok = owner < WAVE as u32 && dw < prog.owner_lds.map_or(0, |(n, _)| n);
                match memory::load_u32(sh.read_only(Space::Lds(OWNER_LDS))?, a) {
                    Some(v) if ok => r[i] = v,
                    _ => sh.oob(MemSpace::Lds(OWNER_LDS), a, false),
                }
                sh.lds_touch(OWNER_LDS, a, Access::Read);
            }
            if *exchange {
                it.pc = next;
                return Ok(Some(Flow::Exchange(r)));
            }
            write_dst(it, sh, &inst.dst, Ty::Untyped, r);
        }
        Op::OwnerWrite { abs, offset } => {
            let s = read_srcs(it, sh, prog, inst);
            let lane = (it.local as u64 % WAVE) as u32;
            for i in 0..4 {
                if inst.dst.mask[i] != DstComp::Write {
                    continue;
                }
                let dw = offset + i as u32;
                let a = owner_addr(prog, it.local, lane, dw, *abs);
                let fits = dw < prog.owner_lds.map_or(0, |(n, _)| n);
                if !fits || !memory::store_u32(sh.buffer(Space::Lds(OWNER_LDS))?, a, s[0][i]) {
                    sh.oob(MemSpace::Lds(OWNER_LDS), a, true);
                }
                sh.lds_touch(OWNER_LDS, a, Access::Write);
            }
        }
        Op::Tex { .. } => exec_tex(prog, it, sh, inst)?,
        Op::Load {
            space,
            addr,
            width,
            vec,
        } => {
            let s = read_srcs(it, sh, prog, inst);
            let base = address(sh, *space, *addr, &s);
            let mut r = [0u32; 4];
            let mut oob = false;
            let lds_id = match space {
                Space::Lds(id) => Some(*id),
                _ => None,
            };
            if *vec {
                let comps = typed_components(sh, *space, *addr);
                for i in 0..4 {
                    if inst.dst.mask[i] != DstComp::Write {
                        continue;
                    }
                    if i >= comps {
                        if let Addr::Typed(t) = addr {
                            r[i] = t.default_component(i);
                        }
                        continue;
                    }
                    let a = base + 4 * i as u64;
                    match memory::load_u32(sh.read_only(*space)?, a) {
                        Some(v) => r[i] = v,
                        None => oob = true,
                    }
                    if let Some(id) = lds_id {
                        sh.lds_touch(id, a, Access::Read);
                    }
                }
            } else {
                match memory::load_width(sh.read_only(*space)?, base, *width) {
                    Some(v) => r = [v; 4],
                    None => oob = true,
                }
                if let Some(id) = lds_id {
                    sh.lds_touch(id, base, Access::Read);
                }
            }
            if oob {
                sh.oob(mem_space(*space), base, false);
            }
            write_dst(it, sh, &inst.dst, Ty::Untyped, r);
        }
        Op::Store {
            space,
            addr,
            width,
            vec,
        } => {
            let s = read_srcs(it, sh, prog, inst);
            let base = address(sh, *space, *addr, &s);
            let data = s[inst.src.len().saturating_sub(1).min(3)];
            let mut oob = false;
            let mut touched = [None; 4];
            let comps = typed_components(sh, *space, *addr);
            {
                let buf = sh.buffer(*space)?;
                if *vec {
                    for i in 0..comps {
                        let v = match inst.dst.mask[i] {
                            DstComp::Write => data[i],
                            DstComp::Zero => 0,
                            DstComp::One => ONE,
                            DstComp::NoWrite => continue,
                        };
                        let a = base + 4 * i as u64;
                        oob |= !memory::store_u32(buf, a, v);
                        touched[i] = Some(a);
                    }
                } else {
                    oob |= !memory::store_width(buf, base, *width, data[0]);
                    touched[0] = Some(base);
                }
            }
            if let Space::Lds(id) = space {
                for a in touched.into_iter().flatten() {
                    sh.lds_touch(*id, a, Access::Write);
                }
            }
            if oob {
                sh.oob(mem_space(*space), base, true);
            }
        }
        Op::Atomic {
            space,
            addr,
            op,
            ret,
        } => {
            let s = read_srcs(it, sh, prog, inst);
            let base = address(sh, *space, *addr, &s);
            let (s1, s2) = (s[1][0], s[2][0]);
            let old = memory::atomic(sh.buffer(*space)?, base, *op, s1, s2);
            if let Space::Lds(id) = space {
                sh.lds_touch(*id, base, Access::Atomic);
            }
            if old.is_none() {
                sh.oob(mem_space(*space), base, true);
            }
            if *ret {
                write_dst(it, sh, &inst.dst, Ty::Int, [old.unwrap_or(0); 4]);
            }
        }
        Op::Append { uav, alloc } => {
            let c = sh.append.entry(*uav).or_insert(0);
            let old = *c;
            *c = if *alloc {
                old.wrapping_add(1)
            } else {
                old.wrapping_sub(1)
            };
            let v = if *alloc { old } else { *c };
            write_dst(it, sh, &inst.dst, Ty::Int, [v; 4]);
        }
        _ => {}
    }
    Ok(None)
}

/// Executes a texture operation (`sample`, `load`, `resinfo`...) of work-item `it`.
fn exec_tex(
    prog: &ExecProgram,
    it: &mut Item,
    sh: &mut Shared,
    inst: &Inst,
) -> Result<(), InterpError> {
    let Op::Tex {
        op,
        res,
        sampler,
        unnorm,
    } = &inst.op
    else {
        return Ok(());
    };
    let s = read_srcs(it, sh, prog, inst);
    let mut decl = *prog
        .resources
        .get(res)
        .ok_or_else(|| InterpError::Malformed {
            message: format!("resource {res} is not declared"),
            line: inst.line,
        })?;
    if let Some(u) = unnorm {
        decl.unnorm = *u;
    }
    let decl = &decl;
    let tex = sh.textures.get(res);
    let r = match (op, tex) {
        (TexOp::ResInfo { uint }, t) => texture::resinfo(t, decl, s[0][0], *uint),
        (_, None) => {
            return Err(InterpError::MissingBuffer(format!(
                "texture {res} (line {})",
                inst.line
            )))
        }
        (TexOp::Load(off), Some(t)) => texture::load(t, decl, s[0], *off),
        (TexOp::Gather(c), Some(t)) => {
            let st = sh.samplers.get(sampler).copied().unwrap_or_default();
            texture::gather(t, decl, &st, s[0], *c)
        }
        (TexOp::Sample | TexOp::SampleL, Some(t)) => {
            let st = sh.samplers.get(sampler).copied().unwrap_or_default();
            texture::sample(t, decl, &st, s[0])
        }
    };
    write_dst(it, sh, &inst.dst, Ty::Untyped, r);
    Ok(())
}
