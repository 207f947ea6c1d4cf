//! AST -> [`ExecProgram`]: resolves registers, literals, declarations (taken from the
//! program's [`Declarations`] summary) and structured control flow into a flat instruction
//! list with jump targets.
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
use crate::decls::{label_of, runs_as_nothing, Declarations, ProblemKind};
use crate::opcodes::Opcode;

/// Largest indexed temp array the interpreter allocates (per work-item, 16 bytes each).
const MAX_ITEMP: u32 = 1 << 16;

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
    /// Dense array id of each indexed temp `x#`.
    itemps: HashMap<u32, u32>,
    /// The program's declarations.
    pub decls: Declarations,
    pub out: ExecProgram,
    pub line: u32,
    /// Index of the statement being decoded.
    pc: usize,
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
        decls: Declarations::collect(prog.version.as_ref(), &prog.statements),
        out: ExecProgram::default(),
        line: 0,
        pc: 0,
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
    /// Takes the declarations summary into the decoded program; the first declaration
    /// (in statement order) the interpreter cannot run is an error.
    fn declarations(&mut self) -> Result<(), InterpError> {
        let d = &self.decls;
        let line = |at: usize| self.prog.statements[at].span.line;
        let too_large = d.itemps.iter().filter(|(_, t)| t.size > MAX_ITEMP);
        let too_large = too_large.min_by_key(|(_, t)| t.at).map(|(reg, t)| {
            let what = format!("indexed temp array x{reg}[{}] (limit {MAX_ITEMP})", t.size);
            (t.at, err(line(t.at), what))
        });
        let problem = d.problems.first().map(|p| {
            let e = match p.kind {
                ProblemKind::GroupSize | ProblemKind::OwnerLdsSize => {
                    malformed(line(p.at), p.message.clone())
                }
                ProblemKind::TypedUav | ProblemKind::Resource => err(line(p.at), p.message.clone()),
            };
            (p.at, e)
        });
        if let Some((_, e)) = too_large
            .into_iter()
            .chain(problem)
            .min_by_key(|(at, _)| *at)
        {
            return Err(e);
        }
        for (&reg, t) in &d.itemps {
            self.itemps.insert(reg, self.out.itemp_sizes.len() as u32);
            self.out.itemp_sizes.push(t.size);
        }
        self.out.group = d.group;
        self.out.cbs = d.cbs.iter().map(|(&cb, &size)| (cb, size)).collect();
        self.out.icb = d.icb.clone();
        self.out.lds = d.lds.iter().map(|(&id, r)| (id, r.bytes)).collect();
        self.out.gds = d.gds.iter().map(|(&id, r)| (id, r.bytes)).collect();
        self.out.gds_stride = d
            .gds
            .iter()
            .filter_map(|(&id, r)| Some((id, r.stride?)))
            .collect();
        self.out.resources = d.resources.iter().map(|(&id, r)| (id, *r)).collect();
        self.out.owner_lds = d.owner_lds.map(|o| (o.dwords, o.absolute));
        self.out.ps_outputs = d.ps_outputs.clone();
        self.out.uavs = d.uavs.keys().copied().collect();
        self.out.pixel_shader = d.pixel_shader;
        Ok(())
    }

    fn instructions(&mut self) -> Result<(), InterpError> {
        let mut stack: Vec<Frame> = Vec::new();
        let mut calls: Vec<(usize, u32)> = Vec::new();
        for (pc, st) in self.prog.statements.iter().enumerate() {
            self.pc = pc;
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
                    label_of(st).ok_or_else(|| malformed(line, "func without label"))?;
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
                op if runs_as_nothing(op) => {}
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
            let entry = self.decls.functions.get(&label).map(|&at| at as u32 + 1);
            let entry = entry.ok_or_else(|| {
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
        if let Some(v) = self.decls.literal_at(num, self.pc) {
            return v;
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

fn set_target(inst: &mut Inst, t: u32) {
    match &mut inst.op {
        Op::If(_, x) | Op::Jump(x) | Op::JumpIf(_, x) => *x = t,
        _ => {}
    }
}
