//! The inspector's box: open any object by type, namespace and name, each
//! with completion (the types discovery lists, the namespaces, and the
//! names in the chosen collection, read when the namespace or name field
//! gets focus;
//! the request log calls those reads "completion").

use kubesim::server::Request;
use yew::prelude::*;

use super::app::{Action, Ctx, ObjectRef};
use super::{enter_clicks, input_value};
use crate::i18n::tr;
use crate::session::{body_json, Session, Source};

/// The names in a collection (empty when it cannot be listed), read as
/// the page's own completion request.
pub(super) fn names(s: &mut Session, path: &str) -> Vec<String> {
    let e = s.request(Source::Completion, Request::new("GET", path).with_header("Accept", "application/json"));
    let v = body_json(&e.response);
    v["items"]
        .as_array()
        .map(|a| a.iter().filter_map(|i| i["metadata"]["name"].as_str().map(str::to_string)).collect())
        .unwrap_or_default()
}

#[function_component(OpenObject)]
pub fn open_object() -> Html {
    let ctx = use_context::<Ctx>().expect("context");
    let lang = ctx.0.lang;
    let kind = use_state(|| "configmaps".to_string());
    let namespace = use_state(|| "default".to_string());
    let name = use_state(String::new);
    let error = use_state(|| None::<String>);
    // Bumped when the name field gets focus: its completion is read then.
    let asked = use_state(|| 0u32);
    let types = use_memo(ctx.0.epoch, {
        let ctx = ctx.clone();
        move |_| ctx.0.discovery.readable_types()
    });
    let resolved = ctx.0.discovery.resolve(kind.trim()).ok().cloned();
    let namespaced = resolved.as_ref().is_none_or(|r| r.namespaced);
    // Read only once a field asks (no request when the page opens).
    let namespaces = use_memo((ctx.0.epoch, *asked), {
        let ctx = ctx.clone();
        move |(_, asked): &(u64, u32)| {
            if *asked > 0 {
                names(&mut ctx.0.session.borrow_mut(), "/api/v1/namespaces")
            } else {
                Vec::new()
            }
        }
    });
    let candidates = use_memo((resolved.clone(), (*namespace).clone(), *asked), {
        let ctx = ctx.clone();
        move |(r, ns, asked): &(Option<crate::resources::ApiResource>, String, u32)| match r {
            Some(r) if *asked > 0 => names(&mut ctx.0.session.borrow_mut(), &r.collection(Some(ns.trim()))),
            _ => Vec::new(),
        }
    });
    let field = |state: &UseStateHandle<String>| {
        let state = state.clone();
        Callback::from(move |e: InputEvent| state.set(input_value(&e)))
    };
    let open = {
        let (ctx, kind, namespace, name, error) =
            (ctx.clone(), kind.clone(), namespace.clone(), name.clone(), error.clone());
        Callback::from(move |_| match ObjectRef::named(&ctx.0.discovery, &kind, &namespace, &name) {
            Ok(o) => {
                error.set(None);
                ctx.dispatch(Action::Inspect(o));
            }
            Err(e) => error.set(Some(e)),
        })
    };
    let onfocus = {
        let asked = asked.clone();
        Callback::from(move |_: FocusEvent| asked.set(*asked + 1))
    };
    let options = |list: &[String]| list.iter().map(|t| html! { <option value={t.clone()} /> }).collect::<Html>();
    html! {
        <div class="row open-object">
            <label for="open-kind" class="sr-only">{ tr("type", lang) }</label>
            <input id="open-kind" class="mono" list="open-kinds" value={(*kind).clone()} oninput={field(&kind)}
                onkeydown={enter_clicks("open-go")} placeholder={tr("type", lang)} spellcheck="false" />
            <datalist id="open-kinds">{ options(&types) }</datalist>
            <label for="open-namespace" class="sr-only">{ tr("namespace", lang) }</label>
            <input id="open-namespace" class="mono" list="open-namespaces" value={(*namespace).clone()}
                oninput={field(&namespace)} onkeydown={enter_clicks("open-go")} onfocus={onfocus.clone()} disabled={!namespaced}
                placeholder={if namespaced { tr("namespace", lang) } else { tr("(cluster-scoped)", lang) }} spellcheck="false" />
            <datalist id="open-namespaces">{ options(&namespaces) }</datalist>
            <label for="open-name" class="sr-only">{ tr("name", lang) }</label>
            <input id="open-name" class="grow mono" list="open-names" value={(*name).clone()} oninput={field(&name)}
                onkeydown={enter_clicks("open-go")} onfocus={onfocus} placeholder={tr("name", lang)} spellcheck="false" />
            <datalist id="open-names">{ options(&candidates) }</datalist>
            <button id="open-go" onclick={open}>{ tr("open", lang) }</button>
            if let Some(e) = (*error).clone() { <div class="error" id="open-error">{ e }</div> }
        </div>
    }
}
