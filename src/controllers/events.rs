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

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{json, Value};

use super::client::Client;
use super::object::meta_str;

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
    /// The last nanosecond time used in a name (names stay unique when
    /// many events share a simulated millisecond).
    last_nanos: i64,
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
            last_nanos: 0,
        }
    }

    /// Records an event about `obj` (of `api_version`/`kind`; `field_path`
    /// names a container when it is about one).
    #[allow(clippy::too_many_arguments)]
    pub fn event(
        &mut self,
        client: &mut Client<'_>,
        obj: &Value,
        (api_version, kind): (&str, &str),
        field_path: &str,
        event_type: EventType,
        reason: &str,
        message: &str,
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
            Some((name, ns, count, first)) => (name.clone(), ns.clone(), count + 1, first.clone()),
            None => (self.next_name(obj, now_ms), namespace.to_string(), 1, now.clone()),
        };
        self.seen.insert(key.clone(), (name.clone(), event_ns.clone(), count, first.clone()));
        if !self.take_token(&format!("{object}\u{0}{}", event_type.as_str()), now_ms) {
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
        let mut involved = json!({"kind": kind, "namespace": meta_str(obj, "namespace"), "name": meta_str(obj, "name"),
            "uid": meta_str(obj, "uid"), "apiVersion": api_version, "resourceVersion": meta_str(obj, "resourceVersion")});
        if let Value::Object(m) = &mut involved {
            m.retain(|_, v| v.as_str() != Some(""));
            if !field_path.is_empty() {
                m.insert("fieldPath".into(), json!(field_path));
            }
        }
        let mut source = json!({"component": self.component});
        if !self.host.is_empty() {
            source["host"] = json!(self.host);
        }
        // A combined event carries no reporting controller or instance.
        let (controller, instance) = if reporting { (self.component, self.host.clone()) } else { ("", String::new()) };
        let mut name = name;
        for _ in 0..1_000 {
            let event = json!({
                "kind": "Event", "apiVersion": "v1",
                "metadata": {"name": name, "namespace": event_ns},
                "involvedObject": involved, "reason": reason, "message": message, "source": source,
                "firstTimestamp": first, "lastTimestamp": now, "count": count, "type": event_type.as_str(),
                "eventTime": null, "reportingComponent": controller, "reportingInstance": instance,
            });
            match client.write("POST", &events, "application/json", &event).status {
                // Another recorder took the name: this one moves on.
                409 => name = self.next_name(obj, now_ms),
                _ => break,
            }
        }
        self.seen.insert(key, (name, event_ns, count, first));
    }

    /// A new event name: the object's and the time in nanoseconds.
    /// Simulated time has milliseconds, so this recorder's names move on
    /// by one within one.
    fn next_name(&mut self, obj: &Value, now_ms: i64) -> String {
        let nanos = (now_ms * 1_000_000).max(self.last_nanos + 1);
        self.last_nanos = nanos;
        format!("{}.{:x}", meta_str(obj, "name"), nanos)
    }

    /// The spam filter's token for a source and object, if it has one.
    fn take_token(&mut self, key: &str, now_ms: i64) -> bool {
        bounded(&mut self.buckets);
        let bucket = self.buckets.entry(key.to_string()).or_insert((SPAM_BURST, now_ms));
        let refill = (now_ms - bucket.1).max(0) as f64 / SPAM_REFILL_MS;
        bucket.0 = (bucket.0 + refill).min(SPAM_BURST);
        bucket.1 = now_ms;
        if bucket.0 < 1.0 {
            return false;
        }
        bucket.0 -= 1.0;
        true
    }
}
