//! CronJobs: defaults (and their job template's), a schedule and a known
//! concurrency policy, a valid job template, kubectl's columns.

use serde_json::{json, Map, Value};

use super::super::strategy::{default, object, Strategy};
use super::super::table::cells::*;
use super::super::table::wide;
use super::super::table::{col, Column, Desc, AGE, CONTAINERS, IMAGES, NAME};
use super::super::validation::str_at;
use crate::api::FieldError;
use crate::clock::SimTime;

pub struct CronJob;

static COLUMNS: &[Column] = &[
    NAME,
    col("Schedule", "string", Desc::Field("io.k8s.api.batch.v1.CronJobSpec", "schedule")),
    col("Timezone", "string", Desc::Field("io.k8s.api.batch.v1.CronJobSpec", "timeZone")),
    col("Suspend", "boolean", Desc::Field("io.k8s.api.batch.v1.CronJobSpec", "suspend")),
    col("Active", "integer", Desc::Field("io.k8s.api.batch.v1.CronJobStatus", "active")),
    col("Last Schedule", "string", Desc::Field("io.k8s.api.batch.v1.CronJobStatus", "lastScheduleTime")),
    AGE,
    CONTAINERS,
    IMAGES,
    wide("Selector", "string", Desc::Field("io.k8s.api.batch.v1.JobSpec", "selector")),
];

impl Strategy for CronJob {
    fn defaults(&self, o: &mut Map<String, Value>) {
        if let Some(spec) = object(o, "spec") {
            default(spec, "concurrencyPolicy", json!("Allow"));
            default(spec, "suspend", json!(false));
            default(spec, "successfulJobsHistoryLimit", json!(3));
            default(spec, "failedJobsHistoryLimit", json!(1));
            if let Some(jt) = object(spec, "jobTemplate").and_then(|t| object(t, "spec")) {
                super::job::spec_defaults(jt);
            }
        }
    }

    fn validate(&self, obj: &Value) -> Vec<FieldError> {
        let mut errs = Vec::new();
        let spec = obj.get("spec").unwrap_or(&Value::Null);
        if str_at(spec, "schedule").is_none_or(str::is_empty) {
            errs.push(FieldError::required("spec.schedule", ""));
        }
        if let Some(c) = str_at(spec, "concurrencyPolicy") {
            const POLICIES: &[&str] = &["Allow", "Forbid", "Replace"];
            if !POLICIES.contains(&c) {
                errs.push(FieldError::not_supported("spec.concurrencyPolicy", c, POLICIES));
            }
        }
        match spec.pointer("/jobTemplate/spec") {
            Some(js) => super::job::validate_spec(js, "spec.jobTemplate.spec", &mut errs),
            None => errs.push(FieldError::required("spec.jobTemplate.spec.template.spec.containers", "")),
        }
        errs
    }

    fn columns(&self) -> &[Column] {
        COLUMNS
    }

    fn cells(&self, o: &Value, now: SimTime) -> Vec<Value> {
        let mut c = vec![
            name(o),
            s(o, "/spec/schedule").into(),
            or_none(s(o, "/spec/timeZone")).into(),
            // A string, as upstream's printBoolPtr writes it.
            match o.pointer("/spec/suspend").and_then(Value::as_bool) {
                Some(true) => "True",
                Some(false) => "False",
                None => "<unset>",
            }
            .into(),
            json!(len(o, "/status/active")),
            since(o.pointer("/status/lastScheduleTime"), now, "<none>").into(),
            age(o, now),
        ];
        c.extend(template(o, "/spec/jobTemplate/spec/template/spec", "/spec/jobTemplate/spec/selector"));
        c
    }
}
