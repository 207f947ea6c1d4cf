//! The AMD IL abstract syntax tree shared by the text parser, the binary decoder, the printer,
//! the validator, the interpreter and the IL -> IR lowering.
//!
//! A [`Program`] is an optional version line plus the instructions in source order. Every
//! instruction, declarations included, is an [`Instruction`]: an [`Opcode`], its control
//! specifiers ([`Control`]), destination and source operands, and for declarations and a few
//! flow-control opcodes a typed [`Payload`] (literal values, label, case value, sizes).
//!
//! Invariants the producers (parser, decoder) guarantee:
//! - Instruction-level destination modifiers (`_sat`, `_x2` .. `_d8`) are stored on the first
//!   destination operand when the instruction has one, otherwise kept as [`Control::Sat`] /
//!   [`Control::Shift`].
//! - Register aliases are normalized (`vaTid` -> [`RegKind::AbsThreadIdFlat`], `vTid` ->
//!   [`RegKind::ThreadIdInGroupFlat`], `vTGroupid` -> [`RegKind::ThreadGroupIdFlat`], the
//!   optional `0` suffix dropped), so consumers match on [`RegKind`] only.
//! - Source swizzles are always four selectors, write masks always four components: the short
//!   text forms are expanded by the parser.
//!
//! Spans are informational: two programs compare equal ignoring spans ([`Span`]'s `PartialEq`
//! is always true) so that print -> parse round trips can be checked with `==`.

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

use std::fmt;

use smallvec::SmallVec;

use crate::opcodes::Opcode;

/// A source location: byte range plus 1-based line and column of its start.
#[derive(Clone, Copy, Debug, Default)]
pub struct Span {
    /// Byte offset of the first byte.
    pub start: u32,
    /// Byte offset one past the last byte.
    pub end: u32,
    /// 1-based line number (0 when unknown, e.g. decoded from binary).
    pub line: u32,
    /// 1-based column (in bytes) of the first byte.
    pub col: u32,
}

impl Span {
    /// A span for synthesized nodes (no source).
    pub const NONE: Span = Span {
        start: 0,
        end: 0,
        line: 0,
        col: 0,
    };
}

impl PartialEq for Span {
    /// Spans never make two AST nodes differ: equality of ASTs is structural.
    fn eq(&self, _other: &Span) -> bool {
        true
    }
}
impl Eq for Span {}

/// Shader type of the version line (`il_cs`, `il_ps`, ...), binary `IL_Shader_Type`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShaderType {
    /// `il_vs`
    Vertex,
    /// `il_ps`
    Pixel,
    /// `il_gs`
    Geometry,
    /// `il_cs`
    Compute,
    /// `il_hs`
    Hull,
    /// `il_ds`
    Domain,
}

impl ShaderType {
    /// Text prefix after `il_`.
    pub fn name(self) -> &'static str {
        match self {
            ShaderType::Vertex => "vs",
            ShaderType::Pixel => "ps",
            ShaderType::Geometry => "gs",
            ShaderType::Compute => "cs",
            ShaderType::Hull => "hs",
            ShaderType::Domain => "ds",
        }
    }
    /// Binary `IL_Shader_Type` value.
    pub fn code(self) -> u8 {
        match self {
            ShaderType::Vertex => 0,
            ShaderType::Pixel => 1,
            ShaderType::Geometry => 2,
            ShaderType::Compute => 3,
            ShaderType::Hull => 4,
            ShaderType::Domain => 5,
        }
    }
    /// From the binary value.
    pub fn from_code(code: u8) -> Option<ShaderType> {
        Some(match code {
            0 => ShaderType::Vertex,
            1 => ShaderType::Pixel,
            2 => ShaderType::Geometry,
            3 => ShaderType::Compute,
            4 => ShaderType::Hull,
            5 => ShaderType::Domain,
            _ => return None,
        })
    }
}

/// The version line: `il_cs_2_0`, `il_ps_2_0`, `il_cs` (no version), `il_cs_2`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Version {
    /// Shader type.
    pub shader: ShaderType,
    /// Major version, if written.
    pub major: Option<u8>,
    /// Minor version, if written.
    pub minor: Option<u8>,
    /// `_mp` multipass bit.
    pub multipass: bool,
    /// `_rt` realtime bit.
    pub realtime: bool,
    /// Where the version line is.
    pub span: Span,
}

/// A whole IL program (one kernel with its functions).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Program {
    /// The version line, if present.
    pub version: Option<Version>,
    /// Instructions (declarations included) in source order.
    pub statements: Vec<Instruction>,
    /// `;ARGSTART` .. `;ARGEND` metadata blocks, kept for tools; they do not change meaning.
    pub metadata: Vec<MetadataBlock>,
}

/// A `;ARGSTART:name` .. `;ARGEND:name` comment block of LLVM AMDIL output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MetadataBlock {
    /// Index in [`Program::statements`] of the statement that follows the block.
    pub before_statement: usize,
    /// The comment lines, without the leading `;`, including the ARGSTART/ARGEND lines.
    pub lines: Vec<String>,
    /// Where the block is.
    pub span: Span,
}

/// One shape of `mmul`'s matrix (guide L7091): each written component `k < rows` of the
/// result is the dot product of `len` components of src0 with row `k` of the matrix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MatrixShape {
    /// The text form inside `_matrix(..)`.
    pub name: &'static str,
    /// Components in each dot product.
    pub len: usize,
    /// Rows read, one per result component from x.
    pub rows: usize,
}

/// The `ILMatrix` enumeration in value order (guide L10867-10873): the binary control field
/// of `mmul` is an index into this table.
pub const MATRIX_SHAPES: [MatrixShape; 5] = [
    MatrixShape {
        name: "4x4",
        len: 4,
        rows: 4,
    },
    MatrixShape {
        name: "4x3",
        len: 4,
        rows: 3,
    },
    MatrixShape {
        name: "3x4",
        len: 3,
        rows: 4,
    },
    MatrixShape {
        name: "3x3",
        len: 3,
        rows: 3,
    },
    MatrixShape {
        name: "3x2",
        len: 3,
        rows: 2,
    },
];

/// One instruction or declaration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Instruction {
    /// The opcode.
    pub opcode: Opcode,
    /// Control specifiers in source order (`_id(1)`, `_relop(ge)`, `_ieee`, ...).
    pub controls: Controls,
    /// Destination operands (0 or 1 for almost every opcode), inline.
    pub dsts: SmallVec<[DstOperand; 1]>,
    /// Source operands; up to two inline. A million statements live until lowering ends:
    /// inline operands save an allocation and its header per statement (a two-source ALU
    /// statement costs 280 bytes instead of 336).
    pub srcs: SmallVec<[SrcOperand; 2]>,
    /// Opcode-specific extra data (labels, literal values, declaration sizes).
    pub payload: Payload,
    /// Where the instruction is.
    pub span: Span,
}

impl Instruction {
    /// A bare instruction with no controls, operands or payload.
    pub fn new(opcode: Opcode) -> Instruction {
        Instruction {
            opcode,
            controls: Controls::default(),
            dsts: SmallVec::new(),
            srcs: SmallVec::new(),
            payload: Payload::None,
            span: Span::NONE,
        }
    }

    /// The registers of the operands: the destinations', then the sources' (index
    /// registers not included).
    pub fn regs(&self) -> impl Iterator<Item = &RegRef> {
        self.dsts
            .iter()
            .map(|d| &d.reg)
            .chain(self.srcs.iter().map(|s| &s.reg))
    }

    /// The `_id(n)` control (UAV, LDS, GDS, SRV, append buffer, resource declaration id).
    pub fn id(&self) -> Option<u32> {
        self.controls.iter().find_map(|c| match c {
            Control::Id(n) => Some(*n),
            _ => None,
        })
    }

    /// The `_resource(n)` control.
    pub fn resource(&self) -> Option<u32> {
        self.controls.iter().find_map(|c| match c {
            Control::Resource(n) => Some(*n),
            _ => None,
        })
    }

    /// The `_sampler(n)` control.
    pub fn sampler(&self) -> Option<u32> {
        self.controls.iter().find_map(|c| match c {
            Control::Sampler(n) => Some(*n),
            _ => None,
        })
    }

    /// The `_relop(op)` control.
    pub fn relop(&self) -> Option<RelOp> {
        self.controls.iter().find_map(|c| match c {
            Control::Relop(r) => Some(*r),
            _ => None,
        })
    }

    /// The value `cmp` compares with (its `_cmpval(..)` control; 0.0 without one).
    pub fn cmp_value(&self) -> f32 {
        self.controls
            .iter()
            .find_map(|c| match c {
                Control::CmpVal(v) => Some(v.value()),
                _ => None,
            })
            .unwrap_or(0.0)
    }

    /// The `_matrix(..)` control of `mmul` as its `ILMatrix` value (guide Table 6.16 and the
    /// enumeration at L10867): an index into [`MATRIX_SHAPES`]. No control is `4x4`, the
    /// enumeration's zero; `Err` names an unknown shape.
    pub fn matrix(&self) -> Result<usize, String> {
        match self.generic("matrix") {
            None => Ok(0),
            Some(v) => {
                let v = v.unwrap_or("");
                MATRIX_SHAPES
                    .iter()
                    .position(|s| s.name.eq_ignore_ascii_case(v))
                    .ok_or_else(|| format!("unknown matrix shape `_matrix({v})`"))
            }
        }
    }

    /// The `_zeroop(op)` control.
    pub fn zeroop(&self) -> Option<ZeroOp> {
        self.controls.iter().find_map(|c| match c {
            Control::ZeroOp(z) => Some(*z),
            _ => None,
        })
    }

    /// True when `_ieee` is present.
    pub fn ieee(&self) -> bool {
        self.controls.contains(&Control::Ieee)
    }

    /// True when the given fence flag is present.
    pub fn has_fence(&self, flag: FenceFlag) -> bool {
        self.controls.contains(&Control::Fence(flag))
    }

    /// A generic control by (lower-case) name: `Some(None)` for `_name`, `Some(Some(v))` for
    /// `_name(v)`, `None` when absent.
    pub fn generic(&self, name: &str) -> Option<Option<&str>> {
        self.controls.iter().find_map(|c| match c {
            Control::Generic { name: n, value, .. } if n.eq_ignore_ascii_case(name) => {
                Some(value.as_deref())
            }
            _ => None,
        })
    }

    /// True when the control `c` is present.
    pub fn has(&self, c: &Control) -> bool {
        self.controls.contains(c)
    }

    /// For `dcl_num_thread_per_group` / `dcl_total_num_thread_group`: the three dimensions,
    /// missing ones set to 1.
    pub fn dims3(&self) -> Option<[u32; 3]> {
        match &self.payload {
            Payload::Numbers(n) if !n.is_empty() && n.len() <= 3 => {
                let mut d = [1u32; 3];
                d[..n.len()].copy_from_slice(n);
                Some(d)
            }
            _ => None,
        }
    }

    /// Accepted number of source operands: the opcode table's range, plus the two index
    /// operands (resource, sampler) of the `_ext` forms of resource instructions.
    pub fn src_count_range(&self) -> (usize, usize) {
        let info = self.opcode.info();
        let extra = if self.generic("ext").is_some() { 2 } else { 0 };
        (
            info.srcs_min as usize + extra,
            info.srcs_max as usize + extra,
        )
    }

    /// The single number of a one-number declaration (`dcl_lds_id(n) SIZE`,
    /// `dcl_struct_uav_id(n) STRIDE`, `dcl_max_thread_per_group N`, ...).
    pub fn number(&self) -> Option<u32> {
        match &self.payload {
            Payload::Numbers(n) => n.first().copied(),
            _ => None,
        }
    }
}

/// Opcode-specific data that is not an operand. Boxed slices, not `Vec`s, keep it (and
/// every statement) 8 bytes smaller.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub enum Payload {
    /// Nothing.
    #[default]
    None,
    /// Function label of `func`, `call`, `call_logicalnz`, `dcl_function_body`.
    Label(u32),
    /// Case value of `case` (32-bit, printed signed).
    Case(i32),
    /// `dcl_literal lN, x, y, z, w`: register number and the four raw 32-bit words.
    Literal {
        /// Literal register number N of `lN`.
        reg: u32,
        /// Raw bits of x, y, z, w.
        values: [u32; 4],
    },
    /// `dcl_cb cbN[size]`: buffer number and size in 16-byte elements.
    ConstBuffer {
        /// Buffer number N.
        cb: u32,
        /// Number of vec4 elements.
        size: u32,
    },
    /// Immediate constant buffer data (binary `dcl_cb` with a primary modifier), in dwords.
    ImmConstBuffer(Box<[u32]>),
    /// `dcl_indexed_temp_array xN[size]`.
    IndexedTemp {
        /// Array number N.
        reg: u32,
        /// Number of vec4 elements.
        size: u32,
    },
    /// Numbers after the mnemonic: thread counts (`64, 1, 1`), LDS/GDS size in bytes,
    /// structure stride (and count), `dcl_max_thread_per_group`, ... Floats are stored as
    /// their IEEE bits.
    Numbers(Box<[u32]>),
    /// Words after the mnemonic (`dcl_global_flags refactoringAllowed`), as written.
    Words(Box<[String]>),
    /// Text to the end of the line for forms this crate does not model (macro calls,
    /// function tables), trimmed.
    Raw(Box<str>),
}

/// A control specifier written as `_name` or `_name(value)` after the mnemonic.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Control {
    /// `_ieee`: IEEE rules for 0 * x (default: legacy DX9 0 * x = 0).
    Ieee,
    /// `_relop(op)`.
    Relop(RelOp),
    /// `_zeroop(op)`.
    ZeroOp(ZeroOp),
    /// `_cmpval(v)` of `cmp`.
    CmpVal(CmpVal),
    /// `_id(n)`.
    Id(u32),
    /// `_resource(n)`.
    Resource(u32),
    /// `_sampler(n)`.
    Sampler(u32),
    /// `_stride(n)` (typeless UAV declarations).
    Stride(u32),
    /// `_lOffset(n)` of `lds_write_vec`.
    LOffset(u32),
    /// `_cached`.
    Cached,
    /// `_uncached`.
    Uncached,
    /// `_fmtx(f)` .. `_fmtw(f)`: component (0..3) and element format.
    Fmt(u8, ElementFormat),
    /// A fence flag (`_threads`, `_lds`, `_memory`, `_gds`, `_sr`, `_mem_write_only`, ...).
    Fence(FenceFlag),
    /// `_sat` on an instruction without destination operand.
    Sat,
    /// Shift scale (`_x2` .. `_d8`) on an instruction without destination operand.
    Shift(ShiftScale),
    /// `_prec` / `_prec(mask)` (PREFIX): precise bits for x, y, z, w.
    Prec(u8),
    /// Any other `_name` or `_name(value)`: name and value lower-cased.
    Generic {
        /// Control name without the underscore.
        name: String,
        /// Text inside the parentheses, if any.
        value: Option<String>,
        /// Where the control is, `_name(value)` (NONE when decoded from binary or
        /// synthesized); informational like every span.
        span: Span,
    },
}

/// Fence flags of `fence` (binary control bits 16..22).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FenceFlag {
    /// `_threads`: work-group execution barrier.
    Threads,
    /// `_lds`.
    Lds,
    /// `_memory` (also written `_mem`).
    Memory,
    /// `_sr`.
    Sr,
    /// `_mem_write_only`.
    MemWriteOnly,
    /// `_mem_read_only`.
    MemReadOnly,
    /// `_gds`.
    Gds,
}

impl FenceFlag {
    /// All flags in binary bit order (bit 16 upwards).
    pub const ALL: [FenceFlag; 7] = [
        FenceFlag::Threads,
        FenceFlag::Lds,
        FenceFlag::Memory,
        FenceFlag::Sr,
        FenceFlag::MemWriteOnly,
        FenceFlag::MemReadOnly,
        FenceFlag::Gds,
    ];
    /// Text name.
    pub fn name(self) -> &'static str {
        match self {
            FenceFlag::Threads => "threads",
            FenceFlag::Lds => "lds",
            FenceFlag::Memory => "memory",
            FenceFlag::Sr => "sr",
            FenceFlag::MemWriteOnly => "mem_write_only",
            FenceFlag::MemReadOnly => "mem_read_only",
            FenceFlag::Gds => "gds",
        }
    }
}

/// `ILRelOp`, binary values NE 0 .. LT 5.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RelOp {
    /// `ne`
    Ne,
    /// `eq`
    Eq,
    /// `ge`
    Ge,
    /// `gt`
    Gt,
    /// `le`
    Le,
    /// `lt`
    Lt,
}

impl RelOp {
    /// All values in binary order.
    pub const ALL: [RelOp; 6] = [
        RelOp::Ne,
        RelOp::Eq,
        RelOp::Ge,
        RelOp::Gt,
        RelOp::Le,
        RelOp::Lt,
    ];
    /// Text name.
    pub fn name(self) -> &'static str {
        ["ne", "eq", "ge", "gt", "le", "lt"][self as usize]
    }
}

/// `ILZeroOp`: result of divide/log/rsq by zero. Binary values FLTMAX 0 .. INF_ELSE_MAX 3.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ZeroOp {
    /// `fltmax` (the default).
    FltMax,
    /// `zero`
    Zero,
    /// `infinity`
    Infinity,
    /// `inf_else_max`
    InfElseMax,
}

impl ZeroOp {
    /// All values in binary order.
    pub const ALL: [ZeroOp; 4] = [
        ZeroOp::FltMax,
        ZeroOp::Zero,
        ZeroOp::Infinity,
        ZeroOp::InfElseMax,
    ];
    /// Text name.
    pub fn name(self) -> &'static str {
        ["fltmax", "zero", "infinity", "inf_else_max"][self as usize]
    }
}

/// `ILCmpValue` of `cmp`: 0.0, 0.5, 1.0, -0.5, -1.0 (binary 0..4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpVal {
    /// 0.0
    Zero,
    /// 0.5
    Half,
    /// 1.0
    One,
    /// -0.5
    NegHalf,
    /// -1.0
    NegOne,
}

impl CmpVal {
    /// All values in binary order.
    pub const ALL: [CmpVal; 5] = [
        CmpVal::Zero,
        CmpVal::Half,
        CmpVal::One,
        CmpVal::NegHalf,
        CmpVal::NegOne,
    ];
    /// Text form.
    pub fn name(self) -> &'static str {
        ["0.0", "0.5", "1.0", "-0.5", "-1.0"][self as usize]
    }
    /// The value as f32.
    pub fn value(self) -> f32 {
        [0.0, 0.5, 1.0, -0.5, -1.0][self as usize]
    }
}

/// `ILElementFormat` of resource/UAV declarations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ElementFormat {
    /// `unknown`
    Unknown,
    /// `snorm`
    Snorm,
    /// `unorm`
    Unorm,
    /// `sint`
    Sint,
    /// `uint`
    Uint,
    /// `float`
    Float,
    /// `srgb`
    Srgb,
    /// `mixed`
    Mixed,
}

impl ElementFormat {
    /// All values in binary order.
    pub const ALL: [ElementFormat; 8] = [
        ElementFormat::Unknown,
        ElementFormat::Snorm,
        ElementFormat::Unorm,
        ElementFormat::Sint,
        ElementFormat::Uint,
        ElementFormat::Float,
        ElementFormat::Srgb,
        ElementFormat::Mixed,
    ];
    /// Text name.
    pub fn name(self) -> &'static str {
        [
            "unknown", "snorm", "unorm", "sint", "uint", "float", "srgb", "mixed",
        ][self as usize]
    }
}

/// `ILShiftScale` destination modifier.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum ShiftScale {
    /// No scaling.
    #[default]
    None,
    /// `_x2`
    X2,
    /// `_x4`
    X4,
    /// `_x8`
    X8,
    /// `_d2`
    D2,
    /// `_d4`
    D4,
    /// `_d8`
    D8,
}

impl ShiftScale {
    /// All values in binary order.
    pub const ALL: [ShiftScale; 7] = [
        ShiftScale::None,
        ShiftScale::X2,
        ShiftScale::X4,
        ShiftScale::X8,
        ShiftScale::D2,
        ShiftScale::D4,
        ShiftScale::D8,
    ];
    /// Text name without underscore (`""` for none).
    pub fn name(self) -> &'static str {
        ["", "x2", "x4", "x8", "d2", "d4", "d8"][self as usize]
    }
    /// The multiplier applied to the result.
    pub fn factor(self) -> f32 {
        [1.0, 2.0, 4.0, 8.0, 0.5, 0.25, 0.125][self as usize]
    }
}

/// Register kinds (`ILRegType`) with their text names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RegKind {
    /// `r#`
    Temp,
    /// `l#`
    Literal,
    /// `cb#[..]`
    ConstBuffer,
    /// `icb[..]`
    ImmConstBuffer,
    /// `x#[..]`
    IndexedTemp,
    /// `g[..]`
    Global,
    /// `v#` (DX10 input)
    Input,
    /// `o#` (DX10 output)
    Output,
    /// `mem` (carries the write mask of stores)
    GenericMem,
    /// `vTidInGrp` (3-D id in group)
    ThreadIdInGroup,
    /// `vTidInGrpFlat`, alias `vTid`
    ThreadIdInGroupFlat,
    /// `vAbsTid` (3-D global id)
    AbsThreadId,
    /// `vAbsTidFlat`, alias `vaTid`
    AbsThreadIdFlat,
    /// `vThreadGrpId` (3-D group id)
    ThreadGroupId,
    /// `vThreadGrpIdFlat`, alias `vTGroupid`
    ThreadGroupIdFlat,
    /// `vWinCoord` (pixel position; used by pixel-shader compute)
    WinCoord,
    /// `Tmr` (64-bit timer)
    Timer,
    /// `sr#` (shared registers)
    SharedTemp,
    /// `this[..]`
    This,
    /// `in#` (macro input)
    InputArg,
    /// `out#` (macro output)
    OutputArg,
    /// `b#` (SM30 boolean constant)
    ConstBool,
    /// `c#` (SM30 float constant)
    ConstFloat,
    /// `i#` (SM30 integer constant)
    ConstInt,
    /// `a0` (SM30 address register)
    Addr,
    /// `vFace`
    Face,
    /// `vPrim`
    VPrim,
    /// `oDepth`
    Depth,
    /// `p[..]` persistent
    Persist,
}

impl RegKind {
    /// Every kind.
    pub const ALL: [RegKind; 29] = [
        RegKind::Temp,
        RegKind::Literal,
        RegKind::ConstBuffer,
        RegKind::ImmConstBuffer,
        RegKind::IndexedTemp,
        RegKind::Global,
        RegKind::Input,
        RegKind::Output,
        RegKind::GenericMem,
        RegKind::ThreadIdInGroup,
        RegKind::ThreadIdInGroupFlat,
        RegKind::AbsThreadId,
        RegKind::AbsThreadIdFlat,
        RegKind::ThreadGroupId,
        RegKind::ThreadGroupIdFlat,
        RegKind::WinCoord,
        RegKind::Timer,
        RegKind::SharedTemp,
        RegKind::This,
        RegKind::InputArg,
        RegKind::OutputArg,
        RegKind::ConstBool,
        RegKind::ConstFloat,
        RegKind::ConstInt,
        RegKind::Addr,
        RegKind::Face,
        RegKind::VPrim,
        RegKind::Depth,
        RegKind::Persist,
    ];

    /// Canonical text name (prefix before the number for numbered kinds).
    pub fn name(self) -> &'static str {
        match self {
            RegKind::Temp => "r",
            RegKind::Literal => "l",
            RegKind::ConstBuffer => "cb",
            RegKind::ImmConstBuffer => "icb",
            RegKind::IndexedTemp => "x",
            RegKind::Global => "g",
            RegKind::Input => "v",
            RegKind::Output => "o",
            RegKind::GenericMem => "mem",
            RegKind::ThreadIdInGroup => "vTidInGrp",
            RegKind::ThreadIdInGroupFlat => "vTidInGrpFlat",
            RegKind::AbsThreadId => "vAbsTid",
            RegKind::AbsThreadIdFlat => "vAbsTidFlat",
            RegKind::ThreadGroupId => "vThreadGrpId",
            RegKind::ThreadGroupIdFlat => "vThreadGrpIdFlat",
            RegKind::WinCoord => "vWinCoord",
            RegKind::Timer => "Tmr",
            RegKind::SharedTemp => "sr",
            RegKind::This => "this",
            RegKind::InputArg => "in",
            RegKind::OutputArg => "out",
            RegKind::ConstBool => "b",
            RegKind::ConstFloat => "c",
            RegKind::ConstInt => "i",
            RegKind::Addr => "a",
            RegKind::Face => "vFace",
            RegKind::VPrim => "vPrim",
            RegKind::Depth => "oDepth",
            RegKind::Persist => "p",
        }
    }

    /// True when the text form carries a register number (`r12`); false for named
    /// registers (`vAbsTid`, `g`, `icb`, `Tmr`, `mem` whose number is optional).
    pub fn is_numbered(self) -> bool {
        matches!(
            self,
            RegKind::Temp
                | RegKind::Literal
                | RegKind::ConstBuffer
                | RegKind::IndexedTemp
                | RegKind::Input
                | RegKind::Output
                | RegKind::SharedTemp
                | RegKind::InputArg
                | RegKind::OutputArg
                | RegKind::ConstBool
                | RegKind::ConstFloat
                | RegKind::ConstInt
                | RegKind::Addr
        )
    }

    /// Binary `ILRegType` value.
    pub fn code(self) -> u8 {
        match self {
            RegKind::ConstBool => 0,
            RegKind::ConstFloat => 1,
            RegKind::ConstInt => 2,
            RegKind::Addr => 3,
            RegKind::Temp => 4,
            RegKind::Face => 21,
            RegKind::WinCoord => 22,
            RegKind::VPrim => 29,
            RegKind::IndexedTemp => 30,
            RegKind::ConstBuffer => 31,
            RegKind::Literal => 32,
            RegKind::Input => 33,
            RegKind::Output => 34,
            RegKind::ImmConstBuffer => 35,
            RegKind::Persist => 37,
            RegKind::Global => 38,
            RegKind::SharedTemp => 40,
            RegKind::ThreadIdInGroup => 41,
            RegKind::ThreadIdInGroupFlat => 42,
            RegKind::AbsThreadId => 43,
            RegKind::AbsThreadIdFlat => 44,
            RegKind::ThreadGroupId => 45,
            RegKind::ThreadGroupIdFlat => 46,
            RegKind::GenericMem => 47,
            RegKind::This => 54,
            RegKind::Timer => 59,
            RegKind::InputArg => 61,
            RegKind::OutputArg => 62,
            RegKind::Depth => 26,
        }
    }

    /// From the binary `ILRegType` value.
    pub fn from_code(code: u8) -> Option<RegKind> {
        RegKind::ALL.iter().copied().find(|k| k.code() == code)
    }

    /// Number of meaningful components (1 for the flat ids, 3 for the 3-D ids, 2 for Tmr).
    pub fn components(self) -> u8 {
        match self {
            RegKind::ThreadIdInGroupFlat
            | RegKind::AbsThreadIdFlat
            | RegKind::ThreadGroupIdFlat
            | RegKind::ConstBool
            | RegKind::Addr
            | RegKind::Face
            | RegKind::VPrim
            | RegKind::Depth => 1,
            RegKind::ThreadIdInGroup | RegKind::AbsThreadId | RegKind::ThreadGroupId => 3,
            RegKind::Timer => 2,
            _ => 4,
        }
    }

    /// True for the compute system-value registers (thread and group ids).
    pub fn is_thread_id(self) -> bool {
        matches!(
            self,
            RegKind::ThreadIdInGroup
                | RegKind::ThreadIdInGroupFlat
                | RegKind::AbsThreadId
                | RegKind::AbsThreadIdFlat
                | RegKind::ThreadGroupId
                | RegKind::ThreadGroupIdFlat
        )
    }
}

/// A vector component x, y, z, w.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Component {
    /// x (0)
    X,
    /// y (1)
    Y,
    /// z (2)
    Z,
    /// w (3)
    W,
}

impl Component {
    /// All four in order.
    pub const ALL: [Component; 4] = [Component::X, Component::Y, Component::Z, Component::W];
    /// Index 0..3.
    pub fn index(self) -> usize {
        self as usize
    }
    /// Text letter.
    pub fn letter(self) -> char {
        ['x', 'y', 'z', 'w'][self as usize]
    }
}

/// The index register of a register-relative index: `r1.x` in `cb0[r1.x+2]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct IndexReg {
    /// Kind of the index register (normally [`RegKind::Temp`]).
    pub kind: RegKind,
    /// Its number.
    pub num: u32,
    /// The single component used.
    pub comp: Component,
}

/// One `[..]` index: an immediate, a register component, or both added.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Index {
    /// Relative register, if any.
    pub reg: Option<IndexReg>,
    /// Immediate offset (the whole index when `reg` is `None`).
    pub offset: i32,
}

/// The control specifiers of a statement, used as a slice (`Deref<Target = [Control]>`)
/// with `Vec`'s growing methods.
///
/// A boxed slice: 16 bytes per statement instead of the 24 of a `Vec`, no allocation when
/// there is no control (most statements), one of the exact size otherwise (a statement
/// rarely has more than two, so a push that reallocates costs little).
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Controls(Box<[Control]>);

impl Controls {
    /// Appends `c` (one allocation of the new size: O(n), so a list of unbounded length is
    /// collected in a `Vec` and converted once).
    pub fn push(&mut self, c: Control) {
        let mut v = Vec::with_capacity(self.0.len() + 1);
        v.extend(std::mem::take(&mut self.0).into_vec());
        v.push(c);
        self.0 = v.into_boxed_slice();
    }

    /// Removes and returns the control at `i` (panics if out of range, as `Vec::remove`;
    /// O(n) with a reallocation).
    pub fn remove(&mut self, i: usize) -> Control {
        let mut v = std::mem::take(&mut self.0).into_vec();
        let c = v.remove(i);
        self.0 = v.into_boxed_slice();
        c
    }
}

impl From<Vec<Control>> for Controls {
    fn from(v: Vec<Control>) -> Controls {
        Controls(v.into_boxed_slice())
    }
}

impl Extend<Control> for Controls {
    fn extend<I: IntoIterator<Item = Control>>(&mut self, iter: I) {
        let mut v = std::mem::take(&mut self.0).into_vec();
        v.extend(iter);
        self.0 = v.into_boxed_slice();
    }
}

impl std::ops::Deref for Controls {
    type Target = [Control];
    fn deref(&self) -> &[Control] {
        &self.0
    }
}

impl std::ops::DerefMut for Controls {
    fn deref_mut(&mut self) -> &mut [Control] {
        &mut self.0
    }
}

impl fmt::Debug for Controls {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

impl<'a> IntoIterator for &'a Controls {
    type Item = &'a Control;
    type IntoIter = std::slice::Iter<'a, Control>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl IntoIterator for Controls {
    type Item = Control;
    type IntoIter = std::vec::IntoIter<Control>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_vec().into_iter()
    }
}

/// The `[..]` indices of a register reference, used as a slice (`Deref<Target = [Index]>`).
///
/// A thin pointer, null when there is no index: every operand of the AST carries one, most
/// registers have no index, and the AST of a million-statement kernel is the peak of its
/// compile's memory (8 bytes per operand instead of the 16 of a `Box<[Index]>` or 24 of a
/// `Vec`).
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct Indices(Option<Box<IndexList>>);

/// The out-of-line part of [`Indices`]: never empty.
#[derive(Clone, PartialEq, Eq, Hash)]
struct IndexList(Box<[Index]>);

impl From<Vec<Index>> for Indices {
    fn from(v: Vec<Index>) -> Indices {
        Indices((!v.is_empty()).then(|| Box::new(IndexList(v.into_boxed_slice()))))
    }
}

impl<const N: usize> From<[Index; N]> for Indices {
    fn from(v: [Index; N]) -> Indices {
        Indices::from(Vec::from(v))
    }
}

impl std::ops::Deref for Indices {
    type Target = [Index];
    fn deref(&self) -> &[Index] {
        self.0.as_ref().map_or(&[], |l| &l.0)
    }
}

impl std::ops::DerefMut for Indices {
    fn deref_mut(&mut self) -> &mut [Index] {
        self.0.as_mut().map_or(&mut [], |l| &mut l.0)
    }
}

impl fmt::Debug for Indices {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl<'a> IntoIterator for &'a Indices {
    type Item = &'a Index;
    type IntoIter = std::slice::Iter<'a, Index>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// A register reference: kind, number, and `[..]` indices (at most two).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegRef {
    /// Register kind.
    pub kind: RegKind,
    /// Register number (`r12` -> 12, `cb1[3]` -> 1); 0 for unnumbered kinds.
    pub num: u32,
    /// Indices in order (`cb1[3]` -> one immediate index 3).
    pub indices: Indices,
}

impl RegRef {
    /// A plain numbered register, e.g. `RegRef::new(RegKind::Temp, 3)` is `r3`.
    pub fn new(kind: RegKind, num: u32) -> RegRef {
        RegRef {
            kind,
            num,
            indices: Indices::default(),
        }
    }
}

/// What a destination component receives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DstComp {
    /// Not written (`_`), binary 0.
    NoWrite,
    /// Written with the result, binary 1.
    Write,
    /// Forced to 0.0, binary 2.
    Zero,
    /// Forced to 1.0, binary 3.
    One,
}

/// A destination operand.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DstOperand {
    /// The register.
    pub reg: RegRef,
    /// Per-component write control for x, y, z, w.
    pub mask: [DstComp; 4],
    /// `_sat`: clamp to [0, 1].
    pub sat: bool,
    /// Shift scale applied before the clamp.
    pub shift: ShiftScale,
    /// Where the operand is.
    pub span: Span,
}

impl DstOperand {
    /// A destination writing all four components of `reg`.
    pub fn new(reg: RegRef) -> DstOperand {
        DstOperand {
            reg,
            mask: [DstComp::Write; 4],
            sat: false,
            shift: ShiftScale::None,
            span: Span::NONE,
        }
    }
    /// True when component `c` receives a value (written or forced).
    pub fn writes(&self, c: usize) -> bool {
        self.mask[c] != DstComp::NoWrite
    }
}

/// A source component selector: a component or a constant 0.0 / 1.0.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Swz {
    /// x
    X,
    /// y
    Y,
    /// z
    Z,
    /// w
    W,
    /// constant 0.0f
    Zero,
    /// constant 1.0f (0x3F800000, also in integer instructions)
    One,
}

impl Swz {
    /// The identity swizzle `xyzw`.
    pub const IDENTITY: [Swz; 4] = [Swz::X, Swz::Y, Swz::Z, Swz::W];
    /// Binary `ILComponentSelect` value 0..5.
    pub fn code(self) -> u8 {
        self as u8
    }
    /// From the binary value.
    pub fn from_code(code: u8) -> Option<Swz> {
        [Swz::X, Swz::Y, Swz::Z, Swz::W, Swz::Zero, Swz::One]
            .get(code as usize)
            .copied()
    }
    /// Text character.
    pub fn letter(self) -> char {
        ['x', 'y', 'z', 'w', '0', '1'][self as usize]
    }
    /// The component selected, if not a constant.
    pub fn component(self) -> Option<Component> {
        match self {
            Swz::X => Some(Component::X),
            Swz::Y => Some(Component::Y),
            Swz::Z => Some(Component::Z),
            Swz::W => Some(Component::W),
            _ => None,
        }
    }
}

/// `ILDivComp` source modifier.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum DivComp {
    /// No divide.
    #[default]
    None,
    /// Divide by y.
    Y,
    /// Divide by z.
    Z,
    /// Divide by w.
    W,
    /// Divide by an unknown component.
    Unknown,
}

impl DivComp {
    /// All values in binary order.
    pub const ALL: [DivComp; 5] = [
        DivComp::None,
        DivComp::Y,
        DivComp::Z,
        DivComp::W,
        DivComp::Unknown,
    ];
    /// Text name.
    pub fn name(self) -> &'static str {
        ["none", "y", "z", "w", "unknown"][self as usize]
    }
}

/// Source modifiers. The guide's evaluation order is swizzle, invert, bias, x2, sign,
/// divComp, abs, neg, clamp; the printer writes them in that order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct SrcMods {
    /// `_invert`: 1 - x.
    pub invert: bool,
    /// `_bias`: x - 0.5 (`_bx2` = bias + x2).
    pub bias: bool,
    /// `_x2`: 2x.
    pub x2: bool,
    /// `_sign`: -1 / 0 / 1.
    pub sign: bool,
    /// `_divComp(..)`.
    pub div_comp: DivComp,
    /// `_abs`.
    pub abs: bool,
    /// `_neg(mask)`: bit i negates post-swizzle component i.
    pub neg: u8,
    /// Clamp to [0, 1] (binary bit 24; text `_sat` on a source).
    pub clamp: bool,
}

impl SrcMods {
    /// True when no modifier is set.
    pub fn is_empty(&self) -> bool {
        *self == SrcMods::default()
    }
}

/// A source operand.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SrcOperand {
    /// The register.
    pub reg: RegRef,
    /// Component selectors (always four; short text forms are expanded).
    pub swizzle: [Swz; 4],
    /// Modifiers.
    pub mods: SrcMods,
    /// Where the operand is.
    pub span: Span,
}

impl SrcOperand {
    /// `reg` read with the identity swizzle and no modifiers.
    pub fn new(reg: RegRef) -> SrcOperand {
        SrcOperand {
            reg,
            swizzle: Swz::IDENTITY,
            mods: SrcMods::default(),
            span: Span::NONE,
        }
    }

    /// The operand `k` registers after this one, as `mmul` reads the rows of its matrix
    /// (guide L7091: "relative addressing and source modifiers of src1 are applied to each
    /// row of the matrix beginning with src1"): the same swizzle and modifiers on the
    /// register numbered `k` higher (`r4` -> `r5`, `c2` -> `c3`), or, for an indexed
    /// register, on the element `k` further (`cb0[4]` -> `cb0[5]`, `x0[r1.x + 2]` ->
    /// `x0[r1.x + 3]`). `None` for a kind without numbered rows (literals, system values).
    pub fn row(&self, k: u32) -> Option<SrcOperand> {
        let mut out = self.clone();
        if let Some(ix) = out.reg.indices.last_mut() {
            ix.offset = ix.offset.checked_add(i32::try_from(k).ok()?)?;
        } else if matches!(self.reg.kind, RegKind::Temp | RegKind::ConstFloat) {
            out.reg.num = out.reg.num.checked_add(k)?;
        } else {
            return None;
        }
        Some(out)
    }
}

#[cfg(test)]
mod size_tests {
    use super::*;

    /// A million-statement kernel's AST is the peak of its compile's memory: these sizes are
    /// what keeps it under 300 bytes per statement (a larger field should be boxed).
    #[test]
    #[cfg(target_pointer_width = "64")]
    fn statement_sizes() {
        use std::mem::size_of;
        assert_eq!(size_of::<RegRef>(), 16);
        assert_eq!(size_of::<SrcOperand>(), 48);
        assert_eq!(size_of::<DstOperand>(), 40);
        assert_eq!(size_of::<Payload>(), 24);
        assert_eq!(size_of::<Controls>(), 16);
        assert!(
            size_of::<Instruction>() <= 216,
            "{}",
            size_of::<Instruction>()
        );
    }

    #[test]
    fn thin_lists_behave_as_slices() {
        let ix = Index {
            reg: None,
            offset: 3,
        };
        assert!(Indices::from(Vec::new()).is_empty());
        assert_eq!(Indices::from(Vec::new()), Indices::default());
        let mut two = Indices::from([ix, ix]);
        two[1].offset = 4;
        assert_eq!(two.iter().map(|i| i.offset).collect::<Vec<_>>(), [3, 4]);
        assert_eq!(
            format!("{two:?}"),
            format!("{:?}", [ix, Index { offset: 4, ..ix }])
        );
        let mut c = Controls::default();
        c.push(Control::Ieee);
        c.extend([Control::Cached, Control::Id(2)]);
        assert_eq!(c.remove(1), Control::Cached);
        assert_eq!(c[..], [Control::Ieee, Control::Id(2)]);
        assert_eq!(c.clone().into_iter().count(), 2);
        assert_eq!(Controls::from(vec![Control::Ieee, Control::Id(2)]), c);
    }
}
