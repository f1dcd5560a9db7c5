//! The API Priority and Fairness configuration objects as kube-apiserver
//! keeps them, through its own requests (a loopback client, as upstream):
//!
//! - the config producer creates the mandatory and suggested
//!   PriorityLevelConfigurations and FlowSchemas at start and then checks
//!   them every simulated minute: a missing one is created again; a
//!   mandatory one's spec is put back (the `exempt` level's shares and
//!   lendable percent excepted); a suggested one's spec is kept in step
//!   while its `apf.kubernetes.io/autoupdate-spec` annotation says true
//!   (a missing or unreadable annotation becomes "true" at generation 1,
//!   "false" after); another object that says true is deleted;
//! - the config consumer writes each FlowSchema's `Dangling` condition
//!   (server-side apply of the status) whenever the group changes.
//!
//! The objects themselves (`apf_bootstrap.json`) are upstream's v1.33
//! bootstrap configuration, as stored.

use std::sync::OnceLock;

use serde_json::{json, Value};

use super::{Request, Response, Server};
use crate::api::Revision;
use crate::auth::UserInfo;

const GROUP: &str = "flowcontrol.apiserver.k8s.io";
const BASE: &str = "/apis/flowcontrol.apiserver.k8s.io/v1";
const PRODUCER: &str = "api-priority-and-fairness-config-producer-v1";
const CONSUMER: &str = "api-priority-and-fairness-config-consumer-v1";
pub const AUTOUPDATE: &str = "apf.kubernetes.io/autoupdate-spec";
/// The producer's period (upstream: every minute after start).
const PERIOD_MS: i64 = 60_000;

/// Upstream's bootstrap objects, in the order the producer ensures them.
struct Bootstrap {
    /// (resource, object, mandatory)
    objects: Vec<(&'static str, Value, bool)>,
}

fn bootstrap() -> &'static Bootstrap {
    static B: OnceLock<Bootstrap> = OnceLock::new();
    B.get_or_init(|| {
        let doc: Value = serde_json::from_str(include_str!("apf_bootstrap.json")).unwrap_or(Value::Null);
        let mut objects = Vec::new();
        for (set, mandatory) in [("suggested", false), ("mandatory", true)] {
            for resource in ["prioritylevelconfigurations", "flowschemas"] {
                for o in doc[set][resource].as_array().into_iter().flatten() {
                    objects.push((resource, o.clone(), mandatory));
                }
            }
        }
        Bootstrap { objects }
    })
}

/// Where the producer and consumer are, and what the classifier reads.
pub(super) struct ApfState {
    /// The revision the consumer last looked at.
    pub(super) consumed_at: Option<Revision>,
    /// When the producer runs next (simulated ms).
    pub(super) next_produce: i64,
    /// The usable FlowSchemas in matching order (the mandatory ones
    /// imagined from the bootstrap configuration when missing), and the
    /// levels' uids.
    pub(super) config: super::apf::Config,
    /// Seats and queues (`crate::flowcontrol`).
    pub(super) dispatcher: crate::flowcontrol::Dispatcher,
}

/// How long a request may wait in a queue: a quarter of upstream's
/// default request timeout (60 s).
const WAIT_LIMIT_NANOS: u64 = 15_000_000_000;

impl ApfState {
    pub(super) fn new(config: &super::ServerConfig) -> ApfState {
        let seats = config.max_requests_inflight.saturating_add(config.max_mutating_requests_inflight);
        ApfState {
            consumed_at: None,
            next_produce: 0,
            config: Default::default(),
            dispatcher: crate::flowcontrol::Dispatcher::new(seats, WAIT_LIMIT_NANOS),
        }
    }
}

fn name_of(v: &Value) -> &str {
    v.pointer("/metadata/name").and_then(Value::as_str).unwrap_or("")
}

/// Go's `strconv.ParseBool`.
fn parse_bool(s: &str) -> Option<bool> {
    match s {
        "1" | "t" | "T" | "TRUE" | "true" | "True" => Some(true),
        "0" | "f" | "F" | "FALSE" | "false" | "False" => Some(false),
        _ => None,
    }
}

fn autoupdate(v: &Value) -> Option<bool> {
    v.pointer("/metadata/annotations").and_then(|a| a.get(AUTOUPDATE)).and_then(Value::as_str).and_then(parse_bool)
}

impl Server {
    /// A request of the server's own (its answer's body is read only by
    /// those that need it).
    fn loopback(&mut self, method: &str, target: &str, body: Option<&Value>, content_type: &str) -> Response {
        let mut req = Request::new(method, target)
            .as_user(UserInfo::new("system:apiserver", &["system:masters", "system:authenticated"]))
            .with_header("User-Agent", "kube-apiserver/v1.33.0 (linux/amd64) kubernetes/kubesim")
            .with_header("Accept", "application/json");
        if let Some(b) = body {
            req = req.with_header("Content-Type", content_type).with_body(crate::api::to_json(b));
        }
        self.handle_loopback(req)
    }

    /// Everything in the group, by resource.
    fn apf_objects(&mut self, resource: &str) -> Vec<Value> {
        let r = self.loopback("GET", &format!("{BASE}/{resource}"), None, "");
        if r.status != 200 {
            return Vec::new();
        }
        match r.json_body().get_mut("items").map(Value::take) {
            Some(Value::Array(items)) => items,
            _ => Vec::new(),
        }
    }

    /// One pass of the producer (upstream's `ensure`).
    fn produce_apf(&mut self) {
        let manager = format!("?fieldManager={PRODUCER}");
        for (resource, want, mandatory) in &bootstrap().objects {
            let name = name_of(want);
            let r = self.loopback("GET", &format!("{BASE}/{resource}/{name}"), None, "");
            let status = r.status;
            if status == 404 {
                self.loopback("POST", &format!("{BASE}/{resource}{manager}"), Some(want), "application/json");
                continue;
            }
            if status != 200 {
                continue;
            }
            let current = r.json_body();
            let generation = current.pointer("/metadata/generation").and_then(Value::as_i64).unwrap_or(0);
            let update_spec = *mandatory || autoupdate(&current).unwrap_or(generation == 1);
            let fix_annotation = autoupdate(&current) != Some(update_spec);
            let mut wanted_spec = want["spec"].clone();
            if *resource == "prioritylevelconfigurations" && name == "exempt" {
                // Operators may set the exempt level's shares and lendable
                // percent.
                if let Some(e) = current.pointer("/spec/exempt").filter(|e| e.is_object()) {
                    for k in ["nominalConcurrencyShares", "lendablePercent"] {
                        if let Some(v) = e.get(k) {
                            wanted_spec["exempt"][k] = v.clone();
                        }
                    }
                }
            }
            let spec_changed = update_spec && current["spec"] != wanted_spec;
            if !spec_changed && !fix_annotation {
                continue;
            }
            let mut revised = current.clone();
            if spec_changed {
                revised["spec"] = wanted_spec;
            }
            if fix_annotation {
                revised["metadata"]["annotations"][AUTOUPDATE] = json!(update_spec.to_string());
            }
            self.loopback("PUT", &format!("{BASE}/{resource}/{name}{manager}"), Some(&revised), "application/json");
        }
        // Objects the producer once made under another name go.
        for resource in ["flowschemas", "prioritylevelconfigurations"] {
            for o in self.apf_objects(resource) {
                let name = name_of(&o).to_string();
                let known = bootstrap().objects.iter().any(|(r, b, _)| *r == resource && name_of(b) == name);
                if !known && autoupdate(&o) == Some(true) {
                    self.loopback("DELETE", &format!("{BASE}/{resource}/{name}"), None, "");
                }
            }
        }
    }

    /// One pass of the consumer: each FlowSchema's `Dangling` condition.
    pub(super) fn consume_apf(&mut self) {
        let level_objects = self.apf_objects("prioritylevelconfigurations");
        let levels: Vec<String> = level_objects.iter().map(|l| name_of(l).to_string()).collect();
        let now = self.now().rfc3339();
        let schemas = self.apf_objects("flowschemas");
        let mandatory = |resource: &str| -> Vec<Value> {
            bootstrap().objects.iter().filter(|(r, _, m)| *r == resource && *m).map(|(_, o, _)| o.clone()).collect()
        };
        self.apf.config = super::apf::Config::new(
            &schemas,
            &level_objects,
            &mandatory("flowschemas"),
            &mandatory("prioritylevelconfigurations"),
        );
        let mut specs: Vec<_> = level_objects.iter().map(super::dispatch::level_spec).collect();
        for m in mandatory("prioritylevelconfigurations") {
            if !specs.iter().any(|s| s.name == name_of(&m)) {
                specs.push(super::dispatch::level_spec(&m));
            }
        }
        let at = self.apf_clock_now();
        self.apf.dispatcher.configure(at, &specs);
        for fs in schemas {
            let name = name_of(&fs).to_string();
            let pl = fs.pointer("/spec/priorityLevelConfiguration/name").and_then(Value::as_str).unwrap_or("");
            let (status, reason, message) = if levels.iter().any(|l| l == pl) {
                (
                    "False",
                    "Found",
                    format!(
                        "This FlowSchema references the PriorityLevelConfiguration object named {pl:?} and it exists"
                    ),
                )
            } else {
                (
                    "True",
                    "NotFound",
                    format!("This FlowSchema references the PriorityLevelConfiguration object named {pl:?} but there is no such object"),
                )
            };
            let current = fs
                .pointer("/status/conditions")
                .and_then(Value::as_array)
                .and_then(|cs| cs.iter().find(|c| c["type"] == "Dangling"));
            if current.is_some_and(|c| c["status"] == status && c["reason"] == reason && c["message"] == message) {
                continue;
            }
            let apply = json!({"apiVersion": "flowcontrol.apiserver.k8s.io/v1", "kind": "FlowSchema",
                "metadata": {"name": name},
                "status": {"conditions": [{"type": "Dangling", "status": status, "lastTransitionTime": now,
                    "reason": reason, "message": message}]}});
            self.loopback(
                "PATCH",
                &format!("{BASE}/flowschemas/{name}/status?fieldManager={CONSUMER}&force=true"),
                Some(&apply),
                "application/apply-patch+yaml",
            );
        }
    }

    /// Is the producer's minute up?
    pub(super) fn apf_producer_due(&self) -> bool {
        self.now().0 >= self.apf.next_produce
    }

    /// The producer when its minute is up, then the consumer when the
    /// group changed: after every request, and at start.
    pub(super) fn maintain_apf(&mut self) {
        let now = self.now().0;
        if now >= self.apf.next_produce {
            self.apf.next_produce = now + PERIOD_MS;
            self.produce_apf();
        }
        let changed = match self.apf.consumed_at {
            None => true,
            Some(at) => self.registry.group_written_since(GROUP, at),
        };
        if changed {
            self.consume_apf();
        }
        self.apf.consumed_at = Some(self.registry.revision());
    }
}
