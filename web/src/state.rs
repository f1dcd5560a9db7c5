//! The app's state and its reducer, as plain Rust (the Yew side only wraps
//! `AppState::reduce` in `Reducible`). Saving is injected, so the reducer's
//! rules — every write saved, a refused save reported and retried, a
//! replaced session starting clean — are tested natively.

use std::cell::RefCell;
use std::rc::Rc;

use crate::kubectl::discover;
use crate::resources::Discovery;
use crate::session::{Session, Source};

/// An object the inspector looks at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ObjectRef {
    pub group: String,
    pub version: String,
    pub resource: String,
    pub namespace: String,
    pub name: String,
}

impl ObjectRef {
    /// The object a user named in the inspector's box: a resource type as
    /// kubectl takes it (plural, singular, short name or kind), a
    /// namespace (not used for cluster-scoped types) and a name.
    pub fn named(d: &Discovery, kind: &str, namespace: &str, name: &str) -> Result<ObjectRef, String> {
        let r = d.resolve(kind.trim())?;
        let name = name.trim();
        if name.is_empty() {
            return Err(format!("give the name of the {} to open", r.singular));
        }
        let namespace = if r.namespaced { namespace.trim() } else { "" };
        if r.namespaced && namespace.is_empty() {
            return Err(format!("{} live in a namespace: give one", r.resource));
        }
        Ok(ObjectRef {
            group: r.group.clone(),
            version: r.version.clone(),
            resource: r.resource.clone(),
            namespace: namespace.to_string(),
            name: name.to_string(),
        })
    }
}

/// Where the session is saved (the browser's localStorage in the page).
pub type Saver = Rc<dyn Fn(&str) -> Result<(), String>>;

#[derive(Clone)]
pub struct AppState {
    pub session: Rc<RefCell<Session>>,
    pub generation: u64,
    pub discovery: Rc<Discovery>,
    pub selected_log: Option<u64>,
    pub inspect: Option<ObjectRef>,
    /// Why the last save failed (quota), shown until a save works.
    pub save_error: Option<String>,
    /// A message for the user (import refused, restored from storage, …).
    pub notice: Option<String>,
    /// Bumped when the session is replaced (import, reset).
    pub epoch: u64,
    /// A command a starter asked the kubectl panel to run, numbered so the
    /// same one can be asked for twice.
    pub try_command: Option<(u64, String)>,
    saved_journal: usize,
    /// The simulated clock when last saved.
    saved_wall: i64,
    saver: Saver,
}

pub enum Action {
    /// The session changed; re-render (and save a new write).
    Changed,
    SelectLog(u64),
    Inspect(ObjectRef),
    /// Import or reset: the new session and what to tell the user.
    Replace(Box<Session>, String),
    Notice(Option<String>),
    /// Fill in and run a kubectl command (the newcomer's starters).
    Try(String),
}

impl AppState {
    pub fn new(mut session: Session, notice: Option<String>, saver: Saver) -> AppState {
        let discovery = Rc::new(discover(&mut session, Source::Setup));
        let saved_journal = session.journal_len();
        let saved_wall = session.clock.wall;
        AppState {
            generation: session.generation,
            session: Rc::new(RefCell::new(session)),
            discovery,
            selected_log: None,
            inspect: None,
            save_error: None,
            notice,
            epoch: 0,
            try_command: None,
            saved_journal,
            saved_wall,
            saver,
        }
    }

    /// Saves when the journal grew (every acknowledged write is kept) or
    /// the simulated clock moved on by `CLOCK_SAVE_MS` (so a reload does
    /// not take the clock back; the page also saves when it is hidden).
    /// A refused save is reported and tried again after the next change.
    fn save_if_needed(&mut self) {
        let (len, wall, text) = {
            let s = self.session.borrow();
            let clock_moved = s.clock.wall - self.saved_wall >= CLOCK_SAVE_MS;
            if s.journal_len() == self.saved_journal && !clock_moved {
                return;
            }
            (s.journal_len(), s.clock.wall, s.export_json())
        };
        match (self.saver)(&text) {
            Ok(()) => {
                self.saved_journal = len;
                self.saved_wall = wall;
                self.save_error = None;
            }
            Err(e) => self.save_error = Some(e),
        }
    }

    /// Saves now (the page is being hidden or closed).
    pub fn save_now(&self) -> Result<(), String> {
        let text = self.session.borrow().export_json();
        (self.saver)(&text)
    }

    pub fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let mut next = (*self).clone();
        next.generation = next.session.borrow().generation;
        match action {
            Action::Changed => {}
            Action::SelectLog(id) => next.selected_log = Some(id),
            Action::Inspect(o) => next.inspect = Some(o),
            Action::Replace(s, why) => {
                // The same cell, new contents: the tick loop holds the cell.
                *next.session.borrow_mut() = *s;
                next.epoch += 1;
                next.generation = next.session.borrow().generation;
                next.saved_journal = usize::MAX;
                next.selected_log = None;
                next.inspect = None;
                next.notice = Some(why);
            }
            Action::Notice(n) => next.notice = n,
            Action::Try(line) => {
                let n = next.try_command.as_ref().map_or(0, |(n, _)| n + 1);
                next.try_command = Some((n, line));
            }
        }
        next.save_if_needed();
        Rc::new(next)
    }
}

/// Components re-render when the state compares unequal: that is, when the
/// session's generation moved or what the page selected changed.
impl PartialEq for AppState {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.session, &other.session)
            && self.generation == other.generation
            && self.epoch == other.epoch
            && self.selected_log == other.selected_log
            && self.inspect == other.inspect
            && self.save_error == other.save_error
            && self.notice == other.notice
            && self.try_command == other.try_command
    }
}

/// How far the simulated clock may move before the session is saved
/// without a write.
pub const CLOCK_SAVE_MS: i64 = 5_000;

#[cfg(test)]
mod tests {
    use super::*;
    use kubesim::server::Request;

    #[test]
    fn the_inspector_box_names_objects_as_kubectl_takes_types() {
        let mut s = Session::new(1);
        let d = discover(&mut s, Source::Setup);
        let deploy = ObjectRef::named(&d, "deploy", "kube-system", "coredns").unwrap();
        assert_eq!((deploy.group.as_str(), deploy.version.as_str()), ("apps", "v1"));
        assert_eq!((deploy.resource.as_str(), deploy.namespace.as_str()), ("deployments", "kube-system"));
        // A cluster-scoped type drops the namespace.
        let node = ObjectRef::named(&d, "Node", "default", " worker-1 ").unwrap();
        assert_eq!((node.resource.as_str(), node.namespace.as_str(), node.name.as_str()), ("nodes", "", "worker-1"));
        assert_eq!(ObjectRef::named(&d, "cm", "default", "").unwrap_err(), "give the name of the configmap to open");
        assert_eq!(ObjectRef::named(&d, "cm", "", "x").unwrap_err(), "configmaps live in a namespace: give one");
        assert_eq!(
            ObjectRef::named(&d, "flurb", "default", "x").unwrap_err(),
            "the server doesn't have a resource type \"flurb\""
        );
        let types = d.readable_types();
        for t in ["configmaps", "deployments", "nodes", "pods", "events", "events.events.k8s.io"] {
            assert!(types.contains(&t.to_string()), "{t}: {types:?}");
        }
        assert!(!types.contains(&"bindings".to_string()), "bindings cannot be read");
    }

    #[test]
    fn the_clock_is_saved_as_it_moves_so_a_reload_never_goes_back() {
        let (fail, saved) = (Rc::new(RefCell::new(false)), Rc::new(RefCell::new(Vec::new())));
        let st = state(fail, saved.clone());
        // Real time passing moves the clock (no request, nothing journaled).
        st.session.borrow_mut().tick(10_000.0);
        st.session.borrow_mut().tick(11_000.0);
        let st = st.reduce(Action::Changed);
        assert!(saved.borrow().is_empty(), "a second is not worth a save");
        st.session.borrow_mut().tick(16_000.0);
        let st = st.reduce(Action::Changed);
        assert_eq!(saved.borrow().len(), 1);
        let wall = st.session.borrow().clock.wall;
        let restored = Session::import_json(&saved.borrow()[0]).unwrap();
        assert_eq!(restored.clock.wall, wall);
        assert!(st.save_now().is_ok());
        assert_eq!(saved.borrow().len(), 2);
    }

    fn state(fail: Rc<RefCell<bool>>, saved: Rc<RefCell<Vec<String>>>) -> Rc<AppState> {
        let saver: Saver = Rc::new(move |text: &str| {
            if *fail.borrow() {
                return Err("QuotaExceededError".into());
            }
            saved.borrow_mut().push(text.to_string());
            Ok(())
        });
        Rc::new(AppState::new(Session::new(1), None, saver))
    }

    fn write(st: &Rc<AppState>, name: &str) {
        let body = format!(r#"{{"metadata":{{"name":"{name}"}}}}"#);
        st.session
            .borrow_mut()
            .request(Source::Console, Request::new("POST", "/api/v1/namespaces/default/configmaps").with_body(body));
    }

    #[test]
    fn every_write_is_saved_and_reads_are_not() {
        let (fail, saved) = (Rc::new(RefCell::new(false)), Rc::new(RefCell::new(Vec::new())));
        let st = state(fail, saved.clone());
        let st = st.reduce(Action::Changed);
        assert!(saved.borrow().is_empty(), "nothing new to save");
        write(&st, "a");
        let st = st.reduce(Action::Changed);
        assert_eq!(saved.borrow().len(), 1);
        assert!(saved.borrow()[0].contains("\\\"a\\\""));
        st.session.borrow_mut().request(Source::Console, Request::new("GET", "/api/v1/namespaces"));
        let _ = st.reduce(Action::Changed);
        assert_eq!(saved.borrow().len(), 1, "a read changes nothing to save");
    }

    #[test]
    fn a_refused_save_is_reported_then_retried() {
        let (fail, saved) = (Rc::new(RefCell::new(true)), Rc::new(RefCell::new(Vec::new())));
        let st = state(fail.clone(), saved.clone());
        write(&st, "a");
        let st = st.reduce(Action::Changed);
        assert_eq!(st.save_error.as_deref(), Some("QuotaExceededError"));
        *fail.borrow_mut() = false;
        let st = st.reduce(Action::SelectLog(1));
        assert_eq!(st.save_error, None);
        assert_eq!(saved.borrow().len(), 1);
        assert_eq!(st.selected_log, Some(1));
    }

    #[test]
    fn replacing_the_session_keeps_the_cell_clears_selection_and_saves() {
        let (fail, saved) = (Rc::new(RefCell::new(false)), Rc::new(RefCell::new(Vec::new())));
        let st = state(fail, saved.clone());
        let cell = st.session.clone();
        let st = st.reduce(Action::Inspect(ObjectRef {
            group: String::new(),
            version: "v1".into(),
            resource: "configmaps".into(),
            namespace: "default".into(),
            name: "x".into(),
        }));
        let st = st.reduce(Action::Replace(Box::new(Session::new(2)), "Imported.".into()));
        assert!(Rc::ptr_eq(&cell, &st.session));
        assert_eq!((st.inspect.clone(), st.notice.as_deref(), st.epoch), (None, Some("Imported."), 1));
        assert_eq!(saved.borrow().len(), 1, "the new session is saved at once");
        assert_eq!(cell.borrow().server.config().seed, 2);
    }

    #[test]
    fn state_compares_equal_until_something_shown_changes() {
        let (fail, saved) = (Rc::new(RefCell::new(false)), Rc::new(RefCell::new(Vec::new())));
        let st = state(fail, saved);
        let same = st.clone().reduce(Action::Changed);
        assert!(*same == *st);
        write(&st, "b");
        let moved = st.clone().reduce(Action::Changed);
        assert!(*moved != *st);
    }
}
