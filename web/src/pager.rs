//! The chunked list view: a list read page by page with limit and
//! continue, each page's metadata kept for display.

use kubesim::server::Request;
use serde_json::Value;

use crate::format::{build_query, decode_continue};
use crate::session::{body_json, Session, Source};

#[derive(Clone, Debug, PartialEq)]
pub struct Page {
    pub status: u16,
    pub names: Vec<String>,
    pub resource_version: String,
    pub remaining_item_count: Option<i64>,
    /// The token this page returned for the next one.
    pub continue_token: String,
    /// The token decoded, or why it could not be.
    pub decoded: String,
    /// A failure's message (e.g. the 410 of an expired token).
    pub error: String,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Pager {
    pub path: String,
    pub limit: u32,
    pub extra: String,
    pub pages: Vec<Page>,
}

impl Pager {
    pub fn new(path: &str, limit: u32, extra: &str) -> Pager {
        Pager {
            path: path.trim().to_string(),
            limit,
            extra: extra.trim().trim_start_matches('?').to_string(),
            pages: Vec::new(),
        }
    }

    /// Whether there is a next page to ask for.
    pub fn has_next(&self) -> bool {
        self.pages.last().is_some_and(|p| !p.continue_token.is_empty() && p.error.is_empty())
    }

    /// Reads the first page (starting over) or the next one.
    pub fn step(&mut self, s: &mut Session) {
        let token = match self.pages.last() {
            Some(p) if self.has_next() => p.continue_token.clone(),
            _ => {
                self.pages.clear();
                String::new()
            }
        };
        let mut q = build_query(&[("limit".into(), self.limit.to_string()), ("continue".into(), token)]);
        if !self.extra.is_empty() {
            q = format!("{}&{q}", self.extra);
        }
        let e = s.request(
            Source::Pager,
            Request::new("GET", &format!("{}?{q}", self.path)).with_header("Accept", "application/json"),
        );
        let v = body_json(&e.response);
        let str_at = |p: &str| v.pointer(p).and_then(Value::as_str).unwrap_or("").to_string();
        let continue_token = str_at("/metadata/continue");
        let decoded = if continue_token.is_empty() {
            String::new()
        } else {
            match decode_continue(&continue_token) {
                Ok(d) => serde_json::to_string(&d).unwrap_or_default(),
                Err(err) => err,
            }
        };
        let names = crate::format::item_names(&v);
        let error = if e.response.status == 200 {
            String::new()
        } else {
            format!("{} {}: {}", e.response.status, str_at("/reason"), str_at("/message"))
        };
        self.pages.push(Page {
            status: e.response.status,
            names,
            resource_version: str_at("/metadata/resourceVersion"),
            remaining_item_count: v.pointer("/metadata/remainingItemCount").and_then(Value::as_i64),
            continue_token,
            decoded,
            error,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_share_one_resource_version_and_count_down() {
        let mut s = Session::new(3);
        for i in 0..5 {
            let body = format!(r#"{{"metadata":{{"name":"c{i}"}}}}"#);
            s.request(Source::Console, Request::new("POST", "/api/v1/namespaces/default/configmaps").with_body(body));
        }
        let mut p = Pager::new("/api/v1/namespaces/default/configmaps", 2, "");
        p.step(&mut s);
        // A write between pages does not show: the snapshot is fixed.
        s.request(
            Source::Console,
            Request::new("POST", "/api/v1/namespaces/default/configmaps").with_body(r#"{"metadata":{"name":"zz"}}"#),
        );
        while p.has_next() {
            p.step(&mut s);
        }
        let counts: Vec<usize> = p.pages.iter().map(|p| p.names.len()).collect();
        assert_eq!(counts, vec![2, 2, 2]); // kube-root-ca.crt + c0..c4
        let rvs: Vec<&str> = p.pages.iter().map(|p| p.resource_version.as_str()).collect();
        assert!(rvs.iter().all(|r| *r == rvs[0]));
        let remaining: Vec<Option<i64>> = p.pages.iter().map(|p| p.remaining_item_count).collect();
        assert_eq!(remaining, vec![Some(4), Some(2), None]);
        assert!(p.pages[0].decoded.contains("\"rv\""), "{}", p.pages[0].decoded);
        // Stepping after the last page starts over.
        p.step(&mut s);
        assert_eq!(p.pages.len(), 1);
    }

    #[test]
    fn an_expired_token_shows_the_410() {
        let mut s = Session::new(3);
        let mut p = Pager::new("/api/v1/configmaps", 1, "");
        p.step(&mut s);
        s.request(
            Source::Console,
            Request::new("POST", "/api/v1/namespaces/default/configmaps").with_body(r#"{"metadata":{"name":"zz"}}"#),
        );
        s.compact_now();
        p.step(&mut s);
        let last = p.pages.last().unwrap();
        assert_eq!(last.status, 410, "{last:?}");
        assert!(last.error.contains("Expired"), "{}", last.error);
        assert!(!p.has_next());
    }
}
