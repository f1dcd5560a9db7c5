//! The Yew UI. One component per file; app state in a reducer provided by
//! context, holding the session in `Rc<RefCell<_>>`. Components render what
//! the plain-logic modules compute and never hold a borrow of the session
//! across a callback.
//!
//! Invariant: object content is only ever rendered as text (Yew escapes
//! text nodes; nothing here builds HTML from strings).

mod app;
mod chunked_list;
mod clock;
mod command_bar;
mod console;
mod copy_button;
mod differs;
pub mod element;
pub mod embed;
mod fairness;
mod inspector;
mod lessons;
mod metrics_chart;
mod open_object;
mod owners;
mod persist;
mod request_log;
mod response_view;
mod rv_explorer;
mod timeline_view;
mod view_settings;
mod virtual_list;
mod watch_lanes;
mod welcome;
mod who_am_i;
mod wire_lens;

pub use app::{App, AppProps, AppState, Ctx, ObjectRef};
pub use copy_button::CopyButton;
pub use differs::Differs;
pub use lessons::Lessons;
pub use response_view::ResponseView;
pub use virtual_list::VirtualList;
pub use wire_lens::WireLens;

use wasm_bindgen::JsCast;

/// Mounts the app, with a panic hook that keeps the page usable.
pub fn start() {
    // Yew installs its own hook at render unless given one.
    yew::set_custom_panic_hook(Box::new(|info| {
        console_error_panic_hook::hook(info);
        show_panic(&info.to_string());
    }));
    // The saved session is read from IndexedDB first (asynchronously).
    mark("kubesim:start");
    wasm_bindgen_futures::spawn_local(async {
        let boot = persist::boot(lessons::browser_lang()).await;
        mark("kubesim:booted");
        let props = AppProps { embed: None, boot: Some(app::BootCell::new(boot)) };
        yew::Renderer::<App>::with_props(props).render();
    });
}

/// A panic aborts the wasm instance, so the banner is plain DOM with a plain
/// reload: the session was saved after its last write and comes back.
fn show_panic(message: &str) {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else { return };
    let Ok(banner) = doc.create_element("div") else { return };
    banner.set_id("panic-banner");
    banner.set_class_name("panic-banner");
    banner.set_text_content(Some(&format!(
        "kubesim hit an internal error and stopped: {message}\nYour cluster was saved up to the last write shown as saved. "
    )));
    if let Ok(button) = doc.create_element("button") {
        button.set_text_content(Some("Restart the page"));
        let _ = button.set_attribute("onclick", "location.reload()");
        let _ = banner.append_child(&button);
    }
    if let Some(body) = doc.body() {
        let _ = body.prepend_with_node_1(&banner);
    }
}

/// A file next to the page, as text; why not, when it cannot be had.
pub async fn fetch_text(url: &str) -> Result<String, String> {
    use wasm_bindgen_futures::JsFuture;
    let window = web_sys::window().ok_or("no window")?;
    let answer = JsFuture::from(window.fetch_with_str(url)).await.map_err(|_| format!("{url}: not reachable"))?;
    let answer: web_sys::Response = answer.dyn_into().map_err(|_| "not a response".to_string())?;
    if !answer.ok() {
        return Err(format!("{url}: {}", answer.status()));
    }
    let text = answer.text().map_err(|_| format!("{url}: no text"))?;
    JsFuture::from(text).await.ok().and_then(|t| t.as_string()).ok_or_else(|| format!("{url}: no text"))
}

/// A named moment in the page's performance timeline (for profiles).
pub fn mark(name: &str) {
    if let Some(p) = web_sys::window().and_then(|w| w.performance()) {
        let _ = p.mark(name);
    }
}

/// The real-time clock the page feeds the simulation (ms).
pub fn real_now() -> f64 {
    web_sys::window().and_then(|w| w.performance()).map(|p| p.now()).unwrap_or(0.0)
}

/// The element with this id in the same document as `near`: the page's
/// document, or the shadow root of the `<kube-sim>` element the event
/// happened in (each element has its own ids).
pub fn by_id_near(near: &web_sys::EventTarget, id: &str) -> Option<web_sys::Element> {
    let root = near.dyn_ref::<web_sys::Node>()?.get_root_node();
    if let Some(shadow) = root.dyn_ref::<web_sys::ShadowRoot>() {
        return shadow.get_element_by_id(id);
    }
    root.dyn_ref::<web_sys::Document>()?.get_element_by_id(id)
}

/// For a text field: Enter presses the button with this id (the field's
/// "submit"), as it would in a form.
pub fn enter_clicks(button_id: &'static str) -> yew::Callback<yew::KeyboardEvent> {
    yew::Callback::from(move |e: yew::KeyboardEvent| {
        if e.key() == "Enter" && !e.shift_key() {
            e.prevent_default();
            if let Some(b) = e
                .target()
                .and_then(|t| by_id_near(&t, button_id))
                .and_then(|b| b.dyn_into::<web_sys::HtmlElement>().ok())
            {
                b.click();
            }
        }
    })
}

pub fn input_value(e: &yew::InputEvent) -> String {
    e.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()).map(|i| i.value()).unwrap_or_default()
}

/// The value of the input with this id near the event's target (empty
/// when there is none): for a callback that reads several fields at once.
pub fn input_by_id(near: &web_sys::Event, id: &str) -> String {
    near.target()
        .and_then(|t| by_id_near(&t, id))
        .and_then(|e| e.dyn_into::<web_sys::HtmlInputElement>().ok())
        .map(|i| i.value())
        .unwrap_or_default()
}

pub fn textarea_value(e: &yew::InputEvent) -> String {
    e.target().and_then(|t| t.dyn_into::<web_sys::HtmlTextAreaElement>().ok()).map(|i| i.value()).unwrap_or_default()
}

pub fn select_value(e: &yew::Event) -> String {
    e.target().and_then(|t| t.dyn_into::<web_sys::HtmlSelectElement>().ok()).map(|i| i.value()).unwrap_or_default()
}

pub fn checked(e: &yew::Event) -> bool {
    e.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()).is_some_and(|i| i.checked())
}
