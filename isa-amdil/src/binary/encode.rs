//! Encoding a [`Program`] into IL binary tokens (see the parent module for the layout).
//!
//! Guarantees: never panics; refuses (with the statement index and span) what has no binary
//! form, such as operand counts outside the opcode table.

use super::*;

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
        (Payload::Words(ws), _) if layout(inst.opcode) == Layout::SharingMode => {
            // One known word is the control value; anything else keeps its text.
            ext_payload = !matches!(&ws[..], [w] if super::sharing_word(w).is_some())
        }
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
    if inst.opcode == Opcode::Macrocall {
        // MCALL's second token: outputs in 15:0, inputs in 31:16 (7.19).
        if inst.dsts.len() > 0xffff || inst.srcs.len() > 0xffff {
            return Err("`mcall` has too many arguments".to_string());
        }
        out.push(inst.dsts.len() as u32 | (inst.srcs.len() as u32) << 16);
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
pub(super) fn numbers_count(op: Opcode) -> Option<usize> {
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
