//! What a request body means, in one place: the media types each verb
//! takes (415 for others), JSON, YAML and protobuf decoding, type errors as
//! Go's decoder words them, and field validation — duplicate and unknown
//! fields found by schema and dealt with per `fieldValidation`
//! (Ignore/Warn/Strict), with upstream's messages. Each verb of the store
//! calls one function here.

use crate::sort::Order;
use serde_json::{json, Map, Value};

use super::options::FieldValidation;
use super::resource::ResourceType;
use crate::api::{media_type, meta, FieldError, Status};
use crate::schema::decode::StrictProblems;

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

/// The problems a strict decode found, as one error each; a YAML body's
/// repeated keys are one error of several lines, as go-yaml reports them.
fn problems_of(yaml_repeats: &[String], strict: StrictProblems) -> Vec<String> {
    let mut out = Vec::with_capacity(strict.0.len() + 1);
    if !yaml_repeats.is_empty() {
        out.push(format!("yaml: unmarshal errors:\n  {}", yaml_repeats.join("\n  ")));
    }
    out.extend(strict.0);
    out
}

/// The warnings for problems under Warn: one per problem, a multi-line
/// YAML error split into its lines.
fn warn(problems: Vec<String>, warnings: &mut Warnings) {
    for p in problems {
        match p.strip_prefix("yaml: unmarshal errors:\n") {
            Some(lines) => warnings.extend(lines.lines().map(|l| l.trim().to_string())),
            None => warnings.push(p),
        }
    }
}

/// Applies a field-validation level to problems found in a create or
/// update body: Strict refuses (400, as the decode error it is), Warn
/// warns, Ignore says nothing.
fn body_problems(
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
            warn(problems, warnings);
            Ok(())
        }
        FieldValidation::Strict => Err(cannot_handle(rt, &format!("strict decoding error: {}", problems.join(", ")))),
    }
}

/// A patch that produced an object the kind cannot take: 422 on the field
/// `patch`, its value the patched object (JSON and merge patches) or the
/// patch as Go prints a map (strategic), as upstream's patch handler words it.
fn patch_invalid(bad_value: &str, why: &str) -> Status {
    Status::invalid("", "", "", &[FieldError::invalid("patch", bad_value, why)])
}

fn unknown_media_type(rt: &ResourceType, got: &str) -> Status {
    let protobuf = if rt.protobuf { format!(", {}", media_type::PROTOBUF) } else { String::new() };
    Status::unsupported_media_type(format!(
        "the body of the request was in an unknown format - accepted media types include: application/json, application/yaml{protobuf} (got {got:?})"
    ))
}

/// The kind's schema (any JSON for a kind without one).
/// (A built-in's definition name comes too: Go's decoder reports type
/// errors by it. A custom resource's are its schema's validation errors.)
fn schema_of(rt: &ResourceType) -> (&'static crate::schema::Schemas, &Value) {
    static ANY: Value = Value::Null;
    (crate::schema::schemas(), rt.schema().unwrap_or(&ANY))
}

/// The kind's definition among the built-in schemas (a custom resource's
/// schema is its own: none).
fn definition(rt: &ResourceType) -> Option<&'static str> {
    if rt.strategy.schema().is_some() {
        return None;
    }
    crate::schema::schemas().name_of(rt.group(), rt.version(), rt.kind())
}

/// Decodes JSON strictly against the kind's schema: the value (unknown
/// fields dropped, the last of duplicates kept), or the first type error
/// as Go's decoder words it; and the problems found.
fn decode_typed(rt: &ResourceType, json: &[u8]) -> Result<Result<(Value, StrictProblems), String>, serde_json::Error> {
    let (schemas, schema) = schema_of(rt);
    let (mut value, problems, fit) = crate::schema::decode::decode_strict(json, schemas, schema)?;
    // The type check walks the value again only when the decoder saw a
    // value that may not fit (for the error, worded and ordered as Go's).
    if !fit {
        if let Some(e) = definition(rt).and_then(|d| schemas.first_type_error(d, &value)) {
            return Ok(Err(e));
        }
    }
    if let Err(e) = schemas.quantities(schema, &mut value, false) {
        return Ok(Err(e.to_string()));
    }
    Ok(Ok((value, problems)))
}

/// A YAML body as JSON (the last of repeated keys kept), and the keys it
/// repeats.
fn yaml_to_json(text: &str) -> Result<(Vec<u8>, Vec<String>), String> {
    let v = crate::schema::decode::decode_yaml(text).map_err(|e| e.to_string())?;
    let repeats = crate::schema::decode::yaml_repeated_keys(text);
    let json = crate::api::to_json(&v);
    Ok((json, repeats))
}

/// A create or update body: JSON as sent, YAML converted, protobuf
/// decoded; then decoded strictly against the kind's schema (type errors
/// refused; duplicate and unknown fields — unknown ones dropped — dealt
/// with per `fv`, in upstream's order and words); the apiVersion and kind
/// checked and filled in.
pub fn object(
    rt: &ResourceType,
    body: RequestBody<'_>,
    fv: FieldValidation,
    warnings: &mut Warnings,
) -> Result<Map<String, Value>, Status> {
    let converted;
    let mut repeats = Vec::new();
    let json = match body.media_type {
        "" | media_type::JSON | "*/*" => body.bytes,
        media_type::YAML => {
            let yaml_error = |e: String| {
                unrecognized(rt, &format!("error converting YAML to JSON: {}", go_yaml_error(&e)), body.bytes)
            };
            let text = std::str::from_utf8(body.bytes).map_err(|_| yaml_error("invalid leading UTF-8 octet".into()))?;
            let (json, r) = yaml_to_json(text).map_err(yaml_error)?;
            repeats = r;
            converted = json;
            &converted
        }
        media_type::PROTOBUF if rt.protobuf => {
            let v = crate::proto::decode_object(body.bytes).map_err(Status::bad_request)?;
            converted = crate::api::to_json(&v);
            &converted
        }
        other => return Err(unknown_media_type(rt, other)),
    };
    let (value, mut strict) = decode_typed(rt, json)
        .map_err(|e| {
            unrecognized(
                rt,
                &format!("couldn't get version/kind; json parse error: {}", go_json_error(&e, json)),
                body.bytes,
            )
        })?
        .map_err(|e| cannot_handle(rt, &e))?;
    if body.media_type == media_type::YAML {
        // Converted through a Go map upstream: the unknown fields come out
        // in sorted order (the object itself keeps the body's order here).
        strict.0.order();
    }
    let obj = typed(rt, value)?;
    body_problems(rt, fv, problems_of(&repeats, strict), warnings)?;
    Ok(obj)
}

/// Upstream's answer to a create or update body it cannot parse at all
/// (no kind known yet): the resource's kind, the decoder's error, and the
/// body's first 30 bytes (as text when it looks like JSON, else in hex).
fn unrecognized(rt: &ResourceType, error: &str, body: &[u8]) -> Status {
    const SHOWN: usize = 30;
    let shown = &body[..body.len().min(SHOWN)];
    let more = if body.len() > SHOWN { " ..." } else { "" };
    let summary = match body.first() {
        None => "<empty>".to_string(),
        Some(b'{') => format!("{}{more}", String::from_utf8_lossy(shown)),
        Some(_) => format!("{}{more}", shown.iter().map(|b| format!("{b:02x}")).collect::<String>()),
    };
    Status::bad_request(format!(
        "the object provided is unrecognized (must be of type {}): {error} ({summary})",
        rt.kind()
    ))
}

/// A JSON parse error in the words of Go's `encoding/json` where they are
/// known (the end of the input, and which byte the scanner stopped at and
/// where), else serde_json's.
fn go_json_error(e: &serde_json::Error, json: &[u8]) -> String {
    if e.is_eof() {
        return "unexpected end of JSON input".to_string();
    }
    let message = e.to_string();
    // serde_json's syntax errors as Go's scanner words them: the byte it
    // stopped at (serde_json's line and 1-based column), then where.
    let at = json
        .split(|b| *b == b'\n')
        .nth(e.line().saturating_sub(1))
        .and_then(|line| line.get(e.column().saturating_sub(1)).copied());
    let (Some(c), true) = (at, e.is_syntax()) else {
        return message;
    };
    let context = if message.starts_with("expected value") {
        "looking for beginning of value"
    } else if message.starts_with("key must be a string") {
        "looking for beginning of object key string"
    } else if message.starts_with("expected `:`") {
        "after object key"
    } else if message.starts_with("expected `,` or `}`") {
        "after object key:value pair"
    } else if message.starts_with("expected `,` or `]`") {
        "after array element"
    } else if message.starts_with("trailing characters") {
        "after top-level value"
    } else if message.starts_with("trailing comma") {
        // A comma before `]` leaves Go looking for a value, before `}`
        // for a key.
        if c == b']' {
            "looking for beginning of value"
        } else {
            "looking for beginning of object key string"
        }
    } else {
        return message;
    };
    format!("invalid character {} {context}", go_quote_byte(c))
}

/// Upstream's decoder on a body that is not JSON, unwrapped (as the
/// handlers of DeleteOptions and subresource bodies answer it).
fn version_kind_error(e: &serde_json::Error, json: &[u8]) -> Status {
    Status::bad_request(format!("couldn't get version/kind; json parse error: {}", go_json_error(e, json)))
}

/// A byte quoted as Go's JSON scanner quotes it in errors: `'a'`, `'\''`,
/// `'"'`, `'\n'`, `'\x01'`.
fn go_quote_byte(c: u8) -> String {
    match c {
        b'\'' => "'\\''".to_string(),
        b'"' => "'\"'".to_string(),
        b'\n' => "'\\n'".to_string(),
        b'\r' => "'\\r'".to_string(),
        b'\t' => "'\\t'".to_string(),
        b'\\' => "'\\\\'".to_string(),
        0x20..=0x7e => format!("'{}'", c as char),
        0x80.. => format!("'{}'", char::from(c)),
        _ => format!("'\\x{c:02x}'"),
    }
}

/// A YAML parse error as go-yaml words it: `yaml: line N: …`, and its
/// refusal of alias bombs (serde_norway's repetition limit).
fn go_yaml_error(e: &str) -> String {
    if e.contains("repetition limit exceeded") {
        return "yaml: document contains excessive aliasing".to_string();
    }
    // serde_norway: "<message> at line L column C".
    if let Some((message, at)) = e.rsplit_once(" at line ") {
        if let Some((line, _)) = at.split_once(" column ") {
            return format!("yaml: line {line}: {message}");
        }
    }
    format!("yaml: {e}")
}

/// An object's apiVersion and kind checked against the resource's, and
/// filled in.
fn typed(rt: &ResourceType, value: Value) -> Result<Map<String, Value>, Status> {
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
    meta::set_kind_first(&mut obj, rt.kind(), api_version);
    Ok(obj)
}

/// A merge or strategic merge patch document, and (under Warn or Strict)
/// its repeated keys at any depth, as a map decode finds them.
pub fn patch_document(bytes: &[u8], fv: FieldValidation) -> Result<(Value, Vec<String>), Status> {
    let (patch, dups) = crate::schema::decode::decode_free_form(bytes)
        .map_err(|e| Status::bad_request(format!("error decoding patch: {e}")))?;
    let problems = if fv == FieldValidation::Ignore { Vec::new() } else { dups.0 };
    Ok((patch, problems))
}

/// An RFC 6902 JSON patch, and (under Warn or Strict) what upstream's
/// strict decode of its operations finds: keys an operation does not take
/// (`json patch unknown field "[0].foo"`) and repeated keys (`json patch
/// duplicate field "[1].path"`; the last one is applied).
pub fn json_patch(bytes: &[u8], fv: FieldValidation) -> Result<(json_patch::Patch, Vec<String>), Status> {
    let mut problems = Vec::new();
    let value: Value = if fv == FieldValidation::Ignore {
        serde_json::from_slice(bytes).map_err(|e| Status::bad_request(format!("error decoding patch: {e}")))?
    } else {
        let op = json!({"type": "array", "items": {"type": "object", "properties": {
            "op": {"type": "string"}, "path": {"type": "string"}, "from": {"type": "string"}, "value": {}}}});
        let (v, found, _) = crate::schema::decode::decode_strict(bytes, crate::schema::schemas(), &op)
            .map_err(|e| Status::bad_request(format!("error decoding patch: {e}")))?;
        problems.extend(found.0.into_iter().map(|p| format!("json patch {p}")));
        v
    };
    let patch: json_patch::Patch =
        serde_json::from_value(value).map_err(|e| Status::bad_request(format!("error decoding patch: {e}")))?;
    if patch.0.len() > MAX_JSON_PATCH_OPERATIONS {
        return Err(Status::request_entity_too_large(format!(
            "The allowed maximum operations in a JSON patch is {MAX_JSON_PATCH_OPERATIONS}, got {}",
            patch.0.len()
        )));
    }
    Ok((patch, problems))
}

/// Upstream's patch handler refuses a JSON patch of more operations (413).
pub const MAX_JSON_PATCH_OPERATIONS: usize = 10_000;

/// The object a JSON, merge or strategic merge patch produced, decoded as
/// upstream's patch handler decodes it: its unknown fields (in sorted
/// order, the object having gone through a Go map) after the patch's own
/// problems; Strict refuses with 422 on `patch` (`bad_value` names what
/// was patched), Warn warns; a type error is a 422 under any level.
pub fn patched_object(
    rt: &ResourceType,
    patched: Value,
    fv: FieldValidation,
    mut problems: Vec<String>,
    bad_value: impl Fn(&Value) -> String,
    warnings: &mut Warnings,
) -> Result<Map<String, Value>, Status> {
    // What decoding the patched object strictly would find, found by
    // walking it (no serializing and parsing again).
    let ((schemas, schema), def) = (schema_of(rt), definition(rt));
    let mut value = patched;
    let mut strict = crate::schema::decode::strict_problems(&value, schemas, schema);
    if let Some(e) = def.and_then(|d| schemas.first_type_error(d, &value)) {
        return Err(patch_invalid(&bad_value(&value), &e));
    }
    if let Err(e) = schemas.quantities(schema, &mut value, false) {
        return Err(patch_invalid(&bad_value(&value), e));
    }
    let unknown = !strict.0.is_empty();
    if fv != FieldValidation::Ignore {
        // The patched object went through a Go map upstream: its unknown
        // fields come out sorted (the object keeps its order here).
        strict.0.order();
        problems.extend(strict.0);
    }
    patch_problems(fv, problems, || bad_value(&value), warnings)?;
    if unknown {
        crate::schema::decode::prune_unknown(&mut value, schemas, schema);
    }
    typed(rt, value)
}

/// Problems of a patch per `fv`: Strict refuses with 422 on `patch`, Warn
/// warns, Ignore says nothing.
pub fn patch_problems(
    fv: FieldValidation,
    problems: Vec<String>,
    bad_value: impl Fn() -> String,
    warnings: &mut Warnings,
) -> Result<(), Status> {
    if problems.is_empty() {
        return Ok(());
    }
    match fv {
        FieldValidation::Ignore => Ok(()),
        FieldValidation::Warn => {
            warn(problems, warnings);
            Ok(())
        }
        FieldValidation::Strict => {
            Err(patch_invalid(&bad_value(), &format!("strict decoding error: {}", problems.join(", "))))
        }
    }
}

/// A server-side apply configuration (YAML, or JSON as YAML), decoded as
/// upstream's apply handler does: not strictly (the last of repeated keys
/// wins; their lines are returned for the check that follows the apply);
/// its apiVersion and kind must be the resource's (400 `invalid object
/// type`); a field the schema does not declare, or a value of the wrong
/// type, is the 500 of building the typed object.
pub fn apply_configuration(rt: &ResourceType, bytes: &[u8]) -> Result<(Value, Vec<String>), Status> {
    let text = std::str::from_utf8(bytes).map_err(|e| Status::bad_request(format!("error decoding YAML: {e}")))?;
    // (JSON, as most are, through the JSON parser when that gives the same.)
    let (config, yaml) = match crate::schema::decode::decode_json_as_yaml(text) {
        Some(config) => (config, false),
        None => (
            crate::schema::decode::decode_yaml(text).map_err(|e| {
                Status::bad_request(format!(
                    "error decoding YAML: error converting YAML to JSON: {}",
                    go_yaml_error(&e.to_string())
                ))
            })?,
            true,
        ),
    };
    if !config.is_object() {
        return Err(Status::bad_request("error decoding YAML: the applied configuration must be an object"));
    }
    let (av, kind) = (
        config.get("apiVersion").and_then(Value::as_str).unwrap_or(""),
        config.get("kind").and_then(Value::as_str).unwrap_or(""),
    );
    if av != rt.api_version() || kind != rt.kind() {
        let (group, version) = av.rsplit_once('/').unwrap_or(("", av));
        return Err(Status::bad_request(format!("invalid object type: {group}/{version}, Kind={kind}")));
    }
    let ((schemas, schema), def) = (schema_of(rt), definition(rt));
    if let Some(e) = def.and_then(|d| schemas.first_type_error(d, &config)) {
        return Err(cannot_handle(rt, &e));
    }
    let errors = crate::apply::typed::undeclared_fields(schemas, Some(schema), &config);
    if !errors.is_empty() {
        let meta = |f: &str| config.pointer(&format!("/metadata/{f}")).and_then(Value::as_str).unwrap_or("");
        let gvk = format!("{}/{}, Kind={}", rt.group(), rt.version(), rt.kind());
        let list = if errors.len() == 1 { errors[0].clone() } else { format!("errors:\n  {}", errors.join("\n  ")) };
        return Err(Status::plain_error(format!(
            "failed to create typed patch object ({}/{}; {gvk}): {list}",
            meta("namespace"),
            meta("name")
        )));
    }
    // (A document the JSON parser took repeats no key.)
    Ok((config, if yaml { crate::schema::decode::yaml_repeated_keys(text) } else { Vec::new() }))
}

/// After an apply succeeded: the configuration's repeated keys, per `fv`
/// (Strict: 400; Warn: a warning per line).
pub fn apply_repeated_keys(fv: FieldValidation, repeats: Vec<String>, warnings: &mut Warnings) -> Result<(), Status> {
    if repeats.is_empty() {
        return Ok(());
    }
    match fv {
        FieldValidation::Ignore => Ok(()),
        FieldValidation::Warn => {
            warnings.extend(repeats);
            Ok(())
        }
        FieldValidation::Strict => Err(Status::bad_request(format!(
            "error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n  {}",
            repeats.join("\n  ")
        ))),
    }
}

/// A body written to a subresource whose kind is not the resource's own
/// (a Scale, a Binding): JSON, or protobuf as Go clients send it.
pub fn sub_object(body: RequestBody<'_>) -> Result<Value, Status> {
    if body.media_type == media_type::PROTOBUF {
        return crate::proto::decode_object(body.bytes).map_err(Status::bad_request);
    }
    serde_json::from_slice::<Value>(body.bytes).map_err(|e| version_kind_error(&e, body.bytes))
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
    serde_json::from_slice(body.bytes).map(Some).map_err(|e| version_kind_error(&e, body.bytes))
}
