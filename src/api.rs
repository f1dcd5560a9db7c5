//! Plain API data: `Status` (the one error currency), watch event types,
//! group/version/resource identities and metadata helpers over JSON objects.

pub mod meta;
pub mod status;

pub use status::{FieldError, Status, StatusCause};

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

/// Types of watch events, as they appear in the `type` field on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WatchEventType {
    Added,
    Modified,
    Deleted,
    Bookmark,
    Error,
}

impl WatchEventType {
    pub fn as_str(self) -> &'static str {
        match self {
            WatchEventType::Added => "ADDED",
            WatchEventType::Modified => "MODIFIED",
            WatchEventType::Deleted => "DELETED",
            WatchEventType::Bookmark => "BOOKMARK",
            WatchEventType::Error => "ERROR",
        }
    }
}
