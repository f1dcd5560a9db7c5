//! `set image|resources|env|serviceaccount|subject`: the workload (or
//! binding) read as kubectl's builder reads it, then the strategic merge
//! patch kubectl 1.33 computes from it (containers by name, in their
//! order), answered as it prints.

use kubesim::sort::Order;

use super::imperative::{change, container_names, namespace, read, targets};
use super::*;

/// Where a workload keeps its pod spec.
fn pod_spec_path(kind: &str) -> Option<&'static str> {
    match kind {
        "Pod" => Some("/spec"),
        "CronJob" => Some("/spec/jobTemplate/spec/template/spec"),
        "Deployment" | "ReplicaSet" | "StatefulSet" | "DaemonSet" | "Job" | "ReplicationController" => {
            Some("/spec/template/spec")
        }
        _ => None,
    }
}

/// A workload `set` changes, read as kubectl's builder reads it: its path,
/// where its pod spec is, and the object; kubectl's error (printed) when it
/// is not a workload with containers or cannot be read.
fn read_workload(
    s: &mut Session,
    r: &ApiResource,
    ns: &str,
    name: &str,
    out: &mut Outcome,
) -> Option<(String, &'static str, Value)> {
    let Some(path) = pod_spec_path(&r.kind) else {
        out.error(format!("error: {} is not a workload with containers", name_ref(r, name)));
        return None;
    };
    let item = r.item(Some(ns), name);
    let live = read(s, &item, out)?;
    Some((item, path, live))
}

/// `set image TYPE/NAME CONTAINER=IMAGE…`: read, then the strategic merge
/// patch kubectl computes (containers by name, with their order).
pub(super) fn set_image(s: &mut Session, d: &Discovery, cmd: &Command, out: &mut Outcome) {
    match cmd.args.first().map(String::as_str) {
        Some("image") => {}
        Some("resources") => return set_resources(s, d, cmd, out),
        Some("env") => return set_env(s, d, cmd, out),
        Some("serviceaccount" | "sa") => return set_service_account(s, d, cmd, out),
        Some("subject") => return set_subject(s, d, cmd, out),
        _ => {
            let sub = cmd.args.first().cloned().unwrap_or_default();
            return out.error(format!(
                "\"kubectl set {sub}\" is not simulated in this command bar; it knows set image, set resources, set env, set serviceaccount and set subject"
            ));
        }
    }
    let words = &cmd.args[1..];
    let split = words.iter().position(|w| w.contains('=')).unwrap_or(words.len());
    let (objects, pairs) = words.split_at(split);
    if pairs.is_empty() {
        return out.error("error: at least one image update is required");
    }
    let Some(targets) = targets(d, objects, out) else { return };
    let ns = namespace(cmd);
    for (r, name) in targets {
        let Some((item, path, live)) = read_workload(s, &r, &ns, &name, out) else { continue };
        let containers = container_names(live.pointer(path));
        let mut changed = Vec::new();
        for pair in pairs {
            let (container, image) = pair.split_once('=').unwrap_or((pair, ""));
            let hits: Vec<&String> = containers.iter().filter(|c| container == "*" || *c == container).collect();
            if hits.is_empty() {
                out.error(format!("error: unable to find container named \"{container}\""));
                return;
            }
            changed.extend(hits.into_iter().map(|c| json!({"image": image, "name": c})));
        }
        let patch = json!({"$setElementOrder/containers": containers.iter().map(|c| json!({"name": c})).collect::<Vec<_>>(), "containers": changed});
        let done = format!("{} image updated", name_ref(&r, &name));
        let refused = "error: failed to patch image update to pod template: ";
        patch_pod_spec(s, cmd, &item, path, patch, (done, refused), out);
    }
}

/// `set serviceaccount TYPE NAME|TYPE/NAME SERVICE_ACCOUNT`: the pod
/// template's `serviceAccountName`, as kubectl's strategic merge patch.
fn set_service_account(s: &mut Session, d: &Discovery, cmd: &Command, out: &mut Outcome) {
    let words = &cmd.args[1..];
    let Some((account, objects)) = words.split_last().filter(|(_, objects)| !objects.is_empty()) else {
        return out.error("error: You must provide one or more resources by argument or filename.\nExample resource specifications include:\n   '-f rsrc.yaml'\n   '--filename=rsrc.json'\n   '<resource> <name>'\n   '<resource>'");
    };
    let Some(targets) = targets(d, objects, out) else { return };
    let ns = namespace(cmd);
    for (r, name) in targets {
        let Some((item, path, _)) = read_workload(s, &r, &ns, &name, out) else { continue };
        let done = format!("{} serviceaccount updated", name_ref(&r, &name));
        let refused = "error: failed to patch ServiceAccountName ";
        patch_pod_spec(s, cmd, &item, path, json!({"serviceAccountName": account}), (done, refused), out);
    }
}

/// `set subject rolebinding|clusterrolebinding NAME --user --group
/// --serviceaccount=NS:NAME`: the subjects not there yet added (a
/// binding that has them all is left alone, and nothing is printed).
fn set_subject(s: &mut Session, d: &Discovery, cmd: &Command, out: &mut Outcome) {
    let f = &cmd.rbac;
    if f.users.is_empty() && f.groups.is_empty() && f.service_accounts.is_empty() {
        return out.error("error: you must specify at least one value of user, group or serviceaccount");
    }
    let mut wanted: Vec<Value> = Vec::new();
    let rbac = "rbac.authorization.k8s.io";
    wanted.extend(f.users.iter().map(|u| json!({"apiGroup": rbac, "kind": "User", "name": u})));
    wanted.extend(f.groups.iter().map(|g| json!({"apiGroup": rbac, "kind": "Group", "name": g})));
    for sa in &f.service_accounts {
        match sa.split_once(':') {
            Some((ns, name)) if !ns.is_empty() && !name.is_empty() && !name.contains(':') => {
                wanted.push(json!({"kind": "ServiceAccount", "name": name, "namespace": ns}))
            }
            _ => return out.error("error: serviceaccount must be <namespace>:<name>"),
        }
    }
    let Some(targets) = targets(d, &cmd.args[1..], out) else { return };
    let ns = namespace(cmd);
    for (r, name) in targets {
        if !matches!(r.kind.as_str(), "RoleBinding" | "ClusterRoleBinding") {
            out.error(format!(
                "error: {}/{name} setting subjects is only supported for RoleBinding/ClusterRoleBinding",
                r.resource
            ));
            continue;
        }
        let item = r.item(Some(&ns), &name);
        let Some(live) = read(s, &item, out) else { continue };
        let mut subjects = live["subjects"].as_array().cloned().unwrap_or_default();
        let before = subjects.len();
        for w in &wanted {
            if !subjects.contains(w) {
                subjects.push(w.clone());
            }
        }
        if subjects.len() == before {
            continue;
        }
        let target = dry(cmd, format!("{item}?fieldManager=kubectl-set"));
        let done = format!("{} subjects updated", name_ref(&r, &name));
        // (kubectl patches the object as a map: keys in order.)
        let patch = keys_sorted(&json!({"subjects": subjects}));
        change(s, "PATCH", target, "application/strategic-merge-patch+json", &patch, done, out);
    }
}

/// `--limits`/`--requests` as kubectl reads them: `NAME=AMOUNT` pairs,
/// each amount as the canonical quantity it serializes (`0.1` → `100m`),
/// by name.
fn resource_list(spec: Option<&str>) -> Result<Vec<(String, String)>, String> {
    let mut list = Vec::new();
    for part in spec.into_iter().flat_map(|s| s.split(',')).filter(|p| !p.is_empty()) {
        let Some((name, amount)) = part.split_once('=').filter(|(_, a)| !a.contains('=')) else {
            return Err(format!("error: Invalid argument syntax {part}, expected <resource>=<value>"));
        };
        let amount = kubesim::api::quantity::canonical(amount).map_err(|e| format!("error: {e}"))?;
        list.push((name.to_string(), amount.into_owned()));
    }
    list.order_by_key(|(k, _)| k.clone());
    Ok(list)
}

/// The strategic merge patch kubectl's two-way diff gives when `entry`
/// changes the chosen containers (`*`: all) of a pod spec, init
/// containers too: for each list with a changed container, the changed
/// ones' entries and `$setElementOrder/LIST` (every container by name),
/// keys in Go's map order (None when nothing changed); with how many
/// containers were chosen. `entry` gives a container's entry, None when
/// it is unchanged, or kubectl's error.
fn containers_patch(
    spec: &Value,
    selector: &str,
    mut entry: impl FnMut(&Value) -> Result<Option<Value>, String>,
) -> Result<(usize, Option<Value>), String> {
    let mut patch = Map::new();
    let mut chosen = 0;
    for list in ["containers", "initContainers"] {
        let all = spec[list].as_array().map(Vec::as_slice).unwrap_or_default();
        let mut changed = Vec::new();
        for c in all.iter().filter(|c| selector == "*" || c["name"] == selector) {
            chosen += 1;
            changed.extend(entry(c)?);
        }
        if !changed.is_empty() {
            let order: Vec<Value> = all.iter().map(|c| json!({"name": c["name"]})).collect();
            patch.insert(format!("$setElementOrder/{list}"), json!(order));
            patch.insert(list.into(), json!(changed));
        }
    }
    if patch.is_empty() {
        return Ok((chosen, None));
    }
    // Keys as Go writes a map: `$setElementOrder/…` first.
    let mut keys: Vec<String> = patch.keys().cloned().collect();
    keys.order();
    Ok((chosen, Some(Value::Object(keys.into_iter().filter_map(|k| patch.remove(&k).map(|v| (k, v))).collect()))))
}

/// Sends a `set` command's patch of the pod spec at `path` of `item` and
/// prints kubectl's line (`said.0`), or the refusal's message after
/// kubectl's words for it (`said.1`: `error: failed to patch … update to
/// pod template…`).
fn patch_pod_spec(
    s: &mut Session,
    cmd: &Command,
    item: &str,
    path: &str,
    mut patch: Value,
    said: (String, &str),
    out: &mut Outcome,
) {
    let (done, refused) = said;
    for segment in path.trim_start_matches('/').split('/').rev() {
        patch = json!({ segment: patch });
    }
    let target = dry(cmd, format!("{item}?fieldManager=kubectl-set"));
    let e = send(s, "PATCH", &target, Some("application/strategic-merge-patch+json"), Some(&patch), "application/json");
    if e.response.status == 200 {
        out.line(done);
    } else {
        let v = body_json(&e.response);
        let message = v.get("message").and_then(Value::as_str).unwrap_or("");
        out.error(format!("{refused}{message}"));
    }
}

/// `set resources TYPE NAME… [-c CONTAINER] --limits=… --requests=…`, as
/// kubectl 1.33: the object read, each chosen container's (and init
/// container's) requests and limits set, and the strategic merge patch
/// between the two sent (only what changed; nothing at all, and nothing
/// printed, when nothing did), with the field manager `kubectl-set`.
fn set_resources(s: &mut Session, d: &Discovery, cmd: &Command, out: &mut Outcome) {
    if cmd.limits.is_none() && cmd.requests.is_none() {
        return out
            .error("error: you must specify an update to requests or limits (in the form of --requests/--limits)");
    }
    let (limits, requests) = match (resource_list(cmd.limits.as_deref()), resource_list(cmd.requests.as_deref())) {
        (Ok(l), Ok(r)) => (l, r),
        (Err(e), _) | (_, Err(e)) => return out.error(e),
    };
    let Some(targets) = targets(d, &cmd.args[1..], out) else { return };
    let ns = namespace(cmd);
    let selector = cmd.container.as_deref().unwrap_or("*");
    for (r, name) in targets {
        let Some((item, path, live)) = read_workload(s, &r, &ns, &name, out) else { continue };
        let spec = live.pointer(path).cloned().unwrap_or_default();
        let changes = containers_patch(&spec, selector, |c| {
            let mut resources = Map::new();
            for (field, wanted) in [("limits", &limits), ("requests", &requests)] {
                let diff: Map<String, Value> = wanted
                    .iter()
                    .filter(|(k, v)| c["resources"][field][k.as_str()].as_str() != Some(v.as_str()))
                    .map(|(k, v)| (k.clone(), json!(v)))
                    .collect();
                if !diff.is_empty() {
                    resources.insert(field.into(), Value::Object(diff));
                }
            }
            Ok((!resources.is_empty()).then(|| json!({"name": c["name"], "resources": resources})))
        });
        match changes {
            Ok((0, _)) => out.error(format!("error: unable to find container named {selector}")),
            Ok((_, Some(patch))) => {
                let done = format!("{} resource requirements updated", name_ref(&r, &name));
                let refused = "error: failed to patch resources update to pod template ";
                patch_pod_spec(s, cmd, &item, path, patch, (done, refused), out);
            }
            Ok((_, None)) => {}
            Err(e) => out.error(e),
        }
    }
}

/// Whether `name` is an environment variable name as kubectl's
/// `IsEnvVarName` has it (`[-._a-zA-Z][-._a-zA-Z0-9]*`).
fn env_name_ok(name: &str) -> bool {
    let ok = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_');
    name.chars().next().is_some_and(|c| ok(c) && !c.is_ascii_digit()) && name.chars().all(ok)
}

/// An environment variable as Go writes `EnvVar` (an empty value left out).
fn env_var(name: &str, value: &str) -> Value {
    if value.is_empty() {
        json!({"name": name})
    } else {
        json!({"name": name, "value": value})
    }
}

/// `# KEY from …` for a variable taken from elsewhere, as `--list` prints it.
fn env_ref(from: &Value) -> String {
    let t = |p: &str| from.pointer(p).and_then(Value::as_str).unwrap_or("");
    if from.get("configMapKeyRef").is_some() {
        format!("configmap {}, key {}", t("/configMapKeyRef/name"), t("/configMapKeyRef/key"))
    } else if from.get("secretKeyRef").is_some() {
        format!("secret {}, key {}", t("/secretKeyRef/name"), t("/secretKeyRef/key"))
    } else if from.get("fieldRef").is_some() {
        format!("field path {}", t("/fieldRef/fieldPath"))
    } else if from.get("resourceFieldRef").is_some() {
        let container = t("/resourceFieldRef/containerName");
        let prefix = if container.is_empty() { String::new() } else { format!("{container}/") };
        format!("resource field {prefix}{}", t("/resourceFieldRef/resource"))
    } else {
        "invalid valueFrom".into()
    }
}

/// `set env TYPE NAME… KEY=VALUE… KEY-… [-c C] [--list] [--overwrite]`,
/// as kubectl 1.33: the object read; each chosen container's (and init
/// container's) variables updated in place, new ones appended, removed
/// ones dropped; `--list` prints them (nothing sent); otherwise the
/// strategic merge patch of what changed (the variables by name, with
/// their order), nothing when nothing did, manager `kubectl-set`.
fn set_env(s: &mut Session, d: &Discovery, cmd: &Command, out: &mut Outcome) {
    let words = &cmd.args[1..];
    // (kubectl's env arguments: `KEY=VALUE` and `KEY-`; the rest name objects.)
    let is_env = |w: &String| w.contains('=') || (w.ends_with('-') && !w.contains('/'));
    let (pairs, objects): (Vec<&String>, Vec<&String>) = words.iter().partition(|w| is_env(w));
    let mut set: Vec<Value> = Vec::new();
    let mut remove: Vec<String> = Vec::new();
    for p in pairs {
        let (name, value) = match p.split_once('=') {
            Some((n, v)) => (n, Some(v)),
            None => (p.trim_end_matches('-'), None),
        };
        if !env_name_ok(name) {
            return out.error(format!("error: {name:?} is not a valid key name: a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit (e.g. 'my.env-name',  or 'MY_ENV.NAME',  or 'MyEnvName1', regex used for validation is '[-._a-zA-Z][-._a-zA-Z0-9]*')"));
        }
        match value {
            Some(v) => set.push(env_var(name, v)),
            None => remove.push(name.to_string()),
        }
    }
    let objects: Vec<String> = objects.into_iter().cloned().collect();
    if objects.is_empty() {
        return out.error("error: one or more resources must be specified as <resource> <name> or <resource>/<name>");
    }
    if !cmd.env_keys.is_empty() && cmd.env_from.is_none() {
        return out.error("error: when specifying --keys, a configmap or secret must be provided with --from");
    }
    if let Some(from) = &cmd.env_from {
        let Some(more) = env_from(s, d, cmd, from, out) else { return };
        set.extend(more);
    }
    // (kubectl prefixes every variable it sets, those of KEY=VALUE too.)
    if let Some(prefix) = cmd.env_prefix.as_deref().filter(|p| !p.is_empty()) {
        for e in set.iter_mut() {
            e["name"] = json!(format!("{prefix}{}", e["name"].as_str().unwrap_or("")));
        }
    }
    let Some(targets) = targets(d, &objects, out) else { return };
    let ns = namespace(cmd);
    let selector = cmd.container.as_deref().unwrap_or("*");
    // (What `--list` prints, as each container is visited.)
    let mut listed: Vec<String> = Vec::new();
    for (r, name) in targets {
        let Some((item, path, live)) = read_workload(s, &r, &ns, &name, out) else { continue };
        let spec = live.pointer(path).cloned().unwrap_or_default();
        let changes = containers_patch(&spec, selector, |c| {
            let old = c["env"].as_array().map(Vec::as_slice).unwrap_or_default();
            let var = |name: &str| old.iter().find(|e| e["name"] == name);
            if !cmd.env_overwrite {
                let named = |e: &Value| e["name"].as_str().unwrap_or("").to_string();
                if let Some(n) = set.iter().map(named).find(|n| var(n).is_some()) {
                    let current = var(&n).and_then(|e| e["value"].as_str()).unwrap_or("");
                    return Err(format!(
                        "error: {}/{name} '{n}' already has a value ({current}), and --overwrite is false",
                        r.resource
                    ));
                }
            }
            // kubectl's updateEnv: in place, then the new ones.
            let mut new: Vec<Value> = Vec::new();
            for e in old {
                let n = e["name"].as_str().unwrap_or("");
                if remove.iter().any(|x| x == n) {
                    continue;
                }
                match set.iter().find(|x| x["name"] == n) {
                    Some(x) => new.push(x.clone()),
                    None => new.push(e.clone()),
                }
            }
            for x in &set {
                if !new.iter().any(|e| e["name"] == x["name"]) {
                    new.push(x.clone());
                }
            }
            if cmd.env_list {
                listed.push(format!("# {} {name}, container {}", r.kind, c["name"].as_str().unwrap_or("")));
                for e in &new {
                    let n = e["name"].as_str().unwrap_or("");
                    listed.push(match e.get("valueFrom") {
                        Some(from) => format!("# {n} from {}", env_ref(from)),
                        None => format!("{n}={}", e["value"].as_str().unwrap_or("")),
                    });
                }
                return Ok(None);
            }
            // The two-way strategic merge patch of the list.
            Ok(match (old.is_empty(), new.is_empty()) {
                (true, true) => None,
                (true, false) => Some(json!({"env": new, "name": c["name"]})),
                (false, true) => Some(json!({"env": null, "name": c["name"]})),
                (false, false) => {
                    let mut diff: Vec<Value> =
                        new.iter().filter(|e| var(e["name"].as_str().unwrap_or("")) != Some(*e)).cloned().collect();
                    diff.extend(
                        old.iter()
                            .filter(|e| !new.iter().any(|n| n["name"] == e["name"]))
                            .map(|e| json!({"$patch": "delete", "name": e["name"]})),
                    );
                    let order: Vec<Value> = new.iter().map(|e| json!({"name": e["name"]})).collect();
                    (!diff.is_empty()).then(|| json!({"$setElementOrder/env": order, "env": diff, "name": c["name"]}))
                }
            })
        });
        for line in listed.drain(..) {
            out.line(line);
        }
        match changes {
            Ok((0, _)) => {
                out.line(format!("Warning: {}/{name} does not have any containers matching {selector:?}", r.kind))
            }
            Ok((_, Some(patch))) => {
                let done = format!("{} env updated", name_ref(&r, &name));
                let refused = "error: failed to patch env update to pod template: ";
                patch_pod_spec(s, cmd, &item, path, patch, (done, refused), out);
            }
            Ok((_, None)) => {}
            Err(e) => return out.error(e),
        }
    }
}

/// The variables `set env --from=TYPE/NAME` takes from a ConfigMap or a
/// Secret (read once): one a key of its `data` (those `--keys` names, if
/// given), named as kubectl's `keyToEnvName` names it (upper case, any
/// character but letters, digits and `_` made `_`, with a warning when
/// that changed the key), its value a reference to the key. Choice: Go
/// walks the map in no set order; here the keys are sorted.
fn env_from(s: &mut Session, d: &Discovery, cmd: &Command, from: &str, out: &mut Outcome) -> Option<Vec<Value>> {
    let (r, name) = targets(d, &[from.to_string()], out)?.into_iter().next()?;
    let e = send(s, "GET", &r.item(Some(&namespace(cmd)), &name), None, None, "application/json");
    if e.response.status != 200 {
        out.error(server_error(&e));
        return None;
    }
    let obj = body_json(&e.response);
    let reference = match obj["kind"].as_str() {
        Some("ConfigMap") => "configMapKeyRef",
        Some("Secret") => "secretKeyRef",
        _ => {
            out.error("error: unsupported resource specified in --from");
            return None;
        }
    };
    let mut keys: Vec<&String> = obj["data"].as_object().map(|m| m.keys().collect()).unwrap_or_default();
    keys.order();
    let mut vars = Vec::new();
    for key in keys.into_iter().filter(|k| cmd.env_keys.is_empty() || cmd.env_keys.contains(k)) {
        let var: String = key
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() || c == '_' { c.to_ascii_uppercase() } else { '_' })
            .collect();
        if var != *key {
            out.line(format!("Warning: key {key} transferred to {var}"));
        }
        // (Keys in the order Go writes a map: the patch is one.)
        vars.push(json!({"name": var, "valueFrom": {reference: {"key": key, "name": name}}}));
    }
    Some(vars)
}
