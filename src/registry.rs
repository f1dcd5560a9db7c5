//! The registry: one table entry per kind (`kinds.rs`) and one generic flow
//! per verb (`store.rs`). A file for a kind would hold only what is special
//! about it; today those rules are small enough to live as table data and
//! a few hooks in `rules.rs`.

pub mod defaults;
pub mod kinds;
pub mod rules;
pub mod store;
pub mod validation;

pub use kinds::{ResourceType, BUILTIN};

/// The verbs every built-in resource serves.
pub const STANDARD_VERBS: &[&str] =
    &["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"];
/// The verbs of a status subresource.
pub const STATUS_VERBS: &[&str] = &["get", "patch", "update"];
