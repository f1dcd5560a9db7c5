//! A load scenario on simulated time: flows of requests, each at a rate
//! and with a cost (how long one executes), run through a fresh copy of a
//! dispatcher's levels, millisecond by millisecond. The same flows give
//! the same frames everywhere: the browser shows dealing, queuing and
//! refusals as they happen, and tests check them.

use crate::sort::Order;
use std::collections::BTreeMap;

use super::{Arrive, Decision, Dispatcher, Event, TicketState};

const MS: u64 = 1_000_000;

/// One flow of requests, already classified.
#[derive(Clone, Debug, PartialEq)]
pub struct Flow {
    /// What the view calls it.
    pub name: String,
    pub level: super::Name,
    pub flow_schema: super::Name,
    /// The flow distinguisher (user or namespace).
    pub distinguisher: String,
    /// Requests per second.
    pub rate: f64,
    /// How long each executes (ms).
    pub cost_ms: u64,
    /// Seats each occupies.
    pub seats: u32,
}

/// Totals per flow over the run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Totals {
    pub sent: u64,
    pub executed: u64,
    pub rejected: u64,
    /// Summed wait of the requests that executed (ms).
    pub waited_ms: u64,
}

/// One level at one instant.
#[derive(Clone, Debug, PartialEq)]
pub struct LevelFrame {
    pub level: String,
    pub limit: u32,
    pub seats_in_use: u32,
    /// Requests waiting in each queue.
    pub queues: Vec<u32>,
    /// The flows (indices into the run's flows) waiting in each queue.
    pub queue_flows: Vec<Vec<u16>>,
}

/// The state every `frame_ms`.
#[derive(Clone, Debug, PartialEq)]
pub struct Frame {
    pub t_ms: u64,
    pub levels: Vec<LevelFrame>,
    /// Per flow (in the flows' order): executed and rejected so far.
    pub executed: Vec<u64>,
    pub rejected: Vec<u64>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    pub frames: Vec<Frame>,
    pub totals: Vec<Totals>,
}

impl Dispatcher {
    /// A dispatcher with the same levels and nothing in them.
    pub fn fresh(&self) -> Dispatcher {
        let mut d = Dispatcher::new(self.server_limit, self.wait_limit);
        let specs: Vec<_> = self.levels.values().filter(|l| l.configured).map(|l| l.spec.clone()).collect();
        d.configure(0, &specs);
        d
    }
}

/// Runs `flows` for `duration_ms` on a fresh copy of `base`'s levels.
pub fn run(base: &Dispatcher, flows: &[Flow], duration_ms: u64, frame_ms: u64) -> Report {
    let mut d = base.fresh();
    let mut totals = vec![Totals::default(); flows.len()];
    let mut owner: BTreeMap<u64, usize> = BTreeMap::new();
    // When each executing request finishes (ms), by ticket.
    let mut finishing: BTreeMap<u64, Vec<u64>> = BTreeMap::new();
    let mut credit = vec![0.0f64; flows.len()];
    // (Each flow's hash once, not at each of its requests.)
    let hashes: Vec<u64> = flows.iter().map(|f| super::shuffle::flow_hash(&f.flow_schema, &f.distinguisher)).collect();
    let mut frames = Vec::new();
    let frame_ms = frame_ms.max(1);
    for t in 0..=duration_ms {
        let now = t * MS;
        if let Some(done) = finishing.remove(&t) {
            for id in done {
                d.finish(now, id, true);
            }
        }
        d.advance(now);
        for (i, f) in flows.iter().enumerate() {
            credit[i] += f.rate / 1000.0;
            while credit[i] >= 1.0 {
                credit[i] -= 1.0;
                totals[i].sent += 1;
                let arrive = Arrive {
                    level: f.level.clone(),
                    flow_schema: f.flow_schema.clone(),
                    flow: f.distinguisher.as_str().into(),
                    flow_hash: Some(hashes[i]),
                    width: super::Width { initial: f.seats.max(1), ..Default::default() },
                    ..Default::default()
                };
                let (id, decision) = d.arrive(now, arrive);
                owner.insert(id, i);
                if let Decision::Reject { .. } = decision {
                    d.forget(id);
                }
            }
        }
        for e in d.take_events() {
            match e {
                Event::Dispatched { id, waited, .. } => {
                    if let Some(&i) = owner.get(&id) {
                        totals[i].executed += 1;
                        totals[i].waited_ms += waited / MS;
                        finishing.entry(t + flows[i].cost_ms.max(1)).or_default().push(id);
                    }
                }
                Event::Rejected { id, .. } => {
                    if let Some(i) = owner.remove(&id) {
                        totals[i].rejected += 1;
                    }
                    if matches!(d.state(id), Some(TicketState::Rejected { .. })) {
                        d.forget(id);
                    }
                }
                Event::Finished { id, .. } => {
                    owner.remove(&id);
                }
            }
        }
        if t % frame_ms == 0 {
            frames.push(Frame {
                t_ms: t,
                levels: d
                    .levels
                    .iter()
                    .filter(|(name, _)| flows.iter().any(|f| *f.level == ***name))
                    .map(|(name, l)| LevelFrame {
                        level: name.clone(),
                        limit: l.limit(),
                        seats_in_use: l.set.seats_in_use,
                        queues: l.set.queues.iter().map(|q| q.waiting.len() as u32).collect(),
                        queue_flows: l
                            .set
                            .queues
                            .iter()
                            .map(|q| {
                                let mut f: Vec<u16> =
                                    q.waiting.iter().filter_map(|w| owner.get(&w.id)).map(|i| *i as u16).collect();
                                f.order();
                                f.dedup();
                                f
                            })
                            .collect(),
                    })
                    .collect(),
                executed: totals.iter().map(|x| x.executed).collect(),
                rejected: totals.iter().map(|x| x.rejected).collect(),
            });
        }
    }
    Report { frames, totals }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flowcontrol::{LevelSpec, Queuing};

    fn flow(name: &str, level: &str, schema: &str, rate: f64) -> Flow {
        Flow {
            name: name.into(),
            level: level.into(),
            flow_schema: schema.into(),
            distinguisher: name.into(),
            rate,
            cost_ms: 100,
            seats: 1,
        }
    }

    fn shared_level() -> Dispatcher {
        let mut d = Dispatcher::new(10, 15_000 * MS);
        d.configure(
            0,
            &[LevelSpec {
                name: "shared".into(),
                uid: String::new(),
                exempt: false,
                shares: 1,
                lendable_percent: 0,
                borrowing_limit_percent: Some(0),
                queuing: Some(Queuing { queues: 64, hand_size: 1, queue_length_limit: 20 }),
            }],
        );
        d
    }

    #[test]
    fn a_noisy_tenant_is_refused_and_a_quiet_one_still_served() {
        // Ten seats of 100 ms: 100 requests/s in all. The noisy tenant asks
        // for 300/s, the quiet one for 20/s.
        let d = shared_level();
        let flows = [flow("noisy", "shared", "tenants", 300.0), flow("quiet", "shared", "tenants", 20.0)];
        let r = run(&d, &flows, 3_000, 100);
        let (noisy, quiet) = (&r.totals[0], &r.totals[1]);
        assert!(noisy.rejected > 0, "{noisy:?}");
        assert_eq!(quiet.rejected, 0, "{quiet:?}");
        assert!(quiet.executed >= 55, "{quiet:?}");
        // The same flows give the same frames.
        assert_eq!(run(&d, &flows, 3_000, 100), r);
        assert_eq!(r.frames.len(), 31);
        assert!(r.frames.iter().all(|f| f.levels[0].seats_in_use <= 10));
        // The noisy tenant's backlog is its own: its queue holds only it.
        let last = &r.frames.last().unwrap().levels[0];
        let backlog = last.queues.iter().position(|n| *n > 0).unwrap();
        assert_eq!(last.queue_flows[backlog], [0]);
    }
}
