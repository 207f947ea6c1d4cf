//! Link flags for the command-line tools, which are started once per kernel (so process
//! start-up is part of every compile):
//! - `-no-pie`: a fixed-address executable has no dynamic relocations to apply at start-up
//!   (7788 -> 85 for `ilc`; the tables of instruction forms and pass registries are full of
//!   pointers), which saves the page faults of relocating them;
//! - `-z lazy`: library symbols are bound on first call instead of all at start-up.
//!
//! (A fully static binary would save ~0.3 ms more but needs `crt-static`, which Cargo only
//! applies with an explicit `--target`.)
fn main() {
    println!("cargo:rustc-link-arg-bins=-no-pie");
    println!("cargo:rustc-link-arg-bins=-Wl,-z,lazy");
}
