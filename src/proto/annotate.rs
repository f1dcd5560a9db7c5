//! The byte layout of an enveloped object, for the UI's protobuf view.

use serde_json::Value;

use super::{decode_object, layouts, message_for, Kind, Reader, Special, LEN, MAGIC};

/// One annotated field of a message, for the UI's byte view.
#[derive(Clone, Debug, PartialEq)]
pub struct Span {
    /// Offset of the field's key in the buffer, and its end.
    pub start: usize,
    pub end: usize,
    pub depth: usize,
    pub number: u32,
    /// The field's JSON name (or the envelope's part name).
    pub name: String,
}

/// Lays out an enveloped object: the magic, the Unknown wrapper's fields and
/// the object's fields (recursively), as spans over the bytes.
pub fn annotate(body: &[u8]) -> Vec<Span> {
    let mut spans = Vec::new();
    if body.len() < 4 || &body[..4] != MAGIC {
        return spans;
    }
    spans.push(Span { start: 0, end: 4, depth: 0, number: 0, name: "magic k8s\\0".into() });
    let Ok(v) = decode_object(body) else { return spans };
    let kind = v.get("kind").and_then(Value::as_str).unwrap_or("");
    let api_version = v.get("apiVersion").and_then(Value::as_str).unwrap_or("");
    let msg = message_for(api_version, kind);
    let names: &[&str] = &["", "typeMeta", "raw", "contentEncoding", "contentType"];
    let mut r = Reader { buf: &body[4..] };
    while !r.buf.is_empty() {
        let start = body.len() - r.buf.len();
        let Ok(k) = r.varint() else { break };
        let (number, wire) = ((k >> 3) as u32, (k & 7) as u32);
        let payload_at = |r: &Reader| body.len() - r.buf.len();
        if wire != LEN {
            break;
        }
        let Ok(b) = r.bytes() else { break };
        let payload_start = payload_at(&r) - b.len();
        let name = names.get(number as usize).copied().unwrap_or("?");
        spans.push(Span { start, end: payload_at(&r), depth: 0, number, name: format!("Unknown.{name}") });
        if number == 2 {
            if let Some(m) = msg {
                annotate_message(m, body, payload_start, payload_start + b.len(), 1, &mut spans);
            }
        }
    }
    spans
}

fn annotate_message(msg: usize, body: &[u8], from: usize, to: usize, depth: usize, spans: &mut Vec<Span>) {
    let m = &layouts().messages[msg];
    let mut r = Reader { buf: &body[from..to] };
    while !r.buf.is_empty() && depth < 12 {
        let start = to - r.buf.len();
        let Ok(k) = r.varint() else { return };
        let (number, wire) = ((k >> 3) as u32, (k & 7) as u32);
        let f = m.fields.iter().find(|f| f.number == number);
        let name = f.map(|f| if f.json.is_empty() { "(inline)".to_string() } else { f.json.clone() });
        if wire == LEN {
            let Ok(b) = r.bytes() else { return };
            let end = to - r.buf.len();
            spans.push(Span { start, end, depth, number, name: name.unwrap_or_else(|| "?".into()) });
            let inner = match f.map(|f| f.kind) {
                Some(Kind::Message(i) | Kind::Inline(i)) if layouts().messages[i].special == Special::None => Some(i),
                _ => None,
            };
            if let Some(i) = inner {
                annotate_message(i, body, end - b.len(), end, depth + 1, spans);
            }
        } else {
            if r.skip(wire).is_err() {
                return;
            }
            let end = to - r.buf.len();
            spans.push(Span { start, end, depth, number, name: name.unwrap_or_else(|| "?".into()) });
        }
    }
}
