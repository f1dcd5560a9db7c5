//! API Priority and Fairness objects: served as built-ins, validated, the
//! mandatory and suggested configuration kept as upstream's config
//! producer keeps it (every simulated minute), and each FlowSchema's
//! `Dangling` condition as the config consumer writes it.

mod common;
use common::*;
use kubesim::server::Server;
use serde_json::{json, Value};

/// The bootstrap priority levels, in name order.
const LEVELS: [&str; 8] = [
    "catch-all",
    "exempt",
    "global-default",
    "leader-election",
    "node-high",
    "system",
    "workload-high",
    "workload-low",
];

const FS: &str = "/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas";
const PL: &str = "/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations";

fn names(s: &mut Server, path: &str) -> Vec<String> {
    let list = get(s, path).json_body();
    list["items"].as_array().unwrap().iter().map(|i| i["metadata"]["name"].as_str().unwrap().to_string()).collect()
}

fn dangling(s: &mut Server, name: &str) -> Value {
    let fs = get(s, &format!("{FS}/{name}")).json_body();
    fs["status"]["conditions"].as_array().unwrap().iter().find(|c| c["type"] == "Dangling").cloned().unwrap()
}

#[test]
fn the_mandatory_and_suggested_configuration_exists_at_start() {
    let mut s = server();
    let fs = names(&mut s, FS);
    assert_eq!(fs.len(), 13, "{fs:?}");
    for n in ["exempt", "catch-all", "probes", "system-nodes", "global-default", "service-accounts"] {
        assert!(fs.contains(&n.to_string()), "{n}");
    }
    assert_eq!(names(&mut s, PL), LEVELS);
    let exempt = get(&mut s, &format!("{FS}/exempt")).json_body();
    assert_eq!(exempt["metadata"]["annotations"]["apf.kubernetes.io/autoupdate-spec"], "true");
    assert_eq!(exempt["spec"]["matchingPrecedence"], 1);
    let managers: Vec<&str> =
        exempt["metadata"]["managedFields"].as_array().unwrap().iter().filter_map(|m| m["manager"].as_str()).collect();
    assert_eq!(
        managers,
        ["api-priority-and-fairness-config-producer-v1", "api-priority-and-fairness-config-consumer-v1"]
    );
    let c = dangling(&mut s, "exempt");
    assert_eq!((c["status"].as_str(), c["reason"].as_str()), (Some("False"), Some("Found")));
    assert_eq!(
        c["message"],
        "This FlowSchema references the PriorityLevelConfiguration object named \"exempt\" and it exists"
    );
    let catch_all = get(&mut s, &format!("{PL}/catch-all")).json_body();
    assert_eq!(
        catch_all["spec"],
        json!({"type": "Limited", "limited": {"nominalConcurrencyShares": 5, "limitResponse": {"type": "Reject"}, "lendablePercent": 0}})
    );
}

#[test]
fn the_producer_puts_back_what_was_removed_or_changed_a_minute_later() {
    let mut s = server();
    assert_eq!(call(&mut s, "DELETE", &format!("{FS}/exempt"), None).status, 200);
    assert_eq!(call(&mut s, "DELETE", &format!("{FS}/service-accounts"), None).status, 200);
    // A mandatory spec edited; the exempt level's shares edited (allowed).
    let mut catch_all = get(&mut s, &format!("{PL}/catch-all")).json_body();
    catch_all["spec"]["limited"]["nominalConcurrencyShares"] = json!(50);
    assert_eq!(call(&mut s, "PUT", &format!("{PL}/catch-all"), Some(catch_all)).status, 200);
    let mut exempt = get(&mut s, &format!("{PL}/exempt")).json_body();
    exempt["spec"]["exempt"]["nominalConcurrencyShares"] = json!(7);
    assert_eq!(call(&mut s, "PUT", &format!("{PL}/exempt"), Some(exempt)).status, 200);
    // A suggested one edited, opting out; another edited without opting out.
    let mut system = get(&mut s, &format!("{PL}/system")).json_body();
    system["spec"]["limited"]["nominalConcurrencyShares"] = json!(99);
    system["metadata"]["annotations"]["apf.kubernetes.io/autoupdate-spec"] = json!("false");
    assert_eq!(call(&mut s, "PUT", &format!("{PL}/system"), Some(system)).status, 200);
    let mut node_high = get(&mut s, &format!("{PL}/node-high")).json_body();
    node_high["spec"]["limited"]["nominalConcurrencyShares"] = json!(1);
    assert_eq!(call(&mut s, "PUT", &format!("{PL}/node-high"), Some(node_high)).status, 200);
    // Not yet: the producer looks once a minute.
    assert_eq!(get(&mut s, &format!("{FS}/exempt")).status, 404);
    s.advance(61_000);
    assert_eq!(get(&mut s, &format!("{FS}/exempt")).status, 200);
    assert_eq!(get(&mut s, &format!("{FS}/service-accounts")).status, 200, "suggested objects come back too");
    let shares = |s: &mut Server, n: &str, ptr: &str| get(s, &format!("{PL}/{n}")).json_body().pointer(ptr).cloned();
    assert_eq!(shares(&mut s, "catch-all", "/spec/limited/nominalConcurrencyShares"), Some(json!(5)));
    assert_eq!(shares(&mut s, "exempt", "/spec/exempt/nominalConcurrencyShares"), Some(json!(7)));
    assert_eq!(shares(&mut s, "system", "/spec/limited/nominalConcurrencyShares"), Some(json!(99)));
    assert_eq!(shares(&mut s, "node-high", "/spec/limited/nominalConcurrencyShares"), Some(json!(40)));
}

#[test]
fn an_unreadable_annotation_is_decided_by_generation_and_strays_are_removed() {
    let mut s = server();
    let mut wl = get(&mut s, &format!("{PL}/workload-low")).json_body();
    wl["spec"]["limited"]["nominalConcurrencyShares"] = json!(3);
    wl["metadata"]["annotations"]["apf.kubernetes.io/autoupdate-spec"] = json!("maybe");
    assert_eq!(call(&mut s, "PUT", &format!("{PL}/workload-low"), Some(wl)).status, 200);
    let stray = json!({"metadata": {"name": "stray", "annotations": {"apf.kubernetes.io/autoupdate-spec": "true"}},
        "spec": {"type": "Limited", "limited": {"limitResponse": {"type": "Reject"}}}});
    assert_eq!(call(&mut s, "POST", PL, Some(stray)).status, 201);
    let mine = json!({"metadata": {"name": "mine"}, "spec": {"type": "Limited", "limited": {"limitResponse": {"type": "Reject"}}}});
    assert_eq!(call(&mut s, "POST", PL, Some(mine)).status, 201);
    s.advance(61_000);
    let wl = get(&mut s, &format!("{PL}/workload-low")).json_body();
    assert_eq!(wl["metadata"]["annotations"]["apf.kubernetes.io/autoupdate-spec"], "false", "generation 2: left alone");
    assert_eq!(wl["spec"]["limited"]["nominalConcurrencyShares"], 3);
    assert_eq!(get(&mut s, &format!("{PL}/stray")).status, 404);
    assert_eq!(get(&mut s, &format!("{PL}/mine")).status, 200);
    // Defaults as v1's.
    let mine = get(&mut s, &format!("{PL}/mine")).json_body();
    assert_eq!(mine["spec"]["limited"]["nominalConcurrencyShares"], 30);
    assert_eq!(mine["spec"]["limited"]["lendablePercent"], 0);
}

#[test]
fn a_flow_schema_naming_a_missing_level_is_dangling_until_it_exists() {
    let mut s = server();
    let fs = json!({"metadata": {"name": "tenant-a"}, "spec": {"priorityLevelConfiguration": {"name": "tenant"},
        "distinguisherMethod": {"type": "ByUser"},
        "rules": [{"subjects": [{"kind": "Group", "group": {"name": "tenant-a"}}],
            "resourceRules": [{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"], "namespaces": ["*"]}]}]}});
    let r = call(&mut s, "POST", FS, Some(fs));
    assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
    assert_eq!(r.json_body()["spec"]["matchingPrecedence"], 1000);
    let c = dangling(&mut s, "tenant-a");
    assert_eq!((c["status"].as_str(), c["reason"].as_str()), (Some("True"), Some("NotFound")));
    assert_eq!(
        c["message"],
        "This FlowSchema references the PriorityLevelConfiguration object named \"tenant\" but there is no such object"
    );
    let pl = json!({"metadata": {"name": "tenant"}, "spec": {"type": "Limited", "limited": {"nominalConcurrencyShares": 1,
        "limitResponse": {"type": "Queue", "queuing": {"queues": 4, "handSize": 2}}}}});
    assert_eq!(call(&mut s, "POST", PL, Some(pl)).status, 201);
    assert_eq!(dangling(&mut s, "tenant-a")["status"], "False");
    // kubectl's columns.
    let table = s.handle(
        kubesim::server::Request::new("GET", &format!("{PL}/tenant"))
            .with_header("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io"),
    );
    let t = table.json_body();
    let cols: Vec<&str> =
        t["columnDefinitions"].as_array().unwrap().iter().filter_map(|c| c["name"].as_str()).collect();
    assert_eq!(cols, ["Name", "Type", "NominalConcurrencyShares", "Queues", "HandSize", "QueueLengthLimit", "Age"]);
    assert_eq!(
        t["rows"][0]["cells"].as_array().unwrap()[..6],
        [json!("tenant"), json!("Limited"), json!(1), json!(4), json!(2), json!(50)]
    );
}

#[test]
fn invalid_objects_are_refused_with_their_fields() {
    let mut s = server();
    let cases = [
        (FS, json!({"metadata": {"name": "a"}, "spec": {"priorityLevelConfiguration": {"name": "x"}, "matchingPrecedence": 20000}}),
            "spec.matchingPrecedence: Invalid value: 20000: must be between 1 and 10000 inclusively"),
        (FS, json!({"metadata": {"name": "a"}, "spec": {"priorityLevelConfiguration": {"name": ""}}}),
            "spec.priorityLevelConfiguration.name: Required value: must reference a priority level"),
        (FS, json!({"metadata": {"name": "a"}, "spec": {"priorityLevelConfiguration": {"name": "x"}, "rules": [{"subjects": [{"kind": "User", "user": {"name": "u"}}],
            "resourceRules": [{"verbs": ["get"], "apiGroups": [""], "resources": ["pods"]}]}]}}),
            "spec.rules[0].resourceRules[0].namespaces: Required value: resource rules that are not cluster scoped must supply at least one namespace"),
        (PL, json!({"metadata": {"name": "a"}, "spec": {"type": "Limited"}}),
            "spec.limited: Required value: must not be empty when type is Limited"),
        (PL, json!({"metadata": {"name": "a"}, "spec": {"type": "Limited", "limited": {"limitResponse": {"type": "Queue", "queuing": {"queues": 2, "handSize": 4}}}}}),
            "spec.limited.limitResponse.queuing.handSize: Invalid value: 4: should not be greater than queues (2)"),
        // (8 digits of up to 9 bits: 72 bits of the hash, more than the 60 there are.)
        (PL, json!({"metadata": {"name": "a"}, "spec": {"type": "Limited", "limited": {"limitResponse": {"type": "Queue", "queuing": {"queues": 512, "handSize": 8}}}}}),
            "spec.limited.limitResponse.queuing.handSize: Invalid value: 8: required entropy bits of deckSize 512 and handSize 8 should not be greater than 60"),
        (PL, json!({"metadata": {"name": "a"}, "spec": {"type": "Limited", "limited": {"limitResponse": {"type": "Queue", "queuing": {"queues": 10_000_001, "handSize": 1}}}}}),
            "spec.limited.limitResponse.queuing.queues: Invalid value: 10000001: must not be greater than 10000000"),
    ];
    for (path, body, wanted) in cases {
        let r = call(&mut s, "POST", path, Some(body));
        let message = r.json_body()["message"].as_str().unwrap_or("").to_string();
        assert_eq!(r.status, 422, "{message}");
        assert!(message.contains(wanted), "{message}");
    }
}

/// A level whose deal uses exactly the hash's 60 bits (1,024 queues, hands
/// of 6) is accepted; one more card is not.
#[test]
fn a_deal_may_use_every_bit_of_the_hash_and_no_more() {
    let mut s = server();
    let level = |name: &str, hand: u32| {
        json!({"metadata": {"name": name}, "spec": {"type": "Limited", "limited": {"limitResponse": {"type": "Queue",
            "queuing": {"queues": 1024, "handSize": hand, "queueLengthLimit": 10}}}}})
    };
    let r = call(&mut s, "POST", PL, Some(level("sixty", 6)));
    assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
    let r = call(&mut s, "POST", PL, Some(level("seventy", 7)));
    assert_eq!(r.status, 422);
    assert_eq!(
        r.json_body()["message"],
        "PriorityLevelConfiguration.flowcontrol.apiserver.k8s.io \"seventy\" is invalid: spec.limited.limitResponse.queuing.handSize: Invalid value: 7: required entropy bits of deckSize 1024 and handSize 7 should not be greater than 60"
    );
}

fn uid(s: &mut Server, path: &str) -> String {
    get(s, path).json_body()["metadata"]["uid"].as_str().unwrap().to_string()
}

/// The (FlowSchema, PriorityLevel) uids a request's answer names.
fn matched(s: &mut Server, path: &str, user: Option<(&str, &[&str])>) -> (String, String) {
    let mut req = kubesim::server::Request::new("GET", path);
    if let Some((name, groups)) = user {
        req = req.with_header("Impersonate-User", name);
        for g in groups {
            req = req.with_header("Impersonate-Group", g);
        }
    }
    let r = s.handle(req);
    (
        r.header("X-Kubernetes-Pf-Flowschema-Uid").unwrap_or("-").to_string(),
        r.header("X-Kubernetes-Pf-Prioritylevel-Uid").unwrap_or("-").to_string(),
    )
}

#[test]
fn requests_are_classified_by_precedence_then_name_and_answers_say_how() {
    let mut s = server();
    let fs = |s: &mut Server, n: &str| uid(s, &format!("{FS}/{n}"));
    let pl = |s: &mut Server, n: &str| uid(s, &format!("{PL}/{n}"));
    let pods = "/api/v1/namespaces/default/pods";
    // The administrator is in system:masters: exempt.
    let want = (fs(&mut s, "exempt"), pl(&mut s, "exempt"));
    assert_eq!(matched(&mut s, pods, None), want);
    // An ordinary user: global-default.
    let want = (fs(&mut s, "global-default"), pl(&mut s, "global-default"));
    assert_eq!(matched(&mut s, pods, Some(("alice", &[]))), want);
    // A kube-system service account: kube-system-service-accounts.
    let want = (fs(&mut s, "kube-system-service-accounts"), pl(&mut s, "workload-high"));
    assert_eq!(matched(&mut s, pods, Some(("system:serviceaccount:kube-system:robot", &[]))), want);
    // Health checks from anyone: probes, at the exempt level.
    let want = (fs(&mut s, "probes"), pl(&mut s, "exempt"));
    assert_eq!(matched(&mut s, "/healthz", Some(("alice", &[]))), want);
    // A tenant's FlowSchema at a lower precedence wins for its group
    // once its level exists (a dangling schema is skipped).
    let tenant = json!({"metadata": {"name": "tenant-a"}, "spec": {"priorityLevelConfiguration": {"name": "tenant"},
        "matchingPrecedence": 500, "distinguisherMethod": {"type": "ByUser"},
        "rules": [{"subjects": [{"kind": "Group", "group": {"name": "tenant-a"}}],
            "resourceRules": [{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"], "namespaces": ["*"]}]}]}});
    assert_eq!(call(&mut s, "POST", FS, Some(tenant)).status, 201);
    let global = (fs(&mut s, "global-default"), pl(&mut s, "global-default"));
    assert_eq!(matched(&mut s, pods, Some(("bob", &["tenant-a"]))), global, "dangling: skipped");
    let level = json!({"metadata": {"name": "tenant"}, "spec": {"type": "Limited", "limited": {"limitResponse": {"type": "Reject"}}}});
    assert_eq!(call(&mut s, "POST", PL, Some(level)).status, 201);
    let want = (fs(&mut s, "tenant-a"), pl(&mut s, "tenant"));
    assert_eq!(matched(&mut s, pods, Some(("bob", &["tenant-a"]))), want);
    // Cluster-scoped requests are not in a namespace rule.
    assert_eq!(matched(&mut s, "/api/v1/nodes", Some(("bob", &["tenant-a"]))), global);
}

#[test]
fn a_subresource_is_matched_by_resource_slash_subresource_only() {
    let mut s = server();
    let fs = |s: &mut Server, n: &str| uid(s, &format!("{FS}/{n}"));
    let pl = |s: &mut Server, n: &str| uid(s, &format!("{PL}/{n}"));
    let schema = |name: &str, resource: &str| {
        json!({"metadata": {"name": name}, "spec": {"priorityLevelConfiguration": {"name": "workload-low"},
            "matchingPrecedence": 400,
            "rules": [{"subjects": [{"kind": "Group", "group": {"name": "probers"}}],
                "resourceRules": [{"verbs": ["get"], "apiGroups": [""], "resources": [resource], "namespaces": ["*"]}]}]}})
    };
    assert_eq!(call(&mut s, "POST", FS, Some(schema("status-readers", "pods/status"))).status, 201);
    assert_eq!(call(&mut s, "POST", FS, Some(schema("pod-readers", "pods"))).status, 201);
    let user = Some(("carol", &["probers"][..]));
    let status = "/api/v1/namespaces/default/pods/p/status";
    assert_eq!(matched(&mut s, status, user), (fs(&mut s, "status-readers"), pl(&mut s, "workload-low")));
    let pod = "/api/v1/namespaces/default/pods/p";
    assert_eq!(matched(&mut s, pod, user), (fs(&mut s, "pod-readers"), pl(&mut s, "workload-low")));
    // `pods` alone does not cover its other subresources.
    let other = "/api/v1/namespaces/default/pods/p/ephemeralcontainers";
    assert_eq!(matched(&mut s, other, user), (fs(&mut s, "global-default"), pl(&mut s, "global-default")));
}

#[test]
fn a_refused_request_is_classified_an_unauthenticated_one_is_not() {
    let tokens = kubesim::auth::parse_token_file("t,alice,1\n").unwrap();
    let mut s = Server::new(kubesim::server::ServerConfig { tokens: Some(tokens), rbac: true, ..Default::default() });
    let r = s.handle(kubesim::server::Request::new("GET", "/api/v1/nodes").with_header("Authorization", "Bearer t"));
    assert_eq!(r.status, 403);
    assert!(r.header("X-Kubernetes-Pf-Flowschema-Uid").is_some());
    let r = s.handle(kubesim::server::Request::new("GET", "/api/v1/nodes").with_header("Authorization", "Bearer nope"));
    assert_eq!(r.status, 401);
    assert!(r.header("X-Kubernetes-Pf-Flowschema-Uid").is_none());
}

#[test]
fn metrics_count_requests_dispatches_and_stored_objects_in_prometheus_text() {
    let mut s = server();
    create_cm(&mut s, "a", json!({}));
    get(&mut s, "/api/v1/namespaces/default/configmaps");
    get(&mut s, "/api/v1/namespaces/default/configmaps/nope");
    get(&mut s, "/healthz");
    let r = get(&mut s, "/metrics");
    assert_eq!(r.status, 200);
    assert_eq!(r.header("Content-Type"), Some("text/plain; version=0.0.4; charset=utf-8; escaping=underscores"));
    let text = String::from_utf8(r.body.clone()).unwrap();
    let line = |prefix: &str| text.lines().find(|l| l.starts_with(prefix)).map(str::to_string);
    assert!(text.contains("# HELP apiserver_request_total [STABLE] Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.\n# TYPE apiserver_request_total counter\n"), "{text}");
    assert_eq!(
        line(r#"apiserver_request_total{code="201",component="apiserver",dry_run="",group="",resource="configmaps",scope="namespace",subresource="",verb="POST",version="v1"}"#).as_deref().map(|l| l.rsplit(' ').next().unwrap()),
        Some("1")
    );
    assert!(line(r#"apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="configmaps",scope="namespace",subresource="",verb="LIST",version="v1"}"#).is_some(), "{text}");
    assert!(line(r#"apiserver_request_total{code="404",component="apiserver",dry_run="",group="",resource="configmaps",scope="resource",subresource="",verb="GET",version="v1"}"#).is_some(), "{text}");
    assert!(line(r#"apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="",scope="",subresource="/healthz",verb="GET",version=""}"#).is_some(), "{text}");
    assert!(
        line(r#"apiserver_flowcontrol_dispatched_requests_total{flow_schema="exempt",priority_level="exempt"}"#)
            .is_some(),
        "{text}"
    );
    assert_eq!(
        line(r#"apiserver_storage_objects{resource="flowschemas.flowcontrol.apiserver.k8s.io"}"#).as_deref(),
        Some(r#"apiserver_storage_objects{resource="flowschemas.flowcontrol.apiserver.k8s.io"} 13"#)
    );
    let cms = line(r#"apiserver_storage_objects{resource="configmaps"}"#).unwrap();
    assert!(cms.ends_with(" 1"), "{cms}");
}

/// Requests of several kinds, interleaved and repeated, each counted in
/// its own series, every time (the server keeps each kind's series at
/// hand after its first request).
#[test]
fn request_metrics_count_every_request_in_its_own_series() {
    let mut s = server();
    for i in 0..3 {
        create_cm(&mut s, &format!("c{i}"), json!({}));
        get(&mut s, "/api/v1/namespaces/default/configmaps");
        if i > 0 {
            get(&mut s, "/api/v1/namespaces/default/configmaps/nope");
        }
    }
    let dry = call(
        &mut s,
        "POST",
        "/api/v1/namespaces/default/configmaps?dryRun=All",
        Some(json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "dry"}})),
    );
    assert_eq!(dry.status, 201);
    let text = String::from_utf8(get(&mut s, "/metrics").body.clone()).unwrap();
    let value = |series: &str| {
        text.lines().find(|l| l.starts_with(series)).and_then(|l| l.rsplit(' ').next()).map(str::to_string)
    };
    let labels = |code: &str, dry_run: &str, scope: &str, verb: &str| {
        format!(
            r#"{{code="{code}",component="apiserver",dry_run="{dry_run}",group="",resource="configmaps",scope="{scope}",subresource="",verb="{verb}",version="v1"}}"#
        )
    };
    let total = |l: String| value(&format!("apiserver_request_total{l}"));
    assert_eq!(total(labels("201", "", "namespace", "POST")).as_deref(), Some("3"), "{text}");
    assert_eq!(total(labels("200", "", "namespace", "LIST")).as_deref(), Some("3"), "{text}");
    assert_eq!(total(labels("404", "", "resource", "GET")).as_deref(), Some("2"), "{text}");
    assert_eq!(total(labels("201", "All", "namespace", "POST")).as_deref(), Some("1"), "{text}");
    let count = |dry_run: &str, scope: &str, verb: &str| {
        value(&format!(
            r#"apiserver_request_duration_seconds_count{{component="apiserver",dry_run="{dry_run}",group="",resource="configmaps",scope="{scope}",subresource="",verb="{verb}",version="v1"}}"#
        ))
    };
    assert_eq!(count("", "namespace", "POST").as_deref(), Some("3"), "{text}");
    assert_eq!(count("", "resource", "GET").as_deref(), Some("2"), "{text}");
    assert_eq!(count("All", "namespace", "POST").as_deref(), Some("1"), "{text}");
}

/// Each flow's series count its own requests (dispatched, executed, their
/// seats estimated), however the requests of several flows interleave.
#[test]
fn each_flows_series_count_its_own_requests() {
    let mut s = server();
    let pods = "/api/v1/namespaces/default/pods";
    let users =
        [("alice", 3), ("system:serviceaccount:kube-system:robot", 5), ("system:serviceaccount:default:app", 2)];
    for round in 0..5 {
        for (user, n) in users {
            if round < n {
                matched(&mut s, pods, Some((user, &[])));
            }
        }
    }
    let text = String::from_utf8(get(&mut s, "/metrics").body.clone()).unwrap();
    let value = |prefix: &str| -> String {
        let line = text.lines().find(|l| l.starts_with(prefix)).unwrap_or_else(|| panic!("{prefix}\n{text}"));
        line.rsplit(' ').next().unwrap().to_string()
    };
    for (schema, level, n) in [
        ("global-default", "global-default", "3"),
        ("kube-system-service-accounts", "workload-high", "5"),
        ("service-accounts", "workload-low", "2"),
    ] {
        let labels = format!(r#"flow_schema="{schema}",priority_level="{level}""#);
        assert_eq!(value(&format!("apiserver_flowcontrol_dispatched_requests_total{{{labels}}} ")), n, "{schema}");
        assert_eq!(value(&format!("apiserver_flowcontrol_work_estimated_seats_count{{{labels}}} ")), n, "{schema}");
        let executed = format!("apiserver_flowcontrol_request_execution_seconds_count{{{labels},type=\"regular\"}} ");
        assert_eq!(value(&executed), n, "{schema}");
    }
}

#[test]
fn storage_size_grows_with_writes_and_does_not_shrink_when_compacted() {
    let mut s = server();
    let size = |s: &mut Server| -> u64 {
        let text = String::from_utf8(get(s, "/metrics").body.clone()).unwrap();
        assert!(text.contains("# HELP apiserver_storage_size_bytes [STABLE] Size of the storage database file physically allocated in bytes.\n# TYPE apiserver_storage_size_bytes gauge\n"), "{text}");
        let line =
            text.lines().find(|l| l.starts_with(r#"apiserver_storage_size_bytes{storage_cluster_id="etcd-0"} "#));
        line.and_then(|l| l.rsplit(' ').next()?.parse().ok()).unwrap_or_else(|| panic!("{text}"))
    };
    let start = size(&mut s);
    assert!(start > 0 && start % 4096 == 0, "the bootstrap objects, in whole pages: {start}");
    for i in 0..40 {
        let cm = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": format!("big-{i}")}, "data": {"blob": "x".repeat(1000)}});
        assert_eq!(call(&mut s, "POST", "/api/v1/namespaces/default/configmaps", Some(cm)).status, 201);
    }
    let grown = size(&mut s);
    assert!(grown >= start + 40_000, "{start} -> {grown}");
    for i in 0..40 {
        let r = call(&mut s, "DELETE", &format!("/api/v1/namespaces/default/configmaps/big-{i}"), None);
        assert_eq!(r.status, 200);
    }
    let deleted = size(&mut s);
    assert!(deleted >= grown, "a delete writes a tombstone: {grown} -> {deleted}");
    s.compact(None);
    assert_eq!(size(&mut s), deleted, "compaction frees pages inside the file, it does not shrink it");
}

#[test]
fn metric_flags_hide_disable_and_bound_label_values() {
    let text = |options: kubesim::server::metrics::MetricsOptions| {
        let mut s = Server::new(kubesim::server::ServerConfig { metrics: options, ..Default::default() });
        get(&mut s, "/api/v1/namespaces/default/configmaps");
        String::from_utf8(get(&mut s, "/metrics").body.clone()).unwrap()
    };
    // Deprecated before 1.33: hidden unless asked for by the previous minor.
    let plain = text(Default::default());
    assert!(!plain.contains("apiserver_flowcontrol_request_concurrency_limit"), "{plain}");
    assert!(plain.contains("# HELP apiserver_flowcontrol_nominal_limit_seats [BETA] Nominal number of execution seats configured for each priority level\n"));
    assert!(
        plain.contains("apiserver_flowcontrol_nominal_limit_seats{priority_level=\"global-default\"} 49\n"),
        "{plain}"
    );
    let mut shown = kubesim::server::metrics::MetricsOptions::default();
    assert_eq!(
        shown.show_hidden_for("1.31").unwrap_err(),
        "--show-hidden-metrics-for-version must be omitted or have the value '1.32'. Only the previous minor version is allowed"
    );
    shown.show_hidden_for("1.32").unwrap();
    let all = text(shown);
    assert!(all.contains("# HELP apiserver_flowcontrol_request_concurrency_limit [ALPHA] (Deprecated since 1.30.0) Nominal number of execution seats configured for each priority level\n"), "{all}");
    // Disabled: gone.
    let mut disabled = kubesim::server::metrics::MetricsOptions::default();
    disabled.disabled.insert("apiserver_request_total".into());
    let less = text(disabled);
    assert!(!less.contains("apiserver_request_total"));
    assert!(less.contains("apiserver_request_duration_seconds_bucket{"));
    // Only LIST and GET verbs kept; the rest is "unexpected".
    let mut bounded = kubesim::server::metrics::MetricsOptions::default();
    bounded.allow_labels("apiserver_request_total,verb=GET").unwrap();
    assert!(bounded.allow_labels("no-dashes-allowed,verb=GET").is_err());
    let b = text(bounded);
    assert!(b.contains(r#"scope="namespace",subresource="",verb="unexpected",version="v1"} 1"#), "{b}");
    assert!(!b.lines().any(|l| l.starts_with("apiserver_request_total") && l.contains(r#"verb="LIST""#)), "{b}");
}

#[test]
fn debug_dumps_show_levels_queues_and_requests_as_upstream_prints_them() {
    let mut s = server();
    get(&mut s, "/api/v1/namespaces/default/configmaps");
    let levels =
        String::from_utf8(get(&mut s, "/debug/api_priority_and_fairness/dump_priority_levels").body.clone()).unwrap();
    let lines: Vec<&str> = levels.lines().collect();
    assert_eq!(lines[0], "PriorityLevelName, ActiveQueues, IsIdle, IsQuiescing, WaitingRequests, ExecutingRequests, DispatchedRequests, RejectedRequests, TimedoutRequests, CancelledRequests");
    let names: Vec<&str> = lines[1..].iter().map(|l| l.split(',').next().unwrap()).collect();
    assert_eq!(names, LEVELS);
    assert!(
        lines.iter().any(|l| l.starts_with("catch-all,         0,            true,   false,       0,")),
        "{levels}"
    );
    let queues = String::from_utf8(get(&mut s, "/debug/api_priority_and_fairness/dump_queues").body.clone()).unwrap();
    assert!(queues.starts_with("PriorityLevelName, Index,  PendingRequests, ExecutingRequests, SeatsInUse, NextDispatchR, InitialSeatsSum, MaxSeatsSum, TotalWorkSum\n"), "{queues}");
    // 128 queues for global-default, none for exempt.
    assert_eq!(queues.lines().filter(|l| l.starts_with("global-default,")).count(), 128);
    assert!(!queues.lines().any(|l| l.starts_with("exempt,")));
    let requests = String::from_utf8(
        get(&mut s, "/debug/api_priority_and_fairness/dump_requests?includeRequestDetails=1").body.clone(),
    )
    .unwrap();
    // The dump's own request is the one executing.
    let mine = requests.lines().find(|l| l.starts_with("exempt,")).unwrap_or_else(|| panic!("{requests}"));
    assert!(mine.contains("kubernetes-admin"), "{mine}");
    assert!(mine.contains("/debug/api_priority_and_fairness/dump_requests"), "{mine}");
    assert_eq!(get(&mut s, "/debug/api_priority_and_fairness/dump_nothing").status, 404);
}

/// The seats the work estimator gives a request, read as upstream's
/// `apiserver_flowcontrol_work_estimated_seats` histogram adds them up (the
/// administrator's requests are exempt, yet estimated).
#[test]
fn the_work_estimator_counts_seats_as_upstream_does() {
    let mut s = server();
    for i in 0..250 {
        create_cm(&mut s, &format!("cm-{i:03}"), json!({"app": "x"}));
    }
    let stored = serde_json::from_slice::<Value>(&get(&mut s, "/api/v1/configmaps").body).unwrap()["items"]
        .as_array()
        .unwrap()
        .len() as f64;
    let sum = |s: &mut Server| -> f64 {
        let text = String::from_utf8(get(s, "/metrics").body.clone()).unwrap();
        let prefix = r#"apiserver_flowcontrol_work_estimated_seats_sum{flow_schema="exempt",priority_level="exempt"} "#;
        text.lines().find_map(|l| l.strip_prefix(prefix)).unwrap().parse().unwrap()
    };
    // The seats one request is given (the scrape after it counts itself: one).
    let seats = |s: &mut Server, req: kubesim::server::Request| -> f64 {
        let before = sum(s);
        let _kept = s.serve(req);
        sum(s) - before - 1.0
    };
    let list = |q: &str| kubesim::server::Request::new("GET", &format!("/api/v1/configmaps{q}"));
    // A consistent list goes through twice the objects: 100 a seat.
    assert_eq!(seats(&mut s, list("")), (2.0 * stored / 100.0).ceil());
    // From the watch cache: each object once.
    assert_eq!(seats(&mut s, list("?resourceVersion=0")), (stored / 100.0).ceil());
    // With a selector: all of them, and the page.
    assert_eq!(seats(&mut s, list("?labelSelector=app%3Dx&limit=100")), ((stored + 100.0) / 100.0).ceil());
    // A small page: twice the page.
    assert_eq!(seats(&mut s, list("?limit=50")), 1.0);
    // A parameter given twice counts as the first one (upstream reads the
    // query's first value).
    assert_eq!(seats(&mut s, list("?limit=50&limit=100000")), 1.0);
    assert_eq!(seats(&mut s, list("?labelSelector=&labelSelector=app%3Dx")), (2.0 * stored / 100.0).ceil());
    // A write seen by 25 watchers holds ceil(25 / 10) seats after it.
    let mut watches = Vec::new();
    for _ in 0..25 {
        watches.push(s.serve(kubesim::server::Request::new("GET", "/api/v1/namespaces/default/configmaps?watch=1")));
    }
    let create = kubesim::server::Request::new("POST", "/api/v1/namespaces/default/configmaps")
        .with_header("Content-Type", "application/json")
        .with_body(br#"{"metadata":{"name":"watched"}}"#.to_vec());
    assert_eq!(seats(&mut s, create), 3.0);
    drop(watches);
    let create = kubesim::server::Request::new("POST", "/api/v1/namespaces/default/configmaps")
        .with_header("Content-Type", "application/json")
        .with_body(br#"{"metadata":{"name":"unwatched"}}"#.to_vec());
    assert_eq!(seats(&mut s, create), 1.0);
}

/// With API Priority and Fairness off, upstream's in-flight limits gate
/// requests instead: reads and writes each have their own, long-running
/// requests and `system:masters` are never refused, a slot is given back
/// when its request is answered, and a refusal is plain text with
/// `Retry-After: 1`.
#[test]
fn with_apf_off_the_in_flight_limits_refuse_what_is_over_them() {
    use kubesim::server::dispatch::Gated;
    use kubesim::server::{Request, Served, ServerConfig};
    let mut s = Server::new(ServerConfig {
        apf: false,
        max_requests_inflight: 2,
        max_mutating_requests_inflight: 1,
        ..ServerConfig::default()
    });
    let as_bob = |method: &str, target: &str| Request::new(method, target).with_header("Impersonate-User", "bob");
    let cms = "/api/v1/namespaces/default/configmaps";
    let mut held = Vec::new();
    for _ in 0..2 {
        match s.gate(as_bob("GET", cms)) {
            Gated::Run(p) => held.push(p),
            _ => panic!("a read under the limit must run"),
        }
    }
    // A third read is over the limit.
    let Gated::Done(Served::Response(r)) = s.gate(as_bob("GET", cms)) else {
        panic!("a read over the limit must be refused")
    };
    assert_eq!(r.status, 429);
    assert_eq!(r.body, b"Too many requests, please try again later.\n");
    assert_eq!(r.header("Retry-After"), Some("1"));
    assert_eq!(r.header("Content-Type"), Some("text/plain; charset=utf-8"));
    assert_eq!(r.header("X-Kubernetes-Pf-Flowschema-Uid"), None);
    // Writes count against their own limit; a watch is not counted; the
    // administrator (system:masters) is answered over the limit.
    let Gated::Run(write) = s.gate(as_bob("POST", cms).with_body(br#"{"metadata":{"name":"a"}}"#.to_vec())) else {
        panic!("a write has its own limit")
    };
    assert!(matches!(s.gate(as_bob("GET", &format!("{cms}?watch=true"))), Gated::Run(_)));
    assert!(matches!(s.gate(Request::new("GET", cms)), Gated::Run(_)));
    let Gated::Done(Served::Response(r)) = s.gate(as_bob("DELETE", &format!("{cms}/a"))) else {
        panic!("second write")
    };
    assert_eq!(r.status, 429);
    let metrics = String::from_utf8(get(&mut s, "/metrics").body).unwrap();
    assert!(metrics.contains("apiserver_dropped_requests_total{request_kind=\"readOnly\"} 1\n"), "{metrics}");
    assert!(metrics.contains("apiserver_dropped_requests_total{request_kind=\"mutating\"} 1\n"), "{metrics}");
    assert!(metrics.contains("apiserver_current_inflight_requests{request_kind=\"readOnly\"}"), "{metrics}");
    // Answering one read gives its slot back.
    let p = held.pop().unwrap();
    let ticket = p.ticket.expect("a counted request holds a slot");
    assert!(matches!(s.serve_gated(p), Served::Response(ref r) if r.status == 200));
    s.apf_finish(ticket, s.apf_clock_now());
    assert!(matches!(s.gate(as_bob("GET", cms)), Gated::Run(_)));
    drop(write);
}

/// A limit of 0 is no limit (upstream's `--max-requests-inflight=0`).
#[test]
fn an_in_flight_limit_of_zero_is_no_limit() {
    use kubesim::server::dispatch::Gated;
    use kubesim::server::{Request, ServerConfig};
    let mut s = Server::new(ServerConfig { apf: false, max_requests_inflight: 0, ..ServerConfig::default() });
    let mut held = Vec::new();
    for _ in 0..50 {
        let r = Request::new("GET", "/api/v1/namespaces/default/configmaps").with_header("Impersonate-User", "bob");
        match s.gate(r) {
            Gated::Run(p) => held.push(p),
            _ => panic!("no limit"),
        }
    }
    assert!(held.iter().all(|p| p.ticket.is_none()));
}
