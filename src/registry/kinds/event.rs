//! Events (core/v1): the fields selectors may name (`source` selects on
//! the reporting component), kubectl's columns for events of either API.

use serde_json::{json, Value};

use super::super::options::GcPolicy;
use super::super::strategy::{SelectableField, Strategy};
use super::super::table::cells::*;
use super::super::table::{col, wide, Column, Desc, NAME};
use crate::clock::SimTime;

pub struct Event;

static FIELDS: &[SelectableField] = &[
    SelectableField::new("involvedObject.kind", ""),
    SelectableField::new("involvedObject.namespace", ""),
    SelectableField::new("involvedObject.name", ""),
    SelectableField::new("involvedObject.uid", ""),
    SelectableField::new("involvedObject.apiVersion", ""),
    SelectableField::new("involvedObject.resourceVersion", ""),
    SelectableField::new("involvedObject.fieldPath", ""),
    SelectableField::new("reason", ""),
    SelectableField::new("reportingComponent", ""),
    SelectableField::at("source", "source.component", ""),
    SelectableField::new("type", ""),
];

static COLUMNS: &[Column] = &[
    col("Last Seen", "string", Desc::Field("io.k8s.api.core.v1.Event", "lastTimestamp")),
    col("Type", "string", Desc::Field("io.k8s.api.core.v1.Event", "type")),
    col("Reason", "string", Desc::Field("io.k8s.api.core.v1.Event", "reason")),
    col("Object", "string", Desc::Field("io.k8s.api.core.v1.Event", "involvedObject")),
    wide("Subobject", "string", Desc::Field("io.k8s.api.core.v1.ObjectReference", "fieldPath")),
    wide("Source", "string", Desc::Field("io.k8s.api.core.v1.Event", "source")),
    col("Message", "string", Desc::Field("io.k8s.api.core.v1.Event", "message")),
    wide("First Seen", "string", Desc::Field("io.k8s.api.core.v1.Event", "firstTimestamp")),
    wide("Count", "string", Desc::Field("io.k8s.api.core.v1.Event", "count")),
    Column { priority: 1, ..NAME },
];

impl Strategy for Event {
    fn selectable_fields(&self) -> &[SelectableField] {
        FIELDS
    }

    /// Events have no dependents: propagation policies do nothing, and a
    /// delete drops any garbage-collection finalizer.
    fn gc_policy(&self) -> GcPolicy {
        GcPolicy::Unsupported
    }

    fn columns(&self) -> &[Column] {
        COLUMNS
    }

    fn cells(&self, o: &Value, now: SimTime) -> Vec<Value> {
        event_cells(o, now)
    }
}

fn event_cells(o: &Value, now: SimTime) -> Vec<Value> {
    let set = |p: &str| o.pointer(p).filter(|v| !v.is_null());
    // Zero times read as "<unknown>", as translateTimestampSince says.
    let first = match set("/firstTimestamp") {
        Some(t) => since(Some(t), now, "<unknown>"),
        None => since(set("/eventTime"), now, "<unknown>"),
    };
    let mut last = match set("/lastTimestamp") {
        Some(t) => since(Some(t), now, "<unknown>"),
        None => first.clone(),
    };
    let mut count = i(o, "/count");
    if set("/series").is_some() {
        last = since(set("/series/lastObservedTime"), now, "<unknown>");
        count = i(o, "/series/count");
    } else if count == 0 {
        // Singleton events of the newer API carry no count.
        count = 1;
    }
    let first_non_empty = |a: &'static str, b: &'static str| if s(o, a).is_empty() { s(o, b) } else { s(o, a) };
    let (component, instance) = (
        first_non_empty("/source/component", "/reportingComponent"),
        first_non_empty("/source/host", "/reportingInstance"),
    );
    let source = if instance.is_empty() { component.to_string() } else { format!("{component}, {instance}") };
    let kind = s(o, "/involvedObject/kind").to_lowercase();
    let target = match s(o, "/involvedObject/name") {
        "" => kind,
        n => format!("{kind}/{n}"),
    };
    vec![
        last.into(),
        s(o, "/type").into(),
        s(o, "/reason").into(),
        target.into(),
        s(o, "/involvedObject/fieldPath").into(),
        source.into(),
        s(o, "/message").trim().into(),
        first.into(),
        json!(count),
        name(o),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn events_of_either_api_print_their_times_counts_and_sources() {
        let now = SimTime(1_700_000_000_000);
        let new_api = json!({"metadata": {"name": "e"}, "eventTime": "2023-11-14T22:12:20.000000Z",
            "reportingComponent": "kubelet", "reportingInstance": "node-1", "involvedObject": {"kind": "Node"},
            "type": "Normal", "reason": "Starting", "message": " started \n"});
        let c = Event.cells(&new_api, now);
        assert_eq!(
            c[..7],
            [
                json!("60s"),
                json!("Normal"),
                json!("Starting"),
                json!("node"),
                json!(""),
                json!("kubelet, node-1"),
                json!("started")
            ]
        );
        assert_eq!((&c[7], &c[8]), (&json!("60s"), &json!(1)));
        let series = json!({"metadata": {"name": "e"}, "firstTimestamp": "2023-11-14T22:00:00Z",
            "series": {"count": 7, "lastObservedTime": "2023-11-14T22:13:10.000000Z"}, "involvedObject": {"kind": "Pod", "name": "p"}});
        let c = Event.cells(&series, now);
        assert_eq!((&c[0], &c[3], &c[7], &c[8]), (&json!("10s"), &json!("pod/p"), &json!("13m"), &json!(7)));
    }
}
