#![no_main]
// kubesim::fuzzing::tokens under libFuzzer: `cargo +nightly fuzz run tokens`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| kubesim::fuzzing::tokens(data));
