//! Claims and volumes as kube-controller-manager's storage controllers
//! keep them: bound by `persistentvolume-binder`, released by the reclaim
//! policy, kept while in use by the protection finalizers that
//! kube-apiserver's StorageObjectInUseProtection admission adds.

mod common;
use common::*;
use serde_json::{json, Value};

const PVS: &str = "/api/v1/persistentvolumes";
const PVCS: &str = "/api/v1/namespaces/default/persistentvolumeclaims";

fn pv(name: &str, class: &str, size: &str, modes: Value, path: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": name, "labels": {"tier": name}},
        "spec": {"storageClassName": class, "capacity": {"storage": size}, "accessModes": modes,
            "hostPath": {"path": path}}})
}

fn pvc(name: &str, class: Option<&str>, size: &str) -> Value {
    let mut c = json!({"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": name},
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": size}}}});
    if let Some(class) = class {
        c["spec"]["storageClassName"] = json!(class);
    }
    c
}

fn phase(k: &mut Cluster, path: &str) -> String {
    k.get(path).json_body()["status"]["phase"].as_str().unwrap_or("").to_string()
}

#[test]
fn admission_adds_the_protection_finalizers_on_create_only() {
    let mut s = server();
    let r = call(&mut s, "POST", PVS, Some(pv("v", "", "1Gi", json!(["ReadWriteOnce"]), "/mnt/v")));
    assert_eq!(r.status, 201, "{}", text(&r));
    let v = r.json_body();
    assert_eq!(v["metadata"]["finalizers"], json!(["kubernetes.io/pv-protection"]));
    // SetDefaults_PersistentVolume, and the phase's time from the create.
    assert_eq!(v["spec"]["persistentVolumeReclaimPolicy"], "Retain");
    assert_eq!(v["spec"]["volumeMode"], "Filesystem");
    assert_eq!(v["status"]["phase"], "Pending");
    assert_eq!(v["status"]["lastPhaseTransitionTime"], v["metadata"]["creationTimestamp"]);
    // No one owns what admission added.
    let owned = v["metadata"]["managedFields"][0]["fieldsV1"]["f:metadata"].to_string();
    assert!(!owned.contains("finalizers"), "{owned}");
    let r = call(&mut s, "POST", PVCS, Some(pvc("c", None, "1Gi")));
    assert_eq!(r.json_body()["metadata"]["finalizers"], json!(["kubernetes.io/pvc-protection"]));
    // An update that drops the finalizer is not given it back.
    let mut c = r.json_body();
    c["metadata"]["finalizers"] = json!([]);
    let r = call(&mut s, "PUT", &format!("{PVCS}/c"), Some(c));
    assert_eq!(r.status, 200);
    assert!(r.json_body()["metadata"].get("finalizers").is_none(), "{}", text(&r));
}

#[test]
fn a_status_write_that_changes_the_phase_moves_its_transition_time() {
    let mut s = server();
    call(&mut s, "POST", PVS, Some(pv("v", "", "1Gi", json!(["ReadWriteOnce"]), "/mnt/v")));
    let mut v = get(&mut s, &format!("{PVS}/v")).json_body();
    let created = v["status"]["lastPhaseTransitionTime"].clone();
    s.advance(90_000);
    // The same phase keeps the stored time, even when the writer drops it.
    v["status"] = json!({"phase": "Pending"});
    let r = call(&mut s, "PUT", &format!("{PVS}/v/status"), Some(v.clone()));
    assert_eq!(r.json_body()["status"]["lastPhaseTransitionTime"], created);
    v["status"] = json!({"phase": "Available", "lastPhaseTransitionTime": created});
    let r = call(&mut s, "PUT", &format!("{PVS}/v/status"), Some(v));
    let moved = &r.json_body()["status"]["lastPhaseTransitionTime"];
    assert_ne!(*moved, created);
    assert!(moved.as_str().unwrap() > created.as_str().unwrap());
}

#[test]
fn a_claim_binds_the_smallest_volume_of_its_class_that_fits() {
    let mut k = Cluster::new();
    let rwo = json!(["ReadWriteOnce"]);
    for v in [
        pv("big", "manual", "10Gi", rwo.clone(), "/mnt/big"),
        pv("small", "manual", "2Gi", rwo.clone(), "/mnt/small"),
        pv("tiny", "manual", "1Gi", rwo.clone(), "/mnt/tiny"),
        pv("other-class", "fast", "3Gi", rwo.clone(), "/mnt/fast"),
        pv("many-modes", "manual", "3Gi", json!(["ReadWriteOnce", "ReadOnlyMany"]), "/mnt/rox"),
    ] {
        assert_eq!(k.call("POST", PVS, Some(v)).status, 201);
    }
    assert_eq!(phase(&mut k, &format!("{PVS}/big")), "Available");
    assert_eq!(k.call("POST", PVCS, Some(pvc("data", Some("manual"), "1500Mi"))).status, 201);
    let c = k.get(&format!("{PVCS}/data")).json_body();
    assert_eq!(c["spec"]["volumeName"], "small");
    assert_eq!(c["status"]["phase"], "Bound");
    assert_eq!(c["status"]["capacity"], json!({"storage": "2Gi"}));
    assert_eq!(c["status"]["accessModes"], rwo);
    assert_eq!(c["metadata"]["annotations"]["pv.kubernetes.io/bind-completed"], "yes");
    assert_eq!(c["metadata"]["annotations"]["pv.kubernetes.io/bound-by-controller"], "yes");
    let v = k.get(&format!("{PVS}/small")).json_body();
    assert_eq!(v["status"]["phase"], "Bound");
    assert_eq!(v["metadata"]["annotations"]["pv.kubernetes.io/bound-by-controller"], "yes");
    let r = &v["spec"]["claimRef"];
    assert_eq!(
        (r["kind"].as_str(), r["namespace"].as_str(), r["name"].as_str(), r["apiVersion"].as_str()),
        (Some("PersistentVolumeClaim"), Some("default"), Some("data"), Some("v1"))
    );
    assert_eq!(r["uid"], c["metadata"]["uid"]);
    // kubectl's columns show the binding.
    let t = table(&mut k.s, &format!("{PVS}/small"));
    assert_eq!(t["rows"][0]["cells"][4], "Bound");
    assert_eq!(t["rows"][0]["cells"][5], "default/data");
    // A claim with a selector takes only a volume it selects; one naming a
    // volume waits for it.
    let mut picky = pvc("picky", Some("manual"), "1Gi");
    picky["spec"]["selector"] = json!({"matchLabels": {"tier": "big"}});
    k.call("POST", PVCS, Some(picky));
    assert_eq!(k.get(&format!("{PVCS}/picky")).json_body()["spec"]["volumeName"], "big");
    let mut named = pvc("named", Some("manual"), "1Gi");
    named["spec"]["volumeName"] = json!("later");
    k.call("POST", PVCS, Some(named));
    assert_eq!(phase(&mut k, &format!("{PVCS}/named")), "Pending");
    k.call("POST", PVS, Some(pv("later", "manual", "1Gi", rwo, "/mnt/later")));
    assert_eq!(phase(&mut k, &format!("{PVCS}/named")), "Bound");
    // The binder's manager is the controller manager.
    let managers: Vec<Value> = k.get(&format!("{PVS}/later")).json_body()["metadata"]["managedFields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["manager"].clone())
        .collect();
    assert!(managers.contains(&json!("kube-controller-manager")), "{managers:?}");
}

#[test]
fn a_claim_nothing_fits_stays_pending_and_says_why() {
    let mut k = Cluster::new();
    k.call("POST", PVCS, Some(pvc("plain", None, "1Gi")));
    k.call("POST", PVCS, Some(pvc("classy", Some("manual"), "1Gi")));
    assert_eq!(phase(&mut k, &format!("{PVCS}/plain")), "Pending");
    assert_eq!(
        k.event_messages("involvedObject.name=plain"),
        ["no persistent volumes available for this claim and no storage class is set"]
    );
    let e = k.events("involvedObject.name=classy");
    assert_eq!(e.len(), 1);
    assert_eq!((e[0]["type"].as_str(), e[0]["reason"].as_str()), (Some("Warning"), Some("ProvisioningFailed")));
    assert_eq!(e[0]["message"], "storageclass.storage.k8s.io \"manual\" not found");
    assert_eq!(e[0]["source"]["component"], "persistentvolume-controller");
    // A volume too small for the claim that names it.
    k.call("POST", PVS, Some(pv("small", "", "1Mi", json!(["ReadWriteOnce"]), "/mnt/s")));
    let mut named = pvc("named", None, "1Gi");
    named["spec"]["volumeName"] = json!("small");
    k.call("POST", PVCS, Some(named));
    assert_eq!(
        k.event_messages("involvedObject.name=named"),
        ["Cannot bind to requested volume \"small\": requested PV is too small"]
    );
    assert_eq!(phase(&mut k, &format!("{PVS}/small")), "Available");
}

/// kube-controller-manager syncs every claim again each 15 seconds
/// (`--pvclaimbinder-sync-period`), so a claim left waiting hears the same
/// event again and again: one Event, its count going up, until it binds.
#[test]
fn a_waiting_claim_is_told_again_at_each_resync_until_it_binds() {
    let mut k = Cluster::new();
    k.call("POST", PVCS, Some(pvc("plain", None, "1Gi")));
    let count = |k: &mut Cluster| {
        let e = k.events("involvedObject.name=plain");
        assert_eq!(e.len(), 1, "one event, counted");
        (e[0]["count"].as_i64().unwrap_or(0), e[0]["firstTimestamp"].clone(), e[0]["lastTimestamp"].clone())
    };
    assert_eq!(count(&mut k).0, 1);
    // Another claim's change within the period tells this one nothing new.
    k.s.advance(5_000);
    k.call("POST", PVCS, Some(pvc("other", Some("manual"), "1Gi")));
    assert_eq!(count(&mut k).0, 1);
    for _ in 0..4 {
        k.s.advance(15_000);
        k.c.tick(&mut k.s);
    }
    let (n, first, last) = count(&mut k);
    assert_eq!(n, 5, "told at 0, 15, 30, 45 and 60 seconds");
    assert_ne!(first, last);
    // Bound, it is told no more.
    k.call("POST", PVS, Some(pv("fits", "", "1Gi", json!(["ReadWriteOnce"]), "/mnt/f")));
    assert_eq!(phase(&mut k, &format!("{PVCS}/plain")), "Bound");
    for _ in 0..2 {
        k.s.advance(15_000);
        k.c.tick(&mut k.s);
    }
    assert_eq!(count(&mut k).0, 5);
}

#[test]
fn a_claim_in_use_stays_until_its_pod_goes_and_its_volume_is_then_reclaimed() {
    let mut k = Cluster::new();
    k.ready_node("node-a", json!({"cpu": "2", "memory": "4Gi", "pods": "110"}));
    let rwo = json!(["ReadWriteOnce"]);
    k.call("POST", PVS, Some(pv("kept", "", "1Gi", rwo.clone(), "/mnt/kept")));
    k.call("POST", PVCS, Some(pvc("data", None, "1Gi")));
    let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web"},
        "spec": {"containers": [{"name": "c", "image": "nginx"}],
            "volumes": [{"name": "d", "persistentVolumeClaim": {"claimName": "data"}}]}});
    assert_eq!(k.call("POST", "/api/v1/namespaces/default/pods", Some(pod)).status, 201);
    assert_eq!(k.call("DELETE", &format!("{PVCS}/data"), None).status, 200);
    // The pod uses it: Terminating, the finalizer kept.
    let c = k.get(&format!("{PVCS}/data")).json_body();
    assert!(c["metadata"]["deletionTimestamp"].is_string());
    assert_eq!(c["metadata"]["finalizers"], json!(["kubernetes.io/pvc-protection"]));
    assert_eq!(table(&mut k.s, &format!("{PVCS}/data"))["rows"][0]["cells"][1], "Terminating");
    // A bound volume cannot go either.
    assert_eq!(k.call("DELETE", &format!("{PVS}/kept"), None).status, 200);
    assert_eq!(phase(&mut k, &format!("{PVS}/kept")), "Bound");
    // The pod gone, the claim goes; its volume is Released, then (no
    // longer Bound) its own finalizer goes too.
    k.call("DELETE", "/api/v1/namespaces/default/pods/web?gracePeriodSeconds=0", None);
    assert_eq!(k.get(&format!("{PVCS}/data")).status, 404);
    assert_eq!(k.get(&format!("{PVS}/kept")).status, 404);
    // Retain without a delete: the volume stays Released with its claimRef.
    k.call("POST", PVS, Some(pv("retained", "", "1Gi", rwo.clone(), "/mnt/r")));
    k.call("POST", PVCS, Some(pvc("data", None, "1Gi")));
    k.call("DELETE", &format!("{PVCS}/data"), None);
    let v = k.get(&format!("{PVS}/retained")).json_body();
    assert_eq!(v["status"]["phase"], "Released");
    assert_eq!(v["spec"]["claimRef"]["name"], "data");
    // Delete: a hostPath under /tmp is removed, any other fails as
    // upstream's plugins say.
    for (name, path) in [("scratch", "/tmp/scratch"), ("disk", "/mnt/disk")] {
        let mut v = pv(name, "", "1Gi", rwo.clone(), path);
        v["spec"]["persistentVolumeReclaimPolicy"] = json!("Delete");
        k.call("POST", PVS, Some(v));
        k.call("POST", PVCS, Some(pvc(name, None, "1Gi")));
        assert_eq!(phase(&mut k, &format!("{PVCS}/{name}")), "Bound", "{name}");
        k.call("DELETE", &format!("{PVCS}/{name}"), None);
    }
    assert_eq!(k.get(&format!("{PVS}/scratch")).status, 404);
    let v = k.get(&format!("{PVS}/disk")).json_body();
    assert_eq!(v["status"]["phase"], "Failed");
    let why = "host_path deleter only supports /tmp/.+ but received provided /mnt/disk";
    assert_eq!(v["status"]["message"], why);
    assert_eq!(k.event_messages("involvedObject.name=disk,reason=VolumeFailedDelete"), [why]);
}
