//! Endpoints: kubectl's columns (addresses and ports, at most three).

use serde_json::Value;

use super::super::strategy::Strategy;
use super::super::table::cells::*;
use super::super::table::{col, Column, Desc, AGE, NAME};
use crate::clock::SimTime;

pub struct Endpoints;

static COLUMNS: &[Column] =
    &[NAME, col("Endpoints", "string", Desc::Field("io.k8s.api.core.v1.Endpoints", "subsets")), AGE];

impl Strategy for Endpoints {
    fn columns(&self) -> &[Column] {
        COLUMNS
    }

    fn cells(&self, o: &Value, now: SimTime) -> Vec<Value> {
        vec![name(o), endpoints(o).into(), age(o, now)]
    }
}

fn endpoints(o: &Value) -> String {
    const MAX: usize = 3;
    let mut shown: Vec<String> = Vec::new();
    let mut total = 0;
    for subset in arr(o, "/subsets") {
        let ports = arr(subset, "/ports");
        for a in arr(subset, "/addresses") {
            let ip = s(a, "/ip");
            if ports.is_empty() {
                total += 1;
                if shown.len() < MAX {
                    shown.push(ip.to_string());
                }
            }
            for p in ports {
                total += 1;
                if shown.len() < MAX {
                    shown.push(format!("{ip}:{}", i(p, "/port")));
                }
            }
        }
    }
    match total {
        0 => "<none>".into(),
        n if n > MAX => format!("{} + {} more...", shown.join(","), n - MAX),
        _ => shown.join(","),
    }
}
