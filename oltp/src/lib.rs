//! `oltp`: a sysbench 1.0-compatible OLTP load generator on a real MariaDB/MySQL
//! server, measuring the three encryption layers: column encryption by any
//! compiled-in encbench backend ([`columns`]), TLS to the server ([`driver`]), and
//! InnoDB encryption at rest (the private server's [`server::server_config`],
//! checked by `preflight`).
//!
//! Data flows one way: command line ([`cli`]) -> validated configuration
//! ([`config`]) -> checks (`preflight`) -> server ([`server`], or a URL) ->
//! workers (`worker`, running the [`workload`] event scripts over the
//! [`driver`] seam, values through the column codec) -> measurement
//! ([`measure`], with the server's CPU from [`server_cpu`]) -> result and report ([`report`], one exporter per format;
//! `merge` for several clients). Only [`commands`] prints.

pub mod cli;
pub mod commands;
pub mod config;
pub mod driver;
pub mod measure;
mod merge;
mod preflight;
pub mod report;
pub mod run;
pub mod sb_rand;
pub mod schema;
pub mod space;
mod worker;
pub mod workload;

pub use worker::OnDecryptError;

/// The column codec ([`encbench_columns`]), under the name oltp's modules and
/// tests use.
pub use encbench_columns as columns;

/// The database-server lab ([`encbench_lab`]): the private servers, at-rest
/// stores, IOPS caps and server CPU, under the module paths oltp's modules and
/// tests use. `oltp server ...` is the command over it.
pub use encbench_lab::{at_rest, io_failure, server, server_cpu};

/// What the fuzz targets (`fuzz/fuzz_targets/result_json.rs`) reach that is
/// otherwise private: the merge of `oltp merge` over reports already parsed
/// (`report::json::parse`), without reading files. Not a stable API.
#[doc(hidden)]
pub mod fuzzing {
    pub use crate::merge::{ClientReport, merge};
}
