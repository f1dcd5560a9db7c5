//! The small, realistic cluster both doors start with (the page's new
//! session, `kubesim serve` unless `--starter=none`), made through
//! ordinary requests (in the page they are the first entries of the
//! request log and of the journal): three Ready nodes (their Pod ranges
//! come from the nodeipam controller), the `kubernetes` and `kube-dns`
//! Services (the first and tenth addresses of the Service range), CoreDNS
//! as a Deployment (which the controllers, scheduler and kubelets bring
//! up), and in `default` a few running
//! workloads: a Deployment `hello` (two nginx pods) behind a Service, and
//! spec 002's `counter` pod. The namespaces default, kube-system,
//! kube-public and kube-node-lease come with the server.

use crate::network::ServiceRanges;
use crate::server::Request;
use serde_json::{json, Value};

fn post(path: &str, body: Value) -> Request {
    Request::new("POST", path)
        .with_header("Content-Type", "application/json")
        .with_header("Accept", "application/json")
        .with_body(serde_json::to_vec(&body).unwrap_or_default())
}

fn merge_patch(path: &str, body: Value) -> Request {
    Request::new("PATCH", path)
        .with_header("Content-Type", "application/merge-patch+json")
        .with_header("Accept", "application/json")
        .with_body(serde_json::to_vec(&body).unwrap_or_default())
}

/// The requests that make the starter cluster, in order.
pub fn requests(services: &ServiceRanges) -> Vec<Request> {
    let (api_ip, dns_ip) = (services.nth(1).to_string(), services.nth(10).to_string());
    let mut reqs = Vec::new();
    for (i, name) in ["control-plane", "worker-1", "worker-2"].iter().enumerate() {
        let mut labels = json!({
            "kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
        });
        if i == 0 {
            labels["node-role.kubernetes.io/control-plane"] = json!("");
        }
        let mut spec = json!({});
        if i == 0 {
            spec["taints"] = json!([{"key": "node-role.kubernetes.io/control-plane", "effect": "NoSchedule"}]);
        }
        reqs.push(post(
            "/api/v1/nodes",
            json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels}, "spec": spec}),
        ));
        reqs.push(merge_patch(
            &format!("/api/v1/nodes/{name}/status"),
            json!({"status": {
                "capacity": {"cpu": "4", "memory": "16Gi", "pods": "110"},
                "allocatable": {"cpu": "4", "memory": "15Gi", "pods": "110"},
                "addresses": [{"type": "InternalIP", "address": format!("172.18.0.{}", i + 2)},
                              {"type": "Hostname", "address": name}],
                "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady",
                                "message": "kubelet is posting ready status"}],
                "nodeInfo": {"kubeletVersion": "v1.33.0", "osImage": "Debian GNU/Linux 12 (bookworm)",
                             "kernelVersion": "6.1.0-kubesim", "containerRuntimeVersion": "containerd://2.0.0",
                             "operatingSystem": "linux", "architecture": "amd64"}}}),
        ));
    }
    // The two Services of spec 000's ServiceList example.
    reqs.push(post(
        "/api/v1/namespaces/default/services",
        json!({"apiVersion": "v1", "kind": "Service",
               "metadata": {"name": "kubernetes", "labels": {"component": "apiserver", "provider": "kubernetes"}},
               "spec": {"type": "ClusterIP", "clusterIP": api_ip,
                        "ports": [{"name": "https", "port": 443, "protocol": "TCP", "targetPort": 6443}]}}),
    ));
    // The API server keeps the `kubernetes` Service's endpoints itself (its
    // endpoint reconciler): the control plane's address.
    reqs.push(post(
        "/api/v1/namespaces/default/endpoints",
        json!({"apiVersion": "v1", "kind": "Endpoints",
               "metadata": {"name": "kubernetes", "labels": {"endpointslice.kubernetes.io/skip-mirror": "true"}},
               "subsets": [{"addresses": [{"ip": "172.18.0.2"}],
                            "ports": [{"name": "https", "port": 6443, "protocol": "TCP"}]}]}),
    ));
    reqs.push(post(
        "/apis/discovery.k8s.io/v1/namespaces/default/endpointslices",
        json!({"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
               "metadata": {"name": "kubernetes", "labels": {"kubernetes.io/service-name": "kubernetes"}},
               "addressType": "IPv4",
               "endpoints": [{"addresses": ["172.18.0.2"], "conditions": {"ready": true}}],
               "ports": [{"name": "https", "port": 6443, "protocol": "TCP"}]}),
    ));
    reqs.push(post(
        "/api/v1/namespaces/kube-system/services",
        json!({"apiVersion": "v1", "kind": "Service",
               "metadata": {"name": "kube-dns", "labels": {"k8s-app": "kube-dns", "kubernetes.io/name": "CoreDNS"}},
               "spec": {"type": "ClusterIP", "clusterIP": dns_ip, "selector": {"k8s-app": "kube-dns"},
                        "ports": [{"name": "dns", "port": 53, "protocol": "UDP", "targetPort": 53},
                                  {"name": "dns-tcp", "port": 53, "protocol": "TCP", "targetPort": 53}]}}),
    ));
    reqs.push(post(
        "/apis/apps/v1/namespaces/kube-system/deployments",
        json!({"apiVersion": "apps/v1", "kind": "Deployment",
               "metadata": {"name": "coredns", "labels": {"k8s-app": "kube-dns"}},
               "spec": {"replicas": 2, "selector": {"matchLabels": {"k8s-app": "kube-dns"}},
                        "template": {"metadata": {"labels": {"k8s-app": "kube-dns"}},
                                     "spec": {"tolerations": [{"key": "CriticalAddonsOnly", "operator": "Exists"},
                                                  {"key": "node-role.kubernetes.io/control-plane", "effect": "NoSchedule"}],
                                              "containers": [{"name": "coredns",
                                              "image": "registry.k8s.io/coredns/coredns:v1.12.0",
                                              "args": ["-conf", "/etc/coredns/Corefile"]}]}}}}),
    ));
    // A few workloads in `default`, so a first visit shows a cluster that
    // lives: a Deployment behind a Service, and spec 002's `counter` pod
    // (its logging example), whose log `kubectl logs counter` reads.
    reqs.push(post(
        "/apis/apps/v1/namespaces/default/deployments",
        json!({"apiVersion": "apps/v1", "kind": "Deployment",
               "metadata": {"name": "hello", "labels": {"app": "hello"}},
               "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "hello"}},
                        "template": {"metadata": {"labels": {"app": "hello"}},
                                     "spec": {"containers": [{"name": "nginx", "image": "nginx:1.27",
                                                              "ports": [{"containerPort": 80}]}]}}}}),
    ));
    reqs.push(post(
        "/api/v1/namespaces/default/services",
        json!({"apiVersion": "v1", "kind": "Service",
               "metadata": {"name": "hello", "labels": {"app": "hello"}},
               "spec": {"selector": {"app": "hello"},
                        "ports": [{"port": 80, "protocol": "TCP", "targetPort": 80}]}}),
    ));
    reqs.push(post(
        "/api/v1/namespaces/default/pods",
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "counter"},
               "spec": {"containers": [{"name": "count", "image": "busybox:1.28",
                        "args": ["/bin/sh", "-c", "i=0; while true; do echo \"$i: $(date)\"; i=$((i+1)); sleep 1; done"]}]}}),
    ));
    reqs
}
