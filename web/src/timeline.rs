//! The revision timeline: every write the server made, as a point on the
//! global revision axis, kept by the page after the server compacts it.

use std::borrow::Cow;
use std::collections::HashSet;
use std::rc::Rc;

use serde::Deserialize;

/// One answer of `/debug/kubesim/history`, as read (strings borrowed
/// from the body where they need no unescaping).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct HistoryPage<'a> {
    #[serde(borrow, default)]
    compacted_revision: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    revision: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    now: Option<Cow<'a, str>>,
    #[serde(default)]
    history_window_seconds: Option<i64>,
    #[serde(borrow, default)]
    events: Vec<HistoryEvent<'a>>,
}

#[derive(Deserialize)]
struct HistoryEvent<'a> {
    #[serde(borrow, default)]
    revision: Option<Cow<'a, str>>,
    #[serde(borrow, default, rename = "type")]
    event: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    group: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    version: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    resource: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    namespace: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
}

/// One write. The strings that repeat from point to point (the event
/// type, the resource, the namespace) are shared, so that a reload taking
/// in 100,000 writes makes one string per object name, not seven a write.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Point {
    pub revision: u64,
    /// ADDED, MODIFIED or DELETED.
    pub event: Rc<str>,
    pub group: Rc<str>,
    pub version: Rc<str>,
    pub resource: Rc<str>,
    pub kind: Rc<str>,
    pub namespace: Rc<str>,
    pub name: String,
}

impl Point {
    pub fn verb(&self) -> &'static str {
        match &*self.event {
            "ADDED" => "create",
            "DELETED" => "delete",
            _ => "update",
        }
    }

    pub fn object_label(&self) -> String {
        if self.namespace.is_empty() {
            format!("{}/{}", self.kind, self.name)
        } else {
            format!("{}/{}/{}", self.kind, self.namespace, self.name)
        }
    }

    /// The collection path this point's object lives in (all namespaces).
    pub fn collection_path(&self) -> String {
        crate::paths::collection(&self.group, &self.version, &self.resource, None)
    }

    /// An update of a Lease: a kubelet renewing its node's (every 10 s of
    /// simulated time), or anyone's.
    pub fn is_renewal(&self) -> bool {
        &*self.event == "MODIFIED" && &*self.resource == "leases" && &*self.group == "coordination.k8s.io"
    }
}

#[derive(Clone, Debug, Default)]
pub struct Timeline {
    pub points: Vec<Point>,
    pub last_revision: u64,
    pub compacted: u64,
    pub now: String,
    pub history_window_seconds: i64,
    /// How many points were looked at, and the indices among them of the
    /// writes that are not Lease renewals, in order (what the timeline
    /// shows while renewals are hidden): brought up to date when the view
    /// asks (`others`), so that taking in history does no more than it did.
    others: std::cell::RefCell<(usize, Vec<usize>)>,
    /// The shared strings of the points.
    shared: HashSet<Rc<str>>,
}

/// The shared copy of `s`, made the first time it is seen; `prev` (the
/// same field of the point before, usually equal) is tried first.
fn share(shared: &mut HashSet<Rc<str>>, prev: Option<&Rc<str>>, s: Option<Cow<'_, str>>) -> Rc<str> {
    let s = s.unwrap_or_default();
    if let Some(prev) = prev.filter(|p| ***p == *s) {
        return prev.clone();
    }
    if let Some(found) = shared.get(&*s) {
        return found.clone();
    }
    let new: Rc<str> = Rc::from(&*s);
    shared.insert(new.clone());
    new
}

impl Timeline {
    /// Takes in one answer of the history endpoint, read straight into
    /// points (a reload takes in every retained write this way); returns
    /// how many new points it held.
    pub fn absorb(&mut self, body: &[u8]) -> usize {
        match serde_json::from_slice::<HistoryPage>(body) {
            Ok(page) => self.absorb_page(page),
            Err(_) => 0,
        }
    }

    fn absorb_page(&mut self, page: HistoryPage<'_>) -> usize {
        let num = |s: Option<Cow<'_, str>>| s.and_then(|s| s.parse::<u64>().ok());
        if let Some(c) = num(page.compacted_revision) {
            self.compacted = c;
        }
        if let Some(now) = page.now {
            self.now = now.into_owned();
        }
        if let Some(w) = page.history_window_seconds {
            self.history_window_seconds = w;
        }
        let mut added = 0;
        self.points.reserve(page.events.len());
        for e in page.events {
            let Some(revision) = e.revision.and_then(|r| r.parse::<u64>().ok()) else { continue };
            if revision <= self.last_revision {
                continue;
            }
            self.last_revision = revision;
            let shared = &mut self.shared;
            let prev = self.points.last();
            let point = Point {
                revision,
                event: share(shared, prev.map(|p| &p.event), e.event),
                group: share(shared, prev.map(|p| &p.group), e.group),
                version: share(shared, prev.map(|p| &p.version), e.version),
                resource: share(shared, prev.map(|p| &p.resource), e.resource),
                kind: share(shared, prev.map(|p| &p.kind), e.kind),
                namespace: share(shared, prev.map(|p| &p.namespace), e.namespace),
                name: e.name.map(Cow::into_owned).unwrap_or_default(),
            };
            self.points.push(point);
            added += 1;
        }
        // Nothing new but the head moved past what we saw (e.g. all of it
        // compacted away before we looked): catch up so we stop asking.
        if added == 0 {
            if let Some(head) = num(page.revision) {
                self.last_revision = self.last_revision.max(head.min(self.compacted));
            }
        }
        added
    }

    /// The indices of the points that are not Lease renewals, oldest
    /// first.
    pub fn others(&self) -> std::cell::Ref<'_, Vec<usize>> {
        {
            let mut cache = self.others.borrow_mut();
            let (seen, others) = &mut *cache;
            others.extend((*seen..self.points.len()).filter(|i| !self.points[*i].is_renewal()));
            *seen = self.points.len();
        }
        std::cell::Ref::map(self.others.borrow(), |(_, others)| others)
    }

    /// The revisions at which one object was written, newest last.
    pub fn revisions_of(&self, group: &str, resource: &str, namespace: &str, name: &str) -> Vec<&Point> {
        self.points
            .iter()
            .filter(|p| &*p.group == group && &*p.resource == resource && &*p.namespace == namespace && p.name == name)
            .collect()
    }

    /// The collection paths (all namespaces) written at or before `rev`.
    pub fn collections_until(&self, rev: u64) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for p in self.points.iter().take_while(|p| p.revision <= rev) {
            let path = p.collection_path();
            if !out.contains(&path) {
                out.push(path);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn absorbs_new_points_once() {
        let mut t = Timeline::default();
        let page = json!({"revision": "3", "compactedRevision": "1", "now": "2023-11-14T22:13:20Z",
            "historyWindowSeconds": 300, "events": [
            {"revision": "2", "type": "ADDED", "group": "", "version": "v1", "resource": "configmaps", "kind": "ConfigMap", "namespace": "default", "name": "a"},
            {"revision": "3", "type": "DELETED", "group": "", "version": "v1", "resource": "configmaps", "kind": "ConfigMap", "namespace": "default", "name": "a"}]});
        let page = page.to_string();
        assert_eq!(t.absorb(page.as_bytes()), 2);
        assert_eq!(t.absorb(page.as_bytes()), 0);
        assert_eq!(t.last_revision, 3);
        assert_eq!(*t.others(), [0, 1]);
        assert_eq!(t.points[1].verb(), "delete");
        assert_eq!(t.points[0].object_label(), "ConfigMap/default/a");
        assert_eq!(t.revisions_of("", "configmaps", "default", "a").len(), 2);
        assert_eq!(t.collections_until(2), vec!["/api/v1/configmaps".to_string()]);
        assert_eq!(t.compacted, 1);
    }

    #[test]
    fn lease_renewals_are_told_apart_from_other_writes() {
        let mut t = Timeline::default();
        let lease = |rev: u32, event: &str| {
            json!({"revision": rev.to_string(), "type": event, "group": "coordination.k8s.io",
            "version": "v1", "resource": "leases", "kind": "Lease", "namespace": "kube-node-lease", "name": "node-a"})
        };
        let page = json!({"revision": "4", "events": [lease(1, "ADDED"), lease(2, "MODIFIED"),
            {"revision": "3", "type": "MODIFIED", "group": "", "version": "v1", "resource": "nodes", "kind": "Node", "name": "node-a"},
            lease(4, "MODIFIED")]});
        assert_eq!(t.absorb(page.to_string().as_bytes()), 4);
        // The Lease's creation and the Node's update stay; the renewals go.
        assert_eq!(*t.others(), [0, 2]);
        assert!(t.points[3].is_renewal() && !t.points[0].is_renewal());
    }
}
