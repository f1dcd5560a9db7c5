//! Facts of a pod that follow from its spec alone, for the server (which
//! records them in the pod's status) and for clients that print them.

use serde_json::Value;

/// QoS class of a pod from its containers' requests and limits.
pub fn qos_class(spec: &Value) -> &'static str {
    let containers: Vec<&Value> = ["initContainers", "containers"]
        .iter()
        .filter_map(|k| spec.get(*k).and_then(Value::as_array))
        .flatten()
        .collect();
    let res = |c: &Value, kind: &str, r: &str| c.pointer(&format!("/resources/{kind}/{r}")).cloned();
    let any = containers.iter().any(|c| {
        ["requests", "limits"]
            .iter()
            .any(|k| c.pointer(&format!("/resources/{k}")).and_then(Value::as_object).is_some_and(|m| !m.is_empty()))
    });
    if !any {
        return "BestEffort";
    }
    let guaranteed = containers.iter().all(|c| {
        ["cpu", "memory"].iter().all(|r| {
            let limit = res(c, "limits", r);
            let request = res(c, "requests", r).or_else(|| limit.clone());
            limit.is_some() && request == limit
        })
    });
    if guaranteed {
        "Guaranteed"
    } else {
        "Burstable"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn qos_classes() {
        assert_eq!(qos_class(&json!({"containers": [{"name": "a"}]})), "BestEffort");
        let g = json!({"containers": [{"resources": {"limits": {"cpu": "1", "memory": "1Gi"}}}]});
        assert_eq!(qos_class(&g), "Guaranteed");
        let b = json!({"containers": [{"resources": {"requests": {"cpu": "1"}}}]});
        assert_eq!(qos_class(&b), "Burstable");
    }
}
