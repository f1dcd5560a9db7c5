//! The kubectl-style command bar: a command line parsed as kubectl parses
//! it and translated into the HTTP requests kubectl 1.33 sends, served by
//! the session (so they appear in the request log) and printed as kubectl
//! prints the answers.

use serde_json::{json, Map, Value};

use crate::format::{age, build_query, parse_documents, parse_rfc3339, to_pretty_json, to_yaml};
use crate::resources::{ApiResource, Discovery, AGGREGATED_ACCEPT};
use crate::session::{body_json, LogEntry, Session, Source};
use kubesim::server::Request;

/// The Accept header `kubectl get` sends to print server-side columns.
pub const TABLE_ACCEPT: &str =
    "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";
const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";
/// What kubectl says after an apply conflict: the three ways out.
const CONFLICT_HELP: &str = "Please review the fields above--they currently have other managers. Here
are the ways you can resolve this warning:
* If you intend to manage all of these fields, please re-run the apply
  command with the `--force-conflicts` flag.
* If you do not intend to manage all of the fields, please edit your
  manifest to remove references to the fields that should keep their
  current managers.
* You may co-own fields by updating your manifest to match the existing
  value; in this case, you'll become the manager if the other manager(s)
  stop managing the field (remove it from their configuration).";

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Output {
    Table,
    Wide,
    Yaml,
    Json,
    Name,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verb {
    Get,
    Create,
    Apply,
    Replace,
    Delete,
    Label,
    Annotate,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Command {
    pub verb: Verb,
    /// Resource types as typed (`get pods,svc` gives two).
    pub types: Vec<String>,
    pub names: Vec<String>,
    /// `k=v` and `k-` arguments of label and annotate.
    pub pairs: Vec<String>,
    pub namespace: Option<String>,
    pub all_namespaces: bool,
    pub selector: Option<String>,
    pub field_selector: Option<String>,
    pub output: Output,
    pub watch: bool,
    pub chunk_size: u32,
    pub filename: Option<String>,
    pub overwrite: bool,
    pub cascade: String,
    /// `--dry-run=server`: writes carry `dryRun=All`.
    pub server_dry_run: bool,
    /// `--validate`: the `fieldValidation` writes ask for (kubectl: Strict).
    pub field_validation: &'static str,
    /// `apply --server-side` (and `--force-conflicts`).
    pub server_side: bool,
    pub force_conflicts: bool,
    /// `--show-managed-fields` (kubectl hides them by default).
    pub show_managed_fields: bool,
}

/// Splits a command line like a shell: whitespace separates, quotes group.
pub fn split_words(line: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut quote: Option<char> = None;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some('"'), '\\') => cur.extend(chars.next()),
            (Some(_), c) => cur.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                in_word = true;
            }
            (None, '\\') => {
                cur.extend(chars.next());
                in_word = true;
            }
            (None, c) if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            (None, c) => {
                cur.push(c);
                in_word = true;
            }
        }
    }
    if quote.is_some() {
        return Err("unterminated quote".into());
    }
    if in_word {
        words.push(cur);
    }
    Ok(words)
}

pub fn parse(line: &str) -> Result<Command, String> {
    let mut words = split_words(line)?;
    if words.first().map(String::as_str) == Some("kubectl") {
        words.remove(0);
    }
    let Some(verb_word) = words.first().cloned() else {
        return Err("type a command, e.g. kubectl get pods -A".into());
    };
    let verb = match verb_word.as_str() {
        "get" => Verb::Get,
        "create" => Verb::Create,
        "apply" => Verb::Apply,
        "replace" => Verb::Replace,
        "delete" => Verb::Delete,
        "label" => Verb::Label,
        "annotate" => Verb::Annotate,
        other => {
            return Err(format!(
                "unknown command \"{other}\" for \"kubectl\"; this command bar knows get, create, apply, replace, delete, label and annotate"
            ))
        }
    };
    let mut c = Command {
        verb,
        types: Vec::new(),
        names: Vec::new(),
        pairs: Vec::new(),
        namespace: None,
        all_namespaces: false,
        selector: None,
        field_selector: None,
        output: Output::Table,
        watch: false,
        chunk_size: 500,
        filename: None,
        overwrite: false,
        cascade: "background".into(),
        server_dry_run: false,
        field_validation: "Strict",
        server_side: false,
        force_conflicts: false,
        show_managed_fields: false,
    };
    let mut positional = Vec::new();
    let mut i = 1;
    while i < words.len() {
        let w = words[i].clone();
        i += 1;
        if !w.starts_with('-') || w == "-" {
            positional.push(w);
            continue;
        }
        let (flag, inline) = match w.split_once('=') {
            Some((f, v)) => (f.to_string(), Some(v.to_string())),
            None => (w.clone(), None),
        };
        // Short flags may carry their value: -nkube-system, -oyaml.
        let (flag, inline) = match (flag.as_str(), inline) {
            (f, None) if f.len() > 2 && !f.starts_with("--") => (f[..2].to_string(), Some(f[2..].to_string())),
            (_, v) => (flag.clone(), v),
        };
        let mut value = |name: &str| -> Result<String, String> {
            if let Some(v) = inline.clone() {
                return Ok(v);
            }
            let v = words.get(i).cloned().ok_or_else(|| format!("flag needs an argument: {name}"))?;
            i += 1;
            Ok(v)
        };
        let boolean = |v: &Option<String>| -> Result<bool, String> {
            match v.as_deref() {
                None | Some("true") => Ok(true),
                Some("false") => Ok(false),
                Some(o) => Err(format!("invalid argument \"{o}\" for \"{flag}\" flag: expected true or false")),
            }
        };
        match flag.as_str() {
            "-n" | "--namespace" => c.namespace = Some(value("'-n'")?),
            "-A" | "--all-namespaces" => c.all_namespaces = boolean(&inline)?,
            "-l" | "--selector" => c.selector = Some(value("'-l'")?),
            "--field-selector" => c.field_selector = Some(value("'--field-selector'")?),
            "-w" | "--watch" => c.watch = boolean(&inline)?,
            "-f" | "--filename" => c.filename = Some(value("'-f'")?),
            "--overwrite" => c.overwrite = boolean(&inline)?,
            "--server-side" => c.server_side = boolean(&inline)?,
            "--force-conflicts" => c.force_conflicts = boolean(&inline)?,
            "--show-managed-fields" => c.show_managed_fields = boolean(&inline)?,
            "--validate" => {
                c.field_validation = match inline.as_deref() {
                    None | Some("strict") | Some("true") => "Strict",
                    Some("warn") => "Warn",
                    Some("ignore") | Some("false") => "Ignore",
                    Some(other) => {
                        return Err(format!(
                            "invalid - validate option {other:?}; must be one of: strict (or true), warn, ignore (or false)"
                        ))
                    }
                };
            }
            "--dry-run" => {
                c.server_dry_run = match inline.as_deref() {
                    Some("server") => true,
                    Some("none") => false,
                    Some("client") => {
                        return Err("--dry-run=client is not simulated here (kubectl would send nothing); use --dry-run=server".into())
                    }
                    other => {
                        return Err(format!(
                            "error: Invalid dry-run value ({}). Must be \"none\", \"server\", or \"client\".",
                            other.unwrap_or("")
                        ))
                    }
                };
            }
            "--chunk-size" => {
                let v = value("'--chunk-size'")?;
                c.chunk_size = v.parse().map_err(|_| format!("invalid argument \"{v}\" for \"--chunk-size\" flag"))?;
            }
            "--cascade" => {
                let v = value("'--cascade'")?;
                c.cascade = match v.as_str() {
                    "background" | "true" => "background".into(),
                    "foreground" => "foreground".into(),
                    "orphan" | "false" => "orphan".into(),
                    _ => return Err(format!("invalid cascade value ({v}). Must be \"background\", \"foreground\", or \"orphan\"")),
                };
            }
            "-o" | "--output" => {
                let v = value("'-o'")?;
                c.output = match v.as_str() {
                    "yaml" => Output::Yaml,
                    "json" => Output::Json,
                    "name" => Output::Name,
                    "wide" => Output::Wide,
                    _ => {
                        return Err(format!(
                            "unable to match a printer suitable for the output format \"{v}\", allowed formats are: json,name,wide,yaml"
                        ))
                    }
                };
            }
            _ => return Err(format!("unknown flag: {flag} (this command bar knows -n, -A, -l, --field-selector, -o, -w, --chunk-size, -f, --overwrite, --cascade, --dry-run=server, --validate)")),
        }
    }
    match c.verb {
        Verb::Create | Verb::Apply | Verb::Replace => {
            if c.filename.is_none() {
                return Err("error: must specify one of -f and -k".into());
            }
            if !positional.is_empty() {
                return Err(format!("unexpected arguments: {}", positional.join(" ")));
            }
        }
        _ => {
            let Some(first) = positional.first() else {
                return Err("error: you must specify the type of resource to get. Use \"kubectl api-resources\" for a complete list of supported resources.".into());
            };
            c.types = first.split(',').filter(|s| !s.is_empty()).map(str::to_string).collect();
            for p in &positional[1..] {
                if matches!(c.verb, Verb::Label | Verb::Annotate) && (p.contains('=') || p.ends_with('-')) {
                    c.pairs.push(p.clone());
                } else {
                    c.names.push(p.clone());
                }
            }
            if matches!(c.verb, Verb::Delete | Verb::Label | Verb::Annotate) && c.names.is_empty() {
                return Err("error: resource(s) were provided, but no name was specified".into());
            }
            if matches!(c.verb, Verb::Label | Verb::Annotate) && c.pairs.is_empty() {
                return Err("error: at least one label update is required".into());
            }
        }
    }
    Ok(c)
}

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
        Verb::Get => get(s, &d, &cmd, &mut out),
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
        Verb::Delete => delete(s, &d, &cmd, &mut out),
        Verb::Label | Verb::Annotate => label(s, &d, &cmd, &mut out),
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

/// `deployment.apps/coredns`, as `-o name` prints it.
fn name_ref(r: &ApiResource, name: &str) -> String {
    if r.group.is_empty() {
        format!("{}/{name}", r.kind.to_ascii_lowercase())
    } else {
        format!("{}.{}/{name}", r.kind.to_ascii_lowercase(), r.group)
    }
}

fn get(s: &mut Session, d: &Discovery, cmd: &Command, out: &mut Outcome) {
    let mut types: Vec<ApiResource> = Vec::new();
    for t in &cmd.types {
        if t == "all" {
            types.extend(d.category("all").into_iter().cloned());
            continue;
        }
        let Some(r) = resolve(d, t, out) else { return };
        types.push(r);
    }
    if cmd.watch && (types.len() != 1 || cmd.names.len() > 1) {
        out.error("error: you may only specify a single resource type");
        return;
    }
    let ns = namespace_of(cmd);
    let accept = match cmd.output {
        Output::Table | Output::Wide => TABLE_ACCEPT,
        _ => "application/json",
    };
    let mut printed: Vec<Value> = Vec::new();
    let several = types.len() > 1;
    for r in &types {
        let mut items: Vec<Value> = Vec::new();
        let mut list_rv = String::new();
        // A server-side Table's column definitions, when the server sent one.
        let mut defs: Option<Value> = None;
        if cmd.names.is_empty() {
            let mut cont = String::new();
            loop {
                let mut pairs = vec![("limit".to_string(), cmd.chunk_size.to_string())];
                if cmd.chunk_size == 0 {
                    pairs.clear();
                }
                pairs.push(("labelSelector".into(), cmd.selector.clone().unwrap_or_default()));
                pairs.push(("fieldSelector".into(), cmd.field_selector.clone().unwrap_or_default()));
                pairs.push(("continue".into(), cont.clone()));
                let q = build_query(&pairs);
                let path = r.collection(ns.as_deref());
                let target = if q.is_empty() { path } else { format!("{path}?{q}") };
                let e = send(s, "GET", &target, None, None, accept);
                if e.response.status != 200 {
                    out.error(server_error(&e));
                    return;
                }
                let v = body_json(&e.response);
                list_rv = v.pointer("/metadata/resourceVersion").and_then(Value::as_str).unwrap_or("").to_string();
                for item in v.get("items").and_then(Value::as_array).cloned().unwrap_or_default() {
                    items.push(with_type(item, r));
                }
                items.extend(v.get("rows").and_then(Value::as_array).cloned().unwrap_or_default());
                if defs.is_none() {
                    defs = v.get("columnDefinitions").filter(|d| d.is_array()).cloned();
                }
                cont = v.pointer("/metadata/continue").and_then(Value::as_str).unwrap_or("").to_string();
                if cont.is_empty() {
                    break;
                }
            }
        } else {
            for name in &cmd.names {
                let e = send(s, "GET", &r.item(ns.as_deref().or(Some("default")), name), None, None, accept);
                if e.response.status != 200 {
                    out.error(server_error(&e));
                    continue;
                }
                let v = body_json(&e.response);
                list_rv = v.pointer("/metadata/resourceVersion").and_then(Value::as_str).unwrap_or("").to_string();
                if v.get("kind").and_then(Value::as_str) == Some("Table") {
                    if defs.is_none() {
                        defs = v.get("columnDefinitions").filter(|d| d.is_array()).cloned();
                    }
                    items.extend(v.get("rows").and_then(Value::as_array).cloned().unwrap_or_default());
                } else {
                    items.push(with_type(v, r));
                }
            }
        }
        if cmd.watch {
            let mut pairs = vec![
                ("labelSelector".to_string(), cmd.selector.clone().unwrap_or_default()),
                ("fieldSelector".to_string(), cmd.field_selector.clone().unwrap_or_default()),
            ];
            if let Some(name) = cmd.names.first() {
                pairs.push(("fieldSelector".into(), format!("metadata.name={name}")));
            }
            pairs.push(("resourceVersion".into(), list_rv.clone()));
            out.watch = Some((r.collection(ns.as_deref()), build_query(&pairs)));
        }
        match cmd.output {
            Output::Table | Output::Wide => {
                if items.is_empty() {
                    if !several {
                        match &ns {
                            Some(n) if r.namespaced => out.line(format!("No resources found in {n} namespace.")),
                            _ => out.line("No resources found"),
                        }
                    }
                    continue;
                }
                let with_ns = ns.is_none() && r.namespaced;
                let text = match &defs {
                    Some(d) => server_table(d, &items, cmd.output == Output::Wide, with_ns, several.then_some(r)),
                    None => table(s.server.now().0, r, &items, with_ns, several),
                };
                out.text.push_str(&text);
                if several {
                    out.line("");
                }
            }
            Output::Name => {
                for it in &items {
                    out.line(name_ref(r, it.pointer("/metadata/name").and_then(Value::as_str).unwrap_or("")));
                }
            }
            Output::Yaml | Output::Json => printed.extend(items.into_iter().map(|mut i| {
                if !cmd.show_managed_fields {
                    if let Some(m) = i.get_mut("metadata").and_then(Value::as_object_mut) {
                        m.shift_remove("managedFields");
                    }
                }
                i
            })),
        }
    }
    if matches!(cmd.output, Output::Yaml | Output::Json) {
        let doc = if printed.len() == 1 && !cmd.names.is_empty() {
            printed.remove(0)
        } else {
            json!({"apiVersion": "v1", "items": printed, "kind": "List", "metadata": {"resourceVersion": ""}})
        };
        out.text.push_str(&if cmd.output == Output::Yaml { to_yaml(&doc) } else { to_pretty_json(&doc) + "\n" });
    }
    if cmd.watch {
        out.line("(watching: the events stream into a new watch lane)");
    }
}

/// List items come without kind and apiVersion; kubectl fills them in.
fn with_type(mut item: Value, r: &ApiResource) -> Value {
    if let Value::Object(m) = &mut item {
        if !m.contains_key("kind") && !m.contains_key("cells") {
            let mut typed = Map::new();
            typed.insert("apiVersion".into(), json!(r.group_version()));
            typed.insert("kind".into(), json!(r.kind));
            typed.extend(std::mem::take(m));
            *m = typed;
        }
    }
    item
}

/// Prints a server-side Table as kubectl does: the columns of priority 0
/// (all with `-o wide`), upper-cased; NAMESPACE first for `-A`; the name
/// column prefixed with the kind when several kinds are listed.
fn server_table(defs: &Value, rows: &[Value], wide: bool, with_ns: bool, prefix: Option<&ApiResource>) -> String {
    let defs: &[Value] = defs.as_array().map(Vec::as_slice).unwrap_or(&[]);
    let shown: Vec<usize> = (0..defs.len())
        .filter(|i| wide || defs[*i].get("priority").and_then(Value::as_i64).unwrap_or(0) == 0)
        .collect();
    let mut out: Vec<Vec<String>> = Vec::new();
    let mut header: Vec<String> = Vec::new();
    if with_ns {
        header.push("NAMESPACE".into());
    }
    header.extend(shown.iter().map(|i| defs[*i].get("name").and_then(Value::as_str).unwrap_or("").to_uppercase()));
    out.push(header);
    for row in rows {
        let cells: &[Value] = row.get("cells").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]);
        let mut line: Vec<String> = Vec::new();
        if with_ns {
            line.push(row.pointer("/object/metadata/namespace").and_then(Value::as_str).unwrap_or("").to_string());
        }
        for i in &shown {
            let text = match cells.get(*i) {
                Some(Value::String(s)) => s.clone(),
                Some(Value::Null) | None => "<none>".into(),
                Some(other) => other.to_string(),
            };
            let is_name = defs[*i].get("format").and_then(Value::as_str) == Some("name");
            line.push(match prefix {
                Some(r) if is_name => name_ref(r, &text),
                _ => text,
            });
        }
        out.push(line);
    }
    columns(&out)
}

/// Prints rows without a server-side Table: NAME and AGE, as kubectl's
/// default printer does.
fn table(now_ms: i64, r: &ApiResource, items: &[Value], with_ns: bool, prefix_kind: bool) -> String {
    let mut rows: Vec<Vec<String>> = Vec::new();
    let mut header = vec![];
    if with_ns {
        header.push("NAMESPACE".to_string());
    }
    header.push("NAME".to_string());
    header.push("AGE".to_string());
    rows.push(header);
    for it in items {
        let name = it.pointer("/metadata/name").and_then(Value::as_str).unwrap_or("");
        let name = if prefix_kind { name_ref(r, name) } else { name.to_string() };
        let created = it.pointer("/metadata/creationTimestamp").and_then(Value::as_str).and_then(parse_rfc3339);
        let mut row = Vec::new();
        if with_ns {
            row.push(it.pointer("/metadata/namespace").and_then(Value::as_str).unwrap_or("").to_string());
        }
        row.push(name);
        row.push(created.map(|c| age(now_ms, c)).unwrap_or_else(|| "<unknown>".into()));
        rows.push(row);
    }
    columns(&rows)
}

/// Aligns columns with three spaces between them, as kubectl's tabwriter.
pub fn columns(rows: &[Vec<String>]) -> String {
    let n = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> =
        (0..n).map(|i| rows.iter().filter_map(|r| r.get(i)).map(|c| c.chars().count()).max().unwrap_or(0)).collect();
    let mut out = String::new();
    for row in rows {
        let mut line = String::new();
        for (i, cell) in row.iter().enumerate() {
            line.push_str(cell);
            if i + 1 < row.len() {
                line.push_str(&" ".repeat(widths[i] - cell.chars().count() + 3));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

fn resource_for_doc<'a>(d: &'a Discovery, doc: &Value) -> Result<&'a ApiResource, String> {
    let api_version = doc.get("apiVersion").and_then(Value::as_str).unwrap_or("");
    let kind = doc.get("kind").and_then(Value::as_str).unwrap_or("");
    if api_version.is_empty() || kind.is_empty() {
        return Err("error: unable to decode: Object 'Kind' is missing or 'apiVersion' is missing".into());
    }
    let (group, version) = api_version.split_once('/').unwrap_or(("", api_version));
    d.resources
        .iter()
        .find(|r| r.group == group && r.version == version && r.kind == kind)
        .ok_or_else(|| format!("error: resource mapping not found for kind \"{kind}\" in version \"{api_version}\""))
}

fn write_document(s: &mut Session, d: &Discovery, cmd: &Command, mut doc: Value, out: &mut Outcome) {
    let r = match resource_for_doc(d, &doc) {
        Ok(r) => r.clone(),
        Err(e) => {
            out.error(e);
            return;
        }
    };
    let name = doc.pointer("/metadata/name").and_then(Value::as_str).unwrap_or("").to_string();
    let doc_ns = doc.pointer("/metadata/namespace").and_then(Value::as_str).map(str::to_string);
    if let (Some(flag), Some(own)) = (&cmd.namespace, &doc_ns) {
        if flag != own {
            out.error(format!("error: the namespace from the provided object \"{own}\" does not match the namespace \"{flag}\". You must pass '--namespace={own}' to perform this operation."));
            return;
        }
    }
    let ns = doc_ns.or_else(|| cmd.namespace.clone()).unwrap_or_else(|| "default".into());
    let ns = if r.namespaced { Some(ns.as_str()) } else { None };
    let kind_ref = |n: &str| name_ref(&r, n);
    // One write as kubectl sends it: the verb's field manager and
    // fieldValidation (and dryRun=All under --dry-run=server).
    let write = |s: &mut Session, method: &str, base: String, manager: &str, ct: &str, body: &Value| {
        let target = dry(cmd, format!("{base}?fieldManager={manager}&fieldValidation={}", cmd.field_validation));
        send(s, method, &target, Some(ct), Some(body), "application/json")
    };
    let mut report = |e: &LogEntry, ok: &[u16], done: String| {
        if ok.contains(&e.response.status) {
            out.line(done);
        } else {
            out.error(server_error(e));
        }
    };
    match cmd.verb {
        Verb::Create => {
            let e = write(s, "POST", r.collection(ns), "kubectl-create", "application/json", &doc);
            let created = body_json(&e.response);
            let n = created.pointer("/metadata/name").and_then(Value::as_str).unwrap_or(&name).to_string();
            report(&e, &[200, 201], format!("{} created", kind_ref(&n)));
        }
        Verb::Replace => {
            if name.is_empty() {
                out.error("error: resource name may not be empty");
                return;
            }
            let e = write(s, "PUT", r.item(ns, &name), "kubectl-replace", "application/json", &doc);
            report(&e, &[200], format!("{} replaced", kind_ref(&name)));
        }
        Verb::Apply if cmd.server_side => {
            if name.is_empty() {
                out.error("error: resource name may not be empty");
                return;
            }
            let target = dry(
                cmd,
                format!(
                    "{}?fieldManager=kubectl&fieldValidation={}&force={}",
                    r.item(ns, &name),
                    cmd.field_validation,
                    cmd.force_conflicts
                ),
            );
            let e = send(s, "PATCH", &target, Some("application/apply-patch+yaml"), Some(&doc), "application/json");
            if e.response.status == 409 {
                let v = body_json(&e.response);
                out.error(format!("error: {}", v["message"].as_str().unwrap_or("conflict")));
                out.line(CONFLICT_HELP);
            } else {
                report(&e, &[200, 201], format!("{} serverside-applied", kind_ref(&name)));
            }
        }
        Verb::Apply => {
            if name.is_empty() {
                out.error("error: resource name may not be empty");
                return;
            }
            // The configuration as applied, without its own annotation.
            let mut applied = doc.clone();
            if let Some(a) = applied.pointer_mut("/metadata/annotations").and_then(Value::as_object_mut) {
                a.remove(LAST_APPLIED);
            }
            let applied_text = serde_json::to_string(&applied).unwrap_or_default() + "\n";
            let live = send(s, "GET", &r.item(ns, &name), None, None, "application/json");
            const CSA: &str = "kubectl-client-side-apply";
            match live.response.status {
                404 => {
                    set_annotation(&mut doc, LAST_APPLIED, &applied_text);
                    let e = write(s, "POST", r.collection(ns), CSA, "application/json", &doc);
                    report(&e, &[201], format!("{} created", kind_ref(&name)));
                }
                200 => {
                    let live = body_json(&live.response);
                    let previous: Value = live
                        .pointer(&format!("/metadata/annotations/{}", LAST_APPLIED.replace('/', "~1")))
                        .and_then(Value::as_str)
                        .and_then(|t| serde_json::from_str(t).ok())
                        .unwrap_or(Value::Null);
                    let mut patch = two_way_patch(&previous, &applied);
                    if patch.as_object().is_some_and(Map::is_empty) {
                        out.line(format!("{} unchanged", kind_ref(&name)));
                        return;
                    }
                    set_annotation(&mut patch, LAST_APPLIED, &applied_text);
                    let e = write(s, "PATCH", r.item(ns, &name), CSA, "application/strategic-merge-patch+json", &patch);
                    report(&e, &[200], format!("{} configured", kind_ref(&name)));
                }
                _ => out.error(server_error(&live)),
            }
        }
        _ => {}
    }
}

fn set_annotation(doc: &mut Value, key: &str, value: &str) {
    let Some(obj) = doc.as_object_mut() else { return };
    let meta = obj.entry("metadata").or_insert_with(|| json!({}));
    if let Some(m) = meta.as_object_mut() {
        let ann = m.entry("annotations").or_insert_with(|| json!({}));
        if let Some(a) = ann.as_object_mut() {
            a.insert(key.into(), json!(value));
        }
    }
}

/// The patch from the previously applied configuration to the new one:
/// changed fields set, removed fields null (lists are replaced whole).
pub fn two_way_patch(old: &Value, new: &Value) -> Value {
    match (old, new) {
        (Value::Object(o), Value::Object(n)) => {
            let mut p = Map::new();
            for (k, nv) in n {
                match o.get(k) {
                    Some(ov) if ov == nv => {}
                    Some(ov @ Value::Object(_)) if nv.is_object() => {
                        p.insert(k.clone(), two_way_patch(ov, nv));
                    }
                    _ => {
                        p.insert(k.clone(), nv.clone());
                    }
                }
            }
            for k in o.keys() {
                if !n.contains_key(k) {
                    p.insert(k.clone(), Value::Null);
                }
            }
            Value::Object(p)
        }
        (_, n) => n.clone(),
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

fn delete(s: &mut Session, d: &Discovery, cmd: &Command, out: &mut Outcome) {
    let ns = namespace_of(cmd);
    for t in &cmd.types {
        let Some(r) = resolve(d, t, out) else { return };
        let cascade = match cmd.cascade.as_str() {
            "foreground" => "Foreground",
            "orphan" => "Orphan",
            _ => "Background",
        };
        let body = json!({"kind": "DeleteOptions", "apiVersion": "v1", "propagationPolicy": cascade});
        for name in &cmd.names {
            let e = send(
                s,
                "DELETE",
                &dry(cmd, r.item(ns.as_deref().or(Some("default")), name)),
                Some("application/json"),
                Some(&body),
                "application/json",
            );
            if e.response.status == 200 || e.response.status == 202 {
                out.line(format!("{} \"{name}\" deleted", r.kind.to_ascii_lowercase()));
            } else {
                out.error(server_error(&e));
            }
        }
    }
}

fn label(s: &mut Session, d: &Discovery, cmd: &Command, out: &mut Outcome) {
    let (field, manager, done) = match cmd.verb {
        Verb::Label => ("labels", "kubectl-label", "labeled"),
        _ => ("annotations", "kubectl-annotate", "annotated"),
    };
    let mut changes = Map::new();
    for p in &cmd.pairs {
        match p.split_once('=') {
            Some((k, v)) => changes.insert(k.to_string(), json!(v)),
            None => changes.insert(p.trim_end_matches('-').to_string(), Value::Null),
        };
    }
    let ns = namespace_of(cmd);
    for t in &cmd.types {
        let Some(r) = resolve(d, t, out) else { return };
        for name in &cmd.names {
            let item = r.item(ns.as_deref().or(Some("default")), name);
            let live = send(s, "GET", &item, None, None, "application/json");
            if live.response.status != 200 {
                out.error(server_error(&live));
                continue;
            }
            let live = body_json(&live.response);
            if !cmd.overwrite {
                let existing = live.pointer(&format!("/metadata/{field}")).and_then(Value::as_object);
                let clash = changes.iter().find_map(|(k, v)| {
                    let old = existing?.get(k)?;
                    (v.is_string() && old != v).then(|| {
                        format!("'{k}' already has a value ({}), and --overwrite is false", old.as_str().unwrap_or(""))
                    })
                });
                if let Some(msg) = clash {
                    out.error(format!("error: {msg}"));
                    continue;
                }
            }
            let patch = json!({"metadata": {field: changes}});
            let e = send(
                s,
                "PATCH",
                &dry(cmd, format!("{item}?fieldManager={manager}")),
                Some("application/merge-patch+json"),
                Some(&patch),
                "application/json",
            );
            if e.response.status == 200 {
                out.line(format!("{} {done}", name_ref(&r, name)));
            } else {
                out.error(server_error(&e));
            }
        }
    }
}

#[cfg(test)]
mod tests {
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
        assert!(writes.iter().all(|q| q.ends_with("dryRun=All")), "{writes:?}");
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
