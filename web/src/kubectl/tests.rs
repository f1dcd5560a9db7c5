//! The command bar's kubectl, run against a session: what it prints and
//! what it sends.

use super::write::LAST_APPLIED;
use super::*;

pub(super) fn session() -> Session {
    Session::new(7)
}

pub(super) fn body_json_request(e: &LogEntry) -> Value {
    serde_json::from_slice(&e.request.body).unwrap_or(Value::Null)
}

/// The body kubectl sent last, as JSON.
pub(super) fn last_body(s: &Session) -> Value {
    let e = s.log.iter().rev().find(|e| e.source == Source::Kubectl).unwrap();
    serde_json::from_slice(&e.request.body).unwrap()
}

/// The body of kubectl's last request, as sent (its keys' order too).
pub(super) fn sent(s: &Session) -> String {
    let e = s.log.iter().rev().find(|e| e.source == Source::Kubectl);
    e.map(|e| String::from_utf8_lossy(&e.request.body).into_owned()).unwrap_or_default()
}

pub(super) fn requests_since(s: &Session, from: usize) -> Vec<String> {
    s.log[from..]
        .iter()
        .filter(|e| e.request.path != "/api" && e.request.path != "/apis" && e.source == Source::Kubectl)
        .map(|e| format!("{} {} {}", e.request.method, e.url(), e.response.status))
        .collect()
}

#[test]
fn parses_flags_the_ways_kubectl_accepts_them() {
    let c = parse("kubectl get po -nkube-system -oyaml --chunk-size=2 -l 'app in (a,b)'").unwrap();
    assert_eq!(
        (c.types, c.namespace.as_deref(), c.output, c.chunk_size),
        (vec!["po".to_string()], Some("kube-system"), Output::Yaml, 2)
    );
    assert_eq!(c.selector.as_deref(), Some("app in (a,b)"));
    let c = parse("get svc,cm -A --watch=false").unwrap();
    assert!(c.all_namespaces && !c.watch && c.types.len() == 2);
    let c = parse("label cm x a=b c- --overwrite").unwrap();
    assert_eq!(
        (c.names, c.pairs, c.overwrite),
        (vec!["x".to_string()], vec!["a=b".to_string(), "c-".to_string()], true)
    );
}

/// `kubectl get cs`: the deprecation warning, then the components as
/// the page's controllers leave them (paused: their ports refuse).
#[test]
fn component_statuses_follow_the_paused_controllers() {
    let mut s = session();
    let out = run(&mut s, "get cs", "");
    assert_eq!(
        out.text,
        "Warning: v1 ComponentStatus is deprecated in v1.19+\n\
             NAME                 STATUS    MESSAGE   ERROR\n\
             controller-manager   Healthy   ok        \n\
             etcd-0               Healthy   ok        \n\
             scheduler            Healthy   ok        \n"
    );
    s.set_controllers_paused(true);
    let out = run(&mut s, "get componentstatus scheduler --no-headers", "");
    assert!(out.text.contains("scheduler   Unhealthy   Get \"https://127.0.0.1:10259/healthz\""), "{}", out.text);
    s.set_controllers_paused(false);
    assert!(run(&mut s, "get cs scheduler", "").text.contains("scheduler   Healthy"));
}

#[test]
fn unknown_commands_and_flags_get_clear_messages() {
    assert!(parse("frobnicate pods").unwrap_err().contains("unknown command \"frobnicate\""));
    assert!(parse("get pods --frob").unwrap_err().contains("unknown flag: --frob"));
    assert!(parse("get pods -o wat").unwrap_err().contains("allowed formats are"));
    assert!(parse("get pods -n").unwrap_err().contains("flag needs an argument"));
    assert!(parse("create").unwrap_err().contains("must specify one of -f"));
    assert!(parse("delete pods").unwrap_err().contains("no name was specified"));
    assert!(parse("get 'pods").unwrap_err().contains("unterminated quote"));
    assert!(parse("").is_err());
}

pub(super) fn live(s: &mut Session, path: &str) -> Value {
    body_json(&s.request(Source::Console, Request::new("GET", path)).response)
}

#[test]
fn patch_reads_then_patches_with_each_type_and_through_a_subresource() {
    let mut s = session();
    let from = s.log.len();
    let out = run(&mut s, r#"kubectl patch configmap kube-root-ca.crt -p '{"metadata":{"labels":{"a":"b"}}}'"#, "");
    assert_eq!(out.text, "configmap/kube-root-ca.crt patched\n");
    let reqs = requests_since(&s, from);
    assert_eq!(
        reqs,
        [
            "GET /api/v1/namespaces/default/configmaps/kube-root-ca.crt 200".to_string(),
            "PATCH /api/v1/namespaces/default/configmaps/kube-root-ca.crt?fieldManager=kubectl-patch 200".to_string(),
        ]
    );
    let sent = s.log.iter().rev().find(|e| e.request.method == "PATCH").unwrap();
    assert!(sent
        .request
        .headers
        .iter()
        .any(|(k, v)| k == "Content-Type" && v == "application/strategic-merge-patch+json"));
    // The same again changes nothing; YAML is read as kubectl reads it.
    let out = run(&mut s, "kubectl patch configmap/kube-root-ca.crt --type merge -p 'metadata: {labels: {a: b}}'", "");
    assert_eq!(out.text, "configmap/kube-root-ca.crt patched (no change)\n");
    let out = run(
        &mut s,
        r#"kubectl patch cm kube-root-ca.crt --type=json -p '[{"op":"remove","path":"/metadata/labels/a"}]'"#,
        "",
    );
    assert_eq!(out.text, "configmap/kube-root-ca.crt patched\n");
    // A pod resized in place, through its subresource.
    let pod = "apiVersion: v1\nkind: Pod\nmetadata: {name: sized}\nspec:\n  containers:\n  - name: app\n    image: nginx\n    resources: {requests: {cpu: 100m}}\n";
    assert!(!run(&mut s, "kubectl apply -f -", pod).failed);
    s.settle();
    let from = s.log.len();
    let line = r#"kubectl patch pod sized --subresource resize -p '{"spec":{"containers":[{"name":"app","resources":{"requests":{"cpu":"200m"}}}]}}'"#;
    let out = run(&mut s, line, "");
    assert_eq!(out.text, "pod/sized patched\n");
    assert_eq!(
        requests_since(&s, from),
        [
            "GET /api/v1/namespaces/default/pods/sized/resize 200".to_string(),
            "PATCH /api/v1/namespaces/default/pods/sized/resize?fieldManager=kubectl-patch 200".to_string(),
        ]
    );
    // kubectl's own refusals.
    let out = run(&mut s, "kubectl patch pod sized --type=apply -p '{}'", "");
    assert_eq!(out.text, "error: --type must be one of [json merge strategic], not \"apply\"\n");
    let out = run(&mut s, "kubectl patch pod sized", "");
    assert_eq!(out.text, "error: must specify --patch or --patch-file containing the contents of the patch\n");
    let deep = format!("kubectl patch pod sized -p '{}'", "[".repeat(20_000));
    let out = run(&mut s, &deep, "");
    assert!(out.text.contains("exceeded max depth"), "{}", out.text);
    let out = run(&mut s, "kubectl get pods -p '{}'", "");
    assert!(out.text.starts_with("error: unknown flag: --patch"), "{}", out.text);
}

#[test]
fn debug_adds_an_ephemeral_container_as_kubectl_does() {
    let mut s = session();
    let from = s.log.len();
    let out = run(&mut s, "kubectl debug counter --image=busybox --target=count --profile=general", "");
    assert!(!out.failed, "{}", out.text);
    let lines: Vec<&str> = out.text.lines().collect();
    assert_eq!(lines[0], "Targeting container \"count\". If you don't see processes from this container it may be because the container runtime doesn't support this feature.");
    let first = lines[1].strip_prefix("Defaulting debug container name to ").unwrap().trim_end_matches('.').to_string();
    assert!(first.starts_with("debugger-") && first.len() == 14, "{first}");
    let reqs = requests_since(&s, from);
    assert_eq!(
        reqs,
        [
            "GET /api/v1/namespaces/default/pods/counter 200".to_string(),
            "PATCH /api/v1/namespaces/default/pods/counter/ephemeralcontainers 200".to_string(),
        ]
    );
    let patch =
        body_json_request(s.log.iter().rev().find(|e| e.request.path.ends_with("/ephemeralcontainers")).unwrap());
    assert_eq!(
        patch,
        json!({"spec": {"ephemeralContainers": [{"image": "busybox", "name": first, "resources": {},
            "securityContext": {"capabilities": {"add": ["SYS_PTRACE"]}}, "targetContainerName": "count",
            "terminationMessagePolicy": "File"}]}})
    );
    // A second one keeps the first in the list's order; the legacy
    // profile (the default) is warned about.
    let out = run(&mut s, "kubectl debug pod/counter --image=nginx -c probe", "");
    assert!(!out.failed, "{}", out.text);
    assert!(out.text.starts_with("--profile=legacy is deprecated"), "{}", out.text);
    let patch =
        body_json_request(s.log.iter().rev().find(|e| e.request.path.ends_with("/ephemeralcontainers")).unwrap());
    assert_eq!(patch["spec"]["$setElementOrder/ephemeralContainers"], json!([{"name": first}, {"name": "probe"}]));
    s.settle();
    let pod = live(&mut s, "/api/v1/namespaces/default/pods/counter");
    let names: Vec<&str> = pod["status"]["ephemeralContainerStatuses"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, [first.as_str(), "probe"]);
    // A target that is not there is the server's refusal; no image,
    // kubectl's.
    let out = run(&mut s, "kubectl debug counter --image=nginx --target=nope --profile=general", "");
    assert!(out.failed && out.text.contains("targetContainerName: Not found: \"nope\""), "{}", out.text);
    let out = run(&mut s, "kubectl debug counter", "");
    assert!(out.failed && out.text.contains("--image is required for ephemeral containers"), "{}", out.text);
    assert!(parse("debug counter --image=x --replicas=2").unwrap_err().contains("unknown flag: --replicas"));
}

#[test]
fn imperative_creates_send_what_kubectl_generators_build() {
    let mut s = session();
    let from = s.log.len();
    let out = run(&mut s, "kubectl create deployment web --image=nginx:1.25 --replicas=2 --port=80", "");
    assert_eq!(out.text, "deployment.apps/web created\n");
    assert_eq!(
        requests_since(&s, from),
        vec![
            "POST /apis/apps/v1/namespaces/default/deployments?fieldManager=kubectl-create&fieldValidation=Strict 201"
        ]
    );
    let d = live(&mut s, "/apis/apps/v1/namespaces/default/deployments/web");
    assert_eq!(d.pointer("/spec/replicas"), Some(&json!(2)));
    assert_eq!(d.pointer("/spec/selector/matchLabels"), Some(&json!({"app": "web"})));
    let c = d.pointer("/spec/template/spec/containers/0").unwrap();
    assert_eq!((c["name"].as_str(), c["image"].as_str()), (Some("nginx"), Some("nginx:1.25")));
    assert_eq!(c["ports"], json!([{"containerPort": 80, "protocol": "TCP"}]));

    let out = run(&mut s, "create configmap x --from-literal=a=b --from-literal=c=d=e", "");
    assert_eq!(out.text, "configmap/x created\n");
    assert_eq!(live(&mut s, "/api/v1/namespaces/default/configmaps/x")["data"], json!({"a": "b", "c": "d=e"}));
    let dup = run(&mut s, "create cm y --from-literal=a=1 --from-literal=a=2", "");
    assert!(
        dup.failed
            && dup
                .text
                .contains("cannot add key a, another key by that name already exists in Data for ConfigMap \"y\""),
        "{}",
        dup.text
    );
    assert!(run(&mut s, "create cm y --from-literal=nokey", "")
        .text
        .contains("invalid literal source nokey, expected key=value"));

    let out = run(&mut s, "create secret generic pw --from-literal=password=hunter2", "");
    assert_eq!(out.text, "secret/pw created\n");
    let secret = live(&mut s, "/api/v1/namespaces/default/secrets/pw");
    assert_eq!((secret["data"]["password"].as_str(), secret["type"].as_str()), (Some("aHVudGVyMg=="), Some("Opaque")));

    assert_eq!(run(&mut s, "create namespace team-a", "").text, "namespace/team-a created\n");
    assert_eq!(
        run(&mut s, "create job once -n team-a --image=busybox -- echo hi", "").text,
        "job.batch/once created\n"
    );
    let job = live(&mut s, "/apis/batch/v1/namespaces/team-a/jobs/once");
    let c = job.pointer("/spec/template/spec/containers/0").unwrap();
    assert_eq!((c["name"].as_str(), &c["command"]), (Some("once"), &json!(["echo", "hi"])));
    assert_eq!(job.pointer("/spec/template/spec/restartPolicy"), Some(&json!("Never")));

    assert_eq!(run(&mut s, "create service clusterip web --tcp=80:8080", "").text, "service/web created\n");
    let svc = live(&mut s, "/api/v1/namespaces/default/services/web");
    assert_eq!(svc.pointer("/spec/ports/0/name"), Some(&json!("80-8080")));
    assert_eq!(svc.pointer("/spec/ports/0/targetPort"), Some(&json!(8080)));
    assert_eq!(svc.pointer("/spec/selector"), Some(&json!({"app": "web"})));
    assert!(run(&mut s, "create service clusterip bare", "")
        .text
        .contains("at least one tcp port specifier must be provided"));
    assert!(run(&mut s, "create deployment noimage", "").text.contains("required flag(s) \"image\" not set"));
    // (kubectl 1.33 wraps this generator's refusal.)
    assert_eq!(
        run(&mut s, "create deployment web --image=nginx", "").text,
        "error: failed to create deployment: deployments.apps \"web\" already exists\n"
    );
}

#[test]
fn cordon_and_uncordon_patch_only_a_node_not_already_so() {
    let mut s = session();
    run(&mut s, "apply -f -", "apiVersion: v1\nkind: Node\nmetadata: {name: n9}\n");
    let from = s.log.len();
    assert_eq!(run(&mut s, "cordon n9", "").text, "node/n9 cordoned\n");
    assert_eq!(requests_since(&s, from), vec!["GET /api/v1/nodes/n9 200", "PATCH /api/v1/nodes/n9 200"]);
    let patch = s.log.iter().rev().find(|e| e.request.method == "PATCH").unwrap();
    assert_eq!(patch.request.header("Content-Type"), Some("application/strategic-merge-patch+json"));
    assert_eq!(body_json_request(patch), json!({"spec": {"unschedulable": true}}));
    let from = s.log.len();
    assert_eq!(run(&mut s, "cordon n9", "").text, "node/n9 already cordoned\n");
    assert_eq!(requests_since(&s, from), vec!["GET /api/v1/nodes/n9 200"]);
    assert_eq!(run(&mut s, "uncordon n9", "").text, "node/n9 uncordoned\n");
    assert_eq!(live(&mut s, "/api/v1/nodes/n9").pointer("/spec/unschedulable"), None);
    assert_eq!(run(&mut s, "uncordon n9", "").text, "node/n9 already uncordoned\n");
    assert!(run(&mut s, "cordon nope", "").text.contains("Error from server (NotFound): nodes \"nope\" not found"));
    assert!(parse("cordon").unwrap_err().starts_with("error: USAGE: cordon NODE [flags]"));
}

#[test]
fn taint_adds_replaces_and_removes_as_kubectl_does() {
    let mut s = session();
    run(&mut s, "apply -f -", "apiVersion: v1\nkind: Node\nmetadata: {name: n9}\n");
    let from = s.log.len();
    assert_eq!(run(&mut s, "taint nodes n9 dedicated=gpu:NoSchedule", "").text, "node/n9 tainted\n");
    assert_eq!(
        requests_since(&s, from),
        vec![
            "GET /api/v1/nodes/n9 200",
            "PATCH /api/v1/nodes/n9?fieldManager=kubectl-taint&fieldValidation=Strict 200"
        ]
    );
    let patch = s.log.iter().rev().find(|e| e.request.method == "PATCH").unwrap();
    assert_eq!(patch.request.header("Content-Type"), Some("application/strategic-merge-patch+json"));
    assert_eq!(
        body_json_request(patch),
        json!({"spec": {"taints": [{"key": "dedicated", "effect": "NoSchedule", "value": "gpu"}]}})
    );
    assert_eq!(
        run(&mut s, "taint nodes n9 dedicated=cpu:NoSchedule", "").text,
        "error: node n9 already has dedicated taint(s) with same effect(s) and --overwrite is false\n"
    );
    assert_eq!(run(&mut s, "taint nodes n9 dedicated=cpu:NoSchedule --overwrite", "").text, "node/n9 modified\n");
    assert_eq!(run(&mut s, "taint nodes n9 spot:NoExecute", "").text, "node/n9 tainted\n");
    let taints = live(&mut s, "/api/v1/nodes/n9").pointer("/spec/taints").cloned().unwrap();
    assert_eq!(taints[0]["key"], "spot", "the added first, then the old");
    assert_eq!(taints[1]["value"], "cpu");
    assert_eq!(run(&mut s, "taint nodes n9 dedicated:NoSchedule-", "").text, "node/n9 untainted\n");
    assert_eq!(run(&mut s, "taint nodes n9 spot-", "").text, "node/n9 untainted\n");
    let patch = s.log.iter().rev().find(|e| e.request.method == "PATCH").unwrap();
    assert_eq!(body_json_request(patch), json!({"spec": {"taints": null}}));
    assert_eq!(live(&mut s, "/api/v1/nodes/n9").pointer("/spec/taints"), None);
    assert_eq!(run(&mut s, "taint nodes n9 nope-", "").text, "error: taint \"nope\" not found\n");
    assert_eq!(run(&mut s, "taint nodes n9", "").text, "error: at least one taint update is required\n");
    assert!(run(&mut s, "taint nodes n9 a=b:Sometimes", "")
        .text
        .starts_with("error: invalid taint effect: Sometimes, unsupported taint effect\nSee 'kubectl taint -h'"));
    assert!(run(&mut s, "taint nodes n9 a=b", "")
        .text
        .starts_with("error: invalid taint spec: a=b, name part must consist of alphanumeric characters"));
    assert!(run(&mut s, "taint nodes n9 a:NoSchedule a:NoSchedule", "")
        .text
        .starts_with("error: duplicated taints with the same key and effect: {a  NoSchedule <nil>}\n"));
    assert_eq!(
        run(&mut s, "taint nodes n9 a:NoSchedule a-", "").text,
        "error: can not both modify and remove the following taint(s) in the same command: a=\n"
    );
    assert_eq!(
        run(&mut s, "taint pods n9 a:NoSchedule", "").text,
        "error: invalid resource type pods, only node types are supported\n"
    );
    assert!(run(&mut s, "taint nodes nope a:NoSchedule", "").text.contains("nodes \"nope\" not found"));
}

#[test]
fn run_scale_set_image_and_logs_as_kubectl_sends_them() {
    let mut s = session();
    let from = s.log.len();
    let out = run(&mut s, "run sleeper --image=busybox --restart=Never -- sleep 3600", "");
    assert_eq!(out.text, "pod/sleeper created\n");
    assert_eq!(requests_since(&s, from), vec!["POST /api/v1/namespaces/default/pods?fieldManager=kubectl-run 201"]);
    let pod = live(&mut s, "/api/v1/namespaces/default/pods/sleeper");
    assert_eq!(pod.pointer("/metadata/labels"), Some(&json!({"run": "sleeper"})));
    assert_eq!(pod.pointer("/spec/containers/0/args"), Some(&json!(["sleep", "3600"])));
    assert_eq!(pod.pointer("/spec/restartPolicy"), Some(&json!("Never")));

    run(&mut s, "create deployment web --image=nginx", "");
    let from = s.log.len();
    assert_eq!(run(&mut s, "scale deployment web --replicas=3", "").text, "deployment.apps/web scaled\n");
    assert_eq!(
        requests_since(&s, from),
        vec![
            "GET /apis/apps/v1/namespaces/default/deployments/web 200",
            "PATCH /apis/apps/v1/namespaces/default/deployments/web/scale 200"
        ]
    );
    let ct = s
        .log
        .iter()
        .rev()
        .find(|e| e.request.method == "PATCH" && e.source == Source::Kubectl)
        .unwrap()
        .request
        .header("Content-Type")
        .unwrap()
        .to_string();
    assert_eq!(ct, "application/merge-patch+json");
    assert_eq!(
        live(&mut s, "/apis/apps/v1/namespaces/default/deployments/web").pointer("/spec/replicas"),
        Some(&json!(3))
    );
    assert_eq!(run(&mut s, "scale deploy/web --replicas=1", "").text, "deployment.apps/web scaled\n");
    assert!(run(&mut s, "scale deploy/nope --replicas=1", "").text.contains("Error from server (NotFound)"));
    assert!(run(&mut s, "scale deploy/web", "").text.contains("required flag(s) \"replicas\" not set"));

    let from = s.log.len();
    assert_eq!(
        run(&mut s, "set image deployment/web nginx=nginx:1.26", "").text,
        "deployment.apps/web image updated\n"
    );
    let reqs = requests_since(&s, from);
    assert_eq!(reqs[1], "PATCH /apis/apps/v1/namespaces/default/deployments/web?fieldManager=kubectl-set 200");
    let patch = body_json_request(
        s.log.iter().rev().find(|e| e.request.method == "PATCH" && e.source == Source::Kubectl).unwrap(),
    );
    assert_eq!(
        patch,
        json!({"spec": {"template": {"spec": {"$setElementOrder/containers": [{"name": "nginx"}], "containers": [{"image": "nginx:1.26", "name": "nginx"}]}}}})
    );
    let image = live(&mut s, "/apis/apps/v1/namespaces/default/deployments/web");
    assert_eq!(image.pointer("/spec/template/spec/containers/0/image"), Some(&json!("nginx:1.26")));
    assert!(run(&mut s, "set image deployment/web nosuch=x", "")
        .text
        .contains("unable to find container named \"nosuch\""));
    // The server's refusal after kubectl's words for it.
    let refused = run(&mut s, "set image deployment/web nginx=", "");
    assert_eq!(
            (refused.failed, refused.text.as_str()),
            (true, "error: failed to patch image update to pod template: Deployment.apps \"web\" is invalid: spec.template.spec.containers[0].image: Required value\n")
        );

    // The pod runs once the scheduler and its kubelet have had it.
    for _ in 0..20 {
        s.tick(500.0);
    }
    let from = s.log.len();
    let out = run(&mut s, "logs sleeper --tail=5", "");
    assert!(!out.failed, "{}", out.text);
    let reqs = requests_since(&s, from);
    assert_eq!(reqs[0], "GET /api/v1/namespaces/default/pods/sleeper 200");
    assert!(
        reqs[1].starts_with("GET /api/v1/namespaces/default/pods/sleeper/log?container=sleeper&tailLines=5 200"),
        "{reqs:?}"
    );
    assert!(run(&mut s, "logs nosuch", "").text.contains("Error from server (NotFound): pods \"nosuch\" not found"));
}

#[test]
fn where_the_page_differs_from_a_cluster_is_said_when_it_matters() {
    let mut s = session();
    // A ConfigMap needs nothing from the controllers: no note.
    assert_eq!(run(&mut s, "create configmap plain --from-literal=a=b", "").differs, None);
    assert_eq!(run(&mut s, "create deployment web --image=nginx", "").differs, None);
    s.set_controllers_paused(true);
    let yaml = "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j\nspec:\n  template:\n    spec:\n      restartPolicy: Never\n      containers:\n      - name: c\n        image: busybox\n";
    for (line, file) in [
        ("create deployment paused --image=nginx", ""),
        ("scale deployment web --replicas=2", ""),
        ("create -f -", yaml),
        ("delete deployment web", ""),
    ] {
        let out = run(&mut s, line, file);
        assert!(!out.failed, "{line}: {}", out.text);
        assert_eq!(out.differs, Some(differs::PAUSED), "{line}: {}", out.text);
    }
    assert_eq!(run(&mut s, "create configmap still-plain", "").differs, None);
    assert_eq!(run(&mut s, "get deploy", "").differs, None);
    s.set_controllers_paused(false);
    // A program the log model does not know prints nothing: said so.
    run(&mut s, "run sleeper --image=busybox --restart=Never -- sleep 3600", "");
    run(&mut s, "create deployment shown --image=nginx", "");
    for _ in 0..20 {
        s.tick(500.0);
    }
    let quiet = run(&mut s, "logs sleeper", "");
    assert_eq!((quiet.text.as_str(), quiet.differs), ("", Some(differs::LOG_MODEL)));
    // Nothing printed because the options asked for nothing: not the model's doing.
    for narrowed in ["--tail=0", "--since=1s", "--since-time=2026-01-01T00:00:00Z"] {
        let out = run(&mut s, &format!("logs sleeper {narrowed}"), "");
        assert_eq!((out.text.as_str(), out.differs), ("", None), "{narrowed}");
    }
    let out = run(&mut s, "logs sleeper --limit-bytes=5", "");
    assert_eq!(out.differs, Some(differs::LOG_MODEL));
    let pod = live(&mut s, "/api/v1/namespaces/default/pods?labelSelector=app%3Dshown");
    let name = pod.pointer("/items/0/metadata/name").and_then(Value::as_str).unwrap().to_string();
    let nginx = run(&mut s, &format!("logs {name}"), "");
    assert!(!nginx.text.is_empty() && nginx.differs.is_none(), "{}", nginx.text);
    // A Service: nothing answers on its address here.
    assert_eq!(run(&mut s, "expose deployment shown --port=80", "").differs, Some(differs::NO_NETWORK));
    assert_eq!(run(&mut s, "create service clusterip other --tcp=80:80", "").differs, Some(differs::NO_NETWORK));
    // A refused command needs no note.
    assert_eq!(run(&mut s, "expose deployment nosuch --port=80", "").differs, None);
}

#[test]
fn rollout_and_expose_as_kubectl_sends_them() {
    let mut s = session();
    run(&mut s, "create deployment web --image=nginx --replicas=2 --port=80", "");
    for _ in 0..20 {
        s.tick(500.0);
    }
    let from = s.log.len();
    assert_eq!(run(&mut s, "rollout status deployment/web", "").text, "deployment \"web\" successfully rolled out\n");
    assert_eq!(
        requests_since(&s, from),
        vec!["GET /apis/apps/v1/namespaces/default/deployments?fieldSelector=metadata.name%3Dweb 200"]
    );
    let from = s.log.len();
    assert_eq!(run(&mut s, "rollout restart deploy/web", "").text, "deployment.apps/web restarted\n");
    assert_eq!(
        requests_since(&s, from),
        vec![
            "GET /apis/apps/v1/namespaces/default/deployments/web 200",
            "PATCH /apis/apps/v1/namespaces/default/deployments/web?fieldManager=kubectl-rollout 200"
        ]
    );
    let d = live(&mut s, "/apis/apps/v1/namespaces/default/deployments/web");
    assert!(d.pointer("/spec/template/metadata/annotations/kubectl.kubernetes.io~1restartedAt").is_some(), "{d}");
    // Again in the same second: kubectl's patch would be empty.
    let from = s.log.len();
    let again = run(&mut s, "rollout restart deploy/web", "");
    assert_eq!(
            (again.text.as_str(), again.failed),
            ("error: failed to create patch for web: if restart has already been triggered within the past second, please wait before attempting to trigger another\n", true)
        );
    assert_eq!(requests_since(&s, from), vec!["GET /apis/apps/v1/namespaces/default/deployments/web 200"]);
    for _ in 0..40 {
        s.tick(500.0);
    }
    assert_eq!(run(&mut s, "rollout status deployment/web", "").text, "deployment \"web\" successfully rolled out\n");
    let history = run(&mut s, "rollout history deployment/web", "").text;
    assert_eq!(history, "deployment.apps/web \nREVISION  CHANGE-CAUSE\n1         <none>\n2         <none>\n\n");
    // A paused Deployment is not restarted.
    run(&mut s, "rollout pause deploy/web", "");
    let paused = run(&mut s, "rollout restart deploy/web", "");
    assert_eq!(
        (paused.text.as_str(), paused.failed),
        ("error: deployments.apps \"web\" can't restart paused deployment (run rollout resume first)\n", true)
    );
    run(&mut s, "rollout resume deploy/web", "");
    assert!(run(&mut s, "rollout frobnicate deployment/web", "")
        .text
        .contains("\"kubectl rollout frobnicate\" is not simulated"));

    let from = s.log.len();
    assert_eq!(run(&mut s, "expose deployment web", "").text, "service/web exposed\n");
    assert_eq!(
        requests_since(&s, from),
        vec![
            "GET /apis/apps/v1/namespaces/default/deployments/web 200",
            "POST /api/v1/namespaces/default/services?fieldManager=kubectl-expose&fieldValidation=Strict 201"
        ]
    );
    let svc = live(&mut s, "/api/v1/namespaces/default/services/web");
    assert_eq!(svc.pointer("/spec/selector"), Some(&json!({"app": "web"})));
    assert_eq!(svc.pointer("/spec/ports/0/port"), Some(&json!(80)), "the container's port, found by introspection");
    let out = run(&mut s, "expose deploy web --port=8080 --target-port=80 --name=web-alt --type=NodePort", "");
    assert_eq!(out.text, "service/web-alt exposed\n");
    let alt = live(&mut s, "/api/v1/namespaces/default/services/web-alt");
    assert_eq!(
        (alt.pointer("/spec/type"), alt.pointer("/spec/ports/0/targetPort")),
        (Some(&json!("NodePort")), Some(&json!(80)))
    );
    run(&mut s, "create deployment noport --image=nginx", "");
    assert!(run(&mut s, "expose deployment noport", "")
        .text
        .contains("couldn't find port via --port flag or introspection"));
}

/// As kubectl 1.33 prints them (its `--dry-run=client` sends nothing).
#[test]
fn generators_print_what_they_built_under_a_client_dry_run() {
    let mut s = session();
    let from = s.log.len();
    assert_eq!(
            run(&mut s, "create deployment web --image=nginx --dry-run=client -o yaml", "").text,
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  creationTimestamp: null\n  labels:\n    app: web\n  name: web\nspec:\n  replicas: 1\n  selector:\n    matchLabels:\n      app: web\n  strategy: {}\n  template:\n    metadata:\n      creationTimestamp: null\n      labels:\n        app: web\n    spec:\n      containers:\n      - image: nginx\n        name: nginx\n        resources: {}\nstatus: {}\n"
        );
    assert_eq!(
            run(&mut s, "run tmp --image=busybox --dry-run=client -o yaml -- sleep 1", "").text,
            "apiVersion: v1\nkind: Pod\nmetadata:\n  creationTimestamp: null\n  labels:\n    run: tmp\n  name: tmp\nspec:\n  containers:\n  - args:\n    - sleep\n    - \"1\"\n    image: busybox\n    name: tmp\n    resources: {}\n  dnsPolicy: ClusterFirst\n  restartPolicy: Always\nstatus: {}\n"
        );
    assert_eq!(
            run(&mut s, "create cm x --from-literal=a=b -n kube-system --dry-run=client -o json", "").text,
            "{\n    \"kind\": \"ConfigMap\",\n    \"apiVersion\": \"v1\",\n    \"metadata\": {\n        \"name\": \"x\",\n        \"namespace\": \"kube-system\",\n        \"creationTimestamp\": null\n    },\n    \"data\": {\n        \"a\": \"b\"\n    }\n}\n"
        );
    assert_eq!(
            run(&mut s, "expose deploy coredns -n kube-system --port=53 --name=dns2 --dry-run=client -o yaml", "").text,
            "apiVersion: v1\nkind: Service\nmetadata:\n  creationTimestamp: null\n  labels:\n    k8s-app: kube-dns\n  name: dns2\n  namespace: kube-system\nspec:\n  ports:\n  - port: 53\n    protocol: TCP\n    targetPort: 53\n  selector:\n    k8s-app: kube-dns\nstatus:\n  loadBalancer: {}\n"
        );
    assert_eq!(
        run(&mut s, "create deployment web --image=nginx --dry-run=client -o name", "").text,
        "deployment.apps/web\n"
    );
    assert_eq!(
        run(&mut s, "create deployment web --image=nginx --dry-run=client", "").text,
        "deployment.apps/web created (dry run)\n"
    );
    assert_eq!(run(&mut s, "create ns foo --dry-run=client -o jsonpath={.kind}", "").text, "Namespace");
    // Nothing but discovery and expose's read of its Deployment.
    assert_eq!(requests_since(&s, from), ["GET /apis/apps/v1/namespaces/kube-system/deployments/coredns 200"]);
    // A write's answer in -o yaml: the server's object, managedFields hidden.
    let yaml = run(&mut s, "create cm y --from-literal=a=b --dry-run=server -o yaml", "").text;
    assert!(yaml.contains("  uid: ") && !yaml.contains("managedFields"), "{yaml}");
    for line in ["create -f - --dry-run=client", "create token default --dry-run=client", "get pods --dry-run=client"] {
        let o = run(&mut s, line, "");
        assert!(o.failed && o.text.contains("use --dry-run=server"), "{line}: {}", o.text);
    }
}

/// Each output as kubectl 1.33 prints it against `kubesim serve` (the
/// same discovery), byte for byte.
#[test]
fn api_resources_filters_sorts_and_prints_as_kubectl_does() {
    let mut s = session();
    for (line, want) in [
            ("api-resources --api-group=apps", "NAME                  SHORTNAMES   APIVERSION   NAMESPACED   KIND\ncontrollerrevisions                apps/v1      true         ControllerRevision\ndaemonsets            ds           apps/v1      true         DaemonSet\ndeployments           deploy       apps/v1      true         Deployment\nreplicasets           rs           apps/v1      true         ReplicaSet\nstatefulsets          sts          apps/v1      true         StatefulSet\n"),
            ("api-resources --verbs=list,watch --api-group=batch", "NAME       SHORTNAMES   APIVERSION   NAMESPACED   KIND\ncronjobs   cj           batch/v1     true         CronJob\njobs                    batch/v1     true         Job\n"),
            ("api-resources --no-headers --api-group=policy", "poddisruptionbudgets   pdb   policy/v1   true   PodDisruptionBudget\n"),
            ("api-resources --categories=all -o name", "pods\nreplicationcontrollers\nservices\ndaemonsets.apps\ndeployments.apps\nreplicasets.apps\nstatefulsets.apps\nhorizontalpodautoscalers.autoscaling\ncronjobs.batch\njobs.batch\n"),
            ("api-resources --categories=all,api-extensions -o wide", "NAME   SHORTNAMES   APIVERSION   NAMESPACED   KIND   VERBS   CATEGORIES\n"),
            ("api-resources --verbs=LIST", "NAME   SHORTNAMES   APIVERSION   NAMESPACED   KIND\n"),
        ] {
            assert_eq!(run(&mut s, line, "").text, want, "{line}");
        }
    let by_kind = run(&mut s, "api-resources --sort-by=kind", "").text;
    assert!(by_kind.starts_with("NAME                          SHORTNAMES   APIVERSION                        NAMESPACED   KIND\nclusterroles                               rbac.authorization.k8s.io/v1      false        ClusterRole\nclusterrolebindings                        rbac.authorization.k8s.io/v1      false        ClusterRoleBinding\n"), "{by_kind}");
    let wide = run(&mut s, "api-resources -o wide", "").text;
    assert!(wide.starts_with("NAME                          SHORTNAMES   APIVERSION                        NAMESPACED   KIND                         VERBS                                                        CATEGORIES\n"), "{wide}");
    assert!(wide.contains("\npods                          po           v1                                true         Pod                          create,delete,deletecollection,get,list,patch,update,watch   all\n"), "{wide}");
    let cluster_wide = run(&mut s, "api-resources --namespaced=false -o name", "").text;
    assert!(cluster_wide.contains("\nnodes\n") && !cluster_wide.contains("\npods\n"), "{cluster_wide}");
    for (line, error) in [
        ("api-resources -o yaml", "error: --output yaml is not available"),
        ("api-resources --sort-by=foo", "error: --sort-by accepts only name or kind"),
        (
            "api-resources extra",
            "error: unexpected arguments: [extra]\nSee 'kubectl api-resources -h' for help and examples",
        ),
    ] {
        let o = run(&mut s, line, "");
        assert_eq!((o.failed, o.text), (true, format!("{error}\n")), "{line}");
    }
}

#[test]
fn generator_flags_belong_to_their_commands_and_the_rest_is_named() {
    assert_eq!(
        parse("get pods --image=nginx").unwrap_err(),
        "error: unknown flag: --image\nSee 'kubectl get --help' for usage."
    );
    assert!(parse("create configmap x --image=nginx").unwrap_err().contains("See 'kubectl create configmap --help'"));
    assert!(parse("top pods").unwrap_err().starts_with("\"kubectl top\" is not simulated in this command bar"));
    let mut s = session();
    assert!(run(&mut s, "create secret tls r", "").text.contains("\"kubectl create secret tls\" is not simulated"));
    let out = run(&mut s, "api-resources", "");
    let row = out.text.lines().find(|l| l.starts_with("deployments ")).unwrap_or_else(|| panic!("{}", out.text));
    assert!(row.split_whitespace().eq(["deployments", "deploy", "apps/v1", "true", "Deployment"]), "{row}");
    assert!(out.text.starts_with("NAME"), "{}", out.text);
}

#[test]
fn get_no_headers_leaves_the_header_out_of_the_widths_and_the_blank_lines() {
    let mut s = session();
    let with = run(&mut s, "get ns", "").text;
    let without = run(&mut s, "get ns --no-headers", "").text;
    assert!(with.starts_with("NAME              STATUS   AGE\n"), "{with}");
    // STATUS no wider than "Active" and three spaces, as kubectl 1.33
    // prints it (the header no longer widens it).
    let rows: Vec<&str> = without.lines().collect();
    assert_eq!(rows.len(), with.lines().count() - 1, "{without}");
    assert!(rows.iter().all(|r| !r.starts_with("NAME")), "{without}");
    assert!(rows[0].starts_with("default           Active   "), "{without}");
    // Several kinds: each table on its own widths, no blank line.
    let two = run(&mut s, "get cm,sa -n kube-public --no-headers", "").text;
    let lines: Vec<&str> = two.lines().collect();
    assert_eq!(lines.len(), 2, "{two}");
    assert!(lines[0].starts_with("configmap/kube-root-ca.crt   1     "), "{two}");
    assert!(lines[1].starts_with("serviceaccount/default   0     "), "{two}");
    assert!(run(&mut s, "describe pod counter --no-headers", "").text.contains("unknown flag: --no-headers"));
}

#[test]
fn get_takes_type_slash_name_as_kubectl_does() {
    let mut s = session();
    let from = s.log.len();
    let one = run(&mut s, "get deploy/hello", "").text;
    assert!(one.starts_with("NAME    READY   UP-TO-DATE   AVAILABLE   AGE\nhello   "), "{one}");
    assert_eq!(requests_since(&s, from).last().unwrap(), "GET /apis/apps/v1/namespaces/default/deployments/hello 200");
    // Two kinds: a table each, the names with their kind.
    let from = s.log.len();
    let two = run(&mut s, "get cm/kube-root-ca.crt sa/default -n kube-public", "").text;
    let lines: Vec<&str> = two.lines().collect();
    assert_eq!(lines[0], "NAME                         DATA   AGE", "{two}");
    assert!(lines[1].starts_with("configmap/kube-root-ca.crt   1      "), "{two}");
    assert_eq!(lines[2..4], ["", "NAME                     SECRETS   AGE"], "{two}");
    assert!(lines[4].starts_with("serviceaccount/default   0         "), "{two}");
    let reqs = requests_since(&s, from);
    assert_eq!(
        reqs[reqs.len() - 2..],
        [
            "GET /api/v1/namespaces/kube-public/configmaps/kube-root-ca.crt 200".to_string(),
            "GET /api/v1/namespaces/kube-public/serviceaccounts/default 200".to_string()
        ]
    );
    let out = run(&mut s, "get deploy/hello cm/nope -o name", "");
    assert_eq!(
        (out.text.as_str(), out.failed),
        ("deployment.apps/hello\nError from server (NotFound): configmaps \"nope\" not found\n", true)
    );
    let out = run(&mut s, "get deploy deploy/hello", "");
    assert_eq!(
            (out.text.as_str(), out.failed),
            ("error: there is no need to specify a resource type as a separate argument when passing arguments in resource/name form (e.g. 'kubectl get resource/<resource_name>' instead of 'kubectl get resource resource/<resource_name>'\n", true)
        );
}

#[test]
fn get_label_columns_and_show_labels_as_kubectl_prints_them() {
    let mut s = session();
    let out = run(&mut s, "get ns --show-labels -L kubernetes.io/metadata.name", "").text;
    let lines: Vec<&str> = out.lines().collect();
    // (kubectl 1.33 against `kubesim serve`: the key's last segment
    // upper-cased, then every label by key.)
    assert_eq!(lines[0], "NAME              STATUS   AGE   METADATA.NAME     LABELS", "{out}");
    assert!(lines[1].starts_with("default           Active   "), "{out}");
    assert!(lines[1].ends_with("   default           kubernetes.io/metadata.name=default"), "{out}");
    // A label an object lacks is an empty cell; the padding before it
    // stays, as Go's tab writer leaves it.
    run(&mut s, "create cm plain", "");
    run(&mut s, "create cm marked", "");
    run(&mut s, "label cm marked tier=web app.kubernetes.io/name=shop", "");
    let out = run(&mut s, "get cm plain marked -L tier,app.kubernetes.io/name --show-labels", "").text;
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].ends_with("AGE   TIER   NAME   LABELS"), "{out}");
    assert!(lines[1].starts_with("plain    0      "), "{out}");
    assert!(lines[1].ends_with("               <none>"), "{out}");
    assert!(lines[2].ends_with("web    shop   app.kubernetes.io/name=shop,tier=web"), "{out}");
    let out = run(&mut s, "get cm plain -L tier --no-headers", "").text;
    assert!(out.ends_with("   \n"), "{out:?}");
}

#[test]
fn get_with_chunk_size_follows_continue_tokens_like_kubectl() {
    let mut s = session();
    let from = s.log.len();
    let out = run(&mut s, "get cm -A --chunk-size=2", "");
    assert!(!out.failed, "{}", out.text);
    let reqs = requests_since(&s, from);
    assert_eq!(reqs.len(), 2, "{reqs:?}");
    assert!(reqs[0].starts_with("GET /api/v1/configmaps?limit=2 200"), "{reqs:?}");
    // The query's parameters by name, as Go's url.Values encodes them.
    assert!(reqs[1].starts_with("GET /api/v1/configmaps?continue="), "{reqs:?}");
    assert!(reqs[1].contains("&limit=2 "), "{reqs:?}");
    assert!(out.text.starts_with("NAMESPACE"), "{}", out.text);
    assert_eq!(out.text.matches("kube-root-ca.crt").count(), 4, "one in each namespace: {}", out.text);
    let accept = s.log.last().unwrap().request.header("Accept").unwrap().to_string();
    assert_eq!(accept, TABLE_ACCEPT);
    let from = s.log.len();
    run(&mut s, "get pods -l app=hello --field-selector status.phase=Running", "");
    let reqs = requests_since(&s, from);
    let list =
        "GET /api/v1/namespaces/default/pods?fieldSelector=status.phase%3DRunning&labelSelector=app%3Dhello&limit=500";
    assert!(reqs.iter().any(|r| r.starts_with(list)), "{reqs:?}");
    // The server's columns, as real kubectl prints them.
    assert!(
        out.text.lines().next().unwrap().split_whitespace().eq(["NAMESPACE", "NAME", "DATA", "AGE"]),
        "{}",
        out.text
    );
}

#[test]
fn get_sort_by_sorts_as_kubectl_1_33_does() {
    let mut s = session();
    for (name, size, word) in [("b-10", "1Gi", "item10"), ("b-9", "100m", "B"), ("a", "2", "item2")] {
        let made = run(&mut s, &format!("create cm {name} --from-literal=size={size} --from-literal=word={word}"), "");
        assert!(!made.failed, "{}", made.text);
    }
    let names = |text: &str| -> Vec<String> {
        text.lines().skip(1).map(|l| l.split_whitespace().next().unwrap_or("").to_string()).collect()
    };
    let from = s.log.len();
    let out = run(&mut s, "get cm --sort-by=.data.word", "");
    // Strings byte by byte (kubectl 1.33: `item10` before `item2`), a
    // row without the field first.
    assert_eq!(names(&out.text), ["kube-root-ca.crt", "b-9", "b-10", "a"], "{}", out.text);
    // Everything at once, whole objects in the rows.
    assert_eq!(
        requests_since(&s, from).last().unwrap(),
        "GET /api/v1/namespaces/default/configmaps?includeObject=Object 200"
    );
    // Quantities compare as quantities.
    let out = run(&mut s, "get cm --sort-by={.data.size}", "");
    assert_eq!(names(&out.text), ["kube-root-ca.crt", "b-9", "a", "b-10"], "{}", out.text);
    // A field no row has: kubectl prints nothing for the table, then
    // that nothing was found, and does not fail.
    let out = run(&mut s, "get cm --sort-by=.metadata.nope", "");
    assert_eq!((out.text.as_str(), out.failed), ("No resources found in default namespace.\n", false));
    // -o name sorts the one list of items, and a missing field fails.
    let out = run(&mut s, "get cm -o name --sort-by=data.word", "");
    assert_eq!(out.text, "configmap/kube-root-ca.crt\nconfigmap/b-9\nconfigmap/b-10\nconfigmap/a\n");
    let out = run(&mut s, "get cm -o name --sort-by=.metadata.nope", "");
    assert_eq!(
        (out.text.as_str(), out.failed),
        ("error: couldn't find any field with path \"{.metadata.nope}\" in the list of objects\n", true)
    );
    // Several tables are first sorted as objects (Tables have no name).
    let out = run(&mut s, "get cm,sa --sort-by=.metadata.name", "");
    assert_eq!(out.text, "error: couldn't find any field with path \"{.metadata.name}\" in the list of objects\n");
    // Named objects: not found is said after the table.
    let out = run(&mut s, "get cm nope a --sort-by=.kind", "").text;
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[1].starts_with("a "), "{out}");
    assert_eq!(lines[2], "Error from server (NotFound): configmaps \"nope\" not found", "{out}");
    // Values kubectl cannot compare stop it with a fatal log line.
    let out = run(&mut s, "get pods --sort-by=.spec.enableServiceLinks", "");
    assert!(out.failed, "{}", out.text);
    assert!(out.text.starts_with('F'), "{}", out.text);
    assert!(
            out.text.ends_with(" sorter.go:375] Field {.spec.enableServiceLinks} in [][][]reflect.Value is an unsortable type: interface, err: unsortable type: bool\n"),
            "{}",
            out.text
        );
    let out = run(&mut s, "get cm -w --sort-by=.metadata.name", "").text;
    assert!(
        out.starts_with("warning: --watch requested, --sort-by will be ignored for watch events received\n"),
        "{out}"
    );
    assert!(run(&mut s, "describe cm a --sort-by=.kind", "").text.contains("unknown flag: --sort-by"));
}

#[test]
fn get_custom_columns_prints_as_kubectl_1_33_does() {
    let mut s = session();
    let from = s.log.len();
    let out =
        run(&mut s, "get nodes -o custom-columns=NAME:.metadata.name,CPU:.status.capacity.cpu,T:.spec.taints", "");
    // (kubectl 1.33 against `kubesim serve`, byte for byte.)
    assert_eq!(
            out.text,
            "NAME            CPU   T\ncontrol-plane   4     [map[effect:NoSchedule key:node-role.kubernetes.io/control-plane]]\nworker-1        4     <none>\nworker-2        4     <none>\n"
        );
    // Plain objects, not a Table.
    assert_eq!(requests_since(&s, from).last().unwrap(), "GET /api/v1/nodes?limit=500 200");
    assert_eq!(s.log.last().unwrap().request.header("Accept"), Some("application/json"));
    let out = run(&mut s, "get svc -o custom-columns=A:.spec.ports[*].port --no-headers", "");
    assert_eq!(out.text, "80\n443\n");
    let out = run(&mut s, "get pods -l app=hello -o custom-columns=L:metadata.labels,C:{.spec.containers[0].ports},X:.nope,E:.spec.enableServiceLinks", "");
    let lines: Vec<&str> = out.text.lines().collect();
    assert_eq!(
        lines[0], "L                                             C                                      X        E",
        "{}",
        out.text
    );
    assert_eq!(
        lines[1], "map[app:hello pod-template-hash:595f854d7c]   [map[containerPort:80 protocol:TCP]]   <none>   true",
        "{}",
        out.text
    );
    // Sorted across kinds by --sort-by, one table.
    let out = run(&mut s, "get pods,svc -o custom-columns=KIND:.kind,NAME:.metadata.name --sort-by=.metadata.name", "");
    let kinds: Vec<&str> = out.text.lines().map(|l| l.split_whitespace().next().unwrap()).collect();
    assert_eq!(kinds, ["KIND", "Pod", "Service", "Pod", "Pod", "Service"], "{}", out.text);
    // An empty list is the header alone; a missing name only its error.
    run(&mut s, "create ns empty", "");
    assert_eq!(run(&mut s, "get pods -n empty -o custom-columns=A:.a", "").text, "A\n");
    assert_eq!(
        run(&mut s, "get pods nope -o custom-columns=A:.a", "").text,
        "Error from server (NotFound): pods \"nope\" not found\n"
    );
    for (spec, error) in [
        ("", "error: custom-columns format specified but no custom columns given\n"),
        ("=A", "error: unexpected custom-columns spec: A, expected <header>:<json-path-expr>\n"),
    ] {
        let out = run(&mut s, &format!("get pods -o custom-columns{spec}"), "");
        assert_eq!((out.text.as_str(), out.failed), (error, true));
    }
}

#[test]
fn wait_checks_as_kubectl_1_33_does() {
    let mut s = session();
    let from = s.log.len();
    let out = run(&mut s, "wait pod/counter --for=condition=Ready", "");
    assert_eq!((out.text.as_str(), out.failed), ("pod/counter condition met\n", false));
    // The builder's read, then the informer's first list of it alone.
    assert_eq!(
        requests_since(&s, from),
        [
            "GET /api/v1/namespaces/default/pods/counter 200".to_string(),
            "GET /api/v1/namespaces/default/pods?fieldSelector=metadata.name%3Dcounter&limit=500&resourceVersion=0 200"
                .to_string(),
        ]
    );
    // Checking once reads it by name, twice.
    let from = s.log.len();
    assert_eq!(
        run(&mut s, "wait pod/counter --for=condition=Ready --timeout=0", "").text,
        "pod/counter condition met\n"
    );
    assert_eq!(requests_since(&s, from), ["GET /api/v1/namespaces/default/pods/counter 200"; 2]);
    let out = run(&mut s, "wait pods -l app=hello --for=condition=Ready=True", "").text;
    assert_eq!(out.lines().filter(|l| l.ends_with(" condition met")).count(), 2, "{out}");
    assert_eq!(
        run(&mut s, "wait deploy/hello --for=condition=available=TRUE", "").text,
        "deployment.apps/hello condition met\n"
    );
    assert_eq!(
        run(&mut s, "wait pod/counter --for=jsonpath={.status.phase}=Running", "").text,
        "pod/counter condition met\n"
    );
    assert_eq!(run(&mut s, "wait pod/counter --for=jsonpath=.status.phase", "").text, "pod/counter condition met\n");
    // (kubectl 1.33's words for each, against `kubesim serve`.)
    for (line, text) in [
            ("wait pod counter --for=condition=Ready=False --timeout=0", "error: condition not met for pods/counter\n"),
            ("wait pod/counter --for=jsonpath={.spec.containers}=x --timeout=0", "error: jsonpath leads to a nested object or list which is not supported\n"),
            ("wait pod/counter --for=jsonpath={.status.conditions[*].type}=Ready", "error: given jsonpath expression matches more than one value\n"),
            ("wait pod/counter --for=jsonpath={.status.phase --timeout=0", "error: unexpected path string, expected a 'name1.name2' or '.name1.name2' or '{name1.name2}' or '{.name1.name2}'\n"),
            ("wait pod counter", "error: unrecognized condition: \"\"\n"),
            ("wait pod/counter --for=Condition=ready", "error: unrecognized condition: \"Condition=ready\"\n"),
            ("wait pods --for=condition=Ready", "error: resource(s) were provided, but no name was specified\n"),
            ("wait --for=condition=Ready pod -l app=nomatch", "error: no matching resources found\n"),
            ("wait pod/nope --for=condition=Ready", "Error from server (NotFound): pods \"nope\" not found\n"),
            ("wait pod/counter --for=condition=Ready --timeout=abc", "error: invalid argument \"abc\" for \"--timeout\" flag: time: invalid duration \"abc\"\nSee 'kubectl wait --help' for usage.\n"),
        ] {
            let out = run(&mut s, line, "");
            assert_eq!((out.text.as_str(), out.failed), (text, true), "{line}");
        }
    // Waiting for a deletion: what is gone is done; a pod in its grace
    // period is not yet.
    assert_eq!(run(&mut s, "wait pod/nope --for=delete", "").text, "");
    run(&mut s, "delete pod counter", "");
    let out = run(&mut s, "wait pod/counter --for=delete --timeout=0", "");
    assert_eq!((out.text.as_str(), out.failed), ("error: condition not met for pods/counter\n", true));
    let out = run(&mut s, "wait pod/counter --for=delete --timeout=1m", "");
    assert!(!out.failed, "{}", out.text);
    assert!(out.text.contains("kubectl would keep watching it until it is, or for 1m and then say \"error: timed out waiting for the condition on pods/counter\""), "{}", out.text);
}

#[test]
fn get_raw_prints_the_answer_as_it_is() {
    let mut s = session();
    let from = s.log.len();
    let out = run(&mut s, "get --raw /api/v1/namespaces/default/configmaps?limit=1&labelSelector=a%3Db", "");
    assert!(!out.failed, "{}", out.text);
    // The query written again by key, as Go encodes url.Values.
    let e = s.log.last().unwrap();
    assert_eq!(requests_since(&s, from), ["GET /api/v1/namespaces/default/configmaps?labelSelector=a%3Db&limit=1 200"]);
    assert_eq!(e.request.header("Accept"), Some("application/json, */*"));
    assert_eq!(out.text.as_bytes(), &e.response.body[..]);
    assert_eq!(run(&mut s, "get --raw /healthz", "").text, "ok");
    // (kubectl 1.33's words, against `kubesim serve`.)
    for (line, text) in [
        ("get --raw /api/v1/namespaces/default/pods/nope", "Error from server (NotFound): pods \"nope\" not found\n"),
        ("get --raw api/v1", "error: --raw must be a valid URL path: parse \"api/v1\": invalid URI for request\n"),
        ("get pods --raw /api", "error: arguments may not be passed when --raw is specified\n"),
        (
            "get --raw /api -l a=b",
            "error: --raw may not be specified with other flags that filter the server request or alter the output\n",
        ),
        ("get --raw /api -o yaml", "error: --raw and --output are mutually exclusive\n"),
    ] {
        let out = run(&mut s, line, "");
        assert_eq!((out.text.as_str(), out.failed), (text, true), "{line}");
    }
    // A watch streams into a lane.
    let lanes = s.lanes.len();
    let out = run(&mut s, "get --raw /api/v1/namespaces/default/pods?watch=1", "");
    assert_eq!(out.text, "(watching: the events stream into a new watch lane)\n");
    assert_eq!(s.lanes.len(), lanes + 1);
}

#[test]
fn set_resources_patches_what_changed_as_kubectl_1_33_does() {
    let mut s = session();
    let from = s.log.len();
    let out = run(&mut s, "set resources deployment hello --limits=cpu=200m,memory=512Mi --requests=cpu=0.1", "");
    assert_eq!((out.text.as_str(), out.failed), ("deployment.apps/hello resource requirements updated\n", false));
    assert_eq!(
        requests_since(&s, from),
        [
            "GET /apis/apps/v1/namespaces/default/deployments/hello 200",
            "PATCH /apis/apps/v1/namespaces/default/deployments/hello?fieldManager=kubectl-set 200"
        ]
    );
    // (The body kubectl 1.33 sends, byte for byte, against `kubesim serve`.)
    let patch = s.log.iter().rev().find(|e| e.request.method == "PATCH" && e.source == Source::Kubectl).unwrap();
    assert_eq!(
        String::from_utf8_lossy(&patch.request.body),
        r#"{"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"nginx"}],"containers":[{"name":"nginx","resources":{"limits":{"cpu":"200m","memory":"512Mi"},"requests":{"cpu":"100m"}}}]}}}}"#
    );
    // Nothing changed: nothing sent after the read, nothing printed.
    let from = s.log.len();
    assert_eq!(run(&mut s, "set resources deployment hello --limits=cpu=200m", "").text, "");
    assert_eq!(requests_since(&s, from), ["GET /apis/apps/v1/namespaces/default/deployments/hello 200"]);
    for (line, text) in [
            ("set resources deployment hello", "error: you must specify an update to requests or limits (in the form of --requests/--limits)\n"),
            ("set resources deployment hello --limits=cpu", "error: Invalid argument syntax cpu, expected <resource>=<value>\n"),
            ("set resources deployment hello --limits=cpu=abc", "error: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'\n"),
            ("set resources deployment hello -c nope --limits=cpu=1", "error: unable to find container named nope\n"),
            ("set resources deployment hello --limits=cpu=100m --requests=cpu=150m", "error: failed to patch resources update to pod template Deployment.apps \"hello\" is invalid: spec.template.spec.containers[0].resources.requests: Invalid value: \"150m\": must be less than or equal to cpu limit of 100m\n"),
        ] {
            let out = run(&mut s, line, "");
            assert_eq!((out.text.as_str(), out.failed), (text, true), "{line}");
        }
    let out = run(&mut s, "set resources deploy/hello --requests=memory=64Mi --dry-run=server", "");
    assert_eq!(out.text, "deployment.apps/hello resource requirements updated (server dry run)\n");
}

#[test]
fn version_and_api_versions_as_kubectl_prints_them() {
    let mut s = session();
    let from = s.log.len();
    let out = run(&mut s, "version", "");
    assert_eq!(out.text, "Client Version: v1.33.0\nKustomize Version: v5.6.0\nServer Version: v1.33.0\n");
    assert_eq!(requests_since(&s, from), ["GET /version 200"]);
    let from = s.log.len();
    assert_eq!(run(&mut s, "version --client", "").text, "Client Version: v1.33.0\nKustomize Version: v5.6.0\n");
    assert!(requests_since(&s, from).is_empty());
    // As kubectl 1.33 lists them from `kubesim serve`'s discovery.
    let out = run(&mut s, "api-versions", "").text;
    assert_eq!(
            out,
            "apiextensions.k8s.io/v1\napps/v1\nauthentication.k8s.io/v1\nauthorization.k8s.io/v1\nautoscaling/v1\nautoscaling/v2\nbatch/v1\ncoordination.k8s.io/v1\ndiscovery.k8s.io/v1\nevents.k8s.io/v1\nflowcontrol.apiserver.k8s.io/v1\nnetworking.k8s.io/v1\npolicy/v1\nrbac.authorization.k8s.io/v1\nscheduling.k8s.io/v1\nstorage.k8s.io/v1\nv1\n"
        );
    // -o json|yaml: kubectl's documents, the server's as it answered.
    let json = run(&mut s, "version -o json", "").text;
    assert!(json.starts_with("{\n  \"clientVersion\": {\n    \"major\": \"1\",\n    \"minor\": \"33\",\n    \"gitVersion\": \"v1.33.0\",\n"), "{json}");
    assert!(json.ends_with("  \"kustomizeVersion\": \"v5.6.0\",\n  \"serverVersion\": {\n    \"major\": \"1\",\n    \"minor\": \"33\",\n    \"emulationMajor\": \"1\",\n    \"emulationMinor\": \"33\",\n    \"minCompatibilityMajor\": \"1\",\n    \"minCompatibilityMinor\": \"32\",\n    \"gitVersion\": \"v1.33.0\",\n    \"gitCommit\": \"kubesim\",\n    \"gitTreeState\": \"clean\",\n    \"buildDate\": \"2025-04-23T00:00:00Z\",\n    \"goVersion\": \"go1.24.2\",\n    \"compiler\": \"gc\",\n    \"platform\": \"linux/amd64\"\n  }\n}\n"), "{json}");
    let yaml = run(&mut s, "version --client -o yaml", "").text;
    assert!(yaml.starts_with("clientVersion:\n  buildDate: \"2025-04-23T00:00:00Z\"\n  compiler: gc\n"), "{yaml}");
    assert!(yaml.ends_with("  platform: js/wasm\nkustomizeVersion: v5.6.0\n\n"), "{yaml}");
    for o in ["name", "wide"] {
        let out = run(&mut s, &format!("version -o {o}"), "");
        assert_eq!((out.failed, out.text.as_str()), (true, "error: --output must be 'yaml' or 'json'\n"));
    }
}

/// `set env --from`: each key of the ConfigMap (or Secret) read once a
/// variable referring to it, named as kubectl names it (with its
/// warning), `--keys` choosing, `--prefix` on every variable set.
#[test]
fn set_env_from_a_configmap_refers_to_its_keys() {
    let mut s = session();
    assert!(!run(&mut s, "create deployment envf --image=nginx", "").failed);
    assert!(
        !run(
            &mut s,
            "create configmap settings --from-literal=level=debug --from-literal=log-level=x --from-literal=MODE=a",
            ""
        )
        .failed
    );
    let from = s.log.len();
    let out = run(&mut s, "set env deployment/envf --from=configmap/settings --prefix=APP_ EXTRA=1", "");
    assert_eq!(
            (out.text.as_str(), out.failed),
            (
                "Warning: key level transferred to LEVEL\nWarning: key log-level transferred to LOG_LEVEL\ndeployment.apps/envf env updated\n",
                false
            )
        );
    let reqs = requests_since(&s, from);
    assert_eq!(reqs[0], "GET /api/v1/namespaces/default/configmaps/settings 200", "the source read first: {reqs:?}");
    let e = s.log.iter().rev().find(|e| e.request.method == "PATCH" && e.source == Source::Kubectl).unwrap();
    assert_eq!(
        String::from_utf8_lossy(&e.request.body),
        r#"{"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"nginx"}],"containers":[{"env":[{"name":"APP_EXTRA","value":"1"},{"name":"APP_MODE","valueFrom":{"configMapKeyRef":{"key":"MODE","name":"settings"}}},{"name":"APP_LEVEL","valueFrom":{"configMapKeyRef":{"key":"level","name":"settings"}}},{"name":"APP_LOG_LEVEL","valueFrom":{"configMapKeyRef":{"key":"log-level","name":"settings"}}}],"name":"nginx"}]}}}}"#
    );
    assert!(!run(&mut s, "create secret generic db --from-literal=password=p", "").failed);
    assert!(!run(&mut s, "set env deployment/envf --from=secret/db --keys=password,none", "").failed);
    assert_eq!(
            run(&mut s, "set env deployment/envf --list", "").text,
            "# Deployment envf, container nginx\nAPP_EXTRA=1\n# APP_MODE from configmap settings, key MODE\n# APP_LEVEL from configmap settings, key level\n# APP_LOG_LEVEL from configmap settings, key log-level\n# PASSWORD from secret db, key password\n"
        );
    for (line, text) in [
        (
            "set env deployment/envf --keys=a",
            "error: when specifying --keys, a configmap or secret must be provided with --from\n",
        ),
        (
            "set env deployment/envf --from=configmap/nope",
            "Error from server (NotFound): configmaps \"nope\" not found\n",
        ),
        ("set env deployment/envf --from=deployment/envf", "error: unsupported resource specified in --from\n"),
    ] {
        let out = run(&mut s, line, "");
        assert_eq!((out.text.as_str(), out.failed), (text, true), "{line}");
    }
}

#[test]
fn set_env_patches_what_changed_as_kubectl_1_33_does() {
    let mut s = session();
    assert!(!run(&mut s, "create deployment envd --image=nginx", "").failed);
    let last_patch = |s: &Session| {
        let e = s.log.iter().rev().find(|e| e.request.method == "PATCH" && e.source == Source::Kubectl).unwrap();
        String::from_utf8_lossy(&e.request.body).into_owned()
    };
    // Each body as kubectl 1.33 sends it against `kubesim serve`.
    let steps = [
        (
            "set env deployment/envd FOO=bar",
            "deployment.apps/envd env updated\n",
            r#"{"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"nginx"}],"containers":[{"env":[{"name":"FOO","value":"bar"}],"name":"nginx"}]}}}}"#,
        ),
        (
            "set env deployment/envd BAZ=1 FOO=qux",
            "deployment.apps/envd env updated\n",
            r#"{"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"nginx"}],"containers":[{"$setElementOrder/env":[{"name":"FOO"},{"name":"BAZ"}],"env":[{"name":"FOO","value":"qux"},{"name":"BAZ","value":"1"}],"name":"nginx"}]}}}}"#,
        ),
        (
            "set env deployment/envd FOO-",
            "deployment.apps/envd env updated\n",
            r#"{"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"nginx"}],"containers":[{"$setElementOrder/env":[{"name":"BAZ"}],"env":[{"$patch":"delete","name":"FOO"}],"name":"nginx"}]}}}}"#,
        ),
        (
            "set env deployment/envd A=1 --overwrite=false",
            "deployment.apps/envd env updated\n",
            r#"{"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"nginx"}],"containers":[{"$setElementOrder/env":[{"name":"BAZ"},{"name":"A"}],"env":[{"name":"A","value":"1"}],"name":"nginx"}]}}}}"#,
        ),
    ];
    for (line, text, body) in steps {
        let out = run(&mut s, line, "");
        assert_eq!((out.text.as_str(), out.failed), (text, false), "{line}");
        assert_eq!(last_patch(&s), body, "{line}");
    }
    // Nothing to change: the read alone, nothing printed.
    for line in ["set env deployment/envd BAZ=1", "set env deployment/envd NOPE-"] {
        let from = s.log.len();
        assert_eq!(run(&mut s, line, "").text, "", "{line}");
        assert_eq!(requests_since(&s, from), ["GET /apis/apps/v1/namespaces/default/deployments/envd 200"]);
    }
    assert_eq!(
        run(&mut s, "set env deployment/envd --list", "").text,
        "# Deployment envd, container nginx\nBAZ=1\nA=1\n"
    );
    for (line, text) in [
            ("set env deployment/envd BAZ=2 --overwrite=false", "error: deployments/envd 'BAZ' already has a value (1), and --overwrite is false\n"),
            ("set env deployment/envd 1A=x", "error: \"1A\" is not a valid key name: a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit (e.g. 'my.env-name',  or 'MY_ENV.NAME',  or 'MyEnvName1', regex used for validation is '[-._a-zA-Z][-._a-zA-Z0-9]*')\n"),
        ] {
            let out = run(&mut s, line, "");
            assert_eq!((out.text.as_str(), out.failed), (text, true), "{line}");
        }
    assert_eq!(
        run(&mut s, "set env deployment/envd -c nope A=2", "").text,
        "Warning: Deployment/envd does not have any containers matching \"nope\"\n"
    );
    // The last variable removed: the list goes.
    run(&mut s, "set env deployment/envd BAZ- A-", "");
    assert_eq!(
        last_patch(&s),
        r#"{"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"nginx"}],"containers":[{"env":null,"name":"nginx"}]}}}}"#
    );
}

#[test]
fn get_of_several_empty_kinds_says_nothing_was_found() {
    let mut s = session();
    run(&mut s, "create ns empty", "");
    let out = run(&mut s, "get pods,svc -n empty", "");
    assert_eq!((out.text.as_str(), out.failed), ("No resources found in empty namespace.\n", false));
    assert_eq!(run(&mut s, "get pods,nodes -A -l nope=1", "").text, "No resources found\n");
}

#[test]
fn wide_shows_priority_one_columns_and_several_kinds_prefix_names() {
    let mut s = session();
    let made = run(
        &mut s,
        "create -f -",
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p1}\nspec: {containers: [{name: c, image: busybox}]}\n",
    );
    assert!(!made.failed, "{}", made.text);
    let narrow = run(&mut s, "get pods", "");
    assert!(
        narrow.text.lines().next().unwrap().split_whitespace().eq(["NAME", "READY", "STATUS", "RESTARTS", "AGE"]),
        "{}",
        narrow.text
    );
    let wide = run(&mut s, "get pods -o wide", "");
    assert!(
        wide.text.starts_with("NAME ") && wide.text.contains("NOMINATED NODE") && wide.text.contains("READINESS GATES"),
        "{}",
        wide.text
    );
    let both = run(&mut s, "get pods,cm", "");
    assert!(both.text.contains("pod/p1") && both.text.contains("configmap/kube-root-ca.crt"), "{}", both.text);
}

#[test]
fn create_apply_label_annotate_replace_delete_round() {
    let mut s = session();
    let file = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: demo\n  finalizers: [a/b]\ndata:\n  k: v\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: demo2\n";
    let from = s.log.len();
    let out = run(&mut s, "create -f -", file);
    assert_eq!(out.text, "configmap/demo created\nconfigmap/demo2 created\n");
    assert_eq!(
        requests_since(&s, from),
        vec![
            "POST /api/v1/namespaces/default/configmaps?fieldManager=kubectl-create&fieldValidation=Strict 201",
            "POST /api/v1/namespaces/default/configmaps?fieldManager=kubectl-create&fieldValidation=Strict 201"
        ]
    );
    assert!(run(&mut s, "create -f -", file)
        .text
        .contains("Error from server (AlreadyExists): configmaps \"demo\" already exists"));
    let out = run(&mut s, "apply -f -", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\n");
    assert_eq!(out.text, "configmap/applied created\n");
    let live = body_json(
        &s.request(Source::Console, Request::new("GET", "/api/v1/namespaces/default/configmaps/applied")).response,
    );
    assert!(live.pointer("/metadata/annotations").unwrap().get(LAST_APPLIED).is_some());

    assert_eq!(run(&mut s, "label cm demo tier=web", "").text, "configmap/demo labeled\n");
    assert!(run(&mut s, "label cm demo tier=db", "")
        .text
        .contains("'tier' already has a value (web), and --overwrite is false"));
    assert_eq!(run(&mut s, "annotate configmap demo note='hello world'", "").text, "configmap/demo annotated\n");
    let out = run(&mut s, "get cm demo -o json", "");
    let v: Value = serde_json::from_str(&out.text).unwrap();
    assert_eq!((v["kind"].as_str(), v["metadata"]["labels"]["tier"].as_str()), (Some("ConfigMap"), Some("web")));
    assert_eq!(v["metadata"]["annotations"]["note"], "hello world");
    assert_eq!(run(&mut s, "get cm demo demo2 -o name", "").text, "configmap/demo\nconfigmap/demo2\n");
    assert_eq!(run(&mut s, "get cm demo -o jsonpath='{.metadata.labels.tier}'", "").text, "web");
    let each = r#"get cm demo demo2 -o jsonpath='{range .items[*]}{.metadata.name}{"\n"}{end}'"#;
    assert_eq!(run(&mut s, each, "").text, "demo\ndemo2\n");
    assert!(run(&mut s, "get cm demo -o jsonpath", "")
        .text
        .contains("template format specified but no template given"));

    let out = run(&mut s, "replace -f -", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: demo2\ndata:\n  x: y\n");
    assert_eq!(out.text, "configmap/demo2 replaced\n");

    let from = s.log.len();
    // demo has a finalizer: kubectl would wait; the page says so.
    let deleted = run(&mut s, "delete cm demo", "");
    assert_eq!(deleted.text, "configmap \"demo\" deleted\n");
    assert_eq!(deleted.differs, Some(differs::WAITS));
    let gone = run(&mut s, "delete cm demo2", "");
    assert_eq!((gone.text.as_str(), gone.differs), ("configmap \"demo2\" deleted\n", None));
    let del = s.log[from..].iter().find(|e| e.request.method == "DELETE").unwrap();
    assert_eq!(
        String::from_utf8_lossy(&del.request.body),
        r#"{"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":"Background"}"#
    );
    // The finalizer keeps it: terminating, not gone.
    let v: Value = serde_json::from_str(&run(&mut s, "get cm demo -o json", "").text).unwrap();
    assert!(v["metadata"]["deletionTimestamp"].is_string());
    assert!(run(&mut s, "delete cm nope", "")
        .text
        .contains("Error from server (NotFound): configmaps \"nope\" not found"));
}

#[test]
fn auth_can_i_and_whoami_ask_the_server() {
    let mut s = session();
    assert_eq!(run(&mut s, "auth can-i create deployments.apps", "").text, "yes\n");
    s.acting_as = crate::session::ActingAs::parse("alice", "devs");
    let out = run(&mut s, "kubectl auth can-i get pods -n kube-system", "");
    assert_eq!((out.text.as_str(), out.failed), ("no\n", true));
    let out = run(&mut s, "auth whoami", "");
    assert!(out.text.starts_with("ATTRIBUTE   VALUE\n"), "{}", out.text);
    assert!(out.text.contains("Username    alice\n"), "{}", out.text);
    assert!(out.text.contains("Groups      [devs system:authenticated]\n"), "{}", out.text);
    // The page's requests went out as alice.
    let review = s.log.iter().rev().find(|e| e.request.path.ends_with("selfsubjectreviews")).unwrap();
    assert_eq!(review.request.header("Impersonate-User"), Some("alice"));
    assert!(run(&mut s, "auth can-i --list", "").text.starts_with("Resources "));
    assert!(run(&mut s, "auth frobnicate", "").text.contains("knows auth can-i and auth whoami"));
}

#[test]
fn a_missing_named_object_prints_only_its_error() {
    let mut s = session();
    let not_found = "Error from server (NotFound): configmaps \"nosuch\" not found";
    for line in ["get cm nosuch", "get cm nosuch -o yaml", "get cm nosuch -o json"] {
        let out = run(&mut s, line, "");
        let all = out.text.clone();
        assert!(all.contains(not_found), "{line}: {all}");
        assert!(
            !all.contains("No resources found") && !all.contains("kind: List") && !all.contains("\"List\""),
            "{line}: {all}"
        );
    }
    // A list that finds nothing still says so.
    assert!(run(&mut s, "get cm -l none=here", "").text.starts_with("No resources found in default namespace."));
}

#[test]
fn get_watch_asks_for_a_lane_from_the_lists_resource_version() {
    let mut s = session();
    let out = run(&mut s, "get cm -w -l app=x", "");
    let (path, query) = out.watch.unwrap();
    assert_eq!(path, "/api/v1/namespaces/default/configmaps");
    let rv = s.server.revision().to_string();
    assert_eq!(query, format!("labelSelector=app%3Dx&resourceVersion={rv}"));
    assert!(out.text.starts_with("No resources found in default namespace."), "{}", out.text);
}

#[test]
fn apply_of_an_existing_object_sends_a_strategic_merge_patch() {
    let mut s = session();
    let doc = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: v\n  gone: x\n";
    run(&mut s, "apply -f -", doc);
    assert_eq!(run(&mut s, "apply -f -", doc).text, "configmap/a unchanged\n");
    let from = s.log.len();
    run(&mut s, "apply -f -", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: w\n");
    let patch = s.log[from..].iter().find(|e| e.request.method == "PATCH").unwrap();
    assert_eq!(patch.request.header("Content-Type"), Some("application/strategic-merge-patch+json"));
    let body: Value = serde_json::from_slice(&patch.request.body).unwrap();
    assert_eq!(body["data"], json!({"k": "w", "gone": null}));
}

#[test]
fn server_dry_run_sends_dry_run_all_and_changes_nothing() {
    let mut s = session();
    let before = s.server.revision();
    let from = s.log.len();
    let out = run(&mut s, "create -f - --dry-run=server", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: d\n");
    assert_eq!(out.text, "configmap/d created (server dry run)\n");
    assert_eq!(
        run(&mut s, "delete cm kube-root-ca.crt --dry-run=server", "").text,
        "configmap \"kube-root-ca.crt\" deleted (server dry run)\n"
    );
    assert_eq!(
        run(&mut s, "label cm kube-root-ca.crt a=b --dry-run=server", "").text,
        "configmap/kube-root-ca.crt labeled (server dry run)\n"
    );
    assert_eq!(s.server.revision(), before);
    let writes: Vec<&str> =
        s.log[from..].iter().filter(|e| e.request.method != "GET").map(|e| e.request.query.as_str()).collect();
    assert_eq!(writes.len(), 3);
    // Creates and patches say so in the query; a delete in its body.
    assert_eq!(writes.iter().filter(|q| q.ends_with("dryRun=All")).count(), 2, "{writes:?}");
    let delete = s.log[from..].iter().find(|e| e.request.method == "DELETE").unwrap();
    let options: Value = serde_json::from_slice(&delete.request.body).unwrap();
    assert_eq!(options["dryRun"], json!(["All"]));
    assert!(parse("get pods --dry-run=client").unwrap_err().contains("use --dry-run=server"));
    assert!(parse("delete cm x --dry-run").unwrap_err().contains("Invalid dry-run value ()"));
}

#[test]
fn server_warnings_are_printed_first_as_kubectl_does() {
    assert_eq!(warning_text(r#"299 - "unknown field \"dta\"""#).as_deref(), Some(r#"unknown field "dta""#));
    assert_eq!(warning_text("199 - \"x\""), None);
    let mut s = session();
    // kubectl asks for Strict; a Warn-level request shows the warning.
    let out = run(&mut s, "create -f -", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: w\ndta: {}\n");
    assert!(out.text.contains(r#"strict decoding error: unknown field "dta""#), "{}", out.text);
    let e = s.request(
        Source::Console,
        Request::new("POST", "/api/v1/namespaces/default/configmaps?fieldValidation=Warn")
            .with_body(r#"{"metadata":{"name":"w"},"dta":1}"#),
    );
    assert_eq!(e.response.status, 201);
    let out = run(&mut s, "label cm w a=b", "");
    assert_eq!(out.text, "configmap/w labeled\n");
    let out =
        run(&mut s, "create -f - --validate=warn", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: w2\ndta: {}\n");
    assert_eq!(out.text, "Warning: unknown field \"dta\"\nconfigmap/w2 created\n");
    assert!(parse("create -f - --validate=loud").is_err());
}

#[test]
fn server_side_apply_conflicts_show_the_three_ways_out() {
    let mut s = session();
    let cm = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ssa\ndata:\n  k: one\n";
    assert_eq!(run(&mut s, "apply -f -", cm).text, "configmap/ssa created\n");
    let two = cm.replace("k: one", "k: two");
    let out = run(&mut s, "apply --server-side -f -", &two);
    assert!(out.failed);
    assert!(
        out.text.starts_with(
            r#"error: Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using v1: .data.k"#
        ),
        "{}",
        out.text
    );
    assert!(out.text.contains("--force-conflicts") && out.text.contains("co-own fields"));
    assert_eq!(
        run(&mut s, "apply --server-side --force-conflicts -f -", &two).text,
        "configmap/ssa serverside-applied\n"
    );
    let yaml = run(&mut s, "get cm ssa -o yaml", "").text;
    assert!(yaml.contains("k: two") && !yaml.contains("managedFields"), "{yaml}");
    assert!(run(&mut s, "get cm ssa -o yaml --show-managed-fields", "").text.contains("operation: Apply"));
}

#[test]
fn errors_for_unknown_types_and_bad_files() {
    let mut s = session();
    assert!(run(&mut s, "get flurbs", "").text.contains("the server doesn't have a resource type \"flurbs\""));
    assert!(run(&mut s, "create -f -", "kind: Nope\napiVersion: v9\n").text.contains("resource mapping not found"));
    assert!(run(&mut s, "create -f -", "a: [").failed);
    assert!(run(&mut s, "create -f x.yaml", "").text.contains("only -f -"));
}

/// `delete -l`: the collection listed with the selector, each item
/// deleted by name, printed with its kind's group as kubectl prints it.
#[test]
fn delete_by_label_lists_then_deletes_each_match() {
    let mut s = Session::new(1);
    run(&mut s, "create deployment web --image=nginx", "");
    run(&mut s, "create configmap a --from-literal=k=v", "");
    run(&mut s, "label configmap a app=web", "");
    let from = s.log.len();
    let out = run(&mut s, "delete deployments,configmaps -l app=web", "");
    assert_eq!(out.text, "deployment.apps \"web\" deleted\nconfigmap \"a\" deleted\n");
    let sent: Vec<String> = s.log[from..]
        .iter()
        .filter(|e| e.source == Source::Kubectl)
        .filter(|e| e.request.query.contains("labelSelector") || e.request.method == "DELETE")
        .map(|e| format!("{} {}", e.request.method, e.url()))
        .collect();
    assert_eq!(
        sent,
        [
            "GET /apis/apps/v1/namespaces/default/deployments?labelSelector=app%3Dweb",
            "DELETE /apis/apps/v1/namespaces/default/deployments/web",
            "GET /api/v1/namespaces/default/configmaps?labelSelector=app%3Dweb",
            "DELETE /api/v1/namespaces/default/configmaps/a",
        ]
    );
    assert_eq!(run(&mut s, "delete configmaps -l app=none", "").text, "No resources found\n");
    let both = run(&mut s, "delete configmaps a -l app=web", "");
    assert_eq!(both.text, "error: name cannot be provided when a selector is specified\n");
}

/// `set serviceaccount` and `set subject` as kubectl 1.33 sends and
/// prints them.
#[test]
fn set_serviceaccount_and_subject_patch_as_kubectl_does() {
    let mut s = session();
    run(&mut s, "create deployment sa-demo --image=nginx", "");
    let from = s.log.len();
    assert_eq!(
        run(&mut s, "set serviceaccount deployment sa-demo default", "").text,
        "deployment.apps/sa-demo serviceaccount updated\n"
    );
    assert_eq!(super::tests::sent(&s), r#"{"spec":{"template":{"spec":{"serviceAccountName":"default"}}}}"#);
    assert_eq!(
        requests_since(&s, from),
        [
            "GET /apis/apps/v1/namespaces/default/deployments/sa-demo 200",
            "PATCH /apis/apps/v1/namespaces/default/deployments/sa-demo?fieldManager=kubectl-set 200"
        ]
    );
    assert_eq!(
        run(&mut s, "set sa deploy/sa-demo x --dry-run=server", "").text,
        "deployment.apps/sa-demo serviceaccount updated (server dry run)\n"
    );
    run(&mut s, "create rolebinding rb-demo --clusterrole=view --user=bob", "");
    assert_eq!(
        run(&mut s, "set subject rolebinding rb-demo --user=alice --serviceaccount=default:builder", "").text,
        "rolebinding.rbac.authorization.k8s.io/rb-demo subjects updated\n"
    );
    assert_eq!(
        super::tests::sent(&s),
        r#"{"subjects":[{"apiGroup":"rbac.authorization.k8s.io","kind":"User","name":"bob"},{"apiGroup":"rbac.authorization.k8s.io","kind":"User","name":"alice"},{"kind":"ServiceAccount","name":"builder","namespace":"default"}]}"#
    );
    let from = s.log.len();
    assert_eq!(run(&mut s, "set subject rolebinding rb-demo --user=alice", "").text, "", "nothing to add");
    assert!(!requests_since(&s, from).iter().any(|r| r.starts_with("PATCH")));
    for (line, error) in [
            ("set sa deploy/sa-demo Bad_Name", "error: failed to patch ServiceAccountName Deployment.apps \"sa-demo\" is invalid: spec.template.spec.serviceAccountName: Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"),
            ("set sa deploy/sa-demo", "error: You must provide one or more resources by argument or filename.\nExample resource specifications include:\n   '-f rsrc.yaml'\n   '--filename=rsrc.json'\n   '<resource> <name>'\n   '<resource>'"),
            ("set subject rolebinding rb-demo", "error: you must specify at least one value of user, group or serviceaccount"),
            ("set subject rolebinding rb-demo --serviceaccount=builder", "error: serviceaccount must be <namespace>:<name>"),
            ("set subject deploy coredns -n kube-system --user=x", "error: deployments/coredns setting subjects is only supported for RoleBinding/ClusterRoleBinding"),
        ] {
            let o = run(&mut s, line, "");
            assert_eq!((o.failed, o.text), (true, format!("{error}\n")), "{line}");
        }
}

/// `-o go-template=` (and `template=`): what kubectl 1.33 printed for
/// the same commands against `kubesim serve`.
#[test]
fn go_templates_print_what_kubectl_prints() {
    let mut s = session();
    run(&mut s, "create configmap g1 --from-literal=a=b", "");
    run(&mut s, "create configmap g2", "");
    run(&mut s, "create secret generic s1 --from-literal=password=hunter2", "");
    for (line, want) in [
            ("get cm g1 g2 -o go-template='{{range .items}}{{.metadata.name}}:{{.data.a}} {{end}}'", "g1:b g2:<no value> "),
            ("get cm g1 -o template='{{.data}}'", "map[a:b]"),
            ("get secret s1 -o go-template='{{.data.password | base64decode}}'", "hunter2"),
            ("get cm g1 -o go-template='{{index .data \"a\"}} {{index .data \"zz\"}} {{len .data}}'", "b <no value> 1"),
            ("get ns default -o go-template='{{.metadata.labels}}'", "map[kubernetes.io/metadata.name:default]"),
            ("get cm g1 -o go-template='{{printf \"%s-%d\" .metadata.name 3}} {{print 1 2 \"a\" \"b\"}}'", "g1-3 1 2ab"),
            ("get cm g1 -o go-template='{{exists . \"data\" \"a\"}} {{exists . \"data\" \"q\"}}'", "true false"),
            // Templates see the managed fields (kubectl drops them from JSON and YAML only).
            ("get cm g1 -o go-template='{{range .metadata.managedFields}}{{.manager}}{{end}}'", "kubectl-create"),
            ("get cm g1 -o jsonpath='{.metadata.managedFields[0].manager}'", "kubectl-create"),
            ("get cm -o go-template='{{range .items}}{{if eq .metadata.name \"g1\"}}one{{else if eq .metadata.name \"g2\"}}two{{else}}-{{end}}{{end}}'", "onetwo-"),
            ("get cm g1 -o go-template='{{ .metadata.name | printf \"%q\" }} {{- \" x \" -}} y'", "\"g1\" x y"),
        ] {
            let out = run(&mut s, line, "");
            assert_eq!((out.failed, out.text.as_str()), (false, want), "{line}");
        }
    for (line, want) in [
        (
            "get cm g1 -o go-template='{{.data'",
            "error: error parsing template {{.data, template: output:1: unclosed action\n",
        ),
        (
            "get cm g1 -o go-template='{{nope .}}'",
            "error: error parsing template {{nope .}}, template: output:1: function \"nope\" not defined\n",
        ),
        (
            "get cm g1 -o go-template='{{end}}'",
            "error: error parsing template {{end}}, template: output:1: unexpected {{end}}\n",
        ),
        (
            "get cm g1 -o go-template='{{if .data}}x'",
            "error: error parsing template {{if .data}}x, template: output:1: unexpected EOF\n",
        ),
        ("get cm g1 -o go-template", "error: template format specified but no template given\n"),
    ] {
        let out = run(&mut s, line, "");
        assert_eq!((out.failed, out.text.as_str()), (true, want), "{line}");
    }
    // A template that fails while running: kubectl's debugging lines,
    // then its error.
    let out = run(&mut s, "get cm g1 -o go-template='{{.data.a.b}}'", "");
    assert!(out.failed);
    assert!(out.text.starts_with("Error executing template: template: output:1:7: executing \"output\" at <.data.a.b>: can't evaluate field b in type interface {}. Printing more information for debugging the template:\n\ttemplate was:\n\t\t{{.data.a.b}}\n\traw data was:\n\t\t{\"apiVersion\":\"v1\",\"data\":{\"a\":\"b\"},\"kind\":\"ConfigMap\",\"metadata\":{\"creationTimestamp\":"), "{}", out.text);
    assert!(out.text.contains("\tobject given to template engine was:\n\t\tmap[apiVersion:v1 data:map[a:b] kind:ConfigMap metadata:map[creationTimestamp:"), "{}", out.text);
    assert!(out.text.ends_with("]]\n\nerror: error executing template \"{{.data.a.b}}\": template: output:1:7: executing \"output\" at <.data.a.b>: can't evaluate field b in type interface {}\n"), "{}", out.text);
    let out = run(&mut s, "get cm g1 -o go-template='{{\"YQ\" | base64decode}}'", "");
    assert!(out.text.ends_with("error: error executing template \"{{\\\"YQ\\\" | base64decode}}\": template: output:1:9: executing \"output\" at <base64decode>: error calling base64decode: base64 decode failed: illegal base64 data at input byte 0\n"), "{}", out.text);
}

/// `delete --all`: the collection listed without a selector, then each
/// item deleted, as kubectl 1.33 does; its refusals in its words.
#[test]
fn delete_all_lists_then_deletes_everything_of_the_type() {
    let mut s = Session::new(1);
    run(&mut s, "create configmap d1 -n kube-public", "");
    run(&mut s, "create configmap d2 -n kube-public", "");
    let from = s.log.len();
    let out = run(&mut s, "delete cm --all -n kube-public", "");
    assert_eq!(
        out.text,
        "configmap \"d1\" deleted\nconfigmap \"d2\" deleted\nconfigmap \"kube-root-ca.crt\" deleted\n"
    );
    assert_eq!(
        requests_since(&s, from)[..2],
        [
            "GET /api/v1/namespaces/kube-public/configmaps 200",
            "DELETE /api/v1/namespaces/kube-public/configmaps/d1 200"
        ]
    );
    for (line, error) in [
        ("delete cm x --all", "error: name cannot be provided when a selector is specified"),
        ("delete cm --all -l a=b", "error: setting 'all' parameter but found a non empty selector. "),
        ("delete --all", "error: at least one resource must be specified to use a selector"),
    ] {
        let o = run(&mut s, line, "");
        assert_eq!((o.failed, o.text), (true, format!("{error}\n")), "{line}");
    }
}

#[test]
fn columns_align_like_tabwriter() {
    let rows = vec![vec!["NAME".into(), "AGE".into()], vec!["kubernetes".into(), "5s".into()]];
    assert_eq!(columns(&rows), "NAME         AGE\nkubernetes   5s\n");
}
