//! The gate in front of the core: a request is identified, classified and
//! handed to API Priority and Fairness' dispatcher (`crate::flowcontrol`)
//! before it is authorized and served, as upstream's filter chain runs.
//!
//! A caller that can wait (the native door) takes `gate`'s answer: run now,
//! wait until the dispatcher lets it start, or answered already (refused).
//! `serve` is the caller that cannot wait: a request that would have to
//! queue is given up at once and refused, and its seats are released as
//! soon as it is answered.

use std::sync::Arc;

use serde_json::Value;

use super::apf::Classification;
use super::{HeaderText, Request, Response, Served, Server};
use crate::auth::{Attributes, UserInfo};
use crate::flowcontrol::{Arrive, Decision, Details, Tag, TicketState, Width};

/// Upstream's work estimator: one seat per 100 objects a list goes
/// through; one final seat per 10 watchers a write notifies, each held
/// 5 ms after the write.
const OBJECTS_PER_SEAT: u64 = 100;
const WATCHES_PER_SEAT: u64 = 10;
const EVENT_ADDITIONAL_NANOS: u64 = 5_000_000;

/// A request past the gate, to be served (or refused) later.
pub struct Pending {
    req: Request,
    who: Result<(Arc<UserInfo>, bool), Response>,
    /// (Shared with the dispatcher's record of the request.)
    attrs: Arc<Attributes>,
    flow: Option<Arc<Classification>>,
    /// When it arrived, on the dispatcher's clock.
    arrived: u64,
    /// When the dispatcher let it start, if at once (the same moment).
    started: Option<u64>,
    /// Its place in the dispatcher (None: not dispatched, e.g. exempt from
    /// the gate or refused before it).
    pub ticket: Option<u64>,
}

/// What the gate says.
pub enum Gated {
    /// Serve it now (`serve_gated`), then `apf_finish` its ticket.
    Run(Pending),
    /// It waits in a queue: serve it when `apf_state` says Executing,
    /// answer `apf_refusal` when it says Rejected.
    Wait(Pending),
    /// Answered already.
    Done(Served),
}

/// Upstream's long-running requests: watch and proxy verbs, and the
/// attach, exec, proxy, log and portforward subresources.
fn long_running(a: &Attributes) -> bool {
    a.resource_request
        && (matches!(a.verb.as_str(), "watch" | "proxy")
            || matches!(a.subresource.as_str(), "attach" | "exec" | "proxy" | "log" | "portforward"))
}

/// Upstream's writes, for the in-flight limits and their watermarks:
/// every verb but get, list and watch.
fn mutating(a: &Attributes) -> bool {
    !matches!(a.verb.as_str(), "get" | "list" | "watch")
}

/// Marks the slots the in-flight limits hand out (API Priority and Fairness
/// off), so that they never meet the dispatcher's tickets.
const SLOT: u64 = 1 << 63;

/// APF's 429 (and the in-flight limits'): plain text, with how long to wait.
fn too_many_requests(retry_after: u32) -> Response {
    Response {
        status: 429,
        headers: vec![
            ("Content-Type".into(), "text/plain; charset=utf-8".into()),
            ("X-Content-Type-Options".into(), "nosniff".into()),
            ("Retry-After".into(), retry_after.to_string().into()),
        ],
        body: b"Too many requests, please try again later.\n".to_vec(),
    }
}

impl Server {
    /// The dispatcher's time: the door's clock when it installed one, else
    /// simulated time (in nanoseconds).
    pub(super) fn apf_now(&self) -> u64 {
        match &self.apf_clock {
            Some(clock) => clock(),
            None => (self.now().0.max(0) as u64).saturating_mul(1_000_000),
        }
    }

    /// Gives the dispatcher a clock of its own (nanoseconds, monotonic):
    /// the native door's real time, so requests wait and hold seats in
    /// real time.
    pub fn set_apf_clock(&mut self, clock: Box<dyn Fn() -> u64 + Send>) {
        self.apf_clock = Some(clock);
    }

    /// Identifies and classifies a request, and dispatches it.
    pub fn gate(&mut self, req: Request) -> Gated {
        self.refresh_rbac();
        let attrs = Arc::new(crate::auth::attributes(&req.method, &req.path, &req.query));
        let who = self.identify(&req);
        // (One reading of the clock for the whole gate: the steps below
        // happen at the same moment.)
        let arrived = self.apf_now();
        let mut p = Pending { req, who, attrs, flow: None, arrived, started: None, ticket: None };
        let Ok((user, _)) = &p.who else { return Gated::Run(p) };
        if !self.config.apf {
            return self.max_in_flight(p);
        }
        if long_running(&p.attrs) && p.attrs.verb != "watch" {
            return Gated::Run(p);
        }
        p.flow = self.apf.config.classify(user, &p.attrs);
        let Some(flow) = &p.flow else { return Gated::Run(p) };
        let width = self.estimate_width(&p.req, &p.attrs, arrived);
        self.metrics.estimated(&flow.series, &flow.flow_schema, &flow.priority_level, width.max_seats());
        let arrive = Arrive {
            level: flow.priority_level.clone(),
            flow_schema: flow.flow_schema.clone(),
            flow: flow.flow.clone(),
            flow_hash: Some(flow.flow_hash),
            details: Details { user: flow.user.clone(), request: p.attrs.clone() },
            width,
            tag: Tag::new(flow.series.clone()),
        };
        let (ticket, decision) = self.apf.dispatcher.arrive(arrived, arrive);
        self.record_apf_events();
        p.ticket = Some(ticket);
        match decision {
            Decision::Execute => {
                p.started = Some(arrived);
                Gated::Run(p)
            }
            Decision::Wait => Gated::Wait(p),
            Decision::Reject { retry_after, .. } => Gated::Done(self.refuse(&p, retry_after)),
        }
    }

    /// API Priority and Fairness off: upstream's in-flight limits instead
    /// (`--max-requests-inflight` for gets, lists and watches,
    /// `--max-mutating-requests-inflight` for the rest; 0 is no limit).
    /// Long-running requests are not counted. A request over its limit is
    /// refused with a 429 and `Retry-After: 1`, unless its user is in
    /// `system:masters`, which is always answered (uncounted). A slot is
    /// held until the answer is sent, as a dispatched request's seats are.
    fn max_in_flight(&mut self, mut p: Pending) -> Gated {
        let mutating = mutating(&p.attrs);
        let limit =
            if mutating { self.config.max_mutating_requests_inflight } else { self.config.max_requests_inflight };
        if limit == 0 || long_running(&p.attrs) {
            return Gated::Run(p);
        }
        if self.metrics.in_flight(mutating) < limit {
            let slot = SLOT | self.next_slot;
            self.next_slot = (self.next_slot + 1) & !SLOT;
            self.executing.insert(slot, mutating);
            self.metrics.executing(mutating, true, p.arrived as i64 / 1_000_000_000);
            p.ticket = Some(slot);
            return Gated::Run(p);
        }
        let Ok((user, _)) = &p.who else { return Gated::Run(p) };
        if user.groups.iter().any(|g| g == "system:masters") {
            return Gated::Run(p);
        }
        Gated::Done(self.refuse(&p, 1))
    }

    /// "Too many requests": counted as dropped, then answered as every
    /// request is (`conclude`).
    fn refuse(&mut self, p: &Pending, retry_after: u32) -> Served {
        self.metrics.dropped(mutating(&p.attrs));
        self.conclude(p, Served::Response(too_many_requests(retry_after)))
    }

    /// Serves a request the gate let through: authorization, then the
    /// route, then the after-request upkeep and the common headers.
    pub fn serve_gated(&mut self, mut p: Pending) -> Served {
        if let Some(t) = p.ticket.filter(|t| !self.executing.contains_key(t)) {
            let mutating = mutating(&p.attrs);
            self.executing.insert(t, mutating);
            let second = p.started.unwrap_or_else(|| self.apf_now()) as i64 / 1_000_000_000;
            self.metrics.executing(mutating, true, second);
        }
        let served = match &mut p.who {
            Ok((user, trusted)) => match self.admit(user, *trusted, &p.attrs) {
                Ok(()) => {
                    // The user acts for the route, lent rather than copied
                    // (a copy was ~10 allocations a request).
                    std::mem::swap(&mut self.acting, user);
                    self.acting_trusted = *trusted;
                    let served = self.route(&p.req);
                    std::mem::swap(&mut self.acting, user);
                    served
                }
                Err(refused) => Served::Response(refused),
            },
            Err(refused) => Served::Response(refused.clone()),
        };
        self.conclude(&p, served)
    }

    /// The answer to a request whose wait ended in refusal.
    pub fn apf_refusal(&mut self, p: Pending) -> Served {
        let retry_after = match p.ticket.and_then(|t| self.apf.dispatcher.state(t).cloned()) {
            Some(TicketState::Rejected { retry_after, .. }) => retry_after,
            _ => 1,
        };
        if let Some(t) = p.ticket {
            self.apf.dispatcher.forget(t);
        }
        self.refuse(&p, retry_after)
    }

    /// The after-request upkeep, the headers every answer carries, and the
    /// request's count.
    fn conclude(&mut self, p: &Pending, mut served: Served) -> Served {
        // The apiserver's own controllers for custom resources.
        self.registry.sync_custom_resources();
        self.maintain_apf();
        let audit_id = self.audit.uuid();
        let (Served::Response(r) | Served::Watch(r, _) | Served::Log(r, _)) = &mut served;
        r.headers.reserve(4);
        r.headers.push(("Audit-Id".into(), audit_id.into()));
        r.headers.push(("Cache-Control".into(), "no-cache, private".into()));
        if let Some(c) = &p.flow {
            r.headers.push(("X-Kubernetes-Pf-Flowschema-Uid".into(), HeaderText::Shared(c.flow_schema_uid.clone())));
            r.headers
                .push(("X-Kubernetes-Pf-Prioritylevel-Uid".into(), HeaderText::Shared(c.priority_level_uid.clone())));
        }
        let content_type = p.req.header("Content-Type").unwrap_or("");
        let seconds = self.apf_now().saturating_sub(p.arrived) as f64 / 1e9;
        self.metrics.record(&p.req.method, &p.req.query, content_type, &p.attrs, r.status, seconds);
        served
    }

    /// A dispatched request finished; says whether its final seats stay
    /// held a little longer (then `apf_advance` must run when they are due).
    pub fn apf_finish(&mut self, ticket: u64, at: u64) -> bool {
        self.finish_ticket(ticket, true, Some(at));
        self.apf.dispatcher.holding()
    }

    /// Ends a request's execution, now or (`at`, on the dispatcher's
    /// clock) when its answer was sent.
    fn finish_ticket(&mut self, ticket: u64, hold: bool, at: Option<u64>) {
        let now = at.unwrap_or_else(|| self.apf_now());
        if let Some(mutating) = self.executing.remove(&ticket) {
            self.metrics.executing(mutating, false, now as i64 / 1_000_000_000);
        }
        if ticket & SLOT != 0 {
            return;
        }
        self.apf.dispatcher.finish(now, ticket, hold);
        self.record_apf_events();
    }

    /// The client stopped waiting.
    pub fn apf_cancel(&mut self, ticket: u64) {
        let now = self.apf_now();
        self.apf.dispatcher.cancel(now, ticket);
        self.record_apf_events();
    }

    /// Where a dispatched request stands (None: finished or unknown).
    pub fn apf_state(&self, ticket: u64) -> Option<TicketState> {
        self.apf.dispatcher.state(ticket).cloned()
    }

    /// Lets the dispatcher's time pass (held seats released, long waits
    /// timed out); returns when it next needs to, on its clock.
    pub fn apf_advance(&mut self) -> Option<u64> {
        let now = self.apf_now();
        self.apf.dispatcher.advance(now);
        self.record_apf_events();
        self.apf.dispatcher.next_due()
    }

    /// The dispatcher: its levels, queues and seats, for views.
    pub fn apf_dispatcher(&self) -> &crate::flowcontrol::Dispatcher {
        &self.apf.dispatcher
    }

    /// The dispatcher's clock now (to sleep until `apf_advance`'s answer).
    pub fn apf_clock_now(&self) -> u64 {
        self.apf_now()
    }

    /// `/debug/api_priority_and_fairness/dump_*`, as of now.
    pub(super) fn apf_dump(&mut self, what: &str, query: &str) -> Response {
        let now = self.apf_now();
        self.apf.dispatcher.advance(now);
        self.record_apf_events();
        let d = &self.apf.dispatcher;
        let text = match what {
            "dump_priority_levels" => d.dump_priority_levels(),
            "dump_queues" => d.dump_queues(),
            _ => {
                let details = form_urlencoded::parse(query.as_bytes())
                    .any(|(k, v)| k == "includeRequestDetails" && !v.is_empty());
                // The dispatcher's clock, read as the simulated wall clock.
                let wall_now = self.now().0.saturating_mul(1_000_000);
                d.dump_requests(details, |t| wall_now - (now.saturating_sub(t)).min(i64::MAX as u64) as i64)
            }
        };
        Response {
            status: 200,
            headers: crate::server::typed_headers("text/plain; charset=utf-8"),
            body: text.into_bytes(),
        }
    }

    fn record_apf_events(&mut self) {
        let dispatcher = &mut self.apf.dispatcher;
        let metrics = &self.metrics;
        dispatcher.drain_events(|e| metrics.flowcontrol(e));
    }

    /// Serves a request at once: a caller that cannot wait gives up a
    /// request that would queue (refused with 429), and releases its seats
    /// as soon as it is answered.
    pub fn serve(&mut self, req: Request) -> Served {
        match self.gate(req) {
            Gated::Done(served) => served,
            Gated::Run(p) => {
                let ticket = p.ticket;
                let served = self.serve_gated(p);
                if let Some(t) = ticket {
                    self.finish_ticket(t, false, None);
                }
                served
            }
            Gated::Wait(p) => {
                if let Some(t) = p.ticket {
                    self.apf_cancel(t);
                }
                self.refuse(&p, 1)
            }
        }
    }

    /// How many objects of a resource are stored, as upstream's object
    /// count tracker knows it: counted again when a minute (on the
    /// dispatcher's clock) has passed since the last count.
    fn stored_count(&mut self, group: &str, version: &str, resource: &str, now: u64) -> Option<i64> {
        const REFRESH: u64 = 60_000_000_000;
        if let Some((n, at)) = self.object_count_cache.get(group).and_then(|by| by.get(resource)) {
            if now.saturating_sub(*at) < REFRESH {
                return Some(*n);
            }
        }
        let rt = self.registry.resources().lookup(group, version, resource).cloned()?;
        let n = self.count_stored(&rt)?;
        self.object_count_cache.entry(group.to_string()).or_default().insert(resource.to_string(), (n, now));
        Some(n)
    }

    /// Seats for a request, as upstream's work estimator guesses them.
    fn estimate_width(&mut self, req: &Request, a: &Attributes, now: u64) -> Width {
        if !a.resource_request {
            return Width::default();
        }
        match a.verb.as_str() {
            "list" => Width { initial: self.list_seats(req, a, now), ..Width::default() },
            "watch" => {
                // A watch costs like a list while it sends its initial
                // events (no resourceVersion, or sendInitialEvents=true).
                let q: Vec<(String, String)> = form_urlencoded::parse(req.query.as_bytes()).into_owned().collect();
                let rv = q.iter().find(|(k, _)| k == "resourceVersion").map(|(_, v)| v.as_str());
                let initial_events = q.iter().any(|(k, v)| k == "sendInitialEvents" && v == "true");
                if initial_events || rv.is_none_or(str::is_empty) {
                    Width { initial: self.list_seats(req, a, now), ..Width::default() }
                } else {
                    Width::default()
                }
            }
            "create" | "update" | "patch" | "delete" => {
                // (Upstream adds no final seats below ten watchers.)
                let watchers = self.watcher_count(&a.api_group, &a.resource, &a.namespace, &a.name);
                if watchers < WATCHES_PER_SEAT {
                    return Width::default();
                }
                let final_seats = watchers.div_ceil(WATCHES_PER_SEAT);
                Width {
                    initial: 1,
                    final_seats: final_seats.min(u64::from(u32::MAX)) as u32,
                    additional_latency: EVENT_ADDITIONAL_NANOS,
                }
            }
            _ => Width::default(),
        }
    }

    /// A list's seats: the objects it goes through, 100 a seat.
    fn list_seats(&mut self, req: &Request, a: &Attributes, now: u64) -> u32 {
        let Some(stored) = self.stored_count(&a.api_group, &a.api_version, &a.resource, now) else { return 1 };
        // (The first of each parameter counts, as a lookup would find it.)
        let (mut limit, mut rv0, mut label, mut field) = (None, None, None, None);
        for (k, v) in form_urlencoded::parse(req.query.as_bytes()) {
            match &*k {
                "limit" => _ = limit.get_or_insert_with(|| v.parse::<i64>().ok()),
                "resourceVersion" => _ = rv0.get_or_insert(v == "0"),
                "labelSelector" => _ = label.get_or_insert(!v.is_empty()),
                "fieldSelector" => _ = field.get_or_insert(!v.is_empty()),
                _ => {}
            }
        }
        let limit = limit.flatten().filter(|l| *l > 0 && *l < stored).unwrap_or(stored);
        let from_cache = a.verb == "watch" || rv0 == Some(true);
        let objects = if from_cache {
            stored
        } else if label == Some(true) || field == Some(true) {
            stored + limit
        } else {
            2 * limit
        };
        ((objects.max(0) as u64).div_ceil(OBJECTS_PER_SEAT)).clamp(1, u64::from(u32::MAX)) as u32
    }
}

/// A PriorityLevelConfiguration as the dispatcher reads it.
pub(super) fn level_spec(pl: &Value) -> crate::flowcontrol::LevelSpec {
    let int = |ptr: &str| pl.pointer(ptr).and_then(Value::as_u64).map(|n| n.min(u64::from(u32::MAX)) as u32);
    let exempt = pl.pointer("/spec/type").and_then(Value::as_str) == Some("Exempt");
    let base = if exempt { "/spec/exempt" } else { "/spec/limited" };
    let queuing = (!exempt && pl.pointer("/spec/limited/limitResponse/type").and_then(Value::as_str) == Some("Queue"))
        .then(|| crate::flowcontrol::Queuing {
            queues: int("/spec/limited/limitResponse/queuing/queues").unwrap_or(64).max(1),
            hand_size: int("/spec/limited/limitResponse/queuing/handSize").unwrap_or(8).max(1),
            queue_length_limit: int("/spec/limited/limitResponse/queuing/queueLengthLimit").unwrap_or(50),
        });
    crate::flowcontrol::LevelSpec {
        name: pl.pointer("/metadata/name").and_then(Value::as_str).unwrap_or("").to_string(),
        uid: pl.pointer("/metadata/uid").and_then(Value::as_str).unwrap_or("").to_string(),
        exempt,
        shares: int(&format!("{base}/nominalConcurrencyShares")).unwrap_or(if exempt { 0 } else { 30 }),
        lendable_percent: int(&format!("{base}/lendablePercent")).unwrap_or(0),
        borrowing_limit_percent: if exempt { None } else { int("/spec/limited/borrowingLimitPercent") },
        queuing,
    }
}

/// A flow of a load scenario as the page describes it: who sends what, how
/// often, and how costly.
#[derive(Clone, Debug, PartialEq)]
pub struct LoadFlow {
    pub name: String,
    pub user: String,
    pub groups: Vec<String>,
    pub namespace: String,
    pub verb: String,
    pub resource: String,
    /// Requests per second.
    pub rate: f64,
    /// Milliseconds each executes.
    pub cost_ms: u64,
    pub seats: u32,
}

/// A scenario's flows as classified, and how they fared.
#[derive(Clone, Debug, PartialEq)]
pub struct LoadRun {
    /// Per flow: (FlowSchema, priority level, flow distinguisher), or
    /// None when nothing classifies it (APF off).
    pub classified: Vec<Option<(String, String, String)>>,
    pub report: crate::flowcontrol::scenario::Report,
}

impl Server {
    /// Runs a load scenario on simulated time against the server's current
    /// FlowSchemas and priority levels (a fresh copy of them: the cluster's
    /// own requests are not disturbed).
    pub fn apf_scenario(&self, flows: &[LoadFlow], duration_ms: u64, frame_ms: u64) -> LoadRun {
        let mut classified = Vec::new();
        let mut run = Vec::new();
        for f in flows {
            let mut groups: Vec<&str> = f.groups.iter().map(String::as_str).collect();
            if !groups.contains(&"system:authenticated") {
                groups.push("system:authenticated");
            }
            let user = UserInfo::new(&f.user, &groups);
            let path = if f.namespace.is_empty() {
                format!("/api/v1/{}", f.resource)
            } else {
                format!("/api/v1/namespaces/{}/{}", f.namespace, f.resource)
            };
            let attrs = Attributes {
                verb: f.verb.clone(),
                resource_request: true,
                api_version: "v1".into(),
                namespace: f.namespace.clone(),
                resource: f.resource.clone(),
                path,
                ..Default::default()
            };
            let c = if self.config.apf { self.apf.config.classify(&user, &attrs) } else { None };
            classified.push(
                c.as_ref().map(|c| (c.flow_schema.to_string(), c.priority_level.to_string(), c.flow.to_string())),
            );
            let Some(c) = c else { continue };
            run.push(crate::flowcontrol::scenario::Flow {
                name: f.name.clone(),
                level: c.priority_level.clone(),
                flow_schema: c.flow_schema.clone(),
                distinguisher: c.flow.to_string(),
                rate: f.rate,
                cost_ms: f.cost_ms,
                seats: f.seats,
            });
        }
        let report = crate::flowcontrol::scenario::run(&self.apf.dispatcher, &run, duration_ms, frame_ms);
        LoadRun { classified, report }
    }
}
