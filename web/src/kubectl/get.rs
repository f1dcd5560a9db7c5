//! `get`: lists (with `--chunk-size` paging), single objects, `-w`
//! watches handed to a lane, and every `-o` form.

use super::*;

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

pub(super) fn get(s: &mut Session, d: &Discovery, cmd: &Command, out: &mut Outcome) {
    let Some(types) = targets(d, cmd, out) else { return };
    let named = types.iter().any(|(_, names)| !names.is_empty());
    if cmd.watch && (types.len() != 1 || types[0].1.len() > 1) {
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
    for (r, names) in &types {
        let mut items: Vec<Value> = Vec::new();
        let mut list_rv = String::new();
        // A server-side Table's column definitions, when the server sent one.
        let mut defs: Option<Value> = None;
        if names.is_empty() {
            let mut cont = String::new();
            loop {
                // In the order Go's url.Values encodes them (by name).
                let mut pairs = vec![
                    ("continue".to_string(), cont.clone()),
                    ("fieldSelector".into(), cmd.field_selector.clone().unwrap_or_default()),
                    ("labelSelector".into(), cmd.selector.clone().unwrap_or_default()),
                ];
                if cmd.chunk_size != 0 {
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
            for name in names {
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
            // By name, as Go encodes them.
            let mut pairs = vec![("fieldSelector".to_string(), cmd.field_selector.clone().unwrap_or_default())];
            if let Some(name) = names.first() {
                pairs.push(("fieldSelector".into(), format!("metadata.name={name}")));
            }
            pairs.push(("labelSelector".into(), cmd.selector.clone().unwrap_or_default()));
            pairs.push(("resourceVersion".into(), list_rv.clone()));
            out.watch = Some((r.collection(ns.as_deref()), build_query(&pairs)));
        }
        match cmd.output {
            Output::Table | Output::Wide => {
                if items.is_empty() {
                    // Named objects that were not found said so already.
                    if !several && names.is_empty() {
                        match &ns {
                            Some(n) if r.namespaced => out.line(format!("No resources found in {n} namespace.")),
                            _ => out.line("No resources found"),
                        }
                    }
                    continue;
                }
                let with_ns = ns.is_none() && r.namespaced;
                let shape = Shape {
                    wide: cmd.output == Output::Wide,
                    with_ns,
                    prefix: several.then_some(r),
                    no_headers: cmd.no_headers,
                    label_columns: &cmd.label_columns,
                    show_labels: cmd.show_labels,
                };
                let text = match &defs {
                    Some(d) => server_table(d, &items, shape),
                    None => table(s.server.now().0, r, &items, shape),
                };
                out.text.push_str(&text);
                // (kubectl's blank line between tables comes with the next
                // header.)
                if several && !cmd.no_headers {
                    out.line("");
                }
            }
            Output::Name => {
                for it in &items {
                    out.line(name_ref(r, it.pointer("/metadata/name").and_then(Value::as_str).unwrap_or("")));
                }
            }
            Output::Yaml | Output::Json | Output::JsonPath(_) => printed.extend(items.into_iter().map(|mut i| {
                if !cmd.show_managed_fields {
                    if let Some(m) = i.get_mut("metadata").and_then(Value::as_object_mut) {
                        m.shift_remove("managedFields");
                    }
                }
                i
            })),
        }
    }
    // (Named objects none of which was found: only their errors.)
    if matches!(cmd.output, Output::Yaml | Output::Json | Output::JsonPath(_)) && (!named || !printed.is_empty()) {
        let doc = if printed.len() == 1 && named {
            printed.remove(0)
        } else {
            json!({"apiVersion": "v1", "items": printed, "kind": "List", "metadata": {"resourceVersion": ""}})
        };
        // (YAML orders keys as go-yaml does; JSON by bytes, as Go's encoder.)
        match &cmd.output {
            Output::Yaml => out.text.push_str(&to_yaml(&doc)),
            Output::JsonPath(template) => match super::jsonpath::print(template, &doc) {
                Ok(text) => out.text.push_str(&text),
                Err(e) => out.error(e),
            },
            _ => out.text.push_str(&(to_pretty_json(&keys_sorted(&doc)) + "\n")),
        }
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
