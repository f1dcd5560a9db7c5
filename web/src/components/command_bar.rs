//! The kubectl-style command bar: commands become the requests kubectl
//! sends (they show in the request log); `get -w` opens a watch lane. It
//! behaves like a terminal: each command is echoed above its output, the
//! earlier ones stay in a scroll-back, ↑/↓ recall past commands and Ctrl-L
//! clears the screen.

use yew::prelude::*;

use super::app::Ctx;
use super::{input_value, textarea_value, CopyButton, Differs};
use crate::i18n::tr;
use crate::kubectl;

/// How many earlier commands the scroll-back keeps.
const SCROLLBACK: usize = 50;

#[function_component(CommandBar)]
pub fn command_bar() -> Html {
    let ctx = use_context::<Ctx>().expect("context");
    let lang = ctx.0.lang;
    let line = use_state(|| "kubectl get pods,svc -A".to_string());
    let file = use_state(String::new);
    // The latest command and what it printed; the ones before it.
    let output = use_state(|| None::<(String, kubectl::Outcome)>);
    let scrollback = use_state(Vec::<(String, kubectl::Outcome)>::new);
    // Commands run so far: the scroll-back moves down to its newest entry
    // after each, as a terminal's does.
    let runs = use_state(|| 0u64);
    let back_ref = use_node_ref();
    {
        let back_ref = back_ref.clone();
        use_effect_with(*runs, move |_| {
            if let Some(el) = back_ref.cast::<web_sys::Element>() {
                el.set_scroll_top(el.scroll_height());
            }
        });
    }
    // Every command run, oldest first, and where ↑/↓ stand in it.
    let commands = use_state(Vec::<String>::new);
    let recall = use_state(|| None::<usize>);
    // Runs a command line (the one typed, or a starter's).
    let execute = {
        let (ctx, file, output) = (ctx.clone(), file.clone(), output.clone());
        let (scrollback, commands, recall, runs) = (scrollback.clone(), commands.clone(), recall.clone(), runs.clone());
        Callback::from(move |line: String| {
            let out = ctx.run(|s| {
                let out = kubectl::run(s, &line, &file);
                if let Some((path, query)) = &out.watch {
                    s.open_lane(path, query, false);
                }
                out
            });
            // `edit` hands out the object to change, and empties the box
            // once it is saved.
            if let Some(text) = &out.edit {
                file.set(text.clone());
            }
            if let Some(previous) = (*output).clone() {
                let mut back = (*scrollback).clone();
                back.push(previous);
                let excess = back.len().saturating_sub(SCROLLBACK);
                back.drain(..excess);
                scrollback.set(back);
            }
            let mut past = (*commands).clone();
            if past.last() != Some(&line) {
                past.push(line.clone());
            }
            commands.set(past);
            recall.set(None);
            runs.set(*runs + 1);
            output.set(Some((line, out)));
        })
    };
    // The first `explain` waits for the fields' descriptions, which the
    // page loads only then (kubectl::explain).
    // An element's files are in its own directory, not next to the page.
    let base = ctx.0.embed.as_ref().map(|e| e.base.clone()).unwrap_or_default();
    let run_line = {
        let execute = execute.clone();
        Callback::from(move |line: String| {
            if !kubectl::wants_docs(&line) {
                execute.emit(line);
                return;
            }
            let execute = execute.clone();
            let url = base.clone() + kubectl::DOCS_FILE;
            wasm_bindgen_futures::spawn_local(async move {
                kubectl::set_docs(fetch_json(&url).await);
                execute.emit(line);
            });
        })
    };
    let run = {
        let (run_line, line) = (run_line.clone(), line.clone());
        Callback::from(move |_: ()| run_line.emit((*line).clone()))
    };
    // A starter's command: shown in the line, then run.
    {
        let (line, run_line) = (line.clone(), run_line.clone());
        let asked = ctx.0.try_command.clone();
        use_effect_with(asked, move |asked| {
            if let Some((_, cmd)) = asked {
                line.set(cmd.clone());
                run_line.emit(cmd.clone());
            }
        });
    }
    let onkeydown = {
        let run = run.clone();
        let (line, commands, recall) = (line.clone(), commands.clone(), recall.clone());
        let (output, scrollback) = (output.clone(), scrollback.clone());
        Callback::from(move |e: KeyboardEvent| match e.key().as_str() {
            "Enter" => {
                e.prevent_default();
                run.emit(());
            }
            "ArrowUp" | "ArrowDown" if !commands.is_empty() => {
                e.prevent_default();
                let last = commands.len() - 1;
                let at = match (e.key().as_str(), *recall) {
                    ("ArrowUp", None) => Some(last),
                    ("ArrowUp", Some(i)) => Some(i.saturating_sub(1)),
                    ("ArrowDown", Some(i)) if i < last => Some(i + 1),
                    _ => None,
                };
                line.set(at.map(|i| commands[i].clone()).unwrap_or_default());
                recall.set(at);
            }
            "l" | "L" if e.ctrl_key() => {
                e.prevent_default();
                output.set(None);
                scrollback.set(Vec::new());
            }
            _ => {}
        })
    };
    let oninput = {
        let line = line.clone();
        Callback::from(move |e: InputEvent| line.set(input_value(&e)))
    };
    let onfile = {
        let file = file.clone();
        Callback::from(move |e: InputEvent| file.set(textarea_value(&e)))
    };
    let out = (*output).clone().map(|(line, o)| {
        html! {
            <>
                <div class="echo mono">
                    <span id="kubectl-echo">{ format!("$ {line}") }</span>
                    <CopyButton id="kubectl-copy" text={o.text.clone()} label={tr("copy the output", lang)} />
                </div>
                <pre id="kubectl-output" class={if o.failed { "output failed" } else { "output" }} aria-live="polite">{ o.text }</pre>
                if let Some(note) = o.differs { <Differs id="kubectl-differs" {note} /> }
            </>
        }
    });
    let back = (!scrollback.is_empty()).then(|| {
        html! {
            <div class="scrollback" id="kubectl-scrollback" ref={back_ref.clone()} aria-label={tr("earlier commands", lang)}>
                { for scrollback.iter().map(|(line, o)| html! {
                    <>
                        <div class="echo mono">
                            <span>{ format!("$ {line}") }</span>
                            <CopyButton text={o.text.clone()} label={tr("copy this output", lang)} />
                        </div>
                        <pre class={if o.failed { "output failed" } else { "output" }}>{ o.text.clone() }</pre>
                    </>
                }) }
            </div>
        }
    });
    html! {
        <div class="command-bar">
            <div class="row">
                <span class="prompt">{ "$" }</span>
                <input id="kubectl-line" class="grow mono" value={(*line).clone()} {oninput} {onkeydown}
                    placeholder="kubectl get pods -A" spellcheck="false" aria-label={tr("kubectl command (↑/↓ recall, Ctrl-L clears)", lang)} />
                <button id="kubectl-run" onclick={move |_| run.emit(())}>{ tr("run", lang) }</button>
            </div>
            <textarea id="kubectl-file" class="mono" rows="5" value={(*file).clone()} oninput={onfile} spellcheck="false"
                placeholder={tr("-f - reads this box: paste YAML here for create -f -, apply -f -, replace -f - (several documents separated by ---)", lang)} />
            { for back }
            { for out }
        </div>
    }
}

/// A JSON file next to the page, or `None` when it cannot be had.
async fn fetch_json(url: &str) -> Option<serde_json::Value> {
    serde_json::from_str(&super::fetch_text(url).await.ok()?).ok()
}
