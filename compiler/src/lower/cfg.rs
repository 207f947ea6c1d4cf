//! Structured IL control flow -> CFG blocks.
//!
//! Every construct keeps one merge block that post-dominates it, so the immediate
//! post-dominator of a branching block is its reconvergence point (what SSY/SYNC and
//! PBK/BRK need later):
//! - `if_*`/`ifc`: `brif c, then, else`; `else` (or, without one, an empty else block)
//!   and `then` both jump to the merge block.
//! - `whileloop`/`endloop`: a header block (the `continue` target) and an exit block (the
//!   `break` target); `endloop` jumps back to the header.
//! - `switch`: the selector is read at `switch`; the body falls through from case label to
//!   case label; the comparison chain is emitted at `endswitch` (first matching `case`
//!   wins, else `default`, else the exit block).
//! - `call`: the callee's body is inlined with its own construct stack; `ret` inside it
//!   jumps to a continuation block. Recursion is diagnosed. `ret` in the main program and
//!   `end` return from the kernel.
//!
//! Code after an unconditional transfer lands in a fresh block without predecessors, which
//! [`super::ssa::SsaBuilder::finish`] removes.

use ilc_passes::ir::{Block, FloatCC, IntCC, Type, Value};
use isa_amdil::ast::{Instruction, RelOp};
use isa_amdil::decls::label_of;
use isa_amdil::opcodes::Opcode;

use super::ops::Ty;
use super::{LResult, Lowerer};

/// An open structured construct.
pub(crate) enum Frame {
    /// `if` .. [`else`] .. `endif`.
    If {
        else_block: Block,
        merge: Block,
        in_else: bool,
    },
    /// `whileloop` .. `endloop`.
    Loop { header: Block, exit: Block },
    /// `switch` .. `endswitch`.
    Switch {
        dispatch: Block,
        selector: Value,
        cases: Vec<(u32, Block)>,
        labels: Vec<Block>,
        default: Option<Block>,
        exit: Block,
    },
}

/// Maps an IL relop to the float condition the interpreter uses (`ne` is unordered).
pub(crate) fn float_cc(r: RelOp) -> FloatCC {
    match r {
        RelOp::Eq => FloatCC::Oeq,
        RelOp::Ne => FloatCC::Une,
        RelOp::Gt => FloatCC::Ogt,
        RelOp::Ge => FloatCC::Oge,
        RelOp::Lt => FloatCC::Olt,
        RelOp::Le => FloatCC::Ole,
    }
}

impl Lowerer<'_> {
    /// Ends the current block with `jump target` and records the edge.
    pub(crate) fn jump_to(&mut self, target: Block) {
        let from = self.cur;
        self.cursor().ins().jump(target, &[]);
        self.ssa.add_pred(target, from);
    }

    /// Ends the current block with `brif c, t, e` and records both edges.
    pub(crate) fn branch_to(&mut self, c: Value, t: Block, e: Block) {
        let from = self.cur;
        self.cursor().ins().brif(c, t, &[], e, &[]);
        self.ssa.add_pred(t, from);
        self.ssa.add_pred(e, from);
    }

    /// Starts lowering into `b`.
    /// Starts lowering into `b`; blocks enter the layout in the order they are entered,
    /// so the layout follows the source order of the structured constructs.
    pub(crate) fn switch_to(&mut self, b: Block) {
        if !self.func.layout.is_block_inserted(b) {
            self.func.layout.append_block(b);
        }
        self.cur = b;
    }

    /// Ends the body of a loop the lowering builds (the CAS loop of an atomic no SM50
    /// instruction computes, a 64-bit division) at the current block: leaves when `done`,
    /// else jumps back to `head` with `args`; `head` is sealed, and lowering goes on in a new
    /// exit block. The shape of a lowered `whileloop` with `break`: the exit and the back
    /// edge each leave through a block of their own ending in a jump, so the backend finds
    /// the reconvergence point of a divergent loop (lanes leave it one by one).
    pub(crate) fn close_loop(&mut self, done: Value, head: Block, args: &[Value]) {
        let brk = self.new_block();
        let cont = self.new_block();
        let exit = self.new_block();
        let from = self.cur;
        self.cursor().ins().brif(done, brk, &[], cont, &[]);
        self.ssa.add_pred(brk, from);
        self.ssa.add_pred(cont, from);
        self.ssa.seal(&mut self.func, brk);
        self.ssa.seal(&mut self.func, cont);
        self.switch_to(cont);
        self.cursor().ins().jump(head, args);
        self.ssa.add_pred(head, cont);
        self.ssa.seal(&mut self.func, head);
        self.switch_to(brk);
        self.cursor().ins().jump(exit, &[]);
        self.ssa.add_pred(exit, brk);
        self.ssa.seal(&mut self.func, exit);
        self.switch_to(exit);
    }

    /// A new block, not yet in the layout (see [`Self::switch_to`]).
    fn new_block(&mut self) -> Block {
        self.func.dfg.make_block()
    }

    /// `x != 0` (or `x == 0` when `zero`), looking through `bmask p` to use `p` itself.
    fn truth(&mut self, x: Value, zero: bool) -> Value {
        if let Some(inst) = self.func.dfg.value_inst(x) {
            if self.func.dfg.opcode(inst) == ilc_passes::ir::Opcode::Bmask {
                let p = self.func.dfg.inst_args(inst)[0];
                return if zero { self.cursor().ins().pnot(p) } else { p };
            }
        }
        let z = self.iconst(0);
        let cc = if zero { IntCC::Eq } else { IntCC::Ne };
        self.cursor().ins().icmp(cc, x, z)
    }

    /// The predicate of a conditional flow statement (`_logicalz`, `_logicalnz`, `c_relop`).
    fn condition(&mut self, st: &Instruction) -> LResult<Value> {
        use Opcode as O;
        let src0 = st
            .srcs
            .first()
            .ok_or_else(|| "missing condition operand".to_string())?;
        match st.opcode {
            O::IfLogicalz
            | O::BreakLogicalz
            | O::ContinueLogicalz
            | O::CallLogicalz
            | O::RetLogicalz => {
                let x = self.read_src(src0, 0, Ty::Int)?;
                Ok(self.truth(x, true))
            }
            O::IfLogicalnz
            | O::BreakLogicalnz
            | O::ContinueLogicalnz
            | O::CallLogicalnz
            | O::RetLogicalnz => {
                let x = self.read_src(src0, 0, Ty::Int)?;
                Ok(self.truth(x, false))
            }
            O::Ifc | O::Breakc | O::Continuec => {
                let r = st.relop().ok_or_else(|| "missing _relop(..)".to_string())?;
                let src1 = st
                    .srcs
                    .get(1)
                    .ok_or_else(|| "needs two source operands".to_string())?;
                let a = self.read_src(src0, 0, Ty::Float)?;
                let b = self.read_src(src1, 0, Ty::Float)?;
                Ok(self.cursor().ins().fcmp(float_cc(r), a, b))
            }
            _ => Ok(self.cursor().ins().pconst(true)),
        }
    }

    pub(crate) fn lower_if(&mut self, st: &Instruction) -> LResult<()> {
        let c = self.condition(st)?;
        let then_b = self.new_block();
        let else_b = self.new_block();
        let merge = self.new_block();
        self.branch_to(c, then_b, else_b);
        self.ssa.seal(&mut self.func, then_b);
        self.ssa.seal(&mut self.func, else_b);
        self.frames.push(Frame::If {
            else_block: else_b,
            merge,
            in_else: false,
        });
        self.switch_to(then_b);
        Ok(())
    }

    pub(crate) fn lower_else(&mut self) -> LResult<()> {
        match self.frames.last_mut() {
            Some(Frame::If {
                else_block,
                merge,
                in_else,
            }) if !*in_else => {
                *in_else = true;
                let (e, m) = (*else_block, *merge);
                self.jump_to(m);
                self.switch_to(e);
                Ok(())
            }
            _ => Err("`else` without `if`".into()),
        }
    }

    pub(crate) fn lower_endif(&mut self) -> LResult<()> {
        match self.frames.pop() {
            Some(Frame::If {
                else_block,
                merge,
                in_else,
            }) => {
                self.jump_to(merge);
                if !in_else {
                    self.switch_to(else_block);
                    self.jump_to(merge);
                }
                self.ssa.seal(&mut self.func, merge);
                self.switch_to(merge);
                Ok(())
            }
            Some(f) => {
                self.frames.push(f);
                Err("`endif` without `if`".into())
            }
            None => Err("`endif` without `if`".into()),
        }
    }

    pub(crate) fn lower_whileloop(&mut self) -> LResult<()> {
        let header = self.new_block();
        let exit = self.new_block();
        self.jump_to(header);
        self.frames.push(Frame::Loop { header, exit });
        self.switch_to(header);
        Ok(())
    }

    pub(crate) fn lower_endloop(&mut self) -> LResult<()> {
        match self.frames.pop() {
            Some(Frame::Loop { header, exit }) => {
                self.jump_to(header);
                self.ssa.seal(&mut self.func, header);
                self.ssa.seal(&mut self.func, exit);
                self.switch_to(exit);
                Ok(())
            }
            Some(f) => {
                self.frames.push(f);
                Err("`endloop` without `whileloop`".into())
            }
            None => Err("`endloop` without `whileloop`".into()),
        }
    }

    /// Target of `break`: the innermost loop or switch.
    fn break_target(&self) -> Option<Block> {
        self.frames.iter().rev().find_map(|f| match f {
            Frame::Loop { exit, .. } | Frame::Switch { exit, .. } => Some(*exit),
            Frame::If { .. } => None,
        })
    }

    fn conditional_transfer(&mut self, st: &Instruction, target: Block) -> LResult<()> {
        if matches!(
            st.opcode,
            Opcode::Break | Opcode::Continue | Opcode::Ret | Opcode::RetDyn
        ) {
            self.jump_to(target);
            return Ok(());
        }
        let c = self.condition(st)?;
        let cont = self.new_block();
        self.branch_to(c, target, cont);
        self.ssa.seal(&mut self.func, cont);
        self.switch_to(cont);
        Ok(())
    }

    pub(crate) fn lower_break(&mut self, st: &Instruction) -> LResult<()> {
        let t = self
            .break_target()
            .ok_or_else(|| "`break` outside a loop or switch".to_string())?;
        self.conditional_transfer(st, t)
    }

    pub(crate) fn lower_continue(&mut self, st: &Instruction) -> LResult<()> {
        let t = self
            .frames
            .iter()
            .rev()
            .find_map(|f| match f {
                Frame::Loop { header, .. } => Some(*header),
                _ => None,
            })
            .ok_or_else(|| "`continue` outside a loop".to_string())?;
        self.conditional_transfer(st, t)
    }

    pub(crate) fn lower_switch(&mut self, st: &Instruction) -> LResult<()> {
        let src = st
            .srcs
            .first()
            .ok_or_else(|| "`switch` needs a source operand".to_string())?;
        let selector = self.read_src(src, 0, Ty::Int)?;
        let dispatch = self.new_block();
        let exit = self.new_block();
        self.jump_to(dispatch);
        self.ssa.seal(&mut self.func, dispatch);
        self.frames.push(Frame::Switch {
            dispatch,
            selector,
            cases: Vec::new(),
            labels: Vec::new(),
            default: None,
            exit,
        });
        // Code between `switch` and the first label is unreachable.
        let dead = self.new_block();
        self.ssa.seal(&mut self.func, dead);
        self.switch_to(dead);
        Ok(())
    }

    fn switch_label(&mut self, case: Option<u32>) -> LResult<()> {
        let label = self.new_block();
        match self.frames.last_mut() {
            Some(Frame::Switch {
                cases,
                labels,
                default,
                ..
            }) => {
                labels.push(label);
                match case {
                    Some(v) => {
                        if !cases.iter().any(|(c, _)| *c == v) {
                            cases.push((v, label));
                        }
                    }
                    None => *default = Some(label),
                }
            }
            _ => {
                return Err(if case.is_some() {
                    "`case` outside a switch".into()
                } else {
                    "`default` outside a switch".into()
                })
            }
        }
        self.jump_to(label);
        self.switch_to(label);
        Ok(())
    }

    pub(crate) fn lower_case(&mut self, st: &Instruction) -> LResult<()> {
        let v = match &st.payload {
            isa_amdil::ast::Payload::Case(v) => *v as u32,
            isa_amdil::ast::Payload::Numbers(n) if !n.is_empty() => n[0],
            _ => return Err("`case` without a value".into()),
        };
        self.switch_label(Some(v))
    }

    pub(crate) fn lower_default(&mut self) -> LResult<()> {
        self.switch_label(None)
    }

    pub(crate) fn lower_endswitch(&mut self) -> LResult<()> {
        let Some(Frame::Switch {
            dispatch,
            selector,
            cases,
            labels,
            default,
            exit,
        }) = self.frames.pop()
        else {
            return Err("`endswitch` without `switch`".into());
        };
        self.jump_to(exit);
        // The comparison chain, in case order (first match wins).
        self.switch_to(dispatch);
        for (v, target) in cases {
            let k = self.iconst(v);
            let c = self.cursor().ins().icmp(IntCC::Eq, selector, k);
            let next = self.new_block();
            self.branch_to(c, target, next);
            self.ssa.seal(&mut self.func, next);
            self.switch_to(next);
        }
        self.jump_to(default.unwrap_or(exit));
        for l in labels {
            self.ssa.seal(&mut self.func, l);
        }
        self.ssa.seal(&mut self.func, exit);
        self.switch_to(exit);
        Ok(())
    }

    pub(crate) fn lower_call(&mut self, st: &Instruction) -> LResult<()> {
        let label = label_of(st).ok_or_else(|| "call without a label".to_string())?;
        // A body runs from after its first `func` label to the end of the program;
        // `lower_range` stops at the first `func` label control cannot fall through (so a
        // function without a final `ret` runs on into the next one, as in the interpreter).
        let start = self
            .decls
            .functions
            .get(&label)
            .ok_or_else(|| format!("call to undefined function {label}"))?
            + 1;
        if self.inline_stack.iter().any(|(l, _)| *l == label) {
            return Err(format!(
                "recursive call of function {label} cannot be inlined"
            ));
        }
        if self.inline_stack.len() >= 32 {
            return Err("calls nested deeper than 32".into());
        }
        let cont = self.new_block();
        if st.opcode != Opcode::Call {
            let c = self.condition(st)?;
            let call_b = self.new_block();
            self.branch_to(c, call_b, cont);
            self.ssa.seal(&mut self.func, call_b);
            self.switch_to(call_b);
        }
        let saved_frames = std::mem::take(&mut self.frames);
        let saved_stmt = self.stmt;
        tracing::debug!(
            function = label,
            depth = self.inline_stack.len() + 1,
            "inlining call"
        );
        self.inline_stack.push((label, cont));
        self.lower_range(start, self.num_statements());
        if !self.frames.is_empty() {
            self.frames.clear();
            self.inline_stack.pop();
            self.frames = saved_frames;
            self.stmt = saved_stmt;
            return Err(format!(
                "function {label} has a control-flow construct that is never closed"
            ));
        }
        if !self.block_terminated(self.cur) {
            self.jump_to(cont);
        }
        self.inline_stack.pop();
        self.frames = saved_frames;
        self.stmt = saved_stmt;
        self.ssa.seal(&mut self.func, cont);
        self.switch_to(cont);
        Ok(())
    }

    /// `ret` (unconditional when `st` is `None`) / `ret_logicalz|nz`.
    pub(crate) fn lower_ret(&mut self, st: Option<&Instruction>) -> LResult<()> {
        match self.inline_stack.last() {
            Some(&(_, cont)) => match st {
                None => {
                    self.jump_to(cont);
                    Ok(())
                }
                Some(st) => self.conditional_transfer(st, cont),
            },
            None => {
                let Some(st) = st else {
                    self.cursor().ins().return_();
                    return Ok(());
                };
                let c = self.condition(st)?;
                let ret_b = self.new_block();
                let cont = self.new_block();
                self.branch_to(c, ret_b, cont);
                self.ssa.seal(&mut self.func, ret_b);
                self.ssa.seal(&mut self.func, cont);
                self.switch_to(ret_b);
                self.cursor().ins().return_();
                self.switch_to(cont);
                Ok(())
            }
        }
    }

    /// `iconst.b32 v` in the current block.
    pub(crate) fn iconst(&mut self, v: u32) -> Value {
        self.cursor().ins().iconst(Type::B32, v as u64)
    }
}
