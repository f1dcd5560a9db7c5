//! `describe priorityclass`, `describe poddisruptionbudget` and
//! `describe horizontalpodautoscaler`, as kubectl 1.33's describers lay
//! them out.

use super::*;

/// A PriorityClass: its value, whether it is the global default, its
/// preemption policy, description and annotations (one line, as
/// `labels.FormatLabels` writes a map).
pub(super) fn priority_class(s: &mut Session, w: &mut TabWriter, pc: &Value, _: &str) {
    w.w(0, &format!("Name:\t{}\n", text(pc, "/metadata/name")));
    w.w(0, &format!("Value:\t{}\n", int(pc, "/value")));
    w.w(0, &format!("GlobalDefault:\t{}\n", pc["globalDefault"] == true));
    w.w(0, &format!("PreemptionPolicy:\t{}\n", text(pc, "/preemptionPolicy")));
    w.w(0, &format!("Description:\t{}\n", text(pc, "/description")));
    w.w(0, &format!("Annotations:\t{}\n", format_labels(pc.pointer("/metadata/annotations"))));
    events(s, w, pc, "PriorityClass", "");
}

/// A PodDisruptionBudget: its minimum available or maximum unavailable,
/// its selector, and what its status counts.
pub(super) fn disruption_budget(s: &mut Session, w: &mut TabWriter, pdb: &Value, namespace: &str) {
    w.w(0, &format!("Name:\t{}\n", text(pdb, "/metadata/name")));
    w.w(0, &format!("Namespace:\t{}\n", text(pdb, "/metadata/namespace")));
    let set = |field: &str| pdb.pointer(field).filter(|v| !v.is_null());
    if let Some(min) = set("/spec/minAvailable") {
        w.w(0, &format!("Min available:\t{}\n", int_or_string(Some(min))));
    } else if let Some(max) = set("/spec/maxUnavailable") {
        w.w(0, &format!("Max unavailable:\t{}\n", int_or_string(Some(max))));
    }
    match set("/spec/selector") {
        Some(selector) => w.w(0, &format!("Selector:\t{}\n", selector_string(selector))),
        None => w.w(0, "Selector:\t<unset>\n"),
    }
    w.w(0, "Status:\n");
    for (title, field) in [
        ("Allowed disruptions", "/status/disruptionsAllowed"),
        ("Current", "/status/currentHealthy"),
        ("Desired", "/status/desiredHealthy"),
        ("Total", "/status/expectedPods"),
    ] {
        w.w(2, &format!("{title}:\t{}\n", int(pdb, field)));
    }
    events(s, w, pdb, "PodDisruptionBudget", namespace);
}

/// A metric's current value (matched to its spec by place, when the
/// status there is of the same source) or `<unknown>`.
fn current<'v>(statuses: &'v [Value], i: usize, source: &str, field: &str) -> Option<&'v Value> {
    statuses.get(i).map(|s| &s[source]).filter(|s| s.is_object()).map(|s| &s["current"][field]).filter(|v| !v.is_null())
}

fn shown(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.clone(),
        Some(v) => v.to_string(),
        None => "<unknown>".into(),
    }
}

/// One metric's line under `Metrics:`, as kubectl's HPA describer writes it.
fn hpa_metric(w: &mut TabWriter, m: &Value, statuses: &[Value], i: usize) {
    let kind = text(m, "/type");
    let name_of = |source: &str| text(m, &format!("/{source}/metric/name")).to_string();
    match kind {
        "External" | "Object" | "Pods" => {
            let source = match kind {
                "External" => "external",
                "Object" => "object",
                _ => "pods",
            };
            let target = &m[source]["target"];
            let average = kind == "Pods" || target["type"] == "AverageValue";
            let field = if average { "averageValue" } else { "value" };
            let cur = shown(current(statuses, i, source, field));
            let goal = shown(target.get(field).filter(|v| !v.is_null()));
            let which = if average { "(target average value)" } else { "(target value)" };
            match kind {
                "Pods" => w.w(1, &format!("\"{}\" on pods:\t{cur} / {goal}\n", name_of(source))),
                "Object" => {
                    let o = &m["object"]["describedObject"];
                    w.w(1, &format!("\"{}\" on {}/{} ", name_of(source), text(o, "/kind"), text(o, "/name")));
                    w.w(0, &format!("{which}:\t{cur} / {goal}\n"));
                }
                _ => w.w(1, &format!("\"{}\" {which}:\t{cur} / {goal}\n", name_of(source))),
            }
        }
        "Resource" | "ContainerResource" => {
            let source = if kind == "Resource" { "resource" } else { "containerResource" };
            let s = &m[source];
            let what = match kind {
                "Resource" => format!("resource {} on pods", text(s, "/name")),
                _ => format!("resource {} of container \"{}\" on pods", text(s, "/name"), text(s, "/container")),
            };
            w.w(1, &what);
            if s["target"]["type"] == "AverageValue" {
                let cur = shown(current(statuses, i, source, "averageValue"));
                w.w(0, &format!(":\t{cur} / {}\n", shown(s["target"].get("averageValue"))));
            } else {
                let cur = match current(statuses, i, source, "averageUtilization") {
                    Some(p) => format!("{p}% ({})", shown(current(statuses, i, source, "averageValue"))),
                    None => "<unknown>".into(),
                };
                let goal = match s["target"].get("averageUtilization").filter(|v| !v.is_null()) {
                    Some(p) => format!("{p}%"),
                    None => "<auto>".into(),
                };
                w.w(1, &format!("(as a percentage of request):\t{cur} / {goal}\n"));
            }
        }
        other => w.w(1, &format!("<unknown metric type \"{other}\">\n")),
    }
}

/// A HorizontalPodAutoscaler (autoscaling/v2): its target, each metric's
/// current value over its goal, its bounds and behavior, the target's
/// replicas, its conditions.
pub(super) fn autoscaler(s: &mut Session, w: &mut TabWriter, hpa: &Value, namespace: &str) {
    w.w(0, &format!("Name:\t{}\n", text(hpa, "/metadata/name")));
    w.w(0, &format!("Namespace:\t{}\n", text(hpa, "/metadata/namespace")));
    labels(w, "", "Labels", hpa.pointer("/metadata/labels"));
    annotations(w, "Annotations", hpa.pointer("/metadata/annotations"));
    w.w(0, &format!("CreationTimestamp:\t{}\n", rfc1123z(hpa, "/metadata/creationTimestamp")));
    let target = format!("{}/{}", text(hpa, "/spec/scaleTargetRef/kind"), text(hpa, "/spec/scaleTargetRef/name"));
    w.w(0, &format!("Reference:\t{target}\n"));
    w.w(0, "Metrics:\t( current / target )\n");
    let statuses = items(hpa, "/status/currentMetrics");
    for (i, m) in items(hpa, "/spec/metrics").iter().enumerate() {
        hpa_metric(w, m, statuses, i);
    }
    let min = match hpa.pointer("/spec/minReplicas").filter(|v| !v.is_null()) {
        Some(v) => v.to_string(),
        None => "<unset>".into(),
    };
    w.w(0, &format!("Min replicas:\t{min}\n"));
    w.w(0, &format!("Max replicas:\t{}\n", int(hpa, "/spec/maxReplicas")));
    if hpa["spec"]["behavior"].is_object() {
        w.w(0, "Behavior:\n");
        for (title, d) in [("Scale Up", "scaleUp"), ("Scale Down", "scaleDown")] {
            let rules = &hpa["spec"]["behavior"][d];
            if !rules.is_object() {
                continue;
            }
            w.w(1, &format!("{title}:\n"));
            if let Some(window) = rules["stabilizationWindowSeconds"].as_i64() {
                w.w(2, &format!("Stabilization Window: {window} seconds\n"));
            }
            let policies = items(rules, "/policies");
            if !policies.is_empty() {
                w.w(2, &format!("Select Policy: {}\n", rules["selectPolicy"].as_str().unwrap_or("Max")));
                w.w(2, "Policies:\n");
                for p in policies {
                    w.w(
                        3,
                        &format!(
                            "- Type: {}\tValue: {}\tPeriod: {} seconds\n",
                            text(p, "/type"),
                            int(p, "/value"),
                            int(p, "/periodSeconds")
                        ),
                    );
                }
            }
        }
    }
    w.w(
        0,
        &format!(
            "{} pods:\t{} current / {} desired\n",
            text(hpa, "/spec/scaleTargetRef/kind"),
            int(hpa, "/status/currentReplicas"),
            int(hpa, "/status/desiredReplicas")
        ),
    );
    let conditions = items(hpa, "/status/conditions");
    if !conditions.is_empty() {
        w.w(0, "Conditions:\n");
        w.w(1, "Type\tStatus\tReason\tMessage\n");
        w.w(1, "----\t------\t------\t-------\n");
        for c in conditions {
            let row = [text(c, "/type"), text(c, "/status"), text(c, "/reason"), text(c, "/message")];
            w.w(1, &format!("{}\n", row.join("\t")));
        }
    }
    events(s, w, hpa, "HorizontalPodAutoscaler", namespace);
}
