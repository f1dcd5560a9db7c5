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
use yew::prelude::*;

use kubesim::flowcontrol::{shuffle, Dispatcher};

use super::app::Ctx;
use super::{input_by_id, input_value};
use crate::i18n::{en, fill, tr};
use crate::lessons::Lang;
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
        title: en("One noisy user"),
        blurb: en("noisy lists pods 600 times a second, alice twice; each list takes 300 ms. Both land in global-default, but in different queues: noisy’s fill up and overflow (429), alice’s stays short."),
        flows: || vec![flow("noisy", "noisy", &[], "team-a", 600.0), flow("alice", "alice", &[], "shop", 2.0)],
    },
    Preset {
        title: en("A hundred batch users"),
        blurb: en("100 users of the batch-jobs group, 10 lists a second each: their hands of queues cover every queue of global-default, so alice waits behind them and times out (429 after 15 s). Give batch-jobs a level of its own and run it again."),
        flows: || {
            let mut f: Vec<LoadFlow> = (0..100)
                .map(|i| flow("batch-jobs", &format!("batch-{i:03}"), &["batch-jobs"], "batch", 10.0))
                .collect();
            f.push(flow("alice", "alice", &[], "shop", 2.0));
            f
        },
    },
];

/// Totals by flow name.
#[derive(Default)]
struct Row {
    route: String,
    /// The queues its requests are dealt to (one hand per distinct flow).
    hands: Vec<Vec<u32>>,
    sent: u64,
    executed: u64,
    rejected: u64,
    waited_ms: u64,
}

fn summarize(flows: &[LoadFlow], run: &LoadRun, d: &Dispatcher) -> BTreeMap<String, Row> {
    let mut out: BTreeMap<String, Row> = BTreeMap::new();
    let classified = flows.iter().zip(&run.classified).filter_map(|(f, c)| c.as_ref().map(|c| (f, c)));
    for ((f, (schema, level, distinguisher)), t) in classified.zip(&run.report.totals) {
        let e = out.entry(f.name.clone()).or_default();
        e.route = format!("{schema} → {level}");
        let queuing = d.levels.get(level).and_then(|l| l.spec.queuing).filter(|q| q.queues > 1);
        if let Some(q) = queuing {
            let hand = shuffle::deal(shuffle::flow_hash(schema, distinguisher), q.queues, q.hand_size);
            if !e.hands.contains(&hand) {
                e.hands.push(hand);
            }
        }
        e.sent += t.sent;
        e.executed += t.executed;
        e.rejected += t.rejected;
        e.waited_ms += t.waited_ms;
    }
    out
}

/// A hand as the table shows it.
fn hands_text(hands: &[Vec<u32>]) -> String {
    match hands {
        [] => "—".into(),
        [one] => one.iter().map(u32::to_string).collect::<Vec<_>>().join(" "),
        many => format!("{} hands", many.len()),
    }
}

/// The builder's flow: `count` users (`user-0`, `user-1`, … when more
/// than one) each sending at `rate`.
fn built_flow(near: &web_sys::Event, lang: Lang) -> Result<Vec<LoadFlow>, String> {
    let user = input_by_id(near, "load-user").trim().to_string();
    if user.is_empty() {
        return Err(tr("a flow needs a user", lang).into());
    }
    let number = |id: &str, what: &'static str| -> Result<f64, String> {
        input_by_id(near, id)
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|n| n.is_finite() && *n > 0.0)
            .ok_or_else(|| fill(tr("{} must be a positive number", lang), &[&tr(what, lang)]))
    };
    let rate = number("load-rate", en("the rate"))?.min(5000.0);
    let cost = number("load-cost", en("the cost"))?.min(60_000.0) as u64;
    let count = number("load-count", en("the number of users"))?.min(200.0) as usize;
    let groups: Vec<&str> = Vec::new();
    let namespace = input_by_id(near, "load-namespace").trim().to_string();
    let group = input_by_id(near, "load-group").trim().to_string();
    Ok((0..count)
        .map(|i| {
            let name = if count > 1 { format!("{user}-{i}") } else { user.clone() };
            let mut f = flow(&user, &name, &groups, &namespace, rate);
            if !group.is_empty() {
                f.groups.push(group.clone());
            }
            f.cost_ms = cost.max(1);
            f
        })
        .collect())
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
    let lang = ctx.0.lang;
    // (what it was, its flows, the run)
    let result = use_state(|| None::<(String, Vec<LoadFlow>, LoadRun)>);
    let built = use_state(Vec::<LoadFlow>::new);
    let problem = use_state(|| None::<String>);
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
                // Seats borrowed (+) from, or lent (−) to, other levels.
                let moved = if l.spec.exempt { 0 } else { i64::from(l.limit()) - i64::from(l.nominal) };
                let moved = match moved {
                    0 => "0".to_string(),
                    n if n > 0 => format!("+{n}"),
                    n => format!("−{}", -n),
                };
                let queues = l.spec.queuing.map_or("—".to_string(), |q| {
                    fill(tr("{} × {} (hand {})", lang), &[&q.queues, &q.queue_length_limit, &q.hand_size])
                });
                html! {
                    <tr>
                        <td class="mono">{ name.clone() }</td>
                        <td>{ l.nominal }</td><td>{ l.lower }</td><td>{ l.upper }</td>
                        <td>{ limit }</td><td>{ moved }</td><td>{ l.set.seats_in_use }</td><td class="small">{ queues }</td>
                    </tr>
                }
            })
            .collect()
    };
    let run_flows = {
        let (ctx, result, frame) = (ctx.clone(), result.clone(), frame.clone());
        move |what: String, flows: Vec<LoadFlow>| {
            let run = ctx.0.session.borrow().server.apf_scenario(&flows, DURATION_MS, FRAME_MS);
            frame.set(run.report.frames.len().saturating_sub(1));
            result.set(Some((what, flows, run)));
        }
    };
    let run_preset = |i: usize| {
        let (run_flows, built) = (run_flows.clone(), built.clone());
        Callback::from(move |_: MouseEvent| {
            let flows = (PRESETS[i].flows)();
            built.set(flows.clone());
            run_flows(tr(PRESETS[i].blurb, lang).to_string(), flows);
        })
    };
    let add_flow = {
        let (built, problem) = (built.clone(), problem.clone());
        Callback::from(move |e: MouseEvent| match built_flow(&e, lang) {
            Ok(more) => {
                let mut all = (*built).clone();
                all.extend(more);
                built.set(all);
                problem.set(None);
            }
            Err(e) => problem.set(Some(e)),
        })
    };
    let run_built = {
        let (run_flows, built) = (run_flows.clone(), built.clone());
        Callback::from(move |_: MouseEvent| run_flows(tr("Your flows.", lang).to_string(), (*built).clone()))
    };
    let clear_built = {
        let built = built.clone();
        Callback::from(move |_: MouseEvent| built.set(Vec::new()))
    };
    let built_rows = {
        let mut by_name: BTreeMap<String, (usize, f64, u64, String)> = BTreeMap::new();
        for f in built.iter() {
            let e = by_name.entry(f.name.clone()).or_insert((0, f.rate, f.cost_ms, f.namespace.clone()));
            e.0 += 1;
        }
        by_name
            .into_iter()
            .map(|(name, (n, rate, cost, ns))| {
                let who = if n > 1 { fill(tr("{} users", lang), &[&n]) } else { tr("1 user", lang).into() };
                html! { <li class="small mono">{ fill(tr("{}: {} × {}/s, {} ms each, namespace {}", lang), &[&name, &who, &rate, &cost, &ns]) }</li> }
            })
            .collect::<Html>()
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
            frame.set(input_value(&e).parse().unwrap_or(0));
        })
    };
    let shown = result.as_ref().map(|(what, flows, run)| {
        let summary = {
            let session = ctx.0.session.borrow();
            summarize(flows, run, session.server.apf_dispatcher())
        };
        let last = run.report.frames.len().saturating_sub(1);
        let at = (*frame).min(last);
        let f = run.report.frames.get(at);
        let rows = summary.iter().map(|(name, r)| {
            let mean = r.waited_ms.checked_div(r.executed).map_or("—".into(), |ms| format!("{ms} ms"));
            let class = if r.rejected > 0 { "error" } else { "" };
            html! {
                <tr>
                    <td class="mono">{ name.clone() }</td><td class="mono small">{ r.route.clone() }</td>
                    <td>{ r.sent }</td><td>{ r.executed }</td><td class={class}>{ r.rejected }</td><td>{ mean }</td>
                    <td class="mono small" title={tr("the queues its requests are dealt to (shuffle sharding)", lang)}>{ hands_text(&r.hands) }</td>
                </tr>
            }
        });
        // The users of the flows that ran (in the run's order).
        let users: Vec<&str> = flows
            .iter()
            .zip(&run.classified)
            .filter(|(_, c)| c.is_some())
            .map(|(f, _)| f.user.as_str())
            .collect();
        let queues = f.map(|f| {
            f.levels.iter().map(|l| {
                let deepest = l.queues.iter().copied().max().unwrap_or(0).max(1);
                html! {
                    <div class="apf-level">
                        <div class="small"><span class="mono">{ l.level.clone() }</span>
                            { fill(tr(" · seats {}/{} · waiting {}", lang), &[&l.seats_in_use, &l.limit, &l.queues.iter().sum::<u32>()]) }</div>
                        <div class="apf-queues" title={tr("requests waiting in each queue", lang)}>
                            { for l.queues.iter().enumerate().map(|(qi, n)| {
                                let h = (f64::from(*n) / f64::from(deepest) * 100.0).round();
                                let who: Vec<&str> = l.queue_flows.get(qi).into_iter().flatten()
                                    .filter_map(|i| users.get(usize::from(*i)).copied()).collect();
                                let title = if who.is_empty() {
                                    fill(tr("queue {}: empty", lang), &[&qi])
                                } else {
                                    fill(tr("queue {}: {} waiting, from {}", lang), &[&qi, &n, &who.join(", ")])
                                };
                                html! { <span class="apf-bar" style={format!("height:{h}%")} title={title}></span> }
                            }) }
                        </div>
                    </div>
                }
            }).collect::<Html>()
        });
        html! {
            <div id="fairness-result">
                <div class="small muted">{ what.clone() }</div>
                <table class="apf-table" id="fairness-flows">
                    <tr><th>{ tr("flow", lang) }</th><th>{ tr("FlowSchema → level", lang) }</th><th>{ tr("sent", lang) }</th><th>{ tr("served", lang) }</th><th>{ "429" }</th><th>{ tr("mean wait", lang) }</th><th>{ tr("hand", lang) }</th></tr>
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
                <tr><th>{ tr("priority level", lang) }</th><th>{ tr("nominal", lang) }</th><th>{ tr("lower", lang) }</th><th>{ tr("upper", lang) }</th><th>{ tr("limit", lang) }</th><th title={tr("borrowed (+) or lent (−)", lang)}>{ "±" }</th><th>{ tr("in use", lang) }</th><th>{ tr("queues × length", lang) }</th></tr>
                { for levels }
            </table>
            <div class="row">
                <span class="small muted">{ tr("Run 20 s of simulated load:", lang) }</span>
                { for PRESETS.iter().enumerate().map(|(i, p)| html! {
                    <button id={format!("fairness-preset-{i}")} onclick={run_preset(i)}>{ tr(p.title, lang) }</button>
                }) }
                <button id="fairness-isolate" onclick={isolate} title={tr("creates a PriorityLevelConfiguration and a FlowSchema for the batch-jobs group", lang)}>{ tr("Give batch-jobs its own level", lang) }</button>
            </div>
            <details id="load-builder">
                <summary class="small">{ fill(tr("Build a scenario ({} flows)", lang), &[&built.len()]) }</summary>
                <div class="row small">
                    <input id="load-user" class="narrow-wide" placeholder={tr("user", lang)} value="carol" />
                    <input id="load-count" class="narrow" type="number" min="1" max="200" value="1" title={tr("how many users (user-0, user-1, …)", lang)} />
                    <input id="load-group" class="narrow-wide" placeholder={tr("group (optional)", lang)} />
                    <input id="load-namespace" class="narrow-wide" placeholder={tr("namespace", lang)} value="default" />
                    <input id="load-rate" class="narrow" type="number" min="1" value="50" title={tr("requests per second, each", lang)} />
                    <span>{ "/s ×" }</span>
                    <input id="load-cost" class="narrow" type="number" min="1" value="300" title={tr("milliseconds each request executes", lang)} />
                    <span>{ "ms" }</span>
                    <button id="load-add" onclick={add_flow}>{ tr("add flow", lang) }</button>
                    <button id="load-run" onclick={run_built} disabled={built.is_empty()}>{ tr("run", lang) }</button>
                    <button id="load-clear" onclick={clear_built}>{ tr("clear", lang) }</button>
                </div>
                { for problem.as_ref().map(|p| html! { <div class="error small">{ p.clone() }</div> }) }
                <ul class="load-flows">{ built_rows }</ul>
            </details>
            { for shown }
        </div>
    }
}
