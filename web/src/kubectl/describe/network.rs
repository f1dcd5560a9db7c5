//! `describe endpoints` and `describe ingress`, as kubectl 1.33's
//! describers lay them out.

use super::service::slice_endpoints;
use super::*;

/// Endpoints: each subset's ready and not-ready addresses and its ports.
pub(super) fn endpoints(s: &mut Session, w: &mut TabWriter, ep: &Value, namespace: &str) {
    w.w(0, &format!("Name:\t{}\n", text(ep, "/metadata/name")));
    w.w(0, &format!("Namespace:\t{}\n", text(ep, "/metadata/namespace")));
    labels(w, "", "Labels", ep.pointer("/metadata/labels"));
    annotations(w, "Annotations", ep.pointer("/metadata/annotations"));
    w.w(0, "Subsets:\n");
    let ips = |subset: &Value, pointer: &str| {
        let list: Vec<&str> = items(subset, pointer).iter().map(|a| text(a, "/ip")).collect();
        match list.join(",") {
            joined if joined.is_empty() => "<none>".to_string(),
            joined => joined,
        }
    };
    for subset in items(ep, "/subsets") {
        w.w(1, &format!("Addresses:\t{}\n", ips(subset, "/addresses")));
        w.w(1, &format!("NotReadyAddresses:\t{}\n", ips(subset, "/notReadyAddresses")));
        let ports = items(subset, "/ports");
        if !ports.is_empty() {
            w.w(1, "Ports:\n");
            w.w(2, "Name\tPort\tProtocol\n");
            w.w(2, "----\t----\t--------\n");
            for port in ports {
                let name = match text(port, "/name") {
                    "" => "<unset>",
                    name => name,
                };
                w.w(2, &format!("{name}\t{}\t{}\n", int(port, "/port"), text(port, "/protocol")));
            }
        }
        w.w(0, "\n");
    }
    events(s, w, ep, "Endpoints", namespace);
}

/// An Ingress: its address, class, default backend, TLS, and each rule's
/// paths with their backends (a Service's ready endpoints for its port,
/// read from its EndpointSlices and the Service itself), then its
/// annotations and events.
pub(super) fn ingress(s: &mut Session, w: &mut TabWriter, ing: &Value, namespace: &str) {
    w.w(0, &format!("Name:\t{}\n", text(ing, "/metadata/name")));
    labels(w, "", "Labels", ing.pointer("/metadata/labels"));
    w.w(0, &format!("Namespace:\t{}\n", text(ing, "/metadata/namespace")));
    let mut addresses: Vec<&str> = items(ing, "/status/loadBalancer/ingress")
        .iter()
        .map(|i| match text(i, "/ip") {
            "" => text(i, "/hostname"),
            ip => ip,
        })
        .filter(|a| !a.is_empty())
        .collect();
    addresses.order();
    addresses.dedup();
    w.w(0, &format!("Address:\t{}\n", addresses.join(",")));
    let class = ing.pointer("/spec/ingressClassName").and_then(Value::as_str).unwrap_or("<none>");
    w.w(0, &format!("Ingress Class:\t{class}\n"));
    let default = match ing.pointer("/spec/defaultBackend") {
        Some(b) if b.is_object() => backend(s, namespace, b),
        _ => "<default>".to_string(),
    };
    w.w(0, &format!("Default backend:\t{default}\n"));
    let tls = items(ing, "/spec/tls");
    if !tls.is_empty() {
        w.w(0, "TLS:\n");
        for t in tls {
            let hosts: Vec<&str> = items(t, "/hosts").iter().filter_map(Value::as_str).collect();
            match text(t, "/secretName") {
                "" => w.w(1, &format!("SNI routes {}\n", hosts.join(","))),
                secret => w.w(1, &format!("{secret} terminates {}\n", hosts.join(","))),
            }
        }
    }
    w.w(0, "Rules:\n  Host\tPath\tBackends\n");
    w.w(1, "----\t----\t--------\n");
    let mut count = 0;
    for rule in items(ing, "/spec/rules") {
        let Some(http) = rule.get("http").filter(|h| h.is_object()) else { continue };
        count += 1;
        let host = match text(rule, "/host") {
            "" => "*",
            host => host,
        };
        w.w(1, &format!("{host}\t\n"));
        for path in items(http, "/paths") {
            let described = path.get("backend").map(|b| backend(s, namespace, b)).unwrap_or_default();
            w.w(2, &format!("\t{} \t{described}\n", text(path, "/path")));
        }
    }
    if count == 0 {
        w.w(1, &format!("*\t*\t{default}\n"));
    }
    annotations(w, "Annotations", ing.pointer("/metadata/annotations"));
    events(s, w, ing, "Ingress", namespace);
}

/// A backend as kubectl's `describeBackendV1` prints it: a Service's
/// `name:port` and its ready endpoints for that port (`<error: …>` when
/// it cannot be read), or a resource's group, kind and name.
fn backend(s: &mut Session, namespace: &str, b: &Value) -> String {
    if let Some(svc) = b.get("service").filter(|v| v.is_object()) {
        let name = text(svc, "/name");
        let number = int(svc, "/port/number");
        let port_name = text(svc, "/port/name");
        let shown = if number != 0 { number.to_string() } else { port_name.to_string() };
        let said = format!("{name}:{shown}");
        let selector = encode_component(&format!("kubernetes.io/service-name={name}"));
        let path = format!("/apis/discovery.k8s.io/v1/namespaces/{namespace}/endpointslices?labelSelector={selector}");
        let e = send(s, "GET", &path, None, None, "application/json");
        if e.response.status != 200 {
            return format!("{said} (<error: {}>)", text(&body_json(&e.response), "/message"));
        }
        let slices = body_json(&e.response);
        let e =
            send(s, "GET", &format!("/api/v1/namespaces/{namespace}/services/{name}"), None, None, "application/json");
        if e.response.status != 200 {
            return format!("{said} (<error: {}>)", text(&body_json(&e.response), "/message"));
        }
        // The Service's port the backend names (the last that matches).
        let service = body_json(&e.response);
        let mut service_port = "";
        for p in items(&service, "/spec/ports") {
            if (number != 0 && number == int(p, "/port")) || (!port_name.is_empty() && port_name == text(p, "/name")) {
                service_port = text(p, "/name");
            }
        }
        return format!("{said} ({})", slice_endpoints(items(&slices, "/items"), service_port));
    }
    if let Some(r) = b.get("resource").filter(|v| v.is_object()) {
        let group = r.get("apiGroup").and_then(Value::as_str).unwrap_or("<none>");
        return format!("APIGroup: {group}, Kind: {}, Name: {}", text(r, "/kind"), text(r, "/name"));
    }
    String::new()
}

/// An EndpointSlice: its address type, ports, and each endpoint with its
/// readiness, hostname, target, node and zone.
pub(super) fn endpoint_slice(s: &mut Session, w: &mut TabWriter, eps: &Value, namespace: &str) {
    w.w(0, &format!("Name:\t{}\n", text(eps, "/metadata/name")));
    w.w(0, &format!("Namespace:\t{}\n", text(eps, "/metadata/namespace")));
    labels(w, "", "Labels", eps.pointer("/metadata/labels"));
    annotations(w, "Annotations", eps.pointer("/metadata/annotations"));
    w.w(0, &format!("AddressType:\t{}\n", text(eps, "/addressType")));
    let or_unset = |v: Option<&Value>| match v {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Bool(b)) => b.to_string(),
        Some(Value::Number(n)) => n.to_string(),
        _ => "<unset>".to_string(),
    };
    let ports = items(eps, "/ports");
    if ports.is_empty() {
        w.w(0, "Ports: <unset>\n");
    } else {
        w.w(0, "Ports:\n");
        w.w(1, "Name\tPort\tProtocol\n");
        w.w(1, "----\t----\t--------\n");
        for port in ports {
            let name = port.get("name").filter(|n| n.as_str().is_some_and(|n| !n.is_empty()));
            w.w(1, &format!("{}\t{}\t{}\n", or_unset(name), or_unset(port.get("port")), text(port, "/protocol")));
        }
    }
    let endpoints = items(eps, "/endpoints");
    if endpoints.is_empty() {
        w.w(0, "Endpoints: <none>\n");
    } else {
        w.w(0, "Endpoints:\n");
        for e in endpoints {
            let addresses: Vec<&str> = items(e, "/addresses").iter().filter_map(Value::as_str).collect();
            let addresses = if addresses.is_empty() { "<none>".to_string() } else { addresses.join(", ") };
            w.w(1, &format!("- Addresses:\t{addresses}\n"));
            w.w(2, "Conditions:\n");
            w.w(3, &format!("Ready:\t{}\n", or_unset(e.pointer("/conditions/ready"))));
            w.w(2, &format!("Hostname:\t{}\n", or_unset(e.get("hostname"))));
            if let Some(target) = e.get("targetRef").filter(|t| t.is_object()) {
                w.w(2, &format!("TargetRef:\t{}/{}\n", text(target, "/kind"), text(target, "/name")));
            }
            w.w(2, &format!("NodeName:\t{}\n", or_unset(e.get("nodeName"))));
            w.w(2, &format!("Zone:\t{}\n", or_unset(e.get("zone"))));
        }
    }
    events(s, w, eps, "EndpointSlice", namespace);
}

/// An IngressClass: its controller and parameters.
pub(super) fn ingress_class(s: &mut Session, w: &mut TabWriter, ic: &Value, _: &str) {
    w.w(0, &format!("Name:\t{}\n", text(ic, "/metadata/name")));
    labels(w, "", "Labels", ic.pointer("/metadata/labels"));
    annotations(w, "Annotations", ic.pointer("/metadata/annotations"));
    w.w(0, &format!("Controller:\t{}\n", text(ic, "/spec/controller")));
    if let Some(p) = ic.pointer("/spec/parameters").filter(|p| p.is_object()) {
        w.w(0, "Parameters:\n");
        if let Some(group) = p.get("apiGroup").and_then(Value::as_str) {
            w.w(1, &format!("APIGroup:\t{group}\n"));
        }
        w.w(1, &format!("Kind:\t{}\n", text(p, "/kind")));
        w.w(1, &format!("Name:\t{}\n", text(p, "/name")));
    }
    events(s, w, ic, "IngressClass", "");
}
