//! `edit`. kubectl opens the object in an editor and, when the editor
//! closes, patches the object with what changed: a two-way patch from the
//! object as it was opened to the object as saved (`kubectl-edit` as the
//! field manager). The page has no editor to wait for, so `edit` runs in
//! two steps. The first puts the object in the file box below the command
//! line. The same command run again saves what was changed there. An
//! existing last-applied annotation is rewritten to the edited object, as
//! kubectl does, so a later `apply` sees the edit.

use super::write::{set_annotation, LAST_APPLIED};
use super::*;

pub(super) fn edit(s: &mut Session, d: &Discovery, cmd: &Command, file: &str, out: &mut Outcome) {
    let (ty, name) = match (cmd.types.first(), cmd.names.first()) {
        (Some(t), None) if t.contains('/') => {
            t.split_once('/').map(|(a, b)| (a.to_string(), b.to_string())).unwrap_or_default()
        }
        (Some(t), Some(n)) => (t.clone(), n.clone()),
        _ => {
            return out
                .error("error: \"kubectl edit\" without a name is not simulated in this command bar; name the object")
        }
    };
    let Some(r) = resolve(d, &ty, out) else { return };
    let namespace = namespace_of(cmd).unwrap_or_else(|| cmd.context_namespace.clone());
    let path = r.item(r.namespaced.then_some(namespace.as_str()), &name);
    if file.trim().is_empty() || s.editing.as_ref().is_none_or(|(p, _)| *p != path) {
        let e = send(s, "GET", &path, None, None, "application/json");
        if e.response.status != 200 {
            return out.error(server_error(&e));
        }
        let mut opened = body_json(&e.response);
        // As kubectl shows it: without managed fields.
        if let Some(m) = opened.get_mut("metadata").and_then(Value::as_object_mut) {
            m.remove("managedFields");
        }
        out.edit = Some(to_yaml(&opened));
        out.line(format!(
            "{} is in the file box: change it, then run this command again to save it",
            name_ref(&r, &name)
        ));
        out.differs = Some(differs::EDITOR);
        s.editing = Some((path, opened));
        return;
    }
    let Some((_, opened)) = s.editing.clone() else { return };
    let edited = match parse_documents(file) {
        Ok(docs) if docs.len() == 1 => docs.into_iter().next().unwrap_or_default(),
        Ok(_) => return out.error("error: the edited file must hold exactly one object"),
        Err(e) => return out.error(format!("error: {e}")),
    };
    let mut patch = two_way_patch(&opened, &edited);
    if patch.as_object().is_some_and(Map::is_empty) {
        s.editing = None;
        out.edit = Some(String::new());
        out.line("Edit cancelled, no changes made.");
        return;
    }
    if opened.pointer(&format!("/metadata/annotations/{}", LAST_APPLIED.replace('/', "~1"))).is_some() {
        let mut applied = edited.clone();
        if let Some(a) = applied.pointer_mut("/metadata/annotations").and_then(Value::as_object_mut) {
            a.remove(LAST_APPLIED);
        }
        set_annotation(&mut patch, LAST_APPLIED, &(serde_json::to_string(&applied).unwrap_or_default() + "\n"));
    }
    let target = format!("{path}?fieldManager=kubectl-edit&fieldValidation={}", cmd.field_validation);
    let e = send(s, "PATCH", &target, Some("application/strategic-merge-patch+json"), Some(&patch), "application/json");
    if e.response.status == 200 {
        s.editing = None;
        out.edit = Some(String::new());
        out.line(format!("{} edited", name_ref(&r, &name)));
    } else {
        out.error(server_error(&e));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CM: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: v\n";

    fn get(s: &mut Session, path: &str) -> Value {
        body_json(&s.request(Source::Console, Request::new("GET", path)).response)
    }

    #[test]
    fn edit_hands_out_the_object_then_patches_what_was_changed_and_keeps_apply_in_step() {
        let mut s = Session::new(7);
        assert_eq!(run(&mut s, "apply -f -", CM).text, "configmap/a created\n");
        let opened = run(&mut s, "edit cm/a", "");
        assert!(!opened.failed, "{}", opened.text);
        assert_eq!(opened.text, "configmap/a is in the file box: change it, then run this command again to save it\n");
        assert_eq!(opened.differs, Some(differs::EDITOR));
        let yaml = opened.edit.expect("the object for the box");
        assert!(yaml.contains("name: a") && yaml.contains("k: v") && !yaml.contains("managedFields"), "{yaml}");

        // Someone else labels it while the editor is open: the save keeps that.
        let label = Request::new("PATCH", "/api/v1/namespaces/default/configmaps/a")
            .with_header("Content-Type", "application/merge-patch+json")
            .with_body(r#"{"metadata":{"labels":{"team":"blue"}}}"#);
        assert_eq!(s.request(Source::Console, label).response.status, 200);
        let from = s.log.len();
        let saved = run(&mut s, "edit configmap a", &yaml.replace("k: v", "k: w"));
        assert_eq!(saved.text, "configmap/a edited\n");
        assert_eq!(saved.edit.as_deref(), Some(""), "the box is emptied");
        let patch = s.log[from..].iter().find(|e| e.request.method == "PATCH").expect("a patch");
        assert_eq!(patch.request.header("Content-Type"), Some("application/strategic-merge-patch+json"));
        assert!(patch.request.query.starts_with("fieldManager=kubectl-edit&"), "{}", patch.request.query);
        let live = get(&mut s, "/api/v1/namespaces/default/configmaps/a");
        assert_eq!(live["data"]["k"], "w");
        assert_eq!(live["metadata"]["labels"]["team"], "blue");
        let last = live["metadata"]["annotations"][LAST_APPLIED].as_str().unwrap_or("");
        assert!(last.contains(r#""k":"w""#), "the last-applied annotation follows the edit: {last}");
        // So apply sees the edit, and applying the file again puts v back.
        assert_eq!(run(&mut s, "apply -f -", CM).text, "configmap/a configured\n");
        assert_eq!(get(&mut s, "/api/v1/namespaces/default/configmaps/a")["data"]["k"], "v");

        let yaml = run(&mut s, "edit cm a", "").edit.unwrap_or_default();
        assert_eq!(run(&mut s, "edit cm a", &yaml).text, "Edit cancelled, no changes made.\n");

        // Another command in between: the edit starts over, and the box's
        // text is not saved over the object.
        let yaml = run(&mut s, "edit cm a", "").edit.unwrap_or_default();
        run(&mut s, "get cm a", "");
        let again = run(&mut s, "edit cm a", &yaml.replace("k: v", "k: stale"));
        assert!(again.text.contains("is in the file box"), "{}", again.text);
        assert_eq!(get(&mut s, "/api/v1/namespaces/default/configmaps/a")["data"]["k"], "v");
    }

    #[test]
    fn edit_of_a_missing_object_or_without_a_name_fails_as_kubectl_does() {
        let mut s = Session::new(7);
        let out = run(&mut s, "edit cm nothere", "");
        assert!(out.failed);
        assert!(out.text.contains(r#"configmaps "nothere" not found"#), "{}", out.text);
        assert!(run(&mut s, "edit cm", "").failed);
        // A box holding something else than the object opened is not saved
        // over it: the first run hands the object out.
        let out = run(&mut s, "edit cm kube-root-ca.crt", CM);
        assert!(out.edit.is_some_and(|y| y.contains("kube-root-ca.crt")));
    }

    #[test]
    fn replace_force_deletes_waits_and_creates_a_new_object() {
        let mut s = Session::new(7);
        run(&mut s, "create -f -", CM);
        let uid = get(&mut s, "/api/v1/namespaces/default/configmaps/a")["metadata"]["uid"].clone();
        let from = s.log.len();
        let out = run(&mut s, "replace --force -f -", &CM.replace("k: v", "k: w"));
        assert_eq!(out.text, "configmap \"a\" deleted\nconfigmap/a replaced\n");
        let sent: Vec<String> =
            s.log[from..].iter().map(|e| format!("{} {}", e.request.method, e.response.status)).collect();
        assert_eq!(sent[sent.len() - 3..], ["DELETE 200", "GET 404", "POST 201"]);
        let live = get(&mut s, "/api/v1/namespaces/default/configmaps/a");
        assert_ne!(live["metadata"]["uid"], uid, "a new object");
        assert_eq!(live["data"]["k"], "w");
        // Nothing to delete: it is created.
        let b = CM.replace("name: a", "name: b");
        assert_eq!(run(&mut s, "replace --force -f -", &b).text, "configmap/b replaced\n");
        // A finalizer holds the old one: kubectl would wait; the page says so.
        let held = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: held\n  finalizers: [example.com/x]\n";
        run(&mut s, "create -f -", held);
        let out = run(&mut s, "replace --force -f -", held);
        assert_eq!(out.text, "configmap \"held\" deleted\n");
        assert_eq!(out.differs, Some(differs::WAITS));
        assert!(parse("apply --force -f -").is_err(), "--force belongs to replace here");
    }
}
