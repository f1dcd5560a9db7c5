//! `/metrics`: what kube-apiserver's instrumentation counts, in the
//! Prometheus text format (0.0.4) its client library writes, each help
//! text led by the metric's stability level as Kubernetes' component-base
//! writes it. Kept per server (tests run many); the object counts are
//! read at scrape time, as upstream's storage check reads them.

use crate::sort::Order;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::OnceLock;

use prometheus::core::Collector;
use prometheus::proto::MetricFamily;
use prometheus::{
    Encoder, GaugeVec, Histogram, HistogramOpts, HistogramVec, IntCounter, IntCounterVec, IntGaugeVec, Opts, Registry,
    TextEncoder,
};

use crate::auth::Attributes;
use crate::flowcontrol::{Dispatcher, Event, Name, Tag};
use crate::registry::options::ListOptions;
use crate::registry::StorageSize;

pub(super) const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8; escaping=underscores";

/// kube-apiserver's metric flags, as component-base reads them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MetricsOptions {
    /// `--show-hidden-metrics-for-version`: deprecated metrics shown again.
    pub show_hidden: bool,
    /// `--disabled-metrics`: never registered.
    pub disabled: BTreeSet<String>,
    /// `--allow-metric-labels`: (metric, label) → the values kept (any
    /// other is reported as `unexpected`).
    pub allowed_labels: BTreeMap<(String, String), BTreeSet<String>>,
}

/// The only version `--show-hidden-metrics-for-version` takes: the minor
/// before the server's (1.33).
pub const PREVIOUS_MINOR: &str = "1.32";

impl MetricsOptions {
    /// `--show-hidden-metrics-for-version`'s value, checked as upstream does.
    pub fn show_hidden_for(&mut self, version: &str) -> Result<(), String> {
        if version.is_empty() {
            return Ok(());
        }
        if version != PREVIOUS_MINOR {
            return Err(format!(
                "--show-hidden-metrics-for-version must be omitted or have the value '{PREVIOUS_MINOR}'. Only the previous minor version is allowed"
            ));
        }
        self.show_hidden = true;
        Ok(())
    }

    /// `--allow-metric-labels metric,label=v1,v2` (or several pairs, each
    /// quoted: `"m,l=a,b","m2,l2=c"`).
    pub fn allow_labels(&mut self, arg: &str) -> Result<(), String> {
        let bad = || {
            "--allow-metric-labels must have a list of kv pair with format `metricName,labelName=labelValue, labelValue,...`"
                .to_string()
        };
        let pairs: Vec<String> = if arg.matches('=').count() <= 1 {
            vec![arg.trim_matches('"').to_string()]
        } else {
            // One CSV record: quoted fields hold commas.
            let mut fields = Vec::new();
            let (mut cur, mut quoted) = (String::new(), false);
            for c in arg.chars() {
                match (c, quoted) {
                    ('"', _) => quoted = !quoted,
                    (',', false) => fields.push(std::mem::take(&mut cur)),
                    (c, _) => cur.push(c),
                }
            }
            fields.push(cur);
            fields
        };
        for pair in pairs {
            let (key, values) = pair.split_once('=').ok_or_else(bad)?;
            let (metric, label) = key.split_once(',').ok_or_else(bad)?;
            let name_ok = |s: &str, colon: bool| {
                let mut cs = s.chars();
                cs.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || (colon && c == ':'))
                    && cs.all(|c| c.is_ascii_alphanumeric() || c == '_' || (colon && c == ':'))
            };
            if !name_ok(metric, true) || !name_ok(label, false) {
                return Err(bad());
            }
            let set = self.allowed_labels.entry((metric.to_string(), label.to_string())).or_default();
            set.extend(values.split(',').map(|v| v.trim().to_string()));
        }
        Ok(())
    }

    /// Whether a metric is registered: not disabled, and not deprecated
    /// unless hidden metrics are shown.
    fn shown(&self, name: &str, deprecated: Option<&str>) -> bool {
        !self.disabled.contains(name) && (deprecated.is_none() || self.show_hidden)
    }
}

/// A metric's description as component-base writes it.
struct Desc {
    name: &'static str,
    /// `STABLE`, `BETA` or `ALPHA`.
    stability: &'static str,
    help: &'static str,
    labels: &'static [&'static str],
    /// The version it was deprecated in (hidden from the next minor on).
    deprecated: Option<&'static str>,
}

impl Desc {
    fn help(&self) -> String {
        match self.deprecated {
            Some(v) => format!("[{}] (Deprecated since {v}) {}", self.stability, self.help),
            None => format!("[{}] {}", self.stability, self.help),
        }
    }
}

const REQUESTS: Desc = Desc {
    name: "apiserver_request_total",
    stability: "STABLE",
    help: "Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.",
    labels: &["code", "component", "dry_run", "group", "resource", "scope", "subresource", "verb", "version"],
    deprecated: None,
};
const DURATIONS: Desc = Desc {
    name: "apiserver_request_duration_seconds",
    stability: "STABLE",
    help: "Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.",
    labels: &["component", "dry_run", "group", "resource", "scope", "subresource", "verb", "version"],
    deprecated: None,
};
const DISPATCHED: Desc = Desc {
    name: "apiserver_flowcontrol_dispatched_requests_total",
    stability: "BETA",
    help: "Number of requests executed by API Priority and Fairness subsystem",
    labels: &["flow_schema", "priority_level"],
    deprecated: None,
};
const REJECTED: Desc = Desc {
    name: "apiserver_flowcontrol_rejected_requests_total",
    stability: "BETA",
    help: "Number of requests rejected by API Priority and Fairness subsystem",
    labels: &["flow_schema", "priority_level", "reason"],
    deprecated: None,
};
const WAIT: Desc = Desc {
    name: "apiserver_flowcontrol_request_wait_duration_seconds",
    stability: "BETA",
    help: "Length of time a request spent waiting in its queue",
    labels: &["execute", "flow_schema", "priority_level"],
    deprecated: None,
};
const EXECUTION: Desc = Desc {
    name: "apiserver_flowcontrol_request_execution_seconds",
    stability: "ALPHA",
    help: "Duration of initial stage (for a WATCH) or any (for a non-WATCH) stage of request execution in the API Priority and Fairness subsystem",
    labels: &["flow_schema", "priority_level", "type"],
    deprecated: None,
};
const ESTIMATED_SEATS: Desc = Desc {
    name: "apiserver_flowcontrol_work_estimated_seats",
    stability: "ALPHA",
    help: "Number of estimated seats (maximum of initial and final seats) associated with requests in API Priority and Fairness",
    labels: &["flow_schema", "priority_level"],
    deprecated: None,
};
const WATCH_EVENTS: Desc = Desc {
    name: "apiserver_watch_events_total",
    stability: "ALPHA",
    help: "Number of events sent in watch clients",
    labels: &["group", "kind", "version"],
    deprecated: None,
};
const STORED: Desc = Desc {
    name: "apiserver_storage_objects",
    stability: "STABLE",
    help: "Number of stored objects at the time of last check split by kind. In case of a fetching error, the value will be -1.",
    labels: &["resource"],
    deprecated: None,
};
const STORAGE_SIZE: Desc = Desc {
    name: "apiserver_storage_size_bytes",
    stability: "STABLE",
    help: "Size of the storage database file physically allocated in bytes.",
    labels: &["storage_cluster_id"],
    deprecated: None,
};
const INFLIGHT: Desc = Desc {
    name: "apiserver_current_inflight_requests",
    stability: "STABLE",
    help: "Maximal number of currently used inflight request limit of this apiserver per request kind in last second.",
    labels: &["request_kind"],
    deprecated: None,
};
const DROPPED: Desc = Desc {
    name: "apiserver_dropped_requests_total",
    stability: "ALPHA",
    help: "Number of requests dropped with 'Try again later' response",
    labels: &["request_kind"],
    deprecated: None,
};
const LONGRUNNING: Desc = Desc {
    name: "apiserver_longrunning_requests",
    stability: "STABLE",
    help: "Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, scope and component. Not all requests are tracked this way.",
    labels: &["component", "group", "resource", "scope", "subresource", "verb", "version"],
    deprecated: None,
};

/// Upstream's request latency buckets (seconds).
const DURATION_BUCKETS: &[f64] = &[
    0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0, 15.0, 20.0, 30.0,
    45.0, 60.0,
];
/// APF's wait and execution buckets (seconds).
const APF_BUCKETS: &[f64] = &[0.0, 0.005, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 15.0, 30.0];
/// Estimated seats' buckets (v1.33).
const SEAT_BUCKETS: &[f64] = &[1.0, 2.0, 4.0, 10.0];

/// The most requests executing in each second, kept as upstream's
/// watermark: what a scrape shows is the last whole second's.
#[derive(Clone, Copy, Debug, Default)]
struct Watermark {
    second: i64,
    this: u32,
    last: u32,
}

impl Watermark {
    fn observe(&mut self, second: i64, now: u32) {
        if second != self.second {
            self.last = if second == self.second + 1 { self.this } else { now };
            self.this = now;
            self.second = second;
        }
        self.this = self.this.max(now);
    }
    fn shown(&self, second: i64) -> u32 {
        match second - self.second {
            0 => self.last,
            1 => self.this,
            _ => 0,
        }
    }
}

/// (A metric the library would refuse — it cannot, the names and labels
/// are fixed — is left out rather than panicking.)
pub(super) struct Metrics {
    registry: Registry,
    options: MetricsOptions,
    requests: Option<IntCounterVec>,
    durations: Option<HistogramVec>,
    dispatched: Option<IntCounterVec>,
    rejected: Option<IntCounterVec>,
    wait: Option<HistogramVec>,
    execution: Option<HistogramVec>,
    estimated_seats: Option<HistogramVec>,
    watch_events: Option<IntCounterVec>,
    dropped: Option<IntCounterVec>,
    /// Requests executing now (read-only, mutating) and their watermarks.
    inflight: [u32; 2],
    watermarks: [Watermark; 2],
    /// Each request kind's two series (`apiserver_request_total`,
    /// `apiserver_request_duration_seconds`) by their label values, so a
    /// request feeds them without the families hashing nine labels twice
    /// (the series stay in the families when the memo starts again).
    request_series: std::cell::RefCell<super::memo::BoundedMemo<RequestSeries>>,
}

/// The series one kind of request feeds.
struct RequestSeries {
    count: Option<IntCounter>,
    duration: Option<Histogram>,
}

/// One flow's series (a FlowSchema at a priority level), each made when
/// first fed (a series shows in a scrape from when it is made; None: the
/// metric is not shown). A classification keeps its flow's, and its
/// requests' events carry them back (`Tag`), so a request's metrics are
/// fed without looking its flow up.
#[derive(Default)]
pub struct FlowSeries {
    estimated: OnceLock<Option<Histogram>>,
    dispatched: OnceLock<Option<IntCounter>>,
    /// Waits of requests that went through a queue and executed.
    waited: OnceLock<Option<Histogram>>,
    /// Executions of regular requests, then of watches.
    execution: [OnceLock<Option<Histogram>>; 2],
}

impl std::fmt::Debug for FlowSeries {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("FlowSeries")
    }
}

fn opts(d: &Desc) -> Opts {
    Opts::new(d.name, d.help())
}

impl Metrics {
    pub(super) fn new(options: MetricsOptions) -> Metrics {
        let registry = Registry::new();
        let counter = |d: &Desc| -> Option<IntCounterVec> {
            if !options.shown(d.name, d.deprecated) {
                return None;
            }
            let c = IntCounterVec::new(opts(d), d.labels).ok()?;
            registry.register(Box::new(c.clone())).ok()?;
            Some(c)
        };
        let histogram = |d: &Desc, buckets: &[f64]| -> Option<HistogramVec> {
            if !options.shown(d.name, d.deprecated) {
                return None;
            }
            let h = HistogramVec::new(HistogramOpts::new(d.name, d.help()).buckets(buckets.to_vec()), d.labels).ok()?;
            registry.register(Box::new(h.clone())).ok()?;
            Some(h)
        };
        Metrics {
            requests: counter(&REQUESTS),
            durations: histogram(&DURATIONS, DURATION_BUCKETS),
            dispatched: counter(&DISPATCHED),
            rejected: counter(&REJECTED),
            wait: histogram(&WAIT, APF_BUCKETS),
            execution: histogram(&EXECUTION, APF_BUCKETS),
            estimated_seats: histogram(&ESTIMATED_SEATS, SEAT_BUCKETS),
            watch_events: counter(&WATCH_EVENTS),
            dropped: counter(&DROPPED),
            inflight: [0; 2],
            watermarks: Default::default(),
            request_series: Default::default(),
            registry,
            options,
        }
    }

    /// Label values with `--allow-metric-labels` applied.
    fn values(&self, d: &Desc, values: &[&str]) -> Vec<String> {
        d.labels
            .iter()
            .zip(values)
            .map(|(label, v)| match self.options.allowed_labels.get(&(d.name.to_string(), label.to_string())) {
                Some(allowed) if !allowed.contains(*v) => "unexpected".to_string(),
                _ => v.to_string(),
            })
            .collect()
    }

    /// Calls `f` with the label values as recorded: as given, unless
    /// `--allow-metric-labels` bounds some (the common case allocates
    /// nothing).
    fn with_values(&self, d: &Desc, values: &[&str], f: impl FnOnce(&[&str])) {
        if self.options.allowed_labels.is_empty() {
            f(values);
        } else {
            let v = self.values(d, values);
            let refs: Vec<&str> = v.iter().map(String::as_str).collect();
            f(&refs);
        }
    }

    fn count(&self, c: &Option<IntCounterVec>, d: &Desc, values: &[&str], n: u64) {
        if let Some(c) = c {
            self.with_values(d, values, |v| c.with_label_values(v).inc_by(n));
        }
    }

    fn observe(&self, h: &Option<HistogramVec>, d: &Desc, values: &[&str], x: f64) {
        if let Some(h) = h {
            self.with_values(d, values, |v| h.with_label_values(v).observe(x));
        }
    }

    /// A gauge family made at scrape time (None when not shown).
    fn gauge(&self, d: &Desc, series: &[(Vec<&str>, i64)]) -> Option<MetricFamily> {
        if !self.options.shown(d.name, d.deprecated) {
            return None;
        }
        let g = IntGaugeVec::new(opts(d), d.labels).ok()?;
        for (values, n) in series {
            let v = self.values(d, values);
            let refs: Vec<&str> = v.iter().map(String::as_str).collect();
            g.with_label_values(&refs).add(*n);
        }
        g.collect().into_iter().next()
    }

    fn float_gauge(&self, d: &Desc, series: &[(Vec<&str>, f64)]) -> Option<MetricFamily> {
        if !self.options.shown(d.name, d.deprecated) {
            return None;
        }
        let g = GaugeVec::new(opts(d), d.labels).ok()?;
        for (values, x) in series {
            let v = self.values(d, values);
            let refs: Vec<&str> = v.iter().map(String::as_str).collect();
            g.with_label_values(&refs).add(*x);
        }
        g.collect().into_iter().next()
    }

    /// A request started (or stopped) executing: `mutating` picks the
    /// watermark, `second` is the server's clock.
    pub(super) fn executing(&mut self, mutating: bool, started: bool, second: i64) {
        let i = usize::from(mutating);
        self.inflight[i] = if started { self.inflight[i] + 1 } else { self.inflight[i].saturating_sub(1) };
        self.watermarks[i].observe(second, self.inflight[i]);
    }

    /// Requests executing now, writes or not.
    pub(super) fn in_flight(&self, mutating: bool) -> u32 {
        self.inflight[usize::from(mutating)]
    }

    /// A request refused with "Too many requests" (by API Priority and
    /// Fairness or by the in-flight limits).
    pub(super) fn dropped(&self, mutating: bool) {
        let kind = if mutating { "mutating" } else { "readOnly" };
        self.count(&self.dropped, &DROPPED, &[kind], 1);
    }

    /// Events a watch sent.
    pub(super) fn watch_events(&self, group: &str, version: &str, kind: &str, n: u64) {
        self.count(&self.watch_events, &WATCH_EVENTS, &[group, kind, version], n);
    }

    /// The seats the work estimator gave a request of the flow `s`.
    pub(super) fn estimated(&self, s: &FlowSeries, flow_schema: &Name, level: &Name, seats: u32) {
        if let Some(h) = self.made(&s.estimated, &self.estimated_seats, &ESTIMATED_SEATS, &[flow_schema, level]) {
            h.observe(f64::from(seats));
        }
    }

    /// Feeds a flow's series: those the event's tag carries (every
    /// request the gate dispatches has them), or else series found by
    /// their labels for this event alone.
    fn with_flow(&self, tag: &Tag, feed: impl FnOnce(&FlowSeries)) {
        match tag.get::<FlowSeries>() {
            Some(s) => feed(s),
            None => feed(&FlowSeries::default()),
        }
    }

    /// A flow's series kept in `slot`, made the first time it is fed
    /// (with `--allow-metric-labels` applied; None when the metric is
    /// disabled).
    fn made<'a, M: prometheus::core::MetricVecBuilder>(
        &self,
        slot: &'a OnceLock<Option<M::M>>,
        vec: &Option<prometheus::core::MetricVec<M>>,
        d: &Desc,
        values: &[&str],
    ) -> Option<&'a M::M> {
        slot.get_or_init(|| {
            let mut made = None;
            if let Some(vec) = vec {
                self.with_values(d, values, |v| made = Some(vec.with_label_values(v)));
            }
            made
        })
        .as_ref()
    }
}

/// The verb upstream reports: the method, with GET split into LIST, WATCH
/// and GET, and a server-side apply as APPLY.
fn reported_verb<'a>(method: &'a str, a: &Attributes, content_type: &str) -> std::borrow::Cow<'a, str> {
    match (method, a.verb.as_str()) {
        ("GET" | "HEAD", "list") => "LIST".into(),
        ("GET" | "HEAD", "watch") => "WATCH".into(),
        ("PATCH", _) if content_type.starts_with("application/apply-patch") => "APPLY".into(),
        (m, _) if !m.bytes().any(|b| b.is_ascii_lowercase()) => m.into(),
        (m, _) => m.to_ascii_uppercase().into(),
    }
}

/// What a request's metrics call its scope.
fn scope(a: &Attributes) -> &'static str {
    if !a.resource_request {
        ""
    } else if !a.name.is_empty() {
        "resource"
    } else if !a.namespace.is_empty() {
        "namespace"
    } else {
        "cluster"
    }
}

/// Open watches by (group, version, resource, scope), for
/// `apiserver_longrunning_requests`.
pub(super) type LongRunning = Vec<(String, String, String, &'static str, u64)>;

/// What a scrape reads from the server at the moment it is made.
pub(super) struct Scrape<'a> {
    /// Stored objects by resource (left empty when not asked for: counting
    /// them lists every resource).
    objects: Vec<(String, i64)>,
    storage: StorageSize,
    apf: &'a Dispatcher,
    long: LongRunning,
    second: i64,
}

impl Metrics {
    /// One request answered, `seconds` after it arrived.
    pub(super) fn record(
        &self,
        method: &str,
        query: &str,
        content_type: &str,
        a: &Attributes,
        code: u16,
        seconds: f64,
    ) {
        let scope = scope(a);
        let dry_run = if query.contains("dryRun") {
            form_urlencoded::parse(query.as_bytes())
                .filter(|(k, _)| k == "dryRun")
                .map(|(_, v)| v.into_owned())
                .collect::<Vec<_>>()
                .join(",")
        } else {
            String::new()
        };
        let verb = reported_verb(method, a, content_type);
        let component = "apiserver";
        // (Upstream names a non-resource endpoint by its path in the
        // subresource label: `/healthz`, `/metrics`.)
        let (group, resource, subresource, version) = if a.resource_request {
            (a.api_group.as_str(), a.resource.as_str(), a.subresource.as_str(), a.api_version.as_str())
        } else {
            ("", "", a.path.as_str(), "")
        };
        let mut memo = self.request_series.borrow_mut();
        let key = memo.key();
        let code_digits = [b'0' + (code / 100 % 10) as u8, b'0' + (code / 10 % 10) as u8, b'0' + (code % 10) as u8];
        let code = std::str::from_utf8(&code_digits).unwrap_or("000");
        // The label values, each led by its length.
        for part in [code, &dry_run, group, resource, scope, subresource, &verb, version] {
            key.extend_from_slice(&(part.len() as u32).to_le_bytes());
            key.extend_from_slice(part.as_bytes());
        }
        let make = || {
            let mut series = RequestSeries { count: None, duration: None };
            if let Some(c) = &self.requests {
                let values = [code, component, &dry_run, group, resource, scope, subresource, &verb, version];
                self.with_values(&REQUESTS, &values, |v| series.count = Some(c.with_label_values(v)));
            }
            // (A watch's lifetime is not a latency: it is not observed.)
            if let (Some(h), false) = (&self.durations, verb == "WATCH") {
                let values = [component, &dry_run, group, resource, scope, subresource, &verb, version];
                self.with_values(&DURATIONS, &values, |v| series.duration = Some(h.with_label_values(v)));
            }
            series
        };
        memo.with(make, |series| {
            if let Some(c) = &series.count {
                c.inc();
            }
            if let Some(h) = &series.duration {
                h.observe(seconds);
            }
        });
    }

    /// What the dispatcher did: requests dispatched (and how long they
    /// waited), refused (and why), finished (and how long they ran).
    pub(super) fn flowcontrol(&self, e: &Event) {
        let seconds = |ns: u64| ns as f64 / 1e9;
        match e {
            // (The wait is measured only where there are queues: "true"
            // for a request that entered one, however it left it.)
            Event::Dispatched { level, flow_schema, waited, queued, tag, .. } => self.with_flow(tag, |s| {
                if let Some(c) = self.made(&s.dispatched, &self.dispatched, &DISPATCHED, &[flow_schema, level]) {
                    c.inc();
                }
                if *queued {
                    if let Some(h) = self.made(&s.waited, &self.wait, &WAIT, &["true", flow_schema, level]) {
                        h.observe(seconds(*waited));
                    }
                }
            }),
            Event::Rejected { level, flow_schema, reason, waited, queued, .. } => {
                self.count(&self.rejected, &REJECTED, &[flow_schema, level, reason], 1);
                let execute = match (*queued, *reason) {
                    (true, _) => Some("true"),
                    (false, "queue-full") => Some("false"),
                    _ => None,
                };
                if let Some(execute) = execute {
                    self.observe(&self.wait, &WAIT, &[execute, flow_schema, level], seconds(*waited));
                }
            }
            Event::Finished { level, flow_schema, executed, watch, tag, .. } => {
                let kind = usize::from(*watch);
                self.with_flow(tag, |s| {
                    let labels = [&**flow_schema, &**level, ["regular", "watch"][kind]];
                    if let Some(h) = self.made(&s.execution[kind], &self.execution, &EXECUTION, &labels) {
                        h.observe(seconds(*executed));
                    }
                })
            }
        }
    }

    /// The text of a scrape: the counters and histograms, with the gauges
    /// read now (stored objects, executing requests, open watches, the
    /// dispatcher's levels and queues).
    pub(super) fn render(&self, scrape: &Scrape) -> Vec<u8> {
        let families = self.families(scrape);
        let mut out = Vec::new();
        let _ = TextEncoder::new().encode(&families, &mut out);
        out
    }

    /// Every family a scrape shows, sorted by name.
    fn families(&self, scrape: &Scrape) -> Vec<MetricFamily> {
        let Scrape { objects, storage, apf, long, second } = scrape;
        let second = *second;
        let mut families = self.registry.gather();
        let stored: Vec<(Vec<&str>, i64)> = objects.iter().map(|(r, n)| (vec![r.as_str()], *n)).collect();
        families.extend(self.gauge(&STORED, &stored));
        // (One storage cluster: upstream names them by position.)
        let size = [(vec!["etcd-0"], i64::try_from(storage.allocated).unwrap_or(i64::MAX))];
        families.extend(self.gauge(&STORAGE_SIZE, &size));
        let inflight = [
            (vec!["mutating"], i64::from(self.watermarks[1].shown(second))),
            (vec!["readOnly"], i64::from(self.watermarks[0].shown(second))),
        ];
        families.extend(self.gauge(&INFLIGHT, &inflight));
        let long: Vec<(Vec<&str>, i64)> = long
            .iter()
            .map(|(g, v, r, scope, n)| {
                (vec!["apiserver", g.as_str(), r.as_str(), *scope, "", "WATCH", v.as_str()], *n as i64)
            })
            .collect();
        families.extend(self.gauge(&LONGRUNNING, &long));
        families.extend(self.dispatcher_gauges(apf));
        // (A family with no series yet is left out, as client_golang
        // leaves it; the encoder would stop at it.)
        families.retain(|f| !f.get_metric().is_empty());
        families.order_by(|a, b| a.name().cmp(b.name()));
        families
    }

    /// The dispatcher's state now, as upstream's gauges show it.
    fn dispatcher_gauges(&self, apf: &Dispatcher) -> Vec<MetricFamily> {
        let by_flow = |name, stability, help, deprecated| Desc {
            name,
            stability,
            help,
            labels: &["flow_schema", "priority_level"],
            deprecated,
        };
        let by_level =
            |name, stability, help, deprecated| Desc { name, stability, help, labels: &["priority_level"], deprecated };
        const EXECUTING_SEATS: &str = "Concurrency (number of seats) occupied by the currently executing (initial stage for a WATCH, any stage otherwise) requests in the API Priority and Fairness subsystem";
        const NOMINAL: &str = "Nominal number of execution seats configured for each priority level";
        // (name, stability, help, deprecated, what: 0 waiting requests,
        // 1 waiting seats, 2 executing requests, 3 executing seats)
        let flows = [
            by_flow("apiserver_flowcontrol_current_inqueue_requests", "BETA", "Number of requests currently pending in queues of the API Priority and Fairness subsystem", None),
            by_flow("apiserver_flowcontrol_current_inqueue_seats", "ALPHA", "Number of seats currently pending in queues of the API Priority and Fairness subsystem", None),
            by_flow("apiserver_flowcontrol_current_executing_requests", "BETA", "Number of requests in initial (for a WATCH) or any (for a non-WATCH) execution stage in the API Priority and Fairness subsystem", None),
            by_flow("apiserver_flowcontrol_current_executing_seats", "BETA", EXECUTING_SEATS, None),
            by_flow("apiserver_flowcontrol_request_concurrency_in_use", "ALPHA", EXECUTING_SEATS, Some("1.31.0")),
        ];
        let mut out = Vec::new();
        for (i, d) in flows.iter().enumerate() {
            let mut series: BTreeMap<(&str, &str), i64> = BTreeMap::new();
            for (level_name, level) in &apf.levels {
                if i < 2 {
                    for w in level.set.queues.iter().flat_map(|q| q.waiting.iter()) {
                        *series.entry((&w.flow_schema, level_name)).or_default() +=
                            if i == 0 { 1 } else { i64::from(w.width.max_seats()) };
                    }
                } else {
                    for e in level.set.executing.values().filter(|e| e.release_at.is_none() || i > 2) {
                        *series.entry((&e.flow_schema, level_name)).or_default() +=
                            if i == 2 { 1 } else { i64::from(e.seats) };
                    }
                }
            }
            let series: Vec<(Vec<&str>, i64)> = series.into_iter().map(|((f, l), n)| (vec![f, l], n)).collect();
            out.extend(self.gauge(d, &series));
        }
        let levels = [
            by_level("apiserver_flowcontrol_nominal_limit_seats", "BETA", NOMINAL, None),
            by_level(
                "apiserver_flowcontrol_current_limit_seats",
                "ALPHA",
                "current derived number of execution seats available to each priority level",
                None,
            ),
            by_level(
                "apiserver_flowcontrol_lower_limit_seats",
                "ALPHA",
                "Configured lower bound on number of execution seats available to each priority level",
                None,
            ),
            by_level(
                "apiserver_flowcontrol_upper_limit_seats",
                "ALPHA",
                "Configured upper bound on number of execution seats available to each priority level",
                None,
            ),
            by_level("apiserver_flowcontrol_request_concurrency_limit", "ALPHA", NOMINAL, Some("1.30.0")),
        ];
        for (i, d) in levels.iter().enumerate() {
            let series: Vec<(Vec<&str>, i64)> = apf
                .levels
                .iter()
                .filter(|(_, l)| l.configured)
                .map(|(name, l)| {
                    let v = match i {
                        1 if !l.spec.exempt => l.limit(),
                        2 => l.lower,
                        3 => l.upper,
                        _ => l.nominal,
                    };
                    (vec![name.as_str()], i64::from(v))
                })
                .collect();
            out.extend(self.gauge(d, &series));
        }
        let demand = [
            by_level(
                "apiserver_flowcontrol_demand_seats_average",
                "ALPHA",
                "Time-weighted average, over last adjustment period, of demand_seats",
                None,
            ),
            by_level(
                "apiserver_flowcontrol_demand_seats_high_watermark",
                "ALPHA",
                "High watermark, over last adjustment period, of demand_seats",
                None,
            ),
            by_level("apiserver_flowcontrol_demand_seats_smoothed", "ALPHA", "Smoothed seat demands", None),
        ];
        for (i, d) in demand.iter().enumerate() {
            let series: Vec<(Vec<&str>, f64)> = apf
                .levels
                .iter()
                .filter(|(_, l)| l.configured)
                .map(|(name, l)| {
                    let v = [l.demand.average, l.demand.high_watermark, l.demand.smoothed][i];
                    (vec![name.as_str()], v)
                })
                .collect();
            out.extend(self.float_gauge(d, &series));
        }
        let fair = Desc {
            name: "apiserver_flowcontrol_seat_fair_frac",
            stability: "ALPHA",
            help: "Fair fraction of server's concurrency to allocate to each priority level that can use it",
            labels: &[],
            deprecated: None,
        };
        let fraction = if apf.fair_fraction.is_finite() { apf.fair_fraction } else { 0.0 };
        out.extend(self.float_gauge(&fair, &[(vec![], fraction)]));
        out
    }
}

/// One series of a family: its labels and its value (a histogram's: its
/// count of observations).
pub type Series = (Vec<(String, String)>, f64);

impl super::Server {
    /// The series of one metric family as a scrape now would show them
    /// (for the page's charts, which sample them over simulated time
    /// without sending requests of their own).
    pub fn metric_series(&self, name: &str) -> Vec<Series> {
        let families = self.metrics.families(&self.scrape(name == STORED.name));
        let Some(f) = families.into_iter().find(|f| f.name() == name) else { return Vec::new() };
        f.get_metric()
            .iter()
            .map(|m| {
                let labels = m.get_label().iter().map(|l| (l.name().to_string(), l.value().to_string())).collect();
                let value = match f.get_field_type() {
                    prometheus::proto::MetricType::COUNTER => m.get_counter().get_value(),
                    prometheus::proto::MetricType::GAUGE => m.get_gauge().get_value(),
                    prometheus::proto::MetricType::HISTOGRAM => m.get_histogram().get_sample_count() as f64,
                    _ => 0.0,
                };
                (labels, value)
            })
            .collect()
    }

    /// The figures a scrape reads now (`objects`: with the stored object
    /// counts).
    pub(super) fn scrape(&self, objects: bool) -> Scrape<'_> {
        Scrape {
            objects: if objects { self.object_counts() } else { Vec::new() },
            storage: self.registry.storage_size(),
            apf: &self.apf.dispatcher,
            long: self.long_running(),
            second: self.apf_now() as i64 / 1_000_000_000,
        }
    }

    /// Open watches by group, version, resource and scope.
    pub(super) fn long_running(&self) -> LongRunning {
        let mut by: BTreeMap<(String, String, String, &'static str), u64> = BTreeMap::new();
        for (k, t) in &self.watchers {
            let scope = if !k.name.is_empty() {
                "resource"
            } else if !k.namespace.is_empty() {
                "namespace"
            } else {
                "cluster"
            };
            let n = std::sync::Arc::strong_count(t) as u64 - 1;
            if n > 0 {
                *by.entry((k.group.clone(), k.version.clone(), k.resource.clone(), scope)).or_default() += n;
            }
        }
        by.into_iter().map(|((g, v, r, s), n)| (g, v, r, s, n)).collect()
    }

    /// Each served resource's stored object count (`resource.group`).
    pub(super) fn object_counts(&self) -> Vec<(String, i64)> {
        let mut out = Vec::new();
        let mut seen = std::collections::BTreeSet::new();
        for rt in self.registry.resources().iter() {
            // Only resources with storage: not the reviews, nor the
            // componentstatuses made on every read (neither is watched).
            if rt.stored_as.is_some() || !rt.serves(crate::registry::options::Verb::Watch) {
                continue;
            }
            let name = if rt.group().is_empty() {
                rt.resource().to_string()
            } else {
                format!("{}.{}", rt.resource(), rt.group())
            };
            if !seen.insert(name.clone()) {
                continue;
            }
            out.push((name, self.count_stored(rt).unwrap_or(-1)));
        }
        out
    }

    /// How many objects of a resource are stored: a one-item list and
    /// the count of those after it (None if storage cannot say).
    pub(super) fn count_stored(&self, rt: &crate::registry::ResourceType) -> Option<i64> {
        let opts = ListOptions { limit: Some(1), ..Default::default() };
        let l = self.registry.list(rt, None, &opts).ok()?;
        Some(l.items.len() as i64 + l.remaining.unwrap_or(0) as i64)
    }
}
