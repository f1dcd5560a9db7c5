//! The collection verbs: list (with the resourceVersion table of spec 000,
//! continue tokens and remainingItemCount) and deletecollection.

use std::sync::Arc;

use super::params::{ListOptions, Query};
use super::{delete_options, Response, Server};
use crate::api::{Revision, Status};
use crate::registry::store::{list_prefix, parse_rv, storage_status};
use crate::registry::ResourceType;
use crate::selector::{FieldSelector, LabelSelector};
use crate::storage::{continue_token, ListStart, StoredObject};

impl Server {
    pub(crate) fn delete_collection(
        &mut self,
        rt: &'static ResourceType,
        namespace: Option<&str>,
        q: &Query,
        body: &[u8],
    ) -> Result<Response, Status> {
        let mut opts = ListOptions::from_query(q)?;
        opts.watch = false;
        let (label, field) = selectors(rt, &opts)?;
        let del = delete_options(q, body)?;
        let prefix = list_prefix(rt, namespace);
        let head = self.revision();
        let filter = |o: &StoredObject| o.selected_by(&label, &field);
        let page = self
            .registry
            .list(&prefix, head, &ListStart::Beginning, None, Some(&filter))
            .map_err(|e| storage_status(rt, "", e))?;
        let mut items: Vec<Arc<StoredObject>> = Vec::new();
        for obj in page.items {
            let v = obj.value();
            let name = crate::api::meta::name(&v).to_string();
            let ns = crate::api::meta::namespace(&v).to_string();
            match self.registry.delete(rt, &ns, &name, &del) {
                Ok(_) => items.push(obj),
                Err(s) if s.is_not_found() => {}
                Err(s) => return Err(s),
            }
        }
        Ok(Response::json(200, encode_list(rt, head, None, None, &items)))
    }

    /// A list in JSON: the stored bytes spliced.
    pub(crate) fn list(
        &mut self,
        rt: &'static ResourceType,
        namespace: Option<&str>,
        opts: ListOptions,
    ) -> Result<Response, Status> {
        let p = self.list_page(rt, namespace, opts)?;
        Ok(Response::json(200, encode_list(rt, p.revision, p.cont.as_deref(), p.remaining, &p.items)))
    }

    /// A list in protobuf: each item's cached encoding spliced into the
    /// XList message.
    pub(crate) fn list_protobuf(
        &mut self,
        rt: &'static ResourceType,
        namespace: Option<&str>,
        opts: ListOptions,
    ) -> Result<Response, Status> {
        let p = self.list_page(rt, namespace, opts)?;
        let api_version = rt.api_version();
        let items = {
            let mut cache = self.proto_cache.lock().unwrap_or_else(|e| e.into_inner());
            p.items
                .iter()
                .map(|o| cache.raw(o, &api_version, rt.kind))
                .collect::<Result<Vec<_>, String>>()
                .map_err(Status::internal_error)?
        };
        let body = crate::proto::encode_list(
            &api_version,
            &rt.list_kind(),
            &p.revision.to_string(),
            p.cont.as_deref(),
            p.remaining,
            &items,
        );
        Ok(Response { status: 200, headers: vec![("Content-Type".into(), super::negotiation::PROTOBUF.into())], body })
    }

    /// Resolves where a list reads, per spec 000's list table.
    fn list_page(
        &mut self,
        rt: &'static ResourceType,
        namespace: Option<&str>,
        opts: ListOptions,
    ) -> Result<ListPage, Status> {
        opts.validate()?;
        let (label, field) = selectors(rt, &opts)?;
        let head = self.revision();
        let rv = opts.resource_version.as_deref().unwrap_or("");
        let limit = match opts.limit {
            Some(l) if l < 0 => return Err(Status::bad_request("limit: Invalid value: must be non-negative")),
            Some(0) | None => None,
            Some(l) => Some(l as usize),
        };
        let not_older_than = |want: Revision| -> Result<Revision, Status> {
            if want > head {
                Err(Status::too_large_resource_version(want.0, head.0))
            } else {
                Ok(head)
            }
        };
        let prefix = list_prefix(rt, namespace);
        let (at, start) = if let Some(token) = &opts.continue_token {
            if !rv.is_empty() && rv != "0" {
                return Err(Status::bad_request("specifying resource version is not allowed when using continue"));
            }
            let tok = continue_token::decode(token)
                .map_err(|e| Status::bad_request(format!("invalid continue token: {e}")))?;
            let at = if tok.revision == Revision::ZERO { head } else { tok.revision };
            if at < self.compacted() {
                let mut s = Status::expired("The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.");
                s.metadata.continue_token = continue_token::encode_inconsistent(&tok.start);
                return Err(s);
            }
            if at > head {
                return Err(Status::too_large_resource_version(at.0, head.0));
            }
            (at, ListStart::At(tok.start))
        } else {
            let at = match (opts.resource_version_match.as_deref(), rv) {
                (Some("Exact"), rv) => parse_rv(rv)?,
                (Some(_), "0") => head,
                (Some(_), rv) => not_older_than(parse_rv(rv)?)?,
                (None, "") | (None, "0") => head,
                (None, rv) if limit.is_some() => parse_rv(rv)?,
                (None, rv) => not_older_than(parse_rv(rv)?)?,
            };
            (at, ListStart::Beginning)
        };
        let selective = !label.is_empty() || !field.is_empty();
        let filter = |o: &StoredObject| o.selected_by(&label, &field);
        let page = self
            .registry
            .list(&prefix, at, &start, limit, if selective { Some(&filter) } else { None })
            .map_err(|e| storage_status(rt, "", e))?;
        let cont = page.continue_at.as_deref().map(|k| continue_token::encode(page.revision, k));
        let remaining = if selective { None } else { page.remaining };
        Ok(ListPage { revision: page.revision, cont, remaining, items: page.items })
    }
}

/// One page of a list, before it is encoded.
struct ListPage {
    revision: Revision,
    cont: Option<String>,
    remaining: Option<u64>,
    items: Vec<Arc<StoredObject>>,
}

pub(crate) fn selectors(rt: &ResourceType, opts: &ListOptions) -> Result<(LabelSelector, FieldSelector), Status> {
    let label = LabelSelector::parse(&opts.label_selector).map_err(Status::bad_request)?;
    let field = FieldSelector::parse(&opts.field_selector).map_err(Status::bad_request)?;
    for t in &field.terms {
        if !rt.supports_field(&t.field) {
            // Kinds with their own field labels name the label; the rest
            // use the default conversion's wording.
            let msg = if rt.field_selectors.is_empty() {
                format!("{:?} is not a known field selector: only \"metadata.name\", \"metadata.namespace\"", t.field)
            } else {
                format!("field label not supported: {}", t.field)
            };
            return Err(Status::bad_request(msg));
        }
    }
    Ok((label, field))
}

/// `{"kind":"XList","apiVersion":...,"metadata":{...},"items":[...]}`,
/// assembled from the stored bytes without re-encoding any item.
pub fn encode_list(
    rt: &ResourceType,
    rev: Revision,
    cont: Option<&str>,
    remaining: Option<u64>,
    items: &[Arc<StoredObject>],
) -> Vec<u8> {
    let size: usize = items.iter().map(|o| o.json.len() + 1).sum();
    let mut out = Vec::with_capacity(size + 200);
    out.extend_from_slice(b"{\"kind\":\"");
    out.extend_from_slice(rt.list_kind().as_bytes());
    out.extend_from_slice(b"\",\"apiVersion\":\"");
    out.extend_from_slice(rt.api_version().as_bytes());
    out.extend_from_slice(b"\",\"metadata\":{\"resourceVersion\":\"");
    out.extend_from_slice(rev.to_string().as_bytes());
    out.push(b'"');
    if let Some(c) = cont {
        out.extend_from_slice(b",\"continue\":\"");
        out.extend_from_slice(c.as_bytes());
        out.push(b'"');
    }
    if let Some(n) = remaining {
        out.extend_from_slice(b",\"remainingItemCount\":");
        out.extend_from_slice(n.to_string().as_bytes());
    }
    out.extend_from_slice(b"},\"items\":[");
    for (i, o) in items.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(&o.json);
    }
    out.extend_from_slice(b"]}");
    out
}
