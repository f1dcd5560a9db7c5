//! Services: defaults, validation, cluster IPs and node ports drawn from
//! the seeded source (never one in use), allocated values kept across
//! updates that leave them out, the fields selectors may name, and
//! kubectl's columns.

use crate::sort::Order;
use std::collections::HashSet;

use serde_json::{json, Map, Value};

use super::super::strategy::{default, object, Allocation, SelectableField, Strategy};
use super::super::table::cells::*;
use super::super::table::{col, wide, Column, Desc, AGE, NAME};
use super::super::validation::{port_problem, protocol, str_at};
use crate::api::meta::{validate_name, NameRule};
use crate::api::{FieldError, Status};
use crate::clock::SimTime;

pub struct Service;

static FIELDS: &[SelectableField] =
    &[SelectableField::new("spec.clusterIP", ""), SelectableField::new("spec.type", "")];

static COLUMNS: &[Column] = &[
    NAME,
    col("Type", "string", Desc::Field("io.k8s.api.core.v1.ServiceSpec", "type")),
    col("Cluster-IP", "string", Desc::Field("io.k8s.api.core.v1.ServiceSpec", "clusterIP")),
    col("External-IP", "string", Desc::Field("io.k8s.api.core.v1.ServiceSpec", "externalIPs")),
    col("Port(s)", "string", Desc::Field("io.k8s.api.core.v1.ServiceSpec", "ports")),
    AGE,
    wide("Selector", "string", Desc::Field("io.k8s.api.core.v1.ServiceSpec", "selector")),
];

impl Strategy for Service {
    fn defaults(&self, o: &mut Map<String, Value>) {
        if let Some(spec) = object(o, "spec") {
            spec_defaults(spec);
        }
    }

    /// An update keeps what was allocated when the client leaves it out, as
    /// upstream's service registry does (`patchAllocatedValues`).
    fn prepare_for_update(&self, new: &mut Value, old: &Value) {
        let Some(spec) = new.get_mut("spec").and_then(Value::as_object_mut) else { return };
        for key in ["clusterIP", "clusterIPs"] {
            let missing = spec.get(key).is_none_or(|v| v.is_null() || v.as_str() == Some(""));
            if missing {
                if let Some(v) = old.pointer(&format!("/spec/{key}")) {
                    spec.insert(key.into(), v.clone());
                }
            }
        }
        let old_ports = old.pointer("/spec/ports").and_then(Value::as_array).cloned().unwrap_or_default();
        if let Some(Value::Array(ports)) = spec.get_mut("ports") {
            for p in ports.iter_mut().filter_map(Value::as_object_mut) {
                if p.get("nodePort").is_none() {
                    let same = old_ports
                        .iter()
                        .find(|o| o.get("port") == p.get("port") && o.get("protocol") == p.get("protocol"));
                    if let Some(n) = same.and_then(|o| o.get("nodePort")) {
                        p.insert("nodePort".into(), n.clone());
                    }
                }
            }
        }
        ip_fields(spec);
    }

    /// The IP family fields, and `clusterIPs` from a `clusterIP` asked for,
    /// are the registry's (upstream sets them as it allocates), not
    /// defaults: the writer of a Service does not own them.
    fn prepare_for_create(&self, o: &mut Map<String, Value>) {
        if let Some(spec) = object(o, "spec") {
            ip_fields(spec);
        }
    }

    fn validate(&self, obj: &Value) -> Vec<FieldError> {
        let mut errs = Vec::new();
        if let Some(spec) = obj.get("spec") {
            validate_spec(spec, &mut errs);
        }
        errs
    }

    /// Gives a new Service its cluster IP and node ports (picked from the
    /// seeded source, never one in use), or refuses ones already taken.
    fn allocate(&self, svc: &mut Value, allocation: &mut Allocation<'_>) -> Result<Vec<FieldError>, Status> {
        let mut ips = HashSet::new();
        let mut node_ports = HashSet::new();
        for v in (allocation.existing)() {
            if let Some(ip) = v.pointer("/spec/clusterIP").and_then(Value::as_str) {
                ips.insert(ip.to_string());
            }
            for p in v.pointer("/spec/ports").and_then(Value::as_array).into_iter().flatten() {
                if let Some(n) = p.get("nodePort").and_then(Value::as_i64) {
                    node_ports.insert(n);
                }
            }
        }
        let rng = &mut *allocation.rng;
        let Some(spec) = svc.get_mut("spec").and_then(Value::as_object_mut) else { return Ok(Vec::new()) };
        let kind = spec.get("type").and_then(Value::as_str).unwrap_or("ClusterIP").to_string();
        if kind == "ExternalName" {
            return Ok(Vec::new());
        }
        let ranges = allocation.ranges;
        let in_range = |ip: &String| ip.parse::<core::net::Ipv4Addr>().is_ok_and(|a| ranges.cluster_ips.contains(&a));
        let (lo, hi) = ranges.node_ports;
        let mut ports_left = (hi - lo + 1) - node_ports.iter().filter(|n| (lo..=hi).contains(*n)).count() as i64;
        let wanted = spec.get("clusterIP").and_then(Value::as_str).unwrap_or("").to_string();
        match wanted.as_str() {
            "None" => {
                spec.insert("clusterIPs".into(), json!(["None"]));
            }
            "" => {
                if ips.iter().filter(|ip| in_range(ip)).count() as u64 >= u64::from(ranges.usable()) {
                    return Err(Status::internal_error("failed to allocate a serviceIP: range is full"));
                }
                // Anywhere in the range but its network and broadcast addresses.
                let ip = loop {
                    let offset = 1 + (rng.next_u64() % u64::from(ranges.usable().max(1))) as u32;
                    let ip = ranges.nth(offset).to_string();
                    if !ips.contains(&ip) {
                        break ip;
                    }
                };
                spec.insert("clusterIP".into(), json!(ip));
                spec.insert("clusterIPs".into(), json!([ip]));
            }
            ip => {
                let inside = ip.parse::<core::net::Ipv4Addr>().ok().is_some_and(|a| ranges.cluster_ips.contains(&a));
                let problem = if !inside {
                    Some(format!(
                        "provided IP is not in the valid range. The range of valid IPs is {}",
                        ranges.cluster_ips
                    ))
                } else if ips.contains(ip) {
                    Some("provided IP is already allocated".to_string())
                } else {
                    None
                };
                if let Some(problem) = problem {
                    return Ok(vec![FieldError::invalid_raw(
                        "spec.clusterIPs",
                        &format!("[]string{{\"{ip}\"}}"),
                        &format!("failed to allocate IP {ip}: {problem}"),
                    )]);
                }
                spec.insert("clusterIPs".into(), json!([ip]));
            }
        }
        if kind == "NodePort" || kind == "LoadBalancer" {
            let mut errs = Vec::new();
            // One port may serve TCP and UDP on the same node port.
            let mut mine = HashSet::new();
            if let Some(Value::Array(ports)) = spec.get_mut("ports") {
                for (i, p) in ports.iter_mut().enumerate() {
                    let Some(p) = p.as_object_mut() else { continue };
                    match p.get("nodePort").and_then(Value::as_i64) {
                        Some(n) if !mine.insert(n) => {}
                        Some(n) => {
                            let problem = if !(lo..=hi).contains(&n) {
                                Some(format!(
                                    "provided port is not in the valid range. The range of valid ports is {}",
                                    ranges.node_port_range()
                                ))
                            } else if !node_ports.insert(n) {
                                Some("provided port is already allocated".to_string())
                            } else {
                                ports_left -= 1;
                                None
                            };
                            if let Some(problem) = problem {
                                errs.push(FieldError::invalid_value(
                                    &format!("spec.ports[{i}].nodePort"),
                                    &json!(n),
                                    &problem,
                                ));
                            }
                        }
                        None => {
                            if ports_left <= 0 {
                                return Err(Status::internal_error("failed to allocate a nodePort: range is full"));
                            }
                            let n = loop {
                                let n = lo + (rng.next_u64() % (hi - lo + 1) as u64) as i64;
                                if node_ports.insert(n) {
                                    break n;
                                }
                            };
                            ports_left -= 1;
                            mine.insert(n);
                            p.insert("nodePort".into(), json!(n));
                        }
                    }
                }
            }
            return Ok(errs);
        }
        Ok(Vec::new())
    }

    fn selectable_fields(&self) -> &[SelectableField] {
        FIELDS
    }

    fn columns(&self) -> &[Column] {
        COLUMNS
    }

    fn cells(&self, o: &Value, now: SimTime) -> Vec<Value> {
        service_cells(o, now)
    }
}

fn spec_defaults(spec: &mut Map<String, Value>) {
    default(spec, "type", json!("ClusterIP"));
    default(spec, "sessionAffinity", json!("None"));
    let kind = spec.get("type").and_then(Value::as_str).unwrap_or("ClusterIP").to_string();
    if let Some(Value::Array(ports)) = spec.get_mut("ports") {
        for p in ports.iter_mut().filter_map(Value::as_object_mut) {
            default(p, "protocol", json!("TCP"));
            if p.get("targetPort").is_none_or(Value::is_null) {
                if let Some(port) = p.get("port").cloned() {
                    p.insert("targetPort".into(), port);
                }
            }
        }
    }
    if kind != "ExternalName" {
        default(spec, "internalTrafficPolicy", json!("Cluster"));
    }
    if kind == "NodePort" || kind == "LoadBalancer" {
        default(spec, "externalTrafficPolicy", json!("Cluster"));
    }
    if kind == "LoadBalancer" {
        default(spec, "allocateLoadBalancerNodePorts", json!(true));
    }
}

/// One IPv4 family, single stack (the simulated cluster has no other),
/// and `clusterIPs` from a `clusterIP` asked for.
fn ip_fields(spec: &mut Map<String, Value>) {
    if spec.get("type").and_then(Value::as_str) != Some("ExternalName") {
        default(spec, "ipFamilyPolicy", json!("SingleStack"));
        default(spec, "ipFamilies", json!(["IPv4"]));
    }
    if let Some(ip) = spec.get("clusterIP").filter(|v| v.as_str().is_some_and(|s| !s.is_empty())).cloned() {
        default(spec, "clusterIPs", json!([ip]));
    }
}

fn validate_spec(spec: &Value, errs: &mut Vec<FieldError>) {
    const TYPES: &[&str] = &["ClusterIP", "ExternalName", "LoadBalancer", "NodePort"];
    let kind = str_at(spec, "type").unwrap_or("ClusterIP");
    if !TYPES.contains(&kind) {
        errs.push(FieldError::not_supported("spec.type", kind, TYPES));
    }
    let ports = spec.get("ports").and_then(Value::as_array);
    let headless = str_at(spec, "clusterIP") == Some("None");
    if kind != "ExternalName" && !headless && ports.is_none_or(Vec::is_empty) {
        errs.push(FieldError::required("spec.ports", ""));
    }
    if kind == "ExternalName" && str_at(spec, "externalName").is_none_or(str::is_empty) {
        errs.push(FieldError::required("spec.externalName", ""));
    }
    let ports = ports.map(Vec::as_slice).unwrap_or_default();
    let mut names: Vec<&str> = Vec::new();
    for (i, p) in ports.iter().enumerate() {
        let at = format!("spec.ports[{i}]");
        let name = str_at(p, "name").unwrap_or("");
        if ports.len() > 1 && name.is_empty() {
            errs.push(FieldError::required(&format!("{at}.name"), ""));
        } else if !name.is_empty() {
            for msg in validate_name(NameRule::Dns1123Label, name) {
                errs.push(FieldError::invalid(&format!("{at}.name"), name, &msg));
            }
            if names.contains(&name) {
                errs.push(FieldError::duplicate(&format!("{at}.name"), name));
            }
            names.push(name);
        }
        port_problem(p.get("port").unwrap_or(&Value::Null), &format!("{at}.port"), errs);
        protocol(p, &format!("{at}.protocol"), errs);
    }
}

fn service_cells(o: &Value, now: SimTime) -> Vec<Value> {
    let ty = s(o, "/spec/type");
    let external: Vec<&str> = arr(o, "/spec/externalIPs").iter().filter_map(Value::as_str).collect();
    let external = match ty {
        "ExternalName" => s(o, "/spec/externalName").to_string(),
        "LoadBalancer" => {
            // The ingress addresses as a sorted set, then the external IPs.
            let mut ips: Vec<&str> = arr(o, "/status/loadBalancer/ingress")
                .iter()
                .map(|i| if s(i, "/ip").is_empty() { s(i, "/hostname") } else { s(i, "/ip") })
                .filter(|x| !x.is_empty())
                .collect();
            ips.order();
            ips.dedup();
            ips.extend(external.iter().copied());
            if ips.is_empty() {
                "<pending>".into()
            } else {
                ips.join(",")
            }
        }
        "ClusterIP" | "NodePort" if external.is_empty() => "<none>".into(),
        "ClusterIP" | "NodePort" => external.join(","),
        _ => "<unknown>".into(),
    };
    let ports: Vec<String> = arr(o, "/spec/ports")
        .iter()
        .map(|p| {
            let proto = match s(p, "/protocol") {
                "" => "TCP",
                x => x,
            };
            match i(p, "/nodePort") {
                0 => format!("{}/{proto}", i(p, "/port")),
                np => format!("{}:{np}/{proto}", i(p, "/port")),
            }
        })
        .collect();
    vec![
        name(o),
        ty.into(),
        or_none(arr(o, "/spec/clusterIPs").first().and_then(Value::as_str).unwrap_or("")).into(),
        external.into(),
        if ports.is_empty() { "<none>".to_string() } else { ports.join(",") }.into(),
        age(o, now),
        labels(o.pointer("/spec/selector")).into(),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn services_get_their_defaults() {
        let mut svc = json!({"spec": {"ports": [{"port": 80}]}});
        Service.defaults(svc.as_object_mut().unwrap());
        assert_eq!(svc["spec"]["type"], "ClusterIP");
        assert_eq!(svc["spec"]["ports"][0], json!({"port": 80, "protocol": "TCP", "targetPort": 80}));
        assert_eq!(svc["spec"]["internalTrafficPolicy"], "Cluster");
        // The IP families are the registry's, set as the Service is created.
        assert_eq!(svc["spec"].get("ipFamilies"), None);
        Service.prepare_for_create(svc.as_object_mut().unwrap());
        assert_eq!(svc["spec"]["ipFamilies"], json!(["IPv4"]));
        assert_eq!(svc["spec"]["ipFamilyPolicy"], "SingleStack");
    }

    #[test]
    fn services_show_ports_and_external_addresses() {
        let svc = json!({"metadata": {"name": "s"}, "spec": {"type": "NodePort", "clusterIP": "10.96.0.10", "clusterIPs": ["10.96.0.10"],
            "ports": [{"port": 80, "nodePort": 30080, "protocol": "TCP"}, {"port": 53, "protocol": "UDP"}],
            "selector": {"b": "2", "a": "1"}}});
        let c = service_cells(&svc, SimTime(0));
        assert_eq!(c[1..5], [json!("NodePort"), json!("10.96.0.10"), json!("<none>"), json!("80:30080/TCP,53/UDP")]);
        assert_eq!(c[6], json!("a=1,b=2"));
        let lb = json!({"metadata": {"name": "s"}, "spec": {"type": "LoadBalancer"}});
        assert_eq!(service_cells(&lb, SimTime(0))[3], json!("<pending>"));
    }

    #[test]
    fn allocation_never_hands_out_an_address_in_use() {
        let taken = json!({"spec": {"clusterIP": "10.96.0.1", "ports": [{"port": 80, "nodePort": 30000}]}});
        let existing = move || vec![taken.clone()];
        let mut rng = crate::clock::SeededRng::new(1);
        let ranges = crate::network::ServiceRanges::default();
        let mut a = Allocation { rng: &mut rng, existing: &existing, ranges: &ranges };
        let mut again = json!({"spec": {"clusterIP": "10.96.0.1", "ports": [{"port": 80}]}});
        let errs = Service.allocate(&mut again, &mut a).unwrap();
        assert_eq!(errs.len(), 1);
        assert!(errs[0].to_string().contains("provided IP is already allocated"), "{}", errs[0]);
        let mut fresh = json!({"spec": {"type": "NodePort", "ports": [{"port": 80}]}});
        assert!(Service.allocate(&mut fresh, &mut a).unwrap().is_empty());
        assert_ne!(fresh["spec"]["clusterIP"], "10.96.0.1");
        assert_ne!(fresh["spec"]["ports"][0]["nodePort"], 30000);
    }
}
