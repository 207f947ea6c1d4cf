//! Lowering of an AMD IL program (the [`isa_amdil::ast`] AST) to the SSA IR of
//! [`ilc_passes::ir`].
//!
//! Entry point: [`lower`] ([`lower_owned`] consumes the program, freeing the main body as
//! it lowers it: the compile pipeline uses it so that the AST and the IR never coexist
//! whole). Each 32-bit component of an IL vec4 register becomes its own SSA value, and only
//! components that some instruction reads are ever computed: an operation
//! computes the components its destination mask writes, and each of those reads only the
//! source components its swizzle selects. Swizzles, constant selects (`.0`/`.1`), source
//! modifiers, destination masks (including forced 0/1), `_sat` and shift scales are
//! resolved here, exactly as the reference interpreter ([`isa_amdil::interp`]) defines them.
//!
//! Modules:
//! - [`ssa`]: Braun et al. SSA construction over IL registers (`r#`, constant-indexed `x#`).
//! - `cfg`: structured control flow (if/else, whileloop, break/continue, switch with
//!   fall-through, call by inlining, ret, end) to a structured CFG: every construct has one
//!   merge block that post-dominates it, so immediate post-dominators give reconvergence.
//! - `ops`: source/destination operand handling and per-opcode ALU lowering; `vector`:
//!   64-bit pairs, dot products and the other multi-component operations.
//! - `resources`: UAV/SRV/LDS/constant buffer/`g[]`/indexed-temp memory, atomics,
//!   barriers and system values.
//!
//! Requires a program that parsed (declarations may appear anywhere); what it declares is
//! read from its declarations summary ([`isa_amdil::decls`]), never from the statements. Guarantees: never
//! panics on user input; every unsupported construct yields a [`LowerError`] naming the
//! opcode, its guide section and source span; on success the function passes the IR
//! verifier and computes bit-identical results to the IL interpreter (checked by
//! [`validate`] over the corpus, per-opcode tests and corpus mutants), except:
//! - transcendentals (`exp log rsq sin cos`, and `ln exn pow` composed from `flog2`/`fexp2`)
//!   are within the IR opcodes' stated error, not bit-exact;
//! - f64 NaN payloads may differ (both sides canonicalize f32 NaN to `0x7FFFFFFF`);
//! - byte addresses are 32-bit and wrap, where the interpreter computes them in 64 bits.
//!
//! Not supported (diagnosed): the SM30 `loop`, `_divcomp`, two-dimensional indices,
//! graphics-only opcodes, and the Appendix B opcodes that neither the guide nor the interpreter
//! defines (`mova`, `class`, `dclass`, `cu_id`, `wave_id`, `div_scale`/`div_fmas`/`div_fixup`
//! and their `d` forms, `dtrig_preop`, `msad`, `qsad`, `mqsad`, `f2f16_neg_inf`,
//! `f2f16_plus_inf`).
//!
//! Notes for later stages: `_sat` is `fmax(fsat(x), +0)` because the IR's `fsat` keeps -0
//! while the interpreter's `sat(-0)` is +0; `f2f16` selects `0x7FFF` for NaN; legacy
//! `mad` and the legacy `dp*` accumulation steps are `fmad_legacy` (Maxwell `FFMA.FMZ`) and
//! legacy `mul` is `fmul_legacy` (`FMUL.FMZ`). Work-item invariants (system values, direct `cb` reads)
//! are computed once in the entry block.

mod cfg;
mod math;
mod ops;
mod resources;
pub mod ssa;
mod texture;
pub mod validate;
mod vector;

use ilc_passes::{FastHashMap as HashMap, FastHashSet as HashSet};
use smallvec::SmallVec;
use std::fmt;

use ilc_passes::ir::{Block, FuncCursor, Function, StackSlot, UavKind, Value};
use isa_amdil::ast::{self, Instruction, Program, RegKind, Span};
use isa_amdil::decls::{
    runs_as_nothing, BufferKind, Declarations, OwnerLds, ProblemKind, Region, MAX_SHARED_BYTES,
};
use isa_amdil::opcodes::Opcode;

use self::ssa::SsaBuilder;
pub use self::texture::TexConfig;

/// One lowering diagnostic: where, which opcode, and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LowerError {
    /// Source span of the offending instruction (line 0 when unknown).
    pub span: Span,
    /// The IL opcode's canonical mnemonic.
    pub opcode: String,
    /// Guide section of the opcode (`"7.7"`, `"B"` for enum-only opcodes).
    pub section: String,
    /// What is not supported or malformed.
    pub message: String,
}

impl LowerError {
    /// The diagnostic `message` for the statement of opcode `op` at `span`.
    fn at(span: Span, op: Opcode, message: impl Into<String>) -> LowerError {
        LowerError {
            span,
            opcode: op.mnemonic().to_string(),
            section: op.section().to_string(),
            message: message.into(),
        }
    }
}

impl fmt::Display for LowerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {}:{}: `{}` (guide section {}): {}",
            self.span.line, self.span.col, self.opcode, self.section, self.message
        )
    }
}

impl std::error::Error for LowerError {}

/// All diagnostics of a failed lowering, in source order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LowerErrors(pub Vec<LowerError>);

impl fmt::Display for LowerErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for LowerErrors {}

/// Lowering result for one statement.
type LResult<T> = Result<T, String>;

/// Lowers a whole IL compute program to one IR function named `main`.
pub fn lower(program: &Program) -> Result<Function, LowerErrors> {
    lower_named(program, "main")
}

/// As [`lower`], naming the function `name`.
pub fn lower_named(program: &Program, name: &str) -> Result<Function, LowerErrors> {
    lower_with(program, name, &TexConfig::default())
}

/// As [`lower_named`], with the texture storage and sampler state the code may assume.
pub fn lower_with(program: &Program, name: &str, tex: &TexConfig) -> Result<Function, LowerErrors> {
    lower_with_bounds(program, name, tex, false)
}

/// As [`lower_with`]; with `assume_in_bounds` (the driver promises every UAV, SRV and `g[]`
/// access is in bounds, [`crate::Options::assume_in_bounds`]) those accesses are marked
/// `inbounds`, and a structured, typed or `g[]` address `index * stride + offset` needs no
/// guard against exceeding 2^32: an in-bounds address is below every buffer's size.
pub fn lower_with_bounds(
    program: &Program,
    name: &str,
    tex: &TexConfig,
    assume_in_bounds: bool,
) -> Result<Function, LowerErrors> {
    if isa_amdil::macros::needs_expansion(program) {
        // A program that did not come through the frontend: expand its macros here.
        return lower_owned(program.clone(), name, tex, assume_in_bounds);
    }
    // What follows the first `end` is ignored (the validator warns), as by the interpreter.
    let program = isa_amdil::validate::end::before_end(program);
    let mut l = Lowerer::new(
        program.version.as_ref(),
        Vec::new(),
        &program.statements,
        name,
    );
    l.tex_config = tex.clone();
    l.assume_in_bounds = assume_in_bounds;
    l.run();
    l.finish()
}

/// As [`lower_with_bounds`], consuming the program: the statements before the first `func`
/// label (the main body, lowered exactly once and in order) are freed as they are lowered,
/// so the AST and the IR are not both whole at the end of lowering (they were the peak of a
/// large compile's memory).
pub fn lower_owned(
    mut program: Program,
    name: &str,
    tex: &TexConfig,
    assume_in_bounds: bool,
) -> Result<Function, LowerErrors> {
    let errors: Vec<LowerError> = isa_amdil::macros::expand(&mut program)
        .into_iter()
        .filter(|d| d.is_error())
        .map(|d| LowerError {
            span: d.span,
            opcode: "mcall".to_string(),
            section: "7.19".to_string(),
            message: d.message,
        })
        .collect();
    if !errors.is_empty() {
        return Err(LowerErrors(errors));
    }
    lower_expanded(program, None, name, tex, assume_in_bounds)
}

/// As [`lower_owned`], for a program whose macros are expanded already, as the frontend's
/// are ([`isa_amdil::parse_and_validate`] and the binary path expand them before
/// validating): no second scan of every statement for macros. A macro statement left in
/// `program` is an error of its statement, as any statement lowering does not know.
/// `decls`, when given, is `program`'s declarations summary as the validator built it
/// ([`isa_amdil::validate_declared`]), taken instead of collected again.
pub fn lower_expanded(
    mut program: Program,
    decls: Option<Declarations>,
    name: &str,
    tex: &TexConfig,
    assume_in_bounds: bool,
) -> Result<Function, LowerErrors> {
    let mut head = std::mem::take(&mut program.statements);
    // What follows the first `end` is ignored (the validator warns), as by the interpreter
    // (the same cut as `isa_amdil::validate::end::before_end`). Statements from the first
    // `func` label on may be lowered more than once (a function body inlined at every
    // call): they stay whole. One scan finds both (a scan of a million-statement AST reads
    // some 200 MB).
    let mut func = None;
    let end = head.iter().enumerate().position(|(i, st)| {
        if st.opcode == Opcode::Func && func.is_none() {
            func = Some(i);
        }
        st.opcode == Opcode::End
    });
    if let Some(end) = end {
        head.truncate(end + 1);
    }
    let split = func.unwrap_or(head.len());
    let tail = head.split_off(split);
    let mut l = Lowerer::new(program.version.as_ref(), head, &tail, name);
    l.tex_config = tex.clone();
    l.assume_in_bounds = assume_in_bounds;
    l.given_decls = decls;
    l.run();
    l.finish()
}

/// How many statements of the head are lowered between two shrinks of its allocation (a
/// shrink of a large allocation gives its pages back without copying).
const HEAD_SHRINK_STEP: usize = 1 << 14;

/// The driver's promise written into the IR: every UAV, SRV and `g[]` access is marked
/// `inbounds`, so passes see which checks remain (constant buffers, LDS, private arrays).
fn mark_promised(func: &mut Function) {
    use ilc_passes::ir::{InstructionData, MemSpace};
    for inst in func.insts_in_layout() {
        if let InstructionData::Load { mem, .. }
        | InstructionData::Store { mem, .. }
        | InstructionData::Atomic { mem, .. } = &mut func.dfg.insts[inst]
        {
            if matches!(
                mem.space,
                MemSpace::Uav(_) | MemSpace::Srv(_) | MemSpace::Global
            ) {
                mem.inbounds = true;
            }
        }
    }
}

/// The lowering state (one per program).
pub(crate) struct Lowerer<'p> {
    /// The program's version line.
    version: Option<&'p ast::Version>,
    /// Statements `[0, split)`, owned: in source order until [`Lowerer::run`] starts
    /// lowering them, then in reverse order, each popped (and freed) when it is lowered.
    head: Vec<Instruction>,
    /// `head.len()` when the head's allocation was last shrunk.
    head_shrunk_at: usize,
    /// Number of statements in `head` before lowering.
    split: usize,
    /// Statements `[split, n)`, borrowed.
    tail: &'p [Instruction],
    pub(crate) func: Function,
    pub(crate) ssa: SsaBuilder,
    /// Block receiving instructions.
    pub(crate) cur: Block,
    /// The program's declarations ([`isa_amdil::decls`]), plus the owner-computes LDS
    /// area lowering allocates.
    pub(crate) decls: Declarations,
    errors: Vec<LowerError>,
    /// Open structured constructs of the body being lowered.
    frames: Vec<cfg::Frame>,
    /// Labels of the functions being inlined (recursion guard) and their return blocks.
    inline_stack: Vec<(u32, Block)>,
    /// Index of the statement being lowered.
    pub(crate) stmt: usize,
    /// Indexed-temp arrays accessed with a register index: array -> stack slot.
    pub(crate) dyn_arrays: HashMap<u32, StackSlot>,
    /// Direct constant-buffer reads, loaded once in the entry block.
    pub(crate) cb_cache: HashMap<(u32, u32, u8), Value>,
    /// System values, computed once in the entry block.
    pub(crate) sys_cache: HashMap<(RegKind, u8), Value>,
    /// The entry block.
    entry: Block,
    /// Private copy of `icb[]` for register-indexed reads, once needed.
    pub(crate) icb_slot: Option<StackSlot>,
    /// When set, [`Lowerer::cursor`] inserts at the end of the entry block (before its
    /// terminator): used for work-item invariants that must dominate every use.
    pub(crate) at_entry: bool,
    /// Texture storage and sampler state assumed at launch.
    pub(crate) tex_config: TexConfig,
    /// Accesses are promised in bounds: exact addresses need no overflow guard.
    pub(crate) assume_in_bounds: bool,
    /// Pixel coordinates (x, y) of a pixel-shader work-item, once computed.
    pub(crate) ps_pixel: [Option<Value>; 2],
    /// `vWinCoord0.xy` of a pixel-shader work-item, once computed.
    pub(crate) ps_coord: [Option<Value>; 2],
    /// The LDS id holding the R7xx owner-computes area.
    pub(crate) owner_lds_id: Option<u32>,
    /// Literal components already materialized in a block: (block, value -> `iconst`).
    pub(crate) lit_consts: (Block, SmallVec<[(u32, Value); 8]>),
    /// The program's declarations summary when the caller has it (the validator's), taken
    /// by [`Lowerer::declarations`] instead of recording every statement again.
    given_decls: Option<Declarations>,
}

impl<'p> Lowerer<'p> {
    fn new(
        version: Option<&'p ast::Version>,
        head: Vec<Instruction>,
        tail: &'p [Instruction],
        name: &str,
    ) -> Self {
        let mut func = Function::new(name);
        let entry = func.append_new_block();
        let mut ssa = SsaBuilder::new();
        let zero = ssa::make_zero(&mut func, entry);
        ssa.set_zero(zero);
        ssa.seal(&mut func, entry);
        Lowerer {
            version,
            split: head.len(),
            head_shrunk_at: head.len(),
            head,
            tail,
            func,
            ssa,
            cur: entry,
            decls: Declarations::default(),
            errors: Vec::new(),
            frames: Vec::new(),
            inline_stack: Vec::new(),
            stmt: 0,
            dyn_arrays: HashMap::default(),
            cb_cache: HashMap::default(),
            sys_cache: HashMap::default(),
            entry,
            at_entry: false,
            icb_slot: None,
            tex_config: TexConfig::default(),
            assume_in_bounds: false,
            ps_pixel: [None; 2],
            ps_coord: [None; 2],
            owner_lds_id: None,
            lit_consts: (entry, SmallVec::new()),
            given_decls: None,
        }
    }

    /// A cursor at the end of the current block.
    pub(crate) fn cursor(&mut self) -> FuncCursor<'_> {
        if self.at_entry {
            return match self.func.terminator(self.entry) {
                Some(t) => FuncCursor::new(&mut self.func).at_inst(t),
                None => FuncCursor::new(&mut self.func).at_end(self.entry),
            };
        }
        FuncCursor::new(&mut self.func).at_end(self.cur)
    }

    /// Records a diagnostic for statement `st`.
    pub(crate) fn error(&mut self, st: &Instruction, message: impl Into<String>) {
        self.error_at(st.span, st.opcode, message);
    }

    /// Records a diagnostic for the statement of opcode `op` at `span`.
    fn error_at(&mut self, span: Span, op: Opcode, message: impl Into<String>) {
        self.errors.push(LowerError::at(span, op, message));
    }

    /// Number of statements of the program.
    pub(crate) fn num_statements(&self) -> usize {
        self.split + self.tail.len()
    }

    /// Every statement in source order (only before [`Lowerer::run`] starts lowering).
    fn statements(&self) -> impl Iterator<Item = &Instruction> {
        debug_assert_eq!(self.head.len(), self.split, "no statement lowered yet");
        self.head.iter().chain(self.tail)
    }

    /// Statement `i` of the head, which is lowered exactly once and in order (every
    /// function body starts after the first `func` label): taken out of the head, whose
    /// allocation shrinks every [`HEAD_SHRINK_STEP`] statements.
    fn pop_head(&mut self, i: usize) -> Instruction {
        debug_assert_eq!(i + self.head.len(), self.split, "head lowered in order");
        let st = self
            .head
            .pop()
            .expect("head statements are lowered once, in order");
        if self.head_shrunk_at - self.head.len() >= HEAD_SHRINK_STEP {
            self.head.shrink_to_fit();
            self.head_shrunk_at = self.head.len();
        }
        st
    }

    /// The lowered function, or every diagnostic.
    fn finish(mut self) -> Result<Function, LowerErrors> {
        if !self.errors.is_empty() {
            return Err(LowerErrors(self.errors));
        }
        if self.assume_in_bounds {
            mark_promised(&mut self.func);
        }
        tracing::debug!(
            blocks = self.func.layout.blocks().count(),
            values = self.func.dfg.num_values(),
            "lowered"
        );
        Ok(self.func)
    }

    fn run(&mut self) {
        self.declarations();
        if self.decls.pixel_shader {
            self.pixel_guard();
        }
        let last = self.statements().last().map(|st| (st.span, st.opcode));
        // Popping from the end takes the head in source order.
        self.head.reverse();
        self.lower_range(0, self.num_statements());
        if !self.block_terminated(self.cur) {
            self.cursor().ins().return_();
        }
        if !self.frames.is_empty() {
            if let Some((span, op)) = last {
                self.error_at(span, op, "control-flow construct is never closed");
            }
        }
        self.func.group_size = Some(self.decls.group);
        if !self.errors.is_empty() {
            return;
        }
        let mut ssa = std::mem::take(&mut self.ssa);
        let blocks: Vec<Block> = self.func.layout.blocks().collect();
        for b in blocks {
            ssa.seal(&mut self.func, b);
        }
        ssa.finish(&mut self.func);
    }

    /// Lowers statements `[start, end)` into the current block onwards.
    pub(crate) fn lower_range(&mut self, start: usize, end: usize) {
        let tail = self.tail;
        for i in start..end {
            self.stmt = i;
            let popped;
            let st = if i < self.split {
                popped = self.pop_head(i);
                &popped
            } else {
                &tail[i - self.split]
            };
            // A budget stop (deadline, IR size) points at the statement being lowered, and
            // so does every instruction lowered from it.
            let pos = crate::error::pos_of(st.span);
            ilc_passes::budget::set_position(Some(pos));
            let first = self.func.dfg.num_insts();
            // A `func` label after an unconditional exit at the outermost level is only
            // reachable through calls: the body being lowered ends here. Otherwise control
            // falls through the label into the function's code, as in the interpreter.
            if st.opcode == Opcode::Func
                && self.frames.is_empty()
                && self.block_terminated(self.cur)
            {
                break;
            }
            if let Err(msg) = self.statement(st) {
                self.error(st, msg);
            }
            self.func.set_srclocs_since(first, pos);
        }
    }

    /// True if `b` already ends in a terminator.
    pub(crate) fn block_terminated(&self, b: Block) -> bool {
        self.func.terminator(b).is_some()
    }

    /// Takes the program's declarations summary and declares its buffers, shared memory and
    /// constant buffers on the IR function; unsupported typed UAVs are errors here (they are
    /// still recorded, so their uses add no "undeclared UAV" errors), unsupported resources
    /// at their statement.
    fn declarations(&mut self) {
        // One walk records the declarations (unless given) and finds the arrays indexed by a
        // register (a walk over a million-statement AST reads some 200 MB).
        let given = self.given_decls.take();
        let record = given.is_none();
        let mut decls = given.unwrap_or_default();
        let mut dynamic = HashSet::default();
        for (i, st) in self.head.iter().chain(self.tail).enumerate() {
            if record {
                decls.record(i, st);
            }
            for r in st.regs() {
                if r.kind == RegKind::IndexedTemp && r.indices.iter().any(|i| i.reg.is_some()) {
                    dynamic.insert(r.num);
                }
            }
        }
        if record {
            decls.finish(self.version);
        }
        self.decls = decls;
        for p in &self.decls.problems {
            if p.kind == ProblemKind::TypedUav {
                self.errors
                    .push(LowerError::at(p.span, p.opcode, p.message.clone()));
            }
        }
        for (&id, kind) in &self.decls.uavs {
            if let Ok(id) = u8::try_from(id) {
                let k = match kind {
                    BufferKind::Raw => UavKind::Raw,
                    BufferKind::Struct(s) => UavKind::Structured(*s),
                    BufferKind::Typed(_) => UavKind::Typed,
                };
                self.func.uavs.insert(id, k);
            }
        }
        if let Some(OwnerLds { dwords: n, .. }) = self.decls.owner_lds {
            // The owner-computes area: one 64-lane block per wavefront (relative sharing),
            // in an LDS id no declaration uses.
            let [bx, by, bz] = self.decls.group;
            let items = u64::from(bx) * u64::from(by) * u64::from(bz);
            let bytes = items.div_ceil(64) * 64 * u64::from(n) * 4;
            if let Some(id) = (0..=255u32).rev().find(|i| !self.decls.lds.contains_key(i)) {
                let bytes = bytes.min(u64::from(MAX_SHARED_BYTES)) as u32;
                self.decls.lds.insert(
                    id,
                    Region {
                        bytes,
                        stride: None,
                    },
                );
                self.owner_lds_id = Some(id);
            }
        }
        for (&id, region) in &self.decls.lds {
            if let Ok(id) = u8::try_from(id) {
                self.func.lds.insert(id, region.bytes);
            }
        }
        for (&id, &size) in &self.decls.cbs {
            if let Ok(id) = u8::try_from(id) {
                self.func.cbs.insert(id, size.saturating_mul(16));
            }
        }
        // Arrays indexed by a register anywhere become stack slots (private memory).
        let mut dynamic: Vec<u32> = dynamic.into_iter().collect();
        dynamic.sort_unstable();
        for num in dynamic {
            if let Some(itemp) = self.decls.itemps.get(&num) {
                let slot = self.func.create_stack_slot(itemp.size.saturating_mul(16));
                self.dyn_arrays.insert(num, slot);
            }
        }
    }

    /// The literal `l<num>` visible at the current statement: the nearest preceding
    /// declaration, else the first declaration anywhere, else zero.
    pub(crate) fn literal(&self, num: u32) -> [u32; 4] {
        self.decls.literal_at(num, self.stmt).unwrap_or([0; 4])
    }

    /// Lowers one statement.
    fn statement(&mut self, st: &Instruction) -> LResult<()> {
        use Opcode as O;
        if self.block_terminated(self.cur) {
            // Code after an unconditional transfer: keep lowering into a dead block so
            // diagnostics still cover it; it is removed at the end.
            let dead = self.func.dfg.make_block();
            self.ssa.seal(&mut self.func, dead);
            self.switch_to(dead);
        }
        match st.opcode {
            O::IfLogicalz | O::IfLogicalnz | O::Ifc => self.lower_if(st),
            O::Else => self.lower_else(),
            O::Endif => self.lower_endif(),
            O::While => self.lower_whileloop(),
            O::Endloop => self.lower_endloop(),
            O::Break | O::BreakLogicalz | O::BreakLogicalnz | O::Breakc => self.lower_break(st),
            O::Continue | O::ContinueLogicalz | O::ContinueLogicalnz | O::Continuec => {
                self.lower_continue(st)
            }
            O::Switch => self.lower_switch(st),
            O::Case => self.lower_case(st),
            O::Default => self.lower_default(),
            O::Endswitch => self.lower_endswitch(),
            O::Call | O::CallLogicalz | O::CallLogicalnz => self.lower_call(st),
            O::Ret | O::RetDyn | O::Endfunc => self.lower_ret(None),
            O::RetLogicalz | O::RetLogicalnz => self.lower_ret(Some(st)),
            O::End | O::Endmain => {
                self.cursor().ins().return_();
                Ok(())
            }
            O::Func => Ok(()),
            O::Loop => Err("`loop` (SM30 counted loop over i#) is not supported".into()),
            O::Fence => self.lower_fence(st),
            O::Sample | O::SampleL | O::Load | O::Resinfo | O::Fetch4 => self.lower_tex(st),
            O::AppendBufAlloc | O::AppendBufConsume => self.lower_append(st),
            O::DclResource => match self.decls.problem_at(self.stmt) {
                Some(p) => Err(p.message.clone()),
                None => Ok(()),
            },
            O::DclInput | O::DclOutput if !self.decls.pixel_shader => {
                Err("shader inputs and outputs are declared only in pixel shaders".into())
            }
            op if runs_as_nothing(op) => Ok(()),
            _ => self.lower_op(st),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(src: &str) -> Program {
        isa_amdil::parse_lossy(src).0
    }

    /// Lowering an owned program (freeing the main body as it goes) gives exactly the IR,
    /// or the diagnostics, of lowering a borrowed one.
    #[test]
    fn owned_lowering_is_borrowed_lowering() {
        let long = format!(
            "il_cs_2_0\ndcl_num_thread_per_group 64\ndcl_raw_uav_id(0)\n\
             dcl_literal l0, 1, 2, 3, 4\nmov r0.x, vAbsTidFlat.x\n{}call 1\n\
             uav_raw_store_id(0) mem.x, r0.x, r1.x\nend\nfunc 1\n\
             if_logicalnz r0.x\niadd r1.x, r1.x, l0.y\nendif\nret\nendfunc\n",
            "iadd r1.x, r1.x, r0.x\nimul r0.x, r0.x, l0.z\n".repeat(HEAD_SHRINK_STEP)
        );
        let unclosed = "il_cs_2_0\ndcl_num_thread_per_group 1\n\
                        whileloop\nmov r0.x, r0.y\n";
        let sources = [
            include_str!("../../../bench/kernels/blackscholes.il"),
            include_str!("../../../bench/kernels/shoc_reduction.il"),
            include_str!("../../../tests/examples/saxpy.il"),
            &long,
            unclosed,
        ];
        for src in sources {
            let program = parse(src);
            let tex = TexConfig::default();
            let borrowed = lower_with_bounds(&program, "k", &tex, false);
            let owned = lower_owned(program, "k", &tex, false);
            match (borrowed, owned) {
                (Ok(b), Ok(o)) => {
                    assert_eq!(b.to_string(), o.to_string());
                    assert_eq!(
                        b.srclocs.values().collect::<Vec<_>>(),
                        o.srclocs.values().collect::<Vec<_>>()
                    );
                }
                (Err(b), Err(o)) => assert_eq!(b, o),
                (b, o) => panic!("borrowed {:?} vs owned {:?}", b.err(), o.err()),
            }
        }
        assert!(lower_owned(parse(unclosed), "k", &TexConfig::default(), false).is_err());
    }

    /// The frontend's program (macros expanded by `parse_and_validate`) lowers to the same
    /// IR without the second expansion, register-indexed arrays (stack slots, found in the
    /// walk that records the declarations) and macro kernels included, and so it does with
    /// the validator's declarations summary instead of its own.
    #[test]
    fn expanded_lowering_is_owned_lowering() {
        for src in [
            include_str!("../../../tests/kernels/macro_add64.il"),
            include_str!("../../../tests/kernels/itemp_array.il"),
            include_str!("../../../bench/kernels/blackscholes.il"),
        ] {
            let (program, diags) = isa_amdil::parse_and_validate_declared(src, usize::MAX);
            let (program, decls) = program.unwrap_or_else(|| panic!("{diags:?}"));
            assert!(!isa_amdil::macros::needs_expansion(&program));
            let tex = TexConfig::default();
            let owned = lower_owned(parse(src), "k", &tex, false).expect("lowers");
            let expanded = lower_expanded(program.clone(), None, "k", &tex, false).expect("lowers");
            assert_eq!(owned.to_string(), expanded.to_string());
            // The validator's declarations summary stands for the one lowering collects.
            let declared = lower_expanded(program, Some(decls), "k", &tex, false).expect("lowers");
            assert_eq!(owned.to_string(), declared.to_string());
        }
        let f = lower_with_bounds(
            &parse(include_str!("../../../tests/kernels/itemp_array.il")),
            "k",
            &TexConfig::default(),
            false,
        )
        .expect("lowers");
        assert_eq!(f.stack_slots.len(), 1, "a stack slot for the indexed array");
    }

    /// A literal component read by several statements of one block is one `iconst` there;
    /// another block materializes its own (the first need not dominate it).
    #[test]
    fn literal_reads_share_one_iconst_per_block() {
        let src = "il_cs_2_0\ndcl_num_thread_per_group 64\ndcl_raw_uav_id(0)\n\
                   dcl_literal l0, 0x1234, 0x1234, 5, 6\n\
                   iadd r1.x, vAbsTidFlat.x, l0.x\nimul r1.y, r1.x, l0.x\n\
                   ixor r1.z, r1.y, l0.y\nif_logicalnz r1.z\niadd r1.w, r1.z, l0.x\nendif\n\
                   uav_raw_store_id(0) mem, r1.x, r1\nend\n";
        let f = lower_with_bounds(&parse(src), "k", &TexConfig::default(), false).expect("lowers");
        let text = f.to_string();
        let consts = text
            .lines()
            .filter(|l| l.contains("iconst") && (l.contains(" 4660") || l.contains("0x1234")))
            .count();
        assert_eq!(consts, 2, "{text}");
    }

    /// Declarations are skipped by the one list the interpreter also uses: an unused GDS
    /// declaration is harmless, a GDS access and a compute kernel's `dcl_input` are errors
    /// naming the statement.
    #[test]
    fn declarations_run_as_nothing() {
        let lower = |body: &str| {
            let src = format!("il_cs_2_0\ndcl_num_thread_per_group 64\n{body}end\n");
            lower_with_bounds(&parse(&src), "k", &TexConfig::default(), false)
        };
        assert!(lower("dcl_gds_id(0) 256\ndcl_struct_gds_id(1) 4, 8\nnop\n").is_ok());
        let gds = lower("dcl_gds_id(0) 256\ngds_store_id(0) vAbsTidFlat.x, vAbsTidFlat.x\n");
        let e = format!("{:?}", gds.expect_err("GDS stores are not lowered"));
        assert!(e.contains("gds_store"), "{e}");
        let input = lower("dcl_input_interp(linear) v0\n");
        let e = format!("{:?}", input.expect_err("compute kernels have no inputs"));
        assert!(e.contains("dcl_input"), "{e}");
    }
}
