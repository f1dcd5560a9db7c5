//! scheduling.k8s.io/v1 PriorityClasses and the Priority admission, as
//! kube-apiserver answers them: the system classes at start, validation,
//! the one global default, kubectl's columns, and what a class gives a pod.

mod common;
use common::*;
use serde_json::{json, Value};

const CLASSES: &str = "/apis/scheduling.k8s.io/v1/priorityclasses";
const PODS: &str = "/api/v1/namespaces/default/pods";

fn class(name: &str, value: i64, extra: Value) -> Value {
    let mut o = json!({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
        "metadata": {"name": name}, "value": value});
    for (k, v) in extra.as_object().cloned().unwrap_or_default() {
        o[k] = v;
    }
    o
}

fn pod(name: &str, spec_extra: Value) -> Value {
    let mut spec = json!({"containers": [{"name": "c", "image": "nginx:1.27"}]});
    for (k, v) in spec_extra.as_object().cloned().unwrap_or_default() {
        spec[k] = v;
    }
    json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": spec})
}

#[test]
fn the_system_classes_exist_at_start_and_refuse_deletion() {
    let mut s = server();
    let list = get(&mut s, CLASSES).json_body();
    assert_eq!(names(&list), ["system-cluster-critical", "system-node-critical"]);
    let node = get(&mut s, &format!("{CLASSES}/system-node-critical")).json_body();
    assert_eq!(node["value"], 2_000_001_000);
    assert_eq!(node["preemptionPolicy"], "PreemptLowerPriority");
    assert_eq!(node["metadata"]["generation"], 1);
    assert_eq!(node["description"], "Used for system critical pods that must not be moved from their current node.");
    assert!(node.get("globalDefault").is_none());

    let r = call(&mut s, "DELETE", &format!("{CLASSES}/system-node-critical"), None);
    assert_eq!(r.status, 403);
    assert_eq!(
        message(&r),
        "priorityclasses.scheduling.k8s.io \"system-node-critical\" is forbidden: this is a system priority class and cannot be deleted"
    );
    // Another class deletes as any object does.
    assert_eq!(call(&mut s, "POST", CLASSES, Some(class("high", 1000, json!({})))).status, 201);
    assert_eq!(call(&mut s, "DELETE", &format!("{CLASSES}/high"), None).status, 200);
}

#[test]
fn validation_as_upstream_words_it() {
    let mut s = server();
    let cases = [
        (class("too-high", 1_000_000_001, json!({})), "PriorityClass.scheduling.k8s.io \"too-high\" is invalid: value: Forbidden: maximum allowed value of a user defined priority is 1000000000"),
        (class("system-foo", 5, json!({})), "PriorityClass.scheduling.k8s.io \"system-foo\" is invalid: metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: system-foo is not a known system priority class"),
        (class("p", 5, json!({"preemptionPolicy": "Sometimes"})), "PriorityClass.scheduling.k8s.io \"p\" is invalid: preemptionPolicy: Unsupported value: \"Sometimes\": supported values: \"PreemptLowerPriority\", \"Never\""),
        (class("q", 5, json!({"preemptionPolicy": ""})), "PriorityClass.scheduling.k8s.io \"q\" is invalid: preemptionPolicy: Required value"),
    ];
    for (body, want) in cases {
        let r = call(&mut s, "POST", CLASSES, Some(body));
        assert_eq!(r.status, 422, "{}", message(&r));
        assert_eq!(message(&r), want);
    }
    // The limit itself and negative values are allowed.
    assert_eq!(call(&mut s, "POST", CLASSES, Some(class("top", 1_000_000_000, json!({})))).status, 201);
    assert_eq!(call(&mut s, "POST", CLASSES, Some(class("low", -5, json!({})))).status, 201);

    // The value and the policy are fixed; the description is not; the
    // generation stays 1.
    let mut top = get(&mut s, &format!("{CLASSES}/top")).json_body();
    top["value"] = json!(7);
    top["preemptionPolicy"] = json!("Never");
    let r = call(&mut s, "PUT", &format!("{CLASSES}/top"), Some(top));
    assert_eq!(r.status, 422);
    assert_eq!(
        message(&r),
        "PriorityClass.scheduling.k8s.io \"top\" is invalid: [value: Forbidden: may not be changed in an update., preemptionPolicy: Invalid value: \"Never\": field is immutable]"
    );
    let mut top = get(&mut s, &format!("{CLASSES}/top")).json_body();
    top["description"] = json!("the most");
    let r = call(&mut s, "PUT", &format!("{CLASSES}/top"), Some(top));
    assert_eq!(r.status, 200);
    assert_eq!(r.json_body()["metadata"]["generation"], 1);
}

#[test]
fn only_one_class_is_the_global_default() {
    let mut s = server();
    let r = call(&mut s, "POST", CLASSES, Some(class("normal", 100, json!({"globalDefault": true}))));
    assert_eq!(r.status, 201);
    let r = call(&mut s, "POST", CLASSES, Some(class("other", 5, json!({"globalDefault": true}))));
    assert_eq!(r.status, 403);
    assert_eq!(
        message(&r),
        "priorityclasses.scheduling.k8s.io \"other\" is forbidden: PriorityClass normal is already marked as default. Only one default can exist"
    );
    // Admission answers before the store: the default created again is
    // refused as a second default, not as a conflict.
    let r = call(&mut s, "POST", CLASSES, Some(class("normal", 100, json!({"globalDefault": true}))));
    assert_eq!(r.status, 403);
    // Marking another one by an update is refused too; the default itself
    // may be updated.
    assert_eq!(call(&mut s, "POST", CLASSES, Some(class("other", 5, json!({})))).status, 201);
    let mut other = get(&mut s, &format!("{CLASSES}/other")).json_body();
    other["globalDefault"] = json!(true);
    assert_eq!(call(&mut s, "PUT", &format!("{CLASSES}/other"), Some(other)).status, 403);
    let mut normal = get(&mut s, &format!("{CLASSES}/normal")).json_body();
    normal["description"] = json!("everyone's");
    assert_eq!(call(&mut s, "PUT", &format!("{CLASSES}/normal"), Some(normal)).status, 200);
}

#[test]
fn a_pod_gets_its_priority_from_its_class_or_the_global_default() {
    let mut s = server();
    // No class, no default: priority 0, the default policy, no class name.
    let r = call(&mut s, "POST", PODS, Some(pod("plain", json!({}))));
    assert_eq!(r.status, 201);
    let spec = &r.json_body()["spec"];
    assert_eq!((spec["priority"].clone(), spec["preemptionPolicy"].clone()), (json!(0), json!("PreemptLowerPriority")));
    assert!(spec.get("priorityClassName").is_none());

    // A named class gives its value and policy.
    let never = class("batch", 50, json!({"preemptionPolicy": "Never"}));
    assert_eq!(call(&mut s, "POST", CLASSES, Some(never)).status, 201);
    let r = call(&mut s, "POST", PODS, Some(pod("b", json!({"priorityClassName": "batch"}))));
    assert_eq!(r.status, 201);
    let spec = &r.json_body()["spec"];
    assert_eq!((spec["priority"].clone(), spec["preemptionPolicy"].clone()), (json!(50), json!("Never")));

    // The system classes may be used in any namespace.
    let r = call(&mut s, "POST", PODS, Some(pod("crit", json!({"priorityClassName": "system-cluster-critical"}))));
    assert_eq!(r.status, 201);
    assert_eq!(r.json_body()["spec"]["priority"], 2_000_000_000);

    // Refusals, in the plugin's words.
    let r = call(&mut s, "POST", PODS, Some(pod("x", json!({"priorityClassName": "missing"}))));
    assert_eq!(r.status, 403);
    assert_eq!(message(&r), "pods \"x\" is forbidden: no PriorityClass with name missing was found");
    let r = call(&mut s, "POST", PODS, Some(pod("y", json!({"priorityClassName": "batch", "priority": 7}))));
    assert_eq!(r.status, 403);
    assert_eq!(message(&r), "pods \"y\" is forbidden: the integer value of priority (7) must not be provided in pod spec; priority admission controller computed 50 from the given PriorityClass name");
    let r = call(
        &mut s,
        "POST",
        PODS,
        Some(pod("z", json!({"priorityClassName": "batch", "preemptionPolicy": "PreemptLowerPriority"}))),
    );
    assert_eq!(r.status, 403);
    assert_eq!(message(&r), "pods \"z\" is forbidden: the string value of PreemptionPolicy (PreemptLowerPriority) must not be provided in pod spec; priority admission controller computed Never from the given PriorityClass name");
    let mut generated = pod("", json!({"priorityClassName": "missing"}));
    generated["metadata"] = json!({"generateName": "web-"});
    let r = call(&mut s, "POST", PODS, Some(generated));
    assert_eq!(message(&r), "pods \"web-\" is forbidden: no PriorityClass with name missing was found");
    // The priority the class would give is accepted when written out.
    let r = call(&mut s, "POST", PODS, Some(pod("w", json!({"priorityClassName": "batch", "priority": 50}))));
    assert_eq!(r.status, 201);

    // The global default names itself in pods that name no class.
    assert_eq!(call(&mut s, "POST", CLASSES, Some(class("normal", 10, json!({"globalDefault": true})))).status, 201);
    let r = call(&mut s, "POST", PODS, Some(pod("d", json!({}))));
    let spec = &r.json_body()["spec"];
    assert_eq!((spec["priorityClassName"].clone(), spec["priority"].clone()), (json!("normal"), json!(10)));
}

#[test]
fn a_pods_admission_fields_are_no_writers_and_survive_an_update_that_leaves_them_out() {
    let mut s = server();
    assert_eq!(call(&mut s, "POST", CLASSES, Some(class("batch", 50, json!({})))).status, 201);
    let r = call(&mut s, "POST", PODS, Some(pod("p", json!({"priorityClassName": "batch"}))));
    assert_eq!(r.status, 201);
    let created = r.json_body();
    let owned = created["metadata"]["managedFields"][0]["fieldsV1"]["f:spec"].clone();
    for defaulted in ["f:dnsPolicy", "f:enableServiceLinks", "f:restartPolicy", "f:priorityClassName"] {
        assert!(owned.get(defaulted).is_some(), "{defaulted} in {owned}");
    }
    for admitted in ["f:priority", "f:preemptionPolicy", "f:serviceAccountName", "f:serviceAccount", "f:tolerations"] {
        assert!(owned.get(admitted).is_none(), "{admitted} in {owned}");
    }
    let mut p = created.clone();
    let spec = p["spec"].as_object_mut().unwrap();
    spec.remove("priority");
    spec.remove("preemptionPolicy");
    let r = call(&mut s, "PUT", &format!("{PODS}/p"), Some(p));
    assert_eq!(r.status, 200);
    assert_eq!(r.json_body()["spec"]["priority"], 50);
    assert_eq!(r.json_body()["spec"]["preemptionPolicy"], "PreemptLowerPriority");
}

#[test]
fn a_templates_class_name_and_policy_are_validated() {
    let mut s = server();
    // (A pod's are looked up by admission first, which refuses them: 403.)
    let r = call(&mut s, "POST", PODS, Some(pod("v", json!({"priorityClassName": "Bad_Name"}))));
    assert_eq!(r.status, 403);
    let d = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
        "spec": {"selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "c", "image": "nginx"}],
                    "priorityClassName": "Bad_Name", "preemptionPolicy": "Sometimes",
                    "serviceAccountName": "Robot_1"}}}});
    let r = call(&mut s, "POST", "/apis/apps/v1/namespaces/default/deployments", Some(d));
    assert_eq!(r.status, 422);
    let m = message(&r);
    // The service account's name too, first (upstream's order).
    let account = m
        .find("spec.template.spec.serviceAccountName: Invalid value: \"Robot_1\": a lowercase RFC 1123 subdomain")
        .expect(&m);
    assert!(account < m.find("priorityClassName").unwrap_or(0), "{m}");
    assert!(
        m.contains("spec.template.spec.priorityClassName: Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain"),
        "{m}"
    );
    assert!(m.contains("spec.template.spec.preemptionPolicy: Unsupported value: \"Sometimes\": supported values: \"PreemptLowerPriority\", \"Never\""), "{m}");
}

#[test]
fn kubectl_sees_the_columns_it_prints() {
    let mut s = server();
    let table = table(&mut s, CLASSES);
    let columns: Vec<&str> =
        table["columnDefinitions"].as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap()).collect();
    assert_eq!(columns, ["Name", "Value", "Global-Default", "Age", "PreemptionPolicy"]);
    let first = &table["rows"][0]["cells"];
    assert_eq!(first[0], "system-cluster-critical");
    assert_eq!(first[1], 2_000_000_000);
    assert_eq!(first[2], false);
    assert_eq!(first[4], "PreemptLowerPriority");
}
