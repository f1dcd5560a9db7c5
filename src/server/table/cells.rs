//! Cell values: the helpers the printers share and each kind's row, as
//! upstream's printers compute them.

use serde_json::{json, Value};

use crate::clock::{human_duration, parse_rfc3339, SimTime};

pub(super) fn s<'a>(o: &'a Value, ptr: &str) -> &'a str {
    o.pointer(ptr).and_then(Value::as_str).unwrap_or("")
}

pub(super) fn i(o: &Value, ptr: &str) -> i64 {
    o.pointer(ptr).and_then(Value::as_i64).unwrap_or(0)
}

pub(super) fn arr<'a>(o: &'a Value, ptr: &str) -> &'a [Value] {
    o.pointer(ptr).and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[])
}

pub(super) fn len(o: &Value, ptr: &str) -> usize {
    match o.pointer(ptr) {
        Some(Value::Object(m)) => m.len(),
        Some(Value::Array(a)) => a.len(),
        _ => 0,
    }
}

pub(super) fn or_none(v: &str) -> &str {
    if v.is_empty() {
        "<none>"
    } else {
        v
    }
}

pub(super) fn name(o: &Value) -> Value {
    s(o, "/metadata/name").into()
}

pub(super) fn since(ts: Option<&Value>, now: SimTime, missing: &str) -> String {
    match ts.and_then(Value::as_str).and_then(parse_rfc3339) {
        Some(t) => human_duration(now.0 - t),
        None => missing.to_string(),
    }
}

pub(super) fn age(o: &Value, now: SimTime) -> Value {
    since(o.pointer("/metadata/creationTimestamp"), now, "<unknown>").into()
}

/// `a=b,c=d` in key order, or `<none>`.
pub(super) fn labels(m: Option<&Value>) -> String {
    let Some(Value::Object(m)) = m else { return "<none>".into() };
    if m.is_empty() {
        return "<none>".into();
    }
    let mut kv: Vec<String> = m.iter().map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or(""))).collect();
    kv.sort();
    kv.join(",")
}

/// A label selector as the printers write it (upstream's
/// `FormatLabelSelector`): the selector string, or `<none>`.
pub(super) fn selector(sel: Option<&Value>) -> String {
    match crate::selector::label_selector_string(sel.filter(|v| v.is_object())) {
        t if t.is_empty() => "<none>".into(),
        t => t,
    }
}

/// Containers, Images and (when `sel` is a path) Selector of a pod template.
pub(super) fn template(o: &Value, spec: &str, sel: &str) -> Vec<Value> {
    let containers = arr(o, &format!("{spec}/containers"));
    let names: Vec<&str> = containers.iter().map(|c| s(c, "/name")).collect();
    let images: Vec<&str> = containers.iter().map(|c| s(c, "/image")).collect();
    let mut out = vec![Value::from(names.join(",")), Value::from(images.join(","))];
    if !sel.is_empty() {
        out.push(selector(o.pointer(sel)).into());
    }
    out
}

pub(super) fn binding_cells(o: &Value, now: SimTime) -> Vec<Value> {
    let subjects = |kind: &str| -> Value {
        let list: Vec<String> = arr(o, "/subjects")
            .iter()
            .filter(|sub| s(sub, "/kind") == kind)
            .map(|sub| match (kind, s(sub, "/namespace")) {
                ("ServiceAccount", ns) => format!("{ns}/{}", s(sub, "/name")),
                _ => s(sub, "/name").to_string(),
            })
            .collect();
        list.join(", ").into()
    };
    vec![
        name(o),
        format!("{}/{}", s(o, "/roleRef/kind"), s(o, "/roleRef/name")).into(),
        age(o, now),
        subjects("User"),
        subjects("Group"),
        subjects("ServiceAccount"),
    ]
}

pub(super) fn pod_cells(o: &Value, now: SimTime) -> Vec<Value> {
    let inits = arr(o, "/spec/initContainers");
    // Sidecars (init containers that restart Always) count as containers.
    let sidecar = |name: &str| inits.iter().any(|c| s(c, "/name") == name && s(c, "/restartPolicy") == "Always");
    let total = arr(o, "/spec/containers").len() + inits.iter().filter(|c| s(c, "/restartPolicy") == "Always").count();
    let (mut ready, mut restarts, mut sidecar_restarts) = (0, 0, 0);
    let (mut last_restart, mut last_sidecar_restart): (Option<i64>, Option<i64>) = (None, None);
    let finished =
        |c: &Value| c.pointer("/lastState/terminated/finishedAt").and_then(Value::as_str).and_then(parse_rfc3339);
    let phase = s(o, "/status/phase");
    let mut reason = match s(o, "/status/reason") {
        "" => phase.to_string(),
        r => r.to_string(),
    };
    let conds = arr(o, "/status/conditions");
    if conds.iter().any(|c| s(c, "/type") == "PodScheduled" && s(c, "/reason") == "SchedulingGated") {
        reason = "SchedulingGated".into();
    }
    let mut initializing = false;
    for (n, c) in arr(o, "/status/initContainerStatuses").iter().enumerate() {
        restarts += i(c, "/restartCount");
        last_restart = last_restart.max(finished(c));
        let is_sidecar = sidecar(s(c, "/name"));
        if is_sidecar {
            sidecar_restarts += i(c, "/restartCount");
            last_sidecar_restart = last_sidecar_restart.max(finished(c));
        }
        let terminated = c.pointer("/state/terminated").filter(|t| t.is_object());
        let waiting =
            c.pointer("/state/waiting").filter(|w| !s(w, "/reason").is_empty() && s(w, "/reason") != "PodInitializing");
        if terminated.is_some_and(|t| i(t, "/exitCode") == 0) {
            continue;
        }
        if is_sidecar && c.get("started").and_then(Value::as_bool) == Some(true) {
            if c.get("ready").and_then(Value::as_bool) == Some(true) {
                ready += 1;
            }
            continue;
        }
        reason = if let Some(t) = terminated {
            match (s(t, "/reason"), i(t, "/signal")) {
                ("", 0) => format!("Init:ExitCode:{}", i(t, "/exitCode")),
                ("", sig) => format!("Init:Signal:{sig}"),
                (r, _) => format!("Init:{r}"),
            }
        } else if let Some(w) = waiting {
            format!("Init:{}", s(w, "/reason"))
        } else {
            format!("Init:{}/{}", n, inits.len())
        };
        initializing = true;
        break;
    }
    let initialized = conds.iter().any(|c| s(c, "/type") == "Initialized" && s(c, "/status") == "True");
    if !initializing || initialized {
        restarts = sidecar_restarts;
        last_restart = last_sidecar_restart;
        let mut running = false;
        for c in arr(o, "/status/containerStatuses").iter().rev() {
            restarts += i(c, "/restartCount");
            last_restart = last_restart.max(finished(c));
            let terminated = c.pointer("/state/terminated").filter(|t| t.is_object());
            if let Some(w) = c.pointer("/state/waiting").filter(|w| !s(w, "/reason").is_empty()) {
                reason = s(w, "/reason").to_string();
            } else if let Some(t) = terminated {
                reason = match (s(t, "/reason"), i(t, "/signal")) {
                    ("", 0) => format!("ExitCode:{}", i(t, "/exitCode")),
                    ("", sig) => format!("Signal:{sig}"),
                    (r, _) => r.to_string(),
                };
            } else if c.get("ready").and_then(Value::as_bool) == Some(true)
                && c.pointer("/state/running").is_some_and(Value::is_object)
            {
                running = true;
                ready += 1;
            }
        }
        if reason == "Completed" && running {
            let pod_ready = conds.iter().any(|c| s(c, "/type") == "Ready" && s(c, "/status") == "True");
            reason = if pod_ready { "Running" } else { "NotReady" }.into();
        }
    }
    let deleting = o.pointer("/metadata/deletionTimestamp").is_some_and(|d| !d.is_null());
    if deleting && s(o, "/status/reason") == "NodeLost" {
        reason = "Unknown".into();
    } else if deleting && phase != "Succeeded" && phase != "Failed" {
        reason = "Terminating".into();
    }
    let restarts = match last_restart {
        Some(t) if restarts != 0 => format!("{restarts} ({} ago)", human_duration(now.0 - t)),
        _ => restarts.to_string(),
    };
    let ip = arr(o, "/status/podIPs").first().map(|p| s(p, "/ip")).unwrap_or("");
    let gates = arr(o, "/spec/readinessGates");
    let gates = if gates.is_empty() {
        "<none>".to_string()
    } else {
        let met = gates
            .iter()
            .filter(|g| {
                conds
                    .iter()
                    .find(|c| s(c, "/type") == s(g, "/conditionType"))
                    .is_some_and(|c| s(c, "/status") == "True")
            })
            .count();
        format!("{met}/{}", gates.len())
    };
    vec![
        name(o),
        format!("{ready}/{total}").into(),
        reason.into(),
        restarts.into(),
        age(o, now),
        or_none(ip).into(),
        or_none(s(o, "/spec/nodeName")).into(),
        or_none(s(o, "/status/nominatedNodeName")).into(),
        gates.into(),
    ]
}

pub(super) fn service_cells(o: &Value, now: SimTime) -> Vec<Value> {
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
            ips.sort_unstable();
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

pub(super) fn node_cells(o: &Value, now: SimTime) -> Vec<Value> {
    let mut status: Vec<&str> = Vec::new();
    for c in arr(o, "/status/conditions") {
        if s(c, "/type") == "Ready" {
            status.push(if s(c, "/status") == "True" { "Ready" } else { "NotReady" });
        }
    }
    if status.is_empty() {
        status.push("Unknown");
    }
    if o.pointer("/spec/unschedulable").and_then(Value::as_bool) == Some(true) {
        status.push("SchedulingDisabled");
    }
    let mut roles: Vec<String> = o
        .pointer("/metadata/labels")
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .filter_map(|(k, v)| {
                    if let Some(r) = k.strip_prefix("node-role.kubernetes.io/") {
                        Some(r.to_string())
                    } else if k == "kubernetes.io/role" {
                        v.as_str().map(str::to_string)
                    } else {
                        None
                    }
                })
                .filter(|r| !r.is_empty())
                .collect()
        })
        .unwrap_or_default();
    roles.sort();
    roles.dedup();
    let addr = |ty: &str| {
        arr(o, "/status/addresses")
            .iter()
            .find(|a| s(a, "/type") == ty)
            .map(|a| s(a, "/address").to_string())
            .unwrap_or_else(|| "<none>".into())
    };
    let info = |f: &str| match s(o, &format!("/status/nodeInfo/{f}")) {
        "" => "<unknown>".to_string(),
        v => v.to_string(),
    };
    vec![
        name(o),
        status.join(",").into(),
        if roles.is_empty() { "<none>".to_string() } else { roles.join(",") }.into(),
        age(o, now),
        s(o, "/status/nodeInfo/kubeletVersion").into(),
        addr("InternalIP").into(),
        addr("ExternalIP").into(),
        info("osImage").into(),
        info("kernelVersion").into(),
        info("containerRuntimeVersion").into(),
    ]
}

pub(super) fn event_cells(o: &Value, now: SimTime) -> Vec<Value> {
    let set = |p: &str| o.pointer(p).filter(|v| !v.is_null());
    // Zero times read as "<unknown>", as translateTimestampSince says.
    let first = match set("/firstTimestamp") {
        Some(t) => since(Some(t), now, "<unknown>"),
        None => since(set("/eventTime"), now, "<unknown>"),
    };
    let mut last = match set("/lastTimestamp") {
        Some(t) => since(Some(t), now, "<unknown>"),
        None => first.clone(),
    };
    let mut count = i(o, "/count");
    if set("/series").is_some() {
        last = since(set("/series/lastObservedTime"), now, "<unknown>");
        count = i(o, "/series/count");
    } else if count == 0 {
        // Singleton events of the newer API carry no count.
        count = 1;
    }
    let first_non_empty = |a: &'static str, b: &'static str| if s(o, a).is_empty() { s(o, b) } else { s(o, a) };
    let (component, instance) = (
        first_non_empty("/source/component", "/reportingComponent"),
        first_non_empty("/source/host", "/reportingInstance"),
    );
    let source = if instance.is_empty() { component.to_string() } else { format!("{component}, {instance}") };
    let kind = s(o, "/involvedObject/kind").to_lowercase();
    let target = match s(o, "/involvedObject/name") {
        "" => kind,
        n => format!("{kind}/{n}"),
    };
    vec![
        last.into(),
        s(o, "/type").into(),
        s(o, "/reason").into(),
        target.into(),
        s(o, "/involvedObject/fieldPath").into(),
        source.into(),
        s(o, "/message").trim().into(),
        first.into(),
        json!(count),
        name(o),
    ]
}

pub(super) fn endpoints(o: &Value) -> String {
    const MAX: usize = 3;
    let mut shown: Vec<String> = Vec::new();
    let mut total = 0;
    for subset in arr(o, "/subsets") {
        let ports = arr(subset, "/ports");
        for a in arr(subset, "/addresses") {
            let ip = s(a, "/ip");
            if ports.is_empty() {
                total += 1;
                if shown.len() < MAX {
                    shown.push(ip.to_string());
                }
            }
            for p in ports {
                total += 1;
                if shown.len() < MAX {
                    shown.push(format!("{ip}:{}", i(p, "/port")));
                }
            }
        }
    }
    match total {
        0 => "<none>".into(),
        n if n > MAX => format!("{} + {} more...", shown.join(","), n - MAX),
        _ => shown.join(","),
    }
}

pub(super) fn access_modes(modes: &[Value]) -> String {
    let mut out: Vec<&str> = Vec::new();
    for (full, short) in
        [("ReadWriteOnce", "RWO"), ("ReadOnlyMany", "ROX"), ("ReadWriteMany", "RWX"), ("ReadWriteOncePod", "RWOP")]
    {
        if modes.iter().any(|m| m.as_str() == Some(full)) {
            out.push(short);
        }
    }
    out.join(",")
}

pub(super) fn pv_cells(o: &Value, now: SimTime) -> Vec<Value> {
    let claim = match o.pointer("/spec/claimRef") {
        Some(c) if c.is_object() => format!("{}/{}", s(c, "/namespace"), s(c, "/name")),
        _ => String::new(),
    };
    let phase = if o.pointer("/metadata/deletionTimestamp").is_some_and(|d| !d.is_null()) {
        "Terminating"
    } else {
        s(o, "/status/phase")
    };
    vec![
        name(o),
        s(o, "/spec/capacity/storage").into(),
        access_modes(arr(o, "/spec/accessModes")).into(),
        s(o, "/spec/persistentVolumeReclaimPolicy").into(),
        phase.into(),
        claim.into(),
        storage_class(o).into(),
        unset(s(o, "/spec/volumeAttributesClassName")).into(),
        s(o, "/status/reason").into(),
        age(o, now),
        unset(s(o, "/spec/volumeMode")).into(),
    ]
}

/// The beta storage-class annotation, else `spec.storageClassName` (as
/// upstream's GetPersistentVolume(Claim)Class reads them).
pub(super) fn storage_class(o: &Value) -> &str {
    match o.pointer("/metadata/annotations/volume.beta.kubernetes.io~1storage-class").and_then(Value::as_str) {
        Some(c) => c,
        None => s(o, "/spec/storageClassName"),
    }
}

pub(super) fn unset(v: &str) -> &str {
    if v.is_empty() {
        "<unset>"
    } else {
        v
    }
}

pub(super) fn pvc_cells(o: &Value, now: SimTime) -> Vec<Value> {
    let phase = if o.pointer("/metadata/deletionTimestamp").is_some_and(|d| !d.is_null()) {
        "Terminating"
    } else {
        s(o, "/status/phase")
    };
    let bound = !s(o, "/spec/volumeName").is_empty();
    let (capacity, modes) = if bound {
        (s(o, "/status/capacity/storage").to_string(), access_modes(arr(o, "/status/accessModes")))
    } else {
        (String::new(), String::new())
    };
    let class = storage_class(o);
    vec![
        name(o),
        phase.into(),
        s(o, "/spec/volumeName").into(),
        capacity.into(),
        modes.into(),
        class.into(),
        unset(s(o, "/spec/volumeAttributesClassName")).into(),
        age(o, now),
        unset(s(o, "/spec/volumeMode")).into(),
    ]
}

pub(super) fn job_cells(o: &Value, now: SimTime) -> Vec<Value> {
    let completions = match o.pointer("/spec/completions").and_then(Value::as_i64) {
        Some(c) => format!("{}/{c}", i(o, "/status/succeeded")),
        None => match i(o, "/spec/parallelism") {
            p if p > 1 => format!("{}/1 of {p}", i(o, "/status/succeeded")),
            _ => format!("{}/1", i(o, "/status/succeeded")),
        },
    };
    let start = o.pointer("/status/startTime").and_then(Value::as_str).and_then(parse_rfc3339);
    let end = o.pointer("/status/completionTime").and_then(Value::as_str).and_then(parse_rfc3339);
    let duration = match (start, end) {
        (None, _) => String::new(),
        (Some(s), None) => human_duration(now.0 - s),
        (Some(s), Some(e)) => human_duration(e - s),
    };
    let has = |ty: &str| arr(o, "/status/conditions").iter().any(|c| s(c, "/type") == ty && s(c, "/status") == "True");
    let status = if has("Complete") {
        "Complete"
    } else if has("Failed") {
        "Failed"
    } else if o.pointer("/metadata/deletionTimestamp").is_some_and(|d| !d.is_null()) {
        "Terminating"
    } else if has("SuccessCriteriaMet") {
        "SuccessCriteriaMet"
    } else if has("Suspended") {
        "Suspended"
    } else if has("FailureTarget") {
        "FailureTarget"
    } else {
        "Running"
    };
    let mut c = vec![name(o), status.into(), completions.into(), duration.into(), age(o, now)];
    c.extend(template(o, "/spec/template/spec", "/spec/selector"));
    c
}
