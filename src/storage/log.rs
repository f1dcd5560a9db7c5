//! The store's writes as a byte log, as etcd's write-ahead log keeps them:
//! enough to rebuild the store exactly (every retained version, every
//! event a watch may still be served, the time of each revision) without
//! serving a request again. A browser session saves it beside its journal
//! and reloads from it (`Server::restore`).
//!
//! A log is a run of records, each one write:
//!
//! ```text
//! record  = varint(revision) kind varint(time) bytes(key) [object]
//! kind    = 0 created | 1 updated | 2 deleted (no object follows)
//! object  = bytes(json) varint(#labels) (bytes bytes)* varint(#fields) (bytes bytes)*
//! bytes   = varint(length) raw
//! ```
//!
//! Times are simulated milliseconds, zigzag-encoded. The format is small
//! enough to write by hand; a serde format crate would add to the page's
//! bundle for no gain here.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::{EventKind, ObjectAttrs, StoredObject};
use crate::api::Revision;
use crate::clock::SimTime;

/// One write of the log.
#[derive(Clone, Debug)]
pub struct LogRecord {
    pub revision: Revision,
    pub kind: EventKind,
    pub key: Arc<str>,
    pub time: SimTime,
    /// The version written (None for a delete).
    pub object: Option<Arc<StoredObject>>,
}

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn put_bytes(out: &mut Vec<u8>, b: &[u8]) {
    put_varint(out, b.len() as u64);
    out.extend_from_slice(b);
}

/// Appends one record.
pub fn encode(out: &mut Vec<u8>, r: &LogRecord) {
    put_varint(out, r.revision.0);
    out.push(match r.kind {
        EventKind::Created => 0,
        EventKind::Updated => 1,
        EventKind::Deleted => 2,
    });
    put_varint(out, ((r.time.0 << 1) ^ (r.time.0 >> 63)) as u64);
    put_bytes(out, r.key.as_bytes());
    if r.kind == EventKind::Deleted {
        return;
    }
    let Some(obj) = &r.object else { return };
    put_bytes(out, &obj.json);
    put_varint(out, obj.attrs.labels.len() as u64);
    for (k, v) in obj.attrs.labels.iter() {
        put_bytes(out, k.as_bytes());
        put_bytes(out, v.as_bytes());
    }
    put_varint(out, obj.attrs.fields.len() as u64);
    for (k, v) in obj.attrs.fields.iter() {
        put_bytes(out, k.as_bytes());
        put_bytes(out, v.as_bytes());
    }
}

/// Reads records one by one; field names are shared among the objects
/// read, as the kinds share them when objects are written.
pub struct Reader<'a> {
    data: &'a [u8],
    at: usize,
    names: BTreeMap<Box<str>, Arc<str>>,
}

impl<'a> Reader<'a> {
    pub fn new(data: &'a [u8]) -> Reader<'a> {
        Reader { data, at: 0, names: BTreeMap::new() }
    }

    fn varint(&mut self) -> Result<u64, String> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = *self.data.get(self.at).ok_or("the log ends inside a number")?;
            self.at += 1;
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err("the log holds a number longer than 64 bits".into())
    }

    fn bytes(&mut self) -> Result<&'a [u8], String> {
        let len = usize::try_from(self.varint()?).map_err(|_| "a length too large")?;
        let end = self.at.checked_add(len).filter(|e| *e <= self.data.len()).ok_or("the log ends inside a record")?;
        let b = &self.data[self.at..end];
        self.at = end;
        Ok(b)
    }

    fn text(&mut self) -> Result<&'a str, String> {
        std::str::from_utf8(self.bytes()?).map_err(|_| "the log holds text that is not UTF-8".to_string())
    }

    fn count(&mut self) -> Result<usize, String> {
        // Each entry takes at least two bytes: a larger count is corrupt.
        let n = self.varint()?;
        usize::try_from(n).ok().filter(|n| *n <= self.data.len() - self.at).ok_or_else(|| "a count too large".into())
    }

    fn object(&mut self) -> Result<StoredObject, String> {
        let json = self.bytes()?.to_vec().into_boxed_slice();
        let mut labels = Vec::new();
        for _ in 0..self.count()? {
            labels.push((self.text()?.to_string(), self.text()?.to_string()));
        }
        let mut fields = Vec::new();
        for _ in 0..self.count()? {
            let name = self.text()?;
            let name = match self.names.get(name) {
                Some(n) => n.clone(),
                None => {
                    let n: Arc<str> = Arc::from(name);
                    self.names.insert(name.into(), n.clone());
                    n
                }
            };
            fields.push((name, self.text()?.to_string()));
        }
        Ok(StoredObject::new(json, Arc::new(ObjectAttrs::new(labels, fields))))
    }

    /// The next record, None at the end.
    pub fn next_record(&mut self) -> Result<Option<LogRecord>, String> {
        if self.at == self.data.len() {
            return Ok(None);
        }
        let revision = Revision(self.varint()?);
        let kind = match self.data.get(self.at) {
            Some(0) => EventKind::Created,
            Some(1) => EventKind::Updated,
            Some(2) => EventKind::Deleted,
            _ => return Err(format!("the log's record at revision {} has no known kind", revision.0)),
        };
        self.at += 1;
        let t = self.varint()?;
        let time = SimTime(((t >> 1) as i64) ^ -((t & 1) as i64));
        let key: Arc<str> = Arc::from(self.text()?);
        let object = if kind == EventKind::Deleted { None } else { Some(Arc::new(self.object()?)) };
        Ok(Some(LogRecord { revision, kind, key, time, object }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_read_back_as_written_and_a_cut_log_is_refused() {
        let attrs =
            ObjectAttrs::new(vec![("app".into(), "web".into())], vec![(Arc::from("metadata.name"), "a".into())]);
        let obj = Arc::new(StoredObject::new(b"{\"a\":1}".to_vec().into_boxed_slice(), Arc::new(attrs)));
        let records = [
            LogRecord {
                revision: Revision(7),
                kind: EventKind::Created,
                key: "/a".into(),
                time: SimTime(-5),
                object: Some(obj.clone()),
            },
            LogRecord {
                revision: Revision(300),
                kind: EventKind::Deleted,
                key: "/a".into(),
                time: SimTime(1 << 40),
                object: None,
            },
        ];
        let mut out = Vec::new();
        for r in &records {
            encode(&mut out, r);
        }
        let mut reader = Reader::new(&out);
        let a = reader.next_record().unwrap().unwrap();
        assert_eq!((a.revision, a.kind, &*a.key, a.time), (Revision(7), EventKind::Created, "/a", SimTime(-5)));
        assert_eq!(a.object.as_deref(), Some(&*obj));
        let b = reader.next_record().unwrap().unwrap();
        assert_eq!(
            (b.revision, b.kind, b.time, b.object.is_none()),
            (Revision(300), EventKind::Deleted, SimTime(1 << 40), true)
        );
        assert!(reader.next_record().unwrap().is_none());
        for cut in 1..out.len() {
            let mut r = Reader::new(&out[..cut]);
            let mut failed = false;
            for _ in 0..3 {
                match r.next_record() {
                    Ok(Some(_)) => {}
                    Ok(None) => break,
                    Err(_) => {
                        failed = true;
                        break;
                    }
                }
            }
            // Cut between the two records, the first reads whole.
            assert!(failed || r.at == cut, "cut at {cut}");
        }
    }
}
