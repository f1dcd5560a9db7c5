//! What the registry serves: a `ResourceType` per resource (its names,
//! scope, verbs, subresources and strategy), and the `Catalog` that finds
//! one by URL or by kind. Built-in kinds come from the table in `kinds.rs`;
//! a resource defined at run time is registered the same way, with a
//! strategy built from its definition.

use std::borrow::Cow;
use std::sync::Arc;

use serde_json::Value;

use super::options::Verb;
use super::strategy::StrategyRef;
use crate::api::meta::NameRule;
use crate::api::{gvk, GroupVersionKind, GroupVersionResource, StoredObject};

/// How the objects of a resource served over another's storage convert
/// between the form its clients see and the form stored (upstream's
/// conversion to and from the storage version, for cohabiting
/// resources). Both directions set `apiVersion` and `kind`.
pub trait Conversion: Send + Sync {
    /// The client's form → the stored one.
    fn to_storage(&self, obj: Value) -> Value;
    /// The stored form → the client's.
    fn to_served(&self, obj: Value) -> Value;
    /// A field selector's label in the client's form → the stored form's
    /// (which the stored objects' attributes carry), or `None` when the
    /// version does not support it.
    fn field_label<'a>(&self, label: &'a str) -> Option<Cow<'a, str>>;
}

/// Where the objects of a resource live when another resource's storage
/// holds them (events.k8s.io/v1 Events are core/v1 Events under one key,
/// as kube-apiserver's cohabiting resources share an etcd key), and how
/// they convert.
/// (A custom resource's versions other than its storage version convert
/// too, over their own storage: only `apiVersion` changes.)
#[derive(Clone)]
pub struct StoredAs {
    pub group: Cow<'static, str>,
    pub resource: Cow<'static, str>,
    pub conversion: ConversionRef,
}

/// A conversion known at build time, or made at run time (a custom
/// resource's, from its definition).
#[derive(Clone)]
pub enum ConversionRef {
    Static(&'static dyn Conversion),
    Shared(Arc<dyn Conversion>),
}

impl std::ops::Deref for ConversionRef {
    type Target = dyn Conversion;

    fn deref(&self) -> &(dyn Conversion + 'static) {
        match self {
            ConversionRef::Static(c) => *c,
            ConversionRef::Shared(c) => c.as_ref(),
        }
    }
}

impl std::fmt::Debug for StoredAs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "StoredAs({}/{})", self.group, self.resource)
    }
}

/// Everything that defines a resource; `ResourceType::new` derives the rest.
#[derive(Debug)]
pub struct ResourceDefinition {
    pub gvr: GroupVersionResource,
    pub kind: String,
    pub singular: String,
    pub namespaced: bool,
    pub short_names: Vec<String>,
    pub categories: Vec<String>,
    /// The verbs served, sorted as discovery lists them.
    pub verbs: Vec<Verb>,
    pub status_subresource: bool,
    /// Serves `/scale` (autoscaling/v1 Scale over `spec.replicas`).
    pub scale_subresource: bool,
    /// Serves `/finalize` (namespaces): a PUT of `spec.finalizers`.
    pub finalize_subresource: bool,
    /// The subresources served beside the object's own (binding, log…).
    pub side: &'static [Side],
    pub name_rule: NameRule,
    /// DELETE answers with the deleted object instead of a Success Status.
    pub return_deleted_object: bool,
    /// PUT of a missing object creates it.
    pub allow_create_on_update: bool,
    /// `metadata.generation` is kept and bumped on spec changes.
    pub tracks_generation: bool,
    /// Whether the kind has a protobuf form (built-in kinds do; custom
    /// resources do not).
    pub protobuf: bool,
    /// Served over another resource's storage (None: its own).
    pub stored_as: Option<StoredAs>,
    pub strategy: StrategyRef,
}

/// A subresource upstream serves beside an object's CRUD, with a storage
/// of its own: what it is called, which methods route to it, and what
/// discovery says of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// `pods/binding`: a POST of a Binding assigns a node.
    Binding,
    /// `pods/ephemeralcontainers`: the pod, whose writes change only its
    /// ephemeral containers.
    EphemeralContainers,
    /// `pods/eviction`: a POST of a policy/v1 Eviction.
    Eviction,
    /// `pods/log`: a GET of a container's output.
    Log,
    /// `nodes/proxy`: any method, passed on to the node's kubelet.
    Proxy,
    /// `pods/resize`: the pod, whose writes change only its containers'
    /// resources and resize policies.
    Resize,
    /// `serviceaccounts/token`: a POST of an authentication.k8s.io/v1
    /// TokenRequest is answered with a signed token.
    Token,
}

impl Side {
    pub fn name(self) -> &'static str {
        match self {
            Side::Binding => "binding",
            Side::EphemeralContainers => "ephemeralcontainers",
            Side::Eviction => "eviction",
            Side::Log => "log",
            Side::Proxy => "proxy",
            Side::Resize => "resize",
            Side::Token => "token",
        }
    }

    /// Whether a method has a route (upstream registers a creater's POST,
    /// a getter's GET, a connecter's every proxied method).
    pub fn routes(self, method: &str) -> bool {
        match self {
            Side::Binding | Side::Eviction | Side::Token => method == "POST",
            Side::Log => matches!(method, "GET" | "HEAD"),
            Side::EphemeralContainers | Side::Resize => matches!(method, "GET" | "HEAD" | "PUT" | "PATCH"),
            Side::Proxy => matches!(method, "GET" | "HEAD" | "POST" | "PUT" | "PATCH" | "DELETE" | "OPTIONS"),
        }
    }

    /// The verbs discovery lists.
    pub fn verbs(self) -> &'static [&'static str] {
        match self {
            Side::Binding | Side::Eviction | Side::Token => &["create"],
            Side::Log => &["get"],
            Side::EphemeralContainers | Side::Resize => &["get", "patch", "update"],
            Side::Proxy => &["create", "delete", "get", "patch", "update"],
        }
    }

    /// The group, version and kind discovery names (`own` the resource's).
    pub fn kind(self, own: &GroupVersionKind) -> (String, String, String) {
        match self {
            Side::Binding => (String::new(), "v1".into(), "Binding".into()),
            Side::Eviction => ("policy".into(), "v1".into(), "Eviction".into()),
            Side::Token => ("authentication.k8s.io".into(), "v1".into(), "TokenRequest".into()),
            Side::Log | Side::EphemeralContainers | Side::Resize => {
                (own.group.clone(), own.version.clone(), own.kind.clone())
            }
            Side::Proxy => (own.group.clone(), own.version.clone(), format!("{}ProxyOptions", own.kind)),
        }
    }
}

/// A served resource.
#[derive(Debug)]
pub struct ResourceType {
    pub gvr: GroupVersionResource,
    pub gvk: GroupVersionKind,
    pub singular: String,
    pub namespaced: bool,
    pub short_names: Vec<String>,
    pub categories: Vec<String>,
    pub verbs: Vec<Verb>,
    pub status_subresource: bool,
    pub scale_subresource: bool,
    pub finalize_subresource: bool,
    pub side: &'static [Side],
    pub name_rule: NameRule,
    pub return_deleted_object: bool,
    pub allow_create_on_update: bool,
    pub tracks_generation: bool,
    pub protobuf: bool,
    pub stored_as: Option<StoredAs>,
    pub strategy: StrategyRef,
    api_version: String,
    list_kind: String,
    /// The names of the selectable fields (metadata ones first), shared by
    /// every stored object's attributes.
    field_names: Vec<Arc<str>>,
    /// The built-in schema of the kind, found once (each write reads it
    /// several times).
    builtin_schema: Option<&'static serde_json::Value>,
}

impl ResourceType {
    /// Whether it serves a side subresource.
    pub fn has(&self, side: Side) -> bool {
        self.side.contains(&side)
    }

    pub fn new(d: ResourceDefinition) -> ResourceType {
        let mut field_names: Vec<Arc<str>> = vec![Arc::from("metadata.name")];
        // Upstream's default field label conversion takes the namespace
        // whatever the scope (a cluster-scoped object's reads as empty);
        // kinds with their own conversion, and custom resources' converter,
        // take it only when namespaced.
        let default_conversion = d.protobuf && d.strategy.selectable_fields().is_empty();
        if d.namespaced || default_conversion {
            field_names.push(Arc::from("metadata.namespace"));
        }
        field_names.extend(d.strategy.selectable_fields().iter().map(|f| Arc::from(f.name.as_ref())));
        let s = crate::schema::schemas();
        let builtin_schema = s.name_of(&d.gvr.group, &d.gvr.version, &d.kind).and_then(|n| s.definition(n));
        ResourceType {
            builtin_schema,
            api_version: gvk::api_version(&d.gvr.group, &d.gvr.version),
            list_kind: format!("{}List", d.kind),
            gvk: GroupVersionKind::new(&d.gvr.group, &d.gvr.version, &d.kind),
            gvr: d.gvr,
            singular: d.singular,
            namespaced: d.namespaced,
            short_names: d.short_names,
            categories: d.categories,
            verbs: d.verbs,
            status_subresource: d.status_subresource,
            scale_subresource: d.scale_subresource,
            finalize_subresource: d.finalize_subresource,
            side: d.side,
            name_rule: d.name_rule,
            return_deleted_object: d.return_deleted_object,
            allow_create_on_update: d.allow_create_on_update,
            tracks_generation: d.tracks_generation,
            protobuf: d.protobuf,
            stored_as: d.stored_as,
            strategy: d.strategy,
            field_names,
        }
    }

    pub fn group(&self) -> &str {
        &self.gvr.group
    }

    pub fn version(&self) -> &str {
        &self.gvr.version
    }

    /// The plural name used in URLs.
    pub fn resource(&self) -> &str {
        &self.gvr.resource
    }

    pub fn kind(&self) -> &str {
        &self.gvk.kind
    }

    pub fn api_version(&self) -> &str {
        &self.api_version
    }

    pub fn list_kind(&self) -> &str {
        &self.list_kind
    }

    pub fn serves(&self, verb: Verb) -> bool {
        self.verbs.contains(&verb)
    }

    /// The names of every field a field selector may use, metadata first.
    pub fn field_names(&self) -> &[Arc<str>] {
        &self.field_names
    }

    /// Whether a field selector may name `field`.
    pub fn supports_field(&self, field: &str) -> bool {
        self.field_names.iter().any(|f| &**f == field)
    }

    /// The group whose storage holds the objects.
    pub fn storage_group(&self) -> &str {
        self.stored_as.as_ref().map_or(self.group(), |s| &s.group)
    }

    /// The resource whose storage holds the objects.
    pub fn storage_resource(&self) -> &str {
        self.stored_as.as_ref().map_or(self.resource(), |s| &s.resource)
    }

    /// An object in the client's form → as stored.
    pub fn to_storage(&self, obj: Value) -> Value {
        match &self.stored_as {
            Some(s) => s.conversion.to_storage(obj),
            None => obj,
        }
    }

    /// A stored object → in the client's form (the same `Arc` when the
    /// resource has its own storage: nothing is copied).
    pub fn served(&self, obj: Arc<StoredObject>) -> Arc<StoredObject> {
        let encode = |value: &Value, attrs| {
            let mut scratch = Vec::new();
            crate::api::meta::write_canonical_json(value, &mut scratch);
            Arc::new(StoredObject::new(scratch.into_boxed_slice(), attrs))
        };
        match (&self.stored_as, self.strategy.defaults_on_read()) {
            (None, false) => obj,
            (Some(s), false) => encode(&s.conversion.to_served(obj.value()), obj.attrs.clone()),
            (stored_as, true) => {
                let Some(read) = obj.parsed() else { return obj };
                let mut value = match stored_as {
                    Some(s) => s.conversion.to_served((*read).clone()),
                    None => (*read).clone(),
                };
                if let Value::Object(o) = &mut value {
                    self.strategy.defaults(o);
                }
                if stored_as.is_none() && crate::api::meta::same(&value, &read) {
                    return obj;
                }
                encode(&value, obj.attrs.clone())
            }
        }
    }

    /// Does a read go through `served` (a conversion or read defaults)?
    pub fn converts_on_read(&self) -> bool {
        self.stored_as.is_some() || self.strategy.defaults_on_read()
    }

    /// A value as stored → in the client's form.
    pub fn served_value(&self, obj: Value) -> Value {
        match &self.stored_as {
            Some(s) => s.conversion.to_served(obj),
            None => obj,
        }
    }

    /// A field selector's label → the one the stored attributes carry, or
    /// `None` when the resource's version does not support it.
    pub fn field_label<'a>(&self, label: &'a str) -> Option<Cow<'a, str>> {
        match &self.stored_as {
            Some(s) => s.conversion.field_label(label),
            None => self.supports_field(label).then_some(Cow::Borrowed(label)),
        }
    }

    /// The kind's schema: a custom resource's from its definition, a
    /// built-in's generated definition (None: any JSON).
    pub fn schema(&self) -> Option<&Value> {
        self.strategy.schema().or(self.builtin_schema)
    }

    /// Served as unstructured objects, as custom resources are: no
    /// protobuf, list items that keep their `kind` and `apiVersion`, no
    /// strategic merge patch. (Built-in kinds all have a protobuf form.)
    pub fn unstructured(&self) -> bool {
        !self.protobuf
    }

    /// Whether the kind declares fields of its own for selectors (its
    /// errors then name the field label; others use the default wording).
    pub fn has_own_selectable_fields(&self) -> bool {
        !self.strategy.selectable_fields().is_empty()
    }
}

/// The resources served, in discovery order.
#[derive(Clone, Debug, Default)]
pub struct Catalog {
    resources: Vec<Arc<ResourceType>>,
}

impl Catalog {
    /// Adds a resource; refuses one whose group, version and resource (or
    /// kind) is already served.
    pub fn register(&mut self, rt: ResourceType) -> Result<Arc<ResourceType>, String> {
        let taken = self.resources.iter().any(|r| {
            (r.gvr.group == rt.gvr.group && r.gvr.version == rt.gvr.version)
                && (r.gvr.resource == rt.gvr.resource || r.gvk.kind == rt.gvk.kind)
        });
        if taken {
            return Err(format!("{} is already served", rt.gvr));
        }
        let rt = Arc::new(rt);
        self.resources.push(rt.clone());
        Ok(rt)
    }

    /// Stops serving a resource (its stored objects stay in storage).
    pub fn unregister(&mut self, gvr: &GroupVersionResource) -> Option<Arc<ResourceType>> {
        let i = self.resources.iter().position(|r| r.gvr == *gvr)?;
        Some(self.resources.remove(i))
    }

    pub fn iter(&self) -> impl Iterator<Item = &Arc<ResourceType>> {
        self.resources.iter()
    }

    /// By group, version and plural name (as a URL names it).
    pub fn lookup(&self, group: &str, version: &str, resource: &str) -> Option<&Arc<ResourceType>> {
        self.resources.iter().find(|r| r.gvr.group == group && r.gvr.version == version && r.gvr.resource == resource)
    }

    /// By group and plural name, in any version (for storage keys, which
    /// name no version).
    pub fn lookup_group_resource(&self, group: &str, resource: &str) -> Option<&Arc<ResourceType>> {
        self.resources.iter().find(|r| r.gvr.group == group && r.gvr.resource == resource)
    }

    /// By the `apiVersion` and `kind` of a body: the resource whose kind or
    /// list kind it is.
    pub fn by_kind(&self, api_version: &str, kind: &str) -> Option<&Arc<ResourceType>> {
        let (group, version) = gvk::split_api_version(api_version);
        self.resources
            .iter()
            .find(|r| r.gvk.group == group && r.gvk.version == version && (r.gvk.kind == kind || r.list_kind == kind))
    }

    /// The groups served, in discovery order (core first, as "").
    pub fn groups(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for r in &self.resources {
            if !out.contains(&r.group()) {
                out.push(r.group());
            }
        }
        out
    }

    /// The versions served of a group, in discovery order.
    pub fn versions(&self, group: &str) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for r in self.resources.iter().filter(|r| r.group() == group) {
            if !out.contains(&r.version()) {
                out.push(r.version());
            }
        }
        out
    }

    /// The resources of one group and version, in discovery order.
    pub fn of_group_version<'a>(
        &'a self,
        group: &'a str,
        version: &'a str,
    ) -> impl Iterator<Item = &'a Arc<ResourceType>> + 'a {
        self.resources.iter().filter(move |r| r.group() == group && r.version() == version)
    }

    /// The namespaces resource, which the namespace lifecycle needs.
    pub fn namespaces(&self) -> Option<&Arc<ResourceType>> {
        self.lookup("", "v1", "namespaces")
    }
}
