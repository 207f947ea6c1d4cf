//! The opcode table: one `macro_rules!` table yields [`Opcode`], its mnemonic, instruction
//! format, operand/result type signature and property flags.
//!
//! Semantics of every opcode are stated in its doc comment; the interpreter and the constant
//! folder implement exactly that in one function ([`crate::eval::eval_pure`]), and instruction
//! selection must agree. Common rules:
//! - `b32` float opcodes (prefix `f`) read and write IEEE binary32 and **flush denormals** to
//!   a zero of the same sign on every input and on the result (AMD IL 6.3). The bit ops
//!   `fneg`/`fabs` only touch the sign bit and do not flush.
//! - `b64` float opcodes (prefix `d`) are IEEE binary64, round-to-nearest-even, no flushing.
//! - Integer opcodes typed `T` accept `b32` or `b64` (all `T` operands and the `T` result
//!   share one type) and wrap modulo 2^N. Shift counts are masked to N-1 bits.
//! - Source modifiers (neg/abs) are explicit `fneg`/`fabs`/`ineg` ops; instruction selection
//!   folds them into SM50 operand bits.
//! - Calls: AMD IL `func`/`call` are inlined by the lowering; the IR has no call instruction.

use super::types::Type;

/// Operand/result type constraint in an opcode signature.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TypeSpec {
    /// Exactly `b32`.
    B32,
    /// Exactly `b64`.
    B64,
    /// Exactly `pred`.
    Pred,
    /// The polymorphic integer type `T` (`b32` or `b64`), bound by the first `T`/`A` operand.
    Int,
    /// The polymorphic type `A` (any type), bound by the first `T`/`A` operand.
    Any,
    /// The controlling type stored in the instruction (`iconst.b64`).
    Ctrl,
}

impl TypeSpec {
    /// True if `ty` is allowed by the spec once the polymorphic variable is `bound`.
    pub fn admits(self, ty: Type, bound: Option<Type>) -> bool {
        match self {
            TypeSpec::B32 => ty == Type::B32,
            TypeSpec::B64 => ty == Type::B64,
            TypeSpec::Pred => ty == Type::Pred,
            TypeSpec::Int => bound.map_or(ty != Type::Pred, |b| b == ty),
            TypeSpec::Any | TypeSpec::Ctrl => match bound {
                Some(b) => b == ty,
                None => true,
            },
        }
    }
}

/// Instruction formats: the shape of [`InstructionData`](super::InstructionData).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum InstructionFormat {
    /// No operands (`return`, `unreachable`).
    Nullary,
    /// A 64-bit immediate and a controlling type (`iconst`, `pconst`).
    UnaryImm,
    /// One value operand.
    Unary,
    /// Two value operands.
    Binary,
    /// Three value operands.
    Ternary,
    /// Four value operands.
    Quaternary,
    /// `icmp` with an [`IntCC`](super::IntCC).
    IntCompare,
    /// `fcmp`/`dcmp` with a [`FloatCC`](super::FloatCC).
    FloatCompare,
    /// Read of a special register.
    Special,
    /// Memory load.
    Load,
    /// Memory store.
    Store,
    /// Atomic read-modify-write.
    Atomic,
    /// Texture fetch or query.
    Texture,
    /// Barrier / fence.
    Barrier,
    /// Unconditional jump with block arguments.
    Jump,
    /// Two-way conditional branch.
    Brif,
    /// Indexed multi-way branch.
    BrTable,
    /// Target-specific instruction (after instruction selection).
    Target,
}

/// Opcode property flags.
pub mod flags {
    /// Operands 0 and 1 may be swapped.
    pub const COMM: u16 = 1;
    /// Ends a block.
    pub const TERM: u16 = 2;
    /// Has effects beyond its results: never removed, never reordered across other
    /// side-effecting or memory instructions.
    pub const SIDE: u16 = 4;
    /// Reads memory: removable when unused, not movable across `SIDE` instructions.
    pub const LOAD: u16 = 8;
    /// Transfers control to other blocks.
    pub const BRANCH: u16 = 16;
}

macro_rules! define_opcodes {
    ($(
        $(#[doc = $doc:literal])*
        $name:ident = $mn:literal, $fmt:ident, [$($a:ident),*] -> [$($r:ident),*], $fl:expr;
    )*) => {
        /// An IR opcode. See the module doc for shared rules; each variant documents its
        /// exact semantics.
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Opcode {
            $( $(#[doc = $doc])* $name, )*
        }

        impl Opcode {
            /// Every opcode, in table order.
            pub const ALL: &'static [Opcode] = &[$(Opcode::$name),*];

            /// The text mnemonic.
            pub fn mnemonic(self) -> &'static str {
                match self { $(Opcode::$name => $mn,)* }
            }

            /// The instruction format.
            pub fn format(self) -> InstructionFormat {
                match self { $(Opcode::$name => InstructionFormat::$fmt,)* }
            }

            /// Type constraints of the fixed value operands (empty for variable formats:
            /// loads, stores, atomics, branches, target instructions).
            pub fn arg_types(self) -> &'static [TypeSpec] {
                match self { $(Opcode::$name => &[$($a),*],)* }
            }

            /// Result types (empty for variable formats: loads and target instructions
            /// get theirs from the instruction data).
            pub fn result_types(self) -> &'static [TypeSpec] {
                match self { $(Opcode::$name => &[$($r),*],)* }
            }

            fn flag_bits(self) -> u16 {
                use flags::*;
                match self { $(Opcode::$name => $fl,)* }
            }
        }
    };
}

use TypeSpec::{Any as A, Ctrl as C, Int as T, Pred as P, B32 as I, B64 as L};

#[rustfmt::skip]
define_opcodes! {
    // ---- constants and copies ----
    /// `iconst.T imm`: the constant (truncated to the type's width).
    Iconst = "iconst", UnaryImm, [] -> [C], 0;
    /// `pconst imm`: predicate constant (imm 0 = false, 1 = true).
    Pconst = "pconst", UnaryImm, [] -> [P], 0;
    /// `copy x`: x.
    Copy = "copy", Unary, [A] -> [A], 0;
    // ---- integer ----
    /// Wrapping addition.
    Iadd = "iadd", Binary, [T, T] -> [T], COMM;
    /// Wrapping subtraction `a - b`.
    Isub = "isub", Binary, [T, T] -> [T], 0;
    /// Wrapping negation.
    Ineg = "ineg", Unary, [T] -> [T], 0;
    /// Low half of the product.
    Imul = "imul", Binary, [T, T] -> [T], COMM;
    /// High 32 bits of the signed 64-bit product.
    Imulhi = "imulhi", Binary, [I, I] -> [I], COMM;
    /// High 32 bits of the unsigned 64-bit product.
    Umulhi = "umulhi", Binary, [I, I] -> [I], COMM;
    /// `a * b + c`, wrapping.
    Imad = "imad", Ternary, [T, T, T] -> [T], 0;
    /// Signed quotient truncated toward zero. `x / 0 = -1` (all ones); `MIN / -1 = MIN`.
    Idiv = "idiv", Binary, [T, T] -> [T], 0;
    /// Unsigned quotient. `x / 0 = all ones` (D3D11 convention).
    Udiv = "udiv", Binary, [T, T] -> [T], 0;
    /// Signed remainder with the sign of the dividend. `x % 0 = all ones`; `MIN % -1 = 0`.
    Irem = "irem", Binary, [T, T] -> [T], 0;
    /// Unsigned remainder. `x % 0 = all ones`.
    Urem = "urem", Binary, [T, T] -> [T], 0;
    /// `a << (b & (N-1))`.
    Ishl = "ishl", Binary, [T, I] -> [T], 0;
    /// Arithmetic `a >> (b & (N-1))`.
    Ishr = "ishr", Binary, [T, I] -> [T], 0;
    /// Logical `a >> (b & (N-1))`.
    Ushr = "ushr", Binary, [T, I] -> [T], 0;
    /// Bitwise and.
    Band = "and", Binary, [T, T] -> [T], COMM;
    /// Bitwise or.
    Bor = "or", Binary, [T, T] -> [T], COMM;
    /// Bitwise xor.
    Bxor = "xor", Binary, [T, T] -> [T], COMM;
    /// Bitwise not.
    Bnot = "not", Unary, [T] -> [T], 0;
    /// `bfi width, offset, insert, base` (AMD IL `ubit_insert` operand order): w = width & 31,
    /// o = offset & 31, mask = ((1 << w) - 1) << o truncated to 32 bits;
    /// result = ((insert << o) & mask) | (base & !mask); w == 0 gives base.
    Bfi = "bfi", Quaternary, [I, I, I, I] -> [I], 0;
    /// `ubfe width, offset, x` (AMD IL `ubit_extract` order): w = width & 31, o = offset & 31;
    /// w == 0 -> 0; w + o >= 32 -> x >> o (logical); else bits [o, o+w) of x zero-extended.
    Ubfe = "ubfe", Ternary, [I, I, I] -> [I], 0;
    /// `ibfe width, offset, x`: as `ubfe` but sign-extended (and `x >> o` arithmetic).
    Ibfe = "ibfe", Ternary, [I, I, I] -> [I], 0;
    /// `fshr lo, hi, s`: funnel shift right, the low 32 bits of `(hi:lo) >> (s & 31)` (AMD IL
    /// `bitalign hi, lo, s`; a rotate right when `lo == hi`).
    Fshr = "fshr", Ternary, [I, I, I] -> [I], 0;
    /// Reverse the 32 bits.
    Bitrev = "bitrev", Unary, [I] -> [I], 0;
    /// Number of set bits.
    Popcnt = "popcnt", Unary, [I] -> [I], 0;
    /// Number of leading zero bits (32 for 0).
    Clz = "clz", Unary, [I] -> [I], 0;
    /// AMD IL `ffb_hi` (D3D11 `firstbit_hi`): position of the first set bit counted from the
    /// MSB (0x80000000 -> 0, 1 -> 31); 0xFFFFFFFF for 0.
    FirstbitHi = "firstbit_hi", Unary, [I] -> [I], 0;
    /// AMD IL `ffb_lo`: index of the lowest set bit (1 -> 0); 0xFFFFFFFF for 0.
    FirstbitLo = "firstbit_lo", Unary, [I] -> [I], 0;
    /// AMD IL `ffb_shi`: like `firstbit_hi` of `x` for x >= 0 and of `!x` for x < 0
    /// (first bit differing from the sign, counted from the MSB); 0xFFFFFFFF for 0 and -1.
    FirstbitShi = "firstbit_shi", Unary, [I] -> [I], 0;
    /// Signed minimum.
    Imin = "imin", Binary, [T, T] -> [T], COMM;
    /// Signed maximum.
    Imax = "imax", Binary, [T, T] -> [T], COMM;
    /// Unsigned minimum.
    Umin = "umin", Binary, [T, T] -> [T], COMM;
    /// Unsigned maximum.
    Umax = "umax", Binary, [T, T] -> [T], COMM;
    /// Wrapping absolute value (`iabs MIN = MIN`).
    Iabs = "iabs", Unary, [T] -> [T], 0;
    // ---- compares and predicates ----
    /// `icmp cc a, b`: integer compare.
    Icmp = "icmp", IntCompare, [T, T] -> [P], 0;
    /// `fcmp cc a, b`: f32 compare after flushing denormals (+0 == -0).
    Fcmp = "fcmp", FloatCompare, [I, I] -> [P], 0;
    /// `dcmp cc a, b`: f64 compare.
    Dcmp = "dcmp", FloatCompare, [L, L] -> [P], 0;
    /// `select p, a, b`: p ? a : b.
    Select = "select", Ternary, [P, A, A] -> [A], 0;
    /// `bmask p`: p ? 0xFFFFFFFF : 0 (AMD IL boolean).
    Bmask = "bmask", Unary, [P] -> [I], 0;
    /// Predicate and.
    Pand = "pand", Binary, [P, P] -> [P], COMM;
    /// Predicate or.
    Por = "por", Binary, [P, P] -> [P], COMM;
    /// Predicate xor.
    Pxor = "pxor", Binary, [P, P] -> [P], COMM;
    /// Predicate not.
    Pnot = "pnot", Unary, [P] -> [P], 0;
    /// `vote_all p`: a `pred` that implies `p` and is the same in every work-item that
    /// executes it together with this one (a warp's active threads: `VOTE.ALL`), so a branch
    /// on it never diverges. It may be false where `p` holds; a lone work-item (the
    /// interpreters, folding) takes it as `p`. For versioning: a warp enters the fast copy
    /// only when all of its threads pass the test.
    VoteAll = "vote_all", Unary, [P] -> [P], 0;
    // ---- f32 ----
    /// a + b.
    Fadd = "fadd", Binary, [I, I] -> [I], COMM;
    /// a - b.
    Fsub = "fsub", Binary, [I, I] -> [I], 0;
    /// a * b.
    Fmul = "fmul", Binary, [I, I] -> [I], COMM;
    /// DX9 multiply: 0 * x = +0 for any x (also NaN, Inf) after flushing; else a * b.
    FmulLegacy = "fmul_legacy", Binary, [I, I] -> [I], COMM;
    /// Fused a * b + c, one rounding.
    Ffma = "ffma", Ternary, [I, I, I] -> [I], 0;
    /// Unfused a * b + c: the product is rounded (and flushed), then the sum.
    Fmad = "fmad", Ternary, [I, I, I] -> [I], 0;
    /// DX9 multiply-add, fused like Maxwell `FFMA.FMZ` (AMD IL `mad` without `_ieee`):
    /// if a or b is 0 (after flushing) the result is `+0 + c`, else `ffma a, b, c`.
    FmadLegacy = "fmad_legacy", Ternary, [I, I, I] -> [I], 0;
    /// Minimum; a NaN operand loses to the other; min(-0, +0) = -0.
    Fmin = "fmin", Binary, [I, I] -> [I], COMM;
    /// Maximum; a NaN operand loses to the other; max(-0, +0) = +0.
    Fmax = "fmax", Binary, [I, I] -> [I], COMM;
    /// Flip the sign bit (no flush).
    Fneg = "fneg", Unary, [I] -> [I], 0;
    /// Clear the sign bit (no flush).
    Fabs = "fabs", Unary, [I] -> [I], 0;
    /// IEEE quotient a / b (x/0 = signed Inf, 0/0 = NaN); the backend may use an
    /// approximation within 2 ulp.
    Fdiv = "fdiv", Binary, [I, I] -> [I], 0;
    /// 1 / x (IEEE; rcp(+-0) = +-Inf). Approximate in hardware (1 ulp).
    Frcp = "frcp", Unary, [I] -> [I], 0;
    /// 1 / sqrt(x) (rsq(+-0) = +-Inf, x < 0 -> NaN). Approximate (2 ulp).
    Frsq = "frsq", Unary, [I] -> [I], 0;
    /// sqrt(x) (x < 0 -> NaN). Approximate (2 ulp).
    Fsqrt = "fsqrt", Unary, [I] -> [I], 0;
    /// 2^x. Approximate (2 ulp).
    Fexp2 = "fexp2", Unary, [I] -> [I], 0;
    /// log2(x) (0 -> -Inf, x < 0 -> NaN). Approximate (2 ulp / 2^-21 absolute).
    Flog2 = "flog2", Unary, [I] -> [I], 0;
    /// sin(x), x in radians. Approximate (absolute error 2^-11 on [-100pi, 100pi]).
    Fsin = "fsin", Unary, [I] -> [I], 0;
    /// cos(x), x in radians. Approximate as `fsin`.
    Fcos = "fcos", Unary, [I] -> [I], 0;
    /// Round toward -Inf.
    Ffloor = "ffloor", Unary, [I] -> [I], 0;
    /// Round toward +Inf.
    Fceil = "fceil", Unary, [I] -> [I], 0;
    /// Round toward zero.
    Ftrunc = "ftrunc", Unary, [I] -> [I], 0;
    /// Round to nearest, ties to even.
    FroundEven = "fround_even", Unary, [I] -> [I], 0;
    /// x - floor(x) (one rounding: a tiny negative x gives 1.0, as on Maxwell and in the AMD
    /// IL interpreter, although the guide promises [0, 1)); NaN/Inf -> NaN.
    Ffract = "ffract", Unary, [I] -> [I], 0;
    /// Clamp to [0, 1]; NaN and -0 -> +0.
    Fsat = "fsat", Unary, [I] -> [I], 0;
    /// `fldexp x, e`: x * 2^e (e a signed b32), one rounding, then flushed.
    Fldexp = "fldexp", Binary, [I, I] -> [I], 0;
    // ---- f64 ----
    /// a + b.
    Dadd = "dadd", Binary, [L, L] -> [L], COMM;
    /// a - b.
    Dsub = "dsub", Binary, [L, L] -> [L], 0;
    /// a * b.
    Dmul = "dmul", Binary, [L, L] -> [L], COMM;
    /// Fused a * b + c.
    Dfma = "dfma", Ternary, [L, L, L] -> [L], 0;
    /// IEEE a / b.
    Ddiv = "ddiv", Binary, [L, L] -> [L], 0;
    /// IEEE a / b where both magnitudes lie in [2^-500, 2^500) (so the quotient and 1/b are
    /// normal); outside that range the result is unspecified (the interpreter gives a / b).
    /// Made by `ddiv_split` under a test of the range, for targets whose general division
    /// scales its operands.
    DdivNormal = "ddiv_normal", Binary, [L, L] -> [L], 0;
    /// IEEE 1 / x.
    Drcp = "drcp", Unary, [L] -> [L], 0;
    /// IEEE sqrt(x).
    Dsqrt = "dsqrt", Unary, [L] -> [L], 0;
    /// Minimum; NaN loses; min(-0, +0) = -0.
    Dmin = "dmin", Binary, [L, L] -> [L], COMM;
    /// Maximum; NaN loses; max(-0, +0) = +0.
    Dmax = "dmax", Binary, [L, L] -> [L], COMM;
    /// IEEE 1 / sqrt(x) (evaluated as `1 / sqrt(x)` with two roundings in the reference).
    Drsq = "drsq", Unary, [L] -> [L], 0;
    /// Round toward -Inf.
    Dfloor = "dfloor", Unary, [L] -> [L], 0;
    /// Round toward +Inf.
    Dceil = "dceil", Unary, [L] -> [L], 0;
    /// Round toward zero.
    Dtrunc = "dtrunc", Unary, [L] -> [L], 0;
    /// Round to nearest, ties to even.
    DroundEven = "dround_even", Unary, [L] -> [L], 0;
    /// x - floor(x) (as `ffract`); NaN/Inf -> NaN (AMD IL `dfrac`).
    Dfract = "dfract", Unary, [L] -> [L], 0;
    /// `dldexp x, e`: x * 2^e (e a signed b32), one IEEE rounding.
    Dldexp = "dldexp", Binary, [L, I] -> [L], 0;
    /// Mantissa of x in [0.5, 1) with x's sign; +-0 -> +-0; Inf/NaN -> NaN (AMD IL `dfrexp`).
    DfrexpMant = "dfrexp_mant", Unary, [L] -> [L], 0;
    /// Exponent e with x = mant * 2^e; 0 -> 0; Inf/NaN -> -1 (AMD IL `dfrexp`).
    DfrexpExp = "dfrexp_exp", Unary, [L] -> [I], 0;
    /// Flip the sign bit.
    Dneg = "dneg", Unary, [L] -> [L], 0;
    /// Clear the sign bit.
    Dabs = "dabs", Unary, [L] -> [L], 0;
    // ---- conversions ----
    /// f32 -> i32, truncating; saturates out of range; NaN -> 0.
    F2i = "f2i", Unary, [I] -> [I], 0;
    /// f32 -> u32, truncating; saturates out of range (negatives -> 0); NaN -> 0.
    F2u = "f2u", Unary, [I] -> [I], 0;
    /// i32 -> f32, round to nearest even.
    I2f = "i2f", Unary, [I] -> [I], 0;
    /// u32 -> f32, round to nearest even.
    U2f = "u2f", Unary, [I] -> [I], 0;
    /// f32 -> f64 (f32 denormals become +-0 first).
    F2d = "f2d", Unary, [I] -> [L], 0;
    /// f64 -> f32, round to nearest even; results in the f32 denormal range flush to +-0.
    D2f = "d2f", Unary, [L] -> [I], 0;
    /// f64 -> i32, truncating; saturates; NaN -> 0.
    D2i = "d2i", Unary, [L] -> [I], 0;
    /// f64 -> u32, truncating; saturates; NaN -> 0.
    D2u = "d2u", Unary, [L] -> [I], 0;
    /// i32 -> f64 (exact).
    I2d = "i2d", Unary, [I] -> [L], 0;
    /// u32 -> f64 (exact).
    U2d = "u2d", Unary, [I] -> [L], 0;
    /// The f16 in the low 16 bits of x -> f32 (exact; f16 denormals are kept).
    F16to32 = "f16to32", Unary, [I] -> [I], 0;
    /// f32 -> f16 in the low 16 bits (high bits 0), round to nearest even; overflow -> Inf;
    /// NaN -> 0x7FFF.
    F32to16 = "f32to16", Unary, [I] -> [I], 0;
    // ---- 64-bit pack/unpack ----
    /// `concat lo, hi`: the b64 `hi << 32 | lo`.
    Concat = "concat", Binary, [I, I] -> [L], 0;
    /// Low 32 bits of a b64.
    Lo = "lo", Unary, [L] -> [I], 0;
    /// High 32 bits of a b64.
    Hi = "hi", Unary, [L] -> [I], 0;
    // ---- special registers ----
    /// Read a special register (thread/group ids and sizes, lane id, clock).
    Special = "special", Special, [] -> [I], 0;
    // ---- cross-lane ----
    /// `quad_shuffle x, k`: the value of `x` in work-item `(id & !3) | (k & 3)` of the group,
    /// `id` being the flat id of the executing work-item: the four work-items of an aligned
    /// quad exchange values. Convergent: the whole quad must execute the same
    /// `quad_shuffle` together (the interpreter traps otherwise; hardware would read stale
    /// registers), so it may be moved only where all four still reach it together (hoisting
    /// out of a branch or loop is fine, sinking into one is not). Not foldable unless `x` is
    /// the same in every work-item.
    QuadShuffle = "quad_shuffle", Binary, [I, I] -> [I], 0;
    // ---- memory ----
    /// `load.SIZE space[addr + off]`: reads SIZE bytes (little endian); produces one `b32` per
    /// word (sub-word sizes zero/sign-extend into one `b32`). Out of range -> 0.
    Load = "load", Load, [] -> [], LOAD;
    /// `store.SIZE space[addr + off], data...`: writes the low bytes of the data words.
    /// Out of range stores are dropped.
    Store = "store", Store, [] -> [], SIDE;
    /// `atomic.OP space[addr + off], data...`: 32-bit atomic read-modify-write
    /// ([`AtomicOp`](super::AtomicOp)); returns the old value (0 when out of range).
    Atomic = "atomic", Atomic, [] -> [I], SIDE;
    /// As `atomic` without a result.
    AtomicNoret = "atomic_noret", Atomic, [] -> [], SIDE;
    /// `barrier flags`: group execution barrier and/or memory fence.
    Barrier = "barrier", Barrier, [] -> [], SIDE;
    // ---- control flow ----
    /// `jump block(args)`.
    Jump = "jump", Jump, [] -> [], TERM | BRANCH;
    /// `brif p, then(args), else(args)`: `p` is a `pred`.
    Brif = "brif", Brif, [] -> [], TERM | BRANCH;
    /// `br_table x, default(args), [t0(args), t1(args), ...]`: jump to `t[x]` if x (unsigned
    /// `b32`) is in range, else to default.
    BrTable = "br_table", BrTable, [] -> [], TERM | BRANCH;
    /// End this work-item (kernel exit).
    Return = "return", Nullary, [] -> [], TERM | SIDE;
    /// Control never reaches here; reaching it is an interpreter trap.
    Unreachable = "unreachable", Nullary, [] -> [], TERM | SIDE;
    // ---- target escape ----
    /// A target-specific instruction: `target.CODE imm (args) -> types`. The meaning of
    /// CODE and the immediate belongs to the backend (e.g. an index into isa-spa5's table);
    /// generic passes treat it as opaque (side effects as flagged in its data).
    Target = "target", Target, [] -> [], 0;
    /// `tex.KIND.SHAPE tN [sM] args`: a texture sample, texel fetch or size query (see
    /// [`TexArg`](super::TexArg)); four `b32` results. Pure: textures are read-only.
    Tex = "tex", Texture, [] -> [I, I, I, I], 0;
}

impl Opcode {
    /// Commutative in operands 0 and 1.
    pub fn is_commutative(self) -> bool {
        self.flag_bits() & flags::COMM != 0
    }
    /// Ends a block.
    pub fn is_terminator(self) -> bool {
        self.flag_bits() & flags::TERM != 0
    }
    /// Branches to blocks.
    pub fn is_branch(self) -> bool {
        self.flag_bits() & flags::BRANCH != 0
    }
    /// Has side effects (for `Target`, see [`InstructionData::has_side_effects`](super::InstructionData::has_side_effects)).
    pub fn has_side_effects(self) -> bool {
        self.flag_bits() & flags::SIDE != 0
    }
    /// Reads memory.
    pub fn reads_memory(self) -> bool {
        self.flag_bits() & (flags::LOAD) != 0
            || matches!(self, Opcode::Atomic | Opcode::AtomicNoret)
    }
    /// Reads other lanes of the warp (`vote_all`, `quad_shuffle`): its result depends on which
    /// lanes are active, so it must not move into or out of control flow that could change
    /// that set (a branch some lanes skip, a loop some lanes leave early).
    pub fn is_convergent(self) -> bool {
        matches!(self, Opcode::VoteAll | Opcode::QuadShuffle)
    }
    /// Writes memory.
    pub fn writes_memory(self) -> bool {
        matches!(self, Opcode::Store | Opcode::Atomic | Opcode::AtomicNoret)
    }
    /// Looks up a mnemonic.
    pub fn from_mnemonic(s: &str) -> Option<Opcode> {
        static TABLE: std::sync::OnceLock<std::collections::HashMap<&'static str, Opcode>> =
            std::sync::OnceLock::new();
        TABLE
            .get_or_init(|| Opcode::ALL.iter().map(|&o| (o.mnemonic(), o)).collect())
            .get(s)
            .copied()
    }
}

impl core::fmt::Display for Opcode {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.mnemonic())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mnemonics_unique_and_parse() {
        let mut seen = std::collections::HashSet::new();
        for &op in Opcode::ALL {
            assert!(seen.insert(op.mnemonic()), "duplicate {}", op.mnemonic());
            assert_eq!(Opcode::from_mnemonic(op.mnemonic()), Some(op));
        }
        assert!(Opcode::ALL.len() > 100);
    }

    #[test]
    fn arity_matches_format() {
        for &op in Opcode::ALL {
            let n = op.arg_types().len();
            let expect = match op.format() {
                InstructionFormat::Unary => Some(1),
                InstructionFormat::Binary
                | InstructionFormat::IntCompare
                | InstructionFormat::FloatCompare => Some(2),
                InstructionFormat::Ternary => Some(3),
                InstructionFormat::Quaternary => Some(4),
                _ => None,
            };
            if let Some(e) = expect {
                assert_eq!(n, e, "{op}");
            }
            if op.is_commutative() {
                assert!(n >= 2);
            }
        }
    }
}
