//! Watch events as a client sees them: a type and an object. A stored
//! object is shared by `Arc` with storage and every other watcher; events
//! the server makes up (bookmarks, errors, converted objects) carry their
//! own bytes.

use std::sync::Arc;

use serde_json::json;

use super::object::StoredObject;
use super::{Revision, Status};

/// Types of watch events, as they appear in the `type` field on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WatchEventType {
    Added,
    Modified,
    Deleted,
    Bookmark,
    Error,
}

impl WatchEventType {
    pub fn as_str(self) -> &'static str {
        match self {
            WatchEventType::Added => "ADDED",
            WatchEventType::Modified => "MODIFIED",
            WatchEventType::Deleted => "DELETED",
            WatchEventType::Bookmark => "BOOKMARK",
            WatchEventType::Error => "ERROR",
        }
    }
}

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
    pub fn stored(event_type: WatchEventType, object: Arc<StoredObject>) -> WatchEvent {
        WatchEvent { event_type, object: WatchObject::Stored(object) }
    }

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

    /// An ERROR event carrying a Status (how a watch ends on a failure).
    pub fn error(status: &Status) -> WatchEvent {
        WatchEvent { event_type: WatchEventType::Error, object: WatchObject::Inline(status.to_json().into()) }
    }

    /// A BOOKMARK: an object of the watched kind carrying only its
    /// resourceVersion (and, at the end of a streaming list's initial
    /// events, the `k8s.io/initial-events-end` annotation).
    pub fn bookmark(kind: &str, api_version: &str, rev: Revision, initial_events_end: bool) -> WatchEvent {
        let mut meta = json!({"resourceVersion": rev.to_string()});
        if initial_events_end {
            meta["annotations"] = json!({"k8s.io/initial-events-end": "true"});
        }
        let obj = json!({"kind": kind, "apiVersion": api_version, "metadata": meta});
        WatchEvent {
            event_type: WatchEventType::Bookmark,
            object: WatchObject::Inline(crate::api::to_json(&obj).into()),
        }
    }

    /// The resourceVersion of the event's object, when it has one.
    pub fn resource_version(&self) -> Option<String> {
        let v: serde_json::Value = serde_json::from_slice(self.object_json()).ok()?;
        v.pointer("/metadata/resourceVersion").and_then(|r| r.as_str()).map(str::to_string)
    }
}
