//! Server-side apply and field management: every write records which
//! manager owns which fields in `metadata.managedFields` (FieldsV1), an
//! Update under the request's field manager, an Apply under the applier;
//! an apply merges the configuration into the live object, refuses to
//! change fields other managers own unless forced, and removes the fields
//! its manager stopped applying that nobody else owns.
//!
//! Written by hand after structured-merge-diff's rules (no Rust crate
//! implements them); see docs/fidelity.md for where we approximate.

pub mod fieldpath;
pub mod typed;

use crate::sort::Order;
use serde_json::{json, Map, Value};

use crate::api::{Status, StatusCause};
use crate::schema::schemas;
use fieldpath::{display, Path, PathElement, Set};

/// One `managedFields` entry, with its set decoded.
#[derive(Clone, Debug, PartialEq)]
pub struct Manager {
    pub manager: String,
    pub operation: String,
    pub api_version: String,
    pub time: Option<String>,
    pub subresource: String,
    pub set: Set,
}

impl Manager {
    fn same_identity(&self, o: &Manager) -> bool {
        self.manager == o.manager
            && self.operation == o.operation
            && self.subresource == o.subresource
            && (self.operation == "Apply" || self.api_version == o.api_version)
    }

    /// How a conflict names the manager (upstream's `printManager`).
    fn conflict_name(&self) -> String {
        let mut s = serde_json::to_string(&self.manager).unwrap_or_default();
        if !self.subresource.is_empty() {
            s = format!("{s} with subresource {}", serde_json::to_string(&self.subresource).unwrap_or_default());
        }
        if self.operation == "Update" {
            s = format!("{s} using {}", self.api_version);
        }
        s
    }

    fn to_json(&self) -> Value {
        let id = Identity {
            manager: &self.manager,
            operation: &self.operation,
            api_version: &self.api_version,
            time: self.time.as_deref(),
            subresource: &self.subresource,
        };
        id.entry(self.set.to_fields_v1())
    }
}

/// A `managedFields` entry's identity, borrowed.
struct Identity<'a> {
    manager: &'a str,
    operation: &'a str,
    api_version: &'a str,
    time: Option<&'a str>,
    subresource: &'a str,
}

impl Identity<'_> {
    /// The entry as it is stored, in upstream's field order, with `fields`
    /// as its FieldsV1.
    fn entry(&self, fields: Value) -> Value {
        let text = |s: &str| Value::String(s.into());
        let mut m = Vec::with_capacity(7);
        m.push(("manager".into(), text(self.manager)));
        m.push(("operation".into(), text(self.operation)));
        m.push(("apiVersion".into(), text(self.api_version)));
        if let Some(t) = self.time {
            m.push(("time".into(), text(t)));
        }
        m.push(("fieldsType".into(), text("FieldsV1")));
        m.push(("fieldsV1".into(), fields));
        if !self.subresource.is_empty() {
            m.push(("subresource".into(), text(self.subresource)));
        }
        Value::Object(Map::from_distinct(m))
    }
}

/// `metadata.managedFields`, read by key (a pointer parses its path on
/// every read, and every write reads it two or three times).
fn managed_fields(obj: &Value) -> Option<&Value> {
    obj.get("metadata")?.get("managedFields")
}

/// Reads `metadata.managedFields`.
pub fn managers(obj: &Value) -> Vec<Manager> {
    managed_fields(obj).and_then(Value::as_array).into_iter().flatten().filter_map(|e| manager_of(e, true)).collect()
}

/// One entry's identity, and its set when `with_set`.
fn manager_of(e: &Value, with_set: bool) -> Option<Manager> {
    let s = |k: &str| e.get(k).and_then(Value::as_str).map(str::to_string);
    let fields = e.get("fieldsV1").unwrap_or(&Value::Null);
    Some(Manager {
        manager: s("manager")?,
        operation: s("operation").unwrap_or_else(|| "Update".into()),
        api_version: s("apiVersion").unwrap_or_default(),
        time: s("time"),
        subresource: s("subresource").unwrap_or_default(),
        set: if with_set { Set::from_fields_v1(fields) } else { Set::default() },
    })
}

fn write_managers(obj: &mut Value, list: &[Manager]) {
    let Some(m) = obj.get_mut("metadata").and_then(Value::as_object_mut) else { return };
    if list.is_empty() {
        m.shift_remove("managedFields");
    } else {
        m.insert("managedFields".into(), Value::Array(list.iter().map(Manager::to_json).collect()));
    }
}

/// Fields nobody manages: identity and bookkeeping the server owns.
fn stripped(path: &Path, status_write: bool, has_status_subresource: bool) -> bool {
    let first = match path.first() {
        Some(PathElement::Field(f)) => f.as_str(),
        _ => return false,
    };
    let second = match path.get(1) {
        None => Second::None,
        Some(PathElement::Field(f)) => Second::Field(f.as_str()),
        Some(_) => Second::NotAField,
    };
    stripped_field(first, second, status_write, has_status_subresource)
}

/// A path's second element, as `stripped_field` asks about it.
#[derive(Clone, Copy)]
enum Second<'a> {
    /// The path has one element.
    None,
    /// A field name.
    Field(&'a str),
    /// A map key, a list item's key or value, or an index.
    NotAField,
}

/// `stripped` for a path that starts with the field `first`.
fn stripped_field(first: &str, second: Second<'_>, status_write: bool, has_status_subresource: bool) -> bool {
    if status_write {
        return first != "status";
    }
    if first == "apiVersion" || first == "kind" || (first == "status" && has_status_subresource) {
        return true;
    }
    if first == "metadata" {
        let f = match second {
            Second::None => return true,
            Second::NotAField => return false,
            Second::Field(f) => f,
        };
        return matches!(
            f,
            "name"
                | "namespace"
                | "uid"
                | "resourceVersion"
                | "generation"
                | "creationTimestamp"
                | "managedFields"
                | "selfLink"
                | "deletionTimestamp"
                | "deletionGracePeriodSeconds"
        );
    }
    false
}

fn strip(set: &Set, status_write: bool, has_status: bool) -> Set {
    Set(set.0.iter().filter(|p| !stripped(p, status_write, has_status)).cloned().collect())
}

/// As `strip`, in place.
fn strip_owned(mut set: Set, status_write: bool, has_status: bool) -> Set {
    set.0.retain(|p| !stripped(p, status_write, has_status));
    set
}

/// Who is writing, and how.
pub struct Writer<'a> {
    /// The kind's schema (None: any JSON).
    pub schema: Option<&'a Value>,
    pub api_version: String,
    pub manager: &'a str,
    pub subresource: &'a str,
    pub has_status_subresource: bool,
    pub now: &'a str,
}

impl<'a> Writer<'a> {
    fn schema(&self) -> Option<&'a Value> {
        self.schema
    }
}

/// The managed fields after an Update (POST, PUT, non-apply PATCH) from
/// `old` (None for a create) to `new`, written into `new`. A body that
/// carried managedFields decides them: `[{}]` clears them, a list of
/// entries replaces them, and the write itself is then not recorded.
pub fn record_update(w: &Writer, old: Option<&Value>, new: &mut Value) {
    let sent = managed_fields(new);
    let unchanged = sent == old.and_then(managed_fields);
    match sent.and_then(Value::as_array) {
        Some(list) if list.len() == 1 && list[0].as_object().is_some_and(Map::is_empty) => {
            write_managers(new, &[]);
            return;
        }
        // Entries the client changed are taken as they are.
        Some(list) if !list.is_empty() && !unchanged => return,
        _ => {}
    }
    let status_write = w.subresource == "status";
    if old.is_none() {
        // A create: everything the object sets is this manager's; written
        // straight into FieldsV1 (the general path below gives the same).
        let keep = |field: &str, meta: Option<&str>| match meta {
            None => field == "metadata" || !stripped_field(field, Second::None, status_write, w.has_status_subresource),
            Some(m) => !stripped_field("metadata", Second::Field(m), status_write, w.has_status_subresource),
        };
        let fields = typed::added_fields_v1(schemas(), w.schema(), new, &keep);
        if fields.as_object().is_some_and(|m| !m.is_empty()) {
            let entry = Identity {
                manager: w.manager,
                operation: "Update",
                api_version: &w.api_version,
                time: Some(w.now),
                subresource: w.subresource,
            };
            let json = entry.entry(fields);
            if let Some(m) = new.get_mut("metadata").and_then(Value::as_object_mut) {
                m.insert("managedFields".into(), Value::Array(vec![json]));
            }
        } else {
            write_managers(new, &[]);
        }
        return;
    }
    let (changed, removed) = typed::compare(schemas(), w.schema(), old, Some(new)).into_changed_removed();
    let changed = strip_owned(changed, status_write, w.has_status_subresource);
    let removed = strip_owned(removed, status_write, w.has_status_subresource);
    let me = Manager {
        manager: w.manager.to_string(),
        operation: "Update".into(),
        api_version: w.api_version.to_string(),
        time: None,
        subresource: w.subresource.to_string(),
        set: Set::default(),
    };
    // Another manager's entry this write does not touch is kept as it is
    // stored (read in place, never decoded and written again).
    let touched: Vec<&Path> = changed.iter().chain(removed.iter()).collect();
    let mut entries: Vec<Entry> = Vec::new();
    // The entries as stored: when the request carried them unchanged they
    // are taken from it (moved, not copied), else read from the old object.
    let sent_entries: Option<Vec<Value>> = if unchanged {
        new.pointer_mut("/metadata/managedFields").and_then(Value::as_array_mut).map(std::mem::take)
    } else {
        None
    };
    let stored: Vec<std::borrow::Cow<Value>> = match sent_entries {
        Some(list) => list.into_iter().map(std::borrow::Cow::Owned).collect(),
        None => old
            .and_then(managed_fields)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(std::borrow::Cow::Borrowed)
            .collect(),
    };
    for raw in stored {
        let Some(mut m) = manager_of(&raw, false) else { continue };
        let fields = raw.get("fieldsV1").unwrap_or(&Value::Null);
        if m.same_identity(&me) {
            // The writer's own entry: its FieldsV1 gains what changed and
            // loses what was removed in place (no set decoded and written
            // again); its time moves only when its set changed.
            let mut fields = match raw {
                std::borrow::Cow::Owned(mut v) => v.get_mut("fieldsV1").map(Value::take).unwrap_or(Value::Null),
                std::borrow::Cow::Borrowed(v) => v.get("fieldsV1").cloned().unwrap_or(Value::Null),
            };
            let mut grew_or_shrank = false;
            for p in changed.iter() {
                grew_or_shrank |= Set::fields_v1_add(&mut fields, p);
            }
            for p in removed.iter() {
                grew_or_shrank |= Set::fields_v1_remove(&mut fields, p);
            }
            Set::sort_fields_v1(&mut fields);
            if grew_or_shrank {
                m.time = Some(w.now.to_string());
            }
            entries.push(Entry::Mine(m, fields));
            continue;
        }
        if !touched.iter().any(|p| Set::fields_v1_contains(fields, p)) {
            if !Set::fields_v1_is_empty(fields) {
                entries.push(Entry::Kept(raw.into_owned()));
            }
            continue;
        }
        m.set = Set::from_fields_v1(fields).difference(&changed).difference(&removed);
        entries.push(Entry::Decoded(m));
    }
    // A writer without an entry yet gets one for what it changed.
    if !changed.is_empty() && !entries.iter().any(|e| matches!(e, Entry::Mine(..))) {
        entries.push(Entry::Decoded(Manager { set: changed, time: Some(w.now.to_string()), ..me }));
    }
    let list: Vec<Value> = entries
        .into_iter()
        .filter_map(|e| match e {
            Entry::Kept(raw) => Some(raw),
            Entry::Decoded(m) if !m.set.is_empty() => Some(m.to_json()),
            Entry::Decoded(_) => None,
            Entry::Mine(_, fields) if Set::fields_v1_is_empty(&fields) => None,
            Entry::Mine(m, fields) => {
                let mut json = m.to_json();
                json["fieldsV1"] = fields;
                Some(json)
            }
        })
        .collect();
    let list = cap_update_managers(list, MAX_UPDATE_MANAGERS);
    if let Some(m) = new.get_mut("metadata").and_then(Value::as_object_mut) {
        if list.is_empty() {
            m.shift_remove("managedFields");
        } else {
            m.insert("managedFields".into(), Value::Array(list));
        }
    }
}

/// How many Update entries an object keeps (upstream's
/// `DefaultMaxUpdateManagers`); Apply entries are not counted.
pub const MAX_UPDATE_MANAGERS: usize = 10;

/// The manager the oldest Update entries are merged into when there are
/// too many.
const ANCIENT_CHANGES: &str = "ancient-changes";

/// Keeps at most `max` Update entries, as upstream's field manager does
/// after every Update: oldest first (by the second of their time, then by
/// their identity), the second and later entries of an apiVersion are
/// merged into that version's `ancient-changes` entry (the first of the
/// version becomes it, unless it exists already), which takes the time of
/// the last entry merged, until `max` are left.
fn cap_update_managers(mut list: Vec<Value>, max: usize) -> Vec<Value> {
    let field = |e: &Value, k: &str| e.get(k).and_then(Value::as_str).unwrap_or("").to_string();
    let is_update = |e: &Value| e.get("operation").and_then(Value::as_str) != Some("Apply");
    let mut updaters: Vec<usize> = (0..list.len()).filter(|&i| is_update(&list[i])).collect();
    if updaters.len() <= max {
        return list;
    }
    // Upstream's manager identifier: the entry's identity as JSON.
    let identity = |e: &Value| {
        let mut m = Map::new();
        for k in ["manager", "operation", "apiVersion", "subresource"] {
            if let Some(v) = e.get(k).filter(|v| v.as_str().is_some_and(|s| !s.is_empty())) {
                m.insert(k.into(), v.clone());
            }
        }
        Value::Object(m).to_string()
    };
    let seconds =
        |e: &Value| e.get("time").and_then(Value::as_str).and_then(crate::clock::parse_rfc3339).unwrap_or(0) / 1000;
    let keys: Vec<(i64, String)> = list.iter().map(|e| (seconds(e), identity(e))).collect();
    updaters.order_by(|&a, &b| keys[a].cmp(&keys[b]));
    let is_bucket = |e: &Value, version: &str| {
        field(e, "manager") == ANCIENT_CHANGES
            && is_update(e)
            && field(e, "apiVersion") == version
            && field(e, "subresource").is_empty()
    };
    let mut first_of_version: Vec<(String, usize)> = Vec::new();
    let mut gone = vec![false; list.len()];
    let mut length = updaters.len();
    for &i in &updaters {
        if length <= max {
            break;
        }
        let version = field(&list[i], "apiVersion");
        let Some(&(_, first)) = first_of_version.iter().find(|(v, _)| *v == version) else {
            first_of_version.push((version, i));
            continue;
        };
        let bucket = match (0..list.len()).find(|&j| !gone[j] && is_bucket(&list[j], &version)) {
            Some(b) => b,
            None => {
                let e = &mut list[first];
                e["manager"] = json!(ANCIENT_CHANGES);
                if let Some(m) = e.as_object_mut() {
                    m.shift_remove("subresource");
                }
                first
            }
        };
        let merged = Set::from_fields_v1(list[i].get("fieldsV1").unwrap_or(&Value::Null))
            .union(&Set::from_fields_v1(list[bucket].get("fieldsV1").unwrap_or(&Value::Null)));
        let time = list[i].get("time").cloned();
        let b = &mut list[bucket];
        b["fieldsV1"] = merged.to_fields_v1();
        if let Some(m) = b.as_object_mut() {
            match time {
                Some(t) => m.insert("time".into(), t),
                None => m.shift_remove("time"),
            };
        }
        gone[i] = true;
        length -= 1;
    }
    list.into_iter().zip(gone).filter(|(_, g)| !g).map(|(e, _)| e).collect()
}

/// A `managedFields` entry through an Update: kept as stored, decoded, or
/// the writer's own with its FieldsV1 edited in place.
enum Entry {
    Kept(Value),
    Decoded(Manager),
    Mine(Manager, Value),
}

/// Server-side apply of `config` onto `live` (None: the object does not
/// exist yet). Returns the object to store, managed fields included, or
/// the 409 listing every conflict.
pub fn apply(w: &Writer, live: Option<&Value>, config: &Value, force: bool) -> Result<Value, Status> {
    let s = schemas();
    let schema = w.schema();
    let empty = json!({});
    let live_v = live.unwrap_or(&empty);
    let mut list = live.map(managers).unwrap_or_default();
    // An apply to `/status` owns status fields only; to the object, all
    // but the status (when it has a status subresource).
    let status_write = w.subresource == "status";
    let config_set = strip(&typed::to_set(s, schema, config), status_write, w.has_status_subresource);
    let mut merged = typed::merge(s, schema, live_v, config);
    let cmp = typed::compare(s, schema, live, Some(&merged));
    let changed = strip(&cmp.changed(), status_write, w.has_status_subresource);
    let me = Manager {
        manager: w.manager.to_string(),
        operation: "Apply".into(),
        api_version: w.api_version.to_string(),
        time: Some(w.now.to_string()),
        subresource: w.subresource.to_string(),
        set: config_set.clone(),
    };
    // Conflicts: fields this apply changes that others own.
    let mut conflicts: Vec<(String, Path)> = Vec::new();
    for m in list.iter().filter(|m| !m.same_identity(&me)) {
        for p in m.set.intersection(&changed).iter() {
            conflicts.push((m.conflict_name(), p.clone()));
        }
    }
    if !conflicts.is_empty() && !force {
        return Err(conflict_status(&conflicts));
    }
    for m in list.iter_mut().filter(|m| !m.same_identity(&me)) {
        m.set = m.set.difference(&changed);
    }
    // What this manager applied before and no longer does, nobody else owns.
    let last = list.iter().find(|m| m.same_identity(&me)).map(|m| m.set.clone()).unwrap_or_default();
    let others = list.iter().filter(|m| !m.same_identity(&me)).fold(Set::default(), |acc, m| acc.union(&m.set));
    let owned = config_set.union(&others);
    // A node still holding owned fields stays (only its unowned parts go).
    let gone = Set(last.difference(&owned).0.into_iter().filter(|p| !owned.iter().any(|o| o.starts_with(p))).collect());
    if !gone.is_empty() {
        typed::remove(s, schema, &mut merged, &gone);
    }
    match list.iter().position(|m| m.same_identity(&me)) {
        Some(i) => list[i] = me,
        None => list.push(me),
    }
    list.retain(|m| !m.set.is_empty());
    write_managers(&mut merged, &list);
    Ok(merged)
}

fn conflict_status(conflicts: &[(String, Path)]) -> Status {
    let message = if conflicts.len() == 1 {
        format!("Apply failed with 1 conflict: conflict with {}: {}", conflicts[0].0, display(&conflicts[0].1))
    } else {
        let mut managers: Vec<&String> = conflicts.iter().map(|(m, _)| m).collect();
        managers.order();
        managers.dedup();
        let mut lines = Vec::new();
        for m in managers {
            lines.push(format!("conflicts with {m}:"));
            for (_, p) in conflicts.iter().filter(|(x, _)| x == m) {
                lines.push(format!("- {}", display(p)));
            }
        }
        format!("Apply failed with {} conflicts: {}", conflicts.len(), lines.join("\n"))
    };
    let mut st = Status::failure(409, "Conflict", message);
    st.details = Some(crate::api::status::StatusDetails {
        causes: conflicts
            .iter()
            .map(|(m, p)| StatusCause {
                reason: "FieldManagerConflict".into(),
                message: format!("conflict with {m}"),
                field: display(p),
            })
            .collect(),
        ..Default::default()
    });
    st
}

/// The field manager of a request without `fieldManager`: the User-Agent
/// up to its first `/`, as upstream derives it.
pub fn manager_from_user_agent(user_agent: Option<&str>) -> String {
    let prefix = user_agent.unwrap_or("").split('/').next().unwrap_or("");
    let prefix: String = prefix.chars().take(128).collect();
    if prefix.is_empty() {
        "unknown".into()
    } else {
        prefix
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CM: &str = "io.k8s.api.core.v1.ConfigMap";

    fn writer<'a>(manager: &'a str) -> Writer<'a> {
        Writer {
            schema: schemas().definition(CM),
            api_version: "v1".into(),
            manager,
            subresource: "",
            has_status_subresource: false,
            now: "2023-11-14T22:13:20Z",
        }
    }

    /// The fields nobody manages: the server's metadata and the type's
    /// identity; status where it has its own subresource; on a status
    /// write, everything but status.
    #[test]
    fn the_server_owned_fields_are_stripped() {
        let path = |parts: &[&str]| -> Path { parts.iter().map(|p| PathElement::Field(p.to_string())).collect() };
        let strip = |p: &Path| stripped(p, false, false);
        assert!(strip(&path(&["metadata"])));
        assert!(strip(&path(&["metadata", "name"])));
        assert!(strip(&path(&["metadata", "managedFields"])));
        assert!(!strip(&path(&["metadata", "labels"])));
        assert!(!strip(&path(&["metadata", "labels", "app"])));
        let keyed = vec![PathElement::Field("metadata".into()), PathElement::Value("\"x\"".into())];
        assert!(!strip(&keyed));
        assert!(strip(&path(&["kind"])) && strip(&path(&["apiVersion"])));
        assert!(!strip(&path(&["data", "k"])));
        assert!(!strip(&path(&["status", "phase"])));
        assert!(stripped(&path(&["status", "phase"]), false, true));
        assert!(stripped(&path(&["spec", "replicas"]), true, true));
        assert!(!stripped(&path(&["status", "phase"]), true, true));
    }

    #[test]
    fn updates_record_what_they_changed() {
        let mut new = json!({"metadata": {"name": "a", "labels": {"x": "1"}}, "data": {"k": "v"}});
        record_update(&writer("kubectl-create"), None, &mut new);
        let mf = &new["metadata"]["managedFields"][0];
        assert_eq!(mf["manager"], "kubectl-create");
        assert_eq!(mf["operation"], "Update");
        assert_eq!(
            mf["fieldsV1"],
            json!({"f:data": {".": {}, "f:k": {}}, "f:metadata": {"f:labels": {".": {}, "f:x": {}}}})
        );
        // Another manager changing one field takes it over.
        let old = new.clone();
        let mut next = old.clone();
        next["data"]["k"] = json!("w");
        record_update(&writer("kubectl-edit"), Some(&old), &mut next);
        let list = managers(&next);
        assert_eq!(list.len(), 2);
        assert!(!list[0].set.contains(&vec![PathElement::Field("data".into()), PathElement::Field("k".into())]));
        assert_eq!(list[1].set.to_fields_v1(), json!({"f:data": {"f:k": {}}}));
    }

    #[test]
    fn apply_conflicts_then_force_then_removal_of_dropped_fields() {
        let mut live = json!({"metadata": {"name": "a"}, "data": {"k": "v"}});
        record_update(&writer("editor"), None, &mut live);
        let cfg = json!({"metadata": {"name": "a"}, "data": {"k": "mine", "n": "1"}});
        let err = apply(&writer("applier"), Some(&live), &cfg, false).unwrap_err();
        assert_eq!(err.code, 409);
        assert_eq!(err.message, r#"Apply failed with 1 conflict: conflict with "editor" using v1: .data.k"#);
        let forced = apply(&writer("applier"), Some(&live), &cfg, true).unwrap();
        assert_eq!(forced["data"], json!({"k": "mine", "n": "1"}));
        // Applying the same value someone else set is shared ownership, no conflict.
        let shared = apply(&writer("second"), Some(&forced), &json!({"data": {"n": "1"}}), false).unwrap();
        // The applier stops applying n: the other applier still owns it, so it stays.
        let again = apply(&writer("applier"), Some(&shared), &json!({"data": {"k": "mine"}}), false).unwrap();
        assert_eq!(again["data"], json!({"k": "mine", "n": "1"}));
        // ...and k goes once its only owner stops applying it.
        let dropped = apply(&writer("applier"), Some(&again), &json!({"data": {}}), false).unwrap();
        assert_eq!(dropped["data"], json!({"n": "1"}));
    }

    #[test]
    fn dropping_a_map_node_keeps_the_entries_still_applied() {
        // kubectl's upgrade from client-side apply hands the applier `.data`
        // itself as well as `.data.k`; applying only `k` keeps the map.
        let mut live = json!({"metadata": {"name": "a"}, "data": {"k": "v"}});
        let mut owned = Set::default();
        owned.insert(vec![PathElement::Field("data".into())]);
        owned.insert(vec![PathElement::Field("data".into()), PathElement::Field("k".into())]);
        let entry = Manager {
            manager: "kubectl".into(),
            operation: "Apply".into(),
            api_version: "v1".into(),
            time: None,
            subresource: String::new(),
            set: owned,
        };
        write_managers(&mut live, &[entry]);
        let out = apply(&writer("kubectl"), Some(&live), &json!({"data": {"k": "v"}}), false).unwrap();
        assert_eq!(out["data"], json!({"k": "v"}));
    }

    #[test]
    fn managed_fields_are_cleared_with_one_empty_entry() {
        let mut live = json!({"metadata": {"name": "a"}, "data": {"k": "v"}});
        record_update(&writer("m"), None, &mut live);
        let mut next = live.clone();
        next["metadata"]["managedFields"] = json!([{}]);
        record_update(&writer("m"), Some(&live), &mut next);
        assert!(next["metadata"].get("managedFields").is_none());
    }

    #[test]
    fn a_creates_fields_written_directly_equal_the_general_comparison() {
        let objects = [
            (
                "io.k8s.api.core.v1.ConfigMap",
                true,
                json!({"apiVersion": "v1", "kind": "ConfigMap",
                "metadata": {"name": "a", "namespace": "d", "uid": "u", "labels": {"x": "1"}, "finalizers": ["f", "g"], "annotations": {}},
                "data": {"k": "v", "e": ""}, "binaryData": {}}),
            ),
            (
                "io.k8s.api.apps.v1.Deployment",
                true,
                json!({"apiVersion": "apps/v1", "kind": "Deployment",
                "metadata": {"name": "d", "generation": 1, "creationTimestamp": "T"},
                "spec": {"replicas": 2, "selector": {"matchLabels": {"a": "b"}}, "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%"}},
                         "template": {"metadata": {"labels": {"a": "b"}}, "spec": {"containers": [
                             {"name": "c", "image": "i", "args": ["x"], "env": [{"name": "E", "value": "1"}, {"name": "E", "value": "dup"}],
                              "ports": [{"containerPort": 80, "protocol": "TCP"}], "resources": {}}], "securityContext": {}}}},
                "status": {"replicas": 1}}),
            ),
            (
                "io.k8s.api.core.v1.Service",
                true,
                json!({"metadata": {"name": "s"}, "spec": {"ports": [{"port": 53, "protocol": "UDP"}, {"port": 53, "protocol": "TCP"}], "selector": {"a": "b"}, "clusterIPs": ["10.0.0.1"]}}),
            ),
            (
                "io.k8s.api.core.v1.Pod",
                true,
                json!({"metadata": {"name": "p"}, "spec": {"tolerations": [{"key": "k"}], "containers": [{"name": "c"}]}, "unknownField": 1}),
            ),
        ];
        for (def, has_status, obj) in objects {
            let w = Writer {
                schema: schemas().definition(def),
                api_version: "v1".into(),
                manager: "m",
                subresource: "",
                has_status_subresource: has_status,
                now: "T",
            };
            let mut fast = obj.clone();
            record_update(&w, None, &mut fast);
            // A create starts from the kind's zero value: an empty root
            // that holds its zero fields.
            let cmp = typed::compare(schemas(), schemas().definition(def), Some(&json!({})), Some(&obj));
            let general = strip(&cmp.changed(), false, has_status).to_fields_v1();
            assert_eq!(fast["metadata"]["managedFields"][0]["fieldsV1"], general, "{def}");
            // In the same key order too (map equality ignores it).
            let text = |v: &Value| serde_json::to_string(v).unwrap();
            assert_eq!(text(&fast["metadata"]["managedFields"][0]["fieldsV1"]), text(&general), "{def}");
        }
    }

    #[test]
    fn managers_from_user_agents() {
        assert_eq!(manager_from_user_agent(Some("kubectl/v1.33.0 (linux/amd64) kubernetes/abc")), "kubectl");
        assert_eq!(manager_from_user_agent(None), "unknown");
    }
}
