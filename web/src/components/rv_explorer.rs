//! The resourceVersion explorer: choose a verb, a resourceVersion (the
//! head revision, the compaction horizon, "0" or none), and for a list the
//! resourceVersionMatch and paging; it sends the request, shows the answer,
//! and highlights the cell of API Concepts' table that explains it.

use kubesim::server::Request;
use yew::prelude::*;

use super::app::Ctx;
use super::{input_value, select_value};
use crate::i18n::{fill, tr};
use crate::rv_explorer::{cell, meaning, target, Match, Paging, Verb, COLUMNS, GET_ROW, LIST_ROWS, WATCH_ROW};
use crate::session::{body_json, Source};

const COLLECTION: &str = "/api/v1/configmaps";
const ITEM: &str = "/api/v1/namespaces/default/configmaps/kube-root-ca.crt";

#[derive(Clone, PartialEq)]
struct Answer {
    target: String,
    status: u16,
    summary: String,
}

fn table_row(cells: &[&str; 3], on: Option<usize>) -> Html {
    cells
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let class = if on == Some(i) { "rv-cell on" } else { "rv-cell" };
            html! { <td {class} aria-current={(on == Some(i)).then_some("true")}>{ *c }</td> }
        })
        .collect()
}

fn match_label(m: Match) -> &'static str {
    match m {
        Match::Unset => "unset",
        Match::Exact => "Exact",
        Match::NotOlderThan => "NotOlderThan",
    }
}

fn paging_label(p: Paging) -> &'static str {
    match p {
        Paging::None => "limit unset",
        Paging::Limit => "limit=2, continue unset",
        Paging::Continue => "limit=2, continue=<token>",
    }
}

#[function_component(RvExplorer)]
pub fn rv_explorer() -> Html {
    let ctx = use_context::<Ctx>().expect("context");
    let lang = ctx.0.lang;
    let verb = use_state(|| Verb::List);
    let m = use_state(|| Match::Unset);
    let paging = use_state(|| Paging::None);
    let rv = use_state(String::new);
    let answer = use_state(|| None::<Answer>);
    let (head, horizon) = {
        let s = ctx.0.session.borrow();
        (s.server.revision().0, s.server.compacted().0)
    };
    let on_verb = {
        let verb = verb.clone();
        Callback::from(move |e: Event| {
            verb.set(match select_value(&e).as_str() {
                "get" => Verb::Get,
                "watch" => Verb::Watch,
                _ => Verb::List,
            })
        })
    };
    let on_match = {
        let m = m.clone();
        Callback::from(move |e: Event| {
            m.set(match select_value(&e).as_str() {
                "Exact" => Match::Exact,
                "NotOlderThan" => Match::NotOlderThan,
                _ => Match::Unset,
            })
        })
    };
    let on_paging = {
        let paging = paging.clone();
        Callback::from(move |e: Event| {
            paging.set(match select_value(&e).as_str() {
                "limit" => Paging::Limit,
                "continue" => Paging::Continue,
                _ => Paging::None,
            })
        })
    };
    let set_rv = |v: String| {
        let rv = rv.clone();
        Callback::from(move |_| rv.set(v.clone()))
    };
    let on_rv = {
        let rv = rv.clone();
        Callback::from(move |e: InputEvent| rv.set(input_value(&e)))
    };
    let send = {
        let (ctx, verb, m, paging, rv, answer) =
            (ctx.clone(), verb.clone(), m.clone(), paging.clone(), rv.clone(), answer.clone());
        Callback::from(move |_| {
            let (v, mm, p) = (*verb, *m, *paging);
            let got = ctx.run(|s| {
                // A continue token comes from a first chunk, read now.
                let token = if v == Verb::List && p == Paging::Continue {
                    let first = s.request(Source::Explorer, Request::new("GET", &format!("{COLLECTION}?limit=2")));
                    body_json(&first.response)["metadata"]["continue"].as_str().unwrap_or("").to_string()
                } else {
                    String::new()
                };
                let t = target(v, COLLECTION, ITEM, mm, p, &rv, &token);
                let (e, stream) =
                    s.serve(Source::Explorer, Request::new("GET", &t).with_header("Accept", "application/json"));
                let body = body_json(&e.response);
                let summary = if let Some(stream) = stream {
                    s.adopt_watch(&e, stream);
                    tr("a watch, opened in a lane (its first events say where it started)", lang).to_string()
                } else if e.response.status != 200 {
                    format!(
                        "{} {}: {}",
                        body["reason"].as_str().unwrap_or(""),
                        body["code"],
                        body["message"].as_str().unwrap_or("")
                    )
                } else {
                    let rv = body["metadata"]["resourceVersion"].as_str().unwrap_or("");
                    match body["items"].as_array() {
                        Some(items) => fill(tr("{} items at resourceVersion {}", lang), &[&items.len(), &rv]),
                        None => fill(tr("the object at resourceVersion {}", lang), &[&rv]),
                    }
                };
                Answer { target: t, status: e.response.status, summary }
            });
            answer.set(Some(got));
        })
    };
    let at = cell(*verb, *m, *paging, &rv);
    let meaning = meaning(*verb, *m, *paging, &rv);
    let head_row =
        html! { <tr><th>{ "" }</th>{ for COLUMNS.iter().map(|c| html! { <th class="mono">{ *c }</th> }) }</tr> };
    let table = match *verb {
        Verb::Get => html! {
            <table class="rv-table" id="rv-table"><caption>{ "get" }</caption>{ head_row }
                <tr class="on"><th>{ "get" }</th>{ table_row(&GET_ROW, at.map(|c| c.1)) }</tr></table>
        },
        Verb::Watch => html! {
            <table class="rv-table" id="rv-table"><caption>{ "watch" }</caption>{ head_row }
                <tr class="on"><th>{ "watch" }</th>{ table_row(&WATCH_ROW, at.map(|c| c.1)) }</tr></table>
        },
        Verb::List => html! {
            <table class="rv-table" id="rv-table"><caption>{ tr("list: resourceVersionMatch and paging", lang) }</caption>{ head_row }
                { for LIST_ROWS.iter().enumerate().map(|(i, (rm, rp, cells))| {
                    let on = at.filter(|c| c.0 == i).map(|c| c.1);
                    html! {
                        <tr class={if on.is_some() { "on" } else { "" }}>
                            <th class="mono">{ format!("{} · {}", match_label(*rm), paging_label(*rp)) }</th>
                            { table_row(cells, on) }
                        </tr>
                    }
                }) }
            </table>
        },
    };
    let list = *verb == Verb::List;
    html! {
        <div class="rv-explorer">
            <div class="row">
                <label>{ tr("verb ", lang) }<select id="rv-verb" onchange={on_verb}>
                    <option value="get" selected={*verb == Verb::Get}>{ "get" }</option>
                    <option value="list" selected={*verb == Verb::List}>{ "list" }</option>
                    <option value="watch" selected={*verb == Verb::Watch}>{ "watch" }</option>
                </select></label>
                <label>{ "resourceVersion " }<input id="rv-value" class="mono" size="8" value={(*rv).clone()} oninput={on_rv} /></label>
                <button id="rv-set-head" onclick={set_rv(head.to_string())}>{ fill(tr("head ({})", lang), &[&head]) }</button>
                <button id="rv-set-compacted" onclick={set_rv(horizon.to_string())}>{ fill(tr("compacted ({})", lang), &[&horizon]) }</button>
                <button id="rv-set-zero" onclick={set_rv("0".into())}>{ "0" }</button>
                <button id="rv-set-unset" onclick={set_rv(String::new())}>{ tr("unset", lang) }</button>
            </div>
            if list {
                <div class="row">
                    <label>{ "resourceVersionMatch " }<select id="rv-match" onchange={on_match}>
                        { for [Match::Unset, Match::Exact, Match::NotOlderThan].into_iter().map(|x| html! {
                            <option value={x.param()} selected={*m == x}>{ match_label(x) }</option> }) }
                    </select></label>
                    <label>{ tr("paging ", lang) }<select id="rv-paging" onchange={on_paging}>
                        <option value="none" selected={*paging == Paging::None}>{ paging_label(Paging::None) }</option>
                        <option value="limit" selected={*paging == Paging::Limit}>{ paging_label(Paging::Limit) }</option>
                        <option value="continue" selected={*paging == Paging::Continue}>{ paging_label(Paging::Continue) }</option>
                    </select></label>
                </div>
            }
            <div class="row">
                <code class="mono" id="rv-target">{ format!("GET {}", target(*verb, COLLECTION, ITEM, *m, *paging, &rv, "<token>")) }</code>
                <button id="rv-send" class="primary" onclick={send}>{ tr("send", lang) }</button>
            </div>
            <div id="rv-meaning">{ match meaning {
                Some(x) => html! { <span>{ tr("The table says: ", lang) }<strong>{ x }</strong></span> },
                None => html! { <span class="muted">{ tr("No row of the table covers this combination.", lang) }</span> },
            } }</div>
            { table }
            { for (*answer).clone().map(|a| html! {
                <div class={if a.status == 200 { "rv-answer good" } else { "rv-answer bad" }} id="rv-answer">
                    <div class="mono">{ format!("GET {}", a.target) }</div>
                    <div><strong>{ a.status }</strong>{ format!(" — {}", a.summary) }</div>
                </div>
            }) }
        </div>
    }
}
