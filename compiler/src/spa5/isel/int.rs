//! Instruction selection of the integer family: add/sub (64-bit ones as carry chains),
//! logic, multiplies, shifts, bit fields, min/max, bit counts and compares.
//!
//! - 32-bit multiply is an XMAD sequence (two XMADs when one factor is a 16-bit constant,
//!   three otherwise; a power of two is a shift, `2^k + 1` one `ISCADD`); `a * 2^k + c` is
//!   one `ISCADD`, and so is `(x << k) + y` when the add is the shift's only reader.
//! - 64-bit add/sub/logic are CC-chained pairs inside one template; 64-bit compares combine
//!   `ISETP`s on the halves.
//! - 64-bit shifts go through the funnel shifter as ptxas does: by a run-time count `n`,
//!   `SHF.L.U64` (high word) plus `SHL` (low word, `n & 63`: `SHL`/`SHR` without `.W` clamp
//!   counts of 32 and more to 0, or to the sign), or `SHF.R.U64`/`.S64` (low word) plus
//!   `SHR`; by a constant, one 32-bit `SHF` or a word move plus one shift per word. `fshr`
//!   (`bitalign`) is one `SHF.R.W`.
//! - `umulhi` is built from the four 16x16 XMAD partial products with explicit carries;
//!   `imulhi` corrects it by the operands' signs.
//! - `udiv`/`urem`: an f32 reciprocal estimate scaled to 2^32, one integer Newton step,
//!   `q = umulhi(x, z)`, then two conditional corrections (exact for all 32-bit inputs, the
//!   well-known AMDGPU/NVIDIA expansion); division by zero is patched to all ones as the IR
//!   requires. Signed forms divide magnitudes and fix the signs (`MIN / -1 = MIN`).
//!
//! Requires and guarantees as [`super`]: results match `ilc_passes::eval` exactly.

use ilc_passes::ir::{InstructionData, IntCC, Opcode, Type, Value};
use isa_spa5::inst::Operand;
use isa_spa5::mods::{Bop, DType, ICmp, Lop, Mufu, Po, Rnd, SType, XMode};
use isa_spa5::{Inst as MInst, ModKind, Op, Pred, PredReg, Reg};
use smallvec::{smallvec, SmallVec};

use super::legalize::{no_mods, SrcForms, ANY};
use super::{one, Isel, IselError, Node, Vals};
use crate::spa5::target::{fits_i20, SetMod, Slot, TInst, Template, R};

use Slot::{Arg, Res};

type R32 = Result<Value, IselError>;

/// One 32-bit half of a 64-bit operand: register `part` of a pair, or a constant.
#[derive(Clone, Copy)]
enum Half {
    Reg(Value, u8),
    Const(u32),
}

impl Isel<'_> {
    /// Selects an integer-family instruction (see [`super::family`]).
    pub(super) fn select_int(&mut self, n: &Node) -> Result<Vals, IselError> {
        let (inst, data, op, args) = (n.inst, &n.data, n.op, &n.args);
        let rty = self
            .func
            .dfg
            .inst_results(inst)
            .first()
            .map(|v| self.func.dfg.value_type(*v));
        let is64 = rty == Some(Type::B64) || args.first().is_some_and(|a| self.ty(*a) == Type::B64);
        let unsupported64 = |s: &Self| Err(s.unsupported(inst, op.mnemonic()));
        match op {
            Opcode::Iadd | Opcode::Isub if is64 => {
                self.add64(op == Opcode::Isub, Some(args[0]), args[1])
            }
            Opcode::Iadd => one(self.iadd32(args[0], args[1])?),
            Opcode::Isub => one(self.isub32(args[0], args[1])?),
            Opcode::Ineg if is64 => self.add64(true, None, args[0]),
            Opcode::Ineg => {
                let i = MInst::iadd(R, Reg::RZ, R).m(ModKind::Neg(2), 1);
                one(self.one(i, &[Res(0, 0), Slot::Keep, Arg(0, 0)], args)?)
            }
            Opcode::Band | Opcode::Bor | Opcode::Bxor | Opcode::Bnot => self.logic(op, is64, args),
            Opcode::Imul if is64 => self.mul64(args[0], args[1]),
            Opcode::Imul => one(self.imul(args[0], args[1])?),
            Opcode::Umulhi => one(self.umulhi(args[0], args[1])?),
            Opcode::Imulhi => one(self.imulhi(args[0], args[1])?),
            Opcode::Udiv | Opcode::Urem | Opcode::Idiv | Opcode::Irem if is64 => {
                unsupported64(self)
            }
            Opcode::Udiv | Opcode::Urem => {
                let (q, r) = self.udivrem(args[0], args[1])?;
                one(if op == Opcode::Udiv { q } else { r })
            }
            Opcode::Idiv | Opcode::Irem => {
                let (q, r) = self.idivrem(args[0], args[1])?;
                one(if op == Opcode::Idiv { q } else { r })
            }
            Opcode::Imad if is64 => unsupported64(self),
            Opcode::Imad => one(self.imad(args[0], args[1], args[2])?),
            Opcode::Ishl | Opcode::Ushr | Opcode::Ishr if is64 => {
                self.shift64(op == Opcode::Ishl, op == Opcode::Ishr, args[0], args[1])
            }
            Opcode::Ishl | Opcode::Ushr | Opcode::Ishr => {
                one(self.shift32(op == Opcode::Ishl, op == Opcode::Ishr, args[0], args[1])?)
            }
            Opcode::Imin | Opcode::Imax | Opcode::Umin | Opcode::Umax if is64 => {
                let cc = match op {
                    Opcode::Imin => IntCC::Slt,
                    Opcode::Imax => IntCC::Sgt,
                    Opcode::Umin => IntCC::Ult,
                    _ => IntCC::Ugt,
                };
                let p = self.icmp64(cc, args[0], args[1])?;
                self.select_value(&[p, args[0], args[1]])
            }
            Opcode::Imin | Opcode::Imax | Opcode::Umin | Opcode::Umax => {
                one(self.minmax32(op, args[0], args[1])?)
            }
            Opcode::Iabs if is64 => unsupported64(self),
            Opcode::Iabs => {
                let n = self.one(
                    MInst::iadd(R, Reg::RZ, R).m(ModKind::Neg(2), 1),
                    &[Res(0, 0), Slot::Keep, Arg(0, 0)],
                    args,
                )?;
                let inst = MInst::build(Op::IMNMX_R, &[R, R, R, Operand::Pred(Pred::FALSE)]);
                one(self.one(inst, &[Res(0, 0), Arg(0, 0), Arg(1, 0)], &[args[0], n])?)
            }
            Opcode::Popcnt => one(self.one(
                MInst::build(Op::POPC_R, &[R, R]),
                &[Res(0, 0), Arg(0, 0)],
                args,
            )?),
            Opcode::FirstbitHi | Opcode::FirstbitShi | Opcode::Clz => one(self.flo(op, args[0])?),
            Opcode::Bitrev | Opcode::FirstbitLo => one(self.bit_reverse(op, args[0])?),
            Opcode::Ubfe | Opcode::Ibfe => one(self.bfe(op == Opcode::Ibfe, args)?),
            Opcode::Bfi => one(self.bfi(args)?),
            Opcode::Fshr => one(self.funnel_r(args[0], args[1], args[2])?),
            Opcode::Icmp => {
                let InstructionData::IntCompare { cond, .. } = data else {
                    return Err(self.unsupported(inst, "icmp form"));
                };
                if is64 {
                    return one(self.icmp64(*cond, args[0], args[1])?);
                }
                let (cmp, signed) = icc(*cond);
                one(self.isetp(cmp, signed, false, args[0], args[1], Bop::And, None)?)
            }
            _ => Err(self.unsupported(inst, op.mnemonic())),
        }
    }

    /// 32-bit `a - b`: a constant operand is IADD's immediate.
    fn isub32(&mut self, a: Value, b: Value) -> R32 {
        if let Some(c) = self.konst(b) {
            let n = (c as u32).wrapping_neg() as i32 as i64;
            if fits_i20(n) {
                return self.one(MInst::iadd(R, R, n), &[Res(0, 0), Arg(0, 0)], &[a]);
            }
        }
        // `k - x` as `-x + k`: the constant is IADD's immediate, no register holds it
        // (a loop-invariant one would stay live across the whole loop).
        if let Some(c) = self.konst(a) {
            let k = c as u32 as i32 as i64;
            if fits_i20(k) {
                let i = MInst::iadd(R, R, k).m(ModKind::Neg(1), 1);
                return self.one(i, &[Res(0, 0), Arg(0, 0)], &[b]);
            }
        }
        let i = MInst::iadd(R, R, R).m(ModKind::Neg(2), 1);
        self.one(i, &[Res(0, 0), Arg(0, 0), Arg(1, 0)], &[a, b])
    }

    /// `and`/`or`/`xor`/`not` on 32 or 64 bits (64-bit ones one LOP per half).
    fn logic(&mut self, op: Opcode, is64: bool, args: &[Value]) -> Result<Vals, IselError> {
        let name = match op {
            Opcode::Band => Lop::And,
            Opcode::Bor => Lop::Or,
            Opcode::Bxor => Lop::Xor,
            _ => Lop::PassB,
        };
        // A 32-bit constant operand is LOP32I's immediate (no register to hold it).
        if !is64 && op != Opcode::Bnot {
            let (x, k) = match (self.konst(args[0]), self.konst(args[1])) {
                (None, Some(k)) => (Some(args[0]), k),
                (Some(k), None) => (Some(args[1]), k),
                _ => (None, 0),
            };
            if let Some(x) = x {
                return Ok(smallvec![self.lop32i(name, x, k as u32)?]);
            }
            if let Some(v) = self.lop3_chain(op, args[0], args[1])? {
                return Ok(smallvec![v]);
            }
        }
        let parts = if is64 { 2 } else { 1 };
        let mut seq = Vec::new();
        for p in 0..parts {
            if op == Opcode::Bnot {
                let i = MInst::lop(name, R, Reg::RZ, R).f(ModKind::Inv(3), 1)?;
                seq.push(TInst::new(
                    i,
                    &[Slot::Keep, Res(0, p), Slot::Keep, Arg(0, p)],
                ));
            } else {
                seq.push(TInst::new(
                    MInst::lop(name, R, R, R),
                    &[Slot::Keep, Res(0, p), Arg(0, p), Arg(1, p)],
                ));
            }
        }
        let ty = if is64 { Type::B64 } else { Type::B32 };
        self.emit(Template::many(&seq), args, &[ty])
    }

    /// `(p op q) op y` for `op` one of `and`/`or`/`xor`, where the inner operation has no
    /// other reader and no operand is a constant (those take LOP32I): one `LOP3.LUT` of the
    /// three values (the inner LOP dies).
    fn lop3_chain(&mut self, op: Opcode, a: Value, b: Value) -> Result<Option<Value>, IselError> {
        let lut = match op {
            Opcode::Band => 0x80,
            Opcode::Bor => 0xfe,
            _ => 0x96,
        };
        for (s, y) in [(a, b), (b, a)] {
            if self.use_count[s] != 1 || self.konst(y).is_some() {
                continue;
            }
            let Some(i) = self.func.dfg.value_inst(s) else {
                continue;
            };
            let InstructionData::Binary {
                opcode,
                args: [p, q],
            } = self.func.dfg.insts[i]
            else {
                continue;
            };
            if opcode != op
                || self.ty(p) != Type::B32
                || self.konst(p).is_some()
                || self.konst(q).is_some()
            {
                continue;
            }
            let inst = MInst::lop3(R, R, R, R, lut);
            let slots = [
                Slot::Keep,
                Res(0, 0),
                Arg(0, 0),
                Arg(1, 0),
                Arg(2, 0),
                Slot::Keep,
            ];
            return Ok(Some(self.one(inst, &slots, &[p, q, y])?));
        }
        Ok(None)
    }

    /// 32-bit `imin`/`imax`/`umin`/`umax`: one IMNMX.
    fn minmax32(&mut self, op: Opcode, a: Value, b: Value) -> R32 {
        let signed = matches!(op, Opcode::Imin | Opcode::Imax) as u8;
        let min = matches!(op, Opcode::Imin | Opcode::Umin);
        let p = if min { Pred::TRUE } else { Pred::FALSE };
        // Commutative: a constant or parameter operand goes second, as its immediate
        // or c[] form.
        let (a, b) = self.canon(a, b);
        let forms = SrcForms::of(Op::IMNMX_R, 2);
        if let Some((op, ob)) = self.legal_src(&forms, b, ANY, &no_mods) {
            let inst = MInst::build(op, &[R, R, ob, Operand::Pred(p)]).m(ModKind::Signed, signed);
            return self.one(inst, &[Res(0, 0), Arg(0, 0)], &[a]);
        }
        let inst =
            MInst::build(Op::IMNMX_R, &[R, R, R, Operand::Pred(p)]).m(ModKind::Signed, signed);
        self.one(inst, &[Res(0, 0), Arg(0, 0), Arg(1, 0)], &[a, b])
    }

    /// `firstbit_hi`/`firstbit_shi` (FLO.SH) and `clz` (`31 - FLO`; FLO of 0 is -1, giving 32).
    fn flo(&mut self, op: Opcode, x: Value) -> R32 {
        let signed = (op == Opcode::FirstbitShi) as u8;
        let mut inst = MInst::build(Op::FLO_R, &[R, R]).m(ModKind::Signed, signed);
        if op != Opcode::Clz {
            inst.set(ModKind::Sh, 1);
            return self.one(inst, &[Res(0, 0), Arg(0, 0)], &[x]);
        }
        let f = self.one(inst, &[Res(0, 0), Arg(0, 0)], &[x])?;
        let sub = MInst::iadd(R, R, 31).m(ModKind::Neg(1), 1);
        self.one(sub, &[Res(0, 0), Arg(0, 0)], &[f])
    }

    /// `bitrev` (BFE.BREV over all 32 bits reverses them) and `firstbit_lo` (FLO.SH of the
    /// reversed bits).
    fn bit_reverse(&mut self, op: Opcode, x: Value) -> R32 {
        let rev = MInst::build(Op::BFE_I, &[R, R, Operand::Imm(0x2000)])
            .m(ModKind::Signed, 0)
            .m(ModKind::Brev, 1);
        let r = self.one(rev, &[Res(0, 0), Arg(0, 0)], &[x])?;
        if op == Opcode::Bitrev {
            return Ok(r);
        }
        let inst = MInst::build(Op::FLO_R, &[R, R])
            .m(ModKind::Signed, 0)
            .m(ModKind::Sh, 1);
        self.one(inst, &[Res(0, 0), Arg(0, 0)], &[r])
    }

    /// Bit-field extract `ubfe`/`ibfe(width, offset, x)`: constant width and offset make the
    /// control word BFE's immediate.
    fn bfe(&mut self, signed: bool, args: &[Value]) -> R32 {
        let signed = signed as u8;
        if let Some(c) = self.bf_control_const(args[0], args[1]) {
            let inst = MInst::build(Op::BFE_I, &[R, R, Operand::Imm(c)]).m(ModKind::Signed, signed);
            return self.one(inst, &[Res(0, 0), Arg(0, 0), Slot::Keep], &[args[2]]);
        }
        let ctl = self.bf_control(args[0], args[1])?;
        let inst = MInst::build(Op::BFE_R, &[R, R, R]).m(ModKind::Signed, signed);
        self.one(inst, &[Res(0, 0), Arg(0, 0), Arg(1, 0)], &[args[2], ctl])
    }

    /// Bit-field insert `bfi(width, offset, insert, base)`, the control word as for [`Self::bfe`].
    fn bfi(&mut self, args: &[Value]) -> R32 {
        if let Some(c) = self.bf_control_const(args[0], args[1]) {
            let inst = MInst::build(Op::BFI_I, &[R, R, Operand::Imm(c), R]);
            return self.one(
                inst,
                &[Res(0, 0), Arg(0, 0), Slot::Keep, Arg(1, 0)],
                &[args[2], args[3]],
            );
        }
        let ctl = self.bf_control(args[0], args[1])?;
        let inst = MInst::build(Op::BFI_R, &[R, R, R, R]);
        self.one(
            inst,
            &[Res(0, 0), Arg(0, 0), Arg(1, 0), Arg(2, 0)],
            &[args[2], ctl, args[3]],
        )
    }

    /// 64-bit `a + b` or `a - b` as a carry chain in one template; `a` = `None` is zero
    /// (`-b`).
    fn add64(&mut self, sub: bool, a: Option<Value>, b: Value) -> Result<Vals, IselError> {
        // Operand A of both IADDs: the halves of `a`, or RZ.
        let (ra, la, ha, args) = match a {
            Some(a) => (R, Arg(0, 0), Arg(0, 1), vec![a, b]),
            None => (Operand::Reg(Reg::RZ), Slot::Keep, Slot::Keep, vec![b]),
        };
        let bi = u8::from(a.is_some());
        let lo = MInst::iadd(R, ra, R).f(ModKind::Cc, 1)?;
        let hi = MInst::iadd(R, ra, R).f(ModKind::X, 1)?;
        let mut seq = Vec::new();
        if sub {
            // a - b = a + ~b + 1: invert b into the result, then add with carry-in 1.
            let inv = MInst::lop(Lop::PassB, R, Reg::RZ, R).f(ModKind::Inv(3), 1)?;
            for part in 0..2 {
                seq.push(TInst::new(
                    inv,
                    &[Slot::Keep, Res(0, part), Slot::Keep, Arg(bi, part)],
                ));
            }
            let lo = lo.t(Po::Po)?;
            seq.push(TInst::new(lo, &[Res(0, 0), la, Res(0, 0)]));
            seq.push(TInst::new(hi, &[Res(0, 1), ha, Res(0, 1)]));
        } else {
            seq.push(TInst::new(lo, &[Res(0, 0), la, Arg(bi, 0)]));
            seq.push(TInst::new(hi, &[Res(0, 1), ha, Arg(bi, 1)]));
        }
        self.emit(Template::many(&seq), &args, &[Type::B64])
    }

    /// 64-bit `a * b` (mod 2^64) from 32-bit halves: the low word is `al * bl`, the high word
    /// `umulhi(al, bl) + al * bh + ah * bl` (the `ah * bh` product lies above bit 63).
    fn mul64(&mut self, a: Value, b: Value) -> Result<Vals, IselError> {
        let (al, ah) = (self.part(a, false)?, self.part(a, true)?);
        let (bl, bh) = (self.part(b, false)?, self.part(b, true)?);
        let lo = self.imul(al, bl)?;
        let carry = self.umulhi(al, bl)?;
        let cross = self.xmad_chain(al, bh, Some(carry))?;
        let hi = self.xmad_chain(ah, bl, Some(cross))?;
        self.pair(lo, hi)
    }

    /// `a + b`; `(x << k) + y` where this add is the shift's only reader is one `ISCADD`
    /// from `x` (the `SHL` dies).
    fn iadd32(&mut self, a: Value, b: Value) -> R32 {
        for (s, y) in [(a, b), (b, a)] {
            if self.use_count[s] == 1 {
                if let Some((x, k)) = self.shifted_index(s) {
                    return self.iscadd(x, y, k);
                }
            }
        }
        let (a, b) = self.canon(a, b);
        self.bin(Op::IADD_R, a, b, &no_mods)
    }

    /// `(x << k) + y` in one `ISCADD`, `y` in whatever form holds it best (a short
    /// immediate, a constant-bank operand or a register).
    fn iscadd(&mut self, x: Value, y: Value, k: u8) -> R32 {
        self.emit_legal(
            &[SrcForms::of(Op::ISCADD_R, 2)],
            ANY,
            &[R, R, R, Operand::Imm(i64::from(k))],
            &no_mods,
            &[Res(0, 0), Arg(0, 0), Arg(1, 0)],
            &[x, y],
            Type::B32,
        )
    }

    /// `a * b + c`: one `ISCADD` when a factor is a power of two, else multiply and add.
    fn imad(&mut self, a: Value, b: Value, c: Value) -> Result<Value, IselError> {
        let pow2 = |k: Option<u64>| {
            k.map(|k| k as u32)
                .filter(|k| k.is_power_of_two() && *k > 1)
        };
        let (x, k) = match (pow2(self.konst(b)), pow2(self.konst(a))) {
            (Some(k), _) => (a, Some(k)),
            (None, Some(k)) => (b, Some(k)),
            _ => (a, None),
        };
        if let Some(k) = k {
            return self.iscadd(x, c, k.trailing_zeros() as u8);
        }
        // The addend rides in the first XMAD unless it comes late (a load's result): then
        // the product is formed while it arrives and one IADD waits for it, rather than two
        // dependent XMADs.
        let late = self
            .func
            .dfg
            .value_inst(c)
            .is_some_and(|i| self.func.dfg.opcode(i).reads_memory());
        if self.konst(a).is_none() && self.konst(b).is_none() {
            let short = self.fits16(a) && self.fits16(b);
            if !late || short {
                return self.xmad_chain(a, b, Some(c));
            }
        }
        let m = self.imul(a, b)?;
        self.bin(Op::IADD_R, m, c, &no_mods)
    }

    /// Whether `v` is below 2^16 on every execution (its [`Ranges`] bound): one 16-bit half
    /// of an XMAD holds it.
    ///
    /// [`Ranges`]: ilc_passes::value_bound::Ranges
    fn fits16(&self, v: Value) -> bool {
        let block = self.cur_block();
        self.ranges.range(self.func, v, block).1 <= 0xffff
    }

    /// `a * b (+ c)` modulo 2^32, as XMADs: one when both factors are below 2^16
    /// (`a.lo * b.lo + c` is the product), two when one is (`a.lo * b + c`, then
    /// `+ (a.hi * b << 16)`), else three (the addend rides in the first). A factor read
    /// straight from a constant buffer (a launch size, `cb0[0].x`) is operand B in XMAD's
    /// `c[]` form wherever B holds it (all but the last XMAD of three), which saves the MOV
    /// that would load it and the register it would hold, unless that would move a 16-bit
    /// factor out of B.
    fn xmad_chain(&mut self, a: Value, b: Value, c: Option<Value>) -> R32 {
        let (a, b) = if self.fits16(a) && !self.fits16(b) {
            (b, a)
        } else {
            (a, b)
        };
        let (a, b) = if self.cb_operand(b).is_none()
            && self.cb_operand(a).is_some()
            && (self.fits16(a) || !self.fits16(b))
        {
            (b, a)
        } else {
            (a, b)
        };
        // Operand B, its slot and the arguments of an XMAD of `a` and `b` (then `rest`).
        let b_cb = self.cb_operand(b).map(crate::spa5::target::cb0);
        let with_b = |rest: &[Value]| -> (Operand, Slot, SmallVec<[Value; 3]>) {
            let mut args: SmallVec<[Value; 3]> = smallvec![a];
            let (op, slot) = match b_cb {
                Some(o) => (o, Slot::Keep),
                None => {
                    args.push(b);
                    (R, Arg(1, 0))
                }
            };
            args.extend_from_slice(rest);
            (op, slot, args)
        };
        let rest_slot = |k: u8| Arg(k + u8::from(b_cb.is_none()), 0);
        let (bop, bslot, args) = with_b(c.as_slice());
        let (first, c_slot) = match c {
            Some(_) => (MInst::xmad(R, R, bop, R), rest_slot(1)),
            None => (MInst::xmad(R, R, bop, Reg::RZ), Slot::Keep),
        };
        let t0 = self.one(first, &[Res(0, 0), Arg(0, 0), bslot, c_slot], &args)?;
        if self.fits16(b) {
            if self.fits16(a) {
                return Ok(t0);
            }
            let (bop, bslot, args) = with_b(&[t0]);
            let hi = MInst::xmad(R, R, bop, R)
                .m(ModKind::H1(1), 1)
                .m(ModKind::Psl, 1);
            return self.one(hi, &[Res(0, 0), Arg(0, 0), bslot, rest_slot(1)], &args);
        }
        let (bop, bslot, args) = with_b(&[]);
        let t1 = self.one(
            MInst::xmad(R, R, bop, Reg::RZ)
                .m(ModKind::Mrg, 1)
                .m(ModKind::H1(2), 1),
            &[Res(0, 0), Arg(0, 0), bslot],
            &args,
        )?;
        let d = MInst::xmad(R, R, R, R)
            .m(ModKind::Psl, 1)
            .t(XMode::Cbcc)?
            .m(ModKind::H1(1), 1)
            .m(ModKind::H1(2), 1);
        self.one(
            d,
            &[Res(0, 0), Arg(0, 0), Arg(1, 0), Arg(2, 0)],
            &[a, t1, t0],
        )
    }

    /// 32-bit shift; the IR masks the count to 5 bits (a constant count is masked here,
    /// a register count wraps the same way under `.W`).
    fn shift32(&mut self, left: bool, signed: bool, a: Value, n: Value) -> R32 {
        if let Some(c) = self.konst(n) {
            return self.sh_imm(left, signed && !left, a, (c & 31) as u32);
        }
        let r = if left { Op::SHL_R } else { Op::SHR_R };
        let mut inst = MInst::build(r, &[R, R, R]).m(ModKind::W, 1);
        inst.set(ModKind::Signed, u8::from(signed));
        self.one(inst, &[Res(0, 0), Arg(0, 0), Arg(1, 0)], &[a, n])
    }

    /// The BFE/BFI control word of a constant width and offset (it fits the immediate).
    fn bf_control_const(&self, width: Value, offset: Value) -> Option<i64> {
        let (w, o) = (self.konst(width)?, self.konst(offset)?);
        Some(((o & 31) | (w & 31) << 8) as i64)
    }

    /// BFE/BFI control word `(offset & 31) | (width & 31) << 8` in a register (a constant
    /// one is an immediate: [`Isel::bf_control_const`]).
    fn bf_control(&mut self, width: Value, offset: Value) -> R32 {
        let w = self.lop32i(Lop::And, width, 31)?;
        let o = self.lop32i(Lop::And, offset, 31)?;
        let inst = MInst::build(Op::BFI_I, &[R, R, Operand::Imm(0x808), R]);
        self.one(
            inst,
            &[Res(0, 0), Arg(0, 0), Slot::Keep, Arg(1, 0)],
            &[w, o],
        )
    }

    /// 32-bit multiply as XMADs.
    pub(crate) fn imul32(&mut self, a: Value, b: Value) -> R32 {
        self.imul(a, b)
    }

    fn imul(&mut self, a: Value, b: Value) -> R32 {
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
            if c > 2 && (c - 1).is_power_of_two() {
                // a * (2^k + 1) = (a << k) + a: one ISCADD.
                let k = (c - 1).trailing_zeros() as u8;
                let i = MInst::iscadd(R, R, R, k);
                return self.one(i, &[Res(0, 0), Arg(0, 0), Arg(1, 0)], &[a, a]);
            }
            if c < 0x1_0000 {
                // a * c = a.lo * c + (a.hi * c << 16).
                let lo = self.one(
                    MInst::xmad(R, R, Operand::Imm(c as i64), Reg::RZ),
                    &[Res(0, 0), Arg(0, 0)],
                    &[a],
                )?;
                let hi = MInst::xmad(R, R, Operand::Imm(c as i64), R)
                    .m(ModKind::H1(1), 1)
                    .m(ModKind::Psl, 1);
                return self.one(hi, &[Res(0, 0), Arg(0, 0), Slot::Keep, Arg(1, 0)], &[a, lo]);
            }
        }
        self.xmad_chain(a, b, None)
    }

    /// 64-bit compare on the halves, read straight from the register pairs (a constant's
    /// halves are immediates where they fit).
    fn icmp64(&mut self, cc: IntCC, a: Value, b: Value) -> R32 {
        let half = |s: &Self, v: Value, hi: bool| match s.konst(v) {
            Some(c) => Half::Const((c >> if hi { 32 } else { 0 }) as u32),
            None => Half::Reg(v, u8::from(hi)),
        };
        let (al, bl, ah, bh) = (
            half(self, a, false),
            half(self, b, false),
            half(self, a, true),
            half(self, b, true),
        );
        match cc {
            IntCC::Eq => {
                let p = self.isetp_half(ICmp::Eq, false, al, bl, Bop::And, None)?;
                self.isetp_half(ICmp::Eq, false, ah, bh, Bop::And, Some(p))
            }
            IntCC::Ne => {
                let p = self.isetp_half(ICmp::Ne, false, al, bl, Bop::And, None)?;
                self.isetp_half(ICmp::Ne, false, ah, bh, Bop::Or, Some(p))
            }
            _ => {
                let (cmp, signed) = icc(cc);
                // Strict part of the order on the high words, the full order on the low words.
                let strict = match cmp {
                    ICmp::Le => ICmp::Lt,
                    ICmp::Ge => ICmp::Gt,
                    c => c,
                };
                let l = self.isetp_half(cmp, false, al, bl, Bop::And, None)?;
                let e = self.isetp_half(ICmp::Eq, false, ah, bh, Bop::And, Some(l))?;
                self.isetp_half(strict, signed, ah, bh, Bop::Or, Some(e))
            }
        }
    }

    /// `ISETP.cmp.bop p, PT, a, b, q` on halves of 64-bit values.
    fn isetp_half(
        &mut self,
        cmp: ICmp,
        signed: bool,
        a: Half,
        b: Half,
        bop: Bop,
        q: Option<Value>,
    ) -> R32 {
        let a = match a {
            Half::Reg(v, p) => (v, p),
            Half::Const(c) => (self.const32(c)?, 0),
        };
        let (b_op, b_slot, mut args) = match b {
            Half::Const(c) if fits_i20(i64::from(c as i32)) => {
                (Operand::Imm(i64::from(c as i32)), Slot::Keep, vec![a.0])
            }
            Half::Const(c) => (R, Arg(1, 0), vec![a.0, self.const32(c)?]),
            Half::Reg(v, p) => (R, Arg(1, p), vec![a.0, v]),
        };
        let inst = MInst::isetp(cmp, PredReg(0), R, b_op)
            .f(ModKind::Signed, signed as u8)?
            .t(bop)?;
        let mut slots = vec![Res(0, 0), Slot::Keep, Arg(0, a.1), b_slot];
        if let Some(q) = q {
            slots.push(Arg(args.len() as u8, 0));
            args.push(q);
        }
        self.one_ty(inst, &slots, &args, Type::Pred)
    }

    pub(crate) fn lop32i(&mut self, op: Lop, a: Value, k: u32) -> R32 {
        self.one(MInst::lop32i(op, R, R, k), &[Res(0, 0), Arg(0, 0)], &[a])
    }

    /// A predicate from `ISETP.cmp.bop p, PT, a, b, q` (q = PT when `q` is None); `b` is
    /// legalized (a small constant or a constant-bank operand is the B operand itself).
    #[allow(clippy::too_many_arguments)] // mirrors the ISETP operand list
    pub(crate) fn isetp(
        &mut self,
        cmp: ICmp,
        signed: bool,
        x: bool,
        a: Value,
        b: Value,
        bop: Bop,
        q: Option<(Value, bool)>,
    ) -> R32 {
        let mods = |i: MInst| {
            i.t(cmp)?
                .f(ModKind::Signed, signed as u8)?
                .t(bop)?
                .f(ModKind::X, x as u8)
        };
        let ops = [
            Operand::Pred(Pred::p(0)),
            Operand::Pred(Pred::TRUE),
            R,
            R,
            Operand::Pred(Pred::TRUE),
        ];
        let mut slots: SmallVec<[Slot; 8]> = smallvec![Res(0, 0), Slot::Keep, Arg(0, 0), Arg(1, 0)];
        let mut args: SmallVec<[Value; 4]> = smallvec![a, b];
        if let Some((q, not)) = q {
            slots.push(if not { Slot::ArgNot(2) } else { Arg(2, 0) });
            args.push(q);
        }
        let forms = SrcForms::of(Op::ISETP_R, 3);
        self.emit_legal(&[forms], &ANY[..2], &ops, &mods, &slots, &args, Type::Pred)
    }
}

/// ISETP condition and signedness.
pub fn icc(cc: IntCC) -> (ICmp, bool) {
    match cc {
        IntCC::Eq => (ICmp::Eq, true),
        IntCC::Ne => (ICmp::Ne, true),
        IntCC::Slt => (ICmp::Lt, true),
        IntCC::Sle => (ICmp::Le, true),
        IntCC::Sgt => (ICmp::Gt, true),
        IntCC::Sge => (ICmp::Ge, true),
        IntCC::Ult => (ICmp::Lt, false),
        IntCC::Ule => (ICmp::Le, false),
        IntCC::Ugt => (ICmp::Gt, false),
        IntCC::Uge => (ICmp::Ge, false),
    }
}

impl Isel<'_> {
    fn part(&mut self, v: Value, hi: bool) -> R32 {
        self.one(MInst::mov(R, R), &[Res(0, 0), Arg(0, u8::from(hi))], &[v])
    }

    fn pair(&mut self, lo: Value, hi: Value) -> Result<SmallVec<[Value; 4]>, IselError> {
        let t = Template::many(&[
            TInst::new(MInst::mov(R, R), &[Res(0, 0), Arg(0, 0)]),
            TInst::new(MInst::mov(R, R), &[Res(0, 1), Arg(1, 0)]),
        ]);
        self.emit(t, &[lo, hi], &[Type::B64])
    }

    /// Clamping shift (`count >= 32` gives 0, or the sign for arithmetic right shifts).
    fn sh(&mut self, left: bool, signed: bool, a: Value, n: Value) -> R32 {
        let op = if left { Op::SHL_R } else { Op::SHR_R };
        let i = MInst::build(op, &[R, R, R]).m(ModKind::Signed, u8::from(signed));
        self.one(i, &[Res(0, 0), Arg(0, 0), Arg(1, 0)], &[a, n])
    }

    pub(crate) fn sh_imm(&mut self, left: bool, signed: bool, a: Value, n: u32) -> R32 {
        let op = if left { Op::SHL_I } else { Op::SHR_I };
        let i = MInst::build(op, &[R, R, Operand::Imm(i64::from(n))])
            .m(ModKind::Signed, u8::from(signed));
        self.one(i, &[Res(0, 0), Arg(0, 0)], &[a])
    }

    fn add(&mut self, a: Value, b: Value, neg_a: bool, neg_b: bool) -> R32 {
        let i = MInst::iadd(R, R, R)
            .m(ModKind::Neg(1), u8::from(neg_a))
            .m(ModKind::Neg(2), u8::from(neg_b));
        self.one(i, &[Res(0, 0), Arg(0, 0), Arg(1, 0)], &[a, b])
    }

    fn lop(&mut self, op: Lop, a: Value, b: Value) -> R32 {
        self.one(
            MInst::lop(op, R, R, R),
            &[Slot::Keep, Res(0, 0), Arg(0, 0), Arg(1, 0)],
            &[a, b],
        )
    }

    fn and_imm(&mut self, a: Value, k: u32) -> R32 {
        self.one(
            MInst::lop32i(Lop::And, R, R, k),
            &[Res(0, 0), Arg(0, 0)],
            &[a],
        )
    }

    /// `p ? a : b`.
    fn sel(&mut self, p: Value, a: Value, b: Value) -> R32 {
        self.one(
            MInst::sel(R, R, R, Pred::TRUE),
            &[Res(0, 0), Arg(0, 0), Arg(1, 0), Arg(2, 0)],
            &[a, b, p],
        )
    }

    /// `XMAD d, a(.H1), b(.H1), RZ`: a 16x16 unsigned product.
    fn mul16(&mut self, a: Value, ah: bool, b: Value, bh: bool) -> R32 {
        let i = MInst::xmad(R, R, R, Reg::RZ)
            .m(ModKind::H1(1), u8::from(ah))
            .m(ModKind::H1(2), u8::from(bh));
        self.one(i, &[Res(0, 0), Arg(0, 0), Arg(1, 0)], &[a, b])
    }

    /// 64-bit shift of `a` by `n` (masked to 6 bits).
    /// `SHF.R.W d, lo, s, hi`: the low word of `(hi:lo) >> (s & 31)`; a constant amount is
    /// the immediate form.
    fn funnel_r(&mut self, lo: Value, hi: Value, s: Value) -> R32 {
        match self.konst(s) {
            Some(k) => self.shf_imm(false, lo, hi, k as u32, 0),
            None => self.shf(false, lo, hi, s, 0),
        }
    }

    /// One funnel shift `SHF.L`/`SHF.R` of `(hi:lo)` by `s`: `ty` 0 is the 32-bit form with
    /// `.W` (amount mod 32; `.L` yields the high word of the shifted pair, `.R` the low), 2
    /// (`.U64`) and 3 (`.S64`) the 64-bit forms with `.W` (amount mod 64; `.R` yields the
    /// low word).
    fn shf(&mut self, left: bool, lo: Value, hi: Value, s: Value, ty: u8) -> R32 {
        let op = if left { Op::SHF_L_R } else { Op::SHF_R_R };
        let i = MInst::build(op, &[R, R, R, R])
            .m(ModKind::W, 1)
            .m(ModKind::ShfType, ty);
        self.one(
            i,
            &[Res(0, 0), Arg(0, 0), Arg(1, 0), Arg(2, 0)],
            &[lo, s, hi],
        )
    }

    /// [`Self::shf`] by a constant amount (the 6-bit immediate, wrapped like `.W`).
    fn shf_imm(&mut self, left: bool, lo: Value, hi: Value, k: u32, ty: u8) -> R32 {
        let op = if left { Op::SHF_L_I } else { Op::SHF_R_I };
        let k = k & if ty == 0 { 31 } else { 63 };
        let i = MInst::build(op, &[R, R, Operand::Imm(i64::from(k)), R])
            .m(ModKind::W, 1)
            .m(ModKind::ShfType, ty);
        self.one(i, &[Res(0, 0), Arg(0, 0), Slot::Keep, Arg(1, 0)], &[lo, hi])
    }

    /// A 64-bit shift through the funnel shifter, as ptxas does: left, the high word is
    /// `SHF.L.U64` and the low word `SHL` (0 once the amount reaches 32); right, the low word
    /// is `SHF.R.U64`/`SHF.R.S64` and the high word `SHR` (which clamps the amount). A
    /// constant amount takes word moves and one shift or funnel shift per word.
    pub(crate) fn shift64(
        &mut self,
        left: bool,
        signed: bool,
        a: Value,
        n: Value,
    ) -> Result<SmallVec<[Value; 4]>, IselError> {
        let lo = self.part(a, false)?;
        let hi = self.part(a, true)?;
        if let Some(k) = self.konst(n) {
            return self.shift64_const(left, signed, lo, hi, (k & 63) as u32);
        }
        // SHL and SHR clamp the amount (>= 32 gives 0, or the sign for SHR.S32), so they see
        // the IR's amount mod 64; the 64-bit funnel shifts wrap it themselves (.W).
        let m = self.and_imm(n, 63)?;
        if left {
            let nhi = self.shf(true, lo, hi, n, 2)?;
            let nlo = self.sh(true, false, lo, m)?;
            return self.pair(nlo, nhi);
        }
        let nlo = self.shf(false, lo, hi, n, if signed { 3 } else { 2 })?;
        let nhi = self.sh(false, signed, hi, m)?;
        self.pair(nlo, nhi)
    }

    /// A 64-bit shift by `k` in 0..64.
    fn shift64_const(
        &mut self,
        left: bool,
        signed: bool,
        lo: Value,
        hi: Value,
        k: u32,
    ) -> Result<SmallVec<[Value; 4]>, IselError> {
        if k == 0 {
            return self.pair(lo, hi);
        }
        match (left, k < 32) {
            (true, true) => {
                let nhi = self.shf_imm(true, lo, hi, k, 0)?;
                let nlo = self.sh_imm(true, false, lo, k)?;
                self.pair(nlo, nhi)
            }
            (true, false) => {
                let nhi = self.sh_imm_or_same(true, false, lo, k - 32)?;
                let z = self.const32(0)?;
                self.pair(z, nhi)
            }
            (false, true) => {
                let nlo = self.shf_imm(false, lo, hi, k, 0)?;
                let nhi = self.sh_imm(false, signed, hi, k)?;
                self.pair(nlo, nhi)
            }
            (false, false) => {
                let nhi = if signed {
                    self.sh_imm(false, true, hi, 31)?
                } else {
                    self.const32(0)?
                };
                let nlo = if signed && k == 63 {
                    nhi
                } else {
                    self.sh_imm_or_same(false, signed, hi, k - 32)?
                };
                self.pair(nlo, nhi)
            }
        }
    }

    /// `a` shifted by the constant `k` (`a` itself for 0).
    fn sh_imm_or_same(&mut self, left: bool, signed: bool, a: Value, k: u32) -> R32 {
        if k == 0 {
            return Ok(a);
        }
        self.sh_imm(left, signed, a, k)
    }

    /// High 32 bits of the unsigned 64-bit product.
    pub(crate) fn umulhi(&mut self, a: Value, b: Value) -> R32 {
        self.umulhi_add(a, b, None)
    }

    /// High 32 bits of the unsigned 64-bit product, plus `c` (mod 2^32), in five
    /// instructions, ptxas's `mul.hi.u32` sequence: three 16x16 products (`c` rides in the
    /// high one), `XMAD.CHI` adding the low product's high half to `a.hi * b.lo` (at most
    /// 2^32 - 2^16, so it does not wrap), and `IADD3.RS`, which shifts the carry-extended sum
    /// of its first two operands right by 16 before adding the third.
    fn umulhi_add(&mut self, a: Value, b: Value, c: Option<Value>) -> R32 {
        let p00 = self.mul16(a, false, b, false)?;
        let p01 = self.mul16(a, false, b, true)?;
        let h1 = |i: MInst| i.m(ModKind::H1(1), 1).m(ModKind::H1(2), 1);
        let p11 = match c {
            Some(c) => self.one(
                h1(MInst::xmad(R, R, R, R)),
                &[Res(0, 0), Arg(0, 0), Arg(1, 0), Arg(2, 0)],
                &[a, b, c],
            )?,
            None => self.mul16(a, true, b, true)?,
        };
        let t = self.one(
            MInst::xmad(R, R, R, R).m(ModKind::H1(1), 1).t(XMode::Chi)?,
            &[Res(0, 0), Arg(0, 0), Arg(1, 0), Arg(2, 0)],
            &[a, b, p00],
        )?;
        self.one(
            MInst::iadd3(R, R, R, R).m(ModKind::Iadd3Mode, 1),
            &[Res(0, 0), Arg(0, 0), Arg(1, 0), Arg(2, 0)],
            &[t, p01, p11],
        )
    }

    /// `-v` (`IADD d, RZ, -v`).
    fn neg(&mut self, v: Value) -> R32 {
        self.one(
            MInst::iadd(R, Reg::RZ, R).m(ModKind::Neg(2), 1),
            &[Res(0, 0), Slot::Keep, Arg(0, 0)],
            &[v],
        )
    }

    /// `ISETP.cmp p, PT, a, RZ, PT`: `a` against zero.
    fn setp_zero(&mut self, cmp: ICmp, signed: bool, a: Value) -> R32 {
        let i = MInst::isetp(cmp, isa_spa5::PredReg(0), R, Reg::RZ)
            .m(ModKind::Signed, u8::from(signed));
        let t = Template::one(TInst::new(i, &[Res(0, 0), Slot::Keep, Arg(0, 0)]));
        Ok(self.emit(t, &[a], &[Type::Pred])?[0])
    }

    /// `p ? 0xffffffff : v` as `SEL d, v, -1, !p` (the immediate form: no register holds the
    /// all-ones word).
    fn ones_where(&mut self, p: Value, v: Value) -> R32 {
        let i = MInst::build(
            Op::SEL_I,
            &[R, R, Operand::Imm(-1), Operand::Pred(Pred::TRUE)],
        );
        self.one(
            i,
            &[Res(0, 0), Arg(0, 0), Slot::Keep, Slot::ArgNot(1)],
            &[v, p],
        )
    }

    /// `ISET.cmp.U32.AND d, a, b, PT`: all ones where `a cmp b` (unsigned), else zero.
    fn iset_mask(&mut self, cmp: ICmp, a: Value, b: Value) -> R32 {
        let i = MInst::build(Op::ISET_R, &[R, R, R, Operand::Pred(Pred::TRUE)])
            .t(cmp)?
            .t(Bop::And)?
            .f(ModKind::Signed, 0)?;
        self.one(i, &[Res(0, 0), Arg(0, 0), Arg(1, 0)], &[a, b])
    }

    /// `IMNMX.U32 d, a, b, PT`: the unsigned minimum.
    fn umin(&mut self, a: Value, b: Value) -> R32 {
        let i =
            MInst::build(Op::IMNMX_R, &[R, R, R, Operand::Pred(Pred::TRUE)]).m(ModKind::Signed, 0);
        self.one(i, &[Res(0, 0), Arg(0, 0), Arg(1, 0)], &[a, b])
    }

    /// High 32 bits of the signed 64-bit product.
    pub(crate) fn imulhi(&mut self, a: Value, b: Value) -> R32 {
        let h = self.umulhi(a, b)?;
        let sa = self.sh_imm(false, true, a, 31)?;
        let sb = self.sh_imm(false, true, b, 31)?;
        let ca = self.lop(Lop::And, sa, b)?;
        let cb = self.lop(Lop::And, sb, a)?;
        let h = self.add(h, ca, false, true)?;
        self.add(h, cb, false, true)
    }

    /// Unsigned quotient and remainder (both all ones when `y == 0`).
    pub(crate) fn udivrem(&mut self, x: Value, y: Value) -> Result<(Value, Value), IselError> {
        let fy = self.one(
            MInst::build(Op::I2F_R, &[R, R])
                .t(DType::F32)?
                .t(SType::U32)?,
            &[Res(0, 0), Arg(0, 0)],
            &[y],
        )?;
        let r = self.one(MInst::mufu(Mufu::Rcp, R, R), &[Res(0, 0), Arg(0, 0)], &[fy])?;
        // r * 4294966784.0, the factor a literal-pool operand where the pool is on.
        const SCALE: u32 = 0x4f7f_fffe;
        let pooled = if self.opts.literal_pool {
            self.pool_slot(u64::from(SCALE), false)
        } else {
            None
        };
        let s = match pooled {
            Some(c) => self.one(MInst::fmul(R, R, c), &[Res(0, 0), Arg(0, 0)], &[r])?,
            None => {
                let k = self.const32(SCALE)?;
                self.one(
                    MInst::fmul(R, R, R),
                    &[Res(0, 0), Arg(0, 0), Arg(1, 0)],
                    &[r, k],
                )?
            }
        };
        let z = self.one(
            MInst::build(Op::F2I_R, &[R, R])
                .t(DType::U32)?
                .t(SType::F32)?
                .t(Rnd::Trunc)?,
            &[Res(0, 0), Arg(0, 0)],
            &[s],
        )?;
        let ny = self.neg(y)?;
        let nyz = self.imul32(ny, z)?;
        let z = self.umulhi_add(z, nyz, Some(z))?;
        let q = self.umulhi(x, z)?;
        let qy = self.imul32(q, y)?;
        let mut q = q;
        let mut r = self.add(x, qy, false, true)?;
        // Two corrections, each `if r >= y { q += 1; r -= y }` without a predicate: the
        // quotient subtracts `ISET`'s all-ones mask, and the remainder is `min(r, r - y)`
        // unsigned (`r - y` wraps above `r` exactly when `r < y`). The chains are
        // independent, and a result nobody reads is removed with its chain.
        for _ in 0..2 {
            let ge = self.iset_mask(ICmp::Ge, r, y)?;
            q = self.add(q, ge, false, true)?;
            let r1 = self.add(r, y, false, true)?;
            r = self.umin(r, r1)?;
        }
        let is0 = self.setp_zero(ICmp::Eq, false, y)?;
        let q = self.ones_where(is0, q)?;
        let r = self.ones_where(is0, r)?;
        Ok((q, r))
    }

    /// Signed quotient and remainder with the IR's conventions.
    pub(crate) fn idivrem(&mut self, x: Value, y: Value) -> Result<(Value, Value), IselError> {
        let nx = self.neg(x)?;
        let ny = self.neg(y)?;
        let xneg = self.setp_zero(ICmp::Lt, true, x)?;
        let yneg = self.setp_zero(ICmp::Lt, true, y)?;
        let ax = self.sel(xneg, nx, x)?;
        let ay = self.sel(yneg, ny, y)?;
        let (q, r) = self.udivrem(ax, ay)?;
        let sx = self.sh_imm(false, true, x, 31)?;
        let sy = self.sh_imm(false, true, y, 31)?;
        let diff = self.lop(Lop::Xor, sx, sy)?;
        let dneg = self.setp_zero(ICmp::Ne, false, diff)?;
        let nq = self.neg(q)?;
        let nr = self.neg(r)?;
        let q = self.sel(dneg, nq, q)?;
        let r = self.sel(xneg, nr, r)?;
        let is0 = self.setp_zero(ICmp::Eq, false, y)?;
        let q = self.ones_where(is0, q)?;
        let r = self.ones_where(is0, r)?;
        Ok((q, r))
    }
}

#[cfg(test)]
mod tests {
    //! Models of the emitted sequences in plain Rust, instruction by instruction (with
    //! Maxwell's clamping shifts and a reciprocal one ulp off), checked against exact
    //! arithmetic on edge cases and pseudo-random inputs.

    fn shl(a: u32, n: u32) -> u32 {
        if n >= 32 {
            0
        } else {
            a << n
        }
    }
    fn shr(a: u32, n: u32) -> u32 {
        if n >= 32 {
            0
        } else {
            a >> n
        }
    }
    fn sar(a: u32, n: u32) -> u32 {
        ((a as i32) >> n.min(31)) as u32
    }
    fn x16(a: u32, ah: bool, b: u32, bh: bool) -> u32 {
        let a = if ah { a >> 16 } else { a & 0xffff };
        let b = if bh { b >> 16 } else { b & 0xffff };
        a * b
    }
    /// The emitted five-instruction sequence, with `c` added (`umulhi_add`).
    fn umulhi_add(a: u32, b: u32, c: u32) -> u32 {
        let p00 = x16(a, false, b, false);
        let p01 = x16(a, false, b, true);
        let p11 = x16(a, true, b, true).wrapping_add(c);
        // XMAD.CHI: a.hi * b.lo + (c >> 16), as the 32-bit sum it is.
        let t = x16(a, true, b, false).wrapping_add(p00 >> 16);
        // IADD3.RS: the carry-extended sum of the first two, shifted right by 16.
        (((u64::from(t) + u64::from(p01)) >> 16) as u32).wrapping_add(p11)
    }
    fn umulhi(a: u32, b: u32) -> u32 {
        umulhi_add(a, b, 0)
    }
    fn udivrem(x: u32, y: u32, rcp_ulp: i32) -> (u32, u32) {
        // A reciprocal within 1 ulp of the true value: the f32 just below or just above 1/y.
        let exact = 1.0f64 / f64::from(y as f32);
        let rn = exact as f32;
        let r = match rcp_ulp {
            -1 if f64::from(rn) > exact => f32::from_bits(rn.to_bits() - 1),
            1 if f64::from(rn) < exact => f32::from_bits(rn.to_bits() + 1),
            _ => rn,
        };
        let s = r * f32::from_bits(0x4f7f_fffe);
        let z = if s.is_nan() {
            0
        } else if s >= 4294967296.0 {
            u32::MAX
        } else {
            s as u32
        };
        let nyz = 0u32.wrapping_sub(y).wrapping_mul(z);
        let z = umulhi_add(z, nyz, z);
        let mut q = umulhi(x, z);
        let mut r = x.wrapping_sub(q.wrapping_mul(y));
        for _ in 0..2 {
            // ISET's mask, and IMNMX.U32 of r and r - y.
            let ge = if r >= y { u32::MAX } else { 0 };
            q = q.wrapping_sub(ge);
            r = r.min(r.wrapping_sub(y));
        }
        if y == 0 {
            (u32::MAX, u32::MAX)
        } else {
            (q, r)
        }
    }
    /// `SHF.L.W` (`bits` 32 or 64, `.U64`): the high word of `(hi:lo) << (s mod bits)`.
    fn shf_l(lo: u32, hi: u32, s: u32, bits: u32) -> u32 {
        let x = u64::from(hi) << 32 | u64::from(lo);
        ((x << (s & (bits - 1))) >> 32) as u32
    }
    /// `SHF.R.W` (`bits` 32 or 64, `.U64`/`.S64`): the low word of `(hi:lo) >> (s mod bits)`.
    fn shf_r(lo: u32, hi: u32, s: u32, bits: u32, signed: bool) -> u32 {
        let x = u64::from(hi) << 32 | u64::from(lo);
        let s = s & (bits - 1);
        if signed {
            ((x as i64) >> s) as u32
        } else {
            (x >> s) as u32
        }
    }
    fn shift64(left: bool, signed: bool, a: u64, n: u32) -> u64 {
        let (lo, hi) = (a as u32, (a >> 32) as u32);
        let m = n & 63;
        let (nlo, nhi) = if left {
            (shl(lo, m), shf_l(lo, hi, n, 64))
        } else if signed {
            (shf_r(lo, hi, n, 64, true), sar(hi, m))
        } else {
            (shf_r(lo, hi, n, 64, false), shr(hi, m))
        };
        u64::from(nlo) | u64::from(nhi) << 32
    }
    fn shift64_const(left: bool, signed: bool, a: u64, k: u32) -> u64 {
        let (lo, hi) = (a as u32, (a >> 32) as u32);
        let (nlo, nhi) = match (left, k) {
            (_, 0) => (lo, hi),
            (true, 1..=31) => (shl(lo, k), shf_l(lo, hi, k, 32)),
            (true, _) => (0, shl(lo, k - 32)),
            (false, 1..=31) => (
                shf_r(lo, hi, k, 32, false),
                if signed { sar(hi, k) } else { shr(hi, k) },
            ),
            (false, _) if signed => (sar(hi, k - 32), sar(hi, 31)),
            (false, _) => (shr(hi, k - 32), 0),
        };
        u64::from(nlo) | u64::from(nhi) << 32
    }

    fn inputs() -> Vec<u32> {
        let mut v = vec![
            0,
            1,
            2,
            3,
            7,
            0xffff,
            0x10000,
            0x7fff_ffff,
            0x8000_0000,
            0x8000_0001,
            u32::MAX,
            u32::MAX - 1,
        ];
        let mut s = 0x1234_5678_9abc_def0u64;
        for _ in 0..300 {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            v.push((s >> 16) as u32 >> (s % 32));
        }
        v
    }

    #[test]
    fn umulhi_model_is_exact() {
        for &a in &inputs() {
            for &b in &inputs() {
                assert_eq!(
                    umulhi(a, b),
                    ((u64::from(a) * u64::from(b)) >> 32) as u32,
                    "{a:#x} {b:#x}"
                );
            }
        }
    }

    #[test]
    fn udiv_model_is_exact_with_a_one_ulp_reciprocal() {
        for ulp in [-1, 0, 1] {
            for &x in &inputs() {
                for &y in &inputs() {
                    let want = x
                        .checked_div(y)
                        .zip(x.checked_rem(y))
                        .unwrap_or((u32::MAX, u32::MAX));
                    assert_eq!(
                        udivrem(x, y, ulp),
                        want,
                        "{x:#x} / {y:#x} (rcp {ulp:+} ulp)"
                    );
                }
            }
        }
    }

    #[test]
    fn shift64_model_matches_masked_shifts() {
        let vals = [
            0u64,
            1,
            0x8000_0000_0000_0000,
            0xdead_beef_0123_4567,
            u64::MAX,
            0x0000_0001_8000_0000,
        ];
        for &a in &vals {
            for n in 0..70u32 {
                let m = n & 63;
                let sar = ((a as i64) >> m) as u64;
                assert_eq!(shift64(true, false, a, n), a << m, "shl {a:#x} {n}");
                assert_eq!(shift64(false, false, a, n), a >> m, "ushr {a:#x} {n}");
                assert_eq!(shift64(false, true, a, n), sar, "ishr {a:#x} {n}");
                assert_eq!(shift64_const(true, false, a, m), a << m, "shl {a:#x} #{m}");
                assert_eq!(
                    shift64_const(false, false, a, m),
                    a >> m,
                    "ushr {a:#x} #{m}"
                );
                assert_eq!(shift64_const(false, true, a, m), sar, "ishr {a:#x} #{m}");
            }
        }
    }
}
