//! The Deployment controller through requests: ReplicaSets named by the
//! template's hash, revisions, rolling updates within their bounds,
//! Recreate, scaling, rollbacks as `kubectl rollout undo` sends them, the
//! history limit, status and conditions as upstream writes them. Pods are
//! made ready here by a stand-in kubelet (a `/status` patch), so each test
//! decides when the cluster moves. In our own words after upstream's
//! `test/integration/deployment` (`TestNewDeployment`,
//! `TestDeploymentRollingUpdate`, `TestDeploymentHashCollision`,
//! `TestScaledRolloutDeployment`).

mod common;
use common::*;
use serde_json::{json, Value};

const DEPLOY: &str = "/apis/apps/v1/namespaces/default/deployments";
const RS: &str = "/apis/apps/v1/namespaces/default/replicasets";
const PODS: &str = "/api/v1/namespaces/default/pods";

fn cluster() -> Cluster {
    let mut k = Cluster::new();
    k.c = kubesim::controllers::Controllers::new(&["namespace", "garbage-collector", "deployment", "replicaset"])
        .unwrap();
    k
}

fn deployment(replicas: i64, image: &str, strategy: Value) -> Value {
    json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
        "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": "web"}}, "strategy": strategy,
            "template": {"metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "c", "image": image}]}}}})
}

fn items(k: &mut Cluster, path: &str) -> Vec<Value> {
    k.get(path).json_body()["items"].as_array().cloned().unwrap_or_default()
}

fn replica_sets(k: &mut Cluster) -> Vec<Value> {
    let mut sets = items(k, RS);
    sets.sort_by_key(|rs| {
        rs["metadata"]["annotations"]["deployment.kubernetes.io/revision"].as_str().unwrap_or("").to_string()
    });
    sets
}

fn is_ready(p: &Value) -> bool {
    p["status"]["conditions"]
        .as_array()
        .is_some_and(|c| c.iter().any(|c| c["type"] == "Ready" && c["status"] == "True"))
}

/// Marks one unready pod Ready, as a kubelet would; whether there was one.
fn ready_one(k: &mut Cluster) -> bool {
    let Some(p) = items(k, PODS).into_iter().find(|p| !is_ready(p)) else { return false };
    let name = p["metadata"]["name"].as_str().unwrap().to_string();
    let r = k.send(
        "PATCH",
        &format!("{PODS}/{name}/status"),
        "application/merge-patch+json",
        r#"{"status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]}}"#,
    );
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    true
}

fn ready_all(k: &mut Cluster) {
    while ready_one(k) {}
}

fn conditions(d: &Value) -> Vec<(String, String, String, String)> {
    d["status"]["conditions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let s = |f: &str| c[f].as_str().unwrap_or("").to_string();
            (s("type"), s("status"), s("reason"), s("message"))
        })
        .collect()
}

fn events(k: &mut Cluster, name: &str) -> Vec<String> {
    k.event_messages(&format!("involvedObject.name={name}"))
}

#[test]
fn a_new_deployment_makes_a_hashed_replica_set_and_reports_its_progress() {
    let mut k = cluster();
    assert_eq!(k.call("POST", DEPLOY, Some(deployment(3, "nginx:1.27", json!(null)))).status, 201);
    let sets = replica_sets(&mut k);
    assert_eq!(sets.len(), 1);
    let rs = &sets[0];
    let hash = rs["metadata"]["labels"]["pod-template-hash"].as_str().unwrap().to_string();
    assert_eq!(rs["metadata"]["name"], format!("web-{hash}"));
    assert_eq!(rs["spec"]["selector"]["matchLabels"], json!({"app": "web", "pod-template-hash": hash}));
    assert_eq!(rs["spec"]["template"]["metadata"]["labels"]["pod-template-hash"], hash);
    assert_eq!(
        rs["metadata"]["annotations"],
        json!({"deployment.kubernetes.io/desired-replicas": "3", "deployment.kubernetes.io/max-replicas": "4",
            "deployment.kubernetes.io/revision": "1"})
    );
    assert_eq!(rs["metadata"]["ownerReferences"][0]["kind"], "Deployment");
    let pods = items(&mut k, PODS);
    assert_eq!(pods.len(), 3);
    assert!(pods.iter().all(|p| p["metadata"]["name"].as_str().unwrap().starts_with(&format!("web-{hash}-"))));

    let d = k.get(&format!("{DEPLOY}/web")).json_body();
    assert_eq!(d["metadata"]["annotations"]["deployment.kubernetes.io/revision"], "1");
    assert_eq!(d["status"]["replicas"], 3);
    assert_eq!(d["status"]["updatedReplicas"], 3);
    assert_eq!(d["status"]["unavailableReplicas"], 3);
    assert_eq!(d["status"]["observedGeneration"], 1);
    assert!(d["status"].get("availableReplicas").is_none());
    let progressing = format!("ReplicaSet \"web-{hash}\" is progressing.");
    assert_eq!(
        conditions(&d),
        [
            (
                "Available".into(),
                "False".into(),
                "MinimumReplicasUnavailable".into(),
                "Deployment does not have minimum availability.".into()
            ),
            ("Progressing".into(), "True".into(), "ReplicaSetUpdated".into(), progressing),
        ]
    );

    ready_all(&mut k);
    let d = k.get(&format!("{DEPLOY}/web")).json_body();
    assert_eq!((d["status"]["readyReplicas"].clone(), d["status"]["availableReplicas"].clone()), (json!(3), json!(3)));
    assert!(d["status"].get("unavailableReplicas").is_none());
    assert_eq!(
        conditions(&d),
        [
            (
                "Available".into(),
                "True".into(),
                "MinimumReplicasAvailable".into(),
                "Deployment has minimum availability.".into()
            ),
            (
                "Progressing".into(),
                "True".into(),
                "NewReplicaSetAvailable".into(),
                format!("ReplicaSet \"web-{hash}\" has successfully progressed.")
            ),
        ]
    );
    assert_eq!(events(&mut k, "web"), [format!("Scaled up replica set web-{hash} from 0 to 3")]);
    let rs_events = events(&mut k, &format!("web-{hash}"));
    assert_eq!(rs_events.len(), 3);
    assert!(rs_events.iter().all(|m| m.starts_with(&format!("Created pod: web-{hash}-"))), "{rs_events:?}");
}

/// Rolls the deployment to `image`, one pod ready at a time, checking
/// the bounds at every step: never fewer than replicas − maxUnavailable
/// available, never more than replicas + maxSurge pods.
fn roll_to(k: &mut Cluster, image: &str, min_available: usize, max_pods: usize) {
    let patch = json!({"spec": {"template": {"spec": {"containers": [{"name": "c", "image": image}]}}}});
    let r = k.send("PATCH", &format!("{DEPLOY}/web"), "application/strategic-merge-patch+json", &patch.to_string());
    assert_eq!(r.status, 200);
    loop {
        let pods = items(k, PODS);
        let ready = pods.iter().filter(|p| is_ready(p)).count();
        assert!(ready >= min_available, "{ready} available of {}", pods.len());
        assert!(pods.len() <= max_pods, "{} pods", pods.len());
        if !ready_one(k) {
            break;
        }
    }
}

#[test]
fn a_rolling_update_keeps_within_surge_and_unavailability_then_cleans_up_the_history() {
    let mut k = cluster();
    let strategy = json!({"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1, "maxUnavailable": 1}});
    let mut d = deployment(4, "nginx:1.26", strategy);
    d["spec"]["revisionHistoryLimit"] = json!(1);
    k.call("POST", DEPLOY, Some(d));
    ready_all(&mut k);
    let first = replica_sets(&mut k)[0]["metadata"]["name"].as_str().unwrap().to_string();
    roll_to(&mut k, "nginx:1.27", 3, 5);
    let sets = replica_sets(&mut k);
    assert_eq!(sets.len(), 2);
    assert_eq!(sets[0]["metadata"]["name"], first.as_str());
    assert_eq!(sets[0]["spec"]["replicas"], 0);
    assert_eq!(sets[1]["spec"]["replicas"], 4);
    assert_eq!(sets[1]["metadata"]["annotations"]["deployment.kubernetes.io/revision"], "2");
    let pods = items(&mut k, PODS);
    assert_eq!(pods.len(), 4);
    assert!(pods.iter().all(|p| p["spec"]["containers"][0]["image"] == "nginx:1.27"));
    let d = k.get(&format!("{DEPLOY}/web")).json_body();
    assert_eq!(d["metadata"]["annotations"]["deployment.kubernetes.io/revision"], "2");
    assert_eq!(d["status"]["updatedReplicas"], 4);
    assert_eq!(conditions(&d)[1].2, "NewReplicaSetAvailable");
    let evs = events(&mut k, "web");
    assert!(evs.contains(&format!("Scaled down replica set {first} from 4 to 3")), "{evs:?}");

    // A third revision: the first ReplicaSet goes (one old one is kept).
    roll_to(&mut k, "nginx:1.28", 3, 5);
    let sets = replica_sets(&mut k);
    let names: Vec<&str> = sets.iter().map(|rs| rs["metadata"]["name"].as_str().unwrap()).collect();
    assert_eq!(names.len(), 2, "{names:?}");
    assert!(!names.contains(&first.as_str()));
}

#[test]
fn rollout_undo_brings_an_old_replica_set_back_with_a_new_revision() {
    let mut k = cluster();
    k.call("POST", DEPLOY, Some(deployment(2, "nginx:1.26", json!(null))));
    ready_all(&mut k);
    roll_to(&mut k, "nginx:1.27", 2, 3);
    let sets = replica_sets(&mut k);
    let (old, _) = (&sets[0], &sets[1]);
    // What `kubectl rollout undo` sends: the old template without its
    // hash label, and the deployment's annotations.
    let mut template = old["spec"]["template"].clone();
    template["metadata"]["labels"].as_object_mut().unwrap().remove("pod-template-hash");
    // Go clients send a zero time as null.
    template["metadata"]["creationTimestamp"] = json!(null);
    let d = k.get(&format!("{DEPLOY}/web")).json_body();
    let patch = json!([
        {"op": "replace", "path": "/spec/template", "value": template},
        {"op": "replace", "path": "/metadata/annotations", "value": d["metadata"]["annotations"]},
    ]);
    let r = k.send("PATCH", &format!("{DEPLOY}/web"), "application/json-patch+json", &patch.to_string());
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    ready_all(&mut k);
    let back = k.get(&format!("{RS}/{}", old["metadata"]["name"].as_str().unwrap())).json_body();
    assert_eq!(back["spec"]["replicas"], 2);
    assert_eq!(back["metadata"]["annotations"]["deployment.kubernetes.io/revision"], "3");
    assert_eq!(back["metadata"]["annotations"]["deployment.kubernetes.io/revision-history"], "1");
    assert_eq!(replica_sets(&mut k).len(), 2, "no third ReplicaSet");
    let d = k.get(&format!("{DEPLOY}/web")).json_body();
    assert_eq!(d["metadata"]["annotations"]["deployment.kubernetes.io/revision"], "3");
}

#[test]
fn scaling_mid_rollout_is_proportional_and_scaling_a_settled_one_moves_its_replica_set() {
    let mut k = cluster();
    k.call("POST", DEPLOY, Some(deployment(3, "nginx:1.26", json!(null))));
    ready_all(&mut k);
    let r =
        k.send("PATCH", &format!("{DEPLOY}/web/scale"), "application/merge-patch+json", r#"{"spec":{"replicas":6}}"#);
    assert_eq!(r.status, 200);
    let sets = replica_sets(&mut k);
    assert_eq!(sets[0]["spec"]["replicas"], 6);
    assert_eq!(sets[0]["metadata"]["annotations"]["deployment.kubernetes.io/desired-replicas"], "6");
    assert_eq!(sets[0]["metadata"]["annotations"]["deployment.kubernetes.io/max-replicas"], "8");
    ready_all(&mut k);

    // Mid-rollout (nothing new is ready), scale 6 → 12: both grow.
    let patch = r#"{"spec":{"template":{"spec":{"containers":[{"name":"c","image":"nginx:1.27"}]}}}}"#;
    k.send("PATCH", &format!("{DEPLOY}/web"), "application/strategic-merge-patch+json", patch);
    let before: Vec<i64> = replica_sets(&mut k).iter().map(|rs| rs["spec"]["replicas"].as_i64().unwrap()).collect();
    assert_eq!(before.iter().sum::<i64>(), 8, "6 + a surge of 2: {before:?}");
    k.send("PATCH", &format!("{DEPLOY}/web/scale"), "application/merge-patch+json", r#"{"spec":{"replicas":12}}"#);
    let after: Vec<i64> = replica_sets(&mut k).iter().map(|rs| rs["spec"]["replicas"].as_i64().unwrap()).collect();
    assert_eq!(after.iter().sum::<i64>(), 15, "12 + a surge of 3: {after:?}");
    assert!(after[0] > before[0] && after[1] > before[1], "{before:?} → {after:?}");
    ready_all(&mut k);
    let sets = replica_sets(&mut k);
    assert_eq!((sets[0]["spec"]["replicas"].clone(), sets[1]["spec"]["replicas"].clone()), (json!(0), json!(12)));
}

#[test]
fn recreate_waits_for_the_old_pods_before_the_new_start() {
    let mut k = cluster();
    k.call("POST", DEPLOY, Some(deployment(2, "nginx:1.26", json!({"type": "Recreate"}))));
    ready_all(&mut k);
    k.c.pause(true);
    let patch = r#"{"spec":{"template":{"spec":{"containers":[{"name":"c","image":"nginx:1.27"}]}}}}"#;
    k.send("PATCH", &format!("{DEPLOY}/web"), "application/strategic-merge-patch+json", patch);
    // Step by step: no new pod exists while an old one does.
    for _ in 0..200 {
        if k.c.step(&mut k.s).is_none() {
            break;
        }
        let images: Vec<String> = items(&mut k, PODS)
            .iter()
            .map(|p| p["spec"]["containers"][0]["image"].as_str().unwrap().to_string())
            .collect();
        assert!(!(images.contains(&"nginx:1.26".into()) && images.contains(&"nginx:1.27".into())), "{images:?}");
    }
    k.c.pause(false);
    k.c.settle(&mut k.s);
    ready_all(&mut k);
    let pods = items(&mut k, PODS);
    assert_eq!(pods.len(), 2);
    assert!(pods.iter().all(|p| p["spec"]["containers"][0]["image"] == "nginx:1.27"));
}

#[test]
fn a_paused_deployment_scales_but_does_not_roll_out_until_resumed() {
    let mut k = cluster();
    k.call("POST", DEPLOY, Some(deployment(2, "nginx:1.26", json!(null))));
    ready_all(&mut k);
    k.send("PATCH", &format!("{DEPLOY}/web"), "application/strategic-merge-patch+json", r#"{"spec":{"paused":true}}"#);
    let d = k.get(&format!("{DEPLOY}/web")).json_body();
    assert_eq!(
        conditions(&d)[1],
        ("Progressing".into(), "Unknown".into(), "DeploymentPaused".into(), "Deployment is paused".into())
    );
    let patch = r#"{"spec":{"template":{"spec":{"containers":[{"name":"c","image":"nginx:1.27"}]}}}}"#;
    k.send("PATCH", &format!("{DEPLOY}/web"), "application/strategic-merge-patch+json", patch);
    assert_eq!(replica_sets(&mut k).len(), 1, "paused: no new ReplicaSet");
    k.send("PATCH", &format!("{DEPLOY}/web"), "application/strategic-merge-patch+json", r#"{"spec":{"paused":null}}"#);
    ready_all(&mut k);
    assert_eq!(replica_sets(&mut k).len(), 2);
    let d = k.get(&format!("{DEPLOY}/web")).json_body();
    assert_eq!(conditions(&d)[1].2, "NewReplicaSetAvailable");
}

#[test]
fn a_status_update_carries_annotations_but_not_a_deployments_labels() {
    let mut k = cluster();
    k.c.pause(true);
    let mut d = deployment(1, "nginx", json!(null));
    d["metadata"]["labels"] = json!({"tier": "web"});
    k.call("POST", DEPLOY, Some(d));
    let mut d = k.get(&format!("{DEPLOY}/web")).json_body();
    d["metadata"]["annotations"] = json!({"note": "from status"});
    d["metadata"]["labels"] = json!({"tier": "changed"});
    d["spec"]["replicas"] = json!(9);
    d["status"] = json!({"replicas": 1});
    let r = k.call("PUT", &format!("{DEPLOY}/web/status"), Some(d));
    assert_eq!(r.status, 200);
    let d = r.json_body();
    assert_eq!(d["metadata"]["annotations"], json!({"note": "from status"}));
    assert_eq!(d["metadata"]["labels"], json!({"tier": "web"}));
    assert_eq!((d["spec"]["replicas"].clone(), d["status"]["replicas"].clone()), (json!(1), json!(1)));
}

#[test]
fn a_rollout_without_progress_times_out_after_its_deadline_and_progress_is_measured_from_the_last_update() {
    let mut k = cluster();
    let mut d = deployment(2, "nginx:1.27", json!(null));
    d["spec"]["progressDeadlineSeconds"] = json!(60);
    assert_eq!(k.call("POST", DEPLOY, Some(d)).status, 201);
    let hash = replica_sets(&mut k)[0]["metadata"]["labels"]["pod-template-hash"].as_str().unwrap().to_string();
    let progressing = |k: &mut Cluster| {
        let d = k.get(&format!("{DEPLOY}/web")).json_body();
        conditions(&d).into_iter().find(|c| c.0 == "Progressing").unwrap()
    };
    // Progress (a pod ready) 40 s in moves the deadline on.
    k.s.advance(40_000);
    assert!(ready_one(&mut k));
    k.s.advance(40_000);
    k.c.tick(&mut k.s);
    assert_eq!(progressing(&mut k).2, "ReplicaSetUpdated");
    // 60 s after the last update, and the second upstream adds, it has timed out.
    k.s.advance(21_000);
    assert!(k.c.tick(&mut k.s));
    let c = progressing(&mut k);
    assert_eq!(
        (c.1.as_str(), c.2.as_str(), c.3),
        ("False", "ProgressDeadlineExceeded", format!("ReplicaSet \"web-{hash}\" has timed out progressing."))
    );
    assert_eq!(k.c.next_wake(), None, "a timed-out rollout is not checked again");
    // Progress afterwards completes it as usual.
    ready_all(&mut k);
    assert_eq!(progressing(&mut k).2, "NewReplicaSetAvailable");
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    /// An intstr as the spec allows it: a count or a percentage.
    fn intstr() -> impl Strategy<Value = Value> {
        prop_oneof![(0i64..4).prop_map(|n| json!(n)), (0i64..101).prop_map(|p| json!(format!("{p}%")))]
    }

    /// What an intstr comes to for `replicas` (percentages round up for
    /// surge, down for unavailability).
    fn resolve(v: &Value, replicas: i64, round_up: bool) -> i64 {
        match v {
            Value::String(p) => {
                let p: i64 = p.trim_end_matches('%').parse().unwrap();
                if round_up {
                    (p * replicas + 99) / 100
                } else {
                    p * replicas / 100
                }
            }
            v => v.as_i64().unwrap(),
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]
        /// Whatever the replicas and bounds, through two rollouts with pods
        /// becoming ready one at a time: never more than replicas + maxSurge
        /// pods, never fewer than replicas − maxUnavailable ready, and the
        /// rollout ends with every pod on the newest template.
        #[test]
        fn rolling_updates_keep_their_bounds_at_every_step(replicas in 1i64..6, surge in intstr(), unavailable in intstr()) {
            let zero = |v: &Value| *v == json!(0) || *v == json!("0%");
            // Both zero is refused by validation: make the surge one.
            let surge = if zero(&surge) && zero(&unavailable) { json!(1) } else { surge };
            let surge_n = resolve(&surge, replicas, true);
            let mut unavailable_n = resolve(&unavailable, replicas, false).min(replicas);
            if surge_n == 0 && unavailable_n == 0 {
                // Both resolving to zero: one may be unavailable.
                unavailable_n = 1;
            }
            let mut k = cluster();
            let strategy = json!({"type": "RollingUpdate", "rollingUpdate": {"maxSurge": surge, "maxUnavailable": unavailable}});
            let r = k.call("POST", DEPLOY, Some(deployment(replicas, "nginx:1.26", strategy)));
            prop_assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
            ready_all(&mut k);
            let (min_ready, max_pods) = ((replicas - unavailable_n).max(0) as usize, (replicas + surge_n) as usize);
            for image in ["nginx:1.27", "nginx:1.28"] {
                roll_to(&mut k, image, min_ready, max_pods);
                let pods = items(&mut k, PODS);
                prop_assert_eq!(pods.len() as i64, replicas);
                prop_assert!(pods.iter().all(|p| p["spec"]["containers"][0]["image"] == image));
            }
        }
    }
}
