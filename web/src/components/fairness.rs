//! "Fairness": API Priority and Fairness made visible. The priority levels
//! as the server's dispatcher holds them (seats: nominal, lower and upper
//! limits, the limit now, in use), and load scenarios — flows of requests,
//! each at a rate and a cost — run on simulated time through a fresh copy
//! of those levels (`Server::apf_scenario`): who was served, who waited,
//! who got a 429, and each level's queues frame by frame. The fix for a
//! noisy tenant is a FlowSchema and a priority level of its own, created
//! here by the page's own requests (they show in the request log).

use std::collections::BTreeMap;

use kubesim::server::dispatch::{LoadFlow, LoadRun};
use kubesim::server::Request;
use wasm_bindgen::JsCast;
use yew::prelude::*;

use super::app::Ctx;
use crate::session::Source;

const DURATION_MS: u64 = 20_000;
const FRAME_MS: u64 = 250;

fn flow(name: &str, user: &str, groups: &[&str], namespace: &str, rate: f64) -> LoadFlow {
    LoadFlow {
        name: name.to_string(),
        user: user.to_string(),
        groups: groups.iter().map(|g| g.to_string()).collect(),
        namespace: namespace.to_string(),
        verb: "list".into(),
        resource: "pods".into(),
        rate,
        cost_ms: 300,
        seats: 1,
    }
}

/// A scenario a workshop starts from.
struct Preset {
    title: &'static str,
    blurb: &'static str,
    flows: fn() -> Vec<LoadFlow>,
}

const PRESETS: &[Preset] = &[
    Preset {
        title: "One noisy user",
        blurb:
            "noisy lists pods 600 times a second, alice twice; each list takes 300 ms. Both land in global-default, \
                but in different queues: noisy's fill up and overflow (429), alice's stays short.",
        flows: || vec![flow("noisy", "noisy", &[], "team-a", 600.0), flow("alice", "alice", &[], "shop", 2.0)],
    },
    Preset {
        title: "A hundred batch users",
        blurb: "100 users of the batch-jobs group, 10 lists a second each: their hands of queues cover every queue \
                of global-default, so alice waits behind them and times out (429 after 15 s). Give batch-jobs a \
                level of its own and run it again.",
        flows: || {
            let mut f: Vec<LoadFlow> = (0..100)
                .map(|i| flow("batch-jobs", &format!("batch-{i:03}"), &["batch-jobs"], "batch", 10.0))
                .collect();
            f.push(flow("alice", "alice", &[], "shop", 2.0));
            f
        },
    },
];

/// Totals by flow name: (schema → level, sent, executed, rejected, summed wait ms).
type Summary = BTreeMap<String, (String, u64, u64, u64, u64)>;

fn summarize(flows: &[LoadFlow], run: &LoadRun) -> Summary {
    let mut out: Summary = BTreeMap::new();
    let classified = flows.iter().zip(&run.classified).filter(|(_, c)| c.is_some());
    for ((f, c), t) in classified.zip(&run.report.totals) {
        let e = out.entry(f.name.clone()).or_default();
        if let Some((schema, level)) = c {
            e.0 = format!("{schema} → {level}");
        }
        e.1 += t.sent;
        e.2 += t.executed;
        e.3 += t.rejected;
        e.4 += t.waited_ms;
    }
    out
}

/// The requests that give batch-jobs its own priority level.
fn isolate_batch() -> Vec<Request> {
    let level = r#"{"apiVersion":"flowcontrol.apiserver.k8s.io/v1","kind":"PriorityLevelConfiguration",
        "metadata":{"name":"batch"},"spec":{"type":"Limited","limited":{"nominalConcurrencyShares":10,
        "limitResponse":{"type":"Queue","queuing":{"queues":16,"handSize":4,"queueLengthLimit":50}}}}}"#;
    let schema = r#"{"apiVersion":"flowcontrol.apiserver.k8s.io/v1","kind":"FlowSchema",
        "metadata":{"name":"batch-jobs"},"spec":{"priorityLevelConfiguration":{"name":"batch"},
        "matchingPrecedence":1000,"distinguisherMethod":{"type":"ByUser"},
        "rules":[{"subjects":[{"kind":"Group","group":{"name":"batch-jobs"}}],
        "resourceRules":[{"verbs":["*"],"apiGroups":["*"],"resources":["*"],"clusterScope":true,"namespaces":["*"]}]}]}}"#;
    let base = "/apis/flowcontrol.apiserver.k8s.io/v1";
    [(format!("{base}/prioritylevelconfigurations"), level), (format!("{base}/flowschemas"), schema)]
        .into_iter()
        .map(|(path, body)| {
            let mut r = Request::new("POST", &path).with_header("Content-Type", "application/json");
            r.body = body.as_bytes().to_vec();
            r
        })
        .collect()
}

#[function_component(Fairness)]
pub fn fairness() -> Html {
    let ctx = use_context::<Ctx>().expect("context");
    // (preset, its flows, the run)
    let result = use_state(|| None::<(usize, Vec<LoadFlow>, LoadRun)>);
    let frame = use_state(|| 0usize);
    let levels: Vec<Html> = {
        let session = ctx.0.session.borrow();
        session
            .server
            .apf_dispatcher()
            .levels
            .iter()
            .filter(|(_, l)| l.configured)
            .map(|(name, l)| {
                let limit = if l.spec.exempt { "∞".to_string() } else { l.limit().to_string() };
                let queues = l.spec.queuing.map_or("—".to_string(), |q| {
                    format!("{} × {} (hand {})", q.queues, q.queue_length_limit, q.hand_size)
                });
                html! {
                    <tr>
                        <td class="mono">{ name.clone() }</td>
                        <td>{ l.nominal }</td><td>{ l.lower }</td><td>{ l.upper }</td>
                        <td>{ limit }</td><td>{ l.set.seats_in_use }</td><td class="small">{ queues }</td>
                    </tr>
                }
            })
            .collect()
    };
    let run_preset = |i: usize| {
        let (ctx, result, frame) = (ctx.clone(), result.clone(), frame.clone());
        Callback::from(move |_: MouseEvent| {
            let flows = (PRESETS[i].flows)();
            let run = ctx.0.session.borrow().server.apf_scenario(&flows, DURATION_MS, FRAME_MS);
            frame.set(run.report.frames.len().saturating_sub(1));
            result.set(Some((i, flows, run)));
        })
    };
    let isolate = {
        let ctx = ctx.clone();
        Callback::from(move |_: MouseEvent| {
            ctx.run(|s| {
                for r in isolate_batch() {
                    s.request(Source::Fairness, r);
                }
            });
        })
    };
    let scrub = {
        let frame = frame.clone();
        Callback::from(move |e: InputEvent| {
            if let Some(i) = e.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()) {
                frame.set(i.value().parse().unwrap_or(0));
            }
        })
    };
    let shown = result.as_ref().map(|(preset, flows, run)| {
        let summary = summarize(flows, run);
        let last = run.report.frames.len().saturating_sub(1);
        let at = (*frame).min(last);
        let f = run.report.frames.get(at);
        let rows = summary.iter().map(|(name, (route, sent, executed, rejected, waited))| {
            let mean = if *executed > 0 { format!("{} ms", waited / executed) } else { "—".into() };
            let class = if *rejected > 0 { "error" } else { "" };
            html! {
                <tr>
                    <td class="mono">{ name.clone() }</td><td class="mono small">{ route.clone() }</td>
                    <td>{ sent }</td><td>{ executed }</td><td class={class}>{ rejected }</td><td>{ mean }</td>
                </tr>
            }
        });
        let queues = f.map(|f| {
            f.levels.iter().map(|l| {
                let deepest = l.queues.iter().copied().max().unwrap_or(0).max(1);
                html! {
                    <div class="apf-level">
                        <div class="small"><span class="mono">{ l.level.clone() }</span>
                            { format!(" · seats {}/{} · waiting {}", l.seats_in_use, l.limit, l.queues.iter().sum::<u32>()) }</div>
                        <div class="apf-queues" title="requests waiting in each queue">
                            { for l.queues.iter().map(|n| {
                                let h = (f64::from(*n) / f64::from(deepest) * 100.0).round();
                                html! { <span class="apf-bar" style={format!("height:{h}%")} title={n.to_string()}></span> }
                            }) }
                        </div>
                    </div>
                }
            }).collect::<Html>()
        });
        html! {
            <div id="fairness-result">
                <div class="small muted">{ PRESETS[*preset].blurb }</div>
                <table class="apf-table" id="fairness-flows">
                    <tr><th>{ "flow" }</th><th>{ "FlowSchema → level" }</th><th>{ "sent" }</th><th>{ "served" }</th><th>{ "429" }</th><th>{ "mean wait" }</th></tr>
                    { for rows }
                </table>
                <div class="row">
                    <label for="fairness-time" class="small">{ format!("t = {:.2} s", f.map_or(0, |f| f.t_ms) as f64 / 1000.0) }</label>
                    <input id="fairness-time" class="grow" type="range" min="0" max={last.to_string()} value={at.to_string()} oninput={scrub} />
                </div>
                { for queues }
            </div>
        }
    });
    html! {
        <div id="fairness">
            <table class="apf-table" id="fairness-levels">
                <tr><th>{ "priority level" }</th><th>{ "nominal" }</th><th>{ "lower" }</th><th>{ "upper" }</th><th>{ "limit" }</th><th>{ "in use" }</th><th>{ "queues × length" }</th></tr>
                { for levels }
            </table>
            <div class="row">
                <span class="small muted">{ "Run 20 s of simulated load:" }</span>
                { for PRESETS.iter().enumerate().map(|(i, p)| html! {
                    <button id={format!("fairness-preset-{i}")} onclick={run_preset(i)}>{ p.title }</button>
                }) }
                <button id="fairness-isolate" onclick={isolate} title="creates a PriorityLevelConfiguration and a FlowSchema for the batch-jobs group">{ "Give batch-jobs its own level" }</button>
            </div>
            { for shown }
        </div>
    }
}
