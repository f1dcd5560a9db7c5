#![no_main]
// kubesim::fuzzing::request under libFuzzer: `cargo +nightly fuzz run request`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| kubesim::fuzzing::request(data));
