//! The binary IL token stream (guide chapter 2): encode a [`Program`] to 32-bit words and decode
//! words back into the same AST.
//!
//! Stream layout: `IL_Lang`, `IL_Version`, then one packet per instruction: the opcode token
//! (code 15:0, control 29:16, secondary/primary modifier flags 30/31), then the destination
//! token set(s), the source token sets, and opcode-specific extra dwords (labels, case values,
//! literal words, declaration numbers). A register token set is the `IL_Dst`/`IL_Src` token,
//! an extension dword when the register number exceeds 16 bits, its modifier token when
//! flagged, then its index: a register-relative index is a nested source token set for the
//! index register followed by the immediate dword when flagged; an immediate index is one
//! dword. A second index (`dimension` bit) follows as a nested token describing it.
//!
//! Control fields use the guide's per-opcode layouts (relop, zeroop, ieee, ids, fence bits,
//! resource/sampler, thread-group dimension counts, ...); `_prec` becomes a `PREFIX` token.
//! What the guide gives no binary form for (generic controls such as `_stride(4)`, words and
//! raw payloads, explicit default-valued controls, fewer sources than the table's maximum) is
//! carried losslessly in a `COMMENT` packet whose text starts with `ilc-ext`, which AMD's
//! tools ignore as a comment and [`decode`] applies to the following instruction.
//!
//! Guarantees: [`decode`] never panics on any word sequence and reports errors with the word
//! offset; for every program that [`encode`] accepts, `decode(encode(p)) == normalize(p)`
//! where [`normalize`] drops what the binary form does not keep (spans, metadata blocks,
//! control order, a missing version number).

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

use crate::ast::*;
use crate::diag::{codes, Diagnostic};
use crate::opcodes::{const_bytes, Form, Opcode, OPCODE_TABLE};

mod decode;
mod encode;
#[cfg(test)]
mod tests;

use decode::canonical_flag;
pub use decode::decode;
pub use encode::encode;

/// `IL_Lang` client type written for a shader type: the DX11 language of that stage, as
/// AMD's own tools write it (`IL_LANG_DX11_CS` = 12 for compute).
fn lang_for(shader: ShaderType) -> u32 {
    match shader {
        ShaderType::Pixel => 9,
        ShaderType::Vertex => 10,
        ShaderType::Geometry => 11,
        ShaderType::Compute => 12,
        ShaderType::Hull => 13,
        ShaderType::Domain => 14,
    }
}

/// `ILPixTexUsage` names as written in `_type(..)`, in enum order.
const PIXTEX: [&str; 14] = [
    "unknown",
    "1d",
    "2d",
    "3d",
    "cubemap",
    "2dmsaa",
    "4comp",
    "buffer",
    "1darray",
    "2darray",
    "2darraymsaa",
    "2dplusw",
    "cubemapplusw",
    "cubemaparray",
];

/// `_type(t[,unnorm])` -> (ILPixTexUsage, unnorm).
fn pixtex(v: &str) -> Option<(u32, bool)> {
    let mut parts = v.split(',');
    let first = parts.next()?.trim();
    let t = PIXTEX.iter().position(|n| n.eq_ignore_ascii_case(first))? as u32;
    let unnorm = match parts.next().map(str::trim) {
        None => false,
        Some(u) if u.eq_ignore_ascii_case("unnorm") => true,
        Some(_) => return None,
    };
    if parts.next().is_some() {
        return None;
    }
    Some((t, unnorm))
}

fn pixtex_text(t: u32, unnorm: bool) -> String {
    let name = PIXTEX.get(t as usize).copied().unwrap_or("unknown");
    if unnorm {
        format!("{name},unnorm")
    } else {
        name.to_string()
    }
}
/// Marker text of extension comments.
const EXT_MARK: &str = "ilc-ext";

/// A decoding error at a word offset.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("word {offset}: {message}")]
pub struct DecodeError {
    /// Index of the offending word.
    pub offset: usize,
    /// What is wrong.
    pub message: String,
}

impl DecodeError {
    /// As a diagnostic (line 0; `span.start` holds the word offset).
    pub fn to_diagnostic(&self) -> Diagnostic {
        let span = Span {
            start: self.offset as u32,
            end: self.offset as u32 + 1,
            line: 0,
            col: 0,
        };
        Diagnostic::error(
            codes::BINARY,
            span,
            format!("binary word {}: {}", self.offset, self.message),
        )
    }
}

/// An encoding error: the instruction cannot be represented.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct EncodeError {
    /// Index of the statement in the program.
    pub statement: usize,
    /// Where it is in the source.
    pub span: Span,
    /// What is wrong.
    pub message: String,
}

impl EncodeError {
    /// As a diagnostic.
    pub fn to_diagnostic(&self) -> Diagnostic {
        Diagnostic::error(codes::BINARY, self.span, self.message.clone())
    }
}

// ---------------------------------------------------------------------------------------------
// Control-field layouts

/// How an opcode uses the 14-bit control field.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Layout {
    None,
    Fence,
    Relop,
    Cmp,
    ZeroOp,
    Nrm,
    Ieee,
    /// Id in bits 0..13.
    Id,
    /// Id in bits 0..9, cached (1) / uncached (2) in 10..11.
    RawLoad,
    /// Id in bits 0..9, size dword 0 / short 1 / byte 2 in 10..11.
    Arena,
    /// Resource 0..7, sampler 8..11.
    Sample,
    /// Resource 0..7, `_uint` bit 8.
    ResInfo,
    /// Number of dimension dwords that follow.
    Dims,
    /// `dcl_resource`: id 0..7, type 8..11, unnorm in token bit 31, then a format dword.
    DclResource,
    /// `dcl_uav`: id 0..3, format 4..7, type 8..13.
    DclUav,
    /// The declaration's single number is the control field (no extra token).
    CtrlNumber,
    /// `dcl_typed_uav`: id in the control; one extra dword: format 0..3, type 4..7.
    TypedUav,
    /// `dcl_typeless_uav`: id in the control; two extra dwords: stride, then one more.
    TypelessUav,
    Repeat,
    FirstBit,
    Fine,
    GlobalFlags,
    /// R7xx `lds_read_vec`/`lds_write_vec`: sharing mode in 0..1 (1 = `_sharingMode(abs)`),
    /// `_neighborExch` in bit 2 (read), `_lOffset(n)` in 2..7 (write).
    OwnerLds,
    /// `dcl_lds_sharing_mode`: 0 `_wavefrontRel`, 1 `_wavefrontAbs`.
    SharingMode,
    /// `dcl_input`: import usage 0..4, interpolation mode 5..7, `_center`, `_bias`, `_invert`,
    /// `_centered` in 8..11 (guide L4026-4035).
    DclInput,
    /// `dcl_output`: the import usage is the control field (L4250).
    DclOutput,
    /// `reflect`: bit 0 is `_normalize` (L7277).
    Reflect,
    /// `mmul`: the `ILMatrix` shape (L7124), an index into [`MATRIX_SHAPES`].
    Matrix,
}

/// How `op` uses the control field: read from a table the compiler builds ([`layout_of`]
/// of every opcode), as the validator asks for every statement and the mnemonic tests cost
/// more than the rest of its question.
fn layout(op: Opcode) -> Layout {
    // The opcode table is dense and in value order, as `Opcode::info` relies on.
    LAYOUTS[op as usize]
}

static LAYOUTS: [Layout; OPCODE_TABLE.len()] = {
    let mut out = [Layout::None; OPCODE_TABLE.len()];
    let mut i = 0;
    while i < OPCODE_TABLE.len() {
        out[i] = layout_of(
            OPCODE_TABLE[i].opcode,
            OPCODE_TABLE[i].mnemonics[0].as_bytes(),
        );
        i += 1;
    }
    out
};

/// The layout of `op`, whose canonical mnemonic is `m` (evaluated by the compiler).
const fn layout_of(op: Opcode, m: &[u8]) -> Layout {
    use Opcode::*;
    match op {
        Fence => Layout::Fence,
        DclLdsSharingMode => Layout::SharingMode,
        DclInput => Layout::DclInput,
        DclOutput => Layout::DclOutput,
        DclResource => Layout::DclResource,
        DclTypedUav => Layout::TypedUav,
        DclTypelessUav => Layout::TypelessUav,
        DclUav => Layout::DclUav,
        Ifc | Breakc | Continuec | Set => Layout::Relop,
        Cmp => Layout::Cmp,
        Div | Rcp | Rsq | Ln | Log | Logp | DRcp | DRsq => Layout::ZeroOp,
        Nrm => Layout::Nrm,
        Reflect => Layout::Reflect,
        Mmul => Layout::Matrix,
        Mul | Mad | Dp2 | Dp3 | Dp4 | Dp2add | Min | Max => Layout::Ieee,
        UavRawLoad => Layout::RawLoad,
        UavArenaLoad | UavArenaStore => Layout::Arena,
        Resinfo | Sampleinfo | Samplepos => Layout::ResInfo,
        DclNumThreadPerGroup | DclTotalNumThreadGroup => Layout::Dims,
        DclLdsSizePerThread
        | DclNumInstances
        | DclMaxOutputVertexCount
        | DclStream
        | HsForkPhase
        | HsJoinPhase => Layout::CtrlNumber,
        Loop => Layout::Repeat,
        IFirstbit => Layout::FirstBit,
        Dsx | Dsy => Layout::Fine,
        DclGlobalFlags => Layout::GlobalFlags,
        _ if const_bytes::starts_with(m, b"sample")
            || const_bytes::starts_with(m, b"fetch4")
            || const_bytes::same(m, b"load")
            || const_bytes::same(m, b"bufinfo")
            || const_bytes::same(m, b"load_fptr") =>
        {
            Layout::Sample
        }
        _ if const_bytes::starts_with(m, b"uav_")
            || const_bytes::starts_with(m, b"lds_")
            || const_bytes::starts_with(m, b"gds_")
            || const_bytes::starts_with(m, b"srv_")
            || const_bytes::starts_with(m, b"append_buf")
            || (const_bytes::starts_with(m, b"dcl_")
                && (const_bytes::contains(m, b"uav")
                    || const_bytes::contains(m, b"srv")
                    || const_bytes::contains(m, b"lds_id")
                    || const_bytes::same(m, b"dcl_lds")
                    || const_bytes::contains(m, b"gds")
                    || const_bytes::same(m, b"dcl_resource")
                    || const_bytes::same(m, b"dcl_function_table")
                    || const_bytes::same(m, b"dcl_interface_ptr")))
            || const_bytes::same(m, b"dcl_struct_lds") =>
        {
            match op {
                LdsReadVec | LdsWriteVec => Layout::OwnerLds,
                DclLdsSizePerThread => Layout::None,
                _ => Layout::Id,
            }
        }
        _ => Layout::None,
    }
}

const GLOBAL_FLAGS: [&str; 4] = [
    "refactoringallowed",
    "forceearlydepthstencil",
    "enablerawstructuredbuffers",
    "enabledoubleprecisionfloatops",
];

/// Splits controls into the control-field bits and the controls that need the extension
/// comment. Errors when a value does not fit its field.
/// Control-field bits, controls for the extension comment, and for `dcl_resource` the
/// unnormalized flag and the format dword.
struct Ctl {
    bits: u32,
    ext: Vec<Control>,
    unnorm: bool,
    fmt_word: u32,
    /// Primary modifier dword (token bit 31), secondary (bit 30), address offset (control
    /// bit 13 of resource instructions); each follows the opcode token in this order.
    pri: Option<u32>,
    sec: Option<u32>,
    aoff: Option<u32>,
    /// Extra dwords after the operands (`dcl_typed_uav`, `dcl_typeless_uav`).
    tail: Vec<u32>,
}

/// `_aoffimmi(u,v,w)` texel offsets in half-texel steps, one signed byte each.
fn aoffimmi_word(v: &str) -> Option<u32> {
    let mut w = 0u32;
    let parts: Vec<&str> = v.split(',').collect();
    if parts.len() != 3 {
        return None;
    }
    for (i, p) in parts.iter().enumerate() {
        let f: f32 = p.trim().parse().ok()?;
        let h = f * 2.0;
        if h.fract() != 0.0 || !(-128.0..=127.0).contains(&h) {
            return None;
        }
        w |= ((h as i32 as i8) as u8 as u32) << (8 * i);
    }
    // Only when decoding gives back exactly this text (so the round trip is lossless).
    (aoffimmi_text(w) == v).then_some(w)
}

fn aoffimmi_text(w: u32) -> String {
    let c = |i: u32| -> String {
        let v = ((w >> (8 * i)) as u8 as i8) as f32 / 2.0;
        format!("{v}")
    };
    format!("{},{},{}", c(0), c(1), c(2))
}

/// A modifier dword written `0x..` exactly as [`hex_text`] prints it.
fn hex_word(v: &str) -> Option<u32> {
    let n = u32::from_str_radix(v.strip_prefix("0x")?, 16).ok()?;
    (hex_text(n) == v).then_some(n)
}

fn hex_text(n: u32) -> String {
    format!("0x{n:x}")
}

const COMPSELECT: [&str; 6] = ["x", "y", "z", "w", "0", "1"];

fn is_fetch4(op: Opcode) -> bool {
    op.mnemonic().starts_with("fetch4")
}

fn control_bits(inst: &Instruction) -> Result<Ctl, String> {
    let lay = layout(inst.opcode);
    let mut b = CtlBuilder {
        ctl: Ctl {
            bits: 0,
            ext: Vec::new(),
            unnorm: false,
            fmt_word: 0,
            pri: None,
            sec: None,
            aoff: None,
            tail: match lay {
                Layout::TypedUav => vec![0u32],
                Layout::TypelessUav => vec![0u32, 0],
                _ => Vec::new(),
            },
        },
        typed: false,
        stride_set: false,
        usage_set: false,
    };
    for c in &inst.controls {
        let taken = b.modifier_control(inst, lay, c)?
            || b.declaration_control(lay, c)?
            || b.operation_control(inst, lay, c)?
            || b.io_control(inst, lay, c)?
            || matches!(c, Control::Prec(_));
        if !taken {
            b.ctl.ext.push(c.clone());
        }
    }
    b.payload_bits(inst, lay)?;
    // Canonical order, so that encoding a decoded program reproduces the words.
    sort_controls(&mut b.ctl.ext);
    Ok(b.ctl)
}

/// `v` if it fits a `w`-bit control field.
fn fits(v: u32, w: u32, what: &str) -> Result<u32, String> {
    if v < (1 << w) {
        Ok(v)
    } else {
        Err(format!("{what} {v} does not fit the {w}-bit control field"))
    }
}

/// The control bits and extra words of an instruction while its controls are read, with what
/// was already set (a control that repeats one goes to the extension comment).
struct CtlBuilder {
    ctl: Ctl,
    typed: bool,
    stride_set: bool,
    usage_set: bool,
}

impl CtlBuilder {
    /// The modifier words of resource instructions (`compselect`, `aoffimmi`, `primod`,
    /// `secmod`).
    /// `Ok(false)`: not one of these controls.
    fn modifier_control(
        &mut self,
        inst: &Instruction,
        lay: Layout,
        c: &Control,
    ) -> Result<bool, String> {
        let may_pri = inst.opcode != Opcode::DclResource
            && !matches!(inst.payload, Payload::ImmConstBuffer(_));
        match (lay, c) {
            (
                Layout::Sample,
                Control::Generic {
                    name,
                    value: Some(v),
                    ..
                },
            ) if name == "compselect"
                && self.ctl.pri.is_none()
                && is_fetch4(inst.opcode)
                && COMPSELECT.contains(&v.as_str()) =>
            {
                self.ctl.pri = COMPSELECT.iter().position(|x| x == v).map(|i| i as u32);
            }
            (
                Layout::Sample,
                Control::Generic {
                    name,
                    value: Some(v),
                    ..
                },
            ) if name == "aoffimmi" && self.ctl.aoff.is_none() && aoffimmi_word(v).is_some() => {
                self.ctl.aoff = aoffimmi_word(v);
                self.ctl.bits |= 1 << 13;
            }
            (
                _,
                Control::Generic {
                    name,
                    value: Some(v),
                    ..
                },
            ) if name == "primod"
                && may_pri
                && self.ctl.pri.is_none()
                && hex_word(v).is_some()
                && !is_fetch4(inst.opcode) =>
            {
                self.ctl.pri = hex_word(v);
            }
            (
                _,
                Control::Generic {
                    name,
                    value: Some(v),
                    ..
                },
            ) if name == "secmod" && self.ctl.sec.is_none() && hex_word(v).is_some() => {
                self.ctl.sec = hex_word(v);
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// The ids, formats, types and strides of UAV and resource declarations.
    /// `Ok(false)`: not one of these controls.
    fn declaration_control(&mut self, lay: Layout, c: &Control) -> Result<bool, String> {
        match (lay, c) {
            (Layout::TypedUav | Layout::TypelessUav, Control::Id(n)) => {
                self.ctl.bits |= fits(*n, 14, "UAV id")?
            }
            (Layout::TypedUav, Control::Fmt(0, f))
                if *f != ElementFormat::Unknown && self.ctl.tail[0] & 0xF == 0 =>
            {
                self.ctl.tail[0] |= *f as u32;
            }
            (
                Layout::TypedUav,
                Control::Generic {
                    name,
                    value: Some(v),
                    ..
                },
            ) if name == "type"
                && self.ctl.tail[0] & 0xF0 == 0
                && pixtex(v).is_some_and(|(t, u)| t != 0 && !u) =>
            {
                self.ctl.tail[0] |= pixtex(v).map(|(t, _)| t).unwrap_or(0) << 4;
            }
            (Layout::TypelessUav, Control::Stride(n)) if *n != 0 && !self.stride_set => {
                self.stride_set = true;
                self.ctl.tail[0] = *n;
            }
            (
                Layout::TypelessUav,
                Control::Generic {
                    name,
                    value: Some(v),
                    ..
                },
            ) if name == "word1"
                && self.ctl.tail[1] == 0
                && hex_word(v).is_some_and(|n| n != 0) =>
            {
                self.ctl.tail[1] = hex_word(v).unwrap_or(0);
            }
            (Layout::DclResource, Control::Id(n)) => self.ctl.bits |= fits(*n, 8, "resource id")?,
            (Layout::DclUav, Control::Id(n)) => self.ctl.bits |= fits(*n, 4, "UAV id")?,
            (Layout::DclResource, Control::Fmt(k, f)) if *f != ElementFormat::Unknown => {
                self.ctl.fmt_word |= (*f as u32) << (20 + 3 * (*k as u32 & 3));
            }
            (Layout::DclUav, Control::Fmt(0, f)) if *f != ElementFormat::Unknown => {
                self.ctl.bits |= (*f as u32) << 4
            }
            (
                Layout::DclResource | Layout::DclUav,
                Control::Generic {
                    name,
                    value: Some(v),
                    ..
                },
            ) if name == "type"
                && !self.typed
                && pixtex(v)
                    .is_some_and(|(t, u)| (t != 0 || u) && !(u && lay == Layout::DclUav)) =>
            {
                let (t, u) = pixtex(v).unwrap_or((0, false));
                self.typed = true;
                self.ctl.unnorm = u;
                self.ctl.bits |= t << 8;
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// The control fields of instructions (fences, compares, ids, caching, sizes, resources,
    /// samplers, flags).
    /// `Ok(false)`: not one of these controls.
    fn operation_control(
        &mut self,
        inst: &Instruction,
        lay: Layout,
        c: &Control,
    ) -> Result<bool, String> {
        match (lay, c) {
            (Layout::Fence, Control::Fence(f)) => {
                let i = FenceFlag::ALL.iter().position(|x| x == f).unwrap_or(0);
                self.ctl.bits |= 1 << i;
            }
            (Layout::Relop | Layout::Cmp, Control::Relop(r)) => self.ctl.bits |= *r as u32,
            (Layout::Cmp, Control::CmpVal(v)) if *v as u32 != 0 => {
                self.ctl.bits |= (*v as u32) << 5
            }
            (Layout::ZeroOp | Layout::Nrm, Control::ZeroOp(z)) if *z as u32 != 0 => {
                self.ctl.bits |= *z as u32
            }
            (
                Layout::Nrm,
                Control::Generic {
                    name, value: None, ..
                },
            ) if name == "nrm4" => self.ctl.bits |= 1 << 2,
            (
                Layout::Reflect,
                Control::Generic {
                    name, value: None, ..
                },
            ) if name == "normalize" => self.ctl.bits |= 1,
            (Layout::Matrix, Control::Generic { name, .. }) if name == "matrix" => {
                self.ctl.bits |= inst.matrix()? as u32
            }
            (Layout::Ieee, Control::Ieee) => self.ctl.bits |= 1,
            (Layout::Id, Control::Id(n)) => self.ctl.bits |= fits(*n, 14, "id")?,
            (Layout::RawLoad | Layout::Arena, Control::Id(n)) => {
                self.ctl.bits |= fits(*n, 10, "id")?
            }
            (Layout::RawLoad, Control::Cached) => self.ctl.bits |= 1 << 10,
            (Layout::RawLoad, Control::Uncached) => self.ctl.bits |= 2 << 10,
            (
                Layout::Arena,
                Control::Generic {
                    name,
                    value: Some(v),
                    ..
                },
            ) if name == "size" && v != "dword" => {
                self.ctl.bits |= match v.as_str() {
                    "short" => 1 << 10,
                    "byte" => 2 << 10,
                    _ => return Err(format!("unknown arena access size `{v}`")),
                };
            }
            (Layout::Sample | Layout::ResInfo, Control::Resource(n)) => {
                self.ctl.bits |= fits(*n, 8, "resource")?
            }
            (
                Layout::Sample,
                Control::Generic {
                    name, value: None, ..
                },
            ) if name == "ext" => self.ctl.bits |= 1 << 12,
            (Layout::Sample, Control::Sampler(n)) if takes_sampler(inst.opcode) || *n != 0 => {
                self.ctl.bits |= fits(*n, 4, "sampler")? << 8
            }
            (
                Layout::ResInfo,
                Control::Generic {
                    name, value: None, ..
                },
            ) if name == "uint" => self.ctl.bits |= 1 << 8,
            (
                Layout::Repeat,
                Control::Generic {
                    name, value: None, ..
                },
            ) if name == "repeat" => self.ctl.bits |= 1,
            (
                Layout::FirstBit,
                Control::Generic {
                    name, value: None, ..
                },
            ) if name == "lo" || name == "hi" || name == "shi" => {
                self.ctl.bits |= match name.as_str() {
                    "lo" => 0,
                    "hi" => 1,
                    _ => 2,
                };
            }
            (
                Layout::Fine,
                Control::Generic {
                    name, value: None, ..
                },
            ) if name == "fine" => self.ctl.bits |= 1 << 7,
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// The usage, interpolation and flags of input and output declarations, and LDS sharing.
    /// `Ok(false)`: not one of these controls.
    fn io_control(&mut self, inst: &Instruction, lay: Layout, c: &Control) -> Result<bool, String> {
        match (lay, c) {
            (Layout::DclInput | Layout::DclOutput, Control::Generic { name, value, .. })
                if usage_of(name, value.as_deref()).is_some() && !self.usage_set =>
            {
                self.usage_set = true;
                self.ctl.bits |= usage_of(name, value.as_deref()).unwrap_or(0);
            }
            (
                Layout::DclInput,
                Control::Generic {
                    name,
                    value: Some(v),
                    ..
                },
            ) if name == "interp" && interp_mode(v).is_some() && self.ctl.bits & 0xE0 == 0 => {
                self.ctl.bits |= interp_mode(v).unwrap_or(0) << 5;
            }
            (
                Layout::DclInput,
                Control::Generic {
                    name, value: None, ..
                },
            ) if INPUT_FLAGS.contains(&name.as_str()) => {
                let i = INPUT_FLAGS.iter().position(|f| f == name).unwrap_or(0);
                self.ctl.bits |= 1 << (8 + i);
            }
            // Relative is 0, which reads back as "no sharing mode" (the declared default):
            // an explicit `_sharingMode(rel)` keeps its text in the extension comment.
            (
                Layout::OwnerLds,
                Control::Generic {
                    name,
                    value: Some(v),
                    ..
                },
            ) if name == "sharingmode"
                && v.eq_ignore_ascii_case("abs")
                && self.ctl.bits & 3 == 0 =>
            {
                self.ctl.bits |= 1
            }
            (
                Layout::OwnerLds,
                Control::Generic {
                    name, value: None, ..
                },
            ) if name == "neighborexch" && inst.opcode == Opcode::LdsReadVec => {
                self.ctl.bits |= 1 << 2
            }
            (Layout::OwnerLds, Control::LOffset(n))
                if inst.opcode == Opcode::LdsWriteVec && self.ctl.bits & 0xFC == 0 =>
            {
                self.ctl.bits |= fits(*n, 6, "lOffset")? << 2
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// The control bits that the payload gives (global flags, the sharing mode, dimensions, a
    /// declared value) and the default usage of inputs and outputs.
    fn payload_bits(&mut self, inst: &Instruction, lay: Layout) -> Result<(), String> {
        if lay == Layout::GlobalFlags {
            if let Payload::Words(ws) = &inst.payload {
                for w in ws {
                    match GLOBAL_FLAGS.iter().position(|g| g.eq_ignore_ascii_case(w)) {
                        Some(i) => self.ctl.bits |= 1 << i,
                        None => return Err(format!("unknown global flag `{w}`")),
                    }
                }
            }
        }
        if matches!(lay, Layout::DclInput | Layout::DclOutput) && !self.usage_set {
            self.ctl.bits |= default_usage(inst);
        }
        if lay == Layout::SharingMode {
            if let Payload::Words(ws) = &inst.payload {
                // Other words keep their text in the extension comment (see `encode_inst`).
                if let [w] = &ws[..] {
                    self.ctl.bits = sharing_word(w).unwrap_or(0);
                }
            }
        }
        if lay == Layout::Dims {
            if let Payload::Numbers(n) = &inst.payload {
                self.ctl.bits = n.len() as u32;
            }
        }
        if lay == Layout::CtrlNumber {
            match &inst.payload {
                Payload::Numbers(n) if n.len() == 1 => {
                    self.ctl.bits = fits(n[0], 14, "declared value")?
                }
                _ => return Err(format!("`{}` takes one number", inst.opcode)),
            }
        }
        Ok(())
    }
}

/// The control a valid instruction of this opcode must carry because its binary form always
/// encodes it (`_relop(..)`, `_id(n)`, `_resource(n)`, `_lo`/`_hi`/`_shi`), if it is missing.
pub(crate) fn missing_required_control(inst: &Instruction) -> Option<&'static str> {
    let has_generic = |names: &[&str]| {
        inst.controls.iter().any(|c| matches!(c, Control::Generic { name, value: None, .. } if names.contains(&name.as_str())))
    };
    match layout(inst.opcode) {
        Layout::Relop | Layout::Cmp if inst.relop().is_none() => Some("_relop(op)"),
        Layout::Id
        | Layout::RawLoad
        | Layout::Arena
        | Layout::DclResource
        | Layout::DclUav
        | Layout::TypedUav
        | Layout::TypelessUav
            if inst.id().is_none() =>
        {
            Some("_id(n)")
        }
        Layout::Sample | Layout::ResInfo if inst.resource().is_none() => Some("_resource(n)"),
        Layout::FirstBit if !has_generic(&["lo", "hi", "shi"]) => Some("_lo, _hi or _shi"),
        _ => None,
    }
}

/// Controls from the control field (in canonical order).
/// `ILImportUsage` values (the IL headers' enum order) by canonical text name; the guide's
/// table 6.10 lists the names without values.
const USAGES: [&str; 25] = [
    "position",
    "pointsize",
    "color",
    "backcolor",
    "fog",
    "pixel_sample_coverage",
    "generic",
    "clipdistance",
    "culldistance",
    "primitiveid",
    "vertexid",
    "instanceid",
    "isfrontface",
    "lod",
    "coloring",
    "node_coloring",
    "normal",
    "rendertarget_array_index",
    "viewport_array_index",
    "undefined",
    "sample_index",
    "edge_tessfactor",
    "inside_tessfactor",
    "detail_tessfactor",
    "density_tessfactor",
];

/// `ILInterpMode` values 1.. by canonical name (0 = not used, written as no control).
const INTERP_MODES: [&str; 7] = [
    "constant",
    "linear",
    "linear_centroid",
    "linear_noperspective",
    "linear_noperspective_centroid",
    "linear_sample",
    "linear_noperspective_sample",
];

/// `dcl_input` flags in control bits 8.. (token bits 24..27).
const INPUT_FLAGS: [&str; 4] = ["center", "bias", "invert", "centered"];

/// The usage a `dcl_input`/`dcl_output` control names: `_generic`-style or `_usage(generic)`,
/// with the guide's spellings `pos`, `pointsizesize` and `wincoord` for the same values.
fn usage_of(name: &str, value: Option<&str>) -> Option<u32> {
    let word = match (name, value) {
        ("usage", Some(v)) => v,
        (n, None) => n,
        _ => return None,
    };
    if let Ok(n) = word.parse::<u32>() {
        // A value without a name (`_usage(25)`), as decoded from a newer producer.
        return (n < 1 << 14).then_some(n);
    }
    let word = word.to_ascii_lowercase();
    let word = match word.as_str() {
        "pos" | "wincoord" => "position",
        "pointsizesize" => "pointsize",
        w => w,
    };
    USAGES.iter().position(|u| *u == word).map(|i| i as u32)
}

/// The interpolation mode `_interp(mode)` names (table 6.11's short names are accepted too).
fn interp_mode(v: &str) -> Option<u32> {
    let v = v.to_ascii_lowercase();
    let v = match v.as_str() {
        "centroid" => "linear_centroid",
        "noperspective" => "linear_noperspective",
        "noper_centroid" => "linear_noperspective_centroid",
        "sample" => "linear_sample",
        "noper_sample" => "linear_noperspective_sample",
        w => w,
    };
    if v == "notused" {
        return Some(0);
    }
    INTERP_MODES
        .iter()
        .position(|m| *m == v)
        .map(|i| i as u32 + 1)
}

/// The usage of a declaration that names none: the window position for `vWinCoord`, generic
/// otherwise (the guide: "unless using system value, must be IL_IMPORTUSAGE_GENERIC").
fn default_usage(inst: &Instruction) -> u32 {
    match inst.dsts.first().map(|d| d.reg.kind) {
        Some(RegKind::WinCoord) => 0,
        _ => 6,
    }
}

/// `dcl_input`/`dcl_output` controls in canonical form: the usage by name (the default one
/// when none is written), the interpolation mode by its long name, flags as written.
fn canonical_io_controls(inst: &mut Instruction) {
    let lay = layout(inst.opcode);
    let mut usage = None;
    let mut out = Vec::new();
    for c in std::mem::take(&mut inst.controls) {
        match &c {
            Control::Generic { name, value, .. } if usage.is_none() => {
                if let Some(u) = usage_of(name, value.as_deref()) {
                    usage = Some(u);
                    continue;
                }
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    for c in out.iter_mut() {
        if let Control::Generic {
            name,
            value: Some(v),
            ..
        } = c
        {
            if lay == Layout::DclInput && name == "interp" {
                if let Some(m) = interp_mode(v).filter(|m| *m != 0) {
                    *v = INTERP_MODES[m as usize - 1].to_string();
                }
            }
        }
    }
    out.retain(|c| {
        !matches!(c, Control::Generic { name, value: Some(v), .. }
            if lay == Layout::DclInput && name == "interp" && interp_mode(v) == Some(0))
    });
    let u = usage.unwrap_or_else(|| default_usage(inst));
    out.insert(0, usage_control(u));
    inst.controls = out.into();
}

/// How usage `u` is written: `_generic` for a one-word name, `_usage(name)` when the name has
/// underscores (they would split the mnemonic), `_usage(n)` for a value without a name.
fn usage_control(u: u32) -> Control {
    match USAGES.get(u as usize) {
        Some(n) if !n.contains('_') => Control::Generic {
            name: n.to_string(),
            value: None,
            span: Span::NONE,
        },
        Some(n) => Control::Generic {
            name: "usage".into(),
            value: Some(n.to_string()),
            span: Span::NONE,
        },
        None => Control::Generic {
            name: "usage".into(),
            value: Some(u.to_string()),
            span: Span::NONE,
        },
    }
}

/// Sampling instructions: their binary form always has a sampler (0 when none is written).
fn takes_sampler(op: Opcode) -> bool {
    let m = op.mnemonic();
    (m.starts_with("sample") && !matches!(m, "sampleinfo" | "samplepos" | "sample_return_code"))
        || m.starts_with("fetch4")
}

/// `dcl_lds_sharing_mode`'s control value for `_wavefrontRel` (0) / `_wavefrontAbs` (1).
pub(crate) fn sharing_word(w: &str) -> Option<u32> {
    match w.trim_start_matches('_').to_ascii_lowercase().as_str() {
        "wavefrontrel" => Some(0),
        "wavefrontabs" => Some(1),
        _ => None,
    }
}

fn decode_controls(op: Opcode, bits: u32) -> Vec<Control> {
    let mut v = Vec::new();
    let gen = |n: &str| Control::Generic {
        name: n.to_string(),
        value: None,
        span: Span::NONE,
    };
    match layout(op) {
        Layout::None
        | Layout::Dims
        | Layout::GlobalFlags
        | Layout::CtrlNumber
        | Layout::SharingMode => {}
        Layout::DclInput | Layout::DclOutput => {
            let mask = if layout(op) == Layout::DclInput {
                0x1F
            } else {
                0x3FFF
            };
            v.push(usage_control(bits & mask));
            if layout(op) == Layout::DclInput {
                let m = (bits >> 5) & 7;
                if m != 0 {
                    v.push(Control::Generic {
                        name: "interp".into(),
                        value: Some(INTERP_MODES[m as usize - 1].into()),
                        span: Span::NONE,
                    });
                }
                for (i, f) in INPUT_FLAGS.iter().enumerate() {
                    if bits & (1 << (8 + i)) != 0 {
                        v.push(gen(f));
                    }
                }
            }
        }
        Layout::OwnerLds => {
            if op == Opcode::LdsReadVec && bits & 4 != 0 {
                v.push(gen("neighborexch"));
            }
            if op == Opcode::LdsWriteVec && (bits >> 2) & 0x3F != 0 {
                v.push(Control::LOffset((bits >> 2) & 0x3F));
            }
            if bits & 3 == 1 {
                v.push(Control::Generic {
                    name: "sharingmode".into(),
                    value: Some("abs".into()),
                    span: Span::NONE,
                });
            }
        }
        // Their extra dwords are decoded with the operands.
        Layout::TypedUav | Layout::TypelessUav => v.push(Control::Id(bits)),
        Layout::DclResource | Layout::DclUav => {
            let res = layout(op) == Layout::DclResource;
            v.push(Control::Id(if res { bits & 0xFF } else { bits & 0xF }));
            if !res {
                let f = ((bits >> 4) & 0xF) as usize;
                if let Some(f) = ElementFormat::ALL
                    .get(f)
                    .filter(|f| **f != ElementFormat::Unknown)
                {
                    v.push(Control::Fmt(0, *f));
                }
            }
            // The type (with unnorm, from token bit 31) and dcl_resource formats are added by
            // the decoder, which sees the whole token and the format dword.
        }
        Layout::Fence => {
            for (i, f) in FenceFlag::ALL.iter().enumerate() {
                if bits & (1 << i) != 0 {
                    v.push(Control::Fence(*f));
                }
            }
        }
        Layout::Relop => v.push(Control::Relop(RelOp::ALL[(bits & 7).min(5) as usize])),
        Layout::Cmp => {
            v.push(Control::Relop(RelOp::ALL[(bits & 7).min(5) as usize]));
            let c = ((bits >> 5) & 7).min(4);
            if c != 0 {
                v.push(Control::CmpVal(CmpVal::ALL[c as usize]));
            }
        }
        Layout::Reflect => {
            if bits & 1 != 0 {
                v.push(gen("normalize"));
            }
        }
        Layout::Matrix => {
            // The shapes past the table have no text form: they decode as the default.
            if let Some(m) = MATRIX_SHAPES.get(bits as usize).filter(|_| bits != 0) {
                v.push(Control::Generic {
                    name: "matrix".into(),
                    value: Some(m.name.into()),
                    span: Span::NONE,
                });
            }
        }
        Layout::ZeroOp | Layout::Nrm => {
            if layout(op) == Layout::Nrm && bits & 4 != 0 {
                v.push(gen("nrm4"));
            }
            if bits & 3 != 0 {
                v.push(Control::ZeroOp(ZeroOp::ALL[(bits & 3) as usize]));
            }
        }
        Layout::Ieee => {
            if bits & 1 != 0 {
                v.push(Control::Ieee);
            }
        }
        Layout::Id => v.push(Control::Id(bits)),
        Layout::RawLoad | Layout::Arena => {
            v.push(Control::Id(bits & 0x3FF));
            let f = (bits >> 10) & 3;
            if layout(op) == Layout::RawLoad {
                match f {
                    1 => v.push(Control::Cached),
                    2 => v.push(Control::Uncached),
                    _ => {}
                }
            } else if f == 1 || f == 2 {
                v.push(Control::Generic {
                    name: "size".into(),
                    value: Some(if f == 1 { "short" } else { "byte" }.into()),
                    span: Span::NONE,
                });
            }
        }
        Layout::Sample => {
            v.push(Control::Resource(bits & 0xFF));
            if takes_sampler(op) || (bits >> 8) & 0xF != 0 {
                v.push(Control::Sampler((bits >> 8) & 0xF));
            }
            if bits & (1 << 12) != 0 {
                v.push(gen("ext"));
            }
        }
        Layout::ResInfo => {
            v.push(Control::Resource(bits & 0xFF));
            if bits & (1 << 8) != 0 {
                v.push(gen("uint"));
            }
        }
        Layout::Repeat => {
            if bits & 1 != 0 {
                v.push(gen("repeat"));
            }
        }
        Layout::FirstBit => v.push(gen(["lo", "hi", "shi", "lo"][(bits & 3) as usize])),
        Layout::Fine => {
            if bits & (1 << 7) != 0 {
                v.push(gen("fine"));
            }
        }
    }
    v
}

/// Canonical rank of a control, used to order controls after decoding.
fn control_rank(c: &Control) -> u32 {
    // A nameless value (`mcall(1)`) can only be written right after the mnemonic.
    if matches!(c, Control::Generic { name, .. } if name.is_empty()) {
        return 0;
    }
    1 + match c {
        Control::Id(_) => 0,
        Control::Resource(_) => 1,
        Control::Sampler(_) => 2,
        Control::Relop(_) => 3,
        Control::CmpVal(_) => 4,
        Control::ZeroOp(_) => 5,
        Control::Ieee => 6,
        Control::Cached | Control::Uncached => 7,
        Control::Fence(f) => 10 + FenceFlag::ALL.iter().position(|x| x == f).unwrap_or(0) as u32,
        Control::Stride(_) => 20,
        Control::LOffset(_) => 21,
        Control::Fmt(c, _) => 22 + *c as u32,
        Control::Sat => 30,
        Control::Shift(_) => 31,
        Control::Prec(_) => 32,
        Control::Generic { name, .. } => match name.as_str() {
            "nrm4" | "normalize" | "uint" | "lo" | "hi" | "shi" | "fine" | "repeat" | "size"
            | "ext" | "matrix" => 35,
            "compselect" => 36,
            "primod" => 37,
            "secmod" => 38,
            "aoffimmi" => 39,
            n if USAGES.contains(&n) || n == "usage" => 41,
            "interp" => 42,
            n if INPUT_FLAGS.contains(&n) => {
                43 + INPUT_FLAGS.iter().position(|f| *f == n).unwrap_or(0) as u32
            }
            _ => 40,
        },
    }
}

fn sort_controls(v: &mut [Control]) {
    v.sort_by_key(control_rank);
}

/// What the binary form keeps of a program: spans and metadata dropped, controls in canonical
/// order, a missing version completed to `il_cs_2_0` (or the written shader type with 2.0).
pub fn normalize(p: &Program) -> Program {
    let mut p = p.clone();
    p.metadata.clear();
    let v = p.version.get_or_insert(Version {
        shader: ShaderType::Compute,
        major: None,
        minor: None,
        multipass: false,
        realtime: false,
        span: Span::NONE,
    });
    if v.major.is_none() {
        v.major = Some(2);
    }
    if v.minor.is_none() {
        v.minor = Some(0);
    }
    for s in &mut p.statements {
        if matches!(layout(s.opcode), Layout::DclInput | Layout::DclOutput) {
            canonical_io_controls(s);
        }
        if takes_sampler(s.opcode) && !s.controls.iter().any(|c| matches!(c, Control::Sampler(_))) {
            s.controls.push(Control::Sampler(0));
        }
        sort_controls(&mut s.controls);
        if s.opcode == Opcode::DclGlobalFlags {
            if let Payload::Words(ws) = &mut s.payload {
                for w in ws.iter_mut() {
                    let lower = w.to_ascii_lowercase();
                    if GLOBAL_FLAGS.contains(&lower.as_str()) {
                        *w = canonical_flag(&lower).to_string();
                    }
                }
            }
        }
    }
    p
}
