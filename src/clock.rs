//! Injected time and randomness. The core never reads a wall clock: time
//! is a `SimTime` the adapter hands in (and `advance` jumps); uids and generateName suffixes
//! come from `SeededRng`, so a scenario replays byte for byte.

/// Simulated time in milliseconds since the Unix epoch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct SimTime(pub i64);

/// A word's eight hex digits (lower case), most significant first: its
/// nibbles spread one to a byte, then each turned into its digit by adding
/// `'0'`, and `'a' - '0' - 10` more where it is ten or above, all eight at
/// once.
fn hex8(x: u32) -> [u8; 8] {
    let mut v = u64::from(x);
    v = (v | (v << 16)) & 0x0000_FFFF_0000_FFFF;
    v = (v | (v << 8)) & 0x00FF_00FF_00FF_00FF;
    v = (v | (v << 4)) & 0x0F0F_0F0F_0F0F_0F0F;
    // (The lowest nibble is now the lowest byte: big-endian bytes read
    // most significant first.)
    let letters = ((v + 0x0606_0606_0606_0606) >> 4) & 0x0101_0101_0101_0101;
    (v + 0x3030_3030_3030_3030 + letters * 0x27).to_be_bytes()
}

impl SimTime {
    pub fn plus_millis(self, ms: i64) -> SimTime {
        SimTime(self.0.saturating_add(ms))
    }

    /// RFC 3339 with microseconds in UTC, as `metav1.MicroTime`
    /// serializes (`2023-11-14T22:13:20.123000Z`).
    pub fn rfc3339_micro(self) -> String {
        let seconds = self.rfc3339();
        let millis = self.0.rem_euclid(1000);
        format!("{}.{millis:03}000Z", &seconds[..seconds.len() - 1])
    }

    /// RFC 3339 with second precision in UTC, as `metav1.Time` serializes.
    pub fn rfc3339(self) -> String {
        let secs = self.0.div_euclid(1000);
        let days = secs.div_euclid(86_400);
        let rem = secs.rem_euclid(86_400);
        let (y, m, d) = civil_from_days(days);
        if !(0..=9999).contains(&y) {
            return format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z", rem / 3600, (rem / 60) % 60, rem % 60);
        }
        // Written digit by digit into a buffer: timestamps are formatted
        // several times per write, and `format!` was a percent of a rollout.
        let mut out = *b"0000-00-00T00:00:00Z";
        let (y, rem) = (y as u32, rem as u32);
        for (at, n) in
            [(0, y / 100), (2, y % 100), (5, m), (8, d), (11, rem / 3600), (14, rem / 60 % 60), (17, rem % 60)]
        {
            out[at] = b'0' + (n / 10 % 10) as u8;
            out[at + 1] = b'0' + (n % 10) as u8;
        }
        ascii(&out)
    }
}

/// A string of ASCII bytes formatted in place (every byte written is
/// ASCII, so the check passes; `from_utf8` checks ASCII a word at a time,
/// where `from_utf8_lossy` walks chunks).
fn ascii(bytes: &[u8]) -> String {
    std::str::from_utf8(bytes).map(str::to_owned).unwrap_or_default()
}

impl SimTime {
    /// Go's RFC 1123 with a numeric zone, in UTC, as `kubectl describe`
    /// prints times: `Tue, 14 Nov 2023 22:13:20 +0000`.
    pub fn rfc1123z(self) -> String {
        const DAYS: [&str; 7] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
        const MONTHS: [&str; 12] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
        let secs = self.0.div_euclid(1000);
        let days = secs.div_euclid(86_400);
        let rem = secs.rem_euclid(86_400);
        let (y, m, d) = civil_from_days(days);
        // 1970-01-01 was a Thursday.
        let weekday = DAYS[(days + 4).rem_euclid(7) as usize];
        let month = MONTHS[(m as usize).saturating_sub(1).min(11)];
        format!("{weekday}, {d:02} {month} {y:04} {:02}:{:02}:{:02} +0000", rem / 3600, (rem / 60) % 60, rem % 60)
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

/// Milliseconds since the epoch from an RFC 3339 UTC timestamp as the server
/// writes them (`2023-11-14T22:13:20Z`, optionally with a fraction).
pub fn parse_rfc3339(ts: &str) -> Option<i64> {
    let (secs, nanos) = parse_rfc3339_parts(ts)?;
    Some(secs * 1000 + i64::from(nanos) / 1_000_000)
}

/// Seconds since the epoch and nanoseconds of an RFC 3339 UTC timestamp
/// (`YYYY-MM-DDTHH:MM:SS[.fraction]Z`, read digit by digit: a protobuf
/// list's every object carries several); None for anything else.
pub fn parse_rfc3339_parts(ts: &str) -> Option<(i64, i32)> {
    let b = ts.as_bytes();
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || b[10] != b'T' || b[13] != b':' || b[16] != b':' {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        b[r].iter().try_fold(0i64, |n, c| c.is_ascii_digit().then(|| n * 10 + i64::from(c - b'0')))
    };
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (h, mi, s) = (num(11..13)?, num(14..16)?, num(17..19)?);
    let (frac, zone) = match b[19] {
        b'.' => {
            let digits = b[20..].iter().take_while(|c| c.is_ascii_digit()).count();
            (&b[20..20 + digits], &b[20 + digits..])
        }
        _ => (&b[19..19], &b[19..]),
    };
    if zone != b"Z" || !(1..=12).contains(&mo) || !(1..=31).contains(&d) {
        return None;
    }
    let nanos = (0..9).fold(0i64, |n, i| n * 10 + frac.get(i).map_or(0, |c| i64::from(c - b'0')));
    // Days from the civil date (Howard Hinnant's algorithm).
    let y2 = if mo <= 2 { y - 1 } else { y };
    let era = y2.div_euclid(400);
    let yoe = y2 - era * 400;
    let doy = (153 * (if mo > 2 { mo - 3 } else { mo + 9 }) + 2) / 5 + d - 1;
    let days = era * 146_097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719_468;
    Some((days * 86_400 + h * 3_600 + mi * 60 + s, nanos as i32))
}

/// An elapsed time the way the API's printers show ages: `45s`, `2m30s`,
/// `90m`, `5h12m`, `20h`, `3d4h`, `400d`, `3y20d` (apimachinery's
/// HumanDuration thresholds).
pub fn human_duration(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    if secs < -1 {
        return "<invalid>".into();
    }
    if secs < 0 {
        return "0s".into();
    }
    let with = |big: i64, unit: &str, small: i64, small_unit: &str| {
        if small == 0 {
            format!("{big}{unit}")
        } else {
            format!("{big}{unit}{small}{small_unit}")
        }
    };
    let (mins, hours, days) = (secs / 60, secs / 3600, secs / 86_400);
    if secs < 120 {
        format!("{secs}s")
    } else if mins < 10 {
        with(mins, "m", secs % 60, "s")
    } else if mins < 180 {
        format!("{mins}m")
    } else if hours < 8 {
        with(hours, "h", mins % 60, "m")
    } else if hours < 48 {
        format!("{hours}h")
    } else if hours < 24 * 8 {
        with(days, "d", hours % 24, "h")
    } else if hours < 24 * 365 * 2 {
        format!("{days}d")
    } else if hours < 24 * 365 * 8 {
        with(days / 365, "y", days % 365, "d")
    } else {
        format!("{}y", days / 365)
    }
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

    /// Where the sequence stands (a restored server goes on from it).
    pub fn state(&self) -> u64 {
        self.state
    }

    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A random (version 4) UUID string: the first word's bits 12–15 are
    /// the version (4), the second word's top two bits the variant (10).
    pub fn uuid(&mut self) -> String {
        let a = (self.next_u64() & !0xF000) | 0x4000;
        let b = (self.next_u64() & !(0xC0 << 56)) | (0x80 << 56);
        // Written into a buffer, eight digits a step, then copied once
        // (every create and every request's audit ID make one).
        let (a_hi, a_lo) = (hex8((a >> 32) as u32), hex8(a as u32));
        let (b_hi, b_lo) = (hex8((b >> 32) as u32), hex8(b as u32));
        let mut out = [b'-'; 36];
        out[..8].copy_from_slice(&a_hi);
        out[9..13].copy_from_slice(&a_lo[..4]);
        out[14..18].copy_from_slice(&a_lo[4..]);
        out[19..23].copy_from_slice(&b_hi[..4]);
        out[24..28].copy_from_slice(&b_hi[4..]);
        out[28..].copy_from_slice(&b_lo);
        ascii(&out)
    }

    /// The 5-character suffix upstream appends to `generateName` (its
    /// alphabet has no vowels and no confusable characters).
    pub fn name_suffix(&mut self) -> String {
        NameGenerator::default().suffix(self)
    }
}

/// How `generateName` suffixes are drawn from the seeded source: upstream's
/// `SimpleNameGenerator` by default (5 characters, no vowels or
/// confusables). A smaller alphabet or length makes collisions likely, for
/// tests of the retries upstream makes when a generated name is taken.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NameGenerator {
    pub alphabet: String,
    pub length: usize,
}

impl Default for NameGenerator {
    fn default() -> Self {
        NameGenerator { alphabet: "bcdfghjklmnpqrstvwxz2456789".into(), length: 5 }
    }
}

impl NameGenerator {
    /// Longest prefix kept from `generateName` (63 minus the suffix, as
    /// upstream truncates: by bytes, at a character boundary here).
    pub const MAX_PREFIX: usize = 58;

    pub fn suffix(&self, rng: &mut SeededRng) -> String {
        let chars: Vec<char> = self.alphabet.chars().collect();
        if chars.is_empty() {
            return String::new();
        }
        (0..self.length).map(|_| chars[(rng.next_u64() % chars.len() as u64) as usize]).collect()
    }

    /// `base` (truncated) followed by a fresh suffix.
    pub fn generate(&self, base: &str, rng: &mut SeededRng) -> String {
        let mut end = base.len().min(Self::MAX_PREFIX);
        while !base.is_char_boundary(end) {
            end -= 1;
        }
        format!("{}{}", &base[..end], self.suffix(rng))
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn rfc1123z_names_the_weekday_and_month() {
        use super::{parse_rfc3339, SimTime};
        let t = |s: &str| SimTime(parse_rfc3339(s).unwrap()).rfc1123z();
        assert_eq!(t("2023-11-14T22:13:20Z"), "Tue, 14 Nov 2023 22:13:20 +0000");
        assert_eq!(t("1970-01-01T00:00:00Z"), "Thu, 01 Jan 1970 00:00:00 +0000");
        assert_eq!(t("2024-02-29T09:05:01Z"), "Thu, 29 Feb 2024 09:05:01 +0000");
        assert_eq!(t("1969-12-31T23:59:59Z"), "Wed, 31 Dec 1969 23:59:59 +0000");
    }

    #[test]
    fn human_durations_follow_the_printers_thresholds() {
        use super::human_duration as h;
        let m = 60_000;
        assert_eq!(h(10_000), "10s");
        assert_eq!(h(150_000), "2m30s");
        assert_eq!(h(3 * m), "3m");
        assert_eq!(h(60 * m), "60m");
        assert_eq!(h(4 * 60 * m + 5 * m), "4h5m");
        assert_eq!(h(20 * 60 * m), "20h");
        assert_eq!(h(3 * 1440 * m + 60 * m), "3d1h");
        assert_eq!(h(400 * 1440 * m), "400d");
        assert_eq!(h(3 * 365 * 1440 * m + 20 * 1440 * m), "3y20d");
        assert_eq!(h(-500), "0s");
        assert_eq!(h(-5000), "<invalid>");
    }

    #[test]
    fn rfc3339_parses_what_the_clock_writes() {
        let t = super::SimTime(1_700_000_123_000);
        assert_eq!(super::parse_rfc3339(&t.rfc3339()), Some(1_700_000_123_000));
        assert_eq!(super::parse_rfc3339("2023-11-14T22:15:23.250000Z"), Some(1_700_000_123_250));
        assert_eq!(super::parse_rfc3339("nonsense"), None);
        assert_eq!(super::parse_rfc3339("2023-13-14T22:15:23Z"), None);
        // Before the epoch, the fraction still counts forward.
        assert_eq!(super::parse_rfc3339("1969-12-31T23:59:59.5Z"), Some(-500));
        assert_eq!(super::parse_rfc3339_parts("2000-02-29T23:59:59.123456789Z"), Some((951_868_799, 123_456_789)));
        for bad in
            ["2023-11-14T22:13:20", "2023-11-14T22:13:2xZ", "2023-11-14 22:13:20Z", "2023-11-14T22:13:20+02:00", ""]
        {
            assert_eq!(super::parse_rfc3339_parts(bad), None, "{bad}");
        }
    }

    use super::*;

    #[test]
    fn formats_rfc3339() {
        assert_eq!(SimTime(0).rfc3339(), "1970-01-01T00:00:00Z");
        assert_eq!(SimTime(1_622_731_252_000).rfc3339(), "2021-06-03T14:40:52Z");
        assert_eq!(SimTime(253_402_300_799_999).rfc3339(), "9999-12-31T23:59:59Z");
        assert_eq!(SimTime(-62_135_596_800_000).rfc3339(), "0001-01-01T00:00:00Z");
        assert_eq!(SimTime(253_402_300_800_000).rfc3339(), "10000-01-01T00:00:00Z");
        // Every second of a day and a day of every month, as format! writes them.
        for t in (0..86_400_000i64).step_by(997_000).chain((0..400).map(|d| 1_700_000_000_000 + d * 86_400_000)) {
            let secs = t / 1000;
            let (y, m, d) = civil_from_days(secs.div_euclid(86_400));
            let rem = secs.rem_euclid(86_400);
            let want = format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z", rem / 3600, (rem / 60) % 60, rem % 60);
            assert_eq!(SimTime(t).rfc3339(), want);
        }
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

    /// The digits as a plain formatter writes them, for every nibble at
    /// every place; and the UUIDs of a seed as the byte-at-a-time writer
    /// they replaced made them.
    #[test]
    fn uuids_are_written_as_formatted() {
        for x in [0u32, 1, 9, 10, 15, 16, 0x1234_5678, 0x9abc_def0, 0xffff_ffff, 0xa0a0_a0a0, 0x0f0f_0f0f] {
            assert_eq!(hex8(x), *format!("{x:08x}").as_bytes(), "{x:#x}");
        }
        for place in 0..8 {
            for nibble in 0..16u32 {
                let x = nibble << (4 * place);
                assert_eq!(hex8(x), *format!("{x:08x}").as_bytes());
            }
        }
        let mut r = SeededRng::new(3);
        let mut plain = SeededRng::new(3);
        for _ in 0..1000 {
            let (a, b) = (plain.next_u64(), plain.next_u64());
            let mut bytes = [0u8; 16];
            bytes[..8].copy_from_slice(&a.to_be_bytes());
            bytes[8..].copy_from_slice(&b.to_be_bytes());
            bytes[6] = (bytes[6] & 0x0f) | 0x40;
            bytes[8] = (bytes[8] & 0x3f) | 0x80;
            let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
            let want = format!("{}-{}-{}-{}-{}", &hex[..8], &hex[8..12], &hex[12..16], &hex[16..20], &hex[20..]);
            assert_eq!(r.uuid(), want);
        }
    }

    #[test]
    fn uuids_are_version_4_in_their_groups() {
        let mut r = SeededRng::new(11);
        for _ in 0..100 {
            let u = r.uuid();
            let groups: Vec<&str> = u.split('-').collect();
            assert_eq!(groups.iter().map(|g| g.len()).collect::<Vec<_>>(), [8, 4, 4, 4, 12], "{u}");
            assert!(u.bytes().all(|b| b == b'-' || b.is_ascii_digit() || (b'a'..=b'f').contains(&b)), "{u}");
            assert!(groups[2].starts_with('4'), "version 4: {u}");
            assert!(matches!(groups[3].as_bytes()[0], b'8' | b'9' | b'a' | b'b'), "the variant: {u}");
        }
    }
}
