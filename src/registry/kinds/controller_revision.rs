//! ControllerRevisions (apps/v1): the template history StatefulSets and
//! DaemonSets keep. Validation as upstream's (`data` required, `revision`
//! not negative, `data` fixed once created; the revision number may
//! change, as the controllers renumber a revision they roll back to), and
//! kubectl's columns (the controller as `statefulset.apps/web`).

use serde_json::{json, Value};

use super::super::strategy::Strategy;
use super::super::table::cells::*;
use super::super::table::{col, text, Column, Desc, AGE, NAME};
use crate::api::FieldError;
use crate::clock::SimTime;

pub struct ControllerRevision;

const DEF: &str = "io.k8s.api.apps.v1.ControllerRevision";

static COLUMNS: &[Column] = &[
    NAME,
    col("Controller", "string", text("Controller of the object")),
    col("Revision", "string", Desc::Field(DEF, "revision")),
    AGE,
];

/// The controlling owner as kubectl names a resource with its kind:
/// `statefulset.apps/web` (the kind and group lower-cased), `<none>`.
fn controller(o: &Value) -> String {
    let owner = arr(o, "/metadata/ownerReferences").iter().find(|r| r["controller"] == true);
    let Some(owner) = owner else { return "<none>".into() };
    let group = s(owner, "/apiVersion").rsplit_once('/').map_or("", |(g, _)| g);
    let kind = s(owner, "/kind");
    let qualified = if group.is_empty() { kind.to_string() } else { format!("{kind}.{group}") };
    match qualified.as_str() {
        "" => s(owner, "/name").to_string(),
        q => format!("{}/{}", q.to_lowercase(), s(owner, "/name")),
    }
}

impl Strategy for ControllerRevision {
    fn validate(&self, obj: &Value) -> Vec<FieldError> {
        let mut errs = Vec::new();
        if obj.get("data").is_none_or(Value::is_null) {
            errs.push(FieldError::required("data", "data is mandatory"));
        }
        let revision = i(obj, "/revision");
        if revision < 0 {
            errs.push(FieldError::invalid_value("revision", &json!(revision), "must be greater than or equal to 0"));
        }
        errs
    }

    fn validate_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        match new.get("data") == old.get("data") {
            true => Vec::new(),
            false => {
                let data = new.get("data").map_or_else(|| "null".to_string(), Value::to_string);
                vec![FieldError::invalid_raw("data", &data, "field is immutable")]
            }
        }
    }

    fn columns(&self) -> &[Column] {
        COLUMNS
    }

    fn cells(&self, o: &Value, now: SimTime) -> Vec<Value> {
        vec![name(o), controller(o).into(), json!(i(o, "/revision")), age(o, now)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_controller_column_names_the_owner_with_its_kind_and_group() {
        let owned = |api: &str, kind: &str, controller: bool| json!({"metadata": {"ownerReferences": [{"apiVersion": api, "kind": kind, "name": "web", "controller": controller}]}});
        assert_eq!(controller(&owned("apps/v1", "StatefulSet", true)), "statefulset.apps/web");
        assert_eq!(controller(&owned("v1", "Pod", true)), "pod/web");
        assert_eq!(controller(&owned("apps/v1", "StatefulSet", false)), "<none>");
        assert_eq!(controller(&json!({"metadata": {}})), "<none>");
    }
}
