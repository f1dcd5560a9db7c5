//! kubesim's browser door: the simulated API runs in the tab, and a Yew UI
//! shows what it does. The modules without `components` in their path are
//! plain logic, unit-tested natively; `components` renders them.
//!
//! Invariant: nothing here touches the storage layer or the registry; the
//! page is a client of `Server::serve` like any other.

pub mod durable;
pub mod embedding;
pub mod format;
pub mod i18n;
pub mod kubectl;
pub mod lanes;
pub mod lessons;
pub mod markdown;
pub mod owners;
pub mod ownership;
pub mod pager;
pub mod paths;
pub mod resources;
pub mod rv_explorer;
pub mod samples;
pub mod session;
pub mod state;
pub mod timeline;
pub mod view;
pub mod virtual_window;
pub mod wire;

#[cfg(target_arch = "wasm32")]
pub mod components;

/// Starts the app in the page's body.
#[cfg(target_arch = "wasm32")]
pub fn start() {
    components::start();
}
