//! The chunked list view: a list read page by page.

use yew::prelude::*;

use super::app::Ctx;
use super::input_value;
use crate::i18n::{fill, tr};
use crate::pager::Pager;

#[function_component(ChunkedList)]
pub fn chunked_list() -> Html {
    let ctx = use_context::<Ctx>().expect("context");
    let lang = ctx.0.lang;
    let path = use_state(|| "/api/v1/configmaps".to_string());
    let limit = use_state(|| "2".to_string());
    let pager = use_state(Pager::default);
    let first = {
        let (ctx, path, limit, pager) = (ctx.clone(), path.clone(), limit.clone(), pager.clone());
        Callback::from(move |_| {
            let mut p = Pager::new(&path, limit.parse().unwrap_or(2), "");
            ctx.run(|s| p.step(s));
            pager.set(p);
        })
    };
    let next = {
        let (ctx, pager) = (ctx.clone(), pager.clone());
        Callback::from(move |_| {
            let mut p = (*pager).clone();
            ctx.run(|s| p.step(s));
            pager.set(p);
        })
    };
    let pages = pager.pages.iter().enumerate().map(|(i, p)| {
        html! {
            <div class={if p.error.is_empty() { "page" } else { "page bad" }}>
                <div><b>{ fill(tr("page {} ", lang), &[&(i + 1)]) }</b>{ fill(tr("HTTP {} · resourceVersion {} · {} items · remainingItemCount {}", lang), &[&p.status, &p.resource_version, &p.names.len(), &p.remaining_item_count.map(|n| n.to_string()).unwrap_or_else(|| "—".into())]) }</div>
                if !p.error.is_empty() { <div class="error">{ p.error.clone() }</div> }
                <div class="mono small">{ p.names.join(", ") }</div>
                if !p.continue_token.is_empty() {
                    <div class="mono small token">{ fill(tr("continue: {}", lang), &[&p.continue_token]) }</div>
                    <div class="mono small">{ fill(tr("decoded: {}", lang), &[&p.decoded]) }</div>
                }
            </div>
        }
    });
    html! {
        <div class="pager">
            <div class="row">
                <label for="pager-path" class="sr-only">{ tr("collection to list", lang) }</label>
                <input id="pager-path" class="grow mono" value={(*path).clone()} oninput={{ let p = path.clone(); move |e: InputEvent| p.set(input_value(&e)) }}
                    onkeydown={super::enter_clicks("pager-first")} />
                <label>{ tr("limit ", lang) }<input id="pager-limit" class="narrow" type="number" min="1" value={(*limit).clone()} oninput={{ let l = limit.clone(); move |e: InputEvent| l.set(input_value(&e)) }} /></label>
                <button id="pager-first" onclick={first}>{ tr("first page", lang) }</button>
                <button id="pager-next" onclick={next} disabled={!pager.has_next()}>{ tr("next page", lang) }</button>
            </div>
            if pager.pages.is_empty() {
                <div class="muted empty-hint" id="pager-empty">{ tr("No page read yet. “first page” lists the collection `limit` items at a time: each page shows its items, its continue token and remainingItemCount, and “next page” sends the token back for the next one, all from the first page’s snapshot.", lang) }</div>
            }
            <div id="pages">{ for pages }</div>
        </div>
    }
}
