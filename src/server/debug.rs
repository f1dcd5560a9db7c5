//! The debug endpoints (`/debug/kubesim/…`): the write history the
//! page's timeline reads, and the clock and compaction moved by request.

use serde_json::{json, Value};

use super::{Request, Response, Server};
use crate::api::{Revision, Status};
use crate::clock::parse_duration_millis;
use crate::server::params::Query;

impl Server {
    pub(super) fn debug(&mut self, req: &Request, what: &str, q: &Query) -> Response {
        if what == "history" {
            return match req.method.as_str() {
                "GET" => self.debug_history(q),
                _ => Response::status(&Status::bad_request("the history endpoint is read with GET")),
            };
        }
        if req.method != "POST" {
            return Response::status(&Status::bad_request("debug endpoints take POST"));
        }
        match what {
            "clock" => {
                let Some(d) = q.get("advance") else {
                    return Response::status(&Status::bad_request("missing ?advance=DURATION (e.g. 5m)"));
                };
                let Some(ms) = parse_duration_millis(d) else {
                    return Response::status(&Status::bad_request(format!(
                        "invalid duration {d:?}: use e.g. 90s, 5m, 1h30m"
                    )));
                };
                if !self.stepped_jumps {
                    self.advance(ms);
                    return Response::value(200, &self.debug_state());
                }
                // The door's controllers make the jump once this answers;
                // the answer tells the time it ends at.
                self.pending_jump_ms = self.pending_jump_ms.saturating_add(ms.max(0));
                let mut state = self.debug_state();
                state["now"] = self.now().plus_millis(self.pending_jump_ms).rfc3339().into();
                Response::value(200, &state)
            }
            "compact" => {
                let rev = match q.get("resourceVersion").filter(|s| !s.is_empty()) {
                    None => None,
                    Some(rv) => match rv.parse::<u64>() {
                        Ok(n) => Some(Revision(n)),
                        Err(_) => {
                            return Response::status(&Status::bad_request(format!("invalid resourceVersion {rv:?}")))
                        }
                    },
                };
                self.compact(rev);
                Response::value(200, &self.debug_state())
            }
            _ => Response::text(404, "404 page not found\n"),
        }
    }

    /// The write log as the storage layer sees it (like watching all of
    /// etcd's keyspace): one entry per revision after `after`, oldest first.
    /// History before the compaction horizon is gone; `from` says where the
    /// answer starts.
    fn debug_history(&self, q: &Query) -> Response {
        let after = match q.get("after").filter(|s| !s.is_empty()).map(str::parse::<u64>) {
            None => Revision(0),
            Some(Ok(n)) => Revision(n),
            Some(Err(_)) => {
                return Response::status(&Status::bad_request("invalid ?after: expected a revision number"))
            }
        };
        let limit = match q.get("limit").filter(|s| !s.is_empty()).map(str::parse::<usize>) {
            None => 1000,
            Some(Ok(n)) => n.clamp(1, 10_000),
            Some(Err(_)) => return Response::status(&Status::bad_request("invalid ?limit: expected a number")),
        };
        let history = self.registry.history(after, limit);
        /// One write as the endpoint shows it (serialized as is: a reload
        /// of the page reads every retained write through here).
        #[derive(serde::Serialize)]
        struct Event<'a> {
            #[serde(serialize_with = "as_text")]
            revision: Revision,
            #[serde(rename = "type")]
            event_type: &'a str,
            group: &'a str,
            version: &'a str,
            resource: &'a str,
            kind: &'a str,
            namespace: &'a str,
            name: &'a str,
        }
        /// A revision written as a JSON string, without a copy.
        fn as_text<S: serde::Serializer>(r: &Revision, s: S) -> Result<S::Ok, S::Error> {
            s.collect_str(&r.0)
        }
        let catalog = self.registry.resources();
        let events: Vec<Event<'_>> = history
            .entries
            .iter()
            .map(|e| {
                let k = e.names(catalog);
                Event {
                    revision: e.revision,
                    event_type: e.event_type.as_str(),
                    group: k.group,
                    version: e.resource.as_deref().map_or("", |rt| rt.version()),
                    resource: k.resource,
                    kind: e.resource.as_deref().map_or("", |rt| rt.kind()),
                    namespace: k.namespace,
                    name: k.name,
                }
            })
            .collect();
        #[derive(serde::Serialize)]
        struct Page<'a> {
            #[serde(flatten)]
            state: Value,
            from: String,
            events: Vec<Event<'a>>,
        }
        let page = Page { state: self.debug_state(), from: history.from.to_string(), events };
        Response::json(200, serde_json::to_vec(&page).unwrap_or_default())
    }

    fn debug_state(&self) -> Value {
        json!({
            "now": self.now().rfc3339(),
            "revision": self.revision().to_string(),
            "compactedRevision": self.compacted().to_string(),
            "historyWindowSeconds": self.config.history_window_ms / 1000,
        })
    }
}
