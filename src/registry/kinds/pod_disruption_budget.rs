//! PodDisruptionBudgets (policy/v1): validation (one of minAvailable and
//! maxUnavailable, int or percent), kubectl's columns.

use serde_json::Value;

use super::super::strategy::Strategy;
use super::super::table::cells::*;
use super::super::table::{col, Column, Desc, AGE, NAME};
use crate::api::FieldError;
use crate::clock::SimTime;

pub struct PodDisruptionBudget;

const SPEC: &str = "io.k8s.api.policy.v1.PodDisruptionBudgetSpec";

static COLUMNS: &[Column] = &[
    NAME,
    col("Min Available", "string", Desc::Field(SPEC, "minAvailable")),
    col("Max Unavailable", "string", Desc::Field(SPEC, "maxUnavailable")),
    col(
        "Allowed Disruptions",
        "integer",
        Desc::Field("io.k8s.api.policy.v1.PodDisruptionBudgetStatus", "disruptionsAllowed"),
    ),
    AGE,
];

fn int_or_percent(v: &Value) -> String {
    match v {
        Value::Number(n) => n.to_string(),
        Value::String(s) => s.clone(),
        _ => "N/A".into(),
    }
}

impl Strategy for PodDisruptionBudget {
    fn validate(&self, obj: &Value) -> Vec<FieldError> {
        let mut errs = Vec::new();
        let spec = &obj["spec"];
        let (min, max) =
            (spec.get("minAvailable").filter(|v| !v.is_null()), spec.get("maxUnavailable").filter(|v| !v.is_null()));
        if min.is_some() && max.is_some() {
            errs.push(FieldError::invalid_value("spec", spec, "minAvailable and maxUnavailable cannot be both set"));
        }
        for (field, v) in [("minAvailable", min), ("maxUnavailable", max)] {
            let Some(v) = v else { continue };
            let path = format!("spec.{field}");
            match v {
                Value::Number(n) if n.as_i64().is_some_and(|n| n < 0) => {
                    errs.push(FieldError::invalid_value(&path, v, "must be greater than or equal to 0"))
                }
                Value::String(s) => match s.strip_suffix('%').and_then(|p| p.parse::<i64>().ok()) {
                    Some(p) if (0..=100).contains(&p) => {}
                    Some(_) => errs.push(FieldError::invalid_value(&path, v, "must be no greater than 100%")),
                    None => errs.push(FieldError::invalid_value(&path, v, "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')")),
                },
                _ => {}
            }
        }
        if let Some(sel) = spec.get("selector").filter(|s| !s.is_null()) {
            crate::registry::validation::validate_label_selector(sel, "spec.selector", &mut errs);
        }
        if let Some(policy) = spec.get("unhealthyPodEvictionPolicy").and_then(Value::as_str) {
            const POLICIES: &[&str] = &["AlwaysAllow", "IfHealthyBudget"];
            if !POLICIES.contains(&policy) {
                errs.push(FieldError::not_supported("spec.unhealthyPodEvictionPolicy", policy, POLICIES));
            }
        }
        errs
    }

    fn columns(&self) -> &[Column] {
        COLUMNS
    }

    fn cells(&self, o: &Value, now: SimTime) -> Vec<Value> {
        vec![
            name(o),
            int_or_percent(&o["spec"]["minAvailable"]).into(),
            int_or_percent(&o["spec"]["maxUnavailable"]).into(),
            serde_json::json!(i(o, "/status/disruptionsAllowed")),
            age(o, now),
        ]
    }
}
