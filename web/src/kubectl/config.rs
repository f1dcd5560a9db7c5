//! The page's kubeconfig and the commands that read and change it:
//! `config view|get-contexts|current-context|use-context|set-context|
//! get-clusters|get-users` and `cluster-info`, printed as kubectl 1.33
//! prints them.
//!
//! The kubeconfig is the repository's `kubesim.kubeconfig` (the native
//! door's address; the page itself sends nothing over the network). A
//! context's namespace is where a command without `-n` works, as it is
//! for kubectl; its cluster and user are names only (every command goes
//! to the page's one cluster as its administrator). It is saved with the
//! session (and in its export), as a kubeconfig file outlives a shell.

use super::*;
use kubesim::sort::Order;

/// One context: the names it joins, and its namespace (empty: none).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Context {
    pub name: String,
    pub cluster: String,
    pub user: String,
    pub namespace: String,
}

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct KubeConfig {
    pub current: String,
    pub contexts: Vec<Context>,
}

/// The one cluster's name and address, and the one user's name.
const CLUSTER: (&str, &str) = ("kubesim", "http://127.0.0.1:6501");
const USER: &str = "kubesim";
/// The file kubectl's messages name (as if `KUBECONFIG=kubesim.kubeconfig`).
const FILE: &str = "kubesim.kubeconfig";

impl Default for KubeConfig {
    fn default() -> Self {
        let name = CLUSTER.0.to_string();
        let context =
            Context { name: name.clone(), cluster: name.clone(), user: USER.into(), namespace: "default".into() };
        KubeConfig { current: name, contexts: vec![context] }
    }
}

impl KubeConfig {
    /// A copy, never inlined: saves and restores name it on every pass,
    /// and most sessions have no kubeconfig to copy.
    #[inline(never)]
    pub fn copied(&self) -> KubeConfig {
        self.clone()
    }

    /// Why a command that needs the cluster cannot run: the current
    /// context was deleted (kubectl's words, before any request).
    pub fn unusable(&self) -> Option<String> {
        let found = self.contexts.iter().any(|c| c.name == self.current);
        (!found)
            .then(|| format!("Error in configuration: context was not found for specified context: {}", self.current))
    }

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
    /// uses (refused, as client-go's `MinifyConfig`, when that context,
    /// or a cluster or user it names, is not there). An empty list is
    /// Go's nil map: `null`.
    fn document(&self, minify: bool) -> Result<Value, String> {
        let (mut cluster, mut user) = (true, true);
        if minify {
            let c = self.contexts.iter().find(|c| c.name == self.current);
            let c = c.ok_or_else(|| format!("error: cannot locate context {}", self.current))?;
            match c.cluster.as_str() {
                "" => cluster = false,
                name if name != CLUSTER.0 => return Err(format!("error: cannot locate cluster {name}")),
                _ => {}
            }
            match c.user.as_str() {
                "" => user = false,
                name if name != USER => return Err(format!("error: cannot locate user {name}")),
                _ => {}
            }
        }
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
        let or_null = |items: Vec<Value>| if items.is_empty() { Value::Null } else { Value::Array(items) };
        let clusters =
            if cluster { vec![json!({"name": CLUSTER.0, "cluster": {"server": CLUSTER.1}})] } else { vec![] };
        let users = if user { vec![json!({"name": USER, "user": {}})] } else { vec![] };
        Ok(json!({"kind": "Config", "apiVersion": "v1", "preferences": {},
            "clusters": or_null(clusters), "users": or_null(users),
            "contexts": or_null(contexts), "current-context": self.current}))
    }
}

/// `kubectl config SUBCOMMAND …`.
pub(super) fn config(s: &mut Session, cmd: &Command, out: &mut Outcome) {
    let (sub, args) = match cmd.args.split_first() {
        Some((sub, args)) => (sub.as_str(), args),
        None => return out.error(format!("error: kubectl config needs a sub-command: {SUBCOMMANDS}")),
    };
    // (What the saved session compares: only the commands that write.)
    if matches!(sub, "use-context" | "use" | "set-context" | "delete-context" | "rename-context") {
        s.kubeconfig_changes += 1;
    }
    let kc = s.kubeconfig.get_or_insert_with(KubeConfig::default);
    match sub {
        "view" => {
            let doc = match kc.document(cmd.config.minify) {
                Ok(doc) => doc,
                Err(e) => return out.error(e),
            };
            match &cmd.output {
                Output::Json => out.text.push_str(&printed_json(&doc)),
                Output::GoTemplate(template) => super::gotemplate::write(template, &doc, out),
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
        "delete-context" => match args {
            [name] if kc.contexts.iter().any(|c| &c.name == name) => {
                if *name == kc.current {
                    out.line("warning: this removed your active context, use \"kubectl config use-context\" to select a different one");
                }
                kc.contexts.retain(|c| &c.name != name);
                out.line(format!("deleted context {name} from {FILE}"));
            }
            [name] => out.error(format!("error: cannot delete context {name}, not in {FILE}")),
            // (kubectl prints its help, and succeeds.)
            _ => out.line("Usage:\n  kubectl config delete-context NAME [options]"),
        },
        "rename-context" => match args {
            [old, _] if !kc.contexts.iter().any(|c| &c.name == old) => {
                out.error(format!("error: cannot rename the context \"{old}\", it's not in {FILE}"))
            }
            [old, new] if kc.contexts.iter().any(|c| &c.name == new) => out.error(format!(
                "error: cannot rename the context \"{old}\", the context \"{new}\" already exists in {FILE}"
            )),
            [old, new] => {
                for c in kc.contexts.iter_mut().filter(|c| &c.name == old) {
                    c.name = new.clone();
                }
                kc.contexts.order_by(|a, b| a.name.cmp(&b.name));
                if kc.current == *old {
                    kc.current = new.clone();
                }
                out.line(format!("Context \"{old}\" renamed to \"{new}\"."));
            }
            other => out.error(format!("error: Unexpected args: [{}]", other.join(" "))),
        },
        "get-clusters" => out.text.push_str(&format!("NAME\n{}\n", CLUSTER.0)),
        "get-users" => out.text.push_str(&format!("NAME\n{USER}\n")),
        _ => unreachable!("parse admits only these"),
    }
}

/// What the command bar knows of `kubectl config`.
pub(super) const SUBCOMMANDS: &str =
    "view (--minify, -o yaml|json|jsonpath), get-contexts, current-context, use-context, set-context (NAME or --current, --namespace, --cluster, --user), delete-context, rename-context, get-clusters and get-users";

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

    /// Checked against kubectl 1.33 with a copy of `kubesim.kubeconfig`.
    #[test]
    fn contexts_are_renamed_and_deleted_as_kubectl_does() {
        let mut s = session();
        let said = |s: &mut Session, line: &str| {
            let o = run(s, line, "");
            (o.failed, o.text)
        };
        let ok = |text: &str| (false, format!("{text}\n"));
        let refused = |text: &str| (true, format!("{text}\n"));
        run(&mut s, "config set-context other --namespace=x", "");
        for (line, want) in [
            ("config rename-context other two", ok("Context \"other\" renamed to \"two\".")),
            ("config rename-context other two", refused("error: cannot rename the context \"other\", it's not in kubesim.kubeconfig")),
            ("config rename-context two kubesim", refused("error: cannot rename the context \"two\", the context \"kubesim\" already exists in kubesim.kubeconfig")),
            ("config rename-context two two", refused("error: cannot rename the context \"two\", the context \"two\" already exists in kubesim.kubeconfig")),
            ("config rename-context a", refused("error: Unexpected args: [a]")),
            ("config rename-context kubesim main", ok("Context \"kubesim\" renamed to \"main\".")),
            ("config current-context", ok("main")),
            ("config delete-context two", ok("deleted context two from kubesim.kubeconfig")),
            ("config delete-context two", refused("error: cannot delete context two, not in kubesim.kubeconfig")),
            ("config delete-context", ok("Usage:\n  kubectl config delete-context NAME [options]")),
            ("config set-context --current --cluster= --user= --namespace=y", ok("Context \"main\" modified.")),
            // A context without a cluster or user minifies to none (and
            // "y" is quoted, YAML 1.1 reading it as true).
            ("config view --minify", ok("apiVersion: v1\nclusters: null\ncontexts:\n- context:\n    cluster: \"\"\n    namespace: \"y\"\n    user: \"\"\n  name: main\ncurrent-context: main\nkind: Config\npreferences: {}\nusers: null")),
            ("config delete-context main", ok("warning: this removed your active context, use \"kubectl config use-context\" to select a different one\ndeleted context main from kubesim.kubeconfig")),
            ("config current-context", ok("main")),
            ("config view --minify", refused("error: cannot locate context main")),
            ("config view -o jsonpath={.contexts}", (false, "null".into())),
            ("get pods", refused("Error in configuration: context was not found for specified context: main")),
            ("cluster-info", refused("Error in configuration: context was not found for specified context: main")),
            ("config set-context a --cluster=nope --user=kubesim", ok("Context \"a\" created.")),
            ("config use-context a", ok("Switched to context \"a\".")),
            ("config view --minify", refused("error: cannot locate cluster nope")),
            ("config set-context a --cluster=kubesim --user=me", ok("Context \"a\" modified.")),
            ("config view --minify", refused("error: cannot locate user me")),
        ] {
            assert_eq!(said(&mut s, line), want, "{line}");
        }
        assert_eq!(s.kubeconfig.as_ref().map(|k| k.contexts.len()), Some(1));
        // The context's cluster and user are names only: commands run.
        assert!(!run(&mut s, "get pods -n kube-system", "").failed);
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
