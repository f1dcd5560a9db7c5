//! StorageClasses and what they do: served as storage.k8s.io/v1 with
//! upstream's defaults, validation and columns; the DefaultStorageClass
//! admission; kube-scheduler's VolumeBinding (claims that keep a pod off
//! every node, volumes' node affinity, delayed binding); and dynamic
//! provisioning by `local-path-provisioner`, kind's provisioner, with the
//! events a kind cluster shows.

mod common;
use common::*;
use serde_json::{json, Value};

const CLASSES: &str = "/apis/storage.k8s.io/v1/storageclasses";
const PVS: &str = "/api/v1/persistentvolumes";
const PVCS: &str = "/api/v1/namespaces/default/persistentvolumeclaims";
const PODS: &str = "/api/v1/namespaces/default/pods";

/// kind's default class.
fn standard() -> Value {
    json!({"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
        "metadata": {"name": "standard", "annotations": {"storageclass.kubernetes.io/is-default-class": "true"}},
        "provisioner": "rancher.io/local-path", "volumeBindingMode": "WaitForFirstConsumer"})
}

fn claim(name: &str, class: Option<&str>) -> Value {
    let mut c = json!({"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": name},
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}});
    if let Some(class) = class {
        c["spec"]["storageClassName"] = json!(class);
    }
    c
}

fn pod_with(name: &str, claim: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
        "spec": {"containers": [{"name": "c", "image": "nginx"}],
            "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": claim}}]}})
}

fn two_nodes() -> Cluster {
    let mut k = Cluster::new();
    for name in ["node-a", "node-b"] {
        k.ready_node(name, json!({"cpu": "2", "memory": "4Gi", "pods": "110"}));
        let labels = json!({"metadata": {"labels": {"kubernetes.io/hostname": name}}});
        let path = format!("/api/v1/nodes/{name}");
        assert_eq!(k.send("PATCH", &path, "application/merge-patch+json", &labels.to_string()).status, 200);
    }
    k
}

fn why_pending(k: &mut Cluster, pod: &str) -> String {
    let p = k.get(&format!("{PODS}/{pod}")).json_body();
    assert!(p["spec"]["nodeName"].is_null(), "{p}");
    condition(&p, "PodScheduled")["message"].as_str().unwrap_or("").to_string()
}

#[test]
fn a_class_is_defaulted_validated_fixed_once_made_and_printed_as_kubectl_shows_it() {
    let mut s = server();
    let r = call(&mut s, "POST", CLASSES, Some(json!({"metadata": {"name": "fast"}, "provisioner": "example.com/x"})));
    assert_eq!(r.status, 201, "{}", text(&r));
    let c = r.json_body();
    assert_eq!((c["reclaimPolicy"].as_str(), c["volumeBindingMode"].as_str()), (Some("Delete"), Some("Immediate")));
    let r = call(&mut s, "POST", CLASSES, Some(json!({"metadata": {"name": "bad"}, "reclaimPolicy": "Recycle"})));
    assert_eq!(r.status, 422);
    assert_eq!(
        message(&r),
        "StorageClass.storage.k8s.io \"bad\" is invalid: [provisioner: Required value, reclaimPolicy: Unsupported value: \"Recycle\": supported values: \"Delete\", \"Retain\"]"
    );
    let r = call(&mut s, "POST", CLASSES, Some(json!({"metadata": {"name": "bad"}, "provisioner": "a b"})));
    assert!(message(&r).contains("provisioner: Invalid value: \"a b\": name part must consist of"), "{}", message(&r));
    let mut changed = c.clone();
    changed["provisioner"] = json!("example.com/y");
    changed["parameters"] = json!({"type": "ssd"});
    changed["volumeBindingMode"] = json!("WaitForFirstConsumer");
    let r = call(&mut s, "PUT", &format!("{CLASSES}/fast"), Some(changed));
    assert_eq!(
        message(&r),
        "StorageClass.storage.k8s.io \"fast\" is invalid: [parameters: Forbidden: updates to parameters are forbidden., provisioner: Forbidden: updates to provisioner are forbidden., volumeBindingMode: Invalid value: \"WaitForFirstConsumer\": field is immutable]"
    );
    // Labels and annotations may change; the default is marked in the table.
    let mut marked = c.clone();
    marked["metadata"]["annotations"] = json!({"storageclass.kubernetes.io/is-default-class": "true"});
    assert_eq!(call(&mut s, "PUT", &format!("{CLASSES}/fast"), Some(marked)).status, 200);
    let t = table(&mut s, CLASSES);
    let heads: Vec<&str> =
        t["columnDefinitions"].as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap()).collect();
    assert_eq!(heads, ["Name", "Provisioner", "ReclaimPolicy", "VolumeBindingMode", "AllowVolumeExpansion", "Age"]);
    let cells = &t["rows"][0]["cells"];
    assert_eq!(cells[0], "fast (default)");
    assert_eq!(
        (cells[1].as_str(), cells[2].as_str(), cells[3].as_str()),
        (Some("example.com/x"), Some("Delete"), Some("Immediate"))
    );
    assert_eq!(cells[4], false);
}

#[test]
fn a_claim_without_a_class_gets_the_newest_default_one() {
    let mut k = Cluster::new();
    // No default class: the claim keeps no class.
    assert!(k.call("POST", PVCS, Some(claim("before", None))).json_body()["spec"].get("storageClassName").is_none());
    k.call("POST", CLASSES, Some(standard()));
    k.s.advance(1_000);
    let mut other = standard();
    other["metadata"]["name"] = json!("newer");
    k.call("POST", CLASSES, Some(other));
    let c = k.call("POST", PVCS, Some(claim("data", None))).json_body();
    assert_eq!(c["spec"]["storageClassName"], "newer");
    // Admission's, owned by no one.
    assert!(!c["metadata"]["managedFields"].to_string().contains("storageClassName"));
    // "" asks for no class; the beta annotation names one.
    let c = k.call("POST", PVCS, Some(claim("none", Some("")))).json_body();
    assert_eq!(c["spec"]["storageClassName"], "");
    let mut beta = claim("beta", None);
    beta["metadata"]["annotations"] = json!({"volume.beta.kubernetes.io/storage-class": "gold"});
    let c = k.call("POST", PVCS, Some(beta)).json_body();
    assert!(c["spec"].get("storageClassName").is_none(), "{c}");
}

#[test]
fn claims_a_pod_cannot_use_keep_it_off_every_node() {
    let mut k = two_nodes();
    k.call("POST", PODS, Some(pod_with("lost", "nope")));
    assert_eq!(
        why_pending(&mut k, "lost"),
        "0/2 nodes are available: persistentvolumeclaim \"nope\" not found. \
         preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling."
    );
    // A claim of no class binds at once or never: the pod waits for it.
    k.call("POST", PVCS, Some(claim("nope", Some(""))));
    assert_eq!(
        why_pending(&mut k, "lost"),
        "0/2 nodes are available: pod has unbound immediate PersistentVolumeClaims. \
         preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling."
    );
    // A volume for it, held on node-b: bound, and the pod follows it there.
    let pv = json!({"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "local-b"},
        "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"], "storageClassName": "",
            "local": {"path": "/mnt/disks/b"},
            "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [
                {"key": "kubernetes.io/hostname", "operator": "In", "values": ["node-b"]}]}]}}}});
    assert_eq!(k.call("POST", PVS, Some(pv)).status, 201);
    let p = k.get(&format!("{PODS}/lost")).json_body();
    assert_eq!(p["spec"]["nodeName"], "node-b");
    // A second pod pinned to node-a cannot use that volume there.
    let mut pinned = pod_with("pinned", "nope");
    pinned["spec"]["nodeSelector"] = json!({"kubernetes.io/hostname": "node-a"});
    k.call("POST", PODS, Some(pinned));
    assert_eq!(
        why_pending(&mut k, "pinned"),
        "0/2 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, \
         1 node(s) had volume node affinity conflict. \
         preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling."
    );
}

#[test]
fn a_claim_of_delayed_binding_is_provisioned_on_its_first_pods_node() {
    let mut k = two_nodes();
    k.call("POST", CLASSES, Some(standard()));
    let c = k.call("POST", PVCS, Some(claim("www", None))).json_body();
    assert_eq!(c["spec"]["storageClassName"], "standard");
    let uid = c["metadata"]["uid"].as_str().unwrap().to_string();
    assert_eq!(k.get(&format!("{PVCS}/www")).json_body()["status"]["phase"], "Pending");
    assert_eq!(
        k.event_messages("involvedObject.name=www"),
        ["waiting for first consumer to be created before binding"]
    );
    // Its first pod: the scheduler picks a node, the claim is provisioned
    // there and bound, and the pod is bound to that node.
    let mut p = pod_with("web", "www");
    p["spec"]["nodeSelector"] = json!({"kubernetes.io/hostname": "node-b"});
    k.call("POST", PODS, Some(p));
    let c = k.get(&format!("{PVCS}/www")).json_body();
    assert_eq!(c["status"]["phase"], "Bound");
    assert_eq!(c["spec"]["volumeName"], format!("pvc-{uid}"));
    let a = &c["metadata"]["annotations"];
    assert_eq!(a["volume.kubernetes.io/selected-node"], "node-b");
    assert_eq!(a["volume.kubernetes.io/storage-provisioner"], "rancher.io/local-path");
    assert_eq!(a["volume.beta.kubernetes.io/storage-provisioner"], "rancher.io/local-path");
    let v = k.get(&format!("{PVS}/pvc-{uid}")).json_body();
    assert_eq!(v["metadata"]["annotations"]["pv.kubernetes.io/provisioned-by"], "rancher.io/local-path");
    assert_eq!(v["spec"]["hostPath"]["path"], format!("/var/local-path-provisioner/pvc-{uid}_default_www"));
    assert_eq!(v["spec"]["persistentVolumeReclaimPolicy"], "Delete");
    assert_eq!(v["status"]["phase"], "Bound");
    assert_eq!(k.get(&format!("{PODS}/web")).json_body()["spec"]["nodeName"], "node-b");
    let reasons: Vec<String> = k
        .events("involvedObject.name=www")
        .iter()
        .map(|e| format!("{} {}", e["reason"].as_str().unwrap(), e["source"]["component"].as_str().unwrap()))
        .collect();
    assert_eq!(
        reasons,
        [
            "WaitForFirstConsumer persistentvolume-controller",
            "ExternalProvisioning persistentvolume-controller",
            "Provisioning rancher.io/local-path_local-path-provisioner",
            "ProvisioningSucceeded rancher.io/local-path_local-path-provisioner",
        ]
    );
    // The pod was bound once its claim was (upstream's PreBind waits).
    let rv = |e: &Value| e["metadata"]["resourceVersion"].as_str().unwrap().parse::<u64>().unwrap();
    let provisioned = rv(&k.events("involvedObject.name=www,reason=ProvisioningSucceeded")[0]);
    let scheduled = rv(&k.events("involvedObject.name=web,reason=Scheduled")[0]);
    assert!(scheduled > provisioned, "{scheduled} {provisioned}");
    // The pod and the claim gone, the provisioner deletes the volume.
    k.call("DELETE", &format!("{PODS}/web?gracePeriodSeconds=0"), None);
    k.call("DELETE", &format!("{PVCS}/www"), None);
    assert_eq!(k.get(&format!("{PVCS}/www")).status, 404);
    assert_eq!(k.get(&format!("{PVS}/pvc-{uid}")).status, 404);
}
