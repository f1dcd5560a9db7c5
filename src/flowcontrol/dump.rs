//! `/debug/api_priority_and_fairness/dump_*`: the dispatcher's state as
//! upstream's debug endpoints print it — comma-and-tab separated columns
//! aligned as Go's tabwriter aligns them (cells at least 8 wide, one space
//! of padding), levels in name order (upstream's queue and request dumps
//! follow a Go map's random order; ours stay sorted).

use super::{Details, Dispatcher, Width};

/// Aligns rows as Go's `tabwriter.NewWriter(w, 8, 0, 1, ' ', 0)` does:
/// every cell but a line's last is padded to its column's widest cell plus
/// one, and to at least 8.
fn align(rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = Vec::new();
    for r in rows {
        for (i, cell) in r.iter().enumerate().take(r.len().saturating_sub(1)) {
            let w = (cell.chars().count() + 1).max(8);
            if widths.len() <= i {
                widths.push(w);
            } else {
                widths[i] = widths[i].max(w);
            }
        }
    }
    let mut out = String::new();
    for r in rows {
        for (i, cell) in r.iter().enumerate() {
            out.push_str(cell);
            if i + 1 < r.len() {
                out.extend(std::iter::repeat_n(' ', widths[i] - cell.chars().count()));
            }
        }
        out.push('\n');
    }
    out
}

/// A row: cells joined as upstream joins them (`,` then a tab), the comma
/// staying with its cell.
fn row(cells: &[String]) -> Vec<String> {
    let n = cells.len();
    cells.iter().enumerate().map(|(i, c)| if i + 1 < n { format!("{c},") } else { c.clone() }).collect()
}

fn strings(cells: &[&str]) -> Vec<String> {
    cells.iter().map(|c| c.to_string()).collect()
}

/// Seat-seconds as upstream prints them: eight decimals and `ss`.
pub fn seat_seconds(v: f64) -> String {
    let scaled = (v.max(0.0) * 1e8).round() as u64;
    format!("{}.{:08}ss", scaled / 100_000_000, scaled % 100_000_000)
}

/// A duration as Go prints one (`0s`, `5ms`, `1.5s`, `2m3s`).
pub fn go_duration(ns: u64) -> String {
    fn frac(v: u64, unit: u64, suffix: &str) -> String {
        let whole = v / unit;
        let rest = v % unit;
        if rest == 0 {
            return format!("{whole}{suffix}");
        }
        let digits = unit.ilog10() as usize;
        let f = format!("{rest:0digits$}");
        format!("{whole}.{}{suffix}", f.trim_end_matches('0'))
    }
    match ns {
        0 => "0s".into(),
        n if n < 1_000 => format!("{n}ns"),
        n if n < 1_000_000 => frac(n, 1_000, "µs"),
        n if n < 1_000_000_000 => frac(n, 1_000_000, "ms"),
        n => {
            let secs = n / 1_000_000_000;
            let (h, m) = (secs / 3600, (secs % 3600) / 60);
            let s = frac(n % 60_000_000_000, 1_000_000_000, "s");
            match (h, m) {
                (0, 0) => s,
                (0, m) => format!("{m}m{s}"),
                (h, m) => format!("{h}h{m}m{s}"),
            }
        }
    }
}

/// A time as Go's RFC3339Nano prints it in UTC (trailing zeros of the
/// fraction dropped); `None` is Go's zero time.
fn rfc3339_nano(wall_ns: Option<i64>) -> String {
    let Some(ns) = wall_ns else { return "0001-01-01T00:00:00Z".into() };
    let secs = ns.div_euclid(1_000_000_000);
    let rest = ns.rem_euclid(1_000_000_000);
    let base = crate::clock::SimTime(secs * 1000).rfc3339();
    if rest == 0 {
        return base;
    }
    let f = format!("{rest:09}");
    format!("{}.{}Z", base.trim_end_matches('Z'), f.trim_end_matches('0'))
}

impl Dispatcher {
    /// `dump_priority_levels`.
    pub fn dump_priority_levels(&self) -> String {
        let mut rows = vec![row(&strings(&[
            "PriorityLevelName",
            "ActiveQueues",
            "IsIdle",
            "IsQuiescing",
            "WaitingRequests",
            "ExecutingRequests",
            "DispatchedRequests",
            "RejectedRequests",
            "TimedoutRequests",
            "CancelledRequests",
        ]))];
        for (name, l) in &self.levels {
            let active = l.set.queues.iter().filter(|q| !q.waiting.is_empty()).count();
            rows.push(row(&[
                name.clone(),
                active.to_string(),
                l.idle().to_string(),
                (!l.configured).to_string(),
                l.set.waiting().to_string(),
                l.set.executing.len().to_string(),
                l.dispatched.to_string(),
                l.rejected.to_string(),
                // (Upstream's time-out counter is never raised: its
                // time-outs show as rejected and cancelled.)
                "0".to_string(),
                l.cancelled.to_string(),
            ]));
        }
        align(&rows)
    }

    /// `dump_queues`.
    pub fn dump_queues(&self) -> String {
        let mut rows = vec![row(&strings(&[
            "PriorityLevelName",
            "Index",
            "PendingRequests",
            "ExecutingRequests",
            "SeatsInUse",
            "NextDispatchR",
            "InitialSeatsSum",
            "MaxSeatsSum",
            "TotalWorkSum",
        ]))];
        for (name, l) in &self.levels {
            for (i, q) in l.set.queues.iter().enumerate() {
                let initial: u32 = q.waiting.iter().map(|w| w.width.initial).sum();
                let max: u32 = q.waiting.iter().map(|w| w.width.max_seats()).sum();
                rows.push(row(&[
                    name.clone(),
                    i.to_string(),
                    q.waiting.len().to_string(),
                    q.executing.to_string(),
                    q.seats_in_use.to_string(),
                    seat_seconds(q.next_r),
                    initial.to_string(),
                    max.to_string(),
                    seat_seconds(q.waiting_work()),
                ]));
            }
        }
        align(&rows)
    }

    /// `dump_requests` (with `details`: who asked for what). `wall` turns
    /// the dispatcher's clock into wall-clock nanoseconds.
    pub fn dump_requests(&self, details: bool, wall: impl Fn(u64) -> i64) -> String {
        let mut header = strings(&[
            "PriorityLevelName",
            "FlowSchemaName",
            "QueueIndex",
            "RequestIndexInQueue",
            "FlowDistingsher",
            "ArriveTime",
            "InitialSeats",
            "FinalSeats",
            "AdditionalLatency",
            "StartTime",
        ]);
        if details {
            header.extend(strings(&[
                "UserName",
                "Verb",
                "APIPath",
                "Namespace",
                "Name",
                "APIVersion",
                "Resource",
                "SubResource",
            ]));
        }
        let mut rows = vec![row(&header)];
        let line = |level: &str,
                    schema: &str,
                    queue: i64,
                    index: i64,
                    flow: &str,
                    arrived: u64,
                    width: &Width,
                    started: Option<u64>,
                    d: &Details| {
            let mut cells = vec![
                level.to_string(),
                schema.to_string(),
                queue.to_string(),
                index.to_string(),
                flow.to_string(),
                rfc3339_nano(Some(wall(arrived))),
                width.initial.to_string(),
                width.final_seats.to_string(),
                go_duration(width.additional_latency),
                rfc3339_nano(started.map(&wall)),
            ];
            if details {
                let a = &d.request;
                cells.extend([
                    d.user.to_string(),
                    a.verb.clone(),
                    a.path.clone(),
                    a.namespace.clone(),
                    a.name.clone(),
                    d.api_version(),
                    a.resource.clone(),
                    a.subresource.clone(),
                ]);
            }
            row(&cells)
        };
        for (name, l) in &self.levels {
            let executing = l.set.in_order();
            for (qi, q) in l.set.queues.iter().enumerate() {
                for (ri, w) in q.waiting.iter().enumerate() {
                    rows.push(line(
                        name,
                        &w.flow_schema,
                        qi as i64,
                        ri as i64,
                        &w.flow,
                        w.arrived,
                        &w.width,
                        None,
                        &w.details,
                    ));
                }
                for (_, e) in executing.iter().filter(|(_, e)| e.queue == Some(qi)) {
                    rows.push(line(
                        name,
                        &e.flow_schema,
                        qi as i64,
                        -1,
                        &e.flow,
                        e.arrived,
                        &e.width,
                        Some(e.started),
                        &e.details,
                    ));
                }
            }
            for (_, e) in executing.iter().filter(|(_, e)| e.queue.is_none()) {
                rows.push(line(
                    name,
                    &e.flow_schema,
                    -1,
                    -1,
                    &e.flow,
                    e.arrived,
                    &e.width,
                    Some(e.started),
                    &e.details,
                ));
            }
        }
        align(&rows)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_align_as_gos_tabwriter_does() {
        let rows = vec![row(&strings(&["Name", "N"])), row(&strings(&["a-much-longer-name", "1"]))];
        assert_eq!(align(&rows), "Name,               N\na-much-longer-name, 1\n");
        // Short cells still take eight.
        assert_eq!(align(&[row(&strings(&["a", "b", "c"]))]), "a,      b,      c\n");
    }

    #[test]
    fn figures_print_as_go_prints_them() {
        assert_eq!(seat_seconds(0.0), "0.00000000ss");
        assert_eq!(seat_seconds(0.003), "0.00300000ss");
        assert_eq!(seat_seconds(12.5), "12.50000000ss");
        assert_eq!(go_duration(0), "0s");
        assert_eq!(go_duration(5_000_000), "5ms");
        assert_eq!(go_duration(5_500_000), "5.5ms");
        assert_eq!(go_duration(1_500_000_000), "1.5s");
        assert_eq!(go_duration(123_000_000_000), "2m3s");
        assert_eq!(rfc3339_nano(None), "0001-01-01T00:00:00Z");
        assert_eq!(rfc3339_nano(Some(1_700_000_000_120_000_000)), "2023-11-14T22:13:20.12Z");
    }
}
