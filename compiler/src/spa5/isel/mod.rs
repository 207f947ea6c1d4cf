//! Instruction selection: every generic IR instruction becomes one or more `Target`
//! instructions (still SSA) whose templates live in the [`Spa5Target`] table (see
//! [`super::target`] for the encoding of the escape).
//!
//! Kept generic: `jump`, `brif`, `return` terminators and block parameters, so the scheduler
//! and allocator still see the CFG. Everything else is replaced; an instruction that has no
//! selection yields [`IselError::Unsupported`] naming it.
//!
//! Organisation: [`family`] sorts every IR opcode into one family (an exhaustive match, so a
//! new opcode must be placed), and [`Isel::select`] hands the instruction to that family's
//! function, one file each: [`moves`] (constants, copies, register pairs, special registers,
//! lane shuffles), [`int`], [`float`], [`f64`], [`conv`], [`control`] (predicate logic and
//! selects), [`mem`], [`tex`]. A family only decides *which* operations compute the result;
//! [`legalize`] decides in which form (register, short immediate, constant bank, 32-bit
//! immediate) a source is encoded, for every family alike. This file holds the shared state:
//! emitting templates, folding zero and half-of-pair arguments, and block-local constants.
//!
//! Requires: a verified function whose resources fit [`LaunchLayout`]. Guarantees: the result
//! verifies, and only `Target`, `jump`, `brif` and `return` remain.

use cranelift_entity::SecondaryMap;
use ilc_passes::{FastHashMap as HashMap, FastHashSet as HashSet};

use ilc_passes::ir::{Block, Function, Inst, InstructionData, Opcode, Type, Value};
use isa_spa5::inst::Operand;
use isa_spa5::Inst as MInst;
use smallvec::SmallVec;

use super::abi::LaunchLayout;
use super::target::{Slot, Spa5Target, TInst, Template, R};
use super::Spa5Options;

mod control;
mod conv;
mod f64;
mod float;
mod int;
pub(crate) mod legalize;
mod mem;
mod moves;
mod tex;

pub use legalize::POOL_BANK;

/// Instruction selection failures.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum IselError {
    /// No selection for this instruction.
    #[error("instruction selection: `{what}` is not supported by the SPA 5.0 backend ({inst})")]
    Unsupported {
        /// The instruction, printed.
        inst: String,
        /// What is missing.
        what: String,
        /// The source statement of the instruction, if known.
        pos: Option<ilc_passes::ir::SourcePos>,
    },
    /// More than 65536 distinct templates.
    #[error("instruction selection: too many distinct machine instruction templates")]
    TableFull,
    /// A template the table rejects (a backend bug, reported as an error).
    #[error("instruction selection: bad template: {0}")]
    Template(String),
}

impl From<isa_spa5::inst::ModError> for IselError {
    fn from(e: isa_spa5::inst::ModError) -> Self {
        IselError::Template(e.to_string())
    }
}

use Slot::Res;

/// A 64-bit address in a block: (block, 32-bit index, pointer parameter offset, LEA shift,
/// sign word when the index is sign-extended).
pub(crate) type LeaKey = (Block, Value, u32, u8, Option<Value>);

/// The arguments of one emitted instruction (the IR's inline size).
type Args = SmallVec<[Value; 4]>;

/// Selection state for one function.
pub struct Isel<'a> {
    pub(crate) func: &'a mut Function,
    pub(crate) tgt: &'a mut Spa5Target,
    pub(crate) layout: &'a LaunchLayout,
    pub(crate) opts: &'a Spa5Options,
    pub(crate) alias: HashMap<Value, Value>,
    pub(crate) at: Option<Inst>,
    /// UAV ids that some instruction writes (the others use the read-only path).
    pub(crate) written_uavs: [bool; 256],
    /// 64-bit addresses already formed in a block: (block, index value, base parameter
    /// offset, shift, sign word of a sign-extended index) -> (lo, hi), so accesses to one
    /// element share one LEA pair.
    pub(crate) lea_memo: HashMap<LeaKey, (Value, Value)>,
    /// Sign words (`x >> 31`) of 32-bit offsets, per block.
    pub(crate) sign_memo: HashMap<(Block, Value), Value>,
    /// The (block, value) pairs some access in the block addresses as `x + c` with a
    /// sign-extended `x`, so an access at `x` itself shares that 64-bit address. Computed
    /// before selection: it rewrites the function in place, and a set computed later would
    /// miss the accesses already selected.
    pub(crate) signed_bases: HashSet<(Block, Value)>,
    /// The (block, value) pairs some unchecked access in the block (promised in bounds by
    /// `assume_in_bounds` or marked `inbounds`) takes as its address: such a value is below
    /// 2^31, so its zero extension is its 64-bit offset (see `mem::promised_bases`).
    pub(crate) promised_bases: HashSet<(Block, Value)>,
    /// Value ranges with the function's loop facts (computed before selection rewrites it).
    pub(crate) ranges: ilc_passes::value_bound::Ranges,
    /// Masked buffer sizes (`size & !(bytes - 1)`) per (block, size parameter offset, bytes).
    pub(crate) limit_memo: HashMap<(Block, u32, u32), Value>,
    /// Aligned accesses per (block, size parameter offset), counted before selection (as
    /// `signed_bases`).
    pub(crate) aligned_accesses: HashMap<(Block, u32), u32>,
    /// Bounds predicates per block and (address, offset, limit): a load and a store of the
    /// same element share one `ISETP`.
    /// `a + last` of the bounds checks in a block, by block, `a` and `last`: accesses to
    /// several buffers at one address share it.
    pub(crate) last_byte_memo: HashMap<(Block, Value, i64), Value>,
    pub(crate) bounds_memo: HashMap<(Block, Option<Value>, i64, i64, i64), Value>,
    /// `MOV32I` constants per block: one register per distinct value (the scheduler would
    /// otherwise hoist every copy to the top of the block, each in its own register).
    pub(crate) const_memo: HashMap<(Block, u32), Value>,
    /// `RRO.SINCOS` results per (block, angle): `sin x` and `cos x` share one reduction.
    pub(crate) rro_memo: HashMap<(Block, Value), Value>,
    /// The literal pool (constant bank [`POOL_BANK`], as ptxas keeps its literals): 32-bit
    /// constants no immediate field holds are read as `c[0x2][4k]` operands instead of
    /// occupying a register loaded by `MOV32I`.
    pub(crate) pool: Vec<u32>,
    /// Pool word index of each (constant, is 64-bit) already placed.
    pub(crate) pool_index: HashMap<(u64, bool), u32>,
    /// How many times each value is used before selection (operands and block-call
    /// arguments; values made by selection count 0): texture fetches write only the channels
    /// read.
    pub(crate) use_count: SecondaryMap<Value, u32>,
    /// Each instruction's place in the layout before selection.
    pub(crate) position: SecondaryMap<Inst, u32>,
    /// Every `concat lo, hi` of the function by its operands.
    pub(crate) joins: HashMap<(Value, Value), Inst>,
    /// Two-word loads selected as one `b64` value because their words only feed one
    /// `concat` (first word -> (second word, the `b64`)): the concat is that value, no copies.
    pub(crate) fused_pairs: HashMap<Value, (Value, Value)>,
}

/// Runs instruction selection on `func` in place; returns the literal pool (the words of
/// constant bank [`POOL_BANK`], empty when `opts.literal_pool` is off or nothing needed it).
pub fn run(
    func: &mut Function,
    tgt: &mut Spa5Target,
    layout: &LaunchLayout,
    opts: &Spa5Options,
) -> Result<Vec<u32>, IselError> {
    let written = func.uav_written();
    let mut use_count: SecondaryMap<Value, u32> = SecondaryMap::new();
    use_count.resize(func.dfg.num_values());
    let mut position: SecondaryMap<Inst, u32> = SecondaryMap::new();
    let mut joins: HashMap<(Value, Value), Inst> = HashMap::default();
    for (k, inst) in func.insts_in_layout().into_iter().enumerate() {
        position[inst] = k as u32;
        let data = &func.dfg.insts[inst];
        for v in data.all_values() {
            use_count[v] += 1;
        }
        if let InstructionData::Binary {
            opcode: Opcode::Concat,
            args: [lo, hi],
        } = *data
        {
            joins.insert((lo, hi), inst);
        }
    }
    let ranges = ilc_passes::value_bound::Ranges::new(func);
    let promised_bases = mem::promised_bases(func, opts.assume_in_bounds);
    let signed_bases = mem::signed_bases(func, &ranges, &promised_bases);
    let aligned_accesses = mem::aligned_accesses(func, layout);
    let mut s = Isel {
        func,
        tgt,
        layout,
        opts,
        alias: HashMap::default(),
        at: None,
        written_uavs: written,
        lea_memo: HashMap::default(),
        sign_memo: HashMap::default(),
        signed_bases,
        promised_bases,
        ranges,
        limit_memo: HashMap::default(),
        aligned_accesses,
        const_memo: HashMap::default(),
        rro_memo: HashMap::default(),
        pool: Vec::new(),
        pool_index: HashMap::default(),
        bounds_memo: HashMap::default(),
        last_byte_memo: HashMap::default(),
        use_count,
        position,
        joins,
        fused_pairs: HashMap::default(),
    };
    for inst in s.func.insts_in_layout() {
        let op = s.func.dfg.opcode(inst);
        match op {
            Opcode::Jump | Opcode::Brif | Opcode::Return => continue,
            _ => {}
        }
        s.at = Some(inst);
        let first = s.func.dfg.num_insts();
        let pos = s.func.srcloc(inst);
        ilc_passes::budget::set_position(pos);
        let new = s.select(inst)?;
        if let Some(pos) = pos {
            s.func.set_srclocs_since(first, pos);
        }
        let old: SmallVec<[Value; 4]> = SmallVec::from_slice(s.func.dfg.inst_results(inst));
        for (o, n) in old.iter().zip(new.iter()) {
            s.alias.insert(*o, *n);
        }
        s.func.layout.remove_inst(inst);
    }
    let alias = std::mem::take(&mut s.alias);
    // A selection may return another IR value unchanged (`x * 1`), itself replaced later:
    // follow the chain to the selected value (bounded by the number of aliases).
    s.func.rewrite_uses(|mut v| {
        for _ in 0..=alias.len() {
            match alias.get(&v) {
                Some(&n) if n != v => v = n,
                _ => break,
            }
        }
        v
    });
    let pool = std::mem::take(&mut s.pool);
    ilc_passes::dce::run(s.func);
    Ok(pool)
}

pub(crate) type Vals = SmallVec<[Value; 4]>;

/// The instruction a family selector is given: its data, opcode and arguments, read once by
/// the dispatcher ([`Isel::select`]).
pub(super) struct Node {
    pub inst: Inst,
    pub data: InstructionData,
    pub op: Opcode,
    pub args: Vals,
}

/// The single value replacing an instruction's one result.
pub(super) fn one(v: Value) -> Result<Vals, IselError> {
    Ok([v].into_iter().collect())
}

impl Isel<'_> {
    pub(crate) fn unsupported(&self, inst: Inst, what: &str) -> IselError {
        IselError::Unsupported {
            inst: ilc_passes::ir::write::inst_to_string(self.func, inst),
            what: what.to_string(),
            pos: self.func.srcloc(inst),
        }
    }

    /// The value `v` stands for after selection.
    pub(crate) fn v(&self, v: Value) -> Value {
        *self.alias.get(&v).unwrap_or(&v)
    }

    /// A constant operand, if `v` is an `iconst`.
    pub(crate) fn konst(&self, v: Value) -> Option<u64> {
        self.func.dfg.value_const(v)
    }

    /// Inserts a `Target` for `tpl` before the instruction being selected.
    pub(crate) fn emit(
        &mut self,
        mut tpl: Template,
        args: &[Value],
        results: &[Type],
    ) -> Result<Vals, IselError> {
        let mut args = Args::from_slice(args);
        self.fold_zero_args(&mut tpl, &mut args);
        self.fold_half_args(&mut tpl, &mut args);
        let side = tpl.side_effects;
        let code = self
            .tgt
            .intern_checked(tpl, args.len())
            .map_err(IselError::Template)?
            .ok_or(IselError::TableFull)?;
        for a in args.iter_mut() {
            *a = self.v(*a);
        }
        let data = InstructionData::Target {
            opcode: Opcode::Target,
            code,
            imm: 0,
            side_effects: side,
            args,
            results: results.iter().copied().collect(),
        };
        let i = self.func.dfg.make_inst(data);
        let rs = Vals::from_slice(self.func.dfg.make_inst_results(i));
        // `at` is set for every selected instruction (invariant of `run`).
        let at = self.at.expect("selection position");
        self.func.layout.insert_inst(i, at);
        Ok(rs)
    }

    /// The `concat lo, hi` after `inst` in layout order (so selected after it; in any block,
    /// as SSA places it where `inst` dominates) that is the only use of both `lo` and `hi`:
    /// selecting `inst` can then produce that `b64` value directly (recorded in
    /// `fused_pairs`) instead of two words and two moves.
    pub(crate) fn sole_join(&self, inst: Inst, lo: Value, hi: Value) -> Option<Inst> {
        if self.use_count[lo] != 1 || self.use_count[hi] != 1 {
            return None;
        }
        let j = *self.joins.get(&(lo, hi))?;
        (self.position[j] > self.position[inst]).then_some(j)
    }

    /// Reads `RZ` instead of a `b32` argument that is the constant 0 wherever the template
    /// reads it as a plain register, and drops the argument when nothing else uses it (so no
    /// register holds the zero). Grouped (multi-register) arguments are left alone.
    fn fold_zero_args(&self, tpl: &mut Template, args: &mut Args) {
        let in_group = |k: usize| {
            tpl.arg_groups
                .iter()
                .any(|g| (g.start as usize..(g.start + g.len) as usize).contains(&k))
        };
        let zero: SmallVec<[bool; 8]> = args
            .iter()
            .enumerate()
            .map(|(k, &a)| {
                self.konst(a) == Some(0) && self.func.dfg.value_type(a) == Type::B32 && !in_group(k)
            })
            .collect();
        for t in tpl.seq.iter_mut() {
            for (i, slot) in t.slots.iter_mut().enumerate() {
                if let Slot::Arg(k, 0) = *slot {
                    if zero[k as usize] && t.inst.operands[i] == Operand::Hole {
                        t.inst.operands[i] = Operand::Reg(isa_spa5::Reg::RZ);
                        *slot = Slot::Keep;
                    }
                }
            }
        }
        // Renumber the arguments still referenced.
        let mut used: SmallVec<[bool; 8]> = smallvec::smallvec![false; args.len()];
        for t in &tpl.seq {
            for slot in t.slots {
                match slot {
                    Slot::Arg(k, _) | Slot::ArgNot(k) | Slot::MemArg(k) | Slot::CIdxArg(k) => {
                        used[k as usize] = true
                    }
                    _ => {}
                }
            }
            if let Some((k, _)) = t.guard {
                used[k as usize] = true;
            }
        }
        for g in &tpl.arg_groups {
            for k in g.start..g.start + g.len {
                used[k as usize] = true;
            }
        }
        // (When every argument is still used this renumbers each to itself.)
        let mut new_index: SmallVec<[u8; 8]> = smallvec::smallvec![0u8; args.len()];
        let mut kept = Args::new();
        for (k, &a) in args.iter().enumerate() {
            if used[k] {
                new_index[k] = kept.len() as u8;
                kept.push(a);
            }
        }
        let re = |k: u8| new_index[k as usize];
        for t in tpl.seq.iter_mut() {
            for slot in t.slots.iter_mut() {
                *slot = match *slot {
                    Slot::Arg(k, p) => Slot::Arg(re(k), p),
                    Slot::ArgNot(k) => Slot::ArgNot(re(k)),
                    Slot::MemArg(k) => Slot::MemArg(re(k)),
                    Slot::CIdxArg(k) => Slot::CIdxArg(re(k)),
                    other => other,
                };
            }
            if let Some((k, n)) = t.guard {
                t.guard = Some((re(k), n));
            }
        }
        for g in tpl.arg_groups.iter_mut() {
            g.start = re(g.start);
        }
        *args = kept;
    }

    /// Reads the register pair of `x` directly wherever the template reads `lo x` / `hi x`
    /// (a `b32` argument, not in a register group, read only as a plain register): the split
    /// would otherwise be a `MOV` into a register of its own.
    fn fold_half_args(&self, tpl: &mut Template, args: &mut Args) {
        for (k, arg) in args.iter_mut().enumerate() {
            let in_group = tpl
                .arg_groups
                .iter()
                .any(|g| (g.start as usize..(g.start + g.len) as usize).contains(&k));
            if in_group || self.func.dfg.value_type(*arg) != Type::B32 {
                continue;
            }
            let Some(def) = self.func.dfg.value_inst(*arg) else {
                continue;
            };
            let (part, x) = match &self.func.dfg.insts[def] {
                InstructionData::Unary {
                    opcode: Opcode::Lo,
                    args: [x],
                } => (0u8, *x),
                InstructionData::Unary {
                    opcode: Opcode::Hi,
                    args: [x],
                } => (1u8, *x),
                _ => continue,
            };
            // Only plain register reads: memory operands and guards take other slots.
            let plain = tpl.seq.iter().all(|t| {
                t.guard.map(|(g, _)| g as usize) != Some(k)
                    && t.slots.iter().all(|s| match *s {
                        Slot::Arg(a, _) | Slot::ArgNot(a) | Slot::MemArg(a) | Slot::CIdxArg(a)
                            if a as usize == k =>
                        {
                            matches!(*s, Slot::Arg(_, 0))
                        }
                        _ => true,
                    })
            });
            if !plain || self.func.dfg.value_type(x) != Type::B64 {
                continue;
            }
            for t in tpl.seq.iter_mut() {
                for s in t.slots.iter_mut() {
                    if *s == Slot::Arg(k as u8, 0) {
                        *s = Slot::Arg(k as u8, part);
                    }
                }
            }
            *arg = x;
        }
    }

    /// One instruction producing one `b32`.
    pub(crate) fn one(
        &mut self,
        inst: MInst,
        slots: &[Slot],
        args: &[Value],
    ) -> Result<Value, IselError> {
        Ok(self.emit(Template::one(TInst::new(inst, slots)), args, &[Type::B32])?[0])
    }

    pub(crate) fn one_ty(
        &mut self,
        inst: MInst,
        slots: &[Slot],
        args: &[Value],
        ty: Type,
    ) -> Result<Value, IselError> {
        Ok(self.emit(Template::one(TInst::new(inst, slots)), args, &[ty])?[0])
    }

    /// The block of the instruction being selected.
    pub(crate) fn cur_block(&self) -> Option<Block> {
        self.at.and_then(|i| self.func.layout.inst_block(i))
    }

    /// A 32-bit constant in a register.
    pub(crate) fn const32(&mut self, v: u32) -> Result<Value, IselError> {
        let block = self.cur_block();
        if let Some(&c) = block.and_then(|b| self.const_memo.get(&(b, v))) {
            return Ok(c);
        }
        let c = self.one(MInst::mov32i(R, v), &[Res(0, 0)], &[])?;
        if let Some(b) = block {
            self.const_memo.insert((b, v), c);
        }
        Ok(c)
    }

    /// If `v` is a direct, in-range 32-bit constant-buffer read, the absolute `c[0x0]` byte
    pub(crate) fn ty(&self, v: Value) -> Type {
        self.func.dfg.value_type(v)
    }

    /// Selects one instruction; returns the values replacing its results.
    fn select(&mut self, inst: Inst) -> Result<Vals, IselError> {
        let data = self.func.dfg.insts[inst].clone();
        let n = Node {
            inst,
            op: data.opcode(),
            args: data.args().into(),
            data,
        };
        let data = &n.data;
        match family(n.op) {
            Family::Move => self.select_move(&n),
            Family::Int => self.select_int(&n),
            Family::Float => self.select_float(&n),
            Family::F64 => self.select_f64(&n),
            Family::Conv => self.select_conv(&n),
            Family::Control => self.select_control(&n),
            Family::Mem => self.select_mem(inst, data),
            Family::Tex => match data {
                InstructionData::Texture { tex, args, .. } => self.select_tex(inst, tex, args),
                _ => Err(self.unsupported(inst, "texture form")),
            },
            Family::Generic | Family::None => Err(self.unsupported(inst, data.opcode().mnemonic())),
        }
    }
}

/// The selection family of an IR opcode (see the module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// Constants, copies, register pairs, special registers, lane shuffles ([`moves`]).
    Move,
    /// 32- and 64-bit integer arithmetic, logic, shifts, bit fields, compares ([`int`]).
    Int,
    /// f32 arithmetic, transcendentals, rounding, compares ([`float`]).
    Float,
    /// f64 arithmetic, division and roots, compares ([`f64`]).
    F64,
    /// Conversions between integer and float types and widths ([`conv`]).
    Conv,
    /// Predicate logic and selects ([`control`]).
    Control,
    /// Loads, stores, atomics, barriers ([`mem`]).
    Mem,
    /// Texture fetches and queries ([`tex`]).
    Tex,
    /// Left to the scheduler and allocator as generic IR (terminators).
    Generic,
    /// No selection: earlier passes must have lowered it.
    None,
}

/// The family of `op`. Exhaustive on purpose: a new opcode must be given a family.
pub fn family(op: Opcode) -> Family {
    use Opcode as O;
    match op {
        O::Iconst | O::Copy | O::Concat | O::Lo | O::Hi | O::Special | O::QuadShuffle => {
            Family::Move
        }
        O::Iadd
        | O::Isub
        | O::Ineg
        | O::Imul
        | O::Imulhi
        | O::Umulhi
        | O::Imad
        | O::Idiv
        | O::Udiv
        | O::Irem
        | O::Urem
        | O::Ishl
        | O::Ishr
        | O::Ushr
        | O::Band
        | O::Bor
        | O::Bxor
        | O::Bnot
        | O::Bfi
        | O::Ubfe
        | O::Ibfe
        | O::Fshr
        | O::Bitrev
        | O::Popcnt
        | O::Clz
        | O::FirstbitHi
        | O::FirstbitLo
        | O::FirstbitShi
        | O::Imin
        | O::Imax
        | O::Umin
        | O::Umax
        | O::Iabs
        | O::Icmp => Family::Int,
        O::Fcmp
        | O::Fadd
        | O::Fsub
        | O::Fmul
        | O::FmulLegacy
        | O::Ffma
        | O::Fmad
        | O::FmadLegacy
        | O::Fmin
        | O::Fmax
        | O::Fneg
        | O::Fabs
        | O::Fdiv
        | O::Frcp
        | O::Frsq
        | O::Fsqrt
        | O::Fexp2
        | O::Flog2
        | O::Fsin
        | O::Fcos
        | O::Ffloor
        | O::Fceil
        | O::Ftrunc
        | O::FroundEven
        | O::Ffract
        | O::Fsat => Family::Float,
        O::Dcmp
        | O::Dadd
        | O::Dsub
        | O::Dmul
        | O::Dfma
        | O::Ddiv
        | O::DdivNormal
        | O::Drcp
        | O::Dsqrt
        | O::Dmin
        | O::Dmax
        | O::Drsq
        | O::Dfloor
        | O::Dceil
        | O::Dtrunc
        | O::DroundEven
        | O::Dneg
        | O::Dabs => Family::F64,
        O::F2i
        | O::F2u
        | O::I2f
        | O::U2f
        | O::F2d
        | O::D2f
        | O::D2i
        | O::D2u
        | O::I2d
        | O::U2d
        | O::F16to32
        | O::F32to16 => Family::Conv,
        O::Pconst | O::Select | O::Bmask | O::Pand | O::Por | O::Pxor | O::Pnot | O::VoteAll => {
            Family::Control
        }
        O::Load | O::Store | O::Atomic | O::AtomicNoret | O::Barrier => Family::Mem,
        O::Tex => Family::Tex,
        O::Jump | O::Brif | O::Return => Family::Generic,
        // Lowered before selection (`ilc_passes` legalization and the IL lowering).
        O::Fldexp
        | O::Dfract
        | O::Dldexp
        | O::DfrexpMant
        | O::DfrexpExp
        | O::BrTable
        | O::Unreachable
        | O::Target => Family::None,
    }
}
