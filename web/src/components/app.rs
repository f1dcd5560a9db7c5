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
use crate::embedding::EmbedOptions;
use crate::i18n::tr;
use crate::lessons::Lang;
use crate::session::Session;

pub use crate::state::{Action, AppState, ObjectRef};

impl Reducible for AppState {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        AppState::reduce(self, action)
    }
}

/// The session saved last time, or a new one; then the state around it.
/// An element's cluster is its own (or shared by name) and never saved.
fn initial_state(embed: Option<Rc<EmbedOptions>>, boot: Option<BootCell>) -> AppState {
    if let Some(e) = embed {
        let (session, notice) = super::element::cluster(&e);
        let saving = {
            let s = session.borrow();
            crate::durable::Saving::new(crate::durable::nowhere(), &s, false)
        };
        let mut st = AppState::around(session, notice, saving);
        st.embed = Some(e);
        return st;
    }
    let Some(boot) = boot.and_then(|b| b.0.borrow_mut().take()) else {
        return AppState::new(Session::deferred(1), None, crate::durable::nowhere(), false);
    };
    let mut st = AppState::new(boot.session, boot.notice, boot.saver, boot.stored);
    st.read_only = boot.read_only;
    if let Some(db) = boot.pending_journal {
        persist::attach_journal_later(db, st.session.clone());
    }
    st
}

/// How long one slice of the starter cluster's build may run before the
/// page takes input and paints again (ms; a request and its controllers'
/// settling are not cut).
const STARTER_SLICE_MS: f64 = 10.0;

/// Builds a fresh session's starter cluster in short slices, showing
/// each (its requests go to the log as the page's setup), then calls
/// `done`. Slices and the renders after them each run in a task of their
/// own, so input waits for one of them at most. A
/// session replaced meanwhile (a reset, a lesson) has nothing left to build.
fn build_starter(ctx: Ctx, done: impl FnOnce() + 'static) {
    wasm_bindgen_futures::spawn_local(async move {
        loop {
            // (Each slice in a task of its own, the first too: the page's
            // first render ends its task, and input waits for no slice.)
            next_task().await;
            let more = match ctx.0.session.try_borrow_mut() {
                Ok(mut s) => {
                    let begun = super::real_now();
                    let mut more = true;
                    while more && super::real_now() - begun < STARTER_SLICE_MS {
                        more = s.starter_step();
                    }
                    s.generation += 1;
                    more
                }
                // (Busy elsewhere: the next slice.)
                Err(_) => true,
            };
            // (Shown in a task of its own too.)
            next_task().await;
            ctx.dispatch(Action::Changed);
            if !more {
                break;
            }
        }
        done();
    });
}

/// Waits for a task of its own (a zero-delay timer): input and painting
/// come first.
async fn next_task() {
    let promise = js_sys::Promise::new(&mut |resolve, _| match web_sys::window() {
        Some(w) => drop(w.set_timeout_with_callback(&resolve)),
        None => drop(resolve.call0(&wasm_bindgen::JsValue::NULL)),
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
}

/// What the page starts from (read from the browser's database before the
/// app is mounted), taken once.
#[derive(Clone)]
pub struct BootCell(Rc<std::cell::RefCell<Option<persist::Boot>>>);

impl BootCell {
    pub fn new(boot: persist::Boot) -> BootCell {
        BootCell(Rc::new(std::cell::RefCell::new(Some(boot))))
    }
}

impl PartialEq for BootCell {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
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

#[derive(Properties, PartialEq, Default)]
pub struct AppProps {
    /// Set when mounted as a `<kube-sim>` element.
    #[prop_or_default]
    pub embed: Option<Rc<EmbedOptions>>,
    /// The page's saved session, opened before mounting.
    #[prop_or_default]
    pub boot: Option<BootCell>,
}

#[function_component(App)]
pub fn app(props: &AppProps) -> Html {
    let state = use_reducer(|| initial_state(props.embed.clone(), props.boot.clone()));
    let embedded = state.embed.is_some();
    let ctx = Ctx(state.clone());
    let lang = state.lang;
    // How the reader chose to see the page (text size, layout, theme).
    let view = use_state(super::view_settings::load);
    // (Not on someone else's page: an element follows the system's theme.)
    let is_element = props.embed.is_some();
    use_effect_with(*view, move |v| {
        if !is_element {
            super::view_settings::apply(v)
        }
    });
    // The page's language, for screen readers and fonts (an element's
    // sits in someone else's page, whose language is theirs).
    use_effect_with(lang, move |lang| {
        if !is_element {
            if let Some(root) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.document_element()) {
                let _ = root.set_attribute("lang", lang.tag());
            }
        }
    });
    let on_view = {
        let view = view.clone();
        Callback::from(move |v| view.set(v))
    };
    if !embedded {
        super::embed::attach(state.session.clone());
    }
    {
        let ctx = ctx.clone();
        use_effect_with((), move |_| {
            let leaving = ctx.0.clone();
            let builder = ctx.clone();
            // The generation this app last showed: elements sharing a
            // cluster each notice what the others changed; and the saves
            // ended since.
            let shown = std::cell::Cell::new(0u64);
            let saves_shown = std::cell::Cell::new(0u64);
            let saves = leaving.clone();
            let interval = gloo::timers::callback::Interval::new(100, move || {
                let now = {
                    let Ok(mut s) = ctx.0.session.try_borrow_mut() else { return };
                    s.tick(super::real_now());
                    s.generation
                };
                let saved = saves.saves_version();
                if now != shown.replace(now) || saved != saves_shown.replace(saved) {
                    ctx.dispatch(Action::Changed);
                }
            });
            if leaving.embed.is_some() {
                return Box::new(move || drop(interval)) as Box<dyn FnOnce()>;
            }
            // Leaving the page saves it (the clock where it stands).
            let hide = web_sys::window().map(|w| {
                let state = leaving.clone();
                gloo::events::EventListener::new(&w, "pagehide", move |_| {
                    if state.read_only.is_none() {
                        persist::remember_clock(&state.session.borrow());
                    }
                    state.save_now()
                })
            });
            if let Some(body) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.body()) {
                // When the page became interactive (ms since navigation),
                // for the benchmark: shown, and answering input.
                super::mark("kubesim:interactive");
                let _ = body.set_attribute("data-interactive-at", &format!("{:.0}", super::real_now()));
                // Ready once a fresh session's starter cluster is built too
                // (what the tests wait for).
                let ready = move || {
                    let _ = body.set_attribute("data-ready", "1");
                    super::mark("kubesim:ready");
                    let _ = body.set_attribute("data-ready-at", &format!("{:.0}", super::real_now()));
                };
                if builder.0.session.borrow().starter_pending() {
                    build_starter(builder, ready);
                } else {
                    ready();
                }
            }
            Box::new(move || {
                drop(interval);
                drop(hide);
            })
        });
    }
    let notice = state.notice.clone().map(|n| {
        let ctx = ctx.clone();
        html! { <div class="notice" id="notice">{ n }<button onclick={move |_| ctx.dispatch(Action::Notice(None))}>{ tr("dismiss", lang) }</button></div> }
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
    let read_only = state.read_only.clone().map(|why| {
        let separate = Callback::from(|_| {
            if let (Some(url), Some(w)) = (persist::separate_session_url(), web_sys::window()) {
                let _ = w.location().set_href(&url);
            }
        });
        html! {
            <div class="save-error" id="read-only" role="status">
                { why }
                <button id="separate-session" onclick={separate}>{ tr("open a separate session here", lang) }</button>
            </div>
        }
    });
    let save_state = save_state(&state, lang);
    if let Some(e) = &state.embed {
        let shown = e.shown_panels(&lesson_panels);
        let section = |id: &'static str| {
            let (title, body) = panel_body(id, lang);
            html! { <section class={panel(id)} id={id}><h2>{ title }</h2>{ body }</section> }
        };
        return html! {
            <ContextProvider<Ctx> context={ctx}>
            <ContextProvider<crate::view::ViewPrefs> context={*view}>
                <div class="topbar embed-bar"><ClockBar /></div>
                { for notice }
                <Lessons />
                <main class="grid embed-grid">{ for shown.into_iter().map(section) }</main>
            </ContextProvider<crate::view::ViewPrefs>>
            </ContextProvider<Ctx>>
        };
    }
    html! {
        <ContextProvider<Ctx> context={ctx}>
        <ContextProvider<crate::view::ViewPrefs> context={*view}>
            <header class="topbar">
                <h1>{ "kubesim" }<small>{ tr(" the Kubernetes API, simulated in this tab", lang) }</small></h1>
                <ClockBar />
                { save_state }
                <WhoAmI />
                <ViewSettings prefs={*view} on_change={on_view} />
            </header>
            { for notice }
            { for read_only }
            { for save_error }
            <Lessons />
            { for state.lesson.is_none().then(|| html! { <Welcome /> }) }
            <main class="grid">
                { for crate::embedding::PANEL_NAMES.iter().map(|(_, id)| {
                    let (title, body) = panel_body(id, lang);
                    html! { <section class={panel(id)} id={*id}><h2>{ title }</h2>{ body }</section> }
                }) }
            </main>
        </ContextProvider<crate::view::ViewPrefs>>
        </ContextProvider<Ctx>>
    }
}

/// A panel's heading and content, by its id (`embedding::PANEL_NAMES`).
fn panel_body(id: &str, lang: Lang) -> (&'static str, Html) {
    match id {
        "command-panel" => ("kubectl", html! { <CommandBar /> }),
        "lanes-panel" => (tr("Watch lanes", lang), html! { <WatchLanes /> }),
        "inspector-panel" => (tr("Object inspector", lang), html! { <><OpenObject /><Inspector /></> }),
        "owners-panel" => (tr("Owners", lang), html! { <OwnersView /> }),
        "console-panel" => (tr("Request console", lang), html! { <Console /> }),
        "log-panel" => (tr("Request log", lang), html! { <RequestLog /> }),
        "timeline-panel" => (tr("Revision timeline", lang), html! { <TimelineView /> }),
        "pager-panel" => (tr("Chunked list", lang), html! { <ChunkedList /> }),
        "explorer-panel" => (tr("resourceVersion explorer", lang), html! { <RvExplorer /> }),
        "fairness-panel" => (tr("Fairness", lang), html! { <Fairness /> }),
        "metrics-panel" => (tr("Metrics", lang), html! { <MetricsChart /> }),
        _ => ("", html! {}),
    }
}

/// Whether the page's writes are saved: all of them, some still being
/// written (or a new session's starter cluster still being built), or
/// none (this tab saves nothing).
fn save_state(state: &AppState, lang: Lang) -> Html {
    let s = state.session.borrow();
    let waiting = s.journal_len().saturating_sub(state.durable);
    let (class, text) = if state.read_only.is_some() {
        ("pill save-state not-saved", tr("not saved in this tab", lang).to_string())
    } else if state.save_error.is_some() {
        ("pill save-state not-saved", tr("not saved", lang).to_string())
    } else if s.starter_pending() {
        // (Saved once it is built.)
        ("pill save-state saving", tr("building the starter cluster…", lang).to_string())
    } else if waiting > 0 || state.saving_now() {
        ("pill save-state saving", crate::i18n::fill(tr("saving {} writes…", lang), &[&waiting]))
    } else {
        ("pill save-state saved", tr("saved in this browser", lang).to_string())
    };
    html! { <span {class} id="save-state" aria-live="polite">{ text }</span> }
}
