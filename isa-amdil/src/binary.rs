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
use crate::opcodes::{Form, Opcode};

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
}

fn layout(op: Opcode) -> Layout {
    use Opcode::*;
    let m = op.mnemonic();
    match op {
        Fence => Layout::Fence,
        DclResource => Layout::DclResource,
        DclTypedUav => Layout::TypedUav,
        DclTypelessUav => Layout::TypelessUav,
        DclUav => Layout::DclUav,
        Ifc | Breakc | Continuec | Set => Layout::Relop,
        Cmp => Layout::Cmp,
        Div | Rcp | Rsq | Ln | Log | Logp | DRcp | DRsq => Layout::ZeroOp,
        Nrm => Layout::Nrm,
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
        _ if m.starts_with("sample")
            || m.starts_with("fetch4")
            || m == "load"
            || m == "bufinfo"
            || m == "load_fptr" =>
        {
            Layout::Sample
        }
        _ if m.starts_with("uav_")
            || m.starts_with("lds_")
            || m.starts_with("gds_")
            || m.starts_with("srv_")
            || m.starts_with("append_buf")
            || (m.starts_with("dcl_")
                && (m.contains("uav")
                    || m.contains("srv")
                    || m.contains("lds_id")
                    || m == "dcl_lds"
                    || m.contains("gds")
                    || m == "dcl_resource"
                    || m == "dcl_function_table"
                    || m == "dcl_interface_ptr"))
            || m == "dcl_struct_lds" =>
        {
            if matches!(
                op,
                LdsReadVec | LdsWriteVec | DclLdsSizePerThread | DclLdsSharingMode
            ) {
                Layout::None
            } else {
                Layout::Id
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
    let mut bits = 0u32;
    let mut ext = Vec::new();
    let mut unnorm = false;
    let mut fmt_word = 0u32;
    let mut typed = false;
    let (mut pri, mut sec, mut aoff) = (None, None, None);
    let mut tail = match lay {
        Layout::TypedUav => vec![0u32],
        Layout::TypelessUav => vec![0u32, 0],
        _ => Vec::new(),
    };
    let mut stride_set = false;
    let may_pri =
        inst.opcode != Opcode::DclResource && !matches!(inst.payload, Payload::ImmConstBuffer(_));
    let fits = |v: u32, w: u32, what: &str| -> Result<u32, String> {
        if v < (1 << w) {
            Ok(v)
        } else {
            Err(format!("{what} {v} does not fit the {w}-bit control field"))
        }
    };
    for c in &inst.controls {
        match (lay, c) {
            (
                Layout::Sample,
                Control::Generic {
                    name,
                    value: Some(v),
                },
            ) if name == "compselect"
                && pri.is_none()
                && is_fetch4(inst.opcode)
                && COMPSELECT.contains(&v.as_str()) =>
            {
                pri = COMPSELECT.iter().position(|x| x == v).map(|i| i as u32);
            }
            (
                Layout::Sample,
                Control::Generic {
                    name,
                    value: Some(v),
                },
            ) if name == "aoffimmi" && aoff.is_none() && aoffimmi_word(v).is_some() => {
                aoff = aoffimmi_word(v);
                bits |= 1 << 13;
            }
            (
                _,
                Control::Generic {
                    name,
                    value: Some(v),
                },
            ) if name == "primod"
                && may_pri
                && pri.is_none()
                && hex_word(v).is_some()
                && !is_fetch4(inst.opcode) =>
            {
                pri = hex_word(v);
            }
            (
                _,
                Control::Generic {
                    name,
                    value: Some(v),
                },
            ) if name == "secmod" && sec.is_none() && hex_word(v).is_some() => {
                sec = hex_word(v);
            }
            (Layout::TypedUav | Layout::TypelessUav, Control::Id(n)) => {
                bits |= fits(*n, 14, "UAV id")?
            }
            (Layout::TypedUav, Control::Fmt(0, f))
                if *f != ElementFormat::Unknown && tail[0] & 0xF == 0 =>
            {
                tail[0] |= *f as u32;
            }
            (
                Layout::TypedUav,
                Control::Generic {
                    name,
                    value: Some(v),
                },
            ) if name == "type"
                && tail[0] & 0xF0 == 0
                && pixtex(v).is_some_and(|(t, u)| t != 0 && !u) =>
            {
                tail[0] |= pixtex(v).map(|(t, _)| t).unwrap_or(0) << 4;
            }
            (Layout::TypelessUav, Control::Stride(n)) if *n != 0 && !stride_set => {
                stride_set = true;
                tail[0] = *n;
            }
            (
                Layout::TypelessUav,
                Control::Generic {
                    name,
                    value: Some(v),
                },
            ) if name == "word1" && tail[1] == 0 && hex_word(v).is_some_and(|n| n != 0) => {
                tail[1] = hex_word(v).unwrap_or(0);
            }
            (Layout::DclResource, Control::Id(n)) => bits |= fits(*n, 8, "resource id")?,
            (Layout::DclUav, Control::Id(n)) => bits |= fits(*n, 4, "UAV id")?,
            (Layout::DclResource, Control::Fmt(k, f)) if *f != ElementFormat::Unknown => {
                fmt_word |= (*f as u32) << (20 + 3 * (*k as u32 & 3));
            }
            (Layout::DclUav, Control::Fmt(0, f)) if *f != ElementFormat::Unknown => {
                bits |= (*f as u32) << 4
            }
            (
                Layout::DclResource | Layout::DclUav,
                Control::Generic {
                    name,
                    value: Some(v),
                },
            ) if name == "type"
                && !typed
                && pixtex(v)
                    .is_some_and(|(t, u)| (t != 0 || u) && !(u && lay == Layout::DclUav)) =>
            {
                let (t, u) = pixtex(v).unwrap_or((0, false));
                typed = true;
                unnorm = u;
                bits |= t << 8;
            }
            (Layout::Fence, Control::Fence(f)) => {
                let i = FenceFlag::ALL.iter().position(|x| x == f).unwrap_or(0);
                bits |= 1 << i;
            }
            (Layout::Relop | Layout::Cmp, Control::Relop(r)) => bits |= *r as u32,
            (Layout::Cmp, Control::CmpVal(v)) if *v as u32 != 0 => bits |= (*v as u32) << 5,
            (Layout::ZeroOp | Layout::Nrm, Control::ZeroOp(z)) if *z as u32 != 0 => {
                bits |= *z as u32
            }
            (Layout::Nrm, Control::Generic { name, value: None }) if name == "nrm4" => {
                bits |= 1 << 2
            }
            (Layout::Ieee, Control::Ieee) => bits |= 1,
            (Layout::Id, Control::Id(n)) => bits |= fits(*n, 14, "id")?,
            (Layout::RawLoad | Layout::Arena, Control::Id(n)) => bits |= fits(*n, 10, "id")?,
            (Layout::RawLoad, Control::Cached) => bits |= 1 << 10,
            (Layout::RawLoad, Control::Uncached) => bits |= 2 << 10,
            (
                Layout::Arena,
                Control::Generic {
                    name,
                    value: Some(v),
                },
            ) if name == "size" && v != "dword" => {
                bits |= match v.as_str() {
                    "short" => 1 << 10,
                    "byte" => 2 << 10,
                    _ => return Err(format!("unknown arena access size `{v}`")),
                };
            }
            (Layout::Sample | Layout::ResInfo, Control::Resource(n)) => {
                bits |= fits(*n, 8, "resource")?
            }
            (Layout::Sample, Control::Generic { name, value: None }) if name == "ext" => {
                bits |= 1 << 12
            }
            (Layout::Sample, Control::Sampler(n)) if *n != 0 => {
                bits |= fits(*n, 4, "sampler")? << 8
            }
            (Layout::ResInfo, Control::Generic { name, value: None }) if name == "uint" => {
                bits |= 1 << 8
            }
            (Layout::Repeat, Control::Generic { name, value: None }) if name == "repeat" => {
                bits |= 1
            }
            (Layout::FirstBit, Control::Generic { name, value: None })
                if name == "lo" || name == "hi" || name == "shi" =>
            {
                bits |= match name.as_str() {
                    "lo" => 0,
                    "hi" => 1,
                    _ => 2,
                };
            }
            (Layout::Fine, Control::Generic { name, value: None }) if name == "fine" => {
                bits |= 1 << 7
            }
            (_, Control::Prec(_)) => {}
            _ => ext.push(c.clone()),
        }
    }
    if lay == Layout::GlobalFlags {
        if let Payload::Words(ws) = &inst.payload {
            for w in ws {
                match GLOBAL_FLAGS.iter().position(|g| g.eq_ignore_ascii_case(w)) {
                    Some(i) => bits |= 1 << i,
                    None => return Err(format!("unknown global flag `{w}`")),
                }
            }
        }
    }
    if lay == Layout::Dims {
        if let Payload::Numbers(n) = &inst.payload {
            bits = n.len() as u32;
        }
    }
    if lay == Layout::CtrlNumber {
        match &inst.payload {
            Payload::Numbers(n) if n.len() == 1 => bits = fits(n[0], 14, "declared value")?,
            _ => return Err(format!("`{}` takes one number", inst.opcode)),
        }
    }
    // Canonical order, so that encoding a decoded program reproduces the words.
    sort_controls(&mut ext);
    Ok(Ctl {
        bits,
        ext,
        unnorm,
        fmt_word,
        pri,
        sec,
        aoff,
        tail,
    })
}

/// The control a valid instruction of this opcode must carry because its binary form always
/// encodes it (`_relop(..)`, `_id(n)`, `_resource(n)`, `_lo`/`_hi`/`_shi`), if it is missing.
pub(crate) fn missing_required_control(inst: &Instruction) -> Option<&'static str> {
    let has_generic = |names: &[&str]| {
        inst.controls.iter().any(|c| matches!(c, Control::Generic { name, value: None } if names.contains(&name.as_str())))
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
fn decode_controls(op: Opcode, bits: u32) -> Vec<Control> {
    let mut v = Vec::new();
    let gen = |n: &str| Control::Generic {
        name: n.to_string(),
        value: None,
    };
    match layout(op) {
        Layout::None | Layout::Dims | Layout::GlobalFlags | Layout::CtrlNumber => {}
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
                });
            }
        }
        Layout::Sample => {
            v.push(Control::Resource(bits & 0xFF));
            if (bits >> 8) & 0xF != 0 {
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
            "nrm4" | "uint" | "lo" | "hi" | "shi" | "fine" | "repeat" | "size" | "ext" => 35,
            "compselect" => 36,
            "primod" => 37,
            "secmod" => 38,
            "aoffimmi" => 39,
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

// ---------------------------------------------------------------------------------------------
// Encoding

/// Encodes a program. Errors for instructions with no binary form (operand counts outside the
/// opcode table, values too large for their fields).
pub fn encode(p: &Program) -> Result<Vec<u32>, Vec<EncodeError>> {
    let mut out = Vec::with_capacity(p.statements.len() * 6 + 2);
    out.push(lang_for(
        p.version
            .as_ref()
            .map(|v| v.shader)
            .unwrap_or(ShaderType::Compute),
    ));
    let (shader, major, minor, mp, rt) = match &p.version {
        Some(v) => (
            v.shader,
            v.major.unwrap_or(2),
            v.minor.unwrap_or(0),
            v.multipass,
            v.realtime,
        ),
        None => (ShaderType::Compute, 2, 0, false, false),
    };
    out.push(
        minor as u32
            | (major as u32) << 8
            | (shader.code() as u32) << 16
            | (mp as u32) << 24
            | (rt as u32) << 25,
    );
    let mut errors = Vec::new();
    for (i, inst) in p.statements.iter().enumerate() {
        if let Err(message) = encode_inst(inst, &mut out) {
            errors.push(EncodeError {
                statement: i,
                span: inst.span,
                message,
            });
        }
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

fn push_comment(out: &mut Vec<u32>, text: &str) {
    let bytes = text.as_bytes();
    let n = bytes.len().div_ceil(4);
    out.push(Opcode::Comment.code() as u32);
    out.push(n as u32);
    for chunk in bytes.chunks(4) {
        let mut w = [0u8; 4];
        w[..chunk.len()].copy_from_slice(chunk);
        out.push(u32::from_le_bytes(w));
    }
}

fn encode_inst(inst: &Instruction, out: &mut Vec<u32>) -> Result<(), String> {
    let info = inst.opcode.info();
    if inst.opcode == Opcode::Prefix {
        // In the stream a PREFIX token modifies the next instruction; the text form is `_prec`.
        return Err(
            "a standalone `prefix` has no binary form; write `_prec` on the instruction".into(),
        );
    }
    let Ctl {
        bits,
        ext: ext_controls,
        unnorm,
        fmt_word,
        pri,
        sec,
        aoff,
        tail,
    } = control_bits(inst)?;
    // Extension comment: controls without bits, payload without binary form, source count.
    let mut ext = String::new();
    for c in &ext_controls {
        ext.push_str(&c.to_string());
    }
    let mut ext_payload = false;
    match (&inst.payload, info.form) {
        (Payload::Words(_), _) if layout(inst.opcode) != Layout::GlobalFlags => ext_payload = true,
        (Payload::Raw(_), f) if f != Form::Raw || inst.opcode != Opcode::Comment => {
            ext_payload = true
        }
        _ => {}
    }
    if info.form == Form::Operands {
        if inst.dsts.len() != info.dsts as usize {
            return Err(format!(
                "`{}` takes {} destination operand(s), found {}",
                inst.opcode,
                info.dsts,
                inst.dsts.len()
            ));
        }
        let n = inst.srcs.len();
        let (lo, hi) = inst.src_count_range();
        if n < lo || n > hi {
            return Err(format!(
                "`{}` takes {lo}..={hi} source operands, found {n}",
                inst.opcode
            ));
        }
    }
    let (lo, hi) = inst.src_count_range();
    let srcs_note = lo != hi && inst.srcs.len() != hi;
    if !ext.is_empty() || ext_payload || srcs_note {
        let mut text = format!("{EXT_MARK}\n{ext}\n");
        if srcs_note {
            text.push_str(&format!("srcs={}", inst.srcs.len()));
        }
        text.push('\n');
        if ext_payload {
            let mut probe = Instruction::new(inst.opcode);
            probe.payload = inst.payload.clone();
            let printed = probe.to_string();
            text.push_str(
                printed
                    .get(inst.opcode.mnemonic().len()..)
                    .unwrap_or("")
                    .trim(),
            );
        }
        push_comment(out, &text);
    }
    if let Some(mask) = inst.controls.iter().find_map(|c| {
        if let Control::Prec(m) = c {
            Some(*m)
        } else {
            None
        }
    }) {
        out.push(Opcode::Prefix.code() as u32 | ((mask as u32 & 0xF) << 16));
    }
    let mut op = inst.opcode.code() as u32 | (bits & 0x3FFF) << 16;
    if bits >= 1 << 14 {
        return Err("control value does not fit in 14 bits".into());
    }
    let imm_cb = matches!(inst.payload, Payload::ImmConstBuffer(_));
    if imm_cb || unnorm || pri.is_some() {
        op |= 1 << 31;
    }
    if sec.is_some() {
        op |= 1 << 30;
    }
    out.push(op);
    if inst.opcode == Opcode::DclResource {
        out.push(fmt_word);
    }
    out.extend(pri.into_iter().chain(sec).chain(aoff));
    match &inst.payload {
        Payload::ImmConstBuffer(words) => {
            out.push(words.len() as u32);
            out.extend_from_slice(words);
            return Ok(());
        }
        Payload::Label(l) if info.form == Form::Label => out.push(*l),
        Payload::Case(c) => out.push(*c as u32),
        Payload::Raw(r) if inst.opcode == Opcode::Comment => {
            // The comment packet: length then text.
            out.pop();
            push_comment(out, r);
            return Ok(());
        }
        _ => {}
    }
    for d in &inst.dsts {
        encode_dst(d, out)?;
    }
    for s in &inst.srcs {
        encode_src(s, out, 0)?;
    }
    match &inst.payload {
        Payload::Label(l) if info.form == Form::SrcLabel => out.push(*l),
        Payload::Literal { reg, values } => {
            encode_reg_token(RegKind::Literal, *reg, false, &[], out)?;
            out.extend_from_slice(values);
        }
        Payload::ConstBuffer { cb, size } => {
            let ix = [Index {
                reg: None,
                offset: *size as i32,
            }];
            encode_reg_token(RegKind::ConstBuffer, *cb, false, &ix, out)?;
            encode_indices(&ix, out)?;
        }
        Payload::IndexedTemp { reg, size } => {
            let ix = [Index {
                reg: None,
                offset: *size as i32,
            }];
            encode_reg_token(RegKind::IndexedTemp, *reg, false, &ix, out)?;
            encode_indices(&ix, out)?;
        }
        Payload::Numbers(_) if layout(inst.opcode) == Layout::CtrlNumber => {}
        Payload::Numbers(ns) => {
            let expected = numbers_count(inst.opcode);
            match expected {
                Some(e) if e != ns.len() => {
                    return Err(format!(
                        "`{}` takes {e} number(s), found {}",
                        inst.opcode,
                        ns.len()
                    ));
                }
                None if ns.is_empty() || ns.len() > 3 => {
                    return Err(format!(
                        "`{}` takes 1 to 3 numbers, found {}",
                        inst.opcode,
                        ns.len()
                    ));
                }
                _ => {}
            }
            out.extend_from_slice(ns);
        }
        _ => {}
    }
    out.extend_from_slice(&tail);
    Ok(())
}

/// Fixed number of payload numbers (None = given by the control field, 1..3).
fn numbers_count(op: Opcode) -> Option<usize> {
    use Opcode::*;
    match op {
        DclNumThreadPerGroup | DclTotalNumThreadGroup => None,
        DclStructLds | DclStructGds => Some(2),
        Def => Some(4),
        DclTypelessUav | DclTypedUav => Some(0),
        _ => Some(1),
    }
}

fn reg_token(kind: RegKind, num: u32, modp: bool, indices: &[Index]) -> u32 {
    let mut t = (num & 0xFFFF) | (kind.code() as u32) << 16;
    if modp {
        t |= 1 << 22;
    }
    if let Some(first) = indices.first() {
        if first.reg.is_some() {
            t |= 2 << 23;
            if first.offset != 0 {
                t |= 1 << 26;
            }
        } else {
            t |= 1 << 26;
        }
    }
    if indices.len() > 1 {
        t |= 1 << 25;
    }
    if num > 0xFFFF {
        t |= 1 << 31;
    }
    t
}

fn encode_reg_token(
    kind: RegKind,
    num: u32,
    modp: bool,
    indices: &[Index],
    out: &mut Vec<u32>,
) -> Result<(), String> {
    if indices.len() > 2 {
        return Err("more than two indices".into());
    }
    out.push(reg_token(kind, num, modp, indices));
    if num > 0xFFFF {
        out.push(num >> 16);
    }
    Ok(())
}

/// Index data after the register's modifier token.
fn encode_indices(indices: &[Index], out: &mut Vec<u32>) -> Result<(), String> {
    if let Some(first) = indices.first() {
        encode_index_body(first, out)?;
    }
    if let Some(second) = indices.get(1) {
        // Nested descriptor token for the second index: a source-shaped token naming the
        // index register (TEMP 0 when immediate) with the same addressing bits.
        let (kind, num) = second
            .reg
            .map(|r| (r.kind, r.num))
            .unwrap_or((RegKind::Temp, 0));
        let one = [*second];
        out.push(reg_token(kind, num, false, &one) & !(1 << 31) & !0xFFFF | (num & 0xFFFF));
        if let Some(r) = second.reg {
            if r.num > 0xFFFF {
                return Err("index register number too large".into());
            }
            out.push(swizzle_mod(
                [Swz::from_code(r.comp as u8).unwrap_or(Swz::X); 4],
                &SrcMods::default(),
            ));
            if second.offset != 0 {
                out.push(second.offset as u32);
            }
        } else {
            out.push(second.offset as u32);
        }
    }
    Ok(())
}

fn encode_index_body(ix: &Index, out: &mut Vec<u32>) -> Result<(), String> {
    match ix.reg {
        Some(r) => {
            let s = SrcOperand {
                reg: RegRef::new(r.kind, r.num),
                swizzle: [Swz::from_code(r.comp as u8).unwrap_or(Swz::X); 4],
                mods: SrcMods::default(),
                span: Span::NONE,
            };
            encode_src(&s, out, 1)?;
            if ix.offset != 0 {
                out.push(ix.offset as u32);
            }
        }
        None => out.push(ix.offset as u32),
    }
    Ok(())
}

fn encode_dst(d: &DstOperand, out: &mut Vec<u32>) -> Result<(), String> {
    let modp = d.mask != [DstComp::Write; 4] || d.sat || d.shift != ShiftScale::None;
    encode_reg_token(d.reg.kind, d.reg.num, modp, &d.reg.indices, out)?;
    if modp {
        let mut m = 0u32;
        for (i, c) in d.mask.iter().enumerate() {
            m |= (*c as u32) << (2 * i);
        }
        m |= (d.sat as u32) << 8;
        m |= (d.shift as u32) << 9;
        out.push(m);
    }
    encode_indices(&d.reg.indices, out)
}

fn swizzle_mod(sw: [Swz; 4], m: &SrcMods) -> u32 {
    let mut t = 0u32;
    for (i, s) in sw.iter().enumerate() {
        t |= (s.code() as u32) << (4 * i);
        if m.neg & (1 << i) != 0 {
            t |= 1 << (4 * i + 3);
        }
    }
    t |= (m.invert as u32) << 16;
    t |= (m.bias as u32) << 17;
    t |= (m.x2 as u32) << 18;
    t |= (m.sign as u32) << 19;
    t |= (m.abs as u32) << 20;
    t |= (m.div_comp as u32) << 21;
    t |= (m.clamp as u32) << 24;
    t
}

fn encode_src(s: &SrcOperand, out: &mut Vec<u32>, depth: u32) -> Result<(), String> {
    if depth > 1 {
        return Err("nested register-relative indexing".into());
    }
    let modp = s.swizzle != Swz::IDENTITY || !s.mods.is_empty();
    encode_reg_token(s.reg.kind, s.reg.num, modp, &s.reg.indices, out)?;
    if modp {
        out.push(swizzle_mod(s.swizzle, &s.mods));
    }
    encode_indices(&s.reg.indices, out)
}

// ---------------------------------------------------------------------------------------------
// Decoding

struct Reader<'a> {
    w: &'a [u32],
    pos: usize,
}

impl Reader<'_> {
    fn next(&mut self, what: &str) -> Result<u32, DecodeError> {
        match self.w.get(self.pos) {
            Some(v) => {
                self.pos += 1;
                Ok(*v)
            }
            None => Err(DecodeError {
                offset: self.pos,
                message: format!("stream ends inside {what}"),
            }),
        }
    }
    fn err<T>(&self, at: usize, message: impl Into<String>) -> Result<T, DecodeError> {
        Err(DecodeError {
            offset: at,
            message: message.into(),
        })
    }
}

/// Pending extension data from an `ilc-ext` comment.
#[derive(Default)]
struct Ext {
    controls: Vec<Control>,
    srcs: Option<usize>,
    payload: Option<String>,
}

/// Decodes a token stream into a program.
pub fn decode(words: &[u32]) -> Result<Program, DecodeError> {
    let mut r = Reader { w: words, pos: 0 };
    let lang = r.next("the language token")?;
    if lang & 0xFF > 14 || lang >> 8 != 0 {
        return r.err(0, format!("bad IL_Lang token 0x{lang:08x}"));
    }
    let ver = r.next("the version token")?;
    let shader = match ShaderType::from_code(((ver >> 16) & 0xFF) as u8) {
        Some(s) => s,
        None => return r.err(1, format!("unknown shader type {}", (ver >> 16) & 0xFF)),
    };
    if ver >> 26 != 0 {
        return r.err(1, "reserved bits set in IL_Version token");
    }
    let mut prog = Program {
        version: Some(Version {
            shader,
            major: Some(((ver >> 8) & 0xFF) as u8),
            minor: Some((ver & 0xFF) as u8),
            multipass: ver & (1 << 24) != 0,
            realtime: ver & (1 << 25) != 0,
            span: Span::NONE,
        }),
        ..Program::default()
    };
    let mut ext: Option<Ext> = None;
    let mut prec: Option<u8> = None;
    while r.pos < words.len() {
        let at = r.pos;
        let tok = r.next("an opcode")?;
        let code = (tok & 0xFFFF) as u16;
        let op = match Opcode::from_code(code) {
            Some(op) => op,
            None => return r.err(at, format!("unknown opcode {code}")),
        };
        let bits = (tok >> 16) & 0x3FFF;
        match op {
            Opcode::Prefix => {
                prec = Some((bits & 0xF) as u8);
                continue;
            }
            Opcode::Comment => {
                let n = r.next("a comment length")? as usize;
                if n > words.len() - r.pos {
                    return r.err(at, "comment longer than the stream");
                }
                let mut bytes = Vec::with_capacity(n * 4);
                for _ in 0..n {
                    bytes.extend_from_slice(&r.next("comment text")?.to_le_bytes());
                }
                while bytes.last() == Some(&0) {
                    bytes.pop();
                }
                let text = String::from_utf8_lossy(&bytes).into_owned();
                if let Some(body) = text.strip_prefix(EXT_MARK) {
                    ext = Some(parse_ext(op, body).map_err(|m| DecodeError {
                        offset: at,
                        message: m,
                    })?);
                } else {
                    let mut inst = Instruction::new(Opcode::Comment);
                    inst.payload = Payload::Raw(text);
                    prog.statements.push(inst);
                }
                continue;
            }
            _ => {}
        }
        let mut inst = Instruction::new(op);
        inst.span = Span {
            start: at as u32,
            end: at as u32 + 1,
            line: 0,
            col: 0,
        };
        inst.controls = decode_controls(op, bits);
        let e = ext.take().unwrap_or_default();
        if let Some(m) = prec.take() {
            inst.controls.push(Control::Prec(m));
        }
        let info = op.info();
        if tok & (1 << 31) != 0 && op == Opcode::DclConstBuffer {
            let n = r.next("an immediate constant buffer length")? as usize;
            if n > words.len() - r.pos {
                return r.err(at, "immediate constant buffer longer than the stream");
            }
            let data = words[r.pos..r.pos + n].to_vec();
            r.pos += n;
            inst.payload = Payload::ImmConstBuffer(data);
            prog.statements.push(inst);
            continue;
        }
        if op == Opcode::DclResource {
            let fmt = r.next("the dcl_resource format token")?;
            if fmt & 0xF_FFFF != 0 {
                return r.err(at + 1, "reserved bits set in the dcl_resource format token");
            }
            for k in 0..4u8 {
                let f = ((fmt >> (20 + 3 * k as u32)) & 7) as usize;
                if let Some(f) = ElementFormat::ALL
                    .get(f)
                    .filter(|f| **f != ElementFormat::Unknown)
                {
                    inst.controls.push(Control::Fmt(k, *f));
                }
            }
            let t = (bits >> 8) & 0xF;
            let unnorm = tok & (1 << 31) != 0;
            if t != 0 || unnorm {
                inst.controls.push(Control::Generic {
                    name: "type".into(),
                    value: Some(pixtex_text(t, unnorm)),
                });
            }
            if t as usize >= PIXTEX.len() || tok & (1 << 30) != 0 {
                return r.err(at, "bad dcl_resource type");
            }
        } else if op == Opcode::DclUav {
            let t = (bits >> 8) & 0x3F;
            if t as usize >= PIXTEX.len() {
                return r.err(at, "bad dcl_uav type");
            }
            if t != 0 {
                inst.controls.push(Control::Generic {
                    name: "type".into(),
                    value: Some(pixtex_text(t, false)),
                });
            }
        }
        // Primary / secondary modifier dwords and the address offset of resource
        // instructions follow the opcode token, in that order.
        if tok & (1 << 31) != 0 && op != Opcode::DclResource {
            let m = r.next("a primary modifier")?;
            let c = match COMPSELECT.get(m as usize) {
                Some(name) if is_fetch4(op) => Control::Generic {
                    name: "compselect".into(),
                    value: Some((*name).into()),
                },
                _ => Control::Generic {
                    name: "primod".into(),
                    value: Some(hex_text(m)),
                },
            };
            inst.controls.push(c);
        }
        if tok & (1 << 30) != 0 {
            let m = r.next("a secondary modifier")?;
            inst.controls.push(Control::Generic {
                name: "secmod".into(),
                value: Some(hex_text(m)),
            });
        }
        if layout(op) == Layout::Sample && bits & (1 << 13) != 0 {
            let m = r.next("an address offset")?;
            inst.controls.push(Control::Generic {
                name: "aoffimmi".into(),
                value: Some(aoffimmi_text(m)),
            });
        }
        match info.form {
            Form::Label => inst.payload = Payload::Label(r.next("a label")?),
            Form::Case => inst.payload = Payload::Case(r.next("a case value")? as i32),
            _ => {}
        }
        let nsrc = match info.form {
            Form::Operands => e.srcs.unwrap_or(inst.src_count_range().1),
            Form::SrcLabel => 1,
            _ => 0,
        };
        let ndst = match info.form {
            Form::Operands | Form::DstNumbers => info.dsts as usize,
            _ => 0,
        };
        for _ in 0..ndst {
            inst.dsts.push(decode_dst(&mut r)?);
        }
        for _ in 0..nsrc {
            inst.srcs.push(decode_src(&mut r, 0)?);
        }
        match info.form {
            Form::SrcLabel => inst.payload = Payload::Label(r.next("a label")?),
            Form::Literal => {
                let t = r.pos;
                let s = decode_src(&mut r, 0)?;
                if s.reg.kind != RegKind::Literal {
                    return r.err(t, "dcl_literal without a literal register token");
                }
                let mut values = [0u32; 4];
                for v in &mut values {
                    *v = r.next("literal values")?;
                }
                inst.payload = Payload::Literal {
                    reg: s.reg.num,
                    values,
                };
            }
            Form::ConstBuffer | Form::IndexedTemp => {
                let t = r.pos;
                let s = decode_src(&mut r, 0)?;
                let size = match s.reg.indices.as_slice() {
                    [Index { reg: None, offset }] => *offset as u32,
                    _ => return r.err(t, "declaration register needs an immediate size"),
                };
                inst.payload = if info.form == Form::ConstBuffer {
                    Payload::ConstBuffer {
                        cb: s.reg.num,
                        size,
                    }
                } else {
                    Payload::IndexedTemp {
                        reg: s.reg.num,
                        size,
                    }
                };
            }
            Form::Numbers if layout(op) == Layout::CtrlNumber => {
                inst.payload = Payload::Numbers(vec![bits])
            }
            Form::Numbers | Form::DstNumbers => {
                let n = match numbers_count(op) {
                    Some(n) => n,
                    None => (bits as usize).clamp(1, 3),
                };
                let mut ns = Vec::with_capacity(n);
                for _ in 0..n {
                    ns.push(r.next("declaration numbers")?);
                }
                inst.payload = Payload::Numbers(ns);
            }
            Form::Words if layout(op) != Layout::GlobalFlags => {
                inst.payload = Payload::Words(Vec::new())
            }
            Form::Words => {
                let words: Vec<String> = GLOBAL_FLAGS
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| bits & (1 << i) != 0)
                    .map(|(_, g)| canonical_flag(g).to_string())
                    .collect();
                inst.payload = Payload::Words(words);
            }
            _ => {}
        }
        match layout(op) {
            Layout::TypedUav => {
                let t = r.next("the dcl_typed_uav format token")?;
                let (f, ty) = ((t & 0xF) as usize, ((t >> 4) & 0xF) as usize);
                if t >> 8 != 0 || f >= ElementFormat::ALL.len() || ty >= PIXTEX.len() {
                    return r.err(r.pos - 1, "bad dcl_typed_uav format token");
                }
                if f != 0 {
                    inst.controls.push(Control::Fmt(0, ElementFormat::ALL[f]));
                }
                if ty != 0 {
                    inst.controls.push(Control::Generic {
                        name: "type".into(),
                        value: Some(pixtex_text(ty as u32, false)),
                    });
                }
            }
            Layout::TypelessUav => {
                let stride = r.next("the dcl_typeless_uav stride")?;
                let w1 = r.next("the dcl_typeless_uav second token")?;
                if stride != 0 {
                    inst.controls.push(Control::Stride(stride));
                }
                if w1 != 0 {
                    inst.controls.push(Control::Generic {
                        name: "word1".into(),
                        value: Some(hex_text(w1)),
                    });
                }
            }
            _ => {}
        }
        inst.controls.extend(e.controls);
        if let Some(p) = e.payload {
            inst.payload = parse_payload(op, &p).map_err(|m| DecodeError {
                offset: at,
                message: m,
            })?;
        }
        sort_controls(&mut inst.controls);
        prog.statements.push(inst);
    }
    Ok(prog)
}

fn canonical_flag(lower: &str) -> &'static str {
    match lower {
        "refactoringallowed" => "refactoringAllowed",
        "forceearlydepthstencil" => "forceEarlyDepthStencil",
        "enablerawstructuredbuffers" => "enableRawStructuredBuffers",
        _ => "enableDoublePrecisionFloatOps",
    }
}

/// Parses the body of an `ilc-ext` comment: controls line, `srcs=N` line, payload line.
fn parse_ext(_op: Opcode, body: &str) -> Result<Ext, String> {
    let mut lines = body.split('\n').skip(1);
    let ctrl = lines.next().unwrap_or("");
    let srcs = lines.next().unwrap_or("");
    let payload = lines.next().unwrap_or("");
    let mut e = Ext::default();
    if !ctrl.is_empty() {
        // Reuse the text parser on a `nop` line carrying the controls.
        let (p, d) = crate::parser::parse(&format!("nop{ctrl}\n"));
        match p {
            Some(p) if d.is_empty() && p.statements.len() == 1 => {
                e.controls = p.statements[0].controls.clone()
            }
            _ => return Err(format!("malformed extension controls `{ctrl}`")),
        }
    }
    if let Some(n) = srcs.strip_prefix("srcs=") {
        e.srcs = Some(
            n.parse()
                .map_err(|_| "malformed extension source count".to_string())?,
        );
        if e.srcs.unwrap_or(0) > 8 {
            return Err("extension source count too large".into());
        }
    }
    if !payload.is_empty() {
        e.payload = Some(payload.to_string());
    }
    Ok(e)
}

fn parse_payload(op: Opcode, text: &str) -> Result<Payload, String> {
    let (p, _) = crate::parser::parse(&format!("{} {}\n", op.mnemonic(), text));
    match p {
        Some(p) if p.statements.len() == 1 => Ok(p.statements[0].payload.clone()),
        _ => Err(format!("malformed extension payload `{text}`")),
    }
}

struct RawReg {
    kind: RegKind,
    num: u32,
    modp: bool,
    rel: u32,
    dim: bool,
    imm: bool,
}

fn decode_reg_token(r: &mut Reader) -> Result<RawReg, DecodeError> {
    let at = r.pos;
    let t = r.next("a register token")?;
    let code = ((t >> 16) & 0x3F) as u8;
    let kind = match RegKind::from_code(code) {
        Some(k) => k,
        None => return r.err(at, format!("unsupported register type {code}")),
    };
    if t & (0xF << 27) != 0 {
        return r.err(at, "reserved bits set in register token");
    }
    let mut num = t & 0xFFFF;
    if t & (1 << 31) != 0 {
        let hi = r.next("a register number extension")?;
        if hi > 0xFFFF {
            return r.err(at + 1, "register number extension too large");
        }
        num |= hi << 16;
    }
    if num != 0 && !kind.is_numbered() && kind != RegKind::GenericMem {
        return r.err(
            at,
            format!("register number {num} on `{}`, which has none", kind.name()),
        );
    }
    let rel = (t >> 23) & 3;
    if rel == 1 || rel == 3 {
        return r.err(
            at,
            "relative addressing mode 1 (IL_Rel_Addr, SM30) is not supported",
        );
    }
    Ok(RawReg {
        kind,
        num,
        modp: t & (1 << 22) != 0,
        rel,
        dim: t & (1 << 25) != 0,
        imm: t & (1 << 26) != 0,
    })
}

fn decode_indices(r: &mut Reader, raw: &RawReg, depth: u32) -> Result<Vec<Index>, DecodeError> {
    let mut ix = Vec::new();
    if raw.rel == 2 {
        if depth > 0 {
            return r.err(r.pos, "nested register-relative indexing");
        }
        let at = r.pos;
        let s = decode_src(r, depth + 1)?;
        if !s.reg.indices.is_empty() {
            return r.err(at, "index register is itself indexed");
        }
        let comp = s.swizzle[0].component().unwrap_or(Component::X);
        let offset = if raw.imm {
            r.next("an index offset")? as i32
        } else {
            0
        };
        ix.push(Index {
            reg: Some(IndexReg {
                kind: s.reg.kind,
                num: s.reg.num,
                comp,
            }),
            offset,
        });
    } else if raw.imm {
        ix.push(Index {
            reg: None,
            offset: r.next("an immediate index")? as i32,
        });
    }
    if raw.dim {
        if ix.is_empty() {
            return r.err(r.pos, "second index without a first");
        }
        let at = r.pos;
        let t = r.next("a second index token")?;
        let rel = (t >> 23) & 3;
        if rel == 2 {
            let kind = match RegKind::from_code(((t >> 16) & 0x3F) as u8) {
                Some(k) => k,
                None => return r.err(at, "bad index register type"),
            };
            let m = r.next("an index modifier")?;
            let comp = Swz::from_code((m & 7) as u8)
                .and_then(Swz::component)
                .unwrap_or(Component::X);
            let offset = if t & (1 << 26) != 0 {
                r.next("an index offset")? as i32
            } else {
                0
            };
            ix.push(Index {
                reg: Some(IndexReg {
                    kind,
                    num: t & 0xFFFF,
                    comp,
                }),
                offset,
            });
        } else if rel == 0 {
            ix.push(Index {
                reg: None,
                offset: r.next("an immediate index")? as i32,
            });
        } else {
            return r.err(at, "unsupported second-index addressing");
        }
    }
    Ok(ix)
}

fn decode_dst(r: &mut Reader) -> Result<DstOperand, DecodeError> {
    let raw = decode_reg_token(r)?;
    let mut d = DstOperand::new(RegRef::new(raw.kind, raw.num));
    if raw.modp {
        let at = r.pos;
        let m = r.next("a destination modifier")?;
        if m >> 13 != 0 {
            return r.err(at, "reserved bits set in destination modifier");
        }
        for (i, c) in d.mask.iter_mut().enumerate() {
            *c = [
                DstComp::NoWrite,
                DstComp::Write,
                DstComp::Zero,
                DstComp::One,
            ][((m >> (2 * i)) & 3) as usize];
        }
        d.sat = m & (1 << 8) != 0;
        d.shift = match ShiftScale::ALL.get(((m >> 9) & 0xF) as usize) {
            Some(s) => *s,
            None => return r.err(at, "bad shift scale"),
        };
    }
    d.reg.indices = decode_indices(r, &raw, 0)?;
    Ok(d)
}

fn decode_src(r: &mut Reader, depth: u32) -> Result<SrcOperand, DecodeError> {
    let raw = decode_reg_token(r)?;
    let mut s = SrcOperand::new(RegRef::new(raw.kind, raw.num));
    if raw.modp {
        let at = r.pos;
        let m = r.next("a source modifier")?;
        if m >> 25 != 0 {
            return r.err(at, "reserved bits set in source modifier");
        }
        for i in 0..4 {
            s.swizzle[i] = match Swz::from_code(((m >> (4 * i)) & 7) as u8) {
                Some(x) => x,
                None => return r.err(at, "bad component select"),
            };
            if m & (1 << (4 * i + 3)) != 0 {
                s.mods.neg |= 1 << i;
            }
        }
        s.mods.invert = m & (1 << 16) != 0;
        s.mods.bias = m & (1 << 17) != 0;
        s.mods.x2 = m & (1 << 18) != 0;
        s.mods.sign = m & (1 << 19) != 0;
        s.mods.abs = m & (1 << 20) != 0;
        s.mods.div_comp = match DivComp::ALL.get(((m >> 21) & 7) as usize) {
            Some(d) => *d,
            None => return r.err(at, "bad divComp"),
        };
        s.mods.clamp = m & (1 << 24) != 0;
    }
    s.reg.indices = decode_indices(r, &raw, depth)?;
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse;

    fn rt(src: &str) -> Vec<u32> {
        let (p, d) = parse(src);
        assert!(d.iter().all(|d| !d.is_error()), "{d:?}");
        let p = p.unwrap();
        let words = encode(&p).unwrap();
        let back = decode(&words).unwrap();
        assert_eq!(back, normalize(&p), "{}", normalize(&p));
        assert_eq!(back.to_string(), normalize(&p).to_string());
        words
    }

    #[test]
    fn header_and_simple_ops() {
        let w = rt("il_cs_2_0\nmov r1, r2\nend\n");
        assert_eq!(w[0], 12); // IL_LANG_DX11_CS
        assert_eq!(w[1], 0x0003_0200);
        assert_eq!(w[2], 71);
        assert_eq!(w[3], 4 << 16 | 1);
        assert_eq!(w[4], 4 << 16 | 2);
        assert_eq!(w[5], 40);
    }

    #[test]
    fn guide_example_itemp() {
        // `mov r0, x5[6].y` : ITEMP #5, immediate 6, swizzle yyyy.
        let w = rt("il_cs_2_0\nmov r0, x5[6].y\n");
        assert_eq!(&w[4..7], &[30 << 16 | 1 << 22 | 1 << 26 | 5, 0x1111, 6]);
    }

    #[test]
    fn guide_example_register_relative_constant_buffer() {
        // `cb0[r1.x+5]`: CONST_BUFF #0, relative_address = 2, immediate present; then the index
        // register r1 with a modifier selecting .xxxx; then the immediate 5.
        let w = rt("il_cs_2_0\nmov r0, cb0[r1.x+5]\n");
        assert_eq!(
            &w[4..8],
            &[
                31 << 16 | 2 << 23 | 1 << 26,
                4 << 16 | 1 << 22 | 1,
                0x0000,
                5
            ]
        );
    }

    #[test]
    fn relative_index_and_modifiers() {
        rt("il_cs_2_0\nadd_x2_sat r0.x_z0, cb0[r1.y+5].x000_neg(x)_abs, x1[r2.w]_bx2_divcomp(y)\n");
        rt("il_cs\nmov r70000, r1\nmov r0, cb0[r1.x+2][r3.z-4]\nmov r1, v1[2][3]\n");
    }

    #[test]
    fn payloads_and_controls() {
        rt("il_cs_2_0\ndcl_num_thread_per_group 64, 2\ndcl_literal l3, 1.0, 2, 3, 4\ndcl_cb cb2[16]\n\
            dcl_lds_id(3) 1024\ndcl_struct_lds_id(1) 16, 8\ndcl_global_flags refactoringAllowed\n\
            uav_raw_load_id(11)_cached r0, r1.x\nfence_threads_lds_memory\nifc_relop(lt) r0.x, r1.x\nendif\n\
            func 3\ncall_logicalnz r0.x, 3\ncase -5\ncmp_relop(ne)_cmpval(0.0) r0, r1, r2, r3\n\
            div_zeroop(fltmax)_prec(xy) r0, r1, r2\ndcl_typeless_uav_id(12)_stride(4)_length(4)_access(read_write)\n\
            dcl_lds_sharing_mode _wavefrontRel\nbufinfo_resource(0)_uav r11\nmcall(1) (r0), (r1)\nffb_shi r0, r1\n");
    }

    #[test]
    fn resource_and_typed_uav_declarations_use_the_guide_layout() {
        let w = rt("il_ps_2_0\ndcl_resource_id(3)_type(2d, unnorm)_fmtx(float)_fmty(uint)_fmtz(sint)_fmtw(unorm)\n");
        assert_eq!(w[0], 9); // IL_LANG_DX11_PS
        assert_eq!(
            w[2],
            Opcode::DclResource.code() as u32 | (3 | 2 << 8) << 16 | 1 << 31
        );
        assert_eq!(w[3], 5 << 20 | 4 << 23 | 3 << 26 | 2 << 29);
        let w = rt("il_cs_2_0\ndcl_uav_id(11)_type(buffer)_fmtx(uint)\n");
        assert_eq!(
            w[2],
            Opcode::DclUav.code() as u32 | (11 | 4 << 4 | 7 << 8) << 16
        );
        // Forms without a binary field survive through the extension comment.
        rt("il_cs_2_0\ndcl_uav_id(1)_type(weird)_fmtx(unknown)\ndcl_resource_id(0)\n");
    }

    #[test]
    fn modifier_dwords_and_address_offsets() {
        // Primary modifier (bit 31) then the address offset (control bit 13) follow the opcode.
        let w = rt(
            "il_cs_2_0\nfetch4_resource(1)_sampler(2)_compselect(y)_aoffimmi(1,-0.5,0) r0, r1\n",
        );
        assert_eq!(
            w[2],
            Opcode::Fetch4.code() as u32 | (1 | 2 << 8 | 1 << 13) << 16 | 1 << 31
        );
        assert_eq!(&w[3..5], &[1, 2 | 0xFF << 8]);
        let w = rt("il_cs_2_0\nsrv_struct_load_id(2)_primod(0x4e) r0, r1.xy\n");
        assert_eq!(
            &w[2..4],
            &[
                Opcode::SrvStructLoad.code() as u32 | 2 << 16 | 1 << 31,
                0x4e
            ]
        );
        // A spelling that does not round-trip exactly stays in the extension comment.
        rt("il_cs_2_0\nload_resource(0)_aoffimmi(1.0,0,0) r0, r1\nmov_primod(0X4E) r0, r1\n");
    }

    #[test]
    fn typed_and_typeless_uav_declarations_carry_extra_tokens() {
        let w = rt("il_cs_2_0\ndcl_typeless_uav_id(12)_stride(4)_length(4)_access(read_write)\n");
        // The extension comment keeps _length/_access; the declaration itself is id + 2 words.
        let n = w.len();
        assert_eq!(
            &w[n - 3..],
            &[Opcode::DclTypelessUav.code() as u32 | 12 << 16, 4, 0]
        );
        let w = rt("il_cs_2_0\ndcl_typed_uav_id(3)_type(2d)_fmtx(float)\n");
        assert_eq!(
            &w[2..],
            &[Opcode::DclTypedUav.code() as u32 | 3 << 16, 5 | 2 << 4]
        );
    }

    #[test]
    fn immediate_constant_buffer() {
        let w = rt("il_cs_2_0\ndcl_cb icb[2] = {1, 2, 0x3, 4.0, 5}\nmov r0, icb[1].y\n");
        assert_eq!(
            &w[2..9],
            &[
                Opcode::DclConstBuffer.code() as u32 | 1 << 31,
                5,
                1,
                2,
                3,
                0x4080_0000,
                5
            ]
        );
    }

    #[test]
    fn ext_resource_forms_take_two_more_sources() {
        let w = rt("il_cs_2_0\nsample_l_ext_resource(1)_sampler(2) r0, r1, r2.x, r3.x, r4.x\n");
        // resource 1, sampler 2, indexed-args bit 28.
        assert_eq!(
            w[2],
            Opcode::SampleL.code() as u32 | (1 | 2 << 8 | 1 << 12) << 16
        );
    }

    #[test]
    fn decode_garbage_never_panics() {
        let mut x: u32 = 0x1234_5678;
        for len in 0..300 {
            let mut v = vec![0u32, 0x0003_0200];
            for _ in 0..len % 23 {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                v.push(if x & 1 == 0 { x & 0x1FF } else { x });
            }
            let _ = decode(&v);
        }
        assert!(decode(&[]).is_err());
        assert_eq!(decode(&[0, 0x0003_0200, 71]).unwrap_err().offset, 3);
    }
}
