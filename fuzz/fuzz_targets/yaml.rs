#![no_main]
// kubesim::fuzzing::yaml under libFuzzer: `cargo +nightly fuzz run yaml`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| kubesim::fuzzing::yaml(data));
