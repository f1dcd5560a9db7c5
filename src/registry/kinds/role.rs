//! Roles and ClusterRoles (one strategy for both): every rule names at
//! least one verb. They print as the default table, as upstream.

use serde_json::Value;

use super::super::strategy::Strategy;
use crate::api::FieldError;

pub struct Role;

impl Strategy for Role {
    fn validate(&self, obj: &Value) -> Vec<FieldError> {
        let mut errs = Vec::new();
        for (i, rule) in obj.get("rules").and_then(Value::as_array).into_iter().flatten().enumerate() {
            if rule.get("verbs").and_then(Value::as_array).is_none_or(Vec::is_empty) {
                errs.push(FieldError::required(&format!("rules[{i}].verbs"), "verbs must contain at least one value"));
            }
        }
        errs
    }
}
