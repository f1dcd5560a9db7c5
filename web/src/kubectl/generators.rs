//! The generators whose refusals kubectl wraps in its own words (`failed
//! to create poddisruptionbudgets: …`, `failed to create cronjob: …`):
//! `create poddisruptionbudget|pdb NAME --selector=… --min-available=N|N%`
//! (or `--max-unavailable`; the selector parsed as `ParseToLabelSelector`
//! parses it: equalities as `matchLabels`, the rest as `matchExpressions`)
//! `create cronjob NAME --image=… --schedule=… [--restart] [-- CMD]`,
//! `create service clusterip|nodeport|loadbalancer|externalname NAME`
//! (`--tcp`, `--clusterip`, `--node-port`, `--external-name`) and
//! `create priorityclass NAME --value …`, each built and checked as
//! kubectl 1.33 builds and checks it.

use kubesim::api::meta::NameRule;
use kubesim::selector::{LabelOp, LabelSelector};
use kubesim::sort::Order;

use super::imperative::{post, Creates};
use super::*;

/// Builds a generator's object from the command and the name given.
type Build = fn(&Command, &str) -> Result<Value, String>;

/// `create pdb|cronjob …`; false when the generator is another one.
pub(super) fn create(s: &mut Session, d: &Discovery, cmd: &Command, out: &mut Outcome) -> bool {
    let Some((what, mut names)) = cmd.args.split_first() else { return false };
    // (kubectl's wrapping names the one plural, the other singular.)
    let (long, wrapped, build): (&str, &'static str, Build) = match what.as_str() {
        "poddisruptionbudget" | "pdb" => ("poddisruptionbudget", "poddisruptionbudgets", budget),
        "cronjob" | "cj" => ("cronjob", "cronjob", cron_job),
        "priorityclass" | "pc" => ("priorityclass", "priorityclass", priority_class),
        "ingress" | "ing" => ("ingress", "ingress", ingress),
        "service" | "svc" => {
            let Some((kind, rest)) = names.split_first() else {
                out.error("error: must specify clusterip, externalname, loadbalancer or nodeport");
                return true;
            };
            names = rest;
            match kind.as_str() {
                "clusterip" => ("service clusterip", "ClusterIP service", |c, n| service(c, n, "ClusterIP")),
                "nodeport" => ("service nodeport", "NodePort service", |c, n| service(c, n, "NodePort")),
                "loadbalancer" => {
                    ("service loadbalancer", "LoadBalancer service", |c, n| service(c, n, "LoadBalancer"))
                }
                "externalname" => {
                    ("service externalname", "ExternalName service", |c, n| service(c, n, "ExternalName"))
                }
                _ => {
                    out.error(format!(
                        "error: unknown command \"{}\"\nSee 'kubectl create service -h' for help and examples",
                        cmd.args[1..].join(" ")
                    ));
                    return true;
                }
            }
        }
        _ => return false,
    };
    // (A required flag is missing before the name is counted.)
    if long == "service externalname" && cmd.external_name.is_none() {
        out.error("error: required flag(s) \"external-name\" not set");
        return true;
    }
    let built = match names {
        [name] => build(cmd, name),
        more => Err(super::imperative::one_name(long, more.len())),
    };
    match built {
        Ok(object) => post(s, d, cmd, object, &Creates::create_wrapped(wrapped), out),
        Err(e) => out.error(e),
    }
    true
}

/// The CronJob: one container named as the CronJob, the schedule as
/// given, `--restart` (OnFailure unless said) as the pod's policy.
fn cron_job(cmd: &Command, name: &str) -> Result<Value, String> {
    let missing: Vec<&str> = [("image", cmd.image.is_none()), ("schedule", cmd.schedule.is_none())]
        .into_iter()
        .filter(|(_, m)| *m)
        .map(|(f, _)| f)
        .collect();
    if !missing.is_empty() {
        let quoted: Vec<String> = missing.iter().map(|f| format!("\"{f}\"")).collect();
        return Err(format!("error: required flag(s) {} not set", quoted.join(", ")));
    }
    let mut container = json!({"name": name, "image": cmd.image});
    if !cmd.command.is_empty() {
        container["command"] = json!(cmd.command);
    }
    container["resources"] = json!({});
    let restart = cmd.restart.clone().unwrap_or_else(|| "OnFailure".into());
    Ok(json!({
        "kind": "CronJob", "apiVersion": "batch/v1",
        "metadata": {"name": name, "creationTimestamp": null},
        "spec": {
            "schedule": cmd.schedule,
            "jobTemplate": {
                "metadata": {"name": name, "creationTimestamp": null},
                "spec": {"template": {"metadata": {"creationTimestamp": null},
                    "spec": {"containers": [container], "restartPolicy": restart}}}
            }
        },
        "status": {}
    }))
}

/// The budget, or kubectl's reason for not sending it.
fn budget(cmd: &Command, name: &str) -> Result<Value, String> {
    let selector = cmd.selector.as_deref().unwrap_or("");
    let (min, max) = (cmd.pdb.min_available.as_deref(), cmd.pdb.max_unavailable.as_deref());
    if selector.is_empty() {
        return Err("error: a selector must be specified".into());
    }
    let (min, max) = (min.filter(|v| !v.is_empty()), max.filter(|v| !v.is_empty()));
    let (field, amount) = match (min, max) {
        (None, None) => return Err("error: one of min-available or max-unavailable must be specified".into()),
        (Some(_), Some(_)) => return Err("error: min-available and max-unavailable cannot be both specified".into()),
        (Some(v), None) => ("minAvailable", v),
        (None, Some(v)) => ("maxUnavailable", v),
    };
    let digits = amount.strip_suffix('%').unwrap_or(amount);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        let flag = if field == "minAvailable" { "min-available" } else { "max-unavailable" };
        return Err(format!("error: invalid format specified for {flag}"));
    }
    // As intstr.Parse: a number when it reads as one, else the text.
    let amount = amount.parse::<i32>().map_or_else(|_| json!(amount), |n| json!(n));
    let parsed = LabelSelector::parse(selector)
        .map_err(|e| format!("error: couldn't parse the selector string \"{selector}\": {e}"))?;
    let mut requirements = parsed.requirements;
    requirements.order_by(|a, b| a.key.cmp(&b.key));
    let mut labels = Map::new();
    let mut expressions = Vec::new();
    for r in requirements {
        let (op, values): (&str, Vec<String>) = match r.op {
            LabelOp::Equals(v) => {
                labels.insert(r.key, json!(v));
                continue;
            }
            LabelOp::In(v) => ("In", v),
            LabelOp::NotIn(v) => ("NotIn", v),
            LabelOp::Exists => ("Exists", Vec::new()),
            LabelOp::DoesNotExist => ("DoesNotExist", Vec::new()),
            LabelOp::NotEquals(_) => return Err("error: \"!=\" is not a valid label selector operator".into()),
            LabelOp::GreaterThan(_) => return Err("error: \"gt\" isn't supported in label selectors".into()),
            LabelOp::LessThan(_) => return Err("error: \"lt\" isn't supported in label selectors".into()),
        };
        let mut values = values;
        values.order();
        values.dedup();
        let mut e = json!({"key": r.key, "operator": op});
        if !values.is_empty() {
            e["values"] = json!(values);
        }
        expressions.push(e);
    }
    let mut sel = Map::new();
    if !labels.is_empty() {
        sel.insert("matchLabels".into(), Value::Object(labels));
    }
    if !expressions.is_empty() {
        sel.insert("matchExpressions".into(), json!(expressions));
    }
    // Go's field order: minAvailable, selector, maxUnavailable.
    let spec = if field == "minAvailable" {
        json!({"minAvailable": amount, "selector": sel})
    } else {
        json!({"selector": sel, "maxUnavailable": amount})
    };
    Ok(json!({
        "kind": "PodDisruptionBudget", "apiVersion": "policy/v1",
        "metadata": {"name": name, "creationTimestamp": null},
        "spec": spec,
        "status": {"disruptionsAllowed": 0, "currentHealthy": 0, "desiredHealthy": 0, "expectedPods": 0}
    }))
}

/// A Service of `kind`: selector and label `app: NAME`, a port for each
/// `--tcp` (`PORT[:TARGET]`, named as given with `-` for `:`), checked in
/// kubectl's order: ports unless headless or ExternalName, then the
/// external name, then each port as it is parsed.
fn service(cmd: &Command, name: &str, kind: &str) -> Result<Value, String> {
    let headless = cmd.cluster_ip.as_deref() == Some("None");
    if !headless && cmd.tcp.is_empty() && kind != "ExternalName" {
        return Err("error: at least one tcp port specifier must be provided".into());
    }
    let external = cmd.external_name.clone().unwrap_or_default();
    if kind == "ExternalName" && !kubesim::api::meta::validate_name(NameRule::Dns1123Subdomain, &external).is_empty() {
        return Err(format!("error: invalid service external name {external}"));
    }
    let mut ports = Vec::new();
    for spec in &cmd.tcp {
        let (port, target) = service_ports(spec).map_err(|e| format!("error: {e}"))?;
        let mut p = json!({"name": spec.replace(':', "-"), "protocol": "TCP", "port": port, "targetPort": target});
        if let Some(n) = cmd.node_port.filter(|n| *n != 0) {
            p["nodePort"] = json!(n);
        }
        ports.push(p);
    }
    let mut spec = Map::new();
    if !ports.is_empty() {
        spec.insert("ports".into(), json!(ports));
    }
    spec.insert("selector".into(), json!({"app": name}));
    if let Some(ip) = cmd.cluster_ip.as_deref().filter(|ip| !ip.is_empty()) {
        spec.insert("clusterIP".into(), json!(ip));
    }
    spec.insert("type".into(), json!(kind));
    if !external.is_empty() {
        spec.insert("externalName".into(), json!(external));
    }
    Ok(json!({
        "kind": "Service", "apiVersion": "v1",
        "metadata": {"name": name, "creationTimestamp": null, "labels": {"app": name}},
        "spec": spec,
        "status": {"loadBalancer": {}}
    }))
}

/// `PORT[:TARGET]` as kubectl's `parsePorts` reads it: the port as Go's
/// `ParseUint(…, 10, 16)`, the target a number in range or a port name.
fn service_ports(spec: &str) -> Result<(u16, Value), String> {
    let mut parts = spec.split(':');
    let port_text = parts.next().unwrap_or("");
    let port = match port_text.parse::<u64>() {
        _ if port_text.is_empty() || !port_text.bytes().all(|b| b.is_ascii_digit()) => {
            return Err(format!("strconv.ParseUint: parsing \"{port_text}\": invalid syntax"))
        }
        Ok(p) if p <= u64::from(u16::MAX) => p as u16,
        _ => return Err(format!("strconv.ParseUint: parsing \"{port_text}\": value out of range")),
    };
    let Some(target) = parts.next() else { return Ok((port, json!(port))) };
    match target.parse::<i64>() {
        Ok(n) if (1..=65535).contains(&n) => Ok((port, json!(n))),
        Ok(_) => Err("must be between 1 and 65535, inclusive".into()),
        Err(_) => match kubesim::server::port_name_messages(target) {
            errs if errs.is_empty() => Ok((port, json!(target))),
            errs => Err(errs.join(",")),
        },
    }
}

/// The Ingress of `--rule host/path=service:port[,tls[=secret]]` (a path
/// ending in `*` a Prefix, else Exact; rules of one host joined; a TLS
/// entry per secret, each host once), `--class`, `--default-backend` and
/// `--annotation`s, checked in kubectl's order.
fn ingress(cmd: &Command, name: &str) -> Result<Value, String> {
    let flags = &cmd.ingress;
    let backend_flag = flags.default_backend.as_deref().unwrap_or("");
    if backend_flag.is_empty() && flags.rules.is_empty() {
        return Err("error: not enough information provided: every ingress has to either specify a default-backend (which catches all traffic) or a list of rules (which catch specific paths)".into());
    }
    if let Some(bad) = flags.rules.iter().find(|r| !ingress_rule_matches(r)) {
        return Err(format!(
            "error: rule {bad} is invalid and should be in format host/path=svcname:svcport[,tls[=secret]]"
        ));
    }
    if let Some(bad) = flags.annotations.iter().find(|a| !a.contains('=')) {
        return Err(format!("error: annotation {bad} is invalid and should be in format key=[value]"));
    }
    if !backend_flag.is_empty() && backend_flag.split(':').count() != 2 {
        return Err("error: default-backend should be in format servicename:serviceport".into());
    }
    // `svc:port`, the port a number when it reads as one.
    let backend = |svc: &str| {
        let mut parts = svc.split(':');
        let (name, port) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
        let port = match port.parse::<i32>() {
            Ok(n) => json!({"number": n}),
            Err(_) => json!({"name": port}),
        };
        json!({"service": {"name": name, "port": port}})
    };
    let mut tls: Vec<Value> = Vec::new();
    let mut tls_hosts: Vec<&str> = Vec::new();
    let mut rules: Vec<Value> = Vec::new();
    for rule in &flags.rules {
        // (TLS only when there is exactly one comma, as kubectl reads it.)
        let parts: Vec<&str> = rule.split(',').collect();
        let (route, tls_part) = (parts[0], parts.get(1).filter(|_| parts.len() == 2));
        let (host, rest) = route.split_once('/').unwrap_or((route, ""));
        if let Some(t) = tls_part.filter(|_| !tls_hosts.contains(&host)) {
            tls_hosts.push(host);
            let secret = t.split('=').nth(1).unwrap_or("");
            // (An entry's hosts, then its secret, in Go's field order.)
            let entry = |hosts: Vec<Value>| {
                let mut e = Map::new();
                if !hosts.is_empty() {
                    e.insert("hosts".into(), Value::Array(hosts));
                }
                if !secret.is_empty() {
                    e.insert("secretName".into(), json!(secret));
                }
                Value::Object(e)
            };
            match tls.iter_mut().find(|e| e.get("secretName").and_then(Value::as_str).unwrap_or("") == secret) {
                Some(e) => {
                    let mut hosts = e.get("hosts").and_then(Value::as_array).cloned().unwrap_or_default();
                    hosts.push(json!(host));
                    *e = entry(hosts);
                }
                None if !host.is_empty() || !secret.is_empty() => {
                    tls.push(entry(if host.is_empty() { Vec::new() } else { vec![json!(host)] }))
                }
                None => {}
            }
        }
        let mut pieces = rest.split('=');
        let (path, svc) = (format!("/{}", pieces.next().unwrap_or("")), pieces.next().unwrap_or(""));
        let (path, kind) = match path.strip_suffix('*') {
            Some(prefix) => (prefix.to_string(), "Prefix"),
            None => (path, "Exact"),
        };
        let entry = json!({"path": path, "pathType": kind, "backend": backend(svc)});
        match rules.iter_mut().find(|r| r["host"].as_str().unwrap_or("") == host) {
            Some(r) => r["http"]["paths"].as_array_mut().into_iter().for_each(|p| p.push(entry.clone())),
            None => {
                let mut r = Map::new();
                if !host.is_empty() {
                    r.insert("host".into(), json!(host));
                }
                r.insert("http".into(), json!({"paths": [entry]}));
                rules.push(Value::Object(r));
            }
        }
    }
    let mut metadata = json!({"name": name, "creationTimestamp": null});
    if !flags.annotations.is_empty() {
        let pairs = flags.annotations.iter().filter_map(|a| a.split_once('='));
        let annotations: std::collections::BTreeMap<&str, &str> = pairs.collect();
        metadata["annotations"] = json!(annotations);
    }
    let mut spec = Map::new();
    if let Some(class) = flags.class.as_deref().filter(|c| !c.is_empty()) {
        spec.insert("ingressClassName".into(), json!(class));
    }
    if !backend_flag.is_empty() {
        spec.insert("defaultBackend".into(), backend(backend_flag));
    }
    if !tls.is_empty() {
        spec.insert("tls".into(), json!(tls));
    }
    if !rules.is_empty() {
        spec.insert("rules".into(), json!(rules));
    }
    Ok(json!({
        "kind": "Ingress", "apiVersion": "networking.k8s.io/v1", "metadata": metadata,
        "spec": spec, "status": {"loadBalancer": {}}
    }))
}

/// kubectl 1.33's rule pattern, `^[\w*.-]*/[^,=\n]*=[\w-]+:[\w-]+` (`\w`
/// as Go's: ASCII letters, digits, `_`), unanchored at its end as in that
/// release: what follows the port is not looked at (`,tl` still asks for
/// TLS).
fn ingress_rule_matches(rule: &str) -> bool {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    let Some(slash) = rule.find('/') else { return false };
    let (host, rest) = rule.split_at(slash);
    if !host.chars().all(|c| word(c) || c == '*' || c == '.') {
        return false;
    }
    let Some(eq) = rest.find(['=', ',', '\n']).filter(|i| rest[*i..].starts_with('=')) else { return false };
    let Some((svc, port)) = rest[eq + 1..].split_once(':') else { return false };
    !svc.is_empty() && svc.chars().all(word) && port.starts_with(word)
}

/// The PriorityClass: its value (0 unless given), `globalDefault` when
/// asked, the description, and the preemption policy
/// (PreemptLowerPriority unless given), in Go's field order.
fn priority_class(cmd: &Command, name: &str) -> Result<Value, String> {
    let flags = &cmd.priority;
    let mut o = json!({
        "kind": "PriorityClass", "apiVersion": "scheduling.k8s.io/v1",
        "metadata": {"name": name, "creationTimestamp": null},
        "value": flags.value.unwrap_or(0)
    });
    if flags.global_default {
        o["globalDefault"] = json!(true);
    }
    if let Some(d) = flags.description.as_deref().filter(|d| !d.is_empty()) {
        o["description"] = json!(d);
    }
    o["preemptionPolicy"] = json!(flags.preemption_policy.as_deref().unwrap_or("PreemptLowerPriority"));
    Ok(o)
}

#[cfg(test)]
mod tests {
    use super::super::tests::{last_body, requests_since, session};
    use super::*;

    #[test]
    fn budgets_are_built_and_checked_as_kubectl_builds_and_checks_them() {
        let mut s = session();
        let from = s.log.len();
        let made = run(&mut s, "create pdb web --selector='y,tier in (b,a),app=web,!x' --min-available=50%", "");
        assert_eq!(made.text, "poddisruptionbudget.policy/web created\n");
        assert_eq!(
            requests_since(&s, from),
            vec!["POST /apis/policy/v1/namespaces/default/poddisruptionbudgets?fieldManager=kubectl-create&fieldValidation=Strict 201"]
        );
        let sent = last_body(&s);
        assert_eq!(
            sent["spec"],
            json!({"minAvailable": "50%", "selector": {
            "matchLabels": {"app": "web"},
            "matchExpressions": [
                {"key": "tier", "operator": "In", "values": ["a", "b"]},
                {"key": "x", "operator": "DoesNotExist"},
                {"key": "y", "operator": "Exists"}
            ]}})
        );
        run(&mut s, "create poddisruptionbudget zero --selector=a=b --max-unavailable=0", "");
        let sent = last_body(&s);
        assert_eq!(sent["spec"], json!({"selector": {"matchLabels": {"a": "b"}}, "maxUnavailable": 0}));

        let from = s.log.len();
        for (line, error) in [
            ("create pdb p --selector=app=web", "error: one of min-available or max-unavailable must be specified"),
            ("create pdb p --min-available=1", "error: a selector must be specified"),
            ("create pdb p --selector=a=b --min-available=1 --max-unavailable=1", "error: min-available and max-unavailable cannot be both specified"),
            ("create pdb p --selector=a=b --min-available=1x", "error: invalid format specified for min-available"),
            ("create pdb p --selector=a=b --max-unavailable=-1", "error: invalid format specified for max-unavailable"),
            ("create pdb p --selector=a!=b --min-available=1", "error: \"!=\" is not a valid label selector operator"),
            ("create pdb p --selector=a>1 --min-available=1", "error: \"gt\" isn't supported in label selectors"),
            ("create pdb --selector=a=b --min-available=1", "error: exactly one NAME is required, got 0\nSee 'kubectl create poddisruptionbudget -h' for help and examples"),
        ] {
            let o = run(&mut s, line, "");
            assert!(o.failed, "{line}");
            assert_eq!(o.text, format!("{error}\n"), "{line}");
        }
        assert!(requests_since(&s, from).is_empty(), "nothing is sent for a refused budget");
        let again = run(&mut s, "create pdb web --selector=a=b --max-unavailable=2", "");
        assert_eq!(
            again.text,
            "error: failed to create poddisruptionbudgets: poddisruptionbudgets.policy \"web\" already exists\n"
        );
        let unparsed = run(&mut s, "create pdb p --selector==b --min-available=1", "");
        assert!(unparsed.text.starts_with("error: couldn't parse the selector string \"=b\": "), "{}", unparsed.text);
    }

    #[test]
    fn cron_jobs_are_built_as_kubectl_builds_them_and_refusals_wrapped() {
        let mut s = session();
        let from = s.log.len();
        let made = run(&mut s, "create cronjob hello --image=busybox --schedule='*/1 * * * *' -- echo hi", "");
        assert_eq!(made.text, "cronjob.batch/hello created\n");
        assert_eq!(
            requests_since(&s, from),
            vec!["POST /apis/batch/v1/namespaces/default/cronjobs?fieldManager=kubectl-create&fieldValidation=Strict 201"]
        );
        let sent = last_body(&s);
        assert_eq!(
            sent,
            json!({"kind": "CronJob", "apiVersion": "batch/v1", "metadata": {"name": "hello", "creationTimestamp": null},
                "spec": {"schedule": "*/1 * * * *", "jobTemplate": {"metadata": {"name": "hello", "creationTimestamp": null},
                    "spec": {"template": {"metadata": {"creationTimestamp": null}, "spec": {
                        "containers": [{"name": "hello", "image": "busybox", "command": ["echo", "hi"], "resources": {}}],
                        "restartPolicy": "OnFailure"}}}}},
                "status": {}})
        );
        for (line, error) in [
            ("create cronjob c --image=busybox", "error: required flag(s) \"schedule\" not set"),
            ("create cj c --schedule='* * * * *'", "error: required flag(s) \"image\" not set"),
            ("create cronjob c", "error: required flag(s) \"image\", \"schedule\" not set"),
            (
                "create cronjob c --image=b --schedule='* * * * *' --restart=Always",
                "error: failed to create cronjob: CronJob.batch \"c\" is invalid: spec.jobTemplate.spec.template.spec.restartPolicy: Required value: valid values: \"OnFailure\", \"Never\"",
            ),
            ("create cronjob c --image=b --schedule='* * * * *' --replicas=2", "error: unknown flag: --replicas\nSee 'kubectl create cronjob --help' for usage."),
        ] {
            let o = run(&mut s, line, "");
            assert!(o.failed, "{line}");
            assert_eq!(o.text, format!("{error}\n"), "{line}");
        }
    }

    /// `create job NAME --from=cronjob/NAME`, as kubectl 1.33 sends it
    /// (checked against it: the protobuf body it posts decodes to this).
    #[test]
    fn a_job_is_made_from_a_cron_job_as_kubectl_makes_it() {
        let mut s = session();
        run(&mut s, "create cronjob hello --image=busybox --schedule='*/1 * * * *' -- echo hi", "");
        let patch =
            r#"{"spec":{"jobTemplate":{"metadata":{"labels":{"b":"2","a":"1"},"annotations":{"z":"1","b":"2"}}}}}"#;
        assert!(!run(&mut s, &format!("patch cronjob hello --type=merge -p '{patch}'"), "").failed);
        let cron = super::super::tests::live(&mut s, "/apis/batch/v1/namespaces/default/cronjobs/hello");
        let from = s.log.len();
        let made = run(&mut s, "create job manual -n default --from=cronjob/hello", "");
        assert_eq!(made.text, "job.batch/manual created\n");
        assert_eq!(
            requests_since(&s, from),
            vec![
                "GET /apis/batch/v1/namespaces/default/cronjobs/hello 200",
                "POST /apis/batch/v1/namespaces/default/jobs?fieldManager=kubectl-create&fieldValidation=Strict 201"
            ]
        );
        let sent = last_body(&s);
        let metadata = json!({"name": "manual", "namespace": "default", "creationTimestamp": null,
            "labels": {"a": "1", "b": "2"},
            "annotations": {"b": "2", "cronjob.kubernetes.io/instantiate": "manual", "z": "1"},
            "ownerReferences": [{"apiVersion": "batch/v1", "kind": "CronJob", "name": "hello",
                "uid": cron["metadata"]["uid"], "controller": true}]});
        assert_eq!(sent["metadata"], metadata);
        let keys = |v: &Value| v.as_object().map(|m| m.keys().cloned().collect::<Vec<_>>()).unwrap_or_default();
        assert_eq!(keys(&sent["metadata"]), keys(&metadata), "in Go's field order");
        assert_eq!(sent["spec"], cron["spec"]["jobTemplate"]["spec"]);
        // The CronJob controller tells of a Job it did not make.
        let events =
            run(&mut s, "get events --field-selector reason=UnexpectedJob -o jsonpath={.items[*].message}", "");
        assert_eq!(events.text, "Saw a job that the controller did not create or forgot: manual");

        let from = s.log.len();
        for (line, error) in [
            ("create job x --image=a --from=cronjob/hello", "error: either --image or --from must be specified"),
            ("create job x", "error: either --image or --from must be specified"),
            ("create job x --from=cronjob/hello -- echo", "error: cannot specify --from and command"),
            ("create job --from=cronjob/hello", "error: exactly one NAME is required, got 0\nSee 'kubectl create job -h' for help and examples"),
            ("create job x y --image=a", "error: exactly one NAME is required, got 2\nSee 'kubectl create job -h' for help and examples"),
            ("create job x --from=cronjob", "error: resource(s) were provided, but no name was specified"),
            ("create deployment d --image=x --from=cronjob/hello", "error: unknown flag: --from\nSee 'kubectl create deployment --help' for usage."),
            ("create ns", "error: exactly one NAME is required, got 0\nSee 'kubectl create namespace -h' for help and examples"),
            ("create svc clusterip", "error: exactly one NAME is required, got 0\nSee 'kubectl create service clusterip -h' for help and examples"),
            ("create secret generic", "error: exactly one NAME is required, got 0\nSee 'kubectl create secret generic -h' for help and examples"),
        ] {
            let o = run(&mut s, line, "");
            assert!(o.failed, "{line}");
            assert_eq!(o.text, format!("{error}\n"), "{line}");
        }
        assert!(requests_since(&s, from).is_empty(), "refused before any request");
        for (line, error) in [
            ("create job x --from=cronjob/nope", "Error from server (NotFound): cronjobs.batch \"nope\" not found"),
            ("create job x --from=configmap/kube-root-ca.crt", "error: unknown object type *v1.ConfigMap"),
            ("create job x --from=deploy/coredns -n kube-system", "error: unknown object type *v1.Deployment"),
            (
                "create job manual --from=cronjob/hello",
                "error: failed to create job: jobs.batch \"manual\" already exists",
            ),
            ("create job manual --image=busybox", "error: failed to create job: jobs.batch \"manual\" already exists"),
        ] {
            let o = run(&mut s, line, "");
            assert!(o.failed, "{line}");
            assert_eq!(o.text, format!("{error}\n"), "{line}");
        }
    }

    /// Bodies, messages and refusals as kubectl 1.33 sends and prints them.
    #[test]
    fn services_of_every_type_are_built_and_checked_as_kubectl_does() {
        use super::super::tests::sent;
        let mut s = session();
        let from = s.log.len();
        assert_eq!(run(&mut s, "create service loadbalancer lb --tcp=80:8080", "").text, "service/lb created\n");
        assert_eq!(
            sent(&s),
            r#"{"kind":"Service","apiVersion":"v1","metadata":{"name":"lb","creationTimestamp":null,"labels":{"app":"lb"}},"spec":{"ports":[{"name":"80-8080","protocol":"TCP","port":80,"targetPort":8080}],"selector":{"app":"lb"},"type":"LoadBalancer"},"status":{"loadBalancer":{}}}"#
        );
        assert_eq!(
            requests_since(&s, from),
            ["POST /api/v1/namespaces/default/services?fieldManager=kubectl-create&fieldValidation=Strict 201"]
        );
        run(&mut s, "create svc externalname ext2 --external-name=example.com --tcp=80", "");
        assert_eq!(
            sent(&s),
            r#"{"kind":"Service","apiVersion":"v1","metadata":{"name":"ext2","creationTimestamp":null,"labels":{"app":"ext2"}},"spec":{"ports":[{"name":"80","protocol":"TCP","port":80,"targetPort":80}],"selector":{"app":"ext2"},"type":"ExternalName","externalName":"example.com"},"status":{"loadBalancer":{}}}"#
        );
        assert_eq!(
            run(&mut s, "create service clusterip hl --clusterip=None", "").text,
            "service/hl created\n",
            "headless needs no port"
        );
        assert_eq!(last_body(&s)["spec"], json!({"selector": {"app": "hl"}, "clusterIP": "None", "type": "ClusterIP"}));
        run(&mut s, "create service nodeport np --tcp=80 --node-port=30080", "");
        assert_eq!(last_body(&s)["spec"]["ports"][0]["nodePort"], 30080);
        for (line, error) in [
            ("create service externalname", "error: required flag(s) \"external-name\" not set"),
            ("create service loadbalancer lb2", "error: at least one tcp port specifier must be provided"),
            ("create service externalname e --external-name=Bad_Name", "error: invalid service external name Bad_Name"),
            ("create service clusterip x --tcp=abc", "error: strconv.ParseUint: parsing \"abc\": invalid syntax"),
            ("create service clusterip x --tcp=70000", "error: strconv.ParseUint: parsing \"70000\": value out of range"),
            ("create service clusterip x --tcp=80:Bad_Port", "error: must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)"),
            ("create service clusterip x --tcp=80:0", "error: must be between 1 and 65535, inclusive"),
            ("create service clusterip kubernetes --tcp=443", "error: failed to create ClusterIP service: services \"kubernetes\" already exists"),
            ("create service nodeport n1 --tcp=80 --node-port=99999", "error: failed to create NodePort service: Service \"n1\" is invalid: spec.ports[0].nodePort: Invalid value: 99999: provided port is not in the valid range. The range of valid ports is 30000-32767"),
            ("create service foo x", "error: unknown command \"foo x\"\nSee 'kubectl create service -h' for help and examples"),
            ("create service externalname x --external-name=a.com --node-port=3", "error: unknown flag: --node-port\nSee 'kubectl create service externalname --help' for usage."),
            ("create service loadbalancer lb --tcp=80 --node-port=30080", "error: unknown flag: --node-port\nSee 'kubectl create service loadbalancer --help' for usage."),
        ] {
            let o = run(&mut s, line, "");
            assert!(o.failed, "{line}");
            assert_eq!(o.text, format!("{error}\n"), "{line}");
        }
    }

    #[test]
    fn priority_classes_are_built_as_kubectl_builds_them() {
        use super::super::tests::sent;
        let mut s = session();
        assert_eq!(
            run(&mut s, "create priorityclass high --value=1000 --description=x", "").text,
            "priorityclass.scheduling.k8s.io/high created\n"
        );
        assert_eq!(
            sent(&s),
            r#"{"kind":"PriorityClass","apiVersion":"scheduling.k8s.io/v1","metadata":{"name":"high","creationTimestamp":null},"value":1000,"description":"x","preemptionPolicy":"PreemptLowerPriority"}"#
        );
        run(&mut s, "create pc p2 --value=5 --global-default --preemption-policy=Never", "");
        assert_eq!(
            sent(&s),
            r#"{"kind":"PriorityClass","apiVersion":"scheduling.k8s.io/v1","metadata":{"name":"p2","creationTimestamp":null},"value":5,"globalDefault":true,"preemptionPolicy":"Never"}"#
        );
        for (line, error) in [
            ("create priorityclass", "error: exactly one NAME is required, got 0\nSee 'kubectl create priorityclass -h' for help and examples"),
            ("create priorityclass pcx --value=10 --preemption-policy=Bad", "error: failed to create priorityclass: PriorityClass.scheduling.k8s.io \"pcx\" is invalid: preemptionPolicy: Unsupported value: \"Bad\": supported values: \"PreemptLowerPriority\", \"Never\""),
            ("create priorityclass high --value=10", "error: failed to create priorityclass: priorityclasses.scheduling.k8s.io \"high\" already exists"),
            ("create priorityclass pcz --value=2000000000", "error: failed to create priorityclass: PriorityClass.scheduling.k8s.io \"pcz\" is invalid: value: Forbidden: maximum allowed value of a user defined priority is 1000000000"),
            ("create priorityclass x --tcp=80", "error: unknown flag: --tcp\nSee 'kubectl create priorityclass --help' for usage."),
        ] {
            let o = run(&mut s, line, "");
            assert!(o.failed, "{line}");
            assert_eq!(o.text, format!("{error}\n"), "{line}");
        }
    }

    /// As kubectl 1.33 builds the Secret and words each refusal.
    #[test]
    fn registry_secrets_and_the_generators_refusals_are_kubectls() {
        use super::super::tests::sent;
        use base64::Engine;
        let mut s = session();
        let line = "create secret docker-registry reg --docker-username=u --docker-password=p --docker-email=e@x.com";
        assert_eq!(run(&mut s, line, "").text, "secret/reg created\n");
        assert_eq!(
            sent(&s),
            r#"{"kind":"Secret","apiVersion":"v1","metadata":{"name":"reg","creationTimestamp":null},"data":{".dockerconfigjson":"eyJhdXRocyI6eyJodHRwczovL2luZGV4LmRvY2tlci5pby92MS8iOnsidXNlcm5hbWUiOiJ1IiwicGFzc3dvcmQiOiJwIiwiZW1haWwiOiJlQHguY29tIiwiYXV0aCI6ImRUcHcifX19"},"type":"kubernetes.io/dockerconfigjson"}"#
        );
        run(
            &mut s,
            "create secret docker-registry reg2 --docker-username=u --docker-password=p --docker-server=r.io",
            "",
        );
        let config = last_body(&s)["data"][".dockerconfigjson"].as_str().map(str::to_string).unwrap_or_default();
        let config = base64::engine::general_purpose::STANDARD.decode(config).unwrap_or_default();
        assert_eq!(
            String::from_utf8_lossy(&config),
            r#"{"auths":{"r.io":{"username":"u","password":"p","auth":"dTpw"}}}"#
        );
        let either = "error: either --from-file or the combination of --docker-username, --docker-password and --docker-server is required";
        for (line, error) in [
            ("create secret docker-registry", "error: exactly one NAME is required, got 0\nSee 'kubectl create secret docker-registry -h' for help and examples"),
            ("create secret docker-registry r --docker-username=u", either),
            ("create secret docker-registry r --docker-username=u --docker-password=p --docker-server=", either),
            ("create secret docker-registry r --from-literal=a=b", "error: unknown flag: --from-literal\nSee 'kubectl create secret docker-registry --help' for usage."),
            ("create secret docker-registry reg --docker-username=u --docker-password=p", "error: failed to create secret secrets \"reg\" already exists"),
            ("create secret generic reg", "error: failed to create secret secrets \"reg\" already exists"),
            ("create configmap kube-root-ca.crt", "error: failed to create configmap: configmaps \"kube-root-ca.crt\" already exists"),
            ("create namespace default", "Error from server (AlreadyExists): namespaces \"default\" already exists"),
            ("create deployment coredns -n kube-system --image=x", "error: failed to create deployment: deployments.apps \"coredns\" already exists"),
            ("create serviceaccount default", "error: failed to create serviceaccount: serviceaccounts \"default\" already exists"),
        ] {
            let o = run(&mut s, line, "");
            assert!(o.failed, "{line}");
            assert_eq!(o.text, format!("{error}\n"), "{line}");
        }
        run(&mut s, "create quota q1 --hard=pods=1", "");
        assert_eq!(
            run(&mut s, "create quota q1 --hard=pods=1", "").text,
            "error: failed to create quota: resourcequotas \"q1\" already exists\n"
        );
    }

    /// Bodies and refusals as kubectl 1.33 builds and prints them.
    #[test]
    fn ingresses_are_built_from_rules_as_kubectl_builds_them() {
        use super::super::tests::sent;
        let mut s = session();
        assert_eq!(
            run(&mut s, "create ingress simple --rule=foo.com/bar=svc1:8080,tls=my-cert", "").text,
            "ingress.networking.k8s.io/simple created\n"
        );
        assert_eq!(
            sent(&s),
            r#"{"kind":"Ingress","apiVersion":"networking.k8s.io/v1","metadata":{"name":"simple","creationTimestamp":null},"spec":{"tls":[{"hosts":["foo.com"],"secretName":"my-cert"}],"rules":[{"host":"foo.com","http":{"paths":[{"path":"/bar","pathType":"Exact","backend":{"service":{"name":"svc1","port":{"number":8080}}}}]}}]},"status":{"loadBalancer":{}}}"#
        );
        run(&mut s, "create ing two --class=nginx --rule=foo.com/path*=svc:8080 --rule=bar.com/admin*=svc2:http --default-backend=defsvc:80 --annotation=a=b", "");
        assert_eq!(
            sent(&s),
            r#"{"kind":"Ingress","apiVersion":"networking.k8s.io/v1","metadata":{"name":"two","creationTimestamp":null,"annotations":{"a":"b"}},"spec":{"ingressClassName":"nginx","defaultBackend":{"service":{"name":"defsvc","port":{"number":80}}},"rules":[{"host":"foo.com","http":{"paths":[{"path":"/path","pathType":"Prefix","backend":{"service":{"name":"svc","port":{"number":8080}}}}]}},{"host":"bar.com","http":{"paths":[{"path":"/admin","pathType":"Prefix","backend":{"service":{"name":"svc2","port":{"name":"http"}}}}]}}]},"status":{"loadBalancer":{}}}"#
        );
        run(&mut s, "create ingress t3 --rule=/path=svc:80 --rule=foo.com/=svc:80,tls", "");
        assert_eq!(
            sent(&s),
            r#"{"kind":"Ingress","apiVersion":"networking.k8s.io/v1","metadata":{"name":"t3","creationTimestamp":null},"spec":{"tls":[{"hosts":["foo.com"]}],"rules":[{"http":{"paths":[{"path":"/path","pathType":"Exact","backend":{"service":{"name":"svc","port":{"number":80}}}}]}},{"host":"foo.com","http":{"paths":[{"path":"/","pathType":"Exact","backend":{"service":{"name":"svc","port":{"number":80}}}}]}}]},"status":{"loadBalancer":{}}}"#
        );
        // kubectl 1.33 does not look past the port: `,tl` asks for TLS.
        run(&mut s, "create ingress loose --rule=foo.com/a=svc:80,tl", "");
        assert_eq!(last_body(&s)["spec"]["tls"], json!([{"hosts": ["foo.com"]}]));
        // One host's paths in one rule; one secret's hosts in one entry.
        run(
            &mut s,
            "create ingress t4 --rule=a.com/x=s:80,tls=c --rule=a.com/y=s:80,tls=c --rule=b.com/=s:80,tls=c",
            "",
        );
        let body = last_body(&s);
        assert_eq!(body["spec"]["tls"], json!([{"hosts": ["a.com", "b.com"], "secretName": "c"}]));
        assert_eq!(body["spec"]["rules"][0]["http"]["paths"].as_array().map(Vec::len), Some(2));
        for (line, error) in [
            ("create ingress x", "error: not enough information provided: every ingress has to either specify a default-backend (which catches all traffic) or a list of rules (which catch specific paths)"),
            ("create ingress x --rule=foo.com=svc:80", "error: rule foo.com=svc:80 is invalid and should be in format host/path=svcname:svcport[,tls[=secret]]"),
            ("create ingress x --rule=foo.com/a=svc", "error: rule foo.com/a=svc is invalid and should be in format host/path=svcname:svcport[,tls[=secret]]"),
            ("create ingress x --rule=foo.com/a=svc:80 --annotation=nokey", "error: annotation nokey is invalid and should be in format key=[value]"),
            ("create ingress x --default-backend=svc", "error: default-backend should be in format servicename:serviceport"),
            ("create ingress simple --rule=foo.com/bar=svc1:8080", "error: failed to create ingress: ingresses.networking.k8s.io \"simple\" already exists"),
            ("create ingress x --tcp=80", "error: unknown flag: --tcp\nSee 'kubectl create ingress --help' for usage."),
            ("create ingress", "error: exactly one NAME is required, got 0\nSee 'kubectl create ingress -h' for help and examples"),
        ] {
            let o = run(&mut s, line, "");
            assert!(o.failed, "{line}");
            assert_eq!(o.text, format!("{error}\n"), "{line}");
        }
    }
}
