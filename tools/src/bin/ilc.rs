//! `ilc`: the AMD IL to SPA 5.0 compiler driver.
//!
//! `ilc KERNEL.il|- [--target spa5] [-o OUT] [--emit ast|...] [-O0..-O3] [--arch sm_50|sm_52|sm_53]`.
//! Exit codes: 0 success, 1 invalid input or compile error (diagnostics on stderr), 2 usage
//! error (including option values the compiler would otherwise have to change, such as
//! `--max-regs 300`, an invalid `--name` or an unknown pass name), 3 (`--verify` only) nothing
//! was compared: every dispatch was skipped. Never panics on any input: every failure is a
//! diagnostic.

// The test harness brings its own `main`.
#![cfg_attr(not(test), no_main)]

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{ArgGroup, Parser, ValueEnum};
use ilc::{Compiler, OptLevel, Options};
use ilc_tools::cli_args::{ArchArg, OptArg};
use ilc_tools::report::{MessageFormat, Reporter};

/// What to write.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Emit {
    /// The parsed and validated AST, one statement per line with its source position.
    Ast,
    /// The optimized SSA IR, in its parseable text form.
    Ir,
    /// SPA 5.0 assembly (see --syntax).
    Asm,
    /// A cubin ELF (the default; written to KERNEL.cubin unless -o is given).
    Cubin,
    /// The raw code words, little-endian (control words included).
    Bin,
}

/// Assembly syntax.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Syntax {
    /// The SPA syntax: nvdisasm's text plus the scheduling hints of every instruction.
    Spa,
    /// Exactly what nvdisasm prints for the code section (labels, SYNC targets; no
    /// scheduling hints).
    Nvdisasm,
}

/// Compile AMD IL kernels to NVIDIA Maxwell (SPA 5.0) code.
#[derive(Parser, Debug)]
#[command(
    name = "ilc",
    version,
    long_about = None,
    after_help = "Exit status: 0 success, 1 invalid input or compile error (or a --verify mismatch),\n2 usage error, 3 --verify compared no dispatch (every one was skipped).",
    group(ArgGroup::new("dumps").multiple(true).args(["dump_after", "dump_before", "print_changed"]))
)]
struct Cli {
    /// Quiet: errors only (no warnings, no log output).
    #[arg(short = 'q', long = "quiet")]
    quiet: bool,
    /// How to print diagnostics: `human` (rustc's layout, coloured on a terminal unless
    /// NO_COLOR is set) or `json` (one JSON object per diagnostic and line on stderr).
    #[arg(long = "message-format", value_enum, default_value = "human")]
    message_format: MessageFormat,
    /// The kernel: AMD IL text or a binary token stream (`-`: standard input).
    #[arg(required_unless_present = "list_passes")]
    input: Option<PathBuf>,
    /// Target instruction set.
    #[arg(long, default_value = "spa5", value_parser = ["spa5"])]
    target: String,
    /// Output file (`-` or absent: stdout for text outputs).
    #[arg(short = 'o', long)]
    output: Option<PathBuf>,
    /// What to produce.
    #[arg(long, value_enum, default_value = "cubin")]
    emit: Emit,
    /// Assembly syntax for --emit asm.
    #[arg(long, value_enum, default_value = "spa")]
    syntax: Syntax,
    /// Kernel name in the cubin, a C identifier (default: the input file's stem with other
    /// characters as `_`; `main` for standard input).
    #[arg(long)]
    name: Option<String>,
    /// Assume every UAV access is in bounds (skip IL's out-of-range checks).
    #[arg(long = "assume-in-bounds")]
    assume_in_bounds: bool,
    /// Assume a 1-D launch grid (group ids .y/.z are 0): flattened ids (vAbsTidFlat) fold
    /// to a multiply-add. Recorded in the cubin's launch layout; spa5-run refuses other grids.
    #[arg(long = "launch-1d")]
    launch_1d: bool,
    /// Print the resource usage on stderr in ptxas's `-v` format (registers, shared memory,
    /// constant banks, stack frame, spill stores and loads).
    #[arg(short = 'v', long = "resource-usage")]
    resource_usage: bool,
    /// Warn on stderr when registers are spilled to local memory.
    #[arg(long = "warn-on-spills")]
    warn_on_spills: bool,
    /// Keep every constant in the code instead of a literal pool in constant bank 2
    /// (implied by --emit bin, whose raw words have no place for the pool).
    #[arg(long = "no-literal-pool")]
    no_literal_pool: bool,
    /// Read textures with loads and filtering arithmetic (texels in a plain buffer,
    /// --texture/--sampler compiled in) instead of TEX/TLD/TXQ on texture objects.
    #[arg(long = "texture-loads")]
    texture_loads: bool,
    /// Debug: every instruction waits on everything (longest stalls, all barriers).
    #[arg(long)]
    serial: bool,
    /// Most registers per thread, 1..254 (small values force spilling).
    #[arg(long = "max-regs", value_name = "N", value_parser = clap::value_parser!(u32).range(1..=i64::from(ilc::options::MAX_REGS)))]
    max_regs: Option<u32>,
    /// Stop a compile that runs longer than this many milliseconds (error L0004).
    #[arg(long = "max-compile-ms", value_name = "MS")]
    max_compile_ms: Option<u64>,
    /// Storage the code assumes for texture resource ID: ID=FORMAT[xN], FORMAT one of
    /// f32|u32|s32|unorm8|u8|unorm16|u16, N channels (default: 4 x the declared type).
    #[arg(long = "texture", value_parser = ilc_tools::dispatch::parse_texture_format)]
    textures: Vec<(u32, (isa_amdil::interp::texture::TexelFormat, u8))>,
    /// Sampler state the code assumes for sampler ID: ID=point|linear[,clamp|wrap|mirror|border]
    /// (default point, clamp).
    #[arg(long = "sampler", value_parser = ilc_tools::dispatch::parse_sampler)]
    samplers: Vec<(u32, isa_amdil::interp::texture::SamplerState)>,
    /// Optimization level.
    #[arg(short = 'O', value_enum, default_value = "2")]
    opt: OptArg,
    /// Target architecture.
    #[arg(long, value_enum, default_value = "sm_50")]
    arch: ArchArg,
    /// Print the IR after these passes or stages (comma-separated names, or `all`; see
    /// --list-passes). Backend stages show their machine instructions as `;` comments.
    #[arg(long = "dump-after", value_delimiter = ',', value_name = "PASS")]
    dump_after: Vec<String>,
    /// Print the IR before these passes or backend stages (comma-separated, or `all`).
    #[arg(long = "dump-before", value_delimiter = ',', value_name = "PASS")]
    dump_before: Vec<String>,
    /// Print the IR after lowering and after each optimization pass that changed it (and a
    /// line for each that did not), like LLVM's -print-changed.
    #[arg(long = "print-changed")]
    print_changed: bool,
    /// Do not run this optimization pass or the backend's `schedule` (repeatable, or
    /// comma-separated).
    #[arg(long = "disable-pass", value_delimiter = ',', value_name = "PASS")]
    disable_pass: Vec<String>,
    /// Run only the first N optimization pass executions (the backend's scheduler counts
    /// last) and print each one as
    /// `BISECT: running pass (n) NAME on KERNEL` (or `NOT running`) on stderr, like LLVM's
    /// -opt-bisect-limit: bisect N to find the pass that breaks a kernel.
    #[arg(long = "opt-bisect-limit", value_name = "N")]
    opt_bisect_limit: Option<u32>,
    /// List the optimization passes, the stages and each -O level's pipeline, and exit.
    #[arg(long = "list-passes")]
    list_passes: bool,
    /// Write dumps as files `NN-PASS.ir` into this directory instead of stderr (needs
    /// --dump-after, --dump-before or --print-changed).
    #[arg(long = "dump-dir", requires = "dumps")]
    dump_dir: Option<PathBuf>,
    /// Also write the CFG of each dump as Graphviz DOT (`NN-PASS.dot`, into --dump-dir or .;
    /// needs --dump-after, --dump-before or --print-changed).
    #[arg(long = "dump-dot", requires = "dumps")]
    dump_dot: bool,
    /// Print the time spent in each pass on stderr.
    #[arg(long = "time-passes")]
    time_passes: bool,
    /// Self-check: after compiling, run N random dispatches (default 8) on the SPA 5.0
    /// emulator and the IL interpreter and report any difference or control-word hazard
    /// (exit status 1 if any; exit status 3 if no dispatch could be compared, every one
    /// skipped: the kernel was not checked at all).
    #[arg(long, value_name = "N", num_args = 0..=1, default_missing_value = "8", require_equals = true)]
    verify: Option<u32>,
    /// With --verify: the interpreter's instruction budget per run of a dispatch (default:
    /// scaled with the kernel's size and the dispatch's work-items, 20M..200M). A dispatch
    /// that does not finish runs again with one group, reported as such.
    #[arg(long = "verify-fuel", value_name = "N", requires = "verify")]
    verify_fuel: Option<u64>,
    /// With --verify: one dispatch with the buffers, constant buffers and textures in DIR
    /// (uavN.bin, srvN.bin, cbN.bin, g.bin, texN-WxH[xD]-FORMAT[xC].bin, grid.txt,
    /// domain.txt; the raw formats of il-run and spa5-run) instead of random ones.
    #[arg(long = "verify-inputs", value_name = "DIR", requires = "verify")]
    verify_inputs: Option<std::path::PathBuf>,
}

fn run() -> ExitCode {
    let cli: Cli = ilc_tools::report::parse_cli("ilc");
    ilc_tools::logging::LogArgs { quiet: cli.quiet }.init("ilc");
    let reporter = Reporter {
        tool: "ilc",
        format: cli.message_format,
        quiet: cli.quiet,
    };
    if cli.list_passes {
        print!("{}", list_passes());
        return ExitCode::SUCCESS;
    }
    let Some(input) = cli.input.clone() else {
        return usage(&reporter, "no input file");
    };
    let from_stdin = input.as_os_str() == "-";
    if from_stdin && cli.emit == Emit::Cubin && cli.output.is_none() {
        return usage(&reporter, "the kernel comes from standard input: name the cubin with -o FILE (or -o - for stdout)");
    }
    let compiler = Compiler::new(options(&cli, &input, from_stdin));
    if let Err(e) = compiler.options().validate() {
        return usage(&reporter, &e.message);
    }
    let (file_name, source) = match read_source(&reporter, &input, from_stdin) {
        Ok(read) => read,
        Err(code) => return code,
    };
    if cli.opt_bisect_limit.is_some() {
        let kernel = compiler.options().kernel_name.as_deref().unwrap_or("main");
        for planned in ilc::pipeline::plan(compiler.options()) {
            if let Some(line) = planned.bisect_line(kernel) {
                eprintln!("{line}");
            }
        }
    }
    // -q: errors only.
    let warn = |warnings: &ilc::Diagnostics, text: &str| {
        reporter.diagnostics_and_summary(&warnings.0, &file_name, text);
    };
    let fail = |diags: ilc::Diagnostics| {
        let text = String::from_utf8_lossy(&source);
        reporter.diagnostics_and_summary(&diags.0, &file_name, &text);
        ExitCode::from(1)
    };
    if let Some(n) = cli.verify {
        let inputs = match cli
            .verify_inputs
            .as_deref()
            .map(ilc::verify::Inputs::from_dir)
        {
            Some(Err(e)) => {
                reporter.error(format_args!("--verify-inputs: {e}"));
                return ExitCode::from(1);
            }
            Some(Ok(i)) => Some(i),
            None => None,
        };
        let opts = ilc::verify::VerifyOptions {
            dispatches: n,
            fuel: cli.verify_fuel,
            inputs,
            ..ilc::verify::VerifyOptions::default()
        };
        return match ilc::verify::verify(&compiler, &source, &opts) {
            Ok(report) => {
                eprint!("{report}");
                if !report.passed() {
                    ExitCode::from(1)
                } else if report.compared == 0 {
                    reporter.error(format_args!(
                        "{file_name}: verify: no dispatch was compared"
                    ));
                    ExitCode::from(3)
                } else {
                    ExitCode::SUCCESS
                }
            }
            Err(ilc::verify::VerifyError::Compile(d)) => fail(d),
            Err(e) => {
                reporter.error(format_args!("{file_name}: verify: {e}"));
                ExitCode::from(1)
            }
        };
    }
    let out = match cli.emit {
        Emit::Ast => match compiler.front(&source) {
            Ok(front) => {
                warn(&front.warnings, &front.text);
                ilc_tools::ast_dump(&front.program)
            }
            Err(diags) => return fail(diags),
        },
        Emit::Ir => match compiler.compile_ir(&source) {
            Ok(ir) => {
                warn(&ir.warnings, &ir.text);
                // Dumps after backend stages need the backend to run.
                let backend_dump = ilc::spa5::DUMP_STAGES.iter().any(|stage| {
                    ilc::pipeline::names_stage(&cli.dump_after, stage)
                        || ilc::pipeline::names_stage(&cli.dump_before, stage)
                });
                let log = if backend_dump {
                    match compiler.compile(&source) {
                        Ok(k) => k.log,
                        Err(diags) => return fail(diags),
                    }
                } else {
                    ir.log.clone()
                };
                if let Err(code) = write_dumps(&cli, &reporter, &log) {
                    return code;
                }
                if cli.time_passes {
                    eprint!("{}", ir.log.time_report());
                }
                ir.function.to_string()
            }
            Err(diags) => return fail(diags),
        },
        Emit::Asm | Emit::Cubin | Emit::Bin => match compiler.compile(&source) {
            Ok(k) => {
                // The process ends right after writing the output, and the OS takes the
                // kernel's memory back faster than its destructors would free it.
                let k = std::mem::ManuallyDrop::new(k);
                // The text is for warnings' source lines: checking a large input's UTF-8
                // when there is nothing to show cost ~7 instructions a byte.
                if !k.warnings.0.is_empty() {
                    warn(&k.warnings, &String::from_utf8_lossy(&source));
                }
                if let Err(code) = write_dumps(&cli, &reporter, &k.log) {
                    return code;
                }
                if cli.time_passes {
                    eprint!("{}", k.log.time_report());
                }
                report_resource_usage(&cli, &reporter, &k);
                match cli.emit {
                    Emit::Asm => {
                        let text = match cli.syntax {
                            // Directives first: `ilc --emit asm | spa5-as` gives this cubin.
                            Syntax::Spa => match spa_directives(&k.cubin) {
                                Ok(head) => head + &k.asm_spa(),
                                Err(e) => {
                                    reporter.error(format_args!("{file_name}: {e}"));
                                    return ExitCode::from(1);
                                }
                            },
                            // nvdisasm's text of the code section, nothing else (the
                            // literal pool is in the SPA syntax's `.const 2` lines).
                            Syntax::Nvdisasm => k.asm_nvdisasm(),
                        };
                        return write_output(&reporter, cli.output.as_ref(), text.as_bytes());
                    }
                    Emit::Cubin => {
                        let path = cli
                            .output
                            .clone()
                            .unwrap_or_else(|| input.with_extension("cubin"));
                        return write_output(&reporter, Some(&path), &k.cubin);
                    }
                    _ => {
                        let bytes: Vec<u8> = k.code.iter().flat_map(|w| w.to_le_bytes()).collect();
                        return write_output(&reporter, cli.output.as_ref(), &bytes);
                    }
                }
            }
            Err(diags) => return fail(diags),
        },
    };
    write_output(&reporter, cli.output.as_ref(), out.as_bytes())
}

/// The compiler options the command line asks for (`input`: the kernel's file, which names
/// the kernel unless --name does; `from_stdin`: it is standard input).
fn options(cli: &Cli, input: &std::path::Path, from_stdin: bool) -> Options {
    Options {
        arch: cli.arch.into(),
        opt_level: cli.opt.into(),
        dump_after: cli.dump_after.clone(),
        dump_before: cli.dump_before.clone(),
        print_changed: cli.print_changed,
        disabled_passes: cli.disable_pass.clone(),
        opt_bisect_limit: cli.opt_bisect_limit,
        time_passes: cli.time_passes,
        kernel_name: Some(cli.name.clone().unwrap_or_else(|| {
            if from_stdin {
                "main".to_owned()
            } else {
                kernel_name(input)
            }
        })),
        assume_in_bounds: cli.assume_in_bounds,
        launch_1d: cli.launch_1d,
        no_literal_pool: cli.no_literal_pool || cli.emit == Emit::Bin,
        serial: cli.serial,
        max_regs: cli.max_regs,
        textures: ilc::lower::TexConfig {
            textures: cli.textures.iter().copied().collect(),
            samplers: cli.samplers.iter().copied().collect(),
            use_loads: cli.texture_loads,
        },
        limits: ilc::Limits {
            max_compile_ms: cli.max_compile_ms.unwrap_or(0),
            ..ilc::Limits::default()
        },
    }
}

/// The kernel's file name (for diagnostics) and bytes, from `input` or standard input; the
/// exit code after reporting an error.
fn read_source(
    reporter: &Reporter,
    input: &std::path::Path,
    from_stdin: bool,
) -> Result<(String, Vec<u8>), ExitCode> {
    if from_stdin {
        let mut bytes = Vec::new();
        if let Err(e) = std::io::Read::read_to_end(&mut std::io::stdin(), &mut bytes) {
            reporter.error(format_args!("cannot read standard input: {e}"));
            return Err(ExitCode::from(1));
        }
        Ok(("<stdin>".to_owned(), bytes))
    } else {
        match std::fs::read(input) {
            Ok(s) => Ok((input.display().to_string(), s)),
            Err(e) => {
                reporter.error(format_args!("cannot read {}: {e}", input.display()));
                Err(ExitCode::from(1))
            }
        }
    }
}

/// The resource usage report (--resource-usage) and the spill warning (--warn-on-spills).
fn report_resource_usage(cli: &Cli, reporter: &Reporter, k: &ilc::CompiledKernel) {
    let usage = k.resource_usage();
    if cli.resource_usage {
        let arch = ilc::Arch::from(cli.arch).to_string();
        eprint!("{}", usage.report("ilc", &k.name, &arch));
    }
    if cli.warn_on_spills && usage.spill_store_bytes + usage.spill_load_bytes > 0 {
        let msg = format!(
            "Registers are spilled to local memory in function '{}', \
             {} bytes spill stores, {} bytes spill loads",
            k.name, usage.spill_store_bytes, usage.spill_load_bytes
        );
        // ptxas's own line (`ptxas warning : ...`) for scripts that grep it.
        match cli.message_format {
            MessageFormat::Human => eprintln!("ilc warning : {msg}"),
            MessageFormat::Json => reporter.warning(msg),
        }
    }
}

/// A C-identifier kernel name from the input file's stem (`my-kernel.il` -> `my_kernel`).
fn kernel_name(input: &std::path::Path) -> String {
    let stem = input
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    ilc::spa5::kernel_symbol(&stem)
}

/// Writes the requested IR dumps (and DOT files) to stderr or the dump directory.
fn write_dumps(cli: &Cli, reporter: &Reporter, log: &ilc::PassLog) -> Result<(), ExitCode> {
    let dir = cli
        .dump_dir
        .clone()
        .or_else(|| cli.dump_dot.then(|| PathBuf::from(".")));
    let Some(dir) = dir else {
        eprint!("{}", log.dumps_text());
        return Ok(());
    };
    if let Err(e) = std::fs::create_dir_all(&dir) {
        reporter.error(format_args!("cannot create {}: {e}", dir.display()));
        return Err(ExitCode::from(1));
    }
    for (i, dump) in log.dumps.iter().enumerate() {
        if dump.point == ilc::pipeline::DumpPoint::Unchanged {
            continue;
        }
        let base = dir.join(format!("{i:02}-{}", dump.file_stem()));
        let mut files = vec![(base.with_extension("ir"), dump.text.clone())];
        if cli.dump_dot {
            match ilc_passes::ir::parse_function_text(&dump.text) {
                Ok(f) => files.push((
                    base.with_extension("dot"),
                    ilc_passes::ir::dot::function_to_dot(&f),
                )),
                Err(e) => {
                    reporter.error(format_args!("{} does not parse back: {e}", dump.header()))
                }
            }
        }
        for (path, body) in files {
            if let Err(e) = std::fs::write(&path, body) {
                reporter.error(format_args!("cannot write {}: {e}", path.display()));
                return Err(ExitCode::from(1));
            }
        }
    }
    Ok(())
}

/// The `--list-passes` text: every optimization pass with its summary, the stages that can
/// be dumped, and the pipeline of each optimization level.
fn list_passes() -> String {
    let mut out = String::from(
        "Optimization passes (--dump-after, --dump-before, --disable-pass, ilc-opt -p):\n",
    );
    for p in ilc::pipeline::PASSES {
        out.push_str(&format!("  {:<16} {}\n", p.name, p.summary));
    }
    out.push_str(&format!(
        "Stages (--dump-after; --dump-before: the backend's): {}\n",
        ilc::pipeline::STAGES.join(", ")
    ));
    out.push_str(&format!(
        "Backend stages --disable-pass may skip (counted last by --opt-bisect-limit): {}\n",
        ilc::pipeline::SKIPPABLE_STAGES.join(", ")
    ));
    for (name, level) in [
        ("-O0", OptLevel::O0),
        ("-O1", OptLevel::O1),
        ("-O2, -O3", OptLevel::O2),
    ] {
        let passes = ilc::pipeline::passes_for(level);
        let list = if passes.is_empty() {
            "(none)".to_owned()
        } else {
            passes.join(",")
        };
        let stages = ilc::pipeline::stages_for(level);
        let stages = if stages.is_empty() {
            String::new()
        } else {
            format!(" + backend {}", stages.join(","))
        };
        out.push_str(&format!("Pipeline {name}: {list}{stages}\n"));
    }
    out
}

fn usage(reporter: &Reporter, msg: &str) -> ExitCode {
    reporter.error(msg);
    ExitCode::from(2)
}

fn write_output(reporter: &Reporter, path: Option<&PathBuf>, bytes: &[u8]) -> ExitCode {
    match ilc_tools::write_output(path.map(PathBuf::as_path), bytes) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            reporter.error(format_args!("cannot write output: {e}"));
            ExitCode::from(1)
        }
    }
}

/// The literal pool as a trailing comment of the listing (the code reads it as `c[0x2][..]`).
/// The SPA directives of the (one) kernel of an ilc cubin, read back from its bytes so they
/// say exactly what the cubin says.
fn spa_directives(cubin: &[u8]) -> Result<String, String> {
    let c =
        isa_spa5::cubin::read_cubin(cubin).map_err(|e| format!("reading back the cubin: {e}"))?;
    let mut s = ilc_tools::spa5_text::module_directives(&c);
    for k in &c.kernels {
        s.push_str(&ilc_tools::spa5_text::kernel_directives(k));
    }
    Ok(s)
}

/// Under the test harness (which brings its own entry point) the driver stays reachable.
#[cfg(test)]
fn main() -> ExitCode {
    run()
}

/// The process entry point, called by the C runtime (`#![no_main]`). std's own
/// start-up reads `/proc/self/maps` to find the main thread's stack guard and installs a
/// stack-overflow signal handler: 0.06-0.17 ms of CPU per run (medians of 50-80 paired
/// runs in two sessions: `ilc --version` 0.53 -> 0.47 and 0.64 -> 0.47 ms, a saxpy compile
/// 1.24 -> 1.17 and 1.48 -> 1.14 ms), an eighth or more of starting the process at all.
/// What is given up: a stack overflow ends the process with SIGSEGV instead of a message,
/// and standard descriptors closed at start are not reopened on `/dev/null`. As under
/// std's start-up, SIGPIPE is ignored (a closed pipe is a write error), and a panic prints
/// its message and ends the process with status 101.
#[cfg(not(test))]
#[no_mangle]
pub extern "C" fn main(
    _argc: std::ffi::c_int,
    _argv: *const *const std::ffi::c_char,
) -> std::ffi::c_int {
    #[cfg(unix)]
    // SAFETY: setting a signal's disposition to SIG_IGN, before any other thread exists.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
    }
    let code = std::panic::catch_unwind(run).unwrap_or(ExitCode::from(101));
    // std's runtime flushes standard output at exit; here that is ours to do.
    let _ = std::io::Write::flush(&mut std::io::stdout());
    [0u8, 1, 2, 3, 101]
        .into_iter()
        .find(|&n| ExitCode::from(n) == code)
        .map_or(1, std::ffi::c_int::from)
}
