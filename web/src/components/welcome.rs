//! The first thing a newcomer reads: what kubesim is, where the API it
//! simulates is described, and three starters that fill in a command, run
//! it and say where to look. Hidden on request, and remembered.

use yew::prelude::*;

use super::app::Ctx;
use crate::i18n::{en, tr};
use crate::lessons::Lang;
use crate::state::Action;

/// The API Concepts page in the reader's language.
fn concepts_url(lang: Lang) -> &'static str {
    match lang {
        Lang::En => "https://kubernetes.io/docs/reference/using-api/api-concepts/",
        Lang::Zh => "https://kubernetes.io/zh-cn/docs/reference/using-api/api-concepts/",
    }
}

/// Where the choice to hide the welcome is kept.
const HIDDEN_KEY: &str = "kubesim-welcome-hidden";

/// A starter: its button, the command it runs, the panel to look at and
/// what to look for there.
struct Starter {
    id: &'static str,
    label: &'static str,
    command: &'static str,
    panel: &'static str,
    look: &'static str,
}

const STARTERS: &[Starter] = &[
    Starter {
        id: "try-deployment",
        label: en("A Deployment comes up"),
        command: "kubectl create deployment web --image=nginx --replicas=3",
        panel: "owners-panel",
        look: en("Owners shows the Deployment, its ReplicaSet and three pods going from Pending to Running. The controllers, the scheduler and the kubelets did that through the API: tick “show the controllers' requests” in the Request log to see each of their requests."),
    },
    Starter {
        id: "try-chunks",
        label: en("A list read in chunks"),
        command: "kubectl get pods -A --chunk-size=2",
        panel: "log-panel",
        look: en("The Request log shows one request per page: limit=2, then continue=… with the token the previous page returned, until the list is whole. Every page is read at the same resourceVersion."),
    },
    Starter {
        id: "try-watch",
        label: en("Watch, then write"),
        command: "kubectl get configmaps -w",
        panel: "lanes-panel",
        look: en("A watch lane opened: it listed the ConfigMaps, then watches from that list's resourceVersion. Now run kubectl create configmap demo --from-literal=greeting=hello and see ADDED arrive in the lane with its new resourceVersion."),
    },
];

fn storage() -> Option<web_sys::Storage> {
    web_sys::window().and_then(|w| w.local_storage().ok().flatten())
}

#[function_component(Welcome)]
pub fn welcome() -> Html {
    let ctx = use_context::<Ctx>().expect("context");
    let lang = ctx.0.lang;
    let hidden = use_state(|| storage().and_then(|s| s.get_item(HIDDEN_KEY).ok().flatten()).is_some());
    let look = use_state(|| None::<&'static str>);
    if *hidden {
        let hidden = hidden.clone();
        let show = Callback::from(move |_| {
            if let Some(s) = storage() {
                let _ = s.remove_item(HIDDEN_KEY);
            }
            hidden.set(false);
        });
        return html! { <div class="welcome-collapsed"><button id="welcome-show" onclick={show}>{ tr("new here? show the starters", lang) }</button></div> };
    }
    let hide = {
        let hidden = hidden.clone();
        Callback::from(move |_| {
            if let Some(s) = storage() {
                let _ = s.set_item(HIDDEN_KEY, "1");
            }
            hidden.set(true);
        })
    };
    let starters = STARTERS.iter().map(|st| {
        let (ctx, look) = (ctx.clone(), look.clone());
        let onclick = Callback::from(move |_| {
            ctx.dispatch(Action::Try(st.command.to_string()));
            look.set(Some(tr(st.look, lang)));
            if let Some(panel) =
                web_sys::window().and_then(|w| w.document()).and_then(|d| d.get_element_by_id(st.panel))
            {
                panel.scroll_into_view();
            }
        });
        html! {
            <button id={st.id} class="starter" {onclick} title={st.command}>
                <span class="starter-label">{ tr(st.label, lang) }</span>
                <code>{ st.command }</code>
            </button>
        }
    });
    html! {
        <section class="welcome" id="welcome" aria-label={tr("Getting started", lang)}>
            <p>
                <b>{ "kubesim" }</b>
                { tr(" is the Kubernetes API simulated in this tab: each command becomes the HTTP requests a real client sends, answered as kube-apiserver answers them, and every panel shows a part of that conversation. Read along with ", lang) }
                <a href={concepts_url(lang)} target="_blank" rel="noopener">{ tr("Kubernetes API Concepts", lang) }</a>
                { "." }
            </p>
            <div class="starters">{ for starters }</div>
            if let Some(text) = *look {
                <p class="look" id="welcome-look" aria-live="polite">{ text }</p>
            }
            <button id="welcome-hide" class="hide" onclick={hide}>{ tr("hide", lang) }</button>
        </section>
    }
}
