//! WATCH: a `Watcher` is a cursor into storage's shared event log plus a
//! filter, as an explicit state the caller polls. Polling never copies an
//! object (events hold `Arc`s to the stored bytes); objects entering and
//! leaving the selector become ADDED and DELETED; bookmarks are due every
//! simulated minute; a watcher that falls further behind than its buffer is
//! closed with an ERROR event it can see. (A resource served over another's
//! storage is the exception: its events are converted, one copy each.)

use std::collections::VecDeque;
use std::sync::Arc;

use super::super::keys;
use super::super::options::ListOptions;
use super::super::resource::ResourceType;
use super::super::resource_version::{self as rv, WatchStart};
use super::list::selectors;
use super::{storage_status, Registry};
use crate::api::{Revision, Status, StoredObject, WatchEvent, WatchEventType};
use crate::clock::SimTime;
use crate::selector::{FieldSelector, LabelSelector};
use crate::storage::{EventKind, ListStart, Storage, StorageError, WatchCursor};

/// How often bookmarks are sent, in simulated time (upstream: about a minute).
pub const BOOKMARK_INTERVAL_MS: i64 = 60_000;

/// An open watch: what a poll needs.
#[derive(Debug)]
pub struct Watcher {
    pub rt: Arc<ResourceType>,
    cursor: WatchCursor,
    /// The head revision when the watch opened: catching up on history
    /// before it does not count against the buffer.
    opened_at: Revision,
    /// Revisions written since the watch opened that may go unread before
    /// the watcher is closed.
    buffer: u64,
    label: LabelSelector,
    field: FieldSelector,
    queue: VecDeque<WatchEvent>,
    bookmarks: bool,
    next_bookmark: SimTime,
    deadline: Option<SimTime>,
    done: bool,
}

impl Watcher {
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// Ends the watch (nothing more will be delivered).
    pub fn close(&mut self) {
        self.done = true;
        self.queue.clear();
    }

    /// The revision after which events are still to be delivered.
    pub fn position(&self) -> Revision {
        Revision(self.cursor.next.0.saturating_sub(1))
    }

    /// When the watch next has something to do without a write (a
    /// bookmark or its timeout), in simulated time.
    pub fn next_wakeup(&self) -> Option<SimTime> {
        let b = self.bookmarks.then_some(self.next_bookmark);
        match (b, self.deadline) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    fn passes(&self, obj: &StoredObject) -> bool {
        obj.selected_by(&self.label, &self.field)
    }

    fn bookmark(&self, rev: Revision, initial_events_end: bool) -> WatchEvent {
        WatchEvent::bookmark(self.rt.kind(), self.rt.api_version(), rev, initial_events_end)
    }
}

impl<S: Storage> Registry<S> {
    /// WATCH: opens a watcher per the watch table of spec 000 (and
    /// streaming lists); `name` watches one object; `buffer` is how many
    /// revisions may go unread before the watcher is closed.
    pub fn watch(
        &self,
        rt: &Arc<ResourceType>,
        namespace: Option<&str>,
        name: Option<&str>,
        mut opts: ListOptions,
        buffer: u64,
    ) -> Result<Watcher, Status> {
        opts.validate()?;
        if let Some(name) = name {
            if !opts.field_selector.is_empty() {
                opts.field_selector.push(',');
            }
            opts.field_selector.push_str(&format!("metadata.name={name}"));
        }
        let (label, field) = selectors(rt, &opts)?;
        let head = self.storage.revision();
        let prefix = keys::prefix(rt, namespace);
        let now = self.now;
        let mut w = Watcher {
            rt: rt.clone(),
            cursor: WatchCursor { prefix: prefix.clone(), next: head.next() },
            opened_at: head,
            buffer,
            label,
            field,
            queue: VecDeque::new(),
            bookmarks: opts.allow_watch_bookmarks,
            next_bookmark: now.plus_millis(BOOKMARK_INTERVAL_MS),
            deadline: opts.timeout_seconds.filter(|t| *t > 0).map(|t| now.plus_millis(t.saturating_mul(1000))),
            done: false,
        };
        match rv::watch_start(&opts.resource_version, opts.send_initial_events, head)? {
            WatchStart::FromHead => {}
            WatchStart::After(from) => match self.storage.watch(&prefix, from) {
                Ok(c) => w.cursor = c,
                Err(e) => {
                    w.queue.push_back(WatchEvent::error(&storage_status(rt, "", e)));
                    w.done = true;
                }
            },
            WatchStart::InitialEvents => {
                let page = self
                    .storage
                    .list(&prefix, head, &ListStart::Beginning, None, None)
                    .map_err(|e| storage_status(rt, "", e))?;
                for obj in page.items {
                    if w.passes(&obj) {
                        w.queue.push_back(WatchEvent::stored(WatchEventType::Added, rt.served(obj)));
                    }
                }
                if opts.send_initial_events == Some(true) && opts.allow_watch_bookmarks {
                    let end = w.bookmark(head, true);
                    w.queue.push_back(end);
                }
            }
        }
        Ok(w)
    }

    /// What a watcher has to say now, at most `max` events.
    pub fn poll_watch(&self, w: &mut Watcher, max: usize) -> Vec<WatchEvent> {
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
        let head = self.storage.revision();
        // Only what was written since the watch opened (and not yet read)
        // fills its buffer; history before that is catch-up.
        let behind = head.0.saturating_sub(w.position().0.max(w.opened_at.0));
        if behind > w.buffer {
            let err = StorageError::TooFarBehind {
                cursor: w.position(),
                head,
                limit: usize::try_from(w.buffer).unwrap_or(usize::MAX),
            };
            out.push(WatchEvent::error(&storage_status(&w.rt, "", err)));
            w.done = true;
            return out;
        }
        match self.storage.poll(&mut w.cursor, max - out.len()) {
            Ok(events) => {
                for e in events {
                    let cur = e.kind != EventKind::Deleted && w.passes(&e.object);
                    let old = e.prev.as_ref().is_some_and(|p| w.passes(p));
                    let ev = match (cur, old) {
                        (true, false) => WatchEvent::stored(WatchEventType::Added, w.rt.served(e.object.clone())),
                        (true, true) => WatchEvent::stored(WatchEventType::Modified, w.rt.served(e.object.clone())),
                        (false, true) => {
                            let obj = if e.kind == EventKind::Deleted {
                                e.object.clone()
                            } else {
                                match e.prev_at_event_revision() {
                                    Some(p) => p,
                                    None => continue,
                                }
                            };
                            WatchEvent::stored(WatchEventType::Deleted, w.rt.served(obj))
                        }
                        (false, false) => continue,
                    };
                    out.push(ev);
                }
            }
            Err(e) => {
                out.push(WatchEvent::error(&storage_status(&w.rt, "", e)));
                w.done = true;
                return out;
            }
        }
        let now = self.now;
        // A bookmark promises everything up to the head was delivered: only
        // when the watcher is exactly there (not behind, not started in the
        // future).
        if w.bookmarks && now >= w.next_bookmark && w.position() == self.storage.revision() {
            out.push(w.bookmark(w.position(), false));
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
