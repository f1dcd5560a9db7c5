//! The part of Kubernetes' JSONPath that a CustomResourceDefinition's
//! printer columns use (`.status.replicas`, `.spec.items[0].name`,
//! `.spec.containers[*].image`, `.status.conditions[?(@.type=="Ready")].status`,
//! optionally wrapped in `{}`), evaluated with missing keys allowed, as the
//! apiextensions table convertor evaluates it; the page's kubectl
//! evaluates each `{}` of a `-o jsonpath` template with it (so it lives
//! with the plain data, where the page may name it).
//!
//! Written here rather than taken from an RFC 9535 crate: Kubernetes'
//! dialect is client-go's (its `{}` templates, `[?()]` filters compared as
//! strings), and the page's bundle has no room for a general engine.

use serde_json::Value;

#[derive(Debug, PartialEq)]
enum Step {
    Key(String),
    Index(i64),
    All,
    /// `..` (client-go's recursive descent): every object and list under
    /// the value, itself first, a map's members in key order.
    Descend,
    /// `[?(@.a.b == "v")]` (`!=` too), or `[?(@.a)]` (present).
    Filter(Vec<String>, Option<(bool, String)>),
}

/// Parses a path; `None` when it is not one this dialect reads.
fn parse(path: &str) -> Option<Vec<Step>> {
    let p = path.trim();
    let p = p.strip_prefix('{').and_then(|p| p.strip_suffix('}')).unwrap_or(p).trim();
    let p = p.strip_prefix('$').unwrap_or(p);
    let b = p.as_bytes();
    let mut steps = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'.' if b.get(i + 1) == Some(&b'.') => {
                steps.push(Step::Descend);
                i += 1;
            }
            b'.' => {
                let start = i + 1;
                let mut end = start;
                while end < b.len() && b[end] != b'.' && b[end] != b'[' {
                    end += 1;
                }
                let key = &p[start..end];
                match key {
                    "" => return None,
                    "*" => steps.push(Step::All),
                    k => steps.push(Step::Key(k.to_string())),
                }
                i = end;
            }
            b'[' => {
                let close = bracket_end(p, i)?;
                let inner = p[i + 1..close].trim();
                steps.push(bracket(inner)?);
                i = close + 1;
            }
            _ => return None,
        }
    }
    Some(steps)
}

/// Where the bracket opened at `open` closes (quotes and parentheses
/// respected).
fn bracket_end(p: &str, open: usize) -> Option<usize> {
    let mut quote: Option<char> = None;
    for (j, c) in p[open..].char_indices().skip(1) {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, ']') => return Some(open + j),
            _ => {}
        }
    }
    None
}

fn unquote(s: &str) -> Option<&str> {
    let s = s.trim();
    s.strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .or_else(|| s.strip_prefix('\'').and_then(|s| s.strip_suffix('\'')))
}

fn bracket(inner: &str) -> Option<Step> {
    if inner == "*" {
        return Some(Step::All);
    }
    if let Some(k) = unquote(inner) {
        return Some(Step::Key(k.to_string()));
    }
    if let Some(f) = inner.strip_prefix('?') {
        let f = f.trim();
        let f = f.strip_prefix('(').and_then(|f| f.strip_suffix(')')).unwrap_or(f).trim();
        let (lhs, cmp) = match f.find("==").map(|i| (i, true)).or_else(|| f.find("!=").map(|i| (i, false))) {
            Some((at, eq)) => {
                let rhs = f[at + 2..].trim();
                let value = unquote(rhs).unwrap_or(rhs).to_string();
                (&f[..at], Some((eq, value)))
            }
            None => (f, None),
        };
        let lhs = lhs.trim().strip_prefix('@')?;
        let keys: Vec<String> = lhs.split('.').filter(|k| !k.is_empty()).map(str::to_string).collect();
        return Some(Step::Filter(keys, cmp));
    }
    inner.parse::<i64>().ok().map(Step::Index)
}

/// A scalar as client-go's filter compares it (its text).
fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// `v` and every object and list under it, in client-go's order.
fn descend<'a>(v: &'a Value, out: &mut Vec<&'a Value>) {
    match v {
        Value::Object(m) if !m.is_empty() => {
            out.push(v);
            let mut keys: Vec<&String> = m.keys().collect();
            crate::sort::Order::order(keys.as_mut_slice());
            for k in keys {
                descend(&m[k.as_str()], out);
            }
        }
        Value::Array(a) if !a.is_empty() => {
            out.push(v);
            for item in a {
                descend(item, out);
            }
        }
        _ => {}
    }
}

/// Every value the path selects, in order (none where a key is missing);
/// `None` when the path does not parse.
pub fn select<'a>(root: &'a Value, path: &str) -> Option<Vec<&'a Value>> {
    let steps = parse(path)?;
    let mut cur = vec![root];
    for step in &steps {
        let mut next = Vec::new();
        for v in cur {
            match (step, v) {
                (Step::Key(k), Value::Object(m)) => next.extend(m.get(k)),
                (Step::Index(n), Value::Array(a)) => {
                    let idx = if *n < 0 { a.len() as i64 + n } else { *n };
                    next.extend(usize::try_from(idx).ok().and_then(|i| a.get(i)));
                }
                (Step::All, Value::Array(a)) => next.extend(a.iter()),
                (Step::All, Value::Object(m)) => next.extend(m.values()),
                (Step::Descend, v) => descend(v, &mut next),
                (Step::Filter(keys, cmp), Value::Array(a)) => {
                    for item in a {
                        let mut at = Some(item);
                        for k in keys {
                            at = at.and_then(|x| x.get(k.as_str()));
                        }
                        let keep = match (at, cmp) {
                            (None, _) => false,
                            (Some(_), None) => true,
                            (Some(x), Some((eq, want))) => (text(x) == *want) == *eq,
                        };
                        if keep {
                            next.push(item);
                        }
                    }
                }
                _ => {}
            }
        }
        cur = next;
    }
    Some(cur)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_paths_printer_columns_use() {
        let o = json!({"spec": {"replicas": 3, "containers": [{"image": "a"}, {"image": "b"}], "x.y": 1},
            "status": {"conditions": [{"type": "Ready", "status": "True"}, {"type": "Synced", "status": "False"}]}});
        let one = |p: &str| select(&o, p).unwrap().first().map(|v| (*v).clone());
        assert_eq!(one(".spec.replicas"), Some(json!(3)));
        assert_eq!(one("{.spec.replicas}"), Some(json!(3)));
        assert_eq!(one(".spec.containers[1].image"), Some(json!("b")));
        assert_eq!(one(".spec.containers[-1].image"), Some(json!("b")));
        assert_eq!(select(&o, ".spec.containers[*].image").unwrap().len(), 2);
        assert_eq!(one(".status.conditions[?(@.type==\"Ready\")].status"), Some(json!("True")));
        assert_eq!(one(".status.conditions[?(@.type!=\"Ready\")].type"), Some(json!("Synced")));
        assert_eq!(one(".spec['x.y']"), Some(json!(1)));
        assert_eq!(one(".spec.missing.deeper"), None);
        // Recursive descent: every `type` at any depth, in key order.
        let types: Vec<&Value> = select(&o, "..type").unwrap();
        assert_eq!(types, [&json!("Ready"), &json!("Synced")]);
        let images: Vec<&Value> = select(&o, "{..image}").unwrap();
        assert_eq!(images, [&json!("a"), &json!("b")]);
        assert!(select(&o, "spec").is_none());
        assert!(select(&o, ".spec[").is_none());
    }
}
