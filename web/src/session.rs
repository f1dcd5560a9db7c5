//! The page's session: the simulated server, the adapter clock the page
//! feeds it, the journal that makes the state survive a reload, and the
//! request log. Everything the UI shows comes from requests made here,
//! so the log is the whole truth of what the page did.
//!
//! Invariant: this module talks to the core only through `Server::serve`,
//! `Server::poll_watch`, `sync_clock` and the read-only counters, and
//! saves and restores the whole server through its door for that
//! (`Server::state`, `log_since`, `dump`, `restore`); it never reaches
//! into storage.

use std::rc::Rc;

use base64::Engine as _;

use kubesim::api::Revision;
use kubesim::clock::SimTime;
use kubesim::controllers::{Controllers, ALL};
use kubesim::server::{Request, Response, Served, Server, ServerConfig, ServerState, WatchStream};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::lanes::Lane;
use crate::timeline::Timeline;

/// Who in the page made a request (shown in the log).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Source {
    Console,
    Kubectl,
    Lane,
    Inspector,
    Timeline,
    Pager,
    Clock,
    Setup,
    /// The cluster's own clients (the namespace controller, the garbage
    /// collector): their User-Agent says which.
    Controller,
    /// The owners view's reads.
    Owners,
    /// The fairness panel's writes.
    Fairness,
    /// Reads the page makes to offer completion (the console's
    /// namespaces, the inspector box's names): the page's, not the user's.
    Completion,
    /// The resourceVersion explorer's requests.
    Explorer,
}

impl Source {
    pub fn label(self) -> &'static str {
        match self {
            Source::Console => "console",
            Source::Kubectl => "kubectl",
            Source::Lane => "watch lane",
            Source::Inspector => "inspector",
            Source::Timeline => "timeline",
            Source::Pager => "pager",
            Source::Clock => "clock",
            Source::Setup => "setup",
            Source::Controller => "controller",
            Source::Owners => "owners view",
            Source::Fairness => "fairness panel",
            Source::Completion => "completion",
            Source::Explorer => "rv explorer",
        }
    }
}

/// One request the page made and what came back.
#[derive(Clone, Debug)]
pub struct LogEntry {
    pub id: u64,
    pub source: Source,
    pub request: Request,
    pub response: Rc<Response>,
    /// Simulated time when it was served.
    pub at: SimTime,
    /// Whether the response opened a watch stream (its events go to a lane).
    pub watch: bool,
    /// The request's place in the journal, when it was a write the page
    /// made (saved once the journal up to it is durable).
    pub journal: Option<usize>,
}

impl LogEntry {
    pub fn url(&self) -> String {
        if self.request.query.is_empty() {
            self.request.path.clone()
        } else {
            format!("{}?{}", self.request.path, self.request.query)
        }
    }

    /// The resourceVersion the request produced (a write), read (a get or
    /// list), or asked for (a watch).
    pub fn resource_version(&self) -> Option<String> {
        if self.watch {
            return crate::format::query_param(&self.request.query, "resourceVersion");
        }
        let v: Value = serde_json::from_slice(&self.response.body).ok()?;
        v.pointer("/metadata/resourceVersion").and_then(Value::as_str).map(str::to_string)
    }
}

/// A write the session made, kept so the state can be rebuilt by replay.
/// The core is deterministic: the same seed, the same requests at the same
/// adapter times give the same cluster, byte for byte.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JournalEntry {
    /// The adapter clock (ms) when the request was served.
    pub wall: i64,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub method: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub target: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub headers: Vec<(String, String)>,
    /// The body, when it is UTF-8 text (JSON, YAML): readable in an export.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub body: String,
    /// The body, when it is not UTF-8 (a protobuf body), as base64: kept
    /// byte for byte, so a replay sends exactly what was sent.
    #[serde(default, rename = "bodyBase64", skip_serializing_if = "String::is_empty")]
    pub body_base64: String,
    /// Not a request: the controllers started again here (the page was
    /// reloaded from its saved store), as after a kube-controller-manager
    /// restart. A replay restarts them at the same point.
    #[serde(default, rename = "controllersRestarted", skip_serializing_if = "std::ops::Not::not")]
    pub controllers_restarted: bool,
    /// Not a request: the page's clock reached a time a controller waited
    /// for (a Lease's renewal, a container's end, a CronJob's schedule),
    /// and they settled there. A replay settles them at the same point,
    /// so what they did then comes before the writes after it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub woke: bool,
}

impl JournalEntry {
    fn new(wall: i64, req: &Request) -> JournalEntry {
        let (body, body_base64) = match std::str::from_utf8(&req.body) {
            Ok(text) => (text.to_string(), String::new()),
            Err(_) => (String::new(), base64::engine::general_purpose::STANDARD.encode(&req.body)),
        };
        JournalEntry {
            wall,
            method: req.method.clone(),
            target: if req.query.is_empty() { req.path.clone() } else { format!("{}?{}", req.path, req.query) },
            headers: req.headers.clone(),
            body,
            body_base64,
            controllers_restarted: false,
            woke: false,
        }
    }

    /// A mark that is not a request: the controllers restarted, or
    /// (`woke`) settled at a time they waited for.
    fn mark(wall: i64, woke: bool) -> JournalEntry {
        JournalEntry {
            wall,
            method: String::new(),
            target: String::new(),
            headers: Vec::new(),
            body: String::new(),
            body_base64: String::new(),
            controllers_restarted: !woke,
            woke,
        }
    }

    /// The request as it was sent.
    fn request(&self) -> Result<Request, String> {
        let body = if self.body_base64.is_empty() {
            self.body.as_bytes().to_vec()
        } else {
            base64::engine::general_purpose::STANDARD
                .decode(&self.body_base64)
                .map_err(|e| format!("journal body of {} {} is not base64: {e}", self.method, self.target))?
        };
        let mut req = Request::new(&self.method, &self.target).with_body(body);
        req.headers = self.headers.clone();
        Ok(req)
    }
}

/// What export writes and import reads.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SavedSession {
    pub format: String,
    pub seed: u64,
    #[serde(rename = "historyWindowMs")]
    pub history_window_ms: i64,
    /// The adapter clock when saved.
    pub wall: i64,
    pub paused: bool,
    pub journal: Vec<JournalEntry>,
    /// The page's kubeconfig, once a `kubectl config` command made it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kubeconfig: Option<crate::kubectl::config::KubeConfig>,
}

pub const SAVE_FORMAT: &str = "kubesim-session/v1";

/// What the browser's database keeps beside the journal's entries (one
/// record each): the session with its journal left empty, and how many
/// entries of the journal belong to it. Written in the same transaction
/// as the entries it counts, so a save is whole or not there at all.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StoredHeader {
    #[serde(flatten)]
    pub session: SavedSession,
    #[serde(rename = "journalLength")]
    pub journal_length: usize,
    /// The store as of the same save, as a log of its writes kept in the
    /// database's log records (`Server::log_since`, `dump`): a reload
    /// restores it without replaying the journal.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub store: Option<StoredStore>,
}

/// Where the saved store stands, and how many log records it is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredStore {
    #[serde(flatten)]
    pub state: ServerState,
    #[serde(rename = "logRecords")]
    pub log_records: usize,
}

/// What the browser's database held of a session restored from it: its
/// journal's length, and the revision and record count of its store's log
/// (None: no log, it was restored by replay).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Restored {
    pub journal: usize,
    pub log: Option<(Revision, usize)>,
}

impl SavedSession {
    /// A session from what the database held: its header, and the
    /// journal's entries in order (each as JSON).
    pub fn from_stored(header: &str, entries: &[String]) -> Result<SavedSession, String> {
        let StoredHeader { session, journal_length, .. } =
            serde_json::from_str(header).map_err(|e| format!("the saved session's header is unreadable: {e}"))?;
        if entries.len() < journal_length {
            return Err(format!("the saved journal has {} of its {} entries", entries.len(), journal_length));
        }
        let journal = parse_entries(&entries[..journal_length])?;
        Ok(SavedSession { journal, ..session })
    }
}

fn parse_entries(entries: &[String]) -> Result<Vec<JournalEntry>, String> {
    entries
        .iter()
        .enumerate()
        .map(|(i, e)| serde_json::from_str(e).map_err(|err| format!("journal entry {i} is unreadable: {err}")))
        .collect()
}

/// The clock the page feeds the core: it advances with real time while
/// running, stands still while paused, and never goes backwards.
#[derive(Clone, Debug)]
pub struct PageClock {
    pub wall: i64,
    pub paused: bool,
    last_real: Option<f64>,
}

impl PageClock {
    fn new(wall: i64) -> PageClock {
        PageClock { wall, paused: false, last_real: None }
    }

    /// Moves the clock by the real time elapsed since the last tick.
    fn tick(&mut self, real_ms: f64) {
        if let Some(last) = self.last_real {
            if !self.paused && real_ms > last {
                self.wall += (real_ms - last).round() as i64;
            }
        }
        self.last_real = Some(real_ms);
    }

    /// Real time passes but this clock does not.
    fn hold(&mut self, real_ms: f64) {
        self.last_real = Some(real_ms);
    }
}

pub struct Session {
    pub server: Server,
    /// Every controller, settled after each write the page makes; their
    /// requests go to the log (as `Source::Controller`), not the journal:
    /// replaying the journal replays them.
    pub controllers: Controllers,
    pub clock: PageClock,
    journal: Vec<JournalEntry>,
    /// How many saved entries come before `journal` that are not read
    /// yet: a reload from the store's log shows the page first and reads
    /// them after (`attach_saved_journal`).
    journal_base: usize,
    pub log: Vec<LogEntry>,
    pub lanes: Vec<Lane>,
    pub timeline: Timeline,
    next_id: u64,
    /// Bumped on every change the view may want to show.
    pub generation: u64,
    /// Whom the page's own requests act as (as `kubectl --as` does: the
    /// `Impersonate-User`/`Impersonate-Group` headers); None: the
    /// cluster's administrator.
    pub acting_as: Option<ActingAs>,
    /// The metrics panel's readings (not saved).
    pub history: crate::samples::History,
    /// What the browser's database held when this session was restored
    /// from it (None: it was not).
    pub restored: Option<Restored>,
    /// The object `kubectl edit` handed out for editing (its path, and the
    /// object as it was then): the second `edit` patches from it, as
    /// kubectl patches from what it opened in the editor.
    pub editing: Option<(String, serde_json::Value)>,
    /// The page's kubeconfig (`kubectl config`): its current context's
    /// namespace is where commands without `-n` work. Not saved; None
    /// until a command changes it (the repository's, as it is).
    pub kubeconfig: Option<crate::kubectl::config::KubeConfig>,
    /// How many `kubectl config` commands that write ran (what a save
    /// compares).
    pub kubeconfig_changes: u64,
    /// The starter cluster's requests not sent yet: a fresh page shows
    /// itself first and builds the cluster after, a request at a time
    /// (`starter_step`).
    starter: std::collections::VecDeque<Request>,
}

/// A user the page acts as, and the groups it claims.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ActingAs {
    pub user: String,
    pub groups: Vec<String>,
}

impl ActingAs {
    /// From what the picker holds: a user name and comma-separated groups
    /// (None for an empty name).
    pub fn parse(user: &str, groups: &str) -> Option<ActingAs> {
        let user = user.trim();
        if user.is_empty() {
            return None;
        }
        let groups = groups.split(',').map(str::trim).filter(|g| !g.is_empty()).map(str::to_string).collect();
        Some(ActingAs { user: user.to_string(), groups })
    }
}

impl Session {
    /// A fresh session with the starter cluster in it.
    pub fn new(seed: u64) -> Session {
        Session::configured(seed, ServerConfig::default().history_window_ms, true)
    }

    /// A fresh session with the given history window, with the starter
    /// cluster in it or with nothing but what the server makes itself.
    pub fn configured(seed: u64, history_window_ms: i64, starter: bool) -> Session {
        let mut s = Session::empty(seed, history_window_ms);
        if starter {
            // (Its last step reads the timeline.)
            s.starter = kubesim::starter::requests(&Default::default(), s.server.now()).into();
            while s.starter_step() {}
        } else {
            s.refresh_timeline();
        }
        s
    }

    /// A fresh session whose starter cluster is still to be built: the
    /// page shows itself, then calls `starter_step` between frames.
    pub fn deferred(seed: u64) -> Session {
        let mut s = Session::empty(seed, ServerConfig::default().history_window_ms);
        s.starter = kubesim::starter::requests(&Default::default(), s.server.now()).into();
        s
    }

    /// Sends the starter cluster's next request (the controllers settle
    /// after it, as after any write); whether more remain.
    pub fn starter_step(&mut self) -> bool {
        if let Some(req) = self.starter.pop_front() {
            self.request(Source::Setup, req);
            if self.starter.is_empty() {
                self.refresh_timeline();
            }
        }
        !self.starter.is_empty()
    }

    /// Whether the starter cluster is still being built (such a session
    /// is not saved: a reload starts it afresh).
    pub fn starter_pending(&self) -> bool {
        !self.starter.is_empty()
    }

    fn empty(seed: u64, history_window_ms: i64) -> Session {
        Session::around(Server::new(Session::config(seed, history_window_ms)))
    }

    fn config(seed: u64, history_window_ms: i64) -> ServerConfig {
        // RBAC is on, as in a real cluster: the page's administrator is in
        // system:masters, and the user picker shows what others may do.
        ServerConfig { seed, history_window_ms, rbac: true, ..ServerConfig::default() }
    }

    fn around(mut server: Server) -> Session {
        let wall = server.config().start_time.0;
        // The clock bar's jumps pass as time would: the controllers stop
        // at every time one waits for on the way.
        server.step_jumps(true);
        let controllers = Session::fresh_controllers();
        server.set_components(controllers.components());
        Session {
            server,
            controllers,
            clock: PageClock::new(wall),
            journal: Vec::new(),
            journal_base: 0,
            log: Vec::new(),
            lanes: Vec::new(),
            timeline: Timeline::default(),
            next_id: 1,
            generation: 0,
            acting_as: None,
            history: Default::default(),
            restored: None,
            editing: None,
            kubeconfig: None,
            kubeconfig_changes: 0,
            starter: Default::default(),
        }
    }

    fn fresh_controllers() -> Controllers {
        let mut controllers = Controllers::new(ALL).unwrap_or_else(|_| Controllers::none());
        controllers.record(true);
        controllers
    }

    /// The controllers start again, as kube-controller-manager, the
    /// scheduler and the kubelets do after a restart: new informers (a list
    /// each, then a watch), nothing else remembered. What was due before
    /// happens first. Journaled, so a replay restarts them at the same
    /// point.
    pub fn restart_controllers(&mut self) {
        self.server.sync_clock(SimTime(self.clock.wall));
        if self.controllers.tick(&mut self.server) {
            self.log_controllers();
        }
        self.journal.push(JournalEntry::mark(self.clock.wall, false));
        self.controllers = Session::fresh_controllers();
        self.server.set_components(self.controllers.components());
        self.settle();
        self.generation += 1;
    }

    pub fn journal_len(&self) -> usize {
        self.journal_base + self.journal.len()
    }

    /// Where the journal held in memory starts (0 once the whole journal
    /// has been read).
    pub fn journal_base(&self) -> usize {
        self.journal_base
    }

    /// Puts the saved entries a reload from the store's log left in the
    /// database (read after the page was shown) before the ones made
    /// since.
    /// `entries` is the database's journal as read: saves made meanwhile
    /// may have added to it.
    pub fn attach_saved_journal(&mut self, entries: &[String]) -> Result<(), String> {
        let Some(entries) = entries.get(..self.journal_base) else {
            return Err(format!("expected {} saved journal entries, read {}", self.journal_base, entries.len()));
        };
        let mut journal = parse_entries(entries)?;
        let first_after = self.journal.first().map_or(self.clock.wall, |j| j.wall);
        if journal.windows(2).any(|w| w[1].wall < w[0].wall) || journal.last().is_some_and(|j| j.wall > first_after) {
            return Err("the saved journal goes back in time".into());
        }
        journal.append(&mut self.journal);
        self.journal = journal;
        self.journal_base = 0;
        self.generation += 1;
        Ok(())
    }

    /// Serves a request and logs it. Writes (anything but GET) are
    /// journaled. A watch is returned as its stream for the caller to own.
    pub fn serve(&mut self, source: Source, mut req: Request) -> (LogEntry, Option<WatchStream>) {
        self.server.sync_clock(SimTime(self.clock.wall));
        if let (Some(a), false) =
            (&self.acting_as, matches!(source, Source::Setup | Source::Controller | Source::Clock))
        {
            if req.header("Impersonate-User").is_none() {
                req = req.with_header("Impersonate-User", &a.user);
                for g in &a.groups {
                    req = req.with_header("Impersonate-Group", g);
                }
            }
        }
        let journal = (req.method != "GET" && req.method != "HEAD").then(|| {
            self.journal.push(JournalEntry::new(self.clock.wall, &req));
            self.journal_len() - 1
        });
        let (response, stream) = match self.server.serve(req.clone()) {
            // The page shows a followed log as what there is so far.
            Served::Response(r) | Served::Log(r, _) => (r, None),
            Served::Watch(head, stream) => (head, Some(stream)),
        };
        let entry = LogEntry {
            id: self.next_id,
            source,
            request: req,
            response: Rc::new(response),
            at: self.server.now(),
            watch: stream.is_some(),
            journal,
        };
        self.next_id += 1;
        self.log.push(entry.clone());
        self.generation += 1;
        if entry.request.method != "GET" && entry.request.method != "HEAD" {
            self.settle();
        }
        (entry, stream)
    }

    /// Lets the controllers catch up, and logs what they sent.
    pub fn settle(&mut self) {
        self.controllers.settle(&mut self.server);
        self.log_controllers();
    }

    /// Pauses the controllers (writes are left for them), or resumes them
    /// (they catch up at once).
    pub fn set_controllers_paused(&mut self, paused: bool) {
        self.controllers.pause(paused);
        self.server.set_components(self.controllers.components());
        if !paused {
            self.settle();
        }
        self.generation += 1;
    }

    /// One reconcile of the next controller (paused or not).
    pub fn step_controllers(&mut self) {
        self.controllers.step(&mut self.server);
        self.log_controllers();
    }

    fn log_controllers(&mut self) {
        for x in self.controllers.take_log() {
            let entry = LogEntry {
                id: self.next_id,
                source: Source::Controller,
                request: x.request,
                response: Rc::new(std::sync::Arc::unwrap_or_clone(x.response)),
                at: x.at,
                watch: false,
                journal: None,
            };
            self.next_id += 1;
            self.log.push(entry);
            self.generation += 1;
        }
    }

    /// Serves a request that is not a watch (a watch's stream is dropped:
    /// use `serve` for those).
    pub fn request(&mut self, source: Source, req: Request) -> LogEntry {
        self.serve(source, req).0
    }

    /// Called on every animation tick with the page's real clock: moves
    /// simulated time, delivers watch events, follows new revisions.
    pub fn tick(&mut self, real_ms: f64) {
        let before = self.clock.wall;
        if self.starter_pending() {
            // (The starter cluster is built at the start time, as
            // `Session::new` builds it: the clock starts after it.)
            self.clock.hold(real_ms);
        } else {
            self.clock.tick(real_ms);
        }
        if self.clock.wall != before {
            self.server.sync_clock(SimTime(self.clock.wall));
            // The page shows the clock to the second.
            if self.clock.wall / 1000 != before / 1000 {
                self.generation += 1;
            }
            // A controller waiting for this time (a grace period ending):
            // journaled, for a replay to settle them here too.
            if self.controllers.tick(&mut self.server) {
                self.journal.push(JournalEntry::mark(self.clock.wall, true));
                self.log_controllers();
                self.generation += 1;
            }
        }
        self.pump_lanes();
        if self.history.maybe_sample(&self.server) {
            self.generation += 1;
        }
        if self.server.revision().0 > self.timeline.last_revision
            || self.server.compacted().0 != self.timeline.compacted
        {
            self.refresh_timeline();
        }
    }

    pub fn set_paused(&mut self, paused: bool) {
        self.clock.paused = paused;
        self.generation += 1;
    }

    /// Jumps simulated time through the debug endpoint (logged like any
    /// other request).
    pub fn advance(&mut self, duration: &str) -> LogEntry {
        let e = self.request(Source::Clock, Request::new("POST", &format!("/debug/kubesim/clock?advance={duration}")));
        self.after_clock_change();
        e
    }

    pub fn compact_now(&mut self) -> LogEntry {
        let e = self.request(Source::Clock, Request::new("POST", "/debug/kubesim/compact"));
        self.after_clock_change();
        e
    }

    fn after_clock_change(&mut self) {
        self.pump_lanes();
        self.refresh_timeline();
    }

    /// Pulls the writes since the last look from the history endpoint.
    pub fn refresh_timeline(&mut self) {
        loop {
            let after = self.timeline.last_revision;
            let target = format!("/debug/kubesim/history?after={after}&limit=10000");
            let e = self.request(Source::Timeline, Request::new("GET", &target));
            let got = self.timeline.absorb(&e.response.body);
            if got == 0 {
                break;
            }
        }
        self.generation += 1;
    }

    /// Delivers pending events to every open lane.
    pub fn pump_lanes(&mut self) {
        let mut lanes = std::mem::take(&mut self.lanes);
        let mut changed = false;
        for lane in &mut lanes {
            changed |= lane.pump(self);
        }
        // Lanes opened while pumping (none today) would be in self.lanes.
        lanes.append(&mut self.lanes);
        self.lanes = lanes;
        if changed {
            self.generation += 1;
        }
    }

    /// The session as export writes it (refused while the saved journal
    /// is still being read).
    pub fn save(&self) -> Result<SavedSession, String> {
        if self.journal_base > 0 {
            return Err("the saved journal is still being read; try again in a moment".into());
        }
        Ok(SavedSession { journal: self.journal.clone(), ..self.saved_without_journal() })
    }

    /// The session as saved, its journal left empty (not copied).
    fn saved_without_journal(&self) -> SavedSession {
        SavedSession {
            format: SAVE_FORMAT.into(),
            seed: self.server.config().seed,
            history_window_ms: self.server.config().history_window_ms,
            wall: self.clock.wall,
            paused: self.clock.paused,
            journal: Vec::new(),
            kubeconfig: self.kubeconfig.as_ref().map(crate::kubectl::config::KubeConfig::copied),
        }
    }

    /// Rebuilds a session by replaying a saved journal.
    pub fn restore(saved: &SavedSession) -> Result<Session, String> {
        if saved.format != SAVE_FORMAT {
            return Err(format!("not a kubesim session (format {:?}, expected {SAVE_FORMAT:?})", saved.format));
        }
        let mut s = Session::empty(saved.seed, saved.history_window_ms);
        for j in &saved.journal {
            if j.wall < s.clock.wall {
                return Err(format!("journal goes back in time at {} {}", j.method, j.target));
            }
            s.clock.wall = j.wall;
            if j.controllers_restarted {
                s.restart_controllers();
            } else if j.woke {
                s.server.sync_clock(SimTime(j.wall));
                s.journal.push(JournalEntry::mark(j.wall, true));
                s.settle();
            } else {
                s.request(Source::Setup, j.request()?);
            }
        }
        if saved.wall < s.clock.wall {
            return Err("saved clock is older than its journal".into());
        }
        s.clock.wall = saved.wall;
        s.clock.paused = saved.paused;
        s.kubeconfig = saved.kubeconfig.as_ref().map(crate::kubectl::config::KubeConfig::copied);
        s.server.sync_clock(SimTime(s.clock.wall));
        // The replayed requests are not what this page did: start a clean log.
        s.log.clear();
        s.refresh_timeline();
        Ok(s)
    }

    /// The header the database keeps for this session as it stands (with
    /// where its store's log stands, when one is saved beside it).
    pub fn stored_header(&self, store: Option<StoredStore>) -> String {
        let h = StoredHeader { session: self.saved_without_journal(), journal_length: self.journal_len(), store };
        serde_json::to_string(&h).unwrap_or_default()
    }

    /// Rebuilds a saved session from its store's log, without a replay:
    /// the same cluster (every object, the history watches may still be
    /// served, the clock, the next uid and name), with the controllers
    /// started afresh (journaled: `restart_controllers`).
    /// `journal_length` says how many entries the saved journal has: those
    /// `saved` does not hold are to be attached (`attach_saved_journal`).
    pub fn restore_from_log(
        saved: &SavedSession,
        journal_length: usize,
        store: &StoredStore,
        logs: &[&[u8]],
    ) -> Result<Session, String> {
        if saved.format != SAVE_FORMAT {
            return Err(format!("not a kubesim session (format {:?}, expected {SAVE_FORMAT:?})", saved.format));
        }
        if logs.len() != store.log_records {
            return Err(format!("the saved store has {} of its {} log records", logs.len(), store.log_records));
        }
        if saved.journal.last().is_some_and(|j| j.wall > saved.wall) {
            return Err("saved clock is older than its journal".into());
        }
        let config = Session::config(saved.seed, saved.history_window_ms);
        let mut s = Session::around(Server::restore(config, &store.state, logs)?);
        s.journal = saved.journal.clone();
        s.journal_base = journal_length.saturating_sub(saved.journal.len());
        s.clock.wall = saved.wall;
        s.clock.paused = saved.paused;
        s.kubeconfig = saved.kubeconfig.as_ref().map(crate::kubectl::config::KubeConfig::copied);
        s.restored =
            Some(Restored { journal: journal_length, log: Some((Revision(store.state.revision), logs.len())) });
        s.restart_controllers();
        s.log.clear();
        s.refresh_timeline();
        Ok(s)
    }

    /// The session the browser's database holds: from its store's log
    /// when there is one that reads back, else by replaying its journal.
    pub fn from_database(header: &str, entries: &[String], logs: &[&[u8]]) -> Result<Session, String> {
        match Session::from_store(header, logs) {
            Ok(Some(mut s)) => {
                s.attach_saved_journal(entries)?;
                Ok(s)
            }
            Ok(None) => Session::replay_stored(header, entries),
            // The journal is the record: replay it.
            Err(e) => {
                web_log(&format!("kubesim: the saved store did not restore ({e}); replaying the journal"));
                Session::replay_stored(header, entries)
            }
        }
    }

    /// The session the database holds, by replaying its journal.
    pub fn replay_stored(header: &str, entries: &[String]) -> Result<Session, String> {
        let saved = SavedSession::from_stored(header, entries)?;
        let mut s = Session::restore(&saved)?;
        s.restored = Some(Restored { journal: saved.journal.len(), log: None });
        Ok(s)
    }

    /// The journal's entries from `from` on, each as the JSON the database
    /// keeps.
    pub fn journal_json(&self, from: usize) -> Vec<String> {
        self.journal
            .get(from.saturating_sub(self.journal_base)..)
            .unwrap_or_default()
            .iter()
            .map(|e| serde_json::to_string(e).unwrap_or_default())
            .collect()
    }

    pub fn export_json(&self) -> Result<String, String> {
        self.save().map(|s| serde_json::to_string(&s).unwrap_or_default())
    }

    /// The session the database holds, from its header and store's log
    /// alone (its journal's entries are read later): None when no store
    /// was saved with it.
    pub fn from_store(header: &str, logs: &[&[u8]]) -> Result<Option<Session>, String> {
        let StoredHeader { session, journal_length, store } =
            serde_json::from_str(header).map_err(|e| format!("the saved session's header is unreadable: {e}"))?;
        let Some(store) = store else { return Ok(None) };
        Session::restore_from_log(&session, journal_length, &store, logs).map(Some)
    }

    pub fn import_json(text: &str) -> Result<Session, String> {
        let saved: SavedSession =
            serde_json::from_str(text).map_err(|e| format!("this file is not a kubesim session: {e}"))?;
        Session::restore(&saved)
    }

    pub fn log_entry(&self, id: u64) -> Option<&LogEntry> {
        self.log.binary_search_by_key(&id, |e| e.id).ok().map(|i| &self.log[i])
    }

    pub fn lane_mut(&mut self, id: u64) -> Option<&mut Lane> {
        self.lanes.iter_mut().find(|l| l.id == id)
    }

    pub fn next_lane_id(&self) -> u64 {
        self.lanes.iter().map(|l| l.id).max().unwrap_or(0) + 1
    }

    /// Opens a watch lane on a collection (listing first, as an informer,
    /// when asked) and returns its id.
    pub fn open_lane(&mut self, path: &str, query: &str, list_first: bool) -> u64 {
        let mut lane = Lane::new(self.next_lane_id(), path, query, list_first);
        lane.start(self);
        let id = lane.id;
        self.lanes.push(lane);
        id
    }

    /// Gives a watch that a request opened (the console's, the explorer's,
    /// a lesson's) a lane of its own.
    pub fn adopt_watch(&mut self, entry: &LogEntry, stream: WatchStream) {
        let mut lane = Lane::new(self.next_lane_id(), &entry.request.path, &entry.request.query, false);
        lane.adopt(stream, self);
        self.lanes.push(lane);
    }
}

/// A line for the browser's console (natively, standard error).
pub fn web_log(line: &str) {
    #[cfg(target_arch = "wasm32")]
    web_sys::console::warn_1(&line.into());
    #[cfg(not(target_arch = "wasm32"))]
    eprintln!("{line}");
}

/// Serves one request on a session reference-counted by the UI. Kept here
/// so components never hold a borrow across a callback.
pub fn serve_json(session: &mut Session, source: Source, method: &str, target: &str, body: Option<&Value>) -> LogEntry {
    let mut req = Request::new(method, target).with_header("Accept", "application/json");
    if let Some(b) = body {
        req = req.with_body(serde_json::to_vec(b).unwrap_or_default()).with_header("Content-Type", "application/json");
    }
    session.request(source, req)
}

/// The response body as JSON, or Null.
pub fn body_json(r: &Response) -> Value {
    serde_json::from_slice(&r.body).unwrap_or(Value::Null)
}

#[cfg(test)]
pub(crate) mod tests;
