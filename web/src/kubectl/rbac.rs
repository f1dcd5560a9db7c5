//! `create role|clusterrole|rolebinding|clusterrolebinding`: the objects
//! kubectl 1.33's generators build, checked as they check them before
//! anything is sent (verbs, resources resolved through discovery, the
//! special verbs' resources, non-resource URLs, exactly one role).

use super::imperative::{post, Creates, CREATE};
use super::*;

const RBAC: &str = "rbac.authorization.k8s.io";

/// The verbs kubectl knows for resources; others are sent with a warning.
const RESOURCE_VERBS: [&str; 14] = [
    "*",
    "get",
    "delete",
    "list",
    "create",
    "update",
    "patch",
    "watch",
    "proxy",
    "deletecollection",
    "use",
    "bind",
    "escalate",
    "impersonate",
];

/// The verbs a non-resource URL may be given.
pub(super) const NON_RESOURCE_VERBS: [&str; 8] = ["*", "get", "post", "put", "delete", "patch", "head", "options"];

/// The verbs that only mean something for some resources: (verb, group,
/// resource) as kubectl lists them.
const SPECIAL_VERBS: [(&str, &str, &str); 10] = [
    ("use", "policy", "podsecuritypolicies"),
    ("use", "extensions", "podsecuritypolicies"),
    ("bind", RBAC, "roles"),
    ("bind", RBAC, "clusterroles"),
    ("escalate", RBAC, "roles"),
    ("escalate", RBAC, "clusterroles"),
    ("impersonate", "", "users"),
    ("impersonate", "", "serviceaccounts"),
    ("impersonate", "", "groups"),
    ("impersonate", "authentication.k8s.io", "userextras"),
];

/// `create role|clusterrole|rolebinding|clusterrolebinding NAME …`; false
/// when the generator is another one.
pub(super) fn create(s: &mut Session, d: &Discovery, cmd: &Command, out: &mut Outcome) -> bool {
    let Some((what, names)) = cmd.args.split_first() else { return false };
    let built = match what.as_str() {
        "role" | "clusterrole" => name(what, names).and_then(|n| role(d, cmd, n, what == "clusterrole", out)),
        "rolebinding" | "clusterrolebinding" => {
            name(what, names).and_then(|n| binding(cmd, n, what == "clusterrolebinding"))
        }
        _ => return false,
    };
    match built {
        Ok(object) if what == "rolebinding" => post(s, d, cmd, object, &Creates::create_wrapped("rolebinding"), out),
        Ok(object) if what == "clusterrolebinding" => {
            post(s, d, cmd, object, &Creates::create_wrapped("clusterrolebinding"), out)
        }
        Ok(object) => post(s, d, cmd, object, &CREATE, out),
        Err(e) => out.error(e),
    }
    true
}

fn name<'a>(what: &str, names: &'a [String]) -> Result<&'a str, String> {
    match names {
        [n] => Ok(n),
        more => Err(super::imperative::one_name(what, more.len())),
    }
}

/// Each value once, in the order first given.
fn once(values: &[String]) -> Vec<String> {
    let mut seen: Vec<String> = Vec::new();
    for v in values {
        if !seen.contains(v) {
            seen.push(v.clone());
        }
    }
    seen
}

/// A `--resource` as typed: resource, group, subresource.
struct Typed {
    resource: String,
    group: String,
    subresource: String,
}

fn typed(r: &str) -> Typed {
    let (rest, subresource) = r.split_once('/').unwrap_or((r, ""));
    let (resource, group) = rest.split_once('.').unwrap_or((rest, ""));
    Typed { resource: resource.into(), group: group.into(), subresource: subresource.into() }
}

/// A typed resource's (group, plural) from discovery, as kubectl's REST
/// mapper finds it (short names and singulars too); its error when none.
fn mapped(d: &Discovery, t: &Typed) -> Result<(String, String), String> {
    let found =
        d.named(&t.resource.to_ascii_lowercase()).into_iter().find(|r| t.group.is_empty() || r.group == t.group);
    match found {
        Some(r) => Ok((r.group.clone(), r.resource.clone())),
        None if t.group.is_empty() => Err(format!("the server doesn't have a resource type \"{}\"", t.resource)),
        None => Err(format!("the server doesn't have a resource type \"{}\" in group \"{}\"", t.resource, t.group)),
    }
}

/// A Role or ClusterRole: one rule per API group of the resources (groups
/// in order), then one for the non-resource URLs; or a ClusterRole that
/// aggregates.
fn role(d: &Discovery, cmd: &Command, name: &str, cluster: bool, out: &mut Outcome) -> Result<Value, String> {
    let f = &cmd.rbac;
    let mut verbs = once(&f.verbs);
    if verbs.iter().any(|v| v == "*") {
        verbs = vec!["*".into()];
    }
    let mut resources: Vec<Typed> = Vec::new();
    for r in &f.resources {
        let t = typed(r);
        if t.resource == "*" && t.group.is_empty() && t.subresource.is_empty() {
            resources = vec![t];
            break;
        }
        resources.push(t);
    }
    let names = once(&f.resource_names);
    let urls = once(&f.non_resource_urls);
    let kind = if cluster { "ClusterRole" } else { "Role" };
    let mut object = json!({"kind": kind, "apiVersion": format!("{RBAC}/v1"), "metadata": {"name": name, "creationTimestamp": null}});
    if cluster && !f.aggregation_rule.is_empty() {
        if !urls.is_empty() || !verbs.is_empty() || !resources.is_empty() || !names.is_empty() {
            return Err(
                "error: aggregation rule must be specified without nonResourceURLs, verbs, resources or resourceNames"
                    .into(),
            );
        }
        let mut labels = std::collections::BTreeMap::new();
        for pair in f.aggregation_rule.iter().flat_map(|v| v.split(',')) {
            let Some((k, v)) = pair.split_once('=') else {
                return Err(format!(
                    "error: invalid argument \"{}\" for \"--aggregation-rule\" flag: malformed pair, expect string=string\nSee 'kubectl create clusterrole --help' for usage.",
                    f.aggregation_rule.join(",")
                ));
            };
            labels.insert(k.to_string(), v.to_string());
        }
        object["rules"] = Value::Null;
        object["aggregationRule"] = json!({"clusterRoleSelectors": [{"matchLabels": labels}]});
        return Ok(object);
    }
    if verbs.is_empty() {
        return Err("error: at least one verb must be specified".into());
    }
    // (A Role warns before it asks for resources; a ClusterRole only
    // when it has some.)
    let warn = |out: &mut Outcome| {
        for v in verbs.iter().filter(|v| !RESOURCE_VERBS.contains(&v.as_str())) {
            out.line(format!("Warning: '{v}' is not a standard resource verb"));
        }
    };
    if !cluster {
        warn(out);
        if resources.is_empty() {
            return Err("error: at least one resource must be specified".into());
        }
    } else if resources.is_empty() && urls.is_empty() {
        return Err("error: one of resource or nonResourceURL must be specified".into());
    } else if !resources.is_empty() {
        warn(out);
    }
    // Checked as kubectl checks them: an empty resource, then each
    // resource against the special verbs, then whether it is served.
    let mut rules: std::collections::BTreeMap<String, Vec<String>> = std::collections::BTreeMap::new();
    for t in &resources {
        if t.resource.is_empty() {
            return Err("error: resource must be specified if apiGroup/subresource specified".into());
        }
        if t.resource == "*" {
            break;
        }
        let found = mapped(d, t);
        let (group, plural) = found.clone().unwrap_or((t.group.clone(), t.resource.clone()));
        let mut special = false;
        for v in &verbs {
            let allowed: Vec<_> = SPECIAL_VERBS.iter().filter(|(sv, _, _)| sv == v).collect();
            if allowed.is_empty() {
                continue;
            }
            if !allowed.iter().any(|(_, g, r)| *g == group && *r == plural) {
                return Err(format!("error: can not perform '{v}' on '{plural}' in group '{group}'"));
            }
            special = true;
        }
        if let (Err(e), false) = (found, special) {
            return Err(e);
        }
    }
    for t in &resources {
        let (group, mut plural) = mapped(d, t).unwrap_or((t.group.clone(), t.resource.clone()));
        if !t.subresource.is_empty() {
            plural = format!("{plural}/{}", t.subresource);
        }
        let list = rules.entry(group).or_default();
        if !list.contains(&plural) {
            list.push(plural);
        }
    }
    if cluster && !urls.is_empty() {
        for v in &verbs {
            if !NON_RESOURCE_VERBS.contains(&v.as_str()) {
                return Err(format!("error: invalid verb: '{v}' for nonResourceURL"));
            }
        }
        for u in urls.iter().filter(|u| *u != "*") {
            if !u.starts_with('/') {
                return Err("error: nonResourceURL should start with /".into());
            }
            if u[..u.len() - 1].contains('*') {
                return Err("error: nonResourceURL only supports wildcard matches when '*' is at the end".into());
            }
        }
    }
    let mut list = Vec::new();
    for (group, resources) in rules {
        let mut rule = json!({"verbs": verbs, "apiGroups": [group], "resources": resources});
        if !names.is_empty() {
            rule["resourceNames"] = json!(names);
        }
        list.push(rule);
    }
    if !urls.is_empty() {
        list.push(json!({"verbs": verbs, "nonResourceURLs": urls}));
    }
    object["rules"] = json!(list);
    Ok(object)
}

/// A RoleBinding or ClusterRoleBinding: users, then groups, then service
/// accounts, bound to exactly one role.
fn binding(cmd: &Command, name: &str, cluster: bool) -> Result<Value, String> {
    let f = &cmd.rbac;
    let role_ref = match (&f.role, &f.cluster_role) {
        (Some(r), None) if !cluster => json!({"apiGroup": RBAC, "kind": "Role", "name": r}),
        (None, Some(r)) => json!({"apiGroup": RBAC, "kind": "ClusterRole", "name": r}),
        _ if cluster => return Err("error: required flag(s) \"clusterrole\" not set".into()),
        _ => return Err("error: exactly one of clusterrole or role must be specified".into()),
    };
    let mut subjects: Vec<Value> = Vec::new();
    subjects.extend(f.users.iter().map(|u| json!({"kind": "User", "apiGroup": RBAC, "name": u})));
    subjects.extend(f.groups.iter().map(|g| json!({"kind": "Group", "apiGroup": RBAC, "name": g})));
    for sa in &f.service_accounts {
        match sa.split_once(':') {
            Some((ns, n)) if !ns.is_empty() && !n.is_empty() && !n.contains(':') => {
                subjects.push(json!({"kind": "ServiceAccount", "name": n, "namespace": ns}))
            }
            _ => return Err("error: serviceaccount must be <namespace>:<name>".into()),
        }
    }
    let kind = if cluster { "ClusterRoleBinding" } else { "RoleBinding" };
    let mut object = json!({"kind": kind, "apiVersion": format!("{RBAC}/v1"), "metadata": {"name": name, "creationTimestamp": null}});
    if !subjects.is_empty() {
        object["subjects"] = json!(subjects);
    }
    object["roleRef"] = role_ref;
    Ok(object)
}

#[cfg(test)]
mod tests {
    use super::super::tests::{last_body as sent, requests_since, session};
    use super::*;

    #[test]
    fn roles_are_built_and_checked_as_kubectl_builds_and_checks_them() {
        let mut s = session();
        let from = s.log.len();
        let line =
            "create role reader --verb=get --verb=list,watch,get --resource=pods,deployments.apps,pods/log,rs,Pods";
        assert_eq!(run(&mut s, line, "").text, "role.rbac.authorization.k8s.io/reader created\n");
        assert_eq!(
            requests_since(&s, from),
            vec!["POST /apis/rbac.authorization.k8s.io/v1/namespaces/default/roles?fieldManager=kubectl-create&fieldValidation=Strict 201"]
        );
        let verbs = json!(["get", "list", "watch"]);
        assert_eq!(
            sent(&s),
            json!({"kind": "Role", "apiVersion": "rbac.authorization.k8s.io/v1",
            "metadata": {"name": "reader", "creationTimestamp": null},
            "rules": [
                {"verbs": verbs, "apiGroups": [""], "resources": ["pods", "pods/log"]},
                {"verbs": verbs, "apiGroups": ["apps"], "resources": ["deployments", "replicasets"]}
            ]})
        );
        let named = "create role settings --verb=get --resource=configmaps --resource-name=a --resource-name=b --resource-name=a";
        assert_eq!(run(&mut s, named, "").text, "role.rbac.authorization.k8s.io/settings created\n");
        assert_eq!(
            sent(&s)["rules"],
            json!([{"verbs": ["get"], "apiGroups": [""], "resources": ["configmaps"], "resourceNames": ["a", "b"]}])
        );
        // Names for several resources: one rule per group, each with the
        // names (the server takes it, as upstream's does).
        let both =
            run(&mut s, "create role both --verb=get --resource=pods,deployments.apps,services --resource-name=a", "");
        assert_eq!(both.text, "role.rbac.authorization.k8s.io/both created\n");
        assert_eq!(
            sent(&s)["rules"],
            json!([
                {"verbs": ["get"], "apiGroups": [""], "resources": ["pods", "services"], "resourceNames": ["a"]},
                {"verbs": ["get"], "apiGroups": ["apps"], "resources": ["deployments"], "resourceNames": ["a"]}
            ])
        );
        // Several causes print one to a line, as kubectl's checkErr does.
        let manifest = "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  name: two\nrules:\n- apiGroups: [\"\"]\n  resources: [pods]\n- apiGroups: [\"\"]\n  resources: [services]\n";
        let two = run(&mut s, "create -f -", manifest);
        assert!(two.failed);
        assert_eq!(
            two.text,
            "The Role \"two\" is invalid: \n* rules[0].verbs: Required value: verbs must contain at least one value\n* rules[1].verbs: Required value: verbs must contain at least one value\n"
        );
        // `*` among the verbs is all of them; a resource `*` all resources.
        run(&mut s, "create role everything --verb=get --verb=* --resource=pods,*", "");
        assert_eq!(sent(&s)["rules"], json!([{"verbs": ["*"], "apiGroups": [""], "resources": ["*"]}]));
        let warned = run(&mut s, "create role odd --verb=frob --resource=pods", "");
        assert_eq!(
            warned.text,
            "Warning: 'frob' is not a standard resource verb\nrole.rbac.authorization.k8s.io/odd created\n"
        );

        let from = s.log.len();
        for (line, error) in [
            ("create role r --resource=pods", "error: at least one verb must be specified"),
            ("create role r --verb= --resource=pods", "error: at least one verb must be specified"),
            ("create role r --verb=get", "error: at least one resource must be specified"),
            ("create role r --verb=get --resource=nope", "the server doesn't have a resource type \"nope\""),
            ("create role r --verb=get --resource=pods.nope", "the server doesn't have a resource type \"pods\" in group \"nope\""),
            ("create role r --verb=bind --resource=pods", "error: can not perform 'bind' on 'pods' in group ''"),
            ("create role r --verb=get --resource=.apps", "error: resource must be specified if apiGroup/subresource specified"),
            ("create role --verb=get --resource=pods", "error: exactly one NAME is required, got 0\nSee 'kubectl create role -h' for help and examples"),
            ("create role r --verb=get --resource=pods --non-resource-url=/x", "error: unknown flag: --non-resource-url\nSee 'kubectl create role --help' for usage."),
            ("create clusterrole r --verb=get", "error: one of resource or nonResourceURL must be specified"),
            ("create clusterrole r --verb=list --non-resource-url=/x", "error: invalid verb: 'list' for nonResourceURL"),
            ("create clusterrole r --verb=get --non-resource-url=x", "error: nonResourceURL should start with /"),
            ("create clusterrole r --verb=get --non-resource-url=/a*b", "error: nonResourceURL only supports wildcard matches when '*' is at the end"),
            ("create clusterrole r --verb=get --aggregation-rule=a=b", "error: aggregation rule must be specified without nonResourceURLs, verbs, resources or resourceNames"),
            ("create clusterrole r --aggregation-rule=abc", "error: invalid argument \"abc\" for \"--aggregation-rule\" flag: malformed pair, expect string=string\nSee 'kubectl create clusterrole --help' for usage."),
        ] {
            let o = run(&mut s, line, "");
            assert!(o.failed, "{line}");
            assert_eq!(o.text, format!("{error}\n"), "{line}");
        }
        assert!(requests_since(&s, from).is_empty(), "nothing is sent for a refused generator");
        // The bind verb is for roles.
        assert!(!run(&mut s, "create clusterrole binder --verb=bind --resource=clusterroles", "").failed);

        run(&mut s, "create clusterrole health --verb=get --resource=nodes --non-resource-url=/healthz,/livez*", "");
        assert_eq!(
            sent(&s)["rules"],
            json!([
                {"verbs": ["get"], "apiGroups": [""], "resources": ["nodes"]},
                {"verbs": ["get"], "nonResourceURLs": ["/healthz", "/livez*"]}
            ])
        );
        run(
            &mut s,
            "create clusterrole monitoring --aggregation-rule=rbac.example.com/aggregate-to-monitoring=true",
            "",
        );
        let sent_role = sent(&s);
        assert_eq!(sent_role["rules"], Value::Null);
        assert_eq!(
            sent_role["aggregationRule"],
            json!({"clusterRoleSelectors": [{"matchLabels": {"rbac.example.com/aggregate-to-monitoring": "true"}}]})
        );
    }

    #[test]
    fn a_bindings_refusal_is_wrapped_as_kubectl_wraps_it() {
        let mut s = session();
        // (kubectl 1.33 against `kubesim serve --authorization-mode RBAC`.)
        let out = run(&mut s, "create rolebinding y --clusterrole=view --user=bob -n nosuchns", "");
        assert_eq!(
            (out.text.as_str(), out.failed),
            ("error: failed to create rolebinding: namespaces \"nosuchns\" not found\n", true)
        );
        let out = run(&mut s, "create clusterrolebinding x --clusterrole=admin --user=alice --as alice", "");
        assert_eq!(
            out.text,
            "error: failed to create clusterrolebinding: clusterrolebindings.rbac.authorization.k8s.io is forbidden: User \"alice\" cannot create resource \"clusterrolebindings\" in API group \"rbac.authorization.k8s.io\" at the cluster scope\n"
        );
        // A role's refusal is not wrapped.
        let out = run(&mut s, "create role z --verb=get --resource=pods -n nosuchns", "");
        assert_eq!(out.text, "Error from server (NotFound): namespaces \"nosuchns\" not found\n");
    }

    #[test]
    fn bindings_name_their_subjects_in_kubectls_order() {
        let mut s = session();
        let line = "create rolebinding readers --role=reader --serviceaccount=default:app --group=devs --user=alice --user=bob";
        assert_eq!(run(&mut s, line, "").text, "rolebinding.rbac.authorization.k8s.io/readers created\n");
        let rbac = "rbac.authorization.k8s.io";
        assert_eq!(
            sent(&s),
            json!({"kind": "RoleBinding", "apiVersion": "rbac.authorization.k8s.io/v1",
                "metadata": {"name": "readers", "creationTimestamp": null},
                "subjects": [
                    {"kind": "User", "apiGroup": rbac, "name": "alice"},
                    {"kind": "User", "apiGroup": rbac, "name": "bob"},
                    {"kind": "Group", "apiGroup": rbac, "name": "devs"},
                    {"kind": "ServiceAccount", "name": "app", "namespace": "default"}
                ],
                "roleRef": {"apiGroup": rbac, "kind": "Role", "name": "reader"}})
        );
        let from = s.log.len();
        assert_eq!(
            run(&mut s, "create clusterrolebinding viewers --clusterrole=view --group=g", "").text,
            "clusterrolebinding.rbac.authorization.k8s.io/viewers created\n"
        );
        assert_eq!(
            requests_since(&s, from),
            vec!["POST /apis/rbac.authorization.k8s.io/v1/clusterrolebindings?fieldManager=kubectl-create&fieldValidation=Strict 201"]
        );
        for (line, error) in [
            ("create rolebinding x --user=a", "error: exactly one of clusterrole or role must be specified"),
            (
                "create rolebinding x --role=a --clusterrole=b",
                "error: exactly one of clusterrole or role must be specified",
            ),
            ("create rolebinding x --role=a --serviceaccount=app", "error: serviceaccount must be <namespace>:<name>"),
            (
                "create rolebinding x --role=a --serviceaccount=a:b:c",
                "error: serviceaccount must be <namespace>:<name>",
            ),
            ("create clusterrolebinding x --user=a", "error: required flag(s) \"clusterrole\" not set"),
            (
                "create clusterrolebinding x --role=a",
                "error: unknown flag: --role\nSee 'kubectl create clusterrolebinding --help' for usage.",
            ),
        ] {
            assert_eq!(run(&mut s, line, "").text, format!("{error}\n"), "{line}");
        }
    }

    #[test]
    fn as_and_as_group_impersonate_every_request_of_one_command() {
        let mut s = session();
        let can = |s: &mut Session, line: &str| run(s, line, "").text;
        assert_eq!(can(&mut s, "auth can-i list pods --as alice"), "no\n");
        let e = s.log.iter().rev().find(|e| e.source == Source::Kubectl).unwrap();
        assert_eq!(e.request.header("Impersonate-User"), Some("alice"));
        assert!(s.acting_as.is_none(), "the page acts as before once the command is done");
        let denied = run(&mut s, "get secrets --as alice", "");
        assert!(denied.failed);
        assert!(
            denied.text.contains(
                "User \"alice\" cannot list resource \"secrets\" in API group \"\" in the namespace \"default\""
            ),
            "{}",
            denied.text
        );
        run(&mut s, "create role pod-reader --verb=get,list,watch --resource=pods", "");
        run(&mut s, "create rolebinding devs-read --role=pod-reader --group=devs", "");
        assert_eq!(can(&mut s, "auth can-i list pods --as alice"), "no\n");
        assert_eq!(can(&mut s, "auth can-i list pods --as alice --as-group devs"), "yes\n");
        assert!(!run(&mut s, "get pods --as=alice --as-group=devs", "").failed);
        assert_eq!(can(&mut s, "auth can-i list pods -n kube-system --as alice --as-group devs"), "no\n");
        assert_eq!(
            can(&mut s, "get pods --as-group=devs"),
            "error: requesting uid, groups or user-extra for kubesim without impersonating a user\n"
        );
        // The command's own flag wins over the page's "acting as".
        s.acting_as = ActingAs::parse("bob", "");
        assert_eq!(can(&mut s, "auth can-i list pods --as alice --as-group devs"), "yes\n");
        assert_eq!(s.acting_as.as_ref().map(|a| a.user.as_str()), Some("bob"));
    }
}
