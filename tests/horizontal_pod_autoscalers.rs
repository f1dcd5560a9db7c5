//! autoscaling/v2 and autoscaling/v1 HorizontalPodAutoscalers over one
//! storage, as kube-apiserver serves them: v2's defaults, v1's CPU target
//! as v2's first CPU metric and the annotations that carry what v1 cannot
//! hold, upstream's validation in v2's terms, and kubectl's columns.

mod common;
use common::*;
use kubesim::server::Request;
use serde_json::{json, Value};

const V2: &str = "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers";
const V1: &str = "/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers";

fn hpa_v2(name: &str, spec: Value) -> Value {
    let mut s =
        json!({"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}, "maxReplicas": 5});
    for (k, v) in spec.as_object().cloned().unwrap_or_default() {
        s[k] = v;
    }
    json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": {"name": name}, "spec": s})
}

#[test]
fn v2_defaults_one_replica_and_eighty_percent_cpu_and_fills_a_behavior() {
    let mut s = server();
    let r = call(
        &mut s,
        "POST",
        V2,
        Some(hpa_v2("a", json!({"behavior": {"scaleDown": {"stabilizationWindowSeconds": 60}}}))),
    );
    assert_eq!(r.status, 201, "{}", text(&r));
    let o = r.json_body();
    assert_eq!(o["spec"]["minReplicas"], 1);
    assert_eq!(
        o["spec"]["metrics"],
        json!([{"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 80}}}])
    );
    assert_eq!(
        o["spec"]["behavior"],
        json!({
            "scaleDown": {"stabilizationWindowSeconds": 60, "selectPolicy": "Max",
                "policies": [{"type": "Percent", "value": 100, "periodSeconds": 15}]},
            "scaleUp": {"stabilizationWindowSeconds": 0, "selectPolicy": "Max", "policies": [
                {"type": "Pods", "value": 4, "periodSeconds": 15}, {"type": "Percent", "value": 100, "periodSeconds": 15}]},
        })
    );
    assert_eq!(o["status"], json!({"currentMetrics": null, "desiredReplicas": 0}));
    // No behavior: none is made up.
    let o = call(&mut s, "POST", V2, Some(hpa_v2("b", json!({})))).json_body();
    assert!(o["spec"].get("behavior").is_none());
}

#[test]
fn a_v1_object_is_a_v2_object_and_back() {
    let mut s = server();
    let v1 = json!({"apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "web"},
        "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}, "maxReplicas": 4,
            "targetCPUUtilizationPercentage": 60}});
    let r = call(&mut s, "POST", V1, Some(v1));
    assert_eq!(r.status, 201, "{}", text(&r));
    let o = r.json_body();
    assert_eq!(o["apiVersion"], "autoscaling/v1");
    assert_eq!(o["spec"]["targetCPUUtilizationPercentage"], 60);
    assert_eq!(o["spec"]["minReplicas"], 1);
    assert_eq!(o["status"], json!({"currentReplicas": 0, "desiredReplicas": 0}));
    let v2 = get(&mut s, &format!("{V2}/web")).json_body();
    assert_eq!(
        v2["spec"]["metrics"],
        json!([{"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 60}}}])
    );
    assert!(v2["metadata"].get("annotations").is_none());

    // What v1 cannot hold travels in annotations, and comes back whole.
    let patch = json!({"spec": {"metrics": [
        {"type": "Pods", "pods": {"metric": {"name": "qps"}, "target": {"type": "AverageValue", "averageValue": "10"}}},
        {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 50}}},
    ], "behavior": {"scaleUp": {"selectPolicy": "Min"}}}});
    let req = Request::new("PATCH", &format!("{V2}/web"))
        .with_body(serde_json::to_vec(&patch).unwrap())
        .with_header("Content-Type", "application/merge-patch+json");
    let r = s.handle(req);
    assert_eq!(r.status, 200, "{}", text(&r));
    let o = get(&mut s, &format!("{V1}/web")).json_body();
    assert_eq!(o["spec"]["targetCPUUtilizationPercentage"], 50);
    let a = &o["metadata"]["annotations"];
    assert_eq!(
        a["autoscaling.alpha.kubernetes.io/metrics"],
        r#"[{"type":"Pods","pods":{"metricName":"qps","targetAverageValue":"10"}}]"#
    );
    let behavior: Value =
        serde_json::from_str(a["autoscaling.alpha.kubernetes.io/behavior"].as_str().unwrap()).unwrap();
    assert_eq!(behavior["ScaleUp"]["SelectPolicy"], "Min");
    assert_eq!(behavior["ScaleDown"]["StabilizationWindowSeconds"], Value::Null);
    // A v1 update that keeps the annotations keeps the v2 object.
    let mut o = o;
    o["spec"]["maxReplicas"] = json!(6);
    let r = call(&mut s, "PUT", &format!("{V1}/web"), Some(o));
    assert_eq!(r.status, 200, "{}", text(&r));
    let v2 = get(&mut s, &format!("{V2}/web")).json_body();
    assert_eq!(v2["spec"]["maxReplicas"], 6);
    assert_eq!(
        v2["spec"]["metrics"][0]["pods"],
        json!({"metric": {"name": "qps"}, "target": {"averageValue": "10", "type": "AverageValue"}})
    );
    assert_eq!(v2["spec"]["metrics"][1]["resource"]["target"]["averageUtilization"], 50);
    assert_eq!(v2["spec"]["behavior"]["scaleUp"]["selectPolicy"], "Min");
    assert!(v2["metadata"].get("annotations").is_none(), "{v2}");
}

#[test]
fn validation_as_upstream_words_it() {
    let mut s = server();
    let cases = [
        (hpa_v2("a", json!({"minReplicas": 0})), "HorizontalPodAutoscaler.autoscaling \"a\" is invalid: [spec.minReplicas: Invalid value: 0: must be greater than or equal to 1, spec.metrics: Forbidden: must specify at least one Object or External metric to support scaling to zero replicas]"),
        (hpa_v2("b", json!({"minReplicas": 3, "maxReplicas": 2})), "HorizontalPodAutoscaler.autoscaling \"b\" is invalid: spec.maxReplicas: Invalid value: 2: must be greater than or equal to `minReplicas`"),
        (hpa_v2("c", json!({"scaleTargetRef": {"kind": "", "name": "x/y"}})), "HorizontalPodAutoscaler.autoscaling \"c\" is invalid: [spec.scaleTargetRef.kind: Required value, spec.scaleTargetRef.name: Invalid value: \"x/y\": may not contain '/']"),
        (hpa_v2("d", json!({"metrics": [{"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 0}}}]})), "HorizontalPodAutoscaler.autoscaling \"d\" is invalid: spec.metrics[0].resource.target.averageUtilization: Invalid value: 0: must be greater than 0"),
        (hpa_v2("e", json!({"metrics": [{"type": "Pods", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 5}}}]})), "HorizontalPodAutoscaler.autoscaling \"e\" is invalid: spec.metrics[0].pods: Required value: must populate information for the given metric source"),
        (hpa_v2("f", json!({"behavior": {"scaleUp": {"policies": [{"type": "Pods", "value": 0, "periodSeconds": 2000}], "stabilizationWindowSeconds": 4000}}})), "HorizontalPodAutoscaler.autoscaling \"f\" is invalid: [spec.behavior.scaleUp.stabilizationWindowSeconds: Invalid value: 4000: must be less than or equal to 3600, spec.behavior.scaleUp.policies[0].value: Invalid value: 0: must be greater than zero, spec.behavior.scaleUp.policies[0].periodSeconds: Invalid value: 2000: must be less than or equal to 1800]"),
    ];
    for (body, want) in cases {
        let r = call(&mut s, "POST", V2, Some(body));
        assert_eq!(r.status, 422, "{}", text(&r));
        assert_eq!(message(&r), want);
    }
    // v1's errors are v2's: its CPU target is a metric.
    let v1 = json!({"apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "g"},
        "spec": {"scaleTargetRef": {"kind": "Deployment", "name": "web"}, "maxReplicas": 4, "targetCPUUtilizationPercentage": 0}});
    let r = call(&mut s, "POST", V1, Some(v1));
    assert_eq!(r.status, 422);
    assert_eq!(message(&r), "HorizontalPodAutoscaler.autoscaling \"g\" is invalid: spec.metrics[0].resource.target.averageUtilization: Invalid value: 0: must be greater than 0");
}

#[test]
fn kubectl_columns_show_each_target_over_its_goal() {
    let mut s = server();
    let metrics = json!([
        {"type": "Resource", "resource": {"name": "memory", "target": {"type": "AverageValue", "averageValue": "500Mi"}}},
        {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 60}}},
        {"type": "External", "external": {"metric": {"name": "queue"}, "target": {"type": "Value", "value": "30"}}},
    ]);
    assert_eq!(
        call(&mut s, "POST", V2, Some(hpa_v2("web", json!({"minReplicas": 2, "metrics": metrics})))).status,
        201
    );
    let t = table(&mut s, V2);
    let names: Vec<&str> =
        t["columnDefinitions"].as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["Name", "Reference", "Targets", "MinPods", "MaxPods", "Replicas", "Age"]);
    let cells = &t["rows"][0]["cells"];
    assert_eq!(cells[1], "Deployment/web");
    assert_eq!(cells[2], "memory: <unknown>/500Mi, cpu: <unknown>/60% + 1 more...");
    assert_eq!(cells[3], "2");
    assert_eq!(cells[4], 5);
    assert_eq!(cells[5], 0);
    // v1's table is made from v1's object, in which the CPU target comes
    // back last (docs/fidelity.md).
    assert_eq!(table(&mut s, V1)["rows"][0]["cells"][2], "memory: <unknown>/500Mi, <unknown>/30 + 1 more...");
}

fn pass(k: &mut Cluster, ms: i64) {
    k.s.advance(ms);
    k.c.tick(&mut k.s);
}

const DEPLOYMENTS: &str = "/apis/apps/v1/namespaces/default/deployments";

fn replicas(k: &mut Cluster) -> i64 {
    k.get(&format!("{DEPLOYMENTS}/web")).json_body()["spec"]["replicas"].as_i64().unwrap()
}

#[test]
fn the_controller_keeps_replicas_within_bounds_and_says_why_metrics_fail() {
    let mut k = Cluster::new();
    let deployment = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"}, "spec": {
        "replicas": 1, "selector": {"matchLabels": {"app": "web"}},
        "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}});
    assert_eq!(k.call("POST", DEPLOYMENTS, Some(deployment)).status, 201);
    let r = k.call("POST", V2, Some(hpa_v2("web", json!({"minReplicas": 2}))));
    assert_eq!(r.status, 201, "{}", text(&r));
    // A new autoscaler waits its first sync period.
    pass(&mut k, 14_000);
    assert_eq!(replicas(&mut k), 1);
    pass(&mut k, 1_000);
    assert_eq!(replicas(&mut k), 2);
    let hpa = k.get(&format!("{V2}/web")).json_body();
    assert_eq!(hpa["status"]["currentReplicas"], 1);
    assert_eq!(hpa["status"]["desiredReplicas"], 2);
    assert_eq!(condition(&hpa, "AbleToScale")["reason"], "SucceededRescale");
    assert_eq!(
        k.event_messages("reason=SuccessfulRescale"),
        ["New size: 2; reason: Current number of replicas below Spec.MinReplicas"]
    );

    // Within bounds it asks for metrics, which no API serves; the target's
    // resource is known by now, so only its scale is read.
    k.c.record(true);
    pass(&mut k, 15_000);
    let reads: Vec<String> =
        k.c.take_log()
            .iter()
            .filter(|e| e.controller == "horizontal-pod-autoscaler" && e.request.method == "GET")
            .map(|e| e.request.path.clone())
            .collect();
    assert_eq!(reads, ["/apis/apps/v1/namespaces/default/deployments/web/scale"]);
    let hpa = k.get(&format!("{V2}/web")).json_body();
    assert_eq!(hpa["status"]["currentMetrics"], json!([{"type": ""}]));
    assert_eq!(hpa["status"]["currentReplicas"], 2);
    let active = condition(&hpa, "ScalingActive");
    assert_eq!(active["status"], "False");
    assert_eq!(active["reason"], "FailedGetResourceMetric");
    let cause = "failed to get cpu utilization: unable to get metrics for resource cpu: unable to fetch metrics from resource metrics API: the server could not find the requested resource (get pods.metrics.k8s.io)";
    assert_eq!(active["message"], format!("the HPA was unable to compute the replica count: {cause}"));
    assert_eq!(k.event_messages("reason=FailedGetResourceMetric"), [cause]);
    assert_eq!(
        k.event_messages("reason=FailedComputeMetricsReplicas"),
        [format!(
            "invalid metrics (1 invalid out of 1), first error is: failed to get cpu resource metric value: {cause}"
        )]
    );
    // Through v1, the conditions and current metrics are annotations.
    let v1 = k.get(&format!("{V1}/web")).json_body();
    assert_eq!(v1["metadata"]["annotations"]["autoscaling.alpha.kubernetes.io/current-metrics"], r#"[{"type":""}]"#);
    assert!(v1.get("currentCPUUtilizationPercentage").is_none());

    // Above the most it scales down at the next sync.
    let scale = json!({"spec": {"replicas": 9}});
    let r = k.send("PATCH", &format!("{DEPLOYMENTS}/web/scale"), "application/merge-patch+json", &scale.to_string());
    assert_eq!(r.status, 200, "{}", text(&r));
    pass(&mut k, 15_000);
    assert_eq!(replicas(&mut k), 5);
    assert_eq!(
        k.event_messages("reason=SuccessfulRescale").last().map(String::as_str),
        Some("New size: 5; reason: Current number of replicas above Spec.MaxReplicas")
    );

    // A target that is not there.
    assert_eq!(
        k.call(
            "POST",
            V2,
            Some(hpa_v2(
                "gone",
                json!({"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "nope"}})
            ))
        )
        .status,
        201
    );
    pass(&mut k, 15_000);
    let hpa = k.get(&format!("{V2}/gone")).json_body();
    let able = condition(&hpa, "AbleToScale");
    assert_eq!(able["reason"], "FailedGetScale");
    assert_eq!(
        able["message"],
        "the HPA controller was unable to get the target's current scale: deployments.apps \"nope\" not found"
    );
}

#[test]
fn every_kind_of_metric_survives_a_trip_through_v1() {
    let mut s = server();
    let metrics = json!([
        {"type": "Object", "object": {"describedObject": {"kind": "Service", "name": "front", "apiVersion": "v1"},
            "metric": {"name": "rps"}, "target": {"type": "Value", "value": "2k"}}},
        {"type": "Pods", "pods": {"metric": {"name": "qps", "selector": {"matchLabels": {"a": "b"}}},
            "target": {"type": "AverageValue", "averageValue": "10"}}},
        {"type": "Resource", "resource": {"name": "memory", "target": {"type": "AverageValue", "averageValue": "500Mi"}}},
        {"type": "ContainerResource", "containerResource": {"name": "cpu", "container": "app",
            "target": {"type": "Utilization", "averageUtilization": 70}}},
        {"type": "External", "external": {"metric": {"name": "queue"}, "target": {"type": "AverageValue", "averageValue": "30"}}},
    ]);
    let r = call(&mut s, "POST", V2, Some(hpa_v2("web", json!({"metrics": metrics}))));
    assert_eq!(r.status, 201, "{}", text(&r));
    let mut o = r.json_body();
    o["status"] = json!({"currentReplicas": 3, "desiredReplicas": 3, "currentMetrics": [
        {"type": "Object", "object": {"describedObject": {"kind": "Service", "name": "front", "apiVersion": "v1"},
            "metric": {"name": "rps"}, "current": {"value": "1500"}}},
        {"type": ""},
    ], "conditions": [{"type": "AbleToScale", "status": "True", "lastTransitionTime": "2023-11-14T22:13:20Z",
        "reason": "SucceededGetScale", "message": "fine"}]});
    let r = call(&mut s, "PUT", &format!("{V2}/web/status"), Some(o));
    assert_eq!(r.status, 200, "{}", text(&r));
    let before = get(&mut s, &format!("{V2}/web")).json_body();
    let v1 = get(&mut s, &format!("{V1}/web")).json_body();
    assert!(v1["spec"].get("targetCPUUtilizationPercentage").is_none());
    assert_eq!(
        v1["metadata"]["annotations"]["autoscaling.alpha.kubernetes.io/current-metrics"],
        r#"[{"type":"Object","object":{"target":{"kind":"Service","name":"front","apiVersion":"v1"},"metricName":"rps","currentValue":"1500"}},{"type":""}]"#
    );
    let r = call(&mut s, "PUT", &format!("{V1}/web"), Some(v1));
    assert_eq!(r.status, 200, "{}", text(&r));
    let after = get(&mut s, &format!("{V2}/web")).json_body();
    assert_eq!(after["spec"], before["spec"]);
    assert_eq!(after["status"], before["status"]);
}

/// client-go sends kubectl 1.33's `autoscale --cpu-percent=0` as protobuf:
/// a zero utilization on the wire is set (a Go pointer), so it is refused
/// as a zero, not taken for one left out.
#[test]
fn a_zero_utilization_in_protobuf_is_a_zero() {
    use k8s_pb::api::autoscaling::v2 as pb;
    use prost::Message;
    let hpa = pb::HorizontalPodAutoscaler {
        metadata: Some(k8s_pb::apimachinery::pkg::apis::meta::v1::ObjectMeta {
            name: Some("zero".into()),
            ..Default::default()
        }),
        spec: Some(pb::HorizontalPodAutoscalerSpec {
            scale_target_ref: Some(pb::CrossVersionObjectReference {
                kind: Some("Deployment".into()),
                name: Some("web".into()),
                api_version: Some("apps/v1".into()),
            }),
            max_replicas: Some(3),
            metrics: vec![pb::MetricSpec {
                r#type: Some("Resource".into()),
                resource: Some(pb::ResourceMetricSource {
                    name: Some("cpu".into()),
                    target: Some(pb::MetricTarget {
                        r#type: Some("Utilization".into()),
                        average_utilization: Some(0),
                        ..Default::default()
                    }),
                }),
                ..Default::default()
            }],
            ..Default::default()
        }),
        ..Default::default()
    };
    let body = kubesim::proto::envelope("autoscaling/v2", "HorizontalPodAutoscaler", &hpa.encode_to_vec());
    let mut s = server();
    let r = s.handle(
        Request::new("POST", V2).with_header("Content-Type", "application/vnd.kubernetes.protobuf").with_body(body),
    );
    assert_eq!(r.status, 422, "{}", text(&r));
    assert_eq!(
        message(&r),
        "HorizontalPodAutoscaler.autoscaling \"zero\" is invalid: spec.metrics[0].resource.target.averageUtilization: Invalid value: 0: must be greater than 0"
    );
}

/// Two autoscalers over the same pods: each pass after both have read
/// their target finds the pods controlled by both (upstream's
/// `AmbiguousSelector`) and asks for no metric; a scale without a selector
/// is `SelectorRequired`.
#[test]
fn the_controller_checks_the_selector_before_the_metrics() {
    let mut k = Cluster::new();
    let deployment = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"}, "spec": {
        "replicas": 2, "selector": {"matchLabels": {"app": "web"}},
        "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}});
    assert_eq!(k.call("POST", DEPLOYMENTS, Some(deployment)).status, 201);
    for name in ["a", "b"] {
        let r = k.call("POST", V2, Some(hpa_v2(name, json!({"minReplicas": 2}))));
        assert_eq!(r.status, 201, "{}", text(&r));
    }
    let ambiguous = "pods by selector app=web are controlled by multiple HPAs: [{a default} {b default}]";
    // The first pass: `a` read its target before `b` had one.
    pass(&mut k, 15_000);
    let a = k.get(&format!("{V2}/a")).json_body();
    assert_eq!(condition(&a, "ScalingActive")["reason"], "FailedGetResourceMetric");
    let b = k.get(&format!("{V2}/b")).json_body();
    let active = condition(&b, "ScalingActive");
    assert_eq!((active["status"].as_str(), active["reason"].as_str()), (Some("False"), Some("AmbiguousSelector")));
    assert_eq!(active["message"], ambiguous);
    // No metric asked for: none current (Go writes the empty list as null).
    assert_eq!(b["status"].get("currentMetrics"), Some(&Value::Null), "{b}");
    // The next pass: both.
    pass(&mut k, 15_000);
    let a = k.get(&format!("{V2}/a")).json_body();
    assert_eq!(condition(&a, "ScalingActive")["reason"], "AmbiguousSelector");
    // (One event each, `b`'s counted twice.)
    assert_eq!(k.event_messages("reason=AmbiguousSelector"), [ambiguous, ambiguous]);
    assert_eq!(k.event_messages("reason=FailedGetResourceMetric").len(), 1, "no metric asked for since");
    // One gone, the other is alone again.
    assert_eq!(k.call("DELETE", &format!("{V2}/b"), None).status, 200);
    pass(&mut k, 15_000);
    let a = k.get(&format!("{V2}/a")).json_body();
    assert_eq!(condition(&a, "ScalingActive")["reason"], "FailedGetResourceMetric");

    // A custom resource's scale without a label selector path.
    let crd = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "pools.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced", "names": {"plural": "pools", "kind": "Pool"},
            "versions": [{"name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}},
                "subresources": {"scale": {"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas"}}}]}});
    assert_eq!(k.call("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", Some(crd)).status, 201);
    pass(&mut k, 1_000);
    let pool =
        json!({"apiVersion": "example.com/v1", "kind": "Pool", "metadata": {"name": "p"}, "spec": {"replicas": 3}});
    let r = k.call("POST", "/apis/example.com/v1/namespaces/default/pools", Some(pool));
    assert_eq!(r.status, 201, "{}", text(&r));
    let target = json!({"scaleTargetRef": {"apiVersion": "example.com/v1", "kind": "Pool", "name": "p"}});
    assert_eq!(k.call("POST", V2, Some(hpa_v2("pool", target))).status, 201);
    pass(&mut k, 15_000);
    let hpa = k.get(&format!("{V2}/pool")).json_body();
    let active = condition(&hpa, "ScalingActive");
    assert_eq!(active["reason"], "InvalidSelector");
    assert_eq!(active["message"], "the HPA target's scale is missing a selector");
    assert_eq!(k.event_messages("reason=SelectorRequired"), ["selector is required"]);
    assert!(k.event_messages("reason=FailedComputeMetricsReplicas").contains(&"selector is required".to_string()));
}
