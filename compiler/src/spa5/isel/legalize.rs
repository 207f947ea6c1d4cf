//! Legalize: which form of a machine operation encodes a source operand. Every selection
//! family builds instructions in their register form (`IADD_R`, `FSETP_R`, `DFMA_R`...) and
//! asks here whether one source can instead be
//! - a short immediate (the form's 20-bit field: `I20`, `U20`, `F20`, `D20`, XMAD's 16 bits),
//! - a constant-bank operand `c[bank][offset]` (a direct constant-buffer read, or a constant
//!   placed in the literal pool, bank [`POOL_BANK`]),
//! - a 32-bit immediate (`IADD32I`, `FADD32I`, `FMUL32I`: same operands, only the source
//!   differs),
//!
//! or stays a register. The sibling forms of a register form come from the isa-spa5 table
//! ([`SrcForms::of`]), not from names; a form qualifies only if it carries every modifier
//! the instruction sets (`IADD32I` has no negated second source, for example), so a
//! modifier is never silently dropped. Preference: short immediate, constant bank, 32-bit
//! immediate (the literal pool keeps a register and an instruction free like the others; a
//! 32-bit immediate is the fallback when the pool is off or full), else register.
//!
//! Requires: the values are selected IR values of `b32` (or `b64` for 64-bit operations) type.
//! Guarantees: the chosen form encodes the value exactly (an immediate field only takes a
//! constant it represents bit for bit).

use std::cell::RefCell;

use ilc_passes::ir::{InstructionData, Opcode, Type, Value};
use ilc_passes::FastHashMap as HashMap;
use isa_spa5::inst::{ModError, Operand};
use isa_spa5::table::{OpKind, FORMS};
use isa_spa5::{Inst as MInst, Op};
use smallvec::SmallVec;

use super::{Isel, IselError};
use crate::spa5::target::{cb0, fits_i20, Slot, TInst, Template, R};

/// Constant bank of the literal pool.
pub const POOL_BANK: u8 = 2;
/// Most literal-pool entries (16 KiB of the 64 KiB bank); later constants use `MOV32I`.
pub(super) const POOL_MAX: usize = 4096;

/// How a source operand may be encoded other than as a register.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Enc {
    /// The form's short (20-bit or 16-bit) immediate field.
    Imm,
    /// A `c[bank][offset]` operand.
    CBank,
    /// A 32-bit immediate (a `...32I` form).
    Imm32,
}

/// The usual preference: short immediate, constant bank, 32-bit immediate.
pub(crate) const ANY: &[Enc] = &[Enc::Imm, Enc::CBank, Enc::Imm32];

/// The forms of one operation that differ from the register form only in source `k`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SrcForms {
    /// The register form.
    pub reg: Op,
    /// The source operand index (in form order).
    pub k: usize,
    /// The short-immediate form.
    pub imm: Option<Op>,
    /// The constant-bank form.
    pub cbank: Option<Op>,
    /// The 32-bit immediate form.
    pub imm32: Option<Op>,
}

/// Operand kinds compared up to bit position: two forms' operands match when they are both
/// registers (wherever encoded), both predicates, or the same kind otherwise.
fn same_class(a: OpKind, b: OpKind) -> bool {
    match (a, b) {
        (OpKind::Gpr(_), OpKind::Gpr(_)) => true,
        (OpKind::PredDst(_), OpKind::PredDst(_)) => true,
        (OpKind::PredSrc(..), OpKind::PredSrc(..)) => true,
        (OpKind::UImm(_, x), OpKind::UImm(_, y)) => x == y,
        _ => a == b,
    }
}

fn is_short_imm(k: OpKind) -> bool {
    matches!(
        k,
        OpKind::I20 | OpKind::U20 | OpKind::F20 | OpKind::D20 | OpKind::XImm
    )
}

fn is_imm32(k: OpKind) -> bool {
    matches!(k, OpKind::U32(_) | OpKind::S32(_) | OpKind::F32(_))
}

impl SrcForms {
    /// The sibling forms of register form `reg` for source `k`, from the table: same
    /// mnemonic (`...32I` for the 32-bit immediate), same operands except source `k`.
    pub fn of(reg: Op, k: usize) -> SrcForms {
        thread_local! {
            /// The forms found so far (the search scans the whole table, and selection asks
            /// for the same few operations in every kernel).
            static FOUND: RefCell<HashMap<(Op, usize), SrcForms>> = RefCell::default();
        }
        FOUND.with(|found| {
            if let Some(&s) = found.borrow().get(&(reg, k)) {
                return s;
            }
            let s = SrcForms::search(reg, k);
            found.borrow_mut().insert((reg, k), s);
            s
        })
    }

    /// The form of encoding `enc`, if there is one and it has every modifier of `mods`.
    fn with_mods(&self, enc: Enc, mods: Mods<'_>) -> Option<Op> {
        let form = match enc {
            Enc::Imm => self.imm,
            Enc::Imm32 => self.imm32,
            Enc::CBank => self.cbank,
        }?;
        if !has_mods(form, mods) {
            return None;
        }
        Some(form)
    }

    /// [`SrcForms::of`] without the memo: a scan of the table.
    fn search(reg: Op, k: usize) -> SrcForms {
        let base = reg.form();
        let mut s = SrcForms {
            reg,
            k,
            imm: None,
            cbank: None,
            imm32: None,
        };
        let long = format!("{}32I", base.mnemonic);
        for (i, f) in FORMS.iter().enumerate() {
            let same_mn = f.mnemonic == base.mnemonic;
            if !(same_mn || f.mnemonic == long) || f.operands.len() != base.operands.len() {
                continue;
            }
            let rest_same = f
                .operands
                .iter()
                .zip(base.operands)
                .enumerate()
                .all(|(j, (a, b))| j == k || (same_class(a.kind, b.kind) && a.role == b.role));
            if !rest_same {
                continue;
            }
            let kind = f.operands[k].kind;
            let op = Op(i as u16);
            match kind {
                _ if same_mn && is_short_imm(kind) => s.imm = s.imm.or(Some(op)),
                OpKind::CBuf | OpKind::CBufSp if same_mn => s.cbank = s.cbank.or(Some(op)),
                _ if !same_mn && is_imm32(kind) => s.imm32 = s.imm32.or(Some(op)),
                _ => {}
            }
        }
        s
    }
}

/// The immediate operand of field `kind` for the constant `c` of a b64 (`wide`) or b32
/// value: a b64 constant only fits a 64-bit immediate field, and the reverse.
fn typed_imm_operand(kind: OpKind, c: u64, wide: bool) -> Option<Operand> {
    if wide != matches!(kind, OpKind::D20) {
        return None;
    }
    imm_operand(kind, c)
}

/// Whether f32 `bits` fit the 20-bit float immediate (low 12 bits zero, not a denormal).
pub(crate) fn short_f32(bits: u32) -> bool {
    bits & 0xfff == 0 && !is_denormal(bits)
}

fn is_denormal(bits: u32) -> bool {
    bits & 0x7f80_0000 == 0 && bits & 0x007f_ffff != 0
}

/// The operand an immediate field of kind `kind` holds for constant `c`, if it holds it
/// exactly.
pub(crate) fn imm_operand(kind: OpKind, c: u64) -> Option<Operand> {
    let w = c as u32;
    match kind {
        OpKind::I20 => {
            let v = w as i32 as i64;
            fits_i20(v).then_some(Operand::Imm(v))
        }
        OpKind::U20 => (w < 1 << 20).then_some(Operand::Imm(i64::from(w))),
        OpKind::XImm => (w < 1 << 16).then_some(Operand::Imm(i64::from(w))),
        OpKind::F20 => short_f32(w).then_some(Operand::F32(w)),
        OpKind::D20 => (c & ((1 << 44) - 1) == 0).then_some(Operand::F64(c)),
        OpKind::S32(_) => Some(Operand::Imm(i64::from(w as i32))),
        OpKind::U32(_) => Some(Operand::Imm(i64::from(w))),
        OpKind::F32(_) => Some(Operand::F32(w)),
        _ => None,
    }
}

/// The modifiers of an instruction being legalized: applied to whichever form is chosen;
/// `Err` when the form lacks one (the form then does not qualify).
pub(crate) type Mods<'a> = &'a dyn Fn(MInst) -> Result<MInst, ModError>;

/// No modifiers.
pub(crate) fn no_mods(i: MInst) -> Result<MInst, ModError> {
    Ok(i)
}

/// Whether form `op` takes every modifier `mods` sets.
fn has_mods(op: Op, mods: Mods<'_>) -> bool {
    mods(MInst::new(op)).is_ok()
}

impl Isel<'_> {
    /// If `v` is a direct, in-range 32-bit constant-buffer read, the absolute `c[0x0]` byte
    /// offset it reads; if it is a launch constant (a buffer length, the grid size), its
    /// offset in bank 0.
    pub(crate) fn cb_operand(&self, v: Value) -> Option<u32> {
        use ilc_passes::ir::{MemSize, MemSpace};
        let inst = self.func.dfg.value_inst(v)?;
        let (mem, args) = match &self.func.dfg.insts[inst] {
            InstructionData::Load { mem, args, .. } => (mem, args),
            InstructionData::Special { reg, .. } => return self.launch_constant_offset(*reg),
            _ => return None,
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
        let p = self.layout.param(crate::spa5::abi::ParamKind::CbData(id))?;
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
    pub(crate) fn pool_slot(&mut self, c: u64, wide: bool) -> Option<Operand> {
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
    pub(crate) fn const_like64(&self, v: Value) -> bool {
        self.cb64_offset(v).is_some() || self.pooled_const(v, Type::B64).is_some()
    }

    /// True if `v` could be a `c[]` operand (a parameter read or a nonzero `b32` constant).
    pub(crate) fn const_like(&self, v: Value) -> bool {
        self.cb_operand(v).is_some() || self.pooled_const(v, Type::B32).is_some()
    }

    /// Puts a constant or constant-buffer operand second for commutative ops.
    pub(crate) fn canon(&self, a: Value, b: Value) -> (Value, Value) {
        let special = |v| self.konst(v).is_some() || self.cb_operand(v).is_some();
        if special(a) && !special(b) {
            (b, a)
        } else {
            (a, b)
        }
    }

    /// The form of `forms` and the operand for source value `v`, trying the encodings of
    /// `prefer` in order; `None` when `v` stays a register. A form qualifies only if it has
    /// every modifier of `mods`.
    pub(crate) fn legal_src(
        &mut self,
        forms: &SrcForms,
        v: Value,
        prefer: &[Enc],
        mods: Mods<'_>,
    ) -> Option<(Op, Operand)> {
        let wide = self.func.dfg.value_type(v) == Type::B64;
        for enc in prefer {
            // The form before the operand: a pooled constant takes its slot on first use.
            let Some(form) = forms.with_mods(*enc, mods) else {
                continue;
            };
            let operand = match enc {
                Enc::Imm | Enc::Imm32 => {
                    let Some(c) = self.konst(v) else { continue };
                    typed_imm_operand(form.form().operands[forms.k].kind, c, wide)
                }
                Enc::CBank if wide => self.const_operand64(v),
                Enc::CBank => self.const_operand(v),
            };
            if let Some(operand) = operand {
                return Some((form, operand));
            }
        }
        None
    }

    /// One instruction of one register form (`R` placeholders in `ops`; `slots` fill them
    /// from `args`) where the first source of `candidates` that can be encoded in the
    /// instruction is (see [`Isel::legal_src`]); the slot of each candidate source must be
    /// `Arg(j, 0)`, and folding it drops argument `j`.
    #[allow(clippy::too_many_arguments)] // the operand list of one instruction
    pub(crate) fn emit_legal(
        &mut self,
        candidates: &[SrcForms],
        prefer: &[Enc],
        ops: &[Operand],
        mods: Mods<'_>,
        slots: &[Slot],
        args: &[Value],
        ty: Type,
    ) -> Result<Value, IselError> {
        let Some(first) = candidates.first() else {
            return Err(IselError::Unsupported {
                inst: "legalize".into(),
                what: "an instruction without source forms".into(),
                pos: None,
            });
        };
        let mut chosen = None;
        for forms in candidates {
            let Some(Slot::Arg(j, 0)) = slots.get(forms.k).copied() else {
                return Err(IselError::Unsupported {
                    inst: forms.reg.name().into(),
                    what: format!("legalized source {} is not a whole argument", forms.k),
                    pos: None,
                });
            };
            if let Some(f) = self.legal_src(forms, args[j as usize], prefer, mods) {
                chosen = Some((forms.k, j, f));
                break;
            }
        }
        // Inline copies: three heap Vecs per legalized instruction were selection's largest
        // allocation count.
        let mut ops: SmallVec<[Operand; 8]> = SmallVec::from_slice(ops);
        let mut slots: SmallVec<[Slot; 8]> = SmallVec::from_slice(slots);
        let mut args: SmallVec<[Value; 4]> = SmallVec::from_slice(args);
        let op = match chosen {
            None => first.reg,
            Some((k, j, (op, o))) => {
                ops[k] = o;
                let re = |a: u8| if a > j { a - 1 } else { a };
                for (i, s) in slots.iter_mut().enumerate() {
                    *s = match *s {
                        _ if i == k => Slot::Keep,
                        Slot::Arg(a, p) => Slot::Arg(re(a), p),
                        Slot::ArgNot(a) => Slot::ArgNot(re(a)),
                        Slot::MemArg(a) => Slot::MemArg(re(a)),
                        Slot::CIdxArg(a) => Slot::CIdxArg(re(a)),
                        other => other,
                    };
                }
                args.remove(j as usize);
                op
            }
        };
        let inst = mods(MInst::build(op, &ops))?;
        Ok(self.emit(Template::one(TInst::new(inst, &slots)), &args, &[ty])?[0])
    }

    /// `OP d, a, b` of a three-operand register form `r` (`RD, RA, RB`), `b` in whatever
    /// form holds it best.
    pub(crate) fn bin(
        &mut self,
        r: Op,
        a: Value,
        b: Value,
        mods: Mods<'_>,
    ) -> Result<Value, IselError> {
        let forms = SrcForms::of(r, 2);
        let ops = [R; 3];
        let slots = [Slot::Res(0, 0), Slot::Arg(0, 0), Slot::Arg(1, 0)];
        self.emit_legal(&[forms], ANY, &ops, mods, &slots, &[a, b], Type::B32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sibling_forms_come_from_the_table() {
        let f = SrcForms::of(Op::IADD_R, 2);
        assert_eq!(
            (f.imm, f.cbank, f.imm32),
            (Some(Op::IADD_I), Some(Op::IADD_C), Some(Op::IADD32I))
        );
        let f = SrcForms::of(Op::FMUL_R, 2);
        assert_eq!(
            (f.imm, f.cbank, f.imm32),
            (Some(Op::FMUL_I), Some(Op::FMUL_C), Some(Op::FMUL32I))
        );
        // FFMA's addend: only the constant-bank form (FFMA32I's addend is its destination).
        let f = SrcForms::of(Op::FFMA_R, 3);
        assert_eq!((f.imm, f.cbank, f.imm32), (None, Some(Op::FFMA_RC), None));
        let f = SrcForms::of(Op::ISETP_R, 3);
        assert_eq!((f.imm, f.cbank), (Some(Op::ISETP_I), Some(Op::ISETP_C)));
        let f = SrcForms::of(Op::DFMA_R, 2);
        assert_eq!((f.imm, f.cbank), (Some(Op::DFMA_I), Some(Op::DFMA_C)));
        // LOP32I numbers its operands differently (no predicate result): not a sibling.
        assert_eq!(SrcForms::of(Op::LOP_R, 3).imm32, None);
    }

    /// A sibling form differs from the register form in operand `k` only: a form of the same
    /// mnemonic that also has another operand class or role elsewhere (another predicate
    /// layout, an immediate where the register form has a register) is not a sibling.
    #[test]
    fn sibling_forms_differ_in_the_chosen_operand_only() {
        let mut siblings = 0;
        for (i, f) in FORMS.iter().enumerate() {
            let reg = Op(i as u16);
            for k in 0..f.operands.len() {
                let s = SrcForms::search(reg, k);
                for sib in [s.imm, s.cbank, s.imm32].into_iter().flatten() {
                    siblings += 1;
                    let g = sib.form();
                    for (j, (a, b)) in g.operands.iter().zip(f.operands).enumerate() {
                        assert!(
                            j == k || (same_class(a.kind, b.kind) && a.role == b.role),
                            "{} operand {j} differs from {} ({k} chosen)",
                            sib.form().name,
                            f.name
                        );
                    }
                }
            }
        }
        assert!(siblings > 100, "only {siblings} sibling forms");
    }

    #[test]
    fn immediates_hold_their_constant_exactly() {
        assert_eq!(
            imm_operand(OpKind::I20, 0x7ffff),
            Some(Operand::Imm(0x7ffff))
        );
        assert_eq!(imm_operand(OpKind::I20, 0x80000), None);
        assert_eq!(
            imm_operand(OpKind::I20, 0xffff_ffff),
            Some(Operand::Imm(-1))
        );
        assert_eq!(
            imm_operand(OpKind::F20, 0x3f80_0000),
            Some(Operand::F32(0x3f80_0000))
        );
        assert_eq!(imm_operand(OpKind::F20, 0x3f80_0001), None);
        // Denormals flush: never an immediate.
        assert_eq!(imm_operand(OpKind::F20, 0x0000_1000), None);
        assert_eq!(
            imm_operand(OpKind::S32(20), 0xffff_fffe),
            Some(Operand::Imm(-2))
        );
    }

    #[test]
    fn a_constant_fits_an_immediate_field_of_its_width_only() {
        let one64 = 0x3ff0_0000_0000_0000;
        assert_eq!(
            typed_imm_operand(OpKind::D20, one64, true),
            Some(Operand::F64(one64))
        );
        // The same bits as a b32 value, and 1.0f as a b64 value, do not qualify.
        assert!(imm_operand(OpKind::D20, one64).is_some());
        assert_eq!(typed_imm_operand(OpKind::D20, one64, false), None);
        assert!(imm_operand(OpKind::F20, 0x3f80_0000).is_some());
        assert_eq!(typed_imm_operand(OpKind::F20, 0x3f80_0000, true), None);
        assert_eq!(
            typed_imm_operand(OpKind::F20, 0x3f80_0000, false),
            Some(Operand::F32(0x3f80_0000))
        );
    }

    #[test]
    fn a_form_without_a_requested_modifier_does_not_qualify() {
        use crate::spa5::target::SetMod;
        use isa_spa5::ModKind;
        // IADD32I has no negated second source.
        let neg: Mods<'_> = &|i| i.f(ModKind::Neg(2), 1);
        assert!(!has_mods(Op::IADD32I, neg));
        assert!(has_mods(Op::IADD_I, neg));
        let forms = SrcForms::of(Op::IADD_R, 2);
        assert_eq!(forms.with_mods(Enc::Imm32, neg), None);
        assert_eq!(forms.with_mods(Enc::Imm, neg), Some(Op::IADD_I));
        assert_eq!(forms.with_mods(Enc::Imm32, &no_mods), Some(Op::IADD32I));
    }
}
