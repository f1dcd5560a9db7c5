//! The reader's view choices in the top bar: text size, layout, theme
//! (`crate::view`), applied to the document element as `data-text`,
//! `data-layout` and `data-theme` (the stylesheet does the rest) and kept
//! in the browser's storage.

use yew::prelude::*;

use super::app::Ctx;
use super::select_value;
use crate::i18n::tr;
use crate::view::{Layout, Theme, ViewPrefs, TEXT_SIZES};

const KEY: &str = "kubesim.view";

fn storage() -> Option<web_sys::Storage> {
    web_sys::window().and_then(|w| w.local_storage().ok().flatten())
}

/// The choices saved last time (defaults when there are none).
pub fn load() -> ViewPrefs {
    storage().and_then(|s| s.get_item(KEY).ok().flatten()).map(|v| ViewPrefs::decode(&v)).unwrap_or_default()
}

fn save(p: &ViewPrefs) {
    if let Some(s) = storage() {
        let _ = s.set_item(KEY, &p.encode());
    }
}

/// Puts the choices on the document element for the stylesheet.
pub fn apply(p: &ViewPrefs) {
    let Some(root) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.document_element()) else {
        return;
    };
    let _ = root.set_attribute("data-text", &p.text.to_string());
    let _ = root.set_attribute("data-layout", p.layout.as_str());
    match p.theme {
        Theme::System => {
            let _ = root.remove_attribute("data-theme");
        }
        t => {
            let _ = root.set_attribute("data-theme", t.as_str());
        }
    }
}

#[derive(Properties, PartialEq)]
pub struct Props {
    pub prefs: ViewPrefs,
    pub on_change: Callback<ViewPrefs>,
}

#[function_component(ViewSettings)]
pub fn view_settings(p: &Props) -> Html {
    let lang = use_context::<Ctx>().map(|c| c.0.lang).unwrap_or_default();
    let change = |f: fn(ViewPrefs, &str) -> ViewPrefs| {
        let (prefs, on_change) = (p.prefs, p.on_change.clone());
        Callback::from(move |e: Event| {
            let next = f(prefs, &select_value(&e));
            save(&next);
            on_change.emit(next);
        })
    };
    let on_text = change(|p, v| ViewPrefs { text: v.parse().unwrap_or(p.text), ..p });
    let on_layout = change(|p, v| ViewPrefs { layout: Layout::parse(v).unwrap_or(p.layout), ..p });
    let on_theme = change(|p, v| ViewPrefs { theme: Theme::parse(v).unwrap_or(p.theme), ..p });
    let sizes = TEXT_SIZES.iter().map(|t| {
        html! { <option value={t.to_string()} selected={*t == p.prefs.text}>{ format!("{t} px") }</option> }
    });
    let layouts =
        [(Layout::All, tr("all panels", lang)), (Layout::Focus, tr("focus: kubectl, lanes, inspector", lang))].map(
            |(l, label)| {
                html! { <option value={l.as_str()} selected={l == p.prefs.layout}>{ label }</option> }
            },
        );
    let themes = [
        (Theme::System, tr("as the system", lang)),
        (Theme::Light, tr("light", lang)),
        (Theme::Dark, tr("dark", lang)),
    ]
    .map(|(t, label)| {
        html! { <option value={t.as_str()} selected={t == p.prefs.theme}>{ label }</option> }
    });
    html! {
        <div class="view-settings">
            <label for="view-text">{ tr("text", lang) }</label>
            <select id="view-text" onchange={on_text}>{ for sizes }</select>
            <label for="view-layout">{ tr("layout", lang) }</label>
            <select id="view-layout" onchange={on_layout}>{ for layouts }</select>
            <label for="view-theme">{ tr("theme", lang) }</label>
            <select id="view-theme" onchange={on_theme}>{ for themes }</select>
        </div>
    }
}
