//! ComponentStatuses: kubectl's columns, read from the `Healthy` condition
//! as upstream's printer reads it (no Age: the objects are made on every
//! read and have no creation time).

use std::borrow::Cow;

use serde_json::Value;

use super::super::strategy::Strategy;
use super::super::table::cells::{arr, name, s};
use super::super::table::{col, Column, Desc, NAME};
use crate::clock::SimTime;

pub struct ComponentStatus;

static COLUMNS: &[Column] = &[
    NAME,
    col("Status", "string", Desc::Text(Cow::Borrowed("Status of the component conditions"))),
    col("Message", "string", Desc::Text(Cow::Borrowed("Message of the component conditions"))),
    col("Error", "string", Desc::Text(Cow::Borrowed("Error of the component conditions"))),
];

impl Strategy for ComponentStatus {
    fn columns(&self) -> &[Column] {
        COLUMNS
    }

    fn cells(&self, o: &Value, _now: SimTime) -> Vec<Value> {
        // The first Healthy condition: True is Healthy, anything else
        // Unhealthy; no such condition, Unknown.
        let (status, message, error) = match arr(o, "/conditions").iter().find(|c| s(c, "/type") == "Healthy") {
            Some(c) => {
                (if s(c, "/status") == "True" { "Healthy" } else { "Unhealthy" }, s(c, "/message"), s(c, "/error"))
            }
            None => ("Unknown", "", ""),
        };
        vec![name(o), status.into(), message.into(), error.into()]
    }
}
