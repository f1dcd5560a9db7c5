//! The cluster's address ranges (spec 002, "Cluster networking"): nodes
//! get Pod ranges from the nodeipam controller, pods addresses from their
//! node's range, Services cluster IPs and node ports from the API
//! server's ranges, each configurable as the components' flags are.

mod common;
use common::*;
use kubesim::controllers::{Config, Controllers, ALL};
use kubesim::network::{parse_cidr, parse_port_range, PodRanges, ServiceRanges};
use kubesim::server::{Server, ServerConfig};
use serde_json::{json, Value};

fn cluster(services: ServiceRanges, pods: PodRanges) -> Cluster {
    let mut s = Server::new(ServerConfig { services, ..ServerConfig::default() });
    let mut c = Controllers::configured(ALL, &Config { pod_ranges: pods }).unwrap();
    c.settle(&mut s);
    Cluster { s, c }
}

fn node(k: &mut Cluster, name: &str) -> Value {
    let r = k.call("POST", "/api/v1/nodes", Some(json!({"metadata": {"name": name}})));
    assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
    k.get(&format!("/api/v1/nodes/{name}")).json_body()
}

fn service(k: &mut Cluster, name: &str, spec: Value) -> kubesim::server::Response {
    k.call("POST", "/api/v1/namespaces/default/services", Some(json!({"metadata": {"name": name}, "spec": spec})))
}

#[test]
fn nodes_get_pod_ranges_in_turn_from_the_cluster_range() {
    let pods = PodRanges { cluster_cidr: parse_cidr("--cluster-cidr", "10.200.0.0/22", 8, 28).unwrap(), node_mask: 24 };
    let mut k = cluster(ServiceRanges::default(), pods);
    let a = node(&mut k, "a");
    assert_eq!(a["spec"]["podCIDR"], "10.200.0.0/24");
    assert_eq!(a["spec"]["podCIDRs"], json!(["10.200.0.0/24"]));
    let managers: Vec<&str> =
        a["metadata"]["managedFields"].as_array().unwrap().iter().filter_map(|m| m["manager"].as_str()).collect();
    assert!(managers.contains(&"kube-controller-manager"), "{managers:?}");
    assert_eq!(node(&mut k, "b")["spec"]["podCIDR"], "10.200.1.0/24");
    // A node that brings its own range keeps it, and it is taken.
    let r =
        k.call("POST", "/api/v1/nodes", Some(json!({"metadata": {"name": "c"}, "spec": {"podCIDR": "10.200.3.0/24"}})));
    assert_eq!(r.status, 201);
    // The range of a deleted node is not handed out at once (round robin).
    assert_eq!(k.call("DELETE", "/api/v1/nodes/a", None).status, 200);
    assert_eq!(node(&mut k, "d")["spec"]["podCIDR"], "10.200.2.0/24");
    assert_eq!(node(&mut k, "e")["spec"]["podCIDR"], "10.200.0.0/24");
    // Four ranges, four nodes: the next is told there is none.
    let f = node(&mut k, "f");
    assert!(f["spec"].get("podCIDR").is_none());
    let events = k.events("involvedObject.name=f");
    let e = &events[0];
    assert_eq!(
        (e["reason"].as_str(), e["message"].as_str()),
        (Some("CIDRNotAvailable"), Some("Node f status is now: CIDRNotAvailable"))
    );
    assert_eq!(e["source"]["component"], "cidrAllocator");
}

#[test]
fn services_draw_from_the_configured_range_and_refuse_addresses_and_ports_outside_it() {
    let services = ServiceRanges {
        cluster_ips: parse_cidr("--service-cluster-ip-range", "10.10.0.0/28", 12, 28).unwrap(),
        node_ports: parse_port_range("20000-20002").unwrap(),
    };
    let mut k = cluster(services, PodRanges::default());
    for i in 0..5 {
        let r = service(&mut k, &format!("s{i}"), json!({"ports": [{"port": 80}]}));
        let ip = r.json_body()["spec"]["clusterIP"].as_str().unwrap().to_string();
        assert!(ip.starts_with("10.10.0.") && ip != "10.10.0.0" && ip != "10.10.0.15", "{ip}");
    }
    let r = service(&mut k, "outside", json!({"clusterIP": "10.96.0.20", "ports": [{"port": 80}]}));
    assert_eq!(r.status, 422);
    assert_eq!(
        r.json_body()["message"],
        "Service \"outside\" is invalid: spec.clusterIPs: Invalid value: []string{\"10.96.0.20\"}: failed to allocate IP 10.96.0.20: provided IP is not in the valid range. The range of valid IPs is 10.10.0.0/28"
    );
    let r = service(&mut k, "np", json!({"type": "NodePort", "ports": [{"port": 80, "nodePort": 30080}]}));
    assert_eq!(r.status, 422);
    assert_eq!(
        r.json_body()["message"],
        "Service \"np\" is invalid: spec.ports[0].nodePort: Invalid value: 30080: provided port is not in the valid range. The range of valid ports is 20000-20002"
    );
    // One port number may serve TCP and UDP; a second Service may not take it.
    let dns = json!({"type": "NodePort", "ports": [{"name": "u", "port": 53, "protocol": "UDP", "nodePort": 20001},
        {"name": "t", "port": 53, "protocol": "TCP", "nodePort": 20001}]});
    assert_eq!(service(&mut k, "dns", dns).status, 201);
    let r = service(&mut k, "again", json!({"type": "NodePort", "ports": [{"port": 80, "nodePort": 20001}]}));
    assert_eq!(r.status, 422);
    assert!(r.json_body()["message"]
        .as_str()
        .unwrap()
        .ends_with("Invalid value: 20001: provided port is already allocated"));
    // The two left are drawn; then the range is full.
    let r = service(
        &mut k,
        "two",
        json!({"type": "NodePort", "ports": [{"name": "a", "port": 1}, {"name": "b", "port": 2}]}),
    );
    assert_eq!(r.status, 201);
    let r = service(&mut k, "full", json!({"type": "NodePort", "ports": [{"port": 80}]}));
    assert_eq!(
        (r.status, r.json_body()["message"].as_str()),
        (500, Some("Internal error occurred: failed to allocate a nodePort: range is full"))
    );
    // Fourteen addresses in a /28: seven taken, seven more, then none.
    for i in 0..7 {
        assert_eq!(service(&mut k, &format!("more{i}"), json!({"ports": [{"port": 80}]})).status, 201);
    }
    let r = service(&mut k, "none-left", json!({"ports": [{"port": 80}]}));
    assert_eq!(
        (r.status, r.json_body()["message"].as_str()),
        (500, Some("Internal error occurred: failed to allocate a serviceIP: range is full"))
    );
}

#[test]
fn the_starter_cluster_takes_its_service_addresses_from_the_range() {
    let services =
        ServiceRanges { cluster_ips: parse_cidr("--x", "172.20.0.0/16", 12, 28).unwrap(), ..ServiceRanges::default() };
    let mut k = cluster(services.clone(), PodRanges::default());
    for req in kubesim::starter::requests(&services, k.s.now()) {
        k.s.handle(req);
        k.c.settle(&mut k.s);
    }
    assert_eq!(k.get("/api/v1/namespaces/default/services/kubernetes").json_body()["spec"]["clusterIP"], "172.20.0.1");
    assert_eq!(
        k.get("/api/v1/namespaces/kube-system/services/kube-dns").json_body()["spec"]["clusterIP"],
        "172.20.0.10"
    );
    let nodes = k.get("/api/v1/nodes").json_body();
    let ranges: Vec<&str> =
        nodes["items"].as_array().unwrap().iter().map(|n| n["spec"]["podCIDR"].as_str().unwrap()).collect();
    assert_eq!(ranges, ["10.244.0.0/24", "10.244.1.0/24", "10.244.2.0/24"]);
    let pods = k.get("/api/v1/namespaces/kube-system/pods").json_body();
    for p in pods["items"].as_array().unwrap() {
        assert!(p["status"]["podIP"].as_str().unwrap().starts_with("10.244."), "{p}");
    }
}
