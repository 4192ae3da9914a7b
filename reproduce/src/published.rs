//! The published figures of each report, as data: one JSON file per report in
//! `reproduce/published/` (compiled in, so the binary works from any
//! directory). Each figure says what it is in words, the number, its unit and
//! the line of the seed file it comes from.

use serde::{Deserialize, Serialize};

use super::ReportId;

/// A report's data file.
#[derive(Clone, Debug, Deserialize, Serialize)]
pub struct Published {
    /// The report id (`000`, ...).
    pub report: String,
    /// The seed file the figures come from (in `shared/seeds/`).
    pub seed_file: String,
    /// What the report measured, in one line.
    pub title: String,
    /// How `source_line` (and `source_char`) count.
    pub line_numbering: String,
    /// Default tolerance of a "reproduced" verdict, in percentage points of
    /// the effect (see [`crate::verdict`]).
    pub tolerance_pct_points: f64,
    /// Why that tolerance.
    pub tolerance_why: String,
    /// The likely reason when an effect differs (figures may override it).
    #[serde(default)]
    pub differs_reason: Option<String>,
    /// How `published` is derived from the report's table, when it is.
    #[serde(default)]
    pub published_derivation: Option<String>,
    /// The column-encryption choices compared with plaintext (000).
    #[serde(default)]
    pub backends: Vec<String>,
    /// Why the first of `backends` is the best one (000).
    #[serde(default)]
    pub best_backend_why: Option<String>,
    /// What the chart's curve is (003).
    #[serde(default)]
    pub curve: Option<serde_json::Value>,
    /// What the reproduction measures beyond the report's figures (004: the
    /// cost of column encryption and of encryption at rest in each profile),
    /// in full mode only.
    #[serde(default)]
    pub beyond: Option<BeyondSpec>,
    /// The full run's scale.
    pub full: ScaleSpec,
    /// The quick run's scale.
    pub quick: ScaleSpec,
    /// The figures.
    pub figures: Vec<Figure>,
}

/// Beyond the report (004): column encryption and encryption at rest, each
/// against plaintext on the host's disk, in each profile, at the scale's
/// first thread count. Not published figures: they have no row, only a table
/// of their own and `measurements.beyond`.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
pub struct BeyondSpec {
    /// The column encryption (`--encrypt BACKEND:ALGORITHM`), e.g.
    /// `ring:aes-256-gcm`.
    pub backend: String,
    /// Why that backend.
    pub backend_why: String,
    /// The columns sealed (`--encrypt-columns`, e.g. `all`).
    pub encrypt_columns: String,
    /// The encryption at rest (`--at-rest MODE`, e.g. `innodb`).
    pub at_rest: String,
    /// Why that mode, and what it is.
    pub at_rest_why: String,
}

/// How large a reproduction runs.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
pub struct ScaleSpec {
    /// Tables (`--tables`).
    pub tables: u32,
    /// Rows per table (`--table-size`).
    pub table_size: u32,
    /// Thread counts (connections).
    pub threads: Vec<u32>,
    /// Measured seconds per run (`--time`).
    pub time_s: u64,
    /// Unmeasured seconds before each run (`--warmup`).
    pub warmup_s: u64,
    /// Interleaved rounds (`--repeat`).
    pub repeat: u32,
    /// How it is scaled from the report, in words (quick).
    #[serde(default)]
    pub scaled_how: Option<String>,
    /// The IOPS cap the private server runs with (`--iops-limit`), from the
    /// report's IOPS column for the instance this scale imitates (004);
    /// `None`: uncapped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iops_limit: Option<IopsLimitSpec>,
}

/// An IOPS cap taken from a report: the instance's provisioned IOPS.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
pub struct IopsLimitSpec {
    /// IO per second (`--iops-limit`: reads and writes each).
    pub iops: u32,
    /// The instance whose IOPS it is, e.g. `rds.mysql.s2.large`.
    pub instance: String,
    /// Line of the seed file holding the figure (1-based).
    pub source_line: u32,
    /// Why this instance, in words.
    pub why: String,
}

/// One published figure.
#[derive(Clone, Debug, Deserialize, Serialize)]
pub struct Figure {
    /// A short id the report's code looks figures up by (003), if any.
    #[serde(default)]
    pub id: Option<String>,
    /// What is compared, in words.
    pub figure: String,
    /// The report's figure.
    pub published: f64,
    /// Its unit (`% change (ciphertext vs plaintext)`, `% of installed size`).
    pub published_unit: String,
    /// Line of the seed file (1-based; see `line_numbering`).
    pub source_line: u32,
    /// 0-based character offset of `quote` in the line (one-line seeds).
    #[serde(default)]
    pub source_char: Option<usize>,
    /// The sentence the figure comes from (one-line seeds).
    #[serde(default)]
    pub quote: Option<String>,
    /// The report's instance (000).
    #[serde(default)]
    pub instance: Option<String>,
    /// The sysbench workload.
    #[serde(default)]
    pub workload: Option<String>,
    /// Threads (connections).
    #[serde(default)]
    pub threads: Option<u32>,
    /// `qps` or `rt_ms`: which of oltp's comparisons this figure is.
    #[serde(default)]
    pub metric: Option<String>,
    /// The report's plaintext figure (000).
    #[serde(default)]
    pub plaintext: Option<f64>,
    /// The report's ciphertext figure (000).
    #[serde(default)]
    pub ciphertext: Option<f64>,
    /// The report's two figures an effect or ratio is derived from (004:
    /// cached and IO-bound QPS of one instance, or a QPS and its TPS).
    #[serde(default)]
    pub baseline: Option<f64>,
    /// See `baseline`.
    #[serde(default)]
    pub variant: Option<f64>,
    /// The unit of `plaintext` and `ciphertext` (`QPS`, `ms`), or of
    /// `baseline` and `variant`.
    #[serde(default)]
    pub value_unit: Option<String>,
    /// Queries per transaction of the workload (16 read-only, 20 read/write).
    #[serde(default)]
    pub queries_per_transaction: Option<u32>,
    /// This figure's tolerance, percentage points (else the file's).
    #[serde(default)]
    pub tolerance_pct_points: Option<f64>,
    /// Why that tolerance.
    #[serde(default)]
    pub tolerance_why: Option<String>,
    /// This figure's likely reason when it differs (else the file's).
    #[serde(default)]
    pub differs_reason: Option<String>,
}

impl Published {
    /// The data file of `id`.
    ///
    /// # Errors
    /// The compiled-in file does not parse (a broken data file: a test
    /// parses every one).
    pub fn of(id: ReportId) -> anyhow::Result<Published> {
        let text = match id {
            ReportId::R000 => include_str!("../published/000.json"),
            ReportId::R001 => include_str!("../published/001.json"),
            ReportId::R003 => include_str!("../published/003.json"),
            ReportId::R004 => include_str!("../published/004.json"),
        };
        serde_json::from_str(text)
            .map_err(|e| anyhow::anyhow!("reproduce/published/{id}.json: {e}"))
    }

    /// The figure whose `id` is `id`.
    pub fn figure(&self, id: &str) -> Option<&Figure> {
        self.figures.iter().find(|f| f.id.as_deref() == Some(id))
    }

    /// The scale of a quick or full run.
    pub fn scale(&self, quick: bool) -> &ScaleSpec {
        if quick { &self.quick } else { &self.full }
    }
}

impl Figure {
    /// The tolerance of this figure's verdict, percentage points.
    pub fn tolerance(&self, file: &Published) -> f64 {
        self.tolerance_pct_points
            .unwrap_or(file.tolerance_pct_points)
    }

    /// The likely reason when this figure differs.
    pub fn differs_reason<'a>(&'a self, file: &'a Published) -> &'a str {
        self.differs_reason
            .as_deref()
            .or(file.differs_reason.as_deref())
            .unwrap_or("the setups differ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lines of `p`'s seed file, which lives beside the repository
    /// (`shared/seeds/`), not in it; `None` (the line checks skipped, said on
    /// stderr) where it is absent, as in a clone.
    fn seed_lines(p: &Published) -> Option<Vec<String>> {
        let path = format!(
            "{}/../../shared/seeds/{}",
            env!("CARGO_MANIFEST_DIR"),
            p.seed_file
        );
        let Ok(seed) = std::fs::read_to_string(&path) else {
            eprintln!("{path} not found: line check skipped");
            return None;
        };
        Some(seed.lines().map(str::to_string).collect())
    }

    #[test]
    fn every_data_file_parses_and_names_its_report() {
        for id in super::super::ALL {
            let p = Published::of(id).expect("data file");
            assert_eq!(p.report, id.as_str());
            assert!(!p.figures.is_empty(), "{id}");
            assert!(p.figures.iter().all(|f| f.source_line >= 1), "{id}");
        }
    }

    #[test]
    fn the_000_effects_are_the_tables_ratios() {
        let p = Published::of(ReportId::R000).expect("000");
        for f in &p.figures {
            let (a, b) = (
                f.plaintext.expect("plaintext"),
                f.ciphertext.expect("ciphertext"),
            );
            let pct = (b / a - 1.0) * 100.0;
            assert!(
                (pct - f.published).abs() < 0.006,
                "{}: {pct} vs {}",
                f.figure,
                f.published
            );
            // The report's own identity: RT = threads x queries per transaction / QPS.
            if f.metric.as_deref() == Some("qps") {
                let q = f64::from(f.queries_per_transaction.expect("q/trx"));
                let t = f64::from(f.threads.expect("threads"));
                let rt = p
                    .figures
                    .iter()
                    .find(|g| {
                        g.metric.as_deref() == Some("rt_ms") && g.source_line == f.source_line
                    })
                    .expect("rt figure");
                let predicted = t * q / a * 1000.0;
                let rt_pub = rt.plaintext.expect("rt");
                assert!(
                    (predicted / rt_pub - 1.0).abs() < 0.03,
                    "{}: {predicted} vs {rt_pub}",
                    f.figure
                );
            }
        }
    }

    #[test]
    fn the_004_figures_are_the_tables_ratios() {
        let p = Published::of(ReportId::R004).expect("004");
        assert_eq!(p.figures.len(), 15);
        for f in &p.figures {
            let (a, b) = (f.baseline.expect("baseline"), f.variant.expect("variant"));
            let derived = if f.metric.as_deref() == Some("qps") {
                (b / a - 1.0) * 100.0
            } else {
                a / b
            };
            assert!(
                (derived - f.published).abs() < 0.006,
                "{}: {derived} vs {}",
                f.figure,
                f.published
            );
        }
    }

    #[test]
    fn the_001_figures_sit_on_the_seeds_table_rows() {
        let p = Published::of(ReportId::R001).expect("001");
        for f in &p.figures {
            assert!(f.id.is_some(), "{}", f.figure);
        }
        let Some(lines) = seed_lines(&p) else {
            return;
        };
        for f in &p.figures {
            let line = &lines[f.source_line as usize - 1];
            assert!(line.starts_with('|'), "{}: {line}", f.figure);
        }
    }

    #[test]
    fn the_004_iops_cap_is_the_seeds_iops_of_its_instance() {
        let p = Published::of(ReportId::R004).expect("004");
        let (quick, full) = (p.scale(true), p.scale(false));
        let cap = quick.iops_limit.as_ref().expect("quick mode is capped");
        assert_eq!(
            full.iops_limit.as_ref(),
            Some(cap),
            "same cap in both modes"
        );
        let Some(lines) = seed_lines(&p) else {
            return;
        };
        let at = |n: u32| lines[n as usize - 1].trim().replace(',', "");
        assert_eq!(at(cap.source_line), cap.iops.to_string());
        // The instance's name is 8 lines above its IOPS (the table's columns
        // name, rows, tables, connections, IOPS; a blank line between each).
        let name = &lines[cap.source_line as usize - 9];
        assert!(name.contains(&cap.instance), "{name}");
    }

    #[test]
    fn the_003_quotes_sit_at_their_offsets_in_the_one_line() {
        let p = Published::of(ReportId::R003).expect("003");
        assert!(p.figure("select_time_8").is_some());
        for f in &p.figures {
            assert_eq!(f.source_line, 1);
            assert!(f.source_char.is_some() && f.quote.is_some(), "{}", f.figure);
        }
    }
}
