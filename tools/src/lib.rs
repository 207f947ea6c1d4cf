//! Shared helpers for the ilc command-line tools.

pub mod dispatch;

use std::fmt::Write;

use isa_amdil::ast::Program;

/// A readable AST dump: the version line, then one statement per line prefixed with its
/// `line:col` source position and the guide section of its opcode.
pub fn ast_dump(program: &Program) -> String {
    let mut out = String::new();
    if let Some(v) = &program.version {
        let _ = writeln!(out, "version {v}");
    }
    for inst in &program.statements {
        let _ = writeln!(
            out,
            "{:>5}:{:<3} [{}] {}",
            inst.span.line,
            inst.span.col,
            inst.opcode.section(),
            inst
        );
    }
    out
}
pub mod ilgen;
pub mod spa5_text;

/// Writes `bytes` to `path`, replacing its contents, like [`std::fs::write`] but without
/// opening an existing file with `O_TRUNC`: a regular file is overwritten in place and then
/// cut to the new length. On ext4, truncating a file to zero makes the kernel flush it
/// (the `auto_da_alloc` guard for replace-by-truncate), and a compiler rewriting its output
/// file waited ~4 ms in `open` for the previous run's data to reach the disk: three times
/// the whole process (issue 22).
pub fn write_file(path: &std::path::Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write as _;
    // No truncation on open: the length is set after writing (see above).
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)?;
    file.write_all(bytes)?;
    // FIFOs and devices have no length to set.
    if file.metadata()?.is_file() {
        file.set_len(bytes.len() as u64)?;
    }
    Ok(())
}

#[cfg(test)]
mod write_file_tests {
    use super::write_file;

    #[test]
    fn replaces_longer_and_shorter_contents() {
        let dir = std::env::temp_dir().join(format!("ilc-write-file-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("out.bin");
        write_file(&p, b"a much longer first content").unwrap();
        write_file(&p, b"short").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"short");
        write_file(&p, b"longer than short").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"longer than short");
        write_file(&p, b"").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
