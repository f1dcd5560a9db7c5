//! Encoding a stored pod to protobuf against serializing its value to
//! JSON, for counting instructions (the machines are too noisy for small
//! differences in time). 500 pods are created through the server, listed,
//! and each side encodes every pod 20 times:
//!
//! ```sh
//! cargo build --release --example protobuf_instructions
//! for side in json protobuf; do
//!   valgrind --tool=callgrind --toggle-collect="protobuf_instructions::${side}_side" \
//!     --callgrind-out-file=/tmp/cg-$side.out target/release/examples/protobuf_instructions $side
//! done
//! ```
//!
//! Instructions a pod are the `I refs` valgrind prints over 10,000.
//! `BENCHMARKS.md` has the figures.

use kubesim::{Request, Server, ServerConfig};
use serde_json::{json, Value};

fn pod(i: usize) -> Value {
    json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": format!("pod-{i:06}"), "labels": {"app": "web", "shard": (i % 10).to_string()}},
        "spec": {"nodeName": format!("node-{}", i % 50), "containers": [{"name": "app",
            "image": "registry.example.com/team/app:1.2.3",
            "ports": [{"containerPort": 8080, "protocol": "TCP"}], "env": [{"name": "MODE", "value": "production"}],
            "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}}}]}})
}

#[inline(never)]
fn json_side(items: &[&Value]) -> usize {
    items.iter().map(|i| std::hint::black_box(serde_json::to_vec(i).unwrap_or_default()).len()).sum()
}

#[inline(never)]
fn protobuf_side(stored: &[Vec<u8>]) -> usize {
    stored
        .iter()
        .map(|b| std::hint::black_box(kubesim::proto::encode_raw_stored("v1", "Pod", b).unwrap_or_default()).len())
        .sum()
}

fn main() {
    let side = std::env::args().nth(1).unwrap_or_default();
    let mut server = Server::new(ServerConfig::default());
    for i in 0..500 {
        let body = serde_json::to_vec(&pod(i)).unwrap_or_default();
        let created = server.handle(Request::new("POST", "/api/v1/namespaces/default/pods").with_body(body));
        assert_eq!(created.status, 201);
    }
    let listed = server.handle(Request::new("GET", "/api/v1/namespaces/default/pods")).body;
    let list: Value = serde_json::from_slice(&listed).unwrap_or_default();
    let items: Vec<&Value> = list["items"].as_array().map(|a| a.iter().collect()).unwrap_or_default();
    // Each pod as the server stores it (its JSON bytes).
    let stored: Vec<Vec<u8>> = items.iter().map(|i| serde_json::to_vec(i).unwrap_or_default()).collect();
    // The protobuf side's tables are built on first use, not counted.
    let warm =
        stored.first().and_then(|b| kubesim::proto::encode_raw_stored("v1", "Pod", b).ok()).map_or(0, |p| p.len());
    let mut bytes = 0;
    for _ in 0..20 {
        bytes += match side.as_str() {
            "json" => json_side(&items),
            _ => protobuf_side(&stored),
        };
    }
    println!("{side}: {bytes} bytes written ({warm} warming up)");
}
