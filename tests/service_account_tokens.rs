//! Service accounts and their tokens: the `default` account every
//! namespace gets, the `serviceaccounts/NAME/token` subresource (a
//! TokenRequest answered with a signed JWT, as `kubectl create token`
//! asks), and a bearer token of that kind read back as the account —
//! until it expires, is altered, names other audiences, or what it is
//! bound to is gone.

use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use base64::Engine;
use kubesim::server::{Request, Response, Server, ServerConfig};
use serde_json::{json, Value};

fn call(s: &mut Server, token: Option<&str>, method: &str, path: &str, body: Option<Value>) -> Response {
    let mut req = Request::new(method, path);
    if let Some(t) = token {
        req = req.with_header("Authorization", &format!("Bearer {t}"));
    }
    if let Some(b) = body {
        req = req.with_header("Content-Type", "application/json").with_body(serde_json::to_vec(&b).unwrap());
    }
    s.handle(req)
}

fn text(r: &Response) -> String {
    String::from_utf8_lossy(&r.body).into_owned()
}

fn message(r: &Response) -> String {
    r.json_body()["message"].as_str().unwrap_or("").to_string()
}

/// Makes the account `name` in `default`.
fn make_account(s: &mut Server, name: &str) {
    let body = json!({"metadata": {"name": name}});
    let r = call(s, None, "POST", "/api/v1/namespaces/default/serviceaccounts", Some(body));
    assert_eq!(r.status, 201, "{}", text(&r));
}

/// A server deciding by RBAC, with the account `robot` in `default` and
/// the controllers settled (so `default` has its `default` account).
fn cluster() -> (Server, kubesim::controllers::Controllers) {
    let mut s = Server::new(ServerConfig { rbac: true, ..Default::default() });
    // (The aggregation controller gives `view` its rules.)
    let mut c = kubesim::controllers::Controllers::new(&["serviceaccount", "clusterrole-aggregation"]).unwrap();
    c.settle(&mut s);
    make_account(&mut s, "robot");
    (s, c)
}

fn request_token(s: &mut Server, account: &str, spec: Value) -> Response {
    let body = json!({"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": spec});
    call(s, None, "POST", &format!("/api/v1/namespaces/default/serviceaccounts/{account}/token"), Some(body))
}

fn token(s: &mut Server, account: &str, spec: Value) -> String {
    let r = request_token(s, account, spec);
    assert_eq!(r.status, 201, "{}", text(&r));
    r.json_body()["status"]["token"].as_str().unwrap().to_string()
}

fn part(token: &str, n: usize) -> Value {
    serde_json::from_slice(&B64.decode(token.split('.').nth(n).unwrap()).unwrap()).unwrap()
}

/// Who a token makes its bearer (a SelfSubjectReview), or the status.
fn whoami(s: &mut Server, token: &str) -> Result<Value, u16> {
    let review = json!({"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"});
    let r = call(s, Some(token), "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", Some(review));
    if r.status == 201 {
        Ok(r.json_body()["status"]["userInfo"].clone())
    } else {
        Err(r.status)
    }
}

#[test]
fn a_token_request_is_answered_with_a_signed_token_with_upstreams_claims() {
    let (mut s, _c) = cluster();
    let sa_uid = call(&mut s, None, "GET", "/api/v1/namespaces/default/serviceaccounts/robot", None).json_body()
        ["metadata"]["uid"]
        .clone();
    let r = request_token(&mut s, "robot", json!({}));
    assert_eq!(r.status, 201, "{}", text(&r));
    let answer = r.json_body();
    assert_eq!(answer["kind"], "TokenRequest");
    assert_eq!(answer["metadata"], json!({"namespace": "default", "creationTimestamp": null}));
    assert_eq!(
        answer["spec"],
        json!({"audiences": ["https://kubernetes.default.svc.cluster.local"], "expirationSeconds": 3600, "boundObjectRef": null})
    );
    let now = s.now();
    assert_eq!(answer["status"]["expirationTimestamp"], json!(now.plus_millis(3_600_000).rfc3339()));
    let t = answer["status"]["token"].as_str().unwrap();
    assert_eq!(part(t, 0)["alg"], "HS256");
    let claims = part(t, 1);
    let keys: Vec<&String> = claims.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["aud", "exp", "iat", "iss", "jti", "kubernetes.io", "nbf", "sub"], "go-jose writes them sorted");
    assert_eq!(claims["sub"], "system:serviceaccount:default:robot");
    assert_eq!(claims["iss"], "https://kubernetes.default.svc.cluster.local");
    assert_eq!(claims["exp"].as_i64().unwrap() - claims["iat"].as_i64().unwrap(), 3600);
    assert_eq!(
        claims["kubernetes.io"],
        json!({"namespace": "default", "serviceaccount": {"name": "robot", "uid": sa_uid}})
    );

    // The bearer is the account, with upstream's groups and credential id.
    let user = whoami(&mut s, t).unwrap();
    assert_eq!(user["username"], "system:serviceaccount:default:robot");
    assert_eq!(user["uid"], sa_uid);
    assert_eq!(
        user["groups"],
        json!(["system:serviceaccounts", "system:serviceaccounts:default", "system:authenticated"])
    );
    assert_eq!(
        user["extra"]["authentication.kubernetes.io/credential-id"],
        json!([format!("JTI={}", claims["jti"].as_str().unwrap())])
    );

    // RBAC decides what it may do.
    let pods = "/api/v1/namespaces/default/pods";
    let r = call(&mut s, Some(t), "GET", pods, None);
    assert_eq!(r.status, 403);
    assert_eq!(
        message(&r),
        "pods is forbidden: User \"system:serviceaccount:default:robot\" cannot list resource \"pods\" in API group \"\" in the namespace \"default\""
    );
    let binding = json!({"metadata": {"name": "robot-view"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"},
        "subjects": [{"kind": "ServiceAccount", "name": "robot", "namespace": "default"}]});
    let r =
        call(&mut s, None, "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings", Some(binding));
    assert_eq!(r.status, 201, "{}", text(&r));
    assert_eq!(call(&mut s, Some(t), "GET", pods, None).status, 200);
    // Asking for a token is itself a verb RBAC decides.
    let r = call(&mut s, Some(t), "POST", "/api/v1/namespaces/default/serviceaccounts/robot/token", Some(json!({})));
    assert_eq!(r.status, 403);
    assert_eq!(
        message(&r),
        "serviceaccounts \"robot\" is forbidden: User \"system:serviceaccount:default:robot\" cannot create resource \"serviceaccounts/token\" in API group \"\" in the namespace \"default\""
    );
}

#[test]
fn a_token_stops_reading_when_it_expires_is_altered_or_its_account_is_gone() {
    let (mut s, _c) = cluster();
    let t = token(&mut s, "robot", json!({"expirationSeconds": 600}));
    assert!(whoami(&mut s, &t).is_ok());

    // Altered: another account's name in the claims, the signature kept.
    let mut claims = part(&t, 1);
    claims["sub"] = json!("system:serviceaccount:kube-system:admin");
    let parts: Vec<&str> = t.split('.').collect();
    let forged = format!("{}.{}.{}", parts[0], B64.encode(claims.to_string()), parts[2]);
    assert_eq!(whoami(&mut s, &forged), Err(401));
    let r = call(&mut s, Some(&forged), "GET", "/api/v1/namespaces/default/pods", None);
    assert_eq!((r.status, message(&r)), (401, "Unauthorized".to_string()));

    // Other audiences than the API server's.
    let vault = token(&mut s, "robot", json!({"audiences": ["vault"]}));
    assert_eq!(part(&vault, 1)["aud"], json!(["vault"]));
    assert_eq!(whoami(&mut s, &vault), Err(401));

    // Expired (past go-jose's minute of leeway).
    s.advance(600_000 + 59_000);
    assert!(whoami(&mut s, &t).is_ok(), "within the leeway");
    s.advance(2_000);
    assert_eq!(whoami(&mut s, &t), Err(401));

    // The account deleted, then made again: a new uid, the token is dead.
    let t = token(&mut s, "robot", json!({}));
    let account = "/api/v1/namespaces/default/serviceaccounts/robot";
    assert_eq!(call(&mut s, None, "DELETE", account, None).status, 200);
    assert_eq!(whoami(&mut s, &t), Err(401));
    make_account(&mut s, "robot");
    assert_eq!(whoami(&mut s, &t), Err(401));

    // A token of another server (another seed's key) is refused.
    let mut other = Server::new(ServerConfig { seed: 2, ..Default::default() });
    make_account(&mut other, "robot");
    let theirs = token(&mut other, "robot", json!({}));
    assert_eq!(whoami(&mut s, &theirs), Err(401));
    assert!(whoami(&mut other, &theirs).is_ok());
}

#[test]
fn a_token_bound_to_a_pod_lives_as_long_as_the_pod() {
    let (mut s, _c) = cluster();
    let pod = json!({"metadata": {"name": "worker"}, "spec": {"serviceAccountName": "robot", "nodeName": "n1",
        "containers": [{"name": "c", "image": "busybox"}]}});
    let r = call(&mut s, None, "POST", "/api/v1/namespaces/default/pods", Some(pod));
    assert_eq!(r.status, 201, "{}", text(&r));
    let pod_uid = r.json_body()["metadata"]["uid"].as_str().unwrap().to_string();
    let bound = json!({"boundObjectRef": {"apiVersion": "v1", "kind": "Pod", "name": "worker"}});
    let t = token(&mut s, "robot", bound.clone());
    let claims = part(&t, 1);
    assert_eq!(claims["kubernetes.io"]["pod"], json!({"name": "worker", "uid": pod_uid}));
    assert_eq!(claims["kubernetes.io"]["node"], json!({"name": "n1"}), "a node that does not exist: its name only");
    let user = whoami(&mut s, &t).unwrap();
    assert_eq!(user["extra"]["authentication.kubernetes.io/pod-name"], json!(["worker"]));
    assert_eq!(user["extra"]["authentication.kubernetes.io/pod-uid"], json!([pod_uid]));
    assert_eq!(user["extra"]["authentication.kubernetes.io/node-name"], json!(["n1"]));

    // Refusals, in upstream's words.
    let r = request_token(&mut s, "default", bound.clone());
    assert_eq!(
        (r.status, message(&r)),
        (
            400,
            "cannot bind token for serviceaccount \"default\" to pod running with different serviceaccount name."
                .into()
        )
    );
    let r = request_token(
        &mut s,
        "robot",
        json!({"boundObjectRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "d"}}),
    );
    assert_eq!((r.status, message(&r)), (400, "cannot bind token to object of type apps/v1, Kind=Deployment".into()));
    let r = request_token(
        &mut s,
        "robot",
        json!({"boundObjectRef": {"apiVersion": "v1", "kind": "Pod", "name": "worker", "uid": "0000"}}),
    );
    assert_eq!(r.status, 409);
    assert_eq!(
        message(&r),
        "Operation cannot be fulfilled on Pod \"worker\": the UID in the bound object reference (0000) does not match the UID in record. The object might have been deleted and then recreated"
    );
    let r = request_token(
        &mut s,
        "robot",
        json!({"boundObjectRef": {"apiVersion": "v1", "kind": "Secret", "name": "nope"}}),
    );
    assert_eq!((r.status, message(&r)), (404, "secrets \"nope\" not found".into()));

    let r = call(&mut s, None, "DELETE", "/api/v1/namespaces/default/pods/worker?gracePeriodSeconds=0", None);
    assert_eq!(r.status, 200, "{}", text(&r));
    assert_eq!(whoami(&mut s, &t), Err(401));
}

#[test]
fn a_token_request_is_checked_as_upstream_checks_it() {
    let (mut s, _c) = cluster();
    let r = request_token(&mut s, "robot", json!({"expirationSeconds": 60}));
    assert_eq!(r.status, 422);
    assert_eq!(
        message(&r),
        "TokenRequest.authentication.k8s.io \"\" is invalid: spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes"
    );
    let r = request_token(&mut s, "robot", json!({"expirationSeconds": 5_000_000_000i64}));
    assert!(message(&r).ends_with("may not specify a duration larger than 2^32 seconds"), "{}", message(&r));
    let r = request_token(&mut s, "nobody", json!({}));
    assert_eq!((r.status, message(&r)), (404, "serviceaccounts \"nobody\" not found".into()));
    let body = json!({"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "metadata": {"name": "other"}, "spec": {}});
    let r = call(&mut s, None, "POST", "/api/v1/namespaces/default/serviceaccounts/robot/token", Some(body));
    assert_eq!(r.status, 422);
    assert_eq!(
        message(&r),
        "TokenRequest.authentication.k8s.io \"robot\" is invalid: metadata.name: Invalid value: \"other\": must match the service account name if specified"
    );
    let r = call(&mut s, None, "GET", "/api/v1/namespaces/default/serviceaccounts/robot/token", None);
    assert_eq!(r.status, 405);

    // Discovery names the subresource as kube-apiserver does.
    let resources = call(&mut s, None, "GET", "/api/v1", None).json_body();
    let token =
        resources["resources"].as_array().unwrap().iter().find(|r| r["name"] == "serviceaccounts/token").cloned();
    assert_eq!(
        token,
        Some(json!({"name": "serviceaccounts/token", "singularName": "", "namespaced": true,
            "group": "authentication.k8s.io", "version": "v1", "kind": "TokenRequest", "verbs": ["create"]}))
    );
}

#[test]
fn every_namespace_gets_a_default_service_account_and_keeps_it() {
    let (mut s, mut c) = cluster();
    for ns in ["default", "kube-system", "kube-public", "kube-node-lease"] {
        let r = call(&mut s, None, "GET", &format!("/api/v1/namespaces/{ns}/serviceaccounts/default"), None);
        assert_eq!(r.status, 200, "{ns}");
    }
    let r = call(&mut s, None, "POST", "/api/v1/namespaces", Some(json!({"metadata": {"name": "team"}})));
    assert_eq!(r.status, 201);
    c.settle(&mut s);
    let path = "/api/v1/namespaces/team/serviceaccounts/default";
    let sa = call(&mut s, None, "GET", path, None).json_body();
    let keys: Vec<&String> = sa["metadata"].as_object().unwrap().keys().collect();
    assert_eq!(keys, ["name", "namespace", "uid", "resourceVersion", "creationTimestamp"], "{sa}");
    assert!(sa.get("secrets").is_none(), "nothing but its name (no token secrets since 1.24)");
    let uid = sa["metadata"]["uid"].clone();
    assert_eq!(call(&mut s, None, "DELETE", path, None).status, 200);
    c.settle(&mut s);
    let again = call(&mut s, None, "GET", path, None).json_body();
    assert!(again["metadata"]["uid"].is_string() && again["metadata"]["uid"] != uid, "made again");
}

fn review(s: &mut Server, spec: Value) -> Response {
    let body = json!({"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview",
        "metadata": {"name": "check", "namespace": "ignored"}, "spec": spec});
    call(s, None, "POST", "/apis/authentication.k8s.io/v1/tokenreviews", Some(body))
}

/// A TokenReview asks the server's authenticators about a token, as a
/// webhook or an aggregated server does: always 201, the spec echoed,
/// the user and audiences when it reads, upstream's union of errors when
/// it does not.
#[test]
fn a_token_review_says_who_a_token_is_and_why_not() {
    let (mut s, _c) = cluster();
    let pod = json!({"metadata": {"name": "worker"}, "spec": {"serviceAccountName": "robot", "nodeName": "n1",
        "containers": [{"name": "c", "image": "busybox"}]}});
    assert_eq!(call(&mut s, None, "POST", "/api/v1/namespaces/default/pods", Some(pod)).status, 201);
    let bound =
        json!({"boundObjectRef": {"apiVersion": "v1", "kind": "Pod", "name": "worker"}, "expirationSeconds": 600});
    let t = token(&mut s, "robot", bound);
    let sa_uid = call(&mut s, None, "GET", "/api/v1/namespaces/default/serviceaccounts/robot", None).json_body()
        ["metadata"]["uid"]
        .clone();

    let r = review(&mut s, json!({"token": t}));
    assert_eq!(r.status, 201, "{}", text(&r));
    let o = r.json_body();
    assert_eq!(o["kind"], "TokenReview");
    assert_eq!(o["metadata"], json!({"name": "check", "creationTimestamp": null}), "the namespace cleared");
    assert_eq!(o["spec"], json!({"token": t}));
    let status = &o["status"];
    assert_eq!(status["authenticated"], true);
    assert_eq!(status["audiences"], json!(["https://kubernetes.default.svc.cluster.local"]));
    assert_eq!(status["user"]["username"], "system:serviceaccount:default:robot");
    assert_eq!(status["user"]["uid"], sa_uid);
    assert_eq!(
        status["user"]["groups"],
        json!(["system:serviceaccounts", "system:serviceaccounts:default", "system:authenticated"])
    );
    let extra = status["user"]["extra"].as_object().unwrap();
    let keys: Vec<&str> = extra.keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "authentication.kubernetes.io/credential-id",
            "authentication.kubernetes.io/node-name",
            "authentication.kubernetes.io/pod-name",
            "authentication.kubernetes.io/pod-uid"
        ]
    );
    assert!(extra["authentication.kubernetes.io/credential-id"][0].as_str().unwrap().starts_with("JTI="));

    // Other audiences: refused in the JWT authenticator's words.
    let r = review(&mut s, json!({"token": t, "audiences": ["vault", "other"]}));
    assert_eq!(
        r.json_body()["status"],
        json!({"user": {}, "error": "[invalid bearer token, token audiences [\"https://kubernetes.default.svc.cluster.local\"] is invalid for the target audiences [\"vault\" \"other\"]]"})
    );
    let vault = token(&mut s, "robot", json!({"audiences": ["a", "vault"]}));
    let r = review(&mut s, json!({"token": vault, "audiences": ["vault", "b"]}));
    assert_eq!(r.json_body()["status"]["audiences"], json!(["vault"]), "the audiences it has among those asked");

    // Unknown, altered, required.
    let r = review(&mut s, json!({"token": "not-a-token"}));
    assert_eq!(r.status, 201);
    assert_eq!(r.json_body()["status"], json!({"user": {}, "error": "invalid bearer token"}));
    let parts: Vec<&str> = t.split('.').collect();
    let mut claims = part(&t, 1);
    claims["sub"] = json!("system:serviceaccount:kube-system:admin");
    let forged = format!("{}.{}.{}", parts[0], B64.encode(claims.to_string()), parts[2]);
    let r = review(&mut s, json!({"token": forged}));
    assert_eq!(
        r.json_body()["status"]["error"],
        "[invalid bearer token, go-jose/go-jose: error in cryptographic primitive]"
    );
    let r = review(&mut s, json!({}));
    assert_eq!((r.status, message(&r)), (400, "token is required for TokenReview in authentication".to_string()));
    assert_eq!(r.json_body()["reason"], "BadRequest");
    // A token led by a space is no token: the anonymous user.
    let r = review(&mut s, json!({"token": " x"}));
    assert_eq!(r.json_body()["status"]["user"]["username"], "system:anonymous");

    // What it is bound to, then its account, gone.
    let r = call(&mut s, None, "DELETE", "/api/v1/namespaces/default/pods/worker?gracePeriodSeconds=0", None);
    assert_eq!(r.status, 200);
    let r = review(&mut s, json!({"token": t}));
    assert_eq!(r.json_body()["status"]["error"], "[invalid bearer token, service account token has been invalidated]");
    let plain = token(&mut s, "robot", json!({}));
    assert_eq!(call(&mut s, None, "DELETE", "/api/v1/namespaces/default/serviceaccounts/robot", None).status, 200);
    let r = review(&mut s, json!({"token": plain}));
    assert_eq!(r.json_body()["status"]["error"], "[invalid bearer token, serviceaccounts \"robot\" not found]");
    make_account(&mut s, "robot");
    let r = review(&mut s, json!({"token": plain}));
    let error = r.json_body()["status"]["error"].as_str().unwrap().to_string();
    assert!(error.starts_with("[invalid bearer token, service account UID ("), "{error}");
    assert!(error.ends_with(&format!("does not match claim ({})]", sa_uid.as_str().unwrap())), "{error}");
    s.advance(3_600_000);
    let r = review(&mut s, json!({"token": vault}));
    assert_eq!(r.json_body()["status"]["error"], "[invalid bearer token, token audiences [\"a\" \"vault\"] is invalid for the target audiences [\"https://kubernetes.default.svc.cluster.local\"]]");
    let expired = token(&mut s, "robot", json!({"expirationSeconds": 600}));
    s.advance(700_000);
    let r = review(&mut s, json!({"token": expired}));
    assert_eq!(r.json_body()["status"]["error"], "[invalid bearer token, service account token has expired]");
}
