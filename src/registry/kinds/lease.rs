//! Leases: kubectl's columns (the holder).

use serde_json::Value;

use super::super::strategy::Strategy;
use super::super::table::cells::*;
use super::super::table::{col, Column, Desc, AGE, NAME};
use crate::clock::SimTime;

pub struct Lease;

static COLUMNS: &[Column] =
    &[NAME, col("Holder", "string", Desc::Field("io.k8s.api.coordination.v1.LeaseSpec", "holderIdentity")), AGE];

impl Strategy for Lease {
    fn columns(&self) -> &[Column] {
        COLUMNS
    }

    fn cells(&self, o: &Value, now: SimTime) -> Vec<Value> {
        vec![name(o), s(o, "/spec/holderIdentity").into(), age(o, now)]
    }
}
