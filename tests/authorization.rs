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
