#![no_main]
//! `ilc_fuzz_targets::spa5_codec` under libFuzzer.
libfuzzer_sys::fuzz_target!(|data: &[u8]| ilc_fuzz_targets::spa5_codec(data));
