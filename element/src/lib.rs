//! kubesim's `<kube-sim>` element, the module side: `pkg/kube-sim.js`
//! defines the element, and calls `mountKubeSim` with its shadow root's
//! mount point and its attributes. Everything else is the browser app
//! (`kubesim-web`), which reads the attributes as `EmbedOptions`.

#[cfg(target_arch = "wasm32")]
mod exports {
    use kubesim_web::components::element;
    use kubesim_web::embedding::EmbedOptions;
    use wasm_bindgen::prelude::*;

    #[wasm_bindgen(start)]
    pub fn start() {
        element::set_panic_hook();
    }

    /// Mounts the app into `root` with the element's attributes (absent
    /// ones as empty strings); an attribute that makes no sense is an
    /// error naming it.
    #[allow(clippy::too_many_arguments)]
    #[wasm_bindgen(js_name = mountKubeSim)]
    pub fn mount_kube_sim(
        root: web_sys::Element,
        panels: &str,
        lesson: &str,
        lesson_text: &str,
        lang: &str,
        seed: &str,
        cluster: &str,
        scenario: &str,
        base: &str,
    ) -> Result<(), JsError> {
        let options = EmbedOptions::from_attributes(panels, lesson, lesson_text, lang, seed, cluster, scenario, base)
            .map_err(|e| JsError::new(&e))?;
        element::mount(root, options);
        Ok(())
    }
}
