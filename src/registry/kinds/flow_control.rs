//! API Priority and Fairness objects (`flowcontrol.apiserver.k8s.io/v1`):
//! FlowSchemas and PriorityLevelConfigurations, with upstream's v1
//! defaults, the common validation rules and kubectl's columns.

use serde_json::{json, Map, Value};

use super::super::strategy::{default, object, Strategy};
use super::super::table::cells::*;
use super::super::table::{col, text, Column, Desc, AGE, NAME};
use crate::api::FieldError;
use crate::clock::SimTime;

pub struct FlowSchema;
pub struct PriorityLevelConfiguration;

const FS_SPEC: &str = "io.k8s.api.flowcontrol.v1.FlowSchemaSpec";
const LIMITED: &str = "io.k8s.api.flowcontrol.v1.LimitedPriorityLevelConfiguration";
const QUEUING: &str = "io.k8s.api.flowcontrol.v1.QueuingConfiguration";

static FS_COLUMNS: &[Column] = &[
    NAME,
    col(
        "PriorityLevel",
        "string",
        Desc::Field("io.k8s.api.flowcontrol.v1.PriorityLevelConfigurationReference", "name"),
    ),
    col("MatchingPrecedence", "string", Desc::Field(FS_SPEC, "matchingPrecedence")),
    col("DistinguisherMethod", "string", Desc::Field(FS_SPEC, "distinguisherMethod")),
    AGE,
    col("MissingPL", "string", text("references a broken or non-existent PriorityLevelConfiguration")),
];

static PL_COLUMNS: &[Column] = &[
    NAME,
    col("Type", "string", Desc::Field("io.k8s.api.flowcontrol.v1.PriorityLevelConfigurationSpec", "type")),
    col("NominalConcurrencyShares", "string", Desc::Field(LIMITED, "nominalConcurrencyShares")),
    col("Queues", "string", Desc::Field(QUEUING, "queues")),
    col("HandSize", "string", Desc::Field(QUEUING, "handSize")),
    col("QueueLengthLimit", "string", Desc::Field(QUEUING, "queueLengthLimit")),
    AGE,
];

fn strs(v: &Value) -> Vec<&str> {
    v.as_array().into_iter().flatten().filter_map(Value::as_str).collect()
}

fn not_supported(errs: &mut Vec<FieldError>, path: &str, value: &str, supported: &[&str]) {
    if value.is_empty() {
        errs.push(FieldError::required(path, ""));
    } else if !supported.contains(&value) {
        errs.push(FieldError::not_supported(path, value, supported));
    }
}

fn validate_subject(s: &Value, path: &str, errs: &mut Vec<FieldError>) {
    let kind = s["kind"].as_str().unwrap_or("");
    not_supported(errs, &format!("{path}.kind"), kind, &["Group", "ServiceAccount", "User"]);
    let (member, needs_namespace) = match kind {
        "User" => ("user", false),
        "Group" => ("group", false),
        "ServiceAccount" => ("serviceAccount", true),
        _ => return,
    };
    let m = &s[member];
    if !m.is_object() {
        errs.push(FieldError::required(
            &format!("{path}.{member}"),
            &format!("{member} is required when subject kind is '{kind}'"),
        ));
        return;
    }
    if m["name"].as_str().unwrap_or("").is_empty() {
        errs.push(FieldError::required(&format!("{path}.{member}.name"), &format!("{member} name is required")));
    }
    if needs_namespace && m["namespace"].as_str().unwrap_or("").is_empty() {
        errs.push(FieldError::required(
            &format!("{path}.serviceAccount.namespace"),
            "must specify namespace for service account",
        ));
    }
}

fn validate_rules(spec: &Value, errs: &mut Vec<FieldError>) {
    for (i, rule) in spec["rules"].as_array().into_iter().flatten().enumerate() {
        let path = format!("spec.rules[{i}]");
        let subjects = rule["subjects"].as_array().map(Vec::as_slice).unwrap_or(&[]);
        if subjects.is_empty() {
            errs.push(FieldError::required(&format!("{path}.subjects"), "subjects must contain at least one value"));
        }
        for (j, s) in subjects.iter().enumerate() {
            validate_subject(s, &format!("{path}.subjects[{j}]"), errs);
        }
        let resource_rules = rule["resourceRules"].as_array().map(Vec::as_slice).unwrap_or(&[]);
        let non_resource_rules = rule["nonResourceRules"].as_array().map(Vec::as_slice).unwrap_or(&[]);
        if resource_rules.is_empty() && non_resource_rules.is_empty() {
            errs.push(FieldError::required(
                &format!("{path}.resourceRules"),
                "at least one of resourceRules and nonResourceRules has to be non-empty",
            ));
        }
        for (j, r) in resource_rules.iter().enumerate() {
            let p = format!("{path}.resourceRules[{j}]");
            for (field, what) in [("verbs", "verbs"), ("apiGroups", "resource rules"), ("resources", "resource rules")]
            {
                if strs(&r[field]).is_empty() {
                    let detail = if field == "verbs" {
                        "verbs must contain at least one value".to_string()
                    } else {
                        format!(
                            "{what} must supply at least one {}",
                            if field == "apiGroups" { "api group" } else { "resource" }
                        )
                    };
                    errs.push(FieldError::required(&format!("{p}.{field}"), &detail));
                }
            }
            if r["clusterScope"] != true && strs(&r["namespaces"]).is_empty() {
                errs.push(FieldError::required(
                    &format!("{p}.namespaces"),
                    "resource rules that are not cluster scoped must supply at least one namespace",
                ));
            }
        }
        for (j, r) in non_resource_rules.iter().enumerate() {
            let p = format!("{path}.nonResourceRules[{j}]");
            if strs(&r["verbs"]).is_empty() {
                errs.push(FieldError::required(&format!("{p}.verbs"), "verbs must contain at least one value"));
            }
            if strs(&r["nonResourceURLs"]).is_empty() {
                errs.push(FieldError::required(
                    &format!("{p}.nonResourceURLs"),
                    "nonResourceURLs must contain at least one value",
                ));
            }
        }
    }
}

impl Strategy for FlowSchema {
    /// v1's default: matchingPrecedence 1000.
    fn defaults(&self, o: &mut Map<String, Value>) {
        if let Some(spec) = object(o, "spec") {
            if spec.get("matchingPrecedence").and_then(Value::as_i64).unwrap_or(0) == 0 {
                spec.insert("matchingPrecedence".into(), json!(1000));
            }
        }
    }

    fn validate(&self, o: &Value) -> Vec<FieldError> {
        let mut errs = Vec::new();
        let spec = &o["spec"];
        let precedence = spec["matchingPrecedence"].as_i64().unwrap_or(0);
        if !(1..=10000).contains(&precedence) {
            errs.push(FieldError::invalid_value(
                "spec.matchingPrecedence",
                &json!(precedence),
                "must be between 1 and 10000 inclusively",
            ));
        }
        if let Some(d) = spec.get("distinguisherMethod").filter(|d| !d.is_null()) {
            let t = d["type"].as_str().unwrap_or("");
            not_supported(&mut errs, "spec.distinguisherMethod.type", t, &["ByNamespace", "ByUser"]);
        }
        if spec["priorityLevelConfiguration"]["name"].as_str().unwrap_or("").is_empty() {
            errs.push(FieldError::required("spec.priorityLevelConfiguration.name", "must reference a priority level"));
        }
        validate_rules(spec, &mut errs);
        errs
    }

    fn columns(&self) -> &[Column] {
        FS_COLUMNS
    }

    fn cells(&self, o: &Value, now: SimTime) -> Vec<Value> {
        let method = o.pointer("/spec/distinguisherMethod/type").and_then(Value::as_str).unwrap_or("<none>");
        let missing = arr(o, "/status/conditions")
            .iter()
            .find(|c| c["type"] == "Dangling")
            .and_then(|c| c["status"].as_str())
            .unwrap_or("?");
        vec![
            name(o),
            s(o, "/spec/priorityLevelConfiguration/name").into(),
            json!(i(o, "/spec/matchingPrecedence")),
            method.into(),
            age(o, now),
            missing.into(),
        ]
    }
}

impl Strategy for PriorityLevelConfiguration {
    /// v1's defaults: a limited level's nominalConcurrencyShares 30 and
    /// lendablePercent 0, its queuing 64 queues, hand size 8, queue
    /// length limit 50; an exempt level's shares and lendable percent 0.
    fn defaults(&self, o: &mut Map<String, Value>) {
        let Some(spec) = object(o, "spec") else { return };
        if let Some(limited) = object(spec, "limited") {
            default(limited, "nominalConcurrencyShares", json!(30));
            default(limited, "lendablePercent", json!(0));
            if let Some(response) = object(limited, "limitResponse") {
                if let Some(q) = object(response, "queuing") {
                    for (k, v) in [("handSize", 8), ("queues", 64), ("queueLengthLimit", 50)] {
                        if q.get(k).and_then(Value::as_i64).unwrap_or(0) == 0 {
                            q.insert(k.into(), json!(v));
                        }
                    }
                }
            }
        }
        if let Some(exempt) = object(spec, "exempt") {
            default(exempt, "nominalConcurrencyShares", json!(0));
            default(exempt, "lendablePercent", json!(0));
        }
    }

    fn validate(&self, o: &Value) -> Vec<FieldError> {
        let mut errs = Vec::new();
        let spec = &o["spec"];
        let ty = spec["type"].as_str().unwrap_or("");
        not_supported(&mut errs, "spec.type", ty, &["Exempt", "Limited"]);
        let limited = spec.get("limited").filter(|l| !l.is_null());
        match (ty, limited) {
            ("Limited", None) => {
                errs.push(FieldError::required("spec.limited", "must not be empty when type is Limited"))
            }
            ("Exempt", Some(_)) => {
                errs.push(FieldError::forbidden("spec.limited", "must be nil if the type is not Limited"))
            }
            _ => {}
        }
        if ty == "Limited" && spec.get("exempt").is_some_and(|e| !e.is_null()) {
            errs.push(FieldError::forbidden("spec.exempt", "must be nil if the type is Limited"));
        }
        if let Some(l) = limited {
            if l["nominalConcurrencyShares"].as_i64().unwrap_or(0) < 0 {
                errs.push(FieldError::invalid_value(
                    "spec.limited.nominalConcurrencyShares",
                    &l["nominalConcurrencyShares"],
                    "must be a non-negative integer",
                ));
            }
            let lendable = l["lendablePercent"].as_i64().unwrap_or(0);
            if !(0..=100).contains(&lendable) {
                errs.push(FieldError::invalid_value(
                    "spec.limited.lendablePercent",
                    &json!(lendable),
                    "must be between 0 and 100, inclusive",
                ));
            }
            if l["borrowingLimitPercent"].as_i64().is_some_and(|b| b < 0) {
                errs.push(FieldError::invalid_value(
                    "spec.limited.borrowingLimitPercent",
                    &l["borrowingLimitPercent"],
                    "if specified, must be a non-negative integer",
                ));
            }
            let response = &l["limitResponse"];
            let rt = response["type"].as_str().unwrap_or("");
            not_supported(&mut errs, "spec.limited.limitResponse.type", rt, &["Queue", "Reject"]);
            let queuing = response.get("queuing").filter(|q| !q.is_null());
            match (rt, queuing) {
                ("Queue", None) => errs.push(FieldError::required(
                    "spec.limited.limitResponse.queuing",
                    "must not be empty if the type is Queue",
                )),
                ("Reject", Some(_)) => errs.push(FieldError::forbidden(
                    "spec.limited.limitResponse.queuing",
                    "must be nil if limited.limitResponse.type is not Limited",
                )),
                _ => {}
            }
            if let Some(q) = queuing {
                validate_queuing(&mut errs, q);
            }
        }
        errs
    }

    fn columns(&self) -> &[Column] {
        PL_COLUMNS
    }

    fn cells(&self, o: &Value, now: SimTime) -> Vec<Value> {
        let limited = o.pointer("/spec/limited").filter(|l| l.is_object());
        let shares = match limited {
            Some(l) => json!(l["nominalConcurrencyShares"].as_i64().unwrap_or(0)),
            None => json!("<none>"),
        };
        let queuing = limited.and_then(|l| l.pointer("/limitResponse/queuing")).filter(|q| q.is_object());
        let q = |k: &str| match queuing {
            Some(q) => json!(q[k].as_i64().unwrap_or(0)),
            None => json!("<none>"),
        };
        vec![name(o), s(o, "/spec/type").into(), shares, q("queues"), q("handSize"), q("queueLengthLimit"), age(o, now)]
    }
}

/// The most queues a level may have (upstream's validation: 10^7).
const MAX_QUEUES: i64 = 10_000_000;

/// A level's queuing, as upstream validates it: each size positive, at
/// most 10^7 queues, a hand no bigger than the deck, and a deal that needs
/// no more of a flow's hash than there is (`shuffle::MAX_HASH_BITS`). A
/// size that is wrong is not checked against the others.
fn validate_queuing(errs: &mut Vec<FieldError>, q: &Value) {
    use crate::flowcontrol::shuffle::{required_entropy_bits, MAX_HASH_BITS};
    let n = |k: &str| q[k].as_i64().unwrap_or(0);
    let (limit, queues, hand) = (n("queueLengthLimit"), n("queues"), n("handSize"));
    let mut invalid = |k: &str, v: i64, why: &str| {
        errs.push(FieldError::invalid_value(&format!("spec.limited.limitResponse.queuing.{k}"), &json!(v), why))
    };
    if limit <= 0 {
        invalid("queueLengthLimit", limit, "must be positive");
    }
    if queues <= 0 {
        invalid("queues", queues, "must be positive");
    } else if queues > MAX_QUEUES {
        invalid("queues", queues, &format!("must not be greater than {MAX_QUEUES}"));
    }
    if hand <= 0 {
        invalid("handSize", hand, "must be positive");
    } else if hand > queues {
        invalid("handSize", hand, &format!("should not be greater than queues ({queues})"));
    } else if required_entropy_bits(queues as u64, hand as u64) > MAX_HASH_BITS {
        let why = format!(
            "required entropy bits of deckSize {queues} and handSize {hand} should not be greater than {MAX_HASH_BITS}"
        );
        invalid("handSize", hand, &why);
    }
}
