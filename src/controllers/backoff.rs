//! Objects whose last pass failed (a pod create the server refused), and
//! when to try each again: upstream's per-item workqueue backoff (5 ms,
//! doubling with each failure in a row, at most 1000 s), in simulated
//! time. A vector, as few fail at once (and it keeps the page's first
//! module part free of another map's code).

use super::informer::Informer;
use super::object::meta_str;
use crate::clock::SimTime;
use crate::server::Response;

/// What the server said refusing a pod's create, for the `FailedCreate`
/// event upstream's pod control records — none when the namespace is
/// being deleted (the refusal's cause `NamespaceTerminating`).
#[inline(never)]
pub fn refusal(r: &Response) -> Option<String> {
    let status = r.json_body();
    let causes = status["details"]["causes"].as_array();
    if causes.into_iter().flatten().any(|c| c["reason"] == "NamespaceTerminating") {
        return None;
    }
    Some(status["message"].as_str().unwrap_or("").to_string())
}

#[derive(Default)]
pub struct Backoff {
    /// uid, failures in a row, when to try again.
    failing: Vec<(String, u32, SimTime)>,
    /// Whether the pass under way failed (see `pass`).
    failed: bool,
}

/// The wait after the `n`th failure in a row (from 0).
fn backoff_millis(n: u32) -> i64 {
    (5i64 << n.min(20)).min(1_000_000)
}

impl Backoff {
    // What runs on every pass is a test of an empty list, inlined; the
    // rest, for the rare failure, is apart (and in the page's second
    // module part).

    /// Whether an object's retry time has come.
    #[inline(always)]
    pub fn due(&self, now: SimTime) -> bool {
        !self.failing.is_empty() && self.failing.iter().any(|(_, _, at)| at.0 <= now.0)
    }

    /// The pass over the object `uid` failed or not.
    #[inline(always)]
    pub fn record(&mut self, uid: &str, failed: bool, now: SimTime) {
        if failed || !self.failing.is_empty() {
            self.update(uid, failed, now);
        }
    }

    #[inline(never)]
    fn update(&mut self, uid: &str, failed: bool, now: SimTime) {
        match (failed, self.failing.iter().position(|(u, _, _)| u == uid)) {
            (true, Some(i)) => {
                let (_, n, at) = &mut self.failing[i];
                *at = now.plus_millis(backoff_millis(*n));
                *n += 1;
            }
            (true, None) => self.failing.push((uid.to_string(), 1, now.plus_millis(backoff_millis(0)))),
            (false, Some(i)) => {
                self.failing.swap_remove(i);
            }
            (false, None) => {}
        }
    }

    /// A pass over one object begins (`fail` marks it failed; `end`
    /// records it).
    #[inline(always)]
    pub fn begin(&mut self) {
        self.failed = false;
    }

    #[inline(always)]
    pub fn fail(&mut self) {
        self.failed = true;
    }

    #[inline(always)]
    pub fn end(&mut self, uid: &str, now: SimTime) {
        self.record(uid, self.failed, now);
    }

    /// Forgets the objects no longer in the informer's cache.
    #[inline(always)]
    pub fn forget_gone(&mut self, objects: &Informer) {
        if !self.failing.is_empty() {
            self.forget(objects);
        }
    }

    #[inline(never)]
    fn forget(&mut self, objects: &Informer) {
        self.failing.retain(|(uid, _, _)| objects.objects().any(|o| meta_str(o, "uid") == uid));
    }

    /// The earliest retry.
    pub fn next_wake(&self) -> Option<SimTime> {
        self.failing.iter().map(|(_, _, at)| *at).min_by_key(|t| t.0)
    }
}
