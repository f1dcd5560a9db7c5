//! A container's environment as upstream's `ValidateEnv` and
//! `ValidateEnvFrom` check it (1.33, with `RelaxedEnvironmentVariableValidation`
//! on by default): names of printable ASCII without `=`, one source for
//! each `valueFrom` and none beside a `value`, the ConfigMap and Secret
//! keys and names they read, the downward API's fields and resources.

use serde_json::Value;

use crate::api::meta::{validate_name, NameRule};
use crate::api::FieldError;

use super::config_map::config_key;

const RELAXED_NAME_MSG: &str =
    "a valid environment variable name must consist only of printable ASCII characters other than '='";

/// The pod fields a variable may be given by `fieldRef`.
const ENV_FIELDS: &[&str] = &[
    "metadata.name",
    "metadata.namespace",
    "metadata.uid",
    "spec.nodeName",
    "spec.serviceAccountName",
    "status.hostIP",
    "status.hostIPs",
    "status.podIP",
    "status.podIPs",
];

/// The fields the downward API knows at all (`ConvertDownwardAPIFieldLabel`
/// for v1): others cannot even be converted.
const KNOWN_FIELDS: &[&str] = &[
    "metadata.annotations",
    "metadata.labels",
    "metadata.name",
    "metadata.namespace",
    "metadata.uid",
    "spec.nodeName",
    "spec.restartPolicy",
    "spec.serviceAccountName",
    "spec.schedulerName",
    "status.phase",
    "status.hostIP",
    "status.hostIPs",
    "status.podIP",
    "status.podIPs",
];

/// The container resources a variable may be given by `resourceFieldRef`
/// (and the huge pages ones by prefix).
const ENV_RESOURCES: &[&str] = &[
    "limits.cpu",
    "limits.ephemeral-storage",
    "limits.memory",
    "requests.cpu",
    "requests.ephemeral-storage",
    "requests.memory",
];

/// A variable name or envFrom prefix under the relaxed rule.
fn relaxed_name(name: &str) -> bool {
    name.bytes().all(|b| (0x20..0x7f).contains(&b) && b != b'=')
}

/// `env` and `envFrom` of the container at `at`. Never inlined: no
/// container a server starts with has an environment.
#[inline(never)]
pub(super) fn validate_env(c: &Value, at: &str, errs: &mut Vec<FieldError>) {
    for (i, var) in c["env"].as_array().into_iter().flatten().enumerate() {
        let vat = format!("{at}.env[{i}]");
        match var["name"].as_str().unwrap_or("") {
            "" => errs.push(FieldError::required(&format!("{vat}.name"), "")),
            name if !relaxed_name(name) => {
                errs.push(FieldError::invalid(&format!("{vat}.name"), name, RELAXED_NAME_MSG))
            }
            _ => {}
        }
        if let Some(from) = var.get("valueFrom").filter(|v| v.is_object()) {
            value_from(from, var["value"].as_str().unwrap_or(""), &format!("{vat}.valueFrom"), errs);
        }
    }
    let from_path = format!("{at}.envFrom");
    for (i, from) in c["envFrom"].as_array().into_iter().flatten().enumerate() {
        let fat = format!("{from_path}[{i}]");
        if let Some(prefix) = from["prefix"].as_str().filter(|p| !p.is_empty() && !relaxed_name(p)) {
            errs.push(FieldError::invalid(&format!("{fat}.prefix"), prefix, RELAXED_NAME_MSG));
        }
        let mut sources = 0;
        for field in ["configMapRef", "secretRef"] {
            let Some(r) = from.get(field).filter(|r| r.is_object()) else { continue };
            sources += 1;
            let nat = format!("{fat}.{field}.name");
            match r["name"].as_str().unwrap_or("") {
                "" => errs.push(FieldError::required(&nat, "")),
                name => {
                    // Checked as a prefix of names: a trailing dash is fine.
                    let masked = match name.strip_suffix('-') {
                        Some(head) if !head.is_empty() => format!("{head}a"),
                        _ => name.to_string(),
                    };
                    for msg in validate_name(NameRule::Dns1123Subdomain, &masked) {
                        errs.push(FieldError::invalid(&nat, name, &msg));
                    }
                }
            }
        }
        // Upstream names the list, not the entry.
        match sources {
            0 => errs.push(FieldError::invalid(&from_path, "", "must specify one of: `configMapRef` or `secretRef`")),
            1 => {}
            _ => errs.push(FieldError::invalid(&from_path, "", "may not have more than one field specified at a time")),
        }
    }
}

/// `validateEnvVarValueFrom`: exactly one source, each checked, and no
/// `value` beside it.
fn value_from(from: &Value, value: &str, at: &str, errs: &mut Vec<FieldError>) {
    let mut sources = 0;
    if let Some(f) = from.get("fieldRef").filter(|f| f.is_object()) {
        sources += 1;
        field_ref(f, &format!("{at}.fieldRef"), errs);
    }
    if let Some(r) = from.get("resourceFieldRef").filter(|r| r.is_object()) {
        sources += 1;
        let rat = format!("{at}.resourceFieldRef");
        match r["resource"].as_str().unwrap_or("") {
            "" => errs.push(FieldError::required(&format!("{rat}.resource"), "")),
            res if ENV_RESOURCES.contains(&res)
                || res.starts_with("requests.hugepages-")
                || res.starts_with("limits.hugepages-") => {}
            res => errs.push(FieldError::not_supported(&format!("{rat}.resource"), res, ENV_RESOURCES)),
        }
    }
    for field in ["configMapKeyRef", "secretKeyRef"] {
        let Some(r) = from.get(field).filter(|r| r.is_object()) else { continue };
        sources += 1;
        let kat = format!("{at}.{field}");
        let name = r["name"].as_str().unwrap_or("");
        for msg in validate_name(NameRule::Dns1123Subdomain, name) {
            errs.push(FieldError::invalid(&format!("{kat}.name"), name, &msg));
        }
        match r["key"].as_str().unwrap_or("") {
            "" => errs.push(FieldError::required(&format!("{kat}.key"), "")),
            key => {
                for msg in config_key(key) {
                    errs.push(FieldError::invalid(&format!("{kat}.key"), key, &msg));
                }
            }
        }
    }
    if sources == 0 {
        errs.push(FieldError::invalid(
            at,
            "",
            "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`",
        ));
    } else if !value.is_empty() {
        errs.push(FieldError::invalid(at, "", "may not be specified when `value` is not empty"));
    } else if sources > 1 {
        errs.push(FieldError::invalid(at, "", "may not have more than one field specified at a time"));
    }
}

/// `validateObjectFieldSelector` for a variable: a known field, one an
/// environment may read (labels and annotations only by key).
fn field_ref(f: &Value, at: &str, errs: &mut Vec<FieldError>) {
    let version = f["apiVersion"].as_str().unwrap_or("");
    let path = f["fieldPath"].as_str().unwrap_or("");
    if version.is_empty() {
        return errs.push(FieldError::required(&format!("{at}.apiVersion"), ""));
    }
    if path.is_empty() {
        return errs.push(FieldError::required(&format!("{at}.fieldPath"), ""));
    }
    let pat = format!("{at}.fieldPath");
    if version != "v1" {
        let msg = format!("error converting fieldPath: unsupported pod version: {version}");
        return errs.push(FieldError::invalid(&pat, path, &msg));
    }
    // `metadata.labels['key']`: the key a qualified name.
    if let Some((head, rest)) = path.split_once('[') {
        if matches!(head, "metadata.labels" | "metadata.annotations") {
            if let Some(key) = rest.strip_suffix(']').and_then(|k| k.strip_prefix('\'')?.strip_suffix('\'')) {
                let key = if head == "metadata.annotations" { key.to_lowercase() } else { key.to_string() };
                if let Some(msg) = crate::selector::label_key_problem(&key) {
                    errs.push(FieldError::invalid(at, &key, &msg));
                }
                return;
            }
        }
    }
    if !KNOWN_FIELDS.contains(&path) {
        let msg = format!("error converting fieldPath: field label not supported: {path}");
        return errs.push(FieldError::invalid(&pat, path, &msg));
    }
    if !ENV_FIELDS.contains(&path) {
        errs.push(FieldError::not_supported(&pat, path, ENV_FIELDS));
    }
}
