//! The 1,000-replica rollout in WebAssembly (`scripts/bench-wasm.sh`):
//! `kubesim-bench-wasm N` runs it N times and prints each one's seconds.

#[path = "../../rollout/mod.rs"]
mod rollout;

fn main() {
    let n: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(1);
    for _ in 0..n {
        println!("rollout: {:.3} s", rollout::rollout(false).0);
    }
}
