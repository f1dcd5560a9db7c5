//! Which rows of a long list to render: only those in view (plus a few
//! either side), so a list of 10,000 rows costs what a screenful costs.

/// The half-open range of rows to render for a viewport.
pub fn visible_rows(
    scroll_top: f64,
    viewport_height: f64,
    row_height: f64,
    count: usize,
    overscan: usize,
) -> (usize, usize) {
    if count == 0 || row_height <= 0.0 {
        return (0, 0);
    }
    let first = (scroll_top.max(0.0) / row_height).floor() as usize;
    let shown = (viewport_height.max(0.0) / row_height).ceil() as usize + 1;
    let start = first.saturating_sub(overscan).min(count);
    let end = (first + shown + overscan).min(count);
    (start, end)
}

/// Whether a following list stays at its newest row after a scroll event.
/// At the bottom it is (again); it lets go only when the reader scrolled up.
/// A scroll event can arrive after the rows grew and before the list moved
/// down to them (the renderer yields between drawing and its effects): the
/// view is then short of the bottom without anyone having scrolled, and
/// the list keeps following.
pub fn still_pinned(pinned: bool, at_bottom: bool, went_up: bool) -> bool {
    at_bottom || (pinned && !went_up)
}

#[cfg(test)]
mod tests {
    use super::{still_pinned, visible_rows};

    #[test]
    fn renders_a_screenful_wherever_the_list_is_scrolled() {
        assert_eq!(visible_rows(0.0, 200.0, 20.0, 10_000, 5), (0, 16));
        assert_eq!(visible_rows(20_000.0, 200.0, 20.0, 10_000, 5), (995, 1016));
        assert_eq!(visible_rows(199_900.0, 200.0, 20.0, 10_000, 5), (9990, 10_000));
        assert_eq!(visible_rows(1e9, 200.0, 20.0, 10, 5), (10, 10));
        assert_eq!(visible_rows(0.0, 200.0, 20.0, 0, 5), (0, 0));
    }

    #[test]
    fn only_a_scroll_up_lets_go_of_the_newest_row() {
        // (pinned before, at the bottom now, scrolled up) → pinned after
        assert!(still_pinned(true, true, false));
        assert!(still_pinned(true, false, false), "rows grew under a stale scroll event");
        assert!(!still_pinned(true, false, true), "the reader scrolled up");
        assert!(!still_pinned(false, false, false), "a scroll down short of the bottom");
        assert!(still_pinned(false, true, false), "back at the bottom");
    }
}
