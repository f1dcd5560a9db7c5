//! Watch lanes: each is a client that lists, watches, and resumes as an
//! informer does, with every step a real request in the log.

use std::collections::BTreeMap;
use std::rc::Rc;

use kubesim::server::{Request, WatchStream};
use serde_json::Value;

use crate::format::{query_param, set_query_param};
use crate::session::{body_json, Session, Source};

/// Where a lane is in its life (shown on the lane).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LaneState {
    Listing,
    Watching,
    /// A streaming list (`sendInitialEvents=true`): the initial events are
    /// arriving, and the cache is not complete until the bookmark that
    /// ends them.
    WaitingForBookmark,
    Resuming,
    /// The resume got 410 Gone; the lane lists again to catch up.
    RelistingAfterGone,
    Stopped,
    /// The server ended the stream (timeoutSeconds, or an error).
    Closed(String),
}

impl LaneState {
    pub fn label(&self) -> String {
        match self {
            LaneState::Listing => "listing".into(),
            LaneState::Watching => "watching".into(),
            LaneState::WaitingForBookmark => "waiting for bookmark".into(),
            LaneState::Resuming => "resuming".into(),
            LaneState::RelistingAfterGone => "relisting after 410".into(),
            LaneState::Stopped => "stopped".into(),
            LaneState::Closed(why) => format!("closed: {why}"),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RowKind {
    Added,
    Modified,
    Deleted,
    Bookmark,
    Error,
    /// An item of the list a list-first lane started from (not an event:
    /// what the informer's cache starts with).
    Listed,
    /// A note from the lane itself (listed N items, resumed from RV…).
    Note,
}

impl RowKind {
    pub fn label(&self) -> &'static str {
        match self {
            RowKind::Added => "ADDED",
            RowKind::Modified => "MODIFIED",
            RowKind::Deleted => "DELETED",
            RowKind::Bookmark => "BOOKMARK",
            RowKind::Error => "ERROR",
            RowKind::Listed => "LISTED",
            RowKind::Note => "·",
        }
    }
}

/// One line of a lane.
#[derive(Clone, Debug, PartialEq)]
pub struct LaneRow {
    pub kind: RowKind,
    pub resource_version: String,
    pub namespace: String,
    pub name: String,
    /// What else matters at a glance: deletionTimestamp and finalizers, an
    /// error's code and message, a bookmark's annotation.
    pub detail: String,
    /// An ERROR event's Status code (410 when the history is gone).
    pub status_code: Option<i64>,
    pub object: Option<Rc<str>>,
}

/// One object in a lane's cache: the version the client last saw.
#[derive(Clone, Debug, PartialEq)]
pub struct Cached {
    pub resource_version: String,
}

pub struct Lane {
    pub id: u64,
    /// The collection path, e.g. /api/v1/namespaces/default/configmaps.
    pub path: String,
    /// Extra query parameters for the watch (labelSelector=…, etc.).
    pub query: String,
    /// List first and watch from the list's resourceVersion, as informers do.
    pub list_first: bool,
    pub state: LaneState,
    pub rows: Vec<LaneRow>,
    pub last_rv: Option<String>,
    /// The client's mirror of the collection, as an informer keeps it:
    /// what the list and the events said, not what the server has now.
    pub cache: BTreeMap<String, Cached>,
    stream: Option<WatchStream>,
    /// A 410 ended the stream: list again on the next tick (so the state
    /// shows for a moment, as an informer's backoff would).
    relist_pending: bool,
}

impl Lane {
    pub fn new(id: u64, path: &str, query: &str, list_first: bool) -> Lane {
        Lane {
            id,
            path: path.trim().to_string(),
            query: query.trim().trim_start_matches('?').to_string(),
            list_first,
            state: LaneState::Stopped,
            rows: Vec::new(),
            last_rv: None,
            cache: BTreeMap::new(),
            stream: None,
            relist_pending: false,
        }
    }

    fn note(&mut self, text: String) {
        self.rows.push(LaneRow {
            kind: RowKind::Note,
            status_code: None,
            resource_version: String::new(),
            namespace: String::new(),
            name: String::new(),
            detail: text,
            object: None,
        });
    }

    /// Starts the lane: a list (if asked) then a watch.
    pub fn start(&mut self, s: &mut Session) {
        if self.list_first {
            self.relist(s, LaneState::Listing);
        } else {
            let q = set_query_param(&self.query, "watch", "true");
            self.open_watch(s, q, LaneState::Watching);
        }
    }

    fn relist(&mut self, s: &mut Session, state: LaneState) {
        self.state = state;
        let mut list_q = self.query.clone();
        for p in ["watch", "resourceVersion", "resourceVersionMatch", "sendInitialEvents", "allowWatchBookmarks"] {
            list_q = set_query_param(&list_q, p, "");
        }
        let target = if list_q.is_empty() { self.path.clone() } else { format!("{}?{}", self.path, list_q) };
        let e = s.request(Source::Lane, Request::new("GET", &target).with_header("Accept", "application/json"));
        let v = body_json(&e.response);
        if e.response.status != 200 {
            let msg = v.get("message").and_then(Value::as_str).unwrap_or("").to_string();
            self.note(format!("list failed: {} {msg}", e.response.status));
            self.state = LaneState::Closed(format!("list failed ({})", e.response.status));
            return;
        }
        let rv = v.pointer("/metadata/resourceVersion").and_then(Value::as_str).unwrap_or("").to_string();
        let listed = v.get("items").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
        let n = listed.len();
        let items = if n == 1 { "item" } else { "items" };
        self.note(format!("listed {n} {items} at resourceVersion {rv}"));
        // The items themselves, each openable in the inspector; the cache
        // starts over from them.
        self.cache.clear();
        for item in listed {
            let mut row = row_of("ADDED", &serde_json::to_vec(item).unwrap_or_default());
            row.kind = RowKind::Listed;
            self.remember(&row);
            self.rows.push(row);
        }
        self.last_rv = Some(rv.clone());
        let mut q = set_query_param(&self.query, "watch", "true");
        q = set_query_param(&q, "resourceVersion", &rv);
        if query_param(&q, "allowWatchBookmarks").is_none() {
            q = set_query_param(&q, "allowWatchBookmarks", "true");
        }
        self.open_watch(s, q, LaneState::Watching);
    }

    fn open_watch(&mut self, s: &mut Session, query: String, state: LaneState) {
        // A streaming list sends the whole collection again as ADDED
        // events: the cache is rebuilt from them.
        let streaming = query_param(&query, "sendInitialEvents").as_deref() == Some("true");
        let state = if streaming { LaneState::WaitingForBookmark } else { state };
        let target = format!("{}?{}", self.path, query);
        let (e, stream) = s.serve(Source::Lane, Request::new("GET", &target).with_header("Accept", "application/json"));
        match stream {
            Some(st) => {
                if streaming {
                    self.cache.clear();
                }
                self.stream = Some(st);
                self.state = state;
                self.pump(s);
            }
            None => {
                let v = body_json(&e.response);
                let msg = v.get("message").and_then(Value::as_str).unwrap_or("").to_string();
                self.note(format!("watch refused: {} {msg}", e.response.status));
                self.state = LaneState::Closed(format!("watch refused ({})", e.response.status));
            }
        }
    }

    /// Takes over a watch opened elsewhere (the console).
    pub fn adopt(&mut self, stream: WatchStream, s: &mut Session) {
        self.stream = Some(stream);
        self.state = LaneState::Watching;
        self.pump(s);
    }

    /// Closes the stream, keeping the last resourceVersion for a resume.
    pub fn stop(&mut self) {
        self.stream = None;
        self.relist_pending = false;
        self.state = LaneState::Stopped;
        self.generation_note("stopped");
    }

    fn generation_note(&mut self, what: &str) {
        let rv = self.last_rv.clone().unwrap_or_default();
        self.note(format!("{what} (last resourceVersion {rv})"));
    }

    /// Watches again from the last resourceVersion seen.
    pub fn resume(&mut self, s: &mut Session) {
        let Some(rv) = self.last_rv.clone() else {
            self.start(s);
            return;
        };
        self.note(format!("resuming from resourceVersion {rv}"));
        let mut q = set_query_param(&self.query, "watch", "true");
        q = set_query_param(&q, "resourceVersion", &rv);
        q = set_query_param(&q, "sendInitialEvents", "");
        self.open_watch(s, q, LaneState::Resuming);
    }

    /// Keeps the cache as an informer's store: an added or modified
    /// object replaces what was there, a deleted one goes.
    fn remember(&mut self, row: &LaneRow) {
        let key = if row.namespace.is_empty() { row.name.clone() } else { format!("{}/{}", row.namespace, row.name) };
        match row.kind {
            RowKind::Added | RowKind::Modified | RowKind::Listed => {
                self.cache.insert(key, Cached { resource_version: row.resource_version.clone() });
            }
            RowKind::Deleted => {
                self.cache.remove(&key);
            }
            RowKind::Bookmark | RowKind::Error | RowKind::Note => {}
        }
    }

    /// How many revisions the server's head is past the lane's last
    /// resourceVersion (None before the lane has one).
    pub fn lag(&self, head: u64) -> Option<u64> {
        let rv: u64 = self.last_rv.as_deref()?.parse().ok()?;
        Some(head.saturating_sub(rv))
    }

    pub fn is_open(&self) -> bool {
        self.stream.is_some() || self.relist_pending
    }

    /// Takes what the stream has; returns whether anything changed.
    pub fn pump(&mut self, s: &mut Session) -> bool {
        if self.relist_pending {
            self.relist_pending = false;
            self.relist(s, LaneState::RelistingAfterGone);
            return true;
        }
        let Some(mut stream) = self.stream.take() else { return false };
        let events = s.server.poll_watch(&mut stream, 5000);
        let changed = !events.is_empty();
        let mut gone = false;
        for ev in &events {
            let row = row_of(ev.event_type.as_str(), ev.object_json());
            if row.kind == RowKind::Error {
                gone |= row.status_code == Some(410);
            } else if !row.resource_version.is_empty() {
                self.last_rv = Some(row.resource_version.clone());
            }
            if row.kind == RowKind::Bookmark
                && row.detail == "initial-events-end"
                && self.state == LaneState::WaitingForBookmark
            {
                self.state = LaneState::Watching;
            }
            self.remember(&row);
            self.rows.push(row);
        }
        if self.state == LaneState::Resuming && changed && !gone {
            self.state = LaneState::Watching;
        }
        if stream.is_done() {
            if gone && self.list_first {
                // What an informer does: the history it needs is gone, so it
                // lists again and watches from there.
                self.state = LaneState::RelistingAfterGone;
                self.relist_pending = true;
                return true;
            }
            self.state = LaneState::Closed(if gone { "410 Gone".into() } else { "stream ended".into() });
            self.note("the server closed the stream".into());
            return true;
        }
        if self.state == LaneState::Resuming && !changed {
            self.state = LaneState::Watching;
        }
        self.stream = Some(stream);
        changed
    }
}

/// Summarises a watch event's object for a lane row.
pub fn row_of(event_type: &str, object_json: &[u8]) -> LaneRow {
    let v: Value = serde_json::from_slice(object_json).unwrap_or(Value::Null);
    let kind = match event_type {
        "ADDED" => RowKind::Added,
        "MODIFIED" => RowKind::Modified,
        "DELETED" => RowKind::Deleted,
        "BOOKMARK" => RowKind::Bookmark,
        _ => RowKind::Error,
    };
    let s = |p: &str| v.pointer(p).and_then(Value::as_str).unwrap_or("").to_string();
    let detail = match kind {
        RowKind::Error => {
            format!("{} {}: {}", v.get("code").and_then(Value::as_i64).unwrap_or(0), s("/reason"), s("/message"))
        }
        RowKind::Bookmark => {
            if s("/metadata/annotations/k8s.io~1initial-events-end") == "true" {
                "initial-events-end".into()
            } else {
                String::new()
            }
        }
        _ => {
            let mut d = Vec::new();
            let del = s("/metadata/deletionTimestamp");
            if !del.is_empty() {
                d.push(format!("deletionTimestamp={del}"));
            }
            if let Some(f) = v.pointer("/metadata/finalizers").and_then(Value::as_array) {
                if !f.is_empty() {
                    let names: Vec<&str> = f.iter().filter_map(Value::as_str).collect();
                    d.push(format!("finalizers=[{}]", names.join(", ")));
                }
            }
            d.join(" ")
        }
    };
    let status_code = if kind == RowKind::Error { v.get("code").and_then(Value::as_i64) } else { None };
    LaneRow {
        kind,
        status_code,
        resource_version: s("/metadata/resourceVersion"),
        namespace: s("/metadata/namespace"),
        name: s("/metadata/name"),
        detail,
        object: Some(Rc::from(String::from_utf8_lossy(object_json).as_ref())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kubesim::sort::Order;

    #[test]
    fn the_list_note_counts_in_words() {
        let mut s = Session::new(1);
        let mut lane = Lane::new(1, "/api/v1/namespaces", "fieldSelector=metadata.name%3Ddefault", true);
        lane.start(&mut s);
        assert!(
            lane.rows.iter().any(|r| r.detail.starts_with("listed 1 item at")),
            "{:?}",
            lane.rows.iter().map(|r| &r.detail).collect::<Vec<_>>()
        );
        // The listed item follows the note, as a row of its own.
        let listed: Vec<&LaneRow> = lane.rows.iter().filter(|r| r.kind == RowKind::Listed).collect();
        assert_eq!(listed.len(), 1);
        assert_eq!(listed[0].name, "default");
        assert!(!listed[0].resource_version.is_empty());
    }

    #[test]
    fn a_resume_into_compacted_history_relists_on_the_status_code() {
        let mut s = Session::new(1);
        let mut lane = Lane::new(1, "/api/v1/namespaces/default/configmaps", "", true);
        lane.start(&mut s);
        assert_eq!(lane.state, LaneState::Watching);
        lane.stop();
        s.request(
            crate::session::Source::Console,
            Request::new("POST", "/api/v1/namespaces/default/configmaps").with_body(r#"{"metadata":{"name":"late"}}"#),
        );
        s.compact_now();
        lane.resume(&mut s);
        let error = lane.rows.iter().rev().find(|r| r.kind == RowKind::Error).expect("the 410 shows");
        assert_eq!(error.status_code, Some(410));
        assert_eq!(lane.state, LaneState::RelistingAfterGone);
        lane.pump(&mut s);
        assert_eq!(lane.state, LaneState::Watching, "listed again and watching");
    }

    fn post(s: &mut Session, method: &str, path: &str, body: &str) -> u16 {
        let ct = if method == "PATCH" { "application/merge-patch+json" } else { "application/json" };
        let req = Request::new(method, path).with_header("Content-Type", ct).with_body(body);
        s.request(crate::session::Source::Console, req).response.status
    }

    fn cached(lane: &Lane) -> Vec<(String, String)> {
        lane.cache.iter().map(|(k, c)| (k.clone(), c.resource_version.clone())).collect()
    }

    /// The server's list of the collection, as (key, resourceVersion).
    fn listed(s: &mut Session, path: &str) -> Vec<(String, String)> {
        let e = s.request(crate::session::Source::Console, Request::new("GET", path));
        let v = body_json(&e.response);
        let mut out: Vec<(String, String)> = v["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| {
                let m = &i["metadata"];
                (
                    format!("{}/{}", m["namespace"].as_str().unwrap(), m["name"].as_str().unwrap()),
                    m["resourceVersion"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        out.order();
        out
    }

    #[test]
    fn the_cache_mirrors_the_list_and_the_events_and_lags_while_stopped() {
        let path = "/api/v1/namespaces/default/configmaps";
        let mut s = Session::new(1);
        let mut lane = Lane::new(1, path, "", true);
        lane.start(&mut s);
        assert_eq!(cached(&lane), listed(&mut s, path), "the list fills the cache");
        assert_eq!(lane.lag(s.server.revision().0), Some(0));

        assert_eq!(post(&mut s, "POST", path, r#"{"metadata":{"name":"a"}}"#), 201);
        lane.pump(&mut s);
        assert_eq!(post(&mut s, "PATCH", &format!("{path}/a"), r#"{"data":{"k":"v"}}"#), 200);
        lane.pump(&mut s);
        assert_eq!(cached(&lane), listed(&mut s, path), "an added then modified object at its new version");
        let first = listed(&mut s, path)[0].0.clone();
        let name = first.trim_start_matches("default/");
        assert_eq!(post(&mut s, "DELETE", &format!("{path}/{name}"), ""), 200);
        lane.pump(&mut s);
        assert!(!lane.cache.contains_key(&first), "a deleted object leaves the cache");
        assert_eq!(cached(&lane), listed(&mut s, path));

        // Stopped, the client falls behind: the server moves, the cache does not.
        lane.stop();
        let before = cached(&lane);
        assert_eq!(post(&mut s, "POST", path, r#"{"metadata":{"name":"b"}}"#), 201);
        assert_eq!(cached(&lane), before);
        assert_eq!(lane.lag(s.server.revision().0), Some(1));
        lane.resume(&mut s);
        assert_eq!(cached(&lane), listed(&mut s, path), "the resume catches up");
        assert_eq!(lane.lag(s.server.revision().0), Some(0));
    }

    #[test]
    fn a_relist_after_410_replaces_the_cache_with_the_server_s_list() {
        let path = "/api/v1/namespaces/default/configmaps";
        let mut s = Session::new(1);
        let mut lane = Lane::new(1, path, "", true);
        lane.start(&mut s);
        lane.stop();
        let gone = listed(&mut s, path)[0].0.clone();
        let name = gone.trim_start_matches("default/");
        assert_eq!(post(&mut s, "DELETE", &format!("{path}/{name}"), ""), 200);
        assert_eq!(post(&mut s, "POST", path, r#"{"metadata":{"name":"late"}}"#), 201);
        s.compact_now();
        lane.resume(&mut s);
        assert_eq!(lane.state, LaneState::RelistingAfterGone);
        assert_ne!(cached(&lane), listed(&mut s, path), "until the relist, the cache is what it was");
        lane.pump(&mut s);
        assert_eq!(cached(&lane), listed(&mut s, path), "a deletion the watch never delivered is gone too");
    }

    #[test]
    fn a_streaming_list_fills_the_cache_and_watches_after_its_bookmark() {
        let path = "/api/v1/namespaces/default/configmaps";
        let mut s = Session::new(1);
        let query = "sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true";
        let mut lane = Lane::new(1, path, query, false);
        lane.start(&mut s);
        assert!(lane.rows.iter().any(|r| r.detail == "initial-events-end"), "{:?}", lane.rows);
        assert_eq!(lane.state, LaneState::Watching, "the bookmark ends the wait");
        assert_eq!(cached(&lane), listed(&mut s, path));
    }

    #[test]
    fn a_streaming_list_waits_until_its_bookmark_arrives() {
        // Opened with the initial events not yet taken, the lane waits.
        let path = "/api/v1/namespaces/default/configmaps";
        let mut s = Session::new(1);
        let mut lane = Lane::new(1, path, "", false);
        let (_, stream) = s.serve(
            crate::session::Source::Lane,
            Request::new("GET", &format!("{path}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true")),
        );
        lane.stream = stream;
        lane.state = LaneState::WaitingForBookmark;
        assert_eq!(lane.state.label(), "waiting for bookmark");
        lane.pump(&mut s);
        assert_eq!(lane.state, LaneState::Watching);
    }

    #[test]
    fn rows_summarise_terminating_objects_errors_and_bookmarks() {
        let r = row_of("MODIFIED", br#"{"metadata":{"name":"a","namespace":"d","resourceVersion":"7","deletionTimestamp":"T","finalizers":["x","y"]}}"#);
        assert_eq!(
            (r.kind, r.resource_version.as_str(), r.detail.as_str()),
            (RowKind::Modified, "7", "deletionTimestamp=T finalizers=[x, y]")
        );
        let r = row_of(
            "ERROR",
            br#"{"kind":"Status","code":410,"reason":"Expired","message":"too old resource version: 1 (5)"}"#,
        );
        assert_eq!(r.detail, "410 Expired: too old resource version: 1 (5)");
        assert_eq!(r.status_code, Some(410), "the lane reads the Status code, not the text");
        let r = row_of("ERROR", br#"{"kind":"Status","code":500,"message":"410 things went wrong"}"#);
        assert_eq!(r.status_code, Some(500));
        let r = row_of(
            "BOOKMARK",
            br#"{"metadata":{"resourceVersion":"9","annotations":{"k8s.io/initial-events-end":"true"}}}"#,
        );
        assert_eq!(r.detail, "initial-events-end");
    }
}
