//! The CronJob controller (kube-controller-manager's `cronjob`), a client:
//! Jobs made on a schedule of simulated time.
//!
//! - The schedule (five cron fields or `@hourly`-style, in UTC) is read by
//!   `croner`; at each time it names after `status.lastScheduleTime` (or
//!   the CronJob's creation) a Job `<cronjob>-<minutes since the epoch>`
//!   is created from `jobTemplate`, owned by the CronJob and annotated
//!   `batch.kubernetes.io/cronjob-scheduled-timestamp`; only the most
//!   recent missed time is run, and times older than
//!   `startingDeadlineSeconds` are not looked at.
//! - `concurrencyPolicy`: Allow; Forbid leaves a time unmet while a Job is
//!   active (`JobAlreadyActive`), to run when it is done if still in time;
//!   Replace deletes the active Jobs first.
//! - `status.active` lists the running Jobs it made, `lastScheduleTime`
//!   follows them and `lastSuccessfulTime` every Job of its that
//!   succeeded; finished Jobs beyond `successfulJobsHistoryLimit` /
//!   `failedJobsHistoryLimit` are deleted, oldest first. `suspend` stops
//!   new Jobs. A running Job it owns but did not list (`kubectl create job
//!   --from=cronjob/…`) is told (`UnexpectedJob`), not adopted; a listed
//!   one that is gone is dropped (`MissingJob`).
//! - Events: `SuccessfulCreate` ("Created job X"), `SawCompletedJob`
//!   ("Saw completed job: X, condition: Complete"), `SuccessfulDelete`,
//!   `UnexpectedJob`, `MissingJob`, `JobAlreadyActive`, `FailedCreate`,
//!   `TooManyMissedTimes`.
//!
//! It wakes at the next scheduled time (`next_wake`). `timeZone` other
//! than UTC is not applied (docs/fidelity.md).

use crate::sort::Order;
use std::str::FromStr as _;

use chrono::{DateTime, Utc};
use croner::Cron;
use std::sync::Arc;

use serde_json::{json, Map, Value};

use super::client::Client;
use super::events::{EventType, Recorder};
use super::informer::Informer;
use super::object::{collection, controller_of, meta_str, owner_reference};
use super::{Controller, Progress};
use crate::clock::{parse_rfc3339, SimTime};

pub struct CronJobController {
    cron_jobs: Informer,
    jobs: Informer,
    recorder: Recorder,
    wake: Option<SimTime>,
}

impl Default for CronJobController {
    fn default() -> Self {
        CronJobController {
            cron_jobs: Informer::new("/apis/batch/v1/cronjobs"),
            jobs: Informer::new("/apis/batch/v1/jobs"),
            recorder: Recorder::new("cronjob-controller", ""),
            wake: None,
        }
    }
}

/// A schedule as croner reads it (robfig's descriptors included).
pub fn parse_schedule(schedule: &str) -> Option<Cron> {
    let s = schedule.trim();
    let s = match s {
        "@yearly" | "@annually" => "0 0 1 1 *",
        "@monthly" => "0 0 1 * *",
        "@weekly" => "0 0 * * 0",
        "@daily" | "@midnight" => "0 0 * * *",
        "@hourly" => "0 * * * *",
        other => other,
    };
    Cron::from_str(s).ok()
}

fn at(ms: i64) -> Option<DateTime<Utc>> {
    DateTime::from_timestamp_millis(ms)
}

/// The first scheduled time strictly after `after_ms`.
fn next_after(cron: &Cron, after_ms: i64) -> Option<i64> {
    cron.find_next_occurrence(&at(after_ms)?, false).ok().map(|t| t.timestamp_millis())
}

/// The latest scheduled time in (`after_ms`, `now_ms`], and how many were
/// missed (counting stops past 100, as upstream's does).
fn most_recent(cron: &Cron, after_ms: i64, now_ms: i64) -> (Option<i64>, usize) {
    let (mut last, mut count) = (None, 0);
    let mut t = after_ms;
    while let Some(next) = next_after(cron, t).filter(|n| *n <= now_ms) {
        last = Some(next);
        count += 1;
        t = next;
        if count > 100 {
            // Only the most recent is run: find it from the other end.
            let latest = at(now_ms).and_then(|now| cron.find_previous_occurrence(&now, true).ok());
            last = latest.map(|p| p.timestamp_millis()).filter(|p| *p > after_ms).or(last);
            break;
        }
    }
    (last, count)
}

fn finished(job: &Value) -> Option<&'static str> {
    let cs = job["status"]["conditions"].as_array()?;
    for (ty, name) in [("Complete", "Complete"), ("Failed", "Failed")] {
        if cs.iter().any(|c| c["type"] == ty && c["status"] == "True") {
            return Some(name);
        }
    }
    None
}

impl Controller for CronJobController {
    fn name(&self) -> &'static str {
        "cronjob"
    }

    fn service_account(&self) -> &'static str {
        "cronjob-controller"
    }

    fn reconcile(&mut self, client: &mut Client<'_>) -> Progress {
        let before = client.writes;
        let changed = self.cron_jobs.sync(client) | self.jobs.sync(client);
        let due = self.wake.is_some_and(|w| w.0 <= client.now_millis());
        if changed || due {
            self.wake = None;
            let cron_jobs: Vec<Arc<Value>> = self.cron_jobs.shared().cloned().collect();
            for cj in cron_jobs {
                if let Some(next) = self.sync(client, &cj) {
                    self.wake = Some(self.wake.map_or(next, |w| SimTime(w.0.min(next.0))));
                }
            }
        }
        Progress { writes: client.writes - before }
    }

    fn next_wake(&self) -> Option<SimTime> {
        self.wake
    }
}

impl CronJobController {
    fn event(&mut self, client: &mut Client<'_>, cj: &Value, t: EventType, reason: &str, message: &str) {
        self.recorder.event(client, cj, ("batch/v1", "CronJob"), "", t, reason, message);
    }

    /// One CronJob's pass; the next time it wants to run. (Never inlined
    /// into `reconcile`, which every module runs at start with no CronJobs:
    /// this part is loaded second.)
    #[inline(never)]
    fn sync(&mut self, client: &mut Client<'_>, cj: &Value) -> Option<SimTime> {
        let (ns, uid, name) = (meta_str(cj, "namespace"), meta_str(cj, "uid"), meta_str(cj, "name"));
        let now = client.now_millis();
        let mut jobs: Vec<Value> = self
            .jobs
            .objects()
            .filter(|j| meta_str(j, "namespace") == ns)
            .filter(|j| controller_of(j).is_some_and(|c| c["uid"].as_str() == Some(uid)))
            .cloned()
            .collect();
        jobs.order_by(|a, b| meta_str(a, "creationTimestamp").cmp(meta_str(b, "creationTimestamp")));
        let mut status: Map<String, Value> = cj["status"].as_object().cloned().unwrap_or_default();
        let mut active: Vec<Value> = status.get("active").and_then(Value::as_array).cloned().unwrap_or_default();
        let listed = |active: &[Value], uid: &str| active.iter().any(|r| r["uid"].as_str() == Some(uid));
        let path = format!("{}/{name}", collection("batch/v1", ns, "cronjobs"));
        for j in &jobs {
            let (job, job_uid) = (meta_str(j, "name"), meta_str(j, "uid"));
            let found = listed(&active, job_uid);
            match finished(j) {
                // A running Job it owns that its list misses: made by
                // someone else (`kubectl create job --from=cronjob/…`) or
                // listed by a write not seen yet: read again, then told.
                None if !found => {
                    let fresh = client.get(&path);
                    let fresh = if fresh.status == 200 { fresh.json_body() } else { Value::Null };
                    match fresh["status"]["active"].as_array() {
                        Some(refs) if listed(refs, job_uid) => active.push(job_ref(j)),
                        _ => {
                            let message = format!("Saw a job that the controller did not create or forgot: {job}");
                            self.event(client, cj, EventType::Warning, "UnexpectedJob", &message);
                        }
                    }
                }
                None => {}
                Some(cond) => {
                    if found {
                        active.retain(|r| r["uid"].as_str() != Some(job_uid));
                        let message = format!("Saw completed job: {job}, condition: {cond}");
                        self.event(client, cj, EventType::Normal, "SawCompletedJob", &message);
                    }
                    // Any Job of its that succeeded counts, listed or not.
                    let completion = j["status"]["completionTime"].as_str().unwrap_or("");
                    let last = status.get("lastSuccessfulTime").and_then(Value::as_str).unwrap_or("");
                    if cond == "Complete"
                        && !completion.is_empty()
                        && (last.is_empty() || parse_rfc3339(completion) > parse_rfc3339(last))
                    {
                        status.insert("lastSuccessfulTime".into(), json!(completion));
                    }
                }
            }
        }
        // Listed Jobs that are gone (read to be sure): told and dropped.
        for r in active.clone().iter().filter(|r| !jobs.iter().any(|j| r["uid"].as_str() == Some(meta_str(j, "uid")))) {
            let job = r["name"].as_str().unwrap_or("");
            if client.get(&format!("{}/{job}", collection("batch/v1", ns, "jobs"))).status == 404 {
                let message = format!("Active job went missing: {job}");
                self.event(client, cj, EventType::Normal, "MissingJob", &message);
                active.retain(|a| a["uid"] != r["uid"]);
            }
        }
        let mut next = None;
        let cron = parse_schedule(cj["spec"]["schedule"].as_str().unwrap_or(""));
        let alive = cj["metadata"]["deletionTimestamp"].is_null();
        let suspended = cj["spec"]["suspend"].as_bool() == Some(true);
        if let (Some(cron), true, false) = (&cron, alive, suspended) {
            let deadline = cj["spec"]["startingDeadlineSeconds"].as_i64();
            let since = status
                .get("lastScheduleTime")
                .and_then(Value::as_str)
                .and_then(parse_rfc3339)
                .or_else(|| parse_rfc3339(meta_str(cj, "creationTimestamp")))
                .unwrap_or(now);
            // Nothing older than the starting deadline is looked at.
            let since = deadline.map_or(since, |d| since.max(now - d * 1000));
            let (scheduled, missed) = most_recent(cron, since, now);
            if missed > 100 {
                let message =
                    "too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew";
                self.event(client, cj, EventType::Warning, "TooManyMissedTimes", message);
            }
            if let Some(t) = scheduled {
                let when = SimTime(t).rfc3339();
                let policy = cj["spec"]["concurrencyPolicy"].as_str().unwrap_or("Allow");
                // (Too late cannot happen, the deadline bounding `since`,
                // but for a time exactly on it: told in Go's RFC 1123
                // with a numeric zone, and left unmet, as upstream.)
                if deadline.is_some_and(|d| t + d * 1000 < now) {
                    let message = format!("Missed scheduled time to start a job: {}", SimTime(t).rfc1123z());
                    self.event(client, cj, EventType::Warning, "MissSchedule", &message);
                } else if policy == "Forbid" && !active.is_empty() {
                    // Left unmet: run when the active Job is done, if still
                    // inside the deadline.
                    let message =
                        "Not starting job because prior execution is running and concurrency policy is Forbid";
                    self.event(client, cj, EventType::Normal, "JobAlreadyActive", message);
                } else {
                    if policy == "Replace" {
                        for r in std::mem::take(&mut active) {
                            let job = r["name"].as_str().unwrap_or("").to_string();
                            let path = format!("{}/{job}", collection("batch/v1", ns, "jobs"));
                            let body =
                                json!({"kind": "DeleteOptions", "apiVersion": "v1", "propagationPolicy": "Background"});
                            if client.write("DELETE", &path, "application/json", &body).status == 200 {
                                let message = format!("Deleted job {job}");
                                self.event(client, cj, EventType::Normal, "SuccessfulDelete", &message);
                            }
                        }
                    }
                    if let Some(j) = self.create_job(client, cj, t) {
                        if !listed(&active, meta_str(&j, "uid")) {
                            active.push(job_ref(&j));
                        }
                        status.insert("lastScheduleTime".into(), json!(when));
                    }
                }
            }
            next = next_after(cron, now).map(SimTime);
        }
        if active.is_empty() {
            status.shift_remove("active");
        } else {
            status.insert("active".into(), json!(active));
        }
        let status = Value::Object(status);
        if cj["status"] != status {
            let mut body = cj.clone();
            body["status"] = status;
            body["kind"] = json!("CronJob");
            body["apiVersion"] = json!("batch/v1");
            let path = format!("{}/{name}/status", collection("batch/v1", ns, "cronjobs"));
            client.write("PUT", &path, "application/json", &body);
        }
        self.cleanup(client, cj, &jobs);
        next
    }

    fn create_job(&mut self, client: &mut Client<'_>, cj: &Value, t: i64) -> Option<Value> {
        let (ns, name) = (meta_str(cj, "namespace"), meta_str(cj, "name"));
        let template = &cj["spec"]["jobTemplate"];
        let job_name = format!("{name}-{}", t.div_euclid(60_000));
        let mut metadata = json!({"name": job_name, "namespace": ns,
            "ownerReferences": [owner_reference(cj, "batch/v1", "CronJob")]});
        for f in ["labels", "annotations"] {
            if let Some(v) = template["metadata"].get(f).filter(|v| v.is_object()) {
                metadata[f] = v.clone();
            }
        }
        metadata["annotations"]["batch.kubernetes.io/cronjob-scheduled-timestamp"] = json!(SimTime(t).rfc3339());
        let body = json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": metadata, "spec": template["spec"]});
        let jobs = collection("batch/v1", ns, "jobs");
        let r = client.write("POST", &jobs, "application/json", &body);
        match r.status {
            201 => {
                self.event(client, cj, EventType::Normal, "SuccessfulCreate", &format!("Created job {job_name}"));
                Some(r.json_body())
            }
            // Made before, its listing lost (a status write that failed):
            // listed now if it is this CronJob's, else left to its owner.
            409 => {
                let r = client.get(&format!("{jobs}/{job_name}"));
                let job = if r.status == 200 { r.json_body() } else { Value::Null };
                let ours = controller_of(&job).is_some_and(|c| c["uid"].as_str() == Some(meta_str(cj, "uid")));
                ours.then_some(job)
            }
            // (A namespace being deleted makes nothing: not told.)
            _ => {
                if let Some(message) = super::backoff::refusal(&r) {
                    let message = format!("Error creating job: {message}");
                    self.event(client, cj, EventType::Warning, "FailedCreate", &message);
                }
                None
            }
        }
    }

    /// Deletes finished Jobs beyond the history limits, oldest first.
    fn cleanup(&mut self, client: &mut Client<'_>, cj: &Value, jobs: &[Value]) {
        for (cond, field, default) in
            [("Complete", "successfulJobsHistoryLimit", 3), ("Failed", "failedJobsHistoryLimit", 1)]
        {
            let limit = cj["spec"][field].as_i64().unwrap_or(default).max(0) as usize;
            let done: Vec<&Value> = jobs.iter().filter(|j| finished(j) == Some(cond)).collect();
            for j in done.iter().take(done.len().saturating_sub(limit)) {
                let job = meta_str(j, "name");
                let path = format!("{}/{job}", collection("batch/v1", meta_str(cj, "namespace"), "jobs"));
                let body = json!({"kind": "DeleteOptions", "apiVersion": "v1", "propagationPolicy": "Background"});
                if client.write("DELETE", &path, "application/json", &body).status == 200 {
                    self.event(client, cj, EventType::Normal, "SuccessfulDelete", &format!("Deleted job {job}"));
                }
            }
        }
    }
}

fn job_ref(j: &Value) -> Value {
    json!({"kind": "Job", "namespace": meta_str(j, "namespace"), "name": meta_str(j, "name"),
        "uid": meta_str(j, "uid"), "apiVersion": "batch/v1", "resourceVersion": meta_str(j, "resourceVersion")})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedules_name_the_minutes_they_fire() {
        let every5 = parse_schedule("*/5 * * * *").unwrap();
        // 2023-11-14T22:13:20Z → 22:15:00Z.
        assert_eq!(next_after(&every5, 1_700_000_000_000), Some(1_700_000_100_000));
        let hourly = parse_schedule("@hourly").unwrap();
        assert_eq!(next_after(&hourly, 1_700_000_000_000), Some(1_700_002_800_000));
        assert!(parse_schedule("not a schedule").is_none());
        // Ten minutes later: two times passed, the later one is run.
        let (last, missed) = most_recent(&every5, 1_700_000_000_000, 1_700_000_600_000);
        assert_eq!((last, missed), (Some(1_700_000_400_000), 2));
    }
}
