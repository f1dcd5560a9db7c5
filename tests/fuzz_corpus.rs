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

#[test]
fn requests() {
    replay("request", kubesim::fuzzing::request);
}

#[test]
fn selectors() {
    replay("selectors", kubesim::fuzzing::selectors);
}

#[test]
fn yaml() {
    replay("yaml", kubesim::fuzzing::yaml);
}

#[test]
fn protobuf() {
    replay("protobuf", kubesim::fuzzing::protobuf);
}

#[test]
fn patches() {
    replay("patches", kubesim::fuzzing::patches);
}

#[test]
fn tokens() {
    replay("tokens", kubesim::fuzzing::tokens);
}
