//! A server made as the page makes one (RBAC on, seed 1: its bootstrap
//! objects, the schemas loaded on first use, API Priority and Fairness'
//! objects made and their status applied), for counting instructions:
//!
//! ```sh
//! cargo build --release --example server_start
//! valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
//!   target/release/examples/server_start
//! ```
//!
//! The `I refs` valgrind prints; `BENCHMARKS.md` has the figures.
fn main() {
    let config = kubesim::server::ServerConfig { seed: 1, rbac: true, ..Default::default() };
    std::hint::black_box(kubesim::server::Server::new(config));
}
