//! The SPA 5.0 target description: the per-function template table behind `Target`
//! instructions, and the [`TargetIsa`] implementation the generic scheduler and register
//! allocator use.
//!
//! **Encoding of the target escape.** A `Target { code, imm, .. }` instruction produced by
//! instruction selection stands for a short sequence (usually one) of `isa_spa5::Inst`s: its
//! `code` indexes [`Spa5Target::templates`], a per-function table of [`Template`]s. A template
//! holds real `isa_spa5::Inst`s whose register operands are *placeholders*: a [`Slot`] per
//! operand says which IR argument or result (and which register of a multi-register value)
//! fills it. `imm` is only used by the spill/reload templates (the byte offset in the spill
//! area). Identical templates are shared (the table is deduplicated), so the table stays small.
//! Codes below [`FIRST_DYNAMIC`] are fixed templates (moves, spills, reloads) that exist in every
//! table, because the allocator asks for them through `&self` methods.
//!
//! Guarantees: `sched_info` and `constraints` are pure functions of the template; multi-register
//! results/operands are described as aligned groups; a template whose sequence writes a result
//! before it has read all operands is an early clobber.
//!
//! Latencies live here, in [`latency_of`] (isa-spa5 has no latency table yet): fixed-latency
//! ALU results are ready after 6 cycles, predicate results after 13; everything flagged
//! `VAR_LAT` in the isa-spa5 table is scoreboarded.

use ilc_passes::FastHashMap as HashMap;

use ilc_passes::ir::{Function, Inst, InstructionData, RegFile, Type, Value};
use ilc_passes::target::{
    BankReads, InstConstraints, LatencyKind, MemClasses, MemEffects, RegGroup, Resource, SchedInfo,
    TargetIsa,
};
use isa_spa5::inst::{ModError, Operand};
use isa_spa5::latency;
use isa_spa5::mods::{ICmp, Size};
use isa_spa5::table::{flags, Class, OpKind, MAX_OPERANDS};
use isa_spa5::TypedMod;
use isa_spa5::{Inst as MInst, ModKind, Op, Pred, PredReg, Reg};
use smallvec::SmallVec;
use std::sync::Arc;

/// Where a template operand's register comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Slot {
    /// Keep the template's operand as is (immediates, `RZ`, `PT`, constants).
    #[default]
    Keep,
    /// Register `part` of IR argument `k` (a GPR, or the predicate for pred values).
    Arg(u8, u8),
    /// Same as `Arg` but a predicate source negated.
    ArgNot(u8),
    /// Register `part` of IR result `k`.
    Res(u8, u8),
    /// `[Rk + template offset]`: a memory operand based on argument `k`.
    MemArg(u8),
    /// `c[bank][Rk + offset]`: an LDC operand indexed by argument `k`.
    CIdxArg(u8),
    /// `[RZ + spill base + imm]`: the spill area.
    Spill,
    /// The backend's scratch GPR (used by predicate spills).
    Scratch,
}

/// One machine instruction of a template. Hashed as one write of packed words (as
/// [`MInst`] is): interning hashes every template selection makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TInst {
    /// The instruction with placeholder operands.
    pub inst: MInst,
    /// How each operand is filled.
    pub slots: [Slot; MAX_OPERANDS],
    /// Guard predicate taken from an IR argument: (argument, negated).
    pub guard: Option<(u8, bool)>,
}

impl std::hash::Hash for TInst {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        const N: usize = isa_spa5::inst::HASH_WORDS;
        // The instruction's words, two slots a word, the guard.
        const G: usize = N + MAX_OPERANDS.div_ceil(2);
        let mut w = [0u64; G + 1];
        w[..N].copy_from_slice(&self.inst.hash_words());
        for (k, s) in self.slots.iter().enumerate() {
            let (tag, a, b) = match *s {
                Slot::Keep => (0u8, 0, 0),
                Slot::Arg(a, p) => (1, a, p),
                Slot::ArgNot(a) => (2, a, 0),
                Slot::Res(r, p) => (3, r, p),
                Slot::MemArg(a) => (4, a, 0),
                Slot::CIdxArg(a) => (5, a, 0),
                Slot::Spill => (6, 0, 0),
                Slot::Scratch => (7, 0, 0),
            };
            let packed = u64::from(tag) | u64::from(a) << 8 | u64::from(b) << 16;
            w[N + k / 2] |= packed << (32 * (k % 2));
        }
        w[G] = match self.guard {
            None => 0,
            Some((a, not)) => 1 | u64::from(a) << 8 | u64::from(not) << 16,
        };
        std::hash::Hash::hash_slice(&w, state);
    }
}

impl TInst {
    /// An instruction with the given slots (missing slots are `Keep`).
    pub fn new(inst: MInst, slots: &[Slot]) -> TInst {
        let mut s = [Slot::Keep; MAX_OPERANDS];
        for (d, x) in s.iter_mut().zip(slots) {
            *d = *x;
        }
        TInst {
            inst,
            slots: s,
            guard: None,
        }
    }

    /// Guarded by IR argument `arg` (negated if `not`).
    pub fn guarded(mut self, arg: u8, not: bool) -> TInst {
        self.guard = Some((arg, not));
        self
    }
}

/// A run of consecutive aligned registers (operands or results `start..start+len`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Group {
    /// First member.
    pub start: u8,
    /// Number of members.
    pub len: u8,
    /// Alignment in registers.
    pub align: u8,
}

impl Group {
    /// As the allocator's constraint.
    pub fn to_reg_group(self) -> RegGroup {
        RegGroup {
            start: self.start,
            len: self.len,
            align: self.align,
        }
    }
}

/// A sequence of machine instructions standing for one `Target` IR instruction.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Template {
    /// The instructions, in order.
    pub seq: SmallVec<[TInst; 2]>,
    /// Consecutive-result groups (see [`InstConstraints`]).
    pub result_groups: SmallVec<[Group; 1]>,
    /// Consecutive-operand groups.
    pub arg_groups: SmallVec<[Group; 2]>,
    /// Has memory side effects (stores, atomics, barriers).
    pub side_effects: bool,
}

impl Template {
    /// Checks the template against its forms: every slot that fills a register names a
    /// hole (or a predicate), every hole is filled, memory slots sit on memory operands,
    /// slots past the form's operands are `Keep`, every modifier value is valid, and the
    /// arguments referenced exist (`args` of them). `Err` says which instruction and why.
    pub fn check(&self, args: usize) -> Result<(), String> {
        for (n, ti) in self.seq.iter().enumerate() {
            let form = ti.inst.form();
            let at =
                |what: String| format!("{} (instruction {n} of the template): {what}", form.name);
            for (k, slot) in ti.slots.iter().enumerate() {
                let op = ti.inst.operands[k];
                let Some(field) = form.operands.get(k) else {
                    if *slot != Slot::Keep {
                        return Err(at(format!(
                            "slot {slot:?} past the {} operands",
                            form.operands.len()
                        )));
                    }
                    continue;
                };
                let reg_field = matches!(
                    field.kind,
                    OpKind::Gpr(_) | OpKind::Next(_) | OpKind::Same(_)
                );
                let arg = match *slot {
                    Slot::Arg(a, _) | Slot::ArgNot(a) | Slot::MemArg(a) | Slot::CIdxArg(a) => {
                        Some(a)
                    }
                    _ => None,
                };
                if let Some(a) = arg {
                    if usize::from(a) >= args {
                        return Err(at(format!("slot {slot:?} reads argument {a} of {args}")));
                    }
                }
                let ok = match *slot {
                    Slot::Keep => op != Operand::Hole,
                    Slot::Arg(..) | Slot::Res(..) | Slot::Scratch => {
                        (reg_field && op == Operand::Hole) || matches!(op, Operand::Pred(_))
                    }
                    Slot::ArgNot(_) => matches!(op, Operand::Pred(_)),
                    Slot::MemArg(_) | Slot::Spill => matches!(op, Operand::Mem { .. }),
                    Slot::CIdxArg(_) => matches!(op, Operand::CIdx { .. }),
                };
                if !ok {
                    return Err(at(match slot {
                        Slot::Keep => format!("operand {k} is a hole no slot fills"),
                        _ => format!("slot {slot:?} does not fit operand {k} ({op:?})"),
                    }));
                }
            }
            for (m, &v) in form.mods.iter().zip(&ti.inst.mods) {
                let valid = match m.place {
                    // Video selects and the IADD negation pair are validated by the encoder.
                    isa_spa5::table::Place::Video(_) | isa_spa5::table::Place::NegPo(..) => true,
                    _ => m.name(v).is_some(),
                };
                if !valid {
                    return Err(at(format!("modifier {:?} has no value {v}", m.kind)));
                }
            }
            if let Some((g, _)) = ti.guard {
                if usize::from(g) >= args {
                    return Err(at(format!("guard reads argument {g} of {args}")));
                }
            }
        }
        Ok(())
    }

    /// A one-instruction template.
    pub fn one(t: TInst) -> Template {
        Template {
            seq: [t].into_iter().collect(),
            ..Default::default()
        }
    }

    /// A template of several instructions.
    pub fn many(ts: &[TInst]) -> Template {
        Template {
            seq: ts.iter().copied().collect(),
            ..Default::default()
        }
    }
}

/// Fixed template codes.
pub mod codes {
    /// `MOV` of a `b32`.
    pub const MOV32: u16 = 0;
    /// Two `MOV`s of a `b64`.
    pub const MOV64: u16 = 1;
    /// Predicate copy (`PSETP.AND.AND`).
    pub const MOVP: u16 = 2;
    /// `STL` of a `b32` to the spill area.
    pub const SPILL32: u16 = 3;
    /// `STL.64` of a `b64`.
    pub const SPILL64: u16 = 4;
    /// Predicate spill through the scratch register.
    pub const SPILLP: u16 = 5;
    /// `LDL` of a `b32`.
    pub const RELOAD32: u16 = 6;
    /// `LDL.64` of a `b64`.
    pub const RELOAD64: u16 = 7;
    /// Predicate reload through the scratch register.
    pub const RELOADP: u16 = 8;
}

/// The first code given to templates made by instruction selection.
pub const FIRST_DYNAMIC: u16 = 9;

/// The highest GPR the allocator is never given. Predicate spills use the first GPR the
/// allocator left unused as scratch (at most this one).
pub const SCRATCH: Reg = Reg(254);

/// Latency class of one machine instruction for the scheduler: (fixed?, cycles, unit). The
/// numbers are `isa_spa5::latency`'s (the one timing model, which the control-word pass and
/// the emulator's hazard checker also read): a fixed-latency result takes
/// [`latency::FIXED_LATENCY`] cycles (a predicate [`latency::pred_latency`]), a variable one its
/// class's typical latency; the unit is the instruction class's pipe.
pub fn latency_of(i: &MInst) -> (LatencyKind, u16, Resource) {
    let f = i.form();
    let res = match f.class {
        Class::Global | Class::Tex | Class::Shared | Class::Const => Resource::Mem,
        Class::Sfu => Resource::Sfu,
        Class::Dbl => Resource::Fp64,
        Class::Ctrl | Class::Sync => Resource::Control,
        _ => Resource::Alu,
    };
    match latency::timing(i).gpr {
        latency::Latency::Variable { typical } => (LatencyKind::Variable, typical, res),
        _ if f.has(flags::STORE) || f.has(flags::SIDE) => (LatencyKind::Fixed, 1, Resource::Mem),
        _ if matches!(res, Resource::Control) => (LatencyKind::Fixed, 1, Resource::Control),
        latency::Latency::Fixed(l) => {
            let writes_pred = i.defs().iter().any(|l| matches!(l, isa_spa5::Loc::Pred(_)));
            let l = if writes_pred {
                l.max(latency::pred_latency())
            } else {
                l
            };
            (LatencyKind::Fixed, u16::from(l.max(1)), Resource::Alu)
        }
    }
}

/// The SPA 5.0 target: the template table of one function.
#[derive(Clone, Debug)]
pub struct Spa5Target {
    /// Templates indexed by `code`.
    pub templates: Vec<Template>,
    /// Codes of the templates by hash (templates are large: the table keeps only their
    /// codes, so building it moves two bytes per entry instead of whole templates).
    index: HashMap<u64, SmallVec<[u16; 1]>>,
    /// What the allocator and scheduler ask of each template, by code, with the template's
    /// hash: computed on the first question, or taken from the process's cache
    /// ([`shared_info`], see `share`), which computes it for a template no earlier compile
    /// asked about (they asked once per instruction and attempt, rebuilding it from the
    /// machine instructions' forms each time; computing it at interning cost small kernels
    /// more than it saved). A code without an entry (a template pushed to `templates`
    /// directly) is answered from the template itself.
    info: Vec<(u64, std::sync::OnceLock<Answers>)>,
    /// Per code, the fewest arguments the template passed [`Template::check`] with
    /// (`usize::MAX` or no entry: not checked). The check fails on more arguments only
    /// where it fails on fewer, so selection checks a repeated template once.
    checked: Vec<usize>,
    /// GPRs the allocator may use (at most 254: `R254` is the scratch register).
    pub gprs: u32,
    /// Answers come from the process's cache ([`shared_info`]): every table but the
    /// process's first, so that a process compiling one kernel (the command line) does not
    /// pay for filling a cache it never reads.
    share: bool,
}

/// The answers of [`TargetIsa::sched_info`], [`TargetIsa::bank_reads`] and
/// [`TargetIsa::constraints`] for one template: functions of the template alone.
#[derive(Clone, Debug)]
struct TemplateInfo {
    sched: SchedInfo,
    bank_reads: SmallVec<[BankReads; 2]>,
    constraints: InstConstraints,
}

impl TemplateInfo {
    fn of(t: &Template) -> TemplateInfo {
        TemplateInfo {
            sched: template_sched_info(t),
            bank_reads: template_bank_reads(t),
            constraints: template_constraints(t),
        }
    }
}

/// A table's [`TemplateInfo`] for one template: its own, or the process's shared one.
#[derive(Clone, Debug)]
enum Answers {
    Own(TemplateInfo),
    Shared(Arc<TemplateInfo>),
}

impl std::ops::Deref for Answers {
    type Target = TemplateInfo;
    fn deref(&self) -> &TemplateInfo {
        match self {
            Answers::Own(i) => i,
            Answers::Shared(i) => i,
        }
    }
}

/// Set once a table has been made: the tables made after it use the process's cache.
static SHARED_INFO_READY: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Templates the process's cache of [`TemplateInfo`]s holds at most: a JIT compiles the
/// same few hundred templates again and again; past the bound new ones are computed per
/// compile (their answers are the same, only not kept).
const SHARED_INFO_MAX: usize = 2048;

/// The answers for template `t` of hash `hash` (the table's hash of it), from a cache shared
/// by every compile of the process: computing them costs about a thousand instructions a
/// template, some twenty times a small kernel's compile.
fn shared_info(hash: u64, t: &Template) -> Arc<TemplateInfo> {
    // Entries are pointers: the map's growth moves a word, not a template.
    type Cache = HashMap<u64, SmallVec<[Arc<(Template, Arc<TemplateInfo>)>; 1]>>;
    static CACHE: std::sync::Mutex<Option<Cache>> = std::sync::Mutex::new(None);
    // A poisoned lock (a panic elsewhere while holding it) only costs the cache.
    let Ok(mut guard) = CACHE.lock() else {
        return Arc::new(TemplateInfo::of(t));
    };
    let cache =
        guard.get_or_insert_with(|| Cache::with_capacity_and_hasher(256, Default::default()));
    if let Some(e) = cache
        .get(&hash)
        .and_then(|entries| entries.iter().find(|e| e.0 == *t))
    {
        return Arc::clone(&e.1);
    }
    let info = Arc::new(TemplateInfo::of(t));
    if cache.len() < SHARED_INFO_MAX {
        cache
            .entry(hash)
            .or_default()
            .push(Arc::new((t.clone(), Arc::clone(&info))));
    }
    info
}

/// Scheduling class of a template: variable latency if any of its instructions is, the
/// latencies summed (an empty template, or no template: one cycle of control).
fn template_sched_info(t: &Template) -> SchedInfo {
    if t.seq.is_empty() {
        return SchedInfo {
            kind: LatencyKind::Fixed,
            latency: 1,
            resource: Resource::Control,
            issue_cycles: 1,
        };
    }
    let mut kind = LatencyKind::Fixed;
    let mut latency = 0u16;
    let mut resource = Resource::Alu;
    for ti in &t.seq {
        let (k, l, r) = latency_of(&ti.inst);
        if k == LatencyKind::Variable {
            kind = k;
            resource = r;
        }
        latency = latency.saturating_add(l);
    }
    SchedInfo {
        kind,
        latency: latency.max(1),
        resource,
        issue_cycles: t.seq.len() as u16,
    }
}

/// The register sources of a template's operand-collector instructions
/// (`isa_spa5::banks::collects`), each register of a wide operand on its own.
fn template_bank_reads(t: &Template) -> SmallVec<[BankReads; 2]> {
    let mut out = SmallVec::new();
    for ti in &t.seq {
        let form = ti.inst.form();
        if !isa_spa5::banks::collects(form) {
            continue;
        }
        let mut reads = BankReads::new();
        for (f, slot) in form.operands.iter().zip(&ti.slots) {
            if let (
                isa_spa5::table::Role::Use,
                OpKind::Gpr(_) | OpKind::Same(_) | OpKind::Next(_),
                Slot::Arg(k, part),
            ) = (f.role, f.kind, *slot)
            {
                for p in 0..ti.inst.width(f.width).max(1) {
                    reads.push((k, part + p));
                }
            }
        }
        if reads.len() > 1 {
            out.push(reads);
        }
    }
    out
}

/// The register groups of a template's results and operands.
fn template_constraints(t: &Template) -> InstConstraints {
    InstConstraints {
        result_groups: t.result_groups.iter().map(|g| g.to_reg_group()).collect(),
        arg_groups: t.arg_groups.iter().map(|g| g.to_reg_group()).collect(),
        results_early: t.seq.len() > 1,
    }
}

fn mov(op: Op) -> MInst {
    MInst::new(op)
}

thread_local! {
    /// A table a finished compile handed back ([`Spa5Target::recycle`]), already emptied
    /// to the fixed templates: the next [`Spa5Target::new`] on this thread takes it instead
    /// of copying them (and the tables' storage) again.
    static SPARE: std::cell::Cell<Option<Spa5Target>> = const { std::cell::Cell::new(None) };
}

/// The process's table of the fixed templates, which every table starts from.
fn fixed_table() -> &'static Spa5Target {
    static FIXED: std::sync::OnceLock<Spa5Target> = std::sync::OnceLock::new();
    FIXED.get_or_init(Spa5Target::with_fixed_templates)
}

impl Spa5Target {
    /// A table holding only the fixed templates: a copy of one built once per process
    /// (building them, with the modifier lookups by name, cost every compile ~3 us), or
    /// the table the thread's previous compile recycled, which holds just the same.
    pub fn new(gprs: u32) -> Spa5Target {
        let share = SHARED_INFO_READY.swap(true, std::sync::atomic::Ordering::Relaxed);
        if let Some(mut t) = SPARE.take() {
            t.gprs = gprs.min(254);
            t.share = share;
            return t;
        }
        let fixed = fixed_table();
        // Room for a typical kernel's templates, so selection rarely grows the table.
        let mut templates = Vec::with_capacity(64);
        templates.extend_from_slice(&fixed.templates);
        let mut index = HashMap::with_capacity_and_hasher(64, fixed.index.hasher().clone());
        index.extend(fixed.index.iter().map(|(k, v)| (*k, v.clone())));
        let mut info = Vec::with_capacity(64);
        info.extend_from_slice(&fixed.info);
        Spa5Target {
            templates,
            index,
            info,
            checked: Vec::with_capacity(64),
            gprs: gprs.min(254),
            share,
        }
    }

    /// Hands the table back for the thread's next [`Spa5Target::new`]: emptied to the
    /// fixed templates (their codes, index entries and computed answers, which depend on
    /// the template alone, stay), with no argument count checked, as a new table is. A
    /// table whose fixed templates were changed is dropped instead.
    pub fn recycle(mut self) {
        let fixed = fixed_table();
        let n = fixed.templates.len();
        if self.templates.get(..n) != Some(&fixed.templates[..]) || self.info.len() < n {
            return;
        }
        self.templates.truncate(n);
        self.templates.shrink_to(64);
        self.info.truncate(n);
        self.info.shrink_to(64);
        self.index.retain(|_, codes| {
            codes.retain(|c| usize::from(*c) < n);
            !codes.is_empty()
        });
        self.index.shrink_to(64);
        self.checked.clear();
        self.checked.shrink_to(64);
        SPARE.set(Some(self));
    }

    /// Builds the table of the fixed templates (moves, spills and reloads, which the
    /// register allocator asks for by code).
    fn with_fixed_templates() -> Spa5Target {
        use Slot::*;
        let mut t = Spa5Target {
            templates: Vec::with_capacity(16),
            index: HashMap::with_capacity_and_hasher(16, Default::default()),
            info: Vec::with_capacity(16),
            checked: Vec::new(),
            gprs: 254,
            share: false,
        };
        let rz = Reg::RZ;
        let mov32 = TInst::new(MInst::mov(R, R), &[Res(0, 0), Arg(0, 0)]);
        let mov_hi = TInst::new(MInst::mov(R, R), &[Res(0, 1), Arg(0, 1)]);
        let movp = TInst::new(mov(Op::PSETP), &[Res(0, 0), Keep, Arg(0, 0), Keep, Keep]);
        let stl = |size: Size, data: Slot| TInst::new(MInst::stl(size, RB, 0, R), &[Spill, data]);
        let ldl = |size: Size, d: Slot| TInst::new(MInst::ldl(size, R, RB, 0), &[d, Spill]);
        // SEL scratch, RZ, 1, !p: scratch = p ? 1 : 0.
        let selp = TInst::new(
            MInst::sel(R, rz, 1, Pred::TRUE),
            &[Scratch, Keep, Keep, ArgNot(0)],
        );
        let setp = TInst::new(
            MInst::isetp(ICmp::Ne, PredReg(0), R, rz),
            &[Res(0, 0), Keep, Scratch, Keep, Keep],
        );
        let fixed = [
            Template::one(mov32),
            Template {
                result_groups: SmallVec::new(),
                ..Template::many(&[mov32, mov_hi])
            },
            Template::one(movp),
            Template {
                side_effects: true,
                ..Template::one(stl(Size::B32, Arg(0, 0)))
            },
            Template {
                side_effects: true,
                ..Template::one(stl(Size::B64, Arg(0, 0)))
            },
            Template {
                side_effects: true,
                ..Template::many(&[selp, stl(Size::B32, Scratch)])
            },
            Template::one(ldl(Size::B32, Res(0, 0))),
            Template::one(ldl(Size::B64, Res(0, 0))),
            Template::many(&[ldl(Size::B32, Scratch), setp]),
        ];
        for tpl in fixed {
            t.intern(tpl);
        }
        t
    }

    /// The code of `tpl`, adding it to the table if new. `None` if the table is full.
    pub fn intern(&mut self, tpl: Template) -> Option<u16> {
        use std::hash::BuildHasher;
        let hash = self.index.hasher().hash_one(&tpl);
        let codes = self.index.entry(hash).or_default();
        if let Some(&c) = codes.iter().find(|&&c| self.templates[c as usize] == tpl) {
            return Some(c);
        }
        self.insert(hash, tpl)
    }

    /// Adds `tpl`, not in the table, under its hash `hash`. `None` if the table is full.
    fn insert(&mut self, hash: u64, tpl: Template) -> Option<u16> {
        let code = u16::try_from(self.templates.len()).ok()?;
        let codes = self.index.entry(hash).or_default();
        codes.push(code);
        if self.info.len() == self.templates.len() {
            self.info.push((hash, std::sync::OnceLock::new()));
        }
        self.templates.push(tpl);
        Some(code)
    }

    /// As [`Spa5Target::intern`] for a template of an instruction with `args` arguments,
    /// checked first ([`Template::check`], whose message is the `Err`) unless the table
    /// holds it already checked with at most `args` arguments.
    pub fn intern_checked(&mut self, tpl: Template, args: usize) -> Result<Option<u16>, String> {
        use std::hash::BuildHasher;
        let hash = self.index.hasher().hash_one(&tpl);
        let found = self.index.get(&hash).and_then(|codes| {
            codes
                .iter()
                .copied()
                .find(|&c| self.templates[usize::from(c)] == tpl)
        });
        let code = match found {
            Some(c) if self.checked.get(usize::from(c)).is_some_and(|&n| n <= args) => {
                return Ok(Some(c));
            }
            Some(c) => {
                tpl.check(args)?;
                c
            }
            None => {
                tpl.check(args)?;
                let Some(c) = self.insert(hash, tpl) else {
                    return Ok(None);
                };
                c
            }
        };
        let k = usize::from(code);
        if self.checked.len() <= k {
            self.checked.resize(k + 1, usize::MAX);
        }
        self.checked[k] = self.checked[k].min(args);
        Ok(Some(code))
    }

    /// The cached answers for the template of a `Target` instruction, if it has them.
    fn info_of(&self, data: &InstructionData) -> Option<&TemplateInfo> {
        match data {
            InstructionData::Target { code, .. } => {
                let ((hash, cell), t) = (
                    self.info.get(*code as usize)?,
                    &self.templates[*code as usize],
                );
                let info = || match self.share {
                    true => Answers::Shared(shared_info(*hash, t)),
                    false => Answers::Own(TemplateInfo::of(t)),
                };
                Some(&**cell.get_or_init(info))
            }
            _ => None,
        }
    }

    /// The template of a `Target` instruction.
    pub fn template_of(&self, data: &InstructionData) -> Option<&Template> {
        match data {
            InstructionData::Target { code, .. } => self.templates.get(*code as usize),
            _ => None,
        }
    }

    /// The machine instructions `inst` of `func` stands for, in SPA syntax with operands
    /// named after the IR values that fill them (`IADD v7, v3, 0x1`; `v3.hi` is the second
    /// register of a pair, `[spill+0x8]` the spill area). Empty for generic instructions.
    pub fn describe(&self, func: &Function, inst: Inst) -> Vec<String> {
        let data = &func.dfg.insts[inst];
        let (Some(t), InstructionData::Target { args, imm, .. }) = (self.template_of(data), data)
        else {
            return Vec::new();
        };
        let results = func.dfg.inst_results(inst);
        let part = |v: Option<&Value>, p: u8| match (v, p) {
            (Some(v), 0) => v.to_string(),
            (Some(v), 1) => format!("{v}.hi"),
            (Some(v), p) => format!("{v}.{p}"),
            (None, _) => "?".to_string(),
        };
        let offset = |o: i64| match o {
            0 => String::new(),
            o if o < 0 => format!("-{:#x}", o.unsigned_abs()),
            o => format!("+{o:#x}"),
        };
        t.seq
            .iter()
            .map(|ti| {
                let name = |k: usize| -> Option<String> {
                    let op = ti.inst.operands[k];
                    Some(match ti.slots[k] {
                        Slot::Keep => return None,
                        Slot::Arg(a, p) => part(args.get(a as usize), p),
                        Slot::ArgNot(a) => format!("!{}", part(args.get(a as usize), 0)),
                        Slot::Res(r, p) => part(results.get(r as usize), p),
                        Slot::MemArg(a) => {
                            let off = match op {
                                Operand::Mem { offset, .. } => i64::from(offset),
                                _ => 0,
                            };
                            format!("[{}{}]", part(args.get(a as usize), 0), offset(off))
                        }
                        Slot::CIdxArg(a) => {
                            let (bank, off) = match op {
                                Operand::CIdx { bank, offset, .. } => (bank, i64::from(offset)),
                                _ => (0, 0),
                            };
                            let base = part(args.get(a as usize), 0);
                            format!("c[{bank:#x}][{base}{}]", offset(off))
                        }
                        Slot::Spill => format!("[spill{}]", offset(*imm as i64)),
                        Slot::Scratch => "scratch".to_string(),
                    })
                };
                let text = isa_spa5::asm::print_inst_named(&ti.inst, &Default::default(), &name);
                match ti.guard {
                    Some((g, not)) => {
                        let g = part(args.get(g as usize), 0);
                        format!("@{}{g} {text}", if not { "!" } else { "" })
                    }
                    None => text,
                }
            })
            .collect()
    }
}

fn target_data(
    code: u16,
    imm: u64,
    side: bool,
    args: &[Value],
    results: &[Type],
) -> InstructionData {
    InstructionData::Target {
        opcode: ilc_passes::ir::Opcode::Target,
        code,
        imm,
        side_effects: side,
        args: SmallVec::from_slice(args),
        results: results.iter().copied().collect(),
    }
}

impl TargetIsa for Spa5Target {
    fn name(&self) -> &str {
        "spa5"
    }

    fn num_regs(&self, file: RegFile) -> u32 {
        match file {
            RegFile::Gpr => self.gprs,
            RegFile::Pred => 7,
        }
    }

    fn gpr_allocation_unit(&self) -> u32 {
        8
    }

    fn constraints(&self, func: &Function, inst: Inst) -> InstConstraints {
        let data = &func.dfg.insts[inst];
        if let Some(i) = self.info_of(data) {
            return i.constraints.clone();
        }
        self.template_of(data)
            .map(template_constraints)
            .unwrap_or_default()
    }

    fn sched_info(&self, func: &Function, inst: Inst) -> SchedInfo {
        let data = &func.dfg.insts[inst];
        if let Some(i) = self.info_of(data) {
            return i.sched;
        }
        template_sched_info(self.template_of(data).unwrap_or(&Template::default()))
    }

    /// Selection guards a global load only by its bounds test (`isel::mem`): a template
    /// whose every load is a guarded global load, without side effects, never faults.
    fn speculable_load(&self, func: &Function, inst: Inst) -> bool {
        let data = &func.dfg.insts[inst];
        let Some(t) = self.template_of(data) else {
            return false;
        };
        !t.side_effects
            && !data.has_side_effects()
            && t.seq.iter().any(|ti| ti.inst.is_memory_load())
            && t.seq.iter().all(|ti| {
                !ti.inst.is_memory_load()
                    || (ti.guard.is_some() && ti.inst.form().class == Class::Global)
            })
    }

    /// Memory effects of a selected machine instruction come from its machine instructions:
    /// a load reads memory, a store or atomic writes it, `BAR`/`MEMBAR` order everything. (The
    /// generic rule sees only the side-effect flag, which loads do not set, and let the
    /// scheduler move an `LDS` above the `STS` and `BAR.SYNC` it depends on.)
    fn mem_effects(&self, func: &Function, inst: Inst) -> MemEffects {
        let data = &func.dfg.insts[inst];
        match self.template_of(data) {
            Some(t) if !t.seq.is_empty() => {
                let mut fx = MemEffects {
                    reads: false,
                    writes: data.has_side_effects(),
                    barrier: false,
                    spaces: MemClasses::NONE,
                };
                let mut known = true;
                for ti in &t.seq {
                    let m = &ti.inst;
                    fx.reads |= m.is_memory_load();
                    fx.writes |= m.is_memory_store();
                    let mn = m.form().mnemonic;
                    if mn.starts_with("BAR") || mn == "MEMBAR" {
                        fx.barrier = true;
                        fx.reads = true;
                        fx.writes = true;
                    }
                    if m.is_memory_load() || m.is_memory_store() {
                        match (m.form().class, mn) {
                            (Class::Shared, _) => fx.spaces = fx.spaces | MemClasses::SHARED,
                            (_, "LDL" | "STL") => fx.spaces = fx.spaces | MemClasses::LOCAL,
                            (Class::Const, _) => {}
                            (Class::Global | Class::Tex, _) => {
                                fx.spaces = fx.spaces | MemClasses::GLOBAL
                            }
                            _ => known = false,
                        }
                    }
                }
                // Side effects without a memory access of a known class (and instructions
                // without memory effects, which compare equal to the default) count for
                // every class.
                if !known || fx.spaces == MemClasses::NONE && (fx.writes || !fx.reads) {
                    fx.spaces = MemClasses::ALL;
                }
                fx
            }
            _ => ilc_passes::target::generic_mem_effects(data),
        }
    }

    fn make_move(&self, ty: Type, src: Value) -> InstructionData {
        let code = match ty {
            Type::B32 => codes::MOV32,
            Type::B64 => codes::MOV64,
            Type::Pred => codes::MOVP,
        };
        target_data(code, 0, false, &[src], &[ty])
    }

    fn make_spill(&self, ty: Type, src: Value, offset: u32) -> InstructionData {
        let code = match ty {
            Type::B32 => codes::SPILL32,
            Type::B64 => codes::SPILL64,
            Type::Pred => codes::SPILLP,
        };
        target_data(code, u64::from(offset), true, &[src], &[])
    }

    fn make_reload(&self, ty: Type, offset: u32) -> InstructionData {
        let code = match ty {
            Type::B32 => codes::RELOAD32,
            Type::B64 => codes::RELOAD64,
            Type::Pred => codes::RELOADP,
        };
        target_data(code, u64::from(offset), false, &[], &[ty])
    }

    fn spill_size(&self, ty: Type) -> u32 {
        match ty {
            Type::B64 => 8,
            _ => 4,
        }
    }

    fn gpr_banks(&self) -> u32 {
        u32::from(isa_spa5::banks::NUM_BANKS)
    }

    /// The register sources of the template's operand-collector instructions
    /// ([`template_bank_reads`]).
    fn bank_reads(&self, func: &Function, inst: Inst) -> SmallVec<[BankReads; 2]> {
        let data = &func.dfg.insts[inst];
        if let Some(i) = self.info_of(data) {
            // Each list copied as a slice and pushed (cheaper than the derived clone's or a
            // collect's `extend`).
            let mut out = SmallVec::new();
            for r in &i.bank_reads {
                out.push(BankReads::from_slice(r));
            }
            return out;
        }
        self.template_of(data)
            .map(template_bank_reads)
            .unwrap_or_default()
    }

    fn is_rematerializable(&self, func: &Function, inst: Inst) -> bool {
        // A template with no operands, one result and no side effects (MOV32I, S2R-free
        // constants) can be re-executed.
        match &func.dfg.insts[inst] {
            InstructionData::Target {
                args,
                results,
                side_effects,
                code,
                ..
            } => {
                args.is_empty()
                    && results.len() == 1
                    && !side_effects
                    && *code >= FIRST_DYNAMIC
                    && self
                        .templates
                        .get(*code as usize)
                        .is_some_and(|t| t.seq.iter().all(|i| !i.inst.is_variable_latency()))
            }
            _ => false,
        }
    }
}

/// A register operand a slot fills (the template check requires one): an explicit hole,
/// never confused with a real `RZ` (written `Reg::RZ`), and rejected by the encoder if it
/// were ever left unfilled.
pub const R: Operand = Operand::Hole;

/// The base register of a memory or indexed-constant operand a `MemArg`/`CIdxArg` slot
/// fills (the operand's base field holds a register, so it cannot be a hole).
pub const RB: Reg = Reg::RZ;

/// Operand helper: a `b32` immediate that fits the signed 20-bit field.
pub fn fits_i20(v: i64) -> bool {
    (-(1 << 19)..(1 << 19)).contains(&v)
}

/// Convert to an operand for templates.
pub fn imm(v: i64) -> Operand {
    Operand::Imm(v)
}

/// Modifier setters for building templates. Named values are typed
/// ([`isa_spa5::mods`]): [`SetMod::t`] fails when the form lacks the value, so a template
/// never silently drops one. Numeric flags: [`SetMod::f`] fails the same way; [`SetMod::m`]
/// skips a flag the form lacks (shared code for forms with and without it: the SHL forms
/// have no signedness field, for example).
pub trait SetMod: Sized {
    /// Sets flag or numeric modifier `k` to `v` if the form has it.
    fn m(self, k: ModKind, v: u8) -> Self;
    /// Sets flag or numeric modifier `k` to `v`; `Err` if the form lacks it.
    fn f(self, k: ModKind, v: u8) -> Result<Self, ModError>;
    /// Sets a typed modifier value; `Err` if the form lacks it.
    fn t<T: TypedMod>(self, v: T) -> Result<Self, ModError>;
}

impl SetMod for MInst {
    fn m(mut self, k: ModKind, v: u8) -> Self {
        self.set(k, v);
        self
    }
    fn f(mut self, k: ModKind, v: u8) -> Result<Self, ModError> {
        if self.set(k, v) {
            Ok(self)
        } else {
            Err(ModError {
                form: self.op.name(),
                kind: k,
                name: "(flag)",
            })
        }
    }
    fn t<T: TypedMod>(self, v: T) -> Result<Self, ModError> {
        self.try_mod(v)
    }
}

/// `c[0x0][off]`.
pub fn cb0(off: u32) -> Operand {
    isa_spa5::inst::cbuf(0, off as _)
}

#[cfg(test)]
mod tests {
    use super::*;
    use isa_spa5::mods::Lop;
    use Slot::{Arg, Keep, Res};

    #[test]
    fn fixed_templates_pass_the_check() {
        // Moves and spills read one argument, reloads none.
        for (code, tpl) in Spa5Target::new(254).templates.iter().enumerate() {
            assert_eq!(tpl.check(1), Ok(()), "code {code}");
        }
    }

    #[test]
    fn cached_template_answers_equal_the_templates_own() {
        let mut t = Spa5Target::new(254);
        // A one-instruction ALU template, a variable-latency load with a result group, and
        // a two-instruction sequence with operand groups.
        let add = Template::one(TInst::new(
            MInst::iadd(R, R, R),
            &[Res(0, 0), Arg(0, 0), Arg(1, 0)],
        ));
        let load = Template {
            result_groups: smallvec::smallvec![Group {
                start: 0,
                len: 2,
                align: 2
            }],
            ..Template::one(TInst::new(
                MInst::ldg(Size::B64, R, RB, 0),
                &[Res(0, 0), Slot::MemArg(0)],
            ))
        };
        let pair = Template {
            arg_groups: smallvec::smallvec![Group {
                start: 0,
                len: 2,
                align: 2
            }],
            ..Template::many(&[
                TInst::new(MInst::iadd(R, R, R), &[Res(0, 0), Arg(0, 0), Arg(1, 0)]),
                TInst::new(MInst::iadd(R, R, R), &[Res(0, 0), Res(0, 0), Arg(0, 0)]),
            ])
        };
        let codes: Vec<u16> = [add, load, pair]
            .into_iter()
            .map(|tpl| t.intern(tpl).expect("room in the table"))
            .collect();
        // A template pushed to the table directly has no cached answers: it is answered
        // from the template.
        let direct = u16::try_from(t.templates.len()).expect("small table");
        t.templates.push(t.templates[usize::from(codes[2])].clone());
        assert_eq!(t.info.len(), t.templates.len() - 1);
        let mut f = Function::default();
        for code in (0..t.templates.len() as u16).chain([direct]) {
            let inst = f.dfg.make_inst(target_data(code, 0, false, &[], &[]));
            let tpl = &t.templates[usize::from(code)];
            assert_eq!(
                t.sched_info(&f, inst),
                template_sched_info(tpl),
                "code {code}"
            );
            assert_eq!(
                t.bank_reads(&f, inst),
                template_bank_reads(tpl),
                "code {code}"
            );
            assert_eq!(
                t.constraints(&f, inst),
                template_constraints(tpl),
                "code {code}"
            );
        }
        // The variable-latency load is scheduled as one; the pair's reads collide in banks.
        // The questions above filled the cache of every interned template.
        let info = |code: u16| {
            TemplateInfo::clone(
                t.info[usize::from(code)]
                    .1
                    .get()
                    .expect("computed on the first question"),
            )
        };
        let sched = |code: u16| info(code).sched;
        assert_eq!(sched(codes[1]).kind, LatencyKind::Variable);
        assert_eq!(sched(codes[0]).kind, LatencyKind::Fixed);
        assert_eq!(sched(codes[2]).issue_cycles, 2);
        assert_eq!(info(codes[2]).constraints.arg_groups.len(), 1);
        // The tables made after the process's first take their answers from its cache:
        // the same shared entries, and the same answers as computed from the templates.
        let tables = [Spa5Target::new(64), Spa5Target::new(64)].map(|mut table| {
            let mut asked = Vec::new();
            for &code in &codes {
                let tpl = t.templates[usize::from(code)].clone();
                let c = table.intern(tpl.clone()).expect("room in the table");
                let inst = f.dfg.make_inst(target_data(c, 0, false, &[], &[]));
                assert_eq!(table.sched_info(&f, inst), template_sched_info(&tpl));
                assert_eq!(table.constraints(&f, inst), template_constraints(&tpl));
                asked.push(c);
            }
            (table, asked)
        });
        for k in 0..codes.len() {
            let [(a, ac), (b, bc)] = &tables;
            assert!(a.share && b.share);
            let (Some(Answers::Shared(x)), Some(Answers::Shared(y))) = (
                a.info[usize::from(ac[k])].1.get(),
                b.info[usize::from(bc[k])].1.get(),
            ) else {
                panic!("shared answers for template {k}");
            };
            assert!(Arc::ptr_eq(x, y), "template {k} shared");
        }
    }

    #[test]
    fn holes_and_slots_must_match() {
        // A forgotten slot: the hole at operand 2 stays unfilled.
        let forgot = Template::one(TInst::new(MInst::iadd(R, R, R), &[Res(0, 0), Arg(0, 0)]));
        let e = forgot.check(1).unwrap_err();
        assert!(e.contains("operand 2 is a hole"), "{e}");
        // A real RZ is written as such and needs no slot.
        let rz = Template::one(TInst::new(
            MInst::iadd(R, Reg::RZ, R),
            &[Res(0, 0), Keep, Arg(0, 0)],
        ));
        assert_eq!(rz.check(1), Ok(()));
        // A slot on an immediate, and a slot reading a missing argument.
        let imm = Template::one(TInst::new(
            MInst::iadd(R, R, 5),
            &[Res(0, 0), Arg(0, 0), Arg(1, 0)],
        ));
        assert!(imm.check(2).unwrap_err().contains("does not fit operand 2"));
        let lop = Template::one(TInst::new(
            MInst::lop(Lop::And, R, R, R),
            &[Keep, Res(0, 0), Arg(0, 0), Arg(1, 0)],
        ));
        assert!(lop.check(1).unwrap_err().contains("reads argument 1 of 1"));
        assert_eq!(lop.check(2), Ok(()));
    }

    #[test]
    fn interning_checks_a_template_for_each_smaller_argument_count() {
        let mut t = Spa5Target::new(254);
        let lop = Template::one(TInst::new(
            MInst::lop(Lop::And, R, R, R),
            &[Keep, Res(0, 0), Arg(0, 0), Arg(1, 0)],
        ));
        let code = t.intern_checked(lop.clone(), 3).unwrap().unwrap();
        // Already checked with fewer arguments: the same code.
        assert_eq!(t.intern_checked(lop.clone(), 4), Ok(Some(code)));
        // With too few arguments the interned template still fails, and still after a
        // successful check with two.
        let e = t.intern_checked(lop.clone(), 1).unwrap_err();
        assert!(e.contains("reads argument 1 of 1"), "{e}");
        assert_eq!(t.intern_checked(lop.clone(), 2), Ok(Some(code)));
        assert!(t.intern_checked(lop.clone(), 1).is_err());
        assert_eq!(t.templates.len(), usize::from(code) + 1);
        // A template that fails is not added.
        let forgot = Template::one(TInst::new(MInst::iadd(R, R, R), &[Res(0, 0), Arg(0, 0)]));
        assert!(t.intern_checked(forgot, 1).is_err());
        assert_eq!(t.templates.len(), usize::from(code) + 1);
    }

    #[test]
    fn templates_differing_only_in_slots_or_guard_intern_apart() {
        let mut t = Spa5Target::new(254);
        let inst = MInst::lop(Lop::And, R, R, R);
        let base = TInst::new(inst, &[Keep, Res(0, 0), Arg(0, 0), Arg(1, 0)]);
        let variants = [
            base,
            TInst::new(inst, &[Keep, Res(0, 0), Arg(1, 0), Arg(0, 0)]),
            TInst::new(inst, &[Keep, Res(0, 1), Arg(0, 0), Arg(1, 0)]),
            base.guarded(2, false),
            base.guarded(2, true),
        ];
        let codes: Vec<u16> = variants
            .iter()
            .map(|ti| t.intern(Template::one(*ti)).expect("room"))
            .collect();
        for (i, a) in codes.iter().enumerate() {
            for b in &codes[i + 1..] {
                assert_ne!(a, b);
            }
        }
        // Interning again finds each one.
        for (ti, c) in variants.iter().zip(&codes) {
            assert_eq!(t.intern(Template::one(*ti)), Some(*c));
        }
    }

    #[test]
    fn a_recycled_table_interns_like_a_new_one() {
        let lop = |op| {
            Template::one(TInst::new(
                MInst::lop(op, R, R, R),
                &[Keep, Res(0, 0), Arg(0, 0), Arg(1, 0)],
            ))
        };
        let run = |t: &mut Spa5Target| -> Vec<Result<Option<u16>, String>> {
            let mut out = Vec::new();
            for op in [Lop::Or, Lop::And, Lop::Or, Lop::Xor] {
                out.push(t.intern_checked(lop(op), 2));
            }
            out.push(t.intern_checked(lop(Lop::And), 1));
            out
        };
        let fresh = run(&mut Spa5Target::new(254));
        let mut t = Spa5Target::new(254);
        // Other templates first, then handed back.
        t.intern_checked(lop(Lop::PassB), 2).unwrap();
        run(&mut t);
        let fixed = fixed_table().templates.len();
        assert!(t.templates.len() > fixed);
        t.recycle();
        let mut t = Spa5Target::new(64);
        assert_eq!(t.gprs, 64);
        assert_eq!(t.templates, fixed_table().templates);
        assert!(t.checked.is_empty());
        assert_eq!(run(&mut t), fresh);
    }

    #[test]
    fn the_encoder_rejects_a_hole() {
        assert!(isa_spa5::encode(&MInst::iadd(R, Reg::RZ, Reg::RZ)).is_err());
        assert!(isa_spa5::encode(&MInst::iadd(Reg(1), Reg::RZ, Reg::RZ)).is_ok());
    }
}
