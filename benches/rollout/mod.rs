//! The 1,000-replica rollout: the living cluster's benchmark, natively
//! (`benches/core.rs`) and compiled to WebAssembly (`benches/wasm`, whose
//! instructions are counted under valgrind: the page's core, without the
//! page).

use std::time::Instant;

use kubesim::controllers::{Controllers, ALL};
use kubesim::server::{Request, Server, ServerConfig};
use serde_json::json;

/// A 1,000-replica Deployment from its create to every pod Ready, every
/// controller running, on ten nodes: core time, and with `record` the
/// requests made (kept in a log, as the page keeps them; the native door
/// keeps none).
pub fn rollout(record: bool) -> (f64, usize) {
    let mut s = Server::new(ServerConfig::default());
    let mut c = Controllers::new(ALL).unwrap();
    let send = |s: &mut Server, method: &str, path: &str, ct: &str, body: serde_json::Value| {
        let r = s.handle(
            Request::new(method, path).with_header("Content-Type", ct).with_body(serde_json::to_vec(&body).unwrap()),
        );
        assert!(r.status < 300, "{method} {path}: {}", String::from_utf8_lossy(&r.body));
    };
    for i in 0..10 {
        let name = format!("node-{i}");
        send(
            &mut s,
            "POST",
            "/api/v1/nodes",
            "application/json",
            json!({"metadata": {"name": name}, "spec": {"podCIDR": format!("10.244.{i}.0/24")}}),
        );
        send(
            &mut s,
            "PATCH",
            &format!("/api/v1/nodes/{name}/status"),
            "application/merge-patch+json",
            json!({"status": {"allocatable": {"cpu": "32", "memory": "64Gi", "pods": "110"},
                "conditions": [{"type": "Ready", "status": "True"}]}}),
        );
    }
    c.settle(&mut s);
    c.record(record);
    let deployment = json!({"metadata": {"name": "big"}, "spec": {"replicas": 1000,
        "selector": {"matchLabels": {"app": "big"}},
        "template": {"metadata": {"labels": {"app": "big"}}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}});
    let start = Instant::now();
    send(&mut s, "POST", "/apis/apps/v1/namespaces/default/deployments", "application/json", deployment);
    c.settle(&mut s);
    let elapsed = start.elapsed().as_secs_f64();
    let requests = c.take_log().len();
    let d: serde_json::Value =
        serde_json::from_slice(&s.handle(Request::new("GET", "/apis/apps/v1/namespaces/default/deployments/big")).body)
            .unwrap();
    assert_eq!(d["status"]["availableReplicas"], 1000, "{}", d["status"]);
    (elapsed, requests)
}
