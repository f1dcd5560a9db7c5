//! core/v1 LimitRanges and the LimitRanger admission as kube-apiserver
//! answers them: defaults filled into the object, validation, a pod's
//! containers given default requests and limits (and told so in an
//! annotation), pods and claims held to min, max and ratio with upstream's
//! 403s.

mod common;
use common::*;
use serde_json::{json, Value};

const LIMITS: &str = "/api/v1/namespaces/default/limitranges";
const PODS: &str = "/api/v1/namespaces/default/pods";

fn limit_range(name: &str, limits: Value) -> Value {
    json!({"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": name}, "spec": {"limits": limits}})
}

fn pod(name: &str, resources: Value) -> Value {
    json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
        "spec": {"containers": [{"name": "c", "image": "nginx", "resources": resources}]}})
}

#[test]
fn a_container_item_is_defaulted_and_validated() {
    let mut s = server();
    // (A PUT of a missing LimitRange creates it, as upstream's strategy allows.)
    let r = call(
        &mut s,
        "PUT",
        &format!("{LIMITS}/cpu"),
        Some(limit_range("cpu", json!([{"type": "Container", "max": {"cpu": "1"}, "min": {"cpu": "100m"}}]))),
    );
    assert_eq!(r.status, 201, "{}", message(&r));
    let item = &r.json_body()["spec"]["limits"][0];
    assert_eq!(item["default"], json!({"cpu": "1"}));
    assert_eq!(item["defaultRequest"], json!({"cpu": "1"}));

    // (A Container item's max is its default limit and default request
    // too, each validated.)
    let cases = [
        (json!([{"type": "Node"}]), "spec.limits[0].type: Invalid value: \"Node\": must be a standard limit type or fully qualified"),
        (json!([{"type": "Pod", "max": {"cpu": "1"}}, {"type": "Pod", "max": {"cpu": "2"}}]), "spec.limits[1].type: Duplicate value: \"Pod\""),
        (json!([{"type": "Container", "max": {"storage": "1Gi"}}]), "[spec.limits[0].max[storage]: Invalid value: \"storage\": must be a standard resource for containers, spec.limits[0].default[storage]: Invalid value: \"storage\": must be a standard resource for containers, spec.limits[0].defaultRequest[storage]: Invalid value: \"storage\": must be a standard resource for containers]"),
        (json!([{"type": "Pod", "max": {"cpu": "1"}, "default": {"cpu": "1"}}]), "spec.limits[0].default: Forbidden: may not be specified when `type` is 'Pod'"),
        (json!([{"type": "PersistentVolumeClaim"}]), "spec.limits[0].limits: Required value: either minimum or maximum storage value is required, but neither was provided"),
        (json!([{"type": "Pod", "min": {"cpu": "2"}, "max": {"cpu": "1"}}]), "spec.limits[0].min[cpu]: Invalid value: \"2\": min value 2 is greater than max value 1"),
        (json!([{"type": "Pod", "min": {"cpu": "100m"}, "max": {"cpu": "1"}, "maxLimitRequestRatio": {"cpu": "20"}}]), "spec.limits[0].maxLimitRequestRatio[cpu]: Invalid value: \"20\": ratio 20 is greater than max/min = 10.000000"),
        (json!([{"type": "Pod", "maxLimitRequestRatio": {"cpu": "500m"}}]), "spec.limits[0].maxLimitRequestRatio[cpu]: Invalid value: \"500m\": ratio 500m is less than 1"),
    ];
    for (limits, want) in cases {
        let r = call(&mut s, "POST", LIMITS, Some(limit_range("bad", limits.clone())));
        assert_eq!(r.status, 422, "{limits}");
        assert_eq!(message(&r), format!("LimitRange \"bad\" is invalid: {want}"), "{limits}");
    }
    let table = table(&mut s, LIMITS);
    let names: Vec<&str> =
        table["columnDefinitions"].as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["Name", "Created At"]);
    assert_eq!(table["rows"][0]["cells"][0], "cpu");
}

#[test]
fn a_new_pods_containers_get_the_defaults_they_lack_and_the_annotation_says_so() {
    let mut s = server();
    let lr = limit_range(
        "defaults",
        json!([{"type": "Container", "default": {"cpu": "500m", "memory": "256Mi"}, "defaultRequest": {"cpu": "100m", "memory": "128Mi"}}]),
    );
    assert_eq!(call(&mut s, "POST", LIMITS, Some(lr)).status, 201);
    let r = call(&mut s, "POST", PODS, Some(pod("web", json!({"requests": {"cpu": "200m"}}))));
    assert_eq!(r.status, 201, "{}", message(&r));
    let p = r.json_body();
    assert_eq!(
        p["spec"]["containers"][0]["resources"],
        json!({"requests": {"cpu": "200m", "memory": "128Mi"}, "limits": {"cpu": "500m", "memory": "256Mi"}})
    );
    assert_eq!(
        p["metadata"]["annotations"]["kubernetes.io/limit-ranger"],
        "LimitRanger plugin set: memory request for container c; cpu, memory limit for container c"
    );
    // The writer does not own what admission set.
    let owned =
        &p["metadata"]["managedFields"][0]["fieldsV1"]["f:spec"]["f:containers"]["k:{\"name\":\"c\"}"]["f:resources"];
    assert!(owned.get("f:limits").is_none(), "{owned}");
    // Not in another namespace.
    call(&mut s, "POST", "/api/v1/namespaces", Some(json!({"metadata": {"name": "other"}})));
    let r = call(&mut s, "POST", "/api/v1/namespaces/other/pods", Some(pod("web", json!({}))));
    assert_eq!(r.json_body()["spec"]["containers"][0]["resources"], json!({}));
}

#[test]
fn pods_are_held_to_min_max_and_ratio_in_upstreams_words() {
    let mut s = server();
    let lr = limit_range(
        "bounds",
        json!([
        {"type": "Container", "min": {"cpu": "100m"}, "max": {"cpu": "1"}, "maxLimitRequestRatio": {"cpu": "4"}},
        {"type": "Pod", "max": {"memory": "1Gi"}}]),
    );
    assert_eq!(call(&mut s, "POST", LIMITS, Some(lr)).status, 201);
    let cases = [
        (json!({"requests": {"cpu": "50m", "memory": "100Mi"}, "limits": {"cpu": "100m", "memory": "100Mi"}}), "minimum cpu usage per Container is 100m, but request is 50m"),
        (json!({"limits": {"cpu": "2", "memory": "2Gi"}}), "[maximum cpu usage per Container is 1, but limit is 2, maximum memory usage per Pod is 1Gi, but limit is 2Gi]"),
        (json!({"requests": {"cpu": "100m"}, "limits": {"cpu": "800m", "memory": "512Mi"}}), "cpu max limit to request ratio per Container is 4, but provided ratio is 8.000000"),
        (json!({"requests": {"cpu": "200m"}, "limits": {"cpu": "400m"}}), "maximum memory usage per Pod is 1Gi.  No limit is specified"),
    ];
    for (resources, want) in cases {
        let r = call(&mut s, "POST", PODS, Some(pod("p", resources.clone())));
        assert_eq!(r.status, 403, "{resources}: {}", message(&r));
        assert_eq!(message(&r), format!("pods \"p\" is forbidden: {want}"), "{resources}");
    }
    let ok = json!({"requests": {"cpu": "250m"}, "limits": {"cpu": "1", "memory": "512Mi"}});
    assert_eq!(call(&mut s, "POST", PODS, Some(pod("p", ok))).status, 201);
}

#[test]
fn claims_are_held_to_their_storage_bounds() {
    let mut s = server();
    let lr = limit_range(
        "storage",
        json!([{"type": "PersistentVolumeClaim", "min": {"storage": "1Gi"}, "max": {"storage": "2Gi"}}]),
    );
    assert_eq!(call(&mut s, "POST", LIMITS, Some(lr)).status, 201);
    let claim = |size: &str| {
        json!({"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "data"},
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": size}}}})
    };
    let r = call(&mut s, "POST", "/api/v1/namespaces/default/persistentvolumeclaims", Some(claim("5Gi")));
    assert_eq!(r.status, 403);
    assert_eq!(message(&r), "persistentvolumeclaims \"data\" is forbidden: maximum storage usage per PersistentVolumeClaim is 2Gi, but request is 5Gi");
    let r = call(&mut s, "POST", "/api/v1/namespaces/default/persistentvolumeclaims", Some(claim("512Mi")));
    assert_eq!(message(&r), "persistentvolumeclaims \"data\" is forbidden: minimum storage usage per PersistentVolumeClaim is 1Gi, but request is 512Mi");
    assert_eq!(
        call(&mut s, "POST", "/api/v1/namespaces/default/persistentvolumeclaims", Some(claim("1Gi"))).status,
        201
    );
}

#[test]
fn a_pod_made_before_its_limit_range_may_still_be_updated() {
    let mut s = server();
    assert_eq!(call(&mut s, "POST", PODS, Some(pod("early", json!({"limits": {"cpu": "2"}})))).status, 201);
    let lr = limit_range("late", json!([{"type": "Container", "max": {"cpu": "1"}}]));
    assert_eq!(call(&mut s, "POST", LIMITS, Some(lr)).status, 201);
    let r = s.handle(
        kubesim::server::Request::new("PATCH", &format!("{PODS}/early"))
            .with_header("Content-Type", "application/merge-patch+json")
            .with_body(br#"{"metadata":{"labels":{"touched":"yes"}}}"#.to_vec()),
    );
    assert_eq!(r.status, 200, "{}", message(&r));
    assert_eq!(call(&mut s, "POST", PODS, Some(pod("later", json!({"limits": {"cpu": "2"}})))).status, 403);
}
