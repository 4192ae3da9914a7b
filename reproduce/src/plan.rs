//! What a reproduction runs: its scale (the data file's quick or full
//! scale, with the test-only overrides), the data sets to prepare, and the
//! `oltp run` grids, with the time and disk they need, all known before
//! anything starts.

use super::published::{IopsLimitSpec, ScaleSpec};

/// How large to run: quick or full, and the overrides of `oltp reproduce`
/// (`--time`, `--warmup`, `--repeat`, `--threads`, `--tables`,
/// `--table-size`), which exist so that tests can shrink a run; a
/// reproduction with them is not the report's.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Scale {
    /// `--quick`.
    pub quick: bool,
    /// `--time S`.
    pub time_s: Option<u64>,
    /// `--warmup S`.
    pub warmup_s: Option<u64>,
    /// `--repeat N`.
    pub repeat: Option<u32>,
    /// `--threads LIST`.
    pub threads: Option<Vec<u32>>,
    /// `--tables N`.
    pub tables: Option<u32>,
    /// `--table-size N`.
    pub table_size: Option<u32>,
    /// `--scale N` (001's pgbench scale).
    pub pgbench_scale: Option<u32>,
    /// `--iops-limit N` (004's cap; 0: uncapped).
    pub iops_limit: Option<u32>,
}

impl Scale {
    /// The data file's scale with the overrides applied.
    pub fn apply(&self, spec: &ScaleSpec) -> ScaleSpec {
        ScaleSpec {
            tables: self.tables.unwrap_or(spec.tables),
            table_size: self.table_size.unwrap_or(spec.table_size),
            threads: self.threads.clone().unwrap_or_else(|| spec.threads.clone()),
            time_s: self.time_s.unwrap_or(spec.time_s),
            warmup_s: self.warmup_s.unwrap_or(spec.warmup_s),
            repeat: self.repeat.unwrap_or(spec.repeat),
            scaled_how: spec.scaled_how.clone(),
            iops_limit: match self.iops_limit {
                None => spec.iops_limit.clone(),
                Some(0) => None,
                Some(n) => Some(IopsLimitSpec {
                    iops: n,
                    instance: "none (--iops-limit override)".to_string(),
                    source_line: 0,
                    why: "given on the command line".to_string(),
                }),
            },
        }
    }

    /// Whether any override is given.
    pub fn overridden(&self) -> bool {
        self.time_s.is_some()
            || self.warmup_s.is_some()
            || self.repeat.is_some()
            || self.threads.is_some()
            || self.tables.is_some()
            || self.table_size.is_some()
            || self.pgbench_scale.is_some()
            || self.iops_limit.is_some()
    }
}

/// One data set to prepare (or reuse): `oltp prepare` arguments after the
/// common data arguments.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DataSetStep {
    /// `--encrypt` of the prepare (`none`, or one backend of the algorithm).
    pub encrypt: String,
    /// `--encrypt-columns` (`c,pad` by default).
    pub encrypt_columns: String,
    /// Bytes on disk per row, estimated (InnoDB files of the private server
    /// after `oltp prepare`, measured at 250 x 25,000 rows: 3.2 GiB plaintext,
    /// 3.7 GiB with `c` and `pad` sealed, docs/measurements.md; `k` too adds its
    /// envelope and index).
    pub bytes_per_row: u64,
    /// More `oltp prepare` arguments (001: `--pgsql-db`, `--workload`,
    /// `--scale`, one `--at-rest` mode); empty for 000 and 003.
    pub args: Vec<String>,
    /// Rows of this data set when they are not the plan's tables x rows
    /// (pgbench: 100,000 accounts per scale unit).
    pub rows: Option<u64>,
}

pub use encbench_oltp::space::{PLAIN_BYTES_PER_ROW, SEALED_BYTES_PER_ROW};

/// One `oltp run` grid.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Grid {
    /// What it measures, e.g. `oltp_read_only`.
    pub name: String,
    /// `oltp run` arguments after the common data arguments.
    pub args: Vec<String>,
    /// Thread counts.
    pub threads: Vec<u32>,
    /// Runs per round and thread count (modes, plus the `--control` run).
    pub runs_per_round: u32,
    /// Server-side prepared statements per table and connection (for the
    /// connect time estimate).
    pub statements_per_table: u32,
    /// Seconds before each round's runs, outside them (004: the server's
    /// restart with the profile and, cached, the pool's load and warming
    /// under the IOPS cap); 0 where the server stays up.
    pub round_setup_secs: f64,
}

/// Everything a reproduction will run.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    /// The effective scale.
    pub scale: ScaleSpec,
    /// The plaintext database name (each report has its own, so its data
    /// sets are reused by its next run and never mixed with another's).
    pub db: String,
    /// Data sets to prepare or reuse.
    pub data_sets: Vec<DataSetStep>,
    /// Grids, in order.
    pub grids: Vec<Grid>,
    /// Where the grids run; [`Servers::Shared`] for 000 and 003.
    pub servers: Servers,
}

/// Which servers a plan's data sets and grids use.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Servers {
    /// The private MariaDB, opened once with the default settings; the grids
    /// run in-process against it (000, 003).
    #[default]
    Shared,
    /// Each step is an `oltp prepare`/`oltp run` command that opens the
    /// servers its arguments name (001: the private PostgreSQL of every
    /// `--at-rest` mode, interleaved by `oltp run` itself).
    PerCommand,
    /// As `PerCommand`, and the grids are rounds of one comparison: round r
    /// runs every grid once (`--repeat 1`), the grids rotated by r (004: the
    /// private MariaDB restarted with `--profile cached`, then `io-bound`).
    PerCommandInterleaved,
}

/// Seconds to open one connection and prepare one statement on it, for the
/// estimate: 256 connections x 1,250 statements took about 25 s
/// (docs/measurements.md, "256 threads, 250 tables x 25,000 rows").
const SECS_PER_PREPARED_STATEMENT: f64 = 80e-6;
/// Rows loaded per second by `oltp prepare --threads 2` (6.25 M rows in
/// 61-74 s, docs/measurements.md).
const ROWS_PER_SEC: f64 = 85_000.0;

impl Plan {
    /// `oltp prepare`/`run` data arguments: database, tables, rows; for a
    /// pgbench plan (`db` empty) only `--db-driver pgsql`, each step naming
    /// its own database and scale.
    pub fn data_args(&self) -> Vec<String> {
        if self.db.is_empty() {
            return vec!["--db-driver".into(), "pgsql".into()];
        }
        vec![
            "--mysql-db".into(),
            self.db.clone(),
            "--tables".into(),
            self.scale.tables.to_string(),
            "--table-size".into(),
            self.scale.table_size.to_string(),
        ]
    }

    /// Number of measured runs.
    pub fn runs(&self) -> u64 {
        self.grids
            .iter()
            .map(|g| {
                g.threads.len() as u64 * u64::from(self.scale.repeat) * u64::from(g.runs_per_round)
            })
            .sum()
    }

    /// Rows of all data sets together.
    pub fn rows(&self) -> u64 {
        u64::from(self.scale.tables) * u64::from(self.scale.table_size)
    }

    /// Rows of the data set `step`.
    pub fn rows_of(&self, step: &DataSetStep) -> u64 {
        step.rows.unwrap_or_else(|| self.rows())
    }

    /// Bytes on disk the data sets `steps` need (estimated).
    pub fn disk_bytes(&self, steps: &[&DataSetStep]) -> u64 {
        steps
            .iter()
            .map(|s| s.bytes_per_row * self.rows_of(s))
            .sum()
    }

    /// Seconds the whole plan takes, estimated: every run's warm-up and
    /// measured window, its connections and prepared statements, each
    /// round's setup ([`Grid::round_setup_secs`]), and the loading of every
    /// data set (when none is reused).
    pub fn estimate_secs(&self) -> f64 {
        let s = &self.scale;
        let runs: f64 = self
            .grids
            .iter()
            .map(|g| {
                g.threads
                    .iter()
                    .map(|&t| {
                        let connect = 0.3
                            + f64::from(t)
                                * f64::from(s.tables)
                                * f64::from(g.statements_per_table)
                                * SECS_PER_PREPARED_STATEMENT;
                        f64::from(s.repeat)
                            * f64::from(g.runs_per_round)
                            * ((s.time_s + s.warmup_s) as f64 + connect)
                    })
                    .sum::<f64>()
                    + f64::from(s.repeat) * g.round_setup_secs
            })
            .sum();
        let load: f64 = self
            .data_sets
            .iter()
            .map(|d| self.rows_of(d) as f64 / ROWS_PER_SEC)
            .sum();
        runs + load
    }
}

/// Thread or connection counts as `--threads` takes them: `1,8,32`.
pub fn comma_separated(xs: &[u32]) -> String {
    xs.iter().map(u32::to_string).collect::<Vec<_>>().join(",")
}

/// `secs` as `12 min`, `1 h 40 min`, `40 s`.
pub fn duration_text(secs: f64) -> String {
    let s = secs.round() as u64;
    if s < 120 {
        format!("{s} s")
    } else if s < 3600 {
        format!("{} min", s.div_ceil(60))
    } else {
        format!("{} h {} min", s / 3600, (s % 3600).div_ceil(60))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overrides_replace_the_data_files_scale() {
        let spec = ScaleSpec {
            tables: 10,
            table_size: 25_000,
            threads: vec![64, 128, 256],
            time_s: 2,
            warmup_s: 1,
            repeat: 5,
            scaled_how: None,
            iops_limit: None,
        };
        let s = Scale {
            time_s: Some(1),
            repeat: Some(2),
            threads: Some(vec![2]),
            ..Scale::default()
        };
        let got = s.apply(&spec);
        assert_eq!(
            (got.time_s, got.repeat, got.threads.clone()),
            (1, 2, vec![2])
        );
        assert_eq!((got.tables, got.table_size, got.warmup_s), (10, 25_000, 1));
        assert!(s.overridden() && !Scale::default().overridden());
    }

    #[test]
    fn the_estimate_counts_every_run() {
        let plan = Plan {
            scale: ScaleSpec {
                tables: 1,
                table_size: 85_000,
                threads: vec![1, 8],
                time_s: 2,
                warmup_s: 1,
                repeat: 5,
                scaled_how: None,
                iops_limit: None,
            },
            db: "x".into(),
            data_sets: vec![DataSetStep {
                encrypt: "none".into(),
                encrypt_columns: "c,pad".into(),
                bytes_per_row: PLAIN_BYTES_PER_ROW,
                ..DataSetStep::default()
            }],
            grids: vec![Grid {
                name: "g".into(),
                args: vec![],
                threads: vec![1, 8],
                runs_per_round: 3,
                statements_per_table: 1,
                round_setup_secs: 0.0,
            }],
            servers: Servers::Shared,
        };
        assert_eq!(plan.runs(), 30);
        // 30 runs x (3 s + 0.3 s + threads x 80 us of statements), and 1 s of loading.
        let e = plan.estimate_secs();
        let want = 15.0 * (3.3 + 80e-6) + 15.0 * (3.3 + 8.0 * 80e-6) + 1.0;
        assert!((e - want).abs() < 1e-9, "{e} vs {want}");
        assert_eq!(plan.disk_bytes(&[&plan.data_sets[0]]), 85_000 * 560);
        assert_eq!(duration_text(40.2), "40 s");
        assert_eq!(duration_text(601.0), "11 min");
        assert_eq!(duration_text(6000.0), "1 h 40 min");
    }
}
