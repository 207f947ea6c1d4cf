//! Parses and validates IL files, printing all diagnostics: `cargo run --example ilcheck FILES..`.
//! Exit status 1 when any file has errors.

fn main() {
    let mut failed = false;
    for path in std::env::args().skip(1) {
        let src = match std::fs::read_to_string(&path) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("{path}: {e}");
                failed = true;
                continue;
            }
        };
        let (prog, mut diags) = isa_amdil::parse(&src);
        if let Some(p) = &prog {
            diags.extend(isa_amdil::validate(p));
        }
        failed |= isa_amdil::diag::has_errors(&diags);
        eprint!("{}", isa_amdil::diag::render_all(&diags, &path, &src));
    }
    std::process::exit(i32::from(failed));
}
