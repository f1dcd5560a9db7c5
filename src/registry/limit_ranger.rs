//! The LimitRanger admission (on in every cluster), for the LimitRanges of
//! the request's namespace: a new pod's containers get the Container
//! items' default requests and limits they lack (said in the pod's
//! `kubernetes.io/limit-ranger` annotation), then a pod's containers and
//! the pod as a whole, and a claim's storage request, are held to the
//! items' min, max and limit/request ratio. The objects themselves are
//! `kinds/limit_range.rs`.

use serde_json::{json, Map, Value};

use super::kinds::limit_range::quantity;
use super::resource::ResourceType;
use super::{keys, Registry};
use crate::api::quantity::milli_value;
use crate::api::Status;
use crate::sort::Order;
use crate::storage::{ListStart, Storage};

const ANNOTATION: &str = "kubernetes.io/limit-ranger";

fn is_pods(rt: &ResourceType) -> bool {
    rt.gvr.group.is_empty() && rt.gvr.resource == "pods"
}

fn is_claims(rt: &ResourceType) -> bool {
    rt.gvr.group.is_empty() && rt.gvr.resource == "persistentvolumeclaims"
}

/// A container's requests and limits, or a pod's summed, in thousandths.
type Amounts = Vec<(String, i128)>;

fn amounts(resources: Option<&Value>, field: &str) -> Amounts {
    let m = resources.and_then(|r| r.get(field)).and_then(Value::as_object);
    m.into_iter().flatten().filter_map(|(k, v)| Some((k.clone(), milli_value(v.as_str()?)?))).collect()
}

fn amount(a: &Amounts, k: &str) -> Option<i128> {
    a.iter().find(|(n, _)| n == k).map(|(_, v)| *v)
}

/// Thousandths as a quantity's text: what upstream's `String()` writes for
/// the sums it makes (`1500m`, `2`, `128Mi` for memory that divides).
fn shown(resource: &str, milli: i128) -> String {
    if milli % 1000 != 0 {
        return format!("{milli}m");
    }
    let n = milli / 1000;
    if resource != "cpu" {
        for (suffix, size) in
            [("Ei", 1i128 << 60), ("Pi", 1 << 50), ("Ti", 1 << 40), ("Gi", 1 << 30), ("Mi", 1 << 20), ("Ki", 1 << 10)]
        {
            if n != 0 && n % size == 0 {
                return format!("{}{suffix}", n / size);
            }
        }
    }
    n.to_string()
}

/// What the item's limits say of one container's (or the pod's) requests
/// and limits: upstream's min, max and ratio constraints, in its words.
fn check(
    item: &Value,
    kind: &str,
    requests: &Amounts,
    limits: &Amounts,
    texts: &dyn Fn(&str, bool) -> String,
    errs: &mut Vec<String>,
) {
    let names = |field: &str| -> Vec<String> {
        let mut n: Vec<String> =
            item.get(field).and_then(Value::as_object).into_iter().flatten().map(|(k, _)| k.clone()).collect();
        n.order();
        n
    };
    for k in names("min") {
        let Some((text, min)) = quantity(item, "min", &k) else { continue };
        match amount(requests, &k) {
            None => errs.push(format!("minimum {k} usage per {kind} is {text}.  No request is specified")),
            Some(r) if r < min => {
                errs.push(format!("minimum {k} usage per {kind} is {text}, but request is {}", texts(&k, true)))
            }
            _ if amount(limits, &k).is_some_and(|l| l < min) => {
                errs.push(format!("minimum {k} usage per {kind} is {text}, but limit is {}", texts(&k, false)))
            }
            _ => {}
        }
    }
    for k in names("max") {
        let Some((text, max)) = quantity(item, "max", &k) else { continue };
        if kind == "PersistentVolumeClaim" {
            match amount(requests, &k) {
                None => errs.push(format!("maximum {k} usage per {kind} is {text}.  No request is specified")),
                Some(r) if r > max => {
                    errs.push(format!("maximum {k} usage per {kind} is {text}, but request is {}", texts(&k, true)))
                }
                _ => {}
            }
            continue;
        }
        match amount(limits, &k) {
            None => errs.push(format!("maximum {k} usage per {kind} is {text}.  No limit is specified")),
            Some(l) if l > max => {
                errs.push(format!("maximum {k} usage per {kind} is {text}, but limit is {}", texts(&k, false)))
            }
            _ if amount(requests, &k).is_some_and(|r| r > max) => {
                errs.push(format!("maximum {k} usage per {kind} is {text}, but request is {}", texts(&k, true)))
            }
            _ => {}
        }
    }
    for k in names("maxLimitRequestRatio") {
        let Some((text, ratio)) = quantity(item, "maxLimitRequestRatio", &k) else { continue };
        let (req, lim) = (amount(requests, &k).unwrap_or(0), amount(limits, &k).unwrap_or(0));
        if req == 0 {
            errs.push(format!(
                "{k} max limit to request ratio per {kind} is {text}, but no request is specified or request is 0"
            ));
        } else if lim == 0 {
            errs.push(format!(
                "{k} max limit to request ratio per {kind} is {text}, but no limit is specified or limit is 0"
            ));
        } else {
            let provided = lim as f64 / req as f64;
            if provided * 1000.0 > ratio as f64 {
                errs.push(format!(
                    "{k} max limit to request ratio per {kind} is {text}, but provided ratio is {provided:.6}"
                ));
            }
        }
    }
}

fn containers(pod: &Value, list: &str) -> Vec<Value> {
    pod.pointer(&format!("/spec/{list}")).and_then(Value::as_array).cloned().unwrap_or_default()
}

/// A pod's requests or limits as upstream sums them (the quota's sum:
/// containers, sidecars, the largest init container, the overhead).
fn pod_amounts(pod: &Value, field: &str) -> Amounts {
    crate::quota::pod_resources(pod, field).into_iter().map(|(k, q)| (k, q.milli)).collect()
}

impl<S: Storage> Registry<S> {
    fn limit_ranges(&self, namespace: &str) -> Vec<Value> {
        let Some(rt) = self.resources.lookup("", "v1", "limitranges") else { return Vec::new() };
        let prefix = keys::prefix(rt, Some(namespace));
        let page = self.storage.list(&prefix, self.storage.revision(), &ListStart::Beginning, None, None);
        page.map(|p| p.items.iter().map(|o| o.value()).collect()).unwrap_or_default()
    }

    /// The mutating half: a new pod's containers get the defaults they
    /// lack, one LimitRange after another, and the annotation says what
    /// the last one that set anything set.
    pub(super) fn admit_limit_ranges(&self, rt: &ResourceType, namespace: &str, value: &mut Value) {
        if !is_pods(rt) {
            return;
        }
        for lr in self.limit_ranges(namespace) {
            let (mut requests, mut limits) = (Map::new(), Map::new());
            for item in lr.pointer("/spec/limits").and_then(Value::as_array).into_iter().flatten() {
                if item.get("type").and_then(Value::as_str) != Some("Container") {
                    continue;
                }
                for (field, into) in [("defaultRequest", &mut requests), ("default", &mut limits)] {
                    for (k, v) in item.get(field).and_then(Value::as_object).into_iter().flatten() {
                        into.insert(k.clone(), v.clone());
                    }
                }
            }
            if requests.is_empty() && limits.is_empty() {
                continue;
            }
            let mut said = Vec::new();
            for (list, prefix) in [("containers", "container"), ("initContainers", "init container")] {
                let Some(Value::Array(cs)) = value.pointer_mut(&format!("/spec/{list}")) else { continue };
                for c in cs.iter_mut().filter_map(Value::as_object_mut) {
                    let name = c.get("name").and_then(Value::as_str).unwrap_or("").to_string();
                    let resources = c.entry("resources").or_insert_with(|| json!({}));
                    let Value::Object(resources) = resources else { continue };
                    for (field, defaults, what) in [("requests", &requests, "request"), ("limits", &limits, "limit")] {
                        let mut set: Vec<String> = Vec::new();
                        let target = resources.entry(field).or_insert_with(|| json!({}));
                        if let Value::Object(target) = target {
                            for (k, v) in defaults {
                                if !target.contains_key(k) {
                                    target.insert(k.clone(), v.clone());
                                    set.push(k.clone());
                                }
                            }
                        }
                        if resources.get(field).and_then(Value::as_object).is_some_and(Map::is_empty) {
                            resources.shift_remove(field);
                        }
                        if !set.is_empty() {
                            set.order();
                            said.push(format!("{} {what} for {prefix} {name}", set.join(", ")));
                        }
                    }
                }
            }
            if !said.is_empty() {
                let text = format!("LimitRanger plugin set: {}", said.join("; "));
                let m = crate::api::meta::metadata_mut(value);
                if let Value::Object(a) = m.entry("annotations").or_insert_with(|| json!({})) {
                    a.insert(ANNOTATION.into(), json!(text));
                }
            }
        }
    }

    /// The validating half, for a new pod (a pod's containers cannot
    /// change, upstream reasons, so an update is not asked), or a claim
    /// created or updated: the first LimitRange any of whose items is
    /// broken refuses it, every broken limit of that range said.
    pub(super) fn validate_limit_ranges(
        &self,
        rt: &ResourceType,
        namespace: &str,
        value: &Value,
        shown_name: &str,
        creating: bool,
    ) -> Result<(), Status> {
        if !(is_claims(rt) || (creating && is_pods(rt))) {
            return Ok(());
        }
        for lr in self.limit_ranges(namespace) {
            let mut errs = Vec::new();
            for item in lr.pointer("/spec/limits").and_then(Value::as_array).into_iter().flatten() {
                let kind = item.get("type").and_then(Value::as_str).unwrap_or("");
                match (kind, is_pods(rt)) {
                    ("Container", true) => {
                        for list in ["containers", "initContainers"] {
                            for c in containers(value, list) {
                                let r = c.get("resources");
                                let (req, lim) = (amounts(r, "requests"), amounts(r, "limits"));
                                let texts = |k: &str, request: bool| {
                                    let field = if request { "requests" } else { "limits" };
                                    r.and_then(|r| r.get(field))
                                        .and_then(|m| m.get(k))
                                        .and_then(Value::as_str)
                                        .unwrap_or("0")
                                        .to_string()
                                };
                                check(item, kind, &req, &lim, &texts, &mut errs);
                            }
                        }
                    }
                    ("Pod", true) => {
                        let (req, lim) = (pod_amounts(value, "requests"), pod_amounts(value, "limits"));
                        let texts = |k: &str, request: bool| {
                            let a = if request { &req } else { &lim };
                            shown(k, amount(a, k).unwrap_or(0))
                        };
                        check(item, kind, &req, &lim, &texts, &mut errs);
                    }
                    ("PersistentVolumeClaim", false) => {
                        let r = value.pointer("/spec/resources");
                        let req = amounts(r, "requests");
                        let item = &json!({"min": item.get("min"), "max": item.get("max")});
                        let texts = |k: &str, _: bool| {
                            r.and_then(|r| r.get("requests"))
                                .and_then(|m| m.get(k))
                                .and_then(Value::as_str)
                                .unwrap_or("0")
                                .to_string()
                        };
                        check(item, kind, &req, &Vec::new(), &texts, &mut errs);
                    }
                    _ => {}
                }
            }
            if !errs.is_empty() {
                let mut unique: Vec<String> = Vec::new();
                for e in errs {
                    if !unique.contains(&e) {
                        unique.push(e);
                    }
                }
                let why = if unique.len() == 1 { unique.remove(0) } else { format!("[{}]", unique.join(", ")) };
                return Err(Status::forbidden(rt.group(), rt.resource(), shown_name, &why));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_print_as_quantities() {
        assert_eq!(shown("cpu", 1500), "1500m");
        assert_eq!(shown("cpu", 2000), "2");
        assert_eq!(shown("memory", 128 * 1024 * 1024 * 1000), "128Mi");
        assert_eq!(shown("memory", 1_000_000_000 * 1000), "1000000000");
    }

    #[test]
    fn a_pod_sums_its_containers_and_takes_its_largest_init_container() {
        let pod = json!({"spec": {
            "containers": [{"resources": {"requests": {"cpu": "100m"}}}, {"resources": {"requests": {"cpu": "200m", "memory": "1Gi"}}}],
            "initContainers": [{"resources": {"requests": {"cpu": "1"}}}, {"restartPolicy": "Always", "resources": {"requests": {"cpu": "50m"}}}]}});
        let req = pod_amounts(&pod, "requests");
        assert_eq!(amount(&req, "cpu"), Some(1000), "the init container's 1 beats 350m");
        assert_eq!(amount(&req, "memory"), Some(1024 * 1024 * 1024 * 1000));
    }
}
