//! Server-side apply as a small operations language, in the spirit of
//! structured-merge-diff's fixtures: each case is a sequence of Apply and
//! Update operations by named managers, each followed by what must hold —
//! the object's relevant part and who owns which field, or the conflicts.

mod common;
use common::*;
use kubesim::server::{Request, Response, Server};
use serde_json::{json, Value};

enum Op {
    Apply { manager: &'static str, force: bool, object: Value },
    Update { manager: &'static str, patch: Value },
}

enum Expect {
    /// The value at `pointer`, and each manager's owned paths.
    State { pointer: &'static str, value: Value, owners: Vec<(&'static str, &'static str, Vec<&'static str>)> },
    /// A 409 with these (manager as printed, field) causes.
    Conflicts(Vec<(&'static str, &'static str)>),
}

struct Case {
    name: &'static str,
    target: &'static str,
    steps: Vec<(Op, Expect)>,
}

fn run(s: &mut Server, target: &str, op: &Op) -> Response {
    let (ct, manager, body, force) = match op {
        Op::Apply { manager, force, object } => ("application/apply-patch+yaml", manager, object, *force),
        Op::Update { manager, patch } => ("application/merge-patch+json", manager, patch, false),
    };
    let force = if ct.starts_with("application/apply") { format!("&force={force}") } else { String::new() };
    s.handle(
        Request::new("PATCH", &format!("{target}?fieldManager={manager}{force}"))
            .with_header("Content-Type", ct)
            .with_body(serde_json::to_vec(body).unwrap()),
    )
}

fn owners(obj: &Value) -> Vec<(String, String, Vec<String>)> {
    obj["metadata"]["managedFields"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|e| {
            let set = kubesim::apply::fieldpath::Set::from_fields_v1(&e["fieldsV1"]);
            let paths = set.iter().map(kubesim::apply::fieldpath::display).collect();
            (e["manager"].as_str().unwrap().to_string(), e["operation"].as_str().unwrap().to_string(), paths)
        })
        .collect()
}

fn check(case: &Case) {
    let mut s = server();
    for (i, (op, expect)) in case.steps.iter().enumerate() {
        let r = run(&mut s, case.target, op);
        let at = format!("{} step {}", case.name, i + 1);
        match expect {
            Expect::State { pointer, value, owners: want } => {
                assert!(r.status == 200 || r.status == 201, "{at}: {} {}", r.status, String::from_utf8_lossy(&r.body));
                let obj = r.json_body();
                assert_eq!(obj.pointer(pointer).cloned().unwrap_or(Value::Null), *value, "{at}: object");
                let want: Vec<(String, String, Vec<String>)> = want
                    .iter()
                    .map(|(m, o, p)| (m.to_string(), o.to_string(), p.iter().map(|x| x.to_string()).collect()))
                    .collect();
                assert_eq!(owners(&obj), want, "{at}: owners");
            }
            Expect::Conflicts(want) => {
                assert_eq!(r.status, 409, "{at}: {}", String::from_utf8_lossy(&r.body));
                let causes: Vec<(String, String)> = r.json_body()["details"]["causes"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|c| (c["message"].as_str().unwrap().to_string(), c["field"].as_str().unwrap().to_string()))
                    .collect();
                let want: Vec<(String, String)> =
                    want.iter().map(|(m, f)| (format!("conflict with {m}"), f.to_string())).collect();
                assert_eq!(causes, want, "{at}: conflicts");
            }
        }
    }
}

const CM: &str = "/api/v1/namespaces/default/configmaps/cfg";
const DEPLOY: &str = "/apis/apps/v1/namespaces/default/deployments/web";

fn cm(data: Value) -> Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cfg"}, "data": data})
}

fn deploy(containers: Value) -> Value {
    json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
           "spec": {"selector": {"matchLabels": {"app": "web"}},
                    "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": containers}}}})
}

#[test]
fn apply_fixtures() {
    let cases = vec![
        Case {
            name: "an apply creates the object and owns exactly its configuration",
            target: CM,
            steps: vec![(
                Op::Apply { manager: "a", force: false, object: cm(json!({"x": "1", "y": "2"})) },
                Expect::State {
                    pointer: "/data",
                    value: json!({"x": "1", "y": "2"}),
                    owners: vec![("a", "Apply", vec![".data.x", ".data.y"])],
                },
            )],
        },
        Case {
            name: "an update takes over what it changes, without conflict",
            target: CM,
            steps: vec![
                (
                    Op::Apply { manager: "a", force: false, object: cm(json!({"x": "1", "y": "2"})) },
                    Expect::State {
                        pointer: "/data/x",
                        value: json!("1"),
                        owners: vec![("a", "Apply", vec![".data.x", ".data.y"])],
                    },
                ),
                (
                    Op::Update { manager: "u", patch: json!({"data": {"y": "changed"}}) },
                    Expect::State {
                        pointer: "/data/y",
                        value: json!("changed"),
                        owners: vec![("a", "Apply", vec![".data.x"]), ("u", "Update", vec![".data.y"])],
                    },
                ),
            ],
        },
        Case {
            name: "an apply conflicts with the update's field, then forces it",
            target: CM,
            steps: vec![
                (
                    Op::Apply { manager: "a", force: false, object: cm(json!({"x": "1"})) },
                    Expect::State {
                        pointer: "/data",
                        value: json!({"x": "1"}),
                        owners: vec![("a", "Apply", vec![".data.x"])],
                    },
                ),
                (
                    Op::Update { manager: "u", patch: json!({"data": {"x": "2"}}) },
                    Expect::State {
                        pointer: "/data/x",
                        value: json!("2"),
                        owners: vec![("u", "Update", vec![".data.x"])],
                    },
                ),
                (
                    Op::Apply { manager: "a", force: false, object: cm(json!({"x": "1"})) },
                    Expect::Conflicts(vec![("\"u\" using v1", ".data.x")]),
                ),
                (
                    Op::Apply { manager: "a", force: true, object: cm(json!({"x": "1"})) },
                    Expect::State {
                        pointer: "/data/x",
                        value: json!("1"),
                        owners: vec![("a", "Apply", vec![".data.x"])],
                    },
                ),
            ],
        },
        Case {
            name: "applying the live value shares ownership, and a shared field survives one owner leaving",
            target: CM,
            steps: vec![
                (
                    Op::Apply { manager: "a", force: false, object: cm(json!({"x": "1"})) },
                    Expect::State {
                        pointer: "/data/x",
                        value: json!("1"),
                        owners: vec![("a", "Apply", vec![".data.x"])],
                    },
                ),
                (
                    Op::Apply { manager: "b", force: false, object: cm(json!({"x": "1"})) },
                    Expect::State {
                        pointer: "/data/x",
                        value: json!("1"),
                        owners: vec![("a", "Apply", vec![".data.x"]), ("b", "Apply", vec![".data.x"])],
                    },
                ),
                (
                    Op::Apply { manager: "a", force: false, object: cm(json!({})) },
                    Expect::State {
                        pointer: "/data/x",
                        value: json!("1"),
                        owners: vec![("b", "Apply", vec![".data.x"])],
                    },
                ),
                (
                    // The emptied map is left out, as Go's encoding of an
                    // empty `omitempty` map leaves it.
                    Op::Apply { manager: "b", force: false, object: cm(json!({})) },
                    Expect::State { pointer: "/data", value: Value::Null, owners: vec![] },
                ),
            ],
        },
        Case {
            name: "two appliers own one container each; the list merges by name",
            target: DEPLOY,
            steps: vec![
                (
                    Op::Apply {
                        manager: "a",
                        force: false,
                        object: deploy(json!([{"name": "web", "image": "nginx"}])),
                    },
                    Expect::State {
                        pointer: "/spec/template/spec/containers/0/image",
                        value: json!("nginx"),
                        owners: vec![(
                            "a",
                            "Apply",
                            vec![
                                ".spec.selector",
                                ".spec.template.metadata.labels.app",
                                ".spec.template.spec.containers[name=\"web\"]",
                                ".spec.template.spec.containers[name=\"web\"].image",
                                ".spec.template.spec.containers[name=\"web\"].name",
                            ],
                        )],
                    },
                ),
                (
                    Op::Apply {
                        manager: "b",
                        force: false,
                        object: json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
                                       "spec": {"template": {"spec": {"containers": [{"name": "side", "image": "busybox"}]}}}}),
                    },
                    Expect::State {
                        pointer: "/spec/template/spec/containers/1/name",
                        value: json!("side"),
                        owners: vec![
                            (
                                "a",
                                "Apply",
                                vec![
                                    ".spec.selector",
                                    ".spec.template.metadata.labels.app",
                                    ".spec.template.spec.containers[name=\"web\"]",
                                    ".spec.template.spec.containers[name=\"web\"].image",
                                    ".spec.template.spec.containers[name=\"web\"].name",
                                ],
                            ),
                            (
                                "b",
                                "Apply",
                                vec![
                                    ".spec.template.spec.containers[name=\"side\"]",
                                    ".spec.template.spec.containers[name=\"side\"].image",
                                    ".spec.template.spec.containers[name=\"side\"].name",
                                ],
                            ),
                        ],
                    },
                ),
                (
                    Op::Apply {
                        manager: "b",
                        force: false,
                        object: json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"}}),
                    },
                    Expect::State {
                        pointer: "/spec/template/spec/containers/1",
                        value: Value::Null,
                        owners: vec![(
                            "a",
                            "Apply",
                            vec![
                                ".spec.selector",
                                ".spec.template.metadata.labels.app",
                                ".spec.template.spec.containers[name=\"web\"]",
                                ".spec.template.spec.containers[name=\"web\"].image",
                                ".spec.template.spec.containers[name=\"web\"].name",
                            ],
                        )],
                    },
                ),
            ],
        },
    ];
    for case in &cases {
        check(case);
    }
}

mod properties {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    fn config() -> impl Strategy<Value = BTreeMap<String, String>> {
        proptest::collection::btree_map(
            prop_oneof![Just("a"), Just("b"), Just("c"), Just("d")].prop_map(str::to_string),
            prop_oneof![Just("1"), Just("2")].prop_map(str::to_string),
            0..4,
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]
        /// Whatever two appliers do (forcing), what each applied last is in
        /// the object, every field is owned by someone, and applying the same
        /// configuration again writes nothing.
        #[test]
        fn appliers_keep_what_they_apply_and_own_every_field(ops in proptest::collection::vec((prop_oneof![Just("p"), Just("q")], config()), 1..8)) {
            let mut s = server();
            let mut last: BTreeMap<&str, BTreeMap<String, String>> = BTreeMap::new();
            for (manager, data) in &ops {
                let r = run(&mut s, CM, &Op::Apply { manager, force: true, object: cm(json!(data)) });
                prop_assert!(r.status == 200 || r.status == 201, "{}", String::from_utf8_lossy(&r.body));
                last.insert(manager, data.clone());
                let obj = r.json_body();
                let live = obj["data"].as_object().cloned().unwrap_or_default();
                for (k, v) in data {
                    prop_assert_eq!(live.get(k).and_then(Value::as_str), Some(v.as_str()));
                }
                let owned: Vec<String> = owners(&obj).into_iter().flat_map(|(_, _, p)| p).collect();
                for k in live.keys() {
                    prop_assert!(owned.contains(&format!(".data.{k}")), "{k} has no owner: {obj}");
                }
                let again = run(&mut s, CM, &Op::Apply { manager, force: false, object: cm(json!(data)) });
                prop_assert_eq!(again.status, 200);
                prop_assert_eq!(rv(&again.json_body()), rv(&obj), "re-applying wrote");
            }
        }
    }
}
