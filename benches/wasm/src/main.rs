//! The core in WebAssembly, run by Node's WASI (V8, Chromium's engine):
//! `kubesim-bench-wasm N` runs the 1,000-replica rollout N times and
//! prints each one's seconds (`scripts/bench-wasm.sh` counts its
//! instructions); `kubesim-bench-wasm creates N` makes N ~1 KB ConfigMaps
//! through `Server::handle`, as the native `creates` benchmark does, and
//! prints the rate.

#[path = "../../rollout/mod.rs"]
mod rollout;

use kubesim::server::{Request, Server, ServerConfig};
use std::time::Instant;

fn creates(n: usize) -> f64 {
    let mut s = Server::new(ServerConfig::default());
    let data = "x".repeat(900);
    let bodies: Vec<Vec<u8>> = (0..n)
        .map(|i| format!(r#"{{"metadata":{{"name":"cm-{i}"}},"data":{{"payload":"{data}"}}}}"#).into_bytes())
        .collect();
    let start = Instant::now();
    for b in bodies {
        let r = s.handle(Request::new("POST", "/api/v1/namespaces/default/configmaps").with_body(b));
        assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
    }
    n as f64 / start.elapsed().as_secs_f64()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("creates") {
        let n = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(50_000);
        println!("creates in wasm: {:.0} ConfigMaps/s (~1 KB each, {n} through Server::handle)", creates(n));
        return;
    }
    let n: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or(1);
    for _ in 0..n {
        println!("rollout: {:.3} s", rollout::rollout(false).0);
    }
}
