//! The Priority admission (upstream's `Priority` plugin, on in every
//! cluster): a new pod's priority comes from the PriorityClass it names,
//! or from the global default class, and may not be given otherwise; an
//! updated pod keeps its priority and policy when the update leaves them
//! out; at most one class may be the global default. The classes
//! themselves are `kinds/priority_class.rs`.

use serde_json::{json, Map, Value};

use super::kinds::priority_class::SYSTEM_CLASSES;
use super::resource::ResourceType;
use super::{keys, Registry};
use crate::api::{meta, Status};
use crate::storage::{ListStart, Storage};

const PRIORITY_CLASSES: (&str, &str, &str) = ("scheduling.k8s.io", "v1", "priorityclasses");

fn is_pods(rt: &ResourceType) -> bool {
    rt.gvr.group.is_empty() && rt.gvr.resource == "pods"
}

fn is_priority_classes(rt: &ResourceType) -> bool {
    let (group, _, resource) = PRIORITY_CLASSES;
    rt.gvr.group == group && rt.gvr.resource == resource
}

/// What a class gives a pod: its name, value and preemption policy.
struct Class {
    name: String,
    value: i64,
    policy: Option<String>,
}

impl Class {
    fn of(o: &Value) -> Class {
        Class {
            name: o.pointer("/metadata/name").and_then(Value::as_str).unwrap_or("").to_string(),
            value: o.get("value").and_then(Value::as_i64).unwrap_or(0),
            policy: o.get("preemptionPolicy").and_then(Value::as_str).map(str::to_string),
        }
    }
}

impl<S: Storage> Registry<S> {
    fn priority_classes(&self) -> Option<&ResourceType> {
        let (group, version, resource) = PRIORITY_CLASSES;
        self.resources.lookup(group, version, resource).map(|rt| &**rt)
    }

    /// The global default class: of those marked, the lowest value (more
    /// than one can exist only after a race, upstream says).
    fn default_class(&self) -> Option<Class> {
        let rt = self.priority_classes()?;
        let rev = self.storage.revision();
        let page = self.storage.list(&keys::resource_prefix(rt), rev, &ListStart::Beginning, None, None).ok()?;
        let marked = page.items.iter().map(|o| o.value()).filter(|o| o["globalDefault"].as_bool() == Some(true));
        marked.map(|o| Class::of(&o)).min_by_key(|c| c.value)
    }

    fn class_named(&self, name: &str) -> Option<Class> {
        let rt = self.priority_classes()?;
        self.current(rt, "", name).ok().map(|(_, o)| Class::of(&o.value()))
    }

    /// A new pod's priority (mutating admission, after the writer's
    /// managed fields are recorded). A refusal names the pod by its
    /// `generateName` when the name is `generated` (upstream's admission
    /// runs before a name is generated).
    pub(super) fn admit_pod_priority_on_create(
        &self,
        rt: &ResourceType,
        generated: bool,
        value: &mut Value,
    ) -> Result<(), Status> {
        if !is_pods(rt) {
            return Ok(());
        }
        let shown = meta::meta_str(value, if generated { "generateName" } else { "name" }).unwrap_or("").to_string();
        let Some(spec) = value.get_mut("spec").and_then(Value::as_object_mut) else { return Ok(()) };
        let forbidden = |why: String| Status::forbidden(rt.group(), rt.resource(), &shown, &why);
        let named = spec.get("priorityClassName").and_then(Value::as_str).filter(|n| !n.is_empty());
        let (priority, policy) = match named {
            Some(name) => {
                let class = self
                    .class_named(name)
                    .ok_or_else(|| forbidden(format!("no PriorityClass with name {name} was found")))?;
                (class.value, class.policy)
            }
            None => match self.default_class() {
                Some(class) => {
                    spec.insert("priorityClassName".into(), json!(class.name));
                    (class.value, class.policy)
                }
                None => {
                    spec.shift_remove("priorityClassName");
                    (0, Some("PreemptLowerPriority".into()))
                }
            },
        };
        if let Some(given) = spec.get("priority").filter(|v| !v.is_null()) {
            if given.as_i64() != Some(priority) {
                return Err(forbidden(format!("the integer value of priority ({given}) must not be provided in pod spec; priority admission controller computed {priority} from the given PriorityClass name")));
            }
        }
        spec.insert("priority".into(), json!(priority));
        if let Some(policy) = policy {
            if let Some(given) = spec.get("preemptionPolicy").and_then(Value::as_str) {
                if given != policy {
                    return Err(forbidden(format!("the string value of PreemptionPolicy ({given}) must not be provided in pod spec; priority admission controller computed {policy} from the given PriorityClass name")));
                }
            }
            spec.insert("preemptionPolicy".into(), json!(policy));
        }
        Ok(())
    }

    /// An updated pod keeps the priority and policy it was given when the
    /// update leaves them out (validation refuses other changes upstream).
    pub(super) fn admit_pod_priority_on_update(rt: &ResourceType, new: &mut Value, old: &Value) {
        if !is_pods(rt) {
            return;
        }
        let Some(spec) = new.get_mut("spec").and_then(Value::as_object_mut) else { return };
        for field in ["priority", "preemptionPolicy"] {
            keep_old(spec, field, old);
        }
    }

    /// At most one class is the global default: a create marked so, or an
    /// update marking another class so, is refused while one is (the
    /// validating half of the plugin, after the object's validation).
    pub(super) fn admit_priority_class(&self, rt: &ResourceType, value: &Value, creating: bool) -> Result<(), Status> {
        if !is_priority_classes(rt) || value.get("globalDefault").and_then(Value::as_bool) != Some(true) {
            return Ok(());
        }
        let name = value.pointer("/metadata/name").and_then(Value::as_str).unwrap_or("");
        match self.default_class() {
            Some(current) if creating || current.name != name => Err(Status::forbidden(
                rt.group(),
                rt.resource(),
                name,
                &format!("PriorityClass {} is already marked as default. Only one default can exist", current.name),
            )),
            _ => Ok(()),
        }
    }
}

/// The system classes every cluster has (upstream's post-start hook
/// creates each that is missing).
pub fn system_classes() -> impl Iterator<Item = Value> {
    SYSTEM_CLASSES.iter().map(|(name, value, description)| {
        json!({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name},
            "value": value, "description": description})
    })
}

fn keep_old(spec: &mut Map<String, Value>, field: &str, old: &Value) {
    if spec.get(field).is_none_or(Value::is_null) {
        if let Some(v) = old.get("spec").and_then(|s| s.get(field)).filter(|v| !v.is_null()) {
            spec.insert(field.into(), v.clone());
        }
    }
}
