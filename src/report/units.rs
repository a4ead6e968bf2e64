//! Durations and counts for people: one formatter for ns, µs, ms and s, shared by every view
//! (the report's charts and HTML, the profile's text, the app's charts and profile pane), and
//! one for counts in a narrow column.

/// The unit a duration of `ns` nanoseconds reads best in, and its size in ns.
pub fn unit_for(ns: f64) -> (f64, &'static str) {
    match ns.abs() {
        a if a >= 1e9 => (1e9, "s"),
        a if a >= 1e6 => (1e6, "ms"),
        a if a >= 1e3 => (1e3, "µs"),
        _ => (1.0, "ns"),
    }
}

/// A duration in ns as ns, µs, ms or s, with up to three significant digits and no trailing
/// zeros: `250 µs`, `18.2 ms`, `1.5 s`.
pub fn format_ns(ns: f64) -> String {
    let (size, unit) = unit_for(ns);
    format!("{} {unit}", trim_float(ns / size))
}

/// Up to three significant digits, without trailing zeros.
fn trim_float(v: f64) -> String {
    let s = three_digits(v);
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_owned()
    } else {
        s
    }
}

/// Three significant digits, trailing zeros kept (`1.00`, `12.3`, `128`); the rounding decides
/// the decimals, so 99.96 reads `100`, not `100.0`.
fn three_digits(v: f64) -> String {
    let decimals = match v.abs() {
        a if a >= 99.95 => 0,
        a if a >= 9.995 => 1,
        _ => 2,
    };
    format!("{v:.decimals$}")
}

/// A count in at most five characters, for a narrow column: exact below 100,000, else three
/// significant digits with k, M or G (`128k`, `1.23M`; 999,999,999 reads `1.00G`).
pub fn format_count(n: u64) -> String {
    if n < 100_000 {
        return n.to_string();
    }
    let (value, unit) = [(1e9, "G"), (1e6, "M"), (1e3, "k")]
        .into_iter()
        .map(|(scale, unit)| (n as f64 / scale, unit))
        .find(|(value, _)| *value >= 0.9995)
        .expect("n is 100,000 or more");
    format!("{}{unit}", three_digits(value))
}

/// A count in full with its thousands grouped by commas (`258,954,810`), for a column wide
/// enough to hold it exactly.
pub fn format_grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_grouped_count_has_a_comma_every_three_digits() {
        let cases = [
            (0, "0"),
            (999, "999"),
            (1_000, "1,000"),
            (19_855, "19,855"),
            (258_954_810, "258,954,810"),
            (u64::MAX, "18,446,744,073,709,551,615"),
        ];
        for (n, text) in cases {
            assert_eq!(format_grouped(n), text, "{n}");
        }
    }

    /// A saving within noise of zero can be negative: the sign stays, the unit follows the size.
    #[test]
    fn a_negative_duration_keeps_its_sign() {
        assert_eq!(format_ns(-4010.0), "-4.01 µs");
        assert_eq!(format_ns(-751.0), "-751 ns");
    }

    #[test]
    fn a_count_fits_five_characters() {
        let cases = [
            (99_999, "99999"),
            (128_000, "128k"),
            (371_765, "372k"),
            (1_234_567, "1.23M"),
            (11_896_480, "11.9M"),
            (999_999_999, "1.00G"),
            (999_400_000, "999M"),
            (4_000_000_000, "4.00G"),
        ];
        for (n, text) in cases {
            assert_eq!(format_count(n), text);
            assert!(text.len() <= 5, "{text}");
        }
    }

    #[test]
    fn durations() {
        let cases = [
            (250_000.0, "250 µs"),
            (18_152_389.0, "18.2 ms"),
            (1.5e9, "1.5 s"),
            (999.0, "999 ns"),
            (1_000.0, "1 µs"),
            (0.0, "0 ns"),
        ];
        for (ns, text) in cases {
            assert_eq!(format_ns(ns), text, "{ns} ns");
        }
    }
}
