//! The `k8s\0` envelope (`runtime.Unknown`), XList messages, watch frames,
//! and the cache of stored objects' encodings.

use std::collections::HashMap;

use prost::Message as _;
use serde_json::{Map, Value};

use super::{
    decode_message, encode_message, encode_varint, key, len_delimited, message_for, nested, nested_message,
    varint_field, varint_len, Reader, LEN, MAGIC,
};

#[derive(Clone, PartialEq, prost::Message)]
struct TypeMeta {
    #[prost(string, tag = "1")]
    api_version: String,
    #[prost(string, tag = "2")]
    kind: String,
}

/// `runtime.Unknown`, as spec 000 gives it.
#[derive(Clone, PartialEq, prost::Message)]
struct Unknown {
    #[prost(message, optional, tag = "1")]
    type_meta: Option<TypeMeta>,
    #[prost(bytes = "vec", optional, tag = "2")]
    raw: Option<Vec<u8>>,
    #[prost(string, tag = "3")]
    content_encoding: String,
    #[prost(string, tag = "4")]
    content_type: String,
}

/// The envelope before its `raw`: the magic and `typeMeta`. Its strings
/// are written even when empty, as Go does for non-pointer fields (prost
/// leaves out proto3 defaults).
fn envelope_head(out: &mut Vec<u8>, api_version: &str, kind: &str) {
    out.extend_from_slice(MAGIC);
    let type_meta = 2 + varint_len(api_version.len()) + api_version.len() + varint_len(kind.len()) + kind.len();
    key(out, 1, LEN);
    encode_varint(type_meta as u64, out);
    len_delimited(out, 1, api_version.as_bytes());
    len_delimited(out, 2, kind.as_bytes());
}

/// The envelope after its `raw`: `contentEncoding` and `contentType`,
/// empty but on the wire.
fn envelope_tail(out: &mut Vec<u8>) {
    len_delimited(out, 3, b"");
    len_delimited(out, 4, b"");
}

fn encode_unknown(api_version: &str, kind: &str, raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(raw.len() + api_version.len() + kind.len() + 24);
    envelope_head(&mut out, api_version, kind);
    len_delimited(&mut out, 2, raw);
    envelope_tail(&mut out);
    out
}

/// The protobuf body of a JSON object (its `kind` and `apiVersion` go in
/// the envelope): `k8s\0` + `runtime.Unknown{typeMeta, raw}`.
pub fn encode_object(v: &Value) -> Result<Vec<u8>, String> {
    let kind = v.get("kind").and_then(Value::as_str).unwrap_or("");
    let api_version = v.get("apiVersion").and_then(Value::as_str).unwrap_or("");
    let msg =
        message_for(api_version, kind).ok_or_else(|| format!("no protobuf message for {api_version}, Kind={kind}"))?;
    // The envelope written around the message as it is encoded (no copy
    // of the message's bytes into it).
    let mut out = Vec::new();
    envelope_head(&mut out, api_version, kind);
    nested_message(&mut out, 2, msg, v)?;
    envelope_tail(&mut out);
    Ok(out)
}

/// The message bytes alone (no envelope) of a JSON object of the given
/// kind: what the envelope's `raw` holds.
pub fn encode_raw(api_version: &str, kind: &str, v: &Value) -> Result<Vec<u8>, String> {
    let msg =
        message_for(api_version, kind).ok_or_else(|| format!("no protobuf message for {api_version}, Kind={kind}"))?;
    let mut raw = Vec::new();
    encode_message(msg, v, &mut raw)?;
    Ok(raw)
}

/// `encode_raw` of a stored object's JSON bytes: read straight into
/// protobuf (`transcode`) when it can be, else through its `Value`.
pub fn encode_raw_stored(api_version: &str, kind: &str, json: &[u8]) -> Result<Vec<u8>, String> {
    transcode(api_version, kind, json).map_or_else(
        || {
            let v: Value = serde_json::from_slice(json).map_err(|e| e.to_string())?;
            encode_raw(api_version, kind, &v)
        },
        Ok,
    )
}

/// `encode_object` of an object's JSON bytes as the server writes them
/// (an answer's body), read straight into protobuf; None when the `Value`
/// way must do it.
pub fn encode_object_json(json: &[u8]) -> Option<Vec<u8>> {
    let (api_version, kind) = super::transcode::type_of(json).ok()?;
    let msg = message_for(&api_version, &kind)?;
    let mut out = Vec::with_capacity(json.len() + 32);
    envelope_head(&mut out, &api_version, &kind);
    super::transcode::encode_nested_json(&mut out, 2, msg, json).ok()?;
    envelope_tail(&mut out);
    Some(out)
}

/// The straight read alone (for tests): None when it leaves the object to
/// the `Value` encoder.
pub fn transcode(api_version: &str, kind: &str, json: &[u8]) -> Option<Vec<u8>> {
    super::transcode::encode_raw_json(api_version, kind, json).ok()
}

/// Decodes an enveloped protobuf object into JSON, with `kind` and
/// `apiVersion` from the envelope.
pub fn decode_object(body: &[u8]) -> Result<Value, String> {
    let rest = body.strip_prefix(MAGIC.as_slice()).ok_or_else(|| {
        "provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]".to_string()
    })?;
    let u = Unknown::decode(rest).map_err(|e| e.to_string())?;
    if !u.content_type.is_empty() && u.content_type != crate::api::media_type::PROTOBUF {
        return Err(format!("unsupported content type in the envelope: {:?}", u.content_type));
    }
    let tm = u.type_meta.unwrap_or_default();
    let msg = message_for(&tm.api_version, &tm.kind)
        .ok_or_else(|| format!("no kind {:?} is registered for version {:?}", tm.kind, tm.api_version))?;
    let mut v = decode_message(msg, u.raw.as_deref().unwrap_or_default(), 0)?;
    if let Value::Object(m) = &mut v {
        let mut with_type = Map::new();
        with_type.insert("kind".into(), Value::String(tm.kind));
        with_type.insert("apiVersion".into(), Value::String(tm.api_version));
        with_type.extend(std::mem::take(m));
        *m = with_type;
    }
    Ok(v)
}

/// One watch event as upstream frames it over protobuf: a 4-byte big-endian
/// length, then `metav1.WatchEvent{type, object: RawExtension{raw}}` (not
/// enveloped) whose raw is the enveloped object.
pub fn write_watch_frame(event_type: &str, object: &Value, out: &mut Vec<u8>) -> Result<(), String> {
    write_watch_frame_enveloped(event_type, &encode_object(object)?, out);
    Ok(())
}

/// Reads the frames of a protobuf watch stream back into (type, object).
pub fn read_watch_frames(mut data: &[u8]) -> Result<Vec<(String, Value)>, String> {
    let mut out = Vec::new();
    while !data.is_empty() {
        if data.len() < 4 {
            return Err("truncated frame length".into());
        }
        let n = u32::from_be_bytes([data[0], data[1], data[2], data[3]]) as usize;
        let frame = data.get(4..4 + n).ok_or("truncated frame")?;
        data = &data[4 + n..];
        let mut r = Reader { buf: frame };
        let (mut ty, mut obj) = (String::new(), Value::Null);
        while !r.buf.is_empty() {
            let k = r.varint()?;
            match (k >> 3, (k & 7) as u32) {
                (1, LEN) => ty = String::from_utf8_lossy(r.bytes()?).into_owned(),
                (2, LEN) => {
                    let mut ext = Reader { buf: r.bytes()? };
                    while !ext.buf.is_empty() {
                        let k = ext.varint()?;
                        match (k >> 3, (k & 7) as u32) {
                            (1, LEN) => obj = decode_object(ext.bytes()?)?,
                            (_, w) => ext.skip(w)?,
                        }
                    }
                }
                (_, w) => r.skip(w)?,
            }
        }
        out.push((ty, obj));
    }
    Ok(out)
}

/// Protobuf encodings of stored objects, made once and shared: by every
/// protobuf watcher of an event and by later protobuf lists (as upstream's
/// watch cache shares one serialization per object). An entry holds its
/// object, so the object's address cannot be reused while it keys the
/// entry; the cache empties itself past a byte budget.
#[derive(Default)]
pub struct EncodingCache {
    entries: HashMap<usize, (std::sync::Arc<crate::api::StoredObject>, std::sync::Arc<[u8]>)>,
    bytes: usize,
}

impl std::fmt::Debug for EncodingCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "EncodingCache({} objects, {} bytes)", self.entries.len(), self.bytes)
    }
}

impl EncodingCache {
    /// Encoded bytes kept before the cache starts over.
    pub const BUDGET: usize = 64 << 20;

    /// The message bytes (no envelope) of a stored object of `kind`.
    pub fn raw(
        &mut self,
        obj: &std::sync::Arc<crate::api::StoredObject>,
        api_version: &str,
        kind: &str,
    ) -> Result<std::sync::Arc<[u8]>, String> {
        let key = std::sync::Arc::as_ptr(obj) as usize;
        if let Some((_, raw)) = self.entries.get(&key) {
            return Ok(raw.clone());
        }
        let raw: std::sync::Arc<[u8]> = encode_raw_stored(api_version, kind, &obj.json)?.into();
        if self.bytes + raw.len() > Self::BUDGET {
            self.entries.clear();
            self.bytes = 0;
        }
        self.bytes += raw.len();
        self.entries.insert(key, (obj.clone(), raw.clone()));
        Ok(raw)
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// The envelope around already encoded message bytes.
pub fn envelope(api_version: &str, kind: &str, raw: &[u8]) -> Vec<u8> {
    encode_unknown(api_version, kind, raw)
}

/// `XList{metadata: ListMeta, items: [raw…]}` in its envelope, from list
/// metadata and the items' message bytes: a splice, no item re-encoded.
pub fn encode_list(
    api_version: &str,
    list_kind: &str,
    resource_version: &str,
    cont: Option<&str>,
    remaining: Option<u64>,
    items: &[std::sync::Arc<[u8]>],
) -> Vec<u8> {
    let size: usize = items.iter().map(|i| i.len() + 6).sum();
    let mut out = Vec::with_capacity(size + api_version.len() + list_kind.len() + resource_version.len() + 64);
    envelope_head(&mut out, api_version, list_kind);
    let written = nested(&mut out, 2, |raw| {
        nested(raw, 1, |meta| {
            len_delimited(meta, 2, resource_version.as_bytes());
            if let Some(c) = cont {
                len_delimited(meta, 3, c.as_bytes());
            }
            if let Some(n) = remaining {
                varint_field(meta, 4, n);
            }
            Ok(())
        })?;
        for item in items {
            len_delimited(raw, 2, item);
        }
        Ok(())
    });
    debug_assert!(written.is_ok());
    envelope_tail(&mut out);
    out
}

/// One watch frame around an already enveloped object.
pub fn write_watch_frame_enveloped(event_type: &str, enveloped: &[u8], out: &mut Vec<u8>) {
    let mut raw_ext = Vec::with_capacity(enveloped.len() + 6);
    len_delimited(&mut raw_ext, 1, enveloped);
    let mut ev = Vec::with_capacity(raw_ext.len() + event_type.len() + 8);
    len_delimited(&mut ev, 1, event_type.as_bytes());
    len_delimited(&mut ev, 2, &raw_ext);
    out.extend_from_slice(&(ev.len() as u32).to_be_bytes());
    out.extend_from_slice(&ev);
}
