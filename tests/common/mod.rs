//! Helpers shared by the integration tests.
#![allow(dead_code)]

use kubesim::server::{Request, Response, Server, ServerConfig};
use serde_json::{json, Value};

pub fn server() -> Server {
    Server::new(ServerConfig::default())
}

pub fn call(s: &mut Server, method: &str, target: &str, body: Option<Value>) -> Response {
    let mut req = Request::new(method, target);
    if let Some(b) = body {
        req = req.with_body(serde_json::to_vec(&b).unwrap()).with_header("Content-Type", "application/json");
    }
    s.handle(req)
}

pub fn get(s: &mut Server, target: &str) -> Response {
    call(s, "GET", target, None)
}

/// Creates a ConfigMap in `default` and returns its resourceVersion.
pub fn create_cm(s: &mut Server, name: &str, labels: Value) -> String {
    let r = call(
        s,
        "POST",
        "/api/v1/namespaces/default/configmaps",
        Some(json!({
            "apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": name, "labels": labels}, "data": {"k": "v"}
        })),
    );
    assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
    rv(&r.json_body())
}

pub fn rv(v: &Value) -> String {
    v["metadata"]["resourceVersion"].as_str().unwrap_or_default().to_string()
}

pub fn names(list: &Value) -> Vec<String> {
    list["items"]
        .as_array()
        .map(|a| a.iter().map(|i| i["metadata"]["name"].as_str().unwrap().to_string()).collect())
        .unwrap_or_default()
}

/// Parses a watch body (one JSON document per line) into (type, object).
pub fn events(r: &Response) -> Vec<(String, Value)> {
    String::from_utf8_lossy(&r.body)
        .lines()
        .filter(|l| !l.is_empty())
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            (v["type"].as_str().unwrap().to_string(), v["object"].clone())
        })
        .collect()
}

/// A response's body as text.
pub fn text(r: &Response) -> String {
    String::from_utf8_lossy(&r.body).into_owned()
}

/// A 422's message without its head (`Pod "web" is invalid: `).
pub fn refused(r: &Response, head: &str) -> String {
    assert_eq!(r.status, 422, "{}", text(r));
    let m = message(r);
    m.strip_prefix(head).unwrap_or(&m).to_string()
}

/// A Status answer's message.
pub fn message(r: &Response) -> String {
    r.json_body()["message"].as_str().unwrap_or_default().to_string()
}

/// A list or object as a server-side Table (kubectl's Accept).
pub fn table(s: &mut Server, target: &str) -> Value {
    s.handle(Request::new("GET", target).with_header("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io"))
        .json_body()
}

pub fn reason(r: &Response) -> String {
    r.json_body()["reason"].as_str().unwrap_or_default().to_string()
}

/// A server and every controller, settled after each request.
pub struct Cluster {
    pub s: Server,
    pub c: kubesim::controllers::Controllers,
}

impl Cluster {
    pub fn new() -> Cluster {
        let mut s = server();
        let mut c = kubesim::controllers::Controllers::new(kubesim::controllers::ALL).unwrap();
        c.settle(&mut s);
        Cluster { s, c }
    }

    pub fn call(&mut self, method: &str, target: &str, body: Option<Value>) -> Response {
        let r = call(&mut self.s, method, target, body);
        self.c.settle(&mut self.s);
        r
    }

    pub fn send(&mut self, method: &str, target: &str, content_type: &str, body: &str) -> Response {
        let r = self.s.handle(
            Request::new(method, target).with_header("Content-Type", content_type).with_body(body.as_bytes().to_vec()),
        );
        self.c.settle(&mut self.s);
        r
    }

    /// A Ready node `name` with a pod range, `allocatable` its
    /// allocatable resources.
    pub fn ready_node(&mut self, name: &str, allocatable: Value) {
        let node = json!({"metadata": {"name": name}, "spec": {"podCIDR": "10.244.0.0/24"}});
        assert_eq!(self.call("POST", "/api/v1/nodes", Some(node)).status, 201);
        let status = json!({"status": {"allocatable": allocatable,
            "addresses": [{"type": "InternalIP", "address": "172.18.0.2"}],
            "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady"}]}});
        let path = format!("/api/v1/nodes/{name}/status");
        let r = self.send("PATCH", &path, "application/merge-patch+json", &status.to_string());
        assert_eq!(r.status, 200);
    }

    pub fn get(&mut self, target: &str) -> Response {
        get(&mut self.s, target)
    }

    /// The events in `default` a field selector picks (`reason=BackOff`),
    /// oldest first (their names carry the time they were first seen).
    pub fn events(&mut self, field_selector: &str) -> Vec<Value> {
        let r = self
            .get(&format!("/api/v1/namespaces/default/events?fieldSelector={}", field_selector.replace('=', "%3D")));
        let mut items = r.json_body()["items"].as_array().cloned().unwrap_or_default();
        items.sort_by_key(|e| e["metadata"]["name"].as_str().unwrap_or("").to_string());
        items
    }

    /// Their messages, oldest first.
    pub fn event_messages(&mut self, field_selector: &str) -> Vec<String> {
        self.events(field_selector).iter().map(|e| e["message"].as_str().unwrap_or("").to_string()).collect()
    }

    pub fn uid(&mut self, target: &str) -> String {
        self.get(target).json_body()["metadata"]["uid"].as_str().unwrap().to_string()
    }
}

/// A pod's (or any object's) status condition of a type, or null.
pub fn condition(obj: &Value, type_: &str) -> Value {
    let cs = obj["status"]["conditions"].as_array().map(Vec::as_slice).unwrap_or(&[]);
    cs.iter().find(|c| c["type"] == type_).cloned().unwrap_or(Value::Null)
}
