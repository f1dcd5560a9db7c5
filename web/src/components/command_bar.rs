//! The kubectl-style command bar: commands become the requests kubectl
//! sends (they show in the request log); `get -w` opens a watch lane.

use yew::prelude::*;

use super::app::Ctx;
use super::{input_value, textarea_value};
use crate::kubectl;
use crate::lanes::Lane;

#[function_component(CommandBar)]
pub fn command_bar() -> Html {
    let ctx = use_context::<Ctx>().expect("context");
    let line = use_state(|| "kubectl get pods,svc -A".to_string());
    let file = use_state(String::new);
    let output = use_state(|| None::<kubectl::Outcome>);
    // Runs a command line (the one typed, or a starter's).
    let run_line = {
        let (ctx, file, output) = (ctx.clone(), file.clone(), output.clone());
        Callback::from(move |line: String| {
            let out = ctx.run(|s| {
                let out = kubectl::run(s, &line, &file);
                if let Some((path, query)) = &out.watch {
                    let mut lane = Lane::new(s.next_lane_id(), path, query, false);
                    lane.start(s);
                    s.lanes.push(lane);
                }
                out
            });
            output.set(Some(out));
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
        Callback::from(move |e: KeyboardEvent| {
            if e.key() == "Enter" {
                e.prevent_default();
                run.emit(());
            }
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
    let out = (*output).clone().map(|o| {
        html! { <pre id="kubectl-output" class={if o.failed { "output failed" } else { "output" }}>{ o.text }</pre> }
    });
    html! {
        <div class="command-bar">
            <div class="row">
                <span class="prompt">{ "$" }</span>
                <input id="kubectl-line" class="grow mono" value={(*line).clone()} {oninput} {onkeydown}
                    placeholder="kubectl get pods -A" spellcheck="false" />
                <button id="kubectl-run" onclick={move |_| run.emit(())}>{ "run" }</button>
            </div>
            <textarea id="kubectl-file" class="mono" rows="5" value={(*file).clone()} oninput={onfile} spellcheck="false"
                placeholder="-f - reads this box: paste YAML here for create -f -, apply -f -, replace -f - (several documents separated by ---)" />
            { for out }
        </div>
    }
}
