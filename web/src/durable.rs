//! Saving the session as it grows, plainly enough to test natively: what
//! a save sends (the writes not yet durable, and the header that counts
//! them), one save at a time, and what the page may say is saved.
//!
//! The page's saver writes a batch in one IndexedDB transaction
//! (`components/persist.rs`) and reports when it has committed; only then
//! are those writes durable. A batch that fails leaves the previous save
//! whole, and the same writes are sent again with the next change.

use std::cell::RefCell;
use std::rc::Rc;

use kubesim::api::Revision;

use crate::session::{Session, StoredStore};

/// What one save writes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SaveBatch {
    /// Replace whatever is stored (a new, imported or restored session).
    pub fresh: bool,
    /// The session's header (`StoredHeader` as JSON), which counts the
    /// journal's entries.
    pub header: String,
    /// The index of the first entry sent.
    pub from: usize,
    /// The journal's entries from `from` on, as JSON.
    pub entries: Vec<String>,
    /// The store's writes since the last save, as a log.
    pub log: LogPart,
}

/// What a save adds to the store's log (`Server::log_since`): one
/// record, the writes since the last durable save; or, after a
/// compaction dropped some of them (or in a fresh save), the whole store
/// in place of every record before.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LogPart {
    /// Remove the records stored before this one.
    pub clear: bool,
    /// This record's place (records are read back in order).
    pub index: usize,
    /// The record; empty when nothing was written (none is stored).
    pub bytes: Vec<u8>,
}

/// Called once when a save has committed, or failed (with why).
pub type Done = Box<dyn FnOnce(Result<(), String>)>;

/// Where the session is saved.
pub type Saver = Rc<dyn Fn(SaveBatch, Done)>;

/// A saver that keeps nothing (an element on someone's page, a read-only
/// tab): every save succeeds at once.
pub fn nowhere() -> Saver {
    Rc::new(|_, done: Done| done(Ok(())))
}

#[derive(Debug, Default)]
struct Progress {
    /// Bumped when the session is replaced: a save of the one before no
    /// longer counts.
    epoch: u64,
    /// A save is under way (one at a time: each starts where the last
    /// durable one ended).
    in_flight: bool,
    /// The next save replaces what is stored.
    fresh: bool,
    /// How many journal entries are durable.
    durable: usize,
    /// The revision the durable store log reaches, and its record count
    /// (None: no log is stored).
    log: Option<(Revision, usize)>,
    /// The simulated clock in the last durable save.
    saved_wall: i64,
    /// How many `kubectl config` commands that write the last durable save
    /// had seen (a change of the kubeconfig is saved without a write; a count, so
    /// that every save compares two numbers).
    saved_kubeconfig: u64,
    /// Why the last save failed, until one succeeds; and what it tried to
    /// save (journal length, clock), so it is tried again only after a
    /// change.
    error: Option<String>,
    failed: Option<(usize, i64, u64)>,
    /// Bumped when a save ends (the page re-renders to show it).
    version: u64,
}

/// The session's saving: the saver and how far it got. Shared by every
/// copy of the app's state.
pub struct Saving {
    saver: Saver,
    progress: RefCell<Progress>,
}

/// How far the simulated clock may move before the session is saved
/// without a write.
pub const CLOCK_SAVE_MS: i64 = 5_000;

impl Saving {
    /// Saving of a session that is stored already up to `durable` entries
    /// (`fresh`: stored nowhere yet, or to be replaced).
    pub fn new(saver: Saver, session: &Session, fresh: bool) -> Rc<Saving> {
        let progress = Progress {
            fresh,
            durable: match (fresh, session.restored) {
                (true, _) => 0,
                (false, Some(r)) => r.journal,
                (false, None) => session.journal_len(),
            },
            log: session.restored.and_then(|r| r.log).filter(|_| !fresh),
            saved_wall: session.clock.wall,
            saved_kubeconfig: session.kubeconfig_changes,
            ..Progress::default()
        };
        Rc::new(Saving { saver, progress: RefCell::new(progress) })
    }

    /// Starts a save if one is needed and none is under way: new writes,
    /// the clock moved on by `CLOCK_SAVE_MS` (or `force`: the page is being
    /// hidden), a changed kubeconfig, or a replaced session.
    pub fn save_if_needed(self: &Rc<Self>, session: &Session, force: bool) {
        let batch = {
            let mut p = self.progress.borrow_mut();
            // (A session whose starter cluster is still being built is
            // saved once it is: a reload meanwhile starts afresh.)
            if p.in_flight || session.starter_pending() {
                return;
            }
            let len = session.journal_len();
            let wall = session.clock.wall;
            let clock_moved = (wall - p.saved_wall).abs() >= CLOCK_SAVE_MS || (force && wall != p.saved_wall);
            let kubeconfig = session.kubeconfig_changes;
            if !p.fresh && len == p.durable && !clock_moved && kubeconfig == p.saved_kubeconfig {
                return;
            }
            // A save that failed is tried again once something changed.
            if p.failed == Some((len, wall, kubeconfig)) && !force {
                return;
            }
            let fresh = p.fresh || len < p.durable;
            let from = if fresh { 0 } else { p.durable };
            // Entries not read back yet (a reload from the store's log)
            // cannot be sent; they are in the database already unless
            // the save is fresh, which waits for them.
            if from < session.journal_base() {
                return;
            }
            p.in_flight = true;
            let server = &session.server;
            let log = match p.log.filter(|_| !fresh).and_then(|(at, n)| Some((server.log_since(at)?, n))) {
                Some((bytes, index)) => LogPart { clear: false, index, bytes },
                None => LogPart { clear: true, index: 0, bytes: server.dump() },
            };
            let records = log.index + usize::from(!log.bytes.is_empty());
            let store = StoredStore { state: server.state(), log_records: records };
            let header = session.stored_header(Some(store));
            let batch = SaveBatch { fresh, header, from, entries: session.journal_json(from), log };
            (batch, p.epoch, len, wall, (server.revision(), records), kubeconfig)
        };
        let (batch, epoch, len, wall, log, kubeconfig) = batch;
        let me = self.clone();
        (self.saver)(
            batch,
            Box::new(move |result| {
                let mut p = me.progress.borrow_mut();
                p.in_flight = false;
                p.version += 1;
                if p.epoch != epoch {
                    return;
                }
                match result {
                    Ok(()) => {
                        p.durable = len;
                        p.log = Some(log);
                        p.saved_wall = wall;
                        p.saved_kubeconfig = kubeconfig;
                        p.fresh = false;
                        p.error = None;
                        p.failed = None;
                    }
                    Err(e) => {
                        p.error = Some(e);
                        p.failed = Some((len, wall, kubeconfig));
                    }
                }
            }),
        );
    }

    /// The session was replaced: what is stored goes with the next save.
    pub fn replaced(&self) {
        let mut p = self.progress.borrow_mut();
        p.epoch += 1;
        p.fresh = true;
        p.durable = 0;
        p.log = None;
        p.error = None;
        p.failed = None;
    }

    /// How many of the journal's entries are durable.
    pub fn durable(&self) -> usize {
        self.progress.borrow().durable
    }

    /// Whether a save is under way.
    pub fn in_flight(&self) -> bool {
        self.progress.borrow().in_flight
    }

    /// Why the last save failed, until one succeeds.
    pub fn error(&self) -> Option<String> {
        self.progress.borrow().error.clone()
    }

    /// Moves whenever a save ends.
    pub fn version(&self) -> u64 {
        self.progress.borrow().version
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::{SavedSession, Source};
    use kubesim::server::Request;

    type Pending = Rc<RefCell<Vec<(SaveBatch, Done)>>>;

    /// A saver whose saves end when the test says.
    fn later() -> (Saver, Pending) {
        let pending: Pending = Rc::new(RefCell::new(Vec::new()));
        let p = pending.clone();
        (Rc::new(move |b, done| p.borrow_mut().push((b, done))), pending)
    }

    fn write(s: &mut Session, name: &str) {
        let body = format!(r#"{{"metadata":{{"name":"{name}"}}}}"#);
        s.request(Source::Console, Request::new("POST", "/api/v1/namespaces/default/configmaps").with_body(body));
    }

    fn finish(pending: &Pending, result: Result<(), String>) -> SaveBatch {
        let (b, done) = pending.borrow_mut().remove(0);
        done(result);
        b
    }

    #[test]
    fn one_save_at_a_time_each_from_where_the_durable_one_ended() {
        let mut s = Session::new(1);
        let (saver, pending) = later();
        let saving = Saving::new(saver, &s, true);
        let starter = s.journal_len();
        saving.save_if_needed(&s, false);
        write(&mut s, "a");
        saving.save_if_needed(&s, false);
        assert_eq!(pending.borrow().len(), 1, "the second waits for the first");
        assert!(saving.in_flight());
        let first = finish(&pending, Ok(()));
        assert!(first.fresh);
        assert_eq!((first.from, first.entries.len()), (0, starter));
        assert_eq!(saving.durable(), starter, "the write made meanwhile is not durable yet");
        saving.save_if_needed(&s, false);
        let second = finish(&pending, Ok(()));
        assert!(!second.fresh);
        assert_eq!((second.from, second.entries.len()), (starter, 1));
        assert!(second.entries[0].contains(r#"\"a\""#));
        assert_eq!(saving.durable(), starter + 1);
        // What the database then holds restores the same cluster.
        let mut entries = first.entries.clone();
        entries.extend(second.entries.clone());
        let restored = Session::restore(&SavedSession::from_stored(&second.header, &entries).unwrap()).unwrap();
        assert_eq!(restored.export_json().unwrap(), s.export_json().unwrap());
        // Nothing new: no save.
        saving.save_if_needed(&s, false);
        assert!(pending.borrow().is_empty());
    }

    #[test]
    fn a_session_is_saved_once_its_starter_cluster_is_built() {
        let mut s = Session::deferred(1);
        let (saver, pending) = later();
        let saving = Saving::new(saver, &s, true);
        s.starter_step();
        saving.save_if_needed(&s, true);
        assert!(pending.borrow().is_empty(), "half a starter is not saved, even as the page is hidden");
        while s.starter_step() {}
        saving.save_if_needed(&s, false);
        let whole = finish(&pending, Ok(()));
        assert!(whole.fresh);
        assert_eq!((whole.from, whole.entries.len()), (0, s.journal_len()));
    }

    #[test]
    fn a_failed_save_is_reported_and_sent_again_after_the_next_change() {
        let mut s = Session::new(1);
        let (saver, pending) = later();
        let saving = Saving::new(saver, &s, false);
        write(&mut s, "a");
        saving.save_if_needed(&s, false);
        let v = saving.version();
        finish(&pending, Err("QuotaExceededError".into()));
        assert_eq!(saving.error().as_deref(), Some("QuotaExceededError"));
        assert!(saving.version() > v);
        let durable = saving.durable();
        saving.save_if_needed(&s, false);
        assert!(pending.borrow().is_empty(), "not again until something changed");
        write(&mut s, "b");
        saving.save_if_needed(&s, false);
        let again = finish(&pending, Ok(()));
        assert_eq!(again.from, durable, "from the last durable entry: both writes");
        assert_eq!(again.entries.len(), 2);
        assert_eq!(saving.error(), None);
    }

    #[test]
    fn the_clock_is_saved_as_it_moves_and_when_the_page_is_hidden() {
        let mut s = Session::new(1);
        let (saver, pending) = later();
        let saving = Saving::new(saver, &s, false);
        s.tick(10_000.0);
        s.tick(11_000.0);
        saving.save_if_needed(&s, false);
        assert!(pending.borrow().is_empty(), "a second is not worth a save");
        saving.save_if_needed(&s, true);
        let b = finish(&pending, Ok(()));
        assert!(b.entries.is_empty() && b.header.contains(&format!("\"wall\":{}", s.clock.wall)));
        s.tick(17_000.0);
        saving.save_if_needed(&s, false);
        assert_eq!(pending.borrow().len(), 1);
    }

    #[test]
    fn a_replaced_session_is_saved_fresh_and_an_old_save_no_longer_counts() {
        let mut s = Session::new(1);
        let (saver, pending) = later();
        let saving = Saving::new(saver, &s, false);
        write(&mut s, "a");
        saving.save_if_needed(&s, false);
        let fresh = Session::new(2);
        saving.replaced();
        finish(&pending, Ok(()));
        assert_eq!(saving.durable(), 0, "the old session's save ended after it was replaced");
        saving.save_if_needed(&fresh, false);
        let b = finish(&pending, Ok(()));
        assert!(b.fresh && b.from == 0 && b.entries.len() == fresh.journal_len());
        assert_eq!(saving.durable(), fresh.journal_len());
    }

    /// What the page's database would hold after these saves.
    #[derive(Default)]
    struct Database {
        header: String,
        entries: std::collections::BTreeMap<usize, String>,
        logs: std::collections::BTreeMap<usize, Vec<u8>>,
    }

    impl Database {
        fn commit(&mut self, b: &SaveBatch) {
            if b.fresh {
                self.entries.clear();
            }
            for (i, e) in b.entries.iter().enumerate() {
                self.entries.insert(b.from + i, e.clone());
            }
            if b.log.clear {
                self.logs.clear();
            }
            if !b.log.bytes.is_empty() {
                self.logs.insert(b.log.index, b.log.bytes.clone());
            }
            self.header = b.header.clone();
        }

        fn load(&self) -> Session {
            let entries: Vec<String> = self.entries.values().cloned().collect();
            let logs: Vec<&[u8]> = self.logs.values().map(Vec::as_slice).collect();
            Session::from_database(&self.header, &entries, &logs).unwrap()
        }

        fn save(&mut self, saving: &Rc<Saving>, s: &Session, pending: &Pending) {
            saving.save_if_needed(s, false);
            let b = finish(pending, Ok(()));
            self.commit(&b);
        }
    }

    fn deployment(s: &mut Session, name: &str, replicas: u32) {
        let body = format!(
            r#"{{"metadata":{{"name":"{name}"}},"spec":{{"replicas":{replicas},"selector":{{"matchLabels":{{"app":"{name}"}}}},"template":{{"metadata":{{"labels":{{"app":"{name}"}}}},"spec":{{"containers":[{{"name":"c","image":"nginx"}}]}}}}}}}}"#
        );
        let r = s.request(
            Source::Console,
            Request::new("POST", "/apis/apps/v1/namespaces/default/deployments").with_body(body),
        );
        assert_eq!(r.response.status, 201);
    }

    #[test]
    fn a_reload_restores_the_saved_store_without_a_replay_and_an_export_replays_to_the_same() {
        use crate::session::tests::observed;
        let mut s = Session::new(3);
        let (saver, pending) = later();
        let saving = Saving::new(saver, &s, true);
        let mut db = Database::default();
        db.save(&saving, &s, &pending);
        write(&mut s, "a");
        deployment(&mut s, "web", 3);
        db.save(&saving, &s, &pending);
        s.tick(0.0);
        s.tick(30_000.0);
        write(&mut s, "b");
        db.save(&saving, &s, &pending);
        assert!(!db.logs.is_empty() && db.header.contains("logRecords"));
        // History compacted past what the log holds: the next save is the
        // whole store.
        write(&mut s, "c");
        s.compact_now();
        saving.save_if_needed(&s, false);
        let b = finish(&pending, Ok(()));
        assert!(b.log.clear && b.log.index == 0, "{:?}", (b.log.clear, b.log.index));
        db.commit(&b);
        write(&mut s, "d");
        db.save(&saving, &s, &pending);
        assert_eq!(db.logs.len(), 2);

        let mut back = db.load();
        assert_eq!(back.restored.and_then(|r| r.log).map(|(_, n)| n), Some(2), "restored from the log");
        assert_eq!(back.journal_len(), s.journal_len() + 1, "the controllers' restart is journaled");
        assert_eq!(observed(&mut back), observed(&mut s));
        // An export of the reloaded session replays to the same cluster,
        // restart included; and both go on the same.
        let mut replayed = Session::import_json(&back.export_json().unwrap()).unwrap();
        assert_eq!(observed(&mut replayed), observed(&mut back));
        for s in [&mut back, &mut replayed] {
            deployment(s, "api", 2);
            write(s, "e");
            s.tick(0.0);
            s.tick(60_000.0);
        }
        assert_eq!(observed(&mut replayed), observed(&mut back));

        // The reloaded page saves the restart and what follows after the
        // records it was loaded from; a second reload gives it back.
        let saving = Saving::new(later_into(&pending), &back, false);
        assert_eq!(saving.durable(), s.journal_len(), "the restart is not saved yet");
        saving.save_if_needed(&back, false);
        let b = finish(&pending, Ok(()));
        assert!(!b.fresh && !b.log.clear && b.log.index == 2, "{:?}", (b.fresh, b.log.clear, b.log.index));
        assert!(b.entries[0].contains("controllersRestarted"));
        db.commit(&b);
        let mut again = db.load();
        assert_eq!(observed(&mut again), observed(&mut back));
    }

    #[test]
    fn a_page_reloaded_from_its_store_log_saves_before_its_journal_is_read_back() {
        use crate::session::tests::observed;
        let mut s = Session::new(4);
        let (saver, pending) = later();
        let saving = Saving::new(saver, &s, true);
        let mut db = Database::default();
        write(&mut s, "a");
        db.save(&saving, &s, &pending);
        let (header, stored): (String, Vec<Vec<u8>>) = (db.header.clone(), db.logs.values().cloned().collect());
        let logs: Vec<&[u8]> = stored.iter().map(Vec::as_slice).collect();
        let mut back = Session::from_store(&header, &logs).unwrap().unwrap();
        assert_eq!(back.journal_base(), s.journal_len());
        assert!(back.export_json().unwrap_err().contains("still being read"));
        // Writes made meanwhile are saved after the stored entries.
        let saving = Saving::new(later_into(&pending), &back, false);
        write(&mut back, "b");
        saving.save_if_needed(&back, false);
        let b = finish(&pending, Ok(()));
        assert_eq!((b.from, b.entries.len()), (s.journal_len(), 2), "the restart and the write");
        db.commit(&b);
        // A fresh save waits for the journal.
        saving.replaced();
        saving.save_if_needed(&back, false);
        assert!(pending.borrow().is_empty());
        let entries: Vec<String> = db.entries.values().cloned().collect();
        back.attach_saved_journal(&entries).unwrap();
        assert_eq!(back.journal_base(), 0);
        let mut replayed = Session::import_json(&back.export_json().unwrap()).unwrap();
        assert_eq!(observed(&mut replayed), observed(&mut back));
        saving.save_if_needed(&back, false);
        assert!(finish(&pending, Ok(())).fresh);
        // Entries that do not fit are refused, and the journal is kept.
        let mut other = Session::from_store(&header, &logs).unwrap().unwrap();
        assert!(other.attach_saved_journal(&entries[..1]).is_err());
        assert!(other.journal_base() > 0);
    }

    #[test]
    fn a_store_log_that_does_not_read_back_is_replaced_by_a_replay() {
        let mut s = Session::new(1);
        let (saver, pending) = later();
        let saving = Saving::new(saver, &s, true);
        let mut db = Database::default();
        write(&mut s, "a");
        db.save(&saving, &s, &pending);
        for bytes in db.logs.values_mut() {
            bytes.truncate(bytes.len() / 2);
        }
        let mut back = db.load();
        assert_eq!(back.restored.map(|r| r.log), Some(None), "replayed");
        assert_eq!(back.journal_len(), s.journal_len());
        assert_eq!(crate::session::tests::observed(&mut back), crate::session::tests::observed(&mut s));
    }

    #[test]
    fn a_kubeconfig_change_is_saved_without_a_write_and_comes_back_with_the_session() {
        let mut s = Session::new(1);
        let (saver, pending) = later();
        let saving = Saving::new(saver, &s, true);
        let mut db = Database::default();
        db.save(&saving, &s, &pending);
        let line = "config set-context --current --namespace=kube-system";
        assert!(!crate::kubectl::run(&mut s, line, "").failed);
        let journal = s.journal_len();
        saving.save_if_needed(&s, false);
        let b = finish(&pending, Ok(()));
        assert!(b.entries.is_empty() && b.header.contains("kube-system"), "{}", b.header);
        assert_eq!(s.journal_len(), journal, "no write was made");
        db.commit(&b);
        saving.save_if_needed(&s, false);
        assert!(pending.borrow().is_empty(), "saved once");
        // A reload (from the store's log, or by a replay) and an import
        // work in the context's namespace again.
        let mut back = db.load();
        for bytes in db.logs.values_mut() {
            bytes.clear();
        }
        let replayed = db.load();
        assert_eq!(replayed.restored.map(|r| r.log), Some(None), "replayed");
        let imported = Session::import_json(&s.export_json().unwrap()).unwrap();
        for other in [&replayed, &imported] {
            assert_eq!(other.kubeconfig, s.kubeconfig);
        }
        let o = crate::kubectl::run(&mut back, "get deploy", "");
        assert!(o.text.contains("coredns"), "{}", o.text);
    }

    /// Another saver feeding the same pending list.
    fn later_into(pending: &Pending) -> Saver {
        let p = pending.clone();
        Rc::new(move |b, done| p.borrow_mut().push((b, done)))
    }

    #[test]
    fn a_stored_session_missing_entries_is_refused() {
        let s = Session::new(1);
        let entries = s.journal_json(0);
        let err = SavedSession::from_stored(&s.stored_header(None), &entries[1..]).unwrap_err();
        assert!(err.contains("entries"), "{err}");
        assert!(SavedSession::from_stored("{", &entries).is_err());
    }
}
