//! Robustness: 10,000 random byte-level and token-level mutations of the corpus kernels, plus
//! random word mutations of their binary encodings. Nothing may panic or hang, and every error
//! diagnostic of text input must carry a line number.

use std::sync::mpsc;
use std::time::Duration;

use ilc_test_support::Rng;
use isa_amdil::{decode_binary, encode_binary, parse_lossy, validate};

const CHARS: &[char] = &[
    '(',
    ')',
    '[',
    ']',
    '_',
    '.',
    ',',
    ';',
    '/',
    '*',
    '\n',
    '\r',
    '\t',
    ' ',
    '0',
    '1',
    '9',
    'x',
    'X',
    '-',
    '+',
    'e',
    'f',
    'r',
    'l',
    'w',
    '{',
    '}',
    '=',
    '\u{e9}',
    '\u{0}',
    '\u{feff}',
    '\u{1F600}',
    '"',
    '#',
];

const TOKENS: &[&str] = &[
    "mov",
    "iadd",
    "dcl_literal",
    "dcl_cb",
    "endif",
    "endloop",
    "else",
    "whileloop",
    "switch",
    "case",
    "default",
    "endswitch",
    "func",
    "endfunc",
    "call",
    "ret",
    "ret_dyn",
    "end",
    "endmain",
    "break",
    "continue",
    "if_logicalnz",
    "r0",
    "r4294967295",
    "l99",
    "cb0[",
    "cb9[r1.x+",
    "x0[",
    "g[",
    "]",
    "[",
    "(",
    ")",
    "_neg(xyzw)",
    "_abs",
    "_sat",
    "_x2",
    ".x___",
    ".xyzw",
    ".0000",
    ".y00",
    ".qq",
    "0xFFFFFFFF",
    "99999999999",
    "-2147483649",
    "1.0e40",
    "4.0f",
    "vAbsTidFlat0",
    "mem0",
    "Tmr",
    "uav_raw_load_id(11)_cached",
    "_id(",
    "_relop(",
    "fence_threads_lds",
    ";ARGSTART:x",
    ";DEBUGSTART",
    "/*",
    "*/",
    "//",
    "il_cs_2_0",
    "il_zz_9_9_9",
    "dcl_num_thread_per_group",
    ",",
    ",,",
    "\n",
    "mdef(1)",
    "mcall(",
];

fn kernels() -> Vec<String> {
    ilc_test_support::corpus("isa-amdil/tests/data", "il", 8)
        .iter()
        .map(|p| std::fs::read_to_string(p).expect("readable"))
        .collect()
}

fn tokenize(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for c in s.chars() {
        if c.is_alphanumeric() || c == '_' {
            cur.push(c);
        } else {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            out.push(c.to_string());
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

fn mutate_chars(rng: &mut Rng, src: &str) -> String {
    let mut c: Vec<char> = src.chars().collect();
    for _ in 0..1 + rng.index(4) {
        let n = c.len();
        match rng.index(5) {
            0 if n > 0 => {
                let i = rng.index(n);
                c[i] = CHARS[rng.index(CHARS.len())];
            }
            1 if n > 0 => {
                let i = rng.index(n);
                let len = 1 + rng.index(20.min(n - i));
                c.drain(i..i + len);
            }
            2 => {
                let i = rng.index(n + 1);
                c.insert(i, CHARS[rng.index(CHARS.len())]);
            }
            3 if n > 0 => {
                let i = rng.index(n);
                let len = 1 + rng.index(40.min(n - i));
                let piece: Vec<char> = c[i..i + len].to_vec();
                let at = rng.index(n + 1);
                c.splice(at..at, piece);
            }
            _ if n > 0 => {
                // Random printable ASCII byte.
                let i = rng.index(n);
                c[i] = (0x20 + rng.index(0x5f) as u8) as char;
            }
            _ => {}
        }
    }
    c.into_iter().collect()
}

fn mutate_tokens(rng: &mut Rng, src: &str) -> String {
    let mut t = tokenize(src);
    for _ in 0..1 + rng.index(3) {
        let n = t.len();
        if n == 0 {
            t.push(TOKENS[rng.index(TOKENS.len())].to_string());
            continue;
        }
        match rng.index(4) {
            0 => {
                let (a, b) = (rng.index(n), rng.index(n));
                t.swap(a, b);
            }
            1 => {
                t.remove(rng.index(n));
            }
            2 => {
                let i = rng.index(n);
                let dup = t[i].clone();
                t.insert(rng.index(n + 1), dup);
            }
            _ => {
                let i = rng.index(n);
                t[i] = TOKENS[rng.index(TOKENS.len())].to_string();
            }
        }
    }
    t.concat()
}

fn check_one(src: &str) {
    let (prog, diags) = parse_lossy(src);
    for d in &diags {
        if d.is_error() {
            assert!(
                d.span.line >= 1,
                "error without a line number: {d:?}\n--- input ---\n{src}"
            );
        }
        let _ = d.render("m.il", src);
    }
    let semantic = validate(&prog);
    for d in &semantic {
        let _ = d.render("m.il", src);
    }
    let valid = !semantic.iter().any(|d| d.is_error());
    // Whatever parses must print and re-parse without panicking, and encode/decode if encodable.
    let printed = prog.to_string();
    let (again, diags) = parse_lossy(&printed);
    assert!(
        diags.iter().all(|d| !d.is_error()),
        "printed program does not parse:\n{printed}\n{diags:?}\n--- input ---\n{src}"
    );
    assert_eq!(
        again, prog,
        "print/parse changed the program:\n{printed}\n--- input ---\n{src}"
    );
    if let Ok(words) = encode_binary(&prog) {
        match decode_binary(&words) {
            Ok(back) => {
                // Exact round trip is promised for valid programs (the decoder supplies
                // required controls such as `_id` that invalid text may lack).
                let norm = isa_amdil::binary::normalize(&prog);
                if valid && back != norm {
                    let (x, y) = (back.to_string(), norm.to_string());
                    let diff: Vec<String> = x
                        .lines()
                        .zip(y.lines())
                        .filter(|(a, b)| a != b)
                        .map(|(a, b)| format!("decoded: {a}\nwritten: {b}"))
                        .collect();
                    let first = back
                        .statements
                        .iter()
                        .zip(&norm.statements)
                        .find(|(a, b)| a != b);
                    panic!(
                        "text -> binary -> text changed the program:\n{}\n{first:?}",
                        diff.join("\n")
                    );
                }
            }
            Err(e) => panic!("own encoding failed to decode: {e}\n--- program ---\n{printed}"),
        }
    }
}

#[test]
fn ten_thousand_mutations_never_panic_or_hang() {
    let (tx, rx) = mpsc::channel();
    let worker = std::thread::spawn(move || {
        let kernels = kernels();
        assert!(!kernels.is_empty());
        let mut rng = Rng::new(0x9E37_79B9_7F4A_7C15);
        let mut errors_seen = 0usize;
        for i in 0..10_000 {
            let k = &kernels[i % kernels.len()];
            let m = if i % 2 == 0 {
                mutate_chars(&mut rng, k)
            } else {
                mutate_tokens(&mut rng, k)
            };
            check_one(&m);
            if parse_lossy(&m).1.iter().any(|d| d.is_error()) {
                errors_seen += 1;
            }
        }
        // Binary: flip words of valid encodings.
        for i in 0..2_000 {
            let k = &kernels[i % kernels.len()];
            let (prog, _) = parse_lossy(k);
            let Ok(mut words) = encode_binary(&prog) else {
                continue;
            };
            for _ in 0..1 + rng.index(3) {
                let j = rng.index(words.len());
                match rng.index(3) {
                    0 => words[j] ^= 1 << rng.index(32),
                    1 => words[j] = rng.next_u64() as u32,
                    _ => words.truncate(j),
                }
                if words.is_empty() {
                    break;
                }
            }
            let _ = decode_binary(&words);
        }
        tx.send(errors_seen).expect("main thread waits");
    });
    match rx.recv_timeout(Duration::from_secs(120)) {
        Ok(errors_seen) => {
            // The mutations must actually exercise the error paths.
            assert!(
                errors_seen > 3_000,
                "only {errors_seen} mutated inputs had errors"
            );
        }
        Err(_) => panic!(
            "mutation run hung (or a worker panicked): {:?}",
            worker.join().err()
        ),
    }
}

#[test]
fn pathological_inputs_finish_quickly() {
    let big = 1 << 20;
    let inputs = vec![
        "a_".repeat(big / 2),
        format!("mov{}", "_x".repeat(big / 2)),
        "(".repeat(big),
        format!("mov r0, r1{}", "_neg(x)".repeat(big / 7)),
        format!("dcl_literal l0{}", ", 1".repeat(big / 3)),
        format!("mov r{}, r1", "9".repeat(big)),
        format!("mov r0.{}, r1", "x".repeat(big)),
        "/*".repeat(big / 2),
        ";DEBUGSTART\n".repeat(big / 12),
        ";ARGSTART:k\n".repeat(big / 12),
        "whileloop\n".repeat(big / 10),
        "mov r0, cb0[r1.x+1]\n".repeat(big / 20),
        "\u{1F600}".repeat(big / 4),
        "end\n".repeat(big / 4),
    ];
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for src in &inputs {
            check_one(src);
        }
        tx.send(()).expect("main thread waits");
    });
    assert!(
        rx.recv_timeout(Duration::from_secs(120)).is_ok(),
        "a pathological input hung or panicked"
    );
}

/// Decodes `w`; whatever decodes prints to text that parses back to the same program (and
/// validates without a panic). False when `w` does not decode.
fn decodes_and_round_trips(w: &[u32]) -> bool {
    let Ok(p) = decode_binary(w) else {
        return false;
    };
    let text = p.to_string();
    let (again, diags) = parse_lossy(&text);
    assert!(
        diags.iter().all(|d| !d.is_error()),
        "{text}\n{diags:?}\n{w:x?}"
    );
    assert_eq!(again, p, "{text}\n{w:x?}");
    let _ = validate(&p);
    true
}

#[test]
fn random_token_streams_never_panic() {
    let mut rng = Rng::new(0xD1B5_4A32_D192_ED03);
    let mut decoded = 0usize;
    for _ in 0..50_000 {
        let n = rng.index(12);
        let mut w = vec![12u32, 0x0003_0200];
        for _ in 0..n {
            let word = match rng.index(4) {
                // An opcode token with a random control field, sometimes with modifier flags.
                0 => {
                    (rng.index(490) as u32)
                        | ((rng.next_u64() as u32) & 0x3FFF) << 16
                        | ((rng.index(8) == 0) as u32) << 31
                }
                // A register token of a known type with random flags.
                1 => {
                    let kinds = isa_amdil::ast::RegKind::ALL;
                    let code = kinds[rng.index(kinds.len())].code() as u32;
                    let num = if rng.index(2) == 0 {
                        rng.index(4) as u32
                    } else {
                        rng.next_u64() as u32 & 0xFFFF
                    };
                    code << 16 | num | (rng.next_u64() as u32 & 0x07C0_0000)
                }
                // A modifier-like small word.
                2 => rng.next_u64() as u32 & 0x01FF_FFFF,
                _ => rng.next_u64() as u32,
            };
            w.push(word);
        }
        decoded += decodes_and_round_trips(&w) as usize;
    }
    eprintln!("decoded {decoded} of 50000 random streams");
    assert!(
        decoded > 1_000,
        "only {decoded} random streams decoded; the generator is too weak"
    );
}

/// Pushes a plausible register token set: a known register type, random flags, and the
/// modifier / index words those flags announce (sometimes inconsistent on purpose).
fn push_register(rng: &mut Rng, w: &mut Vec<u32>, dst: bool) {
    let kinds = isa_amdil::ast::RegKind::ALL;
    let kind = kinds[rng.index(kinds.len())];
    let num = if kind.is_numbered() {
        rng.index(20) as u32
    } else {
        0
    };
    let modp = rng.index(2) == 0;
    let rel = [0u32, 0, 2, 1][rng.index(4)];
    let imm = rng.index(2) == 0;
    let dim = rng.index(6) == 0;
    w.push(
        num | (kind.code() as u32) << 16
            | (modp as u32) << 22
            | rel << 23
            | (dim as u32) << 25
            | (imm as u32) << 26,
    );
    if modp {
        w.push(if dst {
            rng.next_u64() as u32 & 0x1FFF
        } else {
            rng.next_u64() as u32 & 0x01FF_FFFF
        });
    }
    if rel == 2 {
        w.push(4 << 16 | 1 << 22 | rng.index(8) as u32);
        w.push(rng.index(4) as u32 * 0x1111);
    }
    if imm {
        w.push(rng.index(64) as u32);
    }
    if dim {
        w.push(rng.index(16) as u32);
    }
}

#[test]
fn table_driven_random_streams_round_trip_through_text() {
    let mut rng = Rng::new(0x2545_F491_4F6C_DD1D);
    let ops: Vec<_> = isa_amdil::opcodes::OPCODES
        .iter()
        .filter(|i| {
            i.form == isa_amdil::opcodes::Form::Operands && i.opcode != isa_amdil::Opcode::Comment
        })
        .collect();
    let mut decoded = 0usize;
    for _ in 0..20_000 {
        let mut w = vec![12u32, 0x0003_0200];
        for _ in 0..1 + rng.index(4) {
            if rng.index(10) == 0 {
                // An immediate constant buffer declaration: count, then the dwords.
                let n = rng.index(9);
                w.push(isa_amdil::Opcode::DclConstBuffer.code() as u32 | 1 << 31);
                w.push(n as u32);
                for _ in 0..n {
                    w.push(rng.next_u64() as u32);
                }
                continue;
            }
            let info = ops[rng.index(ops.len())];
            let ctrl = if rng.index(2) == 0 {
                0
            } else {
                rng.next_u64() as u32 & 0x3FFF
            };
            w.push(info.code as u32 | ctrl << 16);
            for _ in 0..info.dsts {
                push_register(&mut rng, &mut w, true);
            }
            for _ in 0..info.srcs_max {
                push_register(&mut rng, &mut w, false);
            }
        }
        decoded += decodes_and_round_trips(&w) as usize;
    }
    eprintln!("decoded {decoded} of 20000 table-driven streams");
    assert!(decoded > 500, "only {decoded} streams decoded");
}
