//! The command line, parsed as kubectl parses it: words split like a
//! shell's, flags in every form kubectl accepts, and clear messages for
//! what is not supported.

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Output {
    Table,
    Wide,
    Yaml,
    Json,
    Name,
    /// `-o jsonpath=TEMPLATE`.
    JsonPath(String),
    /// `-o go-template=TEMPLATE` (or `template=`).
    GoTemplate(String),
    /// `-o custom-columns=HEADER:PATH,…`, as typed (read when printing,
    /// as kubectl makes the printer after its requests).
    CustomColumns(String),
}

impl Output {
    /// The format as `-o` was given (kubectl's refusals name it so).
    pub fn typed(&self) -> String {
        match self {
            Output::Table => String::new(),
            Output::Wide => "wide".into(),
            Output::Yaml => "yaml".into(),
            Output::Json => "json".into(),
            Output::Name => "name".into(),
            Output::JsonPath(t) => format!("jsonpath={t}"),
            Output::GoTemplate(t) => format!("go-template={t}"),
            Output::CustomColumns(t) => format!("custom-columns={t}"),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verb {
    Get,
    Create,
    Apply,
    /// `diff -f -` (and `--server-side`): the apply as a dry run, and the
    /// difference it would make.
    Diff,
    Replace,
    Delete,
    Label,
    Annotate,
    /// `auth can-i VERB TYPE[/NAME]|URL`, `auth can-i --list` and `auth whoami`: `types`
    /// holds the sub-command, then the words after it.
    Auth,
    /// `create KIND NAME …` without `-f` (the generators: namespace,
    /// configmap, secret generic, deployment, job, service, quota,
    /// serviceaccount, token, role, clusterrole, rolebinding,
    /// clusterrolebinding): `args` holds the words after `create`.
    CreateFrom,
    /// `run NAME --image=IMAGE [-- COMMAND ARGS…]`.
    Run,
    /// `scale TYPE NAME --replicas=N` (or `TYPE/NAME`).
    Scale,
    /// `autoscale TYPE NAME --max=N [--min=N] [--cpu-percent=N]`: an
    /// autoscaling/v2 HorizontalPodAutoscaler over the workload (v1 when
    /// the server refuses it).
    Autoscale,
    /// `set image TYPE/NAME CONTAINER=IMAGE…`.
    SetImage,
    /// `logs (POD | TYPE/NAME) [CONTAINER] | -l SELECTOR` and its flags.
    Logs,
    ApiResources,
    /// `rollout status|history|restart|undo|pause|resume TYPE/NAME`.
    Rollout,
    /// `expose TYPE/NAME [--port] [--target-port] [--type] [--name]`.
    Expose,
    /// `describe TYPE NAME…` (or `TYPE/NAME`): pods, deployments,
    /// configmaps.
    Describe,
    /// `explain TYPE[.field…] [--recursive] [--api-version=G/V]`.
    Explain,
    /// `edit TYPE NAME` (or `TYPE/NAME`): once to get the object into the
    /// file box, again to save what was changed there.
    Edit,
    /// `debug POD --image=IMAGE [--target=C] [-c NAME] [--profile=P]`: an
    /// ephemeral container (no attach).
    Debug,
    /// `patch TYPE NAME -p PATCH [--type] [--subresource]` (or
    /// `TYPE/NAME`).
    Patch,
    /// `cordon NODE…` and `uncordon NODE…`.
    Cordon,
    Uncordon,
    /// `taint nodes NAME… TAINT…`: `args` holds the words.
    Taint,
    /// `drain NODE… [--force] [--ignore-daemonsets] …`.
    Drain,
    /// `events [--for TYPE/NAME] [--types=…]`.
    Events,
    /// `wait TYPE NAME…|TYPE/NAME…|TYPE -l SEL|TYPE --all --for=… [--timeout]`.
    Wait,
    /// `version [--client]`.
    Version,
    /// `api-versions`.
    ApiVersions,
    /// `config SUBCOMMAND …`: `args` holds the words after `config`.
    Config,
    /// `cluster-info [-n NS]`.
    ClusterInfo,
}

/// `config`'s own flags: `set-context --current`, `--cluster` (its
/// `--user` is `rbac.users`, its `--namespace` `namespace`) and `view
/// --minify`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ConfigFlags {
    pub current: bool,
    pub cluster: Option<String>,
    pub minify: bool,
}

/// The flags of `create role|clusterrole|rolebinding|clusterrolebinding`,
/// as typed (lists split at commas where kubectl's flag is a string slice).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RbacFlags {
    pub verbs: Vec<String>,
    pub resources: Vec<String>,
    pub resource_names: Vec<String>,
    pub non_resource_urls: Vec<String>,
    /// `--aggregation-rule` values (`k=v,k2=v2` each).
    pub aggregation_rule: Vec<String>,
    pub role: Option<String>,
    pub cluster_role: Option<String>,
    pub users: Vec<String>,
    pub groups: Vec<String>,
    pub service_accounts: Vec<String>,
}

/// `create poddisruptionbudget`'s own flags, as typed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PdbFlags {
    pub min_available: Option<String>,
    pub max_unavailable: Option<String>,
}

/// `autoscale`'s flags (kubectl's -1 when not given).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AutoscaleFlags {
    pub min: Option<i64>,
    pub max: Option<i64>,
    pub cpu_percent: Option<i64>,
}

/// `drain`'s own flags.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DrainFlags {
    pub ignore_daemonsets: bool,
    pub delete_emptydir_data: bool,
    pub disable_eviction: bool,
    /// `--grace-period` (negative or absent: each pod's own).
    pub grace_period: Option<i64>,
    pub pod_selector: Option<String>,
    /// `--dry-run=client`: what would be evicted, nothing sent.
    pub client_dry_run: bool,
}

/// `logs`' own flags (`-c` and `--tail` are the generators' `container`
/// and `tail`; `-l` is the shared `selector`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LogFlags {
    /// `-f`: sent as kubectl sends it; the page prints what is there now
    /// and says it does not follow.
    pub follow: bool,
    /// `-p`: the container's instance before its last restart.
    pub previous: bool,
    pub timestamps: bool,
    /// `--prefix`: each line led by `[pod/NAME/CONTAINER] `.
    pub prefix: bool,
    pub all_containers: bool,
    /// `--since` (a Go duration, as typed) and `--since-time` (RFC 3339).
    pub since: Option<String>,
    pub since_time: Option<String>,
    pub limit_bytes: Option<i64>,
    pub insecure_skip_tls_verify_backend: bool,
}

/// `auth can-i`'s own flags.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CanIFlags {
    /// `--list`: every rule, from a SelfSubjectRulesReview.
    pub list: bool,
    /// `-q`: the exit code only.
    pub quiet: bool,
}

/// The verbs this command bar knows, for messages.
const KNOWN: &str = "get, create, apply, diff (-f -, --server-side), replace (and --force), edit, delete, label, annotate, run, expose, scale, autoscale, set image, set resources, set env, set serviceaccount, set subject, rollout (status, history, restart, undo, pause, resume), patch (--type, --subresource), cordon, uncordon, taint, drain, events, wait (--for=condition|jsonpath|delete|create, --timeout), logs, debug (ephemeral containers), describe (pods, deployments, services, nodes, configmaps, namespaces, service accounts, resource quotas, limit ranges, roles, cluster roles and their bindings), explain, api-resources, api-versions, version, cluster-info, config (view, get-contexts, current-context, use-context, set-context, delete-context, rename-context, get-clusters, get-users) and auth (can-i with --list, --subresource and -q; whoami); --as and --as-group on any of them";

/// Where `--dry-run=client` is not simulated.
const CLIENT_DRY_RUN: &str = "--dry-run=client is simulated here only on the generators (create KIND NAME, run, expose), where kubectl prints the object it built and sends nothing; use --dry-run=server";

/// kubectl commands the command bar does not simulate (yet): named as such
/// rather than failing on a flag.
const NOT_SIMULATED: &[&str] =
    &["exec", "port-forward", "attach", "cp", "top", "proxy", "certificate", "kustomize", "plugin", "completion"];

/// `api-resources`' filters (a group or namespacing given, even empty or
/// false, filters).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ApiResourcesFlags {
    pub group: Option<String>,
    pub namespaced: Option<bool>,
    pub verbs: Vec<String>,
    pub categories: Vec<String>,
}

/// `create ingress`'s flags.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IngressFlags {
    pub rules: Vec<String>,
    pub class: Option<String>,
    pub default_backend: Option<String>,
    pub annotations: Vec<String>,
}

/// `create secret docker-registry`'s flags.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RegistryFlags {
    pub server: Option<String>,
    pub username: Option<String>,
    pub password: Option<String>,
    pub email: Option<String>,
}

/// `create priorityclass`'s flags.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PriorityFlags {
    pub value: Option<i64>,
    pub global_default: bool,
    pub description: Option<String>,
    pub preemption_policy: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Command {
    pub verb: Verb,
    /// Resource types as typed (`get pods,svc` gives two).
    pub types: Vec<String>,
    pub names: Vec<String>,
    /// `k=v` and `k-` arguments of label and annotate.
    pub pairs: Vec<String>,
    pub namespace: Option<String>,
    pub all_namespaces: bool,
    pub selector: Option<String>,
    pub field_selector: Option<String>,
    pub output: Output,
    pub watch: bool,
    pub chunk_size: u32,
    pub filename: Option<String>,
    pub overwrite: bool,
    pub cascade: String,
    /// `--dry-run=server`: writes carry `dryRun=All`.
    pub server_dry_run: bool,
    /// `--dry-run=client` on a generator (`create KIND`, `run`,
    /// `expose`): the object printed, nothing sent.
    pub client_dry_run: bool,
    /// `--validate`: the `fieldValidation` writes ask for (kubectl: Strict).
    pub field_validation: &'static str,
    /// `apply --server-side` (and `--force-conflicts`).
    pub server_side: bool,
    pub force_conflicts: bool,
    /// `replace --force`: delete, wait until gone, create.
    pub force: bool,
    /// `--show-managed-fields` (kubectl hides them by default).
    pub show_managed_fields: bool,
    /// `--no-headers` (get's tables, `auth can-i --list`).
    pub no_headers: bool,
    /// `get -L` (repeated or separated by commas) and `--show-labels`.
    pub label_columns: Vec<String>,
    pub show_labels: bool,
    /// `get --sort-by` (a relaxed JSONPath), as typed.
    pub sort_by: Option<String>,
    /// `get --raw PATH`: the server's answer as it is.
    pub raw: Option<String>,
    /// `version --client`.
    pub client: bool,
    /// `set env --overwrite` (on unless given false) and `--list`.
    pub env_overwrite: bool,
    pub env_list: bool,
    /// `set env --from=TYPE/NAME` (a ConfigMap or Secret whose keys
    /// become variables), `--keys` (those only) and `--prefix`; also
    /// `create job --from=cronjob/NAME`.
    pub env_from: Option<String>,
    pub env_keys: Vec<String>,
    pub env_prefix: Option<String>,
    /// `set resources --limits` and `--requests` (`NAME=AMOUNT,…`).
    pub limits: Option<String>,
    pub requests: Option<String>,
    /// `wait --for`, `--timeout` (a Go duration, as typed) and `--all`.
    pub wait_for: Option<String>,
    pub timeout: Option<String>,
    pub all: bool,
    /// The words of an imperative command after its verb (`create`'s
    /// generators, `run`, `scale`, `set image`, `logs`).
    pub args: Vec<String>,
    /// The words after `--` (a container's command).
    pub command: Vec<String>,
    pub image: Option<String>,
    pub replicas: Option<i64>,
    /// `rollout undo --to-revision` (0: the one before the newest).
    pub to_revision: Option<i64>,
    pub port: Option<i64>,
    /// `--from-literal=k=v`, in order.
    pub literals: Vec<String>,
    /// `--tcp=port:targetPort`, in order.
    pub tcp: Vec<String>,
    /// `create service nodeport --node-port`, `clusterip --clusterip`,
    /// `externalname --external-name`.
    pub node_port: Option<i64>,
    pub cluster_ip: Option<String>,
    pub external_name: Option<String>,
    /// `create priorityclass --value --global-default --description
    /// --preemption-policy`.
    pub priority: PriorityFlags,
    /// `create secret docker-registry --docker-server --docker-username
    /// --docker-password --docker-email`.
    pub registry: RegistryFlags,
    /// `create ingress --rule (each) --class --default-backend
    /// --annotation (each)`.
    pub ingress: IngressFlags,
    /// `api-resources --api-group --namespaced --verbs --categories`.
    pub api: ApiResourcesFlags,
    /// `logs -c`.
    pub container: Option<String>,
    pub tail: Option<i64>,
    /// `run --restart` (and `create cronjob`'s).
    pub restart: Option<String>,
    /// `create cronjob --schedule`.
    pub schedule: Option<String>,
    /// `run -l/--labels`.
    pub labels: Option<String>,
    /// `expose --target-port`, `--type`, `--name`.
    pub target_port: Option<String>,
    pub service_type: Option<String>,
    pub service_name: Option<String>,
    /// `create quota --hard` and `--scopes`, as typed.
    pub hard: Option<String>,
    pub scopes: Option<String>,
    /// `create token --duration` and `--audience` (repeated).
    pub duration: Option<String>,
    pub audiences: Vec<String>,
    /// `debug --target` (the container whose processes it shares) and
    /// `--profile`.
    pub target: Option<String>,
    pub profile: Option<String>,
    /// `patch -p` (as typed) and `--subresource`.
    pub patch: Option<String>,
    pub subresource: Option<String>,
    /// `explain --recursive` and `--api-version`.
    pub recursive: bool,
    pub api_version: Option<String>,
    pub drain: DrainFlags,
    pub rbac: RbacFlags,
    pub pdb: PdbFlags,
    pub autoscale: AutoscaleFlags,
    pub can_i: CanIFlags,
    /// `--as` and `--as-group`: whom every request of the command acts as.
    pub as_user: Option<String>,
    pub as_groups: Vec<String>,
    /// `events --for` and `--types` (repeated or separated by commas).
    pub events_for: Option<String>,
    pub events_types: Vec<String>,
    pub logs: LogFlags,
    pub config: ConfigFlags,
    /// Where the command works without `-n`: the kubeconfig's current
    /// context's namespace (set by `kubectl::run`; `default` until then).
    pub context_namespace: String,
    /// The generator flags given, to refuse them where kubectl would.
    given: Vec<&'static str>,
}

/// A generator flag's long name (`-c` is `--container`; `-l` is `run`'s
/// `--labels`), recorded so that `parse` can refuse it where kubectl's
/// command does not take it.
fn generator_flag(flag: &str, verb: &Verb) -> Option<&'static str> {
    Some(match flag {
        "-l" | "--labels" if *verb == Verb::Run => "--labels",
        "--image" => "--image",
        "--replicas" => "--replicas",
        "--min" => "--min",
        "--max" => "--max",
        "--cpu-percent" => "--cpu-percent",
        "--verb" => "--verb",
        "--min-available" => "--min-available",
        "--max-unavailable" => "--max-unavailable",
        "--resource" => "--resource",
        "--resource-name" => "--resource-name",
        "--non-resource-url" => "--non-resource-url",
        "--aggregation-rule" => "--aggregation-rule",
        "--role" => "--role",
        "--clusterrole" => "--clusterrole",
        "--user" => "--user",
        "--group" => "--group",
        "--serviceaccount" => "--serviceaccount",
        "--to-revision" => "--to-revision",
        "--port" => "--port",
        "--from-literal" => "--from-literal",
        "--tcp" => "--tcp",
        "-c" | "--container" | "--containers" => "--container",
        "--limits" => "--limits",
        "--requests" => "--requests",
        "--tail" => "--tail",
        "--target-port" => "--target-port",
        "--type" => "--type",
        "--name" => "--name",
        "--restart" => "--restart",
        "--schedule" => "--schedule",
        "--node-port" => "--node-port",
        "--clusterip" => "--clusterip",
        "--external-name" => "--external-name",
        "--value" => "--value",
        "--rule" => "--rule",
        "--class" => "--class",
        "--default-backend" => "--default-backend",
        "--annotation" => "--annotation",
        "--docker-server" => "--docker-server",
        "--docker-username" => "--docker-username",
        "--docker-password" => "--docker-password",
        "--docker-email" => "--docker-email",
        "--global-default" => "--global-default",
        "--description" => "--description",
        "--preemption-policy" => "--preemption-policy",
        "--hard" => "--hard",
        "--scopes" => "--scopes",
        "--duration" => "--duration",
        "--audience" => "--audience",
        "--target" => "--target",
        "--profile" => "--profile",
        "-p" | "--patch" if *verb != Verb::Logs => "--patch",
        "--subresource" => "--subresource",
        _ => return None,
    })
}

/// Splits a command line like a shell: whitespace separates, quotes group.
pub fn split_words(line: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut quote: Option<char> = None;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some('"'), '\\') => cur.extend(chars.next()),
            (Some(_), c) => cur.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                in_word = true;
            }
            (None, '\\') => {
                cur.extend(chars.next());
                in_word = true;
            }
            (None, c) if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            (None, c) => {
                cur.push(c);
                in_word = true;
            }
        }
    }
    if quote.is_some() {
        return Err("unterminated quote".into());
    }
    if in_word {
        words.push(cur);
    }
    Ok(words)
}

pub fn parse(line: &str) -> Result<Command, String> {
    let mut words = split_words(line)?;
    if words.first().map(String::as_str) == Some("kubectl") {
        words.remove(0);
    }
    let Some(verb_word) = words.first().cloned() else {
        return Err("type a command, e.g. kubectl get pods -A".into());
    };
    let verb = match verb_word.as_str() {
        "get" => Verb::Get,
        "create" => Verb::Create,
        "apply" => Verb::Apply,
        "diff" => Verb::Diff,
        "replace" => Verb::Replace,
        "delete" => Verb::Delete,
        "label" => Verb::Label,
        "annotate" => Verb::Annotate,
        "auth" => Verb::Auth,
        "run" => Verb::Run,
        "scale" => Verb::Scale,
        "autoscale" => Verb::Autoscale,
        "set" => Verb::SetImage,
        "logs" => Verb::Logs,
        "api-resources" => Verb::ApiResources,
        "api-versions" => Verb::ApiVersions,
        "version" => Verb::Version,
        "rollout" => Verb::Rollout,
        "expose" => Verb::Expose,
        "describe" => Verb::Describe,
        "explain" => Verb::Explain,
        "edit" => Verb::Edit,
        "debug" => Verb::Debug,
        "patch" => Verb::Patch,
        "cordon" => Verb::Cordon,
        "uncordon" => Verb::Uncordon,
        "taint" => Verb::Taint,
        "drain" => Verb::Drain,
        "events" => Verb::Events,
        "wait" => Verb::Wait,
        "config" => Verb::Config,
        "cluster-info" => Verb::ClusterInfo,
        other if NOT_SIMULATED.contains(&other) => {
            return Err(format!("\"kubectl {other}\" is not simulated in this command bar; it knows {KNOWN}"))
        }
        other => return Err(format!("unknown command \"{other}\" for \"kubectl\"; this command bar knows {KNOWN}")),
    };
    let mut c = Command {
        verb,
        types: Vec::new(),
        names: Vec::new(),
        pairs: Vec::new(),
        namespace: None,
        all_namespaces: false,
        selector: None,
        field_selector: None,
        output: Output::Table,
        watch: false,
        chunk_size: 500,
        filename: None,
        overwrite: false,
        cascade: "background".into(),
        server_dry_run: false,
        client_dry_run: false,
        field_validation: "Strict",
        server_side: false,
        force_conflicts: false,
        force: false,
        show_managed_fields: false,
        no_headers: false,
        label_columns: Vec::new(),
        show_labels: false,
        sort_by: None,
        raw: None,
        limits: None,
        client: false,
        env_overwrite: true,
        env_list: false,
        env_from: None,
        env_keys: Vec::new(),
        env_prefix: None,
        requests: None,
        wait_for: None,
        timeout: None,
        all: false,
        args: Vec::new(),
        command: Vec::new(),
        image: None,
        replicas: None,
        to_revision: None,
        port: None,
        literals: Vec::new(),
        tcp: Vec::new(),
        node_port: None,
        cluster_ip: None,
        external_name: None,
        priority: PriorityFlags::default(),
        registry: RegistryFlags::default(),
        ingress: IngressFlags::default(),
        api: ApiResourcesFlags::default(),
        container: None,
        target: None,
        profile: None,
        patch: None,
        subresource: None,
        tail: None,
        restart: None,
        schedule: None,
        labels: None,
        target_port: None,
        service_type: None,
        service_name: None,
        hard: None,
        duration: None,
        audiences: Vec::new(),
        scopes: None,
        recursive: false,
        api_version: None,
        drain: DrainFlags::default(),
        rbac: RbacFlags::default(),
        pdb: PdbFlags::default(),
        autoscale: AutoscaleFlags::default(),
        can_i: CanIFlags::default(),
        as_user: None,
        as_groups: Vec::new(),
        events_for: None,
        events_types: Vec::new(),
        logs: LogFlags::default(),
        config: ConfigFlags::default(),
        context_namespace: "default".into(),
        given: Vec::new(),
    };
    let mut positional = Vec::new();
    let mut i = 1;
    while i < words.len() {
        let w = words[i].clone();
        i += 1;
        if w == "--" {
            c.command = words[i..].to_vec();
            break;
        }
        if !w.starts_with('-') || w == "-" {
            positional.push(w);
            continue;
        }
        let (flag, inline) = match w.split_once('=') {
            Some((f, v)) => (f.to_string(), Some(v.to_string())),
            None => (w.clone(), None),
        };
        // Short flags may carry their value: -nkube-system, -oyaml.
        let (flag, inline) = match (flag.as_str(), inline) {
            (f, None) if f.len() > 2 && !f.starts_with("--") => (f[..2].to_string(), Some(f[2..].to_string())),
            (_, v) => (flag.clone(), v),
        };
        let mut value = |name: &str| -> Result<String, String> {
            if let Some(v) = inline.clone() {
                return Ok(v);
            }
            let v = words.get(i).cloned().ok_or_else(|| format!("flag needs an argument: {name}"))?;
            i += 1;
            Ok(v)
        };
        let boolean = |v: &Option<String>| -> Result<bool, String> {
            match v.as_deref() {
                None | Some("true") => Ok(true),
                Some("false") => Ok(false),
                Some(o) => Err(format!("invalid argument \"{o}\" for \"{flag}\" flag: expected true or false")),
            }
        };
        if let Some(name) = generator_flag(&flag, &c.verb) {
            c.given.push(name);
        }
        // A string slice flag's values: split at commas, none when empty.
        let slice = |v: String| -> Vec<String> {
            if v.is_empty() {
                Vec::new()
            } else {
                v.split(',').map(str::to_string).collect()
            }
        };
        let int = |flag: &str, v: String| -> Result<i64, String> {
            v.parse().map_err(|_| {
                format!(
                    "invalid argument \"{v}\" for \"{flag}\" flag: strconv.ParseInt: parsing \"{v}\": invalid syntax"
                )
            })
        };
        // `config`'s subcommands each take their own flags (checked
        // against `allowed` below).
        if c.verb == Verb::Config {
            let own = ["-n", "-o", "--output", "--current", "--cluster", "--minify", "--no-headers"];
            c.given.extend(own.into_iter().find(|f| *f == flag));
        }
        // (What `diff` does not take of the flags this bar knows.)
        if c.verb == Verb::Diff {
            let others = [
                "-o",
                "--output",
                "-w",
                "--watch",
                "--dry-run",
                "--validate",
                "--overwrite",
                "--cascade",
                "-A",
                "--all-namespaces",
                "--no-headers",
                "--show-labels",
                "--sort-by",
                "-L",
                "--raw",
                "--chunk-size",
                "--all",
                "--list",
                "--timeout",
                "--for",
                "-p",
                "--patch",
                "--subresource",
                "--force",
            ];
            c.given.extend(others.into_iter().find(|f| *f == flag));
        }
        match flag.as_str() {
            "-l" | "--labels" if c.verb == Verb::Run => c.labels = Some(value("'-l'")?),
            "--current" if c.verb == Verb::Config => c.config.current = boolean(&inline)?,
            "--cluster" if c.verb == Verb::Config => c.config.cluster = Some(value("'--cluster'")?),
            "--minify" if c.verb == Verb::Config => c.config.minify = boolean(&inline)?,
            // (Nothing secret to show or inline: the same view.)
            "--raw" | "--flatten" if c.verb == Verb::Config => {
                boolean(&inline)?;
            }
            "--image" => c.image = Some(value("'--image'")?),
            "--replicas" => c.replicas = Some(int("--replicas", value("'--replicas'")?)?),
            "--min" => c.autoscale.min = Some(int("--min", value("'--min'")?)?),
            "--max" => c.autoscale.max = Some(int("--max", value("'--max'")?)?),
            "--cpu-percent" => c.autoscale.cpu_percent = Some(int("--cpu-percent", value("'--cpu-percent'")?)?),
            "--to-revision" => c.to_revision = Some(int("--to-revision", value("'--to-revision'")?)?),
            "--port" => c.port = Some(int("--port", value("'--port'")?)?),
            "--from-literal" => c.literals.push(value("'--from-literal'")?),
            "--tcp" => c.tcp.extend(value("'--tcp'")?.split(',').map(str::to_string)),
            "-c" | "--container" | "--containers" => c.container = Some(value("'-c'")?),
            "--limits" => c.limits = Some(value("'--limits'")?),
            "--requests" => c.requests = Some(value("'--requests'")?),
            "--tail" => c.tail = Some(int("--tail", value("'--tail'")?)?),
            "--target-port" => c.target_port = Some(value("'--target-port'")?),
            "--type" => c.service_type = Some(value("'--type'")?),
            "--name" => c.service_name = Some(value("'--name'")?),
            "--restart" => c.restart = Some(value("'--restart'")?),
            "--schedule" => c.schedule = Some(value("'--schedule'")?),
            "--node-port" => c.node_port = Some(int("--node-port", value("'--node-port'")?)?),
            "--clusterip" => c.cluster_ip = Some(value("'--clusterip'")?),
            "--external-name" => c.external_name = Some(value("'--external-name'")?),
            "--value" => c.priority.value = Some(int("--value", value("'--value'")?)?),
            "--rule" => c.ingress.rules.push(value("'--rule'")?),
            "--class" => c.ingress.class = Some(value("'--class'")?),
            "--default-backend" => c.ingress.default_backend = Some(value("'--default-backend'")?),
            "--annotation" => c.ingress.annotations.push(value("'--annotation'")?),
            "--docker-server" => c.registry.server = Some(value("'--docker-server'")?),
            "--docker-username" => c.registry.username = Some(value("'--docker-username'")?),
            "--docker-password" => c.registry.password = Some(value("'--docker-password'")?),
            "--docker-email" => c.registry.email = Some(value("'--docker-email'")?),
            "--global-default" => c.priority.global_default = boolean(&inline)?,
            "--description" => c.priority.description = Some(value("'--description'")?),
            "--preemption-policy" => c.priority.preemption_policy = Some(value("'--preemption-policy'")?),
            "--hard" => c.hard = Some(value("'--hard'")?),
            "--verb" => c.rbac.verbs.extend(slice(value("'--verb'")?)),
            "--resource" => c.rbac.resources.extend(slice(value("'--resource'")?)),
            "--resource-name" => c.rbac.resource_names.push(value("'--resource-name'")?),
            "--non-resource-url" => {
                c.rbac.non_resource_urls.extend(slice(value("'--non-resource-url'")?))
            }
            "--aggregation-rule" => c.rbac.aggregation_rule.push(value("'--aggregation-rule'")?),
            "--role" => c.rbac.role = Some(value("'--role'")?),
            "--clusterrole" => c.rbac.cluster_role = Some(value("'--clusterrole'")?),
            "--user" => c.rbac.users.push(value("'--user'")?),
            "--group" => c.rbac.groups.push(value("'--group'")?),
            "--serviceaccount" => c.rbac.service_accounts.push(value("'--serviceaccount'")?),
            "--min-available" => c.pdb.min_available = Some(value("'--min-available'")?),
            "--max-unavailable" => c.pdb.max_unavailable = Some(value("'--max-unavailable'")?),
            "--as" => c.as_user = Some(value("'--as'")?),
            "--as-group" => c.as_groups.push(value("'--as-group'")?),
            "--scopes" => c.scopes = Some(value("'--scopes'")?),
            "--duration" => c.duration = Some(value("'--duration'")?),
            "--audience" => c.audiences.push(value("'--audience'")?),
            "--target" => c.target = Some(value("'--target'")?),
            "--profile" => c.profile = Some(value("'--profile'")?),
            "-f" | "--follow" if c.verb == Verb::Logs => c.logs.follow = boolean(&inline)?,
            "-p" | "--previous" if c.verb == Verb::Logs => c.logs.previous = boolean(&inline)?,
            "--timestamps" if c.verb == Verb::Logs => c.logs.timestamps = boolean(&inline)?,
            "--prefix" if c.verb == Verb::Logs => c.logs.prefix = boolean(&inline)?,
            "--all-containers" if c.verb == Verb::Logs => c.logs.all_containers = boolean(&inline)?,
            "--since" if c.verb == Verb::Logs => c.logs.since = Some(value("'--since'")?),
            "--since-time" if c.verb == Verb::Logs => c.logs.since_time = Some(value("'--since-time'")?),
            "--limit-bytes" if c.verb == Verb::Logs => {
                c.logs.limit_bytes = Some(int("--limit-bytes", value("'--limit-bytes'")?)?)
            }
            "--insecure-skip-tls-verify-backend" if c.verb == Verb::Logs => {
                c.logs.insecure_skip_tls_verify_backend = boolean(&inline)?
            }
            // Following several streams at once, waiting for a pod and
            // going on after a stream's error: none arise in the page.
            "--max-log-requests" if c.verb == Verb::Logs => {
                int("--max-log-requests", value("'--max-log-requests'")?)?;
            }
            "--pod-running-timeout" if c.verb == Verb::Logs => {
                value("'--pod-running-timeout'")?;
            }
            "--ignore-errors" if c.verb == Verb::Logs => {
                boolean(&inline)?;
            }
            "-p" | "--patch" => c.patch = Some(value("'-p'")?),
            "--subresource" => c.subresource = Some(value("'--subresource'")?),
            "-n" | "--namespace" => c.namespace = Some(value("'-n'")?),
            "-A" | "--all-namespaces" => c.all_namespaces = boolean(&inline)?,
            "-l" | "--selector" => c.selector = Some(value("'-l'")?),
            "--field-selector" => c.field_selector = Some(value("'--field-selector'")?),
            "--sort-by" if matches!(c.verb, Verb::Get | Verb::ApiResources) => {
                c.sort_by = Some(value("'--sort-by'")?)
            }
            "--api-group" if c.verb == Verb::ApiResources => c.api.group = Some(value("'--api-group'")?),
            "--namespaced" if c.verb == Verb::ApiResources => c.api.namespaced = Some(boolean(&inline)?),
            "--verbs" if c.verb == Verb::ApiResources => c.api.verbs.extend(slice(value("'--verbs'")?)),
            "--categories" if c.verb == Verb::ApiResources => {
                c.api.categories.extend(slice(value("'--categories'")?))
            }
            // (The page reads discovery afresh for every command.)
            "--cached" if c.verb == Verb::ApiResources => {
                boolean(&inline)?;
            }
            "--raw" if c.verb == Verb::Get => c.raw = Some(value("'--raw'")?),
            "--client" if c.verb == Verb::Version => c.client = boolean(&inline)?,
            "-w" | "--watch" => c.watch = boolean(&inline)?,
            "-f" | "--filename" => c.filename = Some(value("'-f'")?),
            "--overwrite" if c.verb == Verb::SetImage => c.env_overwrite = boolean(&inline)?,
            "--list" if c.verb == Verb::SetImage => c.env_list = boolean(&inline)?,
            "--from" if c.verb == Verb::SetImage => c.env_from = Some(value("'--from'")?),
            "--from" if c.verb == Verb::Create => {
                c.given.push("--from");
                c.env_from = Some(value("'--from'")?)
            }
            "--prefix" if c.verb == Verb::SetImage => c.env_prefix = Some(value("'--prefix'")?),
            "--keys" if c.verb == Verb::SetImage => {
                c.env_keys.extend(value("'--keys'")?.split(',').filter(|k| !k.is_empty()).map(str::to_string))
            }
            "--overwrite" => c.overwrite = boolean(&inline)?,
            "--server-side" => c.server_side = boolean(&inline)?,
            "--force-conflicts" => c.force_conflicts = boolean(&inline)?,
            "--force" if matches!(c.verb, Verb::Replace | Verb::Drain) => c.force = boolean(&inline)?,
            "--ignore-daemonsets" if c.verb == Verb::Drain => c.drain.ignore_daemonsets = boolean(&inline)?,
            "--delete-emptydir-data" if c.verb == Verb::Drain => c.drain.delete_emptydir_data = boolean(&inline)?,
            "--disable-eviction" if c.verb == Verb::Drain => c.drain.disable_eviction = boolean(&inline)?,
            "--grace-period" if c.verb == Verb::Drain => {
                c.drain.grace_period = Some(int("--grace-period", value("'--grace-period'")?)?)
            }
            "--for" if c.verb == Verb::Events => c.events_for = Some(value("'--for'")?),
            "--for" if c.verb == Verb::Wait => c.wait_for = Some(value("'--for'")?),
            "--timeout" if c.verb == Verb::Wait => c.timeout = Some(value("'--timeout'")?),
            "--all" if matches!(c.verb, Verb::Wait | Verb::Delete) => c.all = boolean(&inline)?,
            "--types" if c.verb == Verb::Events => {
                c.events_types.extend(value("'--types'")?.split(',').filter(|t| !t.is_empty()).map(str::to_string))
            }
            "--pod-selector" if c.verb == Verb::Drain => c.drain.pod_selector = Some(value("'--pod-selector'")?),
            // The page does not wait, so there is no time to give up after.
            "--timeout" if c.verb == Verb::Drain => {
                value("'--timeout'")?;
            }
            "--dry-run" if c.verb == Verb::Drain && inline.as_deref() == Some("client") => c.drain.client_dry_run = true,
            "--show-managed-fields" => c.show_managed_fields = boolean(&inline)?,
            "--list" if c.verb == Verb::Auth => c.can_i.list = boolean(&inline)?,
            "--no-headers" if matches!(c.verb, Verb::Auth | Verb::Get | Verb::Config | Verb::ApiResources) => c.no_headers = boolean(&inline)?,
            "-L" | "--label-columns" if c.verb == Verb::Get => {
                c.label_columns.extend(value("'-L'")?.split(',').filter(|k| !k.is_empty()).map(str::to_string))
            }
            "--show-labels" if c.verb == Verb::Get => c.show_labels = boolean(&inline)?,
            "-q" | "--quiet" if c.verb == Verb::Auth => c.can_i.quiet = boolean(&inline)?,
            "--recursive" if c.verb == Verb::Explain => c.recursive = boolean(&inline)?,
            "--api-version" if c.verb == Verb::Explain => c.api_version = Some(value("'--api-version'")?),
            "-o" if c.verb == Verb::Explain => {
                return Err("error: unknown shorthand flag: 'o' in -o\nSee 'kubectl explain --help' for usage.".into())
            }
            "--output" if c.verb == Verb::Explain => match value("'--output'")?.as_str() {
                "plaintext" => {}
                "plaintext-openapiv2" => {
                    return Err("error: --output=plaintext-openapiv2 (the OpenAPI v2 explain) is not simulated here; the default, plaintext, is".into())
                }
                other => return Err(format!("error: unrecognized format: {other}")),
            },
            "--validate" => {
                c.field_validation = match inline.as_deref() {
                    None | Some("strict") | Some("true") => "Strict",
                    Some("warn") => "Warn",
                    Some("ignore") | Some("false") => "Ignore",
                    Some(other) => {
                        return Err(format!(
                            "invalid - validate option {other:?}; must be one of: strict (or true), warn, ignore (or false)"
                        ))
                    }
                };
            }
            "--dry-run" => {
                c.server_dry_run = match inline.as_deref() {
                    Some("server") => true,
                    Some("none") => false,
                    Some("client") if matches!(c.verb, Verb::Create | Verb::Run | Verb::Expose) => {
                        c.client_dry_run = true;
                        false
                    }
                    Some("client") => return Err(CLIENT_DRY_RUN.into()),
                    other => {
                        return Err(format!(
                            "error: Invalid dry-run value ({}). Must be \"none\", \"server\", or \"client\".",
                            other.unwrap_or("")
                        ))
                    }
                };
            }
            "--chunk-size" => {
                let v = value("'--chunk-size'")?;
                c.chunk_size = v.parse().map_err(|_| format!("invalid argument \"{v}\" for \"--chunk-size\" flag"))?;
            }
            "--cascade" => {
                let v = value("'--cascade'")?;
                c.cascade = match v.as_str() {
                    "background" | "true" => "background".into(),
                    "foreground" => "foreground".into(),
                    "orphan" | "false" => "orphan".into(),
                    _ => return Err(format!("invalid cascade value ({v}). Must be \"background\", \"foreground\", or \"orphan\"")),
                };
            }
            "-o" | "--output" => {
                let v = value("'-o'")?;
                c.output = match v.as_str() {
                    "yaml" => Output::Yaml,
                    "json" => Output::Json,
                    "name" => Output::Name,
                    "wide" => Output::Wide,
                    "jsonpath" | "jsonpath=" | "go-template" | "go-template=" | "template" | "template=" => {
                        return Err("error: template format specified but no template given".into())
                    }
                    t if t.starts_with("go-template=") => Output::GoTemplate(t["go-template=".len()..].to_string()),
                    t if t.starts_with("template=") => Output::GoTemplate(t["template=".len()..].to_string()),
                    t if t.starts_with("jsonpath=") => Output::JsonPath(t["jsonpath=".len()..].to_string()),
                    "custom-columns" => Output::CustomColumns(String::new()),
                    t if t.starts_with("custom-columns=") => {
                        Output::CustomColumns(t["custom-columns=".len()..].to_string())
                    }
                    _ => {
                        return Err(format!(
                            "unable to match a printer suitable for the output format \"{v}\", allowed formats are: custom-columns,go-template,json,jsonpath,name,template,wide,yaml"
                        ))
                    }
                };
            }
            _ => return Err(format!("unknown flag: {flag} (this command bar knows -n, -A, -l, --field-selector, -o, --no-headers, -L, --show-labels, --sort-by, --raw, -w, --chunk-size, -f, --overwrite, --cascade, --dry-run=server, --validate, and --as, --as-group, --image, --replicas, --to-revision, --port, --from-literal, --tcp, --restart, -c, --tail, --target-port, --type, --name, --hard, --scopes, --verb, --resource, --resource-name, --non-resource-url, --min-available, --max-unavailable, --schedule, --aggregation-rule, --role, --clusterrole, --user, --group, --serviceaccount, --duration, --audience, --target, --profile, -p, --subresource, --for, --timeout, --all, --limits, --requests, --list, and logs' -f, -p, --timestamps, --prefix, --all-containers, --since, --since-time, --limit-bytes where kubectl takes them)")),
        }
    }
    if c.verb == Verb::Create && c.filename.is_none() && !positional.is_empty() {
        c.verb = Verb::CreateFrom;
    }
    // (A file's objects, or a token, would be printed otherwise.)
    let token = positional.first().is_some_and(|p| p == "token");
    if c.client_dry_run && (c.verb == Verb::Create || token) {
        return Err(CLIENT_DRY_RUN.into());
    }
    // The generator flags belong to their commands: elsewhere kubectl
    // does not know them.
    let allowed: &[&str] = match (&c.verb, positional.first().map(String::as_str)) {
        (Verb::CreateFrom, Some("deployment" | "deploy")) => &["--image", "--replicas", "--port"],
        (Verb::CreateFrom, Some("job")) => &["--image", "--from"],
        (Verb::CreateFrom, Some("secret")) if positional.get(1).is_some_and(|t| t == "docker-registry") => {
            &["--docker-server", "--docker-username", "--docker-password", "--docker-email"]
        }
        (Verb::CreateFrom, Some("configmap" | "cm" | "secret")) => &["--from-literal"],
        (Verb::CreateFrom, Some("service" | "svc")) => match positional.get(1).map(String::as_str) {
            Some("clusterip") => &["--tcp", "--clusterip"],
            Some("nodeport") => &["--tcp", "--node-port"],
            Some("externalname") => &["--tcp", "--external-name"],
            _ => &["--tcp"],
        },
        (Verb::CreateFrom, Some("ingress" | "ing")) => &["--rule", "--class", "--default-backend", "--annotation"],
        (Verb::CreateFrom, Some("priorityclass" | "pc")) => {
            &["--value", "--global-default", "--description", "--preemption-policy"]
        }
        (Verb::CreateFrom, Some("quota" | "resourcequota")) => &["--hard", "--scopes"],
        (Verb::CreateFrom, Some("token")) => &["--duration", "--audience"],
        (Verb::CreateFrom, Some("role")) => &["--verb", "--resource", "--resource-name"],
        (Verb::CreateFrom, Some("poddisruptionbudget" | "pdb")) => &["--min-available", "--max-unavailable"],
        (Verb::CreateFrom, Some("cronjob" | "cj")) => &["--image", "--schedule", "--restart"],
        (Verb::CreateFrom, Some("clusterrole")) => {
            &["--verb", "--resource", "--resource-name", "--non-resource-url", "--aggregation-rule"]
        }
        (Verb::CreateFrom, Some("rolebinding")) => {
            &["--role", "--clusterrole", "--user", "--group", "--serviceaccount"]
        }
        (Verb::CreateFrom, Some("clusterrolebinding")) => &["--clusterrole", "--user", "--group", "--serviceaccount"],
        (Verb::Run, _) => &["--image", "--port", "--restart", "--labels"],
        (Verb::Scale, _) => &["--replicas"],
        (Verb::Autoscale, _) => &["--min", "--max", "--cpu-percent", "--name"],
        (Verb::SetImage, Some("resources")) => &["--limits", "--requests", "--container"],
        (Verb::SetImage, Some("env")) => &["--container"],
        (Verb::SetImage, Some("subject")) => &["--user", "--group", "--serviceaccount"],
        (Verb::Rollout, Some("undo")) => &["--to-revision"],
        (Verb::Logs, _) => &["--container", "--tail"],
        (Verb::Debug, _) => &["--image", "--container", "--target", "--profile"],
        (Verb::Patch, _) => &["--patch", "--type", "--subresource"],
        (Verb::Auth, Some("can-i")) => &["--subresource"],
        (Verb::Config, Some("set-context")) => &["--current", "--cluster", "--user"],
        (Verb::Config, Some("view")) => &["--minify", "-n", "-o", "--output"],
        (Verb::Config, Some("get-contexts")) => &["-n", "-o", "--output", "--no-headers"],
        (Verb::Config, _) => &["-n"],
        (Verb::Expose, _) => &["--port", "--target-port", "--type", "--name"],
        _ => &[],
    };
    if let Some(f) = c.given.iter().find(|f| !allowed.contains(f)) {
        let verb = match &c.verb {
            // (A service's type is its own command; an alias is named by
            // the command's name.)
            Verb::CreateFrom => match positional.first().map(String::as_str) {
                Some("service" | "svc") => {
                    format!("create service {}", positional.get(1).map(String::as_str).unwrap_or(""))
                }
                Some("priorityclass" | "pc") => "create priorityclass".into(),
                Some("ingress" | "ing") => "create ingress".into(),
                Some("secret") => format!("create secret {}", positional.get(1).map(String::as_str).unwrap_or("")),
                other => format!("create {}", other.unwrap_or("")),
            },
            Verb::SetImage => format!("set {}", positional.first().map(String::as_str).unwrap_or("")),
            Verb::Rollout => format!("rollout {}", positional.first().map(String::as_str).unwrap_or("")),
            Verb::Config => format!("config {}", positional.first().map(String::as_str).unwrap_or("")),
            _ => verb_word.clone(),
        };
        let unknown = match f.strip_prefix('-').filter(|short| short.len() == 1) {
            Some(short) => format!("unknown shorthand flag: '{short}' in {f}"),
            None => format!("unknown flag: {f}"),
        };
        if c.verb == Verb::Diff {
            return Err(format!("error: {unknown}\nSee 'kubectl diff -h' for help and examples"));
        }
        return Err(format!("error: {unknown}\nSee 'kubectl {verb} --help' for usage."));
    }
    if !c.command.is_empty() && !matches!(c.verb, Verb::Run | Verb::CreateFrom) {
        return Err(format!("error: unexpected arguments: {}", c.command.join(" ")));
    }
    match c.verb {
        Verb::CreateFrom
        | Verb::Run
        | Verb::Scale
        | Verb::Autoscale
        | Verb::SetImage
        | Verb::Logs
        | Verb::Rollout
        | Verb::Expose
        | Verb::Debug
        | Verb::Taint
        | Verb::Explain => {
            c.args = positional;
        }
        // kubectl's checks, in its order.
        Verb::ApiResources => {
            if !positional.is_empty() {
                return Err(format!(
                    "error: unexpected arguments: [{}]\nSee 'kubectl api-resources -h' for help and examples",
                    positional.join(" ")
                ));
            }
            if !matches!(c.output, Output::Table | Output::Wide | Output::Name) {
                return Err(format!("error: --output {} is not available", c.output.typed()));
            }
            if c.sort_by.as_deref().is_some_and(|s| !["", "name", "kind"].contains(&s)) {
                return Err("error: --sort-by accepts only name or kind".into());
            }
        }
        Verb::Events => {
            if c.watch || c.output != Output::Table {
                return Err(
                    "error: kubectl events -w and -o are not simulated in this command bar; get events -w and -o are"
                        .into(),
                );
            }
            if !positional.is_empty() {
                return Err(format!("error: unexpected arguments: {}", positional.join(" ")));
            }
        }
        Verb::Cordon | Verb::Uncordon | Verb::Drain => {
            if c.selector.is_some() {
                return Err(format!(
                    "error: {verb_word} -l (nodes by label) is not simulated in this command bar; name the nodes"
                ));
            }
            if positional.is_empty() {
                return Err(format!(
                    "error: USAGE: {verb_word} NODE [flags]\nSee 'kubectl {verb_word} -h' for help and examples"
                ));
            }
            c.names = positional;
        }
        Verb::Auth => {
            match positional.first().map(String::as_str) {
                Some("can-i") if c.can_i.list && positional.len() > 1 => {
                    return Err("error: list option must be specified with no arguments".into())
                }
                Some("can-i") if c.can_i.list || positional.len() == 3 => {}
                Some("can-i") => return Err("error: you must specify two arguments: verb resource or verb resource/resourceName.\nSee 'kubectl auth can-i -h' for help and examples.".into()),
                Some("whoami") if c.can_i != CanIFlags::default() || c.no_headers => {
                    let flag = if c.can_i.list {
                        "--list"
                    } else if c.no_headers {
                        "--no-headers"
                    } else {
                        "--quiet"
                    };
                    return Err(format!("error: unknown flag: {flag}\nSee 'kubectl auth whoami --help' for usage."));
                }
                Some("whoami") if positional.len() == 1 => {}
                Some("whoami") => return Err(format!("error: unexpected arguments: {}", positional[1..].join(" "))),
                Some(other) => {
                    return Err(format!(
                        "error: unknown command \"{other}\" for \"kubectl auth\"; this command bar knows auth can-i and auth whoami"
                    ))
                }
                None => return Err("error: kubectl auth needs a sub-command: can-i or whoami".into()),
            }
            c.types = positional;
        }
        Verb::Diff => {
            if c.filename.is_none() {
                return Err("error: must specify one of -f and -k".into());
            }
            if !positional.is_empty() {
                return Err(format!(
                    "error: Unexpected args: [{}]\nSee 'kubectl diff -h' for help and examples",
                    positional.join(" ")
                ));
            }
        }
        Verb::Create | Verb::Apply | Verb::Replace => {
            if c.filename.is_none() {
                return Err("error: must specify one of -f and -k".into());
            }
            if !positional.is_empty() {
                return Err(format!("unexpected arguments: {}", positional.join(" ")));
            }
        }
        // kubectl's checks of --raw, in its order.
        Verb::Get if c.raw.is_some() => {
            if !positional.is_empty() {
                return Err("error: arguments may not be passed when --raw is specified".into());
            }
            if c.watch || c.selector.is_some() {
                return Err(
                    "error: --raw may not be specified with other flags that filter the server request or alter the output"
                        .into(),
                );
            }
            if c.output != Output::Table {
                return Err("error: --raw and --output are mutually exclusive".into());
            }
        }
        Verb::Config => {
            const SIMULATED: [&str; 10] = [
                "view",
                "delete-context",
                "rename-context",
                "current-context",
                "get-contexts",
                "use-context",
                "use",
                "set-context",
                "get-clusters",
                "get-users",
            ];
            const OTHERS: [&str; 6] =
                ["delete-cluster", "delete-user", "set", "set-cluster", "set-credentials", "unset"];
            match positional.first().map(String::as_str) {
                Some(sub) if SIMULATED.contains(&sub) => {}
                Some(sub) if OTHERS.contains(&sub) => {
                    return Err(format!(
                        "\"kubectl config {sub}\" is not simulated in this command bar; it knows config {}",
                        super::config::SUBCOMMANDS
                    ))
                }
                Some(other) => {
                    return Err(format!(
                        "error: unknown command \"{other}\"\nSee 'kubectl config -h' for help and examples"
                    ))
                }
                None => {}
            }
            c.args = positional;
        }
        Verb::ClusterInfo => {
            if positional.first().is_some_and(|p| p == "dump") {
                return Err("\"kubectl cluster-info dump\" is not simulated in this command bar".into());
            }
        }
        Verb::Version | Verb::ApiVersions => {
            if !positional.is_empty() {
                return Err(format!("error: unexpected arguments: {}", positional.join(" ")));
            }
            match (&c.verb, &c.output) {
                (_, Output::Table) | (Verb::Version, Output::Yaml | Output::Json) => {}
                (Verb::Version, _) => return Err("error: --output must be 'yaml' or 'json'".into()),
                _ => return Err(format!("error: \"kubectl {verb_word} -o\" is not simulated in this command bar")),
            }
        }
        Verb::Wait if positional.is_empty() => {
            return Err("error: You must provide one or more resources by argument or filename.\nExample resource specifications include:\n   '-f rsrc.yaml'\n   '--filename=rsrc.json'\n   '<resource> <name>'".into());
        }
        // kubectl's builder: `--all` is a selector of everything.
        Verb::Delete if c.all && c.selector.as_deref().is_some_and(|s| !s.is_empty()) => {
            return Err("error: setting 'all' parameter but found a non empty selector. ".into());
        }
        Verb::Delete if positional.is_empty() && (c.all || c.selector.is_some()) => {
            return Err("error: at least one resource must be specified to use a selector".into());
        }
        _ => {
            let Some(first) = positional.first() else {
                return Err("error: you must specify the type of resource to get. Use \"kubectl api-resources\" for a complete list of supported resources.".into());
            };
            c.types = first.split(',').filter(|s| !s.is_empty()).map(str::to_string).collect();
            for p in &positional[1..] {
                if matches!(c.verb, Verb::Label | Verb::Annotate) && (p.contains('=') || p.ends_with('-')) {
                    c.pairs.push(p.clone());
                } else {
                    c.names.push(p.clone());
                }
            }
            if c.verb == Verb::Delete && (c.selector.is_some() || c.all) && !c.names.is_empty() {
                return Err("error: name cannot be provided when a selector is specified".into());
            }
            let by_selector = c.verb == Verb::Delete && (c.selector.is_some() || c.all);
            let by_list = c.verb == Verb::Wait && (c.selector.is_some() || c.all);
            let slashed = c.types.iter().any(|t| t.contains('/'));
            if c.verb == Verb::Wait && c.names.is_empty() && !by_list && !slashed {
                return Err("error: resource(s) were provided, but no name was specified".into());
            }
            if matches!(c.verb, Verb::Delete | Verb::Label | Verb::Annotate) && c.names.is_empty() && !by_selector {
                return Err("error: resource(s) were provided, but no name was specified".into());
            }
            if matches!(c.verb, Verb::Label | Verb::Annotate) && c.pairs.is_empty() {
                return Err("error: at least one label update is required".into());
            }
        }
    }
    Ok(c)
}
