//! Instruction selection: every generic IR instruction becomes one or more `Target`
//! instructions (still SSA) whose templates live in the [`Spa5Target`] table (see
//! [`super::target`] for the encoding of the escape).
//!
//! Kept generic: `jump`, `brif`, `return` terminators and block parameters, so the scheduler
//! and allocator still see the CFG. Everything else is replaced; an instruction that has no
//! selection yields [`IselError::Unsupported`] naming it. Patterns:
//! - integer constants fold into 20-bit immediate forms; 32-bit multiply is an XMAD sequence
//!   (two XMADs when one factor is a 16-bit constant, three otherwise);
//! - 64-bit integer add/sub/logic are CC-chained pairs inside one template;
//! - f32 ops use `.FTZ` (the IR flushes denormals); `fdiv` is MUFU.RCP plus one Newton step;
//!   `fsqrt` is RSQ then RCP; sin/cos/exp2 use RRO before MUFU;
//! - memory: see [`super::isel_mem`].
//!
//! Requires: a verified function whose resources fit [`LaunchLayout`]. Guarantees: the result
//! verifies, and only `Target`, `jump`, `brif` and `return` remain.

use ilc_passes::{FastHashMap as HashMap, FastHashSet as HashSet};

use ilc_passes::ir::{
    Block, FloatCC, Function, Inst, InstructionData, IntCC, Opcode, SpecialReg as IrSreg, Type,
    Value,
};
use isa_spa5::inst::Operand;
use isa_spa5::{Inst as MInst, ModKind, Op, Pred, PredReg, SpecialReg};
use smallvec::SmallVec;

use super::abi::{LaunchLayout, ParamKind};
use super::target::{cb0, fits_i20, SetMod, Slot, Spa5Target, TInst, Template, R};
use super::Spa5Options;

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
}

use Slot::{Arg, Res};

/// Selection state for one function.
pub struct Isel<'a> {
    pub(crate) func: &'a mut Function,
    pub(crate) tgt: &'a mut Spa5Target,
    pub(crate) layout: &'a LaunchLayout,
    pub(crate) opts: &'a Spa5Options,
    pub(crate) alias: HashMap<Value, Value>,
    pub(crate) at: Option<Inst>,
    /// UAV ids that some instruction writes (the others use the read-only path).
    pub(crate) written_uavs: HashSet<u8>,
    /// 64-bit addresses already formed in a block: (block, index value, base parameter
    /// offset, shift) -> (lo, hi), so accesses to one element share one LEA pair.
    pub(crate) lea_memo: HashMap<(Block, Value, u32, u8), (Value, Value)>,
    /// Bounds predicates per block and (address, offset, limit): a load and a store of the
    /// same element share one `ISETP`.
    pub(crate) bounds_memo: HashMap<(Block, Option<Value>, i64, i64), Value>,
    /// `MOV32I` constants per block: one register per distinct value (the scheduler would
    /// otherwise hoist every copy to the top of the block, each in its own register).
    pub(crate) const_memo: HashMap<(Block, u32), Value>,
    /// The literal pool (constant bank [`POOL_BANK`], as ptxas keeps its literals): 32-bit
    /// constants no immediate field holds are read as `c[0x2][4k]` operands instead of
    /// occupying a register loaded by `MOV32I`.
    pub(crate) pool: Vec<u32>,
    /// Pool word index of each (constant, is 64-bit) already placed.
    pool_index: HashMap<(u64, bool), u32>,
    /// Values some instruction reads (before selection): texture fetches write only the
    /// channels in it.
    pub(crate) used: HashSet<Value>,
    /// How many times each value is used (operands and block-call arguments).
    pub(crate) use_count: HashMap<Value, u32>,
    /// Two-word loads selected as one `b64` value because their words only feed one
    /// `concat` (first word -> (second word, the `b64`)): the concat is that value, no copies.
    pub(crate) fused_pairs: HashMap<Value, (Value, Value)>,
}

/// Constant bank of the literal pool.
pub const POOL_BANK: u8 = 2;
/// Most literal-pool entries (16 KiB of the 64 KiB bank); later constants use `MOV32I`.
const POOL_MAX: usize = 4096;

/// Runs instruction selection on `func` in place; returns the literal pool (the words of
/// constant bank [`POOL_BANK`], empty when `opts.literal_pool` is off or nothing needed it).
pub fn run(
    func: &mut Function,
    tgt: &mut Spa5Target,
    layout: &LaunchLayout,
    opts: &Spa5Options,
) -> Result<Vec<u32>, IselError> {
    let mut written = HashSet::default();
    let mut used = HashSet::default();
    let mut use_count: HashMap<Value, u32> = HashMap::default();
    for inst in func.insts_in_layout() {
        used.extend(func.dfg.insts[inst].all_values());
        for v in func.dfg.insts[inst].all_values() {
            *use_count.entry(v).or_default() += 1;
        }
        if let Some(m) = func.dfg.insts[inst].mem_arg() {
            if func.dfg.insts[inst].opcode().writes_memory() {
                if let ilc_passes::ir::MemSpace::Uav(id) = m.space {
                    written.insert(id);
                }
            }
        }
    }
    let mut s = Isel {
        func,
        tgt,
        layout,
        opts,
        alias: HashMap::default(),
        at: None,
        written_uavs: written,
        lea_memo: HashMap::default(),
        const_memo: HashMap::default(),
        pool: Vec::new(),
        pool_index: HashMap::default(),
        bounds_memo: HashMap::default(),
        used,
        use_count,
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
        let old: SmallVec<[Value; 4]> = s.func.dfg.inst_results(inst).into();
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

type Vals = SmallVec<[Value; 4]>;

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
        tpl: Template,
        args: &[Value],
        results: &[Type],
    ) -> Result<Vals, IselError> {
        let (tpl, args) = self.fold_zero_args(tpl, args);
        let (tpl, args) = self.fold_half_args(tpl, args);
        let side = tpl.side_effects;
        let code = self.tgt.intern(tpl).ok_or(IselError::TableFull)?;
        let args: SmallVec<[Value; 4]> = args.iter().map(|a| self.v(*a)).collect();
        let data = InstructionData::Target {
            opcode: Opcode::Target,
            code,
            imm: 0,
            side_effects: side,
            args,
            results: results.iter().copied().collect(),
        };
        let i = self.func.dfg.make_inst(data);
        let rs: Vals = self.func.dfg.make_inst_results(i).into();
        // `at` is set for every selected instruction (invariant of `run`).
        let at = self.at.expect("selection position");
        self.func.layout.insert_inst(i, at);
        Ok(rs)
    }

    /// The `concat lo, hi` after `inst` (in its block, within 64 instructions) that is the
    /// only use of both `lo` and `hi`: selecting `inst` can then produce that `b64` value
    /// directly (recorded in `fused_pairs`) instead of two words and two moves.
    pub(crate) fn sole_join(&self, inst: Inst, lo: Value, hi: Value) -> Option<Inst> {
        if self.use_count.get(&lo) != Some(&1) || self.use_count.get(&hi) != Some(&1) {
            return None;
        }
        let mut at = self.func.layout.next_inst(inst);
        for _ in 0..64 {
            let i = at?;
            if let InstructionData::Binary {
                opcode: Opcode::Concat,
                args,
            } = &self.func.dfg.insts[i]
            {
                if *args == [lo, hi] {
                    return Some(i);
                }
            }
            at = self.func.layout.next_inst(i);
        }
        None
    }

    /// Reads `RZ` instead of a `b32` argument that is the constant 0 wherever the template
    /// reads it as a plain register, and drops the argument when nothing else uses it (so no
    /// register holds the zero). Grouped (multi-register) arguments are left alone.
    fn fold_zero_args(&self, mut tpl: Template, args: &[Value]) -> (Template, Vec<Value>) {
        let in_group = |k: usize| {
            tpl.arg_groups
                .iter()
                .any(|g| (g.start as usize..(g.start + g.len) as usize).contains(&k))
        };
        let zero: Vec<bool> = args
            .iter()
            .enumerate()
            .map(|(k, &a)| {
                self.konst(a) == Some(0) && self.func.dfg.value_type(a) == Type::B32 && !in_group(k)
            })
            .collect();
        if !zero.iter().any(|&z| z) {
            return (tpl, args.to_vec());
        }
        for t in tpl.seq.iter_mut() {
            for (i, slot) in t.slots.iter_mut().enumerate() {
                if let Slot::Arg(k, 0) = *slot {
                    if zero[k as usize] && matches!(t.inst.operands[i], Operand::Reg(_)) {
                        t.inst.operands[i] = Operand::Reg(isa_spa5::Reg::RZ);
                        *slot = Slot::Keep;
                    }
                }
            }
        }
        // Renumber the arguments still referenced.
        let mut used = vec![false; args.len()];
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
        if used.iter().all(|&u| u) {
            return (tpl, args.to_vec());
        }
        let mut new_index = vec![0u8; args.len()];
        let mut kept = Vec::new();
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
        (tpl, kept)
    }

    /// Reads the register pair of `x` directly wherever the template reads `lo x` / `hi x`
    /// (a `b32` argument, not in a register group, read only as a plain register): the split
    /// would otherwise be a `MOV` into a register of its own.
    fn fold_half_args(&self, mut tpl: Template, args: Vec<Value>) -> (Template, Vec<Value>) {
        let mut args = args;
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
        (tpl, args)
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

    /// A 32-bit constant in a register.
    pub(crate) fn const32(&mut self, v: u32) -> Result<Value, IselError> {
        let block = self.at.and_then(|i| self.func.layout.inst_block(i));
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
    /// offset it reads.
    pub(crate) fn cb_operand(&self, v: Value) -> Option<u32> {
        use ilc_passes::ir::{MemSize, MemSpace};
        let inst = self.func.dfg.value_inst(v)?;
        let InstructionData::Load { mem, args, .. } = &self.func.dfg.insts[inst] else {
            return None;
        };
        let MemSpace::Cb(id) = mem.space else {
            return None;
        };
        if !args.is_empty()
            || mem.size != MemSize::Words(1)
            || mem.offset < 0
            || mem.offset % 4 != 0
        {
            return None;
        }
        let p = self.layout.param(super::abi::ParamKind::CbData(id))?;
        let off = mem.offset as u32;
        (off + 4 <= p.size).then_some(isa_spa5::cubin::PARAM_BASE + p.offset + off)
    }

    /// A `c[][]` operand for `b32` value `v`: a direct constant-buffer parameter read (bank 0)
    /// or a nonzero constant (its literal-pool slot; zero is better read as `RZ`). Only ask
    /// when the instruction has a `c[]` form: a constant gets its pool slot here.
    pub(crate) fn const_operand(&mut self, v: Value) -> Option<Operand> {
        if let Some(off) = self.cb_operand(v) {
            return Some(cb0(off));
        }
        let c = self.pooled_const(v, Type::B32)?;
        self.pool_slot(c, false)
    }

    /// The nonzero constant of type `ty` that `v` is, when the literal pool is on (zero is
    /// read as `RZ`).
    fn pooled_const(&self, v: Value, ty: Type) -> Option<u64> {
        if !self.opts.literal_pool || self.func.dfg.value_type(v) != ty {
            return None;
        }
        self.konst(v).filter(|&c| c != 0)
    }

    /// The literal-pool operand for constant `c` (two aligned words for a 64-bit one),
    /// placing it on first use; `None` when the pool is full.
    fn pool_slot(&mut self, c: u64, wide: bool) -> Option<Operand> {
        let words: &[u32] = if wide {
            &[c as u32, (c >> 32) as u32]
        } else {
            &[c as u32]
        };
        let k = match self.pool_index.get(&(c, wide)) {
            Some(&k) => k,
            None if self.pool.len() + words.len() + usize::from(wide) <= POOL_MAX => {
                if wide && self.pool.len() % 2 == 1 {
                    self.pool.push(0);
                }
                let k = self.pool.len() as u32;
                self.pool.extend_from_slice(words);
                self.pool_index.insert((c, wide), k);
                k
            }
            None => return None,
        };
        Some(isa_spa5::inst::cbuf(POOL_BANK, 4 * k as i32))
    }

    /// The 8-aligned `c[0x0]` offset of a `b64` value made of two consecutive constant-buffer
    /// words (`concat` of direct reads at `o` and `o + 4`).
    fn cb64_offset(&self, v: Value) -> Option<u32> {
        let inst = self.func.dfg.value_inst(v)?;
        let InstructionData::Binary {
            opcode: Opcode::Concat,
            args,
        } = &self.func.dfg.insts[inst]
        else {
            return None;
        };
        let (a, b) = (self.cb_operand(args[0])?, self.cb_operand(args[1])?);
        (b == a + 4 && a % 8 == 0).then_some(a)
    }

    /// A 64-bit `c[][]` operand for `b64` value `v`: two consecutive constant-buffer words, or
    /// a constant (an 8-aligned literal-pool slot; zero is left to `RZ`).
    pub(crate) fn const_operand64(&mut self, v: Value) -> Option<Operand> {
        if let Some(off) = self.cb64_offset(v) {
            return Some(cb0(off));
        }
        let c = self.pooled_const(v, Type::B64)?;
        self.pool_slot(c, true)
    }

    /// True if `v` could be a 64-bit `c[]` operand.
    fn const_like64(&self, v: Value) -> bool {
        self.cb64_offset(v).is_some() || self.pooled_const(v, Type::B64).is_some()
    }

    /// True if `v` could be a `c[]` operand (a parameter read or a nonzero `b32` constant).
    fn const_like(&self, v: Value) -> bool {
        self.cb_operand(v).is_some() || self.pooled_const(v, Type::B32).is_some()
    }

    /// The `_C` form of register form `r`, if the table has one.
    fn c_form(r: Op) -> Option<Op> {
        Op::from_name(&r.name().replace("_R", "_C"))
    }

    /// Puts a constant or constant-buffer operand second for commutative ops.
    fn canon(&self, a: Value, b: Value) -> (Value, Value) {
        let special = |v| self.konst(v).is_some() || self.cb_operand(v).is_some();
        if special(a) && !special(b) {
            (b, a)
        } else {
            (a, b)
        }
    }

    /// `OP d, a, b` choosing the immediate form for small constants `b` (integer ops).
    pub(crate) fn int_bin(
        &mut self,
        r: Op,
        i: Op,
        a: Value,
        b: Value,
        mods: &[(ModKind, u8)],
    ) -> Result<Value, IselError> {
        let (inst, slots, args): (MInst, Vec<Slot>, Vec<Value>) = match self.konst(b) {
            Some(c) if fits_i20(c as u32 as i32 as i64) => (
                MInst::build(
                    i,
                    &[
                        Operand::Reg(R),
                        Operand::Reg(R),
                        Operand::Imm(c as u32 as i32 as i64),
                    ],
                ),
                vec![Res(0, 0), Arg(0, 0)],
                vec![a],
            ),
            _ => match Self::c_form(r).and_then(|c| Some((c, self.const_operand(b)?))) {
                Some((c, cb)) => (
                    MInst::build(c, &[Operand::Reg(R), Operand::Reg(R), cb]),
                    vec![Res(0, 0), Arg(0, 0)],
                    vec![a],
                ),
                None => (
                    MInst::build(r, &[Operand::Reg(R), Operand::Reg(R), Operand::Reg(R)]),
                    vec![Res(0, 0), Arg(0, 0), Arg(1, 0)],
                    vec![a, b],
                ),
            },
        };
        let mut inst = inst;
        for &(k, v) in mods {
            inst.set(k, v);
        }
        self.one(inst, &slots, &args)
    }

    /// `OP.FTZ d, a, b` for f32 ops, with an f32 immediate when `b` is a constant whose low
    /// 12 bits are zero.
    fn f_bin(
        &mut self,
        r: Op,
        i: Op,
        a: Value,
        b: Value,
        mods: &[(ModKind, u8)],
    ) -> Result<Value, IselError> {
        let (mut inst, slots, args): (MInst, Vec<Slot>, Vec<Value>) = match self.konst(b) {
            Some(c) if short_f32(c as u32) => (
                MInst::build(
                    i,
                    &[Operand::Reg(R), Operand::Reg(R), Operand::F32(c as u32)],
                ),
                vec![Res(0, 0), Arg(0, 0)],
                vec![a],
            ),
            _ => match Self::c_form(r).and_then(|c| Some((c, self.const_operand(b)?))) {
                Some((c, cb)) => (
                    MInst::build(c, &[Operand::Reg(R), Operand::Reg(R), cb]),
                    vec![Res(0, 0), Arg(0, 0)],
                    vec![a],
                ),
                None => (
                    MInst::build(r, &[Operand::Reg(R), Operand::Reg(R), Operand::Reg(R)]),
                    vec![Res(0, 0), Arg(0, 0), Arg(1, 0)],
                    vec![a, b],
                ),
            },
        };
        inst.set(ModKind::Ftz, 1);
        inst.set_name(ModKind::Fmz, "FTZ");
        for &(k, v) in mods {
            inst.set(k, v);
        }
        self.one(inst, &slots, &args)
    }

    fn ffma(
        &mut self,
        a: Value,
        b: Value,
        c: Value,
        negb: bool,
        negc: bool,
    ) -> Result<Value, IselError> {
        // A constant multiplier with a short f32 encoding is the immediate (FFMA_I, the sign
        // of a negated one folded in); a constant-buffer read or another constant becomes the
        // instruction's c[] operand: as the multiplier (FFMA_C; the product commutes) or as
        // the addend (FFMA_RC).
        let (a, b) = if !self.const_like(b) && self.const_like(a) {
            (b, a)
        } else {
            (a, b)
        };
        if let Some(k) = self.konst(b).map(|k| k as u32) {
            let k = if negb { k ^ 0x8000_0000 } else { k };
            if short_f32(k) {
                let mut inst = MInst::build(
                    Op::FFMA_I,
                    &[
                        Operand::Reg(R),
                        Operand::Reg(R),
                        Operand::F32(k),
                        Operand::Reg(R),
                    ],
                );
                inst.set_name(ModKind::Fmz, "FTZ");
                inst.set(ModKind::Neg(3), negc as u8);
                return self.one(
                    inst,
                    &[Res(0, 0), Arg(0, 0), Slot::Keep, Arg(1, 0)],
                    &[a, c],
                );
            }
        }
        let cb_b = self.const_operand(b);
        let cb_c = if cb_b.is_none() {
            self.const_operand(c)
        } else {
            None
        };
        let (mut inst, slots, args): (MInst, [Slot; 4], Vec<Value>) = match (cb_b, cb_c) {
            (Some(cb), _) => (
                MInst::ffma(R, R, cb, R),
                [Res(0, 0), Arg(0, 0), Slot::Keep, Arg(1, 0)],
                vec![a, c],
            ),
            (None, Some(cb)) => (
                MInst::build(
                    Op::FFMA_RC,
                    &[Operand::Reg(R), Operand::Reg(R), Operand::Reg(R), cb],
                ),
                [Res(0, 0), Arg(0, 0), Arg(1, 0), Slot::Keep],
                vec![a, b],
            ),
            (None, None) => (
                MInst::ffma(R, R, R, R),
                [Res(0, 0), Arg(0, 0), Arg(1, 0), Arg(2, 0)],
                vec![a, b, c],
            ),
        };
        inst.set_name(ModKind::Fmz, "FTZ");
        inst.set(ModKind::Neg(2), negb as u8);
        inst.set(ModKind::Neg(3), negc as u8);
        self.one(inst, &slots, &args)
    }

    fn mufu(&mut self, op: &str, a: Value) -> Result<Value, IselError> {
        self.one(MInst::mufu(op, R, R), &[Res(0, 0), Arg(0, 0)], &[a])
    }

    fn lop32i(&mut self, op: &str, a: Value, k: u32) -> Result<Value, IselError> {
        self.one(MInst::lop32i(op, R, R, k), &[Res(0, 0), Arg(0, 0)], &[a])
    }

    /// A predicate from `ISETP.cmp.bop p, PT, a, b, q` (q = PT when `q` is None).
    #[allow(clippy::too_many_arguments)] // mirrors the ISETP operand list
    fn isetp(
        &mut self,
        cmp: &str,
        signed: bool,
        x: bool,
        a: Value,
        b: Value,
        bop: &str,
        q: Option<Value>,
    ) -> Result<Value, IselError> {
        // A small constant or a direct constant-buffer read becomes the B operand itself.
        let folded: Option<Operand> = match self.konst(b) {
            Some(c) if fits_i20(c as u32 as i32 as i64) => {
                Some(Operand::Imm(c as u32 as i32 as i64))
            }
            _ => self.const_operand(b),
        };
        let bop_operand = folded.unwrap_or(Operand::Reg(R));
        let mut inst =
            MInst::isetp(cmp, PredReg(0), R, bop_operand).m(ModKind::Signed, signed as u8);
        inst.set_name(ModKind::Bop, bop);
        inst.set(ModKind::X, x as u8);
        let (mut slots, mut args) = match folded {
            Some(_) => (vec![Res(0, 0), Slot::Keep, Arg(0, 0), Slot::Keep], vec![a]),
            None => (
                vec![Res(0, 0), Slot::Keep, Arg(0, 0), Arg(1, 0)],
                vec![a, b],
            ),
        };
        if let Some(q) = q {
            slots.push(Arg(args.len() as u8, 0));
            args.push(q);
        }
        self.one_ty(inst, &slots, &args, Type::Pred)
    }

    fn psetp(
        &mut self,
        bop: &str,
        a: Value,
        anot: bool,
        b: Option<(Value, bool)>,
    ) -> Result<Value, IselError> {
        let inst = MInst::new(Op::PSETP).mn(ModKind::Bop, bop);
        let a_slot = if anot { Slot::ArgNot(0) } else { Arg(0, 0) };
        let (b_slot, args) = match b {
            Some((bv, bnot)) => (if bnot { Slot::ArgNot(1) } else { Arg(1, 0) }, vec![a, bv]),
            None => (Slot::Keep, vec![a]),
        };
        self.one_ty(
            inst,
            &[Res(0, 0), Slot::Keep, a_slot, b_slot, Slot::Keep],
            &args,
            Type::Pred,
        )
    }

    fn ty(&self, v: Value) -> Type {
        self.func.dfg.value_type(v)
    }

    /// Selects one instruction; returns the values replacing its results.
    fn select(&mut self, inst: Inst) -> Result<Vals, IselError> {
        let data = self.func.dfg.insts[inst].clone();
        let op = data.opcode();
        let args: Vals = data.args().into();
        let rty = self
            .func
            .dfg
            .inst_results(inst)
            .first()
            .map(|v| self.func.dfg.value_type(*v));
        let one = |v: Value| -> Result<Vals, IselError> { Ok([v].into_iter().collect()) };
        let is64 = rty == Some(Type::B64) || args.first().is_some_and(|a| self.ty(*a) == Type::B64);
        match (&data, op) {
            (InstructionData::UnaryImm { ty, imm, .. }, Opcode::Iconst) => match ty {
                Type::B64 => {
                    let t = Template::many(&[
                        TInst::new(MInst::mov32i(R, *imm as u32), &[Res(0, 0)]),
                        TInst::new(MInst::mov32i(R, (*imm >> 32) as u32), &[Res(0, 1)]),
                    ]);
                    Ok(self.emit(t, &[], &[Type::B64])?)
                }
                _ => one(self.const32(*imm as u32)?),
            },
            (InstructionData::UnaryImm { imm, .. }, Opcode::Pconst) => {
                let p = if *imm & 1 != 0 {
                    Pred::TRUE
                } else {
                    Pred::FALSE
                };
                let inst = MInst::build(
                    Op::PSETP,
                    &[
                        Operand::Pred(Pred::p(0)),
                        Operand::Pred(Pred::TRUE),
                        Operand::Pred(p),
                        Operand::Pred(Pred::TRUE),
                        Operand::Pred(Pred::TRUE),
                    ],
                );
                one(self.one_ty(inst, &[Res(0, 0)], &[], Type::Pred)?)
            }
            (_, Opcode::Copy) => {
                let ty = self.ty(args[0]);
                let code = match ty {
                    Type::B32 => super::target::codes::MOV32,
                    Type::B64 => super::target::codes::MOV64,
                    Type::Pred => super::target::codes::MOVP,
                };
                let t = self.tgt.templates[code as usize].clone();
                Ok(self.emit(t, &[args[0]], &[ty])?)
            }
            (_, Opcode::Iadd | Opcode::Isub) if is64 => {
                let sub = op == Opcode::Isub;
                let mut lo = MInst::iadd(R, R, R).m(ModKind::Cc, 1);
                let mut hi = MInst::iadd(R, R, R).m(ModKind::X, 1);
                let mut seq = Vec::new();
                if sub {
                    // a - b = a + ~b + 1: invert b into the result, then add with carry-in 1.
                    let not = |part| {
                        TInst::new(
                            MInst::lop("PASS_B", R, R, R).m(ModKind::Inv(3), 1),
                            &[Slot::Keep, Res(0, part), Slot::Keep, Arg(1, part)],
                        )
                    };
                    seq.push(not(0));
                    seq.push(not(1));
                    lo.set_name(ModKind::Po, "PO");
                    seq.push(TInst::new(lo, &[Res(0, 0), Arg(0, 0), Res(0, 0)]));
                    seq.push(TInst::new(hi, &[Res(0, 1), Arg(0, 1), Res(0, 1)]));
                } else {
                    lo.set(ModKind::Cc, 1);
                    hi.set(ModKind::X, 1);
                    seq.push(TInst::new(lo, &[Res(0, 0), Arg(0, 0), Arg(1, 0)]));
                    seq.push(TInst::new(hi, &[Res(0, 1), Arg(0, 1), Arg(1, 1)]));
                }
                Ok(self.emit(Template::many(&seq), &args, &[Type::B64])?)
            }
            (_, Opcode::Iadd) => {
                let (a, b) = self.canon(args[0], args[1]);
                one(self.int_bin(Op::IADD_R, Op::IADD_I, a, b, &[])?)
            }
            (_, Opcode::Isub) => {
                if let Some(c) = self.konst(args[1]) {
                    let n = (c as u32).wrapping_neg() as i32 as i64;
                    if fits_i20(n) {
                        return one(self.one(
                            MInst::iadd(R, R, n),
                            &[Res(0, 0), Arg(0, 0)],
                            &[args[0]],
                        )?);
                    }
                }
                let i = MInst::iadd(R, R, R).m(ModKind::Neg(2), 1);
                one(self.one(i, &[Res(0, 0), Arg(0, 0), Arg(1, 0)], &args)?)
            }
            (_, Opcode::Ineg) if !is64 => {
                let i = MInst::iadd(R, R, R).m(ModKind::Neg(2), 1);
                one(self.one(i, &[Res(0, 0), Slot::Keep, Arg(0, 0)], &args)?)
            }
            (_, Opcode::Band | Opcode::Bor | Opcode::Bxor | Opcode::Bnot) => {
                let name = match op {
                    Opcode::Band => "AND",
                    Opcode::Bor => "OR",
                    Opcode::Bxor => "XOR",
                    _ => "PASS_B",
                };
                let parts = if is64 { 2 } else { 1 };
                let mut seq = Vec::new();
                for p in 0..parts {
                    let mut i = MInst::lop(name, R, R, R);
                    if op == Opcode::Bnot {
                        i.set(ModKind::Inv(3), 1);
                        seq.push(TInst::new(
                            i,
                            &[Slot::Keep, Res(0, p), Slot::Keep, Arg(0, p)],
                        ));
                    } else {
                        seq.push(TInst::new(
                            i,
                            &[Slot::Keep, Res(0, p), Arg(0, p), Arg(1, p)],
                        ));
                    }
                }
                let ty = if is64 { Type::B64 } else { Type::B32 };
                Ok(self.emit(Template::many(&seq), &args, &[ty])?)
            }
            (_, Opcode::Imul) if !is64 => one(self.imul(args[0], args[1])?),
            (_, Opcode::Ishl | Opcode::Ushr | Opcode::Ishr) if is64 => {
                self.shift64(op == Opcode::Ishl, op == Opcode::Ishr, args[0], args[1])
            }
            (_, Opcode::Umulhi) => one(self.umulhi(args[0], args[1])?),
            (_, Opcode::Imulhi) => one(self.imulhi(args[0], args[1])?),
            (_, Opcode::Udiv | Opcode::Urem) if !is64 => {
                let (q, r) = self.udivrem(args[0], args[1])?;
                one(if op == Opcode::Udiv { q } else { r })
            }
            (_, Opcode::Idiv | Opcode::Irem) if !is64 => {
                let (q, r) = self.idivrem(args[0], args[1])?;
                one(if op == Opcode::Idiv { q } else { r })
            }
            (_, Opcode::Imad) if !is64 => {
                // a * 2^k + c is one ISCADD.
                let pow2 = |k: Option<u64>| {
                    k.map(|k| k as u32)
                        .filter(|k| k.is_power_of_two() && *k > 1)
                };
                let (x, k) = match (pow2(self.konst(args[1])), pow2(self.konst(args[0]))) {
                    (Some(k), _) => (args[0], Some(k)),
                    (None, Some(k)) => (args[1], Some(k)),
                    _ => (args[0], None),
                };
                if let Some(k) = k {
                    let i = MInst::iscadd(R, R, R, k.trailing_zeros() as u8);
                    return one(self.one(i, &[Res(0, 0), Arg(0, 0), Arg(1, 0)], &[x, args[2]])?);
                }
                let m = self.imul(args[0], args[1])?;
                one(self.int_bin(Op::IADD_R, Op::IADD_I, m, args[2], &[])?)
            }
            (_, Opcode::Ishl | Opcode::Ushr | Opcode::Ishr) if !is64 => {
                let (r, i) = if op == Opcode::Ishl {
                    (Op::SHL_R, Op::SHL_I)
                } else {
                    (Op::SHR_R, Op::SHR_I)
                };
                let signed = (op == Opcode::Ishr) as u8;
                if let Some(c) = self.konst(args[1]) {
                    let inst = MInst::build(
                        i,
                        &[
                            Operand::Reg(R),
                            Operand::Reg(R),
                            Operand::Imm((c & 31) as i64),
                        ],
                    )
                    .m(ModKind::Signed, signed);
                    let inst = if op == Opcode::Ishl {
                        MInst::build(
                            i,
                            &[
                                Operand::Reg(R),
                                Operand::Reg(R),
                                Operand::Imm((c & 31) as i64),
                            ],
                        )
                    } else {
                        inst
                    };
                    return one(self.one(inst, &[Res(0, 0), Arg(0, 0)], &[args[0]])?);
                }
                // The IR masks the count to 5 bits; `.W` wraps the same way.
                let mut inst =
                    MInst::build(r, &[Operand::Reg(R), Operand::Reg(R), Operand::Reg(R)])
                        .m(ModKind::W, 1);
                inst.set(ModKind::Signed, signed);
                one(self.one(inst, &[Res(0, 0), Arg(0, 0), Arg(1, 0)], &args)?)
            }
            (_, Opcode::Imin | Opcode::Imax | Opcode::Umin | Opcode::Umax) if !is64 => {
                let signed = matches!(op, Opcode::Imin | Opcode::Imax) as u8;
                let min = matches!(op, Opcode::Imin | Opcode::Umin);
                let p = if min { Pred::TRUE } else { Pred::FALSE };
                let inst = MInst::build(
                    Op::IMNMX_R,
                    &[
                        Operand::Reg(R),
                        Operand::Reg(R),
                        Operand::Reg(R),
                        Operand::Pred(p),
                    ],
                )
                .m(ModKind::Signed, signed);
                one(self.one(inst, &[Res(0, 0), Arg(0, 0), Arg(1, 0)], &args)?)
            }
            (_, Opcode::Iabs) if !is64 => {
                let n = self.one(
                    MInst::iadd(R, R, R).m(ModKind::Neg(2), 1),
                    &[Res(0, 0), Slot::Keep, Arg(0, 0)],
                    &args,
                )?;
                let inst = MInst::build(
                    Op::IMNMX_R,
                    &[
                        Operand::Reg(R),
                        Operand::Reg(R),
                        Operand::Reg(R),
                        Operand::Pred(Pred::FALSE),
                    ],
                );
                one(self.one(inst, &[Res(0, 0), Arg(0, 0), Arg(1, 0)], &[args[0], n])?)
            }
            (_, Opcode::Popcnt) => one(self.one(
                MInst::build(Op::POPC_R, &[Operand::Reg(R), Operand::Reg(R)]),
                &[Res(0, 0), Arg(0, 0)],
                &args,
            )?),
            (_, Opcode::FirstbitHi | Opcode::FirstbitShi | Opcode::Clz) => {
                let signed = (op == Opcode::FirstbitShi) as u8;
                let mut inst = MInst::build(Op::FLO_R, &[Operand::Reg(R), Operand::Reg(R)])
                    .m(ModKind::Signed, signed);
                if op != Opcode::Clz {
                    inst.set(ModKind::Sh, 1);
                    return one(self.one(inst, &[Res(0, 0), Arg(0, 0)], &args)?);
                }
                // clz = 31 - flo (flo(0) = -1 gives 32).
                let f = self.one(inst, &[Res(0, 0), Arg(0, 0)], &args)?;
                let sub = MInst::iadd(R, R, 31).m(ModKind::Neg(1), 1);
                one(self.one(sub, &[Res(0, 0), Arg(0, 0)], &[f])?)
            }
            (_, Opcode::Bitrev | Opcode::FirstbitLo) => {
                // BREV via SHR.REV? Not in every table: use BFE.REV over all 32 bits.
                let rev = MInst::build(
                    Op::BFE_I,
                    &[Operand::Reg(R), Operand::Reg(R), Operand::Imm(0x2000)],
                )
                .m(ModKind::Signed, 0)
                .m(ModKind::Brev, 1);
                let r = self.one(rev, &[Res(0, 0), Arg(0, 0)], &args)?;
                if op == Opcode::Bitrev {
                    return one(r);
                }
                let inst = MInst::build(Op::FLO_R, &[Operand::Reg(R), Operand::Reg(R)])
                    .m(ModKind::Signed, 0)
                    .m(ModKind::Sh, 1);
                one(self.one(inst, &[Res(0, 0), Arg(0, 0)], &[r])?)
            }
            (_, Opcode::Ubfe | Opcode::Ibfe) => {
                let ctl = self.bf_control(args[0], args[1])?;
                let signed = (op == Opcode::Ibfe) as u8;
                let inst = MInst::build(
                    Op::BFE_R,
                    &[Operand::Reg(R), Operand::Reg(R), Operand::Reg(R)],
                )
                .m(ModKind::Signed, signed);
                one(self.one(inst, &[Res(0, 0), Arg(0, 0), Arg(1, 0)], &[args[2], ctl])?)
            }
            (_, Opcode::Bfi) => {
                let ctl = self.bf_control(args[0], args[1])?;
                let inst = MInst::build(
                    Op::BFI_R,
                    &[
                        Operand::Reg(R),
                        Operand::Reg(R),
                        Operand::Reg(R),
                        Operand::Reg(R),
                    ],
                );
                one(self.one(
                    inst,
                    &[Res(0, 0), Arg(0, 0), Arg(1, 0), Arg(2, 0)],
                    &[args[2], ctl, args[3]],
                )?)
            }
            (InstructionData::IntCompare { cond, .. }, Opcode::Icmp) => {
                if is64 {
                    return one(self.icmp64(*cond, args[0], args[1])?);
                }
                let (cmp, signed) = icc(*cond);
                one(self.isetp(cmp, signed, false, args[0], args[1], "AND", None)?)
            }
            (InstructionData::FloatCompare { cond, .. }, Opcode::Fcmp) => {
                // A constant second operand is the immediate (short f32 encodings) or a c[]
                // operand; a constant first operand is swapped there first.
                let (cond, a, b) = if !self.const_like(args[1]) && self.const_like(args[0]) {
                    (cond.swap_args(), args[1], args[0])
                } else {
                    (*cond, args[0], args[1])
                };
                let folded = match self.konst(b).map(|k| k as u32) {
                    Some(k) if short_f32(k) => Some((Op::FSETP_I, Operand::F32(k))),
                    _ => self.const_operand(b).map(|cb| (Op::FSETP_C, cb)),
                };
                let (opc, opb, slots, fargs) = match folded {
                    Some((opc, o)) => (opc, o, Slot::Keep, vec![a]),
                    None => (Op::FSETP_R, Operand::Reg(R), Arg(1, 0), vec![a, b]),
                };
                let inst = MInst::build(
                    opc,
                    &[
                        Operand::Pred(Pred::p(0)),
                        Operand::Pred(Pred::TRUE),
                        Operand::Reg(R),
                        opb,
                        Operand::Pred(Pred::TRUE),
                    ],
                )
                .mn(ModKind::FCmp, fcc(cond))
                .m(ModKind::Ftz, 1);
                one(self.one_ty(
                    inst,
                    &[Res(0, 0), Slot::Keep, Arg(0, 0), slots],
                    &fargs,
                    Type::Pred,
                )?)
            }
            (InstructionData::FloatCompare { cond, .. }, Opcode::Dcmp) => {
                let inst = MInst::build(
                    Op::DSETP_R,
                    &[
                        Operand::Pred(Pred::p(0)),
                        Operand::Pred(Pred::TRUE),
                        Operand::Reg(R),
                        Operand::Reg(R),
                        Operand::Pred(Pred::TRUE),
                    ],
                )
                .mn(ModKind::FCmp, fcc(*cond));
                one(self.one_ty(
                    inst,
                    &[Res(0, 0), Slot::Keep, Arg(0, 0), Arg(1, 0)],
                    &args,
                    Type::Pred,
                )?)
            }
            (_, Opcode::Select) => {
                let ty = self.ty(args[1]);
                match ty {
                    Type::Pred => {
                        let t = self.psetp("AND", args[0], false, Some((args[1], false)))?;
                        let f = self.psetp("AND", args[0], true, Some((args[2], false)))?;
                        one(self.psetp("OR", t, false, Some((f, false)))?)
                    }
                    Type::B32 if self.const_like(args[1]) || self.const_like(args[2]) => {
                        // SEL's second operand may be an immediate or c[]: put the constant
                        // there (negating the predicate when it was the first).
                        let (t, f, not) = if self.const_like(args[2]) {
                            (args[1], args[2], false)
                        } else {
                            (args[2], args[1], true)
                        };
                        let pslot = if not { Slot::ArgNot(1) } else { Arg(1, 0) };
                        let k = self.konst(f).map(|k| k as u32 as i32 as i64);
                        let opb = match k {
                            Some(k) if fits_i20(k) => Some((Op::SEL_I, Operand::Imm(k))),
                            _ => self.const_operand(f).map(|cb| (Op::SEL_C, cb)),
                        };
                        let Some((opc, opb)) = opb else {
                            return one(self.one(
                                MInst::sel(R, R, R, Pred::TRUE),
                                &[Res(0, 0), Arg(0, 0), Arg(1, 0), Arg(2, 0)],
                                &[args[1], args[2], args[0]],
                            )?);
                        };
                        let inst = MInst::build(
                            opc,
                            &[
                                Operand::Reg(R),
                                Operand::Reg(R),
                                opb,
                                Operand::Pred(Pred::TRUE),
                            ],
                        );
                        one(self.one(
                            inst,
                            &[Res(0, 0), Arg(0, 0), Slot::Keep, pslot],
                            &[t, args[0]],
                        )?)
                    }
                    _ => {
                        let parts = if ty == Type::B64 { 2 } else { 1 };
                        let seq: Vec<TInst> = (0..parts)
                            .map(|p| {
                                TInst::new(
                                    MInst::sel(R, R, R, Pred::TRUE),
                                    &[Res(0, p), Arg(1, p), Arg(2, p), Arg(0, 0)],
                                )
                            })
                            .collect();
                        Ok(self.emit(Template::many(&seq), &args, &[ty])?)
                    }
                }
            }
            (_, Opcode::Bmask) => {
                let inst = MInst::sel(R, R, -1i32, Pred::TRUE);
                one(self.one(
                    inst,
                    &[Res(0, 0), Slot::Keep, Slot::Keep, Slot::ArgNot(0)],
                    &args,
                )?)
            }
            (_, Opcode::Pand) => one(self.psetp("AND", args[0], false, Some((args[1], false)))?),
            (_, Opcode::Por) => one(self.psetp("OR", args[0], false, Some((args[1], false)))?),
            (_, Opcode::Pxor) => one(self.psetp("XOR", args[0], false, Some((args[1], false)))?),
            (_, Opcode::Pnot) => one(self.psetp("AND", args[0], true, None)?),
            (_, Opcode::Fadd) => {
                let (a, b) = self.canon(args[0], args[1]);
                one(self.f_bin(Op::FADD_R, Op::FADD_I, a, b, &[])?)
            }
            (_, Opcode::Fsub) => {
                let i = MInst::fadd(R, R, R)
                    .m(ModKind::Ftz, 1)
                    .m(ModKind::Neg(2), 1);
                one(self.one(i, &[Res(0, 0), Arg(0, 0), Arg(1, 0)], &args)?)
            }
            (_, Opcode::Fmul) => {
                let (a, b) = self.canon(args[0], args[1]);
                one(self.f_bin(Op::FMUL_R, Op::FMUL_I, a, b, &[])?)
            }
            (_, Opcode::FmulLegacy) => {
                let i = MInst::fmul(R, R, R).mn(ModKind::Fmz, "FMZ");
                one(self.one(i, &[Res(0, 0), Arg(0, 0), Arg(1, 0)], &args)?)
            }
            (_, Opcode::Ffma) => one(self.ffma(args[0], args[1], args[2], false, false)?),
            (_, Opcode::Fmad | Opcode::FmadLegacy) => {
                let fmz = if op == Opcode::Fmad { "FTZ" } else { "FMZ" };
                let m = self.one(
                    MInst::fmul(R, R, R).mn(ModKind::Fmz, fmz),
                    &[Res(0, 0), Arg(0, 0), Arg(1, 0)],
                    &args[..2],
                )?;
                one(self.f_bin(Op::FADD_R, Op::FADD_I, m, args[2], &[])?)
            }
            (_, Opcode::Fmin | Opcode::Fmax) => {
                let p = if op == Opcode::Fmin {
                    Pred::TRUE
                } else {
                    Pred::FALSE
                };
                let i = MInst::build(
                    Op::FMNMX_R,
                    &[
                        Operand::Reg(R),
                        Operand::Reg(R),
                        Operand::Reg(R),
                        Operand::Pred(p),
                    ],
                )
                .m(ModKind::Ftz, 1);
                one(self.one(i, &[Res(0, 0), Arg(0, 0), Arg(1, 0)], &args)?)
            }
            (_, Opcode::Fneg) => one(self.lop32i("XOR", args[0], 0x8000_0000)?),
            (_, Opcode::Fabs) => one(self.lop32i("AND", args[0], 0x7fff_ffff)?),
            (_, Opcode::Fdiv) => {
                // For |b| > 2^126 the reciprocal is subnormal and flushes: divide a/4 by b/4
                // there (exact for such b; a/4 only loses what the quotient flushes anyway).
                let big = self.one_ty(
                    MInst::build(
                        Op::FSETP_I,
                        &[
                            Operand::Pred(Pred::p(0)),
                            Operand::Pred(Pred::TRUE),
                            Operand::Reg(R),
                            Operand::F32(0x7e80_0000),
                            Operand::Pred(Pred::TRUE),
                        ],
                    )
                    .mn(ModKind::FCmp, "GT")
                    .m(ModKind::Ftz, 1)
                    .m(ModKind::Abs(2), 1),
                    &[Res(0, 0), Slot::Keep, Arg(0, 0)],
                    &args[1..2],
                    Type::Pred,
                )?;
                let quarter = self.const32(0x3e80_0000)?;
                let unit = self.const32(0x3f80_0000)?;
                let k = self.one(
                    MInst::sel(R, R, R, Pred::TRUE),
                    &[Res(0, 0), Arg(0, 0), Arg(1, 0), Arg(2, 0)],
                    &[quarter, unit, big],
                )?;
                let a = self.f_bin(Op::FMUL_R, Op::FMUL_I, args[0], k, &[])?;
                let b = self.f_bin(Op::FMUL_R, Op::FMUL_I, args[1], k, &[])?;
                // q = a * rcp(b): MUFU.RCP is within 1 ulp, the product within 2 (the IR's
                // bound for `fdiv`, PTX's for div.approx; AMD IL states none and its hardware
                // divides the same way). A Newton step would cost four more instructions.
                let r = self.mufu("RCP", b)?;
                one(self.f_bin(Op::FMUL_R, Op::FMUL_I, a, r, &[])?)
            }
            (_, Opcode::Frcp) => one(self.mufu("RCP", args[0])?),
            (_, Opcode::Frsq) => one(self.mufu("RSQ", args[0])?),
            (_, Opcode::Fsqrt) => {
                let r = self.mufu("RSQ", args[0])?;
                one(self.mufu("RCP", r)?)
            }
            (_, Opcode::Flog2) => one(self.mufu("LG2", args[0])?),
            (_, Opcode::Fexp2) => {
                let r = self.one(
                    MInst::build(Op::RRO_R, &[Operand::Reg(R), Operand::Reg(R)])
                        .mn(ModKind::Mode, "EX2"),
                    &[Res(0, 0), Arg(0, 0)],
                    &args,
                )?;
                one(self.mufu("EX2", r)?)
            }
            (_, Opcode::Fsin | Opcode::Fcos) => {
                // RRO.SINCOS takes the angle in radians (as ptxas emits `__sinf`), then MUFU.
                let r = self.one(
                    MInst::build(Op::RRO_R, &[Operand::Reg(R), Operand::Reg(R)])
                        .mn(ModKind::Mode, "SINCOS"),
                    &[Res(0, 0), Arg(0, 0)],
                    &args,
                )?;
                one(self.mufu(if op == Opcode::Fsin { "SIN" } else { "COS" }, r)?)
            }
            (_, Opcode::Ffloor | Opcode::Fceil | Opcode::Ftrunc | Opcode::FroundEven) => {
                let rnd = match op {
                    Opcode::Ffloor => "FLOOR",
                    Opcode::Fceil => "CEIL",
                    Opcode::Ftrunc => "TRUNC",
                    _ => "ROUND",
                };
                one(self.f2f("F32", "F32", rnd, args[0], Type::B32)?)
            }
            (_, Opcode::Ffract) => {
                let f = self.f2f("F32", "F32", "FLOOR", args[0], Type::B32)?;
                let t = self.one(
                    MInst::fadd(R, R, R)
                        .m(ModKind::Ftz, 1)
                        .m(ModKind::Neg(2), 1),
                    &[Res(0, 0), Arg(0, 0), Arg(1, 0)],
                    &[args[0], f],
                )?;
                let c = self.const32(0x3f7f_ffff)?;
                let m = self.one(
                    MInst::build(
                        Op::FMNMX_R,
                        &[
                            Operand::Reg(R),
                            Operand::Reg(R),
                            Operand::Reg(R),
                            Operand::Pred(Pred::TRUE),
                        ],
                    )
                    .m(ModKind::Ftz, 1),
                    &[Res(0, 0), Arg(0, 0), Arg(1, 0)],
                    &[t, c],
                )?;
                let nan = self.one_ty(
                    MInst::build(
                        Op::FSETP_R,
                        &[
                            Operand::Pred(Pred::p(0)),
                            Operand::Pred(Pred::TRUE),
                            Operand::Reg(R),
                            Operand::Reg(R),
                            Operand::Pred(Pred::TRUE),
                        ],
                    )
                    .mn(ModKind::FCmp, "NAN"),
                    &[Res(0, 0), Slot::Keep, Arg(0, 0), Arg(1, 0)],
                    &[t, t],
                    Type::Pred,
                )?;
                one(self.one(
                    MInst::sel(R, R, R, Pred::TRUE),
                    &[Res(0, 0), Arg(0, 0), Arg(1, 0), Arg(2, 0)],
                    &[t, m, nan],
                )?)
            }
            (_, Opcode::Fsat) => {
                let i = MInst::fadd(R, R, R).m(ModKind::Ftz, 1).m(ModKind::Sat, 1);
                one(self.one(i, &[Res(0, 0), Arg(0, 0), Slot::Keep], &args)?)
            }
            (_, Opcode::Dadd | Opcode::Dsub | Opcode::Dmul) => {
                let (rform, cform) = match op {
                    Opcode::Dmul => (Op::DMUL_R, Op::DMUL_C),
                    _ => (Op::DADD_R, Op::DADD_C),
                };
                // A constant-buffer pair or a constant as the c[] operand (second; the
                // commutative ops take it from either side).
                let (a, b) = if op != Opcode::Dsub
                    && !self.const_like64(args[1])
                    && self.const_like64(args[0])
                {
                    (args[1], args[0])
                } else {
                    (args[0], args[1])
                };
                let (mut i, slots, dargs) = match self.const_operand64(b) {
                    Some(cb) => (
                        MInst::build(cform, &[Operand::Reg(R), Operand::Reg(R), cb]),
                        vec![Res(0, 0), Arg(0, 0)],
                        vec![a],
                    ),
                    None => (
                        MInst::build(rform, &[Operand::Reg(R), Operand::Reg(R), Operand::Reg(R)]),
                        vec![Res(0, 0), Arg(0, 0), Arg(1, 0)],
                        vec![a, b],
                    ),
                };
                if op == Opcode::Dsub {
                    i.set(ModKind::Neg(2), 1);
                }
                one(self.one_ty(i, &slots, &dargs, Type::B64)?)
            }
            (_, Opcode::Dfma) => {
                let (a, b, c) = if !self.const_like64(args[1]) && self.const_like64(args[0]) {
                    (args[1], args[0], args[2])
                } else {
                    (args[0], args[1], args[2])
                };
                let (i, slots, dargs) = if let Some(cb) = self.const_operand64(b) {
                    (
                        MInst::build(
                            Op::DFMA_C,
                            &[Operand::Reg(R), Operand::Reg(R), cb, Operand::Reg(R)],
                        ),
                        vec![Res(0, 0), Arg(0, 0), Slot::Keep, Arg(1, 0)],
                        vec![a, c],
                    )
                } else if let Some(cb) = self.const_operand64(c) {
                    (
                        MInst::build(
                            Op::DFMA_RC,
                            &[Operand::Reg(R), Operand::Reg(R), Operand::Reg(R), cb],
                        ),
                        vec![Res(0, 0), Arg(0, 0), Arg(1, 0), Slot::Keep],
                        vec![a, b],
                    )
                } else {
                    (
                        MInst::build(
                            Op::DFMA_R,
                            &[
                                Operand::Reg(R),
                                Operand::Reg(R),
                                Operand::Reg(R),
                                Operand::Reg(R),
                            ],
                        ),
                        vec![Res(0, 0), Arg(0, 0), Arg(1, 0), Arg(2, 0)],
                        vec![a, b, c],
                    )
                };
                one(self.one_ty(i, &slots, &dargs, Type::B64)?)
            }
            (_, Opcode::Ddiv) => one(self.ddiv(args[0], args[1])?),
            (_, Opcode::Drcp) => {
                let one_v = self.const64(0x3ff0_0000_0000_0000)?;
                one(self.ddiv(one_v, args[0])?)
            }
            (_, Opcode::Dsqrt) => one(self.dsqrt(args[0])?),
            (_, Opcode::Drsq) => {
                // The reference evaluates `1 / sqrt(x)` with two roundings: so does this.
                let s = self.dsqrt(args[0])?;
                let one_v = self.const64(0x3ff0_0000_0000_0000)?;
                one(self.ddiv(one_v, s)?)
            }
            (_, Opcode::Dmin | Opcode::Dmax) => {
                let p = if op == Opcode::Dmin {
                    Pred::TRUE
                } else {
                    Pred::FALSE
                };
                let i = MInst::build(
                    Op::DMNMX_R,
                    &[
                        Operand::Reg(R),
                        Operand::Reg(R),
                        Operand::Reg(R),
                        Operand::Pred(p),
                    ],
                );
                one(self.one_ty(i, &[Res(0, 0), Arg(0, 0), Arg(1, 0)], &args, Type::B64)?)
            }
            (_, Opcode::Dneg | Opcode::Dabs) => {
                let (name, k) = if op == Opcode::Dneg {
                    ("XOR", 0x8000_0000)
                } else {
                    ("AND", 0x7fff_ffff)
                };
                let t = Template::many(&[
                    TInst::new(MInst::mov(R, R), &[Res(0, 0), Arg(0, 0)]),
                    TInst::new(MInst::lop32i(name, R, R, k), &[Res(0, 1), Arg(0, 1)]),
                ]);
                Ok(self.emit(t, &args, &[Type::B64])?)
            }
            (_, Opcode::Dfloor | Opcode::Dceil | Opcode::Dtrunc | Opcode::DroundEven) => {
                let rnd = match op {
                    Opcode::Dfloor => "FLOOR",
                    Opcode::Dceil => "CEIL",
                    Opcode::Dtrunc => "TRUNC",
                    _ => "ROUND",
                };
                one(self.f2f("F64", "F64", rnd, args[0], Type::B64)?)
            }
            (_, Opcode::F2i | Opcode::F2u | Opcode::D2i | Opcode::D2u) => {
                let dty = if matches!(op, Opcode::F2i | Opcode::D2i) {
                    "S32"
                } else {
                    "U32"
                };
                let sty = if matches!(op, Opcode::F2i | Opcode::F2u) {
                    "F32"
                } else {
                    "F64"
                };
                let mut i = MInst::build(Op::F2I_R, &[Operand::Reg(R), Operand::Reg(R)])
                    .mn(ModKind::DType, dty)
                    .mn(ModKind::SType, sty)
                    .mn(ModKind::Rnd, "TRUNC");
                if sty == "F32" {
                    i.set(ModKind::Ftz, 1);
                }
                one(self.one(i, &[Res(0, 0), Arg(0, 0)], &args)?)
            }
            (_, Opcode::I2f | Opcode::U2f | Opcode::I2d | Opcode::U2d) => {
                let sty = if matches!(op, Opcode::I2f | Opcode::I2d) {
                    "S32"
                } else {
                    "U32"
                };
                let (dty, ty) = if matches!(op, Opcode::I2f | Opcode::U2f) {
                    ("F32", Type::B32)
                } else {
                    ("F64", Type::B64)
                };
                let i = MInst::build(Op::I2F_R, &[Operand::Reg(R), Operand::Reg(R)])
                    .mn(ModKind::DType, dty)
                    .mn(ModKind::SType, sty);
                one(self.one_ty(i, &[Res(0, 0), Arg(0, 0)], &args, ty)?)
            }
            (_, Opcode::F2d) => one(self.f2f("F64", "F32", "", args[0], Type::B64)?),
            (_, Opcode::D2f) => one(self.f2f("F32", "F64", "", args[0], Type::B32)?),
            (_, Opcode::F16to32) => one(self.f2f("F32", "F16", "", args[0], Type::B32)?),
            (_, Opcode::F32to16) => one(self.f2f("F16", "F32", "", args[0], Type::B32)?),
            (_, Opcode::Concat) => {
                if let Some(&(hi, pair)) = self.fused_pairs.get(&args[0]) {
                    if hi == args[1] {
                        return one(pair);
                    }
                }
                // Two consecutive constant-buffer words: read them straight into the pair.
                if let (Some(a), Some(b)) = (self.cb_operand(args[0]), self.cb_operand(args[1])) {
                    if b == a + 4 {
                        let t = Template::many(&[
                            TInst::new(MInst::mov(R, cb0(a)), &[Res(0, 0)]),
                            TInst::new(MInst::mov(R, cb0(b)), &[Res(0, 1)]),
                        ]);
                        return self.emit(t, &[], &[Type::B64]);
                    }
                }
                let t = Template::many(&[
                    TInst::new(MInst::mov(R, R), &[Res(0, 0), Arg(0, 0)]),
                    TInst::new(MInst::mov(R, R), &[Res(0, 1), Arg(1, 0)]),
                ]);
                Ok(self.emit(t, &args, &[Type::B64])?)
            }
            (_, Opcode::Lo | Opcode::Hi) => {
                let part = (op == Opcode::Hi) as u8;
                one(self.one(MInst::mov(R, R), &[Res(0, 0), Arg(0, part)], &args)?)
            }
            (InstructionData::Special { reg, .. }, Opcode::Special) => one(self.special(*reg)?),
            (_, Opcode::QuadShuffle) => {
                // SHFL.IDX with segment mask 0x1c and clamp 3 (c = 0x1c03): lane
                // `(laneid & !3) | (b & 3)`, i.e. within the aligned quad of the warp. Work-item
                // flat ids map to lanes in order, so warp quads are the IR's quads.
                const QUAD: i64 = 0x1c03;
                let (op, lane, slots) = match self.konst(args[1]) {
                    Some(k) => (
                        Op::SHFL_II,
                        Operand::Imm((k & 3) as i64),
                        [Slot::Keep, Res(0, 0), Arg(0, 0), Slot::Keep, Slot::Keep],
                    ),
                    None => (
                        Op::SHFL_RI,
                        Operand::Reg(R),
                        [Slot::Keep, Res(0, 0), Arg(0, 0), Arg(1, 0), Slot::Keep],
                    ),
                };
                let inst = MInst::build(
                    op,
                    &[
                        Operand::Pred(Pred::TRUE),
                        Operand::Reg(R),
                        Operand::Reg(R),
                        lane,
                        Operand::Imm(QUAD),
                    ],
                )
                .mn(ModKind::ShflOp, "IDX");
                one(self.one(inst, &slots, &args)?)
            }
            (InstructionData::Texture { tex, .. }, Opcode::Tex) => {
                self.select_tex(inst, tex, &args)
            }
            (
                _,
                Opcode::Load
                | Opcode::Store
                | Opcode::Atomic
                | Opcode::AtomicNoret
                | Opcode::Barrier,
            ) => self.select_mem(inst, &data),
            _ => Err(self.unsupported(inst, op.mnemonic())),
        }
    }

    fn f2f(
        &mut self,
        dty: &str,
        sty: &str,
        rnd: &str,
        a: Value,
        ty: Type,
    ) -> Result<Value, IselError> {
        let mut i = MInst::build(Op::F2F_R, &[Operand::Reg(R), Operand::Reg(R)])
            .mn(ModKind::DType, dty)
            .mn(ModKind::SType, sty)
            .mn(ModKind::Rnd, rnd);
        if sty == "F32" || dty == "F32" {
            i.set(ModKind::Ftz, 1);
        }
        self.one_ty(i, &[Res(0, 0), Arg(0, 0)], &[a], ty)
    }

    /// BFE/BFI control word `(offset & 31) | (width & 31) << 8`.
    fn bf_control(&mut self, width: Value, offset: Value) -> Result<Value, IselError> {
        if let (Some(w), Some(o)) = (self.konst(width), self.konst(offset)) {
            return self.const32(((o & 31) | (w & 31) << 8) as u32);
        }
        let w = self.lop32i("AND", width, 31)?;
        let o = self.lop32i("AND", offset, 31)?;
        let inst = MInst::build(
            Op::BFI_I,
            &[
                Operand::Reg(R),
                Operand::Reg(R),
                Operand::Imm(0x808),
                Operand::Reg(R),
            ],
        );
        self.one(
            inst,
            &[Res(0, 0), Arg(0, 0), Slot::Keep, Arg(1, 0)],
            &[w, o],
        )
    }

    /// 32-bit multiply as XMADs.
    pub(crate) fn imul32(&mut self, a: Value, b: Value) -> Result<Value, IselError> {
        self.imul(a, b)
    }

    fn imul(&mut self, a: Value, b: Value) -> Result<Value, IselError> {
        let (a, b) = match (self.konst(a), self.konst(b)) {
            (Some(_), None) => (b, a),
            _ => (a, b),
        };
        if let Some(c) = self.konst(b) {
            let c = c as u32;
            if c.is_power_of_two() {
                // a * 2^k = a << k: one instruction instead of two XMADs.
                if c == 1 {
                    return Ok(a);
                }
                return self.sh_imm(true, false, a, c.trailing_zeros());
            }
            if c < 0x1_0000 {
                // a * c = a.lo * c + (a.hi * c << 16).
                let lo = self.one(
                    MInst::xmad(R, R, Operand::Imm(c as i64), R),
                    &[Res(0, 0), Arg(0, 0)],
                    &[a],
                )?;
                let hi = MInst::xmad(R, R, Operand::Imm(c as i64), R)
                    .m(ModKind::H1(1), 1)
                    .m(ModKind::Psl, 1);
                return self.one(hi, &[Res(0, 0), Arg(0, 0), Slot::Keep, Arg(1, 0)], &[a, lo]);
            }
        }
        let t0 = self.one(
            MInst::xmad(R, R, R, R),
            &[Res(0, 0), Arg(0, 0), Arg(1, 0)],
            &[a, b],
        )?;
        let t1 = self.one(
            MInst::xmad(R, R, R, R)
                .m(ModKind::Mrg, 1)
                .m(ModKind::H1(2), 1),
            &[Res(0, 0), Arg(0, 0), Arg(1, 0)],
            &[a, b],
        )?;
        let d = MInst::xmad(R, R, R, R)
            .m(ModKind::Psl, 1)
            .mn(ModKind::XMode, "CBCC")
            .m(ModKind::H1(1), 1)
            .m(ModKind::H1(2), 1);
        self.one(
            d,
            &[Res(0, 0), Arg(0, 0), Arg(1, 0), Arg(2, 0)],
            &[a, t1, t0],
        )
    }

    fn icmp64(&mut self, cc: IntCC, a: Value, b: Value) -> Result<Value, IselError> {
        let lo = |s: &mut Self, v| s.one(MInst::mov(R, R), &[Res(0, 0), Arg(0, 0)], &[v]);
        let hi = |s: &mut Self, v| s.one(MInst::mov(R, R), &[Res(0, 0), Arg(0, 1)], &[v]);
        let (al, bl, ah, bh) = (lo(self, a)?, lo(self, b)?, hi(self, a)?, hi(self, b)?);
        match cc {
            IntCC::Eq => {
                let p = self.isetp("EQ", false, false, al, bl, "AND", None)?;
                self.isetp("EQ", false, false, ah, bh, "AND", Some(p))
            }
            IntCC::Ne => {
                let p = self.isetp("NE", false, false, al, bl, "AND", None)?;
                self.isetp("NE", false, false, ah, bh, "OR", Some(p))
            }
            _ => {
                let (cmp, signed) = icc(cc);
                // Strict part of the order on the high words, the full order on the low words.
                let strict = match cmp {
                    "LE" => "LT",
                    "GE" => "GT",
                    c => c,
                };
                let l = self.isetp(cmp, false, false, al, bl, "AND", None)?;
                let e = self.isetp("EQ", false, false, ah, bh, "AND", Some(l))?;
                self.isetp(strict, signed, false, ah, bh, "OR", Some(e))
            }
        }
    }

    fn special(&mut self, reg: IrSreg) -> Result<Value, IselError> {
        let sr = match reg {
            IrSreg::Tid(i) if i < 3 => SpecialReg(SpecialReg::TID_X.0 + i),
            IrSreg::GroupId(i) if i < 3 => SpecialReg(SpecialReg::CTAID_X.0 + i),
            IrSreg::LaneId => SpecialReg::LANEID,
            IrSreg::Clock => SpecialReg::CLOCKLO,
            IrSreg::GroupSize(i) if i < 3 => {
                if let Some(gs) = self.layout.block_size {
                    return self.const32(gs[i as usize]);
                }
                return self.one(MInst::mov(R, cb0(0x8 + 4 * i as u32)), &[Res(0, 0)], &[]);
            }
            IrSreg::GridSize(i) if i < 3 => {
                return self.one(MInst::mov(R, cb0(0x14 + 4 * i as u32)), &[Res(0, 0)], &[]);
            }
            IrSreg::Domain(i) if i < 2 => {
                let Some(off) = self.layout.cbank_offset(ParamKind::Domain) else {
                    return self.const32(0);
                };
                let at = off + 4 * u32::from(i);
                return self.one(MInst::mov(R, cb0(at)), &[Res(0, 0)], &[]);
            }
            IrSreg::ResDim(id, i) if i < 3 => {
                let Some(off) = self.layout.cbank_offset(ParamKind::ResDims(id)) else {
                    return self.const32(0);
                };
                let at = off + 4 * u32::from(i);
                return self.one(MInst::mov(R, cb0(at)), &[Res(0, 0)], &[]);
            }
            _ => return self.const32(0),
        };
        self.one(MInst::s2r(R, sr), &[Res(0, 0)], &[])
    }
}

/// Whether f32 `bits` fit the 20-bit float immediate (low 12 bits zero, not a denormal).
fn short_f32(bits: u32) -> bool {
    bits & 0xfff == 0 && !is_denormal(bits)
}

fn is_denormal(bits: u32) -> bool {
    bits & 0x7f80_0000 == 0 && bits & 0x007f_ffff != 0
}

/// ISETP condition name and signedness.
pub fn icc(cc: IntCC) -> (&'static str, bool) {
    match cc {
        IntCC::Eq => ("EQ", true),
        IntCC::Ne => ("NE", true),
        IntCC::Slt => ("LT", true),
        IntCC::Sle => ("LE", true),
        IntCC::Sgt => ("GT", true),
        IntCC::Sge => ("GE", true),
        IntCC::Ult => ("LT", false),
        IntCC::Ule => ("LE", false),
        IntCC::Ugt => ("GT", false),
        IntCC::Uge => ("GE", false),
    }
}

/// FSETP/DSETP condition name.
pub fn fcc(cc: FloatCC) -> &'static str {
    match cc {
        FloatCC::Oeq => "EQ",
        FloatCC::One => "NE",
        FloatCC::Olt => "LT",
        FloatCC::Ole => "LE",
        FloatCC::Ogt => "GT",
        FloatCC::Oge => "GE",
        FloatCC::Ueq => "EQU",
        FloatCC::Une => "NEU",
        FloatCC::Ult => "LTU",
        FloatCC::Ule => "LEU",
        FloatCC::Ugt => "GTU",
        FloatCC::Uge => "GEU",
        FloatCC::Ord => "NUM",
        FloatCC::Uno => "NAN",
    }
}
