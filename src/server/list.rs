//! A list as it goes on the wire: JSON assembled from the stored bytes
//! without re-encoding an item, or protobuf splicing each item's cached
//! encoding into the XList message.

use super::negotiation::{self, Convert, Encoding, Output};
use super::{Response, Server};
use crate::api::Status;
use crate::registry::store::ListResult;
use crate::registry::ResourceType;

impl Server {
    /// The response for a list page, in JSON or (when negotiated without a
    /// conversion) protobuf. A PartialObjectMetadataList is made here, from
    /// each stored object's metadata (the rest of the object is not read),
    /// and the conversion cleared from `output`.
    pub(crate) fn list_response(
        &self,
        rt: &ResourceType,
        list: &ListResult,
        output: &mut Output,
    ) -> Result<Response, Status> {
        if output.convert == Some(Convert::PartialObjectMetadataList) {
            if let Some(body) = encode_metadata_list(list, output.meta_api_version()) {
                output.convert = None;
                return Ok(Response::json(200, body));
            }
        }
        if output.encoding != Encoding::Protobuf || output.convert.is_some() {
            return Ok(Response::json(200, encode_list(rt, list)));
        }
        let items = {
            let mut cache = self.proto_cache.lock().unwrap_or_else(|e| e.into_inner());
            list.items
                .iter()
                .map(|o| cache.raw(o, rt.api_version(), rt.kind()))
                .collect::<Result<Vec<_>, String>>()
                .map_err(Status::internal_error)?
        };
        let body = crate::proto::encode_list(
            rt.api_version(),
            rt.list_kind(),
            &list.revision.to_string(),
            list.continue_token.as_deref(),
            list.remaining,
            &items,
        );
        Ok(Response { status: 200, headers: crate::server::typed_headers(negotiation::PROTOBUF), body })
    }
}

/// `{"kind":"XList","apiVersion":...,"metadata":{...},"items":[...]}`,
/// assembled from the stored bytes without re-encoding any item. The items
/// of a built-in kind's list carry no `kind` or `apiVersion`, as
/// kube-apiserver's (its encoder types only the list itself); each stored
/// object's leading type fields are skipped, not re-encoded. A custom
/// resource's items keep theirs (upstream lists them as unstructured
/// objects).
pub fn encode_list(rt: &ResourceType, list: &ListResult) -> Vec<u8> {
    let size: usize = list.items.iter().map(|o| o.json.len() + 1).sum();
    let mut out = Vec::with_capacity(size + 200);
    out.extend_from_slice(b"{\"kind\":\"");
    out.extend_from_slice(rt.list_kind().as_bytes());
    out.extend_from_slice(b"\",\"apiVersion\":\"");
    out.extend_from_slice(rt.api_version().as_bytes());
    out.extend_from_slice(b"\",");
    write_list_meta(&mut out, list);
    for (i, o) in list.items.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        if rt.unstructured() {
            out.extend_from_slice(&o.json);
            continue;
        }
        out.push(b'{');
        out.extend_from_slice(after_type_meta(&o.json));
    }
    out.extend_from_slice(b"]}");
    out
}

/// A PartialObjectMetadataList of the page: each item's metadata copied as
/// it is stored. Stored objects are canonical (`kind`, `apiVersion`, then
/// `metadata`), so only the metadata is read, never the rest. None when an
/// object is laid out otherwise (the conversion is then made from the
/// whole list).
fn encode_metadata_list(list: &ListResult, api_version: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(list.items.iter().map(|o| o.json.len() / 2 + 80).sum::<usize>() + 200);
    out.extend_from_slice(b"{\"kind\":\"PartialObjectMetadataList\",\"apiVersion\":\"");
    out.extend_from_slice(api_version.as_bytes());
    out.extend_from_slice(b"\",");
    write_list_meta(&mut out, list);
    for (i, o) in list.items.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        let meta = after_type_meta(&o.json).strip_prefix(b"\"metadata\":")?;
        let mut de = serde_json::Deserializer::from_slice(meta);
        let raw = <&serde_json::value::RawValue as serde::Deserialize>::deserialize(&mut de).ok()?;
        super::represent::write_metadata_only(&mut out, api_version, Some(raw));
    }
    out.extend_from_slice(b"]}");
    Some(out)
}

/// `"metadata":{"resourceVersion":…,"continue":…,"remainingItemCount":…},"items":[`
fn write_list_meta(out: &mut Vec<u8>, list: &ListResult) {
    out.extend_from_slice(b"\"metadata\":{\"resourceVersion\":\"");
    out.extend_from_slice(list.revision.to_string().as_bytes());
    out.push(b'"');
    if let Some(c) = &list.continue_token {
        out.extend_from_slice(b",\"continue\":\"");
        out.extend_from_slice(c.as_bytes());
        out.push(b'"');
    }
    if let Some(n) = list.remaining {
        out.extend_from_slice(b",\"remainingItemCount\":");
        out.extend_from_slice(n.to_string().as_bytes());
    }
    out.extend_from_slice(b"},\"items\":[");
}

/// The bytes of a stored object after its opening brace and its leading
/// `"kind":"…","apiVersion":"…",` (stored objects are canonical: those two
/// come first). An object laid out otherwise is returned whole, after its
/// brace.
fn after_type_meta(json: &[u8]) -> &[u8] {
    fn skip_field<'a>(rest: &'a [u8], key: &[u8]) -> Option<&'a [u8]> {
        let rest = rest.strip_prefix(b"\"")?.strip_prefix(key)?.strip_prefix(b"\":\"")?;
        let end = rest.iter().position(|&b| b == b'"' || b == b'\\')?;
        if rest[end] != b'"' {
            return None;
        }
        let rest = &rest[end + 1..];
        Some(rest.strip_prefix(b",").unwrap_or(rest))
    }
    let body = json.strip_prefix(b"{").unwrap_or(json);
    skip_field(body, b"kind").and_then(|r| skip_field(r, b"apiVersion")).unwrap_or(body)
}

#[cfg(test)]
mod tests {
    use super::after_type_meta;

    #[test]
    fn type_fields_are_skipped_only_where_they_lead() {
        let cases: &[(&str, &str)] = &[
            (r#"{"kind":"ConfigMap","apiVersion":"v1","metadata":{}}"#, r#""metadata":{}}"#),
            (r#"{"kind":"Namespace","apiVersion":"v1"}"#, "}"),
            (r#"{"metadata":{},"kind":"X"}"#, r#""metadata":{},"kind":"X"}"#),
            (r#"{"kind":"A\"B","apiVersion":"v1","x":1}"#, r#""kind":"A\"B","apiVersion":"v1","x":1}"#),
            (r#"{"kind":"ConfigMap","metadata":{}}"#, r#""kind":"ConfigMap","metadata":{}}"#),
        ];
        for (json, rest) in cases {
            assert_eq!(std::str::from_utf8(after_type_meta(json.as_bytes())).unwrap(), *rest, "{json}");
        }
    }
}
