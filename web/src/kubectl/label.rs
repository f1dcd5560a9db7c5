//! `label` and `annotate`: `k=v` sets, `k-` removes, `--overwrite` allows
//! changing a value; sent as a merge patch.

use super::*;

pub(super) fn label(s: &mut Session, d: &Discovery, cmd: &Command, out: &mut Outcome) {
    let (field, manager, done) = match cmd.verb {
        Verb::Label => ("labels", "kubectl-label", "labeled"),
        _ => ("annotations", "kubectl-annotate", "annotated"),
    };
    let mut changes = Map::new();
    for p in &cmd.pairs {
        match p.split_once('=') {
            Some((k, v)) => changes.insert(k.to_string(), json!(v)),
            None => changes.insert(p.trim_end_matches('-').to_string(), Value::Null),
        };
    }
    let ns = namespace_of(cmd);
    for t in &cmd.types {
        let Some(r) = resolve(d, t, out) else { return };
        for name in &cmd.names {
            let item = r.item(ns.as_deref().or(Some(cmd.context_namespace.as_str())), name);
            let live = send(s, "GET", &item, None, None, "application/json");
            if live.response.status != 200 {
                out.error(server_error(&live));
                continue;
            }
            let live = body_json(&live.response);
            if !cmd.overwrite {
                let existing = live.pointer(&format!("/metadata/{field}")).and_then(Value::as_object);
                let clash = changes.iter().find_map(|(k, v)| {
                    let old = existing?.get(k)?;
                    (v.is_string() && old != v).then(|| {
                        format!("'{k}' already has a value ({}), and --overwrite is false", old.as_str().unwrap_or(""))
                    })
                });
                if let Some(msg) = clash {
                    out.error(format!("error: {msg}"));
                    continue;
                }
            }
            let patch = json!({"metadata": {field: changes}});
            let e = send(
                s,
                "PATCH",
                &dry(cmd, format!("{item}?fieldManager={manager}")),
                Some("application/merge-patch+json"),
                Some(&patch),
                "application/json",
            );
            if e.response.status == 200 {
                out.line(format!("{} {done}", name_ref(&r, name)));
            } else {
                out.error(server_error(&e));
            }
        }
    }
}
