//! Namespaces: labelled with their name, Active on create with the
//! `kubernetes` finalizer in `spec.finalizers`, Terminating once deletion
//! begins (the namespace controller, a client, then removes the content
//! and, through `/finalize`, the finalizer), the phase as a selectable
//! field, kubectl's columns.

use serde_json::{json, Map, Value};

use super::super::strategy::{SelectableField, Strategy};
use super::super::table::cells::*;
use super::super::table::{col, text, Column, AGE, NAME};
use crate::clock::SimTime;

pub struct Namespace;

/// The label every namespace carries with its own name.
const NAME_LABEL: &str = "kubernetes.io/metadata.name";

static FIELDS: &[SelectableField] = &[SelectableField::new("status.phase", "")];

static COLUMNS: &[Column] = &[NAME, col("Status", "string", text("The status of the namespace")), AGE];

impl Strategy for Namespace {
    /// A named namespace is labelled with its name
    /// (`kubernetes.io/metadata.name`, upstream's `SetDefaults_Namespace`),
    /// on every write: the label cannot be taken off or changed.
    fn defaults(&self, o: &mut Map<String, Value>) {
        let name = match o.get("metadata").and_then(|m| m.get("name")).and_then(Value::as_str) {
            Some(n) if !n.is_empty() => n.to_string(),
            _ => return,
        };
        let Some(Value::Object(meta)) = o.get_mut("metadata") else { return };
        let labels = meta.entry("labels").or_insert_with(|| json!({}));
        if !labels.is_object() {
            *labels = json!({});
        }
        if let Value::Object(l) = labels {
            l.insert(NAME_LABEL.into(), json!(name));
        }
    }

    /// The namespace storage checks a delete's preconditions itself.
    fn own_delete_preconditions(&self) -> bool {
        true
    }

    fn initial_status(&self, _obj: &Map<String, Value>) -> Value {
        json!({"phase": "Active"})
    }

    /// `kubernetes` is added to the finalizers the client gave.
    fn prepare_for_create(&self, obj: &mut Map<String, Value>) {
        if let Value::Object(spec) = obj.entry("spec").or_insert_with(|| json!({})) {
            let list = spec.entry("finalizers").or_insert_with(|| json!([]));
            if let Value::Array(a) = list {
                if !a.iter().any(|f| f == "kubernetes") {
                    a.push(json!("kubernetes"));
                }
            } else {
                *list = json!(["kubernetes"]);
            }
        }
    }

    /// `spec.finalizers` change only through finalization (upstream's
    /// `/finalize`), never through an update.
    fn prepare_for_update(&self, new: &mut Value, old: &Value) {
        let kept = old.pointer("/spec/finalizers").cloned();
        match (new.get_mut("spec"), kept) {
            (Some(Value::Object(spec)), Some(f)) => {
                spec.insert("finalizers".into(), f);
            }
            (Some(Value::Object(spec)), None) => {
                spec.shift_remove("finalizers");
            }
            (_, Some(f)) => {
                if let Value::Object(o) = new {
                    o.insert("spec".into(), json!({"finalizers": f}));
                }
            }
            (_, None) => {}
        }
    }

    fn has_pending_finalizers(&self, obj: &Value) -> bool {
        obj.pointer("/spec/finalizers").and_then(Value::as_array).is_some_and(|a| !a.is_empty())
    }

    /// Terminating; a namespace's deletion sets no grace period.
    fn prepare_for_delete(&self, obj: &mut Value) {
        if let Some(Value::Object(st)) = obj.get_mut("status") {
            st.insert("phase".into(), json!("Terminating"));
        }
        if let Some(Value::Object(m)) = obj.get_mut("metadata") {
            m.shift_remove("deletionGracePeriodSeconds");
        }
    }

    fn selectable_fields(&self) -> &[SelectableField] {
        FIELDS
    }

    fn columns(&self) -> &[Column] {
        COLUMNS
    }

    fn cells(&self, o: &Value, now: SimTime) -> Vec<Value> {
        vec![name(o), s(o, "/status/phase").into(), age(o, now)]
    }
}
