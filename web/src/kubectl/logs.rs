//! `logs (POD | TYPE/NAME) [-c CONTAINER] [--tail=N]`, as kubectl 1.33
//! reads them: a pod read by name; any other object read, its pods
//! listed by its selector (kubectl's `SelectorsForObject`) and the one
//! best for logs taken (its `ByLogging` order), with `Found N pods, using
//! pod/NAME` when there was a choice.

use kubesim::sort::Order;

use super::imperative::{container_names, namespace, read};
use super::*;

pub(super) fn logs(s: &mut Session, d: &Discovery, cmd: &Command, out: &mut Outcome) {
    let typed = match cmd.args.as_slice() {
        [n] => n.as_str(),
        [] => return out.error("error: expected 'logs [-f] [-p] (POD | TYPE/NAME) [-c CONTAINER]'.\nPOD or TYPE/NAME is a required argument for the logs command"),
        more => return out.error(format!("error: unexpected arguments: {}", more[1..].join(" "))),
    };
    let ns = namespace(cmd);
    let pod = match typed.split_once('/') {
        None => read(s, &format!("/api/v1/namespaces/{ns}/pods/{typed}"), out),
        Some((kind, name)) => {
            let Some(r) = resolve(d, kind, out) else { return };
            match r.kind.as_str() {
                "Pod" => read(s, &r.item(Some(&ns), name), out),
                _ => {
                    let Some(obj) = read(s, &r.item(Some(&ns), name), out) else { return };
                    first_pod(s, &r, &obj, &ns, out)
                }
            }
        }
    };
    if let Some(pod) = pod {
        pod_log(s, cmd, &pod, out);
    }
}

/// The pod kubectl takes the logs of for a workload or a Service: its
/// pods listed by its selector, the best for logs first.
fn first_pod(s: &mut Session, r: &ApiResource, obj: &Value, ns: &str, out: &mut Outcome) -> Option<Value> {
    let selector = match r.kind.as_str() {
        "Deployment" | "ReplicaSet" | "StatefulSet" | "DaemonSet" | "Job" => {
            label_selector(obj.pointer("/spec/selector").unwrap_or(&Value::Null))
        }
        "ReplicationController" => equalities(obj.pointer("/spec/selector")),
        "Service" => match obj.pointer("/spec/selector").and_then(Value::as_object).filter(|m| !m.is_empty()) {
            Some(_) => equalities(obj.pointer("/spec/selector")),
            None => {
                let name = obj.pointer("/metadata/name").and_then(Value::as_str).unwrap_or("");
                out.error(format!(
                    "error: cannot get the logs from *v1.Service: invalid service '{name}': Service is defined without a selector"
                ));
                return None;
            }
        },
        _ => {
            let t = go_type(r);
            out.error(format!("error: cannot get the logs from {t}: selector for {t} not implemented"));
            return None;
        }
    };
    let query = build_query(&[("labelSelector".to_string(), selector)]);
    let list = read(s, &format!("/api/v1/namespaces/{ns}/pods?{query}"), out)?;
    let mut pods: Vec<Value> = list.get("items").and_then(Value::as_array).cloned().unwrap_or_default();
    if pods.is_empty() {
        // kubectl watches for a pod until --pod-running-timeout (20 s);
        // the page answers at once with what it then says.
        out.error("error: timed out waiting for the condition");
        return None;
    }
    pods.order_by(by_logging);
    if pods.len() > 1 {
        let name = pods[0].pointer("/metadata/name").and_then(Value::as_str).unwrap_or("");
        out.line(format!("Found {} pods, using pod/{name}", pods.len()));
    }
    Some(pods.swap_remove(0))
}

/// How Go's `%T` names the object kubectl decoded: `*v1.ConfigMap` for a
/// built-in kind (its package is its version), else unstructured. Built
/// in: a group without a dot or under `k8s.io`, the suffix Kubernetes
/// keeps (a custom resource there, such as the Gateway API's, would be
/// misnamed).
fn go_type(r: &ApiResource) -> String {
    let builtin = !r.group.contains('.') || r.group.ends_with(".k8s.io");
    if builtin {
        format!("*{}.{}", r.version, r.kind)
    } else {
        "*unstructured.Unstructured".into()
    }
}

/// A `matchLabels`/`matchExpressions` selector as `LabelSelectorAsSelector`
/// prints it (empty: everything).
fn label_selector(sel: &Value) -> String {
    match describe::selector_string(sel).as_str() {
        "<none>" => String::new(),
        s => s.to_string(),
    }
}

/// A map of labels as `SelectorFromSet` prints it: `k=v`, sorted by key.
fn equalities(set: Option<&Value>) -> String {
    let mut pairs: Vec<String> = set
        .and_then(Value::as_object)
        .map(|m| m.iter().map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or(""))).collect())
        .unwrap_or_default();
    pairs.order();
    pairs.join(",")
}

/// kubectl's `ByLogging` order (best first): assigned to a node, then
/// by phase (Running — and any phase it does not rank —, Unknown,
/// Pending), ready, ready longest, most restarts of any container (a
/// crashing pod's log is the one wanted), oldest. Ties keep the list's order, as Go's sort of a short list does.
fn by_logging(a: &Value, b: &Value) -> std::cmp::Ordering {
    let text = |p: &Value, ptr: &str| p.pointer(ptr).and_then(Value::as_str).unwrap_or("").to_string();
    let assigned = |p: &Value| !text(p, "/spec/nodeName").is_empty();
    let phase = |p: &Value| match text(p, "/status/phase").as_str() {
        "Unknown" => 1,
        "Pending" => 2,
        _ => 0,
    };
    let ready_since = |p: &Value| {
        p.pointer("/status/conditions")
            .and_then(Value::as_array)
            .and_then(|c| c.iter().find(|c| c["type"] == "Ready" && c["status"] == "True"))
            .map(|c| c["lastTransitionTime"].as_str().and_then(parse_rfc3339))
    };
    let restarts = |p: &Value| {
        p.pointer("/status/containerStatuses")
            .and_then(Value::as_array)
            .map_or(0, |s| s.iter().filter_map(|s| s["restartCount"].as_i64()).max().unwrap_or(0))
    };
    let created = |p: &Value| parse_rfc3339(&text(p, "/metadata/creationTimestamp"));
    // (A time that is not there sorts last, as kubectl's `afterOrZero`.)
    let earlier_first = |x: Option<i64>, y: Option<i64>| match (x, y) {
        (Some(x), Some(y)) => x.cmp(&y),
        (None, None) => std::cmp::Ordering::Equal,
        (None, _) => std::cmp::Ordering::Greater,
        (_, None) => std::cmp::Ordering::Less,
    };
    assigned(b)
        .cmp(&assigned(a))
        .then_with(|| phase(a).cmp(&phase(b)))
        .then_with(|| ready_since(b).is_some().cmp(&ready_since(a).is_some()))
        .then_with(|| match (ready_since(a), ready_since(b)) {
            (Some(x), Some(y)) => earlier_first(x, y),
            _ => std::cmp::Ordering::Equal,
        })
        .then_with(|| restarts(b).cmp(&restarts(a)))
        .then_with(|| earlier_first(created(a), created(b)))
}

/// A pod's log: the container asked for, else the one its
/// `kubectl.kubernetes.io/default-container` annotation names, else its
/// first (saying so when it has more).
fn pod_log(s: &mut Session, cmd: &Command, pod: &Value, out: &mut Outcome) {
    let name = pod.pointer("/metadata/name").and_then(Value::as_str).unwrap_or("").to_string();
    let ns = pod.pointer("/metadata/namespace").and_then(Value::as_str).unwrap_or("default").to_string();
    let names = container_names(pod.get("spec"));
    let container = match &cmd.container {
        Some(c) => c.clone(),
        None => {
            let default = pod
                .pointer("/metadata/annotations/kubectl.kubernetes.io~1default-container")
                .and_then(Value::as_str)
                .map(str::to_string);
            let Some(first) = default.or_else(|| names.first().cloned()) else {
                return out.error(format!("error: pod {name} has no containers"));
            };
            if names.len() > 1 {
                out.line(format!("Defaulted container \"{first}\" out of: {}", names.join(", ")));
            }
            first
        }
    };
    let mut query = vec![("container".to_string(), container)];
    if let Some(t) = cmd.tail {
        query.push(("tailLines".into(), t.to_string()));
    }
    let path = format!("/api/v1/namespaces/{ns}/pods/{name}/log?{}", build_query(&query));
    let e = send(s, "GET", &path, None, None, "application/json, */*");
    if e.response.status == 200 {
        out.text.push_str(&String::from_utf8_lossy(&e.response.body));
    } else {
        out.error(server_error(&e));
    }
}
