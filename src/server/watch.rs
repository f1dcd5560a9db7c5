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
use crate::storage::{StoredObject, WatchCursor};

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

    pub(crate) fn passes(&self, obj: &StoredObject) -> bool {
        obj.selected_by(&self.label, &self.field)
    }
}
