//! Semantic validation of a parsed (or decoded) [`Program`]. Collects every problem instead of
//! stopping at the first.
//!
//! Checks, each with its diagnostic code (see [`crate::diag::codes`]):
//! - operand counts per opcode (E0020) and operand kinds: destinations must be writable,
//!   sources readable, `mem` only as the mask carrier of stores, indices only on indexable
//!   registers, register-relative indices only where the guide allows them (E0021, E0015);
//! - declarations before use: constant buffers, UAV / SRV / LDS / GDS / resource ids, indexed
//!   temp arrays (E0030); literals used but never declared, or declared after first use, are
//!   warnings (W0001) because working code does it (DESIGN.md section 7);
//! - duplicate declarations (E0031, labelled with the first declaration; an identical
//!   `dcl_literal` repeated is only a warning);
//! - controls no IL form uses (`mad_ieeee`: E0014 with the closest known name as help; no
//!   CAL kernel in the corpus writes one, so they are not a warning);
//!   immediate indices past a declared size (W0001 for constant buffers, as hardware returns 0;
//!   W0002 for indexed temps);
//! - structured control flow: `if`/`else`/`endif`, `whileloop`/`loop`/`endloop`,
//!   `switch`/`case`/`default`/`endswitch` (duplicate case values, two defaults), `break` and
//!   `continue` placement, `func`/`endfunc`/`ret`, `endmain`, a final `end` (statements after
//!   the first `end` are a warning and ignored, see [`end`]), call targets that exist
//!   (E0040, E0041, E0042);
//! - an empty program (no version line, no statement) is an error (E0017);
//! - practice-vs-guide warnings (W0001): missing version line, barriers inside control flow,
//!   modifiers the guide forbids on integer instructions, graphics/SM30 opcodes in `il_cs`,
//!   `.w` of the 3-D id registers, functions without `endmain`.
//!
//! Declarations are read through the declarations summary ([`crate::decls`]), built here
//! statement by statement so that uses are checked against what is declared so far; the
//! interpreter and the compiler's lowering take the same summary.
//!
//! Guarantees: never panics; diagnostics come in statement order (then end-of-program ones).

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

use std::collections::{HashMap, HashSet};

use crate::ast::*;
use crate::decls::{Declarations, ProblemKind};
use crate::diag::{codes, Diagnostic};
use crate::opcodes::{Form, Opcode, Usage};

pub mod end;

/// Validates a program and returns all diagnostics (errors and warnings).
pub fn validate(p: &Program) -> Vec<Diagnostic> {
    validate_declared(p).0
}

/// As [`validate`], also returning the declarations summary of the program cut after its
/// first `end` ([`end::before_end`]): the `Declarations::collect` of those statements,
/// finished with the version line, which the validator builds anyway (a consumer takes it
/// instead of walking the statements again).
pub fn validate_declared(p: &Program) -> (Vec<Diagnostic>, Declarations) {
    let mut v = Validator::default();
    let decls = v.run(&end::before_end(p));
    if let Some(i) = end::after_end(p) {
        v.warn(
            codes::PRACTICE,
            p.statements[i].span,
            "statements after `end` are ignored (the guide allows one final `end`)",
        );
    }
    (v.diags, decls)
}

/// Parses and validates IL text: the program when no step found an error, and the
/// diagnostics of every step (parse errors first). Macro calls are expanded between the two
/// ([`crate::macros`]). Validation also runs on the lines that parsed when some did not, so
/// one run reports as much as possible.
pub fn parse_and_validate(source: &str) -> (Option<Program>, Vec<Diagnostic>) {
    parse_and_validate_limited(source, usize::MAX)
}

/// As [`parse_and_validate`], stopping with an error after `max_statements` statements
/// (before macro expansion, which has its own bound).
pub fn parse_and_validate_limited(
    source: &str,
    max_statements: usize,
) -> (Option<Program>, Vec<Diagnostic>) {
    let (prog, diags) = parse_and_validate_declared(source, max_statements);
    (prog.map(|(p, _)| p), diags)
}

/// As [`parse_and_validate_limited`], with the program's declarations summary (see
/// [`validate_declared`]).
pub fn parse_and_validate_declared(
    source: &str,
    max_statements: usize,
) -> (Option<(Program, Declarations)>, Vec<Diagnostic>) {
    let (mut prog, mut diags) = crate::parser::parse_lossy_limited(source, max_statements);
    if diags.iter().any(|d| d.code == codes::TOO_MANY_STATEMENTS) {
        // A truncated program: its other diagnostics would be noise.
        return (None, diags);
    }
    diags.extend(crate::macros::expand(&mut prog));
    let (more, decls) = validate_declared(&prog);
    diags.extend(more);
    if diags.iter().any(Diagnostic::is_error) {
        (None, diags)
    } else {
        (Some((prog, decls)), diags)
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Block {
    If { has_else: bool },
    Loop,
    Switch,
    Func,
}

/// What is declared so far, and where each (kind, number) was first declared.
#[derive(Default)]
struct Decls {
    /// The declarations summary of the statements seen so far.
    sum: Declarations,
    /// Where each (kind, number) was first declared, for the "declared twice" label.
    first: HashMap<(&'static str, u32), Span>,
}

impl Decls {
    /// Records the declaration of `kind` number `n` at `span`; the first declaration's span
    /// when there was one.
    fn declared(&mut self, kind: &'static str, n: u32, span: Span) -> Option<Span> {
        match self.first.entry((kind, n)) {
            std::collections::hash_map::Entry::Occupied(e) => Some(*e.get()),
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(span);
                None
            }
        }
    }
}

/// Structured control-flow state while the statements are checked in order.
#[derive(Default)]
struct Flow {
    /// Open blocks and where each starts.
    stack: Vec<(Block, Span)>,
    /// Per open switch: each case value's first span, the first `default`'s span.
    switch_cases: Vec<(HashMap<i32, Span>, Option<Span>)>,
    seen_endmain: bool,
    seen_end: bool,
    /// The previous statement was a `ret` that closed a function.
    prev_closed_func_by_ret: bool,
    warned_func_without_endmain: bool,
}

#[derive(Default)]
struct Validator {
    diags: Vec<Diagnostic>,
    decls: Decls,
    used_literals: HashSet<u32>,
}

fn is_integer_op(op: Opcode) -> bool {
    matches!(
        op.section(),
        "7.7" | "7.8" | "7.9" | "7.13" | "7.15" | "7.16" | "7.17"
    ) && op != Opcode::And
        || matches!(
            op,
            Opcode::And | Opcode::Ftoi | Opcode::Ftou | Opcode::Itof | Opcode::Utof
        )
}

impl Validator {
    fn error(&mut self, code: &'static str, span: Span, msg: impl Into<String>) {
        self.diags.push(Diagnostic::error(code, span, msg));
    }
    fn error_note(&mut self, code: &'static str, span: Span, msg: impl Into<String>, open: Span) {
        self.diags.push(
            Diagnostic::error(code, span, msg).with_label(open, "the open block starts here"),
        );
    }
    /// An E0030 for `what` number `n`; when others of its `kind` are declared, help naming
    /// the numerically closest one and a label at its declaration.
    fn undeclared(&mut self, span: Span, kind: &str, what: &str, n: u32, msg: String) {
        let near = self
            .decls
            .first
            .iter()
            .filter(|((k, _), _)| *k == kind)
            .min_by_key(|((_, m), _)| (m.abs_diff(n), *m))
            .map(|((_, m), at)| (*m, *at));
        let mut d = Diagnostic::error(codes::UNDECLARED, span, msg);
        if let Some((m, at)) = near {
            // `cb0`/`x0` are written without a space, `UAV 1` with one.
            let name = if what.len() <= 2 {
                format!("{what}{m}")
            } else {
                format!("{what} {m}")
            };
            d = d
                .with_help(format!("did you mean {name}?"))
                .with_label(at, format!("{name} is declared here"));
        }
        self.diags.push(d);
    }
    fn warn(&mut self, code: &'static str, span: Span, msg: impl Into<String>) {
        self.diags.push(Diagnostic::warning(code, span, msg));
    }

    /// Checks `p`; returns its whole-program declarations summary.
    fn run(&mut self, p: &Program) -> Declarations {
        let compute = p
            .version
            .as_ref()
            .map(|v| v.shader == ShaderType::Compute)
            .unwrap_or(true);
        // Function labels and forward literal uses are checked against the whole program.
        let whole = Declarations::collect(p.version.as_ref(), &p.statements);
        if p.statements.iter().all(|s| s.opcode == Opcode::Comment) {
            self.empty_program(p);
            return whole;
        }
        if p.version.is_none() {
            let span = p.statements.first().map(|s| s.span).unwrap_or(Span::NONE);
            self.warn(
                codes::PRACTICE,
                span,
                "no version line (`il_cs_2_0`); assuming a compute shader",
            );
        }
        let mut flow = Flow::default();
        let mut thread_group: Option<Span> = None;
        let mut max_threads: Option<Span> = None;
        let mut uses_lds = None;
        for (at, s) in p.statements.iter().enumerate() {
            let op = s.opcode;
            let info = op.info();
            if compute && !matches!(info.usage, Usage::Cs | Usage::Tex | Usage::Meta) {
                self.warn(
                    codes::PRACTICE,
                    s.span,
                    format!(
                        "`{op}` is not a compute instruction (guide section {})",
                        op.section()
                    ),
                );
            }
            self.operands(s);
            self.unknown_controls(s);
            if let Some(what) = crate::binary::missing_required_control(s) {
                // Memory ops without `_id` are reported by the declaration checks.
                if what != "_id(n)" {
                    self.error(
                        codes::BAD_MODIFIER,
                        s.span,
                        format!("`{op}` needs `{what}`"),
                    );
                }
            }
            self.declaration(at, s, &mut thread_group, &mut max_threads);
            if uses_lds.is_none() && op.mnemonic().starts_with("lds_") && s.id().is_some() {
                uses_lds = Some(s.span);
            }
            self.structure(p, at, s, &whole, &mut flow);
            self.literal_uses(s, &whole);
        }
        self.end_of_program(p, flow);
        if let (Some(span), None, None) = (uses_lds, thread_group, max_threads) {
            self.warn(
                codes::PRACTICE,
                span,
                "LDS used without `dcl_num_thread_per_group`",
            );
        }
        whole
    }

    /// A program of nothing but whitespace, comments or NULs (or a version token alone) is
    /// not a kernel: an embedder passing the wrong buffer must not get an empty kernel back.
    fn empty_program(&mut self, p: &Program) {
        let at = p.version.as_ref().map(|v| v.span).unwrap_or(Span::NONE);
        let at = if at.line == 0 {
            Span {
                line: 1,
                col: 1,
                ..Span::NONE
            }
        } else {
            at
        };
        let what = if p.version.is_none() {
            "empty program: no version line (`il_cs_2_0`) and no instructions"
        } else {
            "empty program: no instructions after the version line"
        };
        self.error(codes::BAD_VERSION, at, what);
    }

    /// Structured control flow at statement `s` (index `at`): blocks open and close in
    /// order, `break`/`continue`/`case` sit where they may, calls name functions.
    #[expect(
        clippy::collapsible_match,
        reason = "one arm per opcode group, the check inside, reads better than guards"
    )]
    fn structure(
        &mut self,
        p: &Program,
        at: usize,
        s: &Instruction,
        whole: &Declarations,
        flow: &mut Flow,
    ) {
        let op = s.opcode;
        let closed_by_ret = std::mem::take(&mut flow.prev_closed_func_by_ret);
        if op == Opcode::Func {
            self.func_label(p, at, s, whole, flow);
            return;
        }
        let Flow {
            stack,
            switch_cases,
            seen_endmain,
            seen_end,
            prev_closed_func_by_ret,
            ..
        } = flow;
        use Opcode::*;
        match op {
            IfLogicalz | IfLogicalnz | Ifc | Ifnz => {
                stack.push((Block::If { has_else: false }, s.span))
            }
            Else => match stack.last_mut() {
                Some((Block::If { has_else }, _)) if !*has_else => *has_else = true,
                Some((Block::If { .. }, _)) => {
                    self.error(codes::NESTING, s.span, "second `else` in one `if`")
                }
                _ => self.error(codes::NESTING, s.span, "`else` without `if`"),
            },
            Endif => match stack.last() {
                Some((Block::If { .. }, _)) => {
                    stack.pop();
                }
                _ => self.error(codes::NESTING, s.span, "`endif` without `if`"),
            },
            While | Loop => stack.push((Block::Loop, s.span)),
            Endloop => match stack.last() {
                Some((Block::Loop, _)) => {
                    stack.pop();
                }
                _ => self.error(
                    codes::NESTING,
                    s.span,
                    "`endloop` without `whileloop`/`loop`",
                ),
            },
            Switch => {
                stack.push((Block::Switch, s.span));
                switch_cases.push((HashMap::new(), None));
            }
            Case | Default => self.case_label(s, stack, switch_cases),
            Endswitch => match stack.last() {
                Some((Block::Switch, _)) => {
                    stack.pop();
                    switch_cases.pop();
                }
                _ => self.error(codes::NESTING, s.span, "`endswitch` without `switch`"),
            },
            Break | Breakc | BreakLogicalz | BreakLogicalnz => {
                if !stack
                    .iter()
                    .any(|(b, _)| matches!(b, Block::Loop | Block::Switch))
                {
                    self.error(
                        codes::NESTING,
                        s.span,
                        format!("`{op}` outside any loop or switch"),
                    );
                }
            }
            Continue | Continuec | ContinueLogicalz | ContinueLogicalnz => {
                if !stack.iter().any(|(b, _)| matches!(b, Block::Loop)) {
                    self.error(codes::NESTING, s.span, format!("`{op}` outside any loop"));
                }
            }
            Endfunc => match stack.last() {
                Some((Block::Func, _)) if stack.len() == 1 => {
                    stack.pop();
                }
                None if closed_by_ret => {}
                _ => self.error(
                    codes::NESTING,
                    s.span,
                    "`endfunc` without matching `func` (or inside a block)",
                ),
            },
            Ret => {
                if stack.len() == 1 && stack[0].0 == Block::Func {
                    stack.pop();
                    *prev_closed_func_by_ret = true;
                } else if !stack.is_empty() {
                    self.warn(
                        codes::PRACTICE,
                        s.span,
                        "`ret` inside control flow (the guide requires `ret_dyn` there)",
                    );
                }
            }
            Endmain => {
                if *seen_endmain {
                    self.error(codes::NESTING, s.span, "second `endmain`");
                }
                if let Some((_, open)) = stack.iter().find(|(b, _)| *b != Block::Func) {
                    let open = *open;
                    self.error_note(
                        codes::NESTING,
                        s.span,
                        "`endmain` inside an open block",
                        open,
                    );
                }
                *seen_endmain = true;
                stack.clear();
            }
            End => {
                if let Some((_, open)) = stack.iter().find(|(b, _)| *b != Block::Func) {
                    let open = *open;
                    self.error_note(codes::END, s.span, "`end` inside an open block", open);
                }
                stack.clear();
                *seen_end = true;
            }
            Call | CallLogicalz | CallLogicalnz | Callnz => {
                if let Payload::Label(l) = s.payload {
                    if !whole.functions.contains_key(&l) {
                        self.error(
                            codes::NO_SUCH_FUNCTION,
                            s.span,
                            format!("call to function {l}, which is not defined"),
                        );
                    }
                }
            }
            Fence if !s.controls.iter().any(|c| matches!(c, Control::Fence(_))) => {
                self.warn(
                    codes::SUSPICIOUS,
                    s.span,
                    "`fence` without `_threads`, `_lds`, `_memory`, `_gds` or `_sr` does nothing",
                );
            }
            Fence if s.has_fence(FenceFlag::Threads) => {
                if stack.iter().any(|(b, _)| *b != Block::Func) {
                    self.warn(
                        codes::PRACTICE,
                        s.span,
                        "barrier inside control flow: the guide forbids it; accepted, correct only if the condition is uniform across the group",
                    );
                }
            }
            _ => {}
        }
    }

    /// A `case` or `default`: inside a switch, not repeating a value or a `default`.
    fn case_label(
        &mut self,
        s: &Instruction,
        stack: &[(Block, Span)],
        switch_cases: &mut [(HashMap<i32, Span>, Option<Span>)],
    ) {
        let op = s.opcode;
        if !matches!(stack.last(), Some((Block::Switch, _))) {
            self.error(
                codes::NESTING,
                s.span,
                format!("`{op}` outside the body of a `switch`"),
            );
        } else if let Some((cases, default)) = switch_cases.last_mut() {
            if let Payload::Case(v) = s.payload {
                if let Some(first) = cases.get(&v) {
                    self.diags.push(
                        Diagnostic::error(
                            codes::DUPLICATE,
                            s.span,
                            format!("duplicate `case {v}` in one switch"),
                        )
                        .with_label(*first, "first here"),
                    );
                } else {
                    cases.insert(v, s.span);
                }
            } else if op == Opcode::Default {
                match default {
                    Some(first) => self.diags.push(
                        Diagnostic::error(
                            codes::DUPLICATE,
                            s.span,
                            "second `default` in one switch",
                        )
                        .with_label(*first, "first `default` here"),
                    ),
                    None => *default = Some(s.span),
                }
            }
        }
    }

    /// A `func` label: defined once, outside open blocks, after `endmain`; it opens the
    /// function's block.
    fn func_label(
        &mut self,
        p: &Program,
        at: usize,
        s: &Instruction,
        whole: &Declarations,
        flow: &mut Flow,
    ) {
        let stack = &mut flow.stack;
        if let Some(l) = crate::decls::label_of(s) {
            let first = whole.functions.get(&l).copied().unwrap_or(at);
            if first != at {
                self.diags.push(
                    Diagnostic::error(
                        codes::DUPLICATE,
                        s.span,
                        format!("function {l} defined twice"),
                    )
                    .with_label(p.statements[first].span, "first defined here"),
                );
            }
        }
        if let Some((_, open)) = stack.iter().find(|(b, _)| *b != Block::Func) {
            let open = *open;
            self.error_note(
                codes::NESTING,
                s.span,
                "`func` inside an open control-flow block",
                open,
            );
        }
        stack.clear();
        if !flow.seen_endmain && !flow.warned_func_without_endmain {
            flow.warned_func_without_endmain = true;
            self.warn(
                codes::PRACTICE,
                s.span,
                "function before `endmain` (the guide puts functions after `endmain`)",
            );
        }
        stack.push((Block::Func, s.span));
    }

    /// Literal use/declaration order: a literal used before its `dcl_literal`, or never
    /// declared, is a warning (once per literal).
    fn literal_uses(&mut self, s: &Instruction, whole: &Declarations) {
        // Most statements read no literal, or only declared ones: answered without the
        // iterator chain (which cost more than the checks themselves).
        let lits = &self.decls.sum.literals;
        let undeclared = |k: RegKind, n: u32| k == RegKind::Literal && !lits.contains_key(&n);
        let idx_undeclared = |r: &RegRef| {
            r.indices
                .iter()
                .any(|i| i.reg.is_some_and(|ir| undeclared(ir.kind, ir.num)))
        };
        if !s
            .srcs
            .iter()
            .any(|x| undeclared(x.reg.kind, x.reg.num) || idx_undeclared(&x.reg))
            && !s.dsts.iter().any(|d| idx_undeclared(&d.reg))
        {
            return;
        }
        for (kind, num) in operand_regs(s) {
            if kind == RegKind::Literal
                && !self.decls.sum.literals.contains_key(&num)
                && self.used_literals.insert(num)
            {
                if whole.literals.contains_key(&num) {
                    self.warn(
                        codes::PRACTICE,
                        s.span,
                        format!("literal l{num} used before its `dcl_literal`"),
                    );
                } else {
                    self.warn(
                        codes::PRACTICE,
                        s.span,
                        format!("literal l{num} is never declared; it reads as zero"),
                    );
                }
            }
        }
    }

    /// What is still open at the end of the program, and a missing `end`.
    fn end_of_program(&mut self, p: &Program, flow: Flow) {
        for (b, span) in flow.stack {
            let what = match b {
                Block::If { .. } => "`if` without `endif`",
                Block::Loop => "loop without `endloop`",
                Block::Switch => "`switch` without `endswitch`",
                Block::Func => continue,
            };
            self.error(codes::NESTING, span, what);
        }
        if !flow.seen_end {
            let span = p.statements.last().map(|s| s.span).unwrap_or(Span::NONE);
            self.warn(codes::END, span, "program has no `end`");
        }
    }

    /// Records declaration `s` (statement `at`) in the summary and reports what is wrong
    /// with it: declared twice, out of range, unsupported; then checks the ids a memory
    /// instruction names against what is declared so far.
    fn declaration(
        &mut self,
        at: usize,
        s: &Instruction,
        thread_group: &mut Option<Span>,
        max_threads: &mut Option<Span>,
    ) {
        use Opcode::*;
        if !s.opcode.is_declaration()
            && !matches!(s.payload, Payload::Literal { .. })
            && s.opcode.form() != Form::Numbers
        {
            // An instruction (or a `func` label) declares nothing that can repeat or be
            // malformed as a declaration: only its ids are checked (and a label recorded).
            self.decls.sum.record(at, s);
            self.id_uses(s);
            return;
        }
        let id = s.id();
        let dup = |v: &mut Validator, what: &str, first: Option<Span>| {
            let d = Diagnostic::error(codes::DUPLICATE, s.span, format!("{what} declared twice"));
            v.diags.push(match first {
                Some(f) => d.with_label(f, "first declared here"),
                None => d,
            });
        };
        // The group size is declared exactly (`num`) or as a maximum (`max`), not both.
        let exclusive = |v: &mut Validator, other: Option<Span>| {
            if let Some(other) = other {
                v.diags.push(
                    Diagnostic::error(
                        codes::DUPLICATE,
                        s.span,
                        "`dcl_num_thread_per_group` and `dcl_max_thread_per_group` are exclusive",
                    )
                    .with_label(other, "the other one is here"),
                );
            }
        };
        // The kind and number this statement declares, and (what, first) when it repeats.
        let key: Option<(&'static str, &str, u32)> = match (s.opcode, &s.payload) {
            (DclLiteral, Payload::Literal { reg, .. }) => Some(("literal", "literal", *reg)),
            (DclConstBuffer, Payload::ConstBuffer { cb, .. }) => {
                Some(("cb", "constant buffer cb", *cb))
            }
            (DclIndexedTempArray, Payload::IndexedTemp { reg, .. }) => {
                Some(("itemp", "indexed temp array x", *reg))
            }
            (DclRawUav | DclStructUav | DclUav | DclArenaUav | DclTypelessUav | DclTypedUav, _) => {
                id.map(|n| ("uav", "UAV ", n))
            }
            (DclRawSrv | DclStructSrv, _) => id.map(|n| ("srv", "SRV ", n)),
            (DclLds | DclStructLds, _) => id.map(|n| ("lds", "LDS ", n)),
            (DclGds | DclStructGds, _) => id.map(|n| ("gds", "GDS ", n)),
            (DclResource, _) => id.map(|n| ("resource", "resource ", n)),
            _ => None,
        };
        let first = key.and_then(|(kind, _, n)| self.decls.declared(kind, n, s.span));
        let previous_literal = match &s.payload {
            Payload::Literal { reg, .. } => self.decls.sum.literal_at(*reg, at),
            _ => None,
        };
        let problems = self.decls.sum.problems.len();
        self.decls.sum.record(at, s);
        match (s.opcode, &s.payload) {
            (DclLiteral, Payload::Literal { reg, values }) => match previous_literal {
                Some(old) if old != *values => dup(
                    self,
                    &format!("literal l{reg} with different values"),
                    first,
                ),
                Some(_) => {
                    let d = Diagnostic::warning(
                        codes::SUSPICIOUS,
                        s.span,
                        format!("literal l{reg} declared twice with the same values"),
                    );
                    self.diags.push(match first {
                        Some(f) => d.with_label(f, "first declared here"),
                        None => d,
                    });
                }
                None => {}
            },
            (DclConstBuffer, Payload::ConstBuffer { cb, size }) => {
                if *cb > 14 {
                    self.warn(
                        codes::PRACTICE,
                        s.span,
                        format!("constant buffer cb{cb}: the guide allows cb0..cb14"),
                    );
                }
                if *size > 4096 {
                    self.error(
                        codes::OUT_OF_RANGE,
                        s.span,
                        format!("cb{cb}[{size}] exceeds 4096 elements"),
                    );
                }
            }
            (DclNumThreadPerGroup, p) => {
                if let Payload::Numbers(n) = p {
                    if n.is_empty() || n.len() > 3 || n.contains(&0) {
                        self.error(
                            codes::BAD_DECL,
                            s.span,
                            "`dcl_num_thread_per_group` needs 1 to 3 non-zero sizes",
                        );
                    }
                }
                match *thread_group {
                    Some(first) => dup(self, "thread-group size", Some(first)),
                    None => *thread_group = Some(s.span),
                }
                exclusive(self, *max_threads);
            }
            (DclMaxThreadPerGroup, _) => {
                match *max_threads {
                    Some(first) => dup(self, "maximum thread-group size", Some(first)),
                    None => *max_threads = Some(s.span),
                }
                exclusive(self, *thread_group);
            }
            _ => {}
        }
        if let (Some((kind, what, n)), Some(first)) = (key, first) {
            if kind != "literal" {
                dup(self, &format!("{what}{n}"), Some(first));
            }
        }
        let unsupported: Vec<String> = self.decls.sum.problems[problems..]
            .iter()
            .filter(|p| p.kind == ProblemKind::TypedUav)
            .map(|p| p.message.clone())
            .collect();
        for what in unsupported {
            self.error(codes::UNSUPPORTED, s.span, what);
        }
        if s.opcode.is_declaration() && s.opcode.info().form == Form::Operands {
            let m = s.opcode.mnemonic();
            let needs_id = m.contains("uav")
                || m.contains("srv")
                || m == "dcl_lds"
                || m == "dcl_struct_lds"
                || m.contains("gds")
                || m == "dcl_resource";
            if needs_id && id.is_none() {
                self.error(codes::BAD_DECL, s.span, format!("`{m}` needs an `_id(n)`"));
            }
        }
        if matches!(s.opcode.form(), Form::Numbers) {
            if let Payload::Numbers(n) = &s.payload {
                let want = match s.opcode {
                    DclNumThreadPerGroup | DclTotalNumThreadGroup => None,
                    DclStructLds | DclStructGds => Some(2),
                    DclTypelessUav | DclTypedUav | DclGwsThreadCount | DclSemaphore => None,
                    _ => Some(1),
                };
                if let Some(w) = want {
                    if n.len() != w {
                        self.error(
                            codes::BAD_DECL,
                            s.span,
                            format!("`{}` takes {w} number(s), found {}", s.opcode, n.len()),
                        );
                    }
                }
            }
        }
        if !s.opcode.is_declaration() {
            self.id_uses(s);
        }
    }

    /// The UAV, SRV, LDS, GDS or resource id a memory or texture instruction names must be
    /// declared before it.
    fn id_uses(&mut self, s: &Instruction) {
        use Opcode::*;
        let id = s.id();
        let m = s.opcode.mnemonic();
        let sum = &self.decls.sum;
        let known = |ids: &dyn Fn(u32) -> bool| id.is_some_and(ids);
        let space = if m.starts_with("uav_") || m.starts_with("append_buf") {
            Some(("uav", "UAV", known(&|i| sum.uavs.contains_key(&i))))
        } else if m.starts_with("srv_") {
            Some(("srv", "SRV", known(&|i| sum.srvs.contains_key(&i))))
        } else if m.starts_with("lds_") && !matches!(s.opcode, LdsReadVec | LdsWriteVec) {
            Some(("lds", "LDS", known(&|i| sum.lds.contains_key(&i))))
        } else if m.starts_with("gds_") {
            Some(("gds", "GDS", known(&|i| sum.gds.contains_key(&i))))
        } else {
            None
        };
        if let Some((kind, what, known)) = space {
            match id {
                Some(id) if !known => self.undeclared(
                    s.span,
                    kind,
                    what,
                    id,
                    format!("{what} {id} is not declared"),
                ),
                None => self.error(codes::BAD_DECL, s.span, format!("`{m}` needs an `_id(n)`")),
                _ => {}
            }
        }
        if let Some(r) = s.resource() {
            let is_uav = s.generic("uav").is_some();
            let sum = &self.decls.sum;
            let known = if is_uav {
                sum.uavs.contains_key(&r)
            } else {
                sum.resources.contains_key(&r)
            };
            if !known {
                let (kind, what) = if is_uav {
                    ("uav", "UAV")
                } else {
                    ("resource", "resource")
                };
                self.undeclared(s.span, kind, what, r, format!("{what} {r} is not declared"));
            }
        }
    }

    /// Generic controls are kept by the parser whatever their name; names no IL form uses are
    /// errors (E0014, with the closest known name as help). Typed
    /// controls may appear once (`_cached` and `_uncached` exclude each other).
    fn unknown_controls(&mut self, s: &Instruction) {
        let key = |c: &Control| -> Option<(u8, u8)> {
            Some(match c {
                Control::Ieee => (0, 0),
                Control::Relop(_) => (1, 0),
                Control::ZeroOp(_) => (2, 0),
                Control::CmpVal(_) => (3, 0),
                Control::Id(_) => (4, 0),
                Control::Resource(_) => (5, 0),
                Control::Sampler(_) => (6, 0),
                Control::Stride(_) => (7, 0),
                Control::LOffset(_) => (8, 0),
                Control::Cached | Control::Uncached => (9, 0),
                Control::Fmt(k, _) => (10, *k),
                Control::Fence(f) => (11, *f as u8),
                Control::Sat => (12, 0),
                Control::Shift(_) => (13, 0),
                Control::Prec(_) => (14, 0),
                Control::Generic { .. } => return None,
            })
        };
        let mut seen: smallvec::SmallVec<[(u8, u8); 4]> = smallvec::SmallVec::new();
        for c in &s.controls {
            if let Some(k) = key(c) {
                if seen.contains(&k) {
                    self.error(
                        codes::BAD_MODIFIER,
                        s.span,
                        format!("control `{c}` repeats or contradicts an earlier one"),
                    );
                }
                seen.push(k);
            }
        }
        for c in &s.controls {
            if let Control::Generic { name, span, .. } = c {
                if !KNOWN_GENERIC.contains(&name.as_str()) {
                    // No CAL kernel we know of writes a control outside these lists, and
                    // ignoring one (`mad_ieeee`) silently changes what the program means.
                    let known = crate::parser::TYPED_CONTROLS
                        .iter()
                        .chain(KNOWN_GENERIC)
                        .copied();
                    let help = crate::diag::suggest(name, known).map(|g| {
                        if s.controls.len() == 1 {
                            format!("{}_{g}", s.opcode)
                        } else {
                            format!("_{g}")
                        }
                    });
                    self.diags.push(
                        Diagnostic::error(
                            codes::BAD_MODIFIER,
                            // The control itself; the statement when it has no position
                            // (decoded from binary).
                            if span.line == 0 { s.span } else { *span },
                            format!("unknown control `{c}` on `{}`", s.opcode),
                        )
                        .with_suggestion(help.as_deref()),
                    );
                }
            }
        }
    }

    fn operands(&mut self, s: &Instruction) {
        let info = s.opcode.info();
        if info.form == Form::Operands {
            if s.dsts.len() != info.dsts as usize {
                self.error(
                    codes::OPERAND_COUNT,
                    s.span,
                    format!(
                        "`{}` takes {} destination operand(s), found {}",
                        s.opcode,
                        info.dsts,
                        s.dsts.len()
                    ),
                );
            }
            let n = s.srcs.len();
            let (lo, hi) = s.src_count_range();
            if n < lo || n > hi {
                let want = if lo == hi {
                    format!("{lo}")
                } else {
                    format!("{lo} to {hi}")
                };
                self.error(
                    codes::OPERAND_COUNT,
                    s.span,
                    format!(
                        "`{}` takes {} source operand(s) after its destination, found {n}",
                        s.opcode, want
                    ),
                );
            }
        }
        let integer = is_integer_op(s.opcode);
        let store_like = s
            .dsts
            .first()
            .is_some_and(|d| d.reg.kind == RegKind::GenericMem);
        for d in &s.dsts {
            let sp = if d.span.line != 0 { d.span } else { s.span };
            if !writable(d.reg.kind) && !s.opcode.is_declaration() {
                self.error(
                    codes::OPERAND_KIND,
                    sp,
                    format!("`{}` cannot be a destination", d.reg),
                );
            }
            if d.reg.kind == RegKind::GenericMem && !is_store(s.opcode) {
                self.error(
                    codes::OPERAND_KIND,
                    sp,
                    format!(
                        "`mem` is only the mask of store instructions, not a destination of `{}`",
                        s.opcode
                    ),
                );
            }
            self.reg(&d.reg, sp);
            if integer && (d.sat || d.shift != ShiftScale::None) {
                self.warn(
                    codes::PRACTICE,
                    sp,
                    format!(
                        "`_sat`/shift-scale on the integer instruction `{}`",
                        s.opcode
                    ),
                );
            }
            if s.opcode == Opcode::LdsStoreVec {
                let m = d.mask.map(|c| c != DstComp::NoWrite);
                let ok = matches!(
                    m,
                    [true, false, false, false]
                        | [true, true, false, false]
                        | [true, true, true, false]
                        | [true, true, true, true]
                );
                if !ok {
                    self.error(
                        codes::BAD_MASK,
                        sp,
                        "`lds_store_vec` mask must be .x, .xy, .xyz or .xyzw",
                    );
                }
            }
        }
        if is_store(s.opcode) && !store_like && !s.dsts.is_empty() {
            self.warn(
                codes::SUSPICIOUS,
                s.span,
                format!("`{}` normally writes through `mem`", s.opcode),
            );
        }
        for src in &s.srcs {
            let sp = if src.span.line != 0 { src.span } else { s.span };
            if !readable(src.reg.kind) {
                self.error(
                    codes::OPERAND_KIND,
                    sp,
                    format!("`{}` cannot be a source", src.reg),
                );
            }
            self.reg(&src.reg, sp);
            let m = &src.mods;
            if integer
                && (m.invert || m.bias || m.x2 || m.sign || m.div_comp != DivComp::None || m.clamp)
            {
                self.warn(
                    codes::PRACTICE,
                    sp,
                    format!(
                        "float-only source modifier on the integer instruction `{}`",
                        s.opcode
                    ),
                );
            }
            if src.reg.kind.components() == 3 && src.swizzle.contains(&Swz::W) {
                self.warn(
                    codes::PRACTICE,
                    sp,
                    format!("`.w` of `{}` is undefined", src.reg.kind.name()),
                );
            }
            if src.reg.kind == RegKind::Timer && (s.opcode != Opcode::Mov || !m.is_empty()) {
                self.warn(
                    codes::PRACTICE,
                    sp,
                    "`Tmr` may only be read by `mov` without modifiers",
                );
            }
            if src.reg.kind == RegKind::ConstBuffer {
                if let (Some(size), [Index { reg: None, offset }]) =
                    (self.decls.sum.cbs.get(&src.reg.num), &src.reg.indices[..])
                {
                    if *offset < 0 || *offset as u32 >= *size {
                        self.warn(
                            codes::PRACTICE,
                            sp,
                            format!(
                                "cb{}[{offset}] is past the declared size {size}; it reads as zero",
                                src.reg.num
                            ),
                        );
                    }
                }
            }
        }
    }

    fn reg(&mut self, r: &RegRef, span: Span) {
        let needs_index = matches!(
            r.kind,
            RegKind::ConstBuffer
                | RegKind::IndexedTemp
                | RegKind::Global
                | RegKind::ImmConstBuffer
                | RegKind::This
                | RegKind::Persist
        );
        let indexable = needs_index || matches!(r.kind, RegKind::Input | RegKind::Output);
        if needs_index && r.indices.is_empty() {
            self.error(
                codes::BAD_INDEX,
                span,
                format!("`{}` needs an index `[..]`", r.kind.name()),
            );
        }
        if !indexable && !r.indices.is_empty() {
            self.error(
                codes::BAD_INDEX,
                span,
                format!("`{}` cannot be indexed", r.kind.name()),
            );
        }
        for ix in &r.indices {
            if let Some(ir) = ix.reg {
                if !matches!(
                    ir.kind,
                    RegKind::Temp | RegKind::Literal | RegKind::IndexedTemp
                ) && !ir.kind.is_thread_id()
                {
                    self.error(
                        codes::BAD_INDEX,
                        span,
                        format!("`{}` cannot be an index register", ir.kind.name()),
                    );
                }
                if ir.kind == RegKind::Literal && !self.decls.sum.literals.contains_key(&ir.num) {
                    self.warn(
                        codes::PRACTICE,
                        span,
                        format!("literal l{} is used before its `dcl_literal`", ir.num),
                    );
                }
            }
        }
        match r.kind {
            RegKind::ConstBuffer if !self.decls.sum.cbs.contains_key(&r.num) => {
                self.undeclared(
                    span,
                    "cb",
                    "cb",
                    r.num,
                    format!(
                        "constant buffer cb{} is not declared (`dcl_cb cb{}[N]`)",
                        r.num, r.num
                    ),
                );
            }
            RegKind::IndexedTemp => match self.decls.sum.itemps.get(&r.num).map(|t| t.size) {
                None => self.undeclared(
                    span,
                    "itemp",
                    "x",
                    r.num,
                    format!("indexed temp array x{} is not declared", r.num),
                ),
                Some(size) => {
                    if let [Index { reg: None, offset }] = &r.indices[..] {
                        if *offset < 0 || *offset as u32 >= size {
                            self.warn(
                                codes::SUSPICIOUS,
                                span,
                                format!("x{}[{offset}] is outside the declared size {size}", r.num),
                            );
                        }
                    }
                }
            },
            _ => {}
        }
    }
}

/// Names of `_name` / `_name(value)` controls used by the guide and by real IL producers that
/// the AST keeps as [`Control::Generic`].
const KNOWN_GENERIC: &[&str] = &[
    "",
    "position",
    "interp",
    "usage",
    "usageindex",
    "type",
    "length",
    "access",
    "generic",
    "uav",
    "uint",
    "lo",
    "hi",
    "shi",
    "fine",
    "coarse",
    "repeat",
    "size",
    "nrm4",
    "nrm3",
    "normalize",
    "ext",
    "sharingmode",
    "neighborexch",
    "stage",
    "sample",
    "center",
    "bias",
    "invert",
    "centered",
    "centroid",
    "coordmode",
    "elem",
    "exportstream",
    "elemoffset",
    "param",
    "compselect",
    "addroffimmi",
    "aoffimmi",
    "coordtype",
    "resourcetype",
    "matrix",
    "x",
    "y",
    "z",
    "w",
    "out",
    "in",
    "outline",
    "dynamic",
    "unnorm",
    "indexed",
    "mp",
    "rt",
    "quad",
    "constant",
    "linear",
    "noperspective",
    "wavefrontrel",
    "wavefrontabs",
    "mem",
    "bx2",
    "clamp",
    "invariant",
    "precise",
    "fmt",
    "stride",
    "primod",
    "secmod",
    "word1",
];

fn is_store(op: Opcode) -> bool {
    use Opcode::*;
    matches!(
        op,
        UavRawStore
            | UavStructStore
            | UavArenaStore
            | LdsStoreVec
            | LdsWriteVec
            | UavByteStore
            | UavShortStore
    )
}

fn writable(k: RegKind) -> bool {
    matches!(
        k,
        RegKind::Temp
            | RegKind::IndexedTemp
            | RegKind::Global
            | RegKind::Output
            | RegKind::GenericMem
            | RegKind::SharedTemp
            | RegKind::OutputArg
            | RegKind::Addr
            | RegKind::Depth
            | RegKind::Persist
            | RegKind::Input
            | RegKind::ConstFloat
            | RegKind::ConstInt
            | RegKind::ConstBool
    )
}

fn readable(k: RegKind) -> bool {
    !matches!(k, RegKind::GenericMem | RegKind::OutputArg | RegKind::Depth)
}

/// The registers `s` reads, as (kind, number): each source's register and its index
/// registers, then the destinations' index registers. Borrowed, not cloned or collected:
/// this runs for every statement of the program.
fn operand_regs(s: &Instruction) -> impl Iterator<Item = (RegKind, u32)> + '_ {
    fn idx(r: &RegRef) -> impl Iterator<Item = (RegKind, u32)> + '_ {
        r.indices
            .iter()
            .filter_map(|i| i.reg.map(|ir| (ir.kind, ir.num)))
    }
    s.srcs
        .iter()
        .flat_map(|x| std::iter::once((x.reg.kind, x.reg.num)).chain(idx(&x.reg)))
        .chain(s.dsts.iter().flat_map(|d| idx(&d.reg)))
}

#[cfg(test)]
mod tests;
