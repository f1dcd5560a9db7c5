//! An event recorder, as client-go's legacy one (`record.EventRecorder`)
//! writes core/v1 Events for kube-controller-manager: one Event named
//! `<object>.<time in hex nanoseconds>` in the object's namespace; a
//! repeat of the same event (same object, type, reason and message) from
//! the same recorder bumps `count` and `lastTimestamp` with a patch, as
//! its correlator's logger does.
//!
//! Upstream's correlator also folds more than ten similar events (same
//! reason, different messages) within ten minutes into one "(combined
//! from similar events)" event and rate-limits bursts; kubesim does not
//! (docs/fidelity.md).

use std::collections::BTreeMap;

use serde_json::{json, Value};

use super::client::Client;
use super::object::meta_str;

pub struct Recorder {
    component: &'static str,
    host: String,
    /// What was written: the key of an event → (its name and namespace,
    /// its count).
    seen: BTreeMap<String, (String, String, i64)>,
    /// The last nanosecond time used in a name (names stay unique when
    /// many events share a simulated millisecond).
    last_nanos: i64,
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
        Recorder { component, host: host.to_string(), seen: BTreeMap::new(), last_nanos: 0 }
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
        let key = format!(
            "{}\u{0}{namespace}\u{0}{}\u{0}{}\u{0}{field_path}\u{0}{}\u{0}{reason}\u{0}{message}",
            kind,
            meta_str(obj, "name"),
            meta_str(obj, "uid"),
            event_type.as_str()
        );
        let events = format!("/api/v1/namespaces/{namespace}/events");
        if let Some((name, ns, count)) = self.seen.get(&key).cloned() {
            let body = json!({"count": count + 1, "lastTimestamp": now});
            let r = client.write(
                "PATCH",
                &format!("/api/v1/namespaces/{ns}/events/{name}"),
                "application/strategic-merge-patch+json",
                &body,
            );
            if r.status == 200 {
                self.seen.insert(key, (name, ns, count + 1));
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
        // Names are the time in nanoseconds; simulated time has
        // milliseconds, so this recorder's names move on by one within one
        // (and past a name another recorder took).
        let first = (client.now_millis() * 1_000_000).max(self.last_nanos + 1);
        for nanos in first..first + 1_000 {
            self.last_nanos = nanos;
            let name = format!("{}.{:x}", meta_str(obj, "name"), nanos);
            let event = json!({
                "kind": "Event", "apiVersion": "v1",
                "metadata": {"name": name, "namespace": namespace},
                "involvedObject": involved, "reason": reason, "message": message, "source": source,
                "firstTimestamp": now, "lastTimestamp": now, "count": 1, "type": event_type.as_str(),
                "eventTime": null, "reportingComponent": self.component, "reportingInstance": self.host,
            });
            let r = client.write("POST", &events, "application/json", &event);
            match r.status {
                409 => continue,
                201 => {
                    // As upstream's LRU of 4096 entries, roughly.
                    if self.seen.len() >= 4096 {
                        self.seen.clear();
                    }
                    self.seen.insert(key, (name, namespace.to_string(), 1));
                    return;
                }
                _ => return,
            }
        }
    }
}
