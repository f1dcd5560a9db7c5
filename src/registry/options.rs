//! The typed options every verb of the store takes: which verb, which
//! subresource, which kind of patch, and the options of get, list, watch,
//! writes and deletes (upstream's `metav1.ListOptions`, `CreateOptions`,
//! `UpdateOptions`, `PatchOptions`, `DeleteOptions`). The server parses them
//! from the query and body; the store never sees a query string.

use super::resource_version::ResourceVersion;
use crate::api::{media_type, FieldError, Status};

/// The verbs of the API, in the order discovery lists them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Verb {
    Create,
    Delete,
    DeleteCollection,
    Get,
    List,
    Patch,
    Update,
    Watch,
}

impl Verb {
    /// Every verb a built-in resource serves, sorted as discovery lists them.
    pub const STANDARD: &'static [Verb] = &[
        Verb::Create,
        Verb::Delete,
        Verb::DeleteCollection,
        Verb::Get,
        Verb::List,
        Verb::Patch,
        Verb::Update,
        Verb::Watch,
    ];
    /// The verbs of a status or scale subresource.
    pub const SUBRESOURCE: &'static [Verb] = &[Verb::Get, Verb::Patch, Verb::Update];

    pub fn as_str(self) -> &'static str {
        match self {
            Verb::Create => "create",
            Verb::Delete => "delete",
            Verb::DeleteCollection => "deletecollection",
            Verb::Get => "get",
            Verb::List => "list",
            Verb::Patch => "patch",
            Verb::Update => "update",
            Verb::Watch => "watch",
        }
    }

    pub fn is_write(self) -> bool {
        !matches!(self, Verb::Get | Verb::List | Verb::Watch)
    }
}

/// The subresource a request addresses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Subresource {
    /// The resource itself.
    #[default]
    None,
    /// `/status`: writes change only the status.
    Status,
    /// `/scale`: an `autoscaling/v1` Scale over `spec.replicas`.
    Scale,
    /// `/finalize` (namespaces): a PUT takes the metadata and
    /// `spec.finalizers`, keeps the status.
    Finalize,
    /// `/binding` (pods): a POST of a Binding sets `spec.nodeName`.
    Binding,
    /// `/eviction` (pods): a POST of an Eviction deletes the pod if its
    /// disruption budget allows.
    Eviction,
    /// `/ephemeralcontainers` (pods): writes change only
    /// `spec.ephemeralContainers`, and may only add to them.
    EphemeralContainers,
    /// `/resize` (pods): writes change only the containers' `resources`
    /// and `resizePolicy` (in-place pod resize).
    Resize,
}

impl Subresource {
    /// What a managedFields entry written through it names as its
    /// `subresource` (empty for the resource itself, and for those that
    /// write no fields of their own).
    pub fn managed_fields_name(self) -> &'static str {
        match self {
            Subresource::Status => "status",
            Subresource::Finalize => "finalize",
            Subresource::EphemeralContainers => "ephemeralcontainers",
            Subresource::Resize => "resize",
            Subresource::None | Subresource::Scale | Subresource::Binding | Subresource::Eviction => "",
        }
    }
}

/// The four kinds of PATCH, by the body's media type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PatchType {
    /// RFC 6902 JSON patch.
    Json,
    /// RFC 7386 JSON merge patch.
    Merge,
    /// Strategic merge patch (merge keys and strategies from the schema).
    Strategic,
    /// Server-side apply.
    Apply,
}

impl PatchType {
    pub fn from_media_type(media_type: &str) -> Option<PatchType> {
        match media_type {
            media_type::JSON_PATCH => Some(PatchType::Json),
            media_type::MERGE_PATCH => Some(PatchType::Merge),
            media_type::STRATEGIC_MERGE_PATCH => Some(PatchType::Strategic),
            media_type::APPLY_PATCH_YAML => Some(PatchType::Apply),
            _ => None,
        }
    }
}

/// `fieldValidation`: what to do with unknown and duplicate fields.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FieldValidation {
    Ignore,
    /// The server's default: a warning per problem.
    #[default]
    Warn,
    /// A 400 listing every problem.
    Strict,
}

/// The options every write takes (create, update, patch; the status and
/// scale subresources by `subresource`).
#[derive(Clone, Debug, Default)]
pub struct WriteOptions {
    /// `dryRun=All`: every check, no write.
    pub dry_run: bool,
    pub field_validation: FieldValidation,
    /// Who is writing (`fieldManager`, or from the User-Agent).
    pub field_manager: String,
    pub subresource: Subresource,
    /// Apply only: take the fields other managers own.
    pub force: bool,
}

/// `resourceVersionMatch`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ResourceVersionMatch {
    Exact,
    NotOlderThan,
    /// A value upstream refuses (kept to be named in the 422).
    Unknown(String),
}

impl ResourceVersionMatch {
    pub fn parse(s: &str) -> Option<ResourceVersionMatch> {
        match s {
            "" => None,
            "Exact" => Some(ResourceVersionMatch::Exact),
            "NotOlderThan" => Some(ResourceVersionMatch::NotOlderThan),
            other => Some(ResourceVersionMatch::Unknown(other.to_string())),
        }
    }

    pub fn as_str(&self) -> &str {
        match self {
            ResourceVersionMatch::Exact => "Exact",
            ResourceVersionMatch::NotOlderThan => "NotOlderThan",
            ResourceVersionMatch::Unknown(s) => s,
        }
    }
}

/// The options of a get.
#[derive(Clone, Debug, Default)]
pub struct GetOptions {
    pub resource_version: ResourceVersion,
    pub subresource: Subresource,
}

/// `ListOptions` as a list or watch request carries them.
#[derive(Clone, Debug, Default)]
pub struct ListOptions {
    pub watch: bool,
    pub resource_version: ResourceVersion,
    pub resource_version_match: Option<ResourceVersionMatch>,
    /// `limit`, as sent (validated by the list).
    pub limit: Option<i64>,
    pub continue_token: Option<String>,
    pub label_selector: String,
    pub field_selector: String,
    pub allow_watch_bookmarks: bool,
    pub send_initial_events: Option<bool>,
    pub timeout_seconds: Option<i64>,
}

impl ListOptions {
    /// Upstream's `ValidateListOptions`: the "Invalid" cells of spec 000's
    /// tables, as 422 on `ListOptions.meta.k8s.io`.
    pub fn validate(&self) -> Result<(), Status> {
        let mut errs = Vec::new();
        let m = self.resource_version_match.as_ref();
        if self.watch {
            if self.send_initial_events.is_some() && m != Some(&ResourceVersionMatch::NotOlderThan) {
                errs.push(FieldError::forbidden(
                    "resourceVersionMatch",
                    "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan",
                ));
            }
            if let Some(m) = m {
                if self.send_initial_events.is_none() {
                    errs.push(FieldError::forbidden(
                        "resourceVersionMatch",
                        "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided",
                    ));
                }
                if *m != ResourceVersionMatch::NotOlderThan {
                    errs.push(FieldError::not_supported("resourceVersionMatch", m.as_str(), &["NotOlderThan"]));
                }
                if self.continue_token.is_some() {
                    errs.push(FieldError::forbidden(
                        "resourceVersionMatch",
                        "resourceVersionMatch is forbidden when continue is provided",
                    ));
                }
            }
        } else {
            if let Some(m) = m {
                if self.resource_version.is_unset() {
                    errs.push(FieldError::forbidden(
                        "resourceVersionMatch",
                        "resourceVersionMatch is forbidden unless resourceVersion is provided",
                    ));
                }
                if self.continue_token.is_some() {
                    errs.push(FieldError::forbidden(
                        "resourceVersionMatch",
                        "resourceVersionMatch is forbidden when continue is provided",
                    ));
                }
                if let ResourceVersionMatch::Unknown(v) = m {
                    errs.push(FieldError::not_supported("resourceVersionMatch", v, &["Exact", "NotOlderThan", ""]));
                }
                if *m == ResourceVersionMatch::Exact && self.resource_version == ResourceVersion::Any {
                    errs.push(FieldError::forbidden(
                        "resourceVersionMatch",
                        "resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\"",
                    ));
                }
            }
            if self.send_initial_events.is_some() {
                errs.push(FieldError::forbidden("sendInitialEvents", "sendInitialEvents is forbidden for list"));
            }
        }
        if errs.is_empty() {
            Ok(())
        } else {
            Err(Status::invalid("meta.k8s.io", "ListOptions", "", &errs))
        }
    }

    /// The page size: none for an absent or zero `limit`. A negative one is
    /// refused; one larger than this platform's `usize` (wasm32 is 32-bit)
    /// is clamped, never truncated.
    pub fn page_size(&self) -> Result<Option<usize>, Status> {
        match self.limit {
            Some(l) if l < 0 => Err(Status::bad_request("limit: Invalid value: must be non-negative")),
            Some(0) | None => Ok(None),
            Some(l) => Ok(Some(usize::try_from(l).unwrap_or(usize::MAX))),
        }
    }
}

/// `propagationPolicy`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PropagationPolicy {
    Foreground,
    Background,
    Orphan,
    /// A value upstream refuses (kept to be named in the 422).
    Unknown(String),
}

impl PropagationPolicy {
    /// A policy as given (an empty one is a value upstream refuses).
    pub fn parse(s: &str) -> PropagationPolicy {
        match s {
            "Foreground" => PropagationPolicy::Foreground,
            "Background" => PropagationPolicy::Background,
            "Orphan" => PropagationPolicy::Orphan,
            other => PropagationPolicy::Unknown(other.to_string()),
        }
    }

    pub fn as_str(&self) -> &str {
        match self {
            PropagationPolicy::Foreground => "Foreground",
            PropagationPolicy::Background => "Background",
            PropagationPolicy::Orphan => "Orphan",
            PropagationPolicy::Unknown(s) => s,
        }
    }
}

/// `DeleteOptions.preconditions`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Preconditions {
    pub uid: Option<String>,
    pub resource_version: Option<String>,
}

/// The options of a DELETE, from its query and body.
#[derive(Clone, Debug, Default)]
pub struct DeleteOptions {
    pub propagation_policy: Option<PropagationPolicy>,
    pub orphan_dependents: Option<bool>,
    pub preconditions: Preconditions,
    pub grace_period_seconds: Option<i64>,
    /// `dryRun=All`: every check, no write.
    pub dry_run: bool,
}

impl DeleteOptions {
    /// Upstream's `ValidateDeleteOptions`: 422 on `DeleteOptions.meta.k8s.io`,
    /// the two policies set together first, then an unknown policy. A
    /// negative `gracePeriodSeconds` is not an error (a delete reads it as 1).
    pub fn validate(&self) -> Result<(), Status> {
        let mut errs = Vec::new();
        if let Some(p) = &self.propagation_policy {
            if self.orphan_dependents.is_some() {
                errs.push(FieldError::invalid(
                    "propagationPolicy",
                    p.as_str(),
                    "orphanDependents and deletionPropagation cannot be both set",
                ));
            }
            if let PropagationPolicy::Unknown(v) = p {
                errs.push(FieldError::not_supported(
                    "propagationPolicy",
                    v,
                    &["Foreground", "Background", "Orphan", "nil"],
                ));
            }
        }
        if errs.is_empty() {
            Ok(())
        } else {
            Err(Status::invalid("meta.k8s.io", "DeleteOptions", "", &errs))
        }
    }

    /// Whether the deletion leaves the object's dependents behind (upstream's
    /// `shouldOrphanDependents`): the deprecated `orphanDependents`, else the
    /// policy, else a garbage-collection finalizer the object already has,
    /// else the kind's default.
    pub fn orphans(&self, finalizers: &[String], default: GcPolicy) -> bool {
        if default == GcPolicy::Unsupported {
            return false;
        }
        if let Some(o) = self.orphan_dependents {
            return o;
        }
        match self.propagation_policy {
            Some(PropagationPolicy::Orphan) => return true,
            Some(PropagationPolicy::Background | PropagationPolicy::Foreground) => return false,
            _ => {}
        }
        for f in finalizers {
            match f.as_str() {
                FINALIZER_ORPHAN => return true,
                FINALIZER_FOREGROUND => return false,
                _ => {}
            }
        }
        default == GcPolicy::Orphan
    }

    /// Whether the object waits for its dependents to go first (upstream's
    /// `shouldDeleteDependents`); no kind defaults to it.
    pub fn foreground(&self, finalizers: &[String], default: GcPolicy) -> bool {
        if default == GcPolicy::Unsupported || self.orphan_dependents.is_some() {
            return false;
        }
        match self.propagation_policy {
            Some(PropagationPolicy::Foreground) => return true,
            Some(PropagationPolicy::Background | PropagationPolicy::Orphan) => return false,
            _ => {}
        }
        for f in finalizers {
            match f.as_str() {
                FINALIZER_FOREGROUND => return true,
                FINALIZER_ORPHAN => return false,
                _ => {}
            }
        }
        false
    }

    /// Whether neither policy was given (a kind that orphans by default
    /// warns then).
    pub fn no_policy(&self) -> bool {
        self.propagation_policy.is_none() && self.orphan_dependents.is_none()
    }
}

/// The finalizer that keeps an object until its dependents are orphaned.
pub const FINALIZER_ORPHAN: &str = "orphan";
/// The finalizer that keeps an object until its dependents are deleted.
pub const FINALIZER_FOREGROUND: &str = "foregroundDeletion";

/// What a kind's deletion does to its dependents when the client does not
/// say (upstream's `rest.GarbageCollectionPolicy`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum GcPolicy {
    /// Background deletion of dependents: most kinds.
    #[default]
    DeleteDependents,
    /// Dependents are orphaned (batch/v1 Jobs, v1 ReplicationControllers).
    Orphan,
    /// Propagation policies mean nothing; garbage-collection finalizers
    /// are removed on delete (Events).
    Unsupported,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_sizes_are_clamped_never_truncated() {
        let size = |limit| ListOptions { limit, ..Default::default() }.page_size();
        assert_eq!(size(None).unwrap(), None);
        assert_eq!(size(Some(0)).unwrap(), None, "0 means no limit");
        assert_eq!(size(Some(2)).unwrap(), Some(2));
        assert_eq!(size(Some(-1)).unwrap_err().code, 400);
        // Wider than any usize on 32-bit targets: clamped to the largest.
        let wide = size(Some(i64::MAX)).unwrap().unwrap();
        assert_eq!(wide, usize::try_from(i64::MAX).unwrap_or(usize::MAX));
    }
}
