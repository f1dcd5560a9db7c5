//! `/openapi/v2` as protobuf (`application/com.github.proto-openapi.spec.v2@v1.0+protobuf`),
//! the encoding kubectl asks for: the subset of gnostic's `openapi.v2`
//! messages our document uses (field numbers from its `OpenAPIv2.proto`),
//! filled from the same JSON document the JSON endpoint serves.

use prost::Message;
use serde_json::Value;

#[derive(Clone, PartialEq, Message)]
pub struct Document {
    #[prost(string, tag = "1")]
    pub swagger: String,
    #[prost(message, optional, tag = "2")]
    pub info: Option<Info>,
    #[prost(message, optional, tag = "8")]
    pub paths: Option<Paths>,
    #[prost(message, optional, tag = "9")]
    pub definitions: Option<Definitions>,
}

#[derive(Clone, PartialEq, Message)]
pub struct Info {
    #[prost(string, tag = "1")]
    pub title: String,
    #[prost(string, tag = "2")]
    pub version: String,
}

#[derive(Clone, PartialEq, Message)]
pub struct Paths {
    #[prost(message, repeated, tag = "2")]
    pub path: Vec<NamedPathItem>,
}

#[derive(Clone, PartialEq, Message)]
pub struct NamedPathItem {
    #[prost(string, tag = "1")]
    pub name: String,
    #[prost(message, optional, tag = "2")]
    pub value: Option<PathItem>,
}

#[derive(Clone, PartialEq, Message)]
pub struct PathItem {
    #[prost(message, optional, tag = "2")]
    pub get: Option<Operation>,
    #[prost(message, optional, tag = "3")]
    pub put: Option<Operation>,
    #[prost(message, optional, tag = "4")]
    pub post: Option<Operation>,
    #[prost(message, optional, tag = "5")]
    pub delete: Option<Operation>,
    #[prost(message, optional, tag = "8")]
    pub patch: Option<Operation>,
}

#[derive(Clone, PartialEq, Message)]
pub struct Operation {
    #[prost(string, tag = "5")]
    pub operation_id: String,
    #[prost(string, repeated, tag = "7")]
    pub consumes: Vec<String>,
    #[prost(message, repeated, tag = "8")]
    pub parameters: Vec<ParametersItem>,
    #[prost(message, repeated, tag = "13")]
    pub vendor_extension: Vec<NamedAny>,
}

#[derive(Clone, PartialEq, Message)]
pub struct ParametersItem {
    #[prost(message, optional, tag = "1")]
    pub parameter: Option<Parameter>,
}

#[derive(Clone, PartialEq, Message)]
pub struct Parameter {
    #[prost(message, optional, tag = "1")]
    pub body_parameter: Option<BodyParameter>,
    #[prost(message, optional, tag = "2")]
    pub non_body_parameter: Option<NonBodyParameter>,
}

/// A write's request body (`in: body`): the object, or a patch.
#[derive(Clone, PartialEq, Message)]
pub struct BodyParameter {
    #[prost(string, tag = "2")]
    pub name: String,
    #[prost(string, tag = "3")]
    pub r#in: String,
    #[prost(bool, tag = "4")]
    pub required: bool,
    #[prost(message, optional, tag = "5")]
    pub schema: Option<Schema>,
}

#[derive(Clone, PartialEq, Message)]
pub struct NonBodyParameter {
    #[prost(message, optional, tag = "3")]
    pub query_parameter_sub_schema: Option<QueryParameterSubSchema>,
}

#[derive(Clone, PartialEq, Message)]
pub struct QueryParameterSubSchema {
    #[prost(string, tag = "2")]
    pub r#in: String,
    #[prost(string, tag = "4")]
    pub name: String,
    #[prost(string, tag = "6")]
    pub r#type: String,
    #[prost(bool, tag = "20")]
    pub unique_items: bool,
}

#[derive(Clone, PartialEq, Message)]
pub struct NamedAny {
    #[prost(string, tag = "1")]
    pub name: String,
    #[prost(message, optional, tag = "2")]
    pub value: Option<Any>,
}

#[derive(Clone, PartialEq, Message)]
pub struct Any {
    #[prost(string, tag = "2")]
    pub yaml: String,
}

#[derive(Clone, PartialEq, Message)]
pub struct Definitions {
    #[prost(message, repeated, tag = "1")]
    pub additional_properties: Vec<NamedSchema>,
}

#[derive(Clone, PartialEq, Message)]
pub struct NamedSchema {
    #[prost(string, tag = "1")]
    pub name: String,
    #[prost(message, optional, tag = "2")]
    pub value: Option<Schema>,
}

#[derive(Clone, PartialEq, Message)]
pub struct Schema {
    #[prost(string, tag = "1")]
    pub r#ref: String,
    #[prost(string, tag = "2")]
    pub format: String,
    #[prost(string, tag = "4")]
    pub description: String,
    #[prost(string, repeated, tag = "19")]
    pub required: Vec<String>,
    #[prost(message, optional, boxed, tag = "21")]
    pub additional_properties: Option<Box<AdditionalPropertiesItem>>,
    #[prost(message, optional, tag = "22")]
    pub r#type: Option<TypeItem>,
    #[prost(message, optional, tag = "23")]
    pub items: Option<ItemsItem>,
    #[prost(message, optional, tag = "25")]
    pub properties: Option<Properties>,
    #[prost(message, repeated, tag = "31")]
    pub vendor_extension: Vec<NamedAny>,
}

#[derive(Clone, PartialEq, Message)]
pub struct AdditionalPropertiesItem {
    #[prost(message, optional, tag = "1")]
    pub schema: Option<Schema>,
}

#[derive(Clone, PartialEq, Message)]
pub struct TypeItem {
    #[prost(string, repeated, tag = "1")]
    pub value: Vec<String>,
}

#[derive(Clone, PartialEq, Message)]
pub struct ItemsItem {
    #[prost(message, repeated, tag = "1")]
    pub schema: Vec<Schema>,
}

#[derive(Clone, PartialEq, Message)]
pub struct Properties {
    #[prost(message, repeated, tag = "1")]
    pub additional_properties: Vec<NamedSchema>,
}

/// A vendor extension's value, as gnostic carries it: YAML text.
fn extension(name: &str, v: &Value) -> NamedAny {
    let yaml = serde_norway::to_string(v).unwrap_or_default();
    NamedAny { name: name.to_string(), value: Some(Any { yaml }) }
}

fn extensions(m: &serde_json::Map<String, Value>) -> Vec<NamedAny> {
    m.iter().filter(|(k, _)| k.starts_with("x-")).map(|(k, v)| extension(k, v)).collect()
}

fn schema(v: &Value) -> Schema {
    let s = |k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_string();
    let m = v.as_object().cloned().unwrap_or_default();
    Schema {
        r#ref: s("$ref"),
        format: s("format"),
        description: s("description"),
        required: v
            .get("required")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).map(str::to_string).collect())
            .unwrap_or_default(),
        additional_properties: v
            .get("additionalProperties")
            .filter(|a| a.is_object())
            .map(|a| Box::new(AdditionalPropertiesItem { schema: Some(schema(a)) })),
        r#type: v.get("type").and_then(Value::as_str).map(|t| TypeItem { value: vec![t.to_string()] }),
        items: v.get("items").map(|i| ItemsItem { schema: vec![schema(i)] }),
        properties: v.get("properties").and_then(Value::as_object).map(|p| Properties {
            additional_properties: p
                .iter()
                .map(|(k, ps)| NamedSchema { name: k.clone(), value: Some(schema(ps)) })
                .collect(),
        }),
        vendor_extension: extensions(&m),
    }
}

fn operation(op: &Value) -> Operation {
    let m = op.as_object().cloned().unwrap_or_default();
    Operation {
        operation_id: op.get("operationId").and_then(Value::as_str).unwrap_or("").to_string(),
        parameters: op
            .get("parameters")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|p| ParametersItem {
                parameter: Some(if p.get("in").and_then(Value::as_str) == Some("body") {
                    Parameter {
                        body_parameter: Some(BodyParameter {
                            name: p.get("name").and_then(Value::as_str).unwrap_or("body").to_string(),
                            r#in: "body".into(),
                            required: p.get("required").and_then(Value::as_bool).unwrap_or(false),
                            schema: p.get("schema").map(schema),
                        }),
                        non_body_parameter: None,
                    }
                } else {
                    Parameter {
                        body_parameter: None,
                        non_body_parameter: Some(NonBodyParameter {
                            query_parameter_sub_schema: Some(QueryParameterSubSchema {
                                r#in: p.get("in").and_then(Value::as_str).unwrap_or("query").to_string(),
                                name: p.get("name").and_then(Value::as_str).unwrap_or("").to_string(),
                                r#type: p.get("type").and_then(Value::as_str).unwrap_or("string").to_string(),
                                unique_items: p.get("uniqueItems").and_then(Value::as_bool).unwrap_or(false),
                            }),
                        }),
                    }
                }),
            })
            .collect(),
        consumes: op
            .get("consumes")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|c| Some(c.as_str()?.to_string()))
            .collect(),
        vendor_extension: extensions(&m),
    }
}

/// The protobuf bytes of a v2 document given as JSON.
pub fn encode(doc: &Value) -> Vec<u8> {
    let op = |item: &Value, verb: &str| item.get(verb).map(operation);
    let d = Document {
        swagger: doc.get("swagger").and_then(Value::as_str).unwrap_or("2.0").to_string(),
        info: Some(Info {
            title: doc.pointer("/info/title").and_then(Value::as_str).unwrap_or("").to_string(),
            version: doc.pointer("/info/version").and_then(Value::as_str).unwrap_or("").to_string(),
        }),
        paths: doc.get("paths").and_then(Value::as_object).map(|p| Paths {
            path: p
                .iter()
                .map(|(name, item)| NamedPathItem {
                    name: name.clone(),
                    value: Some(PathItem {
                        get: op(item, "get"),
                        put: op(item, "put"),
                        post: op(item, "post"),
                        delete: op(item, "delete"),
                        patch: op(item, "patch"),
                    }),
                })
                .collect(),
        }),
        definitions: doc.get("definitions").and_then(Value::as_object).map(|defs| Definitions {
            additional_properties: defs
                .iter()
                .map(|(name, d)| NamedSchema { name: name.clone(), value: Some(schema(d)) })
                .collect(),
        }),
    };
    d.encode_to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_document_round_trips_through_its_messages() {
        let json = super::super::openapi::v2(crate::registry::kinds::builtin_catalog());
        let bytes = encode(&json);
        let back = Document::decode(bytes.as_slice()).unwrap();
        assert_eq!(back.swagger, "2.0");
        let defs = back.definitions.unwrap().additional_properties;
        let pod = defs.iter().find(|d| d.name == "io.k8s.api.core.v1.Pod").unwrap().value.clone().unwrap();
        let gvk = pod.vendor_extension.iter().find(|e| e.name == "x-kubernetes-group-version-kind").unwrap();
        assert!(gvk.value.as_ref().unwrap().yaml.contains("kind: Pod"));
        let paths = back.paths.unwrap().path;
        let cm = paths.iter().find(|p| p.name == "/api/v1/namespaces/{namespace}/configmaps/{name}").unwrap();
        let patch = cm.value.as_ref().unwrap().patch.as_ref().unwrap();
        let names: Vec<String> = patch
            .parameters
            .iter()
            .filter_map(|p| p.parameter.as_ref()?.non_body_parameter.as_ref()?.query_parameter_sub_schema.as_ref())
            .map(|q| q.name.clone())
            .collect();
        assert!(names.contains(&"fieldValidation".to_string()), "{names:?}");
        // What kubectl reads to choose a patch type, and the body it sends.
        assert!(patch.consumes.iter().any(|c| c == "application/strategic-merge-patch+json"), "{:?}", patch.consumes);
        let body = patch.parameters.iter().find_map(|p| p.parameter.as_ref()?.body_parameter.as_ref()).unwrap();
        assert_eq!((body.name.as_str(), body.r#in.as_str(), body.required), ("body", "body", true));
        assert_eq!(body.schema.as_ref().unwrap().r#ref, "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Patch");
    }
}
