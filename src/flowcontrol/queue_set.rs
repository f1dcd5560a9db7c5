//! One limited priority level's queues and seats: fair queuing by virtual
//! finish time, as upstream's queueset does it. Virtual time ("R") runs at
//! the rate a single busy queue would be served — the seats the active
//! queues could use, at most the limit, shared among them; a queue's next
//! request finishes, virtually, at the queue's `next_r` plus the request's
//! work (seat-seconds), and the queue whose next request finishes first is
//! served first.

use std::collections::{BTreeMap, VecDeque};

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
    pub flow_schema: String,
    pub flow: String,
    /// Who asked and what, for `dump_requests`.
    pub details: super::Details,
}

impl Waiting {
    /// Seat-seconds: the initial seats for the estimated service time,
    /// then the final seats for the additional latency.
    pub fn work(&self) -> f64 {
        f64::from(self.width.initial) * ESTIMATED_SERVICE_NANOS as f64 / NANOS_PER_SECOND
            + f64::from(self.width.final_seats) * self.width.additional_latency as f64 / NANOS_PER_SECOND
    }
}

#[derive(Clone, Debug, Default)]
pub struct Queue {
    pub waiting: VecDeque<Waiting>,
    pub executing: u32,
    pub seats_in_use: u32,
    /// Virtual time at which the queue's next request may start.
    pub next_r: f64,
}

impl Queue {
    pub fn waiting_work(&self) -> f64 {
        self.waiting.iter().map(Waiting::work).sum()
    }
    fn waiting_seats(&self) -> u32 {
        self.waiting.iter().map(|w| w.width.max_seats()).sum()
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
    pub flow_schema: String,
    pub flow: String,
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
    pub executing: BTreeMap<u64, Executing>,
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
        self.queues.iter().map(|q| q.waiting.len()).sum()
    }

    pub fn waiting_seats(&self) -> u32 {
        self.queues.iter().map(Queue::waiting_seats).sum()
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
        let mut active = 0u32;
        let mut requested = 0u64;
        for q in &self.queues {
            requested += u64::from(q.seats_in_use) + u64::from(q.waiting_seats());
            if !q.idle() {
                active += 1;
            }
        }
        if active > 0 {
            self.r += elapsed * (requested.min(u64::from(self.limit)) as f64) / f64::from(active);
        }
    }

    /// Whether `seats` more fit: within the limit, or — for a request wider
    /// than the whole limit — when nothing executes (seats held after a
    /// request finished do not count).
    fn fits(&self, seats: u32) -> bool {
        if seats > self.limit {
            return self.executing.values().all(|e| e.release_at.is_some());
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
        let hand = super::shuffle::deal(hash, q.queues, q.hand_size);
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
        let queue = &mut self.queues[idx];
        if queue.idle() {
            queue.next_r = r;
        }
        queue.waiting.push_back(Waiting { arrival_r: r, ..w });
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
        if let Some(i) = queue {
            let q = &mut self.queues[i];
            q.seats_in_use += seats;
            q.executing += 1;
            q.next_r += w.work();
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
        while self.seats_in_use < self.limit || self.limit == 0 {
            let n = self.queues.len();
            let mut best: Option<(usize, f64)> = None;
            for k in 1..=n {
                let i = (self.robin + k) % n;
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
            let Some(w) = self.queues[i].waiting.pop_front() else { return };
            self.start(now, Some(i), w, started);
        }
    }

    /// A request finished executing: its seats are released now, or held
    /// for its additional latency (returns when they will be).
    pub fn finish(&mut self, now: u64, id: u64, width: Width, started: &mut Vec<u64>) -> Option<u64> {
        self.sync(now);
        let e = self.executing.get_mut(&id)?;
        if e.release_at.is_some() {
            return e.release_at;
        }
        // The queue's virtual clock is corrected by how much the
        // estimate missed.
        let hold = (width.additional_latency > 0).then(|| now + width.additional_latency);
        e.release_at = hold;
        let (queue, started_at, initial) = (e.queue, e.started, e.initial);
        if let Some(i) = queue {
            let actual = now.saturating_sub(started_at) as f64 / NANOS_PER_SECOND;
            let estimated = ESTIMATED_SERVICE_NANOS as f64 / NANOS_PER_SECOND;
            self.queues[i].next_r += f64::from(initial) * (actual - estimated);
            self.bound(i);
        }
        if hold.is_some() {
            return hold;
        }
        self.release(now, id, started);
        None
    }

    /// Releases a request's seats and lets waiting ones start.
    pub fn release(&mut self, now: u64, id: u64, started: &mut Vec<u64>) {
        self.sync(now);
        let Some(e) = self.executing.remove(&id) else { return };
        self.seats_in_use -= e.seats.min(self.seats_in_use);
        if let Some(i) = e.queue {
            let q = &mut self.queues[i];
            q.seats_in_use -= e.seats.min(q.seats_in_use);
            q.executing = q.executing.saturating_sub(1);
        }
        self.dispatch(now, started);
        self.trim();
    }

    /// Releases the held seats whose time has come.
    pub fn release_due(&mut self, now: u64, started: &mut Vec<u64>) {
        let due: Vec<u64> =
            self.executing.iter().filter(|(_, e)| e.release_at.is_some_and(|t| t <= now)).map(|(id, _)| *id).collect();
        for id in due {
            self.release(now, id, started);
        }
    }

    /// Takes a waiting request out (timed out or given up); returns it.
    pub fn remove_waiting(&mut self, now: u64, id: u64, queue: usize, started: &mut Vec<u64>) -> Option<Waiting> {
        self.sync(now);
        let qi = queue;
        let pos = self.queues.get(qi)?.waiting.iter().position(|w| w.id == id)?;
        let w = self.queues[qi].waiting.remove(pos);
        self.bound(qi);
        // A removed head may unblock the queue behind it.
        self.dispatch(now, started);
        self.trim();
        w
    }

    /// The earliest time something here is due (a held seat's release).
    pub fn next_due(&self) -> Option<u64> {
        self.executing.values().filter_map(|e| e.release_at).min()
    }

    /// Seats demanded now: in use and waiting.
    pub fn demand(&self) -> u32 {
        self.seats_in_use + self.waiting_seats()
    }
}
