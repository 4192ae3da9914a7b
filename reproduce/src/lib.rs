//! `encbench-reproduce ID` (and `oltp reproduce ID`, which runs it): the
//! experiment a source report describes (the reports in `shared/seeds/`,
//! their published figures in `reproduce/published/` as data), run on this
//! machine through oltp's library, scaled where it must be, with our
//! measurement beside every published figure and a verdict.
//!
//! Data flows one way, as in `oltp run`: the report's data file
//! ([`published`]) and the scale ([`plan`]) give the grids to run; the
//! command ([`command`], the only part that prints or touches a
//! server) checks resources ([`resources`]), prepares or reuses the data
//! sets and runs the grids; one file per report turns the grids' results into
//! rows ([`column_encryption`] for 000, [`at_rest_pgbench`] for 001,
//! [`tls_footprint`] for 003, [`cached_vs_io_bound`] for 004; 000's proxy
//! prediction from column-bench in [`proxy`]), each judged by [`verdict`] on the one comparison
//! method (`encbench_common::compare`, through `oltp run`'s comparisons); one
//! exporter per format writes them ([`markdown`], [`json`], [`svg`],
//! [`html`]). [`cli`] holds the command line.

pub mod at_rest_pgbench;
pub mod buffer_pool;
pub mod cached_vs_io_bound;
pub mod cli;
pub mod column_encryption;
pub mod command;
pub mod diskstats;
pub mod footprint;
pub mod html;
pub mod io_sample;
pub mod json;
pub mod markdown;
pub mod plan;
pub mod proxy;
pub mod published;
pub mod resources;
pub mod row;
pub mod svg;
pub mod tls_footprint;
pub mod verdict;

pub use plan::{Grid, Plan, Scale};
pub use row::{Reproduction, Row};
pub use verdict::Verdict;

use anyhow::{Result, bail};

/// A source report that `encbench-reproduce` knows, by its seed file's number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReportId {
    /// 000: column encryption in Data Security Center (sysbench OLTP, 64-256 threads).
    R000,
    /// 001: encryption at rest on PostgreSQL (pgbench, every at-rest mode here).
    R001,
    /// 003: SSL vs plain MySQL with yaSSL (footprint, average SELECT time).
    R003,
    /// 004: RDS cached vs IO-bound (sysbench oltp_read_write, the ratio).
    R004,
}

/// Every id, in the order `all` runs them.
pub const ALL: [ReportId; 4] = [
    ReportId::R000,
    ReportId::R001,
    ReportId::R003,
    ReportId::R004,
];

impl ReportId {
    /// The id as written: `000`, `001`, `003`, `004`.
    pub fn as_str(self) -> &'static str {
        match self {
            ReportId::R000 => "000",
            ReportId::R001 => "001",
            ReportId::R003 => "003",
            ReportId::R004 => "004",
        }
    }
}

impl std::fmt::Display for ReportId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The ids `text` names: one of `000`, `001`, `003`, `004`, or `all` (every
/// one in turn).
///
/// # Errors
/// Any other text: one line listing the valid ids.
pub fn parse_id(text: &str) -> Result<Vec<ReportId>> {
    if text.eq_ignore_ascii_case("all") {
        return Ok(ALL.to_vec());
    }
    match ALL.iter().find(|id| id.as_str() == text) {
        Some(id) => Ok(vec![*id]),
        None => bail!(
            "unknown report id {text:?}: give one of {}, or all",
            ALL.map(ReportId::as_str).join(", ")
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_parse_and_unknown_ones_list_the_valid_ones() {
        assert_eq!(parse_id("003").expect("id"), vec![ReportId::R003]);
        assert_eq!(parse_id("all").expect("all"), ALL.to_vec());
        let e = parse_id("002").expect_err("unknown").to_string();
        assert_eq!(
            e,
            "unknown report id \"002\": give one of 000, 001, 003, 004, or all"
        );
    }
}
