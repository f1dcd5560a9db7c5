//! The app shell: state, context, the tick loop and the layout.

use std::rc::Rc;

use yew::prelude::*;

use super::{
    chunked_list::ChunkedList, clock::ClockBar, command_bar::CommandBar, console::Console, fairness::Fairness,
    inspector::Inspector, lessons::Lessons, metrics_chart::MetricsChart,
};
use super::{
    open_object::OpenObject, owners::OwnersView, persist, request_log::RequestLog, rv_explorer::RvExplorer,
    timeline_view::TimelineView, view_settings::ViewSettings, watch_lanes::WatchLanes, welcome::Welcome,
    who_am_i::WhoAmI,
};
use crate::session::Session;

pub use crate::state::{Action, AppState, ObjectRef};

impl Reducible for AppState {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        AppState::reduce(self, action)
    }
}

/// The session saved last time, or a new one; then the state around it.
fn initial_state() -> AppState {
    let (session, notice) = match persist::load() {
        Ok(Some(s)) => (s, Some("Restored your session from this browser's storage.".to_string())),
        Ok(None) => (Session::new(1), None),
        Err(e) => (Session::new(1), Some(e)),
    };
    AppState::new(session, notice, Rc::new(persist::save))
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

#[function_component(App)]
pub fn app() -> Html {
    let state = use_reducer(initial_state);
    let ctx = Ctx(state.clone());
    // How the reader chose to see the page (text size, layout, theme).
    let view = use_state(super::view_settings::load);
    use_effect_with(*view, super::view_settings::apply);
    let on_view = {
        let view = view.clone();
        Callback::from(move |v| view.set(v))
    };
    super::embed::attach(state.session.clone());
    {
        let ctx = ctx.clone();
        use_effect_with((), move |_| {
            let leaving = ctx.0.clone();
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
            // Leaving the page saves it (the clock where it stands).
            let hide = web_sys::window().map(|w| {
                let state = leaving.clone();
                gloo::events::EventListener::new(&w, "pagehide", move |_| {
                    let _ = state.save_now();
                })
            });
            if let Some(body) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.body()) {
                let _ = body.set_attribute("data-ready", "1");
                // When the page became interactive (ms since navigation), for the benchmark.
                let _ = body.set_attribute("data-ready-at", &format!("{:.0}", super::real_now()));
            }
            move || {
                drop(interval);
                drop(hide);
            }
        });
    }
    let notice = state.notice.clone().map(|n| {
        let ctx = ctx.clone();
        html! { <div class="notice" id="notice">{ n }<button onclick={move |_| ctx.dispatch(Action::Notice(None))}>{ "dismiss" }</button></div> }
    });
    // The panels a lesson uses are highlighted; the others can be hidden.
    let lesson_panels: Vec<String> = state.lesson.as_ref().map(|r| r.lesson.panels.clone()).unwrap_or_default();
    let focus = state.focus_panels;
    let panel = |id: &str| {
        let used = lesson_panels.iter().any(|p| p == id);
        classes!(
            "panel",
            used.then_some("lesson-used"),
            (focus && !lesson_panels.is_empty() && !used).then_some("lesson-hidden")
        )
    };
    let save_error = state.save_error.clone().map(|e| html! { <div class="save-error" id="save-error">{ e }</div> });
    html! {
        <ContextProvider<Ctx> context={ctx}>
        <ContextProvider<crate::view::ViewPrefs> context={*view}>
            <header class="topbar">
                <h1>{ "kubesim" }<small>{ " the Kubernetes API, simulated in this tab" }</small></h1>
                <ClockBar />
                <WhoAmI />
                <ViewSettings prefs={*view} on_change={on_view} />
            </header>
            { for notice }
            { for save_error }
            <Lessons />
            { for state.lesson.is_none().then(|| html! { <Welcome /> }) }
            <main class="grid">
                <section class={panel("command-panel")} id="command-panel"><h2>{ "kubectl" }</h2><CommandBar /></section>
                <section class={panel("lanes-panel")} id="lanes-panel"><h2>{ "Watch lanes" }</h2><WatchLanes /></section>
                <section class={panel("inspector-panel")} id="inspector-panel"><h2>{ "Object inspector" }</h2><OpenObject /><Inspector /></section>
                <section class={panel("owners-panel")} id="owners-panel"><h2>{ "Owners" }</h2><OwnersView /></section>
                <section class={panel("console-panel")} id="console-panel"><h2>{ "Request console" }</h2><Console /></section>
                <section class={panel("log-panel")} id="log-panel"><h2>{ "Request log" }</h2><RequestLog /></section>
                <section class={panel("timeline-panel")} id="timeline-panel"><h2>{ "Revision timeline" }</h2><TimelineView /></section>
                <section class={panel("pager-panel")} id="pager-panel"><h2>{ "Chunked list" }</h2><ChunkedList /></section>
                <section class={panel("explorer-panel")} id="explorer-panel"><h2>{ "resourceVersion explorer" }</h2><RvExplorer /></section>
                <section class={panel("fairness-panel")} id="fairness-panel"><h2>{ "Fairness" }</h2><Fairness /></section>
                <section class={panel("metrics-panel")} id="metrics-panel"><h2>{ "Metrics" }</h2><MetricsChart /></section>
            </main>
        </ContextProvider<crate::view::ViewPrefs>>
        </ContextProvider<Ctx>>
    }
}
