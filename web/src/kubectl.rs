//! The kubectl-style command bar: a command line parsed as kubectl parses
//! it and translated into the HTTP requests kubectl 1.33 sends, served by
//! the session (so they appear in the request log) and printed as kubectl
//! prints the answers.

use serde_json::{json, Map, Value};

use crate::format::{age, build_query, parse_documents, parse_rfc3339, to_pretty_json, to_yaml};
use crate::resources::{ApiResource, Discovery, AGGREGATED_ACCEPT};
use crate::session::{body_json, LogEntry, Session, Source};
use kubesim::server::Request;

mod auth;
mod delete;
mod get;
mod label;
mod parse;
mod print;
mod write;

pub use parse::{parse, split_words, Command, Output, Verb};
pub use print::columns;
use print::{name_ref, server_table, table};
pub use write::two_way_patch;
use write::write_document;

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
    match v.get("message").and_then(Value::as_str) {
        Some(m) => {
            let reason = v.get("reason").and_then(Value::as_str).unwrap_or("");
            format!("Error from server ({reason}): {m}")
        }
        None => format!("error: the server answered {}", e.response.status),
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

pub fn run(s: &mut Session, line: &str, file: &str) -> Outcome {
    let mut out = Outcome::default();
    let cmd = match parse(line) {
        Ok(c) => c,
        Err(e) => {
            out.error(e);
            return out;
        }
    };
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
        Verb::Delete => delete::delete(s, &d, &cmd, &mut out),
        Verb::Label | Verb::Annotate => label::label(s, &d, &cmd, &mut out),
        Verb::Auth if cmd.types[0] == "whoami" => auth::whoami(s, &mut out),
        Verb::Auth => auth::can_i(s, &d, &cmd, &mut out),
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
                let done = ["created", "deleted", "replaced", "configured", "labeled", "annotated"];
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
        Some(cmd.namespace.clone().unwrap_or_else(|| "default".into()))
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
mod tests {
    use super::write::LAST_APPLIED;
    use super::*;

    fn session() -> Session {
        Session::new(7)
    }

    fn requests_since(s: &Session, from: usize) -> Vec<String> {
        s.log[from..]
            .iter()
            .filter(|e| e.request.path != "/api" && e.request.path != "/apis" && e.source == Source::Kubectl)
            .map(|e| format!("{} {} {}", e.request.method, e.url(), e.response.status))
            .collect()
    }

    #[test]
    fn parses_flags_the_ways_kubectl_accepts_them() {
        let c = parse("kubectl get po -nkube-system -oyaml --chunk-size=2 -l 'app in (a,b)'").unwrap();
        assert_eq!(
            (c.types, c.namespace.as_deref(), c.output, c.chunk_size),
            (vec!["po".to_string()], Some("kube-system"), Output::Yaml, 2)
        );
        assert_eq!(c.selector.as_deref(), Some("app in (a,b)"));
        let c = parse("get svc,cm -A --watch=false").unwrap();
        assert!(c.all_namespaces && !c.watch && c.types.len() == 2);
        let c = parse("label cm x a=b c- --overwrite").unwrap();
        assert_eq!(
            (c.names, c.pairs, c.overwrite),
            (vec!["x".to_string()], vec!["a=b".to_string(), "c-".to_string()], true)
        );
    }

    #[test]
    fn unknown_commands_and_flags_get_clear_messages() {
        assert!(parse("frobnicate pods").unwrap_err().contains("unknown command \"frobnicate\""));
        assert!(parse("get pods --frob").unwrap_err().contains("unknown flag: --frob"));
        assert!(parse("get pods -o wat").unwrap_err().contains("allowed formats are"));
        assert!(parse("get pods -n").unwrap_err().contains("flag needs an argument"));
        assert!(parse("create").unwrap_err().contains("must specify one of -f"));
        assert!(parse("delete pods").unwrap_err().contains("no name was specified"));
        assert!(parse("get 'pods").unwrap_err().contains("unterminated quote"));
        assert!(parse("").is_err());
    }

    #[test]
    fn get_with_chunk_size_follows_continue_tokens_like_kubectl() {
        let mut s = session();
        let from = s.log.len();
        let out = run(&mut s, "get cm -A --chunk-size=2", "");
        assert!(!out.failed, "{}", out.text);
        let reqs = requests_since(&s, from);
        assert_eq!(reqs.len(), 2, "{reqs:?}");
        assert!(reqs[0].starts_with("GET /api/v1/configmaps?limit=2 200"), "{reqs:?}");
        assert!(reqs[1].contains("continue="), "{reqs:?}");
        assert!(out.text.starts_with("NAMESPACE"), "{}", out.text);
        assert_eq!(out.text.matches("kube-root-ca.crt").count(), 3, "{}", out.text);
        let accept = s.log.last().unwrap().request.header("Accept").unwrap().to_string();
        assert_eq!(accept, TABLE_ACCEPT);
        // The server's columns, as real kubectl prints them.
        assert!(
            out.text.lines().next().unwrap().split_whitespace().eq(["NAMESPACE", "NAME", "DATA", "AGE"]),
            "{}",
            out.text
        );
    }

    #[test]
    fn wide_shows_priority_one_columns_and_several_kinds_prefix_names() {
        let mut s = session();
        let made = run(
            &mut s,
            "create -f -",
            "apiVersion: v1\nkind: Pod\nmetadata: {name: p1}\nspec: {containers: [{name: c, image: busybox}]}\n",
        );
        assert!(!made.failed, "{}", made.text);
        let narrow = run(&mut s, "get pods", "");
        assert!(
            narrow.text.lines().next().unwrap().split_whitespace().eq(["NAME", "READY", "STATUS", "RESTARTS", "AGE"]),
            "{}",
            narrow.text
        );
        let wide = run(&mut s, "get pods -o wide", "");
        assert!(
            wide.text.starts_with("NAME ")
                && wide.text.contains("NOMINATED NODE")
                && wide.text.contains("READINESS GATES"),
            "{}",
            wide.text
        );
        let both = run(&mut s, "get pods,cm", "");
        assert!(both.text.contains("pod/p1") && both.text.contains("configmap/kube-root-ca.crt"), "{}", both.text);
    }

    #[test]
    fn create_apply_label_annotate_replace_delete_round() {
        let mut s = session();
        let file = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: demo\n  finalizers: [a/b]\ndata:\n  k: v\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: demo2\n";
        let from = s.log.len();
        let out = run(&mut s, "create -f -", file);
        assert_eq!(out.text, "configmap/demo created\nconfigmap/demo2 created\n");
        assert_eq!(
            requests_since(&s, from),
            vec![
                "POST /api/v1/namespaces/default/configmaps?fieldManager=kubectl-create&fieldValidation=Strict 201",
                "POST /api/v1/namespaces/default/configmaps?fieldManager=kubectl-create&fieldValidation=Strict 201"
            ]
        );
        assert!(run(&mut s, "create -f -", file)
            .text
            .contains("Error from server (AlreadyExists): configmaps \"demo\" already exists"));
        let out = run(&mut s, "apply -f -", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\n");
        assert_eq!(out.text, "configmap/applied created\n");
        let live = body_json(
            &s.request(Source::Console, Request::new("GET", "/api/v1/namespaces/default/configmaps/applied")).response,
        );
        assert!(live.pointer("/metadata/annotations").unwrap().get(LAST_APPLIED).is_some());

        assert_eq!(run(&mut s, "label cm demo tier=web", "").text, "configmap/demo labeled\n");
        assert!(run(&mut s, "label cm demo tier=db", "")
            .text
            .contains("'tier' already has a value (web), and --overwrite is false"));
        assert_eq!(run(&mut s, "annotate configmap demo note='hello world'", "").text, "configmap/demo annotated\n");
        let out = run(&mut s, "get cm demo -o json", "");
        let v: Value = serde_json::from_str(&out.text).unwrap();
        assert_eq!((v["kind"].as_str(), v["metadata"]["labels"]["tier"].as_str()), (Some("ConfigMap"), Some("web")));
        assert_eq!(v["metadata"]["annotations"]["note"], "hello world");
        assert_eq!(run(&mut s, "get cm demo demo2 -o name", "").text, "configmap/demo\nconfigmap/demo2\n");

        let out =
            run(&mut s, "replace -f -", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: demo2\ndata:\n  x: y\n");
        assert_eq!(out.text, "configmap/demo2 replaced\n");

        let from = s.log.len();
        assert_eq!(run(&mut s, "delete cm demo", "").text, "configmap \"demo\" deleted\n");
        let del = s.log[from..].iter().find(|e| e.request.method == "DELETE").unwrap();
        assert_eq!(
            String::from_utf8_lossy(&del.request.body),
            r#"{"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":"Background"}"#
        );
        // The finalizer keeps it: terminating, not gone.
        let v: Value = serde_json::from_str(&run(&mut s, "get cm demo -o json", "").text).unwrap();
        assert!(v["metadata"]["deletionTimestamp"].is_string());
        assert!(run(&mut s, "delete cm nope", "")
            .text
            .contains("Error from server (NotFound): configmaps \"nope\" not found"));
    }

    #[test]
    fn auth_can_i_and_whoami_ask_the_server() {
        let mut s = session();
        assert_eq!(run(&mut s, "auth can-i create deployments.apps", "").text, "yes\n");
        s.acting_as = crate::session::ActingAs::parse("alice", "devs");
        let out = run(&mut s, "kubectl auth can-i get pods -n kube-system", "");
        assert_eq!((out.text.as_str(), out.failed), ("no\n", true));
        let out = run(&mut s, "auth whoami", "");
        assert!(out.text.starts_with("ATTRIBUTE   VALUE\n"), "{}", out.text);
        assert!(out.text.contains("Username    alice\n"), "{}", out.text);
        assert!(out.text.contains("Groups      [devs system:authenticated]\n"), "{}", out.text);
        // The page's requests went out as alice.
        let review = s.log.iter().rev().find(|e| e.request.path.ends_with("selfsubjectreviews")).unwrap();
        assert_eq!(review.request.header("Impersonate-User"), Some("alice"));
        assert!(run(&mut s, "auth can-i --list", "").text.contains("unknown flag: --list"));
        assert!(run(&mut s, "auth frobnicate", "").text.contains("knows auth can-i and auth whoami"));
    }

    #[test]
    fn a_missing_named_object_prints_only_its_error() {
        let mut s = session();
        let not_found = "Error from server (NotFound): configmaps \"nosuch\" not found";
        for line in ["get cm nosuch", "get cm nosuch -o yaml", "get cm nosuch -o json"] {
            let out = run(&mut s, line, "");
            let all = out.text.clone();
            assert!(all.contains(not_found), "{line}: {all}");
            assert!(
                !all.contains("No resources found") && !all.contains("kind: List") && !all.contains("\"List\""),
                "{line}: {all}"
            );
        }
        // A list that finds nothing still says so.
        assert!(run(&mut s, "get cm -l none=here", "").text.starts_with("No resources found in default namespace."));
    }

    #[test]
    fn get_watch_asks_for_a_lane_from_the_lists_resource_version() {
        let mut s = session();
        let out = run(&mut s, "get cm -w -l app=x", "");
        let (path, query) = out.watch.unwrap();
        assert_eq!(path, "/api/v1/namespaces/default/configmaps");
        let rv = s.server.revision().to_string();
        assert_eq!(query, format!("labelSelector=app%3Dx&resourceVersion={rv}"));
        assert!(out.text.starts_with("No resources found in default namespace."), "{}", out.text);
    }

    #[test]
    fn apply_of_an_existing_object_sends_a_strategic_merge_patch() {
        let mut s = session();
        let doc = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: v\n  gone: x\n";
        run(&mut s, "apply -f -", doc);
        assert_eq!(run(&mut s, "apply -f -", doc).text, "configmap/a unchanged\n");
        let from = s.log.len();
        run(&mut s, "apply -f -", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: w\n");
        let patch = s.log[from..].iter().find(|e| e.request.method == "PATCH").unwrap();
        assert_eq!(patch.request.header("Content-Type"), Some("application/strategic-merge-patch+json"));
        let body: Value = serde_json::from_slice(&patch.request.body).unwrap();
        assert_eq!(body["data"], json!({"k": "w", "gone": null}));
    }

    #[test]
    fn server_dry_run_sends_dry_run_all_and_changes_nothing() {
        let mut s = session();
        let before = s.server.revision();
        let from = s.log.len();
        let out =
            run(&mut s, "create -f - --dry-run=server", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: d\n");
        assert_eq!(out.text, "configmap/d created (server dry run)\n");
        assert_eq!(
            run(&mut s, "delete cm kube-root-ca.crt --dry-run=server", "").text,
            "configmap \"kube-root-ca.crt\" deleted (server dry run)\n"
        );
        assert_eq!(
            run(&mut s, "label cm kube-root-ca.crt a=b --dry-run=server", "").text,
            "configmap/kube-root-ca.crt labeled (server dry run)\n"
        );
        assert_eq!(s.server.revision(), before);
        let writes: Vec<&str> =
            s.log[from..].iter().filter(|e| e.request.method != "GET").map(|e| e.request.query.as_str()).collect();
        assert_eq!(writes.len(), 3);
        // Creates and patches say so in the query; a delete in its body.
        assert_eq!(writes.iter().filter(|q| q.ends_with("dryRun=All")).count(), 2, "{writes:?}");
        let delete = s.log[from..].iter().find(|e| e.request.method == "DELETE").unwrap();
        let options: Value = serde_json::from_slice(&delete.request.body).unwrap();
        assert_eq!(options["dryRun"], json!(["All"]));
        assert!(parse("get pods --dry-run=client").unwrap_err().contains("use --dry-run=server"));
        assert!(parse("delete cm x --dry-run").unwrap_err().contains("Invalid dry-run value ()"));
    }

    #[test]
    fn server_warnings_are_printed_first_as_kubectl_does() {
        assert_eq!(warning_text(r#"299 - "unknown field \"dta\"""#).as_deref(), Some(r#"unknown field "dta""#));
        assert_eq!(warning_text("199 - \"x\""), None);
        let mut s = session();
        // kubectl asks for Strict; a Warn-level request shows the warning.
        let out = run(&mut s, "create -f -", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: w\ndta: {}\n");
        assert!(out.text.contains(r#"strict decoding error: unknown field "dta""#), "{}", out.text);
        let e = s.request(
            Source::Console,
            Request::new("POST", "/api/v1/namespaces/default/configmaps?fieldValidation=Warn")
                .with_body(r#"{"metadata":{"name":"w"},"dta":1}"#),
        );
        assert_eq!(e.response.status, 201);
        let out = run(&mut s, "label cm w a=b", "");
        assert_eq!(out.text, "configmap/w labeled\n");
        let out = run(
            &mut s,
            "create -f - --validate=warn",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: w2\ndta: {}\n",
        );
        assert_eq!(out.text, "Warning: unknown field \"dta\"\nconfigmap/w2 created\n");
        assert!(parse("create -f - --validate=loud").is_err());
    }

    #[test]
    fn server_side_apply_conflicts_show_the_three_ways_out() {
        let mut s = session();
        let cm = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ssa\ndata:\n  k: one\n";
        assert_eq!(run(&mut s, "apply -f -", cm).text, "configmap/ssa created\n");
        let two = cm.replace("k: one", "k: two");
        let out = run(&mut s, "apply --server-side -f -", &two);
        assert!(out.failed);
        assert!(
            out.text.starts_with(
                r#"error: Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using v1: .data.k"#
            ),
            "{}",
            out.text
        );
        assert!(out.text.contains("--force-conflicts") && out.text.contains("co-own fields"));
        assert_eq!(
            run(&mut s, "apply --server-side --force-conflicts -f -", &two).text,
            "configmap/ssa serverside-applied\n"
        );
        let yaml = run(&mut s, "get cm ssa -o yaml", "").text;
        assert!(yaml.contains("k: two") && !yaml.contains("managedFields"), "{yaml}");
        assert!(run(&mut s, "get cm ssa -o yaml --show-managed-fields", "").text.contains("operation: Apply"));
    }

    #[test]
    fn errors_for_unknown_types_and_bad_files() {
        let mut s = session();
        assert!(run(&mut s, "get flurbs", "").text.contains("the server doesn't have a resource type \"flurbs\""));
        assert!(run(&mut s, "create -f -", "kind: Nope\napiVersion: v9\n").text.contains("resource mapping not found"));
        assert!(run(&mut s, "create -f -", "a: [").failed);
        assert!(run(&mut s, "create -f x.yaml", "").text.contains("only -f -"));
    }

    #[test]
    fn columns_align_like_tabwriter() {
        let rows = vec![vec!["NAME".into(), "AGE".into()], vec!["kubernetes".into(), "5s".into()]];
        assert_eq!(columns(&rows), "NAME         AGE\nkubernetes   5s\n");
    }
}
