//! One line where the page differs from a real cluster, said at the moment
//! it matters (`crate::kubectl::differs`), linked to the docs' account of
//! every difference (`docs/fidelity.md`, copied next to the page).

use crate::i18n::tr;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub note: &'static str,
    #[prop_or_default]
    pub id: Option<AttrValue>,
}

#[function_component(Differs)]
pub fn differs(p: &Props) -> Html {
    let lang = use_context::<super::app::Ctx>().map(|c| c.0.lang).unwrap_or_default();
    html! {
        <div class="differs small" id={p.id.clone()} role="note">
            { p.note }{ " " }
            <a href="fidelity.md" target="_blank" rel="noopener">{ tr("how kubesim differs from a cluster", lang) }</a>
        </div>
    }
}
