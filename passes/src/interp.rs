//! A fuel-limited interpreter running a [`Function`] over a whole compute dispatch.
//!
//! Model: the grid is `grid[0] x grid[1] x grid[2]` groups of `group_size` work-items; groups
//! run one after another; the work-items of a group run between barriers in the order
//! chosen by [`Schedule`] (instruction-by-instruction round robin, each item to its next
//! barrier in id order or in reverse id order, or seeded random bursts), so code that
//! relies on an unspecified
//! interleaving shows different results under different schedules. A `barrier threads`
//! releases when every work-item that has not returned waits at a barrier.
//!
//! Memory: UAVs, constant buffers and `g[]` are caller-provided byte buffers
//! ([`Memory`]); LDS is allocated zeroed per group with the declared sizes; private arrays
//! per work-item. Out-of-range accesses read 0 and drop writes, as AMD IL promises; the
//! check is made per 4-byte word of a multi-word access (a `load.b128` straddling the end
//! of a buffer returns its in-range words), on the whole access for 1- and 2-byte ones,
//! and against the declared size for constant buffers.
//! Pure opcodes evaluate through [`crate::eval::eval_pure`].
//!
//! Independent of the AMD IL interpreter (`isa_amdil::interp`) and the SPA 5.0 emulator on
//! purpose: each defines the meaning of its own language, and the differential tests compare
//! them, so the lane scheduling, bounds checks and memory model that look alike are written
//! again here deliberately. What it shares is the IR's own definition of pure opcodes
//! ([`crate::eval`], also used by constant folding), which is the IR semantics, not a copy.
//!
//! Errors ([`Trap`]) name the instruction: out of fuel, `unreachable` reached, target
//! instructions without a [`TargetEval`] hook, a missing buffer. The interpreter
//! never panics on a function that passed the verifier.

use std::collections::BTreeMap;

use cranelift_entity::{EntityRef, SecondaryMap};
use smallvec::SmallVec;

use crate::eval::{controlling_type, eval_pure};
use crate::ir::write::inst_to_string;
use crate::ir::{
    AnyEntity, Block, Function, Inst, InstructionData, MemSpace, Opcode, SpecialReg, Type, Value,
};

/// Order in which the work-items of a group advance between barriers.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum Schedule {
    /// Round robin, one instruction per work-item per round (lock step).
    #[default]
    LockStep,
    /// Each work-item runs to its next barrier (or exit), in increasing id order.
    Sequential,
    /// As `Sequential`, in decreasing id order.
    Reverse,
    /// Each round visits the work-items in a pseudo-random order (seeded, reproducible)
    /// and runs each for a pseudo-random burst of 1 to 48 instructions.
    Shuffled {
        /// Seed of the xorshift generator.
        seed: u64,
    },
}

/// Launch configuration.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Dispatch {
    /// Number of groups in x, y, z.
    pub grid: [u32; 3],
    /// Work-items per group in x, y, z (`None`: the function's declared group size).
    pub group_size: Option<[u32; 3]>,
}

/// Buffers bound to a dispatch.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Memory {
    /// UAV contents by id.
    pub uavs: BTreeMap<u8, Vec<u8>>,
    /// Constant buffer contents by id.
    pub cbs: BTreeMap<u8, Vec<u8>>,
    /// Read-only resource (SRV) contents by id.
    pub srvs: BTreeMap<u8, Vec<u8>>,
    /// The global buffer `g[]`.
    pub global: Vec<u8>,
    /// Pixel-shader outputs `o#` by number (`width * height * 16` bytes each).
    pub outputs: BTreeMap<u8, Vec<u8>>,
    /// Pixel-shader domain (width, height): `special domain.x/.y`.
    pub domain: [u32; 2],
    /// Pixel-shader domain origin (x, y): `special origin.x/.y`.
    pub domain_origin: [u32; 2],
    /// Texture sizes by resource id: `special resdimN.x/.y/.z`.
    pub res_dims: BTreeMap<u8, [u32; 3]>,
    /// Typed UAV views by UAV id (components, width, height, depth): `special uavviewN.x`..
    /// `.w`; absent: one component, as wide as the UAV's 4-byte words, height and depth 1
    /// (`isa_amdil::interp::typed_uav::UavView::linear`).
    pub uav_views: BTreeMap<u8, [u32; 4]>,
    /// Append counters by UAV id (4 bytes each; created as 0 on first use).
    pub counters: BTreeMap<u8, Vec<u8>>,
}

/// Interpreter options.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct InterpOptions {
    /// Maximum number of instructions executed over the whole dispatch.
    pub fuel: u64,
    /// Work-item interleaving.
    pub schedule: Schedule,
}

impl Default for InterpOptions {
    fn default() -> Self {
        InterpOptions {
            fuel: 100_000_000,
            schedule: Schedule::LockStep,
        }
    }
}

/// Why execution stopped abnormally.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{location}: {message}")]
pub struct Trap {
    /// Where (an instruction, or the function).
    pub location: AnyEntity,
    /// What happened, including the instruction text when there is one.
    pub message: String,
}

/// Execution statistics.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Instructions executed.
    pub insts: u64,
    /// Barriers released.
    pub barriers: u64,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Status {
    Running,
    AtBarrier,
    /// Waiting at this `quad_shuffle` for the rest of its quad.
    AtShuffle(Inst),
    Done,
}

struct Item {
    tid: [u32; 3],
    flat: u32,
    next: Option<Inst>,
    values: SecondaryMap<Value, u64>,
    private: Vec<Vec<u8>>,
    status: Status,
    executed: u64,
}

/// Semantics of target-specific instructions, supplied by a backend so that IR after
/// instruction selection can still be interpreted (pure target operations only: the
/// interpreter handles memory, control flow and barriers through generic opcodes).
pub trait TargetEval {
    /// Evaluates target instruction `code` with immediate `imm` on operand cells `args`
    /// (typed `arg_types`); returns one cell per result, or a message naming what is
    /// unsupported.
    fn eval(
        &self,
        code: u16,
        imm: u64,
        args: &[u64],
        arg_types: &[Type],
    ) -> Result<SmallVec<[u64; 2]>, String>;
}

/// The textures a dispatch reads: semantics of `tex` instructions, supplied by whoever binds
/// the textures (the IR does not say how texels are stored or sampled).
pub trait TextureEval {
    /// The four result channels of texture instruction `tex` on operand words `args`, or
    /// why it cannot be evaluated (no such texture bound...).
    fn eval(&self, tex: &crate::ir::TexArg, args: &[u32]) -> Result<[u32; 4], String>;
}

/// Race tracking marks: no work-item yet / several work-items.
const NOBODY: u32 = u32::MAX;
const SEVERAL: u32 = u32::MAX - 1;

struct Group<'a> {
    func: &'a Function,
    target: Option<&'a dyn TargetEval>,
    textures: Option<&'a dyn TextureEval>,
    /// Per LDS word since the last barrier release: (writer, reader) work-item.
    races: Option<BTreeMap<u8, Vec<(u32, u32)>>>,
    gid: [u32; 3],
    grid: [u32; 3],
    size: [u32; 3],
    lds: BTreeMap<u8, Vec<u8>>,
}

fn trap(func: &Function, inst: Option<Inst>, msg: impl Into<String>) -> Trap {
    match inst {
        Some(i) => Trap {
            location: AnyEntity::Inst(i),
            message: format!("{} (in `{}`)", msg.into(), inst_to_string(func, i)),
        },
        None => Trap {
            location: AnyEntity::Function,
            message: msg.into(),
        },
    }
}

/// Runs `func` over the dispatch, reading and writing `mem`.
pub fn run_dispatch(
    func: &Function,
    dispatch: &Dispatch,
    mem: &mut Memory,
    opts: &InterpOptions,
) -> Result<Stats, Trap> {
    run_dispatch_with_target(func, dispatch, mem, opts, None)
}

/// As [`run_dispatch`], evaluating `target` instructions through `target`.
pub fn run_dispatch_with_target(
    func: &Function,
    dispatch: &Dispatch,
    mem: &mut Memory,
    opts: &InterpOptions,
    target: Option<&dyn TargetEval>,
) -> Result<Stats, Trap> {
    let hooks = Hooks {
        target,
        ..Hooks::default()
    };
    run_dispatch_with_hooks(func, dispatch, mem, opts, &hooks)
}

/// Optional interpreter extensions.
#[derive(Clone, Copy, Default)]
pub struct Hooks<'a> {
    /// Semantics of `target` instructions.
    pub target: Option<&'a dyn TargetEval>,
    /// Semantics of `tex` instructions (the bound textures).
    pub textures: Option<&'a dyn TextureEval>,
    /// Trap when two work-items of a group touch the same LDS word between two barrier
    /// releases and at least one of them writes it (atomics excepted): such code depends
    /// on the interleaving (AMD's 64-wide wavefront lock step is not Maxwell's 32).
    pub check_lds_races: bool,
}

/// As [`run_dispatch`], with [`Hooks`].
pub fn run_dispatch_with_hooks(
    func: &Function,
    dispatch: &Dispatch,
    mem: &mut Memory,
    opts: &InterpOptions,
    hooks: &Hooks<'_>,
) -> Result<Stats, Trap> {
    let target = hooks.target;
    let size = dispatch.group_size.or(func.group_size).ok_or_else(|| {
        trap(
            func,
            None,
            "no group size: the kernel declares none and the dispatch gives none",
        )
    })?;
    if func.launch_1d && (dispatch.grid[1] > 1 || dispatch.grid[2] > 1) {
        return Err(trap(
            func,
            None,
            format!(
                "the kernel assumes a 1-D launch (launch_1d) but the grid is {:?}",
                dispatch.grid
            ),
        ));
    }
    let items_per_group = size.iter().map(|&s| s as u64).product::<u64>();
    if items_per_group == 0 || items_per_group > 4096 {
        return Err(trap(
            func,
            None,
            format!("group size {size:?} must have 1..=4096 work-items"),
        ));
    }
    let entry = func
        .entry_block()
        .ok_or_else(|| trap(func, None, "function has no blocks"))?;
    let mut stats = Stats::default();
    let mut fuel = opts.fuel;
    for gz in 0..dispatch.grid[2] {
        for gy in 0..dispatch.grid[1] {
            for gx in 0..dispatch.grid[0] {
                let mut group = Group {
                    func,
                    target,
                    textures: hooks.textures,
                    races: hooks.check_lds_races.then(|| {
                        func.lds
                            .iter()
                            .map(|(&id, &s)| (id, vec![(NOBODY, NOBODY); s.div_ceil(4) as usize]))
                            .collect()
                    }),
                    gid: [gx, gy, gz],
                    grid: dispatch.grid,
                    size,
                    lds: func
                        .lds
                        .iter()
                        .map(|(&id, &s)| (id, vec![0u8; s as usize]))
                        .collect(),
                };
                group.run(entry, mem, opts.schedule, &mut fuel, &mut stats)?;
            }
        }
    }
    Ok(stats)
}

impl Group<'_> {
    fn run(
        &mut self,
        entry: Block,
        mem: &mut Memory,
        schedule: Schedule,
        fuel: &mut u64,
        stats: &mut Stats,
    ) -> Result<(), Trap> {
        let func = self.func;
        let mut items = Vec::new();
        for z in 0..self.size[2] {
            for y in 0..self.size[1] {
                for x in 0..self.size[0] {
                    let flat = (z * self.size[1] + y) * self.size[0] + x;
                    items.push(Item {
                        tid: [x, y, z],
                        flat,
                        next: func.layout.first_inst(entry),
                        values: SecondaryMap::new(),
                        private: func
                            .stack_slots
                            .values()
                            .map(|s| vec![0u8; s.size as usize])
                            .collect(),
                        status: Status::Running,
                        executed: 0,
                    });
                }
            }
        }
        let mut order: Vec<usize> = match schedule {
            Schedule::Reverse => (0..items.len()).rev().collect(),
            _ => (0..items.len()).collect(),
        };
        // xorshift64; the seed is mixed with the group id so groups differ.
        let mut rng = match schedule {
            Schedule::Shuffled { seed } => {
                (seed
                    ^ ((self.gid[0] as u64) << 32
                        | (self.gid[1] as u64) << 16
                        | self.gid[2] as u64))
                    .wrapping_mul(0x9E37_79B9_7F4A_7C15)
                    | 1
            }
            _ => 1,
        };
        let mut next_rand = move || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng
        };
        loop {
            let mut any_running = false;
            if let Schedule::Shuffled { .. } = schedule {
                for k in (1..order.len()).rev() {
                    order.swap(k, (next_rand() % (k as u64 + 1)) as usize);
                }
            }
            for &i in &order {
                if items[i].status != Status::Running {
                    continue;
                }
                any_running = true;
                let burst = match schedule {
                    Schedule::LockStep => 1,
                    Schedule::Shuffled { .. } => 1 + next_rand() % 48,
                    Schedule::Sequential | Schedule::Reverse => u64::MAX,
                };
                for _ in 0..burst {
                    self.step(&mut items[i], mem, fuel, stats)?;
                    if items[i].status != Status::Running {
                        break;
                    }
                }
            }
            if !any_running && !self.resolve_shuffles(&mut items)? {
                if items.iter().any(|it| it.status == Status::AtBarrier) {
                    stats.barriers += 1;
                    if let Some(r) = &mut self.races {
                        for words in r.values_mut() {
                            words.fill((NOBODY, NOBODY));
                        }
                    }
                    for it in items.iter_mut().filter(|it| it.status == Status::AtBarrier) {
                        it.status = Status::Running;
                    }
                } else {
                    return Ok(());
                }
            }
        }
    }

    /// Completes every `quad_shuffle` whose quad (work-items `4q..4q+3` by flat id) waits
    /// at it; called when no work-item can run. Returns whether any work-item was
    /// released. A quad not all waiting at the same `quad_shuffle`, or cut short by the group
    /// size, is a trap: the exchange needs all four together.
    fn resolve_shuffles(&self, items: &mut [Item]) -> Result<bool, Trap> {
        let func = self.func;
        let mut released = false;
        for base in (0..items.len()).step_by(4) {
            let quad = &items[base..items.len().min(base + 4)];
            let Some(inst) = quad.iter().find_map(|it| match it.status {
                Status::AtShuffle(i) => Some(i),
                _ => None,
            }) else {
                continue;
            };
            let with = quad
                .iter()
                .filter(|it| it.status == Status::AtShuffle(inst))
                .count();
            if with != 4 {
                return Err(trap(
                    func,
                    Some(inst),
                    format!(
                        "work-items {base}..{} must reach the quad exchange together; \
                         {with} of them did",
                        base + 3
                    ),
                ));
            }
            let args = func.dfg.inst_args(inst);
            let (x, k) = (args[0], args[1]);
            let r = func.dfg.inst_results(inst)[0];
            let vals: SmallVec<[u64; 4]> = quad
                .iter()
                .map(|it| quad[it.values[k] as usize & 3].values[x])
                .collect();
            for (it, v) in items[base..base + 4].iter_mut().zip(vals) {
                it.values[r] = v;
                it.status = Status::Running;
            }
            released = true;
        }
        Ok(released)
    }

    fn mem_buf<'m>(
        &'m mut self,
        item: &'m mut Item,
        mem: &'m mut Memory,
        space: MemSpace,
        inst: Inst,
    ) -> Result<&'m mut [u8], Trap> {
        let func = self.func;
        Ok(match space {
            MemSpace::Uav(id) => mem
                .uavs
                .get_mut(&id)
                .ok_or_else(|| trap(func, Some(inst), format!("no buffer bound to uav{id}")))?,
            MemSpace::Srv(id) => mem
                .srvs
                .get_mut(&id)
                .ok_or_else(|| trap(func, Some(inst), format!("no buffer bound to srv{id}")))?,
            MemSpace::Cb(id) => {
                let declared = func.cbs.get(&id).copied().unwrap_or(0) as usize;
                let buf = mem
                    .cbs
                    .get_mut(&id)
                    .ok_or_else(|| trap(func, Some(inst), format!("no buffer bound to cb{id}")))?;
                let n = buf.len().min(declared);
                &mut buf[..n]
            }
            MemSpace::Lds(id) => self
                .lds
                .get_mut(&id)
                .ok_or_else(|| trap(func, Some(inst), format!("lds{id} is not declared")))?,
            MemSpace::Private(ss) => item
                .private
                .get_mut(ss.index())
                .ok_or_else(|| trap(func, Some(inst), format!("{ss} is not declared")))?,
            MemSpace::Global => &mut mem.global,
            MemSpace::Output(id) => mem
                .outputs
                .get_mut(&id)
                .ok_or_else(|| trap(func, Some(inst), format!("no buffer bound to out{id}")))?,
            MemSpace::Counter(id) => mem.counters.entry(id).or_insert_with(|| vec![0; 4]),
        })
    }

    /// Records an LDS access for race checking.
    fn track(
        &mut self,
        space: MemSpace,
        addr: i64,
        n: usize,
        who: u32,
        write: bool,
        inst: Inst,
    ) -> Result<(), Trap> {
        let (MemSpace::Lds(id), Some(races)) = (space, &mut self.races) else {
            return Ok(());
        };
        let Some(words) = races.get_mut(&id) else {
            return Ok(());
        };
        // Bytes below the buffer are out of range (not tracked).
        let Ok(addr) = u64::try_from(addr) else {
            return Ok(());
        };
        let first = (addr / 4) as usize;
        let last = ((addr + n as u64).saturating_sub(1) / 4) as usize;
        for w in first..=last.min(words.len().saturating_sub(1)) {
            if w >= words.len() {
                break;
            }
            let (writer, reader) = &mut words[w];
            let other_writer = *writer != NOBODY && *writer != who;
            let other_reader = *reader != NOBODY && *reader != who;
            if other_writer || (write && other_reader) {
                let other = if other_writer { *writer } else { *reader };
                let other = if other == SEVERAL {
                    "other work-items".to_string()
                } else {
                    format!("work-item {other}")
                };
                return Err(trap(
                    self.func,
                    Some(inst),
                    format!(
                        "LDS race on lds{id} word {w} (byte {}): work-item {who} {} it after {other} without a barrier",
                        4 * w,
                        if write { "writes" } else { "reads" }
                    ),
                ));
            }
            if write {
                *writer = who;
            } else if *reader == NOBODY {
                *reader = who;
            } else if *reader != who {
                *reader = SEVERAL;
            }
        }
        Ok(())
    }

    fn special(&self, item: &Item, mem: &Memory, reg: SpecialReg) -> u64 {
        let c = |i: u8| (i as usize).min(2);
        (match reg {
            SpecialReg::Tid(i) => item.tid[c(i)],
            SpecialReg::GroupId(i) => self.gid[c(i)],
            SpecialReg::GroupSize(i) => self.size[c(i)],
            SpecialReg::GridSize(i) => self.grid[c(i)],
            SpecialReg::LaneId => item.flat % 32,
            SpecialReg::Clock => item.executed as u32,
            SpecialReg::Domain(i) => mem.domain[(i as usize).min(1)],
            SpecialReg::DomainOrigin(i) => mem.domain_origin[(i as usize).min(1)],
            SpecialReg::ResDim(id, i) => mem.res_dims.get(&id).map_or(0, |d| d[c(i)]),
            SpecialReg::UavView(id, i) => {
                let view = mem.uav_views.get(&id).copied().unwrap_or_else(|| {
                    let len = mem.uavs.get(&id).map_or(0, Vec::len);
                    [1, u32::try_from(len / 4).unwrap_or(u32::MAX), 1, 1]
                });
                view[(i as usize).min(3)]
            }
            SpecialReg::BufLen(space) => {
                let len = match space {
                    MemSpace::Uav(id) => mem.uavs.get(&id).map_or(0, Vec::len),
                    MemSpace::Srv(id) => mem.srvs.get(&id).map_or(0, Vec::len),
                    MemSpace::Global => mem.global.len(),
                    _ => 0,
                };
                u32::try_from(len).unwrap_or(u32::MAX)
            }
        }) as u64
    }

    fn step(
        &mut self,
        item: &mut Item,
        mem: &mut Memory,
        fuel: &mut u64,
        stats: &mut Stats,
    ) -> Result<(), Trap> {
        let func = self.func;
        let Some(inst) = item.next else {
            return Err(trap(
                func,
                None,
                "fell off the end of a block without a terminator",
            ));
        };
        if *fuel == 0 {
            return Err(trap(func, Some(inst), "out of fuel"));
        }
        *fuel -= 1;
        stats.insts += 1;
        item.executed += 1;
        item.next = func.layout.next_inst(inst);
        let data = &func.dfg.insts[inst];
        let args: SmallVec<[u64; 4]> = data.args().iter().map(|&v| item.values[v]).collect();
        let results = func.dfg.inst_results(inst);
        let set = |item: &mut Item, vals: &[u64]| {
            for (&r, &x) in results.iter().zip(vals) {
                item.values[r] = x & func.dfg.value_type(r).mask();
            }
        };
        match data {
            InstructionData::Special { reg, .. } => {
                let x = self.special(item, mem, *reg);
                set(item, &[x]);
            }
            InstructionData::Binary {
                opcode: Opcode::QuadShuffle,
                ..
            } => item.status = Status::AtShuffle(inst),
            InstructionData::Load { mem: m, .. } => {
                let addr = address(data, &args, m.offset);
                let n = m.size.bytes() as usize;
                self.track(m.space, addr, n, item.flat, false, inst)?;
                let buf = self.mem_buf(item, mem, m.space, inst)?;
                promised_in_range(func, inst, m, buf.len(), addr)?;
                let mut bytes = [0u8; 16];
                // Bounds are checked per 4-byte word (sub-word accesses as a whole).
                for k in (0..n).step_by(4) {
                    let w = (n - k).min(4);
                    if let Some(src) = range(buf.len(), addr + k as i64, w) {
                        bytes[k..k + w].copy_from_slice(&buf[src]);
                    }
                }
                let mut vals: SmallVec<[u64; 4]> = SmallVec::new();
                match m.size {
                    crate::ir::MemSize::U8 => vals.push(bytes[0] as u64),
                    crate::ir::MemSize::S8 => vals.push(bytes[0] as i8 as i32 as u32 as u64),
                    crate::ir::MemSize::U16 => {
                        vals.push(u16::from_le_bytes([bytes[0], bytes[1]]) as u64)
                    }
                    crate::ir::MemSize::S16 => {
                        vals.push(i16::from_le_bytes([bytes[0], bytes[1]]) as i32 as u32 as u64)
                    }
                    crate::ir::MemSize::Words(w) => {
                        for k in 0..w as usize {
                            let b = &bytes[4 * k..4 * k + 4];
                            vals.push(u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as u64);
                        }
                    }
                }
                set(item, &vals);
            }
            InstructionData::Store { mem: m, .. } => {
                let addr = address(data, &args, m.offset);
                let skip = usize::from(data.mem_addr().is_some());
                let mut bytes = Vec::with_capacity(16);
                for &w in &args[skip..] {
                    bytes.extend_from_slice(&(w as u32).to_le_bytes());
                }
                let n = m.size.bytes() as usize;
                self.track(m.space, addr, n, item.flat, true, inst)?;
                let buf = self.mem_buf(item, mem, m.space, inst)?;
                promised_in_range(func, inst, m, buf.len(), addr)?;
                for k in (0..n).step_by(4) {
                    let w = (n - k).min(4);
                    if let Some(dst) = range(buf.len(), addr + k as i64, w) {
                        buf[dst].copy_from_slice(&bytes[k..k + w]);
                    }
                }
            }
            InstructionData::Atomic { op, mem: m, .. } => {
                let addr = address(data, &args, m.offset);
                let skip = usize::from(data.mem_addr().is_some());
                let operands: SmallVec<[u32; 2]> = args[skip..].iter().map(|&x| x as u32).collect();
                let buf = self.mem_buf(item, mem, m.space, inst)?;
                promised_in_range(func, inst, m, buf.len(), addr)?;
                let mut old = 0u32;
                if let Some(r) = range(buf.len(), addr, 4) {
                    let b = &buf[r.clone()];
                    old = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
                    let new = op.apply(old, &operands);
                    buf[r].copy_from_slice(&new.to_le_bytes());
                }
                set(item, &[old as u64]);
            }
            InstructionData::Barrier { flags, .. } => {
                if flags.threads {
                    item.status = Status::AtBarrier;
                }
            }
            InstructionData::Nullary {
                opcode: Opcode::Return,
                ..
            } => {
                item.status = Status::Done;
                item.next = None;
            }
            InstructionData::Nullary { .. } => {
                return Err(trap(func, Some(inst), "reached `unreachable`"));
            }
            InstructionData::Jump { dests, .. } => self.branch(item, &dests[0]),
            InstructionData::Brif { dests, .. } => {
                let d = if args[0] != 0 { &dests[0] } else { &dests[1] };
                self.branch(item, d);
            }
            InstructionData::BrTable { dests, .. } => {
                let idx = args[0] as usize;
                let d = dests.get(idx + 1).or(dests.first());
                match d {
                    Some(d) => self.branch(item, d),
                    None => return Err(trap(func, Some(inst), "br_table without destinations")),
                }
            }
            InstructionData::Texture { tex, .. } => {
                let Some(t) = self.textures else {
                    return Err(trap(
                        func,
                        Some(inst),
                        "no textures are bound to the dispatch",
                    ));
                };
                let words: SmallVec<[u32; 4]> = args.iter().map(|&a| a as u32).collect();
                let vals = t.eval(tex, &words).map_err(|e| trap(func, Some(inst), e))?;
                let vals = vals.map(u64::from);
                set(item, &vals);
            }
            InstructionData::Target { code, imm, .. } => {
                let Some(t) = self.target else {
                    return Err(trap(
                        func,
                        Some(inst),
                        "target instructions cannot be interpreted without a TargetEval",
                    ));
                };
                let tys: SmallVec<[Type; 4]> = data
                    .args()
                    .iter()
                    .map(|&v| func.dfg.value_type(v))
                    .collect();
                let vals = t
                    .eval(*code, *imm, &args, &tys)
                    .map_err(|e| trap(func, Some(inst), e))?;
                if vals.len() != results.len() {
                    return Err(trap(
                        func,
                        Some(inst),
                        format!(
                            "target evaluation gave {} results, expected {}",
                            vals.len(),
                            results.len()
                        ),
                    ));
                }
                set(item, &vals);
            }
            _ => {
                let tys: SmallVec<[Type; 4]> = data
                    .args()
                    .iter()
                    .map(|&v| func.dfg.value_type(v))
                    .collect();
                let ty = controlling_type(data, &tys);
                match eval_pure(data, ty, &args) {
                    Some(vals) => set(item, &vals),
                    None => {
                        return Err(trap(
                            func,
                            Some(inst),
                            "instruction has no interpreter semantics",
                        ))
                    }
                }
            }
        }
        Ok(())
    }

    fn branch(&self, item: &mut Item, call: &crate::ir::BlockCall) {
        let func = self.func;
        // Parallel copy: read every argument before writing any parameter.
        let vals: SmallVec<[u64; 8]> = call.args.iter().map(|&v| item.values[v]).collect();
        for (&p, x) in func.dfg.block_params(call.block).iter().zip(vals) {
            item.values[p] = x;
        }
        item.next = func.layout.first_inst(call.block);
    }
}

/// Effective byte address of a memory instruction: the unsigned 32-bit address argument plus
/// the signed offset, exactly (no wrap-around; it may be negative or above 2^32).
fn address(data: &InstructionData, args: &[u64], offset: i32) -> i64 {
    let base = if data.mem_addr().is_some() {
        i64::from(args[0] as u32)
    } else {
        0
    };
    base + i64::from(offset)
}

/// The byte range `[addr, addr + n)` if it lies wholly inside a buffer of `len` bytes.
/// An access marked `inbounds` must lie wholly in its buffer (undefined behaviour otherwise:
/// a trap here, so tests see a pass that marked an access wrongly).
fn promised_in_range(
    func: &Function,
    inst: Inst,
    m: &crate::ir::MemArg,
    len: usize,
    addr: i64,
) -> Result<(), Trap> {
    if !m.inbounds || range(len, addr, m.size.bytes() as usize).is_some() {
        return Ok(());
    }
    Err(trap(
        func,
        Some(inst),
        format!(
            "access marked inbounds is out of range: {} bytes at {addr} of {} ({len} bytes)",
            m.size.bytes(),
            m.space
        ),
    ))
}

fn range(len: usize, addr: i64, n: usize) -> Option<core::ops::Range<usize>> {
    let start = usize::try_from(addr).ok()?;
    let end = start.checked_add(n)?;
    (end <= len).then_some(start..end)
}

/// Words of a byte buffer (little endian; a trailing partial word is zero-padded).
pub fn bytes_to_words(b: &[u8]) -> Vec<u32> {
    b.chunks(4)
        .map(|c| {
            let mut w = [0u8; 4];
            w[..c.len()].copy_from_slice(c);
            u32::from_le_bytes(w)
        })
        .collect()
}

/// Bytes of a word slice (little endian).
pub fn words_to_bytes(w: &[u32]) -> Vec<u8> {
    w.iter().flat_map(|x| x.to_le_bytes()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::reader::parse_function_text;

    fn run(
        text: &str,
        grid: [u32; 3],
        uav0: Vec<u32>,
        schedule: Schedule,
    ) -> Result<Vec<u32>, Trap> {
        let f = parse_function_text(text).unwrap();
        crate::verifier::verify_function(&f).unwrap();
        let mut mem = Memory::default();
        mem.uavs.insert(0, words_to_bytes(&uav0));
        run_dispatch(
            &f,
            &Dispatch {
                grid,
                group_size: None,
            },
            &mut mem,
            &InterpOptions {
                fuel: 100_000,
                schedule,
            },
        )?;
        Ok(bytes_to_words(&mem.uavs[&0]))
    }

    const LOOP: &str = "kernel %sum {
    group_size 4, 1, 1
    uav0 = raw
block0:
    v0 = special tid.x
    v1 = special ctaid.x
    v2 = iconst.b32 4
    v3 = imad v1, v2, v0
    v4 = iconst.b32 0
    jump block1(v4, v4)
block1(v5: b32, v6: b32):
    v7 = iadd v5, v6
    v8 = iconst.b32 1
    v9 = iadd v6, v8
    v10 = icmp ule v9, v3
    brif v10, block1(v7, v9), block2
block2:
    v12 = iconst.b32 2
    v13 = ishl v3, v12
    store.b32 uav0[v13], v7
    return
}";

    #[test]
    fn loops_and_ids() {
        // Work-item n (global id) accumulates 0 + 1 + ... + n.
        let out = run(LOOP, [2, 1, 1], vec![0; 8], Schedule::LockStep).unwrap();
        let expect2: Vec<u32> = (0..8u32).map(|n| (0..=n).sum()).collect();
        assert_eq!(out, expect2);
        for s in [Schedule::Sequential, Schedule::Reverse] {
            assert_eq!(run(LOOP, [2, 1, 1], vec![0; 8], s).unwrap(), expect2);
        }
    }

    /// Each work-item reads `uav0[tid]` and receives its quad neighbour `3 - (tid & 3)`'s
    /// value; odd work-items skip the exchange in `SKIP`.
    const SHUFFLE: &str = "kernel %quad {
    group_size 8, 1, 1
    uav0 = raw
block0:
    v0 = special tid.x
    v1 = iconst.b32 2
    v2 = ishl v0, v1
    v3 = load.b32 uav0[v2]
    v4 = iconst.b32 3
    v5 = isub v4, v0
    v6 = quad_shuffle v3, v5
    store.b32 uav0[v2], v6
    return
}";

    #[test]
    fn quad_shuffle_exchanges_within_quads() {
        let input: Vec<u32> = (0..8).map(|i| 100 + i).collect();
        for s in [
            Schedule::LockStep,
            Schedule::Sequential,
            Schedule::Reverse,
            Schedule::Shuffled { seed: 3 },
        ] {
            let out = run(SHUFFLE, [1, 1, 1], input.clone(), s).unwrap();
            assert_eq!(out, [103, 102, 101, 100, 107, 106, 105, 104], "{s:?}");
        }
        let skip = SHUFFLE
            .replace(
                "v6 = quad_shuffle v3, v5\n",
                "v7 = iconst.b32 1\n    v8 = and v0, v7\n    v9 = icmp eq v8, v7\n    \
                 brif v9, block2, block1\nblock1:\n    v6 = quad_shuffle v3, v5\n",
            )
            .replace("    return\n}", "    return\nblock2:\n    return\n}");
        let e = run(&skip, [1, 1, 1], input, Schedule::LockStep).unwrap_err();
        assert!(e.message.contains("2 of them"), "{e}");
    }

    const BARRIER: &str = "kernel %rev {
    group_size 4, 1, 1
    uav0 = raw
    lds0 = 16
block0:
    v0 = special tid.x
    v1 = iconst.b32 2
    v2 = ishl v0, v1
    v3 = load.b32 uav0[v2]
    store.b32 lds0[v2], v3
    barrier threads|lds
    v4 = iconst.b32 12
    v5 = isub v4, v2
    v6 = load.b32 lds0[v5]
    store.b32 uav0[v2], v6
    return
}";

    #[test]
    fn barrier_orders_lds() {
        for s in [
            Schedule::LockStep,
            Schedule::Sequential,
            Schedule::Reverse,
            Schedule::Shuffled { seed: 7 },
            Schedule::Shuffled { seed: 8 },
        ] {
            assert_eq!(
                run(BARRIER, [1, 1, 1], vec![1, 2, 3, 4], s).unwrap(),
                vec![4, 3, 2, 1]
            );
        }
        // Shuffled schedules are reproducible and differ between seeds.
        let racy_loop = LOOP.replace("group_size 4, 1, 1", "group_size 64, 1, 1");
        let a = run(
            &racy_loop,
            [1, 1, 1],
            vec![0; 64],
            Schedule::Shuffled { seed: 1 },
        )
        .unwrap();
        let b = run(
            &racy_loop,
            [1, 1, 1],
            vec![0; 64],
            Schedule::Shuffled { seed: 1 },
        )
        .unwrap();
        assert_eq!(a, b);
        // Without the barrier the sequential schedule exposes the race.
        let racy = BARRIER.replace("    barrier threads|lds\n", "");
        assert_ne!(
            run(&racy, [1, 1, 1], vec![1, 2, 3, 4], Schedule::Sequential).unwrap(),
            run(&racy, [1, 1, 1], vec![1, 2, 3, 4], Schedule::Reverse).unwrap()
        );
    }

    struct AddOne;
    impl TargetEval for AddOne {
        fn eval(
            &self,
            code: u16,
            imm: u64,
            args: &[u64],
            _: &[Type],
        ) -> Result<SmallVec<[u64; 2]>, String> {
            match code {
                7 => Ok(smallvec::smallvec![(args[0] + imm) & 0xFFFF_FFFF]),
                _ => Err(format!("unknown target code {code}")),
            }
        }
    }

    #[test]
    fn target_instructions_use_the_hook() {
        let text = "kernel %k {\n group_size 2, 1, 1\n uav0 = raw\nblock0:\n v0 = special tid.x\n \
                    v1 = target.7 0x10 v0 -> b32\n v2 = iconst.b32 0x2\n v3 = ishl v0, v2\n \
                    store.b32 uav0[v3], v1\n return\n}";
        let f = parse_function_text(text).unwrap();
        let mut mem = Memory::default();
        mem.uavs.insert(0, vec![0; 8]);
        let d = Dispatch {
            grid: [1, 1, 1],
            group_size: None,
        };
        let e = run_dispatch(&f, &d, &mut mem, &InterpOptions::default()).unwrap_err();
        assert!(e.message.contains("TargetEval"), "{e}");
        run_dispatch_with_target(&f, &d, &mut mem, &InterpOptions::default(), Some(&AddOne))
            .unwrap();
        assert_eq!(bytes_to_words(&mem.uavs[&0]), vec![16, 17]);
        let bad = text.replace("target.7", "target.8");
        let f = parse_function_text(&bad).unwrap();
        let e =
            run_dispatch_with_target(&f, &d, &mut mem, &InterpOptions::default(), Some(&AddOne))
                .unwrap_err();
        assert!(e.message.contains("unknown target code 8"), "{e}");
    }

    #[test]
    fn lds_race_check() {
        let d = Dispatch {
            grid: [1, 1, 1],
            group_size: None,
        };
        let hooks = Hooks {
            check_lds_races: true,
            ..Hooks::default()
        };
        let check = |text: &str| {
            let f = parse_function_text(text).unwrap();
            let mut mem = Memory::default();
            mem.uavs.insert(0, words_to_bytes(&[1, 2, 3, 4]));
            run_dispatch_with_hooks(&f, &d, &mut mem, &InterpOptions::default(), &hooks)
        };
        check(BARRIER).unwrap();
        let racy = BARRIER.replace("    barrier threads|lds\n", "");
        let e = check(&racy).unwrap_err();
        assert!(e.message.contains("LDS race on lds0"), "{e}");
    }

    #[test]
    fn out_of_range_and_traps() {
        let text = "kernel %k {
    group_size 1, 1, 1
    uav0 = raw
block0:
    v0 = iconst.b32 0x100
    v1 = load.b32 uav0[v0]
    v2 = iconst.b32 1
    v3 = iadd v1, v2
    store.b32 uav0[v0], v3
    store.b32 uav0[4], v3
    v4 = atomic.add uav0[v0], v2
    store.b32 uav0[8], v4
    v5 = atomic.add uav0[0], v2
    store.b32 uav0[12], v5
    return
}";
        assert_eq!(
            run(text, [1, 1, 1], vec![7, 0, 9, 0], Schedule::LockStep).unwrap(),
            vec![8, 1, 0, 7]
        );
        let inf =
            "kernel %k {\n group_size 1, 1, 1\nblock0:\n jump block1\nblock1:\n jump block1\n}";
        let e = run(inf, [1, 1, 1], vec![], Schedule::LockStep).unwrap_err();
        assert!(e.message.contains("out of fuel"), "{e}");
        let un = "kernel %k {\n group_size 1, 1, 1\nblock0:\n unreachable\n}";
        let e = run(un, [1, 1, 1], vec![], Schedule::LockStep).unwrap_err();
        assert!(e.message.contains("unreachable"), "{e}");
        let e = run(
            "kernel %k {\nblock0:\n return\n}",
            [1, 1, 1],
            vec![],
            Schedule::LockStep,
        )
        .unwrap_err();
        assert!(e.message.contains("no group size"), "{e}");
    }
}
