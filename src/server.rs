//! The core's front: `Server::serve(Request)` routes a request, parses its
//! options, negotiates the representation, calls the registry's store and
//! renders what it answered; every failure leaves as a `Status` through one
//! exit (`Response::status`). Watches come back as a `WatchStream` the
//! caller polls. The server holds the registry and changes it only through
//! the store's verbs, the clock and compaction; it never names storage.

pub mod apf;
mod apf_config;
pub mod authz;
mod bootstrap_rbac;
mod checkpoint;
pub mod components;
mod debug;
pub mod discovery;
pub mod dispatch;
mod escalation;
mod health;
mod list;
pub mod logs;
mod memo;
pub mod metrics;
pub mod negotiation;
mod node_proxy;
pub mod openapi;
pub mod openapi_v2_proto;
pub mod params;
pub mod represent;
mod reviews;
mod routing;
mod tokens;
pub mod watch;

use serde_json::{json, Value};

use crate::api::{media_type, Revision, Status};
pub use crate::api::{WatchEvent, WatchObject};
use crate::clock::{NameGenerator, SeededRng, SimTime};
use crate::registry::decode::{RequestBody, Warnings};
/// Upstream's port-name check (`IsValidPortName`), which kubectl's
/// generators make before they send anything.
pub use crate::registry::kinds::port_name_messages;
use crate::registry::options::{GetOptions, ListOptions, PatchType, Subresource, Verb};
use crate::registry::store::Body;
use crate::registry::{Registry, ResourceType, Side};
pub use checkpoint::ServerState;
use params::Query;
use routing::{Route, Target};
pub use watch::{guard_poll, WatchStream};

/// An HTTP request, as any door hands it to the core.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Request {
    pub method: String,
    pub path: String,
    /// The raw query string, without `?`.
    pub query: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// An in-process client's identity (a controller's), trusted as it
    /// is; None: the request authenticates by its headers (a door's
    /// requests never carry one).
    pub user: Option<std::sync::Arc<crate::auth::UserInfo>>,
}

impl Request {
    pub fn new(method: &str, target: &str) -> Request {
        let (path, query) = target.split_once('?').unwrap_or((target, ""));
        Request {
            method: method.into(),
            path: path.into(),
            query: query.into(),
            headers: Vec::new(),
            body: Vec::new(),
            user: None,
        }
    }

    pub fn with_body(mut self, body: impl Into<Vec<u8>>) -> Request {
        self.body = body.into();
        self
    }

    /// The request of an in-process client authenticated as `user`.
    pub fn as_user(mut self, user: impl Into<std::sync::Arc<crate::auth::UserInfo>>) -> Request {
        self.user = Some(user.into());
        self
    }

    pub fn with_header(mut self, name: &str, value: &str) -> Request {
        self.headers.push((name.into(), value.into()));
        self
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
}

/// A header's value: text of its own, or text shared by many answers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HeaderText {
    Own(String),
    Shared(std::sync::Arc<str>),
    /// A constant (a content type, `no-cache, private`): no copy at all.
    Static(&'static str),
}

impl std::ops::Deref for HeaderText {
    type Target = str;
    fn deref(&self) -> &str {
        match self {
            HeaderText::Own(s) => s,
            HeaderText::Shared(s) => s,
            HeaderText::Static(s) => s,
        }
    }
}

impl std::fmt::Display for HeaderText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self)
    }
}

impl From<String> for HeaderText {
    fn from(s: String) -> HeaderText {
        HeaderText::Own(s)
    }
}

impl From<&'static str> for HeaderText {
    fn from(s: &'static str) -> HeaderText {
        HeaderText::Static(s)
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Response {
    pub status: u16,
    /// (Names are mostly constants: kept without a copy.)
    pub headers: Vec<(std::borrow::Cow<'static, str>, HeaderText)>,
    pub body: Vec<u8>,
}

/// The headers an answer starts with: its content type, and room for the
/// four every answer gets as it leaves (`conclude`: Audit-Id,
/// Cache-Control and the two APF ones), so they are added without a
/// second allocation.
pub(crate) fn typed_headers(content_type: &'static str) -> Vec<(std::borrow::Cow<'static, str>, HeaderText)> {
    let mut headers = Vec::with_capacity(5);
    headers.push(("Content-Type".into(), content_type.into()));
    headers
}

impl Response {
    fn json(status: u16, body: Vec<u8>) -> Response {
        Response { status, headers: typed_headers("application/json"), body }
    }

    fn value(status: u16, v: &Value) -> Response {
        Response::json(status, crate::api::to_json(v))
    }

    /// The one exit for failures: a Status with its code as HTTP status.
    pub fn status(s: &Status) -> Response {
        let mut r = Response::json(s.code.clamp(100, 599) as u16, s.to_json());
        if let Some(d) = &s.details {
            if d.retry_after_seconds > 0 {
                r.headers.push(("Retry-After".into(), d.retry_after_seconds.to_string().into()));
            }
        }
        r
    }

    pub(crate) fn text(status: u16, text: &str) -> Response {
        Response { status, headers: typed_headers("text/plain; charset=utf-8"), body: text.as_bytes().to_vec() }
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| &**v)
    }

    pub fn json_body(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or(Value::Null)
    }
}

/// What serving a request produced.
// A Served is made and moved once per request, never kept in bulk: boxing
// the stream would only make every door unwrap it.
#[allow(clippy::large_enum_variant)]
pub enum Served {
    Response(Response),
    /// A watch: the response head, then events from the stream.
    Watch(Response, WatchStream),
    /// `pods/NAME/log?follow=true`: the head and the text so far, then
    /// what `poll_log` gives until the stream is done.
    Log(Response, logs::LogFollow),
}

#[derive(Clone, Debug)]
pub struct ServerConfig {
    pub seed: u64,
    pub start_time: SimTime,
    /// History older than this (simulated) is compacted. Default 5 minutes.
    pub history_window_ms: i64,
    /// A watcher more than this many revisions behind the head is closed.
    pub watch_buffer: u64,
    /// How `generateName` suffixes are drawn (upstream's by default).
    pub name_generator: NameGenerator,
    /// `--service-cluster-ip-range` and `--service-node-port-range`.
    pub services: crate::network::ServiceRanges,
    /// `--token-auth-file`'s users by token (None: a request without a
    /// known token is the administrator; Some: it is anonymous, and an
    /// unknown token is a 401).
    pub tokens: Option<std::collections::BTreeMap<String, crate::auth::UserInfo>>,
    /// `--authorization-mode=RBAC` (else every request is allowed).
    pub rbac: bool,
    /// `--enable-priority-and-fairness` (upstream's default: on): every
    /// request is classified, its answer naming the FlowSchema and level.
    pub apf: bool,
    /// `--max-requests-inflight` and `--max-mutating-requests-inflight`:
    /// together, the seats API Priority and Fairness shares out.
    pub max_requests_inflight: u32,
    pub max_mutating_requests_inflight: u32,
    /// `--show-hidden-metrics-for-version`, `--disabled-metrics`,
    /// `--allow-metric-labels`.
    pub metrics: metrics::MetricsOptions,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            seed: 1,
            start_time: SimTime(1_700_000_000_000),
            history_window_ms: 5 * 60_000,
            watch_buffer: 100_000,
            name_generator: NameGenerator::default(),
            services: Default::default(),
            tokens: None,
            rbac: false,
            apf: true,
            max_requests_inflight: 400,
            max_mutating_requests_inflight: 200,
            metrics: Default::default(),
        }
    }
}

/// Stored objects by group, then resource, and when they were counted.
type ObjectCounts = std::collections::HashMap<
    String,
    std::collections::HashMap<String, (i64, u64), foldhash::fast::FixedState>,
    foldhash::fast::FixedState,
>;

/// The simulated API server.
pub struct Server {
    registry: Registry,
    config: ServerConfig,
    /// Simulated time minus the adapter's clock (moved by "advance").
    offset_ms: i64,
    /// Set by a door whose controllers walk a clock jump (`take_jump`):
    /// the debug clock leaves the jump to them, in `pending_jump_ms`.
    stepped_jumps: bool,
    pending_jump_ms: i64,
    audit: SeededRng,
    /// Protobuf encodings of stored objects, shared by lists and watchers.
    pub(crate) proto_cache: std::sync::Arc<std::sync::Mutex<crate::proto::EncodingCache>>,
    /// Who the request being served acts as.
    acting: std::sync::Arc<crate::auth::UserInfo>,
    /// The acting user is one of the cluster's own components (or the
    /// apiserver itself), trusted as upstream's bootstrap roles trust them.
    acting_trusted: bool,
    /// The RBAC objects the authorizer decides by.
    rbac_cache: Option<authz::RbacCache>,
    /// The API Priority and Fairness configuration's upkeep.
    apf: apf_config::ApfState,
    /// What `/metrics` reports.
    metrics: metrics::Metrics,
    /// The dispatcher's clock, when the door gives it one (`dispatch.rs`).
    apf_clock: Option<Box<dyn Fn() -> u64 + Send>>,
    /// One token per open watch, by what it watches (the count is the
    /// token's holders, less this one).
    watchers: std::collections::BTreeMap<WatchKey, std::sync::Arc<()>>,
    /// Requests executing now, by ticket: whether each is a write.
    executing: std::collections::BTreeMap<u64, bool>,
    /// The next in-flight slot's number (API Priority and Fairness off).
    next_slot: u64,
    /// Stored objects by group, then resource, and when they were counted
    /// (the dispatcher's clock), for the work estimator.
    object_count_cache: ObjectCounts,
    /// Which components answer `componentstatuses`' probes.
    components: components::Components,
}

const JSON_ONLY: &str = "only the following media types are accepted: application/json";

impl Server {
    pub fn new(config: ServerConfig) -> Server {
        let mut s = Server::blank(config);
        s.bootstrap();
        s.maintain_apf();
        s
    }

    /// A server with nothing stored, not even what it makes at start.
    fn blank(config: ServerConfig) -> Server {
        let mut registry = Registry::in_memory(config.seed, config.start_time);
        registry.set_name_generator(config.name_generator.clone());
        registry.set_service_ranges(config.services.clone());
        let audit = SeededRng::new(config.seed ^ 0xA0D1_7000);
        Server {
            registry,
            offset_ms: 0,
            stepped_jumps: false,
            pending_jump_ms: 0,
            audit,
            proto_cache: Default::default(),
            acting: crate::auth::UserInfo::admin_shared(),
            acting_trusted: true,
            rbac_cache: None,
            apf: apf_config::ApfState::new(&config),
            metrics: metrics::Metrics::new(config.metrics.clone()),
            apf_clock: None,
            watchers: Default::default(),
            executing: Default::default(),
            next_slot: 0,
            object_count_cache: Default::default(),
            components: Default::default(),
            config,
        }
    }

    /// The namespaces every cluster starts with.
    fn bootstrap(&mut self) {
        let Some(ns) = self.registry.resources().namespaces().cloned() else { return };
        for name in ["default", "kube-system", "kube-public", "kube-node-lease"] {
            let body = crate::api::to_json(
                &json!({"metadata": {"name": name, "labels": {"kubernetes.io/metadata.name": name}}}),
            );
            let _ = self.registry.create(&ns, "", RequestBody::json(&body), &Default::default(), &mut Vec::new());
        }
        let opts =
            crate::registry::options::WriteOptions { field_manager: "kube-apiserver".into(), ..Default::default() };
        // The system priority classes (upstream's post-start hook).
        if let Some(rt) = self.registry.resources().lookup("scheduling.k8s.io", "v1", "priorityclasses").cloned() {
            for obj in crate::registry::priority::system_classes() {
                let body = crate::api::to_json(&obj);
                let _ = self.registry.create(&rt, "", RequestBody::json(&body), &opts, &mut Vec::new());
            }
        }
        if self.config.rbac {
            for (resource, obj) in bootstrap_rbac::objects() {
                let Some(rt) = self.registry.resources().lookup("rbac.authorization.k8s.io", "v1", resource).cloned()
                else {
                    continue;
                };
                let body = crate::api::to_json(&obj);
                let _ = self.registry.create(&rt, "", RequestBody::json(&body), &opts, &mut Vec::new());
            }
        }
    }

    pub fn now(&self) -> SimTime {
        self.registry.now()
    }

    pub fn revision(&self) -> Revision {
        self.registry.revision()
    }

    pub fn compacted(&self) -> Revision {
        self.registry.compacted()
    }

    pub fn config(&self) -> &ServerConfig {
        &self.config
    }

    /// Moves simulated time to the adapter's clock (never backwards).
    pub fn sync_clock(&mut self, wall: SimTime) {
        self.registry.set_time(wall.plus_millis(self.offset_ms));
        self.compact_by_time();
    }

    /// Has `POST /debug/kubesim/clock?advance=` leave its jump for
    /// `take_jump` (a door whose controllers walk it through their wake
    /// times, as if the time had passed) rather than make it at once.
    pub fn step_jumps(&mut self, on: bool) {
        self.stepped_jumps = on;
    }

    /// The jump the debug clock left, in ms (0: none).
    pub fn take_jump(&mut self) -> i64 {
        std::mem::take(&mut self.pending_jump_ms)
    }

    /// Jumps simulated time forward.
    pub fn advance(&mut self, ms: i64) {
        let ms = ms.max(0);
        self.offset_ms = self.offset_ms.saturating_add(ms);
        self.registry.set_time(self.registry.now().plus_millis(ms));
        self.compact_by_time();
    }

    /// Compacts everything older than the history window; the time-driven
    /// upkeep that is due runs.
    fn compact_by_time(&mut self) {
        let horizon = self.registry.now().plus_millis(-self.config.history_window_ms);
        self.registry.compact_before(horizon);
        // (Only the producer's minute: the consumer already runs after
        // every request.)
        if self.apf_producer_due() {
            self.maintain_apf();
        }
    }

    /// Compacts history up to `rev` (or the newest revision).
    pub fn compact(&mut self, rev: Option<Revision>) -> Revision {
        let rev = rev.unwrap_or_else(|| self.revision());
        self.registry.compact(rev);
        self.compacted()
    }

    /// Serves a request; a watch is answered by polling its stream once and
    /// returning what it had (the stream as of now, closed).
    pub fn handle(&mut self, req: Request) -> Response {
        match self.serve(req) {
            Served::Response(r) | Served::Log(r, _) => r,
            Served::Watch(mut head, mut stream) => {
                for e in self.poll_watch(&mut stream, usize::MAX) {
                    stream.write_event(&e, &mut head.body);
                }
                head
            }
        }
    }

    /// A request from the apiserver itself (its own controllers): routed
    /// as any other, without admission or the after-request upkeep.
    fn handle_loopback(&mut self, req: Request) -> Response {
        let user = req.user.clone().unwrap_or_else(crate::auth::UserInfo::admin_shared);
        let acting = std::mem::replace(&mut self.acting, user);
        let trusted = std::mem::replace(&mut self.acting_trusted, true);
        let served = self.route(&req);
        self.acting = acting;
        self.acting_trusted = trusted;
        match served {
            Served::Response(r) | Served::Log(r, _) | Served::Watch(r, _) => r,
        }
    }

    /// What a followed container printed since the last poll (empty when
    /// nothing new); `follow.is_done()` says when the stream ends.
    pub fn poll_log(&mut self, follow: &mut logs::LogFollow) -> Vec<u8> {
        let Some(rt) = self.registry.resources().lookup("", "v1", "pods").cloned() else { return Vec::new() };
        let pod = self.stored(&rt, &follow.namespace, &follow.name).ok();
        follow.more(pod.as_ref(), self.now()).into_bytes()
    }

    /// An object as stored now, or the registry's answer (404).
    fn stored(&self, rt: &ResourceType, namespace: &str, name: &str) -> Result<Value, Status> {
        match self.registry.get(rt, namespace, name, &GetOptions::default())? {
            Body::Object(o) => Ok(o.value()),
            Body::Value(v) => Ok(v),
            Body::Status(s) => Err(*s),
        }
    }

    fn route(&mut self, req: &Request) -> Served {
        let query = Query::parse(&req.query);
        let route = self.resolve(&req.path);
        let resp = match route {
            Route::Health(endpoint) => health::answer(endpoint, &req.query),
            Route::HealthCheck => Response::text(200, "ok"),
            Route::Metrics => {
                let text = self.metrics.render(&self.scrape(true));
                Response { status: 200, headers: typed_headers(metrics::CONTENT_TYPE), body: text }
            }
            Route::ApfDump(what) => self.apf_dump(what, &req.query),
            Route::Version => Response::value(200, &discovery::version()),
            Route::OpenApiV2 => {
                const PROTO: &str = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf";
                let wanted = negotiation::parse_accept(req.header("Accept")).into_iter().find(|r| {
                    r.media_type == PROTO
                        || matches!(r.media_type.as_str(), "application/json" | "*/*" | "application/*")
                });
                let catalog = self.registry.resources();
                match wanted {
                    // kube-openapi answers the protobuf form as octet-stream
                    // (the media type is not a valid MIME type).
                    Some(r) if r.media_type == PROTO => Response {
                        status: 200,
                        headers: typed_headers("application/octet-stream"),
                        body: openapi_v2_proto::encode(&openapi::v2(catalog)),
                    },
                    Some(_) => Response::value(200, &openapi::v2(catalog)),
                    None => Response::status(&Status::not_acceptable(format!(
                        "only the following media types are accepted: application/json, {PROTO}"
                    ))),
                }
            }
            Route::Value(v) => match negotiation::negotiate(req.header("Accept"), false) {
                Some(_) => Response::value(200, &v),
                None => Response::status(&Status::not_acceptable(JSON_ONLY)),
            },
            Route::Aggregated(core) => {
                let chosen = negotiation::negotiate(req.header("Accept"), true);
                let catalog = self.registry.resources();
                if chosen.is_none() {
                    Response::status(&Status::not_acceptable(JSON_ONLY))
                } else if chosen == Some(negotiation::Representation::AggregatedDiscoveryV2) {
                    let mut r = Response::value(200, &discovery::aggregated(catalog, core));
                    r.headers[0].1 = discovery::AGGREGATED_CONTENT_TYPE.into();
                    r
                } else if core {
                    let host = req.header("Host").unwrap_or("127.0.0.1:6443").to_string();
                    Response::value(200, &discovery::api_versions(&host))
                } else {
                    Response::value(200, &discovery::api_group_list(catalog))
                }
            }
            Route::Debug(what) => self.debug(req, &what, &query),
            Route::NotFoundPage => Response::text(404, "404 page not found\n"),
            Route::NotFoundStatus => Response::status(&no_such_resource()),
            Route::Resource(target) => return self.resource_route(req, &query, target),
        };
        Served::Response(resp)
    }

    /// A resource request: negotiate the representation first (406 before
    /// any work), serve the verb, then render what it produced.
    fn resource_route(&mut self, req: &Request, query: &Query, target: Target) -> Served {
        let rt = target.rt.clone();
        let accept = req.header("Accept");
        let watching = query.get("watch").is_some_and(|w| w == "true" || w == "1");
        let not_acceptable =
            || Served::Response(Response::status(&Status::not_acceptable(negotiation::resource_not_acceptable())));
        let Some(output) = negotiation::negotiate_output(accept, watching, rt.protobuf) else {
            return not_acceptable();
        };
        let include = if output.convert == Some(negotiation::Convert::Table) {
            match represent::include_object(query) {
                Ok(i) => i,
                Err(s) => return Served::Response(Response::status(&s)),
            }
        } else {
            represent::IncludeObject::default()
        };
        // Warnings go out with the answer, an error too (upstream writes
        // each header as it is recorded).
        let mut warnings: Warnings = Vec::new();
        // What is left to render: a verb that made the conversion itself
        // (a metadata list, from the stored bytes) clears it.
        let mut left = output;
        let served = match self.resource(req, query, target, &mut left, &mut warnings) {
            Ok(served) => served,
            Err(s) => Served::Response(with_warnings(Response::status(&s), warnings)),
        };
        let rendering = represent::Rendering { rt: rt.clone(), output: left, include, now: self.now() };
        match served {
            Served::Response(r) => Served::Response(represent::render(r, &rendering)),
            log @ Served::Log(..) => log,
            Served::Watch(mut head, mut stream) => {
                // A watch asked for without watch=true: negotiate its stream.
                let output =
                    if watching { Some(output) } else { negotiation::negotiate_output(accept, true, rt.protobuf) };
                let Some(output) = output else { return not_acceptable() };
                stream.rendering = Some(represent::Rendering { output, ..rendering });
                if output.encoding == negotiation::Encoding::Protobuf {
                    stream.proto_cache = Some(self.proto_cache.clone());
                    for (k, v) in head.headers.iter_mut() {
                        if k.eq_ignore_ascii_case("Content-Type") {
                            *v = format!("{};stream=watch", negotiation::PROTOBUF).into();
                        }
                    }
                }
                Served::Watch(head, stream)
            }
        }
    }

    /// `nodes/NAME/proxy/PATH`: the node must exist and have an address
    /// to reach its kubelet at; then the simulated kubelet answers
    /// (`node_proxy`), from the pods bound to the node and the events its
    /// kubelet recorded.
    fn node_proxy(&mut self, req: &Request, q: &Query, t: &Target) -> Result<Response, Status> {
        let name = t.name.as_deref().unwrap_or("");
        if !t.routes(req.method.as_str()) {
            return Err(Status::method_not_allowed());
        }
        let node = self.stored(&t.rt, "", name)?;
        if node["status"]["addresses"].as_array().is_none_or(Vec::is_empty) {
            // Upstream's connection lookup fails with a plain error: a 500
            // with no reason or details.
            return Err(Status::failure(500, "", "no preferred addresses found; known addresses: []".into()));
        }
        let read = |resource: &str, field_selector: String| -> Vec<Value> {
            let Some(rt) = self.registry.resources().lookup("", "v1", resource).cloned() else { return Vec::new() };
            let opts = ListOptions { field_selector, ..Default::default() };
            self.registry
                .list(&rt, None, &opts)
                .map(|l| l.items.iter().map(|o| o.value()).collect())
                .unwrap_or_default()
        };
        let pods = read("pods", format!("spec.nodeName={name}"));
        let events = read("events", "source=kubelet".to_string());
        let rest = t.rest.as_deref().unwrap_or("");
        Ok(node_proxy::answer(&node, &req.method, rest, q, &pods, &events, self.now()))
    }

    /// Route → options → the store's verb. What the verb answered is
    /// rendered by the caller.
    fn resource(
        &mut self,
        req: &Request,
        q: &Query,
        t: Target,
        output: &mut negotiation::Output,
        warnings: &mut Warnings,
    ) -> Result<Served, Status> {
        let rt = t.rt.clone();
        let ns = t.namespace.clone().unwrap_or_default();
        if t.side() == Some(Side::Proxy) {
            return self.node_proxy(req, q, &t).map(Served::Response);
        }
        if t.side() == Some(Side::Log) {
            return self.pod_log(req, q, &t);
        }
        if t.side() == Some(Side::Token) {
            return self.token(req, q, &t);
        }
        let subresource = match t.subresource.as_deref() {
            None => Subresource::None,
            Some("status") if rt.status_subresource => Subresource::Status,
            Some("scale") if rt.scale_subresource && t.name.is_some() => Subresource::Scale,
            Some("finalize") if rt.finalize_subresource && t.name.is_some() => Subresource::Finalize,
            Some("binding") if rt.has(Side::Binding) && t.name.is_some() => Subresource::Binding,
            Some("eviction") if rt.has(Side::Eviction) && t.name.is_some() => Subresource::Eviction,
            Some("ephemeralcontainers") if rt.has(Side::EphemeralContainers) && t.name.is_some() => {
                Subresource::EphemeralContainers
            }
            Some("resize") if rt.has(Side::Resize) && t.name.is_some() => Subresource::Resize,
            Some(_) => return Err(no_such_resource()),
        };
        if !t.routes(req.method.as_str()) {
            return Err(Status::method_not_allowed());
        }
        if let Some(name) = &t.name {
            if !crate::api::meta::is_valid_path_segment(name) {
                return Err(Status::bad_request(format!("invalid resource name {name:?}: may not contain '/' or '%'")));
            }
        }
        if components::is_component_status(&t) {
            return self.component_status(&t, &params::list_options(q)?, warnings);
        }
        let content_type = req.header("Content-Type").map(media_type::essence).unwrap_or("");
        let body = RequestBody { media_type: content_type, bytes: &req.body };
        let user_agent = req.header("User-Agent");
        let method = req.method.as_str();
        // A DELETE with a body takes its options from the body alone.
        let options_in_body = method == "DELETE" && !req.body.iter().all(u8::is_ascii_whitespace);
        if !matches!(method, "GET" | "HEAD") && !options_in_body {
            params::check_write_query(method, q)?;
        }
        if subresource == Subresource::Eviction {
            return self.evict(q, &t, body, warnings);
        }
        if subresource == Subresource::Binding {
            let name = t.name.as_deref().unwrap_or("");
            let opts = params::write_options(Verb::Create, q, user_agent, subresource, None)?;
            let answer = self.registry.bind(&rt, &ns, name, body, &opts)?;
            return Ok(Served::Response(with_warnings(body_response(201, answer), std::mem::take(warnings))));
        }
        if subresource == Subresource::Scale {
            return self.scale(req, q, &t, warnings);
        }
        let result = match (method, t.name.as_deref()) {
            ("GET", None) => {
                let opts = params::list_options(q)?;
                if opts.watch {
                    return self.start_watch(&rt, t.namespace.as_deref(), None, opts);
                }
                let list = self.registry.list(&rt, t.namespace.as_deref(), &opts)?;
                return self.list_response(&rt, &list, output).map(Served::Response);
            }
            ("GET", Some(name)) => {
                let opts = params::list_options(q)?;
                if opts.watch {
                    return self.start_watch(&rt, t.namespace.as_deref(), Some(name), opts);
                }
                let opts = GetOptions { resource_version: opts.resource_version, subresource };
                return Ok(Served::Response(body_response(200, self.registry.get(&rt, &ns, name, &opts)?)));
            }
            ("POST", None) if reviews::is_review(&rt) => self.review_request(q, &t, body, user_agent, warnings)?,
            ("POST", None) => {
                let opts = params::write_options(Verb::Create, q, user_agent, subresource, None)?;
                self.confirm_no_escalation(&rt, &ns, escalation::Write::Create(body), &opts)?;
                let created = self.registry.create(&rt, &ns, body, &opts, warnings)?;
                body_response(201, created)
            }
            ("PUT", Some(name)) => {
                let opts = params::write_options(Verb::Update, q, user_agent, subresource, None)?;
                self.confirm_no_escalation(&rt, &ns, escalation::Write::Update(name, body), &opts)?;
                let w = self.registry.update(&rt, &ns, name, body, &opts, warnings)?;
                body_response(if w.created { 201 } else { 200 }, w.body)
            }
            ("PATCH", Some(name)) => {
                let patch_type = patch_type(&rt, content_type)?;
                let opts = params::write_options(Verb::Patch, q, user_agent, subresource, Some(patch_type))?;
                let patch = escalation::Write::Patch(name, patch_type, &req.body);
                self.confirm_no_escalation(&rt, &ns, patch, &opts)?;
                let w = self.registry.patch(&rt, &ns, name, patch_type, &req.body, &opts, warnings)?;
                body_response(if w.created { 201 } else { 200 }, w.body)
            }
            ("DELETE", Some(name)) => self.delete_object(q, &t, name, body, warnings)?,
            ("DELETE", None) if rt.serves(Verb::DeleteCollection) => self.delete_collection(q, &t, body, warnings)?,
            _ => return Err(Status::method_not_allowed()),
        };
        Ok(Served::Response(with_warnings(result, std::mem::take(warnings))))
    }

    // The rarer requests, each apart (none of them is served while a
    // cluster starts, so the page's and the package's modules load them
    // second).

    /// A review (access or self-subject), answered and never stored.
    #[inline(never)]
    fn review_request(
        &mut self,
        q: &Query,
        t: &Target,
        body: RequestBody<'_>,
        user_agent: Option<&str>,
        warnings: &mut Warnings,
    ) -> Result<Response, Status> {
        let opts = params::write_options(Verb::Create, q, user_agent, Subresource::None, None)?;
        let ns = t.namespace.as_deref().unwrap_or("");
        let answer = self.review(&t.rt, ns, body, opts.field_validation, warnings)?;
        Ok(body_response(201, Body::Value(answer)))
    }

    /// One object's DELETE.
    #[inline(never)]
    fn delete_object(
        &mut self,
        q: &Query,
        t: &Target,
        name: &str,
        body: RequestBody<'_>,
        warnings: &mut Warnings,
    ) -> Result<Response, Status> {
        let opts = params::delete_options(q, body)?;
        let ns = t.namespace.as_deref().unwrap_or("");
        let d = self.registry.delete(&t.rt, ns, name, &opts, warnings)?;
        // Upstream answers 202 only to the deprecated
        // orphanDependents=false when the object stays.
        let code = if !d.gone && opts.orphan_dependents == Some(false) { 202 } else { 200 };
        Ok(body_response(code, d.body))
    }

    /// `pods/NAME/log`: the kubelet's stream, passed on as kube-apiserver's
    /// LocationStreamer does (`text/plain`, no charset).
    #[inline(never)]
    fn pod_log(&mut self, req: &Request, q: &Query, t: &Target) -> Result<Served, Status> {
        let name = named_and_routed(req, t)?;
        let pod = self.stored(&t.rt, t.namespace.as_deref().unwrap_or(""), name)?;
        let head =
            |text: String| Response { status: 200, headers: typed_headers("text/plain"), body: text.into_bytes() };
        Ok(match logs::pod_log(&pod, q, self.now())? {
            logs::PodLog::Done(text) => Served::Response(head(text)),
            logs::PodLog::Following(text, follow) => Served::Log(head(text), follow),
        })
    }

    /// `serviceaccounts/NAME/token`.
    #[inline(never)]
    fn token(&mut self, req: &Request, q: &Query, t: &Target) -> Result<Served, Status> {
        let name = named_and_routed(req, t)?;
        params::check_write_query("POST", q)?;
        let media_type = req.header("Content-Type").map(media_type::essence).unwrap_or("");
        let ns = t.namespace.as_deref().unwrap_or("");
        let answer = self.create_token(ns, name, RequestBody { media_type, bytes: &req.body })?;
        Ok(Served::Response(body_response(201, Body::Value(answer))))
    }

    /// `pods/NAME/eviction`.
    #[inline(never)]
    fn evict(
        &mut self,
        q: &Query,
        t: &Target,
        body: RequestBody<'_>,
        warnings: &mut Warnings,
    ) -> Result<Served, Status> {
        let name = t.name.as_deref().unwrap_or("");
        let eviction = crate::registry::decode::sub_object(body)?;
        let mut opts = match eviction.get("deleteOptions").filter(|v| !v.is_null()) {
            Some(v) => params::delete_options_of(v)?,
            None => Default::default(),
        };
        opts.dry_run |= q.all("dryRun").contains(&"All");
        let ns = t.namespace.as_deref().unwrap_or("");
        let answer = self.registry.evict(&t.rt, ns, name, &eviction, &opts, warnings)?;
        Ok(Served::Response(with_warnings(body_response(201, answer), std::mem::take(warnings))))
    }

    /// `…/NAME/scale`: read, replaced or patched.
    #[inline(never)]
    fn scale(&mut self, req: &Request, q: &Query, t: &Target, warnings: &mut Warnings) -> Result<Served, Status> {
        let (rt, ns) = (&t.rt, t.namespace.as_deref().unwrap_or(""));
        let name = t.name.as_deref().unwrap_or("");
        let subresource = Subresource::Scale;
        let user_agent = req.header("User-Agent");
        let body = RequestBody {
            media_type: req.header("Content-Type").map(media_type::essence).unwrap_or(""),
            bytes: &req.body,
        };
        let (code, written) = match req.method.as_str() {
            "GET" => (200, self.registry.get(rt, ns, name, &GetOptions { subresource, ..Default::default() })?),
            "PUT" => {
                let opts = params::write_options(Verb::Update, q, user_agent, subresource, None)?;
                (200, self.registry.update(rt, ns, name, body, &opts, warnings)?.body)
            }
            "PATCH" => {
                let patch_type = patch_type(rt, body.media_type)?;
                let opts = params::write_options(Verb::Patch, q, user_agent, subresource, None)?;
                (200, self.registry.patch(rt, ns, name, patch_type, &req.body, &opts, warnings)?.body)
            }
            _ => return Err(Status::method_not_allowed()),
        };
        Ok(Served::Response(with_warnings(body_response(code, written), std::mem::take(warnings))))
    }

    /// A DELETE of a collection: the list deleted.
    #[inline(never)]
    fn delete_collection(
        &mut self,
        q: &Query,
        t: &Target,
        body: RequestBody<'_>,
        warnings: &mut Warnings,
    ) -> Result<Response, Status> {
        let mut list_opts = params::list_options(q)?;
        list_opts.watch = false;
        let opts = params::delete_options(q, body)?;
        let deleted = self.registry.delete_collection(&t.rt, t.namespace.as_deref(), &list_opts, &opts, warnings)?;
        Ok(Response::json(200, list::encode_list(&t.rt, &deleted)))
    }

    fn start_watch(
        &mut self,
        rt: &std::sync::Arc<ResourceType>,
        namespace: Option<&str>,
        name: Option<&str>,
        opts: crate::registry::options::ListOptions,
    ) -> Result<Served, Status> {
        // (A kubelet's watch of its own node's pods is not counted, as
        // upstream's tracker leaves out watches its index serves.)
        let own_pods = rt.group().is_empty()
            && rt.resource() == "pods"
            && opts.field_selector.split(',').any(|t| t.strip_prefix("spec.nodeName=").is_some_and(|v| !v.is_empty()));
        let watcher = self.registry.watch(rt, namespace, name, opts, self.config.watch_buffer)?;
        let mut head = Response::json(200, Vec::new());
        head.headers.push(("Transfer-Encoding".into(), "chunked".into()));
        let mut stream = WatchStream::new(watcher);
        if !own_pods {
            self.watchers.retain(|_, t| std::sync::Arc::strong_count(t) > 1);
            let key = WatchKey {
                group: rt.group().to_string(),
                resource: rt.resource().to_string(),
                namespace: namespace.unwrap_or("").to_string(),
                name: name.unwrap_or("").to_string(),
                version: rt.version().to_string(),
            };
            stream.registered = Some(self.watchers.entry(key).or_default().clone());
        }
        Ok(Served::Watch(head, stream))
    }

    /// The open watches a write to an object is sent to, as upstream's
    /// watch tracker counts them: those of the whole resource, of the
    /// object's namespace, and of the object by name.
    pub(crate) fn watcher_count(&self, group: &str, resource: &str, namespace: &str, name: &str) -> u64 {
        let count = |ns: &str, n: &str| -> u64 {
            self.watchers
                .iter()
                .filter(|(k, _)| k.group == group && k.resource == resource && k.namespace == ns && k.name == n)
                .map(|(_, t)| std::sync::Arc::strong_count(t) as u64 - 1)
                .sum()
        };
        let mut total = count("", "");
        if !namespace.is_empty() {
            total += count(namespace, "");
        }
        if !name.is_empty() {
            total += count(namespace, name);
        }
        total
    }
}

/// Runs `serve` and turns a panic into a 500 `Status` response, so a bug
/// answers the client instead of dropping its connection. (Doors call this;
/// on wasm32, where panics abort, it is a plain call.)
pub fn guard_panics(serve: impl FnOnce() -> Served) -> Served {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(serve)).unwrap_or_else(|_| {
        Served::Response(Response::status(&Status::internal_error("the simulator panicked while serving this request")))
    })
}

/// A subresource's object name, when the path names one and the
/// subresource takes the request's method.
fn named_and_routed<'t>(req: &Request, t: &'t Target) -> Result<&'t str, Status> {
    let Some(name) = t.name.as_deref() else { return Err(no_such_resource()) };
    if !t.routes(req.method.as_str()) {
        return Err(Status::method_not_allowed());
    }
    Ok(name)
}

/// The 404 for a path that names no resource (or no such subresource).
fn no_such_resource() -> Status {
    let mut s = Status::not_found("", "", "");
    s.message = "the server could not find the requested resource".into();
    s.details = Some(Default::default());
    s
}

/// A PATCH's kind from its media type, or the 415 naming those the
/// resource takes (a custom resource has no strategic merge patch).
fn patch_type(rt: &ResourceType, content_type: &str) -> Result<PatchType, Status> {
    let mut accepted = vec![media_type::JSON_PATCH, media_type::MERGE_PATCH, media_type::APPLY_PATCH_YAML];
    if !rt.unstructured() {
        accepted.push(media_type::STRATEGIC_MERGE_PATCH);
    }
    match PatchType::from_media_type(content_type) {
        Some(PatchType::Strategic) if rt.unstructured() => None,
        other => other,
    }
    .ok_or_else(|| {
        Status::unsupported_media_type(format!(
            "the body of the request was in an unknown format - accepted media types include: {}",
            accepted.join(", ")
        ))
    })
}

fn body_response(code: u16, body: Body) -> Response {
    match body {
        Body::Object(o) => Response::json(code, o.json.to_vec()),
        Body::Value(v) => Response::value(code, &v),
        Body::Status(s) => Response::json(code, s.to_json()),
    }
}

/// Adds the warnings, each text once, as upstream's recorder does (which
/// also drops a text with control characters).
fn with_warnings(mut r: Response, warnings: Warnings) -> Response {
    let mut sent: Vec<&str> = Vec::new();
    for w in &warnings {
        if w.is_empty() || w.chars().any(char::is_control) || sent.contains(&w.as_str()) {
            continue;
        }
        sent.push(w);
        r.headers.push(("Warning".into(), warning_header(w).into()));
    }
    r
}

/// A `Warning` header value (RFC 7234 style, code 299, as upstream sends).
fn warning_header(text: &str) -> String {
    let escaped = text.replace('\\', "\\\\").replace('"', "\\\"");
    format!("299 - \"{escaped}\"")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A kind defined at run time, with rules of its own: what a
    /// CustomResourceDefinition will produce.
    struct WidgetStrategy {
        columns: Vec<crate::registry::table::Column>,
        fields: Vec<crate::registry::strategy::SelectableField>,
    }

    impl crate::registry::strategy::Strategy for WidgetStrategy {
        fn defaults(&self, o: &mut serde_json::Map<String, Value>) {
            crate::registry::strategy::default(o, "size", json!("medium"));
        }
        fn validate(&self, obj: &Value) -> Vec<crate::api::FieldError> {
            match obj.get("size").and_then(Value::as_str) {
                Some("small" | "medium" | "large") => Vec::new(),
                other => {
                    let got = other.unwrap_or("");
                    vec![crate::api::FieldError::not_supported("size", got, &["small", "medium", "large"])]
                }
            }
        }
        fn selectable_fields(&self) -> &[crate::registry::strategy::SelectableField] {
            &self.fields
        }
        fn columns(&self) -> &[crate::registry::table::Column] {
            &self.columns
        }
        fn cells(&self, obj: &Value, _now: SimTime) -> Vec<Value> {
            vec![obj["metadata"]["name"].clone(), obj["size"].clone()]
        }
    }

    fn server_with_widgets() -> Server {
        use crate::api::GroupVersionResource;
        use crate::registry::resource::{ResourceDefinition, ResourceType};
        use crate::registry::strategy::{SelectableField, StrategyRef};
        use crate::registry::table::{Column, Desc, NAME};
        let size = Column {
            name: "Size".to_string().into(),
            ty: "string",
            format: "",
            priority: 0,
            desc: Desc::Text("How big it is".to_string().into()),
        };
        let strategy = WidgetStrategy {
            columns: vec![NAME, size],
            fields: vec![SelectableField {
                name: "size".to_string().into(),
                path: "size".to_string().into(),
                zero: "".into(),
            }],
        };
        let def = ResourceDefinition {
            gvr: GroupVersionResource::new("example.com", "v1", "widgets"),
            kind: "Widget".into(),
            singular: "widget".into(),
            namespaced: true,
            short_names: vec!["wd".into()],
            categories: vec![],
            verbs: Verb::STANDARD.to_vec(),
            status_subresource: false,
            scale_subresource: false,
            finalize_subresource: false,
            side: &[],
            name_rule: crate::api::meta::NameRule::Dns1123Subdomain,
            return_deleted_object: false,
            allow_create_on_update: false,
            tracks_generation: true,
            protobuf: false,
            stored_as: None,
            strategy: StrategyRef::Shared(std::sync::Arc::new(strategy)),
        };
        let mut s = Server::new(ServerConfig::default());
        s.registry.register(ResourceType::new(def)).unwrap();
        s
    }

    #[test]
    fn a_kind_known_only_at_run_time_is_served_by_the_generic_store() {
        let mut s = server_with_widgets();
        let post = |s: &mut Server, body: Value| {
            s.handle(
                Request::new("POST", "/apis/example.com/v1/namespaces/default/widgets")
                    .with_header("Content-Type", "application/json")
                    .with_body(serde_json::to_vec(&body).unwrap()),
            )
        };
        // Discovery and routing know it.
        let d = s.handle(Request::new("GET", "/apis/example.com/v1")).json_body();
        assert_eq!(d["resources"][0]["kind"], "Widget");
        assert_eq!(d["resources"][0]["shortNames"], json!(["wd"]));
        // Its strategy defaults and validates.
        let r = post(&mut s, json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w1"}}));
        assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
        assert_eq!(r.json_body()["size"], "medium");
        assert_eq!(r.json_body()["metadata"]["generation"], 1);
        let r = post(&mut s, json!({"metadata": {"name": "w2"}, "size": "huge"}));
        assert_eq!(r.status, 422);
        assert_eq!(r.json_body()["details"]["causes"][0]["field"], "size");
        assert_eq!(post(&mut s, json!({"metadata": {"name": "w3"}, "size": "small"})).status, 201);
        // Lists, field selectors on its own field, Tables with its columns.
        let list =
            s.handle(Request::new("GET", "/apis/example.com/v1/namespaces/default/widgets?fieldSelector=size%3Dsmall"));
        let list = list.json_body();
        let names: Vec<&str> =
            list["items"].as_array().unwrap().iter().filter_map(|i| i["metadata"]["name"].as_str()).collect();
        assert_eq!(names, ["w3"]);
        let table = s.handle(
            Request::new("GET", "/apis/example.com/v1/namespaces/default/widgets")
                .with_header("Accept", "application/json;as=Table;g=meta.k8s.io;v=v1"),
        );
        let t = table.json_body();
        assert_eq!(t["columnDefinitions"][1]["name"], "Size");
        assert_eq!(t["rows"][0]["cells"], json!(["w1", "medium"]));
        // Patches, watches and deletes go through the same store; no protobuf.
        let r = s.handle(
            Request::new("PATCH", "/apis/example.com/v1/namespaces/default/widgets/w1")
                .with_header("Content-Type", "application/merge-patch+json")
                .with_body(br#"{"size":"large"}"#.to_vec()),
        );
        assert_eq!((r.status, r.json_body()["metadata"]["generation"].as_i64()), (200, Some(2)));
        let w = s.handle(Request::new("GET", "/apis/example.com/v1/namespaces/default/widgets?watch=1"));
        assert_eq!(String::from_utf8_lossy(&w.body).matches("\"ADDED\"").count(), 2);
        let r = s.handle(
            Request::new("GET", "/apis/example.com/v1/namespaces/default/widgets")
                .with_header("Accept", "application/vnd.kubernetes.protobuf"),
        );
        assert_eq!(r.status, 406);
        assert_eq!(s.handle(Request::new("DELETE", "/apis/example.com/v1/namespaces/default/widgets/w1")).status, 200);
        assert_eq!(s.handle(Request::new("GET", "/apis/example.com/v1/namespaces/default/widgets/w1")).status, 404);
    }

    #[test]
    fn a_panic_becomes_a_500_status() {
        let served = guard_panics(|| panic!("boom"));
        let Served::Response(r) = served else { panic!("expected a response") };
        assert_eq!(r.status, 500);
        let v = r.json_body();
        assert_eq!(
            (v["kind"].as_str(), v["reason"].as_str(), v["code"].as_i64()),
            (Some("Status"), Some("InternalError"), Some(500))
        );
    }
}

/// What a watch watches (namespace and name may be empty).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct WatchKey {
    group: String,
    resource: String,
    namespace: String,
    name: String,
    version: String,
}
