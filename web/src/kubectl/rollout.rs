//! `rollout status|history|restart|undo|pause|resume` of Deployments, as
//! kubectl 1.33 sends and prints them: `undo` reads the Deployment and its
//! ReplicaSets (by the Deployment's selector, then by owner) and puts the
//! chosen revision's template back with a JSON patch; `pause` and `resume`
//! flip `spec.paused` with a strategic merge patch. StatefulSets and
//! DaemonSets: `status`, `restart`, and `history` and `undo` through their
//! ControllerRevisions (the revision's stored patch sent back as it is).

use kubesim::sort::Order;

use super::describe::selector_string;
use super::imperative::{change, namespace, read, targets};
use super::*;

/// The annotations `rollout undo` keeps from the Deployment rather than
/// take from the ReplicaSet it rolls back to (kubectl's list).
const KEPT_ON_UNDO: [&str; 6] = [
    "kubectl.kubernetes.io/last-applied-configuration",
    "deployment.kubernetes.io/revision",
    "deployment.kubernetes.io/revision-history",
    "deployment.kubernetes.io/desired-replicas",
    "deployment.kubernetes.io/max-replicas",
    "deprecated.deployment.rollback.to",
];

/// `rollout SUB TYPE/NAME…` (or `TYPE NAME…`, or `TYPE` for every one in
/// the namespace).
pub(super) fn rollout(s: &mut Session, d: &Discovery, cmd: &Command, out: &mut Outcome) {
    let (sub, rest) = match cmd.args.split_first() {
        Some((sub, rest)) => (sub.as_str(), rest),
        None => {
            return out
                .error("error: kubectl rollout needs a sub-command: status, history, restart, undo, pause or resume")
        }
    };
    if !matches!(sub, "status" | "restart" | "history" | "undo" | "pause" | "resume") {
        return out.error(format!(
            "\"kubectl rollout {sub}\" is not simulated in this command bar; it knows rollout status, history, restart, undo, pause and resume"
        ));
    }
    if cmd.server_dry_run && matches!(sub, "pause" | "resume" | "status" | "history") {
        return out.error(format!("error: unknown flag: --dry-run\nSee 'kubectl rollout {sub} --help' for usage."));
    }
    if rest.is_empty() {
        return out.error("error: required resource not specified");
    }
    let ns = namespace(cmd);
    let targets = match rest {
        [kind] if !kind.contains('/') => {
            let Some(r) = resolve(d, kind, out) else { return };
            let Some(list) = read(s, &r.collection(Some(&ns)), out) else { return };
            let names: Vec<String> =
                items(&list).iter().filter_map(|o| o.pointer("/metadata/name")?.as_str().map(str::to_string)).collect();
            names.into_iter().map(|n| (r.clone(), n)).collect()
        }
        _ => match targets(d, rest, out) {
            Some(t) => t,
            None => return,
        },
    };
    for (r, name) in targets {
        if matches!(r.kind.as_str(), "StatefulSet" | "DaemonSet") && sub != "pause" && sub != "resume" {
            match sub {
                "status" => set_status(s, &r, &ns, &name, out),
                "restart" => restart(s, cmd, &r, &ns, &name, out),
                "undo" => revision_undo(s, cmd, &r, &ns, &name, out),
                _ => revision_history(s, &r, &ns, &name, out),
            }
            continue;
        }
        if r.kind != "Deployment" {
            // kubectl's own words for the kinds it has no viewer,
            // rollbacker, pauser or restarter for, once it has read the
            // object.
            let group_kind = if r.group.is_empty() { r.kind.clone() } else { format!("{}.{}", r.kind, r.group) };
            let refusal = match sub {
                "pause" => format!("{} \"{name}\" pausing is not supported", plural_ref(&r)),
                "resume" => format!("{} \"{name}\" resuming is not supported", plural_ref(&r)),
                "status" => format!("no status viewer has been implemented for {group_kind}"),
                "history" => format!("no history viewer has been implemented for {group_kind:?}"),
                "undo" => format!("no rollbacker has been implemented for {group_kind:?}"),
                _ => format!("{} \"{name}\" restarting is not supported", plural_ref(&r)),
            };
            let Some(_) = read(s, &r.item(Some(&ns), &name), out) else { continue };
            out.error(format!("error: {refusal}"));
            continue;
        }
        match sub {
            "status" => rollout_status(s, &r, &ns, &name, out),
            "restart" => restart(s, cmd, &r, &ns, &name, out),
            "undo" => undo(s, cmd, &r, &ns, &name, out),
            "pause" | "resume" => pause(s, &r, &ns, &name, sub == "pause", out),
            _ => rollout_history(s, d, &r, &ns, &name, out),
        }
    }
}

/// `rollout restart`: the Deployment read, then its pod template stamped
/// with `kubectl.kubernetes.io/restartedAt` (now, to the second) unless it
/// is paused, or was stamped this same second (kubectl's patch would be
/// empty).
fn restart(s: &mut Session, cmd: &Command, r: &ApiResource, ns: &str, name: &str, out: &mut Outcome) {
    let item = r.item(Some(ns), name);
    let Some(live) = read(s, &item, out) else { return };
    if live.pointer("/spec/paused").and_then(Value::as_bool) == Some(true) {
        return out.error(format!(
            "error: {} \"{name}\" can't restart paused deployment (run rollout resume first)",
            plural_ref(r)
        ));
    }
    let at = kubesim::clock::SimTime(s.clock.wall).rfc3339();
    let stamp = live.pointer("/spec/template/metadata/annotations/kubectl.kubernetes.io~1restartedAt");
    if stamp.and_then(Value::as_str) == Some(at.as_str()) {
        return out.error(format!("error: failed to create patch for {name}: if restart has already been triggered within the past second, please wait before attempting to trigger another"));
    }
    let patch = json!({"spec": {"template": {"metadata": {"annotations": {"kubectl.kubernetes.io/restartedAt": at}}}}});
    let target = dry(cmd, format!("{item}?fieldManager=kubectl-rollout"));
    let done = format!("{} restarted", name_ref(r, name));
    change(s, "PATCH", target, "application/strategic-merge-patch+json", &patch, done, out);
}

/// `deployments.apps`: the resource and its group, as kubectl names an
/// object in the errors of `rollout pause` and `resume`.
fn plural_ref(r: &ApiResource) -> String {
    if r.group.is_empty() {
        r.resource.clone()
    } else {
        format!("{}.{}", r.resource, r.group)
    }
}

fn items(list: &Value) -> &[Value] {
    list.get("items").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[])
}

/// `rollout pause` (or `resume`): the Deployment read, then `spec.paused`
/// set (or removed: false is left out of the JSON kubectl diffs) unless it
/// already is.
fn pause(s: &mut Session, r: &ApiResource, ns: &str, name: &str, paused: bool, out: &mut Outcome) {
    let item = r.item(Some(ns), name);
    let Some(live) = read(s, &item, out) else { return };
    let now = live.pointer("/spec/paused").and_then(Value::as_bool).unwrap_or(false);
    if now == paused {
        let state = if paused { "is already paused" } else { "is not paused" };
        return out.error(format!("error: {} \"{name}\" {state}", plural_ref(r)));
    }
    let patch = json!({"spec": {"paused": if paused { json!(true) } else { Value::Null }}});
    let done = format!("{} {}", name_ref(r, name), if paused { "paused" } else { "resumed" });
    change(
        s,
        "PATCH",
        format!("{item}?fieldManager=kubectl-rollout"),
        "application/strategic-merge-patch+json",
        &patch,
        done,
        out,
    );
}

/// A pod template without the label the Deployment controller adds to its
/// ReplicaSets' templates.
fn without_hash(template: &Value) -> Value {
    let mut t = template.clone();
    if let Some(labels) = t.pointer_mut("/metadata/labels").and_then(Value::as_object_mut) {
        labels.remove("pod-template-hash");
    }
    t
}

/// `rollout undo [--to-revision=N]`: the ReplicaSet of that revision (by
/// default the newest but one) found among the Deployment's, then its
/// template and annotations patched into the Deployment, as kubectl's
/// Deployment rollbacker does (in its order: the revision is looked for
/// before a paused Deployment is refused).
fn undo(s: &mut Session, cmd: &Command, r: &ApiResource, ns: &str, name: &str, out: &mut Outcome) {
    let item = r.item(Some(ns), name);
    let Some(_) = read(s, &item, out) else { return };
    let to = cmd.to_revision.unwrap_or(0);
    if to < 0 {
        return out.error(format!("error: unable to find specified revision {to} in history"));
    }
    let Some(dep) = read(s, &item, out) else { return };
    let selector = dep.pointer("/spec/selector").map(selector_string).unwrap_or_default();
    let sets =
        format!("/apis/apps/v1/namespaces/{ns}/replicasets?{}", build_query(&[("labelSelector".into(), selector)]));
    let Some(list) = read(s, &sets, out) else { return };
    let uid = dep.pointer("/metadata/uid").cloned().unwrap_or(Value::Null);
    let owned = items(&list).iter().filter(|rs| {
        rs.pointer("/metadata/ownerReferences")
            .and_then(Value::as_array)
            .is_some_and(|refs| refs.iter().any(|o| o["uid"] == uid && o["controller"] == true))
    });
    let revision = |rs: &Value| -> Option<i64> {
        rs.pointer("/metadata/annotations/deployment.kubernetes.io~1revision")?.as_str()?.parse().ok()
    };
    // (revision, set) of the newest and the one before it, or the one asked for.
    let mut newest: Option<(i64, &Value)> = None;
    let mut before: Option<(i64, &Value)> = None;
    let mut asked = None;
    for rs in owned {
        let Some(v) = revision(rs) else { continue };
        if to != 0 {
            if v == to {
                asked = Some(rs);
                break;
            }
        } else if newest.is_none_or(|(n, _)| n < v) {
            before = newest;
            newest = Some((v, rs));
        } else if before.is_none_or(|(b, _)| b < v) {
            before = Some((v, rs));
        }
    }
    let target = match (to, asked, before) {
        (0, _, Some((_, rs))) => rs,
        (0, _, None) => return out.error(format!("error: no rollout history found for deployment \"{name}\"")),
        (_, Some(rs), _) => rs,
        _ => return out.error(format!("error: unable to find specified revision {to} in history")),
    };
    if dep.pointer("/spec/paused").and_then(Value::as_bool) == Some(true) {
        return out.error(
            "error: you cannot rollback a paused deployment; resume it first with 'kubectl rollout resume' and try again",
        );
    }
    let template = without_hash(target.pointer("/spec/template").unwrap_or(&Value::Null));
    if template == without_hash(dep.pointer("/spec/template").unwrap_or(&Value::Null)) {
        // kubectl names the revision it was asked for: 0 by default.
        return out
            .line(format!("{} skipped rollback (current template already matches revision {to})", name_ref(r, name)));
    }
    let mut annotations = std::collections::BTreeMap::new();
    let of = |o: &Value| o.pointer("/metadata/annotations").and_then(Value::as_object).cloned().unwrap_or_default();
    for (k, v) in of(&dep) {
        if KEPT_ON_UNDO.contains(&k.as_str()) {
            annotations.insert(k, v);
        }
    }
    for (k, v) in of(target) {
        if !KEPT_ON_UNDO.contains(&k.as_str()) {
            annotations.insert(k, v);
        }
    }
    let patch = json!([
        {"op": "replace", "path": "/spec/template", "value": template},
        {"op": "replace", "path": "/metadata/annotations", "value": annotations},
    ]);
    let suffix = if cmd.server_dry_run { " (server dry run)" } else { "" };
    let done = format!("{} rolled back{suffix}", name_ref(r, name));
    change(s, "PATCH", dry(cmd, item), "application/json-patch+json", &patch, done, out);
}

/// The Deployment read as `rollout status` first reads it (a list by
/// name); its state in kubectl's words. kubectl then watches until the
/// rollout is done; the command bar answers at once.
fn rollout_status(s: &mut Session, r: &ApiResource, ns: &str, name: &str, out: &mut Outcome) {
    let Some(dep) = listed_by_name(s, r, ns, name, out) else { return };
    let dep = &dep;
    let n = |p: &str| dep.pointer(p).and_then(Value::as_i64).unwrap_or(0);
    let replicas = dep.pointer("/spec/replicas").and_then(Value::as_i64).unwrap_or(1);
    if n("/metadata/generation") > n("/status/observedGeneration") {
        return out.line("Waiting for deployment spec update to be observed...");
    }
    let stalled = dep
        .pointer("/status/conditions")
        .and_then(Value::as_array)
        .is_some_and(|cs| cs.iter().any(|c| c["type"] == "Progressing" && c["reason"] == "ProgressDeadlineExceeded"));
    let (updated, current, available) =
        (n("/status/updatedReplicas"), n("/status/replicas"), n("/status/availableReplicas"));
    let line = if stalled {
        return out.error(format!("error: deployment \"{name}\" exceeded its progress deadline"));
    } else if updated < replicas {
        format!("Waiting for deployment \"{name}\" rollout to finish: {updated} out of {replicas} new replicas have been updated...")
    } else if current > updated {
        format!(
            "Waiting for deployment \"{name}\" rollout to finish: {} old replicas are pending termination...",
            current - updated
        )
    } else if available < updated {
        format!("Waiting for deployment \"{name}\" rollout to finish: {available} of {updated} updated replicas are available...")
    } else {
        return out.line(format!("deployment \"{name}\" successfully rolled out"));
    };
    still_rolling(line, out);
}

/// A StatefulSet's or DaemonSet's ControllerRevisions, oldest first, as
/// kubectl's history and rollbacker read them: the object (read twice:
/// the builder, then the history), then the revisions its selector
/// picks, kept when it controls them.
fn controller_revisions(
    s: &mut Session,
    r: &ApiResource,
    ns: &str,
    name: &str,
    out: &mut Outcome,
) -> Option<(Value, Vec<Value>)> {
    let item = r.item(Some(ns), name);
    read(s, &item, out)?;
    let live = read(s, &item, out)?;
    let selector = live.pointer("/spec/selector").map(selector_string).unwrap_or_default();
    let query = build_query(&[("labelSelector".into(), selector)]);
    let list = read(s, &format!("/apis/apps/v1/namespaces/{ns}/controllerrevisions?{query}"), out)?;
    let uid = live.pointer("/metadata/uid").cloned().unwrap_or(Value::Null);
    let mut owned: Vec<Value> = items(&list)
        .iter()
        .filter(|cr| {
            cr.pointer("/metadata/ownerReferences")
                .and_then(Value::as_array)
                .is_some_and(|refs| refs.iter().any(|o| o["uid"] == uid && o["controller"] == true))
        })
        .cloned()
        .collect();
    owned.order_by_key(|cr| cr["revision"].as_i64().unwrap_or(0));
    Some((live, owned))
}

/// `rollout history` of a StatefulSet or DaemonSet: its revisions and
/// their `kubernetes.io/change-cause`.
fn revision_history(s: &mut Session, r: &ApiResource, ns: &str, name: &str, out: &mut Outcome) {
    let Some((_, owned)) = controller_revisions(s, r, ns, name, out) else { return };
    if owned.is_empty() {
        out.line(format!("{} ", name_ref(r, name)));
        out.line("No rollout history found.");
        return;
    }
    let revisions: Vec<(i64, String)> = owned
        .iter()
        .map(|cr| {
            let cause = cr.pointer("/metadata/annotations/kubernetes.io~1change-cause").and_then(Value::as_str);
            (cr["revision"].as_i64().unwrap_or(0), cause.filter(|c| !c.is_empty()).unwrap_or("<none>").to_string())
        })
        .collect();
    history_table(r, name, revisions, out);
}

/// `rollout undo [--to-revision=N]` of a StatefulSet or DaemonSet: the
/// revision asked for (by default the newest but one) unless the object's
/// template is it already, its stored patch sent as a strategic merge
/// patch.
fn revision_undo(s: &mut Session, cmd: &Command, r: &ApiResource, ns: &str, name: &str, out: &mut Outcome) {
    let Some((live, owned)) = controller_revisions(s, r, ns, name, out) else { return };
    let to = cmd.to_revision.unwrap_or(0);
    let target = match to {
        0 if owned.len() > 1 => owned.get(owned.len() - 2),
        0 => None,
        n => owned.iter().find(|cr| cr["revision"].as_i64() == Some(n)),
    };
    let Some(target) = target else {
        return out.error(format!("error: unable to find specified revision {to} in history"));
    };
    if kubesim::controllers::history::patch_data(&live) == target["data"] {
        return out
            .line(format!("{} skipped rollback (current template already matches revision {to})", name_ref(r, name)));
    }
    let suffix = if cmd.server_dry_run { " (server dry run)" } else { "" };
    let done = format!("{} rolled back{suffix}", name_ref(r, name));
    let item = dry(cmd, r.item(Some(ns), name));
    change(s, "PATCH", item, "application/strategic-merge-patch+json", &target["data"], done, out);
}

/// `rollout status` of a StatefulSet or DaemonSet, in kubectl's status
/// viewers' words, from the object read as a list by name.
fn set_status(s: &mut Session, r: &ApiResource, ns: &str, name: &str, out: &mut Outcome) {
    let Some(o) = listed_by_name(s, r, ns, name, out) else { return };
    let o = &o;
    let n = |p: &str| o.pointer(p).and_then(Value::as_i64).unwrap_or(0);
    let strategy = o.pointer("/spec/updateStrategy/type").and_then(Value::as_str).unwrap_or("");
    if strategy != "RollingUpdate" {
        return out.error("error: rollout status is only available for RollingUpdate strategy type");
    }
    let (line, done) = if r.kind == "DaemonSet" {
        let (desired, updated, available) =
            (n("/status/desiredNumberScheduled"), n("/status/updatedNumberScheduled"), n("/status/numberAvailable"));
        if n("/metadata/generation") > n("/status/observedGeneration") {
            ("Waiting for daemon set spec update to be observed...".to_string(), false)
        } else if updated < desired {
            (format!("Waiting for daemon set \"{name}\" rollout to finish: {updated} out of {desired} new pods have been updated..."), false)
        } else if available < desired {
            (format!("Waiting for daemon set \"{name}\" rollout to finish: {available} of {desired} updated pods are available..."), false)
        } else {
            (format!("daemon set \"{name}\" successfully rolled out"), true)
        }
    } else {
        let replicas = o.pointer("/spec/replicas").and_then(Value::as_i64).unwrap_or(1);
        let partition = o.pointer("/spec/updateStrategy/rollingUpdate/partition").and_then(Value::as_i64);
        let observed = n("/status/observedGeneration");
        if observed == 0 || n("/metadata/generation") > observed {
            ("Waiting for statefulset spec update to be observed...".to_string(), false)
        } else if n("/status/readyReplicas") < replicas {
            (format!("Waiting for {} pods to be ready...", replicas - n("/status/readyReplicas")), false)
        } else if o.pointer("/spec/updateStrategy/rollingUpdate").is_some_and(|u| !u.is_null()) {
            let updated = n("/status/updatedReplicas");
            match partition {
                Some(p) if updated < replicas - p => (
                    format!(
                        "Waiting for partitioned roll out to finish: {updated} out of {} new pods have been updated...",
                        replicas - p
                    ),
                    false,
                ),
                _ => (format!("partitioned roll out complete: {updated} new pods have been updated..."), true),
            }
        } else {
            let text = |p: &str| o.pointer(p).and_then(Value::as_str).unwrap_or("").to_string();
            let (current, update) = (text("/status/currentRevision"), text("/status/updateRevision"));
            if current != update {
                (
                    format!(
                        "waiting for statefulset rolling update to complete {} pods at revision {update}...",
                        n("/status/updatedReplicas")
                    ),
                    false,
                )
            } else {
                (
                    format!(
                        "statefulset rolling update complete {} pods at revision {current}...",
                        n("/status/currentReplicas")
                    ),
                    true,
                )
            }
        }
    };
    if done {
        out.line(line);
    } else {
        still_rolling(line, out);
    }
}

/// The object `rollout status` reads first, as a list by name (kubectl's
/// watcher lists it so), or the NotFound kubectl prints.
fn listed_by_name(s: &mut Session, r: &ApiResource, ns: &str, name: &str, out: &mut Outcome) -> Option<Value> {
    let query = build_query(&[("fieldSelector".into(), format!("metadata.name={name}"))]);
    let mut list = read(s, &format!("{}?{query}", r.collection(Some(ns))), out)?;
    match list.get_mut("items").and_then(Value::as_array_mut).filter(|i| !i.is_empty()) {
        Some(found) => Some(found.swap_remove(0)),
        None => {
            out.error(format!("Error from server (NotFound): {} \"{name}\" not found", plural_ref(r)));
            None
        }
    }
}

/// A rollout not done yet: where it stands, and that kubectl would watch on.
fn still_rolling(line: String, out: &mut Outcome) {
    out.line(line);
    out.line("(kubectl would keep watching until the rollout is done; here, run it again as the clock moves.)");
}

/// kubectl's history table: a tabwriter padded by two, then the name
/// printer's own line break (hence the blank line at the end).
fn history_table(r: &ApiResource, name: &str, revisions: Vec<(i64, String)>, out: &mut Outcome) {
    out.line(format!("{} ", name_ref(r, name)));
    let width = revisions.iter().map(|(rev, _)| rev.to_string().len()).max().unwrap_or(0).max("REVISION".len()) + 2;
    out.line(format!("{:width$}CHANGE-CAUSE", "REVISION"));
    for (rev, cause) in revisions {
        out.line(format!("{:width$}{cause}", rev.to_string()));
    }
    out.line("");
}

/// `rollout history`: the Deployment's ReplicaSets by their revision.
fn rollout_history(s: &mut Session, d: &Discovery, r: &ApiResource, ns: &str, name: &str, out: &mut Outcome) {
    let Some(live) = read(s, &r.item(Some(ns), name), out) else { return };
    let uid = live.pointer("/metadata/uid").and_then(Value::as_str).unwrap_or("").to_string();
    let Ok(rs) = d.resolve("replicasets.apps").cloned() else { return out.error("error: replicasets are not served") };
    let Some(sets) = read(s, &rs.collection(Some(ns)), out) else { return };
    let mut revisions: Vec<(i64, String)> = sets["items"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|o| {
            o.pointer("/metadata/ownerReferences")
                .and_then(Value::as_array)
                .is_some_and(|refs| refs.iter().any(|x| x["uid"] == uid.as_str()))
        })
        .filter_map(|o| {
            let a = o.pointer("/metadata/annotations")?;
            let rev = a.get("deployment.kubernetes.io/revision")?.as_str()?.parse().ok()?;
            let cause = a.get("kubernetes.io/change-cause").and_then(Value::as_str).unwrap_or("<none>").to_string();
            Some((rev, cause))
        })
        .collect();
    revisions.order();
    history_table(r, name, revisions, out);
}

#[cfg(test)]
mod tests {
    use super::super::tests::{live, requests_since, session};
    use super::*;

    /// The last request kubectl sent: (its target, its body).
    fn sent(s: &Session) -> (String, Vec<u8>) {
        let e = s.log.iter().rev().find(|e| e.source == Source::Kubectl).unwrap();
        (e.url(), e.request.body.clone())
    }

    fn settle(s: &mut Session) {
        for _ in 0..40 {
            s.tick(500.0);
        }
    }

    fn image(s: &mut Session) -> String {
        let d = live(s, "/apis/apps/v1/namespaces/default/deployments/web");
        d.pointer("/spec/template/spec/containers/0/image").and_then(Value::as_str).unwrap_or("").to_string()
    }

    /// What the lesson "Rolling out and rolling back" says, with the clock
    /// standing still: each rollout is over when its command returns.
    #[test]
    fn the_lessons_rollouts_end_within_their_commands() {
        let mut s = session();
        let sets = |s: &mut Session| -> Vec<(String, String, i64)> {
            let list = live(s, "/apis/apps/v1/namespaces/default/replicasets?labelSelector=app%3Dweb");
            let mut v: Vec<_> = items(&list)
                .iter()
                .map(|rs| {
                    let a = |k: &str| rs["metadata"]["annotations"][k].as_str().unwrap_or("").to_string();
                    (
                        a("deployment.kubernetes.io/revision"),
                        a("deployment.kubernetes.io/revision-history"),
                        rs["spec"]["replicas"].as_i64().unwrap_or(-1),
                    )
                })
                .collect();
            v.order();
            v
        };
        run(&mut s, "create deployment web --image=nginx:1.27 --replicas=3", "");
        run(&mut s, "set image deployment/web nginx=nginx:1.28", "");
        assert_eq!(sets(&mut s), [("1".into(), "".into(), 0), ("2".into(), "".into(), 3)]);
        run(&mut s, "rollout undo deployment/web", "");
        assert_eq!(sets(&mut s), [("2".into(), "".into(), 0), ("3".into(), "1".into(), 3)]);
        assert_eq!(
            run(&mut s, "rollout undo deployment/web --to-revision=1", "").text,
            "error: unable to find specified revision 1 in history\n"
        );
        assert_eq!(
            run(&mut s, "rollout undo deployment/web --to-revision=3", "").text,
            "deployment.apps/web skipped rollback (current template already matches revision 3)\n"
        );
        run(&mut s, "rollout pause deployment/web", "");
        run(&mut s, "set image deployment/web nginx=nginx:1.29", "");
        assert_eq!(sets(&mut s).len(), 2);
        let d = live(&mut s, "/apis/apps/v1/namespaces/default/deployments/web");
        let progressing =
            d["status"]["conditions"].as_array().unwrap().iter().find(|c| c["type"] == "Progressing").unwrap();
        assert_eq!((&progressing["status"], &progressing["reason"]), (&json!("Unknown"), &json!("DeploymentPaused")));
        run(&mut s, "rollout resume deployment/web", "");
        assert_eq!(sets(&mut s)[2], ("4".into(), "".into(), 3));
    }

    /// What kubectl 1.33 printed and sent against `kubesim serve` for a
    /// StatefulSet and a DaemonSet.
    #[test]
    fn stateful_and_daemon_sets_roll_back_through_their_controller_revisions() {
        let mut s = session();
        let yaml = "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: db}\nspec:\n  serviceName: db\n  replicas: 2\n  selector: {matchLabels: {app: db}}\n  template:\n    metadata: {labels: {app: db}}\n    spec: {containers: [{name: pg, image: 'postgres:16'}]}\n---\napiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: logs}\nspec:\n  selector: {matchLabels: {app: logs}}\n  template:\n    metadata: {labels: {app: logs}}\n    spec: {containers: [{name: f, image: 'fluentd:1'}]}\n";
        assert!(!run(&mut s, "apply -f -", yaml).failed);
        settle(&mut s);
        assert_eq!(
            run(&mut s, "rollout undo sts/db", "").text,
            "error: unable to find specified revision 0 in history\n"
        );
        run(&mut s, "set image sts/db pg=postgres:17", "");
        run(&mut s, "set image ds/logs f=fluentd:2", "");
        settle(&mut s);
        for (target, head) in [("sts/db", "statefulset.apps/db"), ("ds/logs", "daemonset.apps/logs")] {
            assert_eq!(
                run(&mut s, &format!("rollout history {target}"), "").text,
                format!("{head} \nREVISION  CHANGE-CAUSE\n1         <none>\n2         <none>\n\n")
            );
        }
        let from = s.log.len();
        assert_eq!(run(&mut s, "rollout undo sts/db", "").text, "statefulset.apps/db rolled back\n");
        assert_eq!(
            requests_since(&s, from),
            vec![
                "GET /apis/apps/v1/namespaces/default/statefulsets/db 200",
                "GET /apis/apps/v1/namespaces/default/statefulsets/db 200",
                "GET /apis/apps/v1/namespaces/default/controllerrevisions?labelSelector=app%3Ddb 200",
                "PATCH /apis/apps/v1/namespaces/default/statefulsets/db 200",
            ]
        );
        let patch: Value = serde_json::from_slice(&sent(&s).1).unwrap();
        assert_eq!(patch["spec"]["template"]["$patch"], "replace");
        settle(&mut s);
        let live = live(&mut s, "/apis/apps/v1/namespaces/default/statefulsets/db");
        assert_eq!(live["spec"]["template"]["spec"]["containers"][0]["image"], "postgres:16");
        assert_eq!(
            run(&mut s, "rollout history sts/db", "").text,
            "statefulset.apps/db \nREVISION  CHANGE-CAUSE\n2         <none>\n3         <none>\n\n"
        );
        assert_eq!(
            run(&mut s, "rollout undo sts/db --to-revision=3", "").text,
            "statefulset.apps/db skipped rollback (current template already matches revision 3)\n"
        );
        assert_eq!(run(&mut s, "rollout undo ds/logs --to-revision=1", "").text, "daemonset.apps/logs rolled back\n");
        settle(&mut s);
        assert_eq!(run(&mut s, "rollout status ds/logs", "").text, "daemon set \"logs\" successfully rolled out\n");
        assert_eq!(
            run(&mut s, "rollout status sts/db", "").text,
            "partitioned roll out complete: 2 new pods have been updated...\n"
        );
    }

    #[test]
    fn undo_pause_and_resume_as_kubectl_sends_and_prints_them() {
        let mut s = session();
        run(&mut s, "create deployment web --image=nginx:1.27 --replicas=2", "");
        settle(&mut s);
        run(&mut s, "set image deployment/web nginx=nginx:1.28", "");
        settle(&mut s);

        let missing = run(&mut s, "rollout undo deployment/web --to-revision=5", "");
        assert!(missing.failed);
        assert_eq!(missing.text, "error: unable to find specified revision 5 in history\n");
        // kubectl names the revision it was asked for.
        let same = run(&mut s, "rollout undo deployment/web --to-revision=2", "");
        assert_eq!(same.text, "deployment.apps/web skipped rollback (current template already matches revision 2)\n");
        assert_eq!(image(&mut s), "nginx:1.28");

        let from = s.log.len();
        assert_eq!(run(&mut s, "rollout undo deployment/web", "").text, "deployment.apps/web rolled back\n");
        assert_eq!(
            requests_since(&s, from),
            vec![
                "GET /apis/apps/v1/namespaces/default/deployments/web 200",
                "GET /apis/apps/v1/namespaces/default/deployments/web 200",
                "GET /apis/apps/v1/namespaces/default/replicasets?labelSelector=app%3Dweb 200",
                "PATCH /apis/apps/v1/namespaces/default/deployments/web 200",
            ]
        );
        let patch: Value = serde_json::from_slice(&sent(&s).1).unwrap();
        assert_eq!(patch[0]["path"], "/spec/template");
        assert!(patch[0]["value"].pointer("/metadata/labels/pod-template-hash").is_none(), "{patch}");
        assert_eq!(patch[1]["value"], json!({"deployment.kubernetes.io/revision": "2"}));
        assert_eq!(image(&mut s), "nginx:1.27");
        settle(&mut s);
        // The first revision's ReplicaSet is the newest now.
        assert_eq!(
            run(&mut s, "rollout history deployment/web", "").text,
            "deployment.apps/web \nREVISION  CHANGE-CAUSE\n2         <none>\n3         <none>\n\n"
        );
        let dry = run(&mut s, "rollout undo deployment/web --dry-run=server", "");
        assert_eq!(dry.text, "deployment.apps/web rolled back (server dry run)\n");
        assert_eq!(image(&mut s), "nginx:1.27");

        assert_eq!(run(&mut s, "rollout pause deployment/web", "").text, "deployment.apps/web paused\n");
        assert_eq!(
            sent(&s),
            (
                "/apis/apps/v1/namespaces/default/deployments/web?fieldManager=kubectl-rollout".to_string(),
                br#"{"spec":{"paused":true}}"#.to_vec()
            )
        );
        let again = run(&mut s, "rollout pause deploy web", "");
        assert!(again.failed);
        assert_eq!(again.text, "error: deployments.apps \"web\" is already paused\n");
        assert_eq!(
            run(&mut s, "rollout undo deployment/web", "").text,
            "error: you cannot rollback a paused deployment; resume it first with 'kubectl rollout resume' and try again\n"
        );
        // The revision is looked for first.
        assert_eq!(
            run(&mut s, "rollout undo deployment/web --to-revision=9", "").text,
            "error: unable to find specified revision 9 in history\n"
        );
        assert_eq!(run(&mut s, "rollout resume deployment/web", "").text, "deployment.apps/web resumed\n");
        assert_eq!(sent(&s).1, br#"{"spec":{"paused":null}}"#.to_vec());
        assert_eq!(
            run(&mut s, "rollout resume deployment/web", "").text,
            "error: deployments.apps \"web\" is not paused\n"
        );

        // A type alone: every Deployment of the namespace, each answered.
        run(&mut s, "create deployment one --image=nginx", "");
        let all = run(&mut s, "rollout undo deployment", "");
        assert!(all.failed);
        assert!(all.text.contains("error: no rollout history found for deployment \"one\"\n"), "{}", all.text);
        assert!(all.text.contains("deployment.apps/web rolled back\n"), "{}", all.text);
        assert_eq!(image(&mut s), "nginx:1.28");

        let rs = live(&mut s, "/apis/apps/v1/namespaces/default/replicasets?labelSelector=app%3Done");
        let rs = rs.pointer("/items/0/metadata/name").and_then(Value::as_str).unwrap().to_string();
        assert_eq!(
            run(&mut s, &format!("rollout pause rs/{rs}"), "").text,
            format!("error: replicasets.apps \"{rs}\" pausing is not supported\n")
        );
        assert_eq!(
            run(&mut s, "rollout pause deployment/web --to-revision=1", "").text,
            "error: unknown flag: --to-revision\nSee 'kubectl rollout pause --help' for usage.\n"
        );
        assert_eq!(
            run(&mut s, "rollout resume deployment/web --dry-run=server", "").text,
            "error: unknown flag: --dry-run\nSee 'kubectl rollout resume --help' for usage.\n"
        );
        assert_eq!(
            run(&mut s, "rollout undo deployment/web --to-revision=x", "").text,
            "invalid argument \"x\" for \"--to-revision\" flag: strconv.ParseInt: parsing \"x\": invalid syntax\n"
        );
        assert_eq!(run(&mut s, "rollout undo", "").text, "error: required resource not specified\n");
    }
}
