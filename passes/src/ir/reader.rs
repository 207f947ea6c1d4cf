//! The IR text parser, inverse of [`write`](super::write).
//!
//! Requires: text in the syntax documented in `write.rs`; `;` starts a comment to the end of
//! the line. Guarantees: entity numbers from the text are kept (`v7` stays `v7`, `block3`
//! stays `block3`; gaps become detached values / blocks outside the layout), so filetest
//! expectations can name values. Any malformed input yields a [`ParseError`] with a line and
//! column; the parser never panics on user text. The parser does not verify the function:
//! type errors and SSA violations are the verifier's job.

use core::fmt;

use cranelift_entity::EntityRef;
use smallvec::SmallVec;

use super::dfg::ValueDef;
use super::entities::{Block, StackSlot, Value};
use super::function::{Function, StackSlotData, UavKind};
use super::immediates::{
    AtomicOp, BarrierFlags, FloatCC, IntCC, MemArg, MemSize, MemSpace, SpecialReg, TexArg, TexKind,
    TexShape,
};
use super::instructions::{BlockCall, InstructionData, ValueList};
use super::opcodes::{InstructionFormat, Opcode};
use super::types::{Type, TypeList};

/// A position in the source text (1-based).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Location {
    /// Line number.
    pub line: usize,
    /// Column number.
    pub col: usize,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.col)
    }
}

/// A parse error.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{location}: {message}")]
pub struct ParseError {
    /// Where.
    pub location: Location,
    /// What.
    pub message: String,
}

macro_rules! err {
    ($loc:expr, $($arg:tt)*) => {
        Err(ParseError { location: $loc, message: format!($($arg)*) })
    };
}

fn perr(location: Location, message: String) -> ParseError {
    ParseError { location, message }
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Tok {
    Word(String),
    Name(String),
    Int(u64),
    Punct(char),
    Arrow,
}

impl fmt::Display for Tok {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tok::Word(w) => write!(f, "'{w}'"),
            Tok::Name(n) => write!(f, "'%{n}'"),
            Tok::Int(i) => write!(f, "'{i}'"),
            Tok::Punct(c) => write!(f, "'{c}'"),
            Tok::Arrow => f.write_str("'->'"),
        }
    }
}

fn lex(text: &str) -> Result<Vec<(Tok, Location)>, ParseError> {
    let mut toks = Vec::new();
    for (ln, line) in text.lines().enumerate() {
        let chars: Vec<char> = line.chars().collect();
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            let loc = Location {
                line: ln + 1,
                col: i + 1,
            };
            if c == ';' {
                break; // comment to the end of the line
            } else if c.is_whitespace() {
                i += 1;
            } else if c.is_ascii_alphabetic() || c == '_' {
                let s = i;
                while i < chars.len()
                    && (chars[i].is_ascii_alphanumeric() || chars[i] == '_' || chars[i] == '.')
                {
                    i += 1;
                }
                toks.push((Tok::Word(chars[s..i].iter().collect()), loc));
            } else if c == '%' && chars.get(i + 1) == Some(&'"') {
                // Quoted name with \" \\ \n escapes.
                let mut name = String::new();
                i += 2;
                loop {
                    match chars.get(i) {
                        None => return err!(loc, "unterminated quoted name"),
                        Some('"') => break,
                        Some('\\') => {
                            match chars.get(i + 1) {
                                Some('n') => name.push('\n'),
                                Some(&e @ ('"' | '\\')) => name.push(e),
                                _ => return err!(loc, "bad escape in quoted name"),
                            }
                            i += 2;
                            continue;
                        }
                        Some(&ch) => name.push(ch),
                    }
                    i += 1;
                }
                i += 1;
                toks.push((Tok::Name(name), loc));
            } else if c == '%' {
                let s = i + 1;
                i += 1;
                while i < chars.len()
                    && (chars[i].is_ascii_alphanumeric() || matches!(chars[i], '_' | '.' | '$'))
                {
                    i += 1;
                }
                if s == i {
                    return err!(loc, "expected a name after '%'");
                }
                toks.push((Tok::Name(chars[s..i].iter().collect()), loc));
            } else if c.is_ascii_digit() {
                let s = i;
                while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                    i += 1;
                }
                let lit: String = chars[s..i].iter().filter(|&&c| c != '_').collect();
                let val = if let Some(h) = lit.strip_prefix("0x").or_else(|| lit.strip_prefix("0X"))
                {
                    u64::from_str_radix(h, 16)
                } else {
                    lit.parse::<u64>()
                };
                match val {
                    Ok(v) => toks.push((Tok::Int(v), loc)),
                    Err(_) => return err!(loc, "invalid number '{lit}'"),
                }
            } else if c == '-' && chars.get(i + 1) == Some(&'>') {
                toks.push((Tok::Arrow, loc));
                i += 2;
            } else if ",:=()[]{}+-|".contains(c) {
                toks.push((Tok::Punct(c), loc));
                i += 1;
            } else {
                return err!(loc, "unexpected character '{c}'");
            }
        }
    }
    Ok(toks)
}

/// Parses `prefixN` into N.
fn numbered(word: &str, prefix: &str) -> Option<usize> {
    let rest = word.strip_prefix(prefix)?;
    if rest.is_empty()
        || !rest.bytes().all(|b| b.is_ascii_digit())
        || (rest.len() > 1 && rest.starts_with('0'))
    {
        return None;
    }
    rest.parse().ok().filter(|&n: &usize| n < (1 << 24))
}

struct Parser {
    toks: Vec<(Tok, Location)>,
    pos: usize,
    end: Location,
}

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|t| &t.0)
    }
    fn peek_at(&self, n: usize) -> Option<&Tok> {
        self.toks.get(self.pos + n).map(|t| &t.0)
    }
    fn loc(&self) -> Location {
        self.toks.get(self.pos).map_or(self.end, |t| t.1)
    }
    fn next(&mut self, what: &str) -> Result<Tok, ParseError> {
        match self.toks.get(self.pos) {
            Some((t, _)) => {
                self.pos += 1;
                Ok(t.clone())
            }
            None => err!(self.end, "unexpected end of input, expected {what}"),
        }
    }
    fn is_punct(&self, c: char) -> bool {
        self.peek() == Some(&Tok::Punct(c))
    }
    fn eat_punct(&mut self, c: char) -> bool {
        if self.is_punct(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }
    fn expect_punct(&mut self, c: char) -> Result<(), ParseError> {
        let loc = self.loc();
        match self.toks.get(self.pos) {
            Some((Tok::Punct(p), _)) if *p == c => {
                self.pos += 1;
                Ok(())
            }
            Some((t, _)) => err!(loc, "expected '{c}', found {t}"),
            None => err!(loc, "unexpected end of input, expected '{c}'"),
        }
    }
    fn word(&mut self, what: &str) -> Result<(String, Location), ParseError> {
        let loc = self.loc();
        match self.next(what)? {
            Tok::Word(w) => Ok((w, loc)),
            t => err!(loc, "expected {what}, found {t}"),
        }
    }
    fn int(&mut self, what: &str) -> Result<u64, ParseError> {
        let loc = self.loc();
        match self.next(what)? {
            Tok::Int(i) => Ok(i),
            t => err!(loc, "expected {what}, found {t}"),
        }
    }
    /// A possibly negative integer, as i64.
    fn signed(&mut self, what: &str) -> Result<i64, ParseError> {
        let loc = self.loc();
        let neg = self.eat_punct('-');
        let v = self.int(what)?;
        if neg {
            if v > 1 << 63 {
                return err!(loc, "number out of range");
            }
            Ok((v as i64).wrapping_neg())
        } else {
            Ok(v as i64)
        }
    }
    fn u32(&mut self, what: &str) -> Result<u32, ParseError> {
        let loc = self.loc();
        let v = self.int(what)?;
        u32::try_from(v).map_err(|_| perr(loc, format!("{what} out of range: {v}")))
    }
}

/// Source lines of the entities of a parsed function (1-based), for diagnostics that point
/// back into the text (filetests put `; error:` on the offending line).
#[derive(Clone, Debug, Default)]
pub struct SourceMap {
    /// Line of the `kernel` header.
    pub function_line: usize,
    /// Line of each instruction.
    pub insts: cranelift_entity::SecondaryMap<super::Inst, usize>,
    /// Line of each block header.
    pub blocks: cranelift_entity::SecondaryMap<Block, usize>,
    /// Line of each stack slot declaration.
    pub stack_slots: cranelift_entity::SecondaryMap<StackSlot, usize>,
}

impl SourceMap {
    /// The line of an entity (values: the line of their definition), if known.
    pub fn line_of(&self, func: &Function, e: super::AnyEntity) -> Option<usize> {
        use super::AnyEntity as E;
        let l = match e {
            E::Function => self.function_line,
            E::Inst(i) => *self.insts.get(i)?,
            E::Block(b) => *self.blocks.get(b)?,
            E::StackSlot(s) => *self.stack_slots.get(s)?,
            E::Value(v) => {
                if !func.dfg.value_is_valid(v) {
                    return None;
                }
                match func.dfg.value_def(v) {
                    ValueDef::Result(i, _) => *self.insts.get(i)?,
                    ValueDef::Param(b, _) => *self.blocks.get(b)?,
                    ValueDef::Detached => return None,
                }
            }
        };
        (l != 0).then_some(l)
    }
}

struct FuncBuilder {
    func: Function,
    block_defined: Vec<bool>,
    map: SourceMap,
}

impl FuncBuilder {
    fn value(&mut self, n: usize) -> Value {
        while self.func.dfg.num_values() <= n {
            self.func.dfg.make_detached_value(Type::B32);
        }
        Value::new(n)
    }
    fn block(&mut self, n: usize) -> Block {
        while self.func.dfg.num_blocks() <= n {
            self.func.dfg.make_block();
            self.block_defined.push(false);
        }
        Block::new(n)
    }
}

/// Parses every function in `text`.
pub fn parse_functions(text: &str) -> Result<Vec<Function>, ParseError> {
    Ok(parse_functions_with_source_maps(text)?
        .into_iter()
        .map(|(f, _)| f)
        .collect())
}

/// Parses every function in `text`, with the source line of each entity.
pub fn parse_functions_with_source_maps(
    text: &str,
) -> Result<Vec<(Function, SourceMap)>, ParseError> {
    let toks = lex(text)?;
    let end = Location {
        line: text.lines().count().max(1),
        col: 1,
    };
    let mut p = Parser { toks, pos: 0, end };
    let mut funcs = Vec::new();
    while p.peek().is_some() {
        funcs.push(parse_function(&mut p)?);
    }
    Ok(funcs)
}

/// Parses exactly one function.
pub fn parse_function_text(text: &str) -> Result<Function, ParseError> {
    let mut fs = parse_functions(text)?;
    match fs.len() {
        1 => Ok(fs.remove(0)),
        n => err!(
            Location { line: 1, col: 1 },
            "expected one function, found {n}"
        ),
    }
}

fn parse_function(p: &mut Parser) -> Result<(Function, SourceMap), ParseError> {
    let (kw, loc) = p.word("'kernel'")?;
    let function_line = loc.line;
    if kw != "kernel" {
        return err!(loc, "expected 'kernel', found '{kw}'");
    }
    let loc = p.loc();
    let name = match p.next("a function name")? {
        Tok::Name(n) => n,
        t => return err!(loc, "expected a function name like %main, found {t}"),
    };
    p.expect_punct('{')?;
    let mut fb = FuncBuilder {
        func: Function::new(name),
        block_defined: Vec::new(),
        map: SourceMap {
            function_line,
            ..Default::default()
        },
    };
    parse_decls(p, &mut fb)?;
    let mut cur: Option<Block> = None;
    loop {
        let loc = p.loc();
        match p.peek() {
            None => return err!(loc, "missing '}}' at the end of kernel %{}", fb.func.name),
            Some(Tok::Punct('}')) => {
                p.pos += 1;
                break;
            }
            Some(Tok::Word(w))
                if numbered(w, "block").is_some() && p.peek_at(1) != Some(&Tok::Punct(',')) =>
            {
                let b = parse_block_header(p, &mut fb)?;
                cur = Some(b);
            }
            Some(_) => {
                let Some(b) = cur else {
                    return err!(loc, "instruction outside a block");
                };
                parse_inst(p, &mut fb, b)?;
            }
        }
    }
    fix_result_types(&mut fb.func);
    Ok((fb.func, fb.map))
}

/// Re-derives polymorphic result types once every definition is known (a use may precede
/// its definition in layout order).
fn fix_result_types(func: &mut Function) {
    let insts = func.insts_in_layout();
    for _ in 0..=insts.len() {
        let mut changed = false;
        for &inst in &insts {
            let tys = func.dfg.compute_result_types(&func.dfg.insts[inst]);
            let results: SmallVec<[Value; 4]> = func.dfg.inst_results(inst).into();
            for (v, ty) in results.into_iter().zip(tys) {
                if func.dfg.value_type(v) != ty {
                    func.dfg.set_value_type(v, ty);
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
}

fn parse_decls(p: &mut Parser, fb: &mut FuncBuilder) -> Result<(), ParseError> {
    loop {
        let loc = p.loc();
        let w = match p.peek() {
            Some(Tok::Word(w)) if numbered(w, "block").is_none() => w.clone(),
            _ => return Ok(()),
        };
        p.pos += 1;
        if w == "group_size" {
            let x = p.u32("group size")?;
            p.expect_punct(',')?;
            let y = p.u32("group size")?;
            p.expect_punct(',')?;
            let z = p.u32("group size")?;
            fb.func.group_size = Some([x, y, z]);
        } else if w == "global" {
            fb.func.uses_global = true;
        } else if w == "launch_1d" {
            fb.func.launch_1d = true;
        } else if let Some(id) = numbered(&w, "out") {
            let id =
                u8::try_from(id).map_err(|_| perr(loc, "output id out of range".to_string()))?;
            p.expect_punct('=')?;
            let (kind, kloc) = p.word("output")?;
            if kind != "output" {
                return err!(kloc, "expected 'output', found '{kind}'");
            }
            if !fb.func.outputs.insert(id) {
                return err!(loc, "out{id} declared twice");
            }
        } else if let Some((id, is_srv)) = numbered(&w, "uav")
            .map(|n| (n, false))
            .or_else(|| numbered(&w, "srv").map(|n| (n, true)))
        {
            let what = if is_srv { "srv" } else { "uav" };
            let id = u8::try_from(id).map_err(|_| perr(loc, format!("{what} id out of range")))?;
            p.expect_punct('=')?;
            let (kind, kloc) = p.word("raw, structured or typed")?;
            let k = match kind.as_str() {
                "raw" => UavKind::Raw,
                "typed" => UavKind::Typed,
                "structured" => UavKind::Structured(p.u32("stride")?),
                _ => return err!(kloc, "unknown {what} kind '{kind}'"),
            };
            let map = if is_srv {
                &mut fb.func.srvs
            } else {
                &mut fb.func.uavs
            };
            if map.insert(id, k).is_some() {
                return err!(loc, "{what}{id} declared twice");
            }
        } else if let Some(id) = numbered(&w, "lds") {
            let id = u8::try_from(id).map_err(|_| perr(loc, "lds id out of range".to_string()))?;
            p.expect_punct('=')?;
            let size = p.u32("lds size")?;
            if fb.func.lds.insert(id, size).is_some() {
                return err!(loc, "lds{id} declared twice");
            }
        } else if let Some(id) = numbered(&w, "cb") {
            let id = u8::try_from(id).map_err(|_| perr(loc, "cb id out of range".to_string()))?;
            p.expect_punct('=')?;
            let size = p.u32("cb size")?;
            if fb.func.cbs.insert(id, size).is_some() {
                return err!(loc, "cb{id} declared twice");
            }
        } else if let Some(n) = numbered(&w, "ss") {
            if n != fb.func.stack_slots.len() {
                return err!(
                    loc,
                    "stack slots must be declared in order: expected ss{}",
                    fb.func.stack_slots.len()
                );
            }
            p.expect_punct('=')?;
            let (kw, kloc) = p.word("'private'")?;
            if kw != "private" {
                return err!(kloc, "expected 'private', found '{kw}'");
            }
            let size = p.u32("size")?;
            let ss = fb.func.stack_slots.push(StackSlotData { size });
            fb.map.stack_slots[ss] = loc.line;
        } else {
            return err!(loc, "unknown declaration '{w}'");
        }
    }
}

fn parse_block_header(p: &mut Parser, fb: &mut FuncBuilder) -> Result<Block, ParseError> {
    let (w, loc) = p.word("a block")?;
    // `numbered` was checked by the caller.
    let n = numbered(&w, "block").unwrap_or(0);
    let b = fb.block(n);
    if fb.block_defined[n] {
        return err!(loc, "{b} defined twice");
    }
    fb.block_defined[n] = true;
    fb.func.layout.append_block(b);
    fb.map.blocks[b] = loc.line;
    if p.eat_punct('(') && !p.eat_punct(')') {
        loop {
            let v = parse_value(p, fb)?;
            let vloc = p.loc();
            p.expect_punct(':')?;
            let (tn, tloc) = p.word("a type")?;
            let Some(ty) = Type::from_name(&tn) else {
                return err!(tloc, "unknown type '{tn}'");
            };
            if fb.func.dfg.value_def(v) != ValueDef::Detached {
                return err!(vloc, "{v} defined twice");
            }
            fb.func.dfg.attach_block_param(b, v, ty);
            if p.eat_punct(')') {
                break;
            }
            p.expect_punct(',')?;
        }
    }
    if let Some(Tok::Word(w)) = p.peek() {
        if w == "cold" {
            p.pos += 1;
            fb.func.dfg.set_cold(b, true);
        }
    }
    p.expect_punct(':')?;
    Ok(b)
}

fn parse_value(p: &mut Parser, fb: &mut FuncBuilder) -> Result<Value, ParseError> {
    let loc = p.loc();
    match p.next("a value")? {
        Tok::Word(w) => match numbered(&w, "v") {
            Some(n) => Ok(fb.value(n)),
            None => err!(loc, "expected a value like v3, found '{w}'"),
        },
        t => err!(loc, "expected a value like v3, found {t}"),
    }
}

fn parse_values(p: &mut Parser, fb: &mut FuncBuilder, n: usize) -> Result<ValueList, ParseError> {
    let mut vs = ValueList::new();
    for i in 0..n {
        if i > 0 {
            p.expect_punct(',')?;
        }
        vs.push(parse_value(p, fb)?);
    }
    Ok(vs)
}

/// Parses `, v, v, ...` (each preceded by a comma) while a comma follows.
fn parse_more_values(
    p: &mut Parser,
    fb: &mut FuncBuilder,
    out: &mut ValueList,
) -> Result<(), ParseError> {
    while p.eat_punct(',') {
        out.push(parse_value(p, fb)?);
    }
    Ok(())
}

fn parse_block_call(p: &mut Parser, fb: &mut FuncBuilder) -> Result<BlockCall, ParseError> {
    let (w, loc) = p.word("a block")?;
    let Some(n) = numbered(&w, "block") else {
        return err!(loc, "expected a block like block2, found '{w}'");
    };
    let block = fb.block(n);
    let mut args = ValueList::new();
    if p.eat_punct('(') && !p.eat_punct(')') {
        args.push(parse_value(p, fb)?);
        parse_more_values(p, fb, &mut args)?;
        p.expect_punct(')')?;
    }
    Ok(BlockCall { block, args })
}

fn parse_mem(
    p: &mut Parser,
    fb: &mut FuncBuilder,
    size: MemSize,
) -> Result<(MemArg, Option<Value>), ParseError> {
    let mut align = size.natural_align();
    let mut inbounds = false;
    if let Some(Tok::Word(w)) = p.peek() {
        if w == "align" {
            p.pos += 1;
            let loc = p.loc();
            align = p.u32("alignment")?;
            if !align.is_power_of_two() {
                return err!(loc, "alignment must be a power of two");
            }
        }
    }
    if let Some(Tok::Word(w)) = p.peek() {
        if w == "inbounds" {
            p.pos += 1;
            inbounds = true;
        }
    }
    let (w, loc) = p.word("a memory space")?;
    let space = if w == "global" {
        MemSpace::Global
    } else if let Some(n) = numbered(&w, "uav") {
        MemSpace::Uav(u8::try_from(n).map_err(|_| perr(loc, "uav id out of range".to_string()))?)
    } else if let Some(n) = numbered(&w, "lds") {
        MemSpace::Lds(u8::try_from(n).map_err(|_| perr(loc, "lds id out of range".to_string()))?)
    } else if let Some(n) = numbered(&w, "srv") {
        MemSpace::Srv(u8::try_from(n).map_err(|_| perr(loc, "srv id out of range".to_string()))?)
    } else if let Some(n) = numbered(&w, "cb") {
        MemSpace::Cb(u8::try_from(n).map_err(|_| perr(loc, "cb id out of range".to_string()))?)
    } else if let Some(n) = numbered(&w, "out") {
        MemSpace::Output(
            u8::try_from(n).map_err(|_| perr(loc, "output id out of range".to_string()))?,
        )
    } else if let Some(n) = numbered(&w, "counter") {
        MemSpace::Counter(
            u8::try_from(n).map_err(|_| perr(loc, "counter id out of range".to_string()))?,
        )
    } else if let Some(n) = numbered(&w, "ss") {
        MemSpace::Private(StackSlot::new(n))
    } else {
        return err!(loc, "unknown memory space '{w}'");
    };
    p.expect_punct('[')?;
    let mut addr = None;
    let offset;
    if matches!(p.peek(), Some(Tok::Word(_))) {
        addr = Some(parse_value(p, fb)?);
        let oloc = p.loc();
        offset = if p.eat_punct('+') {
            p.int("an offset")? as i64
        } else if p.eat_punct('-') {
            (p.int("an offset")? as i64).wrapping_neg()
        } else {
            0
        };
        if i32::try_from(offset).is_err() {
            return err!(oloc, "offset out of range");
        }
    } else {
        let oloc = p.loc();
        offset = p.signed("an address")?;
        if i32::try_from(offset).is_err() {
            return err!(oloc, "offset out of range");
        }
    }
    p.expect_punct(']')?;
    Ok((
        MemArg {
            space,
            offset: offset as i32,
            size,
            align,
            inbounds,
        },
        addr,
    ))
}

/// An instruction's opcode, the mnemonic's suffix after the first `.`, and where the mnemonic
/// stands.
struct Mnemonic {
    opcode: Opcode,
    suffix: String,
    loc: Location,
    /// The mnemonic as written (opcode and suffix).
    text: String,
}

fn parse_inst(p: &mut Parser, fb: &mut FuncBuilder, block: Block) -> Result<(), ParseError> {
    let start = p.loc();
    let results = parse_results(p, fb)?;
    let head = parse_mnemonic(p)?;
    let data = parse_operands(p, fb, &head)?;
    let tys = fb.func.dfg.compute_result_types(&data);
    if tys.len() != results.len() {
        return err!(
            start,
            "'{}' has {} result(s), {} given",
            head.text,
            tys.len(),
            results.len()
        );
    }
    let inst = fb.func.dfg.make_inst(data);
    for ((v, loc), ty) in results.into_iter().zip(tys) {
        if fb.func.dfg.value_def(v) != ValueDef::Detached {
            return err!(loc, "{v} defined twice");
        }
        fb.func.dfg.attach_result(inst, v, ty);
    }
    fb.func.layout.append_inst(inst, block);
    fb.map.insts[inst] = start.line;
    Ok(())
}

/// An instruction's result list (`v1, v2 =`), empty when the instruction has none.
fn parse_results(
    p: &mut Parser,
    fb: &mut FuncBuilder,
) -> Result<SmallVec<[(Value, Location); 4]>, ParseError> {
    let mut results: SmallVec<[(Value, Location); 4]> = SmallVec::new();
    let is_result_list = matches!(p.peek(), Some(Tok::Word(w)) if numbered(w, "v").is_some())
        && matches!(p.peek_at(1), Some(Tok::Punct(',' | '=')));
    if is_result_list {
        loop {
            let loc = p.loc();
            results.push((parse_value(p, fb)?, loc));
            if p.eat_punct('=') {
                break;
            }
            p.expect_punct(',')?;
        }
    }
    Ok(results)
}

/// The mnemonic: an opcode and, for the opcodes that need one, a suffix after the first `.`.
fn parse_mnemonic(p: &mut Parser) -> Result<Mnemonic, ParseError> {
    let (mn, mloc) = p.word("an opcode")?;
    let (base, suffix) = match mn.split_once('.') {
        Some((b, s)) => (b.to_string(), Some(s.to_string())),
        None => (mn.clone(), None),
    };
    let Some(opcode) = Opcode::from_mnemonic(&base) else {
        return err!(mloc, "unknown opcode '{base}'");
    };
    let need_suffix = matches!(
        opcode,
        Opcode::Iconst
            | Opcode::Load
            | Opcode::Store
            | Opcode::Atomic
            | Opcode::AtomicNoret
            | Opcode::Target
            | Opcode::Tex
    );
    if need_suffix != suffix.is_some() {
        return if need_suffix {
            err!(mloc, "'{base}' needs a suffix")
        } else {
            err!(mloc, "'{base}' takes no suffix")
        };
    }
    Ok(Mnemonic {
        opcode,
        suffix: suffix.unwrap_or_default(),
        loc: mloc,
        text: mn,
    })
}

/// The operands after the mnemonic, by the opcode's instruction format.
fn parse_operands(
    p: &mut Parser,
    fb: &mut FuncBuilder,
    head: &Mnemonic,
) -> Result<InstructionData, ParseError> {
    let (opcode, suffix, mloc) = (head.opcode, head.suffix.as_str(), head.loc);
    let nargs = opcode.arg_types().len();
    let data = match opcode.format() {
        InstructionFormat::Nullary => InstructionData::Nullary { opcode },
        InstructionFormat::UnaryImm => parse_unary_imm(p, head)?,
        InstructionFormat::Unary => InstructionData::Unary {
            opcode,
            args: [parse_value(p, fb)?],
        },
        InstructionFormat::Binary => {
            let a = parse_values(p, fb, nargs)?;
            InstructionData::Binary {
                opcode,
                args: [a[0], a[1]],
            }
        }
        InstructionFormat::Ternary => {
            let a = parse_values(p, fb, nargs)?;
            InstructionData::Ternary {
                opcode,
                args: [a[0], a[1], a[2]],
            }
        }
        InstructionFormat::Quaternary => {
            let a = parse_values(p, fb, nargs)?;
            InstructionData::Quaternary {
                opcode,
                args: [a[0], a[1], a[2], a[3]],
            }
        }
        InstructionFormat::IntCompare => {
            let (c, cloc) = p.word("a condition")?;
            let Some(cond) = IntCC::from_name(&c) else {
                return err!(cloc, "unknown integer condition '{c}'");
            };
            let a = parse_values(p, fb, 2)?;
            InstructionData::IntCompare {
                opcode,
                cond,
                args: [a[0], a[1]],
            }
        }
        InstructionFormat::FloatCompare => {
            let (c, cloc) = p.word("a condition")?;
            let Some(cond) = FloatCC::from_name(&c) else {
                return err!(cloc, "unknown float condition '{c}'");
            };
            let a = parse_values(p, fb, 2)?;
            InstructionData::FloatCompare {
                opcode,
                cond,
                args: [a[0], a[1]],
            }
        }
        InstructionFormat::Special => {
            let (r, rloc) = p.word("a special register")?;
            let Some(reg) = SpecialReg::parse(&r) else {
                return err!(rloc, "unknown special register '{r}'");
            };
            InstructionData::Special { opcode, reg }
        }
        InstructionFormat::Load | InstructionFormat::Store => {
            let Some(size) = MemSize::from_name(suffix) else {
                return err!(mloc, "unknown access size '{suffix}'");
            };
            let (mem, addr) = parse_mem(p, fb, size)?;
            let mut args: ValueList = addr.into_iter().collect();
            if opcode == Opcode::Store {
                p.expect_punct(',')?;
                args.push(parse_value(p, fb)?);
                parse_more_values(p, fb, &mut args)?;
                InstructionData::Store { opcode, mem, args }
            } else {
                InstructionData::Load { opcode, mem, args }
            }
        }
        InstructionFormat::Atomic => {
            let Some(op) = AtomicOp::from_name(suffix) else {
                return err!(mloc, "unknown atomic operation '{suffix}'");
            };
            let (mem, addr) = parse_mem(p, fb, MemSize::Words(1))?;
            let mut args: ValueList = addr.into_iter().collect();
            p.expect_punct(',')?;
            args.push(parse_value(p, fb)?);
            parse_more_values(p, fb, &mut args)?;
            InstructionData::Atomic {
                opcode,
                op,
                mem,
                args,
            }
        }
        InstructionFormat::Barrier => {
            let (mut s, _) = p.word("barrier flags")?;
            while p.eat_punct('|') {
                let (w, _) = p.word("a barrier flag")?;
                s.push('|');
                s.push_str(&w);
            }
            let Some(flags) = BarrierFlags::parse(&s) else {
                return err!(
                    mloc,
                    "bad barrier flags '{s}' (use threads|lds|memory|gds or none)"
                );
            };
            InstructionData::Barrier { opcode, flags }
        }
        InstructionFormat::Jump => InstructionData::Jump {
            opcode,
            dests: [parse_block_call(p, fb)?],
        },
        InstructionFormat::Brif => {
            let c = parse_value(p, fb)?;
            p.expect_punct(',')?;
            let t = parse_block_call(p, fb)?;
            p.expect_punct(',')?;
            let e = parse_block_call(p, fb)?;
            InstructionData::Brif {
                opcode,
                arg: [c],
                dests: Box::new([t, e]),
            }
        }
        InstructionFormat::BrTable => {
            let x = parse_value(p, fb)?;
            p.expect_punct(',')?;
            let mut dests = vec![parse_block_call(p, fb)?];
            p.expect_punct(',')?;
            p.expect_punct('[')?;
            if !p.eat_punct(']') {
                loop {
                    dests.push(parse_block_call(p, fb)?);
                    if p.eat_punct(']') {
                        break;
                    }
                    p.expect_punct(',')?;
                }
            }
            InstructionData::BrTable {
                opcode,
                arg: [x],
                dests,
            }
        }
        InstructionFormat::Texture => parse_texture(p, fb, head)?,
        InstructionFormat::Target => parse_target(p, fb, head)?,
    };
    Ok(data)
}

/// The rest of a texture instruction (`tex.KIND.SHAPE[.unnorm][.MASK] tN[, sN] v, ...`)
/// after its mnemonic (`suffix`: the mnemonic after `tex.`).
fn parse_texture(
    p: &mut Parser,
    fb: &mut FuncBuilder,
    m: &Mnemonic,
) -> Result<InstructionData, ParseError> {
    let (opcode, suffix, mloc) = (m.opcode, m.suffix.as_str(), m.loc);
    let (kind, shape) = suffix.split_once('.').unwrap_or((suffix, ""));
    let kind = match kind {
        "sample" => TexKind::Sample,
        "fetch" => TexKind::Fetch,
        "query" => TexKind::Query,
        "gatherr" => TexKind::Gather(0),
        "gatherg" => TexKind::Gather(1),
        "gatherb" => TexKind::Gather(2),
        "gathera" => TexKind::Gather(3),
        _ => return err!(mloc, "unknown texture operation '{kind}'"),
    };
    let (shape, unnorm) = match shape.strip_suffix(".unnorm") {
        Some(s) if matches!(kind, TexKind::Sample | TexKind::Gather(_)) => (s, true),
        _ => (shape, false),
    };
    let (shape, float_mask) = match shape.split_once('.') {
        Some((s, m)) if kind != TexKind::Query => match TexArg::parse_float_mask(m) {
            Some(m) => (s, m),
            None => return err!(mloc, "bad texture channel formats '{m}' (like ffff)"),
        },
        _ => (shape, 0),
    };
    let Some(shape) = TexShape::from_name(shape) else {
        return err!(mloc, "unknown texture shape '{shape}'");
    };
    let mut id = |prefix: &str, what: &str| -> Result<u8, ParseError> {
        let (w, loc) = p.word(what)?;
        match numbered(&w, prefix).and_then(|n| u8::try_from(n).ok()) {
            Some(n) => Ok(n),
            None => err!(loc, "expected {what} like {prefix}0, found '{w}'"),
        }
    };
    let resource = id("t", "a texture")?;
    let sampler = if matches!(kind, TexKind::Sample | TexKind::Gather(_)) {
        id("s", "a sampler")?
    } else {
        0
    };
    let mut args = ValueList::new();
    args.push(parse_value(p, fb)?);
    parse_more_values(p, fb, &mut args)?;
    Ok(InstructionData::Texture {
        opcode,
        tex: TexArg {
            kind,
            resource,
            sampler,
            shape,
            unnorm,
            float_mask,
        },
        args,
    })
}

/// The rest of a target instruction (`target.CODE IMM [side] [v, ...] [-> types]`) after its
/// mnemonic, all on the mnemonic's line (`suffix`: the code).
fn parse_target(
    p: &mut Parser,
    fb: &mut FuncBuilder,
    m: &Mnemonic,
) -> Result<InstructionData, ParseError> {
    let (opcode, suffix, mloc) = (m.opcode, m.suffix.as_str(), m.loc);
    let Ok(code) = suffix.parse::<u16>() else {
        return err!(
            mloc,
            "target code must be a number below 65536, found '{suffix}'"
        );
    };
    let imm = p.int("an immediate")?;
    // Operands, `side` and result types of a target instruction must be on the
    // mnemonic's line: the next line may start with a result list.
    let same_line = |p: &Parser| p.loc().line == mloc.line && p.pos < p.toks.len();
    let mut side_effects = false;
    if same_line(p) && matches!(p.peek(), Some(Tok::Word(w)) if w == "side") {
        p.pos += 1;
        side_effects = true;
    }
    let mut args = ValueList::new();
    if same_line(p) && matches!(p.peek(), Some(Tok::Word(w)) if numbered(w, "v").is_some()) {
        args.push(parse_value(p, fb)?);
        parse_more_values(p, fb, &mut args)?;
    }
    let mut tys = TypeList::new();
    if same_line(p) && p.peek() == Some(&Tok::Arrow) {
        p.pos += 1;
        loop {
            let (t, tloc) = p.word("a type")?;
            let Some(ty) = Type::from_name(&t) else {
                return err!(tloc, "unknown type '{t}'");
            };
            if tys.try_push(ty).is_err() {
                return err!(tloc, "more than {} result types", TypeList::CAPACITY);
            }
            if !p.eat_punct(',') {
                break;
            }
        }
    }
    Ok(InstructionData::Target {
        opcode,
        code,
        imm,
        side_effects,
        args,
        results: tys,
    })
}

/// The immediate of `pconst` (`true`/`false`) or `iconst.TYPE` (`suffix`: the type).
fn parse_unary_imm(p: &mut Parser, m: &Mnemonic) -> Result<InstructionData, ParseError> {
    let (opcode, suffix, mloc) = (m.opcode, m.suffix.as_str(), m.loc);
    if opcode == Opcode::Pconst {
        let loc = p.loc();
        let imm = match p.next("true or false")? {
            Tok::Word(w) if w == "true" => 1,
            Tok::Word(w) if w == "false" => 0,
            t => return err!(loc, "expected true or false, found {t}"),
        };
        Ok(InstructionData::UnaryImm {
            opcode,
            ty: Type::Pred,
            imm,
        })
    } else {
        let Some(ty) = Type::from_name(suffix).filter(|t| *t != Type::Pred) else {
            return err!(mloc, "iconst needs type b32 or b64, found '{suffix}'");
        };
        let loc = p.loc();
        let v = p.signed("an immediate")? as u64;
        if ty == Type::B32 && (v >> 32) != 0 && (v as i64) < -(1i64 << 31) {
            return err!(loc, "immediate does not fit in b32");
        }
        if ty == Type::B32 && (v >> 32) != 0 && (v as i64) >= 0 {
            return err!(loc, "immediate does not fit in b32");
        }
        Ok(InstructionData::UnaryImm {
            opcode,
            ty,
            imm: v & ty.mask(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_kept() {
        let f = parse_function_text(
            "kernel %k {\nblock3:\n  v7 = iconst.b32 5\n  jump block1(v7)\nblock1(v2: b32):\n  return\n}\n",
        )
        .unwrap();
        let text = f.to_string();
        assert!(
            text.contains("block3:\n    v7 = iconst.b32 0x5\n    jump block1(v7)"),
            "{text}"
        );
        assert!(text.contains("block1(v2: b32):"), "{text}");
    }

    #[test]
    fn target_operands_stay_on_their_line() {
        let f = parse_function_text(
            "kernel %k {\nblock0:\n target.1 0x0\n v1, v2 = target.2 0x3 side -> b32, b64\n \
             target.3 0x0 v1, v2\n v3 = target.4 0x0 v1 -> pred\n return\n}",
        )
        .unwrap();
        let text = f.to_string();
        assert!(
            text.contains("    target.1 0x0\n    v1, v2 = target.2 0x3 side -> b32, b64\n"),
            "{text}"
        );
        assert!(
            text.contains("    target.3 0x0 v1, v2\n    v3 = target.4 0x0 v1 -> pred\n"),
            "{text}"
        );
    }

    #[test]
    fn quoted_names() {
        for name in [
            "main",
            "__OpenCL_k_kernel",
            "with space",
            "q\"uote\\back",
            "semi;colon",
            "new\nline",
            "",
        ] {
            let mut f = Function::new(name);
            let b = f.append_new_block();
            super::super::FuncCursor::new(&mut f)
                .at_end(b)
                .ins()
                .return_();
            let text = f.to_string();
            let g = parse_function_text(&text).unwrap_or_else(|e| panic!("{name:?}: {e}\n{text}"));
            assert_eq!(g.name, name);
        }
    }

    #[test]
    fn errors_have_locations() {
        let e = parse_functions("kernel %k {\nblock0:\n  v1 = frob v0\n}\n").unwrap_err();
        assert_eq!(e.location, Location { line: 3, col: 8 });
        assert!(e.message.contains("unknown opcode 'frob'"));
        let e = parse_functions("kernel %k {\nblock0:\n  v1 = iadd v0\n}").unwrap_err();
        assert_eq!(e.location.line, 4);
        let e =
            parse_functions("kernel %k {\nblock0:\n  v1 = iconst.b32 1\n  v1 = iconst.b32 2\n}")
                .unwrap_err();
        assert!(e.message.contains("defined twice"), "{e}");
        let e =
            parse_functions("kernel %k {\nblock0:\n  v1 = iconst.b32 0x100000000\n}").unwrap_err();
        assert!(e.message.contains("does not fit"), "{e}");
        assert!(parse_functions("kernel %k { block0: return").is_err());
        assert!(parse_functions("kernel %k { block0: v1 = iconst.b32 -1 return }").is_ok());
        assert!(parse_functions("kernel %k { block0: ? }").is_err());
    }
}
