//! Continue tokens: base64 of a small versioned JSON document holding the
//! snapshot revision and the key to start from (relative to the listed
//! prefix). Opaque to clients; validated on the way back in.

use base64::engine::general_purpose::STANDARD;
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

/// Encodes a token. `revision` is the snapshot the list was served at.
pub fn encode(revision: Revision, start: &str) -> String {
    let t = Token { v: VERSION.into(), rv: revision.0 as i64, start: start.into() };
    STANDARD.encode(serde_json::to_vec(&t).unwrap_or_default())
}

/// Decodes a token, with upstream's "continue key is not valid" messages.
pub fn decode(token: &str) -> Result<ContinueToken, String> {
    let raw = base64::engine::general_purpose::URL_SAFE
        .decode(token)
        .or_else(|_| STANDARD.decode(token))
        .map_err(|e| format!("continue key is not valid: {e}"))?;
    let t: Token = serde_json::from_slice(&raw).map_err(|e| format!("continue key is not valid: {e}"))?;
    if t.v != VERSION {
        return Err(format!("continue key is not valid: server does not recognize this encoded version {:?}", t.v));
    }
    if t.rv == 0 || t.rv < -1 {
        return Err(format!("continue key is not valid: incorrect encoded start resourceVersion (version {VERSION})"));
    }
    if t.start.is_empty() {
        return Err("continue key is not valid: encoded start key empty".into());
    }
    // The start key is relative to the listed prefix: it may not climb out.
    let clean = t.start.trim_start_matches('/');
    if clean.split('/').any(|seg| seg == ".." || seg == ".") {
        return Err("continue key is not valid".into());
    }
    let revision = if t.rv < 0 { Revision(0) } else { Revision(t.rv as u64) };
    Ok(ContinueToken { revision, start: t.start })
}

/// The token a 410 offers: it continues at the same key but at the newest
/// revision (an inconsistent remainder), as upstream's `rv: -1` tokens do.
pub fn encode_inconsistent(start: &str) -> String {
    let t = Token { v: VERSION.into(), rv: -1, start: start.into() };
    STANDARD.encode(serde_json::to_vec(&t).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        let t = encode(Revision(10245), "default/pod-501\u{0}");
        assert_eq!(decode(&t).unwrap(), ContinueToken { revision: Revision(10245), start: "default/pod-501\u{0}".into() });
    }

    #[test]
    fn rejects_garbage() {
        assert!(decode("!!!").is_err());
        assert!(decode(&STANDARD.encode(b"{\"v\":\"x\",\"rv\":1,\"start\":\"a\"}")).unwrap_err().contains("does not recognize"));
        assert!(decode(&STANDARD.encode(b"{\"v\":\"meta.k8s.io/v1\",\"rv\":0,\"start\":\"a\"}")).is_err());
        assert!(decode(&STANDARD.encode(b"{\"v\":\"meta.k8s.io/v1\",\"rv\":3,\"start\":\"../x\"}")).is_err());
    }
}
