//! Validation the store does for every kind (metadata: name, namespace,
//! labels, annotations, finalizers), and the helpers kinds' own validation
//! shares. Every problem is collected (the 422 lists them all), worded as
//! upstream's `pkg/apis/*/validation` words them; a kind's own rules live in
//! its strategy (`registry/kinds/*.rs`).

use crate::sort::Order;
use serde_json::{Map, Value};

use super::resource::ResourceType;
use crate::api::meta::{self, validate_name};
use crate::api::FieldError;

/// Metadata every object must get right (`ValidateObjectMeta`).
pub fn validate_meta(rt: &ResourceType, obj: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    // The fields looked at, found in one pass over the metadata (a lookup
    // each was ~1,000 instructions a create).
    let (mut name, mut namespace, mut labels, mut annotations, mut finalizers) = ("", "", None, None, None);
    for (k, v) in meta::metadata(obj).into_iter().flatten() {
        match k.as_str() {
            "name" => name = v.as_str().unwrap_or(""),
            "namespace" => namespace = v.as_str().unwrap_or(""),
            "labels" => labels = Some(v),
            "annotations" => annotations = Some(v),
            "finalizers" => finalizers = Some(v),
            _ => {}
        }
    }
    if name.is_empty() {
        errs.push(FieldError::required("metadata.name", "name or generateName is required"));
    } else {
        for msg in validate_name(rt.name_rule, name) {
            errs.push(FieldError::invalid("metadata.name", name, &msg));
        }
    }
    if rt.namespaced && namespace.is_empty() {
        errs.push(FieldError::required("metadata.namespace", ""));
    }
    for (field, v) in [("labels", labels), ("annotations", annotations)] {
        let Some(v) = v else { continue };
        let ok = v.is_null() || v.as_object().is_some_and(|o| o.values().all(Value::is_string));
        if !ok {
            errs.push(FieldError::invalid(
                &format!("metadata.{field}"),
                &crate::api::to_json_string(v),
                "must be a map of string to string",
            ));
        }
    }
    if let Some(v) = finalizers {
        if !(v.is_null() || v.as_array().is_some_and(|a| a.iter().all(Value::is_string))) {
            errs.push(FieldError::invalid(
                "metadata.finalizers",
                &crate::api::to_json_string(v),
                "must be a list of strings",
            ));
        }
    }
    if let Some(Value::Object(labels)) = labels {
        validate_labels(labels, "metadata.labels", &mut errs);
    }
    if let Some(Value::Object(annotations)) = annotations {
        validate_annotations(annotations, "metadata.annotations", &mut errs);
    }
    errs
}

/// Upstream's limit on an object's annotations, keys and values together
/// (`TotalAnnotationSizeLimitB`).
pub const ANNOTATIONS_MAX_BYTES: usize = 256 * 1024;

/// Annotation keys and their total size (`ValidateAnnotations`): a key is
/// a qualified name in any case; keys and values together at most 256 KiB.
pub fn validate_annotations(annotations: &Map<String, Value>, field: &str, errs: &mut Vec<FieldError>) {
    for k in annotations.keys() {
        if let Some(p) = crate::selector::label_key_problem(&k.to_ascii_lowercase()) {
            errs.push(FieldError::invalid(field, k, &p));
        }
    }
    let size: usize = annotations.iter().map(|(k, v)| k.len() + v.as_str().map_or(0, str::len)).sum();
    if size > ANNOTATIONS_MAX_BYTES {
        errs.push(FieldError::too_long(field, &format!("may not be more than {ANNOTATIONS_MAX_BYTES} bytes")));
    }
}

/// Label keys and values (`ValidateLabels`): each problem on the map's own
/// path, a key's before its value's.
pub fn validate_labels(labels: &Map<String, Value>, field: &str, errs: &mut Vec<FieldError>) {
    for (k, v) in labels {
        if let Some(p) = crate::selector::label_key_problem(k) {
            errs.push(FieldError::invalid(field, k, &p));
        }
        let v = v.as_str().unwrap_or("");
        for p in crate::selector::label_value_problems(v) {
            errs.push(FieldError::invalid(field, v, &p));
        }
    }
}

/// A `metav1.LabelSelector` at `at` (upstream's `ValidateLabelSelector`,
/// label values checked): its `matchLabels` as labels, then each
/// `matchExpressions` entry's operator and values, its key, its values.
pub fn validate_label_selector(sel: &Value, at: &str, errs: &mut Vec<FieldError>) {
    if let Some(labels) = sel.get("matchLabels").and_then(Value::as_object) {
        validate_labels(labels, &format!("{at}.matchLabels"), errs);
    }
    for (i, r) in sel.get("matchExpressions").and_then(Value::as_array).into_iter().flatten().enumerate() {
        let at = format!("{at}.matchExpressions[{i}]");
        let values = r.get("values").and_then(Value::as_array).map_or(&[][..], Vec::as_slice);
        let operator = r.get("operator").and_then(Value::as_str).unwrap_or("");
        match operator {
            "In" | "NotIn" if values.is_empty() => errs.push(FieldError::required(
                &format!("{at}.values"),
                "must be specified when `operator` is 'In' or 'NotIn'",
            )),
            "Exists" | "DoesNotExist" if !values.is_empty() => errs.push(FieldError::forbidden(
                &format!("{at}.values"),
                "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
            )),
            "In" | "NotIn" | "Exists" | "DoesNotExist" => {}
            other => errs.push(FieldError::invalid(&format!("{at}.operator"), other, "not a valid selector operator")),
        }
        let key = r.get("key").and_then(Value::as_str).unwrap_or("");
        if let Some(p) = crate::selector::label_key_problem(key) {
            errs.push(FieldError::invalid(&format!("{at}.key"), key, &p));
        }
        for (j, v) in values.iter().enumerate() {
            let v = v.as_str().unwrap_or("");
            for p in crate::selector::label_value_problems(v) {
                errs.push(FieldError::invalid(&format!("{at}.values[{j}]"), v, &p));
            }
        }
    }
}

/// What an update may not change in metadata (`ValidateObjectMetaUpdate`):
/// the uid, and no finalizer may be added once deletion has begun.
pub fn validate_meta_update(new: &Value, old: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if meta::meta_str(old, "deletionTimestamp").is_some() {
        let before = meta::finalizers(old);
        let added: Vec<String> = meta::finalizers(new).into_iter().filter(|f| !before.contains(f)).collect();
        if !added.is_empty() {
            let list = added.iter().map(|f| format!("{f:?}")).collect::<Vec<_>>().join(", ");
            errs.push(FieldError::forbidden(
                "metadata.finalizers",
                &format!("no new finalizers can be added if the object is being deleted, found new finalizers []string{{{list}}}"),
            ));
        }
    }
    let (uid, old_uid) = (meta::meta_str(new, "uid").unwrap_or(""), meta::meta_str(old, "uid").unwrap_or(""));
    if uid != old_uid {
        errs.push(FieldError::invalid("metadata.uid", uid, "field is immutable"));
    }
    errs
}

pub(crate) fn str_at<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

/// A value as Go's `%#v` shows a `map[string]string`.
pub(crate) fn go_string_map(m: Option<&Map<String, Value>>) -> String {
    match m {
        None => "map[string]string(nil)".into(),
        Some(m) => {
            let mut kv: Vec<(&String, &Value)> = m.iter().collect();
            kv.order_by(|a, b| a.0.cmp(b.0));
            let parts: Vec<String> =
                kv.iter().map(|(k, v)| format!("{}:{}", json_quote(k), json_quote(v.as_str().unwrap_or("")))).collect();
            format!("map[string]string{{{}}}", parts.join(", "))
        }
    }
}

fn json_quote(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

pub(crate) fn port_problem(v: &Value, field: &str, errs: &mut Vec<FieldError>) {
    match v.as_i64() {
        None | Some(0) => errs.push(FieldError::required(field, "")),
        Some(n) if !(1..=65535).contains(&n) => {
            errs.push(FieldError::invalid_value(field, v, "must be between 1 and 65535, inclusive"))
        }
        _ => {}
    }
}

const PROTOCOLS: &[&str] = &["SCTP", "TCP", "UDP"];

pub(crate) fn protocol(p: &Value, field: &str, errs: &mut Vec<FieldError>) {
    if let Some(proto) = str_at(p, "protocol") {
        if !PROTOCOLS.contains(&proto) {
            errs.push(FieldError::not_supported(field, proto, PROTOCOLS));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::kinds::builtin_catalog;
    use serde_json::json;

    /// What a kind's strategy says of an object.
    fn messages(kind: &str, obj: Value) -> Vec<String> {
        let rt = builtin_catalog().iter().find(|r| r.kind() == kind).unwrap();
        rt.strategy.validate(&obj).iter().map(|e| e.to_string()).collect()
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

    /// A container's environment as 1.33 checks it: relaxed names, one
    /// source per `valueFrom`, the keys and names it reads.
    #[test]
    fn environments_name_their_variables_and_sources_as_upstream() {
        let env = json!([
            {"name": "1ok-as.relaxed: yes", "value": "x"},
            {"name": "A=B", "value": "x"},
            {"name": ""},
            {"name": "V", "valueFrom": {}},
            {"name": "V", "value": "x", "valueFrom": {"configMapKeyRef": {"name": "cm", "key": "k"}}},
            {"name": "V", "valueFrom": {"configMapKeyRef": {"name": "cm", "key": "k"}, "secretKeyRef": {"name": "s", "key": "k"}}},
            {"name": "V", "valueFrom": {"secretKeyRef": {"name": "Bad", "key": "a b"}}},
            {"name": "V", "valueFrom": {"configMapKeyRef": {"name": "cm"}}},
            {"name": "V", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.labels"}}},
            {"name": "V", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "spec.nothing"}}},
            {"name": "V", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.labels['app']"}}},
            {"name": "V", "valueFrom": {"resourceFieldRef": {"resource": "limits.gpu"}}},
            {"name": "V", "valueFrom": {"resourceFieldRef": {"resource": "limits.hugepages-2Mi"}}}
        ]);
        let env_from = json!([{"prefix": "P=", "configMapRef": {"name": "cm"}}, {}, {"secretRef": {"name": ""}}]);
        let got = messages(
            "Pod",
            json!({"spec": {"containers": [{"name": "c", "image": "x", "env": env, "envFrom": env_from}]}}),
        );
        let relaxed =
            "a valid environment variable name must consist only of printable ASCII characters other than '='";
        let subdomain = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
        let at = "spec.containers[0]";
        assert_eq!(
            got,
            vec![
                format!(r#"{at}.env[1].name: Invalid value: "A=B": {relaxed}"#),
                format!("{at}.env[2].name: Required value"),
                format!("{at}.env[3].valueFrom: Invalid value: \"\": must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`"),
                format!("{at}.env[4].valueFrom: Invalid value: \"\": may not be specified when `value` is not empty"),
                format!("{at}.env[5].valueFrom: Invalid value: \"\": may not have more than one field specified at a time"),
                format!(r#"{at}.env[6].valueFrom.secretKeyRef.name: Invalid value: "Bad": {subdomain}"#),
                format!(r#"{at}.env[6].valueFrom.secretKeyRef.key: Invalid value: "a b": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"#),
                format!("{at}.env[7].valueFrom.configMapKeyRef.key: Required value"),
                format!(r#"{at}.env[8].valueFrom.fieldRef.fieldPath: Unsupported value: "metadata.labels": supported values: "metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName", "spec.serviceAccountName", "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs""#),
                format!(r#"{at}.env[9].valueFrom.fieldRef.fieldPath: Invalid value: "spec.nothing": error converting fieldPath: field label not supported: spec.nothing"#),
                format!(r#"{at}.env[11].valueFrom.resourceFieldRef.resource: Unsupported value: "limits.gpu": supported values: "limits.cpu", "limits.ephemeral-storage", "limits.memory", "requests.cpu", "requests.ephemeral-storage", "requests.memory""#),
                format!(r#"{at}.envFrom[0].prefix: Invalid value: "P=": {relaxed}"#),
                format!("{at}.envFrom: Invalid value: \"\": must specify one of: `configMapRef` or `secretRef`"),
                format!("{at}.envFrom[2].secretRef.name: Required value"),
            ]
        );
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
        // A selector's expressions are validated as upstream's
        // ValidateLabelSelector does; one that does not convert is said in
        // each kind's words, and the template is not held to it.
        let with = |kind: &str| {
            messages(
                kind,
                json!({"spec": {"selector": {"matchLabels": {"app": "a"}, "matchExpressions": [{"key": "tier", "operator": "In"}]},
                       "template": {"metadata": {"labels": {"app": "b"}}, "spec": {"containers": [{"name": "c", "image": "i"}]}}}}),
            )
        };
        let required = "spec.selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'";
        let shown = r#"v1.LabelSelector{MatchLabels:map[string]string{"app":"a"}, MatchExpressions:[]v1.LabelSelectorRequirement{v1.LabelSelectorRequirement{Key:"tier", Operator:"In", Values:[]string(nil)}}}"#;
        assert_eq!(
            with("Deployment"),
            vec![required.to_string(), format!("spec.selector: Invalid value: {shown}: invalid label selector")]
        );
        assert_eq!(with("StatefulSet"), vec![required.to_string(), format!("spec.selector: Invalid value: {shown}")]);
        assert_eq!(with("DaemonSet"), vec![required.to_string()]);
    }

    #[test]
    fn containers_request_no_more_than_their_limits() {
        let pod = |resources: Value| {
            messages("Pod", json!({"spec": {"containers": [{"name": "c", "image": "i", "resources": resources}]}}))
        };
        assert_eq!(
            pod(json!({"limits": {"cpu": "1", "memory": "-1"}, "requests": {"cpu": "2", "gpu": "1"}})),
            vec![
                r#"spec.containers[0].resources.limits[memory]: Invalid value: "-1": must be greater than or equal to 0"#,
                r#"spec.containers[0].resources.requests: Invalid value: "2": must be less than or equal to cpu limit of 1"#,
                r#"spec.containers[0].resources.requests[gpu]: Invalid value: "gpu": must be a standard resource for containers"#,
            ]
        );
        assert_eq!(
            pod(json!({"requests": {"example.com/dongle": "1", "hugepages-2Mi": "2Mi"}})),
            vec![
                "spec.containers[0].resources.limits: Required value: Limit must be set for non overcommitable resources",
                "spec.containers[0].resources.limits: Required value: Limit must be set for non overcommitable resources",
                "spec.containers[0].resources: Forbidden: HugePages require cpu or memory",
            ]
        );
        assert_eq!(
            pod(json!({"limits": {"example.com/dongle": "2"}, "requests": {"example.com/dongle": "1", "cpu": "100m"}})),
            vec![
                r#"spec.containers[0].resources.requests: Invalid value: "1": must be equal to example.com/dongle limit of 2"#
            ]
        );
        assert!(pod(json!({"limits": {"cpu": "1"}, "requests": {"cpu": "500m", "memory": "64Mi"}})).is_empty());
    }

    #[test]
    fn disruption_budgets_validate_their_selector_and_eviction_policy() {
        assert_eq!(
            messages(
                "PodDisruptionBudget",
                json!({"spec": {"minAvailable": 1, "unhealthyPodEvictionPolicy": "Never",
                       "selector": {"matchExpressions": [{"key": "app", "operator": "Exists", "values": ["x"]}]}}}),
            ),
            vec![
                "spec.selector.matchExpressions[0].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
                r#"spec.unhealthyPodEvictionPolicy: Unsupported value: "Never": supported values: "AlwaysAllow", "IfHealthyBudget""#,
            ]
        );
        assert!(messages(
            "PodDisruptionBudget",
            json!({"spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "x"}}}})
        )
        .is_empty());
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
            messages("Role", json!({"rules": [{"apiGroups": [""], "resources": ["pods"]}]})),
            vec!["rules[0].verbs: Required value: verbs must contain at least one value"]
        );
        assert_eq!(
            messages(
                "RoleBinding",
                json!({"roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Pod", "name": "r"}})
            ),
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
                r#"data[bad key]: Invalid value: "bad key": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"#.to_string(),
                r#"data[ok]: Invalid value: "ok": duplicate of key present in binaryData"#.to_string(),
            ]
        );
    }
}
