//! `kubectl describe` for pods, deployments, configmaps, namespaces,
//! service accounts, resource quotas and limit ranges (services in
//! `describe/service.rs`, nodes in `describe/node.rs`, RBAC's kinds in
//! `describe/rbac.rs`): the requests
//! kubectl 1.33 sends (the object read by the resource builder, again by
//! the describer — or, without a name, the type listed by `-l` and each
//! object read by the describer —, its events by field selector, a Deployment's ReplicaSets
//! by its selector) and its text, laid out as its describers lay it out
//! (Go's tabwriter: minimum width 0, padding 2, spaces; the events table
//! aligned on its own).

use kubesim::sort::Order;
use serde_json::{Map, Value};

use super::parse::Command;
use super::{namespace_of, resolve, send, server_error, Outcome};
use crate::format::{build_query, encode_component};
use crate::resources::Discovery;
use crate::session::{body_json, Session};
use kubesim::clock::{parse_rfc3339, SimTime};

mod generic;
mod network;
mod node;
mod policy;
mod rbac;
mod service;
mod volumes;
mod workloads;

/// Go's `text/tabwriter` as kubectl's describers use it: cells end at a
/// tab; a column is as wide as its widest cell plus two in each block of
/// consecutive lines that have a cell there; a line's last cell is not
/// padded. `flush` lays out what was written so far on its own.
#[derive(Default)]
pub(crate) struct TabWriter {
    out: String,
    pending: String,
}

impl TabWriter {
    /// Writes at an indentation level (two spaces each), as kubectl's
    /// prefix writer does.
    fn w(&mut self, level: usize, text: &str) {
        for _ in 0..level {
            self.pending.push_str("  ");
        }
        self.pending.push_str(text);
    }

    fn flush(&mut self) {
        let lines: Vec<Vec<&str>> = self.pending.split_terminator('\n').map(|l| l.split('\t').collect()).collect();
        let mut widths = Vec::new();
        let mut out = String::new();
        layout(&lines, 0, lines.len(), &mut widths, &mut out);
        self.out.push_str(&out);
        self.pending.clear();
    }

    pub(crate) fn finish(mut self) -> String {
        self.flush();
        self.out
    }
}

fn layout(lines: &[Vec<&str>], mut line0: usize, line1: usize, widths: &mut Vec<usize>, out: &mut String) {
    let column = widths.len();
    let mut this = line0;
    while this < line1 {
        // A cell in this column ends with a tab: the line has more cells.
        if column + 1 >= lines[this].len() {
            this += 1;
            continue;
        }
        write_lines(lines, line0, this, widths, out);
        line0 = this;
        let mut width = 0;
        while this < line1 && column + 1 < lines[this].len() {
            width = width.max(lines[this][column].chars().count() + 2);
            this += 1;
        }
        widths.push(width);
        layout(lines, line0, this, widths, out);
        widths.pop();
        line0 = this;
    }
    write_lines(lines, line0, line1, widths, out);
}

fn write_lines(lines: &[Vec<&str>], from: usize, to: usize, widths: &[usize], out: &mut String) {
    for line in &lines[from..to] {
        for (j, cell) in line.iter().enumerate() {
            out.push_str(cell);
            if j < widths.len() {
                out.push_str(&" ".repeat(widths[j].saturating_sub(cell.chars().count())));
            }
        }
        out.push('\n');
    }
}

/// The annotation kubectl leaves out of `describe`.
const SKIPPED_ANNOTATION: &str = "kubectl.kubernetes.io/last-applied-configuration";
const MAX_ANNOTATION_LEN: usize = 140;

fn text<'v>(v: &'v Value, pointer: &str) -> &'v str {
    v.pointer(pointer).and_then(Value::as_str).unwrap_or("")
}

fn items<'v>(v: &'v Value, pointer: &str) -> &'v [Value] {
    v.pointer(pointer).and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default()
}

fn int(v: &Value, pointer: &str) -> i64 {
    v.pointer(pointer).and_then(Value::as_i64).unwrap_or(0)
}

fn when(v: &Value, pointer: &str) -> Option<i64> {
    v.pointer(pointer).and_then(Value::as_str).and_then(parse_rfc3339)
}

fn rfc1123z(v: &Value, pointer: &str) -> String {
    when(v, pointer).map(|t| SimTime(t).rfc1123z()).unwrap_or_default()
}

fn sorted(map: Option<&Value>) -> Vec<(&String, String)> {
    let mut kv: Vec<(&String, String)> = map
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .map(|(k, v)| (k, v.as_str().map(str::to_string).unwrap_or_else(|| v.to_string())))
        .collect();
    kv.order();
    kv
}

fn labels(w: &mut TabWriter, indent: &str, title: &str, map: Option<&Value>) {
    w.w(0, &format!("{indent}{title}:\t"));
    let kv = sorted(map);
    if kv.is_empty() {
        w.w(0, "<none>\n");
    }
    for (i, (k, v)) in kv.iter().enumerate() {
        if i > 0 {
            w.w(0, &format!("{indent}\t"));
        }
        w.w(0, &format!("{k}={v}\n"));
    }
}

fn annotations(w: &mut TabWriter, title: &str, map: Option<&Value>) {
    w.w(0, &format!("{title}:\t"));
    let kv: Vec<_> = sorted(map).into_iter().filter(|(k, _)| k.as_str() != SKIPPED_ANNOTATION).collect();
    if kv.is_empty() {
        w.w(0, "<none>\n");
    }
    for (i, (k, v)) in kv.iter().enumerate() {
        if i > 0 {
            w.w(0, "\t");
        }
        let v = v.strip_suffix('\n').unwrap_or(v);
        if v.len() + k.len() + 2 > MAX_ANNOTATION_LEN || v.contains('\n') {
            w.w(0, &format!("{k}:\n"));
            for line in v.split('\n') {
                let short = match line.char_indices().nth(MAX_ANNOTATION_LEN - 2) {
                    Some((at, _)) => format!("{}...", &line[..at]),
                    None => line.to_string(),
                };
                w.w(0, &format!("\t  {short}\n"));
            }
        } else {
            w.w(0, &format!("{k}: {v}\n"));
        }
    }
}

fn tolerations(w: &mut TabWriter, indent: &str, list: &[Value]) {
    w.w(0, &format!("{indent}Tolerations:\t"));
    if list.is_empty() {
        w.w(0, "<none>\n");
    }
    let mut list: Vec<&Value> = list.iter().collect();
    list.order_by(|a, b| text(a, "/key").cmp(text(b, "/key")));
    for (i, t) in list.iter().enumerate() {
        if i > 0 {
            w.w(0, &format!("{indent}\t"));
        }
        let (key, value, effect) = (text(t, "/key"), text(t, "/value"), text(t, "/effect"));
        let mut line = key.to_string();
        if !value.is_empty() {
            line.push_str(&format!("={value}"));
        }
        if !effect.is_empty() {
            line.push_str(&format!(":{effect}"));
        }
        if text(t, "/operator") == "Exists" && value.is_empty() {
            line.push_str(if key.is_empty() && effect.is_empty() { "op=Exists" } else { " op=Exists" });
        }
        if let Some(s) = t.get("tolerationSeconds").and_then(Value::as_i64) {
            line.push_str(&format!(" for {s}s"));
        }
        w.w(0, &format!("{line}\n"));
    }
}

/// A probe as kubectl describes it.
fn probe(p: &Value) -> String {
    let attrs = format!(
        "delay={}s timeout={}s period={}s #success={} #failure={}",
        int(p, "/initialDelaySeconds"),
        int(p, "/timeoutSeconds"),
        int(p, "/periodSeconds"),
        int(p, "/successThreshold"),
        int(p, "/failureThreshold")
    );
    let port = |v: Option<&Value>| match v {
        Some(Value::String(s)) => s.clone(),
        Some(n) => n.to_string(),
        None => String::new(),
    };
    if let Some(e) = p.get("exec") {
        let cmd: Vec<&str> = items(e, "/command").iter().filter_map(Value::as_str).collect();
        return format!("exec [{}] {attrs}", cmd.join(" "));
    }
    if let Some(h) = p.get("httpGet") {
        let scheme = text(h, "/scheme").to_ascii_lowercase();
        let host = format!("{}:{}", text(h, "/host"), port(h.get("port")));
        return format!("http-get {scheme}://{host}{} {attrs}", text(h, "/path"));
    }
    if let Some(t) = p.get("tcpSocket") {
        return format!("tcp-socket {}:{} {attrs}", text(t, "/host"), port(t.get("port")));
    }
    format!("unknown {attrs}")
}

fn container_state(w: &mut TabWriter, name: &str, state: &Value) {
    if let Some(r) = state.get("running") {
        w.w(2, &format!("{name}:\tRunning\n"));
        w.w(3, &format!("Started:\t{}\n", rfc1123z(r, "/startedAt")));
    } else if let Some(t) = state.get("terminated") {
        w.w(2, &format!("{name}:\tTerminated\n"));
        for (label, p) in [("Reason", "/reason"), ("Message", "/message")] {
            if !text(t, p).is_empty() {
                w.w(3, &format!("{label}:\t{}\n", text(t, p)));
            }
        }
        w.w(3, &format!("Exit Code:\t{}\n", int(t, "/exitCode")));
        if int(t, "/signal") > 0 {
            w.w(3, &format!("Signal:\t{}\n", int(t, "/signal")));
        }
        w.w(3, &format!("Started:\t{}\n", rfc1123z(t, "/startedAt")));
        w.w(3, &format!("Finished:\t{}\n", rfc1123z(t, "/finishedAt")));
    } else {
        w.w(2, &format!("{name}:\tWaiting\n"));
        let reason = text(state, "/waiting/reason");
        if !reason.is_empty() {
            w.w(3, &format!("Reason:\t{reason}\n"));
        }
    }
}

fn resources(w: &mut TabWriter, r: Option<&Value>) {
    for (title, key) in [("Limits", "limits"), ("Requests", "requests")] {
        let kv = sorted(r.and_then(|r| r.get(key)));
        if !kv.is_empty() {
            w.w(2, &format!("{title}:\n"));
        }
        for (k, v) in kv {
            w.w(3, &format!("{k}:\t{v}\n"));
        }
    }
}

/// The value an env var's `valueFrom` stands for, as kubectl shows it.
fn env_from(pod: Option<&Value>, e: &Value) -> String {
    let from = e.get("valueFrom").unwrap_or(&Value::Null);
    if let Some(f) = from.get("fieldRef") {
        let path = text(f, "/fieldPath");
        let value = pod
            .and_then(|p| {
                let pointer = format!("/{}", path.replace('.', "/"));
                p.pointer(&pointer).and_then(Value::as_str).map(str::to_string)
            })
            .unwrap_or_default();
        return format!("{value} ({}:{path})", text(f, "/apiVersion"));
    }
    if let Some(r) = from.get("resourceFieldRef") {
        return format!("{} ({})", text(r, "/containerName"), text(r, "/resource"));
    }
    for (key, what) in [("configMapKeyRef", "of config map"), ("secretKeyRef", "in secret")] {
        if let Some(r) = from.get(key) {
            let optional = r.get("optional").and_then(Value::as_bool).unwrap_or(false);
            return format!(
                "<set to the key '{}' {what} '{}'>\tOptional: {optional}",
                text(r, "/key"),
                text(r, "/name")
            );
        }
    }
    String::new()
}

/// `Environment Variables from:`, each ConfigMap or Secret a container's
/// `envFrom` reads (nothing when it reads none).
fn env_from_sources(w: &mut TabWriter, sources: &[Value]) {
    if sources.is_empty() {
        return;
    }
    w.w(2, "Environment Variables from:\n");
    for e in sources {
        let (kind, r) = match (e.get("configMapRef"), e.get("secretRef")) {
            (Some(r), _) => ("ConfigMap", r),
            (None, Some(r)) => ("Secret", r),
            (None, None) => ("", &Value::Null),
        };
        let optional = r.get("optional").and_then(Value::as_bool).unwrap_or(false);
        let from = match text(e, "/prefix") {
            "" => kind.to_string(),
            prefix => format!("{kind} with prefix '{prefix}'"),
        };
        w.w(3, &format!("{}\t{from}\tOptional: {optional}\n", text(r, "/name")));
    }
}

/// Containers (with their statuses for a pod; none for a template),
/// `space` the template's extra indentation, under `title` (`Containers`,
/// or a pod's `Ephemeral Containers`).
fn containers(w: &mut TabWriter, pod: Option<&Value>, list: &[Value], statuses: &[Value], space: &str, title: &str) {
    w.w(0, &format!("{space}{title}:{}\n", if list.is_empty() { " <none>" } else { "" }));
    let indent = if space.is_empty() { "" } else { " " };
    for c in list {
        let name = text(c, "/name");
        let status = statuses.iter().find(|s| text(s, "/name") == name);
        w.w(1, &format!("{indent}{name}:\n"));
        if let Some(s) = status {
            w.w(2, &format!("Container ID:\t{}\n", text(s, "/containerID")));
        }
        w.w(2, &format!("Image:\t{}\n", text(c, "/image")));
        if let Some(s) = status {
            w.w(2, &format!("Image ID:\t{}\n", text(s, "/imageID")));
        }
        let ports = items(c, "/ports");
        let list = |f: &dyn Fn(&Value) -> i64| -> String {
            ports
                .iter()
                .map(|p| format!("{}/{}", f(p), p.get("protocol").and_then(Value::as_str).unwrap_or("TCP")))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let (container_ports, host_ports) = (list(&|p| int(p, "/containerPort")), list(&|p| int(p, "/hostPort")));
        for (one, many, v) in [("Port", "Ports", container_ports), ("Host Port", "Host Ports", host_ports)] {
            if v.contains(',') {
                w.w(2, &format!("{many}:\t{v}\n"));
            } else {
                w.w(2, &format!("{one}:\t{}\n", if v.is_empty() { "<none>" } else { &v }));
            }
        }
        for (title, key) in [("Command", "/command"), ("Args", "/args")] {
            let words = items(c, key);
            if !words.is_empty() {
                w.w(2, &format!("{title}:\n"));
                for line in words.iter().filter_map(Value::as_str).flat_map(|s| s.split('\n')) {
                    w.w(3, &format!("{line}\n"));
                }
            }
        }
        if let Some(s) = status {
            container_state(w, "State", s.get("state").unwrap_or(&Value::Null));
            if let Some(last) = s.pointer("/lastState").filter(|l| l.get("terminated").is_some()) {
                container_state(w, "Last State", last);
            }
            let ready = s.get("ready").and_then(Value::as_bool).unwrap_or(false);
            w.w(2, &format!("Ready:\t{}\n", if ready { "True" } else { "False" }));
            w.w(2, &format!("Restart Count:\t{}\n", int(s, "/restartCount")));
        }
        resources(w, c.get("resources"));
        for (title, key) in
            [("Liveness", "livenessProbe"), ("Readiness", "readinessProbe"), ("Startup", "startupProbe")]
        {
            if let Some(p) = c.get(key) {
                w.w(2, &format!("{title}:\t{}\n", probe(p)));
            }
        }
        let env = items(c, "/env");
        env_from_sources(w, items(c, "/envFrom"));
        w.w(2, &format!("Environment:{}\n", if env.is_empty() { "\t<none>" } else { "" }));
        for e in env {
            let name = text(e, "/name");
            if e.get("valueFrom").is_some() {
                w.w(3, &format!("{name}:\t{}\n", env_from(pod, e)));
                continue;
            }
            for (i, line) in text(e, "/value").split('\n').enumerate() {
                if i == 0 {
                    w.w(3, &format!("{name}:\t{line}\n"));
                } else {
                    w.w(3, &format!("\t{line}\n"));
                }
            }
        }
        let mut mounts: Vec<&Value> = items(c, "/volumeMounts").iter().collect();
        mounts.order_by(|a, b| text(a, "/mountPath").cmp(text(b, "/mountPath")));
        w.w(2, &format!("Mounts:{}\n", if mounts.is_empty() { "\t<none>" } else { "" }));
        for m in mounts {
            let mut flags =
                vec![if m.get("readOnly").and_then(Value::as_bool).unwrap_or(false) { "ro" } else { "rw" }.to_string()];
            if !text(m, "/subPath").is_empty() {
                flags.push(format!("path={:?}", text(m, "/subPath")));
            }
            w.w(3, &format!("{} from {} ({})\n", text(m, "/mountPath"), text(m, "/name"), flags.join(",")));
        }
    }
}

/// A projected volume as kubectl describes one (the service account's
/// `kube-api-access-` volume every pod has): a line or two a source.
fn projected(w: &mut TabWriter, p: &Value) {
    w.w(2, "Type:\tProjected (a volume that contains injected data from multiple sources)\n");
    let optional = |s: &Value| s.get("optional").and_then(Value::as_bool).unwrap_or(false);
    for source in items(p, "/sources") {
        if let Some(s) = source.get("secret") {
            w.w(2, &format!("SecretName:\t{}\n", text(s, "/name")));
            w.w(2, &format!("Optional:\t{}\n", optional(s)));
        } else if source.get("downwardAPI").is_some() {
            w.w(2, "DownwardAPI:\ttrue\n");
        } else if let Some(c) = source.get("configMap") {
            w.w(2, &format!("ConfigMapName:\t{}\n", text(c, "/name")));
            w.w(2, &format!("Optional:\t{}\n", optional(c)));
        } else if let Some(t) = source.get("serviceAccountToken") {
            w.w(2, &format!("TokenExpirationSeconds:\t{}\n", int(t, "/expirationSeconds")));
        }
    }
}

fn volumes(w: &mut TabWriter, list: &[Value], space: &str) {
    if list.is_empty() {
        w.w(0, &format!("{space}Volumes:\t<none>\n"));
        return;
    }
    w.w(0, &format!("{space}Volumes:\n"));
    let indent = if space.is_empty() { "" } else { " " };
    for v in list {
        w.w(1, &format!("{indent}{}:\n", text(v, "/name")));
        if let Some(e) = v.get("emptyDir") {
            w.w(2, "Type:\tEmptyDir (a temporary directory that shares a pod's lifetime)\n");
            w.w(2, &format!("Medium:\t{}\n", text(e, "/medium")));
            let limit = e.get("sizeLimit").and_then(Value::as_str).unwrap_or("<unset>");
            w.w(2, &format!("SizeLimit:\t{limit}\n"));
        } else if let Some(c) = v.get("configMap") {
            w.w(2, "Type:\tConfigMap (a volume populated by a ConfigMap)\n");
            w.w(2, &format!("Name:\t{}\n", text(c, "/name")));
            w.w(2, &format!("Optional:\t{}\n", c.get("optional").and_then(Value::as_bool).unwrap_or(false)));
        } else if let Some(s) = v.get("secret") {
            w.w(2, "Type:\tSecret (a volume populated by a Secret)\n");
            w.w(2, &format!("SecretName:\t{}\n", text(s, "/secretName")));
            w.w(2, &format!("Optional:\t{}\n", s.get("optional").and_then(Value::as_bool).unwrap_or(false)));
        } else if let Some(p) = v.get("projected") {
            projected(w, p);
        } else if let Some(h) = v.get("hostPath") {
            w.w(2, "Type:\tHostPath (bare host directory volume)\n");
            w.w(2, &format!("Path:\t{}\n", text(h, "/path")));
            w.w(2, &format!("HostPathType:\t{}\n", text(h, "/type")));
        } else {
            w.w(2, "Type:\t<unknown>\n");
        }
    }
}

/// The object's events, by the field selector kubectl 1.33 builds: name,
/// namespace, kind (left out for a pod, whose describer clears it) and uid,
/// in that order.
fn events(s: &mut Session, w: &mut TabWriter, obj: &Value, kind: &str, namespace: &str) {
    let evs = search_events(s, obj, kind, namespace, text(obj, "/metadata/uid"));
    print_events(s, w, evs);
}

/// The events about `obj` (named by `uid`), as kubectl's `searchEvents`
/// asks for them: in its namespace (all of them for a cluster-scoped
/// object).
fn search_events(s: &mut Session, obj: &Value, kind: &str, namespace: &str, uid: &str) -> Vec<Value> {
    let kind = if kind.is_empty() { String::new() } else { format!(",involvedObject.kind={kind}") };
    let selector = format!(
        "involvedObject.name={},involvedObject.namespace={namespace}{kind},involvedObject.uid={uid}",
        text(obj, "/metadata/name"),
    );
    let collection = if namespace.is_empty() {
        "/api/v1/events".to_string()
    } else {
        format!("/api/v1/namespaces/{namespace}/events")
    };
    let path = format!("{collection}?fieldSelector={}&limit=500", encode_component(&selector));
    let e = send(s, "GET", &path, None, None, "application/json");
    items(&body_json(&e.response), "/items").to_vec()
}

/// `Events:`, oldest last seen first, as kubectl's `DescribeEvents`.
fn print_events(s: &Session, w: &mut TabWriter, evs: Vec<Value>) {
    let mut evs: Vec<&Value> = evs.iter().collect();
    if evs.is_empty() {
        w.w(0, "Events:\t<none>\n");
        return;
    }
    w.flush();
    evs.order_by_key(|e| when(e, "/lastTimestamp").unwrap_or(i64::MIN));
    let now = s.server.now().0;
    let since = |t: Option<i64>| t.map(|t| crate::format::age(now, t)).unwrap_or_else(|| "<unknown>".into());
    w.w(0, "Events:\n  Type\tReason\tAge\tFrom\tMessage\n");
    w.w(1, "----\t------\t----\t----\t-------\n");
    for e in evs {
        let first = match when(e, "/eventTime") {
            Some(t) => since(Some(t)),
            None => since(when(e, "/firstTimestamp")),
        };
        let count = int(e, "/count");
        let interval = if e.get("series").is_some_and(|v| !v.is_null()) {
            format!("{} (x{} over {first})", since(when(e, "/series/lastObservedTime")), int(e, "/series/count"))
        } else if count > 1 {
            format!("{} (x{count} over {first})", since(when(e, "/lastTimestamp")))
        } else {
            first
        };
        let source = match text(e, "/source/component") {
            "" => text(e, "/reportingComponent"),
            c => c,
        };
        w.w(
            1,
            &format!(
                "{}\t{}\t{interval}\t{source}\t{}\n",
                text(e, "/type"),
                text(e, "/reason"),
                text(e, "/message").trim()
            ),
        );
    }
}

fn pod(s: &mut Session, w: &mut TabWriter, p: &Value, namespace: &str) {
    w.w(0, &format!("Name:\t{}\n", text(p, "/metadata/name")));
    w.w(0, &format!("Namespace:\t{}\n", text(p, "/metadata/namespace")));
    if let Some(prio) = p.pointer("/spec/priority").and_then(Value::as_i64) {
        w.w(0, &format!("Priority:\t{prio}\n"));
    }
    for (label, ptr) in
        [("Priority Class Name", "/spec/priorityClassName"), ("Service Account", "/spec/serviceAccountName")]
    {
        if !text(p, ptr).is_empty() {
            w.w(0, &format!("{label}:\t{}\n", text(p, ptr)));
        }
    }
    match text(p, "/spec/nodeName") {
        "" => w.w(0, "Node:\t<none>\n"),
        node => w.w(0, &format!("Node:\t{node}/{}\n", text(p, "/status/hostIP"))),
    }
    if when(p, "/status/startTime").is_some() {
        w.w(0, &format!("Start Time:\t{}\n", rfc1123z(p, "/status/startTime")));
    }
    labels(w, "", "Labels", p.pointer("/metadata/labels"));
    annotations(w, "Annotations", p.pointer("/metadata/annotations"));
    let phase = text(p, "/status/phase");
    match when(p, "/metadata/deletionTimestamp") {
        Some(t) if phase != "Failed" && phase != "Succeeded" => {
            w.w(0, &format!("Status:\tTerminating (lasts {})\n", crate::format::age(s.server.now().0, t)));
            w.w(0, &format!("Termination Grace Period:\t{}s\n", int(p, "/metadata/deletionGracePeriodSeconds")));
        }
        _ => w.w(0, &format!("Status:\t{phase}\n")),
    }
    for (label, ptr) in [("Reason", "/status/reason"), ("Message", "/status/message")] {
        if !text(p, ptr).is_empty() {
            w.w(0, &format!("{label}:\t{}\n", text(p, ptr)));
        }
    }
    w.w(0, &format!("IP:\t{}\n", text(p, "/status/podIP")));
    let ips = items(p, "/status/podIPs");
    if ips.is_empty() {
        w.w(0, "IPs:\t<none>\n");
    } else {
        w.w(0, "IPs:\n");
        for ip in ips {
            w.w(1, &format!("IP:\t{}\n", text(ip, "/ip")));
        }
    }
    controlled_by(w, p);
    if !text(p, "/status/nominatedNodeName").is_empty() {
        w.w(0, &format!("NominatedNodeName:\t{}\n", text(p, "/status/nominatedNodeName")));
    }
    let init = items(p, "/spec/initContainers");
    if !init.is_empty() {
        containers(w, Some(p), init, items(p, "/status/initContainerStatuses"), "", "Init Containers");
    }
    containers(w, Some(p), items(p, "/spec/containers"), items(p, "/status/containerStatuses"), "", "Containers");
    // Shown once there are any (`kubectl debug`'s).
    let ephemeral = items(p, "/spec/ephemeralContainers");
    if !ephemeral.is_empty() {
        let statuses = items(p, "/status/ephemeralContainerStatuses");
        containers(w, Some(p), ephemeral, statuses, "", "Ephemeral Containers");
    }
    let conditions = items(p, "/status/conditions");
    if !conditions.is_empty() {
        w.w(0, "Conditions:\n  Type\tStatus\n");
        for c in conditions {
            w.w(1, &format!("{} \t{} \n", text(c, "/type"), text(c, "/status")));
        }
    }
    volumes(w, items(p, "/spec/volumes"), "");
    // As kubectl: the class the pod's status records, else computed.
    let qos = p["status"]["qosClass"].as_str().filter(|q| !q.is_empty());
    w.w(0, &format!("QoS Class:\t{}\n", qos.unwrap_or_else(|| kubesim::api::pod::qos_class(&p["spec"]))));
    labels(w, "", "Node-Selectors", p.pointer("/spec/nodeSelector"));
    tolerations(w, "", items(p, "/spec/tolerations"));
    events(s, w, p, "", namespace);
}

/// A label selector as `LabelSelectorAsSelector(...).String()` prints it.
pub(super) fn selector_string(sel: &Value) -> String {
    let mut parts: Vec<(String, String)> =
        sorted(sel.get("matchLabels")).into_iter().map(|(k, v)| (k.clone(), format!("{k}={v}"))).collect();
    for e in items(sel, "/matchExpressions") {
        let key = text(e, "/key").to_string();
        let values: Vec<&str> = items(e, "/values").iter().filter_map(Value::as_str).collect();
        let p = match text(e, "/operator") {
            "In" => format!("{key} in ({})", values.join(",")),
            "NotIn" => format!("{key} notin ({})", values.join(",")),
            "Exists" => key.clone(),
            _ => format!("!{key}"),
        };
        parts.push((key, p));
    }
    parts.order_by(|a, b| a.0.cmp(&b.0));
    let joined: Vec<String> = parts.into_iter().map(|(_, p)| p).collect();
    if joined.is_empty() {
        "<none>".into()
    } else {
        joined.join(",")
    }
}

fn int_or_string(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.clone(),
        Some(n) if !n.is_null() => n.to_string(),
        _ => String::new(),
    }
}

/// `Controlled By:` when the object has a controlling owner (kubectl's
/// `printController`).
fn controlled_by(w: &mut TabWriter, o: &Value) {
    let owner = items(o, "/metadata/ownerReferences").iter().find(|r| r["controller"] == true);
    if let Some(owner) = owner {
        w.w(0, &format!("Controlled By:\t{}/{}\n", text(owner, "/kind"), text(owner, "/name")));
    }
}

/// A label map as `k=v` pairs by key (`<none>` when empty), as Go's
/// `labels.FormatLabels` writes it.
pub(super) fn format_labels(map: Option<&Value>) -> String {
    let pairs: Vec<String> = sorted(map).into_iter().map(|(k, v)| format!("{k}={v}")).collect();
    if pairs.is_empty() {
        "<none>".into()
    } else {
        pairs.join(",")
    }
}

/// A Deployment's or ReplicaSet's conditions (type, status, reason), when
/// it has any.
fn workload_conditions(w: &mut TabWriter, o: &Value) {
    let conditions = items(o, "/status/conditions");
    if !conditions.is_empty() {
        w.w(0, "Conditions:\n  Type\tStatus\tReason\n");
        w.w(1, "----\t------\t------\n");
        for c in conditions {
            w.w(1, &format!("{} \t{}\t{}\n", text(c, "/type"), text(c, "/status"), text(c, "/reason")));
        }
    }
}

/// `Pod Template:` as kubectl's `DescribePodTemplate` prints a workload's.
fn pod_template(w: &mut TabWriter, template: &Value) {
    w.w(0, "Pod Template:\n");
    labels(w, "  ", "Labels", template.pointer("/metadata/labels"));
    if template.pointer("/metadata/annotations").and_then(Value::as_object).is_some_and(|m| !m.is_empty()) {
        annotations(w, "  Annotations", template.pointer("/metadata/annotations"));
    }
    if !text(template, "/spec/serviceAccountName").is_empty() {
        w.w(1, &format!("Service Account:\t{}\n", text(template, "/spec/serviceAccountName")));
    }
    let init = items(template, "/spec/initContainers");
    if !init.is_empty() {
        containers(w, None, init, &[], "  ", "Init Containers");
    }
    containers(w, None, items(template, "/spec/containers"), &[], "  ", "Containers");
    volumes(w, items(template, "/spec/volumes"), "  ");
    if !text(template, "/spec/priorityClassName").is_empty() {
        w.w(1, &format!("Priority Class Name:\t{}\n", text(template, "/spec/priorityClassName")));
    }
    labels(w, "  ", "Node-Selectors", template.pointer("/spec/nodeSelector"));
    tolerations(w, "  ", items(template, "/spec/tolerations"));
}

fn deployment(s: &mut Session, w: &mut TabWriter, d: &Value, namespace: &str) {
    w.w(0, &format!("Name:\t{}\n", text(d, "/metadata/name")));
    w.w(0, &format!("Namespace:\t{}\n", text(d, "/metadata/namespace")));
    w.w(0, &format!("CreationTimestamp:\t{}\n", rfc1123z(d, "/metadata/creationTimestamp")));
    labels(w, "", "Labels", d.pointer("/metadata/labels"));
    annotations(w, "Annotations", d.pointer("/metadata/annotations"));
    let selector = selector_string(d.pointer("/spec/selector").unwrap_or(&Value::Null));
    w.w(0, &format!("Selector:\t{selector}\n"));
    w.w(
        0,
        &format!(
            "Replicas:\t{} desired | {} updated | {} total | {} available | {} unavailable\n",
            int(d, "/spec/replicas"),
            int(d, "/status/updatedReplicas"),
            int(d, "/status/replicas"),
            int(d, "/status/availableReplicas"),
            int(d, "/status/unavailableReplicas")
        ),
    );
    w.w(0, &format!("StrategyType:\t{}\n", text(d, "/spec/strategy/type")));
    w.w(0, &format!("MinReadySeconds:\t{}\n", int(d, "/spec/minReadySeconds")));
    if let Some(ru) = d.pointer("/spec/strategy/rollingUpdate") {
        w.w(
            0,
            &format!(
                "RollingUpdateStrategy:\t{} max unavailable, {} max surge\n",
                int_or_string(ru.get("maxUnavailable")),
                int_or_string(ru.get("maxSurge"))
            ),
        );
    }
    pod_template(w, d.pointer("/spec/template").unwrap_or(&Value::Null));
    workload_conditions(w, d);
    // Its ReplicaSets: those it controls among the ones its selector
    // matches; the new one carries its revision.
    let path = format!(
        "/apis/apps/v1/namespaces/{namespace}/replicasets?labelSelector={}&limit=500",
        encode_component(&selector)
    );
    let e = send(s, "GET", &path, None, None, "application/json");
    let list = body_json(&e.response);
    let uid = text(d, "/metadata/uid");
    let revision = text(d, "/metadata/annotations/deployment.kubernetes.io~1revision");
    let owned: Vec<&Value> = items(&list, "/items")
        .iter()
        .filter(|rs| items(rs, "/metadata/ownerReferences").iter().any(|o| text(o, "/uid") == uid))
        .collect();
    if !owned.is_empty() {
        let show = |new: bool| -> String {
            let names: Vec<String> = owned
                .iter()
                .filter(|rs| (text(rs, "/metadata/annotations/deployment.kubernetes.io~1revision") == revision) == new)
                .map(|rs| {
                    format!(
                        "{} ({}/{} replicas created)",
                        text(rs, "/metadata/name"),
                        int(rs, "/status/replicas"),
                        int(rs, "/spec/replicas")
                    )
                })
                .collect();
            if names.is_empty() {
                "<none>".into()
            } else {
                names.join(", ")
            }
        };
        w.w(0, &format!("OldReplicaSets:\t{}\n", show(false)));
        w.w(0, &format!("NewReplicaSet:\t{}\n", show(true)));
    }
    events(s, w, d, "Deployment", namespace);
}

/// The bytes a base64 string decodes to.
fn decoded_len(b: &str) -> usize {
    (b.len() / 4 * 3).saturating_sub(b.chars().rev().take_while(|c| *c == '=').count())
}

/// A Secret as kubectl's describer prints it: its keys (sorted) with their
/// sizes, a service account token's `token` in full; no events.
fn secret(_: &mut Session, w: &mut TabWriter, sec: &Value, _: &str) {
    w.w(0, &format!("Name:\t{}\n", text(sec, "/metadata/name")));
    w.w(0, &format!("Namespace:\t{}\n", text(sec, "/metadata/namespace")));
    labels(w, "", "Labels", sec.pointer("/metadata/labels"));
    annotations(w, "Annotations", sec.pointer("/metadata/annotations"));
    let kind = text(sec, "/type");
    w.w(0, &format!("\nType:\t{kind}\n"));
    w.w(0, "\nData\n====\n");
    let data: Map<String, Value> = sec.get("data").and_then(Value::as_object).cloned().unwrap_or_default();
    let mut keys: Vec<&String> = data.keys().collect();
    keys.order();
    for k in keys {
        let b64 = data[k].as_str().unwrap_or("");
        if k == "token" && kind == "kubernetes.io/service-account-token" {
            use base64::Engine;
            let token = base64::engine::general_purpose::STANDARD.decode(b64).unwrap_or_default();
            w.w(0, &format!("{k}:\t{}\n", String::from_utf8_lossy(&token)));
        } else {
            w.w(0, &format!("{k}:\t{} bytes\n", decoded_len(b64)));
        }
    }
}

fn config_map(s: &mut Session, w: &mut TabWriter, c: &Value, namespace: &str) {
    w.w(0, &format!("Name:\t{}\n", text(c, "/metadata/name")));
    w.w(0, &format!("Namespace:\t{}\n", text(c, "/metadata/namespace")));
    labels(w, "", "Labels", c.pointer("/metadata/labels"));
    annotations(w, "Annotations", c.pointer("/metadata/annotations"));
    w.w(0, "\nData\n====\n");
    // Go prints a map in no particular order; sorted here, so it is stable.
    for (k, v) in sorted(c.get("data")) {
        w.w(0, &format!("{k}:\n----\n{v}\n\n"));
    }
    w.w(0, "\nBinaryData\n====\n");
    let binary: Map<String, Value> = c.get("binaryData").and_then(Value::as_object).cloned().unwrap_or_default();
    let mut keys: Vec<&String> = binary.keys().collect();
    keys.order();
    for k in keys {
        let len = binary[k].as_str().map_or(0, decoded_len);
        w.w(0, &format!("{k}: {len} bytes\n"));
    }
    w.w(0, "\n");
    events(s, w, c, "ConfigMap", namespace);
}

/// What kubectl says of each quota scope it explains.
fn scope_help(scope: &str) -> Option<&'static str> {
    Some(match scope {
        "Terminating" => "Matches all pods that have an active deadline. These pods have a limited lifespan on a node before being actively terminated by the system.",
        "NotTerminating" => "Matches all pods that do not have an active deadline. These pods usually include long running pods whose container command is not expected to terminate.",
        "BestEffort" => "Matches all pods that do not have resource requirements set. These pods have a best effort quality of service.",
        "NotBestEffort" => "Matches all pods that have at least one resource requirement set. These pods have a burstable or guaranteed quality of service.",
        _ => return None,
    })
}

/// A quota's scopes, sorted, each followed by its help line (after
/// `bullet`), at an indentation level.
fn quota_scopes(w: &mut TabWriter, q: &Value, level: usize, bullet: &str) {
    let mut scopes: Vec<&str> = items(q, "/spec/scopes").iter().filter_map(Value::as_str).collect();
    if scopes.is_empty() {
        return;
    }
    scopes.order();
    w.w(level, &format!("Scopes:\t{}\n", scopes.join(", ")));
    for help in scopes.iter().filter_map(|s| scope_help(s)) {
        w.w(level, &format!("{bullet}{help}\n"));
    }
}

fn quota(_: &mut Session, w: &mut TabWriter, q: &Value, _: &str) {
    use kubesim::api::quantity::Quantity;
    w.w(0, &format!("Name:\t{}\n", text(q, "/metadata/name")));
    w.w(0, &format!("Namespace:\t{}\n", text(q, "/metadata/namespace")));
    quota_scopes(w, q, 0, " * ");
    w.w(0, "Resource\tUsed\tHard\n");
    w.w(0, "--------\t----\t----\n");
    let amount = |pointer: &str, k: &str| {
        q.pointer(pointer)
            .and_then(|m| m.get(k))
            .and_then(Value::as_str)
            .and_then(Quantity::parse)
            .unwrap_or(Quantity::ZERO)
    };
    for (k, _) in sorted(q.pointer("/status/hard")) {
        let hard = amount("/status/hard", k);
        let mut used = amount("/status/used", k);
        // Shown in the hard amount's format, as a whole number then.
        if used.format != hard.format {
            used = Quantity { milli: (used.milli + 999).div_euclid(1000) * 1000, format: hard.format };
        }
        w.w(0, &format!("{k}\t{used}\t{hard}\n"));
    }
}

/// A namespace's objects of a core/v1 resource, as one list request
/// (kubectl asks for 500 at a time; the page's lists are smaller).
fn listed(s: &mut Session, namespace: &str, resource: &str) -> Vec<Value> {
    let e =
        send(s, "GET", &format!("/api/v1/namespaces/{namespace}/{resource}?limit=500"), None, None, "application/json");
    let mut list = body_json(&e.response)["items"].as_array().cloned().unwrap_or_default();
    list.order_by_key(|o| text(o, "/metadata/name").to_string());
    list
}

/// A LimitRange's items as kubectl's table rows, each resource of an item
/// once, with `-` where the item sets nothing (kubectl walks a Go map, in
/// no order; here by name).
fn limit_rows(w: &mut TabWriter, lr: &Value, prefix: &str) {
    const COLUMNS: [&str; 5] = ["min", "max", "defaultRequest", "default", "maxLimitRequestRatio"];
    for item in items(lr, "/spec/limits") {
        let mut names: Vec<&String> =
            COLUMNS.iter().filter_map(|c| item.get(*c).and_then(Value::as_object)).flat_map(|m| m.keys()).collect();
        names.order();
        names.dedup();
        for k in names {
            let cell = |c: &str| {
                let q = item.get(c).and_then(|m| m.get(k.as_str())).and_then(Value::as_str);
                q.map_or("-".to_string(), |q| {
                    kubesim::api::quantity::canonical(q).map_or_else(|_| q.into(), |c| c.into())
                })
            };
            let [min, max, request, limit, ratio] = COLUMNS.map(cell);
            let kind = text(item, "/type");
            w.w(0, &format!("{prefix}{kind}\t{k}\t{min}\t{max}\t{request}\t{limit}\t{ratio}\n"));
        }
    }
}

fn limit_range(_: &mut Session, w: &mut TabWriter, lr: &Value, _: &str) {
    w.w(0, &format!("Name:\t{}\n", text(lr, "/metadata/name")));
    w.w(0, &format!("Namespace:\t{}\n", text(lr, "/metadata/namespace")));
    w.w(0, "Type\tResource\tMin\tMax\tDefault Request\tDefault Limit\tMax Limit/Request Ratio\n");
    w.w(0, "----\t--------\t---\t---\t---------------\t-------------\t-----------------------\n");
    limit_rows(w, lr, "");
}

/// `describe serviceaccount`: the account, its image pull secrets, the
/// secrets it lists and the legacy token Secrets made for it (found in a
/// list of the namespace's secrets, as kubectl finds them; a listed one
/// that does not exist is `(not found)`), then its events.
fn service_account(s: &mut Session, w: &mut TabWriter, sa: &Value, namespace: &str) {
    w.w(0, &format!("Name:\t{}\n", text(sa, "/metadata/name")));
    w.w(0, &format!("Namespace:\t{}\n", text(sa, "/metadata/namespace")));
    labels(w, "", "Labels", sa.pointer("/metadata/labels"));
    annotations(w, "Annotations", sa.pointer("/metadata/annotations"));
    let secrets = listed(s, namespace, "secrets");
    let exists = |name: &str| secrets.iter().any(|x| text(x, "/metadata/name") == name);
    let names =
        |pointer: &str| -> Vec<String> { items(sa, pointer).iter().map(|r| text(r, "/name").to_string()).collect() };
    let (uid, name) = (text(sa, "/metadata/uid"), text(sa, "/metadata/name"));
    let tokens: Vec<String> = secrets
        .iter()
        .filter(|x| {
            text(x, "/type") == "kubernetes.io/service-account-token"
                && text(x, "/metadata/annotations/kubernetes.io~1service-account.name") == name
                && text(x, "/metadata/annotations/kubernetes.io~1service-account.uid") == uid
        })
        .map(|x| text(x, "/metadata/name").to_string())
        .collect();
    // (kubectl prints the three in its headers' sorted order.)
    for (header, list, checked) in [
        ("Image pull secrets:", names("/imagePullSecrets"), true),
        ("Mountable secrets: ", names("/secrets"), true),
        ("Tokens:            ", tokens, false),
    ] {
        if list.is_empty() {
            w.w(0, &format!("{header}\t<none>\n"));
        }
        for (i, n) in list.iter().enumerate() {
            let header = if i == 0 { header } else { "                   " };
            let missing = if checked && !exists(n) { " (not found)" } else { "" };
            w.w(0, &format!("{header}\t{n}{missing}\n"));
        }
    }
    events(s, w, sa, "ServiceAccount", namespace);
}

/// `describe namespace`: the namespace, then its quotas and limit ranges
/// (one list request each), as kubectl's namespace describer prints them.
fn a_namespace(s: &mut Session, w: &mut TabWriter, n: &Value, _: &str) {
    let name = text(n, "/metadata/name").to_string();
    w.w(0, &format!("Name:\t{name}\n"));
    labels(w, "", "Labels", n.pointer("/metadata/labels"));
    annotations(w, "Annotations", n.pointer("/metadata/annotations"));
    w.w(0, &format!("Status:\t{}\n", text(n, "/status/phase")));
    let conditions = items(n, "/status/conditions");
    if !conditions.is_empty() {
        w.w(0, "Conditions:\n");
        w.w(1, "Type\tStatus\tLastTransitionTime\tReason\tMessage\n");
        w.w(1, "----\t------\t------------------\t------\t-------\n");
        for c in conditions {
            let t = rfc1123z(c, "/lastTransitionTime");
            let [ty, status, reason, message] = ["/type", "/status", "/reason", "/message"].map(|p| text(c, p));
            w.w(1, &format!("{ty}\t{status}\t{t}\t{reason}\t{message}\n"));
        }
    }
    let quotas = listed(s, &name, "resourcequotas");
    w.w(0, "\n");
    if quotas.is_empty() {
        w.w(0, "No resource quota.\n");
    } else {
        w.w(0, "Resource Quotas\n");
    }
    let stored = |q: &Value, pointer: &str, k: &str| {
        let v = q.pointer(pointer).and_then(|m| m.get(k)).and_then(Value::as_str).unwrap_or("0");
        kubesim::api::quantity::canonical(v).map_or_else(|_| v.to_string(), |c| c.into_owned())
    };
    for q in &quotas {
        w.w(1, &format!("Name:\t{}\n", text(q, "/metadata/name")));
        quota_scopes(w, q, 1, "* ");
        w.w(1, "Resource\tUsed\tHard\n");
        w.w(1, "--------\t---\t---\n");
        for (k, _) in sorted(q.pointer("/status/hard")) {
            let (used, hard) = (stored(q, "/status/used", k), stored(q, "/status/hard", k));
            w.w(1, &format!("{k}\t{used}\t{hard}\n"));
        }
    }
    let limits = listed(s, &name, "limitranges");
    w.w(0, "\n");
    if limits.is_empty() {
        w.w(0, "No LimitRange resource.\n");
        return;
    }
    w.w(0, "Resource Limits\n Type\tResource\tMin\tMax\tDefault Request\tDefault Limit\tMax Limit/Request Ratio\n");
    w.w(0, " ----\t--------\t---\t---\t---------------\t-------------\t-----------------------\n");
    for lr in &limits {
        limit_rows(w, lr, " ");
    }
}

/// `kubectl describe TYPE NAME...` (or `TYPE/NAME`), or `TYPE [-l
/// SELECTOR]`: every object of the type the selector picks, listed first
/// (in chunks of 500, as kubectl's builder lists).
pub(super) fn describe(s: &mut Session, d: &Discovery, cmd: &Command, out: &mut Outcome) {
    // (type, name); no name: the type's objects.
    let mut targets: Vec<(String, Option<String>)> = Vec::new();
    for t in &cmd.types {
        match t.split_once('/') {
            Some((ty, name)) => targets.push((ty.to_string(), Some(name.to_string()))),
            None if cmd.names.is_empty() => targets.push((t.clone(), None)),
            None => targets.extend(cmd.names.iter().map(|n| (t.clone(), Some(n.clone())))),
        }
    }
    let namespace = namespace_of(cmd).unwrap_or_else(|| cmd.context_namespace.clone());
    let mut listed = Vec::new();
    for (ty, name) in targets {
        match name {
            Some(name) => listed.push((ty, name, true)),
            None => {
                let Some(r) = resolve(d, &ty, out) else { return };
                let pairs = [
                    ("labelSelector".to_string(), cmd.selector.clone().unwrap_or_default()),
                    ("limit".to_string(), "500".to_string()),
                ];
                let path = format!("{}?{}", r.collection(Some(&namespace)), build_query(&pairs));
                let e = send(s, "GET", &path, None, None, "application/json");
                if e.response.status != 200 {
                    return out.error(server_error(&e));
                }
                let items = body_json(&e.response)["items"].as_array().cloned().unwrap_or_default();
                if items.is_empty() {
                    out.line(format!("No resources found in {namespace} namespace."));
                }
                listed.extend(items.iter().map(|i| (ty.clone(), text(i, "/metadata/name").to_string(), false)));
            }
        }
    }
    let mut first = true;
    for (ty, name, named) in listed {
        let Some(r) = resolve(d, &ty, out) else { return };
        let describer: fn(&mut Session, &mut TabWriter, &Value, &str) = match (r.group.as_str(), r.resource.as_str()) {
            ("", "pods") => pod,
            ("apps", "deployments") => deployment,
            ("", "replicationcontrollers") => workloads::replication_controller,
            ("apps", "replicasets") => workloads::replica_set,
            ("apps", "daemonsets") => workloads::daemon_set,
            ("apps", "statefulsets") => workloads::stateful_set,
            ("batch", "jobs") => workloads::job,
            ("batch", "cronjobs") => workloads::cron_job,
            ("", "configmaps") => config_map,
            ("", "secrets") => secret,
            ("", "persistentvolumeclaims") => workloads::claim,
            ("", "persistentvolumes") => volumes::volume,
            ("storage.k8s.io", "storageclasses") => volumes::storage_class,
            ("", "resourcequotas") => quota,
            ("", "namespaces") => a_namespace,
            ("", "limitranges") => limit_range,
            ("", "serviceaccounts") => service_account,
            ("", "services") => service::service,
            ("", "endpoints") => network::endpoints,
            ("discovery.k8s.io", "endpointslices") => network::endpoint_slice,
            ("networking.k8s.io", "ingresses") => network::ingress,
            ("networking.k8s.io", "ingressclasses") => network::ingress_class,
            ("scheduling.k8s.io", "priorityclasses") => policy::priority_class,
            ("policy", "poddisruptionbudgets") => policy::disruption_budget,
            ("autoscaling", "horizontalpodautoscalers") => policy::autoscaler,
            ("", "nodes") => node::node,
            ("rbac.authorization.k8s.io", "roles" | "clusterroles") => rbac::role,
            ("rbac.authorization.k8s.io", "rolebindings" | "clusterrolebindings") => rbac::binding,
            // Any other kind, as kubectl's generic describer.
            _ => generic::generic,
        };
        let path = r.item(Some(&namespace), &name);
        // The resource builder reads a named object, then the describer again.
        if named {
            let e = send(s, "GET", &path, None, None, "application/json");
            if e.response.status != 200 {
                out.error(server_error(&e));
                continue;
            }
        }
        let e = send(s, "GET", &path, None, None, "application/json");
        let obj = body_json(&e.response);
        let mut w = TabWriter::default();
        describer(s, &mut w, &obj, &namespace);
        if !first {
            out.text.push_str("\n\n");
        }
        first = false;
        out.text.push_str(&w.finish());
    }
}

#[cfg(test)]
mod tests;
