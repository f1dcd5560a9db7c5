//! The fuzzers' corpora (`fuzz/corpus/TARGET/`) replayed as ordinary
//! tests: every input a fuzzer kept, and every crash it found (kept under
//! `fuzz/regressions/TARGET/` once fixed), goes through the same entry
//! point again (`kubesim::fuzzing`), on stable, in every test run.

use std::path::Path;

fn replay(target: &str, run: fn(&[u8])) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    let mut count = 0;
    for dir in ["corpus", "regressions"] {
        let Ok(entries) = std::fs::read_dir(root.join(dir).join(target)) else { continue };
        for entry in entries {
            let path = entry.unwrap().path();
            let data = std::fs::read(&path).unwrap();
            let outcome = std::panic::catch_unwind(|| run(&data));
            assert!(outcome.is_ok(), "{} fails", path.display());
            count += 1;
        }
    }
    assert!(count > 0, "no corpus for {target}");
    eprintln!("{target}: {count} inputs");
}

/// One test per target, each replaying that target's inputs.
macro_rules! replays {
    ($($test:ident: $target:literal => $run:path),* $(,)?) => {
        $(
            #[test]
            fn $test() {
                replay($target, $run);
            }
        )*
    };
}

replays! {
    requests: "request" => kubesim::fuzzing::request,
    selectors: "selectors" => kubesim::fuzzing::selectors,
    yaml: "yaml" => kubesim::fuzzing::yaml,
    protobuf: "protobuf" => kubesim::fuzzing::protobuf,
    patches: "patches" => kubesim::fuzzing::patches,
    tokens: "tokens" => kubesim::fuzzing::tokens,
}
