//! Resource quantities (`100m`, `1.5`, `64Mi`, `1G`, `5e3`) read as
//! numbers, for what compares them (the scheduler's fit of requests
//! against a node's allocatable) and what sums them (quota usage, written
//! in the canonical form upstream's `Quantity.String()` gives). Stored
//! objects keep the text their writers sent.

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

    /// Reads a quantity exactly (no floating point): a signed decimal
    /// number and a suffix. None when it does not parse or is too large.
    pub fn parse(q: &str) -> Option<Quantity> {
        let q = q.trim();
        let (negative, q) = match q.as_bytes().first() {
            Some(b'-') => (true, &q[1..]),
            Some(b'+') => (false, &q[1..]),
            _ => (false, q),
        };
        let split = q.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(q.len());
        let (number, suffix) = q.split_at(split);
        let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
        if whole.is_empty() && fraction.is_empty() || fraction.contains('.') || whole.len() + fraction.len() > 30 {
            return None;
        }
        // The digits as one integer, and where the point was.
        let mut digits: i128 = 0;
        for b in whole.bytes().chain(fraction.bytes()) {
            digits = digits * 10 + i128::from(b - b'0');
        }
        let (format, exp10, exp2): (Format, i32, u32) = match suffix {
            "" => (Format::DecimalSi, 0, 0),
            "n" => (Format::DecimalSi, -9, 0),
            "u" => (Format::DecimalSi, -6, 0),
            "m" => (Format::DecimalSi, -3, 0),
            "k" => (Format::DecimalSi, 3, 0),
            "M" => (Format::DecimalSi, 6, 0),
            "G" => (Format::DecimalSi, 9, 0),
            "T" => (Format::DecimalSi, 12, 0),
            "P" => (Format::DecimalSi, 15, 0),
            "E" => (Format::DecimalSi, 18, 0),
            "Ki" => (Format::BinarySi, 0, 10),
            "Mi" => (Format::BinarySi, 0, 20),
            "Gi" => (Format::BinarySi, 0, 30),
            "Ti" => (Format::BinarySi, 0, 40),
            "Pi" => (Format::BinarySi, 0, 50),
            "Ei" => (Format::BinarySi, 0, 60),
            s if s.starts_with(['e', 'E']) => {
                let e: i32 = s[1..].parse().ok()?;
                if !(-30..=30).contains(&e) {
                    return None;
                }
                (Format::DecimalExponent, e, 0)
            }
            _ => return None,
        };
        // value × 1000 = digits × 2^exp2 × 10^(exp10 + 3 − fraction digits).
        let scaled = digits.checked_mul(1i128 << exp2)?;
        let shift = exp10 + 3 - fraction.len() as i32;
        let milli = if shift >= 0 {
            scaled.checked_mul(ten(shift as u32))?
        } else {
            let d = ten(shift.unsigned_abs().min(38));
            (scaled + d - 1) / d
        };
        if milli > ten(30) {
            return None;
        }
        Some(Quantity { milli: if negative { -milli } else { milli }, format })
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

/// The canonical text (upstream's `Quantity.String()`): binary quantities
/// with the largest binary suffix that keeps them whole (those under 1024
/// or with a fraction written as decimal ones), decimal ones with the
/// largest power of a thousand that keeps them whole.
impl fmt::Display for Quantity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (sign, v) = if self.milli < 0 { ("-", -self.milli) } else { ("", self.milli) };
        if v == 0 {
            return f.write_str("0");
        }
        let mut format = self.format;
        if format == Format::BinarySi && (v < 1024 * 1000 || v % 1000 != 0) {
            format = Format::DecimalSi;
        }
        if format == Format::BinarySi {
            let mut n = v / 1000;
            let mut step = 0;
            while step < 6 && n % 1024 == 0 {
                n /= 1024;
                step += 1;
            }
            let suffix = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"][step];
            return write!(f, "{sign}{n}{suffix}");
        }
        // v × 10⁻³ = mantissa × 10^exp, exp a multiple of 3, as large as
        // keeps the mantissa whole.
        let (mut mantissa, mut exp) = (v, -3i32);
        while mantissa % 1000 == 0 && exp < 18 {
            mantissa /= 1000;
            exp += 3;
        }
        if format == Format::DecimalExponent {
            return if exp == 0 { write!(f, "{sign}{mantissa}") } else { write!(f, "{sign}{mantissa}e{exp}") };
        }
        let suffix = match exp {
            -3 => "m",
            0 => "",
            3 => "k",
            6 => "M",
            9 => "G",
            12 => "T",
            15 => "P",
            _ => "E",
        };
        write!(f, "{sign}{mantissa}{suffix}")
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
        assert_eq!(milli_value("."), None);
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
