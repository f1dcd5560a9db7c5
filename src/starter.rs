//! The small, realistic cluster both doors start with (the page's new
//! session, `kubesim serve` unless `--starter=none`), made through
//! ordinary requests (in the page they are the first entries of the
//! request log and of the journal): three Ready nodes (their Pod ranges
//! come from the nodeipam controller), the `kubernetes` and `kube-dns`
//! Services (the first and tenth addresses of the Service range), CoreDNS
//! as a Deployment (which the controllers, scheduler and kubelets bring
//! up), kind's default StorageClass `standard` (its claims provisioned
//! by `local-path-provisioner` on the node their first pod goes to), and
//! in `default` a few running
//! workloads: a Deployment `hello` (two nginx pods) behind a Service, and
//! spec 002's `counter` pod. The namespaces default, kube-system,
//! kube-public and kube-node-lease come with the server.
//!
//! The requests are data, `starter.json` (parsed when a cluster starts;
//! as code they were ~20 KB of the module every page and package loads
//! first): one `[method, path, body]` a line, POST bodies created, PATCH
//! bodies merge patches. A Service's `spec.clusterIP` is written there as
//! a number n: the nth address of the Service range the cluster was
//! started with; a node condition's `lastHeartbeatTime` and
//! `lastTransitionTime` as a number: the time the cluster starts (a
//! kubelet sets both when it registers its node).

use crate::clock::SimTime;
use crate::network::ServiceRanges;
use crate::server::Request;
use serde_json::Value;

static REQUESTS: &str = include_str!("starter.json");

/// The requests that make the starter cluster, in order, as sent at `now`.
pub fn requests(services: &ServiceRanges, now: SimTime) -> Vec<Request> {
    let Ok(Value::Array(entries)) = serde_json::from_str::<Value>(REQUESTS) else { return Vec::new() };
    let now = now.rfc3339();
    entries.into_iter().filter_map(|entry| request(entry, services, &now)).collect()
}

fn request(entry: Value, services: &ServiceRanges, now: &str) -> Option<Request> {
    let Value::Array(parts) = entry else { return None };
    let [Value::String(method), Value::String(path), mut body] = <[Value; 3]>::try_from(parts).ok()? else {
        return None;
    };
    if let Some(ip) = body.pointer_mut("/spec/clusterIP") {
        if let Some(n) = ip.as_u64() {
            *ip = Value::String(services.nth(u32::try_from(n).ok()?).to_string());
        }
    }
    if let Some(Value::Array(conditions)) = body.pointer_mut("/status/conditions") {
        for c in conditions.iter_mut() {
            for key in ["lastHeartbeatTime", "lastTransitionTime"] {
                if let Some(t) = c.get_mut(key).filter(|t| t.is_number()) {
                    *t = Value::String(now.to_string());
                }
            }
        }
    }
    let content_type = if method == "PATCH" { "application/merge-patch+json" } else { "application/json" };
    Some(
        Request::new(&method, &path)
            .with_header("Content-Type", content_type)
            .with_header("Accept", "application/json")
            .with_body(crate::api::to_json(&body)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::parse_cidr;

    #[test]
    fn every_request_is_read_and_services_take_addresses_from_the_cluster_range() {
        let services =
            ServiceRanges { cluster_ips: parse_cidr("range", "10.10.0.0/24", 12, 28).unwrap(), ..Default::default() };
        let reqs = requests(&services, SimTime(1_700_000_000_000));
        assert_eq!(reqs.len(), 15);
        let patches = reqs.iter().filter(|r| r.method == "PATCH").count();
        assert_eq!(patches, 3, "one status patch a node");
        let ips: Vec<(String, Value)> = reqs
            .iter()
            .filter(|r| r.path.ends_with("/services"))
            .map(|r| {
                let body: Value = serde_json::from_slice(&r.body).unwrap();
                (body["metadata"]["name"].as_str().unwrap().to_string(), body["spec"]["clusterIP"].clone())
            })
            .collect();
        assert_eq!(
            ips,
            [
                ("kubernetes".to_string(), Value::from("10.10.0.1")),
                ("kube-dns".to_string(), Value::from("10.10.0.10")),
                ("hello".to_string(), Value::Null),
            ]
        );
        let patch = reqs.iter().find(|r| r.method == "PATCH").unwrap();
        assert_eq!(patch.headers[0], ("Content-Type".to_string(), "application/merge-patch+json".to_string()));
        // Each node's conditions as a kubelet reports them when it
        // registers, dated when the cluster starts.
        let status: Value = serde_json::from_slice(&patch.body).unwrap();
        let conditions = status["status"]["conditions"].as_array().unwrap();
        let types: Vec<&str> = conditions.iter().map(|c| c["type"].as_str().unwrap()).collect();
        assert_eq!(types, ["MemoryPressure", "DiskPressure", "PIDPressure", "Ready"]);
        for c in conditions {
            assert_eq!(c["lastHeartbeatTime"], "2023-11-14T22:13:20Z", "{c}");
            assert_eq!(c["lastTransitionTime"], "2023-11-14T22:13:20Z", "{c}");
        }
    }
}
