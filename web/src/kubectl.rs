//! The kubectl-style command bar: a command line parsed as kubectl parses
//! it and translated into the HTTP requests kubectl 1.33 sends, served by
//! the session (so they appear in the request log) and printed as kubectl
//! prints the answers.

use serde_json::{json, Map, Value};

use crate::format::{age, build_query, keys_sorted, parse_documents, parse_rfc3339, to_yaml};
use crate::resources::{ApiResource, Discovery, AGGREGATED_ACCEPT};
use crate::session::{body_json, ActingAs, LogEntry, Session, Source};
use kubesim::server::Request;

mod auth;
pub mod config;
mod custom_columns;
mod delete;
mod describe;
mod diff;
mod drain;
mod edit;
mod events;
mod explain;
mod generators;
mod get;
mod gotemplate;
mod imperative;
mod jsonpath;
mod label;
mod logs;
mod parse;
mod patch;
mod print;
mod rbac;
mod rollout;
mod rules;
mod sort_by;
mod taint;
mod wait;
mod write;

pub use explain::{has_docs, set_docs, wants_docs, DOCS_FILE};
pub use parse::{parse, split_words, Command, Output, Verb};
pub use print::columns;
use print::{name_ref, server_table, table, Shape};
pub use write::two_way_patch;
use write::write_document;

/// JSON as kubectl's printer writes it (`json.MarshalIndent`, four
/// spaces), with a newline.
fn printed_json(v: &Value) -> String {
    let mut text = Vec::new();
    let indent = serde_json::ser::PrettyFormatter::with_indent(b"    ");
    let mut writer = serde_json::Serializer::with_formatter(&mut text, indent);
    let _ = serde::Serialize::serialize(v, &mut writer);
    String::from_utf8(text).unwrap_or_default() + "\n"
}

/// The Accept header `kubectl get` sends to print server-side columns.
pub const TABLE_ACCEPT: &str =
    "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";

/// What running a command printed, and a watch it asks the page to open.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Outcome {
    pub text: String,
    pub failed: bool,
    /// (collection path, query) for `get -w`.
    pub watch: Option<(String, String)>,
    /// Where what this command shows differs from a real cluster, said
    /// when it matters (one line; the page links it to the docs).
    pub differs: Option<&'static str>,
    /// Text for the file box (`edit` hands out the object to change, and
    /// empties the box once it is saved).
    pub edit: Option<String>,
}

/// The one-line notes on where the page differs from a real cluster.
pub mod differs {
    pub const PAUSED: &str = "The controllers are paused in this page, so nothing reconciles this until you resume or step them; a real cluster's controllers never pause.";
    pub const LOG_MODEL: &str = "Container output here is a model: nginx and CoreDNS print their start-up lines and shell loops their echo lines; other programs print nothing, where a real container would.";
    pub const DRAIN_WAITS: &str = "kubectl would keep waiting here until every pod it evicted is gone (trying again every 5 s an eviction a disruption budget refused), then say the node is drained; the page returns at once: run drain again once they have gone.";
    pub const WAITS: &str = "kubectl would keep waiting here until the object is gone (its finalizers removed, its grace period over, or its dependents deleted first); the page returns at once: watch it go in a lane or the inspector.";
    pub const NO_DOCS: &str = "The fields' descriptions could not be loaded into this page (k8s-v1.33.json next to it), so explain shows their types only; kubesim serve and a real cluster print them.";
    pub const EDITOR: &str = "kubectl edit would open the object in your $EDITOR and save it when you close the editor; here the object is in the file box under the command line, and running the same command again saves it.";
    pub const FOLLOWS: &str = "kubectl logs -f would go on printing what the container writes until it stops; the page prints what is there now: advance the clock and run it again for more.";
    pub const NO_NETWORK: &str = "The Service has its cluster IP and endpoints, but nothing answers on them: no kube-proxy, CNI or DNS runs here.";
}

impl Outcome {
    fn line(&mut self, s: impl AsRef<str>) {
        self.text.push_str(s.as_ref());
        self.text.push('\n');
    }
    fn error(&mut self, s: impl AsRef<str>) {
        self.failed = true;
        self.line(s);
    }
}

/// Reads discovery as kubectl does (aggregated, both roots).
pub fn discover(s: &mut Session, source: Source) -> Discovery {
    let mut d = Discovery::default();
    for path in ["/api", "/apis"] {
        let e = s.request(source, Request::new("GET", path).with_header("Accept", AGGREGATED_ACCEPT));
        d.absorb(&body_json(&e.response));
    }
    d
}

/// The error line kubectl prints for a failed request.
fn server_error(e: &LogEntry) -> String {
    let v = body_json(&e.response);
    if v.get("reason").and_then(Value::as_str) == Some("Invalid") {
        return invalid_error(&v);
    }
    match v.get("message").and_then(Value::as_str) {
        Some(m) => {
            let reason = v.get("reason").and_then(Value::as_str).unwrap_or("");
            format!("Error from server ({reason}): {m}")
        }
        None => format!("error: the server answered {}", e.response.status),
    }
}

/// An `Invalid` Status in kubectl's words (its `checkErr`): `The KIND
/// "NAME" is invalid`, then the causes (`field: message`, each once), on
/// the same line when there is one, else one a line after `* `.
fn invalid_error(v: &Value) -> String {
    let message = v.get("message").and_then(Value::as_str).unwrap_or("");
    let Some(details) = v.get("details").filter(|d| d.is_object()) else {
        return if message.is_empty() {
            "The request is invalid".into()
        } else {
            format!("The request is invalid: {message}")
        };
    };
    let mut causes: Vec<String> = Vec::new();
    for c in details.get("causes").and_then(Value::as_array).into_iter().flatten() {
        let line = format!("{}: {}", c["field"].as_str().unwrap_or(""), c["message"].as_str().unwrap_or(""));
        if !causes.contains(&line) {
            causes.push(line);
        }
    }
    let (kind, name) = (details["kind"].as_str().unwrap_or(""), details["name"].as_str().unwrap_or(""));
    let head = if !kind.is_empty() || !name.is_empty() {
        format!("The {kind} {} is invalid", kubesim::schema::decode::go_quote(name))
    } else if !message.is_empty() && causes.is_empty() {
        format!("The request is invalid: {message}")
    } else {
        "The request is invalid".into()
    };
    match causes.as_slice() {
        [] => head,
        [one] => format!("{head}: {one}"),
        all => format!("{head}: \n* {}", all.join("\n* ")),
    }
}

/// A collection listed as kubectl's `FollowContinue` lists it: the
/// query's parameters in Go's order (`continue`, `fieldSelector`,
/// `labelSelector`, `limit` unless the chunk size is 0), every page
/// followed; the items, or the request that failed.
fn list_all(
    s: &mut Session,
    path: &str,
    selectors: (&str, &str),
    chunk_size: u32,
) -> Result<Vec<Value>, Box<LogEntry>> {
    let mut items = Vec::new();
    let mut cont = String::new();
    loop {
        let mut pairs = vec![
            ("continue".to_string(), cont),
            ("fieldSelector".into(), selectors.0.to_string()),
            ("labelSelector".into(), selectors.1.to_string()),
        ];
        if chunk_size != 0 {
            pairs.push(("limit".into(), chunk_size.to_string()));
        }
        let q = build_query(&pairs);
        let target = if q.is_empty() { path.to_string() } else { format!("{path}?{q}") };
        let e = send(s, "GET", &target, None, None, "application/json");
        if e.response.status != 200 {
            return Err(Box::new(e));
        }
        let list = body_json(&e.response);
        items.extend(list["items"].as_array().cloned().unwrap_or_default());
        cont = list["metadata"]["continue"].as_str().unwrap_or("").to_string();
        if cont.is_empty() {
            return Ok(items);
        }
    }
}

/// A write's target, with `dryRun=All` under `--dry-run=server`.
fn dry(cmd: &Command, target: String) -> String {
    if !cmd.server_dry_run {
        return target;
    }
    let sep = if target.contains('?') { '&' } else { '?' };
    format!("{target}{sep}dryRun=All")
}

fn send(
    s: &mut Session,
    method: &str,
    target: &str,
    content_type: Option<&str>,
    body: Option<&Value>,
    accept: &str,
) -> LogEntry {
    let mut req = Request::new(method, target)
        .with_header("Accept", accept)
        .with_header("User-Agent", "kubectl/v1.33.0 (kubesim-web)");
    if let (Some(ct), Some(b)) = (content_type, body) {
        req = req.with_header("Content-Type", ct).with_body(serde_json::to_vec(b).unwrap_or_default());
    }
    s.request(Source::Kubectl, req)
}

/// The note, if any, a command's outcome needs about where the page
/// differs from a real cluster.
fn differs_note(s: &Session, cmd: &parse::Command, out: &Outcome) -> Option<&'static str> {
    if out.failed || cmd.server_dry_run {
        return None;
    }
    // Kinds only the controllers, the scheduler or the kubelets carry on
    // (kubectl names what it wrote `kind.group/name`, `kind/name` or
    // `kind "name"`).
    const LIVING: [&str; 8] =
        ["deployment", "replicaset", "statefulset", "daemonset", "job", "cronjob", "pod", "namespace"];
    let living = |l: &str| {
        LIVING
            .iter()
            .any(|k| l.strip_prefix(k).is_some_and(|rest| rest.starts_with(['.', '/']) || rest.starts_with(" \"")))
    };
    let reconciles = matches!(cmd.verb, Verb::Scale | Verb::Autoscale | Verb::SetImage | Verb::Run | Verb::Rollout)
        || out.text.lines().any(living);
    match cmd.verb {
        Verb::Explain if !explain::has_docs() => Some(differs::NO_DOCS),
        _ if reconciles && s.controllers.is_paused() => Some(differs::PAUSED),
        Verb::Expose | Verb::CreateFrom if out.text.lines().any(|l| l.starts_with("service/")) => {
            Some(differs::NO_NETWORK)
        }
        _ => None,
    }
}

pub fn run(s: &mut Session, line: &str, file: &str) -> Outcome {
    let mut out = Outcome::default();
    let cmd = match parse(line) {
        Ok(mut c) => {
            if let Some(kc) = &s.kubeconfig {
                if let Some(why) = kc.unusable().filter(|_| c.verb != Verb::Config) {
                    out.error(why);
                    return out;
                }
                c.context_namespace = kc.namespace();
            }
            c
        }
        Err(e) => {
            out.error(e);
            return out;
        }
    };
    // `--as`/`--as-group`: every request of this command impersonates, as
    // the page's "acting as" does for all of them (kubectl's flag wins).
    let Some(user) = cmd.as_user.clone() else {
        if !cmd.as_groups.is_empty() {
            out.error("error: requesting uid, groups or user-extra for kubesim without impersonating a user");
            return out;
        }
        return run_parsed(s, cmd, file);
    };
    let acting = ActingAs { user, groups: cmd.as_groups.clone() };
    let before = s.acting_as.replace(acting);
    let out = run_parsed(s, cmd, file);
    s.acting_as = before;
    out
}

fn run_parsed(s: &mut Session, cmd: Command, file: &str) -> Outcome {
    let mut out = Outcome::default();
    // What `edit` handed out is saved only by the next command, if that
    // is the same edit: anything else in between starts the edit over.
    if cmd.verb != Verb::Edit {
        s.editing = None;
    }
    let d = discover(s, Source::Kubectl);
    let from = s.log.len();
    let dry = cmd.server_dry_run;
    match cmd.verb {
        Verb::Get => get::get(s, &d, &cmd, &mut out),
        Verb::Create | Verb::Apply | Verb::Replace => {
            if cmd.filename.as_deref() != Some("-") {
                out.error("error: only -f - is available here: paste the file into the box below the command line");
                return out;
            }
            match parse_documents(file) {
                Ok(docs) if docs.is_empty() => {
                    out.error("error: no objects passed to ".to_string() + verb_word(&cmd.verb))
                }
                Ok(docs) => {
                    for doc in docs {
                        write_document(s, &d, &cmd, doc, &mut out);
                    }
                }
                Err(e) => out.error(format!("error: {e}")),
            }
        }
        Verb::Diff => diff::diff(s, &d, &cmd, file, &mut out),
        Verb::Delete => delete::delete(s, &d, &cmd, &mut out),
        Verb::Label | Verb::Annotate => label::label(s, &d, &cmd, &mut out),
        Verb::Auth if cmd.types[0] == "whoami" => auth::whoami(s, &mut out),
        Verb::Auth => auth::can_i(s, &d, &cmd, &mut out),
        Verb::CreateFrom => imperative::create(s, &d, &cmd, &mut out),
        Verb::Run => imperative::run(s, &d, &cmd, &mut out),
        Verb::Scale => imperative::scale(s, &d, &cmd, &mut out),
        Verb::Autoscale => imperative::autoscale(s, &d, &cmd, &mut out),
        Verb::SetImage => imperative::set_image(s, &d, &cmd, &mut out),
        Verb::Logs => logs::logs(s, &d, &cmd, &mut out),
        Verb::Debug => imperative::debug(s, &cmd, &mut out),
        Verb::Patch => patch::patch(s, &d, &cmd, &mut out),
        Verb::Cordon | Verb::Uncordon => imperative::cordon(s, &cmd, &mut out),
        Verb::Taint => taint::taint(s, &d, &cmd, &mut out),
        Verb::Drain => drain::drain(s, &cmd, &mut out),
        Verb::Events => events::events(s, &d, &cmd, &mut out),
        Verb::Wait => wait::wait(s, &d, &cmd, &mut out),
        Verb::ApiResources => imperative::api_resources(&d, &cmd, &mut out),
        Verb::ApiVersions => imperative::api_versions(&d, &mut out),
        Verb::Version => imperative::version(s, &cmd, &mut out),
        Verb::Rollout => rollout::rollout(s, &d, &cmd, &mut out),
        Verb::Expose => imperative::expose(s, &d, &cmd, &mut out),
        Verb::Describe => describe::describe(s, &d, &cmd, &mut out),
        Verb::Explain => explain::explain(s, &d, &cmd, &mut out),
        Verb::Edit => edit::edit(s, &d, &cmd, file, &mut out),
        Verb::Config => config::config(s, &cmd, &mut out),
        Verb::ClusterInfo => config::cluster_info(s, &cmd, &mut out),
    }
    if out.differs.is_none() {
        out.differs = differs_note(s, &cmd, &out);
    }
    // kubectl prints the server's warnings (to stderr) ahead of its output.
    let warnings: String = s.log[from..]
        .iter()
        .flat_map(|e| e.response.headers.iter().filter(|(k, _)| k.eq_ignore_ascii_case("Warning")))
        .filter_map(|(_, v)| warning_text(v))
        .map(|w| format!("Warning: {w}\n"))
        .collect();
    if dry {
        out.text = out
            .text
            .lines()
            .map(|l| {
                let done = [
                    "created",
                    "deleted",
                    "replaced",
                    "configured",
                    "labeled",
                    "annotated",
                    "scaled",
                    "image updated",
                    "resource requirements updated",
                    "env updated",
                    "serviceaccount updated",
                    "subjects updated",
                    "restarted",
                    "exposed",
                ];
                if done.iter().any(|d| l.ends_with(&format!(" {d}"))) {
                    format!("{l} (server dry run)\n")
                } else {
                    format!("{l}\n")
                }
            })
            .collect();
    }
    out.text.insert_str(0, &warnings);
    out
}

/// The text of a `Warning: 299 - "…"` header value.
pub fn warning_text(header: &str) -> Option<String> {
    let rest = header.trim().strip_prefix("299")?.trim_start().strip_prefix('-')?.trim_start();
    let quoted = rest.strip_prefix('"')?;
    let mut out = String::new();
    let mut chars = quoted.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.extend(chars.next()),
            '"' => return Some(out),
            c => out.push(c),
        }
    }
    None
}

fn verb_word(v: &Verb) -> &'static str {
    match v {
        Verb::Create => "create",
        Verb::Apply => "apply",
        _ => "replace",
    }
}

fn namespace_of(cmd: &Command) -> Option<String> {
    if cmd.all_namespaces {
        None
    } else {
        Some(cmd.namespace.clone().unwrap_or_else(|| cmd.context_namespace.clone()))
    }
}

/// The resource a typed name means, or kubectl's error printed.
fn resolve(d: &Discovery, typed: &str, out: &mut Outcome) -> Option<ApiResource> {
    match d.resolve(typed) {
        Ok(r) => Some(r.clone()),
        Err(e) => {
            out.error(format!("error: {e}"));
            None
        }
    }
}

#[cfg(test)]
mod tests;
