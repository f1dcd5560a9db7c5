//! Service account tokens, as kube-apiserver issues and reads them. The
//! `serviceaccounts/NAME/token` subresource answers an
//! authentication.k8s.io/v1 TokenRequest with a JWT (what `kubectl create
//! token` asks for); a bearer token that is one of them then authenticates
//! as its service account (`system:serviceaccount:NS:NAME`, in the groups
//! `system:serviceaccounts` and `system:serviceaccounts:NS`) while the
//! account and any object the token is bound to still exist with the
//! uids it names, the token has not expired, and its audiences include
//! the API server's.
//!
//! Upstream signs with RS256 under `--service-account-key-file`. Here the
//! signature is HMAC-SHA-256 (`"alg":"HS256"`) under a key drawn from the
//! simulator's seed, so the same seed reads the same tokens (a reloaded
//! page, a restarted native door) and no key file is needed; the claims
//! are upstream's, in its order.

use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use base64::Engine;
use hmac::{Hmac, Mac};
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};

use super::Server;
use crate::api::{FieldError, Status};
use crate::auth::UserInfo;
use crate::registry::decode::{self, RequestBody};

/// `--service-account-issuer`, as kubeadm and kind set it.
pub const ISSUER: &str = "https://kubernetes.default.svc.cluster.local";
/// `--api-audiences`: the issuer, when not set.
pub(super) const API_AUDIENCES: &[&str] = &[ISSUER];
/// A TokenRequest's `expirationSeconds` when it gives none (an hour).
const DEFAULT_EXPIRATION: i64 = 3600;
/// How long after a bound object's deletion a token still reads (go-jose's
/// default leeway).
const LEEWAY_MS: i64 = 60_000;

const ALGORITHM: &str = "HS256";

fn signing_key(seed: u64) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(b"kubesim service account token signing key");
    h.update(seed.to_be_bytes());
    h.finalize().into()
}

/// The `kid` a token's header names: a digest of the key (upstream's is
/// one of the public key).
fn key_id(key: &[u8; 32]) -> String {
    B64.encode(Sha256::digest(key))
}

fn signature(key: &[u8; 32], signed: &str) -> Option<Vec<u8>> {
    let mut mac = Hmac::<Sha256>::new_from_slice(key).ok()?;
    mac.update(signed.as_bytes());
    Some(mac.finalize().into_bytes().to_vec())
}

/// An object by resource (core/v1) and name, if it is stored.
fn core_object(s: &Server, resource: &str, namespace: &str, name: &str) -> Option<Value> {
    let rt = s.registry.resources().lookup("", "v1", resource).cloned()?;
    s.stored(&rt, namespace, name).ok()
}

fn meta<'a>(o: &'a Value, field: &str) -> &'a str {
    o["metadata"][field].as_str().unwrap_or("")
}

/// `{"name": …, "uid": …}` of an object, as the token's claims name it.
fn reference(o: &Value) -> Value {
    json!({"name": meta(o, "name"), "uid": meta(o, "uid")})
}

/// Go's `GroupVersionKind.String()` of a reference's apiVersion and kind.
fn go_gvk(api_version: &str, kind: &str) -> String {
    let (group, version) = api_version.split_once('/').unwrap_or(("", api_version));
    format!("{group}/{version}, Kind={kind}")
}

impl Server {
    /// POST `serviceaccounts/NAME/token`: the TokenRequest back with its
    /// status (`token`, `expirationTimestamp`), as upstream's `TokenREST`
    /// answers it: the body's name and namespace, if given, must be the
    /// URL's; the account must exist; `expirationSeconds` (an hour when
    /// unset) at least ten minutes and at most 2³² seconds; `audiences`
    /// the API server's when unset; a `boundObjectRef` must name a Pod
    /// running as the account, a Secret or a Node that exists (and has the
    /// uid given, if one is).
    #[inline(never)]
    pub(super) fn create_token(&mut self, namespace: &str, name: &str, body: RequestBody<'_>) -> Result<Value, Status> {
        const DEFINITION: &str = "io.k8s.api.authentication.v1.TokenRequest";
        let cannot = |why: &str| {
            Status::bad_request(format!("TokenRequest in version \"v1\" cannot be handled as a TokenRequest: {why}"))
        };
        let mut req = decode::sub_object(body)?;
        if !req.is_object() {
            return Err(cannot("json: cannot unmarshal into Go value of type authentication.TokenRequest"));
        }
        if let Some(e) = crate::schema::schemas().first_type_error(DEFINITION, &req) {
            return Err(cannot(&e));
        }
        let kind = req["kind"].as_str().unwrap_or("TokenRequest");
        let api_version = req["apiVersion"].as_str().unwrap_or("authentication.k8s.io/v1");
        if kind != "TokenRequest" || api_version != "authentication.k8s.io/v1" {
            return Err(Status::bad_request(format!(
                "the API version in the data ({api_version}) does not match the expected API version (authentication.k8s.io/v1)"
            )));
        }
        let body_namespace = meta(&req, "namespace").to_string();
        if !body_namespace.is_empty() && body_namespace != namespace {
            return Err(Status::bad_request(
                "the namespace of the provided object does not match the namespace sent on the request",
            ));
        }
        let body_name = meta(&req, "name").to_string();
        if !body_name.is_empty() && body_name != name {
            let e =
                FieldError::invalid("metadata.name", &body_name, "must match the service account name if specified");
            return Err(Status::invalid("authentication.k8s.io", "TokenRequest", name, &[e]));
        }
        let sa = match core_object(self, "serviceaccounts", namespace, name) {
            Some(sa) => sa,
            None => return Err(Status::not_found("", "serviceaccounts", name)),
        };
        let spec = &mut req["spec"];
        if !spec.is_object() {
            *spec = json!({});
        }
        if spec["audiences"].as_array().is_none_or(Vec::is_empty) {
            spec["audiences"] = json!(API_AUDIENCES);
        }
        let expiration = spec["expirationSeconds"].as_i64().unwrap_or(DEFAULT_EXPIRATION);
        spec["expirationSeconds"] = json!(expiration);
        let mut errs = Vec::new();
        if expiration < 600 {
            errs.push(FieldError::invalid_value(
                "spec.expirationSeconds",
                &json!(expiration),
                "may not specify a duration less than 10 minutes",
            ));
        }
        if expiration > 1 << 32 {
            errs.push(FieldError::invalid_value(
                "spec.expirationSeconds",
                &json!(expiration),
                "may not specify a duration larger than 2^32 seconds",
            ));
        }
        if !errs.is_empty() {
            return Err(Status::invalid("authentication.k8s.io", "TokenRequest", "", &errs));
        }
        let audiences = spec["audiences"].clone();
        let bound = spec.get("boundObjectRef").filter(|r| r.is_object()).cloned();
        if spec.get("boundObjectRef").is_none() {
            spec["boundObjectRef"] = Value::Null;
        }

        let mut private = Map::new();
        private.insert("namespace".into(), json!(namespace));
        if let Some(r) = &bound {
            let (api_version, kind, ref_name) = (
                r["apiVersion"].as_str().unwrap_or(""),
                r["kind"].as_str().unwrap_or(""),
                r["name"].as_str().unwrap_or(""),
            );
            let group = api_version.split_once('/').map_or("", |(g, _)| g);
            let found = |s: &Server, resource: &str, ns: &str| {
                core_object(s, resource, ns, ref_name).ok_or_else(|| Status::not_found("", resource, ref_name))
            };
            let object = match (group, kind) {
                ("", "Pod") => {
                    let pod = found(self, "pods", namespace)?;
                    if pod["spec"]["serviceAccountName"].as_str().unwrap_or("") != name {
                        return Err(Status::bad_request(format!(
                            "cannot bind token for serviceaccount {name:?} to pod running with different serviceaccount name."
                        )));
                    }
                    if let Some(node) = pod["spec"]["nodeName"].as_str().filter(|n| !n.is_empty()) {
                        let claim = match core_object(self, "nodes", "", node) {
                            Some(n) => reference(&n),
                            None => json!({"name": node}),
                        };
                        private.insert("node".into(), claim);
                    }
                    private.insert("pod".into(), reference(&pod));
                    pod
                }
                ("", "Secret") => {
                    let secret = found(self, "secrets", namespace)?;
                    private.insert("secret".into(), reference(&secret));
                    secret
                }
                ("", "Node") => {
                    let node = found(self, "nodes", "")?;
                    private.insert("node".into(), reference(&node));
                    node
                }
                _ => {
                    return Err(Status::bad_request(format!(
                        "cannot bind token to object of type {}",
                        go_gvk(api_version, kind)
                    )))
                }
            };
            let uid = r["uid"].as_str().unwrap_or("");
            if !uid.is_empty() && uid != meta(&object, "uid") {
                return Err(Status::conflict(group, kind, ref_name, &format!(
                    "the UID in the bound object reference ({uid}) does not match the UID in record. The object might have been deleted and then recreated"
                )));
            }
        }
        private.insert("serviceaccount".into(), reference(&sa));

        let now = self.now();
        let issued = now.0.div_euclid(1000);
        let jti = self.audit.uuid();
        let claims = json!({
            "aud": audiences,
            "exp": issued + expiration,
            "iat": issued,
            "iss": ISSUER,
            "jti": jti,
            "kubernetes.io": Value::Object(private),
            "nbf": issued,
            "sub": format!("system:serviceaccount:{namespace}:{name}"),
        });
        let key = signing_key(self.config.seed);
        let header = json!({"alg": ALGORITHM, "kid": key_id(&key)});
        let signed = format!("{}.{}", B64.encode(header.to_string()), B64.encode(claims.to_string()));
        let Some(sig) = signature(&key, &signed) else {
            return Err(Status::internal_error("failed to generate token"));
        };
        let token = format!("{signed}.{}", B64.encode(sig));

        let m = req["metadata"].as_object_mut();
        let mut metadata = m.map(std::mem::take).unwrap_or_default();
        metadata.insert("namespace".into(), json!(namespace));
        metadata.entry("creationTimestamp").or_insert(Value::Null);
        let mut out = Map::new();
        out.insert("kind".into(), json!("TokenRequest"));
        out.insert("apiVersion".into(), json!("authentication.k8s.io/v1"));
        out.insert("metadata".into(), Value::Object(metadata));
        out.insert("spec".into(), req["spec"].take());
        out.insert(
            "status".into(),
            json!({"token": token, "expirationTimestamp": now.plus_millis(expiration * 1000).rfc3339()}),
        );
        Ok(Value::Object(out))
    }

    /// The user a bearer token names when it is one of this server's
    /// service account tokens (None: a token of another kind), or the 401
    /// when it is one that no longer reads: altered, expired, not yet
    /// valid, for other audiences, or its account or bound object gone.
    #[inline(never)]
    pub(super) fn service_account_user(&self, token: &str) -> Option<Result<UserInfo, Status>> {
        let read = self.service_account_token(token, API_AUDIENCES)?;
        Some(read.map(|(user, _)| user).map_err(|_| super::authz::unauthorized()))
    }

    /// What a service account token of this server's reads as for the
    /// audiences `wanted` (None: a token of another kind): its user and
    /// the audiences it has among them, or why it does not read, in
    /// upstream's words (a TokenReview's `status.error` shows them).
    pub(super) fn service_account_token(
        &self,
        token: &str,
        wanted: &[&str],
    ) -> Option<Result<(UserInfo, Vec<String>), String>> {
        let mut parts = token.split('.');
        let (Some(header), Some(payload), Some(sig), None) = (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return None;
        };
        let claims: Value = B64.decode(payload).ok().and_then(|b| serde_json::from_slice(&b).ok())?;
        if claims["iss"] != ISSUER {
            return None;
        }
        Some(self.read_token(header, payload, sig, &claims, wanted))
    }

    /// Upstream's checks in its order: the signature, the audiences, the
    /// times, then each object the token names.
    fn read_token(
        &self,
        header: &str,
        payload: &str,
        sig: &str,
        claims: &Value,
        wanted: &[&str],
    ) -> Result<(UserInfo, Vec<String>), String> {
        const CRYPTO: &str = "go-jose/go-jose: error in cryptographic primitive";
        let key = signing_key(self.config.seed);
        let head: Value = B64.decode(header).ok().and_then(|b| serde_json::from_slice(&b).ok()).ok_or(CRYPTO)?;
        if head["kid"].as_str().is_some_and(|k| k != key_id(&key)) {
            return Err("invalid signature, no keys found".into());
        }
        let mut mac = Hmac::<Sha256>::new_from_slice(&key).map_err(|_| CRYPTO)?;
        mac.update(format!("{header}.{payload}").as_bytes());
        let signature = B64.decode(sig).map_err(|_| CRYPTO)?;
        if head["alg"] != ALGORITHM || mac.verify_slice(&signature).is_err() {
            return Err(CRYPTO.into());
        }

        let token_audiences: Vec<&str> =
            claims["aud"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
        let audiences: Vec<String> =
            wanted.iter().filter(|a| token_audiences.contains(a)).map(|a| a.to_string()).collect();
        if audiences.is_empty() {
            return Err(format!(
                "token audiences {} is invalid for the target audiences {}",
                go_quoted(&token_audiences),
                go_quoted(wanted)
            ));
        }
        let now_ms = self.now().0;
        let now = now_ms.div_euclid(1000);
        // go-jose's checks, with its minute of leeway either side.
        if claims["exp"].as_i64().is_none_or(|exp| now > exp + 60) {
            return Err("service account token has expired".into());
        }
        if claims["nbf"].as_i64().is_some_and(|nbf| now < nbf - 60) {
            return Err("service account token is not valid yet".into());
        }
        let private = &claims["kubernetes.io"];
        let namespace = private["namespace"].as_str().ok_or("namespace claim is missing")?;
        let gone = |o: &Value| {
            o["metadata"]["deletionTimestamp"]
                .as_str()
                .and_then(crate::clock::parse_rfc3339)
                .is_some_and(|t| t < now_ms - LEEWAY_MS)
        };
        let sa = &private["serviceaccount"];
        let name = sa["name"].as_str().unwrap_or("");
        let account = core_object(self, "serviceaccounts", namespace, name)
            .ok_or_else(|| format!("serviceaccounts {name:?} not found"))?;
        if gone(&account) {
            return Err(format!("service account {namespace}/{name} has been deleted"));
        }
        let claimed = sa["uid"].as_str().unwrap_or("");
        if meta(&account, "uid") != claimed {
            return Err(format!("service account UID ({}) does not match claim ({claimed})", meta(&account, "uid")));
        }
        // Each object the token is bound to must still be there, the same
        // one.
        let bound = |resource: &str, what: &str, ns: &str, claim: &Value| -> Result<(), String> {
            const INVALIDATED: &str = "service account token has been invalidated";
            let o = core_object(self, resource, ns, claim["name"].as_str().unwrap_or("")).ok_or(INVALIDATED)?;
            if gone(&o) {
                return Err(INVALIDATED.into());
            }
            let claimed = claim["uid"].as_str().unwrap_or("");
            match meta(&o, "uid") == claimed {
                true => Ok(()),
                false => Err(format!(
                    "{what} UID ({}) does not match service account {what} ref claim ({claimed})",
                    meta(&o, "uid")
                )),
            }
        };
        if private.get("secret").is_some() {
            bound("secrets", "secret", namespace, &private["secret"])?;
        }
        let mut extra = std::collections::BTreeMap::new();
        if private.get("pod").is_some() {
            bound("pods", "pod", namespace, &private["pod"])?;
            for (k, field) in [("pod-name", "name"), ("pod-uid", "uid")] {
                let v = private["pod"][field].as_str().unwrap_or("");
                extra.insert(format!("authentication.kubernetes.io/{k}"), vec![v.into()]);
            }
        } else if private.get("node").is_some() {
            // A token bound to a node (not a pod on one) needs the node.
            bound("nodes", "node", "", &private["node"])?;
        }
        if let Some(node) = private.get("node") {
            for (k, field) in [("node-name", "name"), ("node-uid", "uid")] {
                if let Some(v) = node[field].as_str() {
                    extra.insert(format!("authentication.kubernetes.io/{k}"), vec![v.into()]);
                }
            }
        }
        if let Some(jti) = claims["jti"].as_str() {
            extra.insert("authentication.kubernetes.io/credential-id".into(), vec![format!("JTI={jti}")]);
        }
        let user = UserInfo {
            name: format!("system:serviceaccount:{namespace}:{name}"),
            uid: meta(&account, "uid").into(),
            groups: vec![
                "system:serviceaccounts".into(),
                format!("system:serviceaccounts:{namespace}"),
                "system:authenticated".into(),
            ],
            extra,
        };
        Ok((user, audiences))
    }
}

/// Go's `%q` of a `[]string`: `["a" "b"]`.
fn go_quoted(list: &[&str]) -> String {
    let items: Vec<String> = list.iter().map(|a| serde_json::to_string(a).unwrap_or_default()).collect();
    format!("[{}]", items.join(" "))
}
