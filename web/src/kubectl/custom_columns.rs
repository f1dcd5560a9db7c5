//! `-o custom-columns=HEADER:PATH,…`, as kubectl prints it: a header row
//! of the names as typed (none with `--no-headers`), then a row an object,
//! each cell the values the column's relaxed JSONPath finds joined by
//! commas (`<none>` when it finds nothing), each value as Go's `%v` prints
//! it (`map[app:web]`, `[a b]`, `<nil>`); aligned as kubectl's tables are.
//! kubectl asks for plain objects (no server-side Table) for it.

use serde_json::Value;

use super::print::columns;
use super::sort_by::relaxed_path;

/// The columns of a spec: (header, path without braces), or kubectl's
/// error for the spec.
fn parse(spec: &str) -> Result<Vec<(String, String)>, String> {
    if spec.is_empty() {
        return Err("error: custom-columns format specified but no custom columns given".into());
    }
    let mut cols = Vec::new();
    for part in spec.split(',') {
        let Some((header, path)) = part.split_once(':') else {
            return Err(format!("error: unexpected custom-columns spec: {part}, expected <header>:<json-path-expr>"));
        };
        cols.push((header.to_string(), relaxed_path(path)?));
    }
    Ok(cols)
}

/// A value as Go's `%v` prints what JSON decodes into `interface{}`.
pub(super) fn go_v(v: &Value) -> String {
    match v {
        Value::Null => "<nil>".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => kubesim::api::yaml::number(n),
        Value::String(s) => s.clone(),
        Value::Array(items) => format!("[{}]", items.iter().map(go_v).collect::<Vec<_>>().join(" ")),
        Value::Object(m) => {
            // (fmt prints a map's keys sorted.)
            let mut keys: Vec<&String> = m.keys().collect();
            kubesim::sort::Order::order(keys.as_mut_slice());
            let pairs: Vec<String> = keys.into_iter().map(|k| format!("{k}:{}", go_v(&m[k]))).collect();
            format!("map[{}]", pairs.join(" "))
        }
    }
}

/// The printed table, or kubectl's error for the spec.
pub(super) fn print<'a>(
    spec: &str,
    items: impl Iterator<Item = &'a Value>,
    no_headers: bool,
) -> Result<String, String> {
    let cols = parse(spec)?;
    let mut rows: Vec<Vec<String>> = Vec::new();
    if !no_headers {
        rows.push(cols.iter().map(|(h, _)| h.clone()).collect());
    }
    for item in items {
        let mut row = Vec::with_capacity(cols.len());
        for (_, path) in &cols {
            let found = kubesim::api::jsonpath::select(item, path)
                .ok_or_else(|| format!("error: error parsing jsonpath {{{path}}}"))?;
            row.push(if found.is_empty() {
                "<none>".to_string()
            } else {
                found.into_iter().map(go_v).collect::<Vec<_>>().join(",")
            });
        }
        rows.push(row);
    }
    Ok(columns(&rows))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn values_print_as_go_s_v_does() {
        assert_eq!(go_v(&json!({"b": [1, 2.5, null], "a": {"x": true}})), "map[a:map[x:true] b:[1 2.5 <nil>]]");
        assert_eq!(go_v(&json!(1_000_000.5)), "1.0000005e+06");
        assert_eq!(go_v(&json!([])), "[]");
        assert_eq!(go_v(&json!({})), "map[]");
    }

    #[test]
    fn specs_are_refused_as_kubectl_refuses_them() {
        assert_eq!(parse("").unwrap_err(), "error: custom-columns format specified but no custom columns given");
        assert_eq!(
            parse("A:.a,B").unwrap_err(),
            "error: unexpected custom-columns spec: B, expected <header>:<json-path-expr>"
        );
        assert!(parse("A:{.a").unwrap_err().starts_with("error: unexpected path string"));
        assert_eq!(parse("N:metadata.name,I:{.spec.containers[*].image}").unwrap()[1].1, ".spec.containers[*].image");
    }
}
