//! A "copy" button: puts a text on the clipboard and says so for a moment.

use yew::prelude::*;

use crate::i18n::tr;

#[derive(Properties, PartialEq)]
pub struct Props {
    /// What goes on the clipboard.
    pub text: AttrValue,
    /// What the copy is of, for a screen reader ("copy the output").
    pub label: AttrValue,
    #[prop_or_default]
    pub id: Option<AttrValue>,
}

#[function_component(CopyButton)]
pub fn copy_button(p: &Props) -> Html {
    let lang = use_context::<super::app::Ctx>().map(|c| c.0.lang).unwrap_or_default();
    let copied = use_state(|| false);
    {
        // The confirmation goes after a while, or when the text changes.
        let copied = copied.clone();
        use_effect_with((p.text.clone(), *copied), move |(_, on)| {
            let timer = on.then(|| gloo::timers::callback::Timeout::new(1_500, move || copied.set(false)));
            move || drop(timer)
        });
    }
    let onclick = {
        let (text, copied) = (p.text.clone(), copied.clone());
        Callback::from(move |_| {
            if let Some(w) = web_sys::window() {
                // The promise settles on its own; a refused write leaves
                // the button saying "copy".
                let _ = w.navigator().clipboard().write_text(&text);
                copied.set(true);
            }
        })
    };
    html! {
        <button class="copy small" id={p.id.clone()} aria-label={p.label.clone()} {onclick}>
            { if *copied { tr("copied", lang) } else { tr("copy", lang) } }
        </button>
    }
}
