//! Instruction selection for memory: loads, stores, atomics and barriers.
//!
//! - UAVs and `g[]`: the 64-bit address is `LEA.CC lo, addr, c[ptr]` + `LEA.HI.X hi, addr,
//!   c[ptr+4], RZ` (one template: the carry chain must not be split), the constant offset
//!   folds into `[Ra + ImmS24]`, and the access is `LDG.E` / `STG.E` (`.64`/`.128` when the IR
//!   access is wide and aligned). UAVs the kernel never writes load through `LDG.E.CI`.
//!   Unless `assume_in_bounds` (or the IR marks the access `inbounds`), every access is
//!   guarded by `addr + offset <u size` (the size parameter): a guarded load first zeroes its
//!   results, a guarded store is dropped. Wide accesses are checked per word (split) so
//!   partially out-of-range vectors behave as the IR says, except in windows whose size is
//!   a multiple of the access (LDS, private arrays, constant buffers), where one check of an
//!   aligned vector is the checks of all its words.
//! - LDS: `LDS`/`STS`/`ATOMS` at `[addr + base + offset]`, checked against the LDS size.
//! - constant buffers: direct reads are `MOV d, c[0x0][imm]` (out of range: 0), indexed reads
//!   `LDC` guarded by the buffer size.
//! - private arrays: `LDL`/`STL` in the local frame, checked against the array size.
//! - barriers: `MEMBAR.GL` for UAV/GDS fences, `MEMBAR.CTA` for LDS-only fences, `BAR.SYNC 0`.
//!
//! Atomic `rsub` has no Maxwell instruction and is reported unsupported.

use ilc_passes::ir::{AtomicOp, Inst, InstructionData, MemArg, MemSize, MemSpace, Type, Value};
use ilc_passes::{FastHashMap as HashMap, FastHashSet as HashSet};
use isa_spa5::inst::{mem, Operand};
use isa_spa5::mods::{AtomOp as AOp, AtomType as AType, Cache, ICmp, Scope, Size};
use isa_spa5::{Inst as MInst, ModKind, Op, PredReg, Reg};
use smallvec::{smallvec, SmallVec};

use super::{family, Family, Isel, IselError};
use crate::spa5::abi::{slot_index, ParamKind};
use crate::spa5::target::{cb0, Group, SetMod, Slot, TInst, Template, R, RB};
use isa_spa5::cubin::PARAM_BASE;

use Slot::{Arg, Res};

/// A flat memory window: its load and store opcodes, base offset and size in bytes.
struct FlatWindow {
    ops: (Op, Op),
    base: u32,
    size: u32,
}

type Vals = SmallVec<[Value; 4]>;

fn size_name(size: MemSize, words: usize) -> Size {
    match size {
        MemSize::U8 => Size::U8,
        MemSize::S8 => Size::S8,
        MemSize::U16 => Size::U16,
        MemSize::S16 => Size::S16,
        MemSize::Words(_) => match words {
            2 => Size::B64,
            4 => Size::B128,
            _ => Size::B32,
        },
    }
}

/// Where an access goes after address computation.
enum Place {
    /// 64-bit global address (lo, hi values) plus constant offset.
    Global {
        lo: Value,
        hi: Value,
        off: i32,
        ro: bool,
    },
    /// Shared/local memory: 32-bit address register (None = RZ) plus constant offset.
    Flat {
        op_ld: Op,
        op_st: Op,
        addr: Option<Value>,
        off: i32,
    },
    /// Constant buffer: absolute c[0x0] offset and optional index.
    Const { addr: Option<Value>, off: i32 },
}

impl Isel<'_> {
    pub(crate) fn select_mem(
        &mut self,
        inst: Inst,
        data: &InstructionData,
    ) -> Result<Vals, IselError> {
        match data {
            InstructionData::Barrier { flags, .. } => {
                let mut seq = Vec::new();
                if flags.memory || flags.gds {
                    seq.push(TInst::new(MInst::membar(Scope::Gl), &[]));
                } else if flags.lds && !flags.threads {
                    seq.push(TInst::new(MInst::membar(Scope::Cta), &[]));
                }
                if flags.threads {
                    seq.push(TInst::new(MInst::bar_sync(0), &[]));
                }
                if !seq.is_empty() {
                    let t = Template {
                        side_effects: true,
                        ..Template::many(&seq)
                    };
                    self.emit(t, &[], &[])?;
                }
                Ok(SmallVec::new())
            }
            InstructionData::Load { mem, .. } => {
                let addr = data.mem_addr();
                let words = self.func.dfg.inst_results(inst).len();
                self.load(inst, *mem, addr, words)
            }
            InstructionData::Store { mem, .. } => {
                let addr = data.mem_addr();
                let vals: Vals = data.mem_data().into();
                self.store(inst, *mem, addr, &vals)?;
                Ok(SmallVec::new())
            }
            InstructionData::Atomic { op, mem, .. } => {
                let addr = data.mem_addr();
                let vals: Vals = data.mem_data().into();
                let ret = data.opcode() == ilc_passes::ir::Opcode::Atomic;
                self.atomic(inst, *op, *mem, addr, &vals, ret)
            }
            _ => Err(self.unsupported(inst, "memory form")),
        }
    }

    /// The in-range predicate of a `bytes`-byte access at `addr + off`, with `addr` a 32-bit
    /// unsigned value and `off` a signed constant: `0 <= addr + off` and `addr + off + bytes <=
    /// limit` in exact (unbounded) arithmetic, so no wrap-around admits an access (the rule of
    /// the IR, `doc/ir.md`). `limit` is a constant or a c[0x0] word (a buffer size); `align` is
    /// a known alignment of `addr` itself (1 when unknown).
    fn bounds(
        &mut self,
        addr: Option<Value>,
        off: i64,
        bytes: u32,
        align: u32,
        limit: Operand,
    ) -> Result<Option<Value>, IselError> {
        // A constant limit and a known alignment `A` of `addr`: `addr + last < l` is `addr <
        // roundup(l - last, A)`, the same compare for every word of an aligned vector (each
        // dword of a 16-byte aligned `cb[i]` inside a buffer of whole vec4s).
        if let Operand::Imm(l) = limit {
            // An address range inside the window needs no check at all.
            let block = self.cur_block();
            let (lo, hi) = match addr {
                Some(a) => self.ranges.range(self.func, a, block),
                None => (0, 0),
            };
            let (lo, hi) = (lo as i64 + off, hi as i64 + off);
            if lo >= 0 && hi + i64::from(bytes.max(1)) <= l {
                return Ok(None);
            }
        }
        if let (Operand::Imm(l), true) = (limit, off >= 0) {
            let last = off + i64::from(bytes.max(1)) - 1;
            let a = i64::from(align.max(1));
            let bound = ((l - last).max(0) + a - 1) / a * a;
            let block = self.cur_block();
            let key = block.map(|b| (b, addr, 0, bound, -1));
            if let Some(&p) = key.as_ref().and_then(|k| self.bounds_memo.get(k)) {
                return Ok(Some(p));
            }
            let a = match addr {
                Some(a) => a,
                None => self.const32(0)?,
            };
            let p = self.isetp_u32(ICmp::Lt, a, Operand::Imm(bound), None)?;
            if let Some(k) = key {
                self.bounds_memo.insert(k, p);
            }
            return Ok(Some(p));
        }
        // The limit as a key: an immediate size, or a constant-bank offset (tagged).
        let limit_key = match limit {
            Operand::Imm(v) => Some(v),
            Operand::CBuf { bank, offset } => {
                Some((1i64 << 40) | (i64::from(bank) << 32) | i64::from(offset as u32))
            }
            _ => None,
        };
        let block = self.cur_block();
        let shape = (i64::from(bytes) << 32) | i64::from(align);
        let key = match (block, limit_key) {
            (Some(b), Some(l)) => Some((b, addr, off, l, shape)),
            _ => None,
        };
        if let Some(&p) = key.as_ref().and_then(|k| self.bounds_memo.get(k)) {
            return Ok(Some(p));
        }
        let p = self.bounds_uncached(addr, off, bytes, align, limit)?;
        if let Some(k) = key {
            self.bounds_memo.insert(k, p);
        }
        Ok(Some(p))
    }

    /// `ISETP.cmp.U32.AND p, PT, a, b, and` (b an immediate that fits, else a register).
    fn isetp_u32(
        &mut self,
        cmp: ICmp,
        a: Value,
        b: Operand,
        and: Option<Value>,
    ) -> Result<Value, IselError> {
        let mut args: SmallVec<[Value; 4]> = smallvec![a];
        let mut slots: SmallVec<[Slot; 8]> = smallvec![Res(0, 0), Slot::Keep, Arg(0, 0)];
        let b = match b {
            Operand::Imm(v) if (0..1 << 19).contains(&v) => {
                slots.push(Slot::Keep);
                b
            }
            Operand::Imm(v) => {
                args.push(self.const32(v as u32)?);
                slots.push(Arg(1, 0));
                R
            }
            other => {
                slots.push(Slot::Keep);
                other
            }
        };
        if let Some(p) = and {
            slots.push(Arg(args.len() as u8, 0));
            args.push(p);
        }
        let i = MInst::isetp(cmp, PredReg(0), R, b).m(ModKind::Signed, 0);
        Ok(self.emit(Template::one(TInst::new(i, &slots)), &args, &[Type::Pred])?[0])
    }

    fn bounds_uncached(
        &mut self,
        addr: Option<Value>,
        off: i64,
        bytes: u32,
        align: u32,
        limit: Operand,
    ) -> Result<Value, IselError> {
        // A constant address `off`: its last byte `off + bytes - 1` is below the limit.
        if addr.is_none() && off >= 0 {
            let last = off + i64::from(bytes.max(1)) - 1;
            if let Ok(last) = u32::try_from(last) {
                let u = self.const32(last)?;
                return self.isetp_u32(ICmp::Lt, u, limit, None);
            }
        }
        let a = match addr {
            Some(a) => a,
            None => self.const32(0)?,
        };
        // The last byte is at `a + last`.
        let last = off + i64::from(bytes.max(1)) - 1;
        let a_align = i64::from(align.max(1));
        // Negative offsets: the first byte must not lie below the buffer (`a >= -off`).
        let mut p = if off < 0 {
            Some(self.isetp_u32(ICmp::Ge, a, Operand::Imm(-off), None)?)
        } else {
            None
        };
        // An aligned access of a power-of-two size `b` at `a` itself: `a + b <= size` is
        // `a < (size & !(b - 1))` (both sides are multiples of `b`, and `a + b` cannot wrap),
        // one compare against a masked size that the block's other such accesses share.
        if let Operand::CBuf { offset, .. } = limit {
            if off == 0 && bytes > 1 && bytes.is_power_of_two() && align >= bytes {
                if let Some(s) = self.masked_limit(limit, offset as u32, bytes)? {
                    let i = MInst::isetp(ICmp::Lt, PredReg(0), R, R).m(ModKind::Signed, 0);
                    let slots = [Res(0, 0), Slot::Keep, Arg(0, 0), Arg(1, 0)];
                    let t = Template::one(TInst::new(i, &slots));
                    return Ok(self.emit(t, &[a, s], &[Type::Pred])?[0]);
                }
            }
        }
        if let Operand::Imm(l) = limit {
            // A constant limit: `a + last < l` is `a < l - last` (no addition that could wrap).
            let bound = (l - last).max(0);
            return self.isetp_u32(ICmp::Lt, a, Operand::Imm(bound), p);
        }
        // A run-time limit: `u = a + last` (32-bit); it wrapped iff `u < last`, impossible
        // when `last < a_align` (an aligned `a` is at most 2^32 - a_align) or when `a`'s
        // range ends at least `last` below 2^32.
        let block = self.cur_block();
        let no_wrap = last < a_align
            || self.ranges.range(self.func, a, block).1 + last as u64 <= u64::from(u32::MAX);
        let memo = block.and_then(|b| self.last_byte_memo.get(&(b, a, last)).copied());
        let u = match (last, memo) {
            (0, _) => a,
            (_, Some(u)) => u,
            _ => {
                // `a = x << k` used by this access alone: `(x << k) + last` in one ISCADD
                // from `x`. Where the LEA takes the shift in its scale the SHL dies; where it
                // cannot, the check at least no longer waits for the SHL. (Where `a` has
                // other uses, ISCADD only moved the schedule around: poly_gemm's cycles
                // went 0.73 -> 1.16 with no instruction saved.)
                let u = match self.shifted_index(a) {
                    Some((x, k)) if last < 1 << 19 && self.use_count[a] == 1 => self.one(
                        MInst::iscadd(R, R, Operand::Imm(last), k),
                        &[Res(0, 0), Arg(0, 0)],
                        &[x],
                    )?,
                    _ => self.one(
                        MInst::iadd32i(R, R, last as i32),
                        &[Res(0, 0), Arg(0, 0)],
                        &[a],
                    )?,
                };
                if let Some(b) = block {
                    self.last_byte_memo.insert((b, a, last), u);
                }
                u
            }
        };
        if !no_wrap {
            p = Some(self.isetp_u32(ICmp::Ge, u, Operand::Imm(last), p)?);
        }
        self.isetp_u32(ICmp::Lt, u, limit, p)
    }

    /// `size & !(bytes - 1)` for the size parameter at `c[0x0][offset]`, once per block, when
    /// the block has enough aligned accesses to that buffer to pay for it (else None: each
    /// access adds `bytes - 1` itself).
    fn masked_limit(
        &mut self,
        limit: Operand,
        offset: u32,
        bytes: u32,
    ) -> Result<Option<Value>, IselError> {
        /// Accesses a block needs before one `LOP` (and a mask constant) beats an `IADD32I`
        /// per access.
        const WORTH: u32 = 3;
        let Some(block) = self.cur_block() else {
            return Ok(None);
        };
        if let Some(&v) = self.limit_memo.get(&(block, offset, bytes)) {
            return Ok(Some(v));
        }
        if self
            .aligned_accesses
            .get(&(block, offset))
            .copied()
            .unwrap_or(0)
            < WORTH
        {
            return Ok(None);
        }
        let mask = self.const32(!(bytes - 1))?;
        let v = self.one(
            MInst::lop(isa_spa5::mods::Lop::And, R, R, limit),
            &[Slot::Keep, Res(0, 0), Arg(0, 0)],
            &[mask],
        )?;
        self.limit_memo.insert((block, offset, bytes), v);
        Ok(Some(v))
    }

    /// `(x, c)` when `v` is `iadd x, c` (either order) with a constant `c` in +-2^23 (the
    /// reach of a memory instruction's signed 24-bit offset; each fold also checks that the
    /// offset it forms fits its instruction).
    fn const_added(&self, v: Value) -> Option<(Value, i64)> {
        Self::const_added_in(self.func, v)
    }

    fn const_added_in(func: &ilc_passes::ir::Function, v: Value) -> Option<(Value, i64)> {
        let inst = func.dfg.value_inst(v)?;
        if func.dfg.opcode(inst) != ilc_passes::ir::Opcode::Iadd
            || func.dfg.value_type(v) != Type::B32
        {
            return None;
        }
        let args = func.dfg.inst_args(inst);
        let (x, c) = match (func.dfg.value_const(args[0]), func.dfg.value_const(args[1])) {
            (None, Some(c)) => (args[0], c),
            (Some(c), None) => (args[1], c),
            _ => return None,
        };
        let c = i64::from(c as u32 as i32);
        (c.abs() < 1 << 23).then_some((x, c))
    }

    /// `(x, k)` when `v` is `ishl x, k` with a constant `k` in 1..=31.
    pub(super) fn shifted_index(&self, v: Value) -> Option<(Value, u8)> {
        let inst = self.func.dfg.value_inst(v)?;
        if self.func.dfg.opcode(inst) != ilc_passes::ir::Opcode::Ishl {
            return None;
        }
        let args = self.func.dfg.inst_args(inst);
        let k = self.func.dfg.value_const(args[1])? & 31;
        (k != 0).then_some((args[0], k as u8))
    }

    /// The 32-bit byte address `a` (plus the access's offset `off`) as `(x, off', shift,
    /// sign)`: the 64-bit address is `ptr + (ext(x) << shift) + off'`, with `ext` the sign
    /// extension by the word `sign` when it is given and the zero extension otherwise. This
    /// lets neighbouring elements share one address (`x + c` puts `c` into the instruction's
    /// immediate offset) and `index << k` use the LEA's scale.
    ///
    /// The IR's address is `a` computed modulo 2^32, so no fold may change the address of an
    /// access that happens (one in bounds: checked, or promised by `assume_in_bounds`). Every
    /// buffer is at most [`MAX_BUFFER_BYTES`] = 2^31 - 2^23 bytes (the launch ABI), so such an
    /// address is below that:
    /// - `x + c` with the zero extension is exact when `x + c` cannot wrap (the [`Ranges`] bound of `x`
    ///   plus `c` fits in 32 bits, or `c < 0`: a wrapped `x + c` is at least 2^32 - 2^23, in
    ///   no buffer); otherwise the sign extension of `x` is exact (`sx(x) + c` is congruent to
    ///   the address modulo 2^32 and lies in (-2^31 - 2^23, 2^31 + 2^23), so it equals any
    ///   address below 2^31 - 2^23).
    /// - `i << k` uses the scale only when `i < 2^(32-k)` is proven and the result is
    ///   zero-extended, so the shift cannot lose bits.
    ///
    /// [`Ranges`]: ilc_passes::value_bound::Ranges
    /// [`MAX_BUFFER_BYTES`]: crate::spa5::abi::MAX_BUFFER_BYTES
    fn fold_address(
        &mut self,
        a: Value,
        off: i64,
    ) -> Result<(Value, i64, u8, Option<Value>), IselError> {
        const U32: u64 = u32::MAX as u64;
        let in24 = |o: i64| (-(1 << 23)..(1 << 23)).contains(&o);
        let (x, off, c) = match self.const_added(a) {
            Some((x, c)) if in24(off + c) => (x, off + c, c),
            _ => (a, off, 0),
        };
        let block = self.cur_block();
        let max_u32 = |s: &Self, v: Value| s.ranges.range(s.func, v, block).1;
        let zext_ok = zext_exact(self.func, &self.ranges, &self.promised_bases, x, c, block);
        // At `c = 0` both extensions are exact (the sign extension below the buffer limit): share
        // the address that neighbours at `x + c` form.
        let share = c == 0 && block.is_some_and(|b| self.signed_bases.contains(&(b, x)));
        if !zext_ok || share {
            let s = self.sign_word(x)?;
            return Ok((x, off, 0, Some(s)));
        }
        if let Some((i, k)) = self.shifted_index(x) {
            let room = U32 >> k;
            if max_u32(self, i) <= room && (max_u32(self, i) << k) + c.max(0) as u64 <= U32 {
                return Ok((i, off, k, None));
            }
        }
        Ok((x, off, 0, None))
    }

    /// A constant-bank read at `a + off` (the bank offset `off`) as `[x + off']`: `a = x + c`
    /// puts `c` into the `LDC`'s signed 16-bit offset, so neighbouring elements of an unrolled
    /// body share `x`. The hardware adds register and offset without wrapping, so the fold
    /// must not change an address the IR computes modulo 2^32 and that is read (in range: a
    /// checked read is predicated off otherwise). With `c < 0`, a wrapped `x + c` is at least
    /// 2^32 - 2^23, in no bank; with `c > 0`, `x` is below 2^31 by [`promised_bases`] (an
    /// in-range access at `x` in the block) or its range bound plus `c` fits in 32 bits.
    fn fold_const_address(&self, a: Option<Value>, off: i64) -> (Option<Value>, i64) {
        let in16 = |o: i64| (-(1 << 15)..(1 << 15)).contains(&o);
        let block = self.cur_block();
        match a.and_then(|a| self.const_added(a)) {
            Some((x, c))
                if in16(off + c)
                    && zext_exact(self.func, &self.ranges, &self.promised_bases, x, c, block) =>
            {
                (Some(x), off + c)
            }
            _ => (a, off),
        }
    }

    /// `x >> 31` (arithmetic): the high word of `x` sign-extended, one per block and value.
    fn sign_word(&mut self, x: Value) -> Result<Value, IselError> {
        let block = self
            .cur_block()
            .expect("isel runs on instructions in the layout"); // invariant of run()
        if let Some(&s) = self.sign_memo.get(&(block, x)) {
            return Ok(s);
        }
        let s = self.sh_imm(false, true, x, 31)?;
        self.sign_memo.insert((block, x), s);
        Ok(s)
    }

    /// Address computation and bounds predicate for one access of `bytes` at word `k`.
    fn place(
        &mut self,
        inst: Inst,
        m: MemArg,
        addr: Option<Value>,
        extra: i64,
        bytes: u32,
    ) -> Result<(Place, Option<Value>), IselError> {
        let off = i64::from(m.offset) + extra;
        let check = !(self.opts.assume_in_bounds || m.inbounds);
        // `addr` is aligned as the effective address is, up to the offset's own alignment,
        // and as its definition shows (`i << 4` for `cb[i].y`).
        let a_align = match m.offset {
            0 => m.align,
            o => m.align.min(1 << o.trailing_zeros()),
        }
        .max(addr.map_or(1, |a| ilc_passes::mem_combine::known_align(self.func, a, 6)));
        match m.space {
            MemSpace::Uav(_)
            | MemSpace::Global
            | MemSpace::Srv(_)
            | MemSpace::Output(_)
            | MemSpace::Counter(_) => {
                let (pk, sk) = match m.space {
                    MemSpace::Uav(id) => (ParamKind::UavPtr(id), Some(ParamKind::UavSize(id))),
                    MemSpace::Srv(id) => (ParamKind::SrvPtr(id), Some(ParamKind::SrvSize(id))),
                    MemSpace::Output(id) => (ParamKind::OutPtr(id), Some(ParamKind::OutSize(id))),
                    // A counter is one word: every access is in bounds.
                    MemSpace::Counter(id) => (ParamKind::CounterPtr(id), None),
                    _ => (ParamKind::GlobalPtr, Some(ParamKind::GlobalSize)),
                };
                // Some(None): no size parameter (counters); None: an undeclared resource.
                let size = match sk {
                    Some(k) => self.layout.cbank_offset(k).map(Some),
                    None => Some(None),
                };
                let (Some(p), Some(s)) = (self.layout.cbank_offset(pk), size) else {
                    return Err(self.unsupported(inst, "access to an undeclared UAV"));
                };
                let pred = match s {
                    Some(s) if check => self.bounds(addr, off, bytes, a_align, cb0(s))?,
                    _ => None,
                };
                let a = match addr {
                    Some(a) => a,
                    None => self.const32(0)?,
                };
                // An offset beyond the instruction's signed 24-bit immediate goes into the
                // 32-bit byte address instead (the bounds predicate above already saw it).
                let (a, off) = if (-(1 << 23)..(1 << 23)).contains(&off) {
                    (a, off)
                } else {
                    let k = self.const32(off as u32)?;
                    (self.bin(Op::IADD_R, a, k, &super::legalize::no_mods)?, 0)
                };
                // The bounds predicate above is on the IR's address; the place may fold (only
                // while the offset stays in the 24-bit field, so the offset below fits it).
                let (a, off, shift, sign) = self.fold_address(a, off)?;
                let block = self
                    .cur_block()
                    .expect("isel runs on instructions in the layout"); // invariant of run()
                let key = (block, a, p, shift, sign);
                let r = if let Some(&(lo, hi)) = self.lea_memo.get(&key) {
                    [lo, hi]
                } else {
                    let lo = MInst::lea(R, R, cb0(p), shift).m(ModKind::Cc, 1);
                    let (hi, args) = match sign {
                        // `{sign(a), a}`: the sign-extended offset.
                        Some(s) => (
                            TInst::new(
                                MInst::lea_hi(R, R, cb0(p + 4), R, shift).m(ModKind::X, 1),
                                &[Slot::Keep, Res(1, 0), Arg(0, 0), Slot::Keep, Arg(1, 0)],
                            ),
                            vec![a, s],
                        ),
                        None => (
                            TInst::new(
                                MInst::lea_hi(R, R, cb0(p + 4), Reg::RZ, shift).m(ModKind::X, 1),
                                &[Slot::Keep, Res(1, 0), Arg(0, 0)],
                            ),
                            vec![a],
                        ),
                    };
                    let mut t =
                        Template::many(&[TInst::new(lo, &[Slot::Keep, Res(0, 0), Arg(0, 0)]), hi]);
                    t.result_groups.push(Group {
                        start: 0,
                        len: 2,
                        align: 2,
                    });
                    let v = self.emit(t, &args, &[Type::B32, Type::B32])?;
                    self.lea_memo.insert(key, (v[0], v[1]));
                    [v[0], v[1]]
                };
                let ro = matches!(m.space, MemSpace::Srv(_))
                    || matches!(m.space, MemSpace::Uav(id) if !self.written_uavs[usize::from(id)]);
                Ok((
                    Place::Global {
                        lo: r[0],
                        hi: r[1],
                        off: off as i32,
                        ro,
                    },
                    pred,
                ))
            }
            MemSpace::Lds(id) => {
                let Some(&(base, size)) = self.layout.lds.get(&id) else {
                    return Err(self.unsupported(inst, "access to an undeclared LDS"));
                };
                let window = FlatWindow {
                    ops: (Op::LDS, Op::STS),
                    base,
                    size,
                };
                self.flat_place(window, addr, off, bytes, a_align, check)
            }
            MemSpace::Private(ss) => {
                let base = self
                    .layout
                    .stack_slots
                    .get(&slot_index(ss))
                    .copied()
                    .unwrap_or(0);
                let window = FlatWindow {
                    ops: (Op::LDL, Op::STL),
                    base,
                    size: self.func.stack_slots[ss].size,
                };
                self.flat_place(window, addr, off, bytes, a_align, check)
            }
            MemSpace::Cb(id) => {
                let Some(p) = self.layout.param(ParamKind::CbData(id)).copied() else {
                    return Err(self.unsupported(inst, "read of an undeclared constant buffer"));
                };
                let start = i64::from(PARAM_BASE + p.offset);
                // Indexed reads are checked (out of range reads 0) unless proven in range.
                let pred = match addr {
                    Some(_) if !m.inbounds => {
                        self.bounds(addr, off, bytes, a_align, Operand::Imm(i64::from(p.size)))?
                    }
                    _ => None,
                };
                let (addr, off) = self.fold_const_address(addr, start + off);
                Ok((
                    Place::Const {
                        addr,
                        off: off as i32,
                    },
                    pred,
                ))
            }
        }
    }

    /// The place of an access to a flat window (LDS or the local frame) of `size` bytes at
    /// `base`, guarded when `check`.
    fn flat_place(
        &mut self,
        w: FlatWindow,
        addr: Option<Value>,
        off: i64,
        bytes: u32,
        a_align: u32,
        check: bool,
    ) -> Result<(Place, Option<Value>), IselError> {
        let pred = if check {
            self.bounds(addr, off, bytes, a_align, Operand::Imm(i64::from(w.size)))?
        } else {
            None
        };
        // `[x + c]` for an address `x + c` that provably does not wrap (its range is known):
        // the window's address arithmetic is exact, so neighbours share `x` and take their
        // constants in the instruction's offset. The check above already saw `x + c`.
        // A constant address (a fully unrolled loop's `i << 4`) is all offset: `[RZ + k]`.
        let at_const = addr
            .and_then(|a| self.func.dfg.value_const(a))
            .map(|k| i64::from(w.base) + off + i64::from(k as u32));
        if let Some(total) = at_const.filter(|t| (-(1 << 23)..(1 << 23)).contains(t)) {
            let place = Place::Flat {
                op_ld: w.ops.0,
                op_st: w.ops.1,
                addr: None,
                off: total as i32,
            };
            return Ok((place, pred));
        }
        let (addr, off) = match addr.and_then(|a| Some((a, self.const_added(a)?))) {
            Some((a, (x, c))) => {
                let block = self.cur_block();
                let (_, hi) = self.ranges.range(self.func, a, block);
                let total = i64::from(w.base) + off + c;
                if hi < u64::from(u32::MAX) && (-(1 << 23)..(1 << 23)).contains(&total) {
                    (Some(x), off + c)
                } else {
                    (Some(a), off)
                }
            }
            None => (addr, off),
        };
        let place = Place::Flat {
            op_ld: w.ops.0,
            op_st: w.ops.1,
            addr,
            off: (i64::from(w.base) + off) as i32,
        };
        Ok((place, pred))
    }

    fn load(
        &mut self,
        inst: Inst,
        m: MemArg,
        addr: Option<Value>,
        words: usize,
    ) -> Result<Vals, IselError> {
        let wide = matches!(m.size, MemSize::Words(n) if n > 1);
        let aligned = |n: u32| m.align >= n && m.offset.rem_euclid(n as i32) == 0;
        let unchecked = self.opts.assume_in_bounds || m.inbounds;
        let whole = |n: u32| unchecked || self.checks_whole(m, n);
        let chunk = if !wide {
            1
        } else if words == 4 && aligned(16) && whole(16) {
            4
        } else if words >= 2 && aligned(8) && words.is_multiple_of(2) && whole(8) {
            2
        } else {
            1
        };
        if chunk == 2 && words == 2 && self.pair_consumer(inst).is_some() {
            let r = self.func.dfg.inst_results(inst);
            let (lo, hi) = (r[0], r[1]);
            let pair = self.load_one(inst, m, addr, 0, MemSize::Words(2), true)?[0];
            self.fused_pairs.insert(lo, (hi, pair));
            // The words' only use is the concat, which becomes `pair` itself.
            return Ok([pair, pair].into_iter().collect());
        }
        if chunk == 1
            && words == 2
            && wide
            && !matches!(m.space, MemSpace::Cb(_))
            && self.pair_consumer(inst).is_some()
        {
            // Bounds-checked words of one double: each word its own guarded load, both into
            // the double's register pair (no concat copies).
            let r = self.func.dfg.inst_results(inst);
            let (lo, hi) = (r[0], r[1]);
            let pair = self.load_split_pair(inst, m, addr)?;
            self.fused_pairs.insert(lo, (hi, pair));
            return Ok([pair, pair].into_iter().collect());
        }
        let mut out = Vals::new();
        for (k, _, size) in word_chunks(words, chunk, wide, m.size) {
            out.extend(self.load_one(inst, m, addr, (k * 4) as i64, size, false)?);
        }
        Ok(out)
    }

    /// Whether the one-word checked load `inst` is read only by stores to the same place
    /// (same space, address, offset, size and alignment, checked too, in the same block),
    /// directly or through arithmetic: those stores are guarded by the load's own bounds
    /// predicate (one per block and access), so where the load is skipped nothing that reads
    /// its result runs, and its register need not be zeroed first. Cross-lane operations,
    /// memory, control flow and uses in other blocks make the value visible.
    fn seen_only_under_own_check(&self, inst: Inst, m: MemArg, addr: Option<Value>) -> bool {
        use ilc_passes::ir::Opcode as O;
        if m.inbounds || self.opts.assume_in_bounds || !matches!(m.size, MemSize::Words(1)) {
            return false;
        }
        let dfg = &self.func.dfg;
        let mut tainted: SmallVec<[Value; 8]> = dfg.inst_results(inst).iter().copied().collect();
        let mut seen: SmallVec<[u32; 8]> = smallvec![0; tainted.len()];
        let mut stores = 0;
        let all_seen = |tainted: &[Value], seen: &[u32]| {
            tainted
                .iter()
                .zip(seen)
                .all(|(&v, &n)| self.use_count[v] == n)
        };
        let mut at = self.func.layout.next_inst(inst);
        // Up to the last use: the rest of the block cannot read the value.
        while let Some(i) = at.filter(|_| !all_seen(&tainted, &seen)) {
            at = self.func.layout.next_inst(i);
            let data = &dfg.insts[i];
            let mut hit = false;
            for v in data.all_values() {
                if let Some(k) = tainted.iter().position(|&t| t == v) {
                    seen[k] += 1;
                    hit = true;
                }
            }
            if !hit {
                continue;
            }
            match data.opcode() {
                O::Store => {
                    let same = data.mem_arg() == Some(&m) && data.mem_addr() == addr;
                    let addr_clean = data.mem_addr().is_none_or(|a| !tainted.contains(&a));
                    if !same || !addr_clean {
                        return false;
                    }
                    stores += 1;
                }
                O::QuadShuffle | O::VoteAll | O::Special => return false,
                op if matches!(
                    family(op),
                    Family::Move
                        | Family::Int
                        | Family::Float
                        | Family::F64
                        | Family::Conv
                        | Family::Control
                ) =>
                {
                    for &r in dfg.inst_results(i) {
                        tainted.push(r);
                        seen.push(0);
                    }
                }
                _ => return false,
            }
            if tainted.len() > 64 {
                return false;
            }
        }
        // Every use of every tainted value was seen in this block.
        stores > 0 && all_seen(&tainted, &seen)
    }

    /// Whether one bounds check of a `bytes`-byte access (aligned to `bytes`) says what the
    /// checks of its words say. In a window whose size is a multiple of `bytes` (constant
    /// buffers are whole vec4s; LDS and private arrays as declared) an aligned access lies
    /// wholly inside or wholly outside, so its words are all in range or all out. A UAV's size
    /// is a launch value, any number of bytes: a vector across its end is checked per word.
    fn checks_whole(&self, m: MemArg, bytes: u32) -> bool {
        let size = match m.space {
            MemSpace::Cb(_) => return true,
            MemSpace::Lds(id) => self.layout.lds.get(&id).map(|&(_, size)| size),
            MemSpace::Private(ss) => Some(self.func.stack_slots[ss].size),
            _ => None,
        };
        size.is_some_and(|s| s.is_multiple_of(bytes))
    }

    /// The two words of `inst` (at `+0` and `+4`) loaded by separate guarded 32-bit loads into
    /// one `b64` result: `MOV`s zero both registers (AMD IL's out-of-range reads), then each
    /// load writes its half when its word is in range.
    fn load_split_pair(
        &mut self,
        inst: Inst,
        m: MemArg,
        addr: Option<Value>,
    ) -> Result<Value, IselError> {
        let mut args: Vec<Value> = Vec::new();
        let mut seq: Vec<TInst> = vec![
            TInst::new(MInst::mov(R, Reg::RZ), &[Res(0, 0)]),
            TInst::new(MInst::mov(R, Reg::RZ), &[Res(0, 1)]),
        ];
        let mut groups = Vec::new();
        let mut any_guarded = false;
        for (part, extra) in [(0u8, 0i64), (1, 4)] {
            let (place, pred) = self.place(inst, m, addr, extra, 4)?;
            let global = matches!(place, Place::Global { .. });
            let (mut ti, a) = load_tinst(place, size_name(MemSize::Words(1), 1))?;
            // This word's address arguments start at `base` (shared with the other word's
            // when they are the same values).
            let base = match args.windows(a.len().max(1)).position(|w| w == a.as_slice()) {
                Some(b) if !a.is_empty() => b as u8,
                _ => {
                    let b = args.len() as u8;
                    args.extend_from_slice(&a);
                    if global {
                        groups.push(Group {
                            start: b,
                            len: 2,
                            align: 2,
                        });
                    }
                    b
                }
            };
            for sl in ti.slots.iter_mut() {
                *sl = match *sl {
                    Res(0, 0) => Res(0, part),
                    Slot::MemArg(k) => Slot::MemArg(k + base),
                    Slot::CIdxArg(k) => Slot::CIdxArg(k + base),
                    other => other,
                };
            }
            if let Some(p) = pred {
                let g = args.len() as u8;
                args.push(p);
                ti = ti.guarded(g, false);
                any_guarded = true;
            }
            seq.push(ti);
        }
        if !any_guarded {
            // Unguarded words need no zeroing.
            seq.drain(..2);
        }
        let mut t = Template::many(&seq);
        t.arg_groups.extend(groups);
        Ok(self.emit(t, &args, &[Type::B64])?[0])
    }

    /// The `concat r0, r1` that is the only use of both results of two-word load `inst`.
    fn pair_consumer(&self, inst: Inst) -> Option<Inst> {
        let r = self.func.dfg.inst_results(inst);
        self.sole_join(inst, *r.first()?, *r.get(1)?)
    }

    /// `x` when `a`, `b` are `lo x`, `hi x`: a 64-bit store can read `x`'s register pair.
    fn split_pair(&self, a: Value, b: Value) -> Option<Value> {
        let part = |v: Value| match &self.func.dfg.insts[self.func.dfg.value_inst(v)?] {
            InstructionData::Unary { opcode, args } => Some((*opcode, args[0])),
            _ => None,
        };
        match (part(a)?, part(b)?) {
            ((ilc_passes::ir::Opcode::Lo, x), (ilc_passes::ir::Opcode::Hi, y)) if x == y => Some(x),
            _ => None,
        }
    }

    fn load_one(
        &mut self,
        inst: Inst,
        m: MemArg,
        addr: Option<Value>,
        extra: i64,
        size: MemSize,
        as_pair: bool,
    ) -> Result<Vals, IselError> {
        let n = match size {
            MemSize::Words(k) => k as usize,
            _ => 1,
        };
        // A direct constant-buffer read outside the declared buffer reads 0.
        if let (MemSpace::Cb(id), None) = (m.space, addr) {
            if as_pair {
                let p = self.layout.param(ParamKind::CbData(id)).copied();
                let off = i64::from(m.offset) + extra;
                let t = match p {
                    Some(p) if off >= 0 && off + 8 <= i64::from(p.size) => {
                        let at = PARAM_BASE + p.offset + off as u32;
                        Template::many(&[
                            TInst::new(MInst::mov(R, cb0(at)), &[Res(0, 0)]),
                            TInst::new(MInst::mov(R, cb0(at + 4)), &[Res(0, 1)]),
                        ])
                    }
                    _ => {
                        let words = self.load_one(inst, m, addr, extra, size, false)?;
                        let t = Template::many(&[
                            TInst::new(MInst::mov(R, R), &[Res(0, 0), Arg(0, 0)]),
                            TInst::new(MInst::mov(R, R), &[Res(0, 1), Arg(1, 0)]),
                        ]);
                        return self.emit(t, &words, &[Type::B64]);
                    }
                };
                return self.emit(t, &[], &[Type::B64]);
            }
            let p = self.layout.param(ParamKind::CbData(id)).copied();
            let off = i64::from(m.offset) + extra;
            let mut out = Vals::new();
            for w in 0..n as i64 {
                let o = off + 4 * w;
                let v = match p {
                    Some(p) if o >= 0 && o + 4 <= i64::from(p.size) && size.bytes() >= 4 => self
                        .one(
                            MInst::mov(R, cb0(PARAM_BASE + p.offset + o as u32)),
                            &[Res(0, 0)],
                            &[],
                        )?,
                    Some(p) if o >= 0 && o + i64::from(size.bytes()) <= i64::from(p.size) => {
                        let wv = self.one(
                            MInst::mov(R, cb0(PARAM_BASE + p.offset + (o as u32 & !3))),
                            &[Res(0, 0)],
                            &[],
                        )?;
                        let bits = size.bytes() * 8;
                        let ctl = ((o as u32 & 3) * 8) | (bits << 8);
                        let signed = size.is_signed() as u8;
                        let i = MInst::build(Op::BFE_I, &[R, R, Operand::Imm(i64::from(ctl))])
                            .m(ModKind::Signed, signed);
                        self.one(i, &[Res(0, 0), Arg(0, 0)], &[wv])?
                    }
                    _ => self.const32(0)?,
                };
                out.push(v);
            }
            return Ok(out);
        }
        let (place, pred) = self.place(inst, m, addr, extra, size.bytes())?;
        let sname = size_name(size, n);
        let (ti, args) = load_tinst(place, sname)?;
        let mut args = args;
        // As one b64 value (its register pair) or n b32 values in an aligned group.
        let results: SmallVec<[Type; 4]> = if as_pair {
            smallvec![Type::B64]
        } else {
            smallvec![Type::B32; n]
        };
        let res_slot = |k: u8| if as_pair { Res(0, k) } else { Res(k, 0) };
        let mut t = match pred {
            Some(p) => {
                let g = args.len() as u8;
                args.push(p);
                // The zeros an out-of-range read returns matter only where the value can be
                // seen: not when it only feeds stores that the same check drops.
                let zero = as_pair || n != 1 || !self.seen_only_under_own_check(inst, m, addr);
                let mut seq: Vec<TInst> = (0..n as u8)
                    .filter(|_| zero)
                    .map(|k| TInst::new(MInst::mov(R, Reg::RZ), &[res_slot(k)]))
                    .collect();
                seq.push(ti.guarded(g, false));
                Template::many(&seq)
            }
            None => Template::one(ti),
        };
        if n > 1 && !as_pair {
            t.result_groups.push(Group {
                start: 0,
                len: n as u8,
                align: n as u8,
            });
        }
        if args.len() >= 2
            && matches!(
                m.space,
                MemSpace::Uav(_)
                    | MemSpace::Global
                    | MemSpace::Srv(_)
                    | MemSpace::Output(_)
                    | MemSpace::Counter(_)
            )
        {
            t.arg_groups.push(Group {
                start: 0,
                len: 2,
                align: 2,
            });
        }
        self.emit(t, &args, &results)
    }

    fn store(
        &mut self,
        inst: Inst,
        m: MemArg,
        addr: Option<Value>,
        vals: &[Value],
    ) -> Result<(), IselError> {
        let words = vals.len();
        let wide = matches!(m.size, MemSize::Words(n) if n > 1);
        let aligned = |n: u32| m.align >= n && m.offset.rem_euclid(n as i32) == 0;
        // Two doubles (the halves of two b64 values) store as two 64-bit accesses reading
        // their register pairs: a 128-bit one would need the pairs adjacent (copies).
        let two_doubles = words == 4
            && self.split_pair(vals[0], vals[1]).is_some()
            && self.split_pair(vals[2], vals[3]).is_some();
        let unchecked = self.opts.assume_in_bounds || m.inbounds;
        let whole = |n: u32| unchecked || self.checks_whole(m, n);
        let chunk = if !wide {
            1
        } else if words == 4 && aligned(16) && !two_doubles && whole(16) {
            4
        } else if words.is_multiple_of(2) && aligned(8) && whole(8) {
            2
        } else {
            1
        };
        for (k, n, size) in word_chunks(words, chunk, wide, m.size) {
            self.store_one(inst, m, addr, (k * 4) as i64, size, &vals[k..k + n])?;
        }
        Ok(())
    }

    fn store_one(
        &mut self,
        inst: Inst,
        m: MemArg,
        addr: Option<Value>,
        extra: i64,
        size: MemSize,
        vals: &[Value],
    ) -> Result<(), IselError> {
        let (place, pred) = self.place(inst, m, addr, extra, size.bytes())?;
        let n = vals.len();
        let sname = size_name(size, n);
        let mut args: Vec<Value> = Vec::new();
        let ti = match place {
            Place::Global { lo, hi, off, .. } => {
                args.extend([lo, hi]);
                TInst::new(MInst::stg(sname, RB, off, R), &[Slot::MemArg(0), Arg(2, 0)])
            }
            Place::Flat {
                op_st, addr, off, ..
            } => {
                let i = MInst::build(op_st, &[mem(RB, off), R]).t(sname)?;
                match addr {
                    Some(a) => {
                        args.push(a);
                        TInst::new(i, &[Slot::MemArg(0), Arg(1, 0)])
                    }
                    None => TInst::new(i, &[Slot::Keep, Arg(0, 0)]),
                }
            }
            Place::Const { .. } => return Err(self.unsupported(inst, "store to a constant buffer")),
        };
        let data_start = args.len() as u8;
        // Two words that are the halves of one b64 value: read its register pair.
        let pair = match vals {
            [a, b] => self.split_pair(*a, *b),
            _ => None,
        };
        match pair {
            Some(x) => args.push(x),
            None => args.extend_from_slice(vals),
        }
        let data = (n > 1 && pair.is_none()).then_some(n as u8);
        let t = side_effect_template(None, ti, &mut args, pred, data_start, data);
        self.emit(t, &args, &[])?;
        Ok(())
    }

    fn atomic(
        &mut self,
        inst: Inst,
        op: AtomicOp,
        m: MemArg,
        addr: Option<Value>,
        vals: &[Value],
        ret: bool,
    ) -> Result<Vals, IselError> {
        let (name, ty) = match op {
            AtomicOp::Add | AtomicOp::Sub => (AOp::Add, AType::U32),
            AtomicOp::Smin => (AOp::Min, AType::S32),
            AtomicOp::Smax => (AOp::Max, AType::S32),
            AtomicOp::Umin => (AOp::Min, AType::U32),
            AtomicOp::Umax => (AOp::Max, AType::U32),
            AtomicOp::And => (AOp::And, AType::U32),
            AtomicOp::Or => (AOp::Or, AType::U32),
            AtomicOp::Xor => (AOp::Xor, AType::U32),
            AtomicOp::Xchg => (AOp::Exch, AType::U32),
            AtomicOp::Inc => (AOp::Inc, AType::U32),
            AtomicOp::Dec => (AOp::Dec, AType::U32),
            // The CAS forms have no operation field.
            AtomicOp::CmpXchg => (AOp::Add, AType::U32),
            AtomicOp::Rsub => return Err(self.unsupported(inst, "atomic rsub")),
        };
        let mut data: Vec<Value> = vals.to_vec();
        if op == AtomicOp::Sub {
            let n = self.one(
                MInst::iadd(R, Reg::RZ, R).m(ModKind::Neg(2), 1),
                &[Res(0, 0), Slot::Keep, Arg(0, 0)],
                &[vals[0]],
            )?;
            data[0] = n;
        }
        let (place, pred) = self.place(inst, m, addr, 0, m.size.bytes())?;
        let cas = op == AtomicOp::CmpXchg;
        // Without a use of the old value the destination is RZ.
        let dst = if ret { R } else { Operand::Reg(Reg::RZ) };
        let mut args: Vec<Value> = Vec::new();
        let ti = match place {
            Place::Global { lo, hi, off, .. } => {
                args.extend([lo, hi]);
                let mut i = if cas {
                    MInst::build(Op::ATOM_CAS, &[dst, mem(RB, off), R])
                } else {
                    MInst::build(Op::ATOM, &[dst, mem(RB, off), R])
                        .t(name)?
                        .t(ty)?
                };
                i.set(ModKind::E, 1);
                TInst::new(
                    i,
                    &[
                        if ret { Res(0, 0) } else { Slot::Keep },
                        Slot::MemArg(0),
                        Arg(2, 0),
                    ],
                )
            }
            Place::Flat {
                op_ld: Op::LDS,
                addr,
                off,
                ..
            } => {
                let i = if cas {
                    MInst::build(Op::ATOMS_CAS, &[dst, mem(RB, off), R])
                } else {
                    MInst::build(Op::ATOMS, &[dst, mem(RB, off), R])
                        .t(name)?
                        .t(ty)?
                };
                let (mslot, d) = match addr {
                    Some(a) => {
                        args.push(a);
                        (Slot::MemArg(0), 1)
                    }
                    None => (Slot::Keep, 0),
                };
                TInst::new(
                    i,
                    &[if ret { Res(0, 0) } else { Slot::Keep }, mslot, Arg(d, 0)],
                )
            }
            _ => return Err(self.unsupported(inst, "atomic on this memory space")),
        };
        let data_start = args.len() as u8;
        let mut ti = ti;
        ti.slots[2] = Arg(data_start, 0);
        args.extend(data.iter().copied());
        // A returning atomic that the guard skips reads 0.
        let zero = ret.then(|| TInst::new(MInst::mov(R, Reg::RZ), &[Res(0, 0)]));
        let t = side_effect_template(zero, ti, &mut args, pred, data_start, cas.then_some(2));
        let results: Vec<Type> = if ret { vec![Type::B32] } else { vec![] };
        self.emit(t, &args, &results)
    }
}

/// The template of a store or atomic `ti` (after `first`, when given): guarded by `pred`
/// (appended to `args`), its 64-bit address pair grouped when the data starts at argument 2,
/// and `data` words from `data_start` grouped as one aligned register group.
/// An access of `words` words split into accesses of up to `chunk` words: (first word,
/// words, size of the access). A `wide` access's parts are `Words(n)`; otherwise every part
/// keeps the access's own `size` (one word each).
fn word_chunks(
    words: usize,
    chunk: usize,
    wide: bool,
    size: MemSize,
) -> impl Iterator<Item = (usize, usize, MemSize)> {
    (0..words).step_by(chunk.max(1)).map(move |k| {
        let n = chunk.min(words - k);
        (k, n, if wide { MemSize::Words(n as u8) } else { size })
    })
}

fn side_effect_template(
    first: Option<TInst>,
    ti: TInst,
    args: &mut Vec<Value>,
    pred: Option<Value>,
    data_start: u8,
    data: Option<u8>,
) -> Template {
    let mut t = Template {
        side_effects: true,
        ..Template::default()
    };
    t.seq.extend(first);
    let ti = match pred {
        Some(p) => {
            let g = args.len() as u8;
            args.push(p);
            ti.guarded(g, false)
        }
        None => ti,
    };
    t.seq.push(ti);
    if data_start == 2 {
        t.arg_groups.push(Group {
            start: 0,
            len: 2,
            align: 2,
        });
    }
    if let Some(n) = data {
        t.arg_groups.push(Group {
            start: data_start,
            len: n,
            align: n,
        });
    }
    t
}

/// The load instruction for `place` (its result is `Res(0, 0)`) and the arguments its
/// address slots read.
/// How many accesses of each block go to the buffer whose size parameter is at
/// `c[0x0][offset]` with a dword-aligned address and no constant offset (candidates for a
/// shared masked size), by (block, offset).
pub(crate) fn aligned_accesses(
    func: &ilc_passes::ir::Function,
    layout: &crate::spa5::abi::LaunchLayout,
) -> HashMap<(ilc_passes::ir::Block, u32), u32> {
    let mut counts = HashMap::default();
    for (block, _, m) in addressed_accesses(func) {
        let kind = match m.space {
            MemSpace::Uav(id) => ParamKind::UavSize(id),
            MemSpace::Srv(id) => ParamKind::SrvSize(id),
            MemSpace::Output(id) => ParamKind::OutSize(id),
            MemSpace::Global => ParamKind::GlobalSize,
            _ => continue,
        };
        if m.offset != 0 || m.align < 4 {
            continue;
        }
        if let Some(off) = layout.cbank_offset(kind) {
            *counts.entry((block, off)).or_default() += 1;
        }
    }
    counts
}

/// Every memory access with an address operand, in layout order: its block, address and
/// memory operand.
fn addressed_accesses(
    func: &ilc_passes::ir::Function,
) -> impl Iterator<Item = (ilc_passes::ir::Block, Value, MemArg)> + '_ {
    func.layout.blocks().flat_map(move |block| {
        func.layout.block_insts(block).filter_map(move |inst| {
            let data = &func.dfg.insts[inst];
            Some((block, data.mem_addr()?, *data.mem_arg()?))
        })
    })
}

/// The (block, x) pairs where an access to a UAV, SRV or `g[]` in the block addresses `x + c`
/// with `c > 0` and `x + c` possibly wrapping: those accesses sign-extend `x` (see
/// `fold_address`; `x + c` as `Isel::const_added_in` splits it, `c` within the 24-bit offset).
pub(crate) fn signed_bases(
    func: &ilc_passes::ir::Function,
    ranges: &ilc_passes::value_bound::Ranges,
    promised: &HashSet<(ilc_passes::ir::Block, Value)>,
) -> HashSet<(ilc_passes::ir::Block, Value)> {
    let in24 = |c: i64| (-(1 << 23)..(1 << 23)).contains(&c);
    let const_added = |v| Isel::const_added_in(func, v).filter(|&(_, c)| in24(c));
    let mut set = HashSet::default();
    for (block, addr, m) in addressed_accesses(func) {
        if !matches!(
            m.space,
            MemSpace::Uav(_) | MemSpace::Global | MemSpace::Srv(_) | MemSpace::Output(_)
        ) {
            continue;
        }
        if let Some((x, c)) = const_added(addr) {
            if !zext_exact(func, ranges, promised, x, c, Some(block)) {
                set.insert((block, x));
            }
        }
    }
    set
}

/// Whether `zext(x) + c` is the 64-bit offset of the 32-bit address `x + c` for every
/// address inside a buffer: `x + c` cannot wrap (`c <= 0`, or `x`'s range bound plus `c`
/// fits in 32 bits), or an unchecked access in the block addresses `x` itself (so `x` is
/// below 2^31, [`promised_bases`]). See `fold_address`.
fn zext_exact(
    func: &ilc_passes::ir::Function,
    ranges: &ilc_passes::value_bound::Ranges,
    promised: &HashSet<(ilc_passes::ir::Block, Value)>,
    x: Value,
    c: i64,
    block: Option<ilc_passes::ir::Block>,
) -> bool {
    c <= 0
        || block.is_some_and(|b| promised.contains(&(b, x)))
        || ranges.range(func, x, block).1 + c as u64 <= u64::from(u32::MAX)
}

/// The (block, address) pairs of unchecked buffer accesses: every access of the block runs
/// when the block does, and one that is promised in bounds (`assume_in_bounds`, or marked
/// `inbounds`) with an offset `o` of at most 2^23 in magnitude has its address `x = E - o`
/// below [`MAX_BUFFER_BYTES`] + 2^23 = 2^31 (`E` the effective address, inside a buffer).
/// So the zero extension of `x` is exact, and a neighbour's `x + c` with `c > 0` cannot
/// wrap (one that wraps for `c < 0` is at least 2^32 - 2^23: it would be out of range).
/// A constant-bank read marked `inbounds` is one too (a bank is far smaller than a buffer).
///
/// [`MAX_BUFFER_BYTES`]: crate::spa5::abi::MAX_BUFFER_BYTES
pub(crate) fn promised_bases(
    func: &ilc_passes::ir::Function,
    assume_in_bounds: bool,
) -> HashSet<(ilc_passes::ir::Block, Value)> {
    const _: () = assert!(crate::spa5::abi::MAX_BUFFER_BYTES + (1 << 23) <= 1 << 31);
    let mut set = HashSet::default();
    for (block, addr, m) in addressed_accesses(func) {
        // A constant-bank read is unchecked only when proven in range (`inbounds`), and a
        // bank holds at most 64 KiB.
        let promised = match m.space {
            MemSpace::Uav(_) | MemSpace::Global | MemSpace::Srv(_) => {
                assume_in_bounds || m.inbounds
            }
            MemSpace::Cb(_) => m.inbounds,
            _ => false,
        };
        if promised && (-(1 << 23)..=(1 << 23)).contains(&m.offset) {
            set.insert((block, addr));
        }
    }
    set
}

fn load_tinst(place: Place, sname: Size) -> Result<(TInst, SmallVec<[Value; 4]>), IselError> {
    Ok(match place {
        Place::Global { lo, hi, off, ro } => {
            let i = MInst::ldg(sname, R, RB, off).t(if ro { Cache::Ci } else { Cache::Default })?;
            (
                TInst::new(i, &[Res(0, 0), Slot::MemArg(0)]),
                smallvec![lo, hi],
            )
        }
        Place::Flat {
            op_ld, addr, off, ..
        } => {
            let i = MInst::build(op_ld, &[R, mem(RB, off)]).t(sname)?;
            match addr {
                Some(a) => (TInst::new(i, &[Res(0, 0), Slot::MemArg(0)]), smallvec![a]),
                None => (TInst::new(i, &[Res(0, 0)]), SmallVec::new()),
            }
        }
        Place::Const { addr, off } => {
            let i = MInst::build(
                Op::LDC,
                &[
                    R,
                    Operand::CIdx {
                        bank: 0,
                        base: RB,
                        offset: off,
                    },
                ],
            )
            .t(sname)?;
            match addr {
                Some(a) => (TInst::new(i, &[Res(0, 0), Slot::CIdxArg(0)]), smallvec![a]),
                None => (TInst::new(i, &[Res(0, 0)]), SmallVec::new()),
            }
        }
    })
}
