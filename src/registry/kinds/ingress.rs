//! Ingresses and IngressClasses (networking.k8s.io/v1): validation as
//! upstream's (rules, hosts and wildcards, paths by their type, backends,
//! TLS, a class's controller and parameters), the deprecated class
//! annotation's warning, the parameters' default scope, and kubectl's
//! columns. The default class an Ingress naming none gets is admission's
//! (`registry/default_ingress_class.rs`).

use std::borrow::Cow;

use serde_json::{json, Map, Value};

use super::super::strategy::{default, object, Strategy};
use super::super::table::cells::*;
use super::super::table::{col, Column, Desc, AGE, NAME};
use crate::api::meta::{validate_name, NameRule};
use crate::api::FieldError;
use crate::clock::SimTime;
use crate::sort::Order;

pub struct Ingress;
pub struct IngressClass;

/// The annotation that named an Ingress's class before `ingressClassName`.
pub const CLASS_ANNOTATION: &str = "kubernetes.io/ingress.class";

const PATH_TYPES: &[&str] = &["Exact", "ImplementationSpecific", "Prefix"];

static INGRESS_COLUMNS: &[Column] = &[
    NAME,
    col(
        "Class",
        "string",
        Desc::Text(Cow::Borrowed(
            "The name of the IngressClass resource that should be used for additional configuration",
        )),
    ),
    col(
        "Hosts",
        "string",
        Desc::Text(Cow::Borrowed("Hosts that incoming requests are matched against before the ingress rule")),
    ),
    col(
        "Address",
        "string",
        Desc::Text(Cow::Borrowed("Address is a list containing ingress points for the load-balancer")),
    ),
    col("Ports", "string", Desc::Text(Cow::Borrowed("Ports of TLS configurations that open"))),
    AGE,
];

static CLASS_COLUMNS: &[Column] = &[
    NAME,
    col("Controller", "string", Desc::Text(Cow::Borrowed("Controller that is responsible for handling this class"))),
    col("Parameters", "string", Desc::Text(Cow::Borrowed("A reference to a resource with additional parameters"))),
    AGE,
];

fn str_at<'a>(o: &'a Value, key: &str) -> Option<&'a str> {
    o.get(key).and_then(Value::as_str)
}

fn push_all(errs: &mut Vec<FieldError>, path: &str, value: &str, msgs: Vec<String>) {
    errs.extend(msgs.iter().map(|m| FieldError::invalid(path, value, m)));
}

/// `*.` and a DNS subdomain (upstream's `IsWildcardDNS1123Subdomain`).
fn wildcard_subdomain(host: &str) -> Vec<String> {
    let mut out = Vec::new();
    if host.len() > 253 {
        out.push("must be no more than 253 characters".into());
    }
    let valid = host.strip_prefix("*.").is_some_and(|rest| validate_name(NameRule::Dns1123Subdomain, rest).is_empty());
    if !valid {
        out.push("a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character (e.g. '*.example.com', regex used for validation is '\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')".into());
    }
    out
}

fn host_messages(host: &str) -> Vec<String> {
    if host.contains('*') {
        wildcard_subdomain(host)
    } else {
        validate_name(NameRule::Dns1123Subdomain, host)
    }
}

/// A port name (upstream's `IsValidPortName`): every rule it breaks.
pub fn port_name_messages(name: &str) -> Vec<String> {
    let mut out = Vec::new();
    if name.len() > 15 {
        out.push("must be no more than 15 characters".into());
    }
    if name.is_empty() || !name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-') {
        out.push("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)".into());
    }
    if !name.bytes().any(|b| b.is_ascii_lowercase()) {
        out.push("must contain at least one letter (a-z)".into());
    }
    if name.contains("--") {
        out.push("must not contain consecutive hyphens".into());
    }
    if name.starts_with('-') || name.ends_with('-') {
        out.push("must not begin or end with a hyphen".into());
    }
    out
}

/// A typed local object reference (a resource backend, a class's
/// parameters): the group a subdomain, kind and name path segments.
fn validate_reference(r: &Value, path: &str, errs: &mut Vec<FieldError>) {
    if let Some(group) = str_at(r, "apiGroup").filter(|g| !g.is_empty()) {
        push_all(errs, &format!("{path}.apiGroup"), group, validate_name(NameRule::Dns1123Subdomain, group));
    }
    for (field, what) in [("kind", "kind is required"), ("name", "name is required")] {
        let at = format!("{path}.{field}");
        match str_at(r, field).unwrap_or("") {
            "" => errs.push(FieldError::required(&at, what)),
            v => push_all(errs, &at, v, validate_name(NameRule::PathSegment, v)),
        }
    }
}

fn validate_backend(b: &Value, path: &str, errs: &mut Vec<FieldError>) {
    let (resource, service) = (b.get("resource").filter(|v| !v.is_null()), b.get("service").filter(|v| !v.is_null()));
    match (resource, service) {
        (Some(_), Some(_)) => errs.push(FieldError::invalid(path, "", "cannot set both resource and service backends")),
        (None, None) => errs.push(FieldError::invalid(path, "", "resource or service backend is required")),
        (Some(r), None) => validate_reference(r, &format!("{path}.resource"), errs),
        (None, Some(svc)) => {
            match str_at(svc, "name").unwrap_or("") {
                "" => errs.push(FieldError::required(&format!("{path}.service.name"), "")),
                n => push_all(errs, &format!("{path}.service.name"), n, validate_name(NameRule::Dns1035Label, n)),
            }
            let port = svc.get("port");
            let name = port.and_then(|p| str_at(p, "name")).filter(|n| !n.is_empty());
            let number = port.and_then(|p| p.get("number")).and_then(Value::as_i64).filter(|n| *n != 0);
            match (name, number) {
                (Some(_), Some(_)) => {
                    errs.push(FieldError::invalid(path, "", "cannot set both port name & port number"))
                }
                (Some(n), None) => push_all(errs, &format!("{path}.service.port.name"), n, port_name_messages(n)),
                (None, Some(n)) if !(1..=65535).contains(&n) => errs.push(FieldError::invalid_value(
                    &format!("{path}.service.port.number"),
                    &json!(n),
                    "must be between 1 and 65535, inclusive",
                )),
                (None, Some(_)) => {}
                (None, None) => errs.push(FieldError::required(path, "port name or number is required")),
            }
        }
    }
}

fn validate_path(p: &Value, at: &str, errs: &mut Vec<FieldError>) {
    let Some(kind) = str_at(p, "pathType") else {
        errs.push(FieldError::required(&format!("{at}.pathType"), "pathType must be specified"));
        return;
    };
    let path = str_at(p, "path").unwrap_or("");
    let field = format!("{at}.path");
    match kind {
        "Exact" | "Prefix" => {
            if !path.starts_with('/') {
                errs.push(FieldError::invalid(&field, path, "must be an absolute path"));
            }
            for bad in ["//", "/./", "/../", "%2f", "%2F"] {
                if path.contains(bad) {
                    errs.push(FieldError::invalid(&field, path, &format!("must not contain '{bad}'")));
                }
            }
            for bad in ["/..", "/."] {
                if path.ends_with(bad) {
                    errs.push(FieldError::invalid(&field, path, &format!("cannot end with '{bad}'")));
                }
            }
        }
        "ImplementationSpecific" => {
            if !path.is_empty() && !path.starts_with('/') {
                errs.push(FieldError::invalid(&field, path, "must be an absolute path"));
            }
        }
        other => errs.push(FieldError::not_supported(&format!("{at}.pathType"), other, PATH_TYPES)),
    }
    validate_backend(p.get("backend").unwrap_or(&Value::Null), &format!("{at}.backend"), errs);
}

fn validate_spec(spec: &Value, errs: &mut Vec<FieldError>) {
    let rules = spec.get("rules").and_then(Value::as_array);
    let backend = spec.get("defaultBackend").filter(|b| !b.is_null());
    if rules.is_none_or(Vec::is_empty) && backend.is_none() {
        let shown = if rules.is_some() { "[]networking.IngressRule{}" } else { "[]networking.IngressRule(nil)" };
        errs.push(FieldError::invalid_raw("spec", shown, "either `defaultBackend` or `rules` must be specified"));
    }
    if let Some(b) = backend {
        validate_backend(b, "spec.defaultBackend", errs);
    }
    for (i, rule) in rules.into_iter().flatten().enumerate() {
        let at = format!("spec.rules[{i}]");
        let host = str_at(rule, "host").unwrap_or("");
        if !host.is_empty() {
            if host.parse::<core::net::IpAddr>().is_ok() {
                errs.push(FieldError::invalid(&format!("{at}.host"), host, "must be a DNS name, not an IP address"));
            }
            push_all(errs, &format!("{at}.host"), host, host_messages(host));
        }
        if let Some(http) = rule.get("http").filter(|h| !h.is_null()) {
            let paths = http.get("paths").and_then(Value::as_array).filter(|p| !p.is_empty());
            match paths {
                None => errs.push(FieldError::required(&format!("{at}.http.paths"), "")),
                Some(paths) => {
                    for (j, p) in paths.iter().enumerate() {
                        validate_path(p, &format!("{at}.http.paths[{j}]"), errs);
                    }
                }
            }
        }
    }
    for (k, tls) in spec.get("tls").and_then(Value::as_array).into_iter().flatten().enumerate() {
        for (m, host) in tls.get("hosts").and_then(Value::as_array).into_iter().flatten().enumerate() {
            let host = host.as_str().unwrap_or("");
            push_all(errs, &format!("spec.tls[{k}].hosts[{m}]"), host, host_messages(host));
        }
        if let Some(secret) = str_at(tls, "secretName").filter(|s| !s.is_empty()) {
            let msgs = validate_name(NameRule::Dns1123Subdomain, secret);
            push_all(errs, &format!("spec.tls[{k}].secretName"), secret, msgs);
        }
    }
    if let Some(class) = str_at(spec, "ingressClassName") {
        push_all(errs, "spec.ingressClassName", class, validate_name(NameRule::Dns1123Subdomain, class));
    }
}

fn class_annotation(o: &Value) -> Option<&str> {
    o.pointer("/metadata/annotations").and_then(|a| a.get(CLASS_ANNOTATION)).and_then(Value::as_str)
}

impl Strategy for Ingress {
    fn initial_status(&self, _o: &Map<String, Value>) -> Value {
        json!({"loadBalancer": {}})
    }

    fn warnings(&self, o: &Value) -> Vec<String> {
        let named = o.pointer("/spec/ingressClassName").is_some_and(|v| !v.is_null());
        if class_annotation(o).is_some() && !named {
            return vec![format!(
                "annotation \"{CLASS_ANNOTATION}\" is deprecated, please use 'spec.ingressClassName' instead"
            )];
        }
        Vec::new()
    }

    fn validate(&self, o: &Value) -> Vec<FieldError> {
        let mut errs = Vec::new();
        validate_spec(o.get("spec").unwrap_or(&Value::Null), &mut errs);
        errs
    }

    fn validate_create(&self, o: &Value) -> Vec<FieldError> {
        let named = o.pointer("/spec/ingressClassName").and_then(Value::as_str);
        match (class_annotation(o), named) {
            (Some(a), Some(n)) if a != n => vec![FieldError::invalid(
                &format!("annotations.{CLASS_ANNOTATION}"),
                a,
                "must match `ingressClassName` when both are specified",
            )],
            _ => Vec::new(),
        }
    }

    fn columns(&self) -> &[Column] {
        INGRESS_COLUMNS
    }

    fn cells(&self, o: &Value, now: SimTime) -> Vec<Value> {
        let rules = arr(o, "/spec/rules");
        let mut hosts: Vec<&str> = Vec::new();
        let mut shown = String::new();
        for r in rules {
            if hosts.len() == 3 {
                shown = format!("{} + {} more...", hosts.join(","), rules.len() - 3);
                break;
            }
            if let Some(h) = str_at(r, "host").filter(|h| !h.is_empty()) {
                hosts.push(h);
            }
        }
        if shown.is_empty() {
            shown = if hosts.is_empty() { "*".into() } else { hosts.join(",") };
        }
        let mut addresses: Vec<&str> = arr(o, "/status/loadBalancer/ingress")
            .iter()
            .filter_map(|i| str_at(i, "ip").filter(|s| !s.is_empty()).or_else(|| str_at(i, "hostname")))
            .collect();
        addresses.order();
        addresses.dedup();
        let ports = if arr(o, "/spec/tls").is_empty() { "80" } else { "80, 443" };
        vec![
            name(o),
            or_none(s(o, "/spec/ingressClassName")).into(),
            shown.into(),
            addresses.join(",").into(),
            ports.into(),
            age(o, now),
        ]
    }
}

/// A class's controller: at most 250 bytes, a domain-prefixed path.
fn validate_controller(c: Option<&str>, errs: &mut Vec<FieldError>) {
    const FIELD: &str = "spec.controller";
    let c = c.unwrap_or("");
    if c.len() > 250 {
        errs.push(FieldError::too_long(FIELD, "may not be more than 250 bytes"));
    }
    if c.is_empty() {
        errs.push(FieldError::required(FIELD, ""));
        return;
    }
    let Some((domain, path)) = c.split_once('/').filter(|(d, p)| !d.is_empty() && !p.is_empty()) else {
        errs.push(FieldError::invalid(FIELD, c, "must be a domain-prefixed path (such as \"acme.io/foo\")"));
        return;
    };
    push_all(errs, FIELD, domain, validate_name(NameRule::Dns1123Subdomain, domain));
    let path_char = |b: u8| b.is_ascii_alphanumeric() || b"/-._~%!$&'()*+,;=:".contains(&b);
    if !path.bytes().all(path_char) {
        errs.push(FieldError::invalid(
            FIELD,
            path,
            "Invalid path (regex used for validation is '[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+')",
        ));
    }
}

fn validate_parameters(p: &Value, errs: &mut Vec<FieldError>) {
    const AT: &str = "spec.parameters";
    validate_reference(p, AT, errs);
    match str_at(p, "scope") {
        None => errs.push(FieldError::required(&format!("{AT}.scope"), "")),
        Some("Namespace") => match str_at(p, "namespace").unwrap_or("") {
            "" => {
                errs.push(FieldError::required(&format!("{AT}.namespace"), "`parameters.scope` is set to 'Namespace'"))
            }
            ns => push_all(errs, &format!("{AT}.namespace"), ns, validate_name(NameRule::Dns1123Label, ns)),
        },
        Some("Cluster") => {
            if str_at(p, "namespace").is_some_and(|n| !n.is_empty()) {
                errs.push(FieldError::forbidden(&format!("{AT}.namespace"), "`parameters.scope` is set to 'Cluster'"));
            }
        }
        Some(other) => errs.push(FieldError::not_supported(&format!("{AT}.scope"), other, &["Cluster", "Namespace"])),
    }
}

impl Strategy for IngressClass {
    fn defaults(&self, o: &mut Map<String, Value>) {
        if let Some(p) = object(o, "spec").and_then(|spec| object(spec, "parameters")) {
            default(p, "scope", json!("Cluster"));
        }
    }

    fn validate(&self, o: &Value) -> Vec<FieldError> {
        let mut errs = Vec::new();
        let spec = o.get("spec").unwrap_or(&Value::Null);
        validate_controller(str_at(spec, "controller"), &mut errs);
        if let Some(p) = spec.get("parameters").filter(|p| !p.is_null()) {
            validate_parameters(p, &mut errs);
        }
        errs
    }

    fn validate_update(&self, new: &Value, old: &Value) -> Vec<FieldError> {
        let controller = |o: &Value| o.pointer("/spec/controller").and_then(Value::as_str).map(str::to_string);
        if controller(new) != controller(old) {
            let shown = controller(new).unwrap_or_default();
            return vec![FieldError::invalid("spec.controller", &shown, "field is immutable")];
        }
        Vec::new()
    }

    fn columns(&self) -> &[Column] {
        CLASS_COLUMNS
    }

    fn cells(&self, o: &Value, now: SimTime) -> Vec<Value> {
        let parameters = match o.pointer("/spec/parameters").filter(|p| !p.is_null()) {
            None => "<none>".to_string(),
            Some(p) => {
                let group =
                    str_at(p, "apiGroup").filter(|g| !g.is_empty()).map(|g| format!(".{g}")).unwrap_or_default();
                format!("{}{group}/{}", str_at(p, "kind").unwrap_or(""), str_at(p, "name").unwrap_or(""))
            }
        };
        vec![name(o), s(o, "/spec/controller").into(), parameters.into(), age(o, now)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn port_names_break_each_rule_upstream_names() {
        assert!(port_name_messages("http").is_empty());
        assert!(port_name_messages("web-8080").is_empty());
        assert_eq!(port_name_messages("80"), ["must contain at least one letter (a-z)"]);
        assert_eq!(port_name_messages("a--b"), ["must not contain consecutive hyphens"]);
        assert_eq!(port_name_messages("-ab"), ["must not begin or end with a hyphen"]);
        assert_eq!(port_name_messages("Http").len(), 1);
        assert_eq!(port_name_messages("a-very-long-port-name").len(), 1);
    }

    #[test]
    fn wildcard_hosts_need_a_star_dot_and_a_subdomain() {
        assert!(host_messages("*.example.com").is_empty());
        assert!(host_messages("example.com").is_empty());
        for bad in ["*", "*example.com", "f*.example.com", "*.Example.com"] {
            assert_eq!(host_messages(bad).len(), 1, "{bad}");
        }
    }
}
