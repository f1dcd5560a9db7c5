//! A server written out and read back without serving a request again:
//! the store as a log of its writes (`storage::log`) and the few numbers
//! beside it that the next requests depend on (where the uid and Audit-ID
//! sources stand, the clock, the API Priority and Fairness upkeep's next
//! run). The browser saves both as it goes and reloads from them
//! (`docs/browser.md`); a restored server answers every request as the
//! one saved would have.
//!
//! What is not kept: the metrics (they start again from zero, as after a
//! kube-apiserver restart) and caches that are rebuilt on first use.

use serde::{Deserialize, Serialize};

use super::Server;
use crate::api::Revision;
use crate::clock::{SeededRng, SimTime};
use crate::registry::RestorePoint;

/// What a saved server needs beside its store's log.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerState {
    /// The store's newest revision: the log must end there.
    pub revision: u64,
    pub compacted: u64,
    /// The most bytes storage ever held (`apiserver_storage_size_bytes`).
    pub allocated_bytes: u64,
    /// Simulated time (ms), and how far "advance" moved it past the
    /// adapter's clock.
    pub now: i64,
    pub offset_ms: i64,
    /// Where the uid and name source, and the Audit-ID source, stand.
    pub uid_source: u64,
    pub audit_source: u64,
    /// When the APF configuration producer runs next, and the revision its
    /// consumer last read.
    pub apf_next_produce: i64,
    pub apf_consumed_at: Option<u64>,
}

impl Server {
    /// Where this server stands, beside its log.
    pub fn state(&self) -> ServerState {
        ServerState {
            revision: self.registry.revision().0,
            compacted: self.registry.compacted().0,
            allocated_bytes: self.registry.storage_size().allocated,
            now: self.registry.now().0,
            offset_ms: self.offset_ms,
            uid_source: self.registry.rng_state(),
            audit_source: self.audit.state(),
            apf_next_produce: self.apf.next_produce,
            apf_consumed_at: self.apf.consumed_at.map(|r| r.0),
        }
    }

    /// The writes after revision `after`, as a log; None when compaction
    /// has dropped some of them (save `dump` instead).
    pub fn log_since(&self, after: Revision) -> Option<Vec<u8>> {
        let mut out = Vec::new();
        self.registry.log_since(after, &mut out).then_some(out)
    }

    /// The whole store as a log.
    pub fn dump(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.registry.dump(&mut out);
        out
    }

    /// A server from its configuration, its saved state and its store's
    /// logs in the order they were written (a `dump` or the first
    /// `log_since(0)`, then each later `log_since`).
    pub fn restore(config: super::ServerConfig, state: &ServerState, logs: &[&[u8]]) -> Result<Server, String> {
        let mut s = Server::blank(config);
        let at = RestorePoint {
            revision: Revision(state.revision),
            compacted: Revision(state.compacted),
            allocated: state.allocated_bytes,
            rng: state.uid_source,
            now: SimTime(state.now),
        };
        s.registry.restore(logs, at)?;
        s.offset_ms = state.offset_ms;
        s.audit = SeededRng::new(state.audit_source);
        s.apf.next_produce = state.apf_next_produce;
        // The classifier's configuration, read from what is stored (the
        // consumer writes nothing to a configuration it already read).
        s.consume_apf();
        s.apf.consumed_at = state.apf_consumed_at.map(Revision);
        Ok(s)
    }
}
