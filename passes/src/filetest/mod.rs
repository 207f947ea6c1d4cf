//! The filetest framework (Cranelift's habit): a `.ir` file names the subtests to run
//! (`test verifier`, `test print`, `test run`, `test dce`, ...) and then holds functions
//! followed by expectations in comments.
//!
//! For every function of a file the runner:
//! 1. checks that printing is a fixed point: `print(parse(print(f))) == print(f)`;
//! 2. for each subtest: verifies the input (unless the subtest is `verifier`), runs the
//!    subtest on a copy, verifies the result of mutating subtests, matches the output
//!    against the `; check:` / `; nextln:` / `; sameln:` / `; not:` directives written after
//!    the function (see [`check`]), and executes its `; run:` directives on the result (and,
//!    for mutating subtests, on the input too) in the interpreter ([`run_directive`]).
//!
//! A subtest is one [`SubTest`] implementation; every pass of the registry
//! ([`crate::registry::PASSES`]) is one under its name.
//! Other crates add theirs by passing extra subtests to [`run_file`]; the names they own
//! are listed in [`OWNED_ELSEWHERE`], and files naming one are skipped by a runner that
//! lacks it. Any other unknown `test` name is an error (a misspelt subtest never passes
//! silently).
//!
//! A subtest line with the option `precise-output` compares the subtest's whole output
//! with the comment block after each function instead of directives (see [`precise`]).

pub mod check;
pub mod precise;
pub mod run_directive;

/// Subtests that other crates' runners own: `(name, owner)`.
pub const OWNED_ELSEWHERE: &[(&str, &str)] = &[(
    "compile",
    "ilc-tests (tests/tests/filetests_compile.rs): SPA 5.0 code generation",
)];

use std::path::Path;

use crate::ir::reader::{parse_functions_with_source_maps, SourceMap};
use crate::ir::{parse_functions, AnyEntity, Function};
use crate::verifier::verify_function;

/// What a subtest sees besides the function.
pub struct Context<'a> {
    /// Source lines of the function's entities.
    pub source_map: &'a SourceMap,
    /// Text of the function's chunk of the file (the function and its directives).
    pub chunk: &'a str,
    /// File line number of the chunk's first line.
    pub first_line: usize,
    /// Options written after the subtest name (`test dce opt1 opt2`).
    pub options: &'a [String],
}

/// One kind of filetest.
pub trait SubTest: Sync {
    /// The name used in `test NAME`.
    fn name(&self) -> &'static str;
    /// True if the input must pass the verifier first.
    fn needs_verifier(&self) -> bool {
        true
    }
    /// True if the subtest changes the function (its output is verified again).
    fn is_mutating(&self) -> bool {
        false
    }
    /// Runs on `func`; returns the text the check directives match against.
    fn run(&self, func: &mut Function, ctx: &Context<'_>) -> Result<String, String>;
}

/// A pass of the registry as a subtest (`test dce`): runs the pass, outputs the printed
/// function. Options on the `test` line (`test bounds_region min_saved=0`) go to the pass's
/// entry in [`crate::registry::WITH_OPTIONS`]; a pass without one takes none.
impl SubTest for crate::registry::PassInfo {
    fn name(&self) -> &'static str {
        self.name
    }
    fn is_mutating(&self) -> bool {
        true
    }
    fn run(&self, func: &mut Function, ctx: &Context<'_>) -> Result<String, String> {
        if ctx.options.is_empty() {
            self.run_alone(func);
        } else {
            let run = crate::registry::with_options(self.name)
                .ok_or_else(|| format!("test {} takes no options", self.name))?;
            run(func, ctx.options)?;
        }
        Ok(func.to_string())
    }
}

/// `test passes NAME...`: runs the registry's passes named after the subtest name, in order,
/// verifying after each (what `ilc-opt -p` does), so a bug report that needs several passes
/// becomes a filetest; output is the printed function. `precise-output` is an option, not a
/// pass.
pub struct PassSequenceTest;

impl SubTest for PassSequenceTest {
    fn name(&self) -> &'static str {
        "passes"
    }
    fn is_mutating(&self) -> bool {
        true
    }
    fn run(&self, func: &mut Function, ctx: &Context<'_>) -> Result<String, String> {
        let names: Vec<&String> = ctx
            .options
            .iter()
            .filter(|o| *o != "precise-output")
            .collect();
        if names.is_empty() {
            return Err("`test passes` names no pass".into());
        }
        let mut analyses = crate::ir::Analyses::new();
        for name in names {
            let pass = crate::registry::lookup(name).ok_or_else(|| {
                format!(
                    "unknown pass `{name}` (valid: {})",
                    crate::registry::names()
                )
            })?;
            pass.run_in(func, &mut analyses)?;
            verify_function(func).map_err(|e| {
                format!(
                    "after `{name}`: IR does not verify:\n{}",
                    e.display_with(func)
                )
            })?;
        }
        Ok(func.to_string())
    }
}

/// `test print`: output is the printed function.
pub struct PrintTest;

impl SubTest for PrintTest {
    fn name(&self) -> &'static str {
        "print"
    }
    fn needs_verifier(&self) -> bool {
        false
    }
    fn run(&self, func: &mut Function, _: &Context<'_>) -> Result<String, String> {
        Ok(func.to_string())
    }
}

/// `test run`: only the `; run:` directives (output is the printed function).
pub struct RunTest;

impl SubTest for RunTest {
    fn name(&self) -> &'static str {
        "run"
    }
    fn run(&self, func: &mut Function, _: &Context<'_>) -> Result<String, String> {
        Ok(func.to_string())
    }
}

/// `test verifier`: every `; error: MSG` comment must match a verifier error reported on
/// its line (message containing MSG), and every verifier error must be expected. Errors on
/// values are reported at the value's definition, function-level errors on the `kernel`
/// line. Output is the annotated function.
pub struct VerifierTest;

impl SubTest for VerifierTest {
    fn name(&self) -> &'static str {
        "verifier"
    }
    fn needs_verifier(&self) -> bool {
        false
    }
    fn run(&self, func: &mut Function, ctx: &Context<'_>) -> Result<String, String> {
        let mut expected: Vec<(usize, String, bool)> = Vec::new();
        for (i, line) in ctx.chunk.lines().enumerate() {
            // Several errors on one line: `; error: A ; error: B`.
            for part in line.split("; error:").skip(1) {
                expected.push((ctx.first_line + i, part.trim().to_string(), false));
            }
        }
        let errors = match verify_function(func) {
            Ok(()) => Default::default(),
            Err(e) => e,
        };
        let mut problems = Vec::new();
        for e in &errors.0 {
            let line = ctx
                .source_map
                .line_of(func, e.location)
                .or_else(|| ctx.source_map.line_of(func, AnyEntity::Function))
                .unwrap_or(0);
            match expected
                .iter_mut()
                .find(|(l, m, _)| *l == line && e.message.contains(m.as_str()))
            {
                Some(x) => x.2 = true,
                None => problems.push(format!("unexpected verifier error on line {line}: {e}")),
            }
        }
        for (l, m, seen) in &expected {
            if !seen {
                problems.push(format!(
                    "line {l}: expected verifier error '{m}' was not reported"
                ));
            }
        }
        if problems.is_empty() {
            Ok(errors.display_with(func))
        } else {
            Err(format!(
                "{}\n{}",
                problems.join("\n"),
                errors.display_with(func)
            ))
        }
    }
}

/// The pass called `name` in the pass registry ([`crate::registry`]).
pub fn lookup_pass(name: &str) -> Option<&'static crate::registry::PassInfo> {
    crate::registry::lookup(name)
}

/// The subtests this crate provides: the verifier, printer and interpreter subtests, the
/// back-end passes' subtests, and one per pass of the registry ([`crate::registry::PASSES`]).
pub fn builtin_subtests() -> Vec<&'static dyn SubTest> {
    let mut v: Vec<&'static dyn SubTest> = vec![
        &VerifierTest,
        &PrintTest,
        &RunTest,
        &PassSequenceTest,
        &crate::regalloc::RegAllocTest,
        &crate::schedule::ScheduleTest,
        &crate::uniformity::UniformityTest,
    ];
    v.extend(crate::registry::PASSES.iter().map(|p| p as &dyn SubTest));
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_names_are_unique_and_found() {
        let subs = builtin_subtests();
        let mut names: Vec<&str> = subs.iter().map(|s| s.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), subs.len());
        assert!(lookup_pass("dce").is_some());
        assert!(lookup_pass("nope").is_none());
    }

    #[test]
    fn precise_output_states_the_whole_output_and_blesses() {
        let f = "kernel %k {\nblock0:\n    return\n}\n";
        let printed = "kernel %k {\n\nblock0:\n    return\n}\n";
        let good = format!(
            "test print precise-output\n{f}\n{}",
            precise::render(printed).join("\n")
        );
        assert_eq!(run_text(&good, &[]), Ok(Outcome::Passed(1)));
        let stale = format!("test print precise-output\n{f}; kernel %old {{\n");
        let err = run_text(&stale, &[]).unwrap_err();
        assert!(err.contains("precise output differs"), "{err}");
        let (_, new_text) = run_text_with(&stale, &[], true).unwrap();
        let new_text = new_text.expect("a blessed file");
        assert_eq!(
            run_text(&new_text, &[]),
            Ok(Outcome::Passed(1)),
            "{new_text}"
        );
    }

    #[test]
    fn run_text_reports_failures() {
        let ok =
            "test dce\nkernel %k {\nblock0:\n v0 = iconst.b32 0x1\n return\n}\n; not: iconst\n";
        assert_eq!(run_text(ok, &[]), Ok(Outcome::Passed(1)));
        let bad = ok.replace("; not: iconst", "; check: iconst");
        assert!(run_text(&bad, &[]).unwrap_err().contains("no match"));
        let unknown = ok.replace("test dce", "test frobnicate");
        assert!(run_text(&unknown, &[])
            .unwrap_err()
            .contains("unknown subtest 'frobnicate'"));
        let optioned = ok.replace("test dce", "test dce budget=3");
        assert!(run_text(&optioned, &[])
            .unwrap_err()
            .contains("test dce takes no options"));
        let seq = ok.replace("test dce", "test passes const_fold dce");
        assert_eq!(run_text(&seq, &[]), Ok(Outcome::Passed(1)));
        let unknown_pass = ok.replace("test dce", "test passes dce frob");
        assert!(run_text(&unknown_pass, &[])
            .unwrap_err()
            .contains("unknown pass `frob`"));
        let no_pass = ok.replace("test dce", "test passes");
        assert!(run_text(&no_pass, &[])
            .unwrap_err()
            .contains("names no pass"));
        let foreign = ok.replace("test dce", "test compile");
        assert!(matches!(run_text(&foreign, &[]), Ok(Outcome::Skipped(_))));
        assert!(run_text("kernel %k {\nblock0:\n return\n}", &[]).is_err());
        let unverified = "test dce\nkernel %k {\nblock0:\n v0 = iadd v1, v1\n return\n}\n";
        assert!(run_text(unverified, &[])
            .unwrap_err()
            .contains("fails the verifier"));
    }
}

/// Result of running one file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Ran; number of (function, subtest) pairs checked.
    Passed(usize),
    /// Not for this runner (unknown subtest names).
    Skipped(String),
}

/// Runs a filetest given as text. `extra` subtests take precedence over built-in ones.
pub fn run_text(text: &str, extra: &[&dyn SubTest]) -> Result<Outcome, String> {
    run_text_with(text, extra, false).map(|(o, _)| o)
}

/// [`run_text`]; with `bless`, precise-output mismatches are not failures but rewrite the
/// expectation blocks: the new file text is returned when anything changed.
pub fn run_text_with(
    text: &str,
    extra: &[&dyn SubTest],
    bless: bool,
) -> Result<(Outcome, Option<String>), String> {
    let mut all: Vec<&dyn SubTest> = extra.to_vec();
    all.extend(builtin_subtests());
    let mut tests: Vec<(&dyn SubTest, Vec<String>)> = Vec::new();
    for line in text.lines() {
        let t = line.trim();
        if let Some(rest) = t.strip_prefix("test ") {
            let mut words = rest.split_whitespace();
            let Some(name) = words.next() else {
                return Err("empty `test` line".into());
            };
            match all.iter().find(|s| s.name() == name) {
                Some(s) => tests.push((*s, words.map(String::from).collect())),
                None => match OWNED_ELSEWHERE.iter().find(|(n, _)| *n == name) {
                    Some((_, owner)) => {
                        return Ok((
                            Outcome::Skipped(format!("subtest '{name}' belongs to {owner}")),
                            None,
                        ))
                    }
                    None => return Err(format!("unknown subtest '{name}'")),
                },
            }
        } else if t.starts_with("kernel") {
            break;
        }
    }
    if tests.is_empty() {
        return Err("no `test` line before the first kernel".into());
    }
    // Blank the header (test lines) but keep line numbers.
    let mut in_header = true;
    let body: String = text
        .lines()
        .map(|l| {
            if l.trim_start().starts_with("kernel") {
                in_header = false;
            }
            if in_header && !l.trim_start().starts_with(';') {
                "\n".to_string()
            } else {
                format!("{l}\n")
            }
        })
        .collect();
    let funcs = parse_functions_with_source_maps(&body).map_err(|e| format!("parse error: {e}"))?;
    if funcs.is_empty() {
        return Err("no functions in the file".into());
    }
    let lines: Vec<&str> = text.lines().collect();
    let mut count = 0;
    let mut blessed = Vec::new();
    for (n, (func, map)) in funcs.iter().enumerate() {
        let start = map.function_line;
        let end = funcs
            .get(n + 1)
            .map_or(lines.len() + 1, |(_, m)| m.function_line);
        let chunk = lines[start - 1..end - 1].join("\n");
        let ctx_err = |msg: String| format!("kernel %{} (line {start}): {msg}", func.name);
        check_fixed_point(func).map_err(ctx_err)?;
        let directives = check::parse_directives(&chunk, start);
        let mut runs = Vec::new();
        for (i, l) in chunk.lines().enumerate() {
            if let Some(pos) = l.find("; run:") {
                let d = run_directive::RunDirective::parse(&l[pos + 6..])
                    .map_err(|e| ctx_err(format!("line {}: {e}", start + i)))?;
                runs.push((start + i, d));
            }
        }
        for (sub, options) in &tests {
            let ctx_err = |msg: String| {
                format!(
                    "kernel %{} (line {start}), test {}: {msg}",
                    func.name,
                    sub.name()
                )
            };
            if sub.needs_verifier() {
                verify_function(func).map_err(|e| {
                    ctx_err(format!(
                        "input fails the verifier:\n{}",
                        e.display_with(func)
                    ))
                })?;
            }
            let mut f = func.clone();
            let ctx = Context {
                source_map: map,
                chunk: &chunk,
                first_line: start,
                options,
            };
            let output = sub.run(&mut f, &ctx).map_err(ctx_err)?;
            if sub.is_mutating() {
                verify_function(&f).map_err(|e| {
                    ctx_err(format!(
                        "output fails the verifier:\n{}",
                        e.display_with(&f)
                    ))
                })?;
                check_fixed_point(&f).map_err(ctx_err)?;
            }
            if options.iter().any(|o| o == "precise-output") {
                // The function ends at its first `}` line.
                let close = (start - 1..end - 1)
                    .find(|&i| lines[i].trim() == "}")
                    .ok_or_else(|| ctx_err("no closing `}`".into()))?;
                let block = precise::find_block(&lines, close);
                if let Err(e) = precise::compare(&block, &output) {
                    if !bless {
                        return Err(ctx_err(e));
                    }
                    blessed.push((block, precise::render(&output)));
                }
            } else {
                check::run_checks(&directives, &output).map_err(ctx_err)?;
            }
            if sub.name() != "verifier" {
                for (line, d) in &runs {
                    if sub.is_mutating() {
                        d.run(func)
                            .map_err(|e| ctx_err(format!("line {line}: before the pass: {e}")))?;
                    }
                    d.run(&f)
                        .map_err(|e| ctx_err(format!("line {line}: {e}")))?;
                }
            }
            count += 1;
        }
    }
    let new_text = (!blessed.is_empty()).then(|| precise::apply(text, blessed));
    Ok((Outcome::Passed(count), new_text))
}

/// Runs one file; with [`precise::BLESS_VAR`]` = 1`, rewrites its precise-output blocks.
pub fn run_file(path: &Path, extra: &[&dyn SubTest]) -> Result<Outcome, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let (outcome, new_text) = run_text_with(&text, extra, precise::bless_enabled())
        .map_err(|e| format!("{}: {e}", path.display()))?;
    if let Some(new_text) = new_text {
        std::fs::write(path, new_text).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(outcome)
}

/// Checks `print(parse(print(f))) == print(f)`.
pub fn check_fixed_point(func: &Function) -> Result<(), String> {
    let once = func.to_string();
    let parsed =
        parse_functions(&once).map_err(|e| format!("printed text does not parse: {e}\n{once}"))?;
    let [f2] = parsed.as_slice() else {
        return Err(format!("printed text parses to {} functions", parsed.len()));
    };
    let twice = f2.to_string();
    if once != twice {
        return Err(format!(
            "print is not a fixed point:\n--- first ---\n{once}--- second ---\n{twice}"
        ));
    }
    Ok(())
}

/// Every `*.ir` file under `dir`, sorted.
pub fn collect_files(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "ir") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}
