//! The collection verbs: list (where it reads per spec 000's list table,
//! continue tokens, remainingItemCount) and deletecollection.

use std::sync::Arc;

use super::super::decode::Warnings;
use super::super::keys;
use super::super::options::{DeleteOptions, ListOptions};
use super::super::resource::ResourceType;
use super::super::resource_version::{self as rv, ResourceVersion};
use super::{delete, storage_status, Registry};
use crate::api::{meta, Revision, Status, StoredObject};
use crate::selector::{FieldSelector, LabelSelector};
use crate::storage::{continue_token, ListStart, Storage};

/// One page of a list, as stored objects (the server splices their bytes).
#[derive(Debug)]
pub struct ListResult {
    /// The snapshot the page was read at (the list's resourceVersion).
    pub revision: Revision,
    /// The token for the next page, when more may follow.
    pub continue_token: Option<String>,
    /// How many items follow this page, when it is known without a
    /// selector.
    pub remaining: Option<u64>,
    pub items: Vec<Arc<StoredObject>>,
}

/// The label and field selectors of a list or watch, with upstream's 400
/// for a field the kind does not let selectors name.
pub(crate) fn selectors(rt: &ResourceType, opts: &ListOptions) -> Result<(LabelSelector, FieldSelector), Status> {
    let label = LabelSelector::parse(&opts.label_selector).map_err(Status::bad_request)?;
    let mut field = FieldSelector::parse(&opts.field_selector).map_err(Status::bad_request)?;
    for t in &mut field.terms {
        // A resource served over another's storage may name a field
        // otherwise: the label becomes the stored objects' own.
        if let Some(stored) = rt.field_label(&t.field).map(std::borrow::Cow::into_owned) {
            t.field = stored;
        } else {
            // Kinds with their own field labels, and custom resources,
            // name the label; the rest use the default conversion's wording.
            let msg = if rt.has_own_selectable_fields() || rt.unstructured() {
                format!("field label not supported: {}", t.field)
            } else {
                format!("{:?} is not a known field selector: only \"metadata.name\", \"metadata.namespace\"", t.field)
            };
            return Err(Status::bad_request(msg));
        }
    }
    Ok((label, field))
}

impl<S: Storage> Registry<S> {
    /// LIST: one page at the revision spec 000's table gives.
    pub fn list(&self, rt: &ResourceType, namespace: Option<&str>, opts: &ListOptions) -> Result<ListResult, Status> {
        opts.validate()?;
        let (label, field) = selectors(rt, opts)?;
        let head = self.storage.revision();
        let limit = opts.page_size()?;
        let prefix = keys::prefix(rt, namespace);
        let (at, start) = match &opts.continue_token {
            Some(token) => {
                if !matches!(opts.resource_version, ResourceVersion::Unset | ResourceVersion::Any) {
                    return Err(Status::bad_request("specifying resource version is not allowed when using continue"));
                }
                let tok = continue_token::decode(token)
                    .map_err(|e| Status::bad_request(format!("invalid continue token: {e}")))?;
                let at = if tok.revision == Revision::ZERO { head } else { tok.revision };
                if at < self.storage.compacted() {
                    return Err(rv::continue_expired(continue_token::encode_inconsistent(&tok.start)));
                }
                rv::not_newer_than_head(at, head)?;
                (at, ListStart::At(tok.start))
            }
            None => {
                let at =
                    rv::list_at(&opts.resource_version, opts.resource_version_match.as_ref(), limit.is_some(), head)?;
                (at, ListStart::Beginning)
            }
        };
        let selective = !label.is_empty() || !field.is_empty();
        let filter = |o: &StoredObject| o.selected_by(&label, &field);
        let page = self
            .storage
            .list(&prefix, at, &start, limit, if selective { Some(&filter) } else { None })
            .map_err(|e| storage_status(rt, "", e.in_list()))?;
        Ok(ListResult {
            revision: page.revision,
            continue_token: page.continue_at.as_deref().map(|k| continue_token::encode(page.revision, k)),
            remaining: if selective { None } else { page.remaining },
            items: if rt.converts_on_read() {
                page.items.into_iter().map(|o| rt.served(o)).collect()
            } else {
                page.items
            },
        })
    }

    /// DELETECOLLECTION: lists as a list with the same options would (its
    /// selectors, resourceVersion, and `limit`: one page, with its continue
    /// token), then deletes each item as a DELETE would; answers with the
    /// list as it was read (an item another client deleted meanwhile
    /// included, as upstream).
    pub fn delete_collection(
        &mut self,
        rt: &ResourceType,
        namespace: Option<&str>,
        list: &ListOptions,
        opts: &DeleteOptions,
        warnings: &mut Warnings,
    ) -> Result<ListResult, Status> {
        opts.validate()?;
        delete::orphan_warning(rt, opts, warnings);
        let page = self.list(rt, namespace, list)?;
        for obj in &page.items {
            let v = obj.value();
            match self.delete_one(rt, meta::namespace(&v), meta::name(&v), opts) {
                Ok(_) => {}
                Err(s) if s.is_not_found() => {}
                Err(s) => return Err(s),
            }
        }
        Ok(page)
    }
}
