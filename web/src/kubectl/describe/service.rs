//! `describe service`: a Service's addresses, each port with its ready
//! endpoints (from its EndpointSlices), its policies and events, as
//! kubectl 1.33's describer lays them out.

use super::*;

/// A port's ready endpoints from the Service's EndpointSlices, as
/// `ip:port` (the first three, then `+ N more...`), as kubectl's
/// `formatEndpointSlices` lists them.
pub(super) fn slice_endpoints(slices: &[Value], port_name: &str) -> String {
    if slices.is_empty() {
        return "<none>".into();
    }
    let (mut list, mut more, mut count) = (Vec::new(), false, 0);
    let mut visit = |addr: &str, port: Option<i64>, ready: bool| {
        // (kubectl counts the list as full before it skips an endpoint
        // that is not ready.)
        if list.len() == 3 {
            more = true;
        }
        if !ready {
            return;
        }
        if !more {
            list.push(match port {
                Some(p) if addr.contains(':') => format!("[{addr}]:{p}"),
                Some(p) => format!("{addr}:{p}"),
                None => addr.to_string(),
            });
        }
        count += 1;
    };
    for slice in slices {
        let endpoints = items(slice, "/endpoints");
        let ready = |e: &Value| e.pointer("/conditions/ready").and_then(Value::as_bool) != Some(false);
        let ports = items(slice, "/ports");
        if ports.is_empty() {
            for e in endpoints {
                visit(text(e, "/addresses/0"), None, ready(e));
            }
            continue;
        }
        for port in ports.iter().filter(|p| text(p, "/name") == port_name) {
            for e in endpoints {
                visit(text(e, "/addresses/0"), port.get("port").and_then(Value::as_i64), ready(e));
            }
        }
    }
    let joined = list.join(",");
    if more {
        format!("{joined} + {} more...", count - 3)
    } else {
        joined
    }
}

/// A Service: its addresses, each port with its ready endpoints (read
/// from its EndpointSlices), its policies, and its events.
pub(super) fn service(s: &mut Session, w: &mut TabWriter, svc: &Value, namespace: &str) {
    let name = text(svc, "/metadata/name");
    w.w(0, &format!("Name:\t{name}\n"));
    w.w(0, &format!("Namespace:\t{}\n", text(svc, "/metadata/namespace")));
    labels(w, "", "Labels", svc.pointer("/metadata/labels"));
    annotations(w, "Annotations", svc.pointer("/metadata/annotations"));
    w.w(0, &format!("Selector:\t{}\n", format_labels(svc.pointer("/spec/selector"))));
    w.w(0, &format!("Type:\t{}\n", text(svc, "/spec/type")));
    if let Some(p) = svc.pointer("/spec/ipFamilyPolicy").and_then(Value::as_str) {
        w.w(0, &format!("IP Family Policy:\t{p}\n"));
    }
    let joined = |pointer: &str, sep: &str| -> String {
        items(svc, pointer).iter().filter_map(Value::as_str).collect::<Vec<_>>().join(sep)
    };
    let or_none = |t: String| if t.is_empty() { "<none>".to_string() } else { t };
    w.w(0, &format!("IP Families:\t{}\n", or_none(joined("/spec/ipFamilies", ","))));
    w.w(0, &format!("IP:\t{}\n", text(svc, "/spec/clusterIP")));
    w.w(0, &format!("IPs:\t{}\n", or_none(joined("/spec/clusterIPs", ","))));
    let external = joined("/spec/externalIPs", ",");
    if !external.is_empty() {
        w.w(0, &format!("External IPs:\t{external}\n"));
    }
    for (pointer, title) in
        [("/spec/loadBalancerIP", "Desired LoadBalancer IP"), ("/spec/externalName", "External Name")]
    {
        if !text(svc, pointer).is_empty() {
            w.w(0, &format!("{title}:\t{}\n", text(svc, pointer)));
        }
    }
    let ingress: Vec<String> = items(svc, "/status/loadBalancer/ingress")
        .iter()
        .map(|i| match (text(i, "/ip"), text(i, "/ipMode")) {
            ("", _) => text(i, "/hostname").to_string(),
            (ip, "") => ip.to_string(),
            (ip, mode) => format!("{ip} ({mode})"),
        })
        .collect();
    if !ingress.is_empty() {
        w.w(0, &format!("LoadBalancer Ingress:\t{}\n", ingress.join(", ")));
    }
    let selector = encode_component(&format!("kubernetes.io/service-name={name}"));
    let path = format!("/apis/discovery.k8s.io/v1/namespaces/{namespace}/endpointslices?labelSelector={selector}");
    let e = send(s, "GET", &path, None, None, "application/json");
    let slices = body_json(&e.response);
    let slices = items(&slices, "/items");
    for port in items(svc, "/spec/ports") {
        let port_name = text(port, "/name");
        let shown = if port_name.is_empty() { "<unset>" } else { port_name };
        let protocol = text(port, "/protocol");
        w.w(0, &format!("Port:\t{shown}\t{}/{protocol}\n", int(port, "/port")));
        let target = match port.get("targetPort") {
            Some(Value::String(t)) => t.clone(),
            Some(t) => t.as_i64().unwrap_or(0).to_string(),
            None => "0".into(),
        };
        w.w(0, &format!("TargetPort:\t{target}/{protocol}\n"));
        if let Some(app) = port.get("appProtocol").and_then(Value::as_str) {
            w.w(0, &format!("AppProtocol:\t{app}\n"));
        }
        if int(port, "/nodePort") != 0 {
            w.w(0, &format!("NodePort:\t{shown}\t{}/{protocol}\n", int(port, "/nodePort")));
        }
        w.w(0, &format!("Endpoints:\t{}\n", slice_endpoints(slices, port_name)));
    }
    w.w(0, &format!("Session Affinity:\t{}\n", text(svc, "/spec/sessionAffinity")));
    if !text(svc, "/spec/externalTrafficPolicy").is_empty() {
        w.w(0, &format!("External Traffic Policy:\t{}\n", text(svc, "/spec/externalTrafficPolicy")));
    }
    if let Some(p) = svc.pointer("/spec/internalTrafficPolicy").and_then(Value::as_str) {
        w.w(0, &format!("Internal Traffic Policy:\t{p}\n"));
    }
    if int(svc, "/spec/healthCheckNodePort") != 0 {
        w.w(0, &format!("HealthCheck NodePort:\t{}\n", int(svc, "/spec/healthCheckNodePort")));
    }
    let ranges = joined("/spec/loadBalancerSourceRanges", ",");
    if !ranges.is_empty() {
        w.w(0, &format!("LoadBalancer Source Ranges:\t{ranges}\n"));
    }
    if let Some(t) = svc.pointer("/spec/trafficDistribution").and_then(Value::as_str) {
        w.w(0, &format!("Traffic Distribution:\t{t}\n"));
    }
    events(s, w, svc, "Service", namespace);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kubectl::run;

    /// What kubectl 1.33 printed for the same Service served by `kubesim
    /// serve` (the requests too: the Service twice, its EndpointSlices by
    /// label, its events).
    #[test]
    fn a_service_is_described_with_its_endpoints_as_kubectl_describes_it() {
        let mut s = Session::new(7);
        let from = s.log.len();
        let out = run(&mut s, "describe svc kubernetes", "");
        assert_eq!(
            out.text,
            "Name:                     kubernetes
Namespace:                default
Labels:                   component=apiserver
                          provider=kubernetes
Annotations:              <none>
Selector:                 <none>
Type:                     ClusterIP
IP Family Policy:         SingleStack
IP Families:              IPv4
IP:                       10.96.0.1
IPs:                      10.96.0.1
Port:                     https  443/TCP
TargetPort:               6443/TCP
Endpoints:                172.18.0.2:6443
Session Affinity:         None
Internal Traffic Policy:  Cluster
Events:                   <none>
"
        );
        let reqs: Vec<String> = s.log[from..].iter().map(|e| e.url()).collect();
        assert_eq!(
            reqs[reqs.len() - 2..],
            [
                "/apis/discovery.k8s.io/v1/namespaces/default/endpointslices?labelSelector=kubernetes.io%2Fservice-name%3Dkubernetes".to_string(),
                format!("/api/v1/namespaces/default/events?fieldSelector=involvedObject.name%3Dkubernetes%2CinvolvedObject.namespace%3Ddefault%2CinvolvedObject.kind%3DService%2CinvolvedObject.uid%3D{}&limit=500",
                    text(&body_json(&s.log[s.log.len() - 3].response), "/metadata/uid")),
            ]
        );
        // Ready endpoints only, three at most and then a count.
        let slice = |ready: &[bool]| {
            let endpoints: Vec<Value> = ready
                .iter()
                .enumerate()
                .map(|(i, r)| serde_json::json!({"addresses": [format!("10.0.0.{i}")], "conditions": {"ready": r}}))
                .collect();
            serde_json::json!({"ports": [{"name": "", "port": 80}], "endpoints": endpoints})
        };
        assert_eq!(slice_endpoints(&[slice(&[true, false, true])], ""), "10.0.0.0:80,10.0.0.2:80");
        assert_eq!(
            slice_endpoints(&[slice(&[true, true, true, true, true])], ""),
            "10.0.0.0:80,10.0.0.1:80,10.0.0.2:80 + 2 more..."
        );
        assert_eq!(slice_endpoints(&[slice(&[true])], "http"), "");
        assert_eq!(slice_endpoints(&[], ""), "<none>");
    }
}
