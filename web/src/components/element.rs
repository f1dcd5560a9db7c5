//! The `<kube-sim>` element's side of the app: clusters shared by name,
//! and mounting the app into an element's shadow root (`pkg/kube-sim.js`
//! defines the element; the `element/` crate exports `mountKubeSim`).

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use super::app::{App, AppProps};
use crate::embedding::EmbedOptions;
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
    let mut s = Session::new(e.seed);
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

/// Renders the app into `root` (a node inside an element's shadow root).
pub fn mount(root: web_sys::Element, options: EmbedOptions) {
    yew::Renderer::<App>::with_root_and_props(root, AppProps { embed: Some(Rc::new(options)) }).render();
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
