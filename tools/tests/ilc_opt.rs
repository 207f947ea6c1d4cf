//! Pass tooling: the IR dumps of `ilc` are what `ilc-opt` reads, and running the rest of the
//! pipeline on a dump gives what `ilc` itself produces (so a bug report or a filetest can
//! start from a dump); `ilc-opt`'s and `ilc`'s pass options behave as documented.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use ilc::pipeline::{passes_for, DumpPoint};
use ilc::{Compiler, OptLevel, Options};
use ilc_passes::ir::{parse_function_text, renumber};
use ilc_test_support::assert_success;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace")
        .to_path_buf()
}

/// Every IL kernel of the test and benchmark corpora.
fn corpus() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for dir in ["tests/examples", "tests/kernels", "bench/kernels"] {
        let Ok(entries) = std::fs::read_dir(root().join(dir)) else {
            continue;
        };
        for e in entries.flatten() {
            if e.path().extension().is_some_and(|x| x == "il") {
                files.push(e.path());
            }
        }
    }
    files.sort();
    files
}

/// The function text with dense entity numbers (the parser allocates no values that were
/// created and dropped before the dump, so names may differ by that).
fn canonical(text: &str) -> String {
    renumber(&parse_function_text(text).expect("parses")).to_string()
}

/// For every corpus kernel: the dump after lowering and after each pass parses, prints back to
/// itself, and the passes after it, run on the parsed dump, give the pipeline's output.
#[test]
fn pipeline_resumes_from_every_dump() {
    let files = corpus();
    assert!(files.len() > 50, "corpus not found");
    let passes = passes_for(OptLevel::O2);
    let mut compared = 0;
    for (k, path) in files.iter().enumerate() {
        let src = std::fs::read(path).unwrap();
        let compiler = Compiler::new(Options {
            dump_after: vec!["all".into()],
            ..Options::default()
        });
        // Kernels the compiler refuses (exercised elsewhere) have no dumps.
        let Ok(out) = compiler.compile_ir(&src) else {
            continue;
        };
        let expected = canonical(&out.function.to_string());
        let dumps: Vec<_> = out
            .log
            .dumps
            .iter()
            .filter(|d| d.point == DumpPoint::After)
            .collect();
        assert_eq!(dumps.len(), passes.len() + 1, "{}", path.display());
        // Resume from lowering for every kernel, from every later dump for some.
        let starts: Vec<usize> = if k % 8 == 0 {
            (0..dumps.len()).collect()
        } else {
            vec![0]
        };
        for start in starts {
            let d = dumps[start];
            let mut f = parse_function_text(&d.text)
                .unwrap_or_else(|e| panic!("{}: {}: {e}", path.display(), d.header()));
            assert_eq!(f.to_string(), d.text, "{}: {}", path.display(), d.header());
            for name in &passes[start..] {
                ilc::pipeline::pass_by_name(name).unwrap().run_alone(&mut f);
                ilc_passes::verifier::verify_function(&f)
                    .unwrap_or_else(|e| panic!("{}: after {name}: {e}", path.display()));
            }
            assert_eq!(
                canonical(&f.to_string()),
                expected,
                "{}: resumed after {}",
                path.display(),
                d.stage
            );
            compared += 1;
        }
    }
    assert!(compared > 60);
}

fn run(bin: &str, args: &[&str], stdin: Option<&str>) -> Output {
    use std::io::Write;
    let mut cmd = Command::new(bin);
    // The tests read stderr: no log output from the caller's environment.
    cmd.env_remove("ILC_LOG").env_remove("RUST_LOG");
    cmd.args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = cmd.spawn().expect("runs");
    let mut input = child.stdin.take().expect("stdin");
    // A tool that refuses its arguments exits without reading: the pipe may be closed.
    let _ = input.write_all(stdin.unwrap_or("").as_bytes());
    drop(input);
    child.wait_with_output().expect("runs")
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ilc-opt-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

const ILC: &str = env!("CARGO_BIN_EXE_ilc");
const ILC_OPT: &str = env!("CARGO_BIN_EXE_ilc-opt");

#[test]
fn ilc_opt_on_an_ilc_dump_equals_ilc_emit_ir() {
    let dir = temp_dir("dump");
    let kernel = root().join("tests/examples/saxpy.il");
    let kernel = kernel.to_str().unwrap();
    let dumps = dir.join("dumps");
    let dumps_s = dumps.to_str().unwrap();
    let ir = run(
        ILC,
        &[
            kernel,
            "--emit",
            "ir",
            "--dump-after",
            "lower",
            "--dump-dir",
            dumps_s,
        ],
        None,
    );
    assert_success(&ir);
    let lower = dumps.join("00-lower.ir");
    let out = run(ILC_OPT, &["-O2", lower.to_str().unwrap()], None);
    assert_success(&out);
    assert_eq!(
        canonical(&String::from_utf8_lossy(&out.stdout)),
        canonical(&String::from_utf8_lossy(&ir.stdout))
    );
    // The same through stdin with an explicit pass list, the stderr stream of dumps (headers
    // are comments) as input, and --print-after-all.
    let stream = run(
        ILC,
        &[kernel, "--emit", "ir", "--dump-after", "lower"],
        None,
    );
    let stream = String::from_utf8_lossy(&stream.stderr).into_owned();
    assert!(
        stream.starts_with("; ---- IR after lower ----\n"),
        "{stream}"
    );
    let list = passes_for(OptLevel::O2).join(",");
    let out = run(ILC_OPT, &["-p", &list, "--print-after-all"], Some(&stream));
    assert!(out.status.success());
    assert_eq!(
        canonical(&String::from_utf8_lossy(&out.stdout)),
        canonical(&String::from_utf8_lossy(&ir.stdout))
    );
    let after = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        after.matches("; ---- IR after ").count(),
        passes_for(OptLevel::O2).len()
    );
}

#[test]
fn ilc_opt_errors() {
    let ok = "kernel %k {\n    uav0 = raw\n\nblock0:\n    v0 = special tid.x\n    v1 = iconst.b32 0x7\n    store.b32 uav0[v0], v0\n    return\n}\n";
    let out = run(ILC_OPT, &["-p", "dce"], Some(ok));
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        !text.contains("iconst") && text.contains("store.b32"),
        "{text}"
    );
    // Unknown pass: usage error listing the valid names.
    let out = run(ILC_OPT, &["-p", "dce,frobnicate"], Some(ok));
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("frobnicate") && err.contains("gvn"), "{err}");
    // -O and -p together: usage error.
    assert_eq!(
        run(ILC_OPT, &["-O2", "-p", "dce"], Some(ok)).status.code(),
        Some(2)
    );
    // Syntax error: file:line:col.
    let out = run(
        ILC_OPT,
        &["-p", "dce"],
        Some("kernel %k {\nblock0:\n  v0 = frob\n}\n"),
    );
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("<stdin>:3:"), "{err}");
    // Input that does not verify: the line of the offending definition.
    let bad = "kernel %k {\n    uav0 = raw\n\nblock0:\n    v0 = special tid.x\n    store.b32 uav0[v0], v1\n    return\n}\n";
    let out = run(ILC_OPT, &["-p", "dce"], Some(bad));
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("invalid IR"), "{err}");
    // Empty input.
    let out = run(ILC_OPT, &["-p", "dce"], Some(""));
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no kernel"));
}

#[test]
fn ilc_pass_options() {
    let kernel = root().join("tests/examples/saxpy.il");
    let kernel = kernel.to_str().unwrap();
    let code = |args: &[&str]| {
        let mut all = vec![kernel, "--emit", "ir"];
        all.extend_from_slice(args);
        run(ILC, &all, None)
    };
    // Unknown names are usage errors that list the valid ones.
    for args in [
        &["--dump-after=frob"][..],
        &["--dump-before", "lower"],
        &["--disable-pass", "isel"],
    ] {
        let out = code(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("valid:"));
    }
    // --list-passes needs no input and names every pass.
    let out = run(ILC, &["--list-passes"], None);
    assert!(out.status.success());
    let list = String::from_utf8_lossy(&out.stdout);
    for p in ilc::pipeline::PASSES {
        assert!(list.contains(p.name), "{list}");
    }
    // Bisection: the BISECT lines, and limit 0 equals -O0.
    let out = code(&["--opt-bisect-limit", "2"]);
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with(
            "BISECT: running pass (1) launch_facts on saxpy\n\
             BISECT: running pass (2) simplify_cfg on saxpy\n\
             BISECT: NOT running pass (3) const_fold on saxpy\n"
        ),
        "{err}"
    );
    assert_eq!(
        code(&["--opt-bisect-limit", "0"]).stdout,
        code(&["-O0"]).stdout
    );
    // The backend stages (loop rotation, the scheduler, the two reorderings of the emitted
    // code) count last: a limit of all the optimization passes leaves them out, like
    // disabling the last three for this loop-free kernel, and the code differs from the
    // scheduled code.
    let asm = |args: &[&str]| {
        let mut all = vec![kernel, "--emit", "asm"];
        all.extend_from_slice(args);
        let out = run(ILC, &all, None);
        assert!(out.status.success(), "{args:?}");
        out.stdout
    };
    let n = passes_for(OptLevel::O2).len().to_string();
    let unscheduled = asm(&["--disable-pass", "schedule,advance_first,rename,gap_fill"]);
    assert_eq!(asm(&["--opt-bisect-limit", &n]), unscheduled);
    assert_ne!(asm(&[]), unscheduled);
    let out = run(
        ILC,
        &[kernel, "--emit", "asm", "--opt-bisect-limit", &n],
        None,
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.ends_with(&format!(
            "BISECT: NOT running pass ({}) loop_rotate on saxpy\n\
             BISECT: NOT running pass ({}) schedule on saxpy\n\
             BISECT: NOT running pass ({}) advance_first on saxpy\n\
             BISECT: NOT running pass ({}) rename on saxpy\n\
             BISECT: NOT running pass ({}) gap_fill on saxpy\n",
            passes_for(OptLevel::O2).len() + 1,
            passes_for(OptLevel::O2).len() + 2,
            passes_for(OptLevel::O2).len() + 3,
            passes_for(OptLevel::O2).len() + 4,
            passes_for(OptLevel::O2).len() + 5
        )),
        "{err}"
    );
    // --disable-pass: fewer passes run (--time-passes lists what ran).
    let out = code(&[
        "--disable-pass",
        "gvn,dce",
        "--disable-pass=licm",
        "--time-passes",
    ]);
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("\ngvn ") && !err.contains("\ndce ") && err.contains("\ncombine "));
    // --dump-before and --print-changed write parseable dumps into --dump-dir.
    let dir = temp_dir("before");
    let out = code(&[
        "--dump-before",
        "gvn,isel",
        "--print-changed",
        "--dump-dir",
        dir.to_str().unwrap(),
    ]);
    assert_success(&out);
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert!(
        names.iter().any(|n| n.ends_with("-before-gvn.ir")),
        "{names:?}"
    );
    assert!(
        names.iter().any(|n| n.ends_with("-before-isel.ir")),
        "{names:?}"
    );
    assert!(names[0].ends_with("-lower.ir"), "{names:?}");
    for n in &names {
        let text = std::fs::read_to_string(dir.join(n)).unwrap();
        parse_function_text(&text).unwrap_or_else(|e| panic!("{n}: {e}"));
    }
}
