//! Plain API data at the bottom of the core: `Status` (the one error
//! currency), typed group/version/kind and group/version/resource
//! identities, stored objects, watch events, media types and metadata
//! helpers over JSON objects.

pub mod gvk;
pub mod jsonpath;
pub mod media_type;
pub mod meta;
pub mod object;
pub mod pod;
pub mod quantity;
pub mod status;
pub mod storage;
pub mod watch;
pub mod yaml;

pub use gvk::{GroupVersionKind, GroupVersionResource};
pub use object::{ObjectAttrs, StoredObject};
pub use status::{FieldError, Status, StatusCause};
pub use watch::{WatchEvent, WatchEventType, WatchObject};

/// `v` as compact JSON: what `serde_json::to_vec` writes, by the value
/// writer (`serde_json::ser::write_value`), which is faster, and in the
/// WebAssembly module keeps the generic serializer out of the part
/// loaded first.
pub fn to_json(v: &serde_json::Value) -> Vec<u8> {
    let mut out = Vec::with_capacity(128);
    serde_json::ser::write_value(&mut out, v);
    out
}

/// `v` as compact JSON text: what `v.to_string()` gives, by [`to_json`]
/// (`Value`'s `Display` is the generic serializer, kept out of the
/// WebAssembly module's part loaded first).
pub fn to_json_string(v: &serde_json::Value) -> String {
    // (The writer writes only whole UTF-8 sequences and ASCII escapes.)
    String::from_utf8(to_json(v)).unwrap_or_default()
}

/// Whether a JSON value is what Go's zero value looks like: null, false,
/// 0, "", an empty list, or an object of only zero values (a struct left
/// as it was made).
pub fn is_go_zero(v: &serde_json::Value) -> bool {
    use serde_json::Value;
    match v {
        Value::Null => true,
        Value::Bool(b) => !b,
        Value::Number(n) => n.as_f64() == Some(0.0),
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.values().all(is_go_zero),
    }
}

/// A storage revision. On the wire it is the `resourceVersion`, a decimal
/// string that clients must treat as opaque.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Revision(pub u64);

impl Revision {
    pub const ZERO: Revision = Revision(0);
    pub fn next(self) -> Revision {
        Revision(self.0 + 1)
    }
}

impl std::fmt::Display for Revision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}
