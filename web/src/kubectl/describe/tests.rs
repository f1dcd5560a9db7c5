//! `kubectl describe`'s output for each kind, against kubectl's own.

use super::*;
use crate::kubectl::run;

/// The requests one command sent (method, path, status).
fn sent(s: &Session, from: usize) -> Vec<String> {
    s.log[from..].iter().map(|e| format!("{} {} {}", e.request.method, e.url(), e.response.status)).collect()
}

#[test]
fn describe_node_prints_what_kubectl_prints_from_the_requests_it_sends() {
    let mut s = Session::new(7);
    let file = "apiVersion: v1\nkind: Pod\nmetadata: {name: big}\nspec:\n  nodeName: worker-1\n  containers:\n  - name: c\n    image: nginx\n    resources:\n      requests: {cpu: 250m, memory: 64Mi}\n      limits: {cpu: \"1\", memory: 128Mi}\n";
    for (c, f) in [
        ("apply -f -", file),
        ("taint node worker-1 zone:PreferNoSchedule", ""),
        ("taint node worker-1 dedicated=web:NoSchedule", ""),
        ("cordon worker-1", ""),
        ("label node worker-1 node-role.kubernetes.io/worker=", ""),
    ] {
        let out = run(&mut s, c, f);
        assert!(!out.failed, "{c}: {}", out.text);
    }
    let from = s.log.len();
    let out = run(&mut s, "describe node worker-1", "");
    assert!(!out.failed, "{}", out.text);
    let reqs = sent(&s, from);
    let uid = text(&body_json(&s.log[from + 2].response), "/metadata/uid").to_string();
    assert_eq!(reqs[2..], [
            "GET /api/v1/nodes/worker-1 200".to_string(),
            "GET /api/v1/nodes/worker-1 200".to_string(),
            "GET /api/v1/pods?fieldSelector=spec.nodeName%3Dworker-1%2Cstatus.phase%21%3DSucceeded%2Cstatus.phase%21%3DFailed&limit=500 200".to_string(),
            format!("GET /api/v1/events?fieldSelector=involvedObject.name%3Dworker-1%2CinvolvedObject.namespace%3D%2CinvolvedObject.kind%3DNode%2CinvolvedObject.uid%3D{uid}&limit=500 200"),
            "GET /api/v1/events?fieldSelector=involvedObject.name%3Dworker-1%2CinvolvedObject.namespace%3D%2CinvolvedObject.kind%3DNode%2CinvolvedObject.uid%3Dworker-1&limit=500 200".to_string(),
            "GET /apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/worker-1 200".to_string(),
        ]);
    // The starter pods the scheduler put on worker-1, as listed.
    let on_node: Vec<String> = items(&body_json(&s.log[from + 4].response), "/items")
        .iter()
        .map(|p| format!("{}/{}", text(p, "/metadata/namespace"), text(p, "/metadata/name")))
        .collect();
    assert_eq!(on_node.len(), 3, "{on_node:?}");
    let row = |i: usize| {
        let (ns, name) = on_node[i].split_once('/').unwrap();
        if name == "big" {
            format!("  {ns:<28}{name:<28}250m (6%)     1 (25%)     64Mi (0%)        128Mi (0%)     0s")
        } else {
            format!("  {ns:<28}{name:<28}0 (0%)        0 (0%)      0 (0%)           0 (0%)         0s")
        }
    };
    // As kubectl 1.33 prints the same node and pods served by `kubesim
    // serve` (its times and the pods' generated names aside).
    let t = "Tue, 14 Nov 2023 22:13:20 +0000";
    let expected = format!("Name:               worker-1
Roles:              worker
Labels:             kubernetes.io/arch=amd64
                    kubernetes.io/hostname=worker-1
                    kubernetes.io/os=linux
                    node-role.kubernetes.io/worker=
Annotations:        <none>
CreationTimestamp:  {t}
Taints:             dedicated=web:NoSchedule
                    zone:PreferNoSchedule
Unschedulable:      true
Lease:
  HolderIdentity:  worker-1
  AcquireTime:     <unset>
  RenewTime:       {t}
Conditions:
  Type             Status  LastHeartbeatTime                 LastTransitionTime                Reason                       Message
  ----             ------  -----------------                 ------------------                ------                       -------
  MemoryPressure   False   {t}   {t}   KubeletHasSufficientMemory   kubelet has sufficient memory available
  DiskPressure     False   {t}   {t}   KubeletHasNoDiskPressure     kubelet has no disk pressure
  PIDPressure      False   {t}   {t}   KubeletHasSufficientPID      kubelet has sufficient PID available
  Ready            True    {t}   {t}   KubeletReady                 kubelet is posting ready status
Addresses:
  InternalIP:  172.18.0.3
  Hostname:    worker-1
Capacity:
  cpu:     4
  memory:  16Gi
  pods:    110
Allocatable:
  cpu:     4
  memory:  15Gi
  pods:    110
System Info:
  Machine ID:                 
  System UUID:                
  Boot ID:                    
  Kernel Version:             6.1.0-kubesim
  OS Image:                   Debian GNU/Linux 12 (bookworm)
  Operating System:           linux
  Architecture:               amd64
  Container Runtime Version:  containerd://2.0.0
  Kubelet Version:            v1.33.0
  Kube-Proxy Version:         
PodCIDR:                      10.244.1.0/24
PodCIDRs:                     10.244.1.0/24
Non-terminated Pods:          (3 in total)
  Namespace                   Name                        CPU Requests  CPU Limits  Memory Requests  Memory Limits  Age
  ---------                   ----                        ------------  ----------  ---------------  -------------  ---
{}
{}
{}
Allocated resources:
  (Total limits may be over 100 percent, i.e., overcommitted.)
  Resource           Requests   Limits
  --------           --------   ------
  cpu                250m (6%)  1 (25%)
  memory             64Mi (0%)  128Mi (0%)
  ephemeral-storage  0 (0%)     0 (0%)
Events:              <none>
", row(0), row(1), row(2));
    assert_eq!(out.text, expected);
    // Someone who may read nodes and nothing else (kubectl 1.33 as
    // `nodey` against `kubesim serve --authorization-mode RBAC`).
    assert!(!run(&mut s, "create clusterrole node-reader --verb=get --resource=nodes", "").failed);
    assert!(!run(&mut s, "create clusterrolebinding nodey --clusterrole=node-reader --user=nodey", "").failed);
    let out = run(&mut s, "describe node worker-1 --as=nodey", "");
    assert!(!out.failed, "{}", out.text);
    assert!(out.text.contains("\nLease:              Failed to get lease: leases.coordination.k8s.io \"worker-1\" is forbidden: User \"nodey\" cannot get resource \"leases\" in API group \"coordination.k8s.io\" in the namespace \"kube-node-lease\"\nConditions:\n"), "{}", out.text);
    assert!(out.text.ends_with("\nPodCIDRs:                     10.244.1.0/24\nPods:                         not authorized\nEvents:                       <none>\n"), "{}", out.text);
}

#[test]
fn describe_pod_prints_what_kubectl_prints_from_the_requests_it_sends() {
    let mut s = Session::new(7);
    let from = s.log.len();
    let out = run(&mut s, "describe pod counter", "");
    assert!(!out.failed, "{}", out.text);
    let reqs = sent(&s, from);
    assert_eq!(reqs[reqs.len() - 3..], [
            "GET /api/v1/namespaces/default/pods/counter 200".to_string(),
            "GET /api/v1/namespaces/default/pods/counter 200".to_string(),
            format!("GET /api/v1/namespaces/default/events?fieldSelector=involvedObject.name%3Dcounter%2CinvolvedObject.namespace%3Ddefault%2CinvolvedObject.uid%3D{}&limit=500 200",
                text(&body_json(&s.log[s.log.len() - 2].response), "/metadata/uid")),
        ]);
    // Laid out as kubectl 1.33 lays out the same pod served by
    // `kubesim serve` (times, IDs and the container's ID aside).
    let container_id = out.text.lines().find_map(|l| l.strip_prefix("    Container ID:  ")).unwrap().to_string();
    let expected = "Name:             counter
Namespace:        default
Priority:         0
Service Account:  default
Node:             worker-2/172.18.0.4
Start Time:       Tue, 14 Nov 2023 22:13:20 +0000
Labels:           <none>
Annotations:      <none>
Status:           Running
IP:               10.244.2.3
IPs:
  IP:  10.244.2.3
Containers:
  count:
    Container ID:  CID
    Image:         busybox:1.28
    Image ID:      docker.io/library/busybox@sha256:848f2f374fae1b29f6262e11e338f2fa7d14e7d512a04e5ac2522f3c8d5d482d
    Port:          <none>
    Host Port:     <none>
    Args:
      /bin/sh
      -c
      i=0; while true; do echo \"$i: $(date)\"; i=$((i+1)); sleep 1; done
    State:          Running
      Started:      Tue, 14 Nov 2023 22:13:20 +0000
    Ready:          True
    Restart Count:  0
    Environment:    <none>
    Mounts:
      /var/run/secrets/kubernetes.io/serviceaccount from VOLUME (ro)
Conditions:
  Type                        Status
  PodReadyToStartContainers   True 
  Initialized                 True 
  Ready                       True 
  ContainersReady             True 
  PodScheduled                True 
Volumes:
  VOLUME:
    Type:                    Projected (a volume that contains injected data from multiple sources)
    TokenExpirationSeconds:  3607
    ConfigMapName:           kube-root-ca.crt
    Optional:                false
    DownwardAPI:             true
QoS Class:                   BestEffort
Node-Selectors:              <none>
Tolerations:                 node.kubernetes.io/not-ready:NoExecute op=Exists for 300s
                             node.kubernetes.io/unreachable:NoExecute op=Exists for 300s
Events:
  Type    Reason     Age   From               Message
  ----    ------     ----  ----               -------
  Normal  Scheduled  0s    default-scheduler  Successfully assigned default/counter to worker-2
  Normal  Pulled     0s    kubelet            Container image \"busybox:1.28\" already present on machine
  Normal  Created    0s    kubelet            Created container: count
  Normal  Started    0s    kubelet            Started container count
";
    let volume =
        out.text.lines().find_map(|l| l.trim().strip_suffix(":").filter(|v| v.starts_with("kube-api-access-")));
    let expected = expected.replace("CID", &container_id).replace("VOLUME", volume.unwrap());
    assert_eq!(out.text, expected);
}

#[test]
fn describe_pod_shows_ephemeral_containers_as_kubectl_does() {
    let mut s = Session::new(7);
    let patch = br#"{"spec":{"ephemeralContainers":[{"image":"busybox","name":"debugger-6x54g","resources":{},"targetContainerName":"count","terminationMessagePolicy":"File"}]}}"#;
    let req = kubesim::server::Request::new("PATCH", "/api/v1/namespaces/default/pods/counter/ephemeralcontainers")
        .with_header("Content-Type", "application/strategic-merge-patch+json")
        .with_body(patch.to_vec());
    assert_eq!(s.request(crate::session::Source::Console, req).response.status, 200);
    s.settle();
    let out = run(&mut s, "describe pod counter", "");
    let block: Vec<&str> = out
        .text
        .lines()
        .skip_while(|l| *l != "Ephemeral Containers:")
        .take_while(|l| *l != "Conditions:")
        .map(|l| {
            if l.contains("Container ID:")
                || l.contains("Image ID:")
                || l.contains("Started:")
                || l.contains("Finished:")
            {
                l.split(':').next().unwrap()
            } else {
                l
            }
        })
        .collect();
    // As kubectl 1.33 prints `kubectl debug counter --image=busybox`'s
    // container on `kubesim serve` (IDs and times aside).
    assert_eq!(
        block.join("\n"),
        "Ephemeral Containers:
  debugger-6x54g:
    Container ID
    Image:          busybox
    Image ID
    Port:           <none>
    Host Port:      <none>
    State:          Terminated
      Reason:       Completed
      Exit Code:    0
      Started
      Finished
    Ready:          False
    Restart Count:  0
    Environment:    <none>
    Mounts:         <none>"
    );
}

#[test]
fn describe_deployment_and_configmap_and_a_missing_pod() {
    let mut s = Session::new(7);
    let out = run(&mut s, "describe deployment/hello", "");
    assert!(!out.failed, "{}", out.text);
    for line in [
            "Replicas:               2 desired | 2 updated | 2 total | 2 available | 0 unavailable\n",
            "RollingUpdateStrategy:  25% max unavailable, 25% max surge\nPod Template:\n  Labels:  app=hello\n  Containers:\n   nginx:\n    Image:         nginx:1.27\n    Port:          80/TCP\n    Host Port:     0/TCP\n",
            "Conditions:\n  Type           Status  Reason\n  ----           ------  ------\n  Available      True    MinimumReplicasAvailable\n",
            "OldReplicaSets:  <none>\nNewReplicaSet:   hello-",
            "Normal  ScalingReplicaSet  0s    deployment-controller  Scaled up replica set hello-",
        ] {
            assert!(out.text.contains(line), "{line}\n---\n{}", out.text);
        }
    let cm = run(&mut s, "describe cm kube-root-ca.crt -n kube-public", "");
    assert_eq!(
            cm.text,
            "Name:         kube-root-ca.crt\nNamespace:    kube-public\nLabels:       <none>\nAnnotations:  kubernetes.io/description:\n                Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubern...\n\nData\n====\nca.crt:\n----\n-----BEGIN CERTIFICATE-----\n(simulated)\n-----END CERTIFICATE-----\n\n\n\nBinaryData\n====\n\nEvents:  <none>\n"
        );
    assert!(run(&mut s, "describe pod nosuch", "")
        .text
        .contains("Error from server (NotFound): pods \"nosuch\" not found"));
}

/// As kubectl 1.33 printed a pod whose environment reads a Secret that
/// is not there (the kubelet's `CreateContainerConfigError`): the
/// sources `envFrom` reads and the variables' references.
#[test]
fn a_pod_waiting_for_its_config_as_kubectl_describes_it() {
    let mut s = Session::new(7);
    let yaml = "apiVersion: v1\nkind: Pod\nmetadata: {name: cfg2}\nspec:\n  containers:\n  - name: app\n    image: nginx\n    env:\n    - {name: LEVEL, valueFrom: {configMapKeyRef: {name: settings, key: level}}}\n    - {name: PASS, valueFrom: {secretKeyRef: {name: creds, key: password, optional: true}}}\n    envFrom:\n    - configMapRef: {name: more, optional: true}\n    - {prefix: DB_, secretRef: {name: db}}\n";
    assert!(!run(&mut s, "apply -f -", yaml).failed);
    s.tick(500.0);
    let out = run(&mut s, "describe pod cfg2", "").text;
    let containers = &out[out.find("Containers:").unwrap()..out.find("    Mounts:").unwrap()];
    assert_eq!(
            containers,
            "Containers:\n  app:\n    Container ID:   \n    Image:          nginx\n    Image ID:       \n    Port:           <none>\n    Host Port:      <none>\n    State:          Waiting\n      Reason:       CreateContainerConfigError\n    Ready:          False\n    Restart Count:  0\n    Environment Variables from:\n      more  ConfigMap                 Optional: true\n      db    Secret with prefix 'DB_'  Optional: false\n    Environment:\n      LEVEL:  <set to the key 'level' of config map 'settings'>  Optional: false\n      PASS:   <set to the key 'password' in secret 'creds'>      Optional: true\n"
        );
    assert!(out.contains("  Warning  Failed     0s    kubelet            Error: secret \"db\" not found\n"), "{out}");
    let pods = run(&mut s, "get pods cfg2", "").text;
    assert!(pods.contains("cfg2   0/1     CreateContainerConfigError   0          "), "{pods}");
}

/// As kubectl 1.33 printed Kubernetes' init container example from
/// `kubesim serve` once both Services existed (times and ids left
/// out): the init containers, Completed and ready, before the
/// containers.
#[test]
fn a_pod_with_init_containers_as_kubectl_describes_it() {
    let mut s = Session::new(7);
    let wait = |svc: &str| {
        format!("  - name: init-{svc}\n    image: busybox:1.28\n    command: ['sh', '-c', \"until nslookup {svc}.$(cat /var/run/secrets/kubernetes.io/serviceaccount/namespace).svc.cluster.local; do echo waiting for {svc}; sleep 2; done\"]\n")
    };
    let yaml = format!("apiVersion: v1\nkind: Pod\nmetadata:\n  name: myapp-pod\nspec:\n  containers:\n  - name: myapp-container\n    image: busybox:1.28\n    command: ['sh', '-c', 'echo The app is running! && sleep 3600']\n  initContainers:\n{}{}", wait("myservice"), wait("mydb"));
    assert!(!run(&mut s, "apply -f -", &yaml).failed);
    s.tick(500.0);
    assert!(run(&mut s, "get pods myapp-pod", "").text.contains("Init:0/2"));
    for svc in ["myservice", "mydb"] {
        assert!(!run(&mut s, &format!("create service clusterip {svc} --tcp=80:9376"), "").failed);
        s.advance("2s");
    }
    let out = run(&mut s, "describe pod myapp-pod", "").text;
    let section: Vec<&str> = out[out.find("Init Containers:").unwrap()..out.find("Containers:\n  myapp").unwrap()]
        .lines()
        .filter(|l| !l.contains("Started:") && !l.contains("Finished:") && !l.contains(" ID:"))
        .collect();
    let one = |svc: &str| {
        format!("  init-{svc}:\n    Image:         busybox:1.28\n    Port:          <none>\n    Host Port:     <none>\n    Command:\n      sh\n      -c\n      until nslookup {svc}.$(cat /var/run/secrets/kubernetes.io/serviceaccount/namespace).svc.cluster.local; do echo waiting for {svc}; sleep 2; done\n    State:          Terminated\n      Reason:       Completed\n      Exit Code:    0\n    Ready:          True\n    Restart Count:  0\n    Environment:    <none>\n    Mounts:\n")
    };
    let mounts = |text: String| -> String {
        text.lines().filter(|l| !l.contains("kube-api-access")).map(|l| format!("{l}\n")).collect()
    };
    let got: String = section.iter().filter(|l| !l.contains("kube-api-access")).map(|l| format!("{l}\n")).collect();
    assert_eq!(got, mounts(format!("Init Containers:\n{}{}", one("myservice"), one("mydb"))));
    assert!(run(&mut s, "get pods myapp-pod", "").text.contains("1/1     Running"));
}

/// As kubectl 1.33 printed `kubectl create secret generic s1
/// --from-literal=a=hello --from-literal=bb=x` from `kubesim serve`.
#[test]
fn describe_secret_prints_sizes_not_values() {
    let mut s = Session::new(7);
    run(&mut s, "create secret generic s1 --from-literal=a=hello --from-literal=bb=x", "");
    assert_eq!(
            run(&mut s, "describe secret s1", "").text,
            "Name:         s1\nNamespace:    default\nLabels:       <none>\nAnnotations:  <none>\n\nType:  Opaque\n\nData\n====\na:   5 bytes\nbb:  1 bytes\n"
        );
    assert_eq!(decoded_len("aGVsbG8="), 5);
    assert_eq!(decoded_len("eA=="), 1);
}

#[test]
fn create_a_service_account_and_a_token_for_it_as_kubectl() {
    let mut s = Session::new(7);
    let get = run(&mut s, "get sa", "").text;
    assert!(get.starts_with("NAME      SECRETS   AGE\ndefault   0         "), "{get}");
    assert_eq!(run(&mut s, "create sa robot", "").text, "serviceaccount/robot created\n");
    let out = run(&mut s, "create token robot --duration=2h --audience=vault", "");
    assert!(!out.failed, "{}", out.text);
    let post = s.log.iter().rev().find(|e| e.request.method == "POST").unwrap();
    assert_eq!(post.request.path, "/api/v1/namespaces/default/serviceaccounts/robot/token");
    let request: Value = serde_json::from_slice(&post.request.body).unwrap();
    assert_eq!(
        request["spec"],
        serde_json::json!({"audiences": ["vault"], "expirationSeconds": 7200, "boundObjectRef": null})
    );
    let token = out.text.trim();
    assert_eq!(token.split('.').count(), 3, "{token}");
    for (line, want) in [
            ("create token robot --duration=1m", "error: failed to create token: TokenRequest.authentication.k8s.io \"\" is invalid: spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes"),
            ("create token nobody", "error: failed to create token: serviceaccounts \"nobody\" not found"),
            ("create token robot --duration=1500ms", "error: --duration cannot be expressed in units less than seconds"),
            ("create token", "error: exactly one NAME is required, got 0\nSee 'kubectl create token -h' for help and examples"),
            ("create token robot --hard=pods=1", "error: unknown flag: --hard"),
        ] {
            let out = run(&mut s, line, "");
            assert!(out.failed && out.text.starts_with(want), "{line}: {}", out.text);
        }
    let from = s.log.len();
    assert_eq!(
            run(&mut s, "describe sa robot", "").text,
            "Name:                robot\nNamespace:           default\nLabels:              <none>\nAnnotations:         <none>\n\
             Image pull secrets:  <none>\nMountable secrets:   <none>\nTokens:              <none>\nEvents:              <none>\n"
        );
    let reqs = sent(&s, from);
    assert_eq!(reqs[reqs.len() - 2], "GET /api/v1/namespaces/default/secrets?limit=500 200");
    assert!(
            reqs[reqs.len() - 1].starts_with("GET /api/v1/namespaces/default/events?fieldSelector=involvedObject.name%3Drobot%2CinvolvedObject.namespace%3Ddefault%2CinvolvedObject.kind%3DServiceAccount%2CinvolvedObject.uid%3D"),
            "{reqs:?}"
        );
    // What real kubectl printed for the same account and secrets.
    let account = "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: robot}\nsecrets: [{name: gone}, {name: kube-root-ca.crt}]\nimagePullSecrets: [{name: regcred}]\n";
    let out = run(&mut s, "apply -f -", account);
    assert!(!out.failed, "{}", out.text);
    assert!(!run(&mut s, "create secret generic regcred", "").failed);
    assert_eq!(
            run(&mut s, "describe sa robot", "").text,
            "Name:                robot\nNamespace:           default\nLabels:              <none>\nAnnotations:         <none>\n\
             Image pull secrets:  regcred\nMountable secrets:   gone (not found)\n                     kube-root-ca.crt (not found)\n\
             Tokens:              <none>\nEvents:              <none>\n"
        );
}

/// The text real kubectl 1.33 printed for the same namespace (its
/// limit range rows in name order: kubectl's own order is a Go map's).
#[test]
fn describe_namespace_and_limitrange_print_what_kubectl_prints() {
    let mut s = Session::new(7);
    assert_eq!(
            run(&mut s, "describe ns kube-public", "").text,
            "Name:         kube-public\nLabels:       kubernetes.io/metadata.name=kube-public\nAnnotations:  <none>\nStatus:       Active\n\nNo resource quota.\n\nNo LimitRange resource.\n"
        );
    for line in [
        "create quota compute --hard=pods=10,requests.cpu=2 --scopes=NotBestEffort",
        "create quota objects --hard=count/deployments.apps=2,configmaps=5",
    ] {
        assert!(!run(&mut s, line, "").failed);
    }
    let lr = "apiVersion: v1\nkind: LimitRange\nmetadata: {name: limits}\nspec:\n  limits:\n  - type: Container\n    default: {cpu: 500m, memory: 256Mi}\n    defaultRequest: {cpu: 250m}\n    max: {cpu: \"2\"}\n    maxLimitRequestRatio: {cpu: \"4\"}\n  - type: Pod\n    max: {memory: 2Gi}\n  - type: PersistentVolumeClaim\n    min: {storage: 1Gi}\n";
    assert!(!run(&mut s, "apply -f -", lr).failed);
    let from = s.log.len();
    let out = run(&mut s, "describe namespace default", "");
    assert_eq!(
            out.text,
            "Name:         default\nLabels:       kubernetes.io/metadata.name=default\nAnnotations:  <none>\nStatus:       Active\n\n\
             Resource Quotas\n  Name:    compute\n  Scopes:  NotBestEffort\n  * Matches all pods that have at least one resource requirement set. These pods have a burstable or guaranteed quality of service.\n\
             \x20 Resource                Used  Hard\n  --------                ---   ---\n  pods                    0     10\n  requests.cpu            0     2\n\
             \x20 Name:                   objects\n  Resource                Used  Hard\n  --------                ---   ---\n  configmaps              1     5\n  count/deployments.apps  1     2\n\n\
             Resource Limits\n Type                   Resource  Min  Max  Default Request  Default Limit  Max Limit/Request Ratio\n\
             \x20----                   --------  ---  ---  ---------------  -------------  -----------------------\n\
             \x20Container              cpu       -    2    250m             500m           4\n\
             \x20Container              memory    -    -    256Mi            256Mi          -\n\
             \x20Pod                    memory    -    2Gi  -                -              -\n\
             \x20PersistentVolumeClaim  storage   1Gi  -    -                -              -\n"
        );
    let reqs = sent(&s, from);
    assert_eq!(
        reqs[reqs.len() - 4..],
        [
            "GET /api/v1/namespaces/default 200",
            "GET /api/v1/namespaces/default 200",
            "GET /api/v1/namespaces/default/resourcequotas?limit=500 200",
            "GET /api/v1/namespaces/default/limitranges?limit=500 200",
        ]
    );
    assert_eq!(
            run(&mut s, "describe limits limits", "").text,
            "Name:                  limits\nNamespace:             default\nType                   Resource  Min  Max  Default Request  Default Limit  Max Limit/Request Ratio\n\
             ----                   --------  ---  ---  ---------------  -------------  -----------------------\n\
             Container              cpu       -    2    250m             500m           4\n\
             Container              memory    -    -    256Mi            256Mi          -\n\
             Pod                    memory    -    2Gi  -                -              -\n\
             PersistentVolumeClaim  storage   1Gi  -    -                -              -\n"
        );
}

#[test]
fn create_get_and_describe_quota_as_kubectl() {
    let mut s = Session::new(7);
    let out = run(
        &mut s,
        "create quota compute --hard=pods=3,requests.cpu=1000m,limits.memory=2Gi --scopes=NotBestEffort",
        "",
    );
    assert_eq!(out.text, "resourcequota/compute created\n");
    let post = s.log.iter().rev().find(|e| e.request.method == "POST").unwrap();
    let sent: Value = serde_json::from_slice(&post.request.body).unwrap();
    assert_eq!(
        sent["spec"],
        serde_json::json!({"hard": {"limits.memory": "2Gi", "pods": "3", "requests.cpu": "1"}, "scopes": ["NotBestEffort"]})
    );
    assert_eq!(
            run(&mut s, "describe quota compute", "").text,
            "Name:       compute\nNamespace:  default\nScopes:     NotBestEffort\n * Matches all pods that have at least one resource requirement set. These pods have a burstable or guaranteed quality of service.\n\
             Resource       Used  Hard\n--------       ----  ----\nlimits.memory  0     2Gi\npods           0     3\nrequests.cpu   0     1\n"
        );
    let get = run(&mut s, "get quota", "").text;
    assert!(get.starts_with("NAME      REQUEST                        LIMIT                  AGE\ncompute   pods: 0/3, requests.cpu: 0/1   limits.memory: 0/2Gi   "), "{get}");
    for (line, want) in [
        ("create quota q --hard=pods", "error: Invalid argument syntax pods, expected <resource>=<value>"),
        ("create quota q --hard=pods=lots", "error: quantities must match the regular expression"),
        ("create quota q --scopes=BestEffort,", "error: invalid resource quota scope \"\""),
        ("create quota q --image=nginx", "error: unknown flag: --image"),
    ] {
        let out = run(&mut s, line, "");
        assert!(out.failed && out.text.starts_with(want), "{line}: {}", out.text);
    }
}

#[test]
fn the_tab_writer_aligns_blocks_as_go_does() {
    let mut w = TabWriter::default();
    w.w(0, "Name:\tweb\nNamespace:\tdefault\nIPs:\n");
    w.w(1, "IP:\t10.244.1.4\n");
    w.w(0, "Controlled By:\tReplicaSet/web\nContainers:\n");
    w.w(0, "Conditions:\n  Type\tStatus\n");
    w.w(1, "Ready \tTrue \n");
    w.flush();
    w.w(0, "Events:\n  Type\tReason\n");
    w.w(1, "Normal\tScheduled\n");
    assert_eq!(
            w.finish(),
            "Name:       web\nNamespace:  default\nIPs:\n  IP:           10.244.1.4\nControlled By:  ReplicaSet/web\n\
             Containers:\nConditions:\n  Type    Status\n  Ready   True \nEvents:\n  Type    Reason\n  Normal  Scheduled\n"
        );
}

#[test]
fn describe_without_a_name_lists_what_the_selector_picks_then_describes_each() {
    let mut s = Session::new(7);
    let from = s.log.len();
    let out = run(&mut s, "describe pods -l app=hello", "");
    assert!(!out.failed, "{}", out.text);
    let reqs = sent(&s, from);
    // (Discovery first, as kubectl reads it.)
    let list = "GET /api/v1/namespaces/default/pods?labelSelector=app%3Dhello&limit=500 200";
    let at = reqs.iter().position(|r| r == list).expect("the list");
    let reqs = &reqs[at..];
    // Each pod: read by the describer, then its events.
    assert_eq!(reqs.len(), 5, "{reqs:?}");
    assert!(reqs[1].starts_with("GET /api/v1/namespaces/default/pods/hello-") && reqs[2].contains("/events?"));
    let described = out.text.split("\n\n\nName:").count();
    assert_eq!(described, 2, "two pods, separated by a blank line: {}", out.text);
    assert!(out.text.starts_with("Name:             hello-"));

    let out = run(&mut s, "describe pods -l app=none", "");
    assert_eq!(out.text, "No resources found in default namespace.\n");
}

/// A kind kubectl has no describer for (here a custom resource and a
/// Lease) is described field by field, as kubectl 1.33's generic
/// describer prints it (the text checked against real kubectl's).
#[test]
fn describe_of_other_kinds_prints_every_field_as_kubectls_generic_describer() {
    let mut s = Session::new(7);
    let crd = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: crontabs.stable.example.com}\nspec:\n  group: stable.example.com\n  scope: Namespaced\n  names: {plural: crontabs, singular: crontab, kind: CronTab, shortNames: [ct]}\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema:\n        type: object\n        x-kubernetes-preserve-unknown-fields: true\n";
    let cr = "apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: my-new-cron-object\n  labels: {team: a}\nspec:\n  cronSpec: \"* * * * */5\"\n  image: my-awesome-cron-image\n  replicas: 3\n  ratio: 0.5\n  tags: [x, z]\n  enabled: true\n  ports:\n  - {name: http, containerPort: 80}\n  - {name: https-port, URLPath: /x}\n";
    for file in [crd, cr] {
        let out = run(&mut s, "apply -f -", file);
        assert!(!out.failed, "{}", out.text);
    }
    let from = s.log.len();
    let out = run(&mut s, "describe ct my-new-cron-object", "");
    assert!(!out.failed, "{}", out.text);
    let reqs = sent(&s, from);
    let cr_path = "GET /apis/stable.example.com/v1/namespaces/default/crontabs/my-new-cron-object 200";
    let at = reqs.iter().position(|r| r == cr_path).expect("read");
    assert_eq!(reqs[at + 1], cr_path, "read again by the describer");
    assert!(reqs[at + 2].contains("involvedObject.kind%3DCronTab"), "{reqs:?}");
    let obj = body_json(&s.log[from + at].response);
    let expected = format!(
            "Name:         my-new-cron-object\nNamespace:    default\nLabels:       team=a\nAnnotations:  <none>\n\
             API Version:  stable.example.com/v1\nKind:         CronTab\nMetadata:\n  Creation Timestamp:  {}\n\
             \x20 Generation:          1\n  Resource Version:    {}\n  UID:                 {}\nSpec:\n\
             \x20 Cron Spec:  * * * * */5\n  Enabled:    true\n  Image:      my-awesome-cron-image\n  Ports:\n\
             \x20   Container Port:  80\n    Name:            http\n    URL Path:        /x\n    Name:            https-port\n\
             \x20 Ratio:             0.5\n  Replicas:          3\n  Tags:\n    x\n    z\nEvents:  <none>\n",
            text(&obj, "/metadata/creationTimestamp"),
            text(&obj, "/metadata/resourceVersion"),
            text(&obj, "/metadata/uid"),
        );
    assert_eq!(out.text, expected);

    // A cluster-scoped or other built-in kind kubectl has no describer
    // for: its owner references as a list of maps.
    let out = run(&mut s, "describe lease -n kube-node-lease worker-1", "");
    assert!(!out.failed, "{}", out.text);
    assert!(out.text.contains("Kind:         Lease\nMetadata:\n"), "{}", out.text);
    assert!(
        out.text.contains("  Owner References:\n    API Version:     v1\n    Kind:            Node\n"),
        "{}",
        out.text
    );
    assert!(
        out.text.contains("Spec:\n  Holder Identity:         worker-1\n  Lease Duration Seconds:  40\n"),
        "{}",
        out.text
    );
}

#[test]
fn field_names_become_labels_as_kubectls_smart_label() {
    use generic::{go_value, smart_label};
    for (field, label) in [
        ("apiVersion", "API Version"),
        ("uid", "UID"),
        ("URLPath", "URL Path"),
        ("HTTPServer", "HTTP Server"),
        ("leaseDurationSeconds", "Lease Duration Seconds"),
        ("foo-bar", "Foo - Bar"),
        ("port80", "port80"),
        ("a.b", "a.b"),
        ("x", "X"),
    ] {
        assert_eq!(smart_label(field), label, "{field}");
    }
    for (v, printed) in [
        (serde_json::json!(null), "<nil>"),
        (serde_json::json!(3), "3"),
        (serde_json::json!(0.5), "0.5"),
        (serde_json::json!(0.0), "0"),
        (serde_json::json!(-2.5e-7), "-2.5e-07"),
        (serde_json::json!(1234567.0), "1.234567e+06"),
        (serde_json::json!(123456.5), "123456.5"),
        (serde_json::json!(0.00001), "1e-05"),
        (serde_json::json!(false), "false"),
    ] {
        assert_eq!(go_value(&v), printed, "{v}");
    }
}

/// A HorizontalPodAutoscaler with every kind of metric and a behavior,
/// as kubectl 1.33 printed the same object against `kubesim serve`.
#[test]
fn describe_hpa_as_kubectl() {
    let mut s = Session::new(7);
    let hpa = "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: web\n  labels: {app: web}\nspec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n  maxReplicas: 5\n  metrics:\n  - type: Resource\n    resource: {name: cpu, target: {type: Utilization, averageUtilization: 60}}\n  - type: Resource\n    resource: {name: memory, target: {type: AverageValue, averageValue: 500Mi}}\n  - type: ContainerResource\n    containerResource: {name: cpu, container: app, target: {type: Utilization, averageUtilization: 70}}\n  - type: Pods\n    pods: {metric: {name: qps}, target: {type: AverageValue, averageValue: \"10\"}}\n  - type: Object\n    object: {describedObject: {apiVersion: v1, kind: Service, name: front}, metric: {name: rps}, target: {type: Value, value: 2k}}\n  - type: External\n    external: {metric: {name: queue}, target: {type: AverageValue, averageValue: \"30\"}}\n  behavior:\n    scaleDown: {stabilizationWindowSeconds: 60}\n";
    let out = run(&mut s, "create -f -", hpa);
    assert!(!out.failed, "{}", out.text);
    let out = run(&mut s, "describe hpa web", "");
    let lines: Vec<&str> = out.text.lines().filter(|l| !l.starts_with("CreationTimestamp:")).collect();
    let want = [
        "Name:                                                                     web",
        "Namespace:                                                                default",
        "Labels:                                                                   app=web",
        "Annotations:                                                              <none>",
        "Reference:                                                                Deployment/web",
        "Metrics:                                                                  ( current / target )",
        "  resource cpu on pods  (as a percentage of request):                     <unknown> / 60%",
        "  resource memory on pods:                                                <unknown> / 500Mi",
        "  resource cpu of container \"app\" on pods  (as a percentage of request):  <unknown> / 70%",
        "  \"qps\" on pods:                                                          <unknown> / 10",
        "  \"rps\" on Service/front (target value):                                  <unknown> / 2k",
        "  \"queue\" (target average value):                                         <unknown> / 30",
        "Min replicas:                                                             1",
        "Max replicas:                                                             5",
        "Behavior:",
        "  Scale Up:",
        "    Stabilization Window: 0 seconds",
        "    Select Policy: Max",
        "    Policies:",
        "      - Type: Pods     Value: 4    Period: 15 seconds",
        "      - Type: Percent  Value: 100  Period: 15 seconds",
        "  Scale Down:",
        "    Stabilization Window: 60 seconds",
        "    Select Policy: Max",
        "    Policies:",
        "      - Type: Percent  Value: 100  Period: 15 seconds",
        "Deployment pods:       0 current / 0 desired",
        "Events:                <none>",
    ];
    assert_eq!(lines, want);
}

/// Ingresses, endpoints, priority classes and disruption budgets as
/// kubectl 1.33 printed the same objects against `kubesim serve`.
#[test]
fn describe_ingress_endpoints_priorityclass_and_pdb_as_kubectl() {
    let mut s = Session::new(7);
    let objs = "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: web\n  annotations: {nginx.ingress.kubernetes.io/rewrite-target: /}\nspec:\n  ingressClassName: nginx\n  tls:\n  - hosts: [hello.example.com]\n    secretName: hello-tls\n  - hosts: [a.example.com, b.example.com]\n  rules:\n  - host: hello.example.com\n    http:\n      paths:\n      - path: /\n        pathType: Prefix\n        backend:\n          service: {name: hello, port: {number: 80}}\n      - path: /missing\n        pathType: Prefix\n        backend:\n          service: {name: nosuch, port: {name: http}}\n  - http:\n      paths:\n      - path: /api\n        pathType: Exact\n        backend:\n          resource: {apiGroup: k8s.example.com, kind: StorageBucket, name: static}\n---\napiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: plain\nspec:\n  defaultBackend:\n    service: {name: hello, port: {number: 80}}\n---\napiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata:\n  name: high\n  annotations: {team: a, owner: b}\nvalue: 1000\ndescription: \"For the important ones.\"\n---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: hello-pdb\nspec:\n  minAvailable: 1\n  selector:\n    matchLabels: {app: hello}\n---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: loose\nspec:\n  maxUnavailable: \"50%\"\n";
    let out = run(&mut s, "apply -f -", objs);
    assert!(!out.failed, "{}", out.text);
    // The ready endpoints of `hello`, as its EndpointSlice lists them.
    let e = send(&mut s, "GET", "/apis/discovery.k8s.io/v1/namespaces/default/endpointslices?labelSelector=kubernetes.io%2Fservice-name%3Dhello", None, None, "application/json");
    let slices = body_json(&e.response);
    let ips: Vec<String> =
        items(&slices, "/items/0/endpoints").iter().map(|e| text(e, "/addresses/0").to_string()).collect();
    assert_eq!(ips.len(), 2);
    let eps = format!("{}:80,{}:80", ips[0], ips[1]);

    let from = s.log.len();
    let out = run(&mut s, "describe ingress web", "");
    assert!(!out.failed, "{}", out.text);
    assert_eq!(
        out.text,
        format!(
            "Name:             web\nLabels:           <none>\nNamespace:        default\nAddress:          \n\
                 Ingress Class:    nginx\nDefault backend:  <default>\nTLS:\n  hello-tls terminates hello.example.com\n\
                 \x20 SNI routes a.example.com,b.example.com\nRules:\n  Host               Path  Backends\n\
                 \x20 ----               ----  --------\n  hello.example.com  \n\
                 \x20                    /          hello:80 ({eps})\n\
                 \x20                    /missing   nosuch:http (<error: services \"nosuch\" not found>)\n\
                 \x20 *                  \n\
                 \x20                    /api   APIGroup: k8s.example.com, Kind: StorageBucket, Name: static\n\
                 Annotations:         nginx.ingress.kubernetes.io/rewrite-target: /\nEvents:              <none>\n"
        )
    );
    // Each backend: its Service's slices, then the Service.
    let reqs = sent(&s, from);
    let at = reqs.iter().position(|r| r.contains("service-name%3Dhello")).expect("slices read");
    assert_eq!(reqs[at + 1], "GET /api/v1/namespaces/default/services/hello 200");
    assert_eq!(reqs[at + 3], "GET /api/v1/namespaces/default/services/nosuch 404");
    let out = run(&mut s, "describe ingress plain", "");
    assert_eq!(
        out.text,
        format!(
            "Name:             plain\nLabels:           <none>\nNamespace:        default\nAddress:          \n\
                 Ingress Class:    <none>\nDefault backend:  hello:80 ({eps})\nRules:\n  Host        Path  Backends\n\
                 \x20 ----        ----  --------\n  *           *     hello:80 ({eps})\nAnnotations:  <none>\n\
                 Events:       <none>\n"
        )
    );

    let out = run(&mut s, "describe pc high", "");
    let applied = text(
        &body_json(&s.log[s.log.len() - 2].response),
        "/metadata/annotations/kubectl.kubernetes.io~1last-applied-configuration",
    )
    .to_string();
    assert_eq!(
        out.text,
        format!(
            "Name:              high\nValue:             1000\nGlobalDefault:     false\n\
                 PreemptionPolicy:  PreemptLowerPriority\nDescription:       For the important ones.\n\
                 Annotations:       kubectl.kubernetes.io/last-applied-configuration={applied},owner=b,team=a\n\
                 Events:  <none>\n"
        )
    );

    let out = run(&mut s, "describe pdb hello-pdb loose", "");
    let mut counted = |n: &str| {
        let e = send(
            &mut s,
            "GET",
            &format!("/apis/policy/v1/namespaces/default/poddisruptionbudgets/{n}"),
            None,
            None,
            "application/json",
        );
        let st = body_json(&e.response)["status"].clone();
        [
            int(&st, "/disruptionsAllowed"),
            int(&st, "/currentHealthy"),
            int(&st, "/desiredHealthy"),
            int(&st, "/expectedPods"),
        ]
    };
    assert_eq!(counted("hello-pdb"), [1, 2, 1, 2]);
    assert_eq!(counted("loose"), [0, 0, 0, 0], "no selector selects no pods");
    assert_eq!(
            out.text,
            "Name:           hello-pdb\nNamespace:      default\nMin available:  1\nSelector:       app=hello\nStatus:\n\
             \x20   Allowed disruptions:  1\n    Current:              2\n    Desired:              1\n\
             \x20   Total:                2\nEvents:                   <none>\n\n\n\
             Name:             loose\nNamespace:        default\nMax unavailable:  50%\nSelector:         <unset>\nStatus:\n\
             \x20   Allowed disruptions:  0\n    Current:              0\n    Desired:              0\n\
             \x20   Total:                0\nEvents:\n  Type    Reason  Age              From               Message\n\
             \x20 ----    ------  ----             ----               -------\n\
             \x20 Normal  NoPods  0s (x2 over 0s)  controllermanager  No matching pods found\n"
        );

    let out = run(&mut s, "describe endpoints hello", "");
    assert_eq!(
        out.text,
        format!(
            "Name:         hello\nNamespace:    default\nLabels:       app=hello\n\
                 \x20             endpointslice.kubernetes.io/skip-mirror=true\n\
                 Annotations:  endpoints.kubernetes.io/last-change-trigger-time: {}\nSubsets:\n\
                 \x20 Addresses:          {}\n  NotReadyAddresses:  <none>\n  Ports:\n    Name     Port  Protocol\n\
                 \x20   ----     ----  --------\n    <unset>  80    TCP\n\nEvents:  <none>\n",
            text(
                &body_json(&s.log[s.log.len() - 2].response),
                "/metadata/annotations/endpoints.kubernetes.io~1last-change-trigger-time"
            ),
            text(&body_json(&s.log[s.log.len() - 2].response), "/subsets/0/addresses/0/ip").to_string()
                + ","
                + text(&body_json(&s.log[s.log.len() - 2].response), "/subsets/0/addresses/1/ip"),
        )
    );
}

#[test]
fn describe_endpointslice_and_ingressclass_as_kubectl() {
    let mut s = Session::new(7);
    let e = send(&mut s, "GET", "/apis/discovery.k8s.io/v1/namespaces/default/endpointslices?labelSelector=kubernetes.io%2Fservice-name%3Dhello", None, None, "application/json");
    let slice = body_json(&e.response)["items"][0].clone();
    let out = run(&mut s, "describe endpointslices -l kubernetes.io/service-name=hello", "");
    assert!(!out.failed, "{}", out.text);
    let endpoint = |i: usize| {
        let e = &slice["endpoints"][i];
        format!(
                "  - Addresses:  {}\n    Conditions:\n      Ready:    true\n    Hostname:   <unset>\n    TargetRef:  Pod/{}\n    NodeName:   {}\n    Zone:       <unset>\n",
                text(e, "/addresses/0"), text(e, "/targetRef/name"), text(e, "/nodeName")
            )
    };
    assert_eq!(
            out.text,
            format!(
                "Name:         {}\nNamespace:    default\nLabels:       app=hello\n\
                 \x20             endpointslice.kubernetes.io/managed-by=endpointslice-controller.k8s.io\n\
                 \x20             kubernetes.io/service-name=hello\n\
                 Annotations:  endpoints.kubernetes.io/last-change-trigger-time: {}\nAddressType:  IPv4\nPorts:\n\
                 \x20 Name     Port  Protocol\n  ----     ----  --------\n  <unset>  80    TCP\nEndpoints:\n{}{}Events:         <none>\n",
                text(&slice, "/metadata/name"),
                text(&slice, "/metadata/annotations/endpoints.kubernetes.io~1last-change-trigger-time"),
                endpoint(0),
                endpoint(1)
            )
        );
    let ic = "apiVersion: networking.k8s.io/v1\nkind: IngressClass\nmetadata:\n  name: nginx\n  labels: {app.kubernetes.io/component: controller}\nspec:\n  controller: k8s.io/ingress-nginx\n  parameters:\n    apiGroup: k8s.example.com\n    kind: IngressParameters\n    name: external-lb\n";
    assert!(!run(&mut s, "apply -f -", ic).failed);
    let out = run(&mut s, "describe ingressclass nginx", "");
    assert_eq!(
            out.text,
            "Name:         nginx\nLabels:       app.kubernetes.io/component=controller\nAnnotations:  <none>\n\
             Controller:   k8s.io/ingress-nginx\nParameters:\n  APIGroup:  k8s.example.com\n  Kind:      IngressParameters\n\
             \x20 Name:      external-lb\nEvents:      <none>\n"
        );
}
