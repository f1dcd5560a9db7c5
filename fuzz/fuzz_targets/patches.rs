#![no_main]
// kubesim::fuzzing::patches under libFuzzer: `cargo +nightly fuzz run patches`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| kubesim::fuzzing::patches(data));
