//! CustomResourceDefinitions served at run time: the definition's status
//! as the apiserver's naming and establishing controllers write it, its
//! resource served through the generic store (every version over one
//! storage), name conflicts, validation of definitions, and deletion
//! through the cleanup finalizer.

mod common;
use common::*;
use kubesim::server::Server;
use serde_json::{json, Value};

const CRDS: &str = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";

fn widget_crd() -> Value {
    json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced",
            "names": {"plural": "widgets", "kind": "Widget", "shortNames": ["wd"], "categories": ["all"]},
            "versions": [
                {"name": "v1beta1", "served": true, "storage": false,
                    "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}},
                {"name": "v1", "served": true, "storage": true,
                    "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}},
                    "subresources": {"status": {}}}]}})
}

fn status_of(s: &mut Server, name: &str) -> Value {
    let r = get(s, &format!("{CRDS}/{name}"));
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    r.json_body()["status"].clone()
}

fn condition(status: &Value, kind: &str) -> (String, String, String) {
    let c =
        status["conditions"].as_array().and_then(|l| l.iter().find(|c| c["type"] == kind)).cloned().unwrap_or_default();
    let t = |k: &str| c[k].as_str().unwrap_or("").to_string();
    (t("status"), t("reason"), t("message"))
}

#[test]
fn a_definition_is_named_established_and_served() {
    let mut s = server();
    let r = call(&mut s, "POST", CRDS, Some(widget_crd()));
    assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
    let created = r.json_body();
    // The create answers before the controllers run: no names accepted yet
    // (and `conditions: null`, a list Go always encodes).
    assert_eq!(
        created["status"],
        json!({"acceptedNames": {"plural": "", "kind": ""}, "storedVersions": ["v1"], "conditions": null})
    );
    assert_eq!(created["spec"]["names"]["singular"], "widget");
    assert_eq!(created["spec"]["names"]["listKind"], "WidgetList");
    assert_eq!(created["spec"]["conversion"], json!({"strategy": "None"}));

    let status = status_of(&mut s, "widgets.example.com");
    assert_eq!(condition(&status, "NamesAccepted"), ("True".into(), "NoConflicts".into(), "no conflicts found".into()));
    assert_eq!(
        condition(&status, "Established"),
        ("True".into(), "InitialNamesAccepted".into(), "the initial names have been accepted".into())
    );
    assert_eq!(
        status["acceptedNames"],
        json!({"plural": "widgets", "singular": "widget", "shortNames": ["wd"], "kind": "Widget",
            "listKind": "WidgetList", "categories": ["all"]})
    );
    // Two status writes by the apiserver: names, then establishment.
    let crd = get(&mut s, &format!("{CRDS}/widgets.example.com")).json_body();
    let managers: Vec<&str> =
        crd["metadata"]["managedFields"].as_array().unwrap().iter().filter_map(|m| m["manager"].as_str()).collect();
    assert!(managers.contains(&"kube-apiserver"), "{managers:?}");

    // Discovery lists it, with its short names and categories.
    let d = get(&mut s, "/apis/example.com/v1").json_body();
    let res = d["resources"].as_array().unwrap().iter().find(|r| r["name"] == "widgets").cloned().unwrap();
    assert_eq!(res["kind"], "Widget");
    assert_eq!(res["namespaced"], true);
    assert_eq!(res["shortNames"], json!(["wd"]));
    assert_eq!(res["categories"], json!(["all"]));

    // Every verb through the generic store.
    let w = json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w1"}, "spec": {"size": 3}});
    let r = call(&mut s, "POST", "/apis/example.com/v1/namespaces/default/widgets", Some(w));
    assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
    let obj = r.json_body();
    assert_eq!(obj["metadata"]["generation"], 1);
    assert_eq!(obj["spec"]["size"], 3);
    let list = get(&mut s, "/apis/example.com/v1/namespaces/default/widgets").json_body();
    assert_eq!(list["kind"], "WidgetList");
    assert_eq!(names(&list), vec!["w1"]);
    // The status subresource: a status write leaves the spec be.
    let mut st = obj.clone();
    st["status"] = json!({"ready": true});
    st["spec"] = json!({"size": 99});
    st["metadata"]["labels"] = json!({"ignored": "yes"});
    let r = call(&mut s, "PUT", "/apis/example.com/v1/namespaces/default/widgets/w1/status", Some(st));
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    assert_eq!(r.json_body()["spec"]["size"], 3);
    assert_eq!(r.json_body()["status"]["ready"], true);
    assert!(r.json_body()["metadata"].get("labels").is_none(), "a status write changes no metadata");
    // No protobuf for custom resources.
    let r = s.handle(
        kubesim::server::Request::new("GET", "/apis/example.com/v1/namespaces/default/widgets/w1")
            .with_header("Accept", "application/vnd.kubernetes.protobuf"),
    );
    assert_eq!(r.status, 406, "{}", String::from_utf8_lossy(&r.body));
    assert_eq!(
        r.json_body()["message"],
        "only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf"
    );
}

#[test]
fn versions_share_one_storage_and_convert_their_api_version() {
    let mut s = server();
    assert_eq!(call(&mut s, "POST", CRDS, Some(widget_crd())).status, 201);
    let w =
        json!({"apiVersion": "example.com/v1beta1", "kind": "Widget", "metadata": {"name": "old"}, "spec": {"a": 1}});
    let r = call(&mut s, "POST", "/apis/example.com/v1beta1/namespaces/default/widgets", Some(w));
    assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
    assert_eq!(r.json_body()["apiVersion"], "example.com/v1beta1");
    let r = get(&mut s, "/apis/example.com/v1/namespaces/default/widgets/old");
    assert_eq!(r.status, 200);
    assert_eq!(r.json_body()["apiVersion"], "example.com/v1");
    assert_eq!(r.json_body()["spec"]["a"], 1);
    let list = get(&mut s, "/apis/example.com/v1beta1/namespaces/default/widgets").json_body();
    assert_eq!(list["items"][0]["apiVersion"], "example.com/v1beta1");
}

#[test]
fn a_name_held_in_the_group_is_not_accepted() {
    let mut s = server();
    assert_eq!(call(&mut s, "POST", CRDS, Some(widget_crd())).status, 201);
    let mut other = widget_crd();
    other["metadata"]["name"] = json!("gadgets.example.com");
    other["spec"]["names"] = json!({"plural": "gadgets", "kind": "Widget"});
    assert_eq!(call(&mut s, "POST", CRDS, Some(other)).status, 201);
    let status = status_of(&mut s, "gadgets.example.com");
    assert_eq!(
        condition(&status, "NamesAccepted"),
        // Each name is checked in turn and the last conflict names the
        // reason (the list kind, defaulted from the kind, is held too).
        ("False".into(), "ListKindConflict".into(), "\"WidgetList\" is already in use".into())
    );
    assert_eq!(
        condition(&status, "Established"),
        ("False".into(), "NotAccepted".into(), "not all names are accepted".into())
    );
    // Served by plural nonetheless? No: the kind was not accepted.
    assert_eq!(get(&mut s, "/apis/example.com/v1/gadgets").status, 404);
}

#[test]
fn definitions_are_validated_as_upstream() {
    let mut s = server();
    let mut bad = widget_crd();
    bad["metadata"]["name"] = json!("foo.example.com");
    bad["spec"]["versions"][0]["storage"] = json!(true);
    let r = call(&mut s, "POST", CRDS, Some(bad));
    assert_eq!(r.status, 422);
    let msg = r.json_body()["message"].as_str().unwrap().to_string();
    assert!(
        msg.starts_with("CustomResourceDefinition.apiextensions.k8s.io \"foo.example.com\" is invalid: ["),
        "{msg}"
    );
    assert!(
        msg.contains("metadata.name: Invalid value: \"foo.example.com\": must be spec.names.plural+\".\"+spec.group")
    );
    assert!(msg.contains("must have exactly one version marked as storage version"), "{msg}");
    // An update may not rename the plural.
    assert_eq!(call(&mut s, "POST", CRDS, Some(widget_crd())).status, 201);
    let mut cur = get(&mut s, &format!("{CRDS}/widgets.example.com")).json_body();
    cur["spec"]["names"]["plural"] = json!("things");
    let r = call(&mut s, "PUT", &format!("{CRDS}/widgets.example.com"), Some(cur));
    assert_eq!(r.status, 422);
    assert!(r.json_body()["message"]
        .as_str()
        .unwrap()
        .contains("spec.names.plural: Invalid value: \"things\": field is immutable"));
    // Conversion webhooks are refused, clearly.
    let mut hooked = widget_crd();
    hooked["metadata"]["name"] = json!("gadgets.example.com");
    hooked["spec"]["names"] = json!({"plural": "gadgets", "kind": "Gadget"});
    hooked["spec"]["conversion"] = json!({"strategy": "Webhook",
        "webhook": {"clientConfig": {"url": "https://example.com/convert"}, "conversionReviewVersions": ["v1"]}});
    let r = call(&mut s, "POST", CRDS, Some(hooked));
    assert_eq!(r.status, 422);
    assert_eq!(
        r.json_body()["message"],
        "CustomResourceDefinition.apiextensions.k8s.io \"gadgets.example.com\" is invalid: spec.conversion.strategy: Forbidden: kubesim does not call conversion webhooks: only \"None\" is supported (served versions differ only in apiVersion)"
    );
}

#[test]
fn deleting_a_definition_deletes_its_objects_then_the_resource() {
    let mut s = server();
    assert_eq!(call(&mut s, "POST", CRDS, Some(widget_crd())).status, 201);
    for n in ["a", "b"] {
        let w = json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": n}});
        assert_eq!(call(&mut s, "POST", "/apis/example.com/v1/namespaces/default/widgets", Some(w)).status, 201);
    }
    let r = call(&mut s, "DELETE", &format!("{CRDS}/widgets.example.com"), None);
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    let body = r.json_body();
    assert_eq!(body["metadata"]["finalizers"], json!(["customresourcecleanup.apiextensions.k8s.io"]));
    assert_eq!(
        condition(&body["status"], "Terminating"),
        (
            "True".into(),
            "InstanceDeletionPending".into(),
            "CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon".into()
        )
    );
    // Then, with the objects gone, so is the definition and its resource.
    assert_eq!(get(&mut s, &format!("{CRDS}/widgets.example.com")).status, 404);
    assert_eq!(get(&mut s, "/apis/example.com/v1/namespaces/default/widgets").status, 404);
    // Created again, it starts empty.
    assert_eq!(call(&mut s, "POST", CRDS, Some(widget_crd())).status, 201);
    let list = get(&mut s, "/apis/example.com/v1/namespaces/default/widgets").json_body();
    assert_eq!(names(&list), Vec::<String>::new());
}

#[test]
fn an_object_with_a_finalizer_holds_its_definition_terminating() {
    let mut s = server();
    assert_eq!(call(&mut s, "POST", CRDS, Some(widget_crd())).status, 201);
    let w = json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "held", "finalizers": ["example.com/hold"]}});
    assert_eq!(call(&mut s, "POST", "/apis/example.com/v1/namespaces/default/widgets", Some(w)).status, 201);
    assert_eq!(call(&mut s, "DELETE", &format!("{CRDS}/widgets.example.com"), None).status, 200);
    let status = status_of(&mut s, "widgets.example.com");
    assert_eq!(
        condition(&status, "Terminating"),
        ("True".into(), "InstanceDeletionInProgress".into(), "CustomResource deletion is in progress".into())
    );
    // Still served while terminating: the object is there, being deleted.
    let held = get(&mut s, "/apis/example.com/v1/namespaces/default/widgets/held").json_body();
    assert!(held["metadata"]["deletionTimestamp"].is_string());
    // But nothing new is created.
    let w = json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "late"}});
    let r = call(&mut s, "POST", "/apis/example.com/v1/namespaces/default/widgets", Some(w));
    assert_eq!(r.status, 403);
    assert_eq!(
        r.json_body()["message"],
        "widgets.example.com \"late\" is forbidden: create not allowed while custom resource definition is terminating"
    );
    let patch = |s: &mut Server, content_type: &str| {
        s.handle(
            kubesim::server::Request::new("PATCH", "/apis/example.com/v1/namespaces/default/widgets/held")
                .with_header("Content-Type", content_type)
                .with_body(br#"{"metadata":{"finalizers":null}}"#.to_vec()),
        )
    };
    // No strategic merge patch for custom resources.
    let r = patch(&mut s, "application/strategic-merge-patch+json");
    assert_eq!(r.status, 415);
    assert_eq!(
        r.json_body()["message"],
        "the body of the request was in an unknown format - accepted media types include: \
         application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml"
    );
    let r = patch(&mut s, "application/merge-patch+json");
    assert!(r.status == 200, "{}", String::from_utf8_lossy(&r.body));
    assert_eq!(get(&mut s, &format!("{CRDS}/widgets.example.com")).status, 404);
}

#[test]
fn tables_print_the_definitions_columns_and_selectable_fields_select() {
    let mut s = server();
    let mut def = widget_crd();
    def["spec"]["versions"][1]["additionalPrinterColumns"] = json!([
        {"name": "Size", "type": "integer", "jsonPath": ".spec.size"},
        {"name": "Ready", "type": "string", "jsonPath": ".status.conditions[?(@.type==\"Ready\")].status",
            "description": "Whether it is ready", "priority": 1},
        {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"}]);
    def["spec"]["versions"][1]["selectableFields"] = json!([{"jsonPath": ".spec.color"}]);
    assert_eq!(call(&mut s, "POST", CRDS, Some(def)).status, 201);
    for (n, color, size) in [("a", "red", 1), ("b", "blue", 2)] {
        let w = json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": n},
            "spec": {"color": color, "size": size}});
        assert_eq!(call(&mut s, "POST", "/apis/example.com/v1/namespaces/default/widgets", Some(w)).status, 201);
    }
    let table = |s: &mut Server, path: &str| {
        s.handle(
            kubesim::server::Request::new("GET", path)
                .with_header("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io"),
        )
        .json_body()
    };
    let t = table(&mut s, "/apis/example.com/v1/namespaces/default/widgets");
    let cols: Vec<(String, String, i64)> = t["columnDefinitions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (c["name"].as_str().unwrap().into(), c["type"].as_str().unwrap().into(), c["priority"].as_i64().unwrap())
        })
        .collect();
    assert_eq!(
        cols,
        vec![
            ("Name".into(), "string".into(), 0),
            ("Size".into(), "integer".into(), 0),
            ("Ready".into(), "string".into(), 1),
            ("Age".into(), "date".into(), 0)
        ]
    );
    assert_eq!(
        t["columnDefinitions"][1]["description"],
        "Custom resource definition column (in JSONPath format): .spec.size"
    );
    assert_eq!(t["rows"][0]["cells"], json!(["a", 1, null, "0s"]));
    // The version without columns prints Name and Age.
    let t = table(&mut s, "/apis/example.com/v1beta1/namespaces/default/widgets");
    assert_eq!(t["columnDefinitions"].as_array().unwrap().len(), 2);
    assert_eq!(t["columnDefinitions"][1]["name"], "Age");
    // Selectable fields, and the labels that are not.
    let list =
        get(&mut s, "/apis/example.com/v1/namespaces/default/widgets?fieldSelector=spec.color%3Dblue").json_body();
    assert_eq!(names(&list), vec!["b"]);
    let r = get(&mut s, "/apis/example.com/v1/namespaces/default/widgets?fieldSelector=spec.size%3D1");
    assert_eq!(r.status, 400);
    assert_eq!(r.json_body()["message"], "field label not supported: spec.size");
}

#[test]
fn openapi_publishes_each_served_version_for_explain_and_apply() {
    let mut s = server();
    let mut def = widget_crd();
    def["spec"]["versions"][1]["schema"]["openAPIV3Schema"] = json!({"type": "object", "properties": {
        "spec": {"type": "object", "description": "What the widget should be.", "properties": {"size": {"type": "integer"}}}}});
    def["spec"]["versions"][1]["selectableFields"] = json!([{"jsonPath": ".spec.size"}]);
    assert_eq!(call(&mut s, "POST", CRDS, Some(def)).status, 201);
    let index = get(&mut s, "/openapi/v3").json_body();
    for gv in ["apis/example.com/v1", "apis/example.com/v1beta1", "api/v1", "apis/apps/v1"] {
        assert!(index["paths"].get(gv).is_some(), "{gv} missing from {index}");
    }
    let doc = get(&mut s, "/openapi/v3/apis/example.com/v1").json_body();
    let schemas = doc["components"]["schemas"].as_object().unwrap();
    let w = &schemas["com.example.v1.Widget"];
    assert_eq!(
        w["x-kubernetes-group-version-kind"],
        json!([{"group": "example.com", "kind": "Widget", "version": "v1"}])
    );
    assert_eq!(w["x-kubernetes-selectable-fields"], json!([{"fieldPath": "spec.size"}]));
    assert_eq!(w["properties"]["spec"]["properties"]["size"]["type"], "integer");
    assert_eq!(
        w["properties"]["metadata"]["allOf"],
        json!([{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}])
    );
    assert!(schemas.contains_key("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"));
    assert!(doc["paths"].get("/apis/example.com/v1/namespaces/{namespace}/widgets/{name}/status").is_some());
    // A custom resource takes no strategic merge patch, and says so (kubectl
    // sends it a merge patch).
    let patch = &doc["paths"]["/apis/example.com/v1/namespaces/{namespace}/widgets/{name}"]["patch"];
    let types: Vec<&String> = patch["requestBody"]["content"].as_object().unwrap().keys().collect();
    assert_eq!(types, ["application/apply-patch+yaml", "application/json-patch+json", "application/merge-patch+json"]);
    // The other version's document has its own kind, not this one's.
    let doc = get(&mut s, "/openapi/v3/apis/example.com/v1beta1").json_body();
    assert!(doc["components"]["schemas"].get("com.example.v1beta1.Widget").is_some());
    assert!(doc["components"]["schemas"].get("com.example.v1.Widget").is_none());
    assert_eq!(get(&mut s, "/openapi/v3/apis/example.com/v2").status, 404);
    // v2 carries them too.
    let v2 = get(&mut s, "/openapi/v2").json_body();
    assert!(v2["definitions"].get("com.example.v1.Widget").is_some());
    let patch = &v2["paths"]["/apis/example.com/v1/namespaces/{namespace}/widgets/{name}"]["patch"];
    assert!(!patch["consumes"].as_array().unwrap().contains(&json!("application/strategic-merge-patch+json")));
}

fn typed_crd() -> Value {
    let mut def = widget_crd();
    let schema = json!({"type": "object", "properties": {
        "spec": {"type": "object", "properties": {
            "size": {"type": "integer"},
            "ports": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
                "items": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}, "port": {"type": "integer"}}}},
            "extra": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
            "nested": {"type": "object"}}},
        "status": {"type": "object", "properties": {"ready": {"type": "boolean"}}}}});
    def["spec"]["versions"][1]["schema"]["openAPIV3Schema"] = schema;
    def
}

#[test]
fn unknown_fields_are_pruned_warned_of_or_refused() {
    let mut s = server();
    assert_eq!(call(&mut s, "POST", CRDS, Some(typed_crd())).status, 201);
    let body = |name: &str| {
        json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": name},
            "spec": {"size": 1, "foo": 2, "extra": {"anything": {"goes": true}}, "nested": {"gone": 1}}, "top": 1})
    };
    let post = |s: &mut Server, query: &str, b: Value| {
        s.handle(
            kubesim::server::Request::new("POST", &format!("/apis/example.com/v1/namespaces/default/widgets{query}"))
                .with_header("Content-Type", "application/json")
                .with_body(serde_json::to_vec(&b).unwrap()),
        )
    };
    let r = post(&mut s, "?fieldValidation=Strict", body("strict"));
    assert_eq!(r.status, 400, "{}", String::from_utf8_lossy(&r.body));
    let msg = r.json_body()["message"].as_str().unwrap().to_string();
    assert!(
        msg.starts_with("Widget in version \"v1\" cannot be handled as a Widget: strict decoding error: "),
        "{msg}"
    );
    for f in ["unknown field \"spec.foo\"", "unknown field \"spec.nested.gone\"", "unknown field \"top\""] {
        assert!(msg.contains(f), "{msg} lacks {f}");
    }
    let r = post(&mut s, "", body("warned"));
    assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
    let warnings: Vec<String> =
        r.headers.iter().filter(|(k, _)| k.eq_ignore_ascii_case("Warning")).map(|(_, v)| v.to_string()).collect();
    assert!(warnings.iter().any(|w| w.contains("unknown field \\\"spec.foo\\\"")), "{warnings:?}");
    let obj = r.json_body();
    assert_eq!(obj["spec"], json!({"size": 1, "extra": {"anything": {"goes": true}}, "nested": {}}));
    assert!(obj.get("top").is_none());
}

#[test]
fn server_side_apply_owns_the_fields_the_schema_declares() {
    let mut s = server();
    assert_eq!(call(&mut s, "POST", CRDS, Some(typed_crd())).status, 201);
    let apply = |s: &mut Server, manager: &str, yaml: &str| {
        s.handle(
            kubesim::server::Request::new(
                "PATCH",
                &format!("/apis/example.com/v1/namespaces/default/widgets/w?fieldManager={manager}"),
            )
            .with_header("Content-Type", "application/apply-patch+yaml")
            .with_body(yaml.as_bytes().to_vec()),
        )
    };
    let r = apply(
        &mut s,
        "alice",
        "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  size: 1\n  ports:\n  - name: http\n    port: 80\n",
    );
    assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
    let obj = r.json_body();
    let mf = &obj["metadata"]["managedFields"][0];
    assert_eq!(mf["manager"], "alice");
    assert_eq!(mf["operation"], "Apply");
    assert_eq!(
        mf["fieldsV1"]["f:spec"],
        json!({"f:ports": {"k:{\"name\":\"http\"}": {".": {}, "f:name": {}, "f:port": {}}}, "f:size": {}})
    );
    // Another manager's list item merges by key; a conflicting value is a 409.
    let r = apply(
        &mut s,
        "bob",
        "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  ports:\n  - name: https\n    port: 443\n",
    );
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    assert_eq!(r.json_body()["spec"]["ports"].as_array().unwrap().len(), 2);
    let r = apply(&mut s, "bob", "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  size: 2\n");
    assert_eq!(r.status, 409, "{}", String::from_utf8_lossy(&r.body));
    // A field the schema does not declare cannot be applied.
    let r = apply(&mut s, "bob", "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  bogus: 1\n");
    assert_eq!(r.status, 500, "{}", String::from_utf8_lossy(&r.body));
    assert!(r.json_body()["message"].as_str().unwrap().contains(".spec.bogus: field not declared in schema"));
}

#[test]
fn values_are_validated_and_defaulted_by_the_schema() {
    let mut s = server();
    let mut def = widget_crd();
    def["spec"]["versions"][1]["schema"]["openAPIV3Schema"] = json!({"type": "object", "properties": {
        "spec": {"type": "object", "required": ["size"], "properties": {
            "size": {"type": "integer", "maximum": 10},
            "color": {"type": "string", "enum": ["red", "blue"], "default": "red"}}}}});
    assert_eq!(call(&mut s, "POST", CRDS, Some(def)).status, 201);
    let w = |spec: Value| json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": spec});
    let r = call(
        &mut s,
        "POST",
        "/apis/example.com/v1/namespaces/default/widgets",
        Some(w(json!({"size": "big", "color": "green"}))),
    );
    assert_eq!(r.status, 422, "{}", String::from_utf8_lossy(&r.body));
    let body = r.json_body();
    assert_eq!(
        body["message"],
        "Widget.example.com \"w\" is invalid: [spec.size: Invalid value: \"string\": spec.size in body must be of type integer: \"string\", \
         spec.color: Unsupported value: \"green\": supported values: \"red\", \"blue\"]"
    );
    assert_eq!(body["details"]["causes"][0]["field"], "spec.size");
    assert_eq!(body["details"]["causes"][1]["reason"], "FieldValueNotSupported");
    let r = call(&mut s, "POST", "/apis/example.com/v1/namespaces/default/widgets", Some(w(json!({}))));
    assert_eq!(r.status, 422);
    assert_eq!(r.json_body()["message"], "Widget.example.com \"w\" is invalid: spec.size: Required value");
    let r = call(&mut s, "POST", "/apis/example.com/v1/namespaces/default/widgets", Some(w(json!({"size": 3}))));
    assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
    assert_eq!(r.json_body()["spec"], json!({"size": 3, "color": "red"}));
}

#[test]
fn aggregated_discovery_lists_custom_groups() {
    let mut s = server();
    assert_eq!(call(&mut s, "POST", CRDS, Some(widget_crd())).status, 201);
    let r = s.handle(
        kubesim::server::Request::new("GET", "/apis")
            .with_header("Accept", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"),
    );
    assert_eq!(r.status, 200);
    let d = r.json_body();
    let group = d["items"].as_array().unwrap().iter().find(|g| g["metadata"]["name"] == "example.com").cloned();
    let group = group.expect("example.com in aggregated discovery");
    let versions: Vec<&str> =
        group["versions"].as_array().unwrap().iter().filter_map(|v| v["version"].as_str()).collect();
    assert_eq!(versions, vec!["v1", "v1beta1"]);
    let classic = get(&mut s, "/apis/example.com").json_body();
    assert_eq!(classic["preferredVersion"]["version"], "v1");
    assert_eq!(classic["versions"].as_array().unwrap().len(), 2);
}

#[test]
fn the_scale_subresource_reads_and_writes_the_definitions_paths() {
    let mut s = server();
    let mut def = widget_crd();
    def["spec"]["versions"][1]["subresources"] = json!({"status": {}, "scale": {
        "specReplicasPath": ".spec.count", "statusReplicasPath": ".status.count", "labelSelectorPath": ".status.selector"}});
    assert_eq!(call(&mut s, "POST", CRDS, Some(def)).status, 201);
    let w = json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": {"count": 2}});
    assert_eq!(call(&mut s, "POST", "/apis/example.com/v1/namespaces/default/widgets", Some(w)).status, 201);
    let scale = get(&mut s, "/apis/example.com/v1/namespaces/default/widgets/w/scale").json_body();
    assert_eq!(scale["kind"], "Scale");
    assert_eq!(scale["spec"]["replicas"], 2);
    assert_eq!(scale["status"]["replicas"], 0);
    let mut want = scale.clone();
    want["spec"]["replicas"] = json!(5);
    let r = call(&mut s, "PUT", "/apis/example.com/v1/namespaces/default/widgets/w/scale", Some(want));
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    assert_eq!(r.json_body()["spec"]["replicas"], 5);
    let obj = get(&mut s, "/apis/example.com/v1/namespaces/default/widgets/w").json_body();
    assert_eq!(obj["spec"]["count"], 5);
    let d = get(&mut s, "/apis/example.com/v1").json_body();
    assert!(d["resources"].as_array().unwrap().iter().any(|r| r["name"] == "widgets/scale"), "{d}");
}

#[test]
fn cel_rules_are_kept_and_their_definition_warns_they_are_not_evaluated() {
    let mut s = server();
    let mut def = typed_crd();
    def["spec"]["versions"][1]["schema"]["openAPIV3Schema"]["properties"]["spec"]["x-kubernetes-validations"] =
        json!([{"rule": "self.size >= 0", "message": "size must not be negative"}]);
    let r = call(&mut s, "POST", CRDS, Some(def));
    assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
    let warning = r.header("Warning").unwrap_or("");
    assert!(
        warning.contains(
            "spec.versions[1].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations: CEL validation rules are not evaluated by kubesim"
        ),
        "{warning}"
    );
    // The rule is stored as written.
    let stored = get(&mut s, &format!("{CRDS}/widgets.example.com")).json_body();
    assert_eq!(
        stored["spec"]["versions"][1]["schema"]["openAPIV3Schema"]["properties"]["spec"]["x-kubernetes-validations"][0]
            ["rule"],
        "self.size >= 0"
    );
    // Without rules, no warning.
    let r = call(
        &mut s,
        "POST",
        CRDS,
        Some(json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "gadgets.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced", "names": {"plural": "gadgets", "kind": "Gadget"},
            "versions": [{"name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}]}})),
    );
    assert_eq!(r.status, 201);
    assert!(r.header("Warning").is_none());
}

#[test]
fn a_default_added_later_is_applied_when_objects_are_read() {
    let mut s = server();
    let schema = |color: Value| {
        json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {
            "size": {"type": "integer"}, "color": color}}}})
    };
    let mut def = widget_crd();
    def["spec"]["versions"][1]["schema"]["openAPIV3Schema"] = schema(json!({"type": "string"}));
    assert_eq!(call(&mut s, "POST", CRDS, Some(def)).status, 201);
    let items = "/apis/example.com/v1/namespaces/default/widgets";
    let w = json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": {"size": 1}});
    assert_eq!(call(&mut s, "POST", items, Some(w)).status, 201);
    // The definition gains a default: the stored object does not have it,
    // every read does.
    let mut cur = get(&mut s, &format!("{CRDS}/widgets.example.com")).json_body();
    cur["spec"]["versions"][1]["schema"]["openAPIV3Schema"] = schema(json!({"type": "string", "default": "red"}));
    let r = call(&mut s, "PUT", &format!("{CRDS}/widgets.example.com"), Some(cur));
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    assert_eq!(get(&mut s, &format!("{items}/w")).json_body()["spec"], json!({"size": 1, "color": "red"}));
    assert_eq!(get(&mut s, items).json_body()["items"][0]["spec"]["color"], "red");
    let r = get(&mut s, &format!("{items}?watch=1&resourceVersion=0"));
    assert!(String::from_utf8_lossy(&r.body).contains(r#""color":"red""#), "{}", String::from_utf8_lossy(&r.body));
    // The other version reads it defaulted by its own schema (none).
    assert!(get(&mut s, "/apis/example.com/v1beta1/namespaces/default/widgets/w").json_body()["spec"]
        .get("color")
        .is_none());
}

/// Definitions refused, one rule each, with upstream's field path and
/// words (cases after upstream's apiextensions validation tests).
#[test]
fn definition_validation_table() {
    let base = || {
        json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "widgets.example.com"},
            "spec": {"group": "example.com", "scope": "Namespaced",
                "names": {"plural": "widgets", "kind": "Widget"},
                "versions": [{"name": "v1", "served": true, "storage": true,
                    "schema": {"openAPIV3Schema": {"type": "object", "properties": {"spec": {"type": "object"}}}}}]}})
    };
    type Change = Box<dyn Fn(&mut Value)>;
    let cases: Vec<(&str, Change, &str)> = vec![
        ("group without a dot", Box::new(|d| {
            d["spec"]["group"] = json!("example");
            d["metadata"]["name"] = json!("widgets.example");
        }), "spec.group: Invalid value: \"example\": should be a domain with at least one dot"),
        ("unknown scope", Box::new(|d| d["spec"]["scope"] = json!("Global")),
            "spec.scope: Unsupported value: \"Global\": supported values: \"Cluster\", \"Namespaced\""),
        ("no storage version", Box::new(|d| d["spec"]["versions"][0]["storage"] = json!(false)),
            "must have exactly one version marked as storage version"),
        // (One schema for every version is checked where upstream hoists
        // it: `spec.validation`.)
        ("a root that is not an object", Box::new(|d| d["spec"]["versions"][0]["schema"]["openAPIV3Schema"] = json!({"type": "string"})),
            "spec.validation.openAPIV3Schema.type: Invalid value: \"string\": must be object at the root"),
        ("a property without a type", Box::new(|d| d["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"] = json!({"properties": {}})),
            "spec.validation.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields"),
        ("no schema", Box::new(|d| { d["spec"]["versions"][0].as_object_mut().unwrap().remove("schema"); }),
            "spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required"),
        ("a kind that is not a kind", Box::new(|d| d["spec"]["names"]["kind"] = json!("wid get")),
            "spec.names.kind: Invalid value: \"wid get\""),
        ("webhook conversion", Box::new(|d| d["spec"]["conversion"] = json!({"strategy": "Webhook"})),
            "spec.conversion.strategy: Forbidden: kubesim does not call conversion webhooks"),
    ];
    for (what, change, wanted) in cases {
        let mut s = server();
        let mut def = base();
        change(&mut def);
        let r = call(&mut s, "POST", CRDS, Some(def));
        let message = r.json_body()["message"].as_str().unwrap_or("").to_string();
        assert_eq!(r.status, 422, "{what}: {message}");
        assert!(message.contains(wanted), "{what}: {message}");
    }
    let mut s = server();
    assert_eq!(call(&mut s, "POST", CRDS, Some(base())).status, 201, "the base case is valid");
}

#[test]
fn a_number_comes_back_as_the_nearest_double_prints_it() {
    // Go parses a JSON number into the nearest float64 and writes back its
    // shortest form; serde_json's default parse is off by one unit in the
    // last place for some inputs (this one found by the `protobuf` fuzz
    // target), so the crate is built with `float_roundtrip`.
    let mut s = server();
    assert_eq!(call(&mut s, "POST", CRDS, Some(widget_crd())).status, 201);
    let body = r#"{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"ratio":444444.44444474444}}"#;
    let r = s.handle(
        kubesim::server::Request::new("POST", "/apis/example.com/v1/namespaces/default/widgets")
            .with_header("Content-Type", "application/json")
            .with_body(body.as_bytes().to_vec()),
    );
    assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
    let r = get(&mut s, "/apis/example.com/v1/namespaces/default/widgets/w");
    assert!(String::from_utf8_lossy(&r.body).contains(r#""ratio":444444.44444474444"#));
}

#[test]
fn a_custom_objects_update_owns_every_node_it_added_with_a_dot() {
    // A custom resource's zero value is an empty object: `spec` and every
    // struct under it are added by the create (as upstream records it:
    // `"f:spec":{".":{},...}`), and so is `status` by its first write.
    let mut s = server();
    assert_eq!(call(&mut s, "POST", CRDS, Some(typed_crd())).status, 201);
    let w = json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"},
        "spec": {"size": 1, "ports": [{"name": "http", "port": 80}]}});
    let r = call(&mut s, "POST", "/apis/example.com/v1/namespaces/default/widgets", Some(w));
    assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.body));
    let obj = r.json_body();
    assert_eq!(
        obj["metadata"]["managedFields"][0]["fieldsV1"],
        json!({"f:spec": {".": {}, "f:ports": {".": {}, "k:{\"name\":\"http\"}": {".": {}, "f:name": {}, "f:port": {}}},
            "f:size": {}}})
    );
    let mut with_status = obj.clone();
    with_status["status"] = json!({"ready": true});
    let r = call(&mut s, "PUT", "/apis/example.com/v1/namespaces/default/widgets/w/status", Some(with_status));
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    let entries = r.json_body()["metadata"]["managedFields"].clone();
    let status_entry = entries.as_array().unwrap().iter().find(|e| e["subresource"] == "status").cloned();
    assert_eq!(status_entry.expect("a status entry")["fieldsV1"], json!({"f:status": {".": {}, "f:ready": {}}}));
}
