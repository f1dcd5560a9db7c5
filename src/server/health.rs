//! `/healthz`, `/livez` and `/readyz`, as kube-apiserver's health handlers
//! answer them: `ok`; with `?verbose`, one line per check and the
//! endpoint's verdict; `?exclude=NAME` (repeatable) skips a check, and a
//! name no check has is warned about; `/readyz/NAME` asks one check. Every
//! check passes here (the simulated control plane has nothing that can be
//! unready), so none answers 500.
//!
//! The checks are those kube-apiserver lists in v1.31–v1.33 clusters (the
//! ping and log checks, storage, then the post-start hooks of its
//! controllers in the order they are installed; readiness adds storage
//! readiness, the informers' sync and shutdown): a list chosen from
//! clusters of that generation, as `docs/fidelity.md` says.

use super::Response;

/// The checks every endpoint has, first.
const COMMON: &[&str] = &["ping", "log", "etcd"];

/// What only readiness checks, after `etcd`.
const READINESS: &[&str] = &["etcd-readiness", "informer-sync"];

/// The post-start hooks, in the order kube-apiserver installs them.
const HOOKS: &[&str] = &[
    "poststarthook/start-apiserver-admission-initializer",
    "poststarthook/generic-apiserver-start-informers",
    "poststarthook/priority-and-fairness-config-consumer",
    "poststarthook/priority-and-fairness-filter",
    "poststarthook/storage-object-count-tracker-hook",
    "poststarthook/start-apiextensions-informers",
    "poststarthook/start-apiextensions-controllers",
    "poststarthook/crd-informer-synced",
    "poststarthook/start-system-namespaces-controller",
    "poststarthook/start-cluster-authentication-info-controller",
    "poststarthook/start-kube-apiserver-identity-lease-controller",
    "poststarthook/start-kube-apiserver-identity-lease-garbage-collector",
    "poststarthook/start-legacy-token-tracking-controller",
    "poststarthook/start-service-ip-repair-controllers",
    "poststarthook/rbac/bootstrap-roles",
    "poststarthook/scheduling/bootstrap-system-priority-classes",
    "poststarthook/priority-and-fairness-config-producer",
    "poststarthook/bootstrap-controller",
    "poststarthook/start-kubernetes-service-cidr-controller",
    "poststarthook/start-kube-aggregator-informers",
    "poststarthook/apiservice-status-local-available-controller",
    "poststarthook/apiservice-status-remote-available-controller",
    "poststarthook/apiservice-registration-controller",
    "poststarthook/apiservice-discovery-controller",
    "poststarthook/kube-apiserver-autoregistration",
    "autoregister-completion",
    "poststarthook/apiservice-openapi-controller",
    "poststarthook/apiservice-openapiv3-controller",
];

/// An endpoint's checks, in the order it runs them.
fn checks(endpoint: &str) -> impl Iterator<Item = &'static str> {
    let ready = endpoint == "readyz";
    let readiness = if ready { READINESS } else { &[] };
    let shutdown: &[&str] = if ready { &["shutdown"] } else { &[] };
    COMMON.iter().chain(readiness).chain(HOOKS).chain(shutdown).copied()
}

/// Whether `endpoint` has a check named `name` (`/readyz/NAME`).
pub(super) fn has_check(endpoint: &str, name: &str) -> bool {
    checks(endpoint).any(|c| c == name)
}

/// The answer to an endpoint itself, for a request with this query.
pub(super) fn answer(endpoint: &str, query: &str) -> Response {
    let mut verbose = false;
    // (A set, as upstream's: a name asked twice is excluded once, and the
    // names left over are listed sorted.)
    let mut excluded = std::collections::BTreeSet::new();
    for (k, v) in form_urlencoded::parse(query.as_bytes()) {
        match &*k {
            "verbose" => verbose = true,
            "exclude" => _ = excluded.insert(v.into_owned()),
            _ => {}
        }
    }
    let mut r = Response::text(200, "ok");
    r.headers.push(("X-Content-Type-Options".into(), "nosniff".into()));
    if !verbose {
        return r;
    }
    let mut out = String::new();
    for check in checks(endpoint) {
        if excluded.remove(check) {
            out.push_str(&format!("[+]{check} excluded: ok\n"));
        } else {
            out.push_str(&format!("[+]{check} ok\n"));
        }
    }
    if !excluded.is_empty() {
        // (Quoted, joined by commas.)
        let names: Vec<String> = excluded.iter().map(|e| format!("{e:?}")).collect();
        out.push_str(&format!("warn: some health checks cannot be excluded: no matches for {}\n", names.join(",")));
    }
    out.push_str(&format!("{endpoint} check passed\n"));
    r.body = out.into_bytes();
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(r: &Response) -> String {
        String::from_utf8(r.body.clone()).unwrap()
    }

    /// Readiness adds its own checks around the shared ones; liveness and
    /// health have the same list.
    #[test]
    fn each_endpoint_lists_its_checks() {
        let ready = body(&answer("readyz", "verbose"));
        let lines: Vec<&str> = ready.lines().collect();
        assert_eq!(
            lines[..6],
            [
                "[+]ping ok",
                "[+]log ok",
                "[+]etcd ok",
                "[+]etcd-readiness ok",
                "[+]informer-sync ok",
                "[+]poststarthook/start-apiserver-admission-initializer ok"
            ]
        );
        assert_eq!(lines[lines.len() - 2..], ["[+]shutdown ok", "readyz check passed"]);
        assert_eq!(lines.len(), 3 + 2 + HOOKS.len() + 1 + 1);
        let live = body(&answer("livez", "verbose=1"));
        assert!(!live.lines().any(|l| l == "[+]shutdown ok" || l == "[+]informer-sync ok"), "{live}");
        assert!(live.ends_with("[+]poststarthook/apiservice-openapiv3-controller ok\nlivez check passed\n"));
        assert_eq!(body(&answer("healthz", "verbose")).replace("healthz", "livez"), live);
        assert_eq!(body(&answer("readyz", "")), "ok");
        assert!(has_check("readyz", "shutdown") && !has_check("livez", "shutdown"));
        assert!(has_check("livez", "poststarthook/rbac/bootstrap-roles") && !has_check("livez", "nope"));
    }

    /// `exclude` names a check to skip; names no check has are warned
    /// about, each once, sorted and quoted.
    #[test]
    fn excluded_checks_are_skipped_and_unknown_ones_warned_about() {
        let r = answer("livez", "verbose&exclude=etcd&exclude=zeta&exclude=alpha&exclude=zeta&exclude=etcd");
        let text = body(&r);
        assert!(text.contains("[+]etcd excluded: ok\n"), "{text}");
        assert!(!text.contains("[+]etcd ok"), "{text}");
        assert!(
            text.ends_with(
                "warn: some health checks cannot be excluded: no matches for \"alpha\",\"zeta\"\nlivez check passed\n"
            ),
            "{text}"
        );
        assert_eq!(r.header("X-Content-Type-Options"), Some("nosniff"));
        assert_eq!(body(&answer("livez", "exclude=nope")), "ok");
    }
}
