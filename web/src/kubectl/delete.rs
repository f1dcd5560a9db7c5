//! `delete`: by name, by label selector or `--all` (`-l`: the collection
//! listed with it, `--all` without one, then each item deleted by name,
//! as kubectl's builder does),
//! with `--cascade` as a propagation policy. kubectl
//! then waits (`--wait`, on by default) until what it deleted is gone; the
//! page cannot hold the command bar that long, so when something is left
//! (finalizers, a grace period, dependents first) it says so instead.

use super::*;

pub(super) fn delete(s: &mut Session, d: &Discovery, cmd: &Command, out: &mut Outcome) {
    let ns = namespace_of(cmd);
    let mut found = 0;
    for t in &cmd.types {
        let Some(r) = resolve(d, t, out) else { return };
        let cascade = match cmd.cascade.as_str() {
            "foreground" => "Foreground",
            "orphan" => "Orphan",
            _ => "Background",
        };
        // As kubectl: the options (a server dry run too) go in the body,
        // which the server then reads instead of the query.
        let mut body = json!({"kind": "DeleteOptions", "apiVersion": "v1", "propagationPolicy": cascade});
        if cmd.server_dry_run {
            body["dryRun"] = json!(["All"]);
        }
        let names = match (&cmd.selector, cmd.all) {
            (None, false) => cmd.names.clone(),
            (sel, _) => {
                let collection = r.collection(ns.as_deref().or(Some(cmd.context_namespace.as_str())));
                let path = match sel {
                    Some(sel) => format!("{collection}?labelSelector={}", crate::format::encode_component(sel)),
                    None => collection,
                };
                let e = send(s, "GET", &path, None, None, "application/json");
                if e.response.status != 200 {
                    out.error(server_error(&e));
                    return;
                }
                let list = body_json(&e.response);
                list["items"]
                    .as_array()
                    .map(|items| {
                        items.iter().filter_map(|i| i["metadata"]["name"].as_str().map(str::to_string)).collect()
                    })
                    .unwrap_or_default()
            }
        };
        found += names.len();
        for name in &names {
            let e = send(
                s,
                "DELETE",
                &r.item(ns.as_deref().or(Some(cmd.context_namespace.as_str())), name),
                Some("application/json"),
                Some(&body),
                "application/json",
            );
            if e.response.status == 200 || e.response.status == 202 {
                out.line(print::deleted_line(&r, name));
                let left = !body_json(&e.response)["metadata"]["deletionTimestamp"].is_null();
                if left && !cmd.server_dry_run {
                    out.differs = Some(differs::WAITS);
                }
            } else {
                out.error(server_error(&e));
            }
        }
    }
    if found == 0 {
        out.line("No resources found");
    }
}
