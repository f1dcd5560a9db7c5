//! `describe priorityclass` and `describe poddisruptionbudget`, as kubectl
//! 1.33's describers lay them out.

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
