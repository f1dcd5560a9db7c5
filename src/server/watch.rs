//! Watch streams as the doors see them: the registry's `Watcher` plus the
//! representation the request negotiated. Polling converts what the
//! watcher delivers (`;as=Table`, PartialObjectMetadata); writing frames it
//! (JSON lines, or length-prefixed protobuf frames sharing one encoding per
//! stored object across every watcher).

use std::sync::{Arc, Mutex};

use crate::api::{Revision, Status, WatchEvent, WatchEventType, WatchObject};
use crate::clock::SimTime;
use crate::registry::store::Watcher;

use super::negotiation::Encoding;
use super::represent::Rendering;
use super::Server;

pub use crate::registry::store::BOOKMARK_INTERVAL_MS;

/// An open watch.
#[derive(Debug)]
pub struct WatchStream {
    pub(crate) watcher: Watcher,
    /// The negotiated representation (None: plain JSON, as opened by
    /// callers that bypass negotiation).
    pub(crate) rendering: Option<Rendering>,
    /// Whether a Table's column definitions went out (first event only).
    pub(crate) table_headers_sent: bool,
    /// The server's shared protobuf encodings (protobuf streams only).
    pub(crate) proto_cache: Option<Arc<Mutex<crate::proto::EncodingCache>>>,
    /// Held while the stream is open: the server counts its watchers by it.
    pub(crate) registered: Option<Arc<()>>,
}

impl WatchStream {
    pub(crate) fn new(watcher: Watcher) -> WatchStream {
        WatchStream { watcher, rendering: None, table_headers_sent: false, proto_cache: None, registered: None }
    }

    pub fn is_done(&self) -> bool {
        self.watcher.is_done()
    }

    /// The revision after which events are still to be delivered.
    pub fn position(&self) -> Revision {
        self.watcher.position()
    }

    /// When the stream next has something to do without a write
    /// (a bookmark or its timeout), in simulated time.
    pub fn next_wakeup(&self) -> Option<SimTime> {
        self.watcher.next_wakeup()
    }

    /// Writes an event as the stream's encoding frames it: a JSON line, or a
    /// length-prefixed protobuf `WatchEvent`.
    pub fn write_event(&self, e: &WatchEvent, out: &mut Vec<u8>) {
        let protobuf = self.rendering.as_ref().is_some_and(|r| r.output.encoding == Encoding::Protobuf);
        if !protobuf {
            return e.write_json_line(out);
        }
        let rt = &self.watcher.rt;
        // A stored object's encoding is made once for every watcher.
        if let (WatchObject::Stored(obj), Some(cache)) = (&e.object, &self.proto_cache) {
            let raw = cache.lock().unwrap_or_else(|p| p.into_inner()).raw(obj, rt.api_version(), rt.kind());
            if let Ok(raw) = raw {
                let enveloped = crate::proto::envelope(rt.api_version(), rt.kind(), &raw);
                crate::proto::write_watch_frame_enveloped(e.event_type.as_str(), &enveloped, out);
                return;
            }
        }
        let framed = serde_json::from_slice::<serde_json::Value>(e.object_json())
            .map_err(|err| err.to_string())
            .and_then(|v| crate::proto::write_watch_frame(e.event_type.as_str(), &v, out));
        if let Err(err) = framed {
            let status = Status::internal_error(err);
            let v = serde_json::from_slice(&status.to_json()).unwrap_or_default();
            let _ = crate::proto::write_watch_frame("ERROR", &v, out);
        }
    }

    /// Applies the stream's `;as=` conversion to delivered events.
    fn convert_events(&mut self, events: &mut [WatchEvent]) {
        let Some(r) = self.rendering.clone().filter(|r| r.output.convert.is_some()) else { return };
        for e in events.iter_mut() {
            if e.event_type == WatchEventType::Error {
                continue;
            }
            match super::represent::metadata_only_json(&r, e.object_json()) {
                Some(Ok(json)) => {
                    e.object = WatchObject::Inline(json.into());
                    continue;
                }
                Some(Err(s)) => {
                    *e = WatchEvent::error(&s);
                    continue;
                }
                None => {}
            }
            let Ok(v) = serde_json::from_slice::<serde_json::Value>(e.object_json()) else { continue };
            let converted = match super::represent::convert(&r, v, !self.table_headers_sent) {
                Ok(v) => v,
                Err(s) => {
                    *e = WatchEvent::error(&s);
                    continue;
                }
            };
            self.table_headers_sent = true;
            e.object = WatchObject::Inline(crate::api::to_json(&converted).into());
        }
    }

    /// Ends the stream with an ERROR event carrying `status` (how a watch
    /// that fails while being served tells its client, rather than going
    /// silent).
    pub fn fail(&mut self, status: &Status) -> WatchEvent {
        self.watcher.close();
        WatchEvent::error(status)
    }
}

impl Server {
    /// Delivers what a watch has to say now, at most `max` events, in the
    /// stream's negotiated conversion.
    pub fn poll_watch(&mut self, w: &mut WatchStream, max: usize) -> Vec<WatchEvent> {
        let mut out = self.registry.poll_watch(&mut w.watcher, max);
        if !out.is_empty() {
            let rt = &w.watcher.rt;
            self.metrics.watch_events(rt.group(), rt.version(), rt.kind(), out.len() as u64);
        }
        if let Some(r) = &mut w.rendering {
            r.now = self.now();
        }
        w.convert_events(&mut out);
        out
    }
}

/// Polls a watch with `poll`, turning a panic into an ERROR event that
/// carries a 500 Status and ends the stream: a door that pumps a watch
/// calls this, so a bug reaches the client as an answer rather than a
/// silent close. (On wasm32, where panics abort, it is a plain call.)
pub fn guard_poll(stream: &mut WatchStream, poll: impl FnOnce(&mut WatchStream) -> Vec<WatchEvent>) -> Vec<WatchEvent> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| poll(stream))) {
        Ok(events) => events,
        Err(_) => {
            vec![stream.fail(&Status::internal_error("the simulator panicked while serving this watch"))]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::{Request, Served, ServerConfig};

    fn open(s: &mut Server, accept: &str) -> WatchStream {
        let req = Request::new("GET", "/api/v1/namespaces/default/configmaps?watch=1").with_header("Accept", accept);
        match s.serve(req) {
            Served::Watch(_, w) => w,
            Served::Response(r) | Served::Log(r, _) => panic!("{}", String::from_utf8_lossy(&r.body)),
        }
    }

    #[test]
    fn a_watch_whose_poll_fails_ends_with_an_error_event_carrying_a_status() {
        let mut s = Server::new(ServerConfig::default());
        let mut w = open(&mut s, "application/json");
        let events = guard_poll(&mut w, |_| panic!("a bug while polling"));
        assert!(w.is_done(), "the stream ends");
        assert_eq!(events.len(), 1);
        assert_eq!(events[0].event_type, WatchEventType::Error);
        let mut line = Vec::new();
        w.write_event(&events[0], &mut line);
        let v: serde_json::Value = serde_json::from_slice(&line).unwrap();
        assert_eq!((v["type"].as_str(), v["object"]["code"].as_i64()), (Some("ERROR"), Some(500)));
        assert_eq!(v["object"]["reason"], "InternalError");
        assert!(s.poll_watch(&mut w, 10).is_empty(), "nothing after the error");
        // A protobuf stream frames the same Status as a protobuf event.
        let mut p = open(&mut s, "application/vnd.kubernetes.protobuf");
        let events = guard_poll(&mut p, |_| panic!("again"));
        let mut frames = Vec::new();
        p.write_event(&events[0], &mut frames);
        let decoded = crate::proto::read_watch_frames(&frames).unwrap();
        assert_eq!((decoded[0].0.as_str(), decoded[0].1["code"].as_i64()), ("ERROR", Some(500)));
    }
}
