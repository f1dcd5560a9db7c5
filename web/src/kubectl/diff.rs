//! `kubectl diff -f -`: what an apply would change, asked of the server
//! as kubectl 1.33 asks it (the live object, then the apply as a dry run:
//! `dryRun=All`, so nothing is stored), and printed as kubectl prints it
//! through `diff -u -N` of two directories, LIVE and MERGED, one file per
//! object named `[GROUP.]VERSION.KIND.NAMESPACE.NAME` in sorted order.

use super::write::{applied_configuration, document_target, last_applied, two_way_patch};
use super::*;

/// One object's two sides, as YAML ("" where it does not exist).
struct Sides {
    file: String,
    live: String,
    merged: String,
}

pub(super) fn diff(s: &mut Session, d: &Discovery, cmd: &Command, file: &str, out: &mut Outcome) {
    if cmd.filename.as_deref() != Some("-") {
        return out.error("error: only -f - is available here: paste the file into the box below the command line");
    }
    let docs = match parse_documents(file) {
        Ok(docs) => docs,
        Err(e) => return out.error(format!("error: {e}")),
    };
    let mut objects = Vec::new();
    for doc in docs {
        match sides(s, d, cmd, doc) {
            // In the order of their file names (kubectl's directory
            // listing), the same name in the order given.
            Ok(o) => {
                let at = objects.partition_point(|p: &Sides| p.file <= o.file);
                objects.insert(at, o)
            }
            // kubectl stops at the first object it cannot diff, and runs
            // no diff at all.
            Err(e) => return out.error(e),
        }
    }
    let now = s.server.now();
    let (live_dir, merged_dir) = temp_dirs(now.0);
    // The files' times as `diff` prints them (the page's clock).
    let stamp = {
        let t = now.rfc3339_micro().replace('T', " ");
        format!("{}000 +0000", t.trim_end_matches('Z'))
    };
    for o in objects.iter().filter(|o| o.live != o.merged) {
        let (live, merged) = (format!("/tmp/{live_dir}/{}", o.file), format!("/tmp/{merged_dir}/{}", o.file));
        out.line(format!("diff -u -N {live} {merged}"));
        out.line(format!("--- {live}\t{stamp}"));
        out.line(format!("+++ {merged}\t{stamp}"));
        out.text.push_str(&crate::format::unified_hunks(&o.live, &o.merged));
    }
}

/// The live object and the one the apply would make, for one document.
fn sides(s: &mut Session, d: &Discovery, cmd: &Command, mut doc: Value) -> Result<Sides, String> {
    let (r, name, ns) = document_target(d, cmd, &doc)?;
    if name.is_empty() {
        return Err("error: resource name may not be empty".into());
    }
    let ns = ns.as_deref();
    let item = r.item(ns, &name);
    let live = send(s, "GET", &item, None, None, "application/json");
    let live = match live.response.status {
        200 => Some(body_json(&live.response)),
        404 => None,
        _ => return Err(server_error(&live)),
    };
    let merged = if cmd.server_side {
        let target = format!("{item}?dryRun=All&fieldManager=kubectl&force={}", cmd.force_conflicts);
        send(s, "PATCH", &target, Some("application/apply-patch+yaml"), Some(&doc), "application/json")
    } else if let Some(live) = &live {
        // Client-side apply's patch from the last applied configuration,
        // without a new one of its own, and held to the live object's
        // resourceVersion.
        let mut patch = two_way_patch(&last_applied(live), &applied_configuration(&doc, ns));
        if let Some(p) = patch.as_object_mut() {
            let meta = p.entry("metadata").or_insert_with(|| json!({}));
            if meta.is_object() {
                meta["resourceVersion"] = live["metadata"]["resourceVersion"].clone();
            }
        }
        let target = format!("{item}?dryRun=All&fieldManager=kubectl-client-side-apply");
        let patch = keys_sorted(&patch);
        send(s, "PATCH", &target, Some("application/strategic-merge-patch+json"), Some(&patch), "application/json")
    } else {
        if let (Some(ns), Some(meta)) = (ns, doc.get_mut("metadata").and_then(Value::as_object_mut)) {
            meta.insert("namespace".into(), json!(ns));
        }
        let target = format!("{}?dryRun=All&fieldManager=kubectl-client-side-apply", r.collection(ns));
        send(s, "POST", &target, Some("application/json"), Some(&keys_sorted(&doc)), "application/json")
    };
    if !matches!(merged.response.status, 200 | 201) {
        return Err(server_error(&merged));
    }
    let mut merged = body_json(&merged.response);
    let mut live = live;
    if r.group.is_empty() && r.kind == "Secret" {
        mask_secret_data(live.as_mut(), &mut merged);
    }
    let shown = |v: Option<Value>| match v {
        Some(mut v) => {
            if !cmd.show_managed_fields {
                if let Some(m) = v.get_mut("metadata").and_then(Value::as_object_mut) {
                    m.shift_remove("managedFields");
                }
            }
            to_yaml(&v)
        }
        None => String::new(),
    };
    let group = if r.group.is_empty() { String::new() } else { format!("{}.", r.group) };
    let file = format!("{group}{}.{}.{}.{name}", r.version, r.kind, ns.unwrap_or(""));
    Ok(Sides { file, live: shown(live), merged: shown(Some(merged)) })
}

/// A Secret's values hidden as kubectl's diff hides them: `***`, or
/// `*** (before)` and `*** (after)` where a key's value changes.
fn mask_secret_data(live: Option<&mut Value>, merged: &mut Value) {
    const MASK: &str = "***";
    let before: Map<String, Value> = live.as_ref().and_then(|l| l["data"].as_object()).cloned().unwrap_or_default();
    let after: Map<String, Value> = merged["data"].as_object().cloned().unwrap_or_default();
    let masked = |own: &Map<String, Value>, other: &Map<String, Value>, changed: &str| -> Value {
        let masked = own.iter().map(|(k, v)| {
            let differs = other.get(k).is_some_and(|o| o != v);
            (k.clone(), json!(if differs { changed } else { MASK }))
        });
        Value::Object(masked.collect())
    };
    if let Some(live) = live.filter(|l| l["data"].is_object()) {
        live["data"] = masked(&before, &after, "*** (before)");
    }
    if merged["data"].is_object() {
        merged["data"] = masked(&after, &before, "*** (after)");
    }
}

/// The two directories' names, as `os.MkdirTemp` would make them
/// (`LIVE-` and `MERGED-` and a number): here drawn from the page's clock,
/// so that a replayed session prints the same.
fn temp_dirs(now_ms: i64) -> (String, String) {
    let mut x = now_ms as u64 ^ 0x9e37_79b9_7f4a_7c15;
    let mut next = || {
        x = x.wrapping_mul(0x5851_f42d_4c95_7f2d).wrapping_add(0x1405_7b7e_f767_814f);
        (x >> 32) as u32
    };
    (format!("LIVE-{}", next()), format!("MERGED-{}", next()))
}

#[cfg(test)]
mod tests {
    use super::super::tests::{requests_since, sent, session};
    use super::*;

    fn cm(extra: &str) -> String {
        format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dcm\n{extra}")
    }

    /// The hunks after the three header lines.
    fn hunks(text: &str) -> String {
        text.lines().skip(3).map(|l| format!("{l}\n")).collect()
    }

    /// Each output checked against kubectl 1.33's (with GNU diff).
    #[test]
    fn diff_asks_a_dry_run_apply_and_prints_what_it_would_change_as_kubectl_does() {
        let mut s = session();
        let from = s.log.len();
        let o = run(&mut s, "diff -f -", &cm("data:\n  a: \"1\"\n"));
        let lines: Vec<&str> = o.text.lines().collect();
        let (live, merged) = ("/v1.ConfigMap.default.dcm", "/v1.ConfigMap.default.dcm");
        assert!(lines[0].starts_with("diff -u -N /tmp/LIVE-") && lines[0].ends_with(merged), "{}", o.text);
        assert!(
            lines[1].starts_with("--- /tmp/LIVE-")
                && lines[1].ends_with(&format!("{live}\t2023-11-14 22:13:20.000000000 +0000"))
        );
        assert!(lines[2].starts_with("+++ /tmp/MERGED-"));
        let uid = s.log.last().map(|e| body_json(&e.response)["metadata"]["uid"].as_str().unwrap_or("").to_string());
        assert_eq!(
            hunks(&o.text),
            format!("@@ -0,0 +1,9 @@\n+apiVersion: v1\n+data:\n+  a: \"1\"\n+kind: ConfigMap\n+metadata:\n+  creationTimestamp: \"2023-11-14T22:13:20Z\"\n+  name: dcm\n+  namespace: default\n+  uid: {}\n", uid.unwrap_or_default())
        );
        assert_eq!(
            requests_since(&s, from),
            [
                "GET /api/v1/namespaces/default/configmaps/dcm 404",
                "POST /api/v1/namespaces/default/configmaps?dryRun=All&fieldManager=kubectl-client-side-apply 201"
            ]
        );
        assert!(run(&mut s, "get cm dcm", "").failed, "a dry run stores nothing");

        run(&mut s, "apply -f -", &cm("data:\n  a: \"1\"\n"));
        assert_eq!(run(&mut s, "diff -f -", &cm("data:\n  a: \"1\"\n")).text, "", "nothing to change");
        let from = s.log.len();
        let o = run(&mut s, "diff -f -", &cm("  labels: {x: z}\n"));
        assert_eq!(
            hunks(&o.text),
            "@@ -1,12 +1,12 @@\n apiVersion: v1\n-data:\n-  a: \"1\"\n kind: ConfigMap\n metadata:\n   annotations:\n     kubectl.kubernetes.io/last-applied-configuration: |\n       {\"apiVersion\":\"v1\",\"data\":{\"a\":\"1\"},\"kind\":\"ConfigMap\",\"metadata\":{\"annotations\":{},\"name\":\"dcm\",\"namespace\":\"default\"}}\n   creationTimestamp: \"2023-11-14T22:13:20Z\"\n+  labels:\n+    x: z\n   name: dcm\n   namespace: default\n   resourceVersion: \"155\"\n"
        );
        assert_eq!(
            requests_since(&s, from),
            [
                "GET /api/v1/namespaces/default/configmaps/dcm 200",
                "PATCH /api/v1/namespaces/default/configmaps/dcm?dryRun=All&fieldManager=kubectl-client-side-apply 200"
            ]
        );
        assert_eq!(sent(&s), r#"{"data":null,"metadata":{"labels":{"x":"z"},"resourceVersion":"155"}}"#);
        // Server-side: the apply patch as a dry run.
        let from = s.log.len();
        let o = run(&mut s, "diff -f - --server-side", &cm("  labels: {x: z}\n"));
        assert!(hunks(&o.text).starts_with("@@ -7,6 +7,8 @@\n"), "{}", o.text);
        assert_eq!(
            requests_since(&s, from)[1],
            "PATCH /api/v1/namespaces/default/configmaps/dcm?dryRun=All&fieldManager=kubectl&force=false 200"
        );
    }

    #[test]
    fn secrets_are_masked_and_files_come_in_name_order() {
        let mut s = session();
        run(
            &mut s,
            "apply -f -",
            "apiVersion: v1\nkind: Secret\nmetadata:\n  name: sec\nstringData:\n  a: one\n  b: two\n",
        );
        let file = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: sec\nstringData:\n  a: one\n  b: three\n  c: new\n---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: dns1\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: coredns\n  namespace: kube-system\nspec:\n  replicas: 3\n";
        let o = run(&mut s, "diff -f -", file);
        let files: Vec<&str> = o
            .text
            .lines()
            .filter_map(|l| l.strip_prefix("diff -u -N "))
            .map(|l| l.rsplit('/').next().unwrap_or(""))
            .collect();
        assert_eq!(files, ["apps.v1.Deployment.kube-system.coredns", "v1.Namespace..dns1", "v1.Secret.default.sec"]);
        assert!(
            o.text.contains("@@ -1,7 +1,8 @@\n apiVersion: v1\n data:\n   a: '***'\n-  b: '*** (before)'\n+  b: '*** (after)'\n+  c: '***'\n kind: Secret\n"),
            "{}",
            o.text
        );
        assert!(!o.text.contains("dGhyZWU="), "no value shows");
    }

    #[test]
    fn refusals_are_kubectls_and_an_object_that_fails_stops_the_diff() {
        let mut s = session();
        let bad = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: Bad_Name\n---\n".to_string() + &cm("");
        let o = run(&mut s, "diff -f -", &bad);
        assert!(o.failed);
        assert!(
            o.text.starts_with("The ConfigMap \"Bad_Name\" is invalid: metadata.name: Invalid value: \"Bad_Name\""),
            "{}",
            o.text
        );
        assert!(!o.text.contains("diff -u"));
        let o = run(&mut s, "diff -f - -n other", &cm(""));
        assert_eq!(
            (o.failed, o.text.as_str()),
            (true, "Error from server (NotFound): namespaces \"other\" not found\n")
        );
        for (line, said) in [
            ("diff", "error: must specify one of -f and -k"),
            ("diff -f - extra", "error: Unexpected args: [extra]\nSee 'kubectl diff -h' for help and examples"),
            (
                "diff -f - --dry-run=server",
                "error: unknown flag: --dry-run\nSee 'kubectl diff -h' for help and examples",
            ),
            (
                "diff -f - -o yaml",
                "error: unknown shorthand flag: 'o' in -o\nSee 'kubectl diff -h' for help and examples",
            ),
            ("diff -f - --replicas=2", "error: unknown flag: --replicas\nSee 'kubectl diff -h' for help and examples"),
        ] {
            let o = run(&mut s, line, &cm(""));
            assert_eq!((o.failed, o.text), (true, format!("{said}\n")), "{line}");
        }
        assert_eq!(run(&mut s, "diff -f -", "").text, "", "an empty file: nothing");
    }

    #[test]
    fn apply_records_its_configuration_as_kubectl_does() {
        let mut s = session();
        run(&mut s, "apply -f -", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: lastap\n  labels: {b: \"1\", a: \"2\"}\ndata:\n  z: \"1\"\n  b: \"2\"\n");
        // kubectl 1.33's body, byte for byte.
        assert_eq!(
            sent(&s),
            r#"{"apiVersion":"v1","data":{"b":"2","z":"1"},"kind":"ConfigMap","metadata":{"annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{\"apiVersion\":\"v1\",\"data\":{\"b\":\"2\",\"z\":\"1\"},\"kind\":\"ConfigMap\",\"metadata\":{\"annotations\":{},\"labels\":{\"a\":\"2\",\"b\":\"1\"},\"name\":\"lastap\",\"namespace\":\"default\"}}\n"},"labels":{"a":"2","b":"1"},"name":"lastap","namespace":"default"}}"#
        );
        run(&mut s, "apply -f -", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: lans\n");
        assert_eq!(
            sent(&s),
            r#"{"apiVersion":"v1","kind":"Namespace","metadata":{"annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"annotations\":{},\"name\":\"lans\"}}\n"},"name":"lans"}}"#
        );
    }
}
