//! kubesim: the Kubernetes API, simulated.
//!
//! One deterministic core (`server::Server`) answers `Request`s with
//! `Response`s and opens watch streams. It does no IO, reads no wall clock and
//! draws randomness only from a seeded source, so a scenario replays byte for
//! byte. The native HTTP door (`src/bin/kubesim.rs`) and the browser door
//! (the `web/` crate, compiled to WebAssembly) are thin adapters over it.
//!
//! Layers, dependencies pointing down only (checked by `tests/tidy.rs`):
//! `controllers` (the cluster's own clients: they only send requests) and
//! `starter` (the starter cluster, as requests) →
//! `server` (routing, options, negotiation, rendering) → `registry` (the
//! generic store, a strategy per kind) → `apply`, `patch`, `proto`, `schema`
//! (what bodies mean) → `storage` (MVCC) → `api`, `selector`, `clock` (plain
//! data, shared by all).

// `Status` is the error currency of every layer (as upstream's StatusError);
// it is large, but errors are the cold path and boxing it everywhere would
// only add noise.
#![allow(clippy::result_large_err)]

#[cfg(not(target_arch = "wasm32"))]
pub mod alloc;
pub mod api;
pub mod apply;
pub mod auth;
pub mod clock;
pub mod controllers;
pub mod flowcontrol;
pub mod fuzzing;
pub mod network;
pub mod patch;
pub mod proto;
pub mod quota;
pub mod registry;
pub mod schema;
pub mod selector;
pub mod server;
pub mod sort;
pub mod starter;
pub mod storage;

pub use server::{Request, Response, Server, ServerConfig};
