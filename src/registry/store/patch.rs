//! PATCH, of the four kinds: JSON patch, merge patch and strategic merge
//! patch apply to the stored object and the result is written as an update
//! would write it (decoded and validated the same way); server-side apply
//! merges a configuration with field ownership and conflicts, creating the
//! object when it is absent. The status subresource patches the status;
//! the scale subresource patches the Scale view.

use crate::sort::Order;
use serde_json::{json, Value};

use super::super::decode::{self, Warnings};
use super::super::options::{PatchType, Subresource, WriteOptions};
use super::super::resource::ResourceType;
use super::{set_namespace, Recorded, Registry, Written};
use crate::api::{media_type, meta, Status};
use crate::storage::Storage;

/// A JSON patch that cannot be applied (a failed `test`, a missing path):
/// upstream answers with a generic 422 that does not say which operation.
fn json_patch_failed() -> Status {
    let mut s =
        Status::failure(422, "Invalid", "the server rejected our request due to an error in our request".into());
    s.details = Some(Default::default());
    s
}

/// A patched object as the patch library writes it (keys sorted, compact),
/// to show in a 422.
fn patched_json(v: &Value) -> String {
    serde_json::to_string(&crate::schema::decode::sorted_keys(v.clone())).unwrap_or_default()
}

/// A value as Go's `fmt` prints a decoded JSON map with `%+v`:
/// `map[a:1 b:[x y]]`, keys sorted, `<nil>` for null.
fn go_map_string(v: &Value) -> String {
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.order();
            let parts: Vec<String> = keys.iter().map(|k| format!("{k}:{}", go_map_string(&m[*k]))).collect();
            format!("map[{}]", parts.join(" "))
        }
        Value::Array(a) => format!("[{}]", a.iter().map(go_map_string).collect::<Vec<_>>().join(" ")),
        Value::String(s) => s.clone(),
        Value::Null => "<nil>".into(),
        other => other.to_string(),
    }
}

fn media_type_of(p: PatchType) -> &'static str {
    match p {
        PatchType::Json => media_type::JSON_PATCH,
        PatchType::Merge => media_type::MERGE_PATCH,
        PatchType::Strategic => media_type::STRATEGIC_MERGE_PATCH,
        PatchType::Apply => media_type::APPLY_PATCH_YAML,
    }
}

impl<S: Storage> Registry<S> {
    #[allow(clippy::too_many_arguments)]
    pub fn patch(
        &mut self,
        rt: &ResourceType,
        namespace: &str,
        name: &str,
        patch_type: PatchType,
        body: &[u8],
        opts: &WriteOptions,
        warnings: &mut Warnings,
    ) -> Result<Written, Status> {
        if opts.subresource == Subresource::Scale {
            return self.patch_scale(rt, namespace, name, patch_type, body, opts, warnings);
        }
        if patch_type == PatchType::Apply {
            return self.apply(rt, namespace, name, body, opts, warnings);
        }
        // Read and parsed once: the patch applies to a copy, and the update
        // compares with the original.
        let current = self
            .read_current(rt, namespace, name)?
            .ok_or_else(|| Status::not_found(rt.group(), rt.resource(), name))?;
        let mut doc = current.value();
        let fv = opts.field_validation;
        // What the patch itself got wrong, and what a Strict 422 shows as
        // the invalid value: the patched object for JSON and merge patches
        // (as their library writes it), the patch as a Go map for
        // strategic ones.
        let (problems, go_map) = match patch_type {
            PatchType::Merge => {
                let (patch, problems) = decode::patch_document(body, fv)?;
                if !patch.is_object() {
                    return Err(Status::bad_request("error decoding patch: a merge patch must be a JSON object"));
                }
                json_patch::merge(&mut doc, &patch);
                (problems, None)
            }
            PatchType::Json => {
                let (patch, problems) = decode::json_patch(body, fv)?;
                // On a copy, thrown away when an operation fails: the
                // library's undoing `patch` is not needed, and it panics
                // when an operation it applied cannot be undone (found by
                // the `patches` fuzz target).
                json_patch::patch_unsafe(&mut doc, &patch).map_err(|_| json_patch_failed())?;
                (problems, None)
            }
            PatchType::Strategic => {
                let (patch, problems) = decode::patch_document(body, fv)?;
                let schemas = crate::schema::schemas();
                let def = schemas.name_of(rt.group(), rt.version(), rt.kind()).unwrap_or("");
                crate::patch::apply(schemas, def, &mut doc, &patch).map_err(|e| {
                    if e.bad_request {
                        Status::bad_request(e.message)
                    } else {
                        Status::internal_error(e.message)
                    }
                })?;
                (problems, Some(patch))
            }
            PatchType::Apply => (Vec::new(), None),
        };
        // The patched object is decoded as upstream's patch handler decodes
        // it (unknown fields found, type errors refused); it carries its
        // resourceVersion unless the patch itself set one.
        // (Written out only when needed: for an error.)
        let bad_value = |patched: &Value| match &go_map {
            Some(patch) => go_map_string(patch),
            None => patched_json(patched),
        };
        let obj = Value::Object(decode::patched_object(rt, doc, fv, problems, bad_value, warnings)?);
        warnings.extend(rt.strategy.warnings(&obj));
        let written = self.update_from(rt, namespace, name, obj, opts, Recorded::Update, None, Some(current))?;
        Ok(Written { created: false, ..written })
    }

    /// Server-side apply (`application/apply-patch+yaml`): the
    /// configuration merged into the live object (or creating it), with
    /// field ownership and conflicts.
    fn apply(
        &mut self,
        rt: &ResourceType,
        namespace: &str,
        name: &str,
        body: &[u8],
        opts: &WriteOptions,
        warnings: &mut Warnings,
    ) -> Result<Written, Status> {
        let (mut config, repeats) = decode::apply_configuration(rt, body)?;
        set_namespace(rt, &mut config, namespace)?;
        {
            let m = meta::metadata_mut(&mut config);
            match m.get("name").and_then(Value::as_str) {
                Some(n) if n != name => {
                    return Err(Status::bad_request(format!(
                        "the name of the object ({n}) does not match the name on the URL ({name})"
                    )))
                }
                _ => {
                    m.insert("name".into(), json!(name));
                }
            }
        }
        let live = match self.current(rt, namespace, name) {
            Ok((_, o)) => Some(o.value()),
            Err(s) if s.is_not_found() => None,
            Err(s) => return Err(s),
        };
        let now = self.now.rfc3339();
        let writer = crate::apply::Writer {
            schema: rt.schema(),
            api_version: rt.api_version().to_string(),
            manager: &opts.field_manager,
            subresource: opts.subresource.managed_fields_name(),
            has_status_subresource: rt.status_subresource,
            now: &now,
        };
        let result = crate::apply::apply(&writer, live.as_ref(), &config, opts.force)?;
        // Repeated keys are looked for only once the apply has succeeded.
        decode::apply_repeated_keys(opts.field_validation, repeats, warnings)?;
        warnings.extend(rt.strategy.warnings(&result));
        match live {
            None => {
                let body = self.create_value(rt, namespace, result, opts, Recorded::Applied)?;
                Ok(Written { body, created: true })
            }
            Some(_) => {
                let written = self.update_value(rt, namespace, name, result, opts, Recorded::Applied, None)?;
                Ok(Written { created: false, ..written })
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn patch_scale(
        &mut self,
        rt: &ResourceType,
        namespace: &str,
        name: &str,
        patch_type: PatchType,
        body: &[u8],
        opts: &WriteOptions,
        warnings: &mut Warnings,
    ) -> Result<Written, Status> {
        let (_, current) = self.current(rt, namespace, name)?;
        let current = current.value();
        let mut doc = super::scale::to_scale(rt, &current);
        let fv = opts.field_validation;
        let problems = match patch_type {
            PatchType::Merge | PatchType::Strategic => {
                let (patch, problems) = decode::patch_document(body, fv)?;
                json_patch::merge(&mut doc, &patch);
                problems
            }
            PatchType::Json => {
                let (patch, problems) = decode::json_patch(body, fv)?;
                json_patch::patch_unsafe(&mut doc, &patch).map_err(|_| json_patch_failed())?;
                problems
            }
            PatchType::Apply => {
                return Err(Status::unsupported_media_type(format!(
                    "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json (content type {:?})",
                    media_type_of(patch_type)
                )))
            }
        };
        decode::patch_problems(fv, problems, || patched_json(&doc), warnings)?;
        self.write_scale(rt, namespace, name, current, &doc, opts, warnings)
    }
}
