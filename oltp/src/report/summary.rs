//! Statistics over runs: the [`RunKey`] that says which runs are the same
//! combination of the grid, the [`summary`] of each combination over its
//! `--repeat` rounds ([`Spread`]: median, min, max), and the [`comparison`] of
//! every mode with the baseline: medians only ([`comparison`], the old
//! `comparison` array), and per metric over paired rounds with an interval
//! and a verdict ([`comparisons`], with the A/A [`noise_floors`] of
//! `--control`; the method is [`encbench_common::compare`]'s). `--control`
//! runs are left out of the summary and of the medians.

use encbench_common::compare::{self, Better, Comparison};
use serde::Serialize;

use super::model::RunResult;

/// Which combination of the grid a run is: what `--repeat` rounds share, what
/// the [`summary`] groups by, and (with the round) what `oltp merge` matches
/// across clients.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RunKey {
    /// Workload name, e.g. `oltp_read_only`.
    pub workload: String,
    /// Worker threads (= connections) of the run.
    pub threads: u32,
    /// Column encryption: `none` or `BACKEND:ALGORITHM`.
    pub encrypt: String,
    /// The encrypted columns (e.g. `k (deterministic), c, pad`); empty for plaintext.
    pub encrypted_columns: String,
    /// Whether the connections used TLS.
    pub tls: bool,
    /// The at-rest mechanism (`gocryptfs`, `fuse-passthrough`, ...); empty when off.
    pub at_rest: String,
}

impl RunKey {
    /// The key of `run`.
    pub fn of(run: &RunResult) -> RunKey {
        let s = &run.settings;
        RunKey {
            workload: s.workload.clone(),
            threads: s.threads,
            encrypt: s.encrypt.clone(),
            encrypted_columns: s.encrypted_columns.clone(),
            tls: s.tls.is_some(),
            at_rest: s
                .at_rest
                .as_ref()
                .map(|a| a.mechanism.clone())
                .unwrap_or_default(),
        }
    }

    /// The mode as one label (see [`mode_label`]).
    pub fn mode(&self) -> String {
        mode_label(
            &self.encrypt,
            &self.encrypted_columns,
            self.tls,
            &self.at_rest,
        )
    }
}

impl std::fmt::Display for RunKey {
    /// e.g. `oltp_read_only at 8 threads, rustcrypto:aes-256-gcm + TLS` (`at
    /// 1 thread`).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} at {}, {}",
            self.workload,
            encbench_common::number::count(u64::from(self.threads), "thread", "threads"),
            self.mode()
        )
    }
}

/// Median, smallest and largest of one figure over the rounds of `--repeat`.
#[derive(Clone, Copy, Debug, Serialize, PartialEq)]
pub struct Spread {
    /// Median (the mean of the two middle values for an even count).
    pub median: f64,
    /// Smallest.
    pub min: f64,
    /// Largest.
    pub max: f64,
}

impl Spread {
    /// The spread of `xs` (zeros when empty).
    pub fn of(mut xs: Vec<f64>) -> Spread {
        if xs.is_empty() {
            return Spread {
                median: 0.0,
                min: 0.0,
                max: 0.0,
            };
        }
        xs.sort_by(f64::total_cmp);
        let n = xs.len();
        let median = if n % 2 == 1 {
            xs[n / 2]
        } else {
            (xs[n / 2 - 1] + xs[n / 2]) / 2.0
        };
        Spread {
            median,
            min: xs[0],
            max: xs[n - 1],
        }
    }
}

/// One combination of the grid (a [`RunKey`]) over its `--repeat` rounds.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct SummaryRow {
    /// Workload.
    pub workload: String,
    /// Threads.
    pub threads: u32,
    /// Column encryption: `none` or `BACKEND:ALGORITHM`.
    pub encrypt: String,
    /// The encrypted columns (e.g. `k (deterministic), c, pad`); empty for plaintext.
    pub encrypted_columns: String,
    /// Whether the connections used TLS.
    pub tls: bool,
    /// The at-rest mechanism; empty when off.
    pub at_rest: String,
    /// The mode as one label, e.g. `none`, `openssl:aes-256-gcm + TLS`,
    /// `rustcrypto:aes-256-siv [k (deterministic), c, pad]` (the columns are
    /// named when they are not the default `c, pad`).
    pub mode: String,
    /// Complete runs summarised.
    pub runs: usize,
    /// Queries per second.
    pub qps: Spread,
    /// Transactions per second.
    pub tps: Spread,
    /// Average event latency (RT), ms.
    pub rt_ms: Spread,
    /// 95th percentile event latency, ms.
    pub p95_ms: Spread,
    /// Client CPU per query, µs.
    pub cpu_us_per_query: Spread,
    /// Server CPU per query, µs, over the runs that measured it; `null`
    /// when none did (see the runs' `server_cpu_unavailable`).
    pub server_cpu_us_per_query: Option<Spread>,
    /// Client + server CPU per query, µs; `null` as `server_cpu_us_per_query`.
    pub total_cpu_us_per_query: Option<Spread>,
}

/// The label of a mode: the encryption choice (with its columns unless they
/// are the default `c, pad`), `+ TLS`, `+ at rest MECHANISM` (`at_rest`: the
/// mechanism, empty when off).
pub fn mode_label(encrypt: &str, columns: &str, tls: bool, at_rest: &str) -> String {
    let mut parts = Vec::new();
    if encrypt != "none" || (!tls && at_rest.is_empty()) {
        if columns.is_empty() || columns == "c, pad" || encrypt == "none" {
            parts.push(encrypt.to_string());
        } else {
            parts.push(format!("{encrypt} [{columns}]"));
        }
    }
    if tls {
        parts.push("TLS".to_string());
    }
    if !at_rest.is_empty() {
        parts.push(format!("at rest {at_rest}"));
    }
    parts.join(" + ")
}

/// Groups complete runs by [`RunKey`], in first-run order, with medians and
/// min-max over the rounds.
pub fn summary(runs: &[RunResult]) -> Vec<SummaryRow> {
    let mut keys: Vec<RunKey> = Vec::new();
    for r in runs.iter().filter(|r| r.complete && !r.control) {
        let k = RunKey::of(r);
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    keys.into_iter()
        .map(|k| {
            let group: Vec<&RunResult> = runs
                .iter()
                .filter(|r| r.complete && !r.control && RunKey::of(r) == k)
                .collect();
            let spread =
                |f: &dyn Fn(&RunResult) -> f64| Spread::of(group.iter().map(|r| f(r)).collect());
            let some = |f: &dyn Fn(&RunResult) -> Option<f64>| {
                let xs: Vec<f64> = group.iter().filter_map(|r| f(r)).collect();
                (!xs.is_empty()).then(|| Spread::of(xs))
            };
            SummaryRow {
                mode: k.mode(),
                runs: group.len(),
                qps: spread(&|r| r.qps),
                tps: spread(&|r| r.tps),
                rt_ms: spread(&|r| r.latency_ms.avg),
                p95_ms: spread(&|r| r.latency_ms.p95),
                cpu_us_per_query: spread(&|r| r.client_cpu_us_per_query),
                server_cpu_us_per_query: some(&|r| r.server_cpu_us_per_query),
                total_cpu_us_per_query: some(&|r| r.total_cpu_us_per_query),
                workload: k.workload,
                threads: k.threads,
                encrypt: k.encrypt,
                encrypted_columns: k.encrypted_columns,
                tls: k.tls,
                at_rest: k.at_rest,
            }
        })
        .collect()
}

/// One row of the comparison table (seed 000's layout): a thread count, a
/// baseline ([`baselines`]: plaintext, no TLS) vs one other mode, medians over the
/// rounds.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ComparisonRow {
    /// Workload.
    pub workload: String,
    /// The baseline's label, e.g. `none`, `at rest fuse-passthrough`.
    pub baseline: String,
    /// The mode compared with the baseline, e.g. `openssl:aes-256-gcm + TLS`.
    pub mode: String,
    /// Its column encryption choice.
    pub encrypt: String,
    /// Its encrypted columns (e.g. `k (deterministic), c, pad`).
    pub encrypted_columns: String,
    /// Whether it used TLS.
    pub tls: bool,
    /// Threads.
    pub threads: u32,
    /// Baseline QPS (median).
    pub plaintext_qps: f64,
    /// The mode's QPS (median).
    pub ciphertext_qps: f64,
    /// Baseline RT (average event latency, median), ms.
    pub plaintext_rt_ms: f64,
    /// The mode's RT, ms.
    pub ciphertext_rt_ms: f64,
    /// (mode - baseline) / baseline QPS, percent (negative = slower).
    pub qps_diff_pct: f64,
    /// (mode - baseline) / baseline RT, percent (positive = slower).
    pub rt_diff_pct: f64,
    /// Client CPU per query, baseline, µs.
    pub plaintext_cpu_us_per_query: f64,
    /// Client CPU per query, the mode, µs.
    pub ciphertext_cpu_us_per_query: f64,
}

/// Pairs every mode with its baselines ([`baselines`]) of the same workload
/// and thread count.
pub fn comparison(runs: &[RunResult]) -> Vec<ComparisonRow> {
    let pct = |new: f64, old: f64| {
        if old > 0.0 {
            (new - old) / old * 100.0
        } else {
            0.0
        }
    };
    let sum = summary(runs);
    let mut rows = Vec::new();
    let mut pairs: Vec<(&SummaryRow, &SummaryRow)> = Vec::new();
    for m in &sum {
        for (tls, at_rest) in baselines(&m.encrypt, m.tls, &m.at_rest, |tls, at_rest| {
            plain_peer(&sum, m, tls, at_rest).is_some()
        }) {
            pairs.extend(plain_peer(&sum, m, tls, &at_rest).map(|base| (m, base)));
        }
    }
    for (m, base) in pairs {
        rows.push(ComparisonRow {
            workload: m.workload.clone(),
            baseline: base.mode.clone(),
            mode: m.mode.clone(),
            encrypt: m.encrypt.clone(),
            encrypted_columns: m.encrypted_columns.clone(),
            tls: m.tls,
            threads: m.threads,
            plaintext_qps: base.qps.median,
            ciphertext_qps: m.qps.median,
            plaintext_rt_ms: base.rt_ms.median,
            ciphertext_rt_ms: m.rt_ms.median,
            qps_diff_pct: pct(m.qps.median, base.qps.median),
            rt_diff_pct: pct(m.rt_ms.median, base.rt_ms.median),
            plaintext_cpu_us_per_query: base.cpu_us_per_query.median,
            ciphertext_cpu_us_per_query: m.cpu_us_per_query.median,
        });
    }
    rows
}

/// A figure of a run that the comparison compares.
#[derive(Clone, Copy, Debug)]
pub struct Metric {
    /// Its name in the JSON (`qps`, `tps`, `rt_ms`, `p95_ms`,
    /// `client_cpu_us_per_query`, `server_cpu_us_per_query`,
    /// `total_cpu_us_per_query`).
    pub name: &'static str,
    /// Its label in the text and Markdown tables, with the unit.
    pub label: &'static str,
    /// Which direction is the good one (for the verdict in words).
    pub better: Better,
    /// The figure of a run; `None` when the run did not measure it (server
    /// CPU of a server whose process was not readable): that round is left
    /// out of the pairs.
    pub of: fn(&RunResult) -> Option<f64>,
}

/// The metrics compared, in the order of the tables.
pub const METRICS: [Metric; 7] = [
    Metric {
        name: "qps",
        label: "QPS",
        better: Better::Higher,
        of: |r| Some(r.qps),
    },
    Metric {
        name: "tps",
        label: "TPS",
        better: Better::Higher,
        of: |r| Some(r.tps),
    },
    Metric {
        name: "rt_ms",
        label: "RT avg (ms)",
        better: Better::LowerLatency,
        of: |r| Some(r.latency_ms.avg),
    },
    Metric {
        name: "p95_ms",
        label: "p95 (ms)",
        better: Better::LowerLatency,
        of: |r| Some(r.latency_ms.p95),
    },
    Metric {
        name: "client_cpu_us_per_query",
        label: "client CPU us/query",
        better: Better::LowerCost,
        of: |r| Some(r.client_cpu_us_per_query),
    },
    Metric {
        name: "server_cpu_us_per_query",
        label: "server CPU us/query",
        better: Better::LowerCost,
        of: |r| r.server_cpu_us_per_query,
    },
    Metric {
        name: "total_cpu_us_per_query",
        label: "total CPU us/query",
        better: Better::LowerCost,
        of: |r| r.total_cpu_us_per_query,
    },
];

/// The [`Metric`] named `name`.
pub fn metric(name: &str) -> Option<&'static Metric> {
    METRICS.iter().find(|m| m.name == name)
}

/// The (baseline, variant) pairs of `rows`, each once, in the order they first
/// appear: one table and one headline block per mode.
pub fn modes(rows: &[MetricComparison]) -> Vec<(&str, &str)> {
    let mut modes: Vec<(&str, &str)> = Vec::new();
    for r in rows {
        let m = (
            r.comparison.baseline.as_str(),
            r.comparison.variant.as_str(),
        );
        if !modes.contains(&m) {
            modes.push(m);
        }
    }
    modes
}

/// One metric of one mode against one of its [`baselines`] (plaintext, no
/// TLS; or with its TLS when that one did not run) at one thread count, over the paired rounds: an entry of the JSON's
/// `comparisons` (and, baseline against its `--control` run, of `noise_floor`).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct MetricComparison {
    /// Workload.
    pub workload: String,
    /// Threads.
    pub threads: u32,
    /// `metric`, `baseline` and `variant` (mode labels), `rounds`,
    /// `baseline_median` and `variant_median` (the metric's unit),
    /// `median_change_pct`, `ci95_low_pct`, `ci95_high_pct` and
    /// `confidence_pct` (percent; `null` with 1 round), `verdict`.
    #[serde(flatten)]
    pub comparison: Comparison,
}

/// The baselines of the mode (`encrypt`, `tls`, `at_rest`), as (TLS,
/// at-rest mechanism) of a plaintext (`--encrypt none`) mode, among those
/// `ran` says ran beside it (same workload and thread count):
///
/// - column encryption and TLS: the plaintext mode without TLS at their own
///   at-rest mode (what encryption and TLS together cost); when that did not
///   run (`--tls on` alone), column encryption's baseline is the plaintext
///   mode with the same TLS setting (what column encryption costs over TLS);
/// - an at-rest mode's plaintext, TLS-off mode: its control and off
///   ([`crate::at_rest::AtRest::references`]);
/// - none for the baseline itself, nor where none of these ran
///   ([`no_baseline_text`] says which and what to add).
pub fn baselines(
    encrypt: &str,
    tls: bool,
    at_rest: &str,
    ran: impl Fn(bool, &str) -> bool,
) -> Vec<(bool, String)> {
    reference_at_rest(encrypt, tls, at_rest)
        .into_iter()
        .filter_map(|r| {
            if ran(false, &r) {
                Some((false, r))
            } else if encrypt != "none" && tls && ran(true, &r) {
                Some((true, r))
            } else {
                None
            }
        })
        .collect()
}

/// One line naming the modes of `rows` that have no baseline to compare with
/// ([`baselines`]: no comparison is made for them) and what to add to the
/// grid; `None` when every mode that has one ran beside it.
pub fn no_baseline_text(rows: &[SummaryRow]) -> Option<String> {
    let mut modes: Vec<&str> = Vec::new();
    let mut fixes: Vec<&str> = Vec::new();
    for m in rows {
        let wanted = reference_at_rest(&m.encrypt, m.tls, &m.at_rest);
        let found = baselines(&m.encrypt, m.tls, &m.at_rest, |tls, at_rest| {
            plain_peer(rows, m, tls, at_rest).is_some()
        });
        if wanted.is_empty() || !found.is_empty() {
            continue;
        }
        if !modes.contains(&m.mode.as_str()) {
            modes.push(&m.mode);
        }
        let fix = if m.encrypt != "none" {
            "none to --encrypt"
        } else if m.tls {
            "off to --tls"
        } else {
            "off or the mode's control to --at-rest"
        };
        if !fixes.contains(&fix) {
            fixes.push(fix);
        }
    }
    (!modes.is_empty()).then(|| {
        format!(
            "No comparison for {}: no plaintext baseline ran beside it (--encrypt none with --tls off, or with the same --tls for column encryption); add {} to compare",
            modes.join(", "),
            fixes.join(" and ")
        )
    })
}

/// What [`plain_peer`] matches on, of a [`SummaryRow`] or a [`RunKey`]: (workload,
/// threads, encrypt, tls, at-rest mechanism).
trait GridPoint {
    fn point(&self) -> (&str, u32, &str, bool, &str);
}

impl GridPoint for SummaryRow {
    fn point(&self) -> (&str, u32, &str, bool, &str) {
        (
            &self.workload,
            self.threads,
            &self.encrypt,
            self.tls,
            &self.at_rest,
        )
    }
}

impl GridPoint for RunKey {
    fn point(&self) -> (&str, u32, &str, bool, &str) {
        (
            &self.workload,
            self.threads,
            &self.encrypt,
            self.tls,
            &self.at_rest,
        )
    }
}

/// The plaintext (`--encrypt none`) row among `rows` that ran beside `m` (same
/// workload and thread count) with TLS `tls` and at-rest mechanism `at_rest`:
/// the one definition of a mode's baseline, for the summary's rows and the
/// runs' keys.
fn plain_peer<'a, T: GridPoint>(
    rows: &'a [T],
    m: &impl GridPoint,
    tls: bool,
    at_rest: &str,
) -> Option<&'a T> {
    let (workload, threads, ..) = m.point();
    rows.iter()
        .find(|p| p.point() == (workload, threads, "none", tls, at_rest))
}

/// The at-rest mechanisms (empty: off) of the baselines a mode is compared
/// with: column encryption and TLS with the baseline of their own at-rest
/// mode; an at-rest mode with its control and off
/// ([`crate::at_rest::AtRest::references`]); nothing for the baseline itself.
fn reference_at_rest(encrypt: &str, tls: bool, at_rest: &str) -> Vec<String> {
    if encrypt != "none" || tls {
        return vec![at_rest.to_string()];
    }
    crate::at_rest::AtRest::from_name(at_rest)
        .map(|m| m.references())
        .unwrap_or_default()
        .into_iter()
        .map(|r| match r {
            crate::at_rest::AtRest::Off => String::new(),
            r => r.name().to_string(),
        })
        .collect()
}

/// (A_r, B_r) of `metric` for every round both complete runs have and
/// both measured the metric in.
fn paired(a: &[&RunResult], b: &[&RunResult], metric: &Metric) -> Vec<(f64, f64)> {
    a.iter()
        .filter_map(|x| {
            let y = b.iter().find(|y| y.round == x.round)?;
            (metric.of)(x).zip((metric.of)(y))
        })
        .collect()
}

/// Complete runs of `key`, the `--control` runs or the others.
fn runs_of<'a>(runs: &'a [RunResult], key: &RunKey, control: bool) -> Vec<&'a RunResult> {
    runs.iter()
        .filter(|r| r.complete && r.control == control && RunKey::of(r) == *key)
        .collect()
}

/// The noise floor of every metric at every thread count that has
/// `--control` runs: the baseline's run A' against its run A of the same
/// round ([`compare::noise_floor`]).
pub fn noise_floors(runs: &[RunResult]) -> Vec<MetricComparison> {
    let mut keys: Vec<RunKey> = Vec::new();
    for r in runs.iter().filter(|r| r.complete && r.control) {
        let k = RunKey::of(r);
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    let mut out = Vec::new();
    for k in keys {
        let (a, a2) = (runs_of(runs, &k, false), runs_of(runs, &k, true));
        for m in &METRICS {
            if let Some(c) = compare::noise_floor(m.name, &k.mode(), &paired(&a, &a2, m)) {
                out.push(MetricComparison {
                    workload: k.workload.clone(),
                    threads: k.threads,
                    comparison: c,
                });
            }
        }
    }
    out
}

/// Every mode against its baselines ([`baselines`]) of the same workload and
/// thread count, metric by metric ([`METRICS`]), round r with round r
/// ([`compare::compare`]); `floors` ([`noise_floors`]) turn an effect that
/// overlaps the machine's own A/A difference into "within noise floor".
pub fn comparisons(runs: &[RunResult], floors: &[MetricComparison]) -> Vec<MetricComparison> {
    let mut keys: Vec<RunKey> = Vec::new();
    for r in runs.iter().filter(|r| r.complete && !r.control) {
        let k = RunKey::of(r);
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    let mut out = Vec::new();
    for k in &keys {
        let plain = |tls: bool, at_rest: &str| plain_peer(&keys, k, tls, at_rest);
        let refs = baselines(&k.encrypt, k.tls, &k.at_rest, |tls, at_rest| {
            plain(tls, at_rest).is_some()
        });
        for base in refs
            .iter()
            .filter_map(|(tls, at_rest)| plain(*tls, at_rest))
        {
            let (a, b) = (runs_of(runs, base, false), runs_of(runs, k, false));
            for m in &METRICS {
                let floor = floors
                    .iter()
                    .find(|f| {
                        f.workload == k.workload
                            && f.threads == k.threads
                            && f.comparison.metric == m.name
                    })
                    .map(|f| &f.comparison);
                if let Some(c) =
                    compare::compare(m.name, &base.mode(), &k.mode(), &paired(&a, &b, m), floor)
                {
                    out.push(MetricComparison {
                        workload: k.workload.clone(),
                        threads: k.threads,
                        comparison: c,
                    });
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod compare_tests {
    use super::*;
    use crate::report::model::fixtures::{run, settings};

    /// Round r of `encrypt` at 1 thread with `fast` 1 ms events (and no slow ones).
    fn round(encrypt: &str, r: u32, fast: u64, control: bool) -> RunResult {
        let mut x = run(settings(1, encrypt), fast, 0);
        x.round = r;
        x.control = control;
        x
    }

    /// `round` over TLS.
    fn tls_round(encrypt: &str, r: u32, fast: u64) -> RunResult {
        let mut x = round(encrypt, r, fast, false);
        x.settings.tls = Some(crate::report::model::TlsInfo {
            version: "TLSv1.3".to_string(),
            cipher: "TLS_AES_256_GCM_SHA384".to_string(),
            mode: Default::default(),
        });
        x
    }

    #[test]
    fn a_grid_over_tls_alone_compares_with_plaintext_over_tls() {
        let aead = "openssl:aes-256-gcm";
        let runs: Vec<RunResult> = (1..=3)
            .flat_map(|r| [tls_round("none", r, 100), tls_round(aead, r, 90)])
            .collect();
        let cmp = comparisons(&runs, &[]);
        assert_eq!(cmp.len(), METRICS.len());
        let qps = &cmp[0].comparison;
        assert_eq!(
            (qps.baseline.as_str(), qps.variant.as_str()),
            ("TLS", "openssl:aes-256-gcm + TLS")
        );
        assert!((qps.median_change_pct + 10.0).abs() < 1e-9, "{qps:?}");
        let rows = comparison(&runs);
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].baseline, "TLS");
        // Only plaintext over TLS lacks one (what TLS costs needs --tls off too).
        assert_eq!(
            no_baseline_text(&summary(&runs)).as_deref(),
            Some(
                "No comparison for TLS: no plaintext baseline ran beside it (--encrypt none with --tls off, or with the same --tls for column encryption); add off to --tls to compare"
            )
        );
        // With the TLS-off plaintext cell, it stays the baseline of both.
        let mut full = runs.clone();
        full.extend((1..=3).map(|r| round("none", r, 120, false)));
        let cmp = comparisons(&full, &[]);
        assert!(
            cmp.iter().all(|c| c.comparison.baseline == "none"),
            "{cmp:?}"
        );
        assert_eq!(cmp.len(), 2 * METRICS.len());
    }

    #[test]
    fn a_mode_without_a_baseline_says_what_to_add() {
        let aead = "openssl:aes-256-gcm";
        let runs: Vec<RunResult> = (1..=3).map(|r| tls_round(aead, r, 90)).collect();
        assert!(comparisons(&runs, &[]).is_empty());
        assert_eq!(
            no_baseline_text(&summary(&runs)).as_deref(),
            Some(
                "No comparison for openssl:aes-256-gcm + TLS: no plaintext baseline ran beside it (--encrypt none with --tls off, or with the same --tls for column encryption); add none to --encrypt to compare"
            )
        );
        let runs: Vec<RunResult> = (1..=3).map(|r| tls_round("none", r, 90)).collect();
        assert!(
            no_baseline_text(&summary(&runs))
                .is_some_and(|l| l.ends_with("add off to --tls to compare"))
        );
        // The plaintext cell alone is nobody's variant: nothing to say.
        let runs: Vec<RunResult> = (1..=3).map(|r| round("none", r, 90, false)).collect();
        assert_eq!(no_baseline_text(&summary(&runs)), None);
    }

    #[test]
    fn a_run_key_names_one_thread_in_the_singular() {
        let k = RunKey::of(&round("none", 1, 10, false));
        assert_eq!(k.to_string(), "oltp_read_only at 1 thread, none");
    }

    #[test]
    fn comparisons_pair_rounds_and_leave_control_runs_out_of_the_summary() {
        let aead = "rustcrypto:aes-256-gcm";
        let mut runs = Vec::new();
        for (r, (a, b, a2)) in [(100, 90, 101), (200, 180, 198), (150, 135, 150)]
            .into_iter()
            .enumerate()
        {
            let r = r as u32 + 1;
            runs.extend([
                round("none", r, a, false),
                round(aead, r, b, false),
                round("none", r, a2, true),
            ]);
        }
        let sum = summary(&runs);
        assert_eq!(sum.len(), 2);
        assert!(sum.iter().all(|s| s.runs == 3));
        let floors = noise_floors(&runs);
        assert_eq!(floors.len(), METRICS.len());
        let cmp = comparisons(&runs, &floors);
        assert_eq!(cmp.len(), METRICS.len());
        let qps = &cmp[0].comparison;
        assert_eq!((qps.metric.as_str(), qps.rounds), ("qps", 3));
        assert_eq!(
            (qps.baseline.as_str(), qps.variant.as_str()),
            ("none", aead)
        );
        // Every round is exactly 10% slower: paired, the drift between rounds vanishes.
        assert!((qps.median_change_pct + 10.0).abs() < 1e-9, "{qps:?}");
        assert_eq!(qps.confidence_pct, Some(75.0));
        // The floor is -1% .. +1%, clear of -10%.
        assert_eq!(qps.verdict, compare::Verdict::Lower);
        assert_eq!(floors[0].comparison.variant, "none (A/A control)");
        // One round: no interval.
        let one = comparisons(&runs[..2], &[]);
        assert!(
            one.iter()
                .all(|c| c.comparison.verdict == compare::Verdict::OneRound
                    && c.comparison.ci95_low_pct.is_none())
        );
    }
}
