//! `kubectl auth can-i` and `kubectl auth whoami`, as kubectl 1.33 does
//! them: a SelfSubjectAccessReview or a SelfSubjectReview, answered by the
//! server's authorizer (the page's "acting as" user, when one is chosen).

use kubesim::sort::Order;
use serde_json::{json, Value};

use super::{send, server_error, Command, Outcome};
use crate::resources::Discovery;
use crate::session::{body_json, Session};

const JSON: &str = "application/json";

/// `auth can-i VERB TYPE[/NAME] [NAME]`: prints `yes`, or `no` (with
/// RBAC's reason when it gave one) and fails, as kubectl exits 1.
pub fn can_i(s: &mut Session, d: &Discovery, cmd: &Command, out: &mut Outcome) {
    let verb = cmd.types[1].clone();
    let (typed, mut name) = match cmd.types[2].split_once('/') {
        Some((t, n)) => (t.to_string(), n.to_string()),
        None => (cmd.types[2].clone(), String::new()),
    };
    if let Some(n) = cmd.types.get(3) {
        name = n.clone();
    }
    let mut attributes = json!({"verb": verb, "name": name});
    match d.resolve(&typed) {
        Ok(r) => {
            attributes["group"] = json!(r.group);
            attributes["resource"] = json!(r.resource);
            if r.namespaced {
                attributes["namespace"] = json!(cmd.namespace.clone().unwrap_or_else(|| "default".into()));
            } else if cmd.namespace.is_some() {
                out.line(format!("Warning: resource '{}' is not namespace scoped", r.resource));
            }
        }
        Err(_) => {
            // kubectl asks about what it was told, and warns.
            out.line(format!("Warning: the server doesn't have a resource type '{typed}'"));
            attributes["resource"] = json!(typed);
            attributes["namespace"] = json!(cmd.namespace.clone().unwrap_or_else(|| "default".into()));
        }
    }
    let review = json!({"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview",
        "spec": {"resourceAttributes": attributes}});
    let e = send(s, "POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", Some(JSON), Some(&review), JSON);
    if e.response.status != 201 {
        out.error(server_error(&e));
        return;
    }
    let status = &body_json(&e.response)["status"];
    if status["allowed"] == true {
        out.line("yes");
        return;
    }
    let mut answer = "no".to_string();
    for k in ["reason", "evaluationError"] {
        if let Some(t) = status[k].as_str().filter(|t| !t.is_empty()) {
            answer.push_str(&format!(" - {t}"));
        }
    }
    out.line(answer);
    out.failed = true;
}

/// `auth whoami`: the user the server sees, as kubectl's table prints it.
pub fn whoami(s: &mut Session, out: &mut Outcome) {
    let review = json!({"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"});
    let e = send(s, "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", Some(JSON), Some(&review), JSON);
    if e.response.status == 403 {
        out.error(
            "error: the selfsubjectreviews API is not enabled in the cluster or you do not have permission to call it",
        );
        return;
    }
    if e.response.status != 201 {
        out.error(server_error(&e));
        return;
    }
    let user = &body_json(&e.response)["status"]["userInfo"];
    let mut rows: Vec<(String, String)> = Vec::new();
    let text = |v: &Value| v.as_str().unwrap_or("").to_string();
    let list = |v: &Value| -> String {
        let items: Vec<&str> = v.as_array().into_iter().flatten().filter_map(Value::as_str).collect();
        format!("[{}]", items.join(" "))
    };
    if !text(&user["username"]).is_empty() {
        rows.push(("Username".into(), text(&user["username"])));
    }
    if !text(&user["uid"]).is_empty() {
        rows.push(("UID".into(), text(&user["uid"])));
    }
    if user["groups"].as_array().is_some_and(|g| !g.is_empty()) {
        rows.push(("Groups".into(), list(&user["groups"])));
    }
    if let Some(extra) = user["extra"].as_object() {
        let mut keys: Vec<&String> = extra.keys().collect();
        keys.order();
        for k in keys {
            rows.push((format!("Extra: {k}"), list(&extra[k])));
        }
    }
    let width = rows.iter().map(|(k, _)| k.len()).max().unwrap_or(0).max("ATTRIBUTE".len());
    out.line(format!("{:<width$}   VALUE", "ATTRIBUTE"));
    for (k, v) in rows {
        out.line(format!("{k:<width$}   {v}"));
    }
}
