//! A stored object to protobuf straight from its JSON bytes, without the
//! `Value` in between: the bytes are read once, left to right, and each
//! field is written as it is read. Strings without escapes are copied from
//! the bytes; FieldsV1 and RawExtension (JSON on both wires) are copied as
//! they are stored (serde_json's compact output, which is what
//! serializing their value would write).
//!
//! It writes exactly what the `Value` encoder (`encode_message`) writes, or
//! it fails: then the caller encodes the object the `Value` way, which
//! says what is wrong in its own words. Shapes it leaves to the `Value`
//! encoder that way: apiextensions' schema unions, string lists, `null`
//! items in arrays, maps of strings holding other values, and anything
//! that is not JSON as serde_json writes it. A message that embeds a
//! struct (a probe and its handler) is read into a `Value` where it is and
//! encoded from that.
//!
//! Fields are written in the order the object's keys come. When that is
//! not field-number order (Go's, and the `Value` encoder's), the object's
//! fields are put in order afterwards by one copy of its bytes; a map's
//! entries likewise by key.
//!
//! Why a reader of its own and not serde_json's: the stored bytes are
//! trusted (serde_json wrote them), and skipping a FieldsV1 object is a
//! scan for its closing brace, where serde_json's reader parses every key
//! of it; with serde_json's reader this was no faster than parsing into a
//! `Value` and encoding that (`BENCHMARKS.md`).
//!
//! What makes it fast: a key is first compared in place with the one that
//! followed the previous field last time (objects of a kind are written
//! with their keys in one order), so most keys are neither scanned for
//! their end nor looked up; an object holding only objects (FieldsV1) is
//! skipped key by key; the bytes are not checked as UTF-8 as a whole
//! (serde_json wrote them), only the few strings read as text.

use std::borrow::Cow;

use serde_json::Value;

use super::{
    close_nested, encode_message, field_at, key, layouts, learn_length, len_delimited, length_guess, message_for,
    open_nested, parse_timestamp, predicted, varint_field, Kind, MapValue, Reader, Special, FIXED64,
};
use crate::sort::Order;

/// Why the `Value` encoder must do it (what exactly does not matter: it
/// will say).
#[derive(Debug)]
pub(super) struct Refused;

type Result<T> = std::result::Result<T, Refused>;

/// The message bytes (no envelope) of the stored JSON of an object of the
/// given kind; `Refused` when the `Value` encoder must do it (see above).
pub(super) fn encode_raw_json(api_version: &str, kind: &str, json: &[u8]) -> Result<Vec<u8>> {
    let msg = message_for(api_version, kind).ok_or(Refused)?;
    let mut out = Vec::with_capacity(json.len());
    write_fields(msg, json, &mut out)?;
    Ok(out)
}

/// As `encode_raw_json`, the message nested in field `number` of what
/// `out` holds.
pub(super) fn encode_nested_json(out: &mut Vec<u8>, number: u32, msg: usize, json: &[u8]) -> Result<()> {
    let guess = length_guess(msg);
    let at = open_nested(out, number, guess);
    write_fields(msg, json, out)?;
    learn_length(msg, guess, close_nested(out, at, guess));
    Ok(())
}

/// An object's `apiVersion` and `kind`, read from its JSON without the rest
/// (they lead, in the order the server writes objects).
pub(super) fn type_of(json: &[u8]) -> Result<(Cow<'_, str>, Cow<'_, str>)> {
    let mut j = Json { text: json, at: 0, marks: Vec::new(), spare: Vec::new() };
    let (mut api_version, mut kind) = (None, None);
    let mut more = j.open(b'{', b'}')?;
    while more && (api_version.is_none() || kind.is_none()) {
        let k = j.string()?;
        j.eat(b':')?;
        match k.as_ref() {
            b"apiVersion" if j.peek() == Some(b'"') => api_version = Some(j.string()?),
            b"kind" if j.peek() == Some(b'"') => kind = Some(j.string()?),
            _ => {
                j.skip()?;
            }
        }
        more = j.more(b'}')?;
    }
    Ok((into_text(api_version.ok_or(Refused)?)?, into_text(kind.ok_or(Refused)?)?))
}

/// Bytes read as text (strings and scalars of the stored JSON, which
/// serde_json wrote: always UTF-8).
fn utf8(b: &[u8]) -> Result<&str> {
    std::str::from_utf8(b).map_err(|_| Refused)
}

fn into_text(b: Cow<'_, [u8]>) -> Result<Cow<'_, str>> {
    match b {
        Cow::Borrowed(b) => utf8(b).map(Cow::Borrowed),
        Cow::Owned(v) => String::from_utf8(v).map(Cow::Owned).map_err(|_| Refused),
    }
}

/// The fields of the message `msg` read from `json`, written where `out`
/// ends.
fn write_fields(msg: usize, json: &[u8], out: &mut Vec<u8>) -> Result<()> {
    // The marks and the spare buffer are kept for the next object.
    thread_local! {
        static SCRATCH: std::cell::Cell<Scratch> = const { std::cell::Cell::new((Vec::new(), Vec::new())) };
    }
    let (mut marks, spare) = SCRATCH.take();
    marks.clear();
    let mut j = Json { text: json, at: 0, marks, spare };
    let done = fields(&mut j, msg, out);
    let whole = j.at == json.len();
    SCRATCH.set((j.marks, j.spare));
    done?;
    if !whole {
        return Err(Refused);
    }
    Ok(())
}

/// A field or map entry written: its number, where it starts and ends.
type Mark = (u32, usize, usize);

/// The marks and the spare buffer of `Json`, between objects.
type Scratch = (Vec<Mark>, Vec<u8>);

/// Compact JSON, read left to right.
struct Json<'a> {
    text: &'a [u8],
    at: usize,
    /// What each object being written has written so far (a field's
    /// number or a map's, start, end), objects within objects above their
    /// parents'.
    marks: Vec<Mark>,
    /// Where fields are put in order.
    spare: Vec<u8>,
}

impl<'a> Json<'a> {
    fn peek(&self) -> Option<u8> {
        self.text.get(self.at).copied()
    }

    fn eat(&mut self, c: u8) -> Result<()> {
        if self.peek() != Some(c) {
            return Err(Refused);
        }
        self.at += 1;
        Ok(())
    }

    /// After an item: true when another follows, false at `close`.
    fn more(&mut self, close: u8) -> Result<bool> {
        match self.peek() {
            Some(b',') => {
                self.at += 1;
                Ok(true)
            }
            Some(c) if c == close => {
                self.at += 1;
                Ok(false)
            }
            _ => Err(Refused),
        }
    }

    /// Opens an object or array: true when it has items.
    fn open(&mut self, c: u8, close: u8) -> Result<bool> {
        self.eat(c)?;
        if self.peek() == Some(close) {
            self.at += 1;
            return Ok(false);
        }
        Ok(true)
    }

    /// Where the string starting here ends (past its closing quote), and
    /// whether it has escapes.
    #[inline(always)]
    fn string_end(&self) -> Result<(usize, bool)> {
        let bytes = self.text;
        if bytes.get(self.at) != Some(&b'"') {
            return Err(Refused);
        }
        past_string(bytes, self.at + 1)
    }

    /// A string, borrowed unless it has escapes.
    #[inline(always)]
    fn string(&mut self) -> Result<Cow<'a, [u8]>> {
        let start = self.at;
        let (end, escaped) = self.string_end()?;
        self.at = end;
        if escaped {
            let quoted = self.text.get(start..end).ok_or(Refused)?;
            serde_json::from_slice::<String>(quoted).map(|s| Cow::Owned(s.into_bytes())).map_err(|_| Refused)
        } else {
            self.text.get(start + 1..end - 1).map(Cow::Borrowed).ok_or(Refused)
        }
    }

    /// A scalar's text (a number, true, false, null).
    fn scalar(&mut self) -> &'a [u8] {
        let bytes = self.text;
        let start = self.at;
        while self.at < bytes.len() && !matches!(bytes[self.at], b',' | b'}' | b']') {
            self.at += 1;
        }
        self.text.get(start..self.at).unwrap_or_default()
    }

    /// Skips a value; returns its text.
    fn skip(&mut self) -> Result<&'a [u8]> {
        let bytes = self.text;
        let start = self.at;
        match self.peek() {
            Some(b'"') => self.at = self.string_end()?.0,
            Some(b'{') if let Some(end) = objects_end(bytes, start) => self.at = end,
            Some(b'{' | b'[') => {
                let mut depth = 0usize;
                let mut i = self.at;
                loop {
                    let c = *bytes.get(i).ok_or(Refused)?;
                    i += 1;
                    match c {
                        b'"' => i = past_string(bytes, i)?.0,
                        b'{' | b'[' => depth += 1,
                        b'}' | b']' => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        // (Not as serde_json writes it: copied, it would
                        // differ from the value written again.)
                        b' ' | b'\n' | b'\r' | b'\t' => return Err(Refused),
                        _ => {}
                    }
                }
                self.at = i;
            }
            Some(_) => {
                self.scalar();
            }
            None => return Err(Refused),
        }
        self.text.get(start..self.at).ok_or(Refused)
    }

    /// `null` here: read past it.
    fn null(&mut self) -> bool {
        let is = self.text.get(self.at..self.at + 4) == Some(b"null");
        if is {
            self.at += 4;
        }
        is
    }
}

/// Where the object at `bytes[at]` ends when it holds only objects, each
/// key's value an object down to empty ones (FieldsV1, half of most
/// objects' bytes): read key by key, not byte by byte. `None` when it holds
/// anything else (then it is skipped byte by byte).
fn objects_end(bytes: &[u8], mut i: usize) -> Option<usize> {
    let at = |i: usize| bytes.get(i).copied();
    // At an object's `{`.
    let mut depth = 1usize;
    i += 1;
    if at(i) == Some(b'}') {
        return Some(i + 1);
    }
    loop {
        // A key and its colon.
        if at(i) != Some(b'"') {
            return None;
        }
        i = past_string(bytes, i + 1).ok()?.0;
        if at(i) != Some(b':') || at(i + 1) != Some(b'{') {
            return None;
        }
        i += 2;
        if at(i) != Some(b'}') {
            // An object with keys: its first key next.
            depth += 1;
            continue;
        }
        i += 1;
        // Past an empty object: the objects it ends end too.
        loop {
            match at(i) {
                Some(b',') => {
                    i += 1;
                    break;
                }
                Some(b'}') => {
                    i += 1;
                    depth -= 1;
                    if depth == 0 {
                        return Some(i);
                    }
                }
                _ => return None,
            }
        }
    }
}

/// Where the string whose text starts at `i` (past its opening quote)
/// ends (past its closing quote), and whether it has escapes.
#[inline(always)]
fn past_string(bytes: &[u8], mut i: usize) -> Result<(usize, bool)> {
    let mut escaped = false;
    loop {
        i = quote_or_escape(bytes, i);
        match bytes.get(i) {
            Some(b'"') => return Ok((i + 1, escaped)),
            Some(_) => {
                escaped = true;
                i += 2;
            }
            None => return Err(Refused),
        }
    }
}

/// Where the first `"` or `\\` at or after `i` is (`bytes.len()` if none),
/// looked for eight bytes at a time.
fn quote_or_escape(bytes: &[u8], mut i: usize) -> usize {
    const ONES: u64 = u64::from_le_bytes([1; 8]);
    const HIGHS: u64 = u64::from_le_bytes([0x80; 8]);
    // A high bit in each byte of `x` equal to `b` (and maybe in bytes
    // after the first such: the lowest one is exact).
    let equal = |x: u64, b: u8| {
        let v = x ^ (ONES * u64::from(b));
        v.wrapping_sub(ONES) & !v & HIGHS
    };
    while let Some(chunk) = bytes.get(i..i + 8) {
        let Ok(word) = <[u8; 8]>::try_from(chunk) else { break };
        let x = u64::from_le_bytes(word);
        let found = equal(x, b'"') | equal(x, b'\\');
        if found != 0 {
            return i + (found.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < bytes.len() && !matches!(bytes[i], b'"' | b'\\') {
        i += 1;
    }
    i
}

/// A JSON number as serde_json reads it into a `Value`.
#[derive(Clone, Copy)]
enum Number {
    Int(i64),
    /// Beyond i64, within u64.
    Big(u64),
    /// Beyond u64, or with a fraction or an exponent.
    Float(f64),
}

impl Number {
    fn read(text: &[u8]) -> Result<Number> {
        // Most are small integers: read digit by digit.
        let (negative, digits) = match text.split_first() {
            Some((b'-', rest)) => (true, rest),
            _ => (false, text),
        };
        if (1..=18).contains(&digits.len()) && digits.iter().all(u8::is_ascii_digit) && !(negative && digits == b"0") {
            let n = digits.iter().fold(0i64, |n, d| n * 10 + i64::from(d - b'0'));
            return Ok(Number::Int(if negative { -n } else { n }));
        }
        let first = *text.first().ok_or(Refused)?;
        if !(first == b'-' || first.is_ascii_digit()) {
            return Err(Refused);
        }
        let digits = text.iter().all(|b| b.is_ascii_digit() || *b == b'-');
        let text = utf8(text)?;
        if digits {
            // ("-0" is a float to serde_json; serde_json never writes it.)
            if text == "-0" {
                return Err(Refused);
            }
            if let Ok(n) = text.parse::<i64>() {
                return Ok(Number::Int(n));
            }
            if let Ok(n) = text.parse::<u64>() {
                return Ok(Number::Big(n));
            }
        }
        text.parse::<f64>().map(Number::Float).map_err(|_| Refused)
    }

    /// As the `Value` encoder reads an integer field: `as_i64`, else
    /// `as_f64` truncated.
    fn as_i64(self) -> i64 {
        match self {
            Number::Int(n) => n,
            Number::Big(n) => n as f64 as i64,
            Number::Float(x) => x as i64,
        }
    }

    fn as_f64(self) -> f64 {
        match self {
            Number::Int(n) => n as f64,
            Number::Big(n) => n as f64,
            Number::Float(x) => x,
        }
    }
}

/// A message's fields (the object starting here), written where `out`
/// ends.
fn fields(j: &mut Json, msg: usize, out: &mut Vec<u8>) -> Result<()> {
    let m = &layouts().messages[msg];
    if m.embeds {
        // (Probes embed their handler: small, read as a value.)
        let v: Value = serde_json::from_slice(j.skip()?).map_err(|_| Refused)?;
        return encode_message(msg, &v, out).map_err(|_| Refused);
    }
    let marks = j.marks.len();
    let mut in_order = true;
    let mut next = 0;
    let mut more = j.open(b'{', b'}')?;
    while more {
        let found = match predicted(m, next, j.text, j.at) {
            Some((i, end)) => {
                j.at = end;
                Some(i)
            }
            None => field_at(m, next, &j.string()?),
        };
        j.eat(b':')?;
        match found {
            None => {
                j.skip()?;
            }
            Some(i) => {
                next = i + 1;
                let f = &m.fields[i];
                let start = out.len();
                if !j.null() {
                    match f.kind {
                        Kind::Map(value) => entries(j, f.number, value, out)?,
                        kind if f.repeated => {
                            let mut item = j.open(b'[', b']')?;
                            while item {
                                single(j, f.number, kind, out)?;
                                item = j.more(b']')?;
                            }
                        }
                        kind => single(j, f.number, kind, out)?,
                    }
                }
                if out.len() > start {
                    in_order &= j.marks.len() == marks || j.marks.last().is_some_and(|(n, ..)| *n < f.number);
                    j.marks.push((f.number, start, out.len()));
                }
            }
        }
        more = j.more(b'}')?;
    }
    if !in_order {
        put_in_order(j, marks, out, false);
    }
    j.marks.truncate(marks);
    Ok(())
}

/// Puts the pieces written since mark `first` in order with one copy:
/// fields by number (a repeated field's items keep theirs), or a map's
/// entries by the key each holds.
fn put_in_order(j: &mut Json, first: usize, out: &mut [u8], by_entry_key: bool) {
    let Json { marks, spare, .. } = j;
    let written = &mut marks[first..];
    let Some(&(_, base, _)) = written.first() else { return };
    if by_entry_key {
        written.order_by(|a, b| entry_key(&out[a.1..a.2]).cmp(entry_key(&out[b.1..b.2])));
    } else {
        written.order_by(|a, b| a.0.cmp(&b.0));
    }
    spare.clear();
    for (_, start, end) in written.iter() {
        spare.extend_from_slice(&out[*start..*end]);
    }
    out[base..].copy_from_slice(spare);
}

/// The key a map entry holds, read back from the entry's bytes: past its
/// tag and length, the key's tag, then the key.
fn entry_key(entry: &[u8]) -> &[u8] {
    let mut r = Reader { buf: entry };
    let key = r.varint().and_then(|_| r.varint()).and_then(|_| r.varint()).and_then(|_| r.bytes());
    key.unwrap_or_default()
}

/// A map field's entries: messages {1: key, 2: value}, in key order.
fn entries(j: &mut Json, number: u32, value: MapValue, out: &mut Vec<u8>) -> Result<()> {
    let marks = j.marks.len();
    let mut last: Option<Cow<[u8]>> = None;
    let mut in_order = true;
    let mut more = j.open(b'{', b'}')?;
    while more {
        let k = j.string()?;
        j.eat(b':')?;
        let start = out.len();
        let at = open_nested(out, number, 1);
        len_delimited(out, 1, &k);
        match value {
            MapValue::String => len_delimited(out, 2, &j.string()?),
            MapValue::Bytes => len_delimited(out, 2, &super::base64_text(utf8(&j.string()?)?).map_err(|_| Refused)?),
            MapValue::Message(inner) => single(j, 2, Kind::Message(inner), out)?,
        }
        close_nested(out, at, 1);
        j.marks.push((number, start, out.len()));
        in_order &= last.is_none_or(|l| l < k);
        last = Some(k);
        more = j.more(b'}')?;
    }
    if !in_order {
        put_in_order(j, marks, out, true);
    }
    j.marks.truncate(marks);
    Ok(())
}

/// One value of a field (or an item of a repeated one; a `null` field was
/// left out before): a scalar, or a message nested with its length.
fn single(j: &mut Json, number: u32, kind: Kind, out: &mut Vec<u8>) -> Result<()> {
    match kind {
        Kind::String => len_delimited(out, number, &j.string()?),
        Kind::Bytes => len_delimited(out, number, &super::base64_text(utf8(&j.string()?)?).map_err(|_| Refused)?),
        Kind::Bool => {
            let b = match j.scalar() {
                b"true" => true,
                b"false" => false,
                _ => return Err(Refused),
            };
            varint_field(out, number, u64::from(b));
        }
        Kind::Int32 | Kind::Int64 => {
            let n = Number::read(j.scalar())?.as_i64();
            let n = if kind == Kind::Int32 { i64::from(n as i32) } else { n };
            varint_field(out, number, n as u64);
        }
        Kind::Double => {
            let x = Number::read(j.scalar())?.as_f64();
            key(out, number, FIXED64);
            out.extend_from_slice(&x.to_le_bytes());
        }
        Kind::Message(inner) => {
            let special = layouts().messages[inner].special;
            let guess = length_guess(inner);
            let at = open_nested(out, number, guess);
            message_value(j, inner, special, out)?;
            learn_length(inner, guess, close_nested(out, at, guess));
        }
        Kind::Inline(_) | Kind::Map(_) => return Err(Refused),
    }
    Ok(())
}

/// A message-typed value's payload: an object's fields, one of the
/// messages JSON writes as a scalar (times, int-or-string, quantities,
/// durations), or JSON carried as bytes.
fn message_value(j: &mut Json, inner: usize, special: Special, out: &mut Vec<u8>) -> Result<()> {
    match special {
        Special::None => fields(j, inner, out)?,
        Special::RawJson => len_delimited(out, 1, j.skip()?),
        Special::Time | Special::MicroTime => {
            let (secs, nanos) = parse_timestamp(utf8(&j.string()?)?).ok_or(Refused)?;
            varint_field(out, 1, secs as u64);
            varint_field(out, 2, nanos as u64);
        }
        Special::Duration => {
            let ms = crate::clock::parse_duration_millis(utf8(&j.string()?)?).ok_or(Refused)?;
            varint_field(out, 1, ms.saturating_mul(1_000_000) as u64);
        }
        Special::IntOrString | Special::Quantity if j.peek() == Some(b'"') => {
            let s = j.string()?;
            if special == Special::IntOrString {
                varint_field(out, 1, 1);
                varint_field(out, 2, 0);
                len_delimited(out, 3, &s);
            } else {
                len_delimited(out, 1, &s);
            }
        }
        Special::IntOrString => {
            let Number::Int(n) = Number::read(j.scalar())? else { return Err(Refused) };
            varint_field(out, 1, 0);
            varint_field(out, 2, i64::from(n as i32) as u64);
            len_delimited(out, 3, b"");
        }
        Special::Quantity => {
            // Written as serde_json writes the number it read.
            let text = match Number::read(j.scalar())? {
                Number::Int(n) => n.to_string(),
                Number::Big(n) => n.to_string(),
                Number::Float(x) => serde_json::Number::from_f64(x).ok_or(Refused)?.to_string(),
            };
            len_delimited(out, 1, text.as_bytes());
        }
        _ => return Err(Refused),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::encode_raw;
    use super::*;
    use serde_json::{json, Value};

    /// Read straight from the bytes (`fast`: without falling back), the
    /// object encodes as its `Value` does.
    fn same(api_version: &str, kind: &str, v: &Value, fast: bool) {
        let json = serde_json::to_vec(v).unwrap();
        let want = encode_raw(api_version, kind, v);
        let got = encode_raw_json(api_version, kind, &json);
        if fast {
            assert_eq!(got.as_ref().ok(), want.as_ref().ok(), "{v} {:?}", got.as_ref().err());
        } else if let Ok(got) = &got {
            assert_eq!(Some(got), want.as_ref().ok(), "{v}");
        }
        assert_eq!(super::super::encode_raw_stored(api_version, kind, &json), want, "{v}");
        // Enveloped, its type read from its leading keys (an answer's body).
        let mut typed = serde_json::Map::new();
        typed.insert("apiVersion".into(), json!(api_version));
        typed.insert("kind".into(), json!(kind));
        typed.extend(v.as_object().into_iter().flatten().map(|(k, x)| (k.clone(), x.clone())));
        let typed = Value::Object(typed);
        let enveloped = super::super::encode_object_json(&serde_json::to_vec(&typed).unwrap());
        if fast || enveloped.is_some() {
            assert_eq!(enveloped, super::super::encode_object(&typed).ok(), "{typed}");
        }
    }

    #[test]
    fn json_not_as_serde_json_writes_it_is_left_to_the_value_encoder() {
        let pretty = br#"{"metadata": {"name": "p"}}"#;
        assert!(encode_raw_json("v1", "Pod", pretty).is_err());
        // Whitespace inside FieldsV1 would be copied: refused too.
        let spaced = br#"{"metadata":{"managedFields":[{"fieldsV1":{"f:a": {}}}]}}"#;
        assert!(encode_raw_json("v1", "Pod", spaced).is_err());
        let v: Value = serde_json::from_slice(spaced).unwrap();
        assert_eq!(super::super::encode_raw_stored("v1", "Pod", spaced), encode_raw("v1", "Pod", &v));
        assert!(super::super::encode_object_json(br#"{"metadata":{}}"#).is_none());
    }

    #[test]
    fn objects_read_from_their_bytes_encode_as_their_values_do() {
        let pod = json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "p", "namespace": "default", "uid": "u-1", "resourceVersion": "7",
                "creationTimestamp": "2024-01-02T03:04:05Z", "labels": {"z": "1", "a": "2"},
                "annotations": {"note": "caf\u{e9} \"quoted\" \\ \n tab\t"},
                "managedFields": [{"manager": "kubectl", "operation": "Update", "apiVersion": "v1",
                    "time": "2024-01-02T03:04:05Z", "fieldsType": "FieldsV1",
                    "fieldsV1": {"f:spec": {"f:containers": {"k:{\"name\":\"app\"}": {".": {}, "f:image": {}}}}}}]},
            // Keys out of the fields' order (nodeName before containers),
            // unknown keys, nulls, empty arrays.
            "spec": {"nodeName": "n1", "unknownKey": {"deep": [1, 2, {"x": null}]}, "hostname": null,
                "containers": [{"name": "app", "image": "nginx", "args": [],
                    "ports": [{"containerPort": 8080, "protocol": "TCP"}],
                    "resources": {"requests": {"memory": "128Mi", "cpu": 0.5}, "limits": {"cpu": 2}},
                    "livenessProbe": {"httpGet": {"path": "/", "port": "http"}, "periodSeconds": 10}}],
                "activeDeadlineSeconds": 9_007_199_254_740_993_u64,
                "priority": -3, "enableServiceLinks": false, "terminationGracePeriodSeconds": 30.0,
                "overhead": {"cpu": "1"}},
            "status": {"phase": "Running", "startTime": "2024-01-02T03:04:05.5Z",
                "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": null}]}});
        same("v1", "Pod", &pod, true);
        let svc = json!({"metadata": {"name": "s"}, "spec": {"ports": [
            {"port": 80, "targetPort": 8080}, {"port": 443, "targetPort": "https", "nodePort": 30000}]}});
        same("v1", "Service", &svc, true);
        let secret = json!({"metadata": {"name": "s"}, "data": {"b": "aGk=", "a": ""}, "type": "Opaque"});
        same("v1", "Secret", &secret, true);
        let event = json!({"metadata": {"name": "e"}, "involvedObject": {"kind": "Pod"},
            "eventTime": "2024-01-02T03:04:05.123456Z", "count": 2});
        same("v1", "Event", &event, true);
        let list = json!({"metadata": {"resourceVersion": "5"}, "items": [pod, pod]});
        same("v1", "PodList", &list, true);
    }

    #[test]
    fn keys_like_the_expected_one_are_not_taken_for_it() {
        // After these the same keys are expected again, in this order.
        let usual = json!({"metadata": {"name": "p", "namespace": "d", "resourceVersion": "1",
            "creationTimestamp": "2024-01-02T03:04:05Z"}});
        same("v1", "Pod", &usual, true);
        same("v1", "Pod", &usual, true);
        // A longer key starting with the expected one; one of the same
        // length, first and last eight bytes (the ninth differs).
        // (Read from its bytes before the `Value` encoder learns its
        // order.)
        let unusual = json!({"metadata": {"name": "p", "namespaces": "d", "resourceVersion": "1",
            "creationXimestamp": "not a time"}});
        let got = encode_raw_json("v1", "Pod", &serde_json::to_vec(&unusual).unwrap());
        assert_eq!(got.ok(), encode_raw("v1", "Pod", &unusual).ok());
    }

    #[test]
    fn an_object_of_objects_ends_where_json_says() {
        let ends = [
            &br#"{}"#[..],
            br#"{"f:a":{}}"#,
            br#"{"f:a":{"f:b":{},".":{}},"f:c":{}},"more":1"#,
            br#"{"k:{\"name\":\"}{\"}":{".":{},"f:x":{"f:y":{"f:z":{}}}}}]"#,
        ];
        for text in ends {
            let mut values = serde_json::Deserializer::from_slice(text).into_iter::<Value>();
            assert!(values.next().is_some_and(|v| v.is_ok()));
            assert_eq!(objects_end(text, 0), Some(values.byte_offset()), "{}", String::from_utf8_lossy(text));
        }
        // Anything else is left to the byte-by-byte skip.
        for other in [&br#"{"a":1}"#[..], br#"{"a":{} }"#, br#"{"a":[]}"#, br#"{"a":{"b":{}}"#, br#"{"a" :{}}"#] {
            assert_eq!(objects_end(other, 0), None, "{}", String::from_utf8_lossy(other));
        }
    }

    #[test]
    fn what_it_leaves_to_the_value_encoder_still_encodes_the_same() {
        let cases = [
            // A null item, a map of strings holding a number, bad base64,
            // an int-or-string that is a float, a time that is not one.
            ("v1", "Pod", json!({"spec": {"containers": [null]}})),
            ("v1", "ConfigMap", json!({"metadata": {"name": "c"}, "data": {"a": 1, "b": "x"}})),
            ("v1", "Secret", json!({"data": {"a": "not base64!"}})),
            ("v1", "Service", json!({"spec": {"ports": [{"port": 80, "targetPort": 1.5}]}})),
            ("v1", "Pod", json!({"metadata": {"creationTimestamp": "yesterday"}})),
            ("v1", "Pod", json!({"spec": "not an object"})),
            // apiextensions' schema unions.
            (
                "apiextensions.k8s.io/v1",
                "CustomResourceDefinition",
                json!({"metadata": {"name": "ws.example.com"}, "spec": {"group": "example.com",
                "versions": [{"name": "v1", "schema": {"openAPIV3Schema": {"type": "object",
                    "properties": {"a": {"type": "array", "items": {"type": "string"}}},
                    "additionalProperties": false}}}]}}),
            ),
        ];
        for (api_version, kind, v) in &cases {
            same(api_version, kind, v, false);
        }
    }
}
