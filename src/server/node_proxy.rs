//! `nodes/NAME/proxy/PATH`: kube-apiserver passes the request on to the
//! node's kubelet and its answer back unchanged. Nothing runs, so the
//! simulated kubelet's HTTP endpoints answer here, from what is stored:
//!
//! - `healthz`: `ok`;
//! - `logs/` with a query (the node log query of spec 002, kubelet
//!   `enableSystemLogQuery: true` with the `NodeLogQuery` gate on): the
//!   `kubelet` and `containerd` services' journals as `journalctl --utc
//!   --output=short-precise` prints them, filtered by `sinceTime`,
//!   `untilTime`, `pattern` (a regular expression, case-insensitive when
//!   it has no capital, as `--grep`), `tailLines` and `boot`, with the
//!   kubelet's 400 (parameters that do not parse) and 406 (a query it
//!   refuses) in its own words;
//! - `logs/` without one: `/var/log` as Go's file server lists it, and
//!   `logs/containers/` the running containers' CRI log files, each
//!   readable (`stdout F line` after an RFC 3339 time).
//!
//! The kubelet's own log is a model built from the node and what ran on
//! it: its start-up lines when the Node was created, then per pod on the
//! node `SyncLoop ADD`, containers started and died (PLEG), `SyncLoop
//! DELETE`, and a line per event the kubelet recorded (it logs them at
//! `--v=3`), each stamped with its simulated time (docs/fidelity.md).

use crate::sort::Order;
use serde_json::Value;

use super::logs;
use super::params::Query;
use super::Response;
use crate::clock::{parse_rfc3339, SimTime};

/// What the kubelet would answer for `PATH` (after `proxy/`).
pub fn answer(
    node: &Value,
    method: &str,
    path: &str,
    q: &Query,
    pods: &[Value],
    events: &[Value],
    now: SimTime,
) -> Response {
    let path = path.trim_start_matches('/');
    match path.split('/').next().unwrap_or("") {
        "healthz" => text(200, "ok"),
        "logs" => {
            if method != "GET" && method != "HEAD" {
                let mut r = plain_error(405, "Method Not Allowed");
                r.headers.push(("Allow".into(), "GET".into()));
                return r;
            }
            let rest = path["logs".len()..].trim_start_matches('/');
            let node = Node { value: node, pods, events };
            match LogQuery::parse(q) {
                Err(message) => plain_error(400, &message),
                Ok(None) => node.file(rest, now),
                Ok(Some(_)) if !rest.is_empty() => plain_error(406, "path not allowed in query mode"),
                Ok(Some(query)) => match query.validate(&node, now) {
                    Err(message) => plain_error(406, &message),
                    Ok(()) => node.journal(&query, now),
                },
            }
        }
        _ => plain_error(404, "404 page not found"),
    }
}

fn text(status: u16, body: &str) -> Response {
    Response {
        status,
        headers: crate::server::typed_headers("text/plain; charset=utf-8"),
        body: body.as_bytes().to_vec(),
    }
}

/// An error as Go's `http.Error` writes it.
fn plain_error(status: u16, message: &str) -> Response {
    let mut r = text(status, &format!("{message}\n"));
    r.headers.push(("X-Content-Type-Options".into(), "nosniff".into()));
    r
}

/// A Go `%#v` of a string slice.
fn go_strings(v: &[String]) -> String {
    let quoted: Vec<String> = v.iter().map(|s| format!("{s:?}")).collect();
    format!("[]string{{{}}}", quoted.join(", "))
}

/// The kubelet's parsed `logs/?query=…` (upstream's `nodeLogQuery`).
#[derive(Debug, Default)]
struct LogQuery {
    services: Vec<String>,
    files: Vec<String>,
    since: Option<i64>,
    until: Option<i64>,
    tail: Option<i64>,
    boot: Option<i64>,
    pattern: Option<String>,
}

impl LogQuery {
    /// None when no parameter of the query is given (the file server
    /// answers); Err with the kubelet's 400 text.
    fn parse(q: &Query) -> Result<Option<LogQuery>, String> {
        const KNOWN: &[&str] = &["query", "sinceTime", "untilTime", "tailLines", "pattern", "boot"];
        if KNOWN.iter().all(|k| q.get(k).is_none()) {
            return Ok(None);
        }
        let mut errs = Vec::new();
        let mut lq = LogQuery::default();
        let queries = q.all("query");
        for v in &queries {
            if v.contains('/') || v.contains('\\') {
                lq.files.push(v.to_string());
            } else if !v.trim().is_empty() {
                lq.services.push(v.trim().to_string());
            }
        }
        if !queries.is_empty() && lq.files.is_empty() && lq.services.is_empty() {
            let all: Vec<String> = queries.iter().map(|s| s.to_string()).collect();
            errs.push(format!("query: Invalid value: {}: query cannot be empty", go_strings(&all)));
        }
        for (key, slot) in [("sinceTime", &mut lq.since), ("untilTime", &mut lq.until)] {
            if let Some(v) = q.get(key).filter(|v| !v.is_empty()) {
                match parse_rfc3339(v) {
                    Some(t) => *slot = Some(t),
                    None => errs.push(format!("{key}: Invalid value: {v:?}: invalid time format")),
                }
            }
        }
        for (key, slot) in [("tailLines", &mut lq.tail), ("boot", &mut lq.boot)] {
            if let Some(v) = q.get(key).filter(|v| !v.is_empty()) {
                match v.parse::<i64>() {
                    Ok(n) => *slot = Some(n),
                    Err(_) => {
                        errs.push(format!("{key}: Invalid value: {v:?}: strconv.Atoi: parsing {v:?}: invalid syntax"))
                    }
                }
            }
        }
        lq.pattern = q.get("pattern").filter(|p| !p.is_empty()).map(str::to_string);
        match errs.len() {
            0 => Ok(Some(lq)),
            1 => Err(errs.remove(0)),
            _ => Err(format!("[{}]", errs.join(", "))),
        }
    }

    fn has_options(&self) -> bool {
        self.since.is_some()
            || self.until.is_some()
            || self.tail.is_some()
            || self.boot.is_some()
            || self.pattern.is_some()
    }

    /// The kubelet's checks (406 when one fails), in its order.
    fn validate(&self, node: &Node<'_>, now: SimTime) -> Result<(), String> {
        let mut errs = Vec::new();
        for s in &self.services {
            let allowed = |c: char| c.is_ascii_alphanumeric() || "-_.:@".contains(c);
            if !s.chars().all(allowed) {
                errs.push(format!("query: Invalid value: {s:?}: input contains unsupported characters"));
            } else if s.len() > 256 {
                errs.push(format!("query: Invalid value: {s:?}: length must be less than 100"));
            }
        }
        if self.services.len() > 4 {
            errs.push(format!("query: Too many: {}: must have at most 4 items", self.services.len()));
        }
        match (self.files.len(), self.services.len()) {
            (0, 0) => errs.push("query: Required value: cannot be empty with options".into()),
            (f, s) if f > 0 && s > 0 => errs.push(format!(
                "query: Invalid value: \"{:?}, {:?}\": cannot specify a file and service",
                self.files, self.services
            )),
            (f, _) if f > 1 => errs
                .push(format!("query: Invalid value: {}: cannot specify more than one file", go_strings(&self.files))),
            (1, _) if self.has_options() => errs
                .push(format!("query: Invalid value: {}: cannot specify file with options", go_strings(&self.files))),
            (1, _) if node.read(&self.files[0], now).is_none() => errs.push(format!(
                "query: Invalid value: {}: stat /var/log/{}: no such file or directory",
                go_strings(&self.files),
                self.files[0].trim_start_matches('/')
            )),
            _ => {}
        }
        if let (Some(since), Some(until)) = (self.since, self.until) {
            if since > until {
                errs.push(format!("untilTime: Invalid value: {:?}: must be after `sinceTime`", go_time(until)));
            }
        }
        if let Some(b) = self.boot.filter(|b| *b > 0) {
            errs.push(format!("boot: Invalid value: {b}: must be less than 1"));
        }
        if let Some(t) = self.tail.filter(|t| !(0..=100_000).contains(t)) {
            errs.push(format!("tailLines: Invalid value: {t}: must be between 0 and 100000, inclusive"));
        }
        if let Some(p) = &self.pattern {
            if let Err(e) = regex_lite::Regex::new(p) {
                errs.push(format!("pattern: Invalid value: {p:?}: error parsing regexp: {e}"));
            }
        }
        match errs.len() {
            0 => Ok(()),
            1 => Err(errs.remove(0)),
            _ => Err(format!("[{}]", errs.join(", "))),
        }
    }
}

/// A time as Go's `time.Time.String` prints it.
fn go_time(ms: i64) -> String {
    let t = SimTime(ms).rfc3339();
    format!("{} {} +0000 UTC", &t[0..10], &t[11..19])
}

/// One journal entry: when, which unit, the message.
struct Entry {
    at: i64,
    unit: &'static str,
    message: String,
}

struct Node<'a> {
    value: &'a Value,
    pods: &'a [Value],
    events: &'a [Value],
}

fn str_at<'v>(v: &'v Value, path: &str) -> &'v str {
    v.pointer(path).and_then(Value::as_str).unwrap_or("")
}

fn time_at(v: &Value, path: &str) -> Option<i64> {
    parse_rfc3339(str_at(v, path))
}

impl Node<'_> {
    fn name(&self) -> &str {
        str_at(self.value, "/metadata/name")
    }

    /// The process id a unit runs as on this node (stable per node).
    fn pid(&self, unit: &str) -> u32 {
        let h = self
            .name()
            .bytes()
            .chain(unit.bytes())
            .fold(2166136261u32, |h, b| (h ^ u32::from(b)).wrapping_mul(16777619));
        300 + h % 3000
    }

    /// A klog line as the kubelet writes it (`I1123 10:00:00.123456 …`).
    fn klog(&self, at: i64, level: char, site: &str, message: &str) -> String {
        let t = SimTime(at).rfc3339();
        let micros = at.rem_euclid(1000) * 1000;
        format!(
            "{level}{}{} {}.{micros:06} {:>7} {site}] {message}",
            &t[5..7],
            &t[8..10],
            &t[11..19],
            self.pid("kubelet")
        )
    }

    /// Everything the node's services have written, oldest first.
    fn entries(&self) -> Vec<Entry> {
        let mut out = Vec::new();
        let Some(born) = time_at(self.value, "/metadata/creationTimestamp") else { return out };
        let name = self.name();
        let version = str_at(self.value, "/status/nodeInfo/kubeletVersion");
        let version = if version.is_empty() { "v1.33.0" } else { version };
        // The runtime starts first, then the kubelet, which registers.
        let boot = born - 2_000;
        for (i, m) in [
            "starting containerd\" revision=kubesim version=v2.0.0".to_string(),
            "serving...\" address=/run/containerd/containerd.sock".to_string(),
            "containerd successfully booted in 0.041s\"".to_string(),
        ]
        .into_iter()
        .enumerate()
        {
            let at = boot + i as i64 * 20;
            let ts = SimTime(at).rfc3339();
            out.push(Entry {
                at,
                unit: "containerd",
                message: format!("time=\"{}.{:09}Z\" level=info msg=\"{m}", &ts[..19], at.rem_euclid(1000) * 1_000_000),
            });
        }
        let start = [
            ("server.go:467", format!("\"Kubelet version\" kubeletVersion=\"{version}\"")),
            ("server.go:469", "\"Golang settings\" GOGC=\"\" GOMAXPROCS=\"\" GOTRACEBACK=\"\"".to_string()),
            ("kubelet.go:298", "\"Adding static pod path\" path=\"/etc/kubernetes/manifests\"".to_string()),
            (
                "kuberuntime_manager.go:257",
                "\"Container runtime initialized\" containerRuntime=\"containerd\" version=\"2.0.0\" apiVersion=\"v1\""
                    .to_string(),
            ),
            ("server.go:1232", "\"Started kubelet\"".to_string()),
            ("server.go:162", "\"Starting to listen\" address=\"0.0.0.0\" port=10250".to_string()),
            ("volume_manager.go:291", "\"Starting Kubelet Volume Manager\"".to_string()),
            ("kubelet_node_status.go:75", format!("\"Attempting to register node\" node={name:?}")),
            ("status_manager.go:217", "\"Starting to sync pod status with apiserver\"".to_string()),
            ("kubelet.go:2303", "\"Starting kubelet main sync loop\"".to_string()),
        ];
        let n = start.len() as i64;
        for (i, (site, m)) in start.into_iter().enumerate() {
            let at = born - (n - i as i64) * 50;
            out.push(Entry { at, unit: "kubelet", message: self.klog(at, 'I', site, &m) });
        }
        out.push(Entry {
            at: born,
            unit: "kubelet",
            message: self.klog(
                born,
                'I',
                "kubelet_node_status.go:78",
                &format!("\"Successfully registered node\" node={name:?}"),
            ),
        });
        for pod in self.pods {
            let key = format!("{}/{}", str_at(pod, "/metadata/namespace"), str_at(pod, "/metadata/name"));
            let uid = str_at(pod, "/metadata/uid");
            let mut add = |at: Option<i64>, site: &str, m: String| {
                if let Some(at) = at {
                    out.push(Entry { at, unit: "kubelet", message: self.klog(at, 'I', site, &m) });
                }
            };
            let seen = time_at(pod, "/status/startTime");
            add(seen, "kubelet.go:2407", format!("\"SyncLoop ADD\" source=\"api\" pods=[{key:?}]"));
            for cs in pod["status"]["containerStatuses"].as_array().into_iter().flatten() {
                let id = str_at(cs, "/containerID").rsplit("//").next().unwrap_or("").to_string();
                let pleg = |kind: &str| {
                    format!("\"SyncLoop (PLEG): event for pod\" pod={key:?} event={{\"ID\":{uid:?},\"Type\":\"{kind}\",\"Data\":{id:?}}}")
                };
                let state = &cs["state"];
                add(
                    time_at(state, "/running/startedAt").or(time_at(state, "/terminated/startedAt")),
                    "kubelet.go:2465",
                    pleg("ContainerStarted"),
                );
                add(time_at(state, "/terminated/finishedAt"), "kubelet.go:2465", pleg("ContainerDied"));
            }
            if let Some(end) = time_at(pod, "/metadata/deletionTimestamp") {
                let grace = pod["metadata"]["deletionGracePeriodSeconds"].as_i64().unwrap_or(0);
                add(
                    Some(end - grace * 1000),
                    "kubelet.go:2423",
                    format!("\"SyncLoop DELETE\" source=\"api\" pods=[{key:?}]"),
                );
            }
        }
        for e in self.events.iter().filter(|e| str_at(e, "/source/host") == name) {
            let Some(at) = time_at(e, "/lastTimestamp").or(time_at(e, "/firstTimestamp")) else { continue };
            let o = &e["involvedObject"];
            let object = match str_at(o, "/namespace") {
                "" => str_at(o, "/name").to_string(),
                ns => format!("{ns}/{}", str_at(o, "/name")),
            };
            let m = format!(
                "\"Event occurred\" object={object:?} fieldPath={:?} kind={:?} apiVersion={:?} type={:?} reason={:?} message={:?}",
                str_at(o, "/fieldPath"),
                str_at(o, "/kind"),
                str_at(o, "/apiVersion"),
                str_at(e, "/type"),
                str_at(e, "/reason"),
                str_at(e, "/message")
            );
            out.push(Entry { at, unit: "kubelet", message: self.klog(at, 'I', "event.go:389", &m) });
        }
        out.order_by_key(|e| e.at);
        out
    }

    /// `journalctl --utc --no-pager --output=short-precise` of the query.
    fn journal(&self, q: &LogQuery, now: SimTime) -> Response {
        let mut body = String::new();
        let known: Vec<&String> =
            q.services.iter().filter(|s| matches!(s.as_str(), "kubelet" | "containerd")).collect();
        for s in q.services.iter().filter(|s| !known.contains(s)) {
            body.push_str(&format!("\nlog not found for {s}\n"));
        }
        if q.boot.is_some_and(|b| b < 0) {
            body.push_str(&format!(
                "Data from the specified boot ({}) is not available: No such boot ID in journal\n",
                q.boot.unwrap_or(0)
            ));
        } else if !known.is_empty() {
            let pattern = q.pattern.as_ref().and_then(|p| {
                let smart = if p.chars().any(char::is_uppercase) { p.clone() } else { format!("(?i){p}") };
                regex_lite::Regex::new(&smart).ok()
            });
            let mut lines: Vec<String> = self
                .entries()
                .into_iter()
                .filter(|e| e.at <= now.0 && known.iter().any(|s| s.as_str() == e.unit))
                .filter(|e| q.since.is_none_or(|t| e.at >= t) && q.until.is_none_or(|t| e.at <= t))
                .filter(|e| pattern.as_ref().is_none_or(|p| p.is_match(&e.message)))
                .map(|e| {
                    format!("{} {} {}[{}]: {}", journal_time(e.at), self.name(), e.unit, self.pid(e.unit), e.message)
                })
                .collect();
            if let Some(n) = q.tail {
                let skip = lines.len().saturating_sub(n as usize);
                lines.drain(..skip);
            }
            if lines.is_empty() {
                body.push_str("-- No entries --\n");
            }
            for l in lines {
                body.push_str(&l);
                body.push('\n');
            }
        }
        Response {
            status: 200,
            headers: crate::server::typed_headers("text/plain;charset=UTF-8"),
            body: body.into_bytes(),
        }
    }

    /// The CRI log files of the containers running here, by file name
    /// under `/var/log/containers/` (`<pod>_<ns>_<container>-<id>.log`),
    /// with their pod and container.
    fn container_files(&self) -> Vec<(String, &Value, String, SimTime)> {
        let mut out = Vec::new();
        for pod in self.pods {
            for cs in pod["status"]["containerStatuses"].as_array().into_iter().flatten() {
                let Some(started) = time_at(cs, "/state/running/startedAt") else { continue };
                let id = str_at(cs, "/containerID").rsplit("//").next().unwrap_or("");
                let c = str_at(cs, "/name");
                let file =
                    format!("{}_{}_{c}-{id}.log", str_at(pod, "/metadata/name"), str_at(pod, "/metadata/namespace"));
                out.push((file, pod, c.to_string(), SimTime(started)));
            }
        }
        out.order_by(|a, b| a.0.cmp(&b.0));
        out
    }

    /// A file under `/var/log`, if there is one.
    fn read(&self, path: &str, now: SimTime) -> Option<String> {
        let name = path.trim_start_matches('/').strip_prefix("containers/")?;
        let (_, pod, c, started) = self.container_files().into_iter().find(|f| f.0 == name)?;
        let mut text = String::new();
        for l in logs::container_output(pod, &c, started, now) {
            text.push_str(&format!("{} stdout F {}\n", logs::nano_timestamp(l.at), l.text));
        }
        Some(text)
    }

    /// Go's file server over `/var/log`: a directory lists, a file reads.
    fn file(&self, path: &str, now: SimTime) -> Response {
        let listing = |entries: Vec<String>| {
            let mut body =
                String::from("<!doctype html>\n<meta name=\"viewport\" content=\"width=device-width\">\n<pre>\n");
            for e in entries {
                body.push_str(&format!("<a href=\"{e}\">{e}</a>\n"));
            }
            body.push_str("</pre>\n");
            Response {
                status: 200,
                headers: crate::server::typed_headers("text/html; charset=utf-8"),
                body: body.into_bytes(),
            }
        };
        match path.trim_end_matches('/') {
            "" => listing(vec!["containers/".into(), "journal/".into(), "pods/".into()]),
            "containers" => listing(self.container_files().into_iter().map(|f| f.0).collect()),
            "journal" | "pods" => listing(Vec::new()),
            file => match self.read(file, now) {
                Some(body) => text(200, &body),
                None => plain_error(404, "404 page not found"),
            },
        }
    }
}

/// journalctl's `short-precise` time (`Nov 23 10:00:00.123000`).
fn journal_time(at: i64) -> String {
    const MONTHS: [&str; 12] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
    let t = SimTime(at).rfc3339();
    let month: usize = t[5..7].parse().unwrap_or(1);
    format!("{} {} {}.{:06}", MONTHS[month.clamp(1, 12) - 1], &t[8..10], &t[11..19], at.rem_euclid(1000) * 1000)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn node() -> Value {
        json!({"metadata": {"name": "worker-1", "creationTimestamp": "2026-11-23T10:00:00Z"},
            "status": {"nodeInfo": {"kubeletVersion": "v1.33.0"}}})
    }

    fn get(q: &str, pods: &[Value], events: &[Value]) -> (u16, String) {
        let now = SimTime(parse_rfc3339("2026-11-23T10:05:00Z").unwrap_or(0));
        let r = answer(&node(), "GET", "logs/", &Query::parse(q), pods, events, now);
        (r.status, String::from_utf8(r.body).unwrap_or_default())
    }

    #[test]
    fn the_kubelet_journal_reads_as_journalctl_prints_it() {
        let pod = json!({"metadata": {"name": "web", "namespace": "default", "uid": "u1"},
            "status": {"startTime": "2026-11-23T10:01:00Z", "containerStatuses": [{"name": "c",
                "containerID": "containerd://abc", "state": {"running": {"startedAt": "2026-11-23T10:01:01Z"}}}]}});
        let (status, body) = get("query=kubelet", std::slice::from_ref(&pod), &[]);
        assert_eq!(status, 200);
        let lines: Vec<&str> = body.lines().collect();
        assert!(lines[0].starts_with("Nov 23 09:59:59.500000 worker-1 kubelet["), "{body}");
        assert!(lines[0].ends_with("server.go:467] \"Kubelet version\" kubeletVersion=\"v1.33.0\""), "{body}");
        assert!(body.contains("] \"SyncLoop ADD\" source=\"api\" pods=[\"default/web\"]"), "{body}");
        assert!(body.contains("\"Type\":\"ContainerStarted\",\"Data\":\"abc\""), "{body}");
        assert!(!body.contains("containerd["), "one unit asked for");
        let (_, body) = get("query=kubelet&pattern=syncloop", std::slice::from_ref(&pod), &[]);
        assert_eq!(body.lines().count(), 2, "smart case: a lowercase pattern ignores case");
        let (_, body) = get("query=kubelet&pattern=SyncLoop%20ADD&tailLines=1", &[pod], &[]);
        assert_eq!(body.lines().count(), 1);
        assert!(body.contains("SyncLoop ADD"));
        let (_, body) = get("query=kubelet&sinceTime=2026-11-23T11:00:00Z", &[], &[]);
        assert_eq!(body, "-- No entries --\n");
        let (_, body) = get("query=nginx", &[], &[]);
        assert_eq!(body, "\nlog not found for nginx\n");
    }

    #[test]
    fn bad_queries_get_the_kubelets_answers() {
        assert_eq!(
            get("query=kubelet&tailLines=x", &[], &[]),
            (400, "tailLines: Invalid value: \"x\": strconv.Atoi: parsing \"x\": invalid syntax\n".into())
        );
        assert_eq!(
            get("query=", &[], &[]),
            (400, "query: Invalid value: []string{\"\"}: query cannot be empty\n".into())
        );
        assert_eq!(get("tailLines=3", &[], &[]), (406, "query: Required value: cannot be empty with options\n".into()));
        assert_eq!(
            get("query=kubelet&tailLines=100001", &[], &[]),
            (406, "tailLines: Invalid value: 100001: must be between 0 and 100000, inclusive\n".into())
        );
        assert_eq!(
            get("query=/nope.log", &[], &[]),
            (
                406,
                "query: Invalid value: []string{\"/nope.log\"}: stat /var/log/nope.log: no such file or directory\n"
                    .into()
            )
        );
        let (status, body) = get("query=kubelet&pattern=(", &[], &[]);
        assert_eq!(status, 406);
        assert!(body.starts_with("pattern: Invalid value: \"(\": error parsing regexp: "), "{body}");
        let (status, body) = get("", &[], &[]);
        assert_eq!(status, 200);
        assert!(body.contains("<a href=\"containers/\">containers/</a>"), "{body}");
    }
}
