//! Checks print/parse and text -> binary -> text round trips of IL files:
//! `cargo run --example ilroundtrip FILES..`. Exit status 1 on the first failure.

fn main() {
    let mut bad = 0;
    for path in std::env::args().skip(1) {
        let Ok(src) = std::fs::read_to_string(&path) else {
            eprintln!("{path}: unreadable");
            bad += 1;
            continue;
        };
        let (Some(p), _) = isa_amdil::parse(&src) else {
            eprintln!("{path}: parse errors");
            bad += 1;
            continue;
        };
        let text = p.to_string();
        if isa_amdil::parse(&text).0.as_ref() != Some(&p) {
            eprintln!("{path}: print/parse changes the AST");
            bad += 1;
        }
        match isa_amdil::encode_binary(&p) {
            Ok(w) => match isa_amdil::decode_binary(&w) {
                Ok(b) if b == isa_amdil::binary::normalize(&p) => {}
                Ok(_) => {
                    eprintln!("{path}: binary round trip differs");
                    bad += 1;
                }
                Err(e) => {
                    eprintln!("{path}: {e}");
                    bad += 1;
                }
            },
            Err(e) => {
                eprintln!("{path}: cannot encode: {e:?}");
                bad += 1;
            }
        }
    }
    std::process::exit(i32::from(bad > 0));
}
