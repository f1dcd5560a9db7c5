//! `get`: lists (with `--chunk-size` paging), single objects, `-w`
//! watches handed to a lane, and every `-o` form.

use super::*;
use kubesim::sort::Order;

/// The types asked for, each with the names asked for (none: list it):
/// `TYPE[,TYPE…] [NAME…]`, or `TYPE/NAME…` (consecutive names of one type
/// in one table, as kubectl prints them).
fn targets(d: &Discovery, cmd: &Command, out: &mut Outcome) -> Option<Vec<(ApiResource, Vec<String>)>> {
    let args = || cmd.types.iter().chain(&cmd.names);
    if args().any(|a| a.contains('/')) {
        let mut groups: Vec<(ApiResource, Vec<String>)> = Vec::new();
        for arg in args() {
            let Some((t, name)) = arg.split_once('/') else {
                out.error("error: there is no need to specify a resource type as a separate argument when passing arguments in resource/name form (e.g. 'kubectl get resource/<resource_name>' instead of 'kubectl get resource resource/<resource_name>'");
                return None;
            };
            let r = resolve(d, t, out)?;
            match groups.last_mut() {
                Some((last, names)) if last.group == r.group && last.resource == r.resource => names.push(name.into()),
                _ => groups.push((r, vec![name.into()])),
            }
        }
        return Some(groups);
    }
    let mut groups = Vec::new();
    for t in &cmd.types {
        if t == "all" {
            groups.extend(d.category("all").into_iter().map(|r| (r.clone(), cmd.names.clone())));
            continue;
        }
        groups.push((resolve(d, t, out)?, cmd.names.clone()));
    }
    Some(groups)
}

/// The list at `key`, taken out of `v` (none: empty).
fn take_array(v: &mut Value, key: &str) -> Vec<Value> {
    match v.get_mut(key).map(Value::take) {
        Some(Value::Array(items)) => items,
        _ => Vec::new(),
    }
}

/// One answer `get` printed from: a list of one type (all its pages), or
/// one named object, with the server's column definitions when it sent a
/// Table.
struct Fetched<'a> {
    r: &'a ApiResource,
    defs: Option<Value>,
    /// Rows of a Table, or objects.
    items: Vec<Value>,
    /// The answer's top level (what kubectl sorts several tables by).
    answer: Value,
}

pub(super) fn get(s: &mut Session, d: &Discovery, cmd: &Command, out: &mut Outcome) {
    if let Some(raw) = &cmd.raw {
        return get_raw(s, raw, out);
    }
    let Some(types) = targets(d, cmd, out) else { return };
    let named = types.iter().any(|(_, names)| !names.is_empty());
    if cmd.watch && (types.len() != 1 || types[0].1.len() > 1) {
        out.error("error: you may only specify a single resource type");
        return;
    }
    let sort_by = cmd.sort_by.as_deref().filter(|s| !s.is_empty());
    if sort_by.is_some() && cmd.watch {
        out.line("warning: --watch requested, --sort-by will be ignored for watch events received");
    }
    let sorting = sort_by.filter(|_| !cmd.watch);
    let ns = namespace_of(cmd);
    let human = matches!(cmd.output, Output::Table | Output::Wide);
    let accept = if human { TABLE_ACCEPT } else { "application/json" };
    // kubectl asks for whole objects in a Table's rows when it sorts them,
    // and for everything at once (no chunks).
    let include_object = if human && sort_by.is_some() { "Object" } else { "" };
    let mut fetched: Vec<Fetched> = Vec::new();
    // Named objects that were not found: kubectl prints them last.
    let mut errors: Vec<String> = Vec::new();
    for (r, names) in &types {
        let mut list_rv = String::new();
        if names.is_empty() {
            let mut got = Fetched { r, defs: None, items: Vec::new(), answer: Value::Null };
            let mut cont = String::new();
            loop {
                // In the order Go's url.Values encodes them (by name).
                let mut pairs = vec![
                    ("continue".to_string(), cont.clone()),
                    ("fieldSelector".into(), cmd.field_selector.clone().unwrap_or_default()),
                    ("includeObject".into(), include_object.into()),
                    ("labelSelector".into(), cmd.selector.clone().unwrap_or_default()),
                ];
                if cmd.chunk_size != 0 && sorting.is_none() {
                    pairs.push(("limit".into(), cmd.chunk_size.to_string()));
                }
                let q = build_query(&pairs);
                let path = r.collection(ns.as_deref());
                let target = if q.is_empty() { path } else { format!("{path}?{q}") };
                let e = send(s, "GET", &target, None, None, accept);
                if e.response.status != 200 {
                    out.error(server_error(&e));
                    return;
                }
                let mut v = body_json(&e.response);
                list_rv = v.pointer("/metadata/resourceVersion").and_then(Value::as_str).unwrap_or("").to_string();
                for item in take_array(&mut v, "items") {
                    got.items.push(with_type(item, r));
                }
                got.items.extend(take_array(&mut v, "rows"));
                if got.defs.is_none() {
                    got.defs = v.get("columnDefinitions").filter(|d| d.is_array()).cloned();
                }
                cont = v.pointer("/metadata/continue").and_then(Value::as_str).unwrap_or("").to_string();
                got.answer = v;
                if cont.is_empty() {
                    break;
                }
            }
            fetched.push(got);
        } else {
            for name in names {
                let item = r.item(ns.as_deref().or(Some(cmd.context_namespace.as_str())), name);
                let target = if include_object.is_empty() { item } else { format!("{item}?includeObject=Object") };
                let e = send(s, "GET", &target, None, None, accept);
                if e.response.status != 200 {
                    errors.push(server_error(&e));
                    continue;
                }
                let mut v = body_json(&e.response);
                list_rv = v.pointer("/metadata/resourceVersion").and_then(Value::as_str).unwrap_or("").to_string();
                let got = if v.get("kind").and_then(Value::as_str) == Some("Table") {
                    let defs = v.get("columnDefinitions").filter(|d| d.is_array()).cloned();
                    let rows = take_array(&mut v, "rows");
                    Fetched { r, defs, items: rows, answer: v }
                } else {
                    Fetched { r, defs: None, items: vec![with_type(v, r)], answer: Value::Null }
                };
                fetched.push(got);
            }
        }
        if cmd.watch {
            // By name, as Go encodes them.
            let mut pairs = vec![("fieldSelector".to_string(), cmd.field_selector.clone().unwrap_or_default())];
            if let Some(name) = names.first() {
                pairs.push(("fieldSelector".into(), format!("metadata.name={name}")));
            }
            pairs.push(("labelSelector".into(), cmd.selector.clone().unwrap_or_default()));
            pairs.push(("resourceVersion".into(), list_rv.clone()));
            out.watch = Some((r.collection(ns.as_deref()), build_query(&pairs)));
        }
    }
    if human {
        print_tables(s, cmd, &ns, fetched, sorting, errors.is_empty(), out);
    } else {
        // One list of every item (or the one object asked for by name).
        let single = types.len() == 1 && types[0].1.len() == 1;
        let mut items: Vec<(&ApiResource, Value)> =
            fetched.into_iter().flat_map(|f| f.items.into_iter().map(move |i| (f.r, i))).collect();
        if let Some(by) = sorting.filter(|_| !single) {
            if let Err(e) = sort_by::sort_objects(&mut items, by, |(_, i)| i) {
                failed_sort(s, e, sort_by::OBJECTS_LINE, out);
                return;
            }
        }
        print_objects(cmd, named, items, out);
    }
    for e in errors {
        out.error(e);
    }
    if cmd.watch {
        out.line("(watching: the events stream into a new watch lane)");
    }
}

/// A sort that failed, as kubectl reports it.
fn failed_sort(s: &Session, e: sort_by::Failed, line: u32, out: &mut Outcome) {
    match e {
        sort_by::Failed::Error(e) => out.error(e),
        sort_by::Failed::Unsortable(m) => out.error(sort_by::fatal(s.server.now(), line, &m)),
        sort_by::Failed::Unprinted => {}
    }
}

/// Tables, as kubectl prints them: consecutive answers of one type in one
/// table, a blank line between types; "No resources found" when nothing
/// was printed at all.
fn print_tables(
    s: &Session,
    cmd: &Command,
    ns: &Option<String>,
    mut fetched: Vec<Fetched>,
    sorting: Option<&str>,
    all_found: bool,
    out: &mut Outcome,
) {
    let several_types = fetched.windows(2).any(|w| w[0].r != w[1].r);
    let namespaced = ns.is_some() && fetched.iter().all(|f| f.r.namespaced);
    if let Some(by) = sorting {
        // Several answers are sorted among themselves first, as objects.
        if fetched.len() > 1 {
            if let Err(e) = sort_by::sort_objects(&mut fetched, by, |f| &f.answer) {
                failed_sort(s, e, sort_by::OBJECTS_LINE, out);
                return;
            }
        }
    }
    let mut written = false;
    let mut i = 0;
    while i < fetched.len() {
        let r = fetched[i].r;
        let defs = fetched[i].defs.clone();
        let mut rows = Vec::new();
        while i < fetched.len() && fetched[i].r == r {
            let mut items = std::mem::take(&mut fetched[i].items);
            i += 1;
            if let Some(by) = sorting {
                match sort_by::sort_rows(&mut items, by) {
                    Ok(()) => {}
                    // (kubectl drops this printer's error: nothing printed.)
                    Err(sort_by::Failed::Unprinted) => continue,
                    Err(e) => {
                        // The rows of this type were not written yet.
                        failed_sort(s, e, sort_by::ROWS_LINE, out);
                        return;
                    }
                }
            }
            rows.extend(items);
        }
        if rows.is_empty() {
            continue;
        }
        if written && !cmd.no_headers {
            out.line("");
        }
        written = true;
        let shape = Shape {
            wide: cmd.output == Output::Wide,
            with_ns: ns.is_none() && r.namespaced,
            prefix: several_types.then_some(r),
            no_headers: cmd.no_headers,
            label_columns: &cmd.label_columns,
            show_labels: cmd.show_labels,
        };
        let text = match &defs {
            Some(d) => server_table(d, &rows, shape),
            None => table(s.server.now().0, r, &rows, shape),
        };
        out.text.push_str(&text);
    }
    if !written && all_found {
        match ns {
            Some(n) if namespaced => out.line(format!("No resources found in {n} namespace.")),
            _ => out.line("No resources found"),
        }
    }
}

/// `-o name|yaml|json|jsonpath`: every item of every answer.
fn print_objects(cmd: &Command, named: bool, items: Vec<(&ApiResource, Value)>, out: &mut Outcome) {
    if cmd.output == Output::Name {
        for (r, it) in &items {
            out.line(name_ref(r, it.pointer("/metadata/name").and_then(Value::as_str).unwrap_or("")));
        }
        return;
    }
    if let Output::CustomColumns(spec) = &cmd.output {
        // (Named objects none of which was found: only their errors.)
        if named && items.is_empty() {
            return;
        }
        match super::custom_columns::print(spec, items.iter().map(|(_, i)| i), cmd.no_headers) {
            Ok(text) => out.text.push_str(&text),
            Err(e) => out.error(e),
        }
        return;
    }
    let mut printed: Vec<Value> = items
        .into_iter()
        .map(|(_, mut i)| {
            // (kubectl leaves them out of JSON and YAML only: a template
            // sees them.)
            if !cmd.show_managed_fields && matches!(cmd.output, Output::Json | Output::Yaml) {
                if let Some(m) = i.get_mut("metadata").and_then(Value::as_object_mut) {
                    m.shift_remove("managedFields");
                }
            }
            i
        })
        .collect();
    // (Named objects none of which was found: only their errors.)
    if named && printed.is_empty() {
        return;
    }
    let doc = if printed.len() == 1 && named {
        printed.remove(0)
    } else {
        json!({"apiVersion": "v1", "items": printed, "kind": "List", "metadata": {"resourceVersion": ""}})
    };
    // (YAML orders keys as go-yaml does; JSON by bytes, as Go's encoder.)
    match &cmd.output {
        Output::Yaml => out.text.push_str(&to_yaml(&doc)),
        Output::GoTemplate(template) => super::gotemplate::write(template, &doc, out),
        Output::JsonPath(template) => match super::jsonpath::print(template, &doc) {
            Ok(text) => out.text.push_str(&text),
            Err(e) => out.error(e),
        },
        _ => out.text.push_str(&printed_json(&keys_sorted(&doc))),
    }
}

/// The most of a `--raw` answer the command bar shows (kubectl prints it
/// all; an OpenAPI document runs to megabytes).
const RAW_SHOWN: usize = 1 << 20;

/// Go's `url.QueryEscape`: unreserved bytes as they are, a space as `+`.
fn query_escape(s: &str) -> String {
    crate::format::encode_component(s).replace("%20", "+")
}

/// `get --raw PATH`: a GET of the path as kubectl's REST client sends it
/// (the query parsed and written again by key, as Go's `url.Values`
/// encodes it), and the answer's body as it is; a watch streams into a
/// lane.
fn get_raw(s: &mut Session, raw: &str, out: &mut Outcome) {
    if !raw.starts_with('/') {
        return out.error(format!("error: --raw must be a valid URL path: parse {raw:?}: invalid URI for request"));
    }
    let (path, query) = raw.split_once('?').unwrap_or((raw, ""));
    let mut pairs = crate::format::form_pairs(query);
    pairs.order_by_key(|(k, _)| k.clone());
    let query: Vec<String> = pairs.iter().map(|(k, v)| format!("{}={}", query_escape(k), query_escape(v))).collect();
    let target = if query.is_empty() { path.to_string() } else { format!("{path}?{}", query.join("&")) };
    let req = kubesim::server::Request::new("GET", &target)
        .with_header("Accept", "application/json, */*")
        .with_header("User-Agent", "kubectl/v1.33.0 (kubesim-web)");
    let (e, stream) = s.serve(crate::session::Source::Kubectl, req);
    if let Some(stream) = stream {
        s.adopt_watch(&e, stream);
        return out.line("(watching: the events stream into a new watch lane)");
    }
    if e.response.status >= 300 {
        return out.error(server_error(&e));
    }
    let body = String::from_utf8_lossy(&e.response.body);
    match body.char_indices().nth(RAW_SHOWN) {
        Some((at, _)) => {
            out.text.push_str(&body[..at]);
            out.line(format!("\n({} more bytes, which kubectl prints too)", body.len() - at));
        }
        None => out.text.push_str(&body),
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
