//! The Deployment controller's status: what the ReplicaSets add up to,
//! the Available and Progressing conditions as upstream's
//! `syncRolloutStatus` keeps them, pausing, and the progress deadline.

use serde_json::{json, Map, Value};

use super::{max_unavailable, replicas, Sync};
use crate::clock::{parse_rfc3339, SimTime};
use crate::controllers::object::{int, meta_str};

/// When a rollout that has not finished nor timed out should be checked
/// for its progress deadline (upstream's `requeueStuckDeployment`: the
/// Progressing condition's last update plus the deadline, and a second).
pub(super) fn progress_check(d: &Value) -> Option<SimTime> {
    let deadline = progress_deadline(d)?;
    let c = condition(&d["status"], "Progressing")?;
    if c["reason"] == "NewReplicaSetAvailable" || c["reason"] == "ProgressDeadlineExceeded" || c["status"] != "True" {
        return None;
    }
    let updated = parse_rfc3339(c["lastUpdateTime"].as_str()?)?;
    Some(SimTime(updated + deadline * 1000 + 1000))
}

/// `spec.progressDeadlineSeconds`, unless unset or "never" (MaxInt32).
fn progress_deadline(d: &Value) -> Option<i64> {
    d["spec"]["progressDeadlineSeconds"].as_i64().filter(|s| *s != i64::from(i32::MAX))
}

/// A condition of a deployment's status.
pub(super) fn condition<'a>(status: &'a Value, type_: &str) -> Option<&'a Value> {
    status["conditions"].as_array()?.iter().find(|c| c["type"] == type_)
}

fn remove_condition(status: &mut Map<String, Value>, type_: &str) {
    if let Some(Value::Array(cs)) = status.get_mut("conditions") {
        cs.retain(|c| c["type"] != type_);
        if cs.is_empty() {
            status.shift_remove("conditions");
        }
    }
}

/// Sets a condition as upstream's `SetDeploymentCondition`: unchanged if
/// its status and reason are; the transition time kept if its status is.
pub(super) fn set_condition(
    status: &mut Map<String, Value>,
    now: &str,
    type_: &str,
    st: &str,
    reason: &str,
    message: &str,
) {
    let current = status
        .get("conditions")
        .and_then(Value::as_array)
        .and_then(|cs| cs.iter().find(|c| c["type"] == type_))
        .cloned();
    let mut transition = json!(now);
    if let Some(c) = &current {
        if c["status"] == st {
            if c["reason"] == reason {
                return;
            }
            transition = c["lastTransitionTime"].clone();
        }
    }
    remove_condition(status, type_);
    let c = json!({"type": type_, "status": st, "lastUpdateTime": now, "lastTransitionTime": transition,
        "reason": reason, "message": message});
    match status.get_mut("conditions") {
        Some(Value::Array(cs)) => cs.push(c),
        _ => {
            status.insert("conditions".into(), json!([c]));
        }
    }
}

pub(super) fn status_map(d: &Value) -> Map<String, Value> {
    d["status"].as_object().cloned().unwrap_or_default()
}

impl Sync<'_, '_> {
    /// Progressing: Unknown while paused, and once when resumed. None if
    /// writing it failed.
    pub(super) fn check_paused_conditions(&mut self) -> Option<()> {
        let cond = condition(&self.d["status"], "Progressing").cloned();
        if cond.as_ref().is_some_and(|c| c["reason"] == "ProgressDeadlineExceeded") {
            return Some(());
        }
        let paused_cond = cond.as_ref().is_some_and(|c| c["reason"] == "DeploymentPaused");
        let paused = self.d["spec"]["paused"].as_bool() == Some(true);
        let (reason, message) = match (paused, paused_cond) {
            (true, false) => ("DeploymentPaused", "Deployment is paused"),
            (false, true) => ("DeploymentResumed", "Deployment is resumed"),
            _ => return Some(()),
        };
        let mut status = status_map(&self.d);
        let now = self.now();
        set_condition(&mut status, &now, "Progressing", "Unknown", reason, message);
        self.d["status"] = Value::Object(status);
        self.update_status().then_some(())
    }

    /// Whether a status shows the rollout complete.
    pub(super) fn complete(&self, status: &Value) -> bool {
        let want = replicas(&self.d);
        int(status, "/updatedReplicas") == want
            && int(status, "/replicas") == want
            && int(status, "/availableReplicas") == want
            && int(status, "/observedGeneration") >= int(&self.d, "/metadata/generation")
    }

    /// The status the ReplicaSets add up to, with Available set.
    fn calculate_status(&self, new: Option<&Value>, old: &[Value]) -> Map<String, Value> {
        let all: Vec<&Value> = old.iter().chain(new).collect();
        let sum = |p: &str| all.iter().map(|rs| int(rs, p)).sum::<i64>();
        let available = sum("/status/availableReplicas");
        let total = sum("/spec/replicas");
        let mut status = Map::new();
        let mut put = |k: &str, n: i64| {
            if n != 0 {
                status.insert(k.into(), json!(n));
            }
        };
        put("observedGeneration", int(&self.d, "/metadata/generation"));
        put("replicas", sum("/status/replicas"));
        put("updatedReplicas", new.map(|n| int(n, "/status/replicas")).unwrap_or(0));
        put("readyReplicas", sum("/status/readyReplicas"));
        put("availableReplicas", available);
        put("unavailableReplicas", (total - available).max(0));
        if let Some(c) = self.d["status"].get("collisionCount").filter(|v| !v.is_null()) {
            status.insert("collisionCount".into(), c.clone());
        }
        if let Some(c) = self.d["status"].get("conditions").filter(|v| !v.is_null()) {
            status.insert("conditions".into(), c.clone());
        }
        let now = self.now();
        if available >= replicas(&self.d) - max_unavailable(&self.d) {
            set_condition(
                &mut status,
                &now,
                "Available",
                "True",
                "MinimumReplicasAvailable",
                "Deployment has minimum availability.",
            );
        } else {
            set_condition(
                &mut status,
                &now,
                "Available",
                "False",
                "MinimumReplicasUnavailable",
                "Deployment does not have minimum availability.",
            );
        }
        status
    }

    fn write_status_if_changed(&mut self, status: Map<String, Value>) {
        let status = Value::Object(status);
        if self.d["status"] == status {
            return;
        }
        self.d["status"] = status;
        self.update_status();
    }

    /// The status without touching Progressing (scaling, deletion).
    pub(super) fn sync_status(&mut self, new: Option<Value>, old: Vec<Value>) {
        let status = self.calculate_status(new.as_ref(), &old);
        self.write_status_if_changed(status);
    }

    /// The status with Progressing kept as the rollout goes.
    pub(super) fn sync_rollout_status(&mut self, new: Option<Value>, old: Vec<Value>) {
        let mut status = self.calculate_status(new.as_ref(), &old);
        let deadline = progress_deadline(&self.d).is_some();
        if !deadline {
            remove_condition(&mut status, "Progressing");
        }
        let current = condition(&self.d["status"], "Progressing").cloned();
        let done = int(&Value::Object(status.clone()), "/replicas")
            == int(&Value::Object(status.clone()), "/updatedReplicas")
            && current.as_ref().is_some_and(|c| c["reason"] == "NewReplicaSetAvailable");
        if deadline && !done {
            let now = self.now();
            let what = match &new {
                Some(rs) => format!("ReplicaSet {:?}", meta_str(rs, "name")),
                None => format!("Deployment {:?}", meta_str(&self.d, "name")),
            };
            let st = Value::Object(status.clone());
            if self.complete(&st) {
                let message = format!("{what} has successfully progressed.");
                set_condition(&mut status, &now, "Progressing", "True", "NewReplicaSetAvailable", &message);
            } else if self.progressing(&st) {
                let message = format!("{what} is progressing.");
                let kept = current.as_ref().filter(|c| c["status"] == "True").map(|c| c["lastTransitionTime"].clone());
                remove_condition(&mut status, "Progressing");
                set_condition(&mut status, &now, "Progressing", "True", "ReplicaSetUpdated", &message);
                if let (Some(t), Some(Value::Array(cs))) = (kept, status.get_mut("conditions")) {
                    if let Some(c) = cs.iter_mut().find(|c| c["type"] == "Progressing") {
                        c["lastTransitionTime"] = t;
                    }
                }
            } else if self.timed_out(&st) {
                let message = format!("{what} has timed out progressing.");
                set_condition(&mut status, &now, "Progressing", "False", "ProgressDeadlineExceeded", &message);
            }
        }
        // A ReplicaSet's failure to make pods (the new one's first) shows
        // as the deployment's ReplicaFailure, dated as the ReplicaSet's.
        let failed = new.iter().chain(&old).find_map(|rs| {
            rs.pointer("/status/conditions")?
                .as_array()?
                .iter()
                .find(|c| c["type"] == "ReplicaFailure" && c["status"] == "True")
                .cloned()
        });
        match failed {
            Some(c) => {
                let at = c["lastTransitionTime"].as_str().unwrap_or("").to_string();
                let (reason, message) = (c["reason"].as_str().unwrap_or(""), c["message"].as_str().unwrap_or(""));
                set_condition(&mut status, &at, "ReplicaFailure", "True", reason, message);
            }
            None => remove_condition(&mut status, "ReplicaFailure"),
        }
        self.write_status_if_changed(status);
    }

    /// Whether the rollout has gone `progressDeadlineSeconds` without
    /// progress since its Progressing condition was last updated
    /// (upstream's `DeploymentTimedOut`; once timed out it stays so).
    fn timed_out(&self, status: &Value) -> bool {
        let (Some(deadline), Some(c)) = (progress_deadline(&self.d), condition(status, "Progressing")) else {
            return false;
        };
        match c["reason"].as_str() {
            Some("NewReplicaSetAvailable") => false,
            Some("ProgressDeadlineExceeded") => true,
            _ => c["lastUpdateTime"]
                .as_str()
                .and_then(parse_rfc3339)
                .is_some_and(|from| from + deadline * 1000 < self.client.now_millis()),
        }
    }

    /// Whether the new status shows progress over the stored one.
    fn progressing(&self, new: &Value) -> bool {
        let old = &self.d["status"];
        let old_olds = int(old, "/replicas") - int(old, "/updatedReplicas");
        let new_olds = int(new, "/replicas") - int(new, "/updatedReplicas");
        int(new, "/updatedReplicas") > int(old, "/updatedReplicas")
            || new_olds < old_olds
            || int(new, "/readyReplicas") > int(old, "/readyReplicas")
            || int(new, "/availableReplicas") > int(old, "/availableReplicas")
    }
}
