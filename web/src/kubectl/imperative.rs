//! The imperative commands a workshop types: `create`'s generators
//! (namespace, configmap, secret generic, deployment, job, service), `run`,
//! `expose`, `scale`, `set image`, `cordon`, `uncordon`
//! and `api-resources`,
//! each sent as kubectl 1.33 sends it (the objects its generators build,
//! its field managers, its patches) and answered as it prints.

use base64::Engine;
use kubesim::sort::Order;

use super::write::resource_for_doc;
use super::*;

/// The namespace a command works in (these take no `-A`).
pub(super) fn namespace(cmd: &Command) -> String {
    cmd.namespace.clone().unwrap_or_else(|| cmd.context_namespace.clone())
}

/// Reads an object as kubectl's builder does before changing it; a
/// failure is printed and gives None.
pub(super) fn read(s: &mut Session, path: &str, out: &mut Outcome) -> Option<Value> {
    let e = send(s, "GET", path, None, None, "application/json");
    if e.response.status != 200 {
        out.error(server_error(&e));
        return None;
    }
    Some(body_json(&e.response))
}

/// Sends a write and prints kubectl's line for it (`<kind>/<name> <done>`)
/// or the server's error.
pub(super) fn change(
    s: &mut Session,
    method: &str,
    target: String,
    ct: &str,
    body: &Value,
    done: String,
    out: &mut Outcome,
) {
    let e = send(s, method, &target, Some(ct), Some(body), "application/json");
    if matches!(e.response.status, 200 | 201) {
        out.line(done);
    } else {
        out.error(server_error(&e));
    }
}

/// The names of the containers under a pod spec.
pub(super) fn container_names(spec: Option<&Value>) -> Vec<String> {
    spec.and_then(|s| s["containers"].as_array())
        .map(|cs| cs.iter().filter_map(|c| c.get("name")?.as_str().map(str::to_string)).collect())
        .unwrap_or_default()
}

/// A new object's metadata as kubectl's generators serialize it.
fn meta(name: &str, labels: Option<Value>) -> Value {
    let mut m = json!({"name": name, "creationTimestamp": null});
    if let Some(l) = labels {
        m["labels"] = l;
    }
    m
}

/// The container name `create deployment` derives from an image: its last
/// path segment without tag or digest (kubectl adds a random suffix when
/// it had to replace `.` or `_`; the simulator's is fixed, to stay
/// deterministic).
fn container_name(image: &str) -> String {
    let last = image.rsplit('/').next().unwrap_or(image);
    let name = last.split('@').next().unwrap_or(last);
    let name = name.split(':').next().unwrap_or(name);
    if name.contains(['_', '.']) {
        format!("{}-x7k2q", name.replace(['_', '.'], "-"))
    } else {
        name.to_string()
    }
}

/// `k=v` pairs of `--from-literal`, refused as kubectl refuses them.
fn literals(cmd: &Command, kind: &str, name: &str, encode: bool) -> Result<Map<String, Value>, String> {
    let mut data = Map::new();
    for l in &cmd.literals {
        let Some((k, v)) = l.split_once('=').filter(|(k, _)| !k.is_empty()) else {
            return Err(format!("error: invalid literal source {l}, expected key=value"));
        };
        if data.contains_key(k) {
            let field = if kind == "Secret" { "data" } else { "Data" };
            return Err(format!(
                "error: cannot add key {k}, another key by that name already exists in {field} for {kind} \"{name}\""
            ));
        }
        let v = if encode { base64::engine::general_purpose::STANDARD.encode(v) } else { v.to_string() };
        data.insert(k.to_string(), json!(v));
    }
    Ok(data)
}

/// `create secret docker-registry`: a `kubernetes.io/dockerconfigjson`
/// Secret whose `.dockerconfigjson` holds the one registry's credentials
/// as kubectl writes them (`auth` the base64 of `user:password`, the
/// email only when given).
fn docker_registry(cmd: &Command, name: &str) -> Result<Value, String> {
    use base64::Engine;
    let flags = &cmd.registry;
    let server = flags.server.as_deref().unwrap_or("https://index.docker.io/v1/");
    let (Some(user), Some(password)) = (flags.username.as_deref(), flags.password.as_deref()) else {
        return Err("error: either --from-file or the combination of --docker-username, --docker-password and --docker-server is required".into());
    };
    if user.is_empty() || password.is_empty() || server.is_empty() {
        return Err("error: either --from-file or the combination of --docker-username, --docker-password and --docker-server is required".into());
    }
    let b64 = |s: &str| base64::engine::general_purpose::STANDARD.encode(s);
    let mut entry = json!({"username": user, "password": password});
    if let Some(email) = flags.email.as_deref().filter(|e| !e.is_empty()) {
        entry["email"] = json!(email);
    }
    entry["auth"] = json!(b64(&format!("{user}:{password}")));
    let config = json!({"auths": {server: entry}}).to_string();
    Ok(json!({
        "kind": "Secret", "apiVersion": "v1", "metadata": meta(name, None),
        "data": {".dockerconfigjson": b64(&config)},
        "type": "kubernetes.io/dockerconfigjson"
    }))
}

/// kubectl's refusal of a generator's NAME count (`create LONG`).
pub(super) fn one_name(long: &str, got: usize) -> String {
    format!("error: exactly one NAME is required, got {got}\nSee 'kubectl create {long} -h' for help and examples")
}

/// The object a `create` generator builds, and which generator it is.
fn generated(cmd: &Command) -> Result<(&'static str, Value), String> {
    let (kind_word, rest) = cmd.args.split_first().ok_or("error: unknown create generator")?;
    // `create secret generic NAME`.
    let (what, names) = match kind_word.as_str() {
        "secret" => match rest.split_first() {
            Some((t, n)) if t == "generic" => ("secret", n),
            Some((t, n)) if t == "docker-registry" => ("docker-registry", n),
            Some((t, _)) => return Err(format!("\"kubectl create secret {t}\" is not simulated in this command bar; it knows create secret generic and docker-registry")),
            None => return Err("error: must specify generic, docker-registry or tls".into()),
        },
        "namespace" | "ns" => ("namespace", rest),
        "configmap" | "cm" => ("configmap", rest),
        "deployment" | "deploy" => ("deployment", rest),
        "job" => ("job", rest),
        "quota" | "resourcequota" => ("quota", rest),
        "serviceaccount" | "sa" => ("serviceaccount", rest),
        other => {
            return Err(format!(
                "\"kubectl create {other}\" is not simulated in this command bar; it knows create -f and create namespace, configmap, secret generic, deployment, job, quota, serviceaccount, token, role, clusterrole, rolebinding, clusterrolebinding, poddisruptionbudget, priorityclass, ingress, cronjob, service clusterip|nodeport|loadbalancer|externalname"
            ))
        }
    };
    let name = match names {
        [n] => n.as_str(),
        more => {
            let long = match what {
                "secret" => "secret generic",
                "docker-registry" => "secret docker-registry",
                other => other,
            };
            return Err(one_name(long, more.len()));
        }
    };
    let require_image = || cmd.image.clone().ok_or_else(|| "error: required flag(s) \"image\" not set".to_string());
    let object = match what {
        "namespace" => {
            json!({"kind": "Namespace", "apiVersion": "v1", "metadata": meta(name, None), "spec": {}, "status": {}})
        }
        "serviceaccount" => json!({"kind": "ServiceAccount", "apiVersion": "v1", "metadata": meta(name, None)}),
        "docker-registry" => docker_registry(cmd, name)?,
        "configmap" | "secret" => {
            // (A Secret's values are base64, a ConfigMap's as given.)
            let kind = if what == "secret" { "Secret" } else { "ConfigMap" };
            let data = literals(cmd, kind, name, what == "secret")?;
            let mut o = json!({"kind": kind, "apiVersion": "v1", "metadata": meta(name, None)});
            if !data.is_empty() {
                o["data"] = Value::Object(data);
            }
            o
        }
        "deployment" => {
            let image = require_image()?;
            let labels = json!({"app": name});
            let mut container = json!({"name": container_name(&image), "image": image, "resources": {}});
            if let Some(p) = cmd.port {
                container["ports"] = json!([{"containerPort": p}]);
            }
            if !cmd.command.is_empty() {
                container["command"] = json!(cmd.command);
            }
            json!({
                "kind": "Deployment", "apiVersion": "apps/v1", "metadata": meta(name, Some(labels.clone())),
                "spec": {
                    "replicas": cmd.replicas.unwrap_or(1),
                    "selector": {"matchLabels": labels},
                    "template": {"metadata": meta_template(Some(json!({"app": name}))), "spec": {"containers": [container]}},
                    "strategy": {}
                },
                "status": {}
            })
        }
        "job" => {
            let image = cmd.image.clone().ok_or("error: either --image or --from must be specified")?;
            let mut container = json!({"name": name, "image": image, "resources": {}});
            if !cmd.command.is_empty() {
                container["command"] = json!(cmd.command);
            }
            json!({
                "kind": "Job", "apiVersion": "batch/v1", "metadata": meta(name, None),
                "spec": {"template": {"metadata": meta_template(None), "spec": {"containers": [container], "restartPolicy": "Never"}}},
                "status": {}
            })
        }
        // quota
        _ => {
            let mut spec = serde_json::Map::new();
            if let Some(hard) = cmd.hard.as_deref().filter(|h| !h.is_empty()) {
                // Sent as Go encodes a ResourceList: names in order,
                // amounts canonical.
                let mut amounts = std::collections::BTreeMap::new();
                for statement in hard.split(',') {
                    let parts: Vec<&str> = statement.split('=').collect();
                    let [resource, amount] = parts[..] else {
                        return Err(format!("error: Invalid argument syntax {statement}, expected <resource>=<value>"));
                    };
                    let q = kubesim::api::quantity::canonical(amount).map_err(|e| format!("error: {e}"))?;
                    amounts.insert(resource.to_string(), json!(q));
                }
                spec.insert("hard".into(), json!(amounts));
            }
            if let Some(scopes) = cmd.scopes.as_deref().filter(|s| !s.is_empty()) {
                let scopes: Vec<&str> = scopes.split(',').collect();
                if scopes.contains(&"") {
                    return Err("error: invalid resource quota scope \"\"".into());
                }
                spec.insert("scopes".into(), json!(scopes));
            }
            json!({"kind": "ResourceQuota", "apiVersion": "v1", "metadata": meta(name, None), "spec": spec, "status": {}})
        }
    };
    Ok((what, object))
}

/// A pod template's metadata as the generators serialize it.
fn meta_template(labels: Option<Value>) -> Value {
    let mut m = json!({"creationTimestamp": null});
    if let Some(l) = labels {
        m["labels"] = l;
    }
    m
}

/// How a command creates: its field manager, whether it sends
/// `fieldValidation`, the word it prints, and how it words a refusal:
/// some of kubectl's generators wrap the server's error in their own
/// (`error: failed to create rolebinding: …`, no longer a Status).
pub(super) struct Creates {
    manager: &'static str,
    validate: bool,
    done: &'static str,
    /// (what, and what comes between it and the server's message).
    wrap: Option<(&'static str, &'static str)>,
}

pub(super) const CREATE: Creates = Creates { manager: "kubectl-create", validate: true, done: "created", wrap: None };
const RUN: Creates = Creates { manager: "kubectl-run", validate: false, done: "created", wrap: None };
const EXPOSE: Creates = Creates { manager: "kubectl-expose", validate: true, done: "exposed", wrap: None };

impl Creates {
    /// `create`, its refusals wrapped as `failed to create WHAT: …`.
    pub(super) const fn create_wrapped(what: &'static str) -> Creates {
        Creates { wrap: Some((what, ": ")), ..CREATE }
    }
}

/// `create secret …`, its refusals wrapped without a colon (`failed to
/// create secret secrets "x" already exists`), as kubectl words them.
const CREATE_SECRET: Creates = Creates { wrap: Some(("secret", " ")), ..CREATE };

/// How a generator's refusal is worded: wrapped by `configmap`,
/// `deployment`, `quota`, `serviceaccount` and `secret`, the server's own
/// for `namespace`.
fn creates_for(what: &str) -> Creates {
    match what {
        "configmap" => Creates::create_wrapped("configmap"),
        "deployment" => Creates::create_wrapped("deployment"),
        "quota" => Creates::create_wrapped("quota"),
        "serviceaccount" => Creates::create_wrapped("serviceaccount"),
        "secret" | "docker-registry" => CREATE_SECRET,
        _ => CREATE,
    }
}

/// Creates a built object as the command does, and prints
/// `<kind>/<name> <done>`.
pub(super) fn post(s: &mut Session, d: &Discovery, cmd: &Command, object: Value, how: &Creates, out: &mut Outcome) {
    let r = match resource_for_doc(d, &object) {
        Ok(r) => r.clone(),
        Err(e) => return out.error(e),
    };
    // A namespace given with -n is written into the object (kubectl's
    // generators do so when the namespace is enforced), after its name.
    let object = match (&cmd.namespace, object["metadata"].get("namespace")) {
        (Some(ns), None) if r.namespaced => with_namespace(object, ns),
        _ => object,
    };
    let mut target = format!("{}?fieldManager={}", r.collection(Some(&namespace(cmd))), how.manager);
    if how.validate {
        target.push_str(&format!("&fieldValidation={}", cmd.field_validation));
    }
    let name = object.pointer("/metadata/name").and_then(Value::as_str).unwrap_or("");
    let line = format!("{} {}", name_ref(&r, name), how.done);
    // `--dry-run=client`: the object as built, nothing sent.
    if cmd.client_dry_run {
        return print_written(&r, cmd, &object, format!("{line} (dry run)"), out);
    }
    let e = send(s, "POST", &dry(cmd, target), Some("application/json"), Some(&object), "application/json");
    match (e.response.status, how.wrap) {
        (200 | 201, _) => print_written(&r, cmd, &body_json(&e.response), line, out),
        (_, Some((what, between))) => {
            let message = body_json(&e.response)["message"].as_str().unwrap_or("").to_string();
            out.error(format!("error: failed to create {what}{between}{message}"));
        }
        (_, None) => out.error(server_error(&e)),
    }
}

/// The object with `metadata.namespace` after its name, in Go's field
/// order.
fn with_namespace(mut object: Value, ns: &str) -> Value {
    if let Some(meta) = object.get_mut("metadata").and_then(Value::as_object_mut) {
        let rest = std::mem::take(meta);
        for (k, v) in rest {
            let after_name = k == "name";
            meta.insert(k, v);
            if after_name {
                meta.insert("namespace".into(), json!(ns));
            }
        }
    }
    object
}

/// What a write prints: its line (`deployment.apps/web created`), or the
/// object in `-o name|yaml|json|jsonpath=…` (its managedFields hidden
/// unless `--show-managed-fields`), as kubectl's printers after a write.
fn print_written(r: &ApiResource, cmd: &Command, object: &Value, line: String, out: &mut Outcome) {
    let mut object = object.clone();
    if !cmd.show_managed_fields && matches!(cmd.output, Output::Json | Output::Yaml) {
        if let Some(m) = object.get_mut("metadata").and_then(Value::as_object_mut) {
            m.shift_remove("managedFields");
        }
    }
    match &cmd.output {
        Output::Name => out.line(name_ref(r, object["metadata"]["name"].as_str().unwrap_or(""))),
        Output::Yaml => out.text.push_str(&to_yaml(&object)),
        Output::Json => out.text.push_str(&printed_json(&object)),
        Output::GoTemplate(template) => super::gotemplate::write(template, &object, out),
        Output::JsonPath(template) => match super::jsonpath::print(template, &object) {
            Ok(text) => out.text.push_str(&text),
            Err(e) => out.error(e),
        },
        _ => out.line(line),
    }
}

/// `create namespace|configmap|secret generic|deployment|job|service …`.
pub(super) fn create(s: &mut Session, d: &Discovery, cmd: &Command, out: &mut Outcome) {
    if cmd.args.first().is_some_and(|a| a == "token") {
        return create_token(s, cmd, out);
    }
    if super::rbac::create(s, d, cmd, out) {
        return;
    }
    if super::generators::create(s, d, cmd, out) {
        return;
    }
    if cmd.args.first().is_some_and(|a| a == "job") && (cmd.env_from.is_some() || cmd.image.is_some()) {
        return create_job(s, d, cmd, out);
    }
    match generated(cmd) {
        Ok((what, object)) => post(s, d, cmd, object, &creates_for(what), out),
        Err(e) => out.error(e),
    }
}

/// `create job NAME --image=IMAGE [-- COMMAND…]` or `--from=cronjob/NAME`,
/// as kubectl 1.33: exactly one of the two, no command with `--from`; the
/// CronJob read (a type other than CronJob refused with the Go type kubectl
/// names), and the Job made from its `jobTemplate`: its labels, its
/// annotations with `cronjob.kubernetes.io/instantiate: manual`, owned by
/// the CronJob as its controller (no `blockOwnerDeletion`); a refusal is
/// `error: failed to create job: …`.
fn create_job(s: &mut Session, d: &Discovery, cmd: &Command, out: &mut Outcome) {
    let name = match cmd.args.get(1..).unwrap_or_default() {
        [name] => name,
        more => return out.error(one_name("job", more.len())),
    };
    if cmd.image.is_some() == cmd.env_from.is_some() {
        return out.error("error: either --image or --from must be specified");
    }
    if cmd.env_from.is_some() && !cmd.command.is_empty() {
        return out.error("error: cannot specify --from and command");
    }
    let job = match &cmd.env_from {
        None => generated(cmd).map(|(_, job)| job),
        Some(from) => {
            let Some((r, from_name)) = targets(d, std::slice::from_ref(from), out).and_then(|t| t.into_iter().next())
            else {
                return;
            };
            let Some(cron) = read(s, &r.item(Some(&namespace(cmd)), &from_name), out) else { return };
            if cron["kind"] != "CronJob" {
                // Go's type: the version's package and the kind (a
                // custom resource is read unstructured).
                let builtin = !r.group.contains('.') || r.group.ends_with(".k8s.io");
                let go_type = match builtin {
                    true => format!("*{}.{}", r.version, cron["kind"].as_str().unwrap_or("")),
                    false => "*unstructured.Unstructured".into(),
                };
                return out.error(format!("error: unknown object type {go_type}"));
            }
            Ok(job_from_cron_job(cmd, name, &cron))
        }
    };
    match job {
        Ok(job) => post(s, d, cmd, job, &Creates::create_wrapped("job"), out),
        Err(e) => out.error(e),
    }
}

/// The Job kubectl's `createJobFromCronJob` builds, as Go encodes it.
fn job_from_cron_job(cmd: &Command, name: &str, cron: &Value) -> Value {
    let template = &cron["spec"]["jobTemplate"];
    let mut annotations = Map::new();
    annotations.insert("cronjob.kubernetes.io/instantiate".into(), json!("manual"));
    if let Some(more) = template["metadata"]["annotations"].as_object() {
        annotations.extend(more.iter().map(|(k, v)| (k.clone(), v.clone())));
    }
    // (Go writes a map's keys in order.)
    let annotations = crate::format::keys_sorted(&Value::Object(annotations));
    let mut metadata = json!({"name": name});
    if let Some(ns) = &cmd.namespace {
        metadata["namespace"] = json!(ns);
    }
    metadata["creationTimestamp"] = Value::Null;
    if let Some(labels) = template["metadata"]["labels"].as_object().filter(|l| !l.is_empty()) {
        metadata["labels"] = json!(labels);
    }
    metadata["annotations"] = annotations;
    metadata["ownerReferences"] = json!([{"apiVersion": "batch/v1", "kind": "CronJob",
        "name": cron["metadata"]["name"], "uid": cron["metadata"]["uid"], "controller": true}]);
    json!({"kind": "Job", "apiVersion": "batch/v1", "metadata": metadata, "spec": template["spec"], "status": {}})
}

/// `create token NAME [--duration=DUR] [--audience=A]…`: a TokenRequest
/// posted to `serviceaccounts/NAME/token`, the token printed, as kubectl
/// 1.33 does it (a duration of whole seconds; the server's refusal as
/// `error: failed to create token: …`).
fn create_token(s: &mut Session, cmd: &Command, out: &mut Outcome) {
    let name = match &cmd.args[1..] {
        [n] => n.clone(),
        more => return out.error(one_name("token", more.len())),
    };
    let mut spec = json!({"audiences": null, "expirationSeconds": null, "boundObjectRef": null});
    if !cmd.audiences.is_empty() {
        if cmd.audiences.iter().any(String::is_empty) {
            return out.error("error: --audience must not be an empty string");
        }
        spec["audiences"] = json!(cmd.audiences);
    }
    if let Some(d) = &cmd.duration {
        let Some(ms) = kubesim::clock::parse_duration_millis(d) else {
            return out.error(format!(
                "error: invalid argument \"{d}\" for \"--duration\" flag: time: invalid duration \"{d}\""
            ));
        };
        if ms % 1000 != 0 {
            return out.error("error: --duration cannot be expressed in units less than seconds");
        }
        if ms > 0 {
            spec["expirationSeconds"] = json!(ms / 1000);
        }
    }
    let request = json!({"kind": "TokenRequest", "apiVersion": "authentication.k8s.io/v1",
        "metadata": {"creationTimestamp": null}, "spec": spec, "status": {"token": "", "expirationTimestamp": null}});
    let ns = cmd.namespace.clone().unwrap_or_else(|| cmd.context_namespace.clone());
    let target = format!("/api/v1/namespaces/{ns}/serviceaccounts/{name}/token");
    let e = send(s, "POST", &target, Some("application/json"), Some(&request), "application/json");
    let answer = body_json(&e.response);
    match answer["status"]["token"].as_str() {
        Some(t) if e.response.status == 201 => out.line(t),
        _ => out.error(format!("error: failed to create token: {}", answer["message"].as_str().unwrap_or(""))),
    }
}

/// `run NAME --image=IMAGE [--port] [--restart] [-l] [-- ARGS…]`: a Pod.
pub(super) fn run(s: &mut Session, d: &Discovery, cmd: &Command, out: &mut Outcome) {
    let name = match cmd.args.as_slice() {
        [n] => n.clone(),
        [] => return out.error("error: NAME is required for run"),
        more => return out.error(format!("error: unexpected arguments: {}", more[1..].join(" "))),
    };
    let Some(image) = cmd.image.clone() else {
        return out.error("error: required flag(s) \"image\" not set");
    };
    let restart = cmd.restart.clone().unwrap_or_else(|| "Always".into());
    if !matches!(restart.as_str(), "Always" | "OnFailure" | "Never") {
        return out.error(format!("error: invalid restart policy: {restart}"));
    }
    let labels = match &cmd.labels {
        None => json!({"run": name}),
        Some(l) => {
            let mut m = Map::new();
            for pair in l.split(',') {
                let Some((k, v)) = pair.split_once('=') else {
                    return out.error(format!("error: invalid label spec: {pair}"));
                };
                m.insert(k.to_string(), json!(v));
            }
            Value::Object(m)
        }
    };
    let mut container = json!({"name": name, "image": image, "resources": {}});
    if !cmd.command.is_empty() {
        container["args"] = json!(cmd.command);
    }
    if let Some(p) = cmd.port {
        container["ports"] = json!([{"containerPort": p}]);
    }
    let pod = json!({
        "kind": "Pod", "apiVersion": "v1", "metadata": meta(&name, Some(labels)),
        "spec": {"containers": [container], "restartPolicy": restart, "dnsPolicy": "ClusterFirst"},
        "status": {}
    });
    post(s, d, cmd, pod, &RUN, out);
}

/// `TYPE NAME` or `TYPE/NAME` pairs, resolved (kubectl's builder).
pub(super) fn targets(d: &Discovery, args: &[String], out: &mut Outcome) -> Option<Vec<(ApiResource, String)>> {
    let mut found = Vec::new();
    match args {
        [] => {
            out.error("error: the server doesn't have a resource type \"\"");
            return None;
        }
        [one] if !one.contains('/') => {
            out.error("error: resource(s) were provided, but no name was specified");
            return None;
        }
        [first, rest @ ..] if !first.contains('/') => {
            let r = resolve(d, first, out)?;
            found.extend(rest.iter().map(|n| (r.clone(), n.clone())));
        }
        all => {
            for a in all {
                let Some((t, n)) = a.split_once('/') else {
                    out.error("error: there is no need to specify a resource type as a separate argument when passing arguments in resource/name form (e.g. 'kubectl get resource/<resource_name>' instead of 'kubectl get resource resource/<resource_name>'");
                    return None;
                };
                let r = resolve(d, t, out)?;
                found.push((r, n.to_string()));
            }
        }
    }
    Some(found)
}

/// `scale TYPE NAME --replicas=N`: read, then a merge patch of the scale
/// subresource.
pub(super) fn scale(s: &mut Session, d: &Discovery, cmd: &Command, out: &mut Outcome) {
    let Some(replicas) = cmd.replicas else {
        return out.error("error: required flag(s) \"replicas\" not set");
    };
    if replicas < 0 {
        return out.error("error: The --replicas=COUNT flag is required, and COUNT must be greater than or equal to 0");
    }
    let Some(targets) = targets(d, &cmd.args, out) else { return };
    let ns = namespace(cmd);
    for (r, name) in targets {
        let item = r.item(Some(&ns), &name);
        if read(s, &item, out).is_none() {
            continue;
        }
        let patch = json!({"spec": {"replicas": replicas}});
        let done = format!("{} scaled", name_ref(&r, &name));
        change(s, "PATCH", dry(cmd, format!("{item}/scale")), "application/merge-patch+json", &patch, done, out);
    }
}

const AUTOSCALE: Creates = Creates { manager: "kubectl-autoscale", validate: false, done: "autoscaled", wrap: None };

/// `autoscale TYPE NAME --max=N [--min=N] [--cpu-percent=N] [--name=N]`:
/// kubectl 1.33's checks, each workload read (it must have a `/scale`),
/// then an autoscaling/v2 HorizontalPodAutoscaler created over it (no
/// minimum or metric sent unless given: the server defaults them), and
/// when the server refuses that, the same as autoscaling/v1, as kubectl
/// falls back.
pub(super) fn autoscale(s: &mut Session, d: &Discovery, cmd: &Command, out: &mut Outcome) {
    let a = &cmd.autoscale;
    let Some(max) = a.max else { return out.error("error: required flag(s) \"max\" not set") };
    let (min, cpu) = (a.min.unwrap_or(-1), a.cpu_percent.unwrap_or(-1));
    if max < 1 {
        return out.error(format!("error: --max=MAXPODS is required and must be at least 1, max: {max}"));
    }
    if max < min {
        return out
            .error(format!("error: --max=MAXPODS must be larger or equal to --min=MINPODS, max: {max}, min: {min}"));
    }
    let Some(targets) = targets(d, &cmd.args, out) else { return };
    if targets.is_empty() {
        return out.error("error: no objects passed to autoscale");
    }
    let ns = namespace(cmd);
    for (r, name) in targets {
        if read(s, &r.item(Some(&ns), &name), out).is_none() {
            continue;
        }
        // The kinds with a `/scale` kubectl's scale-kind resolver finds.
        if !matches!(r.kind.as_str(), "Deployment" | "ReplicaSet" | "StatefulSet" | "ReplicationController") {
            let gvr = if r.group.is_empty() { format!("/{}", r.version) } else { r.group_version() };
            out.error(format!(
                "error: cannot autoscale a {}: could not find scale subresource for {gvr}, Resource={} in discovery information",
                r.kind, r.resource
            ));
            continue;
        }
        let hpa_name = cmd.service_name.clone().unwrap_or_else(|| name.clone());
        let reference = json!({"kind": r.kind, "name": name, "apiVersion": r.group_version()});
        let mut spec = json!({"scaleTargetRef": reference});
        if min > 0 {
            spec["minReplicas"] = json!(min);
        }
        spec["maxReplicas"] = json!(max);
        let mut v1 = spec.clone();
        if cpu >= 0 {
            spec["metrics"] = json!([{"type": "Resource",
                "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": cpu}}}]);
            v1["targetCPUUtilizationPercentage"] = json!(cpu);
        }
        let v2 = json!({"kind": "HorizontalPodAutoscaler", "apiVersion": "autoscaling/v2",
            "metadata": meta(&hpa_name, None), "spec": spec, "status": {"currentMetrics": null, "desiredReplicas": 0}});
        let hpas = match resource_for_doc(d, &v2) {
            Ok(r) => r.clone(),
            Err(e) => return out.error(e),
        };
        let target = dry(cmd, format!("{}?fieldManager={}", hpas.collection(Some(&ns)), AUTOSCALE.manager));
        let e = send(s, "POST", &target, Some("application/json"), Some(&v2), "application/json");
        if e.response.status == 201 {
            let line = format!("{} {}", name_ref(&hpas, &hpa_name), AUTOSCALE.done);
            print_written(&hpas, cmd, &body_json(&e.response), line, out);
            continue;
        }
        let v1 = json!({"kind": "HorizontalPodAutoscaler", "apiVersion": "autoscaling/v1",
            "metadata": meta(&hpa_name, None), "spec": v1, "status": {"currentReplicas": 0, "desiredReplicas": 0}});
        post(s, d, cmd, v1, &AUTOSCALE, out);
    }
}

/// `cordon`/`uncordon NODE…`: each node read, left alone when it already
/// is so (`node/n already cordoned`), else `spec.unschedulable` set (or
/// removed) by a strategic merge patch, as kubectl's drain helper does.
pub(super) fn cordon(s: &mut Session, cmd: &Command, out: &mut Outcome) {
    let on = cmd.verb == Verb::Cordon;
    let done = if on { "cordoned" } else { "uncordoned" };
    for name in &cmd.names {
        let path = format!("/api/v1/nodes/{name}");
        let Some(node) = read(s, &path, out) else { continue };
        if (node["spec"]["unschedulable"] == true) == on {
            out.line(format!("node/{name} already {done}"));
            continue;
        }
        let patch = json!({"spec": {"unschedulable": if on { json!(true) } else { Value::Null }}});
        let ct = "application/strategic-merge-patch+json";
        change(s, "PATCH", dry(cmd, path), ct, &patch, format!("node/{name} {done}"), out);
    }
}

/// Where a workload keeps its pod spec.
fn pod_spec_path(kind: &str) -> Option<&'static str> {
    match kind {
        "Pod" => Some("/spec"),
        "CronJob" => Some("/spec/jobTemplate/spec/template/spec"),
        "Deployment" | "ReplicaSet" | "StatefulSet" | "DaemonSet" | "Job" | "ReplicationController" => {
            Some("/spec/template/spec")
        }
        _ => None,
    }
}

/// A workload `set` changes, read as kubectl's builder reads it: its path,
/// where its pod spec is, and the object; kubectl's error (printed) when it
/// is not a workload with containers or cannot be read.
fn read_workload(
    s: &mut Session,
    r: &ApiResource,
    ns: &str,
    name: &str,
    out: &mut Outcome,
) -> Option<(String, &'static str, Value)> {
    let Some(path) = pod_spec_path(&r.kind) else {
        out.error(format!("error: {} is not a workload with containers", name_ref(r, name)));
        return None;
    };
    let item = r.item(Some(ns), name);
    let live = read(s, &item, out)?;
    Some((item, path, live))
}

/// `set image TYPE/NAME CONTAINER=IMAGE…`: read, then the strategic merge
/// patch kubectl computes (containers by name, with their order).
pub(super) fn set_image(s: &mut Session, d: &Discovery, cmd: &Command, out: &mut Outcome) {
    match cmd.args.first().map(String::as_str) {
        Some("image") => {}
        Some("resources") => return set_resources(s, d, cmd, out),
        Some("env") => return set_env(s, d, cmd, out),
        Some("serviceaccount" | "sa") => return set_service_account(s, d, cmd, out),
        Some("subject") => return set_subject(s, d, cmd, out),
        _ => {
            let sub = cmd.args.first().cloned().unwrap_or_default();
            return out.error(format!(
                "\"kubectl set {sub}\" is not simulated in this command bar; it knows set image, set resources, set env, set serviceaccount and set subject"
            ));
        }
    }
    let words = &cmd.args[1..];
    let split = words.iter().position(|w| w.contains('=')).unwrap_or(words.len());
    let (objects, pairs) = words.split_at(split);
    if pairs.is_empty() {
        return out.error("error: at least one image update is required");
    }
    let Some(targets) = targets(d, objects, out) else { return };
    let ns = namespace(cmd);
    for (r, name) in targets {
        let Some((item, path, live)) = read_workload(s, &r, &ns, &name, out) else { continue };
        let containers = container_names(live.pointer(path));
        let mut changed = Vec::new();
        for pair in pairs {
            let (container, image) = pair.split_once('=').unwrap_or((pair, ""));
            let hits: Vec<&String> = containers.iter().filter(|c| container == "*" || *c == container).collect();
            if hits.is_empty() {
                out.error(format!("error: unable to find container named \"{container}\""));
                return;
            }
            changed.extend(hits.into_iter().map(|c| json!({"image": image, "name": c})));
        }
        let patch = json!({"$setElementOrder/containers": containers.iter().map(|c| json!({"name": c})).collect::<Vec<_>>(), "containers": changed});
        let done = format!("{} image updated", name_ref(&r, &name));
        let refused = "error: failed to patch image update to pod template: ";
        patch_pod_spec(s, cmd, &item, path, patch, (done, refused), out);
    }
}

/// `set serviceaccount TYPE NAME|TYPE/NAME SERVICE_ACCOUNT`: the pod
/// template's `serviceAccountName`, as kubectl's strategic merge patch.
fn set_service_account(s: &mut Session, d: &Discovery, cmd: &Command, out: &mut Outcome) {
    let words = &cmd.args[1..];
    let Some((account, objects)) = words.split_last().filter(|(_, objects)| !objects.is_empty()) else {
        return out.error("error: You must provide one or more resources by argument or filename.\nExample resource specifications include:\n   '-f rsrc.yaml'\n   '--filename=rsrc.json'\n   '<resource> <name>'\n   '<resource>'");
    };
    let Some(targets) = targets(d, objects, out) else { return };
    let ns = namespace(cmd);
    for (r, name) in targets {
        let Some((item, path, _)) = read_workload(s, &r, &ns, &name, out) else { continue };
        let done = format!("{} serviceaccount updated", name_ref(&r, &name));
        let refused = "error: failed to patch ServiceAccountName ";
        patch_pod_spec(s, cmd, &item, path, json!({"serviceAccountName": account}), (done, refused), out);
    }
}

/// `set subject rolebinding|clusterrolebinding NAME --user --group
/// --serviceaccount=NS:NAME`: the subjects not there yet added (a
/// binding that has them all is left alone, and nothing is printed).
fn set_subject(s: &mut Session, d: &Discovery, cmd: &Command, out: &mut Outcome) {
    let f = &cmd.rbac;
    if f.users.is_empty() && f.groups.is_empty() && f.service_accounts.is_empty() {
        return out.error("error: you must specify at least one value of user, group or serviceaccount");
    }
    let mut wanted: Vec<Value> = Vec::new();
    let rbac = "rbac.authorization.k8s.io";
    wanted.extend(f.users.iter().map(|u| json!({"apiGroup": rbac, "kind": "User", "name": u})));
    wanted.extend(f.groups.iter().map(|g| json!({"apiGroup": rbac, "kind": "Group", "name": g})));
    for sa in &f.service_accounts {
        match sa.split_once(':') {
            Some((ns, name)) if !ns.is_empty() && !name.is_empty() && !name.contains(':') => {
                wanted.push(json!({"kind": "ServiceAccount", "name": name, "namespace": ns}))
            }
            _ => return out.error("error: serviceaccount must be <namespace>:<name>"),
        }
    }
    let Some(targets) = targets(d, &cmd.args[1..], out) else { return };
    let ns = namespace(cmd);
    for (r, name) in targets {
        if !matches!(r.kind.as_str(), "RoleBinding" | "ClusterRoleBinding") {
            out.error(format!(
                "error: {}/{name} setting subjects is only supported for RoleBinding/ClusterRoleBinding",
                r.resource
            ));
            continue;
        }
        let item = r.item(Some(&ns), &name);
        let Some(live) = read(s, &item, out) else { continue };
        let mut subjects = live["subjects"].as_array().cloned().unwrap_or_default();
        let before = subjects.len();
        for w in &wanted {
            if !subjects.contains(w) {
                subjects.push(w.clone());
            }
        }
        if subjects.len() == before {
            continue;
        }
        let target = dry(cmd, format!("{item}?fieldManager=kubectl-set"));
        let done = format!("{} subjects updated", name_ref(&r, &name));
        // (kubectl patches the object as a map: keys in order.)
        let patch = keys_sorted(&json!({"subjects": subjects}));
        change(s, "PATCH", target, "application/strategic-merge-patch+json", &patch, done, out);
    }
}

/// `--limits`/`--requests` as kubectl reads them: `NAME=AMOUNT` pairs,
/// each amount as the canonical quantity it serializes (`0.1` → `100m`),
/// by name.
fn resource_list(spec: Option<&str>) -> Result<Vec<(String, String)>, String> {
    let mut list = Vec::new();
    for part in spec.into_iter().flat_map(|s| s.split(',')).filter(|p| !p.is_empty()) {
        let Some((name, amount)) = part.split_once('=').filter(|(_, a)| !a.contains('=')) else {
            return Err(format!("error: Invalid argument syntax {part}, expected <resource>=<value>"));
        };
        let amount = kubesim::api::quantity::canonical(amount).map_err(|e| format!("error: {e}"))?;
        list.push((name.to_string(), amount.into_owned()));
    }
    list.order_by_key(|(k, _)| k.clone());
    Ok(list)
}

/// The strategic merge patch kubectl's two-way diff gives when `entry`
/// changes the chosen containers (`*`: all) of a pod spec, init
/// containers too: for each list with a changed container, the changed
/// ones' entries and `$setElementOrder/LIST` (every container by name),
/// keys in Go's map order (None when nothing changed); with how many
/// containers were chosen. `entry` gives a container's entry, None when
/// it is unchanged, or kubectl's error.
fn containers_patch(
    spec: &Value,
    selector: &str,
    mut entry: impl FnMut(&Value) -> Result<Option<Value>, String>,
) -> Result<(usize, Option<Value>), String> {
    let mut patch = Map::new();
    let mut chosen = 0;
    for list in ["containers", "initContainers"] {
        let all = spec[list].as_array().map(Vec::as_slice).unwrap_or_default();
        let mut changed = Vec::new();
        for c in all.iter().filter(|c| selector == "*" || c["name"] == selector) {
            chosen += 1;
            changed.extend(entry(c)?);
        }
        if !changed.is_empty() {
            let order: Vec<Value> = all.iter().map(|c| json!({"name": c["name"]})).collect();
            patch.insert(format!("$setElementOrder/{list}"), json!(order));
            patch.insert(list.into(), json!(changed));
        }
    }
    if patch.is_empty() {
        return Ok((chosen, None));
    }
    // Keys as Go writes a map: `$setElementOrder/…` first.
    let mut keys: Vec<String> = patch.keys().cloned().collect();
    keys.order();
    Ok((chosen, Some(Value::Object(keys.into_iter().filter_map(|k| patch.remove(&k).map(|v| (k, v))).collect()))))
}

/// Sends a `set` command's patch of the pod spec at `path` of `item` and
/// prints kubectl's line (`said.0`), or the refusal's message after
/// kubectl's words for it (`said.1`: `error: failed to patch … update to
/// pod template…`).
fn patch_pod_spec(
    s: &mut Session,
    cmd: &Command,
    item: &str,
    path: &str,
    mut patch: Value,
    said: (String, &str),
    out: &mut Outcome,
) {
    let (done, refused) = said;
    for segment in path.trim_start_matches('/').split('/').rev() {
        patch = json!({ segment: patch });
    }
    let target = dry(cmd, format!("{item}?fieldManager=kubectl-set"));
    let e = send(s, "PATCH", &target, Some("application/strategic-merge-patch+json"), Some(&patch), "application/json");
    if e.response.status == 200 {
        out.line(done);
    } else {
        let v = body_json(&e.response);
        let message = v.get("message").and_then(Value::as_str).unwrap_or("");
        out.error(format!("{refused}{message}"));
    }
}

/// `set resources TYPE NAME… [-c CONTAINER] --limits=… --requests=…`, as
/// kubectl 1.33: the object read, each chosen container's (and init
/// container's) requests and limits set, and the strategic merge patch
/// between the two sent (only what changed; nothing at all, and nothing
/// printed, when nothing did), with the field manager `kubectl-set`.
fn set_resources(s: &mut Session, d: &Discovery, cmd: &Command, out: &mut Outcome) {
    if cmd.limits.is_none() && cmd.requests.is_none() {
        return out
            .error("error: you must specify an update to requests or limits (in the form of --requests/--limits)");
    }
    let (limits, requests) = match (resource_list(cmd.limits.as_deref()), resource_list(cmd.requests.as_deref())) {
        (Ok(l), Ok(r)) => (l, r),
        (Err(e), _) | (_, Err(e)) => return out.error(e),
    };
    let Some(targets) = targets(d, &cmd.args[1..], out) else { return };
    let ns = namespace(cmd);
    let selector = cmd.container.as_deref().unwrap_or("*");
    for (r, name) in targets {
        let Some((item, path, live)) = read_workload(s, &r, &ns, &name, out) else { continue };
        let spec = live.pointer(path).cloned().unwrap_or_default();
        let changes = containers_patch(&spec, selector, |c| {
            let mut resources = Map::new();
            for (field, wanted) in [("limits", &limits), ("requests", &requests)] {
                let diff: Map<String, Value> = wanted
                    .iter()
                    .filter(|(k, v)| c["resources"][field][k.as_str()].as_str() != Some(v.as_str()))
                    .map(|(k, v)| (k.clone(), json!(v)))
                    .collect();
                if !diff.is_empty() {
                    resources.insert(field.into(), Value::Object(diff));
                }
            }
            Ok((!resources.is_empty()).then(|| json!({"name": c["name"], "resources": resources})))
        });
        match changes {
            Ok((0, _)) => out.error(format!("error: unable to find container named {selector}")),
            Ok((_, Some(patch))) => {
                let done = format!("{} resource requirements updated", name_ref(&r, &name));
                let refused = "error: failed to patch resources update to pod template ";
                patch_pod_spec(s, cmd, &item, path, patch, (done, refused), out);
            }
            Ok((_, None)) => {}
            Err(e) => out.error(e),
        }
    }
}

/// Whether `name` is an environment variable name as kubectl's
/// `IsEnvVarName` has it (`[-._a-zA-Z][-._a-zA-Z0-9]*`).
fn env_name_ok(name: &str) -> bool {
    let ok = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_');
    name.chars().next().is_some_and(|c| ok(c) && !c.is_ascii_digit()) && name.chars().all(ok)
}

/// An environment variable as Go writes `EnvVar` (an empty value left out).
fn env_var(name: &str, value: &str) -> Value {
    if value.is_empty() {
        json!({"name": name})
    } else {
        json!({"name": name, "value": value})
    }
}

/// `# KEY from …` for a variable taken from elsewhere, as `--list` prints it.
fn env_ref(from: &Value) -> String {
    let t = |p: &str| from.pointer(p).and_then(Value::as_str).unwrap_or("");
    if from.get("configMapKeyRef").is_some() {
        format!("configmap {}, key {}", t("/configMapKeyRef/name"), t("/configMapKeyRef/key"))
    } else if from.get("secretKeyRef").is_some() {
        format!("secret {}, key {}", t("/secretKeyRef/name"), t("/secretKeyRef/key"))
    } else if from.get("fieldRef").is_some() {
        format!("field path {}", t("/fieldRef/fieldPath"))
    } else if from.get("resourceFieldRef").is_some() {
        let container = t("/resourceFieldRef/containerName");
        let prefix = if container.is_empty() { String::new() } else { format!("{container}/") };
        format!("resource field {prefix}{}", t("/resourceFieldRef/resource"))
    } else {
        "invalid valueFrom".into()
    }
}

/// `set env TYPE NAME… KEY=VALUE… KEY-… [-c C] [--list] [--overwrite]`,
/// as kubectl 1.33: the object read; each chosen container's (and init
/// container's) variables updated in place, new ones appended, removed
/// ones dropped; `--list` prints them (nothing sent); otherwise the
/// strategic merge patch of what changed (the variables by name, with
/// their order), nothing when nothing did, manager `kubectl-set`.
fn set_env(s: &mut Session, d: &Discovery, cmd: &Command, out: &mut Outcome) {
    let words = &cmd.args[1..];
    // (kubectl's env arguments: `KEY=VALUE` and `KEY-`; the rest name objects.)
    let is_env = |w: &String| w.contains('=') || (w.ends_with('-') && !w.contains('/'));
    let (pairs, objects): (Vec<&String>, Vec<&String>) = words.iter().partition(|w| is_env(w));
    let mut set: Vec<Value> = Vec::new();
    let mut remove: Vec<String> = Vec::new();
    for p in pairs {
        let (name, value) = match p.split_once('=') {
            Some((n, v)) => (n, Some(v)),
            None => (p.trim_end_matches('-'), None),
        };
        if !env_name_ok(name) {
            return out.error(format!("error: {name:?} is not a valid key name: a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit (e.g. 'my.env-name',  or 'MY_ENV.NAME',  or 'MyEnvName1', regex used for validation is '[-._a-zA-Z][-._a-zA-Z0-9]*')"));
        }
        match value {
            Some(v) => set.push(env_var(name, v)),
            None => remove.push(name.to_string()),
        }
    }
    let objects: Vec<String> = objects.into_iter().cloned().collect();
    if objects.is_empty() {
        return out.error("error: one or more resources must be specified as <resource> <name> or <resource>/<name>");
    }
    if !cmd.env_keys.is_empty() && cmd.env_from.is_none() {
        return out.error("error: when specifying --keys, a configmap or secret must be provided with --from");
    }
    if let Some(from) = &cmd.env_from {
        let Some(more) = env_from(s, d, cmd, from, out) else { return };
        set.extend(more);
    }
    // (kubectl prefixes every variable it sets, those of KEY=VALUE too.)
    if let Some(prefix) = cmd.env_prefix.as_deref().filter(|p| !p.is_empty()) {
        for e in set.iter_mut() {
            e["name"] = json!(format!("{prefix}{}", e["name"].as_str().unwrap_or("")));
        }
    }
    let Some(targets) = targets(d, &objects, out) else { return };
    let ns = namespace(cmd);
    let selector = cmd.container.as_deref().unwrap_or("*");
    // (What `--list` prints, as each container is visited.)
    let mut listed: Vec<String> = Vec::new();
    for (r, name) in targets {
        let Some((item, path, live)) = read_workload(s, &r, &ns, &name, out) else { continue };
        let spec = live.pointer(path).cloned().unwrap_or_default();
        let changes = containers_patch(&spec, selector, |c| {
            let old = c["env"].as_array().map(Vec::as_slice).unwrap_or_default();
            let var = |name: &str| old.iter().find(|e| e["name"] == name);
            if !cmd.env_overwrite {
                let named = |e: &Value| e["name"].as_str().unwrap_or("").to_string();
                if let Some(n) = set.iter().map(named).find(|n| var(n).is_some()) {
                    let current = var(&n).and_then(|e| e["value"].as_str()).unwrap_or("");
                    return Err(format!(
                        "error: {}/{name} '{n}' already has a value ({current}), and --overwrite is false",
                        r.resource
                    ));
                }
            }
            // kubectl's updateEnv: in place, then the new ones.
            let mut new: Vec<Value> = Vec::new();
            for e in old {
                let n = e["name"].as_str().unwrap_or("");
                if remove.iter().any(|x| x == n) {
                    continue;
                }
                match set.iter().find(|x| x["name"] == n) {
                    Some(x) => new.push(x.clone()),
                    None => new.push(e.clone()),
                }
            }
            for x in &set {
                if !new.iter().any(|e| e["name"] == x["name"]) {
                    new.push(x.clone());
                }
            }
            if cmd.env_list {
                listed.push(format!("# {} {name}, container {}", r.kind, c["name"].as_str().unwrap_or("")));
                for e in &new {
                    let n = e["name"].as_str().unwrap_or("");
                    listed.push(match e.get("valueFrom") {
                        Some(from) => format!("# {n} from {}", env_ref(from)),
                        None => format!("{n}={}", e["value"].as_str().unwrap_or("")),
                    });
                }
                return Ok(None);
            }
            // The two-way strategic merge patch of the list.
            Ok(match (old.is_empty(), new.is_empty()) {
                (true, true) => None,
                (true, false) => Some(json!({"env": new, "name": c["name"]})),
                (false, true) => Some(json!({"env": null, "name": c["name"]})),
                (false, false) => {
                    let mut diff: Vec<Value> =
                        new.iter().filter(|e| var(e["name"].as_str().unwrap_or("")) != Some(*e)).cloned().collect();
                    diff.extend(
                        old.iter()
                            .filter(|e| !new.iter().any(|n| n["name"] == e["name"]))
                            .map(|e| json!({"$patch": "delete", "name": e["name"]})),
                    );
                    let order: Vec<Value> = new.iter().map(|e| json!({"name": e["name"]})).collect();
                    (!diff.is_empty()).then(|| json!({"$setElementOrder/env": order, "env": diff, "name": c["name"]}))
                }
            })
        });
        for line in listed.drain(..) {
            out.line(line);
        }
        match changes {
            Ok((0, _)) => {
                out.line(format!("Warning: {}/{name} does not have any containers matching {selector:?}", r.kind))
            }
            Ok((_, Some(patch))) => {
                let done = format!("{} env updated", name_ref(&r, &name));
                let refused = "error: failed to patch env update to pod template: ";
                patch_pod_spec(s, cmd, &item, path, patch, (done, refused), out);
            }
            Ok((_, None)) => {}
            Err(e) => return out.error(e),
        }
    }
}

/// The variables `set env --from=TYPE/NAME` takes from a ConfigMap or a
/// Secret (read once): one a key of its `data` (those `--keys` names, if
/// given), named as kubectl's `keyToEnvName` names it (upper case, any
/// character but letters, digits and `_` made `_`, with a warning when
/// that changed the key), its value a reference to the key. Choice: Go
/// walks the map in no set order; here the keys are sorted.
fn env_from(s: &mut Session, d: &Discovery, cmd: &Command, from: &str, out: &mut Outcome) -> Option<Vec<Value>> {
    let (r, name) = targets(d, &[from.to_string()], out)?.into_iter().next()?;
    let e = send(s, "GET", &r.item(Some(&namespace(cmd)), &name), None, None, "application/json");
    if e.response.status != 200 {
        out.error(server_error(&e));
        return None;
    }
    let obj = body_json(&e.response);
    let reference = match obj["kind"].as_str() {
        Some("ConfigMap") => "configMapKeyRef",
        Some("Secret") => "secretKeyRef",
        _ => {
            out.error("error: unsupported resource specified in --from");
            return None;
        }
    };
    let mut keys: Vec<&String> = obj["data"].as_object().map(|m| m.keys().collect()).unwrap_or_default();
    keys.order();
    let mut vars = Vec::new();
    for key in keys.into_iter().filter(|k| cmd.env_keys.is_empty() || cmd.env_keys.contains(k)) {
        let var: String = key
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() || c == '_' { c.to_ascii_uppercase() } else { '_' })
            .collect();
        if var != *key {
            out.line(format!("Warning: key {key} transferred to {var}"));
        }
        // (Keys in the order Go writes a map: the patch is one.)
        vars.push(json!({"name": var, "valueFrom": {reference: {"key": key, "name": name}}}));
    }
    Some(vars)
}

/// `debug POD --image=IMAGE [--target=C] [-c NAME] [--profile=P]`, as
/// kubectl adds an ephemeral container: the pod read, then a strategic
/// merge patch of its `ephemeralcontainers` subresource with the one new
/// container (what `CreateTwoWayMergePatch` gives). kubectl names it
/// `debugger-` and five random letters; ours come from the pod's uid and
/// how many it has, to stay deterministic. No attach: `-i`/`-t` are not
/// flags here.
pub(super) fn debug(s: &mut Session, cmd: &Command, out: &mut Outcome) {
    let [pod] = cmd.args.as_slice() else {
        return out.error("error: debugging here takes one pod: kubectl debug POD --image=IMAGE");
    };
    let name = pod.strip_prefix("pod/").or_else(|| pod.strip_prefix("pods/")).unwrap_or(pod);
    let Some(image) = cmd.image.as_deref() else {
        return out.error("error: --image is required for ephemeral containers");
    };
    let capabilities = match cmd.profile.as_deref() {
        None | Some("legacy") => {
            out.line("--profile=legacy is deprecated and will be removed in the future. It is recommended to explicitly specify a profile, for example \"--profile=general\".");
            None
        }
        Some("general") => Some(&["SYS_PTRACE"][..]),
        Some("netadmin") => Some(&["NET_ADMIN", "NET_RAW"][..]),
        Some(p) => {
            return out.error(format!(
                "\"kubectl debug --profile={p}\" is not simulated in this command bar; it knows legacy, general and netadmin"
            ))
        }
    };
    if let Some(t) = &cmd.target {
        out.line(format!("Targeting container \"{t}\". If you don't see processes from this container it may be because the container runtime doesn't support this feature."));
    }
    let item = format!("/api/v1/namespaces/{}/pods/{name}", namespace(cmd));
    let Some(live) = read(s, &item, out) else { return };
    let existing: Vec<&str> = live["spec"]["ephemeralContainers"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["name"].as_str())
        .collect();
    let container = match &cmd.container {
        Some(c) => c.clone(),
        None => {
            let taken = |n: &str| {
                existing.contains(&n)
                    || ["containers", "initContainers"].iter().any(|l| {
                        live["spec"][*l].as_array().into_iter().flatten().any(|c| c["name"].as_str() == Some(n))
                    })
            };
            let seed = live["metadata"]["uid"].as_str().unwrap_or(name);
            let generated = (existing.len()..)
                .map(|n| format!("debugger-{}", five_letters(&format!("{seed}/{n}"))))
                .find(|c| !taken(c))
                .unwrap_or_default();
            out.line(format!("Defaulting debug container name to {generated}."));
            generated
        }
    };
    let mut ec = json!({"image": image, "name": container, "resources": {}});
    if let Some(add) = capabilities {
        ec["securityContext"] = json!({"capabilities": {"add": add}});
    }
    if let Some(t) = &cmd.target {
        ec["targetContainerName"] = json!(t);
    }
    ec["terminationMessagePolicy"] = json!("File");
    let mut spec = json!({"ephemeralContainers": [ec]});
    if !existing.is_empty() {
        let order: Vec<Value> = existing.iter().chain([&container.as_str()]).map(|n| json!({"name": n})).collect();
        spec =
            json!({"$setElementOrder/ephemeralContainers": order, "ephemeralContainers": spec["ephemeralContainers"]});
    }
    let e = send(
        s,
        "PATCH",
        &format!("{item}/ephemeralcontainers"),
        Some("application/strategic-merge-patch+json"),
        Some(&json!({ "spec": spec })),
        "application/json",
    );
    if e.response.status != 200 {
        out.error(server_error(&e));
    }
}

/// Five letters of the alphabet kubectl's random names use, from `seed`.
fn five_letters(seed: &str) -> String {
    const ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in seed.bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    (0..5).map(|i| char::from(ALPHABET[((h >> (i * 12)) % ALPHABET.len() as u64) as usize])).collect()
}

/// `api-resources`: what discovery serves, as kubectl prints it.
/// `api-resources`: each resource discovery prefers, filtered by
/// `--api-group`, `--namespaced`, `--verbs` and `--categories` (every one
/// named), sorted by group (or `--sort-by` name or kind) then name, in
/// kubectl's columns (`-o wide` adds the verbs and categories; `-o name`
/// prints `RESOURCE[.GROUP]`).
pub(super) fn api_resources(d: &Discovery, cmd: &Command, out: &mut Outcome) {
    let f = &cmd.api;
    let has_all = |have: &[String], want: &[String]| want.iter().all(|w| have.contains(w));
    let mut resources: Vec<&ApiResource> = d.resources.iter().filter(|r| !r.resource.contains('/')).collect();
    // (The preferred version: the first discovery lists.)
    resources.order_by(|a, b| (a.group.as_str(), a.resource.as_str()).cmp(&(b.group.as_str(), b.resource.as_str())));
    resources.dedup_by(|a, b| a.group == b.group && a.resource == b.resource);
    resources.retain(|r| {
        !r.verbs.is_empty()
            && f.group.as_ref().is_none_or(|g| *g == r.group)
            && f.namespaced.is_none_or(|n| n == r.namespaced)
            && has_all(&r.verbs, &f.verbs)
            && has_all(&r.categories, &f.categories)
    });
    let key = |r: &ApiResource| match cmd.sort_by.as_deref() {
        Some("name") => r.resource.clone(),
        Some("kind") => r.kind.clone(),
        _ => r.group.clone(),
    };
    resources.order_by(|a, b| key(a).cmp(&key(b)).then_with(|| a.resource.cmp(&b.resource)));
    if cmd.output == Output::Name {
        for r in resources {
            match r.group.as_str() {
                "" => out.line(&r.resource),
                g => out.line(format!("{}.{g}", r.resource)),
            }
        }
        return;
    }
    let wide = cmd.output == Output::Wide;
    let mut rows = Vec::new();
    if !cmd.no_headers {
        let mut header = vec!["NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED", "KIND"];
        if wide {
            header.extend(["VERBS", "CATEGORIES"]);
        }
        rows.push(header.into_iter().map(String::from).collect::<Vec<_>>());
    }
    for r in resources {
        let mut row = vec![
            r.resource.clone(),
            r.short_names.join(","),
            r.group_version(),
            r.namespaced.to_string(),
            r.kind.clone(),
        ];
        if wide {
            row.extend([r.verbs.join(","), r.categories.join(",")]);
        }
        rows.push(row);
    }
    out.text.push_str(&columns(&rows));
}

/// `api-versions`: every group/version discovery lists, sorted as Go
/// sorts strings (the core `v1` last).
pub(super) fn api_versions(d: &Discovery, out: &mut Outcome) {
    let mut versions: Vec<String> = d.resources.iter().map(ApiResource::group_version).collect();
    versions.order();
    versions.dedup();
    for v in versions {
        out.line(v);
    }
}

/// The kubectl the page's command bar imitates (its User-Agent's), and the
/// kustomize that kubectl 1.33 bundles.
const CLIENT_VERSION: &str = "v1.33.0";
const KUSTOMIZE_VERSION: &str = "v5.6.0";

/// `version [--client]`: the client's version, then the server's from
/// `GET /version`.
///
/// `-o json|yaml` prints the three as kubectl's `version.Info` documents
/// (JSON indented by two spaces, as kubectl marshals it); the client's is
/// this page's: built from kubesim, for `js/wasm`.
pub(super) fn version(s: &mut Session, cmd: &Command, out: &mut Outcome) {
    if cmd.output == Output::Table {
        out.line(format!("Client Version: {CLIENT_VERSION}"));
        out.line(format!("Kustomize Version: {KUSTOMIZE_VERSION}"));
    }
    let mut doc = json!({
        "clientVersion": {
            "major": "1", "minor": "33", "gitVersion": CLIENT_VERSION, "gitCommit": "kubesim",
            "gitTreeState": "clean", "buildDate": "2025-04-23T00:00:00Z", "goVersion": "go1.24.2",
            "compiler": "gc", "platform": "js/wasm"
        },
        "kustomizeVersion": KUSTOMIZE_VERSION
    });
    if !cmd.client {
        let e = send(s, "GET", "/version", None, None, "application/json");
        if e.response.status != 200 {
            return out.error(server_error(&e));
        }
        doc["serverVersion"] = body_json(&e.response);
    }
    match cmd.output {
        Output::Json => out.line(serde_json::to_string_pretty(&doc).unwrap_or_default()),
        // (kubectl leaves a blank line after the YAML.)
        Output::Yaml => out.line(to_yaml(&doc)),
        _ => {
            if let Some(v) = doc["serverVersion"]["gitVersion"].as_str() {
                out.line(format!("Server Version: {v}"));
            }
        }
    }
}

/// `expose TYPE/NAME [--port] [--target-port] [--type] [--name]`: a
/// Service selecting what the workload's selector selects.
pub(super) fn expose(s: &mut Session, d: &Discovery, cmd: &Command, out: &mut Outcome) {
    let Some(targets) = targets(d, &cmd.args, out) else { return };
    let ns = namespace(cmd);
    for (r, name) in targets {
        let Some(live) = read(s, &r.item(Some(&ns), &name), out) else { continue };
        let (selector, spec_path) = match r.kind.as_str() {
            "Pod" => (live.pointer("/metadata/labels").cloned(), "/spec"),
            "Deployment" | "ReplicaSet" => (live.pointer("/spec/selector/matchLabels").cloned(), "/spec/template/spec"),
            "Service" => (live.pointer("/spec/selector").cloned(), ""),
            other => {
                out.error(format!("error: cannot expose a {other}"));
                continue;
            }
        };
        let Some(selector) = selector.filter(|s| s.as_object().is_some_and(|m| !m.is_empty())) else {
            out.error(format!("error: couldn't retrieve selectors via --selector flag or introspection: the {} has no labels to select", r.kind));
            continue;
        };
        let port = match cmd.port {
            Some(p) => p,
            None => {
                let found = live
                    .pointer(&format!("{spec_path}/containers"))
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .flat_map(|c| c["ports"].as_array().cloned().unwrap_or_default())
                    .find_map(|p| p["containerPort"].as_i64());
                match found {
                    Some(p) => p,
                    None => {
                        out.error("error: couldn't find port via --port flag or introspection");
                        continue;
                    }
                }
            }
        };
        let target = match &cmd.target_port {
            Some(t) => t.parse::<i64>().map(|n| json!(n)).unwrap_or_else(|_| json!(t)),
            None => json!(port),
        };
        let service_name = cmd.service_name.clone().unwrap_or_else(|| name.clone());
        let labels = live.pointer("/metadata/labels").cloned().filter(|l| l.as_object().is_some_and(|m| !m.is_empty()));
        let mut spec =
            json!({"ports": [{"protocol": "TCP", "port": port, "targetPort": target}], "selector": selector});
        if let Some(t) = &cmd.service_type {
            spec["type"] = json!(t);
        }
        let service = json!({"kind": "Service", "apiVersion": "v1", "metadata": meta(&service_name, labels), "spec": spec, "status": {"loadBalancer": {}}});
        post(s, d, cmd, service, &EXPOSE, out);
    }
}

#[cfg(test)]
mod tests {
    use super::container_name;

    #[test]
    fn container_names_derive_from_the_image_as_create_deployment_derives_them() {
        assert_eq!(container_name("nginx"), "nginx");
        assert_eq!(container_name("registry.k8s.io/pause:3.9"), "pause");
        assert_eq!(container_name("busybox@sha256:abc"), "busybox");
        // kubectl adds a random suffix after replacing `.`/`_`; the page's is fixed.
        assert_eq!(container_name("ghcr.io/me/my_app.v2:1"), "my-app-v2-x7k2q");
    }
}

#[cfg(test)]
mod autoscale_tests {
    use super::super::run;
    use super::super::tests::{requests_since, sent, session};

    #[test]
    fn autoscale_creates_a_v2_autoscaler_as_kubectl_1_33_does() {
        let mut s = session();
        let from = s.log.len();
        let made = run(&mut s, "autoscale deployment hello --min=2 --max=5 --cpu-percent=60", "");
        assert_eq!(made.text, "horizontalpodautoscaler.autoscaling/hello autoscaled\n", "{}", made.text);
        assert_eq!(
            requests_since(&s, from).last().map(String::as_str),
            Some("POST /apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers?fieldManager=kubectl-autoscale 201")
        );
        assert_eq!(
            sent(&s),
            r#"{"kind":"HorizontalPodAutoscaler","apiVersion":"autoscaling/v2","metadata":{"name":"hello","creationTimestamp":null},"spec":{"scaleTargetRef":{"kind":"Deployment","name":"hello","apiVersion":"apps/v1"},"minReplicas":2,"maxReplicas":5,"metrics":[{"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":60}}}]},"status":{"currentMetrics":null,"desiredReplicas":0}}"#
        );
        let listed = run(&mut s, "get hpa", "");
        assert!(listed.text.contains("hello   Deployment/hello   cpu: <unknown>/60%   2         5"), "{}", listed.text);
        // No minimum or target given: the server's defaults.
        let made = run(&mut s, "autoscale deploy/hello --max=3 --name=other", "");
        assert_eq!(made.text, "horizontalpodautoscaler.autoscaling/other autoscaled\n", "{}", made.text);
        assert!(run(&mut s, "get hpa other", "").text.contains("cpu: <unknown>/80%   1         3"));
        // A refused v2 object is tried again as v1, whose refusal is shown.
        let from = s.log.len();
        let r = run(&mut s, "autoscale deployment hello --max=3 --cpu-percent=0 --name=zero", "");
        assert!(r.failed);
        assert_eq!(
            r.text.trim_end(),
            "The HorizontalPodAutoscaler \"zero\" is invalid: spec.metrics[0].resource.target.averageUtilization: Invalid value: 0: must be greater than 0"
        );
        let posts: Vec<String> = requests_since(&s, from).into_iter().filter(|r| r.starts_with("POST")).collect();
        assert_eq!(
            posts,
            [
                "POST /apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers?fieldManager=kubectl-autoscale 422",
                "POST /apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers?fieldManager=kubectl-autoscale 422"
            ]
        );
    }

    #[test]
    fn autoscale_refuses_as_kubectl_does() {
        let mut s = session();
        for (line, want) in [
            ("autoscale deployment hello", "error: required flag(s) \"max\" not set"),
            ("autoscale deployment hello --max=0", "error: --max=MAXPODS is required and must be at least 1, max: 0"),
            (
                "autoscale deployment hello --max=2 --min=3",
                "error: --max=MAXPODS must be larger or equal to --min=MINPODS, max: 2, min: 3",
            ),
            (
                "autoscale configmap kube-root-ca.crt --max=2",
                "error: cannot autoscale a ConfigMap: could not find scale subresource for /v1, Resource=configmaps in discovery information",
            ),
        ] {
            let r = run(&mut s, line, "");
            assert!(r.failed, "{line}");
            assert_eq!(r.text.trim_end(), want, "{line}");
        }
    }
}
