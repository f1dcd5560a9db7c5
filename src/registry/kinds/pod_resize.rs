//! What a write of `pods/NAME/resize` may change (upstream's
//! `ValidatePodResize`, in-place pod resize, beta and on in 1.33): the cpu
//! and memory of its containers and sidecars, and their resize policies,
//! without removing a request or limit, changing the pod's QoS class, or
//! lowering (or adding) a memory limit the container would have to be
//! restarted for unless its policy says so. The rest of the spec was
//! taken from the stored pod before this runs (`store.rs`,
//! `with_resized_containers`); what its lists lined up against is checked
//! here.

use serde_json::Value;

use super::pod_update::{items, MIRROR};
use crate::api::pod::{qos_class, same_amounts};
use crate::api::quantity::milli_value;
use crate::api::FieldError;

pub(super) fn validate_resize(new: &Value, old: &Value) -> Vec<FieldError> {
    let (n, o) = (&new["spec"], &old["spec"]);
    if old["metadata"]["annotations"].get(MIRROR).is_some() {
        return vec![FieldError::forbidden("[]", "static pods cannot be resized")];
    }
    if o["os"]["name"] == "windows" {
        return vec![FieldError::forbidden("[]", "windows pods cannot be resized")];
    }
    let mut errs = Vec::new();
    // The class the pod was given (what its status says) against the
    // one its new resources make.
    let class = old["status"]["qosClass"].as_str().unwrap_or_else(|| qos_class(o));
    if class != qos_class(n) {
        let why = "Pod QOS Class may not change as a result of resizing";
        errs.push(FieldError::invalid("spec", new["status"]["qosClass"].as_str().unwrap_or(""), why));
    }
    // A kubelet that resizes reports its running containers' resources;
    // the first running container tells.
    let running = items(&old["status"], "containerStatuses").iter().find(|s| !s["state"]["running"].is_null());
    if running.is_some_and(|s| s.get("resources").is_none_or(Value::is_null)) {
        errs.push(FieldError::forbidden("spec", "Pod running on node without support for resize"));
    }
    let ordered = errs.len();
    for list in ["containers", "initContainers"] {
        let (now, was) = (items(n, list), items(o, list));
        if now.len() != was.len() {
            errs.push(FieldError::forbidden(
                &format!("spec.{list}"),
                &format!("{list} may not be added or removed on resize"),
            ));
            continue;
        }
        for (i, (c, w)) in now.iter().zip(was).enumerate() {
            if c["name"] != w["name"] {
                let why = format!("{list} may not be renamed or reordered on resize");
                errs.push(FieldError::forbidden(&format!("spec.{list}[{i}].name"), &why));
            }
        }
    }
    if errs.len() > ordered {
        return errs;
    }
    for (i, (c, w)) in items(n, "containers").iter().zip(items(o, "containers")).enumerate() {
        container_resize(c, w, &format!("spec.containers[{i}].resources"), &mut errs);
        if !same_amounts(&others(c), &others(w)) {
            errs.push(FieldError::forbidden("spec", "only cpu and memory resources are mutable"));
        }
    }
    for (i, (c, w)) in items(n, "initContainers").iter().zip(items(o, "initContainers")).enumerate() {
        if w["restartPolicy"] == "Always" {
            container_resize(c, w, &format!("spec.initContainers[{i}].resources"), &mut errs);
            if !same_amounts(&others(c), &others(w)) {
                errs.push(FieldError::forbidden(
                    "spec",
                    "only cpu and memory resources for sidecar containers are mutable",
                ));
            }
        } else if !same_amounts(&c["resources"], &w["resources"]) {
            errs.push(FieldError::forbidden("spec", "resources for non-sidecar init containers are immutable"));
        }
    }
    errs
}

/// Upstream's `validateContainerResize`: no request or limit removed, and
/// a memory limit neither lowered nor added unless the container's memory
/// policy restarts it.
fn container_resize(new: &Value, old: &Value, path: &str, errs: &mut Vec<FieldError>) {
    let (n, o) = (&new["resources"], &old["resources"]);
    for (kind, what) in [("requests", "resource requests"), ("limits", "resource limits")] {
        let now = n[kind].as_object();
        for name in o[kind].as_object().into_iter().flat_map(|m| m.keys()) {
            if now.is_none_or(|m| !m.contains_key(name)) {
                errs.push(FieldError::forbidden(&format!("{path}.{kind}"), &format!("{what} cannot be removed")));
            }
        }
    }
    let restarts = items(new, "resizePolicy")
        .iter()
        .any(|p| p["resourceName"] == "memory" && p["restartPolicy"] == "RestartContainer");
    if restarts {
        return;
    }
    let memory = |r: &Value| r["limits"]["memory"].as_str().and_then(milli_value);
    let why = match (memory(o), memory(n)) {
        (Some(was), Some(now)) if now < was => {
            "memory limits cannot be decreased unless resizePolicy is RestartContainer"
        }
        (None, Some(_)) => "memory limits cannot be added unless resizePolicy is RestartContainer",
        _ => return,
    };
    errs.push(FieldError::forbidden(&format!("{path}.limits[memory]"), why));
}

/// A container's requests and limits of resources other than cpu and
/// memory (compared as quantities with `same_amounts`).
fn others(c: &Value) -> Value {
    let mut out = serde_json::Map::new();
    for kind in ["requests", "limits"] {
        let Some(m) = c["resources"][kind].as_object() else { continue };
        let kept = m.iter().filter(|(k, _)| !matches!(k.as_str(), "cpu" | "memory"));
        out.insert(kind.into(), Value::Object(kept.map(|(k, v)| (k.clone(), v.clone())).collect()));
    }
    Value::Object(out)
}

/// Upstream's `validateResizePolicy`, for a container's `resizePolicy`
/// (on create and every update): each of cpu and memory once, with
/// `NotRequired` or `RestartContainer`, and only `NotRequired` in a pod
/// that is never restarted.
fn validate_resize_policy(c: &Value, at: &str, pod_restart: Option<&str>, errs: &mut Vec<FieldError>) {
    let path = format!("{at}.resizePolicy");
    let mut seen: Vec<&str> = Vec::new();
    for (i, p) in items(c, "resizePolicy").iter().enumerate() {
        let resource = p["resourceName"].as_str().unwrap_or("");
        if seen.contains(&resource) {
            errs.push(FieldError::duplicate(&format!("{path}[{i}]"), resource));
        }
        seen.push(resource);
        match resource {
            "cpu" | "memory" => {}
            "" => errs.push(FieldError::required(&path, "")),
            other => errs.push(FieldError::not_supported(&path, other, &["cpu", "memory"])),
        }
        let policy = p["restartPolicy"].as_str().unwrap_or("");
        match policy {
            "NotRequired" | "RestartContainer" => {}
            "" => errs.push(FieldError::required(&path, "")),
            other => errs.push(FieldError::not_supported(&path, other, &["NotRequired", "RestartContainer"])),
        }
        if pod_restart == Some("Never") && policy != "NotRequired" {
            errs.push(FieldError::invalid(&path, policy, "must be 'NotRequired' when `restartPolicy` is 'Never'"));
        }
    }
}

/// How Go's `%#v` prints an init container's resize policies (upstream
/// refuses them with the list as its value).
fn go_policies(c: &Value) -> String {
    let each: Vec<String> = items(c, "resizePolicy")
        .iter()
        .map(|p| {
            let field = |k: &str| p[k].as_str().unwrap_or("").to_string();
            format!(
                "core.ContainerResizePolicy{{ResourceName:{:?}, RestartPolicy:{:?}}}",
                field("resourceName"),
                field("restartPolicy")
            )
        })
        .collect();
    format!("[]core.ContainerResizePolicy{{{}}}", each.join(", "))
}

/// A container's resize policies at `at` (`list` the pod's list it is in):
/// a sidecar's and a container's validated, a plain init container's
/// refused.
pub(super) fn container_resize_policy(
    c: &Value,
    list: &str,
    at: &str,
    pod_restart: Option<&str>,
    errs: &mut Vec<FieldError>,
) {
    if list == "initContainers" && c["restartPolicy"] != "Always" {
        if !items(c, "resizePolicy").is_empty() {
            errs.push(FieldError::invalid_raw(
                &format!("{at}.resizePolicy"),
                &go_policies(c),
                "must not be set for init containers",
            ));
        }
        return;
    }
    validate_resize_policy(c, at, pod_restart, errs);
}
