//! Number formatting and XML escaping shared by every renderer.

/// Formats a number with about 4 significant digits for people to read.
///
/// - `NaN` is `-`, infinities are `inf` / `-inf`, `-0` is `0`.
/// - `1e-3 <= |v| < 1000`: 4 significant digits, trailing zeros trimmed
///   (`3.14159` -> `3.142`, `0.5` -> `0.5`, `2.0` -> `2`).
/// - `1000 <= |v| < 1e9`: rounded to an integer (`12345.6` -> `12346`).
/// - otherwise scientific with up to 4 significant digits (`0.0001234` -> `1.234e-4`,
///   `2.5e10` -> `2.5e10`).
pub fn format_num(v: f64) -> String {
    if v.is_nan() {
        return "-".to_string();
    }
    if v.is_infinite() {
        return if v > 0.0 { "inf" } else { "-inf" }.to_string();
    }
    if v == 0.0 {
        return "0".to_string();
    }
    let a = v.abs();
    let s = if (1e-3..1000.0).contains(&a) {
        let exp = a.log10().floor() as i32;
        let decimals = (3 - exp).clamp(0, 6) as usize;
        trim_fraction(&format!("{v:.decimals$}"))
    } else if (1000.0..1e9).contains(&a) {
        format!("{v:.0}")
    } else {
        sci(v, 3)
    };
    if s == "-0" {
        "0".to_string()
    } else {
        s
    }
}

/// Scientific notation with at most `decimals` mantissa decimals, trailing zeros trimmed:
/// `1.234e-4`, `2e6`.
pub(crate) fn sci(v: f64, decimals: usize) -> String {
    let s = format!("{v:.decimals$e}");
    match s.split_once('e') {
        Some((mant, exp)) => format!("{}e{}", trim_fraction(mant), exp),
        None => s,
    }
}

/// Removes trailing zeros after a decimal point, and the point itself if nothing is left.
pub(crate) fn trim_fraction(s: &str) -> String {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s.to_string()
    }
}

/// Escapes `&`, `<`, `>`, `"` and `'` so text is safe in XML/HTML content and attributes.
pub fn escape_xml(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            // Control characters other than tab/newline are not allowed in XML 1.0.
            c if (c as u32) < 0x20 && c != '\t' && c != '\n' && c != '\r' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// A coordinate with exactly 2 decimals (never `-0.00`), for deterministic SVG output.
pub(crate) fn coord(v: f64) -> String {
    let v = if v.is_finite() { v } else { 0.0 };
    let s = format!("{v:.2}");
    if s == "-0.00" {
        "0.00".to_string()
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn four_significant_digits() {
        let cases = [
            (0.0001234, "1.234e-4"),
            (12345.6, "12346"),
            (std::f64::consts::PI, "3.142"),
            (7.65432, "7.654"),
            (45.678, "45.68"),
            (0.5, "0.5"),
            (2.0, "2"),
            (-2.5, "-2.5"),
            (999.96, "1000"),
            (0.0012345, "0.001234"),
            (123.456, "123.5"),
            (1e-5, "1e-5"),
            (2.5e10, "2.5e10"),
            (-0.0, "0"),
            (f64::NAN, "-"),
            (f64::INFINITY, "inf"),
            (f64::NEG_INFINITY, "-inf"),
        ];
        for (v, want) in cases {
            assert_eq!(format_num(v), want, "format_num({v})");
        }
    }

    #[test]
    fn escapes_markup() {
        assert_eq!(
            escape_xml("<script>a & 'b' \"c\"</script>"),
            "&lt;script&gt;a &amp; &#39;b&#39; &quot;c&quot;&lt;/script&gt;"
        );
    }

    #[test]
    fn coords_are_fixed_and_never_negative_zero() {
        assert_eq!(coord(1.0), "1.00");
        assert_eq!(coord(-0.001), "0.00");
        assert_eq!(coord(f64::NAN), "0.00");
        assert_eq!(coord(12.345678), "12.35");
    }
}
