//! Numbers as the reports print them: digits grouped by thousands with commas,
//! as the source reports do (`108,128` QPS, `12,345.68` in sysbench's style),
//! and counts with the noun that agrees with them.

/// `x` with `decimals` decimals and its integer part grouped by thousands:
/// `thousands(1234567.891, 2)` is `1,234,567.89`, `thousands(-1234.5, 0)` is
/// `-1,234` (rounded half to even, as `format!` does), and a value that rounds
/// to zero has no sign (`0`, never `-0`). Not a number or infinite: `-`.
pub fn thousands(x: f64, decimals: usize) -> String {
    if !x.is_finite() {
        return "-".to_string();
    }
    let s = format!("{:.*}", decimals, x.abs());
    let (int, frac) = s
        .split_once('.')
        .map_or((s.as_str(), None), |(i, f)| (i, Some(f)));
    let zero = s.bytes().all(|b| b == b'0' || b == b'.');
    let mut out = String::with_capacity(s.len() + s.len() / 3 + 1);
    if x < 0.0 && !zero {
        out.push('-');
    }
    for (i, ch) in int.chars().enumerate() {
        if i > 0 && (int.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(ch);
    }
    if let Some(f) = frac {
        out.push('.');
        out.push_str(f);
    }
    out
}

/// `n` and the noun that agrees with it: `1 table`, `2 tables`.
pub fn count(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

#[cfg(test)]
mod tests {
    use super::{count, thousands};

    #[test]
    fn the_noun_agrees_with_the_count() {
        assert_eq!(count(1, "table", "tables"), "1 table");
        assert_eq!(count(0, "table", "tables"), "0 tables");
        assert_eq!(count(2, "thread", "threads"), "2 threads");
    }

    #[test]
    fn groups_the_integer_part_only() {
        assert_eq!(thousands(12345.678, 2), "12,345.68");
        assert_eq!(thousands(1234567.0, 0), "1,234,567");
        assert_eq!(thousands(999.0, 0), "999");
        assert_eq!(thousands(1000.0, 0), "1,000");
        assert_eq!(thousands(0.25, 2), "0.25");
        assert_eq!(thousands(-1234.5, 1), "-1,234.5");
        assert_eq!(thousands(100_000.0, 0), "100,000");
    }

    #[test]
    fn zero_has_no_sign_and_non_numbers_are_a_dash() {
        assert_eq!(thousands(-0.0, 0), "0");
        assert_eq!(thousands(-0.001, 2), "0.00");
        assert_eq!(thousands(f64::NAN, 0), "-");
        assert_eq!(thousands(f64::INFINITY, 2), "-");
    }
}
