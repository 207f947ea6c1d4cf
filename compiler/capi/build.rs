//! The ABI version (one place: the SONAME and `ILC_ABI_VERSION` in the library come from it;
//! `include/ilc.h` repeats it and a test checks that they agree).
//!
//! The shared library's SONAME is `libilc_capi.so.<ABI>`: a program linked against one ABI
//! refuses to load a library of another instead of calling it with the wrong layouts. Bump
//! the ABI when a function's signature or a struct's existing members change (appending
//! members to `ilc_options` and adding functions keep it).

const ABI_VERSION: u32 = 1;

fn main() {
    println!("cargo:rustc-env=ILC_ABI_VERSION={ABI_VERSION}");
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libilc_capi.so.{ABI_VERSION}");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
