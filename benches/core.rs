//! Core benchmarks (not timed tests). Run: `cargo bench --bench core`.
//! Figures are recorded in BENCHMARKS.md; compare ratios within one run.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};
use std::time::Instant;

use kubesim::controllers::{Controllers, ALL};
use kubesim::server::{Request, Served, Server, ServerConfig};
use serde_json::{json, Value};

/// The 1,000-replica rollout, shared with the WebAssembly count
/// (`benches/wasm`).
mod rollout;
use rollout::rollout;

/// Counts live bytes over the allocator the native binary uses (mimalloc;
/// `KUBESIM_BENCH_SYSTEM_ALLOC=1` measures over the system's instead),
/// only while counting (the memory benchmark). The timed benchmarks take
/// one load and a compare an allocation before mimalloc's own entry,
/// inlined as the native binary's is: the first version of this wrapper
/// (a flag, a choice and a call through `&dyn GlobalAlloc`) added ~20
/// instructions to every allocation that the native binary does not pay.
struct Counting;
static LIVE: AtomicUsize = AtomicUsize::new(0);
/// `UNCHOSEN` until the first allocation chooses the allocator (reading
/// the environment without allocating, so nothing one allocator made is
/// freed by the other); then `MIMALLOC` or `SYSTEM`, with `COUNT` set while
/// the memory benchmark counts.
static STATE: AtomicU8 = AtomicU8::new(UNCHOSEN);
const UNCHOSEN: u8 = 0;
const MIMALLOC: u8 = 1;
const SYSTEM: u8 = 2;
const COUNT: u8 = 4;
static MI: kubesim::alloc::Allocator = kubesim::alloc::Allocator;

extern "C" {
    fn getenv(name: *const std::ffi::c_char) -> *mut std::ffi::c_char;
}

/// The state once the allocator is chosen.
#[cold]
fn chosen() -> u8 {
    let state = STATE.load(Ordering::Relaxed);
    if state != UNCHOSEN {
        return state;
    }
    // SAFETY: a NUL-terminated name; getenv allocates nothing.
    let system = unsafe { !getenv(c"KUBESIM_BENCH_SYSTEM_ALLOC".as_ptr()).is_null() };
    let state = if system { SYSTEM } else { MIMALLOC };
    STATE.store(state, Ordering::Relaxed);
    state
}

/// Every path but plain mimalloc: choosing, counting, the system's.
#[cold]
fn base(grow: usize, shrink: usize) -> &'static dyn GlobalAlloc {
    let state = chosen();
    if state & COUNT != 0 {
        LIVE.fetch_add(grow, Ordering::Relaxed);
        LIVE.fetch_sub(shrink, Ordering::Relaxed);
    }
    if state & SYSTEM != 0 {
        &System
    } else {
        &MI
    }
}

unsafe impl GlobalAlloc for Counting {
    #[inline]
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        if STATE.load(Ordering::Relaxed) == MIMALLOC {
            return unsafe { MI.alloc(l) };
        }
        unsafe { base(l.size(), 0).alloc(l) }
    }
    #[inline]
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        if STATE.load(Ordering::Relaxed) == MIMALLOC {
            return unsafe { MI.dealloc(p, l) };
        }
        unsafe { base(0, l.size()).dealloc(p, l) }
    }
    #[inline]
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        if STATE.load(Ordering::Relaxed) == MIMALLOC {
            return unsafe { MI.realloc(p, l, new) };
        }
        unsafe { base(new, l.size()).realloc(p, l, new) }
    }
}

#[global_allocator]
static A: Counting = Counting;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn post(s: &mut Server, target: &str, body: &Value) -> u16 {
    s.handle(
        Request::new("POST", target)
            .with_header("Content-Type", "application/json")
            .with_body(serde_json::to_vec(body).unwrap()),
    )
    .status
}

fn pod(i: usize) -> Value {
    json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": format!("pod-{i:06}"), "labels": {"app": "web", "shard": (i % 10).to_string()}},
        "spec": {"nodeName": format!("node-{}", i % 50), "containers": [{"name": "app", "image": "registry.example.com/team/app:1.2.3",
            "ports": [{"containerPort": 8080, "protocol": "TCP"}], "env": [{"name": "MODE", "value": "production"}],
            "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}}}]}})
}

fn bench_creates() {
    let mut s = Server::new(ServerConfig::default());
    let data: String = "x".repeat(900);
    let bodies: Vec<Vec<u8>> = (0..50_000)
        .map(|i| {
            serde_json::to_vec(&json!({"metadata": {"name": format!("cm-{i}")}, "data": {"payload": data}})).unwrap()
        })
        .collect();
    let start = Instant::now();
    for b in bodies {
        let r = s.handle(Request::new("POST", "/api/v1/namespaces/default/configmaps").with_body(b));
        assert_eq!(r.status, 201);
    }
    let secs = start.elapsed().as_secs_f64();
    println!("creates: {:.0} ConfigMaps/s (~1 KB each, 50k through Server::handle)", 50_000.0 / secs);
}

/// Creates of a custom resource against ConfigMaps of the same size, in
/// one run (alternating rounds, best of each): the cost of a definition's
/// schema (pruning, validation, defaults) over a built-in's.
fn bench_custom_resources() {
    let mut s = Server::new(ServerConfig::default());
    let crd = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced", "names": {"plural": "widgets", "kind": "Widget"},
            "versions": [{"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": {
                "type": "object", "properties": {"data": {"type": "object", "additionalProperties": {"type": "string"}}}}}}]}});
    assert_eq!(post(&mut s, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", &crd), 201);
    let data: String = "x".repeat(900);
    let n = 20_000;
    let round = |s: &mut Server, path: &str, api: &str, kind: &str, from: usize| {
        let bodies: Vec<Vec<u8>> = (from..from + n)
            .map(|i| {
                serde_json::to_vec(&json!({"apiVersion": api, "kind": kind,
                    "metadata": {"name": format!("o-{i}")}, "data": {"payload": data}}))
                .unwrap()
            })
            .collect();
        let start = Instant::now();
        for b in bodies {
            let r = s.handle(Request::new("POST", path).with_body(b));
            assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
        }
        n as f64 / start.elapsed().as_secs_f64()
    };
    let (mut cm, mut cr) = (0f64, 0f64);
    for r in 0..3 {
        cm = cm.max(round(&mut s, "/api/v1/namespaces/default/configmaps", "v1", "ConfigMap", r * n));
        cr =
            cr.max(round(&mut s, "/apis/example.com/v1/namespaces/default/widgets", "example.com/v1", "Widget", r * n));
    }
    println!(
        "custom resources: {cr:.0} Widgets/s against {cm:.0} ConfigMaps/s of the same ~1 KB ({:.2}x; best of 3 rounds of 20k each)",
        cr / cm
    );
}

/// Creates with RBAC deciding (as a user a RoleBinding lets edit) against
/// RBAC off, in one run (alternating rounds, best of each).
/// Creates/s of `n` ~1 KB ConfigMaps named from `from` on, as the token
/// file's alice.
fn creates_as_alice(s: &mut Server, from: usize, n: usize) -> f64 {
    let data: String = "x".repeat(900);
    let bodies: Vec<Vec<u8>> = (from..from + n)
        .map(|i| {
            serde_json::to_vec(&json!({"metadata": {"name": format!("cm-{i}")}, "data": {"payload": data}})).unwrap()
        })
        .collect();
    let start = Instant::now();
    for b in bodies {
        let r = s.handle(
            Request::new("POST", "/api/v1/namespaces/default/configmaps")
                .with_header("Authorization", "Bearer alice-token")
                .with_body(b),
        );
        assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
    }
    n as f64 / start.elapsed().as_secs_f64()
}

fn bench_rbac() {
    let tokens = kubesim::auth::parse_token_file("alice-token,alice,2\n").unwrap();
    let make = |rbac: bool| {
        let mut s = Server::new(ServerConfig { tokens: Some(tokens.clone()), rbac, ..Default::default() });
        let rb = json!({"metadata": {"name": "alice-edit"},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "edit"},
            "subjects": [{"kind": "User", "name": "alice", "apiGroup": "rbac.authorization.k8s.io"}]});
        let r = s.handle(
            Request::new("POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings")
                .as_user(kubesim::auth::UserInfo::admin())
                .with_body(serde_json::to_vec(&rb).unwrap()),
        );
        assert_eq!(r.status, 201);
        s
    };
    let (mut on, mut off) = (make(true), make(false));
    let n = 20_000;
    let round = |s: &mut Server, from: usize| creates_as_alice(s, from, n);
    let (mut a, mut b) = (0f64, 0f64);
    for r in 0..3 {
        a = a.max(round(&mut off, r * n));
        b = b.max(round(&mut on, r * n));
    }
    println!(
        "rbac: {b:.0} creates/s deciding by RBAC against {a:.0} with it off ({:.2}x; best of 3 rounds of 20k)",
        b / a
    );
}

/// Creates as an ordinary user (classified into global-default, near the
/// end of the FlowSchemas) with API Priority and Fairness on and off.
fn bench_apf() {
    let tokens = kubesim::auth::parse_token_file("alice-token,alice,2\n").unwrap();
    let make = |apf: bool| Server::new(ServerConfig { tokens: Some(tokens.clone()), apf, ..Default::default() });
    let (mut on, mut off) = (make(true), make(false));
    let n = 20_000;
    let round = |s: &mut Server, from: usize| creates_as_alice(s, from, n);
    // Alternating which goes first (the second of a pair runs on a bigger
    // heap).
    let (mut a, mut b) = (0f64, 0f64);
    for r in 0..4 {
        if r % 2 == 0 {
            a = a.max(round(&mut off, r * n));
            b = b.max(round(&mut on, r * n));
        } else {
            b = b.max(round(&mut on, r * n));
            a = a.max(round(&mut off, r * n));
        }
    }
    println!(
        "apf: {b:.0} creates/s classified against {a:.0} with APF off ({:.2}x; {:.2} us more per request; best of 4 rounds of 20k, alternating)",
        b / a,
        (1.0 / b - 1.0 / a) * 1e6
    );
}

/// The dispatcher alone: a request arriving and finishing on a level like
/// `global-default` (128 queues, hands of 6), 1000 users taking turns, 50
/// requests executing at a time, so requests hash, deal, queue and start.
fn bench_dispatcher() {
    use kubesim::flowcontrol::{Arrive, Dispatcher, LevelSpec, Queuing};
    let mut d = Dispatcher::new(600, 15_000_000_000);
    let level = LevelSpec {
        name: "global-default".into(),
        uid: String::new(),
        exempt: false,
        shares: 20,
        lendable_percent: 50,
        borrowing_limit_percent: Some(50),
        queuing: Some(Queuing { queues: 128, hand_size: 6, queue_length_limit: 50 }),
    };
    d.configure(0, &[level]);
    let users: Vec<kubesim::flowcontrol::Name> = (0..1000).map(|i| format!("user-{i}").into()).collect();
    // (As the classifier hands them over: shared names.)
    let name: kubesim::flowcontrol::Name = "global-default".into();
    let n = 1_000_000u64;
    let mut running = std::collections::VecDeque::new();
    let start = Instant::now();
    for i in 0..n {
        let now = i * 1_000; // a request every microsecond
        let a = Arrive {
            level: name.clone(),
            flow_schema: name.clone(),
            flow: users[(i % 1000) as usize].clone(),
            ..Default::default()
        };
        let (id, _) = d.arrive(now, a);
        running.push_back(id);
        if running.len() > 50 {
            if let Some(done) = running.pop_front() {
                d.finish(now, done, true);
            }
        }
        if i % 1024 == 0 {
            d.take_events();
        }
    }
    let per = start.elapsed().as_secs_f64() / n as f64 * 1e9;
    println!("dispatcher: {per:.0} ns per request (arrive + finish; 1M requests, 1000 flows, 128 queues, hands of 6)");
}

fn bench_pages() {
    let mut s = Server::new(ServerConfig::default());
    for i in 0..100_000 {
        assert_eq!(post(&mut s, "/api/v1/namespaces/default/pods", &pod(i)), 201);
    }
    // Tokens for page 1 and page 150 (a late page).
    let mut token = String::new();
    let mut late_token = String::new();
    for p in 0..150 {
        let q = if token.is_empty() { "limit=500".to_string() } else { format!("limit=500&continue={token}") };
        let r = s.handle(Request::new("GET", &format!("/api/v1/namespaces/default/pods?{q}"))).json_body();
        token = r["metadata"]["continue"].as_str().unwrap().to_string();
        if p == 148 {
            late_token = token.clone();
        }
    }
    let first = s.handle(Request::new("GET", "/api/v1/namespaces/default/pods?limit=500")).json_body();
    let items: Vec<Value> = first["items"].as_array().unwrap().clone();
    let time = |f: &mut dyn FnMut()| {
        median(
            (0..15)
                .map(|_| {
                    let t = Instant::now();
                    f();
                    t.elapsed().as_secs_f64()
                })
                .collect(),
        )
    };
    let serialize = time(&mut || {
        let out = serde_json::to_vec(&items).unwrap();
        std::hint::black_box(out);
    });
    let p1 = time(&mut || {
        let r = s.handle(Request::new("GET", "/api/v1/namespaces/default/pods?limit=500"));
        std::hint::black_box(r);
    });
    let late = time(&mut || {
        let r =
            s.handle(Request::new("GET", &format!("/api/v1/namespaces/default/pods?limit=500&continue={late_token}")));
        std::hint::black_box(r);
    });
    println!(
        "list page (limit=500 of 100k pods): first {:.3} ms ({:.2}x serde_json of the same 500 pods, {:.3} ms); page 150 {:.3} ms ({:.2}x)",
        p1 * 1e3, p1 / serialize, serialize * 1e3, late * 1e3, late / serialize
    );
    // The same late page of the old snapshot after 10k writes since it.
    for i in 0..10_000 {
        let r = s.handle(
            Request::new("PATCH", &format!("/api/v1/namespaces/default/pods/pod-{:06}", i * 7))
                .with_header("Content-Type", "application/merge-patch+json")
                .with_body(br#"{"metadata":{"annotations":{"touched":"yes"}}}"#.to_vec()),
        );
        assert_eq!(r.status, 200);
    }
    let after = time(&mut || {
        let r =
            s.handle(Request::new("GET", &format!("/api/v1/namespaces/default/pods?limit=500&continue={late_token}")));
        std::hint::black_box(r);
    });
    println!(
        "list page 150 of the old snapshot after 10k writes since: {:.3} ms ({:.2}x)",
        after * 1e3,
        after / serialize
    );
}

fn bench_fanout() {
    let mut s = Server::new(ServerConfig::default());
    let mut watchers = Vec::new();
    for _ in 0..1000 {
        match s.serve(Request::new("GET", "/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=4")) {
            Served::Watch(_, w) => watchers.push(w),
            Served::Response(_) | Served::Log(..) => panic!("watch refused"),
        }
    }
    for i in 0..10_000 {
        assert_eq!(
            post(
                &mut s,
                "/api/v1/namespaces/default/configmaps",
                &json!({"metadata": {"name": format!("cm-{i}")}, "data": {"k": "v"}})
            ),
            201
        );
    }
    let start = Instant::now();
    let mut delivered = 0usize;
    for w in &mut watchers {
        loop {
            let evs = s.poll_watch(w, 1000);
            if evs.is_empty() {
                break;
            }
            delivered += evs.len();
            std::hint::black_box(&evs);
        }
    }
    let secs = start.elapsed().as_secs_f64();
    assert_eq!(delivered, 10_000_000);
    println!("watch fan-out: {:.3} µs per watcher-event (1,000 watchers x 10k events)", secs * 1e6 / delivered as f64);
}

fn bench_memory() {
    // Counted from here (the counter wraps: what was freed here but
    // allocated before counting began makes it slightly low, by little).
    let before = LIVE.load(Ordering::Relaxed);
    STATE.fetch_or(COUNT, Ordering::Relaxed);
    let mut s = Server::new(ServerConfig::default());
    let mut raw = 0usize;
    for i in 0..100_000 {
        let body = pod(i);
        raw += serde_json::to_vec(&body).unwrap().len();
        assert_eq!(post(&mut s, "/api/v1/namespaces/default/pods", &body), 201);
    }
    for rev in 1..5 {
        for i in 0..100_000 {
            let r = s.handle(
                Request::new("PATCH", &format!("/api/v1/namespaces/default/pods/pod-{i:06}"))
                    .with_header("Content-Type", "application/merge-patch+json")
                    .with_body(format!("{{\"metadata\":{{\"annotations\":{{\"rev\":\"{rev}\"}}}}}}").into_bytes()),
            );
            assert_eq!(r.status, 200);
            raw += r.body.len();
        }
    }
    let used = LIVE.load(Ordering::Relaxed).wrapping_sub(before);
    STATE.fetch_and(!COUNT, Ordering::Relaxed);
    println!(
        "memory: {:.1} MiB resident for 100k pods x 5 revisions; their JSON is {:.1} MiB; ratio {:.2}",
        used as f64 / 1048576.0,
        raw as f64 / 1048576.0,
        used as f64 / raw as f64
    );
    std::hint::black_box(s);
}

/// A 500-pod list as protobuf vs JSON: bytes, and time to encode from the
/// parsed list (both serializers given the same `Value`), and time through
/// the server (`GET` of the list, where JSON is the stored bytes spliced).
fn bench_protobuf() {
    let mut s = Server::new(ServerConfig::default());
    for i in 0..500 {
        assert_eq!(post(&mut s, "/api/v1/namespaces/default/pods", &pod(i)), 201);
    }
    let get = |s: &mut Server, accept: &str| {
        s.handle(Request::new("GET", "/api/v1/namespaces/default/pods").with_header("Accept", accept))
    };
    let json_body = get(&mut s, "application/json").body;
    // The first protobuf GET encodes every pod (and caches the encodings).
    let t = Instant::now();
    let pb_body = get(&mut s, "application/vnd.kubernetes.protobuf").body;
    let cold = t.elapsed().as_secs_f64() * 1e3;
    println!("protobuf: first GET (every pod encoded): {cold:.3} ms");
    let list: Value = serde_json::from_slice(&json_body).unwrap();
    // The same list without managedFields (which protobuf carries as JSON
    // bytes, FieldsV1 being raw JSON on both wires).
    let mut bare = list.clone();
    for item in bare["items"].as_array_mut().unwrap() {
        item["metadata"].as_object_mut().unwrap().remove("managedFields");
    }
    let (bare_json, bare_pb) =
        (serde_json::to_vec(&bare).unwrap().len(), kubesim::proto::encode_object(&bare).unwrap().len());
    println!(
        "protobuf: without managedFields: {bare_pb} bytes vs {bare_json} JSON ({:.2}x)",
        bare_pb as f64 / bare_json as f64
    );
    let runs = 30;
    let time1 = |f: &mut dyn FnMut()| {
        let t = Instant::now();
        f();
        t.elapsed().as_secs_f64() * 1e3
    };
    let time = |f: &mut dyn FnMut()| {
        median(
            (0..runs)
                .map(|_| {
                    let t = Instant::now();
                    f();
                    t.elapsed().as_secs_f64() * 1e3
                })
                .collect(),
        )
    };
    let json_encode = time(&mut || {
        std::hint::black_box(serde_json::to_vec(&list).unwrap());
    });
    let pb_encode = time(&mut || {
        std::hint::black_box(kubesim::proto::encode_object(&list).unwrap());
    });
    // Each pod alone, as the server encodes a stored object on its first
    // protobuf read: from its stored JSON bytes (read straight into
    // protobuf) and from its parsed value, against serializing the value
    // to JSON. Rounds of the three alternate (this machine is noisy).
    let items: Vec<&Value> = list["items"].as_array().unwrap().iter().collect();
    let stored: Vec<Vec<u8>> = items.iter().map(|i| serde_json::to_vec(i).unwrap()).collect();
    let (mut each_json, mut each_value, mut each_stored) = (vec![], vec![], vec![]);
    for _ in 0..runs {
        each_json.push(time1(&mut || {
            for i in &items {
                std::hint::black_box(serde_json::to_vec(i).unwrap());
            }
        }));
        each_value.push(time1(&mut || {
            for i in &items {
                std::hint::black_box(kubesim::proto::encode_raw("v1", "Pod", i).unwrap());
            }
        }));
        each_stored.push(time1(&mut || {
            for b in &stored {
                std::hint::black_box(kubesim::proto::encode_raw_stored("v1", "Pod", b).unwrap());
            }
        }));
    }
    let ratios = |a: &[f64], b: &[f64]| median(a.iter().zip(b).map(|(x, y)| x / y).collect());
    let (each_json_ms, each_value_ms, each_stored_ms) =
        (median(each_json.clone()), median(each_value.clone()), median(each_stored.clone()));
    println!(
        "protobuf: 500 pods one by one: from the stored bytes {each_stored_ms:.3} ms ({:.2}x JSON), from the value {each_value_ms:.3} ms ({:.2}x JSON), serde_json from the value {each_json_ms:.3} ms (medians of {runs} alternating rounds; ratios round by round)",
        ratios(&each_stored, &each_json),
        ratios(&each_value, &each_json),
    );
    let json_get = time(&mut || {
        std::hint::black_box(get(&mut s, "application/json"));
    });
    let pb_get = time(&mut || {
        std::hint::black_box(get(&mut s, "application/vnd.kubernetes.protobuf"));
    });
    println!(
        "protobuf: 500 pods: {} bytes protobuf vs {} JSON ({:.2}x)",
        pb_body.len(),
        json_body.len(),
        pb_body.len() as f64 / json_body.len() as f64
    );
    println!(
        "protobuf: encode from a Value: protobuf {pb_encode:.3} ms vs serde_json {json_encode:.3} ms ({:.2}x the time)",
        pb_encode / json_encode
    );
    println!(
        "protobuf: GET through the server, encodings cached: protobuf {pb_get:.3} ms vs JSON {json_get:.3} ms ({:.2}x the time)",
        pb_get / json_get
    );
    // One pod through the server (its answer rendered from the JSON body),
    // 1,000 GETs of each, rounds alternating.
    let one = |s: &mut Server, accept: &str| {
        s.handle(Request::new("GET", "/api/v1/namespaces/default/pods/pod-000001").with_header("Accept", accept))
    };
    let (mut one_json, mut one_pb) = (vec![], vec![]);
    for _ in 0..runs {
        one_json.push(time1(&mut || {
            for _ in 0..1000 {
                std::hint::black_box(one(&mut s, "application/json"));
            }
        }));
        one_pb.push(time1(&mut || {
            for _ in 0..1000 {
                std::hint::black_box(one(&mut s, "application/vnd.kubernetes.protobuf"));
            }
        }));
    }
    let (one_json_us, one_pb_us) = (median(one_json.clone()), median(one_pb.clone()));
    println!(
        "protobuf: GET of one pod through the server: protobuf {one_pb_us:.2} us vs JSON {one_json_us:.2} us ({:.2}x the time)",
        ratios(&one_pb, &one_json)
    );
}

/// Creates with the controllers settled after each (as the doors do) and
/// without, in one run; then what a settle costs when nothing changed.
fn bench_controllers() {
    let data: String = "x".repeat(900);
    let bodies: Vec<Vec<u8>> = (0..20_000)
        .map(|i| {
            serde_json::to_vec(&json!({"metadata": {"name": format!("cm-{i}")}, "data": {"payload": data}})).unwrap()
        })
        .collect();
    let rate = |controllers: bool| {
        let mut s = Server::new(ServerConfig::default());
        let mut c = if controllers { Controllers::new(ALL).unwrap() } else { Controllers::none() };
        c.settle(&mut s);
        let start = Instant::now();
        for b in &bodies {
            let r = s.handle(Request::new("POST", "/api/v1/namespaces/default/configmaps").with_body(b.clone()));
            assert_eq!(r.status, 201);
            c.settle(&mut s);
        }
        let rate = bodies.len() as f64 / start.elapsed().as_secs_f64();
        (rate, s, c)
    };
    let (off, _, _) = rate(false);
    let (on, mut s, mut c) = rate(true);
    let start = Instant::now();
    for _ in 0..1_000 {
        c.settle(&mut s);
    }
    let idle_us = start.elapsed().as_secs_f64() * 1e6 / 1_000.0;
    println!(
        "controllers: creates {off:.0}/s without, {on:.0}/s with them settled after each ({:.2}x); an idle settle over 20k objects {idle_us:.1} µs",
        on / off
    );
    // Pods are what most controllers watch: 2,000 in one namespace, bound
    // to a node no kubelet runs (the chunked-lists lesson's setup), each
    // create followed by a settle. A controller that passes over every pod
    // on each change makes this quadratic.
    for n in [1_000, 2_000] {
        let mut s = Server::new(ServerConfig::default());
        let mut c = Controllers::new(ALL).unwrap();
        c.settle(&mut s);
        post(&mut s, "/api/v1/namespaces", &json!({"metadata": {"name": "test"}}));
        c.settle(&mut s);
        let start = Instant::now();
        for i in 0..n {
            let body = json!({"metadata": {"name": format!("pod-{i}")},
                "spec": {"nodeName": "archived-node", "containers": [{"name": "app", "image": "nginx"}]}});
            assert_eq!(post(&mut s, "/api/v1/namespaces/test/pods", &body), 201);
            c.settle(&mut s);
        }
        println!(
            "controllers: {n} pods created with every controller settled after each in {:.3} s",
            start.elapsed().as_secs_f64()
        );
    }
}

/// A 1,000-replica Deployment from its create to every pod Ready, in core
/// time and requests made, on ten nodes (the starter's three hold 330).
fn bench_rollout() {
    let (logged, requests) = rollout(true);
    let runs: Vec<f64> = (0..3).map(|_| rollout(false).0).collect();
    println!(
        "rollout: 1,000 replicas created, scheduled, running and Ready in {:.3} s of core time \
         (best of 3, median {:.3} s; no request log, as the native door); {requests} requests, \
         {logged:.3} s with them logged as the page logs them",
        runs.iter().copied().fold(f64::MAX, f64::min),
        median(runs.clone())
    );
}

fn main() {
    // `cargo test` also runs this binary (without --bench): nothing to do then.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let which: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--")).collect();
    let want = |n: &str| which.is_empty() || which.iter().any(|w| w == n);
    if want("creates") {
        bench_creates();
    }
    if want("pages") {
        bench_pages();
    }
    if want("custom") {
        bench_custom_resources();
    }
    if want("rbac") {
        bench_rbac();
    }
    if want("apf") {
        bench_apf();
    }
    if want("dispatcher") {
        bench_dispatcher();
    }
    if want("fanout") {
        bench_fanout();
    }
    if want("memory") {
        bench_memory();
    }
    if want("protobuf") {
        bench_protobuf();
    }
    if want("controllers") {
        bench_controllers();
    }
    if want("rollout") {
        bench_rollout();
    }
    // One rollout alone, for counting instructions (this machine's timings
    // vary by ±20%; `valgrind --tool=cachegrind --cache-sim=no` does not).
    if which.iter().any(|w| w == "rollout-once") {
        println!("rollout once: {:.3} s", rollout(false).0);
    }
}
