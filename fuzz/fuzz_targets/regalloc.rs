#![no_main]
//! `ilc_fuzz_targets::regalloc` under libFuzzer.
libfuzzer_sys::fuzz_target!(|data: &[u8]| ilc_fuzz_targets::regalloc(data));
