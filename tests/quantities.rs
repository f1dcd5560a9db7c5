//! Resource quantities as kube-apiserver stores them: it decodes every
//! write into Go types and encodes it again, so a quantity is stored in
//! its canonical form (`1000m` as `1`, `0.5Gi` as `512Mi`, the number `2`
//! as the string `"2"`), a text that is no quantity is refused with the
//! decoder's words, and writing a quantity again in another form changes
//! nothing.

mod common;
use common::*;
use serde_json::{json, Value};

const PODS: &str = "/api/v1/namespaces/default/pods";

fn pod(name: &str, resources: Value) -> Value {
    json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
        "spec": {"containers": [{"name": "c", "image": "nginx", "resources": resources}]}})
}

const FORMAT_WRONG: &str =
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

#[test]
fn quantities_are_stored_canonical_wherever_a_kind_holds_them() {
    let mut k = Cluster::new();
    let mut p = pod(
        "web",
        json!({"requests": {"cpu": "1000m", "memory": "0.5Gi", "ephemeral-storage": " 1024Mi "},
               "limits": {"cpu": 2, "memory": "1073741824", "example.com/gpu": null}}),
    );
    p["spec"]["volumes"] = json!([{"name": "scratch", "emptyDir": {"sizeLimit": "2048Ki"}}]);
    p["spec"]["containers"][0]["env"] = json!([{"name": "CPU", "valueFrom":
        {"resourceFieldRef": {"resource": "limits.cpu", "divisor": "1000m"}}}]);
    let r = k.call("POST", PODS, Some(p));
    assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
    let stored = k.get(&format!("{PODS}/web")).json_body();
    let c = &stored["spec"]["containers"][0];
    assert_eq!(
        c["resources"],
        json!({"requests": {"cpu": "1", "memory": "512Mi", "ephemeral-storage": "1Gi", "example.com/gpu": "0"},
               "limits": {"cpu": "2", "memory": "1073741824", "example.com/gpu": "0"}}),
        "a null is a zero quantity (and a limit without a request gives the request)"
    );
    assert_eq!(c["env"][0]["valueFrom"]["resourceFieldRef"]["divisor"], "1");
    assert_eq!(stored["spec"]["volumes"][0]["emptyDir"]["sizeLimit"], "2Mi");

    // A template's too, and a LimitRange's.
    let d = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
        "spec": {"selector": {"matchLabels": {"app": "d"}}, "template": {"metadata": {"labels": {"app": "d"}},
            "spec": {"containers": [{"name": "c", "image": "nginx", "resources": {"requests": {"cpu": "0.25"}}}]}}}});
    let r = k.call("POST", "/apis/apps/v1/namespaces/default/deployments", Some(d));
    assert_eq!(r.json_body()["spec"]["template"]["spec"]["containers"][0]["resources"]["requests"]["cpu"], "250m");
    let lr = json!({"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": "l"},
        "spec": {"limits": [{"type": "Container", "max": {"cpu": "2000m"}}]}});
    let r = k.call("POST", "/api/v1/namespaces/default/limitranges", Some(lr));
    assert_eq!(r.json_body()["spec"]["limits"][0]["max"]["cpu"], "2", "{}", String::from_utf8_lossy(&r.body));

    // A quota's hard amounts: canonical when valid (a fraction of a cpu
    // too), as sent when validation refuses them.
    let q = json!({"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "q"},
        "spec": {"hard": {"requests.cpu": "1.5", "limits.memory": "0.5Gi"}}});
    let r = k.call("POST", "/api/v1/namespaces/default/resourcequotas", Some(q));
    assert_eq!(r.json_body()["spec"]["hard"], json!({"requests.cpu": "1500m", "limits.memory": "512Mi"}));
}

#[test]
fn a_text_that_is_no_quantity_is_refused_as_the_decoder_refuses_it() {
    let mut k = Cluster::new();
    for (cpu, why) in [
        ("lots", FORMAT_WRONG),
        ("1x", FORMAT_WRONG),
        ("1KK", "unable to parse quantity's suffix"),
        (".e-12", "unable to parse numeric part of quantity"),
    ] {
        let r = k.call("POST", PODS, Some(pod("bad", json!({"requests": {"cpu": cpu}}))));
        assert_eq!(r.status, 400, "{cpu}");
        assert_eq!(reason(&r), "BadRequest");
        assert_eq!(message(&r), format!("Pod in version \"v1\" cannot be handled as a Pod: {why}"), "{cpu}");
    }
    let r = k.call("POST", PODS, Some(pod("web", json!({"requests": {"cpu": "100m"}}))));
    assert_eq!(r.status, 201);
    let mut bad = r.json_body();
    bad["spec"]["containers"][0]["resources"]["limits"] = json!({"memory": "1Gb"});
    let r = k.call("PUT", &format!("{PODS}/web"), Some(bad));
    assert_eq!(
        (r.status, message(&r)),
        (400, format!("Pod in version \"v1\" cannot be handled as a Pod: {FORMAT_WRONG}"))
    );

    let r = k.send(
        "PATCH",
        &format!("{PODS}/web"),
        "application/merge-patch+json",
        r#"{"spec":{"overhead":{"cpu":"much"}}}"#,
    );
    assert_eq!(r.status, 422, "{}", String::from_utf8_lossy(&r.body));
    assert!(message(&r).starts_with(" \"\" is invalid: patch: Invalid value: \"{"), "{}", message(&r));
    assert!(message(&r).contains(r#"\"overhead\":{\"cpu\":\"much\"}"#), "{}", message(&r));
    assert!(message(&r).ends_with(&format!(": {FORMAT_WRONG}")), "{}", message(&r));

    // Server-side apply reads the merged object as an update's body.
    let r = k.send(
        "PATCH",
        "/api/v1/namespaces/default/pods/applied?fieldManager=me",
        "application/apply-patch+yaml",
        "apiVersion: v1\nkind: Pod\nmetadata: {name: applied}\nspec:\n  containers:\n  - {name: c, image: nginx, resources: {requests: {cpu: 2 cores}}}\n",
    );
    assert_eq!(
        (r.status, message(&r)),
        (400, format!("Pod in version \"v1\" cannot be handled as a Pod: {FORMAT_WRONG}"))
    );
    assert_eq!(k.get(&format!("{PODS}/applied")).status, 404);
}

#[test]
fn a_quantity_written_again_in_another_form_changes_nothing() {
    let mut k = Cluster::new();
    let r = k.call("POST", PODS, Some(pod("web", json!({"requests": {"cpu": "1", "memory": "512Mi"}}))));
    assert_eq!(r.status, 201);
    let before = k.get(&format!("{PODS}/web")).json_body();
    let mut again = before.clone();
    again["spec"]["containers"][0]["resources"]["requests"] = json!({"cpu": "1000m", "memory": "0.5Gi"});
    let r = k.call("PUT", &format!("{PODS}/web"), Some(again));
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    let after = r.json_body();
    assert_eq!(rv(&after), rv(&before), "an update that changes nothing is no write");
    assert_eq!(after["metadata"]["managedFields"], before["metadata"]["managedFields"]);
    assert_eq!(after["spec"]["containers"][0]["resources"]["requests"], json!({"cpu": "1", "memory": "512Mi"}));
}
