//! The wire-format lens: a response body of a built-in kind shown side by
//! side as JSON, YAML, Table (rendered, with its raw JSON) and protobuf (the
//! envelope and fields annotated, then a hex dump), each with its size.

use std::rc::Rc;

use kubesim::clock::SimTime;
use serde_json::Value;
use yew::prelude::*;

use crate::i18n::{fill, tr};
use crate::lessons::Lang;
use crate::wire::{hex, hex_dump, views, Views};

#[derive(Properties, PartialEq)]
pub struct Props {
    pub body: Rc<Vec<u8>>,
    /// When the response was served (Table ages are relative to it).
    pub at: SimTime,
}

fn pane(title: &str, bytes: usize, body: Html, lang: Lang) -> Html {
    html! {
        <section class="wire-pane">
            <h4>{ title }<span class="wire-size">{ fill(tr("{} bytes", lang), &[&bytes]) }</span></h4>
            { body }
        </section>
    }
}

fn table_html(t: &Value, lang: Lang) -> Html {
    let cols: Vec<(String, i64)> = t["columnDefinitions"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|c| (c["name"].as_str().unwrap_or("").to_string(), c["priority"].as_i64().unwrap_or(0)))
                .collect()
        })
        .unwrap_or_default();
    let rows = t["rows"].as_array().cloned().unwrap_or_default();
    let cell = |v: &Value| match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    html! {
        <table class="wire-table">
            <thead><tr>{ for cols.iter().map(|(n, p)| html!{
                <th title={ if *p > 0 { tr("priority 1: kubectl shows it with -o wide", lang) } else { "" } }
                    class={ if *p > 0 { "wide" } else { "" } }>{ n.to_uppercase() }</th>
            }) }</tr></thead>
            <tbody>{ for rows.iter().map(|r| html!{
                <tr>{ for r["cells"].as_array().into_iter().flatten().map(|c| html!{ <td>{ cell(c) }</td> }) }</tr>
            }) }</tbody>
        </table>
    }
}

fn protobuf_html(pb: &[u8], v: &Views) -> Html {
    html! {
        <>
            <div class="wire-spans mono">
                { for v.spans.iter().map(|s| html!{
                    <div class="wire-span" style={ format!("padding-left: {}em", s.depth) }>
                        <span class="wire-field">{ if s.number > 0 { format!("#{} {}", s.number, s.name) } else { s.name.clone() } }</span>
                        <span class="wire-range">{ format!("[{}..{})", s.start, s.end) }</span>
                        <span class="wire-hex">{ hex(pb.get(s.start..s.end.min(pb.len())).unwrap_or_default(), 12) }</span>
                    </div>
                }) }
            </div>
            <pre class="body">{ hex_dump(pb, 64) }</pre>
        </>
    }
}

#[function_component(WireLens)]
pub fn wire_lens(p: &Props) -> Html {
    let lang = use_context::<super::app::Ctx>().map(|c| c.0.lang).unwrap_or_default();
    let open = use_state(|| false);
    let computed = {
        let (body, at, open) = (p.body.clone(), p.at, *open);
        use_memo((body, at.0, open), move |(body, at, open)| if *open { views(body, SimTime(*at)) } else { None })
    };
    let toggle = {
        let open = open.clone();
        Callback::from(move |_| open.set(!*open))
    };
    if !*open {
        return html! { <button class="wire-toggle" onclick={toggle}>{ tr("Wire formats: JSON · YAML · Table · protobuf", lang) }</button> };
    }
    let Some(v) = (*computed).clone() else {
        return html! { <div class="wire-lens"><button class="wire-toggle" onclick={toggle}>{ tr("Hide wire formats", lang) }</button><p>{ tr("Not an object or list of a built-in kind.", lang) }</p></div> };
    };
    html! {
        <div class="wire-lens">
            <button class="wire-toggle" onclick={toggle}>{ tr("Hide wire formats", lang) }</button>
            <div class="wire-grid">
                { pane("JSON", v.json_bytes, html!{ <pre class="body">{ v.json.clone() }</pre> }, lang) }
                { pane("YAML", v.yaml.len(), html!{ <pre class="body">{ v.yaml.clone() }</pre> }, lang) }
                { match &v.table {
                    Some((t, raw)) => pane("Table (as=Table;g=meta.k8s.io;v=v1)", raw.len(), html!{
                        <>{ table_html(t, lang) }<pre class="body">{ serde_json::to_string_pretty(t).unwrap_or_default() }</pre></>
                    }, lang),
                    None => html!{},
                } }
                { match &v.protobuf {
                    Some(pb) => pane("protobuf (application/vnd.kubernetes.protobuf)", pb.len(), protobuf_html(pb, &v), lang),
                    None => html!{},
                } }
            </div>
        </div>
    }
}
