//! Operand handling and per-opcode ALU lowering.
//!
//! Sources: [`Lowerer::read_src`] yields one post-swizzle component with the modifiers of
//! the instruction's operand class ([`Ty`]) applied in the guide's order (invert, bias,
//! x2, sign, abs, neg, clamp for floats; abs then neg for integers; sign-bit abs/neg on the
//! high dwords for doubles). Destinations: [`Lowerer::write_dst`] applies the shift scale
//! and `_sat` to float results, forces `0`/`1` components, and writes the masked
//! components. Only components written with a result are computed, and each reads only the
//! source components it needs, so dead components never materialize.
//!
//! Each opcode reproduces the reference interpreter's definition
//! (`isa_amdil::interp::{fops, iops, dops}`) as a composition of IR opcodes.

use smallvec::SmallVec;

use ilc_passes::ir::{FloatCC, IntCC, Opcode as IrOp, Value};
use isa_amdil::ast::{self, DstComp, Instruction, RegKind, ShiftScale, SrcOperand, Swz, ZeroOp};
use isa_amdil::opcodes::Opcode;

use super::cfg::float_cc;
use super::{LResult, Lowerer};

/// Operand class of an instruction: decides how source modifiers and `_sat` apply.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Ty {
    /// Float: all modifiers, destination scale and `_sat`.
    Float,
    /// Integer: `_abs` is integer abs, `_neg` two's complement.
    Int,
    /// Double: abs/neg on the sign bits of `.y` and `.w`.
    Double,
    /// Typeless move: float modifiers, no destination scale/`_sat`.
    Untyped,
}

/// The bits of 1.0f32 (a forced `1` destination component, float constants).
pub(crate) const ONE: u32 = 0x3F80_0000;
const FLT_MAX: u32 = 0x7F7F_FFFF;
const INF: u32 = 0x7F80_0000;
const NEG_ZERO: u32 = 0x8000_0000;

/// Per-instruction cache of read source components.
///
/// A statement reads at most a few dozen (source, component, type) triples, usually one
/// to eight: a linear search of an inline list beats hashing, and costs no allocation for
/// the million statements of a large kernel.
#[derive(Default)]
pub(crate) struct Srcs {
    cache: SmallVec<[(SrcKey, Value); 8]>,
}

/// A read source component: operand index, post-swizzle component (0..3), operand class;
/// narrow, so that an entry is 12 bytes instead of 32.
type SrcKey = (u32, u8, Ty);

impl Srcs {
    /// Component `i` of source `k` read as `ty`.
    pub(crate) fn get(
        &mut self,
        l: &mut Lowerer,
        st: &Instruction,
        k: usize,
        i: usize,
        ty: Ty,
    ) -> LResult<Value> {
        let s = st
            .srcs
            .get(k)
            .ok_or_else(|| format!("needs source operand {k}"))?;
        // `k` indexes `st.srcs` (checked above), `i` a swizzle: neither is truncated.
        let key = (k as u32, i as u8, ty);
        if let Some(&(_, v)) = self.cache.iter().find(|(c, _)| *c == key) {
            return Ok(v);
        }
        let v = l.read_src(s, i, ty)?;
        self.cache.push((key, v));
        Ok(v)
    }
}

/// The error of a written destination component whose result was not computed.
fn not_computed(i: usize) -> String {
    format!("internal: component {i} of the result was not computed")
}

pub(crate) fn zero_value(z: Option<ZeroOp>) -> u32 {
    match z {
        None | Some(ZeroOp::FltMax) => FLT_MAX,
        Some(ZeroOp::Zero) => 0,
        Some(ZeroOp::Infinity) | Some(ZeroOp::InfElseMax) => INF,
    }
}

impl Lowerer<'_> {
    /// One post-swizzle component of a source operand with modifiers applied.
    pub(crate) fn read_src(&mut self, s: &SrcOperand, i: usize, ty: Ty) -> LResult<Value> {
        if s.mods.div_comp != ast::DivComp::None {
            return Err("the _divcomp source modifier is not supported".into());
        }
        let mut x = match s.swizzle[i] {
            Swz::Zero => self.iconst(0),
            Swz::One => self.iconst(ONE),
            sel => {
                let c = sel.component().map_or(0, |c| c.index());
                self.reg_comp(&s.reg, c)?
            }
        };
        let m = &s.mods;
        if m.is_empty() {
            return Ok(x);
        }
        match ty {
            Ty::Int => {
                if m.abs {
                    x = self.cursor().ins().iabs(x);
                }
                if m.neg & (1 << i) != 0 {
                    x = self.cursor().ins().ineg(x);
                }
            }
            Ty::Double => {
                if i == 1 || i == 3 {
                    if m.abs {
                        x = self.cursor().ins().fabs(x);
                    }
                    if m.neg & (3 << (i - 1)) != 0 {
                        x = self.cursor().ins().fneg(x);
                    }
                }
            }
            Ty::Float | Ty::Untyped => {
                if m.invert {
                    let one = self.iconst(ONE);
                    x = self.cursor().ins().fsub(one, x);
                }
                if m.bias {
                    let half = self.iconst(0x3F00_0000);
                    x = self.cursor().ins().fsub(x, half);
                }
                if m.x2 {
                    x = self.cursor().ins().fadd(x, x);
                }
                if m.sign {
                    x = self.sgn(x);
                }
                if m.abs {
                    x = self.cursor().ins().fabs(x);
                }
                if m.neg & (1 << i) != 0 {
                    x = self.cursor().ins().fneg(x);
                }
                if m.clamp {
                    x = self.sat(x);
                }
            }
        }
        Ok(x)
    }

    /// The write mask of the first destination, or none when the instruction has no
    /// destination that holds values (no operand, or `mem`).
    pub(crate) fn dst_writes(&self, st: &Instruction) -> [bool; 4] {
        match st.dsts.first() {
            Some(d) if d.reg.kind != RegKind::GenericMem => {
                let mut w = [false; 4];
                for (o, m) in w.iter_mut().zip(d.mask.iter()) {
                    *o = *m == DstComp::Write;
                }
                w
            }
            _ => [false; 4],
        }
    }

    /// Writes results to the first destination: scale and `_sat` for `Ty::Float`, forced
    /// 0/1 components, then the masked components. `res[i]` must be `Some` for every
    /// component the mask writes with a result.
    pub(crate) fn write_dst(
        &mut self,
        st: &Instruction,
        ty: Ty,
        res: [Option<Value>; 4],
    ) -> LResult<()> {
        let Some(d) = st.dsts.first() else {
            return Ok(());
        };
        if d.reg.kind == RegKind::GenericMem {
            return Ok(());
        }
        let mut out: [Option<Value>; 4] = [None; 4];
        let modified =
            matches!(ty, Ty::Float | Ty::Untyped) && (d.shift != ShiftScale::None || d.sat);
        for i in 0..4 {
            out[i] = match d.mask[i] {
                // What dst_comp returns for a result without scale or `_sat`, without
                // the call: most statements write plain results.
                DstComp::NoWrite => None,
                DstComp::Write if !modified => Some(res[i].ok_or_else(|| not_computed(i))?),
                _ => self.dst_comp(d, i, ty, res[i])?,
            };
        }
        self.store_reg(d, out)
    }

    /// What component `i` of destination `d` receives: nothing (not written), a forced 0 or
    /// 1, or the result `res` with the destination's scale and `_sat` applied when `ty` is
    /// float. `res` must be `Some` when the mask writes a result there.
    pub(crate) fn dst_comp(
        &mut self,
        d: &ast::DstOperand,
        i: usize,
        ty: Ty,
        res: Option<Value>,
    ) -> LResult<Option<Value>> {
        Ok(match d.mask[i] {
            DstComp::NoWrite => None,
            DstComp::Zero => Some(self.iconst(0)),
            DstComp::One => Some(self.iconst(ONE)),
            DstComp::Write => {
                let mut v = res.ok_or_else(|| not_computed(i))?;
                // Scale and `_sat` are float result modifiers; a typeless move (and the
                // interpreter's loads) take them as float too.
                if matches!(ty, Ty::Float | Ty::Untyped) {
                    let f = d.shift.factor();
                    if f != 1.0 {
                        let k = self.iconst(f.to_bits());
                        v = self.cursor().ins().fmul(v, k);
                    }
                    if d.sat {
                        v = self.sat(v);
                    }
                }
                Some(v)
            }
        })
    }

    /// Computes `f` for every written component (per-component operation).
    pub(crate) fn per_comp(
        &mut self,
        st: &Instruction,
        ty: Ty,
        n: usize,
        f: impl Fn(&mut Lowerer, &[Value]) -> LResult<Value>,
    ) -> LResult<()> {
        self.per_comp_as(st, ty, ty, n, f)
    }

    /// [`Self::per_comp`] with `n` sources read as `ty` and the results written as `wty`
    /// (compares: float sources, integer masks).
    pub(crate) fn per_comp_as(
        &mut self,
        st: &Instruction,
        ty: Ty,
        wty: Ty,
        n: usize,
        f: impl Fn(&mut Lowerer, &[Value]) -> LResult<Value>,
    ) -> LResult<()> {
        let w = self.dst_writes(st);
        let mut srcs = Srcs::default();
        let mut res = [None; 4];
        for i in 0..4 {
            if !w[i] {
                continue;
            }
            // Inline: one allocation per written component was a tenth of lowering.
            let mut args: SmallVec<[Value; 4]> = SmallVec::new();
            for k in 0..n {
                args.push(srcs.get(self, st, k, i, ty)?);
            }
            res[i] = Some(f(self, &args)?);
        }
        self.write_dst(st, wty, res)
    }

    /// Computes `f` once on component `comp` of the sources and broadcasts it.
    pub(crate) fn broadcast(
        &mut self,
        st: &Instruction,
        ty: Ty,
        wty: Ty,
        n: usize,
        comp: usize,
        f: impl Fn(&mut Lowerer, &[Value]) -> LResult<Value>,
    ) -> LResult<()> {
        let w = self.dst_writes(st);
        if !w.iter().any(|&b| b) {
            return self.write_dst(st, wty, [None; 4]);
        }
        let mut srcs = Srcs::default();
        let mut args: SmallVec<[Value; 4]> = SmallVec::new();
        for k in 0..n {
            args.push(srcs.get(self, st, k, comp, ty)?);
        }
        let v = f(self, &args)?;
        self.write_dst(st, wty, [Some(v); 4])
    }

    /// Computes `f` once on all four components of source 0 and broadcasts it.
    pub(crate) fn broadcast_all(
        &mut self,
        st: &Instruction,
        ty: Ty,
        wty: Ty,
        f: impl Fn(&mut Lowerer, &[Value]) -> LResult<Value>,
    ) -> LResult<()> {
        let w = self.dst_writes(st);
        if !w.iter().any(|&b| b) {
            return Ok(());
        }
        let mut srcs = Srcs::default();
        let mut v: SmallVec<[Value; 4]> = SmallVec::new();
        for k in 0..4 {
            v.push(srcs.get(self, st, 0, k, ty)?);
        }
        let r = f(self, &v)?;
        self.write_dst(st, wty, [Some(r); 4])
    }

    // ---- float helpers ----

    pub(crate) fn sgn(&mut self, x: Value) -> Value {
        let z = self.iconst(0);
        let m1 = self.iconst((-1.0f32).to_bits());
        let one = self.iconst(ONE);
        let lt = self.cursor().ins().fcmp(FloatCC::Olt, x, z);
        let eq = self.cursor().ins().fcmp(FloatCC::Oeq, x, z);
        let nz = self.cursor().ins().select(eq, z, one);
        self.cursor().ins().select(lt, m1, nz)
    }

    /// `_sat`: clamp to [0, 1] with NaN and -0 giving +0 (the interpreter's `sat`). The
    /// IR's `fsat` keeps -0, so a `fmax` with +0 follows it.
    pub(crate) fn sat(&mut self, x: Value) -> Value {
        let s = self.cursor().ins().fsat(x);
        let z = self.iconst(0);
        self.cursor().ins().fmax(s, z)
    }

    /// Flushes a denormal to a same-signed zero (x + -0.0 is exact for everything else).
    pub(crate) fn flush(&mut self, x: Value) -> Value {
        let nz = self.iconst(NEG_ZERO);
        self.cursor().ins().fadd(x, nz)
    }

    pub(crate) fn is_fzero(&mut self, x: Value) -> Value {
        let z = self.iconst(0);
        self.cursor().ins().fcmp(FloatCC::Oeq, x, z)
    }

    /// Legacy fused `mad`: `0 * x + c = +0 + c` (Inf and NaN included), else `fma`.
    pub(crate) fn mad_legacy(&mut self, a: Value, b: Value, c: Value) -> Value {
        self.cursor().ins().fmad_legacy(a, b, c)
    }

    /// `dp2/dp3/dp4`: products accumulated in order with fused multiply-adds (legacy zero
    /// rule without `_ieee`: a zero factor adds `+0`).
    pub(crate) fn dot(&mut self, a: &[Value], b: &[Value], ieee: bool) -> Value {
        let mut acc = if ieee {
            self.cursor().ins().fmul(a[0], b[0])
        } else {
            self.cursor().ins().fmul_legacy(a[0], b[0])
        };
        for i in 1..a.len() {
            acc = if ieee {
                self.cursor().ins().ffma(a[i], b[i], acc)
            } else {
                self.mad_legacy(a[i], b[i], acc)
            };
        }
        acc
    }

    /// `x == 0 ? k : v`.
    pub(crate) fn if_zero(&mut self, x: Value, k: u32, v: Value) -> Value {
        let z = self.is_fzero(x);
        let kv = self.iconst(k);
        self.cursor().ins().select(z, kv, v)
    }

    /// `min3`/`max3`/`med3` and their integer forms, per component, from the two-operand
    /// `min` and `max` of the type: `min(min(a, b), c)`, `max(max(a, b), c)`, and the median
    /// `max(min(a, b), min(max(a, b), c))` (the interpreter's definitions).
    fn lower_three(&mut self, st: &Instruction, ty: Ty, min: IrOp, max: IrOp) -> LResult<()> {
        use Opcode as O;
        let op = st.opcode;
        self.per_comp(st, ty, 3, move |l, a| {
            let (first, second) = match op {
                O::Min3 | O::IMin3 | O::UMin3 => (min, min),
                O::Max3 | O::IMax3 | O::UMax3 => (max, max),
                _ => {
                    let lo = l.cursor().ins().binary(min, a[0], a[1]);
                    let hi = l.cursor().ins().binary(max, a[0], a[1]);
                    let hi = l.cursor().ins().binary(min, hi, a[2]);
                    return Ok(l.cursor().ins().binary(max, lo, hi));
                }
            };
            let m = l.cursor().ins().binary(first, a[0], a[1]);
            Ok(l.cursor().ins().binary(second, m, a[2]))
        })
    }

    pub(crate) fn unary_ir(&mut self, op: IrOp, x: Value) -> Value {
        self.cursor().ins().unary(op, x)
    }

    pub(crate) fn binary_ir(&mut self, op: IrOp, a: Value, b: Value) -> Value {
        self.cursor().ins().binary(op, a, b)
    }

    pub(crate) fn bool_mask(&mut self, p: Value) -> Value {
        self.cursor().ins().bmask(p)
    }

    pub(crate) fn bool01(&mut self, p: Value) -> Value {
        let one = self.iconst(1);
        let zero = self.iconst(0);
        self.cursor().ins().select(p, one, zero)
    }

    /// Lowers a value-producing (non-flow, non-declaration) instruction: each opcode family
    /// in its own function, memory and resource instructions last.
    pub(crate) fn lower_op(&mut self, st: &Instruction) -> LResult<()> {
        let families: [fn(&mut Self, &Instruction) -> LResult<bool>; 5] = [
            Self::lower_float_op,
            Self::lower_float_vector_op,
            Self::lower_int_op,
            Self::lower_bit_op,
            Self::lower_wide_op,
        ];
        for family in families {
            if family(self, st)? {
                return Ok(());
            }
        }
        self.lower_memory(st)
    }

    /// Float operations per component (and compares), `false` for an opcode of another
    /// family.
    fn lower_float_op(&mut self, st: &Instruction) -> LResult<bool> {
        use Opcode as O;
        let f = Ty::Float;
        let i = Ty::Int;
        let ieee = st.ieee();
        let z = st.zeroop();
        let lowered = match st.opcode {
            // ---- float, per component ----
            O::Mov | O::InvMov => self.per_comp(st, Ty::Untyped, 1, |_, a| Ok(a[0])),
            O::Abs => self.per_comp(st, f, 1, |l, a| {
                let x = l.cursor().ins().fabs(a[0]);
                Ok(l.flush(x))
            }),
            O::Add => self.per_comp(st, f, 2, bin(IrOp::Fadd)),
            O::Sub => self.per_comp(st, f, 2, bin(IrOp::Fsub)),
            O::Mul if ieee => self.per_comp(st, f, 2, bin(IrOp::Fmul)),
            O::Mul => self.per_comp(st, f, 2, bin(IrOp::FmulLegacy)),
            O::Mad if ieee => {
                self.per_comp(st, f, 3, |l, a| Ok(l.cursor().ins().ffma(a[0], a[1], a[2])))
            }
            O::Mad => self.per_comp(st, f, 3, |l, a| Ok(l.mad_legacy(a[0], a[1], a[2]))),
            O::Fma => self.per_comp(st, f, 3, |l, a| Ok(l.cursor().ins().ffma(a[0], a[1], a[2]))),
            O::Div => {
                let zv = zero_value(z);
                self.per_comp(st, f, 2, move |l, a| {
                    let q = l.cursor().ins().fdiv(a[0], a[1]);
                    let zr = l.iconst(0);
                    let neg = l.cursor().ins().fcmp(FloatCC::Olt, a[0], zr);
                    let pos_k = l.iconst(zv);
                    let neg_k = l.iconst(zv ^ NEG_ZERO);
                    let k = l.cursor().ins().select(neg, neg_k, pos_k);
                    let bz = l.is_fzero(a[1]);
                    Ok(l.cursor().ins().select(bz, k, q))
                })
            }
            O::Min => self.per_comp(st, f, 2, bin(IrOp::Fmin)),
            O::Max => self.per_comp(st, f, 2, bin(IrOp::Fmax)),
            O::Clamp => self.per_comp(st, f, 3, |l, a| {
                let lt = l.cursor().ins().fcmp(FloatCC::Olt, a[0], a[1]);
                let t = l.cursor().ins().select(lt, a[1], a[0]);
                let gt = l.cursor().ins().fcmp(FloatCC::Ogt, t, a[2]);
                let r = l.cursor().ins().select(gt, a[2], t);
                Ok(l.flush(r))
            }),
            O::Flr | O::RoundNegInf => self.per_comp(st, f, 1, un(IrOp::Ffloor)),
            O::Frc => self.per_comp(st, f, 1, |l, a| {
                let fl = l.cursor().ins().ffloor(a[0]);
                Ok(l.cursor().ins().fsub(a[0], fl))
            }),
            O::RoundNear => self.per_comp(st, f, 1, un(IrOp::FroundEven)),
            O::RoundPlusInf => self.per_comp(st, f, 1, un(IrOp::Fceil)),
            O::RoundZero => self.per_comp(st, f, 1, un(IrOp::Ftrunc)),
            O::Rnd => self.per_comp(st, f, 1, |l, a| {
                let h = l.iconst(0x3F00_0000);
                let s = l.cursor().ins().fadd(a[0], h);
                Ok(l.cursor().ins().ffloor(s))
            }),
            O::Sgn => self.per_comp(st, f, 1, |l, a| Ok(l.sgn(a[0]))),
            O::Pireduce => self.per_comp(st, f, 1, |l, a| {
                use std::f32::consts::{PI, TAU};
                let k = l.iconst((1.0 / TAU).to_bits());
                let t = l.cursor().ins().fmul(a[0], k);
                let h = l.iconst(0x3F00_0000);
                let t = l.cursor().ins().fadd(t, h);
                let fl = l.cursor().ins().ffloor(t);
                let t = l.cursor().ins().fsub(t, fl);
                let k = l.iconst(TAU.to_bits());
                let t = l.cursor().ins().fmul(t, k);
                let k = l.iconst(PI.to_bits());
                Ok(l.cursor().ins().fsub(t, k))
            }),
            O::Lrp => self.per_comp(st, f, 3, |l, a| {
                let one = l.iconst(ONE);
                let om = l.cursor().ins().fsub(one, a[0]);
                let p = l.cursor().ins().fmul(a[1], a[0]);
                let q = l.cursor().ins().fmul(a[2], om);
                Ok(l.cursor().ins().fadd(p, q))
            }),
            O::ExpVec => self.per_comp(st, f, 1, un(IrOp::Fexp2)),
            O::LogVec => self.per_comp(st, f, 1, un(IrOp::Flog2)),
            O::RsqVec => self.per_comp(st, f, 1, un(IrOp::Frsq)),
            O::SqrtVec => self.per_comp(st, f, 1, un(IrOp::Fsqrt)),
            O::SinVec => self.per_comp(st, f, 1, un(IrOp::Fsin)),
            O::CosVec => self.per_comp(st, f, 1, un(IrOp::Fcos)),
            O::RcpVec => self.per_comp(st, f, 1, |l, a| {
                let r = l.cursor().ins().frcp(a[0]);
                Ok(l.if_zero(a[0], FLT_MAX, r))
            }),
            O::Cmov => self.lower_cmov(st),
            O::CmovLogical => self.per_comp(st, Ty::Untyped, 3, |l, a| {
                let zr = l.iconst(0);
                let c = l.cursor().ins().icmp(IntCC::Ne, a[0], zr);
                Ok(l.cursor().ins().select(c, a[1], a[2]))
            }),
            O::Eq | O::Ne | O::Ge | O::Lt => {
                let cc = match st.opcode {
                    O::Eq => FloatCC::Oeq,
                    O::Ne => FloatCC::Une,
                    O::Ge => FloatCC::Oge,
                    _ => FloatCC::Olt,
                };
                self.per_comp_as(st, f, i, 2, move |l, a| {
                    let p = l.cursor().ins().fcmp(cc, a[0], a[1]);
                    Ok(l.bool_mask(p))
                })
            }
            O::Set => {
                let r = st
                    .relop()
                    .ok_or_else(|| "`set` needs _relop(..)".to_string())?;
                let cc = float_cc(r);
                self.per_comp(st, f, 2, move |l, a| {
                    let p = l.cursor().ins().fcmp(cc, a[0], a[1]);
                    let one = l.iconst(ONE);
                    let zr = l.iconst(0);
                    Ok(l.cursor().ins().select(p, one, zr))
                })
            }
            O::Cmp => {
                let r = st
                    .relop()
                    .ok_or_else(|| "`cmp` needs _relop(..)".to_string())?;
                let cc = float_cc(r);
                let v = st.cmp_value();
                self.per_comp(st, f, 3, move |l, a| {
                    let k = l.iconst(v.to_bits());
                    let p = l.cursor().ins().fcmp(cc, a[0], k);
                    Ok(l.cursor().ins().select(p, a[1], a[2]))
                })
            }
            _ => return Ok(false),
        };
        lowered.map(|()| true)
    }

    /// Float operations on `.w` broadcast to every component (7.11's scalar forms), dot
    /// products, and the vector forms that write a different value per component;
    /// `false` for an opcode of another family.
    fn lower_float_vector_op(&mut self, st: &Instruction) -> LResult<bool> {
        use Opcode as O;
        let f = Ty::Float;
        let ieee = st.ieee();
        let z = st.zeroop();
        let lowered = match st.opcode {
            // ---- float scalar on .w, broadcast ----
            O::Rcp => {
                let zv = zero_value(z);
                self.broadcast(st, f, f, 1, 3, move |l, a| {
                    let r = l.cursor().ins().frcp(a[0]);
                    Ok(l.if_zero(a[0], zv, r))
                })
            }
            O::Rsq => {
                let zv = zero_value(z);
                self.broadcast(st, f, f, 1, 3, move |l, a| {
                    let r = l.cursor().ins().frsq(a[0]);
                    Ok(l.if_zero(a[0], zv, r))
                })
            }
            O::Log => {
                let zv = zero_value(z) ^ NEG_ZERO;
                self.broadcast(st, f, f, 1, 3, move |l, a| {
                    let r = l.cursor().ins().flog2(a[0]);
                    Ok(l.if_zero(a[0], zv, r))
                })
            }
            O::Ln => {
                let zv = zero_value(z) ^ NEG_ZERO;
                self.broadcast(st, f, f, 1, 3, move |l, a| {
                    let r = l.cursor().ins().flog2(a[0]);
                    let k = l.iconst(std::f32::consts::LN_2.to_bits());
                    let r = l.cursor().ins().fmul(r, k);
                    Ok(l.if_zero(a[0], zv, r))
                })
            }
            O::Sqrt => self.broadcast(st, f, f, 1, 3, un(IrOp::Fsqrt)),
            O::Exp => self.broadcast(st, f, f, 1, 3, un(IrOp::Fexp2)),
            O::Exn => self.broadcast(st, f, f, 1, 3, |l, a| {
                let k = l.iconst(std::f32::consts::LOG2_E.to_bits());
                let x = l.cursor().ins().fmul(a[0], k);
                Ok(l.cursor().ins().fexp2(x))
            }),
            O::Mod => self.per_comp(st, f, 2, |l, a| Ok(l.fmod_f32(a[0], a[1]))),
            O::Lit => self.lower_lit(st),
            O::Tan => self.broadcast(st, f, f, 1, 3, |l, a| Ok(l.tan_f32(a[0]))),
            O::Asin => self.broadcast(st, f, f, 1, 3, |l, a| Ok(l.asin_f32(a[0]))),
            O::Acos => self.broadcast(st, f, f, 1, 3, |l, a| Ok(l.acos_f32(a[0]))),
            O::Atan => self.broadcast(st, f, f, 1, 3, |l, a| Ok(l.atan_f32(a[0]))),
            O::Sin => self.broadcast(st, f, f, 1, 3, un(IrOp::Fsin)),
            O::Cos => self.broadcast(st, f, f, 1, 3, un(IrOp::Fcos)),
            O::Pow => self.broadcast(st, f, f, 2, 3, |l, a| {
                let lg = l.cursor().ins().flog2(a[0]);
                let p = l.cursor().ins().fmul(a[1], lg);
                Ok(l.cursor().ins().fexp2(p))
            }),
            O::Dp2 | O::Dp3 | O::Dp4 => {
                let n = match st.opcode {
                    O::Dp2 => 2,
                    O::Dp3 => 3,
                    _ => 4,
                };
                self.lower_dot(st, n, ieee, false)
            }
            O::Dp2add => self.lower_dot(st, 2, false, true),
            O::Crs => self.lower_crs(st),
            O::Sincos => self.lower_sincos(st),
            O::Nrm => self.lower_nrm(st),
            O::Len => self.broadcast_all(st, f, f, |l, v| {
                let d = l.dot(&v[..3], &v[..3], true);
                Ok(l.cursor().ins().fsqrt(d))
            }),
            O::Faceforward => self.lower_faceforward(st),
            O::Expp => self.lower_expp(st),
            O::Logp => self.lower_logp(st, zero_value(z) ^ NEG_ZERO),
            O::Mmul => self.lower_mmul(st),
            O::Reflect => self.lower_reflect(st),
            O::Dst => self.lower_dist(st),
            _ => return Ok(false),
        };
        lowered.map(|()| true)
    }

    /// Conversions between float and integer, and integer arithmetic;
    /// `false` for an opcode of another family.
    fn lower_int_op(&mut self, st: &Instruction) -> LResult<bool> {
        use Opcode as O;
        let f = Ty::Float;
        let i = Ty::Int;
        let lowered = match st.opcode {
            // ---- conversions ----
            O::Ftoi => self.per_comp(st, f, 1, un(IrOp::F2i)),
            O::FtoiFlr => self.per_comp(st, f, 1, |l, a| {
                let x = l.cursor().ins().ffloor(a[0]);
                Ok(l.cursor().ins().f2i(x))
            }),
            O::FtoiRpi => self.per_comp(st, f, 1, |l, a| {
                let x = l.cursor().ins().fceil(a[0]);
                Ok(l.cursor().ins().f2i(x))
            }),
            O::Ftou => self.per_comp(st, f, 1, un(IrOp::F2u)),
            O::Itof => self.per_comp(st, i, 1, un(IrOp::I2f)),
            O::Utof => self.per_comp(st, i, 1, un(IrOp::U2f)),
            O::F2F16 | O::F2F16Near => self.per_comp(st, f, 1, |l, a| {
                // The interpreter writes NaN as the half 0x7FFF (no sign).
                let h = l.cursor().ins().f32to16(a[0]);
                let nan = l.cursor().ins().fcmp(FloatCC::Uno, a[0], a[0]);
                let k = l.iconst(0x7FFF);
                Ok(l.cursor().ins().select(nan, k, h))
            }),
            O::F162F => self.per_comp(st, i, 1, un(IrOp::F16to32)),
            // ---- integer ----
            O::IAdd => self.per_comp(st, i, 2, bin(IrOp::Iadd)),
            O::INegate => self.per_comp(st, i, 1, un(IrOp::Ineg)),
            O::IMul | O::UMul => self.per_comp(st, i, 2, bin(IrOp::Imul)),
            O::IMad | O::UMad => {
                self.per_comp(st, i, 3, |l, a| Ok(l.cursor().ins().imad(a[0], a[1], a[2])))
            }
            O::IMulHigh => self.per_comp(st, i, 2, bin(IrOp::Imulhi)),
            O::UMulHigh => self.per_comp(st, i, 2, bin(IrOp::Umulhi)),
            O::IMul24 | O::IMad24 | O::IMul24High => {
                let op = st.opcode;
                let n = if op == O::IMad24 { 3 } else { 2 };
                self.per_comp(st, i, n, move |l, a| {
                    let w = l.iconst(24);
                    let o = l.iconst(0);
                    let x = l.cursor().ins().ibfe(w, o, a[0]);
                    let y = l.cursor().ins().ibfe(w, o, a[1]);
                    Ok(match op {
                        O::IMul24 => l.cursor().ins().imul(x, y),
                        O::IMad24 => l.cursor().ins().imad(x, y, a[2]),
                        _ => l.cursor().ins().imulhi(x, y),
                    })
                })
            }
            O::UMul24 | O::UMad24 | O::UMul24High => {
                let op = st.opcode;
                let n = if op == O::UMad24 { 3 } else { 2 };
                self.per_comp(st, i, n, move |l, a| {
                    let m = l.iconst(0x00FF_FFFF);
                    let x = l.cursor().ins().band(a[0], m);
                    let y = l.cursor().ins().band(a[1], m);
                    Ok(match op {
                        O::UMul24 => l.cursor().ins().imul(x, y),
                        O::UMad24 => l.cursor().ins().imad(x, y, a[2]),
                        _ => l.cursor().ins().umulhi(x, y),
                    })
                })
            }
            O::UDiv => self.per_comp(st, i, 2, bin(IrOp::Udiv)),
            O::UMod => self.per_comp(st, i, 2, bin(IrOp::Urem)),
            O::And => self.per_comp(st, i, 2, bin(IrOp::Band)),
            O::IOr => self.per_comp(st, i, 2, bin(IrOp::Bor)),
            O::IXor => self.per_comp(st, i, 2, bin(IrOp::Bxor)),
            O::INot => self.per_comp(st, i, 1, un(IrOp::Bnot)),
            O::IShl => self.per_comp(st, i, 2, bin(IrOp::Ishl)),
            O::IShr => self.per_comp(st, i, 2, bin(IrOp::Ishr)),
            O::UShr => self.per_comp(st, i, 2, bin(IrOp::Ushr)),
            O::IEq | O::INe | O::IGe | O::ILt | O::UGe | O::ULt => {
                let cc = match st.opcode {
                    O::IEq => IntCC::Eq,
                    O::INe => IntCC::Ne,
                    O::IGe => IntCC::Sge,
                    O::ILt => IntCC::Slt,
                    O::UGe => IntCC::Uge,
                    _ => IntCC::Ult,
                };
                self.per_comp(st, i, 2, move |l, a| {
                    let p = l.cursor().ins().icmp(cc, a[0], a[1]);
                    Ok(l.bool_mask(p))
                })
            }
            O::Min3 | O::Max3 | O::Med3 => self.lower_three(st, f, IrOp::Fmin, IrOp::Fmax),
            O::IMin3 | O::IMax3 | O::IMed3 => self.lower_three(st, i, IrOp::Imin, IrOp::Imax),
            O::UMin3 | O::UMax3 | O::UMed3 => self.lower_three(st, i, IrOp::Umin, IrOp::Umax),
            O::IMin => self.per_comp(st, i, 2, bin(IrOp::Imin)),
            O::IMax => self.per_comp(st, i, 2, bin(IrOp::Imax)),
            O::UMin => self.per_comp(st, i, 2, bin(IrOp::Umin)),
            O::UMax => self.per_comp(st, i, 2, bin(IrOp::Umax)),
            O::ICarry => self.per_comp(st, i, 2, |l, a| {
                let s = l.cursor().ins().iadd(a[0], a[1]);
                let p = l.cursor().ins().icmp(IntCC::Ult, s, a[0]);
                Ok(l.bool01(p))
            }),
            O::IBorrow => self.per_comp(st, i, 2, |l, a| {
                let p = l.cursor().ins().icmp(IntCC::Ult, a[0], a[1]);
                Ok(l.bool01(p))
            }),
            _ => return Ok(false),
        };
        lowered.map(|()| true)
    }

    /// Bit counts, bit fields and the other bit operations; `false` for an opcode
    /// of another family.
    fn lower_bit_op(&mut self, st: &Instruction) -> LResult<bool> {
        use Opcode as O;
        let i = Ty::Int;
        let lowered = match st.opcode {
            // ---- bit operations ----
            O::ICountbits => self.per_comp(st, i, 1, un(IrOp::Popcnt)),
            O::IFirstbit => {
                let op = if st.generic("shi").is_some() {
                    IrOp::FirstbitShi
                } else if st.generic("hi").is_some() {
                    IrOp::FirstbitHi
                } else {
                    IrOp::FirstbitLo
                };
                self.per_comp(st, i, 1, un(op))
            }
            O::IBitExtract => {
                self.per_comp(st, i, 3, |l, a| Ok(l.cursor().ins().ibfe(a[0], a[1], a[2])))
            }
            O::UBitExtract => {
                self.per_comp(st, i, 3, |l, a| Ok(l.cursor().ins().ubfe(a[0], a[1], a[2])))
            }
            O::UBitInsert => self.per_comp(st, i, 4, |l, a| {
                Ok(l.cursor().ins().bfi(a[0], a[1], a[2], a[3]))
            }),
            O::UBitReverse => self.per_comp(st, i, 1, un(IrOp::Bitrev)),
            O::BitAlign | O::ByteAlign => {
                let bytes = st.opcode == O::ByteAlign;
                // A funnel shift (`fshr` takes the amount mod 32, so `8 * (s & 3)` is
                // `(s << 3) mod 32`).
                self.per_comp(st, i, 3, move |l, a| {
                    let s = if bytes {
                        let three = l.iconst(3);
                        l.cursor().ins().ishl(a[2], three)
                    } else {
                        a[2]
                    };
                    Ok(l.cursor().ins().fshr(a[1], a[0], s))
                })
            }
            O::Sad => self.per_comp(st, i, 3, |l, a| Ok(l.sad(a[0], a[1], a[2]))),
            O::SadHi => self.per_comp(st, i, 3, |l, a| {
                let zero = l.iconst(0);
                let s = l.sad(a[0], a[1], zero);
                let k = l.iconst(16);
                let s = l.cursor().ins().ishl(s, k);
                Ok(l.cursor().ins().iadd(s, a[2]))
            }),
            O::U4lerp => self.per_comp(st, i, 3, |l, a| {
                let mut r = l.iconst(0);
                for k in 0..4 {
                    let w8 = l.iconst(8);
                    let w1 = l.iconst(1);
                    let o = l.iconst(8 * k);
                    let x = l.cursor().ins().ubfe(w8, o, a[0]);
                    let y = l.cursor().ins().ubfe(w8, o, a[1]);
                    let z = l.cursor().ins().ubfe(w1, o, a[2]);
                    let s = l.cursor().ins().iadd(x, y);
                    let s = l.cursor().ins().iadd(s, z);
                    let one = l.iconst(1);
                    let h = l.cursor().ins().ushr(s, one);
                    r = l.cursor().ins().bfi(w8, o, h, r);
                }
                Ok(r)
            }),
            O::F2U4 => self.broadcast_all(st, Ty::Float, Ty::Float, |l, v| {
                let mut r = l.iconst(0);
                for (k, &x) in v.iter().enumerate() {
                    let zero = l.iconst(0);
                    let top = l.iconst(255.0f32.to_bits());
                    // fmax(NaN, 0) = 0, so NaN packs as 0 like the interpreter's clamp.
                    let c = l.cursor().ins().fmax(x, zero);
                    let c = l.cursor().ins().fmin(c, top);
                    let b = l.cursor().ins().f2u(c);
                    let w8 = l.iconst(8);
                    let o = l.iconst(8 * k as u32);
                    r = l.cursor().ins().bfi(w8, o, b, r);
                }
                Ok(r)
            }),
            O::Sad4 => self.lower_sad4(st),
            O::Unpack0 | O::Unpack1 | O::Unpack2 | O::Unpack3 => {
                let n = match st.opcode {
                    O::Unpack0 => 0,
                    O::Unpack1 => 1,
                    O::Unpack2 => 2,
                    _ => 3,
                };
                self.per_comp(st, i, 1, move |l, a| {
                    let w = l.iconst(8);
                    let o = l.iconst(8 * n);
                    let b = l.cursor().ins().ubfe(w, o, a[0]);
                    Ok(l.cursor().ins().u2f(b))
                })
            }
            _ => return Ok(false),
        };
        lowered.map(|()| true)
    }

    /// Double-precision and 64-bit integer operations on register pairs;
    /// `false` for an opcode of another family.
    fn lower_wide_op(&mut self, st: &Instruction) -> LResult<bool> {
        use Opcode as O;
        let i = Ty::Int;
        let z = st.zeroop();
        let lowered = match st.opcode {
            // ---- double and 64-bit integer ----
            O::DAdd => self.wide(st, Ty::Double, 2, |l, a| {
                Ok(l.binary_ir(IrOp::Dadd, a[0], a[1]))
            }),
            O::DMul => self.wide(st, Ty::Double, 2, |l, a| {
                Ok(l.binary_ir(IrOp::Dmul, a[0], a[1]))
            }),
            O::DDiv => self.wide(st, Ty::Double, 2, |l, a| {
                Ok(l.binary_ir(IrOp::Ddiv, a[0], a[1]))
            }),
            O::DMuladd => self.wide(st, Ty::Double, 3, |l, a| {
                Ok(l.cursor().ins().dfma(a[0], a[1], a[2]))
            }),
            O::DMax => self.wide(st, Ty::Double, 2, |l, a| {
                Ok(l.binary_ir(IrOp::Dmax, a[0], a[1]))
            }),
            O::DMin => self.wide(st, Ty::Double, 2, |l, a| {
                Ok(l.binary_ir(IrOp::Dmin, a[0], a[1]))
            }),
            O::DSqrt => self.wide(st, Ty::Double, 1, |l, a| Ok(l.unary_ir(IrOp::Dsqrt, a[0]))),
            O::DMov => self.wide(st, Ty::Double, 1, |_, a| Ok(a[0])),
            O::DRcp | O::DRsq => {
                let rsq = st.opcode == O::DRsq;
                let zv: f64 = match z {
                    None | Some(ZeroOp::FltMax) => f64::MAX,
                    Some(ZeroOp::Zero) => 0.0,
                    _ => f64::INFINITY,
                };
                self.wide(st, Ty::Double, 1, move |l, a| {
                    let r = if rsq {
                        let s = l.cursor().ins().dsqrt(a[0]);
                        let one = l.cursor().ins().f64const(1.0);
                        l.cursor().ins().ddiv(one, s)
                    } else {
                        l.cursor().ins().drcp(a[0])
                    };
                    let zero = l.cursor().ins().f64const(0.0);
                    let isz = l.cursor().ins().dcmp(FloatCC::Oeq, a[0], zero);
                    let k = l.cursor().ins().f64const(zv);
                    Ok(l.cursor().ins().select(isz, k, r))
                })
            }
            O::DFrac => self.wide(st, Ty::Double, 1, |l, a| {
                let f = l.cursor().ins().dfloor(a[0]);
                Ok(l.cursor().ins().dsub(a[0], f))
            }),
            O::DLdexp => {
                if !self.dst_writes(st).iter().any(|&b| b) {
                    return Ok(true);
                }
                let x = self.wide_src(st, 0, Ty::Double)?;
                let s1 = st.srcs.get(1).ok_or("needs source operand 1")?;
                let n = self.read_src(s1, 0, Ty::Int)?;
                let r = self.dldexp(x, n);
                self.write_wide(st, Ty::Double, r)
            }
            O::DFrexp | O::DFrexpExp | O::DFrexpMant => self.lower_dfrexp(st),
            O::FrexpMant | O::FrexpExp => {
                let mant = st.opcode == O::FrexpMant;
                self.per_comp(st, Ty::Float, 1, move |l, a| {
                    let (m, e) = l.frexp_f32(a[0]);
                    Ok(if mant { m } else { e })
                })
            }
            O::Ldexp => self.per_comp(st, Ty::Float, 2, |l, a| Ok(l.ldexp_f32(a[0], a[1]))),
            O::Deq | O::Dne | O::Dge | O::Dlt => {
                let cc = match st.opcode {
                    O::Deq => FloatCC::Oeq,
                    O::Dne => FloatCC::Une,
                    O::Dge => FloatCC::Oge,
                    _ => FloatCC::Olt,
                };
                self.wide_cmp(st, Ty::Double, move |l, a, b| {
                    l.cursor().ins().dcmp(cc, a, b)
                })
            }
            O::D2F => {
                let w = self.dst_writes(st);
                if !w.iter().any(|&b| b) {
                    return Ok(true);
                }
                let x = self.wide_src(st, 0, Ty::Double)?;
                let v = self.cursor().ins().d2f(x);
                self.write_dst(st, Ty::Untyped, [Some(v); 4])
            }
            O::Dtoi | O::Dtou | O::Itod | O::Utod => {
                let w = self.dst_writes(st);
                if !w.iter().any(|&b| b) {
                    return Ok(true);
                }
                let (op, from_double) = match st.opcode {
                    O::Dtoi => (IrOp::D2i, true),
                    O::Dtou => (IrOp::D2u, true),
                    O::Itod => (IrOp::I2d, false),
                    _ => (IrOp::U2d, false),
                };
                if from_double {
                    let x = self.wide_src(st, 0, Ty::Double)?;
                    let v = self.unary_ir(op, x);
                    self.write_dst(st, Ty::Int, [Some(v); 4])
                } else {
                    let s = st.srcs.first().ok_or("needs a source operand")?;
                    let x = self.read_src(s, 0, Ty::Int)?;
                    let d = self.unary_ir(op, x);
                    self.write_wide(st, Ty::Double, d)
                }
            }
            O::F2D => {
                let w = self.dst_writes(st);
                if !w.iter().any(|&b| b) {
                    return Ok(true);
                }
                let s = st.srcs.first().ok_or("needs a source operand")?;
                let x = self.read_src(s, 0, Ty::Float)?;
                let d = self.cursor().ins().f2d(x);
                self.write_wide(st, Ty::Double, d)
            }
            O::DMovc => {
                let w = self.dst_writes(st);
                let mut srcs = Srcs::default();
                let mut res = [None; 4];
                if w.iter().any(|&b| b) {
                    let c = srcs.get(self, st, 0, 0, Ty::Double)?;
                    let zr = self.iconst(0);
                    let p = self.cursor().ins().icmp(IntCC::Ne, c, zr);
                    for (k, slot) in res.iter_mut().enumerate() {
                        if w[k] {
                            let a = srcs.get(self, st, 1, k & 1, Ty::Double)?;
                            let b = srcs.get(self, st, 2, k & 1, Ty::Double)?;
                            *slot = Some(self.cursor().ins().select(p, a, b));
                        }
                    }
                }
                self.write_dst(st, Ty::Double, res)
            }
            O::I64Add => self.wide(st, i, 2, bin(IrOp::Iadd)),
            O::I64Sub => self.wide(st, i, 2, bin(IrOp::Isub)),
            O::I64Mul | O::U64Mul => self.wide(st, i, 2, bin(IrOp::Imul)),
            O::I64Negate => self.wide(st, i, 1, un(IrOp::Ineg)),
            O::U64Div | O::U64Mod | O::I64Div | O::I64Mod => self.lower_div64(st),
            O::I64Max => self.wide(st, i, 2, bin(IrOp::Imax)),
            O::I64Min => self.wide(st, i, 2, bin(IrOp::Imin)),
            O::U64Max => self.wide(st, i, 2, bin(IrOp::Umax)),
            O::U64Min => self.wide(st, i, 2, bin(IrOp::Umin)),
            O::I64Shl | O::I64Shr | O::U64Shr => {
                let op = match st.opcode {
                    O::I64Shl => IrOp::Ishl,
                    O::I64Shr => IrOp::Ishr,
                    _ => IrOp::Ushr,
                };
                let w = self.dst_writes(st);
                if !w.iter().any(|&b| b) {
                    return Ok(true);
                }
                let x = self.wide_src(st, 0, i)?;
                let s1 = st.srcs.get(1).ok_or("needs two source operands")?;
                let n = self.read_src(s1, 0, i)?;
                let r = self.binary_ir(op, x, n);
                self.write_wide(st, i, r)
            }
            O::I64Eq | O::I64Ne | O::I64Ge | O::I64Lt | O::U64Ge | O::U64Lt => {
                let cc = match st.opcode {
                    O::I64Eq => IntCC::Eq,
                    O::I64Ne => IntCC::Ne,
                    O::I64Ge => IntCC::Sge,
                    O::I64Lt => IntCC::Slt,
                    O::U64Ge => IntCC::Uge,
                    _ => IntCC::Ult,
                };
                self.wide_cmp(st, i, move |l, a, b| l.cursor().ins().icmp(cc, a, b))
            }
            _ => return Ok(false),
        };
        lowered.map(|()| true)
    }
}

/// A per-component operation applying the unary IR opcode `op`.
fn un(op: IrOp) -> impl Fn(&mut Lowerer, &[Value]) -> LResult<Value> + Copy {
    move |l, a| Ok(l.unary_ir(op, a[0]))
}

/// A per-component operation applying the binary IR opcode `op`.
fn bin(op: IrOp) -> impl Fn(&mut Lowerer, &[Value]) -> LResult<Value> + Copy {
    move |l, a| Ok(l.binary_ir(op, a[0], a[1]))
}
