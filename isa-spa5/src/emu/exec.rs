//! Instruction semantics: what each non-control instruction does to the active lanes.
//!
//! [`Kind::of`] maps a table row to its semantics once per launch; [`execute`] runs it for
//! the lanes in a mask. Operands are read by position in the row's operand list, the way the
//! table defines them (destination(s) first, then sources A, B, C); modifiers by kind. Facts
//! not evident from the encoding are noted where they are used (XMAD modes, the condition
//! code, SHFL's clamp operand, ...).

use super::fp::{self, Round};
use super::memory::{read_words, write_words, Global, Space};
use super::warp::Warp;
use super::EmuError;
use crate::inst::{Inst, ModKind as M, Op, Operand};
use crate::regs::SpecialReg;

/// The semantics of a table row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub(crate) enum Kind {
    Iadd,
    Iadd32i,
    Iadd3,
    Iscadd,
    Iscadd32i,
    Imnmx,
    Xmad,
    Lea,
    LeaHi,
    Isetp,
    Iset,
    Icmp,
    Fcmp,
    Sel,
    Lop,
    Lop32i,
    Lop3,
    Shl,
    Shr,
    ShfL,
    ShfR,
    Bfe,
    Bfi,
    Flo,
    Popc,
    Prmt,
    Mov,
    S2r,
    P2r,
    R2p,
    Fadd,
    Fmul,
    Ffma,
    Fmnmx,
    Fsetp,
    Fset,
    Fchk,
    Mufu,
    Rro,
    F2f,
    F2i,
    I2f,
    I2i,
    Dadd,
    Dmul,
    Dfma,
    Dmnmx,
    Dsetp,
    Dset,
    Psetp,
    Pset,
    /// CSETP: a predicate from a condition-code test.
    Csetp,
    Ld,
    St,
    Ldc,
    Atom,
    AtomCas,
    Red,
    Bra,
    Ssy,
    Pbk,
    Pcnt,
    Cal,
    /// PRET: pushes a return entry (the target) for a later `RET`, without jumping.
    Pret,
    /// BRX: indirect branch, per-lane target.
    Brx,
    Ret,
    Exit,
    Brk,
    Cont,
    Sync,
    BarSync,
    BarRed,
    B2rResult,
    Shfl,
    Vote,
    Vabsdiff,
    /// TEX, TLD, TXQ: through the device's texture unit.
    Tex,
    /// MEMBAR, DEPBAR, NOP, BAR.ARV: no architectural effect in this model.
    Nop,
    Unsupported,
}

impl Kind {
    pub(crate) fn of(inst: &Inst) -> Kind {
        use Kind as K;
        let f = inst.form();
        match f.mnemonic {
            "IADD" => K::Iadd,
            "IADD32I" => K::Iadd32i,
            "IADD3" => K::Iadd3,
            "ISCADD" => K::Iscadd,
            "ISCADD32I" => K::Iscadd32i,
            "IMNMX" => K::Imnmx,
            "VABSDIFF" | "VMNMX" => K::Vabsdiff,
            "XMAD" => K::Xmad,
            "LEA" => K::Lea,
            "LEA.HI" => K::LeaHi,
            "ISETP" => K::Isetp,
            "ISET" => K::Iset,
            "ICMP" => K::Icmp,
            "FCMP" => K::Fcmp,
            "SEL" => K::Sel,
            "LOP" => K::Lop,
            "LOP32I" => K::Lop32i,
            "LOP3.LUT" => K::Lop3,
            "SHL" => K::Shl,
            "SHR" => K::Shr,
            "SHF.L" => K::ShfL,
            "SHF.R" => K::ShfR,
            "BFE" => K::Bfe,
            "BFI" => K::Bfi,
            "FLO" => K::Flo,
            "POPC" => K::Popc,
            "PRMT" => K::Prmt,
            "MOV" | "MOV32I" => K::Mov,
            "S2R" | "CS2R" => K::S2r,
            "P2R" => K::P2r,
            "R2P" => K::R2p,
            "FADD" | "FADD32I" => K::Fadd,
            "FMUL" | "FMUL32I" => K::Fmul,
            "FFMA" | "FFMA32I" => K::Ffma,
            "FMNMX" => K::Fmnmx,
            "FSETP" => K::Fsetp,
            "FSET" => K::Fset,
            "FCHK" => K::Fchk,
            "MUFU" => K::Mufu,
            "RRO" => K::Rro,
            "F2F" => K::F2f,
            "F2I" => K::F2i,
            "I2F" => K::I2f,
            "I2I" => K::I2i,
            "CSETP" => K::Csetp,
            "DADD" => K::Dadd,
            "DMUL" => K::Dmul,
            "DFMA" => K::Dfma,
            "DMNMX" => K::Dmnmx,
            "DSETP" => K::Dsetp,
            "DSET" => K::Dset,
            "PSETP" => K::Psetp,
            "PSET" => K::Pset,
            "LDG" | "LDL" | "LDS" | "LD" => K::Ld,
            "STG" | "STL" | "STS" | "ST" => K::St,
            "LDC" => K::Ldc,
            "TEX" | "TLD" | "TLD4" | "TXQ" | "TEXS" | "TLDS" => K::Tex,
            "ATOM" | "ATOMS" if matches!(inst.op, Op::ATOM_CAS | Op::ATOMS_CAS) => K::AtomCas,
            "ATOM" | "ATOMS" => K::Atom,
            "RED" => K::Red,
            "BRA" => K::Bra,
            "SSY" => K::Ssy,
            "PBK" => K::Pbk,
            "PCNT" => K::Pcnt,
            "CAL" | "JCAL" => K::Cal,
            "RET" => K::Ret,
            "PRET" => K::Pret,
            "BRX" => K::Brx,
            "EXIT" => K::Exit,
            "BRK" => K::Brk,
            "CONT" => K::Cont,
            "SYNC" => K::Sync,
            "BAR.SYNC" => K::BarSync,
            "BAR.RED" => K::BarRed,
            "B2R.RESULT" => K::B2rResult,
            "SHFL" => K::Shfl,
            "VOTE" => K::Vote,
            "MEMBAR" | "DEPBAR" | "DEPBAR.LE" | "NOP" | "BAR.ARV" => K::Nop,
            _ => K::Unsupported,
        }
    }
}

/// What an instruction reaches besides its warp.
pub(crate) struct Ctx<'a> {
    pub banks: &'a [Vec<u8>],
    pub tex: Option<&'a dyn super::TextureUnit>,
    pub shared: &'a mut [u8],
    pub local: &'a mut [u8],
    pub local_size: usize,
    pub mem: &'a mut Global,
    pub ctaid: [u32; 3],
    pub block: [u32; 3],
    pub grid: [u32; 3],
}

impl Ctx<'_> {
    fn cbuf(&self, bank: u8, offset: i64, n: usize) -> [u32; 4] {
        let b = self.banks.get(bank as usize).map_or(&[][..], |v| &v[..]);
        if offset < 0 {
            return [0; 4];
        }
        read_words(b, offset as usize, n).unwrap_or_default()
    }
}

pub(crate) fn unsupported(inst: &Inst, pc: u32, why: &str) -> EmuError {
    EmuError::Unsupported {
        pc,
        inst: format!(
            "{} ({why})",
            crate::asm::print_inst(
                inst,
                &crate::asm::PrintCtx {
                    addr: pc as u64,
                    reuse: 0
                }
            )
        ),
    }
}

/// Iterates over the set bits of a lane mask.
fn lanes(mask: u32) -> impl Iterator<Item = usize> {
    let mut m = mask;
    std::iter::from_fn(move || {
        if m == 0 {
            None
        } else {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            Some(l)
        }
    })
}

fn md(inst: &Inst, k: M) -> u8 {
    inst.get(k).unwrap_or(0)
}

fn flag(inst: &Inst, k: M) -> bool {
    md(inst, k) != 0
}

/// Lanes for which a CC test holds (all lanes for the always-true test `15`); an unknown
/// test is an error at `pc`.
pub(crate) fn cc_test(inst: &Inst, pc: u32, w: &Warp) -> Result<u32, EmuError> {
    // Flags of an integer or set result (ISET/FSET/IADD/I2I .CC): zero, sign, carry,
    // overflow; the "unordered" forms (..U) equal the ordered ones on such results. The
    // ordered tests read zero and sign (ptxas: `I2I.S32.S32 RZ.CC, R5` then
    // `CSETP.LT.AND P1, PT, CC, PT` for `R5 < 0`); OFF/OFT/SFF/SFT test one flag each.
    let (z, s, c, o) = (w.zf, w.sf, w.cf, w.of);
    Ok(match inst.get(M::CcTest) {
        None | Some(15) => u32::MAX,
        Some(0) => 0,
        Some(1) | Some(9) => s & !z,   // LT, LTU
        Some(2) | Some(10) => z,       // EQ, EQU
        Some(3) | Some(11) => s | z,   // LE, LEU
        Some(4) | Some(12) => !s & !z, // GT, GTU
        Some(5) | Some(13) => !z,      // NE, NEU
        Some(6) | Some(14) => !s,      // GE, GEU
        Some(16) => !o,                // OFF (overflow flag clear)
        Some(17) => !c,                // LO (unsigned <, no carry)
        Some(18) => !s,                // SFF (sign flag clear)
        Some(21) => s,                 // SFT (sign flag set)
        Some(23) => o,                 // OFT (overflow flag set)
        Some(19) => !c | z,            // LS
        Some(20) => c & !z,            // HI
        Some(22) => c,                 // HS
        Some(_) => return Err(unsupported(inst, pc, "condition-code test")),
    })
}

/// The predicate mask of operand `i` (a `Pred` operand, negation applied).
pub(crate) fn pred_operand(inst: &Inst, w: &Warp, i: usize) -> u32 {
    match inst.ops().get(i) {
        Some(Operand::Pred(p)) => {
            let m = w.pred(p.reg.0);
            if p.not {
                !m
            } else {
                m
            }
        }
        _ => 0,
    }
}

fn dst_reg(inst: &Inst, i: usize) -> u8 {
    match inst.ops().get(i) {
        Some(Operand::Reg(r)) => r.0,
        _ => 255,
    }
}

/// Writes `f(w, ctx, lane)` to the first destination register of every lane in `g`, lane
/// by lane.
fn per_lane(
    inst: &Inst,
    w: &mut Warp,
    g: u32,
    ctx: &Ctx,
    f: impl Fn(&Warp, &Ctx, usize) -> u32,
) -> Result<(), EmuError> {
    let d = dst_reg(inst, 0);
    for l in lanes(g) {
        let v = f(w, ctx, l);
        w.set_reg(d, l, v);
    }
    Ok(())
}

fn dst_pred(inst: &Inst, i: usize) -> u8 {
    match inst.ops().get(i) {
        Some(Operand::Pred(p)) => p.reg.0,
        _ => 7,
    }
}

/// 32-bit value of source operand `i` for `lane`.
fn src(inst: &Inst, i: usize, w: &Warp, ctx: &Ctx, lane: usize) -> u32 {
    match inst.ops().get(i) {
        Some(Operand::Reg(r)) => w.reg(r.0, lane),
        Some(Operand::Imm(v)) => *v as u32,
        Some(Operand::F32(b)) => *b,
        Some(Operand::F64(b)) => (*b >> 32) as u32,
        Some(Operand::CBuf { bank, offset }) => ctx.cbuf(*bank, *offset as i64, 4)[0],
        _ => 0,
    }
}

/// A video source: the byte (select 0-3), half (4-5) or word (6) of `x` that field value `v`
/// ([`crate::table::Place::Video`]) selects, sign-extended when its signed bit (8) is set.
fn video_source(x: u32, v: u8) -> i64 {
    let signed = v & 8 != 0;
    match v & 7 {
        s @ 0..=3 => {
            let b = (x >> (8 * s)) as u8;
            if signed {
                i64::from(b as i8)
            } else {
                i64::from(b)
            }
        }
        s @ 4..=5 => {
            let h = (x >> (16 * (s - 4))) as u16;
            if signed {
                i64::from(h as i16)
            } else {
                i64::from(h)
            }
        }
        _ => {
            if signed {
                i64::from(x as i32)
            } else {
                i64::from(x)
            }
        }
    }
}

/// 64-bit value of source operand `i` (a register pair, a `D20` immediate or 8 constant bytes).
fn src64(inst: &Inst, i: usize, w: &Warp, ctx: &Ctx, lane: usize) -> u64 {
    match inst.ops().get(i) {
        Some(Operand::Reg(r)) if r.0 == 255 => 0,
        Some(Operand::Reg(r)) => {
            w.reg(r.0, lane) as u64 | (w.reg(r.0.saturating_add(1), lane) as u64) << 32
        }
        Some(Operand::F64(b)) => *b,
        Some(Operand::Imm(v)) => *v as u64,
        Some(Operand::CBuf { bank, offset }) => {
            let v = ctx.cbuf(*bank, *offset as i64, 8);
            v[0] as u64 | (v[1] as u64) << 32
        }
        _ => 0,
    }
}

fn set64(w: &mut Warp, r: u8, lane: usize, v: u64) {
    w.set_reg(r, lane, v as u32);
    if r != 255 {
        w.set_reg(r + 1, lane, (v >> 32) as u32);
    }
}

/// Applies `.neg`/`.abs` of operand `i` to f32 bits.
fn fmods(inst: &Inst, i: u8, x: u32) -> u32 {
    let mut x = x;
    if flag(inst, M::Abs(i)) {
        x &= 0x7fff_ffff;
    }
    if flag(inst, M::Neg(i)) {
        x ^= 0x8000_0000;
    }
    x
}

fn dmods(inst: &Inst, i: u8, x: u64) -> u64 {
    let mut x = x;
    if flag(inst, M::Abs(i)) {
        x &= !(1 << 63);
    }
    if flag(inst, M::Neg(i)) {
        x ^= 1 << 63;
    }
    x
}

/// Integer compare by the ICMP code (bit 0 less, 1 equal, 2 greater).
fn icmp(code: u8, a: u32, b: u32, signed: bool) -> bool {
    let (lt, eq, gt) = if signed {
        ((a as i32) < (b as i32), a == b, (a as i32) > (b as i32))
    } else {
        (a < b, a == b, a > b)
    };
    (code & 1 != 0 && lt) || (code & 2 != 0 && eq) || (code & 4 != 0 && gt)
}

/// The `.X` form of a compare: the high word of a 64-bit compare whose low word was
/// subtracted by an `IADD.CC` (carry set = no borrow, zero flag = low words equal).
fn icmp_x(code: u8, a: u32, b: u32, signed: bool, cf: bool, zf: bool) -> bool {
    let (hlt, heq, hgt) = if signed {
        ((a as i32) < (b as i32), a == b, (a as i32) > (b as i32))
    } else {
        (a < b, a == b, a > b)
    };
    let lt = hlt || (heq && !cf);
    let eq = heq && zf;
    let gt = hgt || (heq && cf && !zf);
    (code & 1 != 0 && lt) || (code & 2 != 0 && eq) || (code & 4 != 0 && gt)
}

fn bop(op: u8, a: bool, b: bool) -> bool {
    match op {
        0 => a && b,
        1 => a || b,
        _ => a != b,
    }
}

/// The predicate combination of the `..SETP`/`..SET` forms: each lane's test combined with
/// its bit of `c` by `op` ([`bop`]), as the result mask and the inverse mask (the test
/// negated, then combined).
fn combine(op: u8, c: u32, g: u32, mut test: impl FnMut(usize) -> bool) -> (u32, u32) {
    let (mut res, mut inv) = (0u32, 0u32);
    for l in lanes(g) {
        let r = test(l);
        let cl = c >> l & 1 != 0;
        res |= (bop(op, r, cl) as u32) << l;
        inv |= (bop(op, !r, cl) as u32) << l;
    }
    (res, inv)
}

/// Adds with carry in, returning (sum, carry out, overflow).
fn add_c(a: u32, b: u32, cin: u32) -> (u32, bool, bool) {
    let s = a as u64 + b as u64 + cin as u64;
    let r = s as u32;
    let ov = ((a ^ r) & (b ^ r)) >> 31 != 0;
    (r, s >> 32 != 0, ov)
}

fn set_flags(w: &mut Warp, lane: usize, r: u32, carry: bool, ov: bool, chain_zero: bool) {
    let bit = 1u32 << lane;
    let z = r == 0 && chain_zero;
    w.cf = if carry { w.cf | bit } else { w.cf & !bit };
    w.of = if ov { w.of | bit } else { w.of & !bit };
    w.zf = if z { w.zf | bit } else { w.zf & !bit };
    w.sf = if r >> 31 != 0 {
        w.sf | bit
    } else {
        w.sf & !bit
    };
}

/// Executes a non-control instruction for the lanes in `g` (never empty).
pub(crate) fn execute(
    kind: Kind,
    inst: &Inst,
    pc: u32,
    w: &mut Warp,
    g: u32,
    ctx: &mut Ctx,
) -> Result<(), EmuError> {
    use Kind as K;
    match kind {
        K::Iadd | K::Iadd32i | K::Iadd3 | K::Iscadd | K::Iscadd32i | K::Lea | K::LeaHi => {
            int_add(kind, inst, w, g, ctx)
        }
        K::Xmad => {
            xmad(inst, w, g, ctx);
            Ok(())
        }
        K::Imnmx => int_min_max(inst, pc, w, g, ctx),
        K::Vabsdiff => video_abs_diff(inst, pc, w, g, ctx),
        K::Isetp | K::Iset => int_set(kind, inst, w, g, ctx),
        K::Icmp | K::Fcmp => compare_select(kind, inst, w, g, ctx),
        K::Sel => select(inst, w, g, ctx),
        K::Lop | K::Lop32i | K::Lop3 => {
            logic(kind, inst, w, g, ctx);
            Ok(())
        }
        K::Shl | K::Shr => shift(kind, inst, pc, w, g, ctx),
        K::ShfL | K::ShfR => funnel_shift(kind, inst, pc, w, g, ctx),
        K::Bfe => bit_field_extract(inst, w, g, ctx),
        K::Bfi => bit_field_insert(inst, w, g, ctx),
        K::Flo => find_leading_one(inst, w, g, ctx),
        K::Popc => pop_count(inst, w, g, ctx),
        K::Prmt => permute(inst, pc, w, g, ctx),
        K::Mov => {
            let d = dst_reg(inst, 0);
            for l in lanes(g) {
                let v = src(inst, 1, w, ctx, l);
                w.set_reg(d, l, v);
            }
            Ok(())
        }
        K::S2r => special_register(inst, pc, w, g, ctx),
        K::P2r => predicates_to_register(inst, w, g, ctx),
        K::R2p => register_to_predicates(inst, w, g, ctx),
        K::Fadd
        | K::Fmul
        | K::Ffma
        | K::Fmnmx
        | K::Fset
        | K::Fsetp
        | K::Fchk
        | K::Mufu
        | K::Rro => float(kind, inst, pc, w, g, ctx),
        K::F2f | K::F2i | K::I2f | K::I2i => convert(kind, inst, pc, w, g, ctx),
        K::Dadd | K::Dmul | K::Dfma | K::Dmnmx | K::Dsetp | K::Dset => {
            double(kind, inst, w, g, ctx);
            Ok(())
        }
        K::Psetp | K::Pset => predicate_set(kind, inst, w, g),
        K::Csetp => condition_code_set(inst, pc, w, g),
        K::Ld | K::St | K::Ldc => memory(kind, inst, pc, w, g, ctx),
        K::Tex => super::texture::execute(inst, pc, w, g, ctx.banks, ctx.tex),
        K::Atom | K::AtomCas | K::Red => atomic(kind, inst, pc, w, g, ctx),
        K::B2rResult => barrier_result(inst, w, g),
        K::Shfl => {
            shfl(inst, w, g, ctx);
            Ok(())
        }
        K::Vote => vote(inst, w, g),
        K::Nop => Ok(()),
        _ => Err(unsupported(inst, pc, "not implemented by the emulator")),
    }
}

/// IMNMX: integer min/max, selected by a predicate; the `.XHI`/`.XLO` pair of a 64-bit one.
fn int_min_max(inst: &Inst, pc: u32, w: &mut Warp, g: u32, ctx: &mut Ctx) -> Result<(), EmuError> {
    // 64-bit min/max in two steps (ptxas: `IMNMX.XHI R8.CC, R5, R3, !PT` on the
    // high words, then `IMNMX.U32.XLO R9, R4, R2, !PT` on the low words): XHI
    // compares the high words and leaves in the flags whether they are equal (zero)
    // and whether a < b (sign; carry = not less, like a subtraction without
    // borrow); XLO compares the low words only when the high words were equal and
    // otherwise follows the high words' order.
    let signed = md(inst, M::Signed) == 1;
    let mode = md(inst, M::Mode);
    if mode == 2 {
        return Err(unsupported(inst, pc, "IMNMX.XMED"));
    }
    if mode == 0 && flag(inst, M::Cc) {
        return Err(unsupported(inst, pc, "IMNMX with .CC"));
    }
    let pmin = pred_operand(inst, w, 3);
    let d = dst_reg(inst, 0);
    for l in lanes(g) {
        let (a, b) = (src(inst, 1, w, ctx, l), src(inst, 2, w, ctx, l));
        let bit = 1u32 << l;
        let a_less = match mode {
            1 if w.zf & bit == 0 => w.sf & bit != 0,
            _ if signed => (a as i32) < (b as i32),
            _ => a < b,
        };
        let min = pmin >> l & 1 != 0;
        w.set_reg(d, l, if a_less == min { a } else { b });
        if mode == 3 && flag(inst, M::Cc) {
            let set = |f: u32, on: bool| if on { f | bit } else { f & !bit };
            w.zf = set(w.zf, a == b);
            w.sf = set(w.sf, a_less);
            w.cf = set(w.cf, !a_less);
            w.of &= !bit;
        }
    }
    Ok(())
}

/// VABSDIFF and VMNMX: the video instructions on selected bytes, halves or words.
fn video_abs_diff(
    inst: &Inst,
    pc: u32,
    w: &mut Warp,
    g: u32,
    ctx: &mut Ctx,
) -> Result<(), EmuError> {
    // d = op(f(a, b), c), f = |a - b| (VABSDIFF) or min/max (VMNMX, `.MX`), op = +
    // (ACC), min, max or none; a and b are the selected bytes/halves/words, sign- or
    // zero-extended; c and d are signed with `.SD` (VABSDIFF) / without `.UD` (VMNMX);
    // `.SAT` clamps to d's range, otherwise the low 32 bits are kept (PTX `vabsdiff`,
    // `vmin`, `vmax`).
    use crate::inst::Op;
    let name = inst.op.name();
    if flag(inst, M::Cc) {
        return Err(unsupported(inst, pc, &format!("{name}.CC")));
    }
    let mode = md(inst, M::Mode);
    if mode < 4 {
        return Err(unsupported(
            inst,
            pc,
            &format!("{name} merge (MRG_*) modes"),
        ));
    }
    let f = match inst.op {
        Op::VMNMX_R | Op::VMNMX_I if flag(inst, M::VMax) => i64::max,
        Op::VMNMX_R | Op::VMNMX_I => i64::min,
        _ => |a: i64, b: i64| (a - b).abs(),
    };
    let sd = flag(inst, M::Signed);
    let sat = flag(inst, M::Sat);
    let (va, vb) = (md(inst, M::VSrc(1)), md(inst, M::VSrc(2)));
    let imm_b = matches!(inst.op, Op::VABSDIFF_I | Op::VMNMX_I);
    per_lane(inst, w, g, ctx, |w, ctx, l| {
        let a = video_source(src(inst, 1, w, ctx, l), va);
        let rb = src(inst, 2, w, ctx, l);
        let b = if imm_b {
            if vb & 1 != 0 {
                i64::from(rb as u16 as i16)
            } else {
                i64::from(rb as u16)
            }
        } else {
            video_source(rb, vb)
        };
        let rc = src(inst, 3, w, ctx, l);
        let c = if sd {
            i64::from(rc as i32)
        } else {
            i64::from(rc)
        };
        let diff = f(a, b);
        let r = match mode {
            4 => diff + c,
            5 => diff.min(c),
            6 => diff.max(c),
            _ => diff,
        };
        let r = match (sat, sd) {
            (true, true) => r.clamp(i64::from(i32::MIN), i64::from(i32::MAX)),
            (true, false) => r.clamp(0, i64::from(u32::MAX)),
            _ => r,
        };
        r as u32
    })
}

/// ISETP and ISET: integer compare (`.X`: the high words of a 64-bit one), combined with a predicate.
fn int_set(kind: Kind, inst: &Inst, w: &mut Warp, g: u32, ctx: &mut Ctx) -> Result<(), EmuError> {
    use Kind as K;
    let signed = md(inst, M::Signed) == 1;
    let code = md(inst, M::ICmp);
    let x = flag(inst, M::X);
    set_compare(inst, w, g, kind == K::Isetp, |w, l, ia| {
        let (a, b) = (src(inst, ia, w, ctx, l), src(inst, ia + 1, w, ctx, l));
        if x {
            icmp_x(code, a, b, signed, w.cf >> l & 1 != 0, w.zf >> l & 1 != 0)
        } else {
            icmp(code, a, b, signed)
        }
    });
    Ok(())
}

/// The xSETP and xSET forms: `test(w, lane, ia)` compares the two sources from operand `ia`
/// on (2 for the predicate forms, after their two destinations; 1 for the register forms);
/// the result is combined (`.Bop`) with the predicate source that follows the sources. The
/// predicate forms (`predicate`) write the result and its inverse, the others a register.
fn set_compare(
    inst: &Inst,
    w: &mut Warp,
    g: u32,
    predicate: bool,
    test: impl Fn(&Warp, usize, usize) -> bool,
) {
    let op = md(inst, M::Bop);
    let ia = if predicate { 2 } else { 1 };
    let c = pred_operand(inst, w, ia + 2);
    let (res, inv) = combine(op, c, g, |l| test(w, l, ia));
    set_or_predicate(inst, w, g, predicate, res, inv);
}

/// ICMP and FCMP: select one of two sources by comparing a third with zero.
fn compare_select(
    kind: Kind,
    inst: &Inst,
    w: &mut Warp,
    g: u32,
    ctx: &mut Ctx,
) -> Result<(), EmuError> {
    use Kind as K;
    let signed = md(inst, M::Signed) == 1;
    per_lane(inst, w, g, ctx, |w, ctx, l| {
        let c = src(inst, 3, w, ctx, l);
        let t = if kind == K::Icmp {
            icmp(md(inst, M::ICmp), c, 0, signed)
        } else {
            let c = if flag(inst, M::Ftz) { fp::ftz(c) } else { c };
            fp::fcmp(md(inst, M::FCmp), f32::from_bits(c) as f64, 0.0)
        };
        if t {
            src(inst, 1, w, ctx, l)
        } else {
            src(inst, 2, w, ctx, l)
        }
    })
}

/// SEL: select one of two sources by a predicate.
fn select(inst: &Inst, w: &mut Warp, g: u32, ctx: &mut Ctx) -> Result<(), EmuError> {
    let p = pred_operand(inst, w, 3);
    per_lane(inst, w, g, ctx, |w, ctx, l| {
        if p >> l & 1 != 0 {
            src(inst, 1, w, ctx, l)
        } else {
            src(inst, 2, w, ctx, l)
        }
    })
}

/// SHL and SHR: 32-bit shifts (`.W`: the count wraps; SHR `.BREV` reverses the bits first).
fn shift(
    kind: Kind,
    inst: &Inst,
    pc: u32,
    w: &mut Warp,
    g: u32,
    ctx: &mut Ctx,
) -> Result<(), EmuError> {
    use Kind as K;
    if flag(inst, M::X) || flag(inst, M::Cc) {
        return Err(unsupported(inst, pc, "shift with .X/.CC"));
    }
    let wrap = flag(inst, M::W);
    let signed = md(inst, M::Signed) == 1;
    let brev = flag(inst, M::Brev);
    per_lane(inst, w, g, ctx, |w, ctx, l| {
        let mut a = src(inst, 1, w, ctx, l);
        let s = src(inst, 2, w, ctx, l);
        let s = if wrap { s & 31 } else { s.min(32) };
        if kind == K::Shl {
            if s >= 32 {
                0
            } else {
                a << s
            }
        } else {
            if brev {
                a = a.reverse_bits();
            }
            if signed {
                ((a as i32) >> s.min(31)) as u32
            } else if s >= 32 {
                0
            } else {
                a >> s
            }
        }
    })
}

/// SHF.L and SHF.R: funnel shifts of a register pair, 32 or 64 bits wide.
fn funnel_shift(
    kind: Kind,
    inst: &Inst,
    pc: u32,
    w: &mut Warp,
    g: u32,
    ctx: &mut Ctx,
) -> Result<(), EmuError> {
    use Kind as K;
    let wrap = flag(inst, M::W);
    let ty = md(inst, M::ShfType);
    let wide = ty >= 2;
    let signed = ty == 3;
    let hi = md(inst, M::Hi);
    if hi & 2 != 0 {
        return Err(unsupported(inst, pc, "SHF.X"));
    }
    per_lane(inst, w, g, ctx, |w, ctx, l| {
        let lo = src(inst, 1, w, ctx, l);
        let s = src(inst, 2, w, ctx, l);
        let hw = src(inst, 3, w, ctx, l);
        let bits = if wide { 64 } else { 32 };
        let s = if wrap { s & (bits - 1) } else { s.min(bits) };
        let x = (hw as u64) << 32 | lo as u64;
        if kind == K::ShfL {
            let r = if s >= 64 { 0 } else { x << s };
            (r >> 32) as u32
        } else {
            let r = if signed {
                ((x as i64) >> s.min(63)) as u64
            } else if s >= 64 {
                0
            } else {
                x >> s
            };
            if hi & 1 != 0 {
                (r >> 32) as u32
            } else {
                r as u32
            }
        }
    })
}

/// BFE: extract a bit field (position and length in the second source).
fn bit_field_extract(inst: &Inst, w: &mut Warp, g: u32, ctx: &mut Ctx) -> Result<(), EmuError> {
    let signed = md(inst, M::Signed) == 1;
    per_lane(inst, w, g, ctx, |w, ctx, l| {
        let mut a = src(inst, 1, w, ctx, l);
        if flag(inst, M::Brev) {
            a = a.reverse_bits();
        }
        let b = src(inst, 2, w, ctx, l);
        let (pos, len) = (b & 0xff, (b >> 8) & 0xff);
        bfe(a, pos, len, signed)
    })
}

/// BFI: insert a bit field into the third source.
fn bit_field_insert(inst: &Inst, w: &mut Warp, g: u32, ctx: &mut Ctx) -> Result<(), EmuError> {
    per_lane(inst, w, g, ctx, |w, ctx, l| {
        let a = src(inst, 1, w, ctx, l);
        let b = src(inst, 2, w, ctx, l);
        let c = src(inst, 3, w, ctx, l);
        let (pos, len) = (b & 0xff, (b >> 8) & 0xff);
        if len == 0 || pos >= 32 {
            c
        } else {
            let len = len.min(32 - pos);
            let mask = if len == 32 {
                u32::MAX
            } else {
                ((1u32 << len) - 1) << pos
            };
            (c & !mask) | ((a << pos) & mask)
        }
    })
}

/// FLO: the position (or with `.SH` the shift amount) of the leading one bit.
fn find_leading_one(inst: &Inst, w: &mut Warp, g: u32, ctx: &mut Ctx) -> Result<(), EmuError> {
    let signed = md(inst, M::Signed) == 1;
    per_lane(inst, w, g, ctx, |w, ctx, l| {
        let mut b = src(inst, 1, w, ctx, l);
        if flag(inst, M::Inv(1)) {
            b = !b;
        }
        if signed && (b as i32) < 0 {
            b = !b;
        }
        if b == 0 {
            u32::MAX
        } else if flag(inst, M::Sh) {
            b.leading_zeros()
        } else {
            31 - b.leading_zeros()
        }
    })
}

/// POPC: the number of one bits.
fn pop_count(inst: &Inst, w: &mut Warp, g: u32, ctx: &mut Ctx) -> Result<(), EmuError> {
    per_lane(inst, w, g, ctx, |w, ctx, l| {
        let mut b = src(inst, 1, w, ctx, l);
        if flag(inst, M::Inv(1)) {
            b = !b;
        }
        b.count_ones()
    })
}

/// PRMT: byte permute of a register pair (default mode only).
fn permute(inst: &Inst, pc: u32, w: &mut Warp, g: u32, ctx: &mut Ctx) -> Result<(), EmuError> {
    if md(inst, M::Mode) != 0 {
        return Err(unsupported(inst, pc, "PRMT mode other than the default"));
    }
    per_lane(inst, w, g, ctx, |w, ctx, l| {
        let a = src(inst, 1, w, ctx, l);
        let sel = src(inst, 2, w, ctx, l);
        let c = src(inst, 3, w, ctx, l);
        let bytes = ((c as u64) << 32 | a as u64).to_le_bytes();
        let mut v = 0u32;
        for i in 0..4 {
            let s = (sel >> (4 * i)) & 0xf;
            let mut byte = bytes[(s & 7) as usize] as u32;
            if s & 8 != 0 {
                byte = if byte & 0x80 != 0 { 0xff } else { 0 };
            }
            v |= byte << (8 * i);
        }
        v
    })
}

/// S2R: read a special register (thread and block ids, lane masks, clocks).
fn special_register(
    inst: &Inst,
    pc: u32,
    w: &mut Warp,
    g: u32,
    ctx: &mut Ctx,
) -> Result<(), EmuError> {
    let sr = match inst.ops().get(1) {
        Some(Operand::SReg(s)) => *s,
        _ => return Err(unsupported(inst, pc, "special register operand")),
    };
    let d = dst_reg(inst, 0);
    for l in lanes(g) {
        let t = w.tid[l];
        let v = match sr {
            SpecialReg::LANEID => l as u32,
            SpecialReg::TID_X => t[0],
            SpecialReg::TID_Y => t[1],
            SpecialReg::TID_Z => t[2],
            SpecialReg::TID => t[0] | t[1] << 16 | t[2] << 26,
            SpecialReg::CTAID_X => ctx.ctaid[0],
            SpecialReg::CTAID_Y => ctx.ctaid[1],
            SpecialReg::CTAID_Z => ctx.ctaid[2],
            SpecialReg::NTID => ctx.block[0] | ctx.block[1] << 16 | ctx.block[2] << 26,
            SpecialReg::EQMASK => 1 << l,
            SpecialReg::LTMASK => (1u32 << l) - 1,
            SpecialReg::LEMASK => ((1u64 << (l + 1)) - 1) as u32,
            SpecialReg::GTMASK => !(((1u64 << (l + 1)) - 1) as u32),
            SpecialReg::GEMASK => !((1u32 << l) - 1),
            SpecialReg::CLOCK | SpecialReg::CLOCKLO | SpecialReg::GLOBALTIMERLO => w.clock as u32,
            SpecialReg::CLOCKHI | SpecialReg::GLOBALTIMERHI => (w.clock >> 32) as u32,
            SpecialReg::VIRTID => w.id << 8,
            _ => {
                let _ = ctx.grid;
                return Err(unsupported(inst, pc, "special register"));
            }
        };
        w.set_reg(d, l, v);
    }
    Ok(())
}

/// P2R: the predicates P0..P6 into a byte of a register, under a mask.
fn predicates_to_register(
    inst: &Inst,
    w: &mut Warp,
    g: u32,
    ctx: &mut Ctx,
) -> Result<(), EmuError> {
    let shift = 8 * md(inst, M::ByteSel) as u32;
    per_lane(inst, w, g, ctx, |w, ctx, l| {
        let mut pr = 0u32;
        for p in 0..7 {
            pr |= (w.preds[p] >> l & 1) << p;
        }
        let a = src(inst, 2, w, ctx, l);
        let mask = src(inst, 3, w, ctx, l) & 0xff;
        (a & !(mask << shift)) | ((pr & mask) << shift)
    })
}

/// R2P: a byte of a register into the predicates P0..P6, under a mask.
fn register_to_predicates(
    inst: &Inst,
    w: &mut Warp,
    g: u32,
    ctx: &mut Ctx,
) -> Result<(), EmuError> {
    let shift = 8 * md(inst, M::ByteSel) as u32;
    for l in lanes(g) {
        let a = src(inst, 1, w, ctx, l) >> shift;
        let mask = src(inst, 2, w, ctx, l);
        for p in 0..7u8 {
            if mask >> p & 1 != 0 {
                w.set_pred(p, 1 << l, (a >> p & 1) << l);
            }
        }
    }
    Ok(())
}

/// PSETP and PSET: two boolean operations on three predicates.
fn predicate_set(kind: Kind, inst: &Inst, w: &mut Warp, g: u32) -> Result<(), EmuError> {
    use Kind as K;
    let (ia, ib, ic) = if kind == K::Psetp {
        (2, 3, 4)
    } else {
        (1, 2, 3)
    };
    let a = pred_operand(inst, w, ia);
    let b = pred_operand(inst, w, ib);
    let c = pred_operand(inst, w, ic);
    let (op1, op2) = (md(inst, M::Bop), md(inst, M::Bop2));
    let (res, inv) = combine(op2, c, g, |l| bop(op1, a >> l & 1 != 0, b >> l & 1 != 0));
    set_or_predicate(inst, w, g, kind == K::Psetp, res, inv);
    Ok(())
}

/// CSETP: a condition-code test combined with a predicate.
fn condition_code_set(inst: &Inst, pc: u32, w: &mut Warp, g: u32) -> Result<(), EmuError> {
    let t = cc_test(inst, pc, w)?;
    let c = pred_operand(inst, w, 3);
    let op = md(inst, M::Bop);
    let (res, inv) = combine(op, c, g, |l| t >> l & 1 != 0);
    set_or_predicate(inst, w, g, true, res, inv);
    Ok(())
}

/// The result of a counting barrier (`B2R.RESULT`): the count and the predicate.
fn barrier_result(inst: &Inst, w: &mut Warp, g: u32) -> Result<(), EmuError> {
    let d = dst_reg(inst, 0);
    let (count, p) = w.bar_result;
    for l in lanes(g) {
        w.set_reg(d, l, count);
    }
    if let Some(Operand::Pred(pd)) = inst.ops().get(1) {
        w.set_pred(pd.reg.0, g, if p { u32::MAX } else { 0 });
    }
    Ok(())
}

/// VOTE: ALL, ANY or EQ over the active lanes' predicates, and the ballot.
fn vote(inst: &Inst, w: &mut Warp, g: u32) -> Result<(), EmuError> {
    let p = pred_operand(inst, w, 2);
    let ballot = p & g;
    let r = match md(inst, M::VoteOp) {
        0 => ballot == g,
        1 => ballot != 0,
        _ => ballot == 0 || ballot == g,
    };
    let d = dst_reg(inst, 0);
    for l in lanes(g) {
        w.set_reg(d, l, ballot);
    }
    w.set_pred(dst_pred(inst, 1), g, if r { u32::MAX } else { 0 });
    Ok(())
}

/// The result of a compare: the predicate pair of the `..SETP` forms (result, inverse), or
/// for the `..SET` forms the register value (1.0 with `.BF`, else all ones) where it holds.
fn set_or_predicate(inst: &Inst, w: &mut Warp, g: u32, predicate: bool, res: u32, inv: u32) {
    if predicate {
        w.set_pred(dst_pred(inst, 0), g, res);
        w.set_pred(dst_pred(inst, 1), g, inv);
        return;
    }
    let d = dst_reg(inst, 0);
    let bf = flag(inst, M::Bf);
    for l in lanes(g) {
        let v = match (res >> l & 1 != 0, bf) {
            (true, true) => 1.0f32.to_bits(),
            (true, false) => u32::MAX,
            _ => 0,
        };
        w.set_reg(d, l, v);
        // ISET/FSET .CC: flags of the written result (ptxas tests them with `BRA CC.NEU`).
        if flag(inst, M::Cc) {
            set_flags(w, l, v, false, false, true);
        }
    }
}

fn bfe(a: u32, pos: u32, len: u32, signed: bool) -> u32 {
    if len == 0 {
        return 0;
    }
    if pos >= 32 {
        return if signed && (a as i32) < 0 {
            u32::MAX
        } else {
            0
        };
    }
    let len = len.min(32);
    let end = (pos + len).min(32);
    let width = end - pos;
    let v = (a >> pos)
        & if width == 32 {
            u32::MAX
        } else {
            (1 << width) - 1
        };
    let sign_bit = if pos + len > 32 { 31 } else { pos + len - 1 };
    if signed && (a >> sign_bit) & 1 != 0 {
        if width == 32 {
            v
        } else {
            v | !((1u32 << width) - 1)
        }
    } else {
        v
    }
}

/// The paired negation field of IADD and ISCADD: (negate A, negate B, plus one). Both bits set
/// is not `-a - b` but `.PO`, `a + b + 1` (Mesa NAK's SM50 encoder keeps one source unmodified
/// for that reason: "otherwise it encodes as iadd.po").
fn negations(po: u8) -> (bool, bool, u32) {
    match po {
        3 => (false, false, 1),
        _ => (po & 2 != 0, po & 1 != 0, 0),
    }
}

/// IADD, IADD32I, IADD3, ISCADD(32I), LEA, LEA.HI with negations, `.X`, `.CC`, `.SAT`, `.PO`.
fn int_add(kind: Kind, inst: &Inst, w: &mut Warp, g: u32, ctx: &Ctx) -> Result<(), EmuError> {
    use Kind as K;
    let x = flag(inst, M::X);
    let cc = flag(inst, M::Cc);
    let sat = flag(inst, M::Sat);
    // Leading optional predicate destination of LEA forms.
    let lead = usize::from(matches!(kind, K::Lea | K::LeaHi));
    let d = dst_reg(inst, lead);
    let po = md(inst, M::Po);
    for l in lanes(g) {
        let cin = if x { w.cf >> l & 1 } else { 0 };
        let chain_zero = !x || w.zf >> l & 1 != 0;
        let mut extra = 0u32;
        let mut neg_a = false;
        let mut neg_b = false;
        let (mut a, mut b) = match kind {
            K::Iadd => {
                (neg_a, neg_b, extra) = negations(po);
                (src(inst, 1, w, ctx, l), src(inst, 2, w, ctx, l))
            }
            K::Iadd32i => {
                neg_a = flag(inst, M::Neg(1));
                (src(inst, 1, w, ctx, l), src(inst, 2, w, ctx, l))
            }
            K::Iadd3 => {
                let mut v = [0u32; 3];
                for (k, slot) in v.iter_mut().enumerate() {
                    let mut s = src(inst, k + 1, w, ctx, l);
                    if k == 1 && matches!(inst.ops().get(2), Some(Operand::Imm(_))) {
                        // The 20-bit immediate of `IADD3` is sign-extended, although nvdisasm
                        // prints its raw field: ptxas adds -4 to a 64-bit address as
                        // `IADD3 R26.CC, R9, 0xffffc, R27` + `IADD3.X R27, R11, 0xfffff, R36`
                        // (parboil stencil), which only works for (-4, -1).
                        s = ((s << 12) as i32 >> 12) as u32;
                    }
                    *slot = if flag(inst, M::Neg(k as u8 + 1)) {
                        s.wrapping_neg()
                    } else {
                        s
                    };
                }
                // `.RS` shifts the carry-extended sum of A and B (ptxas's 32x32 high-product
                // sequences depend on that carry), `.LS` the 32-bit sum.
                let wide = v[0] as u64 + v[1] as u64;
                let ab = match md(inst, M::Iadd3Mode) {
                    1 => (wide >> 16) as u32,
                    2 => (wide as u32) << 16,
                    _ => wide as u32,
                };
                let (r, mut c, o) = add_c(ab, v[2], cin);
                if md(inst, M::Iadd3Mode) == 0 {
                    // The carry of the whole three-way sum: ptxas forms 64-bit addresses as
                    // `IADD3 .CC` of a 64-bit base's low word, a pointer and an offset, then
                    // `IADD3.X` of the high words.
                    c |= wide >> 32 != 0;
                }
                w.set_reg(d, l, r);
                if cc {
                    set_flags(w, l, r, c, o, chain_zero);
                }
                continue;
            }
            K::Iscadd | K::Iscadd32i => {
                let s = src(inst, 3, w, ctx, l) & 31;
                (neg_a, neg_b, extra) = negations(po);
                (src(inst, 1, w, ctx, l) << s, src(inst, 2, w, ctx, l))
            }
            K::Lea => {
                let s = src(inst, lead + 3, w, ctx, l) & 31;
                neg_a = flag(inst, M::Neg(2));
                (
                    src(inst, lead + 1, w, ctx, l) << s,
                    src(inst, lead + 2, w, ctx, l),
                )
            }
            _ => {
                // LEA.HI: high word of ({C:A} << s) plus B.
                let s = src(inst, lead + 4, w, ctx, l) & 31;
                let av = src(inst, lead + 1, w, ctx, l);
                let cv = src(inst, lead + 3, w, ctx, l);
                let wide = ((cv as u64) << 32 | av as u64) << s;
                let a = if flag(inst, M::Neg(2)) {
                    // 64-bit negation of the shifted value: its high word.
                    ((wide as i64).wrapping_neg() as u64 >> 32) as u32
                } else {
                    (wide >> 32) as u32
                };
                (a, src(inst, lead + 2, w, ctx, l))
            }
        };
        // Negation is `~v + 1`, so the carry out matches the hardware's subtract; with `.X`
        // the `+ 1` is the incoming carry (`IADD.X Rd, -Ra, Rb` = `Rb + ~Ra + CC.C`, the high
        // half of a 64-bit subtraction).
        if neg_a {
            a = !a;
            extra += u32::from(!x);
        }
        if neg_b {
            b = !b;
            extra += u32::from(!x);
        }
        let s = a as u64 + b as u64 + extra as u64 + cin as u64;
        let mut r = s as u32;
        let carry = s >> 32 != 0;
        let ov = ((a ^ r) & (b ^ r)) >> 31 != 0;
        if sat && ov {
            r = if (a as i32) < 0 {
                0x8000_0000
            } else {
                0x7fff_ffff
            };
        }
        w.set_reg(d, l, r);
        if cc {
            set_flags(w, l, r, carry, ov, chain_zero);
        }
        if lead == 1 {
            if let Some(Operand::Pred(p)) = inst.ops().first() {
                w.set_pred(p.reg.0, 1 << l, (carry as u32) << l);
            }
        }
    }
    Ok(())
}

/// XMAD: 16x16-bit multiply-add with operand halves, sign modes, product shift (`.PSL`),
/// C modes (`.CLO`, `.CHI`, `.CSFU`: C minus the cross products' sign corrections, `.CBCC`: C + B << 16) and `.MRG`
/// (result high half from B's low half).
fn xmad(inst: &Inst, w: &mut Warp, g: u32, ctx: &Ctx) {
    let d = dst_reg(inst, 0);
    let sign = md(inst, M::XSign);
    let (sa, sb) = (sign & 1 != 0, sign & 2 != 0);
    let (ha, hb) = (flag(inst, M::H1(1)), flag(inst, M::H1(2)));
    let psl = flag(inst, M::Psl);
    let mrg = flag(inst, M::Mrg);
    let mode = md(inst, M::XMode);
    let x = flag(inst, M::X);
    let cc = flag(inst, M::Cc);
    let half = |v: u32, hi: bool, signed: bool| -> u32 {
        let h = if hi { v >> 16 } else { v & 0xffff };
        if signed {
            h as u16 as i16 as i32 as u32
        } else {
            h
        }
    };
    for l in lanes(g) {
        let a_raw = src(inst, 1, w, ctx, l);
        let b_raw = src(inst, 2, w, ctx, l)
            & if matches!(inst.ops().get(2), Some(Operand::Imm(_))) {
                0xffff
            } else {
                u32::MAX
            };
        let c_raw = src(inst, 3, w, ctx, l);
        let a = half(a_raw, ha, sa);
        let b = half(b_raw, hb, sb);
        let mut p = a.wrapping_mul(b);
        if psl {
            p <<= 16;
        }
        let c = match mode {
            1 => c_raw & 0xffff,
            2 => c_raw >> 16,
            // CSFU corrects ptxas's signed 32x32 high product (`mul.hi.s32`): the two signed
            // cross products aL*bH and aH*bL are summed as unsigned and shifted right by 16
            // (`IADD3.RS`), which adds 2^16 for each negative one; a cross product is negative
            // when its high half is negative and the other operand's low half is not zero.
            3 => {
                let neg_ab = (a >> 31 != 0 && b_raw & 0xffff != 0) as u32;
                let neg_ba = (b >> 31 != 0 && a_raw & 0xffff != 0) as u32;
                c_raw.wrapping_sub((neg_ab + neg_ba) << 16)
            }
            4 => c_raw.wrapping_add(b_raw << 16),
            _ => c_raw,
        };
        let cin = if x { w.cf >> l & 1 } else { 0 };
        let (mut r, carry, ov) = add_c(p, c, cin);
        if cc {
            let chain_zero = !x || w.zf >> l & 1 != 0;
            set_flags(w, l, r, carry, ov, chain_zero);
        }
        if mrg {
            r = (r & 0xffff) | (b_raw << 16);
        }
        w.set_reg(d, l, r);
    }
}

/// LOP, LOP32I, LOP3.LUT with inversions and the predicate result.
fn logic(kind: Kind, inst: &Inst, w: &mut Warp, g: u32, ctx: &Ctx) {
    use Kind as K;
    let lead = usize::from(matches!(inst.ops().first(), Some(Operand::Pred(_))));
    let d = dst_reg(inst, lead);
    let pmode = md(inst, M::PredMode);
    let mut pres = 0u32;
    for l in lanes(g) {
        let r = match kind {
            K::Lop | K::Lop32i => {
                let (ia, ib) = if kind == K::Lop { (2u8, 3u8) } else { (1, 2) };
                let mut a = src(inst, lead + 1, w, ctx, l);
                let mut b = src(inst, lead + 2, w, ctx, l);
                if flag(inst, M::Inv(ia)) {
                    a = !a;
                }
                if flag(inst, M::Inv(ib)) {
                    b = !b;
                }
                match md(inst, M::LogicOp) {
                    0 => a & b,
                    1 => a | b,
                    2 => a ^ b,
                    _ => b,
                }
            }
            _ => {
                let a = src(inst, lead + 1, w, ctx, l);
                let b = src(inst, lead + 2, w, ctx, l);
                let c = src(inst, lead + 3, w, ctx, l);
                let lut = src(inst, lead + 4, w, ctx, l) & 0xff;
                let mut r = 0u32;
                for bit in 0..32 {
                    let idx = ((a >> bit & 1) << 2) | ((b >> bit & 1) << 1) | (c >> bit & 1);
                    r |= ((lut >> idx) & 1) << bit;
                }
                r
            }
        };
        w.set_reg(d, l, r);
        let p = match pmode {
            1 => true,
            2 => r == 0,
            3 => r != 0,
            _ => false,
        };
        pres |= (p as u32) << l;
        if flag(inst, M::Cc) {
            set_flags(w, l, r, false, false, true);
        }
    }
    if lead == 1 {
        w.set_pred(dst_pred(inst, 0), g, pres);
    }
}

fn float(
    kind: Kind,
    inst: &Inst,
    pc: u32,
    w: &mut Warp,
    g: u32,
    ctx: &Ctx,
) -> Result<(), EmuError> {
    use Kind as K;
    let ftz = flag(inst, M::Ftz);
    let fmz_field = md(inst, M::Fmz);
    let (flush, fmz) = (ftz || fmz_field == 1, fmz_field == 2);
    let rnd = Round::from_field(md(inst, M::Rnd));
    let sat = flag(inst, M::Sat);
    if flag(inst, M::Cc) {
        return Err(unsupported(inst, pc, "float op with .CC"));
    }
    match kind {
        K::Fadd | K::Fmul | K::Ffma => {
            let d = dst_reg(inst, 0);
            let scale = md(inst, M::Scale);
            for l in lanes(g) {
                let a = fmods(inst, 1, src(inst, 1, w, ctx, l));
                let b = fmods(inst, 2, src(inst, 2, w, ctx, l));
                let mut r = match kind {
                    K::Fadd => fp::add32(a, b, rnd, flush),
                    K::Fmul => {
                        let r = fp::mul32(a, b, rnd, flush, fmz);
                        if scale != 0 {
                            let k = [1.0, 0.5, 0.25, 0.125, 8.0, 4.0, 2.0, 1.0][scale as usize & 7];
                            fp::out32(f32::from_bits(r) * k, flush || fmz)
                        } else {
                            r
                        }
                    }
                    _ => {
                        let c = fmods(inst, 3, src(inst, 3, w, ctx, l));
                        fp::fma32(a, b, c, rnd, flush, fmz)
                    }
                };
                if sat {
                    r = fp::sat32(r);
                }
                w.set_reg(d, l, r);
            }
        }
        K::Fmnmx => {
            let d = dst_reg(inst, 0);
            let p = pred_operand(inst, w, 3);
            for l in lanes(g) {
                let mut a = fmods(inst, 1, src(inst, 1, w, ctx, l));
                let mut b = fmods(inst, 2, src(inst, 2, w, ctx, l));
                if ftz {
                    a = fp::ftz(a);
                    b = fp::ftz(b);
                }
                let r = fp::minmax32(f32::from_bits(a), f32::from_bits(b), p >> l & 1 != 0);
                w.set_reg(d, l, r);
            }
        }
        K::Fsetp | K::Fset => {
            let code = md(inst, M::FCmp);
            set_compare(inst, w, g, kind == K::Fsetp, |w, l, ia| {
                let mut a = fmods(inst, ia as u8, src(inst, ia, w, ctx, l));
                let mut b = fmods(inst, ia as u8 + 1, src(inst, ia + 1, w, ctx, l));
                if ftz {
                    a = fp::ftz(a);
                    b = fp::ftz(b);
                }
                fp::fcmp(code, f32::from_bits(a) as f64, f32::from_bits(b) as f64)
            });
        }
        K::Fchk => {
            // True when a / b needs the slow path: special or denormal operands, or an
            // exponent difference the reciprocal-based fast path cannot handle.
            let mut res = 0u32;
            for l in lanes(g) {
                let a = f32::from_bits(fmods(inst, 1, src(inst, 1, w, ctx, l)));
                let b = f32::from_bits(fmods(inst, 2, src(inst, 2, w, ctx, l)));
                let exp = |x: f32| ((x.to_bits() >> 23) & 0xff) as i32;
                let slow = !b.is_normal()
                    || !(a.is_normal() || a == 0.0)
                    || exp(b) >= 253
                    || (a != 0.0 && !(-124..=125).contains(&(exp(a) - exp(b))));
                res |= (slow as u32) << l;
            }
            w.set_pred(dst_pred(inst, 0), g, res);
        }
        K::Mufu => {
            let d = dst_reg(inst, 0);
            let op = md(inst, M::MufuOp);
            for l in lanes(g) {
                let a = fmods(inst, 1, src(inst, 1, w, ctx, l));
                let mut r = fp::mufu(op, a).ok_or_else(|| unsupported(inst, pc, "MUFU op"))?;
                if sat {
                    r = fp::sat32(r);
                }
                w.set_reg(d, l, r);
            }
        }
        _ => {
            // RRO: its output format is consumed only by MUFU. `RRO.SINCOS` takes radians
            // (ptxas feeds `__sinf`'s argument straight in) and is modelled as the angle in
            // revolutions, which MUFU.SIN/COS turn back with 2 pi; `RRO.EX2` passes the
            // exponent through.
            let d = dst_reg(inst, 0);
            let sincos = md(inst, M::Mode) == 0;
            for l in lanes(g) {
                let v = fmods(inst, 1, src(inst, 1, w, ctx, l));
                let v = if sincos {
                    let x = f32::from_bits(fp::ftz(v)) as f64;
                    fp::out32((x / std::f64::consts::TAU) as f32, true)
                } else {
                    v
                };
                w.set_reg(d, l, v);
            }
        }
    }
    Ok(())
}

/// Width in bits of a conversion type name.
fn ty_bits(name: &str) -> u32 {
    if name.contains("64") {
        64
    } else if name.contains("16") {
        16
    } else if name.contains('8') {
        8
    } else {
        32
    }
}

fn convert(
    kind: Kind,
    inst: &Inst,
    pc: u32,
    w: &mut Warp,
    g: u32,
    ctx: &Ctx,
) -> Result<(), EmuError> {
    use Kind as K;
    let d = dst_reg(inst, 0);
    let dt = inst.get_name(M::DType).unwrap_or("");
    let st = inst.get_name(M::SType).unwrap_or("");
    let (dbits, sbits) = (ty_bits(dt), ty_bits(st));
    let ftz = flag(inst, M::Ftz);
    let rv = md(inst, M::Rnd);
    let h1 = flag(inst, M::H1(1));
    let bsel = md(inst, M::ByteSel) as u32;
    let sat = flag(inst, M::Sat);
    // I2I .CC: the flags of the (32-bit) result, as ptxas uses them to test a sign.
    let set_cc = flag(inst, M::Cc);
    if set_cc && (kind != K::I2i || dbits == 64) {
        return Err(unsupported(inst, pc, "conversion with .CC"));
    }
    for l in lanes(g) {
        // Source as f64 (floats) or i128 (integers).
        let raw = if sbits == 64 {
            src64(inst, 1, w, ctx, l)
        } else {
            src(inst, 1, w, ctx, l) as u64
        };
        let out: u64 = match kind {
            K::F2f | K::F2i => {
                let mut v = match sbits {
                    64 => f64::from_bits(raw),
                    16 => {
                        let h = if h1 { raw >> 16 } else { raw } as u16;
                        fp::f16_to_f32(h) as f64
                    }
                    _ => {
                        let b = if ftz { fp::ftz(raw as u32) } else { raw as u32 };
                        f32::from_bits(b) as f64
                    }
                };
                if flag(inst, M::Abs(1)) {
                    v = v.abs();
                }
                if flag(inst, M::Neg(1)) {
                    v = -v;
                }
                if kind == K::F2f {
                    // rv: 0..3 = RN/RM/RP/RZ between types, 4..7 = integer rounding.
                    let v = if rv & 4 != 0 {
                        fp::round_int(v, Round::from_field(rv))
                    } else {
                        v
                    };
                    match dbits {
                        // f32/f16 to f64 is exact.
                        64 => fp::out64(v),
                        16 => fp::f32_to_f16(v as f32) as u64,
                        _ => {
                            let r = if sbits == 64 && rv & 4 == 0 {
                                fp::f64_to_f32(v, Round::from_field(rv))
                            } else {
                                v as f32
                            };
                            let mut b = fp::out32(r, ftz);
                            if sat {
                                b = fp::sat32(b);
                            }
                            b as u64
                        }
                    }
                } else {
                    // F2I: rounding field "" RN, FLOOR, CEIL, TRUNC; saturate; NaN -> 0.
                    let r = fp::round_int(v, Round::from_field(rv));
                    let signed = dt.starts_with('S');
                    let (lo, hi) = if signed {
                        (
                            -(2f64.powi(dbits as i32 - 1)),
                            2f64.powi(dbits as i32 - 1) - 1.0,
                        )
                    } else {
                        (0.0, 2f64.powi(dbits as i32) - 1.0)
                    };
                    if r.is_nan() {
                        0
                    } else if r <= lo {
                        if signed {
                            (lo as i64) as u64
                        } else {
                            0
                        }
                    } else if r >= hi {
                        if signed {
                            (2i128.pow(dbits - 1) - 1) as u64
                        } else {
                            (2u128.pow(dbits) - 1) as u64
                        }
                    } else if signed {
                        r as i64 as u64
                    } else {
                        r as u64
                    }
                }
            }
            _ => {
                // I2F / I2I: integer source with byte select, sign extension.
                let signed = st.starts_with('S');
                let shifted = if sbits < 32 { raw >> (8 * bsel) } else { raw };
                let mut v: i128 = match (sbits, signed) {
                    (8, true) => shifted as u8 as i8 as i128,
                    (8, false) => shifted as u8 as i128,
                    (16, true) => shifted as u16 as i16 as i128,
                    (16, false) => shifted as u16 as i128,
                    (32, true) => shifted as u32 as i32 as i128,
                    (32, false) => shifted as u32 as i128,
                    (_, true) => raw as i64 as i128,
                    (_, false) => raw as i128,
                };
                if flag(inst, M::Abs(1)) {
                    v = v.abs();
                }
                if flag(inst, M::Neg(1)) {
                    v = -v;
                }
                if kind == K::I2f {
                    let rnd = Round::from_field(rv);
                    match dbits {
                        64 => fp::int_to_f64(v, rnd).to_bits(),
                        16 => fp::f32_to_f16(fp::int_to_f32(v, rnd)) as u64,
                        _ => fp::int_to_f32(v, rnd).to_bits() as u64,
                    }
                } else {
                    let dsigned = dt.starts_with('S');
                    let (lo, hi): (i128, i128) = if dsigned {
                        (-(1i128 << (dbits - 1)), (1i128 << (dbits - 1)) - 1)
                    } else {
                        (0, (1i128 << dbits) - 1)
                    };
                    let v = if sat { v.clamp(lo, hi) } else { v };
                    let masked = (v as u128 & ((1u128 << dbits) - 1)) as u64;
                    if dsigned && dbits < 32 {
                        // Sign-extend narrow signed results into the register.
                        ((masked as i64) << (64 - dbits) >> (64 - dbits)) as u32 as u64
                    } else {
                        masked
                    }
                }
            }
        };
        if set_cc {
            set_flags(w, l, out as u32, false, false, true);
        }
        if dbits == 64 {
            set64(w, d, l, out);
        } else {
            w.set_reg(d, l, out as u32);
        }
    }
    Ok(())
}

fn double(kind: Kind, inst: &Inst, w: &mut Warp, g: u32, ctx: &Ctx) {
    use Kind as K;
    let rnd = Round::from_field(md(inst, M::Rnd));
    let d = dst_reg(inst, 0);
    let f = f64::from_bits;
    match kind {
        K::Dadd | K::Dmul | K::Dfma | K::Dmnmx => {
            let p = pred_operand(inst, w, 3);
            for l in lanes(g) {
                let a = dmods(inst, 1, src64(inst, 1, w, ctx, l));
                let b = dmods(inst, 2, src64(inst, 2, w, ctx, l));
                let r = match kind {
                    K::Dadd => fp::add64(f(a), f(b), rnd),
                    K::Dmul => fp::mul64(f(a), f(b), rnd),
                    K::Dfma => {
                        let c = dmods(inst, 3, src64(inst, 3, w, ctx, l));
                        fp::fma64(f(a), f(b), f(c), rnd)
                    }
                    _ => fp::minmax64(f(a), f(b), p >> l & 1 != 0),
                };
                set64(w, d, l, r);
            }
        }
        _ => {
            let code = md(inst, M::FCmp);
            set_compare(inst, w, g, kind == K::Dsetp, |w, l, ia| {
                let a = dmods(inst, ia as u8, src64(inst, ia, w, ctx, l));
                let b = dmods(inst, ia as u8 + 1, src64(inst, ia + 1, w, ctx, l));
                fp::fcmp(code, f(a), f(b))
            });
        }
    }
}

/// Size in bytes and sign extension of a memory `.Size` name.
fn mem_size(name: &str) -> (usize, Option<bool>) {
    match name {
        "U8" | "U.U8" => (1, Some(false)),
        "S8" | "U.S8" => (1, Some(true)),
        "U16" | "U.U16" => (2, Some(false)),
        "S16" | "U.S16" => (2, Some(true)),
        "64" | "U.64" => (8, None),
        "128" | "U.128" => (16, None),
        _ => (4, None),
    }
}

/// The memory space and the address of a memory operand for `lane`.
fn address(inst: &Inst, i: usize, w: &Warp, lane: usize) -> u64 {
    match inst.ops().get(i) {
        Some(Operand::Mem { base, offset }) => {
            let b = if flag(inst, M::E) {
                w.reg(base.0, lane) as u64 | (w.reg(base.0.saturating_add(1), lane) as u64) << 32
            } else {
                w.reg(base.0, lane) as u64
            };
            let a = b.wrapping_add(*offset as i64 as u64);
            // A 32-bit address wraps: ptxas puts a negative base in the register and the
            // positive part in the offset (`LDS [R2+0x4c4]` with R2 = -0x3c).
            if flag(inst, M::E) {
                a
            } else {
                a & 0xFFFF_FFFF
            }
        }
        _ => 0,
    }
}

fn space_of(inst: &Inst) -> Space {
    match inst.form().mnemonic {
        "LDS" | "STS" | "ATOMS" => Space::Shared,
        "LDL" | "STL" => Space::Local,
        _ => Space::Global,
    }
}

/// A view of the bytes of `space` for `lane` at `addr..addr+n`.
fn access<'a>(
    ctx: &'a mut Ctx,
    space: Space,
    lane_thread: usize,
    addr: u64,
    n: usize,
) -> Option<&'a mut [u8]> {
    match space {
        Space::Global => ctx.mem.slice_mut(addr, n as u64),
        Space::Shared => {
            let a = usize::try_from(addr).ok()?;
            ctx.shared.get_mut(a..a.checked_add(n)?)
        }
        Space::Local => {
            let a = usize::try_from(addr).ok()?;
            if a.checked_add(n)? > ctx.local_size {
                return None;
            }
            let base = lane_thread * ctx.local_size;
            ctx.local.get_mut(base + a..base + a + n)
        }
        Space::Const(_) => None,
    }
}

fn mem_error(
    pc: u32,
    what: &'static str,
    space: Space,
    addr: u64,
    n: usize,
    why: &'static str,
) -> EmuError {
    EmuError::Memory {
        pc,
        what,
        space,
        addr,
        size: n as u32,
        why,
    }
}

fn memory(
    kind: Kind,
    inst: &Inst,
    pc: u32,
    w: &mut Warp,
    g: u32,
    ctx: &mut Ctx,
) -> Result<(), EmuError> {
    use Kind as K;
    let size = inst.get_name(M::Size).unwrap_or("");
    if kind == K::Ldc {
        let (n, ext) = mem_size(size);
        if md(inst, M::LdcMode) != 0 {
            return Err(unsupported(
                inst,
                pc,
                "LDC addressing mode other than the default",
            ));
        }
        let (bank, base, offset) = match inst.ops().get(1) {
            Some(Operand::CIdx { bank, base, offset }) => (*bank, *base, *offset),
            _ => return Err(unsupported(inst, pc, "LDC operand")),
        };
        let d = dst_reg(inst, 0);
        for l in lanes(g) {
            let addr = (w.reg(base.0, l) as i64).wrapping_add(offset as i64);
            // Out-of-bank reads return zero, as the hardware does for unbound constants.
            let v = ctx.cbuf(bank, addr, n);
            write_loaded(w, d, l, n, ext, v);
        }
        return Ok(());
    }
    let (n, ext) = mem_size(size);
    let space = space_of(inst);
    let warp_base = w.id as usize * 32;
    if kind == K::Ld {
        let d = dst_reg(inst, 0);
        for l in lanes(g) {
            let addr = address(inst, 1, w, l);
            if !addr.is_multiple_of(n.min(16) as u64) {
                return Err(mem_error(pc, "load", space, addr, n, "misaligned"));
            }
            let bytes = access(ctx, space, warp_base + l, addr, n)
                .ok_or_else(|| mem_error(pc, "load", space, addr, n, "out of bounds"))?;
            let v = read_words(bytes, 0, n).unwrap_or_default();
            write_loaded(w, d, l, n, ext, v);
        }
    } else {
        let r = match inst.ops().get(1) {
            Some(Operand::Reg(r)) => r.0,
            _ => 255,
        };
        for l in lanes(g) {
            let addr = address(inst, 0, w, l);
            if !addr.is_multiple_of(n.min(16) as u64) {
                return Err(mem_error(pc, "store", space, addr, n, "misaligned"));
            }
            let mut v = [0u32; 4];
            for (k, slot) in v.iter_mut().enumerate().take(n.div_ceil(4)) {
                *slot = if r == 255 {
                    0
                } else {
                    w.reg(r.saturating_add(k as u8), l)
                };
            }
            let bytes = access(ctx, space, warp_base + l, addr, n)
                .ok_or_else(|| mem_error(pc, "store", space, addr, n, "out of bounds"))?;
            write_words(bytes, 0, n, &v);
        }
    }
    Ok(())
}

fn write_loaded(w: &mut Warp, d: u8, lane: usize, n: usize, ext: Option<bool>, v: [u32; 4]) {
    match (n, ext) {
        (1, Some(true)) => w.set_reg(d, lane, v[0] as u8 as i8 as i32 as u32),
        (2, Some(true)) => w.set_reg(d, lane, v[0] as u16 as i16 as i32 as u32),
        _ => {
            for (k, word) in v.iter().enumerate().take(n.div_ceil(4)) {
                if d != 255 {
                    w.set_reg(d.saturating_add(k as u8), lane, *word);
                }
            }
        }
    }
}

fn atomic(
    kind: Kind,
    inst: &Inst,
    pc: u32,
    w: &mut Warp,
    g: u32,
    ctx: &mut Ctx,
) -> Result<(), EmuError> {
    use Kind as K;
    let ty = inst.get_name(M::AtomType).unwrap_or("");
    let space = space_of(inst);
    let wide = ty.contains("64");
    if ty.contains("128") {
        return Err(unsupported(inst, pc, "128-bit atomic"));
    }
    let n = if wide { 8 } else { 4 };
    let (addr_i, data_i, d) = if kind == K::Red {
        (0usize, 1usize, 255u8)
    } else {
        (1, 2, dst_reg(inst, 0))
    };
    let op = md(inst, M::AtomOp);
    let signed = ty.starts_with('S');
    let float = ty.starts_with('F');
    let warp_base = w.id as usize * 32;
    for l in lanes(g) {
        let addr = address(inst, addr_i, w, l);
        if !addr.is_multiple_of(n as u64) {
            return Err(mem_error(pc, "atomic", space, addr, n, "misaligned"));
        }
        let data = if wide {
            src64(inst, data_i, w, ctx, l)
        } else {
            src(inst, data_i, w, ctx, l) as u64
        };
        let data2 = if kind == K::AtomCas {
            if wide {
                src64(inst, data_i + 1, w, ctx, l)
            } else {
                src(inst, data_i + 1, w, ctx, l) as u64
            }
        } else {
            0
        };
        let bytes = access(ctx, space, warp_base + l, addr, n)
            .ok_or_else(|| mem_error(pc, "atomic", space, addr, n, "out of bounds"))?;
        let old_w = read_words(bytes, 0, n).unwrap_or_default();
        let old = old_w[0] as u64 | if wide { (old_w[1] as u64) << 32 } else { 0 };
        let mask = if wide { u64::MAX } else { u32::MAX as u64 };
        let sx = |v: u64| -> i64 {
            if wide {
                v as i64
            } else {
                v as u32 as i32 as i64
            }
        };
        let new = if kind == K::AtomCas {
            if old == data {
                data2
            } else {
                old
            }
        } else if float {
            let s = f32::from_bits(old as u32) + f32::from_bits(data as u32);
            fp::out32(s, true) as u64
        } else {
            match op {
                0 => old.wrapping_add(data) & mask,
                1 => {
                    if signed {
                        sx(old).min(sx(data)) as u64 & mask
                    } else {
                        old.min(data)
                    }
                }
                2 => {
                    if signed {
                        sx(old).max(sx(data)) as u64 & mask
                    } else {
                        old.max(data)
                    }
                }
                3 => {
                    if old >= data {
                        0
                    } else {
                        old + 1
                    }
                }
                4 => {
                    if old == 0 || old > data {
                        data
                    } else {
                        old - 1
                    }
                }
                5 => old & data,
                6 => old | data,
                7 => old ^ data,
                8 => data,
                _ => return Err(unsupported(inst, pc, "atomic operation")),
            }
        };
        write_words(bytes, 0, n, &[new as u32, (new >> 32) as u32, 0, 0]);
        if d != 255 {
            if wide {
                set64(w, d, l, old);
            } else {
                w.set_reg(d, l, old as u32);
            }
        }
    }
    Ok(())
}

/// SHFL: the lane operand B and the clamp operand C (`c & 0x1f` = clamp, `c >> 8 & 0x1f` =
/// segment mask) as PTX `shfl` defines them; out-of-range lanes read their own value and get
/// a false predicate.
fn shfl(inst: &Inst, w: &mut Warp, g: u32, ctx: &Ctx) {
    let d = dst_reg(inst, 1);
    let op = md(inst, M::ShflOp);
    let src_reg = match inst.ops().get(2) {
        Some(Operand::Reg(r)) => r.0,
        _ => 255,
    };
    let values: Vec<u32> = (0..32).map(|l| w.reg(src_reg, l)).collect();
    let mut pres = 0u32;
    let mut out = [0u32; 32];
    for l in lanes(g) {
        let b = src(inst, 3, w, ctx, l);
        let c = src(inst, 4, w, ctx, l);
        let clamp = c & 0x1f;
        let seg = (c >> 8) & 0x1f;
        let lane = l as u32;
        let min_lane = lane & seg;
        let max_lane = min_lane | (clamp & !seg);
        let (j, ok) = match op {
            0 => {
                let j = min_lane | (b & !seg & 0x1f);
                (j, j <= max_lane)
            }
            1 => {
                let j = lane.wrapping_sub(b);
                (j, (j as i32) >= max_lane as i32)
            }
            2 => {
                let j = lane + b;
                (j, j <= max_lane)
            }
            _ => {
                let j = lane ^ b;
                (j, j <= max_lane)
            }
        };
        let j = if ok && j < 32 { j } else { lane };
        out[l] = values[j as usize];
        pres |= (ok as u32) << l;
    }
    for l in lanes(g) {
        w.set_reg(d, l, out[l]);
    }
    w.set_pred(dst_pred(inst, 0), g, pres);
}
