//! The `<kube-sim>` element's side of the app: clusters shared by name,
//! and mounting the app into an element's shadow root (`pkg/kube-sim.js`
//! defines the element; the `element/` crate exports `mountKubeSim`).

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use super::app::{App, AppProps};
use crate::embedding::{Attributes, EmbedOptions};
use crate::kubectl;
use crate::session::Session;

thread_local! {
    /// Clusters that elements named with `cluster="…"`.
    static CLUSTERS: RefCell<BTreeMap<String, Rc<RefCell<Session>>>> = const { RefCell::new(BTreeMap::new()) };
}

/// The cluster an element shows: the one its `cluster` name already
/// names, or a new one from its seed with its scenario's objects created
/// (and a notice when they did not load).
pub fn cluster(e: &EmbedOptions) -> (Rc<RefCell<Session>>, Option<String>) {
    if let Some(found) = e.cluster.as_ref().and_then(|n| CLUSTERS.with(|c| c.borrow().get(n).cloned())) {
        return (found, None);
    }
    // A lesson opens its own cluster from its seed at once: the starter
    // cluster would only be thrown away.
    let lesson = e.lesson.is_some() || e.lesson_text.is_some();
    let window = kubesim::server::ServerConfig::default().history_window_ms;
    let mut s = Session::configured(e.seed, window, !lesson);
    let notice = e.scenario.as_ref().and_then(|yaml| {
        let out = kubectl::run(&mut s, "create -f -", yaml);
        out.failed.then(|| format!("The scenario did not load: {}", out.text.trim_end()))
    });
    let s = Rc::new(RefCell::new(s));
    if let Some(name) = &e.cluster {
        CLUSTERS.with(|c| c.borrow_mut().insert(name.clone(), s.clone()));
    }
    (s, notice)
}

/// Renders the app into `root` (a node inside an element's shadow root)
/// with the element's attributes, given by `kube-sim.js` as an object
/// (`{panels, lesson, lessonText, …}`); an attribute that makes no sense
/// is an error naming it.
/// The app it mounted: `unmount` (when the element leaves the page) stops
/// its clock and lanes and empties its mount point; a shared cluster stays
/// for the other elements.
pub fn mount(root: web_sys::Element, attributes: wasm_bindgen::JsValue) -> Result<Mounted, String> {
    let attributes: Attributes = serde_wasm_bindgen::from_value(attributes).map_err(|e| format!("<kube-sim>: {e}"))?;
    let options = EmbedOptions::from_attributes(&attributes)?;
    let app = yew::Renderer::<App>::with_root_and_props(root, AppProps { embed: Some(Rc::new(options)), boot: None })
        .render();
    Ok(Mounted(Some(app)))
}

/// An element's app, as `mount` left it.
pub struct Mounted(Option<yew::AppHandle<App>>);

impl Mounted {
    /// Stops the app and empties its mount point (once).
    pub fn unmount(&mut self) {
        if let Some(app) = self.0.take() {
            app.destroy();
        }
    }
}

/// A panic aborts the module, and with it every element on the page:
/// each is told (its `aborted` attribute), and shows it.
pub fn set_panic_hook() {
    yew::set_custom_panic_hook(Box::new(|info| {
        console_error_panic_hook::hook(info);
        let Some(doc) = web_sys::window().and_then(|w| w.document()) else { return };
        let Ok(all) = doc.query_selector_all("kube-sim") else { return };
        for i in 0..all.length() {
            if let Some(el) = all.item(i).and_then(|n| wasm_bindgen::JsCast::dyn_into::<web_sys::Element>(n).ok()) {
                let _ = el.set_attribute("aborted", &info.to_string());
            }
        }
    }));
}

/// The cluster elements named `name` share, if one was made.
pub fn named(name: &str) -> Option<Rc<RefCell<Session>>> {
    CLUSTERS.with(|c| c.borrow().get(name).cloned())
}

/// Serves a request on a named cluster (the `/embed` page's postMessage
/// API): `{status, headers, body}`.
pub fn cluster_request(
    name: &str,
    method: &str,
    target: &str,
    body: Option<String>,
    content_type: Option<String>,
) -> Result<wasm_bindgen::JsValue, wasm_bindgen::JsValue> {
    let s = named(name).ok_or_else(|| wasm_bindgen::JsValue::from_str(&format!("no cluster {name:?}")))?;
    super::embed::serve_on(&s, method, target, body, content_type)
}

/// Runs a kubectl command line on a named cluster: what it printed, and
/// whether it failed (`[text, failed]`).
pub fn cluster_kubectl(name: &str, line: &str, stdin: &str) -> Result<(String, bool), String> {
    let s = named(name).ok_or_else(|| format!("no cluster {name:?}"))?;
    let Ok(mut s) = s.try_borrow_mut() else { return Err("kubesim is busy".into()) };
    let out = kubectl::run(&mut s, line, stdin);
    Ok((out.text, out.failed))
}
