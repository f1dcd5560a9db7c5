//! Facts of a pod that follow from its spec alone, for the server (which
//! records them in the pod's status) and for clients that print them.

use serde_json::Value;

use super::quantity::milli_value;

/// Two lists of resources (or two `{requests, limits}`) alike as
/// quantities: `1` and `1000m` are the same, a missing list and an empty
/// one too.
pub fn same_amounts(a: &Value, b: &Value) -> bool {
    let empty = serde_json::Map::new();
    let (x, y) = (a.as_object().unwrap_or(&empty), b.as_object().unwrap_or(&empty));
    let within = |x: &serde_json::Map<String, Value>, y: &serde_json::Map<String, Value>| {
        x.iter().all(|(k, v)| match v {
            Value::Object(_) => same_amounts(v, y.get(k).unwrap_or(&Value::Null)),
            _ => y.get(k).is_some_and(|w| v.as_str().and_then(milli_value) == w.as_str().and_then(milli_value)),
        })
    };
    within(x, y) && within(y, x)
}

/// QoS class of a pod from its containers' requests and limits, as
/// upstream computes it: only cpu and memory count, compared as
/// quantities (`1` is `1000m`; `0` is unset). A container whose cpu and
/// memory requests equal their limits is Guaranteed, one with neither is
/// BestEffort, any other is Burstable; the pod is the class its
/// containers share, else Burstable. A missing request counts as its
/// limit, as the API's defaulting sets it.
pub fn qos_class(spec: &Value) -> &'static str {
    let containers = ["initContainers", "containers"].iter().filter_map(|k| spec.get(*k).and_then(Value::as_array));
    let classes = containers.flatten().map(|c| container_qos(c.get("resources")));
    shared_class(classes)
}

/// The class every one of `classes` has (BestEffort for none), else
/// Burstable: how upstream combines a container's resources, and then a
/// pod's containers.
fn shared_class(classes: impl Iterator<Item = &'static str>) -> &'static str {
    let mut shared = None;
    for class in classes {
        if class == "Burstable" || shared.is_some_and(|s| s != class) {
            return "Burstable";
        }
        shared = Some(class);
    }
    shared.unwrap_or("BestEffort")
}

fn container_qos(resources: Option<&Value>) -> &'static str {
    let amount = |kind: &str, resource: &str| {
        resources.and_then(|r| r.get(kind)).and_then(|m| m.get(resource)).map(|q| match q {
            Value::String(q) => milli_value(q).unwrap_or(0),
            Value::Number(n) => n.as_f64().map_or(0, |n| (n * 1000.0).ceil() as i128),
            _ => 0,
        })
    };
    shared_class(["cpu", "memory"].into_iter().map(|resource| {
        let limit = amount("limits", resource);
        let request = amount("requests", resource).or(limit).unwrap_or(0);
        if request != limit.unwrap_or(0) {
            "Burstable"
        } else if request == 0 {
            "BestEffort"
        } else {
            "Guaranteed"
        }
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn amounts_compare_as_quantities_and_empty_is_none() {
        assert!(same_amounts(&json!({"cpu": "1"}), &json!({"cpu": "1000m"})));
        assert!(!same_amounts(&json!({"cpu": "1"}), &json!({"cpu": "1", "memory": "1Gi"})));
        assert!(!same_amounts(&json!({"cpu": "1", "memory": "1Gi"}), &json!({"cpu": "1"})));
        assert!(same_amounts(&json!({"requests": {}}), &Value::Null));
        let r = json!({"requests": {"memory": "1Gi"}, "limits": {"memory": "2Gi"}});
        assert!(same_amounts(&r, &json!({"limits": {"memory": "2048Mi"}, "requests": {"memory": "1024Mi"}})));
        assert!(!same_amounts(&r, &json!({"requests": {"memory": "1Gi"}})));
    }

    #[test]
    fn qos_classes() {
        assert_eq!(qos_class(&json!({"containers": [{"name": "a"}]})), "BestEffort");
        let g = json!({"containers": [{"resources": {"limits": {"cpu": "1", "memory": "1Gi"}}}]});
        assert_eq!(qos_class(&g), "Guaranteed");
        let b = json!({"containers": [{"resources": {"requests": {"cpu": "1"}}}]});
        assert_eq!(qos_class(&b), "Burstable");
    }

    #[test]
    fn only_cpu_and_memory_count_compared_as_quantities() {
        let pod = |resources: Value| json!({"containers": [{"name": "a", "resources": resources}]});
        // Other resources do not make a pod Burstable.
        assert_eq!(qos_class(&pod(json!({"requests": {"ephemeral-storage": "1Gi"}}))), "BestEffort");
        // Zero is unset.
        assert_eq!(qos_class(&pod(json!({"requests": {"cpu": "0"}, "limits": {"cpu": "0"}}))), "BestEffort");
        // Equal quantities written differently.
        let g = json!({"requests": {"cpu": "1", "memory": "1Gi"}, "limits": {"cpu": "1000m", "memory": "1024Mi"}});
        assert_eq!(qos_class(&pod(g)), "Guaranteed");
        // cpu guaranteed, memory unset: some but not all.
        assert_eq!(qos_class(&pod(json!({"limits": {"cpu": "1"}}))), "Burstable");
        let limits = json!({"limits": {"cpu": "1", "memory": "1Gi", "nvidia.com/gpu": "1"}});
        assert_eq!(qos_class(&pod(limits)), "Guaranteed");
        // A Guaranteed container beside a BestEffort one.
        let mixed = json!({"containers": [
            {"name": "a", "resources": {"limits": {"cpu": "1", "memory": "1Gi"}}},
            {"name": "b"}
        ]});
        assert_eq!(qos_class(&mixed), "Burstable");
        let init = json!({"initContainers": [{"name": "i"}], "containers": [{"name": "a"}]});
        assert_eq!(qos_class(&init), "BestEffort");
    }
}
