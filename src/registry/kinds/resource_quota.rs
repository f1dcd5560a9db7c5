//! ResourceQuotas (core/v1): validation as upstream's (resource names a
//! quota may hold, quantities whole where they count things, scopes that
//! fit the resources and do not contradict each other, scope selectors),
//! `spec.scopes` fixed once created, the status written only through
//! `/status` (and checked there as the spec is), and kubectl's columns
//! (`Request` and `Limit` as used/hard from the status). What a quota does
//! to writes is the ResourceQuota admission (`registry/resource_quota.rs`),
//! what fills its status the resource quota controller.

use serde_json::{Map, Value};

use super::super::strategy::Strategy;
use super::super::table::cells::*;
use super::super::table::{col, text, Column, AGE, NAME};
use super::limit_range::is_standard_resource;
use crate::api::quantity::Quantity;
use crate::api::FieldError;
use crate::clock::SimTime;
use crate::quota::SCOPES;

pub struct ResourceQuota;

/// Those a quota may hold unqualified (`standardQuotaResources`).
const QUOTA: &[&str] = &[
    "cpu",
    "memory",
    "ephemeral-storage",
    "requests.cpu",
    "requests.memory",
    "requests.storage",
    "requests.ephemeral-storage",
    "limits.cpu",
    "limits.memory",
    "limits.ephemeral-storage",
    "pods",
    "resourcequotas",
    "services",
    "replicationcontrollers",
    "secrets",
    "persistentvolumeclaims",
    "configmaps",
    "services.nodeports",
    "services.loadbalancers",
];

/// Those that count things, so only whole amounts make sense.
const INTEGER: &[&str] = &[
    "pods",
    "resourcequotas",
    "services",
    "replicationcontrollers",
    "secrets",
    "configmaps",
    "persistentvolumeclaims",
    "services.nodeports",
    "services.loadbalancers",
];

/// The compute resources a pod scope may limit.
const POD_COMPUTE: &[&str] = &["cpu", "memory", "limits.cpu", "limits.memory", "requests.cpu", "requests.memory"];

static COLUMNS: &[Column] = &[
    NAME,
    col("Request", "string", text("Request represents a minimum amount of cpu/memory that a container may consume.")),
    col(
        "Limit",
        "string",
        text("Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node."),
    ),
    AGE,
];

fn is_huge_pages(name: &str) -> bool {
    name.starts_with("hugepages-") || name.starts_with("requests.hugepages-")
}

/// A name for a resource not of the cluster's own (`example.com/gpu`,
/// `count/pods`): upstream's `IsExtendedResourceName`, which makes it a
/// count.
fn is_extended(name: &str) -> bool {
    crate::quota::is_extended(name) && crate::selector::label_key_problem(&format!("requests.{name}")).is_none()
}

/// One entry of a quota's resource list (`spec.hard`, `status.hard`,
/// `status.used`): its name and its amount.
fn validate_entry(path: &str, name: &str, value: &Value, errs: &mut Vec<FieldError>) {
    let qualified = crate::selector::label_key_problem(name);
    if let Some(p) = &qualified {
        errs.push(FieldError::invalid(path, name, p));
    }
    if !name.contains('/') {
        if qualified.is_none() && !is_standard_resource(name) {
            errs.push(FieldError::invalid(path, name, "must be a standard resource type or fully qualified"));
        }
        if !QUOTA.contains(&name) && !is_huge_pages(name) {
            errs.push(FieldError::invalid(path, name, "must be a standard resource for quota"));
        }
    }
    let Some(text) = value.as_str() else { return };
    let Some(q) = Quantity::parse(text) else { return };
    if q.milli < 0 {
        errs.push(FieldError::invalid(path, &q.to_string(), "must be greater than or equal to 0"));
    }
    if (INTEGER.contains(&name) || is_extended(name)) && q.milli % 1000 != 0 {
        errs.push(FieldError::invalid_raw(path, &crate::api::quantity::go_syntax(text), "must be an integer"));
    }
}

fn validate_list(o: &Value, at: &str, errs: &mut Vec<FieldError>) {
    let pointer = format!("/{}", at.replace('.', "/"));
    // In name order (upstream walks a Go map, in no order at all).
    let mut entries: Vec<(&String, &Value)> =
        o.pointer(&pointer).and_then(Value::as_object).into_iter().flatten().collect();
    crate::sort::Order::order_by_key(entries.as_mut_slice(), |(k, _)| k.to_string());
    for (k, v) in entries {
        validate_entry(&format!("{at}[{k}]"), k, v, errs);
    }
}

/// Whether `scope` may limit the quota resource `resource`
/// (`IsResourceQuotaScopeValidForResource`).
fn scope_fits(scope: &str, resource: &str) -> bool {
    match scope {
        "Terminating" | "NotTerminating" | "NotBestEffort" | "PriorityClass" | "CrossNamespacePodAffinity" => {
            resource == "pods" || POD_COMPUTE.contains(&resource)
        }
        "BestEffort" => resource == "pods",
        _ => true,
    }
}

fn hard_names(o: &Value) -> Vec<&str> {
    o.pointer("/spec/hard").and_then(Value::as_object).into_iter().flatten().map(|(k, _)| k.as_str()).collect()
}

/// Whether the scopes hold one of the two contradicting pairs, once per pair.
fn conflicts(scopes: &[&str]) -> usize {
    [("BestEffort", "NotBestEffort"), ("Terminating", "NotTerminating")]
        .iter()
        .filter(|(a, b)| scopes.contains(a) && scopes.contains(b))
        .count()
}

fn go_strings(items: &[&str]) -> String {
    items.iter().map(|s| format!("{s:?}")).collect::<Vec<_>>().join(", ")
}

fn validate_scopes(o: &Value, errs: &mut Vec<FieldError>) {
    let Some(scopes) = o.pointer("/spec/scopes").and_then(Value::as_array).filter(|s| !s.is_empty()) else { return };
    let scopes: Vec<&str> = scopes.iter().map(|s| s.as_str().unwrap_or("")).collect();
    let shown = format!("[]core.ResourceQuotaScope{{{}}}", go_strings(&scopes));
    let mut hard = hard_names(o);
    crate::sort::Order::order(hard.as_mut_slice());
    for scope in &scopes {
        if !SCOPES.contains(scope) {
            errs.push(FieldError::invalid_raw("spec.scopes", &shown, "unsupported scope"));
        }
        for k in &hard {
            if QUOTA.contains(k) && !scope_fits(scope, k) {
                errs.push(FieldError::invalid_raw("spec.scopes", &shown, "unsupported scope applied to resource"));
            }
        }
    }
    for _ in 0..conflicts(&scopes) {
        errs.push(FieldError::invalid_raw("spec.scopes", &shown, "conflicting scopes"));
    }
}

fn validate_scope_selector(o: &Value, errs: &mut Vec<FieldError>) {
    let Some(exprs) = o.pointer("/spec/scopeSelector/matchExpressions").and_then(Value::as_array) else { return };
    const AT: &str = "spec.scopeSelector.matchExpressions";
    let str_of = |e: &Value, f: &str| e.get(f).and_then(Value::as_str).unwrap_or("").to_string();
    let values_of = |e: &Value| -> Vec<String> {
        e.get("values")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|v| v.as_str().unwrap_or("").into())
            .collect()
    };
    let shown = {
        let items: Vec<String> = exprs
            .iter()
            .map(|e| {
                let values = match e.get("values").and_then(Value::as_array) {
                    None => "[]string(nil)".to_string(),
                    Some(_) => {
                        let v = values_of(e);
                        format!("[]string{{{}}}", go_strings(&v.iter().map(String::as_str).collect::<Vec<_>>()))
                    }
                };
                format!(
                    "core.ScopedResourceSelectorRequirement{{ScopeName:{:?}, Operator:{:?}, Values:{values}}}",
                    str_of(e, "scopeName"),
                    str_of(e, "operator")
                )
            })
            .collect();
        format!(
            "core.ScopeSelector{{MatchExpressions:[]core.ScopedResourceSelectorRequirement{{{}}}}}",
            items.join(", ")
        )
    };
    let mut hard = hard_names(o);
    crate::sort::Order::order(hard.as_mut_slice());
    let mut names: Vec<String> = Vec::new();
    for e in exprs {
        let (scope, op, values) = (str_of(e, "scopeName"), str_of(e, "operator"), values_of(e));
        if !SCOPES.contains(&scope.as_str()) {
            errs.push(FieldError::invalid(&format!("{AT}.scopeName"), &scope, "unsupported scope"));
        }
        for k in &hard {
            if QUOTA.contains(k) && !scope_fits(&scope, k) {
                errs.push(FieldError::invalid_raw(AT, &shown, "unsupported scope applied to resource"));
            }
        }
        let exists_only = matches!(
            scope.as_str(),
            "BestEffort" | "NotBestEffort" | "Terminating" | "NotTerminating" | "CrossNamespacePodAffinity"
        );
        if exists_only && op != "Exists" {
            errs.push(FieldError::invalid(
                &format!("{AT}.operator"),
                &op,
                "must be 'Exists' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity",
            ));
        }
        match op.as_str() {
            "In" | "NotIn" if values.is_empty() => errs.push(FieldError::required(
                &format!("{AT}.values"),
                "must be at least one value when `operator` is 'In' or 'NotIn' for scope selector",
            )),
            "Exists" | "DoesNotExist" if !values.is_empty() => errs.push(FieldError::invalid_raw(
                &format!("{AT}.values"),
                &format!("[]string{{{}}}", go_strings(&values.iter().map(String::as_str).collect::<Vec<_>>())),
                "must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector",
            )),
            "In" | "NotIn" | "Exists" | "DoesNotExist" => {}
            _ => errs.push(FieldError::invalid(&format!("{AT}.operator"), &op, "not a valid selector operator")),
        }
        names.push(scope);
    }
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let scopes: Vec<&str> =
        o.pointer("/spec/scopes").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
    for _ in 0..conflicts(&names) {
        errs.push(FieldError::invalid_raw(
            AT,
            &if scopes.is_empty() {
                "[]core.ResourceQuotaScope(nil)".to_string()
            } else {
                format!("[]core.ResourceQuotaScope{{{}}}", go_strings(&scopes))
            },
            "conflicting scopes",
        ));
    }
}

/// `Request` and `Limit`: `name: used/hard` for every name of the status's
/// hard amounts, in name order, those led by `limits.` in the second.
fn request_and_limit(o: &Value) -> (String, String) {
    let hard = o.pointer("/status/hard").and_then(Value::as_object);
    let used = o.pointer("/status/used").and_then(Value::as_object);
    let mut names: Vec<&String> = hard.into_iter().flatten().map(|(k, _)| k).collect();
    crate::sort::Order::order(names.as_mut_slice());
    let shown = |v: Option<&Value>| {
        v.and_then(Value::as_str).and_then(Quantity::parse).map(|q| q.to_string()).unwrap_or_else(|| "0".into())
    };
    let (mut request, mut limit) = (Vec::new(), Vec::new());
    for k in names {
        let entry = format!("{k}: {}/{}", shown(used.and_then(|u| u.get(k))), shown(hard.and_then(|h| h.get(k))));
        if k.split('.').next() == Some("limits") && k.contains('.') {
            limit.push(entry);
        } else {
            request.push(entry);
        }
    }
    (request.join(", "), limit.join(", "))
}

impl Strategy for ResourceQuota {
    /// The hard amounts as upstream stores them: decoded and written
    /// again, so canonical (`1000m` is `1`), except those validation
    /// refuses (negative, or a fraction of what must be whole), left as
    /// they came for its message to name them as upstream's does.
    fn defaults(&self, o: &mut Map<String, Value>) {
        let Some(Value::Object(hard)) = o.get_mut("spec").and_then(|s| s.get_mut("hard")) else { return };
        for (name, v) in hard.iter_mut() {
            let Some(text) = v.as_str() else { continue };
            let refused = |q: Quantity| {
                q.milli < 0 || (INTEGER.contains(&name.as_str()) || is_extended(name)) && q.milli % 1000 != 0
            };
            if Quantity::parse(text).is_some_and(refused) {
                continue;
            }
            if let Ok(stored) = crate::api::quantity::canonical(text.trim()) {
                *v = Value::String(stored.into_owned());
            }
        }
    }

    fn keeps_quantities(&self) -> bool {
        true
    }

    fn validate(&self, o: &Value) -> Vec<FieldError> {
        let mut errs = Vec::new();
        validate_list(o, "spec.hard", &mut errs);
        validate_scopes(o, &mut errs);
        validate_scope_selector(o, &mut errs);
        errs
    }

    fn validate_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        let listed = |o: &Value| -> Vec<String> {
            let scopes = o.pointer("/spec/scopes").and_then(Value::as_array).into_iter().flatten();
            scopes.map(|v| v.as_str().unwrap_or("").to_string()).collect()
        };
        // Compared as sets.
        let scopes = |o: &Value| {
            let mut s = listed(o);
            crate::sort::Order::order(s.as_mut_slice());
            s.dedup();
            s
        };
        if scopes(new) != scopes(old) {
            let shown = listed(new);
            let value = if shown.is_empty() {
                "[]core.ResourceQuotaScope(nil)".to_string()
            } else {
                format!(
                    "[]core.ResourceQuotaScope{{{}}}",
                    go_strings(&shown.iter().map(String::as_str).collect::<Vec<_>>())
                )
            };
            return vec![FieldError::invalid_raw("spec.scopes", &value, "field is immutable")];
        }
        Vec::new()
    }

    fn validate_status_update(&self, new: &Value, _old: &Value) -> Vec<FieldError> {
        let mut errs = Vec::new();
        validate_list(new, "status.hard", &mut errs);
        validate_list(new, "status.used", &mut errs);
        errs
    }

    fn columns(&self) -> &[Column] {
        COLUMNS
    }

    fn cells(&self, o: &Value, now: SimTime) -> Vec<Value> {
        let (request, limit) = request_and_limit(o);
        vec![name(o), request.into(), limit.into(), age(o, now)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn errors(o: Value) -> Vec<String> {
        ResourceQuota.validate(&o).iter().map(ToString::to_string).collect()
    }

    #[test]
    fn hard_names_and_amounts_are_checked_as_upstream() {
        let errs = errors(
            json!({"spec": {"hard": {"foo": "1", "storage": "1", "pods": "1500m", "cpu": "-1", "count/pods": "2"}}}),
        );
        assert_eq!(
            errs,
            [
                r#"spec.hard[cpu]: Invalid value: "-1": must be greater than or equal to 0"#,
                r#"spec.hard[foo]: Invalid value: "foo": must be a standard resource type or fully qualified"#,
                r#"spec.hard[foo]: Invalid value: "foo": must be a standard resource for quota"#,
                r#"spec.hard[pods]: Invalid value: resource.Quantity{i:resource.int64Amount{value:1500, scale:-3}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"1500m", Format:"DecimalSI"}: must be an integer"#,
                r#"spec.hard[storage]: Invalid value: "storage": must be a standard resource for quota"#,
            ]
        );
        assert_eq!(errors(json!({"spec": {"hard": {"count/deployments.apps": "0.5"}}})).len(), 1, "a count is whole");
        assert!(
            errors(json!({"spec": {"hard": {"requests.example.com/gpu": "0.5", "hugepages-2Mi": "1Gi"}}})).is_empty()
        );
    }

    #[test]
    fn scopes_must_fit_the_resources_and_each_other() {
        let errs = errors(
            json!({"spec": {"hard": {"pods": "1", "services": "1"}, "scopes": ["BestEffort", "NotBestEffort", "Bogus"]}}),
        );
        let scopes = r#"[]core.ResourceQuotaScope{"BestEffort", "NotBestEffort", "Bogus"}"#;
        assert_eq!(
            errs,
            [
                format!("spec.scopes: Invalid value: {scopes}: unsupported scope applied to resource"),
                format!("spec.scopes: Invalid value: {scopes}: unsupported scope applied to resource"),
                format!("spec.scopes: Invalid value: {scopes}: unsupported scope"),
                format!("spec.scopes: Invalid value: {scopes}: conflicting scopes"),
            ]
        );
    }

    #[test]
    fn scope_selectors_name_their_operators_rightly() {
        let errs = errors(json!({"spec": {"hard": {"pods": "1"}, "scopeSelector": {"matchExpressions": [
            {"scopeName": "BestEffort", "operator": "In", "values": ["x"]},
            {"scopeName": "PriorityClass", "operator": "In"}]}}}));
        assert_eq!(
            errs,
            [
                "spec.scopeSelector.matchExpressions.operator: Invalid value: \"In\": must be 'Exists' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity",
                "spec.scopeSelector.matchExpressions.values: Required value: must be at least one value when `operator` is 'In' or 'NotIn' for scope selector",
            ]
        );
    }

    #[test]
    fn scopes_cannot_change() {
        let old = json!({"spec": {"hard": {"pods": "1"}, "scopes": ["BestEffort"]}});
        let new = json!({"spec": {"hard": {"pods": "1"}}});
        assert_eq!(
            ResourceQuota.validate_update(&new, &old)[0].to_string(),
            "spec.scopes: Invalid value: []core.ResourceQuotaScope(nil): field is immutable"
        );
        assert!(ResourceQuota.validate_update(&old, &old).is_empty());
    }

    #[test]
    fn columns_show_used_of_hard_from_the_status() {
        let o = json!({"status": {"hard": {"pods": "10", "limits.cpu": "2", "requests.memory": "1Gi", "count/configmaps": "5"},
            "used": {"pods": "2", "requests.memory": "268435456"}}});
        assert_eq!(
            request_and_limit(&o),
            ("count/configmaps: 0/5, pods: 2/10, requests.memory: 268435456/1Gi".into(), "limits.cpu: 0/2".into())
        );
    }
}
