//! API Priority and Fairness' dispatcher: one implementation, any clock.
//!
//! The caller hands in the time (nanoseconds on any monotonic clock: the
//! native door's real one, or the core's simulated one) and says when a
//! request arrives, finishes or gives up; the dispatcher answers whether it
//! executes now, waits in a queue, or is refused, and which waiting
//! requests may start as seats free up. Nothing here reads a clock, spawns
//! or sleeps, so the same requests at the same times give the same answers
//! everywhere (`docs/apf.md`).

pub mod borrowing;
pub mod dump;
pub mod queue_set;
pub mod retry;
pub mod scenario;
pub mod shuffle;

use std::collections::BTreeMap;

pub use queue_set::Queuing;
use queue_set::{Arrival, QueueSet, Waiting};

pub const NANOS_PER_SECOND: f64 = 1e9;

/// A level's or FlowSchema's name, shared rather than copied: every
/// request carries both.
pub type Name = std::sync::Arc<str>;

/// How often borrowing is reconsidered (upstream: every 10 s).
pub const BORROWING_PERIOD: u64 = 10_000_000_000;

/// The seats a request occupies while it executes (`initial`), and after
/// it finished (`final_seats`, for `additional_latency` nanoseconds: the
/// watch notifications a write causes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Width {
    pub initial: u32,
    pub final_seats: u32,
    pub additional_latency: u64,
}

impl Default for Width {
    fn default() -> Width {
        Width { initial: 1, final_seats: 0, additional_latency: 0 }
    }
}

impl Width {
    pub fn max_seats(&self) -> u32 {
        self.initial.max(self.final_seats)
    }
}

/// A PriorityLevelConfiguration, as the dispatcher needs it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LevelSpec {
    pub name: String,
    pub uid: String,
    pub exempt: bool,
    pub shares: u32,
    pub lendable_percent: u32,
    /// None: may borrow without limit.
    pub borrowing_limit_percent: Option<u32>,
    /// None: Reject when the seats are taken.
    pub queuing: Option<Queuing>,
}

/// A level's state.
#[derive(Clone, Debug)]
pub struct Level {
    pub spec: LevelSpec,
    pub nominal: u32,
    /// Nominal minus lendable, and nominal plus borrowable.
    pub lower: u32,
    pub upper: u32,
    /// The widest request this level admits (wider ones are cut).
    pub max_seats: u32,
    pub set: QueueSet,
    pub demand: borrowing::Demand,
    pub retry: retry::RetryAfter,
    /// The fair fraction of the last borrowing period.
    pub dispatched: u64,
    pub rejected: u64,
    pub timed_out: u64,
    pub cancelled: u64,
    /// Still configured (a removed level stays until it drains).
    pub configured: bool,
}

impl Level {
    /// Seats this level may use now (exempt levels are not limited).
    pub fn limit(&self) -> u32 {
        self.set.limit
    }
    pub fn idle(&self) -> bool {
        self.set.executing.is_empty() && self.set.waiting() == 0
    }
}

/// What the caller should do with an arriving request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    Execute,
    /// Wait until `state` says Executing or Rejected.
    Wait,
    Reject {
        reason: &'static str,
        retry_after: u32,
    },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TicketState {
    Waiting,
    Executing,
    Rejected { reason: &'static str, retry_after: u32 },
}

/// What a caller attaches to a request and gets back with each of its
/// events (the server: its flow's metrics series, so that an event finds
/// them without a lookup). Compared by identity.
#[derive(Clone, Default)]
pub struct Tag(Option<std::sync::Arc<dyn std::any::Any + Send + Sync>>);

impl Tag {
    pub fn new<T: std::any::Any + Send + Sync>(value: std::sync::Arc<T>) -> Tag {
        Tag(Some(value))
    }
    pub fn get<T: std::any::Any>(&self) -> Option<&T> {
        self.0.as_deref()?.downcast_ref()
    }
}

impl PartialEq for Tag {
    fn eq(&self, other: &Tag) -> bool {
        match (&self.0, &other.0) {
            (Some(a), Some(b)) => std::sync::Arc::ptr_eq(a, b),
            (a, b) => a.is_none() && b.is_none(),
        }
    }
}

impl std::fmt::Debug for Tag {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() { "Tag(..)" } else { "Tag(None)" })
    }
}

/// A request arriving, classified.
#[derive(Clone, Debug, Default)]
pub struct Arrive {
    pub level: Name,
    pub flow_schema: Name,
    /// The flow distinguisher (user name, namespace, or empty).
    pub flow: Name,
    /// The flow's hash (`shuffle::flow_hash`), which callers keep for
    /// their flows (a classification, a scenario's flow); else (a test's
    /// request) it is computed here, at each arrival.
    pub flow_hash: Option<u64>,
    pub details: Details,
    pub width: Width,
    /// Handed back with the request's events.
    pub tag: Tag,
}

/// Who asked for what, as `dump_requests?includeRequestDetails=1` shows it:
/// the user, and the request's attributes shared with the request (a
/// request's arrival copies none of them).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Details {
    pub user: Name,
    pub request: std::sync::Arc<crate::auth::Attributes>,
}

impl Details {
    /// `group/version`, or the version alone for the core group.
    pub fn api_version(&self) -> String {
        match (self.request.api_group.as_str(), self.request.api_version.as_str()) {
            ("", v) => v.to_string(),
            (g, v) => format!("{g}/{v}"),
        }
    }
}

/// What happened, for metrics and for the browser's view.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// `queued`: the level queues (only then is the wait measured).
    Dispatched {
        id: u64,
        level: Name,
        flow_schema: Name,
        waited: u64,
        seats: u32,
        queued: bool,
        tag: Tag,
    },
    /// Refused on arrival (`queue-full`, `concurrency-limit`) or after
    /// waiting (`time-out`; `queued` is then true).
    Rejected {
        id: u64,
        level: Name,
        flow_schema: Name,
        reason: &'static str,
        waited: u64,
        queued: bool,
        tag: Tag,
    },
    Finished {
        id: u64,
        level: Name,
        flow_schema: Name,
        executed: u64,
        watch: bool,
        tag: Tag,
    },
}

#[derive(Clone, Debug)]
struct Ticket {
    level: Name,
    flow_schema: Name,
    arrived: u64,
    width: Width,
    watch: bool,
    /// The queue it waits in.
    queue: usize,
    state: TicketState,
    tag: Tag,
}

#[derive(Clone, Debug)]
pub struct Dispatcher {
    /// The server's seats (`--max-requests-inflight` +
    /// `--max-mutating-requests-inflight`).
    pub server_limit: u32,
    /// How long a request may wait in a queue.
    pub wait_limit: u64,
    pub levels: BTreeMap<String, Level>,
    /// (Looked up by id, never walked: hashed.)
    tickets: std::collections::HashMap<u64, Ticket, foldhash::fast::FixedState>,
    /// Waiting requests' deadlines, in arrival order (stale entries are
    /// skipped: the request started or left).
    deadlines: std::collections::VecDeque<(u64, u64)>,
    next_id: u64,
    next_borrowing: u64,
    /// Some level is no longer configured and is left to drain.
    draining: bool,
    /// The fair fraction of the last borrowing period.
    pub fair_fraction: f64,
    events: Vec<Event>,
    /// A buffer for the ids of requests started, reused.
    scratch: Vec<u64>,
    /// No later than the earliest release of seats held after a request
    /// (None: no level holds any), so that time passing visits the levels
    /// only when something may be due.
    earliest_hold: Option<u64>,
}

impl Dispatcher {
    pub fn new(server_limit: u32, wait_limit: u64) -> Dispatcher {
        Dispatcher {
            server_limit,
            wait_limit,
            levels: BTreeMap::new(),
            tickets: Default::default(),
            deadlines: Default::default(),
            next_id: 1,
            next_borrowing: 0,
            draining: false,
            fair_fraction: 0.0,
            events: Vec::new(),
            scratch: Vec::new(),
            earliest_hold: None,
        }
    }

    /// The configured levels changed. Each limited level's nominal seats
    /// are its share of the server's (rounded up); levels that stay keep
    /// their queues and requests; removed ones drain.
    pub fn configure(&mut self, now: u64, specs: &[LevelSpec]) {
        let total_shares: u64 = specs.iter().map(|s| u64::from(s.shares)).sum();
        for l in self.levels.values_mut() {
            l.configured = false;
        }
        for spec in specs {
            let nominal = if total_shares == 0 {
                0
            } else {
                (u64::from(self.server_limit) * u64::from(spec.shares)).div_ceil(total_shares) as u32
            };
            let lendable = (f64::from(nominal) * f64::from(spec.lendable_percent) / 100.0).round() as u32;
            let lower = nominal - lendable.min(nominal);
            let upper = match spec.borrowing_limit_percent {
                Some(p) => nominal + (f64::from(nominal) * f64::from(p) / 100.0).round() as u32,
                None => nominal + self.server_limit,
            };
            let queuing = if spec.exempt { None } else { spec.queuing };
            let max_seats = max_seats(nominal, queuing);
            match self.levels.get_mut(&spec.name) {
                Some(l) => {
                    let was = l.nominal;
                    l.spec = spec.clone();
                    l.nominal = nominal;
                    l.lower = lower;
                    l.upper = upper;
                    l.max_seats = max_seats;
                    l.configured = true;
                    l.set.sync(now);
                    l.set.set_queuing(queuing);
                    if spec.exempt {
                        l.set.limit = u32::MAX;
                    } else if was != nominal {
                        l.set.limit = nominal;
                    }
                }
                None => {
                    // A new level starts halfway between its nominal and
                    // its lower limit, until borrowing says otherwise.
                    let limit = if spec.exempt { u32::MAX } else { nominal - lendable.min(nominal) / 2 };
                    self.levels.insert(
                        spec.name.clone(),
                        Level {
                            spec: spec.clone(),
                            nominal,
                            lower,
                            upper,
                            max_seats,
                            set: QueueSet::new(queuing, limit, now),
                            demand: Default::default(),
                            retry: Default::default(),
                            dispatched: 0,
                            rejected: 0,
                            timed_out: 0,
                            cancelled: 0,
                            configured: true,
                        },
                    );
                }
            }
        }
        self.levels.retain(|_, l| l.configured || !l.idle());
        self.draining = self.levels.values().any(|l| !l.configured);
        let mut started = std::mem::take(&mut self.scratch);
        for l in self.levels.values_mut() {
            l.set.dispatch(now, &mut started);
        }
        self.started(now, started);
    }

    /// A request arrives at `now`: it executes, waits or is refused.
    pub fn arrive(&mut self, now: u64, a: Arrive) -> (u64, Decision) {
        self.tick(now);
        let id = self.next_id;
        self.next_id += 1;
        let Some(level) = self.levels.get_mut(&*a.level) else {
            // (A level that vanished between classification and here: the
            // request is not held back.)
            return (id, Decision::Execute);
        };
        let mut width = a.width;
        width.initial = width.initial.clamp(1, level.max_seats);
        width.final_seats = width.final_seats.min(level.max_seats);
        // The flow matters (and is shown) only where there are queues to
        // shard.
        let (hash, flow) = match level.set.queuing {
            Some(q) if q.queues > 1 => {
                (a.flow_hash.unwrap_or_else(|| shuffle::flow_hash(&a.flow_schema, &a.flow)), a.flow)
            }
            _ => (0, Name::default()),
        };
        let watch = a.details.request.verb == "watch";
        let w = Waiting {
            id,
            arrived: now,
            arrival_r: 0.0,
            width,
            flow_schema: a.flow_schema.clone(),
            flow,
            details: a.details,
        };
        let mut started = std::mem::take(&mut self.scratch);
        let arrival = level.set.arrive(now, hash, w, &mut started);
        level.demand.set(now, f64::from(level.set.demand()));
        let mut ticket = Ticket {
            level: a.level.clone(),
            flow_schema: a.flow_schema.clone(),
            arrived: now,
            width,
            watch,
            queue: 0,
            state: TicketState::Waiting,
            tag: a.tag,
        };
        if started.len() == 1 && started[0] == id {
            // It alone started, at once: reported here, where its level is
            // at hand (what `started` would do, without looking it up).
            started.clear();
            ticket.state = TicketState::Executing;
            level.dispatched += 1;
            self.events.push(Event::Dispatched {
                id,
                level: a.level.clone(),
                flow_schema: a.flow_schema.clone(),
                waited: 0,
                seats: width.max_seats(),
                queued: level.set.queuing.is_some(),
                tag: ticket.tag.clone(),
            });
        }
        let decision = match arrival {
            Arrival::Rejected(reason) => {
                level.rejected += 1;
                let retry_after = level.retry.refuse((now / 1_000_000_000) as i64);
                self.events.push(Event::Rejected {
                    id,
                    level: a.level,
                    flow_schema: a.flow_schema,
                    reason,
                    waited: 0,
                    queued: false,
                    tag: ticket.tag.clone(),
                });
                Decision::Reject { reason, retry_after }
            }
            Arrival::Executing => Decision::Execute,
            Arrival::Waiting(q) => {
                ticket.queue = q;
                Decision::Wait
            }
        };
        if decision == Decision::Wait {
            self.deadlines.push_back((now.saturating_add(self.wait_limit), id));
        }
        if !matches!(decision, Decision::Reject { .. }) {
            self.tickets.insert(id, ticket);
        }
        self.started(now, started);
        (id, decision)
    }

    /// Marks requests started and reports them.
    fn started(&mut self, now: u64, mut ids: Vec<u64>) {
        if ids.is_empty() {
            // (Most arrivals and finishes start nobody else.)
            self.scratch = ids;
            return;
        }
        for id in ids.drain(..) {
            let Some(t) = self.tickets.get_mut(&id) else { continue };
            t.state = TicketState::Executing;
            let mut queued = false;
            if let Some(l) = self.levels.get_mut(&*t.level) {
                l.dispatched += 1;
                queued = l.set.queuing.is_some();
            }
            self.events.push(Event::Dispatched {
                id,
                level: t.level.clone(),
                flow_schema: t.flow_schema.clone(),
                waited: now.saturating_sub(t.arrived),
                seats: t.width.max_seats(),
                queued,
                tag: t.tag.clone(),
            });
        }
        self.scratch = ids;
    }

    /// The request finished executing; its final seats, if any, are held
    /// for its additional latency when `hold` (a caller without real
    /// concurrency releases them at once).
    pub fn finish(&mut self, now: u64, id: u64, hold: bool) {
        let Some(t) = self.tickets.remove(&id) else { return };
        let Some(level) = self.levels.get_mut(&*t.level) else { return };
        let mut started = std::mem::take(&mut self.scratch);
        let width = if hold { t.width } else { Width { additional_latency: 0, ..t.width } };
        let (hold_until, started_at) = level.set.finish(now, id, width, &mut started);
        let started_at = started_at.unwrap_or(now);
        if let Some(at) = hold_until {
            self.earliest_hold = Some(self.earliest_hold.map_or(at, |e| e.min(at)));
        }
        level.demand.set(now, f64::from(level.set.demand()));
        self.events.push(Event::Finished {
            id,
            level: t.level,
            flow_schema: t.flow_schema,
            executed: now.saturating_sub(started_at),
            watch: t.watch,
            tag: t.tag,
        });
        self.started(now, started);
        self.tick(now);
    }

    /// The client gave up waiting (a waiting request leaves its queue; an
    /// executing one finishes).
    pub fn cancel(&mut self, now: u64, id: u64) {
        match self.tickets.get(&id).map(|t| t.state.clone()) {
            Some(TicketState::Waiting) => {
                self.refuse_waiting(now, id);
                self.tickets.remove(&id);
            }
            Some(TicketState::Executing) => self.finish(now, id, true),
            Some(TicketState::Rejected { .. }) => {
                self.tickets.remove(&id);
            }
            None => {}
        }
    }

    /// A waiting request's wait ends unserved (its time is up, or its
    /// client left): upstream counts both as a `time-out`, a refusal and a
    /// cancellation.
    fn refuse_waiting(&mut self, now: u64, id: u64) {
        let reason = "time-out";
        let Some(t) = self.tickets.get_mut(&id) else { return };
        let Some(level) = self.levels.get_mut(&*t.level) else { return };
        let mut started = std::mem::take(&mut self.scratch);
        level.set.remove_waiting(now, id, t.queue, &mut started);
        level.demand.set(now, f64::from(level.set.demand()));
        level.cancelled += 1;
        level.rejected += 1;
        level.timed_out += 1;
        let retry_after = level.retry.refuse((now / 1_000_000_000) as i64);
        self.events.push(Event::Rejected {
            id,
            level: t.level.clone(),
            flow_schema: t.flow_schema.clone(),
            reason,
            waited: now.saturating_sub(t.arrived),
            queued: true,
            tag: t.tag.clone(),
        });
        t.state = TicketState::Rejected { reason, retry_after };
        self.started(now, started);
    }

    /// Time passes: held seats are released, requests that waited too long
    /// time out, and borrowing is reconsidered when its period is up; every
    /// level's virtual clock and demand are brought up to `now` (for
    /// whoever looks at them next).
    pub fn advance(&mut self, now: u64) {
        for level in self.levels.values_mut() {
            level.set.sync(now);
            level.demand.set(now, f64::from(level.set.demand()));
        }
        self.tick(now);
    }

    /// What time passing changes: held seats due are released, waits past
    /// their deadline refused, borrowing reconsidered when its period is up.
    /// A level's virtual clock and demand are kept lazily: brought up to
    /// date before each change to it (its rate is constant in between), so
    /// a level nothing happens to costs nothing here.
    fn tick(&mut self, now: u64) {
        if self.earliest_hold.is_some_and(|due| due <= now) {
            let mut started = std::mem::take(&mut self.scratch);
            let mut next = None;
            for level in self.levels.values_mut() {
                if level.set.next_due().is_some_and(|due| due <= now) {
                    level.set.release_due(now, &mut started);
                    level.demand.set(now, f64::from(level.set.demand()));
                }
                next = match (next, level.set.next_due()) {
                    (Some(a), Some(b)) => Some(std::cmp::min(a, b)),
                    (a, b) => a.or(b),
                };
            }
            self.earliest_hold = next;
            self.started(now, started);
        }
        while let Some(&(deadline, id)) = self.deadlines.front() {
            if self.state(id) != Some(&TicketState::Waiting) {
                self.deadlines.pop_front();
                continue;
            }
            if deadline > now {
                break;
            }
            self.deadlines.pop_front();
            self.refuse_waiting(now, id);
        }
        if now >= self.next_borrowing {
            if self.next_borrowing > 0 {
                self.reconsider_borrowing(now);
            }
            self.next_borrowing = now + BORROWING_PERIOD;
        }
        if self.draining {
            self.levels.retain(|_, l| l.configured || !l.idle());
            self.draining = self.levels.values().any(|l| !l.configured);
        }
    }

    /// Shares the seats out again by each level's demand (`borrowing.rs`):
    /// an exempt level is held at its high watermark (at least its lower
    /// limit) and that much is set aside; the limited levels share the rest
    /// by their smoothed demand, within their limits.
    fn reconsider_borrowing(&mut self, now: u64) {
        let mut remaining: f64 = 0.0;
        let mut names = Vec::new();
        let mut wishes = Vec::new();
        let (mut sum_lower, mut sum_min_current) = (0.0, 0.0);
        for l in self.levels.values_mut().filter(|l| l.configured) {
            l.demand.close_period(now);
            remaining += f64::from(l.nominal);
        }
        let nominal_sum = remaining;
        for (name, l) in self.levels.iter().filter(|(_, l)| l.configured) {
            let high = l.demand.high_watermark.round();
            if l.spec.exempt {
                remaining -= f64::from(l.lower).max(high);
                continue;
            }
            let min_current = f64::from(l.lower).max(f64::from(l.nominal).min(high));
            sum_lower += f64::from(l.lower);
            sum_min_current += min_current;
            names.push(name.clone());
            wishes.push(borrowing::Wish {
                lower: min_current,
                upper: f64::from(l.upper),
                target: min_current.max(l.demand.smoothed),
            });
        }
        let limits: Vec<f64> = if remaining <= sum_lower {
            self.fair_fraction = 0.0;
            names.iter().map(|n| f64::from(self.levels[n].lower)).collect()
        } else if remaining <= sum_min_current {
            let share = (remaining - sum_lower) / (sum_min_current - sum_lower);
            names
                .iter()
                .zip(&wishes)
                .map(|(n, w)| {
                    let lower = f64::from(self.levels[n].lower);
                    lower + ((w.lower - lower) * share).round()
                })
                .collect()
        } else {
            let (shares, fraction) = borrowing::allocate(nominal_sum, &wishes);
            self.fair_fraction = fraction;
            shares
        };
        let mut started = std::mem::take(&mut self.scratch);
        for (name, limit) in names.iter().zip(limits) {
            if let Some(l) = self.levels.get_mut(name) {
                l.set.sync(now);
                l.set.limit = limit.round().max(0.0) as u32;
                l.set.dispatch(now, &mut started);
            }
        }
        self.started(now, started);
    }

    /// Where a request stands (None: finished, or never known).
    pub fn state(&self, id: u64) -> Option<&TicketState> {
        self.tickets.get(&id).map(|t| &t.state)
    }

    /// Forgets a refused request once its answer is given.
    pub fn forget(&mut self, id: u64) {
        if matches!(self.state(id), Some(TicketState::Rejected { .. })) {
            self.tickets.remove(&id);
        }
    }

    /// The earliest time something is due: a held seat's release or a
    /// waiting request's time-out.
    pub fn next_due(&self) -> Option<u64> {
        let holds = self.levels.values().filter_map(|l| l.set.next_due());
        let waits =
            self.deadlines.iter().find(|(_, id)| self.state(*id) == Some(&TicketState::Waiting)).map(|(d, _)| *d);
        holds.chain(waits).min()
    }

    /// Whether any level holds seats past a request's end.
    pub fn holding(&self) -> bool {
        self.earliest_hold.is_some()
    }

    /// What happened since the last call.
    pub fn take_events(&mut self) -> Vec<Event> {
        std::mem::take(&mut self.events)
    }

    /// Hands what happened since the last call to `f`, keeping the
    /// buffer (a request's arrival and finish need no allocation for it).
    pub fn drain_events(&mut self, mut f: impl FnMut(&Event)) {
        for e in self.events.drain(..) {
            f(&e);
        }
    }
}

/// The widest request a level admits: for a level that queues, 15% of its
/// nominal seats or its nominal seats over the hand size, whichever is
/// less (at least one); the work estimator never asks for more than ten.
fn max_seats(nominal: u32, queuing: Option<Queuing>) -> u32 {
    const ESTIMATOR_MAX: u32 = 10;
    match queuing {
        Some(q) => {
            let by_share = (f64::from(nominal) * 0.15).ceil() as u32;
            by_share.min(nominal / q.hand_size.max(1)).clamp(1, ESTIMATOR_MAX)
        }
        None => ESTIMATOR_MAX,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const MS: u64 = 1_000_000;

    fn level(name: &str, shares: u32, queuing: Option<Queuing>) -> LevelSpec {
        LevelSpec {
            name: name.into(),
            uid: format!("uid-{name}"),
            exempt: false,
            shares,
            lendable_percent: 0,
            borrowing_limit_percent: Some(0),
            queuing,
        }
    }

    fn queued(queues: u32, hand_size: u32, queue_length_limit: u32) -> Option<Queuing> {
        Some(Queuing { queues, hand_size, queue_length_limit })
    }

    fn ask(level: &str, flow: &str) -> Arrive {
        Arrive { level: level.into(), flow_schema: "fs".into(), flow: flow.into(), ..Default::default() }
    }

    /// A dispatcher whose only level has `seats` seats.
    fn one_level(seats: u32, queuing: Option<Queuing>) -> Dispatcher {
        let mut d = Dispatcher::new(seats, 15_000 * MS);
        d.configure(0, &[level("l", 1, queuing)]);
        assert_eq!(d.levels["l"].limit(), seats);
        d
    }

    #[test]
    fn a_reject_level_refuses_beyond_its_seats() {
        let mut d = one_level(1, None);
        let (a, first) = d.arrive(0, ask("l", "x"));
        assert_eq!(first, Decision::Execute);
        let (_, second) = d.arrive(1, ask("l", "x"));
        assert_eq!(second, Decision::Reject { reason: "concurrency-limit", retry_after: 1 });
        d.finish(2, a, true);
        assert_eq!(d.arrive(3, ask("l", "x")).1, Decision::Execute);
        assert_eq!((d.levels["l"].dispatched, d.levels["l"].rejected), (2, 1));
    }

    #[test]
    fn a_queue_holds_up_to_its_limit_then_refuses() {
        let mut d = one_level(1, queued(1, 1, 2));
        let (a, _) = d.arrive(0, ask("l", "x"));
        let (b, wait_b) = d.arrive(1, ask("l", "x"));
        let (c, wait_c) = d.arrive(2, ask("l", "x"));
        assert_eq!((wait_b, wait_c), (Decision::Wait, Decision::Wait));
        let (_, full) = d.arrive(3, ask("l", "x"));
        assert_eq!(full, Decision::Reject { reason: "queue-full", retry_after: 1 });
        d.finish(4, a, true);
        assert_eq!(d.state(b), Some(&TicketState::Executing));
        assert_eq!(d.state(c), Some(&TicketState::Waiting));
        let events = d.take_events();
        assert!(events.iter().any(|e| matches!(e, Event::Dispatched { id, waited: 3, .. } if *id == b)), "{events:?}");
    }

    #[test]
    fn a_quiet_flow_overtakes_a_noisy_ones_backlog() {
        // 64 queues, hands of one: two flows, two queues (almost surely).
        let mut d = one_level(1, queued(64, 1, 50));
        let busy: Vec<u64> = (0..4).map(|i| d.arrive(i, ask("l", "noisy")).0).collect();
        let (quiet, decision) = d.arrive(10, ask("l", "quiet"));
        assert_eq!(decision, Decision::Wait);
        let mut order = vec![busy[0]];
        let mut now = 20 * MS;
        while order.len() < 5 {
            d.finish(now, *order.last().unwrap(), true);
            let next = d.levels["l"].set.executing.keys().min().copied().unwrap();
            order.push(next);
            now += 3 * MS;
        }
        assert_eq!(order[1], quiet, "the quiet flow is served right after the first: {order:?}");
    }

    #[test]
    fn waiting_too_long_times_out() {
        let mut d = one_level(1, queued(1, 1, 10));
        d.arrive(0, ask("l", "x"));
        let (b, _) = d.arrive(MS, ask("l", "x"));
        assert_eq!(d.next_due(), Some(MS + 15_000 * MS));
        d.advance(MS + 15_000 * MS);
        assert!(matches!(d.state(b), Some(TicketState::Rejected { reason: "time-out", .. })));
        assert_eq!(d.levels["l"].timed_out, 1);
    }

    #[test]
    fn a_writes_final_seats_stay_held_for_its_additional_latency() {
        let mut d = one_level(20, queued(1, 1, 10));
        let mut write = ask("l", "x");
        write.width = Width { initial: 1, final_seats: 3, additional_latency: 5 * MS };
        let (w, _) = d.arrive(0, write);
        assert_eq!(d.levels["l"].set.seats_in_use, 3, "the widest stage's seats");
        for _ in 0..17 {
            assert_eq!(d.arrive(MS, ask("l", "x")).1, Decision::Execute);
        }
        let (r, decision) = d.arrive(MS, ask("l", "x"));
        assert_eq!(decision, Decision::Wait);
        d.finish(2 * MS, w, true);
        assert_eq!(d.state(r), Some(&TicketState::Waiting), "still held");
        assert_eq!(d.next_due(), Some(7 * MS));
        d.advance(7 * MS);
        assert_eq!(d.state(r), Some(&TicketState::Executing));
    }

    #[test]
    fn nominal_seats_share_the_servers_by_shares() {
        let mut d = Dispatcher::new(600, 15_000 * MS);
        let mut exempt = level("exempt", 0, None);
        exempt.exempt = true;
        d.configure(0, &[level("a", 30, None), level("b", 10, None), exempt]);
        assert_eq!(d.levels["a"].nominal, 450);
        assert_eq!(d.levels["b"].nominal, 150);
        assert_eq!(d.levels["exempt"].nominal, 0);
        // Exempt requests never wait.
        for _ in 0..1000 {
            assert_eq!(d.arrive(1, ask("exempt", "")).1, Decision::Execute);
        }
    }

    #[test]
    fn a_busy_level_borrows_what_an_idle_one_lends() {
        let mut d = Dispatcher::new(20, 15_000 * MS);
        let mut lender = level("lender", 1, None);
        lender.lendable_percent = 100;
        let mut borrower = level("borrower", 1, queued(1, 1, 1000));
        borrower.borrowing_limit_percent = Some(100);
        d.configure(0, &[lender, borrower]);
        assert_eq!(d.levels["borrower"].nominal, 10);
        for i in 0..100 {
            d.arrive(i, ask("borrower", "x"));
        }
        d.advance(BORROWING_PERIOD + 1);
        d.advance(2 * BORROWING_PERIOD + 2);
        let b = &d.levels["borrower"];
        assert_eq!(b.limit(), 20, "all the lender's seats");
        assert_eq!(b.set.seats_in_use, 20);
        assert_eq!(d.levels["lender"].limit(), 0);
    }

    proptest! {
        /// Whatever arrives and finishes, a level never has more seats in
        /// use than its limit (a single request wider than the whole limit
        /// excepted, which runs only alone).
        #[test]
        fn seats_in_use_never_exceed_the_limit(
            steps in proptest::collection::vec((0u8..4, 0u32..4, 1u32..4), 1..200),
        ) {
            let mut d = one_level(3, queued(8, 2, 4));
            let mut running: Vec<u64> = Vec::new();
            let mut now = 0;
            for (what, flow, seats) in steps {
                now += MS;
                if what == 0 && !running.is_empty() {
                    let id = running.remove(0);
                    d.finish(now, id, true);
                } else {
                    let mut a = ask("l", &format!("f{flow}"));
                    a.width = Width { initial: seats, final_seats: 0, additional_latency: 0 };
                    d.arrive(now, a);
                }
                running = d.levels["l"].set.in_order().iter().map(|(id, _)| *id).collect();
                let set = &d.levels["l"].set;
                prop_assert!(set.seats_in_use <= set.limit || set.executing.len() == 1);
            }
        }

        /// An arrival when nothing waits starts at once without going
        /// through its queue: the same decisions, events, queues, virtual
        /// times and held seats as the way through the queue; and
        /// `holding` says whether any seats are held.
        #[test]
        fn the_shortcut_changes_nothing(
            steps in proptest::collection::vec((0u8..5, 0u32..6, 1u32..4, 0u32..3), 1..150),
        ) {
            let mut fast = one_level(3, queued(8, 2, 4));
            let mut slow = fast.clone();
            slow.levels.get_mut("l").expect("the level").set.no_shortcut = true;
            let mut now = 0;
            for (what, flow, seats, final_seats) in steps {
                now += MS;
                let running: Vec<u64> = fast.levels["l"].set.in_order().iter().map(|(id, _)| *id).collect();
                match what {
                    0 if !running.is_empty() => {
                        let id = running[flow as usize % running.len()];
                        fast.finish(now, id, true);
                        slow.finish(now, id, true);
                    }
                    1 => {
                        now += 4 * MS;
                        fast.advance(now);
                        slow.advance(now);
                    }
                    _ => {
                        let mut a = ask("l", &format!("f{flow}"));
                        a.width = Width { initial: seats, final_seats, additional_latency: 5 * MS };
                        prop_assert_eq!(fast.arrive(now, a.clone()), slow.arrive(now, a));
                    }
                }
                prop_assert_eq!(fast.take_events(), slow.take_events());
                prop_assert_eq!(fast.dump_queues(), slow.dump_queues());
                prop_assert_eq!(fast.dump_priority_levels(), slow.dump_priority_levels());
                prop_assert_eq!(fast.dump_requests(true, |t| t as i64), slow.dump_requests(true, |t| t as i64));
                let queues = |d: &Dispatcher| {
                    let set = &d.levels["l"].set;
                    let q: Vec<_> = set.queues.iter().map(|q| (q.next_r, q.executing, q.seats_in_use, q.waiting.len())).collect();
                    (set.virtual_time(), set.seats_in_use, q)
                };
                prop_assert_eq!(queues(&fast), queues(&slow));
                prop_assert_eq!(fast.next_due(), slow.next_due());
                let held = fast.levels.values().any(|l| l.set.next_due().is_some());
                prop_assert_eq!(fast.holding(), held);
            }
        }

        /// With equal demand, flows in different queues are served in
        /// turn: after any run, their served counts differ by little.
        #[test]
        fn equal_demand_gets_equal_service(flows in 2usize..5, each in 5usize..20) {
            let mut d = one_level(1, queued(64, 1, 100));
            let names: Vec<String> = (0..flows).map(|i| format!("tenant-{i}")).collect();
            let hands: std::collections::BTreeSet<u32> =
                names.iter().map(|n| shuffle::deal(shuffle::flow_hash("fs", n), 64, 1)[0]).collect();
            prop_assume!(hands.len() == flows);
            let mut owner = BTreeMap::new();
            for k in 0..each {
                for n in &names {
                    let (id, _) = d.arrive(k as u64, ask("l", n));
                    owner.insert(id, n.clone());
                }
            }
            let mut served: BTreeMap<String, usize> = BTreeMap::new();
            let mut now = MS;
            for _ in 0..(flows * each / 2) {
                let Some(id) = d.levels["l"].set.executing.keys().min().copied() else { break };
                *served.entry(owner[&id].clone()).or_default() += 1;
                now += 3 * MS;
                d.finish(now, id, true);
            }
            let most = served.values().max().copied().unwrap_or(0);
            let least = names.iter().map(|n| served.get(n).copied().unwrap_or(0)).min().unwrap_or(0);
            prop_assert!(most - least <= 2, "{served:?}");
        }
    }
}
