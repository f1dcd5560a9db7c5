//! Decoding as upstream's strict decoder does: against a kind's schema (or
//! none), noting unknown and repeated fields with their paths
//! (`metadata.name`) in document order, keeping the last of repeated keys;
//! and the line numbers of a YAML document's repeated keys.

use crate::sort::Order;
use std::fmt;

use crate::schema::Kinds;
use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// Decodes JSON of no particular kind (a merge patch), noting every
/// repeated key at any depth (`duplicate field "data.k"`), the last kept.
pub fn decode_free_form(bytes: &[u8]) -> Result<(Value, StrictProblems), serde_json::Error> {
    decode_strict(bytes, crate::schema::schemas(), &Value::Null).map(|(value, problems, _)| (value, problems))
}

/// go-yaml's limit on flow nesting (`[` and `{` inside each other).
pub const MAX_YAML_FLOW_DEPTH: usize = 10_000;

/// Where a document's flow nesting first goes past go-yaml's limit (line
/// and column, from 1), found in one pass before any parser sees it: the
/// libyaml family of scanners (ours included) spends time proportional to
/// the depth on every token, so a few MiB of `[` would take hours.
///
/// Quoted scalars and comments are skipped; a `[` inside a plain or block
/// scalar counts, so a document needs more than ten thousand unclosed ones
/// there to be refused wrongly.
pub fn yaml_flow_too_deep(text: &str) -> Option<(usize, usize)> {
    let (mut depth, mut line, mut column) = (0usize, 1usize, 0usize);
    let mut quote: Option<u8> = None;
    let mut comment = false;
    let mut prev = b'\n';
    let mut escaped = false;
    for &b in text.as_bytes() {
        column += 1;
        if b == b'\n' {
            (line, column, comment) = (line + 1, 0, false);
        } else if comment {
        } else if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if q == b'"' && b == b'\\' {
                escaped = true;
            } else if b == q {
                quote = None;
            }
        } else {
            match b {
                b'"' | b'\'' => quote = Some(b),
                b'#' if matches!(prev, b' ' | b'\t' | b'\n') => comment = true,
                b'[' | b'{' => {
                    depth += 1;
                    if depth > MAX_YAML_FLOW_DEPTH {
                        return Some((line, column));
                    }
                }
                b']' | b'}' => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
        prev = b;
    }
    None
}

/// Decodes YAML into JSON, the last of repeated keys kept (YAML decoders
/// refuse them otherwise; their lines are `yaml_repeated_keys`'). Flow
/// nesting past go-yaml's limit is refused as go-yaml words it.
pub fn decode_yaml(text: &str) -> Result<Value, serde_norway::Error> {
    if let Some((line, column)) = yaml_flow_too_deep(text) {
        return Err(<serde_norway::Error as serde::de::Error>::custom(format!(
            "exceeded max depth of {MAX_YAML_FLOW_DEPTH} at line {line} column {column}"
        )));
    }
    let (mut problems, mut path, mut misfit) = (StrictProblems::default(), String::new(), false);
    Strict {
        schemas: crate::schema::schemas(),
        shape: Shape::FreeForm,
        types: Types::default(),
        path: &mut path,
        problems: &mut problems,
        misfit: &mut misfit,
    }
    .deserialize(serde_norway::Deserializer::from_str(text))
}

/// A YAML document that is JSON, decoded by the JSON parser when that gives
/// what [`decode_yaml`] would: an object, with no repeated key (those are
/// reported with their YAML lines, so they take the YAML path), no tab (a
/// JSON separator that YAML's flow style refuses in places), no `\u`
/// escape (YAML and JSON treat surrogates differently), no `-0` (an integer
/// zero to YAML, a negative float to JSON), and within serde_json's nesting
/// limit. `None` means: decode it as YAML. Apply configurations are
/// mostly JSON (kubectl's, and the in-process clients' status applies as a
/// server starts); the JSON parser is smaller to run and to load.
pub fn decode_json_as_yaml(text: &str) -> Option<Value> {
    let negative_zero = || {
        text.match_indices("-0")
            .any(|(at, _)| !matches!(text.as_bytes().get(at + 2), Some(b'.' | b'e' | b'E' | b'0'..=b'9')))
    };
    if !text.trim_start_matches([' ', '\n', '\r']).starts_with('{')
        || text.contains('\t')
        || text.contains("\\u")
        || negative_zero()
    {
        return None;
    }
    // (Past serde_json's nesting limit, far below go-yaml's, the parse
    // fails and the YAML path gives go-yaml's answer.)
    match decode_free_form(text.as_bytes()) {
        Ok((value, repeated)) if repeated.0.is_empty() => Some(value),
        _ => None,
    }
}

/// Problems a strict decode found, in the order upstream's strict decoder
/// (sigs.k8s.io/json) reports them: document order, each (kind, path) once,
/// at most 100.
#[derive(Debug, Default)]
pub struct StrictProblems(pub Vec<String>);

impl StrictProblems {
    const MAX: usize = 100;

    fn push(&mut self, kind: &str, path: &str) {
        if self.0.len() >= Self::MAX {
            return;
        }
        let text = format!("{kind} field {}", go_quote(path));
        if !self.0.contains(&text) {
            self.0.push(text);
        }
    }
}

/// A string as Go's `strconv.Quote` writes it (for the paths of strict
/// problems and the keys of YAML errors).
pub fn go_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => out.push_str(&format!("\\x{:02x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The bytes a field path is given to start with, when one is built on
/// every write: room for most paths, so that it is allocated once.
pub(crate) const PATH_ROOM: usize = 64;

/// Decodes JSON into the shape `schema` describes (a definition of
/// `schemas`), as upstream's strict decoder does: a field a struct does not
/// declare is `unknown field "path"` (once, its value neither examined nor
/// kept), a struct field or map key seen again is `duplicate field "path"`
/// (the last value kept); values of types that decode themselves (times,
/// quantities, int-or-string, raw extensions, managed fields) are not
/// looked into.
///
/// The third part says whether every value the type check
/// (`Schemas::first_type_error`) would look at fits its schema's type, as
/// the decoder saw while reading: true means that check would find nothing;
/// false means it may (it must then be asked, for its error and its order).
pub fn decode_strict(
    bytes: &[u8],
    schemas: &crate::schema::Schemas,
    schema: &Value,
) -> Result<(Value, StrictProblems, bool), serde_json::Error> {
    let mut problems = StrictProblems::default();
    // Room for most field paths at once (it grew four times a create).
    let mut path = String::with_capacity(PATH_ROOM);
    let mut misfit = false;
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let (shape, types) = Shape::with_types(schemas, Some(schema));
    let value = Strict { schemas, shape, types, path: &mut path, problems: &mut problems, misfit: &mut misfit }
        .deserialize(&mut de)?;
    de.end()?;
    Ok((value, problems, !misfit))
}

/// What a strict decode of `value` (serialized) would report, found by
/// walking it instead: its unknown fields, in document order (a decoded
/// value repeats no key, so there are no duplicates to find).
pub fn strict_problems(value: &Value, schemas: &crate::schema::Schemas, schema: &Value) -> StrictProblems {
    let mut problems = StrictProblems::default();
    let mut path = String::new();
    walk(value, schemas, Shape::of(schemas, Some(schema)), &mut path, &mut problems);
    problems
}

/// Drops the fields of `value` a strict decode would not keep (its
/// unknown ones), as decoding it again would.
pub fn prune_unknown(value: &mut Value, schemas: &crate::schema::Schemas, schema: &Value) {
    fn prune(value: &mut Value, schemas: &crate::schema::Schemas, shape: Shape<'_>) {
        match (value, shape) {
            (Value::Object(m), Shape::Struct(props)) => {
                m.retain(|k, _| props.contains_key(k));
                for (k, v) in m.iter_mut() {
                    prune(v, schemas, Shape::of(schemas, props.get(k)));
                }
            }
            (Value::Object(m), Shape::Map(values)) => {
                for v in m.values_mut() {
                    prune(v, schemas, Shape::of(schemas, Some(values)));
                }
            }
            (Value::Array(items), Shape::List(item)) => {
                for v in items {
                    prune(v, schemas, Shape::of(schemas, item));
                }
            }
            _ => {}
        }
    }
    prune(value, schemas, Shape::of(schemas, Some(schema)));
}

/// Walks a value as the strict decoder would decode it, noting each field
/// its struct does not declare (whose value is then not looked into).
fn walk(
    value: &Value,
    schemas: &crate::schema::Schemas,
    shape: Shape<'_>,
    path: &mut String,
    problems: &mut StrictProblems,
) {
    let base = path.len();
    match (value, shape) {
        (Value::Object(m), Shape::Struct(_) | Shape::Map(_)) => {
            for (k, v) in m {
                if base > 0 {
                    path.push('.');
                }
                path.push_str(k);
                let child = match shape {
                    Shape::Struct(props) => props.get(k).map(|p| Shape::of(schemas, Some(p))),
                    Shape::Map(values) => Some(Shape::of(schemas, Some(values))),
                    _ => None,
                };
                match child {
                    Some(c) => walk(v, schemas, c, path, problems),
                    None => problems.push("unknown", path),
                }
                path.truncate(base);
            }
        }
        (Value::Array(items), Shape::List(item)) => {
            let item = Shape::of(schemas, item);
            for (i, v) in items.iter().enumerate() {
                use std::fmt::Write;
                let _ = write!(path, "[{i}]");
                walk(v, schemas, item, path, problems);
                path.truncate(base);
            }
        }
        _ => {}
    }
}

/// What a schema node says a value is, for strict decoding.
#[derive(Clone, Copy)]
enum Shape<'s> {
    /// Declared fields (a Go struct).
    Struct(crate::schema::Props<'s>),
    /// Keys of one value type (a Go map).
    Map(&'s Value),
    /// Items of one type.
    List(Option<&'s Value>),
    /// Any JSON (`interface{}`): every repeated key is a duplicate.
    FreeForm,
    /// A scalar, a type that decodes itself, or an unknown field's value:
    /// nothing inside is checked.
    Opaque,
}

/// Definitions whose Go types unmarshal themselves.
const SELF_DECODING: &[&str] = &[
    "io.k8s.apimachinery.pkg.apis.meta.v1.Time",
    "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime",
    "io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1",
    "io.k8s.apimachinery.pkg.api.resource.Quantity",
    "io.k8s.apimachinery.pkg.util.intstr.IntOrString",
    "io.k8s.apimachinery.pkg.runtime.RawExtension",
];

/// What the type check (`Schemas::first_type_error`) asks of a value at a
/// schema node, for the strict decoder to ask as it reads (`fits`).
#[derive(Clone, Copy)]
struct Types {
    /// The JSON kinds the node's `type` allows.
    kinds: Kinds,
    /// The check walks an object's fields here (the node has properties or
    /// additional properties) where the decoder does not follow them
    /// field by field (its shape is neither a struct nor a map).
    objects_apart: bool,
    /// The same for an array's items (the node has items; the shape is no
    /// list).
    arrays_apart: bool,
}

impl Default for Types {
    /// No schema: anything fits, and nothing is walked.
    fn default() -> Types {
        Types { kinds: Kinds::ANY, objects_apart: false, arrays_apart: false }
    }
}

impl<'s> Shape<'s> {
    fn of(schemas: &'s crate::schema::Schemas, raw: Option<&'s Value>) -> Shape<'s> {
        Shape::with_types(schemas, raw).0
    }

    /// The node's shape, and what the type check asks there.
    fn with_types(schemas: &'s crate::schema::Schemas, raw: Option<&'s Value>) -> (Shape<'s>, Types) {
        let Some(raw) = raw else { return (Shape::FreeForm, Types::default()) };
        let facts = schemas.facts(raw);
        let shape = if facts.ref_name.is_some_and(|r| SELF_DECODING.contains(&r)) {
            Shape::Opaque
        } else if facts.preserve_unknown {
            Shape::FreeForm
        } else if let Some(props) = facts.properties {
            Shape::Struct(props)
        } else if let Some(ap) = facts.additional {
            Shape::Map(ap)
        } else {
            match facts.ty.and_then(Value::as_str) {
                Some("array") => Shape::List(facts.items),
                Some("object") | None => Shape::FreeForm,
                Some(_) => Shape::Opaque,
            }
        };
        let types = Types {
            kinds: facts.kinds,
            objects_apart: !matches!(shape, Shape::Struct(_) | Shape::Map(_))
                && (facts.properties.is_some() || facts.additional.is_some()),
            arrays_apart: !matches!(shape, Shape::List(_)) && facts.items.is_some(),
        };
        (shape, types)
    }
}

struct Strict<'a, 's> {
    schemas: &'s crate::schema::Schemas,
    shape: Shape<'s>,
    types: Types,
    path: &'a mut String,
    problems: &'a mut StrictProblems,
    /// Set when a value may not fit its schema's type (`decode_strict`).
    misfit: &'a mut bool,
}

impl<'a, 's> Strict<'a, 's> {
    fn child(&mut self, (shape, types): (Shape<'s>, Types)) -> Strict<'_, 's> {
        Strict {
            schemas: self.schemas,
            shape,
            types,
            path: &mut *self.path,
            problems: &mut *self.problems,
            misfit: &mut *self.misfit,
        }
    }

    /// Notes a value of kind `kind` that may not fit its node's type.
    fn check(&mut self, kind: Kinds) {
        if !self.types.kinds.fits(kind) {
            *self.misfit = true;
        }
    }
}

impl<'de> DeserializeSeed<'de> for Strict<'_, '_> {
    type Value = Value;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Strict<'_, '_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(mut self, v: bool) -> Result<Value, E> {
        self.check(Kinds::BOOL);
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(mut self, v: i64) -> Result<Value, E> {
        self.check(Kinds::number(true));
        Ok(Value::Number(v.into()))
    }
    fn visit_u64<E>(mut self, v: u64) -> Result<Value, E> {
        self.check(Kinds::number(true));
        Ok(Value::Number(v.into()))
    }
    fn visit_f64<E>(mut self, v: f64) -> Result<Value, E> {
        let v = Number::from_f64(v).map_or(Value::Null, Value::Number);
        if !v.is_null() {
            self.check(Kinds::number(v.is_i64() || v.is_u64()));
        }
        Ok(v)
    }
    fn visit_str<E>(mut self, v: &str) -> Result<Value, E> {
        self.check(Kinds::STRING);
        Ok(Value::String(v.to_string()))
    }
    fn visit_string<E>(mut self, v: String) -> Result<Value, E> {
        self.check(Kinds::STRING);
        Ok(Value::String(v))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
    fn visit_seq<A: SeqAccess<'de>>(mut self, mut seq: A) -> Result<Value, A::Error> {
        self.check(Kinds::ARRAY);
        if self.types.arrays_apart {
            *self.misfit = true;
        }
        let items = match self.shape {
            Shape::List(items) => Shape::with_types(self.schemas, items),
            Shape::Opaque => (Shape::Opaque, Types::default()),
            _ => (Shape::FreeForm, Types::default()),
        };
        let mut out = Vec::new();
        let base = self.path.len();
        loop {
            use std::fmt::Write;
            let _ = write!(self.path, "[{}]", out.len());
            let next = seq.next_element_seed(self.child(items));
            self.path.truncate(base);
            match next? {
                Some(v) => out.push(v),
                None => break,
            }
        }
        Ok(Value::Array(out))
    }
    fn visit_map<A: MapAccess<'de>>(mut self, mut map: A) -> Result<Value, A::Error> {
        // Room for what the server adds to an object it stores (kind and
        // apiVersion at the root; namespace, uid, resourceVersion,
        // generation, creationTimestamp and managedFields in metadata), so
        // the maps are not grown again as it does.
        let room = match self.path.as_str() {
            "" => 6,
            "metadata" => 10,
            _ => 0,
        };
        self.check(Kinds::OBJECT);
        if self.types.objects_apart {
            *self.misfit = true;
        }
        let mut out = Map::with_capacity(room);
        let base = self.path.len();
        while let Some(key) = map.next_key::<String>()? {
            if base > 0 {
                self.path.push('.');
            }
            self.path.push_str(&key);
            let (shape, known) = match self.shape {
                Shape::Struct(props) => match props.get(&key) {
                    Some(p) => (Shape::with_types(self.schemas, Some(p)), true),
                    None => {
                        self.problems.push("unknown", self.path);
                        ((Shape::Opaque, Types::default()), false)
                    }
                },
                Shape::Map(values) => (Shape::with_types(self.schemas, Some(values)), true),
                Shape::FreeForm => ((Shape::FreeForm, Types::default()), true),
                Shape::List(_) | Shape::Opaque => ((Shape::Opaque, Types::default()), true),
            };
            let checks = !matches!(self.shape, Shape::Opaque);
            let v = map.next_value_seed(self.child(shape));
            let v = match v {
                Ok(v) => v,
                Err(e) => {
                    self.path.truncate(base);
                    return Err(e);
                }
            };
            if known && out.insert(key, v).is_some() && checks {
                self.problems.push("duplicate", self.path);
            }
            self.path.truncate(base);
        }
        Ok(Value::Object(out))
    }
}

/// The keys a YAML document's mappings repeat, as go-yaml reports them
/// (`line 5: key "name" already set in map`, the line of the repeat), in
/// document order. A document that does not parse has none (its decode
/// error is reported instead).
pub fn yaml_repeated_keys(text: &str) -> Vec<String> {
    use saphyr_parser::{Event, Parser, ScalarStyle};
    enum Frame {
        Map { seen: std::collections::HashSet<String>, at_key: bool },
        Seq,
    }
    let mut found = Vec::new();
    let mut stack: Vec<Frame> = Vec::new();
    // A finished node is a key or a value of the mapping around it.
    fn node_done(stack: &mut [Frame]) {
        if let Some(Frame::Map { at_key, .. }) = stack.last_mut() {
            *at_key = !*at_key;
        }
    }
    let mut parser = Parser::new_from_str(text);
    while let Some(Ok((event, span))) = parser.next_event() {
        match event {
            Event::Scalar(value, style, _, _) => {
                if let Some(Frame::Map { seen, at_key: true }) = stack.last_mut() {
                    if !seen.insert(value.to_string()) {
                        let plain_number = style == ScalarStyle::Plain && value.parse::<i64>().is_ok();
                        let key = if plain_number { value.to_string() } else { go_quote(&value) };
                        found.push(format!("line {}: key {key} already set in map", span.start.line()));
                    }
                }
                node_done(&mut stack);
            }
            Event::Alias(_) => node_done(&mut stack),
            Event::MappingStart(..) => stack.push(Frame::Map { seen: Default::default(), at_key: true }),
            Event::SequenceStart(..) => stack.push(Frame::Seq),
            Event::MappingEnd | Event::SequenceEnd => {
                stack.pop();
                node_done(&mut stack);
            }
            Event::DocumentEnd => break,
            _ => {}
        }
    }
    found
}

/// The value with every object's keys in sorted order, as a document that
/// went through a Go map comes out (YAML converted to JSON, a merge patch's
/// result).
pub fn sorted_keys(v: Value) -> Value {
    match v {
        Value::Object(m) => {
            let mut entries: Vec<(String, Value)> = m.into_iter().collect();
            entries.order_by(|a, b| a.0.cmp(&b.0));
            Value::Object(entries.into_iter().map(|(k, v)| (k, sorted_keys(v))).collect())
        }
        Value::Array(a) => Value::Array(a.into_iter().map(sorted_keys).collect()),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn json_decoded_as_json_is_what_yaml_decoding_gives() {
        // Taken by the JSON parser, and the same value as YAML's.
        for doc in [
            r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","labels":{"x":"y"}},"data":{"k":"v"}}"#,
            r#" {"a": 1, "b": -2, "c": 1.5, "d": 0.1, "e": 1e3, "f": 1.5E-7, "g": -0.5, "h": 0.0, "i": 18446744073709551615}"#,
            r#"{"a": -9223372036854775808, "b": 9223372036854775808}"#,
            r#"{"a": true, "b": false, "c": null, "d": [], "e": {}, "f": [1, [2, [3]]], "g": "", "h": "yes", "i": "on"}"#,
            r#"{"a": "q\"uote\\ \/ \b\f\n\r x", "b": "é ü 日本", "c": "~", "d": "null", "e": "1", "f": "<<"}"#,
            "{\r\n  \"a\": 1,\n  \"b\": [\n    2\n  ]\n}\n",
            r##"{"a": "#not a comment", "b": "x: y", "c": "- z", "d": "&anchor", "e": "*alias", "f": "!tag"}"##,
        ] {
            let json = decode_json_as_yaml(doc).unwrap_or_else(|| panic!("not taken as JSON: {doc}"));
            assert_eq!(json, decode_yaml(doc).unwrap(), "{doc}");
        }
        // Left to the YAML decoder.
        for doc in [
            "a: 1",
            "[1, 2]",
            r#"{"a": 1, "a": 2}"#,
            "{\"a\":\t1}",
            r#"{"a": "\u00e9"}"#,
            r#"{"a": 1} x"#,
            r#"{"a": 1e400}"#,
            r#"{"a": -0}"#,
            r#"{"a": [-0]}"#,
            r#"{"a": 'single'}"#,
        ] {
            assert_eq!(decode_json_as_yaml(doc), None, "{doc}");
        }
        // An integer past 64 bits is the float go-yaml resolves it to (our
        // YAML decoder refuses it).
        assert_eq!(
            decode_json_as_yaml(r#"{"c": 123456789012345678901234567890}"#),
            Some(json!({"c": 1.2345678901234568e29}))
        );
        let deep = format!("{{\"a\": {}{}}}", "[".repeat(MAX_YAML_FLOW_DEPTH), "]".repeat(MAX_YAML_FLOW_DEPTH));
        assert_eq!(decode_json_as_yaml(&deep), None);
    }

    #[test]
    fn free_form_duplicates_are_reported_with_their_paths_and_the_last_wins() {
        let (v, dups) = decode_free_form(
            br#"{"metadata":{"name":"a","name":"b"},"data":{"k":1,"k":2,"k":3},"items":[{"x":1,"x":2}]}"#,
        )
        .unwrap();
        assert_eq!(
            dups.0,
            [r#"duplicate field "metadata.name""#, r#"duplicate field "data.k""#, r#"duplicate field "items[0].x""#]
        );
        assert_eq!(v, json!({"metadata": {"name": "b"}, "data": {"k": 3}, "items": [{"x": 2}]}));
    }

    #[test]
    fn walking_a_value_finds_and_drops_what_decoding_it_would() {
        let schemas = crate::schema::schemas();
        let pod = schemas.definition("io.k8s.api.core.v1.Pod").unwrap();
        let v = json!({"kind": "Pod", "bogus": {"deep": 1}, "metadata": {"name": "p", "labels": {"any": "x"},
            "managedFields": [{"fieldsV1": {"f:x": {}}, "nope": 1}]},
            "spec": {"containers": [{"name": "c", "image": "i", "what": true, "ports": [{"containerPort": 80, "x": 1}],
            "resources": {"limits": {"cpu": "1"}}}], "nodeSelector": {"a": "b"}},
            "status": {"conditions": [{"type": "Ready", "huh": "x"}]}});
        let (decoded, decoded_problems, _) = decode_strict(&serde_json::to_vec(&v).unwrap(), schemas, pod).unwrap();
        let walked = strict_problems(&v, schemas, pod);
        assert_eq!(walked.0, decoded_problems.0);
        assert_eq!(walked.0.len(), 5, "{:?}", walked.0);
        let mut pruned = v.clone();
        prune_unknown(&mut pruned, schemas, pod);
        assert_eq!(pruned, decoded);
    }

    #[test]
    fn yaml_with_repeated_keys_keeps_the_last() {
        let v = decode_yaml("a: 1\na: 2\nb:\n  c: x\n  c: y\n").unwrap();
        assert_eq!(v, json!({"a": 2, "b": {"c": "y"}}));
    }

    #[test]
    fn strict_decoding_reports_in_document_order_and_skips_unknown_subtrees() {
        let s = crate::schema::schemas();
        let def = s.definition("io.k8s.api.apps.v1.Deployment").unwrap();
        let body = br#"{"metadata":{"name":"a","name":"b","labels":{"x":"1","x":"2"},"bogus":{"n":1,"n":2}},
            "spec":{"unknownDupe":1,"unknownDupe":2,"paused":true,"paused":false,
            "template":{"spec":{"containers":[{"name":"c","extra":1,"image":"i","image":"j"}]}}}}"#;
        let (v, p, _) = decode_strict(body, s, def).unwrap();
        assert_eq!(
            p.0,
            [
                r#"duplicate field "metadata.name""#,
                r#"duplicate field "metadata.labels.x""#,
                r#"unknown field "metadata.bogus""#,
                r#"unknown field "spec.unknownDupe""#,
                r#"duplicate field "spec.paused""#,
                r#"unknown field "spec.template.spec.containers[0].extra""#,
                r#"duplicate field "spec.template.spec.containers[0].image""#,
            ]
        );
        assert_eq!(v["metadata"], json!({"name": "b", "labels": {"x": "2"}}));
        assert_eq!(v["spec"]["paused"], false);
        assert!(v["spec"].get("unknownDupe").is_none());
    }

    #[test]
    fn yaml_repeated_keys_are_reported_by_line() {
        let text = "a: 1\nb:\n  c: x\n  c: y\na: 2\nl:\n- k: 1\n  k: 2\n";
        assert_eq!(
            yaml_repeated_keys(text),
            [
                r#"line 4: key "c" already set in map"#,
                r#"line 5: key "a" already set in map"#,
                r#"line 8: key "k" already set in map"#
            ]
        );
        // JSON read as YAML, tabs included.
        let json = "{\n\t\"a\": 1,\n\t\"b\": {\"c\": 1,\n\t\t\"c\": 2},\n\t\"a\": 3\n}";
        assert_eq!(
            yaml_repeated_keys(json),
            [r#"line 4: key "c" already set in map"#, r#"line 5: key "a" already set in map"#]
        );
    }

    #[test]
    fn values_decode_as_serde_json_does() {
        let text = br#"{"a":[1,-2,3.5,true,null,"s",{"b":{}}],"u":18446744073709551615}"#;
        let (v, dups) = decode_free_form(text).unwrap();
        assert!(dups.0.is_empty());
        assert_eq!(v, serde_json::from_slice::<Value>(text).unwrap());
        assert!(decode_free_form(b"{} x").is_err());
        assert!(decode_free_form(b"{\"a\":").is_err());
    }

    /// Where the type check would walk a value's fields or items by a
    /// schema the decoder does not follow (no built-in definition has such
    /// a node today), the decoder cannot vouch for them: it says the value
    /// may not fit, so that the check runs.
    #[test]
    fn values_the_decoder_does_not_walk_by_their_schema_are_not_vouched_for() {
        let schemas = crate::schema::schemas();
        let fits = |schema: Value, body: &str| decode_strict(body.as_bytes(), schemas, &schema).unwrap().2;
        let typed = serde_json::json!({"properties": {"a": {"type": "integer"}}});
        assert!(fits(typed.clone(), r#"{"a": 1}"#));
        assert!(!fits(typed, r#"{"a": "x"}"#), "a field of the wrong kind");
        // Fields kept free-form beside declared ones: not followed.
        let free = serde_json::json!({"x-kubernetes-preserve-unknown-fields": true,
            "properties": {"a": {"type": "integer"}}});
        assert!(!fits(free.clone(), r#"{"a": "x"}"#));
        assert!(fits(free, r#""text""#), "not an object: nothing to walk");
        // Items declared where the shape is a struct: not followed.
        let items = serde_json::json!({"properties": {"a": {}}, "items": {"type": "integer"}});
        assert!(!fits(items.clone(), r#"["x"]"#));
        assert!(fits(items, r#"{"a": 1}"#));
    }
}
