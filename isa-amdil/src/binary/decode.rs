//! Decoding IL binary tokens into a [`Program`] (see the parent module for the layout).
//!
//! Guarantees: never panics and never reads past the end of the input, whatever the words;
//! every error names the word offset.

use super::encode::numbers_count;
use super::*;

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
    let mut prog = decode_header(&mut r)?;
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
                decode_comment(&mut r, at, &mut prog, &mut ext)?;
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
        inst.controls = decode_controls(op, bits).into();
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
            inst.payload = Payload::ImmConstBuffer(data.into());
            prog.statements.push(inst);
            continue;
        }
        decode_resource_type(&mut r, &mut inst, at, tok)?;
        decode_modifier_words(&mut r, &mut inst, tok)?;
        match info.form {
            Form::Label => inst.payload = Payload::Label(r.next("a label")?),
            Form::Case => inst.payload = Payload::Case(r.next("a case value")? as i32),
            _ => {}
        }
        let mut nsrc = match info.form {
            Form::Operands => e.srcs.unwrap_or(inst.src_count_range().1),
            Form::SrcLabel => 1,
            _ => 0,
        };
        let mut ndst = match info.form {
            Form::Operands | Form::DstNumbers => info.dsts as usize,
            _ => 0,
        };
        if op == Opcode::Macrocall {
            // Outputs in 15:0, inputs in 31:16 (7.19).
            let counts = r.next("the macro argument counts")?;
            ndst = (counts & 0xffff) as usize;
            nsrc = (counts >> 16) as usize;
            if ndst + nsrc > 64 {
                return r.err(at, "`mcall` with more than 64 arguments");
            }
        }
        for _ in 0..ndst {
            inst.dsts.push(decode_dst(&mut r)?);
        }
        for _ in 0..nsrc {
            inst.srcs.push(decode_src(&mut r, 0)?);
        }
        decode_payload(&mut r, &mut inst, at, bits)?;
        decode_uav_format(&mut r, &mut inst)?;
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

/// The language and version tokens: an empty program of that shader type and version.
fn decode_header(r: &mut Reader) -> Result<Program, DecodeError> {
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
    Ok(Program {
        version: Some(Version {
            shader,
            major: Some(((ver >> 8) & 0xFF) as u8),
            minor: Some((ver & 0xFF) as u8),
            multipass: ver & (1 << 24) != 0,
            realtime: ver & (1 << 25) != 0,
            span: Span::NONE,
        }),
        ..Program::default()
    })
}

/// A comment (its length, then its text): an `ilc-ext` comment becomes the extension data of the
/// next instruction, any other a comment statement.
fn decode_comment(
    r: &mut Reader,
    at: usize,
    prog: &mut Program,
    ext: &mut Option<Ext>,
) -> Result<(), DecodeError> {
    let n = r.next("a comment length")? as usize;
    if n > r.w.len() - r.pos {
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
        *ext = Some(parse_ext(Opcode::Comment, body).map_err(|m| DecodeError {
            offset: at,
            message: m,
        })?);
    } else {
        let mut inst = Instruction::new(Opcode::Comment);
        inst.payload = Payload::Raw(text.into());
        prog.statements.push(inst);
    }
    Ok(())
}

/// The formats and the type of `dcl_resource` and the type of `dcl_uav`, as controls.
fn decode_resource_type(
    r: &mut Reader,
    inst: &mut Instruction,
    at: usize,
    tok: u32,
) -> Result<(), DecodeError> {
    let op = inst.opcode;
    let bits = (tok >> 16) & 0x3FFF;
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
                span: Span::NONE,
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
                span: Span::NONE,
            });
        }
    }
    Ok(())
}

/// The primary and secondary modifier words and the address offset that follow the opcode
/// token, as controls.
fn decode_modifier_words(
    r: &mut Reader,
    inst: &mut Instruction,
    tok: u32,
) -> Result<(), DecodeError> {
    let op = inst.opcode;
    let bits = (tok >> 16) & 0x3FFF;
    // Primary / secondary modifier dwords and the address offset of resource
    // instructions follow the opcode token, in that order.
    if tok & (1 << 31) != 0 && op != Opcode::DclResource {
        let m = r.next("a primary modifier")?;
        let c = match COMPSELECT.get(m as usize) {
            Some(name) if is_fetch4(op) => Control::Generic {
                name: "compselect".into(),
                value: Some((*name).into()),
                span: Span::NONE,
            },
            _ => Control::Generic {
                name: "primod".into(),
                value: Some(hex_text(m)),
                span: Span::NONE,
            },
        };
        inst.controls.push(c);
    }
    if tok & (1 << 30) != 0 {
        let m = r.next("a secondary modifier")?;
        inst.controls.push(Control::Generic {
            name: "secmod".into(),
            value: Some(hex_text(m)),
            span: Span::NONE,
        });
    }
    if layout(op) == Layout::Sample && bits & (1 << 13) != 0 {
        let m = r.next("an address offset")?;
        inst.controls.push(Control::Generic {
            name: "aoffimmi".into(),
            value: Some(aoffimmi_text(m)),
            span: Span::NONE,
        });
    }
    Ok(())
}

/// The payload after the operands (a label, a literal, a declaration's size, numbers or
/// words), by the opcode's form.
fn decode_payload(
    r: &mut Reader,
    inst: &mut Instruction,
    at: usize,
    bits: u32,
) -> Result<(), DecodeError> {
    let op = inst.opcode;
    let info = op.info();
    match info.form {
        Form::SrcLabel => inst.payload = Payload::Label(r.next("a label")?),
        Form::Literal => {
            let t = r.pos;
            let s = decode_src(r, 0)?;
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
            let s = decode_src(r, 0)?;
            let size = match &s.reg.indices[..] {
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
            inst.payload = Payload::Numbers([bits].into())
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
            inst.payload = Payload::Numbers(ns.into());
        }
        Form::Words if layout(op) == Layout::SharingMode => {
            let w = match bits {
                0 => "_wavefrontRel",
                1 => "_wavefrontAbs",
                _ => return r.err(at, "reserved dcl_lds_sharing_mode value"),
            };
            inst.payload = Payload::Words([w.into()].into())
        }
        Form::Words if layout(op) != Layout::GlobalFlags => {
            inst.payload = Payload::Words(Box::default())
        }
        Form::Words => {
            let words: Vec<String> = GLOBAL_FLAGS
                .iter()
                .enumerate()
                .filter(|(i, _)| bits & (1 << i) != 0)
                .map(|(_, g)| canonical_flag(g).to_string())
                .collect();
            inst.payload = Payload::Words(words.into());
        }
        _ => {}
    }
    Ok(())
}

/// The format token of `dcl_typed_uav` and the stride and second token of
/// `dcl_typeless_uav`, as controls.
fn decode_uav_format(r: &mut Reader, inst: &mut Instruction) -> Result<(), DecodeError> {
    match layout(inst.opcode) {
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
                    span: Span::NONE,
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
                    span: Span::NONE,
                });
            }
        }
        _ => {}
    }
    Ok(())
}

pub(super) fn canonical_flag(lower: &str) -> &'static str {
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
                e.controls = p.statements[0].controls.to_vec()
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
    d.reg.indices = decode_indices(r, &raw, 0)?.into();
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
    s.reg.indices = decode_indices(r, &raw, depth)?.into();
    Ok(s)
}
