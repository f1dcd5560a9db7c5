//! An event recorder, as client-go's legacy one (`record.EventRecorder`)
//! writes core/v1 Events for kube-controller-manager, the scheduler and
//! the kubelets: one Event named `<object>.<time in hex nanoseconds>` in
//! the object's namespace, passed first through its correlator:
//!
//! - the aggregator: events about one object from one source with one
//!   type and reason but different messages are counted within a sliding
//!   ten minutes; from the tenth distinct message on they become one
//!   event, "(combined from similar events): <latest message>";
//! - the logger: a repeat of the same event (or of the combined one)
//!   patches the first one's `count`, `lastTimestamp` and `message`
//!   (a strategic merge patch), or posts it again under its name if it is
//!   gone;
//! - the spam filter: per source and object, a token bucket of 25 that
//!   refills one token every five minutes; an event without a token is
//!   not sent (the logger has still counted it, so the next patch's count
//!   jumps), as upstream drops it.
//!
//! All on the simulated clock.
//!
//! `SeriesRecorder` is client-go's newer recorder (`tools/events`, which
//! kube-scheduler uses): events.k8s.io/v1 Events with an eventTime, a
//! reporting controller and instance and an action; a repeat of an event
//! (same type, action, reason, reporter and objects, whatever its note)
//! becomes a series: the second occurrence patches `series` (count 2), later
//! ones are only counted, and the count is sent when the series ends (no
//! repeat for six minutes, checked every six minutes) or every thirty
//! minutes while it goes on.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{json, Value};

use super::client::Client;
use super::object::meta_str;
use crate::clock::SimTime;

/// Distinct messages within the window that make events combine.
const AGGREGATE_MAX: usize = 10;
/// The aggregator's sliding window.
const AGGREGATE_WINDOW_MS: i64 = 600_000;
/// The spam filter's bucket and refill.
const SPAM_BURST: f64 = 25.0;
const SPAM_REFILL_MS: f64 = 300_000.0;
/// As upstream's LRU caches of 4096 entries, roughly.
const CACHE: usize = 4096;

pub struct Recorder {
    component: &'static str,
    host: String,
    /// The logger: an event's key → its name, namespace, count and first
    /// timestamp.
    seen: BTreeMap<String, (String, String, i64, String)>,
    /// The aggregator: similar events' key → distinct messages, last time.
    similar: BTreeMap<String, (BTreeSet<String>, i64)>,
    /// The spam filter: source and object → tokens, last refill.
    buckets: BTreeMap<String, (f64, i64)>,
    names: Names,
}

/// An ObjectReference to `obj` as `reference.GetReference` makes it (empty
/// fields left out), naming a container by `field_path` when not empty.
fn reference(obj: &Value, (api_version, kind): (&str, &str), field_path: &str) -> Value {
    let mut r = json!({"kind": kind, "namespace": meta_str(obj, "namespace"), "name": meta_str(obj, "name"),
        "uid": meta_str(obj, "uid"), "apiVersion": api_version, "resourceVersion": meta_str(obj, "resourceVersion"),
        "fieldPath": field_path});
    if let Value::Object(m) = &mut r {
        m.retain(|_, v| v.as_str() != Some(""));
    }
    r
}

/// Event names, as both client-go recorders make them: the object's name
/// and the time in nanoseconds. Simulated time has milliseconds, so a
/// recorder's names move on by one within one.
#[derive(Default)]
struct Names {
    last_nanos: i64,
}

impl Names {
    fn next(&mut self, obj: &Value, now_ms: i64) -> String {
        let nanos = (now_ms * 1_000_000).max(self.last_nanos + 1);
        self.last_nanos = nanos;
        format!("{}.{:x}", meta_str(obj, "name"), nanos)
    }
}

/// Posts an event; a name another recorder took is replaced by the next
/// one (as upstream's nanosecond names practically never collide).
fn post(client: &mut Client<'_>, names: &mut Names, obj: &Value, now_ms: i64, path: &str, event: &mut Value) {
    for _ in 0..1_000 {
        match client.write("POST", path, "application/json", event).status {
            409 => event["metadata"]["name"] = json!(names.next(obj, now_ms)),
            _ => return,
        }
    }
}

fn bounded<K: Ord, V>(map: &mut BTreeMap<K, V>) {
    if map.len() >= CACHE {
        map.clear();
    }
}

/// An event's type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventType {
    Normal,
    Warning,
}

impl EventType {
    fn as_str(self) -> &'static str {
        match self {
            EventType::Normal => "Normal",
            EventType::Warning => "Warning",
        }
    }
}

impl Recorder {
    /// A recorder for `component` (`deployment-controller`,
    /// `default-scheduler`, `kubelet`) on `host` (a node's name, or empty).
    pub fn new(component: &'static str, host: &str) -> Recorder {
        Recorder {
            component,
            host: host.to_string(),
            seen: BTreeMap::new(),
            similar: BTreeMap::new(),
            buckets: BTreeMap::new(),
            names: Names::default(),
        }
    }

    /// Records an event about `obj` (of `api_version`/`kind`; `field_path`
    /// names a container when it is about one).
    #[allow(clippy::too_many_arguments)]
    pub fn event(
        &mut self,
        client: &mut Client<'_>,
        obj: &Value,
        kind: (&str, &str),
        field_path: &str,
        event_type: EventType,
        reason: &str,
        message: &str,
    ) {
        self.repeated(client, obj, kind, field_path, (event_type, reason, message), 1);
    }

    /// Records an event that happened `times` times since the recorder last
    /// looked (a probe failing every period while simulated time jumped):
    /// counted that many times and sent once, taking as many of the spam
    /// filter's tokens as it has, up to `times` (as that many events one
    /// after the other would).
    pub fn repeated(
        &mut self,
        client: &mut Client<'_>,
        obj: &Value,
        (api_version, kind): (&str, &str),
        field_path: &str,
        (event_type, reason, message): (EventType, &str, &str),
        times: i64,
    ) {
        let namespace = match meta_str(obj, "namespace") {
            "" => "default",
            ns => ns,
        };
        let now = client.now_rfc3339();
        let now_ms = client.now_millis();
        let object = format!(
            "{}\u{0}{kind}\u{0}{}\u{0}{}\u{0}{}\u{0}{api_version}",
            self.host,
            meta_str(obj, "namespace"),
            meta_str(obj, "name"),
            meta_str(obj, "uid")
        );
        // The aggregator.
        let similar_key = format!("{object}\u{0}{}\u{0}{reason}", event_type.as_str());
        bounded(&mut self.similar);
        let record = self.similar.entry(similar_key.clone()).or_insert_with(|| (BTreeSet::new(), now_ms));
        if now_ms - record.1 > AGGREGATE_WINDOW_MS {
            record.0.clear();
        }
        record.0.insert(message.to_string());
        record.1 = now_ms;
        let (key, message, reporting) = if record.0.len() < AGGREGATE_MAX {
            let key = format!("{similar_key}\u{0}{field_path}\u{0}{message}");
            (key, message.to_string(), true)
        } else {
            record.0.pop_first();
            (similar_key, format!("(combined from similar events): {message}"), false)
        };
        // The logger counts it before the spam filter decides.
        bounded(&mut self.seen);
        let (name, event_ns, count, first) = match self.seen.get(&key) {
            Some((name, ns, count, first)) => (name.clone(), ns.clone(), count + times, first.clone()),
            None => (self.names.next(obj, now_ms), namespace.to_string(), times, now.clone()),
        };
        self.seen.insert(key.clone(), (name.clone(), event_ns.clone(), count, first.clone()));
        if !self.take_token(&format!("{object}\u{0}{}", event_type.as_str()), now_ms, times) {
            return;
        }
        let events = format!("/api/v1/namespaces/{event_ns}/events");
        if count > 1 {
            let body = json!({"count": count, "lastTimestamp": now, "message": message});
            let r = client.write("PATCH", &format!("{events}/{name}"), "application/strategic-merge-patch+json", &body);
            if r.status != 404 {
                return;
            }
        }
        let involved = reference(obj, (api_version, kind), field_path);
        let mut source = json!({"component": self.component});
        if !self.host.is_empty() {
            source["host"] = json!(self.host);
        }
        // A combined event carries no reporting controller or instance.
        let (controller, instance) = if reporting { (self.component, self.host.clone()) } else { ("", String::new()) };
        let mut event = json!({
            "kind": "Event", "apiVersion": "v1",
            "metadata": {"name": name, "namespace": event_ns},
            "involvedObject": involved, "reason": reason, "message": message, "source": source,
            "firstTimestamp": first, "lastTimestamp": now, "count": count, "type": event_type.as_str(),
            "eventTime": null, "reportingComponent": controller, "reportingInstance": instance,
        });
        post(client, &mut self.names, obj, now_ms, &events, &mut event);
        let name = meta_str(&event, "name").to_string();
        self.seen.insert(key, (name, event_ns, count, first));
    }

    /// The spam filter's tokens for a source and object: whether it had
    /// one (it gives up to `times` whole ones).
    fn take_token(&mut self, key: &str, now_ms: i64, times: i64) -> bool {
        bounded(&mut self.buckets);
        let bucket = self.buckets.entry(key.to_string()).or_insert((SPAM_BURST, now_ms));
        let refill = (now_ms - bucket.1).max(0) as f64 / SPAM_REFILL_MS;
        bucket.0 = (bucket.0 + refill).min(SPAM_BURST);
        bucket.1 = now_ms;
        if bucket.0 < 1.0 {
            return false;
        }
        bucket.0 -= bucket.0.floor().min(times.max(1) as f64);
        true
    }
}

/// How often the newer recorder ends series, and how long a series must
/// have been quiet to end (upstream's `finishTime`).
const SERIES_FINISH_MS: i64 = 6 * 60_000;
/// How often it sends the counts of the series still going (`refreshTime`).
const SERIES_REFRESH_MS: i64 = 30 * 60_000;

/// An event the newer recorder has sent, and its series so far.
struct Sent {
    /// The event as posted (its name and namespace address the patches).
    event: Value,
    /// When it was first seen.
    first_ms: i64,
    /// Occurrences and the last one's time, once it repeated.
    series: Option<(i64, i64)>,
}

pub struct SeriesRecorder {
    controller: &'static str,
    instance: String,
    sent: BTreeMap<String, Sent>,
    names: Names,
    /// When series are next ended and refreshed (from the first event on).
    next_finish: Option<i64>,
    next_refresh: Option<i64>,
    /// The object the next event is also about (its `related`), once.
    pub(crate) related: Option<Value>,
}

/// A reference to `obj` (of `api_version`/`kind`), as an event names it.
pub(crate) fn reference_to(obj: &Value, kind: (&str, &str)) -> Value {
    reference(obj, kind, "")
}

impl SeriesRecorder {
    /// A recorder for `controller` (`default-scheduler`) running on `host`:
    /// its instance is `<controller>-<host>`, as upstream's.
    pub fn new(controller: &'static str, host: &str) -> SeriesRecorder {
        SeriesRecorder {
            controller,
            instance: format!("{controller}-{host}"),
            sent: BTreeMap::new(),
            names: Names::default(),
            next_finish: None,
            next_refresh: None,
            related: None,
        }
    }

    /// Records an event about `regarding` (of `api_version`/`kind`).
    #[allow(clippy::too_many_arguments)]
    pub fn event(
        &mut self,
        client: &mut Client<'_>,
        regarding: &Value,
        (api_version, kind): (&str, &str),
        event_type: EventType,
        reason: &str,
        action: &str,
        note: &str,
    ) {
        let related = self.related.take();
        let now_ms = client.now_millis();
        self.next_finish.get_or_insert(now_ms + SERIES_FINISH_MS);
        self.next_refresh.get_or_insert(now_ms + SERIES_REFRESH_MS);
        let reference = reference(regarding, (api_version, kind), "");
        let key = format!(
            "{}\u{0}{action}\u{0}{reason}\u{0}{}\u{0}{}\u{0}{reference}",
            event_type.as_str(),
            self.controller,
            self.instance
        );
        if let Some(sent) = self.sent.get_mut(&key) {
            match &mut sent.series {
                // Later repeats are only counted.
                Some((count, last)) => {
                    *count += 1;
                    *last = now_ms;
                }
                None => {
                    sent.series = Some((2, now_ms));
                    let event = sent.event.clone();
                    Self::send_series(client, &event, 2, now_ms);
                }
            }
            return;
        }
        bounded(&mut self.sent);
        let namespace = match meta_str(regarding, "namespace") {
            "" => "default",
            ns => ns,
        };
        let mut event = json!({
            "kind": "Event", "apiVersion": "events.k8s.io/v1",
            "metadata": {"name": self.names.next(regarding, now_ms), "namespace": namespace},
            "eventTime": SimTime(now_ms).rfc3339_micro(),
            "reportingController": self.controller, "reportingInstance": self.instance,
            "action": action, "reason": reason, "regarding": reference, "note": note, "type": event_type.as_str(),
        });
        if let Some(related) = related {
            event["related"] = related;
        }
        post(client, &mut self.names, regarding, now_ms, &events_v1(namespace), &mut event);
        self.sent.insert(key, Sent { event, first_ms: now_ms, series: None });
    }

    /// A series' count and last time, patched onto its event; posted again
    /// if the event is gone.
    fn send_series(client: &mut Client<'_>, event: &Value, count: i64, last_ms: i64) {
        let series = json!({"count": count, "lastObservedTime": SimTime(last_ms).rfc3339_micro()});
        let namespace = meta_str(event, "namespace");
        let target = format!("{}/{}", events_v1(namespace), meta_str(event, "name"));
        let patch = json!({ "series": series });
        let r = client.write("PATCH", &target, "application/strategic-merge-patch+json", &patch);
        if r.status == 404 {
            let mut again = event.clone();
            again["series"] = series;
            client.write("POST", &events_v1(namespace), "application/json", &again);
        }
    }

    /// When the recorder next has something to send on its own.
    pub fn next_wake(&self) -> Option<SimTime> {
        if self.sent.is_empty() {
            return None;
        }
        [self.next_finish, self.next_refresh].into_iter().flatten().min().map(SimTime)
    }

    /// Ends the series quiet for six minutes (sending their counts) and
    /// forgets singletons as old, every six minutes; sends the counts of
    /// every series every thirty.
    pub fn flush(&mut self, client: &mut Client<'_>) {
        let now_ms = client.now_millis();
        if let Some(due) = self.next_refresh.filter(|t| *t <= now_ms) {
            for sent in self.sent.values() {
                if let Some((count, last)) = sent.series {
                    Self::send_series(client, &sent.event, count, last);
                }
            }
            self.next_refresh = Some(due + SERIES_REFRESH_MS * (1 + (now_ms - due) / SERIES_REFRESH_MS));
        }
        if let Some(due) = self.next_finish.filter(|t| *t <= now_ms) {
            let mut ended = Vec::new();
            for (key, sent) in &self.sent {
                match sent.series {
                    Some((count, last)) if now_ms - last > SERIES_FINISH_MS => {
                        Self::send_series(client, &sent.event, count, last);
                        ended.push(key.clone());
                    }
                    None if now_ms - sent.first_ms > SERIES_FINISH_MS => ended.push(key.clone()),
                    _ => {}
                }
            }
            for key in ended {
                self.sent.remove(&key);
            }
            self.next_finish = Some(due + SERIES_FINISH_MS * (1 + (now_ms - due) / SERIES_FINISH_MS));
        }
    }
}

fn events_v1(namespace: &str) -> String {
    format!("/apis/events.k8s.io/v1/namespaces/{namespace}/events")
}
