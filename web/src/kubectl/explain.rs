//! `kubectl explain`: the OpenAPI v3 document of the resource's
//! group-version, read from the server as kubectl 1.33 reads it (`GET
//! /openapi/v3`, then the group-version's `serverRelativeURL`), printed as
//! its `plaintext` template prints it: the kind, then the description and
//! the fields of the resource or of the field path asked for.
//!
//! The page's core carries its schemas without descriptions (they would
//! cost the bundle 300 KB). The command bar loads them on the first
//! `explain` from `k8s-v1.33.json`, copied next to the page, and they are
//! put back into the document the server answered; without them the
//! fields print as kubectl prints undocumented ones.

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::rc::Rc;

use kubesim::sort::Order;
use serde_json::{json, Map, Value};

use super::{send, Command, Outcome};
use crate::resources::{ApiResource, Discovery};
use crate::session::{body_json, Session};

/// The schemas with their descriptions, next to the page.
pub const DOCS_FILE: &str = "k8s-v1.33.json";

thread_local! {
    static DOCS: RefCell<Option<Rc<Value>>> = const { RefCell::new(None) };
    static TRIED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Gives `explain` the schemas' descriptions (the `definitions` document
/// of `DOCS_FILE`), or says they could not be had (`None`): either way
/// they are not asked for again.
pub fn set_docs(doc: Option<Value>) {
    TRIED.with(|t| t.set(true));
    DOCS.with(|d| *d.borrow_mut() = doc.map(Rc::new));
}

pub fn has_docs() -> bool {
    DOCS.with(|d| d.borrow().is_some())
}

/// Whether a command line is an `explain` that should wait for the
/// descriptions to load first (the first one the page runs).
pub fn wants_docs(line: &str) -> bool {
    !TRIED.with(|t| t.get()) && super::parse(line).is_ok_and(|c| c.verb == super::Verb::Explain)
}

pub(super) fn explain(s: &mut Session, d: &Discovery, cmd: &Command, out: &mut Outcome) {
    let [typed] = cmd.args.as_slice() else {
        if cmd.args.is_empty() {
            out.error("error: You must specify the type of resource to explain. Use \"kubectl api-resources\" for a complete list of supported resources.");
        } else {
            out.error("error: We accept only this format: explain RESOURCE");
        }
        return;
    };
    let Some((r, fields)) = split_request(d, typed) else {
        let first = typed.split('.').next().unwrap_or("");
        out.error(format!("the server doesn't have a resource type \"{first}\""));
        return;
    };
    let (mut group, mut version) = (r.group.clone(), r.version.clone());
    if let Some(gv) = &cmd.api_version {
        (group, version) = match gv.split_once('/') {
            Some((g, v)) => (g.to_string(), v.to_string()),
            None => (String::new(), gv.clone()),
        };
    }
    let gvr = format!("{group}/{version}, Resource={}", r.resource);
    let index = send(s, "GET", "/openapi/v3", None, None, "application/json");
    let key = if group.is_empty() { format!("api/{version}") } else { format!("apis/{group}/{version}") };
    let Some(url) = body_json(&index.response)["paths"][&key]["serverRelativeURL"].as_str().map(str::to_string) else {
        out.error(format!("error: couldn't find resource for \"{gvr}\""));
        return;
    };
    let answer = send(s, "GET", &url, None, None, "application/json");
    let mut doc = body_json(&answer.response);
    if !(200..300).contains(&answer.response.status) || !doc.is_object() {
        out.error(format!(
            "error: failed to fetch openapi schema for {key}: the server answered {}",
            answer.response.status
        ));
        return;
    }
    DOCS.with(|docs| {
        if let Some(docs) = docs.borrow().as_ref() {
            add_descriptions(&mut doc, docs);
        }
    });
    match render(&doc, &group, &version, &r.resource, &fields, cmd.recursive) {
        Ok(text) => out.text.push_str(&text),
        Err((printed, e)) => {
            out.text.push_str(&printed);
            out.error(e);
        }
    }
}

/// The resource and the field path of `kind.field.field`, as kubectl splits
/// them: a resource named with its group (`deployments.apps.spec`) takes
/// the group as part of the name; otherwise the first word is the resource
/// (the core group's first).
fn split_request<'d>(d: &'d Discovery, typed: &str) -> Option<(&'d ApiResource, Vec<String>)> {
    let found = d.named(&typed.split('.').next().unwrap_or("").to_ascii_lowercase());
    for r in &found {
        let qualified = if r.group.is_empty() { r.resource.clone() } else { format!("{}.{}", r.resource, r.group) };
        if let Some(rest) = typed.strip_prefix(&qualified) {
            return Some((r, rest.split('.').filter(|f| !f.is_empty()).map(str::to_string).collect()));
        }
    }
    let r = found.first()?;
    Some((r, typed.split('.').skip(1).filter(|f| !f.is_empty()).map(str::to_string).collect()))
}

/// Puts the descriptions of `docs` (definitions by name, as
/// `tools/gen-schemas.py` writes them) back into a v3 document's schemas:
/// a field that was a bare `$ref` becomes the `allOf` form the server
/// writes for a `$ref` with siblings. A kind the definitions do not know
/// (a custom resource's) carries its own descriptions; its `apiVersion`,
/// `kind` and `metadata` are described as every kind's are.
fn add_descriptions(doc: &mut Value, docs: &Value) {
    let Some(schemas) = doc.pointer_mut("/components/schemas").and_then(Value::as_object_mut) else { return };
    let common = &docs["definitions"]["io.k8s.api.core.v1.ConfigMap"]["properties"];
    for (name, schema) in schemas.iter_mut() {
        if let Some(source) = docs["definitions"].get(name) {
            merge(schema, source);
        } else if schema.get("x-kubernetes-group-version-kind").is_some() {
            if let Some(Value::Object(props)) = schema.get_mut("properties") {
                for field in ["apiVersion", "kind", "metadata"] {
                    if let (Some(v), Some(source)) = (props.get_mut(field), common.get(field)) {
                        merge(v, source);
                    }
                }
            }
        }
    }
}

fn merge(node: &mut Value, source: &Value) {
    let Value::Object(m) = node else { return };
    if let Some(desc) = source.get("description").filter(|d| d.is_string()) {
        if let Some(Value::String(r)) = m.remove("$ref") {
            m.insert("allOf".into(), json!([{"$ref": r}]));
            m.entry("default").or_insert(json!({}));
        }
        m.entry("description").or_insert(desc.clone());
    }
    if let (Some(Value::Object(props)), Some(Value::Object(src))) = (m.get_mut("properties"), source.get("properties"))
    {
        for (k, v) in props.iter_mut() {
            if let Some(sv) = src.get(k) {
                merge(v, sv);
            }
        }
    }
    for key in ["items", "additionalProperties"] {
        if let (Some(v), Some(sv)) = (m.get_mut(key), source.get(key)) {
            merge(v, sv);
        }
    }
}

/// The text of kubectl's `plaintext` template for a resource of a v3
/// document, or what it printed before it failed and the error.
fn render(
    doc: &Value,
    group: &str,
    version: &str,
    resource: &str,
    fields: &[String],
    recursive: bool,
) -> Result<String, (String, String)> {
    let prefix = if group.is_empty() { "/api".to_string() } else { format!("/apis/{group}") };
    let searched = [
        format!("{prefix}/{version}/{resource}"),
        format!("{prefix}/{version}/{resource}/{{name}}"),
        format!("{prefix}/{version}/namespaces/{{namespace}}/{resource}"),
        format!("{prefix}/{version}/namespaces/{{namespace}}/{resource}/{{name}}"),
    ];
    let gvk = searched
        .iter()
        .filter_map(|p| doc["paths"].get(p))
        .flat_map(|p| ["get", "post", "put", "patch", "delete"].map(|m| &p[m]["x-kubernetes-group-version-kind"]))
        .find(|g| truthy(g));
    let Some(gvk) = gvk else {
        return Err((
            String::new(),
            format!("error: GVR ({group}/{version}, Resource={resource}) not found in OpenAPI schema"),
        ));
    };
    let mut text = String::new();
    if truthy(&gvk["group"]) {
        text += &format!("GROUP:      {}\n", plain(&gvk["group"]));
    }
    text += &format!("KIND:       {}\n", plain(&gvk["kind"]));
    text += &format!("VERSION:    {}\n\n", plain(&gvk["version"]));
    let x = Explainer { doc, recursive };
    let schema = doc["components"]["schemas"]
        .as_object()
        .into_iter()
        .flat_map(sorted)
        .map(|(_, s)| s)
        .find(|s| s["x-kubernetes-group-version-kind"].as_array().is_some_and(|l| l.contains(gvk)));
    let Some(schema) = schema else {
        return Err((
            text,
            format!(
                "error: GVK map[group:{} kind:{} version:{}] not found in OpenAPI schema",
                plain(&gvk["group"]),
                plain(&gvk["kind"]),
                plain(&gvk["version"])
            ),
        ));
    };
    let body = x.output(schema, fields, &BTreeSet::new());
    if body.is_empty() {
        let last = fields.last().map(String::as_str).unwrap_or("");
        return Err((text, format!("error: field \"{last}\" does not exist")));
    }
    text += &body;
    text.push('\n');
    Ok(text)
}

/// A map's entries in key order (Go templates range over maps sorted).
fn sorted(m: &Map<String, Value>) -> Vec<(&String, &Value)> {
    let mut v: Vec<(&String, &Value)> = m.iter().collect();
    v.order_by(|a, b| a.0.cmp(b.0));
    v
}

/// Whether a Go template treats a value as true: a non-empty map, list or
/// string, a non-zero number, `true`.
fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
    }
}

/// A value as a Go template prints it (strings without quotes).
fn plain(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => "<no value>".into(),
        other => other.to_string(),
    }
}

/// A schema's map-valued `additionalProperties` (not `true`/`false`).
fn additional(s: &Value) -> Option<&Value> {
    s.get("additionalProperties").filter(|a| a.is_object() && truthy(a))
}

fn items(s: &Value) -> Option<&Value> {
    s.get("items").filter(|i| truthy(i))
}

fn all_of(s: &Value) -> &[Value] {
    s.get("allOf").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[])
}

struct Explainer<'d> {
    doc: &'d Value,
    recursive: bool,
}

impl<'d> Explainer<'d> {
    /// A `#/…` reference's target, when it is a non-empty map.
    fn resolve(&self, r: &str) -> Option<&'d Value> {
        let fragment = r.strip_prefix('#')?;
        let mut cur = self.doc;
        for k in fragment.split('/').filter(|k| !k.is_empty()) {
            cur = cur.get(k).filter(|v| v.is_object())?;
        }
        Some(cur).filter(|v| truthy(v))
    }

    fn ref_of(s: &Value) -> &str {
        s.get("$ref").and_then(Value::as_str).unwrap_or("")
    }

    /// The node with its own `$ref` followed.
    fn resolved<'s>(&self, s: &'s Value) -> &'s Value
    where
        'd: 's,
    {
        self.resolve(Self::ref_of(s)).unwrap_or(s)
    }

    /// Follows the field path; at its end, the description and the fields.
    fn output(&self, schema: &Value, path: &[String], history: &BTreeSet<String>) -> String {
        let r = Self::ref_of(schema);
        let mut next = history.clone();
        next.insert(r.to_string());
        let resolved = self.resolved(schema);
        let Some((first, rest)) = path.split_first() else {
            let desc = self.description(resolved);
            let desc = if desc.is_empty() { "<empty>".to_string() } else { desc };
            let mut out = format!("DESCRIPTION:\n{}\n", indent(4, &wrap(&desc, 76)));
            let fields = self.field_list(resolved, 1, &BTreeSet::new());
            if !fields.is_empty() {
                out += "FIELDS:\n";
                out += &fields;
            }
            return out;
        };
        if !r.is_empty() && history.contains(r) {
            return String::new();
        }
        if let Some(sub) =
            resolved.get("properties").filter(|p| truthy(p)).and_then(|p| p.get(first)).filter(|s| truthy(s))
        {
            let mut out = String::new();
            if rest.is_empty() {
                out += &format!("FIELD: {first} <{}>\n", self.type_guess(sub));
                out += &enum_long(sub);
                out += "\n\n";
            }
            out += &self.output(sub, rest, &BTreeSet::new());
            return out;
        }
        if let Some(i) = items(resolved) {
            return self.output(i, path, &next);
        }
        if let Some(a) = additional(resolved) {
            return self.output(a, path, &next);
        }
        all_of(resolved).iter().map(|s| self.output(s, path, &next)).find(|o| !o.is_empty()).unwrap_or_default()
    }

    /// The description of a node and of what it is made of (`allOf`, the
    /// items of a list, the values of a map), a line each.
    fn description(&self, schema: &Value) -> String {
        let node = self.resolved(schema);
        let mut out = String::new();
        if let Some(d) = node.get("description").filter(|d| truthy(d)) {
            out += &plain(d);
            out.push('\n');
        }
        for s in all_of(node) {
            out += &self.description(s);
        }
        if let Some(i) = items(node) {
            out += &self.description(i);
        }
        if let Some(a) = additional(node) {
            out += &self.description(a);
        }
        out
    }

    /// The fields of a node (through `allOf`, list items and map values),
    /// with their descriptions, or under `--recursive` as a tree.
    fn field_list(&self, schema: &Value, level: usize, history: &BTreeSet<String>) -> String {
        let r = Self::ref_of(schema);
        if !r.is_empty() && history.contains(r) {
            return String::new();
        }
        let mut next = history.clone();
        next.insert(r.to_string());
        let resolved = self.resolved(schema);
        let mut out = String::new();
        if let Some(props) = resolved.get("properties").and_then(Value::as_object) {
            for (name, v) in sorted(props) {
                out += &self.field_detail(resolved, name, level);
                if self.recursive {
                    out += &self.field_list(v, level + 1, &next);
                }
            }
        }
        for s in all_of(resolved) {
            out += &self.field_list(s, level, &next);
        }
        if let Some(i) = items(resolved) {
            out += &self.field_list(i, level, &next);
        }
        if let Some(a) = additional(resolved) {
            out += &self.field_list(a, level, &next);
        }
        out
    }

    /// One field: `name<TAB><type>`, `-required-`, its enum, and (unless
    /// recursive) its description.
    fn field_detail(&self, parent: &Value, name: &str, level: usize) -> String {
        let pad = level * 2;
        let field = &parent["properties"][name];
        let mut out = format!("{}{name}\t<{}>", " ".repeat(pad), self.type_guess(field));
        if parent["required"].as_array().is_some_and(|r| r.iter().any(|x| x == name)) {
            out += " -required-";
        }
        out += &enum_short(field, pad);
        out.push('\n');
        if !self.recursive {
            let desc = field.get("description").filter(|d| truthy(d)).map(plain);
            let desc = desc.unwrap_or_else(|| "<no description>".into());
            out += &indent(pad + 2, &wrap(&desc, 78 - pad));
            out += "\n\n";
        }
        out
    }

    /// The type kubectl shows: `string`, `[]Container`, `map[string]string`,
    /// a referenced object's short name, or `Object`.
    fn type_guess(&self, s: &Value) -> String {
        if let Some(i) = items(s) {
            return format!("[]{}", self.type_guess(i));
        }
        if let Some(a) = additional(s) {
            return format!("map[string]{}", self.type_guess(a));
        }
        let all = all_of(s);
        if all.len() == 1 && !truthy(&s["properties"]) {
            return self.type_guess(&all[0]);
        }
        let r = Self::ref_of(s);
        if !r.is_empty() {
            let target = self.resolve(r);
            return match target.map(|t| &t["type"]).filter(|t| truthy(t)) {
                Some(t) if t != "object" => plain(t),
                _ => {
                    let name = r.rsplit('/').next().unwrap_or("");
                    let short = name.rsplit('.').next().unwrap_or("");
                    if short.is_empty() {
                        "Object".into()
                    } else {
                        short.to_string()
                    }
                }
            };
        }
        match s.get("type").filter(|t| truthy(t)) {
            Some(t) if t == "object" => "Object".into(),
            Some(t) => plain(t),
            None => "Object".into(),
        }
    }
}

/// A schema's enum values, when it has some.
fn enum_of(s: &Value) -> Option<&Vec<Value>> {
    s.get("enum").and_then(Value::as_array).filter(|e| !e.is_empty())
}

/// An enum element as the template prints it (`""` for the empty string).
fn enum_item(v: &Value) -> String {
    match v {
        Value::String(s) if s.is_empty() => "\"\"".into(),
        other => plain(other),
    }
}

/// The enum under a field's line: `enum: A, B, C, D, ....` (four at most).
fn enum_short(s: &Value, pad: usize) -> String {
    let Some(values) = enum_of(s) else { return String::new() };
    let mut out = format!("\n{}enum: ", " ".repeat(pad));
    for (i, v) in values.iter().enumerate() {
        if i >= 4 {
            out += ", ....";
            break;
        }
        if i > 0 {
            out += ", ";
        }
        out += &enum_item(v);
    }
    out
}

/// The enum of the field asked for: `ENUM:` and a value per line.
fn enum_long(s: &Value) -> String {
    let Some(values) = enum_of(s) else { return String::new() };
    let mut out = "ENUM:".to_string();
    for v in values {
        out += "\n    ";
        out += &enum_item(v);
    }
    out
}

/// Every line of `s` after the first newline indented too, as the
/// template's `indent` does (so a trailing newline leaves the padding).
fn indent(n: usize, s: &str) -> String {
    let pad = " ".repeat(n);
    format!("{pad}{}", s.replace('\n', &format!("\n{pad}")))
}

/// Word wrapping as kubectl's writer does it (go-wordwrap): lines break at
/// white space once a word would pass `limit` characters; a word longer
/// than the limit is left whole; newlines in the text are kept.
fn wrap(s: &str, limit: usize) -> String {
    let mut out = String::with_capacity(s.len() + s.len() / limit.max(1));
    let (mut line, mut word, mut space) = (0usize, String::new(), String::new());
    let (mut word_len, mut space_len) = (0usize, 0usize);
    for c in s.chars() {
        if c == '\n' {
            end_line(&mut out, line + space_len <= limit, &space, &word);
            word.clear();
            word_len = 0;
            space.clear();
            space_len = 0;
            out.push('\n');
            line = 0;
        } else if c.is_whitespace() && c != '\u{a0}' {
            if space.is_empty() || !word.is_empty() {
                line += space_len + word_len;
                out += &space;
                out += &word;
                space.clear();
                word.clear();
                space_len = 0;
                word_len = 0;
            }
            space.push(c);
            space_len += 1;
        } else {
            word.push(c);
            word_len += 1;
            if line + space_len + word_len > limit && word_len < limit {
                out.push('\n');
                line = 0;
                space.clear();
                space_len = 0;
            }
        }
    }
    end_line(&mut out, line + space_len <= limit, &space, &word);
    out
}

/// The end of a line (a newline, or the end of the text): the pending
/// word with the space before it; with no word, the space only if it fits.
fn end_line(out: &mut String, space_fits: bool, space: &str, word: &str) {
    if !word.is_empty() || space_fits {
        out.push_str(space);
    }
    out.push_str(word);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kubectl::run;

    /// What kubectl 1.33 printed (stdout, then stderr) for these commands
    /// against `kubesim serve`, whose schemas carry their descriptions.
    const GOLDEN: &[&str] = &[
        include_str!("testdata/explain/crd_explain_crontabs.txt"),
        include_str!("testdata/explain/crd_explain_crontabs_spec_mode.txt"),
        include_str!("testdata/explain/crd_explain_ct_spec.txt"),
        include_str!("testdata/explain/explain_cm.txt"),
        include_str!("testdata/explain/explain_deploy_spec_strategy_recursive.txt"),
        include_str!("testdata/explain/explain_deployments_apps_spec_paused.txt"),
        include_str!("testdata/explain/explain_flurb.txt"),
        include_str!("testdata/explain/explain_jobs_spec_template_spec_restartPolicy.txt"),
        include_str!("testdata/explain/explain_pods.txt"),
        include_str!("testdata/explain/explain_pods_api_version_v2.txt"),
        include_str!("testdata/explain/explain_pods_metadata_labels.txt"),
        include_str!("testdata/explain/explain_pods_spec_containers_ports.txt"),
        include_str!("testdata/explain/explain_pods_spec_nope_x.txt"),
        include_str!("testdata/explain/explain_svc_spec_ports_recursive.txt"),
    ];

    fn docs() -> Value {
        serde_json::from_str(include_str!("../../../src/schema/k8s-v1.33.json")).expect("the schemas")
    }

    #[test]
    fn explain_prints_what_kubectl_prints_from_the_same_openapi_documents() {
        set_docs(Some(docs()));
        let mut s = Session::new(7);
        let crd = run(&mut s, "apply -f -", include_str!("testdata/explain/crontab-crd.yaml"));
        assert!(!crd.failed, "{}", crd.text);
        for golden in GOLDEN {
            let (command, want) = golden.split_once('\n').expect("a command line");
            let line = command.trim_start_matches("$ kubectl ");
            let from = s.log.len();
            let out = run(&mut s, line, "");
            assert_eq!(out.text, want, "kubectl {line}");
            assert_eq!(out.failed, want.contains("error: ") || want.contains("doesn't have"), "kubectl {line}");
            assert_eq!(out.differs, None);
            // Discovery, then the OpenAPI v3 index and the group-version
            // (unless the resource is unknown).
            let paths: Vec<&str> = s.log[from..].iter().map(|e| e.request.path.as_str()).collect();
            if !want.contains("doesn't have") {
                assert_eq!(paths[2], "/openapi/v3", "kubectl {line}");
            }
        }
    }

    /// What the page's core serves: the schemas without descriptions (a
    /// `$ref` with no siblings left stays a bare `$ref`).
    fn strip(v: &mut Value) {
        match v {
            Value::Object(m) => {
                m.remove("description");
                let bare = m.len() <= 2
                    && m.get("default").is_none_or(|d| d == &json!({}))
                    && m.get("allOf")
                        .and_then(Value::as_array)
                        .is_some_and(|a| a.len() == 1 && a[0].get("$ref").is_some());
                if bare {
                    let r = m["allOf"][0]["$ref"].clone();
                    m.clear();
                    m.insert("$ref".into(), r);
                }
                m.values_mut().for_each(strip);
            }
            Value::Array(a) => a.iter_mut().for_each(strip),
            _ => {}
        }
    }

    #[test]
    fn the_descriptions_loaded_later_restore_the_served_document() {
        let mut s = Session::new(7);
        assert!(!run(&mut s, "apply -f -", include_str!("testdata/explain/crontab-crd.yaml")).failed);
        for gv in ["api/v1", "apis/apps/v1", "apis/batch/v1", "apis/stable.example.com/v1"] {
            let e = s.request(
                crate::session::Source::Kubectl,
                kubesim::server::Request::new("GET", &format!("/openapi/v3/{gv}")),
            );
            let full = body_json(&e.response);
            let mut page = full.clone();
            for (name, schema) in page["components"]["schemas"].as_object_mut().expect("schemas").iter_mut() {
                if name.ends_with(".CronTab") {
                    // The custom resource's own schema keeps the descriptions
                    // its definition gave; the page's core adds apiVersion,
                    // kind and metadata without theirs.
                    for field in ["apiVersion", "kind", "metadata"] {
                        strip(&mut schema["properties"][field]);
                    }
                } else {
                    strip(schema);
                }
            }
            let without = render(&page, "apps", "v1", "deployments", &["spec".into(), "strategy".into()], false);
            if gv == "apis/apps/v1" {
                let text = without.expect("rendered");
                assert!(text.contains("FIELD: strategy <DeploymentStrategy>\n"), "{text}");
                assert!(text.contains("  rollingUpdate\t<RollingUpdateDeployment>\n    <no description>\n"), "{text}");
            }
            add_descriptions(&mut page, &docs());
            assert!(
                page["components"] == full["components"],
                "{gv}: the descriptions put back differ from the served ones"
            );
        }
    }

    #[test]
    fn without_the_descriptions_the_page_says_why() {
        let mut s = Session::new(7);
        let out = run(&mut s, "explain deployments.spec.strategy", "");
        assert!(out.text.starts_with("GROUP:      apps\nKIND:       Deployment\n"), "{}", out.text);
        assert_eq!(out.differs, Some(crate::kubectl::differs::NO_DOCS));
    }

    #[test]
    fn explain_refuses_what_kubectl_refuses() {
        let mut s = Session::new(7);
        for (line, want) in [
            ("explain", "error: You must specify the type of resource to explain."),
            ("explain pods svc", "error: We accept only this format: explain RESOURCE"),
            ("explain pods -o json", "error: unknown shorthand flag: 'o' in -o"),
            ("explain pods --output=json", "error: unrecognized format: json"),
        ] {
            let out = run(&mut s, line, "");
            assert!(out.failed && out.text.starts_with(want), "{line}: {}", out.text);
        }
    }

    #[test]
    fn wrapping_breaks_at_spaces_and_keeps_long_words_whole() {
        assert_eq!(wrap("aaa bbb ccc", 7), "aaa bbb\nccc");
        assert_eq!(wrap("a verylongword b", 5), "a\nverylongword\nb");
        assert_eq!(wrap("one\ntwo three", 8), "one\ntwo\nthree");
        assert_eq!(indent(4, "x\ny\n"), "    x\n    y\n    ");
    }
}
