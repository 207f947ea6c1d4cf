//! Writes the seeds of every fuzz target (`ilc_fuzz_targets::seeds`) into
//! `DIR/<target>/seed-<n>`: the starting corpus of `cargo fuzz run <target>` (DIR is
//! `fuzz/corpus` for cargo-fuzz's default).

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let Some(dir) = std::env::args_os().nth(1).map(PathBuf::from) else {
        eprintln!("usage: fuzz-seeds DIR");
        return ExitCode::from(2);
    };
    for (name, _) in ilc_fuzz_targets::TARGETS {
        let sub = dir.join(name);
        let seeds = ilc_fuzz_targets::seeds(name);
        let written = std::fs::create_dir_all(&sub).and_then(|()| {
            for (k, s) in seeds.iter().enumerate() {
                std::fs::write(sub.join(format!("seed-{k}")), s)?;
            }
            Ok(())
        });
        if let Err(e) = written {
            eprintln!("fuzz-seeds: error: {}: {e}", sub.display());
            return ExitCode::FAILURE;
        }
        println!("{name}: {} seeds in {}", seeds.len(), sub.display());
    }
    ExitCode::SUCCESS
}
