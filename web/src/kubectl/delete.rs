//! `delete`: by name, with `--cascade` as a propagation policy.

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
            } else {
                out.error(server_error(&e));
            }
        }
    }
}
