//! Server-side printing (`as=Table`), as upstream's `TableConvertor`: a
//! kind's strategy names its columns (name, type, format, priority,
//! description) and computes each row's cells; a kind without a printer
//! gets the default table (Name, Created At). Descriptions come from the
//! schema's field documentation, which only the native build carries; the
//! browser build's columns have empty descriptions.

use std::borrow::Cow;

use serde_json::{json, Map, Value};

use super::strategy::Strategy;
use crate::clock::SimTime;

pub(crate) mod cells;

/// Where a column's description comes from.
#[derive(Clone, Debug)]
pub enum Desc {
    /// A field's documentation in the schema: (definition, property).
    Field(&'static str, &'static str),
    Text(Cow<'static, str>),
}

/// One column of a Table (`metav1.TableColumnDefinition`).
#[derive(Clone, Debug)]
pub struct Column {
    pub name: Cow<'static, str>,
    pub ty: &'static str,
    pub format: &'static str,
    /// 0: always shown; 1: shown with `-o wide`.
    pub priority: i32,
    pub desc: Desc,
}

pub(crate) const META: &str = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";

/// A column shown by default.
pub const fn col(name: &'static str, ty: &'static str, desc: Desc) -> Column {
    Column { name: Cow::Borrowed(name), ty, format: "", priority: 0, desc }
}

/// A column shown with `-o wide`.
pub const fn wide(name: &'static str, ty: &'static str, desc: Desc) -> Column {
    Column { name: Cow::Borrowed(name), ty, format: "", priority: 1, desc }
}

pub const fn text(t: &'static str) -> Desc {
    Desc::Text(Cow::Borrowed(t))
}

pub const NAME: Column =
    Column { name: Cow::Borrowed("Name"), ty: "string", format: "name", priority: 0, desc: Desc::Field(META, "name") };
pub const AGE: Column = col("Age", "string", Desc::Field(META, "creationTimestamp"));
pub const CONTAINERS: Column = wide("Containers", "string", text("Names of each container in the template."));
pub const IMAGES: Column = wide("Images", "string", text("Images referenced by each container in the template."));

/// The columns every kind without a printer gets.
pub static DEFAULT_COLUMNS: &[Column] = &[
    NAME,
    Column {
        name: Cow::Borrowed("Created At"),
        ty: "date",
        format: "",
        priority: 0,
        desc: Desc::Field(META, "creationTimestamp"),
    },
];

/// The default table's cells: the name and the creation time.
pub fn default_cells(obj: &Value) -> Vec<Value> {
    vec![cells::name(obj), obj.pointer("/metadata/creationTimestamp").cloned().unwrap_or(Value::Null)]
}

fn description(d: &Desc) -> String {
    match d {
        Desc::Text(t) => t.to_string(),
        Desc::Field(def, prop) => crate::schema::schemas()
            .definition(def)
            .and_then(|d| d.pointer(&format!("/properties/{prop}/description")))
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string(),
    }
}

/// What prints an object: its kind's strategy, or (for an object of another
/// kind than the resource's, such as a subresource's Scale) the default
/// table.
pub enum Printer<'a> {
    Kind(&'a dyn Strategy),
    Default,
}

impl Printer<'_> {
    fn columns(&self) -> &[Column] {
        match self {
            Printer::Kind(s) => s.columns(),
            Printer::Default => DEFAULT_COLUMNS,
        }
    }

    /// The column definitions, as `columnDefinitions`.
    pub fn column_definitions(&self) -> Value {
        Value::Array(
            self.columns()
                .iter()
                .map(|c| {
                    json!({
                        "name": c.name,
                        "type": c.ty,
                        "format": c.format,
                        "description": description(&c.desc),
                        "priority": c.priority,
                    })
                })
                .collect(),
        )
    }

    /// One row's cells (and conditions, for kinds that have them).
    pub fn row(&self, obj: &Value, now: SimTime) -> Map<String, Value> {
        let mut row = Map::new();
        let (cells, conditions) = match self {
            Printer::Kind(s) => (s.cells(obj, now), s.row_conditions(obj)),
            Printer::Default => (default_cells(obj), None),
        };
        row.insert("cells".into(), Value::Array(cells));
        if let Some(c) = conditions {
            row.insert("conditions".into(), c);
        }
        row
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::kinds::builtin_catalog;

    #[test]
    fn kinds_without_a_printer_get_name_and_created_at() {
        let role = builtin_catalog().lookup("rbac.authorization.k8s.io", "v1", "roles").unwrap();
        let printer = Printer::Kind(&*role.strategy);
        let cols = printer.column_definitions();
        assert_eq!(cols[1]["name"], "Created At");
        assert_eq!(cols[1]["type"], "date");
        assert_eq!(Printer::Default.column_definitions(), cols, "another kind (a subresource's Scale)");
        let obj = json!({"metadata": {"name": "r", "creationTimestamp": "2023-11-14T22:13:20Z"}});
        assert_eq!(printer.row(&obj, SimTime(0))["cells"], json!(["r", "2023-11-14T22:13:20Z"]));
    }

    #[test]
    fn selectors_and_labels_print_sorted() {
        let sel = json!({"matchLabels": {"z": "1", "a": "2"}, "matchExpressions": [{"key": "k", "operator": "In", "values": ["y", "x"]}]});
        assert_eq!(cells::selector(Some(&sel)), "a=2,k in (x,y),z=1");
        assert_eq!(cells::selector(None), "<none>");
        assert_eq!(cells::labels(Some(&json!({}))), "<none>");
    }
}
