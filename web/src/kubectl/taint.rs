//! `taint nodes NAME… KEY[=VALUE]:EFFECT… [KEY[:EFFECT]-]…`: kubectl 1.33's
//! command as it behaves — the words with `=` or `:`, or ending in `-`,
//! are taints, the others the type and the names; each node is read, the
//! taints to add replace those of the same key and effect only with
//! `--overwrite`, and the new list is sent as the strategic merge patch
//! kubectl computes (`spec.taints` whole, or null when none are left) with
//! the field manager `kubectl-taint`.

use kubesim::selector::{label_key_problem, label_value_problems};

use super::*;

/// One taint as the command names it.
struct Taint {
    key: String,
    value: String,
    effect: String,
}

impl Taint {
    /// A taint to remove as upstream's `Taint.ToString` writes it (these
    /// have no value).
    fn text(&self) -> String {
        if self.effect.is_empty() {
            self.key.clone()
        } else {
            format!("{}:{}", self.key, self.effect)
        }
    }

    fn matches(&self, t: &Value) -> bool {
        t["key"] == self.key.as_str() && t["effect"] == self.effect.as_str()
    }
}

const EFFECTS: &[&str] = &["NoSchedule", "PreferNoSchedule", "NoExecute"];

/// `KEY[=VALUE][:EFFECT]`, checked as kubectl checks it.
fn parse_taint(spec: &str) -> Result<Taint, String> {
    let invalid = || format!("invalid taint spec: {spec}");
    let parts: Vec<&str> = spec.split(':').collect();
    let (key, value, effect) = match parts.as_slice() {
        [key] => (*key, "", ""),
        [kv, effect] => {
            if !EFFECTS.contains(effect) {
                return Err(format!("invalid taint effect: {effect}, unsupported taint effect"));
            }
            let kv: Vec<&str> = kv.split('=').collect();
            match kv.as_slice() {
                [key] => (*key, "", *effect),
                [key, value] => {
                    let problems = label_value_problems(value);
                    if !problems.is_empty() {
                        return Err(format!("{}, {}", invalid(), problems.join("; ")));
                    }
                    (*key, *value, *effect)
                }
                _ => return Err(invalid()),
            }
        }
        _ => return Err(invalid()),
    };
    if let Some(problem) = label_key_problem(key) {
        return Err(format!("{}, {problem}", invalid()));
    }
    Ok(Taint { key: key.into(), value: value.into(), effect: effect.into() })
}

/// The taints to add and those to remove (`KEY[:EFFECT]-`).
fn parse_taints(specs: &[&String]) -> Result<(Vec<Taint>, Vec<Taint>), String> {
    let (mut add, mut remove) = (Vec::<Taint>::new(), Vec::new());
    for spec in specs {
        if let Some(gone) = spec.strip_suffix('-') {
            let t = parse_taint(gone)?;
            remove.push(Taint { value: String::new(), ..t });
            continue;
        }
        let t = parse_taint(spec)?;
        if t.effect.is_empty() {
            return Err(format!("invalid taint spec: {spec}"));
        }
        if add.iter().any(|a| a.key == t.key && a.effect == t.effect) {
            // Go's `%v` of the Taint struct.
            return Err(format!(
                "duplicated taints with the same key and effect: {{{} {} {} <nil>}}",
                t.key, t.value, t.effect
            ));
        }
        add.push(t);
    }
    Ok((add, remove))
}

pub(super) fn taint(s: &mut Session, d: &Discovery, cmd: &Command, out: &mut Outcome) {
    let (specs, resources): (Vec<&String>, Vec<&String>) =
        cmd.args.iter().partition(|a| a.contains('=') || a.contains(':') || a.ends_with('-'));
    if resources.is_empty() {
        return out.error("error: one or more resources must be specified as <resource> <name>");
    }
    if specs.is_empty() {
        return out.error("error: at least one taint update is required");
    }
    let (add, remove) = match parse_taints(&specs) {
        Ok(parsed) => parsed,
        Err(e) => return out.error(format!("error: {e}\nSee 'kubectl taint -h' for help and examples")),
    };
    let Some(r) = resolve(d, resources[0], out) else { return };
    if r.kind != "Node" {
        return out.error(format!("error: invalid resource type {}, only node types are supported", resources[0]));
    }
    let conflicts: Vec<String> = remove
        .iter()
        .filter(|gone| add.iter().any(|a| a.key == gone.key && (gone.effect.is_empty() || a.effect == gone.effect)))
        .map(|gone| format!("{}={}", gone.key, gone.effect))
        .collect();
    if !conflicts.is_empty() {
        return out.error(format!(
            "error: can not both modify and remove the following taint(s) in the same command: {}",
            conflicts.join(", ")
        ));
    }
    if resources.len() < 2 {
        return out.error("error: at least one resource name must be specified since 'all' parameter is not set");
    }
    for name in &resources[1..] {
        let item = r.item(None, name);
        let live = send(s, "GET", &item, None, None, "application/json");
        if live.response.status != 200 {
            return out.error(server_error(&live));
        }
        let old: Vec<Value> = body_json(&live.response)["spec"]["taints"].as_array().cloned().unwrap_or_default();
        if !cmd.overwrite {
            let existing: Vec<&str> =
                add.iter().filter(|a| old.iter().any(|t| a.matches(t))).map(|a| a.key.as_str()).collect();
            if !existing.is_empty() {
                return out.error(format!(
                    "error: node {name} already has {} taint(s) with same effect(s) and --overwrite is false",
                    existing.join(",")
                ));
            }
        }
        // The new list: those added, then the old ones they do not replace,
        // less those removed (kubectl's `reorganizeTaints`).
        let mut taints: Vec<Value> = add
            .iter()
            .map(|a| {
                let mut t = json!({"key": a.key, "effect": a.effect});
                if !a.value.is_empty() {
                    t["value"] = json!(a.value);
                }
                t
            })
            .collect();
        taints.extend(old.iter().filter(|t| !add.iter().any(|a| a.matches(t))).cloned());
        // As kubectl counts it: the list grew past the old one.
        let added = old.len() != taints.len();
        let mut errors = Vec::new();
        let mut deleted = false;
        for gone in &remove {
            let had = taints.len();
            taints.retain(|t| {
                !(t["key"] == gone.key.as_str() && (gone.effect.is_empty() || t["effect"] == gone.effect.as_str()))
            });
            deleted = taints.len() != had;
            if !deleted {
                errors.push(format!("taint {:?} not found", gone.text()));
            }
        }
        match errors.as_slice() {
            [] => {}
            [one] => return out.error(format!("error: {one}")),
            many => return out.error(format!("error: [{}]", many.join(", "))),
        }
        let operation = if (added && deleted) || cmd.overwrite {
            "modified"
        } else if added {
            "tainted"
        } else {
            "untainted"
        };
        let list = if taints.is_empty() { Value::Null } else { Value::Array(taints) };
        let patch = json!({"spec": {"taints": list}});
        let target = dry(cmd, format!("{item}?fieldManager=kubectl-taint&fieldValidation=Strict"));
        let e =
            send(s, "PATCH", &target, Some("application/strategic-merge-patch+json"), Some(&patch), "application/json");
        if e.response.status != 200 {
            return out.error(server_error(&e));
        }
        out.line(format!("node/{name} {operation}"));
    }
}
