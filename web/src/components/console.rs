//! The request console: any request, by hand, with a query builder and
//! the header presets clients use.

use kubesim::server::Request;
use yew::prelude::*;

use super::app::{Action, Ctx};
use super::{checked, input_value, select_value, textarea_value, ResponseView};
use crate::format::{build_query, parse_documents};
use crate::i18n::tr;
use crate::session::Source;

const PARAMS: &[&str] = &[
    "resourceVersion",
    "resourceVersionMatch",
    "limit",
    "continue",
    "labelSelector",
    "fieldSelector",
    "timeoutSeconds",
    "propagationPolicy",
    "fieldManager",
    "fieldValidation",
    "dryRun",
];
const FLAGS: &[&str] = &["watch", "allowWatchBookmarks", "sendInitialEvents"];
const ACCEPTS: &[&str] = &[
    "application/json",
    "application/json;as=Table;v=v1;g=meta.k8s.io,application/json",
    "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io,application/json",
    "application/yaml",
    "application/vnd.kubernetes.protobuf",
    "*/*",
];
const CONTENT_TYPES: &[&str] = &[
    "application/json",
    "application/merge-patch+json",
    "application/json-patch+json",
    "application/strategic-merge-patch+json",
    "application/apply-patch+yaml",
    "application/yaml",
];

#[derive(Clone, PartialEq, Default)]
struct Form {
    method: String,
    path: String,
    params: Vec<(String, String)>,
    flags: Vec<String>,
    accept: String,
    content_type: String,
    body: String,
    yaml_to_json: bool,
}

/// Builds the request the form describes; a YAML body is converted to
/// JSON first when the content type is a JSON one, as kubectl does.
fn build(f: &Form) -> Result<Request, String> {
    let mut pairs: Vec<(String, String)> = f.params.clone();
    for fl in &f.flags {
        pairs.push((fl.clone(), "true".into()));
    }
    let q = build_query(&pairs);
    let target = if q.is_empty() { f.path.clone() } else { format!("{}?{q}", f.path) };
    let mut req = Request::new(&f.method, &target).with_header("Accept", &f.accept);
    if !f.body.trim().is_empty() && f.method != "GET" {
        let body = if f.yaml_to_json && f.content_type.contains("json") {
            let docs = parse_documents(&f.body)?;
            match docs.as_slice() {
                [one] => serde_json::to_string(one).unwrap_or_default(),
                _ => return Err(format!("the body holds {} documents; send one at a time", docs.len())),
            }
        } else {
            f.body.clone()
        };
        req = req.with_header("Content-Type", &f.content_type).with_body(body.into_bytes());
    }
    Ok(req)
}

#[function_component(Console)]
pub fn console() -> Html {
    let ctx = use_context::<Ctx>().expect("context");
    let lang = ctx.0.lang;
    let form = use_state(|| Form {
        method: "GET".into(),
        path: "/api/v1/namespaces/default/configmaps".into(),
        params: PARAMS.iter().map(|p| (p.to_string(), String::new())).collect(),
        flags: Vec::new(),
        accept: ACCEPTS[0].into(),
        content_type: CONTENT_TYPES[0].into(),
        body: String::new(),
        yaml_to_json: true,
    });
    let error = use_state(|| None::<String>);
    let last = use_state(|| None::<u64>);
    // Completion: every collection path discovery knows, in each namespace.
    let paths = use_memo(ctx.0.epoch, {
        let ctx = ctx.clone();
        move |_| {
            let ns = super::open_object::names(&mut ctx.0.session.borrow_mut(), "/api/v1/namespaces");
            ctx.0.discovery.paths(&ns)
        }
    });
    let update = |f: fn(&mut Form, String)| {
        let form = form.clone();
        move |v: String| {
            let mut next = (*form).clone();
            f(&mut next, v);
            form.set(next);
        }
    };
    let send = {
        let (ctx, form, error, last) = (ctx.clone(), form.clone(), error.clone(), last.clone());
        Callback::from(move |_| match build(&form) {
            Ok(req) => {
                error.set(None);
                let id = ctx.run(|s| {
                    let (entry, stream) = s.serve(Source::Console, req);
                    if let Some(stream) = stream {
                        s.adopt_watch(&entry, stream);
                    }
                    entry.id
                });
                last.set(Some(id));
                ctx.dispatch(Action::SelectLog(id));
            }
            Err(e) => {
                // The previous answer goes: it is not this attempt's.
                error.set(Some(e));
                last.set(None);
            }
        })
    };
    let response = (*last).and_then(|id| {
        let s = ctx.0.session.borrow();
        s.log_entry(id)
            .map(|e| html! { <ResponseView request={None::<Request>} response={e.response.clone()} at={e.at} /> })
    });
    let set_method = update(|f, v| f.method = v);
    let set_path = update(|f, v| f.path = v);
    let set_accept = update(|f, v| f.accept = v);
    let set_ct = update(|f, v| f.content_type = v);
    let set_body = update(|f, v| f.body = v);
    let params = form.params.iter().enumerate().map(|(i, (name, value))| {
        let form = form.clone();
        let oninput = Callback::from(move |e: InputEvent| {
            let mut next = (*form).clone();
            next.params[i].1 = input_value(&e);
            form.set(next);
        });
        html! { <label class="param">{ name.clone() }<input id={format!("q-{name}")} class="mono" value={value.clone()} {oninput} /></label> }
    });
    let flags = FLAGS.iter().map(|name| {
        let form = form.clone();
        let on = form.flags.iter().any(|f| f == name);
        let onchange = Callback::from(move |e: Event| {
            let mut next = (*form).clone();
            next.flags.retain(|f| f != name);
            if checked(&e) {
                next.flags.push(name.to_string());
            }
            form.set(next);
        });
        html! { <label class="flag"><input type="checkbox" id={format!("q-{name}")} checked={on} {onchange} />{ *name }</label> }
    });
    let yaml = {
        let form = form.clone();
        Callback::from(move |e: Event| {
            let mut next = (*form).clone();
            next.yaml_to_json = checked(&e);
            form.set(next);
        })
    };
    html! {
        <div class="console">
            <div class="row">
                <label for="console-method" class="sr-only">{ tr("method", lang) }</label>
                <select id="console-method" onchange={Callback::from(move |e: Event| set_method(select_value(&e)))}>
                    { for ["GET", "POST", "PUT", "PATCH", "DELETE"].iter().map(|m| html!{ <option selected={form.method == *m}>{ *m }</option> }) }
                </select>
                <label for="console-path" class="sr-only">{ tr("path", lang) }</label>
                <input id="console-path" class="grow mono" list="console-paths" value={form.path.clone()}
                    oninput={Callback::from(move |e: InputEvent| set_path(input_value(&e)))} spellcheck="false"
                    onkeydown={super::enter_clicks("console-send")} />
                <datalist id="console-paths">{ for paths.iter().map(|p| html!{ <option value={p.clone()} /> }) }</datalist>
                <button id="console-send" onclick={send}>{ tr("send", lang) }</button>
            </div>
            <details open=true><summary>{ tr("query", lang) }</summary><div class="params">{ for params }{ for flags }</div></details>
            <div class="row">
                <label>{ "Accept " }<select id="console-accept" onchange={Callback::from(move |e: Event| set_accept(select_value(&e)))}>
                    { for ACCEPTS.iter().map(|a| html!{ <option selected={form.accept == *a}>{ *a }</option> }) }
                </select></label>
                <label>{ "Content-Type " }<select id="console-content-type" onchange={Callback::from(move |e: Event| set_ct(select_value(&e)))}>
                    { for CONTENT_TYPES.iter().map(|a| html!{ <option selected={form.content_type == *a}>{ *a }</option> }) }
                </select></label>
                <label class="flag"><input type="checkbox" checked={form.yaml_to_json} onchange={yaml} />{ tr("YAML body → JSON", lang) }</label>
            </div>
            <textarea id="console-body" class="mono" rows="6" value={form.body.clone()} spellcheck="false"
                placeholder={tr("request body, JSON or YAML", lang)}
                oninput={Callback::from(move |e: InputEvent| set_body(textarea_value(&e)))} />
            if let Some(e) = (*error).clone() { <div class="error">{ e }</div> }
            if response.is_none() && error.is_none() {
                <div class="muted empty-hint" id="console-empty">{ tr("The response appears here: its status line, headers and body as the API server sends them. Try GET on the path above, or pick POST and give a body.", lang) }</div>
            }
            { for response }
        </div>
    }
}
