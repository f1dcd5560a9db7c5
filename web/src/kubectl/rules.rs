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

/// The rules broken down, gathered and sorted, as kubectl prints them.
pub(super) fn compacted<'v>(rules: impl IntoIterator<Item = &'v Value>) -> Vec<Rule> {
    // (kubectl's `BreakdownRule` is the server's.)
    let broken = rules.into_iter().flat_map(kubesim::auth::breakdown).map(|a| Rule {
        verbs: vec![a.verb],
        groups: a.url.is_none().then_some(a.group).into_iter().collect(),
        resources: a.url.is_none().then_some(a.resource).into_iter().collect(),
        names: a.name.into_iter().collect(),
        urls: a.url.into_iter().collect(),
    });
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
