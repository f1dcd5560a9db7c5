//! RBAC rules as kubectl shows them (`auth can-i --list`, `describe role`):
//! each rule broken down to one verb on one resource of one group (and one
//! name), or one verb on one URL; those for the same group, resource and
//! name gathered again, each verb once, in the order met; the rules for
//! URLs left as they are, repeats and all; the whole sorted by the rule as
//! Go's generated `String()` prints it.

use kubesim::sort::Order;
use serde_json::Value;

/// One rule, as kubectl's RBAC helpers hold it.
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct Rule {
    verbs: Vec<String>,
    groups: Vec<String>,
    resources: Vec<String>,
    names: Vec<String>,
    urls: Vec<String>,
}

/// A list as Go's `%v` prints a `[]string`.
fn go_list(items: &[String]) -> String {
    format!("[{}]", items.join(" "))
}

fn strings(v: &Value, k: &str) -> Vec<String> {
    v[k].as_array().into_iter().flatten().filter_map(Value::as_str).map(str::to_string).collect()
}

/// A rule (a PolicyRule, or a rules review's resource or non-resource
/// rule) broken down.
fn breakdown(rule: &Value, into: &mut Vec<Rule>) {
    let (verbs, names) = (strings(rule, "verbs"), strings(rule, "resourceNames"));
    for group in strings(rule, "apiGroups") {
        for resource in strings(rule, "resources") {
            for verb in &verbs {
                let one = |names: Vec<String>| Rule {
                    verbs: vec![verb.clone()],
                    groups: vec![group.clone()],
                    resources: vec![resource.clone()],
                    names,
                    urls: Vec::new(),
                };
                if names.is_empty() {
                    into.push(one(Vec::new()));
                }
                into.extend(names.iter().map(|n| one(vec![n.clone()])));
            }
        }
    }
    for url in strings(rule, "nonResourceURLs") {
        into.extend(verbs.iter().map(|v| Rule { verbs: vec![v.clone()], urls: vec![url.clone()], ..Rule::default() }));
    }
}

/// The rules broken down, gathered and sorted, as kubectl prints them.
pub(super) fn compacted<'v>(rules: impl IntoIterator<Item = &'v Value>) -> Vec<Rule> {
    let mut broken = Vec::new();
    for r in rules {
        breakdown(r, &mut broken);
    }
    let mut out: Vec<Rule> = Vec::new();
    let mut gathered: Vec<Rule> = Vec::new();
    for rule in broken {
        if !rule.urls.is_empty() {
            out.push(rule);
            continue;
        }
        match gathered
            .iter_mut()
            .find(|g| g.groups == rule.groups && g.resources == rule.resources && g.names == rule.names)
        {
            Some(g) => {
                // (kubectl 1.33 names each verb once.)
                for verb in rule.verbs {
                    if !g.verbs.contains(&verb) {
                        g.verbs.push(verb);
                    }
                }
            }
            None => gathered.push(rule),
        }
    }
    out.extend(gathered);
    out.order_by_key(|r| {
        format!(
            "&PolicyRule{{Verbs:{},APIGroups:{},Resources:{},ResourceNames:{},NonResourceURLs:{},}}",
            go_list(&r.verbs),
            go_list(&r.groups),
            go_list(&r.resources),
            go_list(&r.names),
            go_list(&r.urls)
        )
    });
    out
}

impl Rule {
    /// The four cells kubectl prints: resources (`pods`,
    /// `deployments.apps/scale`: the first resource with the first group),
    /// URLs, names and verbs.
    pub(super) fn cells(&self) -> Vec<String> {
        let mut joined = String::new();
        if let Some(resource) = self.resources.first() {
            let (base, sub) = match resource.split_once('/') {
                Some((b, s)) => (b, Some(s)),
                None => (resource.as_str(), None),
            };
            joined.push_str(base);
            if let Some(g) = self.groups.first().filter(|g| !g.is_empty()) {
                joined.push('.');
                joined.push_str(g);
            }
            if let Some(sub) = sub {
                joined.push('/');
                joined.push_str(sub);
            }
        }
        vec![joined, go_list(&self.urls), go_list(&self.names), go_list(&self.verbs)]
    }
}
