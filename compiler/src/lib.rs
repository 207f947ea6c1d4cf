//! ilc: the AMD IL to SPA 5.0 (NVIDIA Maxwell) compiler library.
//!
//! The pipeline, stage by stage (each stage is its own module or crate):
//!
//! 1. [`frontend`]: source bytes (IL text or binary tokens) -> validated AST
//!    ([`isa_amdil`]), with diagnostics.
//! 2. `lower`: AST -> SSA IR ([`ilc_passes::ir`]).
//! 3. machine-independent passes ([`ilc_passes`]), chosen by [`OptLevel`].
//! 4. the SPA 5.0 backend: instruction selection, scheduling, register allocation, control
//!    words, encoding and the cubin ([`isa_spa5`]).
//!
//! The public entry point is [`Compiler`]: built once from [`Options`], it holds no mutable
//! state, so one instance may compile from many threads at once.
#![warn(missing_docs)]

pub mod cache;
pub mod error;
pub mod frontend;
pub mod limits;
pub mod lower;
pub mod options;
pub mod pipeline;
pub mod spa5;
pub mod verify;

pub use error::{Diagnostic, Diagnostics, Severity};
pub use options::{Arch, Limits, OptLevel, Options};
pub use pipeline::PassLog;

use std::time::Instant;

use ilc_passes::ir::Function;

/// The kernel in optimized SSA IR form, with what the pipeline recorded.
#[derive(Clone, Debug)]
pub struct IrOutput {
    /// The optimized function.
    pub function: Function,
    /// Pass timings and the requested dumps.
    pub log: PassLog,
    /// Frontend warnings.
    pub warnings: Diagnostics,
    /// The source text (for rendering diagnostics).
    pub text: String,
}

/// A compiled kernel: the cubin, the raw code, the assembly and the launch description.
#[derive(Clone, Debug)]
pub struct CompiledKernel {
    /// The kernel's name in the cubin.
    pub name: String,
    /// The cubin ELF, loadable with `cuModuleLoadData`.
    pub cubin: Vec<u8>,
    /// The raw code words (a control word before every three instructions).
    pub code: Vec<u64>,
    /// Initial contents of constant bank 2, the literal pool the code reads as `c[0x2][..]`
    /// (empty when nothing needed it or with [`Options::no_literal_pool`]); the cubin carries
    /// it as `.nv.constant2.K`, a loader of [`CompiledKernel::code`] must bind it itself.
    pub const_bank2: Vec<u8>,
    /// The instructions with their control words, in order (padding `NOP`s included); the
    /// listings ([`CompiledKernel::asm_nvdisasm`], [`CompiledKernel::asm_spa`]) are rendered
    /// from them on demand, so a compile to a cubin does not pay for text it never shows.
    pub insts: Vec<(isa_spa5::Inst, isa_spa5::Control)>,
    /// How to launch it: parameter layout, constant buffers, shared memory, block size,
    /// registers, local memory.
    pub layout: spa5::abi::LaunchLayout,
    /// Registers per thread.
    pub num_regs: u32,
    /// Local memory per thread in bytes (private arrays and spills).
    pub local_size: u32,
    /// Pass timings and requested dumps.
    pub log: PassLog,
    /// Frontend warnings.
    pub warnings: Diagnostics,
}

/// What a kernel uses, in the terms of `ptxas -v`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ResourceUsage {
    /// Registers per thread.
    pub registers: u32,
    /// Named barriers the code uses (`BAR.SYNC 0`: 1).
    pub barriers: u32,
    /// Static shared memory (LDS) per group in bytes.
    pub shared_bytes: u32,
    /// Constant bank 0 bytes: the driver's `0x140` bytes plus the parameters.
    pub cmem0_bytes: u32,
    /// Constant bank 2 bytes (the literal pool).
    pub cmem2_bytes: u32,
    /// Local memory per thread in bytes (private arrays and the spill area): the stack frame.
    pub stack_bytes: u32,
    /// Bytes the code stores to spill slots (static count, as ptxas reports).
    pub spill_store_bytes: u32,
    /// Bytes the code loads from spill slots.
    pub spill_load_bytes: u32,
}

impl ResourceUsage {
    /// The report in ptxas's `-v` line format (`Used N registers, ...`), `tool` naming the
    /// prefix (`ilc`), `arch` the target (`sm_50`).
    pub fn report(&self, tool: &str, name: &str, arch: &str) -> String {
        let mut used = format!(
            "Used {} registers, used {} barriers",
            self.registers, self.barriers
        );
        if self.shared_bytes > 0 {
            used.push_str(&format!(", {} bytes smem", self.shared_bytes));
        }
        used.push_str(&format!(", {} bytes cmem[0]", self.cmem0_bytes));
        if self.cmem2_bytes > 0 {
            used.push_str(&format!(", {} bytes cmem[2]", self.cmem2_bytes));
        }
        format!(
            "{tool} info    : Compiling entry function '{name}' for '{arch}'\n\
             {tool} info    : Function properties for {name}\n    \
             {} bytes stack frame, {} bytes spill stores, {} bytes spill loads\n\
             {tool} info    : {used}\n",
            self.stack_bytes, self.spill_store_bytes, self.spill_load_bytes
        )
    }
}

impl CompiledKernel {
    /// Registers, memory and spill traffic, as `ptxas -v` reports them.
    pub fn resource_usage(&self) -> ResourceUsage {
        use isa_spa5::{Loc, Op, Operand, Reg};
        let spill_base = self.layout.spill_base;
        let spills = self.local_size > spill_base;
        let (mut stores, mut loads) = (0u32, 0u32);
        for (i, _) in &self.insts {
            if !spills || !matches!(i.op, Op::STL | Op::LDL) {
                continue;
            }
            let in_spill_area = i.ops().iter().any(|o| {
                matches!(o, Operand::Mem { base, offset } if *base == Reg::RZ
                    && u32::try_from(*offset).is_ok_and(|off| off >= spill_base))
            });
            if !in_spill_area {
                continue;
            }
            let words = |locs: isa_spa5::inst::Locs| -> u32 {
                locs.iter()
                    .map(|l| match l {
                        Loc::Gpr { reg, count } if reg != Reg::RZ => u32::from(count),
                        _ => 0,
                    })
                    .sum()
            };
            if i.op == Op::STL {
                stores += 4 * words(i.uses());
            } else {
                loads += 4 * words(i.defs());
            }
        }
        let bar = self
            .insts
            .iter()
            .any(|(i, _)| i.form().mnemonic.starts_with("BAR"));
        ResourceUsage {
            registers: self.num_regs,
            barriers: u32::from(bar),
            shared_bytes: self.layout.shared_size,
            cmem0_bytes: isa_spa5::cubin::PARAM_BASE + self.layout.param_bytes(),
            cmem2_bytes: self.const_bank2.len() as u32,
            stack_bytes: self.local_size,
            spill_store_bytes: stores,
            spill_load_bytes: loads,
        }
    }

    /// Assembly exactly as nvdisasm prints the code section (labels, `SYNC` targets; see
    /// `isa_spa5::asm::nvtext`).
    pub fn asm_nvdisasm(&self) -> String {
        isa_spa5::asm::nvdisasm_section(&self.insts)
    }

    /// Assembly in the SPA syntax, with the scheduling hints of every instruction.
    pub fn asm_spa(&self) -> String {
        spa5::listing::listing_spa(&self.insts)
    }
}

/// A compiler configured by [`Options`]. Cheap to clone; `Sync`.
#[derive(Clone, Debug, Default)]
pub struct Compiler {
    options: Options,
}

impl Compiler {
    /// A compiler with the given options.
    pub fn new(options: Options) -> Compiler {
        Compiler { options }
    }

    /// The options this compiler was built with.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// Parses and validates a kernel (IL text or binary token stream, detected), returning
    /// the AST and any warnings, or every diagnostic if the kernel is invalid.
    pub fn front(&self, source: &[u8]) -> Result<frontend::Frontend, Diagnostics> {
        frontend::run(source, &self.options.limits)
    }

    /// Frontend, lowering to SSA IR and the machine-independent passes of the optimization
    /// level. Every failure (invalid input, unsupported construct, an exceeded limit) is a
    /// diagnostic.
    pub fn compile_ir(&self, source: &[u8]) -> Result<IrOutput, Diagnostics> {
        let _span = self.kernel_span().entered();
        let started = Instant::now();
        let r = self.within_budget(started, || self.ir_stages(source, started));
        log_outcome(&r, started);
        r
    }

    /// The span of one kernel's compile (the passes' and stages' spans nest in it).
    fn kernel_span(&self) -> tracing::Span {
        tracing::info_span!(
            "kernel",
            name = self.options.kernel_name.as_deref().unwrap_or("main")
        )
    }

    /// Runs `stages` under the compile budget of the options' [`Limits`]: the deadline and
    /// the IR size bound are checked inside every pass (see [`ilc_passes::budget`]).
    fn within_budget<R>(
        &self,
        started: Instant,
        stages: impl FnOnce() -> Result<R, Diagnostics>,
    ) -> Result<R, Diagnostics> {
        let limits = &self.options.limits;
        let budget = ilc_passes::budget::Budget {
            deadline: (limits.max_compile_ms != 0)
                .then(|| started + std::time::Duration::from_millis(limits.max_compile_ms)),
            max_insts: limits.max_ir_instructions,
        };
        match ilc_passes::budget::run(budget, stages) {
            Ok(r) => r,
            Err(e) => Err(pipeline::exceeded_diagnostic(e, limits)),
        }
    }

    fn ir_stages(&self, source: &[u8], started: Instant) -> Result<IrOutput, Diagnostics> {
        self.options
            .validate()
            .map_err(|e| Diagnostics::single(e.code, e.message))?;
        let mut log = PassLog::default();
        ilc_passes::budget::set_stage("frontend");
        let mut front = frontend::run_without_text(source, &self.options.limits)?;
        tracing::debug!(
            statements = front.program.statements.len(),
            warnings = front.warnings.0.len(),
            "parsed and validated"
        );
        pipeline::check_deadline(&self.options, started, "lower")?;
        log.times.push(("frontend", started.elapsed()));
        let start = Instant::now();
        let name = self.options.kernel_name.as_deref().unwrap_or("main");
        ilc_passes::budget::set_stage("lower");
        if self.options.launch_1d
            && front
                .program
                .version
                .as_ref()
                .is_some_and(|v| v.shader == isa_amdil::ast::ShaderType::Pixel)
        {
            return Err(Diagnostics::single(
                "O0002",
                "--launch-1d does not apply to a pixel shader: its domain is a 2-D grid of tiles",
            ));
        }
        let mut function = {
            let _span = tracing::debug_span!("lower").entered();
            // Lowering consumes the AST, freeing the main body's statements as it lowers
            // them, and the rest when it returns: the passes never see it.
            // The frontend expanded the macros.
            lower::lower_expanded(
                std::mem::take(&mut front.program),
                Some(std::mem::take(&mut front.decls)),
                name,
                &self.options.textures,
                self.options.assume_in_bounds,
            )
            .map_err(lower_diagnostics)?
        };
        function.launch_1d = self.options.launch_1d;
        front.text = frontend::source_text(source);
        log.times.push(("lower", start.elapsed()));
        pipeline::verify(&function, "lower")?;
        log.record(&self.options, "lower", &function);
        pipeline::optimize(&mut function, &self.options, &mut log, started)?;
        Ok(IrOutput {
            function,
            log,
            warnings: front.warnings,
            text: front.text,
        })
    }
}

impl Compiler {
    /// Compiles a kernel (IL text or binary token stream) all the way to a cubin.
    pub fn compile(&self, source: &[u8]) -> Result<CompiledKernel, Diagnostics> {
        let _span = self.kernel_span().entered();
        let started = Instant::now();
        let r = self.within_budget(started, || {
            let ir = self.ir_stages(source, started)?;
            self.backend(ir, started)
        });
        log_outcome(&r, started);
        r
    }

    fn backend(&self, ir: IrOutput, started: Instant) -> Result<CompiledKernel, Diagnostics> {
        let opts = spa5::Spa5Options {
            sm: match self.options.arch {
                Arch::Sm50 => isa_spa5::cubin::Sm::Sm50,
                Arch::Sm52 => isa_spa5::cubin::Sm::Sm52,
                Arch::Sm53 => isa_spa5::cubin::Sm::Sm53,
            },
            assume_in_bounds: self.options.assume_in_bounds,
            serial: self.options.serial,
            // One group must fit the register file (a launch would fail otherwise).
            max_regs: self.options.max_regs.unwrap_or(options::MAX_REGS).min(
                limits::max_regs_for_group(
                    ir.function
                        .group_size
                        .map_or(64, |g| g.iter().map(|&n| u64::from(n)).product()),
                ),
            ),
            rotate_loops: pipeline::stage_runs(&self.options, "loop_rotate"),
            schedule: pipeline::stage_runs(&self.options, "schedule"),
            advance_first: pipeline::stage_runs(&self.options, "advance_first"),
            rename: pipeline::stage_runs(&self.options, "rename"),
            gap_fill: pipeline::stage_runs(&self.options, "gap_fill"),
            literal_pool: !self.options.no_literal_pool,
            dump_after: self.options.dump_after.clone(),
            dump_before: self.options.dump_before.clone(),
        };
        let mut log = ir.log;
        pipeline::check_deadline(&self.options, started, "spa5 backend")?;
        let name = ir.function.name.clone();
        let out = spa5::compile_owned(ir.function, &opts).map_err(|e| {
            Diagnostics(vec![Diagnostic::error(
                "B0001",
                error::span_of(e.position()),
                format!("SPA 5.0 backend: {e}"),
            )])
        })?;
        log.times.extend(out.times);
        log.dumps.extend(out.dumps);
        Ok(CompiledKernel {
            name,
            cubin: out.cubin,
            code: out.code,
            const_bank2: out.const_bank2,
            insts: out.insts,
            layout: out.layout,
            num_regs: out.num_regs,
            local_size: out.local_size,
            log,
            warnings: ir.warnings,
        })
    }
}

/// The log event that ends a kernel's compile.
fn log_outcome<T>(r: &Result<T, Diagnostics>, started: Instant) {
    let us = started.elapsed().as_micros() as u64;
    match r {
        Ok(_) => tracing::info!(us, "compiled"),
        Err(d) => tracing::info!(
            us,
            errors = d.0.iter().filter(|d| d.is_error()).count(),
            "failed"
        ),
    }
}

/// Turns lowering errors into diagnostics that name the opcode, its guide section and line.
fn lower_diagnostics(errors: lower::LowerErrors) -> Diagnostics {
    Diagnostics(
        errors
            .0
            .into_iter()
            .map(|e| {
                Diagnostic::error(
                    "U0001",
                    e.span,
                    format!(
                        "`{}` (guide section {}): {}",
                        e.opcode, e.section, e.message
                    ),
                )
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn compiler(level: OptLevel) -> Compiler {
        Compiler::new(Options {
            opt_level: level,
            dump_after: vec!["all".into()],
            ..Options::default()
        })
    }

    /// The dump's text parses and prints back to itself (what `ilc-opt` and filetests read
    /// is what was dumped).
    fn round_trips(d: &pipeline::Dump) {
        if d.point == pipeline::DumpPoint::Unchanged {
            assert!(d.text.is_empty());
            return;
        }
        let f = ilc_passes::ir::parse_function_text(&d.text)
            .unwrap_or_else(|e| panic!("{} does not parse: {e}", d.header()));
        let reprinted = f.to_string();
        let again = ilc_passes::ir::parse_function_text(&reprinted)
            .unwrap()
            .to_string();
        assert_eq!(reprinted, again, "{}", d.header());
        if !d.text.contains(';') {
            assert_eq!(d.text, reprinted, "{}", d.header());
        }
    }

    #[test]
    fn example_kernel_reaches_optimized_ir_at_every_level() {
        let src = include_bytes!("../../tests/examples/saxpy.il");
        for level in [OptLevel::O0, OptLevel::O1, OptLevel::O2, OptLevel::O3] {
            let out = compiler(level).compile_ir(src).expect("saxpy compiles");
            // Every dump parses back (the dumps are the parseable IR text).
            out.log.dumps.iter().for_each(round_trips);
            assert!(out.log.dumps.iter().any(|d| d.stage == "lower"));
        }
    }

    #[test]
    fn dump_before_print_changed_disable_and_bisect() {
        let src = include_bytes!("../../tests/examples/saxpy.il");
        let k = Compiler::new(Options {
            dump_before: vec!["all".into()],
            print_changed: true,
            ..Options::default()
        })
        .compile(src)
        .expect("saxpy compiles");
        let dumps = &k.log.dumps;
        dumps.iter().for_each(round_trips);
        let stages = |p: pipeline::DumpPoint| -> Vec<&str> {
            dumps
                .iter()
                .filter(|d| d.point == p)
                .map(|d| d.stage.as_str())
                .collect()
        };
        let mut expected_before = pipeline::passes_for(OptLevel::O2);
        expected_before.extend(["isel", "loop_rotate", "schedule", "regalloc"]);
        assert_eq!(stages(pipeline::DumpPoint::Before), expected_before);
        // --print-changed: lowering, then every pass exactly once, changed or not.
        let after = stages(pipeline::DumpPoint::After);
        assert_eq!(after[0], "lower");
        let mut ran = after[1..].to_vec();
        ran.extend(stages(pipeline::DumpPoint::Unchanged));
        assert_eq!(ran.len(), pipeline::passes_for(OptLevel::O2).len());
        assert!(!stages(pipeline::DumpPoint::Unchanged).is_empty());
        // Each changed dump differs from the IR before that pass.
        for (i, d) in dumps.iter().enumerate() {
            if d.point == pipeline::DumpPoint::After && d.stage != "lower" {
                let before = &dumps[i - 1];
                assert_eq!(
                    (before.point, &before.stage),
                    (pipeline::DumpPoint::Before, &d.stage)
                );
                assert_ne!(before.text, d.text, "{}", d.stage);
            }
        }

        // Disabling a pass, or a bisect limit, changes which passes run (and the code).
        let ir = |options: Options| {
            Compiler::new(options)
                .compile_ir(src)
                .expect("saxpy compiles")
                .function
                .to_string()
        };
        let full = ir(Options::default());
        let o0 = ir(Options {
            opt_level: OptLevel::O0,
            ..Options::default()
        });
        let none = ir(Options {
            opt_bisect_limit: Some(0),
            ..Options::default()
        });
        assert_eq!(none, o0);
        let all = ir(Options {
            opt_bisect_limit: Some(1000),
            ..Options::default()
        });
        assert_eq!(all, full);
        let no_gvn = Compiler::new(Options {
            disabled_passes: vec!["gvn".into()],
            time_passes: true,
            ..Options::default()
        })
        .compile_ir(src)
        .expect("saxpy compiles");
        assert!(no_gvn.log.times.iter().all(|(n, _)| *n != "gvn"));
        assert!(no_gvn.log.times.iter().any(|(n, _)| *n == "licm"));
    }

    #[test]
    fn backend_dumps_show_machine_instructions_and_parse_back() {
        let src = include_bytes!("../../tests/examples/saxpy.il");
        let k = compiler(OptLevel::O2).compile(src).expect("saxpy compiles");
        for stage in ["isel", "schedule", "regalloc"] {
            let d = k
                .log
                .dumps
                .iter()
                .find(|d| d.stage == stage)
                .unwrap_or_else(|| panic!("no dump after {stage}"));
            round_trips(d);
            let text = &d.text;
            // Machine instructions in SPA syntax, operands named after IR values.
            assert!(text.contains(" LDG.E.CI v"), "{text}");
            assert!(text.contains("; FFMA.FTZ v"), "{text}");
            assert!(!text.contains("; ?"), "{text}");
        }
    }

    #[test]
    fn unsupported_opcode_is_a_diagnostic_naming_it() {
        // `sample` is a graphics texture instruction that compute lowering rejects.
        let src =
            b"il_cs_2_0\ndcl_num_thread_per_group 64\nsample_resource(0)_sampler(0) r0, r1\nend\n";
        let err = compiler(OptLevel::O2).compile_ir(src).unwrap_err();
        assert!(err.has_errors());
        let text = err.render("k.il", std::str::from_utf8(src).unwrap());
        assert!(text.contains("k.il:3:"), "{text}");
    }
}
