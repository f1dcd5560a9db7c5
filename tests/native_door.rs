//! The native door over real sockets: watches stream as chunked HTTP,
//! flushed per event; oversized bodies get a Status; a Secret's values
//! never reach the door's output; SIGINT shuts down cleanly.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

fn start() -> (Child, String, BufReader<std::process::ChildStdout>) {
    let dir = std::env::temp_dir().join(format!("kubesim-door-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_kubesim"))
        .args(["serve", "--listen", "127.0.0.1:0", "--kubeconfig"])
        .arg(dir.join("kc"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    out.read_line(&mut first).unwrap();
    let addr = first.rsplit("http://").next().unwrap().trim().to_string();
    (child, addr, out)
}

fn request(addr: &str, method: &str, path: &str, body: &[u8]) -> String {
    let mut s = TcpStream::connect(addr).unwrap();
    write!(s, "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", body.len()).unwrap();
    let _ = s.write_all(body);
    let mut resp = String::new();
    let _ = s.read_to_string(&mut resp);
    resp
}

#[test]
fn watch_streams_chunks_and_the_door_shuts_down_cleanly() {
    let (mut child, addr, mut stdout) = start();

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
