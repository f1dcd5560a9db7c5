//! Linearizability and the watch guarantees of the native door, under
//! concurrent clients on loopback.
//!
//! Each history runs in a fresh namespace: a few clients, each on its own
//! keep-alive connection, create, update with a resourceVersion
//! precondition, delete, get and list ConfigMaps under a handful of names,
//! recording when each request was sent and when its answer was read.
//! Meanwhile watchers follow the namespace: two from the resourceVersion
//! the history starts at, one from a resourceVersion read half-way.
//!
//! The history is then checked three ways:
//! - against a sequential model of the API (what each of those requests
//!   answers given the namespace's contents), by searching for an order of
//!   the operations that respects real time and that the model accepts:
//!   the Wing & Gong search with Lowe's memoisation, as Porcupine and
//!   Knossos do it, written here;
//! - resourceVersions: one version is one resourceVersion wherever it is
//!   read, and a write acknowledged before another starts has the smaller
//!   one (a list's, likewise, against the writes around it);
//! - watches: every watcher's stream is ordered by resourceVersion with no
//!   repeats, holds every acknowledged write and nothing else, replays
//!   through the model, and the half-way watcher sees exactly the suffix
//!   the others saw after its resourceVersion.
//!
//! CI runs a short version; `KUBESIM_HISTORIES=1000 cargo test --release
//! --test linearizability -- --ignored` is the long one (docs/hardening.md).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;

/// The names the clients write: few, so that they collide.
const KEYS: [&str; 3] = ["a", "b", "c"];
/// The ConfigMap that closes a history: every watcher reads up to it.
const SENTINEL: &str = "zz-end";

// ---- the door and a minimal HTTP/1.1 client -----------------------------

struct Door {
    child: Child,
    addr: String,
}

impl Door {
    fn start() -> Door {
        let dir = std::env::temp_dir().join(format!("kubesim-lin-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut child = Command::new(env!("CARGO_BIN_EXE_kubesim"))
            .args(["serve", "--listen", "127.0.0.1:0", "--controllers", "none", "--starter", "none", "--kubeconfig"])
            .arg(dir.join("kc"))
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let mut first = String::new();
        out.read_line(&mut first).unwrap();
        let addr = first.rsplit("http://").next().unwrap().trim().to_string();
        // Keep reading what it prints so that it never blocks on a full pipe.
        std::thread::spawn(move || std::io::copy(&mut out, &mut std::io::sink()));
        Door { child, addr }
    }
}

impl Drop for Door {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One keep-alive connection.
struct Conn {
    r: BufReader<TcpStream>,
    addr: String,
}

impl Conn {
    fn open(addr: &str) -> Conn {
        let s = TcpStream::connect(addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        s.set_nodelay(true).unwrap();
        Conn { r: BufReader::new(s), addr: addr.to_string() }
    }

    /// Sends a request and reads its whole answer: status and body.
    fn send(&mut self, method: &str, path: &str, body: Option<&Value>) -> (u16, Value) {
        let body = body.map(|b| b.to_string()).unwrap_or_default();
        let head = format!(
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nAccept: application/json\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
            self.addr,
            body.len()
        );
        let s = self.r.get_mut();
        s.write_all(head.as_bytes()).and_then(|_| s.write_all(body.as_bytes())).expect("the door took the request");
        let (status, headers) = read_head(&mut self.r);
        let bytes = if headers.get("transfer-encoding").is_some_and(|v| v.contains("chunked")) {
            let mut all = Vec::new();
            while let Some(chunk) = read_chunk(&mut self.r) {
                all.extend(chunk);
            }
            all
        } else {
            let n: usize = headers.get("content-length").and_then(|v| v.parse().ok()).expect("a length");
            let mut b = vec![0; n];
            self.r.read_exact(&mut b).expect("the whole body");
            b
        };
        (status, serde_json::from_slice(&bytes).unwrap_or(Value::Null))
    }
}

fn read_head(r: &mut impl BufRead) -> (u16, HashMap<String, String>) {
    let mut line = String::new();
    r.read_line(&mut line).expect("a status line");
    let status = line.split(' ').nth(1).and_then(|c| c.parse().ok()).unwrap_or_else(|| panic!("status line {line:?}"));
    let mut headers = HashMap::new();
    loop {
        let mut h = String::new();
        r.read_line(&mut h).expect("a header");
        if h == "\r\n" || h.is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_string());
        }
    }
    (status, headers)
}

/// One chunk of a chunked body; None at the last.
fn read_chunk(r: &mut impl BufRead) -> Option<Vec<u8>> {
    let mut size = String::new();
    r.read_line(&mut size).expect("a chunk size");
    let n = usize::from_str_radix(size.trim(), 16).unwrap_or_else(|_| panic!("chunk size {size:?}"));
    let mut chunk = vec![0; n + 2];
    r.read_exact(&mut chunk).expect("a chunk");
    chunk.truncate(n);
    (n > 0).then_some(chunk)
}

fn rv_of(v: &Value) -> u64 {
    v["metadata"]["resourceVersion"]
        .as_str()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no resourceVersion in {v}"))
}

/// The value a client wrote into a ConfigMap (each write's is unique).
fn value_of(v: &Value) -> u32 {
    v["data"]["v"].as_str().and_then(|s| s.parse().ok()).unwrap_or_else(|| panic!("no value in {v}"))
}

// ---- operations, and the sequential model -------------------------------

#[derive(Clone, Debug)]
enum Input {
    Create {
        key: usize,
        value: u32,
    },
    /// Replace the version that holds `expected` (by its resourceVersion).
    Update {
        key: usize,
        value: u32,
        expected: u32,
    },
    Delete {
        key: usize,
    },
    Get {
        key: usize,
    },
    List,
}

#[derive(Clone, Debug, PartialEq)]
enum Output {
    Done,
    Exists,
    Conflict,
    NotFound,
    Found(u32),
    Listed(Vec<Option<u32>>),
}

#[derive(Clone, Debug)]
struct Op {
    client: usize,
    call: Duration,
    ret: Duration,
    input: Input,
    output: Output,
    /// The resourceVersion of a write's result or of a read's object or
    /// list.
    rv: Option<u64>,
}

/// The namespace as the model sees it: each name's current value.
type State = Vec<Option<u32>>;

/// Applies an operation to the model: the state after it, when the model
/// gives the answer the server gave.
fn step(state: &State, input: &Input, output: &Output) -> Option<State> {
    let mut next = state.clone();
    let ok = match (input, output) {
        (Input::Create { key, value }, Output::Done) => {
            state[*key].is_none() && {
                next[*key] = Some(*value);
                true
            }
        }
        (Input::Create { key, .. }, Output::Exists) => state[*key].is_some(),
        (Input::Update { key, value, expected }, Output::Done) => {
            state[*key] == Some(*expected) && {
                next[*key] = Some(*value);
                true
            }
        }
        (Input::Update { key, expected, .. }, Output::Conflict) => state[*key].is_some_and(|v| v != *expected),
        (Input::Update { key, .. } | Input::Delete { key } | Input::Get { key }, Output::NotFound) => {
            state[*key].is_none()
        }
        (Input::Delete { key }, Output::Done) => {
            state[*key].is_some() && {
                next[*key] = None;
                true
            }
        }
        (Input::Get { key }, Output::Found(v)) => state[*key] == Some(*v),
        (Input::List, Output::Listed(seen)) => state == seen,
        _ => false,
    };
    ok.then_some(next)
}

/// Whether some order of `ops` respects real time (an operation answered
/// before another was sent comes first) and is accepted by the model.
///
/// Depth-first over "which operation takes effect next": only operations
/// sent before the earliest answer among those left can be next. A
/// (set of operations done, model state) pair reached once is never
/// explored again.
fn linearizable(ops: &[Op], initial: State) -> bool {
    let mut order: Vec<usize> = (0..ops.len()).collect();
    order.sort_by_key(|&i| ops[i].call);
    let words = ops.len().div_ceil(64);
    let mut seen: HashSet<(Vec<u64>, State)> = HashSet::new();
    let mut done = vec![0u64; words];
    search(ops, &order, &mut done, initial, ops.len(), &mut seen)
}

fn search(
    ops: &[Op],
    order: &[usize],
    done: &mut Vec<u64>,
    state: State,
    left: usize,
    seen: &mut HashSet<(Vec<u64>, State)>,
) -> bool {
    if left == 0 {
        return true;
    }
    let is_done = |done: &[u64], i: usize| done[i / 64] & (1 << (i % 64)) != 0;
    let earliest_answer = order.iter().filter(|&&i| !is_done(done, i)).map(|&i| ops[i].ret).min().unwrap_or_default();
    for &i in order {
        if ops[i].call > earliest_answer {
            break;
        }
        if is_done(done, i) {
            continue;
        }
        let Some(next) = step(&state, &ops[i].input, &ops[i].output) else { continue };
        done[i / 64] |= 1 << (i % 64);
        if seen.insert((done.clone(), next.clone())) && search(ops, order, done, next, left - 1, seen) {
            return true;
        }
        done[i / 64] &= !(1 << (i % 64));
    }
    false
}

// ---- a history ----------------------------------------------------------

/// A small deterministic generator (xorshift64*), so that a history's
/// requests are the same for a seed; only their timing varies.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) % n
    }
}

fn config_map(key: &str, value: u32, rv: Option<u64>) -> Value {
    let mut meta = serde_json::json!({ "name": key });
    if let Some(rv) = rv {
        meta["resourceVersion"] = rv.to_string().into();
    }
    serde_json::json!({ "apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": { "v": value.to_string() } })
}

/// One client's requests: `count` of them, recorded.
fn client(addr: &str, ns: &str, id: usize, seed: u64, count: usize, started: Instant) -> Vec<Op> {
    let mut conn = Conn::open(addr);
    let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ (id as u64 + 1));
    let mut written = 0u32;
    // What this client last saw under each name: value and resourceVersion.
    let mut known: Vec<Option<(u32, u64)>> = vec![None; KEYS.len()];
    let base = format!("/api/v1/namespaces/{ns}/configmaps");
    let mut ops = Vec::with_capacity(count);
    for _ in 0..count {
        let key = rng.below(KEYS.len() as u64) as usize;
        let name = KEYS[key];
        let mut value = || {
            written += 1;
            (id as u32 + 1) * 1_000_000 + written
        };
        let roll = rng.below(100);
        let input = match roll {
            0..=24 => Input::Create { key, value: value() },
            25..=49 => match known[key] {
                Some((expected, _)) => Input::Update { key, value: value(), expected },
                None => Input::Get { key },
            },
            50..=64 => Input::Delete { key },
            65..=89 => Input::Get { key },
            _ => Input::List,
        };
        let call = started.elapsed();
        let (status, body) = match &input {
            Input::Create { value, .. } => conn.send("POST", &base, Some(&config_map(name, *value, None))),
            Input::Update { value, .. } => {
                let rv = known[key].map(|(_, rv)| rv);
                conn.send("PUT", &format!("{base}/{name}"), Some(&config_map(name, *value, rv)))
            }
            Input::Delete { .. } => conn.send("DELETE", &format!("{base}/{name}"), None),
            Input::Get { .. } => conn.send("GET", &format!("{base}/{name}"), None),
            Input::List => conn.send("GET", &base, None),
        };
        let ret = started.elapsed();
        let reason = body["reason"].as_str().unwrap_or("");
        let (output, rv) = match (&input, status) {
            (Input::Create { .. }, 201) | (Input::Update { .. }, 200) => (Output::Done, Some(rv_of(&body))),
            (Input::Create { .. }, 409) if reason == "AlreadyExists" => (Output::Exists, None),
            (Input::Update { .. }, 409) if reason == "Conflict" => (Output::Conflict, None),
            (Input::Delete { .. }, 200) => (Output::Done, None),
            (Input::Get { .. }, 200) => (Output::Found(value_of(&body)), Some(rv_of(&body))),
            (Input::Update { .. } | Input::Delete { .. } | Input::Get { .. }, 404) if reason == "NotFound" => {
                (Output::NotFound, None)
            }
            (Input::List, 200) => {
                let mut seen = vec![None; KEYS.len()];
                for item in body["items"].as_array().expect("items") {
                    let name = item["metadata"]["name"].as_str().unwrap_or("");
                    let k = KEYS.iter().position(|k| *k == name).unwrap_or_else(|| panic!("unexpected item {item}"));
                    seen[k] = Some(value_of(item));
                    known[k] = Some((value_of(item), rv_of(item)));
                }
                (Output::Listed(seen), Some(rv_of(&body)))
            }
            _ => panic!("{input:?} answered {status}: {body}"),
        };
        match (&input, &output, rv) {
            (Input::Create { value, .. } | Input::Update { value, .. }, Output::Done, Some(rv)) => {
                known[key] = Some((*value, rv))
            }
            (_, Output::Found(v), Some(rv)) => known[key] = Some((*v, rv)),
            (_, Output::NotFound, _) | (Input::Delete { .. }, Output::Done, _) => known[key] = None,
            _ => {}
        }
        ops.push(Op { client: id, call, ret, input, output, rv });
    }
    ops
}

/// A watch event as read: type, name, value (not for a sentinel) and
/// resourceVersion.
#[derive(Clone, Debug, PartialEq)]
struct Event {
    kind: String,
    name: String,
    value: Option<u32>,
    rv: u64,
}

/// Follows the namespace from `rv` until the sentinel is added.
fn watch(addr: &str, ns: &str, rv: u64) -> std::thread::JoinHandle<Vec<Event>> {
    let mut conn = Conn::open(addr);
    let path = format!("/api/v1/namespaces/{ns}/configmaps?watch=1&resourceVersion={rv}");
    let head = format!("GET {path} HTTP/1.1\r\nHost: {}\r\nAccept: application/json\r\n\r\n", conn.addr);
    conn.r.get_mut().write_all(head.as_bytes()).unwrap();
    let (status, _) = read_head(&mut conn.r);
    assert_eq!(status, 200, "watch {path}");
    std::thread::spawn(move || {
        let mut events = Vec::new();
        let mut pending = Vec::new();
        loop {
            let chunk = read_chunk(&mut conn.r).expect("the watch stays open until the sentinel");
            pending.extend(chunk);
            while let Some(end) = pending.iter().position(|b| *b == b'\n') {
                let line: Vec<u8> = pending.drain(..=end).collect();
                let e: Value = serde_json::from_slice(&line).expect("a JSON event");
                let object = &e["object"];
                let name = object["metadata"]["name"].as_str().unwrap_or("").to_string();
                let kind = e["type"].as_str().unwrap_or("").to_string();
                assert!(kind != "ERROR", "watch from {rv} failed: {e}");
                let sentinel = name == SENTINEL;
                events.push(Event { kind, value: (!sentinel).then(|| value_of(object)), rv: rv_of(object), name });
                if sentinel {
                    return events;
                }
            }
        }
    })
}

/// Runs one history in namespace `ns` and checks it; the error says what
/// went wrong, with the history.
fn history(addr: &str, ns: &str, seed: u64, clients: usize, per_client: usize) -> Result<Vec<Op>, String> {
    let mut admin = Conn::open(addr);
    let (status, body) = admin.send("POST", "/api/v1/namespaces", Some(&serde_json::json!({"metadata": {"name": ns}})));
    assert_eq!(status, 201, "{body}");
    let base = format!("/api/v1/namespaces/{ns}/configmaps");
    let start_rv = rv_of(&admin.send("GET", &base, None).1);
    let full = [watch(addr, ns, start_rv), watch(addr, ns, start_rv)];

    let started = Instant::now();
    let addr_owned: Arc<str> = addr.into();
    let workers: Vec<_> = (0..clients)
        .map(|id| {
            let (addr, ns) = (addr_owned.clone(), ns.to_string());
            std::thread::spawn(move || client(&addr, &ns, id, seed, per_client, started))
        })
        .collect();
    // A watcher from half-way: from a list's resourceVersion while the
    // clients run.
    std::thread::sleep(Duration::from_millis(2));
    let middle_rv = rv_of(&admin.send("GET", &base, None).1);
    let middle = watch(addr, ns, middle_rv);
    let ops: Vec<Op> = workers.into_iter().flat_map(|w| w.join().expect("a client")).collect();
    let (status, body) = admin.send("POST", &base, Some(&config_map(SENTINEL, 0, None)));
    assert_eq!(status, 201, "{body}");
    let streams: Vec<Vec<Event>> = full.into_iter().map(|w| w.join().expect("a watcher")).collect();
    let suffix = middle.join().expect("the half-way watcher");

    let describe = |why: String| {
        let mut s = format!("history {ns} (seed {seed}): {why}\n");
        let mut sorted = ops.clone();
        sorted.sort_by_key(|o| o.call);
        for o in &sorted {
            s.push_str(&format!(
                "  client {} [{:>9?} .. {:>9?}] {:?} -> {:?} rv {:?}\n",
                o.client, o.call, o.ret, o.input, o.output, o.rv
            ));
        }
        s
    };

    // The model.
    if !linearizable(&ops, vec![None; KEYS.len()]) {
        return Err(describe("no order of these operations is accepted by the model".into()));
    }

    // resourceVersions: one per version, and in real-time order.
    let mut rv_of_value: HashMap<u32, u64> = HashMap::new();
    for o in &ops {
        let value = match (&o.input, &o.output) {
            (Input::Create { value, .. } | Input::Update { value, .. }, Output::Done) => *value,
            (_, Output::Found(v)) => *v,
            _ => continue,
        };
        let rv = o.rv.expect("a version's resourceVersion");
        if let Some(other) = rv_of_value.insert(value, rv).filter(|other| *other != rv) {
            return Err(describe(format!("value {value} read with resourceVersions {other} and {rv}")));
        }
    }
    let writes: Vec<&Op> = ops.iter().filter(|o| matches!(o.output, Output::Done) && o.rv.is_some()).collect();
    let lists: Vec<&Op> = ops.iter().filter(|o| matches!(o.output, Output::Listed(_))).collect();
    for a in &writes {
        for b in writes.iter().chain(&lists) {
            let (ra, rb) = (a.rv.unwrap_or(0), b.rv.unwrap_or(0));
            if a.ret < b.call && ra > rb || (a.ret < b.call && ra == rb && matches!(b.output, Output::Done)) {
                return Err(describe(format!(
                    "{:?} (rv {ra}) was answered before {:?} (rv {rb}) began",
                    a.input, b.input
                )));
            }
            if b.ret < a.call && rb >= ra {
                return Err(describe(format!(
                    "{:?} (rv {rb}) was answered before {:?} (rv {ra}) began",
                    b.input, a.input
                )));
            }
        }
    }

    // Watches.
    for events in streams.iter().chain([&suffix]) {
        if let Some(w) = events.windows(2).find(|w| w[0].rv >= w[1].rv) {
            return Err(describe(format!("a watch went from resourceVersion {} to {}", w[0].rv, w[1].rv)));
        }
    }
    if streams[0] != streams[1] {
        return Err(describe(format!("two watchers from {start_rv} differ:\n{:?}\n{:?}", streams[0], streams[1])));
    }
    let expected: Vec<&Event> = streams[0].iter().filter(|e| e.rv > middle_rv).collect();
    if suffix.iter().collect::<Vec<_>>() != expected {
        return Err(describe(format!("the watcher from {middle_rv} saw {suffix:?}, the others {expected:?}")));
    }
    // Every acknowledged write, and nothing else, replaying through the
    // model.
    let events = &streams[0][..streams[0].len() - 1];
    let mut state: State = vec![None; KEYS.len()];
    let mut deletes: BTreeMap<usize, usize> = BTreeMap::new();
    let mut versions: HashMap<u32, u64> = HashMap::new();
    for e in events {
        let key = KEYS.iter().position(|k| *k == e.name).ok_or_else(|| describe(format!("event for {}", e.name)))?;
        let value = e.value.unwrap_or(0);
        let fits = match e.kind.as_str() {
            "ADDED" => state[key].replace(value).is_none(),
            "MODIFIED" => state[key].replace(value).is_some(),
            "DELETED" => {
                *deletes.entry(key).or_default() += 1;
                state[key].take() == Some(value)
            }
            _ => false,
        };
        if !fits {
            return Err(describe(format!("the watch's {e:?} does not follow from the events before it")));
        }
        if e.kind != "DELETED" {
            versions.insert(value, e.rv);
        }
    }
    let mut acknowledged: HashMap<u32, u64> = HashMap::new();
    let mut deleted: BTreeMap<usize, usize> = BTreeMap::new();
    for o in &ops {
        match (&o.input, &o.output) {
            (Input::Create { value, .. } | Input::Update { value, .. }, Output::Done) => {
                acknowledged.insert(*value, o.rv.unwrap_or(0));
            }
            (Input::Delete { key }, Output::Done) => *deleted.entry(*key).or_default() += 1,
            _ => {}
        }
    }
    if versions != acknowledged || deletes != deleted {
        return Err(describe(format!(
            "the watch saw writes {versions:?} and deletes {deletes:?}; acknowledged were {acknowledged:?} and {deleted:?}"
        )));
    }
    Ok(ops)
}

fn run(histories: u64, clients: usize, per_client: usize) {
    let door = Door::start();
    let started = Instant::now();
    let mut outputs: BTreeMap<String, usize> = BTreeMap::new();
    for seed in 0..histories {
        let ns = format!("lin-{seed}");
        match history(&door.addr, &ns, seed, clients, per_client) {
            Ok(ops) => {
                for o in ops {
                    let name = format!("{:?}", o.output);
                    *outputs.entry(name[..name.find('(').unwrap_or(name.len())].to_string()).or_default() += 1;
                }
            }
            Err(e) => panic!("{e}"),
        }
    }
    let operations: usize = outputs.values().sum();
    eprintln!(
        "{histories} histories, {operations} operations ({outputs:?}) checked in {:?}: 0 violations",
        started.elapsed()
    );
    // The histories exercised every answer the model knows.
    assert_eq!(outputs.len(), 6, "{outputs:?}");
}

#[test]
fn concurrent_clients_see_a_linearizable_api_and_gap_free_watches() {
    run(30, 4, 25);
}

/// The long run (docs/hardening.md): `KUBESIM_HISTORIES` histories (1,000
/// unless given) of four clients with 40 requests each.
#[test]
#[ignore]
fn long_run() {
    let histories = std::env::var("KUBESIM_HISTORIES").ok().and_then(|v| v.parse().ok()).unwrap_or(1000);
    run(histories, 4, 40);
}

/// The checker itself: it must refuse histories that are not linearizable.
#[test]
fn the_checker_refuses_what_no_order_explains() {
    let ms = Duration::from_millis;
    let op = |client, call, ret, input, output| Op { client, call: ms(call), ret: ms(ret), input, output, rv: None };
    // A create answered, then a get that starts afterwards misses it.
    let stale = vec![
        op(0, 0, 1, Input::Create { key: 0, value: 7 }, Output::Done),
        op(1, 2, 3, Input::Get { key: 0 }, Output::NotFound),
    ];
    assert!(!linearizable(&stale, vec![None; 3]));
    // Overlapping, the same two are fine (the get may come first).
    let overlapping = vec![
        op(0, 0, 3, Input::Create { key: 0, value: 7 }, Output::Done),
        op(1, 1, 2, Input::Get { key: 0 }, Output::NotFound),
    ];
    assert!(linearizable(&overlapping, vec![None; 3]));
    // Two creates of one name both succeeding, overlapping or not.
    let twice = vec![
        op(0, 0, 5, Input::Create { key: 1, value: 1 }, Output::Done),
        op(1, 1, 4, Input::Create { key: 1, value: 2 }, Output::Done),
    ];
    assert!(!linearizable(&twice, vec![None; 3]));
    // A read that sees a value, then one that sees the older one again.
    let backwards = vec![
        op(0, 0, 10, Input::Update { key: 2, value: 2, expected: 1 }, Output::Done),
        op(1, 1, 2, Input::Get { key: 2 }, Output::Found(2)),
        op(1, 3, 4, Input::Get { key: 2 }, Output::Found(1)),
    ];
    assert!(!linearizable(&backwards, vec![None, None, Some(1)]));
    // An update that conflicts although the version it names is current.
    let conflict = vec![op(0, 0, 1, Input::Update { key: 0, value: 3, expected: 1 }, Output::Conflict)];
    assert!(!linearizable(&conflict, vec![Some(1), None, None]));
    assert!(linearizable(&conflict, vec![Some(2), None, None]));
    // A list must agree with the reads around it.
    let list = vec![
        op(0, 0, 1, Input::Delete { key: 0 }, Output::Done),
        op(1, 2, 3, Input::List, Output::Listed(vec![Some(1), None, None])),
    ];
    assert!(!linearizable(&list, vec![Some(1), None, None]));
}
