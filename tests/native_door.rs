//! The native door over real sockets: watches stream as chunked HTTP,
//! flushed per event; oversized bodies get a Status; a Secret's values
//! never reach the door's output; SIGINT shuts down cleanly; API Priority
//! and Fairness refuses a flooding user's concurrent requests (429 with
//! Retry-After) and nobody else's.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// The server, killed when the test ends however it ends (a failed
/// assertion leaves no server behind).
struct Door(Child);

impl std::ops::Deref for Door {
    type Target = Child;
    fn deref(&self) -> &Child {
        &self.0
    }
}

impl std::ops::DerefMut for Door {
    fn deref_mut(&mut self) -> &mut Child {
        &mut self.0
    }
}

impl Drop for Door {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn start(flags: &[&str]) -> (Door, String, BufReader<std::process::ChildStdout>) {
    let dir = std::env::temp_dir().join(format!("kubesim-door-{}-{}", std::process::id(), flags.len()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_kubesim"))
        .args(["serve", "--listen", "127.0.0.1:0", "--kubeconfig"])
        .arg(dir.join("kc"))
        .args(flags)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    out.read_line(&mut first).unwrap();
    let addr = first.rsplit("http://").next().unwrap().trim().to_string();
    (Door(child), addr, out)
}

fn request(addr: &str, method: &str, path: &str, body: &[u8]) -> String {
    request_as(addr, "", method, path, body)
}

/// A request with extra header lines (each ending in CRLF).
fn request_as(addr: &str, headers: &str, method: &str, path: &str, body: &[u8]) -> String {
    let mut s = TcpStream::connect(addr).unwrap();
    write!(s, "{method} {path} HTTP/1.1\r\nHost: {addr}\r\n{headers}Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", body.len()).unwrap();
    let _ = s.write_all(body);
    let mut resp = String::new();
    let _ = s.read_to_string(&mut resp);
    resp
}

/// Stores ~12 MB of ConfigMaps (more than the loopback socket holds
/// unread), then asks for their list (with extra header lines) on a
/// connection that does not read yet and has a small receive buffer: the
/// answer cannot all sit in the kernel's buffers, so it is still being sent
/// (and the request holds its seat or slot) until the caller reads it.
fn slow_reader(addr: &str, headers: &str) -> TcpStream {
    let data = "x".repeat(1_000_000);
    for i in 0..12 {
        let body = format!(r#"{{"metadata":{{"name":"big-{i}"}},"data":{{"d":"{data}"}}}}"#);
        let r = request(addr, "POST", "/api/v1/namespaces/default/configmaps", body.as_bytes());
        assert!(r.starts_with("HTTP/1.1 201"), "{}", &r[..r.len().min(300)]);
    }
    let slow = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None).unwrap();
    slow.set_recv_buffer_size(4096).unwrap();
    let at: std::net::SocketAddr = addr.parse().unwrap();
    slow.connect(&at.into()).unwrap();
    let mut slow: TcpStream = slow.into();
    write!(
        slow,
        "GET /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: {addr}\r\n{headers}Connection: close\r\n\r\n"
    )
    .unwrap();
    slow
}

#[test]
fn watch_streams_chunks_and_the_door_shuts_down_cleanly() {
    let (mut child, addr, mut stdout) = start(&[]);

    let mut w = TcpStream::connect(&addr).unwrap();
    w.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    write!(w, "GET /api/v1/namespaces/default/configmaps?watch=1&resourceVersion=4 HTTP/1.1\r\nHost: {addr}\r\n\r\n")
        .unwrap();
    let mut r = BufReader::new(w);
    let mut head = String::new();
    loop {
        let mut line = String::new();
        r.read_line(&mut line).unwrap();
        if line == "\r\n" {
            break;
        }
        head.push_str(&line.to_ascii_lowercase());
    }
    assert!(head.starts_with("http/1.1 200"), "{head}");
    assert!(head.contains("transfer-encoding: chunked"), "{head}");
    assert!(head.contains("content-type: application/json"), "{head}");

    let created = request(&addr, "POST", "/api/v1/namespaces/default/configmaps", br#"{"metadata":{"name":"live"}}"#);
    assert!(created.starts_with("HTTP/1.1 201"), "{created}");
    // The constant header values (kept without a copy) arrive as written.
    let created_head = created.to_ascii_lowercase();
    for header in ["content-type: application/json\r\n", "cache-control: no-cache, private\r\n"] {
        assert!(created_head.contains(header), "{created}");
    }
    // The event arrives as its own chunk while the stream stays open.
    let mut size = String::new();
    r.read_line(&mut size).unwrap();
    let n = usize::from_str_radix(size.trim(), 16).unwrap();
    let mut chunk = vec![0u8; n];
    r.read_exact(&mut chunk).unwrap();
    let line = String::from_utf8(chunk).unwrap();
    assert!(line.starts_with(r#"{"type":"ADDED","object":{"kind":"ConfigMap""#), "{line}");
    assert!(line.ends_with("}\n"));

    // A Secret written and read back: its value is the API's to return,
    // never the door's to print.
    let secret = br#"{"metadata":{"name":"s"},"stringData":{"password":"hunter2-kubesim"}}"#;
    let created = request(&addr, "POST", "/api/v1/namespaces/default/secrets", secret);
    assert!(created.starts_with("HTTP/1.1 201"), "{created}");
    let read = request(&addr, "GET", "/api/v1/namespaces/default/secrets/s", b"");
    assert!(read.contains("aHVudGVyMi1rdWJlc2lt"), "{read}");

    let big = vec![b' '; 3 * 1024 * 1024 + 10];
    let resp = request(&addr, "POST", "/api/v1/namespaces/default/configmaps", &big);
    assert!(resp.starts_with("HTTP/1.1 413"), "{}", &resp[..resp.len().min(200)]);
    assert!(resp.contains(r#""reason":"RequestEntityTooLarge""#));

    Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    let mut rest = String::new();
    let _ = stdout.read_to_string(&mut rest);
    let mut errors = String::new();
    let _ = child.stderr.take().unwrap().read_to_string(&mut errors);
    let status = child.wait().unwrap();
    assert!(status.success(), "exit status {status:?}");
    assert!(rest.contains("shutting down"), "{rest}");
    for printed in [&rest, &errors] {
        assert!(!printed.contains("hunter2") && !printed.contains("aHVudGVyMi1rdWJlc2lt"), "{printed}");
    }
    let _ = std::fs::remove_dir_all(std::env::temp_dir().join(format!("kubesim-door-{}", std::process::id())));
}

/// A priority level with one seat and no borrowing, a FlowSchema sending
/// one user to it, and that user flooding the door from many connections
/// at once: some of the flood is refused with APF's 429, the others'
/// requests are not, and `/metrics` and the dump say so.
#[test]
fn a_flooding_user_is_refused_and_nobody_else_is() {
    // Ten seats in all: the new level's share rounds up to one.
    let (mut child, addr, _stdout) = start(&["--max-requests-inflight", "10", "--max-mutating-requests-inflight=0"]);
    let level = br#"{"apiVersion":"flowcontrol.apiserver.k8s.io/v1","kind":"PriorityLevelConfiguration",
        "metadata":{"name":"one-seat"},"spec":{"type":"Limited","limited":{"nominalConcurrencyShares":1,
        "borrowingLimitPercent":0,"limitResponse":{"type":"Reject"}}}}"#;
    let schema = br#"{"apiVersion":"flowcontrol.apiserver.k8s.io/v1","kind":"FlowSchema",
        "metadata":{"name":"flooder"},"spec":{"priorityLevelConfiguration":{"name":"one-seat"},
        "matchingPrecedence":100,"distinguisherMethod":{"type":"ByUser"},
        "rules":[{"subjects":[{"kind":"User","user":{"name":"flooder"}}],
        "resourceRules":[{"verbs":["*"],"apiGroups":["*"],"resources":["*"],"clusterScope":true,"namespaces":["*"]}]}]}}"#;
    let base = "/apis/flowcontrol.apiserver.k8s.io/v1";
    let r = request(&addr, "POST", &format!("{base}/prioritylevelconfigurations"), level);
    assert!(r.starts_with("HTTP/1.1 201"), "{r}");
    let r = request(&addr, "POST", &format!("{base}/flowschemas"), schema);
    assert!(r.starts_with("HTTP/1.1 201"), "{r}");

    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    let refused = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let flood: Vec<_> = (0..24)
        .map(|_| {
            let (addr, refused) = (addr.clone(), refused.clone());
            std::thread::spawn(move || {
                let mut answers = Vec::new();
                while refused.load(std::sync::atomic::Ordering::Relaxed) < 5 && std::time::Instant::now() < deadline {
                    let r = request_as(
                        &addr,
                        "Impersonate-User: flooder\r\n",
                        "GET",
                        "/api/v1/namespaces/kube-system/configmaps",
                        b"",
                    );
                    if r.starts_with("HTTP/1.1 429") {
                        refused.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    }
                    answers.push(r);
                }
                answers
            })
        })
        .collect();
    let mut others = Vec::new();
    while refused.load(std::sync::atomic::Ordering::Relaxed) < 5 && std::time::Instant::now() < deadline {
        others.push(request_as(
            &addr,
            "Impersonate-User: bob\r\n",
            "GET",
            "/api/v1/namespaces/default/configmaps",
            b"",
        ));
    }
    let answers: Vec<String> = flood.into_iter().flat_map(|t| t.join().unwrap()).collect();
    let too_many: Vec<&String> = answers.iter().filter(|r| r.starts_with("HTTP/1.1 429")).collect();
    assert!(!too_many.is_empty(), "no 429 in {} answers", answers.len());
    let one = too_many[0].to_ascii_lowercase();
    assert!(one.contains("\r\nretry-after: "), "{one}");
    assert!(one.contains("\r\ncontent-type: text/plain; charset=utf-8\r\n"), "{one}");
    assert!(one.contains("\r\nx-kubernetes-pf-prioritylevel-uid: "), "{one}");
    assert!(one.ends_with("\r\n\r\ntoo many requests, please try again later.\n"), "{one}");
    assert!(answers.iter().all(|r| r.starts_with("HTTP/1.1 200") || r.starts_with("HTTP/1.1 429")));
    assert!(
        others.iter().all(|r| r.starts_with("HTTP/1.1 200")),
        "{:?}",
        others.iter().find(|r| !r.starts_with("HTTP/1.1 200"))
    );

    let metrics = request(&addr, "GET", "/metrics", b"");
    let line = metrics
        .lines()
        .find(|l| l.starts_with(r#"apiserver_flowcontrol_rejected_requests_total{flow_schema="flooder",priority_level="one-seat",reason="concurrency-limit"}"#))
        .unwrap_or_else(|| panic!("{metrics}"));
    let counted: usize = line.rsplit(' ').next().unwrap().parse().unwrap();
    assert_eq!(counted, too_many.len());
    let dump = request(&addr, "GET", "/debug/api_priority_and_fairness/dump_priority_levels", b"");
    let row = dump.lines().find(|l| l.starts_with("one-seat,")).unwrap_or_else(|| panic!("{dump}"));
    let cells: Vec<&str> = row.split(',').map(str::trim).collect();
    assert_eq!(cells[7], too_many.len().to_string(), "RejectedRequests: {row}");
    child.kill().unwrap();
    child.wait().unwrap();
}

/// The same one-seat level, but queuing: a flood from one user waits its
/// turn instead of being refused. Every request is let in as a seat comes
/// free (an answered request hands its seat to the next one waiting), and
/// the metrics show that requests waited.
#[test]
fn a_queuing_level_lets_waiting_requests_in_as_seats_come_free() {
    let (mut child, addr, _stdout) = start(&["--max-requests-inflight", "10", "--max-mutating-requests-inflight=0"]);
    let level = br#"{"apiVersion":"flowcontrol.apiserver.k8s.io/v1","kind":"PriorityLevelConfiguration",
        "metadata":{"name":"one-seat"},"spec":{"type":"Limited","limited":{"nominalConcurrencyShares":1,
        "borrowingLimitPercent":0,"limitResponse":{"type":"Queue",
        "queuing":{"queues":1,"handSize":1,"queueLengthLimit":100}}}}}"#;
    let schema = br#"{"apiVersion":"flowcontrol.apiserver.k8s.io/v1","kind":"FlowSchema",
        "metadata":{"name":"patient"},"spec":{"priorityLevelConfiguration":{"name":"one-seat"},
        "matchingPrecedence":100,"distinguisherMethod":{"type":"ByUser"},
        "rules":[{"subjects":[{"kind":"User","user":{"name":"patient"}}],
        "resourceRules":[{"verbs":["*"],"apiGroups":["*"],"resources":["*"],"clusterScope":true,"namespaces":["*"]}]}]}}"#;
    let base = "/apis/flowcontrol.apiserver.k8s.io/v1";
    assert!(request(&addr, "POST", &format!("{base}/prioritylevelconfigurations"), level).starts_with("HTTP/1.1 201"));
    assert!(request(&addr, "POST", &format!("{base}/flowschemas"), schema).starts_with("HTTP/1.1 201"));

    // The one seat held for sure: a slow reader of a big list keeps it
    // while its answer is being sent (on a loaded machine, clients alone
    // may never overlap).
    let mut slow = slow_reader(&addr, "Impersonate-User: patient\r\n");
    // Its first bytes: it holds the seat now.
    let mut first = [0u8; 12];
    slow.read_exact(&mut first).unwrap();
    assert_eq!(&first, b"HTTP/1.1 200");

    const CLIENTS: usize = 12;
    const EACH: usize = 10;
    let flood: Vec<_> = (0..CLIENTS)
        .map(|_| {
            let addr = addr.clone();
            std::thread::spawn(move || {
                (0..EACH)
                    .map(|_| {
                        let h = "Impersonate-User: patient\r\n";
                        request_as(&addr, h, "GET", "/api/v1/namespaces/kube-system/configmaps", b"")
                    })
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    // The flood's first requests queue behind the slow one; reading it
    // through gives the seat back.
    std::thread::sleep(Duration::from_millis(300));
    let mut big = Vec::new();
    slow.read_to_end(&mut big).unwrap();
    assert!(big.len() > 12_000_000);
    let answers: Vec<String> = flood.into_iter().flat_map(|t| t.join().unwrap()).collect();
    assert_eq!(answers.len(), CLIENTS * EACH);
    assert!(
        answers.iter().all(|r| r.starts_with("HTTP/1.1 200")),
        "{:?}",
        answers.iter().find(|r| !r.starts_with("HTTP/1.1 200"))
    );
    let sent = CLIENTS * EACH + 1;

    let metrics = request(&addr, "GET", "/metrics", b"");
    let value = |prefix: &str| -> Option<f64> {
        metrics.lines().find(|l| l.starts_with(prefix)).and_then(|l| l.rsplit(' ').next()?.parse().ok())
    };
    let dispatched =
        value(r#"apiserver_flowcontrol_dispatched_requests_total{flow_schema="patient",priority_level="one-seat"}"#);
    assert_eq!(dispatched, Some(sent as f64), "{metrics}");
    // Requests that went through the queue (a queuing level: all), and
    // those that did not wait (not the ones behind the slow one).
    let queued = value(
        r#"apiserver_flowcontrol_request_wait_duration_seconds_count{execute="true",flow_schema="patient",priority_level="one-seat"}"#,
    );
    let at_once = value(
        r#"apiserver_flowcontrol_request_wait_duration_seconds_bucket{execute="true",flow_schema="patient",priority_level="one-seat",le="0"}"#,
    );
    assert_eq!(queued, dispatched, "{metrics}");
    assert!(at_once.is_some_and(|n| n < sent as f64), "some waited for a seat: {metrics}");
    assert!(!metrics.contains(r#"apiserver_flowcontrol_rejected_requests_total{flow_schema="patient""#), "{metrics}");
    child.kill().unwrap();
    child.wait().unwrap();
}

#[test]
fn idle_and_slow_clients_do_not_hold_the_door() {
    let (mut child, addr, _stdout) = start(&["--read-header-timeout", "1s"]);
    // Many idle connections, and some that sent half a request head.
    let idle: Vec<TcpStream> = (0..300).map(|_| TcpStream::connect(&addr).unwrap()).collect();
    let mut slow: Vec<TcpStream> = (0..20)
        .map(|_| {
            let mut s = TcpStream::connect(&addr).unwrap();
            s.write_all(b"GET /api/v1/namespaces HTTP/1.1\r\nHost: x\r\n").unwrap();
            s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
            s
        })
        .collect();
    let ready = request(&addr, "GET", "/readyz", b"");
    assert!(ready.starts_with("HTTP/1.1 200"), "{ready}");
    // The slow ones are closed once the header timeout passes (as Go's
    // server closes them: no answer).
    for s in &mut slow {
        let mut rest = Vec::new();
        // End of stream, not this side's 10 s read timeout.
        assert_eq!(s.read_to_end(&mut rest).map_err(|e| e.kind()), Ok(0));
    }
    // An idle keep-alive connection is closed too.
    let mut first = idle.into_iter().next().unwrap();
    first.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    assert_eq!(first.read_to_end(&mut Vec::new()).map_err(|e| e.kind()), Ok(0));

    // Headers up to upstream's 1 MiB are read; beyond it, 431.
    let big = format!("X-Big: {}\r\n", "a".repeat(600 * 1024));
    let answer = request_as(&addr, &big, "GET", "/readyz", b"");
    assert!(answer.starts_with("HTTP/1.1 200"), "{}", &answer[..answer.len().min(200)]);
    // (The door may answer and close before the head is all written.)
    let mut s = TcpStream::connect(&addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let _ = write!(s, "GET /readyz HTTP/1.1\r\nHost: x\r\nX-Big: {}\r\n\r\n", "a".repeat(1100 * 1024));
    let mut answer = String::new();
    let _ = s.read_to_string(&mut answer);
    assert!(answer.starts_with("HTTP/1.1 431"), "{}", &answer[..answer.len().min(200)]);
    child.kill().unwrap();
    let _ = child.wait();
}

#[test]
fn connections_over_the_cap_wait_for_one_to_close() {
    let (mut child, addr, _stdout) = start(&["--max-connections", "3"]);
    let held: Vec<TcpStream> = (0..3).map(|_| TcpStream::connect(&addr).unwrap()).collect();
    // The fourth is in the backlog: connected, but not read yet.
    let mut fourth = TcpStream::connect(&addr).unwrap();
    write!(fourth, "GET /readyz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").unwrap();
    fourth.set_read_timeout(Some(Duration::from_millis(700))).unwrap();
    let mut answer = String::new();
    assert!(fourth.read_to_string(&mut answer).is_err(), "answered over the cap: {answer}");
    drop(held);
    fourth.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut answer = String::new();
    fourth.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    child.kill().unwrap();
    let _ = child.wait();
}

/// API Priority and Fairness off: upstream's in-flight limit instead. A
/// read whose large answer is not being read (by a client with a small
/// receive buffer) holds the one read slot, so
/// another user's read is refused (429, `Retry-After: 1`, no APF headers)
/// while the administrator (system:masters) is still answered; once the
/// answer has been read, reads are let in again.
#[test]
fn with_apf_off_a_read_over_the_in_flight_limit_is_refused() {
    let (mut child, addr, _stdout) = start(&[
        "--enable-priority-and-fairness=false",
        "--max-requests-inflight",
        "1",
        "--max-mutating-requests-inflight=0",
    ]);
    let mut slow = slow_reader(&addr, "");
    // Its first bytes before anyone else asks: it holds the one slot now.
    // (Had bob's first list been in flight when it came, the
    // administrator's list would have been answered uncounted, as
    // `system:masters` always is, and bob would find the slot free.)
    let mut first = [0u8; 12];
    slow.read_exact(&mut first).unwrap();
    assert_eq!(&first, b"HTTP/1.1 200");
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    let refused = loop {
        let r = request_as(&addr, "Impersonate-User: bob\r\n", "GET", "/api/v1/namespaces/kube-system/configmaps", b"");
        if r.starts_with("HTTP/1.1 429") || std::time::Instant::now() > deadline {
            break r;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let lower = refused.to_ascii_lowercase();
    assert!(lower.starts_with("http/1.1 429"), "{refused}");
    assert!(lower.contains("\r\nretry-after: 1\r\n"), "{refused}");
    assert!(!lower.contains("x-kubernetes-pf-"), "{refused}");
    assert!(lower.ends_with("\r\n\r\ntoo many requests, please try again later.\n"), "{refused}");
    let admin = request(&addr, "GET", "/api/v1/namespaces/kube-system/configmaps", b"");
    assert!(admin.starts_with("HTTP/1.1 200"), "{admin}");
    let mut big = Vec::new();
    slow.read_to_end(&mut big).unwrap();
    assert!(big.len() > 12_000_000);
    let again = loop {
        let r = request_as(&addr, "Impersonate-User: bob\r\n", "GET", "/api/v1/namespaces/kube-system/configmaps", b"");
        if r.starts_with("HTTP/1.1 200") || std::time::Instant::now() > deadline {
            break r;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(again.starts_with("HTTP/1.1 200"), "{again}");
    let metrics = request(&addr, "GET", "/metrics", b"");
    assert!(metrics.contains("apiserver_dropped_requests_total{request_kind=\"readOnly\"} "), "{metrics}");
    child.kill().unwrap();
    let _ = child.wait();
}

/// Each answer names the FlowSchema and priority level its request was
/// classified into, by uid, however the door's requests alternate between
/// flows (the door keeps recent header values to share them).
#[test]
fn every_answer_names_its_own_flow_schema_and_level() {
    let (mut child, addr, _stdout) = start(&[]);
    let header = |r: &str, name: &str| -> String {
        let lower = r.to_ascii_lowercase();
        let at = lower.find(&format!("\r\n{name}: ")).unwrap_or_else(|| panic!("no {name} in {r}"));
        r[at + name.len() + 4..].split("\r\n").next().unwrap().to_string()
    };
    let uid = |path: &str| -> String {
        let r = request(&addr, "GET", &format!("/apis/flowcontrol.apiserver.k8s.io/v1/{path}"), b"");
        let body = &r[r.find("\r\n\r\n").unwrap() + 4..];
        let v: serde_json::Value = serde_json::from_str(body).unwrap();
        v["metadata"]["uid"].as_str().unwrap().to_string()
    };
    // (who, the FlowSchema and level upstream's configuration classifies
    // a list of ConfigMaps by them into)
    let who = [
        ("", "exempt", "exempt"),
        ("Impersonate-User: bob\r\n", "global-default", "global-default"),
        ("Impersonate-User: system:kube-scheduler\r\n", "kube-scheduler", "workload-high"),
        ("Impersonate-User: system:serviceaccount:default:app\r\n", "service-accounts", "workload-low"),
        ("Impersonate-User: system:node:n1\r\nImpersonate-Group: system:nodes\r\n", "system-nodes", "system"),
    ];
    let want: Vec<(String, String)> = who
        .iter()
        .map(|(_, fs, pl)| (uid(&format!("flowschemas/{fs}")), uid(&format!("prioritylevelconfigurations/{pl}"))))
        .collect();
    assert!(want.iter().all(|(fs, pl)| !fs.is_empty() && !pl.is_empty()), "{want:?}");
    for round in 0..4 {
        for k in 0..who.len() {
            let i = (k + round) % who.len();
            let (headers, fs, _) = who[i];
            let r = request_as(&addr, headers, "GET", "/api/v1/namespaces/default/configmaps", b"");
            assert!(r.starts_with("HTTP/1.1 200"), "{headers}: {r}");
            let got = (header(&r, "x-kubernetes-pf-flowschema-uid"), header(&r, "x-kubernetes-pf-prioritylevel-uid"));
            assert_eq!(got, want[i], "{fs} ({headers})");
        }
    }
    child.kill().unwrap();
    let _ = child.wait();
}
