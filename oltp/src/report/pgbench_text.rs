//! Text: a run of a pgbench workload in pgbench 15's final-report layout
//! (`printResults` of `src/bin/pgbench/pgbench.c`), with oltp's own lines
//! (encryption, TLS and its level, engine, CPU, and `INCOMPLETE RUN:` for a
//! run that stopped early) after it; and the `--report-interval` line in the
//! layout of pgbench 15's `-P` (`printProgressReport`).

use std::fmt::Write as _;

use super::model::{RunResult, histogram_from_hex};
use crate::measure::{IntervalLatency, LiveCounts};

impl RunResult {
    /// The run as pgbench 15 reports it: transaction type, scaling factor,
    /// query mode, clients, threads, duration and transactions processed (by
    /// count, pgbench's `-t`: transactions per client and processed of
    /// expected, no duration), failed transactions, with `--latency-limit` the skipped (under `--rate`) and late
    /// ones, latency average and stddev (ms), initial connection time and
    /// tps without it; then what pgbench does not print (encryption, TLS,
    /// and its level, server, client and server CPU per transaction), and
    /// for a run that stopped early the `INCOMPLETE RUN:` lines of sysbench's
    /// layout (its duration line, or by count its processed line, then says
    /// so). A result without pgbench settings
    /// gets the lines it has.
    pub fn to_pgbench_text(&self) -> String {
        let mut s = String::new();
        self.pgbench_run_text(&mut s);
        self.pgbench_failures_text(&mut s);
        self.pgbench_latency_text(&mut s);
        self.oltp_lines_text(&mut s);
        s.push_str(&self.incomplete_text());
        s
    }

    /// pgbench's lines from `transaction type` to the transactions processed.
    fn pgbench_run_text(&self, s: &mut String) {
        let st = &self.settings;
        let pg = st.pgbench.as_ref();
        let script = pg.map_or(st.workload.as_str(), |p| p.script.as_str());
        let _ = writeln!(s, "transaction type: <builtin: {}>", builtin_title(script));
        if let Some(p) = pg {
            let _ = writeln!(s, "scaling factor: {}", p.scale);
            let _ = writeln!(s, "query mode: {}", p.query_mode);
        }
        let _ = writeln!(s, "number of clients: {}", st.threads);
        let _ = writeln!(s, "number of threads: {}", st.threads);
        let _ = writeln!(s, "maximum number of tries: 1");
        let stopped = if self.error.is_some() {
            " (stopped early: see INCOMPLETE RUN below)"
        } else {
            ""
        };
        match pg.and_then(|p| p.transactions_per_client) {
            // pgbench's -t: per client, and processed of clients x that.
            Some(n) => {
                let _ = writeln!(s, "number of transactions per client: {n}");
                let _ = writeln!(
                    s,
                    "number of transactions actually processed: {}/{}{stopped}",
                    self.transactions,
                    n * u64::from(st.threads)
                );
            }
            None => {
                // Whole seconds as pgbench's -T; a run that --events ended within a
                // second keeps its milliseconds (not "0 s").
                let secs = if self.time_s >= 1.0 {
                    format!("{:.0}", self.time_s)
                } else {
                    format!("{:.3}", self.time_s)
                };
                let _ = writeln!(s, "duration: {secs} s{stopped}");
                let _ = writeln!(
                    s,
                    "number of transactions actually processed: {}",
                    self.transactions
                );
            }
        }
    }

    /// pgbench's failed, and with `--latency-limit` skipped and late, transactions.
    fn pgbench_failures_text(&self, s: &mut String) {
        let st = &self.settings;
        let failed = self.errors + self.interrupted_events;
        let limit = self.latency_limit.as_ref();
        // pgbench's total_cnt: processed + skipped + failed.
        let tried = self.transactions + failed + limit.map_or(0, |l| l.skipped);
        let pct = |n: u64, of: u64| {
            if of == 0 {
                0.0
            } else {
                100.0 * n as f64 / of as f64
            }
        };
        let _ = writeln!(
            s,
            "number of failed transactions: {failed} ({:.3}%)",
            pct(failed, tried)
        );
        if let Some(l) = limit {
            if st.rate > 0.0 {
                let _ = writeln!(
                    s,
                    "number of transactions skipped: {} ({:.3}%)",
                    l.skipped,
                    pct(l.skipped, tried)
                );
            }
            let _ = writeln!(
                s,
                "number of transactions above the {:.1} ms latency limit: {}/{} ({:.3}%)",
                l.limit_ms,
                l.late,
                self.transactions,
                pct(l.late, self.transactions)
            );
        }
    }

    /// pgbench's latency, schedule lag, connection time and tps lines.
    fn pgbench_latency_text(&self, s: &mut String) {
        let st = &self.settings;
        let pg = st.pgbench.as_ref();
        let _ = writeln!(s, "latency average = {:.3} ms", self.latency_ms.avg);
        if let Some(sd) = latency_stddev_ms(self) {
            let _ = writeln!(s, "latency stddev = {sd:.3} ms");
        }
        if let Some(lag) = &self.schedule_lag_ms {
            let _ = writeln!(
                s,
                "rate limit schedule lag: avg {:.3} (max {:.3}) ms",
                lag.avg, lag.max
            );
        }
        if st.rate > 0.0 {
            let _ = writeln!(
                s,
                "rate limit schedule: {:.1} tps (latency from the scheduled start)",
                st.rate
            );
        }
        if let Some(p) = pg {
            let _ = writeln!(
                s,
                "initial connection time = {:.3} ms",
                p.initial_connection_ms
            );
        }
        let _ = writeln!(s, "tps = {:.6} (without initial connection time)", self.tps);
    }

    /// oltp's lines, which pgbench has no place for: encryption, TLS, server, CPU.
    fn oltp_lines_text(&self, s: &mut String) {
        let st = &self.settings;
        let _ = writeln!(
            s,
            "encrypt: {}{} | tls: {} | engine: {} {} | database: {}",
            st.encrypt,
            if st.encrypted_columns.is_empty() {
                String::new()
            } else {
                format!(" ({})", st.encrypted_columns)
            },
            st.tls.as_ref().map_or("off".to_string(), |t| format!(
                "{} {} ({})",
                t.version,
                t.cipher,
                t.mode.label(true)
            )),
            st.engine,
            st.server_version,
            st.database
        );
        let per_tx = |secs: f64| {
            if self.transactions == 0 {
                0.0
            } else {
                secs * 1e6 / self.transactions as f64
            }
        };
        let _ = write!(
            s,
            "client CPU: {:.3} s ({:.1} us per transaction)",
            self.client_cpu_s,
            per_tx(self.client_cpu_s)
        );
        match self.server_cpu_s {
            Some(cpu) => {
                let _ = writeln!(
                    s,
                    "; server CPU: {cpu:.3} s ({:.1} us per transaction)",
                    per_tx(cpu)
                );
            }
            None => s.push('\n'),
        }
    }
}

/// One `--report-interval` line of a pgbench workload, as pgbench 15's `-P`
/// prints it: `progress: 5.0 s, 1234.5 tps, lat 6.472 ms stddev 1.234, 0
/// failed`, with `--rate` (`open_loop`) `, lag 0.123 ms`, and with `--rate`
/// and `--latency-limit` (`limit`) `, 3 skipped`. `at_s` is the time since
/// the run's start, s; `secs` the interval's length, s; `before` and `now`
/// the live counters at its ends (failed: the ignored errors, which pgbench
/// counts as failed transactions; skipped: arrivals skipped, which are not
/// in the tps, as pgbench counts only executed transactions there); `lat`
/// its latencies.
pub fn progress_line(
    at_s: f64,
    secs: f64,
    before: &LiveCounts,
    now: &LiveCounts,
    lat: &IntervalLatency,
    open_loop: bool,
    limit: bool,
) -> String {
    let events = now.events.saturating_sub(before.events);
    let mut s = format!(
        "progress: {at_s:.1} s, {:.1} tps, lat {:.3} ms stddev {:.3}, {} failed",
        events as f64 / secs.max(1e-9),
        lat.avg_ms,
        lat.stddev_ms,
        now.errors.saturating_sub(before.errors)
    );
    if open_loop {
        let _ = write!(s, ", lag {:.3} ms", lat.lag_avg_ms);
        if limit {
            let _ = write!(
                s,
                ", {} skipped",
                now.skipped.saturating_sub(before.skipped)
            );
        }
    }
    s
}

/// pgbench's description of a built-in script (`builtin_script[].desc`).
fn builtin_title(script: &str) -> &str {
    match script {
        "tpcb-like" => "TPC-B (sort of)",
        "simple-update" => "simple update",
        "select-only" => "select only",
        other => other,
    }
}

/// The standard deviation of the event latency, ms, from the run's
/// HdrHistogram (ns); `None` when it does not decode or is empty.
fn latency_stddev_ms(r: &RunResult) -> Option<f64> {
    let h = histogram_from_hex(&r.latency_histogram).ok()?;
    (!h.is_empty()).then(|| h.stdev() * 1e-6)
}

#[cfg(test)]
mod tests {
    use super::progress_line;
    use crate::measure::{IntervalLatency, LiveCounts};
    use crate::report::LatencyLimit;
    use crate::report::model::fixtures::{run, select_only};

    #[test]
    fn pgbench_layout_has_pgbench_lines() {
        let st = select_only(8, 10, "prepared", 12.5);
        let text = run(st, 1000, 2000).to_text();
        for line in [
            "transaction type: <builtin: select only>",
            "scaling factor: 10",
            "query mode: prepared",
            "number of clients: 8",
            "number of threads: 8",
            "number of transactions actually processed: ",
            "latency average = ",
            "latency stddev = ",
            "initial connection time = 12.500 ms",
            " (without initial connection time)",
        ] {
            assert!(text.contains(line), "{line:?} missing in\n{text}");
        }
        assert!(!text.contains("INCOMPLETE"), "{text}");
        assert!(!text.contains("stopped early"), "{text}");
    }

    #[test]
    fn pgbench_layout_names_the_tls_level_and_an_incomplete_run() {
        let mut st = select_only(2, 1, "simple", 1.0);
        st.tls = Some(crate::report::model::TlsInfo {
            version: "TLSv1.3".into(),
            cipher: "TLS_AES_256_GCM_SHA384".into(),
            mode: crate::driver::TlsMode::VerifyCa,
        });
        let mut r = run(st, 10, 20);
        r.error = Some("interrupted (Ctrl-C or SIGTERM)".into());
        r.complete = false;
        let text = r.to_text();
        for line in [
            "tls: TLSv1.3 TLS_AES_256_GCM_SHA384 (verify-ca)",
            " s (stopped early: see INCOMPLETE RUN below)\n",
            "INCOMPLETE RUN: interrupted (Ctrl-C or SIGTERM)\n",
        ] {
            assert!(text.contains(line), "{line:?} missing in\n{text}");
        }
    }

    #[test]
    fn a_run_by_count_prints_pgbench_15s_t_lines() {
        let mut st = select_only(2, 1, "prepared", 1.0);
        if let Some(p) = st.pgbench.as_mut() {
            p.transactions_per_client = Some(150);
        }
        // 2 threads x (140 + 10) transactions.
        let text = run(st.clone(), 140, 10).to_text();
        assert!(
            text.contains(
                "maximum number of tries: 1\nnumber of transactions per client: 150\nnumber of transactions actually processed: 300/300\nnumber of failed transactions: "
            ),
            "{text}"
        );
        assert!(!text.contains("duration:"), "{text}");
        let mut r = run(st, 50, 10);
        r.error = Some("interrupted (Ctrl-C or SIGTERM)".into());
        r.complete = false;
        let text = r.to_text();
        assert!(
            text.contains(
                "number of transactions actually processed: 120/300 (stopped early: see INCOMPLETE RUN below)\n"
            ),
            "{text}"
        );
    }

    #[test]
    fn latency_limit_lines_are_pgbench_15s() {
        let mut st = select_only(2, 1, "prepared", 1.0);
        // 2 threads x (90 + 10) transactions: 200 processed, 1 failed.
        let mut r = run(st.clone(), 90, 10);
        r.errors = 1;
        r.latency_limit = Some(LatencyLimit {
            limit_ms: 5.0,
            late: 20,
            skipped: 0,
        });
        let closed = r.to_text();
        assert!(
            closed.contains(
                "number of transactions above the 5.0 ms latency limit: 20/200 (10.000%)\nlatency average = "
            ),
            "{closed}"
        );
        assert!(!closed.contains("skipped"), "closed loop: {closed}");
        // Under --rate: skipped, its share of processed + skipped + failed.
        st.rate = 1000.0;
        let mut r = run(st, 90, 10);
        r.errors = 1;
        r.latency_limit = Some(LatencyLimit {
            limit_ms: 0.001,
            late: 200,
            skipped: 799,
        });
        let open = r.to_text();
        for line in [
            "number of failed transactions: 1 (0.100%)\nnumber of transactions skipped: 799 (79.900%)\n",
            "number of transactions above the 0.0 ms latency limit: 200/200 (100.000%)\n",
        ] {
            assert!(open.contains(line), "{line:?} missing in\n{open}");
        }
    }

    #[test]
    fn progress_line_is_pgbench_15s() {
        let before = LiveCounts {
            events: 100,
            errors: 1,
            ..LiveCounts::default()
        };
        let now = LiveCounts {
            events: 6272,
            errors: 3,
            skipped: 7,
            ..LiveCounts::default()
        };
        let lat = IntervalLatency {
            avg_ms: 6.4721,
            stddev_ms: 1.2344,
            p95_ms: 9.0,
            lag_avg_ms: 0.1234,
        };
        assert_eq!(
            progress_line(10.0, 5.0, &before, &now, &lat, false, false),
            "progress: 10.0 s, 1234.4 tps, lat 6.472 ms stddev 1.234, 2 failed"
        );
        assert_eq!(
            progress_line(10.0, 5.0, &before, &now, &lat, true, false),
            "progress: 10.0 s, 1234.4 tps, lat 6.472 ms stddev 1.234, 2 failed, lag 0.123 ms"
        );
        // pgbench prints skipped only with both -R and -L.
        assert_eq!(
            progress_line(10.0, 5.0, &before, &now, &lat, false, true),
            "progress: 10.0 s, 1234.4 tps, lat 6.472 ms stddev 1.234, 2 failed"
        );
        assert_eq!(
            progress_line(10.0, 5.0, &before, &now, &lat, true, true),
            "progress: 10.0 s, 1234.4 tps, lat 6.472 ms stddev 1.234, 2 failed, lag 0.123 ms, 7 skipped"
        );
    }
}
