//! Formatting the page shows: pretty bodies, YAML, ages, decoded continue
//! tokens, diffs, and query-string editing.

use base64::Engine;
use serde_json::Value;

/// Does this body carry a Secret's values (a Secret, a list of them, or
/// a watch event of one)? The log then says that it shows them as the API
/// returns them: base64, which is not encryption.
pub fn carries_secret_values(body: &[u8]) -> bool {
    let is_secret = |v: &Value| {
        matches!(v.get("kind").and_then(Value::as_str), Some("Secret" | "SecretList"))
            || v.pointer("/object/kind").and_then(Value::as_str) == Some("Secret")
    };
    match serde_json::from_slice::<Value>(body) {
        Ok(v) => is_secret(&v),
        // A watch stream: one event per line.
        Err(_) => {
            body.split(|b| *b == b'\n').filter_map(|l| serde_json::from_slice::<Value>(l).ok()).any(|v| is_secret(&v))
        }
    }
}

/// A body for reading: pretty JSON when it is JSON (each line of a watch
/// stream on its own), the text otherwise.
pub fn pretty_body(body: &[u8]) -> String {
    if body.is_empty() {
        return String::new();
    }
    if let Ok(v) = serde_json::from_slice::<Value>(body) {
        return serde_json::to_string_pretty(&v).unwrap_or_default();
    }
    if body.starts_with(kubesim::proto::MAGIC) {
        // A protobuf answer: the bytes, then what they decode to.
        let decoded = match kubesim::proto::decode_object(body) {
            Ok(v) => serde_json::to_string_pretty(&v).unwrap_or_default(),
            Err(e) => format!("(does not decode: {e})"),
        };
        return format!("{} bytes of protobuf:\n{}\ndecoded:\n{decoded}", body.len(), crate::wire::hex_dump(body, 32));
    }
    let text = String::from_utf8_lossy(body);
    let lines: Vec<String> = text
        .lines()
        .map(|l| match serde_json::from_str::<Value>(l) {
            Ok(v) => serde_json::to_string(&v).unwrap_or_else(|_| l.to_string()),
            Err(_) => l.to_string(),
        })
        .collect();
    lines.join("\n")
}

/// YAML as kubectl prints it (go-yaml's quoting, folding and key order:
/// `kubesim::api::yaml`).
pub fn to_yaml(v: &Value) -> String {
    kubesim::api::yaml::to_string(v)
}

/// The value with every object's keys in byte order, as kubectl prints
/// `-o yaml` and `-o json` (Go marshals an unstructured object's maps with
/// their keys sorted).
pub fn keys_sorted(v: &Value) -> Value {
    match v {
        Value::Object(m) => {
            let ordered: std::collections::BTreeMap<&String, Value> =
                m.iter().map(|(k, v)| (k, keys_sorted(v))).collect();
            Value::Object(ordered.into_iter().map(|(k, v)| (k.clone(), v)).collect())
        }
        Value::Array(items) => Value::Array(items.iter().map(keys_sorted).collect()),
        other => other.clone(),
    }
}

pub fn to_pretty_json(v: &Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_default()
}

/// Deep flow nesting would hang the tab: refused before parsing, as
/// kubectl's YAML decoder refuses it.
fn not_too_deep(text: &str) -> Result<(), String> {
    match kubesim::schema::decode::yaml_flow_too_deep(text) {
        Some((line, _)) => Err(format!(
            "error converting YAML to JSON: yaml: line {line}: exceeded max depth of {}",
            kubesim::schema::decode::MAX_YAML_FLOW_DEPTH
        )),
        None => Ok(()),
    }
}

/// One YAML (or JSON) value of any shape (`kubectl patch -p`), refused as
/// `parse_documents` refuses deep nesting.
pub fn parse_value(text: &str) -> Result<Value, String> {
    not_too_deep(text)?;
    serde_norway::from_str(text).map_err(|e| e.to_string())
}

/// Parses one or more YAML (or JSON) documents, as `kubectl create -f`
/// reads a file. Empty documents are skipped; a `List` is flattened.
pub fn parse_documents(text: &str) -> Result<Vec<Value>, String> {
    not_too_deep(text)?;
    let mut out = Vec::new();
    for (i, doc) in serde_norway::Deserializer::from_str(text).enumerate() {
        let v: Value =
            serde::Deserialize::deserialize(doc).map_err(|e| format!("error parsing document {}: {e}", i + 1))?;
        match v {
            Value::Null => {}
            Value::Object(ref m) if m.get("kind").and_then(Value::as_str) == Some("List") => {
                if let Some(items) = m.get("items").and_then(Value::as_array) {
                    out.extend(items.iter().cloned());
                }
            }
            Value::Object(_) => out.push(v),
            other => return Err(format!("error parsing document {}: expected an object, got {other}", i + 1)),
        }
    }
    Ok(out)
}

/// The items of a list response as `namespace/name` (or `name`).
pub fn item_names(list: &Value) -> Vec<String> {
    list.get("items")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|i| {
            let ns = i.pointer("/metadata/namespace").and_then(Value::as_str).unwrap_or("");
            let n = i.pointer("/metadata/name").and_then(Value::as_str).unwrap_or("");
            if ns.is_empty() {
                n.to_string()
            } else {
                format!("{ns}/{n}")
            }
        })
        .collect()
}

/// An age as the printers show it (apimachinery's HumanDuration).
pub fn age(now_ms: i64, then_ms: i64) -> String {
    kubesim::clock::human_duration(now_ms - then_ms)
}

pub use kubesim::clock::parse_rfc3339;

/// A continue token decoded for display: it is base64 (URL-safe, unpadded)
/// of a small JSON document.
pub fn decode_continue(token: &str) -> Result<Value, String> {
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(token.trim_end_matches('='))
        .or_else(|_| base64::engine::general_purpose::STANDARD.decode(token))
        .map_err(|e| format!("not base64: {e}"))?;
    serde_json::from_slice(&bytes).map_err(|e| format!("not JSON: {e}"))
}

/// A line diff in unified style: lines prefixed with ' ', '-' or '+'.
/// (Myers' algorithm alone, called directly: `TextDiff` would bring every
/// algorithm it can choose from into the page.)
pub fn diff_lines(old: &str, new: &str) -> Vec<(char, String)> {
    use similar::algorithms::{myers, Capture};
    use similar::DiffOp;
    let a: Vec<&str> = old.split_inclusive('\n').collect();
    let b: Vec<&str> = new.split_inclusive('\n').collect();
    let mut capture = Capture::new();
    if myers::diff(&mut capture, &a, 0..a.len(), &b, 0..b.len()).is_err() {
        return Vec::new();
    }
    let line = |tag: char, s: &str| (tag, s.trim_end_matches('\n').to_string());
    let mut out = Vec::new();
    for op in capture.into_ops() {
        match op {
            DiffOp::Equal { old_index, len, .. } => {
                out.extend(a[old_index..old_index + len].iter().map(|s| line(' ', s)))
            }
            DiffOp::Delete { old_index, old_len, .. } => {
                out.extend(a[old_index..old_index + old_len].iter().map(|s| line('-', s)))
            }
            DiffOp::Insert { new_index, new_len, .. } => {
                out.extend(b[new_index..new_index + new_len].iter().map(|s| line('+', s)))
            }
            DiffOp::Replace { old_index, old_len, new_index, new_len } => {
                out.extend(a[old_index..old_index + old_len].iter().map(|s| line('-', s)));
                out.extend(b[new_index..new_index + new_len].iter().map(|s| line('+', s)));
            }
        }
    }
    // Within each run of changed lines, the removed ones first (as `diff
    // -u` writes them; Myers may give an insert before the delete): the
    // added lines wait until the run ends.
    let mut ordered = Vec::with_capacity(out.len());
    let mut added = Vec::new();
    for l in out {
        match l.0 {
            '+' => added.push(l),
            '-' => ordered.push(l),
            _ => {
                ordered.append(&mut added);
                ordered.push(l);
            }
        }
    }
    ordered.append(&mut added);
    ordered
}

/// The hunks of a unified diff of two texts, as GNU `diff -u` writes them
/// (three lines of context; hunks closer than twice that joined; a
/// range of one line written without its length, an empty one as the
/// line before it with length 0). Empty when the texts are the same.
pub fn unified_hunks(old: &str, new: &str) -> String {
    const CONTEXT: usize = 3;
    let lines = diff_lines(old, new);
    let changed: Vec<usize> = (0..lines.len()).filter(|i| lines[*i].0 != ' ').collect();
    let range = |before: usize, len: usize| match len {
        1 => format!("{}", before + 1),
        0 => format!("{before},0"),
        _ => format!("{},{len}", before + 1),
    };
    let mut out = String::new();
    let mut i = 0;
    while let Some(&first) = changed.get(i) {
        let mut last = first;
        while let Some(&next) = changed.get(i + 1).filter(|n| **n - last <= 2 * CONTEXT + 1) {
            last = next;
            i += 1;
        }
        i += 1;
        let (start, stop) = (first.saturating_sub(CONTEXT), (last + CONTEXT + 1).min(lines.len()));
        let count = |part: &[(char, String)], tag: char| part.iter().filter(|l| l.0 == ' ' || l.0 == tag).count();
        let (before, hunk) = (&lines[..start], &lines[start..stop]);
        out.push_str(&format!(
            "@@ -{} +{} @@\n",
            range(count(before, '-'), count(hunk, '-')),
            range(count(before, '+'), count(hunk, '+'))
        ));
        for (tag, line) in hunk {
            out.push(*tag);
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// The decoded value of a query parameter.
pub fn query_param(query: &str, name: &str) -> Option<String> {
    form_pairs(query).into_iter().find(|(k, _)| k == name).map(|(_, v)| v)
}

/// A query's pairs, decoded (`+` a space, percent escapes undone).
pub fn form_pairs(query: &str) -> Vec<(String, String)> {
    query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (decode_component(k), decode_component(v))
        })
        .collect()
}

fn decode_component(s: &str) -> String {
    let s = s.replace('+', " ");
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok().and_then(|h| u8::from_str_radix(h, 16).ok());
            if let Some(b) = hex {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Percent-encodes a query component (everything but unreserved characters).
pub fn encode_component(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => out.push(b as char),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// Sets (or, with an empty value, removes) a query parameter, keeping the
/// others in order.
pub fn set_query_param(query: &str, name: &str, value: &str) -> String {
    let mut pairs: Vec<(String, String)> = form_pairs(query).into_iter().filter(|(k, _)| k != name).collect();
    if !value.is_empty() {
        pairs.push((name.to_string(), value.to_string()));
    }
    build_query(&pairs)
}

pub fn build_query(pairs: &[(String, String)]) -> String {
    pairs
        .iter()
        .filter(|(_, v)| !v.is_empty())
        .map(|(k, v)| format!("{}={}", encode_component(k), encode_component(v)))
        .collect::<Vec<_>>()
        .join("&")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// As GNU diff 3.10's `diff -u` writes them.
    #[test]
    fn unified_hunks_are_gnu_diffs() {
        let old = "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm\nn\no\np\n";
        let new = "a\nB\nc\nd\ne\nf\ng\nh\nI\nj\nk\nl\nm\nn\no\np\nq\n";
        assert_eq!(
            unified_hunks(old, new),
            "@@ -1,12 +1,12 @@\n a\n-b\n+B\n c\n d\n e\n f\n g\n h\n-i\n+I\n j\n k\n l\n@@ -14,3 +14,4 @@\n n\n o\n p\n+q\n"
        );
        assert_eq!(unified_hunks("x\n", ""), "@@ -1 +0,0 @@\n-x\n");
        assert_eq!(unified_hunks("", "x\n"), "@@ -0,0 +1 @@\n+x\n");
        assert_eq!(unified_hunks(old, old), "");
    }

    #[test]
    fn keys_sorted_orders_every_object_s_keys_as_go_marshals_them() {
        let v: Value = serde_json::from_str(r#"{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","labels":{"z":"1","B":"2"}},"data":{"k":"v"},"items":[{"b":1,"a":2}]}"#).unwrap();
        assert_eq!(
            serde_json::to_string(&keys_sorted(&v)).unwrap(),
            r#"{"apiVersion":"v1","data":{"k":"v"},"items":[{"a":2,"b":1}],"kind":"ConfigMap","metadata":{"labels":{"B":"2","z":"1"},"name":"a"}}"#
        );
        assert!(to_yaml(&keys_sorted(&v)).starts_with("apiVersion: v1\ndata:\n  k: v\n"));
    }

    #[test]
    fn secrets_are_recognised_in_objects_lists_and_watch_streams() {
        assert!(carries_secret_values(br#"{"kind":"Secret","data":{"k":"dg=="}}"#));
        assert!(carries_secret_values(br#"{"kind":"SecretList","items":[]}"#));
        assert!(carries_secret_values(b"{\"type\":\"ADDED\",\"object\":{\"kind\":\"Secret\"}}\n{\"type\":\"DELETED\",\"object\":{\"kind\":\"Secret\"}}\n"));
        assert!(!carries_secret_values(br#"{"kind":"ConfigMap","data":{"kind":"Secret"}}"#));
        assert!(!carries_secret_values(b"not json"));
    }
    use serde_json::json;

    #[test]
    fn protobuf_bodies_show_their_bytes_and_what_they_decode_to() {
        let cm = serde_json::json!({"kind": "ConfigMap", "apiVersion": "v1", "metadata": {"name": "a"}});
        let text = pretty_body(&kubesim::proto::encode_object(&cm).unwrap());
        assert!(text.starts_with("32 bytes of protobuf:\n000000  6b 38 73 00"), "{text}");
        assert!(text.contains("\"name\": \"a\""), "{text}");
    }

    #[test]
    fn ages_read_like_kubectl() {
        assert_eq!(age(10_000, 0), "10s");
        assert_eq!(age(150_000, 0), "2m30s");
        assert_eq!(age(180_000, 0), "3m");
        assert_eq!(age(3_600_000, 0), "60m");
        assert_eq!(age(4 * 3_600_000, 0), "4h");
        assert_eq!(age(4 * 3_600_000 + 60_000, 0), "4h1m");
        assert_eq!(age(3 * 86_400_000, 0), "3d");
        assert_eq!(age(0, 500), "0s");
        assert_eq!(age(0, 5_000), "<invalid>", "a future timestamp, as HumanDuration says it");
    }

    #[test]
    fn rfc3339_round_trips_the_servers_clock() {
        let t = kubesim::clock::SimTime(1_700_000_123_000);
        assert_eq!(parse_rfc3339(&t.rfc3339()), Some(1_700_000_123_000));
        assert_eq!(parse_rfc3339("nonsense"), None);
    }

    #[test]
    fn query_params_are_set_removed_and_encoded() {
        let q = set_query_param("limit=2", "labelSelector", "app in (a,b)");
        assert_eq!(q, "limit=2&labelSelector=app%20in%20%28a%2Cb%29");
        assert_eq!(query_param(&q, "labelSelector").as_deref(), Some("app in (a,b)"));
        assert_eq!(set_query_param(&q, "limit", ""), "labelSelector=app%20in%20%28a%2Cb%29");
        assert_eq!(query_param("a=%zz", "a").as_deref(), Some("%zz"));
        assert_eq!(query_param("a=%4", "a").as_deref(), Some("%4"));
    }

    #[test]
    fn documents_are_split_and_lists_flattened() {
        let docs = parse_documents("a: 1\n---\n---\nkind: List\nitems:\n- b: 2\n- c: 3\n").unwrap();
        assert_eq!(docs, vec![json!({"a": 1}), json!({"b": 2}), json!({"c": 3})]);
        assert!(parse_documents("- 1\n").unwrap_err().contains("expected an object"));
        assert!(parse_documents("a: [\n").is_err());
        // 3 MiB of nesting: refused at once, not parsed.
        let deep = format!("kind: ConfigMap\ndata: {}{}", "[".repeat(1 << 20), "]".repeat(1 << 20));
        assert_eq!(
            parse_documents(&deep).unwrap_err(),
            "error converting YAML to JSON: yaml: line 2: exceeded max depth of 10000"
        );
    }

    #[test]
    fn continue_tokens_decode_to_their_json() {
        let token = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .encode(br#"{"v":"meta.k8s.io/v1","rv":12,"start":"b\u0000"}"#);
        assert_eq!(decode_continue(&token).unwrap()["rv"], json!(12));
        assert!(decode_continue("!!!").is_err());
    }

    #[test]
    fn diffs_mark_removed_and_added_lines() {
        let d = diff_lines("a\nb\nc\n", "a\nc\nd\n");
        assert_eq!(d, vec![(' ', "a".into()), ('-', "b".into()), (' ', "c".into()), ('+', "d".into())]);
    }

    #[test]
    fn watch_stream_bodies_print_one_event_per_line() {
        let body = b"{\"type\":\"ADDED\",\"object\":{}}\n{\"type\":\"BOOKMARK\",\"object\":{}}\n";
        assert_eq!(pretty_body(body), "{\"type\":\"ADDED\",\"object\":{}}\n{\"type\":\"BOOKMARK\",\"object\":{}}");
        assert_eq!(pretty_body(b"{\"a\":1}"), "{\n  \"a\": 1\n}");
    }
}
