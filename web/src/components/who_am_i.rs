//! "Who am I": the user the page's requests act as (whatever the box
//! holds, as it is typed). Picking someone adds
//! `Impersonate-User` (and `Impersonate-Group`) to every request the page
//! sends from then on, as `kubectl --as` does; the request log shows the
//! headers and, when RBAC refuses, the 403. Empty: the administrator.

use yew::prelude::*;

use super::app::Ctx;
use super::input_by_id;
use crate::i18n::{fill, tr};
use crate::session::ActingAs;

/// Users a workshop reaches for; any name can be typed.
const SUGGESTED: &[&str] = &["alice", "bob", "system:serviceaccount:default:default", "system:anonymous"];

#[function_component(WhoAmI)]
pub fn who_am_i() -> Html {
    let ctx = use_context::<Ctx>().expect("context");
    let lang = ctx.0.lang;
    let acting = ctx.0.session.borrow().acting_as.clone();
    let apply = {
        let ctx = ctx.clone();
        Callback::from(move |e: InputEvent| {
            let picked = ActingAs::parse(&input_by_id(&e, "acting-user"), &input_by_id(&e, "acting-groups"));
            ctx.run(|s| s.acting_as = picked);
        })
    };
    let (user, groups) = match &acting {
        Some(a) => (a.user.clone(), a.groups.join(",")),
        None => (String::new(), String::new()),
    };
    let title = match &acting {
        Some(a) => fill(tr("requests carry Impersonate-User: {}", lang), &[&a.user]),
        None => tr("the cluster's administrator (kubernetes-admin, in system:masters)", lang).to_string(),
    };
    html! {
        <div class="who" id="who-am-i" title={title}>
            <label for="acting-user">{ tr("acting as", lang) }</label>
            <input id="acting-user" list="acting-users" placeholder="kubernetes-admin" value={user} oninput={apply.clone()} />
            <datalist id="acting-users">
                { for SUGGESTED.iter().map(|u| html! { <option value={*u} /> }) }
            </datalist>
            <input id="acting-groups" placeholder={tr("groups, comma-separated", lang)} value={groups} oninput={apply} />
        </div>
    }
}
