#![no_main]
//! `ilc_fuzz_targets::cubin_read` under libFuzzer.
libfuzzer_sys::fuzz_target!(|data: &[u8]| ilc_fuzz_targets::cubin_read(data));
