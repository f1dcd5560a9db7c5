//! Strings are written as serde_json always wrote them. The vendored
//! serde_json (`vendor/README.md`) finds the next byte to escape a word at
//! a time; this checks its output against a plain byte-by-byte escaper on
//! strings of every shape: escapes at every offset of a word, runs longer
//! and shorter than a word, multi-byte characters, DEL and bytes next to
//! the control range.

use proptest::prelude::*;

/// JSON's escaping as serde_json writes it, one character at a time.
fn reference(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\u{c}' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[test]
fn every_escape_at_every_offset_of_a_word() {
    let specials = ['"', '\\', '\u{0}', '\u{1f}', '\n', '\t', '\u{7f}', ' ', '!', '#', '[', ']', 'é', '€', '😀'];
    for len in 0..40 {
        for at in 0..len.max(1) {
            for &c in &specials {
                let mut s: String = "abcdefghijklmnopqrstuvwxyz0123456789ABCD".chars().take(len).collect();
                if at < s.len() {
                    s.replace_range(at..at + 1, &c.to_string());
                } else {
                    s.push(c);
                }
                let written = serde_json::to_string(&s).unwrap();
                assert_eq!(written, reference(&s), "{s:?}");
                assert_eq!(serde_json::from_str::<String>(&written).unwrap(), s);
            }
        }
    }
}

proptest! {
    #[test]
    fn strings_are_escaped_as_before(s in "(\\PC|[\\x00-\\x21\\x5b-\\x5d\\x7f-\\u{a0}]){0,80}") {
        let written = serde_json::to_string(&s).unwrap();
        prop_assert_eq!(&written, &reference(&s));
        let value = serde_json::to_string(&serde_json::Value::String(s.clone())).unwrap();
        prop_assert_eq!(&value, &written);
        prop_assert_eq!(serde_json::from_str::<String>(&written).unwrap(), s);
    }
}
