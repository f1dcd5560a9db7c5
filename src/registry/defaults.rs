//! Defaulting: the fields kube-apiserver fills in when a client leaves them
//! out (its `SetDefaults_*` functions, and the admission plugins every
//! cluster runs that add fields to pods). Applied to create and update
//! bodies before validation, so what is stored and returned, and what
//! kubectl shows, has them.

use serde_json::{json, Map, Value};

use super::ResourceType;

/// Sets `key` to `value` when absent (or null).
fn default(m: &mut Map<String, Value>, key: &str, value: Value) {
    if m.get(key).is_none_or(Value::is_null) {
        m.insert(key.into(), value);
    }
}

fn object<'a>(m: &'a mut Map<String, Value>, key: &str) -> Option<&'a mut Map<String, Value>> {
    m.get_mut(key).and_then(Value::as_object_mut)
}

fn object_or_empty<'a>(m: &'a mut Map<String, Value>, key: &str) -> Option<&'a mut Map<String, Value>> {
    default(m, key, json!({}));
    object(m, key)
}

/// Applies the defaults of `rt`'s kind to `obj`.
pub fn apply(rt: &ResourceType, obj: &mut Value) {
    let Some(o) = obj.as_object_mut() else { return };
    match (rt.group, rt.kind) {
        ("", "Pod") => {
            if let Some(spec) = object(o, "spec") {
                pod_spec(spec);
                pod_admission(spec);
            }
        }
        ("", "Service") => {
            if let Some(spec) = object(o, "spec") {
                service_spec(spec);
            }
        }
        ("", "Secret") => default(o, "type", json!("Opaque")),
        ("", "PersistentVolumeClaim") => {
            if let Some(spec) = object(o, "spec") {
                default(spec, "volumeMode", json!("Filesystem"));
            }
        }
        ("apps", "Deployment") => {
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
                template(spec);
            }
        }
        ("apps", "ReplicaSet") => {
            if let Some(spec) = object(o, "spec") {
                default(spec, "replicas", json!(1));
                template(spec);
            }
        }
        ("apps", "StatefulSet") => {
            if let Some(spec) = object(o, "spec") {
                default(spec, "replicas", json!(1));
                default(spec, "podManagementPolicy", json!("OrderedReady"));
                if let Some(us) = object_or_empty(spec, "updateStrategy") {
                    default(us, "type", json!("RollingUpdate"));
                    if us.get("type").and_then(Value::as_str) == Some("RollingUpdate") {
                        if let Some(ru) = object_or_empty(us, "rollingUpdate") {
                            default(ru, "partition", json!(0));
                        }
                    }
                }
                default(spec, "revisionHistoryLimit", json!(10));
                if let Some(p) = object_or_empty(spec, "persistentVolumeClaimRetentionPolicy") {
                    default(p, "whenDeleted", json!("Retain"));
                    default(p, "whenScaled", json!("Retain"));
                }
                template(spec);
            }
        }
        ("apps", "DaemonSet") => {
            if let Some(spec) = object(o, "spec") {
                if let Some(us) = object_or_empty(spec, "updateStrategy") {
                    default(us, "type", json!("RollingUpdate"));
                    if us.get("type").and_then(Value::as_str) == Some("RollingUpdate") {
                        if let Some(ru) = object_or_empty(us, "rollingUpdate") {
                            default(ru, "maxUnavailable", json!(1));
                            default(ru, "maxSurge", json!(0));
                        }
                    }
                }
                default(spec, "revisionHistoryLimit", json!(10));
                template(spec);
            }
        }
        ("batch", "Job") => {
            if let Some(spec) = object(o, "spec") {
                job_spec(spec);
            }
        }
        ("batch", "CronJob") => {
            if let Some(spec) = object(o, "spec") {
                default(spec, "concurrencyPolicy", json!("Allow"));
                default(spec, "suspend", json!(false));
                default(spec, "successfulJobsHistoryLimit", json!(3));
                default(spec, "failedJobsHistoryLimit", json!(1));
                if let Some(jt) = object(spec, "jobTemplate").and_then(|t| object(t, "spec")) {
                    job_spec(jt);
                }
            }
        }
        _ => {}
    }
}

fn job_spec(spec: &mut Map<String, Value>) {
    default(spec, "parallelism", json!(1));
    default(spec, "completions", json!(1));
    default(spec, "backoffLimit", json!(6));
    default(spec, "completionMode", json!("NonIndexed"));
    default(spec, "suspend", json!(false));
    default(spec, "podReplacementPolicy", json!("TerminatingOrFailed"));
    template(spec);
}

/// A workload's pod template gets the pod spec's defaults (not the ones
/// admission adds to real pods).
fn template(spec: &mut Map<String, Value>) {
    if let Some(ps) = object(spec, "template").and_then(|t| object(t, "spec")) {
        pod_spec(ps);
    }
}

fn pod_spec(spec: &mut Map<String, Value>) {
    default(spec, "restartPolicy", json!("Always"));
    default(spec, "terminationGracePeriodSeconds", json!(30));
    default(spec, "dnsPolicy", json!("ClusterFirst"));
    default(spec, "securityContext", json!({}));
    default(spec, "schedulerName", json!("default-scheduler"));
    for list in ["initContainers", "containers"] {
        if let Some(Value::Array(cs)) = spec.get_mut(list) {
            for c in cs.iter_mut().filter_map(Value::as_object_mut) {
                container(c);
            }
        }
    }
}

fn container(c: &mut Map<String, Value>) {
    default(c, "terminationMessagePath", json!("/dev/termination-log"));
    default(c, "terminationMessagePolicy", json!("File"));
    let image = c.get("image").and_then(Value::as_str).unwrap_or("");
    default(c, "imagePullPolicy", json!(pull_policy(image)));
    default(c, "resources", json!({}));
    if let Some(Value::Array(ports)) = c.get_mut("ports") {
        for p in ports.iter_mut().filter_map(Value::as_object_mut) {
            default(p, "protocol", json!("TCP"));
        }
    }
}

/// `Always` for `:latest` or no tag, otherwise `IfNotPresent` (a digest
/// counts as a tag).
pub fn pull_policy(image: &str) -> &'static str {
    if image.contains('@') {
        return "IfNotPresent";
    }
    let last = image.rsplit('/').next().unwrap_or(image);
    match last.split_once(':') {
        Some((_, "latest")) | None => "Always",
        Some(_) => "IfNotPresent",
    }
}

/// What the admission plugins of every cluster add to a pod: the default
/// service account, the default priority, and the not-ready/unreachable
/// tolerations.
fn pod_admission(spec: &mut Map<String, Value>) {
    default(spec, "serviceAccountName", json!("default"));
    let sa = spec.get("serviceAccountName").cloned().unwrap_or(json!("default"));
    default(spec, "serviceAccount", sa);
    default(spec, "priority", json!(0));
    default(spec, "enableServiceLinks", json!(true));
    default(spec, "preemptionPolicy", json!("PreemptLowerPriority"));
    let mut tolerations = match spec.remove("tolerations") {
        Some(Value::Array(t)) => t,
        _ => Vec::new(),
    };
    for key in ["node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"] {
        let present = tolerations.iter().any(|t| {
            t.get("key").and_then(Value::as_str) == Some(key)
                && t.get("effect").and_then(Value::as_str).is_none_or(|e| e == "NoExecute")
        });
        if !present {
            tolerations
                .push(json!({"key": key, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}));
        }
    }
    spec.insert("tolerations".into(), Value::Array(tolerations));
}

fn service_spec(spec: &mut Map<String, Value>) {
    default(spec, "type", json!("ClusterIP"));
    default(spec, "sessionAffinity", json!("None"));
    let kind = spec.get("type").and_then(Value::as_str).unwrap_or("ClusterIP").to_string();
    if let Some(Value::Array(ports)) = spec.get_mut("ports") {
        for p in ports.iter_mut().filter_map(Value::as_object_mut) {
            default(p, "protocol", json!("TCP"));
            if p.get("targetPort").is_none_or(Value::is_null) {
                if let Some(port) = p.get("port").cloned() {
                    p.insert("targetPort".into(), port);
                }
            }
        }
    }
    if kind != "ExternalName" {
        default(spec, "internalTrafficPolicy", json!("Cluster"));
        default(spec, "ipFamilyPolicy", json!("SingleStack"));
        default(spec, "ipFamilies", json!(["IPv4"]));
    }
    if kind == "NodePort" || kind == "LoadBalancer" {
        default(spec, "externalTrafficPolicy", json!("Cluster"));
    }
    if kind == "LoadBalancer" {
        default(spec, "allocateLoadBalancerNodePorts", json!(true));
    }
    if let Some(ip) = spec.get("clusterIP").filter(|v| v.as_str().is_some_and(|s| !s.is_empty())).cloned() {
        default(spec, "clusterIPs", json!([ip]));
    }
}

/// QoS class of a pod from its containers' requests and limits.
pub fn qos_class(spec: &Value) -> &'static str {
    let containers: Vec<&Value> = ["initContainers", "containers"]
        .iter()
        .filter_map(|k| spec.get(*k).and_then(Value::as_array))
        .flatten()
        .collect();
    let res = |c: &Value, kind: &str, r: &str| c.pointer(&format!("/resources/{kind}/{r}")).cloned();
    let any = containers.iter().any(|c| {
        ["requests", "limits"]
            .iter()
            .any(|k| c.pointer(&format!("/resources/{k}")).and_then(Value::as_object).is_some_and(|m| !m.is_empty()))
    });
    if !any {
        return "BestEffort";
    }
    let guaranteed = containers.iter().all(|c| {
        ["cpu", "memory"].iter().all(|r| {
            let limit = res(c, "limits", r);
            let request = res(c, "requests", r).or_else(|| limit.clone());
            limit.is_some() && request == limit
        })
    });
    if guaranteed {
        "Guaranteed"
    } else {
        "Burstable"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::kinds::BUILTIN;

    fn rt(kind: &str) -> &'static ResourceType {
        BUILTIN.iter().find(|r| r.kind == kind).unwrap()
    }

    #[test]
    fn image_pull_policy_follows_the_tag() {
        assert_eq!(pull_policy("nginx"), "Always");
        assert_eq!(pull_policy("nginx:latest"), "Always");
        assert_eq!(pull_policy("nginx:1.27"), "IfNotPresent");
        assert_eq!(pull_policy("registry:5000/app"), "Always");
        assert_eq!(pull_policy("registry:5000/app:v1"), "IfNotPresent");
        assert_eq!(pull_policy("app@sha256:abc"), "IfNotPresent");
    }

    #[test]
    fn pods_get_spec_container_and_admission_defaults() {
        let mut pod = json!({"spec": {"containers": [{"name": "c", "image": "nginx", "ports": [{"containerPort": 80}]}],
                                      "tolerations": [{"key": "x", "operator": "Exists"}]}});
        apply(rt("Pod"), &mut pod);
        let s = &pod["spec"];
        assert_eq!((s["restartPolicy"].as_str(), s["dnsPolicy"].as_str()), (Some("Always"), Some("ClusterFirst")));
        assert_eq!(s["schedulerName"], "default-scheduler");
        assert_eq!(s["serviceAccountName"], "default");
        assert_eq!(s["tolerations"].as_array().unwrap().len(), 3);
        let c = &s["containers"][0];
        assert_eq!(c["imagePullPolicy"], "Always");
        assert_eq!(c["terminationMessagePath"], "/dev/termination-log");
        assert_eq!(c["ports"][0]["protocol"], "TCP");
    }

    #[test]
    fn services_and_deployments_get_theirs() {
        let mut svc = json!({"spec": {"ports": [{"port": 80}]}});
        apply(rt("Service"), &mut svc);
        assert_eq!(svc["spec"]["type"], "ClusterIP");
        assert_eq!(svc["spec"]["ports"][0], json!({"port": 80, "protocol": "TCP", "targetPort": 80}));
        assert_eq!(svc["spec"]["ipFamilies"], json!(["IPv4"]));
        let mut d = json!({"spec": {"template": {"spec": {"containers": [{"name": "c", "image": "x:1"}]}}}});
        apply(rt("Deployment"), &mut d);
        assert_eq!(
            d["spec"]["strategy"],
            json!({"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"}})
        );
        assert_eq!((d["spec"]["replicas"].as_i64(), d["spec"]["revisionHistoryLimit"].as_i64()), (Some(1), Some(10)));
        assert!(
            d["spec"]["template"]["spec"].get("serviceAccountName").is_none(),
            "templates get no admission defaults"
        );
        let mut recreate = json!({"spec": {"strategy": {"type": "Recreate"}}});
        apply(rt("Deployment"), &mut recreate);
        assert_eq!(recreate["spec"]["strategy"], json!({"type": "Recreate"}));
    }

    #[test]
    fn qos_classes() {
        assert_eq!(qos_class(&json!({"containers": [{"name": "a"}]})), "BestEffort");
        let g = json!({"containers": [{"resources": {"limits": {"cpu": "1", "memory": "1Gi"}}}]});
        assert_eq!(qos_class(&g), "Guaranteed");
        let b = json!({"containers": [{"resources": {"requests": {"cpu": "1"}}}]});
        assert_eq!(qos_class(&b), "Burstable");
    }
}
