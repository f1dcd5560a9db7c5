//! The app shell: state, context, the tick loop and the layout.

use std::cell::RefCell;
use std::rc::Rc;

use yew::prelude::*;

use super::{
    chunked_list::ChunkedList, clock::ClockBar, command_bar::CommandBar, console::Console, inspector::Inspector,
};
use super::{persist, request_log::RequestLog, timeline_view::TimelineView, watch_lanes::WatchLanes};
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
    saved_journal: usize,
    /// Bumped when the session is replaced (import, reset).
    pub epoch: u64,
}

pub enum Action {
    /// The session changed; re-render.
    Changed,
    SelectLog(u64),
    Inspect(ObjectRef),
    Replace(Box<Session>, String),
    Notice(Option<String>),
}

impl AppState {
    fn new() -> AppState {
        let (mut session, notice) = match persist::load() {
            Ok(Some(s)) => (s, Some("Restored your session from this browser's storage.".to_string())),
            Ok(None) => (Session::new(1), None),
            Err(e) => (Session::new(1), Some(e)),
        };
        let discovery = Rc::new(discover(&mut session, Source::Setup));
        let saved_journal = session.journal_len();
        AppState {
            session: Rc::new(RefCell::new(session)),
            generation: 0,
            discovery,
            selected_log: None,
            inspect: None,
            save_error: None,
            notice,
            saved_journal,
            epoch: 0,
        }
    }

    /// Saves when the journal grew: every acknowledged write is kept.
    fn save_if_needed(&mut self) {
        let (len, text) = {
            let s = self.session.borrow();
            if s.journal_len() == self.saved_journal {
                return;
            }
            (s.journal_len(), s.export_json())
        };
        match persist::save(&text) {
            Ok(()) => {
                self.saved_journal = len;
                self.save_error = None;
            }
            Err(e) => self.save_error = Some(e),
        }
    }
}

impl Reducible for AppState {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let mut next = AppState {
            session: self.session.clone(),
            generation: self.session.borrow().generation,
            discovery: self.discovery.clone(),
            selected_log: self.selected_log,
            inspect: self.inspect.clone(),
            save_error: self.save_error.clone(),
            notice: self.notice.clone(),
            saved_journal: self.saved_journal,
            epoch: self.epoch,
        };
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
        }
        next.save_if_needed();
        Rc::new(next)
    }
}

/// What components get from context.
#[derive(Clone, PartialEq)]
pub struct Ctx(pub UseReducerHandle<AppState>);

impl Ctx {
    /// Runs `f` on the session, then re-renders (and saves a new write).
    pub fn run<R>(&self, f: impl FnOnce(&mut Session) -> R) -> R {
        let r = {
            let mut s = self.0.session.borrow_mut();
            let r = f(&mut s);
            // Whatever f did, the view may show it (consumers of the
            // context re-render when the state compares unequal).
            s.generation += 1;
            r
        };
        self.0.dispatch(Action::Changed);
        r
    }

    pub fn dispatch(&self, a: Action) {
        self.0.dispatch(a);
    }
}

impl PartialEq for AppState {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.session, &other.session)
            && self.generation == other.generation
            && self.epoch == other.epoch
            && self.selected_log == other.selected_log
            && self.inspect == other.inspect
            && self.save_error == other.save_error
            && self.notice == other.notice
    }
}

#[function_component(App)]
pub fn app() -> Html {
    let state = use_reducer(AppState::new);
    let ctx = Ctx(state.clone());
    super::embed::attach(state.session.clone());
    {
        let ctx = ctx.clone();
        use_effect_with((), move |_| {
            let interval = gloo::timers::callback::Interval::new(100, move || {
                let changed = {
                    let mut s = ctx.0.session.borrow_mut();
                    let before = s.generation;
                    s.tick(super::real_now());
                    s.generation != before
                };
                if changed {
                    ctx.dispatch(Action::Changed);
                }
            });
            if let Some(body) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.body()) {
                let _ = body.set_attribute("data-ready", "1");
                // When the page became interactive (ms since navigation), for the benchmark.
                let _ = body.set_attribute("data-ready-at", &format!("{:.0}", super::real_now()));
            }
            move || drop(interval)
        });
    }
    let notice = state.notice.clone().map(|n| {
        let ctx = ctx.clone();
        html! { <div class="notice" id="notice">{ n }<button onclick={move |_| ctx.dispatch(Action::Notice(None))}>{ "dismiss" }</button></div> }
    });
    let save_error = state.save_error.clone().map(|e| html! { <div class="save-error" id="save-error">{ e }</div> });
    html! {
        <ContextProvider<Ctx> context={ctx}>
            <header class="topbar">
                <h1>{ "kubesim" }<small>{ " the Kubernetes API, simulated in this tab" }</small></h1>
                <ClockBar />
            </header>
            { for notice }
            { for save_error }
            <main class="grid">
                <section class="panel" id="command-panel"><h2>{ "kubectl" }</h2><CommandBar /></section>
                <section class="panel" id="lanes-panel"><h2>{ "Watch lanes" }</h2><WatchLanes /></section>
                <section class="panel" id="inspector-panel"><h2>{ "Object inspector" }</h2><Inspector /></section>
                <section class="panel" id="console-panel"><h2>{ "Request console" }</h2><Console /></section>
                <section class="panel" id="log-panel"><h2>{ "Request log" }</h2><RequestLog /></section>
                <section class="panel" id="timeline-panel"><h2>{ "Revision timeline" }</h2><TimelineView /></section>
                <section class="panel" id="pager-panel"><h2>{ "Chunked list" }</h2><ChunkedList /></section>
            </main>
        </ContextProvider<Ctx>>
    }
}
