//! The core's front: `Server::serve(Request)` routes a request to a verb,
//! negotiates the representation and turns every failure into a `Status`
//! through one exit (`Response::status`). Watches come back as a
//! `WatchStream` the caller polls.

pub mod discovery;
mod list;
pub mod negotiation;
pub mod openapi;
pub mod openapi_v2_proto;
pub mod params;
pub mod represent;
mod routing;
mod scale;
pub mod table;
pub mod watch;

use serde_json::{json, Value};

use crate::api::{FieldError, Revision, Status};
use crate::clock::{parse_duration_millis, SeededRng, SimTime};
use crate::registry::store::{Body, DeleteOptions, FieldValidation, Registry, Warnings, WriteOptions};
use crate::registry::{kinds, ResourceType};
use crate::storage::{MemStorage, Storage};
use params::{ListOptions, Query};
use routing::{Route, Target};
pub use watch::{WatchEvent, WatchObject, WatchStream};

/// An HTTP request, as any door hands it to the core.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Request {
    pub method: String,
    pub path: String,
    /// The raw query string, without `?`.
    pub query: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Request {
    pub fn new(method: &str, target: &str) -> Request {
        let (path, query) = target.split_once('?').unwrap_or((target, ""));
        Request { method: method.into(), path: path.into(), query: query.into(), headers: Vec::new(), body: Vec::new() }
    }

    pub fn with_body(mut self, body: impl Into<Vec<u8>>) -> Request {
        self.body = body.into();
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

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Response {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Response {
    fn json(status: u16, body: Vec<u8>) -> Response {
        Response { status, headers: vec![("Content-Type".into(), "application/json".into())], body }
    }

    fn value(status: u16, v: &Value) -> Response {
        Response::json(status, serde_json::to_vec(v).unwrap_or_default())
    }

    /// The one exit for failures: a Status with its code as HTTP status.
    pub fn status(s: &Status) -> Response {
        let mut r = Response::json(s.code.clamp(100, 599) as u16, s.to_json());
        if let Some(d) = &s.details {
            if d.retry_after_seconds > 0 {
                r.headers.push(("Retry-After".into(), d.retry_after_seconds.to_string()));
            }
        }
        r
    }

    fn text(status: u16, text: &str) -> Response {
        Response {
            status,
            headers: vec![("Content-Type".into(), "text/plain; charset=utf-8".into())],
            body: text.as_bytes().to_vec(),
        }
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    pub fn json_body(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or(Value::Null)
    }
}

/// What serving a request produced.
pub enum Served {
    Response(Response),
    /// A watch: the response head, then events from the stream.
    Watch(Response, WatchStream),
}

#[derive(Clone, Debug)]
pub struct ServerConfig {
    pub seed: u64,
    pub start_time: SimTime,
    /// History older than this (simulated) is compacted. Default 5 minutes.
    pub history_window_ms: i64,
    /// A watcher more than this many revisions behind the head is closed.
    pub watch_buffer: u64,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            seed: 1,
            start_time: SimTime(1_700_000_000_000),
            history_window_ms: 5 * 60_000,
            watch_buffer: 100_000,
        }
    }
}

/// The simulated API server.
pub struct Server {
    pub(crate) registry: Registry<MemStorage>,
    pub(crate) config: ServerConfig,
    /// Simulated time minus the adapter's clock (moved by "advance").
    offset_ms: i64,
    audit: SeededRng,
    /// Protobuf encodings of stored objects, shared by lists and watchers.
    pub(crate) proto_cache: std::sync::Arc<std::sync::Mutex<crate::proto::EncodingCache>>,
}

const JSON_ONLY: &str = "only the following media types are accepted: application/json";

impl Server {
    pub fn new(config: ServerConfig) -> Server {
        let registry = Registry::new(MemStorage::new(), config.seed, config.start_time);
        let audit = SeededRng::new(config.seed ^ 0xA0D1_7000);
        let mut s = Server { registry, config, offset_ms: 0, audit, proto_cache: Default::default() };
        s.bootstrap();
        s
    }

    /// The namespaces every cluster starts with.
    fn bootstrap(&mut self) {
        let ns = kinds::namespaces();
        for name in ["default", "kube-system", "kube-public", "kube-node-lease"] {
            let body = serde_json::to_vec(
                &json!({"metadata": {"name": name, "labels": {"kubernetes.io/metadata.name": name}}}),
            )
            .unwrap_or_default();
            let _ = self.registry.create(ns, "", &body, WriteOptions::default(), &mut Vec::new());
        }
    }

    pub fn now(&self) -> SimTime {
        self.registry.now
    }

    pub fn revision(&self) -> Revision {
        self.registry.storage.revision()
    }

    pub fn compacted(&self) -> Revision {
        self.registry.storage.compacted()
    }

    pub fn config(&self) -> &ServerConfig {
        &self.config
    }

    /// Moves simulated time to the adapter's clock (never backwards).
    pub fn sync_clock(&mut self, wall: SimTime) {
        let t = wall.plus_millis(self.offset_ms);
        if t > self.registry.now {
            self.registry.now = t;
        }
        self.compact_by_time();
    }

    /// Jumps simulated time forward.
    pub fn advance(&mut self, ms: i64) {
        let ms = ms.max(0);
        self.offset_ms = self.offset_ms.saturating_add(ms);
        self.registry.now = self.registry.now.plus_millis(ms);
        self.compact_by_time();
    }

    /// Compacts everything older than the history window.
    fn compact_by_time(&mut self) {
        let horizon = self.registry.now.plus_millis(-self.config.history_window_ms);
        if let Some(rev) = self.registry.storage.revision_at_time(horizon) {
            self.registry.storage.compact(rev);
        }
    }

    /// Compacts history up to `rev` (or the newest revision).
    pub fn compact(&mut self, rev: Option<Revision>) -> Revision {
        let rev = rev.unwrap_or_else(|| self.revision());
        self.registry.storage.compact(rev);
        self.compacted()
    }

    /// Serves a request; a watch is answered by polling its stream once and
    /// returning what it had (the stream as of now, closed).
    pub fn handle(&mut self, req: Request) -> Response {
        match self.serve(req) {
            Served::Response(r) => r,
            Served::Watch(mut head, mut stream) => {
                for e in self.poll_watch(&mut stream, usize::MAX) {
                    stream.write_event(&e, &mut head.body);
                }
                head
            }
        }
    }

    pub fn serve(&mut self, req: Request) -> Served {
        let mut served = self.route(&req);
        let audit_id = self.audit.uuid();
        let (Served::Response(r) | Served::Watch(r, _)) = &mut served;
        r.headers.push(("Audit-Id".into(), audit_id));
        r.headers.push(("Cache-Control".into(), "no-cache, private".into()));
        served
    }

    fn route(&mut self, req: &Request) -> Served {
        let query = Query::parse(&req.query);
        let route = self.resolve(&req.path);
        let resp = match route {
            Route::Text(t) => Response::text(200, t),
            Route::Version => Response::value(200, &discovery::version()),
            Route::OpenApiV2 => {
                const PROTO: &str = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf";
                let wanted = negotiation::parse_accept(req.header("Accept")).into_iter().find(|r| {
                    r.media_type == PROTO
                        || matches!(r.media_type.as_str(), "application/json" | "*/*" | "application/*")
                });
                match wanted {
                    // kube-openapi answers the protobuf form as octet-stream
                    // (the media type is not a valid MIME type).
                    Some(r) if r.media_type == PROTO => Response {
                        status: 200,
                        headers: vec![("Content-Type".into(), "application/octet-stream".into())],
                        body: openapi_v2_proto::encode(&openapi::v2()),
                    },
                    Some(_) => Response::value(200, &openapi::v2()),
                    None => Response::status(&Status::not_acceptable(format!(
                        "only the following media types are accepted: application/json, {PROTO}"
                    ))),
                }
            }
            Route::Value(v) => match negotiate_json(req) {
                Ok(()) => Response::value(200, &v),
                Err(s) => Response::status(&s),
            },
            Route::Aggregated(core) => {
                let chosen = negotiation::negotiate(req.header("Accept"), true);
                if chosen.is_none() {
                    Response::status(&Status::not_acceptable(JSON_ONLY))
                } else if chosen == Some(negotiation::Representation::AggregatedDiscoveryV2) {
                    let mut r = Response::value(200, &discovery::aggregated(core));
                    r.headers[0].1 = discovery::AGGREGATED_CONTENT_TYPE.into();
                    r
                } else if core {
                    let host = req.header("Host").unwrap_or("127.0.0.1:6443").to_string();
                    Response::value(200, &discovery::api_versions(&host))
                } else {
                    Response::value(200, &discovery::api_group_list())
                }
            }
            Route::Debug(what) => self.debug(req, &what, &query),
            Route::NotFoundPage => Response::text(404, "404 page not found\n"),
            Route::NotFoundStatus => {
                let mut s = Status::not_found("", "", "");
                s.message = "the server could not find the requested resource".into();
                s.details = Some(Default::default());
                Response::status(&s)
            }
            Route::Resource(target) => return self.resource_route(req, &query, target),
        };
        Served::Response(resp)
    }

    /// A resource request: negotiate the representation first (406 before
    /// any work), serve the verb, then render what it produced.
    fn resource_route(&mut self, req: &Request, query: &Query, target: Target) -> Served {
        let rt = target.rt;
        let accept = req.header("Accept");
        let watching = query.get("watch").is_some_and(|w| w == "true" || w == "1");
        let protobuf = crate::proto::has_protobuf(&rt.api_version(), rt.kind);
        let not_acceptable = || {
            Served::Response(Response::status(&Status::not_acceptable(negotiation::resource_not_acceptable(protobuf))))
        };
        let Some(output) = negotiation::negotiate_output(accept, watching, protobuf) else {
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
        let served = match self.resource(req, query, target, output) {
            Ok(served) => served,
            Err(s) => Served::Response(Response::status(&s)),
        };
        let rendering = represent::Rendering { rt, output, include, now: self.now() };
        match served {
            Served::Response(r) => Served::Response(represent::render(r, &rendering)),
            Served::Watch(mut head, mut stream) => {
                // A watch asked for without watch=true: negotiate its stream.
                let output =
                    if watching { Some(output) } else { negotiation::negotiate_output(accept, true, protobuf) };
                let Some(output) = output else { return not_acceptable() };
                stream.rendering = Some(represent::Rendering { output, ..rendering });
                if output.encoding == negotiation::Encoding::Protobuf {
                    stream.proto_cache = Some(self.proto_cache.clone());
                    for (k, v) in head.headers.iter_mut() {
                        if k.eq_ignore_ascii_case("Content-Type") {
                            *v = format!("{};stream=watch", negotiation::PROTOBUF);
                        }
                    }
                }
                Served::Watch(head, stream)
            }
        }
    }

    fn debug(&mut self, req: &Request, what: &str, q: &Query) -> Response {
        if what == "history" {
            return match req.method.as_str() {
                "GET" => self.debug_history(q),
                _ => Response::status(&Status::bad_request("the history endpoint is read with GET")),
            };
        }
        if req.method != "POST" {
            return Response::status(&Status::bad_request("debug endpoints take POST"));
        }
        match what {
            "clock" => {
                let Some(d) = q.get("advance") else {
                    return Response::status(&Status::bad_request("missing ?advance=DURATION (e.g. 5m)"));
                };
                let Some(ms) = parse_duration_millis(d) else {
                    return Response::status(&Status::bad_request(format!(
                        "invalid duration {d:?}: use e.g. 90s, 5m, 1h30m"
                    )));
                };
                self.advance(ms);
                Response::value(200, &self.debug_state())
            }
            "compact" => {
                let rev = match q.get("resourceVersion").filter(|s| !s.is_empty()) {
                    None => None,
                    Some(rv) => match rv.parse::<u64>() {
                        Ok(n) => Some(Revision(n)),
                        Err(_) => {
                            return Response::status(&Status::bad_request(format!("invalid resourceVersion {rv:?}")))
                        }
                    },
                };
                self.compact(rev);
                Response::value(200, &self.debug_state())
            }
            _ => Response::text(404, "404 page not found\n"),
        }
    }

    /// The write log as the storage layer sees it (like watching all of
    /// etcd's keyspace): one entry per revision after `after`, oldest first.
    /// History before the compaction horizon is gone; `from` says where the
    /// answer starts.
    fn debug_history(&self, q: &Query) -> Response {
        let after = match q.get("after").filter(|s| !s.is_empty()).map(str::parse::<u64>) {
            None => Revision(0),
            Some(Ok(n)) => Revision(n),
            Some(Err(_)) => {
                return Response::status(&Status::bad_request("invalid ?after: expected a revision number"))
            }
        };
        let limit = match q.get("limit").filter(|s| !s.is_empty()).map(str::parse::<usize>) {
            None => 1000,
            Some(Ok(n)) => n.clamp(1, 10_000),
            Some(Err(_)) => return Response::status(&Status::bad_request("invalid ?limit: expected a number")),
        };
        let storage = &self.registry.storage;
        let from = after.max(storage.compacted());
        let mut events = Vec::new();
        if let Ok(mut cursor) = storage.watch("/", from) {
            if let Ok(batch) = storage.poll(&mut cursor, limit) {
                for e in batch {
                    events.push(history_entry(e));
                }
            }
        }
        let mut state = self.debug_state();
        state["from"] = Value::String(from.to_string());
        state["events"] = Value::Array(events);
        Response::value(200, &state)
    }

    fn debug_state(&self) -> Value {
        json!({
            "now": self.now().rfc3339(),
            "revision": self.revision().to_string(),
            "compactedRevision": self.compacted().to_string(),
            "historyWindowSeconds": self.config.history_window_ms / 1000,
        })
    }

    fn resource(&mut self, req: &Request, q: &Query, t: Target, output: negotiation::Output) -> Result<Served, Status> {
        let rt = t.rt;
        let ns = t.namespace.clone().unwrap_or_default();
        if let Some(name) = &t.name {
            if !crate::api::meta::is_valid_path_segment(name) {
                return Err(Status::bad_request(format!("invalid resource name {name:?}: may not contain '/' or '%'")));
            }
        }
        let status_sub = match t.subresource.as_deref() {
            None => false,
            Some("status") if rt.status_subresource => true,
            Some("scale") if rt.scale_subresource && t.name.is_some() => false,
            Some(_) => {
                let mut s = Status::not_found("", "", "");
                s.message = "the server could not find the requested resource".into();
                s.details = Some(Default::default());
                return Err(s);
            }
        };
        let method = req.method.as_str();
        let write = !matches!(method, "GET" | "HEAD");
        let dry_run = if write { dry_run(method, &q.all("dryRun"))? } else { false };
        let field_validation =
            if write && method != "DELETE" { field_validation(method, q)? } else { Default::default() };
        let field_manager = match q.get("fieldManager").filter(|m| !m.is_empty()) {
            Some(m) => m.to_string(),
            None => crate::apply::manager_from_user_agent(req.header("User-Agent")),
        };
        let opts = WriteOptions { dry_run, field_validation, status: status_sub, field_manager, applied: false };
        let mut warnings: Warnings = Vec::new();
        if t.subresource.as_deref() == Some("scale") {
            let name = t.name.as_deref().unwrap_or("");
            let result = self.scale(req, rt, &ns, name, opts, &mut warnings)?;
            return Ok(Served::Response(with_warnings(result, warnings)));
        }
        let result = match (method, t.name.as_deref()) {
            ("GET", None) => {
                let opts = ListOptions::from_query(q)?;
                if opts.watch {
                    return self.start_watch(rt, t.namespace.as_deref(), None, opts);
                }
                if output.encoding == negotiation::Encoding::Protobuf && output.convert.is_none() {
                    return self.list_protobuf(rt, t.namespace.as_deref(), opts).map(Served::Response);
                }
                return self.list(rt, t.namespace.as_deref(), opts).map(Served::Response);
            }
            ("GET", Some(name)) => {
                let opts = ListOptions::from_query(q)?;
                if opts.watch {
                    return self.start_watch(rt, t.namespace.as_deref(), Some(name), opts);
                }
                let obj = self.registry.get(rt, &ns, name, opts.resource_version.as_deref())?;
                Response::json(200, obj.json.to_vec())
            }
            ("POST", None) => {
                let body = request_body(req, rt, &opts, &mut warnings)?;
                let body = self.registry.create(rt, &ns, &body, opts, &mut warnings)?;
                body_response(201, body)
            }
            ("PUT", Some(name)) => {
                let body = request_body(req, rt, &opts, &mut warnings)?;
                let (body, created) = self.registry.update(rt, &ns, name, &body, opts, &mut warnings)?;
                body_response(if created { 201 } else { 200 }, body)
            }
            ("PATCH", Some(name)) => self.patch(req, rt, &ns, name, opts, &mut warnings)?,
            ("DELETE", Some(name)) => {
                let opts = delete_options(q, &delete_body(req)?)?;
                body_response(200, self.registry.delete(rt, &ns, name, &opts)?)
            }
            ("DELETE", None) if rt.serves("deletecollection") => {
                self.delete_collection(rt, t.namespace.as_deref(), q, &delete_body(req)?)?
            }
            (m, _) => {
                let action = match m {
                    "POST" => "create",
                    "PUT" => "update",
                    "PATCH" => "patch",
                    _ => m,
                };
                return Err(Status::method_not_supported(rt.group, rt.resource, action));
            }
        };
        if write && !dry_run {
            self.registry.reconcile();
        }
        Ok(Served::Response(with_warnings(result, warnings)))
    }

    fn patch(
        &mut self,
        req: &Request,
        rt: &'static ResourceType,
        ns: &str,
        name: &str,
        opts: WriteOptions,
        warnings: &mut Warnings,
    ) -> Result<Response, Status> {
        let ct = media_type(req);
        let q = Query::parse(&req.query);
        if ct == "application/apply-patch+yaml" {
            return self.server_side_apply(req, &q, rt, ns, name, opts, warnings);
        }
        if q.get("force").is_some() {
            let err = FieldError::forbidden("force", "may not be specified for non-apply patch");
            return Err(Status::invalid("meta.k8s.io", "PatchOptions", "", &[err]));
        }
        let current = self.registry.get(rt, ns, name, None)?;
        let mut doc = current.value();
        match ct.as_str() {
            "application/merge-patch+json" => {
                let patch = decode_patch(req, rt, opts.field_validation, warnings)?;
                if !patch.is_object() {
                    return Err(Status::bad_request("error decoding patch: a merge patch must be a JSON object"));
                }
                json_patch::merge(&mut doc, &patch);
            }
            "application/json-patch+json" => {
                let patch: json_patch::Patch = serde_json::from_slice(&req.body)
                    .map_err(|e| Status::bad_request(format!("error decoding patch: {e}")))?;
                json_patch::patch(&mut doc, &patch).map_err(|_| json_patch_failed())?;
            }
            "application/strategic-merge-patch+json" => {
                let patch = decode_patch(req, rt, opts.field_validation, warnings)?;
                let schemas = crate::schema::schemas();
                let def = schemas.name_of(rt.group, rt.version, rt.kind).unwrap_or("");
                crate::patch::apply(schemas, def, &mut doc, &patch).map_err(|e| {
                    if e.bad_request {
                        Status::bad_request(e.message)
                    } else {
                        Status::internal_error(e.message)
                    }
                })?;
            }
            _ => {
                return Err(Status::unsupported_media_type(
                    "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml, application/strategic-merge-patch+json",
                ))
            }
        }
        // A patch applies on top of the current version: it carries its
        // resourceVersion unless the patch itself set one.
        let body = serde_json::to_vec(&doc).map_err(Status::internal_error)?;
        let (b, _) = self.registry.update(rt, ns, name, &body, opts, warnings)?;
        Ok(body_response(200, b))
    }
}

/// One write of the event log, named as a client would name the object.
fn history_entry(e: &crate::storage::Event) -> Value {
    let kind = match e.kind {
        crate::storage::EventKind::Created => "ADDED",
        crate::storage::EventKind::Updated => "MODIFIED",
        crate::storage::EventKind::Deleted => "DELETED",
    };
    // Keys are /group/resource/[namespace/]name.
    let parts: Vec<&str> = e.key.trim_start_matches('/').splitn(4, '/').collect();
    let (group, resource) = (parts.first().copied().unwrap_or(""), parts.get(1).copied().unwrap_or(""));
    let group = if group == "core" { "" } else { group };
    let rt = kinds::BUILTIN.iter().find(|rt| rt.group == group && rt.resource == resource);
    let (namespace, name) = match (rt.map(|rt| rt.namespaced), &parts[2.min(parts.len())..]) {
        (Some(true), [ns, rest @ ..]) => (*ns, rest.join("/")),
        (_, rest) => ("", rest.join("/")),
    };
    json!({
        "revision": e.revision.to_string(),
        "type": kind,
        "group": group,
        "version": rt.map(|rt| rt.version).unwrap_or(""),
        "resource": resource,
        "kind": rt.map(|rt| rt.kind).unwrap_or(""),
        "namespace": namespace,
        "name": name,
    })
}

impl Server {
    /// Server-side apply (`application/apply-patch+yaml`): the
    /// configuration merged into the live object (or creating it), with
    /// field ownership and conflicts.
    #[allow(clippy::too_many_arguments)]
    fn server_side_apply(
        &mut self,
        req: &Request,
        q: &Query,
        rt: &'static ResourceType,
        ns: &str,
        name: &str,
        opts: WriteOptions,
        warnings: &mut Warnings,
    ) -> Result<Response, Status> {
        if q.get("fieldManager").is_none_or(str::is_empty) {
            let err = FieldError::required("fieldManager", "is required for apply patch");
            return Err(Status::invalid("meta.k8s.io", "PatchOptions", "", &[err]));
        }
        let force = q.bool("force")?;
        let text =
            std::str::from_utf8(&req.body).map_err(|e| Status::bad_request(format!("error decoding YAML: {e}")))?;
        let (mut config, dups) = crate::schema::decode::decode_yaml_noting_duplicates(text)
            .map_err(|e| Status::bad_request(format!("error decoding YAML: {e}")))?;
        if !config.is_object() {
            return Err(Status::bad_request("error decoding YAML: the applied configuration must be an object"));
        }
        let api_version = rt.api_version();
        let (av, kind) = (
            config.get("apiVersion").and_then(Value::as_str).unwrap_or(""),
            config.get("kind").and_then(Value::as_str).unwrap_or(""),
        );
        if av != api_version || kind != rt.kind {
            return Err(Status::bad_request(format!(
                "the apply configuration must set apiVersion {api_version:?} and kind {:?} (got {av:?}, {kind:?})",
                rt.kind
            )));
        }
        let schemas = crate::schema::schemas();
        let def = schemas.name_of(rt.group, rt.version, rt.kind).unwrap_or("");
        if let Some(e) = schemas.first_type_error(def, &config) {
            return Err(crate::registry::store::cannot_handle(rt, &e));
        }
        let problems: Vec<String> = dups
            .iter()
            .map(|d| format!("duplicate field \"{d}\""))
            .chain(schemas.drop_unknown_fields(def, &mut config).into_iter().map(|u| format!("unknown field \"{u}\"")))
            .collect();
        crate::registry::store::field_problems(rt, opts.field_validation, problems, warnings)?;
        {
            let m = crate::api::meta::metadata_mut(&mut config);
            match m.get("name").and_then(Value::as_str) {
                Some(n) if n != name => {
                    return Err(Status::bad_request(format!(
                        "the name of the object ({n}) does not match the name on the URL ({name})"
                    )))
                }
                _ => {
                    m.insert("name".into(), json!(name));
                }
            }
            if rt.namespaced {
                m.insert("namespace".into(), json!(ns));
            }
        }
        let live = match self.registry.get(rt, ns, name, None) {
            Ok(o) => Some(o.value()),
            Err(s) if s.is_not_found() => None,
            Err(s) => return Err(s),
        };
        let now = self.now().rfc3339();
        let writer = crate::apply::Writer {
            definition: def,
            api_version,
            manager: &opts.field_manager,
            subresource: "",
            has_status_subresource: rt.status_subresource,
            now: &now,
        };
        let result = crate::apply::apply(&writer, live.as_ref(), &config, force)?;
        let body = serde_json::to_vec(&result).map_err(Status::internal_error)?;
        let opts = WriteOptions { applied: true, ..opts };
        match live {
            None => Ok(body_response(201, self.registry.create(rt, ns, &body, opts, warnings)?)),
            Some(_) => {
                let (b, _) = self.registry.update(rt, ns, name, &body, opts, warnings)?;
                Ok(body_response(200, b))
            }
        }
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

fn body_response(code: u16, body: Body) -> Response {
    match body {
        Body::Object(o) => Response::json(code, o.json.to_vec()),
        Body::Value(v) => Response::value(code, &v),
        Body::Status(s) => Response::json(code, s.to_json()),
    }
}

/// A DELETE's body as JSON: Go clients that speak protobuf send their
/// DeleteOptions as a protobuf message.
fn delete_body(req: &Request) -> Result<std::borrow::Cow<'_, [u8]>, Status> {
    if media_type(req) == negotiation::PROTOBUF && !req.body.is_empty() {
        let v = crate::proto::decode_object(&req.body).map_err(Status::bad_request)?;
        return Ok(std::borrow::Cow::Owned(serde_json::to_vec(&v).map_err(Status::internal_error)?));
    }
    Ok(std::borrow::Cow::Borrowed(&req.body))
}

pub(crate) fn delete_options(q: &Query, body: &[u8]) -> Result<DeleteOptions, Status> {
    let mut o = DeleteOptions {
        propagation_policy: q.get("propagationPolicy").filter(|s| !s.is_empty()).map(str::to_string),
        orphan_dependents: q.opt_bool("orphanDependents")?,
        grace_period_seconds: q.int("gracePeriodSeconds")?,
        dry_run: dry_run("DELETE", &q.all("dryRun"))?,
        ..Default::default()
    };
    if !body.iter().all(u8::is_ascii_whitespace) {
        let v: Value = serde_json::from_slice(body)
            .map_err(|e| Status::bad_request(format!("couldn't get version/kind; json parse error: {e}")))?;
        if let Some(p) = v.get("propagationPolicy").and_then(Value::as_str) {
            o.propagation_policy = Some(p.to_string());
        }
        if let Some(b) = v.get("orphanDependents").and_then(Value::as_bool) {
            o.orphan_dependents = Some(b);
        }
        if let Some(g) = v.get("gracePeriodSeconds").and_then(Value::as_i64) {
            o.grace_period_seconds = Some(g);
        }
        if let Some(d) = v.get("dryRun").and_then(Value::as_array) {
            let values: Vec<&str> = d.iter().filter_map(Value::as_str).collect();
            o.dry_run |= dry_run("DELETE", &values)?;
        }
        if let Some(p) = v.get("preconditions") {
            o.precondition_uid = p.get("uid").and_then(Value::as_str).map(str::to_string);
            o.precondition_rv = p.get("resourceVersion").and_then(Value::as_str).map(str::to_string);
        }
    }
    Ok(o)
}

/// The `dryRun` values of a write: none, or `All` (upstream validates them
/// with the verb's options kind and answers 422).
fn dry_run(method: &str, values: &[&str]) -> Result<bool, Status> {
    let values: Vec<&str> = values.iter().copied().filter(|v| !v.is_empty()).collect();
    if values.iter().all(|v| *v == "All") {
        return Ok(!values.is_empty());
    }
    let kind = match method {
        "POST" => "CreateOptions",
        "PUT" => "UpdateOptions",
        "PATCH" => "PatchOptions",
        _ => "DeleteOptions",
    };
    Err(Status::invalid("meta.k8s.io", kind, "", &[FieldError::not_supported_list("dryRun", &values, &["All"])]))
}

/// The request body's media type, without parameters.
pub(crate) fn media_type(req: &Request) -> String {
    req.header("Content-Type").unwrap_or("").split(';').next().unwrap_or("").trim().to_string()
}

/// A JSON patch that cannot be applied (a failed `test`, a missing path):
/// upstream answers with a generic 422 that does not say which operation.
pub(crate) fn json_patch_failed() -> Status {
    let mut s =
        Status::failure(422, "Invalid", "the server rejected our request due to an error in our request".into());
    s.details = Some(Default::default());
    s
}

/// A JSON patch document (merge or strategic), its duplicate fields dealt
/// with per `fieldValidation`.
fn decode_patch(
    req: &Request,
    rt: &ResourceType,
    fv: FieldValidation,
    warnings: &mut Warnings,
) -> Result<Value, Status> {
    let (patch, dups) = crate::schema::decode::decode_noting_duplicates(&req.body)
        .map_err(|e| Status::bad_request(format!("error decoding patch: {e}")))?;
    let dups = dups.iter().map(|d| format!("duplicate field \"{d}\"")).collect();
    crate::registry::store::field_problems(rt, fv, dups, warnings)?;
    Ok(patch)
}

/// `fieldValidation`: absent or empty is the server's default (Warn).
fn field_validation(method: &str, q: &Query) -> Result<FieldValidation, Status> {
    match q.get("fieldValidation").unwrap_or("") {
        "" | "Warn" => Ok(FieldValidation::Warn),
        "Ignore" => Ok(FieldValidation::Ignore),
        "Strict" => Ok(FieldValidation::Strict),
        other => {
            let kind = match method {
                "POST" => "CreateOptions",
                "PUT" => "UpdateOptions",
                _ => "PatchOptions",
            };
            let err = FieldError::not_supported("fieldValidation", other, &["", "Ignore", "Strict", "Warn"]);
            Err(Status::invalid("meta.k8s.io", kind, "", &[err]))
        }
    }
}

fn with_warnings(mut r: Response, warnings: Warnings) -> Response {
    for w in warnings {
        r.headers.push(("Warning".into(), warning_header(&w)));
    }
    r
}

/// A `Warning` header value (RFC 7234 style, code 299, as upstream sends).
fn warning_header(text: &str) -> String {
    let escaped = text.replace('\\', "\\\\").replace('"', "\\\"");
    format!("299 - \"{escaped}\"")
}

/// A create or update body as JSON: JSON as sent, YAML converted (its
/// duplicate keys dealt with per `fieldValidation`); anything else is 415.
fn request_body(
    req: &Request,
    rt: &ResourceType,
    opts: &WriteOptions,
    warnings: &mut Warnings,
) -> Result<Vec<u8>, Status> {
    let media = media_type(req);
    match media.as_str() {
        "" | "application/json" | "*/*" => Ok(req.body.clone()),
        "application/yaml" => {
            let text = std::str::from_utf8(&req.body)
                .map_err(|e| Status::bad_request(format!("couldn't get version/kind; yaml parse error: {e}")))?;
            let (v, dups) = crate::schema::decode::decode_yaml_noting_duplicates(text)
                .map_err(|e| Status::bad_request(format!("couldn't get version/kind; yaml parse error: {e}")))?;
            let dups = dups.iter().map(|d| format!("duplicate field \"{d}\"")).collect();
            crate::registry::store::field_problems(rt, opts.field_validation, dups, warnings)?;
            serde_json::to_vec(&v).map_err(Status::internal_error)
        }
        negotiation::PROTOBUF if crate::proto::has_protobuf(&rt.api_version(), rt.kind) => {
            let v = crate::proto::decode_object(&req.body).map_err(Status::bad_request)?;
            serde_json::to_vec(&v).map_err(Status::internal_error)
        }
        other => {
            let protobuf = if crate::proto::has_protobuf(&rt.api_version(), rt.kind) {
                format!(", {}", negotiation::PROTOBUF)
            } else {
                String::new()
            };
            Err(Status::unsupported_media_type(format!(
                "the body of the request was in an unknown format - accepted media types include: application/json, application/yaml{protobuf} (got {other:?})"
            )))
        }
    }
}

/// Whether the request accepts plain JSON (the one representation served
/// for resources today).
fn negotiate_json(req: &Request) -> Result<(), Status> {
    match negotiation::negotiate(req.header("Accept"), false) {
        Some(_) => Ok(()),
        None => Err(Status::not_acceptable(JSON_ONLY)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
