//! The IL macro processor (guide 7.19): `mdef(k)_out(m)_in(n) ... mend` definitions and
//! `mcall(k) (outs), (ins)` calls, expanded on the AST so that everything downstream (the
//! validator, the interpreter, the compiler) sees plain IL.
//!
//! Expansion of one call follows the guide's steps: a prolog of `mov`s from the actual
//! inputs to the formal `in#`, a copy of the body, an epilog of `mov`s from the formal
//! `out#` to the actual outputs (with the actual destination's write mask), and renaming:
//! every temporary, literal and formal argument of the body becomes a fresh register of the
//! program (numbers above every one the program or any macro uses), so expansions never
//! share state with the caller or with each other. Calls inside a macro body expand too
//! (nesting is bounded by [`MAX_DEPTH`]; recursion is an error). `_outline` macros are
//! inlined as well: the result is the same.
//!
//! The same step expands `transpose dst, src` (guide 7.11: `dst+k` row `c` gets `src+c`
//! component `k`) into `mov`s through four fresh temporaries, so it needs no support
//! downstream and works in every shader type.
//!
//! Requires: a parsed program. Guarantees: on success no `mdef`, `mend`, `mcall` or
//! `transpose` remains;
//! every statement of an expansion carries the span of the text it came from (the body's
//! lines, or the call for the prolog and epilog), so later diagnostics point at real source.

use std::collections::HashMap;

use crate::ast::*;
use crate::diag::{codes, Diagnostic};
use crate::opcodes::Opcode;

/// The deepest macro-call nesting expanded.
pub const MAX_DEPTH: usize = 32;
/// The most statements an expansion may produce (a guard against exponential call trees).
pub const MAX_EXPANDED: usize = 1 << 19;

struct Macro {
    outs: usize,
    ins: usize,
    body: Vec<Instruction>,
    span: Span,
}

/// True if `p` has anything [`expand`] rewrites (macros or `transpose`).
pub fn needs_expansion(p: &Program) -> bool {
    p.statements.iter().any(|s| {
        matches!(
            s.opcode,
            Opcode::Macrodef | Opcode::Macrocall | Opcode::Transpose
        )
    })
}

/// Expands every macro call of `p` in place. Returns the diagnostics (errors when a call
/// names no macro, passes the wrong number of arguments, nests too deep, or a definition is
/// malformed); on error the program keeps the statements it could not expand.
pub fn expand(p: &mut Program) -> Vec<Diagnostic> {
    if !needs_expansion(p) {
        return Vec::new();
    }
    let mut diags = Vec::new();
    let mut macros: HashMap<u32, Macro> = HashMap::new();
    let mut rest = Vec::with_capacity(p.statements.len());
    let mut stmts = std::mem::take(&mut p.statements).into_iter();
    while let Some(s) = stmts.next() {
        if s.opcode != Opcode::Macrodef {
            rest.push(s);
            continue;
        }
        let head = s;
        let mut body = Vec::new();
        let mut closed = false;
        for t in stmts.by_ref() {
            match t.opcode {
                Opcode::Macroend => {
                    closed = true;
                    break;
                }
                Opcode::Macrodef => diags.push(Diagnostic::error(
                    codes::NESTING,
                    t.span,
                    "`mdef` inside the body of another macro",
                )),
                _ => body.push(t),
            }
        }
        if !closed {
            diags.push(Diagnostic::error(
                codes::NESTING,
                head.span,
                "`mdef` without a matching `mend`",
            ));
        }
        let (Some(id), Some(outs), Some(ins)) = (
            nameless_value(&head),
            count(&head, "out"),
            count(&head, "in"),
        ) else {
            diags.push(Diagnostic::error(
                codes::BAD_DECL,
                head.span,
                "a macro definition is written `mdef(k)_out(m)_in(n)`",
            ));
            continue;
        };
        if let Some(prev) = macros.get(&id) {
            diags.push(
                Diagnostic::error(
                    codes::DUPLICATE,
                    head.span,
                    format!("macro {id} is defined twice"),
                )
                .with_label(prev.span, "first defined here"),
            );
            continue;
        }
        macros.insert(
            id,
            Macro {
                outs,
                ins,
                body,
                span: head.span,
            },
        );
    }
    let mut ex = Expander {
        macros: &macros,
        next_temp: 0,
        next_literal: 0,
        produced: 0,
        diags: &mut diags,
    };
    // Fresh registers start above every temporary and literal any statement names.
    let all = rest
        .iter()
        .chain(macros.values().flat_map(|m| m.body.iter()));
    for s in all {
        for_each_reg(s, &mut |kind, num| match kind {
            RegKind::Temp => ex.next_temp = ex.next_temp.max(num.saturating_add(1)),
            RegKind::Literal => ex.next_literal = ex.next_literal.max(num.saturating_add(1)),
            _ => {}
        });
    }
    let mut out = Vec::with_capacity(rest.len());
    for s in rest {
        if s.opcode == Opcode::Macrocall {
            ex.call(&s, 0, &mut Vec::new(), &mut out);
        } else {
            out.push(s);
        }
    }
    if out.iter().any(|s| s.opcode == Opcode::Transpose) {
        let mut next_temp = ex.next_temp;
        let mut done = Vec::with_capacity(out.len() + 16);
        for s in out {
            if s.opcode == Opcode::Transpose {
                transpose(s, &mut next_temp, &mut done, &mut diags);
            } else {
                done.push(s);
            }
        }
        out = done;
    }
    p.statements = out;
    diags
}

/// Register `reg + k` in the sense of the guide's "register number of src0 + k": the next
/// numbered register, or the next element of an indexed one.
fn reg_plus(reg: &RegRef, k: u32) -> Option<RegRef> {
    let mut r = reg.clone();
    if let Some(ix) = r.indices.last_mut() {
        ix.offset = ix.offset.checked_add(k as i32)?;
        return Some(r);
    }
    match r.kind {
        RegKind::Temp | RegKind::Output | RegKind::Input => {
            r.num = r.num.checked_add(k)?;
            Some(r)
        }
        _ => None,
    }
}

/// Appends the expansion of one `transpose` to `out` (or the statement itself after a
/// diagnostic when its operands have no "+k" registers).
fn transpose(
    s: Instruction,
    next_temp: &mut u32,
    out: &mut Vec<Instruction>,
    diags: &mut Vec<Diagnostic>,
) {
    let (Some(dst), Some(src)) = (s.dsts.first(), s.srcs.first()) else {
        // The validator reports the operand count.
        out.push(s);
        return;
    };
    let rows = (0..4).map(|k| Some((reg_plus(&src.reg, k)?, reg_plus(&dst.reg, k)?)));
    let Some(rows) = rows.collect::<Option<Vec<_>>>() else {
        diags.push(Diagnostic::error(
            codes::OPERAND_KIND,
            s.span,
            format!(
                "`transpose` reads and writes four consecutive registers; `{}` and `{}` \
                 registers have no successors",
                src.reg.kind.name(),
                dst.reg.kind.name()
            ),
        ));
        out.push(s);
        return;
    };
    // The fresh temporaries lie above every register the program names, including the
    // rows `+1..+3` of this statement (and of earlier ones, by induction).
    for (sreg, dreg) in &rows {
        for r in [sreg, dreg] {
            if r.kind == RegKind::Temp {
                *next_temp = (*next_temp).max(r.num.saturating_add(1));
            }
        }
    }
    let temps: Vec<u32> = (0..4).map(|k| next_temp.saturating_add(k)).collect();
    *next_temp = next_temp.saturating_add(4);
    let mov = |dst: DstOperand, src: SrcOperand| {
        let mut m = Instruction::new(Opcode::Mov);
        m.dsts.push(dst);
        m.srcs.push(src);
        m.span = s.span;
        m
    };
    // Read all four sources first: the destination rows may overlap them.
    for (k, (sreg, _)) in rows.iter().enumerate() {
        let mut from = src.clone();
        from.reg = sreg.clone();
        let mut to = DstOperand::new(RegRef::new(RegKind::Temp, temps[k]));
        to.span = dst.span;
        out.push(mov(to, from));
    }
    const COMPS: [Swz; 4] = [Swz::X, Swz::Y, Swz::Z, Swz::W];
    for (k, (_, dreg)) in rows.iter().enumerate() {
        for (c, (&m, &t)) in dst.mask.iter().zip(&temps).enumerate() {
            if m == DstComp::NoWrite {
                continue;
            }
            let mut to = dst.clone();
            to.reg = dreg.clone();
            to.mask = [DstComp::NoWrite; 4];
            to.mask[c] = m;
            let mut from = SrcOperand::new(RegRef::new(RegKind::Temp, t));
            from.swizzle = [COMPS[k]; 4];
            from.span = src.span;
            out.push(mov(to, from));
        }
    }
}

struct Expander<'a> {
    macros: &'a HashMap<u32, Macro>,
    next_temp: u32,
    next_literal: u32,
    produced: usize,
    diags: &'a mut Vec<Diagnostic>,
}

impl Expander<'_> {
    fn fresh_temp(&mut self) -> u32 {
        let n = self.next_temp;
        self.next_temp = self.next_temp.saturating_add(1);
        n
    }

    /// Appends the expansion of `call` to `out`; on error, the call itself (so later stages
    /// report it too) after a diagnostic.
    fn call(
        &mut self,
        call: &Instruction,
        depth: usize,
        active: &mut Vec<u32>,
        out: &mut Vec<Instruction>,
    ) {
        let Some(id) = nameless_value(call) else {
            self.diags.push(Diagnostic::error(
                codes::BAD_DECL,
                call.span,
                "a macro call is written `mcall(k) (outputs), (inputs)`",
            ));
            out.push(call.clone());
            return;
        };
        let Some(m) = self.macros.get(&id) else {
            self.diags.push(Diagnostic::error(
                codes::NO_SUCH_FUNCTION,
                call.span,
                format!("`mcall({id})`: no macro {id} is defined"),
            ));
            out.push(call.clone());
            return;
        };
        if call.dsts.len() != m.outs || call.srcs.len() != m.ins {
            self.diags.push(Diagnostic::error(
                codes::OPERAND_COUNT,
                call.span,
                format!(
                    "macro {id} takes {} output(s) and {} input(s), the call passes {} and {}",
                    m.outs,
                    m.ins,
                    call.dsts.len(),
                    call.srcs.len()
                ),
            ));
            out.push(call.clone());
            return;
        }
        if depth >= MAX_DEPTH || active.contains(&id) {
            let why = if active.contains(&id) {
                format!("macro {id} calls itself (directly or through other macros)")
            } else {
                format!("macro calls nest more than {MAX_DEPTH} deep")
            };
            self.diags
                .push(Diagnostic::error(codes::NESTING, call.span, why));
            out.push(call.clone());
            return;
        }
        if self.produced > MAX_EXPANDED {
            self.diags.push(Diagnostic::error(
                codes::NESTING,
                call.span,
                format!("macro expansion produces more than {MAX_EXPANDED} statements"),
            ));
            out.push(call.clone());
            return;
        }
        let ins: Vec<u32> = (0..m.ins).map(|_| self.fresh_temp()).collect();
        let outs: Vec<u32> = (0..m.outs).map(|_| self.fresh_temp()).collect();
        let mut temps: HashMap<u32, u32> = HashMap::new();
        let mut literals: HashMap<u32, u32> = HashMap::new();
        // Prolog: in_j = actual input j.
        for (j, src) in call.srcs.iter().enumerate() {
            let mut mov = Instruction::new(Opcode::Mov);
            mov.dsts.push(DstOperand {
                span: call.span,
                ..DstOperand::new(RegRef::new(RegKind::Temp, ins[j]))
            });
            mov.srcs.push(src.clone());
            mov.span = call.span;
            out.push(mov);
        }
        active.push(id);
        for s in &m.body {
            let mut s = s.clone();
            self.rename(&mut s, &ins, &outs, &mut temps, &mut literals);
            self.produced += 1;
            if s.opcode == Opcode::Macrocall {
                self.call(&s, depth + 1, active, out);
            } else {
                out.push(s);
            }
        }
        active.pop();
        // Epilog: actual output j = out_j.
        for (j, dst) in call.dsts.iter().enumerate() {
            let mut mov = Instruction::new(Opcode::Mov);
            mov.dsts.push(dst.clone());
            mov.srcs.push(SrcOperand {
                span: call.span,
                ..SrcOperand::new(RegRef::new(RegKind::Temp, outs[j]))
            });
            mov.span = call.span;
            out.push(mov);
        }
        self.produced += call.srcs.len() + call.dsts.len();
    }

    /// Renames the body statement `s` of one expansion (see the module doc).
    fn rename(
        &mut self,
        s: &mut Instruction,
        ins: &[u32],
        outs: &[u32],
        temps: &mut HashMap<u32, u32>,
        literals: &mut HashMap<u32, u32>,
    ) {
        let mut map = |kind: &mut RegKind, num: &mut u32, ex: &mut Self| match *kind {
            RegKind::Temp => {
                *num = *temps.entry(*num).or_insert_with(|| ex.fresh_temp());
            }
            RegKind::Literal => {
                *num = *literals.entry(*num).or_insert_with(|| {
                    let n = ex.next_literal;
                    ex.next_literal = ex.next_literal.saturating_add(1);
                    n
                });
            }
            RegKind::InputArg => {
                if let Some(&t) = ins.get(*num as usize) {
                    *kind = RegKind::Temp;
                    *num = t;
                }
            }
            RegKind::OutputArg => {
                if let Some(&t) = outs.get(*num as usize) {
                    *kind = RegKind::Temp;
                    *num = t;
                }
            }
            _ => {}
        };
        if let Payload::Literal { reg, .. } = &mut s.payload {
            let mut kind = RegKind::Literal;
            map(&mut kind, reg, self);
        }
        let mut regs: Vec<&mut RegRef> = Vec::new();
        regs.extend(s.dsts.iter_mut().map(|d| &mut d.reg));
        regs.extend(s.srcs.iter_mut().map(|x| &mut x.reg));
        for r in regs {
            map(&mut r.kind, &mut r.num, self);
            for idx in r.indices.iter_mut() {
                if let Some(ir) = &mut idx.reg {
                    map(&mut ir.kind, &mut ir.num, self);
                }
            }
        }
    }
}

/// Calls `f(kind, number)` for every register a statement names (operands, their index
/// registers, and the register a `dcl_literal` declares).
fn for_each_reg(s: &Instruction, f: &mut impl FnMut(RegKind, u32)) {
    if let Payload::Literal { reg, .. } = s.payload {
        f(RegKind::Literal, reg);
    }
    for r in s.regs() {
        f(r.kind, r.num);
        for idx in &r.indices {
            if let Some(ir) = idx.reg {
                f(ir.kind, ir.num);
            }
        }
    }
}

/// `k` of `mdef(k)` / `mcall(k)`: the nameless control the parser keeps.
fn nameless_value(s: &Instruction) -> Option<u32> {
    s.controls.iter().find_map(|c| match c {
        Control::Generic { name, value, .. } if name.is_empty() => {
            value.as_deref().and_then(parse_number)
        }
        _ => None,
    })
}

/// `m` of `_out(m)` / `n` of `_in(n)`; absent means none.
fn count(s: &Instruction, name: &str) -> Option<usize> {
    match s.generic(name) {
        None => Some(0),
        Some(v) => v.and_then(parse_number).map(|n| n as usize),
    }
}

fn parse_number(v: &str) -> Option<u32> {
    let v = v.trim();
    match v.strip_prefix("0x") {
        Some(h) => u32::from_str_radix(h, 16).ok(),
        None => v.parse().ok(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse;

    fn expanded(src: &str) -> (String, Vec<Diagnostic>) {
        let (p, d) = parse(src);
        assert!(d.iter().all(|d| !d.is_error()), "{d:?}");
        let mut p = p.unwrap();
        let diags = expand(&mut p);
        (p.to_string(), diags)
    }

    #[test]
    fn the_guides_example_expands_with_fresh_registers() {
        let (text, d) = expanded(
            "mdef(5)_out(1)_in(2)\nmov r1, in1\niadd out0, in0, r1\nmend\n\
             il_cs_2_0\ndcl_literal l1, 1, 2, 3, 4\nmcall(5) (r1), (r2, l1)\nend\n",
        );
        assert!(d.is_empty(), "{d:?}");
        // r1 and r2 are the program's, so fresh temporaries start at r3: in0 = r3, in1 = r4,
        // out0 = r5, the body's r1 = r6.
        let want = "mov r3, r2\nmov r4, l1\nmov r6, r4\niadd r5, r3, r6\nmov r1, r5\n";
        assert!(text.contains(want), "{text}");
        assert!(!text.contains("mdef") && !text.contains("mcall"), "{text}");
    }

    #[test]
    fn literals_are_renamed_per_expansion_and_calls_nest() {
        let (text, d) = expanded(
            "mdef(0)_out(1)_in(1)\ndcl_literal l1, 1, 1, 1, 1\niadd out0, in0, l1\nmend\n\
             mdef(1)_out(1)_in(1)\nmcall(0) (r0), (in0)\nmcall(0) (out0), (r0)\nmend\n\
             il_cs_2_0\ndcl_literal l1, 7, 7, 7, 7\nmcall(1) (r2), (l1)\nend\n",
        );
        assert!(d.is_empty(), "{d:?}");
        assert_eq!(text.matches("dcl_literal").count(), 3, "{text}");
        assert!(text.contains("dcl_literal l2,"), "{text}");
        assert!(text.contains("dcl_literal l3,"), "{text}");
        assert!(!text.contains("mcall"), "{text}");
    }

    #[test]
    fn transpose_expands_to_moves_through_fresh_temps() {
        let (text, diags) = expanded("il_cs_2_0\ntranspose r4.xy, r0_neg(xyzw)\nend\n");
        assert!(diags.is_empty(), "{diags:?}");
        // r0..r3 read into r8..r11 (above r4..r7, the rows written), then row k of the
        // destination gathers component k of each.
        assert!(text.contains("mov r8, r0_neg(xyzw)"), "{text}");
        assert!(text.contains("mov r11, r3_neg(xyzw)"), "{text}");
        assert!(text.contains("mov r4.x___, r8.x\n"), "{text}");
        assert!(text.contains("mov r4._y__, r9.x\n"), "{text}");
        assert!(text.contains("mov r7._y__, r9.w\n"), "{text}");
        assert!(!text.contains("r4.__z"), "{text}");
        assert!(!text.contains("transpose"), "{text}");
        let (_, diags) = expanded("il_cs_2_0\ntranspose r4, l0\nend\n");
        assert_eq!(diags.len(), 1, "{diags:?}");
    }

    #[test]
    fn bad_calls_are_diagnosed() {
        for (src, code) in [
            ("il_cs_2_0\nmcall(3) (r0), (r1)\nend\n", codes::NO_SUCH_FUNCTION),
            (
                "mdef(3)_out(1)_in(1)\nmov out0, in0\nmend\nil_cs_2_0\nmcall(3) (r0), ()\nend\n",
                codes::OPERAND_COUNT,
            ),
            (
                "mdef(3)_out(1)_in(1)\nmcall(3) (out0), (in0)\nmend\nil_cs_2_0\nmcall(3) (r0), (r1)\nend\n",
                codes::NESTING,
            ),
        ] {
            let (_, d) = expanded(src);
            assert!(d.iter().any(|d| d.code == code), "{src}: {d:?}");
        }
    }
}
