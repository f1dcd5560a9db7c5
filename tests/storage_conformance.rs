//! The storage contract, as functions over `Storage` (in the manner of
//! k8s.io/apiserver's pkg/storage/testing): any backend must pass each one.

use kubesim::api::Revision;
use kubesim::clock::SimTime;
use kubesim::storage::{EventKind, ListStart, MemStorage, ObjectAttrs, Storage, StorageError, StorageSize};
use serde_json::{json, Value};

fn obj(name: &str, v: i64) -> Value {
    json!({"kind": "ConfigMap", "apiVersion": "v1", "metadata": {"name": name, "namespace": "ns"}, "data": {"v": v.to_string()}})
}

fn attrs(app: &str) -> ObjectAttrs {
    ObjectAttrs::new(vec![("app".into(), app.into())], vec![])
}

fn t(s: i64) -> SimTime {
    SimTime(s * 1000)
}

fn rv_of(o: &kubesim::storage::StoredObject) -> String {
    o.value()["metadata"]["resourceVersion"].as_str().unwrap().to_string()
}

pub fn create_get_and_revisions<S: Storage>(mut s: S) {
    assert_eq!(s.revision(), Revision(0));
    let a = s.create("/cm/ns/a", obj("a", 1), attrs("x"), t(1)).unwrap();
    assert_eq!(rv_of(&a), "1", "the stored object carries its revision");
    assert_eq!(s.revision(), Revision(1));
    let (rev, got) = s.get("/cm/ns/a", Revision(1)).unwrap().unwrap();
    assert_eq!(rev, Revision(1));
    assert_eq!(got.json, a.json);
    assert_eq!(
        s.create("/cm/ns/a", obj("a", 2), attrs("x"), t(1)),
        Err(StorageError::KeyExists { key: "/cm/ns/a".into() })
    );
    assert_eq!(s.revision(), Revision(1), "a failed write does not bump the revision");
    assert_eq!(s.get("/cm/ns/a", Revision(1)).unwrap().unwrap().1.json, a.json, "nor changes the key");
    // Too large for storage: refused, and the key is not made.
    let mut big = obj("b", 1);
    big["data"]["v"] = json!("x".repeat(kubesim::storage::MAX_REQUEST_BYTES));
    assert!(matches!(s.create("/cm/ns/b", big, attrs("x"), t(1)), Err(StorageError::TooLarge { .. })));
    assert_eq!(s.revision(), Revision(1));
    assert!(s.get("/cm/ns/b", Revision(1)).unwrap().is_none());
    assert!(!s.has_live("/cm/ns/b"));
    assert!(s.written_since(Revision(0), &|k| k == "/cm/ns/b") == Ok(false));
    // A deleted key is free again.
    s.delete("/cm/ns/a", None, t(2)).unwrap();
    let again = s.create("/cm/ns/a", obj("a", 3), attrs("x"), t(3)).unwrap();
    assert_eq!(rv_of(&again), "3");
    assert_eq!(s.get("/cm/ns/a", Revision(2)).unwrap(), None, "the tombstone stays in history");
}

pub fn update_with_preconditions<S: Storage>(mut s: S) {
    s.create("/cm/ns/a", obj("a", 1), attrs("x"), t(1)).unwrap();
    let err = s.update("/cm/ns/a", Some(Revision(7)), obj("a", 2), attrs("x"), t(2)).unwrap_err();
    assert_eq!(err, StorageError::Conflict { key: "/cm/ns/a".into(), current: Revision(1) });
    let b = s.update("/cm/ns/a", Some(Revision(1)), obj("a", 2), attrs("x"), t(2)).unwrap();
    assert_eq!(rv_of(&b), "2");
    assert!(matches!(s.update("/cm/ns/zz", None, obj("zz", 1), attrs("x"), t(2)), Err(StorageError::NotFound { .. })));
}

pub fn snapshot_reads_see_history<S: Storage>(mut s: S) {
    s.create("/cm/ns/a", obj("a", 1), attrs("x"), t(1)).unwrap();
    s.update("/cm/ns/a", None, obj("a", 2), attrs("x"), t(2)).unwrap();
    s.delete("/cm/ns/a", None, t(3)).unwrap();
    assert_eq!(s.get("/cm/ns/a", Revision(1)).unwrap().unwrap().1.value()["data"]["v"], "1");
    assert_eq!(s.get("/cm/ns/a", Revision(2)).unwrap().unwrap().1.value()["data"]["v"], "2");
    assert!(s.get("/cm/ns/a", Revision(3)).unwrap().is_none(), "a tombstone hides the key");
    assert!(matches!(s.get("/cm/ns/a", Revision(4)), Err(StorageError::FutureRevision { .. })));
}

pub fn delete_returns_last_state_and_event_has_delete_revision<S: Storage>(mut s: S) {
    s.create("/cm/ns/a", obj("a", 1), attrs("x"), t(1)).unwrap();
    let last = s.delete("/cm/ns/a", None, t(2)).unwrap();
    assert_eq!(rv_of(&last), "1");
    let mut c = s.watch("/cm/", Revision(1)).unwrap();
    let evs = s.poll(&mut c, 10).unwrap();
    assert_eq!(evs.len(), 1);
    assert_eq!(evs[0].kind, EventKind::Deleted);
    assert_eq!(rv_of(&evs[0].object), "2");
    assert!(matches!(s.delete("/cm/ns/a", None, t(3)), Err(StorageError::NotFound { .. })));
}

pub fn list_pages_from_one_snapshot<S: Storage>(mut s: S) {
    for i in 0..10 {
        s.create(
            &format!("/cm/ns/k{i:02}"),
            obj(&format!("k{i:02}"), i),
            attrs(if i % 2 == 0 { "even" } else { "odd" }),
            t(1),
        )
        .unwrap();
    }
    let snap = s.revision();
    let p1 = s.list("/cm/ns/", snap, &ListStart::Beginning, Some(4), None).unwrap();
    assert_eq!(p1.items.len(), 4);
    assert_eq!(p1.remaining, Some(6));
    // Writes between pages do not show up in later pages.
    s.delete("/cm/ns/k05", None, t(2)).unwrap();
    s.create("/cm/ns/k045", obj("k045", 99), attrs("odd"), t(2)).unwrap();
    let p2 = s.list("/cm/ns/", snap, &ListStart::At(p1.continue_at.clone().unwrap()), Some(4), None).unwrap();
    let names: Vec<String> =
        p2.items.iter().map(|o| o.value()["metadata"]["name"].as_str().unwrap().to_string()).collect();
    assert_eq!(names, ["k04", "k05", "k06", "k07"]);
    assert_eq!(p2.remaining, Some(2));
    let p3 = s.list("/cm/ns/", snap, &ListStart::At(p2.continue_at.clone().unwrap()), Some(4), None).unwrap();
    assert_eq!(p3.items.len(), 2);
    assert!(p3.continue_at.is_none() && p3.remaining.is_none());
    // A filtered list fills pages with matches and reports no remaining count.
    let f = |o: &kubesim::storage::StoredObject| o.attrs.label("app") == Some("even");
    let p = s.list("/cm/ns/", snap, &ListStart::Beginning, Some(2), Some(&f)).unwrap();
    assert_eq!(p.items.len(), 2);
    assert!(p.remaining.is_none() && p.continue_at.is_some());
}

pub fn prefixes_do_not_leak<S: Storage>(mut s: S) {
    s.create("/cm/a/x", obj("x", 1), attrs("x"), t(1)).unwrap();
    s.create("/cm/ab/y", obj("y", 1), attrs("x"), t(1)).unwrap();
    let p = s.list("/cm/a/", s.revision(), &ListStart::Beginning, None, None).unwrap();
    assert_eq!(p.items.len(), 1);
    let mut c = s.watch("/cm/a/", Revision(0)).unwrap();
    assert_eq!(s.poll(&mut c, 10).unwrap().len(), 1);
}

pub fn compaction_expires_old_reads_and_watches<S: Storage>(mut s: S) {
    for i in 1..=5 {
        s.create(&format!("/cm/ns/k{i}"), obj("k", i), attrs("x"), t(i)).unwrap();
    }
    s.delete("/cm/ns/k1", None, t(6)).unwrap();
    s.compact(Revision(4));
    assert_eq!(s.compacted(), Revision(4));
    assert!(matches!(
        s.list("/cm/ns/", Revision(3), &ListStart::Beginning, None, None),
        Err(StorageError::Compacted { .. })
    ));
    let at4 = s.list("/cm/ns/", Revision(4), &ListStart::Beginning, None, None).unwrap();
    assert_eq!(at4.items.len(), 4, "the compaction revision itself stays readable");
    assert!(matches!(s.watch("/cm/", Revision(3)), Err(StorageError::Compacted { .. })));
    let mut c = s.watch("/cm/", Revision(4)).unwrap();
    assert_eq!(s.poll(&mut c, 10).unwrap().iter().map(|e| e.revision.0).collect::<Vec<_>>(), [5, 6]);
    // A cursor left behind by a later compaction is told so.
    let mut old = s.watch("/cm/", Revision(4)).unwrap();
    s.compact(Revision(6));
    assert!(matches!(s.poll(&mut old, 10), Err(StorageError::Compacted { .. })));
    assert_eq!(s.revision_at_time(t(3)), None, "times of compacted revisions are forgotten");
    assert_eq!(s.revision_at_time(t(60)), Some(Revision(6)));
}

pub fn watch_is_ordered_and_carries_prev<S: Storage>(mut s: S) {
    s.create("/cm/ns/a", obj("a", 1), attrs("x"), t(1)).unwrap();
    s.update("/cm/ns/a", None, obj("a", 2), attrs("y"), t(1)).unwrap();
    s.create("/cm/ns/b", obj("b", 1), attrs("x"), t(1)).unwrap();
    let mut c = s.watch("/cm/", Revision(0)).unwrap();
    let evs = s.poll(&mut c, 2).unwrap();
    assert_eq!(evs.len(), 2, "poll honours max");
    assert_eq!(evs[1].prev.as_ref().unwrap().attrs.label("app"), Some("x"));
    let rest = s.poll(&mut c, 10).unwrap();
    assert_eq!(rest.len(), 1);
    assert_eq!(rest[0].revision, Revision(3));
    assert!(s.poll(&mut c, 10).unwrap().is_empty());
}

pub fn size_grows_with_history_and_stays_allocated<S: Storage>(mut s: S) {
    assert_eq!(s.size(), StorageSize::default());
    let a = s.create("/cm/ns/a", obj("a", 1), attrs("x"), t(1)).unwrap();
    let one = "/cm/ns/a".len() as u64 + a.json.len() as u64;
    assert_eq!(s.size().in_use, one);
    assert_eq!(s.size().allocated, StorageSize::PAGE, "allocated in whole pages");
    let b = s.update("/cm/ns/a", None, obj("a", 2), attrs("x"), t(2)).unwrap();
    s.delete("/cm/ns/a", None, t(3)).unwrap();
    let history = 3 * "/cm/ns/a".len() as u64 + a.json.len() as u64 + b.json.len() as u64;
    assert_eq!(s.size().in_use, history, "every retained version counts, a tombstone by its key");
    for i in 0..200 {
        s.create(&format!("/cm/ns/n{i:03}"), obj("n", i), attrs("x"), t(4)).unwrap();
    }
    let before = s.size();
    assert!(before.allocated >= before.in_use && before.allocated > StorageSize::PAGE);
    s.compact(s.revision());
    let after = s.size();
    assert_eq!(after.in_use, before.in_use - history, "compaction drops the deleted key's whole history");
    assert_eq!(after.allocated, before.allocated, "the file does not shrink without a defragmentation");
}

/// `written_since` answers what a watch from the same revision would
/// deliver first: whether any key it accepts was written after it.
pub fn written_since_agrees_with_a_watch<S: Storage>(mut s: S) {
    let in_cm = |k: &str| k.starts_with("/cm/");
    assert_eq!(s.written_since(Revision(0), &in_cm), Ok(false), "nothing written yet");
    s.create("/cm/ns/a", obj("a", 1), attrs("x"), t(1)).unwrap();
    s.create("/other/ns/b", obj("b", 1), attrs("x"), t(1)).unwrap();
    s.create("/other/ns/c", obj("c", 1), attrs("x"), t(1)).unwrap();
    for after in 0..=4 {
        let mut c = s.watch("/cm/", Revision(after)).unwrap();
        let watched = !s.poll(&mut c, 1).unwrap().is_empty();
        assert_eq!(s.written_since(Revision(after), &in_cm), Ok(watched), "after {after}");
    }
    assert_eq!(s.written_since(Revision(0), &in_cm), Ok(true));
    assert_eq!(s.written_since(Revision(1), &in_cm), Ok(false), "only other keys since");
    s.delete("/cm/ns/a", None, t(2)).unwrap();
    assert_eq!(s.written_since(Revision(3), &in_cm), Ok(true), "a delete is a write");
    s.compact(Revision(2));
    assert!(matches!(s.written_since(Revision(1), &in_cm), Err(StorageError::Compacted { .. })));
    assert_eq!(s.written_since(Revision(2), &in_cm), Ok(true));
}

macro_rules! conformance {
    ($($name:ident),* $(,)?) => {
        mod mem {
            $( #[test] fn $name() { super::$name(kubesim::storage::MemStorage::new()); } )*
        }
    };
}

conformance!(
    create_get_and_revisions,
    update_with_preconditions,
    snapshot_reads_see_history,
    delete_returns_last_state_and_event_has_delete_revision,
    list_pages_from_one_snapshot,
    prefixes_do_not_leak,
    compaction_expires_old_reads_and_watches,
    watch_is_ordered_and_carries_prev,
    size_grows_with_history_and_stays_allocated,
    written_since_agrees_with_a_watch,
);

#[allow(dead_code)]
fn _uses(_: MemStorage) {}
