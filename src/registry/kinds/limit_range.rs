//! LimitRanges (core/v1): a Container item's defaults filled from its max
//! and min (`SetDefaults_LimitRangeItem`), validation as upstream's, and
//! the generic columns kube-apiserver answers for them (Name, Created At).
//! What they do to pods and claims is the LimitRanger admission
//! (`registry/limit_ranger.rs`).

use serde_json::{Map, Value};

use super::super::strategy::Strategy;
use super::super::table::{col, Column, Desc, NAME};
use crate::api::quantity::milli_value;
use crate::api::FieldError;
use crate::clock::SimTime;
use crate::sort::Order;

pub struct LimitRange;

const TYPES: &[&str] = &["Pod", "Container", "PersistentVolumeClaim"];
const MAPS: &[&str] = &["max", "min", "default", "defaultRequest", "maxLimitRequestRatio"];

/// The resource names upstream's `standardResources` holds.
const STANDARD: &[&str] = &[
    "cpu",
    "memory",
    "ephemeral-storage",
    "requests.cpu",
    "requests.memory",
    "requests.ephemeral-storage",
    "limits.cpu",
    "limits.memory",
    "limits.ephemeral-storage",
    "pods",
    "resourcequotas",
    "services",
    "replicationcontrollers",
    "secrets",
    "configmaps",
    "persistentvolumeclaims",
    "storage",
    "requests.storage",
    "services.nodeports",
    "services.loadbalancers",
];

static COLUMNS: &[Column] = &[
    NAME,
    col("Created At", "date", Desc::Field("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta", "creationTimestamp")),
];

fn map_of<'a>(item: &'a Value, field: &str) -> Option<&'a Map<String, Value>> {
    item.get(field).and_then(Value::as_object)
}

/// A quantity's text and its value in thousandths.
pub(in crate::registry) fn quantity<'a>(item: &'a Value, field: &str, resource: &str) -> Option<(&'a str, i128)> {
    let text = map_of(item, field)?.get(resource)?.as_str()?;
    Some((text, milli_value(text)?))
}

/// A name a resource list may use unqualified (upstream's
/// `IsStandardResourceName`: the standard names and huge pages).
pub(in crate::registry) fn is_standard_resource(name: &str) -> bool {
    STANDARD.contains(&name) || name.starts_with("hugepages-") || name.starts_with("requests.hugepages-")
}

fn validate_resource_name(kind: &str, name: &str, path: &str, errs: &mut Vec<FieldError>) {
    let qualified = name.contains('/');
    if !qualified && !is_standard_resource(name) {
        errs.push(FieldError::invalid(path, name, "must be a standard resource type or fully qualified"));
    }
    let for_containers = matches!(kind, "Pod" | "Container");
    if for_containers
        && !qualified
        && !matches!(name, "cpu" | "memory" | "ephemeral-storage")
        && !name.starts_with("hugepages-")
    {
        errs.push(FieldError::invalid(path, name, "must be a standard resource for containers"));
    }
}

impl Strategy for LimitRange {
    /// A Container item: the default limit is the max where it has none,
    /// the default request the default limit, else the min.
    fn defaults(&self, o: &mut Map<String, Value>) {
        let Some(Value::Array(items)) = o.get_mut("spec").and_then(|s| s.get_mut("limits")) else { return };
        for item in items.iter_mut().filter_map(Value::as_object_mut) {
            if item.get("type").and_then(Value::as_str) != Some("Container") {
                continue;
            }
            let take = |item: &Map<String, Value>, f: &str| item.get(f).and_then(Value::as_object).cloned();
            let (max, min) = (take(item, "max").unwrap_or_default(), take(item, "min").unwrap_or_default());
            let mut default = take(item, "default").unwrap_or_default();
            for (k, v) in &max {
                default.entry(k.clone()).or_insert_with(|| v.clone());
            }
            let mut request = take(item, "defaultRequest").unwrap_or_default();
            for (k, v) in default.iter().chain(&min) {
                request.entry(k.clone()).or_insert_with(|| v.clone());
            }
            if !default.is_empty() {
                item.insert("default".into(), Value::Object(default));
            }
            if !request.is_empty() {
                item.insert("defaultRequest".into(), Value::Object(request));
            }
        }
    }

    fn validate(&self, o: &Value) -> Vec<FieldError> {
        let mut errs = Vec::new();
        let items = o.pointer("/spec/limits").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
        let mut seen: Vec<&str> = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let at = format!("spec.limits[{i}]");
            let kind = item.get("type").and_then(Value::as_str).unwrap_or("");
            if !kind.contains('/') && !TYPES.contains(&kind) {
                errs.push(FieldError::invalid(
                    &format!("{at}.type"),
                    kind,
                    "must be a standard limit type or fully qualified",
                ));
            }
            if seen.contains(&kind) {
                errs.push(FieldError::duplicate(&format!("{at}.type"), kind));
            }
            seen.push(kind);
            for field in ["max", "min"] {
                for k in map_of(item, field).into_iter().flat_map(Map::keys) {
                    validate_resource_name(kind, k, &format!("{at}.{field}[{k}]"), &mut errs);
                }
            }
            if kind == "Pod" {
                for field in ["default", "defaultRequest"] {
                    if map_of(item, field).is_some_and(|m| !m.is_empty()) {
                        errs.push(FieldError::forbidden(
                            &format!("{at}.{field}"),
                            "may not be specified when `type` is 'Pod'",
                        ));
                    }
                }
            } else {
                for field in ["default", "defaultRequest"] {
                    for k in map_of(item, field).into_iter().flat_map(Map::keys) {
                        validate_resource_name(kind, k, &format!("{at}.{field}[{k}]"), &mut errs);
                    }
                }
            }
            if kind == "PersistentVolumeClaim"
                && quantity(item, "min", "storage").is_none()
                && quantity(item, "max", "storage").is_none()
            {
                errs.push(FieldError::required(
                    &format!("{at}.limits"),
                    "either minimum or maximum storage value is required, but neither was provided",
                ));
            }
            for k in map_of(item, "maxLimitRequestRatio").into_iter().flat_map(Map::keys) {
                validate_resource_name(kind, k, &format!("{at}.maxLimitRequestRatio[{k}]"), &mut errs);
            }
            validate_relations(item, &at, &mut errs);
        }
        errs
    }

    fn columns(&self) -> &[Column] {
        COLUMNS
    }

    fn cells(&self, o: &Value, _now: SimTime) -> Vec<Value> {
        let created = o.pointer("/metadata/creationTimestamp").cloned().unwrap_or(Value::Null);
        vec![super::super::table::cells::name(o), created]
    }
}

/// The limits' order: min ≤ default request ≤ default ≤ max, a ratio of at
/// least 1 and at most max/min. (Resources in name order; upstream walks a
/// Go map.)
fn validate_relations(item: &Value, at: &str, errs: &mut Vec<FieldError>) {
    let mut names: Vec<&str> =
        MAPS.iter().filter_map(|f| map_of(item, f)).flat_map(|m| m.keys()).map(String::as_str).collect();
    names.order();
    names.dedup();
    for k in names {
        let q = |f: &str| quantity(item, f, k);
        let (min, max, default, request, ratio) =
            (q("min"), q("max"), q("default"), q("defaultRequest"), q("maxLimitRequestRatio"));
        let path = |f: &str| format!("{at}.{f}[{k}]");
        let mut invalid = |f: &str, shown: &str, msg: String| errs.push(FieldError::invalid(&path(f), shown, &msg));
        if let (Some(min), Some(max)) = (min, max) {
            if min.1 > max.1 {
                invalid("min", min.0, format!("min value {} is greater than max value {}", min.0, max.0));
            }
        }
        if let (Some(min), Some(req)) = (min, request) {
            if min.1 > req.1 {
                invalid(
                    "defaultRequest",
                    req.0,
                    format!("min value {} is greater than default request value {}", min.0, req.0),
                );
            }
        }
        if let (Some(req), Some(max)) = (request, max) {
            if req.1 > max.1 {
                invalid(
                    "defaultRequest",
                    req.0,
                    format!("default request value {} is greater than max value {}", req.0, max.0),
                );
            }
        }
        if let (Some(req), Some(def)) = (request, default) {
            if req.1 > def.1 {
                invalid(
                    "defaultRequest",
                    req.0,
                    format!("default request value {} is greater than default limit value {}", req.0, def.0),
                );
            }
        }
        if let (Some(min), Some(def)) = (min, default) {
            if min.1 > def.1 {
                invalid("default", min.0, format!("min value {} is greater than default value {}", min.0, def.0));
            }
        }
        if let (Some(def), Some(max)) = (default, max) {
            if def.1 > max.1 {
                invalid("default", max.0, format!("default value {} is greater than max value {}", def.0, max.0));
            }
        }
        if let Some(ratio) = ratio {
            if ratio.1 < 1000 {
                invalid("maxLimitRequestRatio", ratio.0, format!("ratio {} is less than 1", ratio.0));
            }
            if let (Some(min), Some(max)) = (min, max) {
                if min.1 > 0 {
                    let limit = max.1 as f64 / min.1 as f64;
                    if ratio.1 as f64 / 1000.0 > limit {
                        invalid(
                            "maxLimitRequestRatio",
                            ratio.0,
                            format!("ratio {} is greater than max/min = {limit:.6}", ratio.0),
                        );
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_container_items_defaults_come_from_max_then_min() {
        let mut lr = json!({"spec": {"limits": [
            {"type": "Container", "max": {"cpu": "2"}, "min": {"cpu": "100m", "memory": "64Mi"}},
            {"type": "Pod", "max": {"cpu": "4"}}]}});
        LimitRange.defaults(lr.as_object_mut().unwrap());
        let c = &lr["spec"]["limits"][0];
        assert_eq!(c["default"], json!({"cpu": "2"}));
        assert_eq!(c["defaultRequest"], json!({"cpu": "2", "memory": "64Mi"}));
        assert!(lr["spec"]["limits"][1].get("default").is_none(), "only Container items");
    }
}
