//! Borrowing between priority levels, as upstream reconsiders it every ten
//! seconds: each level's seat demand over the period (mean, spread, high
//! watermark) gives a smoothed target; the server's seats are shared out in
//! proportion to the targets, each level held between its lower limit
//! (nominal minus lendable) and its upper limit (nominal plus borrowable).

/// A level's seat demand, integrated over time between reconsiderations.
#[derive(Clone, Debug, Default)]
pub struct Demand {
    /// Seats demanded now (executing plus waiting).
    current: f64,
    /// Since `start`: ∫demand dt, ∫demand² dt, and the highest demand.
    start: u64,
    last: u64,
    integral: f64,
    square_integral: f64,
    high: f64,
    /// The smoothed envelope carried from period to period.
    pub smoothed: f64,
    /// The last period's mean and high watermark.
    pub average: f64,
    pub high_watermark: f64,
}

/// How much of the last smoothed value survives a period (upstream's 0.977).
const SMOOTHING: f64 = 0.977;

impl Demand {
    fn catch_up(&mut self, now: u64) {
        if now > self.last {
            let dt = (now - self.last) as f64;
            self.integral += self.current * dt;
            self.square_integral += self.current * self.current * dt;
            self.last = now;
        }
    }

    /// The demand changed at `now`.
    pub fn set(&mut self, now: u64, demand: f64) {
        self.catch_up(now);
        self.current = demand;
        self.high = self.high.max(demand);
    }

    /// Ends a period at `now`: mean and spread over it, the envelope
    /// (mean + standard deviation) and its smoothing.
    pub fn close_period(&mut self, now: u64) {
        self.catch_up(now);
        let span = now.saturating_sub(self.start) as f64;
        let (mean, spread) = if span > 0.0 {
            let mean = self.integral / span;
            (mean, (self.square_integral / span - mean * mean).max(0.0).sqrt())
        } else {
            (self.current, 0.0)
        };
        let envelope = mean + spread;
        self.smoothed = envelope.max(SMOOTHING * self.smoothed + (1.0 - SMOOTHING) * envelope);
        self.average = mean;
        self.high_watermark = self.high;
        self.start = now;
        self.integral = 0.0;
        self.square_integral = 0.0;
        self.high = self.current;
    }
}

/// One level's bounds and wish.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Wish {
    pub lower: f64,
    pub upper: f64,
    pub target: f64,
}

/// Shares `total` out: each level gets its target times one common factor,
/// held within its bounds, the factor chosen so the shares sum to `total`
/// (when the bounds allow; else every level sits at the bound that is
/// closest). Returns the shares and the factor (upstream's "fair
/// fraction").
pub fn allocate(total: f64, wishes: &[Wish]) -> (Vec<f64>, f64) {
    let at =
        |p: f64| -> Vec<f64> { wishes.iter().map(|w| (p * w.target).clamp(w.lower, w.upper.max(w.lower))).collect() };
    let lowest: f64 = wishes.iter().map(|w| w.lower).sum();
    if lowest >= total {
        return (wishes.iter().map(|w| w.lower).collect(), 0.0);
    }
    let highest: f64 = wishes.iter().map(|w| w.upper.max(w.lower)).sum();
    if highest <= total {
        return (wishes.iter().map(|w| w.upper.max(w.lower)).collect(), f64::INFINITY);
    }
    // The sum is continuous and non-decreasing in the factor: bisect.
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    while at(hi).iter().sum::<f64>() < total && hi < 1e12 {
        hi *= 2.0;
    }
    for _ in 0..100 {
        let mid = (lo + hi) / 2.0;
        if at(mid).iter().sum::<f64>() < total {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    (at(hi), hi)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(lower: f64, upper: f64, target: f64) -> Wish {
        Wish { lower, upper, target }
    }

    #[test]
    fn shares_follow_the_targets_within_bounds() {
        let (shares, _) = allocate(100.0, &[w(10.0, 100.0, 30.0), w(10.0, 100.0, 10.0)]);
        assert!((shares[0] - 75.0).abs() < 1e-6 && (shares[1] - 25.0).abs() < 1e-6, "{shares:?}");
        // A level at its upper bound leaves the rest to the others.
        let (shares, _) = allocate(100.0, &[w(10.0, 40.0, 90.0), w(10.0, 100.0, 10.0)]);
        assert!((shares[0] - 40.0).abs() < 1e-6 && (shares[1] - 60.0).abs() < 1e-6, "{shares:?}");
        // Lower bounds are kept even when they overflow the total.
        let (shares, _) = allocate(10.0, &[w(8.0, 20.0, 1.0), w(8.0, 20.0, 1.0)]);
        assert_eq!(shares, [8.0, 8.0]);
    }

    #[test]
    fn demand_has_a_mean_and_a_high_watermark() {
        let mut d = Demand::default();
        d.set(0, 4.0);
        d.set(5, 0.0);
        d.close_period(10);
        assert!((d.average - 2.0).abs() < 1e-9);
        assert_eq!(d.high_watermark, 4.0);
        assert!((d.smoothed - 4.0).abs() < 1e-9, "mean 2 + spread 2: {}", d.smoothed);
    }
}
