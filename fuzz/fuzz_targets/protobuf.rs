#![no_main]
// kubesim::fuzzing::protobuf under libFuzzer: `cargo +nightly fuzz run protobuf`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| kubesim::fuzzing::protobuf(data));
