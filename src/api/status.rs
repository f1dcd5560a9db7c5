//! `Status`: the only error that crosses a layer above storage, shaped as
//! kube-apiserver shapes it (`metav1.Status`).

use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StatusCause {
    #[serde(rename = "reason", default, skip_serializing_if = "String::is_empty")]
    pub reason: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub message: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub field: String,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StatusDetails {
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub group: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub kind: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub uid: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub causes: Vec<StatusCause>,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub retry_after_seconds: i32,
}

fn is_zero(v: &i32) -> bool {
    *v == 0
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StatusListMeta {
    #[serde(rename = "continue", default, skip_serializing_if = "String::is_empty")]
    pub continue_token: String,
}

/// `metav1.Status`. `code` is the HTTP status code of the response.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Status {
    pub kind: String,
    #[serde(rename = "apiVersion")]
    pub api_version: String,
    pub metadata: StatusListMeta,
    pub status: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub message: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reason: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<StatusDetails>,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub code: i32,
}

/// The group-qualified resource as upstream prints it in messages:
/// `pods`, `deployments.apps`.
pub fn qualified_resource(group: &str, resource: &str) -> String {
    if group.is_empty() {
        resource.to_string()
    } else {
        format!("{resource}.{group}")
    }
}

impl Status {
    pub fn failure(code: i32, reason: &str, message: String) -> Status {
        Status {
            kind: "Status".into(),
            api_version: "v1".into(),
            metadata: StatusListMeta::default(),
            status: "Failure".into(),
            message,
            reason: reason.into(),
            details: None,
            code,
        }
    }

    /// A `Success` status as the delete handlers return it.
    pub fn success(details: StatusDetails) -> Status {
        Status {
            kind: "Status".into(),
            api_version: "v1".into(),
            metadata: StatusListMeta::default(),
            status: "Success".into(),
            message: String::new(),
            reason: String::new(),
            details: Some(details),
            code: 0,
        }
    }

    pub fn with_details(mut self, group: &str, kind: &str, name: &str) -> Status {
        self.details =
            Some(StatusDetails { name: name.into(), group: group.into(), kind: kind.into(), ..Default::default() });
        self
    }

    pub fn not_found(group: &str, resource: &str, name: &str) -> Status {
        Status::failure(404, "NotFound", format!("{} \"{}\" not found", qualified_resource(group, resource), name))
            .with_details(group, resource, name)
    }

    pub fn already_exists(group: &str, resource: &str, name: &str) -> Status {
        Status::failure(
            409,
            "AlreadyExists",
            format!("{} \"{}\" already exists", qualified_resource(group, resource), name),
        )
        .with_details(group, resource, name)
    }

    /// 409 AlreadyExists for a generated name still taken after the
    /// retries: the client may try again (`retryAfterSeconds: 1`).
    pub fn generate_name_conflict(group: &str, resource: &str, name: &str) -> Status {
        let mut s = Status::failure(
            409,
            "AlreadyExists",
            format!(
                "{} \"{}\" already exists, the server was not able to generate a unique name for the object",
                qualified_resource(group, resource),
                name
            ),
        )
        .with_details(group, resource, name);
        if let Some(d) = &mut s.details {
            d.retry_after_seconds = 1;
        }
        s
    }

    /// 409 Conflict, e.g. a stale resourceVersion on update.
    pub fn conflict(group: &str, resource: &str, name: &str, why: &str) -> Status {
        Status::failure(
            409,
            "Conflict",
            format!("Operation cannot be fulfilled on {} \"{}\": {}", qualified_resource(group, resource), name, why),
        )
        .with_details(group, resource, name)
    }

    pub fn forbidden(group: &str, resource: &str, name: &str, why: &str) -> Status {
        Status::failure(
            403,
            "Forbidden",
            format!("{} \"{}\" is forbidden: {}", qualified_resource(group, resource), name, why),
        )
        .with_details(group, resource, name)
    }

    /// An error that is no API error (Go's plain `fmt.Errorf` reaching the
    /// handler): 500, no reason, the error's text.
    pub fn plain_error(message: impl Into<String>) -> Status {
        Status::failure(500, "", message.into())
    }

    pub fn bad_request(message: impl Into<String>) -> Status {
        Status::failure(400, "BadRequest", message.into())
    }

    /// 405 from the router: the path has routes, none for this method.
    pub fn method_not_allowed() -> Status {
        let mut s = Status::failure(
            405,
            "MethodNotAllowed",
            "the server does not allow this method on the requested resource".into(),
        );
        s.details = Some(StatusDetails::default());
        s
    }

    /// 405 for a verb a resource's storage lacks (upstream's
    /// `NewMethodNotSupported`): `watch is not supported on resources of
    /// kind "componentstatuses"`.
    pub fn method_not_supported(group: &str, resource: &str, action: &str) -> Status {
        let qualified = if group.is_empty() { resource.to_string() } else { format!("{resource}.{group}") };
        let message = format!("{action} is not supported on resources of kind {qualified:?}");
        let mut s = Status::failure(405, "MethodNotAllowed", message);
        s.details = Some(StatusDetails { group: group.into(), kind: resource.into(), ..Default::default() });
        s
    }

    pub fn not_acceptable(message: impl Into<String>) -> Status {
        Status::failure(406, "NotAcceptable", message.into())
    }

    pub fn unsupported_media_type(message: impl Into<String>) -> Status {
        Status::failure(415, "UnsupportedMediaType", message.into())
    }

    /// 410 Gone with reason Expired (`NewResourceExpired`).
    pub fn expired(message: impl Into<String>) -> Status {
        Status::failure(410, "Expired", message.into())
    }

    /// 422 Invalid with every cause (`NewInvalid`).
    pub fn invalid(group: &str, kind: &str, name: &str, errors: &[FieldError]) -> Status {
        let qualified_kind = if group.is_empty() { kind.to_string() } else { format!("{kind}.{group}") };
        // The message names each distinct error once (Go's aggregate drops
        // repeats); the causes list every one.
        let mut texts: Vec<String> = Vec::with_capacity(errors.len());
        for e in errors {
            let t = e.to_string();
            if !texts.contains(&t) {
                texts.push(t);
            }
        }
        let list = if texts.len() == 1 { texts.remove(0) } else { format!("[{}]", texts.join(", ")) };
        let mut s = Status::failure(422, "Invalid", format!("{qualified_kind} \"{name}\" is invalid: {list}"));
        s.details = Some(StatusDetails {
            name: name.into(),
            group: group.into(),
            kind: kind.into(),
            causes: errors
                .iter()
                .map(|e| StatusCause { reason: e.kind.reason().into(), message: e.body(), field: e.field.clone() })
                .collect(),
            ..Default::default()
        });
        s
    }

    pub fn internal_error(message: impl std::fmt::Display) -> Status {
        let mut s = Status::failure(500, "InternalError", format!("Internal error occurred: {message}"));
        s.details = Some(StatusDetails {
            causes: vec![StatusCause { reason: String::new(), message: message.to_string(), field: String::new() }],
            ..Default::default()
        });
        s
    }

    /// 413, as upstream's `NewRequestEntityTooLargeError` words it.
    pub fn request_entity_too_large(message: impl std::fmt::Display) -> Status {
        Status::failure(413, "RequestEntityTooLarge", format!("Request entity too large: {message}"))
    }

    pub fn is_not_found(&self) -> bool {
        self.reason == "NotFound"
    }

    pub fn to_json(&self) -> Vec<u8> {
        serde_json::to_vec(self).unwrap_or_else(|_| b"{}".to_vec())
    }
}

/// The kinds of field errors upstream's `field.ErrorList` carries.
#[derive(Clone, Debug, PartialEq)]
pub enum FieldErrorKind {
    Required,
    Invalid(String),
    /// Invalid, for a value that is not a string (shown unquoted, as Go's
    /// `%v` shows numbers and booleans).
    InvalidValue(String),
    Forbidden,
    Duplicate(String),
    /// A reference to something that does not exist (`field.NotFound`).
    NotFound(String),
    NotSupported(String, Vec<String>),
    /// NotSupported for a value that is not a string: shown as Go prints
    /// it (e.g. `[]string{"x"}`).
    NotSupportedValue(String, Vec<String>),
    TooLong,
    /// Too many items: how many there are.
    TooMany(String),
}

impl FieldErrorKind {
    fn reason(&self) -> &'static str {
        match self {
            FieldErrorKind::Required => "FieldValueRequired",
            FieldErrorKind::Invalid(_) | FieldErrorKind::InvalidValue(_) => "FieldValueInvalid",
            FieldErrorKind::Forbidden => "FieldValueForbidden",
            FieldErrorKind::Duplicate(_) => "FieldValueDuplicate",
            FieldErrorKind::NotFound(_) => "FieldValueNotFound",
            FieldErrorKind::NotSupported(..) | FieldErrorKind::NotSupportedValue(..) => "FieldValueNotSupported",
            FieldErrorKind::TooLong => "FieldValueTooLong",
            FieldErrorKind::TooMany(_) => "FieldValueTooMany",
        }
    }
}

/// One field error (`field.Error`): its path, kind and detail.
#[derive(Clone, Debug, PartialEq)]
pub struct FieldError {
    pub field: String,
    pub kind: FieldErrorKind,
    pub detail: String,
}

/// The constructors are never inlined: they build an error, which the
/// many validations that call them rarely do, and inlined they would
/// grow every caller (and the browser's first module part).
impl FieldError {
    #[inline(never)]
    pub fn required(field: &str, detail: &str) -> Self {
        FieldError { field: field.into(), kind: FieldErrorKind::Required, detail: detail.into() }
    }
    #[inline(never)]
    pub fn invalid(field: &str, value: &str, detail: &str) -> Self {
        FieldError { field: field.into(), kind: FieldErrorKind::Invalid(value.into()), detail: detail.into() }
    }
    /// Invalid, for a number or boolean.
    pub fn invalid_value(field: &str, value: &serde_json::Value, detail: &str) -> Self {
        Self::invalid_raw(field, &value.to_string(), detail)
    }
    /// Invalid, with the value already written as Go prints it
    /// (`[]string{"a"}`).
    #[inline(never)]
    pub fn invalid_raw(field: &str, go_value: &str, detail: &str) -> Self {
        FieldError { field: field.into(), kind: FieldErrorKind::InvalidValue(go_value.into()), detail: detail.into() }
    }
    #[inline(never)]
    pub fn duplicate(field: &str, value: &str) -> Self {
        FieldError { field: field.into(), kind: FieldErrorKind::Duplicate(value.into()), detail: String::new() }
    }
    #[inline(never)]
    pub fn not_found(field: &str, value: &str) -> Self {
        FieldError { field: field.into(), kind: FieldErrorKind::NotFound(value.into()), detail: String::new() }
    }
    #[inline(never)]
    pub fn forbidden(field: &str, detail: &str) -> Self {
        FieldError { field: field.into(), kind: FieldErrorKind::Forbidden, detail: detail.into() }
    }
    #[inline(never)]
    pub fn not_supported(field: &str, value: &str, supported: &[&str]) -> Self {
        FieldError {
            field: field.into(),
            kind: FieldErrorKind::NotSupported(value.into(), supported.iter().map(|s| s.to_string()).collect()),
            detail: String::new(),
        }
    }

    /// A value that is not a string, not among `supported` (shown as Go
    /// prints it).
    #[inline(never)]
    pub fn not_supported_value(field: &str, value: &str, supported: &[&str]) -> Self {
        FieldError {
            field: field.into(),
            kind: FieldErrorKind::NotSupportedValue(value.into(), supported.iter().map(|s| s.to_string()).collect()),
            detail: String::new(),
        }
    }

    #[inline(never)]
    pub fn too_long(field: &str, detail: &str) -> Self {
        FieldError { field: field.into(), kind: FieldErrorKind::TooLong, detail: detail.into() }
    }

    #[inline(never)]
    pub fn too_many(field: &str, count: usize, detail: &str) -> Self {
        FieldError { field: field.into(), kind: FieldErrorKind::TooMany(count.to_string()), detail: detail.into() }
    }

    /// A list value not among `supported`, e.g. `dryRun=x` (shown as
    /// `[]string{"x"}`, as Go formats it).
    pub fn not_supported_list(field: &str, values: &[&str], supported: &[&str]) -> Self {
        let go = format!("[]string{{{}}}", values.iter().map(|v| quote(v)).collect::<Vec<_>>().join(", "));
        FieldError {
            field: field.into(),
            kind: FieldErrorKind::NotSupportedValue(go, supported.iter().map(|s| s.to_string()).collect()),
            detail: String::new(),
        }
    }

    /// The message without the field path (`ErrorBody`).
    pub fn body(&self) -> String {
        match &self.kind {
            FieldErrorKind::Required => with_detail("Required value", &self.detail),
            FieldErrorKind::Forbidden => with_detail("Forbidden", &self.detail),
            FieldErrorKind::Duplicate(v) => with_detail(&format!("Duplicate value: {}", quote(v)), &self.detail),
            FieldErrorKind::NotFound(v) => with_detail(&format!("Not found: {}", quote(v)), &self.detail),
            FieldErrorKind::TooLong => with_detail("Too long", &self.detail),
            FieldErrorKind::TooMany(n) => with_detail(&format!("Too many: {n}"), &self.detail),
            FieldErrorKind::Invalid(v) => with_detail(&format!("Invalid value: {}", quote(v)), &self.detail),
            FieldErrorKind::InvalidValue(v) => with_detail(&format!("Invalid value: {v}"), &self.detail),
            FieldErrorKind::NotSupported(v, supported) => format!(
                "Unsupported value: {}: supported values: {}",
                quote(v),
                supported.iter().map(|s| quote(s)).collect::<Vec<_>>().join(", ")
            ),
            FieldErrorKind::NotSupportedValue(v, supported) => format!(
                "Unsupported value: {v}: supported values: {}",
                supported.iter().map(|s| quote(s)).collect::<Vec<_>>().join(", ")
            ),
        }
    }
}

fn with_detail(head: &str, detail: &str) -> String {
    if detail.is_empty() {
        head.to_string()
    } else {
        format!("{head}: {detail}")
    }
}

fn quote(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| format!("\"{s}\""))
}

impl std::fmt::Display for FieldError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.field, self.body())
    }
}
