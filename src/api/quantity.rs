//! Resource quantities (`100m`, `1.5`, `64Mi`, `1G`, `5e3`) read as
//! numbers, for what compares them (the scheduler's fit of requests
//! against a node's allocatable) and what sums them (quota usage, written
//! in the canonical form upstream's `Quantity.String()` gives); and the
//! text a quantity is stored as (`canonical`): upstream decodes every
//! write into Go types and encodes it again, so `1000m` is stored as `1`
//! and `0.5Gi` as `512Mi`.

use std::borrow::Cow;
use std::fmt;

/// How a quantity is written: upstream's three formats, known by the
/// suffix it was read with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// No suffix, or `n`, `u`, `m`, `k`, `M`, `G`, `T`, `P`, `E`.
    DecimalSi,
    /// `Ki`, `Mi`, `Gi`, `Ti`, `Pi`, `Ei`.
    BinarySi,
    /// `e3`, `E6`, …
    DecimalExponent,
}

/// A quantity in thousandths of its unit, with the format it is written
/// in. Finer than a thousandth is rounded up, as `MilliValue` does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Quantity {
    pub milli: i128,
    pub format: Format,
}

/// 10ⁿ, for n small enough (the largest a quantity here needs is 10²¹).
fn ten(n: u32) -> i128 {
    10i128.pow(n)
}

impl Quantity {
    /// Zero, as upstream's zero `Quantity{Format: DecimalSI}`.
    pub const ZERO: Quantity = Quantity { milli: 0, format: Format::DecimalSi };

    /// Reads a quantity exactly (no floating point), with the scanner and
    /// suffixes `canonical` reads with: None when upstream's reader would
    /// refuse it, or when it is past 10³⁰ (no resource here is that large).
    pub fn parse(q: &str) -> Option<Quantity> {
        let q = q.trim();
        if q.is_empty() {
            return None;
        }
        let s = scan(q).ok()?;
        let (binary, exponent, format) = interpret(s.suffix)?;
        let digits = i128::try_from(number(&s)?).ok()?;
        // value × 1000 = digits × 2^exp2 × 10^(exp10 + 3 − fraction digits),
        // rounded up past a thousandth.
        let (exp2, exp10) = if binary { (exponent, 0) } else { (0, exponent) };
        let scaled = digits.checked_mul(1i128.checked_shl(u32::try_from(exp2).ok()?)?)?;
        let shift = exp10 + 3 - s.fraction.len() as i64;
        let milli = if shift >= 0 {
            scaled.checked_mul(10i128.checked_pow(u32::try_from(shift).ok()?)?)?
        } else {
            let d = ten(shift.unsigned_abs().min(38) as u32);
            (scaled + d - 1) / d
        };
        if milli > ten(30) {
            return None;
        }
        Some(Quantity { milli: if s.negative { -milli } else { milli }, format })
    }

    /// `self + other`; a zero takes the other's format (upstream's `Add`).
    pub fn add(&mut self, other: Quantity) {
        if self.milli == 0 {
            self.format = other.format;
        }
        self.milli += other.milli;
    }

    /// `self − other`; a zero takes the other's format (upstream's `Sub`).
    pub fn sub(&mut self, other: Quantity) {
        if self.milli == 0 {
            self.format = other.format;
        }
        self.milli -= other.milli;
    }
}

/// The canonical text, as upstream's `Quantity.String()` writes it.
impl fmt::Display for Quantity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (negative, mantissa) = (self.milli < 0, self.milli.unsigned_abs());
        Exact { negative, mantissa, scale: -3, format: self.format }.fmt(f)
    }
}

/// What upstream's decoder answers for text that is no quantity (its
/// `ErrFormatWrong`, `ErrNumeric` and `ErrSuffix`).
pub const FORMAT_WRONG: &str =
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
pub const NUMERIC: &str = "unable to parse numeric part of quantity";
pub const SUFFIX: &str = "unable to parse quantity's suffix";

/// A quantity's text taken apart as upstream's scanner does: the sign,
/// the digits before the point (leading zeros gone, "0" when none), after
/// it, and the suffix.
struct Scanned<'a> {
    text: &'a str,
    negative: bool,
    whole: &'a str,
    fraction: &'a str,
    suffix: &'a str,
    /// Whether any digit came before the suffix (`.Gi` has none).
    digits: bool,
}

fn scan(text: &str) -> Result<Scanned<'_>, &'static str> {
    let b = text.as_bytes();
    let mut at = 0;
    let negative = b.first() == Some(&b'-');
    if matches!(b.first(), Some(b'-' | b'+')) {
        at = 1;
    }
    let run = |from: usize, ok: fn(u8) -> bool| from + b[from..].iter().take_while(|c| ok(**c)).count();
    let zeros_end = run(at, |c| c == b'0');
    let digits = zeros_end > at;
    if zeros_end == b.len() {
        return Ok(Scanned { text, negative, whole: "0", fraction: "", suffix: "", digits: true });
    }
    let whole_end = run(zeros_end, |c| c.is_ascii_digit());
    let whole = if whole_end > zeros_end { &text[zeros_end..whole_end] } else { "0" };
    let digits = digits || whole_end > zeros_end;
    let (mut fraction, mut rest) = ("", whole_end);
    if b.get(whole_end) == Some(&b'.') {
        let end = run(whole_end + 1, |c| c.is_ascii_digit());
        (fraction, rest) = (&text[whole_end + 1..end], end);
    }
    let digits = digits || !fraction.is_empty();
    // The suffix: letters of the known suffixes, then an exponent's sign
    // and digits, to the end.
    let mut end = run(rest, |c| b"eEinumkKMGTP".contains(&c));
    if matches!(b.get(end), Some(b'-' | b'+')) {
        end += 1;
    }
    if run(end, |c| c.is_ascii_digit()) != b.len() {
        return Err(FORMAT_WRONG);
    }
    Ok(Scanned { text, negative, whole, fraction, suffix: &text[rest..], digits })
}

/// The power a suffix stands for, base 10 or 2, and its format.
fn interpret(suffix: &str) -> Option<(bool, i64, Format)> {
    let decimal = |e| Some((false, e, Format::DecimalSi));
    let binary = |e| Some((true, e, Format::BinarySi));
    match suffix {
        "" => decimal(0),
        "n" => decimal(-9),
        "u" => decimal(-6),
        "m" => decimal(-3),
        "k" => decimal(3),
        "M" => decimal(6),
        "G" => decimal(9),
        "T" => decimal(12),
        "P" => decimal(15),
        "E" => decimal(18),
        "Ki" => binary(10),
        "Mi" => binary(20),
        "Gi" => binary(30),
        "Ti" => binary(40),
        "Pi" => binary(50),
        "Ei" => binary(60),
        // An exponent, cut to 32 bits as Go's `int32(parsed)` cuts it.
        s if s.len() > 1 && s.starts_with(['e', 'E']) => {
            s[1..].parse::<i64>().ok().map(|e| (false, i64::from(e as i32), Format::DecimalExponent))
        }
        _ => None,
    }
}

/// An exact amount, `mantissa × 10^scale`, with its sign and format.
struct Exact {
    negative: bool,
    mantissa: u128,
    scale: i64,
    format: Format,
}

/// `n / 10^k` rounded away from zero, and whether that was exact.
fn divide_up(n: u128, k: u64) -> (u128, bool) {
    match u32::try_from(k).ok().and_then(|k| 10u128.checked_pow(k)) {
        Some(d) => (n.div_ceil(d), n % d == 0),
        None => (u128::from(n != 0), n == 0),
    }
}

/// The text kube-apiserver stores for a quantity written as `text` (Go's
/// decoder reading it, then its encoder writing it): the text itself when
/// the reader keeps it (read on its 64-bit fast path and shaped as a
/// canonical one), else the canonical form of the value read — rounded
/// up to a billionth, a binary amount above 2⁶³−1 capped there. Upstream's
/// quirks come along (`+1` is kept as written; `1000E` is written `1`, no
/// suffix standing for 10²¹). Numbers past 38 digits are left as written
/// (Go reads them into a big decimal; this stops at 128 bits).
pub fn canonical(text: &str) -> Result<Cow<'_, str>, &'static str> {
    if text.is_empty() {
        return Err(FORMAT_WRONG);
    }
    if text == "0" {
        return Ok(Cow::Borrowed(text));
    }
    let s = scan(text)?;
    let (binary, exponent, format) = interpret(s.suffix).ok_or(SUFFIX)?;
    // (Past 128 bits: written as it came.)
    let Some(mantissa) = number(&s) else { return Ok(Cow::Borrowed(text)) };
    if let Some((scale, kept)) = fast_path(&s, mantissa, binary, exponent) {
        if kept {
            return Ok(Cow::Borrowed(text));
        }
        if binary {
            // A whole number of at least 1024 (or zero).
            let (n, suffix) = in_binary_units(mantissa << exponent);
            let sign = if s.negative && n != 0 { "-" } else { "" };
            return Ok(Cow::Owned(format!("{sign}{n}{suffix}")));
        }
        return Ok(Cow::Owned(Exact { negative: s.negative, mantissa, scale, format }.to_string()));
    }
    slow_path(&s, mantissa, binary, exponent, format).map(Cow::Owned)
}

/// The digits before and after the point as one integer (the point
/// dropped), if 128 bits hold it.
#[inline(always)]
fn number(s: &Scanned<'_>) -> Option<u128> {
    let mut digits = s.whole.bytes().chain(s.fraction.bytes());
    digits.try_fold(0u128, |n, c| n.checked_mul(10)?.checked_add(u128::from(c - b'0')))
}

/// Upstream's reader's 64-bit fast path, when it takes a quantity (few
/// enough digits, no finer than a billionth, 64 bits enough): the scale
/// of `mantissa` (the `number`, for a binary amount to be shifted by its
/// exponent), and whether the reader keeps the text as written (it looks
/// canonical already).
#[inline(always)]
fn fast_path(s: &Scanned<'_>, mantissa: u128, binary: bool, exponent: i64) -> Option<(i64, bool)> {
    if binary {
        let precision = 15 - s.whole.len() as i64 - exponent * 3 / 10 - 1;
        let fits = s.fraction.is_empty() && precision >= 0 && (mantissa << exponent) <= i64::MAX as u128;
        return fits.then_some((0, mantissa & 7 != 0));
    }
    let scale = exponent - s.fraction.len() as i64;
    if s.whole.len() + s.fraction.len() > 18 || scale < -9 {
        return None;
    }
    let zeros = s.whole.bytes().chain(s.fraction.bytes()).rev().take_while(|c| *c == b'0').count();
    Some((scale, scale % 3 == 0 && zeros < 3 && !s.whole.starts_with('0')))
}

/// Go's `%#v` of the Quantity upstream reads from `text`, as some of its
/// validation messages print one: the 64-bit form, with the text when the
/// reader keeps it. (An amount past the fast path is printed in that form
/// too; Go would print a pointer to a big decimal.)
pub fn go_syntax(text: &str) -> String {
    let t = text.trim();
    let read = scan(t).ok().and_then(|s| Some((interpret(s.suffix)?, number(&s)?, s)));
    let (value, scale, kept, format) = match read {
        Some(((binary, exponent, format), mantissa, s)) => {
            let shifted = if binary { mantissa << exponent.min(64) } else { mantissa };
            let fallback = (if binary { 0 } else { exponent - s.fraction.len() as i64 }, false);
            let (scale, kept) = fast_path(&s, mantissa, binary, exponent).unwrap_or(fallback);
            let value = i64::try_from(shifted).unwrap_or(i64::MAX);
            (if s.negative { -value } else { value }, scale, kept, format)
        }
        None => (0, 0, false, Format::DecimalSi),
    };
    let format = match format {
        Format::DecimalSi => "DecimalSI",
        Format::BinarySi => "BinarySI",
        Format::DecimalExponent => "DecimalExponent",
    };
    let s = if kept { t } else { "" };
    format!(
        "resource.Quantity{{i:resource.int64Amount{{value:{value}, scale:{scale}}}, d:resource.infDecAmount{{Dec:(*inf.Dec)(nil)}}, s:{s:?}, Format:{format:?}}}"
    )
}

/// `n` in the largest binary unit that keeps it whole (`2048` → `2`, `Ki`).
fn in_binary_units(mut n: u128) -> (u128, &'static str) {
    let mut step = 0;
    while n != 0 && n % 1024 == 0 && step < 6 {
        n /= 1024;
        step += 1;
    }
    (n, ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"][step])
}

/// What the reader's fast path does not take, read as a big decimal is:
/// rounded up to a billionth, a binary amount capped at 2⁶³−1.
#[inline(never)]
fn slow_path(
    s: &Scanned<'_>,
    mut mantissa: u128,
    binary: bool,
    exponent: i64,
    format: Format,
) -> Result<String, &'static str> {
    if !s.digits {
        return Err(NUMERIC);
    }
    let (mut scale, mut format) = (-(s.fraction.len() as i64), format);
    if binary {
        // (Past 128 bits: written as it came.)
        let Some(m) = mantissa.checked_mul(1u128 << exponent) else { return Ok(s.text.to_string()) };
        mantissa = m;
    } else {
        scale += exponent;
    }
    if mantissa != 0 && scale < -9 {
        mantissa = divide_up(mantissa, (-9 - scale) as u64).0;
        scale = -9;
    }
    if binary {
        // (Here the scale is between −9 and 0.)
        let unit = 10u128.pow(scale.unsigned_abs() as u32);
        let max = i64::MAX as u128;
        if mantissa > max * unit {
            (mantissa, scale) = (max, 0);
        }
        if mantissa < 10u128.pow(scale.unsigned_abs() as u32) {
            format = Format::DecimalSi;
        }
    }
    Ok(Exact { negative: s.negative, mantissa, scale, format }.to_string())
}

/// Upstream's canonical text (`Quantity.String()`): binary amounts with
/// the largest binary suffix that keeps them whole (those under 1024 or
/// with a fraction written as decimal ones), decimal ones with the
/// largest power of a thousand that keeps them whole.
impl fmt::Display for Exact {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sign = if self.negative { "-" } else { "" };
        if self.mantissa == 0 {
            return f.write_str("0");
        }
        if self.format == Format::BinarySi {
            let whole = match self.scale {
                s if s >= 0 => u32::try_from(s).ok().and_then(|s| self.mantissa.checked_mul(10u128.checked_pow(s)?)),
                s => Some(divide_up(self.mantissa, s.unsigned_abs())).filter(|(_, exact)| *exact).map(|(v, _)| v),
            };
            if let Some(n) = whole.filter(|v| *v >= 1024) {
                let (n, suffix) = in_binary_units(n);
                return write!(f, "{sign}{n}{suffix}");
            }
        }
        // mantissa × 10^exp, exp a multiple of 3 and as large as keeps the
        // mantissa whole.
        let (mut m, mut exp) = (self.mantissa, self.scale);
        while m >= 10 && m % 10 == 0 {
            m /= 10;
            exp += 1;
        }
        while exp % 3 != 0 {
            m = m.saturating_mul(10);
            exp -= 1;
        }
        if self.format == Format::DecimalExponent {
            return if exp == 0 { write!(f, "{sign}{m}") } else { write!(f, "{sign}{m}e{exp}") };
        }
        let suffix = match exp {
            -9 => "n",
            -6 => "u",
            -3 => "m",
            3 => "k",
            6 => "M",
            9 => "G",
            12 => "T",
            15 => "P",
            18 => "E",
            _ => "",
        };
        write!(f, "{sign}{m}{suffix}")
    }
}

/// A quantity in thousandths of its unit (`100m` cpu → 100, `1Ki` →
/// 1_024_000), or None when it does not parse.
pub fn milli_value(q: &str) -> Option<i128> {
    Quantity::parse(q).map(|q| q.milli)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantities_read_in_thousandths() {
        assert_eq!(milli_value("100m"), Some(100));
        assert_eq!(milli_value("1"), Some(1000));
        assert_eq!(milli_value("0.5"), Some(500));
        assert_eq!(milli_value("0.1"), Some(100));
        assert_eq!(milli_value("64Mi"), Some(64 * 1024 * 1024 * 1000));
        assert_eq!(milli_value("1G"), Some(1_000_000_000_000));
        assert_eq!(milli_value("5e3"), Some(5_000_000));
        assert_eq!(milli_value("1.5Gi"), Some(3 * 512 * 1024 * 1024 * 1000));
        assert_eq!(milli_value("-2"), Some(-2000));
        assert_eq!(milli_value("1n"), Some(1), "finer than a thousandth rounds up");
        assert_eq!(milli_value("lots"), None);
        assert_eq!(milli_value("1Zi"), None);
        assert_eq!(milli_value("."), Some(0), "upstream's reader reads a lone point as zero");
        assert_eq!(milli_value("1e-12"), Some(1), "rounded up to a thousandth");
        assert_eq!(milli_value("1e40"), None, "past 10³⁰");
        assert_eq!(milli_value("1.2.3"), None);
        assert_eq!(milli_value("99999999999999999999999999999999999"), None);
    }

    fn canonical(q: &str) -> String {
        Quantity::parse(q).unwrap().to_string()
    }

    #[test]
    fn quantities_print_as_upstream_canonicalizes_them() {
        assert_eq!(canonical("1000m"), "1");
        assert_eq!(canonical("1500m"), "1500m");
        assert_eq!(canonical("0.5"), "500m");
        assert_eq!(canonical("1500000"), "1500k");
        assert_eq!(canonical("2G"), "2G");
        assert_eq!(canonical("1024Mi"), "1Gi");
        assert_eq!(canonical("1536Mi"), "1536Mi");
        assert_eq!(canonical("512Ki"), "512Ki");
        assert_eq!(canonical("0.5Ki"), "512", "under 1024 a binary quantity is written as a decimal one");
        assert_eq!(canonical("1.5Ki"), "1536");
        assert_eq!(canonical("0Mi"), "0");
        assert_eq!(canonical("5e3"), "5e3");
        assert_eq!(canonical("-100m"), "-100m");
    }

    #[test]
    fn quantities_are_stored_as_upstreams_decoder_and_encoder_leave_them() {
        let stored = |t: &str| super::canonical(t).map(Cow::into_owned);
        for (written, kept) in [
            ("1000m", "1"),
            ("1500m", "1500m"),
            ("0.5", "500m"),
            ("1000", "1k"),
            ("100", "100"),
            ("1073741824", "1073741824"),
            ("1024Mi", "1Gi"),
            ("2048Ki", "2Mi"),
            ("1Gi", "1Gi"),
            ("0.5Gi", "512Mi"),
            ("-1.5Gi", "-1536Mi"),
            ("1.1Ki", "1126400m"),
            ("0.5Ki", "512"),
            ("1.5n", "2n"),
            ("1e-12", "1e-9"),
            ("0.0000000001", "1n"),
            ("1.5e3", "1500"),
            ("12e6", "12e6"),
            ("8Ei", "9223372036854775807"),
            ("000", "0"),
            ("-0", "0"),
            ("Gi", "0"),
            // Kept as written, as upstream's reader keeps them.
            ("+1", "+1"),
            ("01", "01"),
            ("1.", "1."),
            ("1E3", "1E3"),
            ("1000E", "1"),
        ] {
            assert_eq!(stored(written).as_deref(), Ok(kept), "{written}");
        }
        for (written, error) in [
            ("", FORMAT_WRONG),
            ("abc", FORMAT_WRONG),
            ("1x", FORMAT_WRONG),
            ("1Kb", FORMAT_WRONG),
            ("1 ", FORMAT_WRONG),
            ("1KK", SUFFIX),
            ("1ee5", SUFFIX),
            (".e-12", NUMERIC),
        ] {
            assert_eq!(stored(written), Err(error), "{written}");
        }
        assert!(matches!(super::canonical("250m"), Ok(Cow::Borrowed(_))), "a canonical text is not copied");
    }

    #[test]
    fn go_prints_the_quantity_it_read_with_the_text_its_reader_kept() {
        let go = |value: i64, scale: i64, s: &str, format: &str| {
            format!("resource.Quantity{{i:resource.int64Amount{{value:{value}, scale:{scale}}}, d:resource.infDecAmount{{Dec:(*inf.Dec)(nil)}}, s:{s:?}, Format:{format:?}}}")
        };
        assert_eq!(go_syntax("1.5"), go(15, -1, "", "DecimalSI"));
        assert_eq!(go_syntax("1500m"), go(1500, -3, "1500m", "DecimalSI"));
        assert_eq!(go_syntax("-2500m"), go(-2500, -3, "-2500m", "DecimalSI"));
        assert_eq!(go_syntax("3Ki"), go(3072, 0, "3Ki", "BinarySI"));
        assert_eq!(go_syntax("8Ki"), go(8192, 0, "", "BinarySI"));
        assert_eq!(go_syntax("1e3"), go(1, 3, "1e3", "DecimalExponent"));
    }

    #[test]
    fn a_sum_is_written_in_the_format_of_its_first_amount_that_is_not_zero() {
        let mut used = Quantity::parse("0").unwrap();
        used.add(Quantity::parse("128Mi").unwrap());
        used.add(Quantity::parse("128Mi").unwrap());
        assert_eq!(used.to_string(), "256Mi");
        used.add(Quantity::parse("1G").unwrap());
        assert_eq!(used.to_string(), "1268435456", "1 G is no whole number of Ki");
        let mut cpu = Quantity::parse("1").unwrap();
        cpu.add(Quantity::parse("500m").unwrap());
        assert_eq!(cpu.to_string(), "1500m");
        cpu.sub(Quantity::parse("1500m").unwrap());
        assert_eq!(cpu.to_string(), "0");
    }
}
