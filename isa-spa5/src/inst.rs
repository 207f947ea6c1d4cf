//! The instruction model: [`Inst`] = one table row ([`Op`]) + guard + operands + modifiers.
//!
//! An `Inst` is a plain `Copy` value with no heap data. Its operands are stored in the order
//! of its form's operand fields (the order nvdisasm prints them); its modifiers are the raw
//! values of its form's modifier fields, in row order (see [`crate::table`]). Per-source
//! negate/abs/invert and `.H1` selects are modifiers too ([`ModKind::Neg`] etc. name the operand
//! they apply to), because SPA 5.0 encodes them as separate bits.
//!
//! Register queries ([`Inst::defs`], [`Inst::uses`]) and properties ([`Inst::is_branch`], ...)
//! are derived from the table, so schedulers, allocators and the emulator need no per-opcode
//! knowledge. Builders ([`Inst::iadd`] ...) choose the register/immediate/constant form
//! from the operand they are given. Nothing here validates ranges: [`crate::encode()`] does.

use std::fmt;

use crate::mods::{FCmp, ICmp, Lop, Mufu, Scope, Size};
use crate::regs::{Pred, PredReg, Reg, SpecialReg};
use crate::table::{Form, OpKind, Role, Width, FORMS, MAX_MODS, MAX_OPERANDS};

/// A typed modifier value the instruction's form does not have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ModError {
    /// The form (row name).
    pub form: &'static str,
    /// The modifier field.
    pub kind: ModKind,
    /// The value's name.
    pub name: &'static str,
}

impl fmt::Display for ModError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} has no {:?} value `{}`",
            self.form, self.kind, self.name
        )
    }
}

impl std::error::Error for ModError {}

/// An opcode form: an index into [`FORMS`]. Named constants (`Op::IADD_R`, `Op::LDG`, ...) exist
/// for every row.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Op(pub u16);

impl Op {
    /// This form's table row.
    pub fn form(self) -> &'static Form {
        &FORMS[self.0 as usize]
    }

    /// The row name (`IADD_R`).
    pub fn name(self) -> &'static str {
        self.form().name
    }

    /// The form with row name `name`.
    pub fn from_name(name: &str) -> Option<Op> {
        FORMS
            .iter()
            .position(|f| f.name == name)
            .map(|i| Op(i as u16))
    }
}

/// What a modifier field means. Payloads name the operand index a source modifier applies to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum ModKind {
    /// Write the condition code (`.CC` on the destination).
    Cc,
    /// Extended precision: consume the carry (`.X`).
    X,
    Sat,
    /// IADD's "plus one" (both negation bits set).
    Po,
    Iadd3Mode,
    /// 0 = unsigned (`.U32`), 1 = signed (default).
    Signed,
    /// Form-specific mode (IMNMX XLO/XHI, PRMT mode, FCHK, RRO).
    Mode,
    XSign,
    XMode,
    Psl,
    Mrg,
    /// `.H1`: use the high 16 bits of operand k.
    H1(u8),
    /// Negate operand k.
    Neg(u8),
    /// Absolute value of operand k.
    Abs(u8),
    /// Bitwise invert operand k.
    Inv(u8),
    ICmp,
    FCmp,
    Bop,
    Bop2,
    /// Boolean float result (1.0f instead of all ones).
    Bf,
    LogicOp,
    /// Predicate result mode of LOP/LOP3 (`.Z`, `.NZ`, `.T`).
    PredMode,
    W,
    Brev,
    ShfType,
    Hi,
    Sh,
    Lanes,
    ByteSel,
    /// Video source `k` (VABSDIFF): select and signedness, see [`crate::table::Place::Video`].
    VSrc(u8),
    /// VMNMX's main operation is max (`.MX`), otherwise min.
    VMax,
    Ftz,
    Rnd,
    Fmz,
    Scale,
    MufuOp,
    DType,
    SType,
    /// 64-bit (extended) address.
    E,
    Cache,
    Size,
    /// LDS uniform hint / BRA uniform.
    U,
    LdcMode,
    AtomOp,
    AtomType,
    /// Condition code test (`CC.NE` ..., 15 = always, prints nothing).
    CcTest,
    Lmt,
    BarMode,
    BarRed,
    Scope,
    ShflOp,
    VoteOp,
    Trig,
    /// Texture LOD mode (`.LZ`, `.LL`...).
    TexLod,
    /// Texture dimension (`1D` ... `ARRAY_CUBE`).
    TexDim,
    /// Texel offsets in Rb (`.AOFFI`).
    Aoffi,
    /// Depth compare (`.DC`).
    Dc,
    /// No derivatives (`.NDV`).
    Ndv,
    /// The result is not waited for by later texture ops (`.NODEP`).
    Nodep,
    /// Multisample fetch (`.MS`).
    Ms,
    /// LOD clamp (`.CL`).
    Cl,
    /// TXQ's query.
    TexQuery,
    /// TEXS/TLDS's type (LOD mode and dimension, `"LL|2D"`).
    TexsType,
    /// TEXS/TLDS's channels (`R`, `RG`, `RGBA`...).
    TexChannels,
    /// TLD4's gathered component (`R`, `G`, `B`, `A`).
    TexComp,
}

/// One operand value. Which variants a field accepts depends on its [`OpKind`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Operand {
    /// An unused slot.
    #[default]
    None,
    /// A register operand still to be filled: a compiler's placeholder in an instruction
    /// template (distinct from `RZ`, which is a real operand). Prints as `_`; the encoder
    /// rejects it.
    Hole,
    /// A general-purpose register.
    Reg(Reg),
    /// A predicate (with negation for sources).
    Pred(Pred),
    /// An integer immediate (sign-extended for signed fields).
    Imm(i64),
    /// A single precision immediate (raw bits).
    F32(u32),
    /// A double precision immediate (raw bits).
    F64(u64),
    /// `c[bank][offset]`, offset in bytes.
    CBuf {
        /// Constant bank.
        bank: u8,
        /// Signed byte offset (-0x8000..0x7ffc, 4-aligned).
        offset: i32,
    },
    /// LDC's `c[bank][base + offset]`.
    CIdx {
        /// Constant bank.
        bank: u8,
        /// Index register.
        base: Reg,
        /// Signed byte offset.
        offset: i32,
    },
    /// `[base + offset]`.
    Mem {
        /// Base register (`RZ` for an absolute address).
        base: Reg,
        /// Signed byte offset.
        offset: i32,
    },
    /// A special register.
    SReg(SpecialReg),
    /// A branch target as encoded: byte offset relative to the next instruction.
    Target(i32),
    /// A branch target as an instruction index (see [`crate::program`]).
    Label(u32),
    /// DEPBAR scoreboard mask.
    SbMask(u8),
    /// DEPBAR scoreboard index.
    Sb(u8),
    /// The predicate register file as a whole (`PR`).
    Pr,
    /// The condition code register (`CC`).
    Cc,
}

impl From<Reg> for Operand {
    fn from(r: Reg) -> Self {
        Operand::Reg(r)
    }
}
impl From<Pred> for Operand {
    fn from(p: Pred) -> Self {
        Operand::Pred(p)
    }
}
impl From<i64> for Operand {
    fn from(v: i64) -> Self {
        Operand::Imm(v)
    }
}
impl From<i32> for Operand {
    fn from(v: i32) -> Self {
        Operand::Imm(v as i64)
    }
}
impl From<u32> for Operand {
    fn from(v: u32) -> Self {
        Operand::Imm(v as i64)
    }
}

/// A GPR operand of an instruction ([`Inst::gpr_operands`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GprOperand {
    /// Operand slot (form order).
    pub slot: usize,
    /// Written (else read).
    pub def: bool,
    /// First register.
    pub reg: Reg,
    /// Consecutive registers covered: 1, 2 or 4.
    pub count: u8,
}

/// A register location read or written by an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Loc {
    /// `count` consecutive GPRs from `reg` (never `RZ`).
    Gpr {
        /// First register.
        reg: Reg,
        /// 1, 2 or 4.
        count: u8,
    },
    /// A predicate register (never `PT`).
    Pred(PredReg),
    /// The condition code.
    Cc,
    /// All predicates at once (P2R/R2P).
    Pr,
}

/// A short list of locations (at most 8).
#[derive(Clone, Copy, Debug, Default)]
pub struct Locs {
    items: [Option<Loc>; 8],
    len: usize,
}

impl Locs {
    fn push(&mut self, l: Loc) {
        if self.len < self.items.len() {
            self.items[self.len] = Some(l);
            self.len += 1;
        }
    }

    /// The locations.
    pub fn iter(&self) -> impl Iterator<Item = Loc> + '_ {
        self.items[..self.len].iter().flatten().copied()
    }

    /// Number of locations.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// A machine instruction.
///
/// Hashed as its [`Inst::hash_words`] (one write of the whole instruction instead of one per
/// field: compilers hash every instruction template they intern).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Inst {
    /// The table row.
    pub op: Op,
    /// Guard predicate (`PT` = always; ignored by forms without a guard).
    pub guard: Pred,
    /// Operands in form order; slots past the form's count are [`Operand::None`].
    pub operands: [Operand; MAX_OPERANDS],
    /// Modifier values in form order; slots past the form's count are 0.
    pub mods: [u8; MAX_MODS],
}

/// Number of words of [`Inst::hash_words`].
pub const HASH_WORDS: usize = 3 + 2 * MAX_OPERANDS;

impl Inst {
    /// The instruction packed into words: equal instructions give equal words (and every
    /// field is in them, so different instructions rarely collide once hashed).
    pub fn hash_words(&self) -> [u64; HASH_WORDS] {
        let mut w = [0u64; HASH_WORDS];
        w[0] = u64::from(self.op.0)
            | u64::from(self.guard.reg.0) << 16
            | u64::from(self.guard.not) << 24;
        for (k, &m) in self.mods.iter().enumerate() {
            w[1 + k / 8] |= u64::from(m) << (8 * (k % 8));
        }
        for (k, o) in self.operands.iter().enumerate() {
            let (tag, payload) = operand_words(o);
            w[3 + 2 * k] = tag;
            w[4 + 2 * k] = payload;
        }
        w
    }
}

/// An operand as (variant and small fields, wide field).
fn operand_words(o: &Operand) -> (u64, u64) {
    let reg = |r: &Reg| u64::from(r.0);
    match *o {
        Operand::None => (0, 0),
        Operand::Hole => (1, 0),
        Operand::Reg(r) => (2, reg(&r)),
        Operand::Pred(p) => (3, u64::from(p.reg.0) | u64::from(p.not) << 8),
        Operand::Imm(v) => (4, v as u64),
        Operand::F32(v) => (5, u64::from(v)),
        Operand::F64(v) => (6, v),
        Operand::CBuf { bank, offset } => (7 | u64::from(bank) << 8, offset as u32 as u64),
        Operand::CIdx { bank, base, offset } => (
            8 | u64::from(bank) << 8 | reg(&base) << 16,
            offset as u32 as u64,
        ),
        Operand::Mem { base, offset } => (9 | reg(&base) << 8, offset as u32 as u64),
        Operand::SReg(s) => (10, u64::from(s.0)),
        Operand::Target(t) => (11, t as u32 as u64),
        Operand::Label(l) => (12, u64::from(l)),
        Operand::SbMask(m) => (13, u64::from(m)),
        Operand::Sb(b) => (14, u64::from(b)),
        Operand::Pr => (15, 0),
        Operand::Cc => (16, 0),
    }
}

impl std::hash::Hash for Inst {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        // Integer slices hash as one write of their bytes.
        std::hash::Hash::hash_slice(&self.hash_words(), state);
    }
}

impl fmt::Debug for Inst {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let form = self.op.form();
        write!(
            f,
            "Inst({} guard={} ops={:?} mods=",
            form.name,
            self.guard,
            self.ops()
        )?;
        f.debug_list()
            .entries(form.mods.iter().zip(&self.mods).map(|(m, v)| (m.kind, *v)))
            .finish()?;
        f.write_str(")")
    }
}

/// The default value of a modifier field: the value whose name is empty, else 0.
pub(crate) fn default_mod(names: &[&str]) -> u8 {
    names.iter().position(|n| n.is_empty()).unwrap_or(0) as u8
}

fn default_operand(kind: OpKind) -> Operand {
    match kind {
        OpKind::Gpr(_) | OpKind::Next(_) | OpKind::Same(_) => Operand::Reg(Reg::RZ),
        OpKind::PredDst(_) | OpKind::PredSrc(..) => Operand::Pred(Pred::TRUE),
        OpKind::UImm(..) | OpKind::SImm(..) | OpKind::I20 | OpKind::U20 | OpKind::XImm => {
            Operand::Imm(0)
        }
        OpKind::U32(_) | OpKind::S32(_) => Operand::Imm(0),
        OpKind::F20 | OpKind::F32(_) => Operand::F32(0),
        OpKind::D20 => Operand::F64(0),
        OpKind::CBuf | OpKind::CBufSp => Operand::CBuf { bank: 0, offset: 0 },
        OpKind::Mem { .. } => Operand::Mem {
            base: Reg::RZ,
            offset: 0,
        },
        OpKind::CIdx => Operand::CIdx {
            bank: 0,
            base: Reg::RZ,
            offset: 0,
        },
        OpKind::SReg => Operand::SReg(SpecialReg(0)),
        OpKind::Rel | OpKind::Abs => Operand::Target(0),
        OpKind::SbMask => Operand::SbMask(0),
        OpKind::Sb => Operand::Sb(0),
        OpKind::Pr => Operand::Pr,
        OpKind::Cc => Operand::Cc,
    }
}

impl Inst {
    /// The form `op` with default operands (`RZ`, `PT`, 0) and default modifiers (all the
    /// unprinted values: `.32`, signed, round-to-nearest, ...), unguarded.
    pub fn new(op: Op) -> Inst {
        let form = op.form();
        let mut operands = [Operand::None; MAX_OPERANDS];
        for (slot, f) in operands.iter_mut().zip(form.operands) {
            *slot = default_operand(f.kind);
        }
        let mut mods = [0u8; MAX_MODS];
        for (slot, m) in mods.iter_mut().zip(form.mods) {
            *slot = default_mod(m.names);
        }
        Inst {
            op,
            guard: Pred::TRUE,
            operands,
            mods,
        }
    }

    /// The form `op` with the given operands (in form order) and default modifiers. Operands
    /// derived from others (CAS's second data register) are filled in when left out.
    pub fn build(op: Op, ops: &[Operand]) -> Inst {
        let mut i = Inst::new(op);
        for (slot, o) in i.operands.iter_mut().zip(ops) {
            *slot = *o;
        }
        i.fill_derived();
        i
    }

    /// Recompute operands that are implied by others ([`OpKind::Next`]).
    pub fn fill_derived(&mut self) {
        if !self.has_derived_operands() {
            return;
        }
        let form = self.op.form();
        for (idx, f) in form.operands.iter().enumerate() {
            if let OpKind::Same(k) = f.kind {
                self.operands[idx] = self.operands[k as usize];
            }
            if let OpKind::Next(k) = f.kind {
                if let Operand::Reg(r) = self.operands[k as usize] {
                    let w = self.width(form.operands[k as usize].width);
                    self.operands[idx] = Operand::Reg(r.offset(w).unwrap_or(Reg::RZ));
                }
            }
        }
    }

    /// Whether some operand must equal another or be the register after it (`OpKind::Same`,
    /// `OpKind::Next`: the CAS forms' compare/swap pair, FFMA32I's accumulator); a renamer
    /// must move such operands together.
    pub fn has_derived_operands(&self) -> bool {
        // Only the CAS forms and FFMA32I have derived operands: skip the scan for the rest.
        matches!(self.op, Op::ATOM_CAS | Op::ATOMS_CAS | Op::FFMA32I) && self.form().has_derived()
    }

    /// This instruction's table row.
    pub fn form(&self) -> &'static Form {
        self.op.form()
    }

    /// The operands actually used by the form.
    pub fn ops(&self) -> &[Operand] {
        &self.operands[..self.form().operands.len()]
    }

    /// The value of modifier `k`, if the form has it.
    pub fn get(&self, k: ModKind) -> Option<u8> {
        let form = self.form();
        match form.mod_index(k) {
            Some(i) => Some(self.mods[i]),
            None => self.negpo_bit(k).map(|(i, bit)| (self.mods[i] >> bit) & 1),
        }
    }

    /// Where `Neg(k)` lives on IADD/ISCADD-style forms, whose two negation bits share one
    /// field with `.PO` ([`crate::table::Place::NegPo`]): (modifier index, bit).
    fn negpo_bit(&self, k: ModKind) -> Option<(usize, u8)> {
        let ModKind::Neg(op) = k else {
            return None;
        };
        self.form()
            .mods
            .iter()
            .enumerate()
            .find_map(|(i, m)| match m.place {
                crate::table::Place::NegPo(a, _) if a == op => Some((i, 1)),
                crate::table::Place::NegPo(_, b) if b == op => Some((i, 0)),
                _ => None,
            })
    }

    /// The printed name of modifier `k`'s value (`""` for the default), if the form has it.
    pub fn get_name(&self, k: ModKind) -> Option<&'static str> {
        let form = self.form();
        let i = form.mod_index(k)?;
        form.mods[i].name(self.mods[i])
    }

    /// Whether the flag modifier `k` is present and non-zero.
    pub fn has(&self, k: ModKind) -> bool {
        self.get(k).is_some_and(|v| v != 0)
    }

    /// Set modifier `k` to `v` (unchecked; [`crate::encode()`] validates). Returns false if the
    /// form has no such modifier.
    pub fn set(&mut self, k: ModKind, v: u8) -> bool {
        match self.form().mod_index(k) {
            Some(i) => {
                self.mods[i] = v;
                true
            }
            None => match self.negpo_bit(k) {
                // `Neg(k)` on a form whose negations share the `.PO` field.
                Some((i, bit)) => {
                    self.mods[i] = (self.mods[i] & !(1 << bit)) | ((v & 1) << bit);
                    true
                }
                None => false,
            },
        }
    }

    /// Set modifier `k` by its printed name (`"GE"`, `"U32"`, `"64"`); false if the form has
    /// no such modifier or value.
    pub fn set_name(&mut self, k: ModKind, name: &str) -> bool {
        let form = self.form();
        let Some(i) = form.mod_index(k) else {
            return false;
        };
        match form.mods[i]
            .names
            .iter()
            .position(|n| *n == name && *n != "?")
        {
            Some(v) => {
                self.mods[i] = v as u8;
                true
            }
            None => false,
        }
    }

    /// Sets a typed modifier value (see [`crate::mods`]): the value of this form's field
    /// named `v.name()`. False (and unchanged) if the form has no such field or value.
    pub fn set_mod<T: crate::mods::TypedMod>(&mut self, v: T) -> bool {
        self.set_name(T::KIND, v.name())
    }

    /// Builder style [`Inst::set_mod`]; `Err` names the form and the value it lacks.
    pub fn try_mod<T: crate::mods::TypedMod>(mut self, v: T) -> Result<Inst, ModError> {
        if self.set_mod(v) {
            Ok(self)
        } else {
            Err(ModError {
                form: self.op.name(),
                kind: T::KIND,
                name: v.name(),
            })
        }
    }

    /// Builder style [`Inst::set_mod`] for the builders below, whose forms have every value
    /// of the enum they take (checked by `tests::builders_take_every_typed_value`); panics
    /// otherwise (a bug in the builder).
    fn with_typed<T: crate::mods::TypedMod>(self, v: T) -> Inst {
        match self.try_mod(v) {
            Ok(i) => i,
            Err(e) => panic!("{e}"),
        }
    }

    /// Builder style [`Inst::set`]: panics if the form lacks `k` (a bug in the caller).
    pub fn with(mut self, k: ModKind, v: u8) -> Inst {
        assert!(self.set(k, v), "{} has no modifier {k:?}", self.op.name());
        self
    }

    /// Builder style [`Inst::set_name`]: panics if the form lacks `k` or the name.
    pub fn with_name(mut self, k: ModKind, name: &str) -> Inst {
        assert!(
            self.set_name(k, name),
            "{} has no modifier {k:?} = {name:?}",
            self.op.name()
        );
        self
    }

    /// Guard the instruction with `p`.
    pub fn guarded(mut self, p: Pred) -> Inst {
        self.guard = p;
        self
    }

    /// The register count of a field of width `w` under the current modifiers.
    pub fn width(&self, w: Width) -> u8 {
        let by_name = |k: ModKind| -> u8 {
            match self.get_name(k) {
                Some(n) if n.contains("128") => 4,
                Some(n) if n.contains("64") => 2,
                _ => 1,
            }
        };
        match w {
            Width::W1 => 1,
            Width::W2 => 2,
            Width::W4 => 4,
            Width::Size => by_name(ModKind::Size),
            Width::Ext => {
                if self.has(ModKind::E) {
                    2
                } else {
                    1
                }
            }
            Width::DType => by_name(ModKind::DType),
            Width::SType => by_name(ModKind::SType),
            Width::Atom => by_name(ModKind::AtomType),
            Width::TexCoords => match self.get(ModKind::TexDim).unwrap_or(0) {
                0 => 1,
                1 | 2 => 2,
                3 | 4 | 6 => 3,
                _ => 4,
            },
            Width::TexExtra => {
                let lod = matches!(
                    self.get_name(ModKind::TexLod),
                    Some("LB" | "LL" | "LBA" | "LLA")
                );
                // `.PTP` (TLD4 per-pixel offsets) takes two registers.
                let offsets = match self.get_name(ModKind::Aoffi) {
                    Some("PTP") => 2,
                    Some("AOFFI") => 1,
                    _ => 0,
                };
                [lod, self.has(ModKind::Dc), self.has(ModKind::Ms)]
                    .iter()
                    .filter(|&&b| b)
                    .count() as u8
                    + offsets
            }
            Width::TexDeriv => match self.get(ModKind::TexDim).unwrap_or(0) {
                0 | 1 => 2,
                2 | 3 => 4,
                _ => 6,
            },
            Width::TexsLo | Width::TexsHi => {
                let n = self.get_name(ModKind::TexChannels).map_or(1, str::len) as u8;
                if w == Width::TexsLo {
                    n.min(2)
                } else {
                    n.saturating_sub(2)
                }
            }
            Width::TexMask => {
                let form = self.form();
                let mask = form
                    .operands
                    .iter()
                    .zip(&self.operands)
                    .find_map(|(f, o)| match (f.kind, o) {
                        (OpKind::UImm(31, 4), Operand::Imm(m)) => Some(*m as u8 & 0xf),
                        _ => None,
                    })
                    .unwrap_or(0);
                mask.count_ones() as u8
            }
        }
    }

    fn collect(&self, role: Role) -> Locs {
        let form = self.form();
        let mut out = Locs::default();
        if role == Role::Use
            && !self.guard.reg.is_true()
            && !form.has(crate::table::flags::NO_GUARD)
        {
            out.push(Loc::Pred(self.guard.reg));
        }
        for (f, o) in form.operands.iter().zip(&self.operands) {
            // A width is looked up (for some forms by modifier name) only for a register.
            match (f.kind, o) {
                (OpKind::Mem { .. }, Operand::Mem { base, .. })
                    if role == Role::Use && !base.is_zero() =>
                {
                    out.push(Loc::Gpr {
                        reg: *base,
                        count: self.width(f.width),
                    });
                }
                (OpKind::CIdx, Operand::CIdx { base, .. })
                    if role == Role::Use && !base.is_zero() =>
                {
                    out.push(Loc::Gpr {
                        reg: *base,
                        count: 1,
                    });
                }
                (OpKind::Pr, _) if f.role == role => out.push(Loc::Pr),
                (OpKind::Cc, _) if f.role == role => out.push(Loc::Cc),
                (_, Operand::Reg(r)) if f.role == role && !r.is_zero() => out.push(Loc::Gpr {
                    reg: *r,
                    count: self.width(f.width),
                }),
                (_, Operand::Pred(p)) if f.role == role && !p.reg.is_true() => {
                    out.push(Loc::Pred(p.reg))
                }
                _ => {}
            }
        }
        let cc_flag = match role {
            Role::Def => self.has(ModKind::Cc),
            Role::Use => self.has(ModKind::X),
        };
        if cc_flag {
            out.push(Loc::Cc);
        }
        out
    }

    /// One past the highest GPR among [`Inst::defs`] and [`Inst::uses`] (0 when there is
    /// none), without building either list.
    pub fn gpr_end(&self) -> u32 {
        let form = self.form();
        let mut end = 0u32;
        for (f, o) in form.operands.iter().zip(&self.operands) {
            // The arms of `collect` that give a GPR, for either role.
            let (reg, count) = match (f.kind, o) {
                (OpKind::Mem { .. }, Operand::Mem { base, .. }) => (*base, self.width(f.width)),
                (OpKind::CIdx, Operand::CIdx { base, .. }) => (*base, 1),
                (OpKind::Pr | OpKind::Cc, _) => continue,
                (_, Operand::Reg(r)) => (*r, self.width(f.width)),
                _ => continue,
            };
            if !reg.is_zero() {
                end = end.max(u32::from(reg.0) + u32::from(count));
            }
        }
        end
    }

    /// The GPR operands: slot index, whether the slot is written, first register and
    /// register count (the arms of [`Inst::defs`] and [`Inst::uses`] that give a GPR; `RZ`
    /// excluded). A renamer rewrites a slot with [`Inst::set_gpr_operand`].
    pub fn gpr_operands(&self) -> smallvec::SmallVec<[GprOperand; 6]> {
        let form = self.form();
        let mut out = smallvec::SmallVec::new();
        for (slot, (f, o)) in form.operands.iter().zip(&self.operands).enumerate() {
            let (reg, count, def) = match (f.kind, o) {
                (OpKind::Mem { .. }, Operand::Mem { base, .. }) => {
                    (*base, self.width(f.width), false)
                }
                (OpKind::CIdx, Operand::CIdx { base, .. }) => (*base, 1, false),
                (OpKind::Pr | OpKind::Cc, _) => continue,
                (_, Operand::Reg(r)) => (*r, self.width(f.width), f.role == Role::Def),
                _ => continue,
            };
            if !reg.is_zero() {
                out.push(GprOperand {
                    slot,
                    def,
                    reg,
                    count,
                });
            }
        }
        out
    }

    /// Replaces the register of GPR operand `slot` (see [`Inst::gpr_operands`]); other
    /// operand kinds are left alone.
    pub fn set_gpr_operand(&mut self, slot: usize, reg: Reg) {
        match &mut self.operands[slot] {
            Operand::Reg(r) => *r = reg,
            Operand::Mem { base, .. } | Operand::CIdx { base, .. } => *base = reg,
            _ => {}
        }
    }

    /// Registers, predicates and CC written (RZ/PT excluded).
    pub fn defs(&self) -> Locs {
        self.collect(Role::Def)
    }

    /// Registers, predicates and CC read, including the guard and address registers.
    pub fn uses(&self) -> Locs {
        self.collect(Role::Use)
    }

    /// Branch with a target (BRA, SSY, PBK, PCNT, CAL, JCAL).
    pub fn is_branch(&self) -> bool {
        self.form().has(crate::table::flags::BRANCH)
    }

    /// Ends a basic block: branches, EXIT, RET, BRK, CONT, SYNC.
    pub fn is_terminator(&self) -> bool {
        self.form()
            .has(crate::table::flags::BRANCH | crate::table::flags::FLOW)
            && !matches!(self.op, Op::SSY | Op::PBK | Op::PCNT | Op::CAL | Op::JCAL)
    }

    /// Result produced after a variable delay: consumers wait on a write scoreboard.
    pub fn is_variable_latency(&self) -> bool {
        self.form().has(crate::table::flags::VAR_LAT)
    }

    /// Reads memory.
    pub fn is_memory_load(&self) -> bool {
        self.form().has(crate::table::flags::LOAD)
    }

    /// Writes memory.
    pub fn is_memory_store(&self) -> bool {
        self.form().has(crate::table::flags::STORE)
    }

    /// Barriers, memory barriers and other ordering side effects.
    pub fn has_side_effects(&self) -> bool {
        self.form().has(
            crate::table::flags::SIDE
                | crate::table::flags::STORE
                | crate::table::flags::BRANCH
                | crate::table::flags::FLOW,
        )
    }
}

/// Pick the `_R`, `_I` or `_C` form from the kind of the varying operand.
fn pick(r: Op, i: Op, c: Op, b: &Operand) -> Op {
    match b {
        Operand::CBuf { .. } => c,
        Operand::Imm(_) | Operand::F32(_) | Operand::F64(_) => i,
        _ => r,
    }
}

/// `op d, a, b[, c]` with the `_R`, `_I` or `_C` form picked from `b`.
fn three_form(forms: [Op; 3], d: Operand, a: Operand, b: Operand, c: Option<Operand>) -> Inst {
    let op = pick(forms[0], forms[1], forms[2], &b);
    match c {
        Some(c) => Inst::build(op, &[d, a, b, c]),
        None => Inst::build(op, &[d, a, b]),
    }
}

/// `SETP.cmp.AND p, PT, a, b, PT` with the form picked from `b` (ISETP and FSETP share the
/// layout).
fn setp(forms: [Op; 3], p: PredReg, a: Operand, b: Operand) -> Inst {
    let op = pick(forms[0], forms[1], forms[2], &b);
    let p = Pred { reg: p, not: false };
    Inst::build(op, &[p.into(), Pred::TRUE.into(), a, b, Pred::TRUE.into()])
}

/// Builders `name(d, a, b)` (and `name(d, a, b, c)`) of the instructions whose `b` operand
/// picks the `_R`, `_I` or `_C` form.
macro_rules! three_form_builders {
    ($($name:ident => $r:ident, $i:ident, $c:ident;)*) => {$(
        pub fn $name(d: impl Into<Operand>, a: impl Into<Operand>, b: impl Into<Operand>) -> Inst {
            three_form([Op::$r, Op::$i, Op::$c], d.into(), a.into(), b.into(), None)
        }
    )*};
    ($($name:ident => $r:ident, $i:ident, $c:ident, c;)*) => {$(
        pub fn $name(
            d: impl Into<Operand>,
            a: impl Into<Operand>,
            b: impl Into<Operand>,
            c: impl Into<Operand>,
        ) -> Inst {
            three_form([Op::$r, Op::$i, Op::$c], d.into(), a.into(), b.into(), Some(c.into()))
        }
    )*};
}

/// A constant buffer operand `c[bank][offset]`.
pub fn cbuf(bank: u8, offset: i32) -> Operand {
    Operand::CBuf { bank, offset }
}

/// A memory operand `[base + offset]`.
pub fn mem(base: Reg, offset: i32) -> Operand {
    Operand::Mem { base, offset }
}

/// An f32 immediate.
pub fn f32imm(v: f32) -> Operand {
    Operand::F32(v.to_bits())
}

#[allow(missing_docs)]
impl Inst {
    three_form_builders! {
        iadd => IADD_R, IADD_I, IADD_C;
        fadd => FADD_R, FADD_I, FADD_C;
        fmul => FMUL_R, FMUL_I, FMUL_C;
        shl => SHL_R, SHL_I, SHL_C;
    }
    three_form_builders! {
        iadd3 => IADD3_R, IADD3_I, IADD3_C, c;
        xmad => XMAD_R, XMAD_I, XMAD_C, c;
        ffma => FFMA_R, FFMA_I, FFMA_C, c;
    }
    /// Arithmetic (signed) shift right; use `.with(ModKind::Signed, 0)` for logical.
    pub fn shr(d: impl Into<Operand>, a: impl Into<Operand>, b: impl Into<Operand>) -> Inst {
        three_form(
            [Op::SHR_R, Op::SHR_I, Op::SHR_C],
            d.into(),
            a.into(),
            b.into(),
            None,
        )
    }
    pub fn mov(d: impl Into<Operand>, b: impl Into<Operand>) -> Inst {
        let b = b.into();
        Inst::build(pick(Op::MOV_R, Op::MOV_I, Op::MOV_C, &b), &[d.into(), b])
    }
    pub fn mov32i(d: impl Into<Operand>, v: u32) -> Inst {
        Inst::build(Op::MOV32I, &[d.into(), Operand::Imm(v as i64)])
    }
    pub fn iadd32i(d: impl Into<Operand>, a: impl Into<Operand>, v: i32) -> Inst {
        Inst::build(Op::IADD32I, &[d.into(), a.into(), Operand::Imm(v as i64)])
    }
    pub fn iscadd(
        d: impl Into<Operand>,
        a: impl Into<Operand>,
        b: impl Into<Operand>,
        shift: u8,
    ) -> Inst {
        let forms = [Op::ISCADD_R, Op::ISCADD_I, Op::ISCADD_C];
        let shift = Operand::Imm(shift as i64);
        three_form(forms, d.into(), a.into(), b.into(), Some(shift))
    }
    /// `LOP.op d, a, b`.
    pub fn lop(
        op: Lop,
        d: impl Into<Operand>,
        a: impl Into<Operand>,
        b: impl Into<Operand>,
    ) -> Inst {
        let b = b.into();
        Inst::build(
            pick(Op::LOP_R, Op::LOP_I, Op::LOP_C, &b),
            &[Pred::TRUE.into(), d.into(), a.into(), b],
        )
        .with_typed(op)
    }
    pub fn lop32i(op: Lop, d: impl Into<Operand>, a: impl Into<Operand>, v: u32) -> Inst {
        Inst::build(Op::LOP32I, &[d.into(), a.into(), Operand::Imm(v as i64)]).with_typed(op)
    }
    pub fn lop3(
        d: impl Into<Operand>,
        a: impl Into<Operand>,
        b: impl Into<Operand>,
        c: impl Into<Operand>,
        lut: u8,
    ) -> Inst {
        let b = b.into();
        match pick(Op::LOP3_R, Op::LOP3_I, Op::LOP3_C, &b) {
            Op::LOP3_R => Inst::build(
                Op::LOP3_R,
                &[
                    Pred::TRUE.into(),
                    d.into(),
                    a.into(),
                    b,
                    c.into(),
                    Operand::Imm(lut as i64),
                ],
            ),
            op => Inst::build(
                op,
                &[d.into(), a.into(), b, c.into(), Operand::Imm(lut as i64)],
            ),
        }
    }
    /// `ISETP.cmp.AND p, PT, a, b, PT`.
    pub fn isetp(cmp: ICmp, p: PredReg, a: impl Into<Operand>, b: impl Into<Operand>) -> Inst {
        setp(
            [Op::ISETP_R, Op::ISETP_I, Op::ISETP_C],
            p,
            a.into(),
            b.into(),
        )
        .with_typed(cmp)
    }
    pub fn sel(
        d: impl Into<Operand>,
        a: impl Into<Operand>,
        b: impl Into<Operand>,
        p: Pred,
    ) -> Inst {
        let forms = [Op::SEL_R, Op::SEL_I, Op::SEL_C];
        three_form(forms, d.into(), a.into(), b.into(), Some(p.into()))
    }
    pub fn lea(
        d: impl Into<Operand>,
        a: impl Into<Operand>,
        b: impl Into<Operand>,
        shift: u8,
    ) -> Inst {
        let b = b.into();
        let op = pick(Op::LEA_R, Op::LEA_I, Op::LEA_C, &b);
        Inst::build(
            op,
            &[
                Pred::TRUE.into(),
                d.into(),
                a.into(),
                b,
                Operand::Imm(shift as i64),
            ],
        )
    }
    pub fn lea_hi(
        d: impl Into<Operand>,
        a: impl Into<Operand>,
        b: impl Into<Operand>,
        c: impl Into<Operand>,
        shift: u8,
    ) -> Inst {
        let b = b.into();
        let op = if matches!(b, Operand::CBuf { .. }) {
            Op::LEA_HI_C
        } else {
            Op::LEA_HI_R
        };
        Inst::build(
            op,
            &[
                Pred::TRUE.into(),
                d.into(),
                a.into(),
                b,
                c.into(),
                Operand::Imm(shift as i64),
            ],
        )
    }
    /// `FSETP.cmp.AND p, PT, a, b, PT`.
    pub fn fsetp(cmp: FCmp, p: PredReg, a: impl Into<Operand>, b: impl Into<Operand>) -> Inst {
        setp(
            [Op::FSETP_R, Op::FSETP_I, Op::FSETP_C],
            p,
            a.into(),
            b.into(),
        )
        .with_typed(cmp)
    }
    /// `MUFU.op d, a`.
    pub fn mufu(op: Mufu, d: impl Into<Operand>, a: impl Into<Operand>) -> Inst {
        Inst::build(Op::MUFU, &[d.into(), a.into()]).with_typed(op)
    }
    pub fn s2r(d: impl Into<Operand>, sr: SpecialReg) -> Inst {
        Inst::build(Op::S2R, &[d.into(), Operand::SReg(sr)])
    }
    /// `LDG.E.size d, [a + off]` (64-bit address).
    pub fn ldg(size: Size, d: impl Into<Operand>, a: Reg, off: i32) -> Inst {
        Inst::build(Op::LDG, &[d.into(), mem(a, off)])
            .with(ModKind::E, 1)
            .with_typed(size)
    }
    /// `STG.E.size [a + off], v`.
    pub fn stg(size: Size, a: Reg, off: i32, v: impl Into<Operand>) -> Inst {
        Inst::build(Op::STG, &[mem(a, off), v.into()])
            .with(ModKind::E, 1)
            .with_typed(size)
    }
    pub fn lds(size: Size, d: impl Into<Operand>, a: Reg, off: i32) -> Inst {
        Inst::build(Op::LDS, &[d.into(), mem(a, off)]).with_typed(size)
    }
    pub fn sts(size: Size, a: Reg, off: i32, v: impl Into<Operand>) -> Inst {
        Inst::build(Op::STS, &[mem(a, off), v.into()]).with_typed(size)
    }
    pub fn ldl(size: Size, d: impl Into<Operand>, a: Reg, off: i32) -> Inst {
        Inst::build(Op::LDL, &[d.into(), mem(a, off)]).with_typed(size)
    }
    pub fn stl(size: Size, a: Reg, off: i32, v: impl Into<Operand>) -> Inst {
        Inst::build(Op::STL, &[mem(a, off), v.into()]).with_typed(size)
    }
    /// `LDC.size d, c[bank][base + offset]`; LDC has no 128-bit or uniform sizes (a
    /// caller bug: panics).
    pub fn ldc(size: Size, d: impl Into<Operand>, bank: u8, base: Reg, offset: i32) -> Inst {
        Inst::build(Op::LDC, &[d.into(), Operand::CIdx { bank, base, offset }]).with_typed(size)
    }
    /// `BRA` to an instruction index of the program (resolved by [`crate::program`]).
    pub fn bra(target: u32) -> Inst {
        Inst::build(Op::BRA, &[Operand::Label(target)])
    }
    pub fn ssy(target: u32) -> Inst {
        Inst::build(Op::SSY, &[Operand::Label(target)])
    }
    pub fn sync() -> Inst {
        Inst::new(Op::SYNC)
    }
    pub fn exit() -> Inst {
        Inst::new(Op::EXIT)
    }
    pub fn nop() -> Inst {
        Inst::new(Op::NOP)
    }
    /// `BAR.SYNC id`.
    pub fn bar_sync(id: u8) -> Inst {
        Inst::build(Op::BAR_SYNC_II, &[Operand::Imm(id as i64), Operand::Imm(0)])
    }
    /// `MEMBAR.scope` with scope "CTA", "GL" or "SYS".
    pub fn membar(scope: Scope) -> Inst {
        Inst::new(Op::MEMBAR).with_typed(scope)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_ops_with_derived_operands_are_the_listed_ones() {
        for op in crate::table::all_ops() {
            let inst = Inst {
                op,
                guard: Pred::TRUE,
                operands: Default::default(),
                mods: [0; MAX_MODS],
            };
            assert_eq!(
                inst.has_derived_operands(),
                op.form().has_derived(),
                "{op:?}"
            );
        }
    }

    #[test]
    fn hash_words_tell_operands_guards_and_modifiers_apart() {
        let a = Inst::lop(Lop::And, Reg(1), Reg(2), Reg(3));
        let mut variants = vec![a];
        for o in [
            Operand::Imm(3),
            Operand::F32(3),
            Operand::F64(3),
            Operand::CBuf { bank: 0, offset: 3 },
            Operand::Mem {
                base: Reg(3),
                offset: 0,
            },
            Operand::Reg(Reg(4)),
            Operand::Pred(Pred {
                reg: PredReg(3),
                not: false,
            }),
        ] {
            let mut i = a;
            i.operands[2] = o;
            variants.push(i);
        }
        let mut g = a;
        g.guard = Pred {
            reg: PredReg(0),
            not: true,
        };
        variants.push(g);
        let mut m = a;
        m.mods[MAX_MODS - 1] = 1;
        variants.push(m);
        let words: Vec<_> = variants.iter().map(Inst::hash_words).collect();
        for (x, wx) in variants.iter().zip(&words) {
            for (y, wy) in variants.iter().zip(&words) {
                assert_eq!(x == y, wx == wy, "{x:?} / {y:?}");
            }
        }
        // Equal instructions hash equal through `Hash` (one write of the words).
        let h = |i: &Inst| {
            use std::hash::{BuildHasher, BuildHasherDefault};
            BuildHasherDefault::<std::collections::hash_map::DefaultHasher>::default().hash_one(i)
        };
        assert_eq!(h(&a), h(&{ a }));
        assert_ne!(h(&a), h(&variants[1]));
    }

    #[test]
    fn builders_take_every_typed_value() {
        use crate::mods::TypedMod;
        let r = Reg(0);
        for &op in Lop::ALL {
            Inst::lop(op, r, r, r);
            Inst::lop32i(op, r, r, 1);
        }
        for &c in ICmp::ALL {
            Inst::isetp(c, PredReg(0), r, r);
        }
        for &c in FCmp::ALL {
            Inst::fsetp(c, PredReg(0), r, r);
        }
        for &m in Mufu::ALL {
            Inst::mufu(m, r, r);
        }
        for &s in Scope::ALL {
            Inst::membar(s);
        }
        for &s in &Size::ALL[..7] {
            Inst::ldg(s, r, r, 0);
            Inst::stg(s, r, 0, r);
            Inst::lds(s, r, r, 0);
            Inst::sts(s, r, 0, r);
            Inst::ldl(s, r, r, 0);
            Inst::stl(s, r, 0, r);
        }
        for &s in &Size::ALL[..6] {
            Inst::ldc(s, r, 0, r, 0);
        }
    }

    #[test]
    fn negation_on_po_forms_maps_to_the_po_field() {
        use super::*;
        let mut i = Inst::iadd(Reg(1), Reg(2), Reg(3));
        assert!(i.set(ModKind::Neg(2), 1));
        assert_eq!(i.get(ModKind::Po), Some(1));
        assert!(i.set(ModKind::Neg(1), 1));
        assert_eq!(i.get(ModKind::Po), Some(3));
        assert_eq!(i.get(ModKind::Neg(1)), Some(1));
        assert!(i.set(ModKind::Neg(2), 0));
        assert_eq!(i.get(ModKind::Po), Some(2));
        assert!(!i.set(ModKind::Neg(3), 1));
    }

    use super::*;

    #[test]
    fn builders_pick_forms_and_report_registers() {
        let i = Inst::iadd(Reg(1), Reg(2), cbuf(0, 0x140));
        assert_eq!(i.op, Op::IADD_C);
        let i = Inst::iadd(Reg(1), Reg(2), 5);
        assert_eq!(i.op, Op::IADD_I);
        let i = Inst::ldg(Size::B64, Reg(4), Reg(2), 8);
        let d: Vec<_> = i.defs().iter().collect();
        assert_eq!(
            d,
            vec![Loc::Gpr {
                reg: Reg(4),
                count: 2
            }]
        );
        let u: Vec<_> = i.uses().iter().collect();
        assert_eq!(
            u,
            vec![Loc::Gpr {
                reg: Reg(2),
                count: 2
            }]
        );
        let i = Inst::iadd(Reg(1), Reg(2), Reg(3))
            .with(ModKind::X, 1)
            .guarded(Pred::not_p(0));
        let u: Vec<_> = i.uses().iter().collect();
        assert_eq!(
            u,
            vec![
                Loc::Pred(PredReg(0)),
                Loc::Gpr {
                    reg: Reg(2),
                    count: 1
                },
                Loc::Gpr {
                    reg: Reg(3),
                    count: 1
                },
                Loc::Cc
            ]
        );
        assert!(Inst::ldg(Size::B32, Reg(0), Reg(2), 0).is_variable_latency());
        assert!(Inst::bra(0).is_branch());
    }
}
