//! The controllers as clients: the namespace controller and the garbage
//! collector, driven after every request as a door drives them. Ported in
//! our own words from upstream's namespace deletion flow
//! (`namespaced_resources_deleter.go`, `status_condition_utils.go`) and
//! `test/integration/garbagecollector` (`TestCascadingDeletion`,
//! `TestCreateWithNonExistentOwner`, `TestOrphaning`,
//! `TestBlockingOwnerRefDoesBlock`, `TestNonBlockingOwnerRefDoesNotBlock`,
//! `TestSolidOwnerDoesNotBlockWaitingOwner`).

mod common;
use common::*;
use serde_json::{json, Value};

const CM: &str = "/api/v1/namespaces/default/configmaps";

fn cm(name: &str, owners: Value, finalizers: Value) -> Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": name, "ownerReferences": owners, "finalizers": finalizers}})
}

fn owner(name: &str, uid: &str, block: bool) -> Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap", "name": name, "uid": uid, "blockOwnerDeletion": block})
}

#[test]
fn a_deleted_namespace_is_emptied_by_requests_then_finalized() {
    let mut k = Cluster::new();
    k.call("POST", "/api/v1/namespaces", Some(json!({"metadata": {"name": "team"}})));
    k.call(
        "POST",
        "/api/v1/namespaces/team/configmaps",
        Some(json!({"metadata": {"name": "held", "finalizers": ["example.com/hold"]}})),
    );
    k.call("POST", "/api/v1/namespaces/team/configmaps", Some(json!({"metadata": {"name": "free"}})));
    let before = k.s.revision();
    let r = k.call("DELETE", "/api/v1/namespaces/team", None);
    assert_eq!(r.status, 200);
    assert_eq!(r.json_body()["status"]["phase"], "Terminating");
    assert!(r.json_body()["metadata"].get("deletionGracePeriodSeconds").is_none());
    // New content is refused while it terminates.
    let r = k.call("POST", "/api/v1/namespaces/team/configmaps", Some(json!({"metadata": {"name": "late"}})));
    assert_eq!(r.status, 403);
    assert_eq!(
        r.json_body()["message"],
        "configmaps \"late\" is forbidden: unable to create new content in namespace team because it is being terminated"
    );
    // Said before validation (a mutating admission upstream), and of a
    // generated name by its generateName (no name is made yet).
    let late = json!({"metadata": {"generateName": "late-"}, "data": {"bad key": "x"}});
    let r = k.call("POST", "/api/v1/namespaces/team/configmaps", Some(late));
    assert_eq!(r.status, 403);
    assert_eq!(
        r.json_body()["message"],
        "configmaps \"late-\" is forbidden: unable to create new content in namespace team because it is being terminated"
    );
    assert_eq!(k.get("/api/v1/namespaces/team/configmaps/free").status, 404);
    // What holds it is in its conditions.
    let ns = k.get("/api/v1/namespaces/team").json_body();
    let conditions: Vec<(String, String, String)> = ns["status"]["conditions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["type"].as_str().unwrap().into(),
                c["status"].as_str().unwrap().into(),
                c["reason"].as_str().unwrap().into(),
            )
        })
        .collect();
    let want = [
        ("NamespaceDeletionDiscoveryFailure", "False", "ResourcesDiscovered"),
        ("NamespaceDeletionGroupVersionParsingFailure", "False", "ParsedGroupVersions"),
        ("NamespaceDeletionContentFailure", "False", "ContentDeleted"),
        ("NamespaceContentRemaining", "True", "SomeResourcesRemain"),
        ("NamespaceFinalizersRemaining", "True", "SomeFinalizersRemain"),
    ];
    assert_eq!(conditions, want.map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string())));
    let messages: Vec<&str> =
        ns["status"]["conditions"].as_array().unwrap().iter().map(|c| c["message"].as_str().unwrap()).collect();
    assert_eq!(messages[3], "Some resources are remaining: configmaps. has 1 resource instances");
    assert_eq!(
        messages[4],
        "Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances"
    );
    // Releasing the held object lets the controller finish.
    let mut held = k.get("/api/v1/namespaces/team/configmaps/held").json_body();
    held["metadata"]["finalizers"] = json!([]);
    assert_eq!(k.call("PUT", "/api/v1/namespaces/team/configmaps/held", Some(held)).status, 200);
    assert_eq!(k.get("/api/v1/namespaces/team").status, 404, "finalized and removed");
    // Everything it did went through requests: the namespace went away
    // through /finalize, which the history shows as a delete of it.
    assert!(k.s.revision() > before);
    assert!(k.c.writes["namespace"] >= 4, "{:?}", k.c.writes);
}

/// The lifecycle admission keeps its last look at a namespace (every
/// namespaced create asks): each answer below follows a write of the
/// namespace, or of another namespace asked in between, and must be the
/// namespace's state now, not the last one seen.
#[test]
fn the_namespace_admission_sees_every_change_of_the_namespace() {
    let mut k = Cluster::new();
    let post = |k: &mut Cluster, ns: &str, name: &str| {
        let r =
            k.call("POST", &format!("/api/v1/namespaces/{ns}/configmaps"), Some(json!({"metadata": {"name": name}})));
        (r.status, r.json_body()["message"].as_str().unwrap_or("").to_string())
    };
    let missing = (404, "namespaces \"later\" not found".to_string());
    assert_eq!(post(&mut k, "later", "a"), missing);
    assert_eq!(post(&mut k, "later", "a"), missing, "asked again at a newer revision");
    assert_eq!(post(&mut k, "default", "a").0, 201, "another namespace asked in between");
    assert_eq!(post(&mut k, "later", "a"), missing);
    assert_eq!(k.call("POST", "/api/v1/namespaces", Some(json!({"metadata": {"name": "later"}}))).status, 201);
    assert_eq!(post(&mut k, "later", "a").0, 201, "created since");
    assert_eq!(post(&mut k, "later", "b").0, 201);
    assert_eq!(k.call("DELETE", "/api/v1/namespaces/later/configmaps/b", None).status, 200);
    assert_eq!(post(&mut k, "later", "b").0, 201, "other writes in it change nothing");
    k.call(
        "POST",
        "/api/v1/namespaces/later/configmaps",
        Some(json!({"metadata": {"name": "held", "finalizers": ["example.com/hold"]}})),
    );
    assert_eq!(k.call("DELETE", "/api/v1/namespaces/later", None).status, 200);
    let (code, message) = post(&mut k, "later", "c");
    assert_eq!(code, 403, "terminating since: {message}");
    assert!(message.ends_with("because it is being terminated"), "{message}");
    let mut held = k.get("/api/v1/namespaces/later/configmaps/held").json_body();
    held["metadata"]["finalizers"] = json!([]);
    assert_eq!(k.call("PUT", "/api/v1/namespaces/later/configmaps/held", Some(held)).status, 200);
    assert_eq!(k.get("/api/v1/namespaces/later").status, 404, "finalized and removed");
    assert_eq!(post(&mut k, "later", "d"), missing, "removed since");
}

#[test]
fn finalize_takes_only_put_and_removes_an_emptied_terminating_namespace() {
    let mut s = server();
    call(&mut s, "POST", "/api/v1/namespaces", Some(json!({"metadata": {"name": "bare"}})));
    assert_eq!(get(&mut s, "/api/v1/namespaces/bare/finalize").status, 405);
    // Without a controller, a deleted namespace waits on its finalizer.
    call(&mut s, "DELETE", "/api/v1/namespaces/bare", None);
    let mut ns = get(&mut s, "/api/v1/namespaces/bare").json_body();
    assert_eq!(ns["spec"]["finalizers"], json!(["kubernetes"]));
    ns["spec"]["finalizers"] = json!([]);
    ns["status"]["phase"] = json!("Active");
    let r = call(&mut s, "PUT", "/api/v1/namespaces/bare/finalize", Some(ns));
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    assert_eq!(get(&mut s, "/api/v1/namespaces/bare").status, 404);
    // Discovery lists it.
    let v1 = get(&mut s, "/api/v1").json_body();
    let finalize = v1["resources"].as_array().unwrap().iter().find(|r| r["name"] == "namespaces/finalize").cloned();
    assert_eq!(finalize.unwrap()["verbs"], json!(["update"]));
    // A namespace created with finalizers keeps them, `kubernetes` added.
    let r = call(
        &mut s,
        "POST",
        "/api/v1/namespaces",
        Some(json!({"metadata": {"name": "f"}, "spec": {"finalizers": ["example.com/x"]}})),
    );
    assert_eq!(r.json_body()["spec"]["finalizers"], json!(["example.com/x", "kubernetes"]));
}

#[test]
fn dependents_of_a_deleted_owner_are_collected_in_the_background() {
    let mut k = Cluster::new();
    k.call("POST", CM, Some(cm("owner", json!(null), json!(null))));
    let uid = k.uid(&format!("{CM}/owner"));
    k.call("POST", CM, Some(cm("child", json!([owner("owner", &uid, false)]), json!(null))));
    let child = k.uid(&format!("{CM}/child"));
    k.call("POST", CM, Some(cm("grandchild", json!([owner("child", &child, false)]), json!(null))));
    assert_eq!(k.call("DELETE", &format!("{CM}/owner"), None).status, 200);
    for name in ["owner", "child", "grandchild"] {
        assert_eq!(k.get(&format!("{CM}/{name}")).status, 404, "{name}");
    }
    assert!(k.c.writes["garbage-collector"] >= 2);
}

#[test]
fn the_garbage_collector_reads_metadata_only() {
    let mut k = Cluster::new();
    k.call("POST", CM, Some(json!({"metadata": {"name": "big"}, "data": {"k": "v".repeat(1000)}})));
    // A garbage collector started now lists every resource, as upstream's
    // metadata informers do: PartialObjectMetadataList, no data.
    let mut c = kubesim::controllers::Controllers::new(&["garbage-collector"]).unwrap();
    c.record(true);
    c.settle(&mut k.s);
    let log = c.take_log();
    let list = log
        .iter()
        .find(|x| x.request.path == "/api/v1/configmaps" && x.request.query.is_empty())
        .expect("the garbage collector lists configmaps");
    assert_eq!(
        list.request.header("Accept"),
        Some("application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json")
    );
    let body = list.response.json_body();
    assert_eq!(body["kind"], "PartialObjectMetadataList");
    let item = body["items"].as_array().unwrap().iter().find(|i| i["metadata"]["name"] == "big").unwrap();
    assert_eq!(item["kind"], "PartialObjectMetadata");
    assert!(item.get("data").is_none());
    assert!(item["metadata"]["managedFields"].is_array(), "the server sends them; the informer drops them");
    // And it still collects: an owner deleted now takes its dependent.
    let uid = k.uid(&format!("{CM}/big"));
    k.call("POST", CM, Some(cm("dep", json!([owner("big", &uid, false)]), json!(null))));
    k.call("DELETE", &format!("{CM}/big"), None);
    c.settle(&mut k.s);
    assert_eq!(k.get(&format!("{CM}/dep")).status, 404);
}

#[test]
fn a_dependent_of_an_owner_that_never_existed_is_collected() {
    let mut k = Cluster::new();
    k.call("POST", CM, Some(cm("orphaned", json!([owner("ghost", "no-such-uid", false)]), json!(null))));
    assert_eq!(k.get(&format!("{CM}/orphaned")).status, 404);
    // An owner of the same name but another uid counts as gone too.
    k.call("POST", CM, Some(cm("real", json!(null), json!(null))));
    k.call("POST", CM, Some(cm("dep", json!([owner("real", "another-uid", false)]), json!(null))));
    assert_eq!(k.get(&format!("{CM}/dep")).status, 404);
    assert_eq!(k.get(&format!("{CM}/real")).status, 200);
}

#[test]
fn a_dependent_with_a_live_owner_left_only_loses_the_dangling_reference() {
    let mut k = Cluster::new();
    k.call("POST", CM, Some(cm("a", json!(null), json!(null))));
    k.call("POST", CM, Some(cm("b", json!(null), json!(null))));
    let (ua, ub) = (k.uid(&format!("{CM}/a")), k.uid(&format!("{CM}/b")));
    k.call("POST", CM, Some(cm("dep", json!([owner("a", &ua, false), owner("b", &ub, false)]), json!(null))));
    k.call("DELETE", &format!("{CM}/a"), None);
    let dep = k.get(&format!("{CM}/dep")).json_body();
    assert_eq!(dep["metadata"]["ownerReferences"].as_array().unwrap().len(), 1);
    assert_eq!(dep["metadata"]["ownerReferences"][0]["uid"], ub);
}

#[test]
fn orphaning_removes_the_references_then_the_finalizer() {
    let mut k = Cluster::new();
    k.call("POST", CM, Some(cm("owner", json!(null), json!(null))));
    let uid = k.uid(&format!("{CM}/owner"));
    for name in ["d1", "d2"] {
        k.call("POST", CM, Some(cm(name, json!([owner("owner", &uid, true)]), json!(null))));
    }
    let r = k.call("DELETE", &format!("{CM}/owner?propagationPolicy=Orphan"), None);
    assert_eq!(r.json_body()["metadata"]["finalizers"], json!(["orphan"]));
    assert_eq!(k.get(&format!("{CM}/owner")).status, 404, "the orphan finalizer was removed");
    for name in ["d1", "d2"] {
        let d = k.get(&format!("{CM}/{name}"));
        assert_eq!(d.status, 200);
        assert!(d.json_body()["metadata"].get("ownerReferences").is_none(), "{name}: {}", d.json_body());
    }
}

#[test]
fn foreground_deletion_waits_for_blocking_dependents_only() {
    let mut k = Cluster::new();
    k.call("POST", CM, Some(cm("owner", json!(null), json!(null))));
    let uid = k.uid(&format!("{CM}/owner"));
    // A blocking dependent that a finalizer holds, and a non-blocking one.
    k.call("POST", CM, Some(cm("blocker", json!([owner("owner", &uid, true)]), json!(["example.com/hold"]))));
    k.call("POST", CM, Some(cm("free", json!([owner("owner", &uid, false)]), json!(null))));
    let r = k.call("DELETE", &format!("{CM}/owner?propagationPolicy=Foreground"), None);
    assert_eq!(r.json_body()["metadata"]["finalizers"], json!(["foregroundDeletion"]));
    assert_eq!(k.get(&format!("{CM}/free")).status, 404, "dependents are deleted first");
    let blocker = k.get(&format!("{CM}/blocker")).json_body();
    assert!(!blocker["metadata"]["deletionTimestamp"].is_null());
    assert_eq!(k.get(&format!("{CM}/owner")).status, 200, "the blocking dependent holds the owner");
    k.send("PATCH", &format!("{CM}/blocker"), "application/merge-patch+json", r#"{"metadata":{"finalizers":null}}"#);
    assert_eq!(k.get(&format!("{CM}/blocker")).status, 404);
    assert_eq!(k.get(&format!("{CM}/owner")).status, 404, "then the owner goes");
}

#[test]
fn a_paused_cluster_waits_and_steps_one_reconcile_at_a_time() {
    let mut k = Cluster::new();
    k.call("POST", CM, Some(cm("owner", json!(null), json!(null))));
    let uid = k.uid(&format!("{CM}/owner"));
    k.call("POST", CM, Some(cm("child", json!([owner("owner", &uid, false)]), json!(null))));
    k.c.pause(true);
    k.call("DELETE", &format!("{CM}/owner"), None);
    assert_eq!(k.get(&format!("{CM}/child")).status, 200, "paused: nothing reconciles");
    let mut steps = 0;
    while k.get(&format!("{CM}/child")).status == 200 {
        let (name, _) = k.c.step(&mut k.s).unwrap();
        assert!(["nodeipam", "namespace", "garbage-collector"].contains(&name));
        steps += 1;
        assert!(steps < 10);
    }
}

#[test]
fn controllers_replay_the_same_requests_byte_for_byte() {
    let run = || {
        let mut k = Cluster::new();
        k.call("POST", "/api/v1/namespaces", Some(json!({"metadata": {"name": "t"}})));
        k.call("POST", "/api/v1/namespaces/t/configmaps", Some(json!({"metadata": {"name": "a"}})));
        k.call("POST", CM, Some(cm("owner", json!(null), json!(null))));
        let uid = k.uid(&format!("{CM}/owner"));
        k.call("POST", CM, Some(cm("child", json!([owner("owner", &uid, true)]), json!(null))));
        k.call("DELETE", &format!("{CM}/owner?propagationPolicy=Foreground"), None);
        k.call("DELETE", "/api/v1/namespaces/t", None);
        get(&mut k.s, "/debug/kubesim/history").body
    };
    assert_eq!(run(), run());
}

fn replica_set(replicas: i64) -> Value {
    json!({"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "web"},
        "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}})
}

const RS: &str = "/apis/apps/v1/namespaces/default/replicasets";
const PODS: &str = "/api/v1/namespaces/default/pods";

fn pod_names(k: &mut Cluster) -> Vec<String> {
    names(&k.get(PODS).json_body())
}

#[test]
fn a_replica_set_keeps_its_pods_adopts_and_releases() {
    let mut k = Cluster::new();
    // A matching pod with no controller is adopted.
    k.call(
        "POST",
        PODS,
        Some(json!({"metadata": {"name": "stray", "labels": {"app": "web"}},
        "spec": {"containers": [{"name": "c", "image": "nginx"}]}})),
    );
    assert_eq!(k.call("POST", RS, Some(replica_set(3))).status, 201);
    let pods = pod_names(&mut k);
    assert_eq!(pods.len(), 3, "{pods:?}");
    assert!(pods.contains(&"stray".to_string()));
    let rs_uid = k.uid(&format!("{RS}/web"));
    for p in &pods {
        let pod = k.get(&format!("{PODS}/{p}")).json_body();
        assert_eq!(pod["metadata"]["ownerReferences"][0]["uid"], rs_uid, "{p}");
        assert_eq!(pod["metadata"]["ownerReferences"][0]["controller"], true);
        assert!(p == "stray" || p.starts_with("web-"), "{p}");
    }
    let rs = k.get(&format!("{RS}/web")).json_body();
    assert_eq!(rs["status"]["replicas"], 3);
    assert_eq!(rs["status"]["observedGeneration"], 1);
    // Scale down: the newest go first.
    k.send("PATCH", &format!("{RS}/web"), "application/merge-patch+json", r#"{"spec":{"replicas":1}}"#);
    assert_eq!(pod_names(&mut k).len(), 1);
    // A pod relabelled out of the selector is released and replaced.
    let left = pod_names(&mut k)[0].clone();
    k.send(
        "PATCH",
        &format!("{PODS}/{left}"),
        "application/merge-patch+json",
        r#"{"metadata":{"labels":{"app":"other"}}}"#,
    );
    let released = k.get(&format!("{PODS}/{left}")).json_body();
    assert!(released["metadata"].get("ownerReferences").is_none(), "{released}");
    assert_eq!(pod_names(&mut k).len(), 2);
    // Deleting the ReplicaSet collects its pods (the garbage collector).
    k.call("DELETE", &format!("{RS}/web"), None);
    assert_eq!(pod_names(&mut k), [left]);
}

/// The recorder's correlator, as a ReplicaSet's burst of creations shows
/// it: nine events, then one combining the similar ones, then nothing
/// once the spam filter's 25 tokens are spent (counted all the same).
#[test]
fn a_burst_of_similar_events_is_combined_then_rate_limited() {
    let mut k = Cluster::new();
    k.c = kubesim::controllers::Controllers::new(&["replicaset"]).unwrap();
    let rs = |replicas: i64| {
        json!({"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "burst"},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": "b"}},
                "template": {"metadata": {"labels": {"app": "b"}}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}})
    };
    const RS: &str = "/apis/apps/v1/namespaces/default/replicasets";
    assert_eq!(k.call("POST", RS, Some(rs(30))).status, 201);
    let events = |k: &mut Cluster| -> Vec<(i64, String)> {
        let mut evs: Vec<(i64, String)> = k
            .events("involvedObject.name=burst")
            .iter()
            .map(|e| (e["count"].as_i64().unwrap(), e["message"].as_str().unwrap().to_string()))
            .collect();
        evs.sort();
        evs
    };
    let evs = events(&mut k);
    assert_eq!(evs.len(), 10, "{evs:?}");
    assert!(evs[..9].iter().all(|(n, m)| *n == 1 && m.starts_with("Created pod: burst-")), "{evs:?}");
    let (count, combined) = &evs[9];
    assert_eq!(*count, 16, "the 10th to the 25th; five more were dropped");
    assert!(combined.starts_with("(combined from similar events): Created pod: burst-"), "{combined}");
    // Five minutes give one token back: the next one is sent, counting the dropped.
    k.s.advance(300_000);
    let r = k.send("PATCH", &format!("{RS}/burst"), "application/merge-patch+json", r#"{"spec":{"replicas":31}}"#);
    assert_eq!(r.status, 200);
    let evs = events(&mut k);
    assert_eq!((evs.len(), evs[9].0), (10, 22));
}

/// The root CA publisher: every namespace gets `kube-root-ca.crt`, made by
/// `kube-controller-manager`; a deleted one comes back and a changed one is
/// put back (a label the user added stays); a namespace being deleted is
/// given none.
#[test]
fn every_namespace_gets_the_root_ca_config_map_and_keeps_it() {
    let mut k = Cluster::new();
    let path = "/api/v1/namespaces/team/configmaps/kube-root-ca.crt";
    k.call("POST", "/api/v1/namespaces", Some(json!({"metadata": {"name": "team"}})));
    let cm = k.get(path).json_body();
    assert_eq!(cm["data"], json!({"ca.crt": "-----BEGIN CERTIFICATE-----\n(simulated)\n-----END CERTIFICATE-----\n"}));
    assert!(cm["metadata"]["annotations"]["kubernetes.io/description"]
        .as_str()
        .is_some_and(|d| d.starts_with("Contains a CA bundle that can be used to verify the kube-apiserver")));
    assert_eq!(cm["metadata"]["managedFields"][0]["manager"], "kube-controller-manager");
    for ns in ["default", "kube-system", "kube-public", "kube-node-lease"] {
        assert_eq!(k.get(&format!("/api/v1/namespaces/{ns}/configmaps/kube-root-ca.crt")).status, 200, "{ns}");
    }

    let uid = cm["metadata"]["uid"].clone();
    assert_eq!(k.call("DELETE", path, None).status, 200);
    let again = k.get(path).json_body();
    assert_eq!(again["data"], cm["data"], "made again");
    assert_ne!(again["metadata"]["uid"], uid);

    let mut changed = again.clone();
    changed["data"]["ca.crt"] = json!("mine");
    changed["metadata"]["labels"] = json!({"keep": "me"});
    assert_eq!(k.call("PUT", path, Some(changed)).status, 200);
    let put_back = k.get(path).json_body();
    assert_eq!(put_back["data"], cm["data"]);
    assert_eq!(put_back["metadata"]["labels"], json!({"keep": "me"}));

    k.call("DELETE", "/api/v1/namespaces/team", None);
    let gone = k.get("/api/v1/namespaces/team");
    assert_eq!(
        gone.status,
        404,
        "emptied and finalized, the map not made again: {}",
        String::from_utf8_lossy(&gone.body)
    );
}
