//! The owners view: a namespace's workloads and pods as the tree their
//! ownerReferences make (Deployment → ReplicaSets → Pods …), each with its
//! state, read again whenever the cluster's revision moves. Click a row to
//! inspect the object.

use yew::prelude::*;

use super::app::{Action, Ctx};
use super::input_value;
use crate::i18n::{fill, tr};
use crate::owners::{forest, Row};

#[function_component(OwnersView)]
pub fn owners_view() -> Html {
    let ctx = use_context::<Ctx>().expect("context");
    let lang = ctx.0.lang;
    let namespace = use_state(|| "default".to_string());
    let rows = use_state(Vec::<Row>::new);
    let revision = ctx.0.session.borrow().server.revision().0;
    {
        let (ctx, rows) = (ctx.clone(), rows.clone());
        use_effect_with(((*namespace).clone(), revision, ctx.0.epoch), move |(ns, _, _)| {
            let read = ctx.run(|s| forest(s, ns));
            rows.set(read);
        });
    }
    let oninput = {
        let namespace = namespace.clone();
        Callback::from(move |e: InputEvent| namespace.set(input_value(&e)))
    };
    let list: Vec<Html> = rows
        .iter()
        .map(|r| {
            let (ctx, object) = (ctx.clone(), r.object.clone());
            let onclick = Callback::from(move |_| ctx.dispatch(Action::Inspect(object.clone())));
            let class = if r.terminating { "owner-row terminating" } else { "owner-row" };
            let indent = format!("padding-left: {}em", r.depth as f64 * 1.5);
            html! {
                <div {class} style={indent}>
                    <span class="kind">{ r.kind }</span>
                    <a class="mono" {onclick}>{ r.name.clone() }</a>
                    <span class="muted">{ if r.terminating { fill(tr("{} (terminating)", lang), &[&r.state]) } else { r.state.clone() } }</span>
                </div>
            }
        })
        .collect();
    let paused = ctx.0.session.borrow().controllers.is_paused();
    html! {
        <div id="owners">
            <label>{ tr("namespace ", lang) }<input class="mono" id="owners-namespace" value={(*namespace).clone()} {oninput} /></label>
            if list.is_empty() {
                <div class="muted empty-hint" id="owners-empty">{ tr("No workloads or pods in this namespace. Try kubectl create deployment web --image=nginx --replicas=3 (or another namespace: kube-system runs CoreDNS): each Deployment shows here with its ReplicaSets and their pods, live.", lang) }</div>
            } else {
                if paused { <super::Differs id="owners-differs" note={crate::kubectl::differs::PAUSED} /> }
                <div class="owner-rows">{ for list }</div>
            }
        </div>
    }
}
