#![no_main]
//! `ilc_fuzz_targets::il_text` under libFuzzer.
libfuzzer_sys::fuzz_target!(|data: &[u8]| ilc_fuzz_targets::il_text(data));
