//! ServiceAccounts: kubectl's columns.

use serde_json::{json, Value};

use super::super::strategy::Strategy;
use super::super::table::cells::*;
use super::super::table::{col, Column, Desc, AGE, NAME};
use crate::clock::SimTime;

pub struct ServiceAccount;

static COLUMNS: &[Column] =
    &[NAME, col("Secrets", "string", Desc::Field("io.k8s.api.core.v1.ServiceAccount", "secrets")), AGE];

impl Strategy for ServiceAccount {
    fn columns(&self) -> &[Column] {
        COLUMNS
    }

    fn cells(&self, o: &Value, now: SimTime) -> Vec<Value> {
        vec![name(o), json!(len(o, "/secrets")), age(o, now)]
    }
}
