//! The object inspector: the object as YAML or JSON, its revision history
//! with diffs, and its lifecycle as phases (live → terminating → removed),
//! refreshed whenever a new write to it shows on the timeline.

use kubesim::server::Request;
use serde_json::{json, Value};
use yew::prelude::*;

use super::app::{Ctx, ObjectRef};
use super::{CopyButton, WireLens};
use crate::format::{diff_lines, to_pretty_json, to_yaml};
use crate::i18n::{en, fill, tr};
use crate::lessons::Lang;
use crate::ownership::{conflict_fields, field_tree};
use crate::session::{body_json, Session, Source};

#[derive(Clone, PartialEq)]
enum Phase {
    Live,
    Terminating,
    Removed,
    Unknown,
}

fn item_path(o: &ObjectRef) -> String {
    crate::paths::item(&o.group, &o.version, &o.resource, Some(&o.namespace), &o.name)
}

/// The object as it was at `rev` (a list at that resourceVersion, Exact,
/// narrowed to the name), or the server's refusal.
fn version_at(s: &mut Session, o: &ObjectRef, rev: u64) -> Result<String, String> {
    let path = format!(
        "{}?resourceVersion={rev}&resourceVersionMatch=Exact&fieldSelector=metadata.name%3D{}",
        crate::paths::collection(&o.group, &o.version, &o.resource, Some(&o.namespace)),
        crate::format::encode_component(&o.name)
    );
    let e = s.request(Source::Inspector, Request::new("GET", &path).with_header("Accept", "application/json"));
    let v = body_json(&e.response);
    if e.response.status != 200 {
        return Err(format!(
            "{} {}: {}",
            e.response.status,
            v["reason"].as_str().unwrap_or(""),
            v["message"].as_str().unwrap_or("")
        ));
    }
    Ok(match v["items"].as_array().and_then(|a| a.first()) {
        Some(obj) => to_yaml(obj),
        None => "(absent at this revision)\n".to_string(),
    })
}

#[function_component(Inspector)]
pub fn inspector() -> Html {
    let ctx = use_context::<Ctx>().expect("context");
    let lang = ctx.0.lang;
    let current = use_state(|| None::<(u16, Value)>);
    let seen_live = use_state(|| false);
    let as_yaml = use_state(|| true);
    let diff = use_state(|| None::<(u64, u64, Result<Vec<(char, String)>, String>)>);
    let target = ctx.0.inspect.clone().unwrap_or(ObjectRef {
        group: String::new(),
        version: String::new(),
        resource: String::new(),
        namespace: String::new(),
        name: String::new(),
    });
    let history: Vec<(u64, &'static str)> = {
        let s = ctx.0.session.borrow();
        s.timeline
            .revisions_of(&target.group, &target.resource, &target.namespace, &target.name)
            .iter()
            .map(|p| (p.revision, p.verb()))
            .collect()
    };
    let latest = history.last().map(|h| h.0).unwrap_or(0);
    {
        let seen_live = seen_live.clone();
        use_effect_with(target.clone(), move |_| seen_live.set(false));
    }
    {
        let (ctx, current, seen_live, diff) = (ctx.clone(), current.clone(), seen_live.clone(), diff.clone());
        use_effect_with((target.clone(), latest), move |(t, _)| {
            if t.name.is_empty() {
                return;
            }
            let e = ctx.run(|s| {
                s.request(
                    Source::Inspector,
                    Request::new("GET", &item_path(t)).with_header("Accept", "application/json"),
                )
            });
            if e.response.status == 200 {
                seen_live.set(true);
            }
            current.set(Some((e.response.status, body_json(&e.response))));
            diff.set(None);
        });
    }
    if target.name.is_empty() {
        return html! { <div class="muted">{ tr("Name an object above (type, namespace, name — each completes), or click one in a watch lane, the owners view or the timeline.", lang) }</div> };
    }
    let (status, obj) = (*current).clone().unwrap_or((0, Value::Null));
    // The fields the last server-side apply conflict on this object named.
    let conflicts: Vec<String> = {
        let s = ctx.0.session.borrow();
        let path = item_path(&target);
        s.log
            .iter()
            .rev()
            .find(|e| e.request.path == path && e.request.method == "PATCH" && e.source != Source::Controller)
            .map(|e| conflict_fields(&body_json(&e.response)))
            .unwrap_or_default()
    };
    let deleted_on_timeline = history.last().is_some_and(|h| h.1 == "delete");
    let phase = match status {
        200 if obj.pointer("/metadata/deletionTimestamp").is_some() => Phase::Terminating,
        200 => Phase::Live,
        404 if *seen_live || deleted_on_timeline => Phase::Removed,
        _ => Phase::Unknown,
    };
    let finalizers: Vec<String> = obj
        .pointer("/metadata/finalizers")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).map(str::to_string).collect())
        .unwrap_or_default();
    let remove_buttons = finalizers.iter().enumerate().map(|(i, f)| {
        let (ctx, t, f2) = (ctx.clone(), target.clone(), f.clone());
        let onclick = Callback::from(move |_| {
            // The real update: a JSON patch that tests the entry is still
            // there, then removes it.
            let patch = json!([{"op": "test", "path": format!("/metadata/finalizers/{i}"), "value": f2},
                               {"op": "remove", "path": format!("/metadata/finalizers/{i}")}]);
            ctx.run(|s| {
                s.request(
                    Source::Inspector,
                    Request::new("PATCH", &item_path(&t))
                        .with_header("Content-Type", "application/json-patch+json")
                        .with_header("Accept", "application/json")
                        .with_body(serde_json::to_vec(&patch).unwrap_or_default()),
                )
            });
        });
        html! { <li><span class="mono">{ f.clone() }</span><button class="remove-finalizer" data-finalizer={f.clone()} {onclick}>{ tr("remove", lang) }</button></li> }
    });
    let phase_box = |p: Phase, label: &'static str| {
        let on = phase == p;
        html! {
            <span class={if on { "phase on" } else { "phase" }} data-phase={label.to_string()}
                aria-current={on.then_some("step")}>{ tr(label, lang) }</span>
        }
    };
    let rows = history.iter().enumerate().rev().map(|(i, (rev, verb))| {
        let prev = i.checked_sub(1).map(|j| history[j].0);
        let (ctx, t, diff, rev) = (ctx.clone(), target.clone(), diff.clone(), *rev);
        let onclick = Callback::from(move |_| {
            let result = ctx.run(|s| {
                let new = version_at(s, &t, rev)?;
                let old = match prev {
                    Some(p) => version_at(s, &t, p)?,
                    None => String::new(),
                };
                Ok(diff_lines(&old, &new))
            });
            diff.set(Some((prev.unwrap_or(0), rev, result)));
        });
        html! { <div class="hist"><span class="rv">{ rev }</span>{ format!(" {verb} ") }<button class="show-diff" {onclick}>{ tr("diff with previous", lang) }</button></div> }
    });
    let diff_view = (*diff).clone().map(|(a, b, r)| match r {
        Ok(lines) => html! {
            <div class="diff" id="diff">
                <div class="muted">{ fill(tr("revision {} → {}", lang), &[&a, &b]) }</div>
                { for lines.into_iter().map(|(tag, l)| {
                    let class = match tag { '+' => "add", '-' => "del", _ => "same" };
                    html!{ <div class={class}>{ format!("{tag} {l}") }</div> }
                }) }
            </div>
        },
        Err(e) => html! { <div class="diff bad" id="diff">{ e }</div> },
    });
    let body = if status == 200 {
        if *as_yaml {
            to_yaml(&obj)
        } else {
            to_pretty_json(&obj)
        }
    } else {
        obj.get("message").and_then(Value::as_str).map(|m| format!("{status}: {m}")).unwrap_or_default()
    };
    let toggle = {
        let as_yaml = as_yaml.clone();
        Callback::from(move |_| as_yaml.set(!*as_yaml))
    };
    html! {
        <div class="inspector">
            <div class="mono"><b>{ format!("{} {}", target.resource, if target.namespace.is_empty() { target.name.clone() } else { format!("{}/{}", target.namespace, target.name) }) }</b></div>
            <div class="phases" id="phases" aria-live="polite" aria-label={tr("lifecycle phase", lang)}>
                { phase_box(Phase::Live, en("live")) }<span class="arrow">{ "→" }</span>
                { phase_box(Phase::Terminating, en("terminating")) }<span class="arrow">{ "→" }</span>
                { phase_box(Phase::Removed, en("removed")) }
            </div>
            if phase == Phase::Terminating {
                <div class="terminating">
                    { fill(tr("deletionTimestamp {} — waiting on {} finalizer(s):", lang), &[&obj.pointer("/metadata/deletionTimestamp").and_then(Value::as_str).unwrap_or(""), &finalizers.len()]) }
                    <ul id="finalizers">{ for remove_buttons }</ul>
                </div>
            } else if !finalizers.is_empty() {
                <div class="muted">{ fill(tr("finalizers: {}", lang), &[&finalizers.join(", ")]) }</div>
            }
            <div class="row">
                <button onclick={toggle}>{ if *as_yaml { tr("show JSON", lang) } else { tr("show YAML", lang) } }</button>
                <CopyButton id="inspector-copy" text={body.clone()} label={tr("copy the object", lang)} />
            </div>
            <pre class="body" id="inspector-body" tabindex="0" aria-label={tr("the object", lang)}>{ body }</pre>
            if status == 200 {
                <WireLens body={std::rc::Rc::new(serde_json::to_vec(&obj).unwrap_or_default())} at={ctx.0.session.borrow().server.now()} />
            }
            { ownership_view(&obj, &conflicts, lang) }
            <div class="history"><b>{ tr("Revision history", lang) }</b>{ for rows }</div>
            { for diff_view }
        </div>
    }
}

/// managedFields as a tree of fields, each with a badge per manager owning
/// it: a colour per manager, filled for Apply and outlined for Update; the
/// fields of the last apply conflict marked.
fn ownership_view(obj: &Value, conflicts: &[String], lang: Lang) -> Html {
    let tree = field_tree(obj);
    if tree.managers.is_empty() {
        return html! {};
    }
    let badge = |i: usize| {
        let m = &tree.managers[i];
        let class = classes!("fo-badge", format!("fo-m{}", i % 6), if m.apply { "fo-apply" } else { "fo-update" });
        html! { <span {class} title={format!("{} ({}) {}", m.name, m.operation, m.time)}>{ m.name.clone() }</span> }
    };
    html! {
        <div class="ownership" id="ownership"><b>{ tr("Field ownership", lang) }</b>
            <div class="fo-legend">{ for (0..tree.managers.len()).map(|i| html! {
                <span class="fo-manager">{ badge(i) }{ format!(" {} {}", tree.managers[i].operation, tree.managers[i].time) }</span>
            }) }</div>
            <div class="fo-tree mono" role="tree" tabindex="0" aria-label={tr("fields and their managers", lang)}>{ for tree.rows.iter().map(|r| {
                let conflict = conflicts.contains(&r.path);
                html! {
                    <div class={classes!("fo-row", conflict.then_some("fo-conflict"))} role="treeitem" data-path={r.path.clone()}
                        style={format!("padding-left: {}em", r.depth as f32 * 1.2)}>
                        <span class="fo-label">{ r.label.clone() }</span>
                        { for r.owners.iter().map(|i| badge(*i)) }
                        { for conflict.then(|| html! { <span class="fo-conflict-note">{ tr("conflict", lang) }</span> }) }
                    </div>
                }
            }) }</div>
        </div>
    }
}
