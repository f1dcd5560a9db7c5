//! resourceVersions, in one place: parsing one, deciding where a get, a
//! list or a watch reads (the tables of spec 000), and every answer that
//! decision can give — 400 for garbage, 410 for history that is gone, 504
//! for a revision the server has not reached.

use crate::api::{Revision, Status, StatusCause};

/// A `resourceVersion` parameter as a request carries it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum ResourceVersion {
    /// Absent or empty: the most recent state (a consistent read).
    #[default]
    Unset,
    /// `"0"`: any state the server has.
    Any,
    /// A revision the client saw.
    At(Revision),
    /// Not a number; kept so the error comes where upstream gives it
    /// (after the options are validated).
    Malformed(String),
}

impl ResourceVersion {
    pub fn parse(s: Option<&str>) -> ResourceVersion {
        match s.unwrap_or("") {
            "" => ResourceVersion::Unset,
            "0" => ResourceVersion::Any,
            s => match s.parse::<u64>() {
                Ok(n) => ResourceVersion::At(Revision(n)),
                Err(_) => ResourceVersion::Malformed(s.to_string()),
            },
        }
    }

    pub fn is_unset(&self) -> bool {
        *self == ResourceVersion::Unset
    }

    /// The revision named, or upstream's 400 for one that is not a number.
    /// Unset and `"0"` name none.
    pub fn revision(&self) -> Result<Option<Revision>, Status> {
        match self {
            ResourceVersion::Unset | ResourceVersion::Any => Ok(None),
            ResourceVersion::At(r) => Ok(Some(*r)),
            ResourceVersion::Malformed(s) => Err(malformed(s)),
        }
    }
}

/// Parses a resourceVersion that must be a number (a continue token's, an
/// object's), with upstream's 400 for garbage.
pub fn parse(rv: &str) -> Result<Revision, Status> {
    rv.parse::<u64>().map(Revision).map_err(|_| malformed(rv))
}

fn malformed(rv: &str) -> Status {
    Status::bad_request(format!(
        "invalid resource version: resourceVersion: Invalid value: \"{rv}\": strconv.ParseUint: parsing \"{rv}\": invalid syntax"
    ))
}

/// The 410 for a resourceVersion older than the retained history.
pub fn too_old(requested: Revision, oldest: Revision) -> Status {
    Status::expired(format!("too old resource version: {} ({})", requested.0, oldest.0))
}

/// The 410 for a list whose snapshot was compacted (etcd's answer to an
/// exact read; a watch's 410 words it as the watch cache does).
pub fn list_too_old() -> Status {
    Status::expired("The resourceVersion for the provided list is too old.")
}

/// The 504 for a resourceVersion newer than the newest revision.
pub fn too_large(requested: Revision, current: Revision) -> Status {
    let mut s = Status::failure(
        504,
        "Timeout",
        format!("Timeout: Too large resource version: {}, current: {}", requested.0, current.0),
    );
    s.details = Some(crate::api::status::StatusDetails {
        causes: vec![StatusCause {
            reason: "ResourceVersionTooLarge".into(),
            message: "Too large resource version".into(),
            field: String::new(),
        }],
        retry_after_seconds: 1,
        ..Default::default()
    });
    s
}

/// The 410 for a continue token whose snapshot was compacted: it offers a
/// token that continues inconsistently from the same key.
pub fn continue_expired(inconsistent_token: String) -> Status {
    let mut s = Status::expired("The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.");
    s.metadata.continue_token = inconsistent_token;
    s
}

/// The 410 that closes a watch which fell further behind than its buffer.
pub fn watch_fell_behind(cursor: Revision, head: Revision, limit: usize) -> Status {
    Status::expired(format!(
        "too old resource version: {} ({}): the watch fell more than {limit} revisions behind and was closed; resume from resourceVersion {}",
        cursor.0, head.0, cursor.0
    ))
}

/// A read must not ask for a revision the server has not reached.
pub fn not_newer_than_head(want: Revision, head: Revision) -> Result<(), Status> {
    if want > head {
        Err(too_large(want, head))
    } else {
        Ok(())
    }
}

/// Where a get reads: unset is the most recent state, `"0"` any, another
/// value "not older than" it — all served from the head here, after the
/// value is checked.
pub fn get_at(rv: &ResourceVersion, head: Revision) -> Result<Revision, Status> {
    if let Some(want) = rv.revision()? {
        not_newer_than_head(want, head)?;
    }
    Ok(head)
}

/// Where a list without a continue token reads, per the list table of
/// spec 000 (`paged`: a `limit` was given).
pub fn list_at(
    rv: &ResourceVersion,
    rv_match: Option<&super::options::ResourceVersionMatch>,
    paged: bool,
    head: Revision,
) -> Result<Revision, Status> {
    use super::options::ResourceVersionMatch as M;
    let not_older_than = |want: Revision| not_newer_than_head(want, head).map(|()| head);
    match (rv_match, rv) {
        (Some(M::Exact), rv) => Ok(rv.revision()?.unwrap_or(Revision::ZERO)),
        (Some(_), ResourceVersion::Any) => Ok(head),
        (Some(_), rv) => not_older_than(rv.revision()?.unwrap_or(Revision::ZERO)),
        (None, ResourceVersion::Unset | ResourceVersion::Any) => Ok(head),
        (None, rv) if paged => Ok(rv.revision()?.unwrap_or(Revision::ZERO)),
        (None, rv) => not_older_than(rv.revision()?.unwrap_or(Revision::ZERO)),
    }
}

/// How a watch starts, per the watch table of spec 000 and streaming lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WatchStart {
    /// Synthetic ADDED events for what exists at the head, then changes.
    InitialEvents,
    /// Changes after the head only.
    FromHead,
    /// Changes after this revision (from history).
    After(Revision),
}

pub fn watch_start(
    rv: &ResourceVersion,
    send_initial_events: Option<bool>,
    head: Revision,
) -> Result<WatchStart, Status> {
    let unset_or_any = matches!(rv, ResourceVersion::Unset | ResourceVersion::Any);
    match send_initial_events {
        Some(true) if unset_or_any => Ok(WatchStart::InitialEvents),
        Some(true) => {
            not_newer_than_head(rv.revision()?.unwrap_or(Revision::ZERO), head)?;
            Ok(WatchStart::InitialEvents)
        }
        Some(false) if unset_or_any => Ok(WatchStart::FromHead),
        None if unset_or_any => Ok(WatchStart::InitialEvents),
        _ => Ok(WatchStart::After(rv.revision()?.unwrap_or(Revision::ZERO))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::options::ResourceVersionMatch as M;

    #[test]
    fn parameters_parse_into_their_cases() {
        assert_eq!(ResourceVersion::parse(None), ResourceVersion::Unset);
        assert_eq!(ResourceVersion::parse(Some("")), ResourceVersion::Unset);
        assert_eq!(ResourceVersion::parse(Some("0")), ResourceVersion::Any);
        assert_eq!(ResourceVersion::parse(Some("42")), ResourceVersion::At(Revision(42)));
        assert_eq!(ResourceVersion::parse(Some("x")), ResourceVersion::Malformed("x".into()));
        assert_eq!(ResourceVersion::parse(Some("x")).revision().unwrap_err().code, 400);
    }

    #[test]
    fn the_list_table() {
        let head = Revision(10);
        let at =
            |rv: &str, m: Option<M>, paged: bool| list_at(&ResourceVersion::parse(Some(rv)), m.as_ref(), paged, head);
        assert_eq!(at("", None, false).unwrap(), head);
        assert_eq!(at("0", None, true).unwrap(), head);
        assert_eq!(
            at("5", None, true).unwrap(),
            Revision(5),
            "a paged list with a resourceVersion reads exactly there"
        );
        assert_eq!(at("5", None, false).unwrap(), head, "unpaged: not older than");
        assert_eq!(at("11", None, false).unwrap_err().code, 504);
        assert_eq!(at("5", Some(M::Exact), false).unwrap(), Revision(5));
        assert_eq!(at("5", Some(M::NotOlderThan), false).unwrap(), head);
        assert_eq!(at("0", Some(M::NotOlderThan), false).unwrap(), head);
        assert_eq!(at("x", None, false).unwrap_err().code, 400);
    }

    #[test]
    fn the_watch_table() {
        let head = Revision(10);
        let start = |rv: &str, sie| watch_start(&ResourceVersion::parse(Some(rv)), sie, head);
        assert_eq!(start("", None).unwrap(), WatchStart::InitialEvents);
        assert_eq!(start("0", None).unwrap(), WatchStart::InitialEvents);
        assert_eq!(start("4", None).unwrap(), WatchStart::After(Revision(4)));
        assert_eq!(start("", Some(false)).unwrap(), WatchStart::FromHead);
        assert_eq!(start("4", Some(true)).unwrap(), WatchStart::InitialEvents);
        assert_eq!(start("11", Some(true)).unwrap_err().code, 504);
        assert_eq!(start("4", Some(false)).unwrap(), WatchStart::After(Revision(4)));
    }
}
