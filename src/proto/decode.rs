//! Protobuf → JSON: a message's bytes read back into the JSON the
//! server stores, by the same layouts the encoder walks (`super`).

use super::*;

pub(super) struct Reader<'a> {
    pub(super) buf: &'a [u8],
}

impl<'a> Reader<'a> {
    pub(super) fn varint(&mut self) -> Result<u64, String> {
        decode_varint(&mut self.buf).map_err(|_| "proto: illegal varint".to_string())
    }

    pub(super) fn bytes(&mut self) -> Result<&'a [u8], String> {
        let n = self.varint()? as usize;
        if n > self.buf.len() {
            return Err("unexpected EOF".into());
        }
        let (head, rest) = self.buf.split_at(n);
        self.buf = rest;
        Ok(head)
    }

    pub(super) fn skip(&mut self, wire: u32) -> Result<(), String> {
        match wire {
            VARINT => self.varint().map(drop),
            FIXED64 | 5 => {
                let n = if wire == FIXED64 { 8 } else { 4 };
                if self.buf.len() < n {
                    return Err("unexpected EOF".into());
                }
                self.buf = &self.buf[n..];
                Ok(())
            }
            LEN => self.bytes().map(drop),
            w => Err(format!("proto: illegal wireType {w}")),
        }
    }
}

/// Decodes the message `msg` into JSON. Zero scalars (which Go writes for
/// every non-pointer field) are left out, as Go's JSON encoder leaves out
/// empty `omitempty` fields, except where a zero is a value (`keep_zero`).
pub(super) fn decode_message(msg: usize, data: &[u8], depth: usize) -> Result<Value, String> {
    if depth > 64 {
        return Err("proto: message nesting too deep".into());
    }
    let m = &layouts().messages[msg];
    match m.special {
        Special::None => {}
        Special::SchemaOrArray | Special::SchemaOrBool | Special::SchemaOrStrings | Special::StringList => {
            return decode_schema_or(m.special, data, depth)
        }
        special => return decode_special(special, data),
    }
    let mut obj = Map::new();
    let mut r = Reader { buf: data };
    while !r.buf.is_empty() {
        let k = r.varint()?;
        let (number, wire) = ((k >> 3) as u32, (k & 7) as u32);
        let Some(f) = m.fields.iter().find(|f| f.number == number) else {
            r.skip(wire)?;
            continue;
        };
        let wrong = || format!("proto: wrong wireType = {wire} for field {}", f.json);
        let value = match f.kind {
            Kind::String => {
                if wire != LEN {
                    return Err(wrong());
                }
                let s = std::str::from_utf8(r.bytes()?).map_err(|_| format!("proto: invalid UTF-8 in {}", f.json))?;
                if s.is_empty() && !f.repeated && !f.keep_zero {
                    continue;
                }
                Value::String(s.to_string())
            }
            Kind::Int32 | Kind::Int64 | Kind::Bool => {
                if wire != VARINT {
                    return Err(wrong());
                }
                let n = r.varint()?;
                if n == 0 && !f.repeated && !f.keep_zero {
                    continue;
                }
                match f.kind {
                    Kind::Int32 => Value::from(n as i32),
                    Kind::Int64 => Value::from(n as i64),
                    _ => Value::Bool(n != 0),
                }
            }
            Kind::Double => {
                if wire != FIXED64 || r.buf.len() < 8 {
                    return Err(wrong());
                }
                let (head, rest) = r.buf.split_at(8);
                r.buf = rest;
                let mut b = [0u8; 8];
                b.copy_from_slice(head);
                // NaN and the infinities have no JSON form (Go's encoder
                // refuses them too): refused here, where the body is read.
                let n = serde_json::Number::from_f64(f64::from_le_bytes(b));
                Value::Number(n.ok_or_else(|| format!("proto: {} is not a finite number", f.json))?)
            }
            Kind::Bytes => {
                if wire != LEN {
                    return Err(wrong());
                }
                Value::String(base64::engine::general_purpose::STANDARD.encode(r.bytes()?))
            }
            Kind::Message(inner) => {
                if wire != LEN {
                    return Err(wrong());
                }
                let v = decode_message(inner, r.bytes()?, depth + 1)?;
                if v.is_null() {
                    continue;
                }
                v
            }
            Kind::Inline(inner) => {
                if wire != LEN {
                    return Err(wrong());
                }
                if let Value::Object(fields) = decode_message(inner, r.bytes()?, depth + 1)? {
                    obj.extend(fields);
                }
                continue;
            }
            Kind::Map(mv) => {
                if wire != LEN {
                    return Err(wrong());
                }
                let mut e = Reader { buf: r.bytes()? };
                let (mut k, mut v) = (String::new(), None);
                while !e.buf.is_empty() {
                    let key = e.varint()?;
                    match (key >> 3, (key & 7) as u32) {
                        (1, LEN) => {
                            k = String::from_utf8(e.bytes()?.to_vec()).map_err(|_| "proto: invalid UTF-8 map key")?
                        }
                        (2, LEN) => {
                            let b = e.bytes()?;
                            v = Some(match mv {
                                MapValue::String => Value::String(
                                    String::from_utf8(b.to_vec()).map_err(|_| "proto: invalid UTF-8 map value")?,
                                ),
                                MapValue::Bytes => Value::String(base64::engine::general_purpose::STANDARD.encode(b)),
                                MapValue::Message(inner) => decode_message(inner, b, depth + 1)?,
                            });
                        }
                        (_, w) => e.skip(w)?,
                    }
                }
                // An entry without its value holds the value type's zero,
                // as Go's generated code leaves it (a Quantity's is "0").
                let v = match (v, mv) {
                    (Some(v), _) => v,
                    (None, MapValue::Message(inner)) => decode_message(inner, &[], depth + 1)?,
                    (None, _) => Value::String(String::new()),
                };
                let entry = obj.entry(f.json.clone()).or_insert_with(|| Value::Object(Map::new()));
                if let Value::Object(map) = entry {
                    map.insert(k, v);
                }
                continue;
            }
        };
        if f.repeated {
            let entry = obj.entry(f.json.clone()).or_insert_with(|| Value::Array(Vec::new()));
            if let Value::Array(a) = entry {
                a.push(value);
            }
        } else {
            obj.insert(f.json.clone(), value);
        }
    }
    Ok(Value::Object(obj))
}

fn decode_schema_or(special: Special, data: &[u8], depth: usize) -> Result<Value, String> {
    let mut r = Reader { buf: data };
    let (mut allows, mut schema, mut list) = (false, None, Vec::new());
    while !r.buf.is_empty() {
        let k = r.varint()?;
        match (special, k >> 3, (k & 7) as u32) {
            (Special::SchemaOrBool, 1, VARINT) => allows = r.varint()? != 0,
            (Special::SchemaOrBool, 2, LEN) | (Special::SchemaOrArray | Special::SchemaOrStrings, 1, LEN) => {
                schema = Some(decode_message(schema_props(), r.bytes()?, depth + 1)?)
            }
            (Special::SchemaOrArray, 2, LEN) => list.push(decode_message(schema_props(), r.bytes()?, depth + 1)?),
            (Special::SchemaOrStrings, 2, LEN) | (Special::StringList, 1, LEN) => {
                list.push(Value::String(String::from_utf8_lossy(r.bytes()?).into_owned()))
            }
            (_, _, w) => r.skip(w)?,
        }
    }
    Ok(match (special, schema) {
        (_, Some(s)) => s,
        (Special::SchemaOrBool, None) => Value::Bool(allows),
        _ => Value::Array(list),
    })
}

/// 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z in Unix seconds.
pub(super) const FIRST_RFC3339_SECOND: i64 = -62_135_596_800;
pub(super) const LAST_RFC3339_SECOND: i64 = 253_402_300_799;

fn decode_special(special: Special, data: &[u8]) -> Result<Value, String> {
    let mut r = Reader { buf: data };
    let mut ints = [0i64; 4];
    let mut text: Option<&[u8]> = None;
    while !r.buf.is_empty() {
        let k = r.varint()?;
        let (number, wire) = ((k >> 3) as usize, (k & 7) as u32);
        match wire {
            VARINT if number < 4 => ints[number] = r.varint()? as i64,
            LEN if (number == 1 || number == 3) => text = Some(r.bytes()?),
            w => r.skip(w)?,
        }
    }
    let utf8 = |b: Option<&[u8]>| String::from_utf8(b.unwrap_or_default().to_vec()).map_err(|_| "proto: invalid UTF-8");
    Ok(match special {
        Special::Time | Special::MicroTime => {
            if data.is_empty() {
                return Ok(Value::Null);
            }
            // Nanoseconds out of range carry into the seconds, as Go's
            // time.Unix does; a time outside the years RFC 3339 writes
            // (0001–9999) is refused, since its JSON form could not be
            // read back (found by the `protobuf` fuzz target).
            let nanos = i64::from(ints[2] as i32);
            let secs = ints[1].saturating_add(nanos.div_euclid(1_000_000_000));
            if !(FIRST_RFC3339_SECOND..=LAST_RFC3339_SECOND).contains(&secs) {
                return Err(format!("proto: timestamp out of range: {secs} seconds"));
            }
            let t = crate::clock::SimTime(secs * 1000).rfc3339();
            if special == Special::MicroTime {
                let micros = nanos.rem_euclid(1_000_000_000) / 1000;
                Value::String(format!("{}.{micros:06}Z", t.trim_end_matches('Z')))
            } else {
                Value::String(t)
            }
        }
        Special::IntOrString => {
            if ints[1] == 1 {
                Value::String(utf8(text)?)
            } else {
                Value::from(ints[2] as i32)
            }
        }
        // A Quantity message without its string is Go's zero Quantity.
        Special::Quantity if text.is_none() => Value::String("0".into()),
        Special::Quantity => Value::String(utf8(text)?),
        Special::RawJson => match text {
            None => Value::Null,
            Some(b) => serde_json::from_slice(b).map_err(|e| format!("invalid JSON in raw field: {e}"))?,
        },
        Special::Duration => {
            let ms = ints[1] / 1_000_000;
            Value::String(go_duration(ms))
        }
        _ => Value::Null,
    })
}

/// A duration as Go prints it (`1h2m3s`, `1.5s`, `0s`).
fn go_duration(ms: i64) -> String {
    if ms == 0 {
        return "0s".into();
    }
    let (h, m, s, frac) = (ms / 3_600_000, (ms / 60_000) % 60, (ms / 1000) % 60, ms % 1000);
    let mut out = String::new();
    if h > 0 {
        out.push_str(&format!("{h}h"));
    }
    if h > 0 || m > 0 {
        out.push_str(&format!("{m}m"));
    }
    if frac > 0 {
        out.push_str(&format!("{s}.{}s", format!("{frac:03}").trim_end_matches('0')));
    } else {
        out.push_str(&format!("{s}s"));
    }
    out
}
