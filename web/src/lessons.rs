//! Lessons: files of data under `lessons/` (one YAML file per lesson, its
//! name the lesson's id), each a list of steps with prose in English and
//! Chinese, the requests that set the step up, what the learner is asked
//! to do (which is also the reference solution "show me" runs), and a
//! check over what the learner's own requests sent and got back.
//!
//! Invariant: a lesson acts on the cluster only through the session (the
//! same `Session::serve`, kubectl and lanes the panels use), so whatever a
//! lesson does shows in the log, and a learner who types the command gets
//! the same answer as "show me".

use std::collections::BTreeMap;

use kubesim::server::Request;
use serde::Deserialize;
use serde_json::Value;

use crate::format::query_param;
use crate::lanes::LaneRow;
use crate::session::{LogEntry, Session, Source};

/// The two languages of the UI and of every lesson.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Lang {
    #[default]
    En,
    Zh,
}

impl Lang {
    /// From a browser language tag (`navigator.language`) or a URL's
    /// `lang=`: Chinese for any `zh…`, English otherwise.
    pub fn from_tag(tag: &str) -> Lang {
        if tag.trim().to_ascii_lowercase().starts_with("zh") {
            Lang::Zh
        } else {
            Lang::En
        }
    }

    pub fn tag(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Zh => "zh",
        }
    }
}

/// A string in both languages. Both are required: a lesson with a string
/// in one language only does not load.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Text {
    pub en: String,
    pub zh: String,
}

impl Text {
    pub fn get(&self, lang: Lang) -> &str {
        match lang {
            Lang::En => &self.en,
            Lang::Zh => &self.zh,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Lesson {
    /// The file's name without its extension (`?lesson=ID`).
    #[serde(skip)]
    pub id: String,
    pub title: Text,
    pub summary: Text,
    /// The panels the lesson uses (their element ids), highlighted while
    /// it runs.
    #[serde(default)]
    pub panels: Vec<String>,
    pub steps: Vec<Step>,
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Step {
    pub title: Text,
    /// Markdown (paragraphs, `- ` lists, fenced code, `code`, **strong**),
    /// rendered as text nodes.
    pub prose: Text,
    /// Run (as `setup`) when the step begins.
    #[serde(default)]
    pub setup: Vec<Act>,
    /// What the learner is asked to do; "show me" runs it.
    #[serde(rename = "do")]
    pub actions: Vec<Act>,
    /// Every one must hold (each by some request of the learner's since the
    /// step began).
    pub check: Vec<Check>,
    /// Shown while the check does not hold.
    pub hint: Text,
}

/// One thing done to the cluster: a kubectl command (with the file its
/// `-f -` reads), a request as the console sends it, a watch lane opened,
/// or the clock moved. Exactly one of the fields is given.
#[derive(Clone, Debug, PartialEq, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Act {
    #[serde(default)]
    pub kubectl: Option<String>,
    /// What kubectl's `-f -` reads (the panel's file box).
    #[serde(default)]
    pub file: Option<String>,
    /// With `kubectl: edit …`, what the learner changes in the object the
    /// first run hands out (each text replaced by its value) before running
    /// it again to save, as a learner with an editor would.
    #[serde(default)]
    pub edit: Option<BTreeMap<String, String>>,
    #[serde(default)]
    pub request: Option<Req>,
    #[serde(default)]
    pub lane: Option<LaneAct>,
    /// `POST /debug/kubesim/clock?advance=…`, as the clock bar's buttons.
    #[serde(default)]
    pub advance: Option<String>,
    /// `POST /debug/kubesim/compact`, as the clock bar's button.
    #[serde(default)]
    pub compact: Option<bool>,
    /// Done this many times, `${i}` counting from 1 (a setup's many
    /// objects).
    #[serde(default)]
    pub repeat: Option<u32>,
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Req {
    pub method: String,
    /// Path and query, e.g. `/api/v1/pods?limit=500`.
    pub path: String,
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    /// Sent as JSON (a mapping) or as written (a string).
    #[serde(default)]
    pub body: Option<Value>,
    /// Who in the page sends it (`console` unless said: `inspector` for the
    /// inspector's buttons).
    #[serde(default)]
    pub source: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct LaneAct {
    pub path: String,
    #[serde(default)]
    pub query: String,
    /// List first and watch from the list's resourceVersion (an informer).
    #[serde(default)]
    pub list_first: bool,
}

/// A request of the learner's that must have been made since the step
/// began, and what must have come back. Values may name a capture
/// (`$name`): something an earlier check of the lesson remembered.
#[derive(Clone, Debug, PartialEq, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Check {
    #[serde(default)]
    pub method: Option<String>,
    /// The path without its query; `*` matches any run of characters.
    #[serde(default)]
    pub path: Option<String>,
    /// Query parameters of the request.
    #[serde(default)]
    pub query: BTreeMap<String, Expect>,
    /// Request headers (names in any case).
    #[serde(default, rename = "requestHeaders")]
    pub request_headers: BTreeMap<String, Expect>,
    #[serde(default)]
    pub status: Option<u16>,
    /// Response headers (names in any case).
    #[serde(default)]
    pub headers: BTreeMap<String, Expect>,
    /// JSON pointers into the response body.
    #[serde(default)]
    pub body: BTreeMap<String, Expect>,
    /// An event a watch lane received since the step began.
    #[serde(default)]
    pub event: Option<EventCheck>,
    /// Values to remember once the check holds: name → where from
    /// (`/pointer` in the body, `query.NAME`, `header.NAME`).
    #[serde(default)]
    pub capture: BTreeMap<String, String>,
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EventCheck {
    /// ADDED, MODIFIED, DELETED, BOOKMARK, ERROR.
    #[serde(rename = "type")]
    pub event_type: String,
    /// JSON pointers into the event's object.
    #[serde(default)]
    pub object: BTreeMap<String, Expect>,
}

/// What a value must be: a literal (equal, numbers and strings compared by
/// their text), or a mapping of tests.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(try_from = "Value")]
pub enum Expect {
    Test(Test),
    Literal(Value),
}

impl TryFrom<Value> for Expect {
    type Error = String;

    /// Read by hand rather than as an untagged enum: serde's untagged
    /// machinery is a large part of the page's code for what it does.
    fn try_from(v: Value) -> Result<Expect, String> {
        let Value::Object(m) = v else { return Ok(Expect::Literal(v)) };
        let mut t = Test::default();
        for (k, v) in m {
            let text = || v.as_str().map(str::to_string).ok_or_else(|| format!("{k}: expected a string"));
            match k.as_str() {
                "present" => t.present = Some(v.as_bool().ok_or("present: expected true or false")?),
                "gt" => t.gt = Some(v),
                "lt" => t.lt = Some(v),
                "ne" => t.ne = Some(v),
                "contains" => t.contains = Some(text()?),
                "len" => t.len = Some(v.as_u64().ok_or("len: expected a number")? as usize),
                other => return Err(format!("unknown test {other:?} (present, gt, lt, ne, contains, len)")),
            }
        }
        Ok(Expect::Test(t))
    }
}

#[derive(Clone, Debug, PartialEq, Default)]
pub struct Test {
    /// Whether the value is there at all.
    pub present: Option<bool>,
    /// Compared as integers (resourceVersions are, to a client that looks).
    pub gt: Option<Value>,
    pub lt: Option<Value>,
    pub ne: Option<Value>,
    /// The value's text contains this.
    pub contains: Option<String>,
    /// An array's length.
    pub len: Option<usize>,
}

/// What checks remembered, by name.
pub type Captures = BTreeMap<String, String>;

/// A YAML document as JSON, through the same code that reads the page's
/// YAML bodies: the lesson types are then read from JSON values, which
/// costs the bundle far less than a YAML deserializer for each of them.
fn yaml_value(text: &str) -> Result<Value, String> {
    use serde::Deserialize as _;
    match serde_norway::Deserializer::from_str(text).next() {
        Some(doc) => Value::deserialize(doc).map_err(|e| e.to_string()),
        None => Ok(Value::Null),
    }
}

/// Reads a lesson from its file's text; `id` is the file's name without
/// extension.
pub fn parse(id: &str, text: &str) -> Result<Lesson, String> {
    let mut lesson: Lesson = serde_json::from_value(yaml_value(text)?).map_err(|e| format!("lesson {id}: {e}"))?;
    lesson.id = id.to_string();
    lesson.validate()?;
    Ok(lesson)
}

/// The page's panels, by element id: what a lesson's `panels` may name.
pub const PANELS: &[&str] = &[
    "command-panel",
    "lanes-panel",
    "inspector-panel",
    "owners-panel",
    "console-panel",
    "log-panel",
    "timeline-panel",
    "pager-panel",
    "fairness-panel",
    "metrics-panel",
    "explorer-panel",
];

impl Lesson {
    fn validate(&self) -> Result<(), String> {
        let id = &self.id;
        if let Some(p) = self.panels.iter().find(|p| !PANELS.contains(&p.as_str())) {
            return Err(format!("lesson {id}: no panel {p:?} (one of {})", PANELS.join(", ")));
        }
        let mut texts = vec![("title", &self.title), ("summary", &self.summary)];
        if self.steps.is_empty() {
            return Err(format!("lesson {id} has no steps"));
        }
        for (i, st) in self.steps.iter().enumerate() {
            texts.extend([("step title", &st.title), ("prose", &st.prose), ("hint", &st.hint)]);
            if st.actions.is_empty() || st.check.is_empty() {
                return Err(format!("lesson {id} step {}: a step needs `do` and `check`", i + 1));
            }
            for a in st.setup.iter().chain(&st.actions) {
                a.validate().map_err(|e| format!("lesson {id} step {}: {e}", i + 1))?;
            }
            for c in &st.check {
                c.validate().map_err(|e| format!("lesson {id} step {}: {e}", i + 1))?;
            }
        }
        for (what, t) in texts {
            if t.en.trim().is_empty() || t.zh.trim().is_empty() {
                return Err(format!("lesson {id}: a {what} is missing in one language: {:?}", t.en));
            }
        }
        Ok(())
    }
}

impl Check {
    /// A null expectation is a slip, most often a comma inside a YAML flow
    /// mapping (`{labelSelector: a=b,c=d}` is two keys, the second null).
    fn validate(&self) -> Result<(), String> {
        let maps = [&self.query, &self.request_headers, &self.headers, &self.body];
        let event = self.event.iter().flat_map(|e| e.object.iter());
        for (k, v) in maps.into_iter().flat_map(|m| m.iter()).chain(event) {
            if *v == Expect::Literal(Value::Null) {
                return Err(format!("the check of {k:?} expects null (quote a value with a comma in it)"));
            }
        }
        Ok(())
    }
}

impl Act {
    fn validate(&self) -> Result<(), String> {
        let kinds = [
            self.kubectl.is_some(),
            self.request.is_some(),
            self.lane.is_some(),
            self.advance.is_some(),
            self.compact.is_some(),
        ];
        if kinds.iter().filter(|k| **k).count() != 1 {
            return Err(format!("an action must be exactly one of kubectl, request, lane, advance, compact: {self:?}"));
        }
        if self.repeat.is_some() && self.request.is_none() {
            return Err("`repeat` goes with a request".into());
        }
        if self.file.is_some() && self.kubectl.is_none() {
            return Err("`file` goes with a kubectl command".into());
        }
        if let Some(r) = &self.request {
            source_of(r.source.as_deref())?;
        }
        Ok(())
    }

    /// How the action reads to a learner (what to type or do).
    pub fn describe(&self, caps: &Captures) -> String {
        if let Some(line) = &self.kubectl {
            let changes: Vec<String> = self
                .edit
                .iter()
                .flatten()
                .map(|(from, to)| format!("{} → {}", one_line(from), one_line(&substitute(to, caps))))
                .collect();
            return match changes.is_empty() {
                true => format!("kubectl {}", substitute(line, caps)),
                false => format!("kubectl {}, changing {}", substitute(line, caps), changes.join(", ")),
            };
        }
        if let Some(r) = &self.request {
            return format!("{} {}", r.method, substitute(&r.path, caps));
        }
        if let Some(l) = &self.lane {
            let q = substitute(&l.query, caps);
            let how = if l.list_first { "list, then watch" } else { "watch" };
            return if q.is_empty() { format!("{how} {}", l.path) } else { format!("{how} {}?{q}", l.path) };
        }
        if let Some(d) = &self.advance {
            return format!("advance the clock {d}");
        }
        "compact now".into()
    }
}

/// A text on one line, its runs of white space as single spaces.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn source_of(name: Option<&str>) -> Result<Source, String> {
    match name.unwrap_or("console") {
        "console" => Ok(Source::Console),
        "inspector" => Ok(Source::Inspector),
        "pager" => Ok(Source::Pager),
        other => Err(format!("unknown request source {other:?} (console, inspector, pager)")),
    }
}

/// Replaces `${name}` with what was captured under that name.
pub fn substitute(text: &str, caps: &Captures) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("${") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        match after.find('}') {
            Some(end) => {
                let name = &after[..end];
                match caps.get(name) {
                    Some(v) => out.push_str(v),
                    None => out.push_str(&rest[at..at + 2 + end + 1]),
                }
                rest = &after[end + 1..];
            }
            None => {
                out.push_str(&rest[at..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

/// What running one action printed or answered (for "show me").
#[derive(Clone, Debug, PartialEq)]
pub struct Ran {
    pub what: String,
    pub output: String,
}

/// Runs one action through the session, as the panel it belongs to would.
pub fn run_act(s: &mut Session, act: &Act, caps: &Captures, source: Option<Source>) -> Ran {
    let Some(n) = act.repeat else { return run_once(s, act, caps, source) };
    let mut last = None;
    let mut caps = caps.clone();
    for i in 1..=n {
        caps.insert("i".into(), i.to_string());
        last = Some(run_once(s, act, &caps, source));
    }
    let last = last.map(|r| r.output).unwrap_or_default();
    Ran { what: format!("{} (×{n})", act.describe(&caps)), output: format!("{n} requests; the last: {last}") }
}

fn run_once(s: &mut Session, act: &Act, caps: &Captures, source: Option<Source>) -> Ran {
    let what = act.describe(caps);
    let output = if let Some(line) = &act.kubectl {
        let line = substitute(line, caps);
        let mut file = act.file.as_deref().map(|f| substitute(f, caps)).unwrap_or_default();
        if let Some(changes) = &act.edit {
            // Open the object, change it, then the same command saves it.
            let opened = crate::kubectl::run(s, &line, "");
            file = opened.edit.unwrap_or_default();
            for (from, to) in changes {
                file = file.replace(from.as_str(), &substitute(to, caps));
            }
        }
        let out = crate::kubectl::run(s, &line, &file);
        // As the command bar does: `get -w` watches in a lane.
        if let Some((path, query)) = &out.watch {
            s.open_lane(path, query, false);
        }
        out.text
    } else if let Some(r) = &act.request {
        let from = source.unwrap_or_else(|| source_of(r.source.as_deref()).unwrap_or(Source::Console));
        let mut req = Request::new(&r.method, &substitute(&r.path, caps));
        if !r.headers.keys().any(|k| k.eq_ignore_ascii_case("accept")) {
            req = req.with_header("Accept", "application/json");
        }
        for (k, v) in &r.headers {
            req = req.with_header(k, &substitute(v, caps));
        }
        if let Some(b) = &r.body {
            let text = match b {
                Value::String(t) => substitute(t, caps),
                v => substitute(&v.to_string(), caps),
            };
            if !r.headers.keys().any(|k| k.eq_ignore_ascii_case("content-type")) {
                req = req.with_header("Content-Type", "application/json");
            }
            req = req.with_body(text.into_bytes());
        }
        let (entry, stream) = s.serve(from, req);
        if let Some(stream) = stream {
            s.adopt_watch(&entry, stream);
        }
        status_line(&entry)
    } else if let Some(l) = &act.lane {
        let id = s.open_lane(&l.path, &substitute(&l.query, caps), l.list_first);
        let state = s.lanes.iter().find(|l| l.id == id).map(|l| l.state.label()).unwrap_or_default();
        format!("lane {state}")
    } else if let Some(d) = &act.advance {
        status_line(&s.advance(d))
    } else {
        status_line(&s.compact_now())
    };
    Ran { what, output }
}

fn status_line(e: &LogEntry) -> String {
    let v: Value = serde_json::from_slice(&e.response.body).unwrap_or(Value::Null);
    let msg = v.get("message").and_then(Value::as_str).unwrap_or("");
    format!("{} {}", e.response.status, msg).trim_end().to_string()
}

/// Where a step began: what the learner has done since is what its check
/// looks at. ("Reset this step" opens the lesson at the step again: the
/// same seed and requests give the same cluster, lanes included.)
#[derive(Clone, Debug, PartialEq)]
pub struct StepStart {
    pub after_log_id: u64,
    /// Each lane's row count then.
    pub lane_rows: Vec<(u64, usize)>,
}

impl StepStart {
    pub fn now(s: &Session) -> StepStart {
        StepStart {
            after_log_id: s.log.last().map_or(0, |e| e.id),
            lane_rows: s.lanes.iter().map(|l| (l.id, l.rows.len())).collect(),
        }
    }
}

/// Whether a step's check holds; if not, which part does not.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    Passed(Captures),
    /// The index of the first check that no request satisfies.
    Waiting(usize),
}

/// The learner's own requests: not the page's, the controllers' or the
/// setup's.
fn learners(source: Source) -> bool {
    matches!(
        source,
        Source::Console
            | Source::Kubectl
            | Source::Lane
            | Source::Inspector
            | Source::Pager
            | Source::Clock
            | Source::Explorer
    )
}

/// Evaluates a step's checks against the session since `start`; newer
/// requests are looked at first, so a capture remembers the latest.
pub fn evaluate(step: &Step, s: &Session, start: &StepStart, caps: &Captures) -> Verdict {
    let mut got = caps.clone();
    for (i, c) in step.check.iter().enumerate() {
        let found = if let Some(ev) = &c.event {
            lane_rows_since(s, start).rev().find_map(|row| event_matches(ev, row, &got).then(Captures::new))
        } else {
            s.log
                .iter()
                .rev()
                .take_while(|e| e.id > start.after_log_id)
                .filter(|e| learners(e.source))
                .find_map(|e| entry_matches(c, e, &got))
        };
        match found {
            Some(new) => got.extend(new),
            None => return Verdict::Waiting(i),
        }
    }
    Verdict::Passed(got)
}

fn lane_rows_since<'a>(s: &'a Session, start: &'a StepStart) -> impl DoubleEndedIterator<Item = &'a LaneRow> {
    s.lanes.iter().flat_map(move |l| {
        let from = start.lane_rows.iter().find(|(id, _)| *id == l.id).map_or(0, |(_, n)| *n);
        l.rows.get(from..).unwrap_or_default().iter()
    })
}

fn event_matches(ev: &EventCheck, row: &LaneRow, caps: &Captures) -> bool {
    if !row.kind.label().eq_ignore_ascii_case(&ev.event_type) {
        return false;
    }
    let object: Value = row.object.as_deref().and_then(|o| serde_json::from_str(o).ok()).unwrap_or(Value::Null);
    ev.object.iter().all(|(ptr, want)| want.holds(object.pointer(ptr), caps))
}

/// The captures of a matching entry, or None.
fn entry_matches(c: &Check, e: &LogEntry, caps: &Captures) -> Option<Captures> {
    if c.method.as_ref().is_some_and(|m| !m.eq_ignore_ascii_case(&e.request.method)) {
        return None;
    }
    if c.path.as_ref().is_some_and(|p| !glob(&substitute(p, caps), &e.request.path)) {
        return None;
    }
    if c.status.is_some_and(|st| st != e.response.status) {
        return None;
    }
    for (name, want) in &c.query {
        let v = query_param(&e.request.query, name).map(Value::String);
        if !want.holds(v.as_ref(), caps) {
            return None;
        }
    }
    for (name, want) in &c.request_headers {
        let v = e.request.header(name).map(|h| Value::String(h.to_string()));
        if !want.holds(v.as_ref(), caps) {
            return None;
        }
    }
    for (name, want) in &c.headers {
        let v = e.response.header(name).map(|h| Value::String(h.to_string()));
        if !want.holds(v.as_ref(), caps) {
            return None;
        }
    }
    let body: Value = if c.body.is_empty() && c.capture.values().all(|w| !w.starts_with('/')) {
        Value::Null
    } else {
        serde_json::from_slice(&e.response.body).unwrap_or(Value::Null)
    };
    for (ptr, want) in &c.body {
        if !want.holds(body.pointer(ptr), caps) {
            return None;
        }
    }
    let mut got = Captures::new();
    for (name, from) in &c.capture {
        let v = if let Some(q) = from.strip_prefix("query.") {
            query_param(&e.request.query, q)
        } else if let Some(h) = from.strip_prefix("header.") {
            e.response.header(h).map(str::to_string)
        } else {
            body.pointer(from).map(text_of)
        };
        got.insert(name.clone(), v?);
    }
    Some(got)
}

/// `*` matches any run of characters (none included); the rest literally.
fn glob(pattern: &str, text: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == text;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !text.starts_with(first) || !text[first.len()..].ends_with(last) || text.len() < first.len() + last.len() {
        return false;
    }
    let mut at = first.len();
    let end = text.len() - last.len();
    for mid in &parts[1..parts.len() - 1] {
        match text[at..end].find(mid) {
            Some(i) => at += i + mid.len(),
            None => return false,
        }
    }
    true
}

/// A JSON value as text: strings without quotes, the rest as JSON.
fn text_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn resolve(v: &Value, caps: &Captures) -> Option<String> {
    match v {
        Value::String(s) => match s.strip_prefix('$') {
            Some(name) if !name.starts_with('{') => caps.get(name).cloned(),
            _ => Some(substitute(s, caps)),
        },
        other => Some(text_of(other)),
    }
}

impl Expect {
    pub fn holds(&self, got: Option<&Value>, caps: &Captures) -> bool {
        match self {
            Expect::Literal(want) => match (got, resolve(want, caps)) {
                (Some(g), Some(w)) => text_of(g) == w,
                _ => false,
            },
            Expect::Test(t) => t.holds(got, caps),
        }
    }
}

impl Test {
    fn holds(&self, got: Option<&Value>, caps: &Captures) -> bool {
        if let Some(p) = self.present {
            if got.is_some_and(|v| !v.is_null()) != p {
                return false;
            }
        }
        let text = got.map(text_of);
        let int = |v: &Option<String>| v.as_deref().and_then(|t| t.parse::<i128>().ok());
        let number = int(&text);
        let cmp = |want: &Option<Value>, ok: fn(i128, i128) -> bool| match want {
            None => true,
            Some(w) => match (number, int(&resolve(w, caps))) {
                (Some(g), Some(w)) => ok(g, w),
                _ => false,
            },
        };
        if !cmp(&self.gt, |g, w| g > w) || !cmp(&self.lt, |g, w| g < w) {
            return false;
        }
        if let Some(ne) = &self.ne {
            if text.is_none() || text == resolve(ne, caps) {
                return false;
            }
        }
        if let Some(c) = &self.contains {
            if !text.as_deref().is_some_and(|t| t.contains(&substitute(c, caps))) {
                return false;
            }
        }
        if let Some(n) = self.len {
            if got.and_then(Value::as_array).map(Vec::len) != Some(n) {
                return false;
            }
        }
        true
    }
}

/// What the lesson remembers once a step is left: its check's captures if
/// it held, else what it remembered before.
pub fn captures_after(step: &Step, s: &Session, p: &Progress) -> Captures {
    match evaluate(step, s, &p.start, &p.captures) {
        Verdict::Passed(c) => c,
        Verdict::Waiting(_) => p.captures.clone(),
    }
}

/// A lesson in progress: which step, where it began, what was captured.
#[derive(Clone, Debug, PartialEq)]
pub struct Progress {
    pub step: usize,
    pub start: StepStart,
    pub captures: Captures,
}

/// The seed a lesson starts from unless the address says otherwise.
pub const DEFAULT_SEED: u64 = 1;

/// A fresh cluster at the start of step `step` of the lesson: the starter
/// cluster from `seed`, the clock stopped (so every attendee who does the
/// same gets the same numbers), each earlier step's setup and reference
/// solution run, then this step's setup. Deterministic: the same lesson,
/// step and seed give the same cluster, byte for byte.
pub fn open(lesson: &Lesson, step: usize, seed: u64) -> (Session, Progress) {
    let mut s = Session::new(seed);
    s.set_paused(true);
    let step = step.min(lesson.steps.len() - 1);
    let mut p = begin(lesson, 0, &mut s, Captures::new());
    for i in 0..step {
        for a in &lesson.steps[i].actions {
            run_act(&mut s, a, &p.captures, None);
        }
        s.pump_lanes();
        let caps = captures_after(&lesson.steps[i], &s, &p);
        p = begin(lesson, i + 1, &mut s, caps);
    }
    (s, p)
}

/// Runs a step's setup and marks where it began.
pub fn begin(lesson: &Lesson, step: usize, s: &mut Session, captures: Captures) -> Progress {
    for a in &lesson.steps[step].setup {
        run_act(s, a, &captures, Some(Source::Setup));
    }
    s.pump_lanes();
    Progress { step, start: StepStart::now(s), captures }
}

/// The file under `lessons/` that lists the lessons, in the picker's order.
pub const INDEX_FILE: &str = "index.yaml";

/// The lesson ids `lessons/index.yaml` lists (a YAML sequence of names).
pub fn index_ids(text: &str) -> Result<Vec<String>, String> {
    let ids: Vec<String> = yaml_value(text)
        .and_then(|v| serde_json::from_value(v).map_err(|e| e.to_string()))
        .map_err(|e| format!("lessons/{INDEX_FILE}: {e}"))?;
    match ids.iter().find(|id| id.is_empty() || !id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')) {
        Some(bad) => Err(format!("lessons/{INDEX_FILE}: {bad:?} is not a lesson id (letters, digits and -)")),
        None => Ok(ids),
    }
}

/// What the page's address says about lessons: `?lesson=ID&step=N&seed=S`
/// (the step counted from 1, as the pane shows it), and `lang=zh|en`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Permalink {
    pub lesson: Option<String>,
    /// 0-based.
    pub step: usize,
    pub seed: u64,
    pub lang: Option<Lang>,
}

impl Permalink {
    /// From the address's query (without `?`); nonsense falls back to the
    /// first step and the default seed.
    pub fn parse(query: &str) -> Permalink {
        let q = query.trim_start_matches('?');
        Permalink {
            lesson: query_param(q, "lesson").filter(|id| !id.is_empty()),
            step: query_param(q, "step").and_then(|s| s.parse::<usize>().ok()).unwrap_or(1).max(1) - 1,
            seed: query_param(q, "seed").and_then(|s| s.parse().ok()).unwrap_or(DEFAULT_SEED),
            lang: query_param(q, "lang").map(|l| Lang::from_tag(&l)),
        }
    }

    /// The address's query for a lesson at a step (None: no lesson), the
    /// parameters that are not the lessons' kept as they were.
    pub fn query(existing: &str, at: Option<(&str, usize, u64)>, lang: Lang) -> String {
        use crate::format::set_query_param;
        let mut q = existing.trim_start_matches('?').to_string();
        let (id, step, seed) = match at {
            Some((id, step, seed)) => (id.to_string(), (step + 1).to_string(), seed.to_string()),
            None => (String::new(), String::new(), String::new()),
        };
        q = set_query_param(&q, "lesson", &id);
        q = set_query_param(&q, "step", &step);
        q = set_query_param(&q, "seed", &seed);
        set_query_param(&q, "lang", if at.is_some() { lang.tag() } else { "" })
    }
}

#[cfg(test)]
mod tests;
