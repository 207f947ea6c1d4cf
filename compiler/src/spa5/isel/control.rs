//! Instruction selection of predicate logic and selects: predicate constants and `and`/
//! `or`/`xor`/`not` as `PSETP` (or an `ISETP` that combines a compare used only there with
//! the other operand), `select` as `SEL` (one per word; a constant operand is its
//! immediate or `c[]` operand, the predicate negated when the constant was the first
//! choice), predicate selects as three `PSETP`s, and `bmask` as `SEL -1, RZ`.
//!
//! Requires and guarantees as [`super`].

use ilc_passes::ir::{InstructionData, IntCC, Opcode, Type, Value};
use isa_spa5::inst::Operand;
use isa_spa5::mods::Bop;
use isa_spa5::{Inst as MInst, Op, Pred, Reg};

use super::legalize::{no_mods, SrcForms, ANY};
use super::{one, Isel, IselError, Node, Vals};
use crate::spa5::target::{SetMod, Slot, TInst, Template, R};

use Slot::{Arg, Res};

impl Isel<'_> {
    /// Selects predicate logic or a select (see [`super::family`]).
    pub(super) fn select_control(&mut self, n: &Node) -> Result<Vals, IselError> {
        let (inst, data, op, args) = (n.inst, &n.data, n.op, &n.args);
        match op {
            Opcode::Pconst => {
                let InstructionData::UnaryImm { imm, .. } = data else {
                    return Err(self.unsupported(inst, "pconst form"));
                };
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
            Opcode::Select => self.select_value(args),
            Opcode::Bmask => {
                let inst = MInst::sel(R, Reg::RZ, -1i32, Pred::TRUE);
                one(self.one(
                    inst,
                    &[Res(0, 0), Slot::Keep, Slot::Keep, Slot::ArgNot(0)],
                    args,
                )?)
            }
            Opcode::Pand | Opcode::Por | Opcode::Pxor => {
                let bop = match op {
                    Opcode::Pand => Bop::And,
                    Opcode::Por => Bop::Or,
                    _ => Bop::Xor,
                };
                // A 32-bit compare used only here combines in an ISETP of its own,
                // `ISETP.cc.bop p, PT, a, b, q` (the compare's first ISETP becomes dead).
                for (x, q) in [(args[0], args[1]), (args[1], args[0])] {
                    if let Some((cc, a, b)) = self.sole_use_icmp(x) {
                        let (cmp, signed) = super::int::icc(cc);
                        return one(self.isetp(cmp, signed, false, a, b, bop, Some((q, false)))?);
                    }
                }
                one(self.psetp(bop, args[0], false, Some((args[1], false)))?)
            }
            Opcode::Pnot => one(self.psetp(Bop::And, args[0], true, None)?),
            // `VOTE.ALL RZ, p, q`: p holds in every active thread iff q does in all of them.
            Opcode::VoteAll => {
                let inst = MInst::build(
                    Op::VOTE,
                    &[
                        Operand::Reg(Reg::RZ),
                        Operand::Pred(Pred::p(0)),
                        Operand::Pred(Pred::TRUE),
                    ],
                )
                .with_name(isa_spa5::ModKind::VoteOp, "ALL");
                one(self.one_ty(inst, &[Slot::Keep, Res(0, 0), Arg(0, 0)], args, Type::Pred)?)
            }
            _ => Err(self.unsupported(inst, op.mnemonic())),
        }
    }

    /// The condition and operands of `x = icmp cc a, b` on `b32` values when `x` has no
    /// other use.
    fn sole_use_icmp(&self, x: Value) -> Option<(IntCC, Value, Value)> {
        let i = self.func.dfg.value_inst(x)?;
        let InstructionData::IntCompare { cond, args, .. } = self.func.dfg.insts[i] else {
            return None;
        };
        (self.use_count[x] == 1 && self.ty(args[0]) == Type::B32)
            .then_some((cond, args[0], args[1]))
    }

    /// `select p, t, f` of any type.
    pub(super) fn select_value(&mut self, args: &[Value]) -> Result<Vals, IselError> {
        let ty = self.ty(args[1]);
        if ty == Type::Pred {
            // `(c && t) || (!c && f)`; an arm that is a 32-bit compare used only here is
            // that compare's ISETP combining `c` (or `!c`).
            let mut arm = |x: Value, not: bool| match self.sole_use_icmp(x) {
                Some((cc, a, b)) => {
                    let (cmp, signed) = super::int::icc(cc);
                    self.isetp(cmp, signed, false, a, b, Bop::And, Some((args[0], not)))
                }
                None => self.psetp(Bop::And, args[0], not, Some((x, false))),
            };
            let t = arm(args[1], false)?;
            let f = arm(args[2], true)?;
            return one(self.psetp(Bop::Or, t, false, Some((f, false)))?);
        }
        if ty == Type::B32 && (self.const_like(args[1]) || self.const_like(args[2])) {
            // SEL's second operand may be an immediate or c[]: put the constant there
            // (negating the predicate when it was the first).
            let (t, f, not) = if self.const_like(args[2]) {
                (args[1], args[2], false)
            } else {
                (args[2], args[1], true)
            };
            let pslot = if not { Slot::ArgNot(1) } else { Arg(1, 0) };
            let forms = SrcForms::of(Op::SEL_R, 2);
            return match self.legal_src(&forms, f, &ANY[..2], &no_mods) {
                Some((op, opb)) => {
                    let inst = MInst::build(op, &[R, R, opb, Operand::Pred(Pred::TRUE)]);
                    one(self.one(
                        inst,
                        &[Res(0, 0), Arg(0, 0), Slot::Keep, pslot],
                        &[t, args[0]],
                    )?)
                }
                None => one(self.one(
                    MInst::sel(R, R, R, Pred::TRUE),
                    &[Res(0, 0), Arg(0, 0), Arg(1, 0), Arg(2, 0)],
                    &[args[1], args[2], args[0]],
                )?),
            };
        }
        let parts = if ty == Type::B64 { 2 } else { 1 };
        let seq: Vec<TInst> = (0..parts)
            .map(|p| {
                TInst::new(
                    MInst::sel(R, R, R, Pred::TRUE),
                    &[Res(0, p), Arg(1, p), Arg(2, p), Arg(0, 0)],
                )
            })
            .collect();
        self.emit(Template::many(&seq), args, &[ty])
    }

    /// `PSETP.bop p, PT, a (negated if anot), b (PT when None)`.
    pub(crate) fn psetp(
        &mut self,
        bop: Bop,
        a: Value,
        anot: bool,
        b: Option<(Value, bool)>,
    ) -> Result<Value, IselError> {
        let inst = MInst::new(Op::PSETP).t(bop)?;
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
}
