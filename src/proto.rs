//! Kubernetes' protobuf encoding (`application/vnd.kubernetes.protobuf`),
//! driven by message layouts rather than generated structs: the stored form
//! of an object is JSON, and the encoder walks that JSON with the layout of
//! its kind's message (field numbers and wire kinds from Kubernetes'
//! `generated.proto`, extracted into `proto/messages.json` by
//! `tools/gen-proto-messages.py`). One generic walker covers every kind,
//! which keeps the browser bundle small; the tests check it against
//! prost's generated decoders (the `k8s-pb` crate).
//!
//! JSON shapes that differ from their messages are handled by name: `Time`
//! and `MicroTime` (RFC 3339 ↔ seconds/nanos), `IntOrString`, `Quantity`,
//! `RawExtension` and `FieldsV1` (raw JSON bytes), `Duration`; fields of
//! embedded Go structs (`json:",inline"`) sit in the parent's JSON.
//!
//! What Go writes and we do not: zero values of non-pointer fields absent
//! from the JSON (Go's marshaller writes `generateName: ""` and the like;
//! the layout does not say which fields are pointers). Decoders read both
//! the same; see docs/fidelity.md.

use crate::sort::Order;
use std::collections::HashMap;
use std::sync::OnceLock;

use base64::Engine;
use prost::encoding::{decode_varint, encode_varint};
use serde_json::{Map, Value};

/// The 4-byte prefix of every enveloped protobuf object: `k8s\0`.
pub const MAGIC: &[u8; 4] = b"k8s\x00";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    String,
    Int32,
    Int64,
    Bool,
    Bytes,
    Double,
    Message(usize),
    /// An embedded struct: a message whose fields are the parent's.
    Inline(usize),
    /// `map<string, V>`: entries are messages {1: key, 2: value}.
    Map(MapValue),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum MapValue {
    String,
    Bytes,
    Message(usize),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Special {
    None,
    Time,
    MicroTime,
    IntOrString,
    Quantity,
    /// RawExtension and FieldsV1: field 1 holds the JSON bytes.
    RawJson,
    Duration,
    /// apiextensions' JSONSchemaPropsOrArray (object or array of objects),
    /// OrBool (bool or object), OrStringArray (object or array of strings).
    SchemaOrArray,
    SchemaOrBool,
    SchemaOrStrings,
    /// A named string list (authorization's and authentication's
    /// `ExtraValue`): repeated field 1 on the wire, a bare array in JSON.
    StringList,
}

#[derive(Debug)]
struct Field {
    number: u32,
    json: String,
    kind: Kind,
    repeated: bool,
    /// A zero on the wire is a value, not "unset" (see the generator).
    keep_zero: bool,
}

#[derive(Debug)]
struct MessageType {
    name: String,
    fields: Vec<Field>,
    special: Special,
    /// Field index by JSON name (empty when the message embeds a struct,
    /// whose fields are then looked up field by field). Looked up once
    /// per key of every object encoded: foldhash, not SipHash.
    by_json: HashMap<Box<[u8]>, usize, foldhash::fast::FixedState>,
    /// It embeds a struct (`by_json` is empty then).
    embeds: bool,
    /// Each field's name as `field_at` compares it first, in the fields'
    /// order.
    names: Vec<NameKey>,
    /// After field `i - 1` (after none for `i == 0`), the field whose key
    /// came next in the last object encoded: objects of a kind are
    /// written with their keys in one order, not always the fields'.
    follows: Vec<std::sync::atomic::AtomicU16>,
    /// How many bytes the length of the last one encoded took (a guess
    /// for the next: `nested_message`).
    length_bytes: std::sync::atomic::AtomicU8,
}

struct Layouts {
    messages: Vec<MessageType>,
    by_name: HashMap<String, usize>,
}

fn layouts() -> &'static Layouts {
    static L: OnceLock<Layouts> = OnceLock::new();
    L.get_or_init(|| {
        let doc: Value = serde_json::from_str(include_str!("proto/messages.json")).unwrap_or(Value::Null);
        let empty = Map::new();
        let msgs = doc.get("messages").and_then(Value::as_object).unwrap_or(&empty);
        let by_name: HashMap<String, usize> = msgs.keys().enumerate().map(|(i, k)| (k.clone(), i)).collect();
        let idx = |n: &str| by_name.get(n).copied();
        let messages = msgs
            .iter()
            .map(|(name, fields)| {
                let fields = fields
                    .as_array()
                    .map(Vec::as_slice)
                    .unwrap_or(&[])
                    .iter()
                    .filter_map(|f| {
                        let number = f.get(0)?.as_u64()? as u32;
                        let json = f.get(1)?.as_str()?.to_string();
                        let kind = f.get(2)?.as_str()?;
                        let repeated = f.get(3)?.as_str()? == "r";
                        let r = f.get(4)?.as_str()?;
                        let kind = match kind {
                            "string" => Kind::String,
                            "int32" => Kind::Int32,
                            "int64" => Kind::Int64,
                            "bool" => Kind::Bool,
                            "bytes" => Kind::Bytes,
                            "double" => Kind::Double,
                            "message" => Kind::Message(idx(r)?),
                            "inline" => Kind::Inline(idx(r)?),
                            "map" => Kind::Map(match r.split_once(',')?.1 {
                                "string" => MapValue::String,
                                "bytes" => MapValue::Bytes,
                                m => MapValue::Message(idx(m.strip_prefix("message:")?)?),
                            }),
                            _ => return None,
                        };
                        let keep_zero = f.get(5).and_then(Value::as_str) == Some("k");
                        Some(Field { number, json, kind, repeated, keep_zero })
                    })
                    .collect();
                let special = match name.as_str() {
                    "k8s.io.apimachinery.pkg.apis.meta.v1.Time" => Special::Time,
                    "k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime" => Special::MicroTime,
                    "k8s.io.apimachinery.pkg.util.intstr.IntOrString" => Special::IntOrString,
                    "k8s.io.apimachinery.pkg.api.resource.Quantity" => Special::Quantity,
                    "k8s.io.apimachinery.pkg.runtime.RawExtension"
                    | "k8s.io.apimachinery.pkg.apis.meta.v1.FieldsV1" => Special::RawJson,
                    "k8s.io.apimachinery.pkg.apis.meta.v1.Duration" => Special::Duration,
                    "k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.Json" => Special::RawJson,
                    "k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.JsonSchemaPropsOrArray" => {
                        Special::SchemaOrArray
                    }
                    "k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.JsonSchemaPropsOrBool" => {
                        Special::SchemaOrBool
                    }
                    "k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.JsonSchemaPropsOrStringArray" => {
                        Special::SchemaOrStrings
                    }
                    "k8s.io.api.authorization.v1.ExtraValue" | "k8s.io.api.authentication.v1.ExtraValue" => {
                        Special::StringList
                    }
                    _ => Special::None,
                };
                let fields: Vec<Field> = fields;
                let embeds = fields.iter().any(|f| matches!(f.kind, Kind::Inline(_)));
                let by_json = if embeds {
                    HashMap::default()
                } else {
                    fields.iter().enumerate().map(|(i, f)| (f.json.as_bytes().into(), i)).collect()
                };
                let names = fields.iter().map(|f| NameKey::of(f.json.as_bytes())).collect();
                let follows = (0..=fields.len()).map(|i| (i as u16).into()).collect();
                MessageType {
                    name: name.clone(),
                    fields,
                    special,
                    by_json,
                    embeds,
                    names,
                    follows,
                    length_bytes: 1.into(),
                }
            })
            .collect();
        Layouts { messages, by_name }
    })
}

/// The protobuf message of an `apiVersion`/`kind`, if the kind has one.
fn message_for(api_version: &str, kind: &str) -> Option<usize> {
    // The last few answers, per thread: a list's items and a watch's
    // events ask for the same kind again and again, and naming its
    // message costs two strings built and hashed.
    type Memo = Vec<(Box<str>, Box<str>, Option<usize>)>;
    thread_local! {
        static LAST: std::cell::RefCell<Memo> = const { std::cell::RefCell::new(Vec::new()) };
    }
    let known =
        LAST.with_borrow(|memo| memo.iter().find(|(a, k, _)| **k == *kind && **a == *api_version).map(|(.., m)| *m));
    if let Some(msg) = known {
        return msg;
    }
    let msg = look_up_message(api_version, kind);
    LAST.with_borrow_mut(|memo| {
        if memo.len() == 8 {
            memo.remove(0);
        }
        memo.push((api_version.into(), kind.into(), msg));
    });
    msg
}

fn look_up_message(api_version: &str, kind: &str) -> Option<usize> {
    let (group, version) = api_version.split_once('/').unwrap_or(("", api_version));
    let package = match (group, kind) {
        ("", "Status" | "WatchEvent" | "DeleteOptions") | ("meta.k8s.io", _) => {
            format!("k8s.io.apimachinery.pkg.apis.meta.{version}")
        }
        ("", _) => format!("k8s.io.api.core.{version}"),
        ("apiextensions.k8s.io", _) => format!("k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.{version}"),
        (g, _) => format!("k8s.io.api.{}.{version}", g.split('.').next().unwrap_or(g)),
    };
    layouts().by_name.get(&format!("{package}.{kind}")).copied()
}

/// Whether objects of this kind (and group/version) have a protobuf form.
pub fn has_protobuf(api_version: &str, kind: &str) -> bool {
    message_for(api_version, kind).is_some()
}

// ---- wire helpers ---------------------------------------------------------

const VARINT: u32 = 0;
const FIXED64: u32 = 1;
const LEN: u32 = 2;

#[inline]
fn key(out: &mut Vec<u8>, number: u32, wire: u32) {
    let tag = number << 3 | wire;
    match u8::try_from(tag) {
        Ok(one) if one < 0x80 => out.push(one),
        _ => encode_varint(u64::from(tag), out),
    }
}

#[inline]
fn len_delimited(out: &mut Vec<u8>, number: u32, bytes: &[u8]) {
    // (Most tags and lengths take a byte each: both written at once.)
    match (u8::try_from(number << 3 | LEN), u8::try_from(bytes.len())) {
        (Ok(tag), Ok(len)) if tag < 0x80 && len < 0x80 => {
            out.reserve(bytes.len() + 2);
            out.extend_from_slice(&[tag, len]);
        }
        _ => {
            key(out, number, LEN);
            encode_varint(bytes.len() as u64, out);
        }
    }
    out.extend_from_slice(bytes);
}

/// Writes a length-delimited field whose payload `fill` writes straight
/// into `out` (no buffer per nested message): one byte is reserved for the
/// length, and the payload moved when its length needs more.
fn nested(out: &mut Vec<u8>, number: u32, fill: impl FnOnce(&mut Vec<u8>) -> Result<(), String>) -> Result<(), String> {
    nested_reserving(out, number, 1, fill).map(|_| ())
}

/// The bytes of a length's varint.
fn varint_len(n: usize) -> usize {
    let bits = usize::BITS - n.max(1).leading_zeros();
    bits.div_ceil(7) as usize
}

/// `nested`, reserving `reserve` bytes for the length (a guess: the
/// payload is moved only when the guess was wrong); says how many the
/// length took.
fn nested_reserving(
    out: &mut Vec<u8>,
    number: u32,
    reserve: usize,
    fill: impl FnOnce(&mut Vec<u8>) -> Result<(), String>,
) -> Result<usize, String> {
    let at = open_nested(out, number, reserve);
    fill(out)?;
    Ok(close_nested(out, at, reserve))
}

/// Starts a length-delimited field: its key, and `reserve` bytes for the
/// length (`close_nested` writes it); says where the length goes.
fn open_nested(out: &mut Vec<u8>, number: u32, reserve: usize) -> usize {
    key(out, number, LEN);
    let at = out.len();
    out.resize(at + reserve, 0);
    at
}

/// Ends what `open_nested` started: writes the payload's length, moving
/// the payload when the length needs other than `reserve` bytes; says how
/// many it took.
fn close_nested(out: &mut Vec<u8>, at: usize, reserve: usize) -> usize {
    let start = at + reserve;
    let len = out.len() - start;
    if let (1, Ok(short @ 0..0x80)) = (reserve, u8::try_from(len)) {
        out[at] = short;
        return 1;
    }
    let need = varint_len(len);
    if need != reserve {
        let end = out.len();
        if need > reserve {
            out.resize(end + need - reserve, 0);
        }
        out.copy_within(start..end, at + need);
        out.truncate(at + need + len);
    }
    let mut prefix = [0u8; 10];
    let mut slot = &mut prefix[..];
    encode_varint(len as u64, &mut slot);
    out[at..at + need].copy_from_slice(&prefix[..need]);
    need
}

/// A message nested in a field, its length's bytes guessed from the last
/// message of its type (items of a list, containers of pods: alike).
fn nested_message(out: &mut Vec<u8>, number: u32, msg: usize, v: &Value) -> Result<(), String> {
    let guess = length_guess(msg);
    let took = nested_reserving(out, number, guess, |out| encode_message(msg, v, out))?;
    learn_length(msg, guess, took);
    Ok(())
}

/// How many bytes the length of a message of type `msg` probably takes.
fn length_guess(msg: usize) -> usize {
    usize::from(layouts().messages[msg].length_bytes.load(std::sync::atomic::Ordering::Relaxed)).max(1)
}

/// Remembers how many it took, when the guess was wrong.
fn learn_length(msg: usize, guess: usize, took: usize) {
    if took != guess {
        layouts().messages[msg].length_bytes.store(took as u8, std::sync::atomic::Ordering::Relaxed);
    }
}

fn varint_field(out: &mut Vec<u8>, number: u32, v: u64) {
    key(out, number, VARINT);
    encode_varint(v, out);
}

// ---- JSON → protobuf ------------------------------------------------------

/// Encodes a JSON object as the message `msg`.
fn encode_message(msg: usize, v: &Value, out: &mut Vec<u8>) -> Result<(), String> {
    let m = &layouts().messages[msg];
    match m.special {
        Special::None => {}
        special => return encode_special(special, v, out),
    }
    let Some(obj) = v.as_object() else { return Err(format!("{}: expected an object", short(&m.name))) };
    if m.embeds {
        for f in &m.fields {
            if let Kind::Inline(inner) = f.kind {
                // Go writes an embedded struct always, even when empty.
                nested_message(out, f.number, inner, v)?;
            } else if let Some(val) = obj.get(&f.json).filter(|x| !x.is_null()) {
                encode_field(f, val, out)?;
            }
        }
        return Ok(());
    }
    // The object's own keys (usually far fewer than the message's fields),
    // written in field-number order. Objects as Go writes them (and as
    // this server stores them) have their keys in the struct's order,
    // which is the fields' order: each key is first compared with the
    // few fields after the last one found, then looked up.
    // (On the stack for objects of up to 16 keys: most.)
    let mut inline: [(usize, &Value); 16] = [(0, &Value::Null); 16];
    let mut spilled: Vec<(usize, &Value)> = Vec::new();
    let mut count = 0;
    let (mut next, mut in_order, mut last_number) = (0, true, 0);
    for (k, val) in obj {
        if val.is_null() {
            continue;
        }
        let Some(i) = field_at(m, next, k.as_bytes()) else { continue };
        in_order &= count == 0 || last_number < m.fields[i].number;
        last_number = m.fields[i].number;
        if count < inline.len() {
            inline[count] = (i, val);
        } else {
            if spilled.is_empty() {
                spilled.extend_from_slice(&inline);
            }
            spilled.push((i, val));
        }
        count += 1;
        next = i + 1;
    }
    let present = if spilled.is_empty() { &mut inline[..count] } else { &mut spilled[..] };
    if !in_order {
        present.order_by_key(|(i, _)| m.fields[*i].number);
    }
    for (i, val) in present.iter() {
        encode_field(&m.fields[*i], val, out)?;
    }
    Ok(())
}

/// The index of the field whose JSON name is `k`, the key after field
/// `next - 1` (or the first key, `next == 0`): first compared with the
/// field that followed that one last time, then with the few fields from
/// `next` on, then looked up.
fn field_at(m: &MessageType, next: usize, k: &[u8]) -> Option<usize> {
    use std::sync::atomic::Ordering::Relaxed;
    let key = NameKey::of(k);
    let is =
        |i: usize| m.names.get(i).is_some_and(|n| *n == key) && (k.len() <= 16 || m.fields[i].json.as_bytes() == k);
    let learned = m.follows.get(next).map(|f| usize::from(f.load(Relaxed)));
    if let Some(i) = learned.filter(|i| is(*i)) {
        return Some(i);
    }
    let found = (next..(next + 3).min(m.names.len())).find(|i| is(*i)).or_else(|| m.by_json.get(k).copied());
    if let (Some(i), Some(f)) = (found, m.follows.get(next)) {
        f.store(i as u16, Relaxed);
    }
    found
}

/// When the key whose opening quote is at `text[at]` is the one that
/// followed field `next - 1` last time (see `field_at`): that field, and
/// where the key ends. Compared in place as a `NameKey`, without looking
/// for the key's end first.
#[inline(always)]
fn predicted(m: &MessageType, next: usize, text: &[u8], at: usize) -> Option<(usize, usize)> {
    let i = usize::from(m.follows.get(next)?.load(std::sync::atomic::Ordering::Relaxed));
    let name = m.names.get(i)?;
    let (start, len) = (at + 1, name.2);
    let word = |p: usize| text.get(p..)?.first_chunk::<8>().map(|w| u64::from_le_bytes(*w));
    let (head, tail) = match len {
        0..8 => (word(start)? & ((1u64 << (8 * len)) - 1), 0),
        _ => (word(start)?, word(start + len - 8)?),
    };
    let same = text.get(at) == Some(&b'"')
        && head == name.0
        && tail == name.1
        && text.get(start + len) == Some(&b'"')
        && (len <= 16 || text.get(start..start + len) == Some(m.fields[i].json.as_bytes()));
    same.then_some((i, start + len + 1))
}

/// A name's length and its first and last eight bytes: most names are
/// told apart by them (and names of up to sixteen bytes found equal)
/// without a call to `memcmp`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct NameKey(u64, u64, usize);

impl NameKey {
    fn of(b: &[u8]) -> NameKey {
        let word = |w: &[u8]| w.iter().rev().fold(0u64, |acc, &x| acc << 8 | u64::from(x));
        match (b.first_chunk::<8>(), b.last_chunk::<8>()) {
            (Some(first), Some(last)) => NameKey(u64::from_le_bytes(*first), u64::from_le_bytes(*last), b.len()),
            _ => NameKey(word(b), 0, b.len()),
        }
    }
}

fn encode_field(f: &Field, val: &Value, out: &mut Vec<u8>) -> Result<(), String> {
    if let Kind::Map(mv) = f.kind {
        let Some(map) = val.as_object() else { return Err(format!("{}: expected an object", f.json)) };
        // Entries in key order, as Go writes a map (most are already:
        // then no list of them is made).
        let sorted = map.keys().zip(map.keys().skip(1)).all(|(a, b)| a <= b);
        let mut entries: Vec<(&String, &Value)> = Vec::new();
        if !sorted {
            entries.extend(map.iter());
            entries.order_by(|a, b| a.0.cmp(b.0));
        }
        let in_order: &mut dyn Iterator<Item = (&String, &Value)> =
            if sorted { &mut map.iter() } else { &mut entries.iter().copied() };
        for (k, item) in in_order {
            nested(out, f.number, |entry| {
                len_delimited(entry, 1, k.as_bytes());
                match mv {
                    MapValue::String => len_delimited(entry, 2, item.as_str().unwrap_or("").as_bytes()),
                    MapValue::Bytes => len_delimited(entry, 2, &base64_bytes(item)?),
                    MapValue::Message(inner) => nested_message(entry, 2, inner, item)?,
                }
                Ok(())
            })?;
        }
        return Ok(());
    }
    if f.repeated {
        let Some(items) = val.as_array() else { return Err(format!("{}: expected an array", f.json)) };
        for item in items {
            encode_single(f, item, out)?;
        }
        Ok(())
    } else {
        encode_single(f, val, out)
    }
}

fn encode_single(f: &Field, v: &Value, out: &mut Vec<u8>) -> Result<(), String> {
    let bad = || format!("{}: unexpected JSON value {v}", f.json);
    match f.kind {
        Kind::String => len_delimited(out, f.number, v.as_str().ok_or_else(bad)?.as_bytes()),
        Kind::Int32 | Kind::Int64 => {
            let n = v.as_i64().or_else(|| v.as_f64().map(|x| x as i64)).ok_or_else(bad)?;
            let n = if f.kind == Kind::Int32 { i64::from(n as i32) } else { n };
            varint_field(out, f.number, n as u64);
        }
        Kind::Bool => varint_field(out, f.number, u64::from(v.as_bool().ok_or_else(bad)?)),
        Kind::Double => {
            key(out, f.number, FIXED64);
            out.extend_from_slice(&v.as_f64().ok_or_else(bad)?.to_le_bytes());
        }
        Kind::Bytes => len_delimited(out, f.number, &base64_bytes(v)?),
        Kind::Message(inner) => nested_message(out, f.number, inner, v)?,
        Kind::Inline(_) | Kind::Map(_) => return Err(bad()),
    }
    Ok(())
}

fn base64_bytes(v: &Value) -> Result<Vec<u8>, String> {
    base64_text(v.as_str().ok_or_else(|| format!("expected base64 text, got {v}"))?)
}

fn base64_text(s: &str) -> Result<Vec<u8>, String> {
    base64::engine::general_purpose::STANDARD.decode(s).map_err(|e| format!("illegal base64 data: {e}"))
}

fn encode_special(special: Special, v: &Value, out: &mut Vec<u8>) -> Result<(), String> {
    match special {
        Special::Time | Special::MicroTime => {
            let s = v.as_str().ok_or_else(|| format!("expected a timestamp, got {v}"))?;
            let (secs, nanos) = parse_timestamp(s).ok_or_else(|| format!("invalid timestamp {s:?}"))?;
            varint_field(out, 1, secs as u64);
            varint_field(out, 2, nanos as u64);
        }
        Special::IntOrString => match v {
            Value::String(s) => {
                varint_field(out, 1, 1);
                varint_field(out, 2, 0);
                len_delimited(out, 3, s.as_bytes());
            }
            _ => {
                let n = v.as_i64().ok_or_else(|| format!("expected an int or string, got {v}"))?;
                varint_field(out, 1, 0);
                varint_field(out, 2, i64::from(n as i32) as u64);
                len_delimited(out, 3, b"");
            }
        },
        Special::Quantity => match v {
            Value::String(s) => len_delimited(out, 1, s.as_bytes()),
            Value::Number(n) => len_delimited(out, 1, n.to_string().as_bytes()),
            _ => return Err(format!("expected a quantity, got {v}")),
        },
        Special::RawJson => {
            // Serialized straight into the message (no buffer of its own).
            nested(out, 1, |out| serde_json::to_writer(out, v).map_err(|e| e.to_string()))?;
        }
        Special::Duration => {
            let s = v.as_str().ok_or_else(|| format!("expected a duration, got {v}"))?;
            let ms = crate::clock::parse_duration_millis(s).ok_or_else(|| format!("invalid duration {s:?}"))?;
            varint_field(out, 1, (ms.saturating_mul(1_000_000)) as u64);
        }
        Special::SchemaOrArray | Special::SchemaOrBool | Special::SchemaOrStrings => {
            let props = schema_props();
            let one = |number: u32, item: &Value, out: &mut Vec<u8>| -> Result<(), String> {
                nested_message(out, number, props, item)
            };
            match (special, v) {
                (Special::SchemaOrBool, Value::Bool(b)) => varint_field(out, 1, u64::from(*b)),
                (Special::SchemaOrBool, obj) => {
                    varint_field(out, 1, 1);
                    one(2, obj, out)?;
                }
                (Special::SchemaOrArray, Value::Array(items)) => {
                    for item in items {
                        one(2, item, out)?;
                    }
                }
                (Special::SchemaOrStrings, Value::Array(items)) => {
                    for item in items {
                        len_delimited(out, 2, item.as_str().unwrap_or("").as_bytes());
                    }
                }
                (_, obj) => one(1, obj, out)?,
            }
        }
        Special::StringList => {
            let items = v.as_array().ok_or_else(|| format!("expected a list of strings, got {v}"))?;
            for item in items {
                let s = item.as_str().ok_or_else(|| format!("expected a string, got {item}"))?;
                len_delimited(out, 1, s.as_bytes());
            }
        }
        Special::None => {}
    }
    Ok(())
}

fn schema_props() -> usize {
    layouts()
        .by_name
        .get("k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.JsonSchemaProps")
        .copied()
        .unwrap_or(0)
}

/// Seconds and nanoseconds of an RFC 3339 timestamp.
fn parse_timestamp(s: &str) -> Option<(i64, i32)> {
    if let Some(t) = crate::clock::parse_rfc3339_parts(s) {
        return Some(t);
    }
    // (Any zone is read as UTC, as before: only the first 19 characters
    // are the time.)
    let secs = match crate::clock::parse_rfc3339(s) {
        Some(ms) => ms.div_euclid(1000),
        None => crate::clock::parse_rfc3339(&format!("{}Z", s.get(..19)?))?.div_euclid(1000),
    };
    let frac = s.get(19..)?.strip_prefix('.').map(|f| f.trim_end_matches('Z')).unwrap_or("");
    let mut nanos: i64 = 0;
    for (i, c) in frac.chars().take(9).enumerate() {
        nanos += i64::from(c.to_digit(10)?) * 10i64.pow(8 - i as u32);
    }
    Some((secs, nanos as i32))
}

fn short(name: &str) -> &str {
    name.rsplit('.').next().unwrap_or(name)
}

// The envelope, lists, watch frames and the encoding cache; the byte
// layout the UI shows.
mod annotate;
mod decode;
mod envelope;
mod transcode;

use decode::{decode_message, Reader};
#[cfg(test)]
use decode::{FIRST_RFC3339_SECOND, LAST_RFC3339_SECOND};

pub use annotate::{annotate, Span};
pub use envelope::{
    decode_object, encode_list, encode_object, encode_object_json, encode_raw, encode_raw_stored, envelope,
    read_watch_frames, transcode, write_watch_frame, write_watch_frame_enveloped, EncodingCache,
};

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_envelope_is_magic_then_unknown() {
        let cm = json!({"kind": "ConfigMap", "apiVersion": "v1", "metadata": {"name": "a"}, "data": {"k": "v"}});
        let b = encode_object(&cm).unwrap();
        let expected: Vec<u8> = [
            &b"k8s\x00"[..],
            // typeMeta {apiVersion: "v1", kind: "ConfigMap"}
            &[0x0a, 0x0f, 0x0a, 0x02],
            b"v1",
            &[0x12, 0x09],
            b"ConfigMap",
            // raw: ConfigMap{metadata{name: "a"}, data{"k": "v"}}
            &[0x12, 0x0d, 0x0a, 0x03, 0x0a, 0x01, b'a', 0x12, 0x06, 0x0a, 0x01, b'k', 0x12, 0x01, b'v'],
            // contentEncoding, contentType: empty
            &[0x1a, 0x00, 0x22, 0x00],
        ]
        .concat();
        assert_eq!(b, expected);
        assert_eq!(decode_object(&b).unwrap(), cm);
    }

    #[test]
    fn a_map_entry_without_its_value_holds_the_zero_value() {
        // A container's resources.limits: one entry with a key and no
        // value (found by the `protobuf` fuzz target: it decoded as `{}`,
        // which no Quantity is, and did not encode back).
        let mut raw = Vec::new();
        nested(&mut raw, 2, |spec| {
            nested(spec, 2, |container| {
                len_delimited(container, 1, b"c");
                nested(container, 8, |resources| {
                    nested(resources, 1, |entry| {
                        len_delimited(entry, 1, b"cpu");
                        Ok(())
                    })
                })
            })
        })
        .unwrap();
        let v = decode_object(&envelope("v1", "Pod", &raw)).unwrap();
        assert_eq!(v["spec"]["containers"][0]["resources"], json!({"limits": {"cpu": "0"}}));
        assert_eq!(decode_object(&encode_object(&v).unwrap()).unwrap(), v);
    }

    #[test]
    fn times_decode_within_the_years_rfc3339_writes() {
        let event = |secs: i64, nanos: i32| {
            let mut raw = Vec::new();
            nested(&mut raw, 1, |m| {
                len_delimited(m, 1, b"e");
                Ok(())
            })
            .unwrap();
            nested(&mut raw, 10, |t| {
                varint_field(t, 1, secs as u64);
                varint_field(t, 2, nanos as u64);
                Ok(())
            })
            .unwrap();
            decode_object(&envelope("v1", "Event", &raw)).map(|v| v["eventTime"].clone())
        };
        assert_eq!(event(FIRST_RFC3339_SECOND, 0), Ok(json!("0001-01-01T00:00:00.000000Z")));
        assert_eq!(event(LAST_RFC3339_SECOND, 999_999_999), Ok(json!("9999-12-31T23:59:59.999999Z")));
        // Nanoseconds past a second carry, as Go's time.Unix carries them.
        assert_eq!(event(0, 1_500_000_000), Ok(json!("1970-01-01T00:00:01.500000Z")));
        assert_eq!(event(0, -1), Ok(json!("1969-12-31T23:59:59.999999Z")));
        // Year 10000 has no RFC 3339 form to read back.
        assert!(event(LAST_RFC3339_SECOND + 1, 0).is_err());
        assert!(event(FIRST_RFC3339_SECOND, -1).is_err());
    }

    #[test]
    fn other_zones_are_read_as_utc() {
        // The first 19 characters, as UTC, as before.
        assert_eq!(parse_timestamp("2023-11-14T22:13:20+02:00"), parse_timestamp("2023-11-14T22:13:20Z"));
        assert_eq!(parse_timestamp("2000-02-29T23:59:59.123456789Z"), Some((951_868_799, 123_456_789)));
    }

    #[test]
    fn special_shapes_round_trip() {
        let pod = json!({"kind": "Pod", "apiVersion": "v1",
            "metadata": {"name": "p", "creationTimestamp": "2023-11-14T22:13:20Z",
                "managedFields": [{"manager": "m", "operation": "Apply", "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {}}, "time": "2023-11-14T22:13:20Z"}]},
            "spec": {"containers": [{"name": "c", "image": "i",
                "ports": [{"containerPort": 80}],
                "livenessProbe": {"httpGet": {"port": "http", "path": "/"}, "periodSeconds": 5},
                "resources": {"limits": {"cpu": "500m"}}}],
                "volumes": [{"name": "v", "emptyDir": {}}]}});
        let b = encode_object(&pod).unwrap();
        assert_eq!(decode_object(&b).unwrap(), pod);
    }

    #[test]
    fn extra_values_are_bare_string_lists() {
        let sar = json!({"kind": "SubjectAccessReview", "apiVersion": "authorization.k8s.io/v1",
            "metadata": {},
            "spec": {"user": "alice", "groups": ["dev"], "extra": {"scopes": ["a", "b"], "none": []},
                "resourceAttributes": {"verb": "get", "resource": "pods", "namespace": "default"}},
            "status": {"allowed": true, "reason": "why"}});
        let b = encode_object(&sar).unwrap();
        assert_eq!(decode_object(&b).unwrap(), sar);
    }

    #[test]
    fn bad_bodies_are_errors_not_panics() {
        assert!(decode_object(b"").is_err());
        assert!(decode_object(b"k8s\x00\x0a\xff").is_err());
        assert!(decode_object(b"{\"kind\":\"Pod\"}").is_err());
        let mut truncated =
            encode_object(&json!({"kind": "Namespace", "apiVersion": "v1", "metadata": {"name": "n"}})).unwrap();
        truncated.truncate(truncated.len() - 6);
        assert!(decode_object(&truncated).is_err());
    }

    #[test]
    fn annotating_damaged_bytes_never_panics() {
        let pod = json!({"kind": "Pod", "apiVersion": "v1", "metadata": {"name": "p", "labels": {"a": "b"}},
            "spec": {"containers": [{"name": "c", "image": "i"}]}});
        let good = encode_object(&pod).unwrap();
        let spans = annotate(&good);
        assert!(spans.iter().all(|s| s.start < s.end && s.end <= good.len()));
        for i in 0..good.len() {
            for x in [0x01u8, 0x80, 0xff] {
                let mut bad = good.clone();
                bad[i] ^= x;
                let _ = annotate(&bad);
                let _ = decode_object(&bad);
            }
            let _ = annotate(&good[..i]);
            let _ = read_watch_frames(&good[..i]);
        }
    }

    #[test]
    fn watch_frames_round_trip() {
        let ns = json!({"kind": "Namespace", "apiVersion": "v1", "metadata": {"name": "n"}});
        let mut out = Vec::new();
        write_watch_frame("ADDED", &ns, &mut out).unwrap();
        write_watch_frame("DELETED", &ns, &mut out).unwrap();
        let frames = read_watch_frames(&out).unwrap();
        assert_eq!(frames, vec![("ADDED".to_string(), ns.clone()), ("DELETED".to_string(), ns)]);
    }

    #[test]
    fn meta_kinds_have_messages_and_tables_do_not() {
        assert!(has_protobuf("v1", "Status"));
        assert!(has_protobuf("meta.k8s.io/v1", "PartialObjectMetadataList"));
        assert!(!has_protobuf("meta.k8s.io/v1", "Table"));
        assert!(!has_protobuf("example.com/v1", "Widget"));
    }
}
