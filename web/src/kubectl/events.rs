//! `events [-n NS | -A] [--for TYPE/NAME] [--types=Normal,Warning]` as
//! kubectl 1.33 lists events: core/v1 Events, 500 at a time (`--for` as a
//! field selector on the involved object's kind, apiVersion and name),
//! sorted by when they last happened (a series' last observation, else
//! `lastTimestamp`, else `eventTime`; ties keep the server's order), in
//! its columns: LAST SEEN (`5s`, or `2m (x3 over 10m)` for a repeat),
//! TYPE, REASON, OBJECT (`Kind/name`), MESSAGE; NAMESPACE first with `-A`.

use kubesim::sort::Order;

use super::*;

pub(super) fn events(s: &mut Session, d: &Discovery, cmd: &Command, out: &mut Outcome) {
    for t in &cmd.events_types {
        if !t.eq_ignore_ascii_case("Normal") && !t.eq_ignore_ascii_case("Warning") {
            return out.error("error: valid --types are Normal or Warning");
        }
    }
    let ns = namespace_of(cmd);
    let mut field = String::new();
    if let Some(target) = &cmd.events_for {
        let Some((typed, name)) = target.split_once('/') else {
            return out.error(format!("error: --for must be in resource/name form, got {target:?}"));
        };
        let Some(r) = resolve(d, typed, out) else { return };
        field = format!(
            "involvedObject.kind={},involvedObject.apiVersion={},involvedObject.name={name}",
            r.kind,
            r.group_version()
        );
    }
    let collection = match &ns {
        Some(ns) => format!("/api/v1/namespaces/{ns}/events"),
        None => "/api/v1/events".to_string(),
    };
    let mut items = match list_all(s, &collection, (&field, ""), cmd.chunk_size) {
        Ok(items) => items,
        Err(e) => return out.error(server_error(&e)),
    };
    items.retain(|e| {
        let t = e["type"].as_str().unwrap_or("");
        cmd.events_types.is_empty() || cmd.events_types.iter().any(|w| w.eq_ignore_ascii_case(t))
    });
    if items.is_empty() {
        return out.line(match &ns {
            Some(ns) => format!("No events found in {ns} namespace."),
            None => "No events found.".to_string(),
        });
    }
    let mut timed: Vec<(i64, Value)> = items.into_iter().map(|e| (last_happened(&e), e)).collect();
    timed.order_by_key(|(t, _)| *t);
    let now = s.server.now().0;
    let mut rows = vec![];
    let mut header = vec![];
    if ns.is_none() {
        header.push("NAMESPACE".to_string());
    }
    header.extend(["LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"].map(String::from));
    rows.push(header);
    for (_, e) in &timed {
        let mut row = vec![];
        if ns.is_none() {
            row.push(e["metadata"]["namespace"].as_str().unwrap_or("").to_string());
        }
        let text = |p: &str| e.pointer(p).and_then(Value::as_str).unwrap_or("").to_string();
        row.push(interval(now, e));
        row.push(text("/type"));
        row.push(text("/reason"));
        row.push(format!("{}/{}", text("/involvedObject/kind"), text("/involvedObject/name")));
        row.push(text("/message").trim().to_string());
        rows.push(row);
    }
    out.text.push_str(&super::print::columns(&rows));
}

/// A time field in milliseconds, if set.
fn at(e: &Value, pointer: &str) -> Option<i64> {
    e.pointer(pointer).and_then(Value::as_str).and_then(crate::format::parse_rfc3339)
}

/// kubectl's sort key: a series' last observation, else the last
/// timestamp, else the event time.
fn last_happened(e: &Value) -> i64 {
    if e["series"].is_object() {
        return at(e, "/series/lastObservedTime").unwrap_or(0);
    }
    at(e, "/lastTimestamp").or_else(|| at(e, "/eventTime")).unwrap_or(0)
}

/// LAST SEEN: since it was first seen, or for a repeat since it was last
/// seen, with the count and since when.
fn interval(now: i64, e: &Value) -> String {
    let since = |t: Option<i64>| t.map_or_else(|| "<unknown>".to_string(), |t| crate::format::age(now, t));
    let first = match at(e, "/eventTime") {
        Some(t) => since(Some(t)),
        None => since(at(e, "/firstTimestamp")),
    };
    let count = e["count"].as_i64().unwrap_or(0);
    if e["series"].is_object() {
        let n = e["series"]["count"].as_i64().unwrap_or(0);
        format!("{} (x{n} over {first})", since(at(e, "/series/lastObservedTime")))
    } else if count > 1 {
        format!("{} (x{count} over {first})", since(at(e, "/lastTimestamp")))
    } else {
        first
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{requests_since, session};
    use super::*;

    #[test]
    fn events_are_listed_oldest_first_in_kubectls_columns() {
        let mut s = session();
        let from = s.log.len();
        let out = run(&mut s, "events", "");
        assert_eq!(requests_since(&s, from), ["GET /api/v1/namespaces/default/events?limit=500 200"]);
        let lines: Vec<&str> = out.text.lines().collect();
        assert!(lines[0].starts_with("LAST SEEN   TYPE     REASON"), "{}", out.text);
        assert!(out.text.contains("Pod/counter"), "{}", out.text);
        assert!(out.text.contains("Deployment/hello"), "{}", out.text);
        // A minute on, a pod whose events' names sort first (`aaa.…`):
        // its events are the newest, so they come last, with their own age.
        s.advance("1m");
        run(&mut s, "run aaa --image=nginx", "");
        let out = run(&mut s, "events", "");
        let rows: Vec<&str> = out.text.lines().skip(1).collect();
        let first_new = rows.iter().position(|l| l.contains("Pod/aaa")).unwrap();
        assert!(rows[first_new..].iter().all(|l| l.starts_with("0s ") && l.contains("Pod/aaa")), "{}", out.text);
        assert!(rows[..first_new].iter().all(|l| l.starts_with("60s ")), "{}", out.text);
        assert!(first_new > 0);

        let from = s.log.len();
        let out = run(&mut s, "events --for pod/counter", "");
        assert_eq!(
            requests_since(&s, from),
            ["GET /api/v1/namespaces/default/events?fieldSelector=involvedObject.kind%3DPod%2CinvolvedObject.apiVersion%3Dv1%2CinvolvedObject.name%3Dcounter&limit=500 200"]
        );
        assert!(out.text.lines().skip(1).all(|l| l.contains("Pod/counter")), "{}", out.text);
        assert!(run(&mut s, "events -A", "").text.starts_with("NAMESPACE     LAST SEEN"));
        assert_eq!(run(&mut s, "events --types=Warning", "").text, "No events found in default namespace.\n");
        assert_eq!(run(&mut s, "events -n nope", "").text, "No events found in nope namespace.\n");
        assert!(run(&mut s, "events --types=Foo", "").failed);
    }
}
