//! Model-based tests of the garbage collector and the namespace
//! controller: random ownership graphs (several owners, blocking or not,
//! some objects held by a finalizer of their own) and random deletions
//! with every propagation policy, the controllers settled after each
//! request as a door runs them. After every step nothing is deleted
//! early (an object nobody deleted is gone only when every owner it ever
//! had is gone), orphans no longer name the owner that orphaned them,
//! and nothing leaks (no stored object names only owners that are gone);
//! once the finalizers are released and the namespace is deleted,
//! nothing is left.

mod common;
use common::*;
use proptest::prelude::*;
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};

const NS: &str = "/api/v1/namespaces";
const HOLD: &str = "example.com/hold";

#[derive(Clone, Debug)]
struct Node {
    /// Owners (earlier objects' indices) and whether each blocks.
    owners: Vec<(usize, bool)>,
    held: bool,
}

#[derive(Clone, Copy, Debug)]
enum Policy {
    Background,
    Foreground,
    Orphan,
}

fn graph() -> impl Strategy<Value = Vec<Node>> {
    (2usize..9).prop_flat_map(|n| {
        let nodes: Vec<_> = (0..n)
            .map(|i| {
                let owners = if i == 0 {
                    Just(Vec::new()).boxed()
                } else {
                    proptest::collection::vec((0..i, any::<bool>()), 0..3).boxed()
                };
                (owners, proptest::bool::weighted(0.2)).prop_map(|(mut owners, held)| {
                    owners.sort();
                    owners.dedup_by_key(|o| o.0);
                    Node { owners, held }
                })
            })
            .collect();
        nodes
    })
}

fn policy() -> impl Strategy<Value = Policy> {
    prop_oneof![Just(Policy::Background), Just(Policy::Foreground), Just(Policy::Orphan)]
}

fn path(i: usize) -> String {
    format!("{NS}/m/configmaps/o{i}")
}

/// What is stored now, by index.
fn stored(k: &mut Cluster, n: usize) -> BTreeMap<usize, Value> {
    (0..n)
        .filter_map(|i| {
            let r = k.get(&path(i));
            (r.status == 200).then(|| (i, r.json_body()))
        })
        .collect()
}

fn check(
    k: &mut Cluster,
    nodes: &[Node],
    uids: &[String],
    deleted: &BTreeSet<usize>,
    orphaned_by: &BTreeMap<usize, BTreeSet<usize>>,
) -> Result<BTreeMap<usize, Value>, TestCaseError> {
    let live = stored(k, nodes.len());
    for (i, node) in nodes.iter().enumerate() {
        if !live.contains_key(&i) && !deleted.contains(&i) {
            // Gone though nobody deleted it: every owner must be gone or
            // going (a foreground deletion takes its dependents first).
            for (o, _) in &node.owners {
                let standing = live.get(o).is_some_and(|v| v["metadata"]["deletionTimestamp"].is_null());
                prop_assert!(!standing, "o{i} collected while its owner o{o} stands");
            }
            prop_assert!(!node.owners.is_empty(), "o{i} had no owner and was not deleted, yet it is gone");
        }
    }
    for (i, obj) in &live {
        let refs: Vec<&str> = obj["metadata"]["ownerReferences"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|r| r["uid"].as_str())
            .collect();
        for o in orphaned_by.get(i).into_iter().flatten() {
            prop_assert!(!refs.contains(&uids[*o].as_str()), "o{i} still names o{o}, which orphaned it");
        }
        let terminating = !obj["metadata"]["deletionTimestamp"].is_null();
        if !refs.is_empty() && !terminating {
            let any_owner_alive = refs.iter().any(|u| live.values().any(|v| v["metadata"]["uid"] == *u));
            prop_assert!(any_owner_alive, "o{i} leaks: every owner it names is gone");
        }
    }
    Ok(live)
}

fn run(nodes: Vec<Node>, deletes: Vec<(usize, Policy)>) -> Result<(), TestCaseError> {
    let mut k = Cluster::new();
    k.c = kubesim::controllers::Controllers::new(&["namespace", "garbage-collector"]).unwrap();
    prop_assert_eq!(k.call("POST", NS, Some(json!({"metadata": {"name": "m"}}))).status, 201);
    let mut uids = Vec::new();
    for (i, node) in nodes.iter().enumerate() {
        let owners: Vec<Value> = node
            .owners
            .iter()
            .map(|(o, block)| {
                json!({"apiVersion": "v1", "kind": "ConfigMap", "name": format!("o{o}"), "uid": uids[*o],
                    "blockOwnerDeletion": block})
            })
            .collect();
        let finalizers = if node.held { json!([HOLD]) } else { json!(null) };
        let body = json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": format!("o{i}"), "ownerReferences": owners, "finalizers": finalizers}});
        let r = k.call("POST", &format!("{NS}/m/configmaps"), Some(body));
        prop_assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
        uids.push(r.json_body()["metadata"]["uid"].as_str().unwrap_or("").to_string());
    }
    let mut deleted = BTreeSet::new();
    let mut orphaned_by: BTreeMap<usize, BTreeSet<usize>> = BTreeMap::new();
    for (target, policy) in deletes {
        let target = target % nodes.len();
        let r = k.call("DELETE", &format!("{}?propagationPolicy={policy:?}", path(target)), None);
        prop_assert!(r.status == 200 || r.status == 202 || r.status == 404, "{}", r.status);
        if r.status != 404 {
            deleted.insert(target);
            if matches!(policy, Policy::Orphan) {
                for (i, node) in nodes.iter().enumerate() {
                    if node.owners.iter().any(|(o, _)| *o == target) {
                        orphaned_by.entry(i).or_default().insert(target);
                    }
                }
            }
        }
        check(&mut k, &nodes, &uids, &deleted, &orphaned_by)?;
    }
    // Released, every deletion completes.
    for (i, node) in nodes.iter().enumerate() {
        if node.held && k.get(&path(i)).status == 200 {
            let patch = r#"{"metadata":{"finalizers":null}}"#;
            k.send("PATCH", &path(i), "application/merge-patch+json", patch);
        }
    }
    let live = check(&mut k, &nodes, &uids, &deleted, &orphaned_by)?;
    for i in &deleted {
        prop_assert!(!live.contains_key(i), "o{i} was deleted and released, yet it is stored");
    }
    // Hold one object again: the namespace waits for it, then goes.
    let held = live.keys().next().copied();
    if let Some(i) = held {
        let patch = format!(r#"{{"metadata":{{"finalizers":["{HOLD}"]}}}}"#);
        k.send("PATCH", &path(i), "application/merge-patch+json", &patch);
    }
    prop_assert_eq!(k.call("DELETE", &format!("{NS}/m"), None).status, 200);
    if let Some(i) = held {
        prop_assert_eq!(k.get(&format!("{NS}/m")).status, 200, "the namespace waits for o{}", i);
        prop_assert_eq!(stored(&mut k, nodes.len()).len(), 1, "all but the held object are gone");
        k.send("PATCH", &path(i), "application/merge-patch+json", r#"{"metadata":{"finalizers":null}}"#);
    }
    prop_assert_eq!(k.get(&format!("{NS}/m")).status, 404, "the namespace is finalized and removed");
    prop_assert!(stored(&mut k, nodes.len()).is_empty());
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]
    #[test]
    fn garbage_collection_and_namespace_deletion_never_leak_nor_delete_early(
        nodes in graph(),
        deletes in proptest::collection::vec((0usize..9, policy()), 1..5),
    ) {
        run(nodes, deletes)?;
    }
}
