//! Who is asking: static tokens (401 for an unknown one, anonymous without
//! one), RBAC decisions as a table (users × verbs × resources ×
//! namespaces, aggregated ClusterRoles included), upstream's 403 wording,
//! and impersonation.

use kubesim::auth::parse_token_file;
use kubesim::server::{Request, Response, Server, ServerConfig};
use serde_json::{json, Value};

const TOKENS: &str = "admin-token,admin,1,system:masters\nalice-token,alice,2,dev\nbob-token,bob,3\n";

fn server() -> Server {
    let mut s =
        Server::new(ServerConfig { tokens: Some(parse_token_file(TOKENS).unwrap()), rbac: true, ..Default::default() });
    // alice edits in `dev`; the group `dev` views everywhere; bob has nothing.
    for (path, obj) in [
        ("/api/v1/namespaces", json!({"metadata": {"name": "dev"}})),
        (
            "/apis/rbac.authorization.k8s.io/v1/namespaces/dev/rolebindings",
            json!({"metadata": {"name": "alice-edit"}, "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "edit"},
                "subjects": [{"kind": "User", "name": "alice", "apiGroup": "rbac.authorization.k8s.io"}]}),
        ),
        (
            "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
            json!({"metadata": {"name": "dev-view"}, "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"},
                "subjects": [{"kind": "Group", "name": "dev", "apiGroup": "rbac.authorization.k8s.io"}]}),
        ),
        (
            "/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles",
            json!({"metadata": {"name": "cm-reader"}, "rules": [{"apiGroups": [""], "resources": ["configmaps"], "resourceNames": ["settings"], "verbs": ["get"]}]}),
        ),
        (
            "/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings",
            json!({"metadata": {"name": "bob-settings"}, "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "cm-reader"},
                "subjects": [{"kind": "User", "name": "bob", "apiGroup": "rbac.authorization.k8s.io"}]}),
        ),
    ] {
        let r = as_token(&mut s, "admin-token", "POST", path, Some(obj));
        assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
    }
    // The aggregation controller gives `edit` and `view` their rules.
    kubesim::controllers::Controllers::new(&["clusterrole-aggregation"]).unwrap().settle(&mut s);
    s
}

fn as_token(s: &mut Server, token: &str, method: &str, path: &str, body: Option<Value>) -> Response {
    let mut req = Request::new(method, path);
    if !token.is_empty() {
        req = req.with_header("Authorization", &format!("Bearer {token}"));
    }
    if let Some(b) = body {
        req = req.with_header("Content-Type", "application/json").with_body(serde_json::to_vec(&b).unwrap());
    }
    s.handle(req)
}

#[test]
fn decisions_by_user_verb_resource_and_namespace() {
    let mut s = server();
    let cm = || Some(json!({"metadata": {"name": "x"}}));
    // (token, method, path, body, allowed)
    let cases: Vec<(&str, &str, &str, Option<Value>, bool)> = vec![
        ("admin-token", "GET", "/api/v1/nodes", None, true),
        ("alice-token", "GET", "/api/v1/namespaces/dev/pods", None, true),
        ("alice-token", "POST", "/api/v1/namespaces/dev/configmaps", cm(), true),
        ("alice-token", "POST", "/api/v1/namespaces/default/configmaps", cm(), false),
        ("alice-token", "GET", "/api/v1/namespaces/default/configmaps", None, true),
        ("alice-token", "GET", "/api/v1/namespaces/default/secrets", None, false),
        ("alice-token", "GET", "/api/v1/namespaces/dev/secrets", None, true),
        ("alice-token", "GET", "/api/v1/nodes", None, false),
        ("alice-token", "GET", "/apis/rbac.authorization.k8s.io/v1/namespaces/dev/roles", None, false),
        ("alice-token", "GET", "/apis/apps/v1/namespaces/default/deployments", None, true),
        ("alice-token", "GET", "/api/v1", None, true),
        ("alice-token", "GET", "/version", None, true),
        ("bob-token", "GET", "/api/v1/namespaces/default/configmaps/settings", None, true),
        ("bob-token", "GET", "/api/v1/namespaces/default/configmaps/other", None, false),
        ("bob-token", "GET", "/api/v1/namespaces/default/configmaps", None, false),
        ("", "GET", "/version", None, true),
        ("", "GET", "/api/v1", None, false),
        ("", "GET", "/api/v1/namespaces/default/pods", None, false),
    ];
    for (token, method, path, body, allowed) in cases {
        let r = as_token(&mut s, token, method, path, body);
        if allowed {
            assert!(
                r.status != 403 && r.status != 401,
                "{token} {method} {path}: {} {}",
                r.status,
                String::from_utf8_lossy(&r.body)
            );
        } else {
            assert_eq!(r.status, 403, "{token} {method} {path}: {}", String::from_utf8_lossy(&r.body));
        }
    }
}

#[test]
fn refusals_are_worded_as_upstream() {
    let mut s = server();
    let msg = |r: Response| r.json_body()["message"].as_str().unwrap_or("").to_string();
    let r = as_token(&mut s, "bob-token", "GET", "/api/v1/namespaces/default/pods", None);
    assert_eq!(r.json_body()["reason"], "Forbidden");
    assert_eq!(r.json_body()["details"], json!({"kind": "pods"}));
    assert_eq!(
        msg(r),
        "pods is forbidden: User \"bob\" cannot list resource \"pods\" in API group \"\" in the namespace \"default\""
    );
    let r = as_token(&mut s, "bob-token", "GET", "/api/v1/namespaces/default/pods/web/log", None);
    assert_eq!(
        msg(r),
        "pods \"web\" is forbidden: User \"bob\" cannot get resource \"pods/log\" in API group \"\" in the namespace \"default\""
    );
    let r = as_token(&mut s, "bob-token", "GET", "/apis/apps/v1/deployments", None);
    assert_eq!(
        msg(r),
        "deployments.apps is forbidden: User \"bob\" cannot list resource \"deployments\" in API group \"apps\" at the cluster scope"
    );
    let r = as_token(&mut s, "", "GET", "/api", None);
    assert_eq!(msg(r), "forbidden: User \"system:anonymous\" cannot get path \"/api\"");
    let r = as_token(&mut s, "no-such-token", "GET", "/api/v1/pods", None);
    assert_eq!(r.status, 401);
    assert_eq!(r.json_body()["reason"], "Unauthorized");
    assert_eq!(r.json_body()["message"], "Unauthorized");
}

#[test]
fn impersonation_needs_the_impersonate_verb() {
    let mut s = server();
    let with = |s: &mut Server, token: &str, user: &str, path: &str| {
        s.handle(
            Request::new("GET", path)
                .with_header("Authorization", &format!("Bearer {token}"))
                .with_header("Impersonate-User", user),
        )
    };
    // The administrator acts as alice: alice's rights, not the administrator's.
    assert_eq!(with(&mut s, "admin-token", "alice", "/api/v1/namespaces/dev/pods").status, 200);
    assert_eq!(with(&mut s, "admin-token", "alice", "/api/v1/nodes").status, 403);
    // bob may not impersonate.
    let r = with(&mut s, "bob-token", "alice", "/api/v1/namespaces/dev/pods");
    assert_eq!(r.status, 403);
    assert_eq!(
        r.json_body()["message"],
        "users \"alice\" is forbidden: User \"bob\" cannot impersonate resource \"users\" in API group \"\" at the cluster scope"
    );
}

#[test]
fn without_rbac_everyone_may_and_without_tokens_everyone_is_the_administrator() {
    let mut s = Server::new(ServerConfig::default());
    assert_eq!(as_token(&mut s, "", "GET", "/api/v1/nodes", None).status, 200);
    assert_eq!(as_token(&mut s, "anything", "GET", "/api/v1/nodes", None).status, 200);
    // The bootstrap roles come with RBAC.
    let mut s = server();
    let roles =
        as_token(&mut s, "admin-token", "GET", "/apis/rbac.authorization.k8s.io/v1/clusterroles", None).json_body();
    let names: Vec<&str> =
        roles["items"].as_array().unwrap().iter().filter_map(|r| r["metadata"]["name"].as_str()).collect();
    for n in ["cluster-admin", "admin", "edit", "view", "system:discovery", "system:basic-user"] {
        assert!(names.contains(&n), "{n} missing from {names:?}");
    }
}

fn review(s: &mut Server, token: &str, path: &str, body: Value, headers: &[(&str, &str)]) -> Response {
    let mut req = Request::new("POST", path)
        .with_header("Authorization", &format!("Bearer {token}"))
        .with_header("Content-Type", "application/json")
        .with_body(serde_json::to_vec(&body).unwrap());
    for (k, v) in headers {
        req = req.with_header(k, v);
    }
    s.handle(req)
}

const SSAR: &str = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews";
const SAR: &str = "/apis/authorization.k8s.io/v1/subjectaccessreviews";

fn ssar(verb: &str, resource: &str, namespace: &str) -> Value {
    json!({"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview",
        "spec": {"resourceAttributes": {"verb": verb, "resource": resource, "namespace": namespace}}})
}

#[test]
fn self_subject_access_reviews_answer_from_the_authorizer() {
    let mut s = server();
    // (token, verb, resource, namespace, allowed, reason)
    let cases = [
        (
            "alice-token",
            "create",
            "pods",
            "dev",
            true,
            "RBAC: allowed by RoleBinding \"alice-edit/dev\" of ClusterRole \"edit\" to User \"alice\"",
        ),
        (
            "alice-token",
            "list",
            "pods",
            "default",
            true,
            "RBAC: allowed by ClusterRoleBinding \"dev-view\" of ClusterRole \"view\" to Group \"dev\"",
        ),
        ("alice-token", "delete", "pods", "default", false, ""),
        ("bob-token", "list", "pods", "default", false, ""),
        ("admin-token", "delete", "nodes", "", true, ""),
    ];
    for (token, verb, resource, ns, allowed, reason) in cases {
        let r = review(&mut s, token, SSAR, ssar(verb, resource, ns), &[]);
        assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
        let body = r.json_body();
        assert_eq!(body["status"]["allowed"], allowed, "{token} {verb} {resource} in {ns:?}");
        assert_eq!(body["status"]["reason"].as_str().unwrap_or(""), reason, "{token} {verb} {resource}");
        // The request comes back, with its answer.
        assert_eq!(body["spec"]["resourceAttributes"]["verb"], verb);
        assert_eq!(body["kind"], "SelfSubjectAccessReview");
    }
    // A non-resource URL: discovery is everyone's.
    let body = json!({"kind": "SelfSubjectAccessReview", "apiVersion": "authorization.k8s.io/v1",
        "spec": {"nonResourceAttributes": {"path": "/apis", "verb": "get"}}});
    assert_eq!(review(&mut s, "bob-token", SSAR, body, &[]).json_body()["status"]["allowed"], true);
    // Impersonated, the review is about whom the request acts as.
    let r = review(&mut s, "admin-token", SSAR, ssar("list", "pods", "default"), &[("Impersonate-User", "bob")]);
    assert_eq!(r.json_body()["status"]["allowed"], false);
}

#[test]
fn subject_access_reviews_ask_about_someone_else_and_are_validated_as_upstream() {
    let mut s = server();
    let sar =
        |spec: Value| json!({"kind": "SubjectAccessReview", "apiVersion": "authorization.k8s.io/v1", "spec": spec});
    // About alice, by her groups only: dev may view.
    let r = review(
        &mut s,
        "admin-token",
        SAR,
        sar(json!({"groups": ["dev"], "resourceAttributes": {"verb": "get", "resource": "pods", "namespace": "x"}})),
        &[],
    );
    assert_eq!(r.status, 201);
    assert_eq!(r.json_body()["status"]["allowed"], true);
    // bob may not ask about others (only system:basic-user's self reviews).
    let r = review(&mut s, "bob-token", SAR, sar(json!({"user": "alice", "resourceAttributes": {"verb": "get"}})), &[]);
    assert_eq!(r.status, 403);
    // (message, causes' fields) for invalid specs
    let cases = [
        (
            sar(json!({"user": "alice"})),
            ".authorization.k8s.io \"\" is invalid: spec.resourceAttributes: Invalid value: \"null\": exactly one of nonResourceAttributes or resourceAttributes must be specified",
        ),
        (
            sar(json!({"resourceAttributes": {"verb": "get"}})),
            ".authorization.k8s.io \"\" is invalid: spec.user: Invalid value: \"\": at least one of user or group must be specified",
        ),
        (
            sar(json!({"user": "a", "resourceAttributes": {"verb": "get"}, "nonResourceAttributes": {"path": "/", "verb": "get"}})),
            ".authorization.k8s.io \"\" is invalid: spec.nonResourceAttributes: Invalid value: authorization.NonResourceAttributes{Path:\"/\", Verb:\"get\"}: cannot be specified in combination with resourceAttributes",
        ),
    ];
    for (body, message) in cases {
        let r = review(&mut s, "admin-token", SAR, body, &[]);
        assert_eq!(r.status, 422);
        assert_eq!(r.json_body()["reason"], "Invalid");
        assert_eq!(r.json_body()["message"], message);
        assert_eq!(r.json_body()["details"]["group"], "authorization.k8s.io");
    }
    let r = review(
        &mut s,
        "admin-token",
        SAR,
        json!({"kind": "SubjectAccessReview", "apiVersion": "authorization.k8s.io/v1", "metadata": {"name": "x"},
            "spec": {"user": "a", "resourceAttributes": {"verb": "get"}}}),
        &[],
    );
    assert_eq!(r.status, 422);
    assert_eq!(r.json_body()["details"]["causes"][0]["field"], "metadata");
    assert!(r.json_body()["message"].as_str().unwrap().ends_with(": must be empty"));
}

#[test]
fn local_subject_access_reviews_stay_in_their_namespace() {
    let mut s = server();
    let path = "/apis/authorization.k8s.io/v1/namespaces/dev/localsubjectaccessreviews";
    let lsar = |ns: &str| {
        json!({"kind": "LocalSubjectAccessReview", "apiVersion": "authorization.k8s.io/v1",
            "spec": {"user": "alice", "resourceAttributes": {"verb": "create", "resource": "deployments", "group": "apps", "namespace": ns}}})
    };
    let r = review(&mut s, "admin-token", path, lsar("dev"), &[]);
    assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
    assert_eq!(r.json_body()["status"]["allowed"], true);
    assert_eq!(r.json_body()["metadata"]["namespace"], "dev");
    let r = review(&mut s, "admin-token", path, lsar("default"), &[]);
    assert_eq!(r.status, 422);
    assert_eq!(
        r.json_body()["message"],
        ".authorization.k8s.io \"\" is invalid: spec.resourceAttributes.namespace: Invalid value: \"default\": must match metadata.namespace"
    );
    let mut other = lsar("dev");
    other["metadata"] = json!({"namespace": "default"});
    let r = review(&mut s, "admin-token", path, other, &[]);
    assert_eq!(r.status, 400);
    assert_eq!(
        r.json_body()["message"],
        "the namespace of the provided object does not match the namespace sent on the request"
    );
}

#[test]
fn rules_reviews_list_what_rbac_grants_in_a_namespace() {
    let mut s = server();
    let path = "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews";
    let ssrr = |ns: &str| json!({"kind": "SelfSubjectRulesReview", "apiVersion": "authorization.k8s.io/v1", "spec": {"namespace": ns}});
    let r = review(&mut s, "bob-token", path, ssrr("default"), &[]);
    assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
    let status = &r.json_body()["status"];
    let rules = status["resourceRules"].as_array().unwrap();
    // system:basic-user's, then bob's Role in default.
    assert!(rules.iter().any(|r| r["resources"] == json!(["selfsubjectaccessreviews", "selfsubjectrulesreviews"])));
    assert!(rules.iter().any(|r| r["resources"] == json!(["configmaps"]) && r["resourceNames"] == json!(["settings"])));
    assert!(status["nonResourceRules"]
        .as_array()
        .unwrap()
        .iter()
        .any(|r| r["nonResourceURLs"].as_array().unwrap().contains(&json!("/healthz"))));
    assert_eq!(status["incomplete"], false);
    assert_eq!(r.json_body()["spec"], json!({}));
    // Elsewhere bob has only what every user has.
    let r = review(&mut s, "bob-token", path, ssrr("dev"), &[]);
    assert!(!r.json_body()["status"]["resourceRules"]
        .as_array()
        .unwrap()
        .iter()
        .any(|r| r["resources"] == json!(["configmaps"])));
    let r = review(&mut s, "bob-token", path, ssrr(""), &[]);
    assert_eq!((r.status, r.json_body()["message"].clone()), (400, json!("no namespace on request")));
    // A binding to a missing role: RBAC says so (in the refusal's reason too).
    let binding = json!({"metadata": {"name": "bob-ghost"}, "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "ghost"},
        "subjects": [{"kind": "User", "name": "bob", "apiGroup": "rbac.authorization.k8s.io"}]});
    let r = as_token(
        &mut s,
        "admin-token",
        "POST",
        "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
        Some(binding),
    );
    assert_eq!(r.status, 201);
    let r = review(&mut s, "bob-token", path, ssrr("default"), &[]);
    assert_eq!(r.json_body()["status"]["evaluationError"], "clusterrole.rbac.authorization.k8s.io \"ghost\" not found");
    let r = review(&mut s, "bob-token", SSAR, ssar("list", "pods", "default"), &[]);
    assert_eq!(r.json_body()["status"]["reason"], "RBAC: clusterrole.rbac.authorization.k8s.io \"ghost\" not found");
}

#[test]
fn self_subject_reviews_say_who_the_request_acts_as() {
    let mut s = server();
    let path = "/apis/authentication.k8s.io/v1/selfsubjectreviews";
    let body = || json!({"kind": "SelfSubjectReview", "apiVersion": "authentication.k8s.io/v1"});
    let r = review(&mut s, "alice-token", path, body(), &[]);
    assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
    assert_eq!(
        r.json_body()["status"]["userInfo"],
        json!({"username": "alice", "uid": "2", "groups": ["dev", "system:authenticated"]})
    );
    assert!(r.json_body()["metadata"]["creationTimestamp"].is_string());
    // Impersonating a service account: its groups come with it (when no
    // group is asked for), and extras and uid as asked.
    let headers = [
        ("Impersonate-User", "system:serviceaccount:dev:builder"),
        ("Impersonate-Uid", "u-1"),
        ("Impersonate-Extra-Scopes", "read"),
    ];
    let r = review(&mut s, "admin-token", path, body(), &headers);
    assert_eq!(
        r.json_body()["status"]["userInfo"],
        json!({"username": "system:serviceaccount:dev:builder", "uid": "u-1",
            "groups": ["system:serviceaccounts", "system:serviceaccounts:dev", "system:authenticated"],
            "extra": {"scopes": ["read"]}})
    );
    let r = review(
        &mut s,
        "admin-token",
        path,
        body(),
        &[("Impersonate-User", "system:serviceaccount:dev:builder"), ("Impersonate-Group", "g")],
    );
    assert_eq!(r.json_body()["status"]["userInfo"]["groups"], json!(["g", "system:authenticated"]));
    // alice may impersonate nobody: the uid check is in authentication.k8s.io.
    let grant = json!({"metadata": {"name": "alice-imp"}, "rules": [{"apiGroups": [""], "resources": ["users"], "verbs": ["impersonate"]}]});
    as_token(&mut s, "admin-token", "POST", "/apis/rbac.authorization.k8s.io/v1/clusterroles", Some(grant));
    let bind = json!({"metadata": {"name": "alice-imp"}, "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "alice-imp"},
        "subjects": [{"kind": "User", "name": "alice", "apiGroup": "rbac.authorization.k8s.io"}]});
    as_token(&mut s, "admin-token", "POST", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", Some(bind));
    let r = review(&mut s, "alice-token", path, body(), &[("Impersonate-User", "bob")]);
    assert_eq!(r.json_body()["status"]["userInfo"]["username"], "bob");
    let r = review(&mut s, "alice-token", path, body(), &[("Impersonate-User", "bob"), ("Impersonate-Uid", "7")]);
    assert_eq!(r.status, 403);
    assert_eq!(
        r.json_body()["message"],
        "uids.authentication.k8s.io \"7\" is forbidden: User \"alice\" cannot impersonate resource \"uids\" in API group \"authentication.k8s.io\" at the cluster scope"
    );
}

#[test]
fn impersonating_a_group_without_a_user_is_a_plain_500() {
    let mut s = server();
    let r = s.handle(
        Request::new("GET", "/api/v1/pods?limit=1")
            .with_header("Authorization", "Bearer admin-token")
            .with_header("Impersonate-Group", "devs"),
    );
    assert_eq!(r.status, 500);
    assert_eq!(r.header("Content-Type"), Some("text/plain; charset=utf-8"));
    assert_eq!(
        String::from_utf8_lossy(&r.body),
        "Internal Server Error: \"/api/v1/pods?limit=1\": requested [{Group  devs    }] without impersonating a user\n"
    );
}

#[test]
fn header_names_that_are_not_ascii_are_not_impersonation() {
    let mut s = server();
    let r = s.handle(
        Request::new("GET", "/api/v1/namespaces/default/pods")
            .with_header("Authorization", "Bearer admin-token")
            .with_header("Impersonate-Exträ-x", "y")
            .with_header("Impersonate-Extra€x", "y"),
    );
    assert_eq!(r.status, 200);
}

/// The health endpoints are everyone's (`system:public-info-viewer`);
/// their single checks and `/metrics` only `system:monitoring`'s.
#[test]
fn health_checks_one_by_one_are_for_monitoring() {
    let mut s = server();
    assert_eq!(as_token(&mut s, "bob-token", "GET", "/readyz", None).status, 200);
    assert_eq!(as_token(&mut s, "", "GET", "/livez?verbose", None).status, 200);
    let r = as_token(&mut s, "bob-token", "GET", "/readyz/ping", None);
    assert_eq!(r.status, 403);
    assert_eq!(r.json_body()["message"], "forbidden: User \"bob\" cannot get path \"/readyz/ping\"");
    assert_eq!(as_token(&mut s, "bob-token", "GET", "/metrics", None).status, 403);
    let monitor = |s: &mut Server, path: &str| {
        let req = Request::new("GET", path)
            .with_header("Authorization", "Bearer admin-token")
            .with_header("Impersonate-User", "prometheus")
            .with_header("Impersonate-Group", "system:monitoring");
        s.handle(req).status
    };
    assert_eq!(monitor(&mut s, "/readyz/ping"), 200);
    assert_eq!(monitor(&mut s, "/healthz/poststarthook/rbac/bootstrap-roles"), 200);
    assert_eq!(monitor(&mut s, "/metrics"), 200);
}

/// Roles and bindings are defaulted and validated as upstream's RBAC
/// strategy does, and a binding's role cannot change.
#[test]
fn roles_and_bindings_are_validated_as_upstream_and_keep_their_role() {
    let mut s = server();
    let rbac = "/apis/rbac.authorization.k8s.io/v1";
    let post = |s: &mut Server, path: &str, obj: Value| {
        as_token(s, "admin-token", "POST", &format!("{rbac}/{path}"), Some(obj))
    };
    let causes = |r: &Response| -> Vec<String> {
        let v: Value = serde_json::from_slice(&r.body).unwrap();
        v["details"]["causes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| format!("{}: {}", c["field"].as_str().unwrap(), c["message"].as_str().unwrap()))
            .collect()
    };

    // Groups left out are RBAC's for the role and for users and groups.
    let r = post(
        &mut s,
        "namespaces/default/rolebindings",
        json!({"metadata": {"name": "plain"},
        "roleRef": {"kind": "Role", "name": "cm-reader"},
        "subjects": [{"kind": "User", "name": "u"}, {"kind": "ServiceAccount", "name": "s"}, {"kind": "Group", "name": "g"}]}),
    );
    assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
    let made: Value = serde_json::from_slice(&r.body).unwrap();
    assert_eq!(made["roleRef"]["apiGroup"], "rbac.authorization.k8s.io");
    assert_eq!(made["subjects"][0]["apiGroup"], "rbac.authorization.k8s.io");
    assert!(made["subjects"][1].get("apiGroup").is_none(), "{made}");
    assert_eq!(made["subjects"][2]["apiGroup"], "rbac.authorization.k8s.io");

    let r = post(
        &mut s,
        "clusterrolebindings",
        json!({"metadata": {"name": "bad"},
        "roleRef": {"kind": "Role", "name": "a/b", "apiGroup": "x"},
        "subjects": [{"kind": "User", "name": "", "apiGroup": "y"}, {"kind": "ServiceAccount", "name": "S_s", "apiGroup": "v"},
            {"kind": "Robot", "name": "g"}, {"kind": "Group", "name": ""}]}),
    );
    assert_eq!(r.status, 422);
    assert_eq!(
        causes(&r),
        [
            "roleRef.apiGroup: Unsupported value: \"x\": supported values: \"rbac.authorization.k8s.io\"",
            "roleRef.kind: Unsupported value: \"Role\": supported values: \"ClusterRole\"",
            "roleRef.name: Invalid value: \"a/b\": may not contain '/'",
            "subjects[0].name: Required value",
            "subjects[0].name: Invalid value: \"\": user name cannot be empty",
            "subjects[0].apiGroup: Unsupported value: \"y\": supported values: \"rbac.authorization.k8s.io\"",
            "subjects[1].name: Invalid value: \"S_s\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
            "subjects[1].apiGroup: Unsupported value: \"v\": supported values: \"\"",
            "subjects[1].namespace: Required value",
            "subjects[2].kind: Unsupported value: \"Robot\": supported values: \"ServiceAccount\", \"User\", \"Group\"",
            "subjects[3].name: Required value",
            "subjects[3].name: Invalid value: \"\": group name cannot be empty",
        ]
    );

    let r = post(
        &mut s,
        "namespaces/default/roles",
        json!({"metadata": {"name": "bad"}, "rules": [
        {"verbs": ["get"], "nonResourceURLs": ["/x"], "resources": ["pods"]},
        {"verbs": []},
        {"verbs": ["get"], "apiGroups": [""], "resources": ["pods", "services"], "resourceNames": ["a"], "nonResourceURLs": ["/y"]}]}),
    );
    assert_eq!(
        causes(&r),
        [
            "rules[0].nonResourceURLs: Invalid value: []string{\"/x\"}: namespaced rules cannot apply to non-resource URLs",
            "rules[0].nonResourceURLs: Invalid value: []string{\"/x\"}: rules cannot apply to both regular resources and non-resource URLs",
            "rules[1].verbs: Required value: verbs must contain at least one value",
            "rules[1].apiGroups: Required value: resource rules must supply at least one api group",
            "rules[1].resources: Required value: resource rules must supply at least one resource",
            "rules[2].nonResourceURLs: Invalid value: []string{\"/y\"}: namespaced rules cannot apply to non-resource URLs",
            "rules[2].nonResourceURLs: Invalid value: []string{\"/y\"}: rules cannot apply to both regular resources and non-resource URLs",
        ]
    );
    // Resource names may go with several resources (kubectl's old
    // client-side refusal is not the server's).
    let r = post(
        &mut s,
        "namespaces/default/roles",
        json!({"metadata": {"name": "named"}, "rules": [
            {"verbs": ["get"], "apiGroups": [""], "resources": ["pods", "services"], "resourceNames": ["a"]}]}),
    );
    assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
    // An aggregation rule needs a selector, each a valid label selector;
    // one that is not is also reported as failing to convert (its value
    // the nil selector, `null`), as upstream's ValidateClusterRole does.
    let r = post(&mut s, "clusterroles", json!({"metadata": {"name": "agg"}, "aggregationRule": {}}));
    assert_eq!(
        causes(&r),
        ["aggregationRule.clusterRoleSelectors: Required value: at least one clusterRoleSelector required if aggregationRule is non-nil"]
    );
    let r = post(
        &mut s,
        "clusterroles",
        json!({"metadata": {"name": "agg"}, "aggregationRule": {"clusterRoleSelectors": [
            {"matchLabels": {"team": "web"}},
            {"matchLabels": {"bad key": "x"}, "matchExpressions": [
                {"key": "tier", "operator": "In"},
                {"key": "zone", "operator": "Exists", "values": ["a"]},
                {"key": "k", "operator": "Near", "values": ["-x-"]}]}]}}),
    );
    assert_eq!(
        causes(&r),
        [
            "aggregationRule.clusterRoleSelectors[1].matchLabels: Invalid value: \"bad key\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
            "aggregationRule.clusterRoleSelectors[1].matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
            "aggregationRule.clusterRoleSelectors[1].matchExpressions[1].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
            "aggregationRule.clusterRoleSelectors[1].matchExpressions[2].operator: Invalid value: \"Near\": not a valid selector operator",
            "aggregationRule.clusterRoleSelectors[1].matchExpressions[2].values[0]: Invalid value: \"-x-\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
            "aggregationRule.clusterRoleSelectors[1]: Invalid value: \"null\": invalid label selector.",
        ]
    );
    let r = post(
        &mut s,
        "clusterroles",
        json!({"metadata": {"name": "agg"}, "aggregationRule": {"clusterRoleSelectors": [
            {"matchExpressions": [{"key": "example.com/aggregate-to-agg", "operator": "Exists"}]}]}}),
    );
    assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
    // A ClusterRole may have a rule for non-resource URLs.
    let r = post(
        &mut s,
        "clusterroles",
        json!({"metadata": {"name": "health"}, "rules": [{"verbs": ["get"], "nonResourceURLs": ["/healthz"]}]}),
    );
    assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));

    // The role a binding names stays; its subjects may change.
    let path = format!("{rbac}/namespaces/default/rolebindings/plain");
    let patch = |s: &mut Server, body: Value| {
        let req = Request::new("PATCH", &path)
            .with_header("Authorization", "Bearer admin-token")
            .with_header("Content-Type", "application/merge-patch+json")
            .with_body(serde_json::to_vec(&body).unwrap());
        s.handle(req)
    };
    let r = patch(&mut s, json!({"roleRef": {"name": "other"}}));
    assert_eq!(r.status, 422);
    let v: Value = serde_json::from_slice(&r.body).unwrap();
    assert_eq!(
        v["message"],
        "RoleBinding.rbac.authorization.k8s.io \"plain\" is invalid: roleRef: Invalid value: rbac.RoleRef{APIGroup:\"rbac.authorization.k8s.io\", Kind:\"Role\", Name:\"other\"}: cannot change roleRef"
    );
    assert_eq!(patch(&mut s, json!({"subjects": [{"kind": "User", "name": "v"}]})).status, 200);
}

#[test]
fn aggregated_cluster_roles_grant_what_the_aggregation_controller_wrote() {
    let mut s =
        Server::new(ServerConfig { tokens: Some(parse_token_file(TOKENS).unwrap()), rbac: true, ..Default::default() });
    let rbac = "/apis/rbac.authorization.k8s.io/v1";
    let admin = |s: &mut Server, method: &str, path: &str, body: Option<Value>| {
        let r = as_token(s, "admin-token", method, &format!("{rbac}/{path}"), body);
        assert!(r.status < 300, "{method} {path}: {}", String::from_utf8_lossy(&r.body));
        serde_json::from_slice::<Value>(&r.body).unwrap()
    };
    admin(
        &mut s,
        "POST",
        "clusterrolebindings",
        Some(
            json!({"metadata": {"name": "bob-view"}, "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"},
            "subjects": [{"kind": "User", "name": "bob", "apiGroup": "rbac.authorization.k8s.io"}]}),
        ),
    );
    let pods = |s: &mut Server| as_token(s, "bob-token", "GET", "/api/v1/namespaces/default/pods", None).status;
    // Without the controller `view` holds no rules: upstream's authorizer
    // reads the stored rules only.
    assert!(admin(&mut s, "GET", "clusterroles/view", None)["rules"].as_array().is_none_or(Vec::is_empty));
    assert_eq!(pods(&mut s), 403);

    let mut c = kubesim::controllers::Controllers::new(&["clusterrole-aggregation"]).unwrap();
    c.settle(&mut s);
    let view = admin(&mut s, "GET", "clusterroles/view", None);
    assert!(view["rules"]
        .as_array()
        .unwrap()
        .iter()
        .any(|r| r["resources"].as_array().unwrap().contains(&json!("pods"))));
    let managers: Vec<(&str, &str)> = view["metadata"]["managedFields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["manager"].as_str().unwrap(), m["operation"].as_str().unwrap()))
        .collect();
    assert!(managers.contains(&("clusterrole-aggregation-controller", "Apply")), "{managers:?}");
    assert_eq!(view["metadata"]["managedFields"][1]["fieldsV1"], json!({"f:rules": {}}));
    assert_eq!(pods(&mut s), 200);
    // `edit` holds `view`'s rules too (it is labelled to aggregate into
    // `edit`), and `admin` `edit`'s: aggregation follows through passes.
    let edit = admin(&mut s, "GET", "clusterroles/edit", None);
    for rule in view["rules"].as_array().unwrap() {
        assert!(edit["rules"].as_array().unwrap().contains(rule), "{rule}");
    }

    // A role labelled to aggregate into `view` adds to it, once; removed,
    // it takes its rule away.
    let widgets = json!({"verbs": ["get"], "apiGroups": ["example.com"], "resources": ["widgets"]});
    admin(
        &mut s,
        "POST",
        "clusterroles",
        Some(
            json!({"metadata": {"name": "widget-viewer", "labels": {"rbac.authorization.k8s.io/aggregate-to-view": "true"}},
            "rules": [widgets, widgets]}),
        ),
    );
    let has_widgets = |s: &mut Server| {
        let v = admin(s, "GET", "clusterroles/view", None);
        v["rules"].as_array().unwrap().iter().filter(|r| **r == widgets).count()
    };
    assert_eq!(has_widgets(&mut s), 0);
    c.settle(&mut s);
    assert_eq!(has_widgets(&mut s), 1);
    let allowed = |s: &mut Server| {
        let review = json!({"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview",
            "spec": {"resourceAttributes": {"verb": "get", "group": "example.com", "resource": "widgets", "namespace": "default"}}});
        let r =
            as_token(s, "bob-token", "POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", Some(review));
        serde_json::from_slice::<Value>(&r.body).unwrap()["status"]["allowed"] == true
    };
    assert!(allowed(&mut s));
    admin(&mut s, "DELETE", "clusterroles/widget-viewer", None);
    c.settle(&mut s);
    assert_eq!(has_widgets(&mut s), 0);
    assert!(!allowed(&mut s));
}

#[test]
fn roles_and_bindings_grant_only_what_their_writer_holds() {
    let mut s = server();
    let rbac = "/apis/rbac.authorization.k8s.io/v1";
    let write = |s: &mut Server, token: &str, method: &str, path: &str, body: Value| {
        let r = if method == "PATCH" {
            let req = Request::new("PATCH", &format!("{rbac}/{path}"))
                .with_header("Authorization", &format!("Bearer {token}"))
                .with_header("Content-Type", "application/merge-patch+json")
                .with_body(serde_json::to_vec(&body).unwrap());
            s.handle(req)
        } else {
            as_token(s, token, method, &format!("{rbac}/{path}"), Some(body))
        };
        let v: Value = serde_json::from_slice(&r.body).unwrap_or(Value::Null);
        (r.status, v["message"].as_str().unwrap_or("").to_string())
    };
    let role = |name: &str, rules: Value| json!({"metadata": {"name": name}, "rules": rules});
    let binding = |name: &str, kind: &str, role: &str, user: &str| {
        json!({"metadata": {"name": name}, "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": kind, "name": role},
            "subjects": [{"kind": "User", "name": user, "apiGroup": "rbac.authorization.k8s.io"}]})
    };
    // alice may manage roles and bindings in `dev` (and edits there).
    let manage = json!([{"verbs": ["get", "list", "create", "update", "patch"], "apiGroups": ["rbac.authorization.k8s.io"], "resources": ["roles", "rolebindings"]}]);
    assert_eq!(write(&mut s, "admin-token", "POST", "namespaces/dev/roles", role("rbac-manager", manage)).0, 201);
    assert_eq!(
        write(
            &mut s,
            "admin-token",
            "POST",
            "namespaces/dev/rolebindings",
            binding("alice-rbac", "Role", "rbac-manager", "alice")
        )
        .0,
        201
    );

    // What alice holds she may grant.
    let reader = json!([{"verbs": ["get", "list"], "apiGroups": [""], "resources": ["pods"]}]);
    assert_eq!(write(&mut s, "alice-token", "POST", "namespaces/dev/roles", role("reader", reader)).0, 201);
    assert_eq!(
        write(
            &mut s,
            "alice-token",
            "POST",
            "namespaces/dev/rolebindings",
            binding("bob-reads", "Role", "reader", "bob")
        )
        .0,
        201
    );
    // What she does not, she may not: the rules she lacks, as upstream
    // words them.
    let more = json!([{"verbs": ["get", "delete"], "apiGroups": ["rbac.authorization.k8s.io"], "resources": ["roles"]},
        {"verbs": ["get"], "apiGroups": [""], "resources": ["pods"], "resourceNames": ["web"]}]);
    let refused = write(&mut s, "alice-token", "POST", "namespaces/dev/roles", role("deleter", more.clone()));
    assert_eq!(
        refused,
        (403, "roles.rbac.authorization.k8s.io \"deleter\" is forbidden: user \"alice\" (groups=[\"dev\" \"system:authenticated\"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[\"rbac.authorization.k8s.io\"], Resources:[\"roles\"], Verbs:[\"delete\"]}".to_string())
    );
    // Nor by a patch of a role she made.
    let patch = json!({"rules": [{"verbs": ["get", "list"], "apiGroups": [""], "resources": ["pods", "nodes"]}]});
    let (code, message) = write(&mut s, "alice-token", "PATCH", "namespaces/dev/roles/reader", patch);
    assert_eq!(code, 403, "{message}");
    assert!(
        message.ends_with("not currently held:\n{APIGroups:[\"\"], Resources:[\"nodes\"], Verbs:[\"get\" \"list\"]}"),
        "{message}"
    );
    // Binding a role she does not hold all of: refused; a missing one: 404.
    let (code, message) = write(
        &mut s,
        "alice-token",
        "POST",
        "namespaces/dev/rolebindings",
        binding("alice-admin", "ClusterRole", "admin", "alice"),
    );
    assert_eq!(code, 403);
    assert!(
        message.starts_with("rolebindings.rbac.authorization.k8s.io \"alice-admin\" is forbidden: user \"alice\""),
        "{message}"
    );
    assert_eq!(
        write(&mut s, "alice-token", "POST", "namespaces/dev/rolebindings", binding("ghost", "Role", "nosuch", "bob")),
        (404, "roles.rbac.authorization.k8s.io \"nosuch\" not found".to_string())
    );
    // Nothing was stored by the checks' dry runs.
    let r = as_token(&mut s, "admin-token", "GET", &format!("{rbac}/namespaces/dev/roles/deleter"), None);
    assert_eq!(r.status, 404);

    // `bind` on that ClusterRole, and `escalate` on roles, lift the checks.
    let lift = json!([{"verbs": ["bind"], "apiGroups": ["rbac.authorization.k8s.io"], "resources": ["clusterroles"], "resourceNames": ["admin"]},
        {"verbs": ["escalate"], "apiGroups": ["rbac.authorization.k8s.io"], "resources": ["roles"]}]);
    assert_eq!(write(&mut s, "admin-token", "POST", "namespaces/dev/roles", role("lift", lift)).0, 201);
    assert_eq!(
        write(
            &mut s,
            "admin-token",
            "POST",
            "namespaces/dev/rolebindings",
            binding("alice-lift", "Role", "lift", "alice")
        )
        .0,
        201
    );
    assert_eq!(
        write(
            &mut s,
            "alice-token",
            "POST",
            "namespaces/dev/rolebindings",
            binding("alice-admin", "ClusterRole", "admin", "alice")
        )
        .0,
        201
    );
    assert_eq!(write(&mut s, "alice-token", "POST", "namespaces/dev/roles", role("deleter", more)).0, 201);
    // The administrator (system:masters) is never checked.
    let everything = json!([{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]}]);
    assert_eq!(write(&mut s, "admin-token", "POST", "clusterroles", role("everything", everything)).0, 201);
}
