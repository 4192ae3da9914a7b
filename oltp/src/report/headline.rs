//! The headline over the comparison tables: what the run showed, in a few
//! lines a newcomer reads first. Per mode against its baseline and per
//! thread count: the client CPU per query change with its interval (what the
//! mode costs the client) and the QPS change, or that it stayed within the
//! noise; and, where column encryption lowers the server's CPU per query, why.

use std::fmt::Write as _;

use encbench_common::compare::{self, Comparison, Verdict};

use super::summary::MetricComparison;
use encbench_common::number::count;

/// The workloads whose range queries sort (`ORDER BY c`) and deduplicate
/// (`DISTINCT c`) the `c` column: with `c` encrypted, oltp reads the range
/// and sorts it in the client (see `crate::workload`), so the server's work
/// per query drops.
const SORTING_WORKLOADS: [&str; 2] = ["oltp_read_only", "oltp_read_write"];

/// `+45.2% (+40.1% to +50.3%)`: the median change of the paired rounds and its
/// interval (its coverage is named once, in the headline's first line);
/// `None` with 1 round.
pub fn change_with_interval(c: &Comparison) -> Option<String> {
    let (lo, hi) = c.ci95_low_pct.zip(c.ci95_high_pct)?;
    Some(format!(
        "{:+.1}% ({lo:+.1}% to {hi:+.1}%)",
        c.median_change_pct
    ))
}

/// QPS in the headline: `QPS -7.1% (-9.0% to -5.2%)` for a change clear of 0
/// and of the noise floor, `QPS +2.8%, within the noise floor` or `QPS +2.8%,
/// no difference detected` otherwise; the change and its interval alone when
/// the interval is too weak for a verdict (a line under them says so).
fn qps_phrase(c: &Comparison) -> Option<String> {
    let interval = change_with_interval(c)?;
    let m = c.median_change_pct;
    Some(match c.verdict {
        _ if c.too_weak_for_a_verdict() => format!("QPS {interval}"),
        Verdict::WithinNoiseFloor => format!("QPS {m:+.1}%, within the noise floor"),
        Verdict::NoDifference => format!("QPS {m:+.1}%, no difference detected"),
        _ => format!("QPS {interval}"),
    })
}

/// Whether the mode labelled `variant` encrypts columns: its label starts
/// with a `BACKEND:ALGORITHM` choice (`rustcrypto:aes-256-gcm + TLS`), where
/// TLS alone is `TLS` and an at-rest mode `at rest ...`
/// ([`super::summary::mode_label`]).
fn encrypts_columns(variant: &str) -> bool {
    variant
        .split(' ')
        .next()
        .is_some_and(|first| first.contains(':'))
}

/// The headline (a few lines, each under 100 columns, ending in a newline):
/// per mode against its baseline, its rounds and the intervals' coverage,
/// then per thread count the client CPU per query change and the QPS change
/// (`qps_phrase`); with intervals under 80% coverage, a line saying that
/// no verdict is given and how many rounds give one; where column encryption
/// lowers the server's CPU per query (clear of the noise floor) on a workload
/// with ORDER BY/DISTINCT ranges, one line saying why. Empty when no
/// comparison has an interval (1 round: nothing to headline).
pub fn headline_text(rows: &[MetricComparison]) -> String {
    let mut s = String::new();
    for (baseline, variant) in super::summary::modes(rows) {
        let of = |metric: &'static str| pick(rows, baseline, variant, metric);
        let mut threads: Vec<u32> = of("client_cpu_us_per_query")
            .chain(of("qps"))
            .map(|r| r.threads)
            .collect();
        threads.sort_unstable();
        threads.dedup();
        let Some(first) = of("qps").chain(of("client_cpu_us_per_query")).next() else {
            continue;
        };
        let coverage = first.comparison.confidence_pct.unwrap_or_default();
        let _ = writeln!(
            s,
            "\nHeadline: {variant} vs {baseline} ({}, {} intervals)",
            count(first.comparison.rounds as u64, "round", "rounds"),
            compare::confidence_text(coverage)
        );
        let labels: Vec<String> = threads
            .iter()
            .map(|&t| format!("{}:", count(u64::from(t), "thread", "threads")))
            .collect();
        let width = labels.iter().map(String::len).max().unwrap_or(0);
        for (t, label) in threads.iter().zip(&labels) {
            let at = |metric: &'static str| of(metric).find(|r| r.threads == *t);
            let mut parts = Vec::new();
            if let Some(cpu) =
                at("client_cpu_us_per_query").and_then(|r| change_with_interval(&r.comparison))
            {
                parts.push(format!("client CPU per query {cpu}"));
            }
            if let Some(qps) = at("qps").and_then(|r| qps_phrase(&r.comparison)) {
                parts.push(qps);
            }
            let _ = writeln!(s, "  {label:<width$} {}", parts.join("; "));
        }
        if first.comparison.too_weak_for_a_verdict() {
            let five = compare::order_statistic(5).map_or(0.0, |(_, c)| c * 100.0);
            let _ = writeln!(
                s,
                "  No verdicts: {} intervals miss too often (under {}); --repeat 5 gives {}.",
                compare::confidence_text(coverage),
                compare::confidence_text(compare::MIN_VERDICT_CONFIDENCE * 100.0),
                compare::confidence_text(five)
            );
        }
        let server_drops = encrypts_columns(variant)
            && of("server_cpu_us_per_query").any(|r| {
                SORTING_WORKLOADS.contains(&r.workload.as_str())
                    && r.comparison.verdict == Verdict::Lower
                    && !r.comparison.too_weak_for_a_verdict()
            });
        if server_drops {
            let _ = writeln!(
                s,
                "  Server CPU per query is lower with encryption: ORDER BY/DISTINCT on encrypted columns\n  run in the client, not the server."
            );
        }
    }
    s
}

/// The comparisons of `metric` for `variant` against `baseline` that have an
/// interval (more than 1 round).
fn pick<'a>(
    rows: &'a [MetricComparison],
    baseline: &'a str,
    variant: &'a str,
    metric: &'static str,
) -> impl Iterator<Item = &'a MetricComparison> + 'a {
    rows.iter().filter(move |r| {
        r.comparison.metric == metric
            && r.comparison.baseline == baseline
            && r.comparison.variant == variant
            && r.comparison.confidence_pct.is_some()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `metric` of `variant` against `none` at `threads`: `median` with the
    /// interval `lo..hi` of `rounds` rounds (their min..max coverage).
    fn cmp(
        metric: &str,
        variant: &str,
        threads: u32,
        rounds: usize,
        (median, lo, hi): (f64, f64, f64),
        floor: Option<(f64, f64)>,
    ) -> MetricComparison {
        let coverage = compare::order_statistic(rounds).map(|(_, c)| c * 100.0);
        MetricComparison {
            workload: "oltp_read_only".into(),
            threads,
            comparison: Comparison {
                metric: metric.into(),
                baseline: "none".into(),
                variant: variant.into(),
                rounds,
                baseline_median: 100.0,
                variant_median: 100.0 * (1.0 + median / 100.0),
                median_change_pct: median,
                ci95_low_pct: coverage.map(|_| lo),
                ci95_high_pct: coverage.map(|_| hi),
                confidence_pct: coverage,
                verdict: compare::verdict(coverage.map(|_| (lo, hi)), floor),
            },
        }
    }

    const AEAD: &str = "rustcrypto:aes-256-gcm";

    /// The quickstart's grid: 5 rounds, 1 and 8 threads, with the server's CPU.
    fn quickstart(rounds: usize) -> Vec<MetricComparison> {
        let floor = Some((-4.0, 5.0));
        vec![
            cmp("qps", AEAD, 1, rounds, (2.8, 1.0, 9.0), floor),
            cmp(
                "client_cpu_us_per_query",
                AEAD,
                1,
                rounds,
                (45.2, 40.1, 50.3),
                floor,
            ),
            cmp(
                "server_cpu_us_per_query",
                AEAD,
                1,
                rounds,
                (-20.0, -30.0, -12.0),
                floor,
            ),
            cmp(
                "qps",
                AEAD,
                8,
                rounds,
                (-7.1, -9.0, -5.2),
                Some((-4.0, 4.0)),
            ),
            cmp(
                "client_cpu_us_per_query",
                AEAD,
                8,
                rounds,
                (38.0, 30.1, 44.0),
                floor,
            ),
            cmp(
                "server_cpu_us_per_query",
                AEAD,
                8,
                rounds,
                (-1.0, -3.0, 2.0),
                floor,
            ),
        ]
    }

    #[test]
    fn the_headline_gives_client_cpu_and_qps_per_thread_count_and_why_the_server_does_less() {
        let text = headline_text(&quickstart(5));
        assert_eq!(
            text.lines().collect::<Vec<_>>(),
            [
                "",
                "Headline: rustcrypto:aes-256-gcm vs none (5 rounds, 93.75% intervals)",
                "  1 thread:  client CPU per query +45.2% (+40.1% to +50.3%); QPS +2.8%, within the noise floor",
                "  8 threads: client CPU per query +38.0% (+30.1% to +44.0%); QPS -7.1% (-9.0% to -5.2%)",
                "  Server CPU per query is lower with encryption: ORDER BY/DISTINCT on encrypted columns",
                "  run in the client, not the server.",
            ],
            "{text}"
        );
    }

    #[test]
    fn a_weak_headline_says_no_verdict_and_how_many_rounds_give_one() {
        let text = headline_text(&quickstart(2));
        assert!(
            text.contains("\nHeadline: rustcrypto:aes-256-gcm vs none (2 rounds, 50% intervals)\n"),
            "{text}"
        );
        assert!(text.contains("; QPS -7.1% (-9.0% to -5.2%)\n"), "{text}");
        assert!(
            text.contains(
                "\n  No verdicts: 50% intervals miss too often (under 80%); --repeat 5 gives 93.75%.\n"
            ),
            "{text}"
        );
        assert!(!text.contains("within the noise floor"), "{text}");
        assert!(
            !text.contains("Server CPU"),
            "no claim from a weak interval: {text}"
        );
    }

    #[test]
    fn one_round_has_no_headline_and_tls_alone_no_server_line() {
        assert_eq!(headline_text(&quickstart(1)), "");
        let tls: Vec<MetricComparison> = quickstart(5)
            .into_iter()
            .map(|mut c| {
                c.comparison.variant = "TLS".into();
                c
            })
            .collect();
        let text = headline_text(&tls);
        assert!(text.contains("\nHeadline: TLS vs none (5 rounds"), "{text}");
        assert!(!text.contains("Server CPU"), "{text}");
        assert!(encrypts_columns("openssl:aes-256-gcm + TLS"));
        assert!(!encrypts_columns("at rest gocryptfs"));
    }
}
