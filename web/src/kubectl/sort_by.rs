//! `get --sort-by=FIELD`, as kubectl 1.33 sorts (its `get` sorter):
//! the field is a relaxed JSONPath (`a.b`, `.a.b`, `{a.b}` and `{.a.b}`
//! all mean `{.a.b}`); two values compare as numbers when both are
//! integers or both are floats, as quantities when both strings read as
//! quantities (`100m` < `1`, resourceVersions numerically), else as
//! strings byte by byte (`pod-10` < `pod-2`: kubectl 1.27–1.30 compared
//! digit runs as numbers, 1.31 dropped that); a missing value sorts
//! first; booleans, lists and maps cannot be compared and stop kubectl
//! with a fatal log line.
//!
//! What kubectl sorts depends on how it prints. A table's rows are sorted
//! by each row's object (asked for with `includeObject=Object`); when the
//! field is in none of them the table prints nothing (kubectl drops the
//! printer's error) and kubectl says no resources were found. When it
//! fetched several tables (several types, or names), it first sorts the
//! tables themselves, as objects, by the field. `-o name|yaml|json|
//! jsonpath` sort the one list of every item fetched, and a field none of
//! them has is an error.
//!
//! kubectl sorts with Go's `sort.Sort`, an insertion sort up to 12
//! elements (stable) and pattern-defeating quicksort past that (not
//! stable); this sorts by insertion at every length, so beyond 12 items
//! equal keys may come out in another order than kubectl's.

use serde_json::Value;

use kubesim::api::quantity::Quantity;
use kubesim::clock::SimTime;

/// What kubectl's relaxed path says for a `--sort-by` it cannot read.
const UNEXPECTED: &str =
    "error: unexpected path string, expected a 'name1.name2' or '.name1.name2' or '{name1.name2}' or '{.name1.name2}'";

/// kubectl's `RelaxedJSONPathExpression`: the field as `{.a.b}`.
pub(super) fn relaxed(expr: &str) -> Result<String, String> {
    if expr.is_empty() {
        return Ok(String::new());
    }
    let inner = match expr.strip_prefix('{').and_then(|e| e.strip_suffix('}')) {
        Some(inner) => inner,
        None => expr,
    };
    let inner = inner.strip_prefix('.').unwrap_or(inner);
    if inner.is_empty() || inner.contains(['{', '}']) {
        return Err(UNEXPECTED.into());
    }
    Ok(format!("{{.{inner}}}"))
}

/// The path a relaxed JSONPath names, without its braces (`a.b` → `.a.b`).
pub(super) fn relaxed_path(expr: &str) -> Result<String, String> {
    let field = relaxed(expr)?;
    Ok(field.strip_prefix('{').and_then(|f| f.strip_suffix('}')).unwrap_or(&field).to_string())
}

/// The path of a template's first action (`{.a}{.b}` → `.a`).
fn first_action(template: &str) -> Option<&str> {
    let rest = template.strip_prefix('{')?;
    rest.split_once('}').map(|(path, _)| path.trim())
}

/// The value the sort compares for `obj` (the first result), `None` when
/// it has none; `Err` when the path does not parse.
fn key<'a>(path: &str, obj: &'a Value) -> Result<Option<&'a Value>, String> {
    let found = kubesim::api::jsonpath::select(obj, path)
        .ok_or_else(|| format!("error: error parsing jsonpath {path}: unrecognized character"))?;
    Ok(found.first().copied())
}

/// How a sort failed.
#[derive(Debug, PartialEq)]
pub(super) enum Failed {
    /// kubectl's error line (`error: …`).
    Error(String),
    /// The field is in no row of a table: kubectl prints the table as
    /// nothing and goes on.
    Unprinted,
    /// Two values cannot be compared: the message of kubectl's fatal log
    /// line (see `fatal`).
    Unsortable(String),
}

/// kubectl's fatal log line for `message` at `now` (klog's header: `F`,
/// month and day, the time to microseconds, the process id, the source
/// line). The page's kubectl has no process: its id is 1.
pub(super) fn fatal(now: SimTime, source_line: u32, message: &str) -> String {
    let t = now.rfc3339_micro();
    format!("F{}{} {} {:>7} sorter.go:{source_line}] {message}", &t[5..7], &t[8..10], &t[11..26], 1)
}

/// The source line of kubectl 1.33's fatal log for a table's rows and
/// for objects.
pub(super) const ROWS_LINE: u32 = 375;
pub(super) const OBJECTS_LINE: u32 = 329;

/// Sorts a table's rows by their objects' `expr`.
pub(super) fn sort_rows(rows: &mut Vec<Value>, expr: &str) -> Result<(), Failed> {
    if rows.len() < 2 {
        return Ok(());
    }
    let field = relaxed(expr).unwrap_or_else(|_| expr.to_string());
    let path = first_action(&field).ok_or(Failed::Unprinted)?;
    let null = Value::Null;
    let keys = rows
        .iter()
        .map(|r| key(path, row_object(r, &null)))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|_| Failed::Unprinted)?;
    if keys.iter().all(Option::is_none) {
        return Err(Failed::Unprinted);
    }
    let order = insertion_order(&keys).map_err(|e| {
        Failed::Unsortable(format!("Field {field} in [][][]reflect.Value is an unsortable type: interface, err: {e}"))
    })?;
    let owned: Vec<Value> = std::mem::take(rows);
    let mut slots: Vec<Option<Value>> = owned.into_iter().map(Some).collect();
    rows.extend(order.into_iter().filter_map(|i| slots[i].take()));
    Ok(())
}

/// A row's object (`includeObject=Object`), or the row itself when it is
/// an object (a table the page prints from objects).
fn row_object<'a>(row: &'a Value, null: &'a Value) -> &'a Value {
    match row.get("object") {
        Some(o) => o,
        None if row.get("cells").is_some() => null,
        None => row,
    }
}

/// Sorts whole objects (a list's items, or several tables) by `expr`.
pub(super) fn sort_objects<T>(items: &mut Vec<T>, expr: &str, object: impl Fn(&T) -> &Value) -> Result<(), Failed> {
    if items.is_empty() {
        return Ok(());
    }
    let field = relaxed(expr).map_err(Failed::Error)?;
    let path = first_action(&field).unwrap_or("");
    let keys = items.iter().map(|i| key(path, object(i))).collect::<Result<Vec<_>, _>>().map_err(Failed::Error)?;
    if keys.iter().all(Option::is_none) {
        return Err(Failed::Error(format!(
            "error: couldn't find any field with path {field:?} in the list of objects"
        )));
    }
    let order = insertion_order(&keys).map_err(|e| {
        Failed::Unsortable(format!(
            "Field {field} in *unstructured.Unstructured is an unsortable type: interface, err: {e}"
        ))
    })?;
    let mut slots: Vec<Option<T>> = std::mem::take(items).into_iter().map(Some).collect();
    items.extend(order.into_iter().filter_map(|i| slots[i].take()));
    Ok(())
}

/// The order Go's insertion sort leaves `keys` in, with kubectl's less:
/// an element without a value is less than anything.
fn insertion_order(keys: &[Option<&Value>]) -> Result<Vec<usize>, String> {
    let less = |i: usize, j: usize| -> Result<bool, String> {
        match (keys[i], keys[j]) {
            (None, _) => Ok(true),
            (_, None) => Ok(false),
            (Some(a), Some(b)) => is_less(a, b),
        }
    };
    let mut order: Vec<usize> = (0..keys.len()).collect();
    for i in 1..order.len() {
        let mut j = i;
        while j > 0 && less(order[j], order[j - 1])? {
            order.swap(j, j - 1);
            j -= 1;
        }
    }
    Ok(order)
}

/// A JSON number as Go's unstructured decoding holds it.
enum Number {
    Int(i64),
    Float(f64),
}

fn number(n: &serde_json::Number) -> Number {
    match n.as_i64() {
        Some(i) => Number::Int(i),
        None => Number::Float(n.as_f64().unwrap_or(f64::NAN)),
    }
}

/// kubectl's `isLess` for two values of an unstructured object, or its
/// error for values it cannot compare.
fn is_less(a: &Value, b: &Value) -> Result<bool, String> {
    const MISMATCH: &str = "unsortable interface: interface";
    match (a, b) {
        (Value::Null, Value::Null) => Ok(false),
        (Value::Null, _) => Ok(true),
        (_, Value::Null) => Ok(false),
        (Value::String(x), Value::String(y)) => Ok(match (Quantity::parse(x), Quantity::parse(y)) {
            (Some(p), Some(q)) => p.milli < q.milli,
            _ => x < y,
        }),
        (Value::Number(x), Value::Number(y)) => match (number(x), number(y)) {
            (Number::Int(p), Number::Int(q)) => Ok(p < q),
            (Number::Float(p), Number::Float(q)) => Ok(p < q),
            _ => Err(MISMATCH.into()),
        },
        (Value::String(_) | Value::Number(_), _) => Err(MISMATCH.into()),
        (Value::Bool(_), _) => Err("unsortable type: bool".into()),
        (Value::Array(_), _) => Err("unsortable type: []interface {}".into()),
        (Value::Object(_), _) => Err("unsortable type: map[string]interface {}".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_relaxed_path_takes_four_spellings_and_refuses_braces_inside() {
        for e in ["metadata.name", ".metadata.name", "{metadata.name}", "{.metadata.name}"] {
            assert_eq!(relaxed(e).unwrap(), "{.metadata.name}", "{e}");
        }
        assert_eq!(relaxed("{.a}{.b}").unwrap_err(), UNEXPECTED);
        assert_eq!(relaxed("{.a").unwrap_err(), UNEXPECTED);
    }

    fn rows(names: &[(&str, Value)]) -> Vec<Value> {
        names.iter().map(|(n, v)| json!({"cells": [n], "object": {"metadata": {"name": n}, "v": v}})).collect()
    }

    fn names(rows: &[Value]) -> Vec<&str> {
        rows.iter().map(|r| r["cells"][0].as_str().unwrap()).collect()
    }

    #[test]
    fn rows_sort_by_quantities_numbers_and_natural_strings() {
        let mut r = rows(&[("a", json!("1")), ("b", json!("100m")), ("c", json!("2Gi")), ("d", json!("3"))]);
        sort_rows(&mut r, ".v").unwrap();
        assert_eq!(names(&r), ["b", "a", "d", "c"]);
        let mut r = rows(&[("a", json!(10)), ("b", json!(9)), ("c", json!(-1))]);
        sort_rows(&mut r, "v").unwrap();
        assert_eq!(names(&r), ["c", "b", "a"]);
        // Strings byte by byte, as kubectl 1.31 and later.
        let mut r = rows(&[("x-9", json!(null)), ("x-10", json!(null)), ("X-100", json!(null))]);
        sort_rows(&mut r, "{.metadata.name}").unwrap();
        assert_eq!(names(&r), ["X-100", "x-10", "x-9"]);
    }

    #[test]
    fn equal_keys_keep_their_order_and_missing_ones_come_first_reversed() {
        let mut r = rows(&[("a", json!(1)), ("b", json!(1)), ("c", json!(0))]);
        sort_rows(&mut r, ".v").unwrap();
        assert_eq!(names(&r), ["c", "a", "b"]);
        // As Go's insertion sort with kubectl's less: an element without
        // the field is less than any, even another without it.
        let mut r = vec![
            json!({"cells": ["p"], "object": {"v": 2}}),
            json!({"cells": ["q"], "object": {}}),
            json!({"cells": ["r"], "object": {}}),
            json!({"cells": ["s"], "object": {"v": 1}}),
        ];
        sort_rows(&mut r, ".v").unwrap();
        assert_eq!(names(&r), ["r", "q", "s", "p"]);
    }

    #[test]
    fn a_table_without_the_field_prints_nothing_and_a_boolean_is_fatal() {
        let mut r = rows(&[("a", json!(1)), ("b", json!(2))]);
        assert_eq!(sort_rows(&mut r, ".nope"), Err(Failed::Unprinted));
        // One row is not sorted at all, so not checked either.
        let mut one = rows(&[("a", json!(1))]);
        assert_eq!(sort_rows(&mut one, ".nope"), Ok(()));
        let mut r = rows(&[("a", json!(true)), ("b", json!(false))]);
        assert_eq!(
            sort_rows(&mut r, ".v"),
            Err(Failed::Unsortable(
                "Field {.v} in [][][]reflect.Value is an unsortable type: interface, err: unsortable type: bool".into()
            ))
        );
        let mut r = rows(&[("a", json!(1)), ("b", json!(1.5))]);
        assert!(
            matches!(sort_rows(&mut r, ".v"), Err(Failed::Unsortable(m)) if m.ends_with("unsortable interface: interface"))
        );
    }

    #[test]
    fn objects_without_the_field_are_an_error() {
        let mut items = vec![json!({"metadata": {"name": "b"}}), json!({"metadata": {"name": "a"}})];
        assert_eq!(
            sort_objects(&mut items, ".metadata.nope", |v| v),
            Err(Failed::Error(
                "error: couldn't find any field with path \"{.metadata.nope}\" in the list of objects".into()
            ))
        );
        assert_eq!(sort_objects(&mut items, "{.a}{.b}", |v| v), Err(Failed::Error(UNEXPECTED.into())));
        sort_objects(&mut items, ".metadata.name", |v| v).unwrap();
        assert_eq!(items[0]["metadata"]["name"], "a");
    }

    #[test]
    fn the_fatal_line_has_klog_s_header() {
        let now = SimTime(kubesim::clock::parse_rfc3339("2026-11-30T07:11:49Z").unwrap() + 797);
        assert_eq!(fatal(now, ROWS_LINE, "m"), "F1130 07:11:49.797000       1 sorter.go:375] m");
    }
}
