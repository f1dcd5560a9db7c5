//! `pods/NAME/log`: what a container has printed, as the kubelet would
//! answer through the API server. Nothing runs, so output is a model of
//! the container, computed from its spec, when it started (its
//! `containerStatuses[].state.running.startedAt`) and the simulated now:
//!
//! - a shell script (`sh -c '…'` in command or args) is read for the
//!   common teaching shapes: `echo` statements before a `while true; do …;
//!   done` loop print once; inside the loop each `echo` prints every `sleep
//!   N` seconds, with `$i`/`${i}` the loop counter (`i=0` … `i=$((i+1))`)
//!   and `$(date)` the time as busybox's `date` prints it; an `echo` into a
//!   file (`>> /var/log/1.log`) prints nothing but feeds a sidecar that
//!   runs `tail -f`/`-F` of that file in the same pod (spec 002's `counter`
//!   pod and its two sidecars);
//! - `echo words…` as a command prints its words;
//! - nginx and CoreDNS images print their usual start-up lines;
//! - anything else prints nothing.
//!
//! The same model says which containers end at once (`exit_code`): a
//! script with no loop, sleep or tail (its last `exit N`, else 0), a
//! one-shot program (`echo`, `true`, `date`, `perl`…; `false` fails), a
//! bare shell image (busybox, alpine…) with no command.
//!
//! The query is upstream's PodLogOptions: `container` (required when the
//! pod has several), `tailLines`, `sinceSeconds`/`sinceTime`,
//! `timestamps` (RFC 3339 with nanoseconds, trailing zeros trimmed, as the
//! CRI log format), `limitBytes`, `previous` (the instance before the last
//! restart, from `lastState.terminated`; the kubelet's 400 when there is
//! none), `follow` (a `LogFollow` the door polls as simulated time passes,
//! ended when the container stops). At most 10,000 lines are kept, as a
//! rotated log file would be (docs/fidelity.md).

use serde_json::{json, Value};

use super::params::Query;
use crate::api::{FieldError, Status};
use crate::clock::{parse_rfc3339, SimTime};

/// The most lines a container's log holds (older ones are rotated away).
const MAX_LINES: usize = 10_000;

/// One line a container printed, at a time.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogLine {
    pub at: SimTime,
    pub text: String,
}

/// The answer to `GET pods/NAME/log?…`: the text so far, and with
/// `follow` for a running container, what to follow it with.
#[derive(Debug)]
pub enum PodLog {
    Done(String),
    Following(String, LogFollow),
}

/// A `follow` stream's place in a container's output: the door polls it
/// (`Server::poll_log`) as simulated time passes, until the container it
/// follows stops (its pod gone or replaced, the container ended or
/// restarted) or `limitBytes` is reached, as the kubelet ends the stream.
#[derive(Clone, Debug)]
pub struct LogFollow {
    pub namespace: String,
    pub name: String,
    uid: String,
    container: String,
    container_id: String,
    started: SimTime,
    timestamps: bool,
    /// Bytes still allowed by `limitBytes`.
    limit_left: Option<usize>,
    /// Lines up to this time have been sent.
    upto: SimTime,
    done: bool,
}

impl LogFollow {
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// What the container printed since the last call; marks the stream
    /// done when the container it follows has stopped. `pod` is the pod as
    /// stored now (None once it is gone).
    pub fn more(&mut self, pod: Option<&Value>, now: SimTime) -> String {
        if self.done {
            return String::new();
        }
        let Some(pod) = pod.filter(|p| p["metadata"]["uid"] == self.uid.as_str()) else {
            self.done = true;
            return String::new();
        };
        let status = container_status(pod, &self.container);
        let (state, last) = (&status["state"], &status["lastState"]);
        // Where the followed instance's output ends, if it has ended.
        let ended = if status["containerID"] == self.container_id.as_str() && state.get("running").is_some() {
            None
        } else if status["containerID"] == self.container_id.as_str() {
            Some(state["terminated"]["finishedAt"].as_str().and_then(parse_rfc3339).unwrap_or(now.0))
        } else {
            Some(last["terminated"]["finishedAt"].as_str().and_then(parse_rfc3339).unwrap_or(self.upto.0))
        };
        let until = SimTime(ended.map_or(now.0, |e| e.min(now.0)).max(self.upto.0));
        let lines: Vec<LogLine> = container_output(pod, &self.container, self.started, until)
            .into_iter()
            .filter(|l| l.at.0 > self.upto.0)
            .collect();
        self.upto = until;
        let mut text = render_lines(lines, self.timestamps);
        if let Some(left) = self.limit_left.as_mut() {
            if text.len() >= *left {
                truncate_at(&mut text, *left);
                self.done = true;
            }
            *left -= text.len();
        }
        if ended.is_some() {
            self.done = true;
        }
        text
    }
}

fn container_status(pod: &Value, container: &str) -> Value {
    ["containerStatuses", "initContainerStatuses", "ephemeralContainerStatuses"]
        .iter()
        .filter_map(|k| pod["status"][k].as_array())
        .flatten()
        .find(|s| s["name"] == container)
        .cloned()
        .unwrap_or(Value::Null)
}

pub fn pod_log(pod: &Value, q: &Query, now: SimTime) -> Result<PodLog, Status> {
    let name = pod["metadata"]["name"].as_str().unwrap_or("");
    let options = LogOptions::parse(q, name)?;
    let names = |list: &str| -> Vec<String> {
        pod["spec"][list]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|c| c["name"].as_str().map(str::to_string))
            .collect()
    };
    let (main, init) = (names("containers"), names("initContainers"));
    let container = match options.container.clone() {
        Some(c) => c,
        None if main.len() == 1 => main[0].clone(),
        None => {
            let mut message =
                format!("a container name must be specified for pod {name}, choose one of: [{}]", main.join(" "));
            if !init.is_empty() {
                message.push_str(&format!(" or one of the init containers: [{}]", init.join(" ")));
            }
            return Err(Status::bad_request(message));
        }
    };
    // Any of the pod's containers, ephemeral ones too, may be named.
    if !main.contains(&container) && !init.contains(&container) && !names("ephemeralContainers").contains(&container) {
        return Err(Status::bad_request(format!("container {container} is not valid for pod {name}")));
    }
    // Not on a node yet: nothing to read.
    if pod["spec"]["nodeName"].as_str().unwrap_or("").is_empty() {
        return Ok(PodLog::Done(String::new()));
    }
    let status = container_status(pod, &container);
    // The instance asked for: the one before the last restart, or this one.
    let state = if options.previous {
        let last = &status["lastState"]["terminated"];
        if last.is_null() {
            return Err(Status::bad_request(format!(
                "previous terminated container {container:?} in pod {name:?} not found"
            )));
        }
        json!({"terminated": last})
    } else {
        status["state"].clone()
    };
    // A finished container's log ends when it did.
    let end = match state["terminated"]["finishedAt"].as_str().and_then(parse_rfc3339) {
        Some(finished) => SimTime(finished.min(now.0)),
        None => now,
    };
    let started = state["running"]["startedAt"].as_str().or(state["terminated"]["startedAt"].as_str());
    let Some(started) = started.and_then(parse_rfc3339) else {
        // The kubelet words the two pull failures, the rest by their reason.
        let reason = match state["waiting"]["reason"].as_str().unwrap_or("ContainerCreating") {
            "ErrImagePull" => "image can't be pulled",
            "ImagePullBackOff" => "trying and failing to pull image",
            other => other,
        };
        return Err(Status::bad_request(format!(
            "container {container:?} in pod {name:?} is waiting to start: {reason}"
        )));
    };
    let lines = container_output(pod, &container, SimTime(started), end);
    let text = options.render(lines, end);
    let running = state.get("running").is_some();
    let limited = options.limit_bytes.is_some_and(|l| text.len() >= l);
    if !options.follow || !running || limited {
        return Ok(PodLog::Done(text));
    }
    let follow = LogFollow {
        namespace: pod["metadata"]["namespace"].as_str().unwrap_or("").to_string(),
        name: name.to_string(),
        uid: pod["metadata"]["uid"].as_str().unwrap_or("").to_string(),
        container,
        container_id: status["containerID"].as_str().unwrap_or("").to_string(),
        started: SimTime(started),
        timestamps: options.timestamps,
        limit_left: options.limit_bytes.map(|l| l - text.len()),
        upto: end,
        done: false,
    };
    Ok(PodLog::Following(text, follow))
}

struct LogOptions {
    container: Option<String>,
    previous: bool,
    follow: bool,
    timestamps: bool,
    tail: Option<usize>,
    since_ms: Option<i64>,
    since_time: Option<i64>,
    limit_bytes: Option<usize>,
}

impl LogOptions {
    fn parse(q: &Query, name: &str) -> Result<LogOptions, Status> {
        let mut errs = Vec::new();
        let flag = |k: &str| q.get(k).is_some_and(|v| v == "true" || v == "1");
        let mut number = |k: &str, min: i64, detail: &str| -> Option<i64> {
            let v = q.get(k).filter(|v| !v.is_empty())?;
            match v.parse::<i64>() {
                Ok(n) if n >= min => Some(n),
                Ok(n) => {
                    errs.push(FieldError::invalid_value(k, &serde_json::json!(n), detail));
                    None
                }
                Err(_) => {
                    errs.push(FieldError::invalid(k, v, "must be an integer"));
                    None
                }
            }
        };
        let tail = number("tailLines", 0, "must be greater than or equal to 0").map(|n| n as usize);
        let since_ms = number("sinceSeconds", 1, "must be greater than 0").map(|n| n * 1000);
        let limit_bytes = number("limitBytes", 1, "must be greater than 0").map(|n| n as usize);
        let since_time = match q.get("sinceTime").filter(|v| !v.is_empty()) {
            None => None,
            Some(t) => match parse_rfc3339(t) {
                Some(ms) => Some(ms),
                None => return Err(Status::bad_request(format!("invalid sinceTime {t:?}: expected RFC 3339"))),
            },
        };
        if since_ms.is_some() && since_time.is_some() {
            errs.push(FieldError::forbidden("", "at most one of `sinceTime` or `sinceSeconds` may be specified"));
        }
        if !errs.is_empty() {
            return Err(Status::invalid("", "PodLogOptions", name, &errs));
        }
        Ok(LogOptions {
            container: q.get("container").filter(|c| !c.is_empty()).map(str::to_string),
            previous: flag("previous"),
            follow: flag("follow"),
            timestamps: flag("timestamps"),
            tail,
            since_ms,
            since_time,
            limit_bytes,
        })
    }

    fn render(&self, lines: Vec<LogLine>, now: SimTime) -> String {
        let from = self.since_time.or(self.since_ms.map(|ms| now.0 - ms));
        let mut kept: Vec<LogLine> = lines.into_iter().filter(|l| from.is_none_or(|f| l.at.0 >= f)).collect();
        if let Some(n) = self.tail {
            let skip = kept.len().saturating_sub(n);
            kept.drain(..skip);
        }
        let mut out = render_lines(kept, self.timestamps);
        if let Some(limit) = self.limit_bytes {
            truncate_at(&mut out, limit);
        }
        out
    }
}

fn render_lines(lines: Vec<LogLine>, timestamps: bool) -> String {
    let mut out = String::new();
    for l in lines {
        if timestamps {
            out.push_str(&nano_timestamp(l.at));
            out.push(' ');
        }
        out.push_str(&l.text);
        out.push('\n');
    }
    out
}

/// Cuts text to at most `limit` bytes (on a character boundary; the last
/// line may be left partial, as the kubelet's limited writer leaves it).
fn truncate_at(text: &mut String, limit: usize) {
    if text.len() > limit {
        let mut cut = limit;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
    }
}

/// RFC 3339 with the fraction Go's RFC3339Nano prints (trailing zeros
/// trimmed, none for a whole second).
pub fn nano_timestamp(t: SimTime) -> String {
    let whole = t.rfc3339();
    let ms = t.0.rem_euclid(1000);
    if ms == 0 {
        return whole;
    }
    let frac = format!("{ms:03}");
    format!("{}.{}Z", whole.trim_end_matches('Z'), frac.trim_end_matches('0'))
}

/// A time as busybox's `date` prints it: `Mon Nov 23 15:30:00 UTC 2026`.
pub fn busybox_date(t: SimTime) -> String {
    const DAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
    let ts = t.rfc3339();
    let days = t.0.div_euclid(86_400_000);
    let month: usize = ts[5..7].parse().unwrap_or(1);
    let day: u32 = ts[8..10].parse().unwrap_or(1);
    format!(
        "{} {} {day:>2} {} UTC {}",
        DAYS[days.rem_euclid(7) as usize],
        MONTHS[month.clamp(1, 12) - 1],
        &ts[11..19],
        &ts[0..4]
    )
}

/// A container's command then args, as words.
fn command_words(c: &Value) -> Vec<&str> {
    c["command"]
        .as_array()
        .into_iter()
        .flatten()
        .chain(c["args"].as_array().into_iter().flatten())
        .filter_map(Value::as_str)
        .collect()
}

/// The script a container runs under a shell, if it does.
fn shell_script(c: &Value) -> Option<String> {
    let words = command_words(c);
    let at = words.iter().position(|w| *w == "-c")?;
    let shell = words.get(at.checked_sub(1)?)?;
    if !shell.ends_with("sh") {
        return None;
    }
    words.get(at + 1).map(|s| s.to_string())
}

/// One `echo` of a script: its template and the file it goes to, if any.
#[derive(Clone, Debug)]
struct Echo {
    template: String,
    file: Option<String>,
}

/// What a shell script prints: echoes once, then a loop's echoes every
/// `period` milliseconds.
#[derive(Clone, Debug, Default)]
struct Script {
    before: Vec<Echo>,
    looped: Vec<Echo>,
    period_ms: i64,
    start: i64,
}

fn parse_script(script: &str) -> Script {
    let mut s = Script { period_ms: 1000, ..Default::default() };
    let statements: Vec<String> =
        script.split(['\n', ';']).map(|t| t.trim().to_string()).filter(|t| !t.is_empty()).collect();
    let mut in_loop = false;
    for st in statements {
        let st = st.strip_prefix("do ").map(str::trim).unwrap_or(&st).to_string();
        match st.as_str() {
            "while true" | "while :" => in_loop = true,
            "do" | "done" => {}
            _ if st.starts_with("echo") => {
                let echo = parse_echo(&st);
                if in_loop {
                    s.looped.push(echo);
                } else {
                    s.before.push(echo);
                }
            }
            _ if st.starts_with("sleep ") && in_loop => {
                if let Ok(secs) = st["sleep ".len()..].trim().parse::<f64>() {
                    s.period_ms = ((secs * 1000.0) as i64).max(1);
                }
            }
            _ => {
                if let Some((var, value)) = st.split_once('=') {
                    if var == "i" {
                        if let Ok(n) = value.parse::<i64>() {
                            s.start = n;
                        }
                    }
                }
            }
        }
    }
    s
}

fn parse_echo(st: &str) -> Echo {
    let rest = st["echo".len()..].trim();
    let (text, file) = match rest.rsplit_once(">>").or_else(|| rest.rsplit_once('>')) {
        Some((t, f)) if !f.trim().is_empty() => (t.trim(), Some(f.trim().to_string())),
        _ => (rest, None),
    };
    let unquoted = text.strip_prefix('"').and_then(|t| t.strip_suffix('"')).unwrap_or(text);
    let unquoted = unquoted.strip_prefix('\'').and_then(|t| t.strip_suffix('\'')).unwrap_or(unquoted);
    Echo { template: unquoted.to_string(), file }
}

fn expand(template: &str, i: i64, at: SimTime) -> String {
    template.replace("$(date)", &busybox_date(at)).replace("${i}", &i.to_string()).replace("$i", &i.to_string())
}

impl Script {
    /// What the script writes to `file` (None: to stdout) from `start`
    /// until `now`, the newest `MAX_LINES`.
    fn output(&self, file: Option<&str>, start: SimTime, now: SimTime) -> Vec<LogLine> {
        let mut out = Vec::new();
        for e in self.before.iter().filter(|e| e.file.as_deref() == file) {
            out.push(LogLine { at: start, text: expand(&e.template, self.start, start) });
        }
        let looped: Vec<&Echo> = self.looped.iter().filter(|e| e.file.as_deref() == file).collect();
        if !looped.is_empty() && now.0 >= start.0 {
            let rounds = (now.0 - start.0) / self.period_ms + 1;
            let first = (rounds - (MAX_LINES / looped.len()) as i64).max(0);
            for k in first..rounds {
                let at = SimTime(start.0 + k * self.period_ms);
                for e in &looped {
                    out.push(LogLine { at, text: expand(&e.template, self.start + k, at) });
                }
            }
        }
        let skip = out.len().saturating_sub(MAX_LINES);
        out.drain(..skip);
        out
    }
}

/// The file a `tail -f`/`-F` container follows, if that is what it does.
fn tailed_file(c: &Value) -> Option<String> {
    let words: Vec<String> = match shell_script(c) {
        Some(script) => script.split_whitespace().map(str::to_string).collect(),
        None => command_words(c).into_iter().map(str::to_string).collect(),
    };
    let tail = words.iter().position(|w| w == "tail" || w.ends_with("/tail"))?;
    let follows = words[tail..].iter().any(|w| w == "-f" || w == "-F");
    follows.then(|| words.last().cloned()).flatten().filter(|f| f.starts_with('/'))
}

/// Images whose default command is a shell, which exits at once with no
/// terminal attached.
const SHELL_IMAGES: &[&str] = &["busybox", "alpine", "ubuntu", "debian", "centos", "fedora", "bash"];
/// Programs that print and exit.
const ONE_SHOT: &[&str] =
    &["echo", "true", "printf", "date", "env", "ls", "perl", "hostname", "uname", "cat", "whoami"];

/// The program a container starts: its `command`'s first word, or, for
/// an image with no entrypoint of its own (busybox and the like, whose
/// default command is a shell), its `args`' first word, which then
/// replace that shell (as `kubectl run NAME --image=busybox -- echo hi`
/// sends them).
fn program(c: &Value) -> Option<&str> {
    let first = |field: &str| c[field].as_array().and_then(|a| a.first()).and_then(Value::as_str);
    match first("command") {
        Some(p) => Some(p),
        None if SHELL_IMAGES.contains(&image_name(c)) => first("args"),
        None => None,
    }
}

fn image_name(c: &Value) -> &str {
    let image = c["image"].as_str().unwrap_or("");
    let repo = image.rsplit('/').next().unwrap_or(image);
    repo.split([':', '@']).next().unwrap_or(repo)
}

/// How long a container's program runs and how it ends: Some((milliseconds,
/// exit code)), or None while it runs for good (servers, loops). A script
/// with no loop runs for the sum of its `sleep`s and ends with its first
/// `exit N` (else 0); `sleep N` as the command runs N seconds.
pub fn lifetime(c: &Value) -> Option<(i64, i64)> {
    if let Some(script) = shell_script(c) {
        let forever = ["while true", "while :", "sleep infinity", "tail -f", "tail -F", "nc -l", "httpd"];
        if forever.iter().any(|f| script.contains(f)) {
            return None;
        }
        let statements: Vec<&str> = script.split(['\n', ';', '&', '|']).map(str::trim).collect();
        let mut ms = 0i64;
        for st in &statements {
            if let Some(n) = st.strip_prefix("sleep ") {
                ms += (n.trim().parse::<f64>().ok()? * 1000.0) as i64;
            }
        }
        let first_exit = statements
            .iter()
            .filter_map(|st| st.strip_prefix("exit"))
            .filter_map(|rest| {
                let rest = rest.trim();
                if rest.is_empty() {
                    Some(0)
                } else {
                    rest.parse::<i64>().ok()
                }
            })
            .next();
        return Some((ms, first_exit.unwrap_or(0)));
    }
    let words = command_words(c);
    match program(c) {
        Some(first) => {
            let program = first.rsplit('/').next().unwrap_or(first);
            match program {
                "false" => Some((0, 1)),
                "sleep" => words.get(1).and_then(|n| n.parse::<f64>().ok()).map(|n| ((n * 1000.0) as i64, 0)),
                p if ONE_SHOT.contains(&p) => Some((0, 0)),
                _ => None,
            }
        }
        None if c["args"].is_null() && SHELL_IMAGES.contains(&image_name(c)) => Some((0, 0)),
        None => None,
    }
}

/// The name a script waits to resolve (`until nslookup myservice.ns.svc…;
/// do …; sleep 2; done`, as Kubernetes' init container example waits for
/// its Services): the host's first label, the second when it is written
/// out (else None: the pod's own namespace), and how often it tries
/// (the loop's sleep, in milliseconds).
pub fn waits_to_resolve(c: &Value) -> Option<(String, Option<String>, i64)> {
    let script = shell_script(c)?;
    let rest = &script[script.find("until nslookup ")? + "until nslookup ".len()..];
    let host: String = rest.chars().take_while(|ch| !ch.is_whitespace() && *ch != ';').collect();
    let mut labels = host.split('.');
    let name = labels.next().filter(|n| !n.is_empty() && !n.contains('$'))?.to_string();
    let namespace = labels.next().filter(|n| !n.is_empty() && !n.contains(['$', '(', ')'])).map(str::to_string);
    let every = script
        .split(['\n', ';'])
        .filter_map(|st| st.trim().strip_prefix("sleep "))
        .find_map(|n| n.trim().parse::<f64>().ok())
        .map_or(1_000, |n| ((n * 1000.0) as i64).max(1));
    Some((name, namespace, every))
}

/// When a container's probe (`livenessProbe`, `readinessProbe`) starts
/// failing, in milliseconds after the container starts, and what the
/// probe says then, from what its program does: an exec probe reading a
/// file (`cat F`, `ls F`, `test -e F`) fails once the container's script removes it (`touch F;
/// sleep 30; rm -f F; sleep 600`, Kubernetes' liveness example: after the
/// sleeps before the `rm`), or at once when the file is under `/tmp` and
/// no `touch` made it first, in busybox's words (a container running its
/// image's own program, or a file elsewhere, which the image may hold,
/// passes); an HTTP probe of agnhost's `liveness` server fails 10
/// seconds after it starts (it answers 500 from then on). None: the probe
/// keeps succeeding.
pub fn probe_fails_after(c: &Value, probe: &str) -> Option<(i64, String)> {
    let probe = c.get(probe).filter(|p| p.is_object())?;
    if let Some(command) = probe.pointer("/exec/command").and_then(Value::as_array) {
        let words: Vec<&str> = command.iter().filter_map(Value::as_str).collect();
        let (tool, file) = match words.as_slice() {
            [tool @ ("cat" | "ls"), file] => (*tool, *file),
            ["test", "-e" | "-f", file] => ("test", *file),
            _ => return None,
        };
        let said = match tool {
            "cat" => format!("cat: can't open '{file}': No such file or directory"),
            "ls" => format!("ls: {file}: No such file or directory"),
            _ => String::new(),
        };
        let script = shell_script(c)?;
        let (mut ms, mut made) = (0i64, false);
        for st in script.split(['\n', ';', '&']).map(str::trim) {
            let names_file = || st.split_whitespace().skip(1).any(|w| w == file);
            if let Some(n) = st.strip_prefix("sleep ") {
                ms += (n.trim().parse::<f64>().ok()? * 1000.0) as i64;
            } else if st.starts_with("touch ") && names_file() {
                made = true;
            } else if st.starts_with("rm ") && names_file() && made {
                return Some((ms, said));
            }
        }
        // A file under /tmp that nothing made is not there.
        return (!made && file.starts_with("/tmp/")).then_some((0, said));
    }
    let agnhost =
        image_name(c) == "agnhost" && c["args"].as_array().and_then(|a| a.first()) == Some(&json!("liveness"));
    if probe.get("httpGet").is_some_and(Value::is_object) && agnhost {
        return Some((10_000, "HTTP probe failed with statuscode: 500".into()));
    }
    None
}

/// The exit code of a container whose program ends at once.
pub fn exit_code(c: &Value) -> Option<i64> {
    lifetime(c).filter(|(ms, _)| *ms == 0).map(|(_, code)| code)
}

/// Whether a container's program stops when sent SIGTERM. A shell or
/// `sleep`/`tail` running as the container's first process has no handler
/// and so ignores it, and is killed when the grace period ends; servers
/// started by their image's entrypoint stop at once.
pub fn stops_on_sigterm(c: &Value) -> bool {
    if shell_script(c).is_some() {
        return false;
    }
    match program(c) {
        Some(first) => !matches!(first.rsplit('/').next(), Some("sleep" | "tail" | "sh" | "bash" | "cat")),
        None => true,
    }
}

/// Everything a container has printed since it started.
pub fn container_output(pod: &Value, container: &str, started: SimTime, now: SimTime) -> Vec<LogLine> {
    let all: Vec<&Value> = pod["spec"]["containers"]
        .as_array()
        .into_iter()
        .flatten()
        .chain(pod["spec"]["initContainers"].as_array().into_iter().flatten())
        .chain(pod["spec"]["ephemeralContainers"].as_array().into_iter().flatten())
        .collect();
    let Some(c) = all.iter().find(|c| c["name"] == container) else { return Vec::new() };
    if let Some(file) = tailed_file(c) {
        // A sidecar printing what another container writes to a file.
        for writer in &all {
            if let Some(script) = shell_script(writer) {
                let s = parse_script(&script);
                let lines = s.output(Some(&file), started, now);
                if !lines.is_empty() {
                    return lines;
                }
            }
        }
        return Vec::new();
    }
    if let Some(script) = shell_script(c) {
        return parse_script(&script).output(None, started, now);
    }
    // `echo words…` as a command prints its words.
    let words = command_words(c);
    if words.first().is_some_and(|w| w.rsplit('/').next() == Some("echo")) {
        return vec![LogLine { at: started, text: words[1..].join(" ") }];
    }
    let image = c["image"].as_str().unwrap_or("");
    let repo = image.rsplit('/').next().unwrap_or(image);
    let name = repo.split([':', '@']).next().unwrap_or(repo);
    let has_command = !c["command"].is_null();
    let at = |text: String| LogLine { at: started, text };
    match name {
        "nginx" if !has_command => nginx_start(started).into_iter().map(at).collect(),
        "coredns" => vec![
            ".:53".to_string(),
            format!("CoreDNS-{}", repo.split(':').nth(1).unwrap_or("1.12.0").trim_start_matches('v')),
            "linux/amd64, go1.23.3".to_string(),
        ]
        .into_iter()
        .map(at)
        .collect(),
        _ => Vec::new(),
    }
}

fn nginx_start(t: SimTime) -> Vec<String> {
    let ts = t.rfc3339();
    let stamp = format!("{}/{}/{} {}", &ts[0..4], &ts[5..7], &ts[8..10], &ts[11..19]);
    let mut lines: Vec<String> = [
        "/docker-entrypoint.sh: /docker-entrypoint.d/ is not empty, will attempt to perform configuration",
        "/docker-entrypoint.sh: Looking for shell scripts in /docker-entrypoint.d/",
        "/docker-entrypoint.sh: Launching /docker-entrypoint.d/10-listen-on-ipv6-by-default.sh",
        "10-listen-on-ipv6-by-default.sh: info: Getting the checksum of /etc/nginx/conf.d/default.conf",
        "10-listen-on-ipv6-by-default.sh: info: Enabled listen on IPv6 in /etc/nginx/conf.d/default.conf",
        "/docker-entrypoint.sh: Launching /docker-entrypoint.d/20-envsubst-on-templates.sh",
        "/docker-entrypoint.sh: Launching /docker-entrypoint.d/30-tune-worker-processes.sh",
        "/docker-entrypoint.sh: Configuration complete; ready for start up",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    for notice in ["using the \"epoll\" event method", "start worker processes", "start worker process 29"] {
        lines.push(format!("{stamp} [notice] 1#1: {notice}"));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn counter() -> Value {
        json!({"metadata": {"name": "counter"}, "spec": {"nodeName": "n", "containers": [
            {"name": "count", "image": "busybox:1.28", "args": ["/bin/sh", "-c",
                "i=0; while true; do echo \"$i: $(date)\" >> /var/log/1.log; echo \"$(date) INFO $i\" >> /var/log/2.log; i=$((i+1)); sleep 1; done"]},
            {"name": "count-log-1", "image": "busybox:1.28", "args": ["/bin/sh", "-c", "tail -n+1 -F /var/log/1.log"]},
            {"name": "count-log-2", "image": "busybox:1.28", "args": ["/bin/sh", "-c", "tail -n+1 -F /var/log/2.log"]}]}})
    }

    #[test]
    fn args_replace_a_shell_images_default_command() {
        // `kubectl run hello --image=busybox -- echo hi` sends args only.
        let echo = json!({"name": "hello", "image": "busybox", "args": ["echo", "hi"]});
        assert_eq!(lifetime(&echo), Some((0, 0)));
        let sleep = json!({"name": "s", "image": "busybox:1.36", "args": ["sleep", "30"]});
        assert_eq!(lifetime(&sleep), Some((30_000, 0)));
        assert!(!stops_on_sigterm(&sleep), "sleep as the first process ignores SIGTERM");
        // An image with an entrypoint of its own runs it, args or not.
        let nginx = json!({"name": "web", "image": "nginx", "args": ["echo", "hi"]});
        assert_eq!(lifetime(&nginx), None);
        assert!(stops_on_sigterm(&nginx));
    }

    #[test]
    fn busybox_dates_pad_the_day() {
        // 2022-04-01T11:42:23Z was a Friday.
        assert_eq!(busybox_date(SimTime(1_648_813_343_000)), "Fri Apr  1 11:42:23 UTC 2022");
    }

    #[test]
    fn the_counter_and_its_sidecars_print_as_spec_002_shows() {
        let start = SimTime(1_648_813_343_000);
        let now = start.plus_millis(2_500);
        let one: Vec<String> =
            container_output(&counter(), "count-log-1", start, now).into_iter().map(|l| l.text).collect();
        assert_eq!(
            one,
            ["0: Fri Apr  1 11:42:23 UTC 2022", "1: Fri Apr  1 11:42:24 UTC 2022", "2: Fri Apr  1 11:42:25 UTC 2022"]
        );
        let two = container_output(&counter(), "count-log-2", start, now);
        assert_eq!(two[1].text, "Fri Apr  1 11:42:24 UTC 2022 INFO 1");
        assert!(container_output(&counter(), "count", start, now).is_empty(), "it writes to files only");
    }

    fn text_of(log: PodLog) -> String {
        match log {
            PodLog::Done(t) | PodLog::Following(t, _) => t,
        }
    }

    #[test]
    fn options_pick_a_container_tail_and_stamp_lines() {
        let mut pod = counter();
        pod["status"]["containerStatuses"] =
            json!([{"name": "count-log-1", "state": {"running": {"startedAt": "2022-04-01T11:42:23Z"}}}]);
        let now = SimTime(1_648_813_343_000 + 9_000);
        let e = pod_log(&pod, &Query::parse(""), now).unwrap_err();
        assert_eq!(
            e.message,
            "a container name must be specified for pod counter, choose one of: [count count-log-1 count-log-2]"
        );
        let e = pod_log(&pod, &Query::parse("container=nope"), now).unwrap_err();
        assert_eq!(e.message, "container nope is not valid for pod counter");
        let text =
            text_of(pod_log(&pod, &Query::parse("container=count-log-1&tailLines=2&timestamps=true"), now).unwrap());
        assert_eq!(text, "2022-04-01T11:42:31Z 8: Fri Apr  1 11:42:31 UTC 2022\n2022-04-01T11:42:32Z 9: Fri Apr  1 11:42:32 UTC 2022\n");
        let since = text_of(pod_log(&pod, &Query::parse("container=count-log-1&sinceSeconds=3"), now).unwrap());
        assert_eq!(since.lines().count(), 4);
        let e = pod_log(&pod, &Query::parse("container=count-log-1&tailLines=-1"), now).unwrap_err();
        assert_eq!(e.code, 422);
        assert_eq!(
            e.message,
            "PodLogOptions \"counter\" is invalid: tailLines: Invalid value: -1: must be greater than or equal to 0"
        );
        let e = pod_log(&pod, &Query::parse("container=count&previous=true"), now).unwrap_err();
        assert_eq!(e.message, "previous terminated container \"count\" in pod \"counter\" not found");
    }
}
