//! Query parameters, decoded and validated as upstream's ListOptions and
//! DeleteOptions are.

use crate::api::{FieldError, Status};

#[derive(Clone, Debug, Default)]
pub struct Query {
    pairs: Vec<(String, String)>,
}

impl Query {
    pub fn parse(raw: &str) -> Query {
        Query { pairs: form_urlencoded::parse(raw.as_bytes()).into_owned().collect() }
    }

    /// The first value of a parameter (present with an empty value: `Some("")`).
    pub fn get(&self, name: &str) -> Option<&str> {
        self.pairs.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }

    /// Every value of a repeated parameter (`dryRun=All&dryRun=All`).
    pub fn all(&self, name: &str) -> Vec<&str> {
        self.pairs.iter().filter(|(k, _)| k == name).map(|(_, v)| v.as_str()).collect()
    }

    pub fn bool(&self, name: &str) -> Result<bool, Status> {
        match self.get(name) {
            None | Some("") => Ok(false),
            Some(v) => parse_go_bool(v)
                .ok_or_else(|| Status::bad_request(format!("strconv.ParseBool: parsing \"{v}\": invalid syntax"))),
        }
    }

    pub fn opt_bool(&self, name: &str) -> Result<Option<bool>, Status> {
        match self.get(name) {
            None => Ok(None),
            Some(_) => self.bool(name).map(Some),
        }
    }

    pub fn int(&self, name: &str) -> Result<Option<i64>, Status> {
        match self.get(name) {
            None | Some("") => Ok(None),
            Some(v) => v
                .parse::<i64>()
                .map(Some)
                .map_err(|_| Status::bad_request(format!("strconv.ParseInt: parsing \"{v}\": invalid syntax"))),
        }
    }
}

fn parse_go_bool(v: &str) -> Option<bool> {
    match v {
        "1" | "t" | "T" | "TRUE" | "true" | "True" => Some(true),
        "0" | "f" | "F" | "FALSE" | "false" | "False" => Some(false),
        _ => None,
    }
}

/// `ListOptions` as a list or watch request carries them.
#[derive(Clone, Debug, Default)]
pub struct ListOptions {
    pub watch: bool,
    pub resource_version: Option<String>,
    pub resource_version_match: Option<String>,
    pub limit: Option<i64>,
    pub continue_token: Option<String>,
    pub label_selector: String,
    pub field_selector: String,
    pub allow_watch_bookmarks: bool,
    pub send_initial_events: Option<bool>,
    pub timeout_seconds: Option<i64>,
}

impl ListOptions {
    pub fn from_query(q: &Query) -> Result<ListOptions, Status> {
        Ok(ListOptions {
            watch: q.bool("watch")?,
            resource_version: q.get("resourceVersion").map(str::to_string),
            resource_version_match: q.get("resourceVersionMatch").filter(|s| !s.is_empty()).map(str::to_string),
            limit: q.int("limit")?,
            continue_token: q.get("continue").filter(|s| !s.is_empty()).map(str::to_string),
            label_selector: q.get("labelSelector").unwrap_or("").to_string(),
            field_selector: q.get("fieldSelector").unwrap_or("").to_string(),
            allow_watch_bookmarks: q.bool("allowWatchBookmarks")?,
            send_initial_events: q.opt_bool("sendInitialEvents")?,
            timeout_seconds: q.int("timeoutSeconds")?,
        })
    }

    fn rv(&self) -> &str {
        self.resource_version.as_deref().unwrap_or("")
    }

    /// Upstream's `ValidateListOptions`: the "Invalid" cells of spec 000's
    /// tables, as 422 on `ListOptions.meta.k8s.io`.
    pub fn validate(&self) -> Result<(), Status> {
        let mut errs = Vec::new();
        let m = self.resource_version_match.as_deref();
        if self.watch {
            if self.send_initial_events.is_some() && m != Some("NotOlderThan") {
                errs.push(FieldError::forbidden(
                    "resourceVersionMatch",
                    "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan",
                ));
            }
            if let Some(m) = m {
                if self.send_initial_events.is_none() {
                    errs.push(FieldError::forbidden(
                        "resourceVersionMatch",
                        "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided",
                    ));
                }
                if m != "NotOlderThan" {
                    errs.push(FieldError::not_supported("resourceVersionMatch", m, &["NotOlderThan"]));
                }
                if self.continue_token.is_some() {
                    errs.push(FieldError::forbidden(
                        "resourceVersionMatch",
                        "resourceVersionMatch is forbidden when continue is provided",
                    ));
                }
            }
        } else {
            if let Some(m) = m {
                if self.rv().is_empty() {
                    errs.push(FieldError::forbidden(
                        "resourceVersionMatch",
                        "resourceVersionMatch is forbidden unless resourceVersion is provided",
                    ));
                }
                if self.continue_token.is_some() {
                    errs.push(FieldError::forbidden(
                        "resourceVersionMatch",
                        "resourceVersionMatch is forbidden when continue is provided",
                    ));
                }
                if m != "Exact" && m != "NotOlderThan" {
                    errs.push(FieldError::not_supported("resourceVersionMatch", m, &["Exact", "NotOlderThan", ""]));
                }
                if m == "Exact" && self.rv() == "0" {
                    errs.push(FieldError::forbidden(
                        "resourceVersionMatch",
                        "resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\"",
                    ));
                }
            }
            if self.send_initial_events.is_some() {
                errs.push(FieldError::forbidden("sendInitialEvents", "sendInitialEvents is forbidden for list"));
            }
        }
        if errs.is_empty() {
            Ok(())
        } else {
            Err(Status::invalid("meta.k8s.io", "ListOptions", "", &errs))
        }
    }
}
