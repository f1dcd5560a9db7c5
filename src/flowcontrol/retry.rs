//! How long a refused client is told to wait (`Retry-After`), kept per
//! priority level as upstream's dropped-requests tracker keeps it: it starts
//! at one second, doubles while refusals keep coming faster than it lets
//! them, and creeps back down by one second at a time when they ease.

use std::collections::VecDeque;

/// The longest wait ever suggested, in seconds.
pub const MAX_RETRY_AFTER: u32 = 32;

#[derive(Clone, Debug)]
pub struct RetryAfter {
    value: u32,
    /// The second of the newest refusal (None: none yet).
    last_refusal: Option<i64>,
    /// The second the value was last raised.
    last_raised: i64,
    /// Refusals per second, oldest first, at most `MAX_RETRY_AFTER` back.
    counts: VecDeque<(i64, u32)>,
}

impl Default for RetryAfter {
    fn default() -> RetryAfter {
        RetryAfter { value: 1, last_refusal: None, last_raised: i64::MIN / 2, counts: VecDeque::new() }
    }
}

impl RetryAfter {
    /// The value a refusal now would carry.
    pub fn value(&self) -> u32 {
        self.value
    }

    /// One refusal at `second` (seconds of the server's clock); the value
    /// is reconsidered at the first refusal of each new second, from the
    /// refusals of the last `value` seconds.
    pub fn refuse(&mut self, second: i64) -> u32 {
        if self.last_refusal != Some(second) {
            self.reconsider(second);
            self.last_refusal = Some(second);
        }
        match self.counts.back_mut() {
            Some((s, n)) if *s == second => *n += 1,
            _ => self.counts.push_back((second, 1)),
        }
        self.value
    }

    fn reconsider(&mut self, now: i64) {
        while self.counts.front().is_some_and(|(s, _)| *s <= now - i64::from(MAX_RETRY_AFTER)) {
            self.counts.pop_front();
        }
        let window = i64::from(self.value);
        let recent: u64 =
            self.counts.iter().filter(|(s, _)| *s > now - window - 1 && *s < now).map(|(_, n)| u64::from(*n)).sum();
        if now - self.last_raised >= window && recent >= 3 * u64::from(self.value) {
            self.value = (self.value * 2).min(MAX_RETRY_AFTER);
            self.last_raised = now;
        } else if recent < u64::from(self.value) && self.value > 1 {
            self.value -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_steady_flood_doubles_the_wait_up_to_the_cap() {
        let mut r = RetryAfter::default();
        let mut seen = Vec::new();
        for second in 0..60 {
            for _ in 0..100 {
                r.refuse(second);
            }
            seen.push(r.value());
        }
        assert_eq!(seen[0], 1);
        assert!(seen.windows(2).all(|w| w[1] == w[0] || w[1] == w[0] * 2), "{seen:?}");
        assert_eq!(*seen.last().unwrap(), MAX_RETRY_AFTER);
    }

    #[test]
    fn the_wait_creeps_down_when_refusals_ease() {
        let mut r = RetryAfter::default();
        for second in 0..40 {
            for _ in 0..100 {
                r.refuse(second);
            }
        }
        let high = r.value();
        // One refusal now and then: the value falls by one at a time.
        let mut last = high;
        for second in (100..1000).step_by(10) {
            let v = r.refuse(second);
            assert!(v == last || v + 1 == last, "{last} -> {v}");
            last = v;
        }
        assert_eq!(last, 1);
    }
}
