//! `create`, `replace` and `apply` (client-side, with the
//! last-applied annotation and a strategic merge patch; or `--server-side`)
//! of the documents in a file.

use super::*;

pub(super) const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// What kubectl says after an apply conflict: the three ways out.
const CONFLICT_HELP: &str = "Please review the fields above--they currently have other managers. Here
are the ways you can resolve this warning:
* If you intend to manage all of these fields, please re-run the apply
  command with the `--force-conflicts` flag.
* If you do not intend to manage all of the fields, please edit your
  manifest to remove references to the fields that should keep their
  current managers.
* You may co-own fields by updating your manifest to match the existing
  value; in this case, you'll become the manager if the other manager(s)
  stop managing the field (remove it from their configuration).";

pub(super) fn resource_for_doc<'a>(d: &'a Discovery, doc: &Value) -> Result<&'a ApiResource, String> {
    let api_version = doc.get("apiVersion").and_then(Value::as_str).unwrap_or("");
    let kind = doc.get("kind").and_then(Value::as_str).unwrap_or("");
    if api_version.is_empty() || kind.is_empty() {
        return Err("error: unable to decode: Object 'Kind' is missing or 'apiVersion' is missing".into());
    }
    let (group, version) = api_version.split_once('/').unwrap_or(("", api_version));
    d.resources
        .iter()
        .find(|r| r.group == group && r.version == version && r.kind == kind)
        .ok_or_else(|| format!("error: resource mapping not found for kind \"{kind}\" in version \"{api_version}\""))
}

/// A document's resource, name and namespace (None: cluster-scoped) as
/// kubectl's builder finds them: the file's namespace, else `-n`, else
/// the context's; a file's namespace that `-n` contradicts is refused.
pub(super) fn document_target(
    d: &Discovery,
    cmd: &Command,
    doc: &Value,
) -> Result<(ApiResource, String, Option<String>), String> {
    let r = resource_for_doc(d, doc)?.clone();
    let name = doc.pointer("/metadata/name").and_then(Value::as_str).unwrap_or("").to_string();
    let doc_ns = doc.pointer("/metadata/namespace").and_then(Value::as_str).map(str::to_string);
    if let (Some(flag), Some(own)) = (&cmd.namespace, &doc_ns) {
        if flag != own {
            return Err(format!("error: the namespace from the provided object \"{own}\" does not match the namespace \"{flag}\". You must pass '--namespace={own}' to perform this operation."));
        }
    }
    let ns = doc_ns.or_else(|| cmd.namespace.clone()).unwrap_or_else(|| cmd.context_namespace.clone());
    let ns = r.namespaced.then_some(ns);
    Ok((r, name, ns))
}

pub(super) fn write_document(s: &mut Session, d: &Discovery, cmd: &Command, doc: Value, out: &mut Outcome) {
    let (r, name, ns) = match document_target(d, cmd, &doc) {
        Ok(target) => target,
        Err(e) => return out.error(e),
    };
    let ns = ns.as_deref();
    let kind_ref = |n: &str| name_ref(&r, n);
    // One write as kubectl sends it: the verb's field manager and
    // fieldValidation (and dryRun=All under --dry-run=server).
    let write = |s: &mut Session, method: &str, base: String, manager: &str, ct: &str, body: &Value| {
        let target = dry(cmd, format!("{base}?fieldManager={manager}&fieldValidation={}", cmd.field_validation));
        send(s, method, &target, Some(ct), Some(body), "application/json")
    };
    let mut report = |e: &LogEntry, ok: &[u16], done: String| {
        if ok.contains(&e.response.status) {
            out.line(done);
        } else {
            out.error(server_error(e));
        }
    };
    match cmd.verb {
        Verb::Create => {
            let e = write(s, "POST", r.collection(ns), "kubectl-create", "application/json", &doc);
            let created = body_json(&e.response);
            let n = created.pointer("/metadata/name").and_then(Value::as_str).unwrap_or(&name).to_string();
            report(&e, &[200, 201], format!("{} created", kind_ref(&n)));
        }
        Verb::Replace if cmd.force => {
            if name.is_empty() {
                out.error("error: resource name may not be empty");
                return;
            }
            // As kubectl: delete (a missing object is fine), wait until it
            // is gone, then create it from the file.
            let options = json!({"kind": "DeleteOptions", "apiVersion": "v1", "propagationPolicy": "Background"});
            let e = send(s, "DELETE", &r.item(ns, &name), Some("application/json"), Some(&options), "application/json");
            match e.response.status {
                200 | 202 => out.line(print::deleted_line(&r, &name)),
                404 => {}
                _ => return out.error(server_error(&e)),
            }
            let left = send(s, "GET", &r.item(ns, &name), None, None, "application/json");
            if left.response.status != 404 {
                out.differs = Some(differs::WAITS);
                return;
            }
            let e = write(s, "POST", r.collection(ns), "kubectl-replace", "application/json", &doc);
            if e.response.status == 201 {
                out.line(format!("{} replaced", kind_ref(&name)));
            } else {
                out.error(server_error(&e));
            }
        }
        Verb::Replace => {
            if name.is_empty() {
                out.error("error: resource name may not be empty");
                return;
            }
            let e = write(s, "PUT", r.item(ns, &name), "kubectl-replace", "application/json", &doc);
            report(&e, &[200], format!("{} replaced", kind_ref(&name)));
        }
        Verb::Apply if cmd.server_side => {
            if name.is_empty() {
                out.error("error: resource name may not be empty");
                return;
            }
            let target = dry(
                cmd,
                format!(
                    "{}?fieldManager=kubectl&fieldValidation={}&force={}",
                    r.item(ns, &name),
                    cmd.field_validation,
                    cmd.force_conflicts
                ),
            );
            let e = send(s, "PATCH", &target, Some("application/apply-patch+yaml"), Some(&doc), "application/json");
            if e.response.status == 409 {
                let v = body_json(&e.response);
                out.error(format!("error: {}", v["message"].as_str().unwrap_or("conflict")));
                out.line(CONFLICT_HELP);
            } else {
                report(&e, &[200, 201], format!("{} serverside-applied", kind_ref(&name)));
            }
        }
        Verb::Apply => {
            if name.is_empty() {
                out.error("error: resource name may not be empty");
                return;
            }
            let applied = applied_configuration(&doc, ns);
            let applied_text = serde_json::to_string(&applied).unwrap_or_default() + "\n";
            let live = send(s, "GET", &r.item(ns, &name), None, None, "application/json");
            const CSA: &str = "kubectl-client-side-apply";
            match live.response.status {
                404 => {
                    let mut body = applied.clone();
                    set_annotation(&mut body, LAST_APPLIED, &applied_text);
                    let e = write(s, "POST", r.collection(ns), CSA, "application/json", &keys_sorted(&body));
                    report(&e, &[201], format!("{} created", kind_ref(&name)));
                }
                200 => {
                    let previous = last_applied(&body_json(&live.response));
                    let mut patch = two_way_patch(&previous, &applied);
                    if patch.as_object().is_some_and(Map::is_empty) {
                        out.line(format!("{} unchanged", kind_ref(&name)));
                        return;
                    }
                    set_annotation(&mut patch, LAST_APPLIED, &applied_text);
                    let patch = keys_sorted(&patch);
                    let e = write(s, "PATCH", r.item(ns, &name), CSA, "application/strategic-merge-patch+json", &patch);
                    report(&e, &[200], format!("{} configured", kind_ref(&name)));
                }
                _ => out.error(server_error(&live)),
            }
        }
        _ => {}
    }
}

/// The configuration as kubectl's client-side apply records it: the
/// document with the namespace it goes to, its own annotation taken out
/// (the annotations left, an empty map when there are none, as kubectl
/// leaves them), its keys in Go's order.
pub(super) fn applied_configuration(doc: &Value, ns: Option<&str>) -> Value {
    let mut applied = doc.clone();
    if let Some(meta) = applied.get_mut("metadata").and_then(Value::as_object_mut) {
        if let Some(ns) = ns {
            meta.insert("namespace".into(), json!(ns));
        }
        if let Some(a) = meta.entry("annotations").or_insert_with(|| json!({})).as_object_mut() {
            a.remove(LAST_APPLIED);
        }
    }
    keys_sorted(&applied)
}

/// The configuration last applied to a live object (null: none).
pub(super) fn last_applied(live: &Value) -> Value {
    live.pointer(&format!("/metadata/annotations/{}", LAST_APPLIED.replace('/', "~1")))
        .and_then(Value::as_str)
        .and_then(|t| serde_json::from_str(t).ok())
        .unwrap_or(Value::Null)
}

pub(super) fn set_annotation(doc: &mut Value, key: &str, value: &str) {
    let Some(obj) = doc.as_object_mut() else { return };
    let meta = obj.entry("metadata").or_insert_with(|| json!({}));
    if let Some(m) = meta.as_object_mut() {
        let ann = m.entry("annotations").or_insert_with(|| json!({}));
        if let Some(a) = ann.as_object_mut() {
            a.insert(key.into(), json!(value));
        }
    }
}

/// The patch from the previously applied configuration to the new one:
/// changed fields set, removed fields null (lists are replaced whole).
pub fn two_way_patch(old: &Value, new: &Value) -> Value {
    match (old, new) {
        (Value::Object(o), Value::Object(n)) => {
            let mut p = Map::new();
            for (k, nv) in n {
                match o.get(k) {
                    Some(ov) if ov == nv => {}
                    Some(ov @ Value::Object(_)) if nv.is_object() => {
                        p.insert(k.clone(), two_way_patch(ov, nv));
                    }
                    _ => {
                        p.insert(k.clone(), nv.clone());
                    }
                }
            }
            for k in o.keys() {
                if !n.contains_key(k) {
                    p.insert(k.clone(), Value::Null);
                }
            }
            Value::Object(p)
        }
        (_, n) => n.clone(),
    }
}
