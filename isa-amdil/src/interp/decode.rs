//! AST -> [`ExecProgram`]: resolves registers, literals, declarations and structured
//! control flow into a flat instruction list with jump targets.
//!
//! One AST statement becomes exactly one instruction (declarations and labels become
//! `Nop`), so a pc is also a statement index. Requires a parsed [`Program`]; guarantees the
//! invariants listed in [`super::program`] or returns an [`InterpError`] naming the opcode
//! or operand and its line. Opcode semantics are chosen in [`super::select`].

use std::collections::{BTreeMap, HashMap};

use super::dispatch::InterpError;
use super::program::{
    Cond, Dst, DstComp, DstKind, ExecProgram, Index, Inst, Op, Rel, Space, Src, SrcKind, SrcMods,
    SysVal, Ty, SEL_ONE, SEL_ZERO,
};
use super::select;
use crate::ast::{self, Instruction, Payload, Program, RegKind, Swz};
use crate::opcodes::Opcode;

/// Largest indexed temp array the interpreter allocates (per work-item, 16 bytes each).
const MAX_ITEMP: u32 = 1 << 16;

/// Declared UAV shape, used to pick the addressing of loads, stores and atomics.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum UavKind {
    /// Byte-addressed (raw, typeless, arena).
    Raw,
    /// Structured with a stride.
    Struct(u32),
    /// Typed.
    Typed(super::typed_uav::TypedUav),
}

/// Declarations gathered before instructions are decoded.
#[derive(Default)]
pub(crate) struct Decls {
    pub uavs: BTreeMap<u32, UavKind>,
    pub srvs: BTreeMap<u32, UavKind>,
    /// LDS id -> structure stride (None for typeless).
    pub lds_stride: BTreeMap<u32, Option<u32>>,
}

/// One open structured-control-flow construct during decoding.
enum Frame {
    If {
        at: usize,
        else_at: Option<usize>,
    },
    Loop {
        head: usize,
        breaks: Vec<usize>,
    },
    Switch {
        at: usize,
        cases: Vec<(u32, u32)>,
        default: Option<u32>,
        breaks: Vec<usize>,
    },
}

/// Decoder state.
pub(crate) struct Decoder<'p> {
    prog: &'p Program,
    /// Dense temp index of each IL temp (`r#`: key `num`) and of each pixel-shader output's
    /// register copy (`o#`: key `1 << 32 | num`).
    temps: HashMap<u64, u32>,
    itemps: HashMap<u32, u32>,
    /// Literal values visible at the current statement (lexically nearest preceding).
    lits: HashMap<u32, [u32; 4]>,
    /// Every literal definition of the program (first one wins) for forward uses.
    all_lits: HashMap<u32, [u32; 4]>,
    pub decls: Decls,
    pub out: ExecProgram,
    pub line: u32,
}

pub(crate) fn err(line: u32, what: impl Into<String>) -> InterpError {
    InterpError::Unsupported {
        what: what.into(),
        line,
    }
}

pub(crate) fn malformed(line: u32, message: impl Into<String>) -> InterpError {
    InterpError::Malformed {
        message: message.into(),
        line,
    }
}

/// Decodes a parsed program.
pub fn decode(prog: &Program) -> Result<ExecProgram, InterpError> {
    let mut d = Decoder {
        prog,
        temps: HashMap::new(),
        itemps: HashMap::new(),
        lits: HashMap::new(),
        all_lits: HashMap::new(),
        decls: Decls::default(),
        out: ExecProgram {
            group: [1, 1, 1],
            ..ExecProgram::default()
        },
        line: 0,
    };
    d.declarations()?;
    d.instructions()?;
    lock_step_warnings(&mut d.out);
    Ok(d.out)
}

/// Static hint for kernels that rely on a 64-wide wavefront running in lock step: an LDS
/// load that follows, in program order, an LDS store to the same allocation with no
/// `fence_threads` between them. Maxwell runs 32-wide warps without lock step across the
/// group, so such a kernel may read stale data there (DESIGN.md section 5). A heuristic:
/// a work-item re-reading only its own slot also triggers it.
fn lock_step_warnings(p: &mut ExecProgram) {
    let mut pending: BTreeMap<u32, u32> = BTreeMap::new();
    let mut warned = 0;
    for inst in &p.insts {
        match &inst.op {
            Op::Fence { threads: true } => pending.clear(),
            Op::Store {
                space: Space::Lds(id),
                ..
            } => {
                pending.entry(*id).or_insert(inst.line);
            }
            Op::Load {
                space: Space::Lds(id),
                ..
            } => {
                if let Some(store_line) = pending.get(id) {
                    if warned < 8 {
                        p.warnings.push(format!(
                            "line {}: LDS {id} load after the store at line {store_line} \
                             without fence_threads: the kernel may rely on wavefront lock step",
                            inst.line
                        ));
                    }
                    warned += 1;
                }
            }
            _ => {}
        }
    }
}

impl Decoder<'_> {
    fn declarations(&mut self) -> Result<(), InterpError> {
        let mut have_group = false;
        for st in &self.prog.statements {
            let line = st.span.line;
            match (&st.opcode, &st.payload) {
                (Opcode::DclLiteral, Payload::Literal { reg, values }) => {
                    self.all_lits.entry(*reg).or_insert(*values);
                }
                (Opcode::DclNumThreadPerGroup, _) => {
                    let dims = st.dims3().ok_or_else(|| {
                        malformed(line, "dcl_num_thread_per_group needs 1-3 sizes")
                    })?;
                    self.out.group = dims;
                    have_group = true;
                }
                (Opcode::DclMaxThreadPerGroup, _) if !have_group => {
                    let n = st.number().unwrap_or(64).max(1);
                    self.out.group = [n, 1, 1];
                }
                (Opcode::DclConstBuffer, Payload::ConstBuffer { cb, size }) => {
                    self.out.cbs.insert(*cb, *size);
                }
                (Opcode::DclConstBuffer, Payload::ImmConstBuffer(values)) => {
                    self.out.icb = values
                        .chunks(4)
                        .map(|c| {
                            let mut e = [0u32; 4];
                            e[..c.len()].copy_from_slice(c);
                            e
                        })
                        .collect();
                }
                (Opcode::DclIndexedTempArray, Payload::IndexedTemp { reg, size }) => {
                    if *size > MAX_ITEMP {
                        return Err(err(
                            line,
                            format!("indexed temp array x{reg}[{size}] (limit {MAX_ITEMP})"),
                        ));
                    }
                    let id = self.out.itemp_sizes.len() as u32;
                    self.itemps.insert(*reg, id);
                    self.out.itemp_sizes.push(*size);
                }
                (Opcode::DclLds, _) => {
                    let id = st.id().unwrap_or(0);
                    let size = st.number().unwrap_or(0);
                    self.out.lds.insert(id, size.min(1 << 20));
                    self.decls.lds_stride.insert(id, None);
                }
                (Opcode::DclStructLds, Payload::Numbers(n)) => {
                    let id = st.id().unwrap_or(0);
                    let stride = n.first().copied().unwrap_or(4);
                    let count = n.get(1).copied().unwrap_or(0);
                    let size = (stride as u64 * count as u64).min(1 << 20) as u32;
                    self.out.lds.insert(id, size);
                    self.decls.lds_stride.insert(id, Some(stride));
                }
                (Opcode::DclGds, _) => {
                    let id = st.id().unwrap_or(0);
                    self.out
                        .gds
                        .insert(id, st.number().unwrap_or(0).min(1 << 20));
                }
                (Opcode::DclStructGds, Payload::Numbers(n)) => {
                    let id = st.id().unwrap_or(0);
                    let stride = n.first().copied().unwrap_or(4);
                    let count = n.get(1).copied().unwrap_or(0);
                    let size = (stride as u64 * count as u64).min(1 << 20) as u32;
                    self.out.gds.insert(id, size);
                    self.out.gds_stride.insert(id, stride);
                }
                (Opcode::DclRawUav | Opcode::DclArenaUav | Opcode::DclTypelessUav, _) => {
                    let id = st.id().unwrap_or(0);
                    self.decls.uavs.insert(id, UavKind::Raw);
                }
                (Opcode::DclStructUav, _) => {
                    let id = st.id().unwrap_or(0);
                    let stride = stride_of(st).unwrap_or(4);
                    self.decls.uavs.insert(id, UavKind::Struct(stride));
                }
                (Opcode::DclUav | Opcode::DclTypedUav, _) => {
                    let id = st.id().unwrap_or(0);
                    let decl = super::typed_uav::typed_uav_decl(st).map_err(|w| err(line, w))?;
                    self.decls.uavs.insert(id, UavKind::Typed(decl));
                }
                (Opcode::DclRawSrv, _) => {
                    self.decls.srvs.insert(st.id().unwrap_or(0), UavKind::Raw);
                }
                (Opcode::DclResource, _) => {
                    let id = st.id().unwrap_or(0);
                    let decl = super::texture::resource_decl(st).map_err(|what| err(line, what))?;
                    self.out.resources.insert(id, decl);
                }
                (Opcode::DclLdsSizePerThread, _) => {
                    let n = st.number().unwrap_or(0);
                    if n == 0 || n > 64 || n % 4 != 0 {
                        return Err(malformed(
                            line,
                            format!("dcl_lds_size_per_thread {n}: must be 4..=64 dwords, a multiple of 4"),
                        ));
                    }
                    let abs = self.out.owner_lds.is_some_and(|(_, a)| a);
                    self.out.owner_lds = Some((n, abs));
                }
                (Opcode::DclLdsSharingMode, _) => {
                    let abs = sharing_mode(st).unwrap_or(false);
                    let n = self.out.owner_lds.map_or(0, |(n, _)| n);
                    self.out.owner_lds = Some((n, abs));
                }
                (Opcode::DclOutput, _) => {
                    for d in &st.dsts {
                        if d.reg.kind == RegKind::Output
                            && !self.out.ps_outputs.contains(&d.reg.num)
                        {
                            self.out.ps_outputs.push(d.reg.num);
                        }
                    }
                }
                (Opcode::DclStructSrv, _) => {
                    let stride = stride_of(st).unwrap_or(4);
                    self.decls
                        .srvs
                        .insert(st.id().unwrap_or(0), UavKind::Struct(stride));
                }
                _ => {}
            }
        }
        self.out.uavs = self.decls.uavs.keys().copied().collect();
        if self
            .prog
            .version
            .as_ref()
            .is_some_and(|v| v.shader == ast::ShaderType::Pixel)
        {
            // Pixel-shader compute: each pixel is a work-item; 8x8 tiles play the groups.
            self.out.pixel_shader = true;
            self.out.group = [8, 8, 1];
        }
        Ok(())
    }

    fn instructions(&mut self) -> Result<(), InterpError> {
        let mut stack: Vec<Frame> = Vec::new();
        let mut funcs: HashMap<u32, u32> = HashMap::new();
        let mut calls: Vec<(usize, u32)> = Vec::new();
        for (pc, st) in self.prog.statements.iter().enumerate() {
            self.line = st.span.line;
            let line = self.line;
            let mut inst = Inst {
                op: Op::Nop,
                ty: Ty::Int,
                dst: no_dst(),
                src: Vec::new(),
                line,
                precision: Default::default(),
            };
            match st.opcode {
                Opcode::DclLiteral => {
                    if let Payload::Literal { reg, values } = &st.payload {
                        self.lits.insert(*reg, *values);
                    }
                }
                Opcode::IfLogicalz | Opcode::IfLogicalnz | Opcode::Ifc => {
                    inst.op = Op::If(self.cond(st)?, 0);
                    stack.push(Frame::If {
                        at: pc,
                        else_at: None,
                    });
                }
                Opcode::Else => match stack.last_mut() {
                    Some(Frame::If { at, else_at }) if else_at.is_none() => {
                        let at = *at;
                        *else_at = Some(pc);
                        set_target(&mut self.out.insts[at], pc as u32 + 1);
                        inst.op = Op::Jump(0);
                    }
                    _ => return Err(malformed(line, "else without if")),
                },
                Opcode::Endif => match stack.pop() {
                    Some(Frame::If { at, else_at }) => {
                        let t = pc as u32 + 1;
                        set_target(&mut self.out.insts[else_at.unwrap_or(at)], t);
                    }
                    _ => return Err(malformed(line, "endif without if")),
                },
                Opcode::While => stack.push(Frame::Loop {
                    head: pc,
                    breaks: Vec::new(),
                }),
                Opcode::Loop => return Err(err(line, "loop (SM30 counted loop over i#)")),
                Opcode::Endloop => match stack.pop() {
                    Some(Frame::Loop { head, breaks }) => {
                        inst.op = Op::Jump(head as u32 + 1);
                        for b in breaks {
                            set_target(&mut self.out.insts[b], pc as u32 + 1);
                        }
                    }
                    _ => return Err(malformed(line, "endloop without whileloop")),
                },
                Opcode::Break | Opcode::BreakLogicalz | Opcode::BreakLogicalnz | Opcode::Breakc => {
                    inst.op = Op::JumpIf(self.cond(st)?, 0);
                    match stack
                        .iter_mut()
                        .rev()
                        .find(|f| !matches!(f, Frame::If { .. }))
                    {
                        Some(Frame::Loop { breaks, .. }) | Some(Frame::Switch { breaks, .. }) => {
                            breaks.push(pc)
                        }
                        _ => return Err(malformed(line, "break outside loop or switch")),
                    }
                }
                Opcode::Continue
                | Opcode::ContinueLogicalz
                | Opcode::ContinueLogicalnz
                | Opcode::Continuec => {
                    let head = stack.iter().rev().find_map(|f| match f {
                        Frame::Loop { head, .. } => Some(*head),
                        _ => None,
                    });
                    let head = head.ok_or_else(|| malformed(line, "continue outside loop"))?;
                    inst.op = Op::JumpIf(self.cond(st)?, head as u32 + 1);
                }
                Opcode::Switch => {
                    inst.src.push(self.src_at(st, 0)?);
                    inst.op = Op::Switch {
                        cases: Vec::new(),
                        default: 0,
                    };
                    stack.push(Frame::Switch {
                        at: pc,
                        cases: Vec::new(),
                        default: None,
                        breaks: Vec::new(),
                    });
                }
                Opcode::Case => {
                    let v = match &st.payload {
                        Payload::Case(v) => *v as u32,
                        Payload::Numbers(n) if !n.is_empty() => n[0],
                        _ => return Err(malformed(line, "case without a value")),
                    };
                    match stack.last_mut() {
                        Some(Frame::Switch { cases, .. }) => {
                            if !cases.iter().any(|(c, _)| *c == v) {
                                cases.push((v, pc as u32));
                            }
                        }
                        _ => return Err(malformed(line, "case outside switch")),
                    }
                }
                Opcode::Default => match stack.last_mut() {
                    Some(Frame::Switch { default, .. }) => *default = Some(pc as u32),
                    _ => return Err(malformed(line, "default outside switch")),
                },
                Opcode::Endswitch => match stack.pop() {
                    Some(Frame::Switch {
                        at,
                        cases,
                        default,
                        breaks,
                    }) => {
                        let end = pc as u32 + 1;
                        self.out.insts[at].op = Op::Switch {
                            cases,
                            default: default.unwrap_or(end),
                        };
                        for b in breaks {
                            set_target(&mut self.out.insts[b], end);
                        }
                    }
                    _ => return Err(malformed(line, "endswitch without switch")),
                },
                Opcode::Func => {
                    let label =
                        label_of(st).ok_or_else(|| malformed(line, "func without label"))?;
                    funcs.entry(label).or_insert(pc as u32 + 1);
                }
                Opcode::Call | Opcode::CallLogicalz | Opcode::CallLogicalnz => {
                    let label =
                        label_of(st).ok_or_else(|| malformed(line, "call without label"))?;
                    inst.op = Op::Call(self.cond(st)?, 0);
                    calls.push((pc, label));
                }
                Opcode::Ret | Opcode::RetDyn | Opcode::Endfunc => inst.op = Op::Ret(Cond::Always),
                Opcode::RetLogicalz | Opcode::RetLogicalnz => inst.op = Op::Ret(self.cond(st)?),
                Opcode::End | Opcode::Endmain => inst.op = Op::End,
                Opcode::Fence => {
                    inst.op = Op::Fence {
                        threads: st.has_fence(ast::FenceFlag::Threads),
                    }
                }
                op if is_declaration(op) => {}
                _ => inst = select::select(self, st)?,
            }
            inst.precision = st.opcode.precision();
            self.out.insts.push(inst);
        }
        if let Some(f) = stack.last() {
            let at = match f {
                Frame::If { at, .. } => *at,
                Frame::Loop { head, .. } => *head,
                Frame::Switch { at, .. } => *at,
            };
            return Err(malformed(
                self.prog.statements[at].span.line,
                "control-flow block is never closed",
            ));
        }
        // Resolve calls: dense function ids in label order of first use.
        let mut dense: HashMap<u32, u32> = HashMap::new();
        for (pc, label) in calls {
            let entry = *funcs.get(&label).ok_or_else(|| {
                malformed(
                    self.out.insts[pc].line,
                    format!("call to undefined function {label}"),
                )
            })?;
            let next = self.out.funcs.len() as u32;
            let id = *dense.entry(label).or_insert(next);
            if id == next {
                self.out.funcs.push(entry);
            }
            if let Op::Call(_, f) = &mut self.out.insts[pc].op {
                *f = id;
            }
        }
        self.out.num_temps = self.temps.len() as u32;
        Ok(())
    }

    /// The branch condition of a flow-control statement (`Always` for the plain forms).
    fn cond(&mut self, st: &Instruction) -> Result<Cond, InterpError> {
        use Opcode::*;
        Ok(match st.opcode {
            IfLogicalz | BreakLogicalz | ContinueLogicalz | CallLogicalz | RetLogicalz => {
                Cond::Z(self.src_at(st, 0)?)
            }
            IfLogicalnz | BreakLogicalnz | ContinueLogicalnz | CallLogicalnz | RetLogicalnz => {
                Cond::Nz(self.src_at(st, 0)?)
            }
            Ifc | Breakc | Continuec => {
                let op = st
                    .relop()
                    .ok_or_else(|| malformed(self.line, "missing _relop(..)"))?;
                Cond::Rel(select::relop(op), self.src_at(st, 0)?, self.src_at(st, 1)?)
            }
            _ => Cond::Always,
        })
    }

    /// Decodes source operand `i`.
    pub(crate) fn src_at(&mut self, st: &Instruction, i: usize) -> Result<Src, InterpError> {
        let s = st
            .srcs
            .get(i)
            .ok_or_else(|| malformed(self.line, format!("{:?} needs source {i}", st.opcode)))?;
        self.src(s)
    }

    fn temp(&mut self, num: u32) -> u32 {
        let n = self.temps.len() as u32;
        *self.temps.entry(num as u64).or_insert(n)
    }

    /// The dense temp that holds pixel-shader output `o#num` as a register (what the pixel
    /// wrote last, 0 before its first write), so `o#` reads like any register.
    fn output_temp(&mut self, num: u32) -> u32 {
        let n = self.temps.len() as u32;
        *self.temps.entry(1 << 32 | num as u64).or_insert(n)
    }

    fn index(&mut self, reg: &ast::RegRef) -> Result<Index, InterpError> {
        let line = self.line;
        let Some(ix) = reg.indices.first() else {
            return Ok(Index { base: 0, rel: None });
        };
        if reg.indices.len() > 1 {
            return Err(err(line, "two-dimensional register index"));
        }
        let base = ix.offset as u32;
        let rel = match ix.reg {
            None => None,
            Some(r) => match r.kind {
                RegKind::Temp => Some(Rel::Temp(self.temp(r.num), r.comp.index() as u8)),
                RegKind::Literal => {
                    let v = self.literal(r.num)[r.comp.index()];
                    return Ok(Index {
                        base: base.wrapping_add(v),
                        rel: None,
                    });
                }
                k => match self.sys_val(k) {
                    Some(s) => Some(Rel::Sys(s, r.comp.index() as u8)),
                    None => {
                        return Err(err(line, format!("index register of kind {}", k.name())));
                    }
                },
            },
        };
        Ok(Index { base, rel })
    }

    /// The system value a register kind reads, if it is one.
    fn sys_val(&self, kind: RegKind) -> Option<SysVal> {
        Some(match kind {
            RegKind::ThreadIdInGroup => SysVal::TidInGrp,
            RegKind::ThreadIdInGroupFlat => SysVal::TidInGrpFlat,
            RegKind::AbsThreadId => SysVal::AbsTid,
            RegKind::AbsThreadIdFlat => SysVal::AbsTidFlat,
            RegKind::ThreadGroupId => SysVal::ThreadGrpId,
            RegKind::ThreadGroupIdFlat => SysVal::ThreadGrpIdFlat,
            RegKind::WinCoord | RegKind::Input if self.out.pixel_shader => SysVal::WinCoord,
            _ => return None,
        })
    }

    fn literal(&mut self, num: u32) -> [u32; 4] {
        if let Some(v) = self.lits.get(&num) {
            return *v;
        }
        if let Some(v) = self.all_lits.get(&num) {
            return *v;
        }
        self.out.warnings.push(format!(
            "line {}: literal l{num} is not declared; reads 0",
            self.line
        ));
        [0; 4]
    }

    /// Decodes a source operand.
    pub(crate) fn src(&mut self, s: &ast::SrcOperand) -> Result<Src, InterpError> {
        let line = self.line;
        let r = &s.reg;
        let kind = match r.kind {
            RegKind::Temp => SrcKind::Temp(self.temp(r.num)),
            RegKind::Literal => SrcKind::Imm(self.literal(r.num)),
            RegKind::ConstBuffer => {
                let idx = self.index(r)?;
                if let Some(&size) = self.out.cbs.get(&r.num) {
                    if idx.rel.is_none() && idx.base >= size {
                        self.out.warnings.push(format!(
                            "line {line}: cb{}[{}] is past the declared size {size}",
                            r.num, idx.base
                        ));
                    }
                }
                SrcKind::Cb { id: r.num, idx }
            }
            RegKind::ImmConstBuffer => SrcKind::Icb(self.index(r)?),
            RegKind::IndexedTemp => {
                let arr = *self
                    .itemps
                    .get(&r.num)
                    .ok_or_else(|| malformed(line, format!("x{} is not declared", r.num)))?;
                SrcKind::ITemp {
                    arr,
                    idx: self.index(r)?,
                }
            }
            RegKind::Global => {
                self.out.uses_global = true;
                SrcKind::Global(self.index(r)?)
            }
            RegKind::Timer => SrcKind::Timer,
            RegKind::Output if self.out.pixel_shader && r.indices.is_empty() => {
                SrcKind::Temp(self.output_temp(r.num))
            }
            k => match self.sys_val(k) {
                Some(s) => SrcKind::Sys(s),
                None => return Err(err(line, format!("source register {}", k.name()))),
            },
        };
        let mut swz = [0u8; 4];
        for (o, sel) in swz.iter_mut().zip(s.swizzle.iter()) {
            *o = match sel {
                Swz::X => 0,
                Swz::Y => 1,
                Swz::Z => 2,
                Swz::W => 3,
                Swz::Zero => SEL_ZERO,
                Swz::One => SEL_ONE,
            };
        }
        let m = &s.mods;
        if m.div_comp != ast::DivComp::None {
            return Err(err(line, "_divcomp source modifier"));
        }
        let mods = SrcMods {
            invert: m.invert,
            bias: m.bias,
            x2: m.x2,
            sign: m.sign,
            abs: m.abs,
            neg: m.neg,
            clamp: m.clamp,
        };
        Ok(Src { kind, swz, mods })
    }

    /// Decodes destination `i` (or a mask-only destination when absent).
    pub(crate) fn dst_at(&mut self, st: &Instruction, i: usize) -> Result<Dst, InterpError> {
        let line = self.line;
        let Some(d) = st.dsts.get(i) else {
            return Ok(Dst {
                kind: DstKind::None,
                mask: [
                    DstComp::Write,
                    DstComp::NoWrite,
                    DstComp::NoWrite,
                    DstComp::NoWrite,
                ],
                sat: st.has(&ast::Control::Sat),
                scale: 1.0,
            });
        };
        let kind = match d.reg.kind {
            RegKind::Temp => DstKind::Temp(self.temp(d.reg.num)),
            RegKind::IndexedTemp => {
                let arr = *self
                    .itemps
                    .get(&d.reg.num)
                    .ok_or_else(|| malformed(line, format!("x{} is not declared", d.reg.num)))?;
                DstKind::ITemp {
                    arr,
                    idx: self.index(&d.reg)?,
                }
            }
            RegKind::Global => {
                self.out.uses_global = true;
                DstKind::Global(self.index(&d.reg)?)
            }
            RegKind::GenericMem => DstKind::None,
            RegKind::Output if self.out.pixel_shader => {
                if !self.out.ps_outputs.contains(&d.reg.num) {
                    self.out.ps_outputs.push(d.reg.num);
                }
                DstKind::Output {
                    id: d.reg.num,
                    reg: self.output_temp(d.reg.num),
                }
            }
            k => return Err(err(line, format!("destination register {}", k.name()))),
        };
        let mut mask = [DstComp::NoWrite; 4];
        for (o, c) in mask.iter_mut().zip(d.mask.iter()) {
            *o = match c {
                ast::DstComp::NoWrite => DstComp::NoWrite,
                ast::DstComp::Write => DstComp::Write,
                ast::DstComp::Zero => DstComp::Zero,
                ast::DstComp::One => DstComp::One,
            };
        }
        Ok(Dst {
            kind,
            mask,
            sat: d.sat,
            scale: d.shift.factor(),
        })
    }
}

fn no_dst() -> Dst {
    Dst {
        kind: DstKind::None,
        mask: [DstComp::NoWrite; 4],
        sat: false,
        scale: 1.0,
    }
}

/// The sharing mode an R7xx LDS statement names: `Some(true)` for absolute
/// (`_wavefrontAbs`, `_sharingMode(abs)`), `Some(false)` for relative, `None` if absent.
pub fn sharing_mode(st: &Instruction) -> Option<bool> {
    let word = |w: &str| match w.trim_start_matches('_').to_ascii_lowercase().as_str() {
        "wavefrontabs" | "abs" => Some(true),
        "wavefrontrel" | "rel" => Some(false),
        _ => None,
    };
    for c in &st.controls {
        if let ast::Control::Generic { name, value, .. } = c {
            if name == "sharingmode" {
                return value.as_deref().and_then(word);
            }
            if let Some(m) = word(name) {
                return Some(m);
            }
        }
    }
    if let Payload::Words(ws) = &st.payload {
        return ws.iter().find_map(|w| word(w));
    }
    None
}

fn stride_of(st: &Instruction) -> Option<u32> {
    st.controls
        .iter()
        .find_map(|c| match c {
            ast::Control::Stride(s) => Some(*s),
            _ => None,
        })
        .or_else(|| st.number())
}

fn label_of(st: &Instruction) -> Option<u32> {
    match &st.payload {
        Payload::Label(l) => Some(*l),
        Payload::Numbers(n) => n.first().copied(),
        _ => None,
    }
}

fn set_target(inst: &mut Inst, t: u32) {
    match &mut inst.op {
        Op::If(_, x) | Op::Jump(x) | Op::JumpIf(_, x) => *x = t,
        _ => {}
    }
}

fn is_declaration(op: Opcode) -> bool {
    use Opcode::*;
    matches!(
        op,
        DclConstBuffer
            | DclIndexedTempArray
            | DclLiteral
            | DclNumThreadPerGroup
            | DclMaxThreadPerGroup
            | DclTotalNumThreadGroup
            | DclGlobalFlags
            | DclLds
            | DclStructLds
            | DclGds
            | DclStructGds
            | DclRawUav
            | DclStructUav
            | DclUav
            | DclTypedUav
            | DclTypelessUav
            | DclArenaUav
            | DclRawSrv
            | DclStructSrv
            | DclResource
            | DclLdsSizePerThread
            | DclLdsSharingMode
            | DclInput
            | DclOutput
            | Nop
            | Comment
            | Prefix
            | Case
            | Default
            | While
    )
}
