//! A controller's connection to the core: requests through `Server::serve`
//! with the controller's User-Agent (from which the server derives its
//! field manager, as upstream does), watch streams, and discovery.

use serde_json::Value;

use super::informer::ParseCache;
use crate::api::WatchEvent;
use crate::server::{Request, Response, Served, Server, WatchStream};

/// Who a client is on the wire.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Identity {
    pub user_agent: String,
    /// Who it authenticates as (the server trusts an in-process client's
    /// identity, as kube-apiserver trusts its components' credentials).
    pub user: std::sync::Arc<crate::auth::UserInfo>,
}

impl Identity {
    /// A kube-controller-manager controller running as its service account
    /// (client-go's default User-Agent plus the account, as the
    /// controller manager's client builder sets it). The field manager the
    /// server derives from it is `kube-controller-manager`.
    pub fn controller_manager(service_account: &str) -> Identity {
        Identity {
            user_agent: format!(
                "kube-controller-manager/v1.33.0 (linux/amd64) kubernetes/kubesim/system:serviceaccount:kube-system:{service_account}"
            ),
            user: crate::auth::UserInfo::new(
                &format!("system:serviceaccount:kube-system:{service_account}"),
                &["system:serviceaccounts", "system:serviceaccounts:kube-system", "system:authenticated"],
            )
            .into(),
        }
    }
}

impl Identity {
    /// Another component (`kube-scheduler`, `kubelet`): client-go's
    /// default User-Agent for its binary, from which the server derives
    /// the field manager (the binary's name).
    pub fn component(binary: &str) -> Identity {
        let user = match binary {
            "kube-scheduler" => crate::auth::UserInfo::new("system:kube-scheduler", &["system:authenticated"]),
            "kubelet" => crate::auth::UserInfo::new("system:node", &["system:nodes", "system:authenticated"]),
            other => crate::auth::UserInfo::new(other, &["system:authenticated"]),
        };
        Identity { user_agent: format!("{binary}/v1.33.0 (linux/amd64) kubernetes/kubesim"), user: user.into() }
    }
}

/// A resource discovery lists.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApiResource {
    pub group: String,
    pub version: String,
    pub resource: String,
    pub kind: String,
    pub namespaced: bool,
    pub verbs: Vec<String>,
}

impl ApiResource {
    /// The path of its collection (in a namespace, or across all).
    pub fn collection(&self, namespace: Option<&str>) -> String {
        let base = if self.group.is_empty() {
            format!("/api/{}", self.version)
        } else {
            format!("/apis/{}/{}", self.group, self.version)
        };
        match namespace {
            Some(ns) if self.namespaced => format!("{base}/namespaces/{ns}/{}", self.resource),
            _ => format!("{base}/{}", self.resource),
        }
    }

    /// The path of one object.
    pub fn item(&self, namespace: &str, name: &str) -> String {
        format!("{}/{name}", self.collection(Some(namespace)))
    }

    pub fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.clone()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }

    pub fn serves(&self, verb: &str) -> bool {
        self.verbs.iter().any(|v| v == verb)
    }
}

/// One request a controller sent and what came back (kept when a door
/// wants to show them, as the page's request log does).
#[derive(Clone, Debug)]
pub struct Exchange {
    pub controller: &'static str,
    pub request: Request,
    /// Shared with the controller that sent it (a list can be large).
    pub response: std::sync::Arc<Response>,
    /// When it was served (a clock jump's stops differ).
    pub at: crate::clock::SimTime,
}

const JSON: &str = "application/json";

/// A client for one reconcile: the server, the identity, and a count of
/// the writes it made.
pub struct Client<'s> {
    server: &'s mut Server,
    identity: &'s Identity,
    pub writes: usize,
    /// Where requests are recorded, when they are.
    log: Option<(&'static str, &'s mut Vec<Exchange>)>,
    /// Watch events' objects parsed once for every informer.
    cache: Option<&'s mut ParseCache>,
}

impl<'s> Client<'s> {
    pub fn new(server: &'s mut Server, identity: &'s Identity) -> Client<'s> {
        Client { server, identity, writes: 0, log: None, cache: None }
    }

    /// Shares parsed watch objects through `cache`.
    pub fn with_cache(mut self, cache: &'s mut ParseCache) -> Client<'s> {
        self.cache = Some(cache);
        self
    }

    /// A watch event's object, parsed (once per settle, when shared).
    pub fn parsed(&mut self, e: &WatchEvent) -> Option<std::sync::Arc<Value>> {
        match self.cache.as_mut() {
            Some(c) => c.object(e),
            None => ParseCache::default().object(e),
        }
    }

    /// A client that records every request in `log`.
    pub fn recording(
        server: &'s mut Server,
        identity: &'s Identity,
        controller: &'static str,
        log: &'s mut Vec<Exchange>,
    ) -> Client<'s> {
        Client { server, identity, writes: 0, log: Some((controller, log)), cache: None }
    }

    /// Sends a request; a body is sent with its content type.
    pub fn send(&mut self, method: &str, target: &str, body: Option<(&str, Vec<u8>)>) -> std::sync::Arc<Response> {
        self.send_accepting(method, target, JSON, body)
    }

    /// Sends a request that asks for `accept`.
    fn send_accepting(
        &mut self,
        method: &str,
        target: &str,
        accept: &str,
        body: Option<(&str, Vec<u8>)>,
    ) -> std::sync::Arc<Response> {
        let mut req = self.request(method, target, accept);
        if let Some((content_type, bytes)) = body {
            req = req.with_header("Content-Type", content_type).with_body(bytes);
        }
        if method != "GET" {
            self.writes += 1;
        }
        match &mut self.log {
            None => std::sync::Arc::new(self.server.handle(req)),
            Some((controller, log)) => {
                let response = std::sync::Arc::new(self.server.handle(req.clone()));
                let at = self.server.now();
                log.push(Exchange { controller, request: req, response: response.clone(), at });
                response
            }
        }
    }

    /// The simulated time, as timestamps are written.
    pub fn now_rfc3339(&self) -> String {
        self.server.now().rfc3339()
    }

    /// The simulated time in milliseconds since the epoch.
    pub fn now_millis(&self) -> i64 {
        self.server.now().0
    }

    pub fn get(&mut self, target: &str) -> std::sync::Arc<Response> {
        self.send("GET", target, None)
    }

    /// A GET that asks for another representation (`Accept`).
    pub fn get_as(&mut self, target: &str, accept: &str) -> std::sync::Arc<Response> {
        self.send_accepting("GET", target, accept, None)
    }

    fn request(&self, method: &str, target: &str, accept: &str) -> Request {
        Request::new(method, target)
            .as_user(self.identity.user.clone())
            .with_header("User-Agent", &self.identity.user_agent)
            .with_header("Accept", accept)
    }

    /// A write with a JSON body.
    pub fn write(&mut self, method: &str, target: &str, content_type: &str, body: &Value) -> std::sync::Arc<Response> {
        self.send(method, target, Some((content_type, crate::api::to_json(body))))
    }

    /// Opens a watch (the target carries its query).
    pub fn watch(&mut self, target: &str) -> Result<WatchStream, Response> {
        self.watch_as(target, JSON)
    }

    /// Opens a watch whose events come in another representation.
    pub fn watch_as(&mut self, target: &str, accept: &str) -> Result<WatchStream, Response> {
        match self.server.serve(self.request("GET", target, accept)) {
            Served::Watch(_, stream) => Ok(stream),
            Served::Response(r) | Served::Log(r, _) => Err(r),
        }
    }

    /// What a watch has delivered so far.
    pub fn poll(&mut self, stream: &mut WatchStream) -> Vec<WatchEvent> {
        self.server.poll_watch(stream, usize::MAX)
    }

    /// Every resource discovery lists (not subresources), preferred
    /// versions of each group.
    pub fn discover(&mut self) -> Vec<ApiResource> {
        let mut versions = vec![(String::new(), "v1".to_string())];
        let groups = self.get("/apis").json_body();
        for g in groups["groups"].as_array().into_iter().flatten() {
            let name = g["name"].as_str().unwrap_or("").to_string();
            if let Some(v) = g["preferredVersion"]["version"].as_str() {
                versions.push((name, v.to_string()));
            }
        }
        let mut out = Vec::new();
        for (group, version) in versions {
            let path = if group.is_empty() { "/api/v1".to_string() } else { format!("/apis/{group}/{version}") };
            let list = self.get(&path).json_body();
            for r in list["resources"].as_array().into_iter().flatten() {
                let resource = r["name"].as_str().unwrap_or("");
                if resource.is_empty() || resource.contains('/') {
                    continue;
                }
                out.push(ApiResource {
                    group: group.clone(),
                    version: version.clone(),
                    resource: resource.to_string(),
                    kind: r["kind"].as_str().unwrap_or("").to_string(),
                    namespaced: r["namespaced"].as_bool().unwrap_or(false),
                    verbs: r["verbs"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(Value::as_str)
                        .map(str::to_string)
                        .collect(),
                });
            }
        }
        out
    }
}
