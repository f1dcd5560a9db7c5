//! JSON decoding that notices duplicate fields (which `serde_json::Value`
//! silently collapses, keeping the last), reporting each with its path as
//! upstream's strict decoder does (`metadata.name`). The value built is the
//! one a plain decode gives.

use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// Decodes `bytes`, returning the value and the paths of duplicate fields.
pub fn decode_noting_duplicates(bytes: &[u8]) -> Result<(Value, Vec<String>), serde_json::Error> {
    let mut dups = Vec::new();
    let mut path = String::new();
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let value = Node { path: &mut path, dups: &mut dups }.deserialize(&mut de)?;
    de.end()?;
    Ok((value, dups))
}

/// Decodes YAML the same way (apply configurations are YAML), noting
/// duplicate keys, which YAML decoders otherwise collapse too.
pub fn decode_yaml_noting_duplicates(text: &str) -> Result<(Value, Vec<String>), serde_norway::Error> {
    let mut dups = Vec::new();
    let mut path = String::new();
    let value = Node { path: &mut path, dups: &mut dups }.deserialize(serde_norway::Deserializer::from_str(text))?;
    Ok((value, dups))
}

/// The value being decoded; `path` is one buffer shared by the whole walk
/// (each level appends its segment and truncates it back), so decoding
/// allocates no path unless it finds a duplicate.
struct Node<'a> {
    path: &'a mut String,
    dups: &'a mut Vec<String>,
}

impl<'de> DeserializeSeed<'de> for Node<'_> {
    type Value = Value;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Node<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
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
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        let base = self.path.len();
        loop {
            use std::fmt::Write;
            let _ = write!(self.path, "[{}]", out.len());
            let next = seq.next_element_seed(Node { path: &mut *self.path, dups: &mut *self.dups });
            self.path.truncate(base);
            match next? {
                Some(v) => out.push(v),
                None => break,
            }
        }
        Ok(Value::Array(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        let base = self.path.len();
        while let Some(key) = map.next_key::<String>()? {
            if base > 0 {
                self.path.push('.');
            }
            self.path.push_str(&key);
            let v = map.next_value_seed(Node { path: &mut *self.path, dups: &mut *self.dups });
            let v = match v {
                Ok(v) => v,
                Err(e) => {
                    self.path.truncate(base);
                    return Err(e);
                }
            };
            if out.insert(key, v).is_some() && !self.dups.iter().any(|d| d == self.path.as_str()) {
                self.dups.push(self.path.clone());
            }
            self.path.truncate(base);
        }
        Ok(Value::Object(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn duplicates_are_reported_with_their_paths_and_the_last_wins() {
        let (v, dups) = decode_noting_duplicates(
            br#"{"metadata":{"name":"a","name":"b"},"data":{"k":1,"k":2,"k":3},"items":[{"x":1,"x":2}]}"#,
        )
        .unwrap();
        assert_eq!(dups, vec!["metadata.name", "data.k", "items[0].x"]);
        assert_eq!(v, json!({"metadata": {"name": "b"}, "data": {"k": 3}, "items": [{"x": 2}]}));
    }

    #[test]
    fn yaml_duplicates_are_noticed_too() {
        let (v, dups) = decode_yaml_noting_duplicates("a: 1\na: 2\nb:\n  c: x\n  c: y\n").unwrap();
        assert_eq!(v, json!({"a": 2, "b": {"c": "y"}}));
        assert_eq!(dups, vec!["a", "b.c"]);
    }

    #[test]
    fn values_decode_as_serde_json_does() {
        let text = br#"{"a":[1,-2,3.5,true,null,"s",{"b":{}}],"u":18446744073709551615}"#;
        let (v, dups) = decode_noting_duplicates(text).unwrap();
        assert!(dups.is_empty());
        assert_eq!(v, serde_json::from_slice::<Value>(text).unwrap());
        assert!(decode_noting_duplicates(b"{} x").is_err());
        assert!(decode_noting_duplicates(b"{\"a\":").is_err());
    }
}
