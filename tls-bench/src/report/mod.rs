//! Reporting: the one result type of a run ([`Report`]), the tables every
//! text-like exporter draws from it ([`SectionTable`]), and one exporter per
//! format: [`text`], [`markdown`], [`csv_text`], JSON through [`render`].

mod csv;
mod markdown;
pub mod summary;
mod tables;
mod text;

pub use csv::csv_text;
pub use markdown::markdown;
pub use tables::SectionTable;
pub use text::text;

use encbench_common::ResultHeader;
use serde::Serialize;

use crate::bulk::BulkRow;
use crate::comparison::{ControlRuns, TlsComparison};
use crate::footprint::FootprintRow;
use crate::handshake::HandshakeRow;
use crate::latency::LatencyRow;
use crate::record::RecordRow;

/// Where and with what a run was made.
#[derive(Clone, Debug, Serialize)]
pub struct Environment {
    /// tls-bench version.
    pub tool_version: &'static str,
    /// OpenSSL version string of the loaded libssl.
    pub openssl: String,
    /// Logical CPUs available to the process.
    pub cpus: usize,
    /// True for `--quick`.
    pub quick: bool,
    /// Rounds of the handshake, latency and bulk sections (`--repeat`).
    pub repeat: usize,
    /// True for `--control`: every baseline ran twice per round, the second
    /// runs are in `control_runs` and their A/A comparisons in `noise_floor`.
    pub control: bool,
}

/// The version of tls-bench's JSON layout (`schema_version`): raised when a
/// field is removed, renamed or changes meaning.
pub const SCHEMA_VERSION: u32 = 1;

/// Everything a run measured; every exporter reads only this.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// `schema_version`, `tool`, `started_at`, `ended_at` (around the sections)
    /// and `machine`: the head of every encbench JSON result, flattened.
    #[serde(flatten)]
    pub header: ResultHeader,
    /// Where and with what.
    pub environment: Environment,
    /// Handshake rows (socket and in-memory harness).
    pub handshake: Vec<HandshakeRow>,
    /// Record overhead rows.
    pub record: Vec<RecordRow>,
    /// Round-trip latency rows.
    pub latency: Vec<LatencyRow>,
    /// Bulk throughput rows.
    pub bulk: Vec<BulkRow>,
    /// Footprint rows.
    pub footprint: Vec<FootprintRow>,
    /// The second (A') runs of every baseline with `--control`, empty without.
    pub control_runs: ControlRuns,
    /// The A/A noise floor per metric and point: each baseline's A' runs
    /// against its A runs of the same rounds, in the fields of
    /// `comparisons` (variant `<baseline> (A/A control)`); empty without
    /// `--control` or with 1 round.
    pub noise_floor: Vec<TlsComparison>,
    /// Every variant against its baseline over the paired rounds, per
    /// metric and grid point ([`crate::comparison`]).
    pub comparisons: Vec<TlsComparison>,
    /// Combinations not run, with the reason.
    pub skipped: Vec<String>,
}

/// Output formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Aligned tables for a terminal.
    Text,
    /// The [`Report`] as one JSON object.
    Json,
    /// One CSV block per table, blank line between, first column `section`.
    Csv,
    /// GitHub-flavoured Markdown tables.
    Markdown,
}

impl std::str::FromStr for Format {
    type Err = crate::Error;
    fn from_str(s: &str) -> crate::Result<Self> {
        match s.to_ascii_lowercase().as_str() {
            "text" => Ok(Format::Text),
            "json" => Ok(Format::Json),
            "csv" => Ok(Format::Csv),
            "markdown" | "md" => Ok(Format::Markdown),
            _ => Err(crate::Error::UnknownName {
                what: "output format",
                name: s.to_string(),
                known: "text, json, csv, markdown".to_string(),
            }),
        }
    }
}

/// Renders `report` in `format`; `json_out` is where the JSON report also
/// went (`--json-out`), named in the text summary.
///
/// # Errors
/// [`crate::Error::Protocol`] if serialisation fails (it does not for these types).
pub fn render(
    report: &Report,
    format: Format,
    json_out: Option<&std::path::Path>,
) -> crate::Result<String> {
    match format {
        Format::Text => Ok(text(report, json_out)),
        Format::Json => serde_json::to_string_pretty(report)
            .map(|s| s + "\n")
            .map_err(|e| crate::Error::Protocol(format!("JSON: {e}"))),
        Format::Csv => csv_text(report),
        Format::Markdown => Ok(markdown(report)),
    }
}
