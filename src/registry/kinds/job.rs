//! Jobs: defaults (which CronJobs' job templates share), validation of the
//! job spec and its template (restarting OnFailure or Never),
//! `status.successful` as a selectable field, kubectl's columns.

use serde_json::{json, Map, Value};

use super::super::options::GcPolicy;
use super::super::strategy::{default, object, SelectableField, Strategy};
use super::super::table::cells::*;
use super::super::table::wide;
use super::super::table::{col, text, Column, Desc, AGE, CONTAINERS, IMAGES, NAME};
use super::super::validation::str_at;
use crate::api::FieldError;
use crate::clock::{human_duration, parse_rfc3339, SimTime};

pub struct Job;

static FIELDS: &[SelectableField] = &[SelectableField::new("status.successful", "0")];

static COLUMNS: &[Column] = &[
    NAME,
    col("Status", "string", text("Status of the job.")),
    col("Completions", "string", Desc::Field("io.k8s.api.batch.v1.JobStatus", "succeeded")),
    col("Duration", "string", text("Time required to complete the job.")),
    AGE,
    CONTAINERS,
    IMAGES,
    wide("Selector", "string", Desc::Field("io.k8s.api.batch.v1.JobSpec", "selector")),
];

impl Strategy for Job {
    fn defaults(&self, o: &mut Map<String, Value>) {
        if let Some(spec) = object(o, "spec") {
            spec_defaults(spec);
        }
    }

    /// Unless `manualSelector` is set, the selector is generated from the
    /// Job's uid and its template labelled to match (upstream's
    /// `generateSelector`), with the legacy labels too.
    fn prepare_for_create(&self, o: &mut Map<String, Value>) {
        let meta = o.get("metadata").cloned().unwrap_or(Value::Null);
        let (uid, name) = (meta["uid"].as_str().unwrap_or(""), meta["name"].as_str().unwrap_or(""));
        let Some(spec) = object(o, "spec") else { return };
        if spec.get("manualSelector").and_then(Value::as_bool) == Some(true) {
            return;
        }
        if let Some(template) = object(spec, "template") {
            let metadata = template.entry("metadata").or_insert_with(|| json!({}));
            if !metadata["labels"].is_object() {
                metadata["labels"] = json!({});
            }
            for (k, v) in [
                ("batch.kubernetes.io/controller-uid", uid),
                ("batch.kubernetes.io/job-name", name),
                ("controller-uid", uid),
                ("job-name", name),
            ] {
                metadata["labels"][k] = json!(v);
            }
        }
        if spec.get("selector").is_none_or(Value::is_null) {
            spec.insert("selector".into(), json!({"matchLabels": {"batch.kubernetes.io/controller-uid": uid}}));
        }
    }

    /// A Job's selector cannot change (upstream's `ValidateJobSpecUpdate`).
    fn validate_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        super::workload::validate_selector_update(new, old)
    }

    fn validate(&self, obj: &Value) -> Vec<FieldError> {
        let mut errs = Vec::new();
        match obj.get("spec") {
            Some(spec) => validate_spec(spec, "spec", &mut errs),
            None => errs.push(FieldError::required("spec.template.spec.containers", "")),
        }
        errs
    }

    fn selectable_fields(&self) -> &[SelectableField] {
        FIELDS
    }

    /// batch/v1 keeps a Job's pods unless told otherwise, and says so.
    fn gc_policy(&self) -> GcPolicy {
        GcPolicy::Orphan
    }

    fn orphan_by_default_warning(&self) -> Option<&'static str> {
        Some(
            "child pods are preserved by default when jobs are deleted; \
             set propagationPolicy=Background to remove them or set propagationPolicy=Orphan to suppress this warning",
        )
    }

    fn columns(&self) -> &[Column] {
        COLUMNS
    }

    fn cells(&self, o: &Value, now: SimTime) -> Vec<Value> {
        job_cells(o, now)
    }
}

/// A job spec's defaults (a Job's, or a CronJob's job template's).
pub(super) fn spec_defaults(spec: &mut Map<String, Value>) {
    default(spec, "parallelism", json!(1));
    default(spec, "completions", json!(1));
    default(spec, "backoffLimit", json!(6));
    default(spec, "completionMode", json!("NonIndexed"));
    default(spec, "suspend", json!(false));
    default(spec, "podReplacementPolicy", json!("TerminatingOrFailed"));
    super::workload::template_defaults(spec);
}

/// Validation of a job spec at `path` (a Job's, or a CronJob's template's).
pub(super) fn validate_spec(spec: &Value, path: &str, errs: &mut Vec<FieldError>) {
    for field in ["parallelism", "completions", "backoffLimit", "activeDeadlineSeconds"] {
        if let Some(v) = spec.get(field) {
            if v.as_i64().is_some_and(|n| n < 0) {
                errs.push(FieldError::invalid_value(
                    &format!("{path}.{field}"),
                    v,
                    "must be greater than or equal to 0",
                ));
            }
        }
    }
    match spec.pointer("/template/spec") {
        Some(ps) => {
            super::pod::validate_spec(ps, &format!("{path}.template.spec"), errs);
            match str_at(ps, "restartPolicy") {
                Some("OnFailure") | Some("Never") => {}
                // The pod-spec check has refused unknown values.
                Some("Always") | None => errs.push(FieldError::required(
                    &format!("{path}.template.spec.restartPolicy"),
                    "valid values: \"OnFailure\", \"Never\"",
                )),
                Some(_) => {}
            }
        }
        None => errs.push(FieldError::required(&format!("{path}.template.spec.containers"), "")),
    }
}

fn job_cells(o: &Value, now: SimTime) -> Vec<Value> {
    let completions = match o.pointer("/spec/completions").and_then(Value::as_i64) {
        Some(c) => format!("{}/{c}", i(o, "/status/succeeded")),
        None => match i(o, "/spec/parallelism") {
            p if p > 1 => format!("{}/1 of {p}", i(o, "/status/succeeded")),
            _ => format!("{}/1", i(o, "/status/succeeded")),
        },
    };
    let start = o.pointer("/status/startTime").and_then(Value::as_str).and_then(parse_rfc3339);
    let end = o.pointer("/status/completionTime").and_then(Value::as_str).and_then(parse_rfc3339);
    let duration = match (start, end) {
        (None, _) => String::new(),
        (Some(s), None) => human_duration(now.0 - s),
        (Some(s), Some(e)) => human_duration(e - s),
    };
    let has = |ty: &str| arr(o, "/status/conditions").iter().any(|c| s(c, "/type") == ty && s(c, "/status") == "True");
    let status = if has("Complete") {
        "Complete"
    } else if has("Failed") {
        "Failed"
    } else if o.pointer("/metadata/deletionTimestamp").is_some_and(|d| !d.is_null()) {
        "Terminating"
    } else if has("SuccessCriteriaMet") {
        "SuccessCriteriaMet"
    } else if has("Suspended") {
        "Suspended"
    } else if has("FailureTarget") {
        "FailureTarget"
    } else {
        "Running"
    };
    let mut c = vec![name(o), status.into(), completions.into(), duration.into(), age(o, now)];
    c.extend(template(o, "/spec/template/spec", "/spec/selector"));
    c
}
