//! JSON numbers are read as Go reads them: into the nearest double
//! (correct rounding), whatever their length. The vendored serde_json
//! (`vendor/README.md`) reads them with the standard library's parser;
//! this checks it against that parser on numbers of every shape.

fn numbers() -> Vec<String> {
    let mut out: Vec<String> = [
        "0.1",
        "444444.44444474444",
        "2.2250738585072011e-308",
        "2.2250738585072014e-308",
        "1.7976931348623157e308",
        "4.9e-324",
        "9007199254740993",
        "123456789012345678901234567890",
        "0.30000000000000004",
        "1e-400",
        "-0.0",
        "1E+2",
        "1.00000000000000011102230246251565404236316680908203125",
        "7.038531e-26",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    // Pseudo-random ones (xorshift, fixed seed): 1–40 digits of integer,
    // 0–40 of fraction, an exponent or none, either sign.
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = |n: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % n
    };
    for _ in 0..20_000 {
        let mut s = String::new();
        if next(2) == 0 {
            s.push('-');
        }
        let int_len = 1 + next(40);
        for i in 0..int_len {
            let d = if i == 0 && int_len > 1 { 1 + next(9) } else { next(10) };
            s.push(char::from(b'0' + d as u8));
        }
        let frac_len = next(41);
        if frac_len > 0 {
            s.push('.');
            for _ in 0..frac_len {
                s.push(char::from(b'0' + next(10) as u8));
            }
        }
        if next(2) == 0 {
            s.push_str(&format!("e{}", next(700) as i64 - 350));
        }
        out.push(s);
    }
    out
}

#[test]
fn every_number_reads_as_the_nearest_double() {
    for text in numbers() {
        let want: f64 = text.parse().unwrap();
        let got = serde_json::from_str::<f64>(&text);
        if want.is_infinite() {
            assert!(got.is_err(), "{text}: out of range is an error, as in Go");
            continue;
        }
        let got = got.unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(got.to_bits(), want.to_bits(), "{text}");
        // And inside a document, as a value.
        let v: serde_json::Value = serde_json::from_str(&format!("{{\"n\":{text}}}")).unwrap();
        if !text.contains(['.', 'e', 'E']) && text.len() < 19 {
            continue; // an integer, kept as one
        }
        assert_eq!(v["n"].as_f64().map(f64::to_bits), Some(want.to_bits()), "{text}");
    }
}
