//! "Metrics": a few of `/metrics`' series charted over simulated time (the
//! last two minutes, one reading a second): request rate by verb or by
//! code, requests in flight, and requests waiting in API Priority and
//! Fairness' queues by level — people would rather look than read.

use yew::prelude::*;

use super::app::Ctx;
use crate::i18n::{en, fill, tr};
use crate::samples::History;

const W: f64 = 460.0;
const H: f64 = 120.0;
const COLORS: &[&str] = &["#326ce5", "#c0392b", "#1f8a4c", "#b7791f", "#8e44ad", "#16a085", "#7f8c8d", "#d35400"];

#[derive(Clone, Copy, PartialEq)]
enum Chart {
    Verbs,
    Codes,
    Inflight,
    Waiting,
}

const CHARTS: &[(Chart, &str)] = &[
    (Chart::Verbs, en("requests/s by verb")),
    (Chart::Codes, en("requests/s by code")),
    (Chart::Inflight, en("in flight (last second's most)")),
    (Chart::Waiting, en("waiting in APF queues")),
];

/// The named lines of a chart.
fn lines(h: &History, chart: Chart) -> Vec<(String, Vec<(f64, f64)>)> {
    match chart {
        Chart::Verbs => h
            .verbs()
            .into_iter()
            .map(|v| {
                let points = h.rates(|s| s.by_verb.get(&v).copied().unwrap_or(0.0));
                (v, points)
            })
            .collect(),
        Chart::Codes => h
            .codes()
            .into_iter()
            .map(|c| {
                let points = h.rates(|s| s.by_code.get(&c).copied().unwrap_or(0.0));
                (c, points)
            })
            .collect(),
        Chart::Inflight => {
            vec![("readOnly".into(), h.levels(|s| s.inflight.0)), ("mutating".into(), h.levels(|s| s.inflight.1))]
        }
        Chart::Waiting => {
            let names: Vec<String> = h.samples.back().map(|s| s.waiting.keys().cloned().collect()).unwrap_or_default();
            let mut out: Vec<(String, Vec<(f64, f64)>)> = names
                .into_iter()
                .map(|n| {
                    let points = h.levels(|s| s.waiting.get(&n).copied().unwrap_or(0.0));
                    (n, points)
                })
                .collect();
            if out.is_empty() {
                out.push(("all levels".into(), h.levels(|_| 0.0)));
            }
            out
        }
    }
}

#[function_component(MetricsChart)]
pub fn metrics_chart() -> Html {
    let ctx = use_context::<Ctx>().expect("context");
    let lang = ctx.0.lang;
    let chart = use_state(|| Chart::Verbs);
    let data = {
        let session = ctx.0.session.borrow();
        lines(&session.history, *chart)
    };
    let x_max = data.iter().flat_map(|(_, p)| p.iter().map(|(x, _)| *x)).fold(1.0f64, f64::max);
    let y_max = data.iter().flat_map(|(_, p)| p.iter().map(|(_, y)| *y)).fold(1.0f64, f64::max);
    let polylines = data.iter().enumerate().map(|(i, (_, points))| {
        let pts: Vec<String> =
            points.iter().map(|(x, y)| format!("{:.1},{:.1}", x / x_max * W, H - y / y_max * (H - 4.0))).collect();
        html! { <polyline points={pts.join(" ")} fill="none" stroke={COLORS[i % COLORS.len()]} stroke-width="1.5" /> }
    });
    let legend = data.iter().enumerate().map(|(i, (name, points))| {
        let last = points.last().map_or(0.0, |(_, y)| *y);
        html! {
            <span class="legend"><span class="swatch" style={format!("background:{}", COLORS[i % COLORS.len()])}></span>
                { format!("{name} {last:.1}") }</span>
        }
    });
    let pick = |c: Chart| {
        let chart = chart.clone();
        Callback::from(move |_: MouseEvent| chart.set(c))
    };
    html! {
        <div id="metrics-chart">
            <div class="row">
                { for CHARTS.iter().map(|(c, label)| html! {
                    <button class={if *chart == *c { "selected" } else { "" }} onclick={pick(*c)}>{ tr(label, lang) }</button>
                }) }
            </div>
            <svg class="chart" viewBox={format!("0 0 {W} {H}")} preserveAspectRatio="none" role="img"
                aria-label={tr("the chosen series over the last two minutes of simulated time", lang)}>
                <line x1="0" y1={H.to_string()} x2={W.to_string()} y2={H.to_string()} class="axis" />
                { for polylines }
            </svg>
            <div class="row small">{ fill(tr("max {} · last {} s of simulated time · ", lang), &[&format!("{y_max:.1}"), &format!("{x_max:.0}")]) }{ for legend }</div>
        </div>
    }
}
