//! The app's state and its reducer, as plain Rust (the Yew side only wraps
//! `AppState::reduce` in `Reducible`). Saving is injected, so the reducer's
//! rules — every write saved, a refused save reported and retried, a
//! replaced session starting clean — are tested natively.

use std::cell::RefCell;
use std::rc::Rc;

use crate::embedding::EmbedOptions;
use crate::kubectl::discover;
use crate::lessons::{self, Lang, Lesson, Progress, Ran};
use crate::resources::Discovery;
use crate::session::{Session, Source};

/// The lesson the page is running: which, from what seed, where the
/// learner is, and what "show me" ran last.
#[derive(Clone, Debug, PartialEq)]
pub struct LessonRun {
    pub lesson: Rc<Lesson>,
    pub seed: u64,
    pub progress: Progress,
    pub shown: Vec<Ran>,
}

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
    /// The lesson in progress, if any.
    pub lesson: Option<Rc<LessonRun>>,
    /// The language of the lessons and the lesson pane.
    pub lang: Lang,
    /// Show only the panels the lesson uses.
    pub focus_panels: bool,
    /// Set when this app is a `<kube-sim>` element on someone's page.
    pub embed: Option<Rc<EmbedOptions>>,
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
    /// Open a lesson at a step (0-based) on a fresh cluster from a seed.
    OpenLesson(Rc<Lesson>, usize, u64),
    /// Go to a step of the running lesson: the next one carries on in the
    /// learner's cluster; any other is opened afresh.
    LessonStep(usize),
    /// The step's start again, exactly (the lesson opened at it afresh).
    ResetStep,
    /// Run the step's reference solution, through the panels' paths.
    ShowMe,
    CloseLesson,
    Language(Lang),
    FocusPanels(bool),
}

impl AppState {
    pub fn new(session: Session, notice: Option<String>, saver: Saver) -> AppState {
        AppState::around(Rc::new(RefCell::new(session)), notice, saver)
    }

    /// The state around a session that others may hold too (elements that
    /// share a cluster).
    pub fn around(session: Rc<RefCell<Session>>, notice: Option<String>, saver: Saver) -> AppState {
        let (discovery, saved_journal, saved_wall, generation) = {
            let mut s = session.borrow_mut();
            (Rc::new(discover(&mut s, Source::Setup)), s.journal_len(), s.clock.wall, s.generation)
        };
        AppState {
            generation,
            session,
            discovery,
            selected_log: None,
            inspect: None,
            save_error: None,
            notice,
            epoch: 0,
            try_command: None,
            lesson: None,
            lang: Lang::En,
            focus_panels: false,
            embed: None,
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

    /// A new session in the same cell (the tick loop holds the cell).
    fn replace(&mut self, s: Session, why: Option<String>) {
        *self.session.borrow_mut() = s;
        self.epoch += 1;
        self.generation = self.session.borrow().generation;
        self.saved_journal = usize::MAX;
        self.selected_log = None;
        self.inspect = None;
        self.notice = why;
    }

    fn open_lesson(&mut self, lesson: Rc<Lesson>, step: usize, seed: u64) {
        let (s, progress) = lessons::open(&lesson, step, seed);
        self.replace(s, None);
        self.lesson = Some(Rc::new(LessonRun { lesson, seed, progress, shown: Vec::new() }));
    }

    pub fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let mut next = (*self).clone();
        next.generation = next.session.borrow().generation;
        match action {
            Action::Changed => {}
            Action::SelectLog(id) => next.selected_log = Some(id),
            Action::Inspect(o) => next.inspect = Some(o),
            Action::Replace(s, why) => next.replace(*s, Some(why)),
            Action::Notice(n) => next.notice = n,
            Action::Try(line) => {
                let n = next.try_command.as_ref().map_or(0, |(n, _)| n + 1);
                next.try_command = Some((n, line));
            }
            Action::OpenLesson(lesson, step, seed) => next.open_lesson(lesson, step, seed),
            Action::LessonStep(step) => {
                if let Some(run) = next.lesson.clone() {
                    if step == run.progress.step + 1 && step < run.lesson.steps.len() {
                        let mut s = next.session.borrow_mut();
                        let caps = lessons::captures_after(&run.lesson.steps[run.progress.step], &s, &run.progress);
                        let progress = lessons::begin(&run.lesson, step, &mut s, caps);
                        next.lesson = Some(Rc::new(LessonRun { progress, shown: Vec::new(), ..(*run).clone() }));
                    } else if step < run.lesson.steps.len() {
                        next.open_lesson(run.lesson.clone(), step, run.seed);
                    }
                }
            }
            Action::ResetStep => {
                if let Some(run) = next.lesson.clone() {
                    next.open_lesson(run.lesson.clone(), run.progress.step, run.seed);
                }
            }
            Action::ShowMe => {
                if let Some(run) = next.lesson.clone() {
                    let mut s = next.session.borrow_mut();
                    let step = &run.lesson.steps[run.progress.step];
                    let shown = step
                        .actions
                        .iter()
                        .map(|a| lessons::run_act(&mut s, a, &run.progress.captures, None))
                        .collect();
                    s.pump_lanes();
                    next.generation = s.generation;
                    drop(s);
                    next.lesson = Some(Rc::new(LessonRun { shown, ..(*run).clone() }));
                }
            }
            Action::CloseLesson => {
                next.lesson = None;
                next.focus_panels = false;
            }
            Action::FocusPanels(on) => next.focus_panels = on,
            Action::Language(lang) => next.lang = lang,
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
            && self.lesson == other.lesson
            && self.lang == other.lang
            && self.focus_panels == other.focus_panels
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

    /// A learner's way through a lesson in the page's reducer: open it,
    /// do the step, go on; "reset this step" and going back give the same
    /// cluster as opening the lesson there.
    #[test]
    fn a_lesson_runs_in_the_reducer_as_a_learner_steps_through_it() {
        use crate::lessons::Verdict;
        let lesson = Rc::new(
            lessons::parse("watch-from-rv", include_str!("../../lessons/watch-from-rv.yaml")).expect("the lesson"),
        );
        let st = state(Rc::default(), Rc::default());
        let st = st.reduce(Action::OpenLesson(lesson.clone(), 0, 3));
        let verdict = |st: &AppState| {
            let run = st.lesson.clone().expect("a lesson");
            let s = st.session.borrow();
            lessons::evaluate(&run.lesson.steps[run.progress.step], &s, &run.progress.start, &run.progress.captures)
        };
        assert_eq!(verdict(&st), Verdict::Waiting(0));
        // The learner types the command in the kubectl panel.
        crate::kubectl::run(&mut st.session.borrow_mut(), "get configmaps", "");
        let Verdict::Passed(caps) = verdict(&st) else { panic!("the step's check holds") };
        let st = st.reduce(Action::LessonStep(1));
        let run = st.lesson.clone().unwrap();
        assert_eq!((run.progress.step, &run.progress.captures), (1, &caps));
        // "Show me" runs the step's solution; the check holds.
        let st = st.reduce(Action::ShowMe);
        assert_eq!(st.lesson.as_ref().unwrap().shown.len(), 1);
        assert!(matches!(verdict(&st), Verdict::Passed(_)));
        let st = st.reduce(Action::LessonStep(2));
        let at_two = st.session.borrow().export_json();
        let st = st.reduce(Action::ShowMe).reduce(Action::ResetStep);
        assert_eq!(st.session.borrow().export_json(), at_two, "reset gives the step's start again");
        assert_eq!(verdict(&st), Verdict::Waiting(0));
        let fresh = lessons::open(&lesson, 2, 3).0.export_json();
        assert_eq!(at_two, fresh, "the learner's cluster at step 3 is the permalink's");
        let st = st.reduce(Action::LessonStep(0)).reduce(Action::CloseLesson);
        assert!(st.lesson.is_none());
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
