//! Component tests in headless Chromium (wasm-bindgen-test): the app
//! mounts, then builds and shows the starter cluster, responses render as text with
//! Warning headers first, long lists render only what is in view, and a
//! watch lane's client cache follows what the lane received.
#![cfg(target_arch = "wasm32")]

use std::rc::Rc;

use gloo_timers::future::TimeoutFuture;
use kubesim::server::Response;
use kubesim_web::components::{App, ResponseView, VirtualList};
use wasm_bindgen_test::*;
use yew::prelude::*;

wasm_bindgen_test_configure!(run_in_browser);

fn mount_point() -> web_sys::Element {
    let doc = web_sys::window().unwrap().document().unwrap();
    let div = doc.create_element("div").unwrap();
    doc.body().unwrap().append_child(&div).unwrap();
    div
}

#[wasm_bindgen_test]
async fn the_app_mounts_with_the_starter_cluster() {
    if let Some(st) = web_sys::window().unwrap().local_storage().unwrap() {
        st.clear().unwrap();
    }
    let root = mount_point();
    yew::Renderer::<App>::with_root(root.clone()).render();
    // Shown first: the starter cluster is built after, and not saved
    // until it is.
    TimeoutFuture::new(0).await;
    let saved = || root.query_selector("#save-state").unwrap().unwrap().text_content().unwrap();
    assert_eq!(saved(), "building the starter cluster…");
    assert!(!root.text_content().unwrap_or_default().contains("Service/kube-system/kube-dns"));
    starter_built(&root).await;
    let text = root.text_content().unwrap_or_default();
    assert!(text.contains("Request log"), "{text}");
    // The starter objects, and what the controllers made of them: CoreDNS's
    // ReplicaSet and running pods, the endpoints of its Service.
    assert!(text.contains("Service/kube-system/kube-dns"), "{text}");
    assert!(text.contains("create ReplicaSet/kube-system/coredns-"), "{text}");
    assert!(text.contains("create Pod/kube-system/coredns-"), "{text}");
    assert!(text.contains("create Endpoints/kube-system/kube-dns"), "{text}");
    // The simulated clock runs with real time, and the page shows it.
    let clock = || root.query_selector(".clock-now").unwrap().unwrap().text_content().unwrap();
    let first = clock();
    TimeoutFuture::new(1300).await;
    assert_ne!(clock(), first, "the clock on the page did not move");
}

#[derive(Properties, PartialEq)]
struct Wrap {
    response: Rc<Response>,
}

#[function_component(ShowResponse)]
fn show_response(p: &Wrap) -> Html {
    html! { <ResponseView request={None::<kubesim::Request>} response={p.response.clone()} /> }
}

#[wasm_bindgen_test]
async fn responses_are_text_with_warning_headers_first() {
    let root = mount_point();
    let response = Rc::new(Response {
        status: 201,
        headers: vec![
            ("Content-Type".into(), "application/json".into()),
            ("Warning".into(), "299 - \"unknown field \\\"spec.x\\\"\"".into()),
        ],
        body: br#"{"metadata":{"name":"<img src=x onerror=alert(1)>"}}"#.to_vec(),
    });
    yew::Renderer::<ShowResponse>::with_root_and_props(root.clone(), Wrap { response }).render();
    TimeoutFuture::new(50).await;
    let headers = root.query_selector_all(".header").unwrap();
    let first = headers.get(0).unwrap().dyn_into_element();
    assert!(first.class_name().contains("warning"), "{}", first.class_name());
    assert_eq!(root.query_selector_all("img").unwrap().length(), 0);
    assert!(root.text_content().unwrap().contains("<img src=x onerror=alert(1)>"));
    assert!(root.text_content().unwrap().contains("HTTP/1.1 201 Created"));
}

trait IntoElement {
    fn dyn_into_element(self) -> web_sys::Element;
}

impl IntoElement for web_sys::Node {
    fn dyn_into_element(self) -> web_sys::Element {
        wasm_bindgen::JsCast::dyn_into::<web_sys::Element>(self).unwrap()
    }
}

#[function_component(TenThousand)]
fn ten_thousand() -> Html {
    let render = Callback::from(|i: usize| html! { <span class="cell">{ format!("row {i}") }</span> });
    html! { <VirtualList count={10_000} row_height={20.0} height={200.0} {render} /> }
}

#[wasm_bindgen_test]
async fn ten_thousand_rows_render_a_screenful() {
    let root = mount_point();
    yew::Renderer::<TenThousand>::with_root(root.clone()).render();
    TimeoutFuture::new(50).await;
    let rows = root.query_selector_all(".vrow").unwrap().length();
    assert!((10..=30).contains(&rows), "{rows} rows in the DOM");
    assert!(root.text_content().unwrap().contains("row 0"));
    assert!(!root.text_content().unwrap().contains("row 500"));
}

fn input(root: &web_sys::Element, selector: &str, value: &str) {
    use wasm_bindgen::JsCast;
    let el = root.query_selector(selector).unwrap().unwrap();
    if let Some(i) = el.dyn_ref::<web_sys::HtmlInputElement>() {
        i.set_value(value);
    } else if let Some(t) = el.dyn_ref::<web_sys::HtmlTextAreaElement>() {
        t.set_value(value);
    }
    let ev = web_sys::InputEvent::new("input").unwrap();
    el.dispatch_event(&ev).unwrap();
}

fn click(root: &web_sys::Element, selector: &str) {
    use wasm_bindgen::JsCast;
    let el = root.query_selector(selector).unwrap().unwrap();
    el.dyn_ref::<web_sys::HtmlElement>().unwrap().click();
}

#[wasm_bindgen_test]
async fn the_command_bar_runs_kubectl_and_the_log_shows_its_requests() {
    if let Some(st) = web_sys::window().unwrap().local_storage().unwrap() {
        st.clear().unwrap();
    }
    let root = mount_point();
    yew::Renderer::<App>::with_root(root.clone()).render();
    TimeoutFuture::new(200).await;
    input(&root, "#kubectl-line", "kubectl get ns -o name");
    TimeoutFuture::new(50).await;
    click(&root, "#kubectl-run");
    TimeoutFuture::new(200).await;
    let out = root.query_selector("#kubectl-output").unwrap().unwrap().text_content().unwrap();
    assert!(out.contains("namespace/default") && out.contains("namespace/kube-system"), "{out}");
    // An unknown command says so.
    input(&root, "#kubectl-line", "kubectl frob pods");
    TimeoutFuture::new(50).await;
    click(&root, "#kubectl-run");
    TimeoutFuture::new(200).await;
    let out = root.query_selector("#kubectl-output").unwrap().unwrap().text_content().unwrap();
    assert!(out.contains("unknown command \"frob\""), "{out}");
    let log = root.query_selector("#log-list").unwrap().unwrap().text_content().unwrap();
    assert!(log.contains("/api/v1/namespaces"), "{log}");
}

/// Waits (up to 10 s) until the app's starter cluster is built (its save
/// state no longer says it is being built).
async fn starter_built(root: &web_sys::Element) {
    for _ in 0..200 {
        TimeoutFuture::new(50).await;
        let state = root.query_selector("#save-state").unwrap().map(|e| e.text_content().unwrap_or_default());
        if state.is_some_and(|s| s != "building the starter cluster…") {
            return;
        }
    }
    panic!("the starter cluster was not built in 10 s");
}

#[wasm_bindgen_test]
async fn a_lane_s_client_cache_holds_what_it_listed_and_falls_behind_when_stopped() {
    if let Some(st) = web_sys::window().unwrap().local_storage().unwrap() {
        st.clear().unwrap();
    }
    let root = mount_point();
    yew::Renderer::<App>::with_root(root.clone()).render();
    starter_built(&root).await;
    click(&root, "#lane-open");
    TimeoutFuture::new(200).await;
    let text = |sel: &str| root.query_selector(sel).unwrap().unwrap().text_content().unwrap();
    assert!(text("#lane-1-cache-summary").starts_with("client cache: 1 object at resourceVersion "));
    assert_eq!(text("#lane-1-lag"), "up to date");
    assert_eq!(text("#lane-1-cache .cache-state.on"), "watching");
    click(&root, "#lane-1 .lane-stop");
    input(&root, "#kubectl-line", "kubectl create configmap later");
    TimeoutFuture::new(50).await;
    click(&root, "#kubectl-run");
    TimeoutFuture::new(200).await;
    assert_eq!(text("#lane-1-lag"), "1 revision behind");
    assert!(text("#lane-1-cache-summary").starts_with("client cache: 1 object"));
}

/// On wasm32 `usize` is 32 bits: a `limit` beyond it pages as "everything",
/// never as a truncated 0.
#[wasm_bindgen_test]
fn a_limit_wider_than_usize_is_clamped_on_wasm32() {
    assert_eq!(std::mem::size_of::<usize>(), 4, "this test runs on wasm32");
    let mut s = kubesim::Server::new(Default::default());
    for name in ["a", "b", "c"] {
        let r = s.handle(
            kubesim::Request::new("POST", "/api/v1/namespaces/default/configmaps")
                .with_body(format!("{{\"metadata\":{{\"name\":\"{name}\"}}}}").into_bytes()),
        );
        assert_eq!(r.status, 201);
    }
    for limit in ["4294967296", "4294967297", "9223372036854775807"] {
        let r = s.handle(kubesim::Request::new("GET", &format!("/api/v1/namespaces/default/configmaps?limit={limit}")));
        assert_eq!(r.status, 200);
        let v = r.json_body();
        assert_eq!(v["items"].as_array().map(Vec::len), Some(3), "limit={limit}");
        assert!(v["metadata"].get("continue").is_none(), "limit={limit}");
    }
}

/// A lesson whose prose tries to inject markup, and whose one step a
/// GET of the namespaces satisfies.
const LESSON: &str = r#"
title: {en: A lesson, zh: 一门课程}
summary: {en: For the pane's test., zh: 用于测试。}
panels: [console-panel]
steps:
  - title: {en: List the namespaces, zh: 检视名字空间}
    prose:
      en: "Send **one** `GET`. <img src=x onerror=alert(1)>"
      zh: "发送 **一个** `GET`。"
    do: [{request: {method: GET, path: /api/v1/namespaces}}]
    check: [{method: GET, path: /api/v1/namespaces, status: 200, capture: {rv: /metadata/resourceVersion}}]
    hint: {en: "GET /api/v1/namespaces", zh: "GET /api/v1/namespaces"}
  - title: {en: Again, zh: 再来一次}
    prose: {en: "The list was at ${rv}.", zh: "列表位于 ${rv}。"}
    do: [{request: {method: GET, path: /api/v1/namespaces}}]
    check: [{method: GET, path: /api/v1/namespaces, body: {/metadata/resourceVersion: {present: true}}}]
    hint: {en: Again., zh: 再来一次。}
"#;

#[function_component(LessonHost)]
fn lesson_host() -> Html {
    use kubesim_web::components::Ctx;
    use kubesim_web::state::{Action, AppState};
    let state = use_reducer(|| {
        AppState::new(kubesim_web::session::Session::new(1), None, kubesim_web::durable::nowhere(), true)
    });
    let ctx = Ctx(state.clone());
    {
        let ctx = ctx.clone();
        use_effect_with((), move |_| {
            let lesson = kubesim_web::lessons::parse("test-lesson", LESSON).expect("the lesson");
            ctx.dispatch(Action::OpenLesson(Rc::new(lesson), 0, 1));
        });
    }
    html! { <ContextProvider<Ctx> context={ctx}><kubesim_web::components::Lessons /></ContextProvider<Ctx>> }
}

#[wasm_bindgen_test]
async fn the_lesson_pane_renders_prose_as_text_and_turns_green_when_the_check_holds() {
    let root = mount_point();
    yew::Renderer::<LessonHost>::with_root(root.clone()).render();
    // Opening a lesson builds a fresh cluster (slow in a debug build).
    for _ in 0..100 {
        if root.query_selector("#lesson-pane").unwrap().is_some() {
            break;
        }
        TimeoutFuture::new(100).await;
    }
    let pane = root.query_selector("#lesson-pane").unwrap().expect("the pane");
    assert_eq!(pane.get_attribute("data-step").as_deref(), Some("1"));
    let prose = root.query_selector("#lesson-prose").unwrap().unwrap();
    assert_eq!(prose.query_selector("strong").unwrap().unwrap().text_content().as_deref(), Some("one"));
    assert_eq!(root.query_selector_all("img").unwrap().length(), 0, "markup in prose stays text");
    assert!(prose.text_content().unwrap().contains("<img src=x onerror=alert(1)>"));
    let check = || root.query_selector("#lesson-check").unwrap().unwrap().class_name();
    assert!(check().contains("waiting"), "{}", check());
    let next = || root.query_selector("#lesson-next").unwrap().unwrap().has_attribute("disabled");
    assert!(next(), "next waits for the check");
    click(&root, "#lesson-show-me");
    TimeoutFuture::new(100).await;
    assert!(check().contains("passed"), "{}", check());
    assert!(root.query_selector("#lesson-shown").unwrap().is_some());
    click(&root, "#lesson-next");
    TimeoutFuture::new(100).await;
    let pane = root.query_selector("#lesson-pane").unwrap().unwrap();
    assert_eq!(pane.get_attribute("data-step").as_deref(), Some("2"));
    // The step's prose names what the learner's own list returned.
    let prose = root.query_selector("#lesson-prose").unwrap().unwrap().text_content().unwrap();
    assert!(prose.starts_with("The list was at ") && !prose.contains("${rv}"), "{prose}");
    // The other language, the same lesson.
    let select = root.query_selector("#lesson-lang").unwrap().unwrap();
    let select: web_sys::HtmlSelectElement = wasm_bindgen::JsCast::dyn_into(select).unwrap();
    select.set_value("zh");
    select.dispatch_event(&web_sys::Event::new("change").unwrap()).unwrap();
    TimeoutFuture::new(100).await;
    let title = root.query_selector("#lesson-step-title").unwrap().unwrap().text_content().unwrap();
    assert_eq!(title, "再来一次");
}

#[derive(Properties, PartialEq)]
struct Grows {
    count: usize,
}

#[function_component(GrowingLog)]
fn growing_log(p: &Grows) -> Html {
    let render = Callback::from(|i: usize| html! { <span class="cell">{ format!("row {i}") }</span> });
    html! { <VirtualList count={p.count} row_height={20.0} height={200.0} {render} follow=true /> }
}

/// A scroll event that arrives after the rows grew and before the list
/// moved down to them (the renderer yields between drawing and its
/// effects) leaves the view short of the bottom: the list still follows,
/// and the newest row is drawn when more arrive.
#[wasm_bindgen_test]
async fn a_following_list_keeps_following_through_a_stale_scroll_event() {
    // (The page's style sheet, which this test page lacks, makes it scroll.)
    let doc = web_sys::window().unwrap().document().unwrap();
    let style = doc.create_element("style").unwrap();
    style.set_text_content(Some(".vlist { overflow-y: auto; }"));
    doc.head().unwrap().append_child(&style).unwrap();
    let root = mount_point();
    let mut app = yew::Renderer::<GrowingLog>::with_root_and_props(root.clone(), Grows { count: 40 }).render();
    TimeoutFuture::new(50).await;
    let list = root.query_selector(".vlist").unwrap().unwrap();
    assert!(root.text_content().unwrap().contains("row 39"));
    // The rows grow in the DOM while the view stays where it was.
    let inner = list.first_element_child().unwrap();
    inner.set_attribute("style", "position:relative;height:2000px").unwrap();
    list.dispatch_event(&web_sys::Event::new("scroll").unwrap()).unwrap();
    TimeoutFuture::new(50).await;
    app.update(Grows { count: 100 });
    TimeoutFuture::new(50).await;
    assert!(root.text_content().unwrap().contains("row 99"), "{}", root.text_content().unwrap());
    // A scroll up is the reader's: the list lets go.
    list.set_scroll_top(0);
    TimeoutFuture::new(100).await;
    app.update(Grows { count: 200 });
    TimeoutFuture::new(50).await;
    assert!(!root.text_content().unwrap().contains("row 199"));
    assert!(root.text_content().unwrap().contains("row 0"));
}
