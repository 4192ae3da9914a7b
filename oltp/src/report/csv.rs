//! CSV: one row per run with its settings and figures.

use super::Report;

impl Report {
    /// CSV: one row per run with its settings and figures (latencies in ms,
    /// CPU in µs per query; a figure not measured is an empty field), a
    /// header first. The data set is sysbench's `tables` and `table_size`,
    /// or pgbench's `scale` and `script` (the other pair empty). The header is the same for every run: the
    /// `--latency-limit` columns (`latency_limit_ms`, `latency_limit_late`,
    /// `latency_limit_skipped`, last, as in the JSON's `latency_limit`) are
    /// empty for a run without a limit.
    ///
    /// # Errors
    /// Writing failed.
    pub fn to_csv(&self) -> Result<String, ::csv::Error> {
        let mut w = ::csv::Writer::from_writer(Vec::new());
        w.write_record([
            "workload",
            "threads",
            "encrypt",
            "encrypted_columns",
            "tls",
            "tls_cipher",
            "at_rest",
            "round",
            "tables",
            "table_size",
            "scale",
            "script",
            "time_s",
            "transactions",
            "tps",
            "qps",
            "read",
            "write",
            "other",
            "errors",
            "reconnects",
            "lat_min_ms",
            "lat_avg_ms",
            "lat_p50_ms",
            "lat_p95_ms",
            "lat_p99_ms",
            "lat_max_ms",
            "client_cpu_s",
            "client_cpu_us_per_query",
            "server_version",
            "complete",
            "control",
            "decrypt_errors",
            "server_cpu_s",
            "server_cpu_us_per_query",
            "total_cpu_us_per_query",
            "server_cpu_unavailable",
            "measured_window_start",
            "measured_window_end",
            "engine",
            "at_rest_crypto_driver",
            "at_rest_control_of",
            "at_rest_verified_no_plaintext",
            "latency_limit_ms",
            "latency_limit_late",
            "latency_limit_skipped",
        ])?;
        for r in &self.runs {
            let l = &r.latency_ms;
            let at_rest = r.settings.at_rest.as_ref();
            let limit = r.latency_limit.as_ref();
            let pgbench = r.settings.pgbench.as_ref();
            w.write_record([
                r.settings.workload.clone(),
                r.settings.threads.to_string(),
                r.settings.encrypt.clone(),
                r.settings.encrypted_columns.clone(),
                r.settings.tls.is_some().to_string(),
                r.settings
                    .tls
                    .as_ref()
                    .map(|t| t.cipher.clone())
                    .unwrap_or_default(),
                r.settings
                    .at_rest
                    .as_ref()
                    .map_or("off".to_string(), |a| a.mechanism.clone()),
                r.round.to_string(),
                r.settings.tables.map(|n| n.to_string()).unwrap_or_default(),
                r.settings
                    .table_size
                    .map(|n| n.to_string())
                    .unwrap_or_default(),
                pgbench.map(|p| p.scale.to_string()).unwrap_or_default(),
                pgbench.map(|p| p.script.clone()).unwrap_or_default(),
                format!("{:.4}", r.time_s),
                r.transactions.to_string(),
                format!("{:.2}", r.tps),
                format!("{:.2}", r.qps),
                r.queries.read.to_string(),
                r.queries.write.to_string(),
                r.queries.other.to_string(),
                r.errors.to_string(),
                r.reconnects.to_string(),
                format!("{:.3}", l.min),
                format!("{:.3}", l.avg),
                format!("{:.3}", l.p50),
                format!("{:.3}", l.p95),
                format!("{:.3}", l.p99),
                format!("{:.3}", l.max),
                format!("{:.3}", r.client_cpu_s),
                format!("{:.1}", r.client_cpu_us_per_query),
                r.settings.server_version.clone(),
                r.complete.to_string(),
                r.control.to_string(),
                r.decrypt_errors.to_string(),
                opt(r.server_cpu_s, 3),
                opt(r.server_cpu_us_per_query, 1),
                opt(r.total_cpu_us_per_query, 1),
                r.server_cpu_unavailable.clone().unwrap_or_default(),
                rfc3339(r.measured_window.start),
                rfc3339(r.measured_window.end),
                r.settings.engine.clone(),
                at_rest.map(|a| a.crypto_driver.clone()).unwrap_or_default(),
                at_rest
                    .and_then(|a| a.control_of.clone())
                    .unwrap_or_default(),
                at_rest
                    .and_then(|a| a.verified_no_plaintext)
                    .map(|v| v.to_string())
                    .unwrap_or_default(),
                opt(limit.map(|l| l.limit_ms), 3),
                limit.map(|l| l.late.to_string()).unwrap_or_default(),
                limit.map(|l| l.skipped.to_string()).unwrap_or_default(),
            ])?;
        }
        let bytes = w.into_inner().map_err(|e| e.into_error())?;
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }
}

/// `x` with `decimals`, empty when not measured.
fn opt(x: Option<f64>, decimals: usize) -> String {
    x.map_or_else(String::new, |x| format!("{x:.decimals$}"))
}

/// `t` as RFC 3339 UTC (empty for a time outside 1970..=9999).
fn rfc3339(t: std::time::SystemTime) -> String {
    encbench_common::header::rfc3339(t).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use crate::report::model::fixtures::{run, select_only};
    use crate::report::{LatencyLimit, Report};

    /// The CSV of `runs`: its header and rows.
    fn parse(report: &Report) -> (Vec<String>, Vec<Vec<String>>) {
        let text = report.to_csv().expect("csv");
        let mut r = ::csv::Reader::from_reader(text.as_bytes());
        let header = r
            .headers()
            .expect("header")
            .iter()
            .map(String::from)
            .collect();
        let rows = r
            .records()
            .map(|row| row.expect("row").iter().map(String::from).collect())
            .collect();
        (header, rows)
    }

    #[test]
    fn latency_limit_columns_are_always_there_and_empty_without_a_limit() {
        let mut limited = run(select_only(2, 1, "prepared", 1.0), 90, 10);
        limited.latency_limit = Some(LatencyLimit {
            limit_ms: 5.0,
            late: 20,
            skipped: 3,
        });
        let plain = run(select_only(2, 1, "prepared", 1.0), 90, 10);
        let (header, rows) = parse(&Report::new(Report::begin(), vec![limited, plain]));
        let (alone, _) = parse(&Report::new(
            Report::begin(),
            vec![run(select_only(2, 1, "prepared", 1.0), 1, 0)],
        ));
        assert_eq!(header, alone, "the header does not depend on the runs");
        let n = header.len();
        assert_eq!(
            header[n - 3..],
            [
                "latency_limit_ms",
                "latency_limit_late",
                "latency_limit_skipped"
            ]
        );
        assert_eq!(rows[0][n - 3..], ["5.000", "20", "3"]);
        assert_eq!(rows[1][n - 3..], ["", "", ""]);
    }
}
