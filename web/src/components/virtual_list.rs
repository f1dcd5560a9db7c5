//! A scrolling list that renders only the rows in view.

use yew::prelude::*;

use crate::virtual_window::{still_pinned, visible_rows};

#[derive(Properties, PartialEq)]
pub struct Props {
    pub count: usize,
    pub row_height: f64,
    pub height: f64,
    pub render: Callback<usize, Html>,
    /// Keep the view at the newest row while the user has not scrolled up.
    #[prop_or_default]
    pub follow: bool,
    #[prop_or_default]
    pub id: Option<AttrValue>,
    /// What the list holds, for a screen reader.
    #[prop_or_default]
    pub label: Option<AttrValue>,
}

/// A row's keys: Enter (or Space) does what a click on it does; the arrows
/// move to the row above or below.
fn row_keys(e: KeyboardEvent) {
    use wasm_bindgen::JsCast;
    let Some(row) = e.target_dyn_into::<web_sys::HtmlElement>() else { return };
    match e.key().as_str() {
        "Enter" | " " => {
            e.prevent_default();
            // The row's own action, or the one it marks `data-enter`.
            let target = row.query_selector("[data-enter]").ok().flatten().or_else(|| row.first_element_child());
            if let Some(inner) = target.and_then(|c| c.dyn_into::<web_sys::HtmlElement>().ok()) {
                inner.click();
            }
        }
        "ArrowDown" | "ArrowUp" => {
            e.prevent_default();
            let next = if e.key() == "ArrowDown" { row.next_element_sibling() } else { row.previous_element_sibling() };
            if let Some(n) = next.and_then(|n| n.dyn_into::<web_sys::HtmlElement>().ok()) {
                let _ = n.focus();
            }
        }
        _ => {}
    }
}

#[function_component(VirtualList)]
pub fn virtual_list(p: &Props) -> Html {
    let scroll = use_state(|| 0.0f64);
    let pinned = use_state(|| true);
    // Where the last scroll event left the view (a scroll up from there is
    // the reader's), and whether it left the list following: read by the
    // next event even before a render.
    let seen = use_mut_ref(|| (0.0f64, true));
    let node = use_node_ref();
    // Rows grow with the reader's text size.
    let scale = use_context::<crate::view::ViewPrefs>().map_or(1.0, |v| v.scale());
    let (row_height, height) = (p.row_height * scale, p.height * scale);
    let total = p.count as f64 * row_height;
    let at_bottom_top = (total - height).max(0.0);
    let top = if p.follow && *pinned { at_bottom_top } else { *scroll };
    {
        let node = node.clone();
        let follow = p.follow && *pinned;
        use_effect_with((p.count, follow), move |_| {
            if follow {
                if let Some(el) = node.cast::<web_sys::Element>() {
                    el.set_scroll_top(el.scroll_height());
                }
            }
        });
    }
    let onscroll = {
        let scroll = scroll.clone();
        let pinned = pinned.clone();
        let seen = seen.clone();
        Callback::from(move |e: Event| {
            if let Some(el) = e.target_dyn_into::<web_sys::Element>() {
                let t = el.scroll_top() as f64;
                let at_bottom = t + el.client_height() as f64 >= el.scroll_height() as f64 - 2.0;
                let (last, was) = *seen.borrow();
                let now = still_pinned(was, at_bottom, t < last);
                *seen.borrow_mut() = (t, now);
                scroll.set(t);
                pinned.set(now);
            }
        })
    };
    let (start, end) = visible_rows(top, height, row_height, p.count, 10);
    let rows = (start..end).map(|i| {
        let style = format!("position:absolute;top:{}px;left:0;right:0;height:{}px", i as f64 * row_height, row_height);
        html! { <div class="vrow" key={i} {style} tabindex="0" role="listitem" onkeydown={row_keys}>{ p.render.emit(i) }</div> }
    });
    html! {
        <div class="vlist" id={p.id.clone()} ref={node} style={format!("height:{}px", height)} {onscroll}
            tabindex="0" role="list" aria-label={p.label.clone()}>
            <div style={format!("position:relative;height:{total}px")}>{ for rows }</div>
        </div>
    }
}
