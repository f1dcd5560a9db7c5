//! Printing as kubectl prints: the server's Table columns (with `-o
//! wide`, namespaces and kind prefixes), a client-side table when there is
//! none, names, and tabwriter-aligned columns.

use super::*;
use kubesim::sort::Order;

/// How a table is printed: `-o wide`, `-A`'s namespace column, the
/// kind before each name (several kinds listed), `--no-headers`, `-L`'s
/// label columns and `--show-labels`.
#[derive(Clone, Copy, Default)]
pub(super) struct Shape<'r> {
    pub wide: bool,
    pub with_ns: bool,
    pub prefix: Option<&'r ApiResource>,
    pub no_headers: bool,
    pub label_columns: &'r [String],
    pub show_labels: bool,
}

impl Shape<'_> {
    /// The label columns' headers: each key's last segment, upper-cased.
    fn label_headers(&self, header: &mut Vec<String>) {
        for key in self.label_columns {
            header.push(key.rsplit('/').next().unwrap_or(key).to_uppercase());
        }
        if self.show_labels {
            header.push("LABELS".into());
        }
    }

    /// An object's cells for them: each label's value (empty when it has
    /// none), then every label as `k=v` by key (`<none>`).
    fn label_cells(&self, metadata: Option<&Value>, row: &mut Vec<String>) {
        let labels = metadata.and_then(|m| m.get("labels")).and_then(Value::as_object);
        for key in self.label_columns {
            row.push(labels.and_then(|l| l.get(key)).and_then(Value::as_str).unwrap_or("").to_string());
        }
        if self.show_labels {
            let mut pairs: Vec<(&String, &str)> =
                labels.into_iter().flatten().map(|(k, v)| (k, v.as_str().unwrap_or(""))).collect();
            pairs.order_by_key(|(k, _)| *k);
            let text: Vec<String> = pairs.iter().map(|(k, v)| format!("{k}={v}")).collect();
            row.push(if text.is_empty() { "<none>".into() } else { text.join(",") });
        }
    }
}

/// Prints a server-side Table as kubectl does: the columns of priority 0
/// (all with `-o wide`), upper-cased; NAMESPACE first for `-A`; the name
/// column prefixed with the kind when several kinds are listed; without
/// `--no-headers`' header row, which then takes no part in the widths.
pub(super) fn server_table(defs: &Value, rows: &[Value], shape: Shape<'_>) -> String {
    let Shape { wide, with_ns, prefix, no_headers, .. } = shape;
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
    shape.label_headers(&mut header);
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
        shape.label_cells(row.pointer("/object/metadata"), &mut line);
        out.push(line);
    }
    columns(&out[usize::from(no_headers)..])
}

/// Prints rows without a server-side Table: NAME and AGE, as kubectl's
/// default printer does.
pub(super) fn table(now_ms: i64, r: &ApiResource, items: &[Value], shape: Shape<'_>) -> String {
    let (with_ns, prefix_kind) = (shape.with_ns, shape.prefix.is_some());
    let mut rows: Vec<Vec<String>> = Vec::new();
    let mut header = vec![];
    if with_ns {
        header.push("NAMESPACE".to_string());
    }
    header.push("NAME".to_string());
    header.push("AGE".to_string());
    shape.label_headers(&mut header);
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
        shape.label_cells(it.get("metadata"), &mut row);
        rows.push(row);
    }
    columns(&rows[usize::from(shape.no_headers)..])
}

/// Aligns columns with three spaces between them, as kubectl's tabwriter
/// (which makes no column narrower than six).
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
                line.push_str(&" ".repeat((widths[i] + 3).max(6) - cell.chars().count()));
            }
        }
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// `deployment.apps/coredns`, as `-o name` prints it.
pub(super) fn name_ref(r: &ApiResource, name: &str) -> String {
    format!("{}/{name}", kind_ref(r))
}

/// `deployment.apps "web" deleted`: the kind with its group, as kubectl's
/// `PrintObj` names a deleted object.
pub(super) fn deleted_line(r: &ApiResource, name: &str) -> String {
    format!("{} \"{name}\" deleted", kind_ref(r))
}

/// `deployment.apps`, `configmap`.
fn kind_ref(r: &ApiResource) -> String {
    let kind = r.kind.to_ascii_lowercase();
    if r.group.is_empty() {
        kind
    } else {
        format!("{kind}.{}", r.group)
    }
}
