//! A strategy per kind: what is special about it, behind one trait, as
//! upstream's `rest.RESTCreateStrategy`/`RESTUpdateStrategy`/
//! `TableConvertor` and `GetAttrs`. The generic store calls these hooks at
//! fixed points of every verb; every hook defaults to "nothing special", so
//! a kind with no rules uses `DefaultStrategy`, and a kind known only at run
//! time (a CustomResourceDefinition) supplies an `Arc<dyn Strategy>` built
//! from its definition. Nothing in the generic flow names a kind.
//!
//! The order the store calls them in, on create:
//! `defaults` → (the writer's managed fields recorded, as upstream's field
//! manager does before the strategy runs: what the hooks after this add is
//! no one's) → status reset to `initial_status` (kinds with a status
//! subresource) → `prepare_for_create` → `validate` → `validate_create` →
//! `allocate`;
//! on an update of the main resource: `defaults` → `prepare_for_update` →
//! `validate` → `validate_update`; on a graceful delete: `prepare_for_delete`.

use std::borrow::Cow;
use std::ops::Deref;
use std::sync::Arc;

use serde_json::{Map, Value};

use super::options::GcPolicy;
use super::table::{self, Column};
use crate::api::{FieldError, Status};
use crate::clock::{SeededRng, SimTime};

/// A field a field selector may name (beyond `metadata.name` and
/// `metadata.namespace`), where its value is read, and what an absent value
/// reads as (Go's zero value).
#[derive(Clone, Debug)]
pub struct SelectableField {
    pub name: Cow<'static, str>,
    /// The dotted path the value is read from (usually the name itself).
    pub path: Cow<'static, str>,
    pub zero: Cow<'static, str>,
}

impl SelectableField {
    pub const fn new(name: &'static str, zero: &'static str) -> SelectableField {
        SelectableField { name: Cow::Borrowed(name), path: Cow::Borrowed(name), zero: Cow::Borrowed(zero) }
    }

    /// A field read from another path than its name.
    pub const fn at(name: &'static str, path: &'static str, zero: &'static str) -> SelectableField {
        SelectableField { name: Cow::Borrowed(name), path: Cow::Borrowed(path), zero: Cow::Borrowed(zero) }
    }
}

/// What an allocating strategy can see: the seeded source, every object
/// of its resource stored now (what is already allocated), and the ranges
/// the API server hands addresses and ports out of.
pub struct Allocation<'a> {
    pub rng: &'a mut SeededRng,
    pub existing: &'a dyn Fn() -> Vec<Value>,
    pub ranges: &'a crate::network::ServiceRanges,
}

pub trait Strategy: Send + Sync {
    /// Fills in the fields a client left out (upstream's `SetDefaults_*`,
    /// applied as the request is decoded; admission's are `admit`'s).
    fn defaults(&self, _obj: &mut Map<String, Value>) {}

    /// What the cluster's mutating admission adds that needs nothing but
    /// the object (a pod's service account and tolerations): after the
    /// writer's managed fields are recorded on a create, so no one owns
    /// it, as upstream's admission runs after the field manager.
    fn admit(&self, _obj: &mut Map<String, Value>) {}

    /// What admission adds to a new object only, after `admit` (the
    /// StorageObjectInUseProtection finalizers of claims and volumes).
    fn admit_create(&self, _obj: &mut Map<String, Value>) {}

    /// The status a new object starts with, for kinds with a status
    /// subresource: clients cannot create an object with a status. Null:
    /// none at all (a custom resource's).
    fn initial_status(&self, _obj: &Map<String, Value>) -> Value {
        Value::Object(Map::new())
    }

    /// Reads are defaulted too (`defaults` applied to what storage holds,
    /// as upstream's decoding from etcd defaults custom resources).
    fn defaults_on_read(&self) -> bool {
        false
    }

    /// Whether the kind's quantities are left as sent for its validation
    /// to name them as written (upstream prints the decoded `Quantity`
    /// there, which remembers some of the text), its `defaults` writing
    /// the valid ones canonical itself.
    fn keeps_quantities(&self) -> bool {
        false
    }

    /// What a write of this object should tell its client (upstream's
    /// `WarningsOnCreate`/`WarningsOnUpdate`): sent as `Warning` headers.
    fn warnings(&self, _obj: &Value) -> Vec<String> {
        Vec::new()
    }

    /// Other fields set on create, after defaulting (`PrepareForCreate`).
    fn prepare_for_create(&self, _obj: &mut Map<String, Value>) {}

    /// Fields carried over from the stored object on an update of the main
    /// resource (`PrepareForUpdate`), after defaulting.
    fn prepare_for_update(&self, _new: &mut Value, _old: &Value) {}

    /// What a write of the status subresource sets itself at `now` (a
    /// volume's phase transition time: the status strategy's
    /// `PrepareForUpdate`).
    fn prepare_for_status_update(&self, _new: &mut Value, _old: &Value, _now: SimTime) {}

    /// The metadata fields a status update (`/status`) keeps from the stored
    /// object; the rest of the metadata comes from the request, as
    /// upstream's status strategies let it (the Deployment controller
    /// writes its revision annotation that way).
    fn metadata_kept_on_status_update(&self) -> &'static [&'static str] {
        &[]
    }

    /// The `/scale`'s `status.selector` of a built-in: its
    /// `spec.selector`, a LabelSelector, as a selector string.
    fn scale_selector(&self, obj: &Value) -> String {
        crate::selector::label_selector_string(obj.pointer("/spec/selector"))
    }

    /// Where a custom resource's `/scale` reads and writes (its
    /// definition's `specReplicasPath`, `statusReplicasPath` and
    /// `labelSelectorPath`, dotted, without the leading dot); None: the
    /// built-in kinds' `spec.replicas`, `status.replicas` and
    /// `spec.selector`.
    fn scale_paths(&self) -> Option<(&str, &str, Option<&str>)> {
        None
    }

    /// Why every create is refused for now, as a 403's reason (a custom
    /// resource whose definition is being deleted).
    fn create_forbidden(&self) -> Option<&str> {
        None
    }

    /// Why a DELETE of the object named `name` is refused, as a 403's
    /// reason (the system priority classes). A delete of the collection
    /// does not ask, as upstream's store does not.
    fn delete_forbidden(&self, _name: &str) -> Option<&'static str> {
        None
    }

    /// Every problem with the object's own fields (metadata is checked by
    /// the store), worded as upstream's validation words them.
    fn validate(&self, _obj: &Value) -> Vec<FieldError> {
        Vec::new()
    }

    /// What only a create must satisfy, beyond `validate` (which both
    /// create and update check).
    fn validate_create(&self, _obj: &Value) -> Vec<FieldError> {
        Vec::new()
    }

    /// What an update may not change, beyond what `validate` checks of the
    /// new object (`ValidateUpdate`'s immutable fields).
    fn validate_update(&self, _new: &Value, _old: &Value) -> Vec<FieldError> {
        Vec::new()
    }

    /// What a write of a pod's `/ephemeralcontainers` must satisfy beyond
    /// `validate` (the main resource's update rules are not asked there).
    fn validate_ephemeral_containers_update(&self, _new: &Value, _old: &Value) -> Vec<FieldError> {
        Vec::new()
    }

    /// What a write of a pod's `/resize` must satisfy beyond `validate`.
    fn validate_resize_update(&self, _new: &Value, _old: &Value) -> Vec<FieldError> {
        Vec::new()
    }

    /// What a write of the status (`/status`) must satisfy; the main
    /// resource's rules are not asked there.
    fn validate_status_update(&self, _new: &Value, _old: &Value) -> Vec<FieldError> {
        Vec::new()
    }

    /// Values drawn from a shared range on create (cluster IPs, node
    /// ports), or the reasons a requested one cannot be had (field errors,
    /// a 422), or the error of a range with nothing left (upstream's 500).
    fn allocate(&self, _obj: &mut Value, _allocation: &mut Allocation<'_>) -> Result<Vec<FieldError>, Status> {
        Ok(Vec::new())
    }

    /// The fields selectors may name, beyond the metadata ones.
    fn selectable_fields(&self) -> &[SelectableField] {
        &[]
    }

    /// Whether the object waits on finalizers other than
    /// `metadata.finalizers` before it can go (a namespace's
    /// `spec.finalizers`).
    fn has_pending_finalizers(&self, _obj: &Value) -> bool {
        false
    }

    /// Whether the kind's own delete checks DeleteOptions preconditions
    /// before the generic store does, in the storage layer's words on the
    /// resource (`Precondition failed: UID in precondition: …`), as
    /// upstream's namespace storage does; otherwise the generic store's
    /// `BeforeDelete` words them, on the kind.
    fn own_delete_preconditions(&self) -> bool {
        false
    }

    /// What a delete that names no propagation policy does to dependents
    /// (upstream's `DefaultGarbageCollectionPolicy`).
    fn gc_policy(&self) -> GcPolicy {
        GcPolicy::DeleteDependents
    }

    /// The warning a delete naming no policy gets, for a kind whose
    /// dependents are orphaned by default.
    fn orphan_by_default_warning(&self) -> Option<&'static str> {
        None
    }

    /// How many seconds a DELETE gives the object before it goes
    /// (upstream's `CheckGracefulDelete`): `requested` is the
    /// DeleteOptions' `gracePeriodSeconds`. Zero, for most kinds: deleted
    /// at once (finalizers aside).
    fn grace_period(&self, _obj: &Value, _requested: Option<i64>) -> i64 {
        0
    }

    /// What changes when a graceful deletion begins, besides the
    /// deletionTimestamp (a namespace turns Terminating).
    fn prepare_for_delete(&self, _obj: &mut Value) {}

    /// The Table columns (the default table unless the kind has a printer).
    fn columns(&self) -> &[Column] {
        table::DEFAULT_COLUMNS
    }

    /// The kind's schema, for a kind whose schema is not among the
    /// generated ones (a custom resource's, from its definition): as a
    /// generated definition is written (`$ref`s by definition name).
    fn schema(&self) -> Option<&Value> {
        None
    }

    /// The schema the OpenAPI documents publish for such a kind (its
    /// definition's, before the server's own normalizing).
    fn published_schema(&self) -> Option<&Value> {
        self.schema()
    }

    /// One row's cells, matching `columns`.
    fn cells(&self, obj: &Value, _now: SimTime) -> Vec<Value> {
        table::default_cells(obj)
    }

    /// A row's conditions (upstream marks finished pods `Completed`).
    fn row_conditions(&self, _obj: &Value) -> Option<Value> {
        None
    }
}

/// The strategy of a kind with no special rules.
pub struct DefaultStrategy;

impl Strategy for DefaultStrategy {}

/// A kind's strategy: a static one for built-in kinds, a shared one for
/// kinds defined at run time.
#[derive(Clone)]
pub enum StrategyRef {
    Static(&'static dyn Strategy),
    Shared(Arc<dyn Strategy>),
}

impl Deref for StrategyRef {
    type Target = dyn Strategy;

    fn deref(&self) -> &(dyn Strategy + 'static) {
        match self {
            StrategyRef::Static(s) => *s,
            StrategyRef::Shared(s) => s.as_ref(),
        }
    }
}

impl std::fmt::Debug for StrategyRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            StrategyRef::Static(_) => "StrategyRef::Static",
            StrategyRef::Shared(_) => "StrategyRef::Shared",
        })
    }
}

/// Sets `key` to `value` when absent (or null): the building block of
/// defaulting.
pub fn default(m: &mut Map<String, Value>, key: &str, value: Value) {
    if m.get(key).is_none_or(Value::is_null) {
        m.insert(key.into(), value);
    }
}

/// The object at `key`, when it is one.
pub fn object<'a>(m: &'a mut Map<String, Value>, key: &str) -> Option<&'a mut Map<String, Value>> {
    m.get_mut(key).and_then(Value::as_object_mut)
}

/// The object at `key`, created empty when absent.
pub fn object_or_empty<'a>(m: &'a mut Map<String, Value>, key: &str) -> Option<&'a mut Map<String, Value>> {
    default(m, key, Value::Object(Map::new()));
    object(m, key)
}
