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

pub use crate::durable::{Saver, Saving, CLOCK_SAVE_MS};

#[derive(Clone)]
pub struct AppState {
    pub session: Rc<RefCell<Session>>,
    pub generation: u64,
    pub discovery: Rc<Discovery>,
    pub selected_log: Option<u64>,
    pub inspect: Option<ObjectRef>,
    /// Why the last save failed (quota), shown until a save works.
    pub save_error: Option<String>,
    /// How many of the journal's entries are durable (the writes after
    /// them are shown as not saved yet).
    pub durable: usize,
    /// Set when this tab only shows a session another tab saves: why.
    pub read_only: Option<String>,
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
    saving: Rc<Saving>,
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
    /// The state around a session; `stored` says whether the saver
    /// holds it already (restored from it), else its first save is whole.
    pub fn new(session: Session, notice: Option<String>, saver: Saver, stored: bool) -> AppState {
        let saving = Saving::new(saver, &session, !stored);
        AppState::around(Rc::new(RefCell::new(session)), notice, saving)
    }

    /// The state around a session that others may hold too (elements that
    /// share a cluster).
    pub fn around(session: Rc<RefCell<Session>>, notice: Option<String>, saving: Rc<Saving>) -> AppState {
        let (discovery, generation) = {
            let mut s = session.borrow_mut();
            (Rc::new(discover(&mut s, Source::Setup)), s.generation)
        };
        let durable = saving.durable();
        AppState {
            generation,
            session,
            discovery,
            selected_log: None,
            inspect: None,
            save_error: None,
            durable,
            read_only: None,
            notice,
            epoch: 0,
            try_command: None,
            lesson: None,
            lang: Lang::En,
            focus_panels: false,
            embed: None,
            saving,
        }
    }

    /// Saves what is not saved yet (`durable::Saving` says when), unless
    /// this tab only shows a session another tab saves; then takes in how
    /// far the saves got.
    fn save_if_needed(&mut self) {
        if self.read_only.is_none() {
            self.saving.save_if_needed(&self.session.borrow(), false);
        }
        self.saw_saves();
    }

    /// What the saves got to, as the page shows it.
    fn saw_saves(&mut self) {
        self.durable = self.saving.durable();
        self.save_error = self.saving.error();
    }

    /// Saves now, the clock too (the page is being hidden or closed).
    pub fn save_now(&self) {
        if self.read_only.is_none() {
            self.saving.save_if_needed(&self.session.borrow(), true);
        }
    }

    /// Moves whenever a save ends (the page then re-renders to show it).
    pub fn saves_version(&self) -> u64 {
        self.saving.version()
    }

    /// Whether a save is under way.
    pub fn saving_now(&self) -> bool {
        self.saving.in_flight()
    }

    /// A new session in the same cell (the tick loop holds the cell).
    fn replace(&mut self, s: Session, why: Option<String>) {
        *self.session.borrow_mut() = s;
        self.epoch += 1;
        self.generation = self.session.borrow().generation;
        self.saving.replaced();
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
            && self.durable == other.durable
            && self.read_only == other.read_only
            && self.notice == other.notice
            && self.try_command == other.try_command
            && self.lesson == other.lesson
            && self.lang == other.lang
            && self.focus_panels == other.focus_panels
    }
}

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

    type Saved = Rc<RefCell<Vec<crate::durable::SaveBatch>>>;

    /// A state whose saves end at once (refused while `fail` is set).
    fn state(fail: Rc<RefCell<bool>>, saved: Saved) -> Rc<AppState> {
        let saver: Saver = Rc::new(move |batch, done: crate::durable::Done| {
            if *fail.borrow() {
                return done(Err("QuotaExceededError".into()));
            }
            saved.borrow_mut().push(batch);
            done(Ok(()))
        });
        // A session restored from the store: nothing to save until it changes.
        Rc::new(AppState::new(Session::new(1), None, saver, true))
    }

    fn write(st: &Rc<AppState>, name: &str) {
        let body = format!(r#"{{"metadata":{{"name":"{name}"}}}}"#);
        st.session
            .borrow_mut()
            .request(Source::Console, Request::new("POST", "/api/v1/namespaces/default/configmaps").with_body(body));
    }

    #[test]
    fn every_write_is_saved_and_reads_are_not() {
        let (fail, saved) = (Rc::new(RefCell::new(false)), Saved::default());
        let st = state(fail, saved.clone());
        let st = st.reduce(Action::Changed);
        assert!(saved.borrow().is_empty(), "nothing new to save");
        write(&st, "a");
        let before = st.durable;
        let st = st.reduce(Action::Changed);
        assert_eq!(saved.borrow().len(), 1);
        assert!(saved.borrow()[0].entries[0].contains("\\\"a\\\""));
        assert_eq!(st.durable, before + 1, "the write is shown as saved");
        st.session.borrow_mut().request(Source::Console, Request::new("GET", "/api/v1/namespaces"));
        let _ = st.reduce(Action::Changed);
        assert_eq!(saved.borrow().len(), 1, "a read changes nothing to save");
    }

    #[test]
    fn a_refused_save_is_reported_then_retried_with_the_next_change() {
        let (fail, saved) = (Rc::new(RefCell::new(true)), Saved::default());
        let st = state(fail.clone(), saved.clone());
        write(&st, "a");
        let st = st.reduce(Action::Changed);
        assert_eq!(st.save_error.as_deref(), Some("QuotaExceededError"));
        *fail.borrow_mut() = false;
        write(&st, "b");
        let st = st.reduce(Action::SelectLog(1));
        assert_eq!(st.save_error, None);
        assert_eq!(saved.borrow().len(), 1);
        assert_eq!(saved.borrow()[0].entries.len(), 2, "the refused write and the new one");
        assert_eq!(st.selected_log, Some(1));
    }

    #[test]
    fn a_read_only_tab_saves_nothing() {
        let saved = Saved::default();
        let mut st = (*state(Rc::default(), saved.clone())).clone();
        st.read_only = Some("open in another tab".into());
        let st = Rc::new(st);
        write(&st, "a");
        let st = st.reduce(Action::Changed);
        st.save_now();
        assert!(saved.borrow().is_empty());
    }

    #[test]
    fn replacing_the_session_keeps_the_cell_clears_selection_and_saves() {
        let (fail, saved) = (Rc::new(RefCell::new(false)), Saved::default());
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
        assert!(saved.borrow()[0].fresh, "in place of the old one");
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
        let at_two = st.session.borrow().export_json().unwrap();
        let st = st.reduce(Action::ShowMe).reduce(Action::ResetStep);
        assert_eq!(st.session.borrow().export_json().unwrap(), at_two, "reset gives the step's start again");
        assert_eq!(verdict(&st), Verdict::Waiting(0));
        let fresh = lessons::open(&lesson, 2, 3).0.export_json().unwrap();
        assert_eq!(at_two, fresh, "the learner's cluster at step 3 is the permalink's");
        let st = st.reduce(Action::LessonStep(0)).reduce(Action::CloseLesson);
        assert!(st.lesson.is_none());
    }

    #[test]
    fn state_compares_equal_until_something_shown_changes() {
        let st = state(Rc::default(), Saved::default());
        let same = st.clone().reduce(Action::Changed);
        assert!(*same == *st);
        write(&st, "b");
        let moved = st.clone().reduce(Action::Changed);
        assert!(*moved != *st);
    }
}
