//! `delete`: by name, with `--cascade` as a propagation policy. kubectl
//! then waits (`--wait`, on by default) until what it deleted is gone; the
//! page cannot hold the command bar that long, so when something is left
//! (finalizers, a grace period, dependents first) it says so instead.

use super::*;

pub(super) fn delete(s: &mut Session, d: &Discovery, cmd: &Command, out: &mut Outcome) {
    let ns = namespace_of(cmd);
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
        for name in &cmd.names {
            let e = send(
                s,
                "DELETE",
                &r.item(ns.as_deref().or(Some("default")), name),
                Some("application/json"),
                Some(&body),
                "application/json",
            );
            if e.response.status == 200 || e.response.status == 202 {
                out.line(format!("{} \"{name}\" deleted", r.kind.to_ascii_lowercase()));
                let left = !body_json(&e.response)["metadata"]["deletionTimestamp"].is_null();
                if left && !cmd.server_dry_run {
                    out.differs = Some(differs::WAITS);
                }
            } else {
                out.error(server_error(&e));
            }
        }
    }
}
