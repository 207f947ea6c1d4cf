#![no_main]
//! `ilc_fuzz_targets::compile_verify` under libFuzzer.
libfuzzer_sys::fuzz_target!(|data: &[u8]| ilc_fuzz_targets::compile_verify(data));
