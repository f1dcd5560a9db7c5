//! The revision timeline: writes as points on the global revision axis,
//! the compaction horizon, and the cluster as of a chosen revision (a list
//! at that resourceVersion, or the 410 once it is compacted).

use kubesim::server::Request;
use yew::prelude::*;

use super::app::{Action, Ctx, ObjectRef};
use super::{checked, input_value, VirtualList};
use crate::i18n::{fill, tr};
use crate::session::{body_json, Session, Source};

const WIDTH: f64 = 640.0;
const SPAN: u64 = 200;

#[derive(Clone, PartialEq)]
struct Snapshot {
    revision: u64,
    /// (collection, status, names or the error message)
    lists: Vec<(String, u16, String)>,
}

fn snapshot(s: &mut Session, rev: u64) -> Snapshot {
    let mut lists = Vec::new();
    for collection in s.timeline.collections_until(rev) {
        let path = format!("{collection}?resourceVersion={rev}&resourceVersionMatch=Exact");
        let e = s.request(Source::Timeline, Request::new("GET", &path).with_header("Accept", "application/json"));
        let v = body_json(&e.response);
        let text = if e.response.status == 200 {
            let names = crate::format::item_names(&v);
            if names.is_empty() {
                "(none)".to_string()
            } else {
                names.join(", ")
            }
        } else {
            format!("{}: {}", v["reason"].as_str().unwrap_or(""), v["message"].as_str().unwrap_or(""))
        };
        let resource = collection.rsplit('/').next().unwrap_or("").to_string();
        lists.push((resource, e.response.status, text));
    }
    Snapshot { revision: rev, lists }
}

#[function_component(TimelineView)]
pub fn timeline_view() -> Html {
    let ctx = use_context::<Ctx>().expect("context");
    let lang = ctx.0.lang;
    let picked = use_state(|| None::<Snapshot>);
    let end = use_state(|| None::<u64>);
    // The node Leases' renewals (a revision per node every 10 s) are
    // hidden unless asked for, as the controllers' requests in the log.
    let show_renewals = use_state(|| false);
    let shown = *show_renewals;
    let s = ctx.0.session.borrow();
    let t = &s.timeline;
    let head = t.last_revision.max(1);
    let hi = (*end).unwrap_or(head).min(head);
    let lo = hi.saturating_sub(SPAN - 1).max(1);
    let span = (hi - lo + 1).max(2) as f64;
    let x = |rev: u64| 10.0 + (rev.saturating_sub(lo)) as f64 / (span - 1.0) * (WIDTH - 20.0);
    let pick = {
        let (ctx, picked) = (ctx.clone(), picked.clone());
        Callback::from(move |rev: u64| {
            let snap = ctx.run(|s| snapshot(s, rev));
            picked.set(Some(snap));
        })
    };
    let first = t.points.partition_point(|p| p.revision < lo);
    let last = t.points.partition_point(|p| p.revision <= hi);
    let dots: Vec<Html> = t.points[first..last].iter().filter(|p| shown || !p.is_renewal()).map(|p| {
        let rev = p.revision;
        let pick = pick.clone();
        let class = format!("dot {}", p.event.to_ascii_lowercase());
        let title = format!("{} {} {}", rev, p.verb(), p.object_label());
        html! { <circle {class} cx={x(rev).to_string()} cy="30" r="4" onclick={move |_| pick.emit(rev)}><title>{ title }</title></circle> }
    }).collect();
    let horizon = if t.compacted >= lo {
        let w = x(t.compacted.min(hi)) - 10.0;
        html! { <rect class="compacted" x="10" y="12" width={w.max(0.0).to_string()} height="36"><title>{ fill(tr("compacted: revisions ≤ {} are gone", lang), &[&t.compacted]) }</title></rect> }
    } else {
        html! {}
    };
    let list_render = {
        let ctx = ctx.clone();
        let pick = pick.clone();
        Callback::from(move |i: usize| {
            let s = ctx.0.session.borrow();
            let t = &s.timeline;
            // Newest first.
            let index = if shown {
                t.points.len().checked_sub(1 + i)
            } else {
                let others = t.others();
                others.len().checked_sub(1 + i).and_then(|j| others.get(j).copied())
            };
            let Some(p) = index.and_then(|j| t.points.get(j)) else { return html! {} };
            let rev = p.revision;
            let gone = rev <= s.timeline.compacted;
            let obj = ObjectRef {
                group: p.group.to_string(),
                version: p.version.to_string(),
                resource: p.resource.to_string(),
                namespace: p.namespace.to_string(),
                name: p.name.clone(),
            };
            let (pick, ctx2) = (pick.clone(), ctx.clone());
            html! {
                <div class={if gone { "point gone" } else { "point" }}>
                    <a class="rv" data-enter="1" onclick={move |_| pick.emit(rev)}>{ rev }</a>
                    <span class={format!("ev {}", p.event.to_ascii_lowercase())}>{ p.verb() }</span>
                    <a class="mono" onclick={move |_| ctx2.dispatch(Action::Inspect(obj.clone()))}>{ p.object_label() }</a>
                </div>
            }
        })
    };
    let snap = (*picked).clone().map(|sn| {
        html! {
            <div class="snapshot" id="snapshot">
                <div><b>{ fill(tr("The cluster at resourceVersion {}", lang), &[&sn.revision]) }</b>{ tr(" (a list with resourceVersionMatch=Exact per resource)", lang) }</div>
                { for sn.lists.iter().map(|(r, code, text)| html!{
                    <div class={if *code == 200 { "snap-row" } else { "snap-row bad" }}><span class="res">{ r.clone() }</span>{ format!(" {code} ") }<span class="mono">{ text.clone() }</span></div>
                }) }
            </div>
        }
    });
    let on_end = {
        let end = end.clone();
        Callback::from(move |e: InputEvent| {
            let v = input_value(&e).parse::<u64>().ok();
            end.set(v.filter(|v| *v < head));
        })
    };
    let count = t.points.len();
    let others = t.others().len();
    let renewals = count - others;
    let listed = if shown { count } else { others };
    let toggle = {
        let show_renewals = show_renewals.clone();
        Callback::from(move |e: Event| show_renewals.set(checked(&e)))
    };
    let (compacted, now, window) = (t.compacted, t.now.clone(), t.history_window_seconds);
    // Revisions compacted before this page read them (after a reload, or
    // a long pause): said, not shown as an empty stretch.
    let unseen = match t.points.first() {
        Some(p) if p.revision > 1 => Some(p.revision - 1),
        None if compacted > 0 => Some(compacted),
        _ => None,
    };
    let unseen_note = unseen
        .map(|u| fill(tr(" · revisions 1–{} were compacted before this page read them", lang), &[&u]))
        .unwrap_or_default();
    drop(s);
    html! {
        <div class="timeline">
            <div class="muted" id="timeline-head">{ fill(tr("now {} · head {} · compacted ≤ {} · window {}s · showing revisions {}–{}{}", lang), &[&now, &head, &compacted, &window, &lo, &hi, &unseen_note]) }</div>
            <svg id="timeline-axis" width={WIDTH.to_string()} height="60" viewBox={format!("0 0 {WIDTH} 60")}>
                { horizon }
                <line x1="10" y1="30" x2={(WIDTH - 10.0).to_string()} y2="30" class="axis" />
                { for dots }
                <text x="10" y="58" class="tick">{ lo }</text>
                <text x={(WIDTH - 40.0).to_string()} y="58" class="tick">{ hi }</text>
            </svg>
            <input type="range" min="1" max={head.to_string()} value={hi.to_string()} oninput={on_end} title={tr("scroll the axis", lang)} aria-label={tr("the newest revision the axis shows", lang)} />
            if listed == 0 && compacted > 0 {
                <div class="muted" id="timeline-empty">{ fill(tr("Nothing left to show: every write up to revision {} was compacted (history is kept for {}s). New writes appear here as they happen.", lang), &[&compacted, &window]) }</div>
            }
            <label class="flag"><input type="checkbox" id="show-renewals" checked={shown} onchange={toggle} />{ fill(tr("show Lease renewals ({})", lang), &[&renewals]) }</label>
            <VirtualList id="timeline-list" label={tr("revisions (Enter shows the cluster at one)", lang)} count={listed} row_height={20.0} height={160.0} render={list_render} />
            { for snap }
        </div>
    }
}
