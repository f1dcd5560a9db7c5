//! Clock controls (pause, advance, compact) with the history window in
//! view, and the session's own controls: export, import, reset.

use std::cell::RefCell;
use std::rc::Rc;

use wasm_bindgen::JsCast;
use yew::prelude::*;

use super::app::{Action, Ctx};
use crate::i18n::{fill, tr};
use crate::session::Session;

#[function_component(ClockBar)]
pub fn clock_bar() -> Html {
    let ctx = use_context::<Ctx>().expect("context");
    let lang = ctx.0.lang;
    let reader = use_mut_ref(|| None::<gloo::file::callbacks::FileReader>);
    let (now, rev, compacted, window, paused, controllers_paused, journal_unread) = {
        let s = ctx.0.session.borrow();
        (
            s.server.now().rfc3339(),
            s.server.revision().0,
            s.server.compacted().0,
            s.server.config().history_window_ms / 1000,
            s.clock.paused,
            s.controllers.is_paused(),
            s.journal_base() > 0,
        )
    };
    let pause_controllers = {
        let ctx = ctx.clone();
        Callback::from(move |_| ctx.run(|s| s.set_controllers_paused(!controllers_paused)))
    };
    let step_controller = {
        let ctx = ctx.clone();
        Callback::from(move |_| ctx.run(|s| s.step_controllers()))
    };
    let pause = {
        let ctx = ctx.clone();
        Callback::from(move |_| ctx.run(|s| s.set_paused(!paused)))
    };
    let advance = |d: &'static str| {
        let ctx = ctx.clone();
        Callback::from(move |_| {
            ctx.run(|s| s.advance(d));
        })
    };
    let compact = {
        let ctx = ctx.clone();
        Callback::from(move |_| {
            ctx.run(|s| s.compact_now());
        })
    };
    let export = {
        let ctx = ctx.clone();
        Callback::from(move |_| {
            let text = ctx.0.session.borrow().export_json();
            match text {
                Ok(text) => download("kubesim-session.json", &text),
                Err(e) => ctx.dispatch(Action::Notice(Some(fill(tr("Export failed: {}", lang), &[&e])))),
            }
        })
    };
    let import = {
        let ctx = ctx.clone();
        let reader: Rc<RefCell<Option<gloo::file::callbacks::FileReader>>> = reader.clone();
        Callback::from(move |e: Event| {
            let Some(input) = e.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()) else { return };
            let Some(file) = input.files().and_then(|f| f.get(0)) else { return };
            input.set_value("");
            let ctx = ctx.clone();
            let task = gloo::file::callbacks::read_as_text(&gloo::file::File::from(file), move |text| match text {
                Ok(text) => match Session::import_json(&text) {
                    Ok(s) => ctx
                        .dispatch(Action::Replace(Box::new(s), tr("Imported the session from the file.", lang).into())),
                    Err(e) => ctx.dispatch(Action::Notice(Some(fill(tr("Import refused: {}", lang), &[&e])))),
                },
                Err(e) => ctx.dispatch(Action::Notice(Some(fill(tr("Import failed: {}", lang), &[&e])))),
            });
            *reader.borrow_mut() = Some(task);
        })
    };
    let reset = {
        let ctx = ctx.clone();
        Callback::from(move |_| {
            // Everything made so far goes: ask first.
            let sure = web_sys::window()
                .and_then(|w| {
                    w.confirm_with_message(tr(
                        "Start a new session? This cluster and its history are discarded (export first to keep them).",
                        lang,
                    ))
                    .ok()
                })
                .unwrap_or(false);
            if !sure {
                return;
            }
            ctx.dispatch(Action::Replace(Box::new(Session::new(1)), tr("Started a new session.", lang).into()));
        })
    };
    html! {
        <div class="clock" id="clock">
            <span class="clock-now" title={tr("simulated time", lang)}>{ now }</span>
            <span class="pill" id="head-rv">{ fill(tr("revision {}", lang), &[&rev]) }</span>
            <span class="pill" id="compacted-rv">{ fill(tr("compacted ≤ {}", lang), &[&compacted]) }</span>
            <span class="pill" title={tr("history older than this is compacted", lang)}>{ fill(tr("history window {}m{}s", lang), &[&(window / 60), &(window % 60)]) }</span>
            <button id="pause" onclick={pause}>{ if paused { tr("resume clock", lang) } else { tr("pause clock", lang) } }</button>
            <button id="advance-1m" onclick={advance("1m")}>{ tr("+1 min", lang) }</button>
            <button id="advance-5m" onclick={advance("5m")}>{ tr("+5 min", lang) }</button>
            <button id="compact" onclick={compact}>{ tr("compact now", lang) }</button>
            <span class="sep" />
            <button id="pause-controllers" title={tr("the namespace controller and the garbage collector", lang)} onclick={pause_controllers}>
                { if controllers_paused { tr("resume controllers", lang) } else { tr("pause controllers", lang) } }
            </button>
            <button id="step-controller" disabled={!controllers_paused} title={tr("one reconcile of the next controller", lang)} onclick={step_controller}>{ tr("step", lang) }</button>
            <span class="sep" />
            <button id="export" disabled={journal_unread} title={if journal_unread { tr("reading the saved journal…", lang) } else { "" }} onclick={export}>{ tr("export", lang) }</button>
            <label class="file-button">{ tr("import", lang) }<input id="import" type="file" accept=".json,application/json" onchange={import} /></label>
            <button id="reset" onclick={reset}>{ tr("reset", lang) }</button>
        </div>
    }
}

/// Offers text as a file download.
fn download(name: &str, text: &str) {
    let parts = js_sys::Array::of1(&text.into());
    let opts = web_sys::BlobPropertyBag::new();
    opts.set_type("application/json");
    let Ok(blob) = web_sys::Blob::new_with_str_sequence_and_options(&parts, &opts) else { return };
    let Ok(url) = web_sys::Url::create_object_url_with_blob(&blob) else { return };
    if let Some(doc) = web_sys::window().and_then(|w| w.document()) {
        if let Ok(a) = doc.create_element("a") {
            let a: web_sys::HtmlAnchorElement = a.unchecked_into();
            a.set_href(&url);
            a.set_download(name);
            a.click();
        }
    }
    let _ = web_sys::Url::revoke_object_url(&url);
}
