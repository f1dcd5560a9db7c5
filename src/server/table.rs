//! Server-side printing: `as=Table` responses. Each built-in kind with a
//! printer in kube-apiserver has one here, with the same columns (name,
//! type, format, priority, description) and cell values; other kinds get the
//! default table (Name, Created At). Descriptions come from the schema's
//! field documentation, which only the native build carries; the browser
//! build's columns have empty descriptions.

use serde_json::{json, Map, Value};

use crate::clock::{human_duration, parse_rfc3339, SimTime};

/// Where a column's description comes from.
#[derive(Clone, Copy)]
enum Desc {
    /// A field's documentation in the schema: (definition, property).
    Field(&'static str, &'static str),
    Text(&'static str),
}

#[derive(Clone, Copy)]
struct Col {
    name: &'static str,
    ty: &'static str,
    format: &'static str,
    priority: i32,
    desc: Desc,
}

const META: &str = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";

const fn col(name: &'static str, ty: &'static str, desc: Desc) -> Col {
    Col { name, ty, format: "", priority: 0, desc }
}

const fn wide(name: &'static str, ty: &'static str, desc: Desc) -> Col {
    Col { name, ty, format: "", priority: 1, desc }
}

const NAME: Col = Col { name: "Name", ty: "string", format: "name", priority: 0, desc: Desc::Field(META, "name") };
const AGE: Col = col("Age", "string", Desc::Field(META, "creationTimestamp"));
const CONTAINERS: Col = wide("Containers", "string", Desc::Text("Names of each container in the template."));
const IMAGES: Col = wide("Images", "string", Desc::Text("Images referenced by each container in the template."));

type Cells = fn(&Value, SimTime) -> Vec<Value>;

struct Printer {
    kind: &'static str,
    group: &'static str,
    columns: &'static [Col],
    cells: Cells,
}

static PRINTERS: &[Printer] = &[
    Printer {
        kind: "Pod",
        group: "",
        columns: &[
            NAME,
            col("Ready", "string", Desc::Text("The aggregate readiness state of this pod for accepting traffic.")),
            col("Status", "string", Desc::Text("The aggregate status of the containers in this pod.")),
            col("Restarts", "string", Desc::Text("The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.")),
            AGE,
            wide("IP", "string", Desc::Field("io.k8s.api.core.v1.PodStatus", "podIP")),
            wide("Node", "string", Desc::Field("io.k8s.api.core.v1.PodSpec", "nodeName")),
            wide("Nominated Node", "string", Desc::Field("io.k8s.api.core.v1.PodStatus", "nominatedNodeName")),
            wide("Readiness Gates", "string", Desc::Field("io.k8s.api.core.v1.PodSpec", "readinessGates")),
        ],
        cells: pod_cells,
    },
    Printer {
        kind: "Namespace",
        group: "",
        columns: &[NAME, col("Status", "string", Desc::Text("The status of the namespace")), AGE],
        cells: |o, now| vec![name(o), s(o, "/status/phase").into(), age(o, now)],
    },
    Printer {
        kind: "Service",
        group: "",
        columns: &[
            NAME,
            col("Type", "string", Desc::Field("io.k8s.api.core.v1.ServiceSpec", "type")),
            col("Cluster-IP", "string", Desc::Field("io.k8s.api.core.v1.ServiceSpec", "clusterIP")),
            col("External-IP", "string", Desc::Field("io.k8s.api.core.v1.ServiceSpec", "externalIPs")),
            col("Port(s)", "string", Desc::Field("io.k8s.api.core.v1.ServiceSpec", "ports")),
            AGE,
            wide("Selector", "string", Desc::Field("io.k8s.api.core.v1.ServiceSpec", "selector")),
        ],
        cells: service_cells,
    },
    Printer {
        kind: "ConfigMap",
        group: "",
        columns: &[NAME, col("Data", "string", Desc::Field("io.k8s.api.core.v1.ConfigMap", "data")), AGE],
        cells: |o, now| vec![name(o), json!(len(o, "/data") + len(o, "/binaryData")), age(o, now)],
    },
    Printer {
        kind: "Secret",
        group: "",
        columns: &[
            NAME,
            col("Type", "string", Desc::Field("io.k8s.api.core.v1.Secret", "type")),
            col("Data", "string", Desc::Field("io.k8s.api.core.v1.Secret", "data")),
            AGE,
        ],
        cells: |o, now| vec![name(o), s(o, "/type").into(), json!(len(o, "/data")), age(o, now)],
    },
    Printer {
        kind: "ServiceAccount",
        group: "",
        columns: &[NAME, col("Secrets", "string", Desc::Field("io.k8s.api.core.v1.ServiceAccount", "secrets")), AGE],
        cells: |o, now| vec![name(o), json!(len(o, "/secrets")), age(o, now)],
    },
    Printer {
        kind: "Node",
        group: "",
        columns: &[
            NAME,
            col("Status", "string", Desc::Text("The status of the node")),
            col("Roles", "string", Desc::Text("The roles of the node")),
            AGE,
            col("Version", "string", Desc::Field("io.k8s.api.core.v1.NodeSystemInfo", "kubeletVersion")),
            wide("Internal-IP", "string", Desc::Field("io.k8s.api.core.v1.NodeStatus", "addresses")),
            wide("External-IP", "string", Desc::Field("io.k8s.api.core.v1.NodeStatus", "addresses")),
            wide("OS-Image", "string", Desc::Field("io.k8s.api.core.v1.NodeSystemInfo", "osImage")),
            wide("Kernel-Version", "string", Desc::Field("io.k8s.api.core.v1.NodeSystemInfo", "kernelVersion")),
            wide("Container-Runtime", "string", Desc::Field("io.k8s.api.core.v1.NodeSystemInfo", "containerRuntimeVersion")),
        ],
        cells: node_cells,
    },
    Printer {
        kind: "Event",
        group: "",
        columns: &[
            col("Last Seen", "string", Desc::Field("io.k8s.api.core.v1.Event", "lastTimestamp")),
            col("Type", "string", Desc::Field("io.k8s.api.core.v1.Event", "type")),
            col("Reason", "string", Desc::Field("io.k8s.api.core.v1.Event", "reason")),
            col("Object", "string", Desc::Field("io.k8s.api.core.v1.Event", "involvedObject")),
            wide("Subobject", "string", Desc::Field("io.k8s.api.core.v1.ObjectReference", "fieldPath")),
            wide("Source", "string", Desc::Field("io.k8s.api.core.v1.Event", "source")),
            col("Message", "string", Desc::Field("io.k8s.api.core.v1.Event", "message")),
            wide("First Seen", "string", Desc::Field("io.k8s.api.core.v1.Event", "firstTimestamp")),
            wide("Count", "string", Desc::Field("io.k8s.api.core.v1.Event", "count")),
            Col { priority: 1, ..NAME },
        ],
        cells: event_cells,
    },
    Printer {
        kind: "Endpoints",
        group: "",
        columns: &[NAME, col("Endpoints", "string", Desc::Field("io.k8s.api.core.v1.Endpoints", "subsets")), AGE],
        cells: |o, now| vec![name(o), endpoints(o).into(), age(o, now)],
    },
    Printer {
        kind: "PersistentVolume",
        group: "",
        columns: &[
            NAME,
            col("Capacity", "string", Desc::Field("io.k8s.api.core.v1.PersistentVolumeSpec", "capacity")),
            col("Access Modes", "string", Desc::Field("io.k8s.api.core.v1.PersistentVolumeSpec", "accessModes")),
            col("Reclaim Policy", "string", Desc::Field("io.k8s.api.core.v1.PersistentVolumeSpec", "persistentVolumeReclaimPolicy")),
            col("Status", "string", Desc::Field("io.k8s.api.core.v1.PersistentVolumeStatus", "phase")),
            col("Claim", "string", Desc::Field("io.k8s.api.core.v1.PersistentVolumeSpec", "claimRef")),
            col("StorageClass", "string", Desc::Text("StorageClass of the pv")),
            col("VolumeAttributesClass", "string", Desc::Text("VolumeAttributesClass of the pv")),
            col("Reason", "string", Desc::Field("io.k8s.api.core.v1.PersistentVolumeStatus", "reason")),
            AGE,
            wide("VolumeMode", "string", Desc::Field("io.k8s.api.core.v1.PersistentVolumeSpec", "volumeMode")),
        ],
        cells: pv_cells,
    },
    Printer {
        kind: "PersistentVolumeClaim",
        group: "",
        columns: &[
            NAME,
            col("Status", "string", Desc::Field("io.k8s.api.core.v1.PersistentVolumeClaimStatus", "phase")),
            col("Volume", "string", Desc::Field("io.k8s.api.core.v1.PersistentVolumeClaimSpec", "volumeName")),
            col("Capacity", "string", Desc::Field("io.k8s.api.core.v1.PersistentVolumeClaimStatus", "capacity")),
            col("Access Modes", "string", Desc::Field("io.k8s.api.core.v1.PersistentVolumeClaimStatus", "accessModes")),
            col("StorageClass", "string", Desc::Text("StorageClass of the pvc")),
            col("VolumeAttributesClass", "string", Desc::Text("VolumeAttributesClass of the pvc")),
            AGE,
            wide("VolumeMode", "string", Desc::Field("io.k8s.api.core.v1.PersistentVolumeClaimSpec", "volumeMode")),
        ],
        cells: pvc_cells,
    },
    Printer {
        kind: "Deployment",
        group: "apps",
        columns: &[
            NAME,
            col("Ready", "string", Desc::Text("Number of the pod with ready state")),
            col("Up-to-date", "string", Desc::Field("io.k8s.api.apps.v1.DeploymentStatus", "updatedReplicas")),
            col("Available", "string", Desc::Field("io.k8s.api.apps.v1.DeploymentStatus", "availableReplicas")),
            AGE,
            CONTAINERS,
            IMAGES,
            wide("Selector", "string", Desc::Field("io.k8s.api.apps.v1.DeploymentSpec", "selector")),
        ],
        cells: |o, now| {
            let mut c = vec![
                name(o),
                format!("{}/{}", i(o, "/status/readyReplicas"), i(o, "/spec/replicas")).into(),
                json!(i(o, "/status/updatedReplicas")),
                json!(i(o, "/status/availableReplicas")),
                age(o, now),
            ];
            c.extend(template(o, "/spec/template/spec", "/spec/selector"));
            c
        },
    },
    Printer {
        kind: "ReplicaSet",
        group: "apps",
        columns: &[
            NAME,
            col("Desired", "integer", Desc::Field("io.k8s.api.apps.v1.ReplicaSetSpec", "replicas")),
            col("Current", "integer", Desc::Field("io.k8s.api.apps.v1.ReplicaSetStatus", "replicas")),
            col("Ready", "integer", Desc::Field("io.k8s.api.apps.v1.ReplicaSetStatus", "readyReplicas")),
            AGE,
            CONTAINERS,
            IMAGES,
            wide("Selector", "string", Desc::Field("io.k8s.api.apps.v1.ReplicaSetSpec", "selector")),
        ],
        cells: |o, now| {
            let mut c = vec![
                name(o),
                json!(i(o, "/spec/replicas")),
                json!(i(o, "/status/replicas")),
                json!(i(o, "/status/readyReplicas")),
                age(o, now),
            ];
            c.extend(template(o, "/spec/template/spec", "/spec/selector"));
            c
        },
    },
    Printer {
        kind: "StatefulSet",
        group: "apps",
        columns: &[NAME, col("Ready", "string", Desc::Text("Number of the pod with ready state")), AGE, CONTAINERS, IMAGES],
        cells: |o, now| {
            let mut c = vec![
                name(o),
                format!("{}/{}", i(o, "/status/readyReplicas"), i(o, "/spec/replicas")).into(),
                age(o, now),
            ];
            c.extend(template(o, "/spec/template/spec", "").into_iter().take(2));
            c
        },
    },
    Printer {
        kind: "DaemonSet",
        group: "apps",
        columns: &[
            NAME,
            col("Desired", "integer", Desc::Field("io.k8s.api.apps.v1.DaemonSetStatus", "desiredNumberScheduled")),
            col("Current", "integer", Desc::Field("io.k8s.api.apps.v1.DaemonSetStatus", "currentNumberScheduled")),
            col("Ready", "integer", Desc::Field("io.k8s.api.apps.v1.DaemonSetStatus", "numberReady")),
            col("Up-to-date", "integer", Desc::Field("io.k8s.api.apps.v1.DaemonSetStatus", "updatedNumberScheduled")),
            col("Available", "integer", Desc::Field("io.k8s.api.apps.v1.DaemonSetStatus", "numberAvailable")),
            col("Node Selector", "string", Desc::Field("io.k8s.api.core.v1.PodSpec", "nodeSelector")),
            AGE,
            CONTAINERS,
            IMAGES,
            wide("Selector", "string", Desc::Field("io.k8s.api.apps.v1.DaemonSetSpec", "selector")),
        ],
        cells: |o, now| {
            let mut c = vec![
                name(o),
                json!(i(o, "/status/desiredNumberScheduled")),
                json!(i(o, "/status/currentNumberScheduled")),
                json!(i(o, "/status/numberReady")),
                json!(i(o, "/status/updatedNumberScheduled")),
                json!(i(o, "/status/numberAvailable")),
                labels(o.pointer("/spec/template/spec/nodeSelector")).into(),
                age(o, now),
            ];
            c.extend(template(o, "/spec/template/spec", "/spec/selector"));
            c
        },
    },
    Printer {
        kind: "Job",
        group: "batch",
        columns: &[
            NAME,
            col("Status", "string", Desc::Text("Status of the job.")),
            col("Completions", "string", Desc::Field("io.k8s.api.batch.v1.JobStatus", "succeeded")),
            col("Duration", "string", Desc::Text("Time required to complete the job.")),
            AGE,
            CONTAINERS,
            IMAGES,
            wide("Selector", "string", Desc::Field("io.k8s.api.batch.v1.JobSpec", "selector")),
        ],
        cells: job_cells,
    },
    Printer {
        kind: "CronJob",
        group: "batch",
        columns: &[
            NAME,
            col("Schedule", "string", Desc::Field("io.k8s.api.batch.v1.CronJobSpec", "schedule")),
            col("Timezone", "string", Desc::Field("io.k8s.api.batch.v1.CronJobSpec", "timeZone")),
            col("Suspend", "boolean", Desc::Field("io.k8s.api.batch.v1.CronJobSpec", "suspend")),
            col("Active", "integer", Desc::Field("io.k8s.api.batch.v1.CronJobStatus", "active")),
            col("Last Schedule", "string", Desc::Field("io.k8s.api.batch.v1.CronJobStatus", "lastScheduleTime")),
            AGE,
            CONTAINERS,
            IMAGES,
            wide("Selector", "string", Desc::Field("io.k8s.api.batch.v1.JobSpec", "selector")),
        ],
        cells: |o, now| {
            let mut c = vec![
                name(o),
                s(o, "/spec/schedule").into(),
                or_none(s(o, "/spec/timeZone")).into(),
                // A string, as upstream's printBoolPtr writes it.
                match o.pointer("/spec/suspend").and_then(Value::as_bool) {
                    Some(true) => "True",
                    Some(false) => "False",
                    None => "<unset>",
                }
                .into(),
                json!(len(o, "/status/active")),
                since(o.pointer("/status/lastScheduleTime"), now, "<none>").into(),
                age(o, now),
            ];
            c.extend(template(o, "/spec/jobTemplate/spec/template/spec", "/spec/jobTemplate/spec/selector"));
            c
        },
    },
    Printer {
        kind: "Lease",
        group: "coordination.k8s.io",
        columns: &[NAME, col("Holder", "string", Desc::Field("io.k8s.api.coordination.v1.LeaseSpec", "holderIdentity")), AGE],
        cells: |o, now| vec![name(o), s(o, "/spec/holderIdentity").into(), age(o, now)],
    },
    Printer {
        kind: "RoleBinding",
        group: "rbac.authorization.k8s.io",
        columns: &[
            NAME,
            col("Role", "string", Desc::Field("io.k8s.api.rbac.v1.RoleBinding", "roleRef")),
            AGE,
            wide("Users", "string", Desc::Text("Users in the roleBinding")),
            wide("Groups", "string", Desc::Text("Groups in the roleBinding")),
            wide("ServiceAccounts", "string", Desc::Text("ServiceAccounts in the roleBinding")),
        ],
        cells: binding_cells,
    },
    Printer {
        kind: "ClusterRoleBinding",
        group: "rbac.authorization.k8s.io",
        columns: &[
            NAME,
            col("Role", "string", Desc::Field("io.k8s.api.rbac.v1.ClusterRoleBinding", "roleRef")),
            AGE,
            wide("Users", "string", Desc::Text("Users in the clusterRoleBinding")),
            wide("Groups", "string", Desc::Text("Groups in the clusterRoleBinding")),
            wide("ServiceAccounts", "string", Desc::Text("ServiceAccounts in the clusterRoleBinding")),
        ],
        cells: binding_cells,
    },
];

/// The columns every kind without a printer gets.
static DEFAULT_COLUMNS: &[Col] = &[
    NAME,
    Col { name: "Created At", ty: "date", format: "", priority: 0, desc: Desc::Field(META, "creationTimestamp") },
];

fn printer(group: &str, kind: &str) -> Option<&'static Printer> {
    PRINTERS.iter().find(|p| p.kind == kind && p.group == group)
}

fn description(d: Desc) -> String {
    match d {
        Desc::Text(t) => t.to_string(),
        Desc::Field(def, prop) => crate::schema::schemas()
            .definition(def)
            .and_then(|d| d.pointer(&format!("/properties/{prop}/description")))
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string(),
    }
}

/// The column definitions for a kind (by group and kind: a subresource's
/// kind, such as Scale, has the default ones), as `columnDefinitions`.
pub fn column_definitions(group: &str, kind: &str) -> Value {
    let cols = printer(group, kind).map(|p| p.columns).unwrap_or(DEFAULT_COLUMNS);
    Value::Array(
        cols.iter()
            .map(|c| {
                json!({
                    "name": c.name,
                    "type": c.ty,
                    "format": c.format,
                    "description": description(c.desc),
                    "priority": c.priority,
                })
            })
            .collect(),
    )
}

/// One row's cells (and, for finished pods, its conditions).
pub fn row(group: &str, kind: &str, obj: &Value, now: SimTime) -> Map<String, Value> {
    let mut row = Map::new();
    let cells = match printer(group, kind) {
        Some(p) => (p.cells)(obj, now),
        None => vec![name(obj), obj.pointer("/metadata/creationTimestamp").cloned().unwrap_or(Value::Null)],
    };
    row.insert("cells".into(), Value::Array(cells));
    if kind == "Pod" && group.is_empty() {
        let done = match s(obj, "/status/phase") {
            "Succeeded" => Some(("Succeeded", "The pod has completed successfully.")),
            "Failed" => Some(("Failed", "The pod failed.")),
            _ => None,
        };
        if let Some((reason, message)) = done {
            row.insert(
                "conditions".into(),
                json!([{"type": "Completed", "status": "True", "reason": reason, "message": message}]),
            );
        }
    }
    row
}

// ---- cell helpers -------------------------------------------------------

fn s<'a>(o: &'a Value, ptr: &str) -> &'a str {
    o.pointer(ptr).and_then(Value::as_str).unwrap_or("")
}

fn i(o: &Value, ptr: &str) -> i64 {
    o.pointer(ptr).and_then(Value::as_i64).unwrap_or(0)
}

fn arr<'a>(o: &'a Value, ptr: &str) -> &'a [Value] {
    o.pointer(ptr).and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[])
}

fn len(o: &Value, ptr: &str) -> usize {
    match o.pointer(ptr) {
        Some(Value::Object(m)) => m.len(),
        Some(Value::Array(a)) => a.len(),
        _ => 0,
    }
}

fn or_none(v: &str) -> &str {
    if v.is_empty() {
        "<none>"
    } else {
        v
    }
}

fn name(o: &Value) -> Value {
    s(o, "/metadata/name").into()
}

fn since(ts: Option<&Value>, now: SimTime, missing: &str) -> String {
    match ts.and_then(Value::as_str).and_then(parse_rfc3339) {
        Some(t) => human_duration(now.0 - t),
        None => missing.to_string(),
    }
}

fn age(o: &Value, now: SimTime) -> Value {
    since(o.pointer("/metadata/creationTimestamp"), now, "<unknown>").into()
}

/// `a=b,c=d` in key order, or `<none>`.
fn labels(m: Option<&Value>) -> String {
    let Some(Value::Object(m)) = m else { return "<none>".into() };
    if m.is_empty() {
        return "<none>".into();
    }
    let mut kv: Vec<String> = m.iter().map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or(""))).collect();
    kv.sort();
    kv.join(",")
}

/// A label selector as `kubectl` writes it: match labels, then expressions.
fn selector(sel: Option<&Value>) -> String {
    let Some(sel) = sel.filter(|v| v.is_object()) else { return "<none>".into() };
    // Requirements sorted by key (labels.Selector's String), values sorted.
    let mut parts: Vec<(String, String)> = Vec::new();
    if let Some(Value::Object(m)) = sel.get("matchLabels") {
        parts.extend(m.iter().map(|(k, v)| (k.clone(), format!("{k}={}", v.as_str().unwrap_or("")))));
    }
    for e in sel.get("matchExpressions").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]) {
        let key = e.get("key").and_then(Value::as_str).unwrap_or("");
        let mut values: Vec<&str> = e
            .get("values")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        values.sort_unstable();
        let text = match e.get("operator").and_then(Value::as_str).unwrap_or("") {
            "In" => format!("{key} in ({})", values.join(",")),
            "NotIn" => format!("{key} notin ({})", values.join(",")),
            "Exists" => key.to_string(),
            "DoesNotExist" => format!("!{key}"),
            op => format!("{key} {op} ({})", values.join(",")),
        };
        parts.push((key.to_string(), text));
    }
    parts.sort_by(|a, b| a.0.cmp(&b.0));
    if parts.is_empty() {
        "<none>".into()
    } else {
        parts.into_iter().map(|(_, t)| t).collect::<Vec<_>>().join(",")
    }
}

/// Containers, Images and (when `sel` is a path) Selector of a pod template.
fn template(o: &Value, spec: &str, sel: &str) -> Vec<Value> {
    let containers = arr(o, &format!("{spec}/containers"));
    let names: Vec<&str> = containers.iter().map(|c| s(c, "/name")).collect();
    let images: Vec<&str> = containers.iter().map(|c| s(c, "/image")).collect();
    let mut out = vec![Value::from(names.join(",")), Value::from(images.join(","))];
    if !sel.is_empty() {
        out.push(selector(o.pointer(sel)).into());
    }
    out
}

fn binding_cells(o: &Value, now: SimTime) -> Vec<Value> {
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

fn pod_cells(o: &Value, now: SimTime) -> Vec<Value> {
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

fn node_cells(o: &Value, now: SimTime) -> Vec<Value> {
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

fn event_cells(o: &Value, now: SimTime) -> Vec<Value> {
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

fn endpoints(o: &Value) -> String {
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

fn access_modes(modes: &[Value]) -> String {
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

fn pv_cells(o: &Value, now: SimTime) -> Vec<Value> {
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
fn storage_class(o: &Value) -> &str {
    match o.pointer("/metadata/annotations/volume.beta.kubernetes.io~1storage-class").and_then(Value::as_str) {
        Some(c) => c,
        None => s(o, "/spec/storageClassName"),
    }
}

fn unset(v: &str) -> &str {
    if v.is_empty() {
        "<unset>"
    } else {
        v
    }
}

fn pvc_cells(o: &Value, now: SimTime) -> Vec<Value> {
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

fn job_cells(o: &Value, now: SimTime) -> Vec<Value> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::{kinds, ResourceType};

    fn rt(kind: &str) -> &'static ResourceType {
        kinds::BUILTIN.iter().find(|r| r.kind == kind).unwrap()
    }

    #[test]
    fn every_printer_has_as_many_cells_as_columns() {
        let empty = json!({"metadata": {"name": "x", "creationTimestamp": "2023-11-14T22:13:20Z"}});
        for p in PRINTERS {
            assert_eq!((p.cells)(&empty, SimTime(1_700_000_000_000)).len(), p.columns.len(), "{}", p.kind);
            assert!(kinds::BUILTIN.iter().any(|r| r.kind == p.kind && r.group == p.group), "{}", p.kind);
        }
    }

    #[test]
    fn pods_read_as_kubectl_shows_them() {
        let pod = json!({
            "metadata": {"name": "web", "creationTimestamp": "2023-11-14T22:13:20Z"},
            "spec": {"containers": [{"name": "a"}, {"name": "b"}], "nodeName": "node-1"},
            "status": {"phase": "Running", "podIP": "10.0.0.7", "podIPs": [{"ip": "10.0.0.7"}], "containerStatuses": [
                {"name": "a", "ready": true, "restartCount": 1, "state": {"running": {}}},
                {"name": "b", "ready": false, "restartCount": 2, "state": {"waiting": {"reason": "CrashLoopBackOff"}}}
            ]}
        });
        let cells = pod_cells(&pod, SimTime(1_700_000_000_000 + 150_000));
        assert_eq!(
            cells,
            vec![
                json!("web"),
                json!("1/2"),
                json!("CrashLoopBackOff"),
                json!("3"),
                json!("2m30s"),
                json!("10.0.0.7"),
                json!("node-1"),
                json!("<none>"),
                json!("<none>")
            ]
        );
        let pending =
            json!({"metadata": {"name": "p"}, "spec": {"containers": [{"name": "a"}]}, "status": {"phase": "Pending"}});
        assert_eq!(pod_cells(&pending, SimTime(0))[1..4], [json!("0/1"), json!("Pending"), json!("0")]);
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
    fn kinds_without_a_printer_get_name_and_created_at() {
        let role = rt("Role");
        let cols = column_definitions(role.group, role.kind);
        assert_eq!(cols[1]["name"], "Created At");
        assert_eq!(cols[1]["type"], "date");
        assert_eq!(column_definitions("autoscaling", "Scale"), cols, "a subresource's kind");
        let obj = json!({"metadata": {"name": "r", "creationTimestamp": "2023-11-14T22:13:20Z"}});
        let r = row(role.group, role.kind, &obj, SimTime(0));
        assert_eq!(r["cells"], json!(["r", "2023-11-14T22:13:20Z"]));
    }

    #[test]
    fn events_of_either_api_print_their_times_counts_and_sources() {
        let now = SimTime(1_700_000_000_000);
        let new_api = json!({"metadata": {"name": "e"}, "eventTime": "2023-11-14T22:12:20.000000Z",
            "reportingComponent": "kubelet", "reportingInstance": "node-1", "involvedObject": {"kind": "Node"},
            "type": "Normal", "reason": "Starting", "message": " started \n"});
        let c = event_cells(&new_api, now);
        assert_eq!(
            c[..7],
            [
                json!("60s"),
                json!("Normal"),
                json!("Starting"),
                json!("node"),
                json!(""),
                json!("kubelet, node-1"),
                json!("started")
            ]
        );
        assert_eq!((&c[7], &c[8]), (&json!("60s"), &json!(1)));
        let series = json!({"metadata": {"name": "e"}, "firstTimestamp": "2023-11-14T22:00:00Z",
            "series": {"count": 7, "lastObservedTime": "2023-11-14T22:13:10.000000Z"}, "involvedObject": {"kind": "Pod", "name": "p"}});
        let c = event_cells(&series, now);
        assert_eq!((&c[0], &c[3], &c[7], &c[8]), (&json!("10s"), &json!("pod/p"), &json!("13m"), &json!(7)));
    }

    #[test]
    fn selectors_and_labels_print_sorted() {
        let sel = json!({"matchLabels": {"z": "1", "a": "2"}, "matchExpressions": [{"key": "k", "operator": "In", "values": ["y", "x"]}]});
        assert_eq!(selector(Some(&sel)), "a=2,k in (x,y),z=1");
        assert_eq!(selector(None), "<none>");
        assert_eq!(labels(Some(&json!({}))), "<none>");
    }
}
