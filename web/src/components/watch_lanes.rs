//! Watch lanes side by side: open a watch with any parameters and see its
//! events as they arrive, with the lane's state and a resume button.

use yew::prelude::*;

use super::app::{Action, Ctx, ObjectRef};
use super::{checked, enter_clicks, input_value, VirtualList};
use crate::i18n::{fill, tr};
use crate::lanes::{Lane, LaneState, RowKind};
use crate::lessons::Lang;

#[function_component(WatchLanes)]
pub fn watch_lanes() -> Html {
    let ctx = use_context::<Ctx>().expect("context");
    let lang = ctx.0.lang;
    let path = use_state(|| "/api/v1/namespaces/default/configmaps".to_string());
    let query = use_state(|| "allowWatchBookmarks=true".to_string());
    let list_first = use_state(|| true);
    let open = {
        let (ctx, path, query, list_first) = (ctx.clone(), path.clone(), query.clone(), list_first.clone());
        Callback::from(move |_| {
            ctx.run(|s| s.open_lane(&path, &query, *list_first));
        })
    };
    let ids: Vec<u64> = ctx.0.session.borrow().lanes.iter().map(|l| l.id).collect();
    let none_open = ids.is_empty();
    let lanes = ids.into_iter().map(|id| html! { <LaneView key={id} {id} /> });
    html! {
        <div class="lanes">
            <div class="row">
                <label for="lane-path" class="sr-only">{ tr("collection to watch", lang) }</label>
                <input id="lane-path" class="grow mono" value={(*path).clone()} oninput={{ let p = path.clone(); move |e: InputEvent| p.set(input_value(&e)) }}
                    onkeydown={enter_clicks("lane-open")} />
                <label for="lane-query" class="sr-only">{ tr("watch query parameters", lang) }</label>
                <input id="lane-query" class="mono" value={(*query).clone()} placeholder="labelSelector=…&timeoutSeconds=…"
                    oninput={{ let q = query.clone(); move |e: InputEvent| q.set(input_value(&e)) }} onkeydown={enter_clicks("lane-open")} />
                <label class="flag"><input type="checkbox" id="lane-list-first" checked={*list_first} onchange={{ let l = list_first.clone(); move |e: Event| l.set(checked(&e)) }} />{ tr("list first", lang) }</label>
                <button id="lane-open" onclick={open}>{ tr("open watch", lang) }</button>
            </div>
            if none_open {
                <div class="muted empty-hint" id="lanes-empty">{ tr("No watch is open. Give a collection’s path above and press “open watch”: a lane shows what the watch delivers (with “list first”, the list and then a watch from its resourceVersion) — every ADDED, MODIFIED, DELETED and BOOKMARK event as it arrives. Click an event to inspect its object.", lang) }</div>
            }
            <div class="lane-row">{ for lanes }</div>
        </div>
    }
}

#[derive(Properties, PartialEq)]
struct LaneProps {
    id: u64,
}

#[function_component(LaneView)]
fn lane_view(p: &LaneProps) -> Html {
    let ctx = use_context::<Ctx>().expect("context");
    let lang = ctx.0.lang;
    let id = p.id;
    let s = ctx.0.session.borrow();
    let Some(lane) = s.lanes.iter().find(|l| l.id == id) else { return html! {} };
    let (title, state, count, open, last_rv) = (
        format!("{}?{}", lane.path, lane.query),
        lane.state.clone(),
        lane.rows.len(),
        lane.is_open(),
        lane.last_rv.clone(),
    );
    let (cached, head) = (lane.cache.len(), s.server.revision().0);
    let lag = lane.lag(head);
    // The newest event, said to a screen reader as it arrives.
    let newest = lane.rows.last().map(|r| {
        let name = if r.namespace.is_empty() { r.name.clone() } else { format!("{}/{}", r.namespace, r.name) };
        format!("{} {} {}", r.kind.label(), name, r.resource_version).trim().to_string()
    });
    let (group, version, resource) = crate::paths::group_version_resource(&lane.path);
    drop(s);
    let state_class = match state {
        LaneState::Watching => "state ok",
        LaneState::Closed(_) | LaneState::RelistingAfterGone => "state bad",
        _ => "state",
    };
    let act = |f: fn(&mut Lane, &mut crate::session::Session)| {
        let ctx = ctx.clone();
        Callback::from(move |_| {
            ctx.run(|s| {
                let mut lanes = std::mem::take(&mut s.lanes);
                if let Some(l) = lanes.iter_mut().find(|l| l.id == id) {
                    f(l, s);
                }
                lanes.append(&mut s.lanes);
                s.lanes = lanes;
            })
        })
    };
    let stop = act(|l, _| l.stop());
    let resume = act(|l, s| l.resume(s));
    let close = {
        let ctx = ctx.clone();
        Callback::from(move |_| ctx.run(|s| s.lanes.retain(|l| l.id != id)))
    };
    let render = {
        let ctx = ctx.clone();
        Callback::from(move |i: usize| {
            let s = ctx.0.session.borrow();
            let Some(row) = s.lanes.iter().find(|l| l.id == id).and_then(|l| l.rows.get(i)) else { return html! {} };
            let class = format!("event {}", row.kind.label().to_ascii_lowercase().replace('·', "note"));
            let target = (!row.name.is_empty() && row.kind != RowKind::Error).then(|| ObjectRef {
                group: group.clone(),
                version: version.clone(),
                resource: resource.clone(),
                namespace: row.namespace.clone(),
                name: row.name.clone(),
            });
            let ctx2 = ctx.clone();
            let onclick = Callback::from(move |_| {
                if let Some(t) = target.clone() {
                    ctx2.dispatch(Action::Inspect(t));
                }
            });
            html! {
                <div {class} {onclick}>
                    <span class="type">{ row.kind.label() }</span>
                    <span class="rv">{ row.resource_version.clone() }</span>
                    <span class="name">{ if row.namespace.is_empty() { row.name.clone() } else { format!("{}/{}", row.namespace, row.name) } }</span>
                    <span class="detail">{ row.detail.clone() }</span>
                </div>
            }
        })
    };
    html! {
        <div class="lane" id={format!("lane-{id}")}>
            <div class="lane-head">
                <span class="mono lane-title" title={title.clone()}>{ title }</span>
                <span class={state_class} id={format!("lane-{id}-state")}>{ state_label(&state, lang) }</span>
                <span class="muted">{ last_rv.as_ref().map(|r| fill(tr("last rv {}", lang), &[r])).unwrap_or_default() }</span>
                if open { <button class="lane-stop" onclick={stop}>{ tr("stop", lang) }</button> }
                else { <button class="lane-resume" onclick={resume}>{ tr("resume", lang) }</button> }
                <button class="lane-close" onclick={close}>{ "×" }</button>
            </div>
            <VirtualList id={format!("lane-{id}-events")} label={tr("watch events (Enter inspects one)", lang)} count={count} row_height={20.0} height={220.0} render={render} follow=true />
            <ClientCache {id} {cached} {head} {lag} state={state.clone()} at={last_rv.clone().unwrap_or_default()} />
            <div class="sr-only" aria-live="polite" id={format!("lane-{id}-live")}>{ newest.unwrap_or_default() }</div>
        </div>
    }
}

#[derive(Properties, PartialEq)]
struct CacheProps {
    id: u64,
    cached: usize,
    head: u64,
    lag: Option<u64>,
    state: LaneState,
    at: String,
}

/// The client beside the lane: the informer's state, its cache at its
/// last resourceVersion, and how far behind the server's head it is.
#[function_component(ClientCache)]
fn client_cache(p: &CacheProps) -> Html {
    let ctx = use_context::<Ctx>().expect("context");
    let id = p.id;
    let lang = ctx.0.lang;
    let objects = if p.cached == 1 { tr("object", lang) } else { tr("objects", lang) };
    let at = if p.at.is_empty() { String::new() } else { fill(tr(" at resourceVersion {}", lang), &[&p.at]) };
    let behind = match p.lag {
        Some(0) => tr("up to date", lang).to_string(),
        Some(1) => tr("1 revision behind", lang).to_string(),
        Some(n) => fill(tr("{} revisions behind", lang), &[&n]),
        None => tr("no resourceVersion yet", lang).to_string(),
    };
    let steps = [LaneState::Listing, LaneState::Watching, LaneState::WaitingForBookmark, LaneState::RelistingAfterGone]
        .map(|st| (st.clone(), state_label(&st, lang)));
    let chips = steps.into_iter().map(|(st, label)| {
        let on = st == p.state;
        html! {
            <li class={classes!("cache-state", on.then_some("on"))} aria-current={on.then_some("step")}>{ label }</li>
        }
    });
    let render = {
        let ctx = ctx.clone();
        Callback::from(move |i: usize| {
            let s = ctx.0.session.borrow();
            let Some((key, c)) = s.lanes.iter().find(|l| l.id == id).and_then(|l| l.cache.iter().nth(i)) else {
                return html! {};
            };
            html! {
                <div class="cached">
                    <span class="rv">{ c.resource_version.clone() }</span>
                    <span class="name">{ key.clone() }</span>
                </div>
            }
        })
    };
    html! {
        <details class="lane-cache" id={format!("lane-{id}-cache")}>
            <summary>
                <span class="mono" id={format!("lane-{id}-cache-summary")}>{ fill(tr("client cache: {} {}{}", lang), &[&p.cached, &objects, &at]) }</span>
                { " · " }
                <span class={if p.lag.unwrap_or(0) > 0 { "lag behind" } else { "lag" }} id={format!("lane-{id}-lag")}
                    title={fill(tr("the server is at resourceVersion {}", lang), &[&p.head])}>{ behind }</span>
            </summary>
            <ol class="cache-states" aria-label={tr("the informer's states", lang)}>{ for chips }</ol>
            <VirtualList id={format!("lane-{id}-cached")} label={tr("the client’s cache (resourceVersion, name)", lang)} count={p.cached} row_height={20.0} height={120.0} {render} follow=false />
        </details>
    }
}

/// What a lane's client is doing, in the reader's language.
fn state_label(state: &LaneState, lang: Lang) -> String {
    match state {
        LaneState::Listing => tr("listing", lang).into(),
        LaneState::Watching => tr("watching", lang).into(),
        LaneState::WaitingForBookmark => tr("waiting for bookmark", lang).into(),
        LaneState::Resuming => tr("resuming", lang).into(),
        LaneState::RelistingAfterGone => tr("relisting after 410", lang).into(),
        LaneState::Stopped => tr("stopped", lang).into(),
        LaneState::Closed(why) => fill(tr("closed: {}", lang), &[why]),
    }
}
