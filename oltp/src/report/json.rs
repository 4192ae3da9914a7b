//! JSON: the [`Report`] as `oltp run --json-out` writes it, and read back (by
//! `oltp merge`), refusing files of another [`SCHEMA_VERSION`].

use serde::Deserialize;

use super::Report;
use super::model::RunResult;

/// The version of the JSON report's layout, its top-level `schema_version`.
/// 1: before the field existed; 2: `schema_version` added (the run objects
/// are those of 1); 3: the header every encbench result has (`tool` an
/// object, `started_at`, `ended_at`, `machine`); 4: each run's
/// `measured_window` (which `oltp merge` requires to overlap) and server CPU
/// (`server_cpu_s`, `server_cpu_us_per_query`, `total_cpu_us_per_query`,
/// `server_cpu_unavailable`). Raise it when a field a reader relies on
/// changes.
pub const SCHEMA_VERSION: u32 = 4;

impl Report {
    /// JSON (pretty-printed).
    ///
    /// # Errors
    /// Serialisation failed.
    pub fn to_json(&self) -> serde_json::Result<String> {
        serde_json::to_string_pretty(self)
    }
}

/// The part of a JSON report that is read back.
#[derive(Clone, Debug, PartialEq)]
pub struct ReportFile {
    /// Its `schema_version` (always [`SCHEMA_VERSION`] when read by [`parse`]).
    pub schema_version: u32,
    /// Its runs, in the order run.
    pub runs: Vec<RunResult>,
}

/// Why bytes are not a JSON report this oltp reads. The messages complete a
/// sentence that starts with the file's name.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReadError {
    /// Not JSON, or not an `oltp run` report.
    #[error("is not an oltp run report ({0}): write one with `oltp run --json-out FILE`")]
    NotAReport(#[from] serde_json::Error),
    /// Written by an older oltp (`schema_version` absent, i.e. 1, or lower than ours).
    #[error(
        "was written by an older oltp (schema_version {0}, this oltp reads {SCHEMA_VERSION}): re-run `oltp run --json-out` with this oltp"
    )]
    Older(u32),
    /// Written by a newer oltp.
    #[error(
        "was written by a newer oltp (schema_version {0}, this oltp reads {SCHEMA_VERSION}): use that oltp"
    )]
    Newer(u32),
}

/// Refuses any `schema_version` but [`SCHEMA_VERSION`].
///
/// # Errors
/// [`ReadError::Older`] or [`ReadError::Newer`].
pub fn check_schema(schema_version: u32) -> Result<(), ReadError> {
    match schema_version {
        v if v < SCHEMA_VERSION => Err(ReadError::Older(v)),
        v if v > SCHEMA_VERSION => Err(ReadError::Newer(v)),
        _ => Ok(()),
    }
}

/// Reads a JSON report: its `tool` and `schema_version` (absent: 1), and its
/// runs. One pass over the bytes when the report is one this oltp reads; when
/// that pass fails, a second reads the header alone, so that a report of
/// another tool or schema version is named as such rather than by the first
/// field its runs lack.
///
/// # Errors
/// Not a report, or a report of another schema version.
pub fn parse(bytes: &[u8]) -> Result<ReportFile, ReadError> {
    #[derive(Deserialize)]
    struct Header {
        /// `"oltp"` (schema 1 and 2) or `{"name": "oltp", ...}` (3 on).
        tool: serde_json::Value,
        #[serde(default = "schema_one")]
        schema_version: u32,
    }
    #[derive(Deserialize)]
    struct File {
        tool: serde_json::Value,
        #[serde(default = "schema_one")]
        schema_version: u32,
        runs: Vec<RunResult>,
    }
    fn schema_one() -> u32 {
        1
    }
    fn check(header: &Header) -> Result<(), ReadError> {
        let name = header
            .tool
            .as_str()
            .or_else(|| header.tool.get("name").and_then(serde_json::Value::as_str));
        if name != Some("oltp") {
            return Err(ReadError::NotAReport(serde::de::Error::custom(format!(
                "tool is {}",
                header.tool
            ))));
        }
        check_schema(header.schema_version)
    }
    match serde_json::from_slice::<File>(bytes) {
        Ok(File {
            tool,
            schema_version,
            runs,
        }) => {
            check(&Header {
                tool,
                schema_version,
            })?;
            Ok(ReportFile {
                schema_version,
                runs,
            })
        }
        Err(e) => {
            let header: Header = serde_json::from_slice(bytes)?;
            check(&header)?;
            Err(e.into())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::model::TlsInfo;
    use super::super::model::fixtures::{run, settings};
    use super::*;

    fn keys(v: &serde_json::Value) -> Vec<&str> {
        let mut k: Vec<&str> = v
            .as_object()
            .expect("object")
            .keys()
            .map(String::as_str)
            .collect();
        k.sort_unstable();
        k
    }

    /// The field names of schema 1 (before RunSettings): readers such as
    /// column-bench's `--oltp-result` rely on them.
    #[test]
    fn run_json_keeps_its_field_names() {
        let mut s = settings(2, "rustcrypto:aes-256-gcm");
        s.tls = Some(TlsInfo {
            version: "TLSv1.3".to_string(),
            cipher: "TLS_AES_256_GCM_SHA384".to_string(),
            mode: crate::driver::TlsMode::VerifyIdentity,
        });
        let report = Report::new(
            Report::begin(),
            vec![run(s, 10, 0), run(settings(2, "none"), 10, 0)],
        );
        let v: serde_json::Value =
            serde_json::from_str(&report.to_json().expect("json")).expect("json");
        // The header every encbench result has (schema 3 on).
        encbench_common::header::check_json(&v).expect("the result header contract");
        assert_eq!(v["tool"]["name"], "oltp");
        assert_eq!(
            keys(&v),
            [
                "comparison",
                "comparisons",
                "complete",
                "ended_at",
                "machine",
                "noise_floor",
                "runs",
                "schema_version",
                "started_at",
                "summary",
                "tool"
            ]
        );
        assert_eq!(v["schema_version"], SCHEMA_VERSION);
        let run = &v["runs"][0];
        let mut old = vec![
            "workload",
            "threads",
            "encrypt",
            "encrypted_columns",
            "database",
            "tables",
            "table_size",
            "range_size",
            "options",
            "rand_type",
            "rand_seed",
            "rate",
            "tls",
            "at_rest",
            "round",
            "time_s",
            "transactions",
            "tps",
            "qps",
            "queries",
            "errors",
            "reconnects",
            "latency_ms",
            "latency_histogram",
            "statements",
            "fairness",
            "client_cpu_s",
            "client_cpu_us_per_query",
            "server_version",
            "server_settings",
            "complete",
            // Added with --control (a second baseline run per round).
            "control",
            // Added with --on-decrypt-error (values that failed authentication).
            "decrypt_errors",
            // Schema 4: the measured window and the server's CPU.
            "measured_window",
            "server_cpu_s",
            "server_cpu_us_per_query",
            "total_cpu_us_per_query",
            "server_cpu_unavailable",
            // Events a run-stopping error cut short.
            "interrupted_events",
            // The server's kind, with serde's default for older files.
            "engine",
            // The IOPS cap (--iops-limit), null when uncapped.
            "iops_cap",
            // Other oltp processes on the same private server at the start.
            "shared_with",
        ];
        old.sort_unstable();
        assert_eq!(keys(run), old);
        let mut options = vec![
            "range_size",
            "point_selects",
            "simple_ranges",
            "sum_ranges",
            "order_ranges",
            "distinct_ranges",
            "index_updates",
            "non_index_updates",
            "delete_inserts",
            "range_selects",
            "skip_trx",
            "auto_inc",
            "random_points",
            "db_ps_mode",
        ];
        options.sort_unstable();
        assert_eq!(keys(&run["options"]), options);
        assert_eq!(run["options"]["db_ps_mode"], "auto");
        assert_eq!(run["tls"]["cipher"], "TLS_AES_256_GCM_SHA384");
        assert_eq!(keys(&run["tls"]), ["cipher", "mode", "version"]);
        assert_eq!(run["tls"]["mode"], "verify-identity");
        assert!(v["runs"][1]["tls"].is_null());
        assert_eq!(keys(&run["measured_window"]), ["end", "start"]);
        // The fixture: 1.5 s of server CPU over 2 threads x 10 events x 3 queries.
        assert_eq!(run["server_cpu_us_per_query"], 25000.0);
        assert!(run["server_cpu_unavailable"].is_null());
    }

    #[test]
    fn parse_reads_back_what_to_json_wrote() {
        let report = Report::new(Report::begin(), vec![run(settings(1, "none"), 5, 1)]);
        let json = report.to_json().expect("json");
        let file = parse(json.as_bytes()).expect("parse");
        assert_eq!(file.schema_version, SCHEMA_VERSION);
        // serde_json reads a float back to within one ulp: compare as JSON.
        let v: serde_json::Value = serde_json::from_str(&json).expect("json");
        assert_eq!(serde_json::to_value(&file.runs).expect("json"), v["runs"]);
        assert_eq!(file.runs[0].settings, report.runs[0].settings);
        assert_eq!(
            file.runs[0].latency_histogram,
            report.runs[0].latency_histogram
        );
    }

    #[test]
    fn parse_refuses_other_schema_versions() {
        let report = Report::new(Report::begin(), vec![run(settings(1, "none"), 5, 1)]);
        let mut v = serde_json::to_value(&report).expect("json");
        let obj = v.as_object_mut().expect("object");
        obj.remove("schema_version");
        let bytes = serde_json::to_vec(&v).expect("json");
        let e = parse(&bytes).expect_err("schema 1");
        assert!(matches!(e, ReadError::Older(1)), "{e}");
        assert!(e.to_string().contains("older oltp"), "{e}");
        assert!(e.to_string().contains("re-run"), "{e}");
        v["schema_version"] = (SCHEMA_VERSION + 1).into();
        let e = parse(&serde_json::to_vec(&v).expect("json")).expect_err("newer");
        assert!(matches!(e, ReadError::Newer(_)), "{e}");
        v["tool"] = "tls-bench".into();
        assert!(matches!(
            parse(&serde_json::to_vec(&v).expect("json")),
            Err(ReadError::NotAReport(_))
        ));
        assert!(matches!(parse(b"{"), Err(ReadError::NotAReport(_))));
    }
}
