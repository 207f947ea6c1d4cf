//! The IR printer. The text it produces is read back by [`reader`](super::reader); printing,
//! parsing and printing again yields identical text (tested over every opcode).
//!
//! Syntax overview:
//! ```text
//! kernel %name {
//!     group_size 64, 1, 1
//!     uav0 = raw            ; or `structured 16`, `typed`
//!     srv1 = raw            ; read-only resource, same kinds
//!     lds0 = 1024           ; bytes
//!     cb0 = 64              ; bytes
//!     global                ; uses g[]
//!     launch_1d             ; assumes a 1-D grid
//!     ss0 = private 16      ; bytes
//!
//! block0:
//!     v0 = special tid.x
//!     v1 = iconst.b32 0x10
//!     v2 = iadd v0, v1
//!     v3, v4 = load.b64 align 8 uav0[v2+16]
//!     store.b32 uav0[v2], v3
//!     v5 = icmp slt v0, v1
//!     brif v5, block1(v2), block2
//! block1(v6: b32):
//!     ...
//! }
//! ```
//! Each instruction is `results = mnemonic[.suffix] operands`; the `Display` of every
//! entity is its text name. Annotations (verifier errors) are printed as `; ` comments
//! after the line they concern.

use core::fmt::{self, Write};

use super::entities::{AnyEntity, Block, Inst};
use super::function::{Function, UavKind};
use super::immediates::MemArg;
use super::instructions::{BlockCall, InstructionData};

/// Writes `func` in text form.
pub fn write_function(w: &mut dyn Write, func: &Function) -> fmt::Result {
    write_function_annotated(w, func, &|_| Vec::new())
}

/// Writes `func`, printing the lines returned by `annot` for each entity as comments after
/// the entity's line (function-level annotations go after the header).
pub fn write_function_annotated(
    w: &mut dyn Write,
    func: &Function,
    annot: &dyn Fn(AnyEntity) -> Vec<String>,
) -> fmt::Result {
    writeln!(w, "kernel %{} {{", FuncName(&func.name))?;
    for a in annot(AnyEntity::Function) {
        writeln!(w, "    ; {a}")?;
    }
    if let Some([x, y, z]) = func.group_size {
        writeln!(w, "    group_size {x}, {y}, {z}")?;
    }
    for (id, kind) in &func.uavs {
        match kind {
            UavKind::Raw => writeln!(w, "    uav{id} = raw")?,
            UavKind::Structured(s) => writeln!(w, "    uav{id} = structured {s}")?,
            UavKind::Typed => writeln!(w, "    uav{id} = typed")?,
        }
    }
    for (id, kind) in &func.srvs {
        match kind {
            UavKind::Raw => writeln!(w, "    srv{id} = raw")?,
            UavKind::Structured(s) => writeln!(w, "    srv{id} = structured {s}")?,
            UavKind::Typed => writeln!(w, "    srv{id} = typed")?,
        }
    }
    for (id, size) in &func.lds {
        writeln!(w, "    lds{id} = {size}")?;
    }
    for (id, size) in &func.cbs {
        writeln!(w, "    cb{id} = {size}")?;
    }
    if func.uses_global {
        writeln!(w, "    global")?;
    }
    if func.launch_1d {
        writeln!(w, "    launch_1d")?;
    }
    for id in &func.outputs {
        writeln!(w, "    out{id} = output")?;
    }
    for (ss, data) in func.stack_slots.iter() {
        writeln!(w, "    {ss} = private {}", data.size)?;
        for a in annot(AnyEntity::StackSlot(ss)) {
            writeln!(w, "    ; {a}")?;
        }
    }
    for block in func.layout.blocks() {
        writeln!(w)?;
        write_block_header(w, func, block)?;
        for a in annot(AnyEntity::Block(block)) {
            writeln!(w, "    ; {a}")?;
        }
        for inst in func.layout.block_insts(block) {
            w.write_str("    ")?;
            write_inst(w, func, inst)?;
            writeln!(w)?;
            for a in annot(AnyEntity::Inst(inst)) {
                writeln!(w, "    ; {a}")?;
            }
        }
    }
    writeln!(w, "}}")
}

/// A function name as the reader accepts it: bare if it only has `[A-Za-z0-9_.$]`
/// characters, else quoted with `\"` and `\\` escapes.
pub struct FuncName<'a>(pub &'a str);

impl fmt::Display for FuncName<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let bare = !self.0.is_empty()
            && self
                .0
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '$'));
        if bare {
            return f.write_str(self.0);
        }
        f.write_char('"')?;
        for c in self.0.chars() {
            match c {
                '"' => f.write_str("\\\"")?,
                '\\' => f.write_str("\\\\")?,
                '\n' => f.write_str("\\n")?,
                c => f.write_char(c)?,
            }
        }
        f.write_char('"')
    }
}

/// Writes `blockN(vA: ty, ...):`.
pub fn write_block_header(w: &mut dyn Write, func: &Function, block: Block) -> fmt::Result {
    write!(w, "{block}")?;
    let params = func.dfg.block_params(block);
    if !params.is_empty() {
        w.write_char('(')?;
        for (i, &p) in params.iter().enumerate() {
            if i > 0 {
                w.write_str(", ")?;
            }
            write!(w, "{p}: {}", func.dfg.value_type(p))?;
        }
        w.write_char(')')?;
    }
    if func.dfg.is_cold(block) {
        w.write_str(" cold")?;
    }
    writeln!(w, ":")
}

fn write_mem(w: &mut dyn Write, mem: &MemArg, addr: Option<super::Value>) -> fmt::Result {
    write!(w, "{}[", mem.space)?;
    match (addr, mem.offset) {
        (Some(a), 0) => write!(w, "{a}")?,
        (Some(a), o) if o < 0 => write!(w, "{a}-{}", (o as i64).unsigned_abs())?,
        (Some(a), o) => write!(w, "{a}+{o}")?,
        (None, o) => write!(w, "{o}")?,
    }
    w.write_char(']')
}

fn write_call(w: &mut dyn Write, call: &BlockCall) -> fmt::Result {
    write!(w, "{}", call.block)?;
    if !call.args.is_empty() {
        w.write_char('(')?;
        write_list(w, &call.args)?;
        w.write_char(')')?;
    }
    Ok(())
}

fn write_list(w: &mut dyn Write, vals: &[super::Value]) -> fmt::Result {
    for (i, v) in vals.iter().enumerate() {
        if i > 0 {
            w.write_str(", ")?;
        }
        write!(w, "{v}")?;
    }
    Ok(())
}

/// Writes one instruction (without indentation or newline).
pub fn write_inst(w: &mut dyn Write, func: &Function, inst: Inst) -> fmt::Result {
    let results = func.dfg.inst_results(inst);
    if !results.is_empty() {
        write_list(w, results)?;
        w.write_str(" = ")?;
    }
    let data = &func.dfg.insts[inst];
    let op = data.opcode();
    match data {
        InstructionData::Nullary { .. } => write!(w, "{op}"),
        InstructionData::UnaryImm { ty, imm, .. } => {
            if op == super::Opcode::Pconst {
                write!(w, "{op} {}", if *imm != 0 { "true" } else { "false" })
            } else {
                write!(w, "{op}.{ty} {imm:#x}")
            }
        }
        InstructionData::Unary { args, .. } => {
            write!(w, "{op} ")?;
            write_list(w, args)
        }
        InstructionData::Binary { args, .. } => {
            write!(w, "{op} ")?;
            write_list(w, args)
        }
        InstructionData::Ternary { args, .. } => {
            write!(w, "{op} ")?;
            write_list(w, args)
        }
        InstructionData::Quaternary { args, .. } => {
            write!(w, "{op} ")?;
            write_list(w, args)
        }
        InstructionData::IntCompare { cond, args, .. } => {
            write!(w, "{op} {cond} ")?;
            write_list(w, args)
        }
        InstructionData::FloatCompare { cond, args, .. } => {
            write!(w, "{op} {cond} ")?;
            write_list(w, args)
        }
        InstructionData::Special { reg, .. } => write!(w, "{op} {reg}"),
        InstructionData::Load { mem, .. }
        | InstructionData::Store { mem, .. }
        | InstructionData::Atomic { mem, .. } => {
            match data {
                InstructionData::Atomic { op: aop, .. } => write!(w, "{op}.{aop} ")?,
                _ => write!(w, "{op}.{} ", mem.size.name())?,
            }
            if mem.align != mem.size.natural_align() {
                write!(w, "align {} ", mem.align)?;
            }
            if mem.inbounds {
                w.write_str("inbounds ")?;
            }
            write_mem(w, mem, data.mem_addr())?;
            let rest = data.mem_data();
            if !rest.is_empty() {
                w.write_str(", ")?;
                write_list(w, rest)?;
            }
            Ok(())
        }
        InstructionData::Texture { tex, args, .. } => {
            write!(w, "{op}.{tex} ")?;
            write_list(w, args)
        }
        InstructionData::Barrier { flags, .. } => write!(w, "{op} {flags}"),
        InstructionData::Jump { dests, .. } => {
            write!(w, "{op} ")?;
            write_call(w, &dests[0])
        }
        InstructionData::Brif { arg, dests, .. } => {
            write!(w, "{op} {}, ", arg[0])?;
            write_call(w, &dests[0])?;
            w.write_str(", ")?;
            write_call(w, &dests[1])
        }
        InstructionData::BrTable { arg, dests, .. } => {
            write!(w, "{op} {}, ", arg[0])?;
            if let Some(default) = dests.first() {
                write_call(w, default)?;
            }
            w.write_str(", [")?;
            for (i, d) in dests.iter().skip(1).enumerate() {
                if i > 0 {
                    w.write_str(", ")?;
                }
                write_call(w, d)?;
            }
            w.write_char(']')
        }
        InstructionData::Target {
            code,
            imm,
            side_effects,
            args,
            results,
            ..
        } => {
            write!(w, "{op}.{code} {imm:#x}")?;
            if *side_effects {
                w.write_str(" side")?;
            }
            if !args.is_empty() {
                w.write_char(' ')?;
                write_list(w, args)?;
            }
            if !results.is_empty() {
                w.write_str(" ->")?;
                for (i, t) in results.iter().enumerate() {
                    w.write_str(if i == 0 { " " } else { ", " })?;
                    write!(w, "{t}")?;
                }
            }
            Ok(())
        }
    }
}

impl fmt::Display for Function {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_function(f, self)
    }
}

/// Prints one instruction to a `String` (for diagnostics).
pub fn inst_to_string(func: &Function, inst: Inst) -> String {
    let mut s = String::new();
    // Writing to a String cannot fail.
    let _ = write_inst(&mut s, func, inst);
    s
}
