//! The media types the API speaks, named once. Everything that reads a
//! `Content-Type` or writes one (negotiation, body decoding, protobuf,
//! patches) uses these.

pub const JSON: &str = "application/json";
pub const YAML: &str = "application/yaml";
/// `application/vnd.kubernetes.protobuf`: the `k8s\0` envelope, or
/// length-prefixed `WatchEvent` frames for a watch.
pub const PROTOBUF: &str = "application/vnd.kubernetes.protobuf";
pub const JSON_PATCH: &str = "application/json-patch+json";
pub const MERGE_PATCH: &str = "application/merge-patch+json";
pub const STRATEGIC_MERGE_PATCH: &str = "application/strategic-merge-patch+json";
pub const APPLY_PATCH_YAML: &str = "application/apply-patch+yaml";

/// A `Content-Type` value without its parameters (`application/json;
/// charset=utf-8` → `application/json`).
pub fn essence(content_type: &str) -> &str {
    content_type.split(';').next().unwrap_or("").trim()
}
