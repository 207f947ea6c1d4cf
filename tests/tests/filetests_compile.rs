//! Backend precise-output filetests (Cranelift's `filetests/isa` are the model): every file
//! under `tests/filetests/isel/` (selection rules) and `tests/filetests/pipeline/` (one
//! kernel per optimization pass whose effect shows in the code, so that removing the pass
//! from the pipeline fails a test: `tools/mutation_check.py`) and `tests/filetests/emit/`
//! (control flow as emission lays it out: reconvergence, exits) names `test compile precise-output [OPTIONS]` and states the
//! exact SPA 5.0 listing (SPA syntax with scheduling hints, then `regs N` and the literal
//! pool words) as the `;` comment block after each kernel.
//!
//! - `*.ir`: SSA IR in, run through the `ilc_passes` filetest runner with the [`CompileTest`]
//!   subtest; the function goes straight to the backend (`ilc::spa5::compile`, no
//!   machine-independent passes), so the listing shows instruction selection itself.
//! - `*.il`: AMD IL in, `; test compile precise-output [OPTIONS]` on a comment line; the
//!   whole compiler runs (`O0`..`O3`, default `O2`), and the block after `end` is the
//!   expectation.
//!
//! Options: `no-literal-pool`, `assume-in-bounds`, `no-schedule`, and for IL `O0`..`O3`; an
//! unknown option or subtest is an error. Set `ILC_TEST_BLESS=1` to rewrite the blocks with
//! the current output (review the diff), `ILC_FILETEST=substring` to run a subset.

use std::path::{Path, PathBuf};

use ilc_passes::filetest::{precise, run_file, Context, Outcome, SubTest};
use ilc_passes::ir::Function;

/// `test compile`: the backend's listing of the function.
struct CompileTest;

/// Backend options from a test line's options.
fn spa5_options(options: &[String], il: bool) -> Result<(ilc::spa5::Spa5Options, u8), String> {
    let mut o = ilc::spa5::Spa5Options::default();
    let mut level = 2u8;
    for opt in options {
        match opt.as_str() {
            "precise-output" => {}
            "no-literal-pool" => o.literal_pool = false,
            "assume-in-bounds" => o.assume_in_bounds = true,
            // Selection's own order: no list scheduling, no rewrite after emission.
            "no-schedule" => {
                o.schedule = false;
                o.advance_first = false;
                o.rename = false;
                o.gap_fill = false;
            }
            "O0" | "O1" | "O2" | "O3" if il => level = opt.as_bytes()[1] - b'0',
            other => return Err(format!("unknown `test compile` option `{other}`")),
        }
    }
    Ok((o, level))
}

/// The text a compile test states: the listing, the register count and the pool.
fn render(listing: &str, num_regs: u32, pool: &[u8]) -> String {
    let mut s = listing.to_string();
    s.push_str(&format!("regs {num_regs}\n"));
    if !pool.is_empty() {
        let words: Vec<String> = pool
            .chunks(4)
            .map(|w| {
                let mut b = [0u8; 4];
                b[..w.len()].copy_from_slice(w);
                format!("{:#010x}", u32::from_le_bytes(b))
            })
            .collect();
        s.push_str(&format!("pool {}\n", words.join(" ")));
    }
    s
}

impl SubTest for CompileTest {
    fn name(&self) -> &'static str {
        "compile"
    }
    fn run(&self, func: &mut Function, ctx: &Context<'_>) -> Result<String, String> {
        let (opts, _) = spa5_options(ctx.options, false)?;
        let out = ilc::spa5::compile(func, &opts).map_err(|e| e.to_string())?;
        Ok(render(&out.listing_sched(), out.num_regs, &out.const_bank2))
    }
}

/// Runs one IL compile test; rewrites its block when blessing.
fn run_il(path: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let mut options = None;
    for line in text.lines() {
        let Some(rest) = line.trim_start().strip_prefix(';') else {
            continue;
        };
        if let Some(t) = rest.trim_start().strip_prefix("test ") {
            let mut words = t.split_whitespace();
            match words.next() {
                Some("compile") => options = Some(words.map(String::from).collect::<Vec<_>>()),
                other => return Err(format!("unknown subtest {other:?} in an IL compile test")),
            }
        }
    }
    let options = options.ok_or("no `; test compile` line")?;
    if !options.iter().any(|o| o == "precise-output") {
        return Err("IL compile tests state their output: `test compile precise-output`".into());
    }
    let (spa, level) = spa5_options(&options, true)?;
    let compiler = ilc::Compiler::new(ilc::Options {
        opt_level: match level {
            0 => ilc::OptLevel::O0,
            1 => ilc::OptLevel::O1,
            2 => ilc::OptLevel::O2,
            _ => ilc::OptLevel::O3,
        },
        assume_in_bounds: spa.assume_in_bounds,
        no_literal_pool: !spa.literal_pool,
        ..ilc::Options::default()
    });
    if !spa.schedule {
        return Err("`no-schedule` applies to IR tests (IL follows the optimization level)".into());
    }
    let k = compiler
        .compile(text.as_bytes())
        .map_err(|d| d.render(&path.display().to_string(), &text))?;
    let output = render(&k.asm_spa(), k.num_regs, &k.const_bank2);
    let lines: Vec<&str> = text.lines().collect();
    let end = lines
        .iter()
        .position(|l| l.trim() == "end")
        .ok_or("no `end` line")?;
    let block = precise::find_block(&lines, end);
    if let Err(e) = precise::compare(&block, &output) {
        if !precise::bless_enabled() {
            return Err(e);
        }
        let new_text = precise::apply(&text, vec![(block, precise::render(&output))]);
        std::fs::write(path, new_text).map_err(|e| e.to_string())?;
    }
    Ok(())
}

fn files() -> Vec<PathBuf> {
    let mut v = Vec::new();
    for dir in [
        "tests/filetests/isel",
        "tests/filetests/pipeline",
        "tests/filetests/emit",
    ] {
        v.extend(ilc_test_support::corpus(dir, "ir", 0));
        v.extend(ilc_test_support::corpus(dir, "il", 1));
    }
    v.sort();
    v
}

#[test]
fn compile_filetests() {
    let filter = std::env::var("ILC_FILETEST").unwrap_or_default();
    let all = files();
    assert!(all.len() >= 10, "only {} compile filetests", all.len());
    let mut failures = Vec::new();
    let mut ran = 0;
    for f in all.iter().filter(|f| f.to_string_lossy().contains(&filter)) {
        let result = match f.extension().and_then(|x| x.to_str()) {
            Some("ir") => match run_file(f, &[&CompileTest]) {
                Ok(Outcome::Passed(_)) => Ok(()),
                Ok(Outcome::Skipped(why)) => Err(format!("skipped: {why}")),
                Err(e) => Err(e),
            },
            Some("il") => run_il(f).map_err(|e| format!("{}: {e}", f.display())),
            _ => continue,
        };
        ran += 1;
        if let Err(e) = result {
            failures.push(e);
        }
    }
    eprintln!("compile filetests: {ran} files");
    if !failures.is_empty() {
        panic!(
            "{} compile filetest(s) failed:\n\n{}",
            failures.len(),
            failures.join("\n\n")
        );
    }
}

/// Every selection family has a precise-output file (`isel/<family>.ir` or `.il`).
#[test]
fn every_selection_family_has_a_filetest() {
    let names: Vec<String> = files()
        .iter()
        .filter_map(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .collect();
    for family in [
        "moves", "int", "float", "f64", "conv", "control", "mem", "tex", "legalize",
    ] {
        assert!(
            names
                .iter()
                .any(|n| n == family || n.starts_with(&format!("{family}_"))),
            "no tests/filetests/isel/{family}.ir or .il"
        );
    }
}
