//! kubesim headless: the simulated API server with its controllers, and the
//! page's kubectl, for JavaScript. `pkg/` wraps this module in the npm
//! package's `Simulator` class (async creation, bodies by content type,
//! watches as async iterators); this layer stays small and synchronous.
//!
//! Invariant: like the page, this is a client of `Server::serve` through
//! the page's `Session` (the same journal, so export and import are the
//! page's); it never reaches into storage.
//!
//! Time stands still unless `advance` moves it: the same calls give the
//! same cluster, byte for byte, in a browser and in Node.

use std::collections::BTreeMap;
use std::sync::Mutex;

use kubesim::server::{Request, WatchStream};
use kubesim_web::kubectl;
use kubesim_web::session::{Session, Source};
use wasm_bindgen::prelude::*;

/// The most events one `poll` hands out (the rest wait for the next).
const POLL_MAX: usize = 5000;

/// What a request answered.
#[wasm_bindgen(getter_with_clone)]
pub struct Answer {
    pub status: u16,
    /// Header names and values, alternating (`[name, value, name, …]`).
    pub headers: Vec<String>,
    pub body: Vec<u8>,
    /// The id of the watch the request opened (poll it), if it opened one.
    pub watch: Option<u32>,
}

/// What a watch had ready.
#[wasm_bindgen(getter_with_clone)]
pub struct Polled {
    pub events: String,
    pub done: bool,
}

/// What a kubectl command printed, and (`edit`'s first run) the object
/// to change and pass back as `stdin` to the same command.
#[wasm_bindgen(getter_with_clone)]
pub struct Printed {
    pub text: String,
    pub failed: bool,
    pub edit: Option<String>,
}

/// One simulated cluster.
#[wasm_bindgen]
pub struct Core {
    session: Session,
    watches: BTreeMap<u32, WatchStream>,
    next_watch: u32,
}

#[wasm_bindgen]
impl Core {
    /// A cluster from `seed`, keeping `history_window_ms` of history (the
    /// server's default when absent), with the page's starter cluster in
    /// it or empty.
    #[wasm_bindgen(constructor)]
    pub fn new(seed: f64, history_window_ms: Option<f64>, starter: bool) -> Core {
        let window = history_window_ms
            .map(|w| w.clamp(0.0, i64::MAX as f64) as i64)
            .unwrap_or(kubesim::server::ServerConfig::default().history_window_ms);
        Core::around(Session::configured(seed.clamp(0.0, u64::MAX as f64) as u64, window, starter))
    }

    /// Serves one request. `headers` alternates names and values.
    pub fn request(&mut self, method: &str, target: &str, headers: Vec<String>, body: Option<Vec<u8>>) -> Answer {
        let mut req = Request::new(method, target);
        for pair in headers.chunks(2) {
            if let [name, value] = pair {
                req = req.with_header(name, value);
            }
        }
        if let Some(b) = body {
            req = req.with_body(b);
        }
        let (entry, stream) = self.session.serve(Source::Console, req);
        let watch = stream.map(|s| {
            let id = self.next_watch;
            self.next_watch += 1;
            self.watches.insert(id, s);
            id
        });
        self.forget_log();
        Answer { watch, ..answer_of(&entry.response) }
    }

    /// The events a watch has ready, as newline-delimited JSON
    /// (`{"type":…,"object":…}` per line; empty when none are ready), and
    /// whether the stream has ended (the watch is then forgotten).
    pub fn poll(&mut self, watch: u32) -> Polled {
        let Some(stream) = self.watches.get_mut(&watch) else {
            return Polled { events: String::new(), done: true };
        };
        let events = self.session.server.poll_watch(stream, POLL_MAX);
        // Done only once everything it held was read.
        let done = stream.is_done() && events.len() < POLL_MAX;
        if done {
            self.watches.remove(&watch);
        }
        let mut out = Vec::new();
        for e in &events {
            e.write_json_line(&mut out);
        }
        Polled { events: String::from_utf8_lossy(&out).into_owned(), done }
    }

    /// Stops a watch (the server forgets its watcher).
    pub fn close(&mut self, watch: u32) {
        self.watches.remove(&watch);
    }

    /// Runs a command line as the page's kubectl does; `stdin` is what
    /// `-f -` reads.
    pub fn kubectl(&mut self, line: &str, stdin: &str) -> Printed {
        // (A leading `kubectl` is the parser's to drop.)
        let out = kubectl::run(&mut self.session, line, stdin);
        self.forget_log();
        Printed { text: out.text, failed: out.failed, edit: out.edit.filter(|e| !e.is_empty()) }
    }

    /// Moves simulated time forward (`"90s"`, `"5m"`, `"1h"`); timers due
    /// in between fire (grace periods, controllers' waits, compaction).
    pub fn advance(&mut self, duration: &str) -> Answer {
        let e = self.session.advance(duration);
        self.forget_log();
        answer_of(&e.response)
    }

    /// Compacts history up to the current revision.
    pub fn compact(&mut self) -> Answer {
        let e = self.session.compact_now();
        self.forget_log();
        answer_of(&e.response)
    }

    /// The session as the page exports it (`kubesim-session/v1`): the
    /// seed and every write, replayed by `import`.
    pub fn export(&self) -> String {
        // A core's journal is always whole in memory (only the page reads
        // a saved one back later), so there is always an export.
        self.session.export_json().unwrap_or_default()
    }

    /// A cluster rebuilt from what `export` (or the page's export) wrote.
    pub fn import(text: &str) -> Result<Core, String> {
        Session::import_json(text).map(Core::around)
    }

    /// The current simulated time, in Unix milliseconds.
    pub fn now(&self) -> f64 {
        self.session.server.now().0 as f64
    }

    /// The current revision (the newest resourceVersion).
    pub fn revision(&self) -> f64 {
        self.session.server.revision().0 as f64
    }
}

impl Core {
    fn around(mut session: Session) -> Core {
        // Nothing here ticks the page's clock: time moves by `advance` only.
        session.set_paused(true);
        session.log.clear();
        Core { session, watches: BTreeMap::new(), next_watch: 1 }
    }

    /// The page keeps a log for its panels; headless there is no one to
    /// show it to, so it is dropped after each call (memory stays flat).
    fn forget_log(&mut self) {
        self.session.log.clear();
    }
}

fn answer_of(r: &kubesim::server::Response) -> Answer {
    Answer {
        status: r.status,
        headers: r.headers.iter().flat_map(|(k, v)| [k.to_string(), v.to_string()]).collect(),
        body: r.body.clone(),
        watch: None,
    }
}

static LAST_PANIC: Mutex<String> = Mutex::new(String::new());

/// Keeps a panic's message for `lastPanic` (on wasm32 a panic aborts the
/// module, and the package reports it as a 500 Status).
#[wasm_bindgen(start)]
pub fn start() {
    std::panic::set_hook(Box::new(|info| {
        if let Ok(mut last) = LAST_PANIC.lock() {
            *last = info.to_string();
        }
    }));
}

/// The message of the panic that aborted the module, if one did.
#[wasm_bindgen(js_name = lastPanic)]
pub fn last_panic() -> String {
    LAST_PANIC.lock().map(|s| s.clone()).unwrap_or_default()
}

/// Panics on purpose, so the package's tests can see a panic reported.
#[wasm_bindgen(js_name = panicForTest)]
pub fn panic_for_test() {
    panic!("a panic asked for by panicForTest()");
}

#[cfg(test)]
mod tests {
    use super::*;

    const CMS: &str = "/api/v1/namespaces/default/configmaps";

    fn json_headers() -> Vec<String> {
        ["Accept", "application/json", "Content-Type", "application/json"].map(String::from).to_vec()
    }

    fn create(core: &mut Core, name: &str) -> Answer {
        let body = format!(r#"{{"apiVersion":"v1","kind":"ConfigMap","metadata":{{"name":"{name}"}}}}"#);
        core.request("POST", CMS, json_headers(), Some(body.into_bytes()))
    }

    #[test]
    fn a_watch_hands_out_its_events_then_says_it_ended() {
        let mut core = Core::new(1.0, None, false);
        let a = create(&mut core, "a");
        assert_eq!(a.status, 201);
        let rv = core.revision();
        let w = core.request("GET", &format!("{CMS}?watch=1&resourceVersion={rv}"), json_headers(), None);
        let id = w.watch.expect("a watch opened");
        assert_eq!(core.poll(id).events, "");
        create(&mut core, "b");
        let got = core.poll(id);
        assert!(!got.done);
        assert_eq!(got.events.lines().count(), 1);
        assert!(got.events.starts_with(r#"{"type":"ADDED","object":{"#), "{}", got.events);
        // Compaction ends it: the 410 comes with `done`, once.
        create(&mut core, "c");
        core.compact();
        let w2 = core.request("GET", &format!("{CMS}?watch=1&resourceVersion={rv}"), json_headers(), None);
        let gone = core.poll(w2.watch.expect("opened"));
        assert!(gone.done);
        assert!(gone.events.contains(r#""code":410"#), "{}", gone.events);
        core.close(id);
        assert!(core.poll(id).done);
    }

    #[test]
    fn the_same_calls_give_the_same_export_and_import_rebuilds_it() {
        let run = || {
            let mut core = Core::new(9.0, Some(60_000.0), true);
            core.kubectl("kubectl create deployment web --image=nginx --replicas=2", "");
            core.advance("45s");
            create(&mut core, "x");
            core
        };
        let (a, b) = (run(), run());
        assert_eq!(a.export(), b.export());
        let mut c = Core::import(&a.export()).expect("imports");
        assert_eq!(c.revision(), a.revision());
        assert_eq!(c.now(), a.now());
        let printed = c.kubectl("get deployment web", "");
        assert!(!printed.failed);
        assert!(printed.text.contains("web    2/2"), "{}", printed.text);
        assert!(Core::import("{}").is_err());
    }

    #[test]
    fn kubectl_failures_say_so() {
        let mut core = Core::new(1.0, None, false);
        let out = core.kubectl("get configmap nosuch", "");
        assert!(out.failed);
        assert_eq!(out.text, "Error from server (NotFound): configmaps \"nosuch\" not found\n");
    }
}
