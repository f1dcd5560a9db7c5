//! Watch streams. A stream is a cursor into storage's shared event log plus
//! a filter; polling it never copies an object (events hold `Arc`s to the
//! stored bytes), and a stream that falls too far behind is closed with an
//! ERROR event it can see.

use std::collections::VecDeque;
use std::sync::Arc;

use serde_json::json;

use crate::api::{Revision, Status, WatchEventType};
use crate::clock::SimTime;
use crate::registry::ResourceType;
use crate::selector::{FieldSelector, LabelSelector};
use crate::storage::{EventKind, ListStart, Storage, StorageError, StoredObject, WatchCursor};

use super::list::selectors;
use super::params::ListOptions;
use super::{Response, Served, Server};
use crate::registry::store::{list_prefix, parse_rv, storage_status};

/// How often bookmarks are sent, in simulated time (upstream: about a minute).
pub const BOOKMARK_INTERVAL_MS: i64 = 60_000;

#[derive(Clone, Debug)]
pub enum WatchObject {
    Stored(Arc<StoredObject>),
    Inline(Arc<[u8]>),
}

/// One event as a client sees it.
#[derive(Clone, Debug)]
pub struct WatchEvent {
    pub event_type: WatchEventType,
    pub object: WatchObject,
}

impl WatchEvent {
    pub fn object_json(&self) -> &[u8] {
        match &self.object {
            WatchObject::Stored(o) => &o.json,
            WatchObject::Inline(b) => b,
        }
    }

    /// `{"type":"ADDED","object":{...}}` followed by a newline.
    pub fn write_json_line(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(b"{\"type\":\"");
        out.extend_from_slice(self.event_type.as_str().as_bytes());
        out.extend_from_slice(b"\",\"object\":");
        out.extend_from_slice(self.object_json());
        out.extend_from_slice(b"}\n");
    }

    pub fn error(status: &Status) -> WatchEvent {
        WatchEvent { event_type: WatchEventType::Error, object: WatchObject::Inline(status.to_json().into()) }
    }

    pub fn bookmark(rt: &ResourceType, rev: Revision, initial_events_end: bool) -> WatchEvent {
        let mut meta = json!({"resourceVersion": rev.to_string()});
        if initial_events_end {
            meta["annotations"] = json!({"k8s.io/initial-events-end": "true"});
        }
        let obj = json!({"kind": rt.kind, "apiVersion": rt.api_version(), "metadata": meta});
        WatchEvent {
            event_type: WatchEventType::Bookmark,
            object: WatchObject::Inline(serde_json::to_vec(&obj).unwrap_or_default().into()),
        }
    }

    /// The resourceVersion of the event's object, when it has one.
    pub fn resource_version(&self) -> Option<String> {
        let v: serde_json::Value = serde_json::from_slice(self.object_json()).ok()?;
        v.pointer("/metadata/resourceVersion").and_then(|r| r.as_str()).map(str::to_string)
    }
}

/// An open watch: the state a poll needs.
#[derive(Debug)]
pub struct WatchStream {
    pub rt: &'static ResourceType,
    pub(crate) cursor: WatchCursor,
    /// The head revision when the watch opened: catching up on history
    /// before it does not count against the buffer.
    pub(crate) opened_at: Revision,
    pub(crate) label: LabelSelector,
    pub(crate) field: FieldSelector,
    pub(crate) queue: VecDeque<WatchEvent>,
    pub(crate) bookmarks: bool,
    pub(crate) next_bookmark: SimTime,
    pub(crate) deadline: Option<SimTime>,
    pub(crate) done: bool,
    /// The negotiated representation (None: plain JSON, as opened by
    /// callers that bypass negotiation).
    pub(crate) rendering: Option<super::represent::Rendering>,
    /// Whether a Table's column definitions went out (first event only).
    pub(crate) table_headers_sent: bool,
    /// The server's shared protobuf encodings (protobuf streams only).
    pub(crate) proto_cache: Option<Arc<std::sync::Mutex<crate::proto::EncodingCache>>>,
}

impl WatchStream {
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// The revision after which events are still to be delivered.
    pub fn position(&self) -> Revision {
        Revision(self.cursor.next.0.saturating_sub(1))
    }

    /// When the stream next has something to do without a write
    /// (a bookmark or its timeout), in simulated time.
    pub fn next_wakeup(&self) -> Option<SimTime> {
        let b = self.bookmarks.then_some(self.next_bookmark);
        match (b, self.deadline) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Writes an event as the stream's encoding frames it: a JSON line, or a
    /// length-prefixed protobuf `WatchEvent`.
    pub fn write_event(&self, e: &WatchEvent, out: &mut Vec<u8>) {
        let protobuf = self.rendering.is_some_and(|r| r.output.encoding == super::negotiation::Encoding::Protobuf);
        if !protobuf {
            return e.write_json_line(out);
        }
        // A stored object's encoding is made once for every watcher.
        if let (WatchObject::Stored(obj), Some(cache)) = (&e.object, &self.proto_cache) {
            let api_version = self.rt.api_version();
            let raw = cache.lock().unwrap_or_else(|p| p.into_inner()).raw(obj, &api_version, self.rt.kind);
            if let Ok(raw) = raw {
                let enveloped = crate::proto::envelope(&api_version, self.rt.kind, &raw);
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
        let Some(r) = self.rendering.filter(|r| r.output.convert.is_some()) else { return };
        for e in events.iter_mut() {
            if e.event_type == WatchEventType::Error {
                continue;
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
            e.object = WatchObject::Inline(serde_json::to_vec(&converted).unwrap_or_default().into());
        }
    }

    pub(crate) fn passes(&self, obj: &StoredObject) -> bool {
        obj.selected_by(&self.label, &self.field)
    }
}

impl Server {
    pub(crate) fn start_watch(
        &mut self,
        rt: &'static ResourceType,
        namespace: Option<&str>,
        name: Option<&str>,
        mut opts: ListOptions,
    ) -> Result<Served, Status> {
        opts.validate()?;
        if let Some(name) = name {
            if !opts.field_selector.is_empty() {
                opts.field_selector.push(',');
            }
            opts.field_selector.push_str(&format!("metadata.name={name}"));
        }
        let (label, field) = selectors(rt, &opts)?;
        let head = self.revision();
        let rv = opts.resource_version.clone().unwrap_or_default();
        let send_initial = opts.send_initial_events;
        let prefix = list_prefix(rt, namespace);
        let now = self.now();
        let mut stream = WatchStream {
            rt,
            cursor: crate::storage::WatchCursor { prefix: prefix.clone(), next: head.next() },
            opened_at: head,
            label,
            field,
            queue: VecDeque::new(),
            bookmarks: opts.allow_watch_bookmarks,
            next_bookmark: now.plus_millis(BOOKMARK_INTERVAL_MS),
            deadline: opts.timeout_seconds.filter(|t| *t > 0).map(|t| now.plus_millis(t.saturating_mul(1000))),
            done: false,
            rendering: None,
            table_headers_sent: false,
            proto_cache: None,
        };
        let head_response = {
            let mut r = Response::json(200, Vec::new());
            r.headers.push(("Transfer-Encoding".into(), "chunked".into()));
            r
        };
        // The three watch semantics of spec 000, and streaming lists.
        let initial = match (send_initial, rv.as_str()) {
            (Some(true), "") | (Some(true), "0") => true,
            (Some(true), rv) => {
                let want = parse_rv(rv)?;
                if want > head {
                    return Err(Status::too_large_resource_version(want.0, head.0));
                }
                true
            }
            (Some(false), "") | (Some(false), "0") => false,
            (None, "") | (None, "0") => true,
            (_, rv) => {
                let want = parse_rv(rv)?;
                match self.registry.storage.watch(&prefix, want) {
                    Ok(c) => stream.cursor = c,
                    Err(e) => {
                        stream.queue.push_back(WatchEvent::error(&storage_status(rt, "", e)));
                        stream.done = true;
                    }
                }
                false
            }
        };
        if initial {
            let page = self
                .registry
                .list(&prefix, head, &ListStart::Beginning, None, None)
                .map_err(|e| storage_status(rt, "", e))?;
            for obj in page.items {
                if stream.passes(&obj) {
                    stream
                        .queue
                        .push_back(WatchEvent { event_type: WatchEventType::Added, object: WatchObject::Stored(obj) });
                }
            }
            if send_initial == Some(true) && opts.allow_watch_bookmarks {
                stream.queue.push_back(WatchEvent::bookmark(rt, head, true));
            }
        }
        Ok(Served::Watch(head_response, stream))
    }

    /// Delivers what a watch has to say now, at most `max` events, in the
    /// stream's negotiated conversion.
    pub fn poll_watch(&mut self, w: &mut WatchStream, max: usize) -> Vec<WatchEvent> {
        let mut out = self.poll_events(w, max);
        if let Some(r) = &mut w.rendering {
            r.now = self.now();
        }
        w.convert_events(&mut out);
        out
    }

    fn poll_events(&mut self, w: &mut WatchStream, max: usize) -> Vec<WatchEvent> {
        let mut out = Vec::new();
        while out.len() < max {
            match w.queue.pop_front() {
                Some(e) => out.push(e),
                None => break,
            }
        }
        if w.done || out.len() >= max {
            return out;
        }
        let head = self.revision();
        // Only what was written since the watch opened (and not yet read)
        // fills its buffer; history before that is catch-up.
        let behind = head.0.saturating_sub(w.position().0.max(w.opened_at.0));
        if behind > self.config.watch_buffer {
            let err =
                StorageError::TooFarBehind { cursor: w.position(), head, limit: self.config.watch_buffer as usize };
            out.push(WatchEvent::error(&storage_status(w.rt, "", err)));
            w.done = true;
            return out;
        }
        match self.registry.storage.poll(&mut w.cursor, max - out.len()) {
            Ok(events) => {
                for e in events {
                    let cur = e.kind != EventKind::Deleted && w.passes(&e.object);
                    let old = e.prev.as_ref().is_some_and(|p| w.passes(p));
                    let ev = match (cur, old) {
                        (true, false) => WatchEvent {
                            event_type: WatchEventType::Added,
                            object: WatchObject::Stored(e.object.clone()),
                        },
                        (true, true) => WatchEvent {
                            event_type: WatchEventType::Modified,
                            object: WatchObject::Stored(e.object.clone()),
                        },
                        (false, true) => {
                            let obj = if e.kind == EventKind::Deleted {
                                e.object.clone()
                            } else {
                                match e.prev_at_event_revision() {
                                    Some(p) => p,
                                    None => continue,
                                }
                            };
                            WatchEvent { event_type: WatchEventType::Deleted, object: WatchObject::Stored(obj) }
                        }
                        (false, false) => continue,
                    };
                    out.push(ev);
                }
            }
            Err(e) => {
                out.push(WatchEvent::error(&storage_status(w.rt, "", e)));
                w.done = true;
                return out;
            }
        }
        let now = self.now();
        // A bookmark promises everything up to the head was delivered: only when
        // the stream is exactly there (not behind, not started in the future).
        if w.bookmarks && now >= w.next_bookmark && w.position() == self.revision() {
            out.push(WatchEvent::bookmark(w.rt, w.position(), false));
            while w.next_bookmark <= now {
                w.next_bookmark = w.next_bookmark.plus_millis(BOOKMARK_INTERVAL_MS);
            }
        }
        if w.deadline.is_some_and(|d| now >= d) {
            w.done = true;
        }
        out
    }
}
