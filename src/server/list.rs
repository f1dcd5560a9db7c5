//! A list as it goes on the wire: JSON assembled from the stored bytes
//! without re-encoding an item, or protobuf splicing each item's cached
//! encoding into the XList message.

use super::negotiation::{self, Encoding, Output};
use super::{Response, Server};
use crate::api::Status;
use crate::registry::store::ListResult;
use crate::registry::ResourceType;

impl Server {
    /// The response for a list page, in JSON or (when negotiated without a
    /// conversion) protobuf.
    pub(crate) fn list_response(
        &self,
        rt: &ResourceType,
        list: &ListResult,
        output: Output,
    ) -> Result<Response, Status> {
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
        Ok(Response { status: 200, headers: vec![("Content-Type".into(), negotiation::PROTOBUF.into())], body })
    }
}

/// `{"kind":"XList","apiVersion":...,"metadata":{...},"items":[...]}`,
/// assembled from the stored bytes without re-encoding any item.
pub fn encode_list(rt: &ResourceType, list: &ListResult) -> Vec<u8> {
    let size: usize = list.items.iter().map(|o| o.json.len() + 1).sum();
    let mut out = Vec::with_capacity(size + 200);
    out.extend_from_slice(b"{\"kind\":\"");
    out.extend_from_slice(rt.list_kind().as_bytes());
    out.extend_from_slice(b"\",\"apiVersion\":\"");
    out.extend_from_slice(rt.api_version().as_bytes());
    out.extend_from_slice(b"\",\"metadata\":{\"resourceVersion\":\"");
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
    for (i, o) in list.items.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(&o.json);
    }
    out.extend_from_slice(b"]}");
    out
}
