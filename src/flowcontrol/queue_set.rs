//! One limited priority level's queues and seats: fair queuing by virtual
//! finish time, as upstream's queueset does it. Virtual time ("R") runs at
//! the rate a single busy queue would be served — the seats the active
//! queues could use, at most the limit, shared among them; a queue's next
//! request finishes, virtually, at the queue's `next_r` plus the request's
//! work (seat-seconds), and the queue whose next request finishes first is
//! served first.

use std::collections::{BTreeSet, HashMap, VecDeque};

use super::{Width, NANOS_PER_SECOND};

/// Upstream's guess at how long a request executes, before it has (3 ms).
pub const ESTIMATED_SERVICE_NANOS: u64 = 3_000_000;

/// A request waiting in a queue.
#[derive(Clone, Debug)]
pub struct Waiting {
    pub id: u64,
    pub arrived: u64,
    /// Virtual time at arrival (set when queued).
    pub arrival_r: f64,
    pub width: Width,
    pub flow_schema: super::Name,
    pub flow: super::Name,
    /// Who asked and what, for `dump_requests`.
    pub details: super::Details,
}

impl Waiting {
    /// Seat-seconds: the initial seats for the estimated service time,
    /// then the final seats for the additional latency.
    pub fn work(&self) -> f64 {
        self.work_ns() as f64 / NANOS_PER_SECOND
    }

    /// The same in seat-nanoseconds (exact, for running sums).
    fn work_ns(&self) -> u64 {
        u64::from(self.width.initial) * ESTIMATED_SERVICE_NANOS
            + u64::from(self.width.final_seats).saturating_mul(self.width.additional_latency)
    }
}

/// A queue. (Read its fields freely; the queue set alone changes them,
/// keeping the sums.)
#[derive(Clone, Debug, Default)]
pub struct Queue {
    pub waiting: VecDeque<Waiting>,
    pub executing: u32,
    pub seats_in_use: u32,
    /// Virtual time at which the queue's next request may start.
    pub next_r: f64,
    /// The waiting requests' seats and work (seat-nanoseconds).
    waiting_seats: u32,
    waiting_work_ns: u64,
}

impl Queue {
    pub fn waiting_work(&self) -> f64 {
        self.waiting_work_ns as f64 / NANOS_PER_SECOND
    }
    pub fn idle(&self) -> bool {
        self.waiting.is_empty() && self.executing == 0
    }
}

/// A request holding seats.
#[derive(Clone, Debug)]
pub struct Executing {
    pub queue: Option<usize>,
    pub seats: u32,
    pub initial: u32,
    pub arrived: u64,
    pub started: u64,
    pub width: Width,
    pub flow_schema: super::Name,
    pub flow: super::Name,
    pub details: super::Details,
    /// Set when the request has finished and its final seats are held
    /// for the additional latency, until this time.
    pub release_at: Option<u64>,
}

/// The queuing parameters (None in a `QueueSet` means Reject).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Queuing {
    pub queues: u32,
    pub hand_size: u32,
    pub queue_length_limit: u32,
}

/// What became of an arriving request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Arrival {
    Executing,
    /// In this queue.
    Waiting(usize),
    /// `queue-full` or `concurrency-limit`.
    Rejected(&'static str),
}

#[derive(Clone, Debug, Default)]
pub struct QueueSet {
    pub queuing: Option<Queuing>,
    pub queues: Vec<Queue>,
    /// Seats this level may use now.
    pub limit: u32,
    r: f64,
    last_sync: u64,
    enqueues: u64,
    robin: usize,
    pub seats_in_use: u32,
    /// (Hashed: found by id on every finish; `in_order` walks them by id.)
    pub executing: HashMap<u64, Executing, foldhash::fast::FixedState>,
    /// Held seats by release time.
    holds: BTreeSet<(u64, u64)>,
    /// Requests in their main phase (not just holding seats).
    running: u32,
    /// Requests and seats waiting, and queues not idle.
    waiting_total: usize,
    waiting_seats_total: u32,
    active: u32,
    /// Queues with a request waiting.
    nonempty: BTreeSet<usize>,
    /// Every arrival goes through its queue (tests compare this with the
    /// shortcut taken when nothing waits).
    pub(super) no_shortcut: bool,
}

impl QueueSet {
    pub fn new(queuing: Option<Queuing>, limit: u32, now: u64) -> QueueSet {
        let mut qs = QueueSet { limit, last_sync: now, ..Default::default() };
        qs.set_queuing(queuing);
        qs
    }

    /// New queuing parameters: queues beyond the new count stay until they
    /// drain (no new request is dealt to them).
    pub fn set_queuing(&mut self, queuing: Option<Queuing>) {
        self.queuing = queuing;
        let want = queuing.map_or(0, |q| q.queues as usize);
        if self.queues.len() < want {
            self.queues.resize_with(want, Default::default);
        }
        self.trim();
    }

    fn deck(&self) -> usize {
        self.queuing.map_or(0, |q| q.queues as usize)
    }

    fn trim(&mut self) {
        let deck = self.deck();
        while self.queues.len() > deck && self.queues.last().is_some_and(Queue::idle) {
            self.queues.pop();
        }
    }

    pub fn waiting(&self) -> usize {
        self.waiting_total
    }

    pub fn waiting_seats(&self) -> u32 {
        self.waiting_seats_total
    }

    /// Changes queue `i`, keeping the count of active queues.
    fn change<R>(&mut self, i: usize, f: impl FnOnce(&mut Queue) -> R) -> R {
        let was_idle = self.queues[i].idle();
        let r = f(&mut self.queues[i]);
        match (was_idle, self.queues[i].idle()) {
            (true, false) => self.active += 1,
            (false, true) => self.active = self.active.saturating_sub(1),
            _ => {}
        }
        r
    }

    fn push_waiting(&mut self, i: usize, w: Waiting) {
        self.waiting_total += 1;
        self.waiting_seats_total += w.width.max_seats();
        self.change(i, |q| {
            q.waiting_seats += w.width.max_seats();
            q.waiting_work_ns += w.work_ns();
            q.waiting.push_back(w);
        });
        self.nonempty.insert(i);
    }

    fn take_waiting(&mut self, i: usize, pos: usize) -> Option<Waiting> {
        let w = self.change(i, |q| {
            let w = q.waiting.remove(pos)?;
            q.waiting_seats -= w.width.max_seats().min(q.waiting_seats);
            q.waiting_work_ns -= w.work_ns().min(q.waiting_work_ns);
            Some(w)
        })?;
        self.waiting_total -= 1;
        self.waiting_seats_total -= w.width.max_seats().min(self.waiting_seats_total);
        if self.queues[i].waiting.is_empty() {
            self.nonempty.remove(&i);
        }
        Some(w)
    }

    /// Virtual time now.
    pub fn virtual_time(&self) -> f64 {
        self.r
    }

    /// Moves virtual time to `now`.
    pub fn sync(&mut self, now: u64) {
        if now <= self.last_sync {
            return;
        }
        let elapsed = (now - self.last_sync) as f64 / NANOS_PER_SECOND;
        self.last_sync = now;
        if self.active > 0 {
            let requested = u64::from(self.seats_in_use) + u64::from(self.waiting_seats_total);
            self.r += elapsed * (requested.min(u64::from(self.limit)) as f64) / f64::from(self.active);
        }
    }

    /// Whether `seats` more fit: within the limit, or — for a request wider
    /// than the whole limit — when nothing executes (seats held after a
    /// request finished do not count).
    fn fits(&self, seats: u32) -> bool {
        if seats > self.limit {
            return self.running == 0;
        }
        self.seats_in_use + seats <= self.limit
    }

    /// An arriving request; `hash` picks its hand of queues. Requests that
    /// the arrival lets start are appended to `started`.
    pub fn arrive(&mut self, now: u64, hash: u64, w: Waiting, started: &mut Vec<u64>) -> Arrival {
        self.sync(now);
        let Some(q) = self.queuing else {
            if !self.fits(w.width.max_seats()) {
                return Arrival::Rejected("concurrency-limit");
            }
            self.start(now, None, w, started);
            return Arrival::Executing;
        };
        let seats = w.width.max_seats();
        // Nothing waits and its seats fit: every queue of the hand is
        // empty, so the first one visited is taken; only the cards up to
        // it are dealt. (The same as below; tested against it.)
        let n = super::shuffle::hand_len(q.queues, q.hand_size) as u64;
        if !self.no_shortcut
            && n > 0
            && self.waiting_total == 0
            // (At a limit of 0, a queue that may hold nothing refuses.)
            && (self.seats_in_use < self.limit || (self.limit == 0 && q.queue_length_limit != 0))
            && self.fits(seats)
        {
            let offset = (self.enqueues % n) as usize;
            self.enqueues += 1;
            let idx = super::shuffle::card(hash, q.queues, q.hand_size, offset) as usize;
            let r = self.r;
            let q = &mut self.queues[idx];
            // (An idle queue starts again at now's virtual time; a busy
            // one not before it.)
            if q.idle() || q.next_r < r {
                q.next_r = r;
            }
            self.robin = idx;
            self.start(now, Some(idx), Waiting { arrival_r: r, ..w }, started);
            return Arrival::Executing;
        }
        let mut cards = [0u32; super::shuffle::MAX_HAND];
        let n = super::shuffle::deal_into(hash, q.queues, q.hand_size, &mut cards);
        let hand = &cards[..n];
        let offset = (self.enqueues % hand.len().max(1) as u64) as usize;
        self.enqueues += 1;
        let mut best: Option<(usize, f64)> = None;
        for i in 0..hand.len() {
            let idx = hand[(offset + i) % hand.len()] as usize;
            let work = self.queues[idx].waiting_work();
            if best.is_none_or(|(_, b)| work < b) {
                best = Some((idx, work));
            }
        }
        let Some((idx, _)) = best else { return Arrival::Rejected("queue-full") };
        if self.seats_in_use >= self.limit && self.queues[idx].waiting.len() as u32 >= q.queue_length_limit {
            return Arrival::Rejected("queue-full");
        }
        let id = w.id;
        let r = self.r;
        if self.queues[idx].idle() {
            self.queues[idx].next_r = r;
        }
        self.push_waiting(idx, Waiting { arrival_r: r, ..w });
        self.bound(idx);
        self.dispatch(now, started);
        if started.contains(&id) {
            Arrival::Executing
        } else {
            Arrival::Waiting(idx)
        }
    }

    fn start(&mut self, now: u64, queue: Option<usize>, w: Waiting, started: &mut Vec<u64>) {
        let seats = w.width.max_seats();
        self.seats_in_use += seats;
        self.running += 1;
        if let Some(i) = queue {
            let work = w.work();
            self.change(i, |q| {
                q.seats_in_use += seats;
                q.executing += 1;
                q.next_r += work;
            });
            self.bound(i);
        }
        started.push(w.id);
        self.executing.insert(
            w.id,
            Executing {
                queue,
                seats,
                initial: w.width.initial,
                arrived: w.arrived,
                started: now,
                width: w.width,
                flow_schema: w.flow_schema,
                flow: w.flow,
                details: w.details,
                release_at: None,
            },
        );
    }

    /// A queue's next start is never before its head arrived (virtually):
    /// a queue cannot bank service for a backlog it did not have.
    fn bound(&mut self, i: usize) {
        let q = &mut self.queues[i];
        if let Some(head) = q.waiting.front() {
            if q.next_r < head.arrival_r {
                q.next_r = head.arrival_r;
            }
        }
    }

    /// Starts waiting requests while their seats fit: each time the queue
    /// whose head would finish first (virtually), visited round-robin from
    /// the last queue served so ties rotate. A head that does not fit
    /// stops dispatching (a wide request is not overtaken by narrow ones).
    pub fn dispatch(&mut self, now: u64, started: &mut Vec<u64>) {
        self.sync(now);
        while self.waiting_total > 0 && (self.seats_in_use < self.limit || self.limit == 0) {
            // (Only queues with a request waiting are visited, in the same
            // round-robin order a visit of them all would take.)
            let mut best: Option<(usize, f64)> = None;
            let after = self.nonempty.range(self.robin + 1..).chain(self.nonempty.range(..=self.robin));
            for &i in after {
                if let Some(head) = self.queues[i].waiting.front() {
                    let finish = self.queues[i].next_r + head.work();
                    if best.is_none_or(|(_, b)| finish < b) {
                        best = Some((i, finish));
                    }
                }
            }
            let Some((i, _)) = best else { return };
            let Some(seats) = self.queues[i].waiting.front().map(|h| h.width.max_seats()) else { return };
            if !self.fits(seats) {
                return;
            }
            self.robin = i;
            let Some(w) = self.take_waiting(i, 0) else { return };
            self.bound(i);
            self.start(now, Some(i), w, started);
        }
    }

    /// A request finished executing: its seats are released now, or held
    /// for its additional latency. Returns when they will be, and when the
    /// request started (None: not executing here).
    pub fn finish(&mut self, now: u64, id: u64, width: Width, started: &mut Vec<u64>) -> (Option<u64>, Option<u64>) {
        self.sync(now);
        let Some(e) = self.executing.get_mut(&id) else { return (None, None) };
        if e.release_at.is_some() {
            return (e.release_at, Some(e.started));
        }
        // The queue's virtual clock is corrected by how much the
        // estimate missed.
        let hold = (width.additional_latency > 0).then(|| now + width.additional_latency);
        e.release_at = hold;
        self.running = self.running.saturating_sub(1);
        let (queue, started_at, initial) = (e.queue, e.started, e.initial);
        if let Some(i) = queue {
            let actual = now.saturating_sub(started_at) as f64 / NANOS_PER_SECOND;
            let estimated = ESTIMATED_SERVICE_NANOS as f64 / NANOS_PER_SECOND;
            self.queues[i].next_r += f64::from(initial) * (actual - estimated);
            self.bound(i);
        }
        if let Some(at) = hold {
            self.holds.insert((at, id));
            return (hold, Some(started_at));
        }
        self.release(now, id, started);
        (None, Some(started_at))
    }

    /// Releases a request's seats and lets waiting ones start.
    pub fn release(&mut self, now: u64, id: u64, started: &mut Vec<u64>) {
        self.sync(now);
        let Some(e) = self.executing.remove(&id) else { return };
        if let Some(at) = e.release_at {
            self.holds.remove(&(at, id));
        } else {
            // (Released without finishing first: it was still running.)
            self.running = self.running.saturating_sub(1);
        }
        self.seats_in_use -= e.seats.min(self.seats_in_use);
        if let Some(i) = e.queue {
            self.change(i, |q| {
                q.seats_in_use -= e.seats.min(q.seats_in_use);
                q.executing = q.executing.saturating_sub(1);
            });
        }
        self.dispatch(now, started);
        self.trim();
    }

    /// Releases the held seats whose time has come.
    pub fn release_due(&mut self, now: u64, started: &mut Vec<u64>) {
        while let Some(&(at, id)) = self.holds.first() {
            if at > now {
                break;
            }
            self.holds.remove(&(at, id));
            self.release(now, id, started);
        }
    }

    /// Takes a waiting request out (timed out or given up); returns it.
    pub fn remove_waiting(&mut self, now: u64, id: u64, queue: usize, started: &mut Vec<u64>) -> Option<Waiting> {
        self.sync(now);
        let qi = queue;
        let pos = self.queues.get(qi)?.waiting.iter().position(|w| w.id == id)?;
        let w = self.take_waiting(qi, pos);
        self.bound(qi);
        // A removed head may unblock the queue behind it.
        self.dispatch(now, started);
        self.trim();
        w
    }

    /// The earliest time something here is due (a held seat's release).
    pub fn next_due(&self) -> Option<u64> {
        self.holds.first().map(|(at, _)| *at)
    }

    /// The requests holding seats, by id (the order they arrived in).
    pub fn in_order(&self) -> Vec<(u64, &Executing)> {
        use crate::sort::Order;
        let mut all: Vec<(u64, &Executing)> = self.executing.iter().map(|(id, e)| (*id, e)).collect();
        all.order_by_key(|(id, _)| *id);
        all
    }

    /// Seats demanded now: in use and waiting.
    pub fn demand(&self) -> u32 {
        self.seats_in_use + self.waiting_seats()
    }
}
