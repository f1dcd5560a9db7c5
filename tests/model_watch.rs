//! Model-based test of watch and list. Random writes, compactions, clock
//! jumps and watchers that lag, disconnect and resume run against the
//! server and against a plain model (the list of writes). Asserted:
//! etcd's watch guarantees — ordered, unique, atomic, bookmarkable,
//! reliable, resumable — and that a paged list equals an unpaged one at the
//! same revision.

use kubesim::server::{Request, Served, Server, ServerConfig, WatchStream};
use proptest::prelude::*;
use serde_json::{json, Value};

#[derive(Clone, Debug)]
enum Op {
    Create(u8, bool),
    Relabel(u8, bool),
    Delete(u8),
    Compact,
    Advance(u16),
    Open(bool, bool),
    Poll(u8, u8),
    Resume(u8),
    ListPaged(u8),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (0u8..6, any::<bool>()).prop_map(|(n, l)| Op::Create(n, l)),
        4 => (0u8..6, any::<bool>()).prop_map(|(n, l)| Op::Relabel(n, l)),
        2 => (0u8..6).prop_map(Op::Delete),
        1 => Just(Op::Compact),
        1 => (0u16..200).prop_map(Op::Advance),
        2 => (any::<bool>(), any::<bool>()).prop_map(|(a, b)| Op::Open(a, b)),
        4 => (0u8..4, 1u8..4).prop_map(|(w, m)| Op::Poll(w, m)),
        1 => (0u8..4).prop_map(Op::Resume),
        1 => (1u8..4).prop_map(Op::ListPaged),
    ]
}

/// One write as the model records it.
#[derive(Clone, Debug)]
struct Write {
    rev: u64,
    name: String,
    before: Option<bool>,
    after: Option<bool>,
}

struct Watcher {
    stream: Option<WatchStream>,
    /// Only objects labelled app=a, or everything.
    selective: bool,
    /// The last resourceVersion seen (events or bookmarks).
    last: u64,
    /// Events received since the last (re)start, as (type, name, rv).
    got: Vec<(String, String, u64)>,
    start: u64,
    failed: bool,
}

fn label_value(a: bool) -> &'static str {
    if a {
        "a"
    } else {
        "b"
    }
}

fn expected(writes: &[Write], after: u64, selective: bool) -> Vec<(String, String, u64)> {
    let pass = |l: Option<bool>| l.is_some_and(|l| !selective || l);
    writes
        .iter()
        .filter(|w| w.rev > after)
        .filter_map(|w| {
            let (cur, old) = (pass(w.after), pass(w.before));
            let t = match (cur, old) {
                (true, false) => "ADDED",
                (true, true) => "MODIFIED",
                (false, true) => "DELETED",
                (false, false) => return None,
            };
            Some((t.to_string(), w.name.clone(), w.rev))
        })
        .collect()
}

fn call(s: &mut Server, method: &str, target: &str, ct: &str, body: Value) -> (u16, Value) {
    let r = s.handle(
        Request::new(method, target).with_header("Content-Type", ct).with_body(serde_json::to_vec(&body).unwrap()),
    );
    (r.status, r.json_body())
}

fn rv(v: &Value) -> u64 {
    v["metadata"]["resourceVersion"].as_str().and_then(|s| s.parse().ok()).unwrap_or(0)
}

fn open(s: &mut Server, selective: bool, from: u64) -> WatchStream {
    let sel = if selective { "&labelSelector=app%3Da" } else { "" };
    match s.serve(Request::new(
        "GET",
        &format!("/api/v1/namespaces/default/configmaps?watch=1&allowWatchBookmarks=true&resourceVersion={from}{sel}"),
    )) {
        Served::Watch(_, w) => w,
        Served::Response(r) | Served::Log(r, _) => panic!("watch refused: {}", String::from_utf8_lossy(&r.body)),
    }
}

#[allow(clippy::map_entry)] // the branches assert different outcomes
fn run(ops: Vec<Op>) -> Result<(), TestCaseError> {
    let mut s = Server::new(ServerConfig { watch_buffer: 12, ..Default::default() });
    let mut writes: Vec<Write> = Vec::new();
    let mut live: std::collections::BTreeMap<String, bool> = Default::default();
    let mut watchers: Vec<Watcher> = Vec::new();
    for op in ops {
        match op {
            Op::Create(n, l) => {
                let name = format!("cm{n}");
                let (code, body) = call(
                    &mut s,
                    "POST",
                    "/api/v1/namespaces/default/configmaps",
                    "application/json",
                    json!({"metadata": {"name": name, "labels": {"app": label_value(l)}}}),
                );
                if live.contains_key(&name) {
                    prop_assert_eq!(code, 409);
                } else {
                    prop_assert_eq!(code, 201);
                    writes.push(Write { rev: rv(&body), name: name.clone(), before: None, after: Some(l) });
                    live.insert(name, l);
                }
            }
            Op::Relabel(n, l) => {
                let name = format!("cm{n}");
                let (code, body) = call(
                    &mut s,
                    "PATCH",
                    &format!("/api/v1/namespaces/default/configmaps/{name}"),
                    "application/merge-patch+json",
                    json!({"metadata": {"labels": {"app": label_value(l)}}}),
                );
                match live.get(&name).copied() {
                    None => prop_assert_eq!(code, 404),
                    Some(before) => {
                        prop_assert_eq!(code, 200);
                        if before != l {
                            writes.push(Write {
                                rev: rv(&body),
                                name: name.clone(),
                                before: Some(before),
                                after: Some(l),
                            });
                            live.insert(name, l);
                        } else {
                            prop_assert_eq!(
                                rv(&body),
                                writes.iter().rev().find(|w| w.name == name).unwrap().rev,
                                "a no-op patch writes nothing"
                            );
                        }
                    }
                }
            }
            Op::Delete(n) => {
                let name = format!("cm{n}");
                let before_rev = s.revision().0;
                let (code, _) = call(
                    &mut s,
                    "DELETE",
                    &format!("/api/v1/namespaces/default/configmaps/{name}"),
                    "application/json",
                    json!({}),
                );
                match live.remove(&name) {
                    None => prop_assert_eq!(code, 404),
                    Some(before) => {
                        prop_assert_eq!(code, 200);
                        prop_assert_eq!(s.revision().0, before_rev + 1);
                        writes.push(Write { rev: s.revision().0, name, before: Some(before), after: None });
                    }
                }
            }
            Op::Compact => {
                let target = s.revision().0.saturating_sub(3);
                s.compact(Some(kubesim::api::Revision(target)));
            }
            Op::Advance(secs) => s.advance(secs as i64 * 1000),
            Op::Open(selective, at_head) => {
                let from = if at_head { s.revision().0 } else { s.compacted().0.max(1) };
                let w = open(&mut s, selective, from);
                watchers.push(Watcher {
                    stream: Some(w),
                    selective,
                    last: from,
                    got: vec![],
                    start: from,
                    failed: false,
                });
            }
            Op::Poll(i, max) => {
                let Some(w) = watchers.get_mut(i as usize) else { continue };
                let Some(stream) = w.stream.as_mut() else { continue };
                for e in s.poll_watch(stream, max as usize) {
                    let obj: Value = serde_json::from_slice(e.object_json()).unwrap();
                    match e.event_type.as_str() {
                        "ERROR" => {
                            // Only history loss or lagging closes a watch.
                            prop_assert_eq!(obj["code"].as_i64(), Some(410));
                            prop_assert!(stream.is_done());
                            w.failed = true;
                        }
                        "BOOKMARK" => {
                            // Bookmarkable: nothing at or before it is still to come.
                            let b = rv(&obj);
                            prop_assert!(b >= w.last);
                            prop_assert!(obj["metadata"].as_object().unwrap().keys().all(|k| k == "resourceVersion"));
                            w.last = b;
                        }
                        t => {
                            let r = rv(&obj);
                            // Ordered and unique.
                            prop_assert!(r > w.last, "event rv {} not after {}", r, w.last);
                            w.last = r;
                            w.got.push((t.to_string(), obj["metadata"]["name"].as_str().unwrap().to_string(), r));
                        }
                    }
                }
                // Reliable and atomic: what arrived is exactly a prefix of
                // the model's events after the start, one per write.
                let want = expected(&writes, w.start, w.selective);
                prop_assert!(w.got.len() <= want.len());
                prop_assert_eq!(&w.got[..], &want[..w.got.len()]);
                if w.failed {
                    w.stream = None;
                }
            }
            Op::Resume(i) => {
                // Resumable: a new watch from the last seen resourceVersion
                // continues exactly where the old one stopped, or says 410.
                let Some(w) = watchers.get_mut(i as usize) else { continue };
                let from = w.last;
                let stream = open(&mut s, w.selective, from);
                w.stream = Some(stream);
                w.start = from;
                w.got.clear();
                w.failed = false;
            }
            Op::ListPaged(limit) => {
                let full = s.handle(Request::new("GET", "/api/v1/namespaces/default/configmaps")).json_body();
                let at = full["metadata"]["resourceVersion"].as_str().unwrap().to_string();
                let mut items: Vec<Value> = Vec::new();
                let mut target = format!("/api/v1/namespaces/default/configmaps?limit={limit}&resourceVersion={at}");
                loop {
                    let page = s.handle(Request::new("GET", &target)).json_body();
                    prop_assert_eq!(page["metadata"]["resourceVersion"].as_str(), Some(at.as_str()));
                    items.extend(page["items"].as_array().unwrap().iter().cloned());
                    match page["metadata"]["continue"].as_str() {
                        Some(c) => {
                            let remaining = page["metadata"]["remainingItemCount"].as_u64().unwrap();
                            prop_assert_eq!(remaining as usize, full["items"].as_array().unwrap().len() - items.len());
                            target = format!("/api/v1/namespaces/default/configmaps?limit={limit}&continue={c}");
                        }
                        None => break,
                    }
                }
                prop_assert_eq!(&items, full["items"].as_array().unwrap());
                let names: Vec<&str> = items.iter().map(|i| i["metadata"]["name"].as_str().unwrap()).collect();
                prop_assert_eq!(names, live.keys().map(String::as_str).collect::<Vec<_>>());
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]
    #[test]
    fn watch_and_list_match_the_model(ops in proptest::collection::vec(op(), 1..80)) {
        run(ops)?;
    }
}
