//! kubesim's `<kube-sim>` element, the module side: `pkg/kube-sim.js`
//! defines the element, and calls `mountKubeSim` with its shadow root's
//! mount point and its attributes. Everything else is the browser app
//! (`kubesim-web`), which reads the attributes as `EmbedOptions`.

#[cfg(target_arch = "wasm32")]
mod exports {
    use kubesim_web::components::element;
    use wasm_bindgen::prelude::*;

    #[wasm_bindgen(start)]
    pub fn start() {
        element::set_panic_hook();
    }

    /// Mounts the app into `root` with the element's attributes, an
    /// object `{panels, lesson, lessonText, lang, seed, cluster, scenario,
    /// base}` (absent ones empty); an attribute that makes no sense is an
    /// error naming it.
    /// Gives back the mounted app, to `unmount` when the element leaves
    /// the page.
    #[wasm_bindgen(js_name = mountKubeSim)]
    pub fn mount_kube_sim(root: web_sys::Element, attributes: JsValue) -> Result<Mounted, JsError> {
        element::mount(root, attributes).map(Mounted).map_err(|e| JsError::new(&e))
    }

    /// An element's app.
    #[wasm_bindgen]
    pub struct Mounted(element::Mounted);

    #[wasm_bindgen]
    impl Mounted {
        /// Stops the app (its clock, its lanes) and empties its mount
        /// point; the cluster stays if other elements share it. Once.
        pub fn unmount(&mut self) {
            self.0.unmount();
        }
    }

    /// Serves a request on the cluster elements named `cluster` share:
    /// `{status, headers, body}` (the `embed.html` page's postMessage API).
    #[wasm_bindgen(js_name = clusterRequest)]
    pub fn cluster_request(
        cluster: &str,
        method: &str,
        target: &str,
        body: Option<String>,
        content_type: Option<String>,
    ) -> Result<JsValue, JsValue> {
        element::cluster_request(cluster, method, target, body, content_type)
    }

    /// Runs kubectl on that cluster: `[text, failed]`.
    #[wasm_bindgen(js_name = clusterKubectl)]
    pub fn cluster_kubectl(cluster: &str, line: &str, stdin: &str) -> Result<Vec<JsValue>, JsError> {
        let (text, failed) = element::cluster_kubectl(cluster, line, stdin).map_err(|e| JsError::new(&e))?;
        Ok(vec![JsValue::from_str(&text), JsValue::from_bool(failed)])
    }
}
