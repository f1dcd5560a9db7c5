//! Injected time and randomness. The core never reads a wall clock: time
//! is a `SimClock` value the adapter advances; uids and generateName suffixes
//! come from `SeededRng`, so a scenario replays byte for byte.

/// Simulated time in milliseconds since the Unix epoch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct SimTime(pub i64);

impl SimTime {
    pub fn plus_millis(self, ms: i64) -> SimTime {
        SimTime(self.0.saturating_add(ms))
    }

    /// RFC 3339 with second precision in UTC, as `metav1.Time` serializes.
    pub fn rfc3339(self) -> String {
        let secs = self.0.div_euclid(1000);
        let days = secs.div_euclid(86_400);
        let rem = secs.rem_euclid(86_400);
        let (y, m, d) = civil_from_days(days);
        format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z", rem / 3600, (rem / 60) % 60, rem % 60)
    }
}

// Howard Hinnant's days-to-civil algorithm (public domain arithmetic).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// Parses a Go-style duration such as `5m`, `90s`, `1h30m`, `250ms`.
pub fn parse_duration_millis(s: &str) -> Option<i64> {
    let s = s.trim();
    if s.is_empty() {
        return None;
    }
    let mut total: i64 = 0;
    let mut rest = s;
    while !rest.is_empty() {
        let num_len = rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len());
        if num_len == 0 {
            return None;
        }
        let n: i64 = rest[..num_len].parse().ok()?;
        rest = &rest[num_len..];
        let unit_len = rest.find(|c: char| c.is_ascii_digit()).unwrap_or(rest.len());
        let unit = &rest[..unit_len];
        rest = &rest[unit_len..];
        let factor = match unit {
            "ms" => 1,
            "s" => 1000,
            "m" => 60_000,
            "h" => 3_600_000,
            _ => return None,
        };
        total = total.checked_add(n.checked_mul(factor)?)?;
    }
    Some(total)
}

/// SplitMix64: small, fast and good enough for identifiers.
#[derive(Clone, Debug)]
pub struct SeededRng {
    state: u64,
}

impl SeededRng {
    pub fn new(seed: u64) -> Self {
        SeededRng { state: seed }
    }

    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A random (version 4) UUID string.
    pub fn uuid(&mut self) -> String {
        let a = self.next_u64();
        let b = self.next_u64();
        let mut bytes = [0u8; 16];
        bytes[..8].copy_from_slice(&a.to_be_bytes());
        bytes[8..].copy_from_slice(&b.to_be_bytes());
        bytes[6] = (bytes[6] & 0x0f) | 0x40;
        bytes[8] = (bytes[8] & 0x3f) | 0x80;
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let mut out = String::with_capacity(36);
        for (i, b) in bytes.iter().enumerate() {
            if matches!(i, 4 | 6 | 8 | 10) {
                out.push('-');
            }
            out.push(HEX[(b >> 4) as usize] as char);
            out.push(HEX[(b & 15) as usize] as char);
        }
        out
    }

    /// The 5-character suffix upstream appends to `generateName` (its
    /// alphabet has no vowels and no confusable characters).
    pub fn name_suffix(&mut self) -> String {
        const ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
        (0..5).map(|_| ALPHABET[(self.next_u64() % ALPHABET.len() as u64) as usize] as char).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_rfc3339() {
        assert_eq!(SimTime(0).rfc3339(), "1970-01-01T00:00:00Z");
        assert_eq!(SimTime(1_622_731_252_000).rfc3339(), "2021-06-03T14:40:52Z");
    }

    #[test]
    fn parses_durations() {
        assert_eq!(parse_duration_millis("5m"), Some(300_000));
        assert_eq!(parse_duration_millis("1h30m"), Some(5_400_000));
        assert_eq!(parse_duration_millis("250ms"), Some(250));
        assert_eq!(parse_duration_millis("5x"), None);
        assert_eq!(parse_duration_millis("m"), None);
    }

    #[test]
    fn rng_replays() {
        let mut a = SeededRng::new(7);
        let mut b = SeededRng::new(7);
        assert_eq!(a.uuid(), b.uuid());
        assert_eq!(a.name_suffix(), b.name_suffix());
        assert_eq!(a.uuid().len(), 36);
    }
}
