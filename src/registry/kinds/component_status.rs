//! ComponentStatuses: kubectl's columns, read from the `Healthy` condition
//! as upstream's printer reads it (no Age: the objects are made on every
//! read and have no creation time).

use serde_json::Value;

use super::super::strategy::Strategy;
use super::super::table::cells::name;
use super::super::table::{col, Column, Desc, NAME};
use crate::clock::SimTime;

pub struct ComponentStatus;

static COLUMNS: &[Column] = &[
    NAME,
    col("Status", "string", Desc::Text(std::borrow::Cow::Borrowed("Status of the component conditions"))),
    col("Message", "string", Desc::Text(std::borrow::Cow::Borrowed("Message of the component conditions"))),
    col("Error", "string", Desc::Text(std::borrow::Cow::Borrowed("Error of the component conditions"))),
];

impl Strategy for ComponentStatus {
    fn columns(&self) -> &[Column] {
        COLUMNS
    }

    fn cells(&self, o: &Value, _now: SimTime) -> Vec<Value> {
        let field = |c: &Value, key: &str| c.get(key).and_then(Value::as_str).unwrap_or("").to_string();
        // The first Healthy condition: True is Healthy, anything else
        // Unhealthy; no such condition, Unknown.
        let healthy = o
            .get("conditions")
            .and_then(Value::as_array)
            .and_then(|cs| cs.iter().find(|c| c.get("type").and_then(Value::as_str) == Some("Healthy")));
        let (status, message, error) = match healthy {
            Some(c) => (
                if field(c, "status") == "True" { "Healthy" } else { "Unhealthy" },
                field(c, "message"),
                field(c, "error"),
            ),
            None => ("Unknown", String::new(), String::new()),
        };
        vec![name(o), status.into(), message.into(), error.into()]
    }
}
