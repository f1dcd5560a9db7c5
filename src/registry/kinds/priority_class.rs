//! PriorityClasses (scheduling.k8s.io/v1): the default preemption policy,
//! validation as upstream's (user values at most 10⁹, the `system-` prefix
//! kept for the two system classes, value and policy fixed once created),
//! generation 1 for ever, the system classes refusing deletion, and
//! kubectl's columns. What a class does to pods is the Priority admission
//! (`registry/priority.rs`).

use serde_json::{json, Map, Value};

use super::super::strategy::{default, Strategy};
use super::super::table::cells::*;
use super::super::table::{col, Column, Desc, AGE, NAME};
use crate::api::meta;
use crate::api::FieldError;
use crate::clock::SimTime;

pub struct PriorityClass;

const DEF: &str = "io.k8s.api.scheduling.v1.PriorityClass";

/// The largest value a class not of the system's may have.
pub const HIGHEST_USER_DEFINABLE: i64 = 1_000_000_000;

/// The classes every cluster has, created at start: name, value,
/// description.
pub const SYSTEM_CLASSES: &[(&str, i64, &str)] = &[
    (
        "system-node-critical",
        2 * HIGHEST_USER_DEFINABLE + 1000,
        "Used for system critical pods that must not be moved from their current node.",
    ),
    (
        "system-cluster-critical",
        2 * HIGHEST_USER_DEFINABLE,
        "Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.",
    ),
];

/// The preemption policies a class or a pod may name.
pub const PREEMPTION_POLICIES: &[&str] = &["PreemptLowerPriority", "Never"];

static COLUMNS: &[Column] = &[
    NAME,
    col("Value", "integer", Desc::Field(DEF, "value")),
    col("Global-Default", "boolean", Desc::Field(DEF, "globalDefault")),
    AGE,
    col("PreemptionPolicy", "string", Desc::Field(DEF, "preemptionPolicy")),
];

/// Why a `system-` name is refused, or `None` for one of the two system
/// classes as they are.
fn unknown_system_class(name: &str, value: i64, global_default: bool) -> Option<String> {
    let Some(&(_, want, _)) = SYSTEM_CLASSES.iter().find(|(n, _, _)| *n == name) else {
        return Some(format!("{name} is not a known system priority class"));
    };
    if value != want {
        return Some(format!("value of {name} PriorityClass must be {want}"));
    }
    if global_default {
        return Some(format!("globalDefault of {name} PriorityClass must be false"));
    }
    None
}

/// A preemption policy at `path`, when one is set (`""` is a missing one).
pub(in crate::registry) fn validate_preemption_policy(v: Option<&Value>, path: &str, errs: &mut Vec<FieldError>) {
    match v {
        None | Some(Value::Null) => {}
        Some(Value::String(s)) if s.is_empty() => errs.push(FieldError::required(path, "")),
        Some(Value::String(s)) if PREEMPTION_POLICIES.contains(&s.as_str()) => {}
        Some(Value::String(s)) => errs.push(FieldError::not_supported(path, s, PREEMPTION_POLICIES)),
        Some(other) => {
            errs.push(FieldError::not_supported_value(path, &crate::api::to_json_string(other), PREEMPTION_POLICIES))
        }
    }
}

fn value(o: &Value) -> i64 {
    o.get("value").and_then(Value::as_i64).unwrap_or(0)
}

fn global_default(o: &Value) -> bool {
    o.get("globalDefault").and_then(Value::as_bool).unwrap_or(false)
}

impl Strategy for PriorityClass {
    fn defaults(&self, o: &mut Map<String, Value>) {
        default(o, "preemptionPolicy", json!("PreemptLowerPriority"));
    }

    /// Generation 1 on create; an update keeps it (upstream's strategy
    /// never bumps it).
    fn prepare_for_create(&self, o: &mut Map<String, Value>) {
        if let Some(Value::Object(m)) = o.get_mut("metadata") {
            meta::insert_metadata_field(m, "generation", json!(1));
        }
    }

    fn validate_create(&self, obj: &Value) -> Vec<FieldError> {
        let mut errs = Vec::new();
        let name = meta::name(obj);
        if name.starts_with("system-") {
            if let Some(why) = unknown_system_class(name, value(obj), global_default(obj)) {
                errs.push(FieldError::forbidden(
                    "metadata.name",
                    &format!(
                        "priority class names with 'system-' prefix are reserved for system use only. error: {why}"
                    ),
                ));
            }
        } else if value(obj) > HIGHEST_USER_DEFINABLE {
            errs.push(FieldError::forbidden(
                "value",
                &format!("maximum allowed value of a user defined priority is {HIGHEST_USER_DEFINABLE}"),
            ));
        }
        validate_preemption_policy(obj.get("preemptionPolicy"), "preemptionPolicy", &mut errs);
        errs
    }

    fn validate_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        let mut errs = Vec::new();
        if value(new) != value(old) {
            errs.push(FieldError::forbidden("value", "may not be changed in an update."));
        }
        let policy = |o: &Value| o.get("preemptionPolicy").filter(|v| !v.is_null()).cloned();
        if policy(new) != policy(old) {
            errs.push(match policy(new) {
                Some(Value::String(s)) => FieldError::invalid("preemptionPolicy", &s, "field is immutable"),
                _ => FieldError::invalid_raw("preemptionPolicy", "null", "field is immutable"),
            });
        }
        errs
    }

    fn delete_forbidden(&self, name: &str) -> Option<&'static str> {
        SYSTEM_CLASSES
            .iter()
            .any(|(n, _, _)| *n == name)
            .then_some("this is a system priority class and cannot be deleted")
    }

    fn columns(&self) -> &[Column] {
        COLUMNS
    }

    fn cells(&self, o: &Value, now: SimTime) -> Vec<Value> {
        vec![name(o), json!(value(o)), json!(global_default(o)), age(o, now), s(o, "/preemptionPolicy").into()]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_two_system_classes_as_they_are_may_use_the_prefix() {
        assert_eq!(unknown_system_class("system-node-critical", 2_000_001_000, false), None);
        assert_eq!(unknown_system_class("system-cluster-critical", 2_000_000_000, false), None);
        assert_eq!(
            unknown_system_class("system-cluster-critical", 5, false).as_deref(),
            Some("value of system-cluster-critical PriorityClass must be 2000000000")
        );
        assert_eq!(
            unknown_system_class("system-node-critical", 2_000_001_000, true).as_deref(),
            Some("globalDefault of system-node-critical PriorityClass must be false")
        );
        assert_eq!(
            unknown_system_class("system-foo", 1, false).as_deref(),
            Some("system-foo is not a known system priority class")
        );
    }
}
