//! A pod's init containers, as the kubelet runs them before its other
//! containers: one at a time in order, each to its end (its program's
//! lifetime from the output model, `server::logs::lifetime`), an exit 0
//! `Completed` and `ready`, a failure restarted after a back-off (10 s,
//! doubling) unless the pod's `restartPolicy` is `Never`, which fails the
//! pod. An init container with `restartPolicy: Always` (a sidecar) is
//! started and left running beside the rest. Meanwhile the pod is
//! `Pending`, `Initialized` False (`ContainersNotInitialized`, `containers
//! with incomplete status: [...]`), its containers waiting
//! `PodInitializing`, and kubectl prints `Init:0/2`, `Init:CrashLoopBackOff`,
//! `Init:Error` from those statuses.

use serde_json::{json, Value};

use super::{condition, runtime_ids, Exit, Kubelets, Told};
use crate::controllers::client::Client;
use crate::controllers::events::EventType;
use crate::controllers::informer::key_of;
use crate::controllers::object::{meta_str, path_of};

/// Where a pod's init containers stand after a pass.
pub(super) enum Init {
    /// All done: its containers may start.
    Done,
    /// One runs (or backs off): look again then, if ever.
    Waiting(Option<i64>),
    /// One failed under `restartPolicy: Never`: the pod failed.
    Failed,
}

/// A container status not started yet, as the kubelet reports one while
/// the pod initializes.
fn initializing(c: &Value) -> Value {
    json!({"name": c["name"], "state": {"waiting": {"reason": "PodInitializing"}}, "lastState": {},
        "ready": false, "restartCount": 0, "image": c["image"], "imageID": "", "started": false})
}

fn names<'a>(list: impl Iterator<Item = &'a Value>) -> String {
    list.filter_map(|s| s["name"].as_str()).collect::<Vec<_>>().join(" ")
}

impl Kubelets {
    /// Runs the pod's init containers as far as the simulated now allows
    /// and writes their statuses when they changed; `ip` is the sandbox's
    /// address (new, or None when it has one). Never inlined: no pod a
    /// server starts with has init containers.
    #[inline(never)]
    pub(super) fn initialize(&mut self, client: &mut Client<'_>, pod: &Value, ip: Option<&str>, host_ip: &str) -> Init {
        let now = client.now_millis();
        let at = client.now_rfc3339();
        let uid = meta_str(pod, "uid").to_string();
        let pod_ref = format!("{}_{}({uid})", meta_str(pod, "name"), meta_str(pod, "namespace"));
        // An init container is restarted on failure unless the pod never
        // restarts anything.
        let policy = if pod["spec"]["restartPolicy"] == "Never" { "Never" } else { "OnFailure" };
        let inits: Vec<Value> = pod["spec"]["initContainers"].as_array().cloned().unwrap_or_default();
        let earlier = pod["status"]["initContainerStatuses"].as_array().cloned().unwrap_or_default();
        let mut statuses: Vec<Value> = inits
            .iter()
            .map(|c| earlier.iter().find(|s| s["name"] == c["name"]).cloned().unwrap_or_else(|| initializing(c)))
            .collect();
        let mut events: Told = Vec::new();
        let mut outcome = Init::Done;
        let namespace = meta_str(pod, "namespace").to_string();
        // A script waiting for a name resolves it once a Service has it.
        let mut resolves = |c: &Value| {
            let (name, ns, every) = crate::server::logs::waits_to_resolve(c)?;
            let ns = ns.unwrap_or_else(|| namespace.clone());
            Some((client.get(&format!("/api/v1/namespaces/{ns}/services/{name}")).status == 200, every))
        };
        for (c, st) in inits.iter().zip(statuses.iter_mut()) {
            let waiting = if st["state"]["terminated"].is_object() { None } else { resolves(c) };
            match drive(c, st, policy, &pod_ref, &uid, now, &at, waiting, &mut events) {
                Init::Done => {}
                other => {
                    outcome = other;
                    break;
                }
            }
        }
        let done = matches!(outcome, Init::Done);
        let phase = if matches!(outcome, Init::Failed) { "Failed" } else { "Pending" };
        let apps: Vec<Value> = pod["spec"]["containers"].as_array().cloned().unwrap_or_default();
        let app_statuses: Vec<Value> = match pod["status"]["containerStatuses"].as_array() {
            Some(s) if !s.is_empty() => s.clone(),
            _ => apps.iter().map(initializing).collect(),
        };
        let incomplete = names(
            inits
                .iter()
                .zip(&statuses)
                .filter(|(c, s)| c["restartPolicy"] != "Always" && s["state"]["terminated"]["exitCode"] != 0)
                .map(|(_, s)| s),
        );
        let mut initialized = condition("Initialized", done, &at);
        if !done {
            initialized["reason"] = json!("ContainersNotInitialized");
            initialized["message"] = json!(format!("containers with incomplete status: [{incomplete}]"));
        }
        let not_ready = |t: &str| {
            let mut c = condition(t, false, &at);
            if phase == "Failed" {
                c["reason"] = json!("PodCompleted");
            } else {
                c["reason"] = json!("ContainersNotReady");
                c["message"] = json!(format!("containers with unready status: [{}]", names(app_statuses.iter())));
            }
            c
        };
        let mut conditions = vec![
            condition("PodReadyToStartContainers", true, &at),
            initialized,
            not_ready("Ready"),
            not_ready("ContainersReady"),
            condition("PodScheduled", true, &at),
        ];
        // Unchanged conditions keep their transition times.
        for c in conditions.iter_mut() {
            let old = pod["status"]["conditions"].as_array().and_then(|cs| cs.iter().find(|o| o["type"] == c["type"]));
            if let Some(o) = old.filter(|o| o["status"] == c["status"] && o["reason"] == c["reason"]) {
                *c = o.clone();
            }
        }
        let unchanged = statuses == earlier
            && ip.is_none()
            && pod["status"]["phase"] == phase
            && pod["status"]["conditions"].as_array() == Some(&conditions);
        if let Init::Waiting(Some(t)) = outcome {
            self.wakes.insert(key_of(pod), t);
        }
        if unchanged {
            return outcome;
        }
        let mut status = json!({"phase": phase, "conditions": conditions, "initContainerStatuses": statuses,
            "containerStatuses": app_statuses});
        if pod["status"]["startTime"].is_null() {
            status["startTime"] = json!(at);
        }
        if !host_ip.is_empty() {
            status["hostIP"] = json!(host_ip);
            status["hostIPs"] = json!([{"ip": host_ip}]);
        }
        if let Some(ip) = ip.filter(|ip| !ip.is_empty()) {
            status["podIP"] = json!(ip);
            status["podIPs"] = json!([{"ip": ip}]);
        }
        super::in_kubelet_order(pod, &mut status);
        let body = json!({"metadata": {"uid": uid}, "status": status});
        let path = format!("{}/status", path_of("v1", "pods", pod));
        if client.write("PATCH", &path, "application/strategic-merge-patch+json", &body).status != 200 {
            return Init::Waiting(None);
        }
        let node = pod["spec"]["nodeName"].as_str().unwrap_or("").to_string();
        let recorder = self.recorder(&node);
        for (name, t, reason, message) in events {
            let field = format!("spec.initContainers{{{name}}}");
            recorder.event(client, pod, ("v1", "Pod"), &field, t, reason, &message);
        }
        outcome
    }
}

/// Moves one init container on as far as `now` allows: started if it was
/// not, ended when its time has come, restarted when its back-off is over.
#[allow(clippy::too_many_arguments)]
fn drive(
    c: &Value,
    st: &mut Value,
    policy: &str,
    pod_ref: &str,
    uid: &str,
    now: i64,
    at: &str,
    resolving: Option<(bool, i64)>,
    events: &mut Told,
) -> Init {
    let name = c["name"].as_str().unwrap_or("").to_string();
    let sidecar = c["restartPolicy"] == "Always";
    let life = crate::server::logs::lifetime(c);
    // Each turn changes the state; a restart loop ends in a back-off.
    for _ in 0..4 {
        let restarts = st["restartCount"].as_i64().unwrap_or(0);
        let exit = Exit { at, now, policy, restarts, name: &name, pod_ref };
        // An init container started again (at once after its first end,
        // or after its back-off) is started, and ready only as a sidecar.
        let again = |st: &mut Value| {
            if st["state"]["running"].is_object() {
                st["started"] = json!(true);
                st["ready"] = json!(sidecar);
            }
        };
        if st["state"]["terminated"].is_object() {
            return match st["state"]["terminated"]["exitCode"].as_i64() {
                Some(0) => Init::Done,
                _ => Init::Failed,
            };
        }
        if st["state"]["waiting"]["reason"] == "CrashLoopBackOff" {
            match exit.restart(st, c, life, events) {
                Err(due) => return Init::Waiting(Some(due)),
                Ok(_) => {
                    again(st);
                    continue;
                }
            }
        }
        if let Some(started) = st["state"]["running"]["startedAt"].as_str() {
            if sidecar {
                return Init::Done;
            }
            let from = json!(started);
            let started = crate::clock::parse_rfc3339(started).unwrap_or(now);
            // A loop waiting for a name ends when it resolves, tried at
            // each of its sleeps.
            if let Some((resolved, every)) = resolving {
                if !resolved {
                    return Init::Waiting(Some(now + every - (now - started).rem_euclid(every)));
                }
                exit.ended(st, 0, &from, c, events);
                st["ready"] = json!(true);
                continue;
            }
            match life {
                None => return Init::Waiting(None),
                Some((ms, _)) if now < started + ms => return Init::Waiting(Some(started + ms)),
                Some((_, code)) => {
                    exit.ended(st, code, &from, c, events);
                    again(st);
                    if code == 0 {
                        st["ready"] = json!(true);
                    }
                    continue;
                }
            }
        }
        // Not started yet: made and started now.
        let image = c["image"].as_str().unwrap_or("");
        let (full, image_id, container_id) = runtime_ids(image, &format!("{uid}/{name}/{restarts}"));
        *st = json!({"name": name, "state": {"running": {"startedAt": at}}, "lastState": st["lastState"],
            "ready": sidecar, "restartCount": restarts, "image": full, "imageID": image_id,
            "containerID": container_id, "started": true});
        for (reason, message) in [
            ("Pulled", format!("Container image {image:?} already present on machine")),
            ("Created", format!("Created container: {name}")),
            ("Started", format!("Started container {name}")),
        ] {
            events.push((name.clone(), EventType::Normal, reason, message));
        }
    }
    Init::Waiting(None)
}
