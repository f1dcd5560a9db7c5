//! `describe node`: a node's roles, taints, lease, conditions, addresses,
//! capacity, system info, Pod ranges, the pods on it that have not ended
//! (each one's requests and limits against what the node can allocate),
//! their totals, and its events, as kubectl 1.33's describer lays them out
//! and from the requests it sends (the pods by field selector, the events
//! twice — by the node's uid and by its name, which kubelets put there —,
//! then the node's Lease).

use super::*;
use kubesim::api::quantity::Quantity;
use kubesim::quota::{pod_resources, Usage};

/// Go's zero time as `RFC1123Z` prints it (a condition without a time).
const ZERO_TIME: &str = "Mon, 01 Jan 0001 00:00:00 +0000";

/// The node's roles from its labels (`node-role.kubernetes.io/ROLE`, and
/// `kubernetes.io/role`), each once, sorted; `<none>` without any.
fn roles(node: &Value) -> String {
    let mut roles: Vec<&str> = Vec::new();
    for (k, v) in node.pointer("/metadata/labels").and_then(Value::as_object).into_iter().flatten() {
        let role = match k.strip_prefix("node-role.kubernetes.io/") {
            Some(role) => role,
            None if k == "kubernetes.io/role" => v.as_str().unwrap_or(""),
            None => "",
        };
        if !role.is_empty() && !roles.contains(&role) {
            roles.push(role);
        }
    }
    roles.order();
    if roles.is_empty() {
        "<none>".into()
    } else {
        roles.join(",")
    }
}

/// A taint as upstream's `Taint.ToString` writes it.
fn taint_text(t: &Value) -> String {
    let (key, value, effect) = (text(t, "/key"), text(t, "/value"), text(t, "/effect"));
    match (value.is_empty(), effect.is_empty()) {
        (true, true) => key.to_string(),
        (false, true) => format!("{key}={value}:"),
        (true, false) => format!("{key}:{effect}"),
        (false, false) => format!("{key}={value}:{effect}"),
    }
}

/// `Taints:` one a line, by effect then key, as kubectl prints them.
fn taints(w: &mut TabWriter, list: &[Value]) {
    w.w(0, "Taints:\t");
    if list.is_empty() {
        w.w(0, "<none>\n");
        return;
    }
    let mut list: Vec<&Value> = list.iter().collect();
    list.order_by_key(|t| format!("{},{}", text(t, "/effect"), text(t, "/key")));
    for (i, t) in list.iter().enumerate() {
        if i > 0 {
            w.w(0, "\t");
        }
        w.w(0, &format!("{}\n", taint_text(t)));
    }
}

/// A resource list, by name.
fn resource_list(w: &mut TabWriter, list: &Value) {
    let mut names: Vec<(&String, &Value)> = list.as_object().into_iter().flatten().collect();
    names.order_by_key(|(k, _)| k.as_str());
    for (k, v) in names {
        w.w(0, &format!("  {k}:\t{}\n", v.as_str().unwrap_or("")));
    }
}

fn describe_lease(s: &mut Session, w: &mut TabWriter, name: &str) {
    let e = send(
        s,
        "GET",
        &format!("/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/{name}"),
        None,
        None,
        "application/json",
    );
    let lease = body_json(&e.response);
    if e.response.status != 200 {
        let message = lease.get("message").and_then(Value::as_str).unwrap_or("").to_string();
        w.w(0, &format!("Lease:\tFailed to get lease: {message}\n"));
        return;
    }
    let at = |pointer: &str| match when(&lease, pointer) {
        Some(t) => SimTime(t).rfc1123z(),
        None => "<unset>".into(),
    };
    w.w(0, "Lease:\n");
    let holder = lease.pointer("/spec/holderIdentity").and_then(Value::as_str).unwrap_or("<unset>");
    w.w(1, &format!("HolderIdentity:\t{holder}\n"));
    w.w(1, &format!("AcquireTime:\t{}\n", at("/spec/acquireTime")));
    w.w(1, &format!("RenewTime:\t{}\n", at("/spec/renewTime")));
}

/// `n` thousandths as a percentage of `of`, truncated as Go's `int64` of
/// a float; 0 when there is nothing to take a share of.
fn percent(n: i128, of: i128) -> i64 {
    if of == 0 {
        return 0;
    }
    (n as f64 / of as f64 * 100.0) as i64
}

fn amount(u: &Usage, name: &str) -> Quantity {
    u.get(name).copied().unwrap_or(Quantity::ZERO)
}

/// What a resource of the node can be allocated (its allocatable, else
/// its capacity), in thousandths.
fn allocatable(node: &Value, name: &str) -> i128 {
    let list = match node.pointer("/status/allocatable").and_then(Value::as_object) {
        Some(m) if !m.is_empty() => &node["status"]["allocatable"],
        _ => &node["status"]["capacity"],
    };
    list.get(name).and_then(Value::as_str).and_then(Quantity::parse).map_or(0, |q| q.milli)
}

/// The pods table and the totals (upstream's `describeNodeResource`).
fn node_resources(s: &Session, w: &mut TabWriter, node: &Value, pods: &[Value]) {
    w.w(0, &format!("Non-terminated Pods:\t({} in total)\n", pods.len()));
    w.w(1, "Namespace\tName\t\tCPU Requests\tCPU Limits\tMemory Requests\tMemory Limits\tAge\n");
    w.w(1, "---------\t----\t\t------------\t----------\t---------------\t-------------\t---\n");
    let (cpu, memory) = (allocatable(node, "cpu"), allocatable(node, "memory"));
    let now = s.server.now().0;
    let (mut requests, mut limits) = (Usage::new(), Usage::new());
    for pod in pods {
        let (req, lim) = (pod_resources(pod, "requests"), pod_resources(pod, "limits"));
        let cell = |u: &Usage, name: &str, of: i128| {
            let q = amount(u, name);
            format!("{q} ({}%)", percent(q.milli, of))
        };
        let age = when(pod, "/metadata/creationTimestamp")
            .map(|t| crate::format::age(now, t))
            .unwrap_or_else(|| "<unknown>".into());
        w.w(
            1,
            &format!(
                "{}\t{}\t\t{}\t{}\t{}\t{}\t{age}\n",
                text(pod, "/metadata/namespace"),
                text(pod, "/metadata/name"),
                cell(&req, "cpu", cpu),
                cell(&lim, "cpu", cpu),
                cell(&req, "memory", memory),
                cell(&lim, "memory", memory),
            ),
        );
        for (total, of) in [(&mut requests, req), (&mut limits, lim)] {
            for (k, q) in of {
                total.entry(k).or_insert(Quantity::ZERO).add(q);
            }
        }
    }
    w.w(0, "Allocated resources:\n  (Total limits may be over 100 percent, i.e., overcommitted.)\n");
    w.w(1, "Resource\tRequests\tLimits\n");
    w.w(1, "--------\t--------\t------\n");
    for name in ["cpu", "memory", "ephemeral-storage"] {
        let of = allocatable(node, name);
        let (r, l) = (amount(&requests, name), amount(&limits, name));
        w.w(1, &format!("{name}\t{r} ({}%)\t{l} ({}%)\n", percent(r.milli, of), percent(l.milli, of)));
    }
    // Huge pages, then extended resources, each by name.
    let names: Vec<&String> = match node.pointer("/status/allocatable").and_then(Value::as_object) {
        Some(m) if !m.is_empty() => m.keys().collect(),
        _ => {
            node.pointer("/status/capacity").and_then(Value::as_object).map(|m| m.keys().collect()).unwrap_or_default()
        }
    };
    let mut huge: Vec<&String> = names.iter().copied().filter(|k| k.starts_with("hugepages-")).collect();
    let mut extended: Vec<&String> = names
        .iter()
        .copied()
        .filter(|k| !k.starts_with("hugepages-") && !is_standard(k) && k.as_str() != "pods")
        .collect();
    huge.order();
    extended.order();
    for name in huge {
        let of = allocatable(node, name);
        let (r, l) = (amount(&requests, name), amount(&limits, name));
        w.w(1, &format!("{name}\t{r} ({}%)\t{l} ({}%)\n", percent(r.milli, of), percent(l.milli, of)));
    }
    for name in extended {
        w.w(1, &format!("{name}\t{}\t{}\n", amount(&requests, name), amount(&limits, name)));
    }
}

/// A container resource name upstream calls standard (`cpu`, `memory`,
/// `ephemeral-storage`, huge pages, and the `requests.`/`limits.`
/// spellings of the first three).
fn is_standard(name: &str) -> bool {
    let bare = name.strip_prefix("requests.").or_else(|| name.strip_prefix("limits.")).unwrap_or(name);
    matches!(bare, "cpu" | "memory" | "ephemeral-storage") || bare.starts_with("hugepages-")
}

pub(super) fn node(s: &mut Session, w: &mut TabWriter, node: &Value, _: &str) {
    let name = text(node, "/metadata/name").to_string();
    let selector = format!("spec.nodeName={name},status.phase!=Succeeded,status.phase!=Failed");
    let path = format!("/api/v1/pods?fieldSelector={}&limit=500", encode_component(&selector));
    let e = send(s, "GET", &path, None, None, "application/json");
    // (Pods one may not list are "not authorized"; kubectl stops at any
    // other error.)
    let pods = match e.response.status {
        200 => Some(items(&body_json(&e.response), "/items").to_vec()),
        403 => None,
        _ => return w.w(0, &format!("{}\n", server_error(&e))),
    };
    // Kubelets name the node by name where its uid belongs: both searched.
    let mut evs = search_events(s, node, "Node", "", text(node, "/metadata/uid"));
    evs.extend(search_events(s, node, "Node", "", &name));

    w.w(0, &format!("Name:\t{name}\n"));
    w.w(0, &format!("Roles:\t{}\n", roles(node)));
    labels(w, "", "Labels", node.pointer("/metadata/labels"));
    annotations(w, "Annotations", node.pointer("/metadata/annotations"));
    w.w(0, &format!("CreationTimestamp:\t{}\n", rfc1123z(node, "/metadata/creationTimestamp")));
    taints(w, items(node, "/spec/taints"));
    let unschedulable = node.pointer("/spec/unschedulable").and_then(Value::as_bool).unwrap_or(false);
    w.w(0, &format!("Unschedulable:\t{unschedulable}\n"));
    describe_lease(s, w, &name);
    let conditions = items(node, "/status/conditions");
    if !conditions.is_empty() {
        w.w(0, "Conditions:\n  Type\tStatus\tLastHeartbeatTime\tLastTransitionTime\tReason\tMessage\n");
        w.w(1, "----\t------\t-----------------\t------------------\t------\t-------\n");
        for c in conditions {
            let at = |pointer: &str| when(c, pointer).map_or_else(|| ZERO_TIME.to_string(), |t| SimTime(t).rfc1123z());
            w.w(
                1,
                &format!(
                    "{} \t{} \t{} \t{} \t{} \t{}\n",
                    text(c, "/type"),
                    text(c, "/status"),
                    at("/lastHeartbeatTime"),
                    at("/lastTransitionTime"),
                    text(c, "/reason"),
                    text(c, "/message")
                ),
            );
        }
    }
    w.w(0, "Addresses:\n");
    for a in items(node, "/status/addresses") {
        w.w(1, &format!("{}:\t{}\n", text(a, "/type"), text(a, "/address")));
    }
    for (title, pointer) in [("Capacity", "/status/capacity"), ("Allocatable", "/status/allocatable")] {
        if let Some(list) = node.pointer(pointer).filter(|l| l.as_object().is_some_and(|m| !m.is_empty())) {
            w.w(0, &format!("{title}:\n"));
            resource_list(w, list);
        }
    }
    w.w(0, "System Info:\n");
    for (title, field) in [
        ("Machine ID", "machineID"),
        ("System UUID", "systemUUID"),
        ("Boot ID", "bootID"),
        ("Kernel Version", "kernelVersion"),
        ("OS Image", "osImage"),
        ("Operating System", "operatingSystem"),
        ("Architecture", "architecture"),
        ("Container Runtime Version", "containerRuntimeVersion"),
        ("Kubelet Version", "kubeletVersion"),
        ("Kube-Proxy Version", "kubeProxyVersion"),
    ] {
        w.w(0, &format!("  {title}:\t{}\n", text(node, &format!("/status/nodeInfo/{field}"))));
    }
    if !text(node, "/spec/podCIDR").is_empty() {
        w.w(0, &format!("PodCIDR:\t{}\n", text(node, "/spec/podCIDR")));
    }
    let cidrs: Vec<&str> = items(node, "/spec/podCIDRs").iter().filter_map(Value::as_str).collect();
    if !cidrs.is_empty() {
        w.w(0, &format!("PodCIDRs:\t{}\n", cidrs.join(",")));
    }
    if !text(node, "/spec/providerID").is_empty() {
        w.w(0, &format!("ProviderID:\t{}\n", text(node, "/spec/providerID")));
    }
    match pods {
        Some(pods) => node_resources(s, w, node, &pods),
        None => w.w(0, "Pods:\tnot authorized\n"),
    }
    print_events(s, w, evs);
}
