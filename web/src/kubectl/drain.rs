//! `drain NODE…` as kubectl 1.33 drains: each node read, then all
//! cordoned (`cordoned`, `already cordoned`), then per node the pods bound
//! to it listed (`spec.nodeName`, 500 at a time) and passed through
//! kubectl's filters in its order — DaemonSet-managed pods (their
//! DaemonSet read; refused unless `--ignore-daemonsets`, then left with a
//! warning), mirror pods skipped, pods with `emptyDir` volumes (refused
//! unless `--delete-emptydir-data`), pods no controller owns (refused
//! unless `--force`, then a warning); finished pods pass. A refusal stops
//! that node with kubectl's messages. The rest are evicted through
//! `pods/eviction` (discovery of `/api/v1` first, as kubectl checks the
//! subresource), or deleted with `--disable-eviction`, and each that is
//! gone is `evicted` (`deleted`); the node is `drained`. `--dry-run=client`
//! lists what it would evict; `--dry-run=server` sends `dryRun: [All]`.
//!
//! kubectl then waits until every pod is gone, retrying every 5 s an
//! eviction a disruption budget refused (429). The page cannot hold the
//! command bar that long: it prints what kubectl printed up to then and
//! says so; running drain again goes on.

use super::*;

/// kubectl's filter messages (the unmanaged one says "cannot delete"
/// twice in 1.33's output, as kubectl's constant already carries it).
const DAEMON_SET_FATAL: &str = "DaemonSet-managed Pods (use --ignore-daemonsets to ignore)";
const DAEMON_SET_WARNING: &str = "ignoring DaemonSet-managed Pods";
const LOCAL_STORAGE_FATAL: &str = "Pods with local storage (use --delete-emptydir-data to override)";
const LOCAL_STORAGE_WARNING: &str = "deleting Pods with local storage";
const UNMANAGED_FATAL: &str = "cannot delete Pods that declare no controller (use --force to override)";
const UNMANAGED_WARNING: &str = "deleting Pods that declare no controller";

/// What a filter says about a pod: whether it goes, and why not or with
/// what warning.
enum Verdict {
    Okay,
    Skip,
    Warn(bool, String),
    Refuse(String),
}

impl Verdict {
    fn goes(&self) -> bool {
        matches!(self, Verdict::Okay | Verdict::Warn(true, _))
    }
}

pub(super) fn drain(s: &mut Session, cmd: &Command, out: &mut Outcome) {
    let o = &cmd.drain;
    let mut nodes = Vec::new();
    for name in &cmd.names {
        let e = send(s, "GET", &format!("/api/v1/nodes/{name}"), None, None, "application/json");
        if e.response.status != 200 {
            return out.error(server_error(&e));
        }
        nodes.push((name.clone(), body_json(&e.response)));
    }
    let suffix = if o.client_dry_run {
        " (dry run)"
    } else if cmd.server_dry_run {
        " (server dry run)"
    } else {
        ""
    };
    for (name, node) in &nodes {
        if node["spec"]["unschedulable"] == true {
            out.line(format!("node/{name} already cordoned{suffix}"));
            continue;
        }
        if !o.client_dry_run {
            let path = dry(cmd, format!("/api/v1/nodes/{name}"));
            let patch = json!({"spec": {"unschedulable": true}});
            let e = send(
                s,
                "PATCH",
                &path,
                Some("application/strategic-merge-patch+json"),
                Some(&patch),
                "application/json",
            );
            if e.response.status != 200 {
                out.error(format!("error: unable to cordon node {name:?}: {}", message_of(&e)));
                continue;
            }
        }
        out.line(format!("node/{name} cordoned{suffix}"));
    }
    let mut fatal: Vec<String> = Vec::new();
    let mut remaining: Vec<&str> = Vec::new();
    let mut waits = false;
    for (name, _) in &nodes {
        let result = match pods_to_delete(s, cmd, name) {
            Err(errors) => Err(errors),
            Ok((pods, warnings)) => {
                if !warnings.is_empty() {
                    out.line(format!("Warning: {warnings}"));
                }
                if o.client_dry_run {
                    for p in &pods {
                        out.line(format!("evicting pod {}/{} (dry run)", meta(p, "namespace"), meta(p, "name")));
                    }
                    Ok(true)
                } else {
                    remove(s, cmd, &pods, out).inspect_err(|errors| pending_pods(s, cmd, name, errors, out))
                }
            }
        };
        match result {
            Ok(true) => out.line(format!("node/{name} drained{suffix}")),
            Ok(false) => waits = true,
            Err(errors) => {
                out.line(format!(
                    "error: unable to drain node {name:?} due to error: {}, continuing command...",
                    aggregate(&errors)
                ));
                fatal.extend(errors);
                remaining.push(name);
            }
        }
    }
    if !remaining.is_empty() {
        out.line("There are pending nodes to be drained:");
        for name in remaining {
            out.line(format!(" {name}"));
        }
    }
    for e in &fatal {
        out.error(e);
    }
    if waits {
        out.differs = Some(differs::DRAIN_WAITS);
    }
}

fn meta<'a>(pod: &'a Value, field: &str) -> &'a str {
    pod["metadata"][field].as_str().unwrap_or("")
}

/// A failed request's message, as client-go's error prints it.
fn message_of(e: &LogEntry) -> String {
    let v = body_json(&e.response);
    v["message"].as_str().map_or_else(|| format!("the server answered {}", e.response.status), str::to_string)
}

/// One error as it is, several as Go's aggregate prints them.
fn aggregate(errors: &[String]) -> String {
    match errors {
        [one] => one.clone(),
        many => format!("[{}]", many.join(", ")),
    }
}

/// The pods bound to the node, every page of them.
fn pods_on(s: &mut Session, cmd: &Command, node: &str) -> Result<Vec<Value>, Vec<String>> {
    let field = format!("spec.nodeName={node}");
    let label = cmd.drain.pod_selector.as_deref().unwrap_or("");
    list_all(s, "/api/v1/pods", (&field, label), cmd.chunk_size).map_err(|e| vec![message_of(&e)])
}

/// kubectl's `GetPodsForDeletion`: the pods that go and the warnings, or
/// the refusals.
fn pods_to_delete(s: &mut Session, cmd: &Command, node: &str) -> Result<(Vec<Value>, String), Vec<String>> {
    let pods = pods_on(s, cmd, node)?;
    let mut verdicts = Vec::new();
    for pod in pods {
        let mut verdict = Verdict::Okay;
        for filter in [daemon_set_filter, mirror_filter, local_storage_filter, unreplicated_filter] {
            verdict = filter(s, cmd, &pod);
            if !verdict.goes() {
                break;
            }
        }
        verdicts.push((pod, verdict));
    }
    let name = |p: &Value| format!("{}/{}", meta(p, "namespace"), meta(p, "name"));
    let refusals = grouped(verdicts.iter().filter_map(|(p, v)| match v {
        Verdict::Refuse(m) => Some((m.as_str(), name(p))),
        _ => None,
    }));
    if !refusals.is_empty() {
        return Err(refusals.into_iter().map(|(m, pods)| format!("cannot delete {m}: {}", pods.join(", "))).collect());
    }
    let warnings = grouped(verdicts.iter().filter_map(|(p, v)| match v {
        Verdict::Warn(_, m) => Some((m.as_str(), name(p))),
        _ => None,
    }));
    let warnings: Vec<String> = warnings.into_iter().map(|(m, pods)| format!("{m}: {}", pods.join(", "))).collect();
    let going = verdicts.into_iter().filter(|(_, v)| v.goes()).map(|(p, _)| p).collect();
    Ok((going, warnings.join("; ")))
}

/// (message, pod) pairs grouped by message, in the order first seen.
fn grouped<'a>(pairs: impl Iterator<Item = (&'a str, String)>) -> Vec<(&'a str, Vec<String>)> {
    let mut groups: Vec<(&str, Vec<String>)> = Vec::new();
    for (m, pod) in pairs {
        match groups.iter_mut().find(|(g, _)| *g == m) {
            Some((_, pods)) => pods.push(pod),
            None => groups.push((m, vec![pod])),
        }
    }
    groups
}

fn finished(pod: &Value) -> bool {
    matches!(pod["status"]["phase"].as_str(), Some("Succeeded" | "Failed"))
}

fn controller_of(pod: &Value) -> Option<&Value> {
    pod["metadata"]["ownerReferences"].as_array()?.iter().find(|r| r["controller"] == true)
}

fn daemon_set_filter(s: &mut Session, cmd: &Command, pod: &Value) -> Verdict {
    let Some(owner) = controller_of(pod) else { return Verdict::Okay };
    if owner["kind"] != "DaemonSet" || owner["apiVersion"] != "apps/v1" || finished(pod) {
        return Verdict::Okay;
    }
    let path = format!(
        "/apis/apps/v1/namespaces/{}/daemonsets/{}",
        meta(pod, "namespace"),
        owner["name"].as_str().unwrap_or("")
    );
    let e = send(s, "GET", &path, None, None, "application/json");
    match e.response.status {
        200 if cmd.drain.ignore_daemonsets => Verdict::Warn(false, DAEMON_SET_WARNING.into()),
        200 => Verdict::Refuse(DAEMON_SET_FATAL.into()),
        404 if cmd.force => Verdict::Warn(true, message_of(&e)),
        _ => Verdict::Refuse(message_of(&e)),
    }
}

fn mirror_filter(_: &mut Session, _: &Command, pod: &Value) -> Verdict {
    if pod["metadata"]["annotations"].get("kubernetes.io/config.mirror").is_some() {
        Verdict::Skip
    } else {
        Verdict::Okay
    }
}

fn local_storage_filter(_: &mut Session, cmd: &Command, pod: &Value) -> Verdict {
    let local = pod["spec"]["volumes"].as_array().is_some_and(|vs| vs.iter().any(|v| v.get("emptyDir").is_some()));
    if !local || finished(pod) {
        Verdict::Okay
    } else if cmd.drain.delete_emptydir_data {
        Verdict::Warn(true, LOCAL_STORAGE_WARNING.into())
    } else {
        Verdict::Refuse(LOCAL_STORAGE_FATAL.into())
    }
}

fn unreplicated_filter(_: &mut Session, cmd: &Command, pod: &Value) -> Verdict {
    if finished(pod) || controller_of(pod).is_some() {
        Verdict::Okay
    } else if cmd.force {
        Verdict::Warn(true, UNMANAGED_WARNING.into())
    } else {
        Verdict::Refuse(UNMANAGED_FATAL.into())
    }
}

/// The delete options kubectl sends with each eviction or delete.
fn delete_options(cmd: &Command) -> Value {
    let mut options = json!({});
    if let Some(g) = cmd.drain.grace_period.filter(|g| *g >= 0) {
        options["gracePeriodSeconds"] = json!(g);
    }
    if cmd.server_dry_run {
        options["dryRun"] = json!(["All"]);
    }
    options
}

/// Evicts (or deletes) the pods and looks once whether they are gone:
/// Ok(true) when all are, Ok(false) when kubectl would still be waiting,
/// or the errors that stop the node.
fn remove(s: &mut Session, cmd: &Command, pods: &[Value], out: &mut Outcome) -> Result<bool, Vec<String>> {
    if pods.is_empty() {
        return Ok(true);
    }
    let evict = !cmd.drain.disable_eviction && {
        let e = send(s, "GET", "/api/v1", None, None, "application/json");
        body_json(&e.response)["resources"]
            .as_array()
            .is_some_and(|rs| rs.iter().any(|r| r["name"] == "pods/eviction" && r["kind"] == "Eviction"))
    };
    let mut errors = Vec::new();
    let mut sent = Vec::new();
    let mut waits = false;
    if evict {
        // kubectl evicts each pod in its own goroutine; each says so first.
        let dry_suffix = if cmd.server_dry_run { " (server dry run)" } else { "" };
        for pod in pods {
            out.line(format!("evicting pod {}/{}{dry_suffix}", meta(pod, "namespace"), meta(pod, "name")));
        }
    }
    for pod in pods {
        let (ns, name) = (meta(pod, "namespace"), meta(pod, "name"));
        let path = format!("/api/v1/namespaces/{ns}/pods/{name}");
        if evict {
            let body = json!({"kind": "Eviction", "apiVersion": "policy/v1",
                "metadata": {"name": name, "namespace": ns, "creationTimestamp": null},
                "deleteOptions": delete_options(cmd)});
            let e =
                send(s, "POST", &format!("{path}/eviction"), Some("application/json"), Some(&body), "application/json");
            match e.response.status {
                200 | 201 => sent.push(pod),
                404 => {}
                429 => {
                    out.line(format!(
                        "error when evicting pods/{name:?} -n {ns:?} (will retry after 5s): {}",
                        message_of(&e)
                    ));
                    waits = true;
                }
                _ => errors.push(format!("error when evicting pods/{name:?} -n {ns:?}: {}", message_of(&e))),
            }
        } else {
            let mut options = delete_options(cmd);
            options["kind"] = json!("DeleteOptions");
            options["apiVersion"] = json!("v1");
            let e = send(s, "DELETE", &path, Some("application/json"), Some(&options), "application/json");
            if !matches!(e.response.status, 200 | 202 | 404) {
                return Err(vec![message_of(&e)]);
            }
            sent.push(pod);
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    if cmd.server_dry_run {
        return Ok(!waits);
    }
    let done = if evict { "evicted" } else { "deleted" };
    for pod in sent {
        let (ns, name) = (meta(pod, "namespace"), meta(pod, "name"));
        let e = send(s, "GET", &format!("/api/v1/namespaces/{ns}/pods/{name}"), None, None, "application/json");
        let gone = e.response.status == 404
            || (e.response.status == 200 && body_json(&e.response)["metadata"]["uid"] != pod["metadata"]["uid"]);
        if gone {
            out.line(format!("pod/{name} {done}"));
        } else {
            waits = true;
        }
    }
    Ok(!waits)
}

/// After a failed eviction, kubectl lists what is still to go.
fn pending_pods(s: &mut Session, cmd: &Command, node: &str, errors: &[String], out: &mut Outcome) {
    if let Ok((pods, _)) = pods_to_delete(s, cmd, node) {
        if !pods.is_empty() {
            out.line(format!("There are pending pods in node {node:?} when an error occurred: {}", aggregate(errors)));
            for p in &pods {
                out.line(format!("pod/{}", meta(p, "name")));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{body_json_request, live, requests_since, session};
    use super::*;

    /// The node a pod runs on, and the other pods' names there.
    fn node_of(s: &mut Session, pod: &str) -> String {
        live(s, &format!("/api/v1/namespaces/default/pods/{pod}"))["spec"]["nodeName"].as_str().unwrap().to_string()
    }

    fn pods_on(s: &mut Session, node: &str) -> Vec<String> {
        let list = live(s, &format!("/api/v1/pods?fieldSelector=spec.nodeName%3D{node}"));
        list["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| format!("{}/{}", meta(p, "namespace"), meta(p, "name")))
            .collect()
    }

    #[test]
    fn drain_cordons_then_refuses_a_pod_no_controller_owns_unless_forced() {
        let mut s = session();
        let node = node_of(&mut s, "counter");
        let from = s.log.len();
        let out = run(&mut s, &format!("drain {node}"), "");
        let refusal =
            "cannot delete cannot delete Pods that declare no controller (use --force to override): default/counter";
        assert_eq!(
            out.text,
            format!(
                "node/{node} cordoned\nerror: unable to drain node \"{node}\" due to error: {refusal}, continuing command...\n\
                 There are pending nodes to be drained:\n {node}\n{refusal}\n"
            )
        );
        assert!(out.failed);
        assert_eq!(
            requests_since(&s, from),
            [
                format!("GET /api/v1/nodes/{node} 200"),
                format!("PATCH /api/v1/nodes/{node} 200"),
                format!("GET /api/v1/pods?fieldSelector=spec.nodeName%3D{node}&limit=500 200"),
            ]
        );
        assert_eq!(live(&mut s, &format!("/api/v1/nodes/{node}"))["spec"]["unschedulable"], true);

        // Forced: every pod evicted; those that stop at once are gone, the
        // counter's shell loop takes its grace period, so kubectl would wait.
        let there = pods_on(&mut s, &node);
        let from = s.log.len();
        let out = run(&mut s, &format!("drain {node} --force"), "");
        let mut want = format!(
            "node/{node} already cordoned\nWarning: deleting Pods that declare no controller: default/counter\n"
        );
        for p in &there {
            want.push_str(&format!("evicting pod {p}\n"));
        }
        for p in there.iter().filter(|p| *p != "default/counter") {
            want.push_str(&format!("pod/{} evicted\n", p.split('/').nth(1).unwrap()));
        }
        assert_eq!(out.text, want);
        assert!(!out.failed);
        assert_eq!(out.differs, Some(differs::DRAIN_WAITS));
        let sent = requests_since(&s, from);
        assert!(sent.contains(&"GET /api/v1 200".to_string()), "{sent:?}");
        assert!(sent.contains(&"POST /api/v1/namespaces/default/pods/counter/eviction 201".to_string()), "{sent:?}");
        let eviction = s.log[from..].iter().find(|e| e.request.path.ends_with("/counter/eviction")).unwrap();
        assert_eq!(
            body_json_request(eviction),
            json!({"kind": "Eviction", "apiVersion": "policy/v1",
                "metadata": {"name": "counter", "namespace": "default", "creationTimestamp": null},
                "deleteOptions": {}})
        );
        assert!(!live(&mut s, "/api/v1/namespaces/default/pods/counter")["metadata"]["deletionTimestamp"].is_null());
    }

    #[test]
    fn a_disruption_budget_holds_the_drain_and_daemon_pods_need_a_flag() {
        let mut s = session();
        let pdb = "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: hello}\n\
                   spec: {minAvailable: 2, selector: {matchLabels: {app: hello}}}\n";
        run(&mut s, "apply -f -", pdb);
        let hello = pods_on(&mut s, "worker-1")
            .into_iter()
            .chain(pods_on(&mut s, "worker-2"))
            .find(|p| p.starts_with("default/hello"));
        let hello = hello.unwrap();
        let name = hello.split('/').nth(1).unwrap().to_string();
        let node = node_of(&mut s, &name);
        let out = run(&mut s, &format!("drain {node} --force --ignore-daemonsets"), "");
        let retry = format!(
            "error when evicting pods/\"{name}\" -n \"default\" (will retry after 5s): Cannot evict pod as it would violate the pod's disruption budget.\n"
        );
        assert!(out.text.contains(&retry), "{}", out.text);
        assert!(!out.text.contains("drained"), "{}", out.text);
        assert_eq!(out.differs, Some(differs::DRAIN_WAITS));
        assert!(
            live(&mut s, &format!("/api/v1/namespaces/default/pods/{name}"))["metadata"]["deletionTimestamp"].is_null()
        );

        // A DaemonSet's pod on every node: refused without the flag, left with it.
        let mut s = session();
        let ds = "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: agent}\nspec:\n  selector: {matchLabels: {app: agent}}\n  \
                  template:\n    metadata: {labels: {app: agent}}\n    spec: {containers: [{name: a, image: busybox, command: [sleep, \"3600\"]}]}\n";
        run(&mut s, "apply -f -", ds);
        let counter = node_of(&mut s, "counter");
        let node = if counter == "worker-1" { "worker-2" } else { "worker-1" };
        let agent = pods_on(&mut s, node).into_iter().find(|p| p.starts_with("default/agent-")).unwrap();
        let out = run(&mut s, &format!("drain {node}"), "");
        assert!(
            out.text.contains(&format!(
                "cannot delete DaemonSet-managed Pods (use --ignore-daemonsets to ignore): {agent}, continuing"
            )),
            "{}",
            out.text
        );
        let from = s.log.len();
        let out = run(&mut s, &format!("drain {node} --ignore-daemonsets --dry-run=client"), "");
        assert!(
            out.text.starts_with(&format!(
                "node/{node} already cordoned (dry run)\nWarning: ignoring DaemonSet-managed Pods: {agent}\n"
            )),
            "{}",
            out.text
        );
        assert!(out.text.ends_with(&format!("node/{node} drained (dry run)\n")), "{}", out.text);
        assert!(!out.text.contains(&format!("evicting pod {agent}")));
        assert!(requests_since(&s, from).iter().all(|r| r.starts_with("GET ")));
        let out = run(&mut s, &format!("drain {node} --ignore-daemonsets"), "");
        assert!(out.text.ends_with(&format!("node/{node} drained\n")), "{}", out.text);
        assert_eq!(pods_on(&mut s, node), [agent]);
        assert!(parse("drain").unwrap_err().starts_with("error: USAGE: drain NODE [flags]"));
        assert!(parse("drain -l role=db").unwrap_err().contains("not simulated"));
    }
}
