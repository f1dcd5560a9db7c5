//! Deployments: defaults (a RollingUpdate strategy of 25%/25%, ten revisions
//! kept), validation as every workload, kubectl's columns.

use serde_json::{json, Map, Value};

use super::super::strategy::{default, object, object_or_empty, Strategy};
use super::super::table::cells::*;
use super::super::table::{col, text, wide, Column, Desc, AGE, CONTAINERS, IMAGES, NAME};
use crate::api::FieldError;
use crate::clock::SimTime;

pub struct Deployment;

static COLUMNS: &[Column] = &[
    NAME,
    col("Ready", "string", text("Number of the pod with ready state")),
    col("Up-to-date", "string", Desc::Field("io.k8s.api.apps.v1.DeploymentStatus", "updatedReplicas")),
    col("Available", "string", Desc::Field("io.k8s.api.apps.v1.DeploymentStatus", "availableReplicas")),
    AGE,
    CONTAINERS,
    IMAGES,
    wide("Selector", "string", Desc::Field("io.k8s.api.apps.v1.DeploymentSpec", "selector")),
];

impl Strategy for Deployment {
    fn metadata_kept_on_status_update(&self) -> &'static [&'static str] {
        &["labels"]
    }

    fn defaults(&self, o: &mut Map<String, Value>) {
        if let Some(spec) = object(o, "spec") {
            default(spec, "replicas", json!(1));
            if let Some(strategy) = object_or_empty(spec, "strategy") {
                default(strategy, "type", json!("RollingUpdate"));
                if strategy.get("type").and_then(Value::as_str) == Some("RollingUpdate") {
                    if let Some(ru) = object_or_empty(strategy, "rollingUpdate") {
                        default(ru, "maxUnavailable", json!("25%"));
                        default(ru, "maxSurge", json!("25%"));
                    }
                }
            }
            default(spec, "revisionHistoryLimit", json!(10));
            default(spec, "progressDeadlineSeconds", json!(600));
            super::workload::template_defaults(spec);
        }
    }

    fn validate(&self, obj: &Value) -> Vec<FieldError> {
        let mut errs = Vec::new();
        if let Some(spec) = obj.get("spec") {
            super::workload::validate_spec("Deployment", spec, &mut errs);
        }
        errs
    }

    fn validate_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        super::workload::validate_selector_update(new, old)
    }

    fn columns(&self) -> &[Column] {
        COLUMNS
    }

    fn cells(&self, o: &Value, now: SimTime) -> Vec<Value> {
        let mut c = vec![
            name(o),
            format!("{}/{}", i(o, "/status/readyReplicas"), i(o, "/spec/replicas")).into(),
            json!(i(o, "/status/updatedReplicas")),
            json!(i(o, "/status/availableReplicas")),
            age(o, now),
        ];
        c.extend(template(o, "/spec/template/spec", "/spec/selector"));
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deployments_get_a_rolling_update_unless_they_ask_to_recreate() {
        let mut d = json!({"spec": {"template": {"spec": {"containers": [{"name": "c", "image": "x:1"}]}}}});
        Deployment.defaults(d.as_object_mut().unwrap());
        assert_eq!(
            d["spec"]["strategy"],
            json!({"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"}})
        );
        assert_eq!((d["spec"]["replicas"].as_i64(), d["spec"]["revisionHistoryLimit"].as_i64()), (Some(1), Some(10)));
        assert!(
            d["spec"]["template"]["spec"].get("serviceAccountName").is_none(),
            "templates get no admission defaults"
        );
        assert_eq!(d["spec"]["template"]["spec"]["restartPolicy"], "Always", "templates get the pod spec's");
        let mut recreate = json!({"spec": {"strategy": {"type": "Recreate"}}});
        Deployment.defaults(recreate.as_object_mut().unwrap());
        assert_eq!(recreate["spec"]["strategy"], json!({"type": "Recreate"}));
    }
}
