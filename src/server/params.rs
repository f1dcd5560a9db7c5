//! Options from the query (and a DELETE's body), parsed into the typed
//! options the registry's store takes, and the option checks upstream's
//! handlers make before any verb runs (`dryRun`, `fieldValidation`,
//! `fieldManager` and `force` for apply).

use crate::api::{FieldError, Status};
use crate::registry::decode::{self, RequestBody};
use crate::registry::options::{
    DeleteOptions, FieldValidation, ListOptions, PatchType, Preconditions, PropagationPolicy, ResourceVersionMatch,
    Subresource, Verb, WriteOptions,
};
use crate::registry::resource_version::ResourceVersion;
use serde_json::Value;

#[derive(Clone, Debug, Default)]
pub struct Query {
    pairs: Vec<(String, String)>,
}

impl Query {
    pub fn parse(raw: &str) -> Query {
        Query { pairs: form_urlencoded::parse(raw.as_bytes()).into_owned().collect() }
    }

    /// The first value of a parameter (present with an empty value: `Some("")`).
    pub fn get(&self, name: &str) -> Option<&str> {
        self.pairs.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }

    /// Every value of a repeated parameter (`dryRun=All&dryRun=All`).
    pub fn all(&self, name: &str) -> Vec<&str> {
        self.pairs.iter().filter(|(k, _)| k == name).map(|(_, v)| v.as_str()).collect()
    }

    pub fn bool(&self, name: &str) -> Result<bool, Status> {
        match self.get(name) {
            None | Some("") => Ok(false),
            Some(v) => parse_go_bool(v)
                .ok_or_else(|| Status::bad_request(format!("strconv.ParseBool: parsing \"{v}\": invalid syntax"))),
        }
    }

    pub fn opt_bool(&self, name: &str) -> Result<Option<bool>, Status> {
        match self.get(name) {
            None => Ok(None),
            Some(_) => self.bool(name).map(Some),
        }
    }

    pub fn int(&self, name: &str) -> Result<Option<i64>, Status> {
        match self.get(name) {
            None | Some("") => Ok(None),
            Some(v) => v
                .parse::<i64>()
                .map(Some)
                .map_err(|_| Status::bad_request(format!("strconv.ParseInt: parsing \"{v}\": invalid syntax"))),
        }
    }
}

fn parse_go_bool(v: &str) -> Option<bool> {
    match v {
        "1" | "t" | "T" | "TRUE" | "true" | "True" => Some(true),
        "0" | "f" | "F" | "FALSE" | "false" | "False" => Some(false),
        _ => None,
    }
}

/// `ListOptions` from a list or watch request's query.
pub fn list_options(q: &Query) -> Result<ListOptions, Status> {
    Ok(ListOptions {
        watch: q.bool("watch")?,
        resource_version: ResourceVersion::parse(q.get("resourceVersion")),
        resource_version_match: q.get("resourceVersionMatch").and_then(ResourceVersionMatch::parse),
        limit: q.int("limit")?,
        continue_token: q.get("continue").filter(|s| !s.is_empty()).map(str::to_string),
        label_selector: q.get("labelSelector").unwrap_or("").to_string(),
        field_selector: q.get("fieldSelector").unwrap_or("").to_string(),
        allow_watch_bookmarks: q.bool("allowWatchBookmarks")?,
        send_initial_events: q.opt_bool("sendInitialEvents")?,
        timeout_seconds: q.int("timeoutSeconds")?,
    })
}

/// The options kind a write verb's option errors name.
fn options_kind(verb: Verb) -> &'static str {
    match verb {
        Verb::Create => "CreateOptions",
        Verb::Update => "UpdateOptions",
        Verb::Patch => "PatchOptions",
        _ => "DeleteOptions",
    }
}

/// The `dryRun` values of a write: none, or `All` (upstream validates them
/// with the verb's options kind and answers 422).
fn dry_run(verb: Verb, values: &[&str]) -> Result<bool, Status> {
    let values: Vec<&str> = values.iter().copied().filter(|v| !v.is_empty()).collect();
    if values.iter().all(|v| *v == "All") {
        return Ok(!values.is_empty());
    }
    let err = FieldError::not_supported_list("dryRun", &values, &["All"]);
    Err(Status::invalid("meta.k8s.io", options_kind(verb), "", &[err]))
}

/// `fieldValidation`: absent or empty is the server's default (Warn).
fn field_validation(verb: Verb, q: &Query) -> Result<FieldValidation, Status> {
    match q.get("fieldValidation").unwrap_or("") {
        "" | "Warn" => Ok(FieldValidation::Warn),
        "Ignore" => Ok(FieldValidation::Ignore),
        "Strict" => Ok(FieldValidation::Strict),
        other => {
            let err = FieldError::not_supported("fieldValidation", other, &["", "Ignore", "Strict", "Warn"]);
            Err(Status::invalid("meta.k8s.io", options_kind(verb), "", &[err]))
        }
    }
}

/// What every write's query must get right before anything else is looked
/// at, whatever the path: `dryRun` and (but for DELETE) `fieldValidation`,
/// each named after the options of the verb the method would be.
pub fn check_write_query(method: &str, q: &Query) -> Result<(), Status> {
    let verb = match method {
        "POST" => Verb::Create,
        "PUT" => Verb::Update,
        "PATCH" => Verb::Patch,
        _ => Verb::Delete,
    };
    dry_run(verb, &q.all("dryRun"))?;
    if method != "DELETE" {
        field_validation(if verb == Verb::Delete { Verb::Patch } else { verb }, q)?;
    }
    Ok(())
}

/// The options of a create, update or patch (`patch`: the kind of patch,
/// whose own options — `fieldManager` for apply, `force` — are checked;
/// None for a patch of the scale subresource, which takes neither).
pub fn write_options(
    verb: Verb,
    q: &Query,
    user_agent: Option<&str>,
    subresource: Subresource,
    patch: Option<PatchType>,
) -> Result<WriteOptions, Status> {
    let dry_run = dry_run(verb, &q.all("dryRun"))?;
    let field_validation = field_validation(verb, q)?;
    let field_manager = match q.get("fieldManager").filter(|m| !m.is_empty()) {
        Some(m) => m.to_string(),
        None => crate::apply::manager_from_user_agent(user_agent),
    };
    let force = match patch {
        Some(PatchType::Apply) => {
            if q.get("fieldManager").is_none_or(str::is_empty) {
                let err = FieldError::required("fieldManager", "is required for apply patch");
                return Err(Status::invalid("meta.k8s.io", "PatchOptions", "", &[err]));
            }
            q.bool("force")?
        }
        Some(_) if q.get("force").is_some() => {
            let err = FieldError::forbidden("force", "may not be specified for non-apply patch");
            return Err(Status::invalid("meta.k8s.io", "PatchOptions", "", &[err]));
        }
        _ => false,
    };
    Ok(WriteOptions { dry_run, field_validation, field_manager, subresource, force })
}

/// `DeleteOptions` from a DELETE's body when it has one, else from its
/// query (upstream never merges the two).
pub fn delete_options(q: &Query, body: RequestBody<'_>) -> Result<DeleteOptions, Status> {
    let Some(v) = decode::delete_options(body)? else {
        return delete_options_from_query(q);
    };
    delete_options_of(&v)
}

/// DeleteOptions from their JSON form (a DELETE's body, an Eviction's
/// `deleteOptions`).
pub fn delete_options_of(v: &Value) -> Result<DeleteOptions, Status> {
    let mut o = DeleteOptions::default();
    if let Some(p) = v.get("propagationPolicy").and_then(Value::as_str) {
        o.propagation_policy = Some(PropagationPolicy::parse(p));
    }
    o.orphan_dependents = v.get("orphanDependents").and_then(Value::as_bool);
    o.grace_period_seconds = v.get("gracePeriodSeconds").and_then(Value::as_i64);
    if let Some(d) = v.get("dryRun").and_then(Value::as_array) {
        let values: Vec<&str> = d.iter().filter_map(Value::as_str).collect();
        o.dry_run = dry_run(Verb::Delete, &values)?;
    }
    if let Some(p) = v.get("preconditions") {
        o.preconditions = Preconditions {
            uid: p.get("uid").and_then(Value::as_str).map(str::to_string),
            resource_version: p.get("resourceVersion").and_then(Value::as_str).map(str::to_string),
        };
    }
    Ok(o)
}

/// The query's DeleteOptions, converted as upstream's generated
/// conversions do: an empty `propagationPolicy` is a value (refused later),
/// `orphanDependents` is false only for `0` or `false` (any case) and true
/// for anything else, `gracePeriodSeconds` must be an integer.
fn delete_options_from_query(q: &Query) -> Result<DeleteOptions, Status> {
    let grace_period_seconds = match q.get("gracePeriodSeconds") {
        None => None,
        Some(v) => Some(
            v.parse::<i64>()
                .map_err(|_| Status::bad_request(format!("strconv.ParseInt: parsing \"{v}\": invalid syntax")))?,
        ),
    };
    Ok(DeleteOptions {
        propagation_policy: q.get("propagationPolicy").map(PropagationPolicy::parse),
        orphan_dependents: q.get("orphanDependents").map(|v| !(v == "0" || v.eq_ignore_ascii_case("false"))),
        grace_period_seconds,
        dry_run: dry_run(Verb::Delete, &q.all("dryRun"))?,
        ..Default::default()
    })
}
