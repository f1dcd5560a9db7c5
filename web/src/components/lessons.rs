//! The lesson picker and the lesson pane. Lessons are data under
//! `lessons/`, copied next to the page and fetched when the picker first
//! opens (or a permalink names one), so they cost the bundle nothing.

use std::rc::Rc;

use yew::prelude::*;

use super::app::Ctx;
use super::{fetch_text, select_value, CopyButton};
use crate::i18n::{fill, tr, words};
use crate::lessons::{self, Lang, Lesson, Permalink, Verdict, INDEX_FILE};
use crate::markdown::{markdown, Block, Inline};
use crate::state::Action;

/// The lessons, once fetched.
#[derive(Clone, PartialEq)]
enum Catalog {
    NotLoaded,
    Loading,
    Loaded(Vec<Rc<Lesson>>),
    Failed(String),
}

/// Every lesson the index lists, in its order.
/// `base`: where the files are (empty: next to the page; an element's own
/// directory otherwise).
async fn fetch_catalog(base: String) -> Result<Vec<Rc<Lesson>>, String> {
    let index = fetch_text(&format!("{base}lessons/{INDEX_FILE}")).await?;
    let mut out = Vec::new();
    for id in lessons::index_ids(&index)? {
        let text = fetch_text(&format!("{base}lessons/{id}.yaml")).await?;
        out.push(Rc::new(lessons::parse(&id, &text)?));
    }
    Ok(out)
}

fn location_query() -> String {
    web_sys::window().and_then(|w| w.location().search().ok()).unwrap_or_default()
}

/// Puts the lesson, step and seed in the address without a reload.
fn set_address(query: &str) {
    let Some(w) = web_sys::window() else { return };
    let path = w.location().pathname().unwrap_or_default();
    let url = if query.is_empty() { path } else { format!("{path}?{query}") };
    if let Ok(h) = w.history() {
        let _ = h.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url));
    }
}

pub(super) fn browser_lang() -> Lang {
    web_sys::window().and_then(|w| w.navigator().language()).map(|l| Lang::from_tag(&l)).unwrap_or_default()
}

fn inline(i: &Inline) -> Html {
    match i {
        Inline::Text(t) => html! { { t.clone() } },
        Inline::Code(t) => html! { <code>{ t.clone() }</code> },
        Inline::Strong(t) => html! { <strong>{ t.clone() }</strong> },
    }
}

/// Lesson prose as elements and text nodes (never HTML from a string).
fn prose(text: &str) -> Html {
    markdown(text)
        .iter()
        .map(|b| match b {
            Block::Paragraph(p) => html! { <p>{ for p.iter().map(inline) }</p> },
            Block::List(items) => {
                html! { <ul>{ for items.iter().map(|i| html! { <li>{ for i.iter().map(inline) }</li> }) }</ul> }
            }
            Block::Code(c) => html! { <pre class="mono">{ c.clone() }</pre> },
        })
        .collect()
}

#[function_component(Lessons)]
pub fn lessons_panel() -> Html {
    let ctx = use_context::<Ctx>().expect("context");
    let catalog = use_state(|| Catalog::NotLoaded);
    let picker = use_state(|| false);
    let lang = ctx.0.lang;
    let embed = ctx.0.embed.clone();
    let base = embed.as_ref().map(|e| e.base.clone()).unwrap_or_default();
    let load = {
        let catalog = catalog.clone();
        move |then: Option<Permalink>, ctx: Ctx| {
            catalog.set(Catalog::Loading);
            let catalog = catalog.clone();
            let base = base.clone();
            wasm_bindgen_futures::spawn_local(async move {
                match fetch_catalog(base).await {
                    Ok(all) => {
                        if let Some(p) = then {
                            if let Some(l) = all.iter().find(|l| Some(&l.id) == p.lesson.as_ref()) {
                                let step = p.step.min(l.steps.len() - 1);
                                ctx.dispatch(Action::OpenLesson(l.clone(), step, p.seed));
                            } else {
                                let id = p.lesson.unwrap_or_default();
                                ctx.dispatch(Action::Notice(Some(fill(tr("There is no lesson “{}”.", lang), &[&id]))));
                            }
                        }
                        catalog.set(Catalog::Loaded(all));
                    }
                    Err(e) => catalog.set(Catalog::Failed(e)),
                }
            });
        }
    };
    // The address: a permalink opens its lesson; `lang=` or the browser
    // chooses the language; `present=1` is the presenter's larger type.
    {
        let (ctx, load) = (ctx.clone(), load.clone());
        use_effect_with((), move |_| {
            // An element on someone's page: its attributes, never the address.
            if let Some(e) = ctx.0.embed.clone() {
                ctx.dispatch(Action::Language(e.lang.unwrap_or_else(browser_lang)));
                if let Some(text) = &e.lesson_text {
                    // Named by its file when it came by URL.
                    match lessons::parse(e.lesson.as_deref().unwrap_or("inline"), text) {
                        Ok(l) => ctx.dispatch(Action::OpenLesson(Rc::new(l), 0, e.seed)),
                        Err(err) => {
                            ctx.dispatch(Action::Notice(Some(fill(tr("The lesson did not load: {}", lang), &[&err]))))
                        }
                    }
                } else if let Some(id) = e.lesson.clone() {
                    // Only its own file, not the whole catalog.
                    let url = e.asset(&format!("lessons/{id}.yaml"));
                    wasm_bindgen_futures::spawn_local(async move {
                        match fetch_text(&url).await.and_then(|t| lessons::parse(&id, &t)) {
                            Ok(l) => ctx.dispatch(Action::OpenLesson(Rc::new(l), 0, e.seed)),
                            Err(err) => ctx
                                .dispatch(Action::Notice(Some(fill(tr("The lesson did not load: {}", lang), &[&err])))),
                        }
                    });
                }
                return;
            }
            let q = location_query();
            let p = Permalink::parse(&q);
            ctx.dispatch(Action::Language(p.lang.unwrap_or_else(browser_lang)));
            if crate::format::query_param(q.trim_start_matches('?'), "present").is_some_and(|v| v != "0") {
                if let Some(root) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.document_element()) {
                    let _ = root.set_attribute("data-present", "1");
                }
            }
            if p.lesson.is_some() {
                load(Some(p), ctx);
            }
        });
    }
    // The address follows the learner.
    {
        let at = ctx.0.lesson.as_ref().map(|r| (r.lesson.id.clone(), r.progress.step, r.seed));
        let embedded = embed.is_some();
        use_effect_with((at, lang), move |(at, lang)| {
            if embedded {
                return;
            }
            let q = location_query();
            let at = at.as_ref().map(|(id, step, seed)| (id.as_str(), *step, *seed));
            let next = Permalink::query(&q, at, *lang);
            if next != q.trim_start_matches('?') {
                set_address(&next);
            }
        });
    }
    let toggle = {
        let (picker, catalog, ctx, load) = (picker.clone(), catalog.clone(), ctx.clone(), load.clone());
        Callback::from(move |_| {
            if *catalog == Catalog::NotLoaded || matches!(*catalog, Catalog::Failed(_)) {
                load(None, ctx.clone());
            }
            picker.set(!*picker);
        })
    };
    let on_lang = {
        let ctx = ctx.clone();
        Callback::from(move |e: Event| ctx.dispatch(Action::Language(Lang::from_tag(&select_value(&e)))))
    };
    let bar = html! {
        <div class="lesson-bar" id="lesson-bar">
            { for embed.is_none().then(|| html! {
                <button id="lessons-button" aria-expanded={(*picker).to_string()} onclick={toggle}>{ words("lessons", lang) }</button>
            }) }
            <label>{ words("language", lang) }{ " " }
                <select id="lesson-lang" onchange={on_lang}>
                    <option value="en" selected={lang == Lang::En}>{ "English" }</option>
                    <option value="zh" selected={lang == Lang::Zh}>{ "中文" }</option>
                </select>
            </label>
        </div>
    };
    let picker_view = (*picker).then(|| {
        let body = match &*catalog {
            Catalog::NotLoaded | Catalog::Loading => html! { <p class="muted">{ words("loading", lang) }</p> },
            Catalog::Failed(e) => html! { <p class="error">{ format!("{}: {e}", words("load-failed", lang)) }</p> },
            Catalog::Loaded(all) => html! {
                <ol class="lesson-list">{ for all.iter().map(|l| {
                    let (ctx, picker, l2) = (ctx.clone(), picker.clone(), l.clone());
                    let onclick = Callback::from(move |_| {
                        picker.set(false);
                        ctx.dispatch(Action::OpenLesson(l2.clone(), 0, lessons::DEFAULT_SEED));
                    });
                    html! {
                        <li>
                            <button class="lesson-open" data-lesson={l.id.clone()} {onclick}>{ l.title.get(lang).to_string() }</button>
                            <div class="muted">{ l.summary.get(lang).to_string() }</div>
                        </li>
                    }
                }) }</ol>
            },
        };
        html! {
            <section class="lesson-picker" id="lesson-picker" aria-label={words("pick", lang)}>
                <h2>{ words("pick", lang) }</h2>
                <p class="muted">{ words("pick-note", lang) }</p>
                { body }
            </section>
        }
    });
    let pane = ctx.0.lesson.clone().map(|run| {
        let lesson = &run.lesson;
        let n = lesson.steps.len();
        let i = run.progress.step;
        let step = &lesson.steps[i];
        let caps = &run.progress.captures;
        let verdict = {
            let s = ctx.0.session.borrow();
            lessons::evaluate(step, &s, &run.progress.start, caps)
        };
        let passed = matches!(verdict, Verdict::Passed(_));
        let go = |to: usize| {
            let ctx = ctx.clone();
            Callback::from(move |_| ctx.dispatch(Action::LessonStep(to)))
        };
        let act = |make: fn() -> Action| {
            let ctx = ctx.clone();
            Callback::from(move |_| ctx.dispatch(make()))
        };
        let on_focus = {
            let ctx = ctx.clone();
            Callback::from(move |e: Event| ctx.dispatch(Action::FocusPanels(super::checked(&e))))
        };
        let tries = step.actions.iter().map(|a| {
            let text = a.describe(caps);
            html! { <li><code class="mono">{ text.clone() }</code>{ " " }<CopyButton text={text} label={tr("copy", lang)} /></li> }
        });
        let check = if passed {
            html! { <div class="lesson-check passed" id="lesson-check" role="status">{ "✓ " }{ words("done", lang) }</div> }
        } else {
            let hint = lessons::substitute(step.hint.get(lang), caps);
            html! {
                <div class="lesson-check waiting" id="lesson-check" role="status">
                    { words("waiting", lang) }{ " " }{ prose(&hint) }
                </div>
            }
        };
        let shown = (!run.shown.is_empty()).then(|| html! {
            <div class="lesson-shown" id="lesson-shown">
                <div class="muted">{ words("shown", lang) }</div>
                { for run.shown.iter().map(|r| html! { <div><code class="mono">{ r.what.clone() }</code><pre class="mono" tabindex="0">{ r.output.clone() }</pre></div> }) }
            </div>
        });
        let last = i + 1 == n;
        html! {
            <section class="lesson-pane" id="lesson-pane" data-lesson={lesson.id.clone()} data-step={(i + 1).to_string()}
                lang={lang.tag()} aria-label={lesson.title.get(lang).to_string()}>
                <div class="lesson-head">
                    <h2>{ lesson.title.get(lang).to_string() }</h2>
                    <span class="lesson-progress">{ format!("{} {} {} {}: ", words("step", lang), i + 1, words("of", lang), n) }<strong id="lesson-step-title">{ step.title.get(lang).to_string() }</strong></span>
                    <label class="lesson-focus-toggle"><input type="checkbox" id="lesson-focus" checked={ctx.0.focus_panels} onchange={on_focus} />{ words("only-panels", lang) }</label>
                    <button id="lesson-close" onclick={act(|| Action::CloseLesson)}>{ words("close", lang) }</button>
                </div>
                <div class="lesson-prose" id="lesson-prose">{ prose(&lessons::substitute(step.prose.get(lang), caps)) }</div>
                <div class="lesson-try"><span class="muted">{ words("try", lang) }</span><ul>{ for tries }</ul></div>
                { check }
                <div class="lesson-buttons">
                    <button id="lesson-prev" disabled={i == 0} onclick={go(i.saturating_sub(1))}>{ words("previous", lang) }</button>
                    <button id="lesson-show-me" onclick={act(|| Action::ShowMe)}>{ words("show-me", lang) }</button>
                    <button id="lesson-reset" onclick={act(|| Action::ResetStep)}>{ words("reset", lang) }</button>
                    <button id="lesson-next" class="primary" disabled={!passed || last} onclick={go(i + 1)}>{ words("next", lang) }</button>
                    { for embed.is_none().then(|| html! {
                        <a id="lesson-link" href={web_sys::window().and_then(|w| w.location().href().ok()).unwrap_or_default()}>{ words("permalink", lang) }</a>
                    }) }
                    { for (passed && last).then(|| html! { <span class="lesson-finished" id="lesson-finished">{ words("finished", lang) }</span> }) }
                </div>
                { for shown }
            </section>
        }
    });
    // An element shows the language switch only with a lesson.
    let bar = (embed.is_none() || ctx.0.lesson.is_some()).then_some(bar);
    html! {
        <>
            { for bar }
            { for picker_view }
            { for pane }
        </>
    }
}
