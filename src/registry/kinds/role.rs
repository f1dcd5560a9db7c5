//! Roles and ClusterRoles: each rule checked as upstream's RBAC validation
//! checks it (verbs; a rule for resources names groups and resources; a
//! rule for non-resource URLs names nothing else, and only a ClusterRole
//! may have one). Resource names may go with several resources: upstream
//! lets them (kubectl's old client-side refusal of that is not the
//! server's). A ClusterRole's aggregation rule needs a selector, each a
//! valid label selector. They print as the default table, as upstream.

use serde_json::Value;

use super::super::strategy::Strategy;
use crate::api::FieldError;

pub struct Role;
pub struct ClusterRole;

impl Strategy for Role {
    fn validate(&self, obj: &Value) -> Vec<FieldError> {
        rules_problems(obj, true)
    }
}

impl Strategy for ClusterRole {
    fn validate(&self, obj: &Value) -> Vec<FieldError> {
        let mut errs = rules_problems(obj, false);
        if let Some(rule) = obj.get("aggregationRule").filter(|r| !r.is_null()) {
            aggregation_problems(rule, &mut errs);
        }
        errs
    }
}

/// An aggregation rule as upstream's `ValidateClusterRole` checks it: at
/// least one selector, each a valid label selector; a selector that is not
/// also fails to convert to a selector, which upstream reports as well (its
/// value the nil selector the conversion gave, printed `null`).
fn aggregation_problems(rule: &Value, errs: &mut Vec<FieldError>) {
    const AT: &str = "aggregationRule.clusterRoleSelectors";
    let selectors = rule.get("clusterRoleSelectors").and_then(Value::as_array).map_or(&[][..], Vec::as_slice);
    if selectors.is_empty() {
        errs.push(FieldError::required(AT, "at least one clusterRoleSelector required if aggregationRule is non-nil"));
    }
    for (i, sel) in selectors.iter().enumerate() {
        let at = format!("{AT}[{i}]");
        let before = errs.len();
        crate::registry::validation::validate_label_selector(sel, &at, errs);
        if errs.len() > before {
            errs.push(FieldError::invalid(&at, "null", "invalid label selector."));
        }
    }
}

/// Whether every rule is well formed (as every role made at start is);
/// the problems are worked out only when one is not, so that work stays
/// out of the part of the module loaded first.
fn rules_problems(obj: &Value, namespaced: bool) -> Vec<FieldError> {
    let mut ok = true;
    for rule in obj.get("rules").and_then(Value::as_array).into_iter().flatten() {
        let count = |k: &str| rule.get(k).and_then(Value::as_array).map_or(0, Vec::len);
        ok &= count("verbs") > 0
            && if count("nonResourceURLs") > 0 {
                !namespaced && count("apiGroups") + count("resources") + count("resourceNames") == 0
            } else {
                count("apiGroups") > 0 && count("resources") > 0
            };
    }
    if ok {
        return Vec::new();
    }
    rules_errors(obj, namespaced)
}

/// Every problem of the rules, in upstream's order.
#[inline(never)]
fn rules_errors(obj: &Value, namespaced: bool) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for (i, rule) in obj.get("rules").and_then(Value::as_array).into_iter().flatten().enumerate() {
        let list = |k: &str| rule.get(k).and_then(Value::as_array).map_or(&[][..], Vec::as_slice);
        let at = |f: &str| format!("rules[{i}].{f}");
        if list("verbs").is_empty() {
            errs.push(FieldError::required(&at("verbs"), "verbs must contain at least one value"));
        }
        let urls = list("nonResourceURLs");
        if !urls.is_empty() {
            // Shown as Go prints a []string.
            let shown = || {
                let quoted: Vec<String> =
                    urls.iter().map(|u| crate::schema::decode::go_quote(u.as_str().unwrap_or(""))).collect();
                format!("[]string{{{}}}", quoted.join(", "))
            };
            if namespaced {
                errs.push(FieldError::invalid_raw(
                    &at("nonResourceURLs"),
                    &shown(),
                    "namespaced rules cannot apply to non-resource URLs",
                ));
            }
            if !list("apiGroups").is_empty() || !list("resources").is_empty() || !list("resourceNames").is_empty() {
                errs.push(FieldError::invalid_raw(
                    &at("nonResourceURLs"),
                    &shown(),
                    "rules cannot apply to both regular resources and non-resource URLs",
                ));
            }
            continue;
        }
        if list("apiGroups").is_empty() {
            errs.push(FieldError::required(&at("apiGroups"), "resource rules must supply at least one api group"));
        }
        if list("resources").is_empty() {
            errs.push(FieldError::required(&at("resources"), "resource rules must supply at least one resource"));
        }
    }
    errs
}
