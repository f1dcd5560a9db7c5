//! The wire-format lens: one object or list as each representation the
//! API serves it (JSON, YAML, Table, protobuf), computed with the core's own
//! encoders, with sizes and, for protobuf, the bytes annotated field by
//! field.

use kubesim::clock::SimTime;
use kubesim::proto::{self, Span};
use kubesim::server::negotiation::{Convert, Encoding, Output};
use kubesim::server::represent::{self, IncludeObject};
use serde_json::Value;

/// Every representation of one response body.
#[derive(Clone, Debug, PartialEq)]
pub struct Views {
    pub json: String,
    pub json_bytes: usize,
    pub yaml: String,
    /// The Table, and its JSON text.
    pub table: Option<(Value, String)>,
    pub protobuf: Option<Vec<u8>>,
    pub spans: Vec<Span>,
}

/// The representations of a JSON body of a built-in kind; None for
/// anything else (Status, discovery, non-JSON).
pub fn views(body: &[u8], now: SimTime) -> Option<Views> {
    let as_output = |encoding, convert| {
        let output = Output { encoding, convert, v1beta1: false };
        represent::rerender(body, output, IncludeObject::None, now)
    };
    // Only bodies of built-in kinds (this also rules out Status and the rest).
    let json = as_output(Encoding::Json, None)?.ok()?;
    let v: Value = serde_json::from_slice(&json).ok()?;
    let json_bytes = json.len();
    let json = serde_json::to_string_pretty(&v).unwrap_or_default();
    let yaml = String::from_utf8(as_output(Encoding::Yaml, None)?.ok()?).unwrap_or_default();
    let table = as_output(Encoding::Json, Some(Convert::Table)).and_then(Result::ok).and_then(|raw| {
        let t: Value = serde_json::from_slice(&raw).ok()?;
        Some((t, String::from_utf8(raw).unwrap_or_default()))
    });
    let protobuf = as_output(Encoding::Protobuf, None).and_then(Result::ok);
    let spans = protobuf.as_deref().map(proto::annotate).unwrap_or_default();
    Some(Views { json, json_bytes, yaml, table, protobuf, spans })
}

/// Bytes as hex pairs, at most `max` of them (then an ellipsis).
pub fn hex(bytes: &[u8], max: usize) -> String {
    let mut s: Vec<String> = bytes.iter().take(max).map(|b| format!("{b:02x}")).collect();
    if bytes.len() > max {
        s.push("…".into());
    }
    s.join(" ")
}

/// A classic hex dump: offset, 16 bytes, their printable characters.
pub fn hex_dump(bytes: &[u8], max_lines: usize) -> String {
    let mut out = String::new();
    for (i, chunk) in bytes.chunks(16).take(max_lines).enumerate() {
        let hexes: Vec<String> = chunk.iter().map(|b| format!("{b:02x}")).collect();
        let text: String =
            chunk.iter().map(|&b| if b.is_ascii_graphic() || b == b' ' { b as char } else { '.' }).collect();
        out.push_str(&format!("{:06x}  {:<47}  {text}\n", i * 16, hexes.join(" ")));
    }
    if bytes.len() > 16 * max_lines {
        out.push_str(&format!("… {} more bytes\n", bytes.len() - 16 * max_lines));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_configmap_in_every_representation() {
        let body = br#"{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"cfg","creationTimestamp":"2023-11-14T22:13:20Z"},"data":{"a":"1"}}"#;
        let v = views(body, SimTime(1_700_000_060_000)).expect("views");
        assert_eq!(v.json_bytes, body.len());
        assert!(v.yaml.starts_with("apiVersion: v1\n"), "{}", v.yaml);
        let (table, _) = v.table.unwrap();
        assert_eq!(table["rows"][0]["cells"], serde_json::json!(["cfg", 1, "60s"]));
        let pb = v.protobuf.unwrap();
        assert_eq!(&pb[..4], b"k8s\x00");
        let names: Vec<&str> = v.spans.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names[..4], ["magic k8s\\0", "Unknown.typeMeta", "Unknown.raw", "metadata"]);
        assert!(names.contains(&"name") && names.contains(&"data") && names.contains(&"Unknown.contentType"));
        assert!(pb.len() < body.len());
    }

    #[test]
    fn lists_too_and_nothing_for_a_status() {
        let list = br#"{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"5"},"items":[{"metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"i"}]}}]}"#;
        let v = views(list, SimTime(0)).unwrap();
        assert_eq!(v.table.unwrap().0["rows"][0]["cells"][0], "p");
        let status = br#"{"kind":"Status","apiVersion":"v1","status":"Failure","code":404}"#;
        assert!(views(status, SimTime(0)).is_none());
        assert!(views(b"not json", SimTime(0)).is_none());
    }

    #[test]
    fn hex_helpers() {
        assert_eq!(hex(&[0x6b, 0x38, 0x73, 0], 3), "6b 38 73 …");
        assert!(hex_dump(b"k8s\x00abc", 4).starts_with("000000  6b 38 73 00 61 62 63"));
    }
}
