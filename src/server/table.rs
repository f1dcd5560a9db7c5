//! Server-side printing: `as=Table` responses. Each built-in kind with a
//! printer in kube-apiserver has one here, with the same columns (name,
//! type, format, priority, description) and cell values; other kinds get the
//! default table (Name, Created At). Descriptions come from the schema's
//! field documentation, which only the native build carries; the browser
//! build's columns have empty descriptions.

use serde_json::{json, Map, Value};

use crate::clock::SimTime;

mod cells;
use cells::*;

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
