//! Per-kind validation of the fields a client sends, after defaulting: every
//! problem is collected (the 422 lists them all), worded as upstream's
//! `pkg/apis/*/validation` words them. Covered: Pods and pod templates
//! (containers, ports, policies), Services, Deployments/ReplicaSets/
//! StatefulSets/DaemonSets (selector and template labels, replicas), and
//! ConfigMap/Secret keys.

use serde_json::{Map, Value};

use super::ResourceType;
use crate::api::meta::{validate_name, NameRule};
use crate::api::FieldError;

pub fn validate(rt: &ResourceType, obj: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let spec = obj.get("spec");
    match (rt.group, rt.kind) {
        ("", "Pod") => {
            if let Some(spec) = spec {
                pod_spec(spec, "spec", false, &mut errs);
            }
        }
        ("", "Service") => {
            if let Some(spec) = spec {
                service_spec(spec, &mut errs);
            }
        }
        ("", "ConfigMap") | ("", "Secret") => data_keys(obj, &mut errs),
        ("apps", "Deployment") | ("apps", "ReplicaSet") | ("apps", "StatefulSet") | ("apps", "DaemonSet") => {
            if let Some(spec) = spec {
                workload_spec(rt.kind, spec, &mut errs);
            }
        }
        ("batch", "Job") => match spec {
            Some(spec) => job_spec(spec, "spec", &mut errs),
            None => errs.push(FieldError::required("spec.template.spec.containers", "")),
        },
        ("batch", "CronJob") => {
            let spec = spec.unwrap_or(&Value::Null);
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
                Some(js) => job_spec(js, "spec.jobTemplate.spec", &mut errs),
                None => errs.push(FieldError::required("spec.jobTemplate.spec.template.spec.containers", "")),
            }
        }
        ("", "PersistentVolumeClaim") => {
            let spec = spec.unwrap_or(&Value::Null);
            if spec.get("accessModes").and_then(Value::as_array).is_none_or(Vec::is_empty) {
                errs.push(FieldError::required("spec.accessModes", "at least 1 access mode is required"));
            }
            if spec.pointer("/resources/requests/storage").is_none() {
                errs.push(FieldError::required("spec.resources[storage]", ""));
            }
        }
        ("rbac.authorization.k8s.io", "Role") | ("rbac.authorization.k8s.io", "ClusterRole") => {
            for (i, rule) in obj.get("rules").and_then(Value::as_array).into_iter().flatten().enumerate() {
                if rule.get("verbs").and_then(Value::as_array).is_none_or(Vec::is_empty) {
                    errs.push(FieldError::required(
                        &format!("rules[{i}].verbs"),
                        "verbs must contain at least one value",
                    ));
                }
            }
        }
        ("rbac.authorization.k8s.io", "RoleBinding") | ("rbac.authorization.k8s.io", "ClusterRoleBinding") => {
            let role_ref = obj.get("roleRef").unwrap_or(&Value::Null);
            if str_at(role_ref, "name").is_none_or(str::is_empty) {
                errs.push(FieldError::required("roleRef.name", ""));
            }
            let kinds: &[&str] = if rt.kind == "RoleBinding" { &["Role", "ClusterRole"] } else { &["ClusterRole"] };
            match str_at(role_ref, "kind") {
                Some(k) if kinds.contains(&k) => {}
                Some(k) => errs.push(FieldError::not_supported("roleRef.kind", k, kinds)),
                None => errs.push(FieldError::not_supported("roleRef.kind", "", kinds)),
            }
            for (i, sub) in obj.get("subjects").and_then(Value::as_array).into_iter().flatten().enumerate() {
                if str_at(sub, "name").is_none_or(str::is_empty) {
                    errs.push(FieldError::required(&format!("subjects[{i}].name"), ""));
                }
            }
        }
        _ => {}
    }
    errs
}

fn str_at<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

/// A value as Go's `%#v` shows a `map[string]string`.
fn go_string_map(m: Option<&Map<String, Value>>) -> String {
    match m {
        None => "map[string]string(nil)".into(),
        Some(m) => {
            let mut kv: Vec<(&String, &Value)> = m.iter().collect();
            kv.sort_by(|a, b| a.0.cmp(b.0));
            let parts: Vec<String> =
                kv.iter().map(|(k, v)| format!("{}:{}", json_quote(k), json_quote(v.as_str().unwrap_or("")))).collect();
            format!("map[string]string{{{}}}", parts.join(", "))
        }
    }
}

fn json_quote(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

fn port_problem(v: &Value, field: &str, errs: &mut Vec<FieldError>) {
    match v.as_i64() {
        None | Some(0) => errs.push(FieldError::required(field, "")),
        Some(n) if !(1..=65535).contains(&n) => {
            errs.push(FieldError::invalid_value(field, v, "must be between 1 and 65535, inclusive"))
        }
        _ => {}
    }
}

const PROTOCOLS: &[&str] = &["SCTP", "TCP", "UDP"];

fn protocol(p: &Value, field: &str, errs: &mut Vec<FieldError>) {
    if let Some(proto) = str_at(p, "protocol") {
        if !PROTOCOLS.contains(&proto) {
            errs.push(FieldError::not_supported(field, proto, PROTOCOLS));
        }
    }
}

fn pod_spec(spec: &Value, path: &str, template: bool, errs: &mut Vec<FieldError>) {
    let containers = spec.get("containers").and_then(Value::as_array);
    if containers.is_none_or(Vec::is_empty) {
        errs.push(FieldError::required(&format!("{path}.containers"), ""));
    }
    let mut names: Vec<&str> = Vec::new();
    for list in ["initContainers", "containers"] {
        for (i, c) in spec.get(list).and_then(Value::as_array).into_iter().flatten().enumerate() {
            let at = format!("{path}.{list}[{i}]");
            match str_at(c, "name").filter(|n| !n.is_empty()) {
                None => errs.push(FieldError::required(&format!("{at}.name"), "")),
                Some(n) => {
                    for msg in validate_name(NameRule::Dns1123Label, n) {
                        errs.push(FieldError::invalid(&format!("{at}.name"), n, &msg));
                    }
                    if names.contains(&n) {
                        errs.push(FieldError::duplicate(&format!("{at}.name"), n));
                    }
                    names.push(n);
                }
            }
            if str_at(c, "image").is_none_or(|s| s.trim().is_empty()) {
                errs.push(FieldError::required(&format!("{at}.image"), ""));
            }
            if let Some(p) = str_at(c, "imagePullPolicy") {
                const PULL: &[&str] = &["Always", "IfNotPresent", "Never"];
                if !PULL.contains(&p) {
                    errs.push(FieldError::not_supported(&format!("{at}.imagePullPolicy"), p, PULL));
                }
            }
            for (j, port) in c.get("ports").and_then(Value::as_array).into_iter().flatten().enumerate() {
                let pat = format!("{at}.ports[{j}]");
                port_problem(port.get("containerPort").unwrap_or(&Value::Null), &format!("{pat}.containerPort"), errs);
                protocol(port, &format!("{pat}.protocol"), errs);
            }
        }
    }
    let restart = str_at(spec, "restartPolicy");
    if let Some(r) = restart {
        const RESTART: &[&str] = &["Always", "OnFailure", "Never"];
        if !RESTART.contains(&r) {
            errs.push(FieldError::not_supported(&format!("{path}.restartPolicy"), r, RESTART));
        }
    }
    if let Some(d) = str_at(spec, "dnsPolicy") {
        const DNS: &[&str] = &["ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"];
        if !DNS.contains(&d) {
            errs.push(FieldError::not_supported(&format!("{path}.dnsPolicy"), d, DNS));
        }
    }
    let _ = template;
}

fn service_spec(spec: &Value, errs: &mut Vec<FieldError>) {
    const TYPES: &[&str] = &["ClusterIP", "ExternalName", "LoadBalancer", "NodePort"];
    let kind = str_at(spec, "type").unwrap_or("ClusterIP");
    if !TYPES.contains(&kind) {
        errs.push(FieldError::not_supported("spec.type", kind, TYPES));
    }
    let ports = spec.get("ports").and_then(Value::as_array);
    let headless = str_at(spec, "clusterIP") == Some("None");
    if kind != "ExternalName" && !headless && ports.is_none_or(Vec::is_empty) {
        errs.push(FieldError::required("spec.ports", ""));
    }
    if kind == "ExternalName" && str_at(spec, "externalName").is_none_or(str::is_empty) {
        errs.push(FieldError::required("spec.externalName", ""));
    }
    let ports = ports.map(Vec::as_slice).unwrap_or_default();
    let mut names: Vec<&str> = Vec::new();
    for (i, p) in ports.iter().enumerate() {
        let at = format!("spec.ports[{i}]");
        let name = str_at(p, "name").unwrap_or("");
        if ports.len() > 1 && name.is_empty() {
            errs.push(FieldError::required(&format!("{at}.name"), ""));
        } else if !name.is_empty() {
            for msg in validate_name(NameRule::Dns1123Label, name) {
                errs.push(FieldError::invalid(&format!("{at}.name"), name, &msg));
            }
            if names.contains(&name) {
                errs.push(FieldError::duplicate(&format!("{at}.name"), name));
            }
            names.push(name);
        }
        port_problem(p.get("port").unwrap_or(&Value::Null), &format!("{at}.port"), errs);
        protocol(p, &format!("{at}.protocol"), errs);
    }
}

fn workload_spec(kind: &str, spec: &Value, errs: &mut Vec<FieldError>) {
    if let Some(r) = spec.get("replicas") {
        if r.as_i64().is_some_and(|n| n < 0) {
            errs.push(FieldError::invalid_value("spec.replicas", r, "must be greater than or equal to 0"));
        }
    }
    let selector = spec.get("selector").filter(|s| !s.is_null());
    let template_labels = spec.pointer("/template/metadata/labels").and_then(Value::as_object);
    match selector {
        None => errs.push(FieldError::required("spec.selector", "")),
        Some(sel) => {
            let ml = sel.get("matchLabels").and_then(Value::as_object);
            let me = sel.get("matchExpressions").and_then(Value::as_array);
            if ml.is_none_or(Map::is_empty) && me.is_none_or(Vec::is_empty) {
                errs.push(FieldError::invalid_raw(
                    "spec.selector",
                    "v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement(nil)}",
                    &format!("empty selector is invalid for {}", kind.to_ascii_lowercase()),
                ));
            } else if !selector_matches(sel, template_labels) {
                errs.push(FieldError::invalid_raw(
                    "spec.template.metadata.labels",
                    &go_string_map(template_labels),
                    "`selector` does not match template `labels`",
                ));
            }
        }
    }
    match spec.pointer("/template/spec") {
        Some(ps) => {
            pod_spec(ps, "spec.template.spec", true, errs);
            if kind != "Job" {
                if let Some(r) = str_at(ps, "restartPolicy").filter(|r| *r != "Always") {
                    // The pod-spec check above already refused unknown values.
                    if ["OnFailure", "Never"].contains(&r) {
                        errs.push(FieldError::not_supported("spec.template.spec.restartPolicy", r, &["Always"]));
                    }
                }
            }
        }
        None if kind != "DaemonSet" || spec.get("template").is_none() => {
            errs.push(FieldError::required("spec.template.spec.containers", ""));
        }
        None => {}
    }
}

fn job_spec(spec: &Value, path: &str, errs: &mut Vec<FieldError>) {
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
            pod_spec(ps, &format!("{path}.template.spec"), true, errs);
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

/// Whether a LabelSelector selects a set of labels.
fn selector_matches(sel: &Value, labels: Option<&Map<String, Value>>) -> bool {
    let get = |k: &str| labels.and_then(|l| l.get(k)).and_then(Value::as_str);
    let ml_ok =
        sel.get("matchLabels").and_then(Value::as_object).into_iter().flatten().all(|(k, v)| get(k) == v.as_str());
    let me_ok = sel.get("matchExpressions").and_then(Value::as_array).into_iter().flatten().all(|e| {
        let key = str_at(e, "key").unwrap_or("");
        let values: Vec<&str> =
            e.get("values").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
        match str_at(e, "operator").unwrap_or("") {
            "In" => get(key).is_some_and(|v| values.contains(&v)),
            "NotIn" => get(key).is_none_or(|v| !values.contains(&v)),
            "Exists" => get(key).is_some(),
            "DoesNotExist" => get(key).is_none(),
            _ => false,
        }
    });
    ml_ok && me_ok
}

const CONFIG_KEY_MSG: &str = "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')";

fn data_keys(obj: &Value, errs: &mut Vec<FieldError>) {
    let data = obj.get("data").and_then(Value::as_object);
    let binary = obj.get("binaryData").and_then(Value::as_object);
    for (field, map) in [("data", data), ("binaryData", binary)] {
        for k in map.into_iter().flatten().map(|(k, _)| k) {
            let at = format!("{field}[{k}]");
            let valid = !k.is_empty() && k.bytes().all(|b| b.is_ascii_alphanumeric() || b"-._".contains(&b));
            if !valid {
                errs.push(FieldError::invalid(&at, k, CONFIG_KEY_MSG));
            } else if k == "." || k == ".." {
                errs.push(FieldError::invalid(&at, k, &format!("must not be '{k}'")));
            } else if k.starts_with("..") {
                errs.push(FieldError::invalid(&at, k, "must not start with '..'"));
            }
            if field == "data" && binary.is_some_and(|b| b.contains_key(k)) {
                errs.push(FieldError::invalid(&at, k, "duplicate of key present in binaryData"));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::kinds::BUILTIN;
    use serde_json::json;

    fn rt(kind: &str) -> &'static ResourceType {
        BUILTIN.iter().find(|r| r.kind == kind).unwrap()
    }

    fn messages(kind: &str, obj: Value) -> Vec<String> {
        validate(rt(kind), &obj).iter().map(|e| e.to_string()).collect()
    }

    #[test]
    fn pods_list_every_problem() {
        let got = messages(
            "Pod",
            json!({"spec": {"restartPolicy": "Sometimes", "containers": [
                {"name": "Web", "ports": [{"containerPort": 70000, "protocol": "XYZ"}]},
                {"name": "ok", "image": "x"}, {"name": "ok", "image": "y"}]}}),
        );
        assert_eq!(
            got,
            vec![
                r#"spec.containers[0].name: Invalid value: "Web": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"#,
                "spec.containers[0].image: Required value",
                "spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive",
                r#"spec.containers[0].ports[0].protocol: Unsupported value: "XYZ": supported values: "SCTP", "TCP", "UDP""#,
                r#"spec.containers[2].name: Duplicate value: "ok""#,
                r#"spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never""#,
            ]
        );
        assert_eq!(messages("Pod", json!({"spec": {}})), vec!["spec.containers: Required value"]);
    }

    #[test]
    fn deployments_need_a_selector_that_matches_the_template() {
        let got = messages(
            "Deployment",
            json!({"spec": {"replicas": -1, "selector": {"matchLabels": {"app": "a"}},
                   "template": {"metadata": {"labels": {"app": "b"}}, "spec": {"containers": [{"name": "c", "image": "i"}]}}}}),
        );
        assert_eq!(
            got,
            vec![
                "spec.replicas: Invalid value: -1: must be greater than or equal to 0",
                r#"spec.template.metadata.labels: Invalid value: map[string]string{"app":"b"}: `selector` does not match template `labels`"#,
            ]
        );
        assert_eq!(
            messages(
                "Deployment",
                json!({"spec": {"template": {"spec": {"containers": [{"name": "c", "image": "i"}]}}}})
            ),
            vec!["spec.selector: Required value"]
        );
    }

    #[test]
    fn jobs_cronjobs_claims_and_rbac() {
        assert_eq!(
            messages("Job", json!({"spec": {"template": {"spec": {"containers": [{"name": "c", "image": "i"}]}}}})),
            vec![r#"spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never""#]
        );
        assert_eq!(
            messages(
                "CronJob",
                json!({"spec": {"jobTemplate": {"spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "i"}]}}}}}})
            ),
            vec!["spec.schedule: Required value"]
        );
        assert_eq!(
            messages("PersistentVolumeClaim", json!({"spec": {}})),
            vec![
                "spec.accessModes: Required value: at least 1 access mode is required",
                "spec.resources[storage]: Required value"
            ]
        );
        assert_eq!(
            messages("Role", json!({"rules": [{"resources": ["pods"]}]})),
            vec!["rules[0].verbs: Required value: verbs must contain at least one value"]
        );
        assert_eq!(
            messages("RoleBinding", json!({"roleRef": {"kind": "Pod", "name": "r"}})),
            vec![r#"roleRef.kind: Unsupported value: "Pod": supported values: "Role", "ClusterRole""#]
        );
    }

    #[test]
    fn services_and_config_keys() {
        assert_eq!(
            messages(
                "Service",
                json!({"spec": {"type": "ClusterIP", "ports": [{"port": 80}, {"port": 0, "name": "b"}]}})
            ),
            vec!["spec.ports[0].name: Required value", "spec.ports[1].port: Required value"]
        );
        assert_eq!(messages("Service", json!({"spec": {"type": "ClusterIP"}})), vec!["spec.ports: Required value"]);
        assert!(messages("Service", json!({"spec": {"clusterIP": "None"}})).is_empty());
        assert_eq!(
            messages("ConfigMap", json!({"data": {"bad key": "v", "ok": "v"}, "binaryData": {"ok": ""}})),
            vec![
                format!(r#"data[bad key]: Invalid value: "bad key": {CONFIG_KEY_MSG}"#),
                r#"data[ok]: Invalid value: "ok": duplicate of key present in binaryData"#.to_string(),
            ]
        );
    }
}
