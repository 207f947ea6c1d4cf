//! The AMD IL opcode table: every instruction of chapter 7 of the AMD IL reference guide (v2.4)
//! plus the opcodes the guide lists only in its Appendix B enumeration.
//!
//! One `macro_rules!` line per opcode gives: the Rust variant, the binary `ILOpCode` value
//! (corrected: the guide's enumeration omits `IL_OP_MOVA`, so from 72 up the guide's position is
//! off by one; values here are the ones real binaries use), the guide section (`"7.7"` = 7.7
//! Integer Arithmetic; `"B"` = known only from the enumeration), a usability class, the operand
//! form the text parser expects, the number of destination operands, the accepted range of
//! source operands, and the text mnemonic(s) (first = canonical spelling for printing).
//!
//! Guarantees: every opcode value appears once; every mnemonic maps to one opcode;
//! [`Opcode::from_mnemonic`] is case-insensitive; [`Opcode::from_code`] accepts any `u16`.

#![cfg_attr(
    not(test),
    warn(
        clippy::panic,
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::print_stderr,
        clippy::todo
    )
)]

/// Where an opcode may be used, from the guide's chapter 7 and Appendix C.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Usage {
    /// Usable in compute shaders (`il_cs`).
    Cs,
    /// Usable in compute through the resource/sampler path (no implicit derivatives).
    Tex,
    /// R7xx-only legacy compute model (owner-computes LDS, shared registers).
    R7xx,
    /// Graphics-only (pixel/geometry/tessellation stages).
    Graphics,
    /// DX9-era shader model 3.0 instruction, forbidden outside SM30 pixel/vertex shaders.
    Sm30,
    /// Obsolete hardware only (R520/R670).
    Obsolete,
    /// Meta instruction (comments, macros, nop).
    Meta,
    /// Known only from the enumeration, purpose not documented.
    Other,
}

impl Usage {
    /// True when a compute kernel may use the opcode (`Cs` or `Tex`).
    pub fn compute_relevant(self) -> bool {
        matches!(self, Usage::Cs | Usage::Tex)
    }
}

/// How the text form of an instruction lays out what follows the mnemonic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Form {
    /// Destination operands then source operands (the common case).
    Operands,
    /// A function label: `func 12`, `call 12`.
    Label,
    /// One source operand, then a label: `call_logicalnz r0.x, 12`.
    SrcLabel,
    /// A 32-bit case value: `case -1`.
    Case,
    /// `dcl_literal lN, x, y, z, w`.
    Literal,
    /// `dcl_cb cbN[size]`.
    ConstBuffer,
    /// `dcl_indexed_temp_array xN[size]`.
    IndexedTemp,
    /// A list of numbers: `dcl_num_thread_per_group 64, 1, 1`, `dcl_lds_id(0) 1024`.
    Numbers,
    /// One destination operand followed by numbers: `def c0, 1.0, 0, 0, 0`.
    DstNumbers,
    /// A list of words: `dcl_global_flags refactoringAllowed`.
    Words,
    /// Raw text up to the end of the line (function tables, macro calls).
    Raw,
}

macro_rules! opcodes {
    ($($var:ident = $val:literal, $sec:literal, $usage:ident, $form:ident, $dst:literal, $smin:literal ..= $smax:literal, [$($mn:literal),+];)*) => {
        /// An AMD IL opcode (`ILOpCode`), one variant per distinct binary value.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u16)]
        pub enum Opcode {
            $(
                #[doc = concat!("`", $($mn, " ",)+ "` (section ", $sec, ")")]
                $var = $val,
            )*
        }

        /// Static description of one opcode.
        #[derive(Clone, Copy, Debug)]
        pub struct OpcodeInfo {
            /// The opcode.
            pub opcode: Opcode,
            /// Binary `ILOpCode` value (corrected numbering).
            pub code: u16,
            /// Section of the reference guide, e.g. `"7.7"`; `"B"` when known only from the enum.
            pub section: &'static str,
            /// Where the opcode may be used.
            pub usage: Usage,
            /// Text operand layout.
            pub form: Form,
            /// Number of destination operands.
            pub dsts: u8,
            /// Minimum number of source operands.
            pub srcs_min: u8,
            /// Maximum number of source operands.
            pub srcs_max: u8,
            /// Text mnemonics; the first one is canonical.
            pub mnemonics: &'static [&'static str],
        }

        /// The opcode table, in binary-value order.
        pub static OPCODES: &[OpcodeInfo] = OPCODE_TABLE;

        /// [`OPCODES`] as a constant, for tables built at compile time.
        pub(crate) const OPCODE_TABLE: &[OpcodeInfo] = &[
            $(OpcodeInfo {
                opcode: Opcode::$var,
                code: $val,
                section: $sec,
                usage: Usage::$usage,
                form: Form::$form,
                dsts: $dst,
                srcs_min: $smin,
                srcs_max: $smax,
                mnemonics: &[$($mn),+],
            },)*
        ];
    };
}

#[rustfmt::skip]
opcodes! {
    Unknown = 0, "B", Other, Operands, 0, 0..=0, ["unknown"];
    Abs = 1, "7.11", Cs, Operands, 1, 1..=1, ["abs"];
    Acos = 2, "7.11", Cs, Operands, 1, 1..=1, ["acos"];
    Add = 3, "7.11", Cs, Operands, 1, 2..=2, ["add"];
    Asin = 4, "7.11", Cs, Operands, 1, 1..=1, ["asin"];
    Atan = 5, "7.11", Cs, Operands, 1, 1..=1, ["atan"];
    Break = 6, "7.4", Cs, Operands, 0, 0..=0, ["break"];
    Breakc = 7, "7.4", Cs, Operands, 0, 2..=2, ["breakc"];
    Call = 8, "7.4", Cs, Label, 0, 0..=0, ["call"];
    Callnz = 9, "7.4", Sm30, SrcLabel, 0, 1..=1, ["callnz"];
    Clamp = 10, "7.11", Cs, Operands, 1, 3..=3, ["clamp"];
    Clg = 11, "B", Other, Operands, 1, 2..=2, ["clg"];
    Cmov = 12, "7.11", Cs, Operands, 1, 2..=2, ["cmov"];
    Cmp = 13, "7.11", Cs, Operands, 1, 3..=3, ["cmp"];
    Colorclamp = 14, "7.11", Sm30, Operands, 1, 1..=1, ["colorclamp"];
    Comment = 15, "7.14", Meta, Raw, 0, 0..=0, ["comment"];
    Continue = 16, "7.4", Cs, Operands, 0, 0..=0, ["continue"];
    Continuec = 17, "7.4", Cs, Operands, 0, 2..=2, ["continuec"];
    Cos = 18, "7.11", Cs, Operands, 1, 1..=1, ["cos"];
    Crs = 19, "7.11", Cs, Operands, 1, 2..=2, ["crs"];
    Dclarray = 20, "7.5", Sm30, Operands, 0, 2..=2, ["dclarray"];
    Dcldef = 21, "7.5", Sm30, Operands, 1, 0..=0, ["dcldef"];
    Dclpi = 22, "7.5", Sm30, Operands, 1, 0..=0, ["dclpi"];
    Dclpin = 23, "7.5", Sm30, Operands, 1, 0..=0, ["dclpin"];
    Dclpp = 24, "7.5", Sm30, Operands, 1, 0..=0, ["dclpp"];
    Dclpt = 25, "7.5", Sm30, Operands, 0, 0..=0, ["dclpt"];
    Dclv = 26, "7.5", Sm30, Operands, 1, 0..=0, ["dclv"];
    Dclvout = 27, "7.5", Sm30, Operands, 1, 0..=0, ["dclvout"];
    Def = 28, "7.5", Sm30, DstNumbers, 1, 0..=0, ["def"];
    Defb = 29, "7.5", Sm30, DstNumbers, 1, 0..=0, ["defb"];
    Det = 30, "7.11", Sm30, Operands, 1, 1..=1, ["det"];
    Dist = 31, "7.11", Sm30, Operands, 1, 2..=2, ["dist"];
    Div = 32, "7.11", Cs, Operands, 1, 2..=2, ["div"];
    Dp2add = 33, "7.11", Cs, Operands, 1, 3..=3, ["dp2add"];
    Dp3 = 34, "7.11", Cs, Operands, 1, 2..=2, ["dp3"];
    Dp4 = 35, "7.11", Cs, Operands, 1, 2..=2, ["dp4"];
    Dst = 36, "7.11", Cs, Operands, 1, 2..=2, ["dst"];
    Dsx = 37, "7.11", Graphics, Operands, 1, 1..=1, ["dsx"];
    Dsy = 38, "7.11", Graphics, Operands, 1, 1..=1, ["dsy"];
    Else = 39, "7.4", Cs, Operands, 0, 0..=0, ["else"];
    End = 40, "7.4", Cs, Operands, 0, 0..=0, ["end"];
    Endif = 41, "7.4", Cs, Operands, 0, 0..=0, ["endif"];
    Endloop = 42, "7.4", Cs, Operands, 0, 0..=0, ["endloop"];
    Endmain = 43, "7.4", Cs, Operands, 0, 0..=0, ["endmain"];
    Exn = 44, "7.11", Cs, Operands, 1, 1..=1, ["exn"];
    Exp = 45, "7.11", Cs, Operands, 1, 1..=1, ["exp"];
    Expp = 46, "7.11", Cs, Operands, 1, 1..=1, ["expp"];
    Faceforward = 47, "7.11", Cs, Operands, 1, 3..=3, ["faceforward"];
    Flr = 48, "7.11", Cs, Operands, 1, 1..=1, ["flr"];
    Frc = 49, "7.11", Cs, Operands, 1, 1..=1, ["frc"];
    Func = 50, "7.4", Cs, Label, 0, 0..=0, ["func"];
    Fwidth = 51, "7.11", Graphics, Operands, 1, 1..=1, ["fwidth"];
    Ifc = 52, "7.4", Cs, Operands, 0, 2..=2, ["ifc"];
    Ifnz = 53, "7.4", Sm30, Operands, 0, 1..=1, ["ifnz"];
    Initv = 54, "7.5", Sm30, Operands, 1, 1..=1, ["initv"];
    Kill = 55, "7.6", Graphics, Operands, 0, 1..=1, ["kill"];
    Len = 56, "7.11", Cs, Operands, 1, 1..=1, ["len"];
    Lit = 57, "7.11", Cs, Operands, 1, 1..=1, ["lit"];
    Ln = 58, "7.11", Cs, Operands, 1, 1..=1, ["ln"];
    Lod = 59, "7.6", Sm30, Operands, 1, 1..=1, ["lod"];
    Log = 60, "7.11", Cs, Operands, 1, 1..=1, ["log"];
    Logp = 61, "7.11", Cs, Operands, 1, 1..=1, ["logp"];
    Loop = 62, "7.4", Sm30, Operands, 0, 1..=1, ["loop"];
    Lrp = 63, "7.11", Cs, Operands, 1, 3..=3, ["lrp"];
    Mad = 64, "7.11", Cs, Operands, 1, 3..=3, ["mad"];
    Max = 65, "7.11", Cs, Operands, 1, 2..=2, ["max"];
    Memexport = 66, "7.6", Obsolete, Operands, 0, 2..=2, ["memexport"];
    Memimport = 67, "7.6", Obsolete, Operands, 1, 1..=1, ["memimport"];
    Min = 68, "7.11", Cs, Operands, 1, 2..=2, ["min"];
    Mmul = 69, "7.11", Cs, Operands, 1, 2..=2, ["mmul"];
    Mod = 70, "7.11", Cs, Operands, 1, 2..=2, ["mod"];
    Mov = 71, "7.11", Cs, Operands, 1, 1..=1, ["mov"];
    Mova = 72, "B", Cs, Operands, 1, 1..=1, ["mova"];
    Mul = 73, "7.11", Cs, Operands, 1, 2..=2, ["mul"];
    Noise = 74, "7.11", Sm30, Operands, 1, 1..=1, ["noise"];
    Nop = 75, "7.14", Meta, Operands, 0, 0..=0, ["nop"];
    Nrm = 76, "7.11", Cs, Operands, 1, 1..=1, ["nrm"];
    Pireduce = 77, "7.11", Cs, Operands, 1, 1..=1, ["pireduce"];
    Pow = 78, "7.11", Cs, Operands, 1, 2..=2, ["pow"];
    Precomp = 79, "B", Other, Operands, 1, 1..=1, ["precomp"];
    Project = 80, "7.11", Sm30, Operands, 1, 1..=1, ["project"];
    Rcp = 81, "7.11", Cs, Operands, 1, 1..=1, ["rcp"];
    Reflect = 82, "7.11", Cs, Operands, 1, 2..=2, ["reflect"];
    Ret = 83, "7.4", Cs, Operands, 0, 0..=0, ["ret"];
    Rnd = 84, "7.11", Cs, Operands, 1, 1..=1, ["rnd"];
    Rsq = 85, "7.11", Cs, Operands, 1, 1..=1, ["rsq"];
    Set = 86, "7.11", Cs, Operands, 1, 2..=2, ["set"];
    Sgn = 87, "7.11", Cs, Operands, 1, 1..=1, ["sgn"];
    Sin = 88, "7.11", Cs, Operands, 1, 1..=1, ["sin"];
    Sincos = 89, "7.11", Cs, Operands, 1, 1..=1, ["sincos"];
    Sqrt = 90, "7.11", Cs, Operands, 1, 1..=1, ["sqrt"];
    Sub = 91, "7.11", Cs, Operands, 1, 2..=2, ["sub"];
    Tan = 92, "7.11", Cs, Operands, 1, 1..=1, ["tan"];
    Texld = 93, "7.6", Sm30, Operands, 1, 1..=1, ["texld"];
    Texldb = 94, "7.6", Sm30, Operands, 1, 2..=2, ["texldb"];
    Texldd = 95, "7.6", Sm30, Operands, 1, 3..=3, ["texldd"];
    Texldms = 96, "7.6", Sm30, Operands, 1, 1..=1, ["texldms"];
    Texweight = 97, "7.6", Sm30, Operands, 1, 1..=1, ["texweight"];
    Transpose = 98, "7.11", Sm30, Operands, 1, 1..=1, ["transpose"];
    Trc = 99, "B", Other, Operands, 1, 1..=1, ["trc"];
    Dxsincos = 100, "7.11", Sm30, Operands, 1, 3..=3, ["dxsincos"];
    BreakLogicalz = 101, "7.4", Cs, Operands, 0, 1..=1, ["break_logicalz"];
    BreakLogicalnz = 102, "7.4", Cs, Operands, 0, 1..=1, ["break_logicalnz"];
    CallLogicalz = 103, "7.4", Cs, SrcLabel, 0, 1..=1, ["call_logicalz"];
    CallLogicalnz = 104, "7.4", Cs, SrcLabel, 0, 1..=1, ["call_logicalnz"];
    Case = 105, "7.4", Cs, Case, 0, 0..=0, ["case"];
    ContinueLogicalz = 106, "7.4", Cs, Operands, 0, 1..=1, ["continue_logicalz"];
    ContinueLogicalnz = 107, "7.4", Cs, Operands, 0, 1..=1, ["continue_logicalnz"];
    Default = 108, "7.4", Cs, Operands, 0, 0..=0, ["default"];
    Endswitch = 109, "7.4", Cs, Operands, 0, 0..=0, ["endswitch"];
    Endfunc = 110, "7.4", Cs, Operands, 0, 0..=0, ["endfunc"];
    IfLogicalz = 111, "7.4", Cs, Operands, 0, 1..=1, ["if_logicalz"];
    IfLogicalnz = 112, "7.4", Cs, Operands, 0, 1..=1, ["if_logicalnz"];
    While = 113, "7.4", Cs, Operands, 0, 0..=0, ["whileloop"];
    Switch = 114, "7.4", Cs, Operands, 0, 1..=1, ["switch"];
    RetDyn = 115, "7.4", Cs, Operands, 0, 0..=0, ["ret_dyn"];
    RetLogicalz = 116, "7.4", Cs, Operands, 0, 1..=1, ["ret_logicalz"];
    RetLogicalnz = 117, "7.4", Cs, Operands, 0, 1..=1, ["ret_logicalnz"];
    DclConstBuffer = 118, "7.5", Cs, ConstBuffer, 0, 0..=0, ["dcl_cb"];
    DclIndexedTempArray = 119, "7.5", Cs, IndexedTemp, 0, 0..=0, ["dcl_indexed_temp_array"];
    DclInputPrimitive = 120, "7.5", Graphics, Words, 0, 0..=0, ["dcl_input_primitive"];
    DclLiteral = 121, "7.5", Cs, Literal, 0, 0..=0, ["dcl_literal"];
    DclMaxOutputVertexCount = 122, "7.5", Graphics, Numbers, 0, 0..=0, ["dcl_max_output_vertex_count"];
    DclOdepth = 123, "7.5", Graphics, Operands, 0, 0..=0, ["dcl_odepth"];
    DclOutputTopology = 124, "7.5", Graphics, Words, 0, 0..=0, ["dcl_output_topology"];
    DclOutput = 125, "7.5", Graphics, Operands, 1, 0..=0, ["dcl_output"];
    DclInput = 126, "7.5", Graphics, Operands, 1, 0..=0, ["dcl_input"];
    DclVprim = 127, "7.5", Graphics, Operands, 0, 0..=0, ["dcl_vprim"];
    DclResource = 128, "7.5", Tex, Operands, 0, 0..=0, ["dcl_resource"];
    Cut = 129, "7.6", Graphics, Operands, 0, 0..=0, ["cut"];
    DiscardLogicalz = 130, "7.6", Graphics, Operands, 0, 1..=1, ["discard_logicalz"];
    DiscardLogicalnz = 131, "7.6", Graphics, Operands, 0, 1..=1, ["discard_logicalnz"];
    Emit = 132, "7.6", Graphics, Operands, 0, 0..=0, ["emit"];
    EmitThenCut = 133, "7.6", Graphics, Operands, 0, 0..=0, ["emitthencut", "emit_then_cut", "emitcut"];
    Load = 134, "7.6", Tex, Operands, 1, 1..=1, ["load"];
    Resinfo = 135, "7.6", Tex, Operands, 1, 1..=1, ["resinfo"];
    Sample = 136, "7.6", Graphics, Operands, 1, 1..=1, ["sample"];
    SampleB = 137, "7.6", Graphics, Operands, 1, 2..=2, ["sample_b"];
    SampleG = 138, "7.6", Tex, Operands, 1, 3..=3, ["sample_g"];
    SampleL = 139, "7.6", Tex, Operands, 1, 2..=2, ["sample_l"];
    SampleC = 140, "7.6", Graphics, Operands, 1, 2..=2, ["sample_c"];
    SampleCLz = 141, "7.6", Tex, Operands, 1, 2..=2, ["sample_c_lz"];
    INot = 142, "7.7", Cs, Operands, 1, 1..=1, ["inot"];
    IOr = 143, "7.7", Cs, Operands, 1, 2..=2, ["ior"];
    IXor = 144, "7.7", Cs, Operands, 1, 2..=2, ["ixor"];
    IAdd = 145, "7.7", Cs, Operands, 1, 2..=2, ["iadd"];
    IMad = 146, "7.7", Cs, Operands, 1, 3..=3, ["imad"];
    IMax = 147, "7.7", Cs, Operands, 1, 2..=2, ["imax"];
    IMin = 148, "7.7", Cs, Operands, 1, 2..=2, ["imin"];
    IMul = 149, "7.7", Cs, Operands, 1, 2..=2, ["imul"];
    IMulHigh = 150, "7.7", Cs, Operands, 1, 2..=2, ["imul_high"];
    IEq = 151, "7.7", Cs, Operands, 1, 2..=2, ["ieq"];
    IGe = 152, "7.7", Cs, Operands, 1, 2..=2, ["ige"];
    ILt = 153, "7.7", Cs, Operands, 1, 2..=2, ["ilt"];
    INegate = 154, "7.7", Cs, Operands, 1, 1..=1, ["inegate"];
    INe = 155, "7.7", Cs, Operands, 1, 2..=2, ["ine"];
    IShl = 156, "7.7", Cs, Operands, 1, 2..=2, ["ishl"];
    IShr = 157, "7.7", Cs, Operands, 1, 2..=2, ["ishr"];
    UShr = 158, "7.8", Cs, Operands, 1, 2..=2, ["ushr"];
    UDiv = 159, "7.8", Cs, Operands, 1, 2..=2, ["udiv"];
    UMod = 160, "7.8", Cs, Operands, 1, 2..=2, ["umod"];
    UMad = 161, "7.8", Cs, Operands, 1, 3..=3, ["umad"];
    UMax = 162, "7.8", Cs, Operands, 1, 2..=2, ["umax"];
    UMin = 163, "7.8", Cs, Operands, 1, 2..=2, ["umin"];
    ULt = 164, "7.8", Cs, Operands, 1, 2..=2, ["ult"];
    UGe = 165, "7.8", Cs, Operands, 1, 2..=2, ["uge"];
    UMul = 166, "7.8", Cs, Operands, 1, 2..=2, ["umul"];
    UMulHigh = 167, "7.8", Cs, Operands, 1, 2..=2, ["umul_high"];
    Ftoi = 168, "7.10", Cs, Operands, 1, 1..=1, ["ftoi"];
    Ftou = 169, "7.10", Cs, Operands, 1, 1..=1, ["ftou"];
    Itof = 170, "7.10", Cs, Operands, 1, 1..=1, ["itof"];
    Utof = 171, "7.10", Cs, Operands, 1, 1..=1, ["utof"];
    And = 172, "7.7", Cs, Operands, 1, 2..=2, ["iand", "and"];
    CmovLogical = 173, "7.11", Cs, Operands, 1, 3..=3, ["cmov_logical"];
    Eq = 174, "7.11", Cs, Operands, 1, 2..=2, ["eq"];
    ExpVec = 175, "7.11", Cs, Operands, 1, 1..=1, ["exp_vec"];
    Ge = 176, "7.11", Cs, Operands, 1, 2..=2, ["ge"];
    LogVec = 177, "7.11", Cs, Operands, 1, 1..=1, ["log_vec"];
    Lt = 178, "7.11", Cs, Operands, 1, 2..=2, ["lt"];
    Ne = 179, "7.11", Cs, Operands, 1, 2..=2, ["ne"];
    RoundNear = 180, "7.11", Cs, Operands, 1, 1..=1, ["round_nearest"];
    RoundNegInf = 181, "7.11", Cs, Operands, 1, 1..=1, ["round_neginf"];
    RoundPlusInf = 182, "7.11", Cs, Operands, 1, 1..=1, ["round_plusinf", "round_posinf"];
    RoundZero = 183, "7.11", Cs, Operands, 1, 1..=1, ["round_z"];
    RsqVec = 184, "7.11", Cs, Operands, 1, 1..=1, ["rsq_vec"];
    SinVec = 185, "7.11", Cs, Operands, 1, 1..=1, ["sin_vec"];
    CosVec = 186, "7.11", Cs, Operands, 1, 1..=1, ["cos_vec"];
    SqrtVec = 187, "7.11", Cs, Operands, 1, 1..=1, ["sqrt_vec"];
    Dp2 = 188, "7.11", Cs, Operands, 1, 2..=2, ["dp2"];
    InvMov = 189, "7.11", Cs, Operands, 1, 1..=1, ["invariant_move"];
    Scatter = 190, "7.6", Obsolete, Operands, 0, 1..=1, ["scatter"];
    DFrexp = 191, "7.12", Cs, Operands, 1, 1..=1, ["dfrexp"];
    DAdd = 192, "7.12", Cs, Operands, 1, 2..=2, ["dadd"];
    DMul = 193, "7.12", Cs, Operands, 1, 2..=2, ["dmul"];
    D2F = 194, "7.10", Cs, Operands, 1, 1..=1, ["d2f"];
    F2D = 195, "7.10", Cs, Operands, 1, 1..=1, ["f2d"];
    DLdexp = 196, "7.12", Cs, Operands, 1, 2..=2, ["dldexp"];
    DFrac = 197, "7.12", Cs, Operands, 1, 1..=1, ["dfrac"];
    DMuladd = 198, "7.12", Cs, Operands, 1, 3..=3, ["dmad"];
    Fetch4 = 199, "7.6", Tex, Operands, 1, 1..=1, ["fetch4"];
    Sampleinfo = 200, "7.6", Tex, Operands, 1, 1..=1, ["sampleinfo"];
    Getlod = 201, "B", Other, Operands, 1, 1..=1, ["getlod"];
    DclPersist = 202, "7.5", Obsolete, Operands, 1, 0..=0, ["dcl_persistent"];
    Dne = 203, "7.12", Cs, Operands, 1, 2..=2, ["dne"];
    Deq = 204, "7.12", Cs, Operands, 1, 2..=2, ["deq"];
    Dge = 205, "7.12", Cs, Operands, 1, 2..=2, ["dge"];
    Dlt = 206, "7.12", Cs, Operands, 1, 2..=2, ["dlt"];
    Samplepos = 207, "7.6", Tex, Operands, 1, 1..=1, ["samplepos"];
    DDiv = 208, "7.12", Cs, Operands, 1, 2..=2, ["ddiv"];
    DclSharedTemp = 209, "7.5", R7xx, Operands, 1, 0..=0, ["dcl_shared_temp"];
    InitSr = 210, "7.5", R7xx, Operands, 0, 0..=0, ["init_shared_registers"];
    InitSrHelper = 211, "B", Other, Operands, 0, 0..=0, ["init_sr_helper"];
    DclNumThreadPerGroup = 212, "7.5", Cs, Numbers, 0, 0..=0, ["dcl_num_thread_per_group", "dcl_num_thread_per_blk"];
    DclTotalNumThreadGroup = 213, "7.5", Cs, Numbers, 0, 0..=0, ["dcl_total_num_thread_group"];
    DclLdsSizePerThread = 214, "7.5", R7xx, Numbers, 0, 0..=0, ["dcl_lds_size_per_thread"];
    DclLdsSharingMode = 215, "7.5", R7xx, Words, 0, 0..=0, ["dcl_lds_sharing_mode"];
    LdsReadVec = 216, "7.6", R7xx, Operands, 1, 1..=1, ["lds_read_vec"];
    LdsWriteVec = 217, "7.6", R7xx, Operands, 1, 1..=1, ["lds_write_vec"];
    Fence = 218, "7.6", Cs, Operands, 0, 0..=0, ["fence"];
    LdsLoadVec = 219, "7.16", Cs, Operands, 1, 1..=2, ["lds_load_vec"];
    LdsStoreVec = 220, "7.16", Cs, Operands, 1, 3..=3, ["lds_store_vec"];
    DclUav = 221, "7.15", Cs, Operands, 0, 0..=0, ["dcl_uav"];
    DclRawUav = 222, "7.15", Cs, Operands, 0, 0..=0, ["dcl_raw_uav"];
    DclStructUav = 223, "7.15", Cs, Numbers, 0, 0..=0, ["dcl_struct_uav"];
    UavLoad = 224, "7.16", Cs, Operands, 1, 1..=1, ["uav_load"];
    UavRawLoad = 225, "7.16", Cs, Operands, 1, 1..=1, ["uav_raw_load"];
    UavStructLoad = 226, "7.16", Cs, Operands, 1, 1..=1, ["uav_struct_load"];
    UavStore = 227, "7.16", Cs, Operands, 0, 2..=2, ["uav_store"];
    UavRawStore = 228, "7.16", Cs, Operands, 1, 2..=2, ["uav_raw_store"];
    UavStructStore = 229, "7.16", Cs, Operands, 1, 2..=2, ["uav_struct_store"];
    DclArenaUav = 230, "7.15", Cs, Operands, 0, 0..=0, ["dcl_arena_uav"];
    UavArenaLoad = 231, "7.16", Cs, Operands, 1, 1..=1, ["uav_arena_load"];
    UavArenaStore = 232, "7.16", Cs, Operands, 1, 2..=2, ["uav_arena_store"];
    UavAdd = 233, "7.16", Cs, Operands, 0, 2..=2, ["uav_add"];
    UavSub = 234, "7.16", Cs, Operands, 0, 2..=2, ["uav_sub"];
    UavRsub = 235, "7.16", Cs, Operands, 0, 2..=2, ["uav_rsub"];
    UavMin = 236, "7.16", Cs, Operands, 0, 2..=2, ["uav_min"];
    UavMax = 237, "7.16", Cs, Operands, 0, 2..=2, ["uav_max"];
    UavUmin = 238, "7.16", Cs, Operands, 0, 2..=2, ["uav_umin"];
    UavUmax = 239, "7.16", Cs, Operands, 0, 2..=2, ["uav_umax"];
    UavAnd = 240, "7.16", Cs, Operands, 0, 2..=2, ["uav_and"];
    UavOr = 241, "7.16", Cs, Operands, 0, 2..=2, ["uav_or"];
    UavXor = 242, "7.16", Cs, Operands, 0, 2..=2, ["uav_xor"];
    UavCmp = 243, "7.16", Cs, Operands, 0, 3..=3, ["uav_cmp"];
    UavReadAdd = 244, "7.16", Cs, Operands, 1, 2..=2, ["uav_read_add"];
    UavReadSub = 245, "7.16", Cs, Operands, 1, 2..=2, ["uav_read_sub"];
    UavReadRsub = 246, "7.16", Cs, Operands, 1, 2..=2, ["uav_read_rsub"];
    UavReadMin = 247, "7.16", Cs, Operands, 1, 2..=2, ["uav_read_min"];
    UavReadMax = 248, "7.16", Cs, Operands, 1, 2..=2, ["uav_read_max"];
    UavReadUmin = 249, "7.16", Cs, Operands, 1, 2..=2, ["uav_read_umin"];
    UavReadUmax = 250, "7.16", Cs, Operands, 1, 2..=2, ["uav_read_umax"];
    UavReadAnd = 251, "7.16", Cs, Operands, 1, 2..=2, ["uav_read_and"];
    UavReadOr = 252, "7.16", Cs, Operands, 1, 2..=2, ["uav_read_or"];
    UavReadXor = 253, "7.16", Cs, Operands, 1, 2..=2, ["uav_read_xor"];
    UavReadXchg = 254, "7.16", Cs, Operands, 1, 2..=2, ["uav_read_xchg"];
    UavReadCmpXchg = 255, "7.16", Cs, Operands, 1, 3..=3, ["uav_read_cmp_xchg"];
    AppendBufAlloc = 256, "7.15", Cs, Operands, 1, 0..=0, ["append_buf_alloc"];
    AppendBufConsume = 257, "7.15", Cs, Operands, 1, 0..=0, ["append_buf_consume"];
    DclRawSrv = 258, "7.15", Cs, Operands, 0, 0..=0, ["dcl_raw_srv"];
    DclStructSrv = 259, "7.15", Cs, Numbers, 0, 0..=0, ["dcl_struct_srv"];
    SrvRawLoad = 260, "7.16", Cs, Operands, 1, 1..=1, ["srv_raw_load"];
    SrvStructLoad = 261, "7.16", Cs, Operands, 1, 1..=1, ["srv_struct_load"];
    DclLds = 262, "7.15", Cs, Numbers, 0, 0..=0, ["dcl_lds"];
    DclStructLds = 263, "7.15", Cs, Numbers, 0, 0..=0, ["dcl_struct_lds"];
    LdsLoad = 264, "7.16", Cs, Operands, 1, 1..=1, ["lds_load"];
    LdsStore = 265, "7.16", Cs, Operands, 0, 2..=2, ["lds_store"];
    LdsAdd = 266, "7.16", Cs, Operands, 0, 2..=2, ["lds_add"];
    LdsSub = 267, "7.16", Cs, Operands, 0, 2..=2, ["lds_sub"];
    LdsRsub = 268, "7.16", Cs, Operands, 0, 2..=2, ["lds_rsub"];
    LdsMin = 269, "7.16", Cs, Operands, 0, 2..=2, ["lds_min"];
    LdsMax = 270, "7.16", Cs, Operands, 0, 2..=2, ["lds_max"];
    LdsUmin = 271, "7.16", Cs, Operands, 0, 2..=2, ["lds_umin"];
    LdsUmax = 272, "7.16", Cs, Operands, 0, 2..=2, ["lds_umax"];
    LdsAnd = 273, "7.16", Cs, Operands, 0, 2..=2, ["lds_and"];
    LdsOr = 274, "7.16", Cs, Operands, 0, 2..=2, ["lds_or"];
    LdsXor = 275, "7.16", Cs, Operands, 0, 2..=2, ["lds_xor"];
    LdsCmp = 276, "7.16", Cs, Operands, 0, 3..=3, ["lds_cmp"];
    LdsReadAdd = 277, "7.16", Cs, Operands, 1, 2..=2, ["lds_read_add"];
    LdsReadSub = 278, "7.16", Cs, Operands, 1, 2..=2, ["lds_read_sub"];
    LdsReadRsub = 279, "7.16", Cs, Operands, 1, 2..=2, ["lds_read_rsub"];
    LdsReadMin = 280, "7.16", Cs, Operands, 1, 2..=2, ["lds_read_min"];
    LdsReadMax = 281, "7.16", Cs, Operands, 1, 2..=2, ["lds_read_max"];
    LdsReadUmin = 282, "7.16", Cs, Operands, 1, 2..=2, ["lds_read_umin"];
    LdsReadUmax = 283, "7.16", Cs, Operands, 1, 2..=2, ["lds_read_umax"];
    LdsReadAnd = 284, "7.16", Cs, Operands, 1, 2..=2, ["lds_read_and"];
    LdsReadOr = 285, "7.16", Cs, Operands, 1, 2..=2, ["lds_read_or"];
    LdsReadXor = 286, "7.16", Cs, Operands, 1, 2..=2, ["lds_read_xor"];
    LdsReadXchg = 287, "7.16", Cs, Operands, 1, 2..=2, ["lds_read_xchg"];
    LdsReadCmpXchg = 288, "7.16", Cs, Operands, 1, 3..=3, ["lds_read_cmp_xchg"];
    CutStream = 289, "7.6", Graphics, Operands, 0, 0..=0, ["cut_stream"];
    EmitStream = 290, "7.6", Graphics, Operands, 0, 0..=0, ["emit_stream"];
    EmitThenCutStream = 291, "7.6", Graphics, Operands, 0, 0..=0, ["emitcut_stream", "emit_then_cut_stream"];
    SampleCL = 292, "7.6", Tex, Operands, 1, 3..=3, ["sample_c_l"];
    SampleCG = 293, "7.6", Tex, Operands, 1, 4..=4, ["sample_c_g"];
    SampleCB = 294, "7.6", Graphics, Operands, 1, 3..=3, ["sample_c_b"];
    ICountbits = 295, "7.9", Cs, Operands, 1, 1..=1, ["icbits"];
    IFirstbit = 296, "7.9", Cs, Operands, 1, 1..=1, ["ffb"];
    ICarry = 297, "7.7", Cs, Operands, 1, 2..=2, ["icarry"];
    IBorrow = 298, "7.7", Cs, Operands, 1, 2..=2, ["iborrow"];
    IBitExtract = 299, "7.9", Cs, Operands, 1, 3..=3, ["ibit_extract"];
    UBitExtract = 300, "7.9", Cs, Operands, 1, 3..=3, ["ubit_extract"];
    UBitReverse = 301, "7.9", Cs, Operands, 1, 1..=1, ["ubit_reverse"];
    DclNumIcp = 302, "7.5", Graphics, Numbers, 0, 0..=0, ["dcl_num_icp"];
    DclNumOcp = 303, "7.5", Graphics, Numbers, 0, 0..=0, ["dcl_num_ocp"];
    DclNumInstances = 304, "7.5", Graphics, Numbers, 0, 0..=0, ["dcl_num_instances", "dcl_num_instance"];
    HsCpPhase = 305, "7.4", Graphics, Operands, 0, 0..=0, ["hs_cp_phase"];
    HsForkPhase = 306, "7.4", Graphics, Numbers, 0, 0..=0, ["hs_fork_phase"];
    HsJoinPhase = 307, "7.4", Graphics, Numbers, 0, 0..=0, ["hs_join_phase"];
    Endphase = 308, "7.4", Graphics, Operands, 0, 0..=0, ["endphase"];
    DclTsDomain = 309, "7.5", Graphics, Words, 0, 0..=0, ["dcl_ts_domain"];
    DclTsPartition = 310, "7.5", Graphics, Words, 0, 0..=0, ["dcl_ts_partition"];
    DclTsOutputPrimitive = 311, "7.5", Graphics, Words, 0, 0..=0, ["dcl_ts_output_primitive"];
    DclMaxTessfactor = 312, "7.5", Graphics, Numbers, 0, 0..=0, ["dcl_max_tessfactor"];
    DclFunctionBody = 313, "7.18", Graphics, Label, 0, 0..=0, ["dcl_function_body"];
    DclFunctionTable = 314, "7.18", Graphics, Raw, 0, 0..=0, ["dcl_function_table"];
    DclInterfacePtr = 315, "7.18", Graphics, Raw, 0, 0..=0, ["dcl_interface_ptr"];
    Fcall = 316, "7.18", Graphics, SrcLabel, 0, 1..=1, ["fcall"];
    UBitInsert = 317, "7.9", Cs, Operands, 1, 4..=4, ["ubit_insert"];
    Bufinfo = 318, "7.6", Tex, Operands, 1, 0..=0, ["bufinfo"];
    Fetch4C = 319, "7.6", Tex, Operands, 1, 2..=2, ["fetch4c"];
    Fetch4Po = 320, "7.6", Tex, Operands, 1, 2..=2, ["fetch4po"];
    Fetch4PoC = 321, "7.6", Tex, Operands, 1, 3..=3, ["fetch4poc"];
    DMax = 322, "7.12", Cs, Operands, 1, 2..=2, ["dmax"];
    DMin = 323, "7.12", Cs, Operands, 1, 2..=2, ["dmin"];
    F2F16 = 324, "7.10", Cs, Operands, 1, 1..=1, ["f2f16"];
    F162F = 325, "7.10", Cs, Operands, 1, 1..=1, ["f162f"];
    Unpack0 = 326, "7.13", Cs, Operands, 1, 1..=1, ["unpack0"];
    Unpack1 = 327, "7.13", Cs, Operands, 1, 1..=1, ["unpack1"];
    Unpack2 = 328, "7.13", Cs, Operands, 1, 1..=1, ["unpack2"];
    Unpack3 = 329, "7.13", Cs, Operands, 1, 1..=1, ["unpack3"];
    BitAlign = 330, "7.13", Cs, Operands, 1, 3..=3, ["bitalign"];
    ByteAlign = 331, "7.13", Cs, Operands, 1, 3..=3, ["bytealign"];
    U4lerp = 332, "7.13", Cs, Operands, 1, 3..=3, ["u4lerp"];
    Sad = 333, "7.13", Cs, Operands, 1, 3..=3, ["sad"];
    SadHi = 334, "7.13", Cs, Operands, 1, 3..=3, ["sadhi"];
    Sad4 = 335, "7.13", Cs, Operands, 1, 3..=3, ["sad4"];
    F2U4 = 336, "7.13", Cs, Operands, 1, 1..=1, ["f_2_u4", "f2u4"];
    EvalSnapped = 337, "7.6", Graphics, Operands, 1, 2..=2, ["eval_snapped"];
    EvalSampleIndex = 338, "7.6", Graphics, Operands, 1, 2..=2, ["eval_sample_index"];
    EvalCentroid = 339, "7.6", Graphics, Operands, 1, 1..=1, ["eval_centroid"];
    DMov = 340, "7.12", Cs, Operands, 1, 1..=1, ["dmov"];
    DMovc = 341, "7.12", Cs, Operands, 1, 3..=3, ["dmovc"];
    DSqrt = 342, "7.12", Cs, Operands, 1, 1..=1, ["dsqrt"];
    DRcp = 343, "7.12", Cs, Operands, 1, 1..=1, ["drcp"];
    DRsq = 344, "7.12", Cs, Operands, 1, 1..=1, ["drsq"];
    Macrodef = 345, "7.19", Meta, Operands, 0, 0..=0, ["mdef"];
    Macroend = 346, "7.19", Meta, Operands, 0, 0..=0, ["mend"];
    Macrocall = 347, "7.19", Meta, Raw, 0, 0..=0, ["mcall"];
    DclStream = 348, "7.5", Graphics, Numbers, 0, 0..=0, ["dcl_stream"];
    DclGlobalFlags = 349, "7.5", Cs, Words, 0, 0..=0, ["dcl_global_flags"];
    RcpVec = 350, "B", Cs, Operands, 1, 1..=1, ["rcp_vec"];
    LoadFptr = 351, "7.6", Graphics, Operands, 1, 1..=1, ["load_fptr"];
    DclMaxThreadPerGroup = 352, "7.5", Cs, Numbers, 0, 0..=0, ["dcl_max_thread_per_group"];
    Prefix = 353, "7.3", Cs, Operands, 0, 0..=0, ["prefix"];
    DclGds = 354, "7.17", Cs, Numbers, 0, 0..=0, ["dcl_gds"];
    DclStructGds = 355, "7.17", Cs, Numbers, 0, 0..=0, ["dcl_struct_gds"];
    GdsLoad = 356, "7.17", Cs, Operands, 1, 1..=1, ["gds_load"];
    GdsStore = 357, "7.17", Cs, Operands, 0, 2..=2, ["gds_store"];
    GdsAdd = 358, "7.17", Cs, Operands, 0, 2..=2, ["gds_add"];
    GdsSub = 359, "7.17", Cs, Operands, 0, 2..=2, ["gds_sub"];
    GdsRsub = 360, "7.17", Cs, Operands, 0, 2..=2, ["gds_rsub"];
    GdsInc = 361, "7.17", Cs, Operands, 0, 2..=2, ["gds_inc"];
    GdsDec = 362, "7.17", Cs, Operands, 0, 2..=2, ["gds_dec"];
    GdsMin = 363, "7.17", Cs, Operands, 0, 2..=2, ["gds_min"];
    GdsMax = 364, "7.17", Cs, Operands, 0, 2..=2, ["gds_max"];
    GdsUmin = 365, "7.17", Cs, Operands, 0, 2..=2, ["gds_umin"];
    GdsUmax = 366, "7.17", Cs, Operands, 0, 2..=2, ["gds_umax"];
    GdsAnd = 367, "7.17", Cs, Operands, 0, 2..=2, ["gds_and"];
    GdsOr = 368, "7.17", Cs, Operands, 0, 2..=2, ["gds_or"];
    GdsXor = 369, "7.17", Cs, Operands, 0, 2..=2, ["gds_xor"];
    GdsMskor = 370, "7.17", Cs, Operands, 0, 3..=3, ["gds_mskor"];
    GdsCmpStore = 371, "7.17", Cs, Operands, 0, 3..=3, ["gds_cmp_store"];
    GdsReadAdd = 372, "7.17", Cs, Operands, 1, 2..=2, ["gds_read_add"];
    GdsReadSub = 373, "7.17", Cs, Operands, 1, 2..=2, ["gds_read_sub"];
    GdsReadRsub = 374, "7.17", Cs, Operands, 1, 2..=2, ["gds_read_rsub"];
    GdsReadInc = 375, "7.17", Cs, Operands, 1, 2..=2, ["gds_read_inc"];
    GdsReadDec = 376, "7.17", Cs, Operands, 1, 2..=2, ["gds_read_dec"];
    GdsReadMin = 377, "7.17", Cs, Operands, 1, 2..=2, ["gds_read_min"];
    GdsReadMax = 378, "7.17", Cs, Operands, 1, 2..=2, ["gds_read_max"];
    GdsReadUmin = 379, "7.17", Cs, Operands, 1, 2..=2, ["gds_read_umin"];
    GdsReadUmax = 380, "7.17", Cs, Operands, 1, 2..=2, ["gds_read_umax"];
    GdsReadAnd = 381, "7.17", Cs, Operands, 1, 2..=2, ["gds_read_and"];
    GdsReadOr = 382, "7.17", Cs, Operands, 1, 2..=2, ["gds_read_or"];
    GdsReadXor = 383, "7.17", Cs, Operands, 1, 2..=2, ["gds_read_xor"];
    GdsReadMskor = 384, "7.17", Cs, Operands, 1, 3..=3, ["gds_read_mskor"];
    GdsReadXchg = 385, "B", Cs, Operands, 1, 2..=2, ["gds_read_xchg"];
    GdsReadCmpXchg = 386, "7.17", Cs, Operands, 1, 3..=3, ["gds_read_cmp_xchg"];
    UMad24 = 387, "7.8", Cs, Operands, 1, 3..=3, ["umad24"];
    UMul24 = 388, "7.8", Cs, Operands, 1, 2..=2, ["umul24"];
    Fma = 389, "7.11", Cs, Operands, 1, 3..=3, ["fma"];
    UavUinc = 390, "7.16", Cs, Operands, 0, 2..=2, ["uav_uinc"];
    UavUdec = 391, "7.16", Cs, Operands, 0, 2..=2, ["uav_udec"];
    IMad24 = 392, "7.7", Cs, Operands, 1, 3..=3, ["imad24"];
    IMul24 = 393, "7.7", Cs, Operands, 1, 2..=2, ["imul24"];
    UavReadUinc = 394, "7.16", Cs, Operands, 1, 2..=2, ["uav_read_uinc"];
    UavReadUdec = 395, "7.16", Cs, Operands, 1, 2..=2, ["uav_read_udec"];
    LdsLoadByte = 396, "7.16", Cs, Operands, 1, 1..=1, ["lds_load_byte"];
    LdsLoadShort = 397, "7.16", Cs, Operands, 1, 1..=1, ["lds_load_short"];
    LdsLoadUbyte = 398, "7.16", Cs, Operands, 1, 1..=1, ["lds_load_ubyte"];
    LdsLoadUshort = 399, "7.16", Cs, Operands, 1, 1..=1, ["lds_load_ushort"];
    LdsStoreByte = 400, "7.16", Cs, Operands, 0, 2..=2, ["lds_store_byte"];
    LdsStoreShort = 401, "7.16", Cs, Operands, 0, 2..=2, ["lds_store_short"];
    UavByteLoad = 402, "B", Cs, Operands, 1, 1..=1, ["uav_byte_load"];
    UavShortLoad = 403, "B", Cs, Operands, 1, 1..=1, ["uav_short_load"];
    UavUbyteLoad = 404, "B", Cs, Operands, 1, 1..=1, ["uav_ubyte_load"];
    UavUshortLoad = 405, "B", Cs, Operands, 1, 1..=1, ["uav_ushort_load"];
    UavByteStore = 406, "B", Cs, Operands, 1, 2..=2, ["uav_byte_store"];
    UavShortStore = 407, "B", Cs, Operands, 1, 2..=2, ["uav_short_store"];
    I64Add = 408, "7.7", Cs, Operands, 1, 2..=2, ["i64add"];
    I64Eq = 409, "7.7", Cs, Operands, 1, 2..=2, ["i64eq"];
    I64Ge = 410, "7.7", Cs, Operands, 1, 2..=2, ["i64ge"];
    I64Lt = 411, "7.7", Cs, Operands, 1, 2..=2, ["i64lt"];
    I64Max = 412, "7.7", Cs, Operands, 1, 2..=2, ["i64max"];
    I64Min = 413, "7.7", Cs, Operands, 1, 2..=2, ["i64min"];
    I64Ne = 414, "7.7", Cs, Operands, 1, 2..=2, ["i64ne"];
    I64Negate = 415, "7.7", Cs, Operands, 1, 1..=1, ["i64negate"];
    I64Shl = 416, "7.7", Cs, Operands, 1, 2..=2, ["i64shl"];
    I64Shr = 417, "7.7", Cs, Operands, 1, 2..=2, ["i64shr"];
    U64Ge = 418, "7.8", Cs, Operands, 1, 2..=2, ["u64ge"];
    U64Lt = 419, "7.8", Cs, Operands, 1, 2..=2, ["u64lt"];
    U64Max = 420, "7.8", Cs, Operands, 1, 2..=2, ["u64max"];
    U64Min = 421, "7.8", Cs, Operands, 1, 2..=2, ["u64min"];
    U64Shr = 422, "7.8", Cs, Operands, 1, 2..=2, ["u64shr"];
    DclTypedUav = 423, "B", Cs, Numbers, 0, 0..=0, ["dcl_typed_uav"];
    DclTypelessUav = 424, "B", Cs, Numbers, 0, 0..=0, ["dcl_typeless_uav"];
    IMul24High = 425, "7.7", Cs, Operands, 1, 2..=2, ["imul24_high"];
    UMul24High = 426, "7.8", Cs, Operands, 1, 2..=2, ["umul24_high"];
    LdsInc = 427, "7.16", Cs, Operands, 0, 2..=2, ["lds_inc"];
    LdsDec = 428, "7.16", Cs, Operands, 0, 2..=2, ["lds_dec"];
    LdsReadInc = 429, "B", Cs, Operands, 1, 2..=2, ["lds_read_inc"];
    LdsReadDec = 430, "B", Cs, Operands, 1, 2..=2, ["lds_read_dec"];
    LdsMskor = 431, "7.16", Cs, Operands, 0, 3..=3, ["lds_mskor"];
    LdsReadMskor = 432, "B", Cs, Operands, 1, 3..=3, ["lds_read_mskor"];
    F2F16Near = 433, "B", Cs, Operands, 1, 1..=1, ["f2f16_near"];
    F2F16NegInf = 434, "B", Cs, Operands, 1, 1..=1, ["f2f16_neg_inf"];
    F2F16PlusInf = 435, "B", Cs, Operands, 1, 1..=1, ["f2f16_plus_inf"];
    I64Mul = 436, "B", Cs, Operands, 1, 2..=2, ["i64mul"];
    U64Mul = 437, "B", Cs, Operands, 1, 2..=2, ["u64mul"];
    Ldexp = 438, "B", Cs, Operands, 1, 2..=2, ["ldexp"];
    FrexpExp = 439, "B", Cs, Operands, 1, 1..=1, ["frexp_exp"];
    FrexpMant = 440, "B", Cs, Operands, 1, 1..=1, ["frexp_mant"];
    DFrexpExp = 441, "B", Cs, Operands, 1, 1..=1, ["dfrexp_exp"];
    DFrexpMant = 442, "B", Cs, Operands, 1, 1..=1, ["dfrexp_mant"];
    Dtoi = 443, "B", Cs, Operands, 1, 1..=1, ["dtoi"];
    Dtou = 444, "B", Cs, Operands, 1, 1..=1, ["dtou"];
    Itod = 445, "B", Cs, Operands, 1, 1..=1, ["itod"];
    Utod = 446, "B", Cs, Operands, 1, 1..=1, ["utod"];
    FtoiRpi = 447, "B", Cs, Operands, 1, 1..=1, ["ftoi_rpi"];
    FtoiFlr = 448, "B", Cs, Operands, 1, 1..=1, ["ftoi_flr"];
    Min3 = 449, "B", Cs, Operands, 1, 3..=3, ["min3"];
    Med3 = 450, "B", Cs, Operands, 1, 3..=3, ["med3"];
    Max3 = 451, "B", Cs, Operands, 1, 3..=3, ["max3"];
    IMin3 = 452, "B", Cs, Operands, 1, 3..=3, ["imin3"];
    IMed3 = 453, "B", Cs, Operands, 1, 3..=3, ["imed3"];
    IMax3 = 454, "B", Cs, Operands, 1, 3..=3, ["imax3"];
    UMin3 = 455, "B", Cs, Operands, 1, 3..=3, ["umin3"];
    UMed3 = 456, "B", Cs, Operands, 1, 3..=3, ["umed3"];
    UMax3 = 457, "B", Cs, Operands, 1, 3..=3, ["umax3"];
    Class = 458, "B", Cs, Operands, 1, 2..=2, ["class"];
    DClass = 459, "B", Cs, Operands, 1, 2..=2, ["dclass"];
    SampleReturnCode = 460, "B", Other, Operands, 1, 1..=1, ["sample_return_code"];
    CuId = 461, "B", Cs, Operands, 1, 0..=0, ["cu_id"];
    WaveId = 462, "B", Cs, Operands, 1, 0..=0, ["wave_id"];
    I64Sub = 463, "B", Cs, Operands, 1, 2..=2, ["i64sub"];
    I64Div = 464, "B", Cs, Operands, 1, 2..=2, ["i64div"];
    U64Div = 465, "B", Cs, Operands, 1, 2..=2, ["u64div"];
    I64Mod = 466, "B", Cs, Operands, 1, 2..=2, ["i64mod"];
    U64Mod = 467, "B", Cs, Operands, 1, 2..=2, ["u64mod"];
    DclGwsThreadCount = 468, "B", Other, Numbers, 0, 0..=0, ["dcl_gws_thread_count"];
    DclSemaphore = 469, "B", Other, Numbers, 0, 0..=0, ["dcl_semaphore"];
    SemaphoreInit = 470, "B", Other, Operands, 0, 1..=1, ["semaphore_init"];
    SemaphoreSignal = 471, "B", Other, Operands, 0, 0..=0, ["semaphore_signal"];
    SemaphoreWait = 472, "B", Other, Operands, 0, 0..=0, ["semaphore_wait"];
    DivScale = 473, "B", Cs, Operands, 1, 3..=3, ["div_scale"];
    DivFmas = 474, "B", Cs, Operands, 1, 3..=3, ["div_fmas"];
    DivFixup = 475, "B", Cs, Operands, 1, 3..=3, ["div_fixup"];
    DDivScale = 476, "B", Cs, Operands, 1, 3..=3, ["ddiv_scale"];
    DDivFmas = 477, "B", Cs, Operands, 1, 3..=3, ["ddiv_fmas"];
    DDivFixup = 478, "B", Cs, Operands, 1, 3..=3, ["ddiv_fixup"];
    DTrigPreop = 479, "B", Cs, Operands, 1, 2..=2, ["dtrig_preop"];
    MsadU8 = 480, "B", Cs, Operands, 1, 3..=3, ["msad"];
    QsadU8 = 481, "B", Cs, Operands, 1, 3..=3, ["qsad"];
    MqsadU8 = 482, "B", Cs, Operands, 1, 3..=3, ["mqsad"];
}

/// Title of a guide section, e.g. `section_title("7.7") == "Integer Arithmetic Instructions"`.
pub fn section_title(section: &str) -> &'static str {
    match section {
        "7.3" => "Prefix Instruction",
        "7.4" => "Flow Control Instructions",
        "7.5" => "Declaration and Initialization Instructions",
        "7.6" => "Input/Output Instructions",
        "7.7" => "Integer Arithmetic Instructions",
        "7.8" => "Unsigned Integer Operations",
        "7.9" => "Bit Operations",
        "7.10" => "Conversion Instructions",
        "7.11" => "Floating-Point Instructions",
        "7.12" => "Double-Precision Instructions",
        "7.13" => "Multi-Media Instructions",
        "7.14" => "Miscellaneous Special Instructions",
        "7.15" => "Evergreen GPU Series Memory Controls",
        "7.16" => "LDS Instructions",
        "7.17" => "GDS Instructions",
        "7.18" => "Virtual Function / Interface Support",
        "7.19" => "Macro Processor Support",
        "B" => "Appendix B enumeration only",
        _ => "unknown section",
    }
}

/// FNV-1a over a mnemonic's bytes (usable at compile time).
const fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut i = 0;
    while i < bytes.len() {
        h ^= bytes[i] as u64;
        h = h.wrapping_mul(0x100_0000_01b3);
        i += 1;
    }
    h
}

/// Byte-string tests the compiler can evaluate, for tables built at compile time.
pub(crate) mod const_bytes {
    /// `a` equals `b`.
    pub(crate) const fn same(a: &[u8], b: &[u8]) -> bool {
        a.len() == b.len() && starts_with(a, b)
    }

    /// `m` starts with `p`.
    pub(crate) const fn starts_with(m: &[u8], p: &[u8]) -> bool {
        if m.len() < p.len() {
            return false;
        }
        let mut i = 0;
        while i < p.len() {
            if m[i] != p[i] {
                return false;
            }
            i += 1;
        }
        true
    }

    /// `m` contains `p`.
    pub(crate) const fn contains(m: &[u8], p: &[u8]) -> bool {
        let mut at = 0;
        while at + p.len() <= m.len() {
            if starts_with(m.split_at(at).1, p) {
                return true;
            }
            at += 1;
        }
        false
    }
}

/// Slots of the mnemonic index: a power of two, about twice the number of mnemonics.
const MNEMONIC_SLOTS: usize = 1024;

/// An entry names `OPCODE_TABLE[e >> 3].mnemonics[e & 7]`, plus one (0 is an empty slot).
const fn mnemonic_entry_name(e: u16) -> &'static str {
    let e = (e - 1) as usize;
    OPCODE_TABLE[e >> 3].mnemonics[e & 7]
}

/// Per opcode (by value), whether it is a declaration: a `dcl` mnemonic, `def` or `defb`.
/// Built by the compiler: every statement asks (validation, the declarations summary), and
/// comparing the mnemonic's text each time was a visible share of a large kernel's
/// validation.
static DECLARATIONS: [bool; OPCODE_TABLE.len()] = build_declarations();

const fn build_declarations() -> [bool; OPCODE_TABLE.len()] {
    let mut out = [false; OPCODE_TABLE.len()];
    let mut op = 0;
    while op < OPCODE_TABLE.len() {
        let m = OPCODE_TABLE[op].mnemonics[0].as_bytes();
        out[op] = const_bytes::starts_with(m, b"dcl")
            || matches!(OPCODE_TABLE[op].opcode, Opcode::Def | Opcode::Defb);
        op += 1;
    }
    out
}

/// Open-addressing (linear probing) index from mnemonic to opcode, built by the compiler:
/// looking up a mnemonic touches this 2 KiB table and the names it compares, where a
/// `HashMap` built on first use cost every short-lived `ilc` process a few dozen
/// microseconds and page faults. A mnemonic listed twice maps to its last opcode.
static MNEMONIC_INDEX: [u16; MNEMONIC_SLOTS] = build_mnemonic_index();

const fn build_mnemonic_index() -> [u16; MNEMONIC_SLOTS] {
    let mut slots = [0u16; MNEMONIC_SLOTS];
    let mut used = 0;
    let mut op = 0;
    while op < OPCODE_TABLE.len() {
        let names = OPCODE_TABLE[op].mnemonics;
        assert!(names.len() <= 8, "an opcode has at most 8 mnemonics");
        let mut j = 0;
        while j < names.len() {
            let name = names[j].as_bytes();
            let entry = ((op << 3) | j) as u16 + 1;
            let mut slot = fnv1a(name) as usize & (MNEMONIC_SLOTS - 1);
            loop {
                if slots[slot] == 0 {
                    slots[slot] = entry;
                    used += 1;
                    break;
                }
                if const_bytes::same(mnemonic_entry_name(slots[slot]).as_bytes(), name) {
                    slots[slot] = entry;
                    break;
                }
                slot = (slot + 1) & (MNEMONIC_SLOTS - 1);
            }
            j += 1;
        }
        op += 1;
    }
    assert!(
        used * 2 <= MNEMONIC_SLOTS,
        "the mnemonic index is over half full"
    );
    slots
}

/// The opcode spelled exactly `name`.
fn lookup_mnemonic(name: &str) -> Option<Opcode> {
    let mut slot = fnv1a(name.as_bytes()) as usize & (MNEMONIC_SLOTS - 1);
    loop {
        let e = MNEMONIC_INDEX[slot];
        if e == 0 {
            return None;
        }
        if mnemonic_entry_name(e) == name {
            return Some(OPCODES[(e as usize - 1) >> 3].opcode);
        }
        slot = (slot + 1) & (MNEMONIC_SLOTS - 1);
    }
}

/// How exactly the IL guide defines an opcode's result.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Precision {
    /// Bit-exact (IEEE-rounded or integer).
    #[default]
    Exact,
    /// Left to the implementation's precision (`rcp`, `div`, `exp`, `sqrt`, ...).
    Approximate,
    /// Approximate, and defined only for arguments in [-pi, pi] (`sin`, `cos`, `sincos`,
    /// `tan`): outside it any value is right.
    Trig,
}

impl Opcode {
    /// How exactly the guide defines this opcode's result.
    pub fn precision(self) -> Precision {
        let name = self.mnemonic();
        let base = name.split('_').next().unwrap_or(name);
        if matches!(base, "sin" | "cos" | "sincos" | "tan") {
            return Precision::Trig;
        }
        let approximate = matches!(
            base,
            "sqrt"
                | "rsq"
                | "rcp"
                | "div"
                | "exp"
                | "log"
                | "ln"
                | "pow"
                | "asin"
                | "acos"
                | "atan"
                | "exn"
                | "nrm"
                | "len"
                | "pireduce"
                | "lit"
                | "dist"
                | "expp"
                | "logp"
        ) || matches!(
            name,
            "ddiv" | "dsqrt" | "drsq" | "drcp" | "d_div" | "d_sqrt" | "d_rsq" | "d_rcp"
        );
        if approximate {
            Precision::Approximate
        } else {
            Precision::Exact
        }
    }

    /// The static description of this opcode.
    pub fn info(self) -> &'static OpcodeInfo {
        // The table is dense and in value order (checked by a unit test), so the
        // discriminant is the index.
        &OPCODES[self as usize]
    }

    /// The opcode with binary value `code`, if any.
    pub fn from_code(code: u16) -> Option<Opcode> {
        OPCODES.get(code as usize).map(|i| i.opcode)
    }

    /// Binary `ILOpCode` value.
    pub fn code(self) -> u16 {
        self as u16
    }

    /// Look up a mnemonic (without control suffixes), ignoring ASCII case.
    pub fn from_mnemonic(name: &str) -> Option<Opcode> {
        if let Some(op) = lookup_mnemonic(name) {
            return Some(op);
        }
        if name.len() > 64 || !name.bytes().any(|b| b.is_ascii_uppercase()) {
            return None;
        }
        let lower = name.to_ascii_lowercase();
        lookup_mnemonic(&lower)
    }

    /// Canonical text mnemonic.
    pub fn mnemonic(self) -> &'static str {
        self.info().mnemonics[0]
    }

    /// Guide section, e.g. `"7.7"`.
    pub fn section(self) -> &'static str {
        self.info().section
    }

    /// Text operand layout.
    pub fn form(self) -> Form {
        self.info().form
    }

    /// True when compute kernels may use this opcode.
    pub fn compute_relevant(self) -> bool {
        self.info().usage.compute_relevant()
    }

    /// True for declarations (`dcl_*` and the SM30 `dcl*` forms, `def`, `defb`).
    pub fn is_declaration(self) -> bool {
        // The table is dense and in value order, as for `info`.
        DECLARATIONS[self as usize]
    }
}

impl std::fmt::Display for Opcode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.mnemonic())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_dense_and_ordered() {
        for (i, info) in OPCODES.iter().enumerate() {
            assert_eq!(info.code as usize, i, "{:?}", info.opcode);
            assert_eq!(info.opcode as usize, i);
            assert!(info.srcs_min <= info.srcs_max);
        }
    }

    /// The table of declarations says what the mnemonics say.
    #[test]
    fn declarations_are_the_dcl_mnemonics_def_and_defb() {
        for info in OPCODES {
            let op = info.opcode;
            let by_text =
                op.mnemonic().starts_with("dcl") || matches!(op, Opcode::Def | Opcode::Defb);
            assert_eq!(op.is_declaration(), by_text, "{op:?}");
        }
        assert!(Opcode::DclLiteral.is_declaration() && Opcode::Defb.is_declaration());
        assert!(!Opcode::Mov.is_declaration() && !Opcode::Func.is_declaration());
    }

    #[test]
    fn chapter7_has_413_distinct_opcodes() {
        let ch7 = OPCODES.iter().filter(|i| i.section != "B").count();
        assert_eq!(ch7, 413);
        // IAND and AND are one opcode listed twice: 414 documented entries.
        let entries: usize = OPCODES
            .iter()
            .filter(|i| i.section != "B")
            .map(|i| if i.opcode == Opcode::And { 2 } else { 1 })
            .sum();
        assert_eq!(entries, 414);
    }

    #[test]
    fn mova_fix_shifts_values_from_72() {
        assert_eq!(Opcode::Mov.code(), 71);
        assert_eq!(Opcode::Mova.code(), 72);
        assert_eq!(Opcode::Mul.code(), 73);
        assert_eq!(Opcode::IAdd.code(), 145);
        assert_eq!(Opcode::UavRawLoad.code(), 225);
        assert_eq!(Opcode::MqsadU8.code(), 482);
    }

    #[test]
    fn mnemonics_unique_and_case_insensitive() {
        let mut seen = std::collections::HashSet::new();
        for info in OPCODES {
            for mn in info.mnemonics {
                assert!(seen.insert(*mn), "duplicate mnemonic {mn}");
                assert_eq!(Opcode::from_mnemonic(mn), Some(info.opcode));
                assert_eq!(Opcode::from_mnemonic(&mn.to_uppercase()), Some(info.opcode));
            }
        }
        assert_eq!(Opcode::from_mnemonic("iand"), Some(Opcode::And));
        assert_eq!(
            Opcode::from_mnemonic("Dcl_Num_Thread_Per_Blk"),
            Some(Opcode::DclNumThreadPerGroup)
        );
        assert_eq!(Opcode::from_mnemonic("bogus"), None);
    }

    #[test]
    fn sections_and_usage() {
        assert_eq!(Opcode::IAdd.section(), "7.7");
        assert_eq!(
            section_title(Opcode::IAdd.section()),
            "Integer Arithmetic Instructions"
        );
        assert!(Opcode::UavRawLoad.compute_relevant());
        assert!(!Opcode::Texld.compute_relevant());
        assert_eq!(Opcode::DclTypelessUav.section(), "B");
        assert_eq!(Opcode::from_code(0xFFFF), None);
    }
}
