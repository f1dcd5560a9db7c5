//! `describe` of ReplicaSets, DaemonSets, StatefulSets and Jobs, as
//! kubectl 1.33's describers print them: the pods a set controls counted
//! by phase from a list by its selector, the pod template as
//! `DescribePodTemplate` prints it, then the events.

use kubesim::sort::Order;
use serde_json::Value;

use super::*;

/// `N Running / N Waiting / N Succeeded / N Failed`: the pods the set's
/// selector picks that it controls, by phase (kubectl's
/// `getPodStatusForController`: Pending counts as waiting).
fn pods_status(s: &mut Session, o: &Value, namespace: &str) -> String {
    let selector = selector_string(o.pointer("/spec/selector").unwrap_or(&Value::Null));
    pods_status_of(s, o, namespace, selector)
}

fn pods_status_of(s: &mut Session, o: &Value, namespace: &str, selector: String) -> String {
    let query = build_query(&[("labelSelector".into(), selector), ("limit".into(), "500".into())]);
    let e = send(s, "GET", &format!("/api/v1/namespaces/{namespace}/pods?{query}"), None, None, "application/json");
    let list = body_json(&e.response);
    let uid = text(o, "/metadata/uid");
    let mut counts = [0; 4];
    for pod in items(&list, "/items") {
        let owned =
            items(pod, "/metadata/ownerReferences").iter().any(|r| r["controller"] == true && text(r, "/uid") == uid);
        if !owned {
            continue;
        }
        match text(pod, "/status/phase") {
            "Running" => counts[0] += 1,
            "Pending" => counts[1] += 1,
            "Succeeded" => counts[2] += 1,
            "Failed" => counts[3] += 1,
            _ => {}
        }
    }
    format!("{} Running / {} Waiting / {} Succeeded / {} Failed", counts[0], counts[1], counts[2], counts[3])
}

pub(super) fn replica_set(s: &mut Session, w: &mut TabWriter, rs: &Value, namespace: &str) {
    w.w(0, &format!("Name:\t{}\n", text(rs, "/metadata/name")));
    w.w(0, &format!("Namespace:\t{}\n", text(rs, "/metadata/namespace")));
    w.w(0, &format!("Selector:\t{}\n", selector_string(rs.pointer("/spec/selector").unwrap_or(&Value::Null))));
    labels(w, "", "Labels", rs.pointer("/metadata/labels"));
    annotations(w, "Annotations", rs.pointer("/metadata/annotations"));
    controlled_by(w, rs);
    w.w(0, &format!("Replicas:\t{} current / {} desired\n", int(rs, "/status/replicas"), int(rs, "/spec/replicas")));
    let status = pods_status(s, rs, namespace);
    w.w(0, &format!("Pods Status:\t{status}\n"));
    pod_template(w, rs.pointer("/spec/template").unwrap_or(&Value::Null));
    workload_conditions(w, rs);
    events(s, w, rs, "ReplicaSet", namespace);
}

/// A ReplicationController: a ReplicaSet's lines without `Controlled By`,
/// its selector a map of labels.
pub(super) fn replication_controller(s: &mut Session, w: &mut TabWriter, rc: &Value, namespace: &str) {
    let selector = format_labels(rc.pointer("/spec/selector"));
    w.w(0, &format!("Name:\t{}\n", text(rc, "/metadata/name")));
    w.w(0, &format!("Namespace:\t{}\n", text(rc, "/metadata/namespace")));
    w.w(0, &format!("Selector:\t{selector}\n"));
    labels(w, "", "Labels", rc.pointer("/metadata/labels"));
    annotations(w, "Annotations", rc.pointer("/metadata/annotations"));
    w.w(0, &format!("Replicas:\t{} current / {} desired\n", int(rc, "/status/replicas"), int(rc, "/spec/replicas")));
    let query = if selector == "<none>" { String::new() } else { selector };
    let status = pods_status_of(s, rc, namespace, query);
    w.w(0, &format!("Pods Status:\t{status}\n"));
    pod_template(w, rc.pointer("/spec/template").unwrap_or(&Value::Null));
    workload_conditions(w, rc);
    events(s, w, rc, "ReplicationController", namespace);
}

pub(super) fn daemon_set(s: &mut Session, w: &mut TabWriter, ds: &Value, namespace: &str) {
    w.w(0, &format!("Name:\t{}\n", text(ds, "/metadata/name")));
    w.w(0, &format!("Namespace:\t{}\n", text(ds, "/metadata/namespace")));
    w.w(0, &format!("Selector:\t{}\n", selector_string(ds.pointer("/spec/selector").unwrap_or(&Value::Null))));
    w.w(0, &format!("Node-Selector:\t{}\n", format_labels(ds.pointer("/spec/template/spec/nodeSelector"))));
    labels(w, "", "Labels", ds.pointer("/metadata/labels"));
    annotations(w, "Annotations", ds.pointer("/metadata/annotations"));
    // (No tab: these lines end the tabwriter's column block.)
    for (title, field) in [
        ("Desired Number of Nodes Scheduled", "desiredNumberScheduled"),
        ("Current Number of Nodes Scheduled", "currentNumberScheduled"),
        ("Number of Nodes Scheduled with Up-to-date Pods", "updatedNumberScheduled"),
        ("Number of Nodes Scheduled with Available Pods", "numberAvailable"),
        ("Number of Nodes Misscheduled", "numberMisscheduled"),
    ] {
        w.w(0, &format!("{title}: {}\n", int(ds, &format!("/status/{field}"))));
    }
    let status = pods_status(s, ds, namespace);
    w.w(0, &format!("Pods Status:\t{status}\n"));
    pod_template(w, ds.pointer("/spec/template").unwrap_or(&Value::Null));
    events(s, w, ds, "DaemonSet", namespace);
}

pub(super) fn stateful_set(s: &mut Session, w: &mut TabWriter, sts: &Value, namespace: &str) {
    w.w(0, &format!("Name:\t{}\n", text(sts, "/metadata/name")));
    w.w(0, &format!("Namespace:\t{}\n", text(sts, "/metadata/namespace")));
    w.w(0, &format!("CreationTimestamp:\t{}\n", rfc1123z(sts, "/metadata/creationTimestamp")));
    w.w(0, &format!("Selector:\t{}\n", selector_string(sts.pointer("/spec/selector").unwrap_or(&Value::Null))));
    labels(w, "", "Labels", sts.pointer("/metadata/labels"));
    annotations(w, "Annotations", sts.pointer("/metadata/annotations"));
    w.w(0, &format!("Replicas:\t{} desired | {} total\n", int(sts, "/spec/replicas"), int(sts, "/status/replicas")));
    w.w(0, &format!("Update Strategy:\t{}\n", text(sts, "/spec/updateStrategy/type")));
    if let Some(ru) = sts.pointer("/spec/updateStrategy/rollingUpdate").filter(|r| !r.is_null()) {
        if let Some(partition) = ru.get("partition").and_then(Value::as_i64) {
            w.w(1, &format!("Partition:\t{partition}\n"));
            match ru.get("maxUnavailable") {
                Some(Value::String(m)) => w.w(1, &format!("MaxUnavailable:\t{m}\n")),
                Some(Value::Number(m)) => w.w(1, &format!("MaxUnavailable:\t{m}\n")),
                _ => {}
            }
        }
    }
    let status = pods_status(s, sts, namespace);
    w.w(0, &format!("Pods Status:\t{status}\n"));
    pod_template(w, sts.pointer("/spec/template").unwrap_or(&Value::Null));
    let claims = items(sts, "/spec/volumeClaimTemplates");
    if claims.is_empty() {
        w.w(0, "Volume Claims:\t<none>\n");
    } else {
        w.w(0, "Volume Claims:\n");
        for pvc in claims {
            w.w(1, &format!("Name:\t{}\n", text(pvc, "/metadata/name")));
            let class = match text(pvc, "/metadata/annotations/volume.beta.kubernetes.io~1storage-class") {
                "" => text(pvc, "/spec/storageClassName"),
                c => c,
            };
            w.w(1, &format!("StorageClass:\t{class}\n"));
            labels(w, "  ", "Labels", pvc.pointer("/metadata/labels"));
            labels(w, "  ", "Annotations", pvc.pointer("/metadata/annotations"));
            let capacity =
                pvc.pointer("/spec/resources/requests/storage").and_then(Value::as_str).unwrap_or("<default>");
            w.w(1, &format!("Capacity:\t{capacity}\n"));
            let modes: Vec<&str> = items(pvc, "/spec/accessModes").iter().filter_map(Value::as_str).collect();
            w.w(1, &format!("Access Modes:\t[{}]\n", modes.join(" ")));
        }
    }
    events(s, w, sts, "StatefulSet", namespace);
}

pub(super) fn job(s: &mut Session, w: &mut TabWriter, j: &Value, namespace: &str) {
    w.w(0, &format!("Name:\t{}\n", text(j, "/metadata/name")));
    w.w(0, &format!("Namespace:\t{}\n", text(j, "/metadata/namespace")));
    w.w(0, &format!("Selector:\t{}\n", selector_string(j.pointer("/spec/selector").unwrap_or(&Value::Null))));
    labels(w, "", "Labels", j.pointer("/metadata/labels"));
    annotations(w, "Annotations", j.pointer("/metadata/annotations"));
    controlled_by(w, j);
    let spec = |f: &str| j.pointer(&format!("/spec/{f}")).filter(|v| !v.is_null());
    if let Some(p) = spec("parallelism") {
        w.w(0, &format!("Parallelism:\t{p}\n"));
    }
    match spec("completions") {
        Some(c) => w.w(0, &format!("Completions:\t{c}\n")),
        None => w.w(0, "Completions:\t<unset>\n"),
    }
    if let Some(m) = spec("completionMode").and_then(Value::as_str) {
        w.w(0, &format!("Completion Mode:\t{m}\n"));
    }
    if let Some(v) = spec("suspend") {
        w.w(0, &format!("Suspend:\t{v}\n"));
    }
    if let Some(v) = spec("backoffLimit") {
        w.w(0, &format!("Backoff Limit:\t{v}\n"));
    }
    if let Some(v) = spec("ttlSecondsAfterFinished") {
        w.w(0, &format!("TTL Seconds After Finished:\t{v}\n"));
    }
    let (start, completed) = (when(j, "/status/startTime"), when(j, "/status/completionTime"));
    if start.is_some() {
        w.w(0, &format!("Start Time:\t{}\n", rfc1123z(j, "/status/startTime")));
    }
    if completed.is_some() {
        w.w(0, &format!("Completed At:\t{}\n", rfc1123z(j, "/status/completionTime")));
    }
    if let (Some(start), Some(completed)) = (start, completed) {
        w.w(0, &format!("Duration:\t{}\n", crate::format::age(completed, start)));
    }
    if let Some(v) = spec("activeDeadlineSeconds") {
        w.w(0, &format!("Active Deadline Seconds:\t{v}s\n"));
    }
    let (active, succeeded, failed) = (int(j, "/status/active"), int(j, "/status/succeeded"), int(j, "/status/failed"));
    match j.pointer("/status/ready").and_then(Value::as_i64) {
        Some(ready) => w.w(
            0,
            &format!("Pods Statuses:\t{active} Active ({ready} Ready) / {succeeded} Succeeded / {failed} Failed\n"),
        ),
        None => w.w(0, &format!("Pods Statuses:\t{active} Active / {succeeded} Succeeded / {failed} Failed\n")),
    }
    if spec("completionMode").and_then(Value::as_str) == Some("Indexed") {
        let indexes = text(j, "/status/completedIndexes");
        w.w(0, &format!("Completed Indexes:\t{}\n", cap_indexes(indexes, 50)));
    }
    pod_template(w, j.pointer("/spec/template").unwrap_or(&Value::Null));
    events(s, w, j, "Job", namespace);
}

/// A PersistentVolumeClaim as kubectl's describer prints it, with the
/// pods of its namespace that mount it (`Used By`, from one list of them
/// with `limit=500`).
pub(super) fn claim(s: &mut Session, w: &mut TabWriter, pvc: &Value, namespace: &str) {
    w.w(0, &format!("Name:\t{}\n", text(pvc, "/metadata/name")));
    w.w(0, &format!("Namespace:\t{}\n", text(pvc, "/metadata/namespace")));
    let class = match text(pvc, "/metadata/annotations/volume.beta.kubernetes.io~1storage-class") {
        "" => text(pvc, "/spec/storageClassName"),
        c => c,
    };
    w.w(0, &format!("StorageClass:\t{class}\n"));
    match when(pvc, "/metadata/deletionTimestamp") {
        Some(t) => w.w(0, &format!("Status:\tTerminating (lasts {})\n", crate::format::age(s.server.now().0, t))),
        None => w.w(0, &format!("Status:\t{}\n", text(pvc, "/status/phase"))),
    }
    let volume = text(pvc, "/spec/volumeName");
    w.w(0, &format!("Volume:\t{volume}\n"));
    labels(w, "", "Labels", pvc.pointer("/metadata/labels"));
    annotations(w, "Annotations", pvc.pointer("/metadata/annotations"));
    let finalizers: Vec<&str> = items(pvc, "/metadata/finalizers").iter().filter_map(Value::as_str).collect();
    w.w(0, &format!("Finalizers:\t[{}]\n", finalizers.join(" ")));
    let (capacity, modes) = if volume.is_empty() {
        (String::new(), String::new())
    } else {
        (text(pvc, "/status/capacity/storage").to_string(), super::volumes::access_modes(pvc, "/status/accessModes"))
    };
    w.w(0, &format!("Capacity:\t{capacity}\n"));
    w.w(0, &format!("Access Modes:\t{modes}\n"));
    if !text(pvc, "/spec/volumeMode").is_empty() {
        w.w(0, &format!("VolumeMode:\t{}\n", text(pvc, "/spec/volumeMode")));
    }
    if let Some(source) = pvc.pointer("/spec/dataSource").filter(|d| !d.is_null()) {
        w.w(0, "DataSource:\n");
        if !text(source, "/apiGroup").is_empty() {
            w.w(1, &format!("APIGroup:\t{}\n", text(source, "/apiGroup")));
        }
        w.w(1, &format!("Kind:\t{}\n", text(source, "/kind")));
        w.w(1, &format!("Name:\t{}\n", text(source, "/name")));
    }
    // The pods that mount it: by claim name, or as a pod's generic
    // ephemeral volume (`<pod>-<volume>`).
    let e = send(s, "GET", &format!("/api/v1/namespaces/{namespace}/pods?limit=500"), None, None, "application/json");
    let list = body_json(&e.response);
    let name = text(pvc, "/metadata/name");
    let mut users: Vec<&str> = items(&list, "/items")
        .iter()
        .filter(|p| {
            items(p, "/spec/volumes").iter().any(|v| {
                text(v, "/persistentVolumeClaim/claimName") == name
                    || (v.get("ephemeral").is_some()
                        && format!("{}-{}", text(p, "/metadata/name"), text(v, "/name")) == name)
            })
        })
        .map(|p| text(p, "/metadata/name"))
        .collect();
    users.order();
    match users.split_first() {
        None => w.w(0, "Used By:\t<none>\n"),
        Some((first, rest)) => {
            w.w(0, &format!("Used By:\t{first}\n"));
            for u in rest {
                w.w(0, &format!("\t{u}\n"));
            }
        }
    }
    let conditions = items(pvc, "/status/conditions");
    if !conditions.is_empty() {
        w.w(0, "Conditions:\n");
        w.w(1, "Type\tStatus\tLastProbeTime\tLastTransitionTime\tReason\tMessage\n");
        w.w(1, "----\t------\t-----------------\t------------------\t------\t-------\n");
        for c in conditions {
            w.w(
                1,
                &format!(
                    "{} \t{} \t{} \t{} \t{} \t{}\n",
                    text(c, "/type"),
                    text(c, "/status"),
                    rfc1123z(c, "/lastProbeTime"),
                    rfc1123z(c, "/lastTransitionTime"),
                    text(c, "/reason"),
                    text(c, "/message")
                ),
            );
        }
    }
    events(s, w, pvc, "PersistentVolumeClaim", namespace);
}

/// Go's `printBoolPtr`: `True`, `False`, `<unset>`.
fn bool_ptr(v: Option<&Value>) -> &'static str {
    match v.and_then(Value::as_bool) {
        Some(true) => "True",
        Some(false) => "False",
        None => "<unset>",
    }
}

pub(super) fn cron_job(s: &mut Session, w: &mut TabWriter, c: &Value, namespace: &str) {
    w.w(0, &format!("Name:\t{}\n", text(c, "/metadata/name")));
    w.w(0, &format!("Namespace:\t{}\n", text(c, "/metadata/namespace")));
    labels(w, "", "Labels", c.pointer("/metadata/labels"));
    annotations(w, "Annotations", c.pointer("/metadata/annotations"));
    w.w(0, &format!("Schedule:\t{}\n", text(c, "/spec/schedule")));
    w.w(0, &format!("Concurrency Policy:\t{}\n", text(c, "/spec/concurrencyPolicy")));
    w.w(0, &format!("Suspend:\t{}\n", bool_ptr(c.pointer("/spec/suspend"))));
    let number = |p: &str| c.pointer(p).and_then(Value::as_i64).map_or("<unset>".to_string(), |n| n.to_string());
    w.w(0, &format!("Successful Job History Limit:\t{}\n", number("/spec/successfulJobsHistoryLimit")));
    w.w(0, &format!("Failed Job History Limit:\t{}\n", number("/spec/failedJobsHistoryLimit")));
    match c.pointer("/spec/startingDeadlineSeconds").and_then(Value::as_i64) {
        Some(n) => w.w(0, &format!("Starting Deadline Seconds:\t{n}s\n")),
        None => w.w(0, "Starting Deadline Seconds:\t<unset>\n"),
    }
    // The job template (kubectl's `describeJobTemplate`).
    let job = c.pointer("/spec/jobTemplate").unwrap_or(&Value::Null);
    match job.pointer("/spec/selector").filter(|v| !v.is_null()) {
        Some(sel) => w.w(0, &format!("Selector:\t{}\n", selector_string(sel))),
        None => w.w(0, "Selector:\t<unset>\n"),
    }
    let spec = |p: &str| job.pointer(p).and_then(Value::as_i64).map_or("<unset>".to_string(), |n| n.to_string());
    w.w(0, &format!("Parallelism:\t{}\n", spec("/spec/parallelism")));
    w.w(0, &format!("Completions:\t{}\n", spec("/spec/completions")));
    if let Some(n) = job.pointer("/spec/activeDeadlineSeconds").and_then(Value::as_i64) {
        w.w(0, &format!("Active Deadline Seconds:\t{n}s\n"));
    }
    pod_template(w, job.pointer("/spec/template").unwrap_or(&Value::Null));
    match when(c, "/status/lastScheduleTime") {
        Some(_) => w.w(0, &format!("Last Schedule Time:\t{}\n", rfc1123z(c, "/status/lastScheduleTime"))),
        None => w.w(0, "Last Schedule Time:\t<unset>\n"),
    }
    let active: Vec<&str> = items(c, "/status/active").iter().map(|j| text(j, "/name")).collect();
    let active = if active.is_empty() { "<none>".to_string() } else { active.join(", ") };
    w.w(0, &format!("Active Jobs:\t{active}\n"));
    events(s, w, c, "CronJob", namespace);
}

/// kubectl's `capIndexesListOrNone`: the list cut at the first comma past
/// `soft_limit` bytes, `…` marking the cut.
fn cap_indexes(indexes: &str, soft_limit: usize) -> String {
    if indexes.is_empty() {
        return "<none>".into();
    }
    match indexes.bytes().enumerate().skip(soft_limit).find(|(_, b)| *b == b',') {
        Some((i, _)) => format!("{}...", &indexes[..=i]),
        None => indexes.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::tests::{requests_since, session};
    use super::cap_indexes;
    use crate::kubectl::run;

    /// Each as kubectl 1.33 printed the same objects from `kubesim serve`
    /// (byte for byte but names, times and uids), and its requests.
    #[test]
    fn replica_daemon_and_stateful_sets_and_jobs_as_kubectl_describes_them() {
        let mut s = session();
        let yaml = "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: db}\nspec:\n  serviceName: db\n  replicas: 2\n  selector: {matchLabels: {app: db}}\n  template:\n    metadata: {labels: {app: db}}\n    spec: {containers: [{name: pg, image: postgres, ports: [{containerPort: 5432}]}]}\n---\napiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: logs}\nspec:\n  selector: {matchLabels: {app: logs}}\n  template:\n    metadata: {labels: {app: logs}}\n    spec: {containers: [{name: f, image: fluentd}]}\n";
        assert!(!run(&mut s, "apply -f -", yaml).failed);
        run(&mut s, "create deployment web --image=nginx --replicas=2", "");
        run(&mut s, "create job once --image=busybox -- echo hi", "");
        for _ in 0..20 {
            s.tick(500.0);
        }
        let rs = run(&mut s, "describe rs -l app=web", "").text;
        assert!(rs.starts_with("Name:           web-7957885594\nNamespace:      default\nSelector:       app=web,pod-template-hash=7957885594\n"), "{rs}");
        assert!(rs.contains("\nControlled By:  Deployment/web\nReplicas:       2 current / 2 desired\nPods Status:    2 Running / 0 Waiting / 0 Succeeded / 0 Failed\nPod Template:\n  Labels:  app=web\n           pod-template-hash=7957885594\n"), "{rs}");
        let from = s.log.len();
        let ds = run(&mut s, "describe ds logs", "").text;
        assert_eq!(
            requests_since(&s, from)[..3],
            [
                "GET /apis/apps/v1/namespaces/default/daemonsets/logs 200",
                "GET /apis/apps/v1/namespaces/default/daemonsets/logs 200",
                "GET /api/v1/namespaces/default/pods?labelSelector=app%3Dlogs&limit=500 200",
            ]
        );
        assert!(ds.starts_with("Name:           logs\nNamespace:      default\nSelector:       app=logs\nNode-Selector:  <none>\nLabels:         <none>\nAnnotations:    <none>\nDesired Number of Nodes Scheduled: 2\nCurrent Number of Nodes Scheduled: 2\nNumber of Nodes Scheduled with Up-to-date Pods: 2\nNumber of Nodes Scheduled with Available Pods: 2\nNumber of Nodes Misscheduled: 0\nPods Status:  2 Running / 0 Waiting / 0 Succeeded / 0 Failed\nPod Template:\n  Labels:  app=logs\n  Containers:\n   f:\n    Image:         fluentd\n"), "{ds}");
        assert!(ds.contains("\n  Tolerations:     <none>\nEvents:\n  Type    Reason            Age   From                  Message\n"), "{ds}");
        let sts = run(&mut s, "describe sts db", "").text;
        assert!(sts.starts_with("Name:               db\nNamespace:          default\nCreationTimestamp:  Tue, 14 Nov 2023 22:13:20 +0000\nSelector:           app=db\nLabels:             <none>\nAnnotations:        <none>\nReplicas:           2 desired | 2 total\nUpdate Strategy:    RollingUpdate\n  Partition:        0\nPods Status:        2 Running / 0 Waiting / 0 Succeeded / 0 Failed\nPod Template:\n"), "{sts}");
        assert!(sts.contains("    Port:          5432/TCP\n    Host Port:     0/TCP\n"), "{sts}");
        assert!(sts.contains("  Tolerations:     <none>\nVolume Claims:     <none>\nEvents:\n"), "{sts}");
        let job = run(&mut s, "describe job once", "").text;
        assert!(job.contains("\nParallelism:      1\nCompletions:      1\nCompletion Mode:  NonIndexed\nSuspend:          false\nBackoff Limit:    6\nStart Time:       Tue, 14 Nov 2023 22:13:20 +0000\nCompleted At:     Tue, 14 Nov 2023 22:13:20 +0000\nDuration:         0s\nPods Statuses:    0 Active (0 Ready) / 1 Succeeded / 0 Failed\nPod Template:\n"), "{job}");
        assert!(job.contains("    Command:\n      echo\n      hi\n"), "{job}");
        assert!(job.contains("  Normal  Completed         0s    job-controller  Job completed\n"), "{job}");
    }

    /// As kubectl 1.33 printed a CronJob `kubectl create cronjob` made,
    /// once it had run a job (the tabwriter's block from the pod
    /// template's lines to `Active Jobs:` aligned as one).
    /// As kubectl 1.33 printed it from `kubesim serve` (names and times
    /// aside): no `Controlled By`, the selector a map; and kubectl's
    /// refusals of the rollout verbs it has nothing for.
    #[test]
    fn a_replication_controller_as_kubectl_describes_it() {
        let mut s = session();
        let yaml = "apiVersion: v1\nkind: ReplicationController\nmetadata: {name: nginx}\nspec:\n  replicas: 3\n  selector: {app: nginx}\n  template:\n    metadata: {name: nginx, labels: {app: nginx}}\n    spec: {containers: [{name: nginx, image: nginx, ports: [{containerPort: 80}]}]}\n";
        assert!(!run(&mut s, "apply -f -", yaml).failed);
        for _ in 0..20 {
            s.tick(500.0);
        }
        let from = s.log.len();
        let rc = run(&mut s, "describe rc nginx", "").text;
        assert_eq!(
            requests_since(&s, from)[..3],
            [
                "GET /api/v1/namespaces/default/replicationcontrollers/nginx 200",
                "GET /api/v1/namespaces/default/replicationcontrollers/nginx 200",
                "GET /api/v1/namespaces/default/pods?labelSelector=app%3Dnginx&limit=500 200",
            ]
        );
        assert!(rc.starts_with("Name:         nginx\nNamespace:    default\nSelector:     app=nginx\nLabels:       app=nginx\nAnnotations:  <none>\nReplicas:     3 current / 3 desired\nPods Status:  3 Running / 0 Waiting / 0 Succeeded / 0 Failed\nPod Template:\n  Labels:  app=nginx\n  Containers:\n   nginx:\n    Image:         nginx\n    Port:          80/TCP\n"), "{rc}");
        assert!(rc.contains("\n  Tolerations:     <none>\nEvents:\n  Type    Reason            Age   From                    Message\n"), "{rc}");
        assert!(rc.contains("  Normal  SuccessfulCreate  "), "{rc}");
        for (verb, said) in [
            ("status", "error: no status viewer has been implemented for ReplicationController"),
            ("history", "error: no history viewer has been implemented for \"ReplicationController\""),
            ("undo", "error: no rollbacker has been implemented for \"ReplicationController\""),
            ("pause", "error: replicationcontrollers \"nginx\" pausing is not supported"),
            ("restart", "error: replicationcontrollers \"nginx\" restarting is not supported"),
        ] {
            let out = run(&mut s, &format!("rollout {verb} rc/nginx"), "");
            assert!(out.failed && out.text.trim_end() == said, "{verb}: {}", out.text);
        }
        let out = run(&mut s, "rollout status rs/nope", "");
        assert_eq!(out.text.trim_end(), "Error from server (NotFound): replicasets.apps \"nope\" not found");
    }

    #[test]
    fn a_cron_job_as_kubectl_describes_it() {
        let mut s = session();
        run(&mut s, "create cronjob tick --image=busybox --schedule='*/1 * * * *' -- echo tick", "");
        let fresh = run(&mut s, "describe cronjob tick", "").text;
        assert_eq!(
            fresh,
            "Name:                          tick\nNamespace:                     default\nLabels:                        <none>\nAnnotations:                   <none>\nSchedule:                      */1 * * * *\nConcurrency Policy:            Allow\nSuspend:                       False\nSuccessful Job History Limit:  3\nFailed Job History Limit:      1\nStarting Deadline Seconds:     <unset>\nSelector:                      <unset>\nParallelism:                   1\nCompletions:                   1\nPod Template:\n  Labels:  <none>\n  Containers:\n   tick:\n    Image:      busybox\n    Port:       <none>\n    Host Port:  <none>\n    Command:\n      echo\n      tick\n    Environment:     <none>\n    Mounts:          <none>\n  Volumes:           <none>\n  Node-Selectors:    <none>\n  Tolerations:       <none>\nLast Schedule Time:  <unset>\nActive Jobs:         <none>\nEvents:              <none>\n"
        );
    }

    /// As kubectl 1.33 printed a StatefulSet's claim (given the default
    /// class, provisioned on its pod's node, protected while the pod uses
    /// it), the set's volume claim templates, and the class.
    #[test]
    fn a_claim_and_the_claim_templates_as_kubectl_describes_them() {
        let mut s = session();
        let yaml = "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: web}\nspec:\n  serviceName: web\n  replicas: 1\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: nginx, image: nginx, volumeMounts: [{name: www, mountPath: /data}]}]}\n  volumeClaimTemplates:\n  - metadata: {name: www}\n    spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}\n";
        assert!(!run(&mut s, "apply -f -", yaml).failed);
        for _ in 0..10 {
            s.tick(500.0);
        }
        let from = s.log.len();
        let pvc = run(&mut s, "describe pvc www-web-0", "").text;
        assert_eq!(
            requests_since(&s, from)[..3],
            [
                "GET /api/v1/namespaces/default/persistentvolumeclaims/www-web-0 200",
                "GET /api/v1/namespaces/default/persistentvolumeclaims/www-web-0 200",
                "GET /api/v1/namespaces/default/pods?limit=500 200",
            ]
        );
        assert_eq!(
            pvc,
            "Name:          www-web-0\nNamespace:     default\nStorageClass:  standard\nStatus:        Bound\nVolume:        pvc-c598275f-ddda-4de8-8d29-e15d6db5341e\nLabels:        app=web\nAnnotations:   pv.kubernetes.io/bind-completed: yes\n               pv.kubernetes.io/bound-by-controller: yes\n               volume.beta.kubernetes.io/storage-provisioner: rancher.io/local-path\n               volume.kubernetes.io/selected-node: worker-1\n               volume.kubernetes.io/storage-provisioner: rancher.io/local-path\nFinalizers:    [kubernetes.io/pvc-protection]\nCapacity:      1Gi\nAccess Modes:  RWO\nVolumeMode:    Filesystem\nUsed By:       web-0\nEvents:\n  Type    Reason                 Age   From                                          Message\n  ----    ------                 ----  ----                                          -------\n  Normal  WaitForFirstConsumer   0s    persistentvolume-controller                   waiting for first consumer to be created before binding\n  Normal  ExternalProvisioning   0s    persistentvolume-controller                   Waiting for a volume to be created either by the external provisioner 'rancher.io/local-path' or manually by the system administrator. If volume creation is delayed, please verify that the provisioner is running and correctly registered.\n  Normal  Provisioning           0s    rancher.io/local-path_local-path-provisioner  External provisioner is provisioning volume for claim \"default/www-web-0\"\n  Normal  ProvisioningSucceeded  0s    rancher.io/local-path_local-path-provisioner  Successfully provisioned volume pvc-c598275f-ddda-4de8-8d29-e15d6db5341e\n"
        );
        let sts = run(&mut s, "describe sts web", "").text;
        assert!(
            sts.contains("\nVolume Claims:\n  Name:          www\n  StorageClass:  \n  Labels:        <none>\n  Annotations:   <none>\n  Capacity:      1Gi\n  Access Modes:  [ReadWriteOnce]\nEvents:\n"),
            "{sts}"
        );
        let pv = run(&mut s, "describe pv pvc-c598275f-ddda-4de8-8d29-e15d6db5341e", "").text;
        assert_eq!(
            pv,
            "Name:              pvc-c598275f-ddda-4de8-8d29-e15d6db5341e\nLabels:            <none>\nAnnotations:       pv.kubernetes.io/provisioned-by: rancher.io/local-path\nFinalizers:        [kubernetes.io/pv-protection]\nStorageClass:      standard\nStatus:            Bound\nClaim:             default/www-web-0\nReclaim Policy:    Delete\nAccess Modes:      RWO\nVolumeMode:        Filesystem\nCapacity:          1Gi\nNode Affinity:     \n  Required Terms:  \n    Term 0:        kubernetes.io/hostname in [worker-1]\nMessage:           \nSource:\n    Type:          HostPath (bare host directory volume)\n    Path:          /var/local-path-provisioner/pvc-c598275f-ddda-4de8-8d29-e15d6db5341e_default_www-web-0\n    HostPathType:  DirectoryOrCreate\nEvents:            <none>\n"
        );
        let sc = run(&mut s, "describe sc standard", "").text;
        assert_eq!(
            sc,
            "Name:                  standard\nIsDefaultClass:        Yes\nAnnotations:           storageclass.kubernetes.io/is-default-class=true\nProvisioner:           rancher.io/local-path\nParameters:            <none>\nAllowVolumeExpansion:  <unset>\nMountOptions:          <none>\nReclaimPolicy:         Delete\nVolumeBindingMode:     WaitForFirstConsumer\nEvents:                <none>\n"
        );
    }

    #[test]
    fn completed_indexes_are_cut_at_a_comma_past_the_limit() {
        assert_eq!(cap_indexes("", 50), "<none>");
        assert_eq!(cap_indexes("1-3,5", 2), "1-3,...");
        assert_eq!(cap_indexes("1-3,5", 50), "1-3,5");
    }
}
