//! The SPA 5.0 opcode table: one row per opcode *form* (an opcode with one operand layout,
//! e.g. `IADD` with a register, an immediate or a constant-buffer second source).
//!
//! Each row gives the mnemonic, the fixed bits (`opcode` under `mask`), the operand fields
//! (kind + bit positions) in the order nvdisasm prints them, and the modifier fields (bit
//! ranges + the name of every value, `""` for the unprinted default, `"?"` for an invalid
//! encoding). The encoder ([`crate::encode`](mod@crate::encode)), decoder ([`crate::decode`](mod@crate::decode)), printer and
//! parser ([`crate::asm`]) and the register-use queries on [`crate::Inst`] are all generic
//! over these rows; no opcode-specific code exists anywhere else.
//!
//! Invariants (checked by `tests::table_is_consistent`): fields of a row never overlap each
//! other, the guard (bits 16..20 unless `NO_GUARD`) or the fixed bits; a row has at most
//! [`MAX_OPERANDS`] operands and [`MAX_MODS`] modifiers. Every bit of a row is thus either fixed,
//! a field, or required to be zero, so decode -> encode reproduces the word exactly.
//!
//! Encodings come from NAK's `sm50.rs`, nouveau's gm107 emitter and envytools, and were
//! checked bit by bit against nvdisasm 11.8 (see `tests/oracle.rs`).

use crate::inst::{ModKind, Op};

/// The maximum number of operands of a form.
pub const MAX_OPERANDS: usize = 6;
/// The maximum number of modifier fields of a form.
pub const MAX_MODS: usize = 12;

/// How an operand is encoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpKind {
    /// 8-bit GPR number at `lo`.
    Gpr(u8),
    /// A GPR that is not encoded: operand `k`'s register plus its width (CAS's swap value,
    /// `Rb+1`, or `Rb+2` for 64-bit).
    Next(u8),
    /// A GPR that is not encoded: the same register as operand `k` (FFMA32I's addend is
    /// its destination).
    Same(u8),
    /// 3-bit predicate at `lo`, written (no negation).
    PredDst(u8),
    /// 3-bit predicate at `lo` with a negation bit at `not`.
    PredSrc(u8, u8),
    /// Unsigned immediate `len` bits at `lo`, printed in hex.
    UImm(u8, u8),
    /// Signed immediate `len` bits at `lo`, printed in signed hex.
    SImm(u8, u8),
    /// XMAD's 16-bit immediate at 20 (printed signed when operand B is signed).
    XImm,
    /// 20-bit signed immediate: 19 bits at 20 plus the sign at 56.
    I20,
    /// 20-bit unsigned view of the same bits (printed as a 20-bit hex value; used by shifts/BFE).
    U20,
    /// f32 immediate: the high 20 bits (19 at 20, sign at 56), low 12 bits zero.
    F20,
    /// f64 immediate: the high 20 bits (19 at 20, sign at 56), low 44 bits zero.
    D20,
    /// 32-bit immediate at `lo`, printed as unsigned hex.
    U32(u8),
    /// 32-bit immediate at `lo`, printed as signed hex.
    S32(u8),
    /// 32-bit float immediate at `lo`.
    F32(u8),
    /// Constant `c[bank][offset]`: offset/4 in 20..34, bank 34..39.
    CBuf,
    /// Same encoding, printed `c[0x0] [0x8]` (XMAD's spelling).
    CBufSp,
    /// Memory `[Ra + off]`: Ra at 8, signed offset `len` bits at `lo`, scaled by `scale` (1 or 4).
    Mem {
        /// Offset field start.
        lo: u8,
        /// Offset field width.
        len: u8,
        /// Offset scale in bytes.
        scale: u8,
    },
    /// LDC's `c[bank][Ra + off]`: Ra at 8, offset signed 16 at 20, bank 36..41.
    CIdx,
    /// Special register index (8 bits at 20).
    SReg,
    /// Branch target: signed 24-bit byte offset at 20, relative to the next instruction.
    Rel,
    /// Absolute 32-bit code address at 20 (JCAL).
    Abs,
    /// DEPBAR's scoreboard mask `{0,3}` (6 bits at 0).
    SbMask,
    /// DEPBAR.LE's scoreboard `SB5` (3 bits at 26).
    Sb,
    /// P2R/R2P's `PR` register (not encoded).
    Pr,
    /// The condition code `CC` (not encoded; CSETP/P2R/R2P style operands).
    Cc,
}

/// What an operand field holds, as the encoder and the printer group the [`OpKind`]s.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpClass {
    /// A general or predicate register.
    Register,
    /// An integer immediate (20-bit, 32-bit or a sub-field of the word).
    IntImm,
    /// A floating-point immediate (f32 or the high bits of an f64, 20 or 32 bits).
    FloatImm,
    /// A constant-bank or memory operand.
    Memory,
    /// A special register, branch target, scoreboard, predicate set or condition code.
    Control,
}

impl OpKind {
    /// The class of this field.
    pub fn class(self) -> OpClass {
        use OpKind as K;
        match self {
            K::Gpr(_) | K::Next(_) | K::Same(_) | K::PredDst(_) | K::PredSrc(..) => {
                OpClass::Register
            }
            K::UImm(..) | K::SImm(..) | K::I20 | K::XImm | K::U20 | K::U32(_) | K::S32(_) => {
                OpClass::IntImm
            }
            K::F20 | K::D20 | K::F32(_) => OpClass::FloatImm,
            K::CBuf | K::CBufSp | K::Mem { .. } | K::CIdx => OpClass::Memory,
            K::SReg | K::Rel | K::Abs | K::SbMask | K::Sb | K::Pr | K::Cc => OpClass::Control,
        }
    }
}

/// Whether an operand is read or written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Written by the instruction.
    Def,
    /// Read by the instruction.
    Use,
}

/// The number of consecutive registers an operand covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Width {
    /// One register.
    W1,
    /// Two registers (64-bit, even-aligned).
    W2,
    /// Four registers (128-bit, 4-aligned).
    W4,
    /// 1, 2 or 4 from the form's [`ModKind::Size`] value (memory ops).
    Size,
    /// 2 if [`ModKind::E`] is set (64-bit addresses), else 1.
    Ext,
    /// 2 if the [`ModKind::DType`] names a 64-bit type, else 1.
    DType,
    /// 2 if the [`ModKind::SType`] names a 64-bit type, else 1.
    SType,
    /// 2 if [`ModKind::AtomType`] names a 64-bit type, else 1.
    Atom,
    /// A texture instruction's coordinate registers: 1-4 after [`ModKind::TexDim`] (the
    /// array index comes first, then x, y, z).
    TexCoords,
    /// A texture instruction's second source group: one register each for an explicit LOD
    /// or bias, packed `.AOFFI` offsets, a `.DC` reference and a `.MS` sample index
    /// (0 = `RZ`, not read).
    TexExtra,
    /// A texture instruction's results: one register per bit of the write-mask operand.
    TexMask,
    /// TXD's derivatives: ddx and ddy for each axis of [`ModKind::TexDim`].
    TexDeriv,
    /// TEXS/TLDS's first destination: the first two channels of [`ModKind::TexChannels`].
    TexsLo,
    /// TEXS/TLDS's second destination: the channels after the first two.
    TexsHi,
}

/// One operand field of a form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpField {
    /// Encoding.
    pub kind: OpKind,
    /// Read or written.
    pub role: Role,
    /// Register count.
    pub width: Width,
    /// Printed only when not `RZ`/`PT`/zero (LOP's predicate result, SHFL's...).
    pub optional: bool,
}

/// Where a modifier's text goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// `.NAME` after the mnemonic, in row order.
    Mnem,
    /// `-` before operand k.
    Neg(u8),
    /// `|..|` around operand k.
    Abs(u8),
    /// `~` before operand k.
    Inv(u8),
    /// IADD/ISCADD's two negation bits: bit 0 negates operand `.1`, bit 1 operand `.0`; both
    /// set is `.PO` (plus one) in the mnemonic.
    NegPo(u8, u8),
    /// `.NAME` after operand k (inside `|..|`, before `.reuse`).
    Suffix(u8),
    /// A leading pseudo-operand `CC.NAME` (condition code tests), printed when not empty.
    Lead,
    /// A name printed as an operand of its own right after operand k (a texture's
    /// dimension `2D`, TXQ's query `TEX_HEADER_DIMENSION`).
    Arg(u8),
    /// A field whose names have a mnemonic part and an operand part, `"LL.DC|2D"`: the first
    /// prints with the mnemonic modifiers (`.LL.DC`), the second as an operand after
    /// operand k (TEXS/TLDS's type, which names the LOD mode and the dimension at once).
    MnemArg(u8),
    /// Video-instruction source `k` (VABSDIFF): a register source's field is `sel | signed
    /// << 3` (sel 0-3 a byte, 4-5 a half, 6 the word, 7 invalid), an immediate source's just
    /// the signed bit (a 16-bit immediate). Prints as the source-type pair `.S8.S32` in the
    /// mnemonic, only when it differs from the default (`S32` and `S32`, or `S16` for an
    /// immediate second source), and as a `.B1`/`.B2`/`.B3`/`.H1` suffix on the operand.
    Video(u8),
}

/// One modifier field: up to two bit pieces, concatenated low piece first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ModField {
    /// What the modifier means.
    pub kind: ModKind,
    /// First piece (lo, len).
    pub a: (u8, u8),
    /// Second piece (lo, len); len 0 if none.
    pub b: (u8, u8),
    /// Value names; `""` prints nothing, `"?"` (or a value past the list) is invalid.
    pub names: &'static [&'static str],
    /// Where it prints.
    pub place: Place,
    /// Bit `v` set when value `v` is valid (precomputed from `names`).
    pub valid: u64,
}

/// Precompute a modifier's valid-value mask.
const fn mf(mut m: ModField) -> ModField {
    let mut valid = 0u64;
    let mut i = 0;
    while i < m.names.len() && i < 64 {
        let n = m.names[i].as_bytes();
        if !(n.len() == 1 && n[0] == b'?') {
            valid |= 1 << i;
        }
        i += 1;
    }
    m.valid = valid;
    m
}

impl ModField {
    /// Total width in bits.
    pub const fn bits(&self) -> u32 {
        (self.a.1 + self.b.1) as u32
    }

    /// Whether value `v` has a name (is a valid encoding); no string comparison.
    #[inline]
    pub fn is_valid(&self, v: u8) -> bool {
        v < 64 && self.valid & (1 << v) != 0
    }

    /// The name of value `v`, or `None` if invalid.
    pub fn name(&self, v: u8) -> Option<&'static str> {
        match self.names.get(v as usize) {
            Some(&"?") | None => None,
            Some(n) => Some(n),
        }
    }
}

/// Instruction properties, a bit set.
pub mod flags {
    /// Branch with a target operand (BRA, SSY, PBK, PCNT, CAL, JCAL).
    pub const BRANCH: u32 = 1 << 0;
    /// Ends or redirects control without a target (EXIT, RET, BRK, CONT, SYNC).
    pub const FLOW: u32 = 1 << 1;
    /// Reads memory.
    pub const LOAD: u32 = 1 << 2;
    /// Writes memory.
    pub const STORE: u32 = 1 << 3;
    /// Result arrives after a variable delay: consumers must wait on a scoreboard.
    pub const VAR_LAT: u32 = 1 << 4;
    /// No guard predicate field (bits 16..20 are fixed zero).
    pub const NO_GUARD: u32 = 1 << 5;
    /// Barrier / memory ordering / other side effect beyond its defs.
    pub const SIDE: u32 = 1 << 6;
    /// Reads the condition code when `.X` is set, writes it when `.CC` is set (handled by mods).
    pub const ATOMIC: u32 = 1 << 7;
    /// Double precision.
    pub const DOUBLE: u32 = 1 << 8;
    /// Texture unit instruction: the control word's reuse bits are its texture *phase*,
    /// printed `.T` (1), `.P` (2) or `.INVALIDPHASE3` after the modifiers; no `.reuse`.
    pub const TEX: u32 = 1 << 9;
}

/// Latency/throughput class of a form (see [`crate::latency`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Class {
    /// Integer/logic ALU, fixed latency.
    Alu,
    /// Single precision FMA-pipe float ALU, fixed latency.
    Fpu,
    /// Integer multiply-add (XMAD) and similar, fixed latency.
    Mad,
    /// Moves and selects (fixed).
    Mov,
    /// Predicate logic (fixed).
    Pred,
    /// Double precision (variable, scoreboard).
    Dbl,
    /// Multi-function unit (MUFU), variable.
    Sfu,
    /// Conversions (F2F, F2I, I2F, I2I, POPC, FLO, BREV...): variable latency on Maxwell.
    Conv,
    /// Shared memory access.
    Shared,
    /// Global/local/generic memory access.
    Global,
    /// Constant load (LDC).
    Const,
    /// Special register read (S2R), variable.
    Sreg,
    /// Texture fetches and queries (TEX, TLD, TXQ), variable.
    Tex,
    /// Branches and control-stack ops.
    Ctrl,
    /// Barriers, membars, votes, shuffles and other warp-level ops.
    Sync,
}

/// One table row.
#[derive(Clone, Copy, Debug)]
pub struct Form {
    /// The opcode name this row describes (Rust identifier of the [`Op`] variant).
    pub name: &'static str,
    /// Base mnemonic, possibly with fixed parts (`SHF.L`, `LEA.HI`).
    pub mnemonic: &'static str,
    /// Fixed bits (under `mask`).
    pub opcode: u64,
    /// Which bits are fixed.
    pub mask: u64,
    /// Operand fields, print order.
    pub operands: &'static [OpField],
    /// Modifier fields; mnemonic modifiers print in this order.
    pub mods: &'static [ModField],
    /// Latency class.
    pub class: Class,
    /// [`flags`] bits.
    pub flags: u32,
}

// ---- operand field shorthands ---------------------------------------------------------------

const fn d(kind: OpKind, width: Width) -> OpField {
    OpField {
        kind,
        role: Role::Def,
        width,
        optional: false,
    }
}
const fn u(kind: OpKind, width: Width) -> OpField {
    OpField {
        kind,
        role: Role::Use,
        width,
        optional: false,
    }
}
const fn opt(mut f: OpField) -> OpField {
    f.optional = true;
    f
}

use OpKind as K;
use Width::*;

const RD: OpField = d(K::Gpr(0), W1);
const RD2: OpField = d(K::Gpr(0), W2);
const RDS: OpField = d(K::Gpr(0), Size);
const RDT: OpField = d(K::Gpr(0), DType);
const RDA: OpField = d(K::Gpr(0), Atom);
const RA: OpField = u(K::Gpr(8), W1);
const RA2: OpField = u(K::Gpr(8), W2);
const RB: OpField = u(K::Gpr(20), W1);
const RB2: OpField = u(K::Gpr(20), W2);
const RBT: OpField = u(K::Gpr(20), SType);
const RBA: OpField = u(K::Gpr(20), Atom);
const RC: OpField = u(K::Gpr(39), W1);
const RC2: OpField = u(K::Gpr(39), W2);
const RS: OpField = u(K::Gpr(0), Size); // store data
const RSA: OpField = u(K::Gpr(0), Atom); // RED data
const NEXT: OpField = u(K::Next(2), Atom);
const I20: OpField = u(K::I20, W1);
const U20: OpField = u(K::U20, W1);
const F20: OpField = u(K::F20, W1);
const D20: OpField = u(K::D20, W1);
const CB: OpField = u(K::CBuf, W1);
const CBS: OpField = u(K::CBufSp, W1);
const PD: OpField = d(K::PredDst(3), W1);
const PD0: OpField = d(K::PredDst(0), W1);
const PC: OpField = u(K::PredSrc(39, 42), W1);
const MEM24: OpField = u(
    K::Mem {
        lo: 20,
        len: 24,
        scale: 1,
    },
    Ext,
);
const MEM24N: OpField = u(
    K::Mem {
        lo: 20,
        len: 24,
        scale: 1,
    },
    W1,
);
const MEM20A: OpField = u(
    K::Mem {
        lo: 28,
        len: 20,
        scale: 1,
    },
    Ext,
);
const MEM22S: OpField = u(
    K::Mem {
        lo: 30,
        len: 22,
        scale: 4,
    },
    W1,
);
const MEM32: OpField = u(
    K::Mem {
        lo: 20,
        len: 32,
        scale: 1,
    },
    Ext,
);

// ---- modifier shorthands -------------------------------------------------------------------

const fn m(kind: ModKind, lo: u8, len: u8, names: &'static [&'static str]) -> ModField {
    mf(ModField {
        kind,
        a: (lo, len),
        b: (0, 0),
        names,
        place: Place::Mnem,
        valid: 0,
    })
}
const fn m2(kind: ModKind, a: (u8, u8), b: (u8, u8), names: &'static [&'static str]) -> ModField {
    mf(ModField {
        kind,
        a,
        b,
        names,
        place: Place::Mnem,
        valid: 0,
    })
}
const fn flag(kind: ModKind, bit: u8, name: &'static str) -> ModField {
    mf(ModField {
        kind,
        a: (bit, 1),
        b: (0, 0),
        names: flag_names(name),
        place: Place::Mnem,
        valid: 0,
    })
}
const fn flag_names(name: &'static str) -> &'static [&'static str] {
    // A flag's names are ["", name]; the common ones are spelled out so they can be static.
    match name.as_bytes() {
        b"X" => &["", "X"],
        b"FTZ" => &["", "FTZ"],
        b"SAT" => &["", "SAT"],
        b"E" => &["", "E"],
        b"W" => &["", "W"],
        b"HI" => &["", "HI"],
        b"U" => &["", "U"],
        b"SH" => &["", "SH"],
        b"BF" => &["", "BF"],
        b"PSL" => &["", "PSL"],
        b"MRG" => &["", "MRG"],
        b"BREV" => &["", "BREV"],
        b"NDV" => &["", "NDV"],
        b"S" => &["", "S"],
        b"LMT" => &["", "LMT"],
        b"PO" => &["", "PO"],
        b"TRIG" => &["", "TRIG"],
        b"SD" => &["", "SD"],
        b"AOFFI" => &["", "AOFFI"],
        b"DC" => &["", "DC"],
        b"NODEP" => &["", "NODEP"],
        b"MS" => &["", "MS"],
        b"CL" => &["", "CL"],
        b"MX" => &["", "MX"],
        _ => &["", "?"],
    }
}
const fn arg(kind: ModKind, lo: u8, len: u8, names: &'static [&'static str], k: u8) -> ModField {
    mf(ModField {
        kind,
        a: (lo, len),
        b: (0, 0),
        names,
        place: Place::Arg(k),
        valid: 0,
    })
}
const fn marg(kind: ModKind, lo: u8, len: u8, names: &'static [&'static str], k: u8) -> ModField {
    mf(ModField {
        kind,
        a: (lo, len),
        b: (0, 0),
        names,
        place: Place::MnemArg(k),
        valid: 0,
    })
}
const fn cct(lo: u8) -> ModField {
    mf(ModField {
        kind: ModKind::CcTest,
        a: (lo, 5),
        b: (0, 0),
        names: CCT,
        place: Place::Lead,
        valid: 0,
    })
}
const fn bsel(k: u8) -> ModField {
    mf(ModField {
        kind: ModKind::ByteSel,
        a: (41, 2),
        b: (0, 0),
        names: BSEL,
        place: Place::Suffix(k),
        valid: 0,
    })
}
/// Video source select names: only validity matters (the printer spells them, see
/// [`Place::Video`]); select 7 is invalid.
const VSRC: &[&str] = &[
    "v", "v", "v", "v", "v", "v", "v", "?", "v", "v", "v", "v", "v", "v", "v", "?",
];
const fn vsrc(k: u8, sel: u8, sign: u8) -> ModField {
    mf(ModField {
        kind: ModKind::VSrc(k),
        a: (sel, 3),
        b: (sign, 1),
        names: VSRC,
        place: Place::Video(k),
        valid: 0,
    })
}
const fn vsrc_imm(k: u8, sign: u8) -> ModField {
    mf(ModField {
        kind: ModKind::VSrc(k),
        a: (sign, 1),
        b: (0, 0),
        names: &["v", "v"],
        place: Place::Video(k),
        valid: 0,
    })
}
/// VMNMX's destination signedness: `.UD` unsigned, signed by default (VABSDIFF says `.SD`).
const UD: &[&str] = &["UD", ""];
/// The video ops' secondary operation with Rc (7: none).
const VMODE: &[&str] = &[
    "MRG_16H", "MRG_16L", "MRG_8B0", "MRG_8B2", "ACC", "MIN", "MAX", "",
];
const fn negpo(a: u8, b: u8) -> ModField {
    mf(ModField {
        kind: ModKind::Po,
        a: (48, 2),
        b: (0, 0),
        names: &["", "", "", "PO"],
        place: Place::NegPo(a, b),
        valid: 0,
    })
}
const fn neg(k: u8, bit: u8) -> ModField {
    mf(ModField {
        kind: ModKind::Neg(k),
        a: (bit, 1),
        b: (0, 0),
        names: &["", "-"],
        place: Place::Neg(k),
        valid: 0,
    })
}
const fn abs(k: u8, bit: u8) -> ModField {
    mf(ModField {
        kind: ModKind::Abs(k),
        a: (bit, 1),
        b: (0, 0),
        names: &["", "|"],
        place: Place::Abs(k),
        valid: 0,
    })
}
const fn inv(k: u8, bit: u8) -> ModField {
    mf(ModField {
        kind: ModKind::Inv(k),
        a: (bit, 1),
        b: (0, 0),
        names: &["", "~"],
        place: Place::Inv(k),
        valid: 0,
    })
}
const fn cc(bit: u8) -> ModField {
    mf(ModField {
        kind: ModKind::Cc,
        a: (bit, 1),
        b: (0, 0),
        names: &["", "CC"],
        place: Place::Suffix(0),
        valid: 0,
    })
}
const fn cc_on(k: u8, bit: u8) -> ModField {
    mf(ModField {
        kind: ModKind::Cc,
        a: (bit, 1),
        b: (0, 0),
        names: &["", "CC"],
        place: Place::Suffix(k),
        valid: 0,
    })
}
const fn h1(k: u8, bit: u8) -> ModField {
    mf(ModField {
        kind: ModKind::H1(k),
        a: (bit, 1),
        b: (0, 0),
        names: &["", "H1"],
        place: Place::Suffix(k),
        valid: 0,
    })
}

use ModKind as M;

const ICMP: &[&str] = &["F", "LT", "EQ", "LE", "GT", "NE", "GE", "T"];
const FCMP: &[&str] = &[
    "F", "LT", "EQ", "LE", "GT", "NE", "GE", "NUM", "NAN", "LTU", "EQU", "LEU", "GTU", "NEU",
    "GEU", "T",
];
const FCMPGT: &[&str] = &[
    "F", "LT", "EQ", "LE", "", "NE", "GE", "NUM", "NAN", "LTU", "EQU", "LEU", "GTU", "NEU", "GEU",
    "T",
];
const HIX: &[&str] = &["", "HI", "X", "XHI"];
const F2ITY: &[&str] = &["?", "U16", "U32", "U64", "?", "S16", "S32", "S64"];
const I2ITY: &[&str] = &["U8", "U16", "U32", "?", "S8", "S16", "S32", "?"];
const BOP: &[&str] = &["AND", "OR", "XOR", "?"];
const RND: &[&str] = &["", "RM", "RP", "RZ"];
const U32: &[&str] = &["U32", ""];
const LOPOP: &[&str] = &["AND", "OR", "XOR", "PASS_B"];
const PO: &[&str] = &["", "T", "Z", "NZ"];
const FMZ: &[&str] = &["", "FTZ", "FMZ", "?"];
const MEMSZ: &[&str] = &["U8", "S8", "U16", "S16", "", "64", "128", "U.128"];
const LDSSZ: &[&str] = &[
    "U8", "S8", "U16", "S16", "", "64", "128", "?", "U.U8", "U.S8", "U.U16", "U.S16", "U.32",
    "U.64", "U.128", "?",
];
const MEMSZ6: &[&str] = &["U8", "S8", "U16", "S16", "", "64", "128", "?"];
const LDCSZ: &[&str] = &["U8", "S8", "U16", "S16", "", "64", "?", "?"];
const LDGCOP: &[&str] = &["", "CG", "CI", "CV"];
const LDLCOP: &[&str] = &["", "LU", "CI", "CV"];
const STCOP: &[&str] = &["", "CG", "CS", "WT"];
const LDCMODE: &[&str] = &["", "IL", "IS", "ISL"];
const ATOMOP: &[&str] = &[
    "ADD", "MIN", "MAX", "INC", "DEC", "AND", "OR", "XOR", "EXCH", "?", "?", "?", "?", "?", "?",
    "?",
];
const ATOMTY: &[&str] = &["", "S32", "U64", "F32.FTZ.RN", "U128", "S64", "?", "?"];
const ATOMSTY: &[&str] = &["", "S32", "U64", "S64"];
const REDOP: &[&str] = &["ADD", "MIN", "MAX", "INC", "DEC", "AND", "OR", "XOR"];
const MUFUOP: &[&str] = &[
    "COS", "SIN", "EX2", "LG2", "RCP", "RSQ", "RCP64H", "RSQ64H", "?", "?", "?", "?", "?", "?",
    "?", "?",
];
const FTY: &[&str] = &["?", "F16", "F32", "F64"];
/// Source types of the immediate conversions: the immediate is an F20 for an F32 source and a
/// D20 for an F64 one, so each gets its own row (same fixed bits, told apart by this field).
/// An F16 source takes a raw half in bits 20-35 instead; no row models it (ptxas folds such
/// conversions), so those words are decode errors.
const FTY_F32: &[&str] = &["?", "?", "F32", "?"];
const FTY_F64: &[&str] = &["?", "?", "?", "F64"];
const ITY: &[&str] = &["U8", "U16", "U32", "U64", "S8", "S16", "S32", "S64"];
const F2FRND: &[&str] = &["", "RM", "RP", "RZ", "ROUND", "FLOOR", "CEIL", "TRUNC"];
const F2IRND: &[&str] = &["", "FLOOR", "CEIL", "TRUNC"];
const BSEL: &[&str] = &["", "B1", "B2", "B3"];
const XMODE: &[&str] = &["", "CLO", "CHI", "CSFU", "CBCC", "?", "?", "?"];
const XMODE2: &[&str] = &["", "CLO", "CHI", "CSFU"];
const XSIGN: &[&str] = &["", "S16.U16", "U16.S16", "S16.S16"];
const SHFTY: &[&str] = &["", "?", "U64", "S64"];
const IADD3M: &[&str] = &["", "RS", "LS", "?"];
const SHFLOP: &[&str] = &["IDX", "UP", "DOWN", "BFLY"];
const VOTEOP: &[&str] = &["ALL", "ANY", "EQ", "?"];
const MEMBARS: &[&str] = &["CTA", "GL", "SYS", "?"];
const BARRED: &[&str] = &["POPC", "AND", "OR", "?"];
const PRMTM: &[&str] = &["", "F4E", "B4E", "RC8", "ECL", "ECR", "RC16", "?"];
const CCT: &[&str] = &[
    "F", "LT", "EQ", "LE", "GT", "NE", "GE", "NUM", "NAN", "LTU", "EQU", "LEU", "GTU", "NEU",
    "GEU", "", "OFF", "LO", "SFF", "LS", "HI", "SFT", "HS", "OFT", "CSM_TA", "CSM_TR", "CSM_MX",
    "FCSM_TA", "FCSM_TR", "FCSM_MX", "RLE", "RGT",
];
/// CSETP prints the always-true test as `.T`.
const CCTT: &[&str] = &[
    "F", "LT", "EQ", "LE", "GT", "NE", "GE", "NUM", "NAN", "LTU", "EQU", "LEU", "GTU", "NEU",
    "GEU", "T", "OFF", "LO", "SFF", "LS", "HI", "SFT", "HS", "OFT", "CSM_TA", "CSM_TR", "CSM_MX",
    "FCSM_TA", "FCSM_TR", "FCSM_MX", "RLE", "RGT",
];
const IVALL: &[&str] = &["", "IVALLD", "IVALLT", "IVALLTD"];
const FCHKOP: &[&str] = &["DIVIDE", "?", "?", "?"];
const RROOP: &[&str] = &["SINCOS", "EX2"];
const IMNMXM: &[&str] = &["", "XLO", "XMED", "XHI"];
const LEAX: &[&str] = &["", "X"];
const TEXLOD: &[&str] = &["", "LZ", "LB", "LL", "?", "?", "LBA", "LLA"];
const TLDLOD: &[&str] = &["LZ", "LL"];
const TEXSTYPE: &[&str] = &[
    "LZ|1D",
    "|2D",
    "LZ|2D",
    "LL|2D",
    "DC|2D",
    "LL.DC|2D",
    "LZ.DC|2D",
    "|ARRAY_2D",
    "LZ|ARRAY_2D",
    "LZ.DC|ARRAY_2D",
    "|3D",
    "LZ|3D",
    "|CUBE",
    "LL|CUBE",
    "?",
    "?",
];
const TLDSTYPE: &[&str] = &[
    "LZ|1D",
    "LL|1D",
    "LZ|2D",
    "?",
    "LZ.AOFFI|2D",
    "LL|2D",
    "LZ.MS|2D",
    "LZ|3D",
    "LZ|ARRAY_2D",
    "?",
    "?",
    "?",
    "LL.AOFFI|2D",
    "?",
    "?",
    "?",
];
/// TEXS/TLDS channels with the second destination `RZ` (the `_RZ` forms) and without.
const TEXSCH1: &[&str] = &["R", "G", "B", "A", "RG", "RA", "GA", "BA"];
const TEXSCH2: &[&str] = &["RGB", "RGA", "RBA", "GBA", "RGBA", "?", "?", "?"];
const TEXDIM: &[&str] = &[
    "1D",
    "ARRAY_1D",
    "2D",
    "ARRAY_2D",
    "3D",
    "ARRAY_3D",
    "CUBE",
    "ARRAY_CUBE",
];
/// TXQ queries (bits 22..27, probed with nvdisasm 11.8): odd values other than 1 and 5 are
/// invalid, unnamed even ones print as half their value.
const TXQQUERY: &[&str] = &[
    "?",
    "TEX_HEADER_DIMENSION",
    "TEX_HEADER_TEXTURE_TYPE",
    "?",
    "?",
    "TEX_HEADER_SAMPLER_POS",
    "3",
    "?",
    "4",
    "?",
    "5",
    "?",
    "6",
    "?",
    "7",
    "?",
    "TEX_SAMPLER_FILTER",
    "?",
    "TEX_SAMPLER_LOD",
    "?",
    "TEX_SAMPLER_WRAP",
    "?",
    "TEX_SAMPLER_BORDER_COLOR",
    "?",
    "12",
    "?",
    "13",
    "?",
    "14",
    "?",
    "15",
    "?",
    "16",
    "?",
    "17",
    "?",
    "18",
    "?",
    "19",
    "?",
    "20",
    "?",
    "21",
    "?",
    "22",
    "?",
    "23",
    "?",
    "24",
    "?",
    "25",
    "?",
    "26",
    "?",
    "27",
    "?",
    "28",
    "?",
    "29",
    "?",
    "30",
    "?",
    "31",
    "?",
];

/// `op!(top16, mask16)`: fixed bits in the top 16 bits of the word.
macro_rules! op16 {
    ($v:expr, $m:expr) => {
        (($v as u64) << 48, ($m as u64) << 48)
    };
}

macro_rules! forms {
    ($( $name:ident : $mn:literal, $fixed:expr, $class:ident, $flags:expr,
        [$($opnd:expr),* $(,)?], [$($md:expr),* $(,)?] ;)*) => {
        /// Every opcode form of the table, one variant per row.
        #[allow(non_camel_case_types, missing_docs)]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u16)]
        pub enum OpName { $($name),* }

        /// All rows as a constant, so that per-row code ([`crate::decode`], [`crate::encode`])
        /// can be specialised at compile time (`const { &FORM_TABLE[I] }`).
        pub(crate) const FORM_TABLE: &[Form] = &[ $( Form {
            name: stringify!($name),
            mnemonic: $mn,
            opcode: $fixed.0,
            mask: $fixed.1,
            operands: &[$($opnd),*],
            mods: &[$($md),*],
            class: Class::$class,
            flags: $flags,
        } ),* ];

        /// All rows, indexed by [`Op`].
        pub static FORMS: &[Form] = FORM_TABLE;

        /// One decoder per row, specialised on the row's fields.
        pub(crate) static DECODERS: &[crate::decode::DecodeFn] =
            &[ $( crate::decode::decode_form::<{ OpName::$name as usize }> ),* ];

        /// One encoder per row, specialised on the row's fields.
        pub(crate) static ENCODERS: &[crate::encode::EncodeFn] =
            &[ $( crate::encode::encode_form::<{ OpName::$name as usize }> ),* ];

        impl Op {
            $(
                #[allow(missing_docs)]
                pub const $name: Op = Op(OpName::$name as u16);
            )*
        }
    };
}

use flags::*;

/// Fixed bits: the top 16 bits plus extra (value, mask) pairs lower down.
const fn fx(top: (u64, u64), lo: u64, lo_mask: u64) -> (u64, u64) {
    (top.0 | lo, top.1 | lo_mask)
}

// VABSDIFF (the one video op ptxas emits, for |a - b| patterns) was laid out by flipping each
// bit of `VABSDIFF.SD.ACC R8, R6, R4, R9` (0x546704e060470608) under nvdisasm 11.8: top byte
// 0x54, bit 50 register (1) or 16-bit immediate (0, bits 20-35) second source; 36-38/48 and
// 28-30/49 the sources' select and signedness ([`Place::Video`]); 51-53 the operation with Rc;
// 54 `.SD`; 55 `.SAT`; 47 `.CC`. Bits 31-35 of the register form are ignored by nvdisasm and
// rejected here as stray. Bit 57 would make it VSHR, 58 VABSDIFF4, 59 FMNMX.
// VMNMX (ptxas's `max(min(a, b), c)` and clamp patterns, e.g. Rodinia pathfinder) has the same
// layout under top bits 0x3a (flips of `VMNMX.MIN R8, R8, R10, R11`, 0x3a6f05e060a70808):
// bit 56 `.MX` (max, else min), bit 54 the destination's signedness printed `.UD` when clear;
// nvdisasm prints `.UD`, the source types, `.MX`, `.SAT`, then the operation with Rc.

#[rustfmt::skip]
forms! {
    // ---- integer arithmetic -------------------------------------------------------------------
    IADD_R:     "IADD",     op16!(0x5c10, 0xfff8), Alu, 0, [RD, RA, RB], [negpo(1, 2), flag(M::Sat, 50, "SAT"), flag(M::X, 43, "X"), cc(47)];
    IADD_I:     "IADD",     op16!(0x3810, 0xfef8), Alu, 0, [RD, RA, I20], [negpo(1, 2), flag(M::Sat, 50, "SAT"), flag(M::X, 43, "X"), cc(47)];
    IADD_C:     "IADD",     op16!(0x4c10, 0xfff8), Alu, 0, [RD, RA, CB], [negpo(1, 2), flag(M::Sat, 50, "SAT"), flag(M::X, 43, "X"), cc(47)];
    IADD32I:    "IADD32I",  op16!(0x1c00, 0xfe00), Alu, 0, [RD, RA, u(K::S32(20), W1)], [flag(M::Sat, 54, "SAT"), flag(M::X, 53, "X"), cc(52), neg(1, 56)];
    IADD3_R:    "IADD3",    op16!(0x5cc0, 0xfff0), Alu, 0, [RD, RA, RB, RC], [m(M::Iadd3Mode, 37, 2, IADD3M), flag(M::X, 48, "X"), cc(47), neg(1, 51), neg(2, 50), neg(3, 49)];
    IADD3_I:    "IADD3",    op16!(0x38c0, 0xfef0), Alu, 0, [RD, RA, U20, RC], [flag(M::X, 48, "X"), cc(47), neg(1, 51), neg(2, 50), neg(3, 49)];
    IADD3_C:    "IADD3",    op16!(0x4cc0, 0xfff0), Alu, 0, [RD, RA, CB, RC], [flag(M::X, 48, "X"), cc(47), neg(1, 51), neg(2, 50), neg(3, 49)];
    ISCADD_R:   "ISCADD",   op16!(0x5c18, 0xfff8), Alu, 0, [RD, RA, RB, u(K::UImm(39, 5), W1)], [negpo(1, 2), cc(47)];
    ISCADD_I:   "ISCADD",   op16!(0x3818, 0xfef8), Alu, 0, [RD, RA, I20, u(K::UImm(39, 5), W1)], [negpo(1, 2), cc(47)];
    ISCADD_C:   "ISCADD",   op16!(0x4c18, 0xfff8), Alu, 0, [RD, RA, CB, u(K::UImm(39, 5), W1)], [negpo(1, 2), cc(47)];
    ISCADD32I:  "ISCADD32I", op16!(0x1400, 0xfc00), Alu, 0, [RD, RA, u(K::S32(20), W1), u(K::UImm(53, 5), W1)], [cc(52)];
    IMNMX_R:    "IMNMX",    op16!(0x5c20, 0xfff8), Alu, 0, [RD, RA, RB, PC], [m(M::Signed, 48, 1, U32), m(M::Mode, 43, 2, IMNMXM), cc(47)];
    IMNMX_I:    "IMNMX",    op16!(0x3820, 0xfef8), Alu, 0, [RD, RA, I20, PC], [m(M::Signed, 48, 1, U32), m(M::Mode, 43, 2, IMNMXM), cc(47)];
    IMNMX_C:    "IMNMX",    op16!(0x4c20, 0xfff8), Alu, 0, [RD, RA, CB, PC], [m(M::Signed, 48, 1, U32), m(M::Mode, 43, 2, IMNMXM), cc(47)];
    XMAD_R:     "XMAD",     op16!(0x5b00, 0xffc0), Mad, 0, [RD, RA, RB, RC], [m2(M::XSign, (48,1), (49,1), XSIGN), flag(M::Psl, 36, "PSL"), m(M::XMode, 50, 3, XMODE), flag(M::Mrg, 37, "MRG"), flag(M::X, 38, "X"), cc(47), h1(1, 53), h1(2, 35)];
    XMAD_I:     "XMAD",     op16!(0x3600, 0xffc0), Mad, 0, [RD, RA, u(K::XImm, W1), RC], [m2(M::XSign, (48,1), (49,1), XSIGN), flag(M::Psl, 36, "PSL"), m(M::XMode, 50, 3, XMODE), flag(M::Mrg, 37, "MRG"), flag(M::X, 38, "X"), cc(47), h1(1, 53)];
    XMAD_C:     "XMAD",     op16!(0x4e00, 0xfe00), Mad, 0, [RD, RA, CBS, RC], [m2(M::XSign, (48,1), (49,1), XSIGN), flag(M::Psl, 55, "PSL"), m(M::XMode, 50, 2, XMODE2), flag(M::Mrg, 56, "MRG"), flag(M::X, 54, "X"), cc(47), h1(1, 53), h1(2, 52)];
    XMAD_RC:    "XMAD",     op16!(0x5100, 0xff00), Mad, 0, [RD, RA, RC, CB], [m2(M::XSign, (48,1), (49,1), XSIGN), m(M::XMode, 50, 2, XMODE2), flag(M::X, 54, "X"), cc(47), h1(1, 53), h1(2, 52)];
    LEA_R:      "LEA",      op16!(0x5bd0, 0xfff8), Alu, 0, [opt(d(K::PredDst(48), W1)), RD, RA, RB, opt(u(K::UImm(39, 5), W1))], [flag(M::X, 46, "X"), cc_on(1, 47), neg(2, 45)];
    LEA_I:      "LEA",      op16!(0x36d0, 0xfef8), Alu, 0, [opt(d(K::PredDst(48), W1)), RD, RA, I20, opt(u(K::UImm(39, 5), W1))], [flag(M::X, 46, "X"), cc_on(1, 47), neg(2, 45)];
    LEA_C:      "LEA",      op16!(0x4bd0, 0xfff8), Alu, 0, [opt(d(K::PredDst(48), W1)), RD, RA, CB, opt(u(K::UImm(39, 5), W1))], [flag(M::X, 46, "X"), cc_on(1, 47), neg(2, 45)];
    LEA_HI_R:   "LEA.HI",   op16!(0x5bd8, 0xfff8), Alu, 0, [opt(d(K::PredDst(48), W1)), RD, RA, RB, RC, opt(u(K::UImm(28, 5), W1))], [m(M::X, 38, 1, LEAX), cc_on(1, 47), neg(2, 37)];
    LEA_HI_C:   "LEA.HI",   op16!(0x1800, 0xf800), Alu, 0, [opt(d(K::PredDst(48), W1)), RD, RA, CB, RC, opt(u(K::UImm(51, 5), W1))], [m(M::X, 57, 1, LEAX), cc_on(1, 47), neg(2, 56)];
    VABSDIFF_R: "VABSDIFF", op16!(0x5404, 0xff04), Alu, 0, [RD, RA, RB, RC], [flag(M::Signed, 54, "SD"), vsrc(1, 36, 48), vsrc(2, 28, 49), flag(M::Sat, 55, "SAT"), m(M::Mode, 51, 3, VMODE), cc(47)];
    VABSDIFF_I: "VABSDIFF", op16!(0x5400, 0xff04), Alu, 0, [RD, RA, u(K::XImm, W1), RC], [flag(M::Signed, 54, "SD"), vsrc(1, 36, 48), vsrc_imm(2, 49), flag(M::Sat, 55, "SAT"), m(M::Mode, 51, 3, VMODE), cc(47)];
    VMNMX_R:    "VMNMX",    op16!(0x3a04, 0xfe04), Alu, 0, [RD, RA, RB, RC], [m(M::Signed, 54, 1, UD), vsrc(1, 36, 48), vsrc(2, 28, 49), flag(M::VMax, 56, "MX"), flag(M::Sat, 55, "SAT"), m(M::Mode, 51, 3, VMODE), cc(47)];
    VMNMX_I:    "VMNMX",    op16!(0x3a00, 0xfe04), Alu, 0, [RD, RA, u(K::XImm, W1), RC], [m(M::Signed, 54, 1, UD), vsrc(1, 36, 48), vsrc_imm(2, 49), flag(M::VMax, 56, "MX"), flag(M::Sat, 55, "SAT"), m(M::Mode, 51, 3, VMODE), cc(47)];
    // ---- integer compare / select / logic --------------------------------------------------------
    ISETP_R:    "ISETP",    op16!(0x5b60, 0xfff0), Alu, 0, [PD, PD0, RA, RB, PC], [m(M::ICmp, 49, 3, ICMP), m(M::Signed, 48, 1, U32), flag(M::X, 43, "X"), m(M::Bop, 45, 2, BOP)];
    ISETP_I:    "ISETP",    op16!(0x3660, 0xfef0), Alu, 0, [PD, PD0, RA, I20, PC], [m(M::ICmp, 49, 3, ICMP), m(M::Signed, 48, 1, U32), flag(M::X, 43, "X"), m(M::Bop, 45, 2, BOP)];
    ISETP_C:    "ISETP",    op16!(0x4b60, 0xfff0), Alu, 0, [PD, PD0, RA, CB, PC], [m(M::ICmp, 49, 3, ICMP), m(M::Signed, 48, 1, U32), flag(M::X, 43, "X"), m(M::Bop, 45, 2, BOP)];
    ISET_R:     "ISET",     op16!(0x5b50, 0xfff0), Alu, 0, [RD, RA, RB, PC], [flag(M::Bf, 44, "BF"), m(M::ICmp, 49, 3, ICMP), m(M::Signed, 48, 1, U32), flag(M::X, 43, "X"), m(M::Bop, 45, 2, BOP), cc(47)];
    ISET_I:     "ISET",     op16!(0x3650, 0xfef0), Alu, 0, [RD, RA, I20, PC], [flag(M::Bf, 44, "BF"), m(M::ICmp, 49, 3, ICMP), m(M::Signed, 48, 1, U32), flag(M::X, 43, "X"), m(M::Bop, 45, 2, BOP), cc(47)];
    ISET_C:     "ISET",     op16!(0x4b50, 0xfff0), Alu, 0, [RD, RA, CB, PC], [flag(M::Bf, 44, "BF"), m(M::ICmp, 49, 3, ICMP), m(M::Signed, 48, 1, U32), flag(M::X, 43, "X"), m(M::Bop, 45, 2, BOP), cc(47)];
    ICMP_R:     "ICMP",     op16!(0x5b40, 0xfff0), Alu, 0, [RD, RA, RB, RC], [m(M::ICmp, 49, 3, ICMP), m(M::Signed, 48, 1, U32)];
    ICMP_I:     "ICMP",     op16!(0x3640, 0xfef0), Alu, 0, [RD, RA, I20, RC], [m(M::ICmp, 49, 3, ICMP), m(M::Signed, 48, 1, U32)];
    ICMP_C:     "ICMP",     op16!(0x4b40, 0xfff0), Alu, 0, [RD, RA, CB, RC], [m(M::ICmp, 49, 3, ICMP), m(M::Signed, 48, 1, U32)];
    ICMP_RC:    "ICMP",     op16!(0x5340, 0xfff0), Alu, 0, [RD, RA, RC, CB], [m(M::ICmp, 49, 3, ICMP), m(M::Signed, 48, 1, U32)];
    FCMP_R:     "FCMP",     op16!(0x5ba0, 0xfff0), Fpu, 0, [RD, RA, RB, RC], [m(M::FCmp, 48, 4, FCMPGT), flag(M::Ftz, 47, "FTZ")];
    FCMP_I:     "FCMP",     op16!(0x36a0, 0xfef0), Fpu, 0, [RD, RA, F20, RC], [m(M::FCmp, 48, 4, FCMPGT), flag(M::Ftz, 47, "FTZ")];
    FCMP_C:     "FCMP",     op16!(0x4ba0, 0xfff0), Fpu, 0, [RD, RA, CB, RC], [m(M::FCmp, 48, 4, FCMPGT), flag(M::Ftz, 47, "FTZ")];
    FCMP_RC:    "FCMP",     op16!(0x53a0, 0xfff0), Fpu, 0, [RD, RA, RC, CB], [m(M::FCmp, 48, 4, FCMPGT), flag(M::Ftz, 47, "FTZ")];
    SEL_R:      "SEL",      op16!(0x5ca0, 0xfff8), Mov, 0, [RD, RA, RB, PC], [];
    SEL_I:      "SEL",      op16!(0x38a0, 0xfef8), Mov, 0, [RD, RA, I20, PC], [];
    SEL_C:      "SEL",      op16!(0x4ca0, 0xfff8), Mov, 0, [RD, RA, CB, PC], [];
    LOP_R:      "LOP",      op16!(0x5c40, 0xfff8), Alu, 0, [opt(d(K::PredDst(48), W1)), RD, RA, RB], [m(M::LogicOp, 41, 2, LOPOP), flag(M::X, 43, "X"), m(M::PredMode, 44, 2, PO), cc_on(1, 47), inv(2, 39), inv(3, 40)];
    LOP_I:      "LOP",      op16!(0x3840, 0xfef8), Alu, 0, [opt(d(K::PredDst(48), W1)), RD, RA, I20], [m(M::LogicOp, 41, 2, LOPOP), flag(M::X, 43, "X"), m(M::PredMode, 44, 2, PO), cc_on(1, 47), inv(2, 39), inv(3, 40)];
    LOP_C:      "LOP",      op16!(0x4c40, 0xfff8), Alu, 0, [opt(d(K::PredDst(48), W1)), RD, RA, CB], [m(M::LogicOp, 41, 2, LOPOP), flag(M::X, 43, "X"), m(M::PredMode, 44, 2, PO), cc_on(1, 47), inv(2, 39), inv(3, 40)];
    LOP32I:     "LOP32I",   op16!(0x0400, 0xfc00), Alu, 0, [RD, RA, u(K::U32(20), W1)], [m(M::LogicOp, 53, 2, LOPOP), flag(M::X, 57, "X"), cc(52), inv(1, 55), inv(2, 56)];
    LOP3_R:     "LOP3.LUT", op16!(0x5be0, 0xfff0), Alu, 0, [opt(d(K::PredDst(48), W1)), RD, RA, RB, RC, u(K::UImm(28, 8), W1)], [flag(M::X, 38, "X"), m(M::PredMode, 36, 2, PO), cc_on(1, 47)];
    LOP3_I:     "LOP3.LUT", op16!(0x3c00, 0xfe00), Alu, 0, [RD, RA, I20, RC, u(K::UImm(48, 8), W1)], [cc(47)];
    LOP3_C:     "LOP3.LUT", op16!(0x0200, 0xfe00), Alu, 0, [RD, RA, CB, RC, u(K::UImm(48, 8), W1)], [flag(M::X, 56, "X"), cc(47)];
    // ---- shifts and bit fields -----------------------------------------------------------------
    SHL_R:      "SHL",      op16!(0x5c48, 0xfff8), Alu, 0, [RD, RA, RB], [flag(M::W, 39, "W"), flag(M::X, 43, "X"), cc(47)];
    SHL_I:      "SHL",      op16!(0x3848, 0xfef8), Alu, 0, [RD, RA, I20], [flag(M::W, 39, "W"), flag(M::X, 43, "X"), cc(47)];
    SHL_C:      "SHL",      op16!(0x4c48, 0xfff8), Alu, 0, [RD, RA, CB], [flag(M::W, 39, "W"), flag(M::X, 43, "X"), cc(47)];
    SHR_R:      "SHR",      op16!(0x5c28, 0xfff8), Alu, 0, [RD, RA, RB], [m(M::Signed, 48, 1, U32), flag(M::W, 39, "W"), flag(M::X, 44, "X"), flag(M::Brev, 40, "BREV"), cc(47)];
    SHR_I:      "SHR",      op16!(0x3828, 0xfef8), Alu, 0, [RD, RA, I20], [m(M::Signed, 48, 1, U32), flag(M::W, 39, "W"), flag(M::X, 44, "X"), flag(M::Brev, 40, "BREV"), cc(47)];
    SHR_C:      "SHR",      op16!(0x4c28, 0xfff8), Alu, 0, [RD, RA, CB], [m(M::Signed, 48, 1, U32), flag(M::W, 39, "W"), flag(M::X, 44, "X"), flag(M::Brev, 40, "BREV"), cc(47)];
    SHF_L_R:    "SHF.L",    op16!(0x5bf8, 0xfff8), Alu, 0, [RD, RA, RB, RC], [flag(M::W, 50, "W"), m(M::ShfType, 37, 2, SHFTY), m(M::Hi, 48, 2, HIX), cc(47)];
    SHF_L_I:    "SHF.L",    op16!(0x36f8, 0xfef8), Alu, 0, [RD, RA, u(K::UImm(20, 6), W1), RC], [flag(M::W, 50, "W"), m(M::ShfType, 37, 2, SHFTY), m(M::Hi, 48, 2, HIX), cc(47)];
    SHF_R_R:    "SHF.R",    op16!(0x5cf8, 0xfff8), Alu, 0, [RD, RA, RB, RC], [flag(M::W, 50, "W"), m(M::ShfType, 37, 2, SHFTY), m(M::Hi, 48, 2, HIX), cc(47)];
    SHF_R_I:    "SHF.R",    op16!(0x38f8, 0xfef8), Alu, 0, [RD, RA, u(K::UImm(20, 6), W1), RC], [flag(M::W, 50, "W"), m(M::ShfType, 37, 2, SHFTY), m(M::Hi, 48, 2, HIX), cc(47)];
    BFE_R:      "BFE",      op16!(0x5c00, 0xfff8), Alu, 0, [RD, RA, RB], [m(M::Signed, 48, 1, U32), flag(M::Brev, 40, "BREV"), cc(47)];
    BFE_I:      "BFE",      op16!(0x3800, 0xfef8), Alu, 0, [RD, RA, I20], [m(M::Signed, 48, 1, U32), flag(M::Brev, 40, "BREV"), cc(47)];
    BFE_C:      "BFE",      op16!(0x4c00, 0xfff8), Alu, 0, [RD, RA, CB], [m(M::Signed, 48, 1, U32), flag(M::Brev, 40, "BREV"), cc(47)];
    BFI_R:      "BFI",      op16!(0x5bf0, 0xfff8), Alu, 0, [RD, RA, RB, RC], [cc(47)];
    BFI_I:      "BFI",      op16!(0x36f0, 0xfef8), Alu, 0, [RD, RA, I20, RC], [cc(47)];
    BFI_C:      "BFI",      op16!(0x4bf0, 0xfff8), Alu, 0, [RD, RA, CB, RC], [cc(47)];
    BFI_RC:     "BFI",      op16!(0x53f0, 0xfff8), Alu, 0, [RD, RA, RC, CB], [cc(47)];
    FLO_R:      "FLO",      op16!(0x5c30, 0xfff8), Conv, VAR_LAT, [RD, RB], [m(M::Signed, 48, 1, U32), flag(M::Sh, 41, "SH"), cc(47), inv(1, 40)];
    FLO_I:      "FLO",      op16!(0x3830, 0xfef8), Conv, VAR_LAT, [RD, I20], [m(M::Signed, 48, 1, U32), flag(M::Sh, 41, "SH"), cc(47), inv(1, 40)];
    FLO_C:      "FLO",      op16!(0x4c30, 0xfff8), Conv, VAR_LAT, [RD, CB], [m(M::Signed, 48, 1, U32), flag(M::Sh, 41, "SH"), cc(47), inv(1, 40)];
    POPC_R:     "POPC",     op16!(0x5c08, 0xfff8), Conv, VAR_LAT, [RD, RB], [inv(1, 40)];
    POPC_I:     "POPC",     op16!(0x3808, 0xfef8), Conv, VAR_LAT, [RD, I20], [inv(1, 40)];
    POPC_C:     "POPC",     op16!(0x4c08, 0xfff8), Conv, VAR_LAT, [RD, CB], [inv(1, 40)];
    PRMT_R:     "PRMT",     op16!(0x5bc0, 0xfff8), Alu, 0, [RD, RA, RB, RC], [m(M::Mode, 48, 3, PRMTM)];
    PRMT_I:     "PRMT",     op16!(0x36c0, 0xfef8), Alu, 0, [RD, RA, I20, RC], [m(M::Mode, 48, 3, PRMTM)];
    PRMT_C:     "PRMT",     op16!(0x4bc0, 0xfff8), Alu, 0, [RD, RA, CB, RC], [m(M::Mode, 48, 3, PRMTM)];
    PRMT_RC:    "PRMT",     op16!(0x53c0, 0xfff8), Alu, 0, [RD, RA, RC, CB], [m(M::Mode, 48, 3, PRMTM)];
    // ---- moves ------------------------------------------------------------------------------------
    MOV_R:      "MOV",      op16!(0x5c98, 0xfff8), Mov, 0, [RD, RB], [m(M::Lanes, 39, 4, LANES)];
    MOV_I:      "MOV",      op16!(0x3898, 0xfef8), Mov, 0, [RD, I20], [m(M::Lanes, 39, 4, LANES)];
    MOV_C:      "MOV",      op16!(0x4c98, 0xfff8), Mov, 0, [RD, CB], [m(M::Lanes, 39, 4, LANES)];
    MOV32I:     "MOV32I",   op16!(0x0100, 0xfff0), Mov, 0, [RD, u(K::U32(20), W1)], [m(M::Lanes, 12, 4, LANES)];
    S2R:        "S2R",      op16!(0xf0c8, 0xfff8), Sreg, VAR_LAT, [RD, u(K::SReg, W1)], [];
    CS2R:       "CS2R",     op16!(0x50c8, 0xfff8), Mov, 0, [RD, u(K::SReg, W1)], [];
    P2R_I:      "P2R",      op16!(0x38e8, 0xfef8), Alu, 0, [RD, u(K::Pr, W1), RA, I20], [m(M::ByteSel, 41, 2, BSEL)];
    P2R_R:      "P2R",      op16!(0x5ce8, 0xfff8), Alu, 0, [RD, u(K::Pr, W1), RA, RB], [m(M::ByteSel, 41, 2, BSEL)];
    P2R_C:      "P2R",      op16!(0x4ce8, 0xfff8), Alu, 0, [RD, u(K::Pr, W1), RA, CB], [m(M::ByteSel, 41, 2, BSEL)];
    R2P_R:      "R2P",      op16!(0x5cf0, 0xfff8), Alu, 0, [d(K::Pr, W1), RA, RB], [bsel(1)];
    R2P_C:      "R2P",      op16!(0x4cf0, 0xfff8), Alu, 0, [d(K::Pr, W1), RA, CB], [bsel(1)];
    R2P_I:      "R2P",      op16!(0x38f0, 0xfef8), Alu, 0, [d(K::Pr, W1), RA, U20], [bsel(1)];
    // ---- single precision float ------------------------------------------------------------------
    FADD_R:     "FADD",     op16!(0x5c58, 0xfff8), Fpu, 0, [RD, RA, RB], [flag(M::Ftz, 44, "FTZ"), m(M::Rnd, 39, 2, RND), flag(M::Sat, 50, "SAT"), cc(47), neg(1, 48), abs(1, 46), neg(2, 45), abs(2, 49)];
    FADD_I:     "FADD",     op16!(0x3858, 0xfef8), Fpu, 0, [RD, RA, F20], [flag(M::Ftz, 44, "FTZ"), m(M::Rnd, 39, 2, RND), flag(M::Sat, 50, "SAT"), cc(47), neg(1, 48), abs(1, 46), neg(2, 45), abs(2, 49)];
    FADD_C:     "FADD",     op16!(0x4c58, 0xfff8), Fpu, 0, [RD, RA, CB], [flag(M::Ftz, 44, "FTZ"), m(M::Rnd, 39, 2, RND), flag(M::Sat, 50, "SAT"), cc(47), neg(1, 48), abs(1, 46), neg(2, 45), abs(2, 49)];
    FADD32I:    "FADD32I",  op16!(0x0800, 0xfc00), Fpu, 0, [RD, RA, u(K::F32(20), W1)], [flag(M::Ftz, 55, "FTZ"), cc(52), neg(1, 56), abs(1, 54), neg(2, 53), abs(2, 57)];
    FMUL_R:     "FMUL",     op16!(0x5c68, 0xfff8), Fpu, 0, [RD, RA, RB], [m2(M::Fmz, (44,1), (45,1), FMZ), m(M::Scale, 41, 3, PDIV), m(M::Rnd, 39, 2, RND), flag(M::Sat, 50, "SAT"), cc(47), neg(2, 48)];
    FMUL_I:     "FMUL",     op16!(0x3868, 0xfef8), Fpu, 0, [RD, RA, F20], [m2(M::Fmz, (44,1), (45,1), FMZ), m(M::Scale, 41, 3, PDIV), m(M::Rnd, 39, 2, RND), flag(M::Sat, 50, "SAT"), cc(47), neg(2, 48)];
    FMUL_C:     "FMUL",     op16!(0x4c68, 0xfff8), Fpu, 0, [RD, RA, CB], [m2(M::Fmz, (44,1), (45,1), FMZ), m(M::Scale, 41, 3, PDIV), m(M::Rnd, 39, 2, RND), flag(M::Sat, 50, "SAT"), cc(47), neg(2, 48)];
    FMUL32I:    "FMUL32I",  op16!(0x1e00, 0xff00), Fpu, 0, [RD, RA, u(K::F32(20), W1)], [m2(M::Fmz, (53,1), (54,1), FMZ), flag(M::Sat, 55, "SAT"), cc(52)];
    FFMA_R:     "FFMA",     op16!(0x5980, 0xff80), Fpu, 0, [RD, RA, RB, RC], [m2(M::Fmz, (53,1), (54,1), FMZ), m(M::Rnd, 51, 2, RND), flag(M::Sat, 50, "SAT"), cc(47), neg(2, 48), neg(3, 49)];
    FFMA_I:     "FFMA",     op16!(0x3280, 0xfe80), Fpu, 0, [RD, RA, F20, RC], [m2(M::Fmz, (53,1), (54,1), FMZ), m(M::Rnd, 51, 2, RND), flag(M::Sat, 50, "SAT"), cc(47), neg(2, 48), neg(3, 49)];
    FFMA_C:     "FFMA",     op16!(0x4980, 0xff80), Fpu, 0, [RD, RA, CB, RC], [m2(M::Fmz, (53,1), (54,1), FMZ), m(M::Rnd, 51, 2, RND), flag(M::Sat, 50, "SAT"), cc(47), neg(2, 48), neg(3, 49)];
    FFMA_RC:    "FFMA",     op16!(0x5180, 0xff80), Fpu, 0, [RD, RA, RC, CB], [m2(M::Fmz, (53,1), (54,1), FMZ), m(M::Rnd, 51, 2, RND), flag(M::Sat, 50, "SAT"), cc(47), neg(2, 48), neg(3, 49)];
    FFMA32I:    "FFMA32I",  op16!(0x0c00, 0xfc00), Fpu, 0, [RD, RA, u(K::F32(20), W1), u(K::Same(0), W1)], [m2(M::Fmz, (53,1), (54,1), FMZ), flag(M::Sat, 55, "SAT"), cc(52), neg(1, 56), neg(3, 57)];
    FMNMX_R:    "FMNMX",    op16!(0x5c60, 0xfff8), Fpu, 0, [RD, RA, RB, PC], [flag(M::Ftz, 44, "FTZ"), cc(47), neg(1, 48), abs(1, 46), neg(2, 45), abs(2, 49)];
    FMNMX_I:    "FMNMX",    op16!(0x3860, 0xfef8), Fpu, 0, [RD, RA, F20, PC], [flag(M::Ftz, 44, "FTZ"), cc(47), neg(1, 48), abs(1, 46), neg(2, 45), abs(2, 49)];
    FMNMX_C:    "FMNMX",    op16!(0x4c60, 0xfff8), Fpu, 0, [RD, RA, CB, PC], [flag(M::Ftz, 44, "FTZ"), cc(47), neg(1, 48), abs(1, 46), neg(2, 45), abs(2, 49)];
    FSETP_R:    "FSETP",    op16!(0x5bb0, 0xfff0), Fpu, 0, [PD, PD0, RA, RB, PC], [m(M::FCmp, 48, 4, FCMP), flag(M::Ftz, 47, "FTZ"), m(M::Bop, 45, 2, BOP), neg(2, 43), abs(2, 7), neg(3, 6), abs(3, 44)];
    FSETP_I:    "FSETP",    op16!(0x36b0, 0xfef0), Fpu, 0, [PD, PD0, RA, F20, PC], [m(M::FCmp, 48, 4, FCMP), flag(M::Ftz, 47, "FTZ"), m(M::Bop, 45, 2, BOP), neg(2, 43), abs(2, 7), neg(3, 6), abs(3, 44)];
    FSETP_C:    "FSETP",    op16!(0x4bb0, 0xfff0), Fpu, 0, [PD, PD0, RA, CB, PC], [m(M::FCmp, 48, 4, FCMP), flag(M::Ftz, 47, "FTZ"), m(M::Bop, 45, 2, BOP), neg(2, 43), abs(2, 7), neg(3, 6), abs(3, 44)];
    FSET_R:     "FSET",     op16!(0x5800, 0xff00), Fpu, 0, [RD, RA, RB, PC], [flag(M::Bf, 52, "BF"), m(M::FCmp, 48, 4, FCMP), flag(M::Ftz, 55, "FTZ"), m(M::Bop, 45, 2, BOP), cc(47), neg(1, 43), abs(1, 54), neg(2, 53), abs(2, 44)];
    FSET_I:     "FSET",     op16!(0x3000, 0xfe00), Fpu, 0, [RD, RA, F20, PC], [flag(M::Bf, 52, "BF"), m(M::FCmp, 48, 4, FCMP), flag(M::Ftz, 55, "FTZ"), m(M::Bop, 45, 2, BOP), cc(47), neg(1, 43), abs(1, 54), neg(2, 53), abs(2, 44)];
    FSET_C:     "FSET",     op16!(0x4800, 0xff00), Fpu, 0, [RD, RA, CB, PC], [flag(M::Bf, 52, "BF"), m(M::FCmp, 48, 4, FCMP), flag(M::Ftz, 55, "FTZ"), m(M::Bop, 45, 2, BOP), cc(47), neg(1, 43), abs(1, 54), neg(2, 53), abs(2, 44)];
    FCHK_R:     "FCHK",     op16!(0x5c88, 0xfff8), Fpu, 0, [PD, RA, RB], [m(M::Mode, 39, 2, FCHKOP), neg(1, 48), abs(1, 46), neg(2, 45), abs(2, 49)];
    MUFU:       "MUFU",     op16!(0x5080, 0xfff8), Sfu, VAR_LAT, [RD, RA], [m(M::MufuOp, 20, 4, MUFUOP), flag(M::Sat, 50, "SAT"), neg(1, 48), abs(1, 46)];
    RRO_R:      "RRO",      op16!(0x5c90, 0xfff8), Fpu, 0, [RD, RB], [m(M::Mode, 39, 1, RROOP), neg(1, 45), abs(1, 49)];
    RRO_I:      "RRO",      op16!(0x3890, 0xfef8), Fpu, 0, [RD, F20], [m(M::Mode, 39, 1, RROOP), neg(1, 45), abs(1, 49)];
    RRO_C:      "RRO",      op16!(0x4c90, 0xfff8), Fpu, 0, [RD, CB], [m(M::Mode, 39, 1, RROOP), neg(1, 45), abs(1, 49)];
    // ---- conversions -----------------------------------------------------------------------------
    F2F_R:      "F2F",      op16!(0x5ca8, 0xfff8), Conv, VAR_LAT, [RDT, RBT], [flag(M::Ftz, 44, "FTZ"), m(M::DType, 8, 2, FTY), m(M::SType, 10, 2, FTY), m2(M::Rnd, (39,2), (42,1), F2FRND), flag(M::Sat, 50, "SAT"), cc(47), neg(1, 45), abs(1, 49), h1(1, 41)];
    F2F_I:      "F2F",      op16!(0x38a8, 0xfef8), Conv, VAR_LAT, [RDT, F20], [flag(M::Ftz, 44, "FTZ"), m(M::DType, 8, 2, FTY), m(M::SType, 10, 2, FTY_F32), m2(M::Rnd, (39,2), (42,1), F2FRND), flag(M::Sat, 50, "SAT"), cc(47), neg(1, 45), abs(1, 49), h1(1, 41)];
    F2F_ID:     "F2F",      op16!(0x38a8, 0xfef8), Conv, VAR_LAT, [RDT, D20], [flag(M::Ftz, 44, "FTZ"), m(M::DType, 8, 2, FTY), m(M::SType, 10, 2, FTY_F64), m2(M::Rnd, (39,2), (42,1), F2FRND), flag(M::Sat, 50, "SAT"), cc(47), neg(1, 45), abs(1, 49), h1(1, 41)];
    F2F_C:      "F2F",      op16!(0x4ca8, 0xfff8), Conv, VAR_LAT, [RDT, CB], [flag(M::Ftz, 44, "FTZ"), m(M::DType, 8, 2, FTY), m(M::SType, 10, 2, FTY), m2(M::Rnd, (39,2), (42,1), F2FRND), flag(M::Sat, 50, "SAT"), cc(47), neg(1, 45), abs(1, 49), h1(1, 41)];
    F2I_R:      "F2I",      op16!(0x5cb0, 0xfff8), Conv, VAR_LAT, [RDT, RBT], [flag(M::Ftz, 44, "FTZ"), m2(M::DType, (8,2), (12,1), F2ITY), m(M::SType, 10, 2, FTY), m(M::Rnd, 39, 2, F2IRND), cc(47), neg(1, 45), abs(1, 49), h1(1, 41)];
    F2I_I:      "F2I",      op16!(0x38b0, 0xfef8), Conv, VAR_LAT, [RDT, F20], [flag(M::Ftz, 44, "FTZ"), m2(M::DType, (8,2), (12,1), F2ITY), m(M::SType, 10, 2, FTY_F32), m(M::Rnd, 39, 2, F2IRND), cc(47), neg(1, 45), abs(1, 49), h1(1, 41)];
    F2I_ID:     "F2I",      op16!(0x38b0, 0xfef8), Conv, VAR_LAT, [RDT, D20], [flag(M::Ftz, 44, "FTZ"), m2(M::DType, (8,2), (12,1), F2ITY), m(M::SType, 10, 2, FTY_F64), m(M::Rnd, 39, 2, F2IRND), cc(47), neg(1, 45), abs(1, 49), h1(1, 41)];
    F2I_C:      "F2I",      op16!(0x4cb0, 0xfff8), Conv, VAR_LAT, [RDT, CBS], [flag(M::Ftz, 44, "FTZ"), m2(M::DType, (8,2), (12,1), F2ITY), m(M::SType, 10, 2, FTY), m(M::Rnd, 39, 2, F2IRND), cc(47), neg(1, 45), abs(1, 49), h1(1, 41)];
    I2F_R:      "I2F",      op16!(0x5cb8, 0xfff8), Conv, VAR_LAT, [RDT, RBT], [m(M::DType, 8, 2, FTY), m2(M::SType, (10,2), (13,1), ITY), m(M::Rnd, 39, 2, RND), cc(47), neg(1, 45), abs(1, 49), bsel(1)];
    I2F_I:      "I2F",      op16!(0x38b8, 0xfef8), Conv, VAR_LAT, [RDT, I20], [m(M::DType, 8, 2, FTY), m2(M::SType, (10,2), (13,1), ITY), m(M::Rnd, 39, 2, RND), cc(47), neg(1, 45), abs(1, 49), bsel(1)];
    I2F_C:      "I2F",      op16!(0x4cb8, 0xfff8), Conv, VAR_LAT, [RDT, CBS], [m(M::DType, 8, 2, FTY), m2(M::SType, (10,2), (13,1), ITY), m(M::Rnd, 39, 2, RND), cc(47), neg(1, 45), abs(1, 49), bsel(1)];
    I2I_R:      "I2I",      op16!(0x5ce0, 0xfff8), Conv, VAR_LAT, [RD, RB], [m2(M::DType, (8,2), (12,1), I2ITY), m2(M::SType, (10,2), (13,1), I2ITY), flag(M::Sat, 50, "SAT"), cc(47), neg(1, 45), abs(1, 49), bsel(1)];
    I2I_I:      "I2I",      op16!(0x38e0, 0xfef8), Conv, VAR_LAT, [RD, I20], [m2(M::DType, (8,2), (12,1), I2ITY), m2(M::SType, (10,2), (13,1), I2ITY), flag(M::Sat, 50, "SAT"), cc(47), neg(1, 45), abs(1, 49), bsel(1)];
    I2I_C:      "I2I",      op16!(0x4ce0, 0xfff8), Conv, VAR_LAT, [RD, CBS], [m2(M::DType, (8,2), (12,1), I2ITY), m2(M::SType, (10,2), (13,1), I2ITY), flag(M::Sat, 50, "SAT"), cc(47), neg(1, 45), abs(1, 49), bsel(1)];
    // ---- double precision ------------------------------------------------------------------------
    DADD_R:     "DADD",     op16!(0x5c70, 0xfff8), Dbl, VAR_LAT | DOUBLE, [RD2, RA2, RB2], [m(M::Rnd, 39, 2, RND), cc(47), neg(1, 48), abs(1, 46), neg(2, 45), abs(2, 49)];
    DADD_I:     "DADD",     op16!(0x3870, 0xfef8), Dbl, VAR_LAT | DOUBLE, [RD2, RA2, D20], [m(M::Rnd, 39, 2, RND), cc(47), neg(1, 48), abs(1, 46), neg(2, 45), abs(2, 49)];
    DADD_C:     "DADD",     op16!(0x4c70, 0xfff8), Dbl, VAR_LAT | DOUBLE, [RD2, RA2, CB], [m(M::Rnd, 39, 2, RND), cc(47), neg(1, 48), abs(1, 46), neg(2, 45), abs(2, 49)];
    DMUL_R:     "DMUL",     op16!(0x5c80, 0xfff8), Dbl, VAR_LAT | DOUBLE, [RD2, RA2, RB2], [m(M::Rnd, 39, 2, RND), cc(47), neg(2, 48)];
    DMUL_I:     "DMUL",     op16!(0x3880, 0xfef8), Dbl, VAR_LAT | DOUBLE, [RD2, RA2, D20], [m(M::Rnd, 39, 2, RND), cc(47), neg(2, 48)];
    DMUL_C:     "DMUL",     op16!(0x4c80, 0xfff8), Dbl, VAR_LAT | DOUBLE, [RD2, RA2, CB], [m(M::Rnd, 39, 2, RND), cc(47), neg(2, 48)];
    DFMA_R:     "DFMA",     op16!(0x5b70, 0xfff0), Dbl, VAR_LAT | DOUBLE, [RD2, RA2, RB2, RC2], [m(M::Rnd, 50, 2, RND), cc(47), neg(2, 48), neg(3, 49)];
    DFMA_I:     "DFMA",     op16!(0x3670, 0xfef0), Dbl, VAR_LAT | DOUBLE, [RD2, RA2, D20, RC2], [m(M::Rnd, 50, 2, RND), cc(47), neg(2, 48), neg(3, 49)];
    DFMA_C:     "DFMA",     op16!(0x4b70, 0xfff0), Dbl, VAR_LAT | DOUBLE, [RD2, RA2, CB, RC2], [m(M::Rnd, 50, 2, RND), cc(47), neg(2, 48), neg(3, 49)];
    DFMA_RC:    "DFMA",     op16!(0x5370, 0xfff0), Dbl, VAR_LAT | DOUBLE, [RD2, RA2, RC2, CB], [m(M::Rnd, 50, 2, RND), cc(47), neg(2, 48), neg(3, 49)];
    DMNMX_R:    "DMNMX",    op16!(0x5c50, 0xfff8), Dbl, VAR_LAT | DOUBLE, [RD2, RA2, RB2, PC], [cc(47), neg(1, 48), abs(1, 46), neg(2, 45), abs(2, 49)];
    DMNMX_I:    "DMNMX",    op16!(0x3850, 0xfef8), Dbl, VAR_LAT | DOUBLE, [RD2, RA2, D20, PC], [cc(47), neg(1, 48), abs(1, 46), neg(2, 45), abs(2, 49)];
    DMNMX_C:    "DMNMX",    op16!(0x4c50, 0xfff8), Dbl, VAR_LAT | DOUBLE, [RD2, RA2, CB, PC], [cc(47), neg(1, 48), abs(1, 46), neg(2, 45), abs(2, 49)];
    DSETP_R:    "DSETP",    op16!(0x5b80, 0xfff0), Dbl, VAR_LAT | DOUBLE, [PD, PD0, RA2, RB2, PC], [m(M::FCmp, 48, 4, FCMP), m(M::Bop, 45, 2, BOP), neg(2, 43), abs(2, 7), neg(3, 6), abs(3, 44)];
    DSETP_I:    "DSETP",    op16!(0x3680, 0xfef0), Dbl, VAR_LAT | DOUBLE, [PD, PD0, RA2, D20, PC], [m(M::FCmp, 48, 4, FCMP), m(M::Bop, 45, 2, BOP), neg(2, 43), abs(2, 7), neg(3, 6), abs(3, 44)];
    DSETP_C:    "DSETP",    op16!(0x4b80, 0xfff0), Dbl, VAR_LAT | DOUBLE, [PD, PD0, RA2, CB, PC], [m(M::FCmp, 48, 4, FCMP), m(M::Bop, 45, 2, BOP), neg(2, 43), abs(2, 7), neg(3, 6), abs(3, 44)];
    DSET_R:     "DSET",     op16!(0x5900, 0xff00), Dbl, VAR_LAT | DOUBLE, [RD, RA2, RB2, PC], [flag(M::Bf, 52, "BF"), m(M::FCmp, 48, 4, FCMP), m(M::Bop, 45, 2, BOP), cc(47), neg(1, 43), abs(1, 54), neg(2, 53), abs(2, 44)];
    DSET_I:     "DSET",     op16!(0x3200, 0xfe00), Dbl, VAR_LAT | DOUBLE, [RD, RA2, D20, PC], [flag(M::Bf, 52, "BF"), m(M::FCmp, 48, 4, FCMP), m(M::Bop, 45, 2, BOP), cc(47), neg(1, 43), abs(1, 54), neg(2, 53), abs(2, 44)];
    DSET_C:     "DSET",     op16!(0x4900, 0xff00), Dbl, VAR_LAT | DOUBLE, [RD, RA2, CB, PC], [flag(M::Bf, 52, "BF"), m(M::FCmp, 48, 4, FCMP), m(M::Bop, 45, 2, BOP), cc(47), neg(1, 43), abs(1, 54), neg(2, 53), abs(2, 44)];
    // ---- predicates ------------------------------------------------------------------------------
    PSETP:      "PSETP",    op16!(0x5090, 0xfff8), Pred, 0, [PD, PD0, u(K::PredSrc(12, 15), W1), u(K::PredSrc(29, 32), W1), PC], [m(M::Bop, 24, 2, BOP), m(M::Bop2, 45, 2, BOP)];
    PSET:       "PSET",     op16!(0x5088, 0xfff8), Pred, 0, [RD, u(K::PredSrc(12, 15), W1), u(K::PredSrc(29, 32), W1), PC], [flag(M::Bf, 44, "BF"), m(M::Bop, 24, 2, BOP), m(M::Bop2, 45, 2, BOP), cc(47)];
    CSETP:      "CSETP",    op16!(0x50a0, 0xfff8), Pred, 0, [PD, PD0, u(K::Cc, W1), PC], [m(M::CcTest, 8, 5, CCTT), m(M::Bop, 45, 2, BOP)];
    // ---- memory ----------------------------------------------------------------------------------
    // The SPA 5.0 manual lists two sparse-texture LDG variants (`LDG Ps, Rd, [Ra + ImmS20]`).
    // nvdisasm 11.8 (SM50) prints no such form: LDG words with bits 40-47 set print no predicate,
    // and a scan of every opcode prefix 0xe800-0xeff8 (predicate PT, with and without bits 44-46)
    // finds LDG only at 0xeed0, never with a `P` operand. SM50 tools have no encoding for them.
    LDG:        "LDG",      op16!(0xeed0, 0xfff8), Global, LOAD | VAR_LAT, [RDS, MEM24], [flag(M::E, 45, "E"), m(M::Cache, 46, 2, LDGCOP), m(M::Size, 48, 3, MEMSZ)];
    STG:        "STG",      op16!(0xeed8, 0xfff8), Global, STORE, [MEM24, RS], [flag(M::E, 45, "E"), m(M::Cache, 46, 2, STCOP), m(M::Size, 48, 3, MEMSZ6)];
    LDL:        "LDL",      op16!(0xef40, 0xfff8), Global, LOAD | VAR_LAT, [RDS, MEM24N], [m(M::Cache, 44, 2, LDLCOP), m(M::Size, 48, 3, MEMSZ6)];
    STL:        "STL",      op16!(0xef50, 0xfff8), Global, STORE, [MEM24N, RS], [m(M::Cache, 44, 2, STCOP), m(M::Size, 48, 3, MEMSZ6)];
    LDS:        "LDS",      op16!(0xef48, 0xfff8), Shared, LOAD | VAR_LAT, [RDS, MEM24N], [m2(M::Size, (48, 3), (44, 1), LDSSZ)];
    STS:        "STS",      op16!(0xef58, 0xfff8), Shared, STORE, [MEM24N, RS], [m(M::Size, 48, 3, MEMSZ6)];
    LD:         "LD",       op16!(0x8000, 0xe000), Global, LOAD | VAR_LAT, [RDS, MEM32, opt(u(K::PredDst(58), W1))], [flag(M::E, 52, "E"), m(M::Cache, 56, 2, LDGCOP), m(M::Size, 53, 3, MEMSZ)];
    ST:         "ST",       op16!(0xa000, 0xe000), Global, STORE, [MEM32, RS, opt(u(K::PredDst(58), W1))], [flag(M::E, 52, "E"), m(M::Cache, 56, 2, STCOP), m(M::Size, 53, 3, MEMSZ6)];
    LDC:        "LDC",      op16!(0xef90, 0xfff8), Const, LOAD | VAR_LAT, [RDS, u(K::CIdx, W1)], [m(M::Size, 48, 3, LDCSZ), m(M::LdcMode, 44, 2, LDCMODE)];
    // ---- textures ---------------------------------------------------------------------------------
    // Bound forms naming the texture's constant-bank-0 word (`TEXMODE_UNIFIED`: the handle of a
    // texture object parameter), laid out by flipping every bit under nvdisasm 11.8 (see
    // docs/maxwell-textures.md). Coordinates start at Ra (array index first), LOD/offsets/
    // reference/sample at Rb, results fill Rd.. one register per write-mask bit.
    TEX:        "TEX",      op16!(0xc038, 0xfc38), Tex, LOAD | VAR_LAT | TEX, [d(K::Gpr(0), TexMask), u(K::Gpr(8), TexCoords), opt(u(K::Gpr(20), TexExtra)), u(K::UImm(36, 13), W1), u(K::UImm(31, 4), W1)], [m(M::TexLod, 55, 3, TEXLOD), flag(M::Aoffi, 54, "AOFFI"), flag(M::Dc, 50, "DC"), flag(M::Ndv, 35, "NDV"), flag(M::Nodep, 49, "NODEP"), arg(M::TexDim, 28, 3, TEXDIM, 3)];
    TLD:        "TLD",      op16!(0xdc38, 0xfe38), Tex, LOAD | VAR_LAT | TEX, [d(K::Gpr(0), TexMask), u(K::Gpr(8), TexCoords), opt(u(K::Gpr(20), TexExtra)), u(K::UImm(36, 13), W1), u(K::UImm(31, 4), W1)], [m(M::TexLod, 55, 1, TLDLOD), flag(M::Aoffi, 35, "AOFFI"), flag(M::Ms, 50, "MS"), flag(M::Cl, 54, "CL"), flag(M::Nodep, 49, "NODEP"), arg(M::TexDim, 28, 3, TEXDIM, 3)];
    TXQ:        "TXQ",      op16!(0xdf48, 0xfff8), Tex, LOAD | VAR_LAT | TEX, [d(K::Gpr(0), TexMask), RA, u(K::UImm(36, 13), W1), u(K::UImm(31, 4), W1)], [flag(M::Nodep, 49, "NODEP"), arg(M::TexQuery, 22, 6, TXQQUERY, 1)];
    TLD4:       "TLD4",     op16!(0xc838, 0xfc38), Tex, LOAD | VAR_LAT | TEX, [d(K::Gpr(0), TexMask), u(K::Gpr(8), TexCoords), opt(u(K::Gpr(20), TexExtra)), u(K::UImm(36, 13), W1), u(K::UImm(31, 4), W1)], [m(M::TexComp, 56, 2, &["R", "G", "B", "A"]), m(M::Aoffi, 54, 2, &["", "AOFFI", "PTP", "?"]), flag(M::Dc, 50, "DC"), flag(M::Ndv, 35, "NDV"), flag(M::Nodep, 49, "NODEP"), arg(M::TexDim, 28, 3, TEXDIM, 3)];
    TXD:        "TXD",      op16!(0xde38, 0xfffc), Tex, LOAD | VAR_LAT | TEX, [d(K::Gpr(0), TexMask), u(K::Gpr(8), TexCoords), u(K::Gpr(20), TexDeriv), u(K::UImm(36, 13), W1), u(K::UImm(31, 4), W1)], [flag(M::Aoffi, 35, "AOFFI"), flag(M::Nodep, 49, "NODEP"), arg(M::TexDim, 28, 3, TEXDIM, 3)];
    // Short forms (what ptxas emits for tex2D/tex1Dfetch): two destinations, Rd (first two
    // channels) and Rd2 (the rest; RZ in the `_RZ` forms, which name 1-2 channels), one
    // coordinate register each in Ra and Rb; the type names LOD mode and dimension together.
    // Only the 1-D/2-D types with Ra = x and Rb = y are modelled register by register.
    TEXS_RZ:    "TEXS",     op16!(0xd800, 0xfe00), Tex, LOAD | VAR_LAT | TEX, [d(K::Gpr(28), TexsHi), d(K::Gpr(0), TexsLo), RA, opt(RB), u(K::UImm(36, 13), W1)], [marg(M::TexsType, 53, 4, TEXSTYPE, 4), flag(M::Nodep, 49, "NODEP"), arg(M::TexChannels, 50, 3, TEXSCH1, 4)];
    TEXS:       "TEXS",     op16!(0xd800, 0xfe00), Tex, LOAD | VAR_LAT | TEX, [d(K::Gpr(28), TexsHi), d(K::Gpr(0), TexsLo), RA, opt(RB), u(K::UImm(36, 13), W1)], [marg(M::TexsType, 53, 4, TEXSTYPE, 4), flag(M::Nodep, 49, "NODEP"), arg(M::TexChannels, 50, 3, TEXSCH2, 4)];
    TLDS_RZ:    "TLDS",     op16!(0xda00, 0xfe00), Tex, LOAD | VAR_LAT | TEX, [d(K::Gpr(28), TexsHi), d(K::Gpr(0), TexsLo), RA, opt(RB), u(K::UImm(36, 13), W1)], [marg(M::TexsType, 53, 4, TLDSTYPE, 4), flag(M::Nodep, 49, "NODEP"), arg(M::TexChannels, 50, 3, TEXSCH1, 4)];
    TLDS:       "TLDS",     op16!(0xda00, 0xfe00), Tex, LOAD | VAR_LAT | TEX, [d(K::Gpr(28), TexsHi), d(K::Gpr(0), TexsLo), RA, opt(RB), u(K::UImm(36, 13), W1)], [marg(M::TexsType, 53, 4, TLDSTYPE, 4), flag(M::Nodep, 49, "NODEP"), arg(M::TexChannels, 50, 3, TEXSCH2, 4)];
    ATOM:       "ATOM",     op16!(0xed00, 0xff00), Global, LOAD | STORE | VAR_LAT | ATOMIC, [RDA, MEM20A, RBA], [flag(M::E, 48, "E"), m(M::AtomOp, 52, 4, ATOMOP), m(M::AtomType, 49, 3, ATOMTY)];
    ATOM_CAS:   "ATOM",     fx(op16!(0xeef0, 0xfff0), 0, 0), Global, LOAD | STORE | VAR_LAT | ATOMIC, [RDA, MEM20A, RBA, NEXT], [flag(M::E, 48, "E"), m(M::AtomType, 49, 1, &["CAS", "CAS.64"])];
    ATOMS:      "ATOMS",    op16!(0xec00, 0xff00), Shared, LOAD | STORE | VAR_LAT | ATOMIC, [RDA, MEM22S, RBA], [m(M::AtomOp, 52, 4, ATOMOP), m(M::AtomType, 28, 2, ATOMSTY)];
    ATOMS_CAS:  "ATOMS",    op16!(0xee40, 0xffe0), Shared, LOAD | STORE | VAR_LAT | ATOMIC, [RDA, MEM22S, RBA, NEXT], [m(M::AtomType, 52, 1, &["CAS", "CAS.64"])];
    RED:        "RED",      op16!(0xebf8, 0xfff8), Global, STORE | ATOMIC, [MEM20A, RSA], [flag(M::E, 48, "E"), m(M::AtomOp, 23, 3, REDOP), m(M::AtomType, 20, 3, ATOMTY)];
    // ---- control flow ----------------------------------------------------------------------------
    BRA:        "BRA",      op16!(0xe240, 0xfff0), Ctrl, BRANCH, [u(K::Rel, W1)], [cct(0), flag(M::U, 7, "U"), flag(M::Lmt, 6, "LMT")];
    SSY:        "SSY",      fx(op16!(0xe290, 0xfff0), 0, 0xf_ffff), Ctrl, BRANCH | NO_GUARD, [u(K::Rel, W1)], [];
    PBK:        "PBK",      fx(op16!(0xe2a0, 0xfff0), 0, 0xf_ffff), Ctrl, BRANCH | NO_GUARD, [u(K::Rel, W1)], [];
    PCNT:       "PCNT",     fx(op16!(0xe2b0, 0xfff0), 0, 0xf_ffff), Ctrl, BRANCH | NO_GUARD, [u(K::Rel, W1)], [];
    CAL:        "CAL",      fx(op16!(0xe260, 0xfff0), 0x40, 0xf_ffff), Ctrl, BRANCH | NO_GUARD, [u(K::Rel, W1)], [];
    JCAL:       "JCAL",     fx(op16!(0xe220, 0xfff0), 0x40, 0xf_ffff), Ctrl, BRANCH | NO_GUARD, [u(K::Abs, W1)], [];
    PRET:       "PRET",     fx(op16!(0xe270, 0xfff0), 0x40, 0xf_ffff), Ctrl, BRANCH | NO_GUARD, [u(K::Rel, W1)], [];
    // Indirect branch to the next instruction + Ra + offset (ptxas: an indirect call after a
    // PRET, `BRX R2 -0xa0` with Ra loaded from the `.nv.constant2` jump table).
    BRX:        "BRX",      op16!(0xe250, 0xfff0), Ctrl, FLOW, [RA, u(K::SImm(20, 24), W1)], [cct(0)];
    RET:        "RET",      op16!(0xe320, 0xfff0), Ctrl, FLOW, [], [cct(0)];
    EXIT:       "EXIT",     op16!(0xe300, 0xfff0), Ctrl, FLOW, [], [cct(0)];
    BRK:        "BRK",      op16!(0xe340, 0xfff0), Ctrl, FLOW, [], [cct(0)];
    CONT:       "CONT",     op16!(0xe350, 0xfff0), Ctrl, FLOW, [], [cct(0)];
    SYNC:       "SYNC",     op16!(0xf0f8, 0xfff8), Ctrl, FLOW, [], [cct(0)];
    // ---- barriers and warp-level ops ---------------------------------------------------------------
    BAR_SYNC_II:  "BAR.SYNC", fx(op16!(0xf0a8, 0xfff8), 0x1b8000000000, 0x1f9f00000000), Sync, SIDE, [u(K::UImm(8, 8), W1), opt(u(K::UImm(20, 12), W1))], [];
    BAR_SYNC_RI:  "BAR.SYNC", fx(op16!(0xf0a8, 0xfff8), 0xb8000000000, 0x1f9f00000000), Sync, SIDE, [RA, opt(u(K::UImm(20, 12), W1))], [];
    BAR_SYNC_IR:  "BAR.SYNC", fx(op16!(0xf0a8, 0xfff8), 0x138000000000, 0x1f9f00000000), Sync, SIDE, [u(K::UImm(8, 8), W1), RB], [];
    BAR_SYNC_RR:  "BAR.SYNC", fx(op16!(0xf0a8, 0xfff8), 0x38000000000, 0x1f9f00000000), Sync, SIDE, [RA, RB], [];
    BAR_ARV_II:  "BAR.ARV", fx(op16!(0xf0a8, 0xfff8), 0x1b8100000000, 0x1f9f00000000), Sync, SIDE, [u(K::UImm(8, 8), W1), u(K::UImm(20, 12), W1)], [];
    BAR_ARV_RI:  "BAR.ARV", fx(op16!(0xf0a8, 0xfff8), 0xb8100000000, 0x1f9f00000000), Sync, SIDE, [RA, u(K::UImm(20, 12), W1)], [];
    BAR_ARV_IR:  "BAR.ARV", fx(op16!(0xf0a8, 0xfff8), 0x138100000000, 0x1f9f00000000), Sync, SIDE, [u(K::UImm(8, 8), W1), RB], [];
    BAR_ARV_RR:  "BAR.ARV", fx(op16!(0xf0a8, 0xfff8), 0x38100000000, 0x1f9f00000000), Sync, SIDE, [RA, RB], [];
    BAR_RED_II:  "BAR.RED", fx(op16!(0xf0a8, 0xfff8), 0x180200000000, 0x180700000000), Sync, SIDE, [u(K::UImm(8, 8), W1), opt(u(K::UImm(20, 12), W1)), PC], [m(M::BarRed, 35, 2, BARRED)];
    BAR_RED_RI:  "BAR.RED", fx(op16!(0xf0a8, 0xfff8), 0x80200000000, 0x180700000000), Sync, SIDE, [RA, opt(u(K::UImm(20, 12), W1)), PC], [m(M::BarRed, 35, 2, BARRED)];
    BAR_RED_IR:  "BAR.RED", fx(op16!(0xf0a8, 0xfff8), 0x100200000000, 0x180700000000), Sync, SIDE, [u(K::UImm(8, 8), W1), RB, PC], [m(M::BarRed, 35, 2, BARRED)];
    BAR_RED_RR:  "BAR.RED", fx(op16!(0xf0a8, 0xfff8), 0x200000000, 0x180700000000), Sync, SIDE, [RA, RB, PC], [m(M::BarRed, 35, 2, BARRED)];
    MEMBAR:     "MEMBAR",   op16!(0xef98, 0xfff8), Sync, SIDE, [], [m(M::Scope, 8, 2, MEMBARS), m(M::Mode, 0, 2, IVALL)];
    B2R_RESULT: "B2R.RESULT", fx(op16!(0xf0b8, 0xfff8), 0x1_0000_ff00, 0x1_0000_ff00), Sync, VAR_LAT, [RD, opt(d(K::PredDst(45), W1))], [];
    B2R:        "B2R",      fx(op16!(0xf0b8, 0xfff8), 0xe000_0000_0000, 0xe001_0000_0000), Sync, VAR_LAT, [RD, u(K::UImm(8, 8), W1)], [];
    DEPBAR:     "DEPBAR",   fx(op16!(0xf0f0, 0xfff8), 0, 0x3ff0_0000), Sync, SIDE, [opt(u(K::SbMask, W1))], [];
    DEPBAR_LE:  "DEPBAR.LE", fx(op16!(0xf0f0, 0xfff8), 0x2000_0000, 0x2000_0000), Sync, SIDE, [u(K::Sb, W1), u(K::UImm(20, 6), W1), opt(u(K::SbMask, W1))], [];
    SHFL_RR:    "SHFL",     fx(op16!(0xef10, 0xfff8), 0, 0x3000_0000), Sync, VAR_LAT, [d(K::PredDst(48), W1), RD, RA, RB, RC], [m(M::ShflOp, 30, 2, SHFLOP)];
    SHFL_IR:    "SHFL",     fx(op16!(0xef10, 0xfff8), 0x1000_0000, 0x3000_0000), Sync, VAR_LAT, [d(K::PredDst(48), W1), RD, RA, u(K::UImm(20, 5), W1), RC], [m(M::ShflOp, 30, 2, SHFLOP)];
    SHFL_RI:    "SHFL",     fx(op16!(0xef10, 0xfff8), 0x2000_0000, 0x3000_0000), Sync, VAR_LAT, [d(K::PredDst(48), W1), RD, RA, RB, u(K::UImm(34, 13), W1)], [m(M::ShflOp, 30, 2, SHFLOP)];
    SHFL_II:    "SHFL",     fx(op16!(0xef10, 0xfff8), 0x3000_0000, 0x3000_0000), Sync, VAR_LAT, [d(K::PredDst(48), W1), RD, RA, u(K::UImm(20, 5), W1), u(K::UImm(34, 13), W1)], [m(M::ShflOp, 30, 2, SHFLOP)];
    VOTE:       "VOTE",     op16!(0x50d8, 0xfff8), Sync, 0, [opt(RD), d(K::PredDst(45), W1), PC], [m(M::VoteOp, 48, 2, VOTEOP)];
    NOP:        "NOP",      op16!(0x50b0, 0xfff8), Ctrl, 0, [opt(u(K::UImm(20, 16), W1))], [cct(8), flag(M::Trig, 13, "TRIG")];
}

/// LANES: MOV's quad-lane mask; 0xf (all) prints nothing.
const LANES: &[&str] = &[
    "?", "?", "?", "?", "?", "?", "?", "?", "?", "?", "?", "?", "?", "?", "?", "",
];
/// FMUL's scale field (PDIV).
const PDIV: &[&str] = &["", "D2", "D4", "D8", "M8", "M4", "M2", "?"];

impl Form {
    /// Whether the row has `f` among its flags.
    pub const fn has(&self, f: u32) -> bool {
        self.flags & f != 0
    }

    /// Whether some operand is derived from another (`Same`/`Next`: CAS pairs, FFMA32I).
    pub const fn has_derived(&self) -> bool {
        let mut i = 0;
        while i < self.operands.len() {
            if matches!(self.operands[i].kind, OpKind::Same(_) | OpKind::Next(_)) {
                return true;
            }
            i += 1;
        }
        false
    }

    /// Whether [`check_combination`] may reject this row (conversions; texture rows, of which
    /// TEXS/TLDS have `_RZ` twins).
    pub const fn has_combination_rules(&self) -> bool {
        // Conversions, and TEXS/TLDS (whose `_RZ` rows own the words with Rd2 = RZ).
        matches!(self.class, Class::Conv) || self.flags & flags::TEX != 0
    }

    /// The modifier field of kind `k`, if the row has one, with its index.
    pub fn mod_index(&self, k: ModKind) -> Option<usize> {
        self.mods.iter().position(|m| m.kind == k)
    }
}

/// The rows of `FORMS` as [`Op`]s.
pub fn all_ops() -> impl Iterator<Item = Op> {
    (0..FORMS.len() as u16).map(Op)
}

/// Cross-field constraints the bit layout alone cannot express; nvdisasm rejects or
/// reinterprets these encodings, so the encoder and decoder refuse them:
///
/// * I2F/I2I byte selects: an 8-bit source takes `.B1`..`.B3`, a 16-bit source only `.H1`
///   (encoded as B2), wider sources none;
/// * F2F: `.H1` needs an F16 source; integer rounding (`.ROUND`/`.FLOOR`/`.CEIL`/`.TRUNC`)
///   needs equal source and destination types, and equal types take no other rounding.
pub fn check_combination(inst: &crate::inst::Inst) -> Result<(), &'static str> {
    let form = inst.form();
    if form.has(flags::TEX) && matches!(form.mnemonic, "TEXS" | "TLDS") {
        // The `_RZ` rows hold exactly the words whose second destination is RZ.
        let rz = matches!(inst.operands[0], crate::inst::Operand::Reg(r) if r.is_zero());
        return match (form.name.ends_with("_RZ"), rz) {
            (true, false) => Err("the one-destination form needs Rd2 = RZ"),
            (false, true) => Err("Rd2 = RZ is the one-destination form"),
            _ => Ok(()),
        };
    }
    if form.class != Class::Conv {
        return Ok(());
    }
    let name = inst.op.name();
    let st = inst.get_name(ModKind::SType).unwrap_or("");
    let dt = inst.get_name(ModKind::DType).unwrap_or("");
    if name.starts_with("I2F") || name.starts_with("I2I") {
        let b = inst.get(ModKind::ByteSel).unwrap_or(0);
        let ok = match st {
            "U8" | "S8" => true,
            "U16" | "S16" => b == 0 || b == 2,
            _ => b == 0,
        };
        if !ok {
            return Err("byte select not allowed for this source size");
        }
    }
    if name.starts_with("F2F") {
        if inst.has(ModKind::H1(1)) && st != "F16" {
            return Err(".H1 needs an F16 source");
        }
        let r = inst.get(ModKind::Rnd).unwrap_or(0);
        if st == dt && r & 4 == 0 && r != 0 {
            return Err("F2F between equal types takes integer rounding only");
        }
        if st != dt && r & 4 != 0 {
            return Err("integer rounding needs equal F2F types");
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::used_bits;

    fn bits(lo: u8, len: u8) -> u64 {
        if len == 0 {
            0
        } else {
            (((1u128 << len) - 1) as u64) << lo
        }
    }

    /// Fields never overlap each other, the guard or the fixed bits; sizes are in bounds;
    /// every modifier has a printable default or explicit names; mnemonics are unique per
    /// (mnemonic, operand kinds) so the parser can tell forms apart.
    #[test]
    fn table_is_consistent() {
        for f in FORMS {
            assert!(f.operands.len() <= MAX_OPERANDS, "{}", f.name);
            assert!(f.mods.len() <= MAX_MODS, "{}", f.name);
            assert_eq!(
                f.opcode & !f.mask,
                0,
                "{}: opcode bits outside mask",
                f.name
            );
            let mut taken = f.mask;
            if !f.has(flags::NO_GUARD) {
                assert_eq!(taken & bits(16, 4), 0, "{}: guard overlaps", f.name);
                taken |= bits(16, 4);
            }
            let mut claim = |b: u64, what: &str| {
                assert_eq!(
                    taken & b,
                    0,
                    "{}: {what} overlaps ({:#x})",
                    f.name,
                    taken & b
                );
                taken |= b;
            };
            for o in f.operands {
                let b = match o.kind {
                    OpKind::Gpr(lo) => bits(lo, 8),
                    OpKind::PredDst(lo) => bits(lo, 3),
                    OpKind::PredSrc(lo, not) => bits(lo, 3) | 1 << not,
                    OpKind::UImm(lo, len) | OpKind::SImm(lo, len) => bits(lo, len),
                    OpKind::I20 | OpKind::U20 | OpKind::F20 | OpKind::D20 => bits(20, 19) | 1 << 56,
                    OpKind::XImm => bits(20, 16),
                    OpKind::U32(lo) | OpKind::S32(lo) | OpKind::F32(lo) => bits(lo, 32),
                    OpKind::CBuf | OpKind::CBufSp => bits(20, 19),
                    OpKind::Mem { lo, len, .. } => bits(8, 8) | bits(lo, len),
                    OpKind::CIdx => bits(8, 8) | bits(20, 21),
                    OpKind::SReg => bits(20, 8),
                    OpKind::Rel => bits(20, 24),
                    OpKind::Abs => bits(20, 32),
                    OpKind::SbMask => bits(0, 6),
                    OpKind::Sb => bits(26, 3),
                    OpKind::Next(_) | OpKind::Same(_) | OpKind::Pr | OpKind::Cc => 0,
                };
                claim(b, "operand");
            }
            for m in f.mods {
                claim(bits(m.a.0, m.a.1) | bits(m.b.0, m.b.1), "modifier");
                assert!(
                    m.names.len() >= 1 << m.bits() || m.names.len() == 1 << m.bits(),
                    "{}: {:?} names",
                    f.name,
                    m.kind
                );
                assert!(
                    m.names.len() <= 1 << m.bits(),
                    "{}: {:?} has more names than values",
                    f.name,
                    m.kind
                );
            }
            assert_eq!(used_bits(f), taken, "{}", f.name);
        }
    }
}
