//! `patch TYPE NAME… -p PATCH [--type strategic|merge|json]
//! [--subresource NAME]` (or `TYPE/NAME`): as kubectl, the object is read
//! first (through the subresource, if one is named), then the patch is
//! sent with `fieldManager=kubectl-patch`; the answer is `patched`, or
//! `patched (no change)` when the server answered with the object as it
//! was read. The patch may be JSON or YAML, as kubectl reads it.

use super::*;

pub(super) fn patch(s: &mut Session, d: &Discovery, cmd: &Command, out: &mut Outcome) {
    let Some(text) = cmd.patch.as_deref() else {
        return out.error("error: must specify --patch or --patch-file containing the contents of the patch");
    };
    let media = match cmd.service_type.as_deref().unwrap_or("strategic").to_ascii_lowercase().as_str() {
        "strategic" => "application/strategic-merge-patch+json",
        "merge" => "application/merge-patch+json",
        "json" => "application/json-patch+json",
        _ => {
            let typed = cmd.service_type.as_deref().unwrap_or("");
            return out.error(format!("error: --type must be one of [json merge strategic], not {typed:?}"));
        }
    };
    let body = match crate::format::parse_value(text) {
        Ok(v) => v,
        Err(e) => return out.error(format!("error: unable to parse {text:?}: {e}")),
    };
    let mut targets: Vec<(String, String)> = Vec::new();
    match (cmd.types.first(), cmd.names.is_empty()) {
        (Some(t), true) if t.contains('/') => {
            for typed in &cmd.types {
                match typed.split_once('/') {
                    Some((ty, name)) => targets.push((ty.to_string(), name.to_string())),
                    None => {
                        return out.error(
                            "error: there is no need to specify a resource type as a separate argument when passing arguments in resource/name form (e.g. 'kubectl get resource/<resource_name>' instead of 'kubectl get resource resource/<resource_name>'",
                        )
                    }
                }
            }
        }
        (Some(t), false) => targets.extend(cmd.names.iter().map(|n| (t.clone(), n.clone()))),
        _ => return out.error("error: resource(s) were provided, but no name was specified"),
    }
    let sub = cmd.subresource.as_deref().map(|s| format!("/{s}")).unwrap_or_default();
    for (ty, name) in targets {
        let Some(r) = resolve(d, &ty, out) else { return };
        let namespace = namespace_of(cmd).unwrap_or_else(|| cmd.context_namespace.clone());
        let path = format!("{}{sub}", r.item(r.namespaced.then_some(namespace.as_str()), &name));
        let read = send(s, "GET", &path, None, None, "application/json");
        if read.response.status != 200 {
            out.error(server_error(&read));
            continue;
        }
        let target = dry(cmd, format!("{path}?fieldManager=kubectl-patch"));
        let e = send(s, "PATCH", &target, Some(media), Some(&body), "application/json");
        match e.response.status {
            200 => {
                let same = body_json(&e.response) == body_json(&read.response);
                let done = if same { "patched (no change)" } else { "patched" };
                out.line(format!("{} {done}", name_ref(&r, &name)));
            }
            415 => {
                let message = body_json(&e.response)["message"].as_str().unwrap_or("").to_string();
                out.error(format!(
                    "error: {media} is not supported by {}/{}, Kind={}: {message}",
                    r.group, r.version, r.kind
                ));
            }
            _ => out.error(server_error(&e)),
        }
    }
}
