//! kubesim: the Kubernetes API, simulated.
//!
//! One deterministic core (`server::Server`) answers `Request`s with
//! `Response`s and opens watch streams. It does no IO, reads no wall clock and
//! draws randomness only from a seeded source, so a scenario replays byte for
//! byte. The native HTTP door (`src/bin/kubesim.rs`) and, later, the browser
//! door are thin adapters over it.
//!
//! Layers, dependencies pointing down only:
//! `server` → `registry` → `storage`, with `api` (plain data) and `selector`
//! shared below them.

// `Status` is the error currency of every layer (as upstream's StatusError);
// it is large, but errors are the cold path and boxing it everywhere would
// only add noise.
#![allow(clippy::result_large_err)]

pub mod api;
pub mod apply;
pub mod clock;
pub mod patch;
pub mod proto;
pub mod registry;
pub mod schema;
pub mod selector;
pub mod server;
pub mod storage;

pub use server::{Request, Response, Server, ServerConfig};
