//! The Job controller (kube-controller-manager's `job`), a client: runs
//! each Job's pods to its completions.
//!
//! - Pods are created from the template (`generateName: <job>-`, a
//!   controller reference), keeping `parallelism` of them active (never
//!   more than the completions still wanted);
//! - succeeded pods count toward `completions`; once they are reached the
//!   Job gets `SuccessCriteriaMet` then `Complete` (`CompletionsReached`,
//!   "Reached expected number of succeeded pods") and a `completionTime`;
//! - failed pods beyond `backoffLimit` fail the Job: its active pods are
//!   deleted and it gets `FailureTarget` then `Failed`
//!   (`BackoffLimitExceeded`, "Job has reached the specified backoff
//!   limit");
//! - the status (`active`, `succeeded`, `failed`, `ready`, `terminating`,
//!   `startTime`, `uncountedTerminatedPods`) is written through `/status`;
//!   events `SuccessfulCreate`, `Completed`, `BackoffLimitExceeded`.
//!
//! Not yet: Indexed completion mode, pod failure and success policies,
//! `activeDeadlineSeconds` and back-off delays (no timers), suspension,
//! and the `batch.kubernetes.io/job-tracking` finalizer on pods
//! (docs/fidelity.md).

use std::sync::Arc;

use serde_json::{json, Map, Value};

use super::backoff::Backoff;
use super::client::Client;
use super::events::{EventType, Recorder};
use super::informer::Informer;
use super::object::{collection, controller_of, int, is_ready, meta_str, name_in, pod_from_template};
use super::{Controller, Progress};
use crate::clock::SimTime;

pub struct JobController {
    jobs: Informer,
    pods: Informer,
    recorder: Recorder,
    /// Jobs whose pods the server refused, and when to try again.
    failing: Backoff,
}

impl Default for JobController {
    fn default() -> Self {
        JobController {
            jobs: Informer::new("/apis/batch/v1/jobs"),
            pods: Informer::new("/api/v1/pods"),
            recorder: Recorder::new("job-controller", ""),
            failing: Backoff::default(),
        }
    }
}

fn has_condition(job: &Value, type_: &str) -> bool {
    job["status"]["conditions"]
        .as_array()
        .is_some_and(|cs| cs.iter().any(|c| c["type"] == type_ && c["status"] == "True"))
}

fn job_condition(type_: &str, reason: &str, message: &str, now: &str) -> Value {
    json!({"type": type_, "status": "True", "lastProbeTime": now, "lastTransitionTime": now,
        "reason": reason, "message": message})
}

impl Controller for JobController {
    fn name(&self) -> &'static str {
        "job"
    }

    fn service_account(&self) -> &'static str {
        "job-controller"
    }

    fn reconcile(&mut self, client: &mut Client<'_>) -> Progress {
        let before = client.writes;
        let changed = self.jobs.sync(client) | self.pods.sync(client);
        let now = SimTime(client.now_millis());
        if changed || self.failing.due(now) {
            let jobs: Vec<Arc<Value>> = self.jobs.shared().cloned().collect();
            for job in jobs {
                let finished = has_condition(&job, "Complete") || has_condition(&job, "Failed");
                self.failing.begin();
                if job["metadata"]["deletionTimestamp"].is_null() && !finished {
                    self.sync(client, &job);
                }
                self.failing.end(meta_str(&job, "uid"), now);
            }
            self.failing.forget_gone(&self.jobs);
        }
        Progress { writes: client.writes - before }
    }

    fn next_wake(&self) -> Option<SimTime> {
        self.failing.next_wake()
    }
}

impl JobController {
    fn event(&mut self, client: &mut Client<'_>, job: &Value, t: EventType, reason: &str, message: &str) {
        self.recorder.event(client, job, ("batch/v1", "Job"), "", t, reason, message);
    }

    /// One Job's pass. (Never inlined into `reconcile`, which every module
    /// runs at start with no Jobs: this part is loaded second.)
    #[inline(never)]
    fn sync(&mut self, client: &mut Client<'_>, job: &Value) {
        let (ns, uid) = (meta_str(job, "namespace"), meta_str(job, "uid"));
        let pods: Vec<Arc<Value>> = self
            .pods
            .shared()
            .filter(|p| meta_str(p, "namespace") == ns)
            .filter(|p| controller_of(p).is_some_and(|c| c["uid"].as_str() == Some(uid)))
            .cloned()
            .collect();
        let phase = |p: &Value| p["status"]["phase"].as_str().unwrap_or("").to_string();
        let terminal = |p: &Value| matches!(phase(p).as_str(), "Succeeded" | "Failed");
        let active: Vec<&Value> = pods
            .iter()
            .map(|p| &**p)
            .filter(|p| !terminal(p) && p["metadata"]["deletionTimestamp"].is_null())
            .collect();
        let succeeded = pods.iter().filter(|p| phase(p) == "Succeeded").count() as i64;
        let failed = pods.iter().filter(|p| phase(p) == "Failed").count() as i64;
        let completions = job["spec"]["completions"].as_i64();
        let parallelism = int(job, "/spec/parallelism");
        let backoff_limit = job["spec"]["backoffLimit"].as_i64().unwrap_or(6);
        let now = client.now_rfc3339();
        let done = match completions {
            Some(c) => succeeded >= c,
            None => succeeded >= 1 && active.is_empty(),
        };
        let failed_out = failed > backoff_limit;
        let pods_path = collection("v1", ns, "pods");
        let mut active_count = active.len() as i64;
        if failed_out {
            for p in &active {
                let body = json!({"kind": "DeleteOptions", "apiVersion": "v1", "propagationPolicy": "Background"});
                if client
                    .write("DELETE", &format!("{pods_path}/{}", meta_str(p, "name")), "application/json", &body)
                    .status
                    == 200
                {
                    active_count -= 1;
                }
            }
        } else if !done && job["spec"]["suspend"].as_bool() != Some(true) {
            let remaining = completions.map(|c| c - succeeded).unwrap_or(parallelism);
            let want = parallelism.min(remaining).max(0);
            let missing = want - active_count;
            for _ in 0..missing {
                let pod = pod_from_template(job, ("batch/v1", "Job"));
                let r = client.write("POST", &pods_path, "application/json", &pod);
                if r.status != 201 {
                    if let Some(why) = super::backoff::refusal(&r) {
                        let message = format!("Error creating: {why}");
                        self.event(client, job, EventType::Warning, "FailedCreate", &message);
                    }
                    self.failing.fail();
                    break;
                }
                active_count += 1;
                let message = format!("Created pod: {}", name_in(&r.body));
                self.event(client, job, EventType::Normal, "SuccessfulCreate", &message);
            }
        }
        let mut status: Map<String, Value> = job["status"].as_object().cloned().unwrap_or_default();
        if status.get("startTime").is_none_or(Value::is_null) {
            status.insert("startTime".into(), json!(now));
        }
        let mut put = |k: &str, n: i64| {
            if n > 0 {
                status.insert(k.into(), json!(n));
            } else {
                status.shift_remove(k);
            }
        };
        put("active", active_count);
        put("succeeded", succeeded);
        put("failed", failed);
        status.insert("ready".into(), json!(active.iter().filter(|p| is_ready(p)).count()));
        status.insert("terminating".into(), json!(0));
        status.insert("uncountedTerminatedPods".into(), json!({}));
        let mut finished = None;
        let mut conditions: Vec<Value> =
            status.get("conditions").and_then(Value::as_array).cloned().unwrap_or_default();
        if done && active_count == 0 {
            let message = "Reached expected number of succeeded pods";
            conditions.push(job_condition("SuccessCriteriaMet", "CompletionsReached", message, &now));
            conditions.push(job_condition("Complete", "CompletionsReached", message, &now));
            status.insert("completionTime".into(), json!(now));
            finished = Some((EventType::Normal, "Completed", "Job completed"));
        } else if failed_out {
            let message = "Job has reached the specified backoff limit";
            conditions.push(job_condition("FailureTarget", "BackoffLimitExceeded", message, &now));
            conditions.push(job_condition("Failed", "BackoffLimitExceeded", message, &now));
            finished = Some((EventType::Warning, "BackoffLimitExceeded", message));
        }
        if !conditions.is_empty() {
            status.insert("conditions".into(), json!(conditions));
        }
        let status = Value::Object(status);
        if job["status"] != status {
            let mut body = job.clone();
            body["status"] = status;
            body["kind"] = json!("Job");
            body["apiVersion"] = json!("batch/v1");
            let path = format!("/apis/batch/v1/namespaces/{ns}/jobs/{}/status", meta_str(job, "name"));
            if client.write("PUT", &path, "application/json", &body).status != 200 {
                return;
            }
        }
        if let Some((t, reason, message)) = finished {
            self.event(client, job, t, reason, message);
        }
    }
}
