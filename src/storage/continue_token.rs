//! Continue tokens: base64 of a small versioned JSON document holding the
//! snapshot revision and the key to start from (relative to the listed
//! prefix). Opaque to clients; validated on the way back in.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use serde::{Deserialize, Serialize};

use crate::api::Revision;

const VERSION: &str = "meta.k8s.io/v1";

#[derive(Serialize, Deserialize)]
struct Token {
    v: String,
    rv: i64,
    start: String,
}

/// A decoded continue token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ContinueToken {
    pub revision: Revision,
    /// The first key (relative to the prefix) the next page may return.
    pub start: String,
}

/// Encodes a token (unpadded URL-safe base64, as upstream).
pub fn encode(revision: Revision, start: &str) -> String {
    encode_raw(revision.0 as i64, start)
}

/// The token a 410 offers: it continues at the same key but at the newest
/// revision (an inconsistent remainder), as upstream's `rv: -1` tokens do.
pub fn encode_inconsistent(start: &str) -> String {
    encode_raw(-1, start)
}

fn encode_raw(rv: i64, start: &str) -> String {
    let t = Token { v: VERSION.into(), rv, start: start.into() };
    URL_SAFE_NO_PAD.encode(serde_json::to_vec(&t).unwrap_or_default())
}

/// Whether `key` (with a leading `/`) is already in clean path form: no
/// empty, `.` or `..` segments, so it cannot climb out of the listed prefix.
fn is_clean(key: &str) -> bool {
    key == "/" || key[1..].split('/').all(|seg| !seg.is_empty() && seg != "." && seg != "..")
}

/// Decodes a token, with upstream's "continue key is not valid" messages.
/// A negative revision (an inconsistent token) decodes as revision 0,
/// meaning "the newest".
pub fn decode(token: &str) -> Result<ContinueToken, String> {
    let raw = URL_SAFE_NO_PAD.decode(token).map_err(|e| format!("continue key is not valid: {e}"))?;
    let t: Token = serde_json::from_slice(&raw).map_err(|e| format!("continue key is not valid: {e}"))?;
    if t.v != VERSION {
        return Err(format!("continue key is not valid: server does not recognize this encoded version {}", t.v));
    }
    if t.rv == 0 {
        return Err(format!("continue key is not valid: incorrect encoded start resourceVersion (version {VERSION})"));
    }
    if t.start.is_empty() {
        return Err(format!("continue key is not valid: encoded start key empty (version {VERSION})"));
    }
    let key = if t.start.starts_with('/') { t.start.clone() } else { format!("/{}", t.start) };
    if !is_clean(&key) {
        return Err(format!("continue key is not valid: {}", t.start));
    }
    let revision = if t.rv < 0 { Revision(0) } else { Revision(t.rv as u64) };
    Ok(ContinueToken { revision, start: key[1..].to_string() })
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::engine::general_purpose::STANDARD;

    #[test]
    fn round_trips() {
        let t = encode(Revision(10245), "default/pod-501\u{0}");
        assert_eq!(
            decode(&t).unwrap(),
            ContinueToken { revision: Revision(10245), start: "default/pod-501\u{0}".into() }
        );
    }

    #[test]
    fn rejects_garbage() {
        let enc = |s: &str| URL_SAFE_NO_PAD.encode(s);
        assert!(decode("!!!").is_err());
        assert!(decode(&STANDARD.encode(b"{}x")).is_err(), "padded standard base64 is not a token");
        assert!(decode(&enc(r#"{"v":"x","rv":1,"start":"a"}"#)).unwrap_err().contains("does not recognize"));
        assert!(decode(&enc(r#"{"v":"meta.k8s.io/v1","rv":0,"start":"a"}"#)).is_err());
        assert_eq!(
            decode(&enc(r#"{"v":"meta.k8s.io/v1","rv":3,"start":"../x"}"#)).unwrap_err(),
            "continue key is not valid: ../x"
        );
        assert!(decode(&enc(r#"{"v":"meta.k8s.io/v1","rv":3,"start":"a//b"}"#)).is_err());
        assert_eq!(decode(&enc(r#"{"v":"meta.k8s.io/v1","rv":-1,"start":"a"}"#)).unwrap().revision, Revision(0));
    }
}
