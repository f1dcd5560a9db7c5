//! `logs (POD | TYPE/NAME) [CONTAINER] | -l SELECTOR` with kubectl 1.33's
//! flags (`-c`, `--all-containers`, `-p`, `--tail`, `--since`,
//! `--since-time`, `--timestamps`, `--limit-bytes`, `--prefix`; `-f`
//! prints what is there now): a pod read by name, or the pods a selector
//! lists; any other object read, its pods listed by its selector
//! (kubectl's `SelectorsForObject`) and the one best for logs taken (its
//! `ByLogging` order), with `Found N pods, using pod/NAME` when there was
//! a choice. As kubectl, every log request is made ready (a container
//! that is not there refused) before the first is sent, and the first
//! that fails ends the command. kubectl reads several streams in a Go
//! map's order, which differs run to run; the page reads them in the
//! list's order, each pod's containers init first, then its own, then
//! ephemeral ones.

use kubesim::clock::SimTime;
use kubesim::sort::Order;

use super::imperative::{namespace, read};
use super::*;

const USAGE: &str = "error: expected 'logs [-f] [-p] (POD | TYPE/NAME) [-c CONTAINER]'.\nPOD or TYPE/NAME is a required argument for the logs command\nSee 'kubectl logs -h' for help and examples";

/// One log to read: a pod's container.
struct LogRequest {
    namespace: String,
    pod: String,
    container: String,
}

pub(super) fn logs(s: &mut Session, d: &Discovery, cmd: &Command, out: &mut Outcome) {
    let (typed, inline_container) = match (cmd.args.as_slice(), &cmd.selector) {
        ([], Some(_)) => (None, None),
        ([n], None) => (Some(n.as_str()), None),
        ([_], Some(_)) => {
            return out.error(
                "error: only a selector (-l) or a POD name is allowed\nSee 'kubectl logs -h' for help and examples",
            )
        }
        ([_, _], Some(_)) => {
            return out.error("error: selectors and the all flag cannot be used when passing resource/name arguments")
        }
        ([n, c], None) => (Some(n.as_str()), Some(c.clone())),
        _ => return out.error(USAGE),
    };
    // The flags kubectl reads before any request.
    let since_seconds = match cmd.logs.since.as_deref().map(since) {
        Some(Err(e)) => return out.error(e),
        Some(Ok(s)) => Some(s).filter(|&s| s != 0),
        None => None,
    };
    let since_time = match cmd.logs.since_time.as_deref().filter(|t| !t.is_empty()).map(go_rfc3339) {
        Some(Err(e)) => return out.error(format!("error: {e}")),
        Some(Ok(ms)) => Some(SimTime(ms).rfc3339()),
        None => None,
    };
    let ns = namespace(cmd);
    // What the builder reads: the pod or object named, or the pods selected.
    // (The pods, or an object whose pods to list.)
    let (mut pods, object) = match typed {
        None => {
            let query = build_query(&[("labelSelector".to_string(), cmd.selector.clone().unwrap_or_default())]);
            let Some(list) = read(s, &format!("/api/v1/namespaces/{ns}/pods?{query}"), out) else { return };
            let pods = list.get("items").and_then(Value::as_array).cloned().unwrap_or_default();
            if pods.is_empty() {
                out.line(format!("No resources found in {ns} namespace."));
            }
            (pods, None)
        }
        Some(typed) => match typed.split_once('/') {
            None => {
                let Some(pod) = read(s, &format!("/api/v1/namespaces/{ns}/pods/{typed}"), out) else { return };
                (vec![pod], None)
            }
            Some((kind, name)) => {
                let Some(r) = resolve(d, kind, out) else { return };
                let Some(obj) = read(s, &r.item(Some(&ns), name), out) else { return };
                match r.kind.as_str() {
                    "Pod" => (vec![obj], None),
                    _ => (Vec::new(), Some((r, obj))),
                }
            }
        },
    };
    // kubectl's checks of its options, once the object is read.
    let container = inline_container.clone().or_else(|| cmd.container.clone());
    let flags = &cmd.logs;
    let invalid = if since_seconds.is_some() && since_time.is_some() {
        Some("at most one of `sinceTime` or `sinceSeconds` may be specified".to_string())
    } else if let (true, Some(c)) = (flags.all_containers, &container) {
        Some(format!("--all-containers=true should not be specified with container name {c}"))
    } else if cmd.container.is_some() && inline_container.is_some() {
        Some("only one of -c or an inline [CONTAINER] arg is allowed".into())
    } else if flags.limit_bytes.is_some_and(|b| b < 0) {
        Some("--limit-bytes must be greater than 0".into())
    } else if since_seconds.is_some_and(|s| s < 0) {
        Some("--since must be greater than 0".into())
    } else if cmd.tail.is_some_and(|t| t < -1) {
        Some("--tail must be greater than or equal to -1".into())
    } else {
        None
    };
    if let Some(e) = invalid {
        return out.error(format!("error: {e}"));
    }
    if let Some((r, obj)) = &object {
        let Some(pod) = first_pod(s, r, obj, &ns, out) else { return };
        pods.push(pod);
    }
    let mut requests = Vec::new();
    for pod in &pods {
        match pod_requests(pod, container.as_deref(), flags.all_containers, out) {
            Ok(r) => requests.extend(r),
            Err(e) => return out.error(format!("error: {e}")),
        }
    }
    // The PodLogOptions every request carries, keys in the order Go's
    // url.Values writes them.
    let tail = match cmd.tail {
        None if cmd.selector.is_some() => Some(10),
        Some(-1) | None => None,
        t => t,
    };
    let narrowed = tail == Some(0) || since_seconds.is_some() || since_time.is_some();
    let mut options = Vec::new();
    let mut option = |k: &str, v: Option<String>| options.extend(v.map(|v| (k.to_string(), v)));
    option("follow", flags.follow.then(|| "true".into()));
    option("insecureSkipTLSVerifyBackend", flags.insecure_skip_tls_verify_backend.then(|| "true".into()));
    option("limitBytes", flags.limit_bytes.filter(|&b| b != 0).map(|b| b.to_string()));
    option("previous", flags.previous.then(|| "true".into()));
    option("sinceSeconds", since_seconds.map(|s| s.to_string()));
    option("sinceTime", since_time);
    option("tailLines", tail.map(|t| t.to_string()));
    option("timestamps", flags.timestamps.then(|| "true".into()));
    let mut printed = false;
    for r in &requests {
        let mut query = vec![("container".to_string(), r.container.clone())];
        query.extend(options.iter().cloned());
        let path = format!("/api/v1/namespaces/{}/pods/{}/log?{}", r.namespace, r.pod, build_query(&query));
        let e = send(s, "GET", &path, None, None, "application/json, */*");
        if e.response.status != 200 {
            return out.error(server_error(&e));
        }
        let text = String::from_utf8_lossy(&e.response.body);
        printed |= !text.is_empty();
        if flags.prefix {
            for line in text.split_inclusive('\n') {
                out.text.push_str(&format!("[pod/{}/{}] {line}", r.pod, r.container));
            }
        } else {
            out.text.push_str(&text);
        }
    }
    if flags.follow {
        out.differs = Some(differs::FOLLOWS);
    } else if !printed && !requests.is_empty() && !narrowed {
        // Empty for the model's sake, not because the options left
        // nothing (`--tail=0`, a `--since` after the last line;
        // `--limit-bytes` never empties a log).
        out.differs = Some(differs::LOG_MODEL);
    }
}

/// A pod's log requests (kubectl's `logsForObject` for one pod): every
/// container with `--all-containers`; else the container asked for, or
/// the one its `kubectl.kubernetes.io/default-container` annotation
/// names, or its first (saying so when it has others).
fn pod_requests(pod: &Value, asked: Option<&str>, all: bool, out: &mut Outcome) -> Result<Vec<LogRequest>, String> {
    let text = |ptr: &str| pod.pointer(ptr).and_then(Value::as_str).unwrap_or("").to_string();
    let (name, ns) = (text("/metadata/name"), text("/metadata/namespace"));
    let names = |list: &str| -> Vec<String> {
        pod.pointer(&format!("/spec/{list}"))
            .and_then(Value::as_array)
            .map(|cs| cs.iter().filter_map(|c| c.get("name")?.as_str().map(str::to_string)).collect())
            .unwrap_or_default()
    };
    let (main, init, ephemeral) = (names("containers"), names("initContainers"), names("ephemeralContainers"));
    let request =
        |container: &String| LogRequest { namespace: ns.clone(), pod: name.clone(), container: container.clone() };
    if all {
        return Ok(init.iter().chain(&main).chain(&ephemeral).map(request).collect());
    }
    let known = |c: &str| main.iter().chain(&init).chain(&ephemeral).any(|n| n == c);
    // kubectl's list of them: its own, then ephemeral, then init ones.
    let everyone = || {
        let marked = |list: &[String], mark: &str| list.iter().map(|n| format!("{n} ({mark})")).collect::<Vec<_>>();
        let mut all = main.clone();
        all.extend(marked(&ephemeral, "ephem"));
        all.extend(marked(&init, "init"));
        all.join(", ")
    };
    let container = match asked {
        Some(c) => c.to_string(),
        None => {
            let annotated = text("/metadata/annotations/kubectl.kubernetes.io~1default-container");
            if !annotated.is_empty() && !known(&annotated) {
                out.line(format!("Default container name {annotated:?} not found in pod {name}"));
            }
            if !annotated.is_empty() && known(&annotated) {
                annotated
            } else {
                let Some(first) = main.first().cloned() else {
                    return Err(format!("pod {name} has no containers"));
                };
                if main.len() > 1 || !init.is_empty() || !ephemeral.is_empty() {
                    out.line(format!("Defaulted container {first:?} out of: {}", everyone()));
                }
                first
            }
        }
    };
    if !known(&container) {
        return Err(format!("container {container} is not valid for pod {name}"));
    }
    Ok(vec![request(&container)])
}

/// `--since`: a Go duration, in whole seconds as kubectl rounds it.
fn since(text: &str) -> Result<i64, String> {
    let ms = super::wait::go_duration("--since", "logs", text)?;
    Ok((ms.abs() + 500) / 1000 * ms.signum())
}

/// `--since-time` as Go's `time.Parse` reads RFC 3339 (kubectl tries the
/// nanosecond layout first, then this one, and reports this one's error),
/// in milliseconds since the epoch; its errors in Go's words.
fn go_rfc3339(value: &str) -> Result<i64, String> {
    const LAYOUT: &str = "2006-01-02T15:04:05Z07:00";
    let cannot =
        |rest: &str, elem: &str| format!("parsing time {value:?} as {LAYOUT:?}: cannot parse {rest:?} as {elem:?}");
    let range = |what: &str| format!("parsing time {value:?}: {what} out of range");
    let mut rest = value;
    // A number of `min..=max` digits, as Go's `getnum`/`atoi` take them.
    let number = |rest: &mut &str, min: usize, max: usize, elem: &str| -> Result<i64, String> {
        let digits = rest.bytes().take(max).take_while(u8::is_ascii_digit).count();
        if digits < min {
            return Err(cannot(rest, elem));
        }
        let n = rest[..digits].parse().map_err(|_| cannot(rest, elem))?;
        *rest = &rest[digits..];
        Ok(n)
    };
    let literal = |rest: &mut &str, lit: &str| match rest.strip_prefix(lit) {
        Some(r) => {
            *rest = r;
            Ok(())
        }
        None => Err(cannot(rest, lit)),
    };
    let year = number(&mut rest, 4, 4, "2006")?;
    literal(&mut rest, "-")?;
    let month = number(&mut rest, 2, 2, "01")?;
    if !(1..=12).contains(&month) {
        return Err(range("month"));
    }
    literal(&mut rest, "-")?;
    let day = number(&mut rest, 2, 2, "02")?;
    literal(&mut rest, "T")?;
    let hour = number(&mut rest, 1, 2, "15")?;
    if hour > 23 {
        return Err(range("hour"));
    }
    literal(&mut rest, ":")?;
    let minute = number(&mut rest, 2, 2, "04")?;
    if minute > 59 {
        return Err(range("minute"));
    }
    literal(&mut rest, ":")?;
    let second = number(&mut rest, 2, 2, "05")?;
    if second > 59 {
        return Err(range("second"));
    }
    // A fraction after the seconds is read even where the layout has none.
    let mut millis = 0;
    if let Some(frac) = rest.strip_prefix(['.', ',']).filter(|f| f.starts_with(|c: char| c.is_ascii_digit())) {
        let digits = frac.bytes().take_while(u8::is_ascii_digit).count();
        millis =
            frac[..digits].bytes().chain(std::iter::repeat(b'0')).take(3).fold(0, |n, b| n * 10 + i64::from(b - b'0'));
        rest = &frac[digits..];
    }
    let offset = if let Some(r) = rest.strip_prefix('Z') {
        rest = r;
        0
    } else {
        let b = rest.as_bytes();
        let sign = match b.first() {
            Some(b'+') => 1,
            Some(b'-') => -1,
            _ => 0,
        };
        let two = |r: std::ops::Range<usize>| {
            rest.get(r).filter(|t| t.bytes().all(|c| c.is_ascii_digit())).and_then(|t| t.parse::<i64>().ok())
        };
        match (b.len() >= 6 && b[3] == b':', sign, two(1..3), two(4..6)) {
            (true, sign, Some(h), Some(m)) if sign != 0 => {
                rest = &rest[6..];
                sign * (h * 3600 + m * 60)
            }
            _ => return Err(cannot(rest, "Z07:00")),
        }
    };
    if !rest.is_empty() {
        return Err(format!("parsing time {value:?}: extra text: {rest:?}"));
    }
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    let days_in = [31, if leap { 29 } else { 28 }, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][(month - 1) as usize];
    if day < 1 || day > days_in {
        return Err(range("day"));
    }
    let utc =
        kubesim::clock::parse_rfc3339(&format!("{year:04}-{month:02}-{day:02}T{hour:02}:{minute:02}:{second:02}Z"))
            .ok_or_else(|| range("year"))?;
    Ok(utc + millis - offset * 1000)
}

/// The pod kubectl takes the logs of for a workload or a Service: its
/// pods listed by its selector, the best for logs first.
fn first_pod(s: &mut Session, r: &ApiResource, obj: &Value, ns: &str, out: &mut Outcome) -> Option<Value> {
    let selector = match r.kind.as_str() {
        "Deployment" | "ReplicaSet" | "StatefulSet" | "DaemonSet" | "Job" => {
            label_selector(obj.pointer("/spec/selector").unwrap_or(&Value::Null))
        }
        "ReplicationController" => equalities(obj.pointer("/spec/selector")),
        "Service" => match obj.pointer("/spec/selector").and_then(Value::as_object).filter(|m| !m.is_empty()) {
            Some(_) => equalities(obj.pointer("/spec/selector")),
            None => {
                let name = obj.pointer("/metadata/name").and_then(Value::as_str).unwrap_or("");
                out.error(format!(
                    "error: cannot get the logs from *v1.Service: invalid service '{name}': Service is defined without a selector"
                ));
                return None;
            }
        },
        _ => {
            let t = go_type(r);
            out.error(format!("error: cannot get the logs from {t}: selector for {t} not implemented"));
            return None;
        }
    };
    let query = build_query(&[("labelSelector".to_string(), selector)]);
    let list = read(s, &format!("/api/v1/namespaces/{ns}/pods?{query}"), out)?;
    let mut pods: Vec<Value> = list.get("items").and_then(Value::as_array).cloned().unwrap_or_default();
    if pods.is_empty() {
        // kubectl watches for a pod until --pod-running-timeout (20 s);
        // the page answers at once with what it then says.
        out.error("error: timed out waiting for the condition");
        return None;
    }
    pods.order_by(by_logging);
    if pods.len() > 1 {
        let name = pods[0].pointer("/metadata/name").and_then(Value::as_str).unwrap_or("");
        out.line(format!("Found {} pods, using pod/{name}", pods.len()));
    }
    Some(pods.swap_remove(0))
}

/// How Go's `%T` names the object kubectl decoded: `*v1.ConfigMap` for a
/// built-in kind (its package is its version), else unstructured. Built
/// in: a group without a dot or under `k8s.io`, the suffix Kubernetes
/// keeps (a custom resource there, such as the Gateway API's, would be
/// misnamed).
fn go_type(r: &ApiResource) -> String {
    let builtin = !r.group.contains('.') || r.group.ends_with(".k8s.io");
    if builtin {
        format!("*{}.{}", r.version, r.kind)
    } else {
        "*unstructured.Unstructured".into()
    }
}

/// A `matchLabels`/`matchExpressions` selector as `LabelSelectorAsSelector`
/// prints it (empty: everything).
fn label_selector(sel: &Value) -> String {
    match describe::selector_string(sel).as_str() {
        "<none>" => String::new(),
        s => s.to_string(),
    }
}

/// A map of labels as `SelectorFromSet` prints it: `k=v`, sorted by key.
fn equalities(set: Option<&Value>) -> String {
    let mut pairs: Vec<String> = set
        .and_then(Value::as_object)
        .map(|m| m.iter().map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or(""))).collect())
        .unwrap_or_default();
    pairs.order();
    pairs.join(",")
}

/// kubectl's `ByLogging` order (best first): assigned to a node, then
/// by phase (Running — and any phase it does not rank —, Unknown,
/// Pending), ready, ready longest, most restarts of any container (a
/// crashing pod's log is the one wanted), oldest. Ties keep the list's order, as Go's sort of a short list does.
fn by_logging(a: &Value, b: &Value) -> std::cmp::Ordering {
    let text = |p: &Value, ptr: &str| p.pointer(ptr).and_then(Value::as_str).unwrap_or("").to_string();
    let assigned = |p: &Value| !text(p, "/spec/nodeName").is_empty();
    let phase = |p: &Value| match text(p, "/status/phase").as_str() {
        "Unknown" => 1,
        "Pending" => 2,
        _ => 0,
    };
    let ready_since = |p: &Value| {
        p.pointer("/status/conditions")
            .and_then(Value::as_array)
            .and_then(|c| c.iter().find(|c| c["type"] == "Ready" && c["status"] == "True"))
            .map(|c| c["lastTransitionTime"].as_str().and_then(parse_rfc3339))
    };
    let restarts = |p: &Value| {
        p.pointer("/status/containerStatuses")
            .and_then(Value::as_array)
            .map_or(0, |s| s.iter().filter_map(|s| s["restartCount"].as_i64()).max().unwrap_or(0))
    };
    let created = |p: &Value| parse_rfc3339(&text(p, "/metadata/creationTimestamp"));
    // (A time that is not there sorts last, as kubectl's `afterOrZero`.)
    let earlier_first = |x: Option<i64>, y: Option<i64>| match (x, y) {
        (Some(x), Some(y)) => x.cmp(&y),
        (None, None) => std::cmp::Ordering::Equal,
        (None, _) => std::cmp::Ordering::Greater,
        (_, None) => std::cmp::Ordering::Less,
    };
    assigned(b)
        .cmp(&assigned(a))
        .then_with(|| phase(a).cmp(&phase(b)))
        .then_with(|| ready_since(b).is_some().cmp(&ready_since(a).is_some()))
        .then_with(|| match (ready_since(a), ready_since(b)) {
            (Some(x), Some(y)) => earlier_first(x, y),
            _ => std::cmp::Ordering::Equal,
        })
        .then_with(|| restarts(b).cmp(&restarts(a)))
        .then_with(|| earlier_first(created(a), created(b)))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::kubectl::run;
    use crate::kubectl::tests::{live, requests_since, session};

    /// `logs TYPE/NAME` as kubectl 1.33 reads it: the object, its pods by
    /// its selector, the best for logs (`ByLogging`) said when there was a
    /// choice; kubectl's errors for a Service without a selector, a kind
    /// with none, and no pods.
    #[test]
    fn logs_of_a_workload_take_its_best_pod() {
        let mut s = session();
        let pods = live(&mut s, "/api/v1/namespaces/default/pods?labelSelector=app%3Dhello");
        let names: Vec<String> = pods["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["metadata"]["name"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(names.len(), 2);
        let from = s.log.len();
        let out = run(&mut s, "logs deploy/hello --tail=1", "");
        assert!(!out.failed, "{}", out.text);
        // Alike in every way kubectl ranks: the first listed.
        assert!(out.text.starts_with(&format!("Found 2 pods, using pod/{}\n", names[0])), "{}", out.text);
        assert_eq!(
            requests_since(&s, from),
            [
                "GET /apis/apps/v1/namespaces/default/deployments/hello 200".to_string(),
                "GET /api/v1/namespaces/default/pods?labelSelector=app%3Dhello 200".to_string(),
                format!("GET /api/v1/namespaces/default/pods/{}/log?container=nginx&tailLines=1 200", names[0]),
            ]
        );
        // A pod that restarted is the one wanted.
        let path = format!("/api/v1/namespaces/default/pods/{}/status", names[1]);
        let body = json!({"status": {"containerStatuses": [{"name": "hello", "restartCount": 2}]}});
        let e = send(
            &mut s,
            "PATCH",
            &path,
            Some("application/strategic-merge-patch+json"),
            Some(&body),
            "application/json",
        );
        assert_eq!(e.response.status, 200);
        let out = run(&mut s, "logs replicaset/hello-595f854d7c --tail=1", "");
        assert!(out.text.starts_with(&format!("Found 2 pods, using pod/{}\n", names[1])), "{}", out.text);
        let out = run(&mut s, "logs pod/counter --tail=1", "");
        assert!(!out.failed && !out.text.starts_with("Found"), "{}", out.text);
        for (line, said) in [
            (
                "logs svc/kubernetes",
                "error: cannot get the logs from *v1.Service: invalid service 'kubernetes': Service is defined without a selector\n",
            ),
            (
                "logs configmap/kube-root-ca.crt",
                "error: cannot get the logs from *v1.ConfigMap: selector for *v1.ConfigMap not implemented\n",
            ),
            ("logs deploy/nosuch", "Error from server (NotFound): deployments.apps \"nosuch\" not found\n"),
        ] {
            let out = run(&mut s, line, "");
            assert!(out.failed, "{line}");
            assert_eq!(out.text, said, "{line}");
        }
        run(&mut s, "create service clusterip lonely --tcp=80:80", "");
        let out = run(&mut s, "logs service/lonely", "");
        assert_eq!(out.text, "error: timed out waiting for the condition\n");
    }

    /// A pod of two containers after an init container, each printing
    /// its name every second, run for a few seconds.
    fn two_containers(s: &mut Session) {
        let file = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: two\n  labels: {app: two}\nspec:\n  initContainers:\n  - {name: setup, image: busybox, command: [sh, -c, echo set up]}\n  containers:\n  - {name: a, image: busybox, command: [sh, -c, 'while true; do echo from a; sleep 1; done']}\n  - {name: b, image: busybox, command: [sh, -c, 'while true; do echo from b; sleep 1; done']}\n";
        let out = run(s, "apply -f -", file);
        assert!(!out.failed, "{}", out.text);
        for _ in 0..20 {
            s.tick(500.0);
        }
    }

    /// `-l`: the pods listed, each one's log read with 10 lines unless
    /// `--tail` says otherwise; `--prefix` names each line's source;
    /// `--all-containers` reads init containers first.
    #[test]
    fn logs_by_selector_read_every_pod() {
        let mut s = session();
        let pods = live(&mut s, "/api/v1/namespaces/default/pods?labelSelector=app%3Dhello");
        let names: Vec<&str> =
            pods["items"].as_array().unwrap().iter().map(|p| p["metadata"]["name"].as_str().unwrap()).collect();
        let from = s.log.len();
        let out = run(&mut s, "logs -l app=hello --prefix", "");
        assert!(!out.failed, "{}", out.text);
        let mut want = vec!["GET /api/v1/namespaces/default/pods?labelSelector=app%3Dhello 200".to_string()];
        want.extend(
            names
                .iter()
                .map(|n| format!("GET /api/v1/namespaces/default/pods/{n}/log?container=nginx&tailLines=10 200")),
        );
        assert_eq!(requests_since(&s, from), want);
        // Every line led by its pod and container, the pods in list order.
        let sources: Vec<&str> = out.text.lines().map(|l| l.split(' ').next().unwrap()).collect();
        assert!(sources.iter().all(|p| p.starts_with("[pod/")), "{}", out.text);
        assert_eq!(sources.first(), Some(&format!("[pod/{}/nginx]", names[0]).as_str()));
        assert_eq!(sources.last(), Some(&format!("[pod/{}/nginx]", names[1]).as_str()));
        let from = s.log.len();
        run(&mut s, "logs -l app=hello --tail=-1", "");
        assert!(requests_since(&s, from)[1].ends_with("/log?container=nginx 200"));

        two_containers(&mut s);
        let out = run(&mut s, "logs -l app=two --all-containers --prefix --tail=1", "");
        assert_eq!(out.text, "[pod/two/setup] set up\n[pod/two/a] from a\n[pod/two/b] from b\n");
        // One container each, the others named.
        let out = run(&mut s, "logs -l app=two --tail=1", "");
        assert_eq!(out.text, "Defaulted container \"a\" out of: a, b, setup (init)\nfrom a\n");

        let out = run(&mut s, "logs -l app=nosuch", "");
        assert_eq!((out.failed, out.text.as_str()), (false, "No resources found in default namespace.\n"));
        for (line, said) in [
            (
                "logs counter -l app=hello",
                "error: only a selector (-l) or a POD name is allowed\nSee 'kubectl logs -h' for help and examples\n",
            ),
            (
                "logs counter count -l app=hello",
                "error: selectors and the all flag cannot be used when passing resource/name arguments\n",
            ),
            ("logs", &format!("{USAGE}\n")),
            ("logs a b c", &format!("{USAGE}\n")),
        ] {
            let out = run(&mut s, line, "");
            assert_eq!((out.failed, out.text.as_str()), (true, said), "{line}");
        }
    }

    /// The container: as typed (`-c` or after the pod), the annotated
    /// default, or the first; one not in the pod refused before any log
    /// is asked for.
    #[test]
    fn the_container_is_chosen_and_checked_as_kubectl_does() {
        let mut s = session();
        two_containers(&mut s);
        let from = s.log.len();
        let out = run(&mut s, "logs two nosuch", "");
        assert_eq!(out.text, "error: container nosuch is not valid for pod two\n");
        assert_eq!(requests_since(&s, from), ["GET /api/v1/namespaces/default/pods/two 200"]);
        assert_eq!(run(&mut s, "logs two b --tail=1", "").text, "from b\n");
        assert_eq!(run(&mut s, "logs two -c setup", "").text, "set up\n");
        let out = run(&mut s, "annotate pod two kubectl.kubernetes.io/default-container=b", "");
        assert!(!out.failed, "{}", out.text);
        assert_eq!(run(&mut s, "logs two --tail=1", "").text, "from b\n");
        run(&mut s, "annotate pod two kubectl.kubernetes.io/default-container=gone --overwrite", "");
        assert_eq!(
            run(&mut s, "logs two --tail=1", "").text,
            "Default container name \"gone\" not found in pod two\nDefaulted container \"a\" out of: a, b, setup (init)\nfrom a\n"
        );
    }

    /// The flags become the PodLogOptions kubectl sends (keys in Go's
    /// order, `--since` in whole seconds, `--since-time` in UTC);
    /// kubectl's own checks refuse what it refuses.
    #[test]
    fn flags_become_the_options_kubectl_sends() {
        let mut s = session();
        let from = s.log.len();
        let out = run(
            &mut s,
            "logs counter --since=1500ms --timestamps --limit-bytes=100 --insecure-skip-tls-verify-backend",
            "",
        );
        assert!(!out.failed, "{}", out.text);
        assert_eq!(
            requests_since(&s, from)[1],
            "GET /api/v1/namespaces/default/pods/counter/log?container=count&insecureSkipTLSVerifyBackend=true&limitBytes=100&sinceSeconds=2&timestamps=true 200"
        );
        let from = s.log.len();
        run(&mut s, "logs counter --since-time=2026-12-01T10:00:00.5+01:00 --tail=3 -p=false", "");
        assert_eq!(
            requests_since(&s, from)[1],
            "GET /api/v1/namespaces/default/pods/counter/log?container=count&sinceTime=2026-12-01T09%3A00%3A00Z&tailLines=3 200"
        );
        // No instance before this one: the server's answer.
        let out = run(&mut s, "logs counter -p", "");
        assert_eq!(
            out.text,
            "Error from server (BadRequest): previous terminated container \"count\" in pod \"counter\" not found\n"
        );
        // `-f` prints what is there, and says it does not follow.
        let from = s.log.len();
        let out =
            run(&mut s, "logs counter -f --tail=1 --pod-running-timeout=5s --max-log-requests=2 --ignore-errors", "");
        assert_eq!((out.failed, out.text.lines().count(), out.differs), (false, 1, Some(differs::FOLLOWS)));
        assert_eq!(
            requests_since(&s, from)[1],
            "GET /api/v1/namespaces/default/pods/counter/log?container=count&follow=true&tailLines=1 200"
        );
        for (line, said) in [
            ("logs counter --since=soon", "error: invalid argument \"soon\" for \"--since\" flag: time: invalid duration \"soon\"\nSee 'kubectl logs --help' for usage."),
            ("logs counter --since-time=2026-12-01", "error: parsing time \"2026-12-01\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"\" as \"T\""),
            ("logs counter --since=5s --since-time=2026-12-01T00:00:00Z", "error: at most one of `sinceTime` or `sinceSeconds` may be specified"),
            ("logs counter --all-containers -c count", "error: --all-containers=true should not be specified with container name count"),
            ("logs counter count -c count", "error: only one of -c or an inline [CONTAINER] arg is allowed"),
            ("logs counter --limit-bytes=-1", "error: --limit-bytes must be greater than 0"),
            ("logs counter --since=-5s", "error: --since must be greater than 0"),
            ("logs counter --tail=-2", "error: --tail must be greater than or equal to -1"),
        ] {
            let out = run(&mut s, line, "");
            assert_eq!((out.failed, out.text.as_str()), (true, format!("{said}\n").as_str()), "{line}");
        }
    }

    /// `-p`: the instance before the last restart, read from its
    /// `lastState.terminated`.
    #[test]
    fn previous_reads_the_instance_before_the_restart() {
        let mut s = session();
        s.advance("10s");
        let pod = live(&mut s, "/api/v1/namespaces/default/pods/counter");
        let started = pod.pointer("/status/containerStatuses/0/state/running/startedAt").cloned().unwrap();
        let ended = SimTime(kubesim::clock::parse_rfc3339(started.as_str().unwrap()).unwrap() + 3_500).rfc3339();
        let body = json!({"status": {"containerStatuses": [{"name": "count", "lastState": {"terminated": {"exitCode": 137, "reason": "Error", "startedAt": started, "finishedAt": ended}}}]}});
        let e = send(
            &mut s,
            "PATCH",
            "/api/v1/namespaces/default/pods/counter/status",
            Some("application/strategic-merge-patch+json"),
            Some(&body),
            "application/json",
        );
        assert_eq!(e.response.status, 200);
        let out = run(&mut s, "logs counter --previous", "");
        assert!(!out.failed, "{}", out.text);
        let counts: Vec<&str> = out.text.lines().map(|l| l.split(':').next().unwrap()).collect();
        assert_eq!(counts, ["0", "1", "2", "3"], "{}", out.text);
    }

    #[test]
    fn since_time_reads_as_go_reads_rfc3339() {
        let at = |t: &str| go_rfc3339(t).map(|ms| SimTime(ms).rfc3339_micro());
        assert_eq!(at("2026-12-01T10:00:00Z").unwrap(), "2026-12-01T10:00:00.000000Z");
        assert_eq!(at("2026-12-01T1:02:03.25-02:30").unwrap(), "2026-12-01T03:32:03.250000Z");
        let layout = "as \"2006-01-02T15:04:05Z07:00\"";
        for (t, said) in [
            ("soon", format!("parsing time \"soon\" {layout}: cannot parse \"soon\" as \"2006\"")),
            (
                "2026-1-01T00:00:00Z",
                format!("parsing time \"2026-1-01T00:00:00Z\" {layout}: cannot parse \"1-01T00:00:00Z\" as \"01\""),
            ),
            (
                "2026-12-01T00:00:00",
                format!("parsing time \"2026-12-01T00:00:00\" {layout}: cannot parse \"\" as \"Z07:00\""),
            ),
            ("2026-13-01T00:00:00Z", "parsing time \"2026-13-01T00:00:00Z\": month out of range".into()),
            ("2026-02-29T00:00:00Z", "parsing time \"2026-02-29T00:00:00Z\": day out of range".into()),
            ("2026-12-01T24:00:00Z", "parsing time \"2026-12-01T24:00:00Z\": hour out of range".into()),
            ("2026-12-01T00:00:00Zs", "parsing time \"2026-12-01T00:00:00Zs\": extra text: \"s\"".into()),
        ] {
            assert_eq!(at(t), Err(said), "{t}");
        }
    }
}
