//! `wait TYPE NAME… | TYPE/NAME… | TYPE -l SEL | TYPE --all
//! --for=condition=C[=V]|jsonpath=PATH[=V]|delete|create [--timeout=D]`,
//! as kubectl 1.33 checks: the objects read as its builder reads them
//! (each named one, or the type listed by the selector), then each object
//! again: read by name when checking once (`--timeout=0`) or waiting for
//! it to be created, else listed by its name from resourceVersion 0 as
//! its informer starts (a deletion's wait reads it by name first too). A condition is met when the
//! object's `status.conditions` has the type (any case) with the status
//! (any case, `True` unless given), unless the object's generation is
//! newer than the one the condition (or the status) observed; a JSONPath
//! when it finds one value whose Go `%v` is the value given (any value
//! when none is given). kubectl then watches until the condition is met or
//! `--timeout` (30s) passes; the page cannot hold the command bar that
//! long, so it checks once and says what kubectl would go on doing —
//! except with `--timeout=0`, which kubectl too checks once.

use super::*;

/// What `--for` waits for.
enum Wanted {
    Condition { name: String, status: String },
    JsonPath { path: String, value: Option<String> },
    Delete,
    Create,
}

/// `--for`, read as kubectl reads it (before any request).
fn wanted(spec: &str) -> Result<Wanted, String> {
    if spec == "delete" {
        return Ok(Wanted::Delete);
    }
    if spec == "create" {
        return Ok(Wanted::Create);
    }
    if let Some(rest) = spec.strip_prefix("condition=") {
        let (name, status) = rest.split_once('=').unwrap_or((rest, "true"));
        return Ok(Wanted::Condition { name: name.into(), status: status.into() });
    }
    if let Some(rest) = spec.strip_prefix("jsonpath=") {
        // The value follows the first `=` after the expression (its closing
        // brace, when it has braces).
        let after = if rest.starts_with('{') { rest.find('}').unwrap_or(rest.len()) } else { 0 };
        let (expr, value) = match rest[after..].find('=') {
            Some(i) => (&rest[..after + i], Some(rest[after + i + 1..].trim_matches(['\'', '"']).to_string())),
            None => (rest, None),
        };
        if expr.is_empty() {
            return Err("error: jsonpath expression cannot be empty".into());
        }
        let path = super::sort_by::relaxed_path(expr.trim_matches(['\'', '"']))?;
        return Ok(Wanted::JsonPath { path, value });
    }
    Err(format!("error: unrecognized condition: {spec:?}"))
}

/// A Go duration as the `--timeout` flag reads it, in milliseconds.
fn timeout(text: &str) -> Result<i64, String> {
    go_duration("--timeout", "wait", text)
}

/// A Go duration flag of a command (`--timeout`, `logs --since`), in
/// milliseconds, or cobra's error for it.
pub(super) fn go_duration(flag: &str, verb: &str, text: &str) -> Result<i64, String> {
    let (negative, magnitude) = match text.strip_prefix('-') {
        Some(m) => (true, m),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let ms = match magnitude {
        "0" => Some(0),
        m => kubesim::clock::parse_duration_millis(m),
    };
    match ms {
        Some(ms) if negative => Ok(-ms),
        Some(ms) => Ok(ms),
        None => Err(format!(
            "error: invalid argument \"{text}\" for \"{flag}\" flag: time: invalid duration \"{text}\"\nSee 'kubectl {verb} --help' for usage."
        )),
    }
}

/// Whether `obj` meets the condition (kubectl's `checkCondition`).
fn condition_met(obj: &Value, name: &str, status: &str) -> bool {
    let Some(conditions) = obj.pointer("/status/conditions").and_then(Value::as_array) else {
        return false;
    };
    for c in conditions {
        let Some(t) = c.get("type").and_then(Value::as_str) else { continue };
        if !t.eq_ignore_ascii_case(name) {
            continue;
        }
        let Some(s) = c.get("status").and_then(Value::as_str) else { continue };
        if let Some(generation) = obj.pointer("/metadata/generation").and_then(Value::as_i64) {
            let observed = c
                .get("observedGeneration")
                .and_then(Value::as_i64)
                .or_else(|| obj.pointer("/status/observedGeneration").and_then(Value::as_i64));
            if observed.is_some_and(|o| o < generation) {
                return false;
            }
        }
        return s.eq_ignore_ascii_case(status);
    }
    false
}

/// Whether `obj` meets the JSONPath condition, or kubectl's error for it.
fn jsonpath_met(obj: &Value, path: &str, value: Option<&str>) -> Result<bool, String> {
    let found =
        kubesim::api::jsonpath::select(obj, path).ok_or_else(|| format!("error: error parsing jsonpath {{{path}}}"))?;
    let Some(value) = value else { return Ok(!found.is_empty()) };
    match found.as_slice() {
        [] => Ok(false),
        [one] if one.is_object() || one.is_array() => {
            Err("error: jsonpath leads to a nested object or list which is not supported".into())
        }
        [one] => Ok(super::custom_columns::go_v(one) == value),
        _ => Err("error: given jsonpath expression matches more than one value".into()),
    }
}

/// `pods/counter`, `deployments.apps/web`: how kubectl names an object it
/// gave up on.
fn resource_ref(r: &ApiResource, name: &str) -> String {
    if r.group.is_empty() {
        format!("{}/{name}", r.resource)
    } else {
        format!("{}.{}/{name}", r.resource, r.group)
    }
}

pub(super) fn wait(s: &mut Session, d: &Discovery, cmd: &Command, out: &mut Outcome) {
    let spec = cmd.wait_for.clone().unwrap_or_default();
    let wanted = match wanted(&spec) {
        Ok(w) => w,
        Err(e) => return out.error(e),
    };
    let timeout_ms = match timeout(cmd.timeout.as_deref().unwrap_or("30s")) {
        Ok(t) => t,
        Err(e) => return out.error(e),
    };
    let ns = namespace_of(cmd);
    // The objects, as the builder finds them: (resource, namespace, name).
    let mut objects: Vec<(ApiResource, String, String)> = Vec::new();
    let mut errors = Vec::new();
    let by_list = cmd.selector.is_some() || cmd.all;
    for t in &cmd.types {
        let (t, named) = match t.split_once('/') {
            Some((t, name)) => (t, vec![name.to_string()]),
            None => (t.as_str(), cmd.names.clone()),
        };
        let Some(r) = resolve(d, t, out) else { return };
        if by_list {
            let q = build_query(&[("labelSelector".into(), cmd.selector.clone().unwrap_or_default())]);
            let path = r.collection(ns.as_deref());
            let e = send(
                s,
                "GET",
                &if q.is_empty() { path } else { format!("{path}?{q}") },
                None,
                None,
                "application/json",
            );
            if e.response.status != 200 {
                return out.error(server_error(&e));
            }
            for item in body_json(&e.response)["items"].as_array().into_iter().flatten() {
                let name = item.pointer("/metadata/name").and_then(Value::as_str).unwrap_or("").to_string();
                let in_ns = item.pointer("/metadata/namespace").and_then(Value::as_str).unwrap_or("").to_string();
                objects.push((r.clone(), in_ns, name));
            }
            continue;
        }
        for name in named {
            let in_ns = ns.clone().unwrap_or_else(|| cmd.context_namespace.clone());
            let e = send(s, "GET", &r.item(Some(&in_ns), &name), None, None, "application/json");
            match e.response.status {
                200 => objects.push((r.clone(), in_ns, name)),
                // (Waiting for a deletion: what is gone already is done.)
                404 if matches!(wanted, Wanted::Delete) => {}
                _ => errors.push(server_error(&e)),
            }
        }
    }
    if objects.is_empty() && errors.is_empty() && !matches!(wanted, Wanted::Delete) {
        return out.error("error: no matching resources found");
    }
    for (r, in_ns, name) in &objects {
        // The object as the check sees it: read again (checking once, or
        // waiting for it to exist); else the informer's first list, of it
        // alone (a deletion's wait reads it once more first).
        let item = r.item(Some(in_ns), name);
        let obj = if timeout_ms == 0 || matches!(wanted, Wanted::Create) {
            let e = send(s, "GET", &item, None, None, "application/json");
            (e.response.status == 200).then(|| body_json(&e.response))
        } else {
            if matches!(wanted, Wanted::Delete) {
                send(s, "GET", &item, None, None, "application/json");
            }
            let q = build_query(&[
                ("fieldSelector".into(), format!("metadata.name={name}")),
                ("limit".into(), "500".into()),
                ("resourceVersion".into(), "0".into()),
            ]);
            let namespace = r.namespaced.then_some(in_ns.as_str());
            let e = send(s, "GET", &format!("{}?{q}", r.collection(namespace)), None, None, "application/json");
            body_json(&e.response)["items"].as_array().and_then(|i| i.first()).cloned()
        };
        let met = match (&wanted, &obj) {
            (Wanted::Delete, obj) => obj.is_none(),
            (_, None) => false,
            (Wanted::Create, Some(_)) => true,
            (Wanted::Condition { name, status }, Some(o)) => condition_met(o, name, status),
            (Wanted::JsonPath { path, value }, Some(o)) => match jsonpath_met(o, path, value.as_deref()) {
                Ok(met) => met,
                Err(e) => return out.error(e),
            },
        };
        if met {
            out.line(format!("{} condition met", name_ref(r, name)));
        } else if timeout_ms == 0 {
            return out.error(format!("error: condition not met for {}", resource_ref(r, name)));
        } else {
            let gives_up =
                if timeout_ms < 0 { "a week".to_string() } else { cmd.timeout.clone().unwrap_or_else(|| "30s".into()) };
            out.line(format!(
                "({} not yet: kubectl would keep watching it until it is, or for {gives_up} and then say \"error: timed out waiting for the condition on {}\"; here, run it again as the clock moves.)",
                name_ref(r, name),
                resource_ref(r, name)
            ));
        }
    }
    for e in errors {
        out.error(e);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_condition_observed_for_an_older_generation_is_not_met() {
        let obj = json!({"metadata": {"generation": 3}, "status": {"observedGeneration": 2,
            "conditions": [{"type": "Available", "status": "True"}]}});
        assert!(!condition_met(&obj, "available", "true"));
        let obj = json!({"metadata": {"generation": 3}, "status": {"observedGeneration": 2,
            "conditions": [{"type": "Available", "status": "True", "observedGeneration": 3}]}});
        assert!(condition_met(&obj, "available", "TRUE"));
        assert!(!condition_met(&obj, "available", "false"));
        assert!(!condition_met(&obj, "Progressing", "true"));
    }

    #[test]
    fn timeouts_read_as_go_durations() {
        assert_eq!(timeout("0"), Ok(0));
        assert_eq!(timeout("1m30s"), Ok(90_000));
        assert_eq!(timeout("-1s"), Ok(-1000));
        assert!(timeout("1").is_err());
    }
}
