//! A small JS API on the running page (`window.wasmBindings`), for
//! documentation pages that drive the simulator and for the page's own
//! benchmarks: requests go through the same session as the UI's, so they
//! show in the log, the lanes and the timeline.

use std::cell::RefCell;
use std::rc::Rc;

use kubesim::server::Request;
use serde::Serialize;
use wasm_bindgen::prelude::*;

use crate::session::{Session, Source};

thread_local! {
    static SESSION: RefCell<Option<Rc<RefCell<Session>>>> = const { RefCell::new(None) };
}

pub fn attach(session: Rc<RefCell<Session>>) {
    SESSION.with(|s| *s.borrow_mut() = Some(session));
}

#[derive(Serialize)]
struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

/// Serves one request: `kubesimRequest("POST", "/api/v1/namespaces/default/configmaps", "{...}")`
/// resolves to `{status, headers, body}`. A watch answers with what the
/// stream held at once.
#[wasm_bindgen(js_name = kubesimRequest)]
pub fn kubesim_request(
    method: &str,
    target: &str,
    body: Option<String>,
    content_type: Option<String>,
) -> Result<JsValue, JsValue> {
    let session = SESSION.with(|s| s.borrow().clone()).ok_or_else(|| JsValue::from_str("kubesim is not running"))?;
    serve_on(&session, method, target, body, content_type)
}

/// Serves one request on a session (the page's, or a `<kube-sim>`
/// element's cluster): `{status, headers, body}` as a JS value.
pub fn serve_on(
    session: &RefCell<Session>,
    method: &str,
    target: &str,
    body: Option<String>,
    content_type: Option<String>,
) -> Result<JsValue, JsValue> {
    let mut req = Request::new(method, target).with_header("Accept", "application/json");
    if let Some(b) = body {
        req = req
            .with_header("Content-Type", content_type.as_deref().unwrap_or("application/json"))
            .with_body(b.into_bytes());
    }
    let Ok(mut s) = session.try_borrow_mut() else { return Err(JsValue::from_str("kubesim is busy")) };
    let e = s.request(Source::Console, req);
    let answer = Answer {
        status: e.response.status,
        headers: e.response.headers.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
        body: String::from_utf8_lossy(&e.response.body).into_owned(),
    };
    serde_wasm_bindgen::to_value(&answer).map_err(|e| JsValue::from_str(&e.to_string()))
}

/// Panics on purpose, to show (and test) that the page survives one.
#[wasm_bindgen(js_name = kubesimPanicForTest)]
pub fn kubesim_panic_for_test() {
    panic!("a panic asked for by kubesimPanicForTest()");
}
