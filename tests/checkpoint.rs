//! A server written out as its store's log and read back (`Server::state`,
//! `log_since`, `dump`, `restore`) is the same server: every collection,
//! the retained history a watch may still be served, the revisions, the
//! clock and the next uid and generated name. With its controllers
//! restarted on both sides, the two go on identically.

mod common;
use common::*;
use kubesim::api::Revision;
use kubesim::controllers::{Controllers, ALL};
use kubesim::server::{Request, Server, ServerConfig};
use serde_json::{json, Value};

fn config() -> ServerConfig {
    ServerConfig { seed: 7, rbac: true, ..ServerConfig::default() }
}

struct Run {
    s: Server,
    c: Controllers,
}

impl Run {
    fn call(&mut self, method: &str, target: &str, body: Option<Value>) -> u16 {
        let status = call(&mut self.s, method, target, body).status;
        self.c.settle(&mut self.s);
        status
    }

    /// Simulated time moves (grace periods end, history ages out).
    fn wait(&mut self, ms: i64) {
        let t = self.s.now().0 + ms;
        self.s.sync_clock(kubesim::clock::SimTime(t - self.s.state().offset_ms));
        self.c.tick(&mut self.s);
    }

    fn restart_controllers(&mut self) {
        self.c = Controllers::new(ALL).unwrap();
        self.c.settle(&mut self.s);
    }
}

/// Everything a client can read: every collection, the history, a watch
/// from the oldest revision still served, and the state beside the log.
fn observed(s: &mut Server) -> Vec<String> {
    let mut out = vec![format!("{:?}", s.state())];
    let mut paths = Vec::new();
    for root in ["/api", "/apis"] {
        let d = get(s, root).json_body();
        let versions: Vec<String> = if root == "/api" {
            d["versions"].as_array().unwrap().iter().map(|v| format!("/api/{}", v.as_str().unwrap())).collect()
        } else {
            d["groups"]
                .as_array()
                .unwrap()
                .iter()
                .flat_map(|g| g["versions"].as_array().unwrap().iter())
                .map(|v| format!("/apis/{}", v["groupVersion"].as_str().unwrap()))
                .collect()
        };
        out.push(d.to_string());
        for gv in versions {
            let resources = get(s, &gv).json_body();
            out.push(resources.to_string());
            for r in resources["resources"].as_array().unwrap() {
                let name = r["name"].as_str().unwrap();
                let verbs = r["verbs"].as_array().map(|v| v.iter().any(|v| v == "list")).unwrap_or(false);
                if !name.contains('/') && verbs {
                    paths.push(format!("{gv}/{name}"));
                }
            }
        }
    }
    assert!(paths.len() > 25, "{paths:?}");
    for p in paths {
        out.push(String::from_utf8_lossy(&get(s, &p).body).into_owned());
    }
    out.push(String::from_utf8_lossy(&get(s, "/debug/kubesim/history?after=0").body).into_owned());
    let from = s.compacted().0;
    let r = s.handle(Request::new("GET", &format!("/api/v1/pods?watch=true&resourceVersion={from}&timeoutSeconds=1")));
    out.push(format!("{} {}", r.status, String::from_utf8_lossy(&r.body)));
    out
}

fn deployment(name: &str, replicas: u32) -> Value {
    json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name},
        "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}})
}

fn crd() -> Value {
    json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced",
            "names": {"plural": "widgets", "singular": "widget", "kind": "Widget"},
            "versions": [{"name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}]}})
}

/// A cluster that has lived: the starter workloads, a rollout, a custom
/// resource, deletions, time passing, history compacted. Each step's
/// writes are appended to `logs` as the page saves them.
fn live(run: &mut Run, logs: &mut Vec<Vec<u8>>, saved: &mut Revision) {
    let mut save = |s: &Server, logs: &mut Vec<Vec<u8>>| {
        logs.push(s.log_since(*saved).expect("nothing compacted between saves"));
        *saved = s.revision();
    };
    for req in kubesim::starter::requests(&Default::default(), run.s.now()) {
        run.s.handle(req);
        run.c.settle(&mut run.s);
    }
    save(&run.s, logs);
    assert_eq!(run.call("POST", "/apis/apps/v1/namespaces/default/deployments", Some(deployment("web", 3))), 201);
    assert_eq!(run.call("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", Some(crd())), 201);
    save(&run.s, logs);
    run.wait(5_000);
    assert_eq!(
        run.call(
            "POST",
            "/apis/example.com/v1/namespaces/default/widgets",
            Some(
                json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"generateName": "w-"}, "size": 3})
            )
        ),
        201
    );
    for i in 0..20 {
        run.call(
            "POST",
            "/api/v1/namespaces/default/configmaps",
            Some(json!({"metadata": {"name": format!("c{i}"), "labels": {"n": format!("{i}")}}})),
        );
    }
    save(&run.s, logs);
    let r = run.s.handle(
        Request::new("PATCH", "/apis/apps/v1/namespaces/default/deployments/web")
            .with_header("Content-Type", "application/merge-patch+json")
            .with_body(
                br#"{"spec":{"replicas":5,"template":{"spec":{"containers":[{"name":"c","image":"nginx:2"}]}}}}"#
                    .to_vec(),
            ),
    );
    assert_eq!(r.status, 200);
    run.c.settle(&mut run.s);
    run.call("DELETE", "/api/v1/namespaces/default/configmaps/c3", None);
    run.call("DELETE", "/api/v1/namespaces/default/pods/counter", None);
    save(&run.s, logs);
    run.wait(40_000);
    for i in 0..5 {
        run.call(
            "PUT",
            &format!("/api/v1/namespaces/default/configmaps/c{i}"),
            Some(json!({"metadata": {"name": format!("c{i}")}, "data": {"k": "v"}})),
        );
    }
    save(&run.s, logs);
    assert_eq!(run.call("POST", "/debug/kubesim/compact", None), 200);
    save(&run.s, logs);
    run.wait(400_000);
    run.call("DELETE", "/api/v1/namespaces/default/configmaps/c9", None);
    save(&run.s, logs);
}

fn more(run: &mut Run) {
    run.call("POST", "/api/v1/namespaces/default/configmaps", Some(json!({"metadata": {"generateName": "next-"}})));
    run.call("DELETE", "/apis/apps/v1/namespaces/default/deployments/web", None);
    run.call("POST", "/apis/apps/v1/namespaces/default/deployments", Some(deployment("api", 2)));
    run.wait(60_000);
    run.call("DELETE", "/apis/example.com/v1/namespaces/default/widgets?labelSelector=", None);
    run.wait(400_000);
}

#[test]
fn a_restored_server_is_the_server_saved_and_goes_on_the_same() {
    let mut a = Run { s: Server::new(config()), c: Controllers::new(ALL).unwrap() };
    let (mut logs, mut saved) = (Vec::new(), Revision(0));
    live(&mut a, &mut logs, &mut saved);
    assert!(a.s.compacted().0 > 0 && a.s.revision().0 > 200, "{:?}", a.s.state());
    let slices: Vec<&[u8]> = logs.iter().map(Vec::as_slice).collect();
    let mut b = Run { s: Server::restore(config(), &a.s.state(), &slices).unwrap(), c: Controllers::new(ALL).unwrap() };
    let dump = a.s.dump();
    let mut d =
        Run { s: Server::restore(config(), &a.s.state(), &[&dump]).unwrap(), c: Controllers::new(ALL).unwrap() };
    let want = observed(&mut a.s);
    assert_eq!(observed(&mut b.s), want, "restored from the saves' logs");
    assert_eq!(observed(&mut d.s), want, "restored from a dump");
    // Controllers restarted on all three: nothing to do in a settled
    // cluster, and the same futures.
    for run in [&mut a, &mut b, &mut d] {
        let before = run.s.revision();
        run.restart_controllers();
        assert_eq!(run.s.revision(), before, "a restart in a settled cluster writes nothing");
        more(run);
    }
    let want = observed(&mut a.s);
    assert_eq!(observed(&mut b.s), want);
    assert_eq!(observed(&mut d.s), want);
}

#[test]
fn a_dump_then_later_logs_restore_too() {
    let mut a = Run { s: Server::new(config()), c: Controllers::new(ALL).unwrap() };
    let (mut logs, mut saved) = (Vec::new(), Revision(0));
    live(&mut a, &mut logs, &mut saved);
    let dump = a.s.dump();
    let at = a.s.revision();
    a.call("POST", "/api/v1/namespaces/default/configmaps", Some(json!({"metadata": {"name": "after"}})));
    a.call("DELETE", "/api/v1/namespaces/default/configmaps/c1", None);
    let tail = a.s.log_since(at).unwrap();
    let mut b = Server::restore(config(), &a.s.state(), &[&dump, &tail]).unwrap();
    assert_eq!(observed(&mut b), observed(&mut a.s));
}

#[test]
fn logs_that_do_not_fit_are_refused() {
    let mut a = Run { s: Server::new(config()), c: Controllers::new(ALL).unwrap() };
    create_cm(&mut a.s, "x", json!({}));
    let log = a.s.log_since(Revision(0)).unwrap();
    let state = a.s.state();
    // Cut short, or ending elsewhere than the state says.
    let err = Server::restore(config(), &state, &[&log[..log.len() - 3]]).err().unwrap();
    assert!(err.contains("ends inside"), "{err}");
    let err = Server::restore(config(), &state, &[&log, &log]).err().unwrap();
    assert!(err.contains("goes back"), "{err}");
    let mut other = state.clone();
    other.revision += 1;
    let err = Server::restore(config(), &other, &[&log]).err().unwrap();
    assert!(err.contains("ends at revision"), "{err}");
    // A log from after a compaction is not offered: the whole store is.
    assert_eq!(call(&mut a.s, "POST", "/debug/kubesim/compact", None).status, 200);
    assert!(a.s.log_since(Revision(1)).is_none());
}
