//! Golden request/response transcripts for the examples of spec 000 this
//! core covers. Each scenario renders what a client sends and sees as text;
//! the text must equal `tests/golden/NAME.txt`. Run with UPDATE_GOLDEN=1 to
//! rewrite them after an intended change, then review the diff.

use kubesim::server::{Request, Served, Server, ServerConfig, WatchStream};
use serde_json::{json, Value};

struct Transcript {
    s: Server,
    out: String,
}

fn pretty(body: &[u8]) -> String {
    match serde_json::from_slice::<Value>(body) {
        Ok(v) => serde_json::to_string_pretty(&v).unwrap(),
        Err(_) => String::from_utf8_lossy(body).into_owned(),
    }
}

/// Long lists are summarised: metadata, item count, first and last names.
fn summarize(body: &[u8]) -> String {
    let Ok(mut v) = serde_json::from_slice::<Value>(body) else { return pretty(body) };
    if let Some(items) = v.get("items").and_then(Value::as_array).cloned() {
        if items.len() > 3 {
            let name = |i: &Value| i["metadata"]["name"].as_str().unwrap_or("").to_string();
            v["items"] =
                json!(format!("[{} items: {} .. {}]", items.len(), name(&items[0]), name(&items[items.len() - 1])));
        }
    }
    serde_json::to_string_pretty(&v).unwrap()
}

impl Transcript {
    fn new() -> Self {
        Transcript { s: Server::new(ServerConfig::default()), out: String::new() }
    }

    fn request(method: &str, target: &str, body: Option<&Value>) -> Request {
        let mut r = Request::new(method, target);
        if let Some(b) = body {
            r = r.with_body(serde_json::to_vec(b).unwrap()).with_header("Content-Type", "application/json");
        }
        r
    }

    /// Sends a request quietly (setup), asserting success.
    fn setup(&mut self, method: &str, target: &str, body: Value) {
        let r = self.s.handle(Self::request(method, target, Some(&body)));
        assert!(r.status < 300, "setup {method} {target}: {}", String::from_utf8_lossy(&r.body));
    }

    fn call(&mut self, method: &str, target: &str, body: Option<Value>) -> Value {
        self.out.push_str(&format!("> {method} {target}\n"));
        if let Some(b) = &body {
            self.out.push_str(&format!("{}\n", serde_json::to_string(b).unwrap()));
        }
        let r = self.s.handle(Self::request(method, target, body.as_ref()));
        self.out.push_str(&format!("< {}\n", r.status));
        for (k, v) in &r.headers {
            if k != "Audit-Id" && k != "Cache-Control" {
                self.out.push_str(&format!("< {k}: {v}\n"));
            }
        }
        self.out.push_str(&summarize(&r.body));
        self.out.push_str("\n\n");
        r.json_body()
    }

    fn open_watch(&mut self, target: &str) -> WatchStream {
        self.out.push_str(&format!("> GET {target}\n"));
        match self.s.serve(Request::new("GET", target)) {
            Served::Watch(head, stream) => {
                self.out.push_str(&format!("< {} (stream)\n", head.status));
                stream
            }
            Served::Response(r) | Served::Log(r, _) => {
                panic!("not a watch: {} {}", r.status, String::from_utf8_lossy(&r.body))
            }
        }
    }

    fn drain(&mut self, w: &mut WatchStream) {
        for e in self.s.poll_watch(w, usize::MAX) {
            let mut line = Vec::new();
            e.write_json_line(&mut line);
            self.out.push_str(&String::from_utf8_lossy(&line));
        }
    }

    fn note(&mut self, text: &str) {
        self.out.push_str(&format!("# {text}\n"));
    }

    fn check(self, name: &str) {
        let path = format!("{}/tests/golden/{name}.txt", env!("CARGO_MANIFEST_DIR"));
        if std::env::var("UPDATE_GOLDEN").is_ok() {
            std::fs::write(&path, &self.out).unwrap();
            return;
        }
        let want =
            std::fs::read_to_string(&path).unwrap_or_else(|_| panic!("missing {path}; run with UPDATE_GOLDEN=1"));
        if want != self.out {
            let got_path = format!("{}/target/{name}.got.txt", env!("CARGO_MANIFEST_DIR"));
            let _ = std::fs::write(&got_path, &self.out);
            panic!("transcript {name} differs from {path}; got written to {got_path}");
        }
    }
}

fn pod(name: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}})
}

#[test]
fn list_then_watch() {
    let mut t = Transcript::new();
    t.setup("POST", "/api/v1/namespaces", json!({"metadata": {"name": "test"}}));
    t.setup("POST", "/api/v1/namespaces/test/pods", pod("foo"));
    let list = t.call("GET", "/api/v1/namespaces/test/pods", None);
    let rv = list["metadata"]["resourceVersion"].as_str().unwrap().to_string();
    let mut w = t.open_watch(&format!("/api/v1/namespaces/test/pods?watch=1&resourceVersion={rv}"));
    t.note("another client creates bar and labels foo");
    t.setup("POST", "/api/v1/namespaces/test/pods", pod("bar"));
    let r = t.s.handle(
        Request::new("PATCH", "/api/v1/namespaces/test/pods/foo")
            .with_header("Content-Type", "application/merge-patch+json")
            .with_body(br#"{"metadata":{"labels":{"app":"web"}}}"#.to_vec()),
    );
    assert_eq!(r.status, 200);
    t.drain(&mut w);
    t.check("list_then_watch");
}

#[test]
fn watch_bookmarks() {
    let mut t = Transcript::new();
    t.setup("POST", "/api/v1/namespaces", json!({"metadata": {"name": "test"}}));
    let mut w = t.open_watch("/api/v1/namespaces/test/pods?watch=1&resourceVersion=1&allowWatchBookmarks=true");
    t.setup("POST", "/api/v1/namespaces/test/pods", pod("foo"));
    t.drain(&mut w);
    t.note("the simulated clock advances one minute: a bookmark is due");
    t.s.advance(60_000);
    t.drain(&mut w);
    t.check("watch_bookmarks");
}

#[test]
fn streaming_list() {
    let mut t = Transcript::new();
    t.setup("POST", "/api/v1/namespaces", json!({"metadata": {"name": "test"}}));
    t.setup("POST", "/api/v1/namespaces/test/pods", pod("foo"));
    t.setup("POST", "/api/v1/namespaces/test/pods", pod("bar"));
    let mut w = t.open_watch("/api/v1/namespaces/test/pods?watch=1&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersion=&resourceVersionMatch=NotOlderThan");
    t.drain(&mut w);
    t.check("streaming_list");
}

#[test]
fn chunked_list_of_1253_pods() {
    let mut t = Transcript::new();
    for i in 1..=1253 {
        t.setup("POST", "/api/v1/namespaces/default/pods", pod(&format!("pod-{i:04}")));
    }
    let p1 = t.call("GET", "/api/v1/pods?limit=500", None);
    t.note("a write between pages does not change the snapshot");
    t.setup("POST", "/api/v1/namespaces/default/pods", pod("pod-0000-late"));
    let c1 = p1["metadata"]["continue"].as_str().unwrap().to_string();
    let p2 = t.call("GET", &format!("/api/v1/pods?limit=500&continue={c1}"), None);
    let c2 = p2["metadata"]["continue"].as_str().unwrap().to_string();
    let p3 = t.call("GET", &format!("/api/v1/pods?limit=500&continue={c2}"), None);
    assert_eq!(p1["metadata"]["remainingItemCount"], 753);
    assert_eq!(p2["metadata"]["remainingItemCount"], 253);
    assert!(p3["metadata"].get("remainingItemCount").is_none());
    assert!(p3["metadata"].get("continue").is_none());
    assert_eq!(p3["items"].as_array().unwrap().len(), 253);
    assert_eq!(p1["metadata"]["resourceVersion"], p3["metadata"]["resourceVersion"]);
    t.note("once history is compacted past the snapshot, the token has expired");
    t.s.compact(None);
    t.call("GET", &format!("/api/v1/pods?limit=500&continue={c2}"), None);
    t.check("chunked_list");
}

#[test]
fn service_list() {
    let mut t = Transcript::new();
    t.setup("POST", "/api/v1/namespaces/default/services", json!({"metadata": {"name": "kubernetes", "labels": {"component": "apiserver", "provider": "kubernetes"}}, "spec": {"ports": [{"name": "https", "port": 443, "protocol": "TCP", "targetPort": 6443}]}}));
    t.setup("POST", "/api/v1/namespaces/kube-system/services", json!({"metadata": {"name": "kube-dns", "labels": {"k8s-app": "kube-dns", "kubernetes.io/cluster-service": "true", "kubernetes.io/name": "CoreDNS"}, "annotations": {"prometheus.io/port": "9153", "prometheus.io/scrape": "true"}}, "spec": {"ports": [{"name": "dns", "port": 53, "protocol": "UDP"}]}}));
    t.call("GET", "/api/v1/services", None);
    t.check("service_list");
}

#[test]
fn gone_and_too_large() {
    let mut t = Transcript::new();
    t.setup("POST", "/api/v1/namespaces/default/configmaps", json!({"metadata": {"name": "a"}}));
    t.setup("PUT", "/api/v1/namespaces/default/configmaps/a", json!({"metadata": {"name": "a"}, "data": {"x": "1"}}));
    t.note("history older than the window (5 minutes) is compacted");
    t.s.advance(6 * 60_000);
    t.setup("PUT", "/api/v1/namespaces/default/configmaps/a", json!({"metadata": {"name": "a"}, "data": {"x": "2"}}));
    let mut w = t.open_watch("/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=5");
    t.drain(&mut w);
    t.call("GET", "/api/v1/namespaces/default/configmaps?resourceVersion=5&resourceVersionMatch=Exact", None);
    t.call("GET", "/api/v1/namespaces/default/configmaps?resourceVersion=999&resourceVersionMatch=NotOlderThan", None);
    t.check("gone_and_too_large");
}

#[test]
fn deletion_with_finalizers() {
    let mut t = Transcript::new();
    t.setup(
        "POST",
        "/api/v1/namespaces/default/configmaps",
        json!({"metadata": {"name": "cm", "finalizers": ["url.io/neat-finalization", "other-url.io/my-finalizer"]}}),
    );
    let mut w = t.open_watch("/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=5");
    t.call("DELETE", "/api/v1/namespaces/default/configmaps/cm", None);
    t.drain(&mut w);
    let cur = t.call("GET", "/api/v1/namespaces/default/configmaps/cm", None);
    let mut one_left = cur.clone();
    one_left["metadata"]["finalizers"] = json!(["other-url.io/my-finalizer"]);
    t.call("PUT", "/api/v1/namespaces/default/configmaps/cm", Some(one_left.clone()));
    t.drain(&mut w);
    let cur = t.call("GET", "/api/v1/namespaces/default/configmaps/cm", None);
    let mut none_left = cur;
    none_left["metadata"]["finalizers"] = json!([]);
    t.call("PUT", "/api/v1/namespaces/default/configmaps/cm", Some(none_left));
    t.drain(&mut w);
    t.call("GET", "/api/v1/namespaces/default/configmaps/cm", None);
    t.check("deletion_with_finalizers");
}

#[test]
fn errors() {
    let mut t = Transcript::new();
    t.setup("POST", "/api/v1/namespaces/default/configmaps", json!({"metadata": {"name": "a"}}));
    t.call("POST", "/api/v1/namespaces/default/configmaps", Some(json!({"metadata": {"name": "a"}})));
    t.call(
        "PUT",
        "/api/v1/namespaces/default/configmaps/a",
        Some(json!({"metadata": {"name": "a", "resourceVersion": "1"}})),
    );
    t.call("POST", "/api/v1/namespaces/nope/configmaps", Some(json!({"metadata": {"name": "a"}})));
    t.call("PUT", "/api/v1/namespaces/default/configmaps/a", Some(json!({"metadata": {"name": "b"}})));
    t.call(
        "POST",
        "/api/v1/namespaces/default/configmaps",
        Some(json!({"metadata": {"name": "x", "namespace": "kube-system"}})),
    );
    t.call(
        "POST",
        "/api/v1/namespaces/default/configmaps",
        Some(json!({"metadata": {"name": "Bad_Name"}, "data": {}})),
    );
    t.call(
        "POST",
        "/apis/apps/v1/namespaces/default/deployments",
        Some(json!({"metadata": {"generateName": "web-"}, "spec": {}})),
    );
    t.call("GET", "/api/v1/namespaces/default/configmaps/missing", None);
    t.call("GET", "/apis/apps/v1/namespaces/default/deployments/missing", None);
    t.call("GET", "/api/v1/namespaces/default/configmaps?labelSelector=app%20in%20web", None);
    t.call("GET", "/api/v1/namespaces/default/configmaps?fieldSelector=spec.nodeName%3Dx", None);
    t.call("GET", "/api/v1/namespaces/default/pods?fieldSelector=spec.foo%3Dx", None);
    t.call("DELETE", "/api/v1/namespaces/default/configmaps/a?propagationPolicy=Sometimes", None);
    t.call("DELETE", "/api/v1/namespaces/default/configmaps/a", Some(json!({"preconditions": {"uid": "not-the-uid"}})));
    t.call("DELETE", "/api/v1/namespaces/default/configmaps/a", None);
    t.call("GET", "/api/v1/foos", None);
    t.check("errors");
}
