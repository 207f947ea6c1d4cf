//! Random-program differential testing: kernels from `ilc_tools::ilgen`
//! compiled by ilc must match the IL interpreter on the SPA 5.0 emulator (`ilc::verify`), with
//! no control-word hazard. A bounded number per `cargo test`; `ilc-fuzz` is the soak mode.
//! Every mismatch ilc-fuzz has found is minimized into `tests/regressions/` and checked here
//! at every optimization level.

use ilc::options::{OptLevel, Options};
use ilc::verify::{verify, VerifyOptions};
use ilc::Compiler;
use ilc_test_support::assert_no_failures;
use ilc_tools::ilgen;

fn compiler(level: OptLevel, assume_in_bounds: bool) -> Compiler {
    Compiler::new(Options {
        opt_level: level,
        kernel_name: Some("fuzz".into()),
        assume_in_bounds,
        ..Options::default()
    })
}

fn check(level: OptLevel, src: &str, seed: u64) -> Result<(), String> {
    check_with(compiler(level, false), src, seed)
}

fn check_with(compiler: Compiler, src: &str, seed: u64) -> Result<(), String> {
    let opts = VerifyOptions {
        dispatches: 2,
        seed,
        grid: [2, 1, 1],
        ..VerifyOptions::default()
    };
    match verify(&compiler, src.as_bytes(), &opts) {
        Ok(r) if r.passed() && r.compared > 0 => Ok(()),
        Ok(r) => Err(r.to_string()),
        Err(e) => Err(e.to_string()),
    }
}

#[test]
fn random_kernels_match_the_interpreter() {
    let mut failures = Vec::new();
    for (level, count) in [
        (OptLevel::O2, 160u64),
        (OptLevel::O0, 40),
        (OptLevel::O3, 40),
    ] {
        for seed in 0..count {
            let src = ilgen::generate(seed, 30);
            if let Err(e) = check(level, &src, seed) {
                failures.push(format!("{level:?} seed {seed}: {e}\n{src}"));
            }
        }
    }
    assert_no_failures(
        &failures,
        "failures (reproduce with `ilc-fuzz --count 1 --seed S --minimize`)",
    );
}

/// With accesses promised in bounds (every generated access is), instruction selection folds
/// address arithmetic into the 64-bit address; addresses such as `(y - z) + 256` whose 32-bit
/// part wraps must still reach the same bytes.
#[test]
fn random_kernels_match_the_interpreter_with_accesses_in_bounds() {
    let mut failures = Vec::new();
    for (level, size, count) in [
        (OptLevel::O2, 30u32, 80u64),
        (OptLevel::O1, 30, 20),
        (OptLevel::O3, 250, 3),
    ] {
        for k in 0..count {
            let seed = 104_729 + u64::from(size) * 31 + k;
            let src = ilgen::generate_in_bounds(seed, size);
            if let Err(e) = check_with(compiler(level, true), &src, seed) {
                failures.push(format!("{level:?} size {size} seed {seed}: {e}"));
            }
        }
    }
    assert_no_failures(
        &failures,
        "failures (reproduce with `ilc-fuzz --assume-in-bounds --count 1 --seed S --size N`)",
    );
}

/// Large kernels (hundreds of statements: nested divergent ifs and loops on loaded values, LDS
/// exchanges across barriers) reach shapes the 30-statement ones never do: the CFG
/// simplifications fold merges and preheaders, and reconvergence must still happen before each
/// barrier. A few per size and level keep `cargo test` fast; `ilc-fuzz --size 400` soaks.
#[test]
fn large_random_kernels_match_the_interpreter_at_every_level() {
    let mut failures = Vec::new();
    for (size, count) in [(120u32, 6u64), (250, 4), (400, 2)] {
        for level in [OptLevel::O0, OptLevel::O1, OptLevel::O2, OptLevel::O3] {
            for k in 0..count {
                let seed = 7919 * u64::from(size) + k;
                let src = ilgen::generate(seed, size);
                if let Err(e) = check(level, &src, seed) {
                    failures.push(format!("{level:?} size {size} seed {seed}: {e}"));
                }
            }
        }
    }
    assert_no_failures(
        &failures,
        "failures (reproduce with `ilc-fuzz --count 1 --seed S --size N --minimize`)",
    );
}

#[test]
fn regressions_stay_fixed_at_every_level() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/regressions");
    let mut n = 0;
    let mut failures = Vec::new();
    for e in std::fs::read_dir(&dir).expect("tests/regressions") {
        let path = e.expect("entry").path();
        if path.extension().is_none_or(|x| x != "il") {
            continue;
        }
        let src = std::fs::read_to_string(&path).expect("read");
        n += 1;
        // The data of the dispatches: `; verify-seed: N` (the seed whose data showed the
        // bug), else 7.
        let seed = src
            .lines()
            .find_map(|l| l.strip_prefix("; verify-seed:"))
            .map(|v| v.trim().parse::<u64>().expect("a verify-seed number"))
            .unwrap_or(7);
        for level in [OptLevel::O0, OptLevel::O1, OptLevel::O2, OptLevel::O3] {
            if let Err(e) = check(level, &src, seed) {
                failures.push(format!("{} {level:?}: {e}", path.display()));
            }
        }
    }
    assert!(n >= 1);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// How often `pass` fires on 100 generated kernels of 40 statements: the -O2 pipeline up to
/// the pass, then the pass (`count` returns how many loops it transformed).
fn loops_transformed(pass: &str, count: fn(&mut ilc_passes::ir::Function) -> usize) -> usize {
    use ilc::pipeline::{pass_by_name, passes_for};
    (0..100u64)
        .map(|seed| {
            let src = ilgen::generate(seed, 40);
            let (prog, _) = isa_amdil::parse(&src);
            let Some(mut f) = prog.and_then(|p| ilc::lower::lower(&p).ok()) else {
                return 0;
            };
            for name in passes_for(OptLevel::O2)
                .into_iter()
                .take_while(|n| *n != pass)
            {
                pass_by_name(name).expect("known pass").run_alone(&mut f);
            }
            count(&mut f)
        })
        .sum()
}

/// The generator reaches the loop unroller: some kernels' loops count up to a bound and get
/// an unrolled copy (a pass that never fires would leave the soak blind to it).
#[test]
fn generated_loops_get_unrolled() {
    let unrolled = loops_transformed("unroll", ilc_passes::unroll::unroll);
    assert!(
        unrolled >= 5,
        "only {unrolled} loops unrolled in 100 generated kernels"
    );
}

/// The generator reaches loop versioning on bounds checks: some loops load at addresses
/// affine in their counter, in range or not.
#[test]
fn generated_loops_get_versioned() {
    let versioned = loops_transformed("bounds_version", ilc_passes::bounds_version::version);
    assert!(
        versioned >= 5,
        "only {versioned} loops versioned in 100 generated kernels"
    );
}

/// The generator reaches loop strength reduction: some loops address memory through a
/// multiply of their counter (`imad`), which becomes an induction variable.
#[test]
fn generated_loops_get_strength_reduced() {
    let reduced = loops_transformed("loop_reduce", ilc_passes::loop_reduce::reduce);
    assert!(
        reduced >= 5,
        "only {reduced} addresses strength-reduced in 100 generated kernels"
    );
}

/// The generator reaches straight-line versioning on bounds checks: some kernels have runs of
/// accesses (vectors, neighbours at one address) worth one test.
#[test]
fn generated_runs_get_versioned() {
    let versioned = loops_transformed("bounds_region", ilc_passes::bounds_region::version);
    assert!(
        versioned >= 5,
        "only {versioned} straight-line runs versioned in 100 generated kernels"
    );
}
