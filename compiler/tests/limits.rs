//! Limits end to end: each limit is a distinct diagnostic code, and with the
//! nesting limit raised, 100k-deep `if` and `whileloop` nesting and a million-instruction
//! kernel go through the whole pipeline (parser, validator, lowering, passes, isel, register
//! allocation, scheduling) on a 1 MiB-stack thread without overflowing it: the result is a
//! kernel or a clean error (the compile-time limit bounds the run time).

use ilc::{Compiler, Limits, Options};

/// Runs `f` on a thread with a 1 MiB stack; a stack overflow aborts the test process.
fn small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(f)
        .expect("spawn")
        .join()
        .expect("no panic")
}

fn nested(depth: usize, open: &str, close: &str) -> Vec<u8> {
    let mut s = String::from("il_cs_2_0\ndcl_num_thread_per_group 64\nmov r0.x, vAbsTidFlat.x\n");
    for _ in 0..depth {
        s.push_str(open);
        s.push_str("iadd r0.x, r0.x, l0.x\n");
    }
    for _ in 0..depth {
        s.push_str(close);
    }
    s.push_str("end\n");
    let mut out =
        String::from("il_cs_2_0\ndcl_num_thread_per_group 64\ndcl_literal l0, 1, 1, 1, 1\n");
    out.push_str(&s["il_cs_2_0\ndcl_num_thread_per_group 64\n".len()..]);
    out.into_bytes()
}

fn code(r: Result<ilc::CompiledKernel, ilc::Diagnostics>) -> Option<String> {
    r.err().map(|d| d.0[0].code.to_string())
}

#[test]
fn each_limit_is_a_distinct_error() {
    let src = nested(3, "if_logicalnz r0.x\n", "endif\n");
    let with = |l: Limits| {
        Compiler::new(Options {
            limits: l,
            ..Options::default()
        })
    };
    let d = Limits::default();
    assert_eq!(
        code(
            with(Limits {
                max_source_bytes: 10,
                ..d
            })
            .compile(&src)
        )
        .as_deref(),
        Some("L0001")
    );
    assert_eq!(
        code(
            with(Limits {
                max_instructions: 2,
                ..d
            })
            .compile(&src)
        )
        .as_deref(),
        Some("L0002")
    );
    assert_eq!(
        code(
            with(Limits {
                max_nesting: 2,
                ..d
            })
            .compile(&src)
        )
        .as_deref(),
        Some("L0003")
    );
    assert_eq!(code(with(d).compile(&src)), None);
}

fn survives(src: Vec<u8>) {
    small_stack(move || {
        let c = Compiler::new(Options {
            limits: Limits {
                max_nesting: 1 << 20,
                max_instructions: 2_000_000,
                max_ir_instructions: usize::MAX,
                max_compile_ms: 20_000,
                ..Limits::default()
            },
            ..Options::default()
        });
        let t = std::time::Instant::now();
        match c.compile(&src) {
            Ok(k) => assert!(!k.cubin.is_empty()),
            // The only acceptable failure is the compile-time limit.
            Err(e) => assert_eq!(e.0[0].code, "L0004", "{e}"),
        }
        eprintln!("{} bytes: {:?}", src.len(), t.elapsed());
    })
}

/// CFG simplification is quadratic on 100k nested ifs (each of its rounds folds one level of
/// the nest and rescans the function; the dominators are near-linear): the compile deadline
/// (checked inside the passes) ends the compile with L0004 after 20 s.
#[test]
fn deep_if_nesting_does_not_overflow_the_stack() {
    survives(nested(100_000, "if_logicalnz r0.x\n", "endif\n"));
}

#[test]
fn deep_loop_nesting_does_not_overflow_the_stack() {
    survives(nested(
        100_000,
        "whileloop\nbreak_logicalz r0.x\n",
        "endloop\n",
    ));
}

#[test]
fn a_million_instructions_do_not_overflow_the_stack() {
    let mut s = String::from("il_cs_2_0\ndcl_num_thread_per_group 64\nmov r0.x, vAbsTidFlat.x\n");
    for i in 0..1_000_000 {
        s.push_str(if i % 2 == 0 {
            "iadd r0.x, r0.x, r0.x\n"
        } else {
            "ixor r0.x, r0.x, r0.y\n"
        });
    }
    s.push_str("end\n");
    survives(s.into_bytes());
}
