//! Hostile inputs: each case is a small input that used to cost unbounded time or
//! memory, compile to something the hardware cannot run, or be accepted although it is not a
//! kernel. Every case asserts the specific diagnostic (code and line), not only "no panic".

use std::time::{Duration, Instant};

use ilc::{Compiler, Limits, Options};

fn compiler(limits: Limits) -> Compiler {
    Compiler::new(Options {
        limits,
        ..Options::default()
    })
}

/// The first error's code and line.
fn first_error(src: &[u8], limits: Limits) -> (String, u32) {
    let e = compiler(limits)
        .compile(src)
        .err()
        .unwrap_or_else(|| panic!("compiles: {}", String::from_utf8_lossy(src)));
    let d = e.0.iter().find(|d| d.is_error()).expect("an error");
    (d.code.to_string(), d.span.line)
}

fn expect(src: &str, code: &str, line: u32) {
    assert_eq!(
        first_error(src.as_bytes(), Limits::default()),
        (code.to_string(), line),
        "{src}"
    );
}

/// `f0` calls `f1` twice, `f1` calls `f2` twice, ...: 2^depth copies of the last body.
fn call_tree(depth: u32) -> String {
    let mut s = String::from(
        "il_cs_2_0\ndcl_num_thread_per_group 64\ndcl_raw_uav_id(0)\nmov r0, vAbsTidFlat.x\n\
         call 0\nuav_raw_store_id(0) mem.x, vAbsTidFlat.x, r0.x\nendmain\n",
    );
    for k in 0..depth {
        s += &format!("func {k}\ncall {}\ncall {}\nret\n", k + 1, k + 1);
    }
    s += &format!("func {depth}\niadd r0.x, r0.x, vAbsTidFlat.x\nret\nend\n");
    s
}

#[test]
fn exponential_call_tree_is_rejected_at_the_call_before_lowering() {
    let src = call_tree(40);
    assert!(src.len() < 1400, "{}", src.len());
    let t = Instant::now();
    assert_eq!(
        first_error(src.as_bytes(), Limits::default()),
        ("L0002".into(), 5)
    );
    assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
    // A tree within the limit compiles.
    compiler(Limits::default())
        .compile(call_tree(6).as_bytes())
        .expect("64 copies compile");
}

#[test]
fn many_calls_of_a_big_function_are_rejected_at_the_call_that_crosses_the_limit() {
    let body = "iadd r0.x, r0.x, r1.x\nixor r1.x, r1.x, r0.x\n".repeat(1000);
    let src = format!(
        "il_cs_2_0\ndcl_num_thread_per_group 64\n{}endmain\nfunc 1\n{body}ret\nend\n",
        "call 1\n".repeat(5000)
    );
    // 2001 instructions per copy: copy 500 crosses a million (line 2 + 500).
    let t = Instant::now();
    assert_eq!(
        first_error(src.as_bytes(), Limits::default()),
        ("L0002".into(), 502)
    );
    assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
}

#[test]
fn the_deadline_stops_a_compile_inside_the_passes() {
    let src = ilc_test_support::hostile_il::inlining_blowup();
    let limit = 150;
    let t = Instant::now();
    let (code, _) = first_error(
        src.as_bytes(),
        Limits {
            max_compile_ms: limit,
            ..Limits::default()
        },
    );
    let took = t.elapsed();
    assert_eq!(code, "L0004");
    // Within twice the limit, with slack for a loaded machine.
    assert!(
        took < Duration::from_millis(2 * limit + 500),
        "stopped after {took:?}"
    );
}

#[test]
fn the_ir_size_limit_stops_lowering_at_the_statement() {
    let src = format!(
        "il_cs_2_0\ndcl_num_thread_per_group 64\n{}end\n",
        "iadd r0, r0, r1\n".repeat(100)
    );
    let (code, line) = first_error(
        src.as_bytes(),
        Limits {
            max_ir_instructions: 50,
            ..Limits::default()
        },
    );
    assert_eq!(code, "L0005");
    assert!((3..=102).contains(&line), "{line}");
}

#[test]
fn hardware_limits_are_errors_at_the_declaration() {
    let k = |decl: &str| format!("il_cs_2_0\n{decl}\nmov r0, r0\nend\n");
    expect(&k("dcl_num_thread_per_group 1025"), "L0010", 2);
    expect(
        &k("dcl_num_thread_per_group 65535, 65535, 65535"),
        "L0010",
        2,
    );
    expect(&k("dcl_num_thread_per_group 8, 8, 65"), "L0010", 2);
    expect(&k("dcl_num_thread_per_group 64, 32"), "L0010", 2);
    expect(&k("dcl_max_thread_per_group 1025"), "L0010", 2);
    expect(
        &k("dcl_num_thread_per_group 64\ndcl_lds_id(0) 4294967292"),
        "L0011",
        3,
    );
    expect(
        &k("dcl_num_thread_per_group 64\ndcl_lds_id(0) 32768\ndcl_lds_id(1) 32768"),
        "L0011",
        4,
    );
    expect(
        &k("dcl_num_thread_per_group 64\ndcl_indexed_temp_array x0[1000000000]"),
        "L0012",
        3,
    );
    expect(&k("dcl_num_thread_per_group 64\ndcl_cb cb0[0]"), "L0013", 3);
    expect(
        &k("dcl_num_thread_per_group 64\ndcl_cb cb0[200]\ndcl_cb cb1[200]"),
        "L0013",
        4,
    );
    // At the limits: accepted, and the launch layout states what the code assumes.
    let ok = "il_cs_2_0\ndcl_num_thread_per_group 16, 16, 4\ndcl_lds_id(0) 49152\n\
              mov r0, vTidInGrp.x\nlds_store_id(0) r0.x, r0.x\nend\n";
    let kernel = compiler(Limits::default())
        .compile(ok.as_bytes())
        .expect("at the limits");
    assert_eq!(kernel.layout.shared_size, 49152);
    assert_eq!(kernel.layout.block_size, Some([16, 16, 4]));
}

#[test]
fn cr_only_and_mixed_line_ends_are_line_breaks() {
    let lf = "il_cs_2_0\ndcl_num_thread_per_group 64\ndcl_raw_uav_id(0)\n\
              mov r0, vAbsTidFlat.x\nuav_raw_store_id(0) mem.x, r0.x, r0.x\nend\n";
    let c = compiler(Limits::default());
    let want = c.compile(lf.as_bytes()).expect("LF compiles").code;
    let cr = lf.replace('\n', "\r");
    let mixed: String = lf
        .split_inclusive('\n')
        .enumerate()
        .map(|(i, l)| match i % 3 {
            0 => l.to_string(),
            1 => l.replace('\n', "\r\n"),
            _ => l.replace('\n', "\r"),
        })
        .collect();
    for text in [cr, mixed] {
        let k = c.compile(text.as_bytes()).expect("compiles");
        assert_eq!(k.code, want, "{text:?}");
    }
    // Errors in a CR-only file point at the right line.
    let bad = "il_cs_2_0\rdcl_num_thread_per_group 64\rmov r0, r99999999999\rend\r";
    let (code, line) = first_error(bad.as_bytes(), Limits::default());
    assert_eq!(line, 3, "{code}");
}

#[test]
fn empty_and_contentless_inputs_are_errors_at_line_one() {
    for src in [
        &b""[..],
        b"   \n\t\n",
        b"; only a comment\n// and another\n",
        b"/* block */\n",
        b"\r\r\r",
    ] {
        assert_eq!(
            first_error(src, Limits::default()),
            ("E0017".into(), 1),
            "{src:?}"
        );
    }
    // A version line alone is not a kernel either.
    assert_eq!(
        first_error(b"il_cs_2_0\n", Limits::default()),
        ("E0017".into(), 1)
    );
    // Eight NUL bytes read as a binary token stream with no instruction.
    let (code, _) = first_error(&[0u8; 8], Limits::default());
    assert!(code == "E0017" || code == "E0050", "{code}");
}

#[test]
fn backend_errors_point_at_the_statement() {
    // Two registers cannot hold an address and a 128-bit load: register allocation fails
    // for the load, and says where it is.
    let src = "il_cs_2_0\ndcl_num_thread_per_group 64\ndcl_raw_uav_id(0)\n\
               uav_raw_load_id(0) r1, vAbsTidFlat.x\n\
               uav_raw_store_id(0) mem, vAbsTidFlat.x, r1\nend\n";
    let c = Compiler::new(Options {
        max_regs: Some(2),
        ..Options::default()
    });
    let e = c
        .compile(src.as_bytes())
        .expect_err("two registers are too few");
    assert_eq!((e.0[0].code, e.0[0].span.line), ("B0001", 4), "{e}");
}

#[test]
fn large_constant_offsets_are_materialized() {
    // g[] elements are 16 bytes: 524288 is byte offset 2^23, past the 24-bit immediate. The
    // register part of the index subtracts the offset again, so the accesses are in bounds
    // and the compared results show the address arithmetic.
    for offset in [524_287u32, 524_288, 1_000_000] {
        let src = format!(
            "il_cs_2_0\ndcl_num_thread_per_group 64\ndcl_literal l0, 1, 2, 3, 4\n\
             dcl_literal l1, {neg}, {neg}, {neg}, {neg}\n\
             iadd r1, vAbsTidFlat.x, l1\nmov r0, g[r1.x + {offset}]\n\
             iadd r0, r0, l0\nmov g[r1.x + {offset}], r0\nmov g[{offset}], r0\nend\n",
            neg = offset.wrapping_neg()
        );
        let c = compiler(Limits::default());
        let report = ilc::verify::verify(
            &c,
            src.as_bytes(),
            &ilc::verify::VerifyOptions {
                dispatches: 2,
                ..ilc::verify::VerifyOptions::default()
            },
        )
        .unwrap_or_else(|e| panic!("g[{offset}]: {e}"));
        assert!(
            report.passed() && report.compared > 0,
            "g[{offset}]: {report}"
        );
    }
}
