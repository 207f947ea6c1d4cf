//! Opcode -> interpreter operation: picks the semantic function ([`super::iops`],
//! [`super::fops`], [`super::dops`]) and the operand type class of every value-producing,
//! memory and atomic opcode.
//!
//! Requires the declarations gathered by [`super::decode`]; returns
//! [`InterpError::Unsupported`] naming the opcode for anything it does not implement
//! (graphics, textures, GDS, SM30), never a wrong result.

use super::decode::{err, malformed, Decoder};
use super::dispatch::InterpError;
use super::dops;
use super::fops::{self, RelOp, ZeroOp};
use super::iops::{self, bool32};
use super::program::{Addr, AtomicOp, CompFn, DstComp, Inst, Op, Space, TexOp, Ty, WideFn, Width};
use super::texture::TexDim;
use crate::ast::{self, Instruction, MATRIX_SHAPES};
use crate::decls::BufferKind;
use crate::opcodes::Opcode;

/// Maps the AST relop to ours.
pub(crate) fn relop(r: ast::RelOp) -> RelOp {
    match r {
        ast::RelOp::Eq => RelOp::Eq,
        ast::RelOp::Ne => RelOp::Ne,
        ast::RelOp::Gt => RelOp::Gt,
        ast::RelOp::Ge => RelOp::Ge,
        ast::RelOp::Lt => RelOp::Lt,
        ast::RelOp::Le => RelOp::Le,
    }
}

fn zeroop(st: &Instruction) -> ZeroOp {
    match st.zeroop() {
        None | Some(ast::ZeroOp::FltMax) => ZeroOp::FltMax,
        Some(ast::ZeroOp::Zero) => ZeroOp::Zero,
        Some(ast::ZeroOp::Infinity) | Some(ast::ZeroOp::InfElseMax) => ZeroOp::Infinity,
    }
}

/// `$op(a, zeroop)` as a unary function with the zeroop `$z` bound: one non-capturing
/// closure per zeroop (fn pointers cannot capture).
macro_rules! by_zeroop {
    ($z:expr, $op:path) => {
        CompFn::F1(match $z {
            ZeroOp::FltMax => |a| $op(a, ZeroOp::FltMax),
            ZeroOp::Zero => |a| $op(a, ZeroOp::Zero),
            ZeroOp::Infinity => |a| $op(a, ZeroOp::Infinity),
        })
    };
}

/// Chooses the operation of one opcode family: `None` for an opcode of another family.
type Family = fn(&Instruction, u32) -> Result<Option<(Op, Ty)>, InterpError>;

/// Builds the instruction for a non-flow, non-declaration statement: the operation from
/// the first opcode family that knows it, else a memory operation.
pub(crate) fn select(dec: &mut Decoder, st: &Instruction) -> Result<Inst, InterpError> {
    let line = dec.line;
    let families: [Family; 3] = [float_op, integer_op, wide_op];
    let mut chosen = None;
    for family in families {
        chosen = family(st, line)?;
        if chosen.is_some() {
            break;
        }
    }
    let Some((op, ty)) = chosen else {
        return memory_op(dec, st);
    };
    let dst = dec.dst_at(st, 0)?;
    let mut src = Vec::with_capacity(st.srcs.len());
    for k in 0..st.srcs.len() {
        src.push(dec.src_at(st, k)?);
    }
    if let Op::Mmul(m) = op {
        // The matrix rows after the first: src1 + 1, + 2, ... (the executor reads them).
        for k in 1..MATRIX_SHAPES[m].rows as u32 {
            let row = st.srcs.get(1).and_then(|s| s.row(k)).ok_or_else(|| {
                malformed(line, "mmul's matrix must be a temp or constant register")
            })?;
            src.push(dec.src(&row)?);
        }
    } else if src.len() > 4 {
        return Err(malformed(
            line,
            format!("{:?} has more than 4 sources", st.opcode),
        ));
    }
    let needed = needed_srcs(&op);
    if src.len() < needed {
        return Err(malformed(
            line,
            format!("{:?} needs {needed} source operands", st.opcode),
        ));
    }
    Ok(Inst {
        op,
        ty,
        dst,
        src,
        line,
        precision: Default::default(),
    })
}

/// Sources an operation reads (so the executor never indexes past what was decoded).
fn needed_srcs(op: &Op) -> usize {
    match op {
        Op::Comp(f) | Op::ScalarW(f) => match f {
            CompFn::F1(_) => 1,
            CompFn::F2(_) => 2,
            CompFn::F3(_) => 3,
            CompFn::F4(_) => 4,
        },
        Op::Wide(f) => match f {
            WideFn::W1(_) | WideFn::Narrow(_) => 1,
            WideFn::W2(_) | WideFn::Sh(_) | WideFn::Cmp(_) => 2,
            WideFn::W3(_) => 3,
        },
        Op::Dot(..)
        | Op::Cmov
        | Op::Set(_)
        | Op::FCmp(_)
        | Op::Crs
        | Op::DistVec
        | Op::Reflect(_) => 2,
        Op::DLdexp => 2,
        Op::Dp2Add | Op::CmpVal(..) | Op::Sad4 | Op::DMovc | Op::FaceForward => 3,
        _ => 1,
    }
}

fn width_of_size(st: &Instruction) -> Width {
    match st.generic("size").flatten().map(|s| s.to_ascii_lowercase()) {
        Some(s) if s == "byte" => Width::U8,
        Some(s) if s == "short" => Width::U16,
        _ => Width::U32,
    }
}

fn is_gds_atomic(op: Opcode) -> bool {
    use Opcode as O;
    matches!(
        op,
        O::GdsAdd
            | O::GdsSub
            | O::GdsRsub
            | O::GdsInc
            | O::GdsDec
            | O::GdsMin
            | O::GdsMax
            | O::GdsUmin
            | O::GdsUmax
            | O::GdsAnd
            | O::GdsOr
            | O::GdsXor
            | O::GdsMskor
            | O::GdsCmpStore
            | O::GdsReadAdd
            | O::GdsReadSub
            | O::GdsReadRsub
            | O::GdsReadInc
            | O::GdsReadDec
            | O::GdsReadMin
            | O::GdsReadMax
            | O::GdsReadUmin
            | O::GdsReadUmax
            | O::GdsReadAnd
            | O::GdsReadOr
            | O::GdsReadXor
            | O::GdsReadMskor
            | O::GdsReadXchg
            | O::GdsReadCmpXchg
    )
}

/// Which memory an atomic opcode addresses.
#[derive(Clone, Copy, PartialEq, Eq)]
enum AtomicMem {
    Uav,
    Lds,
    Gds,
}

fn atomic_of(op: Opcode) -> Option<(AtomicOp, bool, AtomicMem)> {
    use AtomicOp as A;
    use Opcode as O;
    // GDS atomics mirror the LDS ones (guide 7.17; compare/new order as LDS, L9292).
    let gds = match op {
        O::GdsAdd => (A::Add, false),
        O::GdsSub => (A::Sub, false),
        O::GdsRsub => (A::Rsub, false),
        O::GdsInc => (A::Inc, false),
        O::GdsDec => (A::Dec, false),
        O::GdsMin => (A::Min, false),
        O::GdsMax => (A::Max, false),
        O::GdsUmin => (A::Umin, false),
        O::GdsUmax => (A::Umax, false),
        O::GdsAnd => (A::And, false),
        O::GdsOr => (A::Or, false),
        O::GdsXor => (A::Xor, false),
        O::GdsMskor => (A::MskOr, false),
        O::GdsCmpStore => (A::CmpXchg, false),
        O::GdsReadAdd => (A::Add, true),
        O::GdsReadSub => (A::Sub, true),
        O::GdsReadRsub => (A::Rsub, true),
        O::GdsReadInc => (A::Inc, true),
        O::GdsReadDec => (A::Dec, true),
        O::GdsReadMin => (A::Min, true),
        O::GdsReadMax => (A::Max, true),
        O::GdsReadUmin => (A::Umin, true),
        O::GdsReadUmax => (A::Umax, true),
        O::GdsReadAnd => (A::And, true),
        O::GdsReadOr => (A::Or, true),
        O::GdsReadXor => (A::Xor, true),
        O::GdsReadMskor => (A::MskOr, true),
        O::GdsReadXchg => (A::Xchg, true),
        O::GdsReadCmpXchg => (A::CmpXchg, true),
        _ => (A::Add, false),
    };
    if is_gds_atomic(op) {
        let (a, r) = gds;
        return Some((a, r, AtomicMem::Gds));
    }
    // (operation, returns old value, is LDS)
    Some(match op {
        O::UavAdd => (A::Add, false, AtomicMem::Uav),
        O::UavSub => (A::Sub, false, AtomicMem::Uav),
        O::UavRsub => (A::Rsub, false, AtomicMem::Uav),
        O::UavMin => (A::Min, false, AtomicMem::Uav),
        O::UavMax => (A::Max, false, AtomicMem::Uav),
        O::UavUmin => (A::Umin, false, AtomicMem::Uav),
        O::UavUmax => (A::Umax, false, AtomicMem::Uav),
        O::UavAnd => (A::And, false, AtomicMem::Uav),
        O::UavOr => (A::Or, false, AtomicMem::Uav),
        O::UavXor => (A::Xor, false, AtomicMem::Uav),
        O::UavCmp => (A::CmpXchg, false, AtomicMem::Uav),
        O::UavUinc => (A::Inc, false, AtomicMem::Uav),
        O::UavUdec => (A::Dec, false, AtomicMem::Uav),
        O::UavReadAdd => (A::Add, true, AtomicMem::Uav),
        O::UavReadSub => (A::Sub, true, AtomicMem::Uav),
        O::UavReadRsub => (A::Rsub, true, AtomicMem::Uav),
        O::UavReadMin => (A::Min, true, AtomicMem::Uav),
        O::UavReadMax => (A::Max, true, AtomicMem::Uav),
        O::UavReadUmin => (A::Umin, true, AtomicMem::Uav),
        O::UavReadUmax => (A::Umax, true, AtomicMem::Uav),
        O::UavReadAnd => (A::And, true, AtomicMem::Uav),
        O::UavReadOr => (A::Or, true, AtomicMem::Uav),
        O::UavReadXor => (A::Xor, true, AtomicMem::Uav),
        O::UavReadXchg => (A::Xchg, true, AtomicMem::Uav),
        O::UavReadCmpXchg => (A::CmpXchg, true, AtomicMem::Uav),
        O::UavReadUinc => (A::Inc, true, AtomicMem::Uav),
        O::UavReadUdec => (A::Dec, true, AtomicMem::Uav),
        O::LdsAdd => (A::Add, false, AtomicMem::Lds),
        O::LdsSub => (A::Sub, false, AtomicMem::Lds),
        O::LdsRsub => (A::Rsub, false, AtomicMem::Lds),
        O::LdsMin => (A::Min, false, AtomicMem::Lds),
        O::LdsMax => (A::Max, false, AtomicMem::Lds),
        O::LdsUmin => (A::Umin, false, AtomicMem::Lds),
        O::LdsUmax => (A::Umax, false, AtomicMem::Lds),
        O::LdsAnd => (A::And, false, AtomicMem::Lds),
        O::LdsOr => (A::Or, false, AtomicMem::Lds),
        O::LdsXor => (A::Xor, false, AtomicMem::Lds),
        O::LdsCmp => (A::CmpXchg, false, AtomicMem::Lds),
        O::LdsInc => (A::Inc, false, AtomicMem::Lds),
        O::LdsDec => (A::Dec, false, AtomicMem::Lds),
        O::LdsMskor => (A::MskOr, false, AtomicMem::Lds),
        O::LdsReadAdd => (A::Add, true, AtomicMem::Lds),
        O::LdsReadSub => (A::Sub, true, AtomicMem::Lds),
        O::LdsReadRsub => (A::Rsub, true, AtomicMem::Lds),
        O::LdsReadMin => (A::Min, true, AtomicMem::Lds),
        O::LdsReadMax => (A::Max, true, AtomicMem::Lds),
        O::LdsReadUmin => (A::Umin, true, AtomicMem::Lds),
        O::LdsReadUmax => (A::Umax, true, AtomicMem::Lds),
        O::LdsReadAnd => (A::And, true, AtomicMem::Lds),
        O::LdsReadOr => (A::Or, true, AtomicMem::Lds),
        O::LdsReadXor => (A::Xor, true, AtomicMem::Lds),
        O::LdsReadXchg => (A::Xchg, true, AtomicMem::Lds),
        O::LdsReadCmpXchg => (A::CmpXchg, true, AtomicMem::Lds),
        O::LdsReadInc => (A::Inc, true, AtomicMem::Lds),
        O::LdsReadDec => (A::Dec, true, AtomicMem::Lds),
        O::LdsReadMskor => (A::MskOr, true, AtomicMem::Lds),
        _ => return None,
    })
}

/// `sample`, `sample_l`, `load` and `resinfo` on a declared resource (see `texture.rs`).
fn tex_op(dec: &Decoder, st: &Instruction) -> Result<Op, InterpError> {
    use Opcode as O;
    let line = dec.line;
    let name = st.opcode.mnemonic();
    let res = st
        .resource()
        .ok_or_else(|| malformed(line, format!("{name} needs _resource(n)")))?;
    if st.generic("ext").is_some() || st.generic("indexed").is_some() {
        return Err(err(
            line,
            format!("{name} with indexed resource/sampler (_ext)"),
        ));
    }
    let decl = dec
        .out
        .resources
        .get(&res)
        .ok_or_else(|| malformed(line, format!("resource {res} is not declared")))?;
    let sampler = st.sampler().unwrap_or(0);
    let op = match st.opcode {
        O::Fetch4 => {
            if !matches!(decl.dim, TexDim::D2 | TexDim::D2Array) {
                return Err(malformed(line, format!("{name} needs a 2-D resource")));
            }
            if st.sampler().is_none() {
                return Err(malformed(line, format!("{name} needs _sampler(m)")));
            }
            if super::texture::texel_offsets(st)
                .map_err(|m| malformed(line, m))?
                .is_some()
            {
                return Err(err(line, format!("{name} with _addroffimmi")));
            }
            TexOp::Gather(super::texture::comp_select(st).map_err(|m| malformed(line, m))?)
        }
        O::Sample | O::SampleL => {
            if decl.dim == TexDim::Buffer {
                return Err(malformed(line, format!("{name} on buffer resource {res}")));
            }
            if st.sampler().is_none() {
                return Err(malformed(line, format!("{name} needs _sampler(m)")));
            }
            if st.opcode == O::Sample {
                TexOp::Sample
            } else {
                TexOp::SampleL
            }
        }
        O::Load => TexOp::Load(
            super::texture::texel_offsets(st)
                .map_err(|m| malformed(line, m))?
                .unwrap_or_default(),
        ),
        _ => TexOp::ResInfo {
            uint: st.generic("uint").is_some(),
        },
    };
    let unnorm = super::texture::coord_mode(st).map_err(|m| malformed(line, m))?;
    Ok(Op::Tex {
        op,
        res,
        sampler,
        unnorm,
    })
}

/// Float operations: per component (7.11), and the scalar ones on `.w` broadcast. `None` for an opcode of another family.
fn float_op(st: &Instruction, line: u32) -> Result<Option<(Op, Ty)>, InterpError> {
    use CompFn::*;
    use Opcode as O;
    let ieee = st.ieee();
    let z = zeroop(st);
    let f = Ty::Float;
    Ok(Some(match st.opcode {
        // ---- float, per component (7.11) ----
        O::Mov | O::InvMov => (Op::Comp(F1(|a| a)), Ty::Untyped),
        O::Abs => (Op::Comp(F1(|a| fops::b(fops::f(a).abs()))), f),
        O::Add => (Op::Comp(F2(fops::add)), f),
        O::Sub => (Op::Comp(F2(fops::sub)), f),
        O::Mul if ieee => (Op::Comp(F2(|a, b| fops::mul(a, b, true))), f),
        O::Mul => (Op::Comp(F2(|a, b| fops::mul(a, b, false))), f),
        O::Mad if ieee => (Op::Comp(F3(|a, b, c| fops::mad(a, b, c, true))), f),
        O::Mad => (Op::Comp(F3(|a, b, c| fops::mad(a, b, c, false))), f),
        O::Fma => (Op::Comp(F3(fops::fma)), f),
        O::Div => (
            Op::Comp(F2(match z {
                ZeroOp::FltMax => |a, b| fops::div(a, b, ZeroOp::FltMax),
                ZeroOp::Zero => |a, b| fops::div(a, b, ZeroOp::Zero),
                ZeroOp::Infinity => |a, b| fops::div(a, b, ZeroOp::Infinity),
            })),
            f,
        ),
        O::Min => (Op::Comp(F2(fops::min)), f),
        O::Max => (Op::Comp(F2(fops::max)), f),
        O::Clamp => (Op::Comp(F3(fops::clamp)), f),
        O::Flr | O::RoundNegInf => (Op::Comp(F1(fops::floor)), f),
        O::Frc => (Op::Comp(F1(fops::frc)), f),
        O::RoundNear => (Op::Comp(F1(fops::round_even)), f),
        O::RoundPlusInf => (Op::Comp(F1(fops::ceil)), f),
        O::RoundZero => (Op::Comp(F1(fops::trunc)), f),
        O::Rnd => (Op::Comp(F1(fops::rnd)), f),
        O::Mod => (Op::Comp(F2(fops::fmod)), f),
        O::Sgn => (Op::Comp(F1(fops::sgn)), f),
        // Three operations (L7025), each flushing a denormal result as every float
        // operation here does: a product that underflows is a signed zero before the add
        // (-0 + +0 is +0), not a denormal whose sign survives the final flush.
        O::Lrp => (
            Op::Comp(F3(|a, b, c| {
                let (s, x, y) = (fops::f(a), fops::f(b), fops::f(c));
                let (p, q) = (fops::ftz(x * s), fops::ftz(y * fops::ftz(1.0 - s)));
                fops::b(p + q)
            })),
            f,
        ),
        O::ExpVec => (Op::Comp(F1(fops::exp2)), f),
        O::LogVec => (Op::Comp(F1(fops::log2_vec)), f),
        O::RsqVec => (Op::Comp(F1(fops::rsq_vec)), f),
        O::SqrtVec => (Op::Comp(F1(fops::sqrt)), f),
        O::SinVec => (Op::Comp(F1(|a| fops::unary(a, f32::sin))), f),
        O::CosVec => (Op::Comp(F1(|a| fops::unary(a, f32::cos))), f),
        O::RcpVec => (Op::Comp(F1(|a| fops::rcp(a, ZeroOp::FltMax))), f),
        O::Cmov => (Op::Cmov, f),
        // typeless select: source modifiers act as for mov (float)
        O::CmovLogical => (
            Op::Comp(F3(|a, b, c| if a != 0 { b } else { c })),
            Ty::Untyped,
        ),
        O::Eq => (Op::FCmp(RelOp::Eq), f),
        O::Ne => (Op::FCmp(RelOp::Ne), f),
        O::Ge => (Op::FCmp(RelOp::Ge), f),
        O::Lt => (Op::FCmp(RelOp::Lt), f),
        O::Set => {
            let r = st
                .relop()
                .ok_or_else(|| malformed(line, "set needs _relop(..)"))?;
            (Op::Set(relop(r)), f)
        }
        O::Cmp => {
            let r = st
                .relop()
                .ok_or_else(|| malformed(line, "cmp needs _relop(..)"))?;
            let v = st.cmp_value();
            (Op::CmpVal(relop(r), v.to_bits()), f)
        }
        // ---- float, scalar on .w, broadcast ----
        O::Rcp => (Op::ScalarW(by_zeroop!(z, fops::rcp)), f),
        O::Rsq => (Op::ScalarW(by_zeroop!(z, fops::rsq)), f),
        O::Log => (Op::ScalarW(by_zeroop!(z, fops::log2)), f),
        O::Ln => (Op::ScalarW(by_zeroop!(z, fops::ln)), f),
        O::Sqrt => (Op::ScalarW(F1(fops::sqrt)), f),
        O::Exp => (Op::ScalarW(F1(fops::exp2)), f),
        O::Exn => (Op::ScalarW(F1(fops::exn)), f),
        O::Sin => (Op::ScalarW(F1(|a| fops::unary(a, f32::sin))), f),
        O::Cos => (Op::ScalarW(F1(|a| fops::unary(a, f32::cos))), f),
        O::Tan => (Op::ScalarW(F1(|a| fops::unary(a, f32::tan))), f),
        O::Asin => (Op::ScalarW(F1(|a| fops::unary(a, f32::asin))), f),
        O::Acos => (Op::ScalarW(F1(|a| fops::unary(a, f32::acos))), f),
        O::Atan => (Op::ScalarW(F1(|a| fops::unary(a, f32::atan))), f),
        O::Pow => (Op::ScalarW(F2(fops::pow)), f),
        O::Dp2 => (Op::Dot(2, ieee), f),
        O::Dp3 => (Op::Dot(3, ieee), f),
        O::Dp4 => (Op::Dot(4, ieee), f),
        O::Dp2add => (Op::Dp2Add, f),
        O::Crs => (Op::Crs, f),
        O::Sincos => (Op::SinCos, f),
        O::Nrm => {
            let n = if st.generic("nrm4").is_some() { 4 } else { 3 };
            (Op::Nrm(n, z), f)
        }
        O::Dst => (Op::DistVec, f),
        O::Lit => (Op::Lit, f),
        O::Len => (Op::Len, f),
        O::Faceforward => (Op::FaceForward, f),
        O::Reflect => (Op::Reflect(st.generic("normalize").is_some()), f),
        O::Pireduce => (Op::Comp(F1(fops::pireduce)), f),
        O::Expp => (Op::Expp, f),
        O::Logp => (Op::Logp(z), f),
        O::Mmul => (Op::Mmul(st.matrix().map_err(|e| malformed(line, e))?), f),
        _ => return Ok(None),
    }))
}

/// Conversions (7.10), integer (7.7, 7.8), bit (7.9) and multimedia (7.13) operations. `None` for an opcode of another family.
fn integer_op(st: &Instruction, _line: u32) -> Result<Option<(Op, Ty)>, InterpError> {
    use CompFn::*;
    use Opcode as O;
    let f = Ty::Float;
    let i = Ty::Int;
    Ok(Some(match st.opcode {
        // ---- conversions (7.10) ----
        O::Ftoi => (Op::Comp(F1(fops::ftoi)), f),
        O::Ftou => (Op::Comp(F1(fops::ftou)), f),
        O::Itof => (Op::Comp(F1(fops::itof)), i),
        O::Utof => (Op::Comp(F1(fops::utof)), i),
        O::F2F16 | O::F2F16Near => (Op::Comp(F1(fops::f32_to_f16)), f),
        O::F162F => (Op::Comp(F1(fops::f16_to_f32)), i),
        // ---- integer (7.7, 7.8) ----
        O::IAdd => (Op::Comp(F2(iops::iadd)), i),
        O::INegate => (Op::Comp(F1(iops::inegate)), i),
        O::IMul | O::UMul => (Op::Comp(F2(iops::imul)), i),
        O::IMad | O::UMad => (Op::Comp(F3(iops::imad)), i),
        O::IMulHigh => (Op::Comp(F2(iops::imul_high)), i),
        O::UMulHigh => (Op::Comp(F2(iops::umul_high)), i),
        O::IMul24 => (Op::Comp(F2(iops::imul24)), i),
        O::IMad24 => (Op::Comp(F3(iops::imad24)), i),
        O::UMul24 => (Op::Comp(F2(iops::umul24)), i),
        O::UMad24 => (Op::Comp(F3(iops::umad24)), i),
        O::IMul24High => (Op::Comp(F2(iops::imul24_high)), i),
        O::UMul24High => (Op::Comp(F2(iops::umul24_high)), i),
        O::UDiv => (Op::Comp(F2(iops::udiv)), i),
        O::UMod => (Op::Comp(F2(iops::umod)), i),
        O::And => (Op::Comp(F2(|a, b| a & b)), i),
        O::IOr => (Op::Comp(F2(|a, b| a | b)), i),
        O::IXor => (Op::Comp(F2(|a, b| a ^ b)), i),
        O::INot => (Op::Comp(F1(|a| !a)), i),
        O::IShl => (Op::Comp(F2(iops::ishl)), i),
        O::IShr => (Op::Comp(F2(iops::ishr)), i),
        O::UShr => (Op::Comp(F2(iops::ushr)), i),
        O::IEq => (Op::Comp(F2(|a, b| bool32(a == b))), i),
        O::INe => (Op::Comp(F2(|a, b| bool32(a != b))), i),
        O::IGe => (Op::Comp(F2(|a, b| bool32(a as i32 >= b as i32))), i),
        O::ILt => (Op::Comp(F2(|a, b| bool32((a as i32) < b as i32))), i),
        O::UGe => (Op::Comp(F2(|a, b| bool32(a >= b))), i),
        O::ULt => (Op::Comp(F2(|a, b| bool32(a < b))), i),
        O::IMin => (Op::Comp(F2(iops::imin)), i),
        // three-operand min/med/max (enum-only opcodes, Southern Islands era): the float
        // forms follow min/max (NaN loses); med3 = max(min(a, b), min(max(a, b), c)).
        O::Min3 => (Op::Comp(F3(|a, b, c| fops::min(fops::min(a, b), c))), f),
        O::Max3 => (Op::Comp(F3(|a, b, c| fops::max(fops::max(a, b), c))), f),
        O::Med3 => (
            Op::Comp(F3(|a, b, c| {
                fops::max(fops::min(a, b), fops::min(fops::max(a, b), c))
            })),
            f,
        ),
        O::IMin3 => (Op::Comp(F3(|a, b, c| iops::imin(iops::imin(a, b), c))), i),
        O::IMax3 => (Op::Comp(F3(|a, b, c| iops::imax(iops::imax(a, b), c))), i),
        O::IMed3 => (
            Op::Comp(F3(|a, b, c| {
                iops::imax(iops::imin(a, b), iops::imin(iops::imax(a, b), c))
            })),
            i,
        ),
        O::UMin3 => (Op::Comp(F3(|a, b, c| a.min(b).min(c))), i),
        O::UMax3 => (Op::Comp(F3(|a, b, c| a.max(b).max(c))), i),
        O::UMed3 => (Op::Comp(F3(|a, b, c| a.min(b).max(a.max(b).min(c)))), i),
        O::IMax => (Op::Comp(F2(iops::imax)), i),
        O::UMin => (Op::Comp(F2(|a, b| a.min(b))), i),
        O::UMax => (Op::Comp(F2(|a, b| a.max(b))), i),
        O::ICarry => (Op::Comp(F2(iops::icarry)), i),
        O::IBorrow => (Op::Comp(F2(iops::iborrow)), i),
        // ---- bit operations (7.9) ----
        O::ICountbits => (Op::Comp(F1(iops::icountbits)), i),
        O::IFirstbit => {
            let g = if st.generic("shi").is_some() {
                iops::ffb_shi
            } else if st.generic("hi").is_some() {
                iops::ffb_hi
            } else {
                iops::ffb_lo
            };
            (Op::Comp(F1(g)), i)
        }
        O::IBitExtract => (Op::Comp(F3(iops::ibit_extract)), i),
        O::UBitExtract => (Op::Comp(F3(iops::ubit_extract)), i),
        O::UBitInsert => (Op::Comp(F4(iops::ubit_insert)), i),
        O::UBitReverse => (Op::Comp(F1(iops::ubit_reverse)), i),
        // ---- multimedia (7.13) ----
        O::BitAlign => (Op::Comp(F3(iops::bitalign)), i),
        O::ByteAlign => (Op::Comp(F3(iops::bytealign)), i),
        O::Sad => (Op::Comp(F3(iops::sad)), i),
        O::SadHi => (Op::Comp(F3(iops::sad_hi)), i),
        O::U4lerp => (Op::Comp(F3(iops::u4lerp)), i),
        O::Sad4 => (Op::Sad4, i),
        O::F2U4 => (Op::F2U4, f),
        O::Unpack0 => (Op::Comp(F1(|a| fops::unpack(a, 0))), i),
        O::Unpack1 => (Op::Comp(F1(|a| fops::unpack(a, 1))), i),
        O::Unpack2 => (Op::Comp(F1(|a| fops::unpack(a, 2))), i),
        O::Unpack3 => (Op::Comp(F1(|a| fops::unpack(a, 3))), i),
        _ => return Ok(None),
    }))
}

/// Double-precision (7.12) and 64-bit integer (7.7, 7.8) operations. `None` for an opcode of another family.
fn wide_op(st: &Instruction, _line: u32) -> Result<Option<(Op, Ty)>, InterpError> {
    use CompFn::*;
    use Opcode as O;
    let z = zeroop(st);
    let f = Ty::Float;
    let i = Ty::Int;
    let w = Ty::Double;
    Ok(Some(match st.opcode {
        // ---- double (7.12) ----
        O::DAdd => (Op::Wide(WideFn::W2(dops::dadd)), w),
        O::DMul => (Op::Wide(WideFn::W2(dops::dmul)), w),
        O::DDiv => (Op::Wide(WideFn::W2(dops::ddiv)), w),
        O::DMuladd => (Op::Wide(WideFn::W3(dops::dmad)), w),
        O::DMax => (Op::Wide(WideFn::W2(dops::dmax)), w),
        O::DMin => (Op::Wide(WideFn::W2(dops::dmin)), w),
        O::DFrac => (Op::Wide(WideFn::W1(dops::dfrac)), w),
        O::DSqrt => (Op::Wide(WideFn::W1(dops::dsqrt)), w),
        O::DMov => (Op::Wide(WideFn::W1(|a| a)), w),
        O::DRcp => (
            Op::Wide(WideFn::W1(match z {
                ZeroOp::FltMax => |a| dops::drcp(a, ZeroOp::FltMax),
                ZeroOp::Zero => |a| dops::drcp(a, ZeroOp::Zero),
                ZeroOp::Infinity => |a| dops::drcp(a, ZeroOp::Infinity),
            })),
            w,
        ),
        O::DRsq => (
            Op::Wide(WideFn::W1(match z {
                ZeroOp::FltMax => |a| dops::drsq(a, ZeroOp::FltMax),
                ZeroOp::Zero => |a| dops::drsq(a, ZeroOp::Zero),
                ZeroOp::Infinity => |a| dops::drsq(a, ZeroOp::Infinity),
            })),
            w,
        ),
        O::Deq => (Op::Wide(WideFn::Cmp(|a, b| dops::dcmp(RelOp::Eq, a, b))), w),
        O::Dne => (Op::Wide(WideFn::Cmp(|a, b| dops::dcmp(RelOp::Ne, a, b))), w),
        O::Dge => (Op::Wide(WideFn::Cmp(|a, b| dops::dcmp(RelOp::Ge, a, b))), w),
        O::Dlt => (Op::Wide(WideFn::Cmp(|a, b| dops::dcmp(RelOp::Lt, a, b))), w),
        O::D2F => (Op::D2F, w),
        O::F2D => (Op::F2D, f),
        O::DMovc => (Op::DMovc, w),
        O::DFrexp => (Op::DFrexp, w),
        O::DLdexp => (Op::DLdexp, w),
        // enum-only conversions (Appendix B): truncating, saturating, NaN -> 0 like ftoi.
        O::Dtoi => (
            Op::Wide(WideFn::Narrow(|a| (f64::from_bits(a) as i32) as u32)),
            w,
        ),
        O::Dtou => (Op::Wide(WideFn::Narrow(|a| f64::from_bits(a) as u32)), w),
        O::Itod => (Op::Widen(|a| (a as i32 as f64).to_bits()), i),
        O::Utod => (Op::Widen(|a| (a as f64).to_bits()), i),
        O::FtoiFlr => (Op::Comp(F1(|a| fops::ftoi(fops::floor(a)))), f),
        O::FtoiRpi => (Op::Comp(F1(|a| fops::ftoi(fops::ceil(a)))), f),
        O::FrexpMant => (Op::Comp(F1(|a| fops::frexp(a).0)), f),
        O::FrexpExp => (Op::Comp(F1(|a| fops::frexp(a).1)), f),
        O::DFrexpMant => (Op::Wide(WideFn::W1(|a| dops::dfrexp(a).0)), w),
        O::DFrexpExp => (Op::Wide(WideFn::Narrow(|a| dops::dfrexp(a).1)), w),
        O::Ldexp => (
            Op::Comp(F2(|a, n| {
                let e = (n as i32).clamp(-300, 300);
                fops::b(((fops::f(a) as f64) * 2f64.powi(e)) as f32)
            })),
            f,
        ),
        // ---- 64-bit integer (7.7, 7.8) ----
        O::I64Add => (Op::Wide(WideFn::W2(|a, b| a.wrapping_add(b))), i),
        O::I64Sub => (Op::Wide(WideFn::W2(|a, b| a.wrapping_sub(b))), i),
        O::I64Mul | O::U64Mul => (Op::Wide(WideFn::W2(|a, b| a.wrapping_mul(b))), i),
        O::I64Negate => (Op::Wide(WideFn::W1(|a| a.wrapping_neg())), i),
        O::U64Div => (Op::Wide(WideFn::W2(iops::u64div)), i),
        O::U64Mod => (Op::Wide(WideFn::W2(iops::u64mod)), i),
        O::I64Div => (Op::Wide(WideFn::W2(iops::i64div)), i),
        O::I64Mod => (Op::Wide(WideFn::W2(iops::i64mod)), i),
        O::I64Max => (
            Op::Wide(WideFn::W2(|a, b| (a as i64).max(b as i64) as u64)),
            i,
        ),
        O::I64Min => (
            Op::Wide(WideFn::W2(|a, b| (a as i64).min(b as i64) as u64)),
            i,
        ),
        O::U64Max => (Op::Wide(WideFn::W2(|a, b| a.max(b))), i),
        O::U64Min => (Op::Wide(WideFn::W2(|a, b| a.min(b))), i),
        O::I64Shl => (Op::Wide(WideFn::Sh(iops::i64shl)), i),
        O::I64Shr => (Op::Wide(WideFn::Sh(iops::i64shr)), i),
        O::U64Shr => (Op::Wide(WideFn::Sh(iops::u64shr)), i),
        O::I64Eq => (Op::Wide(WideFn::Cmp(|a, b| a == b)), i),
        O::I64Ne => (Op::Wide(WideFn::Cmp(|a, b| a != b)), i),
        O::I64Ge => (Op::Wide(WideFn::Cmp(|a, b| a as i64 >= b as i64)), i),
        O::I64Lt => (Op::Wide(WideFn::Cmp(|a, b| (a as i64) < b as i64)), i),
        O::U64Ge => (Op::Wide(WideFn::Cmp(|a, b| a >= b)), i),
        O::U64Lt => (Op::Wide(WideFn::Cmp(|a, b| a < b)), i),
        _ => return Ok(None),
    }))
}

fn memory_op(dec: &mut Decoder, st: &Instruction) -> Result<Inst, InterpError> {
    use Opcode as O;
    let line = dec.line;
    let id = st.id().unwrap_or(0);
    let uav_addr = |dec: &Decoder, id: u32| match dec.decls.uavs.get(&id) {
        Some(BufferKind::Struct(s)) => Addr::Struct(*s),
        Some(BufferKind::Typed(f)) => Addr::Typed(*f),
        _ => Addr::Raw,
    };
    let lds_addr =
        |dec: &Decoder, id: u32, vec: bool| match dec.decls.lds.get(&id).and_then(|r| r.stride) {
            Some(s) if vec => Addr::StructVec(s),
            Some(s) => Addr::Struct(s),
            _ => Addr::Raw,
        };
    let gds_addr = |dec: &Decoder, id: u32| match dec.out.gds_stride.get(&id) {
        Some(s) => Addr::Struct(*s),
        None => Addr::Raw,
    };
    let mut src = Vec::with_capacity(st.srcs.len());
    for k in 0..st.srcs.len() {
        src.push(dec.src_at(st, k)?);
    }
    let mut dst = dec.dst_at(st, 0)?;
    let need = |n: usize| need_sources(st, line, src.len(), n);
    let load = |space, addr, width, vec| Op::Load {
        space,
        addr,
        width,
        vec,
    };
    let store = |space, addr, width, vec| Op::Store {
        space,
        addr,
        width,
        vec,
    };
    let op = match st.opcode {
        O::UavRawLoad => {
            need(1)?;
            load(Space::Uav(id), Addr::Raw, Width::U32, true)
        }
        O::UavStructLoad => {
            need(1)?;
            load(Space::Uav(id), uav_addr(dec, id), Width::U32, true)
        }
        O::UavLoad => {
            need(1)?;
            let addr = match uav_addr(dec, id) {
                a @ Addr::Typed(_) => a,
                _ => Addr::Typed(super::typed_uav::TypedUav::UNDECLARED),
            };
            load(Space::Uav(id), addr, Width::U32, true)
        }
        O::SrvRawLoad => {
            need(1)?;
            load(Space::Srv(id), Addr::Raw, Width::U32, true)
        }
        O::SrvStructLoad => {
            need(1)?;
            let addr = match dec.decls.srvs.get(&id) {
                Some(BufferKind::Struct(s)) => Addr::Struct(*s),
                _ => Addr::Raw,
            };
            load(Space::Srv(id), addr, Width::U32, true)
        }
        O::UavArenaLoad => {
            need(1)?;
            load(Space::Uav(id), Addr::Raw, width_of_size(st), false)
        }
        O::UavByteLoad | O::UavShortLoad | O::UavUbyteLoad | O::UavUshortLoad => {
            need(1)?;
            let wd = match st.opcode {
                O::UavByteLoad => Width::I8,
                O::UavShortLoad => Width::I16,
                O::UavUbyteLoad => Width::U8,
                _ => Width::U16,
            };
            load(Space::Uav(id), Addr::Raw, wd, false)
        }
        O::UavRawStore | O::UavStructStore => {
            need(2)?;
            let addr = if st.opcode == O::UavRawStore {
                Addr::Raw
            } else {
                uav_addr(dec, id)
            };
            store(Space::Uav(id), addr, Width::U32, true)
        }
        O::UavStore => {
            need(2)?;
            // Components past the element's are skipped at run time (the view's count).
            dst.mask = [DstComp::Write; 4];
            let addr = match uav_addr(dec, id) {
                a @ Addr::Typed(_) => a,
                _ => Addr::Typed(super::typed_uav::TypedUav::UNDECLARED),
            };
            store(Space::Uav(id), addr, Width::U32, true)
        }
        O::UavArenaStore | O::UavByteStore | O::UavShortStore => {
            need(2)?;
            let wd = match st.opcode {
                O::UavByteStore => Width::U8,
                O::UavShortStore => Width::U16,
                _ => width_of_size(st),
            };
            store(Space::Uav(id), Addr::Raw, wd, false)
        }
        O::LdsLoad => {
            need(1)?;
            load(Space::Lds(id), lds_addr(dec, id, false), Width::U32, false)
        }
        O::LdsLoadByte | O::LdsLoadShort | O::LdsLoadUbyte | O::LdsLoadUshort => {
            need(1)?;
            let wd = match st.opcode {
                O::LdsLoadByte => Width::I8,
                O::LdsLoadShort => Width::I16,
                O::LdsLoadUbyte => Width::U8,
                _ => Width::U16,
            };
            load(Space::Lds(id), lds_addr(dec, id, false), wd, false)
        }
        O::LdsLoadVec => {
            need(1)?;
            let addr = lds_addr(dec, id, true);
            if matches!(addr, Addr::StructVec(_)) {
                need(2)?;
            }
            load(Space::Lds(id), addr, Width::U32, true)
        }
        O::LdsStore | O::LdsStoreByte | O::LdsStoreShort => {
            need(2)?;
            let wd = match st.opcode {
                O::LdsStoreByte => Width::U8,
                O::LdsStoreShort => Width::U16,
                _ => Width::U32,
            };
            store(Space::Lds(id), lds_addr(dec, id, false), wd, false)
        }
        O::LdsStoreVec => {
            need(3)?;
            store(Space::Lds(id), lds_addr(dec, id, true), Width::U32, true)
        }
        O::GdsLoad => {
            need(1)?;
            load(Space::Gds(id), gds_addr(dec, id), Width::U32, false)
        }
        O::GdsStore => {
            need(2)?;
            store(Space::Gds(id), gds_addr(dec, id), Width::U32, false)
        }
        O::AppendBufAlloc | O::AppendBufConsume => Op::Append {
            uav: id,
            alloc: st.opcode == O::AppendBufAlloc,
        },
        O::LdsReadVec | O::LdsWriteVec => {
            need(1)?;
            owner_lds_op(dec, st, line)?
        }
        O::Sample | O::SampleL | O::Load | O::Resinfo | O::Fetch4 => {
            need(if st.opcode == O::SampleL { 2 } else { 1 })?;
            tex_op(dec, st)?
        }
        op => atomic_op(dec, st, line, op, &mut src)?,
    };
    if src.len() > 4 {
        return Err(malformed(
            line,
            format!("{:?} has more than 4 sources", st.opcode),
        ));
    }
    // Atomics read s[2] even for two-operand forms: give them a harmless third source.
    if matches!(op, Op::Atomic { .. }) && src.len() == 2 {
        src.push(src[1].clone());
    }
    Ok(Inst {
        op,
        ty: Ty::Int,
        dst,
        src,
        line,
        precision: Default::default(),
    })
}

/// An error unless `st` has at least `n` of its `have` source operands.
fn need_sources(st: &Instruction, line: u32, have: usize, n: usize) -> Result<(), InterpError> {
    if have < n {
        Err(malformed(
            line,
            format!("{:?} needs {n} source operands", st.opcode),
        ))
    } else {
        Ok(())
    }
}

/// The addressing of UAV `id`'s loads, stores and atomics (its declaration's shape).
fn uav_addr(dec: &Decoder, id: u32) -> Addr {
    match dec.decls.uavs.get(&id) {
        Some(BufferKind::Struct(s)) => Addr::Struct(*s),
        Some(BufferKind::Typed(f)) => Addr::Typed(*f),
        _ => Addr::Raw,
    }
}

/// The addressing of LDS `id` (structured ones by element, `vec` for the vector forms).
fn lds_addr(dec: &Decoder, id: u32, vec: bool) -> Addr {
    match dec.decls.lds.get(&id).and_then(|r| r.stride) {
        Some(s) if vec => Addr::StructVec(s),
        Some(s) => Addr::Struct(s),
        _ => Addr::Raw,
    }
}

/// The addressing of GDS `id`.
fn gds_addr(dec: &Decoder, id: u32) -> Addr {
    match dec.out.gds_stride.get(&id) {
        Some(s) => Addr::Struct(*s),
        None => Addr::Raw,
    }
}

/// `lds_read_vec` / `lds_write_vec`: R7xx owner-computes LDS in the declared sharing mode
/// unless the statement names one.
fn owner_lds_op(dec: &Decoder, st: &Instruction, line: u32) -> Result<Op, InterpError> {
    let Some((_, abs_default)) = dec.out.owner_lds else {
        return Err(malformed(
            line,
            format!("{} needs dcl_lds_size_per_thread", st.opcode.mnemonic()),
        ));
    };
    let abs = crate::decls::sharing_mode(st).unwrap_or(abs_default);
    Ok(if st.opcode == Opcode::LdsReadVec {
        Op::OwnerRead {
            abs,
            exchange: st.generic("neighborexch").is_some(),
        }
    } else {
        let offset = st
            .controls
            .iter()
            .find_map(|c| match c {
                ast::Control::LOffset(n) => Some(*n),
                _ => None,
            })
            .unwrap_or(0);
        Op::OwnerWrite { abs, offset }
    })
}

/// An atomic of opcode `op` (an error for an opcode that is none); normalises the UAV
/// compare-exchange's sources to the LDS order.
fn atomic_op(
    dec: &Decoder,
    st: &Instruction,
    line: u32,
    op: Opcode,
    src: &mut [super::program::Src],
) -> Result<Op, InterpError> {
    let id = st.id().unwrap_or(0);
    let Some((aop, ret, mem)) = atomic_of(op) else {
        return Err(err(line, format!("opcode {op:?}")));
    };
    let three = matches!(aop, AtomicOp::CmpXchg | AtomicOp::MskOr);
    need_sources(st, line, src.len(), if three { 3 } else { 2 })?;
    if aop == AtomicOp::CmpXchg && mem == AtomicMem::Uav {
        // UAV form: src1 = new value, src2 = compare (L8758, L8885); normalise to
        // (compare, new) as the LDS form has it (L8229, L8419).
        src.swap(1, 2);
    }
    let (space, addr) = match mem {
        AtomicMem::Lds => (Space::Lds(id), lds_addr(dec, id, false)),
        AtomicMem::Gds => (Space::Gds(id), gds_addr(dec, id)),
        AtomicMem::Uav => (Space::Uav(id), uav_addr(dec, id)),
    };
    Ok(Op::Atomic {
        space,
        addr,
        op: aop,
        ret,
    })
}
