//! Durations for people: one formatter for ns, µs, ms and s, shared by every view (the report's
//! charts and HTML, the profile's text, the app's charts and profile pane).

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
    let decimals = match v.abs() {
        a if a >= 100.0 => 0,
        a if a >= 10.0 => 1,
        _ => 2,
    };
    let s = format!("{v:.decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_owned()
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A saving within noise of zero can be negative: the sign stays, the unit follows the size.
    #[test]
    fn a_negative_duration_keeps_its_sign() {
        assert_eq!(format_ns(-4010.0), "-4.01 µs");
        assert_eq!(format_ns(-751.0), "-751 ns");
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
