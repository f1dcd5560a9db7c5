//! EndpointSlices (discovery.k8s.io/v1): kubectl's columns (address type,
//! at most three ports and three addresses).

use serde_json::Value;

use super::super::strategy::Strategy;
use super::super::table::cells::*;
use super::super::table::{col, Column, Desc, AGE, NAME};
use crate::clock::SimTime;

pub struct EndpointSlice;

const SLICE: &str = "io.k8s.api.discovery.v1.EndpointSlice";

static COLUMNS: &[Column] = &[
    NAME,
    col("AddressType", "string", Desc::Field(SLICE, "addressType")),
    col("Ports", "string", Desc::Field(SLICE, "ports")),
    col("Endpoints", "string", Desc::Field(SLICE, "endpoints")),
    AGE,
];

impl Strategy for EndpointSlice {
    fn columns(&self) -> &[Column] {
        COLUMNS
    }

    fn cells(&self, o: &Value, now: SimTime) -> Vec<Value> {
        let ports = arr(o, "/ports").iter().map(|p| match p.get("port").and_then(Value::as_i64) {
            Some(n) => n.to_string(),
            None => p.get("name").and_then(Value::as_str).unwrap_or("*").to_string(),
        });
        let addresses = arr(o, "/endpoints")
            .iter()
            .flat_map(|e| arr(e, "/addresses").iter().map(|a| a.as_str().unwrap_or("").to_string()));
        vec![
            name(o),
            s(o, "/addressType").into(),
            at_most_three(ports).into(),
            at_most_three(addresses).into(),
            age(o, now),
        ]
    }
}

/// Three items joined, then "+ N more...", or `<unset>` for none.
fn at_most_three(items: impl Iterator<Item = String>) -> String {
    let all: Vec<String> = items.collect();
    match all.len() {
        0 => "<unset>".into(),
        n if n > 3 => format!("{} + {} more...", all[..3].join(","), n - 3),
        _ => all.join(","),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn columns_show_three_ports_and_addresses_at_most() {
        let o = json!({"metadata": {"name": "web-abcde"}, "addressType": "IPv4",
            "ports": [{"name": "http", "port": 80}, {"name": "named"}],
            "endpoints": [{"addresses": ["10.0.0.1"]}, {"addresses": ["10.0.0.2"]}, {"addresses": ["10.0.0.3"]},
                          {"addresses": ["10.0.0.4"]}]});
        let c = EndpointSlice.cells(&o, SimTime(0));
        assert_eq!(c[2], "80,named");
        assert_eq!(c[3], "10.0.0.1,10.0.0.2,10.0.0.3 + 1 more...");
        let empty = json!({"metadata": {"name": "e"}, "addressType": "IPv4"});
        assert_eq!(EndpointSlice.cells(&empty, SimTime(0))[2], "<unset>");
    }
}
