//! Resource quantities (`100m`, `1.5`, `64Mi`, `1G`, `5e3`) read as
//! numbers, for what compares them (the scheduler's fit of requests
//! against a node's allocatable). Serialized forms are never rewritten.

/// A quantity in thousandths of its unit (`100m` cpu → 100, `1Ki` →
/// 1_024_000), or None when it does not parse.
pub fn milli_value(q: &str) -> Option<i128> {
    let q = q.trim();
    let split = q.find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '+' || c == '-')).unwrap_or(q.len());
    let (number, suffix) = q.split_at(split);
    if number.is_empty() || number == "." {
        return None;
    }
    let n: f64 = number.parse().ok()?;
    let scale: f64 = match suffix {
        "" => 1.0,
        "n" => 1e-9,
        "u" => 1e-6,
        "m" => 1e-3,
        "k" => 1e3,
        "M" => 1e6,
        "G" => 1e9,
        "T" => 1e12,
        "P" => 1e15,
        "E" => 1e18,
        "Ki" => 1024.0,
        "Mi" => 1024f64.powi(2),
        "Gi" => 1024f64.powi(3),
        "Ti" => 1024f64.powi(4),
        "Pi" => 1024f64.powi(5),
        "Ei" => 1024f64.powi(6),
        s if s.starts_with(['e', 'E']) => 10f64.powi(s[1..].parse().ok()?),
        _ => return None,
    };
    Some((n * scale * 1000.0).ceil() as i128)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantities_read_in_thousandths() {
        assert_eq!(milli_value("100m"), Some(100));
        assert_eq!(milli_value("1"), Some(1000));
        assert_eq!(milli_value("0.5"), Some(500));
        assert_eq!(milli_value("64Mi"), Some(64 * 1024 * 1024 * 1000));
        assert_eq!(milli_value("1G"), Some(1_000_000_000_000));
        assert_eq!(milli_value("5e3"), Some(5_000_000));
        assert_eq!(milli_value("lots"), None);
        assert_eq!(milli_value("1Zi"), None);
    }
}
