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
    for len in 0..50 {
        for at in 0..len.max(1) {
            for &c in &specials {
                let mut s: String = "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMN".chars().take(len).collect();
                if at < s.len() {
                    s.replace_range(at..at + 1, &c.to_string());
                } else {
                    s.push(c);
                }
                let written = serde_json::to_string(&s).unwrap();
                assert_eq!(written, reference(&s), "{s:?}");
                assert_eq!(serde_json::from_str::<String>(&written).unwrap(), s);
                // The value writer (`ser::write_value`) writes it alike,
                // as a string and as a key.
                let mut direct = Vec::new();
                serde_json::ser::write_value(&mut direct, &serde_json::json!({&s: &s}));
                assert_eq!(String::from_utf8(direct).unwrap(), format!("{{{written}:{written}}}"));
            }
        }
    }
}

/// The reader finds a string's end, and refuses a raw control character
/// in it, at every offset of a sixteen-byte block and of a word (it tests
/// blocks a step on x86-64, words elsewhere, with the writer's function).
#[test]
fn the_reader_stops_at_every_offset_of_a_block() {
    let text: String = "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMN".into();
    for len in 0..50 {
        let plain = &text[..len];
        assert_eq!(serde_json::from_str::<String>(&format!("\"{plain}\"")).unwrap(), plain);
        for at in 0..=len {
            for c in ['\u{0}', '\u{1}', '\n', '\u{1f}'] {
                let raw = format!("\"{}{c}{}\"", &plain[..at], &plain[at..]);
                let err = serde_json::from_str::<String>(&raw).unwrap_err().to_string();
                assert!(err.starts_with("control character (\\u0000-\\u001F) found"), "{raw:?}: {err}");
            }
            for c in [' ', '\u{7f}', 'é'] {
                let raw = format!("\"{}{c}{}\"", &plain[..at], &plain[at..]);
                let want = format!("{}{c}{}", &plain[..at], &plain[at..]);
                assert_eq!(serde_json::from_str::<String>(&raw).unwrap(), want, "{raw:?}");
            }
            let quoted = format!("\"{}\\\"{}\"", &plain[..at], &plain[at..]);
            assert_eq!(serde_json::from_str::<String>(&quoted).unwrap(), format!("{}\"{}", &plain[..at], &plain[at..]));
        }
    }
}

/// Bytes read from a slice are checked as UTF-8 unless the reader saw
/// they were all ASCII (it notes bytes above 0x7f as it looks for the
/// string's end): a byte above 0x7f, valid in its sequence or not, at
/// every offset of a sixteen-byte block and of a word, before and after
/// an escape, is read or refused as `str::from_utf8` would.
#[test]
fn bytes_above_ascii_are_checked_at_every_offset_of_a_block() {
    let text = b"abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMN";
    let inserts: [&[u8]; 7] =
        [b"\xc3\xa9", "€".as_bytes(), "😀".as_bytes(), b"\xff", b"\xc3", b"\xed\xa0\x80", b"\x80"];
    for len in 0..50 {
        for at in 0..=len {
            for insert in inserts {
                for escaped in [false, true] {
                    let mut content = text[..at].to_vec();
                    content.extend_from_slice(insert);
                    content.extend_from_slice(&text[at..len]);
                    let mut raw = b"\"".to_vec();
                    if escaped {
                        raw.extend_from_slice(b"\\n");
                    }
                    raw.extend_from_slice(&content);
                    raw.push(b'"');
                    let read = serde_json::from_slice::<String>(&raw);
                    let value = serde_json::from_slice::<serde_json::Value>(&raw);
                    match std::str::from_utf8(&content) {
                        Ok(want) => {
                            let want = if escaped { format!("\n{want}") } else { want.to_string() };
                            assert_eq!(read.unwrap(), want);
                            assert_eq!(value.unwrap(), serde_json::Value::String(want));
                        }
                        Err(_) => {
                            let err = read.unwrap_err().to_string();
                            assert!(err.starts_with("invalid unicode code point"), "{raw:?}: {err}");
                            assert!(value.is_err(), "{raw:?}");
                        }
                    }
                }
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
        let mut direct = Vec::new();
        serde_json::ser::write_value(&mut direct, &serde_json::Value::String(s.clone()));
        prop_assert_eq!(String::from_utf8(direct).unwrap(), written.clone());
        prop_assert_eq!(serde_json::from_str::<String>(&written).unwrap(), s);
    }
}

/// Any value, nested: every kind of scalar (integers at both ends, floats
/// with and without a fraction, strings with escapes) in lists and maps.
fn any_value() -> impl Strategy<Value = serde_json::Value> {
    use serde_json::{json, Value};
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<u64>().prop_map(|n| json!(n)),
        any::<f64>().prop_map(|f| json!(f)),
        (-1000i32..1000).prop_map(|n| json!(f64::from(n) / 8.0)),
        "(\\PC|[\\x00-\\x21\\x5b-\\x5d]){0,24}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 64, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec(("[a-z\\\\\"\\x01]{0,6}", inner), 0..6)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

proptest! {
    /// The value writer (`ser::write_value`, which stores every object)
    /// writes what `to_vec` writes, byte for byte, after what is in the
    /// vector already.
    #[test]
    fn values_are_written_as_to_vec_writes_them(v in any_value()) {
        let mut direct = b"head".to_vec();
        serde_json::ser::write_value(&mut direct, &v);
        let mut want = b"head".to_vec();
        want.extend(serde_json::to_vec(&v).unwrap());
        prop_assert_eq!(direct, want);
    }
}

proptest! {
    /// `api::to_json_string`, which names an invalid value in validation
    /// errors and field paths, is what `Value::to_string` gives.
    #[test]
    fn json_text_is_what_to_string_gives(v in any_value()) {
        prop_assert_eq!(kubesim::api::to_json_string(&v), v.to_string());
    }
}
