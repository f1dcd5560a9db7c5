//! A soak run of the native door (issue 18; not part of CI): mixed load for
//! some minutes against `kubesim serve` with a short history window, so
//! compaction runs all along. Writers create, patch and delete ConfigMaps,
//! listers page through them, watchers open watches, read them for a few
//! seconds and hang up. Every 10 s it prints the server's resident memory,
//! the watches `/metrics` counts open, and the answers so far.
//!
//!     cargo build --release --bin kubesim
//!     cargo run --release --example soak -- 10       # minutes (default 10)
//!
//! It fails (exit 1) when an answer is a 5xx or a connection breaks, when
//! a watch it closed is still counted once the load stops (a leak), or
//! when resident memory after the first window grows by more than 20%
//! (`BENCHMARKS.md` has a run's figures).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Answers by class, and broken connections.
#[derive(Default)]
struct Counts {
    ok: AtomicU64,
    client_errors: AtomicU64,
    throttled: AtomicU64,
    server_errors: AtomicU64,
    broken: AtomicU64,
    events: AtomicU64,
    watches: AtomicU64,
}

impl Counts {
    fn note(&self, status: u16) {
        let c = match status {
            200..=299 => &self.ok,
            429 => &self.throttled,
            400..=499 => &self.client_errors,
            _ => &self.server_errors,
        };
        c.fetch_add(1, Ordering::Relaxed);
    }
}

/// One kept-alive HTTP/1.1 connection.
struct Conn {
    addr: String,
    stream: Option<BufReader<TcpStream>>,
}

impl Conn {
    fn new(addr: &str) -> Conn {
        Conn { addr: addr.to_string(), stream: None }
    }

    /// A request and its status and body; Err when the connection broke.
    fn call(&mut self, method: &str, path: &str, content_type: &str, body: &[u8]) -> Result<(u16, Vec<u8>), String> {
        if self.stream.is_none() {
            let s = TcpStream::connect(&self.addr).map_err(|e| e.to_string())?;
            s.set_read_timeout(Some(Duration::from_secs(30))).map_err(|e| e.to_string())?;
            self.stream = Some(BufReader::new(s));
        }
        let result = self.exchange(method, path, content_type, body);
        if result.is_err() {
            self.stream = None;
        }
        result
    }

    fn exchange(
        &mut self,
        method: &str,
        path: &str,
        content_type: &str,
        body: &[u8],
    ) -> Result<(u16, Vec<u8>), String> {
        let r = self.stream.as_mut().ok_or("not connected")?;
        let head = format!(
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nUser-Agent: kubesim-soak\r\n\r\n",
            self.addr,
            body.len()
        );
        let s = r.get_mut();
        s.write_all(head.as_bytes()).and_then(|_| s.write_all(body)).map_err(|e| e.to_string())?;
        let (status, length, chunked, close) = read_head(r)?;
        let body = if chunked {
            let mut out = Vec::new();
            while let Some(chunk) = read_chunk(r)? {
                out.extend_from_slice(&chunk);
            }
            out
        } else {
            let mut out = vec![0; length];
            r.read_exact(&mut out).map_err(|e| e.to_string())?;
            out
        };
        if close {
            self.stream = None;
        }
        Ok((status, body))
    }
}

/// The status, Content-Length, whether chunked, and whether the server
/// closes the connection.
fn read_head(r: &mut BufReader<TcpStream>) -> Result<(u16, usize, bool, bool), String> {
    let mut line = String::new();
    if r.read_line(&mut line).map_err(|e| e.to_string())? == 0 {
        return Err("closed before an answer".into());
    }
    let status = line.split(' ').nth(1).and_then(|s| s.parse().ok()).ok_or(format!("bad status line {line:?}"))?;
    let (mut length, mut chunked, mut close) = (0, false, false);
    loop {
        line.clear();
        r.read_line(&mut line).map_err(|e| e.to_string())?;
        let l = line.trim_end().to_ascii_lowercase();
        if l.is_empty() {
            return Ok((status, length, chunked, close));
        }
        if let Some(v) = l.strip_prefix("content-length:") {
            length = v.trim().parse().map_err(|_| format!("bad length {l}"))?;
        } else if l == "transfer-encoding: chunked" {
            chunked = true;
        } else if l == "connection: close" {
            close = true;
        }
    }
}

/// One chunk of a chunked body; None at the last.
fn read_chunk(r: &mut BufReader<TcpStream>) -> Result<Option<Vec<u8>>, String> {
    let mut size = String::new();
    r.read_line(&mut size).map_err(|e| e.to_string())?;
    let n = usize::from_str_radix(size.trim(), 16).map_err(|_| format!("bad chunk size {size:?}"))?;
    let mut chunk = vec![0; n + 2];
    r.read_exact(&mut chunk).map_err(|e| e.to_string())?;
    chunk.truncate(n);
    Ok((n > 0).then_some(chunk))
}

fn start_server() -> (Child, String) {
    let exe = std::env::current_exe().expect("the example's path");
    let kubesim = exe.parent().and_then(|d| d.parent()).map(|d| d.join("kubesim")).expect("target directory");
    assert!(kubesim.exists(), "build the server first: cargo build --release --bin kubesim ({})", kubesim.display());
    let dir = std::env::temp_dir().join(format!("kubesim-soak-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let mut child = Command::new(kubesim)
        .args(["serve", "--listen", "127.0.0.1:0", "--history-window", "30s", "--kubeconfig"])
        .arg(dir.join("kubeconfig"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("kubesim serve");
    let mut out = BufReader::new(child.stdout.take().expect("stdout"));
    let mut first = String::new();
    out.read_line(&mut first).expect("the listening line");
    let addr = first.rsplit("http://").next().unwrap_or("").trim().to_string();
    // Whatever the server prints from now on is read and dropped, so that
    // a full pipe never blocks it.
    std::thread::spawn(move || std::io::copy(&mut out, &mut std::io::sink()));
    let mut err = child.stderr.take().expect("stderr");
    std::thread::spawn(move || std::io::copy(&mut err, &mut std::io::sink()));
    (child, addr)
}

fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// Open watches of configmaps, as `/metrics` counts them.
fn open_watches(addr: &str) -> Option<u64> {
    let (status, body) = Conn::new(addr).call("GET", "/metrics", "text/plain", b"").ok()?;
    if status != 200 {
        return None;
    }
    let text = String::from_utf8_lossy(&body).into_owned();
    Some(
        text.lines()
            .filter(|l| l.starts_with("apiserver_longrunning_requests{") && l.contains("resource=\"configmaps\""))
            .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
            .sum::<f64>() as u64,
    )
}

fn writer(addr: String, w: usize, stop: Arc<AtomicBool>, counts: Arc<Counts>) {
    let mut c = Conn::new(&addr);
    let ns = format!("soak-{}", w % 3);
    let payload = "x".repeat(500);
    let mut i = 0u64;
    while !stop.load(Ordering::Relaxed) {
        let name = format!("w{w}-{i}");
        let base = format!("/api/v1/namespaces/{ns}/configmaps");
        let body =
            format!(r#"{{"metadata":{{"name":"{name}","labels":{{"writer":"{w}"}}}},"data":{{"p":"{payload}"}}}}"#);
        let steps: [(&str, String, &str, Vec<u8>); 2] = [
            ("POST", base.clone(), "application/json", body.into_bytes()),
            ("PATCH", format!("{base}/{name}"), "application/merge-patch+json", br#"{"data":{"q":"1"}}"#.to_vec()),
        ];
        for (method, path, ct, b) in steps {
            match c.call(method, &path, ct, &b) {
                Ok((status, _)) => counts.note(status),
                Err(_) => {
                    counts.broken.fetch_add(1, Ordering::Relaxed);
                }
            }
        }
        // Keep about 200 objects a writer: delete the one made 200 ago.
        if i >= 200 {
            match c.call("DELETE", &format!("{base}/w{w}-{}", i - 200), "application/json", b"") {
                Ok((status, _)) => counts.note(status),
                Err(_) => {
                    counts.broken.fetch_add(1, Ordering::Relaxed);
                }
            }
        }
        i += 1;
    }
}

fn lister(addr: String, stop: Arc<AtomicBool>, counts: Arc<Counts>) {
    let mut c = Conn::new(&addr);
    while !stop.load(Ordering::Relaxed) {
        let mut token = String::new();
        loop {
            let path = format!("/api/v1/configmaps?limit=100&continue={token}");
            match c.call("GET", &path, "application/json", b"") {
                Ok((status, body)) => {
                    counts.note(status);
                    let v: serde_json::Value = serde_json::from_slice(&body).unwrap_or_default();
                    token = v["metadata"]["continue"].as_str().unwrap_or("").to_string();
                    // A token older than the history window answers 410:
                    // start over, as clients do.
                    if status != 200 || token.is_empty() {
                        break;
                    }
                }
                Err(_) => {
                    counts.broken.fetch_add(1, Ordering::Relaxed);
                    break;
                }
            }
        }
    }
}

/// Watches one namespace for a few seconds at a time, then hangs up.
fn watcher(addr: String, w: usize, stop: Arc<AtomicBool>, counts: Arc<Counts>) {
    while !stop.load(Ordering::Relaxed) {
        let Ok(s) = TcpStream::connect(&addr) else {
            counts.broken.fetch_add(1, Ordering::Relaxed);
            continue;
        };
        let _ = s.set_read_timeout(Some(Duration::from_secs(2)));
        let mut r = BufReader::new(s);
        let path = format!("/api/v1/namespaces/soak-{}/configmaps?watch=1&allowWatchBookmarks=true", w % 3);
        let head = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nUser-Agent: kubesim-soak\r\n\r\n");
        if r.get_mut().write_all(head.as_bytes()).is_err() {
            counts.broken.fetch_add(1, Ordering::Relaxed);
            continue;
        }
        match read_head(&mut r) {
            Ok((200, ..)) => counts.note(200),
            Ok((status, ..)) => {
                counts.note(status);
                continue;
            }
            Err(_) => {
                counts.broken.fetch_add(1, Ordering::Relaxed);
                continue;
            }
        }
        counts.watches.fetch_add(1, Ordering::Relaxed);
        let until = Instant::now() + Duration::from_secs(5);
        while Instant::now() < until && !stop.load(Ordering::Relaxed) {
            match read_chunk(&mut r) {
                Ok(Some(chunk)) => {
                    counts.events.fetch_add(chunk.iter().filter(|&&b| b == b'\n').count() as u64, Ordering::Relaxed);
                }
                Ok(None) => break,
                // A quiet moment (the read timeout): keep watching.
                Err(_) => {}
            }
        }
        // Dropping the connection closes the watch.
    }
}

fn main() {
    let minutes: f64 = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(10.0);
    let (mut child, addr) = start_server();
    let pid = child.id();
    println!("soak: {minutes} min against {addr} (pid {pid}), history window 30 s");
    let mut setup = Conn::new(&addr);
    for ns in ["soak-0", "soak-1", "soak-2"] {
        let body = format!(r#"{{"metadata":{{"name":"{ns}"}}}}"#);
        let _ = setup.call("POST", "/api/v1/namespaces", "application/json", body.as_bytes());
    }
    let baseline = open_watches(&addr).unwrap_or(0);
    let stop = Arc::new(AtomicBool::new(false));
    let counts = Arc::new(Counts::default());
    let mut threads = Vec::new();
    for w in 0..4 {
        let (a, s, c) = (addr.clone(), stop.clone(), counts.clone());
        threads.push(std::thread::spawn(move || writer(a, w, s, c)));
    }
    for _ in 0..2 {
        let (a, s, c) = (addr.clone(), stop.clone(), counts.clone());
        threads.push(std::thread::spawn(move || lister(a, s, c)));
    }
    for w in 0..3 {
        let (a, s, c) = (addr.clone(), stop.clone(), counts.clone());
        threads.push(std::thread::spawn(move || watcher(a, w, s, c)));
    }
    let start = Instant::now();
    let mut samples: Vec<(f64, u64)> = Vec::new();
    while start.elapsed().as_secs_f64() < minutes * 60.0 {
        std::thread::sleep(Duration::from_secs(10));
        let t = start.elapsed().as_secs_f64();
        let rss = rss_kib(pid);
        samples.push((t, rss));
        println!(
            "{:>5.0} s  rss {:>7.1} MiB  open watches {:>3}  ok {}  4xx {}  429 {}  5xx {}  broken {}  watches {}  events {}",
            t,
            rss as f64 / 1024.0,
            open_watches(&addr).map_or("?".into(), |n| n.to_string()),
            counts.ok.load(Ordering::Relaxed),
            counts.client_errors.load(Ordering::Relaxed),
            counts.throttled.load(Ordering::Relaxed),
            counts.server_errors.load(Ordering::Relaxed),
            counts.broken.load(Ordering::Relaxed),
            counts.watches.load(Ordering::Relaxed),
            counts.events.load(Ordering::Relaxed),
        );
    }
    stop.store(true, Ordering::Relaxed);
    for t in threads {
        let _ = t.join();
    }
    std::thread::sleep(Duration::from_secs(2));
    let left = open_watches(&addr);
    let _ = child.kill();
    let _ = child.wait();

    // Flat after the first window: the first sample after a minute against
    // the largest of the last third.
    let after_first = samples.iter().find(|(t, _)| *t >= 60.0).map(|s| s.1);
    let last_third = samples.iter().skip(samples.len() * 2 / 3).map(|s| s.1).max();
    let growth = match (after_first, last_third) {
        (Some(a), Some(b)) if a > 0 => Some(b as f64 / a as f64 - 1.0),
        _ => None,
    };
    let mut failed = Vec::new();
    if counts.server_errors.load(Ordering::Relaxed) > 0 {
        failed.push("5xx answers".to_string());
    }
    if counts.broken.load(Ordering::Relaxed) > 0 {
        failed.push("broken connections".to_string());
    }
    if left != Some(baseline) {
        failed.push(format!("open watches after the load {left:?}, before it {baseline}"));
    }
    if growth.is_some_and(|g| g > 0.20) {
        failed.push("resident memory grew after the first window".to_string());
    }
    println!(
        "soak: resident memory after the first minute {:.1} MiB, largest in the last third {:.1} MiB ({}); open watches after the load {} (before {baseline}); {}",
        after_first.unwrap_or(0) as f64 / 1024.0,
        last_third.unwrap_or(0) as f64 / 1024.0,
        growth.map_or("too short to tell".into(), |g| format!("{:+.1}%", g * 100.0)),
        left.map_or("?".into(), |n| n.to_string()),
        if failed.is_empty() { "passed".to_string() } else { format!("FAILED: {}", failed.join(", ")) }
    );
    if !failed.is_empty() {
        std::process::exit(1);
    }
}
