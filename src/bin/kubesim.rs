//! The native door: HTTP <-> `Request`/`Response`, chunked watch streams, a
//! lock around the core, panic -> 500 Status. No API semantics live here.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use http_body_util::{combinators::BoxBody, BodyExt, Full, Limited, StreamBody};
use hyper::body::{Frame, Incoming};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use kubesim::api::Status;
use kubesim::clock::{parse_duration_millis, SimTime};
use kubesim::controllers::{Config, Controllers};
use kubesim::flowcontrol::TicketState;
use kubesim::network;
use kubesim::server::dispatch::{Gated, Pending};
use kubesim::server::{
    guard_panics, guard_poll, HeaderText, Request, Response, Served, Server, ServerConfig, WatchStream,
};
use tokio::net::TcpListener;
use tokio::sync::{mpsc, Notify, OwnedSemaphorePermit, Semaphore};

/// The core allocates and frees many small JSON nodes per request; mimalloc
/// does that about a third faster than glibc's malloc (BENCHMARKS.md).
#[global_allocator]
static ALLOCATOR: kubesim::alloc::Allocator = kubesim::alloc::Allocator;

/// Upstream's limit on request bodies (3 MiB).
const MAX_BODY: usize = 3 * 1024 * 1024;

/// kube-apiserver's limit on a request's line and headers (Go's
/// `MaxHeaderBytes` of 1 MiB, plus the 4 KiB of slack Go's server allows).
/// A longer head is answered 431. (The request line alone is limited to
/// 64 KiB by the `http` crate's URIs, answered 414.)
const MAX_HEADER_BYTES: usize = (1 << 20) + 4096;

struct Shared {
    /// The built browser app (Trunk's dist/), served under /ui/.
    ui: Option<std::path::PathBuf>,
    server: Mutex<Server>,
    /// The cluster's own clients, settled after every write (always locked
    /// after `server`).
    controllers: Mutex<Controllers>,
    /// Woken after every request that may have written.
    written: Notify,
    /// Woken when API Priority and Fairness' dispatcher may have let a
    /// waiting request start, or refused it.
    apf_moved: Notify,
    /// Woken when the dispatcher has something new to time (a seat held
    /// for a while, a request waiting, seats to give back).
    apf_changed: Notify,
    /// Requests answered whose seats are not given back yet, each with
    /// when it was (on the dispatcher's clock): given back by the next
    /// holder of the core, which every request at the gate is.
    finished: Mutex<Vec<(u64, u64)>>,
    /// The list `finished` is swapped with when its seats are given back
    /// (kept, so that answering a request allocates nothing for it).
    spare: Mutex<Vec<(u64, u64)>>,
    /// Requests waiting for a seat: only while there are some does an
    /// answered request see that its seats are given back at once.
    waiting: AtomicUsize,
    /// The dispatcher's clock's origin (the server reads the same one).
    started: Instant,
}

impl Shared {
    /// The dispatcher's clock now.
    fn apf_now(&self) -> u64 {
        nanos_since(self.started)
    }
}

/// The door's clock for API Priority and Fairness: nanoseconds since it
/// started (the server and the door read the same one).
fn nanos_since(started: Instant) -> u64 {
    started.elapsed().as_nanos().min(u128::from(u64::MAX)) as u64
}

/// A dispatched request's seats, given back when its answer has been sent
/// (or the client went away).
struct Seats {
    shared: Arc<Shared>,
    ticket: u64,
}

impl Drop for Seats {
    fn drop(&mut self) {
        let now = self.shared.apf_now();
        self.shared.finished.lock().unwrap_or_else(|p| p.into_inner()).push((self.ticket, now));
        // The next request at the gate gives them back before it is
        // dispatched. A request already waiting may be let in by them:
        // then they are given back at once when the core is free, else by
        // whoever holds it next (the upkeep, woken here). An answered
        // request never waits for the core.
        if self.shared.waiting.load(Ordering::SeqCst) == 0 {
            return;
        }
        match self.shared.server.try_lock() {
            Ok(mut server) => settle_finished(&self.shared, &mut server),
            Err(std::sync::TryLockError::Poisoned(p)) => settle_finished(&self.shared, &mut p.into_inner()),
            Err(std::sync::TryLockError::WouldBlock) => self.shared.apf_changed.notify_one(),
        }
    }
}

/// Gives the dispatcher back the seats of requests answered since the last
/// call, and wakes what that may have let start.
fn settle_finished(shared: &Shared, server: &mut Server) {
    let mut done = std::mem::take(&mut *shared.spare.lock().unwrap_or_else(|p| p.into_inner()));
    std::mem::swap(&mut done, &mut *shared.finished.lock().unwrap_or_else(|p| p.into_inner()));
    if done.is_empty() {
        *shared.spare.lock().unwrap_or_else(|p| p.into_inner()) = done;
        return;
    }
    // (Every one is finished: no short-circuit.)
    let held = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let mut held = false;
        for (t, at) in &done {
            held |= server.apf_finish(*t, *at);
        }
        held
    }));
    done.clear();
    *shared.spare.lock().unwrap_or_else(|p| p.into_inner()) = done;
    shared.apf_moved.notify_waiters();
    // Seats held a while longer: the upkeep must release them in time.
    if held.unwrap_or(true) {
        shared.apf_changed.notify_one();
    }
}

/// A request waiting in a queue; a client that goes away gives its place
/// up.
struct Queued {
    shared: Arc<Shared>,
    ticket: Option<u64>,
}

impl Drop for Queued {
    fn drop(&mut self) {
        self.shared.waiting.fetch_sub(1, Ordering::SeqCst);
        if let Some(t) = self.ticket.take() {
            let mut server = self.shared.lock();
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| server.apf_cancel(t)));
            drop(server);
            self.shared.apf_moved.notify_waiters();
        }
    }
}

/// A response body that holds the request's seats (or in-flight slot)
/// until it is sent. It is handed to hyper a piece at a time: hyper asks
/// for the next piece only when its own buffer has room (about a
/// megabyte), so a large answer to a client that reads slowly keeps its
/// seats while it is being written, as a handler writing to a Go
/// `ResponseWriter` does. (Given whole, hyper would take it at once and
/// the seats would come back before the client had read anything.)
struct Holding {
    data: Bytes,
    _seats: Seats,
}

/// The pieces `Holding` hands over (slices of one buffer: nothing copied).
const PIECE: usize = 64 * 1024;

impl hyper::body::Body for Holding {
    type Data = Bytes;
    type Error = Infallible;
    fn poll_frame(
        self: std::pin::Pin<&mut Self>,
        _: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        let this = self.get_mut();
        if this.data.is_empty() {
            return std::task::Poll::Ready(None);
        }
        let piece = this.data.split_to(this.data.len().min(PIECE));
        std::task::Poll::Ready(Some(Ok(Frame::data(piece))))
    }
    fn is_end_stream(&self) -> bool {
        self.data.is_empty()
    }
    fn size_hint(&self) -> hyper::body::SizeHint {
        hyper::body::SizeHint::with_exact(self.data.len() as u64)
    }
}

fn wall() -> SimTime {
    SimTime(SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as i64).unwrap_or(0))
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Server> {
        let mut g = self.server.lock().unwrap_or_else(|p| p.into_inner());
        g.sync_clock(wall());
        g
    }
}

type Body = BoxBody<Bytes, Infallible>;

fn full(b: Vec<u8>) -> Body {
    Full::new(Bytes::from(b)).boxed()
}

/// The names the core's answers carry on every request, known without
/// parsing them (HTTP/1 sends names in lower case either way).
fn known_header(name: &str) -> Option<hyper::header::HeaderName> {
    use hyper::header::{HeaderName, CACHE_CONTROL, CONTENT_TYPE};
    // (Constants: checked when compiled, not per answer.)
    const AUDIT_ID: HeaderName = HeaderName::from_static("audit-id");
    const FLOW_SCHEMA: HeaderName = HeaderName::from_static("x-kubernetes-pf-flowschema-uid");
    const PRIORITY_LEVEL: HeaderName = HeaderName::from_static("x-kubernetes-pf-prioritylevel-uid");
    Some(match name {
        "Content-Type" => CONTENT_TYPE,
        "Cache-Control" => CACHE_CONTROL,
        "Audit-Id" => AUDIT_ID,
        "X-Kubernetes-Pf-Flowschema-Uid" => FLOW_SCHEMA,
        "X-Kubernetes-Pf-Prioritylevel-Uid" => PRIORITY_LEVEL,
        _ => return None,
    })
}

/// A header value the core shares between answers (the uids of the
/// FlowSchema and priority level a request was classified into), made once
/// and then shared with the answers that have it: cloning a kept value is
/// cheaper than checking and wrapping the bytes again. A few are kept per
/// thread, known by the shared text's address (kept alive with them); the
/// oldest goes first.
fn shared_value(text: &std::sync::Arc<str>) -> Result<hyper::header::HeaderValue, hyper::header::InvalidHeaderValue> {
    use hyper::header::HeaderValue;
    use std::cell::RefCell;
    use std::sync::Arc;
    const KEPT: usize = 16;
    thread_local! {
        static KEPT_VALUES: RefCell<std::collections::VecDeque<(Arc<str>, HeaderValue)>> = const {
            RefCell::new(std::collections::VecDeque::new())
        };
    }
    KEPT_VALUES.with_borrow_mut(|kept| {
        if let Some((_, value)) = kept.iter().find(|(kept, _)| Arc::ptr_eq(kept, text)) {
            return Ok(value.clone());
        }
        let value = HeaderValue::try_from(&**text)?;
        if kept.len() >= KEPT {
            kept.pop_front();
        }
        kept.push_back((text.clone(), value.clone()));
        Ok(value)
    })
}

fn to_http(resp: Response, body: Body) -> hyper::Response<Body> {
    use hyper::header::{HeaderName, HeaderValue};
    let mut out = hyper::Response::new(body);
    let Ok(status) = hyper::StatusCode::from_u16(resp.status) else {
        return hyper::Response::new(full(Vec::new()));
    };
    *out.status_mut() = status;
    // (Straight into the answer's map, not through a builder that moves
    // itself at every header.)
    let headers = out.headers_mut();
    headers.reserve(resp.headers.len());
    for (k, v) in resp.headers {
        if k.eq_ignore_ascii_case("Transfer-Encoding") {
            continue; // hyper chunks a streaming body by itself
        }
        let name = match known_header(&k) {
            Some(name) => name,
            None => match HeaderName::from_bytes(k.as_bytes()) {
                Ok(name) => name,
                Err(_) => return hyper::Response::new(full(Vec::new())),
            },
        };
        // (The value's bytes are moved, not copied; a value the core
        // shares between answers is shared here too.)
        let value = match v {
            HeaderText::Own(text) => HeaderValue::try_from(text),
            HeaderText::Shared(text) => shared_value(&text),
            // A constant: its bytes are not copied (checked first, as
            // `from_static` panics on a byte a header value cannot hold).
            HeaderText::Static(text) if text.bytes().all(|b| b == b'\t' || (b' '..=b'~').contains(&b)) => {
                Ok(HeaderValue::from_static(text))
            }
            HeaderText::Static(text) => HeaderValue::try_from(text),
        };
        match value {
            Ok(value) => headers.append(name, value),
            Err(_) => return hyper::Response::new(full(Vec::new())),
        };
    }
    out
}

fn status_response(s: &Status) -> hyper::Response<Body> {
    let r = Response::status(s);
    let body = r.body.clone();
    to_http(r, full(body))
}

/// The browser app's files. Only names inside the directory are served
/// (no `..`); `/ui/` is index.html.
fn serve_ui(dir: &std::path::Path, method: &str, path: &str) -> hyper::Response<Body> {
    let plain = |code: u16, text: &str| {
        hyper::Response::builder()
            .status(code)
            .header("Content-Type", "text/plain; charset=utf-8")
            .body(full(text.as_bytes().to_vec()))
            .unwrap_or_else(|_| hyper::Response::new(full(Vec::new())))
    };
    if method != "GET" && method != "HEAD" {
        return plain(405, "405 method not allowed\n");
    }
    if path == "/ui" {
        return hyper::Response::builder()
            .status(301)
            .header("Location", "/ui/")
            .body(full(Vec::new()))
            .unwrap_or_else(|_| hyper::Response::new(full(Vec::new())));
    }
    let rel = path.trim_start_matches("/ui/");
    let rel = if rel.is_empty() { "index.html" } else { rel };
    if rel.split('/').any(|seg| seg.is_empty() || seg == ".." || seg == "." || seg.contains('\\')) {
        return plain(404, "404 page not found\n");
    }
    let file = dir.join(rel);
    let Ok(bytes) = std::fs::read(&file) else { return plain(404, "404 page not found\n") };
    let content_type = match file.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "html" => "text/html; charset=utf-8",
        "js" => "text/javascript; charset=utf-8",
        "wasm" => "application/wasm",
        "css" => "text/css; charset=utf-8",
        "svg" => "image/svg+xml",
        "json" => "application/json",
        // The lessons, fetched by the page.
        "yaml" => "application/yaml; charset=utf-8",
        // The docs the page links to, readable as they are.
        "md" => "text/plain; charset=utf-8",
        "png" => "image/png",
        _ => "application/octet-stream",
    };
    let body = if method == "HEAD" { Vec::new() } else { bytes };
    hyper::Response::builder()
        .status(200)
        .header("Content-Type", content_type)
        .header("Cache-Control", "no-cache")
        .body(full(body))
        .unwrap_or_else(|_| hyper::Response::new(full(Vec::new())))
}

async fn handle(shared: Arc<Shared>, req: hyper::Request<Incoming>) -> Result<hyper::Response<Body>, Infallible> {
    let method = req.method().as_str().to_string();
    let path = req.uri().path().to_string();
    if let Some(dir) = &shared.ui {
        if path == "/ui" || path.starts_with("/ui/") {
            return Ok(serve_ui(dir, &method, &path));
        }
    }
    let query = req.uri().query().unwrap_or("").to_string();
    let headers: Vec<(String, String)> = req
        .headers()
        .iter()
        .map(|(k, v)| (k.as_str().to_string(), String::from_utf8_lossy(v.as_bytes()).into_owned()))
        .collect();
    let body = match Limited::new(req.into_body(), MAX_BODY).collect().await {
        Ok(b) => b.to_bytes().to_vec(),
        Err(e) if e.downcast_ref::<http_body_util::LengthLimitError>().is_some() => {
            return Ok(status_response(&Status::request_entity_too_large(format!("limit is {MAX_BODY}"))));
        }
        Err(e) => return Ok(status_response(&Status::bad_request(format!("error reading the request body: {e}")))),
    };
    let request = Request { method: method.clone(), path, query, headers, body, user: None };
    // API Priority and Fairness first: the request runs now, waits for a
    // seat (without holding the core), or is refused.
    // A request that may run now is served under the same lock.
    let waiting = {
        let mut server = shared.lock();
        settle_finished(&shared, &mut server);
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| server.gate(request))) {
            Ok(Gated::Done(served)) => {
                drop(server);
                return Ok(respond(&shared, served, None));
            }
            Ok(Gated::Run(p)) => {
                let (served, seats) = serve_now(&shared, &mut server, p, &method);
                drop(server);
                return Ok(finish_write(&shared, served, seats, &method));
            }
            Ok(Gated::Wait(p)) => p,
            Err(_) => {
                drop(server);
                let s = Status::internal_error("the simulator panicked while serving this request");
                return Ok(status_response(&s));
            }
        }
    };
    let pending = match wait_for_seat(&shared, waiting).await {
        Ok(p) => p,
        Err(served) => return Ok(respond(&shared, served, None)),
    };
    let (served, seats) = {
        let mut server = shared.lock();
        serve_now(&shared, &mut server, pending, &method)
    };
    Ok(finish_write(&shared, served, seats, &method))
}

/// Serves a request the dispatcher let start, then settles the controllers
/// after a write; its seats go with the answer.
fn serve_now(shared: &Arc<Shared>, server: &mut Server, pending: Pending, method: &str) -> (Served, Option<Seats>) {
    let seats = pending.ticket.map(|ticket| Seats { shared: shared.clone(), ticket });
    let served = guard_panics(|| server.serve_gated(pending));
    if method != "GET" && method != "HEAD" {
        let mut controllers = shared.controllers.lock().unwrap_or_else(|p| p.into_inner());
        // A controller that panics must not take the door down; what
        // it wrote before stays, and the next write runs it again.
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| controllers.settle(server)));
    }
    (served, seats)
}

/// Wakes the streams after a write, and answers.
fn finish_write(shared: &Arc<Shared>, served: Served, seats: Option<Seats>, method: &str) -> hyper::Response<Body> {
    if method != "GET" && method != "HEAD" {
        shared.written.notify_waiters();
    }
    respond(shared, served, seats)
}

/// Waits (without holding the core) until the dispatcher lets the request
/// start, or refuses it.
async fn wait_for_seat(shared: &Arc<Shared>, p: Pending) -> Result<Pending, Served> {
    let mut queued = Queued { shared: shared.clone(), ticket: p.ticket };
    shared.waiting.fetch_add(1, Ordering::SeqCst);
    shared.apf_changed.notify_one();
    loop {
        let moved = shared.apf_moved.notified();
        tokio::pin!(moved);
        moved.as_mut().enable();
        let state = p.ticket.and_then(|t| shared.lock().apf_state(t));
        match state {
            Some(TicketState::Waiting) => moved.await,
            Some(TicketState::Rejected { .. }) => {
                queued.ticket = None;
                let mut server = shared.lock();
                return Err(guard_panics(|| server.apf_refusal(p)));
            }
            Some(TicketState::Executing) | None => {
                queued.ticket = None;
                return Ok(p);
            }
        }
    }
}

/// The HTTP answer; a plain response keeps its seats until it is sent, a
/// watch or a followed log gives them back once it has started (upstream
/// counts only a watch's initialization).
fn respond(shared: &Arc<Shared>, served: Served, seats: Option<Seats>) -> hyper::Response<Body> {
    match served {
        Served::Response(mut r) => {
            let data = std::mem::take(&mut r.body);
            match seats {
                Some(seats) => to_http(r, Holding { data: Bytes::from(data), _seats: seats }.boxed()),
                None => to_http(r, full(data)),
            }
        }
        Served::Watch(head, stream) => {
            let (tx, rx) = mpsc::channel::<Result<Frame<Bytes>, Infallible>>(16);
            tokio::spawn(pump_watch(shared.clone(), stream, tx, seats));
            let body = StreamBody::new(tokio_stream::wrappers::ReceiverStream::new(rx)).boxed();
            to_http(head, body)
        }
        Served::Log(mut head, follow) => {
            drop(seats);
            let (tx, rx) = mpsc::channel::<Result<Frame<Bytes>, Infallible>>(16);
            let first = std::mem::take(&mut head.body);
            tokio::spawn(pump_log(shared.clone(), first, follow, tx));
            let body = StreamBody::new(tokio_stream::wrappers::ReceiverStream::new(rx)).boxed();
            to_http(head, body)
        }
    }
}

/// The dispatcher's time-driven work, on the door's real clock: seats held
/// after a write are released and requests that waited too long are
/// refused when their time comes.
async fn apf_upkeep(shared: Arc<Shared>) {
    loop {
        let changed = shared.apf_changed.notified();
        tokio::pin!(changed);
        changed.as_mut().enable();
        let (due, now) = {
            let mut server = shared.lock();
            settle_finished(&shared, &mut server);
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| (server.apf_advance(), server.apf_clock_now())))
                .unwrap_or((None, 0))
        };
        shared.apf_moved.notify_waiters();
        let wait = due.map_or(Duration::from_secs(1), |d| Duration::from_nanos(d.saturating_sub(now)));
        tokio::select! {
            _ = &mut changed => {}
            _ = tokio::time::sleep(wait.min(Duration::from_secs(1))) => {}
        }
    }
}

/// Feeds a followed container's output to the client as simulated time
/// passes (one flushed chunk per poll, every 250 ms or on a write), until
/// the container stops or the client goes away, as the kubelet's
/// `containerLogs?follow=true` does through the API server.
async fn pump_log(
    shared: Arc<Shared>,
    first: Vec<u8>,
    mut follow: kubesim::server::logs::LogFollow,
    tx: mpsc::Sender<Result<Frame<Bytes>, Infallible>>,
) {
    if !first.is_empty() && tx.send(Ok(Frame::data(Bytes::from(first)))).await.is_err() {
        return;
    }
    loop {
        let notified = shared.written.notified();
        tokio::pin!(notified);
        notified.as_mut().enable();
        let chunk = {
            let mut server = shared.lock();
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| server.poll_log(&mut follow)))
        };
        // A bug while reading ends the stream (what was sent stays sent).
        let Ok(chunk) = chunk else { return };
        if !chunk.is_empty() && tx.send(Ok(Frame::data(Bytes::from(chunk)))).await.is_err() {
            return;
        }
        if follow.is_done() {
            return;
        }
        tokio::select! {
            _ = &mut notified => {}
            _ = tokio::time::sleep(Duration::from_millis(250)) => {}
            _ = tx.closed() => return,
        }
    }
}

/// Feeds a watch's events to the client, one flushed chunk per batch, until
/// the stream ends or the client goes away.
/// The watch's seats are held until its initial events have been handed
/// over (a poll that leaves nothing behind), as upstream counts a watch's
/// initialization.
async fn pump_watch(
    shared: Arc<Shared>,
    mut stream: WatchStream,
    tx: mpsc::Sender<Result<Frame<Bytes>, Infallible>>,
    mut seats: Option<Seats>,
) {
    const BATCH: usize = 1000;
    loop {
        let notified = shared.written.notified();
        tokio::pin!(notified);
        notified.as_mut().enable();
        let (events, done) = {
            let mut server = shared.lock();
            // A failure while polling ends the stream with an ERROR event
            // carrying its Status, never a silent close.
            let events = guard_poll(&mut stream, |st| server.poll_watch(st, BATCH));
            (events, stream.is_done())
        };
        if !events.is_empty() {
            let mut buf = Vec::new();
            for e in &events {
                stream.write_event(e, &mut buf);
            }
            if tx.send(Ok(Frame::data(Bytes::from(buf)))).await.is_err() {
                return;
            }
        }
        if events.len() < BATCH {
            seats.take();
        }
        if done {
            return;
        }
        if events.is_empty() {
            tokio::select! {
                _ = &mut notified => {}
                _ = tokio::time::sleep(Duration::from_millis(500)) => {}
                _ = tx.closed() => return,
            }
        }
    }
}

fn kubeconfig(addr: SocketAddr) -> String {
    format!(
        "apiVersion: v1\nkind: Config\nclusters:\n- cluster:\n    server: http://{addr}\n  name: kubesim\ncontexts:\n- context:\n    cluster: kubesim\n    namespace: default\n    user: kubesim\n  name: kubesim\ncurrent-context: kubesim\nusers:\n- name: kubesim\n  user: {{}}\n"
    )
}

struct Args {
    listen: String,
    kubeconfig: String,
    seed: u64,
    window_ms: i64,
    ui: Option<String>,
    controllers: String,
    starter: bool,
    services: kubesim::network::ServiceRanges,
    pods: kubesim::network::PodRanges,
    tokens: Option<std::collections::BTreeMap<String, kubesim::auth::UserInfo>>,
    rbac: bool,
    apf: bool,
    inflight: (u32, u32),
    metrics: kubesim::server::metrics::MetricsOptions,
    /// How long a client may take to send a request's line and headers
    /// (upstream's `ReadHeaderTimeout`: 32 s); also how long an idle
    /// keep-alive connection is kept.
    read_header_timeout_ms: i64,
    /// Connections served at once; more wait to be accepted.
    max_connections: usize,
}

const USAGE: &str =
    "usage: kubesim serve [--listen 127.0.0.1:6443] [--kubeconfig PATH] [--seed N] [--history-window 5m] [--ui DIR] [--controllers all|none|LIST] [--starter default|none]
                     [--service-cluster-ip-range 10.96.0.0/12] [--service-node-port-range 30000-32767]
                     [--cluster-cidr 10.244.0.0/16] [--node-cidr-mask-size 24]
                     [--token-auth-file FILE] [--authorization-mode AlwaysAllow|RBAC]
                     [--enable-priority-and-fairness=true|false] [--max-requests-inflight 400]
                     [--max-mutating-requests-inflight 200] [--show-hidden-metrics-for-version 1.32]
                     [--disabled-metrics NAME,...] [--allow-metric-labels METRIC,LABEL=V1,V2]
                     [--read-header-timeout 32s] [--max-connections 4096]
  --ui DIR  serve the built browser app (trunk build's dist/) at /ui/; default: ./dist when it holds index.html
  --controllers  which of the cluster's controllers run (clients of the API): all (default), none, or a
                 comma-separated list of nodeipam, namespace, garbage-collector, deployment,
                 replicaset, daemonset, statefulset, job, cronjob, disruption,
                 horizontal-pod-autoscaler, taint-eviction-controller, resourcequota, root-ca-cert-publisher, serviceaccount,
                 clusterrole-aggregation, persistentvolume-binder, pvc-protection, pv-protection,
                 local-path-provisioner, endpoint, endpointslice, scheduler, kubelet
  --starter      default: start with the browser app's starter cluster (three nodes, CoreDNS, the
                 kubernetes Service, the default StorageClass standard, a Deployment hello and the counter pod); none: only the four namespaces every cluster has
  --service-cluster-ip-range, --service-node-port-range  where Services' cluster IPs and node ports
                 come from (kube-apiserver's flags; IPv4 only, /12 to /28)
  --cluster-cidr, --node-cidr-mask-size  the Pod range the nodeipam controller cuts into node ranges
                 (kube-controller-manager's flags)
  --token-auth-file  kube-apiserver's static tokens (token,user,uid,\"group,...\"): a bearer token
                 names its user, an unknown one is refused (401), none is anonymous; without
                 it every client is the administrator (system:masters)
  --authorization-mode  AlwaysAllow (default) or RBAC: Roles, ClusterRoles and their bindings
                 decide (the bootstrap roles are created at start)
  --enable-priority-and-fairness  classify every request by FlowSchema (default true); false: no
                 classification and no X-Kubernetes-Pf-* headers, the in-flight limits instead (the
                 objects are still served)
  --max-requests-inflight, --max-mutating-requests-inflight  together, the seats API Priority and
                 Fairness shares among the priority levels (kube-apiserver's defaults: 400 and 200);
                 with it off, the reads and the writes each may have in flight (0: no limit)
  --show-hidden-metrics-for-version 1.32  /metrics shows the deprecated (hidden) metrics again
  --disabled-metrics  metrics /metrics leaves out (comma-separated names; may repeat)
  --allow-metric-labels  METRIC,LABEL=V1,V2: any other value of that label is reported as
                 \"unexpected\" (may repeat)
  --read-header-timeout  how long a client may take to send a request's line and headers before its
                 connection is closed, and how long an idle keep-alive connection is kept (default
                 32s, kube-apiserver's ReadHeaderTimeout; kubesim's own flag)
  --max-connections  connections served at once (default 4096; kubesim's own flag): more wait in
                 the listen backlog until one closes
  Flags take their value as --flag value or --flag=value.";

fn parse_args() -> Result<Args, String> {
    let mut it = std::env::args().skip(1);
    match it.next().as_deref() {
        Some("serve") => {}
        Some("--help") | Some("-h") | None => return Err(USAGE.into()),
        Some(other) => return Err(format!("unknown command {other:?}\n{USAGE}")),
    }
    let mut a = Args {
        listen: "127.0.0.1:6443".into(),
        kubeconfig: "kubesim.kubeconfig".into(),
        seed: 1,
        window_ms: 300_000,
        ui: None,
        controllers: "all".into(),
        starter: true,
        services: Default::default(),
        pods: Default::default(),
        tokens: None,
        rbac: false,
        apf: true,
        inflight: (400, 200),
        metrics: Default::default(),
        read_header_timeout_ms: 32_000,
        max_connections: 4096,
    };
    while let Some(raw) = it.next() {
        // `--flag value` or `--flag=value`, as kube-apiserver's flags take them.
        let (flag, inline) = match raw.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
            _ => (raw, None),
        };
        let inline_bool = inline.clone();
        let mut val = || match inline.clone() {
            Some(v) => Ok(v),
            None => it.next().ok_or_else(|| format!("{flag} needs a value\n{USAGE}")),
        };
        match flag.as_str() {
            "--enable-priority-and-fairness" => {
                a.apf = match inline_bool.as_deref() {
                    None | Some("true") => true,
                    Some("false") => false,
                    Some(other) => {
                        return Err(format!("--enable-priority-and-fairness takes true or false, not {other:?}"))
                    }
                }
            }
            "--max-requests-inflight" | "--max-mutating-requests-inflight" => {
                let v = val()?;
                let n: u32 = v.parse().map_err(|_| format!("{flag} takes a whole number, not {v:?}"))?;
                if flag == "--max-requests-inflight" {
                    a.inflight.0 = n;
                } else {
                    a.inflight.1 = n;
                }
            }
            "--show-hidden-metrics-for-version" => a.metrics.show_hidden_for(&val()?)?,
            "--disabled-metrics" => a
                .metrics
                .disabled
                .extend(val()?.split(',').map(str::trim).filter(|n| !n.is_empty()).map(str::to_string)),
            "--allow-metric-labels" => a.metrics.allow_labels(&val()?)?,
            "--listen" => a.listen = val()?,
            "--kubeconfig" => a.kubeconfig = val()?,
            "--ui" => a.ui = Some(val()?),
            "--controllers" => a.controllers = val()?,
            "--starter" => {
                a.starter = match val()?.as_str() {
                    "default" => true,
                    "none" => false,
                    other => return Err(format!("--starter takes default or none, not {other:?}")),
                }
            }
            "--service-cluster-ip-range" => {
                a.services.cluster_ips = network::parse_cidr(&flag, &val()?, 12, 28)?;
            }
            "--service-node-port-range" => a.services.node_ports = network::parse_port_range(&val()?)?,
            "--cluster-cidr" => a.pods.cluster_cidr = network::parse_cidr(&flag, &val()?, 8, 28)?,
            "--node-cidr-mask-size" => {
                a.pods.node_mask = val()?
                    .parse()
                    .ok()
                    .filter(|m| (8..=30).contains(m))
                    .ok_or("--node-cidr-mask-size takes 8 to 30")?;
            }
            "--seed" => a.seed = val()?.parse().map_err(|_| "--seed takes a number".to_string())?,
            "--token-auth-file" => {
                let path = val()?;
                let text = std::fs::read_to_string(&path).map_err(|e| format!("--token-auth-file {path}: {e}"))?;
                a.tokens =
                    Some(kubesim::auth::parse_token_file(&text).map_err(|e| format!("--token-auth-file {path}: {e}"))?);
            }
            "--authorization-mode" => {
                a.rbac = match val()?.as_str() {
                    "AlwaysAllow" => false,
                    "RBAC" => true,
                    other => return Err(format!("--authorization-mode takes AlwaysAllow or RBAC, not {other:?}")),
                }
            }
            "--history-window" => {
                let v = val()?;
                a.window_ms = parse_duration_millis(&v).ok_or_else(|| format!("invalid duration {v:?}"))?
            }
            "--max-connections" => {
                let v = val()?;
                a.max_connections = v
                    .parse()
                    .ok()
                    .filter(|n| *n > 0)
                    .ok_or_else(|| format!("--max-connections takes a positive number, not {v:?}"))?
            }
            "--read-header-timeout" => {
                let v = val()?;
                a.read_header_timeout_ms =
                    parse_duration_millis(&v).filter(|ms| *ms > 0).ok_or_else(|| format!("invalid duration {v:?}"))?
            }
            other => return Err(format!("unknown flag {other:?}\n{USAGE}")),
        }
    }
    let (cluster, node) = (a.pods.cluster_cidr.prefix_len(), a.pods.node_mask);
    if node < cluster || node - cluster > 16 {
        return Err(format!(
            "--node-cidr-mask-size {node} must be at least the --cluster-cidr's /{cluster} and at most 16 more"
        ));
    }
    Ok(a)
}

#[tokio::main]
async fn main() {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let listener = match TcpListener::bind(&args.listen).await {
        Ok(l) => l,
        Err(e) => {
            eprintln!("kubesim: cannot listen on {}: {e}", args.listen);
            std::process::exit(1);
        }
    };
    let addr = listener.local_addr().unwrap_or_else(|_| SocketAddr::from(([127, 0, 0, 1], 6443)));
    let config = ServerConfig {
        seed: args.seed,
        start_time: wall(),
        history_window_ms: args.window_ms,
        services: args.services.clone(),
        tokens: args.tokens.clone(),
        rbac: args.rbac,
        apf: args.apf,
        max_requests_inflight: args.inflight.0,
        max_mutating_requests_inflight: args.inflight.1,
        metrics: args.metrics.clone(),
        ..Default::default()
    };
    let ui = match &args.ui {
        Some(dir) if !std::path::Path::new(dir).join("index.html").is_file() => {
            eprintln!(
                "kubesim: --ui {dir}: no index.html there (build the app with `trunk build index.html --release`)"
            );
            std::process::exit(2);
        }
        Some(dir) => Some(std::path::PathBuf::from(dir)),
        None => Some(std::path::PathBuf::from("dist")).filter(|d| d.join("index.html").is_file()),
    };
    let ui_note = ui.as_ref().map(|_| format!("kubesim: the browser app is at http://{addr}/ui/"));
    let mut controllers = match Controllers::parse(&args.controllers, &Config { pod_ranges: args.pods.clone() }) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("kubesim: --controllers: {e}");
            std::process::exit(2);
        }
    };
    let mut server = Server::new(config);
    // `POST /debug/kubesim/clock?advance=` passes as time would: the
    // controllers stop at every time one waits for on the way.
    server.step_jumps(true);
    server.set_components(controllers.components());
    let started = Instant::now();
    server.set_apf_clock(Box::new(move || nanos_since(started)));
    if args.starter {
        for req in kubesim::starter::requests(&args.services, server.now()) {
            server.handle(req.with_header("User-Agent", "kubesim/starter"));
            controllers.settle(&mut server);
        }
    }
    // The controllers start with the server, as kube-controller-manager's
    // do: each namespace's `default` account and root CA are there before
    // the first request.
    controllers.settle(&mut server);
    let shared = Arc::new(Shared {
        ui,
        server: Mutex::new(server),
        controllers: Mutex::new(controllers),
        written: Notify::new(),
        apf_moved: Notify::new(),
        apf_changed: Notify::new(),
        finished: Mutex::new(Vec::new()),
        spare: Mutex::new(Vec::new()),
        waiting: AtomicUsize::new(0),
        started,
    });
    tokio::spawn(apf_upkeep(shared.clone()));
    if let Err(e) = std::fs::write(&args.kubeconfig, kubeconfig(addr)) {
        eprintln!("kubesim: cannot write kubeconfig {}: {e}", args.kubeconfig);
    }
    let kubeconfig_path = std::fs::canonicalize(&args.kubeconfig)
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| args.kubeconfig.clone());
    println!("kubesim: serving the Kubernetes API on http://{addr}");
    println!("kubesim: point kubectl at it with:  export KUBECONFIG={kubeconfig_path}");
    println!("kubesim: then try:  kubectl get namespaces");
    if let Some(note) = ui_note {
        println!("{note}");
    }
    // Simulated time follows the wall clock here: a controller waiting for
    // a time (a kubelet for a grace period to end) is run when it comes.
    {
        let shared = shared.clone();
        tokio::spawn(async move {
            let mut every = tokio::time::interval(Duration::from_millis(250));
            loop {
                every.tick().await;
                let ticked = {
                    let mut server = shared.lock();
                    let mut controllers = shared.controllers.lock().unwrap_or_else(|p| p.into_inner());
                    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| controllers.tick(&mut server)))
                        .unwrap_or(false)
                };
                if ticked {
                    shared.written.notify_waiters();
                }
            }
        });
    }
    let header_timeout = Duration::from_millis(args.read_header_timeout_ms.unsigned_abs());
    let connections = Arc::new(Semaphore::new(args.max_connections));
    loop {
        tokio::select! {
            (tcp, permit) = accept(&listener, &connections) => {
                let shared = shared.clone();
                tokio::spawn(async move {
                    let _permit = permit;
                    let svc = service_fn(move |req| handle(shared.clone(), req));
                    let _ = http1::Builder::new()
                        .timer(TokioTimer::new())
                        .header_read_timeout(header_timeout)
                        .max_header_size(MAX_HEADER_BYTES)
                        .max_buf_size(MAX_HEADER_BYTES)
                        .serve_connection(TokioIo::new(tcp), svc)
                        .await;
                });
            }
            _ = shutdown_signal() => {
                println!("kubesim: shutting down");
                return;
            }
        }
    }
}

/// The next connection, once fewer than `--max-connections` are open (the
/// rest wait in the listen backlog). A failed accept (out of file
/// descriptors, say) is retried after a pause that doubles from 5 ms up to
/// 1 s, as Go's server does, rather than at once in a busy loop.
async fn accept(listener: &TcpListener, connections: &Arc<Semaphore>) -> (tokio::net::TcpStream, OwnedSemaphorePermit) {
    let permit = match connections.clone().acquire_owned().await {
        Ok(p) => p,
        // Never closed; if it were, wait for shutdown instead.
        Err(_) => std::future::pending().await,
    };
    let mut pause = Duration::from_millis(5);
    loop {
        match listener.accept().await {
            Ok((tcp, _)) => return (tcp, permit),
            Err(e) => {
                eprintln!("kubesim: accept: {e}; retrying in {pause:?}");
                tokio::time::sleep(pause).await;
                pause = (pause * 2).min(Duration::from_secs(1));
            }
        }
    }
}

async fn shutdown_signal() {
    #[cfg(unix)]
    {
        let mut term = match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(s) => s,
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
                return;
            }
        };
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}
