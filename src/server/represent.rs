//! Turning a resource response into the negotiated representation: the
//! conversions of `;as=` (Table, PartialObjectMetadata, and their lists)
//! and then the encoding (JSON, YAML, protobuf). Responses are produced as
//! JSON by the verbs; a plain JSON answer passes through untouched.

use std::sync::Arc;

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{json, Map, Value};

use crate::api::{gvk, Status};
use crate::clock::SimTime;
use crate::registry::table::Printer;
use crate::registry::ResourceType;

use super::negotiation::{Convert, Encoding, Output};
use super::params::Query;
use super::Response;

/// `includeObject` of a Table request.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum IncludeObject {
    None,
    #[default]
    Metadata,
    Object,
}

/// The Table options of a request (validated only when a Table is asked for,
/// as upstream does).
pub fn include_object(q: &Query) -> Result<IncludeObject, Status> {
    match q.get("includeObject").unwrap_or("") {
        "" | "Metadata" => Ok(IncludeObject::Metadata),
        "None" => Ok(IncludeObject::None),
        "Object" => Ok(IncludeObject::Object),
        other => Err(Status::bad_request(format!(
            "Unable to convert to Table as requested: includeObject: Unsupported value: {other:?}: supported values: \"Metadata\", \"None\", \"Object\""
        ))),
    }
}

/// What rendering needs beyond the response.
#[derive(Clone, Debug)]
pub struct Rendering {
    pub rt: Arc<ResourceType>,
    pub output: Output,
    pub include: IncludeObject,
    pub now: SimTime,
}

/// The Go type upstream names in its conversion errors (`*core.PodList`).
fn go_type(rt: &ResourceType, list: bool) -> String {
    let pkg = if rt.group().is_empty() { "core" } else { rt.group().split('.').next().unwrap_or(rt.group()) };
    format!("*{pkg}.{}{}", rt.kind(), if list { "List" } else { "" })
}

fn metadata_only(v: &Value, api_version: &str) -> Value {
    json!({
        "kind": "PartialObjectMetadata",
        "apiVersion": api_version,
        "metadata": v.get("metadata").cloned().unwrap_or_else(|| json!({})),
    })
}

/// An object or list as it was written, read only as far as the
/// PartialObjectMetadata conversions need: its kind, its metadata, and
/// each item's metadata, borrowed from the body (everything else is
/// skipped, not parsed into values).
#[derive(Deserialize)]
struct RawDocument<'a> {
    #[serde(borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    metadata: Option<&'a RawValue>,
    #[serde(borrow, default)]
    items: Option<Vec<RawItem<'a>>>,
}

#[derive(Deserialize)]
struct RawItem<'a> {
    #[serde(borrow, default)]
    metadata: Option<&'a RawValue>,
}

/// Writes one PartialObjectMetadata around an object's metadata as written.
pub(super) fn write_metadata_only(out: &mut Vec<u8>, api_version: &str, metadata: Option<&RawValue>) {
    out.extend_from_slice(br#"{"kind":"PartialObjectMetadata","apiVersion":""#);
    out.extend_from_slice(api_version.as_bytes());
    out.extend_from_slice(br#"","metadata":"#);
    out.extend_from_slice(metadata.map_or("{}", RawValue::get).as_bytes());
    out.push(b'}');
}

/// The PartialObjectMetadata conversions of a JSON body, made from the
/// bytes: each object's metadata is copied as it was written, so a list of
/// many objects costs a scan, not a parse of every object. None when no
/// such conversion was asked for, or the body is not a resource object or
/// list (a Status passes through untouched); the same answers as `convert`.
pub fn metadata_only_json(r: &Rendering, body: &[u8]) -> Option<Result<Vec<u8>, Status>> {
    let target = r.output.convert.filter(|c| *c != Convert::Table)?;
    let doc: RawDocument = serde_json::from_slice(body).ok()?;
    let kind = doc.kind.as_deref().unwrap_or("");
    if kind == "Status" {
        return None;
    }
    let list = kind == r.rt.list_kind();
    let api_version = r.output.meta_api_version();
    if let Some(refused) = wrong_shape(r, target, list) {
        return Some(Err(refused));
    }
    match target {
        Convert::PartialObjectMetadata => {
            let mut out = Vec::with_capacity(body.len().min(4096));
            write_metadata_only(&mut out, api_version, doc.metadata);
            Some(Ok(out))
        }
        _ => {
            let meta = doc.metadata.and_then(|m| serde_json::from_str::<Value>(m.get()).ok());
            // Metadata is most of a typical object: no reallocation of a large list.
            let mut out = Vec::with_capacity(body.len());
            out.extend_from_slice(br#"{"kind":"PartialObjectMetadataList","apiVersion":""#);
            out.extend_from_slice(api_version.as_bytes());
            out.extend_from_slice(br#"","metadata":"#);
            out.extend_from_slice(&serde_json::to_vec(&paging(meta.as_ref())).unwrap_or_default());
            out.extend_from_slice(br#","items":["#);
            for (i, item) in doc.items.iter().flatten().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_metadata_only(&mut out, api_version, item.metadata);
            }
            out.extend_from_slice(b"]}");
            Some(Ok(out))
        }
    }
}

/// The 406 for a PartialObjectMetadata conversion asked of a list, or a
/// PartialObjectMetadataList of a single object, in upstream's words.
fn wrong_shape(r: &Rendering, target: Convert, list: bool) -> Option<Status> {
    let message = match (target, list) {
        (Convert::PartialObjectMetadata, true) => {
            "you requested PartialObjectMetadata, but the requested object is a list"
        }
        (Convert::PartialObjectMetadataList, false) => {
            "you requested PartialObjectMetadataList, but the requested object is not a list"
        }
        _ => return None,
    };
    Some(Status::not_acceptable(format!("{message} ({})", go_type(&r.rt, list))))
}

/// The list metadata a converted list carries over.
fn list_meta(v: &Value) -> Value {
    paging(v.get("metadata"))
}

/// Of a list's metadata, what a converted list carries over.
fn paging(metadata: Option<&Value>) -> Value {
    let mut m = Map::new();
    if let Some(Value::Object(src)) = metadata {
        for k in ["resourceVersion", "continue", "remainingItemCount"] {
            if let Some(x) = src.get(k) {
                m.insert(k.into(), x.clone());
            }
        }
    }
    Value::Object(m)
}

/// Applies the `;as=` conversion to a JSON object or list of `r.rt`.
/// `headers`: whether a Table carries its column definitions (a watch sends
/// them with the first event only).
pub fn convert(r: &Rendering, v: Value, headers: bool) -> Result<Value, Status> {
    let Some(target) = r.output.convert else { return Ok(v) };
    let kind = v.get("kind").and_then(Value::as_str).unwrap_or("");
    if kind == "Status" {
        return Ok(v);
    }
    let list = kind == r.rt.list_kind();
    let api_version = r.output.meta_api_version();
    match target {
        Convert::PartialObjectMetadata => {
            if let Some(refused) = wrong_shape(r, target, list) {
                return Err(refused);
            }
            Ok(metadata_only(&v, api_version))
        }
        Convert::PartialObjectMetadataList => {
            if let Some(refused) = wrong_shape(r, target, list) {
                return Err(refused);
            }
            let items: Vec<Value> = v
                .get("items")
                .and_then(Value::as_array)
                .map(|a| a.iter().map(|i| metadata_only(i, api_version)).collect())
                .unwrap_or_default();
            Ok(json!({
                "kind": "PartialObjectMetadataList",
                "apiVersion": api_version,
                "metadata": list_meta(&v),
                "items": items,
            }))
        }
        Convert::Table => {
            // Items print with the resource's printer; a single object with
            // its own kind's (a subresource's Scale has the default table).
            let own_kind = list || {
                let (group, _) = gvk::split_api_version(v.get("apiVersion").and_then(Value::as_str).unwrap_or(""));
                group == r.rt.group() && kind == r.rt.kind()
            };
            let printer = if own_kind { Printer::Kind(&*r.rt.strategy) } else { Printer::Default };
            let (objects, metadata): (Vec<&Value>, Value) = if list {
                (
                    v.get("items").and_then(Value::as_array).map(|a| a.iter().collect()).unwrap_or_default(),
                    list_meta(&v),
                )
            } else {
                let rv = v.pointer("/metadata/resourceVersion").cloned();
                (vec![&v], rv.map(|rv| json!({"resourceVersion": rv})).unwrap_or_else(|| json!({})))
            };
            let rows: Vec<Value> = objects
                .into_iter()
                .map(|o| {
                    let mut row = printer.row(o, r.now);
                    let object = match r.include {
                        IncludeObject::None => Value::Null,
                        IncludeObject::Metadata => metadata_only(o, api_version),
                        IncludeObject::Object => {
                            let mut full = o.clone();
                            // List items carry no kind; a row's object does.
                            if let Value::Object(m) = &mut full {
                                if !m.contains_key("kind") {
                                    let mut typed = Map::new();
                                    typed.insert("kind".into(), r.rt.kind().into());
                                    typed.insert("apiVersion".into(), r.rt.api_version().into());
                                    typed.extend(std::mem::take(m));
                                    *m = typed;
                                }
                            }
                            full
                        }
                    };
                    row.insert("object".into(), object);
                    Value::Object(row)
                })
                .collect();
            Ok(json!({
                "kind": "Table",
                "apiVersion": api_version,
                "metadata": metadata,
                "columnDefinitions": if headers { printer.column_definitions() } else { Value::Null },
                "rows": rows,
            }))
        }
    }
}

/// Encodes a JSON value in `encoding`, as a body and its content type.
pub fn encode(v: Value, encoding: Encoding) -> Result<(Vec<u8>, &'static str), String> {
    match encoding {
        Encoding::Json => Ok((crate::api::to_json(&v), Encoding::Json.content_type())),
        Encoding::Yaml => Ok((crate::api::yaml::to_string(&v).into_bytes(), Encoding::Yaml.content_type())),
        Encoding::Protobuf => Ok((crate::proto::encode_object(&v)?, Encoding::Protobuf.content_type())),
    }
}

fn set_content_type(r: &mut Response, ct: &str) {
    for (k, val) in r.headers.iter_mut() {
        if k.eq_ignore_ascii_case("Content-Type") {
            *val = ct.to_string().into();
        }
    }
}

/// Renders a verb's JSON response (success or Status) as negotiated.
pub fn render(mut resp: Response, r: &Rendering) -> Response {
    let is_json = resp.header("Content-Type").is_some_and(|c| c.starts_with("application/json"));
    if !is_json || (r.output.encoding == Encoding::Json && r.output.convert.is_none()) {
        return resp;
    }
    let unconverted = Rendering { output: Output { convert: None, ..r.output }, ..r.clone() };
    let refuse = |resp: Response, s: &Status| {
        let mut err = Response::status(s);
        err.headers.extend(resp.headers.into_iter().filter(|(k, _)| !k.eq_ignore_ascii_case("Content-Type")));
        render(err, &unconverted)
    };
    if resp.status < 300 {
        match metadata_only_json(r, &resp.body) {
            Some(Ok(json)) => {
                resp.body = json;
                return render(resp, &unconverted);
            }
            Some(Err(s)) => return refuse(resp, &s),
            None => {}
        }
    }
    if r.output.encoding == Encoding::Protobuf && r.output.convert.is_none() {
        // Straight from the body's bytes, without parsing it.
        if let Some(body) = crate::proto::encode_object_json(&resp.body) {
            resp.body = body;
            set_content_type(&mut resp, Encoding::Protobuf.content_type());
            return resp;
        }
    }
    let Ok(v) = serde_json::from_slice::<Value>(&resp.body) else { return resp };
    let v = if resp.status < 300 && r.output.convert.is_some() {
        match convert(r, v, true) {
            Ok(v) => v,
            Err(s) => return refuse(resp, &s),
        }
    } else {
        v
    };
    match encode(v, r.output.encoding) {
        Ok((body, ct)) => {
            resp.body = body;
            set_content_type(&mut resp, ct);
            resp
        }
        Err(e) => Response::status(&Status::internal_error(e)),
    }
}

/// The built-in resource type of a body's `apiVersion`/`kind` (an object or
/// its list).
fn resource_of(v: &Value) -> Option<&'static Arc<ResourceType>> {
    let kind = v.get("kind")?.as_str()?;
    let api_version = v.get("apiVersion")?.as_str()?;
    crate::registry::kinds::builtin_catalog().by_kind(api_version, kind)
}

/// Renders a JSON body of a built-in kind (an object or a list, as a verb
/// answered it) in another output, as the server would have at `now`:
/// for tools that show one response in every representation. None when the
/// body is not an object or list of a built-in kind.
pub fn rerender(body: &[u8], output: Output, include: IncludeObject, now: SimTime) -> Option<Result<Vec<u8>, String>> {
    let v: Value = serde_json::from_slice(body).ok()?;
    let rt = resource_of(&v)?.clone();
    let r = Rendering { rt, output, include, now };
    Some(convert(&r, v, true).map_err(|s| s.message).and_then(|v| encode(v, output.encoding)).map(|(b, _)| b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::kinds::builtin_catalog;

    fn rendering(convert: Option<Convert>, include: IncludeObject) -> Rendering {
        Rendering {
            rt: builtin_catalog().lookup("", "v1", "configmaps").unwrap().clone(),
            output: Output { encoding: Encoding::Json, convert, v1beta1: false },
            include,
            now: SimTime(1_700_000_060_000),
        }
    }

    fn list() -> Value {
        json!({"kind": "ConfigMapList", "apiVersion": "v1",
            "metadata": {"resourceVersion": "7", "continue": "abc", "remainingItemCount": 3},
            "items": [{"metadata": {"name": "a", "resourceVersion": "5", "creationTimestamp": "2023-11-14T22:13:20Z"}, "data": {"x": "1"}}]})
    }

    #[test]
    fn lists_become_tables_with_their_paging_metadata() {
        let t = convert(&rendering(Some(Convert::Table), IncludeObject::Metadata), list(), true).unwrap();
        assert_eq!(t["kind"], "Table");
        assert_eq!(t["metadata"], json!({"resourceVersion": "7", "continue": "abc", "remainingItemCount": 3}));
        assert_eq!(t["rows"][0]["cells"], json!(["a", 1, "60s"]));
        assert_eq!(t["rows"][0]["object"]["kind"], "PartialObjectMetadata");
        assert_eq!(t["columnDefinitions"][1]["name"], "Data");
        let bare = convert(&rendering(Some(Convert::Table), IncludeObject::None), list(), false).unwrap();
        assert_eq!(bare["rows"][0]["object"], Value::Null);
        assert_eq!(bare["columnDefinitions"], Value::Null);
        let full = convert(&rendering(Some(Convert::Table), IncludeObject::Object), list(), true).unwrap();
        assert_eq!(full["rows"][0]["object"]["kind"], "ConfigMap");
        assert_eq!(full["rows"][0]["object"]["data"]["x"], "1");
    }

    #[test]
    fn protobuf_watchers_and_lists_share_one_encoding_per_object() {
        use crate::server::{Request, Served, Server, ServerConfig};
        let mut s = Server::new(ServerConfig::default());
        let open = |s: &mut Server| match s.serve(
            Request::new(
                "GET",
                &format!("/api/v1/namespaces/default/configmaps?watch=1&resourceVersion={}", s.revision()),
            )
            .with_header("Accept", "application/vnd.kubernetes.protobuf"),
        ) {
            Served::Watch(_, w) => w,
            Served::Response(r) | Served::Log(r, _) => panic!("{}", String::from_utf8_lossy(&r.body)),
        };
        let (mut a, mut b) = (open(&mut s), open(&mut s));
        let before = s.proto_cache.lock().unwrap().len();
        let r = s.handle(
            Request::new("POST", "/api/v1/namespaces/default/configmaps")
                .with_body(br#"{"metadata":{"name":"shared"},"data":{"k":"v"}}"#.to_vec()),
        );
        assert_eq!(r.status, 201);
        let (mut fa, mut fb) = (Vec::new(), Vec::new());
        for e in s.poll_watch(&mut a, 10) {
            a.write_event(&e, &mut fa);
        }
        for e in s.poll_watch(&mut b, 10) {
            b.write_event(&e, &mut fb);
        }
        assert_eq!(fa, fb);
        assert_eq!(s.proto_cache.lock().unwrap().len(), before + 1, "one encoding for both watchers");
        let frames = crate::proto::read_watch_frames(&fa).unwrap();
        assert_eq!((frames[0].0.as_str(), frames[0].1["metadata"]["name"].as_str()), ("ADDED", Some("shared")));
        // A list reuses it, and decodes to the JSON list's items.
        let pb = s.handle(
            Request::new("GET", "/api/v1/namespaces/default/configmaps")
                .with_header("Accept", "application/vnd.kubernetes.protobuf"),
        );
        let json = s.handle(Request::new("GET", "/api/v1/namespaces/default/configmaps"));
        let mut want = json.json_body();
        let got = crate::proto::decode_object(&pb.body).unwrap();
        // List items carry no kind on either wire; JSON items do carry theirs.
        for item in want["items"].as_array_mut().unwrap() {
            let m = item.as_object_mut().unwrap();
            m.shift_remove("kind");
            m.shift_remove("apiVersion");
        }
        assert_eq!(got["items"], want["items"]);
        assert_eq!(got["metadata"], want["metadata"]);
    }

    #[test]
    fn metadata_read_from_the_bytes_is_the_conversion_of_the_parsed_body() {
        let object = list()["items"][0].clone();
        let bare_list = json!({"kind": "ConfigMapList", "apiVersion": "v1", "items": [{"data": {}}, object.clone()]});
        let cases = [
            (Convert::PartialObjectMetadataList, list()),
            (Convert::PartialObjectMetadataList, bare_list.clone()),
            (
                Convert::PartialObjectMetadata,
                json!({"kind": "ConfigMap", "apiVersion": "v1", "metadata": object["metadata"]}),
            ),
            (Convert::PartialObjectMetadata, json!({"kind": "ConfigMap", "data": {"a": "b"}})),
            (Convert::PartialObjectMetadata, list()),
            (Convert::PartialObjectMetadataList, object),
        ];
        for (target, doc) in cases {
            let r = rendering(Some(target), IncludeObject::Metadata);
            let fast = metadata_only_json(&r, &serde_json::to_vec(&doc).unwrap()).expect("converted from the bytes");
            match (fast, convert(&r, doc.clone(), true)) {
                (Ok(bytes), Ok(v)) => assert_eq!(
                    String::from_utf8(bytes).unwrap(),
                    serde_json::to_string(&v).unwrap(),
                    "{target:?} of {doc}"
                ),
                (Err(a), Err(b)) => assert_eq!((a.code, a.message), (b.code, b.message)),
                (fast, slow) => panic!("{target:?} of {doc}: {fast:?} against {slow:?}"),
            }
        }
        // A Status, a Table request and a body that is not JSON are not for it.
        let status = serde_json::to_vec(&json!({"kind": "Status", "apiVersion": "v1", "code": 404})).unwrap();
        assert!(metadata_only_json(&rendering(Some(Convert::PartialObjectMetadata), IncludeObject::Metadata), &status)
            .is_none());
        assert!(metadata_only_json(&rendering(Some(Convert::Table), IncludeObject::Metadata), b"{}").is_none());
        assert!(metadata_only_json(&rendering(Some(Convert::PartialObjectMetadata), IncludeObject::Metadata), b"{")
            .is_none());
    }

    #[test]
    fn partial_metadata_matches_list_or_object() {
        let l = convert(&rendering(Some(Convert::PartialObjectMetadataList), IncludeObject::Metadata), list(), true)
            .unwrap();
        assert_eq!(
            l["items"][0],
            json!({"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1",
            "metadata": {"name": "a", "resourceVersion": "5", "creationTimestamp": "2023-11-14T22:13:20Z"}})
        );
        let e = convert(&rendering(Some(Convert::PartialObjectMetadata), IncludeObject::Metadata), list(), true)
            .unwrap_err();
        assert_eq!(e.code, 406);
        assert!(e.message.contains("(*core.ConfigMapList)"), "{}", e.message);
    }
}
