//! The resourceVersion explorer's logic: which cell of API Concepts' tables
//! (get, list with resourceVersionMatch and paging, watch) a request falls
//! in, and the request itself.

/// The verbs the tables cover.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verb {
    Get,
    List,
    Watch,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Match {
    Unset,
    Exact,
    NotOlderThan,
}

/// The list table's paging column (the explorer sends `limit=2`; a
/// continue token comes from a first chunk).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Paging {
    None,
    Limit,
    Continue,
}

/// Which column: resourceVersion not set, "0", or another value.
pub fn column(rv: &str) -> usize {
    match rv.trim() {
        "" => 0,
        "0" => 1,
        _ => 2,
    }
}

pub const COLUMNS: [&str; 3] =
    ["resourceVersion not set", "resourceVersion=\"0\"", "resourceVersion=\"{value other than 0}\""];

pub const GET_ROW: [&str; 3] = ["Most Recent", "Any", "Not older than"];

pub const WATCH_ROW: [&str; 3] = ["Get State and Start at Most Recent", "Get State and Start at Any", "Start at Exact"];

/// The list table: (resourceVersionMatch, paging, the three cells).
pub const LIST_ROWS: [(Match, Paging, [&str; 3]); 7] = [
    (Match::Unset, Paging::None, ["Most Recent", "Any", "Not older than"]),
    (Match::Unset, Paging::Limit, ["Most Recent", "Any", "Exact"]),
    (
        Match::Unset,
        Paging::Continue,
        ["Continue Token, Exact", "Invalid, treated as Continue Token, Exact", "Invalid, HTTP 400 Bad Request"],
    ),
    (Match::Exact, Paging::None, ["Invalid", "Invalid", "Exact"]),
    (Match::Exact, Paging::Limit, ["Invalid", "Invalid", "Exact"]),
    (Match::NotOlderThan, Paging::None, ["Invalid", "Any", "Not older than"]),
    (Match::NotOlderThan, Paging::Limit, ["Invalid", "Any", "Not older than"]),
];

impl Match {
    pub fn param(self) -> &'static str {
        match self {
            Match::Unset => "",
            Match::Exact => "Exact",
            Match::NotOlderThan => "NotOlderThan",
        }
    }
}

/// The row (of the verb's table) and column a request falls in; None for
/// a combination the list table has no row for (a match with a continue
/// token).
pub fn cell(verb: Verb, m: Match, paging: Paging, rv: &str) -> Option<(usize, usize)> {
    let col = column(rv);
    match verb {
        Verb::Get | Verb::Watch => Some((0, col)),
        Verb::List => LIST_ROWS.iter().position(|(rm, rp, _)| *rm == m && *rp == paging).map(|row| (row, col)),
    }
}

/// What the table says for a request.
pub fn meaning(verb: Verb, m: Match, paging: Paging, rv: &str) -> Option<&'static str> {
    let (row, col) = cell(verb, m, paging, rv)?;
    Some(match verb {
        Verb::Get => GET_ROW[col],
        Verb::Watch => WATCH_ROW[col],
        Verb::List => LIST_ROWS[row].2[col],
    })
}

/// The request the explorer sends, against a collection and one of its
/// items (for get). Match and paging apply to lists only, as in the
/// tables.
pub fn target(verb: Verb, collection: &str, item: &str, m: Match, paging: Paging, rv: &str, token: &str) -> String {
    use crate::format::build_query;
    let mut q: Vec<(String, String)> = Vec::new();
    let rv = rv.trim();
    let path = match verb {
        Verb::Get => item,
        Verb::List | Verb::Watch => collection,
    };
    if verb == Verb::Watch {
        q.push(("watch".into(), "true".into()));
    }
    if !rv.is_empty() {
        q.push(("resourceVersion".into(), rv.into()));
    }
    if verb == Verb::List {
        if m != Match::Unset {
            q.push(("resourceVersionMatch".into(), m.param().into()));
        }
        match paging {
            Paging::None => {}
            Paging::Limit => q.push(("limit".into(), "2".into())),
            Paging::Continue => {
                q.push(("limit".into(), "2".into()));
                q.push(("continue".into(), token.into()));
            }
        }
    }
    let q = build_query(&q);
    if q.is_empty() {
        path.to_string()
    } else {
        format!("{path}?{q}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::{Session, Source};
    use kubesim::server::Request;

    #[test]
    fn every_request_falls_in_the_cell_the_tables_give() {
        assert_eq!(meaning(Verb::Get, Match::Unset, Paging::None, ""), Some("Most Recent"));
        assert_eq!(meaning(Verb::Get, Match::Exact, Paging::Limit, "0"), Some("Any"));
        assert_eq!(meaning(Verb::Watch, Match::Unset, Paging::None, "12"), Some("Start at Exact"));
        assert_eq!(meaning(Verb::List, Match::Unset, Paging::Limit, "12"), Some("Exact"));
        assert_eq!(meaning(Verb::List, Match::NotOlderThan, Paging::None, ""), Some("Invalid"));
        assert_eq!(meaning(Verb::List, Match::Exact, Paging::Continue, "1"), None);
        assert_eq!(
            target(Verb::List, "/c", "/c/x", Match::Exact, Paging::Limit, " 7 ", ""),
            "/c?resourceVersion=7&resourceVersionMatch=Exact&limit=2"
        );
        assert_eq!(target(Verb::Get, "/c", "/c/x", Match::Exact, Paging::Limit, "", ""), "/c/x");
        assert_eq!(
            target(Verb::Watch, "/c", "/c/x", Match::Exact, Paging::None, "0", ""),
            "/c?watch=true&resourceVersion=0"
        );
    }

    /// The server answers each "Invalid" list cell with an error and each
    /// other cell with a list, as the explorer shows.
    #[test]
    fn the_servers_answers_agree_with_the_list_table() {
        let mut s = Session::new(1);
        let head = s.server.revision().0.to_string();
        let c = "/api/v1/pods";
        let first = s.request(Source::Console, Request::new("GET", &format!("{c}?limit=2")));
        let token =
            crate::session::body_json(&first.response)["metadata"]["continue"].as_str().unwrap_or("").to_string();
        assert!(!token.is_empty());
        for (m, paging, cells) in LIST_ROWS {
            for (col, rv) in ["", "0", head.as_str()].into_iter().enumerate() {
                let t = target(Verb::List, c, "", m, paging, rv, &token);
                let status = s.request(Source::Console, Request::new("GET", &t)).response.status;
                let invalid = cells[col].starts_with("Invalid") && !cells[col].contains("treated as");
                assert_eq!(status != 200, invalid, "{t}: {status} for {:?}", cells[col]);
            }
        }
    }
}
