//! `kubectl auth can-i` and `kubectl auth whoami`, as kubectl 1.33 does
//! them: a SelfSubjectAccessReview or a SelfSubjectReview, answered by the
//! server's authorizer (the page's "acting as" user, when one is chosen).

use kubesim::sort::Order;
use serde_json::{json, Value};

use super::{send, server_error, Command, Outcome};
use crate::resources::Discovery;
use crate::session::{body_json, Session};

const JSON: &str = "application/json";

/// The verbs `auth can-i` knows for resources (it warns of any other, and
/// asks anyway; `create role`'s list differs); for URLs both use
/// `rbac::NON_RESOURCE_VERBS`.
const RESOURCE_VERBS: &[&str] = &[
    "get",
    "list",
    "watch",
    "create",
    "update",
    "patch",
    "delete",
    "deletecollection",
    "use",
    "bind",
    "impersonate",
    "*",
    "approve",
    "sign",
    "escalate",
    "attest",
];

/// A warning as kubectl's warning printer writes it (its messages here end
/// with a line break of their own, hence the empty line after).
fn warn(out: &mut Outcome, message: &str) {
    out.line(format!("Warning: {message}\n"));
}

/// `auth can-i VERB TYPE[/NAME]` or `auth can-i VERB /URL`: prints `yes`,
/// or `no` (with RBAC's reason when it gave one) and fails, as kubectl
/// exits 1; `-q` prints nothing. `--list` lists every rule instead.
pub fn can_i(s: &mut Session, d: &Discovery, cmd: &Command, out: &mut Outcome) {
    if cmd.can_i.list {
        return list(s, cmd, out);
    }
    let verb = cmd.types[1].clone();
    let target = &cmd.types[2];
    let namespace = if cmd.all_namespaces { String::new() } else { namespace_of(cmd) };
    let spec = if target.starts_with('/') {
        if cmd.subresource.is_some() {
            return out.error("error: --subresource can not be used with NonResourceURL");
        }
        if !super::rbac::NON_RESOURCE_VERBS.contains(&verb.as_str()) {
            warn(out, &format!("verb '{verb}' is not a known verb"));
        }
        json!({"nonResourceAttributes": {"path": target, "verb": verb}})
    } else {
        let (typed, name) = target.split_once('/').unwrap_or((target, ""));
        // What kubectl asks about: the resource discovery names, else the
        // word as typed (with a warning, unless it is one of the resources
        // no discovery lists: users and groups, for impersonation).
        let (group, resource, namespaced) = match d.resolve(typed) {
            _ if typed == "*" => (String::new(), typed.to_string(), true),
            Ok(r) => (r.group.clone(), r.resource.clone(), r.namespaced),
            Err(_) => {
                let lower = typed.to_ascii_lowercase();
                if !matches!(lower.as_str(), "users" | "groups") {
                    match lower.split_once('.') {
                        Some((r, g)) => {
                            warn(out, &format!("the server doesn't have a resource type '{r}' in group '{g}'"))
                        }
                        None => warn(out, &format!("the server doesn't have a resource type '{lower}'")),
                    }
                }
                // (kubectl's look-up of whether it is namespaced fails.)
                (String::new(), typed.to_string(), true)
            }
        };
        if !cmd.all_namespaces {
            if !namespaced {
                match group.as_str() {
                    "" => warn(out, &format!("resource '{resource}' is not namespace scoped")),
                    g => warn(out, &format!("resource '{resource}' is not namespace scoped in group '{g}'")),
                }
            }
            if !RESOURCE_VERBS.contains(&verb.as_str()) {
                warn(out, &format!("verb '{verb}' is not a known verb"));
            }
        }
        let mut attributes = serde_json::Map::new();
        for (k, v) in [
            ("namespace", namespace.as_str()),
            ("verb", verb.as_str()),
            ("group", group.as_str()),
            ("resource", resource.as_str()),
            ("subresource", cmd.subresource.as_deref().unwrap_or("")),
            ("name", name),
        ] {
            if !v.is_empty() {
                attributes.insert(k.into(), json!(v));
            }
        }
        json!({"resourceAttributes": attributes})
    };
    if cmd.no_headers {
        return out.error("error: --no-headers cannot be set without --list specified");
    }
    let review = json!({"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview", "spec": spec});
    let e = send(s, "POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", Some(JSON), Some(&review), JSON);
    if e.response.status != 201 {
        out.error(server_error(&e));
        return;
    }
    let status = &body_json(&e.response)["status"];
    if status["allowed"] == true {
        if !cmd.can_i.quiet {
            out.line("yes");
        }
        return;
    }
    let mut answer = "no".to_string();
    for k in ["reason", "evaluationError"] {
        if let Some(t) = status[k].as_str().filter(|t| !t.is_empty()) {
            answer.push_str(&format!(" - {t}"));
        }
    }
    if !cmd.can_i.quiet {
        out.line(answer);
    }
    out.failed = true;
}

fn namespace_of(cmd: &Command) -> String {
    cmd.namespace.clone().unwrap_or_else(|| cmd.context_namespace.clone())
}

/// `auth can-i --list`: a SelfSubjectRulesReview for the namespace, its
/// rules laid out as kubectl 1.33 lays them out (`rules::compacted`).
fn list(s: &mut Session, cmd: &Command, out: &mut Outcome) {
    if cmd.can_i.quiet || cmd.all_namespaces || cmd.subresource.is_some() {
        return out
            .error("error: list option can't be specified with neither quiet, all-namespaces nor subresource options");
    }
    let review = json!({"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectRulesReview",
        "spec": {"namespace": namespace_of(cmd)}});
    let e = send(s, "POST", "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews", Some(JSON), Some(&review), JSON);
    if e.response.status != 201 {
        return out.error(server_error(&e));
    }
    let status = &body_json(&e.response)["status"];
    if status["incomplete"] == true {
        out.line(format!(
            "Warning: the list may be incomplete: {}",
            status["evaluationError"].as_str().unwrap_or("<nil>")
        ));
    }
    let rules: Vec<&Value> = ["resourceRules", "nonResourceRules"]
        .iter()
        .flat_map(|k| status[*k].as_array().into_iter().flatten())
        .collect();
    let rules = super::rules::compacted(rules);
    let mut rows = Vec::new();
    if !cmd.no_headers {
        rows.push(["Resources", "Non-Resource URLs", "Resource Names", "Verbs"].map(String::from).to_vec());
    }
    rows.extend(rules.iter().map(super::rules::Rule::cells));
    out.text.push_str(&super::print::columns(&rows));
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

#[cfg(test)]
mod tests {
    use super::super::tests::{last_body as sent, requests_since, session};
    use crate::kubectl::run;
    use serde_json::json;

    /// What kubectl 1.33 printed for the same roles and bindings against
    /// `kubesim serve --authorization-mode RBAC`.
    const ALICE: &str = "\
Resources                                       Non-Resource URLs   Resource Names               Verbs
selfsubjectreviews.authentication.k8s.io        []                  []                           [create]
selfsubjectaccessreviews.authorization.k8s.io   []                  []                           [create]
selfsubjectrulesreviews.authorization.k8s.io    []                  []                           [create]
pods/log                                        []                  []                           [get list watch]
pods                                            []                  []                           [get patch list watch]
deployments.apps/scale                          []                  []                           [get patch]
deployments.apps                                []                  []                           [get patch]
configmaps                                      []                  [app-config,feature-flags]   [get update]
                                                [/api/*]            []                           [get]
                                                [/api]              []                           [get]
                                                [/apis/*]           []                           [get]
                                                [/apis]             []                           [get]
                                                [/healthz]          []                           [get]
                                                [/healthz]          []                           [get]
                                                [/healthz]          []                           [get]
                                                [/livez]            []                           [get]
                                                [/livez]            []                           [get]
                                                [/metrics]          []                           [get]
                                                [/openapi/*]        []                           [get]
                                                [/openapi]          []                           [get]
                                                [/readyz]           []                           [get]
                                                [/readyz]           []                           [get]
                                                [/version/]         []                           [get]
                                                [/version/]         []                           [get]
                                                [/version]          []                           [get]
                                                [/version]          []                           [get]
";

    #[test]
    fn the_list_is_broken_down_gathered_and_sorted_as_kubectl_prints_it() {
        let mut s = session();
        for line in [
            "create role pod-reader --verb=get,list,watch --resource=pods,pods/log",
            "create role settings --verb=get,update --resource=configmaps --resource-name=app-config,feature-flags",
            "create role deployer --verb=get,patch --resource=deployments.apps,deployments.apps/scale,pods",
            "create rolebinding alice-pods --role=pod-reader --user=alice",
            "create rolebinding alice-settings --role=settings --user=alice",
            "create rolebinding alice-deploy --role=deployer --user=alice",
            "create rolebinding alice-missing --role=nosuch --user=alice",
            "create clusterrole health --verb=get --non-resource-url=/healthz,/metrics",
            "create clusterrolebinding alice-health --clusterrole=health --user=alice",
            "create role ra --verb=watch,list,get --resource=secrets",
            "create role rb --verb=get,delete,list --resource=secrets",
            "create rolebinding ba --role=ra --user=bob",
            "create rolebinding bb --role=rb --user=bob",
        ] {
            let out = run(&mut s, line, "");
            assert!(!out.failed, "{line}: {}", out.text);
        }
        let from = s.log.len();
        let out = run(&mut s, "auth can-i --list --as alice", "");
        assert_eq!((out.text.as_str(), out.failed), (ALICE, false));
        assert_eq!(requests_since(&s, from), vec!["POST /apis/authorization.k8s.io/v1/selfsubjectrulesreviews 201"]);
        assert_eq!(
            sent(&s),
            json!({"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectRulesReview", "spec": {"namespace": "default"}})
        );
        // Verbs from two roles for the same resource: each once, in the
        // order met.
        let bob = run(&mut s, "auth can-i --list --as bob", "").text;
        assert!(bob.contains("\nsecrets                                         []                  []               [watch list get delete]\n"), "{bob}");
        // Another namespace, without headers: the columns as narrow as
        // kubectl's tab writer leaves them (never under six).
        let other = run(&mut s, "auth can-i --list --as alice -n kube-system --no-headers", "").text;
        assert_eq!(sent(&s)["spec"], json!({"namespace": "kube-system"}));
        let mut lines = other.lines();
        assert_eq!(lines.next(), Some("selfsubjectreviews.authentication.k8s.io        []             []    [create]"));
        assert_eq!(lines.nth(2), Some("                                                [/api/*]       []    [get]"));
        assert!(!other.contains("pods"), "{other}");
    }

    #[test]
    fn can_i_asks_as_kubectl_asks_and_warns_where_it_warns() {
        let mut s = session();
        let ask = |s: &mut crate::session::Session, line: &str| {
            let out = run(s, line, "");
            (out.text, out.failed, sent(s)["spec"].clone())
        };
        // A cluster-scoped resource: still asked in the namespace, and
        // warned of.
        let (text, failed, spec) = ask(&mut s, "auth can-i list nodes");
        assert_eq!((text.as_str(), failed), ("Warning: resource 'nodes' is not namespace scoped\n\nyes\n", false));
        assert_eq!(spec, json!({"resourceAttributes": {"namespace": "default", "verb": "list", "resource": "nodes"}}));
        let (text, _, spec) = ask(&mut s, "auth can-i get pods/web --subresource=log -A");
        assert_eq!(text, "yes\n");
        assert_eq!(
            spec,
            json!({"resourceAttributes": {"verb": "get", "resource": "pods", "subresource": "log", "name": "web"}})
        );
        let (text, _, spec) = ask(&mut s, "auth can-i frob /healthz");
        assert_eq!(text, "Warning: verb 'frob' is not a known verb\n\nyes\n");
        assert_eq!(spec, json!({"nonResourceAttributes": {"path": "/healthz", "verb": "frob"}}));
        let (text, _, spec) = ask(&mut s, "auth can-i get foo.bar");
        assert_eq!(text, "Warning: the server doesn't have a resource type 'foo' in group 'bar'\n\nyes\n");
        assert_eq!(spec, json!({"resourceAttributes": {"namespace": "default", "verb": "get", "resource": "foo.bar"}}));
        // Users and groups are known without discovery; `*` is everything.
        assert_eq!(ask(&mut s, "auth can-i impersonate users").0, "yes\n");
        let (text, _, spec) = ask(&mut s, "auth can-i '*' '*'");
        assert_eq!(text, "yes\n");
        assert_eq!(spec, json!({"resourceAttributes": {"namespace": "default", "verb": "*", "resource": "*"}}));
        assert_eq!(ask(&mut s, "auth can-i get deployments.apps").2["resourceAttributes"]["group"], "apps");
        // -q: the answer only in the exit status.
        let out = run(&mut s, "auth can-i delete pods -n kube-system -q --as alice", "");
        assert_eq!((out.text.as_str(), out.failed), ("", true));
        for (line, error) in [
            ("auth can-i get pods web extra", "error: you must specify two arguments: verb resource or verb resource/resourceName.\nSee 'kubectl auth can-i -h' for help and examples.\n"),
            ("auth can-i get pods x", "error: you must specify two arguments: verb resource or verb resource/resourceName.\nSee 'kubectl auth can-i -h' for help and examples.\n"),
            ("auth can-i --list -q", "error: list option can't be specified with neither quiet, all-namespaces nor subresource options\n"),
            ("auth can-i --list -A", "error: list option can't be specified with neither quiet, all-namespaces nor subresource options\n"),
            ("auth can-i --list pods", "error: list option must be specified with no arguments\n"),
            ("auth can-i get pods --no-headers", "error: --no-headers cannot be set without --list specified\n"),
            ("auth can-i get /healthz --subresource=log", "error: --subresource can not be used with NonResourceURL\n"),
            ("auth whoami --list", "error: unknown flag: --list\nSee 'kubectl auth whoami --help' for usage.\n"),
        ] {
            let from = s.log.len();
            let out = run(&mut s, line, "");
            assert_eq!((out.text.as_str(), out.failed), (error, true), "{line}");
            assert!(requests_since(&s, from).iter().all(|r| !r.contains("review")), "{line}");
        }
    }
}
