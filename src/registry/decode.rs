//! What a request body means, in one place: the media types each verb
//! takes (415 for others), JSON, YAML and protobuf decoding, type errors as
//! Go's decoder words them, and field validation — duplicate and unknown
//! fields found by schema and dealt with per `fieldValidation`
//! (Ignore/Warn/Strict), with upstream's messages. Each verb of the store
//! calls one function here.

use serde_json::{json, Map, Value};

use super::options::FieldValidation;
use super::resource::ResourceType;
use crate::api::{media_type, Status};

/// A request body and its media type (without parameters).
#[derive(Clone, Copy, Debug)]
pub struct RequestBody<'a> {
    pub media_type: &'a str,
    pub bytes: &'a [u8],
}

impl<'a> RequestBody<'a> {
    pub fn json(bytes: &'a [u8]) -> RequestBody<'a> {
        RequestBody { media_type: media_type::JSON, bytes }
    }
}

/// What a write says besides its answer (the `Warning` headers).
pub type Warnings = Vec<String>;

/// A body that does not decode into the kind (upstream's decode error).
pub fn cannot_handle(rt: &ResourceType, why: &str) -> Status {
    Status::bad_request(format!(
        "{} in version \"{}\" cannot be handled as a {}: {why}",
        rt.kind(),
        rt.version(),
        rt.kind()
    ))
}

/// Applies a field-validation level to problems found in a body: Strict
/// refuses, Warn warns, Ignore says nothing.
fn field_problems(
    rt: &ResourceType,
    fv: FieldValidation,
    problems: Vec<String>,
    warnings: &mut Warnings,
) -> Result<(), Status> {
    if problems.is_empty() {
        return Ok(());
    }
    match fv {
        FieldValidation::Ignore => Ok(()),
        FieldValidation::Warn => {
            warnings.extend(problems);
            Ok(())
        }
        FieldValidation::Strict => Err(cannot_handle(rt, &format!("strict decoding error: {}", problems.join(", ")))),
    }
}

fn duplicates(dups: &[String]) -> Vec<String> {
    dups.iter().map(|d| format!("duplicate field \"{d}\"")).collect()
}

fn unknown_media_type(rt: &ResourceType, got: &str) -> Status {
    let protobuf = if rt.protobuf { format!(", {}", media_type::PROTOBUF) } else { String::new() };
    Status::unsupported_media_type(format!(
        "the body of the request was in an unknown format - accepted media types include: application/json, application/yaml{protobuf} (got {got:?})"
    ))
}

/// A create or update body: JSON as sent, YAML converted (its duplicate
/// keys dealt with per `fv`), protobuf decoded; then as JSON: type errors
/// refused, duplicate and unknown fields found (unknown ones dropped) and
/// dealt with per `fv`, the apiVersion and kind checked and filled in.
pub fn object(
    rt: &ResourceType,
    body: RequestBody<'_>,
    fv: FieldValidation,
    warnings: &mut Warnings,
) -> Result<Map<String, Value>, Status> {
    let converted;
    let json = match body.media_type {
        "" | media_type::JSON | "*/*" => body.bytes,
        media_type::YAML => {
            let text = std::str::from_utf8(body.bytes)
                .map_err(|e| Status::bad_request(format!("couldn't get version/kind; yaml parse error: {e}")))?;
            let (v, dups) = crate::schema::decode::decode_yaml_noting_duplicates(text)
                .map_err(|e| Status::bad_request(format!("couldn't get version/kind; yaml parse error: {e}")))?;
            field_problems(rt, fv, duplicates(&dups), warnings)?;
            converted = serde_json::to_vec(&v).map_err(Status::internal_error)?;
            &converted
        }
        media_type::PROTOBUF if rt.protobuf => {
            let v = crate::proto::decode_object(body.bytes).map_err(Status::bad_request)?;
            converted = serde_json::to_vec(&v).map_err(Status::internal_error)?;
            &converted
        }
        other => return Err(unknown_media_type(rt, other)),
    };
    let (mut value, dups) = crate::schema::decode::decode_noting_duplicates(json)
        .map_err(|e| Status::bad_request(format!("couldn't get version/kind; json parse error: {e}")))?;
    let schemas = crate::schema::schemas();
    let def = schemas.name_of(rt.group(), rt.version(), rt.kind());
    if let Some(e) = def.and_then(|d| schemas.first_type_error(d, &value)) {
        return Err(cannot_handle(rt, &e));
    }
    let unknown = match def {
        Some(def) if value.is_object() => schemas.drop_unknown_fields(def, &mut value),
        _ => Vec::new(),
    };
    let mut problems = duplicates(&dups);
    problems.extend(unknown.iter().map(|u| format!("unknown field \"{u}\"")));
    let Value::Object(mut obj) = value else {
        return Err(Status::bad_request("couldn't get version/kind; json parse error: expected an object"));
    };
    let api_version = rt.api_version();
    match obj.get("apiVersion").and_then(Value::as_str) {
        None | Some("") => {}
        Some(v) if v == api_version => {}
        Some(v) => {
            return Err(Status::bad_request(format!(
                "the API version in the data ({v}) does not match the expected API version ({api_version})"
            )))
        }
    }
    match obj.get("kind").and_then(Value::as_str) {
        None | Some("") => {}
        Some(k) if k == rt.kind() => {}
        Some(k) => {
            return Err(Status::bad_request(format!(
                "{k} in version \"{}\" cannot be handled as a {}: the kind in the data ({k}) does not match the expected kind ({})",
                rt.version(),
                rt.kind(),
                rt.kind()
            )))
        }
    }
    if obj.get("metadata").is_some_and(|m| !m.is_object() && !m.is_null()) {
        return Err(cannot_handle(rt, "metadata must be an object"));
    }
    obj.insert("kind".into(), json!(rt.kind()));
    obj.insert("apiVersion".into(), json!(api_version));
    field_problems(rt, fv, problems, warnings)?;
    Ok(obj)
}

/// A merge or strategic merge patch document, its duplicate fields dealt
/// with per `fv`.
pub fn patch_document(
    rt: &ResourceType,
    bytes: &[u8],
    fv: FieldValidation,
    warnings: &mut Warnings,
) -> Result<Value, Status> {
    let (patch, dups) = crate::schema::decode::decode_noting_duplicates(bytes)
        .map_err(|e| Status::bad_request(format!("error decoding patch: {e}")))?;
    field_problems(rt, fv, duplicates(&dups), warnings)?;
    Ok(patch)
}

/// An RFC 6902 JSON patch.
pub fn json_patch(bytes: &[u8]) -> Result<json_patch::Patch, Status> {
    serde_json::from_slice(bytes).map_err(|e| Status::bad_request(format!("error decoding patch: {e}")))
}

/// A server-side apply configuration (YAML, or JSON as YAML): an object of
/// the resource's apiVersion and kind, without type errors; duplicate and
/// unknown fields dealt with per `fv` (unknown ones dropped).
pub fn apply_configuration(
    rt: &ResourceType,
    bytes: &[u8],
    fv: FieldValidation,
    warnings: &mut Warnings,
) -> Result<Value, Status> {
    let text = std::str::from_utf8(bytes).map_err(|e| Status::bad_request(format!("error decoding YAML: {e}")))?;
    let (mut config, dups) = crate::schema::decode::decode_yaml_noting_duplicates(text)
        .map_err(|e| Status::bad_request(format!("error decoding YAML: {e}")))?;
    if !config.is_object() {
        return Err(Status::bad_request("error decoding YAML: the applied configuration must be an object"));
    }
    let api_version = rt.api_version();
    let (av, kind) = (
        config.get("apiVersion").and_then(Value::as_str).unwrap_or(""),
        config.get("kind").and_then(Value::as_str).unwrap_or(""),
    );
    if av != api_version || kind != rt.kind() {
        return Err(Status::bad_request(format!(
            "the apply configuration must set apiVersion {api_version:?} and kind {:?} (got {av:?}, {kind:?})",
            rt.kind()
        )));
    }
    let schemas = crate::schema::schemas();
    let def = schemas.name_of(rt.group(), rt.version(), rt.kind()).unwrap_or("");
    if let Some(e) = schemas.first_type_error(def, &config) {
        return Err(cannot_handle(rt, &e));
    }
    let mut problems = duplicates(&dups);
    problems
        .extend(schemas.drop_unknown_fields(def, &mut config).into_iter().map(|u| format!("unknown field \"{u}\"")));
    field_problems(rt, fv, problems, warnings)?;
    Ok(config)
}

/// A Scale written to `/scale` (JSON, or protobuf as Go clients send it).
pub fn scale(body: RequestBody<'_>) -> Result<Value, Status> {
    if body.media_type == media_type::PROTOBUF {
        return crate::proto::decode_object(body.bytes).map_err(Status::bad_request);
    }
    serde_json::from_slice::<Value>(body.bytes)
        .map_err(|e| Status::bad_request(format!("couldn't get version/kind; json parse error: {e}")))
}

/// A DELETE's body (DeleteOptions), when it has one: JSON, or protobuf as
/// Go clients that speak it send it.
pub fn delete_options(body: RequestBody<'_>) -> Result<Option<Value>, Status> {
    if body.media_type == media_type::PROTOBUF && !body.bytes.is_empty() {
        return crate::proto::decode_object(body.bytes).map(Some).map_err(Status::bad_request);
    }
    if body.bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(None);
    }
    serde_json::from_slice(body.bytes)
        .map(Some)
        .map_err(|e| Status::bad_request(format!("couldn't get version/kind; json parse error: {e}")))
}
