//! The metrics panel's history: every second of simulated time the page
//! reads a few of the server's `/metrics` series (as a Prometheus scrape
//! would see them, without sending a request of its own) and keeps the
//! last two minutes, so charts can show rates and levels over time.

use std::collections::{BTreeMap, VecDeque};

use kubesim::Server;

/// How many samples are kept (one a simulated second).
pub const KEPT: usize = 120;

/// One reading.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Sample {
    pub t_ms: i64,
    /// `apiserver_request_total` summed by verb, and by code (running
    /// totals).
    pub by_verb: BTreeMap<String, f64>,
    pub by_code: BTreeMap<String, f64>,
    /// `apiserver_current_inflight_requests` (read-only, mutating).
    pub inflight: (f64, f64),
    /// `apiserver_flowcontrol_current_inqueue_requests`, summed by level.
    pub waiting: BTreeMap<String, f64>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct History {
    pub samples: VecDeque<Sample>,
}

fn label<'a>(labels: &'a [(String, String)], name: &str) -> &'a str {
    labels.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str()).unwrap_or("")
}

impl History {
    /// Reads the server once a simulated second (the first time at once).
    pub fn maybe_sample(&mut self, server: &Server) -> bool {
        let now = server.now().0;
        if self.samples.back().is_some_and(|s| now / 1000 <= s.t_ms / 1000) {
            return false;
        }
        let mut s = Sample { t_ms: now, ..Default::default() };
        for (labels, v) in server.metric_series("apiserver_request_total") {
            *s.by_verb.entry(label(&labels, "verb").to_string()).or_default() += v;
            *s.by_code.entry(label(&labels, "code").to_string()).or_default() += v;
        }
        for (labels, v) in server.metric_series("apiserver_current_inflight_requests") {
            match label(&labels, "request_kind") {
                "mutating" => s.inflight.1 = v,
                _ => s.inflight.0 = v,
            }
        }
        for (labels, v) in server.metric_series("apiserver_flowcontrol_current_inqueue_requests") {
            *s.waiting.entry(label(&labels, "priority_level").to_string()).or_default() += v;
        }
        self.samples.push_back(s);
        while self.samples.len() > KEPT {
            self.samples.pop_front();
        }
        true
    }

    /// Per-second rates of a running total, one point per pair of samples:
    /// (seconds since the first kept sample, rate).
    pub fn rates(&self, pick: impl Fn(&Sample) -> f64) -> Vec<(f64, f64)> {
        let Some(first) = self.samples.front().map(|s| s.t_ms) else { return Vec::new() };
        self.samples
            .iter()
            .zip(self.samples.iter().skip(1))
            .map(|(a, b)| {
                let dt = ((b.t_ms - a.t_ms) as f64 / 1000.0).max(1e-3);
                ((b.t_ms - first) as f64 / 1000.0, ((pick(b) - pick(a)) / dt).max(0.0))
            })
            .collect()
    }

    /// A level over time: (seconds since the first kept sample, value).
    pub fn levels(&self, pick: impl Fn(&Sample) -> f64) -> Vec<(f64, f64)> {
        let Some(first) = self.samples.front().map(|s| s.t_ms) else { return Vec::new() };
        self.samples.iter().map(|s| ((s.t_ms - first) as f64 / 1000.0, pick(s))).collect()
    }

    /// The verbs seen so far.
    pub fn verbs(&self) -> Vec<String> {
        self.samples.back().map(|s| s.by_verb.keys().cloned().collect()).unwrap_or_default()
    }

    pub fn codes(&self) -> Vec<String> {
        self.samples.back().map(|s| s.by_code.keys().cloned().collect()).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kubesim::server::{Request, ServerConfig};

    #[test]
    fn rates_follow_the_requests_sent_each_second() {
        let mut server = Server::new(ServerConfig::default());
        let mut h = History::default();
        assert!(h.maybe_sample(&server));
        assert!(!h.maybe_sample(&server), "one sample a second");
        for second in 1..=3 {
            for _ in 0..second * 2 {
                server.handle(Request::new("GET", "/api/v1/namespaces/default/configmaps"));
            }
            server.advance(1000);
            assert!(h.maybe_sample(&server));
        }
        let lists = h.rates(|s| s.by_verb.get("LIST").copied().unwrap_or(0.0));
        assert_eq!(lists.iter().map(|(_, r)| *r).collect::<Vec<_>>(), [2.0, 4.0, 6.0]);
        assert_eq!(lists[0].0, 1.0);
        assert!(h.codes().contains(&"200".to_string()));
    }
}
