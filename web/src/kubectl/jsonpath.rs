//! `-o jsonpath=TEMPLATE`, as kubectl prints it: text outside braces as
//! it is, `{.path}` by client-go's JSONPath (the core's evaluator, which
//! CRD printer columns use: fields, indexes, `[*]`, `[?(@.f=="v")]`),
//! several results joined by a space, strings bare and objects or lists
//! as JSON, `{"\n"}` literals, `{range .items[*]}…{end}` over each item,
//! and missing keys printing nothing (kubectl get allows them).

use serde_json::Value;

use crate::format::keys_sorted;

#[derive(Debug, PartialEq)]
enum Node {
    Text(String),
    Path(String),
    Range(String, Vec<Node>),
}

/// The template's nodes, or kubectl's error for it.
fn parse(template: &str) -> Result<Vec<Node>, String> {
    // Frames of open ranges: (path, nodes so far).
    let mut stack: Vec<(String, Vec<Node>)> = vec![(String::new(), Vec::new())];
    let mut rest = template;
    while !rest.is_empty() {
        let Some(open) = rest.find('{') else {
            push(&mut stack, Node::Text(rest.to_string()));
            break;
        };
        if open > 0 {
            push(&mut stack, Node::Text(rest[..open].to_string()));
        }
        let close = closing(rest, open).ok_or_else(|| "unclosed action".to_string())?;
        let inner = rest[open + 1..close].trim();
        rest = &rest[close + 1..];
        if let Some(literal) = inner.strip_prefix('"').and_then(|s| s.strip_suffix('"')) {
            push(&mut stack, Node::Text(unescape(literal)));
        } else if let Some(path) = inner.strip_prefix("range ") {
            stack.push((path.trim().to_string(), Vec::new()));
        } else if inner == "end" {
            if stack.len() < 2 {
                return Err("not in range, nothing to end".into());
            }
            let (path, nodes) = stack.pop().unwrap_or_default();
            push(&mut stack, Node::Range(path, nodes));
        } else {
            push(&mut stack, Node::Path(inner.to_string()));
        }
    }
    if stack.len() > 1 {
        return Err("unclosed range".into());
    }
    Ok(stack.pop().map(|(_, n)| n).unwrap_or_default())
}

fn push(stack: &mut [(String, Vec<Node>)], node: Node) {
    if let Some((_, nodes)) = stack.last_mut() {
        nodes.push(node);
    }
}

/// The `}` that closes the `{` at `open` (quoted strings skipped).
fn closing(s: &str, open: usize) -> Option<usize> {
    let mut quoted = false;
    let mut escaped = false;
    for (i, c) in s[open + 1..].char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' if quoted => escaped = true,
            '"' => quoted = !quoted,
            '}' if !quoted => return Some(open + 1 + i),
            _ => {}
        }
    }
    None
}

fn unescape(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}

/// One result as kubectl writes it: strings bare, the rest as JSON.
fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Object(_) | Value::Array(_) => serde_json::to_string(&keys_sorted(v)).unwrap_or_default(),
        other => other.to_string(),
    }
}

fn eval(nodes: &[Node], root: &Value, out: &mut String) -> Result<(), String> {
    for node in nodes {
        match node {
            Node::Text(t) => out.push_str(t),
            Node::Path(p) => {
                let found = select(root, p)?;
                out.push_str(&found.iter().map(|v| text(v)).collect::<Vec<_>>().join(" "));
            }
            Node::Range(p, body) => {
                for item in select(root, p)? {
                    // (`[*]` of a list yields its items; a list itself, its elements.)
                    match item {
                        Value::Array(items) if !p.ends_with("[*]") => {
                            for i in items {
                                eval(body, i, out)?;
                            }
                        }
                        other => eval(body, other, out)?,
                    }
                }
            }
        }
    }
    Ok(())
}

fn select<'a>(root: &'a Value, path: &str) -> Result<Vec<&'a Value>, String> {
    let p = path.trim();
    if p == "@" || p == "$" || p.is_empty() {
        return Ok(vec![root]);
    }
    let p = p.strip_prefix('@').unwrap_or(p);
    kubesim::api::jsonpath::select(root, p)
        .ok_or_else(|| format!("unrecognized character in action: {}", p.chars().next().unwrap_or(' ')))
}

/// What kubectl prints for `-o jsonpath=TEMPLATE` of `doc`, or its error.
pub fn print(template: &str, doc: &Value) -> Result<String, String> {
    let nodes = parse(template).map_err(|e| format!("error: error parsing jsonpath {template}, {e}"))?;
    let mut out = String::new();
    eval(&nodes, doc, &mut out).map_err(|e| format!("error: error executing jsonpath {template:?}: {e}"))?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pods() -> Value {
        json!({"kind": "List", "items": [
            {"metadata": {"name": "a", "labels": {"run": "a", "app": "x"}}, "spec": {"containers": [{"image": "nginx"}, {"image": "busybox"}]}, "status": {"phase": "Running"}},
            {"metadata": {"name": "b"}, "spec": {"containers": [{"image": "redis"}]}, "status": {"phase": "Pending"}}]})
    }

    #[test]
    fn paths_print_their_results_joined_by_spaces() {
        assert_eq!(print("{.items[*].metadata.name}", &pods()).unwrap(), "a b");
        assert_eq!(print("{.items[0].spec.containers[*].image}", &pods()).unwrap(), "nginx busybox");
        assert_eq!(print("{.items[0].metadata.labels}", &pods()).unwrap(), r#"{"app":"x","run":"a"}"#);
        assert_eq!(print("{.items[?(@.status.phase==\"Pending\")].metadata.name}", &pods()).unwrap(), "b");
        assert_eq!(print("name: {.items[1].metadata.name}!", &pods()).unwrap(), "name: b!");
        assert_eq!(print("{.items[1].metadata.labels.app}", &pods()).unwrap(), "", "missing keys print nothing");
    }

    #[test]
    fn ranges_and_literals() {
        let t = r#"{range .items[*]}{.metadata.name}{"\t"}{.status.phase}{"\n"}{end}"#;
        assert_eq!(print(t, &pods()).unwrap(), "a\tRunning\nb\tPending\n");
        let nested = r#"{range .items[*]}{.metadata.name}:{range .spec.containers[*]} {.image}{end}{"\n"}{end}"#;
        assert_eq!(print(nested, &pods()).unwrap(), "a: nginx busybox\nb: redis\n");
    }

    #[test]
    fn broken_templates_are_refused() {
        assert!(print("{.items", &pods()).unwrap_err().contains("unclosed action"));
        assert!(print("{range .items[*]}{.metadata.name}", &pods()).unwrap_err().contains("unclosed range"));
        assert!(print("{end}", &pods()).unwrap_err().contains("not in range"));
    }
}
