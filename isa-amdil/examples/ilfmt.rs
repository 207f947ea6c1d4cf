//! Prints an IL file in canonical form, or its diagnostics: `cargo run --example ilfmt FILE`.

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: ilfmt FILE.il");
        std::process::exit(2);
    };
    let src = match std::fs::read_to_string(&path) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(2);
        }
    };
    let (prog, diags) = isa_amdil::parse(&src);
    eprint!("{}", isa_amdil::diag::render_all(&diags, &path, &src));
    match prog {
        Some(p) => print!("{p}"),
        None => std::process::exit(1),
    }
}
