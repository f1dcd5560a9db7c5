//! A request and its response, whole: status line, headers (Warning
//! headers first and marked), the body pretty-printed.

use kubesim::sort::Order;
use std::rc::Rc;

use kubesim::server::{Request, Response};
use yew::prelude::*;

use super::WireLens;
use crate::format::{carries_secret_values, pretty_body};
use crate::i18n::tr;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub request: Option<Request>,
    pub response: Rc<Response>,
    /// When it was served (the wire lens's Table ages count from it).
    #[prop_or_default]
    pub at: kubesim::clock::SimTime,
}

fn reason_phrase(code: u16) -> &'static str {
    match code {
        200 => "OK",
        201 => "Created",
        202 => "Accepted",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        406 => "Not Acceptable",
        409 => "Conflict",
        410 => "Gone",
        413 => "Request Entity Too Large",
        415 => "Unsupported Media Type",
        422 => "Unprocessable Entity",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        504 => "Gateway Timeout",
        _ => "",
    }
}

#[function_component(ResponseView)]
pub fn response_view(p: &Props) -> Html {
    let lang = use_context::<super::app::Ctx>().map(|c| c.0.lang).unwrap_or_default();
    let r = &p.response;
    let class = if r.status >= 400 { "status bad" } else { "status good" };
    let mut headers: Vec<_> = r.headers.iter().collect();
    headers.order_by_key(|(k, _)| !k.eq_ignore_ascii_case("warning"));
    let request = p.request.as_ref().map(|q| {
        let url = if q.query.is_empty() { q.path.clone() } else { format!("{}?{}", q.path, q.query) };
        html! {
            <div class="request-head">
                <div class="mono">{ format!("{} {url}", q.method) }</div>
                { for q.headers.iter().map(|(k, v)| html!{ <div class="mono header">{ format!("{k}: {v}") }</div> }) }
                if !q.body.is_empty() { <pre class="body">{ pretty_body(&q.body) }</pre> }
            </div>
        }
    });
    html! {
        <div class="response">
            { for request }
            <div class={class}>{ format!("HTTP/1.1 {} {}", r.status, reason_phrase(r.status)) }</div>
            { for headers.into_iter().map(|(k, v)| {
                let warn = k.eq_ignore_ascii_case("warning");
                html!{ <div class={if warn { "mono header warning" } else { "mono header" }}>{ format!("{k}: {v}") }</div> }
            }) }
            if carries_secret_values(&r.body) {
                <div class="note" id="secret-note">{ tr("This shows the Secret's values as the API returns them: base64-encoded, not encrypted. Anyone who may read a Secret reads its values; the native door never logs them.", lang) }</div>
            }
            <pre class="body">{ pretty_body(&r.body) }</pre>
            if r.status < 300 && r.header("Content-Type").is_some_and(|c| c.starts_with("application/json")) {
                <WireLens body={Rc::new(r.body.clone())} at={p.at} />
            }
        </div>
    }
}
