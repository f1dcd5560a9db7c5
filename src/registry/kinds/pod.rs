//! Pods: the defaults and admission additions every pod gets, a fresh
//! status (Pending, with its QoS class), validation of the pod spec (which
//! workload templates share), the fields selectors may name, and
//! kubectl's columns.

use serde_json::{json, Map, Value};

use super::super::strategy::{default, object, SelectableField, Strategy};
use super::super::table::cells::*;
use super::super::table::{col, text, wide, Column, Desc, AGE, NAME};
use super::super::validation::{port_problem, protocol, str_at};
use crate::api::meta::{validate_name, NameRule};
use crate::api::pod::qos_class;
use crate::api::FieldError;
use crate::clock::{human_duration, parse_rfc3339, SimTime};

pub struct Pod;

static FIELDS: &[SelectableField] = &[
    SelectableField::new("spec.nodeName", ""),
    SelectableField::new("spec.restartPolicy", ""),
    SelectableField::new("spec.schedulerName", ""),
    SelectableField::new("spec.serviceAccountName", ""),
    SelectableField::new("spec.hostNetwork", "false"),
    SelectableField::new("status.phase", ""),
    SelectableField::new("status.podIP", ""),
    SelectableField::new("status.nominatedNodeName", ""),
];

static COLUMNS: &[Column] = &[
            NAME,
            col("Ready", "string", text("The aggregate readiness state of this pod for accepting traffic.")),
            col("Status", "string", text("The aggregate status of the containers in this pod.")),
            col("Restarts", "string", text("The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.")),
            AGE,
            wide("IP", "string", Desc::Field("io.k8s.api.core.v1.PodStatus", "podIP")),
            wide("Node", "string", Desc::Field("io.k8s.api.core.v1.PodSpec", "nodeName")),
            wide("Nominated Node", "string", Desc::Field("io.k8s.api.core.v1.PodStatus", "nominatedNodeName")),
            wide("Readiness Gates", "string", Desc::Field("io.k8s.api.core.v1.PodSpec", "readinessGates")),
        ];

impl Strategy for Pod {
    /// A pod on a node gets the grace its kubelet needs to stop it: the
    /// request's, or `terminationGracePeriodSeconds` (negative reads as 1);
    /// one on no node, or finished, goes at once.
    fn grace_period(&self, obj: &Value, requested: Option<i64>) -> i64 {
        let unbound = obj.pointer("/spec/nodeName").and_then(Value::as_str).is_none_or(str::is_empty);
        let finished =
            matches!(obj.pointer("/status/phase").and_then(Value::as_str), Some("Succeeded") | Some("Failed"));
        if unbound || finished {
            return 0;
        }
        let grace = requested
            .or_else(|| obj.pointer("/spec/terminationGracePeriodSeconds").and_then(Value::as_i64))
            .unwrap_or(30);
        if grace < 0 {
            1
        } else {
            grace
        }
    }

    fn metadata_kept_on_status_update(&self) -> &'static [&'static str] {
        &["ownerReferences"]
    }

    fn prepare_for_create(&self, o: &mut Map<String, Value>) {
        if o.get("spec").is_some_and(|spec| spec.get("affinity").is_some()) {
            merge_label_keys(o);
        }
    }

    fn defaults(&self, o: &mut Map<String, Value>) {
        if let Some(spec) = object(o, "spec") {
            spec_defaults(spec);
            for list in ["initContainers", "containers"] {
                if let Some(Value::Array(cs)) = spec.get_mut(list) {
                    cs.iter_mut().filter_map(Value::as_object_mut).for_each(requests_from_limits);
                }
            }
            default(spec, "enableServiceLinks", json!(true));
        }
    }

    fn admit(&self, o: &mut Map<String, Value>) {
        if let Some(spec) = object(o, "spec") {
            default_toleration_seconds(spec);
        }
    }

    fn validate_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        super::pod_update::validate_update(new, old)
    }

    fn validate_create(&self, obj: &Value) -> Vec<FieldError> {
        match obj.pointer("/spec/ephemeralContainers").and_then(Value::as_array) {
            Some(ecs) if !ecs.is_empty() => {
                vec![FieldError::forbidden("spec.ephemeralContainers", "cannot be set on create")]
            }
            _ => Vec::new(),
        }
    }

    fn validate_ephemeral_containers_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        super::pod_update::validate_ephemeral_update(new, old)
    }

    fn validate_resize_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        super::pod_resize::validate_resize(new, old)
    }

    fn initial_status(&self, o: &Map<String, Value>) -> Value {
        json!({"phase": "Pending", "qosClass": qos_class(o.get("spec").unwrap_or(&Value::Null))})
    }

    fn validate(&self, obj: &Value) -> Vec<FieldError> {
        let mut errs = Vec::new();
        if let Some(spec) = obj.get("spec") {
            validate_spec(spec, "spec", &mut errs);
        }
        errs
    }

    fn selectable_fields(&self) -> &[SelectableField] {
        FIELDS
    }

    fn columns(&self) -> &[Column] {
        COLUMNS
    }

    fn cells(&self, o: &Value, now: SimTime) -> Vec<Value> {
        pod_cells(o, now)
    }

    fn row_conditions(&self, o: &Value) -> Option<Value> {
        let (reason, message) = match s(o, "/status/phase") {
            "Succeeded" => ("Succeeded", "The pod has completed successfully."),
            "Failed" => ("Failed", "The pod failed."),
            _ => return None,
        };
        Some(json!([{"type": "Completed", "status": "True", "reason": reason, "message": message}]))
    }
}

/// Upstream's `mutatePodAffinity` (MatchLabelKeysInPodAffinity, on since
/// 1.31) on a new pod: each pod (anti-)affinity term with a label selector
/// gets, for each of its `matchLabelKeys` the pod has a label of, an `In`
/// expression of that label's value, and for each of its
/// `mismatchLabelKeys` a `NotIn` one. Not inlined: no starter pod has
/// affinity, and the browser's module loads what runs at start first.
#[inline(never)]
fn merge_label_keys(o: &mut Map<String, Value>) {
    let labels = o.get("metadata").map(|m| m["labels"].clone()).unwrap_or(Value::Null);
    let Some(affinity) = o.get_mut("spec").and_then(|s| s.get_mut("affinity")) else { return };
    for kind in ["podAffinity", "podAntiAffinity"] {
        for (list, preferred) in [
            ("preferredDuringSchedulingIgnoredDuringExecution", true),
            ("requiredDuringSchedulingIgnoredDuringExecution", false),
        ] {
            let terms = affinity.get_mut(kind).and_then(|a| a.get_mut(list)).and_then(Value::as_array_mut);
            for t in terms.into_iter().flatten() {
                let term = if preferred { t.get_mut("podAffinityTerm") } else { Some(t) };
                let Some(term) = term.and_then(Value::as_object_mut) else { continue };
                let mut added = Vec::new();
                for (field, operator) in [("matchLabelKeys", "In"), ("mismatchLabelKeys", "NotIn")] {
                    for key in term.get(field).and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str)
                    {
                        if let Some(value) = labels.get(key).and_then(Value::as_str) {
                            added.push(json!({"key": key, "operator": operator, "values": [value]}));
                        }
                    }
                }
                let Some(selector) = term.get_mut("labelSelector").and_then(Value::as_object_mut) else { continue };
                if added.is_empty() {
                    continue;
                }
                let expressions = selector.entry("matchExpressions").or_insert_with(|| json!([]));
                if let Some(list) = expressions.as_array_mut() {
                    list.extend(added);
                } else {
                    *expressions = Value::Array(added);
                }
            }
        }
    }
}

/// The pod spec's defaults (workload templates get these too).
pub(super) fn spec_defaults(spec: &mut Map<String, Value>) {
    deprecated_service_account(spec);
    default(spec, "restartPolicy", json!("Always"));
    default(spec, "terminationGracePeriodSeconds", json!(30));
    default(spec, "dnsPolicy", json!("ClusterFirst"));
    default(spec, "securityContext", json!({}));
    default(spec, "schedulerName", json!("default-scheduler"));
    // A volume that names no source is an emptyDir (`SetDefaults_Volume`).
    if let Some(Value::Array(vs)) = spec.get_mut("volumes") {
        for v in vs.iter_mut().filter_map(Value::as_object_mut) {
            if v.iter().all(|(k, v)| k == "name" || v.is_null()) {
                v.insert("emptyDir".into(), json!({}));
            }
        }
    }
    for list in ["initContainers", "containers", "ephemeralContainers"] {
        if let Some(Value::Array(cs)) = spec.get_mut(list) {
            for c in cs.iter_mut().filter_map(Value::as_object_mut) {
                container(c);
            }
        }
    }
}

/// `serviceAccount`, the deprecated name of `serviceAccountName`, read
/// when the new name is empty and written as the new one (a round trip
/// through upstream's internal type, which has one field).
fn deprecated_service_account(spec: &mut Map<String, Value>) {
    // Already as written back (every write after the first): nothing to do.
    let named = spec.get("serviceAccountName").and_then(Value::as_str).unwrap_or("");
    if !named.is_empty() && spec.get("serviceAccount").and_then(Value::as_str) == Some(named) {
        return;
    }
    let mut name = spec.get("serviceAccountName").and_then(Value::as_str).unwrap_or("");
    if name.is_empty() {
        name = spec.get("serviceAccount").and_then(Value::as_str).unwrap_or("");
    }
    match (!name.is_empty()).then(|| Value::String(name.to_string())) {
        Some(name) => {
            spec.insert("serviceAccountName".into(), name.clone());
            spec.insert("serviceAccount".into(), name);
        }
        None => {
            spec.shift_remove("serviceAccountName");
            spec.shift_remove("serviceAccount");
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

/// A pod's container (not a template's) that limits a resource and does
/// not request it requests its limit (`SetDefaults_Pod`).
fn requests_from_limits(c: &mut Map<String, Value>) {
    let Some(Value::Object(resources)) = c.get_mut("resources") else { return };
    let Some(Value::Object(limits)) = resources.get("limits") else { return };
    let limits = limits.clone();
    let requests = resources.entry("requests").or_insert_with(|| json!({}));
    if let Value::Object(requests) = requests {
        for (k, v) in limits {
            requests.entry(k).or_insert(v);
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

/// What the DefaultTolerationSeconds admission adds to a created or
/// updated pod: the not-ready/unreachable tolerations, five minutes each.
/// (Its service account is the ServiceAccount admission's,
/// `registry/service_account_admission.rs`; its priority the Priority
/// plugin's, `registry/priority.rs`.)
fn default_toleration_seconds(spec: &mut Map<String, Value>) {
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

/// Validation of a pod spec at `path` (a pod's, or a template's).
pub(super) fn validate_spec(spec: &Value, path: &str, errs: &mut Vec<FieldError>) {
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
            super::pod_resize::container_resize_policy(c, list, &at, str_at(spec, "restartPolicy"), errs);
            for (j, port) in c.get("ports").and_then(Value::as_array).into_iter().flatten().enumerate() {
                let pat = format!("{at}.ports[{j}]");
                port_problem(port.get("containerPort").unwrap_or(&Value::Null), &format!("{pat}.containerPort"), errs);
                protocol(port, &format!("{pat}.protocol"), errs);
            }
            if c.get("env").is_some() || c.get("envFrom").is_some() {
                super::pod_env::validate_env(c, &at, errs);
            }
            if let Some(r) = c.get("resources").filter(|r| r.get("limits").is_some() || r.get("requests").is_some()) {
                resource_requirements(r, &format!("{at}.resources"), errs);
            }
        }
    }
    // A pod's spec is validated at `spec`; a template's deeper.
    if spec.get("ephemeralContainers").is_some() {
        validate_ephemeral_containers(spec, path, path != "spec", &names, errs);
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
    // Both names as upstream checks them (`ValidateServiceAccountName`,
    // `ValidatePriorityClassName`): DNS subdomains.
    for field in ["serviceAccountName", "priorityClassName"] {
        let Some(name) = str_at(spec, field).filter(|n| !n.is_empty()) else { continue };
        for msg in validate_name(NameRule::Dns1123Subdomain, name) {
            errs.push(FieldError::invalid(&format!("{path}.{field}"), name, &msg));
        }
    }
    super::priority_class::validate_preemption_policy(
        spec.get("preemptionPolicy"),
        &format!("{path}.preemptionPolicy"),
        errs,
    );
    if spec.get("affinity").is_some() || spec.get("topologySpreadConstraints").is_some() {
        validate_placement(spec, path, errs);
    }
}

/// A container's requests and limits as upstream's
/// `ValidateContainerResourceRequirements` checks them: each name a
/// standard container resource (`cpu`, `memory`, `ephemeral-storage`,
/// huge pages) or an extended one, each amount not negative; a request at
/// most its limit (equal to it where overcommitting is not allowed: huge
/// pages and extended resources, whose limit must then be set); huge pages
/// only beside cpu or memory. Upstream walks Go maps; here names go in
/// order.
fn resource_requirements(r: &Value, at: &str, errs: &mut Vec<FieldError>) {
    use crate::api::quantity::Quantity;
    let list = |k: &str| r.get(k).and_then(Value::as_object);
    let (limits, requests) = (list("limits"), list("requests"));
    let (lim_at, req_at) = (format!("{at}.limits"), format!("{at}.requests"));
    let mut cpu_or_memory = false;
    let mut huge_pages = false;
    let value = |v: &Value| v.as_str().map(str::to_string).unwrap_or_else(|| v.to_string());
    let native = |name: &str| !name.contains('/') || name.contains("kubernetes.io/");
    let overcommits = |name: &str| native(name) && !name.starts_with("hugepages-");
    for (map, map_at) in [(limits, &lim_at), (requests, &req_at)] {
        let mut names: Vec<(&String, &Value)> = map.into_iter().flatten().collect();
        crate::sort::Order::order_by_key(names.as_mut_slice(), |(k, _)| k.as_str());
        for (name, q) in names {
            let key_at = format!("{map_at}[{name}]");
            if let Some(p) = crate::selector::label_key_problem(name) {
                errs.push(FieldError::invalid(&key_at, name, &p));
            } else if !name.contains('/') {
                if !matches!(name.as_str(), "cpu" | "memory" | "ephemeral-storage") && !name.starts_with("hugepages-") {
                    errs.push(FieldError::invalid(&key_at, name, "must be a standard resource for containers"));
                }
            } else if !native(name) && name.starts_with("requests.") {
                errs.push(FieldError::invalid(&key_at, name, "doesn't follow extended resource name standard"));
            }
            let amount = q.as_str().and_then(Quantity::parse);
            if amount.is_some_and(|a| a.milli < 0) {
                errs.push(FieldError::invalid(&key_at, &value(q), "must be greater than or equal to 0"));
            }
            cpu_or_memory |= matches!(name.as_str(), "cpu" | "memory");
            huge_pages |= name.starts_with("hugepages-");
            if map_at != &req_at {
                continue;
            }
            match limits.and_then(|l| l.get(name.as_str())) {
                Some(limit) => {
                    let limit_amount = limit.as_str().and_then(Quantity::parse);
                    let (Some(a), Some(l)) = (amount, limit_amount) else { continue };
                    if !overcommits(name) && a.milli != l.milli {
                        let detail = format!("must be equal to {name} limit of {}", value(limit));
                        errs.push(FieldError::invalid(&req_at, &value(q), &detail));
                    } else if a.milli > l.milli {
                        let detail = format!("must be less than or equal to {name} limit of {}", value(limit));
                        errs.push(FieldError::invalid(&req_at, &value(q), &detail));
                    }
                }
                None if !overcommits(name) => {
                    errs.push(FieldError::required(&lim_at, "Limit must be set for non overcommitable resources"))
                }
                None => {}
            }
        }
    }
    if huge_pages && !cpu_or_memory {
        errs.push(FieldError::forbidden(at, "HugePages require cpu or memory"));
    }
}

/// Upstream's checks of a node selector term at `at`: each of its
/// `matchExpressions` has an operator its values suit, a qualified label
/// name as its key and, in a required term (`label_values`), label values
/// (upstream lets a preferred term's values be anything); each of its
/// `matchFields` is `In`/`NotIn` with one value, keyed `metadata.name`,
/// the value a node name.
fn node_selector_term(term: &Value, at: &str, label_values: bool, errs: &mut Vec<FieldError>) {
    let list = |key: &str| term[key].as_array().map(Vec::as_slice).unwrap_or(&[]);
    for (j, r) in list("matchExpressions").iter().enumerate() {
        let at = format!("{at}.matchExpressions[{j}]");
        let values = r["values"].as_array().map(Vec::as_slice).unwrap_or(&[]);
        let (values_at, operator) = (format!("{at}.values"), str_at(r, "operator").unwrap_or(""));
        match operator {
            "In" | "NotIn" if values.is_empty() => {
                errs.push(FieldError::required(&values_at, "must be specified when `operator` is 'In' or 'NotIn'"))
            }
            "Exists" | "DoesNotExist" if !values.is_empty() => errs.push(FieldError::forbidden(
                &values_at,
                "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
            )),
            "Gt" | "Lt" if values.len() != 1 => errs.push(FieldError::required(
                &values_at,
                "must be specified single value when `operator` is 'Lt' or 'Gt'",
            )),
            "In" | "NotIn" | "Exists" | "DoesNotExist" | "Gt" | "Lt" => {}
            other => errs.push(FieldError::invalid(&format!("{at}.operator"), other, "not a valid selector operator")),
        }
        let key = str_at(r, "key").unwrap_or("");
        if let Some(p) = crate::selector::label_key_problem(key) {
            errs.push(FieldError::invalid(&format!("{at}.key"), key, &p));
        }
        for (k, v) in values.iter().enumerate().filter(|_| label_values) {
            let v = v.as_str().unwrap_or("");
            for p in crate::selector::label_value_problems(v) {
                errs.push(FieldError::invalid(&format!("{values_at}[{k}]"), v, &p));
            }
        }
    }
    for (j, r) in list("matchFields").iter().enumerate() {
        let at = format!("{at}.matchFields[{j}]");
        let values = r["values"].as_array().map(Vec::as_slice).unwrap_or(&[]);
        match str_at(r, "operator").unwrap_or("") {
            "In" | "NotIn" if values.len() != 1 => errs.push(FieldError::required(
                &format!("{at}.values"),
                "must be only one value when `operator` is 'In' or 'NotIn' for node field selector",
            )),
            "In" | "NotIn" => {}
            other => errs.push(FieldError::invalid(&format!("{at}.operator"), other, "not a valid selector operator")),
        }
        let key = str_at(r, "key").unwrap_or("");
        if key != "metadata.name" {
            errs.push(FieldError::invalid(&format!("{at}.key"), key, "not a valid field selector key"));
            continue;
        }
        for (k, v) in values.iter().enumerate() {
            let v = v.as_str().unwrap_or("");
            for msg in validate_name(NameRule::Dns1123Subdomain, v) {
                errs.push(FieldError::invalid(&format!("{at}.values[{k}]"), v, &msg));
            }
        }
    }
}

/// Upstream's checks of node affinity (at least one required term; each
/// term's requirements, `node_selector_term`; a preferred term's weight
/// 1–100), of the pod affinity terms (a topology key; a preferred term's
/// weight 1–100) and of the topology spread constraints
/// (`maxSkew` and `minDomains` positive, `minDomains` only with
/// `DoNotSchedule`, a topology key, the two actions and node inclusion
/// policies, no two constraints of one key and action). Not inlined: no
/// starter pod has either.
#[inline(never)]
fn validate_placement(spec: &Value, path: &str, errs: &mut Vec<FieldError>) {
    let positive = "must be greater than zero";
    let weight_in_range = |t: &Value, at: &str, errs: &mut Vec<FieldError>| {
        let weight = t["weight"].as_i64().unwrap_or(0);
        if !(1..=100).contains(&weight) {
            errs.push(FieldError::invalid_value(&format!("{at}.weight"), &json!(weight), "must be in the range 1-100"));
        }
    };
    let node = &spec["affinity"]["nodeAffinity"];
    let at = format!("{path}.affinity.nodeAffinity");
    if node["requiredDuringSchedulingIgnoredDuringExecution"].is_object() {
        let at = format!("{at}.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms");
        let terms = &node["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"];
        let terms = terms.as_array().map(Vec::as_slice).unwrap_or(&[]);
        if terms.is_empty() {
            errs.push(FieldError::required(&at, "must have at least one node selector term"));
        }
        for (i, t) in terms.iter().enumerate() {
            node_selector_term(t, &format!("{at}[{i}]"), true, errs);
        }
    }
    let preferred = node["preferredDuringSchedulingIgnoredDuringExecution"].as_array();
    for (i, t) in preferred.into_iter().flatten().enumerate() {
        let at = format!("{at}.preferredDuringSchedulingIgnoredDuringExecution[{i}]");
        weight_in_range(t, &at, errs);
        node_selector_term(&t["preference"], &format!("{at}.preference"), false, errs);
    }
    for kind in ["podAffinity", "podAntiAffinity"] {
        let at = format!("{path}.affinity.{kind}");
        let terms = |list: &str| spec["affinity"][kind][list].as_array().map(Vec::as_slice).unwrap_or(&[]);
        let key_required = |term: &Value, at: &str, errs: &mut Vec<FieldError>| {
            if term["topologyKey"].as_str().is_none_or(str::is_empty) {
                errs.push(FieldError::required(&format!("{at}.topologyKey"), "can not be empty"));
            }
        };
        for (i, t) in terms("requiredDuringSchedulingIgnoredDuringExecution").iter().enumerate() {
            key_required(t, &format!("{at}.requiredDuringSchedulingIgnoredDuringExecution[{i}]"), errs);
        }
        for (i, t) in terms("preferredDuringSchedulingIgnoredDuringExecution").iter().enumerate() {
            let at = format!("{at}.preferredDuringSchedulingIgnoredDuringExecution[{i}]");
            weight_in_range(t, &at, errs);
            key_required(&t["podAffinityTerm"], &format!("{at}.podAffinityTerm"), errs);
        }
    }
    let constraints = spec["topologySpreadConstraints"].as_array().map(Vec::as_slice).unwrap_or(&[]);
    const ACTIONS: &[&str] = &["DoNotSchedule", "ScheduleAnyway"];
    const POLICIES: &[&str] = &["Honor", "Ignore"];
    for (i, c) in constraints.iter().enumerate() {
        let at = format!("{path}.topologySpreadConstraints[{i}]");
        let max_skew = c["maxSkew"].as_i64().unwrap_or(0);
        if max_skew <= 0 {
            errs.push(FieldError::invalid_value(&format!("{at}.maxSkew"), &json!(max_skew), positive));
        }
        let key = str_at(c, "topologyKey").unwrap_or("");
        if key.is_empty() {
            errs.push(FieldError::required(&format!("{at}.topologyKey"), "can not be empty"));
        }
        let action = str_at(c, "whenUnsatisfiable").unwrap_or("");
        if !ACTIONS.contains(&action) {
            errs.push(FieldError::not_supported(&format!("{at}.whenUnsatisfiable"), action, ACTIONS));
        }
        let repeated = constraints[i + 1..].iter().any(|o| {
            str_at(o, "topologyKey").unwrap_or("") == key && str_at(o, "whenUnsatisfiable").unwrap_or("") == action
        });
        if repeated {
            errs.push(FieldError::duplicate(
                &format!("{at}.{{topologyKey, whenUnsatisfiable}}"),
                &format!("{{{key}, {action}}}"),
            ));
        }
        if let Some(min) = c.get("minDomains").and_then(Value::as_i64) {
            let field = format!("{at}.minDomains");
            if min <= 0 {
                errs.push(FieldError::invalid_value(&field, &json!(min), positive));
            }
            if action != "DoNotSchedule" {
                let why = format!("can only use minDomains if whenUnsatisfiable=DoNotSchedule, not {action}");
                errs.push(FieldError::invalid_value(&field, &json!(min), &why));
            }
        }
        for policy in ["nodeAffinityPolicy", "nodeTaintsPolicy"] {
            if let Some(p) = str_at(c, policy).filter(|p| !POLICIES.contains(p)) {
                errs.push(FieldError::not_supported(&format!("{at}.{policy}"), p, POLICIES));
            }
        }
    }
}

/// What upstream's `validateEphemeralContainers` asks of each ephemeral
/// container (added through `pods/NAME/ephemeralcontainers`): a name of
/// its own among all the pod's containers, an image, an existing target,
/// and none of what only a long-lived container may have.
/// (Never inlined: few pods have ephemeral containers, and none that a
/// server starts with.)
#[inline(never)]
fn validate_ephemeral_containers(spec: &Value, path: &str, template: bool, names: &[&str], errs: &mut Vec<FieldError>) {
    let Some(ecs) = spec.get("ephemeralContainers").and_then(Value::as_array).filter(|e| !e.is_empty()) else {
        return;
    };
    let list = format!("{path}.ephemeralContainers");
    if template {
        errs.push(FieldError::forbidden(&list, "ephemeral containers not allowed in pod template"));
        return;
    }
    let mut names = names.to_vec();
    for (i, c) in ecs.iter().enumerate() {
        let at = format!("{list}[{i}]");
        let name = str_at(c, "name").unwrap_or("");
        if name.is_empty() {
            errs.push(FieldError::required(&format!("{at}.name"), ""));
        } else {
            for msg in validate_name(NameRule::Dns1123Label, name) {
                errs.push(FieldError::invalid(&format!("{at}.name"), name, &msg));
            }
        }
        let image = str_at(c, "image").unwrap_or("");
        if image.is_empty() {
            errs.push(FieldError::required(&format!("{at}.image"), ""));
        } else if image.trim() != image {
            errs.push(FieldError::invalid(
                &format!("{at}.image"),
                image,
                "must not have leading or trailing whitespace",
            ));
        }
        if let Some(p) = str_at(c, "terminationMessagePolicy") {
            const POLICIES: &[&str] = &["File", "FallbackToLogsOnError"];
            if !POLICIES.contains(&p) {
                errs.push(FieldError::not_supported(&format!("{at}.terminationMessagePolicy"), p, POLICIES));
            }
        }
        if !name.is_empty() {
            if names.contains(&name) {
                errs.push(FieldError::duplicate(&format!("{at}.name"), name));
            }
            names.push(name);
        }
        if let Some(target) = str_at(c, "targetContainerName").filter(|t| !t.is_empty()) {
            let own = ["containers", "initContainers"].iter().any(|l| {
                spec.get(*l).and_then(Value::as_array).into_iter().flatten().any(|o| str_at(o, "name") == Some(target))
            });
            if !own {
                errs.push(FieldError::not_found(&format!("{at}.targetContainerName"), target));
            }
        }
        // Upstream's allow list, in its struct's order: what is set of the
        // rest is refused.
        const NOT_ALLOWED: &[&str] = &[
            "ports",
            "resources",
            "resizePolicy",
            "restartPolicy",
            "livenessProbe",
            "readinessProbe",
            "startupProbe",
            "lifecycle",
        ];
        for field in NOT_ALLOWED {
            if c.get(*field).is_some_and(|v| !crate::api::is_go_zero(v)) {
                errs.push(FieldError::forbidden(&format!("{at}.{field}"), "cannot be set for an Ephemeral Container"));
            }
        }
        for (j, m) in c.get("volumeMounts").and_then(Value::as_array).into_iter().flatten().enumerate() {
            for field in ["subPath", "subPathExpr"] {
                if str_at(m, field).is_some_and(|s| !s.is_empty()) {
                    let why = "cannot be set for an Ephemeral Container";
                    errs.push(FieldError::forbidden(&format!("{at}.volumeMounts[{j}].{field}"), why));
                }
            }
        }
    }
}

fn pod_cells(o: &Value, now: SimTime) -> Vec<Value> {
    let inits = arr(o, "/spec/initContainers");
    // Sidecars (init containers that restart Always) count as containers.
    let sidecar = |name: &str| inits.iter().any(|c| s(c, "/name") == name && s(c, "/restartPolicy") == "Always");
    let total = arr(o, "/spec/containers").len() + inits.iter().filter(|c| s(c, "/restartPolicy") == "Always").count();
    let (mut ready, mut restarts, mut sidecar_restarts) = (0, 0, 0);
    let (mut last_restart, mut last_sidecar_restart): (Option<i64>, Option<i64>) = (None, None);
    let finished =
        |c: &Value| c.pointer("/lastState/terminated/finishedAt").and_then(Value::as_str).and_then(parse_rfc3339);
    let phase = s(o, "/status/phase");
    let mut reason = match s(o, "/status/reason") {
        "" => phase.to_string(),
        r => r.to_string(),
    };
    let conds = arr(o, "/status/conditions");
    if conds.iter().any(|c| s(c, "/type") == "PodScheduled" && s(c, "/reason") == "SchedulingGated") {
        reason = "SchedulingGated".into();
    }
    let mut initializing = false;
    for (n, c) in arr(o, "/status/initContainerStatuses").iter().enumerate() {
        restarts += i(c, "/restartCount");
        last_restart = last_restart.max(finished(c));
        let is_sidecar = sidecar(s(c, "/name"));
        if is_sidecar {
            sidecar_restarts += i(c, "/restartCount");
            last_sidecar_restart = last_sidecar_restart.max(finished(c));
        }
        let terminated = c.pointer("/state/terminated").filter(|t| t.is_object());
        let waiting =
            c.pointer("/state/waiting").filter(|w| !s(w, "/reason").is_empty() && s(w, "/reason") != "PodInitializing");
        if terminated.is_some_and(|t| i(t, "/exitCode") == 0) {
            continue;
        }
        if is_sidecar && c.get("started").and_then(Value::as_bool) == Some(true) {
            if c.get("ready").and_then(Value::as_bool) == Some(true) {
                ready += 1;
            }
            continue;
        }
        reason = if let Some(t) = terminated {
            match (s(t, "/reason"), i(t, "/signal")) {
                ("", 0) => format!("Init:ExitCode:{}", i(t, "/exitCode")),
                ("", sig) => format!("Init:Signal:{sig}"),
                (r, _) => format!("Init:{r}"),
            }
        } else if let Some(w) = waiting {
            format!("Init:{}", s(w, "/reason"))
        } else {
            format!("Init:{}/{}", n, inits.len())
        };
        initializing = true;
        break;
    }
    let initialized = conds.iter().any(|c| s(c, "/type") == "Initialized" && s(c, "/status") == "True");
    if !initializing || initialized {
        restarts = sidecar_restarts;
        last_restart = last_sidecar_restart;
        let mut running = false;
        for c in arr(o, "/status/containerStatuses").iter().rev() {
            restarts += i(c, "/restartCount");
            last_restart = last_restart.max(finished(c));
            let terminated = c.pointer("/state/terminated").filter(|t| t.is_object());
            if let Some(w) = c.pointer("/state/waiting").filter(|w| !s(w, "/reason").is_empty()) {
                reason = s(w, "/reason").to_string();
            } else if let Some(t) = terminated {
                reason = match (s(t, "/reason"), i(t, "/signal")) {
                    ("", 0) => format!("ExitCode:{}", i(t, "/exitCode")),
                    ("", sig) => format!("Signal:{sig}"),
                    (r, _) => r.to_string(),
                };
            } else if c.get("ready").and_then(Value::as_bool) == Some(true)
                && c.pointer("/state/running").is_some_and(Value::is_object)
            {
                running = true;
                ready += 1;
            }
        }
        if reason == "Completed" && running {
            let pod_ready = conds.iter().any(|c| s(c, "/type") == "Ready" && s(c, "/status") == "True");
            reason = if pod_ready { "Running" } else { "NotReady" }.into();
        }
    }
    let deleting = o.pointer("/metadata/deletionTimestamp").is_some_and(|d| !d.is_null());
    if deleting && s(o, "/status/reason") == "NodeLost" {
        reason = "Unknown".into();
    } else if deleting && phase != "Succeeded" && phase != "Failed" {
        reason = "Terminating".into();
    }
    let restarts = match last_restart {
        Some(t) if restarts != 0 => format!("{restarts} ({} ago)", human_duration(now.0 - t)),
        _ => restarts.to_string(),
    };
    let ip = arr(o, "/status/podIPs").first().map(|p| s(p, "/ip")).unwrap_or("");
    let gates = arr(o, "/spec/readinessGates");
    let gates = if gates.is_empty() {
        "<none>".to_string()
    } else {
        let met = gates
            .iter()
            .filter(|g| {
                conds
                    .iter()
                    .find(|c| s(c, "/type") == s(g, "/conditionType"))
                    .is_some_and(|c| s(c, "/status") == "True")
            })
            .count();
        format!("{met}/{}", gates.len())
    };
    vec![
        name(o),
        format!("{ready}/{total}").into(),
        reason.into(),
        restarts.into(),
        age(o, now),
        or_none(ip).into(),
        or_none(s(o, "/spec/nodeName")).into(),
        or_none(s(o, "/status/nominatedNodeName")).into(),
        gates.into(),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

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
        pod["spec"]["containers"][0]["resources"] =
            json!({"limits": {"cpu": "1", "memory": "1Gi"}, "requests": {"cpu": "500m"}});
        Pod.defaults(pod.as_object_mut().unwrap());
        assert_eq!(pod["spec"]["enableServiceLinks"], true);
        assert_eq!(
            pod["spec"]["containers"][0]["resources"]["requests"],
            json!({"cpu": "500m", "memory": "1Gi"}),
            "a limit without a request is requested"
        );
        assert!(pod["spec"].get("serviceAccountName").is_none(), "admission's, not a default");
        let mut old = json!({"serviceAccount": "robot"});
        deprecated_service_account(old.as_object_mut().unwrap());
        assert_eq!(old, json!({"serviceAccountName": "robot", "serviceAccount": "robot"}), "the old name read");
        Pod.admit(pod.as_object_mut().unwrap());
        let s = &pod["spec"];
        assert_eq!((s["restartPolicy"].as_str(), s["dnsPolicy"].as_str()), (Some("Always"), Some("ClusterFirst")));
        assert_eq!(s["schedulerName"], "default-scheduler");
        assert!(s.get("serviceAccountName").is_none(), "the ServiceAccount admission's, on create only");
        assert_eq!(s["tolerations"].as_array().unwrap().len(), 3);
        let c = &s["containers"][0];
        assert_eq!(c["imagePullPolicy"], "Always");
        assert_eq!(c["terminationMessagePath"], "/dev/termination-log");
        assert_eq!(c["ports"][0]["protocol"], "TCP");
    }

    #[test]
    fn pods_read_as_kubectl_shows_them() {
        let pod = json!({
            "metadata": {"name": "web", "creationTimestamp": "2023-11-14T22:13:20Z"},
            "spec": {"containers": [{"name": "a"}, {"name": "b"}], "nodeName": "node-1"},
            "status": {"phase": "Running", "podIP": "10.0.0.7", "podIPs": [{"ip": "10.0.0.7"}], "containerStatuses": [
                {"name": "a", "ready": true, "restartCount": 1, "state": {"running": {}}},
                {"name": "b", "ready": false, "restartCount": 2, "state": {"waiting": {"reason": "CrashLoopBackOff"}}}
            ]}
        });
        let cells = pod_cells(&pod, SimTime(1_700_000_000_000 + 150_000));
        assert_eq!(
            cells,
            vec![
                json!("web"),
                json!("1/2"),
                json!("CrashLoopBackOff"),
                json!("3"),
                json!("2m30s"),
                json!("10.0.0.7"),
                json!("node-1"),
                json!("<none>"),
                json!("<none>")
            ]
        );
        let pending =
            json!({"metadata": {"name": "p"}, "spec": {"containers": [{"name": "a"}]}, "status": {"phase": "Pending"}});
        assert_eq!(pod_cells(&pending, SimTime(0))[1..4], [json!("0/1"), json!("Pending"), json!("0")]);
    }

    #[test]
    fn finished_pods_are_marked_completed() {
        assert!(Pod.row_conditions(&json!({"status": {"phase": "Running"}})).is_none());
        let done = Pod.row_conditions(&json!({"status": {"phase": "Succeeded"}})).unwrap();
        assert_eq!(done[0]["reason"], "Succeeded");
    }
}
