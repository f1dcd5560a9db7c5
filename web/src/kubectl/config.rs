//! The page's kubeconfig and the commands that read and change it:
//! `config view|get-contexts|current-context|use-context|set-context|
//! get-clusters|get-users` and `cluster-info`, printed as kubectl 1.33
//! prints them.
//!
//! The kubeconfig is the repository's `kubesim.kubeconfig` (the native
//! door's address; the page itself sends nothing over the network). A
//! context's namespace is where a command without `-n` works, as it is
//! for kubectl; its cluster and user are names only (every command goes
//! to the page's one cluster as its administrator). It lives as long as
//! the page, not in the saved session.

use super::*;
use kubesim::sort::Order;

/// One context: the names it joins, and its namespace (empty: none).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Context {
    pub name: String,
    pub cluster: String,
    pub user: String,
    pub namespace: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KubeConfig {
    pub current: String,
    pub contexts: Vec<Context>,
}

/// The one cluster's name and address, and the one user's name.
const CLUSTER: (&str, &str) = ("kubesim", "http://127.0.0.1:6501");
const USER: &str = "kubesim";

impl Default for KubeConfig {
    fn default() -> Self {
        let name = CLUSTER.0.to_string();
        let context =
            Context { name: name.clone(), cluster: name.clone(), user: USER.into(), namespace: "default".into() };
        KubeConfig { current: name, contexts: vec![context] }
    }
}

impl KubeConfig {
    /// Where a command without `-n` works: the current context's
    /// namespace, else `default`.
    pub fn namespace(&self) -> String {
        match self.contexts.iter().find(|c| c.name == self.current) {
            Some(c) if !c.namespace.is_empty() => c.namespace.clone(),
            _ => "default".into(),
        }
    }

    /// The kubeconfig as `config view -o json` writes it (clientcmd's
    /// field order), all of it or (`--minify`) what the current context
    /// uses.
    fn document(&self, minify: bool) -> Value {
        let contexts: Vec<Value> = self
            .contexts
            .iter()
            .filter(|c| !minify || c.name == self.current)
            .map(|c| {
                let mut context = json!({"cluster": c.cluster, "user": c.user});
                if !c.namespace.is_empty() {
                    context["namespace"] = json!(c.namespace);
                }
                json!({"name": c.name, "context": context})
            })
            .collect();
        json!({"kind": "Config", "apiVersion": "v1", "preferences": {},
            "clusters": [{"name": CLUSTER.0, "cluster": {"server": CLUSTER.1}}],
            "users": [{"name": USER, "user": {}}],
            "contexts": contexts, "current-context": self.current})
    }
}

/// `kubectl config SUBCOMMAND …`.
pub(super) fn config(s: &mut Session, cmd: &Command, out: &mut Outcome) {
    let (sub, args) = match cmd.args.split_first() {
        Some((sub, args)) => (sub.as_str(), args),
        None => return out.error(format!("error: kubectl config needs a sub-command: {SUBCOMMANDS}")),
    };
    let kc = s.kubeconfig.get_or_insert_with(KubeConfig::default);
    match sub {
        "view" => {
            let doc = kc.document(cmd.config.minify);
            match &cmd.output {
                Output::Json => out.text.push_str(&printed_json(&doc)),
                Output::JsonPath(template) => match super::jsonpath::print(template, &doc) {
                    Ok(text) => out.text.push_str(&text),
                    Err(e) => out.error(e),
                },
                Output::Name => out.line("config/<unknown>"),
                _ => out.text.push_str(&to_yaml(&doc)),
            }
        }
        "current-context" => out.line(kc.current.clone()),
        "get-contexts" => {
            if !matches!(cmd.output, Output::Table | Output::Name) {
                return out.error(format!(
                    "error: --output {} is not available in kubectl config get-contexts; resetting to default output format",
                    cmd.output.typed()
                ));
            }
            let shown: Vec<&Context> =
                kc.contexts.iter().filter(|c| args.is_empty() || args.contains(&c.name)).collect();
            if cmd.output == Output::Name {
                for c in &shown {
                    out.line(c.name.clone());
                }
            } else {
                let mut rows = Vec::new();
                if !cmd.no_headers {
                    rows.push(["CURRENT", "NAME", "CLUSTER", "AUTHINFO", "NAMESPACE"].map(String::from).to_vec());
                }
                for c in &shown {
                    let current = if c.name == kc.current { "*" } else { "" };
                    rows.push(vec![
                        current.into(),
                        c.name.clone(),
                        c.cluster.clone(),
                        c.user.clone(),
                        c.namespace.clone(),
                    ]);
                }
                out.text.push_str(&super::print::columns(&rows));
            }
            // Those asked for that are not there, after the table.
            let mut missing = args.iter().filter(|a| !kc.contexts.iter().any(|c| &c.name == *a));
            if let Some(first) = missing.next() {
                out.error(format!("error: context {first} not found"));
            }
        }
        "use-context" | "use" => match args {
            [name] if kc.contexts.iter().any(|c| &c.name == name) => {
                kc.current = name.clone();
                out.line(format!("Switched to context \"{name}\"."));
            }
            [name] => out.error(format!("error: no context exists with the name: \"{name}\"")),
            other => out.error(format!("error: Unexpected args: [{}]", other.join(" "))),
        },
        "set-context" => {
            let name = match (args, cmd.config.current) {
                ([name], false) => name.clone(),
                ([], true) => kc.current.clone(),
                ([_], true) => return out.error("error: you cannot specify both a context name and --current"),
                ([], false) => return out.error("error: you must specify a non-empty context name or --current"),
                (more, _) => return out.error(format!("error: Unexpected args: [{}]", more.join(" "))),
            };
            let made = !kc.contexts.iter().any(|c| c.name == name);
            if made {
                let blank = Context { name: name.clone(), cluster: "".into(), user: "".into(), namespace: "".into() };
                kc.contexts.push(blank);
                kc.contexts.order_by(|a, b| a.name.cmp(&b.name));
            }
            if let Some(c) = kc.contexts.iter_mut().find(|c| c.name == name) {
                if let Some(cluster) = &cmd.config.cluster {
                    c.cluster = cluster.clone();
                }
                if let Some(user) = cmd.rbac.users.last() {
                    c.user = user.clone();
                }
                if let Some(ns) = &cmd.namespace {
                    c.namespace = ns.clone();
                }
            }
            out.line(format!("Context \"{name}\" {}.", if made { "created" } else { "modified" }));
        }
        "get-clusters" => out.text.push_str(&format!("NAME\n{}\n", CLUSTER.0)),
        "get-users" => out.text.push_str(&format!("NAME\n{USER}\n")),
        _ => unreachable!("parse admits only these"),
    }
}

/// What the command bar knows of `kubectl config`.
pub(super) const SUBCOMMANDS: &str =
    "view (--minify, -o yaml|json|jsonpath), get-contexts, current-context, use-context, set-context (NAME or --current, --namespace, --cluster, --user), get-clusters and get-users";

/// `cluster-info`: the control plane's address, then each Service in
/// `kube-system` (or `-n`) labelled `kubernetes.io/cluster-service=true`,
/// named by its `kubernetes.io/name` label, at its API server proxy path
/// (`[https:]NAME:PORTNAME`, or its load balancer's addresses); the
/// list is asked as kubectl's builder asks it.
pub(super) fn cluster_info(s: &mut Session, cmd: &Command, out: &mut Outcome) {
    let ns = cmd.namespace.clone().unwrap_or_else(|| "kube-system".into());
    let path = format!("/api/v1/namespaces/{ns}/services?labelSelector=kubernetes.io%2Fcluster-service%3Dtrue");
    let e = send(s, "GET", &path, None, None, "application/json");
    let failed = (e.response.status != 200).then(|| server_error(&e));
    if failed.is_none() {
        let host = CLUSTER.1;
        out.line(format!("Kubernetes control plane is running at {host}"));
        let list = body_json(&e.response);
        for svc in list["items"].as_array().into_iter().flatten() {
            let name = svc["metadata"]["name"].as_str().unwrap_or("");
            let link = match svc["status"]["loadBalancer"]["ingress"].get(0) {
                Some(ingress) => {
                    let ip = ingress["ip"].as_str().filter(|ip| !ip.is_empty());
                    let ip = ip.or(ingress["hostname"].as_str()).unwrap_or("");
                    let ports = svc["spec"]["ports"].as_array().into_iter().flatten();
                    ports.map(|p| format!("http://{ip}:{} ", p["port"].as_i64().unwrap_or(0))).collect()
                }
                None => {
                    let target = match svc["spec"]["ports"].get(0) {
                        Some(p) => {
                            let https = p["name"] == "https" || p["port"] == 443;
                            let port = p["name"].as_str().unwrap_or("");
                            match (https, port.is_empty()) {
                                (true, true) => format!("https:{name}:"),
                                (true, false) => format!("https:{name}:{port}"),
                                (false, true) => name.to_string(),
                                (false, false) => format!("{name}:{port}"),
                            }
                        }
                        None => name.to_string(),
                    };
                    format!("{host}/api/v1/namespaces/{ns}/services/{target}/proxy")
                }
            };
            let shown = svc["metadata"]["labels"]["kubernetes.io/name"].as_str().filter(|n| !n.is_empty());
            out.line(format!("{} is running at {link}", shown.unwrap_or(name)));
        }
    }
    out.text.push_str("\nTo further debug and diagnose cluster problems, use 'kubectl cluster-info dump'.\n");
    if let Some(e) = failed {
        out.error(e);
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{requests_since, session};
    use super::*;

    /// Each output checked against kubectl 1.33 with the repository's
    /// `kubesim.kubeconfig`.
    #[test]
    fn the_kubeconfig_is_read_and_changed_as_kubectl_does() {
        let mut s = session();
        let from = s.log.len();
        let view = run(&mut s, "config view", "");
        assert_eq!(
            view.text,
            "apiVersion: v1\nclusters:\n- cluster:\n    server: http://127.0.0.1:6501\n  name: kubesim\ncontexts:\n- context:\n    cluster: kubesim\n    namespace: default\n    user: kubesim\n  name: kubesim\ncurrent-context: kubesim\nkind: Config\npreferences: {}\nusers:\n- name: kubesim\n  user: {}\n"
        );
        let json = run(&mut s, "config view -o json", "").text;
        assert!(
            json.starts_with("{\n    \"kind\": \"Config\",\n    \"apiVersion\": \"v1\",\n    \"preferences\": {},\n"),
            "{json}"
        );
        assert_eq!(run(&mut s, "config current-context", "").text, "kubesim\n");
        let table =
            "CURRENT   NAME      CLUSTER   AUTHINFO   NAMESPACE\n*         kubesim   kubesim   kubesim    default\n";
        assert_eq!(run(&mut s, "config get-contexts", "").text, table);
        assert_eq!(
            run(&mut s, "config get-contexts --no-headers", "").text,
            "*     kubesim   kubesim   kubesim   default\n"
        );
        assert_eq!(run(&mut s, "config get-contexts -o name", "").text, "kubesim\n");
        assert_eq!(run(&mut s, "config get-clusters", "").text, "NAME\nkubesim\n");
        assert_eq!(run(&mut s, "config get-users", "").text, "NAME\nkubesim\n");
        assert!(requests_since(&s, from).is_empty(), "the kubeconfig is read without the server");

        // The context's namespace is where commands without -n work.
        run(&mut s, "create namespace dev", "");
        assert_eq!(
            run(&mut s, "config set-context --current --namespace=dev", "").text,
            "Context \"kubesim\" modified.\n"
        );
        assert_eq!(run(&mut s, "config view --minify -o jsonpath={..namespace}", "").text, "dev");
        let from = s.log.len();
        assert_eq!(run(&mut s, "create configmap here", "").text, "configmap/here created\n");
        assert_eq!(run(&mut s, "get cm here -o name", "").text, "configmap/here\n");
        assert_eq!(
            requests_since(&s, from),
            [
                "POST /api/v1/namespaces/dev/configmaps?fieldManager=kubectl-create&fieldValidation=Strict 201",
                "GET /api/v1/namespaces/dev/configmaps/here 200"
            ]
        );
        assert_eq!(run(&mut s, "get pods", "").text, "No resources found in dev namespace.\n");
        // A file's own namespace still wins; -n still overrides.
        assert!(run(&mut s, "get cm kube-root-ca.crt -n default -o name", "").text.contains("configmap/"));

        assert_eq!(run(&mut s, "config set-context other --namespace=x", "").text, "Context \"other\" created.\n");
        assert_eq!(
            run(&mut s, "config set-context other --cluster=kubesim --user=kubesim", "").text,
            "Context \"other\" modified.\n"
        );
        assert_eq!(run(&mut s, "config use-context other", "").text, "Switched to context \"other\".\n");
        assert_eq!(
            run(&mut s, "config get-contexts", "").text,
            "CURRENT   NAME      CLUSTER   AUTHINFO   NAMESPACE\n          kubesim   kubesim   kubesim    dev\n*         other     kubesim   kubesim    x\n"
        );
        run(&mut s, "config set-context --current --namespace=", "");
        assert_eq!(
            run(&mut s, "config get-contexts other --no-headers", "").text,
            "*     other   kubesim   kubesim   \n"
        );
        assert_eq!(run(&mut s, "get cm here -n dev -o name", "").text, "configmap/here\n");
        // No namespace in the context: `default`.
        assert_eq!(
            run(&mut s, "get cm here", "").text,
            "Error from server (NotFound): configmaps \"here\" not found\n"
        );

        for (line, said) in [
            ("config use-context nope", "error: no context exists with the name: \"nope\""),
            ("config use-context", "error: Unexpected args: []"),
            ("config use-context a b", "error: Unexpected args: [a b]"),
            ("config set-context", "error: you must specify a non-empty context name or --current"),
            ("config set-context a b", "error: Unexpected args: [a b]"),
            ("config set-context kubesim --current --namespace=a", "error: you cannot specify both a context name and --current"),
            ("config set-context --current -n foo", "error: unknown shorthand flag: 'n' in -n\nSee 'kubectl config set-context --help' for usage."),
            ("config current-context -o yaml", "error: unknown shorthand flag: 'o' in -o\nSee 'kubectl config current-context --help' for usage."),
            ("config get-contexts --current", "error: unknown flag: --current\nSee 'kubectl config get-contexts --help' for usage."),
            ("config get-contexts -o yaml", "error: --output yaml is not available in kubectl config get-contexts; resetting to default output format"),
            ("config get-contexts -o wide", "error: --output wide is not available in kubectl config get-contexts; resetting to default output format"),
            ("config get-contexts -o jsonpath={.x}", "error: --output jsonpath={.x} is not available in kubectl config get-contexts; resetting to default output format"),
            ("config get-contexts -o custom-columns=A:.b", "error: --output custom-columns=A:.b is not available in kubectl config get-contexts; resetting to default output format"),
            ("config nope", "error: unknown command \"nope\"\nSee 'kubectl config -h' for help and examples"),
        ] {
            let o = run(&mut s, line, "");
            assert!(o.failed, "{line}");
            assert_eq!(o.text, format!("{said}\n"), "{line}");
        }
        let o = run(&mut s, "config get-contexts nope", "");
        assert!(o.failed);
        assert_eq!(o.text, "CURRENT   NAME   CLUSTER   AUTHINFO   NAMESPACE\nerror: context nope not found\n");
    }

    #[test]
    fn cluster_info_names_the_cluster_services_as_kubectl_does() {
        let mut s = session();
        let from = s.log.len();
        let o = run(&mut s, "cluster-info", "");
        assert_eq!(
            o.text,
            "Kubernetes control plane is running at http://127.0.0.1:6501\nCoreDNS is running at http://127.0.0.1:6501/api/v1/namespaces/kube-system/services/kube-dns:dns/proxy\n\nTo further debug and diagnose cluster problems, use 'kubectl cluster-info dump'.\n"
        );
        assert_eq!(
            requests_since(&s, from),
            ["GET /api/v1/namespaces/kube-system/services?labelSelector=kubernetes.io%2Fcluster-service%3Dtrue 200"]
        );
        assert_eq!(
            run(&mut s, "cluster-info -n default", "").text,
            "Kubernetes control plane is running at http://127.0.0.1:6501\n\nTo further debug and diagnose cluster problems, use 'kubectl cluster-info dump'.\n"
        );
        assert!(run(&mut s, "cluster-info dump", "").failed);
    }
}
