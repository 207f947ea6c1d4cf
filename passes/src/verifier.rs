//! The IR verifier: checks every invariant the passes rely on and collects ALL errors
//! instead of stopping at the first.
//!
//! Checks, in order:
//! 1. Structure: the layout has an entry block, which has no parameters and is no branch
//!    target; every block in the layout is non-empty, ends in exactly one terminator and has
//!    no terminator elsewhere.
//! 2. Instruction shape: the data's format is the opcode's format; fixed-arity operand counts;
//!    store/atomic data counts (`mem.size.words()` / `op.data_operands()`), load address
//!    count (0 or 1); memory sizes valid; alignment a power of two.
//! 3. Types: every operand satisfies its [`TypeSpec`] (a polymorphic
//!    `T`/`A` is bound by the first such operand); memory addresses and data are `b32`;
//!    `brif` conditions are `pred`, `br_table` indices `b32`; recorded result types equal the
//!    ones the opcode table derives; `iconst` immediates fit their type, `pconst` is 0 or 1.
//! 4. Resources: memory spaces are declared in the function (`uavN`, `srvN`, `ldsN`, `cbN`,
//!    `ssN`, `global`); no stores or atomics to constant buffers and SRVs; atomics only on
//!    UAV, LDS, global.
//! 5. SSA: every used value is defined (not detached); its definition is in the layout; the
//!    definition dominates the use (block parameters: their block dominates the using block;
//!    results: the defining instruction comes first in the block or its block strictly
//!    dominates). Uses in unreachable blocks skip the dominance check (unreachable blocks
//!    are allowed; `simplify_cfg` removes them).
//! 6. Branches: targets are in the layout, argument counts equal parameter counts and
//!    argument types equal parameter types.
//!
//! 7. Target instructions: a backend may add its own checks ([`verify_function_with`]).
//!
//! Errors carry the entity at fault; [`VerifierErrors::display_with`] prints the function
//! with each error inline after the line it concerns.

use core::fmt;

use crate::ir::dfg::ValueDef;
use crate::ir::write::write_function_annotated;
use crate::ir::{
    AnyEntity, AtomicOp, Block, ControlFlowGraph, DominatorTree, Function, Inst, InstructionData,
    MemSpace, Opcode, Type, TypeSpec, Value,
};

/// One verifier finding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifierError {
    /// The entity at fault.
    pub location: AnyEntity,
    /// The offending instruction text, if any.
    pub context: Option<String>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for VerifierError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.context {
            Some(c) => write!(f, "{} ({}): {}", self.location, c, self.message),
            None => write!(f, "{}: {}", self.location, self.message),
        }
    }
}

/// All findings of one verification.
#[derive(Clone, Debug, Default, PartialEq, Eq, thiserror::Error)]
pub struct VerifierErrors(pub Vec<VerifierError>);

impl fmt::Display for VerifierErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for e in &self.0 {
            writeln!(f, "- {e}")?;
        }
        Ok(())
    }
}

impl VerifierErrors {
    /// True if there are no errors.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The function printed with every error as a `; error: ...` comment after its line.
    pub fn display_with(&self, func: &Function) -> String {
        let mut s = String::new();
        let annot = |e: AnyEntity| -> Vec<String> {
            let mut out: Vec<String> = self
                .0
                .iter()
                .filter(|x| x.location == e)
                .map(|x| format!("error: {}", x.message))
                .collect();
            if e == AnyEntity::Function {
                // Errors on values are shown at the top, naming the value.
                out.extend(
                    self.0
                        .iter()
                        .filter(|x| matches!(x.location, AnyEntity::Value(_)))
                        .map(|x| format!("error: {}: {}", x.location, x.message)),
                );
            }
            out
        };
        // Writing to a String cannot fail.
        let _ = write_function_annotated(&mut s, func, &annot);
        s.push_str(&format!("; {} verifier error(s)\n", self.0.len()));
        s
    }
}

/// Target-specific checks of `target` instructions: returns the problems found with one
/// instruction (its operand types, immediates, ...), reported like the built-in errors.
pub type TargetCheck<'a> = &'a dyn Fn(&Function, Inst) -> Vec<String>;

struct Verifier<'a> {
    func: &'a Function,
    domtree: DominatorTree,
    errors: Vec<VerifierError>,
    target_check: Option<TargetCheck<'a>>,
}

impl Verifier<'_> {
    fn report(&mut self, loc: impl Into<AnyEntity>, message: impl Into<String>) {
        let location = loc.into();
        let context = match location {
            AnyEntity::Inst(i) => Some(crate::ir::write::inst_to_string(self.func, i)),
            _ => None,
        };
        self.errors.push(VerifierError {
            location,
            context,
            message: message.into(),
        });
    }

    fn run(&mut self) {
        let func = self.func;
        let Some(entry) = func.entry_block() else {
            self.report(AnyEntity::Function, "function has no blocks");
            return;
        };
        if !func.dfg.block_params(entry).is_empty() {
            self.report(entry, "the entry block must not have parameters");
        }
        for block in func.layout.blocks() {
            self.check_block(block, entry);
        }
    }

    fn check_block(&mut self, block: Block, entry: Block) {
        let func = self.func;
        for (n, &p) in func.dfg.block_params(block).iter().enumerate() {
            if func.dfg.value_def(p) != ValueDef::Param(block, n) {
                self.report(
                    p,
                    format!("parameter {n} of {block} has a stale definition"),
                );
            }
        }
        let Some(last) = func.layout.last_inst(block) else {
            self.report(block, "block is empty (needs a terminator)");
            return;
        };
        for inst in func.layout.block_insts(block) {
            let term = func.dfg.insts[inst].is_terminator();
            if term && inst != last {
                self.report(inst, "terminator in the middle of a block");
            }
            if !term && inst == last {
                self.report(inst, "block does not end in a terminator");
            }
            self.check_inst(block, inst, entry);
        }
    }

    fn value_ok(&mut self, inst: Inst, v: Value) -> Option<Type> {
        let func = self.func;
        if !func.dfg.value_is_valid(v) {
            self.report(inst, format!("use of unknown value {v}"));
            return None;
        }
        let use_block = func.layout.inst_block(inst);
        match func.dfg.value_def(v) {
            ValueDef::Detached => {
                self.report(inst, format!("use of undefined value {v}"));
                return None;
            }
            ValueDef::Result(def, _) => {
                if func.layout.inst_block(def).is_none() {
                    self.report(
                        inst,
                        format!("{v} is defined by {def}, which is not in the layout"),
                    );
                } else if let Some(ub) = use_block {
                    if self.domtree.is_reachable(ub)
                        && !self.domtree.inst_dominates(func, def, inst)
                    {
                        self.report(
                            inst,
                            format!("use of {v} is not dominated by its definition"),
                        );
                    }
                }
            }
            ValueDef::Param(b, _) => {
                if !func.layout.is_block_inserted(b) {
                    self.report(
                        inst,
                        format!("{v} is a parameter of {b}, which is not in the layout"),
                    );
                } else if let Some(ub) = use_block {
                    if self.domtree.is_reachable(ub) && !self.domtree.dominates(b, ub) {
                        self.report(
                            inst,
                            format!("use of {v} is not dominated by its definition"),
                        );
                    }
                }
            }
        }
        Some(func.dfg.value_type(v))
    }

    fn expect_type(&mut self, inst: Inst, v: Value, ty: Type, what: &str) {
        if let Some(t) = self.value_ok(inst, v) {
            if t != ty {
                self.report(inst, format!("{what} {v} has type {t}, expected {ty}"));
            }
        }
    }

    fn check_inst(&mut self, block: Block, inst: Inst, entry: Block) {
        let func = self.func;
        let data = &func.dfg.insts[inst];
        let opcode = data.opcode();
        if data.format() != opcode.format() {
            self.report(
                inst,
                format!(
                    "{opcode} needs format {:?}, has {:?}",
                    opcode.format(),
                    data.format()
                ),
            );
            return;
        }
        self.check_results(inst, data);
        self.check_operand_types(inst, data);
        match data {
            InstructionData::UnaryImm { ty, imm, .. } => {
                if opcode == Opcode::Iconst && *ty == Type::Pred {
                    self.report(inst, "iconst cannot produce a pred (use pconst)");
                }
                if imm & !ty.mask() != 0 {
                    self.report(inst, format!("immediate {imm:#x} does not fit in {ty}"));
                }
                if opcode == Opcode::Pconst && *ty != Type::Pred {
                    self.report(inst, "pconst must have type pred");
                }
            }
            InstructionData::Special { reg, .. } => self.check_special(inst, reg),
            InstructionData::Load { .. }
            | InstructionData::Store { .. }
            | InstructionData::Atomic { .. } => {
                self.check_mem(inst, data);
            }
            InstructionData::Texture { tex, args, .. } => {
                if args.len() != tex.arity() {
                    self.report(
                        inst,
                        format!(
                            "tex.{tex} takes {} operands, has {}",
                            tex.arity(),
                            args.len()
                        ),
                    );
                }
                for (i, &a) in args.iter().enumerate() {
                    self.expect_type(inst, a, Type::B32, &format!("texture operand {i}"));
                }
            }
            _ => {}
        }
        self.check_branches(inst, data, entry);
        let _ = block;
    }

    /// The results: defined by this instruction, of the types its signature gives.
    fn check_results(&mut self, inst: Inst, data: &InstructionData) {
        let func = self.func;
        let opcode = data.opcode();
        for (n, &r) in func.dfg.inst_results(inst).iter().enumerate() {
            if func.dfg.value_def(r) != ValueDef::Result(inst, n) {
                self.report(inst, format!("result {r} has a stale definition"));
            }
        }
        let expect = func.dfg.compute_result_types(data);
        let got: smallvec::SmallVec<[Type; 4]> = func
            .dfg
            .inst_results(inst)
            .iter()
            .map(|&r| func.dfg.value_type(r))
            .collect();
        if got.len() != expect.len() {
            self.report(
                inst,
                format!(
                    "{opcode} has {} result(s), expected {}",
                    got.len(),
                    expect.len()
                ),
            );
        } else if got[..] != expect[..] {
            self.report(
                inst,
                format!(
                    "result types {got:?} do not match the signature {:?}",
                    &expect[..]
                ),
            );
        }
    }

    /// The operands against the opcode's fixed signature (count and types; the first integer
    /// or untyped operand binds the type of the others).
    fn check_operand_types(&mut self, inst: Inst, data: &InstructionData) {
        let opcode = data.opcode();
        let specs = opcode.arg_types();
        if !specs.is_empty() || matches!(opcode.format(), crate::ir::InstructionFormat::Unary) {
            let args = data.args();
            if args.len() != specs.len() {
                self.report(
                    inst,
                    format!(
                        "{opcode} takes {} operand(s), has {}",
                        specs.len(),
                        args.len()
                    ),
                );
            }
            let mut bound: Option<Type> = None;
            for (i, (&spec, &a)) in specs.iter().zip(args).enumerate() {
                let Some(t) = self.value_ok(inst, a) else {
                    continue;
                };
                if !spec.admits(t, bound) {
                    let want = match (spec, bound) {
                        (TypeSpec::Int, None) => "b32 or b64".to_string(),
                        (TypeSpec::Int | TypeSpec::Any, Some(b)) => b.to_string(),
                        (s, _) => format!("{s:?}").to_lowercase(),
                    };
                    self.report(
                        inst,
                        format!("operand {i} ({a}) has type {t}, expected {want}"),
                    );
                }
                if matches!(spec, TypeSpec::Int | TypeSpec::Any) && bound.is_none() {
                    bound = Some(t);
                }
            }
        }
    }

    /// A special register's component and the declaration of the memory it describes.
    fn check_special(&mut self, inst: Inst, reg: &crate::ir::SpecialReg) {
        use crate::ir::SpecialReg::*;
        if let Tid(c) | GroupId(c) | GroupSize(c) | GridSize(c) | ResDim(_, c) = reg {
            if *c > 2 {
                self.report(inst, "special register component must be x, y or z");
            }
        }
        if let Domain(c) | DomainOrigin(c) = reg {
            if *c > 1 {
                self.report(inst, "domain component must be x or y");
            }
        }
        if let UavView(id, c) = reg {
            if *c > 3 {
                self.report(inst, "uav view word must be x, y, z or w");
            }
            // (Any declared UAV: `uav_load`/`uav_store` on a raw one address it as
            // typed elements too.)
            if !self.func.uavs.contains_key(id) {
                self.report(inst, format!("uav{id} is not declared"));
            }
        }
        if let BufLen(space) = reg {
            let declared = match space {
                MemSpace::Uav(id) => self.func.uavs.contains_key(id),
                MemSpace::Srv(id) => self.func.srvs.contains_key(id),
                MemSpace::Global => self.func.uses_global,
                _ => {
                    self.report(inst, format!("{space} has no buffer length"));
                    true
                }
            };
            if !declared {
                self.report(inst, format!("memory space {space} is not declared"));
            }
        }
    }

    /// Branch conditions and indices, target instructions, and each destination: in the
    /// layout, not the entry block, with arguments of its parameters' types.
    fn check_branches(&mut self, inst: Inst, data: &InstructionData, entry: Block) {
        let func = self.func;
        match data {
            InstructionData::Brif { arg, .. } => {
                self.expect_type(inst, arg[0], Type::Pred, "condition")
            }
            InstructionData::BrTable { arg, dests, .. } => {
                self.expect_type(inst, arg[0], Type::B32, "index");
                if dests.is_empty() {
                    self.report(inst, "br_table needs a default destination");
                }
            }
            InstructionData::Target { args, .. } => {
                for &a in args {
                    self.value_ok(inst, a);
                }
                if let Some(check) = self.target_check {
                    for msg in check(func, inst) {
                        self.report(inst, msg);
                    }
                }
            }
            _ => {}
        }
        for call in data.branch_destinations() {
            let b = call.block;
            if !func.dfg.block_is_valid(b) || !func.layout.is_block_inserted(b) {
                self.report(inst, format!("branch to {b}, which is not in the layout"));
                continue;
            }
            if b == entry {
                self.report(inst, "branch to the entry block");
            }
            let params = func.dfg.block_params(b);
            if params.len() != call.args.len() {
                self.report(
                    inst,
                    format!(
                        "{b} takes {} argument(s), {} given",
                        params.len(),
                        call.args.len()
                    ),
                );
            }
            for (&a, &p) in call.args.iter().zip(params) {
                let pt = func.dfg.value_type(p);
                if let Some(t) = self.value_ok(inst, a) {
                    if t != pt {
                        self.report(
                            inst,
                            format!("argument {a} has type {t}, but {p} of {b} is {pt}"),
                        );
                    }
                }
            }
        }
    }

    fn check_mem(&mut self, inst: Inst, data: &InstructionData) {
        let func = self.func;
        let Some(mem) = data.mem_arg().copied() else {
            return;
        };
        if !mem.size.is_valid() {
            self.report(inst, "invalid access size");
            return;
        }
        if !mem.align.is_power_of_two() {
            self.report(
                inst,
                format!("alignment {} is not a power of two", mem.align),
            );
        }
        let args = data.args();
        let (data_count, what) = match data {
            InstructionData::Load { .. } => (0, "load"),
            InstructionData::Store { .. } => (mem.size.words(), "store"),
            InstructionData::Atomic { op, .. } => (op.data_operands(), "atomic"),
            _ => (0, ""),
        };
        if args.len() != data_count && args.len() != data_count + 1 {
            self.report(
                inst,
                format!("{what} takes an optional address and {data_count} data operand(s), has {} operand(s)", args.len()),
            );
            return;
        }
        if let Some(a) = data.mem_addr() {
            self.expect_type(inst, a, Type::B32, "address");
        }
        for &d in data.mem_data() {
            self.expect_type(inst, d, Type::B32, "data");
        }
        let declared = match mem.space {
            MemSpace::Uav(id) => func.uavs.contains_key(&id),
            MemSpace::Lds(id) => func.lds.contains_key(&id),
            MemSpace::Cb(id) => func.cbs.contains_key(&id),
            MemSpace::Srv(id) => func.srvs.contains_key(&id),
            MemSpace::Private(ss) => func.stack_slots.is_valid(ss),
            MemSpace::Global => func.uses_global,
            MemSpace::Output(id) => func.outputs.contains(&id),
            MemSpace::Counter(id) => func.uavs.contains_key(&id),
        };
        if !declared {
            self.report(inst, format!("memory space {} is not declared", mem.space));
        }
        let writes = !matches!(data, InstructionData::Load { .. });
        if writes && !mem.space.is_writable() {
            self.report(inst, format!("{} is read-only", mem.space));
        }
        if let InstructionData::Atomic { op, .. } = data {
            if !matches!(
                mem.space,
                MemSpace::Uav(_) | MemSpace::Lds(_) | MemSpace::Global | MemSpace::Counter(_)
            ) {
                self.report(inst, format!("atomics are not supported on {}", mem.space));
            }
            let _: AtomicOp = *op;
        }
    }
}

/// Verifies `func`, returning every error found.
pub fn verify_function(func: &Function) -> Result<(), VerifierErrors> {
    verify_function_with(func, None)
}

/// Verifies `func`, also running `target_check` on every `target` instruction.
pub fn verify_function_with(
    func: &Function,
    target_check: Option<TargetCheck<'_>>,
) -> Result<(), VerifierErrors> {
    let cfg = ControlFlowGraph::with_function(func);
    let domtree = DominatorTree::with_function(func, &cfg);
    let mut v = Verifier {
        func,
        domtree,
        errors: Vec::new(),
        target_check,
    };
    v.run();
    if v.errors.is_empty() {
        Ok(())
    } else {
        Err(VerifierErrors(v.errors))
    }
}

/// Verifies in debug and test builds (`debug_assertions`); a no-op returning `Ok` in release
/// builds. Pipelines call it after every pass.
pub fn verify_if_debug(func: &Function) -> Result<(), VerifierErrors> {
    if cfg!(debug_assertions) {
        verify_function(func)
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::reader::parse_function_text;

    fn errs(text: &str) -> Vec<String> {
        let f = parse_function_text(text).unwrap();
        match verify_function(&f) {
            Ok(()) => Vec::new(),
            Err(e) => e.0.iter().map(|e| e.to_string()).collect(),
        }
    }

    #[test]
    fn valid_function_passes() {
        let e = errs(
            "kernel %k {\n uav0 = raw\nblock0:\n v0 = special tid.x\n v1 = iconst.b32 4\n v2 = imul v0, v1\n \
             v3 = load.b32 uav0[v2]\n v4 = icmp ult v3, v1\n brif v4, block1(v3), block2\n\
             block1(v5: b32):\n store.b32 uav0[v2], v5\n jump block2\nblock2:\n return\n}",
        );
        assert!(e.is_empty(), "{e:?}");
    }

    #[test]
    fn collects_all_errors() {
        let e = errs(
            "kernel %k {\nblock0:\n v0 = iconst.b64 4\n v1 = pconst true\n v2 = fadd v0, v1\n \
             v3 = load.b32 uav0[v0]\n jump block1\nblock1(v9: b32):\n v4 = iadd v7, v7\n return\n}",
        );
        let all = e.join("\n");
        assert!(
            all.contains("operand 0 (v0) has type b64, expected b32"),
            "{all}"
        );
        assert!(
            all.contains("operand 1 (v1) has type pred, expected b32"),
            "{all}"
        );
        assert!(all.contains("address v0 has type b64"), "{all}");
        assert!(all.contains("uav0 is not declared"), "{all}");
        assert!(all.contains("block1 takes 1 argument(s), 0 given"), "{all}");
        assert!(all.contains("use of undefined value v7"), "{all}");
        assert!(e.len() >= 6, "{all}");
    }

    #[test]
    fn dominance_and_terminators() {
        let e = errs(
            "kernel %k {\nblock0:\n v0 = pconst true\n brif v0, block1, block2\nblock1:\n \
             v1 = iconst.b32 1\n jump block3\nblock2:\n jump block3\nblock3:\n v2 = iadd v1, v1\n return\n}",
        );
        assert!(
            e.iter().any(|s| s.contains("use of v1 is not dominated")),
            "{e:?}"
        );
        let e = errs("kernel %k {\nblock0:\n v0 = iconst.b32 1\n}");
        assert!(
            e.iter().any(|s| s.contains("does not end in a terminator")),
            "{e:?}"
        );
        let e = errs("kernel %k {\nblock0:\n return\n v0 = iconst.b32 1\n return\n}");
        assert!(
            e.iter().any(|s| s.contains("terminator in the middle")),
            "{e:?}"
        );
        let e = errs("kernel %k {\nblock0:\n v1 = iadd v0, v0\n v0 = iconst.b32 1\n return\n}");
        assert!(
            e.iter().any(|s| s.contains("use of v0 is not dominated")),
            "{e:?}"
        );
    }

    #[test]
    fn malformed_data_built_through_the_api() {
        use crate::ir::{FuncCursor, InstructionData as D, MemArg, MemSize, MemSpace, Type};
        let mut f = Function::new("api");
        f.uavs.insert(0, crate::ir::UavKind::Raw);
        let mut c = FuncCursor::new(&mut f);
        let b = c.create_block();
        c.goto_end(b);
        let x = c.ins().iconst(Type::B32, 1);
        // Opcode/format mismatch.
        let bad_format = c.ins().build(D::Unary {
            opcode: Opcode::Iadd,
            args: [x],
        });
        // Store with the wrong number of data words.
        let mem = MemArg {
            space: MemSpace::Uav(0),
            offset: 0,
            size: MemSize::Words(4),
            align: 4,
            inbounds: false,
        };
        let bad_store = c.ins().build(D::Store {
            opcode: Opcode::Store,
            mem,
            args: [x, x].into_iter().collect(),
        });
        // Invalid access size and alignment.
        let mem2 = MemArg {
            space: MemSpace::Uav(0),
            offset: 0,
            size: MemSize::Words(5),
            align: 3,
            inbounds: false,
        };
        let bad_size = c.ins().build(D::Load {
            opcode: Opcode::Load,
            mem: mem2,
            args: [x].into_iter().collect(),
        });
        // A result removed behind the verifier's back.
        let y = c.ins().iadd(x, x);
        let lost = f.dfg.value_inst(y).unwrap();
        f.dfg.clear_results(lost);
        let mut c = FuncCursor::new(&mut f).at_end(b);
        let z = c.ins().iadd(y, x);
        // iconst with an immediate wider than its type.
        let wide = c.ins().build(D::UnaryImm {
            opcode: Opcode::Iconst,
            ty: Type::B32,
            imm: 1 << 40,
        });
        c.ins().return_();
        let errs = verify_function(&f).unwrap_err();
        let at = |i: Inst| -> Vec<String> {
            errs.0
                .iter()
                .filter(|e| e.location == AnyEntity::Inst(i))
                .map(|e| e.message.clone())
                .collect()
        };
        assert!(at(bad_format)[0].contains("needs format Binary"), "{errs}");
        assert!(
            at(bad_store)[0].contains("4 data operand(s), has 2"),
            "{errs}"
        );
        assert!(at(bad_size)[0].contains("invalid access size"), "{errs}");
        assert!(
            at(lost)[0].contains("has 0 result(s), expected 1"),
            "{errs}"
        );
        let user = f.dfg.value_inst(z).unwrap();
        assert!(at(user)[0].contains("use of undefined value"), "{errs}");
        assert!(at(wide)[0].contains("does not fit in b32"), "{errs}");
        // The debug-only entry verifies exactly when debug assertions are on (`cargo test`;
        // not an optimized test profile).
        assert_eq!(verify_if_debug(&f).is_err(), cfg!(debug_assertions));
    }

    #[test]
    fn target_checks_run_on_target_instructions() {
        let f = parse_function_text(
            "kernel %k {\nblock0:\n v0 = iconst.b32 0x1\n v1 = target.9 0x0 v0 -> b32\n return\n}",
        )
        .unwrap();
        assert!(verify_function(&f).is_ok());
        let check = |func: &Function, inst: Inst| -> Vec<String> {
            match func.dfg.insts[inst] {
                InstructionData::Target { code: 9, .. } => vec!["code 9 is retired".to_string()],
                _ => Vec::new(),
            }
        };
        let e = verify_function_with(&f, Some(&check)).unwrap_err();
        assert_eq!(e.0.len(), 1);
        assert!(e.0[0].message.contains("code 9 is retired"));
        assert!(e.0[0].context.as_deref().unwrap_or("").contains("target.9"));
    }

    #[test]
    fn annotated_display() {
        let f = parse_function_text(
            "kernel %k {\nblock0:\n v0 = pconst true\n v1 = ineg v0\n return\n}",
        )
        .unwrap();
        let e = verify_function(&f).unwrap_err();
        let s = e.display_with(&f);
        assert!(
            s.contains(
                "v1 = ineg v0\n    ; error: operand 0 (v0) has type pred, expected b32 or b64"
            ),
            "{s}"
        );
    }
}
