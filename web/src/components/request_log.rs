//! The request log: every request the page made, newest last; click one to
//! see it whole.

use yew::prelude::*;

use super::app::{Action, Ctx};
use super::{checked, ResponseView, VirtualList};
use crate::i18n::{fill, tr};
use crate::session::Source;

#[function_component(RequestLog)]
pub fn request_log() -> Html {
    let ctx = use_context::<Ctx>().expect("context");
    let lang = ctx.0.lang;
    let show_polls = use_state(|| false);
    let show_controllers = use_state(|| false);
    let s = ctx.0.session.borrow();
    // The page's own reads (the timeline's polling, the owners view,
    // completion) and the controllers' requests are hidden unless asked for.
    let ids: Vec<usize> = (0..s.log.len())
        .filter(|i| match s.log[*i].source {
            Source::Timeline | Source::Owners | Source::Completion => *show_polls,
            Source::Controller => *show_controllers,
            _ => true,
        })
        .collect();
    let render = {
        let ctx = ctx.clone();
        let ids = std::rc::Rc::new(ids.clone());
        let selected = ctx.0.selected_log;
        // A write is acknowledged as saved once the journal up to it is
        // durable (a read-only tab saves none).
        let durable = if ctx.0.read_only.is_some() { 0 } else { ctx.0.durable };
        Callback::from(move |i: usize| {
            let s = ctx.0.session.borrow();
            let Some(e) = ids.get(i).and_then(|j| s.log.get(*j)) else { return html! {} };
            let id = e.id;
            let ctx2 = ctx.clone();
            let onclick = Callback::from(move |_| ctx2.dispatch(Action::SelectLog(id)));
            let code_class = if e.response.status >= 400 { "code bad" } else { "code good" };
            let class = if selected == Some(id) { "logrow selected" } else { "logrow" };
            html! {
                <div {class} {onclick} data-id={id.to_string()}>
                    <span class="src">{ e.source.label() }</span>
                    <span class="verb">{ if e.watch { "WATCH".to_string() } else { e.request.method.clone() } }</span>
                    <span class="url mono">{ e.url() }</span>
                    <span class={code_class}>{ e.response.status }</span>
                    <span class="rv">{ e.resource_version().map(|r| format!("rv {r}")).unwrap_or_default() }</span>
                    if e.journal.is_some_and(|j| j >= durable) && e.source != Source::Setup {
                        <span class="unsaved">{ tr("not saved yet", lang) }</span>
                    }
                </div>
            }
        })
    };
    let detail = ctx.0.selected_log.and_then(|id| s.log_entry(id)).map(|e| {
        html! {
            <div class="log-detail" id="log-detail">
                <div class="muted">{ fill(tr("#{} from {} at {}", lang), &[&e.id, &e.source.label(), &e.at.rfc3339()]) }</div>
                <ResponseView request={Some(e.request.clone())} response={e.response.clone()} at={e.at} />
            </div>
        }
    });
    let toggle = {
        let show_polls = show_polls.clone();
        Callback::from(move |e: Event| show_polls.set(checked(&e)))
    };
    let toggle_controllers = {
        let show_controllers = show_controllers.clone();
        Callback::from(move |e: Event| show_controllers.set(checked(&e)))
    };
    let count = ids.len();
    drop(s);
    html! {
        <div class="request-log">
            <label class="flag"><input type="checkbox" checked={*show_polls} onchange={toggle} />{ tr("show the page's own reads (timeline, owners view, completion)", lang) }</label>
            <label class="flag"><input type="checkbox" id="show-controllers" checked={*show_controllers} onchange={toggle_controllers} />{ tr("show the controllers' requests", lang) }</label>
            <span class="muted">{ fill(tr(" {} requests", lang), &[&count]) }</span>
            if count == 0 {
                <div class="muted empty-hint" id="log-empty">{ tr("No requests to show yet. Every request the page sends — from kubectl, the console, the watch lanes and the pager — appears here with its status and resourceVersion (the controllers' behind the checkbox above); click one to see it in full.", lang) }</div>
            }
            <VirtualList id="log-list" label={tr("requests (Enter opens one)", lang)} count={count} row_height={22.0} height={260.0} render={render} follow=true />
            { for detail }
        </div>
    }
}
