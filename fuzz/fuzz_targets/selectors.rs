#![no_main]
// kubesim::fuzzing::selectors under libFuzzer: `cargo +nightly fuzz run selectors`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| kubesim::fuzzing::selectors(data));
